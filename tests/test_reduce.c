/* Reductions, scans and sorting: values, dtypes, NaN and tie rules, errors,
   gradcheck / gradgradcheck of every differentiable op, large inputs that take
   the vectorized and threaded paths, and memory that returns to its start. */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"

static ct_tensor *f64(const double *v, int ndim, const int64_t *shape) { return ct_from_data_n(v, CT_FLOAT64, ndim, shape); }
#define T64(shape_list, ...) f64(((const double[]){__VA_ARGS__}), CT_DIMS shape_list)
#define DIMS(...) CT_DIMS(__VA_ARGS__)

/* a float64 tensor with reproducible values away from ties */
static ct_tensor *rnd64(int ndim, const int64_t *shape, uint64_t seed) {
    ct_generator g;
    ct_generator_init(&g, seed);
    return ct_normal_(ct_empty_n(CT_FLOAT64, ndim, shape), 0.0, 1.0, &g);
}
static ct_tensor *leaf(ct_tensor *x) { return ct_requires_grad(ct_detach(x)); }

TEST(test_sum_mean) {
    ct_tensor *x = T64((2, 3), 1, 2, 3, 4, 5, 6);
    CHECK_CLOSE(ct_item(ct_sum(x)), 21, 0);
    double e0[] = {5, 7, 9}, e1[] = {6, 15};
    CHECK_VALUES(ct_sum_dim(x, 0, 0), e0, 3, 0);
    CHECK_VALUES(ct_sum_dim(x, -1, 1), e1, 2, 0);
    CHECK_EQ_INT(ct_ndim(ct_sum_dim(x, -1, 1)), 2);
    double m1[] = {2, 5};
    CHECK_VALUES(ct_mean_dim(x, 1, 0), m1, 2, 1e-15);
    CHECK_VALUES(ct_sum_dims(ct_t(x), 1, CT__INTS(1), 0), e0, 3, 0);  /* transposed view */
    CHECK_CLOSE(ct_item(ct_sum_dims(x, 2, CT__INTS(0, 1), 1)), 21, 0);
    CHECK_EQ_INT(ct_ndim(ct_sum_dims(x, 0, NULL, 1)), 2);  /* empty list: all dims */
    /* dtypes: integers sum to int64, dtype= casts first */
    CHECK_EQ_INT(ct_sum(ct_ones(CT_INT32, 3))->dtype, CT_INT64);
    CHECK_EQ_INT(ct_sum(ct_ones(CT_BOOL, 3))->dtype, CT_INT64);
    CHECK_EQ_INT(ct_sum(ct_ones(CT_FLOAT16, 3))->dtype, CT_FLOAT16);
    ct_tensor *i8 = ct_full(CT_INT8, 100, 2);
    ct_tensor *s8 = ct_sum_dtype(i8, 0, NULL, 0, CT_INT8);
    CHECK_EQ_INT(s8->dtype, CT_INT8);
    CHECK_EQ_INT(ct_item_int(s8), -56);  /* wraps like PyTorch */
    CHECK_CLOSE(ct_item(ct_sum_dtype(T64((2), 1.5, 2.5), 0, NULL, 0, CT_INT64)), 3, 0);
    CHECK_EQ_INT(ct_mean_dtype(ct_ones(CT_INT64, 4), 0, NULL, 0, CT_FLOAT64)->dtype, CT_FLOAT64);
    /* empty: sum 0, mean NaN */
    ct_tensor *e = ct_zeros(CT_FLOAT32, 0, 3);
    CHECK_CLOSE(ct_item(ct_sum(e)), 0, 0);
    CHECK(isnan(ct_item(ct_mean(e))));
    CHECK_EQ_INT(ct_numel(ct_sum_dim(e, 1, 0)), 0);
    double z3[] = {0, 0, 0};
    CHECK_VALUES(ct_sum_dim(e, 0, 0), z3, 3, 0);
    /* nansum / nanmean */
    ct_tensor *n = T64((2, 2), 1, NAN, 3, 4);
    double ns[] = {1, 7}, nm[] = {1, 3.5};
    CHECK_VALUES(ct_nansum(n, 1, CT__INTS(1), 0), ns, 2, 0);
    CHECK_VALUES(ct_nanmean(n, 1, CT__INTS(1), 0), nm, 2, 1e-15);
    CHECK(isnan(ct_item(ct_sum(n))));
    CHECK_EQ_INT(ct_nansum(ct_ones(CT_INT32, 2), 0, NULL, 0)->dtype, CT_INT64);
    /* errors */
    CHECK_ERR(ct_mean(ct_ones(CT_INT64, 2)), CT_ERR_DTYPE, "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long");
    CHECK_ERR(ct_sum_dim(x, 2, 0), CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    CHECK_ERR(ct_sum_dims(x, 2, CT__INTS(1, -1), 0), CT_ERR_ARG, "dim 1 appears multiple times in the list of dims");
    CHECK_ERR(ct_nanmean(ct_ones(CT_INT64, 2), 0, NULL, 0), CT_ERR_DTYPE, "nanmean(): expected input to have floating point dtype but got Long");
    CHECK_ERR(ct_nansum(x, 1, CT__INTS(-3), 0), CT_ERR_INDEX, "Dimension out of range");
}

/* the float32 sum is blocked: 2^24 + small values stay accurate */
TEST(test_sum_accuracy) {
    int64_t n = 1 << 20;
    ct_tensor *x = ct_empty(CT_FLOAT32, n);
    float *p = (float *)ct_data_ptr(x);
    double ref = 0;
    for (int64_t i = 0; i < n; i++) { p[i] = 1.0f + (float)(i % 1000) * 1e-4f; ref += p[i]; }
    double got = ct_item(ct_sum(x));
    CHECK(fabs(got - ref) / ref < 1e-6);
    /* the same data as a transposed 2-D view, along each dim, and mean */
    ct_tensor *m = ct_t(ct_reshape(x, 1024, 1024));
    CHECK(fabs(ct_item(ct_sum(m)) - ref) / ref < 1e-6);
    CHECK(fabs(ct_item(ct_sum(ct_sum_dim(m, 0, 0))) - ref) / ref < 1e-6);
    CHECK(fabs(ct_item(ct_sum(ct_sum_dim(m, 1, 0))) - ref) / ref < 1e-6);
    CHECK(fabs(ct_item(ct_mean(x)) - ref / (double)n) < 1e-6);
    /* a long vertical sum (dim 0 of [n, 2]) */
    ct_tensor *v = ct_sum_dim(ct_reshape(x, n / 2, 2), 0, 0);
    CHECK(fabs(ct_item(ct_sum(v)) - ref) / ref < 1e-6);
    /* nansum of a large input with NaNs */
    p[5] = NAN;
    p[n - 3] = NAN;
    double ref2 = ref - (1.0f + 5 * 1e-4f) - (1.0f + (float)((n - 3) % 1000) * 1e-4f);
    CHECK(fabs(ct_item(ct_nansum(x, 0, NULL, 0)) - ref2) / ref2 < 1e-6);
    CHECK(isnan(ct_item(ct_sum(x))));
}

/* large inputs through every kernel against float64 references */
TEST(test_large_vs_f64) {
    ct_tensor *xd = rnd64(2, CT__INTS(300, 517), 7);
    ct_tensor *xf = ct_to(xd, CT_FLOAT32);
    ct_tensor *xt = ct_t(xf);  /* non-contiguous */
    for (int dim = 0; dim < 2; dim++) {
        CHECK(ct_allclose(ct_to(ct_softmax(xt, dim), CT_FLOAT64), ct_softmax(ct_t(xd), dim), 1e-5, 1e-7) == 1);
        CHECK(ct_allclose(ct_to(ct_log_softmax(xf, dim), CT_FLOAT64), ct_log_softmax(xd, dim), 1e-5, 1e-5) == 1);
        CHECK(ct_allclose(ct_to(ct_softmax(xf, dim), CT_FLOAT64), ct_softmax(xd, dim), 1e-5, 1e-7) == 1);
        CHECK(ct_allclose(ct_to(ct_sum_dim(xt, dim, 0), CT_FLOAT64), ct_sum_dim(ct_t(xd), dim, 0), 1e-5, 1e-5) == 1);
        CHECK(ct_allclose(ct_to(ct_amax(xt, 1, CT__INTS(dim), 0), CT_FLOAT64), ct_amax(ct_t(xd), 1, CT__INTS(dim), 0), 1e-6, 0) == 1);
        CHECK(ct_allclose(ct_to(ct_logsumexp(xf, 1, CT__INTS(dim), 0), CT_FLOAT64), ct_logsumexp(xd, 1, CT__INTS(dim), 0), 1e-5, 1e-5) == 1);
        CHECK(ct_allclose(ct_to(ct_var_dims(xt, 1, CT__INTS(dim), 1, 0), CT_FLOAT64), ct_var_dims(ct_t(xd), 1, CT__INTS(dim), 1, 0), 1e-5, 1e-6) == 1);
        CHECK(ct_allclose(ct_to(ct_cumsum(xt, dim), CT_FLOAT64), ct_cumsum(ct_t(xd), dim), 1e-5, 1e-4) == 1);
        CHECK(ct_equal(ct_argmax_dim(xf, dim, 0), ct_argmax_dim(xd, dim, 0)) == 1);
        CHECK(ct_equal(ct_argsort(ct_t(xd), dim, 1), ct_argsort(ct_contiguous(ct_t(xd)), dim, 1)) == 1);
    }
    /* NaN in long rows and columns (the vectorized max/min and sums) */
    for (int dt = 0; dt < 2; dt++) {
        ct_tensor *q = ct_clone(dt ? xd : xf);
        ct_fill_(ct_select(ct_select(q, 0, 117), 0, 301), NAN);
        CHECK(isnan(ct_item(ct_amax(q, 0, NULL, 0))) && isnan(ct_item(ct_min(q))));
        ct_tensor *r1 = ct_amin(q, 1, CT__INTS(1), 0), *r0 = ct_amax(q, 1, CT__INTS(0), 0);
        CHECK(isnan(ct_item(ct_select(r1, 0, 117))) && !isnan(ct_item(ct_select(r1, 0, 116))));
        CHECK(isnan(ct_item(ct_select(r0, 0, 301))) && !isnan(ct_item(ct_select(r0, 0, 300))));
        CHECK_EQ_INT(ct_item_int(ct_sum(ct_isnan(ct_sum_dim(q, 0, 0)))), 1);
        CHECK_EQ_INT(ct_item_int(ct_sum(ct_isnan(ct_nansum(q, 1, CT__INTS(0), 0)))), 0);
    }
    /* the vectorized exp over the float range, down to denormal results:
       softmax along dim 0 of [[0...], [x...]] is e^x / (1 + e^x) */
    int64_t n = 20000;
    ct_tensor *xs = ct_linspace(-104, 30, n, CT_FLOAT32);
    ct_tensor *two = ct_zeros(CT_FLOAT32, 2, n);
    ct_copy_(ct_select(two, 0, 1), xs);
    ct_tensor *sf = ct_contiguous(ct_to(ct_select(ct_softmax(two, 0), 0, 1), CT_FLOAT64));
    ct_tensor *sd = ct_contiguous(ct_select(ct_softmax(ct_to(two, CT_FLOAT64), 0), 0, 1));
    const double *a = (const double *)ct_data_ptr(sf), *b = (const double *)ct_data_ptr(sd);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double tol = 3e-7 * b[i] + 3e-45;
        if (fabs(a[i] - b[i]) > tol) { if (!bad) printf("exp mismatch at %lld: %g vs %g\n", (long long)i, a[i], b[i]); bad++; }
    }
    CHECK_EQ_INT(bad, 0);
}

