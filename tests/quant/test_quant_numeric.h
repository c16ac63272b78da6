/* numeric suite: compare_weights, compare_model_outputs and per-layer sensitivity
   against PyTorch's torch.ao.ns._numeric_suite on a small static-PTQ conv net
   (tests/reference/quant_fixtures_numeric.py) */
static ct_module *ns_fused_net(void) {
    ct_module *net = ct_nn_sequential_dict({"quant", ct_nn_quant_stub()}, {"conv1", ct_nn_conv2d(1, 4, 3, 1, 1)},
                                           {"bn1", ct_nn_batch_norm2d(4)}, {"relu1", ct_nn_relu()}, {"pool", ct_nn_max_pool2d(2, 2)},
                                           {"flat", ct_nn_flatten()}, {"fc1", ct_nn_linear(36, 8)}, {"relu2", ct_nn_relu()},
                                           {"fc2", ct_nn_linear(8, 3)}, {"dequant", ct_nn_dequant_stub()});
    if (!net || wf_load(net, "ns_in_") || !ct_module_eval(net) || ct_fuse_modules(net, "conv1", "bn1", "relu1") != CT_OK ||
        ct_fuse_modules(net, "fc1", "relu2") != CT_OK) {
        ct_module_free(net);
        return NULL;
    }
    return net;
}
static int ns_calibrate(ct_module *m, void *user) {
    (void)user;
    int bad = 0;
    CT_SCOPE {
        bad = !ct_forward(m, qfix("ns_calib0")) || !ct_forward(m, qfix("ns_calib1"));
    }
    return bad ? -1 : 0;
}
static ct_module *ns_quantized_net(void) {
    ct_module *net = ns_fused_net();
    ct_qconfig qc = ct_qconfig_default_x86();
    if (!net || ct_quant_prepare(net, &qc, NULL) < 0 || ns_calibrate(net, NULL) || ct_quant_convert(net) < 0) {
        ct_module_free(net);
        return NULL;
    }
    return net;
}
/* the lines of ns_keys.txt that start with `kind` ("w ", "o ", "s "), the kind cut off */
static int ns_keys(const char *kind, char keys[][64], int max) {
    char buf[2048];
    int n = 0;
    wf_text("ns_keys.txt", buf, sizeof buf);
    for (char *line = strtok(buf, "\n"); line && n < max; line = strtok(NULL, "\n"))
        if (!strncmp(line, kind, 2)) snprintf(keys[n++], 64, "%s", line + 2);
    return n;
}
static double ns_deq_diff(const ct_tensor *a, const ct_tensor *b) {
    if (!a || !b) return INFINITY;
    return max_abs_diff(ct_get_dtype(a) == CT_QUINT8 || ct_get_dtype(a) == CT_QINT8 ? ct_dequantize(a) : a, b);
}

