/* Resampling: F.interpolate (every mode), pixel_shuffle / pixel_unshuffle,
   affine_grid and grid_sample. Checks: the source-index computations bit for
   bit against a PyTorch sweep (tests/fixtures/nn_resample/sweep), small
   hand-checked values, channels-last / strided inputs against contiguous ones
   (exactly equal, forward and backward, and the output memory formats),
   gradcheck and gradgradcheck in float64, the double-backward rules,
   PyTorch's errors (codes and messages), the modules (repr, forward) and
   memory that returns to its start. Values and gradients against PyTorch
   are in the conformance fixtures (tests/fixtures/nn_resample). */
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
/* uniform in [lo, hi) */
static ct_tensor *unif(ct_dtype dt, int ndim, const int64_t *shape, uint64_t seed, double lo, double hi) {
    ct_generator g;
    ct_generator_init(&g, seed);
    return ct_to(ct_uniform_(ct_empty_n(CT_FLOAT64, ndim, shape), lo, hi, &g), dt);
}
#define RND(dt, seed, ...) rnd(dt, CT_DIMS(__VA_ARGS__), seed)
#define UNIF(dt, seed, lo, hi, ...) unif(dt, CT_DIMS(__VA_ARGS__), seed, lo, hi)
static ct_tensor *leaf(ct_tensor *x) { return ct_requires_grad(ct_detach(x)); }
/* a channels-last-3d (NDHWC) view with x's values */
static ct_tensor *cl3d(const ct_tensor *x) { return ct_permute(ct_contiguous(ct_permute(x, 0, 2, 3, 4, 1)), 0, 4, 1, 2, 3); }
static ct_tensor *clx(const ct_tensor *x) { return ct_ndim(x) == 4 ? ct_to_channels_last(x) : cl3d(x); }
static int is_cl3d(const ct_tensor *t) {
    return ct_ndim(t) == 5 && ct_stride(t, 1) == 1 && ct_stride(t, 4) == ct_size(t, 1) && !ct_is_contiguous(t);
}

/* ---- the sweep: 1-D interpolation of arange(I) to many sizes and scale factors ---- */
TEST(test_index_sweep) {
    ct_tensor *params = ct_load_npy("tests/fixtures/nn_resample/sweep/params.npy");
    CHECK(params != NULL);
    if (!params) return;
    const double *pp = (const double *)ct_data_ptr(params);
    int64_t ncombo = ct_size(params, 0);
    static const char *const modes[6] = {"nearest", "exact", "linear", "linear_ac", "cubic", "cubic_ac"};
    for (int dt = 0; dt < 2; dt++)
        for (int m = 0; m < 6; m++) {
            char path[256];
            snprintf(path, sizeof path, "tests/fixtures/nn_resample/sweep/%s_%s.npy", modes[m], dt ? "f64" : "f32");
            ct_tensor *e = ct_to(ct_load_npy(path), CT_FLOAT64);
            CHECK(e != NULL);
            if (!e) continue;
            const double *ep = (const double *)ct_data_ptr(e);
            int64_t at = 0, bad = 0;
            double worst = 0;
            int s = ct_scope_begin();
            for (int64_t k = 0; k < ncombo; k++) {
                int64_t I = (int64_t)pp[3 * k], O = (int64_t)pp[3 * k + 1];
                double sf = pp[3 * k + 2];
                ct_interpolate_options o;
                memset(&o, 0, sizeof o);
                o.mode = m == 0 ? "nearest" : m == 1 ? "nearest-exact" : m < 4 ? "linear" : "bicubic";
                o.align_corners = (m == 3 || m == 5) ? 1 : (m >= 2 ? -1 : 0);
                ct_tensor *x = ct_arange(0, (double)I, 1, dt ? CT_FLOAT64 : CT_FLOAT32);
                x = m >= 4 ? ct_reshape(x, 1, 1, 1, I) : ct_reshape(x, 1, 1, I);
                if (m >= 4) {   /* bicubic along W of a [1, 1, 1, I] image */
                    if (sf == 0) { o.size[0] = 1; o.size[1] = O; }
                    else { o.scale_factor[0] = 1.0; o.scale_factor[1] = sf; }
                } else {
                    if (sf == 0) o.size[0] = O;
                    else o.scale_factor[0] = sf;
                }
                ct_tensor *y = ct_contiguous(ct_to(ct_interpolate(x, &o), CT_FLOAT64));
                if (!y || ct_numel(y) != O) { bad++; at += O; continue; }
                const double *yp = (const double *)ct_data_ptr(y);
                for (int64_t i = 0; i < O; i++) {
                    double d = fabs(yp[i] - ep[at + i]);
                    if (d > worst) worst = d;
                }
                /* the indices (nearest) and float64 weights (linear) bit for bit; float32 linear within one
                   rounding (PyTorch's AVX2 build fuses its multiply-add); cubic within rounding (its
                   coefficient arithmetic is contracted to fused multiply-adds differently) */
                double tol = m >= 4 ? (dt ? 1e-13 : 1e-5) : m >= 2 && !dt ? 1.2e-7 : 0;
                for (int64_t i = 0; i < O; i++)
                    if (fabs(yp[i] - ep[at + i]) > tol * (1 + fabs(ep[at + i]))) { bad++; break; }
                at += O;
                if ((k & 63) == 63) { ct_scope_end(s); s = ct_scope_begin(); }
            }
            ct_scope_end(s);
            CT_T_REPORT(bad == 0 && at == ct_numel(e), "sweep %s_%s: %lld of %lld combinations differ (largest difference %.3g)",
                        modes[m], dt ? "f64" : "f32", (long long)bad, (long long)ncombo, worst);
        }
}

