/* int8 GEMM, quantized linear, dynamic linear: the GEMM's
   integers against a naive product on every path this CPU has; quantized::linear
   and linear_relu against torch.ao.nn.quantized.Linear (onednn); linear_dynamic
   and the dynamic Linear module against torch.ao.quantization.quantize_dynamic
   (onednn and qnnpack). Fixtures: tests/reference/quant_fixtures_gemm.py. */

/* a deterministic stream of bytes (extremes included: 0, 255, -128, 127) */
static uint32_t qg_state = 12345u;
static uint32_t qg_rand(void) {
    qg_state = qg_state * 1664525u + 1013904223u;
    return qg_state >> 8;
}
/* the largest |a - b| over two tensors of the same numel (INFINITY on mismatch) */
static double qg_maxdiff(const ct_tensor *a, const ct_tensor *b) {
    if (!a || !b || ct_numel(a) != ct_numel(b)) return INFINITY;
    ct_tensor *x = ct_contiguous(ct_to(a, CT_FLOAT64)), *y = ct_contiguous(ct_to(b, CT_FLOAT64));
    if (!x || !y) return INFINITY;
    const double *p = (const double *)ct_data_ptr(x), *q = (const double *)ct_data_ptr(y);
    double m = 0;
    for (int64_t i = 0; i < ct_numel(x); i++) m = fmax(m, fabs(p[i] - q[i]));
    return m;
}
static const ct_q_gemm_path qg_paths[] = {CT_Q_GEMM_PORTABLE, CT_Q_GEMM_AVX2, CT_Q_GEMM_AVX512_VNNI, CT_Q_GEMM_NEON_DOTPROD};

TEST(test_qgemm_exact_all_paths) {
    /* M, N, K: odd K (not a multiple of 4 or 64), M = 1, N = 1, zero sizes, several panels and row blocks */
    static const int64_t shapes[][3] = {{1, 1, 1},  {1, 70, 37}, {7, 65, 5},  {13, 130, 131}, {6, 64, 64}, {2, 3, 1},
                                        {0, 5, 3},  {3, 0, 4},   {3, 5, 0},   {5, 129, 259},  {1, 1, 1030}, {12, 64, 3},
                                        {9, 90, 23},   {4, 24, 10},   /* panels of 17-32 columns (two quarters of the VNNI tile) */
                                        {20, 300, 601}};   /* the last: large enough to run on several threads */
    int npaths = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2], lda = K + 3, wsh[2] = {N, K};
        uint8_t *a = (uint8_t *)malloc((size_t)(M * lda + 1));
        int8_t *w = (int8_t *)malloc((size_t)(N * K + 1));
        int32_t *ref = (int32_t *)malloc((size_t)(M * N + 1) * sizeof(int32_t));
        int32_t *c = (int32_t *)malloc((size_t)(M * N + 1) * sizeof(int32_t));
        for (int64_t i = 0; i < M * lda; i++) a[i] = (uint8_t)(i % 11 == 0 ? 255 : qg_rand());
        for (int64_t i = 0; i < N * K; i++) w[i] = (int8_t)(i % 7 == 0 ? -128 : i % 13 == 0 ? 127 : (int)(qg_rand() & 255) - 128);
        for (int64_t m = 0; m < M; m++)
            for (int64_t n = 0; n < N; n++) {
                int32_t acc = 0;
                for (int64_t k = 0; k < K; k++) acc += (int32_t)a[m * lda + k] * w[n * K + k];
                ref[m * N + n] = acc;
            }
        ct_tensor *wq = ct_make_per_tensor_quantized(ct_from_data_n(w, CT_INT8, 2, wsh), 0.5, 0);
        ct_q_linear_packed *pw = ct_q_linear_prepack(wq, NULL);
        CHECK(pw != NULL);
        for (size_t p = 0; pw && p < sizeof qg_paths / sizeof qg_paths[0]; p++) {
            if (!ct_q_gemm_path_available(qg_paths[p])) continue;
            npaths += s == 0;
            int old = ct_q_gemm_force_path(qg_paths[p]);
            CHECK_EQ_INT(ct_q_gemm_path_used(), qg_paths[p]);
            for (int64_t i = 0; i < M * N; i++) c[i] = -7;
            CHECK_EQ_INT(ct_q_gemm_u8s8s32(M, a, lda, pw, c, N), 0);
            int64_t bad = -1;
            for (int64_t i = 0; i < M * N && bad < 0; i++)
                if (c[i] != ref[i]) bad = i;
            CT_T_REPORT(bad < 0, "q_gemm %s M=%lld N=%lld K=%lld: element %lld is %d, expected %d", ct_q_gemm_path_name(qg_paths[p]),
                        (long long)M, (long long)N, (long long)K, (long long)bad, bad >= 0 ? c[bad] : 0, bad >= 0 ? ref[bad] : 0);
            ct_q_gemm_force_path((ct_q_gemm_path)old);
        }
        ct_q_linear_packed_free(pw);
        free(a);
        free(w);
        free(ref);
        free(c);
    }
    CHECK(npaths >= 1);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(CTENSOR_NO_SIMD)
    CHECK(ct_q_gemm_path_available(CT_Q_GEMM_AVX2) == (__builtin_cpu_supports("avx2") != 0));
