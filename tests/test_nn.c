/* nn: the module system (parameters, buffers, children, modes, state dicts,
   printing), Linear/activation modules and nn.init, against PyTorch values. */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"
#include "ctensor_nn.h"

TEST(test_linear_init_matches_torch) {
    /* torch.manual_seed(0); nn.Linear(3, 2) */
    ct_manual_seed(0);
    ct_module *m = ct_nn_linear(3, 2);
    CHECK(m != NULL);
    double ew[] = {-0.004322517663240433, 0.3097158372402191, -0.4751853346824646, -0.4248946011066437, -0.2223689705133438, 0.15482072532176971};
    double eb[] = {-0.011439144611358643, 0.45777493715286255};
    CHECK_VALUES(ct_module_get(m, "weight"), ew, 6, 1e-7);
    CHECK_VALUES(ct_module_get(m, "bias"), eb, 2, 1e-7);
    CHECK(ct_get_requires_grad(ct_module_get(m, "weight")) && ct_is_leaf(ct_module_get(m, "weight")));
    char buf[256];
    ct_module_repr(m, buf, sizeof buf);
    CHECK_STR(buf, "Linear(in_features=3, out_features=2, bias=True)");
    ct_module_free(m);
    ct_module *nb = ct_nn_linear_bias(4, 5, 0);
    CHECK(ct_module_get(nb, "bias") == NULL);
    CHECK_EQ_INT(ct_module_parameters(nb, NULL, 0), 1);
    ct_module_repr(nb, buf, sizeof buf);
    CHECK_STR(buf, "Linear(in_features=4, out_features=5, bias=False)");
    ct_module_free(nb);
    CHECK_ERR(ct_nn_linear(-1, 2), CT_ERR_ARG, "must be non-negative");
}

TEST(test_sequential_repr_and_state_dict) {
    ct_module *s = ct_nn_sequential(ct_nn_flatten(), ct_nn_linear(784, 512), ct_nn_relu(), ct_nn_gelu("tanh"), ct_nn_leaky_relu(0.2));
    CHECK(s != NULL);
    char buf[1024];
    ct_module_repr(s, buf, sizeof buf);
    CHECK_STR(buf, "Sequential(\n"
                   "  (0): Flatten(start_dim=1, end_dim=-1)\n"
                   "  (1): Linear(in_features=784, out_features=512, bias=True)\n"
                   "  (2): ReLU()\n"
                   "  (3): GELU(approximate='tanh')\n"
                   "  (4): LeakyReLU(negative_slope=0.2)\n"
                   ")");
    ct_state_dict sd;
    CHECK(ct_module_state_dict(s, &sd) == CT_OK);
    CHECK_EQ_INT(sd.n, 2);
    CHECK_STR(sd.items[0].name, "1.weight");
    CHECK_STR(sd.items[1].name, "1.bias");
    CHECK_EQ_INT(ct_module_num_elements(s), 784 * 512 + 512);
    /* load: PyTorch's report, and nothing is half loaded */
    ct_tensor *w0 = ct_clone(ct_module_get(s, "1.weight"));
    ct_named_tensor items[2];
    items[0].name = (char *)"1.weight"; items[0].tensor = ct_zeros(CT_FLOAT32, 512, 780); items[0].persistent = 1;
    items[1].name = (char *)"x"; items[1].tensor = ct_zeros(CT_FLOAT32, 1); items[1].persistent = 1;
    ct_state_dict bad = {2, items};
    CHECK_ERR(ct_module_load_state_dict(s, &bad, 1) == CT_OK, CT_ERR_SHAPE,
              "Error(s) in loading state_dict for Sequential:\n\tMissing key(s) in state_dict: \"1.bias\". \n\tUnexpected key(s) in state_dict: \"x\". \n"
              "\tsize mismatch for 1.weight: copying a param with shape [512, 780] from checkpoint, the shape in current model is [512, 784].");
    CHECK(ct_equal(w0, ct_module_get(s, "1.weight")) == 1);
    /* round trip through another model */
    ct_module *s2 = ct_nn_sequential(ct_nn_flatten(), ct_nn_linear(784, 512), ct_nn_relu());
    CHECK(ct_module_load_state_dict(s2, &sd, 1) == CT_OK);
    CHECK(ct_equal(ct_module_get(s2, "1.weight"), ct_module_get(s, "1.weight")) == 1);
    /* non-strict: missing/unexpected keys are fine, size mismatches are not */
    items[0].tensor = ct_ones(CT_FLOAT32, 512);
    items[0].name = (char *)"1.bias";
    CHECK(ct_module_load_state_dict(s2, &bad, 0) == CT_OK);
    CHECK_CLOSE(ct_item(ct_sum(ct_module_get(s2, "1.bias"))), 512.0, 0);
    ct_state_dict_free(&sd);
    ct_module_free(s);
    ct_module_free(s2);
}

