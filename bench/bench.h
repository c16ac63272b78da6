/* bench.h - timing helpers shared by ctensor's benchmarks.

   Each case prints one tab-separated line, the format the bench/torch/ twins print too:
       name <TAB> params <TAB> median_us <TAB> min_us <TAB> reps [<TAB> rate]
   median_us / min_us are per operation: the median and the fastest of the batch
   means. A case runs for about CT_BENCH_SECONDS (env, default 0.5 s) after a
   warm-up, in batches sized so that one batch lasts >= ~200 us; reps counts the
   operations timed. The optional sixth field is a rate computed from the median
   ("12.3 GB/s" or "45.6 GFLOP/s") when the case declares its bytes or flops.
   Lines starting with '#' are comments (the settings of the run).

   Include this before any other header (it sets _POSIX_C_SOURCE).

   Environment (the Python twin helper, bench/torch/ctbench.py, reads the same ones):
     CT_BENCH_SECONDS   time per case in seconds (default 0.5; e.g. 0.05 for a quick run)
     CT_BENCH_THREADS   default thread count for cases that do not set their own
                        (OpenMP and OpenBLAS; default: leave the runtime's default)
     CT_BENCH_CLOCK     "wall" (default: CLOCK_MONOTONIC) or "cpu": single-threaded cases
                        are timed with the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID:
                        user + system time of this thread), which leaves out the time
                        other processes take the core away; for a machine shared with
                        other work. Cases with more than one thread always use the wall clock.
     CT_BENCH_FILTER    run only the cases whose name contains this string ("^..." and
                        "...$" anchor it at the start / end, as in a regex)

   Usage:
       static void add_case(void *u) { ... one operation ... }
       int main(void) {
           bench_begin("overhead");                  // prints the settings line
           bench_set_threads(1);                     // threads for the next cases
           bench_run("add_4x4_f32", "4x4", add_case, &state);
           bench_opts o = {1000, 0, 0};              // fn does 1000 operations per call
           bench_run_opts("add_4x4_f32_scope1000", "4x4", add1000_case, &state, &o);
       }
*/
#ifndef CT_BENCH_H
#define CT_BENCH_H
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(CTENSOR_BLAS) && !defined(BENCH_NO_OPENBLAS)
/* OpenBLAS keeps its own thread pool (the pthread build ignores OMP_NUM_THREADS
   once started); these are part of every OpenBLAS build. */
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
#define BENCH_HAVE_OPENBLAS 1
#endif

static inline int bench_cpu_clock(void) {
    const char *c = getenv("CT_BENCH_CLOCK");
    return c && strcmp(c, "cpu") == 0;
}
static int bench__clock = CLOCK_MONOTONIC; /* the clock bench_now_us reads */
static inline double bench_now_us(void) {
    struct timespec ts;
    clock_gettime(bench__clock, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}
static inline double bench_wall_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}
static inline int bench_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static inline double bench_seconds(void) {
    const char *s = getenv("CT_BENCH_SECONDS");
    double v = s ? atof(s) : 0.5;
    return v > 0 ? v : 0.5;
}
/* Whether the case `name` passes CT_BENCH_FILTER: a substring of the name, or
   anchored like a regex: "^add" (starts with), "_t1$" (ends with), "^add_4x4_f32$". */
static inline int bench_selected(const char *name) {
    const char *f = getenv("CT_BENCH_FILTER");
    if (!f || !*f) return 1;
    size_t n = strlen(f), ln = strlen(name);
    int start = f[0] == '^', end = n > (size_t)start && f[n - 1] == '$';
    const char *p = f + start;
    size_t m = n - (size_t)start - (size_t)end;
    if (m > ln) return 0;
    if (start && end) return m == ln && strncmp(name, p, m) == 0;
    if (start) return strncmp(name, p, m) == 0;
    if (end) return strncmp(name + ln - m, p, m) == 0;
    return strstr(name, f) != NULL;
}

