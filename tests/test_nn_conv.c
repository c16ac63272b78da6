/* Convolution and pooling: values (small hand-checked cases; channels-last
   against NCHW; float32 against float64), memory formats of outputs, gradcheck
   and gradgradcheck of every op in float64, PyTorch's errors, the modules
   (PyTorch's initialization against tests/fixtures/nn_conv/init, names, repr),
   and memory that returns to its start. Values and gradients against PyTorch
   are in the conformance fixtures (tests/fixtures/nn_conv). */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"
#include "ctensor_nn.h"

static ct_tensor *rnd(ct_dtype dt, int ndim, const int64_t *shape, uint64_t seed) {
    ct_generator g;
    ct_generator_init(&g, seed);
    return ct_to(ct_normal_(ct_empty_n(CT_FLOAT64, ndim, shape), 0.0, 1.0, &g), dt);
}
#define V64(n, ...) ct_from_data_n((const double[]){__VA_ARGS__}, CT_FLOAT64, 1, (const int64_t[]){n})
#define V32(n, ...) ct_from_data_n((const float[]){__VA_ARGS__}, CT_FLOAT32, 1, (const int64_t[]){n})
#define RND(dt, seed, ...) rnd(dt, CT_DIMS(__VA_ARGS__), seed)
static ct_tensor *leaf(ct_tensor *x) { return ct_requires_grad(ct_detach(x)); }

TEST(test_conv2d_values) {
    ct_tensor *x = ct_reshape(ct_arange(0, 9, 1, CT_FLOAT32), 1, 1, 3, 3);
    ct_tensor *w = ct_ones(CT_FLOAT32, 1, 1, 2, 2);
    ct_tensor *y = ct_conv2d(x, w, NULL, NULL);
    CHECK(y && ct_ndim(y) == 4 && ct_size(y, 2) == 2 && ct_size(y, 3) == 2);
    CHECK_VALUES(y, ((double[]){8, 12, 20, 24}), 4, 0);
    /* bias, padding 1, stride 2: corners of the padded image */
    ct_tensor *b = ct_full(CT_FLOAT32, 10.0, 1);
    y = ct_conv2d(x, w, b, &(ct_conv_options){.padding = 1, .stride = 2});
    CHECK_VALUES(y, ((double[]){10, 13, 19, 34}), 4, 0);
    /* unbatched input: (C, H, W) in, (C, H, W) out */
    y = ct_conv2d(ct_reshape(x, 1, 3, 3), w, NULL, NULL);
    CHECK(y && ct_ndim(y) == 3);
    CHECK_VALUES(y, ((double[]){8, 12, 20, 24}), 4, 0);
    /* conv1d */
    ct_tensor *x1 = ct_reshape(ct_arange(0, 5, 1, CT_FLOAT64), 1, 1, 5);
    ct_tensor *w1 = ct_reshape(V64(3, 1, 0, -1), 1, 1, 3);
    CHECK_VALUES(ct_conv1d(x1, w1, NULL, NULL), ((double[]){-2, -2, -2}), 3, 0);
    CHECK_VALUES(ct_conv1d(x1, w1, NULL, &(ct_conv_options){.padding_str = "same"}), ((double[]){-1, -2, -2, -2, 3}), 5, 0);
    /* conv_transpose2d spreads each input over the kernel */
    ct_tensor *xt = ct_reshape(V64(2, 1, 2), 1, 1, 1, 2);
    ct_tensor *wt = ct_ones(CT_FLOAT64, 1, 1, 2, 2);
    y = ct_conv_transpose2d(xt, wt, NULL, NULL);
    CHECK_VALUES(y, ((double[]){1, 3, 2, 1, 3, 2}), 6, 0);
    y = ct_conv_transpose2d(xt, wt, NULL, &(ct_conv_options){.stride = 2, .output_padding = 1});
    CHECK(y && ct_size(y, 2) == 3 && ct_size(y, 3) == 5);
}

TEST(test_conv2d_formats_and_dtypes) {
    /* large enough for the packed GEMM; channels-last in -> channels-last out, same values */
    ct_tensor *x = RND(CT_FLOAT32, 1, 3, 16, 9, 11), *w = RND(CT_FLOAT32, 2, 24, 8, 3, 3), *b = RND(CT_FLOAT32, 3, 24);
    ct_conv_options o = {.padding = 1, .groups = 2};
    ct_tensor *y = ct_conv2d(x, w, b, &o);
    ct_tensor *xcl = ct_to_channels_last(x);
    ct_tensor *ycl = ct_conv2d(xcl, w, b, &o);
    CHECK(ycl && ct_is_channels_last(ycl) && !ct_is_contiguous(ycl));
    CHECK(ct_is_contiguous(y));
    CHECK(ct_allclose(y, ycl, 1e-5, 1e-5) == 1);
    /* float32 against float64 */
    ct_tensor *y64 = ct_conv2d(ct_to(x, CT_FLOAT64), ct_to(w, CT_FLOAT64), ct_to(b, CT_FLOAT64), &o);
    CHECK(ct_allclose(ct_to(y, CT_FLOAT64), y64, 1e-4, 1e-4) == 1);
    /* 1x1 convolutions read the input directly, in both formats */
    ct_tensor *w1 = RND(CT_FLOAT32, 4, 5, 16, 1, 1);
    ct_tensor *y1 = ct_conv2d(x, w1, NULL, NULL), *y1cl = ct_conv2d(xcl, w1, NULL, NULL);
    CHECK(ct_allclose(y1, y1cl, 1e-5, 1e-5) == 1);
    CHECK(ct_allclose(y1, ct_permute(ct_matmul(ct_permute(x, 0, 2, 3, 1), ct_t(ct_reshape(w1, 5, 16))), 0, 3, 1, 2), 1e-5, 1e-5) == 1);
    /* a non-contiguous (permuted) input */
    ct_tensor *xp = ct_permute(RND(CT_FLOAT64, 5, 2, 9, 16, 11), 0, 2, 1, 3);
    CHECK(ct_allclose(ct_conv2d(xp, ct_to(w, CT_FLOAT64), NULL, &o), ct_conv2d(ct_contiguous(xp), ct_to(w, CT_FLOAT64), NULL, &o), 1e-12, 1e-12) == 1);
    /* pooling keeps the memory format */
    ct_tensor *mp = ct_max_pool2d(xcl, 2, NULL), *ap = ct_avg_pool2d(xcl, 2, NULL);
    CHECK(ct_is_channels_last(mp) && !ct_is_contiguous(mp) && ct_is_channels_last(ap));
    CHECK(ct_allclose(mp, ct_max_pool2d(x, 2, NULL), 0, 0) == 1);
    CHECK(ct_allclose(ap, ct_avg_pool2d(x, 2, NULL), 1e-6, 1e-6) == 1);
    /* the empty batch */
    ct_tensor *e = ct_conv2d(ct_zeros(CT_FLOAT32, 0, 16, 5, 5), w, b, &o);
    CHECK(e && ct_size(e, 0) == 0 && ct_size(e, 1) == 24);
}

/* A batch large enough to run threaded (optimized build): its gradients must
   equal the sums of the per-sample gradients (samples run one at a time). */
