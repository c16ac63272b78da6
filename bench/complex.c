/* complex.c - complex64 ops, 1 thread. Twin: bench/torch/complex.py (the same
   cases, names and inputs).
   Inputs: the real and imaginary parts of element i are frac((i + 0.5) * g) * 2 - 1
   and frac((i + 7.5) * g) * 2 - 1 with g = 0.6180339887498949, rounded to float32.
   Cases: GEMM 1024 x 1024 x 1024 (cblas_cgemm in the BLAS build, as PyTorch), and
   elementwise mul, div, exp, abs and sum on 1M elements ([1024, 1024]).
   Line names: complex_<op>_<size>_c64_t1. */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"

static ct_tensor *fill(int64_t rows, int64_t cols, int shift) {
    int64_t n = rows * cols;
    float *v = (float *)malloc(sizeof(float) * 2 * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        for (int p = 0; p < 2; p++) {
            double f = ((double)(i + shift + 7 * p) + 0.5) * 0.6180339887498949;
            v[2 * i + p] = (float)((f - floor(f)) * 2 - 1);
        }
    ct_tensor *t = ct_view_as_complex(ct_clone(ct_from_data(v, CT_FLOAT32, rows, cols, 2)));
    free(v);
    return t;
}

typedef struct job { int op; ct_tensor *x, *y; } job;
static ct_tensor *volatile sink;
static ct_tensor *apply(const job *j) {
    switch (j->op) {
    case 0: return ct_mm(j->x, j->y);
    case 1: return ct_mul(j->x, j->y);
    case 2: return ct_div(j->x, j->y);
    case 3: return ct_exp(j->x);
    case 4: return ct_abs(j->x);
    default: return ct_sum(j->x);
    }
}
static void run_case(void *u) {
    CT_SCOPE { sink = apply((const job *)u); }
}

int main(void) {
    bench_begin("complex");
    bench_set_threads(1);
    static const char *names[6] = {"mm_1024", "mul_1M", "div_1M", "exp_1M", "abs_1M", "sum_1M"};
    for (int op = 0; op < 6; op++) {
        char name[96];
        snprintf(name, sizeof name, "complex_%s_c64_t1", names[op]);
        if (!bench_selected(name)) continue;
        int tok = ct_scope_begin();
        job j = {op, fill(1024, 1024, 0), fill(1024, 1024, 3)};
        ct_clear_error();
        if (!apply(&j)) {
            printf("# %s: FAILED: %s\n", name, ct_last_error());
        } else {
            double n = 1024.0 * 1024.0;
            bench_opts o = {1, op == 0 ? 0 : (op <= 2 ? 3.0 : op == 5 ? 1.0 : 2.0) * n * 8.0, op == 0 ? 8.0 * n * 1024.0 : 0, NULL};
            bench_run_opts(name, op == 0 ? "[1024,1024]@[1024,1024]" : "[1024,1024]", run_case, &j, &o);
        }
        sink = NULL;
        ct_scope_end(tok);
    }
    return 0;
}
