/* workflows: quantize_dynamic; static post-training quantization (QuantStub,
   fuse_modules, prepare, calibration, convert) against PyTorch's eager mode
   (tests/reference/quant_fixtures_workflow.py) */
static int wf_load(ct_module *m, const char *prefix) {
    ct_state_dict sd;
    if (ct_module_state_dict(m, &sd) != CT_OK) return -1;
    int bad = 0;
    for (int i = 0; i < sd.n; i++) {
        if (ct_get_dtype(sd.items[i].tensor) != CT_FLOAT32) continue;
        char nm[160];
        snprintf(nm, sizeof nm, "%s%s", prefix, sd.items[i].name);
        ct_tensor *v = qfix(nm);
        CT_NO_GRAD { bad |= !v || !ct_copy_(sd.items[i].tensor, v); }
    }
    ct_state_dict_free(&sd);
    return bad ? -1 : 0;
}
static char *wf_text(const char *name, char *buf, size_t cap) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", CT_QUANT_FIXTURES, name);
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = fread(buf, 1, cap - 1, f);
        buf[n] = 0;
        fclose(f);
    }
    return buf;
}
/* "scale=<number>" -> "scale=#", the same for min_val= and max_val= (those values
   are compared with a tolerance elsewhere: the float layers' outputs, which the
   observers see, differ from PyTorch's in the last bits) */