/* a batch gives what its samples give one by one (values, input gradients; the weight
   and bias gradients are the samples' sums): batches of small output planes take the
   folded path (one GEMM over the batch), single samples the per-sample one */
static int batch_vs_samples(ct_tensor *x, ct_tensor *w, ct_tensor *b, ct_conv_options o, int cl, double tol) {
    if (cl) x = ct_to_channels_last(x);
    ct_tensor *xl = leaf(x), *wl = leaf(w), *bl = b ? leaf(b) : NULL;
    ct_tensor *y = ct_conv2d(xl, wl, bl, &o);
    if (!y || (cl && !ct_is_channels_last(y))) return 0;
    ct_tensor *g = ct_randn_like(y, NULL);
    ct_backward(ct_sum(ct_mul(y, g)));
    ct_tensor *gw = NULL, *gb = NULL;
    int ok = 1;
    for (int64_t n = 0; n < ct_size(x, 0); n++) {
        ct_tensor *xn = leaf(ct_narrow(x, 0, n, 1)), *wn = leaf(w), *bn = b ? leaf(b) : NULL;
        ct_tensor *yn = ct_conv2d(xn, wn, bn, &o);
        ok &= yn && ct_allclose(yn, ct_narrow(y, 0, n, 1), tol, tol) == 1;
        ct_backward(ct_sum(ct_mul(yn, ct_narrow(g, 0, n, 1))));
        ok &= ct_allclose(ct_grad(xn), ct_narrow(ct_grad(xl), 0, n, 1), tol, tol) == 1;
        gw = gw ? ct_add(gw, ct_grad(wn)) : ct_grad(wn);
        if (b) gb = gb ? ct_add(gb, ct_grad(bn)) : ct_grad(bn);
    }
    ok &= ct_allclose(gw, ct_grad(wl), 10 * tol, 10 * tol) == 1;
    if (b) ok &= ct_allclose(gb, ct_grad(bl), 10 * tol, 10 * tol) == 1;
    return ok;
}
TEST(test_batch_equals_samples) {
    for (int cl = 0; cl < 2; cl++) {
        /* per-sample path (20 x 20 outputs) */
        CHECK(batch_vs_samples(RND(CT_FLOAT64, 70, 4, 16, 20, 20), RND(CT_FLOAT64, 71, 32, 16, 3, 3), RND(CT_FLOAT64, 72, 32),
                               (ct_conv_options){.padding = 1}, cl, 1e-12));
        /* folded: 4 x 4 and 2 x 2 outputs, strides, dilation, 1x1, no bias, float32 */
        CHECK(batch_vs_samples(RND(CT_FLOAT64, 73, 3, 16, 4, 4), RND(CT_FLOAT64, 74, 24, 16, 3, 3), RND(CT_FLOAT64, 75, 24),
                               (ct_conv_options){.padding = 1}, cl, 1e-12));
        CHECK(batch_vs_samples(RND(CT_FLOAT64, 76, 2, 8, 7, 5), RND(CT_FLOAT64, 77, 12, 8, 3, 2), NULL,
                               (ct_conv_options){.stride = 2, .padding_hw = {1, 0}}, cl, 1e-12));
        CHECK(batch_vs_samples(RND(CT_FLOAT64, 78, 5, 6, 6, 6), RND(CT_FLOAT64, 79, 10, 6, 3, 3), RND(CT_FLOAT64, 80, 10),
                               (ct_conv_options){.dilation = 2, .padding = 1}, cl, 1e-12));
        CHECK(batch_vs_samples(RND(CT_FLOAT64, 81, 3, 16, 2, 2), RND(CT_FLOAT64, 82, 32, 16, 1, 1), RND(CT_FLOAT64, 83, 32),
                               (ct_conv_options){0}, cl, 1e-12));
        CHECK(batch_vs_samples(RND(CT_FLOAT32, 84, 3, 32, 2, 2), RND(CT_FLOAT32, 85, 48, 32, 3, 3), RND(CT_FLOAT32, 86, 48),
                               (ct_conv_options){.padding = 1}, cl, 2e-4));
    }
    /* folded in chunks: K * L (2048 * 9 * 49) allows 4 samples of 6 per chunk */
    CHECK(batch_vs_samples(RND(CT_FLOAT64, 87, 6, 2048, 7, 7), RND(CT_FLOAT64, 88, 3, 2048, 3, 3), RND(CT_FLOAT64, 89, 3),
                           (ct_conv_options){.padding = 1}, 0, 1e-11));
}

TEST(test_pool_values) {
    ct_tensor *x = ct_reshape(V64(16, 1, 5, 2, 0, 3, 4, 8, 7, -1, 6, 9, 2, 0, 0, 1, 3), 1, 1, 4, 4);
    ct_tensor *ind = NULL;
    ct_tensor *y = ct_max_pool2d_with_indices(x, 2, NULL, &ind);
    CHECK_VALUES(y, ((double[]){5, 8, 6, 9}), 4, 0);
    CHECK(ind && ct_get_dtype(ind) == CT_INT64);
    CHECK_VALUES(ind, ((double[]){1, 6, 9, 10}), 4, 0);
    CHECK_VALUES(ct_avg_pool2d(x, 2, NULL), ((double[]){3.25, 4.25, 1.25, 3.75}), 4, 1e-15);
    CHECK_VALUES(ct_adaptive_avg_pool2d(x, 1, 1), ((double[]){3.125}), 1, 1e-15);
    /* padding: count_include_pad (default) divides by the full window */
    ct_tensor *o1 = ct_avg_pool2d(ct_ones(CT_FLOAT64, 1, 1, 2, 2), 2, &(ct_pool_options){.padding = 1});
    CHECK_VALUES(o1, ((double[]){0.25, 0.25, 0.25, 0.25}), 4, 0);
    ct_tensor *o2 = ct_avg_pool2d(ct_ones(CT_FLOAT64, 1, 1, 2, 2), 2, &(ct_pool_options){.padding = 1, .count_exclude_pad = 1});
    CHECK_VALUES(o2, ((double[]){1, 1, 1, 1}), 4, 0);
    /* NaN wins the max, as in PyTorch */
    ct_tensor *xn = ct_reshape(V32(4, 1, NAN, 3, 2), 1, 1, 2, 2);
    CHECK(isnan(ct_item(ct_max_pool2d(xn, 2, NULL))));
    /* 1-d pools */
    ct_tensor *x1 = ct_reshape(V64(5, 1, 3, 2, 5, 4), 1, 1, 5);
    CHECK_VALUES(ct_max_pool1d(x1, 2, NULL), ((double[]){3, 5}), 2, 0);
    CHECK_VALUES(ct_avg_pool1d(x1, 2, &(ct_pool_options){.stride = 1}), ((double[]){2, 2.5, 3.5, 4.5}), 4, 0);
    /* ceil_mode keeps the last partial window */
    CHECK_VALUES(ct_max_pool1d(x1, 2, &(ct_pool_options){.ceil_mode = 1}), ((double[]){3, 5, 4}), 3, 0);
}

/* ceil_mode: windows that run past the input are clipped (the 2x2 stride-2 max
   pool once read past the input); values from PyTorch 1.13 */
