/* tests/cuda/test_cuda_nn2.h - part of tests/cuda/test_cuda.c (included by it):
   layer_norm, batch_norm and group_norm in float16 and bfloat16 on the device
   (the CPU takes float32 and float64 only): against the CPU's float32 result on
   the same (rounded) values, rounded to the dtype; gradients too. embedding_bag
   on the device. */

TEST(test_norm_half) {
    const ct_dtype dts[2] = {CT_FLOAT16, CT_BFLOAT16};
    for (int di = 0; di < 2; di++) {
        ct_dtype dt = dts[di];
        double rt = dt == CT_FLOAT16 ? 1e-2 : 4e-2, at = dt == CT_FLOAT16 ? 1e-2 : 4e-2;
        for (int cs = 0; cs < 2; cs++) {   /* NCHW, channels-last */
            char label[96];
            snprintf(label, sizeof label, "batch_norm %s case %d", ct_dtype_name(dt), cs);
            ct_tensor *x = ct_to(data(CT_FLOAT32, 0, CT_DIMS(6, 4, 5, 3)), dt);
            if (cs) x = ct_to_channels_last(x);
            ct_tensor *w0 = ct_to(data(CT_FLOAT32, 1, CT_DIMS(4)), dt), *b0 = ct_to(data(CT_FLOAT32, 0, CT_DIMS(4)), dt);
            ct_tensor *R = ct_to(data(CT_FLOAT32, 0, CT_DIMS(6, 4, 5, 3)), dt);
            ct_tensor *rm[2], *rv[2], *y[2], *xl[2], *wl[2], *ye[2];
            for (int s = 0; s < 2; s++) {   /* s = 0: the CPU in float32; 1: the device in dt */
                ct_dtype t = s ? dt : CT_FLOAT32;
                ct_tensor *xs = s ? dev(x) : ct_to(x, CT_FLOAT32);
                rm[s] = s ? dev(ct_zeros(dt, 4)) : ct_zeros(CT_FLOAT32, 4);
                rv[s] = s ? dev(ct_ones(dt, 4)) : ct_ones(CT_FLOAT32, 4);
                xl[s] = ct_requires_grad(ct_detach(xs));
                wl[s] = ct_requires_grad(ct_detach(s ? dev(w0) : ct_to(w0, t)));
                y[s] = ct_batch_norm(xl[s], rm[s], rv[s], wl[s], s ? dev(b0) : ct_to(b0, t), 1, 0.1, 1e-5);
                CHECK(y[s] && ct_backward(ct_sum(ct_mul(y[s], s ? dev(R) : ct_to(R, t)))) == CT_OK);
                ye[s] = ct_batch_norm(xs, rm[s], rv[s], s ? dev(w0) : ct_to(w0, t), NULL, 0, 0.1, 1e-5);   /* eval */
            }
            if (cs) CHECK(y[1] && ct_is_channels_last(y[1]));
            CHECK_SAME_AT(label, y[1], ct_to(y[0], dt), rt, at);
            CHECK_SAME_AT(label, rm[1], ct_to(rm[0], dt), rt, at);
            CHECK_SAME_AT(label, rv[1], ct_to(rv[0], dt), rt, at);
            CHECK_SAME_AT(label, ye[1], ct_to(ye[0], dt), rt, at);
            CHECK_SAME_AT(label, ct_grad(xl[1]), ct_to(ct_grad(xl[0]), dt), rt * 4, at * 4);
            CHECK_SAME_AT(label, ct_grad(wl[1]), ct_to(ct_grad(wl[0]), dt), rt * 4, at * 8);
        }
        /* layer_norm over the last two dims, and group_norm (layer_norm and core ops) */
        ct_tensor *x = ct_to(data(CT_FLOAT32, 0, CT_DIMS(5, 6, 40)), dt), *R = ct_to(data(CT_FLOAT32, 0, CT_DIMS(5, 6, 40)), dt);
        ct_tensor *w0 = ct_to(data(CT_FLOAT32, 1, CT_DIMS(6, 40)), dt), *b0 = ct_to(data(CT_FLOAT32, 0, CT_DIMS(6, 40)), dt);
        ct_tensor *gw = ct_to(data(CT_FLOAT32, 1, CT_DIMS(6)), dt), *gb = ct_to(data(CT_FLOAT32, 0, CT_DIMS(6)), dt);
        const int64_t ns[2] = {6, 40};
        ct_tensor *y[2], *g[2], *xl[2], *wl[2];
        for (int s = 0; s < 2; s++) {
            ct_dtype t = s ? dt : CT_FLOAT32;
            xl[s] = ct_requires_grad(ct_detach(s ? dev(x) : ct_to(x, t)));
            wl[s] = ct_requires_grad(ct_detach(s ? dev(w0) : ct_to(w0, t)));
            y[s] = ct_layer_norm(xl[s], 2, ns, wl[s], s ? dev(b0) : ct_to(b0, t), 1e-5);
            g[s] = ct_group_norm(xl[s], 3, s ? dev(gw) : ct_to(gw, t), s ? dev(gb) : ct_to(gb, t), 1e-5);
            CHECK(y[s] && g[s] && ct_backward(ct_add(ct_sum(ct_mul(y[s], s ? dev(R) : ct_to(R, t))), ct_sum(g[s]))) == CT_OK);
        }
        CHECK_SAME_AT(ct_dtype_name(dt), y[1], ct_to(y[0], dt), rt, at);
        CHECK_SAME_AT(ct_dtype_name(dt), g[1], ct_to(g[0], dt), rt, at);
        CHECK_SAME_AT(ct_dtype_name(dt), ct_grad(xl[1]), ct_to(ct_grad(xl[0]), dt), rt * 4, at * 4);
        CHECK_SAME_AT(ct_dtype_name(dt), ct_grad(wl[1]), ct_to(ct_grad(wl[0]), dt), rt * 4, at * 4);
        /* the CPU still refuses them; a mixed call is an error naming both dtypes */
        CHECK_ERR(ct_layer_norm(x, 2, ns, w0, b0, 1e-5), CT_ERR_DTYPE, "not implemented for");
        CHECK_ERR(ct_layer_norm(dev(x), 2, ns, dev(ct_to(w0, CT_FLOAT32)), dev(b0), 1e-5), CT_ERR_DTYPE, "expected scalar type");
    }
}

