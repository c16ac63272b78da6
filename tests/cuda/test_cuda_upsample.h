/* test_cuda_upsample.h - part of tests/cuda/test_cuda.c (included there): the
   resampling section of ctensor_cuda.h, upsampling (every mode and rank of
   F.interpolate but "area") and grid sampling (2-D and 3-D, every mode and
   padding mode), against ctensor's CPU kernels: values for float32 and float64
   (contiguous, channels-last and strided inputs), float16 and bfloat16 (device
   only: against the CPU's float32 result on the same rounded inputs), the
   gradients of device leaves against CPU leaves, and the CPU's errors. */

/* x in a memory layout: 0 as it is, 1 channels-last (NHWC / NDHWC), 2 every other
   element of a twice as long last dim (strided, not dense) */
static ct_tensor *rs_layout(ct_tensor *x, int layout, int64_t last) {
    int nd = ct_ndim(x);
    if (layout == 1) {
        int64_t to[5] = {0, 2, 3, 4, 1}, back[5] = {0, 4, 1, 2, 3};
        if (nd == 4) { to[3] = 1; back[1] = 3; back[2] = 1; back[3] = 2; }
        return ct_permute_n(ct_contiguous(ct_permute_n(x, nd, to)), nd, back);
    }
    if (layout == 2) return ct_slice(x, nd - 1, 0, 2 * last, 2);
    return x;
}
/* the same data on the CPU (*xc) and the GPU (*xg), in a layout */
static void rs_pair(ct_dtype dt, int layout, int nd, const int64_t *shape, ct_tensor **xc, ct_tensor **xg) {
    int64_t sh[5];
    for (int d = 0; d < nd; d++) sh[d] = shape[d];
    if (layout == 2) sh[nd - 1] *= 2;
    ct_tensor *b = data(dt, 0, nd, sh);
    *xc = rs_layout(b, layout, shape[nd - 1]);
    *xg = rs_layout(dev(b), layout, shape[nd - 1]);
}
/* an op whose name holds `part` (and "_backward" when bw) ran with a device output, and none on the CPU */
static int rs_ran(const char *part, int bw) {
    for (int k = 0; k < nn_nseen; k++) {
        const char *nm = ct_op_schema_name(nn_seen[k]);
        if (nm && strstr(nm, part) && (strstr(nm, "_backward") != NULL) == bw) return nn_cpu_ops == 0;
    }
    return 0;
}
static double grad_rtol(ct_dtype dt) { return dt == CT_FLOAT64 ? 1e-10 : 1e-4; }
static double grad_atol(ct_dtype dt) { return dt == CT_FLOAT64 ? 1e-12 : 1e-5; }

/* one F.interpolate case: values in every dtype and layout, the input's gradient */
static void ups_check(const char *what, int nd, const int64_t *shape, const ct_interpolate_options *o) {
    char label[160];
    for (int i = 0; i < 4; i++) {
        ct_dtype dt = FLOATS[i];
        for (int layout = 0; layout < 3; layout++) {
            if ((layout == 1 && nd == 3) || (i >= 2 && layout > 0)) continue;
            snprintf(label, sizeof label, "%s %s layout %d", what, ct_dtype_name(dt), layout);
            ct_tensor *xc, *xg;
            rs_pair(dt, layout, nd, shape, &xc, &xg);
            ct_tensor *yg = ct_interpolate(xg, o);
            if (i < 2) {
                ct_tensor *yc = ct_interpolate(xc, o);
                CHECK_SAME_AT(label, yg, yc, rtol_of(dt), atol_of(dt));
                if (layout == 1) CT_T_REPORT(yg && yc && ct_is_channels_last(yg) == ct_is_channels_last(yc), "%s: layout", label);
            } else {
                CHECK_SAME_AT(label, yg, ct_to(ct_interpolate(ct_to(xc, CT_FLOAT32), o), dt), rtol_of(dt), atol_of(dt));
            }
            if (i >= 2 || layout == 2) continue;
            /* the gradient: device leaf against CPU leaf (the backward op on each) */
            ct_tensor *xl[2], *R = NULL;
            nn_watch_reset();
            for (int s = 0; s < 2; s++) {
                xl[s] = leaf(xc, s);
                ct_tensor *R2 = s ? dev(R) : NULL;
                int h = s ? ct_add_dispatch_listener(nn_listener, NULL, CT_LISTEN_NESTED) : 0;
                ct_tensor *y = ct_interpolate(xl[s], o);
                if (!R && y) R = data(dt, 0, ct_ndim(y), y->shape);
                CT_T_REPORT(y && R && ct_backward(ct_sum(ct_mul(y, s ? R2 : R))) == CT_OK, "%s: backward (%s)", label, ct_last_error());
                if (s) ct_remove_dispatch_listener(h);
            }
            CT_T_REPORT(rs_ran("upsample", 0) && rs_ran("upsample", 1), "%s: the upsampling ops ran on the GPU", label);
            snprintf(label, sizeof label, "%s %s layout %d: gradient", what, ct_dtype_name(dt), layout);
            CHECK_SAME_AT(label, ct_grad(xl[1]), ct_grad(xl[0]), grad_rtol(dt), grad_atol(dt));
        }
    }
}