TEST(test_pool_ceil_mode) {
    ct_pool_options ceil = {.ceil_mode = 1};
    for (int dt = 0; dt < 2; dt++) {
        ct_dtype d = dt ? CT_FLOAT64 : CT_FLOAT32;
        /* F.max_pool2d(torch.tensor([[[[-1., -2, -3]]]]), 2, 2, ceil_mode=True) */
        ct_tensor *ind = NULL, *y = ct_max_pool2d_with_indices(ct_to(ct_reshape(V64(3, -1, -2, -3), 1, 1, 1, 3), d), 2, &ceil, &ind);
        CHECK_VALUES(y, ((double[]){-1, -3}), 2, 0);
        CHECK_VALUES(ind, ((double[]){0, 2}), 2, 0);
        CHECK_VALUES(ct_max_pool1d(ct_to(ct_reshape(V64(3, -1, -2, -3), 1, 1, 3), d), 2, &ceil), ((double[]){-1, -3}), 2, 0);
        /* 3 x 5: a partial last row and column, in both memory formats */
        ct_tensor *x = ct_to(ct_reshape(V64(15, 5, 1, -2, 7, 0, 3, 9, 4, -1, 8, 6, 2, -5, 1, 2), 1, 1, 3, 5), d);
        ct_tensor *xs[2] = {x, ct_to_channels_last(ct_expand(x, 1, 2, 3, 5))};
        for (int f = 0; f < 2; f++) {
            y = ct_max_pool2d_with_indices(xs[f], 2, &(ct_pool_options){.stride = 2, .ceil_mode = 1}, &ind);
            CHECK_VALUES(ct_narrow(y, 1, 0, 1), ((double[]){9, 7, 8, 6, 1, 2}), 6, 0);
            CHECK_VALUES(ct_narrow(ind, 1, 0, 1), ((double[]){6, 3, 9, 10, 13, 14}), 6, 0);
            CHECK_VALUES(ct_narrow(ct_avg_pool2d(xs[f], 2, &ceil), 1, 0, 1), ((double[]){4.5, 2, 4, 4, -2, 2}), 6, 1e-7);
        }
        ct_tensor *xl = leaf(x);
        ct_backward(ct_sum(ct_max_pool2d(xl, 2, &ceil)));
        CHECK_VALUES(ct_grad(xl), ((double[]){0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 1}), 15, 0);
    }
    /* avg_pool2d's divisor with ceil_mode: the window within the padded input, or within the input */
    CHECK_VALUES(ct_avg_pool2d(ct_reshape(ct_arange(0, 9, 1, CT_FLOAT64), 1, 1, 3, 3), 2, &ceil), ((double[]){2, 3.5, 6.5, 8}), 4, 0);
    CHECK_VALUES(ct_avg_pool2d(ct_ones(CT_FLOAT64, 1, 1, 3, 3), 2, &(ct_pool_options){.padding = 1, .ceil_mode = 1}),
                 ((double[]){0.25, 0.5, 0.5, 1}), 4, 0);
    ct_pool_options p1 = {.stride = 2, .padding = 1, .ceil_mode = 1};
    CHECK_VALUES(ct_avg_pool2d(ct_ones(CT_FLOAT64, 1, 1, 5, 5), 3, &p1),
                 ((double[]){4. / 9, 6. / 9, 4. / 9, 6. / 9, 1, 6. / 9, 4. / 9, 6. / 9, 4. / 9}), 9, 1e-15);
    CHECK_VALUES(ct_avg_pool2d(ct_ones(CT_FLOAT64, 1, 1, 5, 5), 3, &(ct_pool_options){.stride = 2, .padding = 1, .ceil_mode = 1, .count_exclude_pad = 1}),
                 ((double[]){1, 1, 1, 1, 1, 1, 1, 1, 1}), 9, 1e-15);
    ct_tensor *xa = leaf(ct_reshape(ct_arange(1, 21, 1, CT_FLOAT64), 1, 1, 4, 5));
    ct_tensor *ya = ct_avg_pool2d(xa, 3, &p1);
    CHECK_VALUES(ya, ((double[]){16. / 9, 11. / 3, 28. / 9, 23. / 3, 13, 29. / 3, 5.5, 9, 6.5}), 9, 1e-15);
    ct_backward(ct_sum(ya));
    CHECK_VALUES(ct_grad(xa), ((double[]){1. / 9, 2. / 9, 1. / 9, 2. / 9, 1. / 9, 2. / 9, 4. / 9, 2. / 9, 4. / 9, 2. / 9, 1. / 9, 2. / 9, 1. / 9,
                                          2. / 9, 1. / 9, 5. / 18, 5. / 9, 5. / 18, 5. / 9, 5. / 18}), 20, 1e-15);
    /* 1-d pools */
    ct_tensor *x1 = ct_reshape(V64(5, 1, 3, 2, 5, 4), 1, 1, 5);
    CHECK_VALUES(ct_avg_pool1d(x1, 2, &ceil), ((double[]){2, 3.5, 4}), 3, 0);
    CHECK_VALUES(ct_avg_pool1d(x1, 3, &p1), ((double[]){4. / 3, 10. / 3, 3}), 3, 1e-15);
    CHECK_VALUES(ct_avg_pool1d(x1, 3, &(ct_pool_options){.stride = 2, .padding = 1, .ceil_mode = 1, .count_exclude_pad = 1}),
                 ((double[]){2, 10. / 3, 4.5}), 3, 1e-15);
    /* adaptive windows that overlap: [0, 2) and [1, 3) of 3 rows; [0, 2), [1, 4), [3, 5) of 5 columns */
    ct_tensor *xd = leaf(ct_reshape(ct_arange(0, 15, 1, CT_FLOAT64), 1, 1, 3, 5));
    ct_tensor *yd = ct_adaptive_avg_pool2d(xd, 2, 3);
    CHECK_VALUES(yd, ((double[]){3, 4.5, 6, 8, 9.5, 11}), 6, 1e-15);
    ct_backward(ct_sum(yd));
    CHECK_VALUES(ct_grad(xd), ((double[]){0.25, 5. / 12, 1. / 6, 5. / 12, 0.25, 0.5, 5. / 6, 1. / 3, 5. / 6, 0.5, 0.25, 5. / 12, 1. / 6, 5. / 12, 0.25}),
                 15, 1e-15);
}

