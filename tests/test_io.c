/* test_io.c - .npy and safetensors: round trips, files written by PyTorch/numpy
   (tests/fixtures/io, from tests/reference/gen_io.py), byte-exact agreement with
   the reference writer, and corrupt inputs (clear errors, no crash, no leak). */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"
#include <stdlib.h>

#define FIX "tests/fixtures/io/"
static char tmp_path[1024];

static unsigned char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    unsigned char *b = (unsigned char *)malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* A safetensors file from a header string and data bytes. */
typedef struct blob { unsigned char *p; size_t n; } blob;
static blob st_file(const char *header, const void *data, size_t ndata) {
    blob b;
    size_t h = strlen(header);
    b.n = 8 + h + ndata;
    b.p = (unsigned char *)malloc(b.n);
    for (int i = 0; i < 8; i++) b.p[i] = (unsigned char)(((uint64_t)h >> (8 * i)) & 0xff);
    memcpy(b.p + 8, header, h);
    if (ndata) memcpy(b.p + 8 + h, data, ndata);
    return b;
}
/* loading must fail with CT_ERR_FORMAT and a message containing phrase */
#define ST_BAD(header, data, ndata, phrase)                                            \
    do {                                                                               \
        blob b_ = st_file(header, data, ndata);                                        \
        CHECK_ERR(ct_safetensors_load_mem(b_.p, b_.n, "bad.safetensors"), CT_ERR_FORMAT, phrase); \
        free(b_.p);                                                                    \
    } while (0)

/* ------------------------------------------------------------------ npy */
TEST(test_npy_dtypes_roundtrip) {
    ct_dtype dts[] = {CT_FLOAT64, CT_FLOAT32, CT_FLOAT16, CT_INT64, CT_INT32, CT_INT16, CT_INT8, CT_UINT8, CT_BOOL};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        ct_tensor *x = ct_to(ct_reshape(ct_arange(-3, 9, 1, CT_FLOAT64), 3, 4), dts[k]);
        void *buf;
        size_t len;
        CHECK_EQ_INT(ct_save_npy_mem(ct_t(x), &buf, &len), CT_OK);
        CHECK_EQ_INT((10 + ((unsigned char *)buf)[8] + 256 * ((unsigned char *)buf)[9]) % 64, 0);  /* data starts 64-aligned */
        ct_tensor *y = ct_load_npy_mem(buf, len, "mem");
        CHECK(y && ct_equal(y, ct_t(x)) == 1 && y->dtype == dts[k]);
        ct_free(buf);
    }
    /* 0-d and empty */
    void *buf;
    size_t len;
    CHECK_EQ_INT(ct_save_npy_mem(ct_scalar_tensor(2.5, CT_FLOAT64), &buf, &len), CT_OK);
    ct_tensor *s = ct_load_npy_mem(buf, len, "mem");
    CHECK(s && s->ndim == 0 && ct_item(s) == 2.5);
    ct_free(buf);
    CHECK_EQ_INT(ct_save_npy_mem(ct_zeros(CT_INT32, 0, 3), &buf, &len), CT_OK);
    ct_tensor *e = ct_load_npy_mem(buf, len, "mem");
    CHECK(e && e->ndim == 2 && e->shape[0] == 0 && e->shape[1] == 3);
    ct_free(buf);
}