TEST(test_values) {
    ct_tensor *x = ct_reshape(ct_arange(0, 6, 1, CT_FLOAT64), 1, 1, 2, 3);
    /* nearest 2x repeats; nearest-exact picks the closest centre */
    CHECK_VALUES(ct_interpolate(x, &(ct_interpolate_options){.scale_factor = {2}}),
                 ((double[]){0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 3, 3, 4, 4, 5, 5}), 24, 0);
    CHECK_VALUES(ct_interpolate(ct_reshape(x, 1, 1, 6), &(ct_interpolate_options){.size = {4}, .mode = "nearest-exact"}),
                 ((double[]){0, 2, 3, 5}), 4, 0);
    CHECK_VALUES(ct_interpolate(ct_reshape(x, 1, 1, 6), &(ct_interpolate_options){.size = {4}}), ((double[]){0, 1, 3, 4}), 4, 0);
    /* linear: align_corners keeps the end points */
    ct_tensor *l = ct_reshape(ct_arange(0, 3, 1, CT_FLOAT64), 1, 1, 3);
    CHECK_VALUES(ct_interpolate(l, &(ct_interpolate_options){.size = {5}, .mode = "linear", .align_corners = 1}),
                 ((double[]){0, 0.5, 1, 1.5, 2}), 5, 1e-15);
    CHECK_VALUES(ct_interpolate(l, &(ct_interpolate_options){.size = {6}, .mode = "linear"}),
                 ((double[]){0, 0.25, 0.75, 1.25, 1.75, 2}), 6, 1e-15);
    /* bilinear 2x of [[0, 1, 2], [3, 4, 5]] */
    CHECK_VALUES(ct_interpolate(x, &(ct_interpolate_options){.size = {2, 6}, .mode = "bilinear"}),
                 ((double[]){0, 0.25, 0.75, 1.25, 1.75, 2, 3, 3.25, 3.75, 4.25, 4.75, 5}), 12, 1e-15);
    /* bicubic reproduces a linear ramp away from the borders (the cubic kernel is exact for lines) */
    ct_tensor *ramp = ct_reshape(ct_arange(0, 8, 1, CT_FLOAT64), 1, 1, 1, 8);
    ct_tensor *yc = ct_interpolate(ramp, &(ct_interpolate_options){.size = {1, 15}, .mode = "bicubic", .align_corners = 1});
    CHECK_VALUES(ct_narrow(ct_reshape(yc, 15), 0, 4, 7), ((double[]){2, 2.5, 3, 3.5, 4, 4.5, 5}), 7, 1e-12);
    /* trilinear of a constant is the constant; area averages */
    CHECK(ct_allclose(ct_interpolate(ct_full(CT_FLOAT32, 2.5, 1, 2, 2, 3, 2), &(ct_interpolate_options){.scale_factor = {1.5, 2, 0.5}, .mode = "trilinear"}),
                      ct_full(CT_FLOAT32, 2.5, 1, 2, 3, 6, 1), 0, 1e-6) == 1);
    CHECK_VALUES(ct_interpolate(ct_reshape(ct_arange(0, 4, 1, CT_FLOAT64), 1, 1, 4), &(ct_interpolate_options){.size = {2}, .mode = "area"}),
                 ((double[]){0.5, 2.5}), 2, 1e-15);
    CHECK_VALUES(ct_interpolate(ct_reshape(ct_arange(0, 8, 1, CT_FLOAT64), 1, 1, 2, 2, 2), &(ct_interpolate_options){.size = {1}, .mode = "area"}),
                 ((double[]){3.5}), 1, 1e-15);
    /* scale_factor sizes are floor(in * s); recompute_scale_factor changes the weights, not the size */
    ct_tensor *x5 = ct_reshape(ct_arange(0, 5, 1, CT_FLOAT64), 1, 1, 5);
    ct_tensor *a = ct_interpolate(x5, &(ct_interpolate_options){.scale_factor = {1.7}, .mode = "linear"});
    ct_tensor *b = ct_interpolate(x5, &(ct_interpolate_options){.scale_factor = {1.7}, .mode = "linear", .recompute_scale_factor = 1});
    CHECK(a && b && ct_size(a, 2) == 8 && ct_size(b, 2) == 8);
    CHECK_VALUES(a, ((double[]){0, 0.38235294117647056, 0.97058823529411764, 1.5588235294117647, 2.1470588235294117, 2.7352941176470589,
                                3.3235294117647061, 3.9117647058823533}), 8, 1e-15);
    CHECK_VALUES(b, ((double[]){0, 0.4375, 1.0625, 1.6875, 2.3125, 2.9375, 3.5625, 4}), 8, 1e-15);
    /* pixel shuffle / unshuffle are inverse permutations */
    ct_tensor *p = ct_reshape(ct_arange(0, 16, 1, CT_FLOAT32), 1, 4, 2, 2);
    ct_tensor *ps = ct_pixel_shuffle(p, 2);
    CHECK_VALUES(ps, ((double[]){0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15}), 16, 0);
    CHECK(ct_equal(ct_pixel_unshuffle(ps, 2), p) == 1);
    ct_tensor *pi = ct_reshape(ct_arange(0, 2 * 3 * 18 * 2 * 2, 1, CT_INT64), 2, 3, 18, 2, 2);
    ct_tensor *psi = ct_pixel_shuffle(pi, 3);
    CHECK(psi && ct_get_dtype(psi) == CT_INT64 && ct_ndim(psi) == 5 && ct_size(psi, 2) == 2 && ct_size(psi, 3) == 6);
    CHECK(ct_equal(ct_pixel_unshuffle(psi, 3), pi) == 1);
    /* affine_grid: identity theta samples the pixel centres; grid_sample with it is the identity */
    static const double idd[6] = {1, 0, 0, 0, 1, 0};
    ct_tensor *th = ct_reshape(ct_tensor_f64(idd, 6), 1, 2, 3);
    ct_tensor *g = ct_affine_grid(th, 4, (int64_t[]){1, 1, 2, 3}, 0);
    CHECK_VALUES(g, ((double[]){-2.0 / 3, -0.5, 0, -0.5, 2.0 / 3, -0.5, -2.0 / 3, 0.5, 0, 0.5, 2.0 / 3, 0.5}), 12, 1e-15);
    ct_tensor *img = RND(CT_FLOAT64, 1, 1, 3, 2, 3);
    for (int m = 0; m < 3; m++) {
        static const char *const md[3] = {"bilinear", "nearest", "bicubic"};
        ct_tensor *s = ct_grid_sample(img, g, &(ct_grid_sample_options){.mode = md[m]});
        CHECK(ct_allclose(s, img, 1e-12, 1e-12) == 1);
    }
    ct_tensor *g3 = ct_affine_grid(ct_reshape(ct_tensor_f64(((const double[]){1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}), 12), 1, 3, 4), 5,
                                   (int64_t[]){1, 1, 2, 3, 2}, 1);
    ct_tensor *img3 = RND(CT_FLOAT64, 2, 1, 2, 2, 3, 2);
    CHECK(ct_allclose(ct_grid_sample(img3, g3, &(ct_grid_sample_options){.align_corners = 1}), img3, 1e-12, 1e-12) == 1);
    CHECK(ct_allclose(ct_grid_sample(img3, g3, &(ct_grid_sample_options){.align_corners = 1, .mode = "nearest"}), img3, 0, 0) == 1);
    /* zeros padding: far outside samples 0; border: the edge value */
    ct_tensor *far = ct_full(CT_FLOAT64, 5.0, 1, 1, 1, 2);
    CHECK_VALUES(ct_grid_sample(img, far, NULL), ((double[]){0, 0, 0}), 3, 0);
    ct_tensor *edge = ct_grid_sample(img, far, &(ct_grid_sample_options){.padding_mode = "border"});
    CHECK(ct_allclose(ct_reshape(edge, 3), ct_reshape(ct_narrow(ct_narrow(img, 2, 1, 1), 3, 2, 1), 3), 0, 0) == 1);
    /* empty batch */
    ct_tensor *e = ct_interpolate(ct_zeros(CT_FLOAT32, 0, 2, 3, 3), &(ct_interpolate_options){.scale_factor = {2}, .mode = "bilinear"});
    CHECK(e && ct_size(e, 0) == 0 && ct_size(e, 2) == 6);
}

