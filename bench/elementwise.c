/* elementwise.c - throughput of elementwise ops and reductions on large float32
   tensors. Twin: bench/torch/elementwise.py.

   Sizes: 1M = [1024, 1024], 16M = [4096, 4096] float32 (randn).
   Layouts:
     contig       a, b contiguous
     transposed   a.t() (and b.t()): a transposed view of a contiguous tensor;
                  the result takes the same transposed layout (as in PyTorch)
     mixed        binary ops only: a + b.t() (contiguous with transposed, a
                  genuinely strided traversal of b)
   Threads: t1 / t2 (OpenMP: omp_set_num_threads; PyTorch: torch.set_num_threads).
   Each op returns a fresh result (one CT_SCOPE per op), as `c = a + b` in PyTorch.
   relu (a copy-like unary op) is the memory-bound reference for the activations
   (exp, gelu, gelu_tanh, tanh, sigmoid, silu, log, sqrt, floor, sin, atan, log2): the same 8
   bytes per element. log, sqrt and log2 read |a| (|a.t()| transposed), made before timing.
   Line names: <op>_<size>_f32_<layout>_t<threads>, e.g. exp_1M_f32_contig_t1.
   The rate column is the minimum memory traffic (inputs read + output written)
   over the median time.

   Other dtypes (1M, 1 thread, contig and mixed): add, mul (and exp, relu for the
   floating types) on float16, bfloat16, int32, uint8 and int64 (the reference: an
   integer compute type); ctensor computes float16/bfloat16 in float32 and the
   narrower integers in int64, through the elementwise adapter. Line names
   <op>_1M_<dtype>_<layout>_t1; inputs |randn| * 20 converted (integers truncate).

   softmax (ct_softmax(x, -1), the last dim of [N, N]) is compiled in when
   CT_BENCH_HAVE_SOFTMAX is defined; the Makefile defines it once ctensor.h
   declares ct_softmax. */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"

typedef enum { OP_ADD, OP_MUL, OP_EXP, OP_GELU, OP_SUM, OP_SOFTMAX, OP_RELU, OP_GELU_TANH, OP_TANH, OP_SIGMOID, OP_SILU, OP_LOG, OP_SQRT, OP_FLOOR, OP_SIN, OP_ATAN, OP_LOG2 } op_kind;
static const char *const op_names[] = {"add", "mul", "exp", "gelu", "sum", "softmax", "relu", "gelu_tanh", "tanh", "sigmoid", "silu", "log", "sqrt", "floor", "sin", "atan", "log2"};

typedef struct job {
    op_kind op;
    const ct_tensor *x, *y; /* y: second operand of add / mul */
} job;

static ct_tensor *volatile sink;

static ct_tensor *apply(const job *j) {
    switch (j->op) {
    case OP_ADD: return ct_add(j->x, j->y);
    case OP_MUL: return ct_mul(j->x, j->y);
    case OP_EXP: return ct_exp(j->x);
    case OP_GELU: return ct_gelu(j->x, "none");
    case OP_RELU: return ct_relu(j->x);
    case OP_GELU_TANH: return ct_gelu(j->x, "tanh");
    case OP_TANH: return ct_tanh(j->x);
    case OP_SIGMOID: return ct_sigmoid(j->x);
    case OP_SILU: return ct_silu(j->x);
    case OP_LOG: return ct_log(j->x);
    case OP_SQRT: return ct_sqrt(j->x);
    case OP_FLOOR: return ct_floor(j->x);
    case OP_SIN: return ct_sin(j->x);
    case OP_ATAN: return ct_atan(j->x);
    case OP_LOG2: return ct_log2(j->x);
    case OP_SUM: return ct_sum(j->x);
#ifdef CT_BENCH_HAVE_SOFTMAX
    case OP_SOFTMAX: return ct_softmax(j->x, -1);
#else
    case OP_SOFTMAX: break;
#endif
    }
    return NULL;
}
static void run_case(void *u) {
    CT_SCOPE { sink = apply((const job *)u); }
}

/* Runs the op once and checks the result's shape, so a failing op is reported
   instead of being timed as a fast no-op. */
static int works(const char *name, const job *j) {
    int ok = 0;
    ct_clear_error();
    CT_SCOPE {
        ct_tensor *r = apply(j);
        if (!r) break;
        if (j->op == OP_SUM) ok = ct_ndim(r) == 0;
        else ok = ct_same_shape(r, j->x);
    }
    if (!ok) printf("# %s: FAILED: %s\n", name, ct_last_error_code() != CT_OK ? ct_last_error() : "wrong result shape");
    return ok;
}

