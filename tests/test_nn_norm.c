/* test_nn_norm.c - batch_norm, layer_norm, group_norm, dropout, embedding,
   embedding_bag and their modules; LSTM and GRU. PyTorch parity of values and
   gradients is in tests/fixtures/nn_norm (the conformance runner); here:
   gradcheck/gradgradcheck, running statistics, modes, errors, reprs, memory. */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"
#include "ctensor_nn.h"

static ct_tensor *leaf(ct_tensor *t) { return ct_requires_grad(ct_detach(t)); }
static ct_tensor *rnd(uint64_t seed, int n, const int64_t *shape) {
    ct_manual_seed(seed);
    return ct_randn_n(CT_FLOAT64, n, shape);
}
#define RND(seed, ...) rnd(seed, CT_DIMS(__VA_ARGS__))

typedef struct { int kind, training, cl; double eps; int64_t groups; int64_t n; int64_t shape[4]; } fcase;
enum { F_BN, F_LN, F_GN, F_EMB_SUM, F_EMB_MEAN, F_EMB_MAX, F_DROPOUT, F_BN_NOAFFINE, F_LN_NOAFFINE };
static ct_tensor *fn_norm(ct_tensor *const *in, void *user) {
    fcase *c = (fcase *)user;
    switch (c->kind) {
    case F_BN: {
        ct_tensor *x = c->cl ? ct_to_channels_last(in[0]) : in[0];
        if (c->training) return ct_batch_norm(x, NULL, NULL, in[1], in[2], 1, 0.1, c->eps);
        ct_tensor *rm = ct_tensor_f64(((double[]){0.1, -0.2, 0.3}), 3), *rv = ct_tensor_f64(((double[]){0.5, 1.5, 2.0}), 3);
        return ct_batch_norm(x, rm, rv, in[1], in[2], 0, 0.1, c->eps);
    }
    case F_BN_NOAFFINE: return ct_batch_norm(in[0], NULL, NULL, NULL, NULL, 1, 0.1, c->eps);
    case F_LN: return ct_layer_norm(in[0], (int)c->n, c->shape, in[1], in[2], c->eps);
    case F_LN_NOAFFINE: return ct_layer_norm(in[0], (int)c->n, c->shape, NULL, NULL, c->eps);
    case F_GN: return ct_group_norm(in[0], c->groups, in[1], in[2], c->eps);
    case F_DROPOUT: ct_manual_seed(7); return ct_dropout(in[0], 0.4, 1);
    default: {
        ct_tensor *idx = ct_tensor_i64(((int64_t[]){0, 2, 1, 4, 4, 3, 0}), 7), *off = ct_tensor_i64(((int64_t[]){0, 3, 3, 5}), 4);
        const char *mode = c->kind == F_EMB_SUM ? "sum" : c->kind == F_EMB_MEAN ? "mean" : "max";
        return ct_embedding_bag(idx, in[0], off, mode, c->kind == F_EMB_SUM ? in[1] : NULL, 0);
    }
    }
}
static void gcheck(fcase c, int n, ct_tensor **in, int second, int line) {
    int ok = ct_gradcheck(fn_norm, &c, n, in, NULL);
    if (!ok) printf("line %d: gradcheck kind %d: %s\n", line, c.kind, ct_last_error());
    CHECK(ok);
    if (second) {
        ok = ct_gradgradcheck(fn_norm, &c, n, in, NULL);
        if (!ok) printf("line %d: gradgradcheck kind %d: %s\n", line, c.kind, ct_last_error());
        CHECK(ok);
    }
}

