/* observers, fake quantization, qconfigs: values against
   tests/fixtures/quant/obs_*.npy (tests/reference/quant_fixtures_observer.py) */

/* a fixture compared exactly (tol 0) or within tol with t */
static void qobs_check(const ct_tensor *t, const char *fixture, double tol, const char *what) {
    ct_tensor *e = qfix(fixture);
    if (!e || !t) {
        CT_T_REPORT(0, "%s: %s", what, t ? "fixture missing" : ct_last_error());
        return;
    }
    int ok = ct_numel(t) == ct_numel(e);
    long long bad = -1;
    double gv = 0, ev = 0;
    if (ok) {
        ct_tensor *a = ct_contiguous(ct_to(t, CT_FLOAT64)), *b = ct_contiguous(ct_to(e, CT_FLOAT64));
        const double *pa = (const double *)ct_data_ptr(a), *pb = (const double *)ct_data_ptr(b);
        for (int64_t i = 0; i < ct_numel(a); i++) {
            int same = pa[i] == pb[i] || (isnan(pa[i]) && isnan(pb[i])) || fabs(pa[i] - pb[i]) <= tol * (1 + fabs(pb[i]));
            if (!same) { ok = 0; bad = (long long)i; gv = pa[i]; ev = pb[i]; break; }
        }
    }
    CT_T_REPORT(ok, "%s vs %s: %s (element %lld: got %.10g, expected %.10g)", what, fixture,
                ct_numel(t) == ct_numel(e) ? "mismatch" : "numel differs", bad, gv, ev);
}

/* small tensors without compound literals (the file also compiles as C++) */
static ct_tensor *qobs_f32(const float *d, int64_t n) { return ct_from_data_n(d, CT_FLOAT32, 1, &n); }
static ct_tensor *qobs_zeros(ct_dtype dt, int64_t a, int64_t b) {
    int64_t sh[2] = {a, b};
    return ct_zeros_n(dt, b < 0 ? 1 : 2, sh);
}
static ct_tensor *qobs_full(ct_dtype dt, int64_t n, double v) { return ct_full_n(dt, 1, &n, v); }
#define QOBS_VALUES(t, n, ...)                       \
    do {                                             \
        const double qobs_e[] = {__VA_ARGS__};       \
        CHECK_VALUES(t, qobs_e, n, 0);               \
    } while (0)
static ct_status ct_bw1(ct_tensor *y, ct_tensor *g) {
    ct_tensor *r[1] = {y}, *go[1] = {g};
    return ct_backward_ex(1, r, go, NULL);
}

