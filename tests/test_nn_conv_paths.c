/* The convolution kernel families (issue 10), each against another path and by
   gradcheck: depthwise (groups == C_in) against the same convolution written as
   a dense one (a block-diagonal weight, which takes the GEMM paths), forward and
   both gradients, NCHW and channels-last, float32 and float64; 1x1 convolutions
   against matmul and the dense form. gradcheck (float64) of each path with the
   stride / padding / dilation / groups variations that route into it and those
   that must not. PyTorch's values for the same families are conformance fixtures
   (tests/fixtures/nn_conv/conv2d_dw_*, _1x1_*; _igemm_* are shapes for a future
   implicit GEMM, run today by the im2col path). */
#define CTENSOR_IMPLEMENTATION
#include <stdlib.h>
static int t_fail_alloc;   /* the out-of-memory checks: every CT_MALLOC fails while set */
#define CT_MALLOC(sz) (t_fail_alloc ? NULL : malloc(sz))
#define CT_REALLOC(p, sz) (t_fail_alloc ? NULL : realloc((p), (sz)))
#define CT_FREE(p) free(p)
#include "ct_test.h"
#include "ctensor_nn.h"

static ct_tensor *rnd(ct_dtype dt, int ndim, const int64_t *shape, uint64_t seed) {
    ct_generator g;
    ct_generator_init(&g, seed);
    return ct_to(ct_normal_(ct_empty_n(CT_FLOAT64, ndim, shape), 0.0, 1.0, &g), dt);
}
#define RND(dt, seed, ...) rnd(dt, CT_DIMS(__VA_ARGS__), seed)
static ct_tensor *leaf(ct_tensor *x) { return ct_requires_grad(ct_detach(x)); }

/* the dense weight [O, C, kh, kw] of a grouped weight [O, C/G, kh, kw] (zeros off the groups) */
static ct_tensor *dense_weight(ct_tensor *w, int64_t C, int64_t G) {
    ct_tensor *wc = ct_contiguous(ct_to(w, CT_FLOAT64));
    int64_t O = ct_size(w, 0), Cg = ct_size(w, 1), kk = ct_size(w, 2) * ct_size(w, 3), Og = O / G;
    double *d = (double *)calloc((size_t)(O * C * kk), sizeof(double));
    const double *s = (const double *)ct_data_ptr(wc);
    for (int64_t o = 0; o < O; o++)
        for (int64_t c = 0; c < Cg; c++)
            for (int64_t t = 0; t < kk; t++) d[(o * C + (o / Og) * Cg + c) * kk + t] = s[(o * Cg + c) * kk + t];
    ct_tensor *r = ct_to(ct_from_data_n(d, CT_FLOAT64, 4, (const int64_t[]){O, C, ct_size(w, 2), ct_size(w, 3)}), ct_get_dtype(w));
    free(d);
    return r;
}
/* the grouped slice of a dense weight gradient */
static ct_tensor *grouped_slice(ct_tensor *gd, int64_t Cg, int64_t G) {
    ct_tensor *gc = ct_contiguous(ct_to(gd, CT_FLOAT64));
    int64_t O = ct_size(gd, 0), C = ct_size(gd, 1), kk = ct_size(gd, 2) * ct_size(gd, 3), Og = O / G;
    double *d = (double *)calloc((size_t)(O * Cg * kk), sizeof(double));
    const double *s = (const double *)ct_data_ptr(gc);
    for (int64_t o = 0; o < O; o++)
        for (int64_t c = 0; c < Cg; c++)
            for (int64_t t = 0; t < kk; t++) d[(o * Cg + c) * kk + t] = s[(o * C + (o / Og) * Cg + c) * kk + t];
    ct_tensor *r = ct_from_data_n(d, CT_FLOAT64, 4, (const int64_t[]){O, Cg, ct_size(gd, 2), ct_size(gd, 3)});
    free(d);
    return r;
}

/* conv2d(x, w, b, o) and its gradients against the dense form of the same convolution */
static void check_against_dense(int line, ct_tensor *x, ct_tensor *w, ct_tensor *b, ct_conv_options o, int cl, double tol) {
    int64_t C = ct_size(x, 1), G = o.groups ? o.groups : 1;
    if (cl) x = ct_to_channels_last(x);
    ct_tensor *xl = leaf(x), *wl = leaf(w), *bl = leaf(b);
    ct_tensor *y = ct_conv2d(xl, wl, bl, &o);
    ct_conv_options od = o;
    od.groups = 1;
    ct_tensor *xd = leaf(x), *wd = leaf(dense_weight(w, C, G)), *bd = leaf(b);
    ct_tensor *yd = ct_conv2d(xd, wd, bd, &od);
    int ok = y && yd && ct_allclose(y, yd, tol, tol) == 1 && (!cl || ct_is_channels_last(y));
    ct_tensor *g = ct_randn_like(yd, NULL);
    ct_backward(ct_sum(ct_mul(y, g)));
    ct_backward(ct_sum(ct_mul(yd, g)));
    ok = ok && ct_allclose(ct_grad(xl), ct_grad(xd), tol, tol) == 1;
    ok = ok && ct_allclose(ct_to(ct_grad(wl), CT_FLOAT64), grouped_slice(ct_grad(wd), ct_size(w, 1), G), tol, tol) == 1;
    ok = ok && ct_allclose(ct_grad(bl), ct_grad(bd), tol, tol) == 1;
    if (!ok) printf("line %d: differs from the dense convolution (%s)\n", line, ct_last_error());
    CHECK(ok);
}