int main(void) {
    bench_begin("elementwise");
    ct_manual_seed(0);
    int root = ct_scope_begin();
    static const struct { const char *label; int64_t n; } sizes[] = {{"1M", 1024}, {"16M", 4096}};
    static const op_kind ops[] = {OP_ADD, OP_MUL, OP_EXP, OP_GELU, OP_SUM, OP_SOFTMAX,
                                  OP_RELU, OP_GELU_TANH, OP_TANH, OP_SIGMOID, OP_SILU, OP_LOG, OP_SQRT, OP_FLOOR, OP_SIN,
                                  OP_ATAN, OP_LOG2};
    static const char *const layouts[] = {"contig", "transposed", "mixed"};
    static const int threads[] = {1, 2};

    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        int64_t n = sizes[si].n;
        int tok = ct_scope_begin();
        ct_tensor *a = ct_randn(CT_FLOAT32, n, n), *b = ct_randn(CT_FLOAT32, n, n);
        ct_tensor *at = ct_t(a), *bt = ct_t(b), *pa = ct_abs(a), *pat = ct_abs(at);
        if (!a || !b || !at || !bt || !pa || !pat) {
            fprintf(stderr, "elementwise: setup failed: %s\n", ct_last_error());
            return 1;
        }
        for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
            op_kind op = ops[oi];
            int binary = op == OP_ADD || op == OP_MUL;
#ifndef CT_BENCH_HAVE_SOFTMAX
            if (op == OP_SOFTMAX) continue;
#endif
            for (int li = 0; li < 3; li++) {
                if (li == 2 && !binary) continue;         /* mixed: binary ops only */
                if (li != 0 && op == OP_SOFTMAX) continue; /* softmax: last dim of contiguous */
                job j = {op, li == 1 ? at : a, binary ? (li == 0 ? b : bt) : NULL};
                if (op == OP_LOG || op == OP_SQRT || op == OP_LOG2) j.x = li == 1 ? pat : pa;   /* log, sqrt, log2 of |randn| */
                char params[96];
                const char *sh = n == 1024 ? "[1024,1024]" : "[4096,4096]";
                if (li == 0) snprintf(params, sizeof params, "%s", sh);
                else if (li == 1) snprintf(params, sizeof params, "%s.t()", sh);
                else snprintf(params, sizeof params, "%s + %s.t()", sh, sh);
                if (op == OP_SOFTMAX) snprintf(params, sizeof params, "%s, dim=-1", sh);
                double elems = (double)n * (double)n;
                bench_opts o = {1, (binary ? 3.0 : op == OP_SUM ? 1.0 : 2.0) * elems * 4.0, 0, NULL};
                for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++) {
                    char name[96];
                    snprintf(name, sizeof name, "%s_%s_f32_%s_t%d", op_names[op], sizes[si].label, layouts[li],
                             threads[ti]);
                    if (!bench_selected(name)) continue;
                    bench_set_threads(threads[ti]);
                    if (!works(name, &j)) continue;
                    bench_run_opts(name, params, run_case, &j, &o);
                }
            }
        }
        sink = NULL;
        ct_scope_end(tok);
    }

    static const struct { const char *label; ct_dtype dt; } dts[] = {
        {"f16", CT_FLOAT16}, {"bf16", CT_BFLOAT16}, {"i32", CT_INT32}, {"u8", CT_UINT8}, {"i64", CT_INT64}};
    static const op_kind dops[] = {OP_ADD, OP_MUL, OP_EXP, OP_RELU};
    bench_set_threads(1);
    for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
        int tok = ct_scope_begin();
        const int64_t n = 1024;
        int fl = dts[di].dt == CT_FLOAT16 || dts[di].dt == CT_BFLOAT16;
        ct_tensor *a = ct_to(ct_mul(ct_abs(ct_randn(CT_FLOAT32, n, n)), ct_scalar_tensor(20.0, CT_FLOAT32)), dts[di].dt);
        ct_tensor *b = ct_to(ct_mul(ct_abs(ct_randn(CT_FLOAT32, n, n)), ct_scalar_tensor(20.0, CT_FLOAT32)), dts[di].dt);
        ct_tensor *bt = ct_t(b);
        if (!a || !b || !bt) {
            fprintf(stderr, "elementwise: setup failed: %s\n", ct_last_error());
            return 1;
        }
        double es = dts[di].dt == CT_UINT8 ? 1.0 : dts[di].dt == CT_INT32 ? 4.0 : dts[di].dt == CT_INT64 ? 8.0 : 2.0;
        for (size_t oi = 0; oi < sizeof dops / sizeof dops[0]; oi++) {
            op_kind op = dops[oi];
            int binary = op == OP_ADD || op == OP_MUL;
            if (!binary && !fl) continue;   /* exp, relu: the floating types */
            for (int li = 0; li < (binary ? 2 : 1); li++) {
                job j = {op, a, binary ? (li == 0 ? b : bt) : NULL};
                char name[96];
                snprintf(name, sizeof name, "%s_1M_%s_%s_t1", op_names[op], dts[di].label, li == 0 ? "contig" : "mixed");
                if (!bench_selected(name)) continue;
                bench_opts o = {1, (binary ? 3.0 : 2.0) * (double)(n * n) * es, 0, NULL};
                if (!works(name, &j)) continue;
                bench_run_opts(name, li == 0 ? "[1024,1024]" : "[1024,1024] + [1024,1024].t()", run_case, &j, &o);
            }
        }
        sink = NULL;
        ct_scope_end(tok);
    }
    ct_scope_end(root);
    return 0;
}