static blob npy_file(int major, const char *header, const void *data, size_t ndata) {
    blob b;
    size_t h = strlen(header), pre = major == 1 ? 10 : 12;
    b.n = pre + h + ndata;
    b.p = (unsigned char *)malloc(b.n);
    memcpy(b.p, "\x93NUMPY", 6);
    b.p[6] = (unsigned char)major;
    b.p[7] = 0;
    for (size_t i = 8; i < pre; i++) b.p[i] = (unsigned char)((h >> (8 * (i - 8))) & 0xff);
    memcpy(b.p + pre, header, h);
    if (ndata) memcpy(b.p + pre + h, data, ndata);
    return b;
}
TEST(test_npy_versions_endian_fortran) {
    /* version 2 and 3 headers, big-endian data, fortran order */
    const unsigned char be[] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0, 0xc0, 0x08, 0, 0, 0, 0, 0, 0};
    blob b = npy_file(2, "{'descr': '>f8', 'fortran_order': False, 'shape': (3,), }\n", be, sizeof be);
    ct_tensor *x = ct_load_npy_mem(b.p, b.n, "v2.npy");
    double e1[] = {1, 2, -3};
    CHECK_VALUES(x, e1, 3, 0);
    free(b.p);
    const unsigned char be16[] = {0x12, 0x34, 0xff, 0xfe};
    b = npy_file(3, "{\"shape\": (2,), \"fortran_order\": False, \"descr\": \">i2\"}", be16, sizeof be16);
    x = ct_load_npy_mem(b.p, b.n, "v3.npy");
    double e2[] = {0x1234, -2};
    CHECK_VALUES(x, e2, 2, 0);
    free(b.p);
    /* fortran order: memory 1 2 3 4 5 6 of a (2, 3) array is [[1, 3, 5], [2, 4, 6]] */
    const int32_t f[] = {1, 2, 3, 4, 5, 6};
    b = npy_file(1, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", f, sizeof f);
    x = ct_load_npy_mem(b.p, b.n, "f.npy");
    double e3[] = {1, 3, 5, 2, 4, 6};
    CHECK(x && x->ndim == 2 && x->shape[0] == 2 && x->shape[1] == 3);
    CHECK_VALUES(x, e3, 6, 0);
    free(b.p);
    /* bool bytes other than 0/1 are normalized; Python 2 long suffix */
    const unsigned char bb[] = {0, 7, 1};
    b = npy_file(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (3L,), }", bb, 3);
    x = ct_load_npy_mem(b.p, b.n, "b.npy");
    CHECK(x && ((unsigned char *)ct_data_ptr(x))[1] == 1);
    free(b.p);
}
TEST(test_npy_fixtures_from_numpy) {
    /* written by numpy's np.save (gen_io.py) */
    ct_tensor *x = ct_load_npy(FIX "all_dtypes__6.npy");   /* "i16" */
    double e[] = {-32768, 0, 32767};
    CHECK(x && x->dtype == CT_INT16);
    CHECK_VALUES(x, e, 3, 0);
}
TEST(test_npy_corrupt) {
    const float d[6] = {0};
    struct { int major; const char *hdr; size_t ndata; const char *phrase; } cases[] = {
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 20, "exceeds the 20 bytes left"},
        {1, "{'descr': '<f4', 'fortran_order': False, }", 24, "header has no 'shape'"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", 24, "unexpected key 'x'"},
        {1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (6,)}", 24, "duplicate key 'descr'"},
        {1, "{'descr': 'O', 'fortran_order': False, 'shape': (6,)}", 24, "unsupported dtype 'O'"},
        {1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (6,)}", 24, "structured arrays are not supported"},
        {1, "{'descr': '<u4', 'fortran_order': False, 'shape': (6,)}", 24, "unsupported dtype '<u4'"},
        {1, "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (6,)}", 24, "bad 'fortran_order'"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6)}", 24, "'shape' is not a tuple"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-6,)}", 24, "bad character in 'shape'"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}", 24, "bad character in 'shape'"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,", 24, "unterminated 'shape'"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", 24, "dimension too large"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1)}", 24, "more than 8 dimensions"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (65536, 65536, 65536)}", 24, "too large"},
        /* found by the fuzzer: an empty array whose other dims multiply past 64 bits */
        {1, "{'descr': '|b1', 'fortran_order': True, 'shape': (1, 70368744177664, 0, 70368744177664)}", 0,
         "load_npy: shape [1, 70368744177664, 0, 70368744177664] is too large (bad.npy)"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,)} x", 24, "unexpected data after the header"},
        {1, "['descr']", 24, "header is not a dict"},
        {1, "{'descr: '<f4'}", 24, "unexpected key 'descr: '"},
        {1, "{descr: '<f4'}", 24, "malformed header: expected a quoted key"},
        {2, "{'descr': '<f4' 'fortran_order': False}", 24, "expected ',' or '}'"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        blob b = npy_file(cases[k].major, cases[k].hdr, d, cases[k].ndata);
        CHECK_ERR(ct_load_npy_mem(b.p, b.n, "bad.npy"), CT_ERR_FORMAT, cases[k].phrase);
        CHECK_ERR(ct_load_npy_mem(b.p, b.n, "bad.npy"), CT_ERR_FORMAT, "(bad.npy)");
        free(b.p);
    }
    blob b = npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,)}", d, 24);
    b.p[7] = 1;
    CHECK_ERR(ct_load_npy_mem(b.p, b.n, "v.npy"), CT_ERR_FORMAT, "unsupported format version 1.1");
    b.p[6] = 4;
    b.p[7] = 0;
    CHECK_ERR(ct_load_npy_mem(b.p, b.n, "v.npy"), CT_ERR_FORMAT, "unsupported format version 4.0");
    b.p[6] = 2;
    CHECK_ERR(ct_load_npy_mem(b.p, 11, "v.npy"), CT_ERR_FORMAT, "truncated header");
    /* every truncation of a valid file fails cleanly */
    b.p[6] = 1;
    for (size_t n = 0; n < b.n; n++) {
        ct_tensor *t = ct_load_npy_mem(b.p, n, "trunc.npy");
        CHECK(!t && ct_last_error_code() == CT_ERR_FORMAT);
        ct_clear_error();
    }
    CHECK(ct_load_npy_mem(b.p, b.n, "ok.npy") != NULL);
    free(b.p);
    CHECK_ERR(ct_load_npy_mem(NULL, 10, "x.npy"), CT_ERR_ARG, "data is NULL");
    CHECK_ERR(ct_load_npy(NULL), CT_ERR_ARG, "path is NULL");
    CHECK_ERR(ct_save_npy_mem(ct_ones(CT_FLOAT32, 2), NULL, NULL) == CT_OK, CT_ERR_ARG, "output pointers are NULL");
    CHECK_ERR(ct_save_npy(NULL, ct_ones(CT_FLOAT32, 2)) == CT_OK, CT_ERR_ARG, "path is NULL");
    CHECK_ERR(ct_save_npy("/nonexistent/dir/x.npy", ct_ones(CT_FLOAT32, 2)) == CT_OK, CT_ERR_IO, "cannot create");
}

