/* libFuzzer target: ct_load_idx_mem on arbitrary bytes, raw IDX and gzip (built
   with CTENSOR_ZLIB: tests/fuzz/idx.flags adds -DCTENSOR_ZLIB -lz).
   Build and run: make fuzz FUZZ_SECONDS=60   (or sh tests/fuzz/smoke.sh)
   clang -std=c11 -g -O1 -I. -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -DCTENSOR_ZLIB tests/fuzz/idx.c -lm -lz
   Each input loads inside a scope. A failure must leave a CT_ERR_FORMAT /
   CT_ERR_UNSUPPORTED / CT_ERR_MEMORY error naming the file; a loaded tensor
   must hold exactly the elements its header declares and write back (as raw
   IDX) to bytes that load to the same tensor; a raw input must be exactly that
   file; everything is freed.
   Before fuzzing, LLVMFuzzerInitialize runs fixed regression checks of the gzip
   path (so the smoke run in make test checks them): gzip and multi-member gzip
   files load; a gzip bomb (a header declaring 16 bytes, then a megabyte of
   zeros, then corrupt data; or 1 GiB of zeros in 1024 members) fails with
   "decompresses to more than ..." at once: had it inflated past the declared
   size it would have met the corrupt data and reported that instead; a header
   declaring more than the compressed bytes could hold fails before allocating. */
#ifndef CT_FUZZ_SHARED_IMPL   /* the smoke run and make fuzz link tests/fuzz/shared/impl.c instead */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ctensor.h"
#include "ctensor_nn.h"
#include <stdio.h>
#include <zlib.h>   /* the gzip regression inputs are made with zlib */
#include <stdlib.h>
#include <string.h>

/* the tensor as a raw IDX file (malloc'd) */
static unsigned char *to_idx(const ct_tensor *t, size_t *len) {
    unsigned char code = 0;
    switch (t->dtype) {
    case CT_UINT8: code = 0x08; break;
    case CT_INT8: code = 0x09; break;
    case CT_INT16: code = 0x0B; break;
    case CT_INT32: code = 0x0C; break;
    case CT_FLOAT32: code = 0x0D; break;
    case CT_FLOAT64: code = 0x0E; break;
    default: __builtin_trap();
    }
    ct_tensor *c = ct_contiguous(t);
    if (!c) __builtin_trap();
    size_t es = ct_dtype_size(t->dtype), nb = (size_t)ct_numel(c) * es, off = 4 + 4 * (size_t)t->ndim;
    unsigned char *b = (unsigned char *)malloc(off + nb + 1);
    if (!b) __builtin_trap();
    b[0] = 0; b[1] = 0; b[2] = code; b[3] = (unsigned char)t->ndim;
    for (int d = 0; d < t->ndim; d++) {
        uint64_t s = (uint64_t)ct_size(t, d);
        for (int k = 0; k < 4; k++) b[4 + 4 * d + k] = (unsigned char)(s >> (24 - 8 * k));
    }
    const unsigned char *src = (const unsigned char *)ct_data_ptr(c);
    for (size_t k = 0; k < nb; k += es)
        for (size_t q = 0; q < es; q++) b[off + k + q] = src[k + es - 1 - q];
    *len = off + nb;
    return b;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    static int64_t live0 = -1;
    if (live0 < 0) { ct_set_logger(NULL, NULL); live0 = ct_live_tensors(); }
    int tok = ct_scope_begin();
    ct_clear_error();
    ct_tensor *t = ct_load_idx_mem(data, size, "fuzz.idx");
    if (!t) {
        ct_status e = ct_last_error_code();
        if ((e != CT_ERR_FORMAT && e != CT_ERR_UNSUPPORTED && e != CT_ERR_MEMORY) || !strstr(ct_last_error(), "fuzz.idx")) __builtin_trap();
    } else {
        size_t n;
        unsigned char *b = to_idx(t, &n);
        int gz = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
        if (!gz && (n != size || memcmp(b, data, n))) __builtin_trap();   /* a raw file is exactly header + data */
        ct_tensor *u = ct_load_idx_mem(b, n, "roundtrip.idx");
        if (!u || u->dtype != t->dtype || !ct_same_shape(t, u) || ct_equal(t, u) != 1) {
            /* NaN payloads compare unequal: compare the bytes instead */
            size_t n2;
            unsigned char *b2 = u ? to_idx(u, &n2) : NULL;
            if (!b2 || n2 != n || memcmp(b, b2, n)) __builtin_trap();
            free(b2);
        }
        free(b);
    }
    ct_scope_end(tok);
    ct_clear_error();
    if (ct_live_tensors() != live0) __builtin_trap();
    return 0;
}