TEST(test_embedding_bag) {
    const int64_t iv[7] = {1, 2, 4, 5, 4, 3, 9}, ov[4] = {0, 3, 3, 5};   /* bag 1 is empty */
    ct_tensor *in = ct_tensor_i64(iv, 7), *off = ct_tensor_i64(ov, 4), *psw = data(CT_FLOAT64, 1, CT_DIMS(7));
    ct_tensor *w0 = data(CT_FLOAT64, 0, CT_DIMS(10, 3)), *in2 = ct_reshape(in, 7, 1);
    for (int m = 0; m < 3; m++) {
        const char *mode = m == 0 ? "sum" : m == 1 ? "mean" : "max";
        for (int last = 0; last < 2; last++) {
            ct_tensor *wc = leaf(w0, 0), *wg = leaf(w0, 1);
            ct_tensor *yc = ct_embedding_bag(in, wc, off, mode, m == 0 ? psw : NULL, last);
            ct_tensor *yg = ct_embedding_bag(dev(in), wg, dev(off), mode, m == 0 ? dev(psw) : NULL, last);
            CHECK_SAME_AT(mode, yg, yc, 1e-12, 1e-12);
            CHECK(yc && yg && ct_backward(ct_sum(ct_mul(yc, yc))) == CT_OK && ct_backward(ct_sum(ct_mul(yg, yg))) == CT_OK);
            CHECK_SAME_AT(mode, ct_grad(wg), ct_grad(wc), 1e-12, 1e-12);
        }
        CHECK_SAME_AT(mode, ct_embedding_bag(dev(in2), dev(w0), NULL, mode, NULL, 0), ct_embedding_bag(in2, w0, NULL, mode, NULL, 0), 1e-12, 1e-12);
    }
    /* errors: the CPU's (offsets are read on the host) */
    const int64_t bad[2] = {1, 3};
    ct_tensor *ob = ct_tensor_i64(bad, 2);
    CHECK_SAME_ERR(ct_embedding_bag(dev(in), dev(w0), dev(ob), "sum", NULL, 0), ct_embedding_bag(in, w0, ob, "sum", NULL, 0));
    CHECK_SAME_ERR(ct_embedding_bag(dev(in), dev(w0), dev(off), "max", dev(psw), 0), ct_embedding_bag(in, w0, off, "max", psw, 0));
}