TEST(test_prod) {
    ct_tensor *x = T64((2, 3), 1, 2, 3, 4, 5, 6);
    CHECK_CLOSE(ct_item(ct_prod(x)), 720, 0);
    double e1[] = {6, 120};
    CHECK_VALUES(ct_prod_dim(x, 1, 0), e1, 2, 0);
    CHECK_EQ_INT(ct_prod(ct_ones(CT_INT8, 3))->dtype, CT_INT64);
    CHECK_EQ_INT(ct_prod(ct_ones(CT_BOOL, 3))->dtype, CT_INT64);
    int64_t big[] = {(int64_t)1 << 40, (int64_t)1 << 40, 3};
    CHECK_EQ_INT(ct_item_int(ct_prod(ct_tensor_i64(big, 3))), 0);  /* wraps like PyTorch */
    CHECK_CLOSE(ct_item(ct_prod(ct_zeros(CT_FLOAT32, 0))), 1, 0);
    CHECK_EQ_INT(ct_item_int(ct_prod_dtype(T64((3), 1.5, 2.0, 3.7), 0, NULL, 0, CT_INT64)), 6);
    CHECK_ERR(ct_prod_dim(x, 2, 0), CT_ERR_INDEX, "prod: Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(test_var_std) {
    ct_tensor *x = T64((2, 3), 1, 2, 4, 3, 3, 3);
    double v1[] = {7.0 / 3.0, 0}, v0[] = {14.0 / 9.0, 0};
    CHECK_VALUES(ct_var_dims(x, 1, CT__INTS(1), 1, 0), v1, 2, 1e-14);
    CHECK_VALUES(ct_var_dims(x, 1, CT__INTS(-1), 0, 0), v0, 2, 1e-14);
    double s1[] = {sqrt(7.0 / 3.0), 0};
    CHECK_VALUES(ct_std_dims(x, 1, CT__INTS(1), 1, 0), s1, 2, 1e-14);
    CHECK(isnan(ct_item(ct_var(ct_ones(CT_FLOAT32, 1)))));   /* N - correction == 0 */
    CHECK(isinf(ct_item(ct_var_dims(T64((2), 1, 2), 0, NULL, 2, 0))));
    ct_tensor *mean = NULL;
    ct_tensor *v = ct_var_mean(x, 1, CT__INTS(1), 1, 1, &mean);
    double m[] = {7.0 / 3.0, 3};
    CHECK_VALUES(mean, m, 2, 1e-14);
    CHECK_EQ_INT(ct_ndim(v), 2);
    ct_tensor *sd = ct_std_mean(x, 0, NULL, 0, 0, &mean);
    CHECK_CLOSE(ct_item(mean), 8.0 / 3.0, 1e-14);
    CHECK_CLOSE(ct_item(sd), sqrt(48.0 / 6 - 64.0 / 9), 1e-14);
    CHECK_EQ_INT(ct_var(ct_ones(CT_BFLOAT16, 3))->dtype, CT_BFLOAT16);
    CHECK_ERR(ct_var(ct_ones(CT_INT64, 3)), CT_ERR_DTYPE, "std and var only support floating point and complex dtypes");
    CHECK_ERR(ct_std_dims(x, 1, CT__INTS(5), 1, 0), CT_ERR_INDEX, "Dimension out of range");
}

TEST(test_minmax) {
    ct_tensor *x = T64((2, 4), 1, 3, 3, -2, -4, -4, 0.5, 0.5);
    CHECK_CLOSE(ct_item(ct_max(x)), 3, 0);
    CHECK_CLOSE(ct_item(ct_min(x)), -4, 0);
    ct_tensor *idx = NULL;
    ct_tensor *v = ct_max_dim(x, 1, 0, &idx);
    double ev[] = {3, 0.5}, ei[] = {1, 2};  /* ties: first index */
    CHECK_VALUES(v, ev, 2, 0);
    CHECK_VALUES(idx, ei, 2, 0);
    CHECK_EQ_INT(idx->dtype, CT_INT64);
    v = ct_min_dim(x, -1, 1, &idx);
    double mv[] = {-2, -4}, mi[] = {3, 0};
    CHECK_VALUES(v, mv, 2, 0);
    CHECK_VALUES(idx, mi, 2, 0);
    CHECK_EQ_INT(ct_ndim(v), 2);
    CHECK(ct_max_dim(x, 0, 0, NULL) != NULL);  /* indices may be NULL */
    double am[] = {1, 3, 3, 0.5};
    CHECK_VALUES(ct_amax(x, 1, CT__INTS(0), 0), am, 4, 0);
    CHECK_CLOSE(ct_item(ct_amin(x, 2, CT__INTS(0, 1), 0)), -4, 0);
    CHECK_EQ_INT(ct_item_int(ct_argmax(x)), 1);
    CHECK_EQ_INT(ct_item_int(ct_argmin(x)), 4);
    double ai[] = {1, 2};
    CHECK_VALUES(ct_argmax_dim(x, 1, 0), ai, 2, 0);
    CHECK_EQ_INT(ct_item_int(ct_argmax(ct_t(x))), 2);  /* flattened in logical order: x.t()[1][0] */
    /* NaN propagates and its first index wins */
    ct_tensor *n = T64((5), 1, NAN, 3, NAN, 0);
    CHECK(isnan(ct_item(ct_max(n))));
    CHECK(isnan(ct_item(ct_amin(n, 0, NULL, 0))));
    CHECK_EQ_INT(ct_item_int(ct_argmax(n)), 1);
    CHECK_EQ_INT(ct_item_int(ct_argmin(n)), 1);
    /* integer and bool inputs keep their dtype and exact values */
    int64_t big[] = {INT64_MAX - 1, INT64_MAX, INT64_MAX - 2};
    CHECK_EQ_INT(ct_item_int(ct_max(ct_tensor_i64(big, 3))), INT64_MAX);
    CHECK_EQ_INT(ct_item_int(ct_argmax(ct_tensor_i64(big, 3))), 1);
    CHECK_EQ_INT(ct_max(ct_ones(CT_BOOL, 2))->dtype, CT_BOOL);
    CHECK_EQ_INT(ct_amax(ct_ones(CT_FLOAT16, 2), 0, NULL, 0)->dtype, CT_FLOAT16);
    /* 0-d and empty */
    CHECK_CLOSE(ct_item(ct_max_dim(ct_scalar_tensor(2.5, CT_FLOAT64), 0, 0, &idx)), 2.5, 0);
    CHECK_EQ_INT(ct_item_int(idx), 0);
    ct_tensor *e = ct_zeros(CT_FLOAT32, 0, 3);
    CHECK_EQ_INT(ct_numel(ct_max_dim(e, 1, 0, &idx)), 0);
    CHECK_ERR(ct_max(e), CT_ERR_ARG, "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
    CHECK_ERR(ct_min_dim(e, 0, 0, NULL), CT_ERR_INDEX, "min(): Expected reduction dim 0 to have non-zero size.");
    CHECK_ERR(ct_amax(e, 0, NULL, 0), CT_ERR_ARG, "amax(): Expected reduction dim to be specified for input.numel() == 0.");
    CHECK_ERR(ct_amin(e, 1, CT__INTS(0), 0), CT_ERR_INDEX, "amin(): Expected reduction dim 0 to have non-zero size.");
    CHECK_ERR(ct_argmax(e), CT_ERR_INDEX, "argmax(): Expected reduction dim to be specified for input.numel() == 0.");
    CHECK_ERR(ct_argmin_dim(e, 0, 0), CT_ERR_INDEX, "argmin(): Expected reduction dim 0 to have non-zero size.");
    CHECK_ERR(ct_max_dim(x, 2, 0, NULL), CT_ERR_INDEX, "max: Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    CHECK_ERR(ct_amax(x, 2, CT__INTS(0, -2), 0), CT_ERR_ARG, "amax: dim 0 appears multiple times in the list of dims");
    CHECK_ERR(ct_argmax_dim(x, -3, 0), CT_ERR_INDEX, "argmax: Dimension out of range");
}

TEST(test_logsumexp) {
    ct_tensor *x = T64((2, 2), 1000, 1000, -INFINITY, -INFINITY);
    double e[] = {1000 + log(2.0), -INFINITY};
    CHECK_VALUES(ct_logsumexp(x, 1, CT__INTS(1), 0), e, 2, 1e-15);
    ct_tensor *y = T64((2), INFINITY, 1);
    CHECK(isinf(ct_item(ct_logsumexp(y, 1, CT__INTS(0), 0))));
    CHECK(isnan(ct_item(ct_logsumexp(T64((2), NAN, 1), 0, NULL, 0))));
    CHECK_EQ_INT(ct_logsumexp(ct_ones(CT_INT64, 2), 0, NULL, 0)->dtype, CT_FLOAT32);
    CHECK(isinf(ct_item(ct_logsumexp(ct_zeros(CT_FLOAT64, 0), 0, NULL, 0))));
    CHECK_ERR(ct_logsumexp(x, 1, CT__INTS(2), 0), CT_ERR_INDEX, "logsumexp: Dimension out of range");
}

TEST(test_all_any_count) {
    ct_tensor *x = T64((2, 3), 0, 0.5, NAN, 1, 2, 3);
    CHECK_EQ_INT(ct_item_int(ct_all(x)), 0);
    CHECK_EQ_INT(ct_item_int(ct_any(x)), 1);
    CHECK_EQ_INT(ct_all(x)->dtype, CT_BOOL);
    double a1[] = {0, 1}, a0[] = {0, 1, 1};
    CHECK_VALUES(ct_all_dim(x, 1, 0), a1, 2, 0);
    CHECK_VALUES(ct_all_dim(x, 0, 0), a0, 3, 0);
    CHECK_VALUES(ct_any_dim(x, -1, 1), ((const double[]){1, 1}), 2, 0);
    CHECK_EQ_INT(ct_all(ct_ones(CT_UINT8, 2))->dtype, CT_UINT8);
    CHECK_EQ_INT(ct_item_int(ct_all(ct_zeros(CT_FLOAT32, 0))), 1);
    CHECK_EQ_INT(ct_item_int(ct_any(ct_zeros(CT_FLOAT32, 0))), 0);
    CHECK_EQ_INT(ct_item_int(ct_count_nonzero(x, 0, NULL)), 5);
    double c1[] = {1, 2, 2};
    CHECK_VALUES(ct_count_nonzero(x, 1, CT__INTS(0)), c1, 3, 0);
    CHECK_EQ_INT(ct_count_nonzero(x, 0, NULL)->dtype, CT_INT64);
    CHECK_ERR(ct_all_dim(x, 2, 0), CT_ERR_INDEX, "all: Dimension out of range");
    CHECK_ERR(ct_any_dim(x, -3, 0), CT_ERR_INDEX, "any: Dimension out of range");
    CHECK_ERR(ct_count_nonzero(x, 2, CT__INTS(0, 0)), CT_ERR_ARG, "dim 0 appears multiple times in the list of dims");
}

TEST(test_norm) {
    ct_tensor *x = T64((2), 3, -4);
    CHECK_CLOSE(ct_item(ct_norm(x, 2, 0, NULL, 0)), 5, 1e-15);
    CHECK_CLOSE(ct_item(ct_norm(x, 1, 0, NULL, 0)), 7, 1e-15);
    CHECK_CLOSE(ct_item(ct_norm(x, INFINITY, 0, NULL, 0)), 4, 0);
    CHECK_CLOSE(ct_item(ct_norm(x, -INFINITY, 0, NULL, 0)), 3, 0);
    CHECK_CLOSE(ct_item(ct_norm(x, 0, 0, NULL, 0)), 2, 0);
    CHECK_CLOSE(ct_item(ct_norm(x, 0.5, 0, NULL, 0)), pow(sqrt(3.0) + 2, 2), 1e-12);
    CHECK_CLOSE(ct_item(ct_norm(x, -1, 0, NULL, 0)), 1.0 / (1.0 / 3 + 1.0 / 4), 1e-12);
    CHECK_CLOSE(ct_item(ct_norm(ct_zeros(CT_FLOAT32, 0), -1, 0, NULL, 0)), 0, 0);  /* empty: 0 for every p */
    CHECK(isnan(ct_item(ct_norm(T64((2), 3, NAN), INFINITY, 0, NULL, 0))));
    CHECK_ERR(ct_norm(ct_ones(CT_INT64, 2), 2, 0, NULL, 0), CT_ERR_DTYPE, "norm(): input dtype should be either floating point or complex. Got Long instead.");
    CHECK_ERR(ct_norm(x, 2, 1, CT__INTS(1), 0), CT_ERR_INDEX, "norm: Dimension out of range");
}

TEST(test_softmax) {
    ct_tensor *x = T64((2, 3), 1, 2, 3, -INFINITY, 0, 0);
    ct_tensor *s = ct_softmax(x, 1);
    double z = exp(1.0) + exp(2.0) + exp(3.0);
    double e[] = {exp(1.0) / z, exp(2.0) / z, exp(3.0) / z, 0, 0.5, 0.5};
    CHECK_VALUES(s, e, 6, 1e-15);
    ct_tensor *l = ct_log_softmax(x, -1);
    double el[] = {1 - log(z), 2 - log(z), 3 - log(z), -INFINITY, -log(2.0), -log(2.0)};
    CHECK_VALUES(l, el, 6, 1e-15);
    CHECK_VALUES(ct_softmax(ct_to(x, CT_FLOAT32), 1), e, 6, 1e-6);
    CHECK_VALUES(ct_log_softmax(ct_to(x, CT_FLOAT32), 1), el, 6, 1e-6);
    CHECK_VALUES(ct_softmax(ct_to(x, CT_BFLOAT16), 1), e, 6, 1e-2);
    CHECK_EQ_INT(ct_softmax(ct_to(x, CT_FLOAT16), 1)->dtype, CT_FLOAT16);
    CHECK_EQ_INT(ct_softmax_dtype(ct_ones(CT_INT64, 3), 0, CT_FLOAT64)->dtype, CT_FLOAT64);
    CHECK_EQ_INT(ct_log_softmax_dtype(ct_ones(CT_FLOAT32, 3), 0, CT_FLOAT64)->dtype, CT_FLOAT64);
    /* all -inf rows are NaN, as PyTorch */
    CHECK(isnan(ct_item(ct_sum(ct_softmax(T64((2), -INFINITY, -INFINITY), 0)))));
    CHECK_CLOSE(ct_item(ct_softmax(ct_scalar_tensor(3, CT_FLOAT32), 0)), 1, 0);
    CHECK_ERR(ct_softmax(ct_ones(CT_INT64, 3), 0), CT_ERR_DTYPE, "\"softmax_kernel_impl\" not implemented for 'Long'");
    CHECK_ERR(ct_log_softmax(x, 2), CT_ERR_INDEX, "log_softmax: Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(test_scans) {
    ct_tensor *x = T64((2, 3), 1, 2, 3, 4, 5, 6);
    double c1[] = {1, 3, 6, 4, 9, 15}, c0[] = {1, 2, 3, 5, 7, 9}, p1[] = {1, 2, 6, 4, 20, 120};
    CHECK_VALUES(ct_cumsum(x, 1), c1, 6, 0);
    CHECK_VALUES(ct_cumsum(x, -2), c0, 6, 0);
    CHECK_VALUES(ct_cumprod(x, 1), p1, 6, 0);
    CHECK_VALUES(ct_cumsum(ct_t(x), 0), ((const double[]){1, 4, 3, 9, 6, 15}), 6, 0);
    CHECK_EQ_INT(ct_cumsum(ct_ones(CT_INT32, 3), 0)->dtype, CT_INT64);
    CHECK_EQ_INT(ct_cumprod(ct_ones(CT_BOOL, 3), 0)->dtype, CT_INT64);
    ct_tensor *c8 = ct_cumsum_dtype(ct_full(CT_INT8, 100, 2), 0, CT_INT8);
    CHECK_VALUES(c8, ((const double[]){100, -56}), 2, 0);
    ct_tensor *idx = NULL;
    ct_tensor *m = ct_cummax(T64((5), 1, 3, 3, 2, 3), 0, &idx);
    CHECK_VALUES(m, ((const double[]){1, 3, 3, 3, 3}), 5, 0);
    CHECK_VALUES(idx, ((const double[]){0, 1, 2, 2, 4}), 5, 0);  /* the latest of equal values */
    m = ct_cummin(T64((5), 1, NAN, 3, NAN, 0), 0, &idx);
    CHECK(isnan(ct_item(ct_select(m, 0, 4))));
    CHECK_VALUES(idx, ((const double[]){0, 1, 1, 3, 3}), 5, 0);
    CHECK_EQ_INT(ct_numel(ct_cumsum(ct_zeros(CT_FLOAT32, 0, 3), 0)), 0);
    CHECK_ERR(ct_cumsum(x, 2), CT_ERR_INDEX, "cumsum: Dimension out of range");
    CHECK_ERR(ct_cumprod(x, -3), CT_ERR_INDEX, "cumprod: Dimension out of range");
    CHECK_ERR(ct_cummax(x, 2, NULL), CT_ERR_INDEX, "cummax: Dimension out of range");
    CHECK_ERR(ct_cummin(x, 2, &idx), CT_ERR_INDEX, "cummin: Dimension out of range");
    CHECK(idx == NULL);
}

TEST(test_sorting) {
    ct_tensor *x = T64((2, 4), 3, 1, NAN, 2, 0, 5, 5, -1);
    ct_tensor *idx = NULL;
    ct_tensor *s = ct_sort(x, 1, 0, &idx);
    double sv[] = {1, 2, 3, NAN, -1, 0, 5, 5}, si[] = {1, 3, 0, 2, 3, 0, 1, 2};
    CHECK_VALUES(s, sv, 8, 0);
    CHECK_VALUES(idx, si, 8, 0);
    s = ct_sort(x, -1, 1, &idx);
    double dv[] = {NAN, 3, 2, 1, 5, 5, 0, -1}, di[] = {2, 0, 3, 1, 1, 2, 0, 3};  /* stable */
    CHECK_VALUES(s, dv, 8, 0);
    CHECK_VALUES(idx, di, 8, 0);
    CHECK_VALUES(ct_argsort(x, 0, 0), ((const double[]){1, 0, 1, 1, 0, 1, 0, 0}), 8, 0);
    ct_tensor *t = ct_topk(x, 2, 1, 1, 1, &idx);
    CHECK_VALUES(t, ((const double[]){NAN, 3, 5, 5}), 4, 0);
    CHECK_VALUES(idx, ((const double[]){2, 0, 1, 2}), 4, 0);
    t = ct_topk(x, 3, -1, 0, 1, &idx);
    CHECK_VALUES(t, ((const double[]){1, 2, 3, -1, 0, 5}), 6, 0);
    ct_tensor *k = ct_kthvalue(x, 2, 1, 0, &idx);
    CHECK_VALUES(k, ((const double[]){2, 0}), 2, 0);
    CHECK_VALUES(idx, ((const double[]){3, 0}), 2, 0);
    CHECK_CLOSE(ct_item(ct_median(T64((4), 4, 1, 3, 2))), 2, 0);  /* the lower median */
    CHECK(isnan(ct_item(ct_median(x))));
    ct_tensor *md = ct_median_dim(x, 1, 1, &idx);
    CHECK_VALUES(md, ((const double[]){NAN, 0}), 2, 0);
    CHECK_VALUES(idx, ((const double[]){2, 0}), 2, 0);
    CHECK_EQ_INT(ct_ndim(md), 2);
    int64_t mv[] = {1, 2, 2, 1, 3, 1, 2, 5, 4, 4, 5, 0, 0, 0};
    ct_tensor *mo = ct_mode(ct_tensor_i64(mv, 2, 7), 1, 0, &idx);
    CHECK_VALUES(mo, ((const double[]){1, 0}), 2, 0);
    CHECK_VALUES(idx, ((const double[]){5, 6}), 2, 0);  /* smallest most frequent, last index */
    CHECK_EQ_INT(mo->dtype, CT_INT64);
    CHECK(isnan(ct_item(ct_median(ct_zeros(CT_FLOAT32, 0)))));
    /* errors */
    CHECK_ERR(ct_sort(x, 2, 0, NULL), CT_ERR_INDEX, "sort: Dimension out of range");
    CHECK_ERR(ct_argsort(x, -3, 0), CT_ERR_INDEX, "sort: Dimension out of range");
    CHECK_ERR(ct_topk(x, 5, 1, 1, 1, NULL), CT_ERR_ARG, "selected index k out of range");
    CHECK_ERR(ct_topk(x, -1, 1, 1, 1, NULL), CT_ERR_ARG, "selected index k out of range");
    CHECK_ERR(ct_kthvalue(x, 0, 1, 0, NULL), CT_ERR_ARG, "kthvalue(): selected number k out of range for dimension 1");
    ct_tensor *e = ct_zeros(CT_FLOAT32, 0, 3);
    CHECK_ERR(ct_kthvalue(e, 1, 0, 0, NULL), CT_ERR_INDEX, "kthvalue(): Expected reduction dim 0 to have non-zero size.");
    CHECK_ERR(ct_median_dim(e, 0, 0, NULL), CT_ERR_INDEX, "median(): Expected reduction dim 0 to have non-zero size.");
    CHECK_ERR(ct_mode(e, 0, 0, NULL), CT_ERR_INDEX, "mode(): Expected reduction dim 0 to have non-zero size.");
    CHECK_ERR(ct_median(ct_zeros(CT_INT64, 0)), CT_ERR_INDEX, "median(): input tensor must not be empty");
    CHECK_ERR(ct_mode(x, 3, 0, NULL), CT_ERR_INDEX, "mode: Dimension out of range");
    /* long rows: the merge sort against a check of order */
    ct_tensor *r = rnd64(2, CT__INTS(3, 1000), 3);
    ct_tensor *rs = ct_sort(r, 1, 0, &idx);
    ct_tensor *d = ct_sub(ct_slice(rs, 1, 1, 1000, 1), ct_slice(rs, 1, 0, 999, 1));
    CHECK_EQ_INT(ct_item_int(ct_all(ct_ge_scalar(d, 0))), 1);
    CHECK_CLOSE(ct_item(ct_sum(rs)), ct_item(ct_sum(r)), 1e-9);
    CHECK_EQ_INT(ct_item_int(ct_sum(idx)), 3 * 999 * 1000 / 2);
    /* selection (topk, kthvalue, median) agrees with the stable sort, ties and NaN included */
    ct_generator g;
    ct_generator_init(&g, 99);
    for (int trial = 0; trial < 6; trial++) {
        int64_t K = trial < 3 ? 301 : 40;
        ct_tensor *v = ct_floor(ct_mul_scalar(ct_uniform_(ct_empty(CT_FLOAT64, 4, K), 0, 1, &g), trial % 2 ? 7 : 1000));
        if (trial == 2) ct_fill_(ct_select(ct_select(v, 0, 1), 0, 17), NAN);
        ct_tensor *si = NULL, *sd = NULL, *ti = NULL, *ki = NULL, *mi = NULL;
        ct_tensor *sa = ct_sort(v, 1, 0, &si), *sdv = ct_sort(v, 1, 1, &sd);
        for (int64_t k = 1; k <= K; k += K / 7 + 1) {
            ct_tensor *tl = ct_topk(v, k, 1, 1, 1, &ti);
            CHECK(ct_equal(ti, ct_slice(sd, 1, 0, k, 1)) == 1 && ct_equal(ct_isnan(tl), ct_isnan(ct_slice(sdv, 1, 0, k, 1))) == 1);
            ct_topk(v, k, 1, 0, 1, &ti);
            CHECK(ct_equal(ti, ct_slice(si, 1, 0, k, 1)) == 1);
            ct_kthvalue(v, k, 1, 0, &ki);
            CHECK(ct_equal(ki, ct_select(si, 1, k - 1)) == 1);
        }
        ct_tensor *md = ct_median_dim(v, 1, 0, &mi);
        if (trial != 2) CHECK(ct_equal(mi, ct_select(si, 1, (K - 1) / 2)) == 1 && ct_equal(md, ct_select(sa, 1, (K - 1) / 2)) == 1);
        else CHECK(ct_item_int(ct_select(mi, 0, 1)) == 17);
    }
}

/* ---- autograd ---- */
enum {
    R_SUM, R_MEAN, R_NANSUM, R_NANMEAN, R_PROD, R_VAR, R_STD, R_VARMEAN, R_STDMEAN, R_MAX, R_MIN, R_MAXDIM, R_MINDIM,
    R_AMAX, R_AMIN, R_LSE, R_NORM, R_SOFTMAX, R_LOGSOFTMAX, R_CUMSUM, R_CUMPROD, R_CUMMAX, R_CUMMIN, R_SORT, R_TOPK,
    R_KTH, R_MEDIAN, R_MEDIANDIM, R_MODE
};
typedef struct rcase { int op, pre, dim, keep; double p; int64_t k; int nd; int64_t dims[4]; int sq; } rcase;
/* cases list only the fields they need; the rest are zero */
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
/* pre: 0 as is, 1 transposed view (dims 0 and last), 2 expanded (a size-1 dim 1 -> 3) */
static ct_tensor *rc_input(ct_tensor *x, int pre) {
    if (pre == 1) return ct_transpose(x, 0, -1);
    if (pre == 2) {
        int64_t shape[CT_MAX_DIMS];
        for (int d = 0; d < x->ndim; d++) shape[d] = x->shape[d];
        shape[1] = 3;
        return ct_expand_n(x, x->ndim, shape);
    }
    return x;
}
static ct_tensor *rc_op(ct_tensor *const *in, const rcase *c);
/* gradgradcheck squares the result: linear ops then have a second derivative
   that runs through their backward's own backward */
static ct_tensor *rc_fn(ct_tensor *const *in, void *u) {
    const rcase *c = (const rcase *)u;
    ct_tensor *r = rc_op(in, c);
    return c->sq ? ct_square(r) : r;
}
static ct_tensor *rc_op(ct_tensor *const *in, const rcase *c) {
    ct_tensor *x = rc_input(in[0], c->pre), *second = NULL, *r = NULL;
    switch (c->op) {
    case R_SUM: return ct_sum_dims(x, c->nd, c->dims, c->keep);
    case R_MEAN: return ct_mean_dims(x, c->nd, c->dims, c->keep);
    case R_NANSUM: return ct_nansum(x, c->nd, c->dims, c->keep);
    case R_NANMEAN: return ct_nanmean(x, c->nd, c->dims, c->keep);
    case R_PROD: return c->nd ? ct_prod_dim(x, (int)c->dims[0], c->keep) : ct_prod(x);
    case R_VAR: return ct_var_dims(x, c->nd, c->dims, c->p, c->keep);
    case R_STD: return ct_std_dims(x, c->nd, c->dims, c->p, c->keep);
    case R_VARMEAN: r = ct_var_mean(x, c->nd, c->dims, c->p, c->keep, &second); return ct_add(r, ct_mul_scalar(second, 0.7));
    case R_STDMEAN: r = ct_std_mean(x, c->nd, c->dims, c->p, c->keep, &second); return ct_add(r, ct_mul_scalar(second, 0.7));
    case R_MAX: return ct_max(x);
    case R_MIN: return ct_min(x);
    case R_MAXDIM: return ct_max_dim(x, c->dim, c->keep, NULL);
    case R_MINDIM: return ct_min_dim(x, c->dim, c->keep, NULL);
    case R_AMAX: return ct_amax(x, c->nd, c->dims, c->keep);
    case R_AMIN: return ct_amin(x, c->nd, c->dims, c->keep);
    case R_LSE: return ct_logsumexp(x, c->nd, c->dims, c->keep);
    case R_NORM: return ct_norm(x, c->p, c->nd, c->dims, c->keep);
    case R_SOFTMAX: return ct_softmax(x, c->dim);
    case R_LOGSOFTMAX: return ct_log_softmax(x, c->dim);
    case R_CUMSUM: return ct_cumsum(x, c->dim);
    case R_CUMPROD: return ct_cumprod(x, c->dim);
    case R_CUMMAX: return ct_cummax(x, c->dim, NULL);
    case R_CUMMIN: return ct_cummin(x, c->dim, NULL);
    case R_SORT: return ct_sort(x, c->dim, c->keep, NULL);
    case R_TOPK: return ct_topk(x, c->k, c->dim, c->keep, 1, NULL);
    case R_KTH: return ct_kthvalue(x, c->k, c->dim, c->keep, NULL);
    case R_MEDIAN: return ct_median(x);
    case R_MEDIANDIM: return ct_median_dim(x, c->dim, c->keep, NULL);
    case R_MODE: return ct_mode(x, c->dim, c->keep, NULL);
    default: return NULL;
    }
}
static const char *rc_names[] = {"sum", "mean", "nansum", "nanmean", "prod", "var", "std", "var_mean", "std_mean", "max", "min",
                                 "max_dim", "min_dim", "amax", "amin", "logsumexp", "norm", "softmax", "log_softmax", "cumsum",
                                 "cumprod", "cummax", "cummin", "sort", "topk", "kthvalue", "median", "median_dim", "mode"};
static void check_grad(rcase c, ct_tensor *x, int second_order, int line) {
    int s = ct_scope_begin();
    ct_tensor *in = leaf(x);
    int ok = ct_gradcheck(rc_fn, &c, 1, &in, NULL);
    if (!ok) printf("line %d: gradcheck %s (pre %d, dim %d, p %g): %s\n", line, rc_names[c.op], c.pre, c.dim, c.p, ct_last_error());
    CHECK(ok);
    if (second_order) {
        c.sq = 1;
        ok = ct_gradgradcheck(rc_fn, &c, 1, &in, NULL);
        if (!ok) printf("line %d: gradgradcheck %s (pre %d, dim %d, p %g): %s\n", line, rc_names[c.op], c.pre, c.dim, c.p, ct_last_error());
        CHECK(ok);
    }
    ct_scope_end(s);
}
#define GC(x, second, ...) do { rcase c_ = {__VA_ARGS__}; check_grad(c_, (x), (second), __LINE__); } while (0)

TEST(test_gradcheck_reductions) {
    ct_tensor *x = rnd64(3, CT__INTS(3, 4, 2), 11), *x1 = rnd64(3, CT__INTS(3, 1, 4), 12);
    for (int pre = 0; pre < 2; pre++) {
        GC(x, 1, R_SUM, pre, 0, 0, 0, 0, 1, {1});
        GC(x, 1, R_SUM, pre, 0, 1, 0, 0, 2, {0, -1});
        GC(x, 1, R_MEAN, pre, 0, 0, 0, 0, 0, {0});
        GC(x, 1, R_MEAN, pre, 0, 1, 0, 0, 1, {-1});
        GC(x, 1, R_NANSUM, pre, 0, 0, 0, 0, 1, {2});
        GC(x, 1, R_NANMEAN, pre, 0, 1, 0, 0, 2, {0, 1});
        GC(x, 1, R_PROD, pre, 0, 0, 0, 0, 1, {1});
        GC(x, 1, R_PROD, pre, 0, 1, 0, 0, 1, {-1});
        GC(x, 1, R_PROD, pre, 0, 0, 0, 0, 0, {0});
        GC(x, 1, R_VAR, pre, 0, 0, 1, 0, 1, {1});
        GC(x, 1, R_VAR, pre, 0, 1, 0, 0, 2, {0, 2});
        GC(x, 1, R_STD, pre, 0, 0, 1, 0, 0, {0});
        GC(x, 1, R_STD, pre, 0, 1, 2, 0, 1, {-1});
        GC(x, 1, R_VARMEAN, pre, 0, 0, 1, 0, 1, {0});
        GC(x, 1, R_STDMEAN, pre, 0, 1, 0, 0, 2, {1, 2});
        GC(x, 1, R_AMAX, pre, 0, 0, 0, 0, 2, {0, 2});
        GC(x, 1, R_AMIN, pre, 0, 1, 0, 0, 1, {1});
        GC(x, 1, R_MAX, pre);
        GC(x, 1, R_MIN, pre);
        GC(x, 1, R_MAXDIM, pre, 1, 0);
        GC(x, 1, R_MINDIM, pre, -1, 1);
        GC(x, 1, R_LSE, pre, 0, 0, 0, 0, 1, {1});
        GC(x, 1, R_LSE, pre, 0, 1, 0, 0, 2, {0, 2});
        GC(x, 1, R_MEDIAN, pre);
        GC(x, 1, R_MEDIANDIM, pre, 1, 0);
        GC(x, 1, R_KTH, pre, 0, 1, 0, 2);
    }
    /* broadcast (expanded) inputs: gradients sum over the expanded dim */
    GC(x1, 1, R_SUM, 2, 0, 0, 0, 0, 1, {1});
    GC(x1, 1, R_VAR, 2, 0, 0, 1, 0, 1, {1});
    GC(x1, 1, R_PROD, 2, 0, 0, 0, 0, 1, {2});
    GC(x1, 1, R_LSE, 2, 0, 0, 0, 0, 1, {0});
    GC(x1, 1, R_NORM, 2, 0, 0, 2, 0, 1, {1});
    /* norms, every kind of p */
    double ps[] = {2, 1, 3, 0.5, 1.5, INFINITY, -INFINITY, -1, 0};
    for (int i = 0; i < 9; i++) {
        GC(x, ps[i] != 1 && !isinf(ps[i]) && ps[i] != 0, R_NORM, 0, 0, 0, ps[i], 0, 1, {1});
        GC(x, 0, R_NORM, 1, 0, 1, ps[i], 0, 0, {0});
    }
    /* prod with zeros: one zero, two zeros (first order; second order too) */
    ct_tensor *z = rnd64(2, CT__INTS(3, 4), 13);
    double *zp = (double *)ct_data_ptr(z);
    zp[1] = 0;
    zp[6] = 0;
    zp[7] = 0;
    GC(z, 1, R_PROD, 0, 0, 0, 0, 0, 1, {1});
    GC(z, 1, R_PROD, 0, 0, 1, 0, 0, 1, {0});
    GC(z, 1, R_PROD, 0);
    GC(z, 1, R_PROD, 1, 0, 0, 0, 0, 1, {0});
    /* mode needs repeated values, where finite differences are meaningless: the
       gradient goes to the returned index */
    double mv[] = {1, 2, 2, 1, 3, 1.5, 0.5, 0.5};
    ct_tensor *mx = leaf(f64(mv, 2, CT__INTS(2, 4))), *mi = NULL;
    CHECK(ct_backward(ct_sum(ct_mul(ct_mode(mx, 1, 0, &mi), T64((2), 2, 3)))) == CT_OK);
    CHECK_VALUES(mi, ((const double[]){3, 3}), 2, 0);
    CHECK_VALUES(ct_grad(mx), ((const double[]){0, 0, 0, 2, 0, 0, 0, 3}), 8, 0);
}

TEST(test_gradcheck_dim_ops) {
    ct_tensor *x = rnd64(3, CT__INTS(3, 4, 5), 21);
    for (int pre = 0; pre < 2; pre++)
        for (int dim = -1; dim < 2; dim++) {
            GC(x, 1, R_SOFTMAX, pre, dim);
            GC(x, 1, R_LOGSOFTMAX, pre, dim);
            GC(x, 1, R_CUMSUM, pre, dim);
            GC(x, 1, R_CUMPROD, pre, dim);
            GC(x, 1, R_CUMMAX, pre, dim);
            GC(x, 1, R_CUMMIN, pre, dim);
            GC(x, 1, R_SORT, pre, dim, dim == 1);
            GC(x, 1, R_TOPK, pre, dim, dim != 1, 0, 2);
        }
    ct_tensor *x1 = rnd64(3, CT__INTS(2, 1, 4), 22);
    GC(x1, 1, R_SOFTMAX, 2, 1);
    GC(x1, 1, R_LOGSOFTMAX, 2, 1);
    GC(x1, 1, R_CUMSUM, 2, 1);
    GC(x1, 1, R_CUMPROD, 2, 1);
    GC(x1, 1, R_SORT, 2, 1, 0);
    /* cumprod with zeros: the O(n) path first order, the exact path second order */
    ct_tensor *z = rnd64(2, CT__INTS(3, 5), 23);
    double *zp = (double *)ct_data_ptr(z);
    zp[2] = 0;
    zp[6] = 0;
    zp[8] = 0;
    zp[10] = 0;
    zp[14] = 0;
    GC(z, 1, R_CUMPROD, 0, 1);
    GC(z, 1, R_CUMPROD, 0, 0);
    GC(z, 1, R_CUMPROD, 1, 0);
}

/* the tie rules of the gradients, as PyTorch: max()/amax split evenly,
   max(dim) goes to the returned index */
TEST(test_grad_ties) {
    ct_tensor *x = leaf(T64((2, 3), 1, 3, 3, 2, 2, 2));
    CHECK(ct_backward(ct_max(x)) == CT_OK);
    CHECK_VALUES(ct_grad(x), ((const double[]){0, 0.5, 0.5, 0, 0, 0}), 6, 1e-15);
    ct_set_grad(x, NULL);
    CHECK(ct_backward(ct_sum(ct_amax(x, 1, CT__INTS(1), 0))) == CT_OK);
    CHECK_VALUES(ct_grad(x), ((const double[]){0, 0.5, 0.5, 1.0 / 3, 1.0 / 3, 1.0 / 3}), 6, 1e-15);
    ct_set_grad(x, NULL);
    CHECK(ct_backward(ct_sum(ct_max_dim(x, 1, 0, NULL))) == CT_OK);
    CHECK_VALUES(ct_grad(x), ((const double[]){0, 1, 0, 1, 0, 0}), 6, 0);
    ct_set_grad(x, NULL);
    CHECK(ct_backward(ct_median(x)) == CT_OK);  /* median 2: three ties */
    CHECK_VALUES(ct_grad(x), ((const double[]){0, 0, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3}), 6, 1e-15);
    /* prod with two zeros: zero gradient; norm at zero: zero */
    ct_tensor *z = leaf(T64((4), 3, 0, 2, 0));
    CHECK(ct_backward(ct_prod(z)) == CT_OK);
    CHECK_VALUES(ct_grad(z), ((const double[]){0, 0, 0, 0}), 4, 0);
    ct_tensor *z1 = leaf(T64((4), 3, 0, 2, 5));
    CHECK(ct_backward(ct_prod(z1)) == CT_OK);
    CHECK_VALUES(ct_grad(z1), ((const double[]){0, 30, 0, 0}), 4, 0);
    ct_tensor *n0 = leaf(ct_zeros(CT_FLOAT64, 2));
    CHECK(ct_backward(ct_norm(n0, 2, 0, NULL, 0)) == CT_OK);
    CHECK_VALUES(ct_grad(n0), ((const double[]){0, 0}), 2, 0);
    /* non-differentiable outputs */
    ct_tensor *a = ct_argmax(x);
    CHECK(!ct_get_requires_grad(a));
    CHECK(!ct_get_requires_grad(ct_all(x)));
    ct_tensor *idx = NULL;
    ct_tensor *s = ct_sort(x, 1, 0, &idx);
    CHECK(ct_get_requires_grad(s) && !ct_get_requires_grad(idx));
    CHECK_STR(ct_grad_fn_name(s), "SortBackward0");
    CHECK_STR(ct_grad_fn_name(ct_softmax(x, 0)), "SoftmaxBackward0");
    /* float32 backward of softmax through the fused backward op */
    ct_tensor *f = leaf(ct_to(x, CT_FLOAT32));
    ct_tensor *w = ct_to(T64((2, 3), 1, 2, 3, 4, 5, 6), CT_FLOAT32);
    CHECK(ct_backward(ct_sum(ct_mul(ct_log_softmax(f, 1), w))) == CT_OK);
    ct_tensor *ref = ct_sub(w, ct_mul(ct_softmax(ct_to(x, CT_FLOAT32), 1), ct_sum_dim(w, 1, 1)));
    CHECK(ct_allclose(ct_grad(f), ref, 1e-6, 1e-6) == 1);
}

/* everything made in a scope is released: tensors and bytes return to their start */
TEST(test_memory_flat) {
    int64_t t0 = ct_live_tensors(), b0 = ct_live_bytes();
    for (int it = 0; it < 3; it++) {
        CT_SCOPE {
            ct_tensor *x = ct_requires_grad(ct_randn(CT_FLOAT64, 4, 5));
            ct_tensor *idx = NULL;
            ct_tensor *y = ct_add(ct_sum(ct_softmax(x, 1)), ct_sum(ct_sort(x, 0, 1, &idx)));
            y = ct_add(y, ct_sum(ct_cumprod(x, 1)));
            y = ct_add(y, ct_norm(x, 3, 0, NULL, 0));
            y = ct_add(y, ct_sum(ct_max_dim(x, 1, 0, NULL)));
            CHECK(ct_backward(y) == CT_OK);
        }
    }
    CHECK_EQ_INT(ct_live_tensors(), t0);
    CHECK_EQ_INT(ct_live_bytes(), b0);
}

int main(void) {
    ct_t_init();
    RUN(test_sum_mean);
    RUN(test_sum_accuracy);
    RUN(test_large_vs_f64);
    RUN(test_prod);
    RUN(test_var_std);
    RUN(test_minmax);
    RUN(test_logsumexp);
    RUN(test_all_any_count);
    RUN(test_norm);
    RUN(test_softmax);
    RUN(test_scans);
    RUN(test_sorting);
    RUN(test_gradcheck_reductions);
    RUN(test_gradcheck_dim_ops);
    RUN(test_grad_ties);
    RUN(test_memory_flat);
    return ct_t_summary();
}
