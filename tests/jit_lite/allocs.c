/* allocs.c - allocator calls of a graph run after the first (issue 13: "no
   allocation per run after the first"). Linked to tests/ct_impl.o with
   -Wl,--wrap=malloc,--wrap=realloc,--wrap=calloc, so every malloc the
   implementation makes is counted. Not for sanitizer builds: CTENSOR_NO_CACHES
   (on under ASan) frees every block at once by design.
     - the 20-op chain, fused (prim::FusedElementwise, 64K floats): 0
     - conv3x3-bn-relu 2x64x28x28, frozen (conv-bn folded, ReLU in place;
       Winograd's scratch from the block cache; its blocks are over 128 KiB, the
       cache of large blocks, which evicts its oldest block when full): 0, also
       after more than 8 other large blocks were cached on the thread
     - the 784-512-256-10 MLP, frozen: the built-in GEMM's packing buffers come
       from the thread's block cache too: 0
     - the Fashion-MNIST CNN with batch norm (conv-bn-relu-pool twice, flatten,
       linear; batch 16), frozen: 0
     - a transformer encoder layer (d_model 64, 4 heads, feed-forward 128, batch 4,
       sequence 32), frozen: 0 */
#ifndef CT_TEST_SHARED_IMPL
#error "tests/jit_lite/allocs.c links tests/ct_impl.o (the Makefile builds it with -DCT_TEST_SHARED_IMPL)"
#endif
#include "ctensor.h"
#include "ctensor_nn.h"
#include "ctensor_jit.h"
#include "bench/jit_chain.h"
#include <stdio.h>
#include <stdlib.h>

static int counting;
static long calls;
void *__real_malloc(size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_calloc(size_t k, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_malloc(size_t n) { calls += counting; return __real_malloc(n); }
void *__wrap_realloc(void *p, size_t n) { calls += counting; return __real_realloc(p, n); }
void *__wrap_calloc(size_t k, size_t n) { calls += counting; return __real_calloc(k, n); }

static int npass, nfail;
static void check(int ok, const char *what, long got, const char *want) {
    printf("%s %s: %ld allocator calls in a run after the first (want %s)\n", ok ? "ok  " : "FAIL", what, got, want);
    if (ok) npass++; else nfail++;
}
/* allocator calls of the third run (the first two warm the caches) */
static long run_allocs(const ct_graph *g, ct_tensor *x) {
    long c = 0;
    for (int it = 0; it < 3; it++) {
        calls = 0;
        counting = it == 2;
        CT_SCOPE {
            ct_tensor *y = NULL;
            if (ct_graph_run(g, 1, &x, &y, 1) != 1) { counting = 0; printf("run failed: %s\n", ct_last_error()); c = -1; }
        }
        counting = 0;
        if (c < 0) return -1;
        c = calls;
    }
    return c;
}
static ct_graph *optimized(ct_module *m, ct_tensor *x) {
    ct_graph *g = NULL;
    if (m) g = ct_trace_module(m, 1, &x);
    else {
        ct_trace_begin(1, &x);
        ct_tensor *y = jit_chain20(x);
        g = ct_trace_end(1, &y);
    }
    if (!g || ct_jit_optimize(g)) { printf("jit allocs: %s\n", ct_last_error()); ct_graph_free(g); return NULL; }
    return g;
}

int main(void) {
    ct_set_grad_enabled(0);
    ct_manual_seed(0);
    CT_SCOPE {
        ct_tensor *x = ct_randn(CT_FLOAT32, 1 << 16);
        ct_graph *g = optimized(NULL, x);
        long c = g ? run_allocs(g, x) : -1;
        check(c == 0 && ct_graph_count_op(g, "prim::FusedElementwise") == 1, "chain20 (fused)", c, "0");
        ct_graph_free(g);
    }
    CT_SCOPE {
        ct_module *m = ct_module_eval(ct_nn_sequential(ct_nn_conv2d_ex(64, 64, 3, 1, 1, 1, 1, 0), ct_nn_batch_norm2d(64), ct_nn_relu()));
        ct_tensor *x = ct_randn(CT_FLOAT32, 2, 64, 28, 28);
        ct_graph *g = optimized(m, x);
        long c = g ? run_allocs(g, x) : -1;
        check(c == 0 && ct_graph_count_op(g, "ct::batch_norm_eval") == 0, "conv3x3-bn-relu 2x64x28x28 (folded)", c, "0");
        /* the same with the thread's large-block cache full of other blocks first */
        CT_SCOPE {
            for (int k = 0; k < 10; k++) (void)ct_empty(CT_FLOAT32, 300000 + 1000 * k);
        }
        c = g ? run_allocs(g, x) : -1;
        check(c == 0, "conv3x3-bn-relu after 10 other large blocks", c, "0");
        ct_graph_free(g);
        ct_module_free(m);
    }
    CT_SCOPE {
        ct_module *m = ct_module_eval(ct_nn_sequential(ct_nn_linear(784, 512), ct_nn_relu(), ct_nn_linear(512, 256), ct_nn_relu(),
                                                       ct_nn_linear(256, 10)));
        ct_tensor *x = ct_randn(CT_FLOAT32, 64, 784);
        ct_graph *g = optimized(m, x);
        long c = g ? run_allocs(g, x) : -1;
        int gemms = g ? ct_graph_count_op(g, "aten::addmm") : 0;
        check(c == 0 && gemms == 3, "MLP 784-512-256-10 b64 (frozen)", c, "0");
        ct_graph_free(g);
        ct_module_free(m);
    }
    CT_SCOPE {
        ct_module *m = ct_module_eval(ct_nn_sequential(
            ct_nn_conv2d(1, 8, 3, 1, 1), ct_nn_batch_norm2d(8), ct_nn_relu(), ct_nn_max_pool2d(2, 2), ct_nn_conv2d(8, 16, 3, 1, 1),
            ct_nn_batch_norm2d(16), ct_nn_relu(), ct_nn_max_pool2d(2, 2), ct_nn_flatten(), ct_nn_linear(16 * 7 * 7, 10)));
        ct_tensor *x = ct_randn(CT_FLOAT32, 16, 1, 28, 28);
        ct_graph *g = optimized(m, x);
        long c = g ? run_allocs(g, x) : -1;
        check(c == 0 && ct_graph_count_op(g, "ct::batch_norm_eval") == 0, "CNN with batch norm b16 (frozen)", c, "0");
        ct_graph_free(g);
        ct_module_free(m);
    }
    CT_SCOPE {
        ct_transformer_layer_options o = {0};
        o.dim_feedforward = 128;
        o.dropout = CT_ZERO;
        o.batch_first = 1;
        ct_module *m = ct_module_eval(ct_nn_transformer_encoder_layer(64, 4, &o));
        ct_tensor *x = ct_randn(CT_FLOAT32, 4, 32, 64);
        ct_graph *g = optimized(m, x);
        long c = g ? run_allocs(g, x) : -1;
        check(c == 0, "transformer encoder layer 4x32x64 (frozen)", c, "0");
        ct_graph_free(g);
        ct_module_free(m);
    }
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