/* ---- fake quantization ---- */
TEST(test_fq_per_tensor) {
    ct_tensor *x = qfix("obs_fq_x"), *g = qfix("obs_fq_g");
    const double sc[] = {0.5, 0.1, 0.37, 1e-3, 1e-3};   /* the last: codes beyond float's exact integers */
    const int64_t zp[] = {3, 128, 0, -5, 7}, qmin[] = {-128, 0, 0, -1000, INT32_MIN}, qmax[] = {127, 255, 15, 1000, INT32_MAX};
    for (int k = 0; k < 5; k++) {
        char name[64];
        ct_tensor *xx = ct_requires_grad(ct_detach(x));
        ct_tensor *y = ct_fake_quantize_per_tensor_affine(xx, sc[k], zp[k], qmin[k], qmax[k]);
        snprintf(name, sizeof name, "obs_fq_pt%d_y", k);
        qobs_check(y, name, 0, "fake_quantize_per_tensor_affine");
        CHECK(y && ct_get_dtype(y) == CT_FLOAT32);
        CHECK(ct_bw1(y, g) == CT_OK);
        snprintf(name, sizeof name, "obs_fq_pt%d_gx", k);
        qobs_check(ct_grad(xx), name, 0, "fake_quantize_per_tensor_affine grad");
    }
    /* float64 */
    ct_tensor *xd = ct_requires_grad(ct_to(ct_detach(x), CT_FLOAT64));
    ct_tensor *yd = ct_fake_quantize_per_tensor_affine(xd, 0.1, 128, 0, 255);
    CHECK(yd && ct_get_dtype(yd) == CT_FLOAT64);
    qobs_check(yd, "obs_fq_ptd_y", 0, "fake_quantize_per_tensor_affine float64");
    CHECK(ct_bw1(yd, ct_to(g, CT_FLOAT64)) == CT_OK);
    qobs_check(ct_grad(xd), "obs_fq_ptd_gx", 0, "fake_quantize_per_tensor_affine float64 grad");
    /* exact small cases: ties to even, clamping */
    float xs[] = {0.25f, 0.75f, -0.25f, 1.25f, 100.f, -100.f};
    ct_tensor *t = qobs_f32(xs, 6);
    QOBS_VALUES(ct_fake_quantize_per_tensor_affine(t, 0.5, 0, -4, 4), 6, 0, 1, 0, 1, 2, -2);
}
TEST(test_fq_per_channel) {
    ct_tensor *x = qfix("obs_fq_pc_x"), *g = qfix("obs_fq_pc_g");
    for (int axis = 0; axis < 3; axis++) {
        char name[64];
        snprintf(name, sizeof name, "obs_fq_pc%d_scale", axis);
        ct_tensor *s = qfix(name);
        snprintf(name, sizeof name, "obs_fq_pc%d_zp", axis);
        ct_tensor *z = qfix(name);
        ct_tensor *xx = ct_requires_grad(ct_detach(x));
        ct_tensor *y = ct_fake_quantize_per_channel_affine(xx, s, z, axis, -30, 30);
        snprintf(name, sizeof name, "obs_fq_pc%d_y", axis);
        qobs_check(y, name, 0, "fake_quantize_per_channel_affine");
        CHECK(ct_bw1(y, g) == CT_OK);
        snprintf(name, sizeof name, "obs_fq_pc%d_gx", axis);
        qobs_check(ct_grad(xx), name, 0, "fake_quantize_per_channel_affine grad");
        /* int64 zero points and a negative axis give the same */
        ct_tensor *y2 = ct_fake_quantize_per_channel_affine(x, s, ct_to(z, CT_INT64), axis - 3, -30, 30);
        snprintf(name, sizeof name, "obs_fq_pc%d_y", axis);
        qobs_check(y2, name, 0, "fake_quantize_per_channel_affine (int64 zp, negative axis)");
    }
}
/* NaN, infinities, values beyond int64: as PyTorch's x86 build gives them */
TEST(test_fq_special_values) {
    ct_tensor *x = qfix("obs_fq_sp_x");
    ct_tensor *s = qobs_full(CT_FLOAT32, 1, 0.5), *z = qobs_full(CT_INT32, 1, 3);
    for (int d = 0; d < 2; d++) {
        ct_tensor *xx = ct_requires_grad(ct_to(x, d ? CT_FLOAT64 : CT_FLOAT32));
        ct_tensor *y = ct_fake_quantize_per_tensor_affine(xx, 0.5, 3, -128, 127);
        qobs_check(y, d ? "obs_fq_spd_y" : "obs_fq_spf_y", 0, "fake_quantize_per_tensor_affine, special values");
        CHECK(y && ct_backward(ct_sum(y)) == CT_OK);
        qobs_check(ct_grad(xx), d ? "obs_fq_spd_gx" : "obs_fq_spf_gx", 0, "fake_quantize_per_tensor_affine grad, special values");
        qobs_check(ct_fake_quantize_per_channel_affine(ct_detach(xx), s, z, 0, -128, 127), d ? "obs_fq_spd_pcy" : "obs_fq_spf_pcy", 0,
                   "fake_quantize_per_channel_affine, special values");
    }
}
TEST(test_fq_per_channel_float_zp) {
    ct_tensor *x = qfix("obs_fq_pc_x"), *g = qfix("obs_fq_pc_g"), *s = qfix("obs_fq_pcf_scale"), *z = qfix("obs_fq_pcf_zp");
    for (int d = 0; d < 2; d++) {
        ct_tensor *xx = ct_requires_grad(ct_to(x, d ? CT_FLOAT64 : CT_FLOAT32));
        ct_tensor *y = ct_fake_quantize_per_channel_affine(xx, s, z, 1, 0, 20);
        qobs_check(y, d ? "obs_fq_pcfd_y" : "obs_fq_pcff_y", 0, "fake_quantize_per_channel_affine, float zero points");
        CHECK(y && ct_bw1(y, ct_to(g, d ? CT_FLOAT64 : CT_FLOAT32)) == CT_OK);
        qobs_check(ct_grad(xx), d ? "obs_fq_pcfd_gx" : "obs_fq_pcff_gx", 0, "fake_quantize_per_channel_affine grad, float zero points");
    }
}
TEST(test_fq_errors) {
    ct_tensor *x = qobs_zeros(CT_FLOAT32, 3, 4);
    CHECK_ERR(ct_fake_quantize_per_tensor_affine(x, 0.1, 0, 10, 5), CT_ERR_ARG, "`quant_min` should be less than or equal to `quant_max`");
    CHECK_ERR(ct_fake_quantize_per_tensor_affine(x, 0.1, 300, 0, 255), CT_ERR_ARG, "`zero_point` must be between `quant_min` and `quant_max`");
    CHECK_ERR(ct_fake_quantize_per_tensor_affine(qobs_zeros(CT_INT64, 3, -1), 0.1, 0, 0, 255), CT_ERR_DTYPE,
              "fake_quantize_per_tensor_affine: expected a float32 or float64 input, got");
    ct_tensor *s = qobs_full(CT_FLOAT32, 3, 0.1), *z = qobs_zeros(CT_INT32, 3, -1);
    CHECK(ct_fake_quantize_per_channel_affine(x, s, z, 0, 0, 255) != NULL);
    CHECK_ERR(ct_fake_quantize_per_channel_affine(x, s, z, 1, 0, 255), CT_ERR_SHAPE, "not consistent with input tensor");
    CHECK_ERR(ct_fake_quantize_per_channel_affine(x, s, z, 2, 0, 255), CT_ERR_ARG, "`axis` must be between 0 and number of dimensions");
    CHECK_ERR(ct_fake_quantize_per_channel_affine(x, s, z, 0, 5, 1), CT_ERR_ARG, "`quant_min` should be less than or equal");
    CHECK_ERR(ct_fake_quantize_per_channel_affine(x, s, qobs_full(CT_INT32, 3, -1), 0, 0, 255), CT_ERR_ARG,
              "`zero_point` must be between `quant_min` and `quant_max` (channel 0 has -1");
    CHECK_ERR(ct_fake_quantize_per_channel_affine(x, qobs_zeros(CT_INT32, 3, -1), z, 0, 0, 255), CT_ERR_DTYPE, "Scale must be Float");
    CHECK_ERR(ct_fake_quantize_per_channel_affine(x, s, qobs_zeros(CT_BOOL, 3, -1), 0, 0, 255), CT_ERR_DTYPE,
              "Zero-point must be Int32, Int64 or Float, found Bool");
    CHECK_ERR(ct_fake_quantize_per_channel_affine(qobs_zeros(CT_UINT8, 3, 4), s, z, 0, 0, 255), CT_ERR_DTYPE,
              "expected a float32 or float64 input");
}
/* the straight-through rule is an op rule: second-order use (create_graph) and a
   chain through other ops work as for any op */