/* ---- threads ------------------------------------------------------------- */
static inline int bench_threads(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
#ifdef __cplusplus
extern "C" void ct_set_num_threads(int n);   /* ctensor.h (declared here: bench.h may come first; nvcc builds C++) */
#else
void ct_set_num_threads(int n);   /* ctensor.h (declared here: bench.h may come first) */
#endif
/* Threads for the following cases: ctensor's pool (and OpenMP for kernels still on it).
   OpenBLAS is not set: with more than one pool thread ctensor runs it on one thread and
   splits large products on its pool (see ctensor.h, ct__blas_plan). */
static inline void bench_set_threads(int n) {
    if (n < 1) n = 1;
    ct_set_num_threads(n);
#if defined(BENCH_HAVE_OPENBLAS) && !defined(CTENSOR_OPENMP) && !defined(CTENSOR_THREADS)
    openblas_set_num_threads(n);
#endif
}

/* Prints the settings of this run as a comment line and applies CT_BENCH_THREADS. */
static inline void bench_begin(const char *program) {
    const char *t = getenv("CT_BENCH_THREADS");
    if (t && atoi(t) > 0) bench_set_threads(atoi(t));
    const char *f = getenv("CT_BENCH_FILTER");
    printf("# %s: ctensor, seconds/case=%g, clock=%s, default threads=%d (%s)%s%s\n", program, bench_seconds(),
           bench_cpu_clock() ? "thread CPU time for 1-thread cases" : "wall",
           bench_threads(),
#ifdef _OPENMP
           "OpenMP"
#else
           "no OpenMP"
#endif
#ifdef BENCH_HAVE_OPENBLAS
           " + OpenBLAS"
#endif
           , f && *f ? ", filter=" : "", f && *f ? f : "");
    fflush(stdout);
}

/* ---- timing --------------------------------------------------------------- */
typedef void (*bench_fn)(void *user);
typedef struct bench_opts {
    int ops_per_call;   /* operations one fn call performs (times are per operation); 0 = 1 */
    double bytes;       /* bytes one operation reads + writes (prints GB/s); 0 = none */
    double flops;       /* floating-point operations per operation (prints GFLOP/s); 0 = none */
    void (*sync)(void); /* called at the end of each batch, inside the timing (a GPU's
                           ct_cuda_synchronize: kernels are asynchronous); NULL = none */
} bench_opts;

/* Times fn(user) and prints the line. Skips the case (prints nothing) when
   CT_BENCH_FILTER excludes it. Returns the median in us per operation (0 when skipped). */
static inline double bench_run_opts(const char *name, const char *params, bench_fn fn, void *user, const bench_opts *o) {
    if (!bench_selected(name)) return 0;
    bench__clock = bench_cpu_clock() && bench_threads() == 1 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
    double per = o && o->ops_per_call > 1 ? (double)o->ops_per_call : 1.0;
    double budget = bench_seconds() * 1e6;
    /* warm up (>= 1 call, about 5% of the budget) and size the batch */
    long calls = 0, chunk = 1;
    double t0 = bench_now_us(), w0 = bench_wall_us(), el;
    for (;;) {
        for (long i = 0; i < chunk; i++) fn(user);
        if (o && o->sync) o->sync();
        calls += chunk;
        el = bench_now_us() - t0;
        if (bench_wall_us() - w0 >= 0.05 * budget || calls >= 1000000) break;
        if (chunk < 4096) chunk *= 2;
    }
    double one = el / (double)calls;
    int batch = one < 200 ? (int)(200 / (one > 0.005 ? one : 0.005)) + 1 : 1;
    enum { MAXS = 2000 };
    static double samples[MAXS];
    int n = 0;
    double start = bench_wall_us(); /* the budget is wall time, whatever the clock */
    while (n < MAXS && (n < 5 || bench_wall_us() - start < budget)) {
        double a = bench_now_us();
        for (int i = 0; i < batch; i++) fn(user);
        if (o && o->sync) o->sync();
        samples[n++] = (bench_now_us() - a) / batch / per;
    }
    qsort(samples, (size_t)n, sizeof(double), bench_cmp);
    double med = samples[n / 2];
    printf("%s\t%s\t%.3f\t%.3f\t%.0f", name, params, med, samples[0], (double)n * batch * per);
    if (o && o->bytes > 0) printf("\t%.1f GB/s", o->bytes / (med * 1e3));
    else if (o && o->flops > 0) printf("\t%.2f GFLOP/s", o->flops / (med * 1e3));
    printf("\n");
    fflush(stdout);
    return med;
}
static inline double bench_run(const char *name, const char *params, bench_fn fn, void *user) {
    return bench_run_opts(name, params, fn, user, NULL);
}
#endif