TEST(test_batch_norm_values_and_running_stats) {
    /* x [2, 2, 2]: channel 0 = {1, 2, 5, 6}, channel 1 = {3, 4, 7, 8} */
    ct_tensor *x = ct_tensor_f32(((float[]){1, 2, 3, 4, 5, 6, 7, 8}), 2, 2, 2);
    ct_tensor *rm = ct_zeros(CT_FLOAT32, 2), *rv = ct_ones(CT_FLOAT32, 2);
    ct_tensor *w = ct_tensor_f32(((float[]){2, 1}), 2), *b = ct_tensor_f32(((float[]){0, 1}), 2);
    ct_tensor *y = ct_batch_norm(x, rm, rv, w, b, 1, 0.1, 1e-5);
    /* mean 3.5 / 5.5, biased var 4.25, unbiased 17/3 */
    double is = 1.0 / sqrt(4.25 + 1e-5);
    double e[8] = {2 * -2.5 * is, 2 * -1.5 * is, -2.5 * is + 1, -1.5 * is + 1, 2 * 1.5 * is, 2 * 2.5 * is, 1.5 * is + 1, 2.5 * is + 1};
    CHECK_VALUES(y, e, 8, 1e-6);
    CHECK_VALUES(rm, ((double[]){0.35, 0.55}), 2, 1e-6);
    CHECK_VALUES(rv, ((double[]){0.9 + 0.1 * 17.0 / 3.0, 0.9 + 0.1 * 17.0 / 3.0}), 2, 1e-6);
    /* eval: the running statistics */
    ct_tensor *ye = ct_batch_norm(x, rm, rv, NULL, NULL, 0, 0.1, 1e-5);
    double rv0 = 0.9 + 0.1 * 17.0 / 3.0;
    CHECK_CLOSE(ct_item(ct_select(ct_flatten(ye, 0, -1), 0, 0)), (1 - 0.35) / sqrt(rv0 + 1e-5), 1e-5);
    CHECK(ct_version(rm) > 0);   /* updated in place */
    /* channels-last input: same values as NCHW, output keeps the layout */
    ct_tensor *x4 = ct_randn(CT_FLOAT32, 3, 4, 5, 6);
    ct_tensor *a = ct_batch_norm(x4, NULL, NULL, NULL, NULL, 1, 0.1, 1e-5);
    ct_tensor *cl = ct_batch_norm(ct_to_channels_last(x4), NULL, NULL, NULL, NULL, 1, 0.1, 1e-5);
    CHECK(ct_is_channels_last(cl));
    CHECK(ct_allclose(a, cl, 1e-5, 1e-6) == 1);
    /* a non-contiguous (transposed) input */
    ct_tensor *xt = ct_transpose(ct_randn(CT_FLOAT64, 5, 4, 3), 0, 2);
    ct_tensor *r1 = ct_batch_norm(xt, NULL, NULL, NULL, NULL, 1, 0.1, 1e-5), *r2 = ct_batch_norm(ct_contiguous(xt), NULL, NULL, NULL, NULL, 1, 0.1, 1e-5);
    CHECK(ct_allclose(r1, r2, 1e-12, 1e-12) == 1);
    /* eval (ct::batch_norm_eval, one pass): x (w / sqrt(rv + eps)) + b - rm w / sqrt(rv + eps) per channel,
       NCHW, channels-last (kept), a transposed view, and a 2-D input */
    {
        ct_tensor *x5 = ct_randn(CT_FLOAT64, 2, 3, 5, 7), *m5 = ct_randn(CT_FLOAT64, 3), *v5 = ct_rand(CT_FLOAT64, 3);
        ct_tensor *w5 = ct_randn(CT_FLOAT64, 3), *b5 = ct_randn(CT_FLOAT64, 3);
        ct_tensor *al = ct_view(ct_div(w5, ct_sqrt(ct_add_scalar(v5, 1e-3))), 1, 3, 1, 1);
        ct_tensor *want = ct_add(ct_mul(ct_sub(x5, ct_view(m5, 1, 3, 1, 1)), al), ct_view(b5, 1, 3, 1, 1));
        ct_tensor *got = ct_batch_norm(x5, m5, v5, w5, b5, 0, 0.1, 1e-3);
        CHECK(ct_allclose(got, want, 1e-12, 1e-12) == 1);
        CHECK_STR(ct_grad_fn_name(ct_batch_norm(leaf(x5), m5, v5, w5, b5, 0, 0.1, 1e-3)), "BatchNormEvalBackward0");
        ct_tensor *gcl = ct_batch_norm(ct_to_channels_last(x5), m5, v5, w5, b5, 0, 0.1, 1e-3);
        CHECK(ct_is_channels_last(gcl) && ct_allclose(gcl, want, 1e-12, 1e-12) == 1);
        ct_tensor *xt5 = ct_transpose(x5, 2, 3);
        CHECK(ct_allclose(ct_batch_norm(xt5, m5, v5, w5, b5, 0, 0.1, 1e-3), ct_transpose(want, 2, 3), 1e-12, 1e-12) == 1);
        ct_tensor *x2 = ct_randn(CT_FLOAT64, 4, 3), *y2 = ct_batch_norm(x2, m5, v5, w5, b5, 0, 0.1, 1e-3);
        CHECK(ct_allclose(y2, ct_add(ct_mul(ct_sub(x2, m5), ct_view(al, 3)), b5), 1e-12, 1e-12) == 1);
    }
    /* errors */
    CHECK_ERR(ct_batch_norm(ct_ones(CT_FLOAT32, 1, 3), NULL, NULL, NULL, NULL, 1, 0.1, 1e-5), CT_ERR_ARG,
              "Expected more than 1 value per channel when training, got input size torch.Size([1, 3])");
    CHECK_ERR(ct_batch_norm(x, ct_zeros(CT_FLOAT32, 3), NULL, NULL, NULL, 1, 0.1, 1e-5), CT_ERR_SHAPE, "running_mean should contain 2 elements not 3");
    CHECK_ERR(ct_batch_norm(x, NULL, NULL, ct_ones(CT_FLOAT32, 4), NULL, 1, 0.1, 1e-5), CT_ERR_SHAPE, "weight should contain 2 elements not 4");
    CHECK_ERR(ct_batch_norm(x, NULL, NULL, NULL, NULL, 0, 0.1, 1e-5), CT_ERR_ARG, "running_mean and running_var must be defined in evaluation mode");
    CHECK_ERR(ct_batch_norm(ct_ones(CT_INT64, 2, 2), NULL, NULL, NULL, NULL, 1, 0.1, 1e-5), CT_ERR_DTYPE, "not implemented for 'Long'");
    CHECK_ERR(ct_batch_norm(ct_ones(CT_FLOAT32, 4), NULL, NULL, NULL, NULL, 1, 0.1, 1e-5), CT_ERR_SHAPE, "at least 2 dims");
    CHECK_ERR(ct_batch_norm(x, NULL, NULL, ct_ones(CT_FLOAT64, 2), NULL, 1, 0.1, 1e-5), CT_ERR_DTYPE, "expected weight to have dtype");
}