TEST(test_ns_compare_weights_vs_torch) {
    ct_module *fm = ns_fused_net(), *qm = ns_quantized_net();
    CHECK(fm && qm);
    if (!fm || !qm) {
        ct_module_free(fm);
        ct_module_free(qm);
        return;
    }
    ct_state_dict fsd, qsd;
    CHECK_EQ_INT(ct_module_state_dict(fm, &fsd), CT_OK);
    CHECK_EQ_INT(ct_module_state_dict(qm, &qsd), CT_OK);
    ct_ns_result r;
    CHECK_EQ_INT(ct_ns_compare_weights(&fsd, &qsd, &r), CT_OK);
    /* PyTorch's keys, but for Linear: "fc1._packed_params._packed_params" there, "fc1.weight" here */
    char keys[8][64];
    int nk = ns_keys("w ", keys, 8);
    CHECK_EQ_INT(nk, 3);
    CHECK_EQ_INT(r.n, nk);
    for (int i = 0; i < nk && i < r.n; i++) {
        char *pp = strstr(keys[i], "._packed_params._packed_params");
        if (pp) strcpy(pp, ".weight");
        const ct_ns_entry *e = &r.entries[i];
        CHECK_STR(e->name, keys[i]);
        CHECK_EQ_INT(e->n, 1);
        char nm[64];
        /* the float weight (the folded conv's) and the quantized one exactly */
        snprintf(nm, sizeof nm, "ns_w%d_float", i);
        CHECK(max_abs_diff(e->float_values[0], qfix(nm)) == 0);
        ct_tensor *q = e->quantized_values[0];
        CHECK(ct_get_dtype(q) == CT_QINT8 && ct_q_qscheme(q) == CT_PER_CHANNEL_AFFINE);
        snprintf(nm, sizeof nm, "ns_w%d_codes", i);
        CHECK(max_abs_diff(ct_int_repr(q), qfix(nm)) == 0);
        snprintf(nm, sizeof nm, "ns_w%d_scales", i);
        CHECK(max_abs_diff(ct_q_per_channel_scales(q), qfix(nm)) == 0);
        snprintf(nm, sizeof nm, "ns_w%d_zps", i);
        CHECK(max_abs_diff(ct_q_per_channel_zero_points(q), qfix(nm)) == 0);
        CHECK(e->sqnr == ct_q_sqnr(e->float_values[0], q) && e->sqnr > 30 && isfinite(e->sqnr));
    }
    CHECK(ct_ns_result_get(&r, "fc2.weight") == &r.entries[2]);
    CHECK_ERR(ct_ns_result_get(&r, "fc3.weight"), CT_ERR_ARG, "ns_result_get: no entry 'fc3.weight'");
    ct_ns_result_free(&r);
    ct_ns_result_free(&r);   /* twice: harmless */
    /* bad input: NULL, a float state dict as the quantized one, mismatched dicts, shapes */
    CHECK_ERR(ct_ns_compare_weights(NULL, &qsd, &r) == CT_OK, CT_ERR_NULL, "compare_weights: argument 0 is NULL");
    CHECK(r.n == 0 && r.entries == NULL);
    CHECK_ERR(ct_ns_compare_weights(&fsd, &fsd, &r) == CT_OK, CT_ERR_ARG, "compare_weights: the quantized state dict has no quantized weight");
    ct_named_tensor other = {(char *)"head.weight", qfix("ns_w0_float"), 1};
    ct_state_dict osd = {1, &other};
    CHECK_ERR(ct_ns_compare_weights(&osd, &qsd, &r) == CT_OK, CT_ERR_ARG, "no quantized weight has a match in the float state dict ('conv1.weight'");
    ct_named_tensor wrong = {(char *)"fc2.weight", ct_zeros(CT_FLOAT32, 5, 8), 1};
    ct_state_dict wsd = {1, &wrong};
    CHECK_ERR(ct_ns_compare_weights(&wsd, &qsd, &r) == CT_OK, CT_ERR_SHAPE,
              "compare_weights: 'fc2.weight' has shape [5, 8] in the float model and [3, 8] in the quantized one");
    CHECK(r.n == 0 && r.entries == NULL);
    ct_state_dict_free(&fsd);
    ct_state_dict_free(&qsd);
    ct_module_free(fm);
    ct_module_free(qm);
}
/* DynamicQuantizedLinear keeps int8 codes and their parameters as buffers: one qint8
   tensor, per channel or per tensor */