TEST(test_upsample) {
    ct_interpolate_options o;
#define UPS(what, nd, shp, setup)          \
    do {                                   \
        memset(&o, 0, sizeof o);           \
        setup;                             \
        ups_check(what, nd, shp, &o);      \
    } while (0)
    const int64_t s1[3] = {2, 3, 7}, s2[4] = {2, 3, 5, 6}, s3[5] = {1, 2, 3, 4, 5};
    UPS("nearest1d size 12", 3, s1, (o.size[0] = 12));
    UPS("nearest1d size 4", 3, s1, (o.size[0] = 4));
    UPS("nearest-exact1d scale 1.6", 3, s1, (o.mode = "nearest-exact", o.scale_factor[0] = 1.6));
    UPS("linear1d scale 2.3", 3, s1, (o.mode = "linear", o.scale_factor[0] = 2.3));
    UPS("linear1d align size 10", 3, s1, (o.mode = "linear", o.align_corners = 1, o.size[0] = 10));
    UPS("linear1d size 5", 3, s1, (o.mode = "linear", o.size[0] = 5));
    UPS("nearest2d size 9x4", 4, s2, (o.size[0] = 9, o.size[1] = 4));
    UPS("nearest-exact2d scale 1.5x2.25", 4, s2, (o.mode = "nearest-exact", o.scale_factor[0] = 1.5, o.scale_factor[1] = 2.25));
    UPS("bilinear2d size 8x11", 4, s2, (o.mode = "bilinear", o.size[0] = 8, o.size[1] = 11));
    UPS("bilinear2d align scale 1.7x0.6", 4, s2, (o.mode = "bilinear", o.align_corners = 1, o.scale_factor[0] = 1.7, o.scale_factor[1] = 0.6));
    UPS("bilinear2d same size", 4, s2, (o.mode = "bilinear", o.size[0] = 5, o.size[1] = 6));
    UPS("bicubic2d size 9x7", 4, s2, (o.mode = "bicubic", o.size[0] = 9, o.size[1] = 7));
    UPS("bicubic2d align scale 2x1.5", 4, s2, (o.mode = "bicubic", o.align_corners = 1, o.scale_factor[0] = 2, o.scale_factor[1] = 1.5));
    UPS("bicubic2d recompute scale 0.7", 4, s2, (o.mode = "bicubic", o.scale_factor[0] = 0.7, o.recompute_scale_factor = 1));
    UPS("nearest3d size 5x6x4", 5, s3, (o.size[0] = 5, o.size[1] = 6, o.size[2] = 4));
    UPS("nearest-exact3d scale 1.5", 5, s3, (o.mode = "nearest-exact", o.scale_factor[0] = 1.5));
    UPS("trilinear3d size 4x7x6", 5, s3, (o.mode = "trilinear", o.size[0] = 4, o.size[1] = 7, o.size[2] = 6));
    UPS("trilinear3d align scale 2x1.25x0.8", 5, s3,
        (o.mode = "trilinear", o.align_corners = 1, o.scale_factor[0] = 2, o.scale_factor[1] = 1.25, o.scale_factor[2] = 0.8));
#undef UPS
    /* the module (nn.Upsample) on a device input; the backward op's own backward (the forward op) */
    memset(&o, 0, sizeof o);
    o.scale_factor[0] = 2;
    o.mode = "bilinear";
    ct_tensor *x = data(CT_FLOAT32, 0, CT_DIMS(1, 2, 3, 3));
    ct_module *m = ct_nn_upsample(&o);
    CHECK(m != NULL);
    if (m) {
        CHECK_SAME(ct_forward(m, dev(x)), ct_forward(m, x), 2e-5, 1e-6);
        ct_module_free(m);
    }
    ct_tensor *xl[2];
    for (int s = 0; s < 2; s++) {
        xl[s] = leaf(x, s);
        ct_tensor *y = ct_interpolate(xl[s], &o);
        ct_tensor *l = ct_sum(ct_mul(y, y)), *g = NULL;
        ct_grad_options go;
        memset(&go, 0, sizeof go);
        go.create_graph = 1;
        CHECK(l && ct_autograd_grad(1, &l, NULL, 1, &xl[s], &g, &go) == CT_OK);
        CHECK(g && ct_backward(ct_sum(ct_mul(g, g))) == CT_OK);
    }
    CHECK_SAME(ct_grad(xl[1]), ct_grad(xl[0]), 1e-4, 1e-5);
    /* empty: no samples; the backward op of an empty gradient is zeros */
    ct_tensor *x0 = ct_zeros(CT_FLOAT32, 0, 2, 3, 3);
    CHECK_SAME(ct_interpolate(dev(x0), &o), ct_interpolate(x0, &o), 0.0, 0.0);
    /* bad inputs: the CPU's errors */
    ct_tensor *xi = ct_ones(CT_INT64, 1, 2, 4);
    memset(&o, 0, sizeof o);
    o.size[0] = 8;
    CHECK_SAME_ERR(ct_interpolate(dev(xi), &o), ct_interpolate(xi, &o));
    o.size[0] = 0;
    o.scale_factor[0] = 0.1;
    ct_tensor *xf = ct_ones(CT_FLOAT32, 1, 2, 4);
    CHECK_SAME_ERR(ct_interpolate(dev(xf), &o), ct_interpolate(xf, &o));
    CHECK(ct_cuda_synchronize() == CT_OK);
}