#endif
}

/* the fixtures' static Linear cases: x codes + (scale, zp), w codes + scales, bias, meta */
static ct_q_linear_packed *qg_fixture_weight(const char *name, int per_channel, int has_bias) {
    char buf[64];
    snprintf(buf, sizeof buf, "gemm_%s_w_codes", name);
    ct_tensor *codes = qfix(buf);
    snprintf(buf, sizeof buf, "gemm_%s_w_scales", name);
    ct_tensor *scales = qfix(buf);
    snprintf(buf, sizeof buf, "gemm_%s_bias", name);
    ct_tensor *bias = has_bias ? qfix(buf) : NULL;
    if (!codes || !scales) return NULL;
    ct_tensor *wq = per_channel ? ct_make_per_channel_quantized(codes, scales, ct_zeros(CT_INT64, ct_size(codes, 0)), 0)
                                : ct_make_per_tensor_quantized(codes, ct_item(scales), 0);
    return ct_q_linear_prepack(wq, bias);
}
TEST(test_qlinear_static_vs_torch) {
    static const char *const names[] = {"s0", "s1", "s2", "s3"};
    for (int i = 0; i < 4; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "gemm_%s_meta", names[i]);
        ct_tensor *meta = qfix(buf);
        snprintf(buf, sizeof buf, "gemm_%s_x_codes", names[i]);
        ct_tensor *xc = qfix(buf);
        snprintf(buf, sizeof buf, "gemm_%s_x_qparams", names[i]);
        ct_tensor *xp = qfix(buf);
        snprintf(buf, sizeof buf, "gemm_%s_y_codes", names[i]);
        ct_tensor *yref = qfix(buf);
        if (!meta || !xc || !xp || !yref) continue;
        const double *mv = (const double *)ct_data_ptr(meta), *xq = (const double *)ct_data_ptr(xp);
        ct_q_linear_packed *w = qg_fixture_weight(names[i], mv[2] != 0, mv[4] != 0);
        CHECK(w != NULL);
        ct_tensor *x = ct_make_per_tensor_quantized(xc, xq[0], (int64_t)xq[1]);
        ct_tensor *y = mv[3] != 0 ? ct_q_linear_relu(x, w, mv[0], (int64_t)mv[1]) : ct_q_linear(x, w, mv[0], (int64_t)mv[1]);
        CHECK(y != NULL && ct_get_dtype(y) == CT_QUINT8);
        CHECK_CLOSE(ct_q_scale(y), mv[0], 0);
        CHECK_EQ_INT(ct_q_zero_point(y), (int64_t)mv[1]);
        CHECK(ct_ndim(y) == ct_ndim(yref) && ct_size(y, -1) == ct_size(yref, -1));
        double d = qg_maxdiff(ct_int_repr(y), yref);
        CT_T_REPORT(d <= 1, "quantized linear %s: codes differ from PyTorch's by %g (at most one quantum)", names[i], d);
        /* the portable path gives the same codes */
        int old = ct_q_gemm_force_path(CT_Q_GEMM_PORTABLE);
        ct_tensor *y2 = mv[3] != 0 ? ct_q_linear_relu(x, w, mv[0], (int64_t)mv[1]) : ct_q_linear(x, w, mv[0], (int64_t)mv[1]);
        ct_q_gemm_force_path((ct_q_gemm_path)old);
        CHECK_CLOSE(qg_maxdiff(ct_int_repr(y2), ct_int_repr(y)), 0, 0);
        ct_q_linear_packed_free(w);
    }
}