TEST(test_modes_children_errors) {
    ct_module *inner = ct_nn_sequential(ct_nn_linear(2, 2), ct_nn_tanh());
    ct_module *outer = ct_nn_sequential(inner, ct_nn_linear(2, 1));
    CHECK(ct_module_child(outer, "0") == inner);
    ct_module_eval(outer);
    CHECK(!inner->training && !ct_module_child(inner, "0")->training);
    ct_module_train(outer, 1);
    CHECK(ct_module_child(inner, "1")->training);
    CHECK_EQ_INT(ct_module_parameters(outer, NULL, 0), 4);
    CHECK(ct_module_get(outer, "0.0.weight") != NULL);
    CHECK(ct_module_get(outer, "0.5.weight") == NULL);
    ct_module *list = ct_nn_module_list(ct_nn_relu(), ct_nn_tanh());
    CHECK(ct_nn_module_list_append(list, ct_nn_sigmoid()) == CT_OK);
    CHECK_EQ_INT(ct_nn_module_list_len(list), 3);
    CHECK(ct_nn_module_list_get(list, -1) != NULL);
    CHECK_ERR(ct_nn_module_list_get(list, 5), CT_ERR_INDEX, "out of range");
    CHECK_ERR(ct_forward(list, ct_ones(CT_FLOAT32, 2)), CT_ERR_UNSUPPORTED, "ModuleList: module has no forward");
    /* a NULL child (a failed constructor) fails the container and frees the rest */
    int64_t t0 = ct_live_tensors();
    CHECK_ERR(ct_nn_sequential(ct_nn_linear(3, 3), ct_nn_linear(-1, 2)), CT_ERR_ARG, "must be non-negative");
    CHECK_EQ_INT(ct_live_tensors(), t0);
    CHECK_ERR(ct_module_register_parameter(inner, "a.b", ct_ones(CT_FLOAT32, 1)) == CT_OK, CT_ERR_ARG, "can't be empty or contain");
    CHECK_ERR(ct_module_register_parameter(inner, "w", ct_ones(CT_INT64, 1)) == CT_OK, CT_ERR_DTYPE, "only floating point");
    CHECK_ERR(ct_forward(NULL, ct_ones(CT_FLOAT32, 2)), CT_ERR_NULL, "module is NULL");
    CHECK_ERR(ct_forward(outer, ct_ones(CT_FLOAT32, 4, 3)), CT_ERR_SHAPE, "mat1 and mat2 shapes cannot be multiplied (4x3 and 2x2)");
    ct_module_free(outer);
    ct_module_free(list);
}

TEST(test_training_a_tiny_mlp) {
    /* y = x0 xor x1, a 2-8-1 tanh MLP with plain SGD: the loss goes down */
    ct_manual_seed(42);
    int64_t t0 = ct_live_tensors();
    ct_module *net = ct_nn_sequential(ct_nn_linear(2, 8), ct_nn_tanh(), ct_nn_linear(8, 1), ct_nn_sigmoid());
    ct_tensor *x = ct_tensor_f32(((float[]){0, 0, 0, 1, 1, 0, 1, 1}), 4, 2);
    ct_tensor *y = ct_tensor_f32(((float[]){0, 1, 1, 0}), 4, 1);
    ct_tensor *params[4];
    CHECK_EQ_INT(ct_module_parameters(net, params, 4), 4);
    double first = 0, last = 0;
    for (int step = 0; step < 2000; step++) CT_SCOPE {
        ct_tensor *loss = ct_mean(ct_square(ct_sub(ct_forward(net, x), y)));
        if (step == 0) first = ct_item(loss);
        last = ct_item(loss);
        ct_module_zero_grad(net);
        if (ct_backward(loss) != CT_OK) break;
        CT_NO_GRAD {
            for (int i = 0; i < 4; i++) ct_add_alpha_(params[i], ct_grad(params[i]), -1.0);
        }
    }
    CHECK(last < first * 0.1);
    ct_module_free(net);
    CHECK_EQ_INT(ct_live_tensors(), t0 + 2);   /* x and y */
}