TEST(test_fq_grad_chain) {
    float xs[] = {0.2f, 0.7f, 3.0f, -3.0f};
    ct_tensor *x = ct_requires_grad(qobs_f32(xs, 4));
    ct_tensor *y = ct_sum(ct_mul(ct_fake_quantize_per_tensor_affine(x, 0.25, 0, -8, 8), qobs_full(CT_FLOAT32, 4, 3.0)));
    CHECK(ct_backward(y) == CT_OK);
    QOBS_VALUES(ct_grad(x), 4, 3, 3, 0, 0);
}

/* ---- observers: the cases of quant_fixtures_observer.py's CASES, same order ---- */
typedef struct {
    const char *name;
    ct_observer_kind kind;
    ct_observer_options opt;
    const char *inputs;
    int ninputs;
} qobs_case;
static qobs_case qobs_cases(int k) {
    qobs_case c;
    memset(&c, 0, sizeof c);
#define QOBS_CASE(i, nm, kd, in, nin) case i: c.name = nm; c.kind = kd; c.inputs = in; c.ninputs = nin;
    switch (k) {
    QOBS_CASE(0, "mm_post", CT_MINMAX_OBSERVER, "post", 2) break;
    QOBS_CASE(1, "ma_post", CT_MOVING_AVERAGE_MINMAX_OBSERVER, "post", 2) break;
    QOBS_CASE(2, "hist_post", CT_HISTOGRAM_OBSERVER, "post", 2) break;
    QOBS_CASE(3, "masym_post", CT_MOVING_AVERAGE_MINMAX_OBSERVER, "post", 2) c.opt.qscheme = CT_PER_TENSOR_SYMMETRIC; break;
    QOBS_CASE(4, "mapc_post", CT_MOVING_AVERAGE_PER_CHANNEL_MINMAX_OBSERVER, "post", 2) break;
    QOBS_CASE(5, "mm_sym_i8", CT_MINMAX_OBSERVER, "three", 3) c.opt.dtype = CT_QINT8; c.opt.qscheme = CT_PER_TENSOR_SYMMETRIC; break;
    QOBS_CASE(6, "mm_rr_u8", CT_MINMAX_OBSERVER, "three", 3) c.opt.reduce_range = 1; break;
    QOBS_CASE(7, "mm_rr_i8", CT_MINMAX_OBSERVER, "three", 3) c.opt.dtype = CT_QINT8; c.opt.reduce_range = 1; break;
    QOBS_CASE(8, "mm_q015", CT_MINMAX_OBSERVER, "three", 3) c.opt.quant_min = 0; c.opt.quant_max = 15; break;
    QOBS_CASE(9, "mm_symq", CT_MINMAX_OBSERVER, "three", 3) c.opt.qscheme = CT_PER_TENSOR_SYMMETRIC; c.opt.quant_max = 100; break;
    QOBS_CASE(10, "mm_pos", CT_MINMAX_OBSERVER, "pos", 2) break;
    QOBS_CASE(11, "mm_tiny", CT_MINMAX_OBSERVER, "tiny", 1) c.opt.dtype = CT_QINT8; break;
    QOBS_CASE(12, "ma_i8_rr", CT_MOVING_AVERAGE_MINMAX_OBSERVER, "three", 3)
        c.opt.dtype = CT_QINT8; c.opt.reduce_range = 1; c.opt.averaging_constant = 0.25; break;
    QOBS_CASE(13, "pc_a1", CT_PER_CHANNEL_MINMAX_OBSERVER, "three", 3) c.opt.ch_axis = 1; break;
    QOBS_CASE(14, "pc_a2_sym", CT_PER_CHANNEL_MINMAX_OBSERVER, "three", 3)
        c.opt.ch_axis = 2; c.opt.dtype = CT_QINT8; c.opt.qscheme = CT_PER_CHANNEL_SYMMETRIC; break;
    QOBS_CASE(15, "pc_a0_rr", CT_PER_CHANNEL_MINMAX_OBSERVER, "three", 3) c.opt.reduce_range = 1; break;
    QOBS_CASE(16, "pc_float", CT_PER_CHANNEL_MINMAX_OBSERVER, "three", 3) c.opt.qscheme = CT_PER_CHANNEL_AFFINE_FLOAT_QPARAMS; break;
    QOBS_CASE(17, "mapc_a1", CT_MOVING_AVERAGE_PER_CHANNEL_MINMAX_OBSERVER, "three", 3) c.opt.ch_axis = 1; c.opt.averaging_constant = 0.5; break;
    QOBS_CASE(18, "mapc_neg", CT_MOVING_AVERAGE_PER_CHANNEL_MINMAX_OBSERVER, "three", 3)
        c.opt.ch_axis = -1; c.opt.dtype = CT_QINT8; c.opt.qscheme = CT_PER_CHANNEL_SYMMETRIC; break;
    QOBS_CASE(19, "hist_three", CT_HISTOGRAM_OBSERVER, "three", 3) break;
    QOBS_CASE(20, "hist_rr", CT_HISTOGRAM_OBSERVER, "wide", 4) c.opt.reduce_range = 1; break;
    QOBS_CASE(21, "hist_sym", CT_HISTOGRAM_OBSERVER, "wide", 4) c.opt.qscheme = CT_PER_TENSOR_SYMMETRIC; c.opt.dtype = CT_QINT8; break;
    QOBS_CASE(22, "hist_wide", CT_HISTOGRAM_OBSERVER, "wide", 4) break;
    QOBS_CASE(23, "hist_small", CT_HISTOGRAM_OBSERVER, "wide", 4) c.opt.bins = 256; c.opt.upsample_rate = 16; break;
    QOBS_CASE(24, "hist_unit", CT_HISTOGRAM_OBSERVER, "unit", 2) break;
    QOBS_CASE(25, "hist_pos", CT_HISTOGRAM_OBSERVER, "pos", 2) c.opt.quant_max = 127; break;
    QOBS_CASE(26, "hist_const", CT_HISTOGRAM_OBSERVER, "const", 2) break;
    QOBS_CASE(27, "hist_shrink", CT_HISTOGRAM_OBSERVER, "shrink", 3) break;
    default: break;
    }
#undef QOBS_CASE
    if (k >= 28 && k < 34) {   /* the default qconfigs' observers */
        static const char *const names[] = {"qc_x86_act", "qc_x86_w", "qc_arm_act", "qc_arm_w", "qc_def_act", "qc_dyn_w"};
        ct_qconfig q = k < 30 ? ct_qconfig_default_x86() : k < 32 ? ct_qconfig_default_arm() : k == 32 ? ct_qconfig_default()
                                                                                                  : ct_qconfig_default_dynamic();
        ct_observer_factory f = k % 2 == 0 && k != 33 ? q.activation : q.weight;
        c.name = names[k - 28];
        c.kind = f.kind;
        c.opt = f.options;
        c.inputs = k == 28 || k == 30 ? "wide" : "three";
        c.ninputs = k == 28 || k == 30 ? 4 : 3;
    }
    return c;
}
#define QOBS_NCASES 34
TEST(test_observers_vs_pytorch) {
    for (int k = 0; k < QOBS_NCASES; k++) {
        qobs_case c = qobs_cases(k);
        char name[96], what[96];
        ct_module *obs = ct_observer_new(c.kind, &c.opt);
        CT_T_REPORT(obs != NULL, "%s: %s", c.name, ct_last_error());
        if (!obs) continue;
        for (int i = 0; i < c.ninputs; i++) {
            snprintf(name, sizeof name, "obs_in_%s_x%d", c.inputs, i);
            ct_tensor *x = qfix(name);
            ct_tensor *y = ct_forward(obs, x);
            CT_T_REPORT(y == x, "%s: forward returns its input (%s)", c.name, ct_last_error());
        }
        ct_tensor *s = NULL, *z = NULL;
        int rc = ct_observer_calculate_qparams(obs, &s, &z);
        CT_T_REPORT(rc == 0, "%s: calculate_qparams %d (%s)", c.name, rc, ct_last_error());
        snprintf(what, sizeof what, "%s scale", c.name);
        snprintf(name, sizeof name, "obs_%s_scale", c.name);
        qobs_check(s, name, 0, what);
        snprintf(what, sizeof what, "%s zero_point", c.name);
        snprintf(name, sizeof name, "obs_%s_zp", c.name);
        qobs_check(z, name, 0, what);
        snprintf(what, sizeof what, "%s min_val", c.name);
        snprintf(name, sizeof name, "obs_%s_min", c.name);
        qobs_check(ct_module_get(obs, "min_val"), name, 0, what);
        snprintf(what, sizeof what, "%s max_val", c.name);
        snprintf(name, sizeof name, "obs_%s_max", c.name);
        qobs_check(ct_module_get(obs, "max_val"), name, 0, what);
        if (c.kind == CT_HISTOGRAM_OBSERVER) {
            snprintf(what, sizeof what, "%s histogram", c.name);
            snprintf(name, sizeof name, "obs_%s_hist", c.name);
            qobs_check(ct_module_get(obs, "histogram"), name, 0, what);
        }
        ct_module_free(obs);
    }
}

