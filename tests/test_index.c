/* test_index.c - indexing and joining: values, dtypes, errors, gradients (gradcheck,
   gradgradcheck), in-place ops under autograd, memory. PyTorch parity for many more
   cases lives in tests/fixtures/index (tests/reference/cases_index.py). */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include <stdlib.h>
#include "ct_test.h"

#define I64(...) ct_tensor_i64(((int64_t[]){__VA_ARGS__}), CT__NARGS(__VA_ARGS__))
#define F64(...) ct_tensor_f64(((double[]){__VA_ARGS__}), CT__NARGS(__VA_ARGS__))
#define VALS(...) ((const double[]){__VA_ARGS__})
#define LIST(...) ((int64_t[]){__VA_ARGS__})
#define TS(...) ((ct_tensor *[]){__VA_ARGS__})

static ct_tensor *ar(ct_dtype dt, int ndim, const int64_t *shape) {
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    return ct_reshape_n(ct_to(ct_arange(0, (double)n, 1, CT_FLOAT64), dt), ndim, shape);
}
#define AR(dt, ...) ar(dt, CT_DIMS(__VA_ARGS__))
/* a float64 leaf with random values that requires grad */
static ct_tensor *leaf(int ndim, const int64_t *shape) {
    ct_tensor *x = ct_randn_n(CT_FLOAT64, ndim, shape);
    return ct_requires_grad(x);
}
#define LEAF(...) leaf(CT_DIMS(__VA_ARGS__))
/* a non-contiguous float64 leaf: the transpose of a [b, a] tensor */
static ct_tensor *leaf_t(int64_t a, int64_t b) {
    ct_tensor *x = ct_transpose(ct_randn(CT_FLOAT64, b, a), 0, 1);
    return ct_requires_grad(ct_detach(x));
}
static int shape_is(const ct_tensor *t, int ndim, const int64_t *shape) {
    if (!t || t->ndim != ndim) return 0;
    for (int d = 0; d < ndim; d++) if (t->shape[d] != shape[d]) return 0;
    return 1;
}
/* "[2, 3]" (a message's buffer: one per report) */
static const char *shape_str(const ct_tensor *t, char *buf, size_t n) {
    size_t k = (size_t)snprintf(buf, n, "[");
    for (int d = 0; d < t->ndim && k < n; d++) k += (size_t)snprintf(buf + k, n - k, d ? ", %lld" : "%lld", (long long)t->shape[d]);
    if (k < n) snprintf(buf + k, n - k, "]");
    return buf;
}
#define CHECK_SHAPE(t, ...)                                                                            \
    do {                                                                                               \
        char sb_[160];                                                                                 \
        CT_T_REPORT(shape_is((t), CT_DIMS(__VA_ARGS__)), "%s has shape %s", #t,                         \
                    (t) ? shape_str((t), sb_, sizeof sb_) : ct_last_error());                          \
    } while (0)
#define GC(fn, n, ...) CT_T_REPORT(ct_gradcheck(fn, NULL, n, TS(__VA_ARGS__), NULL), "gradcheck %s: %s", #fn, ct_last_error())
#define GGC(fn, n, ...) CT_T_REPORT(ct_gradgradcheck(fn, NULL, n, TS(__VA_ARGS__), NULL), "gradgradcheck %s: %s", #fn, ct_last_error())