TEST(test_ns_compare_weights_dynamic) {
    for (int pc = 0; pc < 2; pc++) {
        ct_module *mlp = ct_nn_sequential(ct_nn_linear(6, 4), ct_nn_relu(), ct_nn_linear(4, 2));
        CHECK(mlp != NULL);
        if (!mlp) return;
        ct_state_dict fsd, qsd;
        CHECK_EQ_INT(ct_module_state_dict(mlp, &fsd), CT_OK);
        ct_tensor *w0 = ct_clone(fsd.items[0].tensor), *w2 = ct_clone(fsd.items[2].tensor);
        ct_state_dict_free(&fsd);
        CHECK_EQ_INT(ct_quantize_dynamic(mlp, pc, 0), 2);
        CHECK_EQ_INT(ct_module_state_dict(mlp, &qsd), CT_OK);
        ct_named_tensor items[2] = {{(char *)"0.weight", w0, 1}, {(char *)"2.weight", w2, 1}};
        ct_state_dict f2 = {2, items};
        ct_ns_result r;
        CHECK_EQ_INT(ct_ns_compare_weights(&f2, &qsd, &r), CT_OK);
        CHECK_EQ_INT(r.n, 2);
        if (r.n == 2) {
            CHECK_STR(r.entries[0].name, "0.weight");
            CHECK_STR(r.entries[1].name, "2.weight");
            ct_tensor *q = r.entries[1].quantized_values[0];
            CHECK(ct_get_dtype(q) == CT_QINT8 && ct_q_qscheme(q) == (pc ? CT_PER_CHANNEL_AFFINE : CT_PER_TENSOR_AFFINE));
            CHECK(max_abs_diff(ct_int_repr(q), ct_module_get(mlp, "2.weight")) == 0);
            CHECK(max_abs_diff(ct_dequantize(q), w2) <= ct_item(ct_max(ct_module_get(mlp, "2.weight_scale"))) / 2 * 1.0001);
            CHECK(r.entries[0].sqnr > 30);
        }
        ct_ns_result_free(&r);
        ct_state_dict_free(&qsd);
        ct_module_free(mlp);
    }
}
TEST(test_ns_compare_model_outputs_vs_torch) {
    ct_module *fm = ns_fused_net(), *qm = ns_quantized_net();
    CHECK(fm && qm);
    if (!fm || !qm) {
        ct_module_free(fm);
        ct_module_free(qm);
        return;
    }
    char before_f[4096], before_q[4096], after[4096];
    ct_module_repr(fm, before_f, sizeof before_f);
    ct_module_repr(qm, before_q, sizeof before_q);
    ct_tensor *x = qfix("ns_x");
    ct_ns_result r;
    CHECK_EQ_INT(ct_ns_compare_model_outputs(fm, qm, x, &r), CT_OK);
    /* PyTorch's entries (quant, conv1, fc2), in its order, and fc1 (the quantized LinearReLU
       PyTorch 1.13 does not log); each module logged once per call (PyTorch logs the fused
       float ConvReLU2d twice, the same tensor) */
    const char *want[4] = {"quant.stats", "conv1.stats", "fc1.stats", "fc2.stats"};
    CHECK_EQ_INT(r.n, 4);
    for (int i = 0; i < 4 && i < r.n; i++) CHECK_STR(r.entries[i].name, want[i]);
    char keys[8][64];
    int nk = ns_keys("o ", keys, 8);
    CHECK_EQ_INT(nk, 3);
    for (int i = 0; i < nk; i++) {
        char key[64], fx[32];
        int calls = 0;
        CHECK(sscanf(keys[i], "%63s %d", key, &calls) == 2);
        const ct_ns_entry *e = ct_ns_result_get(&r, key);
        CHECK(e && e->n == 1);
        if (!e) continue;
        /* the float outputs to float32 rounding, the quantized ones within one quantum */
        snprintf(fx, sizeof fx, "ns_o%d_float", i);
        CHECK(max_abs_diff(e->float_values[0], qfix(fx)) < 1e-5);
        snprintf(fx, sizeof fx, "ns_o%d_scale", i);
        double quantum = ct_item(qfix(fx));
        snprintf(fx, sizeof fx, "ns_o%d_quant", i);
        double d = ns_deq_diff(e->quantized_values[0], qfix(fx));
        CT_T_REPORT(d <= quantum * 1.0001, "%s: quantized output differs from PyTorch's by %g (quantum %g)", key, d, quantum);
        CHECK(e->sqnr == ct_q_sqnr(e->float_values[0], e->quantized_values[0]));
    }
    const ct_ns_entry *e = ct_ns_result_get(&r, "fc1.stats");
    if (e) {
        CHECK(max_abs_diff(e->float_values[0], qfix("ns_fc1_float")) < 1e-5);
        double quantum = ct_item(qfix("ns_fc1_scale")), d = ns_deq_diff(e->quantized_values[0], qfix("ns_fc1_quant"));
        CT_T_REPORT(d <= quantum * 1.0001, "fc1: quantized output differs from PyTorch's by %g (quantum %g)", d, quantum);
        CHECK(ct_get_dtype(e->quantized_values[0]) == CT_QUINT8 && e->sqnr > 15);
    }
    ct_ns_result_free(&r);
    /* the models are as they were and still run */
    ct_module_repr(fm, after, sizeof after);
    CHECK_STR(after, before_f);
    ct_module_repr(qm, after, sizeof after);
    CHECK_STR(after, before_q);
    CHECK(max_abs_diff(ct_forward(qm, x), ct_forward(qm, x)) == 0);
    /* bad input */
    CHECK_ERR(ct_ns_compare_model_outputs(NULL, qm, x, &r) == CT_OK, CT_ERR_NULL, "compare_model_outputs: argument 0 is NULL");
    CHECK_ERR(ct_ns_compare_model_outputs(fm, qm, NULL, &r) == CT_OK, CT_ERR_NULL, "compare_model_outputs: argument 2 is NULL");
    ct_module *fm2 = ns_fused_net();
    CHECK_ERR(ct_ns_compare_model_outputs(fm, fm2, x, &r) == CT_OK, CT_ERR_ARG, "the quantized model has no quantized module");
    ct_module_free(fm2);
    CHECK_ERR(ct_ns_compare_model_outputs(qm, qm, x, &r) == CT_OK, CT_ERR_ARG,
              "compare_model_outputs: the float and the quantized model are the same module");
    ct_module *mlp = ct_nn_sequential(ct_nn_linear(6, 4), ct_nn_relu(), ct_nn_linear(4, 2));
    CHECK(ct_quantize_dynamic(mlp, 0, 1) == 2);
    CHECK_ERR(ct_ns_compare_model_outputs(fm, mlp, x, &r) == CT_OK, CT_ERR_ARG,
              "compare_model_outputs: the quantized model's '0' (DynamicQuantizedLinear) has no counterpart in the float model");
    ct_module_free(mlp);
    CHECK_ERR(ct_ns_compare_model_outputs(fm, qm, ct_zeros(CT_FLOAT32, 2, 3, 6, 6), &r) == CT_OK, CT_ERR_SHAPE, "conv2d");
    CHECK(r.n == 0 && r.entries == NULL);
    ct_module_repr(fm, after, sizeof after);   /* put back after a failed run too */
    CHECK_STR(after, before_f);
    ct_module_repr(qm, after, sizeof after);
    CHECK_STR(after, before_q);
    ct_module *pm = ns_fused_net();
    ct_qconfig qc = ct_qconfig_default_x86();
    CHECK(pm && ct_quant_prepare(pm, &qc, NULL) == 4);
    CHECK_ERR(ct_ns_compare_model_outputs(pm, qm, x, &r) == CT_OK, CT_ERR_STATE,
              "compare_model_outputs: module 'quant' (QuantStub) is prepared but not converted");
    ct_module_free(pm);
    ct_module_free(fm);
    ct_module_free(qm);
}

