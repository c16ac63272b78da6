/* Optimizer step benchmarks, timed like their twin bench/torch/optim.py (1 thread):
     <opt>_10x100k_f32   one step over 10 float32 tensors of 100,000 elements (1M
                         parameters: a small model's worth, memory-bound)
     <opt>_200x64_f32    one step over 200 tensors of 64 elements (per-tensor overhead)
   <opt>: sgd_momentum (lr 1e-3, momentum 0.9), adam (lr 1e-3), adamw (lr 1e-3).
   The grads are set once and kept; each timed call is one ct_step.
   PyTorch 1.13's default on CPU (foreach=None) is the single-tensor loop; its
   foreach=True path is the *_foreach rows. ctensor has one step path, so its
   *_foreach rows time the same step again, to put a ratio next to PyTorch's
   foreach numbers. Rates: bytes read + written per step (SGD: p, grad, buffer
   read, p, buffer written; Adam: p, grad, 2 moments read, p, 2 moments written). */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"

typedef struct set { int n; int64_t size; ct_tensor *p[200]; } set;

static void make_set(set *s, int n, int64_t size) {
    s->n = n;
    s->size = size;
    for (int i = 0; i < n; i++) {
        s->p[i] = ct_retain(ct_requires_grad(ct_mul_scalar(ct_randn(CT_FLOAT32, size), 0.1)));
        ct_set_grad(s->p[i], ct_mul_scalar(ct_randn(CT_FLOAT32, size), 0.01));
    }
}
static void step(void *u) { ct_step((ct_optimizer *)u); }

static void run_set(const char *tag, set *s) {
    char name[128], params[128];
    double el = (double)s->n * (double)s->size;
    for (int kind = 0; kind < 3; kind++) {
        static const char *const names[3] = {"sgd_momentum", "adam", "adamw"};
        ct_optimizer *o = kind == 0 ? ct_optim_sgd_params(s->n, s->p, &(ct_sgd_options){.lr = 1e-3, .momentum = 0.9})
                        : kind == 1 ? ct_optim_adam_params(s->n, s->p, &(ct_adam_options){.lr = 1e-3})
                                    : ct_optim_adamw_params(s->n, s->p, &(ct_adamw_options){.lr = 1e-3});
        if (!o) { printf("# %s: FAILED: %s\n", names[kind], ct_last_error()); continue; }
        ct_step(o);   /* creates the state */
        bench_opts bo = {1, el * 4.0 * (kind == 0 ? 5.0 : 7.0), 0, NULL};
        snprintf(name, sizeof name, "%s_%s_f32", names[kind], tag);
        snprintf(params, sizeof params, "%d tensors x %lld, step", s->n, (long long)s->size);
        bench_run_opts(name, params, step, o, &bo);
        snprintf(name, sizeof name, "%s_%s_f32_foreach", names[kind], tag);
        snprintf(params, sizeof params, "%d tensors x %lld, step (one path)", s->n, (long long)s->size);
        bench_run_opts(name, params, step, o, &bo);
        ct_optim_free(o);
    }
}

int main(void) {
    bench_begin("optim");
    bench_set_threads(1);
    static set big, small;
    CT_SCOPE {
        ct_manual_seed(0);
        make_set(&big, 10, 100000);
        make_set(&small, 200, 64);
    }
    run_set("10x100k", &big);
    run_set("200x64", &small);
    for (int i = 0; i < big.n; i++) ct_release(big.p[i]);
    for (int i = 0; i < small.n; i++) ct_release(small.p[i]);
    return 0;
}