/* weight zero points other than 0 (per tensor and per channel), a non-contiguous
   input, against the affine formula in double */
TEST(test_qlinear_weight_zero_points) {
    int64_t N = 9, K = 23, M = 4;
    int8_t wc[9 * 23];
    uint8_t xc[23 * 4];
    float bias[9];
    for (int i = 0; i < N * K; i++) wc[i] = (int8_t)((int)(qg_rand() % 200) - 100);
    for (int i = 0; i < M * K; i++) xc[i] = (uint8_t)(qg_rand() & 255);
    for (int i = 0; i < N; i++) bias[i] = (float)((int)(qg_rand() % 100) - 50) * 0.01f;
    double wsc[9], xs = 0.02, os = 0.1;
    int64_t wzp[9], xz = 7, oz = 128;
    for (int i = 0; i < N; i++) {
        wsc[i] = 0.01 + 0.001 * i;
        wzp[i] = i - 4;
    }
    int64_t xsh[2] = {K, M}, wsh[2] = {N, K}, nsh = N;
    /* x is stored [K, M] and transposed: a non-contiguous [M, K] input */
    ct_tensor *x = ct_transpose(ct_make_per_tensor_quantized(ct_from_data_n(xc, CT_UINT8, 2, xsh), xs, xz), 0, 1);
    ct_tensor *b = ct_from_data_n(bias, CT_FLOAT32, 1, &nsh);
    for (int pc = 0; pc < 2; pc++) {
        ct_tensor *codes = ct_from_data_n(wc, CT_INT8, 2, wsh);
        ct_tensor *wq = pc ? ct_make_per_channel_quantized(codes, ct_from_data_n(wsc, CT_FLOAT64, 1, &nsh),
                                                           ct_from_data_n(wzp, CT_INT64, 1, &nsh), 0)
                           : ct_make_per_tensor_quantized(codes, wsc[0], 3);
        ct_q_linear_packed *w = ct_q_linear_prepack(wq, b);
        ct_tensor *y = ct_int_repr(ct_q_linear(x, w, os, oz));
        ct_tensor *yd = ct_q_linear_dynamic(ct_dequantize(x), w, 0);
        CT_T_REPORT(y && yd, "linear with weight zero points: %s", ct_last_error());
        double worst = 0, worst_f = 0, bound = 0;
        for (int64_t m = 0; y && yd && m < M; m++)
            for (int64_t n = 0; n < N; n++) {
                double ws = pc ? wsc[n] : wsc[0];
                int64_t wz = pc ? wzp[n] : 3;
                double acc = 0, wabs = 0;
                for (int64_t k = 0; k < K; k++) {
                    acc += (double)((int64_t)xc[k * M + m] - xz) * (double)(wc[n * K + k] - wz);
                    wabs += fabs((double)(wc[n * K + k] - wz)) * ws;
                }
                /* x requantized on its own range (scale about xs): off by at most half a step each */
                bound = fmax(bound, 0.5 * 1.01 * xs * wabs);
                double real = xs * ws * acc + bias[n];
                double q = fmin(255, fmax(0, nearbyint(real / os) + (double)oz));
                worst = fmax(worst, fabs(q - (double)((const uint8_t *)ct_data_ptr(y))[m * N + n]));
                worst_f = fmax(worst_f, fabs(real - (double)((const float *)ct_data_ptr(yd))[m * N + n]));
            }
        CHECK_CLOSE(worst, 0, 1);
        /* the dynamic path requantizes x (its range is the grid's): near the exact value */
        CT_T_REPORT(worst_f <= bound, "dynamic linear with weight zero points: error %g above the bound %g", worst_f, bound);
        ct_q_linear_packed_free(w);
    }
}

