/* test_random.c - randint / random_, bernoulli, exponential_, randperm,
   multinomial, normal with tensors, *_like: values PyTorch 1.13 gives with the
   same seed (printed by torch, copied here), ranges, determinism, generators,
   autograd interplay and bad input. More cases against PyTorch: the
   conformance fixtures in tests/fixtures/random (tests/reference/cases_random.py). */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"

static int all_in(const ct_tensor *t, double lo, double hi) {
    ct_tensor *d = ct_contiguous(ct_to(t, CT_FLOAT64));
    const double *p = (const double *)ct_data_ptr(d);
    for (int64_t i = 0; i < ct_numel(d); i++)
        if (!(p[i] >= lo && p[i] <= hi) || p[i] != floor(p[i])) return 0;
    return 1;
}

TEST(test_randint_matches_torch) {
    ct_manual_seed(0);
    ct_tensor *x = ct_randint(0, 10, CT_INT64, 8);
    double e[] = {4, 9, 3, 0, 3, 9, 7, 3};  /* torch.manual_seed(0); torch.randint(0, 10, (8,)) */
    CHECK(x && x->dtype == CT_INT64);
    CHECK_VALUES(x, e, 8, 0);
    /* the whole int64 range: random64() % (2^64 - 1) */
    ct_manual_seed(0);
    ct_tensor *f = ct_random_range_(ct_empty(CT_INT64, 3), INT64_MIN, INT64_MAX, NULL);
    CHECK(f && ((int64_t *)ct_data_ptr(f))[0] == 900450186894289455LL && ((int64_t *)ct_data_ptr(f))[2] == 1895649597198586619LL);
    /* an explicit generator leaves the default one alone */
    ct_generator g;
    ct_generator_init(&g, 42);
    ct_manual_seed(0);
    ct_tensor *y = ct_randint_n(0, 100, CT_INT64, CT_DIMS(5), &g);
    double eg[] = {42, 67, 76, 14, 26};
    CHECK_VALUES(y, eg, 5, 0);
    CHECK_VALUES(ct_randint(0, 10, CT_INT64, 8), e, 8, 0);
}
TEST(test_random_full_range) {
    ct_manual_seed(0);
    double e16[] = {1277, 1017, 1661, 999}, ebf[] = {149, 179, 47, 62}, eu8[] = {172, 47, 117, 192};
    CHECK_VALUES(ct_random_(ct_empty(CT_FLOAT16, 4), NULL), e16, 4, 0);
    ct_manual_seed(0);
    CHECK_VALUES(ct_random_(ct_empty(CT_BFLOAT16, 4), NULL), ebf, 4, 0);
    ct_manual_seed(0);
    CHECK_VALUES(ct_random_(ct_empty(CT_UINT8, 4), NULL), eu8, 4, 0);
    struct { ct_dtype dt; double hi; } r[] = {{CT_INT8, 127}, {CT_INT16, 32767}, {CT_INT32, 2147483647.0}, {CT_FLOAT32, 16777216.0},
                                              {CT_BOOL, 1}, {CT_UINT8, 255}, {CT_FLOAT64, 9007199254740992.0}};
    for (size_t k = 0; k < sizeof r / sizeof r[0]; k++) CHECK(all_in(ct_random_(ct_empty(r[k].dt, 200), NULL), 0, r[k].hi));
    CHECK(all_in(ct_random_range_(ct_empty(CT_INT8, 300), -128, 128, NULL), -128, 127));
    CHECK(all_in(ct_randint(-3, 4, CT_FLOAT32, 100), -3, 3));
    CHECK(all_in(ct_randint(0, 2, CT_BOOL, 100), 0, 1));
    CHECK(ct_item(ct_sum(ct_randint(5, 6, CT_INT32, 10))) == 50);
    ct_tensor *e = ct_randint(0, 3, CT_INT64, 0, 4);
    CHECK(e && ct_numel(e) == 0);
}
TEST(test_random_determinism_and_layout) {
    ct_manual_seed(7);
    ct_tensor *a = ct_randint(0, 1000, CT_INT64, 4, 6);
    ct_manual_seed(7);
    ct_tensor *b = ct_randint(0, 1000, CT_INT64, 4, 6);
    CHECK(ct_equal(a, b) == 1);
    /* in-place fills visit memory order: a transposed target gets the same memory contents */
    ct_manual_seed(7);
    ct_tensor *t = ct_empty(CT_INT64, 6, 4);
    ct_random_range_(ct_t(t), 0, 1000, NULL);
    CHECK(!memcmp(ct_data_ptr(t), ct_data_ptr(a), 24 * sizeof(int64_t)));
    /* so do uniform_ and normal_ (element path: a non-contiguous target), as in PyTorch */
    ct_manual_seed(7);
    ct_tensor *u = ct_rand(CT_FLOAT64, 24);
    ct_manual_seed(7);
    ct_tensor *ut = ct_empty(CT_FLOAT64, 6, 4);
    ct_uniform_(ct_t(ut), 0.0, 1.0, NULL);
    CHECK(!memcmp(ct_data_ptr(ut), ct_data_ptr(u), 24 * sizeof(double)));
    ct_manual_seed(7);
    ct_tensor *nb = ct_empty(CT_FLOAT64, 12, 2);
    ct_normal_(ct_slice(ct_view(nb, 24), 0, 0, 24, 2), 0.0, 1.0, NULL);   /* stride 2: the element path */
    ct_manual_seed(7);
    ct_tensor *nt = ct_empty(CT_FLOAT64, 4, 3);
    ct_normal_(ct_t(nt), 0.0, 1.0, NULL);
    ct_tensor *nbe = ct_contiguous(ct_slice(ct_view(nb, 24), 0, 0, 24, 2));
    CHECK(nbe && !memcmp(ct_data_ptr(nt), ct_data_ptr(nbe), 12 * sizeof(double)));
}
TEST(test_randperm) {
    ct_manual_seed(0);
    ct_tensor *p = ct_randperm(10, CT_INT64, NULL);
    double e[] = {4, 1, 7, 5, 3, 9, 0, 8, 6, 2};
    CHECK_VALUES(p, e, 10, 0);
    ct_tensor *q = ct_randperm(1000, CT_INT32, NULL);
    int seen[1000] = {0}, ok = q != NULL;
    for (int i = 0; ok && i < 1000; i++) {
        int v = ((int32_t *)ct_data_ptr(q))[i];
        ok = v >= 0 && v < 1000 && !seen[v];
        if (ok) seen[v] = 1;
    }
    CHECK(ok);
    CHECK(ct_numel(ct_randperm(0, CT_INT64, NULL)) == 0);
    CHECK(ct_randperm(5, CT_FLOAT64, NULL) && ct_item(ct_sum(ct_randperm(5, CT_FLOAT64, NULL))) == 10);
    CHECK_ERR(ct_randperm(-1, CT_INT64, NULL), CT_ERR_ARG, "Trying to create tensor with negative dimension -1");
    CHECK_ERR(ct_randperm(3, CT_BOOL, NULL), CT_ERR_DTYPE, "\"randperm\" not implemented for 'Bool'");
    CHECK_ERR(ct_randperm(300, CT_INT8, NULL), CT_ERR_ARG, "value cannot be converted to type int8_t without overflow");
    CHECK_ERR(ct_randperm(3000, CT_FLOAT16, NULL), CT_ERR_ARG, "n cannot be greater than 2^11+1 for Half type.");
}
TEST(test_bernoulli) {
    ct_manual_seed(0);
    double e[] = {0, 0, 1, 0, 0, 0, 1, 1, 0, 1};
    CHECK_VALUES(ct_bernoulli_scalar_(ct_empty(CT_FLOAT32, 10), 0.5, NULL), e, 10, 0);
    CHECK(ct_item(ct_sum(ct_bernoulli_p(ct_zeros(CT_INT64, 50), 0.0, NULL))) == 0);
    CHECK(ct_item(ct_sum(ct_bernoulli_p(ct_zeros(CT_BOOL, 50), 1.0, NULL))) == 50);
    ct_tensor *p = ct_full(CT_FLOAT64, 0.25, 4000);
    double m = ct_item(ct_mean(ct_bernoulli(p, NULL)));
    CHECK(m > 0.2 && m < 0.3);
    /* p broadcasts to x; an integer x receives 0/1 */
    double pv[] = {0, 1, 0, 1};
    ct_tensor *x = ct_bernoulli_(ct_zeros(CT_INT32, 3, 4), ct_tensor_f64(pv, 4), NULL);
    double ex[] = {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
    CHECK_VALUES(x, ex, 12, 0);
    CHECK_ERR(ct_bernoulli_scalar_(ct_zeros(CT_FLOAT32, 3), 1.5, NULL), CT_ERR_ARG, "bernoulli_ expects p to be in [0, 1], but got p=1.5");
    CHECK_ERR(ct_bernoulli_p(ct_zeros(CT_FLOAT32, 3), -0.5, NULL), CT_ERR_ARG, "bernoulli_ expects p to be in [0, 1]");
    double bad[] = {0.5, 1.5};
    CHECK_ERR(ct_bernoulli(ct_tensor_f64(bad, 2), NULL), CT_ERR_ARG, "Expected p_in >= 0 && p_in <= 1");
    CHECK_ERR(ct_bernoulli(ct_zeros(CT_INT64, 2), NULL), CT_ERR_DTYPE, "\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'");
    CHECK_ERR(ct_bernoulli_(ct_zeros(CT_FLOAT32, 2), ct_full(CT_FLOAT32, 0.5, 3), NULL), CT_ERR_SHAPE, "must match the existing size");
    CHECK_ERR(ct_bernoulli(NULL, NULL), CT_ERR_NULL, "is NULL");
}
TEST(test_exponential) {
    ct_manual_seed(0);
    double e[] = {3.508326186707642, 1.2303847641796768, 0.6150440938940115};
    CHECK_VALUES(ct_exponential_(ct_empty(CT_FLOAT64, 3), 1.0, NULL), e, 3, 1e-15);
    double m = ct_item(ct_mean(ct_exponential_(ct_empty(CT_FLOAT64, 20000), 4.0, NULL)));
    CHECK(m > 0.23 && m < 0.27);
    CHECK_ERR(ct_exponential_(ct_empty(CT_FLOAT32, 3), -1.0, NULL), CT_ERR_ARG, "exponential_ expects lambda >= 0.0, but found lambda=-1");
    CHECK_ERR(ct_exponential_(ct_empty(CT_INT32, 3), 1.0, NULL), CT_ERR_DTYPE, "\"exponential_cpu\" not implemented for 'Int'");
}
TEST(test_multinomial) {
    const float pv[] = {1, 2, 3, 4};
    ct_tensor *p = ct_tensor_f32(pv, 4);
    ct_manual_seed(0);
    double e[] = {2, 1, 3, 0}, er[] = {3, 3, 2, 3, 3, 3};
    CHECK_VALUES(ct_multinomial(p, 4, 0, NULL), e, 4, 0);
    ct_manual_seed(0);
    CHECK_VALUES(ct_multinomial(p, 6, 1, NULL), er, 6, 0);
    /* zero probability is never drawn with replacement; rows are independent */
    double z[] = {0, 1, 0, 1, 1, 0};
    ct_tensor *s = ct_multinomial(ct_reshape(ct_tensor_f64(z, 6), 2, 3), 50, 1, NULL);
    CHECK(s && s->ndim == 2 && s->shape[0] == 2 && s->shape[1] == 50);
    int ok = s != NULL;
    for (int i = 0; ok && i < 100; i++) {
        int64_t v = ((int64_t *)ct_data_ptr(s))[i];
        ok = i < 50 ? v == 1 : (v == 0 || v == 1);
    }
    CHECK(ok);
    /* without replacement: distinct; ties among zeros keep index order */
    double t[] = {0, 2, 0, 1};
    ct_tensor *u = ct_multinomial(ct_tensor_f64(t, 4), 4, 0, NULL);
    const int64_t *uv = u ? (const int64_t *)ct_data_ptr(u) : NULL;
    CHECK(uv && uv[0] + uv[1] == 4 && uv[0] * uv[1] == 3 && uv[2] == 0 && uv[3] == 2);
    CHECK_ERR(ct_multinomial(ct_zeros(CT_INT64, 3), 1, 0, NULL), CT_ERR_DTYPE, "multinomial only supports floating-point dtypes for input, got: Long");
    CHECK_ERR(ct_multinomial(ct_ones(CT_FLOAT32, 2, 2, 2), 1, 0, NULL), CT_ERR_ARG, "prob_dist must be 1 or 2 dim");
    CHECK_ERR(ct_multinomial(ct_ones(CT_FLOAT32, 3), 0, 0, NULL), CT_ERR_ARG, "cannot sample n_sample <= 0 samples");
    CHECK_ERR(ct_multinomial(ct_ones(CT_FLOAT32, 3), 4, 0, NULL), CT_ERR_ARG, "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    double neg[] = {1, -1, 2};
    CHECK_ERR(ct_multinomial(ct_tensor_f64(neg, 3), 2, 0, NULL), CT_ERR_ARG, "probability tensor contains either `inf`, `nan` or element < 0");
    CHECK_ERR(ct_multinomial(ct_tensor_f64(neg, 3), 2, 1, NULL), CT_ERR_ARG, "(encountering probability entry < 0)");
    CHECK_ERR(ct_multinomial(ct_zeros(CT_FLOAT32, 3), 2, 1, NULL), CT_ERR_ARG, "(sum of probabilities <= 0)");
    CHECK_ERR(ct_multinomial(ct_zeros(CT_FLOAT32, 3), 2, 0, NULL), CT_ERR_ARG, "(sum of probabilities <= 0)");
    double inf[] = {1, INFINITY};
    CHECK_ERR(ct_multinomial(ct_tensor_f64(inf, 2), 2, 1, NULL), CT_ERR_ARG, "infinity or NaN");
    CHECK_ERR(ct_multinomial(NULL, 2, 1, NULL), CT_ERR_NULL, "is NULL");
}
TEST(test_normal_tensor_and_like) {
    ct_tensor *mean = ct_requires_grad(ct_zeros(CT_FLOAT64, 3, 1)), *std = ct_full(CT_FLOAT64, 2.0, 5);
    ct_tensor *x = ct_normal_tensor(mean, std, NULL);
    CHECK(x && x->ndim == 2 && x->shape[0] == 3 && x->shape[1] == 5 && x->dtype == CT_FLOAT64 && !ct_get_requires_grad(x));
    /* same stream as randn: normal(0, std) = std * randn */
    ct_manual_seed(3);
    ct_tensor *a = ct_normal_tensor_scalar(ct_zeros(CT_FLOAT64, 20), 2.0, NULL);
    ct_manual_seed(3);
    ct_tensor *b = ct_normal_scalar_tensor(1.0, ct_full(CT_FLOAT64, 2.0, 20), NULL);
    ct_manual_seed(3);
    ct_tensor *c = ct_randn(CT_FLOAT64, 20);
    CHECK(ct_allclose(a, ct_mul_scalar(c, 2.0), 1e-14, 1e-14) == 1);
    CHECK(ct_allclose(b, ct_add_scalar(ct_mul_scalar(c, 2.0), 1.0), 1e-14, 1e-14) == 1);
    double sv[] = {1, -1};
    CHECK_ERR(ct_normal_tensor(ct_zeros(CT_FLOAT32, 2), ct_tensor_f64(sv, 2), NULL), CT_ERR_ARG, "normal expects all elements of std >= 0.0");
    CHECK_ERR(ct_normal_tensor_scalar(ct_zeros(CT_FLOAT32, 2), -1.0, NULL), CT_ERR_ARG, "normal expects std >= 0.0");
    CHECK_ERR(ct_normal_tensor(ct_zeros(CT_FLOAT32, 2), ct_ones(CT_FLOAT32, 3), NULL), CT_ERR_SHAPE, "must match");
    CHECK_ERR(ct_normal_scalar_tensor(0.0, NULL, NULL), CT_ERR_NULL, "is NULL");
    /* *_like keep shape and dtype */
    ct_tensor *r = ct_rand_like(ct_zeros(CT_FLOAT64, 2, 3), NULL);
    CHECK(r && r->dtype == CT_FLOAT64 && r->shape[1] == 3 && all_in(ct_floor(r), 0, 0));
    ct_tensor *n = ct_randn_like(ct_zeros(CT_FLOAT32, 17), NULL);
    CHECK(n && n->dtype == CT_FLOAT32 && ct_numel(n) == 17);
    ct_tensor *i = ct_randint_like(ct_zeros(CT_INT16, 40), -2, 3, NULL);
    CHECK(i && i->dtype == CT_INT16 && all_in(i, -2, 2));
    CHECK_ERR(ct_rand_like(ct_zeros(CT_INT64, 2), NULL), CT_ERR_DTYPE, "not implemented for 'Long'");
    CHECK_ERR(ct_randint_like(ct_zeros(CT_INT64, 2), 3, 3, NULL), CT_ERR_ARG, "random_ expects 'from' to be less than 'to', but got from=3 >= to=3");
    CHECK_ERR(ct_randn_like(NULL, NULL), CT_ERR_NULL, "is NULL");
}
TEST(test_random_errors_and_autograd) {
    CHECK_ERR(ct_randint(5, 3, CT_INT64, 2), CT_ERR_ARG, "random_ expects 'from' to be less than 'to', but got from=5 >= to=3");
    CHECK_ERR(ct_randint(0, 3, CT_QINT8, 2), CT_ERR_DTYPE, "randint: not implemented for 'QInt8'");
    CHECK_ERR(ct_randint(0, 3, CT_INT64, -2), CT_ERR_ARG, "negative dimension -2");
    CHECK_ERR(ct_random_range_(ct_empty(CT_INT8, 3), 0, 300, NULL), CT_ERR_ARG, "to - 1 is out of bounds for signed char");
    CHECK_ERR(ct_random_range_(ct_empty(CT_UINT8, 3), -1, 3, NULL), CT_ERR_ARG, "from is out of bounds for unsigned char");
    CHECK_ERR(ct_random_range_(ct_empty(CT_BOOL, 3), 0, 3, NULL), CT_ERR_ARG, "to - 1 is out of bounds for bool");
    CHECK_ERR(ct_random_range_(ct_empty(CT_FLOAT16, 3), 0, 70000, NULL), CT_ERR_ARG, "to - 1 is out of bounds for c10::Half");
    CHECK_ERR(ct_random_range_(ct_empty(CT_FLOAT32, 3), 33554433, 33554436, NULL), CT_ERR_ARG,
              "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got from=33554436 >= to=33554432");
    CHECK_ERR(ct_random_range_(NULL, 0, 3, NULL), CT_ERR_NULL, "is NULL");
    CHECK_ERR(ct_random_(ct_empty(CT_COMPLEX64, 3), NULL), CT_ERR_DTYPE, "\"random_kernel_cpu\" not implemented for 'ComplexFloat'");
    CHECK_ERR(ct_random_(NULL, NULL), CT_ERR_NULL, "is NULL");
    /* in-place fills: not on a leaf that requires grad; on a non-leaf they cut the history */
    ct_tensor *w = ct_requires_grad(ct_zeros(CT_FLOAT32, 3));
    CHECK_ERR(ct_exponential_(w, 1.0, NULL), CT_ERR_AUTOGRAD, "a leaf Variable that requires grad is being used in an in-place operation");
    ct_tensor *y = ct_mul_scalar(w, 2.0);
    CHECK(ct_get_requires_grad(y));
    CHECK(ct_bernoulli_scalar_(y, 0.5, NULL) == y && !ct_get_requires_grad(y) && ct_grad_fn(y) == NULL);
    /* memory is flat across repeated draws */
    int64_t live = ct_live_tensors();
    for (int k = 0; k < 3; k++) CT_SCOPE {
        ct_multinomial(ct_ones(CT_FLOAT32, 3, 5), 3, 0, NULL);
        ct_randperm(20, CT_INT64, NULL);
        ct_bernoulli(ct_full(CT_FLOAT32, 0.5, 4), NULL);
        ct_normal_tensor(ct_zeros(CT_FLOAT32, 4), ct_ones(CT_FLOAT32, 4), NULL);
    }
    CHECK_EQ_INT(ct_live_tensors(), live);
}

int main(void) {
    ct_t_init();
    RUN(test_randint_matches_torch);
    RUN(test_random_full_range);
    RUN(test_random_determinism_and_layout);
    RUN(test_randperm);
    RUN(test_bernoulli);
    RUN(test_exponential);
    RUN(test_multinomial);
    RUN(test_normal_tensor_and_like);
    RUN(test_random_errors_and_autograd);
    return ct_t_summary();
}