static ct_module *ns_make(void *user) {
    (void)user;
    return ns_fused_net();
}
static int ns_calibrate_fails(ct_module *m, void *user) {
    (void)m;
    (void)user;
    return -1;
}
TEST(test_ns_sensitivity_vs_torch) {
    ct_tensor *x = qfix("ns_x");
    ct_qconfig qc = ct_qconfig_default_x86();
    ct_module *fm = ns_fused_net();
    char *paths[4] = {NULL, NULL, NULL, NULL};
    CHECK_EQ_INT(ct_ns_quantizable_layers(fm, paths, 4), 3);
    CHECK(paths[0] && !strcmp(paths[0], "conv1") && paths[1] && !strcmp(paths[1], "fc1") && paths[2] && !strcmp(paths[2], "fc2"));
    for (int i = 0; i < 4; i++) CT_FREE(paths[i]);
    ct_module_free(fm);
    ct_ns_result r;
    CHECK_EQ_INT(ct_ns_sensitivity(ns_make, ns_calibrate, NULL, &qc, 0, NULL, x, &r), CT_OK);
    char keys[8][64];
    int nk = ns_keys("s ", keys, 8);
    CHECK_EQ_INT(nk, 3);
    CHECK_EQ_INT(r.n, nk);
    ct_tensor *yf = qfix("ns_y_float");
    for (int i = 0; i < nk && i < r.n; i++) {
        const ct_ns_entry *e = &r.entries[i];
        char fx[48];
        CHECK_STR(e->name, keys[i]);
        CHECK(e->n == 1 && max_abs_diff(e->float_values[0], yf) < 1e-5);
        /* the model with that one layer quantized: PyTorch's output to a few float32 ulps
           of the activations (its observers see float outputs that differ in the last
           bits), and the SQNR to 0.001 dB */
        snprintf(fx, sizeof fx, "ns_s_%.40s", keys[i]);
        double d = max_abs_diff(e->quantized_values[0], qfix(fx));
        snprintf(fx, sizeof fx, "ns_s_%.36s_sqnr", keys[i]);
        double sq = ct_item(qfix(fx));
        CT_T_REPORT(d < 1e-6 && fabs(e->sqnr - sq) < 1e-3, "%s: output differs from PyTorch's by %g; SQNR %.4f dB, PyTorch %.4f dB", e->name, d,
                    e->sqnr, sq);
    }
    ct_ns_result_free(&r);
    /* one named layer */
    const char *one[1] = {"fc2"};
    CHECK_EQ_INT(ct_ns_sensitivity(ns_make, ns_calibrate, NULL, &qc, 1, one, x, &r), CT_OK);
    CHECK(r.n == 1 && !strcmp(r.entries[0].name, "fc2"));
    ct_ns_result_free(&r);
    /* bad input */
    CHECK_ERR(ct_ns_sensitivity(NULL, ns_calibrate, NULL, &qc, 0, NULL, x, &r) == CT_OK, CT_ERR_NULL, "sensitivity: argument 0 is NULL");
    CHECK_ERR(ct_ns_sensitivity(ns_make, ns_calibrate, NULL, &qc, 2, NULL, x, &r) == CT_OK, CT_ERR_ARG, "sensitivity: 2 layers but no names");
    const char *pool[1] = {"pool"}, *nope[1] = {"nope"};
    CHECK_ERR(ct_ns_sensitivity(ns_make, ns_calibrate, NULL, &qc, 1, pool, x, &r) == CT_OK, CT_ERR_ARG,
              "sensitivity: 'pool' is MaxPool2d, not a Conv2d, ConvReLU2d, Linear or LinearReLU");
    CHECK_ERR(ct_ns_sensitivity(ns_make, ns_calibrate, NULL, &qc, 1, nope, x, &r) == CT_OK, CT_ERR_ARG, "nope");
    CHECK_ERR(ct_ns_sensitivity(ns_make, ns_calibrate_fails, NULL, &qc, 1, one, x, &r) == CT_OK, CT_ERR_STATE,
              "sensitivity: calibrate returned -1");
    CHECK(r.n == 0 && r.entries == NULL);
}
/* QuantWrapper by hand (what the sensitivity helper does): fc1 alone quantized prints as
   PyTorch's model (numbers aside) and gives the helper's output */
