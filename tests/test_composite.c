/* test_composite.c - ctensor_composite.h beyond its PyTorch fixtures (those run in
   the conformance runner: tests/fixtures/composite, 327 cases): gradcheck and
   gradgradcheck (float64 and complex128) of the differentiable functions, exact
   math for a few identities (kron's mixed product, meshgrid's grids, quantile's
   order statistics), that each function frees its intermediates before it returns
   (one result per call in the caller's scope), the out-array protocol of the
   splitting functions, and NULL / bad arguments. */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"
#include "ctensor_composite.h"

static ct_tensor *f_kron(ct_tensor *const *in, void *u) { (void)u; return ct_kron(in[0], in[1]); }
static ct_tensor *f_cov(ct_tensor *const *in, void *u) { (void)u; return ct_cov(in[0], 1, NULL, in[1]); }
static ct_tensor *f_corrcoef(ct_tensor *const *in, void *u) { (void)u; return ct_corrcoef(in[0]); }
static ct_tensor *f_quantile(ct_tensor *const *in, void *u) { (void)u; return ct_quantile(in[0], 0.35, 1, 0, "linear"); }
static ct_tensor *f_nanquantile(ct_tensor *const *in, void *u) { (void)u; return ct_nanquantile(in[0], 0.6, 0, 1, "midpoint"); }
static ct_tensor *f_cdist(ct_tensor *const *in, void *u) { (void)u; return ct_cdist(in[0], in[1], *(double *)u); }
static ct_tensor *f_logaddexp(ct_tensor *const *in, void *u) { (void)u; return ct_logaddexp(in[0], in[1]); }
static ct_tensor *f_logaddexp2(ct_tensor *const *in, void *u) { (void)u; return ct_logaddexp2(in[0], in[1]); }
static ct_tensor *f_renorm(ct_tensor *const *in, void *u) { (void)u; return ct_renorm(in[0], 2.0, 1, 0.7); }
static ct_tensor *f_trapezoid(ct_tensor *const *in, void *u) { (void)u; return ct_trapezoid(in[0], in[1], 1.0, 0); }
static ct_tensor *f_cumtrapz(ct_tensor *const *in, void *u) { (void)u; return ct_cumulative_trapezoid(in[0], NULL, 0.5, -1); }
static ct_tensor *f_diff(ct_tensor *const *in, void *u) { (void)u; return ct_diff(in[0], 2, 0, in[1], NULL); }
static ct_tensor *f_addr(ct_tensor *const *in, void *u) { (void)u; return ct_addr(in[0], in[1], in[2], 0.5, -2.0); }
static ct_tensor *f_block_diag(ct_tensor *const *in, void *u) { (void)u; return ct_block_diag(2, in); }
static ct_tensor *f_inner(ct_tensor *const *in, void *u) { (void)u; return ct_inner(in[0], in[1]); }
static ct_tensor *f_float_power(ct_tensor *const *in, void *u) { (void)u; return ct_float_power(in[0], in[1]); }
static ct_tensor *f_rot90_hstack(ct_tensor *const *in, void *u) {
    (void)u;
    ct_tensor *two[2] = {ct_rot90(in[0], 1, 0, 1), in[1]};
    return ct_hstack(2, two);
}
static ct_tensor *f_take(ct_tensor *const *in, void *u) { return ct_take_along_dim(in[0], (ct_tensor *)u, 1); }
static ct_tensor *f_lcse(ct_tensor *const *in, void *u) { return ct_logcumsumexp(in[0], *(int *)u); }
/* overlapping windows of a transposed view: the gradients of shared elements add up */
static ct_tensor *f_unfold(ct_tensor *const *in, void *u) { (void)u; return ct_mul(ct_unfold(ct_t(in[0]), 1, 3, 1), ct_unfold(ct_t(in[0]), 1, 3, 1)); }

static ct_tensor *leaf(ct_tensor *t) { return ct_requires_grad(t); }
static ct_tensor *r64(int64_t a, int64_t b) { return leaf(ct_randn(CT_FLOAT64, a, b)); }
static ct_tensor *c128(int64_t a, int64_t b) { return leaf(ct_randn(CT_COMPLEX128, a, b)); }