TEST(test_batch_norm_grads) {
    ct_tensor *in[3];
    in[0] = leaf(RND(1, 4, 3, 2, 2));
    in[1] = leaf(RND(2, 3));
    in[2] = leaf(RND(3, 3));
    fcase c = {F_BN, 1, 0, 1e-5, 0, 0, {0}};
    gcheck(c, 3, in, 1, __LINE__);
    c.cl = 1;
    gcheck(c, 3, in, 1, __LINE__);
    c.cl = 0;
    c.training = 0;
    gcheck(c, 3, in, 1, __LINE__);
    c.cl = 1;   /* eval, channels-last */
    gcheck(c, 3, in, 1, __LINE__);
    c.cl = 0;
    /* a channels-last leaf (the finite differences perturb NHWC data), train and eval;
       a channels-last upstream gradient gives a channels-last input gradient (PyTorch's) */
    ct_tensor *xcl = leaf(ct_to_channels_last(RND(9, 3, 3, 2, 4)));
    for (c.training = 0; c.training < 2; c.training++) {
        ct_tensor *inc[3] = {xcl, in[1], in[2]};
        gcheck(c, 3, inc, 0, __LINE__);
        ct_tensor *yc = fn_norm(inc, &c);
        CHECK(ct_suggest_memory_format(yc) == CT_CHANNELS_LAST);
        ct_tensor *gx = NULL, *gyc = ct_randn_like(yc, NULL);
        CHECK(ct_autograd_grad(1, &yc, &gyc, 1, &xcl, &gx, NULL) == CT_OK);
        CHECK(gx && ct_is_contiguous_format(gx, CT_CHANNELS_LAST) && !ct_is_contiguous(gx));
    }
    in[0] = leaf(RND(4, 5, 3));   /* BatchNorm1d layout [N, C] */
    c.training = 1;
    gcheck(c, 3, in, 1, __LINE__);
    c.kind = F_BN_NOAFFINE;
    gcheck(c, 1, in, 1, __LINE__);
    /* the fused backward equals the recorded (create_graph) formula */
    ct_tensor *x = leaf(RND(5, 6, 3, 4, 4)), *w = leaf(RND(6, 3)), *b = leaf(RND(7, 3)), *g = RND(8, 6, 3, 4, 4);
    ct_tensor *y = ct_batch_norm(x, NULL, NULL, w, b, 1, 0.1, 1e-5);
    ct_tensor *ins[3] = {x, w, b}, *g1[3], *g2[3];
    ct_grad_options o1 = {1, 0, 0, 0}, o2 = {1, 1, 0, 0};
    CHECK(ct_autograd_grad(1, &y, &g, 3, ins, g1, &o1) == CT_OK);
    CHECK(ct_autograd_grad(1, &y, &g, 3, ins, g2, &o2) == CT_OK);
    for (int i = 0; i < 3; i++) CHECK(ct_allclose(g1[i], g2[i], 1e-10, 1e-12) == 1);
    CHECK_STR(ct_grad_fn_name(y), "NativeBatchNormBackward0");
}

TEST(test_layer_and_group_norm) {
    ct_tensor *x = ct_tensor_f64(((double[]){1, 2, 3, 4, 2, 4, 6, 8}), 2, 4);
    int64_t ns[1] = {4};
    ct_tensor *y = ct_layer_norm(x, 1, ns, NULL, NULL, 0.0);
    double s1 = sqrt(1.25), s2 = sqrt(5.0);
    CHECK_VALUES(y, ((double[]){-1.5 / s1, -0.5 / s1, 0.5 / s1, 1.5 / s1, -3 / s2, -1 / s2, 1 / s2, 3 / s2}), 8, 1e-12);
    ct_tensor *in[3];
    in[0] = leaf(RND(11, 3, 2, 3, 4));
    in[1] = leaf(RND(12, 3, 4));
    in[2] = leaf(RND(13, 3, 4));
    fcase c = {F_LN, 1, 0, 1e-5, 0, 2, {3, 4}};
    gcheck(c, 3, in, 1, __LINE__);
    c.n = 3;
    c.shape[0] = 2;
    c.shape[1] = 3;
    c.shape[2] = 4;
    in[1] = leaf(RND(14, 2, 3, 4));
    in[2] = leaf(RND(15, 2, 3, 4));
    gcheck(c, 3, in, 1, __LINE__);
    c.kind = F_LN_NOAFFINE;
    c.n = 4;
    c.shape[0] = 3; c.shape[1] = 2; c.shape[2] = 3; c.shape[3] = 4;
    gcheck(c, 1, in, 1, __LINE__);
    /* group_norm */
    fcase g = {F_GN, 1, 0, 1e-5, 2, 0, {0}};
    in[0] = leaf(RND(16, 2, 4, 3));
    in[1] = leaf(RND(17, 4));
    in[2] = leaf(RND(18, 4));
    gcheck(g, 3, in, 1, __LINE__);
    /* group_norm with one group per channel equals instance statistics */
    ct_tensor *xg = RND(19, 2, 3, 5);
    ct_tensor *a = ct_group_norm(xg, 3, NULL, NULL, 1e-5);
    int64_t ln[1] = {5};
    CHECK(ct_allclose(a, ct_layer_norm(xg, 1, ln, NULL, NULL, 1e-5), 1e-12, 1e-12) == 1);
    /* errors */
    int64_t bad[1] = {3};
    CHECK_ERR(ct_layer_norm(x, 1, bad, NULL, NULL, 1e-5), CT_ERR_SHAPE,
              "Given normalized_shape=[3], expected input with shape [*, 3], but got input of size[2, 4]");
    CHECK_ERR(ct_layer_norm(x, 1, ns, ct_ones(CT_FLOAT64, 3), NULL, 1e-5), CT_ERR_SHAPE,
              "Expected weight to be of same shape as normalized_shape, but got weight of shape [3] and normalized_shape = [4]");
    CHECK_ERR(ct_layer_norm(x, 0, ns, NULL, NULL, 1e-5), CT_ERR_ARG, "Expected normalized_shape to be at least 1-dimensional");
    CHECK_ERR(ct_group_norm(ct_ones(CT_FLOAT32, 2, 5, 3), 2, NULL, NULL, 1e-5), CT_ERR_SHAPE,
              "Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 5, 3] and num_groups=2");
    CHECK_ERR(ct_group_norm(ct_ones(CT_FLOAT32, 2, 4, 3), 2, ct_ones(CT_FLOAT32, 3), NULL, 1e-5), CT_ERR_SHAPE,
              "Expected weight to be a vector of size equal to the number of channels in input, but got weight of shape [3] and input of shape [2, 4, 3]");
    CHECK_STR(ct_grad_fn_name(ct_layer_norm(leaf(RND(20, 2, 5)), 1, ln, NULL, NULL, 1e-5)), "NativeLayerNormBackward0");
}