/* FakeQuantize modules (and the QAT qconfigs' ones) against PyTorch's over three steps */
TEST(test_fake_quantize_module) {
    static const char *const names[] = {"fqm_act", "fqm_wpc", "fqm_toggle", "qat_x86_act", "qat_x86_w", "qat_arm_w", "fqm_emb"};
    for (int k = 0; k < 7; k++) {
        ct_module *fq = NULL;
        ct_observer_options o;
        memset(&o, 0, sizeof o);
        if (k == 0 || k == 2) {
            o.quant_min = 0;
            o.quant_max = 255;
            o.reduce_range = 1;
            fq = ct_fake_quantize(CT_MOVING_AVERAGE_MINMAX_OBSERVER, &o);
        } else if (k == 1) {
            o.dtype = CT_QINT8;
            o.qscheme = CT_PER_CHANNEL_SYMMETRIC;
            o.quant_min = -128;
            o.quant_max = 127;
            fq = ct_fake_quantize(CT_MOVING_AVERAGE_PER_CHANNEL_MINMAX_OBSERVER, &o);
        } else if (k == 6) {   /* default_embedding_fake_quant */
            o.qscheme = CT_PER_CHANNEL_AFFINE_FLOAT_QPARAMS;
            o.quant_max = 255;
            o.averaging_constant = 1;
            fq = ct_fake_quantize(CT_MOVING_AVERAGE_PER_CHANNEL_MINMAX_OBSERVER, &o);
        } else {
            ct_qconfig q = k == 5 ? ct_qat_qconfig_default_arm() : ct_qat_qconfig_default_x86();
            fq = ct_observer_factory_make(k == 3 ? &q.activation : &q.weight);
        }
        CT_T_REPORT(fq && ct_is_fake_quantize(fq), "%s: %s", names[k], ct_last_error());
        if (!fq) continue;
        for (int i = 0; i < 3; i++) {
            char name[96], what[96];
            if (k == 2 && i == 1) CHECK_EQ_INT(ct_fake_quantize_enable_observer(fq, 0), 1);
            if (k == 2 && i == 2) CHECK_EQ_INT(ct_fake_quantize_enable_fake_quant(fq, 0), 1);
            snprintf(name, sizeof name, "obs_in_three_x%d", i);
            ct_tensor *x = ct_requires_grad(ct_detach(qfix(name)));
            ct_tensor *y = ct_forward(fq, x);
            snprintf(name, sizeof name, "obs_%s_y%d", names[k], i);
            snprintf(what, sizeof what, "%s forward %d", names[k], i);
            qobs_check(y, name, 0, what);
            snprintf(name, sizeof name, "obs_fqm_g%d", i);
            CHECK(y && ct_bw1(y, qfix(name)) == CT_OK);
            snprintf(name, sizeof name, "obs_%s_gx%d", names[k], i);
            snprintf(what, sizeof what, "%s gradient %d", names[k], i);
            qobs_check(ct_grad(x), name, 0, what);
        }
        char name[96];
        snprintf(name, sizeof name, "obs_%s_scale", names[k]);
        qobs_check(ct_module_get(fq, "scale"), name, 0, "FakeQuantize scale");
        snprintf(name, sizeof name, "obs_%s_zp", names[k]);
        qobs_check(ct_module_get(fq, "zero_point"), name, 0, "FakeQuantize zero_point");
        CHECK_EQ_INT(ct_get_dtype(ct_module_get(fq, "zero_point")), k == 6 ? CT_FLOAT32 : CT_INT32);
        ct_tensor *s = NULL, *z = NULL;
        CHECK(ct_fake_quant_module_calculate_qparams(fq, &s, &z) == 0 && s && z);
        ct_module_free(fq);
    }
}

