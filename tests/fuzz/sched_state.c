/* libFuzzer target: ct_sched_load_state_dict on a state dict read from bytes.
   Build and run: make fuzz FUZZ_SECONDS=60   (or sh tests/fuzz/smoke.sh)
   The first byte picks the scheduler (StepLR, MultiStepLR, ExponentialLR,
   CosineAnnealingLR, LinearLR, OneCycleLR) over an SGD optimizer with momentum
   and two parameter groups; the rest is a safetensors file whose tensors are the
   state dict (last_epoch, _step_count, base_lrs, _last_lr). Checks:
   - a failed load leaves an error and changes nothing (the scheduler's and the
     optimizer's state dicts, as bytes, are the same before and after);
   - a successful load saves a state dict that loads into a fresh scheduler and
     saves to the same bytes, and the scheduler steps on from the loaded state
     (an error is fine, a crash or UB is not);
   - nothing leaks.
   Seeds (tests/fuzz/corpus/sched_state): real state dicts after 0, 1 and 4
   steps of each scheduler, written by this file built as a program:
     cc -std=c11 -I. -DCT_FUZZ_WRITE_SEEDS tests/fuzz/sched_state.c -o /tmp/seeds -lm -lpthread
     /tmp/seeds tests/fuzz/corpus/sched_state        (tests/fuzz/make_corpus.py does this) */
#ifndef CT_FUZZ_SHARED_IMPL   /* the smoke run and make fuzz link tests/fuzz/shared/impl.c instead */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ctensor.h"
#include "ctensor_nn.h"
#include "state_dict_bytes.h"

enum { NCONFIG = 6 };
typedef struct setup { ct_tensor *p[2]; ct_optimizer *opt; ct_lr_scheduler *sched; } setup;

static void setup_free(setup *s) {
    ct_sched_free(s->sched);
    ct_optim_free(s->opt);
    for (int i = 0; i < 2; i++) ct_release(s->p[i]);
}
static void setup_new(setup *s, int c) {
    int tok = ct_scope_begin();
    s->p[0] = ct_retain(ct_requires_grad(ct_ones(CT_FLOAT32, 3)));
    s->p[1] = ct_retain(ct_requires_grad(ct_ones(CT_FLOAT64, 2)));
    ct_scope_end(tok);
    s->opt = ct_optim_sgd_params(1, s->p, &(ct_sgd_options){.lr = 0.1, .momentum = 0.9});
    if (!s->opt || ct_optim_add_param_group(s->opt, 1, s->p + 1, &(ct_sgd_options){.lr = 0.05}) != CT_OK) __builtin_trap();
    int64_t ms[2] = {1, 3};
    switch (c) {
    case 0: s->sched = ct_sched_step_lr(s->opt, 2, 0.5); break;
    case 1: s->sched = ct_sched_multistep_lr(s->opt, 2, ms, 0.1); break;
    case 2: s->sched = ct_sched_exponential_lr(s->opt, 0.9); break;
    case 3: s->sched = ct_sched_cosine_annealing_lr(s->opt, 5, 0.001); break;
    case 4: s->sched = ct_sched_linear_lr(s->opt, 0.25, 1.0, 4); break;
    default: s->sched = ct_sched_one_cycle_lr(s->opt, &(ct_one_cycle_options){.max_lr = 0.5, .total_steps = 10}); break;
    }
    if (!s->sched) __builtin_trap();
}
/* the scheduler's and the optimizer's state dicts, as bytes */
static inline void state_bytes(const setup *s, void **data, size_t *len) {
    int tok = ct_scope_begin();
    ct_state_dict a, b;
    if (ct_sched_state_dict(s->sched, &a) != CT_OK || ct_optim_state_dict(s->opt, &b) != CT_OK) __builtin_trap();
    ct_state_dict both;
    both.n = a.n + b.n;
    both.items = (ct_named_tensor *)malloc(sizeof(ct_named_tensor) * (size_t)both.n);
    if (!both.items) __builtin_trap();
    memcpy(both.items, a.items, sizeof(ct_named_tensor) * (size_t)a.n);
    memcpy(both.items + a.n, b.items, sizeof(ct_named_tensor) * (size_t)b.n);
    sd_to_bytes(&both, data, len);
    free(both.items);
    ct_state_dict_free(&a);
    ct_state_dict_free(&b);
    ct_scope_end(tok);
}
static void sched_bytes(const ct_lr_scheduler *sch, void **data, size_t *len) {
    int tok = ct_scope_begin();
    ct_state_dict a;
    if (ct_sched_state_dict(sch, &a) != CT_OK) __builtin_trap();
    sd_to_bytes(&a, data, len);
    ct_state_dict_free(&a);
    ct_scope_end(tok);
}