/* ---------------------------------------------------------------- values */
TEST(test_index_select_gather) {
    ct_tensor *x = AR(CT_FLOAT32, 3, 4);
    ct_tensor *r = ct_index_select(x, 0, I64(2, 0, 2));
    CHECK_SHAPE(r, 3, 4);
    CHECK_VALUES(r, VALS(8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11), 12, 0);
    r = ct_index_select(x, -1, ct_to(I64(3, 1), CT_INT32));
    CHECK_VALUES(r, VALS(3, 1, 7, 5, 11, 9), 6, 0);
    r = ct_index_select(ct_t(x), 1, I64(1));           /* strided input */
    CHECK_SHAPE(r, 4, 1);
    CHECK_VALUES(r, VALS(4, 5, 6, 7), 4, 0);
    CHECK_SHAPE(ct_index_select(x, 1, ct_empty(CT_INT64, 0)), 3, 0);
    ct_tensor *g = ct_gather(x, 1, ct_reshape(I64(0, 0, 3, 1, 2, 2), 3, 2));
    CHECK_VALUES(g, VALS(0, 0, 7, 5, 10, 10), 6, 0);
    g = ct_gather(x, 0, ct_reshape(I64(2, 1, 0), 1, 3));
    CHECK_VALUES(g, VALS(8, 5, 2), 3, 0);
    g = ct_gather(ct_t(x), 0, ct_reshape(I64(3, 0), 1, 2));   /* x.T [4, 3] */
    CHECK_VALUES(g, VALS(3, 4), 2, 0);
    CHECK_VALUES(ct_take(x, I64(0, -1, 5)), VALS(0, 11, 5), 3, 0);
    CHECK_VALUES(ct_take(ct_t(x), I64(1, 3)), VALS(4, 1), 2, 0);
    /* int and bool dtypes */
    CHECK_VALUES(ct_index_select(AR(CT_INT16, 4), 0, I64(3, 3)), VALS(3, 3), 2, 0);
    CHECK_VALUES(ct_gather(ct_gt_scalar(AR(CT_FLOAT32, 4), 1.5), 0, I64(0, 3)), VALS(0, 1), 2, 0);
}
TEST(test_scatter_family) {
    ct_tensor *x = ct_zeros(CT_FLOAT32, 3, 4);
    ct_tensor *idx = ct_reshape(I64(0, 1, 2, 0, 2, 0, 1, 1), 2, 4);
    ct_tensor *src = AR(CT_FLOAT32, 2, 4);
    CHECK_VALUES(ct_scatter(x, 0, idx, src), VALS(0, 5, 0, 3, 0, 1, 6, 7, 4, 0, 2, 0), 12, 0);
    CHECK_VALUES(ct_scatter_value(x, 1, ct_reshape(I64(3, 0, 1), 3, 1), 2.5), VALS(0, 0, 0, 2.5, 2.5, 0, 0, 0, 0, 2.5, 0, 0), 12, 0);
    /* duplicates accumulate */
    ct_tensor *y = ct_scatter_add(ct_ones(CT_FLOAT64, 3), 0, I64(0, 0, 2, 0), F64(1, 2, 3, 4));
    CHECK_VALUES(y, VALS(8, 1, 4), 3, 0);
    ct_tensor *s = F64(2, 5, 4, 0, 3), *i5 = I64(0, 0, 1, 1, 2), *b = F64(2, 0, 3, 7);
    CHECK_VALUES(ct_scatter_reduce(b, 0, i5, s, "sum", 1), VALS(9, 4, 6, 7), 4, 0);
    CHECK_VALUES(ct_scatter_reduce(b, 0, i5, s, "prod", 1), VALS(20, 0, 9, 7), 4, 0);
    CHECK_VALUES(ct_scatter_reduce(b, 0, i5, s, "prod", 0), VALS(10, 0, 3, 7), 4, 0);
    CHECK_VALUES(ct_scatter_reduce(b, 0, i5, s, "mean", 1), VALS(3, 4.0 / 3, 3, 7), 4, 1e-12);
    CHECK_VALUES(ct_scatter_reduce(b, 0, i5, s, "mean", 0), VALS(3.5, 2, 3, 7), 4, 1e-12);
    CHECK_VALUES(ct_scatter_reduce(b, 0, i5, s, "amax", 1), VALS(5, 4, 3, 7), 4, 0);
    CHECK_VALUES(ct_scatter_reduce(b, 0, i5, s, "amin", 0), VALS(2, 0, 3, 7), 4, 0);
    /* integer mean floors, as PyTorch does */
    CHECK_VALUES(ct_scatter_reduce(I64(0, 0, 0), 0, I64(1, 1), I64(-3, 0), "mean", 0), VALS(0, -2, 0), 3, 0);
    CHECK_VALUES(ct_scatter_reduce(I64(0, 0, 0), 0, I64(1, 1), I64(-3, -4), "amin", 0), VALS(0, -4, 0), 3, 0);
    /* scatter into a transposed tensor */
    ct_tensor *xt = ct_t(ct_zeros(CT_FLOAT64, 2, 3));
    CHECK_VALUES(ct_scatter_add(xt, 1, ct_reshape(I64(1, 1, 0), 3, 1), ct_ones(CT_FLOAT64, 3, 1)), VALS(0, 1, 0, 1, 1, 0), 6, 0);
}
TEST(test_index_add_copy_fill) {
    ct_tensor *x = ct_ones(CT_FLOAT32, 3, 2);
    ct_tensor *src = AR(CT_FLOAT32, 2, 2);
    CHECK_VALUES(ct_index_add(x, 0, I64(2, 2), src, 2.0), VALS(1, 1, 1, 1, 5, 9), 6, 0);
    CHECK_VALUES(ct_index_add(ct_ones(CT_FLOAT32, 2, 2), 1, ct_to(I64(1, 0), CT_INT32), src, 1.0), VALS(2, 1, 4, 3), 4, 0);
    /* the source slice broadcasts */
    CHECK_VALUES(ct_index_add(ct_zeros(CT_FLOAT32, 3, 2), 0, I64(0, 2), F64(1, 2) ? ct_to(F64(1, 2), CT_FLOAT32) : NULL, 1.0), VALS(1, 1, 0, 0, 2, 2), 6, 0);
    CHECK_VALUES(ct_index_copy(x, 0, I64(2, 0), src), VALS(2, 3, 1, 1, 0, 1), 6, 0);
    CHECK_VALUES(ct_index_fill(x, 1, I64(-1), 7.0), VALS(1, 7, 1, 7, 1, 7), 6, 0);
    CHECK_VALUES(ct_index_fill(AR(CT_INT64, 3), 0, I64(0, 2), 2.9), VALS(2, 1, 2), 3, 0);
    CHECK_VALUES(ct_index_add(AR(CT_INT64, 3), 0, I64(1), I64(5), 1.5), VALS(0, 6, 2), 3, 0);
    CHECK_SHAPE(ct_index_add(ct_zeros(CT_FLOAT64, 0), 0, ct_zeros(CT_INT64, 0), ct_zeros(CT_FLOAT64, 0), 1.0), 0);
}
TEST(test_advanced_index) {
    ct_tensor *x = AR(CT_FLOAT64, 3, 4);
    ct_tensor *r = ct_index(x, 1, TS(I64(2, 0)));
    CHECK_SHAPE(r, 2, 4);
    CHECK_VALUES(r, VALS(8, 9, 10, 11, 0, 1, 2, 3), 8, 0);
    r = ct_index(x, 2, TS(I64(0, 2), I64(-1, 1)));
    CHECK_VALUES(r, VALS(3, 9), 2, 0);
    r = ct_index(x, 2, TS(CT_SLICE_ALL, I64(1, 3)));
    CHECK_SHAPE(r, 3, 2);
    CHECK_VALUES(r, VALS(1, 3, 5, 7, 9, 11), 6, 0);
    r = ct_index(x, 1, TS(ct_gt_scalar(x, 8.5)));           /* a full mask */
    CHECK_VALUES(r, VALS(9, 10, 11), 3, 0);
    r = ct_index(x, 1, TS(ct_tensor_bool(((uint8_t[]){1, 0, 1}), 3)));
    CHECK_SHAPE(r, 2, 4);
    /* separated index tensors put the index dims first (NumPy rule) */
    ct_tensor *z = AR(CT_FLOAT64, 2, 3, 4);
    r = ct_index(z, 3, TS(I64(0, 1), CT_SLICE_ALL, I64(1, 2)));
    CHECK_SHAPE(r, 2, 3);
    CHECK_VALUES(r, VALS(1, 5, 9, 14, 18, 22), 6, 0);
    r = ct_index(z, 2, TS(CT_SLICE_ALL, ct_reshape(I64(0, 2, 1, 1), 2, 2)));
    CHECK_SHAPE(r, 2, 2, 2, 4);
    /* index_put */
    ct_tensor *p = ct_index_put(x, 2, TS(I64(0, 2), I64(1, 3)), F64(-1, -2), 0);
    CHECK_VALUES(p, VALS(0, -1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -2), 12, 0);
    p = ct_index_put(ct_zeros(CT_FLOAT64, 3), 1, TS(I64(0, 0, 2)), F64(1, 2, 3), 1);
    CHECK_VALUES(p, VALS(3, 0, 3), 3, 0);
    p = ct_index_put(x, 1, TS(ct_le_scalar(x, 2.5)), ct_scalar_tensor(0.5, CT_FLOAT64), 0);
    CHECK_VALUES(p, VALS(0.5, 0.5, 0.5, 3, 4, 5, 6, 7, 8, 9, 10, 11), 12, 0);
    p = ct_index_put(ct_zeros(CT_INT64, 3), 1, TS(I64(0, 0, 2)), I64(1, 2, 3), 1);
    CHECK_VALUES(p, VALS(3, 0, 3), 3, 0);
    p = ct_index_put(ct_zeros(CT_FLOAT64, 2, 3), 2, TS(CT_SLICE_ALL, I64(2)), ct_reshape(F64(4, 5), 2, 1), 0);
    CHECK_VALUES(p, VALS(0, 0, 4, 0, 0, 5), 6, 0);
}
TEST(test_masked_nonzero) {
    ct_tensor *x = AR(CT_FLOAT32, 2, 3);
    ct_tensor *m = ct_tensor_bool(((uint8_t[]){1, 0, 1}), 3);
    CHECK_VALUES(ct_masked_select(x, m), VALS(0, 2, 3, 5), 4, 0);
    CHECK_VALUES(ct_masked_select(ct_t(x), ct_gt_scalar(ct_t(x), 1.5)), VALS(3, 4, 2, 5), 4, 0);
    CHECK_VALUES(ct_masked_scatter(x, m, ct_to(F64(9, 8, 7, 6), CT_FLOAT32)), VALS(9, 1, 8, 7, 4, 6), 6, 0);
    ct_tensor *nz = ct_nonzero(ct_reshape(I64(0, 3, 0, 1, 0, 2), 2, 3));
    CHECK_SHAPE(nz, 3, 2);
    CHECK_VALUES(nz, VALS(0, 1, 1, 0, 1, 2), 6, 0);
    CHECK_SHAPE(ct_nonzero(ct_scalar_tensor(1, CT_FLOAT32)), 1, 0);
    CHECK_VALUES(ct_nonzero(ct_to(F64(NAN, 0, -0.0, 1), CT_FLOAT16)), VALS(0, 3), 2, 0);
    ct_tensor *tup[4];
    CHECK_EQ_INT(ct_nonzero_tuple(ct_reshape(I64(0, 3, 0, 1, 0, 2), 2, 3), tup, 4), 2);
    CHECK_VALUES(tup[1], VALS(1, 0, 2), 3, 0);
}
TEST(test_cat_stack_split) {
    ct_tensor *a = AR(CT_FLOAT32, 2, 2), *b = ct_full(CT_FLOAT64, 9, 2, 1);
    ct_tensor *c = ct_cat(2, TS(a, b), 1);
    CHECK_EQ_INT(ct_get_dtype(c), CT_FLOAT64);
    CHECK_VALUES(c, VALS(0, 1, 9, 2, 3, 9), 6, 0);
    c = ct_cat(3, TS(a, ct_zeros(CT_FLOAT32, 0), ct_t(a)), 0);   /* legacy empty skipped, strided input */
    CHECK_VALUES(c, VALS(0, 1, 2, 3, 0, 2, 1, 3), 8, 0);
    CHECK_EQ_INT(ct_get_dtype(ct_cat(2, TS(ct_zeros(CT_INT8, 1), ct_ones(CT_UINT8, 1)), 0)), CT_INT16);
    ct_tensor *s = ct_stack(2, TS(a, ct_t(a)), 1);
    CHECK_SHAPE(s, 2, 2, 2);
    CHECK_VALUES(s, VALS(0, 1, 0, 2, 2, 3, 1, 3), 8, 0);
    CHECK_SHAPE(ct_stack(2, TS(ct_scalar_tensor(1, CT_FLOAT32), ct_scalar_tensor(2, CT_FLOAT32)), 0), 2);
    ct_tensor *out[8];
    ct_tensor *v = AR(CT_FLOAT32, 10);
    CHECK_EQ_INT(ct_split(v, 3, 0, out, 8), 4);
    CHECK_VALUES(out[3], VALS(9), 1, 0);
    CHECK_EQ_INT(ct_split_sizes(v, 3, LIST(2, 0, 8), 0, out, 8), 3);
    CHECK_SHAPE(out[1], 0);
    CHECK_VALUES(out[2], VALS(2, 3, 4, 5, 6, 7, 8, 9), 8, 0);
    CHECK_EQ_INT(ct_chunk(v, 4, 0, out, 8), 4);
    CHECK_SHAPE(out[0], 3);
    CHECK_EQ_INT(ct_chunk(AR(CT_FLOAT32, 5), 6, 0, out, 8), 5);
    CHECK_EQ_INT(ct_chunk(ct_zeros(CT_FLOAT32, 0), 3, 0, out, 8), 3);
    CHECK_EQ_INT(ct_unbind(a, 1, out, 8), 2);
    CHECK_VALUES(out[1], VALS(1, 3), 2, 0);
    CHECK_EQ_INT(ct_split(v, 3, 0, NULL, 0), 4);
}
TEST(test_flip_roll_repeat) {
    ct_tensor *x = AR(CT_FLOAT32, 2, 3);
    CHECK_VALUES(ct_flip(x, 1, LIST(-1)), VALS(2, 1, 0, 5, 4, 3), 6, 0);
    CHECK_VALUES(ct_flip(x, 2, LIST(0, 1)), VALS(5, 4, 3, 2, 1, 0), 6, 0);
    CHECK_VALUES(ct_roll(x, 1, LIST(1), 0, NULL), VALS(5, 0, 1, 2, 3, 4), 6, 0);
    CHECK_VALUES(ct_roll(x, 2, LIST(1, -1), 2, LIST(0, 1)), VALS(4, 5, 3, 1, 2, 0), 6, 0);
    CHECK_VALUES(ct_roll(x, 2, LIST(1, 1), 2, LIST(1, 1)), VALS(1, 2, 0, 4, 5, 3), 6, 0);
    CHECK_VALUES(ct_roll(ct_t(x), 1, LIST(7), 1, LIST(0)), VALS(2, 5, 0, 3, 1, 4), 6, 0);
    ct_tensor *r = ct_repeat(x, 3, LIST(2, 1, 2));
    CHECK_SHAPE(r, 2, 2, 6);
    CHECK_VALUES(r, VALS(0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5), 24, 0);
    CHECK_VALUES(ct_repeat(ct_t(x), 2, LIST(1, 2)), VALS(0, 3, 0, 3, 1, 4, 1, 4, 2, 5, 2, 5), 12, 0);
    CHECK_SHAPE(ct_repeat(x, 2, LIST(0, 2)), 0, 6);
    CHECK_SHAPE(ct_tile(x, 1, LIST(2)), 2, 6);
    CHECK_VALUES(ct_repeat_interleave(x, 2, CT_DIM_NONE), VALS(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5), 12, 0);
    CHECK_VALUES(ct_repeat_interleave(x, 2, 0), VALS(0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5), 12, 0);
    CHECK_VALUES(ct_repeat_interleave_tensor(x, I64(0, 2, 1), 1), VALS(1, 1, 2, 4, 4, 5), 6, 0);
    CHECK_VALUES(ct_repeat_interleave_index(I64(1, 0, 3)), VALS(0, 2, 2, 2), 4, 0);
    CHECK_EQ_INT(ct_get_dtype(ct_repeat_interleave_index(ct_to(I64(1, 0, 3), CT_INT32))), CT_INT32);
}
TEST(test_tri_diag_onehot) {
    ct_tensor *x = ct_add_scalar(AR(CT_FLOAT32, 3, 3), 1);
    CHECK_VALUES(ct_tril(x, 0), VALS(1, 0, 0, 4, 5, 0, 7, 8, 9), 9, 0);
    CHECK_VALUES(ct_triu(x, 1), VALS(0, 2, 3, 0, 0, 6, 0, 0, 0), 9, 0);
    CHECK_VALUES(ct_tril(ct_t(x), -1), VALS(0, 0, 0, 2, 0, 0, 3, 6, 0), 9, 0);
    CHECK_VALUES(ct_triu(AR(CT_INT64, 2, 2, 3), -5), VALS(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), 12, 0);
    CHECK_VALUES(ct_diag(F64(1, 2), -1), VALS(0, 0, 0, 1, 0, 0, 0, 2, 0), 9, 0);
    CHECK_VALUES(ct_diag(x, 1), VALS(2, 6), 2, 0);
    CHECK_SHAPE(ct_diag(x, 5), 0);
    ct_tensor *e = ct_diag_embed(ct_ones(CT_FLOAT32, 2, 3), 1, 0, 2);
    CHECK_SHAPE(e, 4, 2, 4);
    CHECK_VALUES(ct_diagonal(e, 1, 0, 2), VALS(1, 1, 1, 1, 1, 1), 6, 0);
    CHECK_VALUES(ct_sum(e), VALS(6), 1, 0);
    ct_tensor *oh = ct_one_hot(ct_reshape(I64(1, 0, 2, 1), 2, 2), -1);
    CHECK_SHAPE(oh, 2, 2, 3);
    CHECK_VALUES(oh, VALS(0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0), 12, 0);
    CHECK_SHAPE(ct_one_hot(ct_zeros(CT_INT64, 0), 4), 0, 4);
}
TEST(test_pad_values) {
    ct_tensor *x = AR(CT_FLOAT64, 1, 2, 3);
    CHECK_VALUES(ct_pad(x, 2, LIST(1, 2), "constant", -1), VALS(-1, 0, 1, 2, -1, -1, -1, 3, 4, 5, -1, -1), 12, 0);
    CHECK_VALUES(ct_pad(x, 4, LIST(-1, 0, 0, 1), NULL, 0), VALS(1, 2, 4, 5, 0, 0), 6, 0);
    CHECK_VALUES(ct_pad(x, 2, LIST(2, 2), "reflect", 0), VALS(2, 1, 0, 1, 2, 1, 0, 5, 4, 3, 4, 5, 4, 3), 14, 0);
    CHECK_VALUES(ct_pad(x, 2, LIST(2, 1), "replicate", 0), VALS(0, 0, 0, 1, 2, 2, 3, 3, 3, 4, 5, 5), 12, 0);
    CHECK_VALUES(ct_pad(x, 2, LIST(2, 1), "circular", 0), VALS(1, 2, 0, 1, 2, 0, 4, 5, 3, 4, 5, 3), 12, 0);
    CHECK_VALUES(ct_pad(x, 2, LIST(-1, 2), "reflect", 0), VALS(1, 2, 1, 0, 4, 5, 4, 3), 8, 0);
    ct_tensor *y = ct_pad(x, 4, LIST(1, 1, 1, 0), "replicate", 0);
    CHECK_SHAPE(y, 1, 3, 5);
    CHECK_VALUES(y, VALS(0, 0, 1, 2, 2, 0, 0, 1, 2, 2, 3, 3, 4, 5, 5), 15, 0);
    CHECK_SHAPE(ct_pad(ct_ones(CT_FLOAT32, 2, 2, 2, 2), 6, LIST(1, 1, 1, 1, 1, 1), "reflect", 0), 2, 4, 4, 4);
    CHECK_VALUES(ct_pad(ct_gt_scalar(x, 2.5), 2, LIST(1, 0), "constant", 1), VALS(1, 0, 0, 0, 1, 1, 1, 1), 8, 0);
}