TEST(test_dropout) {
    ct_tensor *x = ct_ones(CT_FLOAT32, 1000);
    CHECK(ct_equal(ct_dropout(x, 0.0, 1), x) == 1);
    CHECK(ct_equal(ct_dropout(x, 0.5, 0), x) == 1);
    CHECK_CLOSE(ct_item(ct_sum(ct_dropout(x, 1.0, 1))), 0.0, 0);
    ct_manual_seed(0);
    ct_tensor *y = ct_dropout(x, 0.2, 1);
    /* every element is 0 or 1/(1-p) */
    ct_tensor *zero = ct_eq_scalar(y, 0.0), *kept = ct_eq_scalar(y, 1.25);
    CHECK_EQ_INT(ct_item_int(ct_sum(ct_logical_or(zero, kept))), 1000);
    double frac = ct_item(ct_mean(ct_to(zero, CT_FLOAT64)));
    CHECK(frac > 0.15 && frac < 0.25);
    /* the mask of PyTorch 1.13: torch.manual_seed(0); F.dropout(torch.ones(10), 0.5) */
    ct_manual_seed(0);
    ct_tensor *d = ct_dropout(ct_ones(CT_FLOAT32, 10), 0.5, 1);
    CHECK_VALUES(d, ((double[]){0, 0, 2, 0, 0, 0, 2, 2, 0, 2}), 10, 0);
    ct_tensor *in[1] = {leaf(RND(21, 3, 4))};
    fcase c = {F_DROPOUT, 1, 0, 0, 0, 0, {0}};
    gcheck(c, 1, in, 1, __LINE__);
    CHECK_ERR(ct_dropout(x, 1.5, 1), CT_ERR_ARG, "dropout probability has to be between 0 and 1, but got 1.5");
    CHECK_ERR(ct_nn_dropout(-0.1), CT_ERR_ARG, "dropout probability has to be between 0 and 1, but got -0.1");
}

TEST(test_embedding) {
    ct_tensor *w = leaf(ct_reshape(ct_arange(0, 12, 1, CT_FLOAT64), 4, 3));
    ct_tensor *idx = ct_tensor_i64(((int64_t[]){1, 0, 3, 1}), 2, 2);
    ct_tensor *e = ct_embedding(idx, w, 1);
    CHECK_EQ_INT(ct_ndim(e), 3);
    CHECK_VALUES(ct_select(ct_select(e, 0, 1), 0, 0), ((double[]){9, 10, 11}), 3, 0);
    CHECK_VALUES(ct_select(ct_select(e, 0, 0), 0, 0), ((double[]){3, 4, 5}), 3, 0);   /* the padding row is still read */
    CHECK(ct_backward(ct_sum(ct_mul(e, e))) == CT_OK);
    /* grad = 2 * w[row] * count, zero for the padding row 1 */
    CHECK_VALUES(ct_grad(w), ((double[]){0, 2, 4, 0, 0, 0, 0, 0, 0, 18, 20, 22}), 12, 1e-12);
    ct_tensor *i32 = ct_tensor_i32(((int32_t[]){2, 2}), 2);
    CHECK_VALUES(ct_embedding(i32, w, CT_NO_PADDING_IDX), ((double[]){6, 7, 8, 6, 7, 8}), 6, 0);
    CHECK_ERR(ct_embedding(ct_tensor_i64(((int64_t[]){4}), 1), w, CT_NO_PADDING_IDX), CT_ERR_INDEX, "index out of range in self");
    CHECK_ERR(ct_embedding(ct_ones(CT_FLOAT32, 2), w, CT_NO_PADDING_IDX), CT_ERR_DTYPE,
              "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got torch.FloatTensor instead");
    CHECK_ERR(ct_embedding(idx, w, 4), CT_ERR_ARG, "Padding_idx must be within num_embeddings");
    CHECK_ERR(ct_embedding(idx, ct_ones(CT_FLOAT32, 4), CT_NO_PADDING_IDX), CT_ERR_SHAPE, "'weight' must be 2-D");
    /* scale_grad_by_freq: row 1 is read twice, so each read adds half (sum's gradient: 1
       per read element); with padding_idx 3 that row gets none */
    {
        ct_tensor *ws = leaf(ct_reshape(ct_arange(0, 12, 1, CT_FLOAT64), 4, 3));
        ct_embedding_options so = {1, 3, 0.0, 0.0, 1};
        ct_tensor *es = ct_embedding_ex(idx, ws, &so);
        CHECK(ct_equal(es, ct_embedding(idx, ws, CT_NO_PADDING_IDX)) == 1);
        CHECK(ct_backward(ct_sum(es)) == CT_OK);
        CHECK_VALUES(ct_grad(ws), ((double[]){1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0}), 12, 0);
        CHECK(ct_equal(ct_embedding_ex(idx, ws, NULL), ct_embedding(idx, ws, CT_NO_PADDING_IDX)) == 1);
        ct_embedding_options bad = {0, 0, NAN, 0.0, 0};
        CHECK_ERR(ct_embedding_ex(idx, ws, &bad), CT_ERR_ARG, "embedding: max_norm (nan) and norm_type (0) must be >= 0");
        ct_embedding_options badpad = {1, 4, 0.0, 0.0, 0};
        CHECK_ERR(ct_embedding_ex(idx, ws, &badpad), CT_ERR_ARG, "Padding_idx must be within num_embeddings");
        ct_embedding_options mo = {0, 0, 0.0, 0.0, 1};
        ct_module *sm = ct_nn_embedding_ex(5, 2, &mo);
        char sb[128];
        ct_module_repr(sm, sb, sizeof sb);
        CHECK_STR(sb, "Embedding(5, 2, scale_grad_by_freq=True)");
        ct_module_free(sm);
    }
    /* embedding_renorm_ (max_norm): rows 0 (norm 5) and 2 (norm 10, named twice) scaled to
       norm 2 / (norm + 1e-7) * norm, row 1 (norm 1) kept, row 3 not named; in place on a
       leaf, recording no gradient; a bad index changes nothing */
    {
        double wv[] = {3, 4, 0.6, 0.8, 6, 8, 30, 40};
        ct_tensor *r = leaf(ct_from_data(wv, CT_FLOAT64, 4, 2));
        CHECK(ct_embedding_renorm_(r, ct_tensor_i64(((int64_t[]){2, 0, 1, 2}), 4), 2.0, 2.0) == r);
        double s0 = 2.0 / (5.0 + 1e-7), s2 = 2.0 / (10.0 + 1e-7);
        CHECK_VALUES(r, ((double[]){3 * s0, 4 * s0, 0.6, 0.8, 6 * s2, 8 * s2, 30, 40}), 8, 1e-15);
        CHECK(ct_grad_fn_name(r) == NULL && ct_get_requires_grad(r));
        double before[8];
        memcpy(before, ct_data_ptr(r), sizeof before);
        CHECK_ERR(ct_embedding_renorm_(r, ct_tensor_i64(((int64_t[]){3, 4}), 2), 1.0, 2.0), CT_ERR_INDEX,
                  "select(): index 4 out of range for tensor of size [4, 2] at dimension 0");
        CHECK(memcmp(before, ct_data_ptr(r), sizeof before) == 0);
        CHECK_VALUES(ct_embedding_renorm_(r, ct_tensor_i64(((int64_t[]){-1}), 1), 1.0, 1.0), ((double[]){3 * s0, 4 * s0, 0.6, 0.8, 6 * s2, 8 * s2, 30 / (70 + 1e-7), 40 / (70 + 1e-7)}), 8, 1e-15);
        CHECK_ERR(ct_embedding_renorm_(r, ct_ones(CT_FLOAT32, 2), 1.0, 2.0), CT_ERR_DTYPE,
                  "Expected tensor for argument #2 'indices' to have one of the following scalar types: Long, Int; but got torch.FloatTensor instead");
        CHECK_ERR(ct_embedding_renorm_(ct_ones(CT_FLOAT64, 4), idx, 1.0, 2.0), CT_ERR_SHAPE, "Expected 2-dimensional tensor, but got 1-dimensional tensor");
        CHECK_ERR(ct_embedding_renorm_(ct_ones(CT_INT64, 4, 2), idx, 1.0, 2.0), CT_ERR_DTYPE, "weight must be floating point");
        CHECK_ERR(ct_embedding_renorm_(NULL, idx, 1.0, 2.0), CT_ERR_NULL, "embedding_renorm_: argument 0 is NULL");
    }
    /* gradgradcheck through index_add */
    ct_tensor *in[2] = {leaf(RND(31, 5, 3)), leaf(RND(32, 7))};
    fcase c = {F_EMB_SUM, 1, 0, 0, 0, 0, {0}};
    gcheck(c, 2, in, 1, __LINE__);
}