#ifndef CT_FUZZ_WRITE_SEEDS
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    static int64_t live0 = -1;
    if (live0 < 0) { ct_set_logger(NULL, NULL); live0 = ct_live_tensors(); }
    if (size < 1) return 0;
    int c = data[0] % NCONFIG;
    setup s;
    setup_new(&s, c);
    int tok = ct_scope_begin();
    ct_clear_error();
    ct_safetensors *st = ct_safetensors_load_mem(data + 1, size - 1, "fuzz.safetensors");
    ct_state_dict sd = {0, NULL};
    if (st && sd_from_safetensors(st, &sd) == 0) {
        void *before, *after;
        size_t nb, na;
        state_bytes(&s, &before, &nb);
        ct_clear_error();
        ct_status rc = ct_sched_load_state_dict(s.sched, &sd);
        state_bytes(&s, &after, &na);
        if (rc != CT_OK) {
            if (ct_last_error_code() == CT_OK || !ct_last_error()[0]) __builtin_trap();
            if (na != nb || memcmp(before, after, nb)) __builtin_trap();   /* nothing half loaded */
        } else {
            void *mine, *again;
            size_t nm, ng;
            sched_bytes(s.sched, &mine, &nm);
            setup s2;
            setup_new(&s2, c);
            ct_safetensors *st2 = ct_safetensors_load_mem(mine, nm, "roundtrip.safetensors");
            ct_state_dict sd2 = {0, NULL};
            if (!st2 || sd_from_safetensors(st2, &sd2) || ct_sched_load_state_dict(s2.sched, &sd2) != CT_OK) __builtin_trap();
            sched_bytes(s2.sched, &again, &ng);
            if (ng != nm || memcmp(again, mine, nm)) __builtin_trap();
            ct_free(mine);
            ct_free(again);
            free(sd2.items);
            ct_safetensors_free(st2);
            setup_free(&s2);
            for (int k = 0; k < 3; k++) {   /* steps on: an error is fine, UB is not */
                ct_sched_step(s.sched);
                (void)ct_sched_get_last_lr(s.sched, 1);
            }
        }
        ct_free(before);
        ct_free(after);
    }
    free(sd.items);
    ct_safetensors_free(st);
    ct_scope_end(tok);
    setup_free(&s);
    ct_clear_error();
    if (ct_live_tensors() != live0) __builtin_trap();
    return 0;
}
#else
int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    static const char *const names[NCONFIG] = {"step", "multistep", "exponential", "cosine", "linear", "one_cycle"};
    for (int c = 0; c < NCONFIG; c++) {
        setup s;
        setup_new(&s, c);
        for (int steps = 0; steps <= 4; steps++) {
            if (steps) ct_sched_step(s.sched);
            if (steps == 2 || steps == 3) continue;
            void *d;
            size_t n;
            sched_bytes(s.sched, &d, &n);
            char file[128];
            snprintf(file, sizeof file, "%s_%d.st", names[c], steps);
            write_seed(argv[1], file, (unsigned char)c, d, n);
            ct_free(d);
        }
        setup_free(&s);
    }
    return 0;
}
#endif
