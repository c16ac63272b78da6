/* FloatFunctional / QFunctional, quantized add_scalar / mul_scalar / hardswish /
   hardsigmoid, broadcasting quantized mul, and post-training quantization of small
   models in torchvision's quantizable ResNet and MobileNetV3 layouts
   (bench/quant_zoo.h), against PyTorch (tests/reference/quant_fixtures_models.py) */
#include "bench/quant_zoo.h"

/* the largest code difference of quantized y from the fixture's codes */
static int md_code_diff(const ct_tensor *y, const char *name) {
    ct_tensor *e = qfix(name);
    if (!y || !e || ct_numel(y) != ct_numel(e)) return 1000;
    return (int)ct_item(ct_max(ct_abs(ct_sub(ct_to(ct_int_repr(y), CT_FLOAT32), ct_to(e, CT_FLOAT32)))));
}
static ct_tensor *md_q(const char *name, double scale, int64_t zp, ct_dtype dt) {
    ct_tensor *c = qfix(name);
    return c ? ct_make_per_tensor_quantized(ct_to(c, dt == CT_QINT8 ? CT_INT8 : CT_UINT8), scale, zp) : NULL;
}
TEST(test_q_scalar_ops_vs_torch) {
    ct_tensor *xs[2] = {md_q("mdl_fx", 0.05, 128, CT_QUINT8), md_q("mdl_fxi", 0.04, 3, CT_QINT8)};
    ct_tensor *cs = qfix("mdl_scalar_c"), *qp = qfix("mdl_scalar_qparams");
    if (!xs[0] || !xs[1] || !cs || !qp) return;
    const double *c = (const double *)ct_data_ptr(cs), *p = (const double *)ct_data_ptr(qp);
    int row = 0;
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < 7; k++)
            for (int mul = 0; mul < 2; mul++, row++) {
                ct_tensor *y = mul ? ct_q_mul_scalar(xs[t], c[k]) : ct_q_add_scalar(xs[t], c[k]);
                char nm[32];
                snprintf(nm, sizeof nm, "mdl_%s_%c%d", mul ? "mul" : "add", t ? 'i' : 'u', k);
                CT_T_REPORT(y && fabs(ct_q_scale(y) - p[row * 4 + 2]) <= 1e-12 * p[row * 4 + 2] && ct_q_zero_point(y) == (int64_t)p[row * 4 + 3],
                            "%s: parameters (%g, %lld), PyTorch's (%g, %lld)", nm, y ? ct_q_scale(y) : 0, y ? (long long)ct_q_zero_point(y) : 0LL,
                            p[row * 4 + 2], (long long)p[row * 4 + 3]);
                int d = md_code_diff(y, nm);
                CT_T_REPORT(d == 0, "%s: codes differ from PyTorch's by %d", nm, d);
            }
    /* strided input: the same codes as the contiguous one */
    ct_tensor *tx = ct_transpose(xs[0], 0, 1);
    CHECK(ct_equal(ct_int_repr(ct_q_add_scalar(tx, 10.0)), ct_int_repr(ct_transpose(ct_q_add_scalar(xs[0], 10.0), 0, 1))));
    /* hardswish (output parameters given) and hardsigmoid (fixed ones): within one
       quantum (PyTorch's vectorized dequantize is a fused multiply-add) */
    int d = md_code_diff(ct_q_hardswish(xs[0], 0.03, 20), "mdl_hswish_u");
    CT_T_REPORT(d <= 1, "hardswish quint8 differs by %d", d);
    d = md_code_diff(ct_q_hardswish(xs[1], 0.02, -100), "mdl_hswish_i");
    CT_T_REPORT(d <= 1, "hardswish qint8 differs by %d", d);
    /* the 64-byte table lookup (AVX-512 VBMI where the CPU has it) against the byte loop
       (forcing a GEMM path turns it off): every code, a tail of 41 */
    {
        ct_tensor *u = ct_make_per_tensor_quantized(ct_to(ct_arange(0, 1000, 1, CT_INT64), CT_UINT8), 1.0 / 16, 70);
        ct_tensor *fast = ct_q_hardswish(u, 0.05, 9);
        int old = ct_q_gemm_force_path(CT_Q_GEMM_PORTABLE);
        ct_tensor *slow = ct_q_hardswish(u, 0.05, 9);
        ct_q_gemm_force_path((ct_q_gemm_path)old);
        CHECK(fast && slow && ct_equal(ct_int_repr(fast), ct_int_repr(slow)));
    }
    ct_tensor *hs = ct_hardsigmoid(xs[0]), *hsi = ct_hardsigmoid(xs[1]);
    CHECK(hs && ct_q_scale(hs) == 1.0 / 256 && ct_q_zero_point(hs) == 0);
    CHECK(hsi && ct_q_scale(hsi) == 1.0 / 256 && ct_q_zero_point(hsi) == -128);
    d = md_code_diff(hs, "mdl_hsig_u");
    CT_T_REPORT(d <= 1, "hardsigmoid quint8 differs by %d", d);
    d = md_code_diff(hsi, "mdl_hsig_i");
    CT_T_REPORT(d <= 1, "hardsigmoid qint8 differs by %d", d);
    /* quantized::mul broadcasting the first operand ([2,3,1,1] x [2,3,4,5]) */
    ct_tensor *a = md_q("mdl_bc_a", 0.004, 0, CT_QUINT8), *b = md_q("mdl_bc_b", 0.03, 100, CT_QUINT8);
    ct_tensor *ab = ct_q_mul(ct_reshape(a, 2, 3, 1, 1), ct_reshape(b, 2, 3, 4, 5), 0.02, 90);
    CHECK(ab && ct_ndim(ab) == 4 && ct_size(ab, 3) == 5);
    d = md_code_diff(ab, "mdl_bc_mul");
    CT_T_REPORT(d == 0, "broadcast mul differs by %d", d);
    /* ... and into channels-last (the SE block's fast path, both operand orders), the
       same codes as PyTorch's */
    ct_tensor *bl = ct_to_channels_last(ct_reshape(b, 2, 3, 4, 5)), *ab2 = ct_q_mul(ct_reshape(a, 2, 3, 1, 1), bl, 0.02, 90);
    CHECK(ab2 && ct_is_channels_last(ab2));
    d = md_code_diff(ab2, "mdl_bc_mul");
    CT_T_REPORT(d == 0, "channels-last broadcast mul differs by %d", d);
    d = md_code_diff(ct_q_mul(bl, ct_reshape(a, 2, 3, 1, 1), 0.02, 90), "mdl_bc_mul");
    CT_T_REPORT(d == 0, "channels-last broadcast mul (SE second) differs by %d", d);
    /* bad input */
    CHECK_ERR(ct_q_add_scalar(ct_dequantize(xs[0]), 1.0), CT_ERR_DTYPE, "expected a quantized tensor");
    CHECK_ERR(ct_q_mul_scalar(xs[0], NAN), CT_ERR_ARG, "quantized::mul_scalar: the scalar must be finite");
    CHECK_ERR(ct_q_add_scalar(xs[0], 1e12), CT_ERR_ARG, "quantized::add_scalar: value cannot be converted to type int32_t without overflow");
    CHECK_ERR(ct_q_add_scalar(ct_quantize_per_tensor(ct_dequantize(xs[0]), 0.1, 0, CT_QINT32), 1.0), CT_ERR_DTYPE, "got qint32");
    CHECK_ERR(ct_q_hardswish(xs[0], 0.0, 0), CT_ERR_ARG, "quantized::hardswish");
    CHECK_ERR(ct_q_hardswish(NULL, 0.1, 0), CT_ERR_NULL, "quantized::hardswish");
}
TEST(test_float_functional) {
    ct_module *f = ct_nn_float_functional();
    char buf[512];
    ct_module_repr(f, buf, sizeof buf);
    CHECK_STR(buf, "FloatFunctional(\n  (activation_post_process): Identity()\n)");
    int64_t sh[2] = {2, 3};
    ct_tensor *a = ct_arange(0, 6, 1, CT_FLOAT32), *b = ct_full_n(CT_FLOAT32, 2, sh, -2.5);
    a = ct_reshape(a, 2, 3);
    CHECK(ct_equal(ct_ff_add(f, a, b), ct_add(a, b)));
    CHECK(ct_equal(ct_ff_add_relu(f, a, b), ct_relu(ct_add(a, b))));
    CHECK(ct_equal(ct_ff_mul(f, a, b), ct_mul(a, b)));
    CHECK(ct_equal(ct_ff_add_scalar(f, a, 1.5), ct_add_scalar(a, 1.5)));
    CHECK(ct_equal(ct_ff_mul_scalar(f, a, -2.0), ct_mul_scalar(a, -2.0)));
    ct_tensor *ab[2] = {a, b};
    CHECK(ct_equal(ct_ff_cat(f, 2, ab, 1), ct_cat(2, ab, 1)));
    CHECK_ERR(ct_forward(f, a), CT_ERR_STATE, "FloatFunctional is not intended to use the 'forward'");
    ct_tensor *qa = ct_quantize_per_tensor(a, 0.1, 10, CT_QUINT8);
    CHECK_ERR(ct_ff_add(f, qa, qa), CT_ERR_DTYPE, "operand 0 is quantized (QUInt8) but the module is a FloatFunctional");
    CHECK_ERR(ct_ff_add(NULL, a, b), CT_ERR_NULL, "FloatFunctional.add");
    ct_module *lin = ct_nn_linear(2, 2);
    CHECK_ERR(ct_ff_mul(lin, a, b), CT_ERR_ARG, "expected a FloatFunctional or QFunctional module, got Linear");
    ct_module_free(lin);
    /* prepared: the observer records the result; converted: a QFunctional with its parameters */
    ct_module *net = ct_nn_sequential_dict({"ff", f});
    ct_qconfig qc = ct_qconfig_default();
    CHECK_EQ_INT(ct_quant_prepare(net, &qc, NULL), 1);
    CHECK_ERR(ct_quant_prepare(net, &qc, NULL) >= 0, CT_ERR_STATE, "is already prepared");
    CT_NO_GRAD { ct_ff_add(f, a, b); }
    CHECK_EQ_INT(ct_quant_convert(net), 1);
    ct_module *q = ct_module_child(net, "ff");
    ct_module_repr(q, buf, sizeof buf);
    CHECK_STR(buf, "QFunctional(\n  scale=0.03937007859349251, zero_point=64\n  (activation_post_process): Identity()\n)");
    ct_state_dict sd;
    CHECK(ct_module_state_dict(q, &sd) == CT_OK && sd.n == 2 && !strcmp(sd.items[0].name, "scale") &&
          ct_get_dtype(sd.items[1].tensor) == CT_INT64);
    ct_state_dict_free(&sd);
    ct_tensor *qb = ct_quantize_per_tensor(b, 0.1, 10, CT_QUINT8), *y = ct_ff_add(q, qa, qb);
    CHECK(y && ct_equal(ct_int_repr(y), ct_int_repr(ct_q_add(qa, qb, ct_q_scale(y), 64))));
    CHECK(ct_equal(ct_int_repr(ct_ff_mul_scalar(q, qa, 3.0)), ct_int_repr(ct_q_mul_scalar(qa, 3.0))));
    CHECK_ERR(ct_ff_add(q, a, b), CT_ERR_DTYPE, "operand 0 is Float but the module is a QFunctional");
    CHECK_ERR(ct_nnq_functional(-1.0, 0), CT_ERR_ARG, "QFunctional");
    ct_module_free(net);
    ct_module *hs = ct_nnq_hardswish(0.1, 3);
    ct_module_repr(hs, buf, sizeof buf);
    CHECK_STR(buf, "QuantizedHardswish()");
    CHECK(ct_equal(ct_int_repr(ct_forward(hs, qa)), ct_int_repr(ct_q_hardswish(qa, 0.1, 3))));
    ct_module_free(hs);
}
/* float model -> fused, prepared (x86 qconfig), calibrated, converted: the float
   output, the converted model's print and its output against PyTorch's */