#ifdef CTENSOR_ZLIB
/* gzip of p[0..n) as one member (malloc'd) */
static unsigned char *gzip(const void *p, size_t n, size_t *out) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) __builtin_trap();
    size_t cap = deflateBound(&z, (uLong)n) + 64;
    unsigned char *b = (unsigned char *)malloc(cap);
    if (!b) __builtin_trap();
    z.next_in = (Bytef *)(uintptr_t)p;
    z.avail_in = (uInt)n;
    z.next_out = b;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) __builtin_trap();
    *out = cap - z.avail_out;
    deflateEnd(&z);
    return b;
}
#define CHECK_FAILS(t, phrase)                                                                         \
    do {                                                                                               \
        if ((t) || ct_last_error_code() != CT_ERR_FORMAT || !strstr(ct_last_error(), (phrase))) {      \
            fprintf(stderr, "idx regression check failed at line %d: %s\n", __LINE__, ct_last_error()); \
            __builtin_trap();                                                                          \
        }                                                                                              \
        ct_clear_error();                                                                              \
    } while (0)
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    ct_set_logger(NULL, NULL);
    int tok = ct_scope_begin();
    /* a [2, 3] int16 file, raw and gzipped, and as three gzip members */
    unsigned char raw[4 + 8 + 12] = {0, 0, 0x0B, 2, 0, 0, 0, 2, 0, 0, 0, 3, 0, 1, 0, 2, 0xff, 0xfd, 1, 0, 0, 5, 0x80, 0};
    size_t n1, n2, n3;
    unsigned char *g1 = gzip(raw, 10, &n1), *g2 = gzip(raw + 10, 10, &n2), *g3 = gzip(raw + 20, 4, &n3);
    unsigned char *multi = (unsigned char *)malloc(n1 + n2 + n3);
    memcpy(multi, g1, n1);
    memcpy(multi + n1, g2, n2);
    memcpy(multi + n1 + n2, g3, n3);
    size_t ng;
    unsigned char *whole = gzip(raw, sizeof raw, &ng);
    ct_tensor *a = ct_load_idx_mem(raw, sizeof raw, "raw.idx"), *b = ct_load_idx_mem(whole, ng, "whole.idx.gz"),
              *c = ct_load_idx_mem(multi, n1 + n2 + n3, "multi.idx.gz");
    if (!a || !b || !c || ct_equal(a, b) != 1 || ct_equal(a, c) != 1 || ct_item(ct_select(ct_select(a, 0, 1), 0, 2)) != -32768.0) __builtin_trap();
    /* truncated: the stream ends inside the data, or inside a member */
    CHECK_FAILS(ct_load_idx_mem(g1, n1, "short.gz"), "truncated header (10 bytes, 12 expected for 2 dimensions) (short.gz)");
    size_t n16;
    unsigned char *g16 = gzip(raw, 16, &n16);
    CHECK_FAILS(ct_load_idx_mem(g16, n16, "part.gz"), "data of 6 elements exceeds the 4 bytes left in the file (part.gz)");
    free(g16);
    CHECK_FAILS(ct_load_idx_mem(whole, ng - 9, "cut.gz"), "corrupt gzip data (cut.gz)");
    /* the bomb: 16 bytes declared, 1 MiB of zeros follow, then the CRC is broken */
    size_t big = 1 << 20, nb;
    unsigned char *zeros = (unsigned char *)calloc(big + 8, 1);
    zeros[3] = 1;
    zeros[7] = 16;   /* uint8 [16] */
    zeros[2] = 0x08;
    unsigned char *bomb = gzip(zeros, big + 8, &nb);
    bomb[nb - 6] ^= 0x55;   /* the CRC-32 of the member */
    CHECK_FAILS(ct_load_idx_mem(bomb, nb, "bomb.idx.gz"), "gzip data decompresses to more than the 24 bytes the header declares (bomb.idx.gz)");
    /* 1 GiB of zeros in 1024 members after a 16-byte file: stops at byte 25 */
    size_t nz, nh;
    unsigned char *zm = gzip(zeros + 8, big, &nz), *hm = gzip(zeros, 24, &nh);
    unsigned char *gig = (unsigned char *)malloc(nh + 1024 * nz);
    memcpy(gig, hm, nh);
    for (int k = 0; k < 1024; k++) memcpy(gig + nh + (size_t)k * nz, zm, nz);
    CHECK_FAILS(ct_load_idx_mem(gig, nh + 1024 * nz, "gig.idx.gz"), "decompresses to more than the 24 bytes");
    ct_tensor *ok = ct_load_idx_mem(hm, nh, "sixteen.idx.gz");
    if (!ok || ct_numel(ok) != 16) __builtin_trap();
    /* a header that declares more than the compressed bytes can hold: refused before any allocation */
    unsigned char huge[8] = {0, 0, 0x0E, 1, 0x7f, 0xff, 0xff, 0xff};
    size_t nhuge;
    unsigned char *ghuge = gzip(huge, 8, &nhuge);
    CHECK_FAILS(ct_load_idx_mem(ghuge, nhuge, "huge.gz"), "the header declares 17179869176 bytes of data, more than");
    free(g1); free(g2); free(g3); free(multi); free(whole); free(zeros); free(bomb); free(zm); free(hm); free(gig); free(ghuge);
    ct_scope_end(tok);
    ct_clear_error();
    fprintf(stderr, "idx: gzip regression checks passed\n");
    return 0;
}
#endif