/* ---- layouts: channels-last and strided inputs give the contiguous results exactly ---- */
static void check_layouts(int line, ct_tensor *x, ct_interpolate_options o, int cl_out) {
    ct_tensor *xl = leaf(x), *xc = leaf(clx(x));
    ct_tensor *y = ct_interpolate(xl, &o), *yc = ct_interpolate(xc, &o);
    int ok = y && yc && ct_equal(y, yc) == 1;
    int fmt = yc && (ct_ndim(yc) == 4 ? (ct_is_channels_last(yc) && !ct_is_contiguous(yc)) == cl_out : is_cl3d(yc) == cl_out);
    ct_tensor *g = ct_mul(ct_contiguous(ct_detach(y)), ct_full(ct_get_dtype(x), 0.5, 1));
    g = ct_add(g, ct_sin(g));
    ct_backward(ct_sum(ct_mul(y, g)));
    ct_backward(ct_sum(ct_mul(yc, cl_out ? clx(g) : g)));
    /* the adjoint sums in the layout's order: equal to rounding */
    int okg = ct_grad(xl) && ct_grad(xc) && ct_allclose(ct_grad(xl), ct_grad(xc), 1e-5, 1e-5) == 1;
    /* a gradient in the output's layout reaches the backward op as it is */
    ct_tensor *gcl = cl_out ? clx(g) : g, *gx = NULL;
    okg = okg && ct_autograd_grad(1, &yc, &gcl, 1, &xc, &gx, NULL) == CT_OK && ct_allclose(ct_grad(xl), gx, 1e-5, 1e-5) == 1;
    if (!ok || !fmt || !okg) printf("line %d: layouts: values %d, format %d, gradients %d (%s)\n", line, ok, fmt, okg, ct_last_error());
    CHECK(ok && fmt && okg);
}
TEST(test_layouts) {
    ct_dtype f = CT_FLOAT32;
    check_layouts(__LINE__, RND(f, 10, 2, 5, 6, 7), (ct_interpolate_options){.scale_factor = {2}}, 1);
    check_layouts(__LINE__, RND(f, 11, 2, 5, 6, 7), (ct_interpolate_options){.size = {9, 4}, .mode = "nearest-exact"}, 1);
    check_layouts(__LINE__, RND(f, 12, 2, 16, 6, 7), (ct_interpolate_options){.scale_factor = {2}, .mode = "bilinear"}, 1);
    check_layouts(__LINE__, RND(f, 13, 3, 5, 9, 8), (ct_interpolate_options){.size = {4, 5}, .mode = "bilinear", .align_corners = 1}, 1);
    check_layouts(__LINE__, RND(CT_FLOAT64, 14, 2, 3, 5, 4), (ct_interpolate_options){.scale_factor = {1.5, 2.5}, .mode = "bilinear"}, 1);
    /* bicubic: channels-last in, contiguous out (as PyTorch 1.13) */
    check_layouts(__LINE__, RND(f, 15, 2, 5, 6, 7), (ct_interpolate_options){.scale_factor = {2}, .mode = "bicubic"}, 0);
    check_layouts(__LINE__, RND(f, 16, 2, 5, 3, 4, 5), (ct_interpolate_options){.scale_factor = {2}, .mode = "trilinear"}, 1);
    check_layouts(__LINE__, RND(f, 17, 2, 5, 3, 4, 5), (ct_interpolate_options){.size = {2, 7, 3}}, 1);
    check_layouts(__LINE__, RND(f, 18, 1, 3, 4, 5, 3), (ct_interpolate_options){.scale_factor = {1.5, 0.5, 2}, .mode = "nearest-exact"}, 1);
    /* large enough for threaded blocks (one sample, channels-last) */
    check_layouts(__LINE__, RND(f, 19, 1, 32, 40, 48), (ct_interpolate_options){.scale_factor = {2}, .mode = "bilinear"}, 1);
    check_layouts(__LINE__, RND(f, 20, 1, 8, 8, 40, 48), (ct_interpolate_options){.scale_factor = {2}, .mode = "trilinear"}, 1);
    /* one channel: both contiguous and channels-last; PyTorch keeps the contiguous format */
    ct_tensor *x1 = ct_to_channels_last(RND(f, 21, 2, 1, 3, 4));
    ct_tensor *y1 = ct_interpolate(x1, &(ct_interpolate_options){.scale_factor = {2}, .mode = "bilinear"});
    CHECK(y1 && ct_is_contiguous(y1));
    /* strided (permuted) inputs */
    ct_tensor *xs = ct_permute(RND(CT_FLOAT64, 22, 2, 6, 3, 5), 0, 2, 3, 1);
    static const char *const modes[4] = {"nearest", "nearest-exact", "bilinear", "bicubic"};
    for (int m = 0; m < 4; m++) {
        ct_interpolate_options o = {.size = {7, 4}, .mode = modes[m]};
        CHECK(ct_equal(ct_interpolate(xs, &o), ct_interpolate(ct_contiguous(xs), &o)) == 1);
    }
    /* a broadcast operand leaves the layout to the other one (PyTorch's TensorIterator): the gradient
       of sum(y * g) for a channels-last y stays channels-last */
    ct_tensor *gcl = ct_to_channels_last(RND(f, 28, 2, 3, 4, 5));
    ct_tensor *m1 = ct_mul(ct_expand(ct_ones(f, 1, 1, 1, 1), 2, 3, 4, 5), gcl), *m2 = ct_mul(ct_expand(ct_ones(f, 2, 1, 4, 5), 2, 3, 4, 5), gcl);
    CHECK(m1 && m2 && ct_is_channels_last(m1) && !ct_is_contiguous(m1) && ct_is_channels_last(m2) && ct_equal(m1, gcl) == 1);
    /* an expanded (stride 0) gradient reaches the strided backward path */
    ct_tensor *xl = leaf(RND(CT_FLOAT64, 23, 2, 3, 4, 5));
    ct_backward(ct_sum(ct_interpolate(xl, &(ct_interpolate_options){.scale_factor = {2}, .mode = "bilinear"})));
    CHECK(ct_allclose(ct_grad(xl), ct_full(CT_FLOAT64, 4.0, 2, 3, 4, 5), 1e-12, 1e-12) == 1);
    /* pixel shuffle keeps channels-last */
    ct_tensor *pcl = ct_to_channels_last(RND(f, 24, 2, 12, 3, 4));
    ct_tensor *pso = ct_pixel_shuffle(pcl, 2);
    CHECK(pso && ct_is_channels_last(pso) && !ct_is_contiguous(pso));
    CHECK(ct_equal(pso, ct_pixel_shuffle(ct_contiguous(pcl), 2)) == 1);
    ct_tensor *puo = ct_pixel_unshuffle(ct_to_channels_last(RND(f, 25, 2, 3, 4, 6)), 2);
    CHECK(puo && ct_is_channels_last(puo) && !ct_is_contiguous(puo));
    /* grid_sample: channels-last input, contiguous output equal to the contiguous input's */
    ct_tensor *gi = RND(f, 26, 2, 3, 5, 6), *gg = UNIF(f, 27, -1.2, 1.2, 2, 4, 3, 2);
    ct_tensor *gs = ct_grid_sample(ct_to_channels_last(gi), gg, NULL);
    CHECK(gs && ct_is_contiguous(gs) && ct_equal(gs, ct_grid_sample(gi, gg, NULL)) == 1);
}