/* one grid_sample case: 2-D or 3-D input, every dtype, contiguous and channels-last input;
   the gradients of input and grid */
static void gs_check(int nd, const int64_t *xs, const int64_t *gsh, const ct_grid_sample_options *o) {
    char label[200];
    for (int i = 0; i < 4; i++) {
        ct_dtype dt = FLOATS[i];
        /* grid points in (-1.3, 1.3): inside, on and outside the borders */
        ct_tensor *gc = ct_to(ct_mul_scalar(ct_sub_scalar(ct_rand_n(CT_FLOAT64, nd, gsh), 0.5), 2.6), dt), *gg = dev(gc);
        for (int layout = 0; layout < 2; layout++) {
            if (i >= 2 && layout) continue;
            snprintf(label, sizeof label, "grid_sample %dD %s %s align %d %s layout %d", nd - 2, o->mode, o->padding_mode, o->align_corners,
                     ct_dtype_name(dt), layout);
            ct_tensor *xc, *xg;
            rs_pair(dt, layout, nd, xs, &xc, &xg);
            ct_tensor *yg = ct_grid_sample(xg, gg, o);
            if (i >= 2) {
                CHECK_SAME_AT(label, yg, ct_to(ct_grid_sample(ct_to(xc, CT_FLOAT32), ct_to(gc, CT_FLOAT32), o), dt), rtol_of(dt), atol_of(dt));
                continue;
            }
            CHECK_SAME_AT(label, yg, ct_grid_sample(xc, gc, o), rtol_of(dt), atol_of(dt));
            ct_tensor *xl[2], *gl[2], *R = NULL;
            nn_watch_reset();
            for (int s = 0; s < 2; s++) {
                xl[s] = leaf(xc, s);
                gl[s] = leaf(gc, s);
                ct_tensor *R2 = s ? dev(R) : NULL;
                int h = s ? ct_add_dispatch_listener(nn_listener, NULL, CT_LISTEN_NESTED) : 0;
                ct_tensor *y = ct_grid_sample(xl[s], gl[s], o);
                if (!R && y) R = data(dt, 0, ct_ndim(y), y->shape);
                CT_T_REPORT(y && R && ct_backward(ct_sum(ct_mul(y, s ? R2 : R))) == CT_OK, "%s: backward (%s)", label, ct_last_error());
                if (s) ct_remove_dispatch_listener(h);
            }
            CT_T_REPORT(rs_ran("grid_sampler", 0) && rs_ran("grid_sampler", 1), "%s: the grid sampling ops ran on the GPU", label);
            char l2[240];
            snprintf(l2, sizeof l2, "%s: input gradient", label);
            CHECK_SAME_AT(l2, ct_grad(xl[1]), ct_grad(xl[0]), grad_rtol(dt), grad_atol(dt));
            snprintf(l2, sizeof l2, "%s: grid gradient", label);
            CHECK_SAME_AT(l2, ct_grad(gl[1]), ct_grad(gl[0]), grad_rtol(dt), grad_atol(dt));
        }
    }
}