TEST(test_ns_quant_wrapper) {
    ct_module *net = ns_fused_net();
    CHECK(net != NULL);
    if (!net) return;
    int k = -1;
    for (int i = 0; i < net->nchildren; i++)
        if (!strcmp(net->children[i].name, "fc1")) k = i;
    ct_module *w = ct_nn_quant_wrapper(net->children[k].module);
    net->children[k].module = w;
    ct_qconfig qc = ct_qconfig_default_x86();
    CHECK_EQ_INT(ct_quant_prepare(w, &qc, NULL), 2);
    CHECK(ns_calibrate(net, NULL) == 0);
    CHECK_EQ_INT(ct_quant_convert(w), 3);
    char got[4096], want[4096];
    ct_module_repr(net, got, sizeof got);
    const char *t = wf_text("ns_wrapped.txt", want, sizeof want);
    wf_mask_numbers(got);
    wf_mask_numbers(want);
    CHECK(strlen(t) > 4 && !strcmp(got + strlen("Sequential"), t + strlen("Net")));
    if (strcmp(got + strlen("Sequential"), t + strlen("Net"))) printf("got:\n%s\nwant:\n%s\n", got, t);
    CHECK(max_abs_diff(ct_forward(net, qfix("ns_x")), qfix("ns_s_fc1")) < 1e-4);
    CHECK_ERR(ct_nn_quant_wrapper(NULL), CT_ERR_NULL, "QuantWrapper");
    ct_module_free(net);
}