/* quantize_dynamic's Linear: weight codes exact, outputs near PyTorch's
   (onednn: reduce_range; qnnpack: full range) */
TEST(test_qlinear_dynamic_vs_torch) {
    static const char *const names[] = {"d0", "d1", "d2"};
    static const int per_channel[] = {0, 1, 0};
    for (int i = 0; i < 3; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "gemm_%s_w", names[i]);
        ct_tensor *w = qfix(buf);
        snprintf(buf, sizeof buf, "gemm_%s_b", names[i]);
        ct_tensor *b = qfix(buf);
        snprintf(buf, sizeof buf, "gemm_%s_x", names[i]);
        ct_tensor *x = qfix(buf);
        if (!w || !b || !x) continue;
        ct_module *lin = ct_nn_linear(ct_size(w, 1), ct_size(w, 0));
        int g = ct_set_grad_enabled(0);
        CHECK(ct_copy_(ct_module_get(lin, "weight"), w) && ct_copy_(ct_module_get(lin, "bias"), b));
        ct_set_grad_enabled(g);
        static const char *const engines[] = {"onednn", "qnnpack"};
        for (int e = 0; e < 2; e++) {
            ct_module *q = ct_nnq_dynamic_linear(lin, per_channel[i], e == 0);
            CHECK(q != NULL);
            if (!q) continue;
            snprintf(buf, sizeof buf, "gemm_%s_%s_w_codes", names[i], engines[e]);
            CHECK_CLOSE(qg_maxdiff(ct_module_get(q, "weight"), qfix(buf)), 0, 0);
            snprintf(buf, sizeof buf, "gemm_%s_%s_w_scales", names[i], engines[e]);
            CHECK_CLOSE(qg_maxdiff(ct_module_get(q, "weight_scale"), qfix(buf)), 0, 1e-9);
            snprintf(buf, sizeof buf, "gemm_%s_%s_y", names[i], engines[e]);
            ct_tensor *yref = qfix(buf), *y = ct_forward(q, x);
            double d = qg_maxdiff(y, yref);
            CT_T_REPORT(d <= 2e-5, "dynamic linear %s (%s): max |y - torch| = %g", names[i], engines[e], d);
            ct_module_free(q);
        }
        ct_module_free(lin);
    }
}

