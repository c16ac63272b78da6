/* bench.h - timing helpers shared by ctensor's benchmarks.
   Each case prints one tab-separated line, the format bench/torch/ twins print too:
       name <TAB> params <TAB> median_us <TAB> min_us <TAB> reps
   Cases run for about BENCH_SECONDS (env CT_BENCH_SECONDS, default 0.5 s) after
   a warm-up, in batches whose size makes one batch last >= ~200 us. */
#ifndef CT_BENCH_H
#define CT_BENCH_H
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double bench_now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}
static int bench_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double bench_seconds(void) {
    const char *s = getenv("CT_BENCH_SECONDS");
    double v = s ? atof(s) : 0.5;
    return v > 0 ? v : 0.5;
}

/* Times fn(user), prints the line and returns the median (us). fn runs one repetition. */
typedef void (*bench_fn)(void *user);
static double bench_run(const char *name, const char *params, bench_fn fn, void *user) {
    double budget = bench_seconds() * 1e6;
    /* warm up and size the batch */
    double t0 = bench_now_us();
    fn(user);
    double one = bench_now_us() - t0;
    int batch = 1;
    if (one < 200) batch = (int)(200 / (one > 0.01 ? one : 0.01)) + 1;
    for (int i = 0; i < batch; i++) fn(user);
    enum { MAXS = 2000 };
    static double samples[MAXS];
    int n = 0;
    double start = bench_now_us();
    while (n < MAXS && (n < 5 || bench_now_us() - start < budget)) {
        double a = bench_now_us();
        for (int i = 0; i < batch; i++) fn(user);
        samples[n++] = (bench_now_us() - a) / batch;
    }
    qsort(samples, (size_t)n, sizeof(double), bench_cmp);
    printf("%s\t%s\t%.3f\t%.3f\t%d\n", name, params, samples[n / 2], samples[0], n * batch);
    fflush(stdout);
    return samples[n / 2];
}
#endif