TEST(test_activation_modules) {
    ct_tensor *x = ct_tensor_f32(((float[]){-2, -0.5f, 0.5f, 2}), 4);
    struct { ct_module *m; ct_tensor *expect; const char *repr; } cases[] = {
        {ct_nn_relu(), ct_relu(x), "ReLU()"},
        {ct_nn_elu(1.0), ct_elu(x, 1.0), "ELU(alpha=1.0)"},
        {ct_nn_hardtanh(-1, 1), ct_hardtanh(x, -1, 1), "Hardtanh(min_val=-1.0, max_val=1.0)"},
        {ct_nn_softplus(1, 20), ct_softplus(x, 1, 20), "Softplus(beta=1, threshold=20)"},
        {ct_nn_threshold(0.1, 2.0), ct_threshold(x, 0.1, 2.0), "Threshold(threshold=0.1, value=2.0)"},
        {ct_nn_celu(1.0), ct_celu(x, 1.0), "CELU(alpha=1.0)"},
        {ct_nn_identity(), x, "Identity()"},
        {ct_nn_gelu(NULL), ct_gelu(x, "none"), "GELU()"},
        {ct_nn_silu(), ct_silu(x), "SiLU()"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[128];
        ct_module_repr(cases[i].m, buf, sizeof buf);
        CHECK_STR(buf, cases[i].repr);
        CHECK(ct_equal(ct_forward(cases[i].m, x), cases[i].expect) == 1);
        ct_module_free(cases[i].m);
    }
    int64_t sizes[2] = {2, 3};
    ct_module *u = ct_nn_unflatten(1, 2, sizes);
    char buf[128];
    ct_module_repr(u, buf, sizeof buf);
    CHECK_STR(buf, "Unflatten(dim=1, unflattened_size=(2, 3))");
    CHECK_EQ_INT(ct_ndim(ct_forward(u, ct_zeros(CT_FLOAT32, 4, 6))), 3);
    ct_module_free(u);
    CHECK_ERR(ct_nn_gelu("fast"), CT_ERR_ARG, "approximate argument must be either none or tanh");
    CHECK_ERR(ct_nn_hardtanh(1, -1), CT_ERR_ARG, "must be greater than or equal to min_val");
}

TEST(test_init_matches_torch) {
    ct_tensor *w = ct_empty(CT_FLOAT32, 3, 4);
    ct_manual_seed(1);
    ct_nn_init_xavier_uniform_(w, 2.0);
    double xu[] = {0.9540820717811584, -0.8172736763954163, -0.35896173119544983, 0.869102418422699, -1.7432024478912354, 1.110460638999939,
                   -0.38092926144599915, 0.9420106410980225, 0.2574094533920288, -0.22672252357006073, 0.513572633266449, 0.09134471416473389};
    CHECK_VALUES(w, xu, 12, 1e-6);
    ct_manual_seed(2);
    ct_nn_init_kaiming_normal_(w, 0, "fan_out", "relu");
    double kn[] = {0.32030901312828064, -0.18253925442695618, -0.26087087392807007, -0.9839086532592773, 0.8528009057044983, -0.517028272151947,
                   0.46793970465660095, 0.44168171286582947, -0.31998980045318604, -0.8513436913490295, 1.0766465663909912, 0.6104446649551392};
    CHECK_VALUES(w, kn, 12, 1e-6);
    ct_tensor *o = ct_empty(CT_FLOAT32, 3, 5);
    ct_manual_seed(3);
    CHECK(ct_nn_init_orthogonal_(o, 1.0) != NULL);
    double orth[] = {0.7792853116989136, 0.16961179673671722, 0.0863206684589386, -0.595388650894165, 0.044803161174058914, -0.5500748753547668,
                     0.1391402781009674, 0.4128241539001465, -0.5904833078384399, 0.39870205521583557, -0.026311025023460388, 0.7938727140426636,
                     -0.44755175709724426, 0.1554461270570755, 0.3802734315395355};
    CHECK_VALUES(o, orth, 15, 1e-5);
    ct_tensor *o2 = ct_empty(CT_FLOAT64, 5, 3);
    ct_manual_seed(3);
    ct_nn_init_orthogonal_(o2, 2.0);
    double orth2[] = {0.9535193567054443, -0.044314341143381536, -0.2853672046005816, -0.7285066938822148, 0.35647538386724126, -0.9036484593676622,
                      0.40061956034424334, 1.6642304426789265, -0.7879939696527877, 1.1602488442599088, 0.5012094817039067, 1.0090964114001202,
                      -1.0263554065819356, 0.922001967989514, 1.2094523375111326};
    CHECK_VALUES(o2, orth2, 15, 1e-12);
    ct_tensor *t = ct_empty(CT_FLOAT32, 6);
    ct_manual_seed(4);
    ct_nn_init_trunc_normal_(t, 0.5, 2.0, -1.0, 3.0);
    double tn[] = {1.0083036422729492, 1.0064153671264648, -0.6202613115310669, -0.18040883541107178, -0.9682823419570923, -0.8323907852172852};
    CHECK_VALUES(t, tn, 6, 1e-6);
    ct_tensor *k = ct_empty(CT_FLOAT32, 2, 3, 4, 4);
    ct_manual_seed(5);
    ct_nn_init_kaiming_uniform_(k, sqrt(5.0), "fan_in", "leaky_relu");   /* PyTorch's default a=0: see below */
    ct_manual_seed(5);
    ct_nn_init_kaiming_uniform_(k, 0, "fan_in", "leaky_relu");
    double ku[] = {0.23352333903312683, -0.26437950134277344, 0.28812456130981445, 0.22622257471084595, 0.29705798625946045};
    CHECK_VALUES(ct_slice(ct_reshape(k, -1), 0, 0, 5, 1), ku, 5, 1e-6);
    CHECK_CLOSE(ct_nn_init_calculate_gain("leaky_relu", 0.2), 1.3867504905630728, 1e-15);
    CHECK_CLOSE(ct_nn_init_calculate_gain("tanh", NAN), 5.0 / 3.0, 1e-15);
    CHECK_ERR(!isnan(ct_nn_init_calculate_gain("swish", NAN)), CT_ERR_ARG, "Unsupported nonlinearity swish");
    CHECK_ERR(ct_nn_init_xavier_uniform_(ct_empty(CT_FLOAT32, 3), 1.0), CT_ERR_ARG, "fewer than 2 dimensions");
    CHECK_ERR(ct_nn_init_kaiming_uniform_(w, 0, "fan_mid", "relu"), CT_ERR_ARG, "Mode fan_mid not supported");
    CHECK_ERR(ct_nn_init_eye_(ct_empty(CT_FLOAT32, 2, 2, 2)), CT_ERR_ARG, "Only tensors with 2 dimensions");
    ct_nn_init_eye_(w);
    CHECK_CLOSE(ct_item(ct_sum(w)), 3.0, 0);
    ct_nn_init_constant_(w, 0.5);
    CHECK_CLOSE(ct_item(ct_sum(w)), 6.0, 0);
}

TEST(test_module_memory) {
    int64_t t0 = ct_live_tensors(), b0 = ct_live_bytes();
    for (int i = 0; i < 100; i++) {
        ct_module *m = ct_nn_sequential(ct_nn_linear(16, 32), ct_nn_relu(), ct_nn_linear(32, 4));
        CT_SCOPE { ct_backward(ct_sum(ct_forward(m, ct_ones(CT_FLOAT32, 8, 16)))); }
        ct_module_free(m);
    }
    CHECK_EQ_INT(ct_live_tensors(), t0);
    CHECK_EQ_INT(ct_live_bytes(), b0);
}

TEST(test_idx_and_dataloader) {
    /* an IDX file written by hand: 3 images of 2x2 uint8, big-endian header */
    unsigned char idx[4 + 12 + 12] = {0, 0, 0x08, 3, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 2};
    for (int i = 0; i < 12; i++) idx[16 + i] = (unsigned char)(i * 10);
    ct_tensor *img = ct_load_idx_mem(idx, sizeof idx, "mem");
    CHECK(img && img->dtype == CT_UINT8 && ct_ndim(img) == 3 && ct_size(img, 0) == 3);
    CHECK_CLOSE(ct_item(ct_select(ct_select(ct_select(img, 0, 2), 0, 1), 0, 1)), 110.0, 0);
    unsigned char i32[4 + 4 + 8] = {0, 0, 0x0C, 1, 0, 0, 0, 2, 0, 0, 1, 0, 0xff, 0xff, 0xff, 0xfe};
    double e32[] = {256, -2};
    CHECK_VALUES(ct_load_idx_mem(i32, sizeof i32, "mem"), e32, 2, 0);
    CHECK_ERR(ct_load_idx_mem(idx, 20, "mem"), CT_ERR_FORMAT, "exceeds the");
    CHECK_ERR(ct_load_idx_mem(idx, 3, "mem"), CT_ERR_FORMAT, "bad magic");
    unsigned char badt[8] = {0, 0, 0x07, 1, 0, 0, 0, 0};
    CHECK_ERR(ct_load_idx_mem(badt, 8, "mem"), CT_ERR_FORMAT, "unknown element type 0x07");
    CHECK_ERR(ct_load_idx("/nonexistent/x-idx1-ubyte"), CT_ERR_IO, "cannot open");
    /* TensorDataset + DataLoader: batching, drop_last, shuffling by seed, prefetch */
    ct_tensor *xs = ct_reshape(ct_arange(0, 20, 1, CT_FLOAT32), 10, 2);
    ct_tensor *ys = ct_arange(0, 10, 1, CT_INT64);
    ct_tensor *pair[2] = {xs, ys};
    ct_dataset *ds = ct_tensor_dataset(2, pair);
    CHECK_EQ_INT(ct_dataset_len(ds), 10);
    for (int prefetch = 0; prefetch < 2; prefetch++) {
        ct_dataloader_options o = {4, 0, 0, 0, prefetch};
        ct_dataloader *dl = ct_dataloader_new(ds, &o);
        CHECK_EQ_INT(ct_dataloader_num_batches(dl), 3);
        ct_batch b;
        int nb = 0;
        int64_t seen = 0;
        while (ct_dataloader_next(dl, &b) == 1) {
            nb++;
            seen += ct_size(b.x, 0);
            CHECK_EQ_INT(ct_item_int(ct_select(b.y, 0, 0)) * 2, (int64_t)ct_item(ct_select(ct_select(b.x, 0, 0), 0, 0)));
        }
        CHECK_EQ_INT(nb, 3);
        CHECK_EQ_INT(seen, 10);
        /* two epochs with the same seed see the same shuffled order; drop_last drops the 2 left over */
        ct_dataloader_options so = {4, 1, 1, 123, prefetch};
        ct_dataloader *a = ct_dataloader_new(ds, &so), *c = ct_dataloader_new(ds, &so);
        int64_t order_a[8], order_c[8];
        int k = 0;
        while (ct_dataloader_next(a, &b) == 1)
            for (int i = 0; i < 4; i++) order_a[k++] = ct_item_int(ct_select(b.y, 0, i));
        CHECK_EQ_INT(k, 8);
        k = 0;
        while (ct_dataloader_next(c, &b) == 1)
            for (int i = 0; i < 4; i++) order_c[k++] = ct_item_int(ct_select(b.y, 0, i));
        int same = 1, sorted = 1;
        for (int i = 0; i < 8; i++) { same &= order_a[i] == order_c[i]; sorted &= order_a[i] == i; }
        CHECK(same && !sorted);
        ct_dataloader_free(a);
        ct_dataloader_free(c);
        ct_dataloader_free(dl);
    }
    ct_dataset_free(ds);
    CHECK_ERR(ct_tensor_dataset(2, (ct_tensor *[]){xs, ct_zeros(CT_FLOAT32, 3)}), CT_ERR_SHAPE, "Size mismatch between tensors");
    ct_dataloader_options neg = {-1, 0, 0, 0, 0};
    ct_dataset *d2 = ct_tensor_dataset(1, &xs);
    CHECK_ERR(ct_dataloader_new(d2, &neg), CT_ERR_ARG, "batch_size should be a positive integer value, but got batch_size=-1");
    ct_dataset_free(d2);
}

int main(void) {
    ct_t_init();
    RUN(test_idx_and_dataloader);
    RUN(test_linear_init_matches_torch);
    RUN(test_sequential_repr_and_state_dict);
    RUN(test_modes_children_errors);
    RUN(test_training_a_tiny_mlp);
    RUN(test_activation_modules);
    RUN(test_init_matches_torch);
    RUN(test_module_memory);
    return ct_t_summary();
}