/* ct::conv2d_relu (the JIT's conv + relu fusion) on the device: the device
   convolution, then relu over the output; against the CPU op and against relu of
   the device conv2d, float32 and float64, NCHW and channels-last; gradients through
   its backward rule (device ops); a bad weight gives the CPU's message */
static ct_tensor *conv_relu_call(ct_tensor *x, ct_tensor *w, ct_tensor *b) {
    int op = ct_op_find("ct::conv2d_relu");
    ct_attrs a;
    if (op < 0 || ct_attrs_parse(op, "stride=[2, 1], padding=[1, 1], dilation=[1, 1], groups=1", &a) != CT_OK) return NULL;
    ct_tensor *in[3] = {x, w, b}, *out = NULL;
    return ct_dispatch(op, b ? 3 : 2, in, &a, NULL, 0, &out, 1) == 1 ? out : NULL;
}
TEST(test_conv2d_relu) {
    const ct_dtype dts[2] = {CT_FLOAT32, CT_FLOAT64};
    for (int di = 0; di < 2; di++) {
        ct_dtype dt = dts[di];
        double tol = dt == CT_FLOAT32 ? 1e-5 : 1e-12;
        for (int cl = 0; cl < 2; cl++) {
            char label[64];
            snprintf(label, sizeof label, "conv2d_relu %s cl=%d", ct_dtype_name(dt), cl);
            ct_tensor *x = ct_to(data(CT_FLOAT32, 0, CT_DIMS(2, 3, 7, 6)), dt), *w = ct_to(data(CT_FLOAT32, 1, CT_DIMS(4, 3, 3, 3)), dt);
            ct_tensor *b = ct_to(data(CT_FLOAT32, 0, CT_DIMS(4)), dt), *R = ct_to(data(CT_FLOAT32, 0, CT_DIMS(2, 4, 4, 6)), dt);
            if (cl) x = ct_to_channels_last(x);
            ct_tensor *xl[2], *wl[2], *y[2];
            for (int s = 0; s < 2; s++) {
                xl[s] = ct_requires_grad(ct_detach(s ? dev(x) : x));
                wl[s] = ct_requires_grad(ct_detach(s ? dev(w) : w));
                y[s] = conv_relu_call(xl[s], wl[s], s ? dev(b) : b);
                CHECK(y[s] && ct_backward(ct_sum(ct_mul(y[s], s ? dev(R) : R))) == CT_OK);
            }
            CHECK(y[1] && y[1]->device.type == CT_CUDA);
            CHECK_SAME_AT(label, y[1], y[0], tol, tol);
            ct_conv_options o;
            memset(&o, 0, sizeof o);
            o.stride_hw[0] = 2;
            o.stride_hw[1] = 1;
            o.padding = 1;
            CHECK_SAME_AT(label, y[1], ct_to_device(ct_relu(ct_conv2d(dev(x), dev(w), dev(b), &o)), ct_cpu()), 0.0, 0.0);
            CHECK(ct_item(ct_amin(ct_to_device(y[1], ct_cpu()), 0, NULL, 0)) == 0.0);
            CHECK_SAME_AT(label, ct_grad(xl[1]), ct_grad(xl[0]), tol * 10, tol * 10);
            CHECK_SAME_AT(label, ct_grad(wl[1]), ct_grad(wl[0]), tol * 10, tol * 10);
        }
    }
    /* a 3-D weight: the CPU's message */
    ct_tensor *x = ct_randn(CT_FLOAT32, 1, 3, 5, 5), *w = ct_randn(CT_FLOAT32, 4, 3, 3);
    CHECK(conv_relu_call(x, w, NULL) == NULL);
    char cpu_msg[2100];
    snprintf(cpu_msg, sizeof cpu_msg, "%s", ct_last_error());
    CHECK(conv_relu_call(dev(x), dev(w), NULL) == NULL);
    CHECK(strcmp(ct_last_error(), cpu_msg) == 0);
}
