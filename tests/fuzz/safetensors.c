/* libFuzzer target: ct_safetensors_load_mem on arbitrary bytes.
   Build and run: make fuzz FUZZ_SECONDS=60   (or sh tests/fuzz/smoke.sh)
   clang -std=c11 -g -O1 -I. -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined tests/fuzz/safetensors.c -lm
   Each input loads inside a scope; every tensor and metadata entry is read;
   a loaded file is written again, and writing what that loads gives the same
   bytes (the writer is canonical); a failure must leave an error naming the
   file; everything is freed. */
#ifndef CT_FUZZ_SHARED_IMPL   /* the smoke run and make fuzz link tests/fuzz/shared/impl.c instead */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ctensor.h"
#include <stdlib.h>
#include <string.h>

static unsigned sum_bytes(const ct_tensor *t) {
    ct_tensor *c = ct_contiguous(t);
    if (!c) __builtin_trap();
    const unsigned char *p = (const unsigned char *)ct_data_ptr(c);
    size_t n = (size_t)ct_numel(c) * ct_dtype_size(c->dtype);
    unsigned s = 0;
    for (size_t i = 0; i < n; i++) s += p[i];
    return s;
}

/* writes every tensor of st; returns CT_OK or the error; *data CT_MALLOC'd */
static ct_status resave(ct_safetensors *st, void **data, size_t *len, int *all) {
    int n = ct_safetensors_count(st), m = ct_safetensors_metadata_count(st), k = 0;
    const char **names = (const char **)malloc(sizeof(char *) * (size_t)(n + 1));
    const ct_tensor **ts = (const ct_tensor **)malloc(sizeof(ct_tensor *) * (size_t)(n + 1));
    const char **mk = (const char **)malloc(sizeof(char *) * (size_t)(m + 1));
    const char **mv = (const char **)malloc(sizeof(char *) * (size_t)(m + 1));
    *all = 1;
    for (int i = 0; i < n; i++) {
        ct_tensor *t = ct_safetensors_get(st, ct_safetensors_name(st, i));
        if (!t) { *all = 0; continue; }
        names[k] = ct_safetensors_name(st, i);
        ts[k++] = t;
    }
    for (int i = 0; i < m; i++) {
        mk[i] = ct_safetensors_metadata_key(st, i);
        mv[i] = ct_safetensors_metadata(st, mk[i]);
        if (!mk[i] || !mv[i]) __builtin_trap();
    }
    ct_status rc = ct_save_safetensors_mem(k, names, ts, m, mk, mv, data, len);
    free(names);
    free(ts);
    free(mk);
    free(mv);
    return rc;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    static int64_t live0 = -1;
    if (live0 < 0) { ct_set_logger(NULL, NULL); live0 = ct_live_tensors(); }
    int tok = ct_scope_begin();
    ct_clear_error();
    ct_safetensors *st = ct_safetensors_load_mem(data, size, "fuzz.safetensors");
    if (!st) {
        if (ct_last_error_code() == CT_OK || !strstr(ct_last_error(), "fuzz.safetensors")) __builtin_trap();
    } else {
        unsigned s = 0;
        for (int i = 0; i < ct_safetensors_count(st); i++) {
            ct_dtype dt;
            int nd;
            int64_t shape[CT_MAX_DIMS];
            if (ct_safetensors_info(st, i, &dt, &nd, shape)) __builtin_trap();
            ct_tensor *t = ct_safetensors_get(st, ct_safetensors_name(st, i));
            if (t) s += sum_bytes(t);
            else if (dt != CT_NUM_DTYPES) __builtin_trap();
            ct_clear_error();
        }
        (void)s;
        void *b1 = NULL, *b2 = NULL;
        size_t l1 = 0, l2 = 0;
        int all = 0, all2 = 0;
        if (resave(st, &b1, &l1, &all) != CT_OK) __builtin_trap();
        ct_safetensors *st2 = ct_safetensors_load_mem(b1, l1, "resaved");
        if (!st2 || resave(st2, &b2, &l2, &all2) != CT_OK || !all2) __builtin_trap();
        if (l1 != l2 || memcmp(b1, b2, l1)) __builtin_trap();
        if (all && (size_t)l1 > size + 64 * 1024) __builtin_trap();
        ct_safetensors_free(st2);
        free(b1);
        free(b2);
        ct_safetensors_free(st);
    }
    ct_scope_end(tok);
    ct_clear_error();
    if (ct_live_tensors() != live0) __builtin_trap();
    return 0;
}