/* state dict keys as PyTorch's (obs_state_keys.txt), a load round trip */
static void qobs_keys(const ct_module *m, char *buf, size_t cap) {
    ct_state_dict sd;
    buf[0] = 0;
    if (ct_module_state_dict(m, &sd)) return;
    for (int i = 0; i < sd.n; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, cap - l, "%s%s", i ? "," : "", sd.items[i].name);
    }
    ct_state_dict_free(&sd);
}
TEST(test_observer_state_dict) {
    static const char *const expected[] = {
        "MinMaxObserver eps,min_val,max_val",
        "MovingAverageMinMaxObserver eps,min_val,max_val",
        "PerChannelMinMaxObserver eps,min_val,max_val",
        "MovingAveragePerChannelMinMaxObserver eps,min_val,max_val",
        "HistogramObserver eps,histogram,min_val,max_val",
        "PlaceholderObserver ",
        "FakeQuantize fake_quant_enabled,observer_enabled,scale,zero_point,activation_post_process.eps,activation_post_process.min_val,activation_post_process.max_val",
    };
    FILE *f = fopen(CT_QUANT_FIXTURES "/obs_state_keys.txt", "r");
    CHECK(f != NULL);
    for (int k = 0; k < 7; k++) {
        char line[512] = "", got[512], keys[400];
        if (f && fgets(line, sizeof line, f)) line[strcspn(line, "\n")] = 0;
        CHECK_STR(line, expected[k]);
        ct_module *m = k < 6 ? ct_observer_new((ct_observer_kind)k, NULL) : ct_fake_quantize(CT_MOVING_AVERAGE_MINMAX_OBSERVER, NULL);
        qobs_keys(m, keys, sizeof keys);
        snprintf(got, sizeof got, "%s %s", m ? m->type->name : "?", keys);
        CHECK_STR(got, expected[k]);
        ct_module_free(m);
    }
    if (f) fclose(f);
    /* a trained observer's state loads into a fresh one and gives the same qparams */
    ct_module *a = ct_histogram_observer(NULL), *b = ct_histogram_observer(NULL);
    ct_forward(a, qfix("obs_in_wide_x0"));
    ct_forward(a, qfix("obs_in_wide_x1"));
    ct_state_dict sd;
    CHECK(ct_module_state_dict(a, &sd) == CT_OK);
    CHECK(ct_module_load_state_dict(b, &sd, 1) == CT_OK);
    ct_state_dict_free(&sd);
    double s1 = 0, s2 = 0;
    int64_t z1 = 0, z2 = 0;
    CHECK(ct_observer_calculate_qparams_per_tensor(a, &s1, &z1) == 0);
    CHECK(ct_observer_calculate_qparams_per_tensor(b, &s2, &z2) == 0);
    CHECK(s1 == s2 && z1 == z2 && s1 > 0);
    ct_module_free(a);
    ct_module_free(b);
    /* per-channel state (observer and FakeQuantize) into fresh modules: shapes follow the checkpoint */
    ct_observer_options po;
    memset(&po, 0, sizeof po);
    po.dtype = CT_QINT8;
    po.qscheme = CT_PER_CHANNEL_SYMMETRIC;
    ct_module *fa = ct_fake_quantize(CT_MOVING_AVERAGE_PER_CHANNEL_MINMAX_OBSERVER, &po),
              *fb = ct_fake_quantize(CT_MOVING_AVERAGE_PER_CHANNEL_MINMAX_OBSERVER, &po);
    ct_forward(fa, qfix("obs_in_three_x0"));
    CHECK(ct_module_state_dict(fa, &sd) == CT_OK);
    CHECK_ERR(ct_module_load_state_dict(fb, &sd, 1) == CT_OK, CT_ERR_SHAPE, "size mismatch for scale");
    CHECK(ct_quant_load_state_dict(fb, &sd, 1) == CT_OK);
    ct_state_dict_free(&sd);
    ct_tensor *ta = NULL, *za = NULL, *tb = NULL, *zb = NULL;
    CHECK(ct_fake_quant_module_calculate_qparams(fa, &ta, &za) == 0 && ct_fake_quant_module_calculate_qparams(fb, &tb, &zb) == 0);
    CHECK(ta && tb && ct_numel(tb) == 3 && ct_item(ct_max(ct_abs(ct_sub(ta, tb)))) == 0);
    CHECK_EQ_INT(ct_numel(ct_module_get(fb, "scale")), 3);
    ct_module_free(fa);
    ct_module_free(fb);
    /* observers live in models: a Sequential's state dict names them */
    ct_module *mods[2] = {ct_nn_linear(4, 3), ct_minmax_observer(NULL)};
    ct_module *seq = ct_nn_sequential_n(2, mods);
    char keys[400];
    qobs_keys(seq, keys, sizeof keys);
    CHECK_STR(keys, "0.weight,0.bias,1.eps,1.min_val,1.max_val");
    ct_module_free(seq);
}