/* gradcheck / gradgradcheck functions: inputs x, w[, b] */
typedef struct gc_case { int kind; ct_conv_options co; ct_pool_options po; int64_t k; int cl; } gc_case;
enum { K_CONV2D, K_CONV1D, K_CONVT, K_MAXPOOL, K_AVGPOOL, K_ADAPTIVE, K_MAXPOOL1D, K_AVGPOOL1D };
static ct_tensor *gc_fn(ct_tensor *const *in, void *user) {
    const gc_case *c = (const gc_case *)user;
    ct_tensor *x = c->cl ? ct_to_channels_last(in[0]) : in[0];
    switch (c->kind) {
    case K_CONV2D: return ct_conv2d(x, in[1], in[2], &c->co);
    case K_CONV1D: return ct_conv1d(x, in[1], in[2], &c->co);
    case K_CONVT: return ct_conv_transpose2d(x, in[1], in[2], &c->co);
    case K_MAXPOOL: return ct_max_pool2d(x, c->k, &c->po);
    case K_AVGPOOL: return ct_avg_pool2d(x, c->k, &c->po);
    case K_ADAPTIVE: return ct_adaptive_avg_pool2d(x, c->k, c->k + 1);
    case K_MAXPOOL1D: return ct_max_pool1d(x, c->k, &c->po);
    default: return ct_avg_pool1d(x, c->k, &c->po);
    }
}
/* squared: conv is bilinear, so gradgradcheck needs a non-linear head */
static ct_tensor *gc_fn_sq(ct_tensor *const *in, void *user) {
    ct_tensor *y = gc_fn(in, user);
    return ct_mul(y, y);
}
static void check_conv_grads(int line, gc_case c, ct_tensor *x, ct_tensor *w, ct_tensor *b, int gradgrad) {
    ct_tensor *in[3] = {leaf(x), leaf(w), leaf(b)};
    int ok = ct_gradcheck(gc_fn, &c, 3, in, NULL);
    if (!ok) printf("line %d: gradcheck: %s\n", line, ct_last_error());
    CHECK(ok);
    if (gradgrad) {
        ok = ct_gradgradcheck(gc_fn_sq, &c, 3, in, NULL);
        if (!ok) printf("line %d: gradgradcheck: %s\n", line, ct_last_error());
        CHECK(ok);
    }
}
static void check_pool_grads(int line, gc_case c, ct_tensor *x, int gradgrad) {
    ct_tensor *in[1] = {leaf(x)};
    int ok = ct_gradcheck(gc_fn, &c, 1, in, NULL);
    if (!ok) printf("line %d: gradcheck: %s\n", line, ct_last_error());
    CHECK(ok);
    if (gradgrad) {
        ok = ct_gradgradcheck(gc_fn_sq, &c, 1, in, NULL);
        if (!ok) printf("line %d: gradgradcheck: %s\n", line, ct_last_error());
        CHECK(ok);
    }
}
static gc_case gconv(int kind, ct_conv_options o, int cl) {
    gc_case c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.co = o;
    c.cl = cl;
    return c;
}
static gc_case gpool(int kind, int64_t k, ct_pool_options o, int cl) {
    gc_case c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.k = k;
    c.po = o;
    c.cl = cl;
    return c;
}
#define D CT_FLOAT64
TEST(test_gradcheck_conv) {
    check_conv_grads(__LINE__, gconv(K_CONV2D, (ct_conv_options){0}, 0), RND(D, 1, 2, 2, 4, 5), RND(D, 2, 3, 2, 2, 3), RND(D, 3, 3), 1);
    check_conv_grads(__LINE__, gconv(K_CONV2D, (ct_conv_options){.stride_hw = {2, 1}, .padding_hw = {1, 2}, .dilation_hw = {1, 2}}, 0),
                     RND(D, 4, 1, 2, 5, 6), RND(D, 5, 2, 2, 3, 2), RND(D, 6, 2), 1);
    check_conv_grads(__LINE__, gconv(K_CONV2D, (ct_conv_options){.groups = 2, .padding = 1}, 1),
                     RND(D, 7, 2, 4, 3, 4), RND(D, 8, 4, 2, 3, 3), RND(D, 9, 4), 1);
    check_conv_grads(__LINE__, gconv(K_CONV2D, (ct_conv_options){0}, 1), RND(D, 10, 2, 3, 3, 2), RND(D, 11, 2, 3, 1, 1), RND(D, 12, 2), 1);
    check_conv_grads(__LINE__, gconv(K_CONV2D, (ct_conv_options){.padding_str = "same"}, 0), RND(D, 13, 1, 2, 4, 4), RND(D, 14, 2, 2, 2, 3),
                     RND(D, 15, 2), 0);
    check_conv_grads(__LINE__, gconv(K_CONV1D, (ct_conv_options){.stride = 2, .padding = 1, .dilation = 2}, 0), RND(D, 16, 2, 2, 7),
                     RND(D, 17, 3, 2, 2), RND(D, 18, 3), 1);
    check_conv_grads(__LINE__, gconv(K_CONVT, (ct_conv_options){.stride = 2, .padding = 1, .output_padding = 1}, 0),
                     RND(D, 19, 2, 2, 3, 3), RND(D, 20, 2, 3, 3, 3), RND(D, 21, 3), 1);
    check_conv_grads(__LINE__, gconv(K_CONVT, (ct_conv_options){.groups = 2, .dilation = 2}, 1),
                     RND(D, 22, 1, 4, 2, 3), RND(D, 23, 4, 1, 2, 2), RND(D, 24, 2), 1);
}
TEST(test_gradcheck_pool) {
    check_pool_grads(__LINE__, gpool(K_MAXPOOL, 2, (ct_pool_options){0}, 0), RND(D, 30, 2, 2, 4, 6), 1);
    check_pool_grads(__LINE__, gpool(K_MAXPOOL, 3, (ct_pool_options){.stride = 2, .padding = 1, .ceil_mode = 1}, 1), RND(D, 31, 1, 3, 5, 6), 1);
    check_pool_grads(__LINE__, gpool(K_MAXPOOL, 2, (ct_pool_options){.stride = 1, .dilation = 2}, 0), RND(D, 32, 1, 2, 5, 5), 0);
    check_pool_grads(__LINE__, gpool(K_AVGPOOL, 2, (ct_pool_options){0}, 0), RND(D, 33, 2, 2, 4, 6), 1);
    check_pool_grads(__LINE__, gpool(K_AVGPOOL, 3, (ct_pool_options){.stride = 2, .padding = 1, .ceil_mode = 1, .count_exclude_pad = 1}, 1),
                     RND(D, 34, 1, 2, 6, 5), 1);
    check_pool_grads(__LINE__, gpool(K_AVGPOOL, 2, (ct_pool_options){.divisor_override = 3}, 0), RND(D, 35, 1, 1, 4, 4), 0);
    check_pool_grads(__LINE__, gpool(K_ADAPTIVE, 2, (ct_pool_options){0}, 0), RND(D, 36, 2, 2, 5, 7), 1);
    check_pool_grads(__LINE__, gpool(K_MAXPOOL1D, 3, (ct_pool_options){.stride = 2, .padding = 1}, 0), RND(D, 37, 2, 2, 9), 0);
    check_pool_grads(__LINE__, gpool(K_AVGPOOL1D, 2, (ct_pool_options){0}, 0), RND(D, 38, 2, 2, 9), 0);
}

