/* gemm: C = A @ B through ct_mm for square float32/float64 matrices (n = 256,
   1024, 2048) on 1 and 2 threads. `make bench` builds it twice:
     build/bench/gemm           with CBLAS (OpenBLAS): ct_mm calls cblas_?gemm, and
                                the cblas_* cases time OpenBLAS directly (the
                                single-thread ones are the built-in kernel's yardstick)
     build/bench/gemm_builtin   without CBLAS: the built-in blocked kernels (OpenMP)
   After each case a comment line gives its GFLOP/s (2 n^3 / median time).
   PyTorch twin: bench/torch/gemm.py (same case names). */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"

typedef struct { ct_tensor *a, *b; int n; ct_dtype dt; } mm_case;

static void run_mm(void *u) {
    mm_case *c = (mm_case *)u;
    CT_SCOPE { (void)ct_mm(c->a, c->b); }
}
#ifdef CTENSOR_BLAS
static void run_cblas(void *u) {
    mm_case *c = (mm_case *)u;
    int n = c->n;
    CT_SCOPE {
        ct_tensor *out = ct_empty(c->dt, n, n);
        if (c->dt == CT_FLOAT32)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, (const float *)ct_data_ptr(c->a), n,
                        (const float *)ct_data_ptr(c->b), n, 0.0f, (float *)ct_data_ptr(out), n);
        else
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, (const double *)ct_data_ptr(c->a), n,
                        (const double *)ct_data_ptr(c->b), n, 0.0, (double *)ct_data_ptr(out), n);
    }
}
#endif
static void set_threads(int t) {
#ifdef CTENSOR_OPENMP
    omp_set_num_threads(t);
#endif
#ifdef CTENSOR_BLAS
    openblas_set_num_threads(t);
#endif
}
static void report(const char *name, int n, double us) {
    printf("# %s: %.1f GFLOP/s\n", name, 2.0 * n * n * (double)n / (us * 1e3));
}

int main(void) {
    static const int sizes[] = {256, 1024, 2048};
    static const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64};
#ifdef CTENSOR_BLAS
    printf("# gemm: ct_mm with CBLAS (OpenBLAS); cblas_*: OpenBLAS called directly\n");
#else
    printf("# gemm: ct_mm with the built-in GEMM\n");
#endif
    for (int t = 1; t <= 2; t++) {
        set_threads(t);
        for (int d = 0; d < 2; d++)
            for (int s = 0; s < 3; s++) {
                int n = sizes[s];
                int tok = ct_scope_begin();
                mm_case c;
                ct_manual_seed(1);
                c.a = ct_randn(dts[d], n, n);
                c.b = ct_randn(dts[d], n, n);
                c.n = n;
                c.dt = dts[d];
                char name[64], params[64];
                const char *dn = d ? "f64" : "f32";
                snprintf(params, sizeof params, "n=%d threads=%d", n, t);
                snprintf(name, sizeof name, "mm_%s_n%d_t%d", dn, n, t);
                report(name, n, bench_run(name, params, run_mm, &c));
#ifdef CTENSOR_BLAS
                snprintf(name, sizeof name, "cblas_%s_n%d_t%d", dn, n, t);
                report(name, n, bench_run(name, params, run_cblas, &c));
#endif
                ct_scope_end(tok);
            }
    }
    return 0;
}