TEST(test_grid_sample) {
    static const char *const modes[3] = {"bilinear", "nearest", "bicubic"}, *const pads[3] = {"zeros", "border", "reflection"};
    const int64_t x2[4] = {2, 3, 5, 6}, g2[4] = {2, 4, 7, 2}, x3[5] = {2, 2, 3, 4, 5}, g3[5] = {2, 3, 2, 4, 3};
    ct_grid_sample_options o;
    for (int mi = 0; mi < 3; mi++)
        for (int pi = 0; pi < 3; pi++)
            for (int al = 0; al < 2; al++) {
                o.mode = modes[mi];
                o.padding_mode = pads[pi];
                o.align_corners = al;
                gs_check(4, x2, g2, &o);
                if (mi < 2) gs_check(5, x3, g3, &o);
            }
    /* only the grid's gradient wanted (grad_input not computed), and only the input's */
    o.mode = "bilinear"; o.padding_mode = "zeros"; o.align_corners = 0;
    ct_tensor *x = data(CT_FLOAT32, 0, CT_DIMS(1, 2, 4, 4)), *g = ct_sub_scalar(ct_rand(CT_FLOAT32, 1, 3, 3, 2), 0.5);
    ct_tensor *gl[2], *xl[2];
    for (int s = 0; s < 2; s++) {
        gl[s] = leaf(g, s);
        xl[s] = leaf(x, s);
        CHECK(ct_backward(ct_sum(ct_grid_sample(s ? dev(x) : x, gl[s], &o))) == CT_OK);
        CHECK(ct_backward(ct_sum(ct_grid_sample(xl[s], s ? dev(g) : g, &o))) == CT_OK);
    }
    CHECK_SAME(ct_grad(gl[1]), ct_grad(gl[0]), 1e-4, 1e-5);
    CHECK_SAME(ct_grad(xl[1]), ct_grad(xl[0]), 1e-4, 1e-5);
    /* empty: no grid points */
    ct_tensor *ge = ct_zeros(CT_FLOAT32, 1, 0, 3, 2);
    CHECK_SAME(ct_grid_sample(dev(x), dev(ge), &o), ct_grid_sample(x, ge, &o), 0.0, 0.0);
    /* bad inputs: the CPU's errors */
    ct_tensor *bad = ct_zeros(CT_FLOAT32, 2, 3, 3, 2);
    CHECK_SAME_ERR(ct_grid_sample(dev(x), dev(bad), &o), ct_grid_sample(x, bad, &o));
    ct_tensor *x5 = ct_zeros(CT_FLOAT32, 1, 1, 2, 2, 2), *g5 = ct_zeros(CT_FLOAT32, 1, 1, 1, 1, 3);
    o.mode = "bicubic";
    CHECK_SAME_ERR(ct_grid_sample(dev(x5), dev(g5), &o), ct_grid_sample(x5, g5, &o));
    o.mode = "bilinear";
    CHECK_SAME_ERR(ct_grid_sample(dev(x), ct_to(dev(g), CT_FLOAT64), &o), ct_grid_sample(x, ct_to(g, CT_FLOAT64), &o));
    CHECK(ct_cuda_synchronize() == CT_OK);
}