TEST(test_grad_fn_names) {
    ct_tensor *x = leaf(RND(D, 40, 1, 2, 4, 4)), *w = leaf(RND(D, 41, 2, 2, 3, 3));
    CHECK_STR(ct_node_name(ct_grad_fn(ct_conv2d(x, w, NULL, NULL))), "ConvolutionBackward0");
    CHECK_STR(ct_node_name(ct_grad_fn(ct_conv_transpose2d(x, w, NULL, NULL))), "ConvolutionBackward0");
    CHECK_STR(ct_node_name(ct_grad_fn(ct_max_pool2d(x, 2, NULL))), "MaxPool2DWithIndicesBackward0");
    CHECK_STR(ct_node_name(ct_grad_fn(ct_avg_pool2d(x, 2, NULL))), "AvgPool2DBackward0");
    CHECK_STR(ct_node_name(ct_grad_fn(ct_adaptive_avg_pool2d(x, 2, 2))), "AdaptiveAvgPool2DBackward0");
    /* the backward of max_pool2d: gradient lands on the argmax */
    ct_tensor *xs = leaf(ct_reshape(V64(16, 1, 5, 2, 0, 3, 4, 8, 7, -1, 6, 9, 2, 0, 0, 1, 3), 1, 1, 4, 4));
    ct_backward(ct_sum(ct_max_pool2d(xs, 2, NULL)));
    CHECK_VALUES(ct_grad(xs), ((double[]){0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0}), 16, 0);
}