static void wf_mask_numbers(char *t) {
    const char *keys[3] = {"scale=", "min_val=", "max_val="};
    for (int k = 0; k < 3; k++)
        for (char *p = strstr(t, keys[k]); p; p = strstr(p + 1, keys[k])) {
            char *q = p + strlen(keys[k]);
            if ((*q < '0' || *q > '9') && *q != '-') continue;
            char *e = q + 1;
            while ((*e >= '0' && *e <= '9') || *e == '.' || *e == 'e' || *e == '-') e++;
            *q = '#';
            memmove(q + 1, e, strlen(e) + 1);
        }
}
static ct_module *wf_static_net(void) {
    return ct_nn_sequential_dict({"quant", ct_nn_quant_stub()}, {"conv1", ct_nn_conv2d(3, 8, 3, 1, 1)}, {"bn1", ct_nn_batch_norm2d(8)},
                                 {"relu1", ct_nn_relu()}, {"pool", ct_nn_max_pool2d(2, 2)}, {"conv2", ct_nn_conv2d(8, 16, 3, 1, 0)},
                                 {"relu2", ct_nn_relu()}, {"avg", ct_nn_adaptive_avg_pool2d(1, 1)}, {"flat", ct_nn_flatten()},
                                 {"fc1", ct_nn_linear(16, 12)}, {"relu3", ct_nn_relu()}, {"fc2", ct_nn_linear(12, 5)},
                                 {"dequant", ct_nn_dequant_stub()});
}
TEST(test_static_ptq_vs_torch) {
    ct_module *net = wf_static_net();
    CHECK(net && wf_load(net, "wf_st_in_") == 0);
    if (!net) return;
    ct_module_eval(net);
    ct_tensor *x = qfix("wf_st_x");
    double d = max_abs_diff(ct_forward(net, x), qfix("wf_st_y_float"));
    CT_T_REPORT(d < 1e-5, "float model differs from PyTorch's by %g", d);
    CHECK_EQ_INT(ct_fuse_modules(net, "conv1", "bn1", "relu1"), CT_OK);
    CHECK_EQ_INT(ct_fuse_modules(net, "conv2", "relu2"), CT_OK);
    CHECK_EQ_INT(ct_fuse_modules(net, "fc1", "relu3"), CT_OK);
    ct_qconfig qc = ct_qconfig_default_x86();
    CHECK_EQ_INT(ct_quant_prepare(net, &qc, NULL), 5);
    char want[8192], got[8192];
    for (int i = 0; i < 4; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "wf_st_calib%d", i);
        CT_NO_GRAD { CHECK(ct_forward(net, qfix(nm)) != NULL); }
    }
    ct_module_repr(net, got, sizeof got);
    /* the prepared model prints as PyTorch's, but for the outer module's class name */
    const char *w = wf_text("wf_st_prepared.txt", want, sizeof want);
    wf_mask_numbers(got);
    wf_mask_numbers(want);
    CHECK(strlen(w) > 4 && !strcmp(got + strlen("Sequential"), w + strlen("Net")));
    if (strcmp(got + strlen("Sequential"), w + strlen("Net"))) printf("got:\n%s\nwant:\n%s\n", got, w);
    CHECK_EQ_INT(ct_quant_convert(net), 6);
    ct_module_repr(net, got, sizeof got);
    w = wf_text("wf_st_converted.txt", want, sizeof want);
    wf_mask_numbers(got);
    wf_mask_numbers(want);
    CHECK(!strcmp(got + strlen("Sequential"), w + strlen("Net")));
    if (strcmp(got + strlen("Sequential"), w + strlen("Net"))) printf("got:\n%s\nwant:\n%s\n", got, w);
    /* each layer's output scale and zero point: PyTorch's (the scales to a float32 ulp or
       two: the observers see float outputs that differ from PyTorch's in the last bits) */
    ct_tensor *qp = qfix("wf_st_qparams");
    const char *names[5] = {"quant.scale", "conv1.scale", "conv2.scale", "fc1.scale", "fc2.scale"};
    for (int k = 0; qp && k < 5; k++) {
        const double *pv = (const double *)ct_data_ptr(qp) + 2 * k;
        char zn[40];
        snprintf(zn, sizeof zn, "%.*s.zero_point", (int)(strchr(names[k], '.') - names[k]), names[k]);
        ct_tensor *s = ct_module_get(net, names[k]), *z = ct_module_get(net, zn);
        CT_T_REPORT(s && z && fabs(ct_item(s) - pv[0]) <= 3e-7 * pv[0] && ct_item_int(z) == (int64_t)pv[1], "%s: %.9g / %lld, PyTorch %.9g / %lld",
                    names[k], s ? ct_item(s) : NAN, z ? (long long)ct_item_int(z) : -1LL, pv[0], (long long)pv[1]);
    }
    /* the quantized model's output within one quantum of PyTorch's */
    ct_tensor *y = ct_forward(net, x), *ye = qfix("wf_st_y_quant");
    double q = qp ? ((const double *)ct_data_ptr(qp))[8] : 0;
    d = max_abs_diff(y, ye);
    CT_T_REPORT(y && d <= q * 1.0001, "quantized output differs from PyTorch's by %g (quantum %g)", d, q);
    /* and close to the float model's (SQNR) */
    double sq = ct_q_sqnr(qfix("wf_st_y_float"), y);
    CT_T_REPORT(sq > 15, "SQNR against the float model %.1f dB", sq);
    ct_module_free(net);
}
TEST(test_prepare_overrides_and_errors) {
    ct_module *net = wf_static_net();
    if (!net) return;
    ct_module_eval(net);
    ct_qconfig qc = ct_qconfig_default_arm();
    /* fc2 stays float: no observer there, and convert leaves it alone */
    const char *names[1] = {"fc2"};
    const ct_qconfig *qcs[1] = {NULL};
    ct_quant_prepare_options o = {1, names, qcs};
    CHECK_EQ_INT(ct_quant_prepare(net, &qc, &o), 4);
    CHECK_STR(ct_module_child(net, "conv1.activation_post_process")->type->name, "HistogramObserver");
    ct_clear_error();
    CHECK_ERR(ct_module_child(net, "fc2.activation_post_process"), CT_ERR_ARG, "activation_post_process");
    CHECK_ERR(ct_quant_prepare(net, &qc, NULL) >= 0, CT_ERR_STATE, "quant_prepare: module 'quant' (QuantStub) is already prepared");
    const char *bad[1] = {"nope"};
    ct_quant_prepare_options ob = {1, bad, qcs};
    ct_module *n2 = wf_static_net();
    CHECK_ERR(ct_quant_prepare(n2, &qc, &ob) >= 0, CT_ERR_ARG, "nope");
    ct_module_free(n2);
    /* calibrate, convert: bn1 was not fused, so the float BatchNorm2d gets conv1's quantized
       output: the error names the op and the dtype */
    CT_NO_GRAD { CHECK(ct_forward(net, qfix("wf_st_calib0")) != NULL); }
    CHECK_EQ_INT(ct_quant_convert(net), 5);
    CHECK_STR(ct_module_child(net, "fc2")->type->name, "Linear");
    CHECK_ERR(ct_forward(net, qfix("wf_st_x")), CT_ERR_DTYPE, "batch_norm: \"batch_norm\" not implemented for 'QUInt8'");
    CHECK_ERR(ct_quant_prepare(NULL, &qc, NULL) >= 0, CT_ERR_NULL, "quant_prepare");
    CHECK_ERR(ct_quant_convert(NULL) >= 0, CT_ERR_NULL, "quant_convert");
    ct_module_free(net);
    /* a prepared model freed without convert leaks nothing (ASan) */
    ct_module *n3 = wf_static_net();
    CHECK(ct_quant_prepare(n3, &qc, NULL) == 5);
    ct_module_free(n3);
}
TEST(test_quantize_dynamic_module_vs_torch) {
    ct_module *mlp = ct_nn_sequential(ct_nn_linear(20, 32), ct_nn_relu(), ct_nn_sequential(ct_nn_linear(32, 16), ct_nn_tanh()),
                                      ct_nn_linear(16, 4));
    CHECK(mlp && wf_load(mlp, "wf_dyn_in_") == 0);
    if (!mlp) return;
    ct_tensor *x = qfix("wf_dyn_x");
    CHECK(max_abs_diff(ct_forward(mlp, x), qfix("wf_dyn_y_float")) < 1e-5);
    CHECK_EQ_INT(ct_quantize_dynamic(mlp, 0, 1), 3);
    char want[4096], got[4096];
    ct_module_repr(mlp, got, sizeof got);
    CHECK_STR(got, wf_text("wf_dyn_repr.txt", want, sizeof want));
    double d = max_abs_diff(ct_forward(mlp, x), qfix("wf_dyn_y"));
    CT_T_REPORT(d < 2e-2, "dynamic quantized MLP differs from PyTorch's by %g", d);
    CHECK_EQ_INT(ct_quantize_dynamic(mlp, 0, 1), 0);   /* nothing left to replace */
    CHECK_ERR(ct_quantize_dynamic(NULL, 0, 1) >= 0, CT_ERR_NULL, "quantize_dynamic");
    ct_module_free(mlp);
}
/* quantization-aware training: fuse, prepare_qat, three SGD steps, convert; against
   PyTorch. bn: conv + bn + relu fused for QAT (ConvBnReLU2d: the batch norm folded on
   the fly, its statistics tracked); else conv + relu. */
