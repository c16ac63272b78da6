/* gemm: C = A @ B through ct_mm for square float32/float64 matrices (n = 256,
   1024, 2048) on 1 and 2 threads; each line ends with its GFLOP/s (2 n^3 / median).
   `make bench` builds it twice:
     build/bench/gemm           with CBLAS (OpenBLAS): ct_mm calls cblas_?gemm; the
                                cblas_* cases time OpenBLAS called directly (the
                                1-thread ones are the yardstick of the built-in kernel)
     build/bench/gemm_builtin   without CBLAS: the built-in blocked kernels (OpenMP)
   Targets: built-in >= 40% of OpenBLAS 1-thread GFLOP/s; with CBLAS >= 0.95x PyTorch.
   PyTorch twin: bench/torch/gemm.py (same case names). */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"

typedef struct { ct_tensor *a, *b; int n, threads; ct_dtype dt; } mm_case;

static void run_mm(void *u) {
    mm_case *c = (mm_case *)u;
    CT_SCOPE { (void)ct_mm(c->a, c->b); }
}
#ifdef CTENSOR_BLAS
static void run_cblas(void *u) {
    mm_case *c = (mm_case *)u;
    int n = c->n;
#ifdef BENCH_HAVE_OPENBLAS
    /* OpenBLAS on the case's threads (ctensor's own calls set it to 1 and split on
       its pool when it has more than one thread) */
    if (openblas_get_num_threads() != c->threads) openblas_set_num_threads(c->threads);
#endif
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

int main(void) {
    static const int sizes[] = {256, 1024, 2048};
    static const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64};
#ifdef CTENSOR_BLAS
    bench_begin("gemm (ct_mm with CBLAS; cblas_*: OpenBLAS called directly)");
#else
    bench_begin("gemm (ct_mm with the built-in GEMM)");
#endif
    for (int t = 1; t <= 2; t++) {
        bench_set_threads(t);
        for (int d = 0; d < 2; d++)
            for (int s = 0; s < 3; s++) {
                int n = sizes[s];
                CT_SCOPE {
                    mm_case c;
                    ct_manual_seed(1);
                    c.a = ct_randn(dts[d], n, n);
                    c.b = ct_randn(dts[d], n, n);
                    c.n = n;
                    c.threads = t;
                    c.dt = dts[d];
                    bench_opts o = {1, 0, 2.0 * n * n * (double)n, NULL};
                    char name[64], params[64];
                    const char *dn = d ? "f64" : "f32";
                    snprintf(params, sizeof params, "n=%d threads=%d", n, t);
                    snprintf(name, sizeof name, "mm_%s_n%d_t%d", dn, n, t);
                    bench_run_opts(name, params, run_mm, &c, &o);
#ifdef CTENSOR_BLAS
                    snprintf(name, sizeof name, "cblas_%s_n%d_t%d", dn, n, t);
                    bench_run_opts(name, params, run_cblas, &c, &o);
#endif
                }
            }
    }
    return 0;
}