/* ---------------------------------------------------------------- errors */
TEST(test_errors) {
    ct_tensor *x = AR(CT_FLOAT32, 3, 4);
    CHECK_ERR(ct_index_select(x, 0, I64(0, 5)), CT_ERR_INDEX, "index out of range in self");
    CHECK_ERR(ct_index_select(x, 0, ct_reshape(I64(0, 1), 1, 2)), CT_ERR_INDEX, "index_select(): Index is supposed to be a vector");
    CHECK_ERR(ct_index_select(x, 0, ct_to(I64(0), CT_FLOAT32)), CT_ERR_DTYPE, "Expected dtype int32 or int64 for index");
    CHECK_ERR(ct_index_select(x, 2, I64(0)), CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    CHECK_ERR(ct_gather(x, 0, ct_reshape(I64(5, 0), 1, 2)), CT_ERR_INDEX, "index 5 is out of bounds for dimension 0 with size 3");
    CHECK_ERR(ct_gather(x, 1, I64(0)), CT_ERR_SHAPE, "Index tensor must have the same number of dimensions as input tensor");
    CHECK_ERR(ct_gather(x, 1, ct_zeros(CT_INT64, 4, 1)), CT_ERR_SHAPE,
              "Size does not match at dimension 0 expected index [4, 1] to be smaller than self [3, 4] apart from dimension 1");
    CHECK_ERR(ct_gather(x, 1, ct_zeros(CT_INT32, 1, 1)), CT_ERR_DTYPE, "gather(): Expected dtype int64 for index");
    CHECK_ERR(ct_scatter(x, 0, ct_reshape(I64(0, 3), 1, 2), ct_ones(CT_FLOAT32, 1, 2)), CT_ERR_INDEX, "index 3 is out of bounds for dimension 0 with size 3");
    CHECK_ERR(ct_scatter(x, 0, ct_reshape(I64(0, -1), 1, 2), ct_ones(CT_FLOAT32, 1, 2)), CT_ERR_INDEX, "index -1 is out of bounds");
    CHECK_ERR(ct_scatter(x, 0, ct_reshape(I64(0, 1), 1, 2), ct_ones(CT_FLOAT64, 1, 2)), CT_ERR_DTYPE, "scatter(): Expected self.dtype to be equal to src.dtype");
    CHECK_ERR(ct_scatter(x, 0, ct_reshape(I64(0, 1), 1, 2), ct_ones(CT_FLOAT32, 1, 1)), CT_ERR_SHAPE,
              "Expected index [1, 2] to be smaller than self [3, 4] apart from dimension 0 and to be smaller size than src [1, 1]");
    CHECK_ERR(ct_scatter_value(x, 0, ct_reshape(I64(4), 1, 1), 1.0), CT_ERR_INDEX, "index 4 is out of bounds for dimension 0 with size 3");
    CHECK_ERR(ct_scatter_add(x, 0, ct_zeros(CT_INT64, 1), ct_ones(CT_FLOAT32, 1)), CT_ERR_SHAPE, "same number of dimensions as self tensor");
    CHECK_ERR(ct_scatter_reduce(x, 0, ct_zeros(CT_INT64, 1, 1), ct_ones(CT_FLOAT32, 1, 1), "max", 1), CT_ERR_ARG,
              "reduce argument must be either sum, prod, mean, amax or amin");
    CHECK_ERR(ct_scatter_reduce(ct_zeros(CT_BOOL, 2), 0, ct_zeros(CT_INT64, 1), ct_ones(CT_BOOL, 1), "mean", 1), CT_ERR_DTYPE, "not implemented for 'Bool'");
    CHECK_ERR(ct_index_add(x, 0, I64(0, 3), ct_ones(CT_FLOAT32, 2, 4), 1.0), CT_ERR_INDEX, "index out of range in self");
    CHECK_ERR(ct_index_add(x, 0, I64(0, 1), ct_ones(CT_FLOAT64, 2, 4), 1.0), CT_ERR_DTYPE, "self (Float) and source (Double) must have the same scalar type");
    CHECK_ERR(ct_index_add(x, 0, I64(0, 1), ct_ones(CT_FLOAT32, 3, 4), 1.0), CT_ERR_SHAPE, "Number of indices (2) should be equal to source.size(dim): (3), for dim: 0");
    CHECK_ERR(ct_index_add(x, 0, I64(0, 1), ct_ones(CT_FLOAT32, 2, 5), 1.0), CT_ERR_SHAPE, "The size of tensor a (4) must match the size of tensor b (5)");
    CHECK_ERR(ct_index_add(x, 0, ct_to(I64(0, 1), CT_UINT8), ct_ones(CT_FLOAT32, 2, 4), 1.0), CT_ERR_DTYPE, "Expected dtype int32/int64 for index but got: Byte");
    CHECK_ERR(ct_index_copy(x, 0, I64(0, 3), ct_ones(CT_FLOAT32, 2, 4)), CT_ERR_INDEX, "index_copy_(): index 3 is out of bounds for dimension 0 with size 3");
    CHECK_ERR(ct_index_copy(x, 0, ct_to(I64(0, 1), CT_INT32), ct_ones(CT_FLOAT32, 2, 4)), CT_ERR_DTYPE, "Expected a long tensor for index, but got Int");
    CHECK_ERR(ct_index_copy(x, 0, I64(0, 1), ct_ones(CT_FLOAT32, 2, 5)), CT_ERR_SHAPE,
              "Destination slice shape: 4 at dimension 0 and source slice shape: 5 at dimension 0.");
    CHECK_ERR(ct_index_fill(x, 0, I64(-4), 1.0), CT_ERR_INDEX, "index -4 is out of bounds for dimension 0 with size 3");
    CHECK_ERR(ct_index_fill(x, 0, ct_to(I64(0), CT_INT32), 1.0), CT_ERR_INDEX, "index_fill_(): Expected dtype int64 for index.");
    CHECK_ERR(ct_take(x, I64(12)), CT_ERR_INDEX, "out of range: tried to access index 12 on a tensor of 12 elements.");
    CHECK_ERR(ct_take(x, I64(-13)), CT_ERR_INDEX, "tried to access index -13");
    CHECK_ERR(ct_take(ct_zeros(CT_FLOAT32, 0), I64(0)), CT_ERR_INDEX, "take(): tried to take from an empty tensor");
    CHECK_ERR(ct_index(x, 1, TS(I64(3))), CT_ERR_INDEX, "index 3 is out of bounds for dimension 0 with size 3");
    CHECK_ERR(ct_index_put(x, 2, TS(I64(0), I64(-5)), ct_scalar_tensor(1, CT_FLOAT32), 1), CT_ERR_INDEX, "index -5 is out of bounds for dimension 1 with size 4");
    CHECK_ERR(ct_index(x, 3, TS(I64(0), I64(0), I64(0))), CT_ERR_INDEX, "too many indices for tensor of dimension 2 (got 3)");
    CHECK_ERR(ct_index(x, 1, TS(ct_to(I64(0), CT_INT32))), CT_ERR_INDEX, "tensors used as indices must be long, byte or bool tensors");
    CHECK_ERR(ct_index(x, 2, TS(I64(0, 1), I64(0, 1, 2))), CT_ERR_INDEX, "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]");
    CHECK_ERR(ct_index(x, 1, TS(ct_ones(CT_BOOL, 2))), CT_ERR_INDEX, "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [3, 4] at index 0");
    CHECK_ERR(ct_index(x, 1, TS(NULL)), CT_ERR_NULL, "NULL");
    CHECK_ERR(ct_index_put(x, 1, TS(I64(0, 2)), ct_ones(CT_FLOAT32, 3), 0), CT_ERR_SHAPE,
              "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2, 4]");
    CHECK_ERR(ct_index_put(x, 1, TS(I64(0, 2)), ct_ones(CT_FLOAT64, 1), 0), CT_ERR_DTYPE,
              "Index put requires the source and destination dtypes match, got Float for the destination and Double for the source.");
    CHECK_ERR(ct_masked_select(x, x), CT_ERR_DTYPE, "masked_select: expected BoolTensor or ByteTensor for mask");
    CHECK_ERR(ct_masked_select(x, ct_ones(CT_BOOL, 3)), CT_ERR_SHAPE, "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1");
    CHECK_ERR(ct_masked_scatter(x, ct_ones(CT_BOOL, 3, 4), ct_ones(CT_FLOAT32, 3)), CT_ERR_ARG, "Number of elements of source < number of ones in mask");
    CHECK_ERR(ct_masked_scatter(x, ct_ones(CT_BOOL, 3, 4), ct_ones(CT_FLOAT64, 12)), CT_ERR_DTYPE, "expected self and source to have same dtypes");
    CHECK_ERR(ct_masked_scatter(x, ct_full(CT_FLOAT32, 2, 3, 4), ct_ones(CT_FLOAT32, 12)), CT_ERR_ARG, "Mask tensor can take 0 and 1 values only");
    CHECK_ERR(ct_masked_scatter_(ct_zeros(CT_FLOAT32, 4), ct_ones(CT_BOOL, 3, 4), ct_ones(CT_FLOAT32, 12)), CT_ERR_SHAPE,
              "the number of sizes provided (1) must be greater or equal to the number of dimensions in the tensor (2)");
    CHECK_ERR(ct_nonzero(ct_empty(CT_QINT8, 2)), CT_ERR_DTYPE, "nonzero: Could not run 'aten::nonzero' with arguments from the 'QuantizedCPU' backend");
    CHECK_ERR(ct_cat(0, NULL, 0), CT_ERR_ARG, "torch.cat(): expected a non-empty list of Tensors");
    CHECK_ERR(ct_cat(2, TS(ct_zeros(CT_FLOAT32, 2, 2), ct_zeros(CT_FLOAT32, 3, 3)), 1), CT_ERR_SHAPE,
              "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for tensor number 1 in the list.");
    CHECK_ERR(ct_cat(2, TS(ct_zeros(CT_FLOAT32, 2, 2), ct_zeros(CT_FLOAT32, 3)), 0), CT_ERR_SHAPE, "Tensors must have same number of dimensions: got 2 and 1");
    CHECK_ERR(ct_cat(2, TS(ct_scalar_tensor(1, CT_FLOAT32), ct_scalar_tensor(1, CT_FLOAT32)), 0), CT_ERR_SHAPE,
              "zero-dimensional tensor (at position 0) cannot be concatenated");
    CHECK_ERR(ct_cat(2, TS(x, NULL), 0), CT_ERR_NULL, "argument 1 is NULL");
    CHECK_ERR(ct_stack(2, TS(ct_zeros(CT_FLOAT32, 2, 2), ct_zeros(CT_FLOAT32, 2, 3)), 0), CT_ERR_SHAPE,
              "stack expects each tensor to be equal size, but got [2, 2] at entry 0 and [2, 3] at entry 1");
    CHECK_ERR(ct_stack(1, TS(x), 3), CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    ct_tensor *out[4];
    CHECK(ct_split(AR(CT_FLOAT32, 10), 0, 0, out, 4) < 0 && strstr(ct_last_error(), "split_size can only be 0 if dimension size is 0"));
    CHECK(ct_split(AR(CT_FLOAT32, 10), -1, 0, out, 4) < 0 && strstr(ct_last_error(), "split expects split_size be non-negative, but got split_size=-1"));
    CHECK(ct_split_sizes(AR(CT_FLOAT32, 10), 2, LIST(3, 3), 0, out, 4) < 0 &&
          strstr(ct_last_error(), "split_with_sizes expects split_sizes to sum exactly to 10 (input tensor's size at dimension 0), but got split_sizes=[3, 3]"));
    CHECK(ct_split_sizes(AR(CT_FLOAT32, 10), 2, LIST(11, -1), 0, out, 4) < 0 && strstr(ct_last_error(), "only non-negative entries"));
    CHECK(ct_chunk(AR(CT_FLOAT32, 10), 0, 0, out, 4) < 0 && strstr(ct_last_error(), "chunk expects `chunks` to be greater than 0, got: 0"));
    CHECK(ct_chunk(ct_scalar_tensor(1, CT_FLOAT32), 1, 0, out, 4) < 0 && strstr(ct_last_error(), "chunk expects at least a 1-dimensional tensor"));
    CHECK(ct_unbind(ct_scalar_tensor(1, CT_FLOAT32), 0, out, 4) < 0 && ct_last_error_code() == CT_ERR_INDEX &&
          strstr(ct_last_error(), "Dimension specified as 0 but tensor has no dimensions"));
    ct_clear_error();
    CHECK_ERR(ct_flip(x, 2, LIST(0, -2)), CT_ERR_ARG, "dim 0 appears multiple times in the list of dims");
    CHECK_ERR(ct_flip(x, 1, LIST(2)), CT_ERR_INDEX, "Dimension out of range");
    CHECK_ERR(ct_roll(x, 2, LIST(1, 2), 1, LIST(0)), CT_ERR_ARG, "shifts and dimensions must align. shifts: 2, dims:1");
    CHECK_ERR(ct_roll(x, 2, LIST(1, 2), 0, NULL), CT_ERR_ARG, "shifts and dimensions must align. shifts: 2, dims:0");
    CHECK_ERR(ct_roll(ct_scalar_tensor(1, CT_FLOAT32), 1, LIST(1), 1, LIST(0)), CT_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
    CHECK_ERR(ct_repeat(x, 1, LIST(2)), CT_ERR_ARG, "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
    CHECK_ERR(ct_repeat(x, 2, LIST(2, -1)), CT_ERR_ARG, "Trying to create tensor with negative dimension -4: [6, -4]");
    CHECK_ERR(ct_tile(x, 1, LIST(-2)), CT_ERR_ARG, "negative dimension -8");
    CHECK_ERR(ct_repeat_interleave(x, -2, 0), CT_ERR_ARG, "repeats can not be negative");
    CHECK_ERR(ct_repeat_interleave_tensor(x, I64(1, -1, 0), 0), CT_ERR_ARG, "repeats can not be negative");
    CHECK_ERR(ct_repeat_interleave_tensor(x, I64(1, 0), 0), CT_ERR_ARG, "repeats must have the same size as input along dim");
    CHECK_ERR(ct_repeat_interleave_tensor(x, ct_ones(CT_FLOAT32, 3), 0), CT_ERR_DTYPE, "\"repeat_interleave_cpu\" not implemented for 'Float'");
    CHECK_ERR(ct_repeat_interleave_tensor(x, ct_ones(CT_INT64, 1, 3), 0), CT_ERR_ARG, "repeats must be 0-dim or 1-dim tensor");
    CHECK_ERR(ct_repeat_interleave_index(ct_scalar_tensor(3, CT_INT64)), CT_ERR_ARG, "repeat_interleave only accept 1D vector as repeat");
    CHECK_ERR(ct_tril(ct_zeros(CT_FLOAT32, 3), 0), CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-1, 0], but got -2)");
    CHECK_ERR(ct_triu(ct_scalar_tensor(1, CT_FLOAT32), 0), CT_ERR_INDEX, "Dimension specified as -2 but tensor has no dimensions");
    CHECK_ERR(ct_diag(ct_zeros(CT_FLOAT32, 2, 2, 2), 0), CT_ERR_ARG, "matrix or a vector expected");
    CHECK_ERR(ct_diag_embed(ct_ones(CT_FLOAT32, 2, 3), 0, 1, 1), CT_ERR_ARG, "diagonal dimensions cannot be identical 1, 1");
    CHECK_ERR(ct_diag_embed(ct_ones(CT_FLOAT32, 3), 0, 0, 3), CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-2, 1], but got 3)");
    CHECK_ERR(ct_one_hot(ct_ones(CT_FLOAT32, 2), -1), CT_ERR_DTYPE, "one_hot is only applicable to index tensor.");
    CHECK_ERR(ct_one_hot(I64(1, -2), -1), CT_ERR_ARG, "Class values must be non-negative.");
    CHECK_ERR(ct_one_hot(I64(1, 5), 3), CT_ERR_ARG, "Class values must be smaller than num_classes.");
    CHECK_ERR(ct_one_hot(ct_zeros(CT_INT64, 0), -1), CT_ERR_ARG, "Can not infer total number of classes from empty tensor.");
    ct_tensor *p = AR(CT_FLOAT32, 1, 3, 4);
    CHECK_ERR(ct_pad(p, 3, LIST(1, 1, 1), NULL, 0), CT_ERR_ARG, "Padding length must be divisible by 2");
    CHECK_ERR(ct_pad(p, 8, LIST(1, 1, 1, 1, 1, 1, 1, 1), NULL, 0), CT_ERR_ARG, "Padding length too large");
    CHECK_ERR(ct_pad(p, 2, LIST(-3, -3), NULL, 0), CT_ERR_ARG, "start (0) + length (-2) exceeds dimension size (1).");
    CHECK_ERR(ct_pad(p, 2, LIST(4, 0), "reflect", 0), CT_ERR_ARG,
              "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (4, 0) at dimension 2 of input [1, 3, 4]");
    CHECK_ERR(ct_pad(p, 2, LIST(1, 1), "reflect", 2.0), CT_ERR_ARG, "Padding mode \"reflect\" doesn't take in value argument");
    CHECK_ERR(ct_pad(p, 2, LIST(1, 1), "foo", 0), CT_ERR_UNSUPPORTED, "Unrecognised padding mode foo");
    CHECK_ERR(ct_pad(ct_ones(CT_FLOAT32, 2), 2, LIST(1, 1), "reflect", 0), CT_ERR_UNSUPPORTED,
              "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
    CHECK_ERR(ct_pad(ct_ones(CT_INT64, 1, 3), 2, LIST(1, 1), "replicate", 0), CT_ERR_DTYPE, "\"replication_pad1d_cpu\" not implemented for 'Long'");
    CHECK_ERR(ct_pad(p, 2, LIST(-3, -2), "replicate", 0), CT_ERR_ARG, "input (W: 4) is too small. Calculated output W: -1");
    CHECK_ERR(ct_pad(p, 2, LIST(5, 0), "circular", 0), CT_ERR_ARG, "Padding value causes wrapping around more than once.");
    CHECK_ERR(ct_pad(ct_ones(CT_FLOAT32, 3, 4), 2, LIST(1, 1), "circular", 0), CT_ERR_ARG, "Invalid padding size, expected 0 but got 2");
    CHECK_ERR(ct_pad(ct_ones(CT_FLOAT32, 2, 0, 4), 2, LIST(1, 1), "replicate", 0), CT_ERR_SHAPE,
              "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: [2, 0, 4]");
    /* NULL propagates and keeps the first error */
    ct_clear_error();
    ct_tensor *bad = ct_index_select(x, 0, I64(9));
    CHECK(bad == NULL);
    CHECK(ct_cat(2, TS(bad, x), 0) == NULL && ct_last_error_code() == CT_ERR_INDEX);
    ct_clear_error();
}

/* ---------------------------------------------------------------- gradients */
static ct_tensor *g_index_select(ct_tensor *const *in, void *u) { (void)u; return ct_index_select(in[0], 1, I64(2, 0, 2)); }
static ct_tensor *g_gather(ct_tensor *const *in, void *u) { (void)u; return ct_gather(in[0], 0, ct_reshape(I64(2, 1, 0, 2, 2, 2), 2, 3)); }
static ct_tensor *g_scatter(ct_tensor *const *in, void *u) {
    (void)u;
    return ct_scatter(in[0], 1, ct_reshape(I64(2, 0, 1, 3), 2, 2), in[1]);
}
static ct_tensor *g_scatter_value(ct_tensor *const *in, void *u) { (void)u; return ct_scatter_value(in[0], 1, ct_reshape(I64(2, 0), 2, 1), 3.0); }
static ct_tensor *g_scatter_add(ct_tensor *const *in, void *u) {
    (void)u;
    return ct_scatter_add(in[0], 0, ct_reshape(I64(1, 1, 0, 2, 1, 1), 2, 3), in[1]);
}
static const char *g_reduce;
static int g_include_self;
static ct_tensor *g_scatter_reduce(ct_tensor *const *in, void *u) {
    (void)u;
    return ct_scatter_reduce(in[0], 0, ct_reshape(I64(1, 1, 0, 2, 1, 1, 0, 0), 2, 4), in[1], g_reduce, g_include_self);
}
static ct_tensor *g_index_add(ct_tensor *const *in, void *u) { (void)u; return ct_index_add(in[0], 0, I64(2, 0, 2), in[1], 0.5); }
static ct_tensor *g_index_add_bcast(ct_tensor *const *in, void *u) { (void)u; return ct_index_add(in[0], 1, I64(0, 2), in[1], 1.0); }
static ct_tensor *g_index_add_vec(ct_tensor *const *in, void *u) { (void)u; return ct_index_add(in[0], 0, I64(0, 2), in[1], -1.5); }
static ct_tensor *g_index_copy(ct_tensor *const *in, void *u) { (void)u; return ct_index_copy(in[0], 1, I64(3, 1), in[1]); }
static ct_tensor *g_index_fill(ct_tensor *const *in, void *u) { (void)u; return ct_index_fill(in[0], 1, I64(-1, 1), 2.0); }
static ct_tensor *g_index(ct_tensor *const *in, void *u) { (void)u; return ct_index(in[0], 2, TS(CT_SLICE_ALL, ct_reshape(I64(0, 3, 3, 1), 2, 2))); }
static ct_tensor *g_index_put(ct_tensor *const *in, void *u) { (void)u; return ct_index_put(in[0], 2, TS(I64(0, 2, 0), I64(1, 1, 3)), in[1], 0); }
static ct_tensor *g_index_put_acc(ct_tensor *const *in, void *u) { (void)u; return ct_index_put(in[0], 1, TS(I64(0, 2, 0)), in[1], 1); }
static ct_tensor *g_masked_select(ct_tensor *const *in, void *u) {
    (void)u;
    return ct_masked_select(in[0], ct_tensor_bool(((uint8_t[]){1, 0, 0, 1}), 4));
}
static ct_tensor *g_masked_scatter(ct_tensor *const *in, void *u) {
    (void)u;
    return ct_masked_scatter(in[0], ct_tensor_bool(((uint8_t[]){1, 0, 0, 1}), 4), in[1]);
}
static ct_tensor *g_take(ct_tensor *const *in, void *u) { (void)u; return ct_take(in[0], ct_reshape(I64(0, -1, 5, 0), 2, 2)); }
static ct_tensor *g_cat(ct_tensor *const *in, void *u) { (void)u; return ct_cat(3, TS(in[0], in[1], ct_zeros(CT_FLOAT64, 0)), 1); }
static ct_tensor *g_stack(ct_tensor *const *in, void *u) { (void)u; return ct_stack(2, TS(in[0], in[1]), -1); }
static ct_tensor *g_split(ct_tensor *const *in, void *u) {
    ct_tensor *p[4];
    (void)u;
    if (ct_split(in[0], 2, 1, p, 4) != 2) return NULL;
    return ct_add(ct_mul_scalar(p[0], 2.0), ct_mul(p[1], p[1]));
}
static ct_tensor *g_unbind(ct_tensor *const *in, void *u) {
    ct_tensor *p[4];
    (void)u;
    if (ct_unbind(in[0], 0, p, 4) != 3) return NULL;
    return ct_sub(ct_mul(p[0], p[2]), p[1]);
}
static ct_tensor *g_flip(ct_tensor *const *in, void *u) { (void)u; return ct_flip(in[0], 2, LIST(0, 1)); }
static ct_tensor *g_roll(ct_tensor *const *in, void *u) { (void)u; return ct_roll(in[0], 2, LIST(1, -3), 2, LIST(0, 1)); }
static ct_tensor *g_roll_flat(ct_tensor *const *in, void *u) { (void)u; return ct_roll(in[0], 1, LIST(5), 0, NULL); }
static ct_tensor *g_repeat(ct_tensor *const *in, void *u) { (void)u; return ct_repeat(in[0], 3, LIST(2, 1, 3)); }
static ct_tensor *g_tile(ct_tensor *const *in, void *u) { (void)u; return ct_tile(in[0], 1, LIST(2)); }
static ct_tensor *g_repeat_interleave(ct_tensor *const *in, void *u) { (void)u; return ct_repeat_interleave_tensor(in[0], I64(1, 0, 2), 0); }
static ct_tensor *g_tril(ct_tensor *const *in, void *u) { (void)u; return ct_tril(in[0], -1); }
static ct_tensor *g_triu(ct_tensor *const *in, void *u) { (void)u; return ct_triu(in[0], 1); }
static ct_tensor *g_diag(ct_tensor *const *in, void *u) { (void)u; return ct_diag(in[0], 1); }
static ct_tensor *g_diag_embed(ct_tensor *const *in, void *u) { (void)u; return ct_diag_embed(in[0], -1, 0, 2); }
static ct_tensor *g_pad_const(ct_tensor *const *in, void *u) { (void)u; return ct_pad(in[0], 4, LIST(1, -1, 2, 0), "constant", 0.5); }
static const char *g_pad_mode;
static ct_tensor *g_pad_mode_fn(ct_tensor *const *in, void *u) {
    (void)u;
    return ct_pad(ct_unsqueeze(in[0], 0), 4, LIST(2, 1, 1, 2), g_pad_mode, 0);
}
static ct_tensor *g_pad_circ(ct_tensor *const *in, void *u) { (void)u; return ct_pad(ct_unsqueeze(ct_unsqueeze(in[0], 0), 0), 4, LIST(2, 1, 1, 2), "circular", 0); }
static ct_tensor *g_pad_1d(ct_tensor *const *in, void *u) { (void)u; return ct_pad(in[0], 2, LIST(3, -1), g_pad_mode, 0); }

/* in-place index ops on a view of a non-leaf: the base's history goes through CopySlices */
static ct_tensor *g_inplace_view(ct_tensor *const *in, void *u) {
    (void)u;
    ct_tensor *b = ct_mul_scalar(in[0], 1.0);
    ct_tensor *v = ct_narrow(b, 0, 1, 2);
    ct_index_add_(v, 1, I64(3, 0, 3), in[1], 2.0);
    ct_scatter_(ct_select(b, 0, 0), 0, I64(2, 1), ct_narrow(in[1], 0, 0, 1) ? ct_reshape(ct_narrow(in[1], 1, 0, 2), 2) : NULL);
    ct_index_put_(ct_transpose(b, 0, 1), 2, TS(I64(0, 3), I64(2, 2)), ct_mul_scalar(ct_narrow(ct_reshape(in[1], -1), 0, 2, 2), 3.0), 1);
    ct_masked_scatter_(ct_select(b, 1, 1), ct_tensor_bool(((uint8_t[]){1, 0, 1}), 3), ct_reshape(in[1], -1));
    return ct_mul(b, b);
}
static ct_tensor *g_inplace_nonleaf(ct_tensor *const *in, void *u) {
    (void)u;
    /* (scatter_reduce_ saves its result: a later in-place write would be an error, as in PyTorch) */
    ct_tensor *b = ct_mul_scalar(in[0], 2.0);
    ct_index_copy_(b, 0, I64(2), ct_reshape(ct_narrow(ct_reshape(in[1], -1), 0, 0, 4), 1, 4));
    ct_scatter_reduce_(b, 1, ct_reshape(I64(0, 0, 1, 1, 2, 2), 3, 2), ct_reshape(in[1], 3, 2), "amax", 1);
    return b;
}

TEST(test_gradcheck) {
    ct_manual_seed(1);
    GC(g_index_select, 1, LEAF(3, 4));
    GC(g_index_select, 1, leaf_t(3, 4));
    GC(g_gather, 1, leaf_t(3, 4));
    GC(g_scatter, 2, LEAF(2, 4), LEAF(2, 2));
    GC(g_scatter_value, 1, leaf_t(2, 3));
    GC(g_scatter_add, 2, leaf_t(3, 3), LEAF(2, 3));
    static const char *reds[5] = {"sum", "prod", "mean", "amax", "amin"};
    for (int r = 0; r < 5; r++)
        for (int inc = 0; inc < 2; inc++) {
            g_reduce = reds[r];
            g_include_self = inc;
            /* distinct values so amax/amin are differentiable */
            ct_tensor *a = ct_requires_grad(ct_reshape(F64(0.5, -1.25, 2.0, 0.75, 1.5, -0.5, 3.0, -2.0, 1.0, 0.25, -3.5, 2.5), 3, 4));
            ct_tensor *b = ct_requires_grad(ct_reshape(F64(1.75, 0.3, -0.8, 2.2, -1.6, 0.9, 1.1, -2.4), 2, 4));
            CT_T_REPORT(ct_gradcheck(g_scatter_reduce, NULL, 2, TS(a, b), NULL), "gradcheck scatter_reduce %s include_self=%d: %s", reds[r], inc, ct_last_error());
        }
    /* prod with a zero in self and a single zero in src */
    g_reduce = "prod";
    g_include_self = 1;
    GC(g_scatter_reduce, 2, ct_requires_grad(ct_reshape(F64(0, 1, 2, 3, 4, 0, 6, 7, 8, 9, 10, 11), 3, 4)),
       ct_requires_grad(ct_reshape(F64(1, 0, 3, 4, 5, 6, 7, 8), 2, 4)));
    GC(g_index_add, 2, leaf_t(3, 4), LEAF(3, 4));
    GC(g_index_add_bcast, 2, LEAF(2, 3, 4), LEAF(4, 2));   /* source slice [4] broadcasts to [2, 4] */
    GC(g_index_add_bcast, 2, LEAF(2, 3, 4), LEAF(1, 2));
    GC(g_index_add_vec, 2, LEAF(3, 4), LEAF(2));
    GC(g_index_copy, 2, leaf_t(3, 4), LEAF(3, 2));
    GC(g_index_fill, 1, leaf_t(3, 4));
    GC(g_index, 1, leaf_t(3, 4));
    GC(g_index_put, 2, leaf_t(3, 4), LEAF(3));
    GC(g_index_put, 2, LEAF(3, 4), LEAF(1));
    GC(g_index_put_acc, 2, LEAF(3, 2), LEAF(3, 2));
    GC(g_masked_select, 1, leaf_t(3, 4));
    GC(g_masked_scatter, 2, leaf_t(3, 4), LEAF(2, 4));
    GC(g_take, 1, leaf_t(3, 2));
    GC(g_cat, 2, leaf_t(2, 3), LEAF(2, 2));
    GC(g_stack, 2, leaf_t(2, 3), LEAF(2, 3));
    GC(g_split, 1, leaf_t(3, 4));
    GC(g_unbind, 1, leaf_t(3, 4));
    GC(g_flip, 1, leaf_t(3, 4));
    GC(g_roll, 1, leaf_t(3, 4));
    GC(g_roll_flat, 1, leaf_t(3, 4));
    GC(g_repeat, 1, leaf_t(2, 3));
    GC(g_tile, 1, leaf_t(2, 3));
    GC(g_repeat_interleave, 1, leaf_t(3, 2));
    GC(g_tril, 1, leaf_t(3, 4));
    GC(g_triu, 1, LEAF(2, 3, 3));
    GC(g_diag, 1, leaf_t(3, 4));
    GC(g_diag, 1, LEAF(3));
    GC(g_diag_embed, 1, leaf_t(2, 3));
    GC(g_pad_const, 1, leaf_t(3, 4));
    GC(g_inplace_view, 2, LEAF(3, 4), LEAF(2, 3));
    GC(g_inplace_nonleaf, 2, LEAF(3, 4), LEAF(2, 3));
    static const char *modes[3] = {"reflect", "replicate", "circular"};
    for (int m = 0; m < 3; m++) {
        g_pad_mode = modes[m];
        CT_T_REPORT(ct_gradcheck(m == 2 ? g_pad_circ : g_pad_mode_fn, NULL, 1, TS(leaf_t(3, 4)), NULL), "gradcheck pad %s: %s", modes[m], ct_last_error());
        CT_T_REPORT(ct_gradcheck(g_pad_1d, NULL, 1, TS(LEAF(1, 2, 4)), NULL), "gradcheck pad 1d %s: %s", modes[m], ct_last_error());
    }
}
TEST(test_gradgradcheck) {
    ct_manual_seed(2);
    GGC(g_index_select, 1, LEAF(3, 4));
    GGC(g_gather, 1, leaf_t(3, 4));
    GGC(g_scatter, 2, LEAF(2, 4), LEAF(2, 2));
    GGC(g_scatter_add, 2, LEAF(3, 3), LEAF(2, 3));
    GGC(g_index_add, 2, LEAF(3, 4), LEAF(3, 4));
    GGC(g_index_put_acc, 2, LEAF(3, 2), LEAF(3, 2));
    GGC(g_index_put, 2, LEAF(3, 4), LEAF(3));
    GGC(g_masked_scatter, 2, LEAF(3, 4), LEAF(2, 4));
    GGC(g_masked_select, 1, LEAF(3, 4));
    GGC(g_take, 1, LEAF(3, 2));
    GGC(g_cat, 2, LEAF(2, 3), LEAF(2, 2));
    GGC(g_stack, 2, LEAF(2, 3), LEAF(2, 3));
    GGC(g_repeat, 1, LEAF(2, 3));
    GGC(g_roll, 1, LEAF(3, 4));
    GGC(g_diag_embed, 1, LEAF(2, 3));
    g_pad_mode = "reflect";
    GGC(g_pad_mode_fn, 1, LEAF(3, 4));
    g_pad_mode = "replicate";
    GGC(g_pad_mode_fn, 1, LEAF(3, 4));
    GGC(g_pad_const, 1, LEAF(3, 4));
    GGC(g_inplace_view, 2, LEAF(3, 4), LEAF(2, 3));
    g_reduce = "prod";
    g_include_self = 1;
    GGC(g_scatter_reduce, 2, LEAF(3, 4), LEAF(2, 4));
    g_reduce = "mean";
    g_include_self = 0;
    GGC(g_scatter_reduce, 2, LEAF(3, 4), LEAF(2, 4));
}

/* ---------------------------------------------------------------- in place */
TEST(test_inplace) {
    /* version counter and identity */
    ct_tensor *x = ct_zeros(CT_FLOAT32, 3, 2);
    uint32_t v0 = ct_version(x);
    CHECK(ct_index_fill_(x, 0, I64(1), 4.0) == x);
    CHECK(ct_version(x) == v0 + 1);
    CHECK_VALUES(x, VALS(0, 0, 4, 4, 0, 0), 6, 0);
    CHECK(ct_scatter_(x, 1, ct_reshape(I64(1, 0, 1), 3, 1), ct_ones(CT_FLOAT32, 3, 1)) == x);
    CHECK(ct_scatter_value_(x, 0, ct_reshape(I64(2), 1, 1), -1.0) == x);
    CHECK(ct_scatter_add_(x, 0, ct_reshape(I64(0, 0), 2, 1), ct_ones(CT_FLOAT32, 2, 1)) == x);
    CHECK(ct_index_add_(x, 1, I64(1), ct_ones(CT_FLOAT32, 3, 1), 10.0) == x);
    CHECK(ct_index_copy_(x, 0, I64(1), ct_full(CT_FLOAT32, 7, 1, 2)) == x);
    CHECK(ct_index_put_(x, 2, TS(I64(2), I64(1)), ct_scalar_tensor(5, CT_FLOAT32), 1) == x);
    CHECK(ct_masked_scatter_(x, ct_tensor_bool(((uint8_t[]){0, 1}), 2), ct_full(CT_FLOAT32, 3, 3)) == x);
    CHECK(ct_scatter_reduce_(x, 0, ct_reshape(I64(2, 2), 1, 2), ct_full(CT_FLOAT32, 2, 1, 2), "prod", 1) == x);
    CHECK_VALUES(x, VALS(2, 3, 7, 3, -2, 6), 6, 0);
    CHECK(ct_version(x) == v0 + 9);
    /* self-aliasing sources are read before they are overwritten */
    ct_tensor *y = AR(CT_FLOAT32, 4);
    ct_index_copy_(y, 0, I64(1, 2, 3, 0), y);
    CHECK_VALUES(y, VALS(3, 0, 1, 2), 4, 0);
    /* a leaf that requires grad refuses in-place writes */
    ct_tensor *l = LEAF(3);
    CHECK_ERR(ct_index_fill_(l, 0, I64(0), 1.0), CT_ERR_AUTOGRAD, "a leaf Variable that requires grad is being used in an in-place operation.");
    /* rebase history: gradients through in-place writes on a non-leaf */
    ct_tensor *a = ct_requires_grad(ct_reshape(F64(1, 2, 3, 4, 5, 6), 3, 2));
    ct_tensor *v = ct_requires_grad(F64(10, 20));
    ct_tensor *h = ct_mul_scalar(a, 2.0);
    ct_index_put_(h, 2, TS(I64(0, 2), I64(1, 0)), v, 0);      /* h[0,1] = 10, h[2,0] = 20 */
    CHECK(strcmp(ct_grad_fn_name(h), "IndexPutBackward0") == 0);
    ct_scatter_add_(h, 1, ct_reshape(I64(0, 0, 1), 3, 1), ct_mul(ct_reshape(v, 2, 1), ct_ones(CT_FLOAT64, 2, 1)) ?
                    ct_narrow(ct_cat(2, TS(ct_reshape(v, 2, 1), ct_reshape(v, 2, 1)), 0), 0, 0, 3) : NULL);
    ct_tensor *w = ct_reshape(F64(1, 2, 3, 4, 5, 6), 3, 2);
    ct_tensor *loss = ct_sum(ct_mul(h, w));
    CHECK(ct_backward(loss) == CT_OK);
    /* dL/da = 2*w except where index_put overwrote (0,1) and (2,0) */
    CHECK_VALUES(ct_grad(a), VALS(2, 0, 6, 8, 0, 12), 6, 1e-12);
    /* v: from index_put: w[0,1] + w[2,0] = 2, 5; from scatter_add src rows [v0, v1, v0] at
       (0,0), (1,0), (2,1): v0 gets w[0,0] + w[2,1] = 1 + 6, v1 gets w[1,0] = 3 */
    CHECK_VALUES(ct_grad(v), VALS(2 + 7, 5 + 3), 2, 1e-12);
    /* scatter_reduce_ saves its result: writing it again in place breaks backward, as in PyTorch */
    {
        ct_tensor *xx = ct_requires_grad(F64(1, 2, 3));
        ct_tensor *bb = ct_exp(xx);
        ct_scatter_reduce_(bb, 0, I64(0, 0), F64(5, 1), "amax", 1);
        ct_index_fill_(bb, 0, I64(2), 0.0);
        CHECK(ct_backward(ct_sum(bb)) != CT_OK && strstr(ct_last_error(), "which is output 0 of ScatterReduceBackward0"));
        ct_clear_error();
    }
    /* saved tensors modified in place are caught */
    ct_tensor *b = ct_requires_grad(F64(1, 2, 3));
    ct_tensor *idx = I64(0, 2);
    ct_tensor *s = ct_index_select(b, 0, idx);
    ct_index_fill_(idx, 0, I64(0), 1.0);
    CHECK(ct_backward(ct_sum(s)) != CT_OK && strstr(ct_last_error(), "modified by an inplace operation"));
    ct_clear_error();
}
TEST(test_dtypes) {
    /* copy kernels are dtype-agnostic; arithmetic ones run per dtype */
    static const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16, CT_INT64, CT_INT32, CT_INT16, CT_INT8, CT_UINT8};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        ct_dtype dt = dts[k];
        ct_tensor *x = AR(dt, 2, 3);
        CHECK_VALUES(ct_index_select(x, 1, I64(2)), VALS(2, 5), 2, 0);
        CHECK_VALUES(ct_flip(x, 1, LIST(0)), VALS(3, 4, 5, 0, 1, 2), 6, 0);
        CHECK_VALUES(ct_scatter_add(x, 0, ct_reshape(I64(1, 1, 1), 1, 3), ct_ones(dt, 1, 3)), VALS(0, 1, 2, 4, 5, 6), 6, 0);
        CHECK_VALUES(ct_index_put(x, 1, TS(I64(0, 0)), ct_ones(dt, 3), 1), VALS(2, 3, 4, 3, 4, 5), 6, 0);
        CHECK_VALUES(ct_scatter_reduce(x, 1, ct_reshape(I64(0, 0), 1, 2), ct_full(dt, 3, 1, 2), "amax", 1), VALS(3, 1, 2, 3, 4, 5), 6, 0);
        CHECK_VALUES(ct_cat(2, TS(x, x), 0), VALS(0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5), 12, 0);
        CHECK_VALUES(ct_pad(ct_unsqueeze(x, 0), 2, LIST(1, 0), "circular", 0), VALS(2, 0, 1, 2, 5, 3, 4, 5), 8, 0);
        CHECK(ct_get_dtype(ct_repeat(x, 2, LIST(2, 2))) == dt);
    }
    ct_tensor *b = ct_gt_scalar(AR(CT_FLOAT32, 4), 1.5);
    CHECK_VALUES(ct_scatter_add(b, 0, I64(0, 0), ct_tensor_bool(((uint8_t[]){1, 0}), 2)), VALS(1, 0, 1, 1), 4, 0);
    CHECK_VALUES(ct_index_put(b, 1, TS(I64(1)), ct_tensor_bool(((uint8_t[]){1}), 1), 1), VALS(0, 1, 1, 1), 4, 0);
    CHECK_VALUES(ct_tril(ct_ones(CT_BOOL, 2, 2), 0), VALS(1, 0, 1, 1), 4, 0);
}
TEST(test_memory_flat) {
    /* intermediates of forward and backward go away with their scope */
    int64_t t0 = ct_live_tensors(), b0 = ct_live_bytes();
    for (int it = 0; it < 3; it++) {
        CT_SCOPE {
            ct_tensor *a = LEAF(4, 5), *v = LEAF(2, 5);
            ct_tensor *h = ct_cat(2, TS(ct_index_select(a, 0, I64(3, 1)), v), 0);
            h = ct_pad(ct_unsqueeze(h, 0), 4, LIST(1, 1, 1, 1), "reflect", 0);
            ct_tensor *loss = ct_sum(ct_scatter_add(ct_zeros(CT_FLOAT64, 4, 5), 0, ct_zeros(CT_INT64, 2, 5), ct_narrow(ct_squeeze_dim(h, 0), 0, 0, 2)));
            ct_backward(loss);
        }
    }
    CHECK_EQ_INT(ct_live_tensors(), t0);
    CHECK_EQ_INT(ct_live_bytes(), b0);
}

/* Large tensors take the threaded paths in the OpenMP build: check them against loops. */
static double *dbl(ct_tensor *t) { return (double *)ct_data_ptr(ct_contiguous(t)); }
TEST(test_large) {
    enum { R = 300, C = 400 };
    ct_tensor *x = AR(CT_FLOAT64, R, C);
    const double *xp = dbl(x);
    ct_tensor *idx = ct_empty(CT_INT64, R), *g = ct_empty(CT_INT64, R, C), *s = ct_empty(CT_INT64, R, C);
    int64_t *ip = (int64_t *)ct_data_ptr(idx), *gp = (int64_t *)ct_data_ptr(g), *sp = (int64_t *)ct_data_ptr(s);
    for (int i = 0; i < R; i++) ip[i] = (i * 7 + 3) % R;
    for (int i = 0; i < R * C; i++) { gp[i] = (i * 13 + 5) % C; sp[i] = (i / C + i % C) % R; }
    int bad = 0;
    const double *r = dbl(ct_index_select(x, 0, idx));
    for (int i = 0; i < R && !bad; i++) for (int j = 0; j < C; j++) bad |= r[i * C + j] != xp[ip[i] * C + j];
    CHECK(!bad);
    r = dbl(ct_gather(x, 1, g));
    for (int i = 0; i < R * C && !bad; i++) bad |= r[i] != xp[(i / C) * C + gp[i]];
    CHECK(!bad);
    /* scatter_add with many duplicates per output */
    double *e = (double *)calloc((size_t)R * C, sizeof(double));
    for (int i = 0; i < R * C; i++) e[sp[i] * C + i % C] += xp[i];
    r = dbl(ct_scatter_add(ct_zeros(CT_FLOAT64, R, C), 0, s, x));
    for (int i = 0; i < R * C && !bad; i++) bad |= fabs(r[i] - e[i]) > 1e-6 * (1 + fabs(e[i]));
    CHECK(!bad);
    /* index_add with duplicate rows */
    memset(e, 0, sizeof(double) * R * C);
    ct_tensor *dup = ct_empty(CT_INT64, R);
    for (int i = 0; i < R; i++) ((int64_t *)ct_data_ptr(dup))[i] = i % 7;
    for (int i = 0; i < R; i++) for (int j = 0; j < C; j++) e[(i % 7) * C + j] += xp[i * C + j];
    r = dbl(ct_index_add(ct_zeros(CT_FLOAT64, R, C), 0, dup, x, 1.0));
    for (int i = 0; i < R * C && !bad; i++) bad |= fabs(r[i] - e[i]) > 1e-6 * (1 + fabs(e[i]));
    CHECK(!bad);
    r = dbl(ct_index_put(ct_zeros(CT_FLOAT64, R, C), 1, TS(dup), x, 1));
    for (int i = 0; i < R * C && !bad; i++) bad |= fabs(r[i] - e[i]) > 1e-6 * (1 + fabs(e[i]));
    CHECK(!bad);
    free(e);
    r = dbl(ct_flip(x, 2, LIST(0, 1)));
    for (int i = 0; i < R * C && !bad; i++) bad |= r[i] != xp[R * C - 1 - i];
    CHECK(!bad);
    r = dbl(ct_cat(2, TS(x, ct_neg(x)), 1));
    for (int i = 0; i < R && !bad; i++) for (int j = 0; j < 2 * C; j++) bad |= r[i * 2 * C + j] != (j < C ? xp[i * C + j] : -xp[i * C + j - C]);
    CHECK(!bad);
    r = dbl(ct_tril(x, 3));
    for (int i = 0; i < R && !bad; i++) for (int j = 0; j < C; j++) bad |= r[i * C + j] != (j <= i + 3 ? xp[i * C + j] : 0);
    CHECK(!bad);
    r = dbl(ct_repeat(x, 2, LIST(2, 3)));
    for (int i = 0; i < 2 * R && !bad; i++) for (int j = 0; j < 3 * C; j++) bad |= r[i * 3 * C + j] != xp[(i % R) * C + j % C];
    CHECK(!bad);
    r = dbl(ct_pad(ct_unsqueeze(x, 0), 4, LIST(2, 1, 1, 2), "reflect", 0));
    for (int i = 0; i < R + 3 && !bad; i++)
        for (int j = 0; j < C + 3; j++) {
            int si = i - 1, sj = j - 2;
            si = si < 0 ? -si : si >= R ? 2 * (R - 1) - si : si;
            sj = sj < 0 ? -sj : sj >= C ? 2 * (C - 1) - sj : sj;
            bad |= r[i * (C + 3) + j] != xp[si * C + sj];
        }
    CHECK(!bad);
    r = dbl(ct_pad(x, 2, LIST(1, 1), "constant", -1));
    for (int i = 0; i < R && !bad; i++) for (int j = 0; j < C + 2; j++) bad |= r[i * (C + 2) + j] != (j == 0 || j == C + 1 ? -1 : xp[i * C + j - 1]);
    CHECK(!bad);
    ct_tensor *ms = ct_masked_select(x, ct_eq_scalar(ct_remainder_scalar(x, 3.0), 0.0));
    CHECK_EQ_INT(ct_numel(ms), R * C / 3);
    r = dbl(ms);
    for (int i = 0; i < R * C / 3 && !bad; i++) bad |= r[i] != 3.0 * i;
    CHECK(!bad);
    /* data-dependent errors raised inside threaded loops */
    gp[R * C - 5] = C;
    CHECK_ERR(ct_gather(x, 1, g), CT_ERR_INDEX, "index 400 is out of bounds for dimension 1 with size 400");
    sp[R * C / 2] = -1;
    CHECK_ERR(ct_scatter_add(x, 0, s, x), CT_ERR_INDEX, "index -1 is out of bounds for dimension 0 with size 300");
}

int main(void) {
    ct_t_init();
    RUN(test_index_select_gather);
    RUN(test_scatter_family);
    RUN(test_index_add_copy_fill);
    RUN(test_advanced_index);
    RUN(test_masked_nonzero);
    RUN(test_cat_stack_split);
    RUN(test_flip_roll_repeat);
    RUN(test_tri_diag_onehot);
    RUN(test_pad_values);
    RUN(test_errors);
    RUN(test_gradcheck);
    RUN(test_gradgradcheck);
    RUN(test_inplace);
    RUN(test_dtypes);
    RUN(test_memory_flat);
    RUN(test_large);
    return ct_t_summary();
}