static void md_ptq_case(const char *tag, ct_module *net) {
    char nm[96], xn[64];
    CHECK(net && wf_load(net, (snprintf(nm, sizeof nm, "mdl_%s_in_", tag), nm)) == 0);
    if (!net) return;
    ct_module_eval(net);
    snprintf(xn, sizeof xn, "mdl_%s_x", tag);
    snprintf(nm, sizeof nm, "mdl_%s_y_float", tag);
    double d;
    CT_NO_GRAD { d = max_abs_diff(ct_forward(net, qfix(xn)), qfix(nm)); }
    CT_T_REPORT(d < 1e-4, "%s: float model differs from PyTorch's by %g", tag, d);
    CHECK_EQ_INT(qz_fuse(net), CT_OK);
    ct_qconfig qc = ct_qconfig_default_x86();
    CHECK(ct_quant_prepare(net, &qc, NULL) > 0);
    for (int i = 0; i < 3; i++) {
        snprintf(nm, sizeof nm, "mdl_%s_calib%d", tag, i);
        CT_NO_GRAD { CHECK(ct_forward(net, qfix(nm)) != NULL); }
    }
    CHECK(ct_quant_convert(net) > 0);
    static char got[16384], want[16384];
    ct_module_repr(net, got, sizeof got);
    snprintf(nm, sizeof nm, "mdl_%s_converted.txt", tag);
    wf_text(nm, want, sizeof want);
    wf_mask_numbers(got);
    wf_mask_numbers(want);
    CHECK(strlen(want) > 4 && !strcmp(got, want));
    if (strcmp(got, want)) printf("got:\n%s\nwant:\n%s\n", got, want);
    snprintf(nm, sizeof nm, "mdl_%s_fc_qparams", tag);
    ct_tensor *fq = qfix(nm);
    double q = fq ? ((const double *)ct_data_ptr(fq))[0] : 0;
    snprintf(nm, sizeof nm, "mdl_%s_y_quant", tag);
    CT_NO_GRAD { d = max_abs_diff(ct_forward(net, qfix(xn)), qfix(nm)); }
    CT_T_REPORT(d <= q * 1.0001, "%s: converted output differs from PyTorch's by %g (quantum %g)", tag, d, q);
    ct_module_free(net);
}
TEST(test_quantizable_resnet_mobilenet_vs_torch) {
    const int64_t widths[2] = {8, 16};
    md_ptq_case("res", qz_resnet(8, widths, 2, 10));
    const qz_bneck cfg[3] = {{16, 3, 16, 16, 1, 0, 1}, {16, 5, 48, 24, 1, 1, 2}, {24, 3, 72, 24, 0, 0, 1}};
    md_ptq_case("mnv3", qz_mobilenet_v3(cfg, 3, 16, 64, 32, 10));
}
/* a converted model's state dict loads into another converted model of the same
   layout (PyTorch's deployment flow: build, fuse, prepare, convert, load_state_dict):
   the codes and parameters are copied, the packed weights remade */