TEST(test_embedding_bag) {
    ct_tensor *w = ct_reshape(ct_arange(0, 10, 1, CT_FLOAT64), 5, 2);
    ct_tensor *idx = ct_tensor_i64(((int64_t[]){0, 2, 1, 4, 4, 3, 0}), 7), *off = ct_tensor_i64(((int64_t[]){0, 3, 3, 5}), 4);
    /* bags: {0, 2, 1}, {}, {4, 4}, {3, 0} */
    CHECK_VALUES(ct_embedding_bag(idx, w, off, "sum", NULL, 0), ((double[]){6, 9, 0, 0, 16, 18, 6, 8}), 8, 0);
    CHECK_VALUES(ct_embedding_bag(idx, w, off, "mean", NULL, 0), ((double[]){2, 3, 0, 0, 8, 9, 3, 4}), 8, 1e-15);
    CHECK_VALUES(ct_embedding_bag(idx, w, off, "max", NULL, 0), ((double[]){4, 5, 0, 0, 8, 9, 6, 7}), 8, 0);
    ct_tensor *last = ct_tensor_i64(((int64_t[]){0, 3, 3, 5, 7}), 5);
    CHECK_VALUES(ct_embedding_bag(idx, w, last, "sum", NULL, 1), ((double[]){6, 9, 0, 0, 16, 18, 6, 8}), 8, 0);
    ct_tensor *two = ct_tensor_i64(((int64_t[]){0, 1, 2, 3}), 2, 2);
    CHECK_VALUES(ct_embedding_bag(two, w, NULL, "sum", ct_tensor_f64(((double[]){1, 2, 3, 0.5}), 2, 2), 0), ((double[]){4, 7, 15, 18.5}), 4, 1e-15);
    ct_tensor *in[2] = {leaf(RND(41, 5, 3)), leaf(RND(42, 7))};
    fcase c = {F_EMB_SUM, 1, 0, 0, 0, 0, {0}};
    gcheck(c, 2, in, 1, __LINE__);
    c.kind = F_EMB_MEAN;
    gcheck(c, 1, in, 1, __LINE__);
    c.kind = F_EMB_MAX;
    gcheck(c, 1, in, 0, __LINE__);
    CHECK_ERR(ct_embedding_bag(idx, w, off, "min", NULL, 0), CT_ERR_ARG, "mode has to be one of sum, mean or max");
    CHECK_ERR(ct_embedding_bag(idx, w, off, "mean", ct_ones(CT_FLOAT64, 7), 0), CT_ERR_ARG,
              "per_sample_weights is only supported for mode='sum' (got mode='mean')");
    CHECK_ERR(ct_embedding_bag(idx, w, NULL, "sum", NULL, 0), CT_ERR_ARG, "offsets has to be a 1D Tensor but got None");
    CHECK_ERR(ct_embedding_bag(two, w, off, "sum", NULL, 0), CT_ERR_ARG, "if input is 2D, then offsets has to be None");
    CHECK_ERR(ct_embedding_bag(idx, w, ct_tensor_i64(((int64_t[]){1, 3}), 2), "sum", NULL, 0), CT_ERR_ARG,
              "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. However, got 1");
    CHECK_ERR(ct_embedding_bag(idx, w, ct_tensor_i64(((int64_t[]){0, 9}), 2), "sum", NULL, 0), CT_ERR_INDEX, "can not be greater than input's length");
}