/* A batch large enough to run threaded (optimized build): its values and gradients equal
   the per-sample ones (a sample's work is the same code either way) */
TEST(test_batch_equals_samples) {
    ct_tensor *x = RND(CT_FLOAT32, 130, 4, 8, 20, 20), *gr = UNIF(CT_FLOAT32, 131, -1.2, 1.2, 4, 24, 20, 2);
    ct_tensor *xl = leaf(x), *gl = leaf(gr);
    ct_grid_sample_options o = {.padding_mode = "border"};
    ct_tensor *y = ct_grid_sample(xl, gl, &o), *go = RND(CT_FLOAT32, 132, 4, 8, 24, 20);
    ct_backward(ct_sum(ct_mul(y, go)));
    ct_tensor *z = ct_interpolate(ct_to_channels_last(x), &(ct_interpolate_options){.scale_factor = {2}, .mode = "bilinear"});
    int ok = y && z && ct_grad(xl) && ct_grad(gl);
    for (int64_t n = 0; ok && n < 4; n++) {
        ct_tensor *xn = leaf(ct_narrow(x, 0, n, 1)), *gn = leaf(ct_narrow(gr, 0, n, 1));
        ct_tensor *yn = ct_grid_sample(xn, gn, &o);
        ok &= ct_equal(yn, ct_narrow(y, 0, n, 1)) == 1;
        ct_backward(ct_sum(ct_mul(yn, ct_narrow(go, 0, n, 1))));
        ok &= ct_equal(ct_grad(xn), ct_narrow(ct_grad(xl), 0, n, 1)) == 1 && ct_equal(ct_grad(gn), ct_narrow(ct_grad(gl), 0, n, 1)) == 1;
        ok &= ct_equal(ct_interpolate(ct_to_channels_last(ct_narrow(x, 0, n, 1)), &(ct_interpolate_options){.scale_factor = {2}, .mode = "bilinear"}),
                       ct_narrow(z, 0, n, 1)) == 1;
    }
    CHECK(ok);
}

/* ---- gradcheck / gradgradcheck in float64 ---- */
typedef struct lay_case { ct_interpolate_options o; int cl; } lay_case;
static ct_tensor *interp_lay(ct_tensor *const *in, void *user) {
    const lay_case *c = (const lay_case *)user;
    ct_tensor *x = c->cl ? clx(in[0]) : in[0];
    ct_tensor *y = ct_interpolate(x, &c->o);
    return ct_mul(y, y);
}
static void check_interp_grads(int line, ct_tensor *x, ct_interpolate_options o) {
    for (int cl = 0; cl < (ct_ndim(x) >= 4 ? 2 : 1); cl++) {
        lay_case c = {o, cl};
        ct_tensor *in[1] = {leaf(x)};
        int ok = ct_gradcheck(interp_lay, &c, 1, in, NULL);
        if (!ok) printf("line %d (cl %d): gradcheck: %s\n", line, cl, ct_last_error());
        CHECK(ok);
        ok = ct_gradgradcheck(interp_lay, &c, 1, in, NULL);
        if (!ok) printf("line %d (cl %d): gradgradcheck: %s\n", line, cl, ct_last_error());
        CHECK(ok);
    }
}
#define D CT_FLOAT64
TEST(test_gradcheck_interpolate) {
    static const char *const m1[3] = {"nearest", "nearest-exact", "linear"};
    for (int m = 0; m < 3; m++) {
        check_interp_grads(__LINE__, RND(D, 30 + m, 2, 2, 5), (ct_interpolate_options){.size = {8}, .mode = m1[m]});
        check_interp_grads(__LINE__, RND(D, 33 + m, 1, 2, 7), (ct_interpolate_options){.scale_factor = {0.6}, .mode = m1[m]});
    }
    check_interp_grads(__LINE__, RND(D, 36, 1, 2, 4), (ct_interpolate_options){.size = {7}, .mode = "linear", .align_corners = 1});
    static const char *const m2[4] = {"nearest", "nearest-exact", "bilinear", "bicubic"};
    for (int m = 0; m < 4; m++) {
        check_interp_grads(__LINE__, RND(D, 40 + m, 2, 3, 3, 4), (ct_interpolate_options){.scale_factor = {2, 1.5}, .mode = m2[m]});
        check_interp_grads(__LINE__, RND(D, 44 + m, 1, 2, 5, 6), (ct_interpolate_options){.size = {3, 4}, .mode = m2[m]});
    }
    check_interp_grads(__LINE__, RND(D, 48, 1, 2, 3, 4), (ct_interpolate_options){.size = {5, 7}, .mode = "bilinear", .align_corners = 1});
    check_interp_grads(__LINE__, RND(D, 49, 1, 2, 3, 4), (ct_interpolate_options){.size = {5, 7}, .mode = "bicubic", .align_corners = 1});
    check_interp_grads(__LINE__, RND(D, 50, 1, 2, 6, 7), (ct_interpolate_options){.size = {2, 3}, .mode = "bicubic", .align_corners = 1});
    static const char *const m3[3] = {"nearest", "nearest-exact", "trilinear"};
    for (int m = 0; m < 3; m++) {
        check_interp_grads(__LINE__, RND(D, 51 + m, 1, 2, 2, 3, 3), (ct_interpolate_options){.scale_factor = {2, 1.5, 0.7}, .mode = m3[m]});
        check_interp_grads(__LINE__, RND(D, 54 + m, 1, 2, 4, 3, 5), (ct_interpolate_options){.size = {2, 5, 3}, .mode = m3[m]});
    }
    check_interp_grads(__LINE__, RND(D, 57, 1, 2, 2, 3, 2), (ct_interpolate_options){.size = {3, 4, 3}, .mode = "trilinear", .align_corners = 1});
    check_interp_grads(__LINE__, RND(D, 58, 1, 2, 6, 5), (ct_interpolate_options){.size = {3, 2}, .mode = "area"});
    check_interp_grads(__LINE__, RND(D, 59, 1, 2, 4, 3, 5), (ct_interpolate_options){.size = {2, 2, 3}, .mode = "area"});
}
static ct_tensor *shuffle_sq(ct_tensor *const *in, void *user) {
    int64_t r = *(const int64_t *)user;
    ct_tensor *y = r > 0 ? ct_pixel_shuffle(in[0], r) : ct_pixel_unshuffle(in[0], -r);
    return ct_mul(y, ct_sin(y));
}
static ct_tensor *affine_sq(ct_tensor *const *in, void *user) {
    const int64_t *size = (const int64_t *)user;
    ct_tensor *g = ct_affine_grid(in[0], (int)size[0], size + 2, (int)size[1]);
    return ct_mul(g, g);
}
typedef struct gs_case { ct_grid_sample_options o; } gs_case;
static ct_tensor *gs_fn(ct_tensor *const *in, void *user) { return ct_grid_sample(in[0], in[1], &((const gs_case *)user)->o); }
TEST(test_gradcheck_shuffle_grid) {
    int64_t r2 = 2, r3 = -3;
    ct_tensor *in[2];
    in[0] = leaf(RND(D, 60, 2, 8, 2, 3));
    CHECK(ct_gradcheck(shuffle_sq, &r2, 1, in, NULL) && ct_gradgradcheck(shuffle_sq, &r2, 1, in, NULL));
    in[0] = leaf(RND(D, 61, 2, 2, 6, 3));
    CHECK(ct_gradcheck(shuffle_sq, &r3, 1, in, NULL) && ct_gradgradcheck(shuffle_sq, &r3, 1, in, NULL));
    static const double t2[12] = {0.9, -0.3, 0.1, 0.2, 1.1, -0.2, 1.0, 0.1, 0.0, -0.1, 0.8, 0.3};
    int64_t s2[6] = {4, 0, 2, 3, 4, 5}, s3[7] = {5, 1, 1, 2, 3, 2, 4};
    for (int ac = 0; ac < 2; ac++) {
        s2[1] = ac;
        in[0] = leaf(ct_reshape(ct_tensor_f64(t2, 12), 2, 2, 3));
        CHECK(ct_gradcheck(affine_sq, s2, 1, in, NULL) && ct_gradgradcheck(affine_sq, s2, 1, in, NULL));
    }
    in[0] = leaf(RND(D, 62, 1, 3, 4));
    CHECK(ct_gradcheck(affine_sq, s3, 1, in, NULL) && ct_gradgradcheck(affine_sq, s3, 1, in, NULL));
    /* grid_sample: every mode and padding, input and grid gradients (grid points away from cell borders,
       where the finite differences would cross a kink) */
    static const char *const md[3] = {"bilinear", "nearest", "bicubic"}, *const pd[3] = {"zeros", "border", "reflection"};
    for (int m = 0; m < 3; m++)
        for (int p = 0; p < 3; p++)
            for (int ac = 0; ac < 2; ac++)
                for (int d3 = 0; d3 < (m == 2 ? 1 : 2); d3++) {
                    gs_case c = {{md[m], pd[p], ac}};
                    ct_tensor *x = d3 ? RND(D, 63, 1, 2, 3, 2, 3) : RND(D, 63, 2, 2, 3, 4);
                    ct_tensor *g = d3 ? UNIF(D, 64 + m * 6 + p * 2 + ac, -1.4, 1.4, 1, 2, 2, 2, 3) : UNIF(D, 64 + m * 6 + p * 2 + ac, -1.4, 1.4, 2, 3, 2, 2);
                    in[0] = leaf(x);
                    in[1] = leaf(g);
                    int ok = ct_gradcheck(gs_fn, &c, 2, in, NULL);
                    if (!ok) printf("grid_sample %s %s align %d 3d %d: %s\n", md[m], pd[p], ac, d3, ct_last_error());
                    CHECK(ok);
                }
    /* PyTorch has no derivative for grid_sampler_2d_backward: neither does ctensor (a clear error) */
    gs_case c = {{NULL, NULL, 0}};
    in[0] = leaf(RND(D, 90, 1, 2, 3, 3));
    in[1] = leaf(UNIF(D, 91, -1, 1, 1, 2, 2, 2));
    ct_tensor *y = ct_grid_sample(in[0], in[1], &c.o), *gr[2];
    ct_tensor *go = leaf(ct_ones_like(y));
    CHECK(ct_autograd_grad(1, &y, &go, 2, in, gr, &(ct_grad_options){.create_graph = 1}) == CT_OK);
    CHECK_ERR(ct_backward(ct_sum(ct_mul(gr[1], gr[1]))) == CT_OK, CT_ERR_AUTOGRAD, "the derivative for 'grid_sampler_2d_backward' is not implemented");
}

