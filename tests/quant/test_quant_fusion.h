/* module fusion (ct_fuse_modules) against torch.ao.quantization.fuse_modules */
static ct_module *fusion_net(void) {
    return ct_nn_sequential(ct_nn_conv2d_ex(3, 4, 3, 1, 0, 1, 1, 0), ct_nn_batch_norm2d(4), ct_nn_relu(), ct_nn_conv2d(4, 5, 1, 1, 0),
                            ct_nn_batch_norm2d(5), ct_nn_conv2d(5, 6, 3, 1, 1), ct_nn_relu(), ct_nn_flatten(),
                            ct_nn_linear(6 * 4 * 4, 7), ct_nn_batch_norm1d(7), ct_nn_linear(7, 3), ct_nn_relu());
}
/* the fixture's weights (the net's float state dict, saved per key) into m */
static int fusion_load(ct_module *m) {
    ct_state_dict sd;
    if (ct_module_state_dict(m, &sd) != CT_OK) return -1;
    int bad = 0;
    for (int i = 0; i < sd.n; i++) {
        if (ct_get_dtype(sd.items[i].tensor) != CT_FLOAT32) continue;
        char nm[128];
        snprintf(nm, sizeof nm, "fuse_in_%s", sd.items[i].name);
        ct_tensor *v = qfix(nm);
        CT_NO_GRAD { bad |= !v || !ct_copy_(sd.items[i].tensor, v); }
    }
    ct_state_dict_free(&sd);
    return bad ? -1 : 0;
}
static double max_abs_diff(const ct_tensor *a, const ct_tensor *b) {
    if (!a || !b || ct_numel(a) != ct_numel(b)) return INFINITY;
    return ct_item(ct_max(ct_abs(ct_sub(ct_to(a, CT_FLOAT64), ct_to(b, CT_FLOAT64)))));
}
TEST(test_fuse_modules_vs_torch) {
    ct_module *net = fusion_net();
    CHECK(net && fusion_load(net) == 0);
    if (!net) return;
    ct_module_eval(net);
    ct_tensor *x = qfix("fuse_x");
    CHECK(max_abs_diff(ct_forward(net, x), qfix("fuse_y_float")) < 1e-5);
    CHECK_EQ_INT(ct_fuse_modules(net, "0", "1", "2"), CT_OK);
    CHECK_EQ_INT(ct_fuse_modules(net, "3", "4"), CT_OK);
    CHECK_EQ_INT(ct_fuse_modules(net, "5", "6"), CT_OK);
    CHECK_EQ_INT(ct_fuse_modules(net, "8", "9"), CT_OK);
    CHECK_EQ_INT(ct_fuse_modules(net, "10", "11"), CT_OK);
    /* every fused parameter equals PyTorch's (same formulas, same order: bit for bit in float32) */
    ct_state_dict sd;
    CHECK_EQ_INT(ct_module_state_dict(net, &sd), CT_OK);
    CHECK_EQ_INT(sd.n, 10);
    for (int i = 0; i < sd.n; i++) {
        char nm[128];
        snprintf(nm, sizeof nm, "fuse_out_%s", sd.items[i].name);
        ct_tensor *e = qfix(nm);
        double d = max_abs_diff(sd.items[i].tensor, e);
        CT_T_REPORT(d == 0, "%s differs from PyTorch's by %g", sd.items[i].name, d);
        CHECK(ct_is_leaf(sd.items[i].tensor) && ct_get_requires_grad(sd.items[i].tensor));
    }
    ct_state_dict_free(&sd);
    CHECK(max_abs_diff(ct_forward(net, x), qfix("fuse_y_fused")) < 1e-5);
    /* the printout is PyTorch's */
    char want[4096] = "", got[4096];
    FILE *f = fopen(CT_QUANT_FIXTURES "/fuse_repr.txt", "r");
    if (f) {
        size_t n = fread(want, 1, sizeof want - 1, f);
        want[n] = 0;
        fclose(f);
    }
    ct_module_repr(net, got, sizeof got);
    CHECK_STR(got, want);
    ct_module_free(net);
}
TEST(test_fuse_modules_nested_and_errors) {
    /* dotted names inside a named child; conv + relu in training mode fuses too */
    ct_module *net = ct_nn_sequential_dict({"features", ct_nn_sequential(ct_nn_conv2d(1, 2, 3, 1, 1), ct_nn_relu(), ct_nn_batch_norm2d(2),
                                                                         ct_nn_relu())},
                                           {"head", ct_nn_linear(2, 2)});
    CHECK(net != NULL);
    if (!net) return;
    CHECK_EQ_INT(ct_fuse_modules(net, "features.0", "features.1"), CT_OK);
    CHECK_STR(ct_module_child(net, "features.0")->type->name, "ConvReLU2d");
    CHECK(ct_module_get(net, "features.0.0.weight") != NULL);
    CHECK_STR(ct_module_child(net, "features.1")->type->name, "Identity");
    /* BatchNorm2d + ReLU in training mode */
    CHECK_EQ_INT(ct_fuse_modules(net, "features.2", "features.3"), CT_OK);
    CHECK_STR(ct_module_child(net, "features.2")->type->name, "BNReLU2d");
    ct_tensor *x = ct_randn(CT_FLOAT32, 2, 1, 4, 4);
    CHECK(ct_forward(ct_module_child(net, "head"), ct_view(ct_mean_dims(ct_forward(ct_module_child(net, "features"), x), 2, (int64_t[]){2, 3}, 0), 2, 2)) != NULL);
    ct_module_free(net);

    ct_module *m = ct_nn_sequential(ct_nn_conv2d(1, 2, 3, 1, 1), ct_nn_batch_norm2d(2), ct_nn_relu(), ct_nn_linear(2, 2), ct_nn_relu(),
                                    ct_nn_batch_norm2d(3));
    char before[2048], after[2048];
    ct_module_repr(m, before, sizeof before);
    CHECK_ERR(ct_fuse_modules(m, "0", "1") == CT_OK, CT_ERR_STATE, "fuse_modules: Fusion only for eval!");
    ct_module_eval(m);
    CHECK_ERR(ct_fuse_modules(m, "0", "2", "1") == CT_OK, CT_ERR_ARG, "fuse_modules: cannot fuse (Conv2d, ReLU, BatchNorm2d)");
    CHECK_ERR(ct_fuse_modules(m, "3", "1") == CT_OK, CT_ERR_ARG, "cannot fuse (Linear, BatchNorm2d)");
    CHECK_ERR(ct_fuse_modules(m, "0", "9") == CT_OK, CT_ERR_ARG, "9");
    CHECK_ERR(ct_fuse_modules(m, "0", "0") == CT_OK, CT_ERR_ARG, "fuse_modules: '0' is named twice in the group");
    CHECK_ERR(ct_fuse_modules(m, "0") == CT_OK, CT_ERR_ARG, "fuse_modules: a group has 2 or 3 modules, got 1");
    CHECK_ERR(ct_fuse_modules_n(m, 2, NULL) == CT_OK, CT_ERR_NULL, "fuse_modules");
    /* a channel-count mismatch is found before anything changes */
    CHECK_ERR(ct_fuse_modules(m, "0", "5") == CT_OK, CT_ERR_SHAPE, "fuse_modules: Conv2d has 2 output channels but BatchNorm2d has 3 features");
    ct_module_repr(m, after, sizeof after);
    CHECK_STR(after, before);
    ct_module_free(m);
}
static void run_quant_fusion_tests(void) {
    RUN(test_fuse_modules_vs_torch);
    RUN(test_fuse_modules_nested_and_errors);
}