TEST(test_norm_modules) {
    char buf[512];
    ct_module *bn = ct_nn_batch_norm2d(3);
    ct_module_repr(bn, buf, sizeof buf);
    CHECK_STR(buf, "BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)");
    ct_state_dict sd;
    CHECK(ct_module_state_dict(bn, &sd) == CT_OK);
    CHECK_EQ_INT(sd.n, 5);
    if (sd.n == 5) {
        CHECK_STR(sd.items[0].name, "weight");
        CHECK_STR(sd.items[2].name, "running_mean");
        CHECK_STR(sd.items[4].name, "num_batches_tracked");
        CHECK(ct_get_dtype(sd.items[4].tensor) == CT_INT64 && ct_ndim(sd.items[4].tensor) == 0);
    }
    ct_state_dict_free(&sd);
    CHECK_EQ_INT(ct_module_parameters(bn, NULL, 0), 2);
    ct_tensor *x = ct_randn(CT_FLOAT32, 4, 3, 2, 2);
    ct_tensor *y = ct_forward(bn, x);
    CHECK(y && ct_get_requires_grad(y));
    CHECK_EQ_INT(ct_item_int(ct_module_get(bn, "num_batches_tracked")), 1);
    CHECK_CLOSE(ct_item(ct_mean(ct_module_get(bn, "running_mean"))), 0.1 * ct_item(ct_mean(x)), 1e-6);
    ct_module_eval(bn);
    ct_tensor *ye = ct_forward(bn, x);
    CHECK_EQ_INT(ct_item_int(ct_module_get(bn, "num_batches_tracked")), 1);
    CHECK(ye && ct_allclose(ye, y, 1e-3, 1e-3) == 0);
    CHECK_ERR(ct_forward(bn, ct_ones(CT_FLOAT32, 4, 3)), CT_ERR_SHAPE, "expected 4D input (got 2D input)");
    ct_module_free(bn);

    /* momentum=None: cumulative average; track_running_stats=False: no buffers */
    ct_module *cm = ct_nn_batch_norm1d_ex(2, &(ct_batch_norm_options){.momentum = NAN});
    ct_module_repr(cm, buf, sizeof buf);
    CHECK_STR(buf, "BatchNorm1d(2, eps=1e-05, momentum=None, affine=True, track_running_stats=True)");
    ct_tensor *a = ct_tensor_f32(((float[]){1, 2, 3, 4}), 2, 2), *b2 = ct_tensor_f32(((float[]){5, 6, 7, 10}), 2, 2);
    ct_forward(cm, a);
    ct_forward(cm, b2);
    CHECK_VALUES(ct_module_get(cm, "running_mean"), ((double[]){4, 5.5}), 2, 1e-6);
    CHECK_ERR(ct_forward(cm, ct_ones(CT_FLOAT32, 2, 2, 2, 2)), CT_ERR_SHAPE, "expected 2D or 3D input (got 4D input)");
    ct_module_free(cm);
    ct_module *nt = ct_nn_batch_norm1d_ex(2, &(ct_batch_norm_options){.eps = 1e-3, .no_affine = 1, .no_track_running_stats = 1});
    ct_module_repr(nt, buf, sizeof buf);
    CHECK_STR(buf, "BatchNorm1d(2, eps=0.001, momentum=0.1, affine=False, track_running_stats=False)");
    ct_module_eval(nt);
    CHECK(ct_forward(nt, a) != NULL);   /* no running stats: batch statistics in eval too */
    ct_module_free(nt);

    int64_t ns[2] = {2, 3};
    ct_module *ln = ct_nn_layer_norm(2, ns);
    ct_module_repr(ln, buf, sizeof buf);
    CHECK_STR(buf, "LayerNorm((2, 3), eps=1e-05, elementwise_affine=True)");
    CHECK(ct_forward(ln, ct_randn(CT_FLOAT32, 4, 2, 3)) != NULL);
    ct_module_free(ln);
    ct_module *ln1 = ct_nn_layer_norm_ex(1, ns, &(ct_layer_norm_options){.no_elementwise_affine = 1});
    ct_module_repr(ln1, buf, sizeof buf);
    CHECK_STR(buf, "LayerNorm((2,), eps=1e-05, elementwise_affine=False)");
    ct_module_free(ln1);
    ct_module *gn = ct_nn_group_norm(2, 4);
    ct_module_repr(gn, buf, sizeof buf);
    CHECK_STR(buf, "GroupNorm(2, 4, eps=1e-05, affine=True)");
    CHECK(ct_forward(gn, ct_randn(CT_FLOAT32, 2, 4, 3)) != NULL);
    ct_module_free(gn);
    CHECK_ERR(ct_nn_group_norm(3, 4), CT_ERR_ARG, "num_channels must be divisible by num_groups");

    ct_module *dr = ct_nn_dropout(0.5);
    ct_module_repr(dr, buf, sizeof buf);
    CHECK_STR(buf, "Dropout(p=0.5, inplace=False)");
    ct_tensor *ones = ct_ones(CT_FLOAT32, 64);
    CHECK(ct_equal(ct_forward(dr, ones), ones) == 0);
    ct_module_eval(dr);
    CHECK(ct_equal(ct_forward(dr, ones), ones) == 1);
    ct_module_free(dr);

    ct_module *em = ct_nn_embedding_padding(10, 3, -1);
    ct_module_repr(em, buf, sizeof buf);
    CHECK_STR(buf, "Embedding(10, 3, padding_idx=9)");
    CHECK_CLOSE(ct_item(ct_sum(ct_abs(ct_select(ct_module_get(em, "weight"), 0, 9)))), 0.0, 0);
    ct_tensor *ey = ct_forward(em, ct_tensor_i64(((int64_t[]){1, 9}), 2));
    CHECK(ct_backward(ct_sum(ey)) == CT_OK);
    CHECK_CLOSE(ct_item(ct_sum(ct_select(ct_grad(ct_module_get(em, "weight")), 0, 9))), 0.0, 0);
    CHECK_CLOSE(ct_item(ct_sum(ct_select(ct_grad(ct_module_get(em, "weight")), 0, 1))), 3.0, 0);
    ct_module_free(em);
    CHECK_ERR(ct_nn_embedding_padding(10, 3, 10), CT_ERR_ARG, "Padding_idx must be within num_embeddings");
    {   /* nn.Embedding(10, 3, padding_idx=2, max_norm=1.5, norm_type=1.0): each forward first
           renormalizes the rows it reads (here rows 4 and 7), as PyTorch's module does */
        ct_embedding_options eo = {1, 2, 1.5, 1.0, 0};
        ct_module *en = ct_nn_embedding_ex(10, 3, &eo);
        ct_module_repr(en, buf, sizeof buf);
        CHECK_STR(buf, "Embedding(10, 3, padding_idx=2, max_norm=1.5, norm_type=1.0)");
        ct_tensor *w = ct_module_get(en, "weight");
        ct_tensor *w0 = ct_clone(w), *ids = ct_tensor_i64(((int64_t[]){4, 7, 4}), 3);
        ct_tensor *y = ct_forward(en, ids);
        for (int r = 0; r < 10; r++) {
            ct_tensor *row = ct_select(w, 0, r), *row0 = ct_select(w0, 0, r);
            double n0 = ct_item(ct_norm(row0, 1.0, 0, NULL, 0));
            if (r == 4 || r == 7) CHECK_CLOSE(ct_item(ct_norm(row, 1.0, 0, NULL, 0)), n0 > 1.5 ? 1.5 * n0 / (n0 + 1e-7) : n0, 1e-6);
            else CHECK(ct_equal(row, row0) == 1);
        }
        CHECK(ct_equal(y, ct_embedding(ids, w, 2)) == 1);
        ct_module_free(en);
        ct_embedding_options bad = {0, 0, -1.0, 0.0, 0};
        CHECK_ERR(ct_nn_embedding_ex(10, 3, &bad), CT_ERR_ARG, "max_norm (-1) and norm_type (0) must be >= 0");
        ct_module *plain = ct_nn_embedding_ex(4, 2, NULL);
        ct_module_repr(plain, buf, sizeof buf);
        CHECK_STR(buf, "Embedding(4, 2)");
        ct_module_free(plain);
    }
    ct_module *eb = ct_nn_embedding_bag(10, 3, NULL);
    ct_module_repr(eb, buf, sizeof buf);
    CHECK_STR(buf, "EmbeddingBag(10, 3, mode=mean)");
    ct_tensor *ein[2] = {ct_tensor_i64(((int64_t[]){1, 2, 3}), 3), ct_tensor_i64(((int64_t[]){0, 1}), 2)};
    ct_tensor *eo = ct_forward_n(eb, 2, ein);
    CHECK(eo && ct_size(eo, 0) == 2 && ct_size(eo, 1) == 3);
    ct_module_free(eb);
    ct_module *sm = ct_nn_softmax(1), *lsm = ct_nn_log_softmax(-1);
    ct_module_repr(sm, buf, sizeof buf);
    CHECK_STR(buf, "Softmax(dim=1)");
    ct_module_repr(lsm, buf, sizeof buf);
    CHECK_STR(buf, "LogSoftmax(dim=-1)");
    ct_tensor *z = ct_randn(CT_FLOAT32, 2, 5);
    CHECK(ct_equal(ct_forward(sm, z), ct_softmax(z, 1)) == 1);
    CHECK(ct_equal(ct_forward(lsm, z), ct_log_softmax(z, -1)) == 1);
    ct_module_free(sm);
    ct_module_free(lsm);
}