/* the module's state dict: buffers with PyTorch-like names; loading repacks */
TEST(test_qlinear_dynamic_state_dict) {
    ct_manual_seed(3);
    ct_module *l1 = ct_nn_linear(20, 7), *l2 = ct_nn_linear(20, 7);
    ct_module *q1 = ct_nnq_dynamic_linear(l1, 1, 1), *q2 = ct_nnq_dynamic_linear(l2, 1, 1);
    ct_tensor *x = ct_randn(CT_FLOAT32, 3, 20);
    CHECK(q1 && q2 && x);
    if (q1 && q2 && x) {
        ct_tensor *y1 = ct_forward(q1, x);
        CHECK(qg_maxdiff(y1, ct_forward(q2, x)) > 1e-3);
        ct_state_dict sd;
        CHECK_EQ_INT(ct_module_state_dict(q1, &sd), CT_OK);
        CHECK_EQ_INT(sd.n, 4);
        if (sd.n == 4) {
            CHECK_STR(sd.items[0].name, "weight");
            CHECK_STR(sd.items[1].name, "weight_scale");
            CHECK_STR(sd.items[3].name, "bias");
        }
        CHECK_EQ_INT(ct_module_load_state_dict(q2, &sd, 1), CT_OK);
        ct_state_dict_free(&sd);
        CHECK_CLOSE(qg_maxdiff(y1, ct_forward(q2, x)), 0, 0);
        /* close to the float module */
        CHECK_CLOSE(qg_maxdiff(y1, ct_forward(l1, x)), 0, 0.05);
        char buf[256];
        ct_module_repr(q1, buf, sizeof buf);
        CHECK(strstr(buf, "DynamicQuantizedLinear(in_features=20, out_features=7") != NULL);
    }
    ct_module_free(q1);
    ct_module_free(q2);
    ct_module_free(l1);
    ct_module_free(l2);
}

TEST(test_qlinear_errors) {
    int64_t sh[2] = {3, 4};
    ct_tensor *wf = ct_zeros(CT_FLOAT32, 3, 4);
    ct_tensor *wq = ct_quantize_per_tensor(wf, 0.1, 0, CT_QINT8);
    ct_q_linear_packed *w = ct_q_linear_prepack(wq, NULL);
    CHECK(w != NULL);
    CHECK_ERR(ct_q_linear_prepack(wf, NULL), CT_ERR_DTYPE, "the weight must be a qint8 tensor, got Float");
    CHECK_ERR(ct_q_linear_prepack(wq, ct_zeros(CT_FLOAT32, 4)), CT_ERR_SHAPE, "the bias must be a float32 CPU tensor of shape [3]");
    CHECK_ERR(ct_q_linear_prepack(ct_quantize_per_tensor(ct_zeros(CT_FLOAT32, 12), 0.1, 0, CT_QINT8), NULL), CT_ERR_SHAPE,
              "must be 2-D");
    ct_tensor *xq = ct_quantize_per_tensor(ct_zeros(CT_FLOAT32, 2, 5), 0.1, 0, CT_QUINT8);
    CHECK_ERR(ct_q_linear(xq, w, 0.1, 0), CT_ERR_SHAPE, "quantized_linear: the input's last dimension must be in_features = 4");
    CHECK_ERR(ct_q_linear(ct_zeros(CT_FLOAT32, 2, 4), w, 0.1, 0), CT_ERR_DTYPE, "the input must be a quint8 tensor, got Float");
    xq = ct_quantize_per_tensor(ct_zeros(CT_FLOAT32, 2, 4), 0.1, 0, CT_QUINT8);
    CHECK_ERR(ct_q_linear_relu(xq, w, -1.0, 0), CT_ERR_ARG, "scale must be a positive finite");
    CHECK_ERR(ct_q_linear(xq, w, 0.1, 300), CT_ERR_ARG, "zero_point 300 is above upper bound 255");
    CHECK_ERR(ct_q_linear_dynamic(xq, w, 1), CT_ERR_DTYPE, "the input must be float32");
    float inf[4] = {1, INFINITY, 0, 0};
    CHECK_ERR(ct_q_linear_dynamic(ct_from_data_n(inf, CT_FLOAT32, 1, sh + 1), w, 1), CT_ERR_ARG, "cannot quantize the input");
    CHECK_ERR(ct_q_linear(NULL, w, 0.1, 0), CT_ERR_NULL, "quantized_linear: argument 0 is NULL");
    CHECK_ERR(ct_q_gemm_u8s8s32(2, NULL, 2, w, NULL, 3) == 0, CT_ERR_ARG, "bad arguments");
#if !defined(__aarch64__)
    CHECK_ERR(ct_q_gemm_force_path(CT_Q_GEMM_NEON_DOTPROD) >= 0, CT_ERR_UNSUPPORTED, "the neon_dotprod path is not available");
#endif
    ct_module *relu = ct_nn_relu();
    CHECK_ERR(ct_nnq_dynamic_linear(relu, 0, 1), CT_ERR_ARG, "only works for nn.Linear (got ReLU)");
    CHECK_ERR(ct_nnq_dynamic_linear_packed(relu), CT_ERR_ARG, "not a DynamicQuantizedLinear module");
    ct_module_free(relu);
    /* zero-size batch and in_features 0: the bias alone */
    ct_q_linear_packed *w0 = ct_q_linear_prepack(ct_quantize_per_tensor(ct_zeros(CT_FLOAT32, 3, 0), 0.1, 0, CT_QINT8),
                                                 ct_ones(CT_FLOAT32, 3));
    static const double ones6[6] = {1, 1, 1, 1, 1, 1};
    CHECK_VALUES(ct_q_linear_dynamic(ct_zeros(CT_FLOAT32, 2, 0), w0, 1), ones6, 6, 0);
    CHECK_EQ_INT(ct_numel(ct_q_linear_dynamic(ct_zeros(CT_FLOAT32, 0, 4), w, 1)), 0);
    ct_q_linear_packed_free(w0);
    ct_q_linear_packed_free(w);
}