TEST(test_errors) {
    ct_tensor *x = ct_ones(CT_FLOAT32, 2, 3, 8, 8), *w = ct_ones(CT_FLOAT32, 4, 3, 3, 3);
    CHECK_ERR(ct_conv2d(ct_ones(CT_FLOAT32, 2, 3), w, NULL, NULL), CT_ERR_SHAPE,
              "conv2d: Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [2, 3]");
    CHECK_ERR(ct_conv2d(ct_ones(CT_FLOAT32, 2, 5, 8, 8), w, NULL, NULL), CT_ERR_SHAPE,
              "Given groups=1, weight of size [4, 3, 3, 3], expected input[2, 5, 8, 8] to have 3 channels, but got 5 channels instead");
    CHECK_ERR(ct_conv2d(ct_ones(CT_FLOAT32, 2, 3, 2, 2), w, NULL, NULL), CT_ERR_SHAPE,
              "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size can't be greater than actual input size");
    CHECK_ERR(ct_conv2d(x, ct_ones(CT_FLOAT32, 3, 1, 3, 3), NULL, &(ct_conv_options){.groups = 2}), CT_ERR_SHAPE,
              "Given groups=2, expected weight to be divisible by 2 at dimension 0");
    CHECK_ERR(ct_conv2d(x, w, ct_ones(CT_FLOAT32, 5), NULL), CT_ERR_SHAPE,
              "Given weight of size [4, 3, 3, 3], expected bias to be 1-dimensional with 4 elements, but got bias of size [5] instead");
    CHECK_ERR(ct_conv2d(x, w, NULL, &(ct_conv_options){.stride = -1}), CT_ERR_ARG, "non-positive stride is not supported");
    CHECK_ERR(ct_conv2d(x, w, NULL, &(ct_conv_options){.padding = -1}), CT_ERR_ARG, "negative padding is not supported");
    CHECK_ERR(ct_conv2d(x, w, NULL, &(ct_conv_options){.dilation_hw = {0, 1}}), CT_ERR_ARG, "non-positive dilation is not supported");
    CHECK_ERR(ct_conv2d(x, w, NULL, &(ct_conv_options){.stride = 2, .padding_str = "same"}), CT_ERR_ARG,
              "padding='same' is not supported for strided convolutions");
    CHECK_ERR(ct_conv2d(x, w, NULL, &(ct_conv_options){.padding_str = "foo"}), CT_ERR_ARG, "Invalid padding string: 'foo'");
    CHECK_ERR(ct_conv2d(x, ct_ones(CT_FLOAT64, 4, 3, 3, 3), NULL, NULL), CT_ERR_DTYPE,
              "Input type (torch.FloatTensor) and weight type (torch.DoubleTensor) should be the same");
    CHECK_ERR(ct_conv2d(x, w, ct_ones(CT_FLOAT64, 4), NULL), CT_ERR_DTYPE, "Input type (float32) and bias type (float64) should be the same");
    CHECK_ERR(ct_conv2d(ct_ones(CT_INT64, 2, 3, 8, 8), ct_ones(CT_INT64, 4, 3, 3, 3), NULL, NULL), CT_ERR_DTYPE, "not implemented for 'Long'");
    CHECK_ERR(ct_conv2d(NULL, w, NULL, NULL), CT_ERR_NULL, "conv2d");
    CHECK_ERR(ct_conv2d(x, ct_ones(CT_FLOAT32, 4, 3, 3), NULL, NULL), CT_ERR_SHAPE, "Expected 4-dimensional weight");
    CHECK_ERR(ct_conv1d(x, ct_ones(CT_FLOAT32, 4, 3, 3), NULL, NULL), CT_ERR_SHAPE,
              "Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: [2, 3, 8, 8]");
    CHECK_ERR(ct_conv_transpose2d(x, ct_ones(CT_FLOAT32, 3, 4, 3, 3), NULL, &(ct_conv_options){.output_padding = 1}), CT_ERR_ARG,
              "output padding must be smaller than either stride or dilation, but got output_padding_height: 1 output_padding_width: 1 "
              "stride_height: 1 stride_width: 1 dilation_height: 1 dilation_width: 1");
    /* PyTorch: F.conv_transpose2d(torch.ones(1,1,1,1), torch.ones(1,1,1,1), padding=(1,0)); the width was printed uninitialized */
    CHECK_ERR(ct_conv_transpose2d(ct_ones(CT_FLOAT32, 1, 1, 1, 1), ct_ones(CT_FLOAT32, 1, 1, 1, 1), NULL, &(ct_conv_options){.padding_hw = {1, 0}}),
              CT_ERR_SHAPE, "Given input size per channel: (1 x 1). Calculated output size per channel: (-1 x 1). Output size is too small");
    CHECK_ERR(ct_conv_transpose2d(ct_ones(CT_FLOAT32, 2, 5, 8, 8), ct_ones(CT_FLOAT32, 3, 4, 3, 3), NULL, NULL), CT_ERR_SHAPE,
              "Given transposed=1, weight of size [3, 4, 3, 3], expected input[2, 5, 8, 8] to have 3 channels, but got 5 channels instead");
    CHECK_ERR(ct_max_pool2d(x, 2, &(ct_pool_options){.padding = 2}), CT_ERR_ARG,
              "pad should be at most half of kernel size, but got pad=2 and kernel_size=2");
    CHECK_ERR(ct_max_pool2d(ct_ones(CT_FLOAT32, 1, 1, 1), 2, NULL), CT_ERR_SHAPE,
              "Given input size: (1x1x1). Calculated output size: (1x0x0). Output size is too small");
    CHECK_ERR(ct_max_pool2d(ct_ones(CT_FLOAT32, 2, 3), 2, NULL), CT_ERR_SHAPE, "non-empty 3D or 4D (batch mode) tensor expected for input");
    CHECK_ERR(ct_max_pool2d(x, 0, NULL), CT_ERR_ARG, "stride should not be zero");
    CHECK_ERR(ct_max_pool2d(x, 2, &(ct_pool_options){.dilation = -1}), CT_ERR_ARG,
              "dilation should be greater than zero, but got dilationH: -1 dilationW: -1");
    CHECK_ERR(ct_max_pool2d(ct_ones(CT_INT64, 2, 3, 8, 8), 2, NULL), CT_ERR_DTYPE, "\"max_pool2d\" not implemented for 'Long'");
    CHECK_ERR(ct_max_pool2d_with_indices(NULL, 2, NULL, NULL), CT_ERR_NULL, "max_pool2d");
    CHECK_ERR(ct_avg_pool2d(x, 2, &(ct_pool_options){.padding = 2}), CT_ERR_ARG, "pad should be at most half of kernel size");
    CHECK_ERR(ct_avg_pool2d(ct_ones(CT_FLOAT32, 1, 1, 1), 2, NULL), CT_ERR_SHAPE, "Output size is too small");
    CHECK_ERR(ct_avg_pool2d(x, 2, &(ct_pool_options){.divisor_override = -1}), CT_ERR_ARG, "divisor must be not zero");
    CHECK_ERR(ct_adaptive_avg_pool2d(ct_ones(CT_FLOAT32, 2, 3), 2, 2), CT_ERR_SHAPE, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [2, 3]");
    CHECK_ERR(ct_adaptive_avg_pool2d(ct_ones(CT_FLOAT32, 2, 3, 0, 4), 2, 2), CT_ERR_SHAPE,
              "Expected input to have non-zero size for non-batch dimensions, but input has sizes [2, 3, 0, 4] with dimension 2 being empty");
    CHECK_ERR(ct_max_pool1d(ct_ones(CT_FLOAT32, 2, 3, 4, 4), 2, NULL), CT_ERR_SHAPE, "non-empty 2D or 3D (batch mode) tensor expected");
    CHECK_ERR(ct_avg_pool1d(ct_ones(CT_FLOAT32, 2, 3, 4), 5, NULL), CT_ERR_SHAPE, "Output size is too small");
    CHECK_ERR(ct_nn_conv2d_opts(3, 4, &(ct_conv_module_options){.kernel_size = 3, .groups = 2}),
              CT_ERR_ARG, "in_channels must be divisible by groups");
    CHECK_ERR(ct_nn_max_pool2d(0, 0), CT_ERR_ARG, "kernel_size should be greater than zero");
}

static int same_as_npy(const ct_tensor *t, const char *path) {
    ct_tensor *e = ct_load_npy(path);
    if (!e) { printf("cannot load %s: %s\n", path, ct_last_error()); return 0; }
    return ct_same_shape(t, e) && ct_allclose(t, e, 1e-6, 1e-7) == 1;   /* the init draws match PyTorch to float rounding */
}
TEST(test_modules) {
    ct_manual_seed(7);
    ct_module *m[4];
    m[0] = ct_nn_conv2d(1, 32, 3, 1, 1);
    m[1] = ct_nn_conv2d(32, 64, 3, 1, 1);
    m[2] = ct_nn_conv1d_opts(4, 6, &(ct_conv_module_options){.kernel_size = 5, .groups = 2});
    m[3] = ct_nn_conv_transpose2d(3, 4, 2, 2, 0);
    char path[256], buf[512];
    for (int i = 0; i < 4; i++) {
        CHECK(m[i] != NULL);
        snprintf(path, sizeof path, "tests/fixtures/nn_conv/init/m%d_weight.npy", i);
        CHECK(same_as_npy(ct_module_get(m[i], "weight"), path));
        snprintf(path, sizeof path, "tests/fixtures/nn_conv/init/m%d_bias.npy", i);
        CHECK(same_as_npy(ct_module_get(m[i], "bias"), path));
    }
    ct_module_repr(m[0], buf, sizeof buf);
    CHECK_STR(buf, "Conv2d(1, 32, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))");
    ct_module_repr(m[2], buf, sizeof buf);
    CHECK_STR(buf, "Conv1d(4, 6, kernel_size=(5,), stride=(1,), groups=2)");
    ct_module_repr(m[3], buf, sizeof buf);
    CHECK_STR(buf, "ConvTranspose2d(3, 4, kernel_size=(2, 2), stride=(2, 2))");
    ct_tensor *y = ct_forward(m[3], ct_ones(CT_FLOAT32, 1, 3, 4, 4));
    CHECK(y && ct_size(y, 1) == 4 && ct_size(y, 2) == 8 && ct_size(y, 3) == 8);
    for (int i = 0; i < 4; i++) ct_module_free(m[i]);

    ct_module *c = ct_nn_conv2d_opts(4, 4, &(ct_conv_module_options){.kernel_size = 3, .padding_str = "same", .groups = 2, .dilation = 2, .no_bias = 1});
    ct_module_repr(c, buf, sizeof buf);
    CHECK_STR(buf, "Conv2d(4, 4, kernel_size=(3, 3), stride=(1, 1), padding=same, dilation=(2, 2), groups=2, bias=False)");
    CHECK(ct_module_get(c, "bias") == NULL && ct_module_parameters(c, NULL, 0) == 1);
    ct_module_free(c);
    ct_module *ct = ct_nn_conv_transpose2d_opts(2, 3, &(ct_conv_module_options){.kernel_size = 3, .stride = 2, .output_padding = 1, .no_bias = 1});
    ct_module_repr(ct, buf, sizeof buf);
    CHECK_STR(buf, "ConvTranspose2d(2, 3, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1), bias=False)");
    ct_module_free(ct);

    /* the Fashion-MNIST CNN front, end to end with a backward pass */
    ct_module *net = ct_nn_sequential(ct_nn_conv2d(1, 8, 3, 1, 1), ct_nn_relu(), ct_nn_max_pool2d(2, 0), ct_nn_conv2d(8, 16, 3, 1, 1),
                                      ct_nn_relu(), ct_nn_avg_pool2d(2, 0), ct_nn_adaptive_avg_pool2d(1, 1), ct_nn_flatten());
    CHECK(net != NULL);
    ct_module_repr(net, buf, sizeof buf);
    CHECK_STR(buf, "Sequential(\n"
                   "  (0): Conv2d(1, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))\n"
                   "  (1): ReLU()\n"
                   "  (2): MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)\n"
                   "  (3): Conv2d(8, 16, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))\n"
                   "  (4): ReLU()\n"
                   "  (5): AvgPool2d(kernel_size=2, stride=2, padding=0)\n"
                   "  (6): AdaptiveAvgPool2d(output_size=1)\n"
                   "  (7): Flatten(start_dim=1, end_dim=-1)\n"
                   ")");
    ct_tensor *out = ct_forward(net, RND(CT_FLOAT32, 50, 4, 1, 28, 28));
    CHECK(out && ct_ndim(out) == 2 && ct_size(out, 0) == 4 && ct_size(out, 1) == 16);
    ct_backward(ct_sum(out));
    ct_tensor *w0 = ct_module_get(net, "0.weight");
    CHECK(ct_grad(w0) != NULL && ct_same_shape(ct_grad(w0), w0));
    CHECK(ct_grad(ct_module_get(net, "3.bias")) != NULL);
    ct_module_free(net);
}

TEST(test_memory) {
    int64_t t0 = ct_live_tensors(), b0 = ct_live_bytes();
    CT_SCOPE {
        ct_tensor *x = leaf(RND(CT_FLOAT32, 60, 3, 4, 9, 9)), *w = leaf(RND(CT_FLOAT32, 61, 6, 4, 3, 3)), *b = leaf(RND(CT_FLOAT32, 62, 6));
        ct_tensor *y = ct_max_pool2d(ct_relu(ct_conv2d(ct_to_channels_last(x), w, b, &(ct_conv_options){.padding = 1})), 2, NULL);
        ct_backward(ct_sum(ct_avg_pool2d(y, 2, NULL)));
        CHECK(ct_grad(x) && ct_grad(w) && ct_grad(b));
        CHECK(ct_conv2d(x, w, NULL, &(ct_conv_options){.padding = -3}) == NULL);
    }
    CHECK_EQ_INT(ct_live_tensors(), t0);
    CHECK_EQ_INT(ct_live_bytes(), b0);
}

/* Sizes near int64's limits (the CT_TEST_HUGE sweep's findings): an error or the
   right answer, never a wrapped size. */
TEST(test_huge_geometry) {
    ct_tensor *x = ct_randn(CT_FLOAT32, 1, 2, 5, 5), *w = ct_randn(CT_FLOAT32, 3, 2, 3, 3);
    ct_conv_options o = {0};
    /* a stride near 2^63 takes the first window only */
    o.stride_hw[0] = INT64_MAX;
    o.stride_hw[1] = INT64_MAX;
    o.padding = 1;
    ct_tensor *y = ct_conv2d(x, w, NULL, &o), *y1 = ct_slice(ct_slice(ct_conv2d(x, w, NULL, &(ct_conv_options){.padding = 1}), 2, 0, 1, 1), 3, 0, 1, 1);
    CHECK(y && ct_size(y, 2) == 1 && ct_size(y, 3) == 1);
    CHECK(y && y1 && ct_allclose(y, y1, 1e-6, 1e-6) == 1);
    /* a padding of 2^31 makes an output no tensor can have */
    o = (ct_conv_options){0};
    o.padding = (int64_t)1 << 31;
    CHECK_ERR(ct_conv2d(x, w, NULL, &o), CT_ERR_MEMORY, "conv2d");
    o.padding = (int64_t)1 << 62;
    CHECK_ERR(ct_conv2d(x, w, NULL, &o), CT_ERR_SHAPE, "Kernel size can't be greater than actual input size");
    o = (ct_conv_options){0};
    o.dilation = (int64_t)1 << 62;
    CHECK_ERR(ct_conv2d(x, w, NULL, &o), CT_ERR_SHAPE, "Kernel size can't be greater than actual input size");
    o.padding_str = "same";
    CHECK_ERR(ct_conv2d(x, w, NULL, &o), CT_ERR_SHAPE, "Kernel size can't be greater");
    o = (ct_conv_options){0};
    o.groups = (int64_t)1 << 62;
    CHECK_ERR(ct_conv2d(x, w, NULL, &o), CT_ERR_SHAPE, "groups");
    /* transposed: a stride near 2^62 gives an output size no tensor can have */
    o = (ct_conv_options){0};
    o.stride = (int64_t)1 << 62;
    CHECK_ERR(ct_conv_transpose2d(x, ct_randn(CT_FLOAT32, 2, 3, 3, 3), NULL, &o), CT_ERR_SHAPE, "conv_transpose2d: Calculated padded input size");
    /* through the dispatcher (no entry checks): a window larger than the padded
       input is an error even when a stride > 1 would round the size up to 1 */
    int cop = ct_op_find("aten::conv2d");
    ct_attrs ca;
    ct_attrs_defaults(cop, &ca);
    ca.v[0] = ca.v[1] = 2;   /* stride 2 */
    ca.v[4] = ca.v[5] = 1;   /* dilation 1 */
    ca.i[0] = 1;             /* groups */
    ct_tensor *cin[2] = {ct_randn(CT_FLOAT32, 1, 2, 2, 2), w};
    CHECK_ERR(ct_dispatch(cop, 2, cin, &ca, NULL, 0, NULL, 0) >= 0, CT_ERR_SHAPE, "Kernel size can't be greater than actual input size");
    /* pools: the padding rule first; through the dispatcher (no such check) the output size is refused */
    ct_pool_options po = {0};
    po.padding = (int64_t)1 << 31;
    CHECK_ERR(ct_max_pool2d(x, 2, &po), CT_ERR_ARG, "pad should be at most half");
    int op = ct_op_find("aten::avg_pool2d");
    ct_attrs a;
    ct_attrs_defaults(op, &a);
    a.v[0] = a.v[1] = a.v[2] = a.v[3] = 2;
    a.v[4] = a.v[5] = (int64_t)1 << 31;
    CHECK_ERR(ct_dispatch(op, 1, &x, &a, NULL, 0, NULL, 0) >= 0, CT_ERR_MEMORY, "avg_pool2d");
    ct_tensor *xl = ct_to_channels_last(x);
    CHECK_ERR(ct_dispatch(op, 1, &xl, &a, NULL, 0, NULL, 0) >= 0, CT_ERR_MEMORY, "avg_pool2d");
}

/* Memory formats (issue 17). The strides of outputs and gradients against PyTorch's are
   the conformance fixtures' (tests/fixtures/memory_format); here: gradcheck with
   channels-last leaves (the finite differences perturb the channels-last data), the
   format of their gradients, and the public memory-format functions. */
static ct_tensor *mf_fn(ct_tensor *const *in, void *user) {
    ct_conv_options o = {.padding = 1};
    switch (*(const int *)user) {
    case 0: return ct_conv2d(in[0], in[1], in[2], &o);   /* channels-last input or weight */
    case 1: return ct_max_pool2d(in[0], 2, NULL);
    case 2: return ct_avg_pool2d(in[0], 3, &(ct_pool_options){.stride = 2, .padding = 1});
    case 3: return ct_adaptive_avg_pool2d(in[0], 2, 3);
    case 4: return ct_adaptive_avg_pool2d(in[0], 1, 1);
    default: return ct_tanh(ct_add(ct_mul(in[0], in[1]), in[2]));   /* broadcasting with a channels-last operand */
    }
}
static int mf_gradcheck(int kind, int n, ct_tensor *x, ct_tensor *w, ct_tensor *b) {
    ct_tensor *in[3] = {leaf(x), w ? leaf(w) : NULL, b ? leaf(b) : NULL};
    int ok = ct_gradcheck(mf_fn, &kind, n, in, NULL);
    if (!ok) printf("memory format gradcheck %d: %s\n", kind, ct_last_error());
    return ok;
}
static int is_cl_only(const ct_tensor *t) {
    return t && ct_is_contiguous_format(t, CT_CHANNELS_LAST) && !ct_is_contiguous(t);
}
TEST(test_memory_format) {
    ct_tensor *x = ct_to_channels_last(RND(D, 90, 2, 3, 5, 4)), *w = RND(D, 91, 4, 3, 3, 3), *b = RND(D, 92, 4);
    CHECK(mf_gradcheck(0, 3, x, w, b));
    CHECK(mf_gradcheck(0, 3, RND(D, 93, 2, 3, 4, 5), ct_to_channels_last(w), b));
    for (int k = 1; k <= 4; k++) CHECK(mf_gradcheck(k, 1, ct_to_channels_last(RND(D, 94, 2, 3, 5, 6)), NULL, NULL));
    CHECK(mf_gradcheck(5, 3, x, RND(D, 95, 3, 1, 1), RND(D, 96, 1, 3, 1, 1)));

    /* a channels-last graph gives channels-last gradients: the input's, and the weight's as
       PyTorch's; .grad takes its leaf's layout (PyTorch's layout contract) */
    ct_tensor *xl = leaf(x), *wl = leaf(w), *wcl = leaf(ct_to_channels_last(w));
    ct_tensor *y = ct_max_pool2d(ct_relu(ct_conv2d(xl, wl, NULL, &(ct_conv_options){.padding = 1})), 2, NULL);
    CHECK(is_cl_only(y));
    ct_tensor *gy = ct_randn_like(y, NULL), *gr[2], *ins[2] = {xl, wl};
    CHECK(ct_autograd_grad(1, &y, &gy, 2, ins, gr, &(ct_grad_options){.retain_graph = 1}) == CT_OK);
    CHECK(is_cl_only(gr[0]) && is_cl_only(gr[1]));
    ct_backward(ct_sum(ct_mul(y, gy)));
    CHECK(is_cl_only(ct_grad(xl)) && ct_is_contiguous(ct_grad(wl)) && ct_allclose(ct_grad(wl), gr[1], 0, 0) == 1);
    ct_backward(ct_sum(ct_conv2d(ct_contiguous(x), wcl, NULL, NULL)));
    CHECK(is_cl_only(ct_grad(wcl)));
    /* a contiguous input with a channels-last weight: channels-last output, as PyTorch's */
    CHECK(is_cl_only(ct_conv2d(ct_contiguous(x), ct_to_channels_last(w), NULL, NULL)));
    /* conv_transpose2d returns contiguous tensors (PyTorch 1.13's CPU path) */
    CHECK(ct_is_contiguous(ct_conv_transpose2d(x, RND(D, 97, 3, 2, 2, 2), NULL, NULL)));

    /* suggest_memory_format: the strides decide, ambiguous shapes too */
    CHECK(ct_suggest_memory_format(x) == CT_CHANNELS_LAST);
    CHECK(ct_suggest_memory_format(w) == CT_CONTIGUOUS_FORMAT);
    ct_tensor *nc11 = ct_to_channels_last(RND(D, 98, 2, 4, 1, 1));
    CHECK(ct_stride(nc11, 2) == 4 && ct_is_contiguous(nc11) && ct_suggest_memory_format(nc11) == CT_CHANNELS_LAST);
    CHECK(ct_suggest_memory_format(ct_ones(CT_FLOAT32, 2, 4, 1, 1)) == CT_CONTIGUOUS_FORMAT);
    CHECK(ct_suggest_memory_format(ct_ones(CT_FLOAT32, 2, 1, 1, 1)) == CT_CONTIGUOUS_FORMAT);
    ct_tensor *sl = ct_slice(ct_to_channels_last(RND(D, 100, 2, 3, 6, 4)), 2, 0, 6, 2);   /* strided, still NHWC-ordered */
    CHECK(ct_suggest_memory_format(sl) == CT_CHANNELS_LAST && !ct_is_contiguous_format(sl, CT_CHANNELS_LAST));
    CHECK(is_cl_only(ct_max_pool2d(sl, 1, NULL)) && is_cl_only(ct_relu(sl)));
    CHECK(ct_suggest_memory_format(ct_ones(CT_FLOAT32, 2, 3)) == CT_CONTIGUOUS_FORMAT);

    /* contiguous(memory_format=...): the same data when already in that format */
    ct_tensor *c1 = ct_contiguous_format(x, CT_CHANNELS_LAST);
    CHECK(c1 && ct_data_ptr(c1) == ct_data_ptr(x));
    ct_tensor *c2 = ct_contiguous_format(x, CT_CONTIGUOUS_FORMAT);
    CHECK(c2 && ct_is_contiguous(c2) && ct_data_ptr(c2) != ct_data_ptr(x) && ct_allclose(c2, x, 0, 0) == 1);
    CHECK(ct_data_ptr(ct_contiguous_format(c2, CT_PRESERVE_FORMAT)) == ct_data_ptr(c2));
    CHECK(is_cl_only(ct_contiguous_format(c2, CT_CHANNELS_LAST)));
    ct_tensor *x5 = ct_contiguous_format(RND(D, 99, 2, 3, 4, 5, 6), CT_CHANNELS_LAST_3D);
    CHECK(x5 && ct_stride(x5, 0) == 360 && ct_stride(x5, 1) == 1 && ct_stride(x5, 2) == 90 && ct_stride(x5, 3) == 18 && ct_stride(x5, 4) == 3);
    CHECK(ct_is_contiguous_format(x5, CT_CHANNELS_LAST_3D) && !ct_is_contiguous_format(x5, CT_CHANNELS_LAST));
    CHECK(ct_suggest_memory_format(x5) == CT_CHANNELS_LAST_3D);
    CHECK(ct_is_contiguous_format(w, CT_PRESERVE_FORMAT) && !ct_is_contiguous_format(x, CT_PRESERVE_FORMAT));
    CHECK(!ct_is_contiguous_format(NULL, CT_CONTIGUOUS_FORMAT));

    /* bad input */
    ct_tensor *x3 = ct_ones(CT_FLOAT32, 2, 3, 4);
    CHECK_ERR(ct_contiguous_format(x3, CT_CHANNELS_LAST), CT_ERR_ARG, "contiguous: required rank 4 tensor to use channels_last format (got rank 3)");
    CHECK_ERR(ct_contiguous_format(x, CT_CHANNELS_LAST_3D), CT_ERR_ARG, "contiguous: required rank 5 tensor to use channels_last_3d format (got rank 4)");
    CHECK_ERR(ct_contiguous_format(ct_t(ct_ones(CT_FLOAT32, 2, 3)), CT_PRESERVE_FORMAT), CT_ERR_ARG,
              "contiguous: preserve memory format is unsupported by the contiguous operator");
    CHECK_ERR(ct_contiguous_format(x, (ct_memory_format)7), CT_ERR_ARG, "contiguous: invalid memory format 7");
    CHECK_ERR(ct_contiguous_format(NULL, CT_CHANNELS_LAST), CT_ERR_NULL, "contiguous: argument 0 is NULL");
    CHECK_ERR(ct_is_contiguous_format(x, (ct_memory_format)-1), CT_ERR_ARG, "is_contiguous: invalid memory format -1");
    CHECK_ERR(ct_suggest_memory_format(NULL) != CT_CONTIGUOUS_FORMAT, CT_ERR_NULL, "suggest_memory_format: argument 0 is NULL");
}

int main(void) {
    ct_t_init();
    RUN(test_conv2d_values);
    RUN(test_conv2d_formats_and_dtypes);
    RUN(test_batch_equals_samples);
    RUN(test_pool_values);
    RUN(test_pool_ceil_mode);
    RUN(test_gradcheck_conv);
    RUN(test_gradcheck_pool);
    RUN(test_memory_format);
    RUN(test_grad_fn_names);
    RUN(test_errors);
    RUN(test_modules);
    RUN(test_memory);
    RUN(test_huge_geometry);
    return ct_t_summary();
}