/* A small CNN block trains: conv-free stand-in (BatchNorm2d between two channel mixes). */
TEST(test_memory_flat) {
    ct_module *bn = ct_nn_batch_norm2d(4);
    ct_module *ln = ct_nn_layer_norm(1, (int64_t[]){6});
    ct_module *lstm = ct_nn_lstm(6, 5, &(ct_rnn_options){.num_layers = 2, .bidirectional = 1});
    int64_t t0 = ct_live_tensors();
    for (int i = 0; i < 3; i++) CT_SCOPE {
        ct_tensor *x = ct_requires_grad(ct_randn(CT_FLOAT32, 3, 4, 2, 6));
        ct_tensor *y = ct_forward(ln, ct_forward(bn, x));
        ct_tensor *h = NULL, *c = NULL;
        ct_tensor *o = ct_lstm_forward(lstm, ct_reshape(y, 3, 8, 6), NULL, NULL, &h, &c);
        CHECK(o && h && c);
        CHECK(ct_backward(ct_add(ct_sum(o), ct_sum(c))) == CT_OK);
        ct_module_zero_grad(bn);
        ct_module_zero_grad(ln);
        ct_module_zero_grad(lstm);
    }
    CHECK_EQ_INT(ct_live_tensors(), t0);
    ct_module_free(bn);
    ct_module_free(ln);
    ct_module_free(lstm);
}

