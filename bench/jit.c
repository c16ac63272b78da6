/* jit.c - ctensor_jit.h: traced and optimized graphs beside eager execution, and
   the same cases in PyTorch (twin: bench/torch/jit.py: eager, and
   torch.jit.trace + torch.jit.freeze). One thread.
     chain20_1m_f32_{eager,jit}       a 20-op elementwise chain on 1M float32
                                      (the graph fuses it into one loop)
     mlp_784_512_256_10_b64_{eager,jit}  eval forward of the MLP at batch 64
     convbnrelu_8x64x56x56_{eager,jit}   conv3x3(64->64) + BatchNorm2d + ReLU, eval
     conv_8x64x56x56                  the bare conv: what a frozen conv-bn-relu should cost
   Targets (issue 13): the fused chain at least 5x PyTorch's scripted chain; the
   frozen conv-bn-relu as fast as the bare conv. The program also counts the
   allocator calls of one graph run after the first (a comment line). */
#include "bench.h"
#include <stddef.h>
static long bench_allocs;
static void *bench_malloc(size_t n) { bench_allocs++; return malloc(n); }
static void *bench_realloc(void *p, size_t n) { bench_allocs++; return realloc(p, n); }
#define CT_MALLOC(n) bench_malloc(n)
#define CT_REALLOC(p, n) bench_realloc(p, n)
#define CT_FREE(p) free(p)
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"
#include "ctensor_jit.h"

#include "jit_chain.h"
typedef struct st { ct_module *m; ct_graph *g; ct_tensor *x; } st;
static ct_tensor *volatile sink;
static void chain_eager(void *u) { st *s = (st *)u; CT_SCOPE { sink = jit_chain20(s->x); } }
static void module_eager(void *u) { st *s = (st *)u; CT_SCOPE { sink = ct_forward(s->m, s->x); } }
static void graph_run(void *u) {
    st *s = (st *)u;
    CT_SCOPE {
        ct_tensor *y = NULL;
        ct_graph_run(s->g, 1, &s->x, &y, 1);
        sink = y;
    }
}
static ct_graph *optimized(ct_module *m, ct_tensor *x) {
    ct_graph *g = m ? ct_trace_module(m, 1, &x) : NULL;
    if (!m) {
        ct_trace_begin(1, &x);
        ct_tensor *y = jit_chain20(x);
        g = ct_trace_end(1, &y);
    }
    if (!g || ct_jit_optimize(g)) { fprintf(stderr, "jit bench: %s\n", ct_last_error()); exit(1); }
    return g;
}
static void allocs_per_run(const char *name, st *s) {
    graph_run(s);                                   /* the first run warms the caches */
    long before = bench_allocs;
    graph_run(s);
    printf("# %s: %ld allocator calls in a graph run after the first\n", name, bench_allocs - before);
}

int main(void) {
    bench_begin("jit");
    bench_set_threads(1);
    ct_set_num_threads(1);
    ct_manual_seed(0);
    ct_set_grad_enabled(0);
    st s = {NULL, NULL, NULL};
    /* the chain */
    s.x = ct_keep(ct_randn(CT_FLOAT32, 1 << 20));
    s.g = optimized(NULL, s.x);
    bench_run("chain20_1m_f32_eager", "20 ops, 1M floats", chain_eager, &s);
    bench_run("chain20_1m_f32_jit", "one fused loop", graph_run, &s);
    allocs_per_run("chain20_1m_f32_jit", &s);
    ct_graph_free(s.g);
    /* the MLP */
    s.m = ct_module_eval(ct_nn_sequential(ct_nn_linear(784, 512), ct_nn_relu(), ct_nn_linear(512, 256), ct_nn_relu(), ct_nn_linear(256, 10)));
    s.x = ct_randn(CT_FLOAT32, 64, 784);
    s.g = optimized(s.m, s.x);
    bench_run("mlp_784_512_256_10_b64_eager", "eval forward", module_eager, &s);
    bench_run("mlp_784_512_256_10_b64_jit", "frozen graph", graph_run, &s);
    allocs_per_run("mlp_784_512_256_10_b64_jit", &s);
    ct_graph_free(s.g);
    ct_module_free(s.m);
    /* conv-bn-relu */
    s.m = ct_module_eval(ct_nn_sequential(ct_nn_conv2d_ex(64, 64, 3, 1, 1, 1, 1, 0), ct_nn_batch_norm2d(64), ct_nn_relu()));
    s.x = ct_randn(CT_FLOAT32, 8, 64, 56, 56);
    s.g = optimized(s.m, s.x);
    bench_run("convbnrelu_8x64x56x56_eager", "eval forward", module_eager, &s);
    bench_run("convbnrelu_8x64x56x56_jit", "frozen: conv-bn folded, relu in the conv epilogue", graph_run, &s);
    allocs_per_run("convbnrelu_8x64x56x56_jit", &s);
    ct_graph_free(s.g);
    ct_module_free(s.m);
    s.m = ct_module_eval(ct_nn_conv2d_ex(64, 64, 3, 1, 1, 1, 1, 0));
    bench_run("conv_8x64x56x56", "the bare conv", module_eager, &s);
    ct_module_free(s.m);
    return 0;
}
