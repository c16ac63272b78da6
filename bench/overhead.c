/* overhead.c - per-op cost of ctensor on tiny (4x4 float32) tensors: the dispatcher,
   allocation and scope bookkeeping, not arithmetic. Twin: bench/torch/overhead.py.

   Every case makes a fresh result per op, as PyTorch's `c = a + b` does. Results
   live in a scope so memory stays flat:
     <op>_4x4_f32             one CT_SCOPE per op (begin, op, release)
     add_4x4_f32_scope1000    one CT_SCOPE per 1000 ops (time per op)
   Inputs do not require grad (PyTorch side: torch.no_grad()), except in
   add_4x4_f32_autograd, where a requires grad and a node is recorded per op.
   All cases run on one thread (PyTorch: torch.set_num_threads(1)).
   Target (DESIGN.md section 4): a 4x4 add at most 1/20 of PyTorch eager's time. */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"

typedef struct state {
    ct_tensor *a, *b;
    ct_tensor *ag;  /* a copy of a that requires grad */
    ct_tensor *acc; /* a copy of a that the in-place case updates */
} state;

static ct_tensor *volatile sink;

static void add_case(void *u) {
    state *s = (state *)u;
    CT_SCOPE { sink = ct_add(s->a, s->b); }
}
static void add1000_case(void *u) {
    state *s = (state *)u;
    CT_SCOPE {
        for (int i = 0; i < 1000; i++) sink = ct_add(s->a, s->b);
    }
}
static void add_autograd_case(void *u) {
    state *s = (state *)u;
    CT_SCOPE { sink = ct_add(s->ag, s->b); }
}
static void add_inplace_case(void *u) {
    state *s = (state *)u;
    CT_SCOPE { sink = ct_add_(s->acc, s->b); }
}
static void mul_case(void *u) {
    state *s = (state *)u;
    CT_SCOPE { sink = ct_mul(s->a, s->b); }
}
static void matmul_case(void *u) {
    state *s = (state *)u;
    CT_SCOPE { sink = ct_matmul(s->a, s->b); }
}
static void sum_case(void *u) {
    state *s = (state *)u;
    CT_SCOPE { sink = ct_sum(s->a); }
}
static void relu_case(void *u) {
    state *s = (state *)u;
    CT_SCOPE { sink = ct_relu(s->a); }
}
static void tanh_case(void *u) {
    state *s = (state *)u;
    CT_SCOPE { sink = ct_tanh(s->a); }
}
static void t_case(void *u) {
    state *s = (state *)u;
    CT_SCOPE { sink = ct_t(s->a); }
}
/* 100 ops, alternating add, mul, tanh; the time printed is per whole chain. */
static void chain_case(void *u) {
    state *s = (state *)u;
    CT_SCOPE {
        ct_tensor *x = s->a;
        for (int i = 0; i < 100; i++) {
            switch (i % 3) {
            case 0: x = ct_add(x, s->b); break;
            case 1: x = ct_mul(x, s->b); break;
            default: x = ct_tanh(x); break;
            }
        }
        sink = x;
    }
}

/* Runs fn once and checks that it produced a tensor, so a failing op is reported
   instead of being timed as a fast no-op. */
static int works(const char *name, bench_fn fn, state *s) {
    if (!bench_selected(name)) return 0;
    sink = NULL;
    ct_clear_error();
    fn(s);
    if (!sink || ct_last_error_code() != CT_OK) {
        printf("# %s: FAILED: %s\n", name, ct_last_error());
        return 0;
    }
    return 1;
}

int main(void) {
    bench_begin("overhead");
    bench_set_threads(1);
    ct_manual_seed(0);
    state s;
    int root = ct_scope_begin();
    s.a = ct_randn(CT_FLOAT32, 4, 4);
    s.b = ct_randn(CT_FLOAT32, 4, 4);
    s.ag = ct_requires_grad(ct_clone(s.a));
    s.acc = ct_clone(s.a);
    if (!s.a || !s.b || !s.ag || !s.acc) {
        fprintf(stderr, "overhead: setup failed: %s\n", ct_last_error());
        return 1;
    }
    int prev = ct_set_grad_enabled(0); /* as torch.no_grad() in the twin */

    static const struct {
        const char *name, *params;
        bench_fn fn;
        int ops;
    } cases[] = {
        {"add_4x4_f32", "a + b, 1 scope/op", add_case, 1},
        {"add_4x4_f32_scope1000", "a + b, 1 scope/1000 ops", add1000_case, 1000},
        {"add_inplace_4x4_f32", "a.add_(b)", add_inplace_case, 1},
        {"mul_4x4_f32", "a * b", mul_case, 1},
        {"matmul_4x4_f32", "a @ b", matmul_case, 1},
        {"sum_4x4_f32", "a.sum()", sum_case, 1},
        {"relu_4x4_f32", "a.relu()", relu_case, 1},
        {"tanh_4x4_f32", "a.tanh()", tanh_case, 1},
        {"t_4x4_f32", "a.t() (view)", t_case, 1},
        {"chain100_4x4_f32_nograd", "us per 100-op chain", chain_case, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!works(cases[i].name, cases[i].fn, &s)) continue;
        bench_opts o = {cases[i].ops, 0, 0, NULL};
        bench_run_opts(cases[i].name, cases[i].params, cases[i].fn, &s, &o);
    }

    ct_set_grad_enabled(1);
    if (works("add_4x4_f32_autograd", add_autograd_case, &s))
        bench_run("add_4x4_f32_autograd", "a + b, a requires grad", add_autograd_case, &s);
    ct_set_grad_enabled(prev);

    sink = NULL;
    ct_scope_end(root);
    return 0;
}
