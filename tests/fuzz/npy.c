/* libFuzzer target: ct_load_npy_mem on arbitrary bytes.
   Build and run: make fuzz FUZZ_SECONDS=60   (or sh tests/fuzz/smoke.sh)
   clang -std=c11 -g -O1 -I. -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined tests/fuzz/npy.c -lm
   Each input loads inside a scope; a loaded array must save and load back to
   the same bytes, a failure must leave an error, and everything is freed. */
#ifndef CT_FUZZ_SHARED_IMPL   /* the smoke run and make fuzz link tests/fuzz/shared/impl.c instead */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ctensor.h"
#include <stdlib.h>
#include <string.h>

/* contiguous bytes of a real-dtype tensor (caller frees), NULL for others */
static unsigned char *bytes_of(const ct_tensor *t, size_t *n) {
    if (t->dtype >= CT_QINT8) return NULL;
    ct_tensor *c = ct_contiguous(t);
    if (!c) __builtin_trap();
    *n = (size_t)ct_numel(c) * ct_dtype_size(c->dtype);
    unsigned char *b = (unsigned char *)malloc(*n ? *n : 1);
    if (*n) memcpy(b, ct_data_ptr(c), *n);
    return b;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    static int64_t live0 = -1;
    if (live0 < 0) { ct_set_logger(NULL, NULL); live0 = ct_live_tensors(); }
    int tok = ct_scope_begin();
    ct_clear_error();
    ct_tensor *t = ct_load_npy_mem(data, size, "fuzz.npy");
    if (!t) {
        if (ct_last_error_code() == CT_OK || !strstr(ct_last_error(), "fuzz.npy")) __builtin_trap();
    } else {
        size_t n1 = 0, n2 = 0;
        unsigned char *b1 = bytes_of(t, &n1);
        void *buf;
        size_t len;
        if (ct_save_npy_mem(t, &buf, &len) == CT_OK) {
            ct_tensor *u = ct_load_npy_mem(buf, len, "roundtrip.npy");
            if (!u || !ct_same_shape(t, u) || u->dtype != t->dtype) __builtin_trap();
            unsigned char *b2 = bytes_of(u, &n2);
            if ((b1 == NULL) != (b2 == NULL) || n1 != n2 || (b1 && memcmp(b1, b2, n1))) __builtin_trap();
            free(b2);
            free(buf);
        }
        free(b1);
    }
    ct_scope_end(tok);
    ct_clear_error();
    if (ct_live_tensors() != live0) __builtin_trap();
    return 0;
}