/* ------------------------------------------------------------------ safetensors: fixtures */
/* loads <case>.safetensors, checks every tensor against <case>__<i>.npy, then
   writes the loaded tensors and metadata again: the bytes must be the file's */
static void check_fixture(const char *cas, int ntensors, int nmeta, int byte_exact) {
    char path[512];
    snprintf(path, sizeof path, FIX "%s.safetensors", cas);
    ct_safetensors *st = ct_safetensors_load(path);
    CHECK(st != NULL);
    if (!st) { printf("  %s\n", ct_last_error()); return; }
    CHECK_EQ_INT(ct_safetensors_count(st), ntensors);
    CHECK_EQ_INT(ct_safetensors_metadata_count(st), nmeta);
    int n = ct_safetensors_count(st);
    const char **names = (const char **)malloc(sizeof(char *) * (size_t)(n + 1));
    const ct_tensor **ts = (const ct_tensor **)malloc(sizeof(ct_tensor *) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        names[i] = ct_safetensors_name(st, i);
        ct_tensor *t = ct_safetensors_get(st, names[i]);
        ts[i] = t;
        snprintf(path, sizeof path, FIX "%s__%d.npy", cas, i);
        ct_tensor *e = ct_load_npy(path);
        CHECK(t && e);
        if (!t || !e) continue;
        ct_tensor *tc = t->dtype == CT_BFLOAT16 ? ct_to(t, CT_FLOAT32) : t;
        int same = ct_same_shape(tc, e) && tc->dtype == e->dtype && ct_equal(tc, e) == 1;
        CT_T_REPORT(same, "%s: tensor '%s' differs from its .npy", cas, names[i]);
        ct_dtype dt = CT_NUM_DTYPES;
        int nd = -1;
        int64_t shape[CT_MAX_DIMS];
        CHECK(ct_safetensors_info(st, i, &dt, &nd, shape) == 0 && dt == t->dtype && nd == t->ndim);
    }
    const char **mk = (const char **)malloc(sizeof(char *) * (size_t)(nmeta + 1));
    const char **mv = (const char **)malloc(sizeof(char *) * (size_t)(nmeta + 1));
    for (int i = 0; i < ct_safetensors_metadata_count(st); i++) {
        mk[i] = ct_safetensors_metadata_key(st, i);
        mv[i] = ct_safetensors_metadata(st, mk[i]);
        CHECK(mv[i] != NULL);
    }
    if (byte_exact) {
        void *buf;
        size_t len, flen;
        snprintf(path, sizeof path, FIX "%s.safetensors", cas);
        unsigned char *file = read_all(path, &flen);
        CHECK_EQ_INT(ct_save_safetensors_mem(n, names, ts, ct_safetensors_metadata_count(st), mk, mv, &buf, &len), CT_OK);
        CT_T_REPORT(file && len == flen && !memcmp(buf, file, len), "%s: ctensor's writer differs from the reference writer", cas);
        ct_free(buf);
        free(file);
    }
    free(names);
    free(ts);
    free(mk);
    free(mv);
    ct_safetensors_free(st);
}
TEST(test_st_fixtures) {
    check_fixture("all_dtypes", 12, 2, 1);
    check_fixture("model", 6, 1, 1);
    check_fixture("empty", 0, 0, 1);
    check_fixture("meta_only", 0, 3, 1);
    check_fixture("names", 5, 0, 1);
}
TEST(test_st_fixture_details) {
    ct_safetensors *st = ct_safetensors_load(FIX "all_dtypes.safetensors");
    CHECK_STR(ct_safetensors_metadata(st, "format"), "pt");
    CHECK_STR(ct_safetensors_metadata(st, "note"), "quote \" backslash \\ newline \n tab \t unicode \xc3\xa9\xe2\x9c\x93");
    CHECK(ct_safetensors_metadata(st, "missing") == NULL);
    CHECK_STR(ct_safetensors_name(st, 0), "bf16");
    CHECK(ct_safetensors_name(st, 12) == NULL && ct_safetensors_name(st, -1) == NULL);
    ct_tensor *s = ct_safetensors_get(st, "scalar");
    CHECK(s && s->ndim == 0 && ct_item(s) == 2.5);
    ct_tensor *e = ct_safetensors_get(st, "empty");
    CHECK(e && e->ndim == 2 && e->shape[0] == 0 && e->shape[1] == 3);
    ct_tensor *i64 = ct_safetensors_get(st, "i64");
    CHECK(i64 && ((int64_t *)ct_data_ptr(i64))[0] == -((int64_t)1 << 62));
    ct_safetensors_free(st);
    st = ct_safetensors_load(FIX "names.safetensors");
    CHECK(st && ct_safetensors_get(st, "caf\xc3\xa9") && ct_safetensors_get(st, "tab\tname") && ct_safetensors_get(st, "ctrl\x01"));
    ct_safetensors_free(st);
    /* a file whose F32 tensor sits at an unaligned offset: copied, same values */
    st = ct_safetensors_load(FIX "unaligned.safetensors");
    ct_tensor *b = ct_safetensors_get(st, "b");
    double eb[] = {1.5, -2.0};
    CHECK_VALUES(b, eb, 2, 0);
    CHECK(b && ((uintptr_t)ct_data_ptr(b)) % 4 == 0);
    ct_tensor *a = ct_safetensors_get(st, "a");
    double ea[] = {1, 2, -1};
    CHECK_VALUES(a, ea, 3, 0);
    ct_safetensors_free(st);
}