/* bn 0: conv + relu; 1: conv + bn + relu; 2: linear + bn (LinearBn1d) */
static void qat_case(int bn) {
    const char *tag = bn == 2 ? "wf_qatlbn" : bn ? "wf_qatbn" : "wf_qat";
    char nm[96];
    ct_module *net = bn == 2 ? ct_nn_sequential_dict({"quant", ct_nn_quant_stub()}, {"fc1", ct_nn_linear(12, 8)}, {"bn", ct_nn_batch_norm1d(8)},
                                                     {"relu", ct_nn_relu()}, {"fc", ct_nn_linear(8, 5)}, {"dequant", ct_nn_dequant_stub()})
                   : bn ? ct_nn_sequential_dict({"quant", ct_nn_quant_stub()}, {"conv", ct_nn_conv2d(3, 4, 3, 1, 1)},
                                                {"bn", ct_nn_batch_norm2d(4)}, {"relu", ct_nn_relu()},
                                                {"pool", ct_nn_adaptive_avg_pool2d(2, 2)}, {"flat", ct_nn_flatten()},
                                                {"fc", ct_nn_linear(16, 5)}, {"dequant", ct_nn_dequant_stub()})
                        : ct_nn_sequential_dict({"quant", ct_nn_quant_stub()}, {"conv", ct_nn_conv2d(3, 4, 3, 1, 1)}, {"relu", ct_nn_relu()},
                                                {"pool", ct_nn_adaptive_avg_pool2d(2, 2)}, {"flat", ct_nn_flatten()},
                                                {"fc", ct_nn_linear(16, 5)}, {"dequant", ct_nn_dequant_stub()});
    snprintf(nm, sizeof nm, "%s_in_", tag);
    CHECK(net && wf_load(net, nm) == 0);
    if (!net) return;
    ct_module_train(net, 1);
    if (bn == 2) CHECK_EQ_INT(ct_fuse_modules_qat(net, "fc1", "bn"), CT_OK);
    else if (bn) CHECK_EQ_INT(ct_fuse_modules_qat(net, "conv", "bn", "relu"), CT_OK);
    else CHECK_EQ_INT(ct_fuse_modules_qat(net, "conv", "relu"), CT_OK);
    ct_qconfig qc = ct_qat_qconfig_default_x86();
    CHECK_EQ_INT(ct_quant_prepare_qat(net, &qc, NULL), 3);
    char want[8192], got[8192];
    ct_module_repr(net, got, sizeof got);
    snprintf(nm, sizeof nm, "%s_prepared.txt", tag);
    const char *w = wf_text(nm, want, sizeof want);
    const char *cls = bn == 2 ? "QatLinearBnNet" : bn ? "QatBnNet" : "QatNet";
    CHECK(!strcmp(got + strlen("Sequential"), w + strlen(cls)));
    if (strcmp(got + strlen("Sequential"), w + strlen(cls))) printf("got:\n%s\nwant:\n%s\n", got, w);
    ct_sgd_options so;
    memset(&so, 0, sizeof so);
    so.lr = 0.1;
    ct_optimizer *opt = ct_optim_sgd(net, &so);
    snprintf(nm, sizeof nm, "%s_losses", tag);
    ct_tensor *losses = qfix(nm);
    for (int step = 0; step < 3 && opt && losses; step++) CT_SCOPE {
        char xn[32], tn[32];
        snprintf(xn, sizeof xn, "%s_x%d", tag, step);
        snprintf(tn, sizeof tn, "%s_t%d", tag, step);
        ct_tensor *loss = ct_mse_loss(ct_forward(net, qfix(xn)), qfix(tn), NULL);
        ct_zero_grad(opt);
        CHECK(loss && ct_backward(loss) == CT_OK && ct_step(opt) == CT_OK);
        double e = ((const double *)ct_data_ptr(losses))[step];
        CT_T_REPORT(loss && fabs(ct_item(loss) - e) <= 1e-5 * e, "%s step %d: loss %.9g, PyTorch %.9g", tag, step, loss ? ct_item(loss) : NAN, e);
    }
    ct_optim_free(opt);
    const char *keys[7] = {"conv.weight", "conv.bias", "fc.weight", "fc.bias", "conv.bn.running_mean", "conv.bn.running_var", "conv.bn.weight"};
    const char *lkeys[7] = {"fc1.weight", "fc1.bias", "fc.weight", "fc.bias", "fc1.bn.running_mean", "fc1.bn.running_var", "fc1.bn.weight"};
    if (bn == 2) memcpy(keys, lkeys, sizeof keys);
    for (int k = 0; k < (bn ? 7 : 4); k++) {
        snprintf(nm, sizeof nm, "%s_out_%s", tag, keys[k]);
        double d = max_abs_diff(ct_module_get(net, keys[k]), qfix(nm));
        CT_T_REPORT(d < 1e-5, "%s: after QAT %s differs from PyTorch's by %g", tag, keys[k], d);
    }
    ct_module_eval(net);
    CHECK_EQ_INT(ct_quant_convert(net), 4);
    ct_module_repr(net, got, sizeof got);
    snprintf(nm, sizeof nm, "%s_converted.txt", tag);
    w = wf_text(nm, want, sizeof want);
    wf_mask_numbers(got);
    wf_mask_numbers(want);
    CHECK(!strcmp(got + strlen("Sequential"), w + strlen(cls)));
    if (strcmp(got + strlen("Sequential"), w + strlen(cls))) printf("got:\n%s\nwant:\n%s\n", got, w);
    snprintf(nm, sizeof nm, "%s_fc_scale", tag);
    ct_tensor *fs = qfix(nm);
    double q = fs ? ((const double *)ct_data_ptr(fs))[0] : 0;
    char xn[32], yn[32];
    snprintf(xn, sizeof xn, "%s_xtest", tag);
    snprintf(yn, sizeof yn, "%s_ytest", tag);
    double d = max_abs_diff(ct_forward(net, qfix(xn)), qfix(yn));
    CT_T_REPORT(d <= q * 1.0001, "%s: converted output differs from PyTorch's by %g (quantum %g)", tag, d, q);
    ct_module_free(net);
}
TEST(test_qat_vs_torch) {
    qat_case(0);
    qat_case(1);
    qat_case(2);
    ct_qconfig qc = ct_qat_qconfig_default_x86();
    ct_module *m2 = ct_module_eval(ct_nn_sequential(ct_nn_linear(2, 2)));
    CHECK_ERR(ct_quant_prepare_qat(m2, &qc, NULL) >= 0, CT_ERR_STATE, "prepare_qat only works on models in training mode");
    ct_module_free(m2);
    ct_module *m3 = ct_nn_sequential(ct_nn_conv1d(2, 2, 1, 1, 0), ct_nn_batch_norm1d(2));
    CHECK_ERR(ct_fuse_modules_qat(m3, "0", "1") == CT_OK, CT_ERR_ARG, "fuse_modules_qat: (Conv1d, BatchNorm1d) for QAT is not built");
    ct_module_free(m3);
}
static void run_quant_workflow_tests(void) {
    RUN(test_qat_vs_torch);
    RUN(test_static_ptq_vs_torch);
    RUN(test_prepare_overrides_and_errors);
    RUN(test_quantize_dynamic_module_vs_torch);
}
