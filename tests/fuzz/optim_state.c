/* libFuzzer target: ct_optim_load_state_dict on a state dict read from bytes.
   Build and run: make fuzz FUZZ_SECONDS=60   (or sh tests/fuzz/smoke.sh)
   The first byte picks the optimizer (SGD with momentum and nesterov, plain SGD,
   Adam with amsgrad, AdamW, RMSprop centered with momentum, Adagrad), over two
   parameter groups (float32 [2, 3]; float64 [4] and float32 [1]); the rest is a
   safetensors file whose tensors are the state dict (state.<i>.<key>,
   param_groups.<g>.<key>, as ct_optim_state_dict names them). Checks:
   - a failed load leaves an error and changes nothing (the optimizer's state
     dict, as bytes, is the same before and after);
   - a successful load saves a state dict that loads into a fresh optimizer and
     saves to the same bytes, and the optimizer can step (no UB, whatever values
     were loaded);
   - nothing leaks.
   Seeds (tests/fuzz/corpus/optim_state): real state dicts after 0, 1 and 3
   steps of each optimizer, written by this file built as a program:
     cc -std=c11 -I. -DCT_FUZZ_WRITE_SEEDS tests/fuzz/optim_state.c -o /tmp/seeds -lm -lpthread
     /tmp/seeds tests/fuzz/corpus/optim_state        (tests/fuzz/make_corpus.py does this) */
#ifndef CT_FUZZ_SHARED_IMPL   /* the smoke run and make fuzz link tests/fuzz/shared/impl.c instead */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ctensor.h"
#include "ctensor_nn.h"
#include "state_dict_bytes.h"

enum { NCONFIG = 6 };
typedef struct setup { ct_tensor *p[3]; ct_optimizer *opt; } setup;

static void setup_free(setup *s) {
    ct_optim_free(s->opt);
    for (int i = 0; i < 3; i++) ct_release(s->p[i]);
}
/* the optimizer of config c over three fresh parameters with gradients */
static void setup_new(setup *s, int c) {
    int tok = ct_scope_begin();
    s->p[0] = ct_retain(ct_requires_grad(ct_tensor_f32(((float[]){1, -2, 3, -4, 5, -6}), 2, 3)));
    s->p[1] = ct_retain(ct_requires_grad(ct_tensor_f64(((double[]){0.5, 0.25, -1, 2}), 4)));
    s->p[2] = ct_retain(ct_requires_grad(ct_tensor_f32(((float[]){7}), 1)));
    for (int i = 0; i < 3; i++) ct_set_grad(s->p[i], ct_mul_scalar(ct_ones_like(s->p[i]), 0.1 * (i + 1)));
    ct_scope_end(tok);
    ct_tensor *g0[1] = {s->p[0]}, *g1[2] = {s->p[1], s->p[2]};
    switch (c) {
    case 0: s->opt = ct_optim_sgd_params(1, g0, &(ct_sgd_options){.lr = 0.1, .momentum = 0.9, .nesterov = 1}); break;
    case 1: s->opt = ct_optim_sgd_params(1, g0, &(ct_sgd_options){.lr = 0.1, .weight_decay = 0.01}); break;
    case 2: s->opt = ct_optim_adam_params(1, g0, &(ct_adam_options){.lr = 1e-3, .amsgrad = 1}); break;
    case 3: s->opt = ct_optim_adamw_params(1, g0, &(ct_adamw_options){.lr = 1e-3}); break;
    case 4: s->opt = ct_optim_rmsprop_params(1, g0, &(ct_rmsprop_options){.lr = 1e-2, .momentum = 0.5, .centered = 1}); break;
    default: s->opt = ct_optim_adagrad_params(1, g0, &(ct_adagrad_options){.lr = 1e-2, .lr_decay = 0.1}); break;
    }
    if (!s->opt || ct_optim_add_param_group(s->opt, 2, g1, NULL) != CT_OK) __builtin_trap();
}
static void state_bytes(const ct_optimizer *opt, void **data, size_t *len) {
    int tok = ct_scope_begin();
    ct_state_dict sd;
    if (ct_optim_state_dict(opt, &sd) != CT_OK) __builtin_trap();
    sd_to_bytes(&sd, data, len);
    ct_state_dict_free(&sd);
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
        state_bytes(s.opt, &before, &nb);
        ct_clear_error();
        ct_status rc = ct_optim_load_state_dict(s.opt, &sd);
        state_bytes(s.opt, &after, &na);
        if (rc != CT_OK) {
            if (ct_last_error_code() == CT_OK || !ct_last_error()[0]) __builtin_trap();
            if (na != nb || memcmp(before, after, nb)) __builtin_trap();   /* nothing half loaded */
        } else {
            /* what it saves loads into a fresh optimizer and saves to the same bytes */
            setup s2;
            setup_new(&s2, c);
            ct_safetensors *st2 = ct_safetensors_load_mem(after, na, "roundtrip.safetensors");
            ct_state_dict sd2 = {0, NULL};
            if (!st2 || sd_from_safetensors(st2, &sd2) || ct_optim_load_state_dict(s2.opt, &sd2) != CT_OK) __builtin_trap();
            void *again;
            size_t ng;
            state_bytes(s2.opt, &again, &ng);
            if (ng != na || memcmp(again, after, na)) __builtin_trap();
            ct_free(again);
            free(sd2.items);
            ct_safetensors_free(st2);
            setup_free(&s2);
            /* and the loaded state steps (any values: no crash, no UB) */
            ct_step(s.opt);
            ct_step(s.opt);
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
    static const char *const names[NCONFIG] = {"sgd_nesterov", "sgd", "adam_amsgrad", "adamw", "rmsprop_centered", "adagrad"};
    for (int c = 0; c < NCONFIG; c++) {
        setup s;
        setup_new(&s, c);
        for (int steps = 0; steps <= 3; steps++) {
            if (steps == 2) continue;
            if (steps) ct_step(s.opt);
            void *d;
            size_t n;
            state_bytes(s.opt, &d, &n);
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