TEST(test_grad_fn_names) {
    ct_tensor *x4 = leaf(RND(D, 100, 1, 2, 3, 4)), *x3 = leaf(RND(D, 101, 1, 2, 3)), *x5 = leaf(RND(D, 102, 1, 2, 2, 2, 2));
    CHECK_STR(ct_grad_fn_name(ct_interpolate(x4, &(ct_interpolate_options){.scale_factor = {2}})), "UpsampleNearest2DBackward1");
    CHECK_STR(ct_grad_fn_name(ct_interpolate(x4, &(ct_interpolate_options){.scale_factor = {2}, .mode = "nearest-exact"})), "UpsampleNearestExact2DBackward1");
    CHECK_STR(ct_grad_fn_name(ct_interpolate(x4, &(ct_interpolate_options){.scale_factor = {2}, .mode = "bilinear"})), "UpsampleBilinear2DBackward1");
    CHECK_STR(ct_grad_fn_name(ct_interpolate(x4, &(ct_interpolate_options){.scale_factor = {2}, .mode = "bicubic"})), "UpsampleBicubic2DBackward1");
    CHECK_STR(ct_grad_fn_name(ct_interpolate(x4, &(ct_interpolate_options){.scale_factor = {2}, .mode = "area"})), "AdaptiveAvgPool2DBackward0");
    CHECK_STR(ct_grad_fn_name(ct_interpolate(x3, &(ct_interpolate_options){.scale_factor = {2}, .mode = "linear"})), "UpsampleLinear1DBackward1");
    CHECK_STR(ct_grad_fn_name(ct_interpolate(x3, &(ct_interpolate_options){.scale_factor = {2}})), "UpsampleNearest1DBackward1");
    CHECK_STR(ct_grad_fn_name(ct_interpolate(x5, &(ct_interpolate_options){.scale_factor = {2}, .mode = "trilinear"})), "UpsampleTrilinear3DBackward1");
    CHECK_STR(ct_grad_fn_name(ct_pixel_shuffle(ct_interpolate(x4, &(ct_interpolate_options){.size = {2, 2}}), 1)), "PixelShuffleBackward0");
    CHECK_STR(ct_grad_fn_name(ct_grid_sample(x4, UNIF(D, 103, -1, 1, 1, 2, 2, 2), NULL)), "GridSampler2DBackward0");
    CHECK_STR(ct_grad_fn_name(ct_grid_sample(x5, UNIF(D, 104, -1, 1, 1, 2, 2, 2, 3), NULL)), "GridSampler3DBackward0");
    /* the backward of an upsampling is an op of its own, differentiable (create_graph) */
    ct_tensor *y = ct_interpolate(x4, &(ct_interpolate_options){.scale_factor = {2}, .mode = "bilinear"}), *gx;
    ct_tensor *go = leaf(ct_ones_like(y));
    CHECK(ct_autograd_grad(1, &y, &go, 1, &x4, &gx, &(ct_grad_options){.create_graph = 1}) == CT_OK);
    CHECK_STR(ct_grad_fn_name(gx), "UpsampleBilinear2DBackwardBackward1");
    /* d(sum(gx * w)) / d go = upsample(w): the forward op again */
    ct_tensor *wgt = RND(D, 105, 1, 2, 3, 4), *gg;
    CHECK(ct_autograd_grad(1, &gx, &wgt, 1, &go, &gg, NULL) == CT_OK);
    CHECK(ct_allclose(gg, ct_interpolate(wgt, &(ct_interpolate_options){.scale_factor = {2}, .mode = "bilinear"}), 1e-14, 1e-14) == 1);
}

