/* quantized ops: relu, pooling, clone/contiguous, cat, quantized::add / mul / cat,
   quantized conv2d. Fixtures: tests/reference/quant_fixtures_qops.py
   (PyTorch 1.13, engine onednn); codes must agree within one quantum. */

/* a quantized tensor from fixture codes */
static ct_tensor *qo_fix(const char *name, double scale, int64_t zp) {
    return ct_make_per_tensor_quantized(qfix(name), scale, zp);
}
/* max |codes(q) - fixture| (-1 when something is missing or the shapes differ) */
static double qo_diff(const ct_tensor *q, const char *name) {
    ct_tensor *e = qfix(name);
    if (!q || !e || !ct_same_shape(q, e)) return -1;
    ct_tensor *d = ct_sub(ct_to(ct_int_repr(q), CT_FLOAT64), ct_to(e, CT_FLOAT64));
    return d ? ct_item(ct_max(ct_abs(d))) : -1;
}
#define QO_CHECK_CODES(q, name, tol)                                                     \
    do {                                                                                 \
        double qo_d = qo_diff((q), (name));                                              \
        CT_T_REPORT(qo_d >= 0 && qo_d <= (tol), "%s vs %s: max code difference %g (%s)", \
                    #q, name, qo_d, qo_d < 0 ? ct_last_error() : "");                   \
    } while (0)
#define QO_CHECK_PARAMS(q, s, z)                  \
    do {                                          \
        CHECK_CLOSE(ct_q_scale(q), (s), 1e-12);   \
        CHECK_EQ_INT(ct_q_zero_point(q), (z));    \
    } while (0)

TEST(test_qops_relu) {
    ct_tensor *x = qo_fix("qops_x", 0.05, 60);
    ct_tensor *y = ct_relu(x);
    QO_CHECK_CODES(y, "qops_relu", 0);
    QO_CHECK_PARAMS(y, 0.05, 60);
    /* in place */
    ct_tensor *x2 = ct_clone(x);
    CHECK(ct_relu_(x2) == x2);
    QO_CHECK_CODES(x2, "qops_relu", 0);
    /* a non-contiguous view: the layout is kept */
    ct_tensor *xt = ct_transpose(x, 2, 3);
    ct_tensor *yt = ct_relu(xt);
    QO_CHECK_CODES(ct_transpose(yt, 2, 3), "qops_relu", 0);
    /* per-channel input: refused */
    float ws[6] = {-1, 2, -3, 4, -5, 6};
    double sc[2] = {0.1, 0.2};
    int64_t zp[2] = {0, 0};
    const int64_t s23[2] = {2, 3}, s2[1] = {2};
    ct_tensor *pc = ct_quantize_per_channel(ct_from_data_n(ws, CT_FLOAT32, 2, s23), ct_from_data_n(sc, CT_FLOAT64, 1, s2),
                                            ct_from_data_n(zp, CT_INT64, 1, s2), 0, CT_QINT8);
    CHECK_ERR(ct_relu(pc), CT_ERR_ARG, "only per-tensor quantized inputs");
}

TEST(test_qops_clone_contiguous_views) {
    ct_tensor *x = qo_fix("qops_x", 0.05, 60);
    ct_tensor *c = ct_clone(x);
    QO_CHECK_CODES(c, "qops_x", 0);
    QO_CHECK_PARAMS(c, 0.05, 60);
    CHECK(ct_data_ptr(c) != ct_data_ptr(x));
    /* channels-last copy and back */
    ct_tensor *cl = ct_to_channels_last(x);
    CHECK(ct_is_channels_last(cl) && !ct_is_contiguous(cl));
    QO_CHECK_CODES(cl, "qops_x", 0);
    ct_tensor *back = ct_contiguous(cl);
    CHECK(ct_is_contiguous(back));
    QO_CHECK_CODES(back, "qops_x", 0);
    QO_CHECK_PARAMS(back, 0.05, 60);
    /* a permuted view made contiguous, then reshape (which must copy) and flatten */
    const int64_t nhwc[4] = {0, 2, 3, 1}, rows3[2] = {-1, 3};
    ct_tensor *p = ct_permute_n(x, 4, nhwc);
    ct_tensor *pc = ct_contiguous(p);
    CHECK(ct_is_contiguous(pc));
    ct_tensor *r = ct_reshape_n(p, 2, rows3);
    CHECK(r && ct_is_contiguous(r));
    QO_CHECK_PARAMS(r, 0.05, 60);
    ct_tensor *e = ct_contiguous(ct_permute_n(ct_dequantize(x), 4, nhwc));
    CHECK_CLOSE(ct_item(ct_max(ct_abs(ct_sub(ct_dequantize(r), ct_reshape_n(e, 2, rows3))))), 0, 0);
    ct_tensor *f = ct_flatten(x, 1, -1);
    CHECK_EQ_INT(ct_ndim(f), 2);
    QO_CHECK_PARAMS(f, 0.05, 60);
    CHECK_ERR(ct_to_channels_last(ct_flatten(x, 0, -1)), CT_ERR_ARG, "rank 4");
}

TEST(test_qops_pool) {
    ct_tensor *x = qo_fix("qops_x", 0.05, 60);
    ct_pool_options o;
    memset(&o, 0, sizeof o);
    o.stride = 2; o.padding = 1;
    ct_tensor *ind = NULL;
    ct_tensor *y = ct_max_pool2d_with_indices(x, 3, &o, &ind);
    QO_CHECK_CODES(y, "qops_maxpool_a", 0);
    QO_CHECK_PARAMS(y, 0.05, 60);
    /* the indices are the float max_pool2d's (the same elements win: codes are monotonic) */
    ct_tensor *find = NULL;
    ct_max_pool2d_with_indices(ct_dequantize(x), 3, &o, &find);
    CHECK(ind && find && ct_item(ct_max(ct_abs(ct_sub(ind, find)))) == 0);
    memset(&o, 0, sizeof o);
    o.stride = 1; o.dilation = 2; o.ceil_mode = 1;
    QO_CHECK_CODES(ct_max_pool2d(x, 2, &o), "qops_maxpool_b", 0);
    memset(&o, 0, sizeof o);
    o.kernel_size_hw[0] = 2; o.kernel_size_hw[1] = 3; o.stride = 2; o.ceil_mode = 1;
    QO_CHECK_CODES(ct_max_pool2d(x, 0, &o), "qops_maxpool_c", 0);
    /* channels-last quint8 input (the loop over contiguous channels, 64 at a time: 70
       channels): the same codes and indices as the NCHW input */
    {
        ct_tensor *xr = ct_quantize_per_tensor(ct_randn(CT_FLOAT32, 2, 70, 9, 11), 0.05, 60, CT_QUINT8), *xl = ct_to_channels_last(xr);
        for (int g = 0; g < 3; g++) {
            memset(&o, 0, sizeof o);
            o.stride = g == 1 ? 1 : 2; o.padding = g == 0; o.dilation = g == 1 ? 2 : 1; o.ceil_mode = g == 2;
            ct_tensor *ir = NULL, *il = NULL;
            ct_tensor *yr = ct_max_pool2d_with_indices(xr, 3, &o, &ir), *yl = ct_max_pool2d_with_indices(xl, 3, &o, &il);
            CHECK(yr && yl && ir && il && ct_is_channels_last(yl));
            if (!yr || !yl || !ir || !il) continue;
            CHECK(ct_item(ct_max(ct_abs(ct_sub(ct_dequantize(yr), ct_dequantize(yl))))) == 0);
            CHECK(ct_item(ct_max(ct_abs(ct_sub(ir, il)))) == 0);
            QO_CHECK_PARAMS(yl, 0.05, 60);
        }
    }

    memset(&o, 0, sizeof o);
    o.stride = 2; o.padding = 1;
    ct_tensor *a = ct_avg_pool2d(x, 3, &o);
    QO_CHECK_CODES(a, "qops_avgpool_a", 0);
    QO_CHECK_PARAMS(a, 0.05, 60);
    QO_CHECK_CODES(ct_avg_pool2d(ct_to_channels_last(x), 3, &o), "qops_avgpool_a_cl", 1);
    CHECK(ct_is_channels_last(ct_avg_pool2d(ct_to_channels_last(x), 3, &o)));
    memset(&o, 0, sizeof o);
    o.stride = 2; o.padding = 1; o.ceil_mode = 1; o.count_exclude_pad = 1;
    QO_CHECK_CODES(ct_avg_pool2d(x, 2, &o), "qops_avgpool_b", 0);
    memset(&o, 0, sizeof o);
    o.kernel_size_hw[0] = 3; o.kernel_size_hw[1] = 2; o.stride_hw[0] = 1; o.stride_hw[1] = 2; o.divisor_override = 5;
    QO_CHECK_CODES(ct_avg_pool2d(x, 0, &o), "qops_avgpool_c", 0);

    ct_tensor *ad = ct_adaptive_avg_pool2d(x, 3, 4);
    QO_CHECK_CODES(ad, "qops_adapt_a", 0);
    QO_CHECK_PARAMS(ad, 0.05, 60);
    QO_CHECK_CODES(ct_adaptive_avg_pool2d(x, 1, 1), "qops_adapt_b", 0);
    QO_CHECK_CODES(ct_adaptive_avg_pool2d(ct_to_channels_last(x), 3, 4), "qops_adapt_a_cl", 1);
    /* NHWC 8-bit inputs take the channels-at-once kernels: the same codes and indices
       as the plane-wise ones, for quint8 and qint8, more than one channel block (300
       channels), dilation, padding, ceil mode, adaptive windows that overlap */
    for (int dt = 0; dt < 2; dt++) {
        ct_tensor *xf = ct_mul_scalar(ct_randn(CT_FLOAT32, 2, 300, 9, 7), 3.0);
        ct_tensor *xq = ct_quantize_per_tensor(xf, 0.05, dt ? -3 : 100, dt ? CT_QINT8 : CT_QUINT8), *xl = ct_to_channels_last(xq);
        ct_tensor *i1 = NULL, *i2 = NULL;
        memset(&o, 0, sizeof o);
        o.stride = 2; o.padding = 1; o.dilation = 2; o.ceil_mode = 1;
        ct_tensor *m1 = ct_max_pool2d_with_indices(xq, 3, &o, &i1), *m2 = ct_max_pool2d_with_indices(xl, 3, &o, &i2);
        CHECK(m1 && m2 && ct_is_channels_last(m2) && ct_equal(ct_int_repr(m1), ct_int_repr(m2)) && ct_equal(i1, i2));
        CHECK(ct_equal(ct_int_repr(ct_adaptive_avg_pool2d(xq, 4, 3)), ct_int_repr(ct_adaptive_avg_pool2d(xl, 4, 3))));
        CHECK(ct_equal(ct_int_repr(ct_adaptive_avg_pool2d(xq, 1, 1)), ct_int_repr(ct_adaptive_avg_pool2d(xl, 1, 1))));
    }
    /* 3-D input (no batch) */
    ct_tensor *x3 = ct_select(x, 0, 1);
    ct_tensor *y3 = ct_adaptive_avg_pool2d(x3, 3, 4);
    CHECK(y3 && ct_ndim(y3) == 3);
    CHECK_VALUES(ct_int_repr(y3), (const double *)ct_data_ptr(ct_contiguous(ct_to(ct_select(qfix("qops_adapt_a"), 0, 1), CT_FLOAT64))), 36, 0);
    /* bad input */
    memset(&o, 0, sizeof o);
    CHECK_ERR(ct_avg_pool2d(ct_select(ct_select(x, 0, 0), 0, 0), 2, &o), CT_ERR_SHAPE, "tensor expected");
    o.padding = 2;
    CHECK_ERR(ct_max_pool2d(x, 3, &o), CT_ERR_ARG, "pad should be at most half");
    memset(&o, 0, sizeof o);
    CHECK_ERR(ct_max_pool2d(x, 8, &o), CT_ERR_SHAPE, "Output size is too small");
}

TEST(test_qops_add_mul) {
    ct_tensor *a = qo_fix("qops_a", 0.04, 70), *b = qo_fix("qops_b", 0.03, 110), *b1 = qo_fix("qops_b1", 0.03, 110);
    ct_tensor *y = ct_q_add(a, b, 0.06, 64);
    QO_CHECK_CODES(y, "qops_add", 1);
    QO_CHECK_PARAMS(y, 0.06, 64);
    QO_CHECK_CODES(ct_q_add(a, b1, 0.06, 64), "qops_add_bcast", 1);
    QO_CHECK_CODES(ct_q_add_relu(a, b, 0.05, 10), "qops_add_relu", 1);
    QO_CHECK_CODES(ct_q_mul(a, b, 0.08, 100), "qops_mul", 1);
    QO_CHECK_CODES(ct_q_mul_relu(a, b, 0.08, 100), "qops_mul_relu", 1);
    /* exact against the float math (dequantize, add, quantize) */
    ct_tensor *ref = ct_quantize_per_tensor(ct_add(ct_dequantize(a), ct_dequantize(b)), 0.06, 64, CT_QUINT8);
    CHECK_CLOSE(ct_item(ct_max(ct_abs(ct_sub(ct_to(ct_int_repr(y), CT_FLOAT32), ct_to(ct_int_repr(ref), CT_FLOAT32))))), 0, 1);
    /* bad input */
    CHECK_ERR(ct_q_add(ct_dequantize(a), b, 0.1, 0), CT_ERR_DTYPE, "expected a quantized tensor");
    CHECK_ERR(ct_q_mul(a, ct_quantize_per_tensor(ct_dequantize(b), 0.03, 0, CT_QINT8), 0.1, 0), CT_ERR_DTYPE, "same quantized dtype");
    /* the operands broadcast together, either way round */
    CHECK(ct_equal(ct_int_repr(ct_q_add(b1, a, 0.05, 10)), ct_int_repr(ct_q_add(a, b1, 0.05, 10))));
    int64_t bad_shape[2] = {2, 5};
    CHECK_ERR(ct_q_add(a, ct_quantize_per_tensor(ct_zeros_n(CT_FLOAT32, 2, bad_shape), 0.03, 110, CT_QUINT8), 0.1, 0), CT_ERR_SHAPE,
              "must match the size");
    CHECK_ERR(ct_q_add(a, b, 0.1, 300), CT_ERR_ARG, "above upper bound");
    CHECK_ERR(ct_q_add(a, b, -1.0, 0), CT_ERR_ARG, "scale");
    CHECK_ERR(ct_q_add(a, NULL, 0.1, 0), CT_ERR_NULL, "quantized::add");
}

TEST(test_qops_cat) {
    ct_tensor *a = qo_fix("qops_a", 0.04, 70), *b = qo_fix("qops_b", 0.03, 110);
    ct_tensor *ab[2] = {a, b}, *aa[2] = {a, a};
    ct_tensor *q = ct_q_cat(2, ab, 1, 0.045, 90);
    QO_CHECK_CODES(q, "qops_qcat1", 1);
    QO_CHECK_PARAMS(q, 0.045, 90);
    ct_tensor *c0 = ct_cat(2, ab, 0);
    QO_CHECK_CODES(c0, "qops_cat0", 1);
    QO_CHECK_PARAMS(c0, 0.04, 70);
    QO_CHECK_CODES(ct_cat(2, aa, -1), "qops_cat2", 0);
    QO_CHECK_CODES(ct_q_cat(2, ab, 0, NAN, 0), "qops_cat0", 1);
    ct_tensor *bad[2] = {a, ct_quantize_per_tensor(ct_dequantize(b), 0.03, 0, CT_QINT8)};
    CHECK_ERR(ct_cat(2, bad, 0), CT_ERR_DTYPE, "All dtypes must be the same");
    ct_tensor *bad2[2] = {a, ct_select(b, 0, 0)};
    CHECK_ERR(ct_q_cat(2, bad2, 0, 0.1, 3), CT_ERR_SHAPE, "Sizes of tensors must match");
    ct_tensor *bad3[2] = {a, ct_dequantize(b)};
    CHECK_ERR(ct_q_cat(2, bad3, 0, 0.1, 3), CT_ERR_DTYPE, "expected a quantized tensor");
    CHECK_ERR(ct_q_cat(2, ab, 3, 0.1, 3), CT_ERR_INDEX, "Dimension out of range");
}

TEST(test_qops_conv2d) {
    ct_tensor *P = qfix("qops_conv_params");
    if (!P) return;
    const double *p = (const double *)ct_data_ptr(ct_contiguous(P));
    int ncase = (int)ct_size(P, 0), ncol = (int)ct_size(P, 1);
    for (int k = 0; k < ncase; k++) {
        const double *r = p + k * ncol;
        int64_t O = (int64_t)r[1], s = (int64_t)r[4], pad = (int64_t)r[5], dil = (int64_t)r[6], G = (int64_t)r[7];
        int pc = r[8] != 0, relu = r[9] != 0;
        char nm[64];
        snprintf(nm, sizeof nm, "qops_conv%d_x", k);
        ct_tensor *x = qo_fix(nm, r[13], (int64_t)r[14]);
        snprintf(nm, sizeof nm, "qops_conv%d_w", k);
        ct_tensor *wc = qfix(nm);
        snprintf(nm, sizeof nm, "qops_conv%d_ws", k);
        ct_tensor *ws = qfix(nm);
        snprintf(nm, sizeof nm, "qops_conv%d_b", k);
        ct_tensor *bias = qfix(nm);
        ct_tensor *w = pc ? ct_make_per_channel_quantized(wc, ws, ct_zeros(CT_INT64, O), 0)
                          : ct_make_per_tensor_quantized(wc, ct_item(ws), 0);
        ct_conv_options o;
        memset(&o, 0, sizeof o);
        o.stride = s; o.padding = pad; o.dilation = dil; o.groups = G;
        ct_q_conv_packed *pw = ct_q_conv2d_prepack(w, bias, &o);
        CHECK(pw != NULL);
        if (!pw) continue;
        ct_tensor *y = relu ? ct_q_conv2d_relu(x, pw, r[15], (int64_t)r[16]) : ct_q_conv2d(x, pw, r[15], (int64_t)r[16]);
        snprintf(nm, sizeof nm, "qops_conv%d_y", k);
        QO_CHECK_CODES(y, nm, 1);
        CHECK(y && ct_is_channels_last(y));
        QO_CHECK_PARAMS(y, r[15], (int64_t)r[16]);
        /* a channels-last input gives the same codes */
        ct_tensor *y2 = relu ? ct_q_conv2d_relu(ct_to_channels_last(x), pw, r[15], (int64_t)r[16])
                             : ct_q_conv2d(ct_to_channels_last(x), pw, r[15], (int64_t)r[16]);
        CHECK(y && y2 && ct_item(ct_max(ct_abs(ct_sub(ct_dequantize(y), ct_dequantize(y2))))) == 0);
        ct_q_conv_packed_free(pw);
    }
    /* weights with a nonzero zero point, no bias, K = 72 (more than one GEMM block), and a
       depthwise one: against the float conv of the dequantized values */
    {
        ct_tensor *xd = ct_quantize_per_tensor(ct_mul_scalar(ct_randn(CT_FLOAT32, 2, 5, 6, 7), 2.0), 0.04, 30, CT_QUINT8);
        ct_tensor *wd = ct_quantize_per_tensor(ct_mul_scalar(ct_randn(CT_FLOAT32, 5, 1, 3, 3), 0.3), 0.005, -3, CT_QINT8);
        ct_conv_options od;
        memset(&od, 0, sizeof od);
        od.padding = 1; od.stride = 2; od.groups = 5;
        ct_q_conv_packed *pd = ct_q_conv2d_prepack(wd, NULL, &od);
        ct_tensor *yd = ct_q_conv2d_relu(xd, pd, 0.05, 20);
        ct_tensor *refd = ct_quantize_per_tensor(ct_relu(ct_conv2d(ct_dequantize(xd), ct_dequantize(wd), NULL, &od)), 0.05, 20, CT_QUINT8);
        CHECK(yd && refd && ct_item(ct_max(ct_abs(ct_sub(ct_to(ct_int_repr(yd), CT_FLOAT32), ct_to(ct_int_repr(refd), CT_FLOAT32))))) <= 1);
        ct_q_conv_packed_free(pd);

        ct_tensor *x = ct_quantize_per_tensor(ct_mul_scalar(ct_randn(CT_FLOAT32, 1, 8, 5, 5), 2.0), 0.05, 100, CT_QUINT8);
        ct_tensor *w = ct_quantize_per_tensor(ct_mul_scalar(ct_randn(CT_FLOAT32, 4, 8, 3, 3), 0.2), 0.004, 7, CT_QINT8);
        ct_conv_options o;
        memset(&o, 0, sizeof o);
        o.padding = 1;
        ct_q_conv_packed *pw = ct_q_conv2d_prepack(w, NULL, &o);
        ct_tensor *y = ct_q_conv2d(x, pw, 0.1, 50);
        ct_tensor *ref = ct_quantize_per_tensor(ct_conv2d(ct_dequantize(x), ct_dequantize(w), NULL, &o), 0.1, 50, CT_QUINT8);
        CHECK(y && ref && ct_item(ct_max(ct_abs(ct_sub(ct_to(ct_int_repr(y), CT_FLOAT32), ct_to(ct_int_repr(ref), CT_FLOAT32))))) <= 1);
        /* bad input */
        CHECK_ERR(ct_q_conv2d(ct_dequantize(x), pw, 0.1, 50), CT_ERR_DTYPE, "expected a quint8 input");
        CHECK_ERR(ct_q_conv2d(ct_quantize_per_tensor(ct_dequantize(x), 0.05, 0, CT_QINT8), pw, 0.1, 50), CT_ERR_DTYPE, "quint8");
        CHECK_ERR(ct_q_conv2d(ct_narrow(x, 1, 0, 2), pw, 0.1, 50), CT_ERR_SHAPE, "expected input");
        CHECK_ERR(ct_q_conv2d_relu(ct_narrow(x, 1, 0, 3), pw, 0.1, 50), CT_ERR_SHAPE, "expected input");
        CHECK_ERR(ct_q_conv2d(ct_select(x, 0, 0), pw, 0.1, 50), CT_ERR_SHAPE, "4-D input");
        CHECK_ERR(ct_q_conv2d(x, pw, 0.1, 256), CT_ERR_ARG, "above upper bound");
        CHECK_ERR(ct_q_conv2d(x, NULL, 0.1, 50), CT_ERR_NULL, "quantized::conv2d");
        ct_q_conv_packed_free(pw);
        CHECK_ERR(ct_q_conv2d_prepack(ct_dequantize(w), NULL, &o), CT_ERR_DTYPE, "qint8 weight");
        CHECK_ERR(ct_q_conv2d_prepack(w, ct_zeros(CT_FLOAT32, 3), &o), CT_ERR_SHAPE, "bias");
        o.groups = 3;
        CHECK_ERR(ct_q_conv2d_prepack(w, NULL, &o), CT_ERR_ARG, "divisible by groups");
        o.groups = 1; o.stride = -1;
        CHECK_ERR(ct_q_conv2d_prepack(w, NULL, &o), CT_ERR_ARG, "invalid geometry");
        o.stride = 1; o.padding = 0;
        ct_q_conv_packed *pw2 = ct_q_conv2d_prepack(w, NULL, &o);
        CHECK_ERR(ct_q_conv2d(ct_narrow(ct_narrow(x, 2, 0, 2), 3, 0, 2), pw2, 0.1, 50), CT_ERR_SHAPE, "smaller than the dilated kernel");
        ct_q_conv_packed_free(pw2);
    }
}

TEST(test_qops_modules) {
    ct_module *q = ct_nnq_quantize(0.1, 10, CT_QUINT8), *dq = ct_nnq_dequantize();
    char buf[512];
    ct_module_repr(q, buf, sizeof buf);
    CHECK_STR(buf, "Quantize(scale=tensor([0.1000]), zero_point=tensor([10]), dtype=torch.quint8)");
    ct_module_repr(dq, buf, sizeof buf);
    CHECK_STR(buf, "DeQuantize()");
    float xs[4] = {-1.0f, 0.05f, 0.26f, 30.0f};
    int64_t n4 = 4;
    ct_tensor *x = ct_from_data_n(xs, CT_FLOAT32, 1, &n4);
    ct_tensor *qx = ct_forward(q, x);
    const double codes[4] = {0, 10, 13, 255};
    CHECK_VALUES(ct_int_repr(qx), codes, 4, 0);
    const double back[4] = {-1.0, 0.0, 0.3, 24.5};
    CHECK_VALUES(ct_forward(dq, qx), back, 4, 1e-6);
    ct_state_dict sd;
    CHECK(ct_module_state_dict(q, &sd) == CT_OK && sd.n == 2 && !strcmp(sd.items[0].name, "scale") && !strcmp(sd.items[1].name, "zero_point"));
    ct_state_dict_free(&sd);
    CHECK_ERR(ct_nnq_quantize(0.1, 300, CT_QUINT8), CT_ERR_ARG, "above upper bound");
    CHECK_ERR(ct_nnq_quantize(0.1, 0, CT_FLOAT32), CT_ERR_DTYPE, "Quantize: dtype");
    CHECK(max_abs_diff(ct_forward(dq, x), x) == 0);   /* float passes, as PyTorch's (Tensor.dequantize) */
    ct_module_free(q);
    ct_module_free(dq);

    /* QuantizedConv2d against the functional op (fixture case 0) and its repr */
    ct_tensor *P = qfix("qops_conv_params");
    if (!P) return;
    const double *r = (const double *)ct_data_ptr(ct_contiguous(P));
    ct_tensor *xq = qo_fix("qops_conv0_x", r[13], (int64_t)r[14]);
    ct_tensor *w = ct_make_per_channel_quantized(qfix("qops_conv0_w"), qfix("qops_conv0_ws"), ct_zeros(CT_INT64, (int64_t)r[1]), 0);
    ct_conv_options o;
    memset(&o, 0, sizeof o);
    o.padding = 1;
    ct_module *conv = ct_nnq_conv2d(ct_q_conv2d_prepack(w, qfix("qops_conv0_b"), &o), r[15], (int64_t)r[16], 0);
    CHECK(conv != NULL);
    if (!conv) return;
    ct_module_repr(conv, buf, sizeof buf);
    CHECK_STR(buf, "QuantizedConv2d(4, 6, kernel_size=(3, 3), stride=(1, 1), scale=0.08, zero_point=40, padding=(1, 1))");
    QO_CHECK_CODES(ct_forward(conv, xq), "qops_conv0_y", 1);
    CHECK(ct_module_state_dict(conv, &sd) == CT_OK && sd.n == 4 && !strcmp(sd.items[0].name, "weight") &&
          !strcmp(sd.items[3].name, "zero_point"));
    ct_state_dict_free(&sd);
    ct_module_free(conv);
    o.stride = 2; o.padding = 0; o.dilation = 2; o.groups = 2;
    ct_tensor *w2 = ct_quantize_per_tensor(ct_zeros(CT_FLOAT32, 6, 2, 2, 3), 0.01, 0, CT_QINT8);
    ct_module *cr = ct_nnq_conv2d(ct_q_conv2d_prepack(w2, NULL, &o), 1.0, 0, 1);
    ct_module_repr(cr, buf, sizeof buf);
    CHECK_STR(buf, "QuantizedConvReLU2d(4, 6, kernel_size=(2, 3), stride=(2, 2), scale=1.0, zero_point=0, dilation=(2, 2), groups=2, bias=False)");
    ct_module_free(cr);
    CHECK_ERR(ct_nnq_conv2d(NULL, 0.1, 0, 0), CT_ERR_NULL, "QuantizedConv2d");
    CHECK_ERR(ct_nnq_conv2d(ct_q_conv2d_prepack(w2, NULL, &o), 0.1, -1, 0), CT_ERR_ARG, "below lower bound");
}

/* The conv's kernels (GEMM tiles of every int8 GEMM path, AMX when unforced, the
   direct 1x1 conv, im2col, depthwise) and the per-call packing (a packed weight
   without its packing), each against the exact integer reference: the int32 sum of
   (x - zx)(w - zw[o]) times (float)(sx sw[o]), plus the bias, rounded to nearest even
   at 1 / scale, plus the zero point, clamped. */
static void qconv_ref(const ct_tensor *x, const ct_tensor *w, const float *bias, int64_t s, int64_t pad, int64_t dil, int64_t G,
                      double so, int64_t zo, int relu, uint8_t *ref /* NHWC */) {
    ct_tensor *xc = ct_contiguous(ct_int_repr(x)), *wc = ct_contiguous(ct_int_repr(w));
    const uint8_t *xp = (const uint8_t *)ct_data_ptr(xc);
    const int8_t *wp = (const int8_t *)ct_data_ptr(wc);
    const ct_qparams *wq = ct_get_qparams(w);
    int64_t N = ct_size(x, 0), C = ct_size(x, 1), H = ct_size(x, 2), W = ct_size(x, 3), O = ct_size(w, 0), Cg = ct_size(w, 1);
    int64_t kh = ct_size(w, 2), kw = ct_size(w, 3), OH = (H + 2 * pad - dil * (kh - 1) - 1) / s + 1, OW = (W + 2 * pad - dil * (kw - 1) - 1) / s + 1;
    int64_t zx = ct_q_zero_point(x), Og = O / G;
    for (int64_t n = 0; n < N; n++)
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++)
                for (int64_t o = 0; o < O; o++) {
                    int64_t zw = wq->nchannels ? wq->zero_points[o] : wq->zero_point, acc = 0, g = o / Og;
                    for (int64_t c = 0; c < Cg; c++)
                        for (int64_t i = 0; i < kh; i++)
                            for (int64_t k = 0; k < kw; k++) {
                                int64_t h = oh * s - pad + i * dil, ww = ow * s - pad + k * dil;
                                int64_t xv = h < 0 || h >= H || ww < 0 || ww >= W ? zx : xp[((n * C + g * Cg + c) * H + h) * W + ww];
                                acc += (xv - zx) * (wp[((o * Cg + c) * kh + i) * kw + k] - zw);
                            }
                    float m = (float)(ct_q_scale(x) * (wq->nchannels ? wq->scales[o] : wq->scale));
                    float v = (float)acc * m;   /* unfused, as the kernel (clang contracts within an expression) */
                    v = nearbyintf((v + (bias ? bias[o] : 0.0f)) * (1.0f / (float)so)) + (float)zo;
                    float lo = relu ? (float)zo : 0.0f;
                    v = v > lo ? v : lo;
                    v = v < 255.0f ? v : 255.0f;
                    ref[((n * OH + oh) * OW + ow) * O + o] = (uint8_t)v;
                }
}
TEST(test_qops_conv2d_paths) {
    static const struct { int64_t N, C, O, H, W, k, s, pad, dil, G; int pc_zp, relu; } cs[] = {
        {2, 32, 70, 5, 7, 1, 1, 0, 1, 1, 0, 0},    /* 1x1 stride 1: x is the GEMM's A (70 rows, 2 panels) */
        {1, 6, 20, 6, 5, 1, 1, 0, 1, 1, 1, 1},     /* direct with K = 6 (not a multiple of 4), weight zero points */
        {1, 12, 16, 9, 9, 1, 2, 0, 1, 1, 0, 0},    /* 1x1 stride 2 (a downsample) */
        {1, 3, 16, 17, 17, 3, 2, 1, 1, 1, 0, 1},   /* the C = 3 first conv */
        {1, 3, 8, 20, 20, 7, 2, 3, 1, 1, 0, 0},    /* 7x7 stride 2 on C = 3: 32-byte im2col runs */
        {2, 8, 12, 7, 8, 3, 1, 2, 2, 2, 1, 0},     /* groups = 2, dilation 2, weight zero points */
        {1, 80, 130, 9, 9, 3, 1, 1, 1, 1, 0, 0},   /* K = 720: whole AMX blocks and a tail, 3 panels, 2 pixel blocks */
        {1, 40, 40, 11, 11, 5, 2, 2, 1, 40, 0, 1}, /* depthwise 5x5 stride 2: 16-channel blocks and a tail */
        {2, 24, 24, 6, 7, 3, 1, 1, 1, 24, 1, 0},   /* depthwise 3x3, weight zero points */
        {1, 16, 16, 1, 1, 1, 1, 0, 1, 1, 0, 0},    /* an SE 1x1 conv on 1x1 */
        {1, 88, 88, 6, 5, 3, 1, 1, 1, 88, 0, 1},   /* depthwise 3x3: AVX-512's 32-channel blocks and a 24-channel tail */
        {1, 33, 33, 9, 8, 7, 1, 5, 2, 33, 1, 0},   /* depthwise 7x7 dilation 2: 25 tap pairs in chunks of 13, a 1-channel tail */
        {2, 72, 72, 7, 7, 3, 2, 1, 1, 72, 1, 1},   /* depthwise stride 2, weight zero points */
    };
    static const ct_q_gemm_path paths[] = {CT_Q_GEMM_AUTO, CT_Q_GEMM_PORTABLE, CT_Q_GEMM_AVX2, CT_Q_GEMM_AVX512_VNNI,
                                           CT_Q_GEMM_NEON_DOTPROD};
    ct_manual_seed(7);
    for (size_t ci = 0; ci < sizeof cs / sizeof cs[0]; ci++) {
        int64_t O = cs[ci].O, Cg = cs[ci].C / cs[ci].G, k = cs[ci].k;
        ct_tensor *x = ct_quantize_per_tensor(ct_mul_scalar(ct_randn(CT_FLOAT32, cs[ci].N, cs[ci].C, cs[ci].H, cs[ci].W), 2.0), 0.03, 70,
                                              CT_QUINT8);
        ct_tensor *wf = ct_randn(CT_FLOAT32, O, Cg, k, k), *sc = ct_add_scalar(ct_mul_scalar(ct_rand(CT_FLOAT32, O), 0.01), 0.005);
        ct_tensor *zp = cs[ci].pc_zp ? ct_sub_scalar(ct_randint(0, 7, CT_INT64, O), 3) : ct_zeros(CT_INT64, O);
        ct_tensor *w = ct_quantize_per_channel(ct_mul_scalar(wf, 0.3), sc, zp, 0, CT_QINT8);
        ct_tensor *b = ct_mul_scalar(ct_randn(CT_FLOAT32, O), 0.5);
        ct_conv_options o;
        memset(&o, 0, sizeof o);
        o.stride = cs[ci].s; o.padding = cs[ci].pad; o.dilation = cs[ci].dil; o.groups = cs[ci].G;
        ct_q_conv_packed *pw = ct_q_conv2d_prepack(w, b, &o);
        CHECK(pw != NULL && x != NULL);
        if (!pw || !x) continue;
        ct_q_conv_packed unpacked = *pw;
        unpacked.packed = NULL;   /* packed per call */
        int64_t OH = (cs[ci].H + 2 * cs[ci].pad - cs[ci].dil * (k - 1) - 1) / cs[ci].s + 1;
        int64_t OW = (cs[ci].W + 2 * cs[ci].pad - cs[ci].dil * (k - 1) - 1) / cs[ci].s + 1, n = cs[ci].N * OH * OW * O;
        uint8_t *ref = (uint8_t *)malloc((size_t)n);
        qconv_ref(x, w, (const float *)ct_data_ptr(ct_contiguous(b)), cs[ci].s, cs[ci].pad, cs[ci].dil, cs[ci].G, 0.4, 60, cs[ci].relu, ref);
        for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
            if (!ct_q_gemm_path_available(paths[p])) continue;
            int old = ct_q_gemm_force_path(paths[p]);
            for (int u = 0; u < 2; u++) {
                const ct_q_conv_packed *pp = u ? &unpacked : pw;
                ct_tensor *y = cs[ci].relu ? ct_q_conv2d_relu(x, pp, 0.4, 60) : ct_q_conv2d(x, pp, 0.4, 60);
                /* NHWC codes: the output is channels-last */
                ct_tensor *yc = y ? ct_contiguous(ct_permute(ct_int_repr(y), 0, 2, 3, 1)) : NULL;
                const uint8_t *yp = yc ? (const uint8_t *)ct_data_ptr(yc) : NULL;
                int64_t bad = yp ? -1 : 0;
                for (int64_t i = 0; yp && i < n && bad < 0; i++)
                    if (yp[i] != ref[i]) bad = i;
                CT_T_REPORT(bad < 0, "q_conv2d case %d path %s%s: code %lld is %d, expected %d", (int)ci, ct_q_gemm_path_name(paths[p]),
                            u ? " (packed per call)" : "", (long long)bad, yp && bad >= 0 ? yp[bad] : -1, bad >= 0 ? ref[bad] : -1);
            }
            ct_q_gemm_force_path((ct_q_gemm_path)old);
        }
        free(ref);
        ct_q_conv_packed_free(pw);
    }
    /* a module's weight changed in place (as load_state_dict does) is packed again */
    {
        ct_tensor *sc = ct_full(CT_FLOAT32, 0.01, 8), *zp = ct_zeros(CT_INT64, 8);
        ct_tensor *w1 = ct_quantize_per_channel(ct_randn(CT_FLOAT32, 8, 4, 3, 3), sc, zp, 0, CT_QINT8);
        ct_tensor *w2 = ct_quantize_per_channel(ct_randn(CT_FLOAT32, 8, 4, 3, 3), sc, zp, 0, CT_QINT8);
        ct_tensor *x = ct_quantize_per_tensor(ct_randn(CT_FLOAT32, 1, 4, 6, 6), 0.05, 64, CT_QUINT8);
        ct_conv_options o;
        memset(&o, 0, sizeof o);
        o.padding = 1;
        ct_module *m = ct_nnq_conv2d(ct_q_conv2d_prepack(w1, NULL, &o), 0.2, 70, 0);
        ct_q_conv_packed *p2 = ct_q_conv2d_prepack(w2, NULL, &o);
        CHECK(m && p2 && ct_forward(m, x));
        /* w2's codes written into the module's (channels-last) weight and its version
           bumped, as an in-place op would (ct_copy_ has no quantized kernel yet) */
        ct_tensor *mw = m ? ct_module_get(m, "weight") : NULL, *c2 = ct_to_channels_last(w2);
        CHECK(mw && c2 && ct_is_channels_last(mw) && ct_is_channels_last(c2));
        if (mw && c2) {
            memcpy(ct_data_ptr(mw), ct_data_ptr(c2), (size_t)ct_numel(mw));
            mw->storage->version++;
        }
        ct_tensor *y = m ? ct_forward(m, x) : NULL, *ref = p2 ? ct_q_conv2d(x, p2, 0.2, 70) : NULL;
        CHECK(y && ref && ct_item(ct_max(ct_abs(ct_sub(ct_dequantize(y), ct_dequantize(ref))))) == 0);
        ct_module_free(m);
        ct_q_conv_packed_free(p2);
    }
}

static void run_quant_qops_tests(void) {
    RUN(test_qops_relu);
    RUN(test_qops_clone_contiguous_views);
    RUN(test_qops_pool);
    RUN(test_qops_add_mul);
    RUN(test_qops_cat);
    RUN(test_qops_conv2d);
    RUN(test_qops_conv2d_paths);
    RUN(test_qops_modules);
}