/* ------------------------------------------------------------------ safetensors: behaviour */
TEST(test_st_roundtrip_borrow) {
    int64_t live0 = ct_live_tensors();
    CT_SCOPE {
    void *buf = NULL;
    size_t len = 0;
    ct_safetensors *st = NULL;
    ct_tensor *w2 = NULL;
    CT_SCOPE {
        ct_tensor *w = ct_reshape(ct_arange(0, 12, 1, CT_FLOAT32), 3, 4);
        ct_tensor *wt = ct_t(w);                          /* non-contiguous: saved as its values */
        ct_tensor *m = ct_gt_scalar(w, 5.0);
        ct_tensor *h = ct_to(w, CT_BFLOAT16);
        const char *names[] = {"w_t", "mask", "half.bf16", "w"};
        const ct_tensor *ts[] = {wt, m, h, w};
        const char *mk[] = {"k"}, *mv[] = {"v"};
        CHECK_EQ_INT(ct_save_safetensors_mem(4, names, ts, 1, mk, mv, &buf, &len), CT_OK);
        CHECK_EQ_INT((buf ? ((unsigned char *)buf)[0] : 1) % 8, 0);   /* header length is a multiple of 8 */
        st = ct_safetensors_load_mem(buf, len, "rt");
        CHECK(st && ct_safetensors_count(st) == 4);
        ct_tensor *a = ct_safetensors_get(st, "w_t");
        CHECK(a && ct_equal(a, wt) == 1 && ct_is_contiguous(a));
        CHECK(ct_equal(ct_safetensors_get(st, "mask"), m) == 1);
        CHECK(ct_equal(ct_safetensors_get(st, "half.bf16"), h) == 1);
        /* aligned data is borrowed: two gets share memory */
        ct_tensor *x1 = ct_safetensors_get(st, "w"), *x2 = ct_safetensors_get(st, "w");
        CHECK(x1 && x2 && ct_data_ptr(x1) == ct_data_ptr(x2));
        CHECK(((uintptr_t)ct_data_ptr(x1)) % 64 == 0 || ((uintptr_t)ct_data_ptr(x1)) % 4 == 0);
        w2 = ct_retain(x1);
    }
    /* the tensor outlives both its scope and the handle */
    ct_safetensors_free(st);
    double ew[12];
    for (int i = 0; i < 12; i++) ew[i] = i;
    CHECK_VALUES(w2, ew, 12, 0);
    ct_fill_(w2, 1.0);   /* writable */
    CHECK(ct_item(ct_sum(w2)) == 12.0);
    ct_release(w2);
    ct_free(buf);
    }
    CHECK_EQ_INT(ct_live_tensors(), live0);
}
TEST(test_st_file_api) {
    ct_tensor *x = ct_randn(CT_FLOAT64, 4, 5);
    const char *names[] = {"x"};
    const ct_tensor *ts[] = {x};
    CHECK_EQ_INT(ct_save_safetensors_n(tmp_path, 1, names, ts, 0, NULL, NULL), CT_OK);
    ct_safetensors *st = ct_safetensors_load(tmp_path);
    CHECK(st && ct_equal(ct_safetensors_get(st, "x"), x) == 1);
    CHECK_EQ_INT(ct_safetensors_metadata_count(st), 0);
    ct_safetensors_free(st);
    remove(tmp_path);
    CHECK_ERR(ct_safetensors_load("/nonexistent/model.safetensors"), CT_ERR_IO, "cannot open '/nonexistent/model.safetensors'");
    CHECK_ERR(ct_safetensors_load(NULL), CT_ERR_ARG, "path is NULL");
    CHECK_ERR(ct_save_safetensors_n(NULL, 1, names, ts, 0, NULL, NULL) == CT_OK, CT_ERR_ARG, "path is NULL");
    CHECK_ERR(ct_save_safetensors_n("/nonexistent/dir/x.safetensors", 1, names, ts, 0, NULL, NULL) == CT_OK, CT_ERR_IO, "cannot create");
    /* a file too short for the prefix, and one whose header length is absurd */
    FILE *f = fopen(tmp_path, "wb");
    fwrite("\x05\x00", 1, 2, f);
    fclose(f);
    CHECK_ERR(ct_safetensors_load(tmp_path), CT_ERR_FORMAT, "file of 2 bytes is too small");
    f = fopen(tmp_path, "wb");
    unsigned char big[4096];
    memset(big, 0xff, sizeof big);
    fwrite(big, 1, sizeof big, f);
    fclose(f);
    char expect[1200];
    snprintf(expect, sizeof expect, "safetensors: header length 18446744073709551615 exceeds file size 4096 (%s)", tmp_path);
    CHECK_ERR(ct_safetensors_load(tmp_path), CT_ERR_FORMAT, expect);
    remove(tmp_path);
}
TEST(test_st_api_errors) {
    CHECK_ERR(ct_safetensors_load_mem(NULL, 8, "x"), CT_ERR_ARG, "data is NULL (x)");
    CHECK_ERR(ct_safetensors_get(NULL, "a"), CT_ERR_ARG, "handle is NULL");
    CHECK_ERR(ct_safetensors_info(NULL, 0, NULL, NULL, NULL) == 0, CT_ERR_ARG, "handle is NULL");
    CHECK_EQ_INT(ct_safetensors_count(NULL), -1);
    CHECK_EQ_INT(ct_safetensors_metadata_count(NULL), -1);
    CHECK(ct_safetensors_name(NULL, 0) == NULL && ct_safetensors_metadata(NULL, "k") == NULL && ct_safetensors_metadata_key(NULL, 0) == NULL);
    ct_safetensors_free(NULL);
    ct_safetensors *st = ct_safetensors_load(FIX "model.safetensors");
    CHECK_ERR(ct_safetensors_get(st, "nope"), CT_ERR_ARG, "no tensor named 'nope' (tests/fixtures/io/model.safetensors)");
    CHECK_ERR(ct_safetensors_get(st, NULL), CT_ERR_ARG, "name is NULL");
    CHECK_ERR(ct_safetensors_info(st, 6, NULL, NULL, NULL) == 0, CT_ERR_INDEX, "index 6 is out of range for 6 tensors");
    ct_safetensors_free(st);
    /* a valid file with a dtype ctensor lacks: loads, and get says so */
    const unsigned char d[4] = {1, 0, 2, 0};
    blob b = st_file("{\"u\":{\"dtype\":\"U16\",\"shape\":[2],\"data_offsets\":[0,4]}}", d, 4);
    st = ct_safetensors_load_mem(b.p, b.n, "u16.safetensors");
    CHECK(st != NULL);
    ct_dtype dt = CT_FLOAT32;
    CHECK(ct_safetensors_info(st, 0, &dt, NULL, NULL) == 0 && dt == CT_NUM_DTYPES);
    CHECK_ERR(ct_safetensors_get(st, "u"), CT_ERR_DTYPE, "tensor 'u' has dtype U16, which ctensor does not support (u16.safetensors)");
    ct_safetensors_free(st);
    free(b.p);
    /* bool bytes that are not 0/1 are copied and normalized */
    const unsigned char bb[3] = {0, 5, 1};
    b = st_file("{\"m\":{\"dtype\":\"BOOL\",\"shape\":[3],\"data_offsets\":[0,3]}}", bb, 3);
    st = ct_safetensors_load_mem(b.p, b.n, "bool");
    ct_tensor *m = ct_safetensors_get(st, "m");
    CHECK(m && ((unsigned char *)ct_data_ptr(m))[1] == 1 && ct_item(ct_sum(m)) == 2);
    ct_safetensors_free(st);
    free(b.p);
}
TEST(test_st_writer_errors) {
    ct_tensor *x = ct_ones(CT_FLOAT32, 2);
    const ct_tensor *ts[] = {x, x};
    const char *names[] = {"a", "a"};
    void *buf = (void *)1;
    size_t len = 1;
    CHECK_ERR(ct_save_safetensors_mem(1, names, ts, 0, NULL, NULL, NULL, NULL) == CT_OK, CT_ERR_ARG, "output pointers are NULL");
    CHECK_ERR(ct_save_safetensors_mem(-1, names, ts, 0, NULL, NULL, &buf, &len) == CT_OK, CT_ERR_ARG, "negative count");
    CHECK(buf == NULL && len == 0);
    CHECK_ERR(ct_save_safetensors_mem(1, NULL, ts, 0, NULL, NULL, &buf, &len) == CT_OK, CT_ERR_ARG, "array is NULL");
    CHECK_ERR(ct_save_safetensors_mem(0, NULL, NULL, 1, NULL, NULL, &buf, &len) == CT_OK, CT_ERR_ARG, "array is NULL");
    CHECK_ERR(ct_save_safetensors_mem(2, names, ts, 0, NULL, NULL, &buf, &len) == CT_OK, CT_ERR_ARG, "duplicate tensor name 'a'");
    const char *reserved[] = {"__metadata__"};
    CHECK_ERR(ct_save_safetensors_mem(1, reserved, ts, 0, NULL, NULL, &buf, &len) == CT_OK, CT_ERR_ARG, "'__metadata__' is reserved");
    const char *nul[] = {NULL};
    CHECK_ERR(ct_save_safetensors_mem(1, nul, ts, 0, NULL, NULL, &buf, &len) == CT_OK, CT_ERR_ARG, "name 0 is NULL");
    const char *bad_utf8[] = {"caf\xe9"};
    CHECK_ERR(ct_save_safetensors_mem(1, bad_utf8, ts, 0, NULL, NULL, &buf, &len) == CT_OK, CT_ERR_ARG, "name 0 is not valid UTF-8");
    const ct_tensor *nt[] = {NULL};
    CHECK_ERR(ct_save_safetensors_mem(1, names, nt, 0, NULL, NULL, &buf, &len) == CT_OK, CT_ERR_NULL, "save_safetensors: argument 0 is NULL");
    const char *mk[] = {"k", "k"}, *mv[] = {"1", "2"};
    CHECK_ERR(ct_save_safetensors_mem(1, names, ts, 2, mk, mv, &buf, &len) == CT_OK, CT_ERR_ARG, "duplicate metadata key 'k'");
    const char *mvn[] = {NULL};
    CHECK_ERR(ct_save_safetensors_mem(1, names, ts, 1, mk, mvn, &buf, &len) == CT_OK, CT_ERR_ARG, "metadata pair 0 has a NULL key or value");
    const char *mvb[] = {"\xff"};
    CHECK_ERR(ct_save_safetensors_mem(1, names, ts, 1, mk, mvb, &buf, &len) == CT_OK, CT_ERR_ARG, "metadata pair 0 is not valid UTF-8");
    const ct_tensor *cx[] = {ct_to(x, CT_FLOAT32)};
    cx[0] = ct_empty(CT_QINT8, 2);   /* quantized: no safetensors dtype (complex ones are C64, C128) */
    CHECK_ERR(ct_save_safetensors_mem(1, names, cx, 0, NULL, NULL, &buf, &len) == CT_OK, CT_ERR_DTYPE, "tensor 'a' has dtype qint8, which safetensors cannot store");
    CHECK(buf == NULL && len == 0);
}