TEST(test_errors) {
    ct_tensor *x4 = ct_ones(CT_FLOAT32, 1, 2, 3, 4), *x3 = ct_ones(CT_FLOAT32, 1, 2, 5), *x5 = ct_ones(CT_FLOAT32, 1, 2, 3, 4, 5);
#define IO(...) (&(ct_interpolate_options){__VA_ARGS__})
    CHECK_ERR(ct_interpolate(x4, IO(.size = {3}, .scale_factor = {2})), CT_ERR_ARG, "interpolate: only one of size or scale_factor should be defined");
    CHECK_ERR(ct_interpolate(x4, NULL), CT_ERR_ARG, "interpolate: either size or scale_factor should be defined");
    CHECK_ERR(ct_interpolate(x4, IO(.size = {3, 4, 5})), CT_ERR_ARG,
              "interpolate: Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of [3, 4] and "
              "output size of (3, 4, 5). Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.");
    CHECK_ERR(ct_interpolate(x4, IO(.scale_factor = {2, 2, 2})), CT_ERR_ARG,
              "interpolate: Input and scale_factor must have the same number of spatial dimensions, but got input with spatial dimensions of [3, 4] and "
              "scale_factor of shape (2.0, 2.0, 2.0).");
    CHECK_ERR(ct_interpolate(x4, IO(.size = {3}, .align_corners = 1)), CT_ERR_ARG,
              "interpolate: align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear");
    CHECK_ERR(ct_interpolate(x4, IO(.size = {3}, .mode = "area", .align_corners = -1)), CT_ERR_ARG, "align_corners option can only be set");
    CHECK_ERR(ct_interpolate(x4, IO(.size = {3}, .mode = "trilinear")), CT_ERR_SHAPE, "interpolate: Got 4D input, but trilinear mode needs 5D input");
    CHECK_ERR(ct_interpolate(x4, IO(.size = {3}, .mode = "linear")), CT_ERR_SHAPE, "interpolate: Got 4D input, but linear mode needs 3D input");
    CHECK_ERR(ct_interpolate(x3, IO(.size = {3}, .mode = "bilinear")), CT_ERR_SHAPE, "interpolate: Got 3D input, but bilinear mode needs 4D input");
    CHECK_ERR(ct_interpolate(x5, IO(.size = {3}, .mode = "bicubic")), CT_ERR_SHAPE,
              "interpolate: Input Error: Only 3D, 4D and 5D input Tensors supported (got 5D) for the modes: nearest | linear | bilinear | bicubic | "
              "trilinear | area | nearest-exact (got bicubic)");
    CHECK_ERR(ct_interpolate(ct_ones(CT_FLOAT32, 2, 3), IO(.size = {3})), CT_ERR_SHAPE, "Only 3D, 4D and 5D input Tensors supported (got 2D)");
    CHECK_ERR(ct_interpolate(x4, IO(.size = {3}, .mode = "foo")), CT_ERR_ARG, "(got foo)");
    CHECK_ERR(ct_interpolate(x4, IO(.size = {0, 3}, .mode = "bilinear")), CT_ERR_SHAPE,
              "upsample_bilinear2d: Input and output sizes should be greater than 0, but got input (H: 3, W: 4) output (H: 0, W: 3)");
    CHECK_ERR(ct_interpolate(x4, IO(.size = {-1, 3})), CT_ERR_SHAPE, "output (H: -1, W: 3)");
    CHECK_ERR(ct_interpolate(x4, IO(.scale_factor = {0.1})), CT_ERR_SHAPE, "output (H: 0, W: 0)");
    CHECK_ERR(ct_interpolate(x4, IO(.scale_factor = {-2}, .mode = "bilinear")), CT_ERR_SHAPE, "output (H: -6, W: -8)");
    CHECK_ERR(ct_interpolate(x4, IO(.scale_factor = {-1.5})), CT_ERR_SHAPE, "output (H: -4, W: -6)");   /* C++'s truncation */
    CHECK_ERR(ct_interpolate(x3, IO(.scale_factor = {0.1}, .mode = "linear")), CT_ERR_SHAPE,
              "upsample_linear1d: Input and output sizes should be greater than 0, but got input (W: 5) and output (W: 0)");
    CHECK_ERR(ct_interpolate(x5, IO(.size = {1, -2, 2}, .mode = "trilinear")), CT_ERR_SHAPE, "input (D: 3, H: 4, W: 5) output (D: 1, H: -2, W: 2)");
    CHECK_ERR(ct_interpolate(x4, IO(.size = {3}, .recompute_scale_factor = 1)), CT_ERR_ARG,
              "interpolate: recompute_scale_factor is not meaningful with an explicit size.");
    CHECK_ERR(ct_interpolate(x4, IO(.scale_factor = {2}, .antialias = 1)), CT_ERR_ARG, "Anti-alias option is only supported for bilinear and bicubic modes");
    CHECK_ERR(ct_interpolate(x4, IO(.scale_factor = {2}, .mode = "bilinear", .antialias = 1)), CT_ERR_UNSUPPORTED, "antialias=True is not supported");
    CHECK_ERR(ct_interpolate(ct_ones(CT_FLOAT32, 1, 0, 3, 3), IO(.scale_factor = {2})), CT_ERR_SHAPE,
              "upsample_nearest2d: Non-empty 4D data tensor expected but got a tensor with sizes [1, 0, 3, 3]");
    CHECK_ERR(ct_interpolate(ct_ones(CT_FLOAT32, 1, 2, 0, 3), IO(.scale_factor = {2}, .mode = "bilinear")), CT_ERR_SHAPE,
              "input (H: 0, W: 3) output (H: 0, W: 6)");
    CHECK_ERR(ct_interpolate(ct_ones(CT_INT64, 1, 2, 3, 4), IO(.scale_factor = {2}, .mode = "bilinear")), CT_ERR_DTYPE,
              "upsample_bilinear2d: \"upsample_bilinear2d\" not implemented for 'Long'");
    CHECK_ERR(ct_interpolate(x4, IO(.scale_factor = {1e30})), CT_ERR_ARG, "interpolate: the output size 3 * 1e+30 is out of range");
    CHECK_ERR(ct_interpolate(x4, IO(.size = {(int64_t)1 << 40, (int64_t)1 << 40})), CT_ERR_MEMORY, "is too large");
    CHECK_ERR(ct_interpolate(NULL, IO(.size = {3})), CT_ERR_NULL, "interpolate");
    ct_tensor *ea = ct_interpolate(x5, IO(.size = {2, 0, 2}, .mode = "area"));   /* PyTorch's adaptive pooling allows 0 */
    CHECK(ea && ct_numel(ea) == 0 && ct_size(ea, 2) == 2);
    /* pixel shuffle */
    CHECK_ERR(ct_pixel_shuffle(ct_ones(CT_FLOAT32, 2, 3), 2), CT_ERR_SHAPE,
              "pixel_shuffle: pixel_shuffle expects input to have at least 3 dimensions, but got input with 2 dimension(s)");
    CHECK_ERR(ct_pixel_shuffle(ct_ones(CT_FLOAT32, 1, 5, 2, 2), 2), CT_ERR_SHAPE,
              "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)=5 is not divisible by 4");
    CHECK_ERR(ct_pixel_shuffle(ct_ones(CT_FLOAT32, 1, 8, 2, 2), 0), CT_ERR_ARG, "pixel_shuffle expects a positive upscale_factor, but got 0");
    CHECK_ERR(ct_pixel_unshuffle(ct_ones(CT_FLOAT32, 1, 5, 3, 2), 2), CT_ERR_SHAPE,
              "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=3 is not divisible by 2");
    CHECK_ERR(ct_pixel_unshuffle(ct_ones(CT_FLOAT32, 1, 5, 2, 3), 2), CT_ERR_SHAPE,
              "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=3 is not divisible by 2");
    CHECK_ERR(ct_pixel_unshuffle(ct_ones(CT_FLOAT32, 1, 5, 2, 2), -1), CT_ERR_ARG, "pixel_unshuffle expects a positive downscale_factor, but got -1");
    CHECK_ERR(ct_pixel_shuffle(ct_ones(CT_FLOAT32, 1, 1, 2, 2), (int64_t)1 << 40), CT_ERR_SHAPE, "is not divisible by");
    CHECK_ERR(ct_pixel_shuffle(NULL, 2), CT_ERR_NULL, "pixel_shuffle");
    /* affine_grid */
    ct_tensor *th = ct_zeros(CT_FLOAT32, 2, 2, 3);
    CHECK_ERR(ct_affine_grid(th, 5, (int64_t[]){2, 3, 4, 5, 6}, 0), CT_ERR_SHAPE,
              "affine_grid: Expected a batch of 3D affine matrices of shape Nx3x4 for size [2, 3, 4, 5, 6]. Got torch.Size([2, 2, 3]).");
    CHECK_ERR(ct_affine_grid(th, 3, (int64_t[]){2, 3, 4}, 0), CT_ERR_ARG,
              "affine_grid: affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size [2, 3, 4].");
    CHECK_ERR(ct_affine_grid(th, 4, (int64_t[]){2, 3, 0, 5}, 0), CT_ERR_ARG, "affine_grid: Expected non-zero, positive output size. Got [2, 3, 0, 5]");
    CHECK_ERR(ct_affine_grid(th, 4, (int64_t[]){3, 3, 4, 5}, 0), CT_ERR_SHAPE, "theta holds 2 matrices for a batch of 3");
    CHECK_ERR(ct_affine_grid(ct_zeros(CT_INT64, 2, 2, 3), 4, (int64_t[]){2, 3, 4, 5}, 0), CT_ERR_DTYPE,
              "affine_grid: Expected theta to have floating point type, but got torch.int64");
    CHECK_ERR(ct_affine_grid(th, 4, NULL, 0), CT_ERR_ARG, "size must hold 4 or 5 sizes");
    CHECK(ct_affine_grid(th, 4, (int64_t[]){2, 0, 1, 5}, 1) != NULL);   /* PyTorch warns only */
    /* grid_sample */
    ct_tensor *gi = ct_ones(CT_FLOAT32, 1, 2, 3, 4), *gg = ct_zeros(CT_FLOAT32, 1, 5, 6, 2);
    CHECK_ERR(ct_grid_sample(gi, gg, &(ct_grid_sample_options){.mode = "foo"}), CT_ERR_ARG,
              "grid_sample: nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'foo'");
    CHECK_ERR(ct_grid_sample(gi, gg, &(ct_grid_sample_options){.padding_mode = "foo"}), CT_ERR_ARG,
              "expected padding_mode to be 'zeros', 'border', or 'reflection', but got: 'foo'");
    CHECK_ERR(ct_grid_sample(gi, ct_zeros(CT_FLOAT32, 1, 5, 6, 3), NULL), CT_ERR_SHAPE,
              "grid_sampler_2d: grid_sampler(): expected grid to have size 2 in last dimension, but got grid with sizes [1, 5, 6, 3]");
    CHECK_ERR(ct_grid_sample(gi, ct_zeros(CT_FLOAT32, 2, 5, 6, 2), NULL), CT_ERR_SHAPE,
              "grid_sampler(): expected grid and input to have same batch size, but got input with sizes [1, 2, 3, 4] and grid with sizes [2, 5, 6, 2]");
    CHECK_ERR(ct_grid_sample(gi, ct_zeros(CT_FLOAT32, 1, 5, 6, 2, 2), NULL), CT_ERR_SHAPE,
              "grid_sampler(): expected 4D input and grid with same number of dimensions, but got input with sizes [1, 2, 3, 4] and grid with sizes [1, 5, 6, 2, 2]");
    CHECK_ERR(ct_grid_sample(ct_ones(CT_FLOAT32, 2, 3, 4), ct_zeros(CT_FLOAT32, 2, 3, 1), NULL), CT_ERR_SHAPE,
              "grid_sampler(): expected 5D input and grid with same number of dimensions");
    CHECK_ERR(ct_grid_sample(gi, ct_zeros(CT_FLOAT64, 1, 5, 6, 2), NULL), CT_ERR_DTYPE, "expected scalar type Float but found Double");
    CHECK_ERR(ct_grid_sample(ct_ones(CT_INT64, 1, 2, 3, 4), ct_zeros(CT_INT64, 1, 5, 6, 2), NULL), CT_ERR_DTYPE, "grid_sampler_2d_cpu not implemented for Long");
    CHECK_ERR(ct_grid_sample(x5, ct_zeros(CT_FLOAT32, 1, 2, 3, 4, 3), &(ct_grid_sample_options){.mode = "bicubic"}), CT_ERR_ARG,
              "grid_sampler(): bicubic interpolation only supports 4D input");
    CHECK_ERR(ct_grid_sample(ct_ones(CT_FLOAT32, 1, 2, 0, 4), gg, NULL), CT_ERR_SHAPE,
              "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes [1, 2, 0, 4] with dimension 2 being empty");
    CHECK_ERR(ct_grid_sample(NULL, gg, NULL), CT_ERR_NULL, "grid_sample");
    CHECK(ct_grid_sample(ct_ones(CT_FLOAT32, 0, 2, 3, 4), ct_zeros(CT_FLOAT32, 0, 5, 6, 2), NULL) != NULL);
    /* modules */
    CHECK_ERR(ct_nn_pixel_shuffle(0), CT_ERR_ARG, "PixelShuffle: upscale_factor must be positive, got 0");
    CHECK_ERR(ct_nn_upsample(IO(.antialias = 1)), CT_ERR_UNSUPPORTED, "Upsample: antialias is not an argument of nn.Upsample");
    ct_module *u = ct_nn_upsample(IO(.size = {3}, .mode = "trilinear"));
    CHECK_ERR(ct_forward(u, x4), CT_ERR_SHAPE, "Got 4D input, but trilinear mode needs 5D input");
    ct_module_free(u);
#undef IO
}