typedef struct gc_case { int transposed, cl; ct_conv_options co; } gc_case;
static ct_tensor *gc_fn(ct_tensor *const *in, void *user) {
    const gc_case *c = (const gc_case *)user;
    ct_tensor *x = c->cl ? ct_to_channels_last(in[0]) : in[0];
    return c->transposed ? ct_conv_transpose2d(x, in[1], in[2], &c->co) : ct_conv2d(x, in[1], in[2], &c->co);
}
static ct_tensor *gc_fn_sq(ct_tensor *const *in, void *user) {
    ct_tensor *y = gc_fn(in, user);
    return ct_mul(y, y);
}
static void gradcheck(int line, int transposed, int cl, ct_conv_options o, ct_tensor *x, ct_tensor *w, ct_tensor *b, int gradgrad) {
    gc_case c = {transposed, cl, o};
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
#define D CT_FLOAT64
#define F CT_FLOAT32

TEST(test_depthwise) {
    for (int cl = 0; cl < 2; cl++) {
        /* MobileNet's shapes, small: 3x3 pad 1, 3x3 stride 2, 5x5 pad 2, a multiplier, dilation */
        check_against_dense(__LINE__, RND(F, 1, 2, 16, 13, 12), RND(F, 2, 16, 1, 3, 3), RND(F, 3, 16),
                            (ct_conv_options){.groups = 16, .padding = 1}, cl, 1e-4);
        check_against_dense(__LINE__, RND(F, 4, 1, 8, 15, 14), RND(F, 5, 8, 1, 3, 3), RND(F, 6, 8),
                            (ct_conv_options){.groups = 8, .padding = 1, .stride = 2}, cl, 1e-4);
        check_against_dense(__LINE__, RND(D, 7, 2, 24, 9, 9), RND(D, 8, 24, 1, 5, 5), RND(D, 9, 24),
                            (ct_conv_options){.groups = 24, .padding = 2}, cl, 1e-10);
        check_against_dense(__LINE__, RND(D, 10, 2, 5, 10, 11), RND(D, 11, 15, 1, 3, 2), RND(D, 12, 15),
                            (ct_conv_options){.groups = 5, .padding_hw = {2, 1}, .stride_hw = {1, 3}, .dilation_hw = {2, 1}}, cl, 1e-10);
        /* rows long enough for the NHWC kernels' runs of 8 and 4 pixels (a stride apart in the
           input gradient), channel counts that leave a half vector and single channels */
        check_against_dense(__LINE__, RND(D, 44, 1, 20, 9, 37), RND(D, 45, 20, 1, 3, 3), RND(D, 46, 20),
                            (ct_conv_options){.groups = 20, .padding = 1, .stride = 2}, cl, 1e-10);
        check_against_dense(__LINE__, RND(F, 47, 2, 28, 11, 30), RND(F, 48, 28, 1, 3, 3), RND(F, 49, 28),
                            (ct_conv_options){.groups = 28, .padding = 2, .dilation = 2}, cl, 1e-4);
        check_against_dense(__LINE__, RND(D, 50, 1, 9, 6, 41), RND(D, 51, 9, 1, 5, 5), RND(D, 52, 9),
                            (ct_conv_options){.groups = 9, .padding_hw = {1, 3}, .stride_hw = {1, 3}}, cl, 1e-10);
        /* 7x7 (the accumulators of the NHWC weight gradient on the stack) and 8x8 (on the heap) */
        check_against_dense(__LINE__, RND(F, 81, 1, 20, 10, 10), RND(F, 82, 20, 1, 7, 7), RND(F, 83, 20),
                            (ct_conv_options){.groups = 20, .padding = 3}, cl, 1e-4);
        check_against_dense(__LINE__, RND(D, 84, 1, 10, 11, 9), RND(D, 85, 10, 1, 8, 8), RND(D, 86, 10),
                            (ct_conv_options){.groups = 10, .padding = 4}, cl, 1e-10);
        /* float32 against float64 on a larger layer */
        ct_tensor *x = RND(F, 13, 1, 72, 28, 28), *w = RND(F, 14, 72, 1, 3, 3);
        ct_tensor *xx = cl ? ct_to_channels_last(x) : x;
        ct_conv_options o = {.groups = 72, .padding = 1};
        CHECK(ct_allclose(ct_to(ct_conv2d(xx, w, NULL, &o), D), ct_conv2d(ct_to(xx, D), ct_to(w, D), NULL, &o), 1e-4, 1e-4) == 1);
    }
    /* gradcheck and gradgradcheck: each of the three ops runs the depthwise kernels */
    gradcheck(__LINE__, 0, 0, (ct_conv_options){.groups = 3, .padding = 1}, RND(D, 20, 2, 3, 5, 4), RND(D, 21, 3, 1, 3, 3), RND(D, 22, 3), 1);
    gradcheck(__LINE__, 0, 1, (ct_conv_options){.groups = 3, .padding = 1, .stride = 2}, RND(D, 23, 2, 3, 5, 6), RND(D, 24, 6, 1, 3, 3),
              RND(D, 25, 6), 1);
    gradcheck(__LINE__, 0, 0, (ct_conv_options){.groups = 2, .dilation = 2, .padding_hw = {1, 2}}, RND(D, 26, 1, 2, 6, 6),
              RND(D, 27, 4, 1, 2, 3), RND(D, 28, 4), 1);
    gradcheck(__LINE__, 0, 1, (ct_conv_options){.groups = 4, .padding = 2}, RND(D, 29, 1, 4, 5, 5), RND(D, 30, 4, 1, 5, 5), RND(D, 31, 4), 0);
    gradcheck(__LINE__, 1, 0, (ct_conv_options){.groups = 3, .stride = 2, .padding = 1}, RND(D, 32, 2, 3, 3, 4), RND(D, 33, 3, 2, 3, 3),
              RND(D, 34, 6), 1);
    gradcheck(__LINE__, 1, 1, (ct_conv_options){.groups = 3, .dilation = 2}, RND(D, 35, 1, 3, 3, 3), RND(D, 36, 3, 1, 2, 2), RND(D, 37, 3), 1);
    /* groups == C_in == 1 (a single input channel) is not depthwise: the GEMM path */
    gradcheck(__LINE__, 0, 1, (ct_conv_options){.padding = 1}, RND(D, 38, 2, 1, 4, 4), RND(D, 39, 3, 1, 3, 3), RND(D, 40, 3), 0);
    /* groups < C_in: grouped, not depthwise */
    check_against_dense(__LINE__, RND(D, 41, 2, 6, 7, 7), RND(D, 42, 6, 2, 3, 3), RND(D, 43, 6), (ct_conv_options){.groups = 3, .padding = 1}, 1,
                        1e-10);
}

TEST(test_1x1) {
    for (int cl = 0; cl < 2; cl++) {
        ct_tensor *x = RND(F, 50, 3, 16, 7, 9), *w = RND(F, 51, 24, 16, 1, 1), *b = RND(F, 52, 24);
        ct_tensor *xx = cl ? ct_to_channels_last(x) : x;
        ct_tensor *y = ct_conv2d(xx, w, b, NULL);
        ct_tensor *ref = ct_add(ct_permute(ct_matmul(ct_permute(x, 0, 2, 3, 1), ct_t(ct_reshape(w, 24, 16))), 0, 3, 1, 2), ct_reshape(b, 24, 1, 1));
        CHECK(y && ct_allclose(y, ref, 1e-4, 1e-4) == 1 && (!cl || ct_is_channels_last(y)));
        check_against_dense(__LINE__, RND(F, 53, 3, 12, 5, 6), RND(F, 54, 20, 12, 1, 1), RND(F, 55, 20), (ct_conv_options){0}, cl, 1e-4);
        check_against_dense(__LINE__, RND(D, 56, 2, 12, 5, 6), RND(D, 57, 8, 3, 1, 1), RND(D, 58, 8), (ct_conv_options){.groups = 4}, cl, 1e-10);
        /* 1x1 with a stride or padding is not a plain GEMM */
        check_against_dense(__LINE__, RND(D, 59, 2, 4, 5, 6), RND(D, 60, 6, 4, 1, 1), RND(D, 61, 6), (ct_conv_options){.stride = 2}, cl, 1e-10);
        gradcheck(__LINE__, 0, cl, (ct_conv_options){0}, RND(D, 62, 3, 4, 3, 2), RND(D, 63, 5, 4, 1, 1), RND(D, 64, 5), 1);
        gradcheck(__LINE__, 0, cl, (ct_conv_options){.groups = 2}, RND(D, 65, 2, 4, 2, 3), RND(D, 66, 6, 2, 1, 1), RND(D, 67, 6), 1);
        gradcheck(__LINE__, 0, cl, (ct_conv_options){.padding = 1, .stride = 2}, RND(D, 68, 2, 3, 3, 3), RND(D, 69, 2, 3, 1, 1), RND(D, 70, 2), 0);
        gradcheck(__LINE__, 1, cl, (ct_conv_options){0}, RND(D, 71, 2, 4, 3, 3), RND(D, 72, 4, 3, 1, 1), RND(D, 73, 3), 1);
    }
}

/* conv2d forward through the implicit GEMM (NCHW, groups 1) against the im2col path
   on the same buffers, for geometries it is routed to and (called directly) others */
static void igemm_vs_im2col(int line, ct_dtype dt, int64_t N, int64_t C, int64_t H, int64_t W, int64_t O, int64_t kh, int64_t kw,
                            int64_t s, int64_t p, int64_t d, int bias) {
    ct__cgeo g;
    memset(&g, 0, sizeof g);
    g.N = N; g.C = C; g.H = H; g.W = W; g.O = O; g.kh = kh; g.kw = kw; g.sh = g.sw = s; g.ph = p; g.pw = p; g.dh = g.dw = d; g.G = 1;
    g.OH = (H + 2 * p - d * (kh - 1) - 1) / s + 1;
    g.OW = (W + 2 * p - d * (kw - 1) - 1) / s + 1;
    ct_tensor *x = RND(dt, 80 + (uint64_t)line, N, C, H, W), *w = RND(dt, 81, O, C, kh, kw), *b = RND(dt, 82, O);
    int64_t L = g.OH * g.OW, K = C * kh * kw, es = (int64_t)ct__dt[dt].size;
    char *y0 = (char *)malloc((size_t)(es * N * O * L)), *y1 = (char *)malloc((size_t)(es * N * O * L));
    char *ws = (char *)malloc((size_t)(es * K * L + ct__igemm_slot_bytes(dt) + ct__igemm_shared_bytes(dt, &g) + 64));
    const void *bp = bias ? ct_data_ptr(b) : NULL;
    ct__conv_run(CT__CONV_FWD, dt, y0, ws, ct_data_ptr(x), ct_data_ptr(w), bp, &g, K * L, 1, 0);
    ct__conv_run(CT__CONV_FWD, dt, y1, ws, ct_data_ptr(x), ct_data_ptr(w), bp, &g, ct__igemm_slot_bytes(dt) / es, 1, 1);
    double md = 0;
    for (int64_t i = 0; i < N * O * L; i++) {
        double u = ct__nn_ld(dt, y0, i), v = ct__nn_ld(dt, y1, i), e = fabs(u - v) / (1 + fabs(u));
        md = e > md ? e : md;
    }
    /* float32 sums of K products in two orders (the im2col path may run on the BLAS,
       whose kernel order differs by CPU: 1.4e-5 at K = 630 on a SkylakeX core) */
    double tol = dt == CT_FLOAT32 && 4e-8 * (double)K > 1e-5 ? 4e-8 * (double)K : 1e-5;
    if (!(md <= tol)) printf("line %d: implicit GEMM differs from im2col by %g (K = %lld)\n", line, md, (long long)K);
    CHECK(md <= tol);
    free(y0); free(y1); free(ws);
}
/* a naive conv2d (float64 sums) */
static ct_tensor *naive_conv(ct_tensor *x, ct_tensor *w, ct_tensor *b, int64_t s, int64_t p, int64_t d) {
    ct_tensor *xc = ct_contiguous(ct_to(x, D)), *wc = ct_contiguous(ct_to(w, D)), *bc = b ? ct_contiguous(ct_to(b, D)) : NULL;
    int64_t N = ct_size(x, 0), C = ct_size(x, 1), H = ct_size(x, 2), W = ct_size(x, 3), O = ct_size(w, 0), kh = ct_size(w, 2), kw = ct_size(w, 3);
    int64_t OH = (H + 2 * p - d * (kh - 1) - 1) / s + 1, OW = (W + 2 * p - d * (kw - 1) - 1) / s + 1;
    const double *xp = (const double *)ct_data_ptr(xc), *wp = (const double *)ct_data_ptr(wc);
    double *y = (double *)calloc((size_t)(N * O * OH * OW), sizeof(double));
    for (int64_t n = 0; n < N; n++)
        for (int64_t o = 0; o < O; o++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    double acc = bc ? ((const double *)ct_data_ptr(bc))[o] : 0;
                    for (int64_t c = 0; c < C; c++)
                        for (int64_t i = 0; i < kh; i++)
                            for (int64_t j = 0; j < kw; j++) {
                                int64_t ih = oh * s - p + i * d, iw = ow * s - p + j * d;
                                if (ih >= 0 && ih < H && iw >= 0 && iw < W)
                                    acc += xp[((n * C + c) * H + ih) * W + iw] * wp[((o * C + c) * kh + i) * kw + j];
                            }
                    y[((n * O + o) * OH + oh) * OW + ow] = acc;
                }
    ct_tensor *r = ct_from_data_n(y, D, 4, (const int64_t[]){N, O, OH, OW});
    free(y);
    return r;
}
TEST(test_implicit_gemm) {
    /* routed shapes: stride 1, OW == W (padding (kw - 1) d / 2 in width) */
    for (int dti = 0; dti < 2; dti++) {
        ct_dtype dt = dti ? D : F;
        igemm_vs_im2col(__LINE__, dt, 1, 3, 7, 9, 5, 3, 3, 1, 1, 1, 1);
        igemm_vs_im2col(__LINE__, dt, 3, 17, 13, 11, 29, 3, 3, 1, 1, 1, 0);
        igemm_vs_im2col(__LINE__, dt, 3, 70, 9, 8, 13, 3, 3, 1, 1, 1, 1);   /* K = 630 > 2 KC blocks */
        igemm_vs_im2col(__LINE__, dt, 1, 5, 12, 12, 7, 5, 5, 1, 2, 1, 1);
        igemm_vs_im2col(__LINE__, dt, 3, 6, 10, 10, 25, 3, 3, 1, 2, 2, 1);  /* dilation 2, padding 2 */
        igemm_vs_im2col(__LINE__, dt, 1, 4, 1, 1, 3, 3, 3, 1, 1, 1, 1);
        /* others, called directly: strides 2, padding 0, odd sizes, 1x1 */
        igemm_vs_im2col(__LINE__, dt, 3, 7, 15, 13, 11, 3, 3, 2, 1, 1, 1);
        igemm_vs_im2col(__LINE__, dt, 1, 8, 11, 9, 14, 3, 3, 1, 0, 1, 0);
        igemm_vs_im2col(__LINE__, dt, 3, 5, 14, 17, 9, 5, 5, 2, 2, 2, 1);
        igemm_vs_im2col(__LINE__, dt, 1, 9, 6, 7, 13, 1, 1, 1, 0, 1, 1);
        igemm_vs_im2col(__LINE__, dt, 3, 16, 57, 57, 64, 3, 3, 1, 1, 1, 1);
    }
    /* through the public API against a naive reference, batch 1 and 3, bias or none */
    for (int bi = 0; bi < 2; bi++) {
        ct_tensor *x = RND(F, 90, 3, 19, 10, 13), *w = RND(F, 91, 23, 19, 3, 3), *b = bi ? RND(F, 92, 23) : NULL;
        ct_tensor *y = ct_conv2d(x, w, b, &(ct_conv_options){.padding = 1});
        CHECK(y && ct_allclose(ct_to(y, D), naive_conv(x, w, b, 1, 1, 1), 1e-4, 1e-4) == 1);
        ct_tensor *x1 = RND(F, 93, 1, 6, 9, 9), *w1 = RND(F, 94, 14, 6, 5, 5);
        ct_tensor *y1 = ct_conv2d(x1, w1, b ? RND(F, 95, 14) : NULL, &(ct_conv_options){.padding = 4, .dilation = 2});
        CHECK(y1 && ct_allclose(ct_to(y1, D), naive_conv(x1, w1, b ? RND(F, 95, 14) : NULL, 1, 4, 2), 1e-4, 1e-4) == 1);
    }
    gradcheck(__LINE__, 0, 0, (ct_conv_options){.padding = 1}, RND(D, 96, 2, 3, 5, 4), RND(D, 97, 4, 3, 3, 3), RND(D, 98, 4), 0);
}

/* channels-last conv2d through the direct NHWC GEMM (ct__conv_clg_ok: groups 1, C >= 8)
   against a naive reference, and its gradients against the NCHW paths; the input
   gradient at stride 1 (O >= 8) takes the same kernel with the flipped weight, the
   weight gradient its own (ct__conv_clw_ok) */
static void clg_check(int line, ct_dtype dt, int64_t N, int64_t C, int64_t H, int64_t W, int64_t O, int64_t kh, int64_t kw,
                      int64_t s, int64_t p, int64_t d, int bias, double tol) {
    ct_tensor *x = RND(dt, 200 + (uint64_t)line, N, C, H, W), *w = RND(dt, 201, O, C, kh, kw), *b = bias ? RND(dt, 202, O) : NULL;
    ct_conv_options o = {.stride = s, .padding = p, .dilation = d};
    ct__cgeo g;
    memset(&g, 0, sizeof g);
    g.C = C; g.O = O; g.kh = kh; g.kw = kw; g.sh = g.sw = s; g.ph = g.pw = p; g.G = 1; g.cl = 1;
    CHECK(ct__conv_clg_ok(CT__CONV_FWD, &g) == (C >= 8 && !(kh == 1 && kw == 1 && s == 1 && p == 0)));
    ct_tensor *xl = leaf(ct_to_channels_last(x)), *wl = leaf(w), *bl = b ? leaf(b) : NULL;
    ct_tensor *y = ct_conv2d(xl, wl, bl, &o);
    int ok = y && ct_is_channels_last(y) && ct_allclose(ct_to(y, D), naive_conv(x, w, b, s, p, d), tol, tol) == 1;
    if (!ok) printf("line %d: channels-last forward differs from the reference (%s)\n", line, ct_last_error());
    CHECK(ok);
    ct_tensor *xn = leaf(x), *wn = leaf(w), *bn = b ? leaf(b) : NULL;
    ct_tensor *yn = ct_conv2d(xn, wn, bn, &o);
    ct_tensor *gy = ct_randn_like(yn, NULL);
    ct_backward(ct_sum(ct_mul(y, line % 2 ? gy : ct_to_channels_last(gy))));
    ct_backward(ct_sum(ct_mul(yn, line % 2 ? ct_to_channels_last(gy) : gy)));
    /* x's gradient in x's memory format, whatever grad_output's; .grad in its leaf's
       layout (PyTorch's layout contract: w's is contiguous though the op's is channels-last) */
    ok = ct_is_channels_last(ct_grad(xl)) && ct_is_contiguous(ct_grad(xn)) && ct_is_contiguous(ct_grad(wl)) && ct_is_contiguous(ct_grad(wn));
    ok = ok && ct_allclose(ct_grad(xl), ct_grad(xn), tol, tol) == 1 && ct_allclose(ct_grad(wl), ct_grad(wn), tol, tol) == 1;
    ok = ok && (!b || ct_allclose(ct_grad(bl), ct_grad(bn), tol, tol) == 1);
    if (!ok) printf("line %d: channels-last gradients differ from the NCHW path (%s)\n", line, ct_last_error());
    CHECK(ok);
    if (s == 1) {   /* conv_transpose2d itself at stride 1: x as [N, O, OH, OW] into C channels
                       (a contiguous result, as PyTorch 1.13's; the NHWC kernel runs for x's gradient above) */
        ct_tensor *gt = RND(dt, 203, N, O, ct_size(yn, 2), ct_size(yn, 3)), *bt = bias ? RND(dt, 204, C) : NULL;
        ct_tensor *t1 = ct_conv_transpose2d(ct_to_channels_last(gt), w, bt, &o), *t0 = ct_conv_transpose2d(gt, w, bt, &o);
        ok = t1 && t0 && ct_is_contiguous(t1) && ct_allclose(t1, t0, tol, tol) == 1;
        if (!ok) printf("line %d: channels-last conv_transpose2d differs from NCHW (%s)\n", line, ct_last_error());
        CHECK(ok);
    }
}
TEST(test_channels_last_gemm) {
    for (int dti = 0; dti < 2; dti++) {
        ct_dtype dt = dti ? D : F;
        double tol = dti ? 1e-10 : 1e-4;
        clg_check(__LINE__, dt, 2, 64, 9, 10, 64, 3, 3, 1, 1, 1, 1, tol);    /* the bench layer, small */
        clg_check(__LINE__, dt, 3, 8, 7, 5, 13, 3, 3, 1, 1, 1, 0, tol);     /* O < NR, L not a multiple of MR */
        clg_check(__LINE__, dt, 1, 19, 11, 13, 70, 3, 3, 1, 0, 1, 1, tol);  /* three panels, the last partial; no padding */
        clg_check(__LINE__, dt, 2, 12, 9, 8, 33, 5, 5, 1, 2, 1, 1, tol);
        clg_check(__LINE__, dt, 2, 10, 12, 11, 17, 3, 3, 1, 2, 2, 1, tol);  /* dilation 2 */
        clg_check(__LINE__, dt, 2, 9, 13, 14, 20, 3, 3, 2, 1, 1, 1, tol);   /* stride 2 (forward only) */
        clg_check(__LINE__, dt, 1, 16, 9, 9, 8, 5, 5, 3, 3, 2, 0, tol);     /* stride 3, dilation 2, large padding */
        clg_check(__LINE__, dt, 2, 8, 1, 1, 9, 3, 3, 1, 1, 1, 1, tol);      /* one pixel */
        clg_check(__LINE__, dt, 1, 24, 6, 7, 10, 1, 1, 1, 1, 1, 1, tol);    /* 1x1 with padding */
        clg_check(__LINE__, dt, 2, 8, 6, 7, 12, 1, 3, 1, 3, 1, 1, tol);     /* 1x3, padding past the window */
        clg_check(__LINE__, dt, 1, 7, 6, 6, 9, 3, 3, 1, 1, 1, 1, tol);      /* C < 8: im2col forward, routed input gradient */
        /* the weight gradient's kernel (ct__conv_clw_ok: C >= MR, O a multiple of NR, at least
           1024 output pixels; MR 6 or 12, NR 4 to 32): slivers across taps, a shifted last one */
        clg_check(__LINE__, dt, 2, 13, 24, 24, 32, 3, 3, 1, 1, 1, 1, tol);
        clg_check(__LINE__, dt, 1, 12, 40, 36, 64, 5, 5, 1, 2, 2, 0, tol);  /* dilation 2 */
        clg_check(__LINE__, dt, 3, 25, 20, 18, 96, 3, 3, 1, 1, 1, 1, tol);  /* pixel blocks across samples */
        clg_check(__LINE__, dt, 4, 7, 33, 31, 16, 3, 3, 2, 1, 1, 1, tol);   /* stride 2; C = 7 routes where MR is 6 */
        clg_check(__LINE__, dt, 2, 64, 24, 23, 64, 3, 3, 1, 1, 1, 1, tol);
    }
    /* float32 against float64 on a larger layer */
    ct_tensor *x = ct_to_channels_last(RND(F, 210, 2, 64, 30, 29)), *w = RND(F, 211, 96, 64, 3, 3);
    ct_conv_options o = {.padding = 1};
    CHECK(ct_allclose(ct_to(ct_conv2d(x, w, NULL, &o), D), ct_conv2d(ct_to(x, D), ct_to(w, D), NULL, &o), 1e-4, 1e-4) == 1);
    /* gradcheck and gradgradcheck through the routed forward and input gradient */
    gradcheck(__LINE__, 0, 1, (ct_conv_options){.padding = 1}, RND(D, 212, 2, 8, 4, 5), RND(D, 213, 9, 8, 3, 3), RND(D, 214, 9), 1);
    gradcheck(__LINE__, 0, 1, (ct_conv_options){.padding_hw = {2, 1}, .dilation_hw = {2, 1}}, RND(D, 215, 1, 9, 5, 4),
              RND(D, 216, 8, 9, 3, 2), RND(D, 217, 8), 0);
    gradcheck(__LINE__, 0, 1, (ct_conv_options){.stride = 2, .padding = 1}, RND(D, 218, 1, 8, 5, 5), RND(D, 219, 3, 8, 3, 3), RND(D, 220, 3), 0);
    gradcheck(__LINE__, 1, 1, (ct_conv_options){.padding = 1}, RND(D, 221, 1, 8, 4, 4), RND(D, 222, 8, 9, 3, 3), RND(D, 223, 9), 1);
    gradcheck(__LINE__, 0, 1, (ct_conv_options){.stride = 2, .padding = 1, .dilation = 2}, RND(D, 224, 1, 7, 6, 5), RND(D, 225, 8, 7, 3, 3),
              RND(D, 226, 8), 0);
    gradcheck(__LINE__, 0, 1, (ct_conv_options){.padding = 1}, RND(D, 227, 1, 12, 4, 3), RND(D, 228, 16, 12, 3, 3), RND(D, 229, 16), 0);
}

/* Winograd (ct__conv_wino_ok: float32 NCHW 3x3 stride 1, groups 1) against float64:
   max |y - exact| over the outputs relative to the largest sum |x||w| (+ |b|) over a
   window, for mode 1 (F(2x2, 3x3), the default), 2 (F(4x4, 3x3)) and 0 (the direct
   paths). The bounds are about 3x the largest error measured over these cases
   (F(2x2) 9.7e-8, F(4x4) 2.6e-6, direct 1.7e-7: see ct_set_conv_winograd). transposed:
   conv_transpose2d (conv2d's input gradient), with x as [N, O, H', W']; route: mode 1
   routes the op (else, and for mode 2 where it does not route, the kernel is run
   through ct__conv_wino_run directly: sizes below the gate). */
static double wino_err(ct_tensor *y, ct_tensor *ref, ct_tensor *scale) {
    return ct_item(ct_max(ct_abs(ct_sub(ct_to(y, D), ref)))) / ct_item(ct_max(scale));
}
static double wino_bound(int mode) { return mode == 2 ? 8e-6 : 5e-7; }
static void wino_check(int line, int64_t N, int64_t C, int64_t H, int64_t W, int64_t O, int64_t p, int bias, int transposed,
                       int route) {
    ct_tensor *x = RND(F, 300 + (uint64_t)line, N, transposed ? O : C, H, W), *w = RND(F, 301, O, C, 3, 3);
    ct_tensor *b = bias ? RND(F, 302, transposed ? C : O) : NULL;
    ct_conv_options o = {.padding = p};
    ct_tensor *(*f)(const ct_tensor *, const ct_tensor *, const ct_tensor *, const ct_conv_options *) =
        transposed ? ct_conv_transpose2d : ct_conv2d;
    ct_tensor *ref = f(ct_to(x, D), ct_to(w, D), b ? ct_to(b, D) : NULL, &o);
    ct_tensor *scale = f(ct_abs(ct_to(x, D)), ct_abs(ct_to(w, D)), b ? ct_abs(ct_to(b, D)) : NULL, &o);
    CHECK(ref && scale);
    if (!ref || !scale) return;
    ct__cgeo g;
    memset(&g, 0, sizeof g);
    g.N = N; g.C = C; g.O = O; g.kh = g.kw = 3; g.sh = g.sw = g.dh = g.dw = 1; g.ph = g.pw = p; g.G = 1;
    if (transposed) {
        g.OH = H; g.OW = W; g.H = ct_size(ref, 2); g.W = ct_size(ref, 3);
    } else {
        g.H = H; g.W = W; g.OH = ct_size(ref, 2); g.OW = ct_size(ref, 3);
    }
    int kind = transposed ? CT__CONV_TRANSPOSE : CT__CONV_FWD;
    for (int mode = 0; mode <= 2; mode++) {
        ct_set_conv_winograd(mode);
        CHECK(ct_get_conv_winograd() == mode);
        ct_tensor *y;
        int routed = ct__conv_wino_ok(kind, F, &g), simd = 0;
#ifdef CT__GEMM_SIMD
        simd = 1;
        if (mode == 1) CHECK(routed == route);
#endif
        if (mode == 0) CHECK(!routed);
        if (routed || mode == 0 || !simd) {
            y = f(x, w, b, &o);
        } else {
            y = ct_empty_like(ref);
            y = y ? ct_to(y, F) : NULL;
            CHECK(y && ct__conv_wino_run(kind, (const float *)ct_data_ptr(x), (const float *)ct_data_ptr(w),
                                         b ? (const float *)ct_data_ptr(b) : NULL, (float *)ct_data_ptr(y), &g, "t", 0) == 0);
        }
        double e = y ? wino_err(y, ref, scale) : 1;
        if (!(e <= wino_bound(mode))) printf("line %d: mode %d error %g\n", line, mode, e);
        CHECK(e <= wino_bound(mode));
    }
    ct_set_conv_winograd(1);
}
TEST(test_winograd) {
    CHECK(ct_get_conv_winograd() == 1);   /* the default */
    /* routed: forward and conv_transpose2d, padding 0, 1, 2, odd sizes, bias or none, N > 1 */
    wino_check(__LINE__, 2, 16, 24, 23, 16, 1, 1, 0, 1);
    wino_check(__LINE__, 3, 19, 13, 11, 21, 0, 0, 0, 1);   /* tiles clipped at the border */
    wino_check(__LINE__, 2, 24, 13, 11, 17, 2, 1, 0, 1);
    wino_check(__LINE__, 1, 40, 17, 29, 35, 1, 1, 0, 1);
    wino_check(__LINE__, 2, 300, 14, 14, 20, 1, 0, 0, 1);  /* C over two KC blocks */
    wino_check(__LINE__, 2, 16, 24, 23, 16, 1, 1, 1, 1);
    wino_check(__LINE__, 3, 21, 11, 9, 19, 0, 0, 1, 1);
    wino_check(__LINE__, 2, 17, 15, 13, 24, 2, 1, 1, 1);
    wino_check(__LINE__, 70, 16, 1, 1, 16, 1, 1, 0, 1);    /* 1x1 planes: one tile per sample */
    wino_check(__LINE__, 2, 16, 9, 10, 16, 3, 1, 0, 1);    /* padding 3: tiles wholly in the padding */
    /* below the gate, through the kernel itself: planes smaller than a tile, few channels */
    wino_check(__LINE__, 1, 3, 1, 1, 2, 1, 1, 0, 0);
    wino_check(__LINE__, 2, 5, 3, 2, 4, 2, 0, 0, 0);
    wino_check(__LINE__, 1, 4, 5, 3, 6, 0, 1, 0, 0);
    wino_check(__LINE__, 2, 6, 2, 3, 3, 1, 1, 1, 0);
    wino_check(__LINE__, 1, 7, 4, 4, 5, 2, 0, 1, 0);
    wino_check(__LINE__, 1, 3, 3, 5, 2, 0, 1, 1, 0);
    wino_check(__LINE__, 1, 3, 2, 3, 2, 5, 1, 0, 0);
    /* threads (when the build has them): blocks split over slots */
    ct_set_num_threads(2);
    wino_check(__LINE__, 4, 32, 28, 27, 33, 1, 1, 0, 1);
    wino_check(__LINE__, 4, 33, 28, 27, 32, 1, 1, 1, 1);
    ct_set_num_threads(0);
    /* not routed: float64, channels-last, stride 2, dilation 2, groups, 5x5, few channels or tiles,
       conv_transpose2d with padding 3; the switch's bad values turn it off */
    {
        ct__cgeo g;
        memset(&g, 0, sizeof g);
        g.N = 8; g.C = g.O = 64; g.H = g.W = g.OH = g.OW = 56; g.kh = g.kw = 3; g.sh = g.sw = g.dh = g.dw = 1;
        g.ph = g.pw = 1; g.G = 1;
#ifdef CT__GEMM_SIMD
        CHECK(ct__conv_wino_ok(CT__CONV_FWD, F, &g) && ct__conv_wino_ok(CT__CONV_TRANSPOSE, F, &g));
#endif
        CHECK(!ct__conv_wino_ok(CT__CONV_FWD, D, &g) && !ct__conv_wino_ok(CT__CONV_WEIGHT, F, &g));
        ct__cgeo h = g;
        h.cl = 1;
        CHECK(!ct__conv_wino_ok(CT__CONV_FWD, F, &h));
        h = g; h.sh = 2; h.OH = 28;
        CHECK(!ct__conv_wino_ok(CT__CONV_FWD, F, &h));
        h = g; h.dw = 2; h.OW = 54;
        CHECK(!ct__conv_wino_ok(CT__CONV_FWD, F, &h));
        h = g; h.G = 2;
        CHECK(!ct__conv_wino_ok(CT__CONV_FWD, F, &h));
        h = g; h.kh = h.kw = 5; h.ph = h.pw = 2;
        CHECK(!ct__conv_wino_ok(CT__CONV_FWD, F, &h));
        h = g; h.C = 15;
        CHECK(!ct__conv_wino_ok(CT__CONV_FWD, F, &h));
        h = g; h.N = 1; h.H = h.W = h.OH = h.OW = 14;   /* 49 tiles */
        CHECK(!ct__conv_wino_ok(CT__CONV_FWD, F, &h));
        h = g; h.ph = h.pw = 3; h.H = h.W = 60;   /* conv_transpose2d x of 60 from 56 at padding 3: no */
        CHECK(!ct__conv_wino_ok(CT__CONV_TRANSPOSE, F, &h));
        ct_set_conv_winograd(7);
        CHECK(ct_get_conv_winograd() == 0 && !ct__conv_wino_ok(CT__CONV_FWD, F, &g));
        ct_set_conv_winograd(1);
    }
    /* conv2d's input gradient through autograd takes the routed conv_transpose2d */
    {
        ct_tensor *x = leaf(RND(F, 330, 2, 16, 20, 19)), *w = leaf(RND(F, 331, 24, 16, 3, 3));
        ct_tensor *xd = leaf(ct_to(x, D)), *wd = leaf(ct_to(w, D));
        ct_conv_options o = {.padding = 1};
        ct_tensor *gy = RND(F, 332, 2, 24, 20, 19);
        ct_backward(ct_sum(ct_mul(ct_conv2d(x, w, NULL, &o), gy)));
        ct_backward(ct_sum(ct_mul(ct_conv2d(xd, wd, NULL, &o), ct_to(gy, D))));
        CHECK(ct_grad(x) && ct_allclose(ct_to(ct_grad(x), D), ct_grad(xd), 1e-4, 1e-4) == 1);
        CHECK(ct_grad(w) && ct_allclose(ct_to(ct_grad(w), D), ct_grad(wd), 1e-3, 1e-3) == 1);
    }
    /* out of memory: the error set, -1, nothing else */
    {
        ct_tensor *x = RND(F, 340, 2, 16, 20, 19), *w = RND(F, 341, 24, 16, 3, 3), *y = RND(F, 342, 2, 24, 20, 19);
        ct__cgeo g;
        memset(&g, 0, sizeof g);
        g.N = 2; g.C = 16; g.O = 24; g.H = g.OH = 20; g.W = g.OW = 19; g.kh = g.kw = 3; g.sh = g.sw = g.dh = g.dw = 1;
        g.ph = g.pw = 1; g.G = 1;
        ct_thread_cleanup();   /* the scratch comes from the thread's block cache: empty it, so it must be allocated */
        t_fail_alloc = 1;
        int r = ct__conv_wino_run(CT__CONV_FWD, (const float *)ct_data_ptr(x), (const float *)ct_data_ptr(w), NULL,
                                  (float *)ct_data_ptr(y), &g, "conv2d", 0);
        t_fail_alloc = 0;
#ifdef CT__GEMM_SIMD
        CHECK(r == -1 && ct_last_error_code() == CT_ERR_MEMORY && strstr(ct_last_error(), "conv2d: out of memory"));
#else
        CHECK(r == 0);
#endif
        ct_clear_error();
    }
}

int main(void) {
    ct_t_init();
    RUN(test_depthwise);
    RUN(test_1x1);
    RUN(test_implicit_gemm);
    RUN(test_channels_last_gemm);
    RUN(test_winograd);
    return ct_t_summary();
}