/* a layer kept float by a NULL qconfig, between stubs the model places (PyTorch's eager
   way): fc2 float after a DeQuantStub "dq"; the last DeQuantStub with the qconfig becomes
   a DeQuantize that gets fc2's float output and passes it on, without one it stays a
   stub; prints and computes as PyTorch's */
TEST(test_ns_keep_layer_float) {
    for (int k = 0; k < 2; k++) {
        ct_module *net = ct_nn_sequential_dict({"quant", ct_nn_quant_stub()}, {"conv1", ct_nn_conv2d(1, 4, 3, 1, 1)},
                                               {"bn1", ct_nn_batch_norm2d(4)}, {"relu1", ct_nn_relu()}, {"pool", ct_nn_max_pool2d(2, 2)},
                                               {"flat", ct_nn_flatten()}, {"fc1", ct_nn_linear(36, 8)}, {"relu2", ct_nn_relu()},
                                               {"dq", ct_nn_dequant_stub()}, {"fc2", ct_nn_linear(8, 3)}, {"dequant", ct_nn_dequant_stub()});
        CHECK(net && wf_load(net, "ns_in_") == 0);
        if (!net) return;
        ct_module_eval(net);
        CHECK_EQ_INT(ct_fuse_modules(net, "conv1", "bn1", "relu1"), CT_OK);
        CHECK_EQ_INT(ct_fuse_modules(net, "fc1", "relu2"), CT_OK);
        ct_qconfig qc = ct_qconfig_default_x86();
        const char *names[2] = {"fc2", "dequant"};
        const ct_qconfig *qcs[2] = {NULL, NULL};
        ct_quant_prepare_options o = {k + 1, names, qcs};
        CHECK_EQ_INT(ct_quant_prepare(net, &qc, &o), 3);
        CHECK(ns_calibrate(net, NULL) == 0);
        CHECK_EQ_INT(ct_quant_convert(net), k ? 4 : 5);
        char got[4096], want[4096];
        ct_module_repr(net, got, sizeof got);
        const char *t = wf_text(k ? "ns_keep2.txt" : "ns_keep.txt", want, sizeof want);
        wf_mask_numbers(got);
        wf_mask_numbers(want);
        CHECK(strlen(t) > 4 && !strcmp(got + strlen("Sequential"), t + strlen("KeepNet")));
        if (strcmp(got + strlen("Sequential"), t + strlen("KeepNet"))) printf("got:\n%s\nwant:\n%s\n", got, t);
        /* fc1 quantized as PyTorch's, fc2 in float */
        double d = max_abs_diff(ct_forward(net, qfix("ns_x")), qfix(k ? "ns_keep2_y" : "ns_keep_y"));
        CT_T_REPORT(d < 1e-5, "kept-float fc2: output differs from PyTorch's by %g", d);
        ct_module_free(net);
    }
    /* DeQuantize on a tensor that is not quantized: float32, as PyTorch's */
    ct_module *dq = ct_nnq_dequantize();
    ct_tensor *y = ct_forward(dq, ct_arange(0, 3, 1, CT_INT64));
    CHECK(y && ct_get_dtype(y) == CT_FLOAT32 && ct_item(ct_sum(y)) == 3);
    ct_module_free(dq);
}

static void run_quant_numeric_tests(void) {
    RUN(test_ns_compare_weights_vs_torch);
    RUN(test_ns_compare_weights_dynamic);
    RUN(test_ns_compare_model_outputs_vs_torch);
    RUN(test_ns_sensitivity_vs_torch);
    RUN(test_ns_quant_wrapper);
    RUN(test_ns_keep_layer_float);
}
