/* nn: the module system (parameters, buffers, children, modes, state dicts,
   printing), Linear/activation modules and nn.init, against PyTorch values. */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"
#include "ctensor_nn.h"
#include <pthread.h>

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
    /* sizes the header declares: too large to hold, more or less than the data (torchvision asserts equality) */
    unsigned char huge[4 + 16] = {0, 0, 0x08, 4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    CHECK_ERR(ct_load_idx_mem(huge, sizeof huge, "huge-idx3-ubyte"), CT_ERR_FORMAT,
              "load_idx: the header declares a shape of [4294967295, 4294967295, 4294967295, 4294967295], too large to load (huge-idx3-ubyte)");
    unsigned char f64[4 + 8 + 16] = {0, 0, 0x0E, 2, 0x40, 0, 0, 0, 0x40, 0, 0, 0};   /* [2^30, 2^30] doubles: 8 EiB */
    CHECK_ERR(ct_load_idx_mem(f64, sizeof f64, "f64.idx"), CT_ERR_FORMAT, "too large to load (f64.idx)");
    unsigned char zdim[4 + 12] = {0, 0, 0x08, 3, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};   /* found by tests/fuzz/idx.c */
    CHECK_ERR(ct_load_idx_mem(zdim, sizeof zdim, "zdim.idx"), CT_ERR_FORMAT, "shape of [4294967295, 0, 4294967295], too large to load (zdim.idx)");
    unsigned char big[4 + 4 + 3] = {0, 0, 0x0D, 1, 0x7f, 0xff, 0xff, 0xff, 1, 2, 3};   /* 2^31 - 1 floats, 3 bytes */
    CHECK_ERR(ct_load_idx_mem(big, sizeof big, "big.idx"), CT_ERR_FORMAT,
              "load_idx: data of 2147483647 elements exceeds the 3 bytes left in the file (big.idx)");
    unsigned char more[4 + 4 + 3] = {0, 0, 0x08, 1, 0, 0, 0, 2, 7, 8, 9};
    CHECK_ERR(ct_load_idx_mem(more, sizeof more, "more.idx"), CT_ERR_FORMAT,
              "load_idx: 1 bytes follow the 2 bytes of data the header declares (more.idx)");
    CHECK_ERR(ct_load_idx_mem(more, 6, "short.idx"), CT_ERR_FORMAT, "load_idx: truncated header (6 bytes, 8 expected for 1 dimensions) (short.idx)");
    CHECK_ERR(ct_load_idx_mem(NULL, 5, "x"), CT_ERR_ARG, "data is NULL");
    unsigned char empty[4 + 8] = {0, 0, 0x0B, 2, 0, 0, 0, 0, 0, 0, 0, 9};   /* [0, 9] int16: no data */
    ct_tensor *e = ct_load_idx_mem(empty, sizeof empty, "empty.idx");
    CHECK(e && ct_numel(e) == 0 && ct_size(e, 1) == 9 && e->dtype == CT_INT16);
#ifndef CTENSOR_ZLIB
    unsigned char gz[20] = {0x1f, 0x8b, 8, 0};
    CHECK_ERR(ct_load_idx_mem(gz, sizeof gz, "t10k-images-idx3-ubyte.gz"), CT_ERR_UNSUPPORTED,
              "load_idx: t10k-images-idx3-ubyte.gz is gzip-compressed and ctensor was built without CTENSOR_ZLIB");
#endif
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

/* ---- named children: nn.Sequential(OrderedDict(...)) ---- */
TEST(test_sequential_named_children) {
    ct_module *m = ct_nn_sequential_dict(
        {"features", ct_nn_sequential_dict({"conv1", ct_nn_conv2d_ex(3, 4, 3, 2, 1, 1, 1, 0)},
                                           {"relu", ct_nn_relu()},
                                           {"pool", ct_nn_adaptive_avg_pool2d(1, 1)},
                                           {"flatten", ct_nn_flatten()})},
        {"heads", ct_nn_sequential_dict({"head", ct_nn_linear(4, 5)})});
    CHECK(m != NULL);
    if (!m) return;
    char buf[1024];
    ct_module_repr(m, buf, sizeof buf);
    /* print(model) of the same PyTorch model */
    CHECK_STR(buf, "Sequential(\n"
                   "  (features): Sequential(\n"
                   "    (conv1): Conv2d(3, 4, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False)\n"
                   "    (relu): ReLU()\n"
                   "    (pool): AdaptiveAvgPool2d(output_size=1)\n"
                   "    (flatten): Flatten(start_dim=1, end_dim=-1)\n"
                   "  )\n"
                   "  (heads): Sequential(\n"
                   "    (head): Linear(in_features=4, out_features=5, bias=True)\n"
                   "  )\n"
                   ")");
    ct_state_dict sd;
    CHECK(ct_module_state_dict(m, &sd) == CT_OK);
    CHECK_EQ_INT(sd.n, 3);
    if (sd.n == 3) {
        CHECK_STR(sd.items[0].name, "features.conv1.weight");
        CHECK_STR(sd.items[1].name, "heads.head.weight");
        CHECK_STR(sd.items[2].name, "heads.head.bias");
    }
    ct_state_dict_free(&sd);
    /* forward runs the children in order */
    ct_tensor *x = ct_randn(CT_FLOAT32, 2, 3, 8, 8);
    ct_module *conv = ct_module_child(m, "features.conv1"), *head = ct_module_child(m, "heads.head");
    CHECK(conv && head);
    ct_tensor *want = ct_forward(head, ct_flatten(ct_adaptive_avg_pool2d(ct_relu(ct_forward(conv, x)), 1, 1), 1, -1));
    CHECK(ct_allclose(ct_forward(m, x), want, 1e-6, 1e-6) == 1);
    ct_module_free(m);
    /* the array form, with a count or up to a NULL name */
    ct_nn_named_module ch[3] = {{"a", ct_nn_tanh()}, {"b", ct_nn_sigmoid()}, {NULL, NULL}};
    ct_module *s2 = ct_nn_sequential_named(-1, ch);
    CHECK(s2 && s2->nchildren == 2 && !strcmp(s2->children[1].name, "b"));
    ct_module_free(s2);
    ct_nn_named_module one[1] = {{"only", ct_nn_relu()}};
    s2 = ct_nn_sequential_named(1, one);
    CHECK(s2 && s2->nchildren == 1);
    ct_module_free(s2);
    /* bad names and failed constructors free every module */
    int64_t t0 = ct_live_tensors();
    CHECK_ERR(ct_nn_sequential_dict({"a", ct_nn_linear(2, 2)}, {"a", ct_nn_linear(2, 2)}), CT_ERR_ARG,
              "add_module: attribute 'a' already exists (Sequential has a child module 'a')");
    CHECK_ERR(ct_nn_sequential_dict({"a.b", ct_nn_linear(2, 2)}), CT_ERR_ARG, "module name can't be empty or contain \".\"");
    CHECK_ERR(ct_nn_sequential_dict({"", ct_nn_linear(2, 2)}), CT_ERR_ARG, "module name can't be empty");
    CHECK_ERR(ct_nn_sequential_dict({"x", ct_nn_linear(2, 2)}, {"y", ct_nn_linear(-2, 2)}), CT_ERR_ARG, "must be non-negative");
    ct_nn_named_module nul[2] = {{"x", ct_nn_linear(2, 2)}, {"y", NULL}};
    CHECK_ERR(ct_nn_sequential_named(2, nul), CT_ERR_NULL, "Sequential: child 1 ('y') is NULL");
    CHECK_EQ_INT(ct_live_tensors(), t0);
}

/* ---- unknown names: errors that name the module and the closest names ---- */
TEST(test_module_get_unknown_names) {
    ct_module *m = ct_nn_sequential_dict({"features", ct_nn_sequential(ct_nn_conv2d(1, 2, 3, 1, 0), ct_nn_batch_norm2d(2))},
                                         {"heads", ct_nn_sequential_dict({"head", ct_nn_linear(2, 3)})},
                                         {"layer1", ct_nn_relu()}, {"layer2", ct_nn_relu()}, {"layer3", ct_nn_relu()});
    CHECK(ct_module_get(m, "features.0.weight") != NULL);
    CHECK(ct_module_get(m, "features.1.running_var") != NULL);
    CHECK_ERR(ct_module_get(m, "features.0.wieght"), CT_ERR_ARG,
              "module_get: module 'features.0' (Conv2d) has no parameter or buffer 'wieght'; did you mean 'weight'?");
    CHECK_ERR(ct_module_get(m, "features.1.running_mena"), CT_ERR_ARG,
              "module 'features.1' (BatchNorm2d) has no parameter or buffer 'running_mena'; did you mean 'running_mean'?");
    CHECK_ERR(ct_module_get(m, "featurs.0.weight"), CT_ERR_ARG,
              "module_get: Sequential has no child module 'featurs' (looking up 'featurs.0.weight'); did you mean 'features'?");
    CHECK_ERR(ct_module_get(m, "features.5.weight"), CT_ERR_ARG,
              "module 'features' (Sequential) has no child module '5' (looking up 'features.5.weight'); it has '0', '1'");
    CHECK_ERR(ct_module_get(m, "features.0"), CT_ERR_ARG,
              "module_get: 'features.0' is a child module of module 'features' (Sequential), not a parameter or buffer");
    CHECK_ERR(ct_module_get(m, "weight"), CT_ERR_ARG, "module_get: Sequential has no parameter or buffer 'weight'; it has none");
    CHECK_ERR(ct_module_get(m, "layer4.weight"), CT_ERR_ARG, "did you mean 'layer1', 'layer2' or 'layer3'?");
    CHECK_ERR(ct_module_get(m, "heads.head.xyz"), CT_ERR_ARG,
              "module 'heads.head' (Linear) has no parameter or buffer 'xyz'; it has 'weight', 'bias'");
    /* ct_module_child takes dotted paths too */
    CHECK(ct_module_child(m, "heads.head") == ct_module_child(ct_module_child(m, "heads"), "head"));
    CHECK_ERR(ct_module_child(m, "heads.haed"), CT_ERR_ARG,
              "module_child: module 'heads' (Sequential) has no child module 'haed' (looking up 'heads.haed'); did you mean 'head'?");
    CHECK_ERR(ct_module_child(m, "haeds"), CT_ERR_ARG, "module_child: Sequential has no child module 'haeds'; did you mean 'heads'?");
    CHECK_ERR(ct_module_get(m, NULL), CT_ERR_ARG, "module_get: name is NULL");
    /* bias=False: the name exists, its value is None */
    ct_module *nb = ct_nn_linear_bias(2, 2, 0);
    ct_clear_error();
    CHECK(ct_module_get(nb, "bias") == NULL && ct_last_error_code() == CT_OK);
    ct_module_free(nb);
    ct_module_free(m);
}

/* ---- one namespace for parameters, buffers and children ---- */
TEST(test_register_name_clashes) {
    int64_t t0 = ct_live_tensors();
    ct_module *lin = ct_nn_linear(2, 3), *bn = ct_nn_batch_norm1d(3);
    ct_module *seq = ct_nn_sequential(ct_nn_relu());
    ct_tensor *z = ct_zeros(CT_FLOAT32, 3);
    CHECK_ERR(ct_module_register_buffer(lin, "weight", z, 1) == CT_OK, CT_ERR_ARG,
              "register_buffer: attribute 'weight' already exists (Linear has a parameter 'weight')");
    CHECK_ERR(ct_module_register_parameter(bn, "running_mean", z) == CT_OK, CT_ERR_ARG,
              "register_parameter: attribute 'running_mean' already exists (BatchNorm1d has a buffer 'running_mean')");
    CHECK_ERR(ct_module_register_parameter(seq, "0", z) == CT_OK, CT_ERR_ARG,
              "register_parameter: attribute '0' already exists (Sequential has a child module '0')");
    CHECK_ERR(ct_module_register_buffer(seq, "0", z, 0) == CT_OK, CT_ERR_ARG, "attribute '0' already exists (Sequential has a child module '0')");
    CHECK_ERR(ct_module_add_module(lin, "bias", ct_nn_linear(1, 1)) == CT_OK, CT_ERR_ARG,
              "add_module: attribute 'bias' already exists (Linear has a parameter 'bias')");
    CHECK_ERR(ct_module_add_module(bn, "num_batches_tracked", ct_nn_relu()) == CT_OK, CT_ERR_ARG,
              "attribute 'num_batches_tracked' already exists (BatchNorm1d has a buffer 'num_batches_tracked')");
    CHECK_ERR(ct_module_register_buffer(bn, "running_var", z, 1) == CT_OK, CT_ERR_ARG, "attribute 'running_var' already exists");
    /* nothing was added: the state dicts are as before and still save */
    ct_state_dict sd;
    CHECK(ct_module_state_dict(lin, &sd) == CT_OK && sd.n == 2);
    ct_state_dict_free(&sd);
    void *mem = NULL;
    size_t len = 0;
    CHECK(ct_module_save_safetensors_mem(bn, &mem, &len) == CT_OK);
    CT_FREE(mem);
    CHECK(ct_module_register_buffer(lin, "scale", z, 1) == CT_OK);   /* a new name is fine */
    ct_module_free(lin);
    ct_module_free(bn);
    ct_module_free(seq);
    CHECK_EQ_INT(ct_live_tensors(), t0 + 1);   /* z */
}

static int same_params(const ct_module *a, const ct_module *b) {
    ct_tensor *pa[64], *pb[64];
    int na = ct_module_parameters(a, pa, 64), nb = ct_module_parameters(b, pb, 64), ok = na == nb && na > 0;
    for (int i = 0; ok && i < na; i++) ok = ct_equal(pa[i], pb[i]) == 1;
    return ok;
}
/* ---- skip_init: constructors draw no random numbers, loading makes them whole ---- */
static ct_module *small_cnn(void) {
    return ct_nn_sequential_dict({"conv1", ct_nn_conv2d_ex(3, 8, 3, 1, 1, 1, 1, 0)}, {"bn1", ct_nn_batch_norm2d(8)},
                                 {"relu", ct_nn_relu()}, {"conv2", ct_nn_conv2d_ex(8, 8, 3, 1, 1, 1, 2, 1)},
                                 {"pool", ct_nn_adaptive_avg_pool2d(1, 1)}, {"flatten", ct_nn_flatten()},
                                 {"fc", ct_nn_linear(8, 4)});
}
/* every initialiser in one module: conv, linear, embedding, LSTM (and BatchNorm's constants) */
static ct_module *all_inits(void) {
    return ct_nn_module_list(small_cnn(), ct_nn_embedding(5, 2), ct_nn_lstm(3, 4, NULL), ct_nn_gru(2, 3, NULL));
}
TEST(test_skip_init) {
    ct_manual_seed(7);
    ct_tensor *r1 = ct_rand(CT_FLOAT32, 4);
    ct_module *ref = all_inits();
    ct_manual_seed(7);
    ct_module *b = NULL;
    CHECK(!ct_nn_skip_init_enabled());
    CT_SKIP_INIT {
        CHECK(ct_nn_skip_init_enabled());
        b = all_inits();
    }
    CHECK(!ct_nn_skip_init_enabled());
    /* no random number was drawn: the default generator is where the seed left it */
    CHECK(ct_equal(ct_rand(CT_FLOAT32, 4), r1) == 1);
    CHECK(b != NULL);
    /* the same parameters, shapes and names; loading strictly gives the reference model */
    ct_state_dict sd;
    CHECK(ct_module_state_dict(ref, &sd) == CT_OK);
    CHECK(ct_module_load_state_dict(b, &sd, 1) == CT_OK);
    ct_state_dict_free(&sd);
    CHECK(same_params(ref, b));
    ct_module_eval(ref);
    ct_module_eval(b);
    ct_tensor *x = ct_randn(CT_FLOAT32, 2, 3, 6, 6);
    ct_tensor *ya = ct_forward(ct_nn_module_list_get(ref, 0), x), *yb = ct_forward(ct_nn_module_list_get(b, 0), x);
    CHECK(ya && yb && ct_equal(ya, yb) == 1);
    /* safetensors the same way */
    void *mem = NULL;
    size_t len = 0;
    CHECK(ct_module_save_safetensors_mem(ref, &mem, &len) == CT_OK);
    ct_module *c = NULL;
    CT_SKIP_INIT c = all_inits();
    CHECK(ct_module_load_safetensors_mem(c, mem, len, 1) == CT_OK);
    CHECK(same_params(ref, c));
    CT_FREE(mem);
    /* nn.init under skip: arguments are still checked, values untouched */
    ct_tensor *w = ct_full(CT_FLOAT32, 2.5, 2, 3);
    CT_SKIP_INIT {
        CHECK(ct_nn_init_kaiming_uniform_(w, 0, "fan_in", "relu") == w);
        CHECK(ct_nn_init_orthogonal_(w, 1.0) == w);
        CHECK(ct_nn_init_zeros_(w) == w);
        CHECK(ct_nn_init_trunc_normal_(w, 0, 1, -2, 2) == w);
        CHECK_ERR(ct_nn_init_kaiming_uniform_(w, 0, "fan_mid", "relu"), CT_ERR_ARG, "Mode fan_mid not supported");
        CHECK_ERR(ct_nn_init_uniform_(NULL, 0, 1), CT_ERR_NULL, "uniform_");
    }
    CHECK_CLOSE(ct_item(ct_sum(w)), 15.0, 0);
    /* nesting and the setter */
    CT_SKIP_INIT {
        int prev = ct_nn_set_skip_init(0);
        CHECK(prev == 1 && !ct_nn_skip_init_enabled());
        CT_SKIP_INIT CHECK(ct_nn_skip_init_enabled());
        CHECK(!ct_nn_skip_init_enabled());
        ct_nn_set_skip_init(prev);
    }
    CHECK(!ct_nn_skip_init_enabled());
    ct_module_free(ref);
    ct_module_free(b);
    ct_module_free(c);
}

/* ---- a generator for initialisation: per thread, per block ---- */
static const double torch_linear_seed0_w[] = {-0.004322517663240433, 0.3097158372402191, -0.4751853346824646,
                                              -0.4248946011066437, -0.2223689705133438, 0.15482072532176971};
typedef struct build_job { uint64_t seed; ct_module *m; } build_job;
static void *build_with_own_generator(void *arg) {
    build_job *j = (build_job *)arg;
    ct_generator g;
    ct_generator_init(&g, j->seed);
    CT_INIT_GENERATOR(&g) {
        for (int rep = 0; rep < 20; rep++) {   /* long enough for the two threads to overlap */
            ct_generator_init(&g, j->seed);
            ct_module_free(j->m);
            j->m = all_inits();
        }
    }
    ct_thread_cleanup();
    return NULL;
}
TEST(test_init_generator) {
    ct_generator g;
    ct_generator_init(&g, 0);
    ct_manual_seed(5);
    ct_tensor *r1 = ct_rand(CT_FLOAT32, 3);
    ct_manual_seed(5);
    ct_module *lin = NULL;
    CHECK(ct_nn_init_generator() == NULL);
    CT_INIT_GENERATOR(&g) {
        CHECK(ct_nn_init_generator() == &g);
        lin = ct_nn_linear(3, 2);
    }
    CHECK(ct_nn_init_generator() == NULL);
    /* torch.Generator().manual_seed(0) gives torch.manual_seed(0)'s stream: PyTorch's weights */
    CHECK_VALUES(ct_module_get(lin, "weight"), torch_linear_seed0_w, 6, 1e-7);
    /* and the default generator was not used */
    CHECK(ct_equal(ct_rand(CT_FLOAT32, 3), r1) == 1);
    ct_module_free(lin);
    /* every nn.init fill follows it */
    ct_generator g1, g2;
    ct_generator_init(&g1, 11);
    ct_generator_init(&g2, 11);
    ct_tensor *a = ct_empty(CT_FLOAT64, 4, 3), *b = ct_empty(CT_FLOAT64, 4, 3);
    CT_INIT_GENERATOR(&g1) {
        ct_nn_init_normal_(a, 0, 1);
        ct_nn_init_trunc_normal_(a, 0, 1, -1, 1);
        ct_nn_init_orthogonal_(a, 1.0);
        ct_nn_init_xavier_normal_(a, 1.0);
    }
    CT_INIT_GENERATOR(&g2) {
        ct_nn_init_normal_(b, 0, 1);
        ct_nn_init_trunc_normal_(b, 0, 1, -1, 1);
        ct_nn_init_orthogonal_(b, 1.0);
        ct_nn_init_xavier_normal_(b, 1.0);
    }
    CHECK(ct_equal(a, b) == 1);
    /* blocks nest; break leaves one and restores the outer generator */
    CT_INIT_GENERATOR(&g1) {
        CT_INIT_GENERATOR(&g2) {
            CHECK(ct_nn_init_generator() == &g2);
            break;
        }
        CHECK(ct_nn_init_generator() == &g1);
        CHECK(ct_nn_set_init_generator(NULL) == &g1);
        CHECK(ct_nn_set_init_generator(&g1) == NULL);
    }
    CHECK(ct_nn_init_generator() == NULL);
    /* two threads with their own generators build the same model as one thread
       seeded the same way, without touching the global seed */
    ct_manual_seed(123);
    ct_module *want = all_inits();
    ct_manual_seed(99);
    ct_tensor *r2 = ct_rand(CT_FLOAT32, 3);
    ct_manual_seed(99);
    build_job jobs[2] = {{123, NULL}, {123, NULL}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, build_with_own_generator, &jobs[i]);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    CHECK(jobs[0].m && jobs[1].m);
    CHECK(same_params(jobs[0].m, want));
    CHECK(same_params(jobs[1].m, want));
    CHECK(ct_equal(ct_rand(CT_FLOAT32, 3), r2) == 1);
    ct_module_free(jobs[0].m);
    ct_module_free(jobs[1].m);
    ct_module_free(want);
}

/* ---- the short conv constructors with dilation, groups and bias ---- */
TEST(test_conv_ex_constructors) {
    char buf[256];
    ct_manual_seed(0);
    ct_module *c = ct_nn_conv2d_ex(4, 8, 3, 1, 1, 1, 2, 0);   /* nn.Conv2d(4, 8, 3, 1, 1, 1, 2, False) */
    CHECK(c != NULL);
    ct_module_repr(c, buf, sizeof buf);
    CHECK_STR(buf, "Conv2d(4, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), groups=2, bias=False)");
    ct_tensor *w = ct_module_get(c, "weight");
    CHECK(w && ct_size(w, 0) == 8 && ct_size(w, 1) == 2 && ct_size(w, 2) == 3);
    CHECK(ct_module_get(c, "bias") == NULL);
    CHECK_EQ_INT(ct_module_parameters(c, NULL, 0), 1);
    double w0[] = {-0.0017646604683250189, 0.12644097208976746, -0.19399359822273254, -0.17346249520778656, -0.09078175574541092};
    CHECK_VALUES(ct_slice(ct_reshape(w, -1), 0, 0, 5, 1), w0, 5, 1e-7);
    ct_module_free(c);
    ct_manual_seed(1);
    c = ct_nn_conv1d_ex(6, 3, 5, 2, 2, 2, 3, 1);   /* nn.Conv1d(6, 3, 5, 2, 2, 2, 3, True) */
    ct_module_repr(c, buf, sizeof buf);
    CHECK_STR(buf, "Conv1d(6, 3, kernel_size=(5,), stride=(2,), padding=(2,), dilation=(2,), groups=3)");
    double b1[] = {0.08834261447191238, 0.29995957016944885, 0.20872923731803894};
    CHECK_VALUES(ct_module_get(c, "bias"), b1, 3, 1e-7);
    ct_module_free(c);
    ct_manual_seed(2);
    c = ct_nn_conv_transpose2d_ex(4, 6, 3, 2, 1, 1, 2, 0, 1);   /* nn.ConvTranspose2d(4, 6, 3, 2, 1, 1, 2, False, 1) */
    ct_module_repr(c, buf, sizeof buf);
    CHECK_STR(buf, "ConvTranspose2d(4, 6, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), output_padding=(1, 1), groups=2, bias=False)");
    double wt[] = {0.04414615407586098, -0.0457981713116169, 0.05277533829212189, -0.009829935617744923};
    CHECK_VALUES(ct_slice(ct_reshape(ct_module_get(c, "weight"), -1), 0, 0, 4, 1), wt, 4, 1e-7);
    CHECK_EQ_INT(ct_size(ct_forward(c, ct_zeros(CT_FLOAT32, 1, 4, 5, 5)), 2), 10);
    ct_module_free(c);
    c = ct_nn_conv_transpose2d_ex(4, 6, 3, 2, 1, 1, 2, 1, 2);
    ct_module_repr(c, buf, sizeof buf);
    CHECK_STR(buf, "ConvTranspose2d(4, 6, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), dilation=(2, 2), output_padding=(1, 1), groups=2)");
    ct_module_free(c);
    CHECK_ERR(ct_nn_conv2d_ex(4, 8, 3, 1, 1, 1, 0, 1), CT_ERR_ARG, "Conv2d: groups must be a positive integer (got 0)");
    CHECK_ERR(ct_nn_conv2d_ex(4, 8, 3, 1, 1, 1, 3, 1), CT_ERR_ARG, "Conv2d: in_channels must be divisible by groups");
    CHECK_ERR(ct_nn_conv1d_ex(4, 8, 3, 1, 1, 0, 1, 1), CT_ERR_ARG, "Conv1d: dilation should be greater than zero (got 0)");
    CHECK_ERR(ct_nn_conv2d(4, 8, 3, 0, 1), CT_ERR_ARG, "Conv2d: stride should be greater than zero (got 0)");
    CHECK_ERR(ct_nn_conv_transpose2d_ex(4, 6, 3, 2, 1, -1, 1, 1, 1), CT_ERR_ARG, "ConvTranspose2d: negative padding");
}

/* ---- Module.to: dtypes here (devices in tests/cuda/test_cuda.c) ---- */
TEST(test_module_to) {
    int64_t t0 = ct_live_tensors();
    ct_module *lin = ct_nn_linear(4, 3);
    ct_module *net = ct_nn_sequential(lin, ct_nn_batch_norm1d(3), ct_nn_linear(3, 2));
    CHECK(net != NULL);
    CT_SCOPE {
        ct_tensor *w = ct_module_get(net, "0.weight"), *nbt = ct_module_get(net, "1.num_batches_tracked");
        ct_tensor *w32 = ct_clone(w), *view = ct_slice(w, 0, 0, 1, 1);
        ct_tensor *x = ct_randn(CT_FLOAT32, 5, 4);
        ct_backward(ct_sum(ct_forward(net, x)));
        ct_tensor *g32 = ct_clone(ct_grad(w));
        CHECK(ct_module_to_dtype(net, CT_FLOAT64) == net);
        /* the same tensor object, converted in place, its grad with it; integer buffers stay */
        CHECK(ct_module_get(net, "0.weight") == w && w->dtype == CT_FLOAT64 && ct_is_contiguous(w));
        CHECK(ct_equal(w, ct_to(w32, CT_FLOAT64)));
        CHECK(ct_grad(w) && ct_equal(ct_grad(w), ct_to(g32, CT_FLOAT64)));
        CHECK(nbt->dtype == CT_INT64 && ct_item(nbt) == 1.0);
        CHECK(ct_module_get(net, "1.running_mean")->dtype == CT_FLOAT64);
        CHECK(view->dtype == CT_FLOAT32);   /* a view taken before keeps the old data */
        /* it trains in float64: forward, backward, an SGD step made afterwards */
        ct_module_zero_grad(net);
        ct_tensor *y = ct_forward(net, ct_to(x, CT_FLOAT64));
        CHECK(y && y->dtype == CT_FLOAT64);
        ct_backward(ct_sum(y));
        CHECK(ct_grad(w) && ct_grad(w)->dtype == CT_FLOAT64);
        /* float16 and back: values as ct_to rounds them */
        CHECK(ct_module_to_dtype(net, CT_FLOAT16) == net && w->dtype == CT_FLOAT16);
        CHECK(ct_module_to_dtype(net, CT_FLOAT32) == net && w->dtype == CT_FLOAT32);
        CHECK(ct_equal(w, ct_to(ct_to(w32, CT_FLOAT16), CT_FLOAT32)));
        /* to the CPU it is already on: nothing changes */
        ct_storage *st = w->storage;
        CHECK(ct_module_to(net, ct_cpu()) == net && w->storage == st);
        /* tied weights convert once */
        ct_module *a = ct_nn_linear(3, 3), *b = ct_nn_linear(3, 3);
        ct_module *tied = ct_nn_sequential(a, b);
        CHECK(ct_module_register_parameter(b, "shared", ct_module_get(a, "weight")) == CT_OK);
        CHECK(ct_module_to_dtype(tied, CT_FLOAT64) == tied && ct_module_get(b, "shared") == ct_module_get(a, "weight"));
        CHECK(ct_module_get(a, "weight")->dtype == CT_FLOAT64);
        ct_module_free(tied);
        /* bad input: an error naming the call, and the module as it was */
        CHECK_ERR(ct_module_to_dtype(net, CT_INT32), CT_ERR_DTYPE, "Module.to: nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=int32");
        CHECK_ERR(ct_module_to(net, ct_cuda(-1)), CT_ERR_DEVICE, "Module.to: invalid device (type 1, index -1)");
        CHECK_ERR(ct_module_to(NULL, ct_cpu()), CT_ERR_ARG, "Module.to: module is NULL");
#ifndef CTENSOR_CUDA
        /* a device without kernels: the first copy fails, nothing moved */
        CHECK_ERR(ct_module_to(net, ct_cuda(0)), CT_ERR_DEVICE, "Could not run 'aten::_to_copy' with arguments from the 'CUDA' backend");
        CHECK(w->device.type == CT_CPU && w->dtype == CT_FLOAT32 && ct_module_get(net, "2.bias")->device.type == CT_CPU);
#endif
    }
    ct_module_free(net);
    CHECK_EQ_INT(ct_live_tensors(), t0);
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
    RUN(test_sequential_named_children);
    RUN(test_module_get_unknown_names);
    RUN(test_register_name_clashes);
    RUN(test_skip_init);
    RUN(test_init_generator);
    RUN(test_conv_ex_constructors);
    RUN(test_module_to);
    return ct_t_summary();
}