/* the empty-observer case, reset, the placeholder, accessors */
TEST(test_observer_misc) {
    for (int k = 0; k < 5; k++) {
        ct_module *o = ct_observer_new((ct_observer_kind)k, NULL);
        ct_tensor *s = NULL, *z = NULL;
        CHECK_EQ_INT(ct_observer_calculate_qparams(o, &s, &z), 1);   /* PyTorch warns, returns [1.0], [0] */
        QOBS_VALUES(s, 1, 1.0);
        QOBS_VALUES(z, 1, 0.0);
        CHECK(ct_forward(o, qobs_zeros(CT_FLOAT32, 0, -1)) != NULL);   /* empty input: nothing recorded */
        CHECK_EQ_INT(ct_observer_calculate_qparams(o, &s, &z), 1);
        ct_module_free(o);
    }
    ct_module *o = ct_minmax_observer(NULL);
    float xs[] = {-1.0f, 2.0f, 0.5f};
    ct_tensor *x = qobs_f32(xs, 3);
    double s = 0;
    int64_t z = -1, qmin = 0, qmax = 0;
    CHECK(ct_forward(o, x) == x);
    CHECK_EQ_INT(ct_observer_calculate_qparams_per_tensor(o, &s, &z), 0);
    CHECK_CLOSE(s, (double)(3.0f / 255.0f), 0);
    CHECK_EQ_INT(z, 85);
    CHECK(ct_observer_qrange(o, &qmin, &qmax) == 0 && qmin == 0 && qmax == 255);
    CHECK_EQ_INT(ct_observer_dtype(o), CT_QUINT8);
    CHECK_EQ_INT(ct_observer_qscheme(o), CT_PER_TENSOR_AFFINE);
    CHECK(ct_observer_reset_min_max_vals(o) == CT_OK);
    CHECK_EQ_INT(ct_observer_calculate_qparams_per_tensor(o, &s, &z), 1);
    /* integer and float64 inputs are read as float32 */
    CHECK(ct_forward(o, ct_to(x, CT_FLOAT64)) != NULL && ct_forward(o, ct_to(x, CT_INT32)) != NULL);
    QOBS_VALUES(ct_module_get(o, "min_val"), 1, -1.0);
    ct_module_free(o);
    ct_module *pc = ct_per_channel_minmax_observer(NULL);
    CHECK(ct_forward(pc, qobs_zeros(CT_FLOAT32, 3, 2)) != NULL);
    CHECK_EQ_INT(ct_numel(ct_module_get(pc, "min_val")), 3);
    CHECK_ERR(ct_forward(pc, qobs_zeros(CT_FLOAT32, 4, 2)), CT_ERR_SHAPE, "the input has 4 channels along ch_axis 0, the observer has seen 3");
    CHECK_ERR(ct_observer_calculate_qparams_per_tensor(pc, &s, &z) >= 0, CT_ERR_ARG, "a per-channel observer has one scale per channel");
    CHECK(ct_observer_reset_min_max_vals(pc) == CT_OK);
    CHECK_EQ_INT(ct_numel(ct_module_get(pc, "min_val")), 0);
    ct_module_free(pc);
    ct_module *ph = ct_placeholder_observer(NULL);
    CHECK(ct_forward(ph, x) == x);
    CHECK_EQ_INT(ct_observer_dtype(ph), CT_FLOAT32);
    ct_tensor *ts = NULL, *tz = NULL;
    CHECK_ERR(ct_observer_calculate_qparams(ph, &ts, &tz) >= 0, CT_ERR_UNSUPPORTED, "calculate_qparams should not be called for PlaceholderObserver");
    ct_module_free(ph);
    ct_module *h = ct_histogram_observer(NULL);
    CHECK_ERR(ct_observer_reset_min_max_vals(h) == CT_OK, CT_ERR_UNSUPPORTED, "Cannot reset min/max values");
    ct_module_free(h);
    ct_module *lin = ct_nn_linear(2, 2);
    CHECK_ERR(ct_observer_calculate_qparams(lin, &ts, &tz) >= 0, CT_ERR_ARG, "expected an observer, got a Linear module");
    CHECK_ERR(ct_fake_quant_module_calculate_qparams(lin, &ts, &tz) >= 0, CT_ERR_ARG, "expected a FakeQuantize module");
    ct_module_free(lin);
}
TEST(test_observer_errors) {
    ct_observer_options o;
    memset(&o, 0, sizeof o);
    o.qscheme = CT_PER_CHANNEL_AFFINE;
    CHECK_ERR(ct_minmax_observer(&o), CT_ERR_ARG, "MinMaxObserver's qscheme only support torch.per_tensor_symmetric and torch.per_tensor_affine");
    CHECK_ERR(ct_histogram_observer(&o), CT_ERR_ARG, "HistogramObserver's qscheme only support");
    o.qscheme = CT_PER_TENSOR_SYMMETRIC;
    CHECK_ERR(ct_per_channel_minmax_observer(&o), CT_ERR_ARG, "PerChannelMinMaxObserver's qscheme only support torch.per_channel_symmetric");
    o.reduce_range = 1;
    CHECK_ERR(ct_moving_average_minmax_observer(&o), CT_ERR_UNSUPPORTED, "Cannot reduce range for symmetric quantization for quint8");
    memset(&o, 0, sizeof o);
    o.dtype = CT_INT8;
    CHECK_ERR(ct_minmax_observer(&o), CT_ERR_DTYPE, "Default Observer only works for qint8, quint8");
    memset(&o, 0, sizeof o);
    o.quant_min = 5;
    o.quant_max = 10;
    CHECK_ERR(ct_minmax_observer(&o), CT_ERR_ARG, "Used-specified quantization range must include 0");
    o.quant_min = -200;
    o.quant_max = 100;
    o.dtype = CT_QINT8;
    CHECK_ERR(ct_minmax_observer(&o), CT_ERR_ARG, "not exceed the maximum bit range (=256)");
    o.dtype = CT_QUINT8;
    o.quant_min = 0;
    o.quant_max = 300;
    CHECK_ERR(ct_fake_quantize(CT_MINMAX_OBSERVER, &o), CT_ERR_ARG, "FakeQuantize: quant_max out of bound");
    CHECK_ERR(ct_fake_quantize(CT_PLACEHOLDER_OBSERVER, NULL), CT_ERR_ARG, "the observer must compute qparams");
    CHECK_ERR(ct_observer_new((ct_observer_kind)9, NULL), CT_ERR_ARG, "unknown observer kind 9");
    memset(&o, 0, sizeof o);
    o.ch_axis = 3;
    ct_module *pc = ct_per_channel_minmax_observer(&o);
    CHECK_ERR(ct_forward(pc, qobs_zeros(CT_FLOAT32, 3, 2)), CT_ERR_INDEX, "ch_axis 3 is out of range for a 2-D input");
    ct_module_free(pc);
    ct_module *mm = ct_minmax_observer(NULL);
    float bad[] = {1.0f, NAN};
    CHECK(ct_forward(mm, qobs_f32(bad, 2)) != NULL);
    ct_tensor *s = NULL, *z = NULL;
    CHECK_ERR(ct_observer_calculate_qparams(mm, &s, &z) >= 0, CT_ERR_STATE, "should be less than max");
    ct_module_free(mm);
    CHECK_ERR(ct_observer_factory_make(NULL), CT_ERR_ARG, "make is NULL");
}

