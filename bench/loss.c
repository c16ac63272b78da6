/* Loss benchmarks, each line timed like its twin bench/torch/loss.py (1 thread both):
     cross_entropy_<N>x<C>_fwd_bwd   F.cross_entropy(x, t) (mean) + backward, float32
     mse_1M_fwd_bwd                  F.mse_loss(x, y) + backward, 2^20 float32
     bce_logits_1M_fwd_bwd           F.binary_cross_entropy_with_logits(x, y) + backward
   x.grad is cleared before each step (PyTorch: x.grad = None). */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"

typedef struct { ct_tensor *x, *t; int kind; } lcase;
static void step(void *u) {
    lcase *c = (lcase *)u;
    CT_SCOPE {
        ct_set_grad(c->x, NULL);
        ct_tensor *l = c->kind == 0 ? ct_cross_entropy(c->x, c->t, NULL)
                     : c->kind == 1 ? ct_mse_loss(c->x, c->t, NULL)
                                    : ct_binary_cross_entropy_with_logits(c->x, c->t, NULL, NULL, NULL);
        if (!l || ct_backward(l) != CT_OK) {
            fprintf(stderr, "loss bench: %s\n", ct_last_error());
            exit(1);
        }
    }
}

int main(void) {
    bench_begin("loss");
    bench_set_threads(1);
    CT_SCOPE {
        ct_manual_seed(0);
        static const int64_t sizes[][2] = {{64, 10}, {256, 1000}, {1024, 32000}};
        for (int k = 0; k < 3; k++) CT_SCOPE {
            int64_t N = sizes[k][0], C = sizes[k][1];
            lcase c = {ct_requires_grad(ct_randn(CT_FLOAT32, N, C)), ct_randint(0, C, CT_INT64, N), 0};
            char name[64], params[64];
            snprintf(name, sizeof name, "cross_entropy_%lldx%lld_fwd_bwd", (long long)N, (long long)C);
            snprintf(params, sizeof params, "[%lld,%lld] f32, mean", (long long)N, (long long)C);
            bench_run(name, params, step, &c);
        }
        lcase m = {ct_requires_grad(ct_randn(CT_FLOAT32, 1 << 20)), ct_randn(CT_FLOAT32, 1 << 20), 1};
        bench_run("mse_1M_fwd_bwd", "2^20 f32, mean", step, &m);
        lcase b = {ct_requires_grad(ct_randn(CT_FLOAT32, 1 << 20)), ct_rand(CT_FLOAT32, 1 << 20), 2};
        bench_run("bce_logits_1M_fwd_bwd", "2^20 f32, mean", step, &b);
    }
    return 0;
}
