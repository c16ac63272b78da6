/* libFuzzer target: ct_module_load_safetensors_mem on arbitrary bytes.
   Build and run: make fuzz FUZZ_SECONDS=60   (or sh tests/fuzz/smoke.sh)
   clang -std=c11 -g -O1 -I. -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined tests/fuzz/module_safetensors.c -lm
   The module has a float32 [2, 3] parameter "w", a float64 [2] parameter
   "sub.b" and an int64 0-d buffer "sub.n". Each input is loaded strictly and
   not strictly: a failed load leaves an error and the module's bytes as they
   were; a successful one saves to bytes that load back to the same state;
   nothing leaks. */
#ifndef CT_FUZZ_SHARED_IMPL   /* the smoke run and make fuzz link tests/fuzz/shared/impl.c instead */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ctensor.h"
#include "ctensor_nn.h"
#include <stdlib.h>
#include <string.h>

static const ct_module_type plain = {"Plain", NULL, NULL, NULL};

static ct_module *make(void) {
    ct_module *root = ct_module_new(&plain, NULL), *sub = ct_module_new(&plain, NULL);
    int tok = ct_scope_begin();
    ct_module_register_parameter(root, "w", ct_requires_grad(ct_ones(CT_FLOAT32, 2, 3)));
    ct_module_register_parameter(sub, "b", ct_requires_grad(ct_zeros(CT_FLOAT64, 2)));
    ct_module_register_buffer(sub, "n", ct_scalar_tensor(5, CT_INT64), 1);
    ct_scope_end(tok);
    ct_module_add_module(root, "sub", sub);
    return root;
}
/* the module's state as bytes (its own writer); CT_MALLOC'd */
static void snapshot(const ct_module *m, void **d, size_t *n) {
    if (ct_module_save_safetensors_mem(m, d, n) != CT_OK) __builtin_trap();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    static ct_module *m = NULL;
    static int64_t live0 = -1;
    if (!m) { ct_set_logger(NULL, NULL); m = make(); live0 = ct_live_tensors(); }
    for (int strict = 0; strict < 2; strict++) {
        void *before, *after;
        size_t nb, na;
        snapshot(m, &before, &nb);
        ct_clear_error();
        ct_status rc = ct_module_load_safetensors_mem(m, data, size, strict);
        snapshot(m, &after, &na);
        if (rc != CT_OK) {
            if (ct_last_error_code() == CT_OK || !ct_last_error()[0]) __builtin_trap();
            if (na != nb || memcmp(before, after, nb)) __builtin_trap();   /* nothing half loaded */
        } else {
            /* what it saves loads back to the same bytes */
            ct_module *m2 = make();
            if (ct_module_load_safetensors_mem(m2, after, na, 1) != CT_OK) __builtin_trap();
            void *again;
            size_t ng;
            snapshot(m2, &again, &ng);
            if (ng != na || memcmp(again, after, na)) __builtin_trap();
            ct_free(again);
            ct_module_free(m2);
        }
        ct_free(before);
        ct_free(after);
    }
    ct_clear_error();
    if (ct_live_tensors() != live0) __builtin_trap();
    return 0;
}