TEST(test_rnn_modules) {
    char buf[512];
    ct_module *l = ct_nn_lstm(4, 3, &(ct_rnn_options){.num_layers = 2, .batch_first = 1, .bidirectional = 1});
    ct_module_repr(l, buf, sizeof buf);
    CHECK_STR(buf, "LSTM(4, 3, num_layers=2, batch_first=True, bidirectional=True)");
    CHECK_EQ_INT(ct_module_parameters(l, NULL, 0), 16);
    CHECK(ct_module_get(l, "weight_ih_l1_reverse") && ct_size(ct_module_get(l, "weight_ih_l1_reverse"), 1) == 6);
    CHECK(ct_module_get(l, "bias_hh_l0") && ct_size(ct_module_get(l, "bias_hh_l0"), 0) == 12);
    ct_tensor *hn, *cn;
    ct_tensor *o = ct_lstm_forward(l, ct_randn(CT_FLOAT32, 2, 5, 4), NULL, NULL, &hn, &cn);
    CHECK(o && ct_size(o, 0) == 2 && ct_size(o, 1) == 5 && ct_size(o, 2) == 6);
    CHECK(hn && ct_size(hn, 0) == 4 && ct_size(hn, 1) == 2 && ct_size(hn, 2) == 3);
    /* unbatched input */
    ct_tensor *u = ct_forward(l, ct_randn(CT_FLOAT32, 5, 4));
    CHECK(u && ct_ndim(u) == 2 && ct_size(u, 1) == 6);
    CHECK_ERR(ct_forward(l, ct_randn(CT_FLOAT32, 2, 5, 3)), CT_ERR_SHAPE, "input.size(-1) must be equal to input_size. Expected 4, got 3");
    CHECK_ERR(ct_lstm_forward(l, ct_randn(CT_FLOAT32, 2, 5, 4), ct_zeros(CT_FLOAT32, 4, 2, 2), NULL, NULL, NULL), CT_ERR_SHAPE,
              "Expected hidden[0] size (4, 2, 3), got [4, 2, 2]");
    CHECK_ERR(ct_forward(l, ct_randn(CT_FLOAT32, 1, 2, 5, 4)), CT_ERR_SHAPE, "Expected input to be 2-D or 3-D but received 4-D tensor");
    ct_module *g = ct_nn_gru(4, 3, &(ct_rnn_options){.no_bias = 1});
    ct_module_repr(g, buf, sizeof buf);
    CHECK_STR(buf, "GRU(4, 3, bias=False)");
    CHECK_EQ_INT(ct_module_parameters(g, NULL, 0), 2);
    CHECK_ERR(ct_gru_forward(l, ct_randn(CT_FLOAT32, 2, 5, 4), NULL, NULL), CT_ERR_ARG, "not a GRU");
    /* seeded init equals PyTorch's: torch.manual_seed(0); nn.LSTM(2, 2).weight_ih_l0[0] */
    ct_manual_seed(0);
    ct_module *s = ct_nn_lstm(2, 2, NULL);
    CHECK_VALUES(ct_select(ct_module_get(s, "weight_ih_l0"), 0, 0), ((double[]){-0.0053, 0.3793}), 2, 1e-3);
    ct_module_free(s);
    ct_module_free(l);
    ct_module_free(g);
}

/* gradcheck through the composed recurrent layers (float64 module) */
static ct_module *RNN;
static ct_tensor *fn_lstm(ct_tensor *const *in, void *user) {
    ct_tensor *h = NULL, *c = NULL;
    ct_tensor *o = user ? ct_gru_forward(RNN, in[0], in[1], &h) : ct_lstm_forward(RNN, in[0], in[1], in[2], &h, &c);
    return o ? ct_cat(3, (ct_tensor *[]){ct_flatten(o, 0, -1), ct_flatten(h, 0, -1), ct_flatten(c ? c : h, 0, -1)}, 0) : NULL;
}
TEST(test_rnn_gradcheck) {
    ct_set_default_dtype(CT_FLOAT64);
    ct_manual_seed(1);
    RNN = ct_nn_lstm(3, 2, &(ct_rnn_options){.num_layers = 2, .bidirectional = 1});
    ct_set_default_dtype(CT_FLOAT32);
    ct_tensor *in[3] = {leaf(RND(51, 3, 2, 3)), leaf(RND(52, 4, 2, 2)), leaf(RND(53, 4, 2, 2))};
    int ok = ct_gradcheck(fn_lstm, NULL, 3, in, NULL);
    if (!ok) printf("lstm gradcheck: %s\n", ct_last_error());
    CHECK(ok);
    ct_module_free(RNN);
    ct_set_default_dtype(CT_FLOAT64);
    RNN = ct_nn_gru(3, 2, &(ct_rnn_options){.batch_first = 1});
    ct_set_default_dtype(CT_FLOAT32);
    in[1] = leaf(RND(54, 1, 3, 2));
    ok = ct_gradcheck(fn_lstm, RNN, 2, in, NULL);
    if (!ok) printf("gru gradcheck: %s\n", ct_last_error());
    CHECK(ok);
    ok = ct_gradgradcheck(fn_lstm, RNN, 2, in, NULL);
    if (!ok) printf("gru gradgradcheck: %s\n", ct_last_error());
    CHECK(ok);
    ct_module_free(RNN);
}

int main(void) {
    ct_t_init();
    RUN(test_batch_norm_values_and_running_stats);
    RUN(test_batch_norm_grads);
    RUN(test_layer_and_group_norm);
    RUN(test_dropout);
    RUN(test_embedding);
    RUN(test_embedding_bag);
    RUN(test_norm_modules);
    RUN(test_memory_flat);
    RUN(test_rnn_modules);
    RUN(test_rnn_gradcheck);
    return ct_t_summary();
}
