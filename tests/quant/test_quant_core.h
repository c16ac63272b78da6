/* quantized tensors: quantize / dequantize / int_repr / parameters, against
   PyTorch (tests/reference/quant_fixtures.py) */
/* equal values (and shapes' element counts) */
static int max_eq(const ct_tensor *a, const ct_tensor *b) {
    return a && b && ct_numel(a) == ct_numel(b) &&
           ct_item_int(ct_sum(ct_logical_not(ct_eq(ct_to(a, CT_FLOAT64), ct_to(b, CT_FLOAT64))))) == 0;
}
static ct_tensor *qf32(const float *v, int64_t n) { return ct_from_data_n(v, CT_FLOAT32, 1, &n); }
/* codes of q equal the fixture exactly; dequantized values bit for bit */
static void check_q(const ct_tensor *q, const char *codes, const char *deq) {
    ct_tensor *c = qfix(codes), *d = deq ? qfix(deq) : NULL;
    ct_tensor *r = ct_int_repr(q);
    CHECK(r && c && ct_numel(r) == ct_numel(c));
    if (!r || !c) return;
    ct_tensor *eq = ct_eq(ct_to(r, CT_INT64), ct_to(c, CT_INT64));
    CT_T_REPORT(eq && ct_item_int(ct_sum(ct_logical_not(eq))) == 0, "codes differ from %s (%lld elements)", codes,
                eq ? (long long)ct_item_int(ct_sum(ct_logical_not(eq))) : -1LL);
    if (d) {
        ct_tensor *x = ct_dequantize(q);
        CT_T_REPORT(x && ct_get_dtype(x) == CT_FLOAT32 && ct_item_int(ct_sum(ct_logical_not(ct_eq(x, d)))) == 0,
                    "dequantized values differ from %s", deq);
    }
}
TEST(test_quantize_per_tensor_vs_torch) {
    ct_tensor *x = qfix("core_pt_x");
    if (!x) return;
    struct { ct_dtype dt; const char *name; double scale; int64_t zp; } cs[] = {
        {CT_QINT8, "qint8", 0.1, 3}, {CT_QUINT8, "quint8", 0.037, 128}, {CT_QINT32, "qint32", 0.001, -5}, {CT_QINT8, "qint8_small", 1e-3, -128}};
    for (int k = 0; k < 4; k++) {
        ct_tensor *q = ct_quantize_per_tensor(x, cs[k].scale, cs[k].zp, cs[k].dt);
        CHECK(q != NULL);
        if (!q) continue;
        CHECK_EQ_INT(ct_get_dtype(q), cs[k].dt);
        CHECK_EQ_INT(ct_q_qscheme(q), CT_PER_TENSOR_AFFINE);
        CHECK_CLOSE(ct_q_scale(q), cs[k].scale, 0);
        CHECK_EQ_INT(ct_q_zero_point(q), cs[k].zp);
        char cn[64], dn[64];
        snprintf(cn, sizeof cn, "core_pt_%s_codes", cs[k].name);
        snprintf(dn, sizeof dn, "core_pt_%s_deq", cs[k].name);
        check_q(q, cn, dn);
        /* a strided (reversed) input quantizes the same values */
        ct_tensor *rq = ct_quantize_per_tensor(ct_flip(x, 1, (int64_t[]){0}), cs[k].scale, cs[k].zp, cs[k].dt);
        CHECK(rq && ct_item_int(ct_sum(ct_logical_not(ct_eq(ct_flip(ct_to(ct_int_repr(rq), CT_INT64), 1, (int64_t[]){0}),
                                                             ct_to(ct_int_repr(q), CT_INT64))))) == 0);
    }
}
TEST(test_quantize_per_channel_vs_torch) {
    ct_tensor *x = qfix("core_pc_x");
    if (!x) return;
    for (int axis = 0; axis < 3; axis++) {
        char n1[64], n2[64], cn[64], dn[64];
        snprintf(n1, sizeof n1, "core_pc_a%d_scales", axis);
        snprintf(n2, sizeof n2, "core_pc_a%d_zps", axis);
        ct_tensor *s = qfix(n1), *z = qfix(n2);
        if (!s || !z) continue;
        const char *names[2] = {"qint8", "quint8"};
        ct_dtype dts[2] = {CT_QINT8, CT_QUINT8};
        for (int k = 0; k < 2; k++) {
            ct_tensor *q = ct_quantize_per_channel(x, s, z, axis, dts[k]);
            CHECK(q != NULL);
            if (!q) continue;
            CHECK_EQ_INT(ct_q_qscheme(q), CT_PER_CHANNEL_AFFINE);
            CHECK_EQ_INT(ct_q_per_channel_axis(q), axis);
            CHECK(ct_item_int(ct_sum(ct_logical_not(ct_eq(ct_q_per_channel_scales(q), s)))) == 0);
            CHECK(ct_item_int(ct_sum(ct_logical_not(ct_eq(ct_q_per_channel_zero_points(q), z)))) == 0);
            snprintf(cn, sizeof cn, "core_pc_a%d_%s_codes", axis, names[k]);
            snprintf(dn, sizeof dn, "core_pc_a%d_%s_deq", axis, names[k]);
            check_q(q, cn, dn);
        }
    }
    /* negative axis */
    ct_tensor *s = qfix("core_pc_a2_scales"), *z = qfix("core_pc_a2_zps");
    if (s && z) check_q(ct_quantize_per_channel(x, s, z, -1, CT_QINT8), "core_pc_a2_qint8_codes", NULL);
}
TEST(test_quantize_dynamic_vs_torch) {
    ct_tensor *p = qfix("core_dyn_params");
    if (!p) return;
    const double *pv = (const double *)ct_data_ptr(p);
    int64_t rows = ct_size(p, 0);
    for (int64_t r = 0; r < rows; r++) {
        const double *row = pv + 5 * r;
        char xn[64], cn[64];
        snprintf(xn, sizeof xn, "core_dyn%d_x", (int)row[0]);
        snprintf(cn, sizeof cn, "core_dyn%d_%s_rr%d_codes", (int)row[0], row[1] ? "quint8" : "qint8", (int)row[2]);
        ct_tensor *x = qfix(xn);
        if (!x) continue;
        ct_tensor *q = ct_quantize_per_tensor_dynamic(x, row[1] ? CT_QUINT8 : CT_QINT8, (int)row[2]);
        CHECK(q != NULL);
        if (!q) continue;
        CT_T_REPORT(ct_q_scale(q) == row[3] && ct_q_zero_point(q) == (int64_t)row[4], "%s: scale %.17g zp %lld, PyTorch %.17g %lld",
                    cn, ct_q_scale(q), (long long)ct_q_zero_point(q), row[3], (long long)row[4]);
        check_q(q, cn, NULL);
    }
}
TEST(test_make_quantized_and_views) {
    int8_t codes[6] = {-3, 0, 5, 127, -128, 9};
    ct_tensor *c = ct_from_data_n(codes, CT_INT8, 2, (int64_t[]){2, 3});
    ct_tensor *q = ct_make_per_tensor_quantized(c, 0.5, -1);
    CHECK(q && ct_get_dtype(q) == CT_QINT8);
    CHECK_VALUES(ct_dequantize(q), ((double[]){-1, 0.5, 3, 64, -63.5, 5}), 6, 0);
    /* views share the parameters; dequantize and int_repr read them strided */
    ct_tensor *t = ct_transpose(q, 0, 1);
    CHECK(t && ct_get_qparams(t) == ct_get_qparams(q));
    CHECK_VALUES(ct_int_repr(t), ((double[]){-3, 127, 0, -128, 5, 9}), 6, 0);
    CHECK_VALUES(ct_dequantize(t), ((double[]){-1, 64, 0.5, -63.5, 3, 5}), 6, 0);
    /* per channel from codes, along dim 1 */
    uint8_t uc[6] = {0, 10, 20, 30, 40, 255};
    ct_tensor *s = ct_tensor_f64(((double[]){0.1, 0.2, 0.5}), 3);
    ct_tensor *z = ct_tensor_i64(((int64_t[]){0, 10, 20}), 3);
    ct_tensor *qc = ct_make_per_channel_quantized(ct_from_data_n(uc, CT_UINT8, 2, (int64_t[]){2, 3}), s, z, 1);
    CHECK(qc && ct_get_dtype(qc) == CT_QUINT8);
    CHECK_VALUES(ct_dequantize(qc), ((double[]){0, 0, 0, 3, 6, 117.5}), 6, 1e-6);
    /* zero-size and 0-d */
    ct_tensor *e = ct_quantize_per_tensor(ct_empty(CT_FLOAT32, 0, 4), 0.1, 0, CT_QUINT8);
    CHECK(e && ct_numel(e) == 0 && ct_numel(ct_dequantize(e)) == 0);
    ct_tensor *sc = ct_quantize_per_tensor(ct_scalar_tensor(0.26, CT_FLOAT32), 0.1, 0, CT_QINT8);
    CHECK(sc && ct_ndim(sc) == 0 && ct_item(ct_int_repr(sc)) == 3);
    /* the dynamic quantization of an empty tensor uses the range [0, 0] */
    CHECK(ct_quantize_per_tensor_dynamic(ct_empty(CT_FLOAT32, 0), CT_QUINT8, 0) != NULL);
}
TEST(test_choose_qparams) {
    double s;
    int64_t z;
    CHECK_EQ_INT(ct_q_choose_qparams(-1.0, 3.0, 0, 255, 0, 0, &s, &z), 0);
    CHECK_CLOSE(s, 4.0 / 255, 1e-15);
    CHECK_EQ_INT(z, 64);
    CHECK_EQ_INT(ct_q_choose_qparams(0.0, 0.0, 0, 255, 0, 0, &s, &z), 0);
    CHECK_CLOSE(s, 0.1, 0);
    CHECK_EQ_INT(z, 0);
    /* preserve_sparsity: symmetric range, zero point in the middle */
    CHECK_EQ_INT(ct_q_choose_qparams(-1.0, 3.0, -128, 127, 1, 0, &s, &z), 0);
    CHECK_EQ_INT(z, 0);
    CHECK_ERR(ct_q_choose_qparams(2.0, 1.0, 0, 255, 0, 0, &s, &z) == 0, CT_ERR_ARG, "choose_qparams: min (2) must be <= max (1)");
    CHECK_ERR(ct_q_choose_qparams(NAN, 1.0, 0, 255, 0, 0, &s, &z) == 0, CT_ERR_ARG, "both finite");
    CHECK_ERR(ct_q_choose_qparams(0, 1.0, 5, 5, 0, 0, &s, &z) == 0, CT_ERR_ARG, "qmin (5) must be < qmax (5)");
    int64_t lo, hi;
    CHECK(ct_qdtype_range(CT_QUINT8, &lo, &hi) && lo == 0 && hi == 255);
    CHECK(!ct_qdtype_range(CT_FLOAT32, &lo, &hi));
    CHECK_STR(ct_qscheme_name(CT_PER_CHANNEL_SYMMETRIC), "per_channel_symmetric");
}
TEST(test_quant_core_errors) {
    float v[4] = {1, 2, 3, 4};
    ct_tensor *x = qf32(v, 4);
    CHECK_ERR(ct_quantize_per_tensor(ct_to(x, CT_FLOAT64), 0.1, 0, CT_QINT8), CT_ERR_DTYPE,
              "quantize_per_tensor: Quantize only works on Float Tensor, got Double");
    CHECK_ERR(ct_quantize_per_tensor(x, 0.1, 0, CT_FLOAT32), CT_ERR_DTYPE, "quantize_per_tensor: dtype must be qint8, quint8 or qint32, got Float");
    CHECK_ERR(ct_quantize_per_tensor(x, 0.1, 300, CT_QUINT8), CT_ERR_ARG, "quantize_per_tensor: zero_point 300 is above upper bound 255");
    CHECK_ERR(ct_quantize_per_tensor(x, 0.1, -129, CT_QINT8), CT_ERR_ARG, "zero_point -129 is below lower bound -128");
    CHECK_ERR(ct_quantize_per_tensor(x, 0.0, 0, CT_QINT8), CT_ERR_ARG, "quantize_per_tensor: scale must be a positive finite float32 number, got 0");
    CHECK_ERR(ct_quantize_per_tensor(x, NAN, 0, CT_QINT8), CT_ERR_ARG, "scale must be a positive finite");
    CHECK_ERR(ct_quantize_per_tensor(x, 1e-300, 0, CT_QINT8), CT_ERR_ARG, "scale must be a positive finite float32 number, got 1e-300");
    CHECK_ERR(ct_quantize_per_tensor(NULL, 0.1, 0, CT_QINT8), CT_ERR_NULL, "quantize_per_tensor");
    ct_tensor *q = ct_quantize_per_tensor(x, 0.1, 0, CT_QINT8);
    CHECK_ERR(ct_quantize_per_tensor(q, 0.1, 0, CT_QINT8), CT_ERR_DTYPE, "quantize_per_tensor: the input is already quantized (QInt8)");
    CHECK_ERR(ct_dequantize(x), CT_ERR_DTYPE, "dequantize: expected a quantized tensor (qint8, quint8, qint32), got Float");
    CHECK_ERR(ct_int_repr(x), CT_ERR_DTYPE, "int_repr: expected a quantized tensor");
    CHECK_ERR(ct_dequantize(ct_empty(CT_QINT8, 2)), CT_ERR_STATE, "dequantize: the quantized tensor has no quantization parameters");
    CHECK_ERR(!isnan(ct_q_scale(x)), CT_ERR_DTYPE, "q_scale: expected a quantized tensor, got Float");
    CHECK_ERR(ct_q_per_channel_scales(q), CT_ERR_ARG, "q_per_channel_scales: expected a per-channel quantized tensor, got qscheme per_tensor_affine");
    CHECK_ERR(ct_q_zero_point(ct_quantize_per_channel(x, ct_tensor_f64(((double[]){0.1, 0.1, 0.1, 0.1}), 4),
                                                      ct_tensor_i64(((int64_t[]){0, 0, 0, 0}), 4), 0, CT_QINT8)) >= 0,
              CT_ERR_ARG, "q_zero_point: expected a per-tensor quantized tensor, got qscheme per_channel_affine");
    ct_tensor *s3 = ct_tensor_f64(((double[]){0.1, 0.1, 0.1}), 3), *z3 = ct_tensor_i64(((int64_t[]){0, 0, 0}), 3);
    CHECK_ERR(ct_quantize_per_channel(x, s3, z3, 0, CT_QINT8), CT_ERR_SHAPE, "quantize_per_channel: expected 4 scales (the size of dim 0) as a 1-D tensor, got shape [3]");
    CHECK_ERR(ct_quantize_per_channel(x, s3, z3, 1, CT_QINT8), CT_ERR_ARG, "quantize_per_channel: axis 1 is out of range for a 1-D tensor");
    ct_tensor *s4 = ct_tensor_f64(((double[]){0.1, -0.1, 0.1, 0.1}), 4), *z4 = ct_tensor_i64(((int64_t[]){0, 0, 0, 0}), 4);
    CHECK_ERR(ct_quantize_per_channel(x, s4, z4, 0, CT_QINT8), CT_ERR_ARG, "quantize_per_channel: scale (channel 1) must be a positive finite float32 number, got -0.1");
    CHECK_ERR(ct_make_per_tensor_quantized(x, 0.1, 0), CT_ERR_DTYPE, "_make_per_tensor_quantized_tensor: the codes must be int8, uint8 or int32, got Float");
    CHECK_ERR(ct_quantize_per_tensor_dynamic(x, CT_QINT32, 0), CT_ERR_DTYPE, "quantize_per_tensor_dynamic: dtype must be qint8 or quint8, got QInt32");
    /* an op without a QuantizedCPU kernel says so, as PyTorch */
    CHECK_ERR(ct_exp(q), CT_ERR_DTYPE, "Could not run 'aten::exp' with arguments from the 'QuantizedCPU' backend");
}
/* PyTorch 1.13's print of the same tensors */
TEST(test_quant_repr) {
    float xs[] = {0.05f, 0.15f, 0.25f, -0.35f, 100.f, -100.f, 1.25f};
    ct_tensor *x = qf32(xs, 7);
    CHECK_REPR(ct_quantize_per_tensor(x, 0.1, 3, CT_QINT8),
               "tensor([  0.0000,   0.2000,   0.2000,  -0.4000,  12.4000, -13.1000,   1.2000],\n"
               "       size=(7,), dtype=torch.qint8, quantization_scheme=torch.per_tensor_affine,\n"
               "       scale=0.1, zero_point=3)");
    CHECK_REPR(ct_quantize_per_tensor_dynamic(x, CT_QUINT8, 0),
               "tensor([   0.0000,    0.0000,    0.0000,    0.0000,   99.6078, -100.3922,\n"
               "           1.5686], size=(7,), dtype=torch.quint8,\n"
               "       quantization_scheme=torch.per_tensor_affine, scale=0.7843137254901961,\n"
               "       zero_point=128)");
    CHECK_REPR(ct_quantize_per_tensor(ct_empty(CT_FLOAT32, 0), 0.5, 3, CT_QINT32),
               "tensor([], size=(0,), dtype=torch.qint32,\n"
               "       quantization_scheme=torch.per_tensor_affine, scale=0.5, zero_point=3)");
    CHECK_REPR(ct_quantize_per_tensor(ct_scalar_tensor(2.5, CT_FLOAT32), 0.5, 3, CT_QINT32),
               "tensor(2.5000, size=(), dtype=torch.qint32,\n"
               "       quantization_scheme=torch.per_tensor_affine, scale=0.5, zero_point=3)");
    CHECK_REPR(ct_quantize_per_tensor(ct_view(x, 7, 1), 1.0, 3, CT_QUINT8),
               "tensor([[  0.],\n        [  0.],\n        [  0.],\n        [  0.],\n        [100.],\n        [ -3.],\n"
               "        [  1.]], size=(7, 1), dtype=torch.quint8,\n"
               "       quantization_scheme=torch.per_tensor_affine, scale=1.0, zero_point=3)");
    CHECK_REPR(ct_quantize_per_channel(ct_view(ct_slice(x, 0, 0, 6, 1), 2, 3), ct_tensor_f64(((double[]){0.1, 0.2, 0.3}), 3),
                                       ct_tensor_i64(((int64_t[]){0, 1, 2}), 3), 1, CT_QUINT8),
               "tensor([[ 0.0000,  0.2000,  0.3000],\n"
               "        [ 0.0000, 50.8000, -0.6000]], size=(2, 3), dtype=torch.quint8,\n"
               "       quantization_scheme=torch.per_channel_affine,\n"
               "       scale=tensor([0.1000, 0.2000, 0.3000], dtype=torch.float64),\n"
               "       zero_point=tensor([0, 1, 2]), axis=1)");
    /* without parameters: the placeholder form */
    CHECK_REPR(ct_empty(CT_QINT8, 2), "tensor(<qint8 [2] on cpu>)");
}
/* quantized tensors through safetensors: codes under the tensor's own name, parameters in metadata */
TEST(test_quant_safetensors) {
    ct_tensor *x = qfix("core_pc_x"), *s = qfix("core_pc_a1_scales"), *z = qfix("core_pc_a1_zps");
    if (!x || !s || !z) return;
    ct_tensor *qt = ct_quantize_per_tensor(x, 0.7843137254901961, 128, CT_QUINT8);
    ct_tensor *qc = ct_quantize_per_channel(x, s, z, 1, CT_QINT8);
    ct_tensor *q32 = ct_quantize_per_tensor(ct_slice(x, 2, 1, 4, 1), 1e-3, -7, CT_QINT32);   /* a strided view */
    const char *names[4] = {"fc.weight", "fc.bias", "act.x", "act.y"};
    const ct_tensor *ts[4] = {qc, x, qt, q32};
    void *buf = NULL;
    size_t len = 0;
    CHECK_EQ_INT(ct_q_save_safetensors_mem(4, names, ts, &buf, &len), CT_OK);
    ct_safetensors *st = buf ? ct_safetensors_load_mem(buf, len, "q.safetensors") : NULL;
    ct_free(buf);
    CHECK(st != NULL);
    if (!st) return;
    /* a plain reader sees the codes */
    CHECK_EQ_INT(ct_get_dtype(ct_safetensors_get(st, "fc.weight")), CT_INT8);
    CHECK_STR(ct_safetensors_metadata(st, "qparams:act.x"), "dtype=quint8;qscheme=per_tensor_affine;scale=0.7843137254901961;zero_point=128");
    for (int i = 0; i < 4; i++) {
        ct_tensor *r = ct_q_safetensors_get(st, names[i]);
        CHECK(r != NULL);
        if (!r) continue;
        CHECK_EQ_INT(ct_get_dtype(r), ct_get_dtype(ts[i]));
        CHECK(max_eq(ct_get_dtype(r) == CT_FLOAT32 ? r : ct_dequantize(r), ct_get_dtype(r) == CT_FLOAT32 ? ts[i] : ct_dequantize(ts[i])));
        if (i != 1) CHECK(max_eq(ct_int_repr(r), ct_int_repr(ts[i])));
    }
    ct_tensor *r = ct_q_safetensors_get(st, "fc.weight");
    CHECK(r && ct_q_per_channel_axis(r) == 1 && max_eq(ct_q_per_channel_scales(r), ct_to(s, CT_FLOAT64)));
    ct_safetensors_free(st);
    /* malformed parameters are format errors */
    const char *bad[] = {"dtype=qint9;qscheme=per_tensor_affine;scale=0.1;zero_point=0", "dtype=quint8;qscheme=per_tensor_affine;scale=0.1;zero_point=0",
                         "dtype=qint8;qscheme=per_tensor_affine;scale=-1;zero_point=0", "dtype=qint8;qscheme=per_tensor_affine;scale=0.1;zero_point=999",
                         "dtype=qint8;qscheme=per_channel_affine;axis=0;scales=0.1;zero_points=0", "dtype=qint8;qscheme=per_tensor_affine;scale=0.1",
                         "dtype=qint8;qscheme=per_channel_affine;axis=5;scales=0.1,0.1;zero_points=0,0", "dtype=qint8;qscheme=per_tensor_affine;scale=0.1;zero_point=0;x"};
    int8_t codes[2] = {1, 2};
    ct_tensor *c = ct_from_data_n(codes, CT_INT8, 1, (int64_t[]){2});
    for (int k = 0; k < (int)(sizeof bad / sizeof bad[0]); k++) {
        const char *nm[1] = {"t"}, *mk[1] = {"qparams:t"}, *mv[1] = {bad[k]};
        const ct_tensor *tt[1] = {c};
        void *b2 = NULL;
        size_t l2 = 0;
        CHECK_EQ_INT(ct_save_safetensors_mem(1, nm, tt, 1, mk, mv, &b2, &l2), CT_OK);
        ct_safetensors *s2 = ct_safetensors_load_mem(b2, l2, "bad");
        ct_free(b2);
        CHECK_ERR(ct_q_safetensors_get(s2, "t"), CT_ERR_FORMAT, "q_safetensors_get: tensor 't': bad quantization parameters");
        ct_safetensors_free(s2);
    }
    CHECK_ERR(ct_q_save_safetensors_mem(1, names, (const ct_tensor *const[]){ct_empty(CT_QINT8, 2)}, &buf, &len) == CT_OK, CT_ERR_STATE,
              "quantized tensor 'fc.weight' has no quantization parameters");
}
TEST(test_sqnr) {
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 4.5f};
    ct_tensor *x = qf32(a, 4), *y = qf32(b, 4);
    CHECK_CLOSE(ct_q_sqnr(x, y), 20 * log10(sqrt(30.0) / 0.5), 1e-12);
    CHECK(isinf(ct_q_sqnr(x, x)));
    ct_tensor *q = ct_quantize_per_tensor(x, 0.5, 0, CT_QINT8);
    CHECK(isinf(ct_q_sqnr(x, q)));   /* 1..4 are exact at scale 0.5 */
    CHECK_CLOSE(ct_q_sqnr(y, q), 20 * log10(sqrt(1 + 4 + 9 + 20.25) / 0.5), 1e-12);
    CHECK_ERR(!isnan(ct_q_sqnr(x, ct_ones(CT_FLOAT32, 3))), CT_ERR_SHAPE, "q_sqnr: x and y must have the same shape, got [4] and [3]");
    CHECK_ERR(!isnan(ct_q_sqnr(NULL, x)), CT_ERR_NULL, "q_sqnr");
}
static void run_quant_core_tests(void) {
    RUN(test_sqnr);
    RUN(test_quant_repr);
    RUN(test_quantize_per_tensor_vs_torch);
    RUN(test_quantize_per_channel_vs_torch);
    RUN(test_quantize_dynamic_vs_torch);
    RUN(test_make_quantized_and_views);
    RUN(test_choose_qparams);
    RUN(test_quant_core_errors);
    RUN(test_quant_safetensors);
}