/* 40 HistogramObservers with random settings and ranges, 3 calls each (obs_sweep_*) */
TEST(test_histogram_sweep) {
    ct_tensor *xs = qfix("obs_sweep_x"), *ps = qfix("obs_sweep_params"), *outs = qfix("obs_sweep_out");
    if (!xs || !ps || !outs) return;
    const double *p = (const double *)ct_data_ptr(ps), *o = (const double *)ct_data_ptr(outs);
    int bad = 0;
    for (int k = 0; k < 40; k++) {
        ct_observer_options opt;
        memset(&opt, 0, sizeof opt);
        opt.bins = (int64_t)p[6 * k];
        opt.upsample_rate = (int64_t)p[6 * k + 1];
        opt.dtype = p[6 * k + 2] != 0 ? CT_QINT8 : CT_QUINT8;
        opt.reduce_range = p[6 * k + 3] != 0;
        opt.qscheme = p[6 * k + 4] != 0 ? CT_PER_TENSOR_SYMMETRIC : CT_PER_TENSOR_AFFINE;
        ct_module *obs = ct_histogram_observer(&opt);
        for (int c = 0; c < 3; c++) ct_forward(obs, ct_select(ct_select(xs, 0, k), 0, c));
        double sc = 0;
        int64_t zp = 0;
        int rc = ct_observer_calculate_qparams_per_tensor(obs, &sc, &zp);
        double mn = ct_item(ct_module_get(obs, "min_val")), mx = ct_item(ct_module_get(obs, "max_val"));
        int ok = rc == 0 && sc == o[4 * k] && (double)zp == o[4 * k + 1] && mn == o[4 * k + 2] && mx == o[4 * k + 3];
        CT_T_REPORT(ok, "sweep case %d: scale %.9g zp %lld min %.9g max %.9g, PyTorch %.9g %g %.9g %.9g (%s)", k, sc, (long long)zp, mn, mx,
                    o[4 * k], o[4 * k + 1], o[4 * k + 2], o[4 * k + 3], ct_last_error());
        bad += !ok;
        ct_module_free(obs);
    }
    CHECK_EQ_INT(bad, 0);
}

static void run_quant_observer_tests(void) {
    RUN(test_fq_per_tensor);
    RUN(test_fq_per_channel);
    RUN(test_fq_special_values);
    RUN(test_fq_per_channel_float_zp);
    RUN(test_fq_errors);
    RUN(test_fq_grad_chain);
    RUN(test_observers_vs_pytorch);
    RUN(test_histogram_sweep);
    RUN(test_fake_quantize_module);
    RUN(test_observer_state_dict);
    RUN(test_observer_misc);
    RUN(test_observer_errors);
}