/* quantize_dynamic's LSTM (one layer; two layers, bidirectional, batch_first) */
TEST(test_qlstm_dynamic_vs_torch) {
    static const char *const names[] = {"l0", "l1"};
    static const int64_t cfg[][5] = {{7, 6, 1, 0, 0}, {5, 4, 2, 1, 1}};   /* in, hidden, layers, bidirectional, batch_first */
    for (int i = 0; i < 2; i++) {
        ct_rnn_options o;
        memset(&o, 0, sizeof o);
        o.num_layers = cfg[i][2];
        o.bidirectional = (int)cfg[i][3];
        o.batch_first = (int)cfg[i][4];
        ct_module *lstm = ct_nn_lstm(cfg[i][0], cfg[i][1], &o);
        CHECK(lstm != NULL);
        if (!lstm) continue;
        char buf[96];
        int g = ct_set_grad_enabled(0);
        for (int64_t l = 0; l < cfg[i][2]; l++)
            for (int d = 0; d <= (int)cfg[i][3]; d++)
                for (int k = 0; k < 4; k++) {
                    static const char *const pn[] = {"weight_ih", "weight_hh", "bias_ih", "bias_hh"};
                    char nm[48];
                    snprintf(nm, sizeof nm, "%s_l%lld%s", pn[k], (long long)l, d ? "_reverse" : "");
                    snprintf(buf, sizeof buf, "gemm_%s_p_%s", names[i], nm);
                    CHECK(ct_copy_(ct_module_get(lstm, nm), qfix(buf)) != NULL);
                }
        ct_set_grad_enabled(g);
        snprintf(buf, sizeof buf, "gemm_%s_x", names[i]);
        ct_tensor *x = qfix(buf);
        snprintf(buf, sizeof buf, "gemm_%s_h0", names[i]);
        ct_tensor *h0 = qfix(buf);
        snprintf(buf, sizeof buf, "gemm_%s_c0", names[i]);
        ct_tensor *c0 = qfix(buf);
        static const char *const engines[] = {"onednn", "qnnpack"};
        for (int e = 0; e < 2; e++) {
            ct_module *q = ct_nnq_dynamic_lstm(lstm, e == 0);
            CT_T_REPORT(q != NULL, "nnq_dynamic_lstm: %s", ct_last_error());
            if (!q) continue;
            ct_tensor *hn = NULL, *cn = NULL, *y = ct_nnq_lstm_forward(q, x, h0, c0, &hn, &cn);
            const char *what[3] = {"y", "hn", "cn"};
            ct_tensor *got[3] = {y, hn, cn};
            for (int k = 0; k < 3; k++) {
                snprintf(buf, sizeof buf, "gemm_%s_%s_%s", names[i], engines[e], what[k]);
                double d = qg_maxdiff(got[k], qfix(buf));
                CT_T_REPORT(d <= 1e-4, "dynamic LSTM %s (%s) %s: max |ct - torch| = %g", names[i], engines[e], what[k], d);
            }
            CHECK(qg_maxdiff(ct_forward(q, x), ct_nnq_lstm_forward(q, x, NULL, NULL, NULL, NULL)) == 0);
            ct_module_free(q);
        }
        CHECK_ERR(ct_nnq_lstm_forward(lstm, x, NULL, NULL, NULL, NULL), CT_ERR_ARG, "not a DynamicQuantizedLSTM module");
        if (i == 0) {
            ct_module *q = ct_nnq_dynamic_lstm(lstm, 1);
            /* unbatched [T, in]: the batched result of batch 1 */
            ct_tensor *x1 = ct_select(x, 1, 0), *hn1 = NULL;
            ct_tensor *yu = ct_nnq_lstm_forward(q, x1, ct_select(h0, 1, 0), ct_select(c0, 1, 0), &hn1, NULL);
            ct_tensor *yb = ct_nnq_lstm_forward(q, ct_unsqueeze(x1, 1), ct_unsqueeze(ct_select(h0, 1, 0), 1),
                                                ct_unsqueeze(ct_select(c0, 1, 0), 1), NULL, NULL);
            CHECK(yu && ct_ndim(yu) == 2 && hn1 && ct_ndim(hn1) == 2);
            CHECK_CLOSE(qg_maxdiff(yu, yb), 0, 0);
            CHECK_ERR(ct_nnq_lstm_forward(q, ct_zeros(CT_FLOAT32, 5, 3, 6), NULL, NULL, NULL, NULL), CT_ERR_SHAPE,
                      "input must be float32 [T, B, 7] or [T, 7], got Float [5, 3, 6]");
            CHECK_ERR(ct_nnq_lstm_forward(q, x, ct_zeros(CT_FLOAT32, 1, 2, 6), NULL, NULL, NULL), CT_ERR_SHAPE,
                      "Expected hidden[0] size (1, 3, 6), got [1, 2, 6]");
            ct_module_free(q);
        }
        ct_module_free(lstm);
    }
    ct_module *lin = ct_nn_linear(3, 4);
    CHECK_ERR(ct_nnq_dynamic_lstm(lin, 1), CT_ERR_ARG, "only works for nn.LSTM (got Linear)");
    ct_module_free(lin);
}

/* the ops are rows of the one table, with typed attributes */
TEST(test_qlinear_op_schemas) {
    static const char *const names[] = {"quantized::linear", "quantized::linear_relu", "quantized::linear_dynamic"};
    static const int nattrs[] = {3, 3, 2};
    for (int i = 0; i < 3; i++) {
        int op = ct_op_find(names[i]);
        CHECK(op >= 0);
        if (op < 0) continue;
        CHECK_EQ_INT(ct_op_num_inputs(op), 6);
        CHECK_EQ_INT(ct_op_num_attrs(op), nattrs[i]);
        char buf[256];
        ct_op_schema(op, buf, sizeof buf);
        CHECK(strstr(buf, names[i]) == buf && strstr(buf, "int in_features") != NULL);
    }
}

static void run_quant_gemm_tests(void) {
    RUN(test_qgemm_exact_all_paths);
    RUN(test_qlinear_static_vs_torch);
    RUN(test_qlinear_weight_zero_points);
    RUN(test_qlinear_dynamic_vs_torch);
    RUN(test_qlinear_dynamic_state_dict);
    RUN(test_qlinear_errors);
    RUN(test_qlstm_dynamic_vs_torch);
    RUN(test_qlinear_op_schemas);
}