/* ------------------------------------------------------------------ safetensors: corrupt files */
TEST(test_st_corrupt_prefix) {
    unsigned char small[7] = {0};
    CHECK_ERR(ct_safetensors_load_mem(small, 7, "model.safetensors"), CT_ERR_FORMAT,
              "safetensors: file of 7 bytes is too small to hold the 8-byte header length (model.safetensors)");
    unsigned char big[4096];
    memset(big, 0xff, sizeof big);
    CHECK_ERR(ct_safetensors_load_mem(big, sizeof big, "model.safetensors"), CT_ERR_FORMAT,
              "safetensors: header length 18446744073709551615 exceeds file size 4096 (model.safetensors)");
    memset(big, 0, sizeof big);
    big[0] = 9;
    CHECK_ERR(ct_safetensors_load_mem(big, 16, "m"), CT_ERR_FORMAT, "header length 9 exceeds file size 16");
    CHECK_ERR(ct_safetensors_load_mem(big, 8, "m"), CT_ERR_FORMAT, "header length 9 exceeds file size 8");
    big[0] = 0;
    CHECK_ERR(ct_safetensors_load_mem(big, 8, "m"), CT_ERR_FORMAT, "the header must start with '{'");
    /* every truncation of a valid file fails cleanly */
    size_t flen;
    unsigned char *file = read_all(FIX "model.safetensors", &flen);
    CHECK(file != NULL);
    for (size_t n = 0; file && n < flen; n++) {
        ct_safetensors *st = ct_safetensors_load_mem(file, n, "trunc");
        CHECK(!st && ct_last_error_code() == CT_ERR_FORMAT);
        ct_clear_error();
    }
    /* every single-byte change of the header either loads or fails cleanly */
    for (size_t k = 0; file && k < 200; k++) {
        unsigned char *c = (unsigned char *)malloc(flen);
        memcpy(c, file, flen);
        c[8 + (k * 7) % 300] ^= (unsigned char)(1u << (k % 8));
        ct_safetensors *st = ct_safetensors_load_mem(c, flen, "flip");
        for (int i = 0; st && i < ct_safetensors_count(st); i++) ct_safetensors_get(st, ct_safetensors_name(st, i));
        ct_safetensors_free(st);
        ct_clear_error();
        free(c);
    }
    free(file);
}
TEST(test_st_corrupt_json) {
    static const unsigned char z[64] = {0};
    ST_BAD("", z, 0, "the header must start with '{'");
    ST_BAD(" {}", z, 0, "the header must start with '{'");
    ST_BAD("{", z, 0, "malformed JSON header at byte 1: expected a string");
    ST_BAD("{\"a\"}", z, 0, "expected ':' after a key");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}", z, 4, "expected ',' or '}' after an entry");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},}", z, 4, "expected a string");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}x", z, 4, "unexpected data after the header object");
    ST_BAD("{'a':1}", z, 0, "expected a string");
    ST_BAD("{\"a:{}}", z, 0, "unterminated string");
    ST_BAD("{\"a\\q\":{}}", z, 0, "invalid escape");
    ST_BAD("{\"a\\u12\":{}}", z, 0, "invalid \\u escape");
    ST_BAD("{\"a\\ud800\":{}}", z, 0, "unpaired surrogate");
    ST_BAD("{\"a\\udc00\":{}}", z, 0, "unpaired surrogate");
    ST_BAD("{\"a\\u0000\":{}}", z, 0, "NUL character");
    ST_BAD("{\"a\x01\":{}}", z, 0, "control character");
    ST_BAD("{\"caf\xe9\":{}}", z, 0, "invalid UTF-8");
    ST_BAD("{\"\xc0\xaf\":{}}", z, 0, "invalid UTF-8");          /* overlong '/' */
    ST_BAD("{\"\xed\xa0\x80\":{}}", z, 0, "invalid UTF-8");      /* encoded surrogate */
    ST_BAD("{\"a\":5}", z, 0, "the entry of tensor 'a' must be an object");
    ST_BAD("{\"a\":{}}", z, 0, "the entry of tensor 'a' has no 'dtype'");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", z, 4, "has no 'shape'");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", z, 4, "has no 'data_offsets'");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", z, 4, "duplicate key 'dtype' in the entry of tensor 'a'");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"extra\":1}}", z, 4, "unknown key 'extra' in the entry of tensor 'a'");
    ST_BAD("{\"a\":{\"dtype\":32,\"shape\":[1],\"data_offsets\":[0,4]}}", z, 4, "dtype of tensor 'a' must be a string");
    ST_BAD("{\"a\":{\"dtype\":\"F33\",\"shape\":[1],\"data_offsets\":[0,4]}}", z, 4, "safetensors: unknown dtype 'F33' of tensor 'a' (bad.safetensors)");
    ST_BAD("{\"a\":{\"dtype\":\"f32\",\"shape\":[1],\"data_offsets\":[0,4]}}", z, 4, "unknown dtype 'f32'");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":1,\"data_offsets\":[0,4]}}", z, 4, "shape of tensor 'a' must be a list of integers");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", z, 4, "a dimension in the shape of tensor 'a' must not be negative");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[1.0],\"data_offsets\":[0,4]}}", z, 4, "must be an integer");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[1e0],\"data_offsets\":[0,4]}}", z, 4, "must be an integer");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[01],\"data_offsets\":[0,4]}}", z, 4, "leading zero");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[\"1\"],\"data_offsets\":[0,4]}}", z, 4, "must be a non-negative integer");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[1,],\"data_offsets\":[0,4]}}", z, 4, "must be a non-negative integer");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[1 1],\"data_offsets\":[0,4]}}", z, 4, "expected ',' or ']' in a list");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,99999999999999999999]}}", z, 4, "does not fit in 64 bits");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0]}}", z, 4, "data_offsets of tensor 'a' must be [begin, end] (got 1 numbers)");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}}", z, 4, "must be [begin, end] (got 3 numbers)");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}", z, 4, "tensor 'a' has more than 8 dimensions");
    ST_BAD("{\"__metadata__\":{\"a\":1}}", z, 0, "__metadata__ value of 'a' is not a string");
    ST_BAD("{\"__metadata__\":{\"a\":[\"x\"]}}", z, 0, "__metadata__ value of 'a' is not a string");
    ST_BAD("{\"__metadata__\":[]}", z, 0, "__metadata__ must be an object of strings");
    ST_BAD("{\"__metadata__\":{},\"__metadata__\":{}}", z, 0, "duplicate key '__metadata__'");
    ST_BAD("{\"__metadata__\":{\"k\":\"1\",\"k\":\"2\"}}", z, 0, "duplicate __metadata__ key 'k'");
    ST_BAD("{\"__metadata__\":{\"k\":\"1\" \"j\":\"2\"}}", z, 0, "expected ',' or '}' in __metadata__");
}
TEST(test_st_corrupt_layout) {
    static const unsigned char z[64] = {0};
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,20]}}", z, 20,
           "safetensors: tensor 'a' of shape [2, 3] and dtype F32 needs 24 bytes but its data_offsets [0, 20] span 20 (bad.safetensors)");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,4]}}", z, 8, "data_offsets [8, 4] that end before they begin");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", z, 4, "tensor 'a' has data_offsets [0, 8] outside the data buffer of 4 bytes");
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[18446744073709551612,4]}}", z, 4, "end before they begin");
    ST_BAD("{\"a\":{\"dtype\":\"I8\",\"shape\":[4],\"data_offsets\":[0,4]},\"b\":{\"dtype\":\"I8\",\"shape\":[4],\"data_offsets\":[2,6]}}", z, 6,
           "tensors 'a' [0, 4] and 'b' [2, 6] overlap");
    ST_BAD("{\"a\":{\"dtype\":\"I8\",\"shape\":[4],\"data_offsets\":[0,4]},\"b\":{\"dtype\":\"I8\",\"shape\":[4],\"data_offsets\":[0,4]}}", z, 4,
           "overlap");
    ST_BAD("{\"a\":{\"dtype\":\"I8\",\"shape\":[4],\"data_offsets\":[0,4]},\"b\":{\"dtype\":\"I8\",\"shape\":[0],\"data_offsets\":[2,2]}}", z, 4,
           "overlap");
    ST_BAD("{\"a\":{\"dtype\":\"I8\",\"shape\":[4],\"data_offsets\":[0,4]},\"b\":{\"dtype\":\"I8\",\"shape\":[4],\"data_offsets\":[6,10]}}", z, 10,
           "bytes [4, 6) of the data buffer belong to no tensor (a gap before 'b')");
    ST_BAD("{\"a\":{\"dtype\":\"I8\",\"shape\":[4],\"data_offsets\":[2,6]}}", z, 6, "bytes [0, 2) of the data buffer belong to no tensor");
    ST_BAD("{\"a\":{\"dtype\":\"I8\",\"shape\":[4],\"data_offsets\":[0,4]}}", z, 6, "the data buffer has 6 bytes but the tensors cover 4");
    ST_BAD("{}", z, 3, "the data buffer has 3 bytes but the tensors cover 0");
    ST_BAD("{\"a\":{\"dtype\":\"I8\",\"shape\":[4],\"data_offsets\":[0,4]},\"a\":{\"dtype\":\"I8\",\"shape\":[4],\"data_offsets\":[4,8]}}", z, 8,
           "duplicate tensor name 'a'");
    /* huge dims and overflow of numel * itemsize */
    ST_BAD("{\"a\":{\"dtype\":\"F32\",\"shape\":[9223372036854775807],\"data_offsets\":[0,4]}}", z, 4, "dimension 9223372036854775807 of tensor 'a' is too large");
    ST_BAD("{\"a\":{\"dtype\":\"F64\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,0]}}", z, 0, "is too large (its size overflows)");
    ST_BAD("{\"a\":{\"dtype\":\"F64\",\"shape\":[2305843009213693952],\"data_offsets\":[0,0]}}", z, 0, "is too large (its size overflows)");
    ST_BAD("{\"a\":{\"dtype\":\"I8\",\"shape\":[4611686018427387904,0,4611686018427387904],\"data_offsets\":[0,0]}}", z, 0, "is too large");
    ST_BAD("{\"a\":{\"dtype\":\"I8\",\"shape\":[1,70368744177664,0,70368744177664],\"data_offsets\":[0,0]}}", z, 0, "is too large");
    /* valid edge files load */
    const char *ok[] = {"{}", "{\"__metadata__\":{}}", "{\"e\":{\"dtype\":\"F32\",\"shape\":[0,5],\"data_offsets\":[0,0]}}",
                        "{ \"a\" : { \"shape\" : [ ] , \"data_offsets\" : [ 0 , 1 ] , \"dtype\" : \"U8\" } }",
                        "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}} \n\t  ",
                        "{\"a\":{\"dtype\":\"I8\",\"shape\":[70368744177664,0,1],\"data_offsets\":[0,0]}}",
                        "{\"\\u00e9\\ud83d\\ude00\\/\":{\"dtype\":\"I8\",\"shape\":[1],\"data_offsets\":[0,1]}}"};
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        blob b = st_file(ok[k], z, k == 3 || k == 6 ? 1 : k == 4 ? 4 : 0);
        ct_safetensors *st = ct_safetensors_load_mem(b.p, b.n, "ok");
        CT_T_REPORT(st != NULL, "valid file %d failed: %s", (int)k, ct_last_error());
        for (int i = 0; st && i < ct_safetensors_count(st); i++) CHECK(ct_safetensors_get(st, ct_safetensors_name(st, i)) != NULL);
        if (k == 6) CHECK_STR(ct_safetensors_name(st, 0), "\xc3\xa9\xf0\x9f\x98\x80/");
        ct_safetensors_free(st);
        free(b.p);
    }
}

int main(int argc, char **argv) {
    ct_t_init();
    snprintf(tmp_path, sizeof tmp_path, "%s.tmp.safetensors", argc > 0 ? argv[0] : "test_io");
    RUN(test_npy_dtypes_roundtrip);
    RUN(test_npy_versions_endian_fortran);
    RUN(test_npy_fixtures_from_numpy);
    RUN(test_npy_corrupt);
    RUN(test_st_fixtures);
    RUN(test_st_fixture_details);
    RUN(test_st_roundtrip_borrow);
    RUN(test_st_file_api);
    RUN(test_st_api_errors);
    RUN(test_st_writer_errors);
    RUN(test_st_corrupt_prefix);
    RUN(test_st_corrupt_json);
    RUN(test_st_corrupt_layout);
    return ct_t_summary();
}