static ct_module *md_mlp(void) {
    return ct_module_eval(ct_nn_sequential_dict({"quant", ct_nn_quant_stub()}, {"fc1", ct_nn_linear(6, 8)}, {"relu", ct_nn_relu()},
                                                {"fc2", ct_nn_linear(8, 3)}, {"dequant", ct_nn_dequant_stub()}));
}
static ct_module *md_converted(ct_module *net, double range) {
    ct_qconfig qc = ct_qconfig_default_x86();
    CHECK(net && ct_fuse_modules(net, "fc1", "relu") == CT_OK && ct_quant_prepare(net, &qc, NULL) > 0);
    CT_NO_GRAD { ct_forward(net, ct_mul_scalar(ct_randn(CT_FLOAT32, 16, 6), range)); }
    CHECK(ct_quant_convert(net) > 0);
    return net;
}
TEST(test_load_converted_state_dict) {
    ct_manual_seed(3);
    ct_module *a = md_converted(md_mlp(), 1.0), *b = md_converted(md_mlp(), 5.0);
    ct_tensor *x = ct_randn(CT_FLOAT32, 4, 6);
    ct_tensor *ya = ct_forward(a, x), *yb = ct_forward(b, x);
    CHECK(ya && yb && !ct_equal(ya, yb));
    ct_state_dict sd;
    CHECK(ct_module_state_dict(a, &sd) == CT_OK);
    CHECK_EQ_INT(ct_module_load_state_dict(b, &sd, 1), CT_OK);
    ct_state_dict_free(&sd);
    ct_tensor *yb2 = ct_forward(b, x);
    CHECK(yb2 && ct_equal(ya, yb2));
    CHECK(ct_q_scale(ct_module_get(b, "fc1.0.weight")) == ct_q_scale(ct_module_get(a, "fc1.0.weight")) ||
          ct_equal(ct_q_per_channel_scales(ct_module_get(b, "fc1.0.weight")), ct_q_per_channel_scales(ct_module_get(a, "fc1.0.weight"))));
    /* the small ResNet: conv modules (packed weights), QFunctional, Quantize */
    static const int64_t widths[2] = {8, 16};
    ct_module *ra = NULL, *rb = NULL;
    for (int k = 0; k < 2; k++) {
        ct_module *r = ct_module_eval(qz_resnet(8, widths, 2, 10));
        ct_qconfig qc = ct_qconfig_default_x86();
        CHECK(r && qz_fuse(r) == CT_OK && ct_quant_prepare(r, &qc, NULL) > 0);
        CT_NO_GRAD { ct_forward(r, ct_mul_scalar(ct_randn(CT_FLOAT32, 2, 3, 16, 16), k ? 4.0 : 1.0)); }
        CHECK(ct_quant_convert(r) > 0);
        if (k) rb = r;
        else ra = r;
    }
    ct_tensor *xr = ct_randn(CT_FLOAT32, 2, 3, 16, 16);
    ct_tensor *ra_y = ct_forward(ra, xr), *rb_y = ct_forward(rb, xr);
    CHECK(ra_y && rb_y && !ct_equal(ra_y, rb_y));
    CHECK(ct_module_state_dict(ra, &sd) == CT_OK);
    CHECK_EQ_INT(ct_module_load_state_dict(rb, &sd, 1), CT_OK);
    ct_state_dict_free(&sd);
    rb_y = ct_forward(rb, xr);
    CHECK(rb_y && ct_equal(ra_y, rb_y));
    ct_module_free(ra);
    ct_module_free(rb);
    /* copy_ between quantized tensors and its errors */
    ct_tensor *q1 = ct_quantize_per_tensor(ct_randn(CT_FLOAT32, 5), 0.1, 3, CT_QUINT8), *q2 = ct_quantize_per_tensor(ct_randn(CT_FLOAT32, 5), 0.2, 9, CT_QUINT8);
    CHECK(ct_copy_(q2, q1) == q2 && ct_q_scale(q2) == 0.1 && ct_q_zero_point(q2) == 3 && ct_equal(ct_int_repr(q1), ct_int_repr(q2)));
    CHECK_ERR(ct_copy_(ct_zeros(CT_FLOAT32, 5), q1), CT_ERR_DTYPE, "Copying from quantized Tensor to non-quantized Tensor is not allowed");
    CHECK_ERR(ct_copy_(q1, ct_zeros(CT_FLOAT32, 5)), CT_ERR_DTYPE, "copying a Float tensor into a quantized one is not supported");
    CHECK_ERR(ct_copy_(q1, ct_quantize_per_tensor(ct_zeros(CT_FLOAT32, 5), 0.1, 0, CT_QINT8)), CT_ERR_DTYPE, "the same quantized dtype");
    CHECK_ERR(ct_copy_(q1, ct_quantize_per_tensor(ct_zeros(CT_FLOAT32, 4), 0.1, 0, CT_QUINT8)), CT_ERR_SHAPE, "needs equal shapes");
    ct_module_free(a);
    ct_module_free(b);
}
/* "zero_point=<int>" -> "zero_point=#" */
static void md_mask_zero_points(char *t) {
    for (char *p = strstr(t, "zero_point="); p; p = strstr(p + 1, "zero_point=")) {
        char *q = p + strlen("zero_point="), *e = q;
        while (*e == '-' || (*e >= '0' && *e <= '9')) e++;
        if (e == q) continue;
        *q = '#';
        memmove(q + 1, e, strlen(e) + 1);
    }
}
/* QAT of the small MobileNetV3: Hardsigmoid gets the fixed-parameter fake
   quantization, two SGD steps, convert: prints, losses and output against PyTorch.
   The tolerances are wider than the small nets' (1e-5): the float convolutions
   differ from PyTorch's in the last bit, an observer's maximum with them, and so a
   fake-quantization scale by one ulp, which moves thousands of values by one ulp
   and some across a rounding boundary: 0.1 % in the first loss here (disabling the
   fake quantization of any one of the squeeze-excitation's Hardsigmoid or mul
   gives PyTorch's loss to 1e-7), zero points one apart after two steps. */