static void repr_is(ct_module *m, const char *expected) {
    char buf[512];
    CHECK(m != NULL);
    if (!m) return;
    ct_module_repr(m, buf, sizeof buf);
    CHECK_STR(buf, expected);
    ct_module_free(m);
}
TEST(test_modules) {
    repr_is(ct_nn_upsample(&(ct_interpolate_options){.scale_factor = {2}}), "Upsample(scale_factor=2.0, mode=nearest)");
    repr_is(ct_nn_upsample(&(ct_interpolate_options){.size = {3, 4}, .mode = "bilinear"}), "Upsample(size=(3, 4), mode=bilinear)");
    repr_is(ct_nn_upsample(&(ct_interpolate_options){.scale_factor = {2, 3}, .mode = "bicubic", .align_corners = 1}),
            "Upsample(scale_factor=(2.0, 3.0), mode=bicubic)");
    repr_is(ct_nn_upsample(&(ct_interpolate_options){.size = {5}}), "Upsample(size=5, mode=nearest)");
    repr_is(ct_nn_upsample(&(ct_interpolate_options){.scale_factor = {2.5}, .mode = "nearest-exact", .recompute_scale_factor = 1}),
            "Upsample(scale_factor=2.5, mode=nearest-exact)");
    repr_is(ct_nn_upsample(&(ct_interpolate_options){.size = {3, 4, 5}, .mode = "trilinear"}), "Upsample(size=(3, 4, 5), mode=trilinear)");
    repr_is(ct_nn_upsample(NULL), "Upsample(size=None, mode=nearest)");
    repr_is(ct_nn_upsampling_nearest2d(&(ct_interpolate_options){.scale_factor = {2}}), "UpsamplingNearest2d(scale_factor=2.0, mode=nearest)");
    repr_is(ct_nn_upsampling_bilinear2d(&(ct_interpolate_options){.size = {4, 4}}), "UpsamplingBilinear2d(size=(4, 4), mode=bilinear)");
    repr_is(ct_nn_upsampling_bilinear2d(&(ct_interpolate_options){.scale_factor = {2}}), "UpsamplingBilinear2d(scale_factor=2.0, mode=bilinear)");
    repr_is(ct_nn_pixel_shuffle(3), "PixelShuffle(upscale_factor=3)");
    repr_is(ct_nn_pixel_unshuffle(2), "PixelUnshuffle(downscale_factor=2)");
    /* forward equals the functional form; UpsamplingBilinear2d is align_corners=True */
    ct_tensor *x = RND(CT_FLOAT32, 110, 2, 4, 3, 5);
    ct_module *ub = ct_nn_upsampling_bilinear2d(&(ct_interpolate_options){.scale_factor = {2}});
    CHECK(ct_equal(ct_forward(ub, x), ct_interpolate(x, &(ct_interpolate_options){.scale_factor = {2}, .mode = "bilinear", .align_corners = 1})) == 1);
    ct_module_free(ub);
    /* a U-Net-like decoder step, end to end with a backward pass */
    ct_module *net = ct_nn_sequential(ct_nn_conv2d(4, 8, 3, 1, 1), ct_nn_relu(), ct_nn_upsample(&(ct_interpolate_options){.scale_factor = {2}, .mode = "bilinear"}),
                                      ct_nn_conv2d(8, 16, 1, 1, 0), ct_nn_pixel_shuffle(2), ct_nn_pixel_unshuffle(2));
    CHECK(net != NULL);
    char buf[1024];
    ct_module_repr(net, buf, sizeof buf);
    CHECK_STR(buf, "Sequential(\n"
                   "  (0): Conv2d(4, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))\n"
                   "  (1): ReLU()\n"
                   "  (2): Upsample(scale_factor=2.0, mode=bilinear)\n"
                   "  (3): Conv2d(8, 16, kernel_size=(1, 1), stride=(1, 1))\n"
                   "  (4): PixelShuffle(upscale_factor=2)\n"
                   "  (5): PixelUnshuffle(downscale_factor=2)\n"
                   ")");
    ct_tensor *y = ct_forward(net, ct_to_channels_last(x));
    CHECK(y && ct_size(y, 1) == 16 && ct_size(y, 2) == 6 && ct_size(y, 3) == 10);
    ct_backward(ct_sum(y));
    CHECK(ct_grad(ct_module_get(net, "0.weight")) != NULL);
    ct_module_free(net);
}