#define GRAD(fn, u, n, ...)                                                       \
    do {                                                                          \
        ct_tensor *in_[] = {__VA_ARGS__};                                         \
        CT_T_REPORT(ct_gradcheck(fn, u, n, in_, NULL) == 1, "gradcheck %s: %s", #fn, ct_last_error()); \
        ct_clear_error();                                                         \
        CT_T_REPORT(ct_gradgradcheck(fn, u, n, in_, NULL) == 1, "gradgradcheck %s: %s", #fn, ct_last_error()); \
        ct_clear_error();                                                         \
    } while (0)

TEST(test_gradcheck) {
    ct_manual_seed(7);
    GRAD(f_kron, NULL, 2, r64(2, 3), r64(3, 2));
    GRAD(f_kron, NULL, 2, c128(2, 2), c128(1, 3));
    ct_tensor *aw = ct_add_scalar(ct_abs(ct_randn(CT_FLOAT64, 5)), 0.1);
    GRAD(f_cov, NULL, 2, r64(3, 5), leaf(aw));
    GRAD(f_cov, NULL, 2, c128(2, 5), ct_detach(aw));
    GRAD(f_corrcoef, NULL, 1, r64(3, 6));
    {
        int d1 = 1, d0 = 0;
        GRAD(f_lcse, &d1, 1, r64(3, 5));
        GRAD(f_lcse, &d0, 1, leaf(ct_randn(CT_FLOAT64, 4, 2, 3)));
    }
    GRAD(f_quantile, NULL, 1, r64(3, 7));
    {
        ct_tensor *x = ct_randn(CT_FLOAT64, 5, 3);
        float nanv = NAN;
        (void)nanv;
        ct_tensor *m = ct_zeros(CT_BOOL, 5, 3);
        ct_fill_(ct_select(ct_select(m, 0, 2), 0, 1), 1.0);
        GRAD(f_nanquantile, NULL, 1, leaf(ct_masked_fill(x, m, NAN)));
    }
    double p2 = 2.0, p1 = 1.0, p3 = 3.0;
    GRAD(f_cdist, &p2, 2, r64(4, 3), r64(2, 3));
    GRAD(f_cdist, &p1, 2, r64(3, 2), r64(2, 2));
    GRAD(f_cdist, &p3, 2, r64(2, 3), r64(3, 3));
    GRAD(f_logaddexp, NULL, 2, r64(3, 4), r64(1, 4));
    GRAD(f_logaddexp2, NULL, 2, r64(3, 1), r64(3, 2));
    GRAD(f_renorm, NULL, 1, r64(3, 4));
    GRAD(f_trapezoid, NULL, 2, r64(4, 3), leaf(ct_cumsum(ct_abs(ct_randn(CT_FLOAT64, 4)), 0)));
    GRAD(f_cumtrapz, NULL, 1, r64(2, 5));
    GRAD(f_diff, NULL, 2, r64(4, 3), r64(1, 3));
    GRAD(f_addr, NULL, 3, r64(2, 3), leaf(ct_randn(CT_FLOAT64, 2)), leaf(ct_randn(CT_FLOAT64, 3)));
    GRAD(f_block_diag, NULL, 2, r64(2, 2), r64(1, 3));
    GRAD(f_inner, NULL, 2, c128(2, 3), c128(4, 3));
    GRAD(f_float_power, NULL, 2, leaf(ct_add_scalar(ct_abs(ct_randn(CT_FLOAT64, 3)), 0.5)), leaf(ct_randn(CT_FLOAT64, 3)));
    GRAD(f_rot90_hstack, NULL, 2, r64(3, 2), r64(2, 4));
    int64_t ix[] = {0, 2, 1, 1, 3, 0};
    ct_tensor *idx = ct_from_data(ix, CT_INT64, 3, 2);
    GRAD(f_take, idx, 1, r64(3, 4));
    GRAD(f_unfold, NULL, 1, r64(5, 2));
}

TEST(test_exact_math) {
    /* kron(A, B) (kron(C, D)) == kron(A C, B D) */
    ct_manual_seed(3);
    ct_tensor *A = ct_randn(CT_FLOAT64, 2, 3), *B = ct_randn(CT_FLOAT64, 2, 2);
    ct_tensor *C = ct_randn(CT_FLOAT64, 3, 2), *D = ct_randn(CT_FLOAT64, 2, 3);
    CHECK(ct_allclose(ct_mm(ct_kron(A, B), ct_kron(C, D)), ct_kron(ct_mm(A, C), ct_mm(B, D)), 1e-12, 1e-12) == 1);
    /* meshgrid "ij": g0[i][j] = x[i], g1[i][j] = y[j]; "xy" transposes both */
    double xv[] = {1, 2}, yv[] = {10, 20, 30};
    ct_tensor *x = ct_from_data(xv, CT_FLOAT64, 2), *y = ct_from_data(yv, CT_FLOAT64, 3);
    ct_tensor *g[2], *h[2];
    ct_tensor *xy[2] = {x, y};
    CHECK(ct_meshgrid(2, xy, NULL, g) == 0);
    double e0[] = {1, 1, 1, 2, 2, 2}, e1[] = {10, 20, 30, 10, 20, 30};
    CHECK_VALUES(ct_contiguous(g[0]), e0, 6, 0);
    CHECK_VALUES(ct_contiguous(g[1]), e1, 6, 0);
    CHECK(ct_meshgrid(2, xy, "xy", h) == 0);
    CHECK(ct_equal(h[0], ct_t(g[0])) == 1 && ct_equal(h[1], ct_t(g[1])) == 1);
    /* quantile at k / (n - 1) is the k-th order statistic, for every interpolation */
    double v[] = {5, -1, 3, 9, 0};
    static const char *const modes[] = {"linear", "lower", "higher", "midpoint", "nearest"};
    ct_tensor *t = ct_from_data(v, CT_FLOAT64, 5);
    for (int m = 0; m < 5; m++) {
        CHECK_CLOSE(ct_item(ct_quantile(t, 0.25, CT_DIM_NONE, 0, modes[m])), 0.0, 0);
        CHECK_CLOSE(ct_item(ct_quantile(t, 1.0, 0, 0, modes[m])), 9.0, 0);
    }
    CHECK_CLOSE(ct_item(ct_quantile(t, 0.375, 0, 0, "linear")), 1.5, 1e-15);
    CHECK_CLOSE(ct_item(ct_quantile(t, 0.375, 0, 0, "midpoint")), 1.5, 1e-15);
    CHECK_CLOSE(ct_item(ct_quantile(t, 0.375, 0, 0, "nearest")), 3.0, 0);   /* 1.5 rounds to 2 (even) */
    /* logaddexp without overflow, and at +-inf */
    double a[] = {1000, -INFINITY, INFINITY}, b[] = {1000, -INFINITY, 5};
    double e[] = {1000 + log(2.0), -INFINITY, INFINITY};
    CHECK_VALUES(ct_logaddexp(ct_from_data(a, CT_FLOAT64, 3), ct_from_data(b, CT_FLOAT64, 3)), e, 3, 1e-15);
    /* tril_indices enumerates tril's nonzeros in row-major order */
    ct_tensor *ti = ct_tril_indices(4, 3, -1, CT_INT64);
    double et[] = {1, 2, 2, 3, 3, 3, 0, 0, 1, 0, 1, 2};
    CHECK_VALUES(ti, et, 12, 0);
}

TEST(test_scopes_and_outputs) {
    /* one result per call: the intermediates are gone when the function returns */
    ct_tensor *x = ct_randn(CT_FLOAT32, 4, 6), *w = ct_rand(CT_FLOAT32, 6);
    int64_t live = ct_live_tensors();
    ct_tensor *c = ct_cov(x, 1, NULL, w);
    CHECK(c != NULL);
    CHECK_EQ_INT(ct_live_tensors(), live + 1);
    live = ct_live_tensors();
    CT_SCOPE {   /* a result that is a view keeps its base too; both go with the scope */
        ct_tensor *q = ct_nanquantile(x, 0.3, 1, 1, NULL);
        CHECK(q && ct_ndim(q) == 2 && ct_size(q, 1) == 1);
        CHECK(ct_live_tensors() <= live + 2);
    }
    CHECK_EQ_INT(ct_live_tensors(), live);
    /* and nothing left behind when one fails half-way */
    ct_tensor *fw = ct_ones(CT_INT64, 6), *negw = ct_neg(w);
    live = ct_live_tensors();
    CHECK_ERR(ct_cov(x, 1, fw, negw), CT_ERR_ARG, "aweights cannot be negative");
    CHECK_EQ_INT(ct_live_tensors(), live);
    /* splitting: the count needed when out is short; pieces are views */
    ct_tensor *parts[4];
    CHECK_EQ_INT(ct_tensor_split(x, 4, 1, parts, 2), 4);
    CHECK_EQ_INT(ct_tensor_split(x, 4, 1, parts, 4), 4);
    CHECK(parts[0]->storage == x->storage && ct_size(parts[0], 1) == 2 && ct_size(parts[3], 1) == 1);
    int64_t at[] = {-1};
    CHECK_EQ_INT(ct_tensor_split_indices(x, 1, at, 0, parts, 4), 2);
    CHECK(ct_size(parts[0], 0) == 3 && ct_size(parts[1], 0) == 1);
    CHECK_EQ_INT(ct_hsplit_indices(x, 0, NULL, parts, 4), 1);
    /* unique's three results stay (values, inverse, counts), nothing else */
    ct_tensor *u = ct_randint(0, 5, CT_INT64, 3, 4), *inv = NULL, *cnt = NULL;
    live = ct_live_tensors();
    ct_tensor *vals = ct_unique(u, &inv, &cnt);
    CHECK(vals && inv && cnt && ct_live_tensors() <= live + 4);   /* inverse: a view of its base */
    CHECK(ct_equal(ct_index_select(vals, 0, ct_ravel(inv)), ct_ravel(u)) == 1);
    CHECK_CLOSE(ct_item(ct_sum(cnt)), 12.0, 0);
    ct_tensor *lo, *hi;
    CHECK(ct_aminmax(x, CT_DIM_NONE, 1, &lo, &hi) == 0 && ct_ndim(lo) == 2 && ct_size(hi, 1) == 1);
}

TEST(test_bad_input) {
    ct_tensor *x = ct_randn(CT_FLOAT32, 2, 3), *out[2];
    CHECK_ERR(ct_kron(NULL, x), CT_ERR_ARG, "kron: NULL tensor");
    CHECK_ERR(ct_movedim(x, 1, (const int64_t[]){0}, (const int64_t[]){2}), CT_ERR_INDEX, "Dimension out of range");
    CHECK_ERR(ct_rot90(x, 1, 1, -1), CT_ERR_ARG, "rot90: expected rotation dims to be different");
    CHECK_ERR(ct_hstack(0, NULL), CT_ERR_ARG, "hstack expects a non-empty TensorList");
    CHECK_ERR(ct_hstack(2, (ct_tensor *const[]){x, NULL}), CT_ERR_ARG, "hstack: tensor 1 is NULL");
    CHECK(ct_meshgrid(1, &x, "ij", out) == -1 && strstr(ct_last_error(), "Expected 0D or 1D tensor"));
    ct_clear_error();
    CHECK(ct_meshgrid(0, NULL, "ij", out) == -1 && strstr(ct_last_error(), "non-empty TensorList"));
    ct_clear_error();
    CHECK(ct_tensor_split(ct_scalar_tensor(1.0, CT_FLOAT32), 2, 0, out, 2) == -1 && strstr(ct_last_error(), "at least a 1-dimensional"));
    ct_clear_error();
    CHECK(ct_aminmax(x, 0, 0, NULL, out) == -1 && strstr(ct_last_error(), "aminmax: NULL argument"));
    ct_clear_error();
    CHECK(ct_aminmax(x, 5, 0, out, out + 1) == -1 && strstr(ct_last_error(), "Dimension out of range"));
    ct_clear_error();
    CHECK_ERR(ct_combinations(ct_randn(CT_FLOAT32, 3), 99, 0), CT_ERR_ARG, "combinations: r = 99 is too large");
    CHECK_ERR(ct_logspace(0, 1, 3, 10.0, CT_COMPLEX64), CT_ERR_DTYPE, "logspace");
    CHECK_ERR(ct_tril_indices(3, 3, 0, CT_FLOAT32), CT_ERR_DTYPE, "tril_indices");
    CHECK_ERR(ct_quantile_t(x, ct_randn(CT_FLOAT32, 2, 2), 0, 0, NULL), CT_ERR_SHAPE, "q must be a scalar or 1D tensor");
    CHECK_ERR(ct_quantile_t(x, ct_full(CT_FLOAT32, 2.0, 1), 0, 0, NULL), CT_ERR_ARG, "q values must be in the range [0, 1]");
    CHECK_ERR(ct_quantile_t(x, ct_full(CT_FLOAT64, 0.5, 1), 0, 0, NULL), CT_ERR_DTYPE, "same dtype");
    CHECK_ERR(ct_cdist(x, ct_randn(CT_FLOAT64, 2, 3), 2.0), CT_ERR_DTYPE, "same dtype");
    CHECK_ERR(ct_take_along_dim(x, ct_zeros(CT_INT64, 3, 3), 1), CT_ERR_SHAPE, "do not broadcast");
    CHECK_ERR(ct_renorm(ct_randn(CT_COMPLEX64, 2, 2), 2.0, 0, 1.0), CT_ERR_DTYPE, "complex");
    CHECK_ERR(ct_trapezoid(ct_scalar_tensor(1.0, CT_FLOAT32), NULL, 1.0, -1), CT_ERR_INDEX, "has no dimensions");
    CHECK_ERR(ct_cov(x, 1, ct_ones(CT_INT64, 2, 3), NULL), CT_ERR_SHAPE, "one or fewer dimensions");
    CHECK_ERR(ct_positive(NULL), CT_ERR_ARG, "positive: NULL tensor");
    CHECK_ERR(ct_unfold(NULL, 0, 1, 1), CT_ERR_ARG, "unfold: NULL tensor");
    CHECK_ERR(ct_unfold(x, 1, 4, 1), CT_ERR_ARG, "unfold: maximum size for tensor at dimension 1 is 3 but size is 4");
    CHECK_ERR(ct_unfold(x, 0, 1, 0), CT_ERR_ARG, "unfold: step is 0 but must be > 0");
    CHECK_ERR(ct_unfold(x, 0, -1, 1), CT_ERR_ARG, "unfold: size is -1 but must be >= 0");
    CHECK_ERR(ct_unfold(x, 2, 1, 1), CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    {   /* a view: writes through it reach x */
        ct_tensor *w = ct_unfold(x, 1, 2, 1);
        CHECK(w && w->ndim == 3 && w->shape[1] == 2 && w->shape[2] == 2);
        ct_fill_(ct_select(ct_select(ct_select(w, 0, 1), 0, 1), 0, 1), 7.0);
        CHECK_CLOSE(ct_item(ct_select(ct_select(x, 0, 1), 0, 2)), 7.0, 0);
    }
}

/* searchsorted / bucketize against counting (exact): on a sorted sequence, the left
   index of v is the number of elements < v and the right one the number <= v; every
   integer dtype and float32/64, 1-D (the thread pool splits the values) and N-D
   (rows), with ties and values outside the range; the sorter; the scalar forms; the
   op is one dispatcher call (listeners and the tracer see it); bad input. */
static void count_listener(const ct_dispatch_event *e, void *u) {
    if (e->phase == CT_DISPATCH_EXIT && !strcmp(ct_op_schema_name(e->op), "aten::searchsorted.Tensor")) ++*(int *)u;
}
TEST(test_searchsorted) {
    const ct_dtype dts[7] = {CT_UINT8, CT_INT8, CT_INT16, CT_INT32, CT_INT64, CT_FLOAT32, CT_FLOAT64};
    for (int k = 0; k < 7; k++) {
        for (int nd = 1; nd <= 2; nd++) {
            int64_t R = nd == 1 ? 1 : 3, n = 37, m = 20000;
            ct_tensor *seq = ct_sort(ct_to(ct_randint_n(0, 60, CT_INT64, nd, nd == 1 ? (const int64_t[]){n} : (const int64_t[]){R, n}, NULL), dts[k]), -1, 0, NULL);
            ct_tensor *v = ct_to(ct_randint_n(-2, 63, CT_INT64, nd, nd == 1 ? (const int64_t[]){m} : (const int64_t[]){R, m}, NULL), dts[k]);
            if (dts[k] == CT_UINT8) v = ct_to(ct_randint_n(0, 63, CT_INT64, nd, nd == 1 ? (const int64_t[]){m} : (const int64_t[]){R, m}, NULL), dts[k]);
            for (int right = 0; right < 2; right++) {
                ct_tensor *got = ct_searchsorted(seq, v, right, right, NULL, NULL);   /* int32 on the right runs */
                /* count along the sequence's dim: [R, m, 1] against [R, 1, n] */
                ct_tensor *sv = ct_unsqueeze(nd == 1 ? ct_unsqueeze(seq, 0) : seq, 1), *vv = ct_unsqueeze(nd == 1 ? ct_unsqueeze(v, 0) : v, 2);
                ct_tensor *want = ct_to(ct_sum_dim(right ? ct_le(sv, vv) : ct_lt(sv, vv), 2, 0), CT_INT64);
                if (nd == 1) want = ct_squeeze_dim(want, 0);
                CT_T_REPORT(got && ct_get_dtype(got) == (right ? CT_INT32 : CT_INT64) && ct_equal(ct_to(got, CT_INT64), want) == 1,
                            "searchsorted %s, %d-D, right=%d", ct_dtype_name(dts[k]), nd, right);
            }
        }
    }
    /* the sorter, and bucketize = searchsorted with the operands swapped */
    ct_tensor *u = ct_randn(CT_FLOAT64, 4, 9), *perm = NULL, *sorted = ct_sort(u, -1, 0, &perm), *v = ct_randn(CT_FLOAT64, 4, 5);
    CHECK(ct_equal(ct_searchsorted(u, v, 0, 0, "right", perm), ct_searchsorted(sorted, v, 0, 1, NULL, NULL)) == 1);
    ct_tensor *b = ct_linspace(-1, 1, 5, CT_FLOAT32), *x = ct_randn(CT_FLOAT32, 3, 7);
    CHECK(ct_equal(ct_bucketize(x, b, 0, 1), ct_searchsorted(b, x, 0, 1, NULL, NULL)) == 1);
    ct_tensor *s0 = ct_searchsorted_scalar(ct_arange(0, 6, 1, CT_INT64), 2.5, 0, 0, NULL, NULL);
    CHECK(s0 && ct_ndim(s0) == 0 && ct_item_int(s0) == 3);
    ct_tensor *s1 = ct_searchsorted_scalar(ct_arange(0, 6, 1, CT_INT64), 2.0, 0, 1, NULL, NULL);
    CHECK(s1 && ct_item_int(s1) == 3);
    ct_tensor *b0 = ct_bucketize_scalar(-0.5, b, 1, 0);
    CHECK(b0 && ct_get_dtype(b0) == CT_INT32 && ct_item_int(b0) == 1);
    int calls = 0, h = ct_add_dispatch_listener(count_listener, &calls, 0);
    CHECK(ct_searchsorted(sorted, v, 0, 0, NULL, NULL) != NULL);
    ct_remove_dispatch_listener(h);
    CHECK_EQ_INT(calls, 1);
    CHECK(ct_op_find("aten::searchsorted.Tensor") >= 0);
    /* bad input: PyTorch's checks (the fixtures hold its words), and a sorter that
       points outside the sequence (PyTorch 1.13 reads out of bounds there) */
    CHECK_ERR(ct_searchsorted(NULL, v, 0, 0, NULL, NULL), CT_ERR_ARG, "searchsorted: NULL tensor");
    CHECK_ERR(ct_searchsorted(u, v, 0, 0, NULL, ct_full(CT_INT64, 9.0, 4, 9)), CT_ERR_INDEX, "sorter index out of range: its values run from 9 to 9 for a sequence of length 9");
    CHECK_ERR(ct_searchsorted(u, v, 0, 0, NULL, ct_full(CT_INT64, -1.0, 4, 9)), CT_ERR_INDEX, "sorter index out of range");
    CHECK_ERR(ct_searchsorted(u, v, 0, 0, "up", NULL), CT_ERR_ARG, "side can only be 'left' or 'right' but got up");
    CHECK_ERR(ct_bucketize(x, ct_ones(CT_FLOAT32, 2, 2), 0, 0), CT_ERR_SHAPE, "boundaries tensor must be 1 dimension, but got dim(2)");
    CHECK_ERR(ct_bucketize_scalar(1.0, NULL, 0, 0), CT_ERR_ARG, "bucketize: NULL tensor");
    CHECK_ERR(ct_searchsorted(ct_ones(CT_BOOL, 3), ct_ones(CT_BOOL, 2), 0, 0, NULL, NULL), CT_ERR_DTYPE, "\"searchsorted_out_cpu\" not implemented for 'Bool'");
}

/* logcumsumexp: against log(cumsum(exp(x))) in float64 where that does not
   overflow, and against a shift by the maximum where it would; float32 scanned in
   float64 (5000 steps: the float64 scan's results rounded once, bit for bit); the
   inner-dims path (columns in blocks); one dispatcher call; bad input. */
static void count_lcse(const ct_dispatch_event *e, void *u) {
    if (e->phase == CT_DISPATCH_EXIT && !strcmp(ct_op_schema_name(e->op), "aten::logcumsumexp")) ++*(int *)u;
}
TEST(test_logcumsumexp) {
    ct_manual_seed(31);
    ct_tensor *x = ct_randn(CT_FLOAT64, 3, 400, 5);
    for (int d = 0; d < 3; d++) {
        ct_tensor *want = ct_log(ct_cumsum(ct_exp(x), d));
        CT_T_REPORT(ct_allclose(ct_logcumsumexp(x, d), want, 1e-12, 1e-12) == 1, "logcumsumexp float64, dim %d", d);
    }
    ct_tensor *big = ct_add_scalar(ct_mul_scalar(ct_randn(CT_FLOAT64, 2, 300), 5.0), 1000.0);   /* exp overflows */
    ct_tensor *shift = ct_add_scalar(ct_log(ct_cumsum(ct_exp(ct_sub_scalar(big, 1000.0)), 1)), 1000.0);
    CHECK(ct_allclose(ct_logcumsumexp(big, 1), shift, 1e-12, 1e-12) == 1);
    ct_tensor *xf = ct_randn(CT_FLOAT32, 5000), *yf = ct_logcumsumexp(xf, 0), *yd = ct_logcumsumexp(ct_to(xf, CT_FLOAT64), 0);
    CHECK(ct_equal(yf, ct_to(yd, CT_FLOAT32)) == 1);   /* float64 steps, one rounding */
    ct_tensor *t = ct_transpose(x, 0, 2);                            /* strided: made contiguous first */
    CHECK(ct_equal(ct_logcumsumexp(t, 1), ct_transpose(ct_logcumsumexp(x, 1), 0, 2)) == 1);
    int calls = 0, h = ct_add_dispatch_listener(count_lcse, &calls, 0);
    CHECK(ct_logcumsumexp(x, 2) != NULL);
    ct_remove_dispatch_listener(h);
    CHECK_EQ_INT(calls, 1);
    CHECK_ERR(ct_logcumsumexp(NULL, 0), CT_ERR_ARG, "logcumsumexp: NULL tensor");
    CHECK_ERR(ct_logcumsumexp(x, 3), CT_ERR_INDEX, "logcumsumexp: Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    CHECK_ERR(ct_logcumsumexp(ct_ones(CT_INT64, 3), 0), CT_ERR_DTYPE, "\"logcumsumexp_out_cpu\" not implemented for 'Long'");
    CHECK_ERR(ct_logcumsumexp(ct_ones(CT_FLOAT16, 3), 0), CT_ERR_DTYPE, "\"logcumsumexp_out_cpu\" not implemented for 'Half'");
}

/* histogram: exact counts of integers in unit bins, the edges in the caller's
   scope, the counts of histc on the same equal bins, weights summing to the
   weighted count, density integrating to 1; bad input */
TEST(test_histogram) {
    ct_manual_seed(32);
    ct_tensor *x = ct_to(ct_randint_n(0, 10, CT_INT64, 1, (const int64_t[]){5000}, NULL), CT_FLOAT64);
    ct_tensor *edges = NULL, *h = ct_histogram(x, 10, (const double[]){0.0, 10.0}, NULL, 0, &edges);
    CHECK(h && edges && ct_numel(edges) == 11);
    CHECK(ct_equal(h, ct_to(ct_bincount(ct_to(x, CT_INT64), NULL, 10), CT_FLOAT64)) == 1);
    ct_tensor *f = ct_randn(CT_FLOAT32, 3, 1000);
    CHECK(ct_equal(ct_histogram(f, 13, (const double[]){-2.0, 2.0}, NULL, 0, NULL), ct_histc(f, 13, -2.0, 2.0)) == 1);
    ct_tensor *w = ct_rand(CT_FLOAT64, 5000);
    ct_tensor *hw = ct_histogram(x, 5, NULL, w, 0, NULL);
    CHECK(hw && fabs(ct_item(ct_sum(hw)) - ct_item(ct_sum(w))) < 1e-9);
    ct_tensor *e2 = NULL, *hd = ct_histogram_bins(x, ct_from_data_n((const double[]){0.0, 0.5, 4.0, 9.0}, CT_FLOAT64, 1, (const int64_t[]){4}), NULL, 1, &e2);
    CHECK(hd && e2 && fabs(ct_item(ct_sum(ct_mul(hd, ct_diff(e2, 1, 0, NULL, NULL)))) - 1.0) < 1e-12);
    CHECK_ERR(ct_histogram(NULL, 3, NULL, NULL, 0, NULL), CT_ERR_ARG, "histogram: NULL tensor");
    CHECK_ERR(ct_histogram(x, -1, NULL, NULL, 0, NULL), CT_ERR_ARG, "bins must be > 0, but got -1");
    CHECK_ERR(ct_histogram(ct_ones(CT_INT32, 3), 3, NULL, NULL, 0, NULL), CT_ERR_DTYPE, "\"histogramdd\" not implemented for 'Int'");
    CHECK_ERR(ct_histogram_bins(x, ct_ones(CT_FLOAT64, 0), NULL, 0, NULL), CT_ERR_ARG, "bins tensor should have at least 1 element");
    CHECK_ERR(ct_histogram(x, 3, NULL, ct_ones(CT_FLOAT64, 2), 0, NULL), CT_ERR_SHAPE, "input with shape [5000, 1] and weight with shape [2]");
}

/* unique along a dim: the slices picked back by the inverse rebuild x, the counts
   add up, the slices come out sorted and distinct; bad input */
TEST(test_unique_dim) {
    ct_manual_seed(33);
    ct_tensor *x = ct_randint_n(0, 2, CT_INT64, 3, (const int64_t[]){3, 50, 2}, NULL);
    for (int d = 0; d < 3; d++) {
        ct_tensor *inv = NULL, *cnt = NULL, *u = ct_unique_dim(x, d, &inv, &cnt);
        CHECK(u && inv && cnt);
        if (!u || !inv || !cnt) continue;
        CHECK(ct_equal(ct_index_select(u, d, inv), x) == 1);
        CHECK_EQ_INT((int)ct_item_int(ct_sum(cnt)), (int)ct_size(x, d));
        ct_tensor *again = ct_unique_dim(u, d, NULL, NULL);
        CHECK(again && ct_equal(again, u) == 1);   /* already distinct and sorted */
    }
    ct_tensor *inv = NULL, *c = ct_unique_consecutive_dim(x, 1, &inv, NULL);
    CHECK(c && ct_equal(ct_index_select(c, 1, inv), x) == 1);
    CHECK_ERR(ct_unique_dim(NULL, 0, NULL, NULL), CT_ERR_ARG, "unique: NULL tensor");
    CHECK_ERR(ct_unique_dim(ct_scalar_tensor(1.0, CT_FLOAT32), 0, NULL, NULL), CT_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
    CHECK_ERR(ct_unique_consecutive_dim(x, -4, NULL, NULL), CT_ERR_INDEX, "expected to be in range of [-3, 2], but got -4");
}

int main(void) {
    ct_t_init();
    int64_t live0 = ct_live_tensors();
    CT_SCOPE { RUN(test_gradcheck); }
    CT_SCOPE { RUN(test_exact_math); }
    CT_SCOPE { RUN(test_scopes_and_outputs); }
    CT_SCOPE { RUN(test_bad_input); }
    CT_SCOPE { RUN(test_searchsorted); }
    CT_SCOPE { RUN(test_logcumsumexp); }
    CT_SCOPE { RUN(test_histogram); }
    CT_SCOPE { RUN(test_unique_dim); }
    CHECK_EQ_INT(ct_live_tensors(), live0);
    return ct_t_summary();
}