TEST(test_qat_mobilenet_vs_torch) {
    const qz_bneck cfg[3] = {{16, 3, 16, 16, 1, 0, 1}, {16, 5, 48, 24, 1, 1, 2}, {24, 3, 72, 24, 0, 0, 1}};
    ct_module *net = qz_mobilenet_v3(cfg, 3, 16, 64, 32, 10);
    CHECK(net && wf_load(net, "mdl_mq_in_") == 0);
    if (!net) return;
    ct_module_train(net, 1);
    CHECK_EQ_INT(qz_fuse_qat(net), CT_OK);
    ct_qconfig qc = ct_qat_qconfig_default_x86();
    CHECK(ct_quant_prepare_qat(net, &qc, NULL) > 0);
    ct_module_eval(ct_module_child(net, "classifier.2"));   /* the Dropout off, as the fixture's */
    static char got[65536], want[65536];
    ct_module_repr(net, got, sizeof got);
    wf_text("mdl_mq_prepared.txt", want, sizeof want);
    wf_mask_numbers(got);
    wf_mask_numbers(want);
    CHECK(strlen(want) > 4 && !strcmp(got, want));
    if (strcmp(got, want)) printf("got:\n%s\nwant:\n%s\n", got, want);
    ct_sgd_options so;
    memset(&so, 0, sizeof so);
    so.lr = 0.01;
    ct_optimizer *opt = ct_optim_sgd(net, &so);
    ct_tensor *losses = qfix("mdl_mq_losses");
    for (int step = 0; step < 2 && opt && losses; step++) CT_SCOPE {
        char xn[32], tn[32];
        snprintf(xn, sizeof xn, "mdl_mq_x%d", step);
        snprintf(tn, sizeof tn, "mdl_mq_t%d", step);
        ct_tensor *loss = ct_mse_loss(ct_mul_scalar(ct_forward(net, qfix(xn)), 10.0), qfix(tn), NULL);
        ct_zero_grad(opt);
        CHECK(loss && ct_backward(loss) == CT_OK && ct_step(opt) == CT_OK);
        double e = ((const double *)ct_data_ptr(losses))[step];
        CT_T_REPORT(loss && fabs(ct_item(loss) - e) <= 5e-3 * e, "QAT MobileNet step %d: loss %.9g, PyTorch %.9g", step, loss ? ct_item(loss) : NAN, e);
    }
    ct_optim_free(opt);
    ct_module_eval(net);
    CHECK(ct_quant_convert(net) > 0);
    ct_module_repr(net, got, sizeof got);
    wf_text("mdl_mq_converted.txt", want, sizeof want);
    wf_mask_numbers(got);
    wf_mask_numbers(want);
    md_mask_zero_points(got);
    md_mask_zero_points(want);
    CHECK(strlen(want) > 4 && !strcmp(got, want));
    if (strcmp(got, want)) printf("got:\n%s\nwant:\n%s\n", got, want);
    ct_tensor *fq = qfix("mdl_mq_fc_qparams");
    double q = fq ? ((const double *)ct_data_ptr(fq))[0] : 0, d;
    CT_NO_GRAD { d = max_abs_diff(ct_forward(net, qfix("mdl_mq_xtest")), qfix("mdl_mq_ytest")); }
    CT_T_REPORT(d <= 2 * q * 1.0001, "QAT MobileNet: converted output differs from PyTorch's by %g (quantum %g)", d, q);
    ct_module_free(net);
    /* the module on its own */
    ct_module *f = ct_fixed_qparams_fake_quantize(1.0 / 256, 0, CT_QUINT8, 0, 255);
    ct_tensor *x = ct_linspace(-0.5, 1.5, 9, CT_FLOAT32);
    CHECK(f && ct_equal(ct_forward(f, x), ct_fake_quantize_per_tensor_affine(x, 1.0 / 256, 0, 0, 255)));
    CHECK_EQ_INT(ct_fake_quantize_enable_fake_quant(f, 0), 1);
    CHECK(ct_forward(f, x) == x);
    ct_module_free(f);
    CHECK_ERR(ct_fixed_qparams_fake_quantize(0.1, 0, CT_QINT32, 0, 255), CT_ERR_DTYPE, "FixedQParamsFakeQuantize: dtype must be quint8 or qint8");
    CHECK_ERR(ct_fixed_qparams_fake_quantize(0.1, 0, CT_QUINT8, 0, 300), CT_ERR_ARG, "quant_max 300");
}
static void run_quant_models_tests(void) {
    RUN(test_qat_mobilenet_vs_torch);
    RUN(test_load_converted_state_dict);
    RUN(test_q_scalar_ops_vs_torch);
    RUN(test_float_functional);
    RUN(test_quantizable_resnet_mobilenet_vs_torch);
}