TEST(test_memory) {
    int64_t t0 = ct_live_tensors(), b0 = ct_live_bytes();
    for (int it = 0; it < 3; it++) CT_SCOPE {
        ct_tensor *x = leaf(RND(CT_FLOAT32, 120, 2, 4, 5, 6)), *gr = leaf(UNIF(CT_FLOAT32, 121, -1, 1, 2, 3, 4, 2));
        ct_tensor *y = ct_interpolate(ct_to_channels_last(x), &(ct_interpolate_options){.scale_factor = {2}, .mode = "bilinear"});
        y = ct_pixel_unshuffle(ct_interpolate(y, &(ct_interpolate_options){.size = {12, 10}, .mode = "bicubic"}), 2);
        y = ct_grid_sample(y, gr, &(ct_grid_sample_options){.padding_mode = "reflection"});
        ct_backward(ct_sum(ct_mul(y, y)));
        CHECK(ct_grad(x) && ct_grad(gr));
        CHECK(ct_interpolate(x, &(ct_interpolate_options){.size = {0, 3}}) == NULL);
        CHECK(ct_grid_sample(x, ct_zeros(CT_FLOAT64, 2, 3, 4, 2), NULL) == NULL);
    }
    ct_clear_error();
    CHECK_EQ_INT(ct_live_tensors(), t0);
    CHECK_EQ_INT(ct_live_bytes(), b0);
}

int main(void) {
    ct_t_init();
    RUN(test_index_sweep);
    RUN(test_values);
    RUN(test_layouts);
    RUN(test_batch_equals_samples);
    RUN(test_gradcheck_interpolate);
    RUN(test_gradcheck_shuffle_grid);
    RUN(test_grad_fn_names);
    RUN(test_errors);
    RUN(test_modules);
    RUN(test_memory);
    return ct_t_summary();
}
