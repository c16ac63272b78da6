/* test_interop.c - PyTorch <-> ctensor through safetensors: weights trained in
   PyTorch (tests/fixtures/interop, from tests/reference/gen_interop.py, written
   by examples/torch_interop/export.py) reproduce PyTorch's logits for an MLP and
   a CNN with BatchNorm (eval and train mode, running stats updated alike); the bytes
   ctensor writes for them equal export.py's; dtypes (float64 parameters, int64
   num_batches_tracked) survive both ways; save -> load is bit-exact; strict and
   non-strict loading report PyTorch's messages; bad files and dtypes are errors;
   a 1,000-step training loop inside scopes keeps live tensors and bytes flat. */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"
#include "ctensor_nn.h"
#include <stdlib.h>

#define FIX "tests/fixtures/interop/"
static char tmp_path[1024];

static unsigned char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    *len = 0;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    unsigned char *b = (unsigned char *)malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    if (b) b[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return b;
}

static ct_module *mlp3(int64_t a, int64_t b, int64_t c) {
    return ct_nn_sequential(ct_nn_linear(a, b), ct_nn_relu(), ct_nn_linear(b, c));
}

/* every tensor of the two state dicts equal (names, dtypes, shapes, values) */
static int same_state(const ct_module *x, const ct_module *y) {
    ct_state_dict a, b;
    if (ct_module_state_dict(x, &a)) return 0;
    if (ct_module_state_dict(y, &b)) { ct_state_dict_free(&a); return 0; }
    int ok = a.n == b.n;
    for (int i = 0; ok && i < a.n; i++)
        ok = !strcmp(a.items[i].name, b.items[i].name) && ct_get_dtype(a.items[i].tensor) == ct_get_dtype(b.items[i].tensor) &&
             ct_equal(a.items[i].tensor, b.items[i].tensor) == 1;
    ct_state_dict_free(&a);
    ct_state_dict_free(&b);
    return ok;
}

/* ------------------------------------------------------------ the trained MLP */
TEST(test_pytorch_weights_reproduce_logits) {
    ct_module *m = mlp3(196, 32, 10);
    CHECK_EQ_INT(ct_module_load_safetensors(m, FIX "mlp.safetensors", 1), CT_OK);
    ct_tensor *x = ct_load_npy(FIX "mlp_x.npy");
    ct_tensor *want = ct_load_npy(FIX "mlp_logits.npy");
    CHECK(x && want);
    if (!x || !want) { ct_module_free(m); return; }
    ct_tensor *got = NULL;
    CT_NO_GRAD { got = ct_forward(m, x); }
    CHECK(got && ct_get_dtype(got) == CT_FLOAT32 && ct_same_shape(got, want));
    CHECK_EQ_INT(ct_allclose(got, want, 1e-5, 1e-5), 1);
    double maxdiff = ct_item(ct_amax(ct_abs(ct_sub(got, want)), 0, NULL, 0));
    CHECK(maxdiff <= 1e-5);
    /* the predicted classes agree too */
    CHECK_EQ_INT(ct_equal(ct_argmax_dim(got, 1, 0), ct_argmax_dim(want, 1, 0)), 1);
    ct_module_free(m);
}

TEST(test_ctensor_bytes_equal_export_py) {
    ct_module *m = mlp3(196, 32, 10);
    CHECK_EQ_INT(ct_module_load_safetensors(m, FIX "mlp.safetensors", 1), CT_OK);
    size_t flen, mlen = 0;
    unsigned char *file = read_all(FIX "mlp.safetensors", &flen);
    void *mem = NULL;
    CHECK_EQ_INT(ct_module_save_safetensors_mem(m, &mem, &mlen), CT_OK);
    CHECK(file && mem && flen == mlen && !memcmp(file, mem, flen));
    /* and through a file */
    CHECK_EQ_INT(ct_module_save_safetensors(m, tmp_path), CT_OK);
    size_t tlen;
    unsigned char *t = read_all(tmp_path, &tlen);
    CHECK(t && tlen == flen && !memcmp(file, t, flen));
    remove(tmp_path);
    free(t);
    free(file);
    ct_free(mem);
    ct_module_free(m);
}

/* ------------------------------------------------------------ the trained CNN (BatchNorm buffers) */
/* PyTorch's nn.Sequential(Conv2d(1, 8, 3, padding=1), BatchNorm2d(8), ReLU, MaxPool2d(2),
   Conv2d(8, 16, 3, padding=1), BatchNorm2d(16), ReLU, MaxPool2d(2), Flatten, Linear(784, 10)) */
static ct_module *small_cnn(void) {
    return ct_nn_sequential(ct_nn_conv2d(1, 8, 3, 1, 1), ct_nn_batch_norm2d(8), ct_nn_relu(), ct_nn_max_pool2d(2, 2),
                            ct_nn_conv2d(8, 16, 3, 1, 1), ct_nn_batch_norm2d(16), ct_nn_relu(), ct_nn_max_pool2d(2, 2),
                            ct_nn_flatten(), ct_nn_linear(16 * 7 * 7, 10));
}

static double max_abs_diff(const ct_tensor *a, const ct_tensor *b) {
    ct_tensor *d = ct_amax(ct_abs(ct_sub(a, b)), 0, NULL, 0);
    return d ? ct_item(d) : INFINITY;
}

TEST(test_pytorch_cnn_reproduces_logits) {
    ct_module *m = small_cnn();
    CHECK_EQ_INT(ct_module_load_safetensors(m, FIX "cnn.safetensors", 1), CT_OK);
    /* BatchNorm's buffers came from the file: 20 training steps in PyTorch */
    CHECK_EQ_INT(ct_get_dtype(ct_module_get(m, "1.num_batches_tracked")), CT_INT64);
    CHECK_EQ_INT(ct_item_int(ct_module_get(m, "1.num_batches_tracked")), 20);
    CHECK_EQ_INT(ct_item_int(ct_module_get(m, "5.num_batches_tracked")), 20);
    CHECK(ct_item(ct_sum(ct_abs(ct_module_get(m, "1.running_mean")))) > 0.01);
    CHECK(ct_item(ct_sum(ct_abs(ct_sub_scalar(ct_module_get(m, "5.running_var"), 1.0)))) > 0.01);
    ct_safetensors *st = ct_safetensors_load(FIX "cnn.safetensors");
    CHECK(st && ct_safetensors_count(st) == 16);
    for (int i = 0; st && i < ct_safetensors_count(st); i++) {
        const char *name = ct_safetensors_name(st, i);
        CHECK_EQ_INT(ct_equal(ct_module_get(m, name), ct_safetensors_get(st, name)), 1);
    }
    ct_safetensors_free(st);
    ct_tensor *x = ct_load_npy(FIX "cnn_x.npy");
    ct_tensor *want = ct_load_npy(FIX "cnn_logits.npy");
    ct_tensor *want_train = ct_load_npy(FIX "cnn_train_logits.npy");
    CHECK(x && want && want_train);
    if (!x || !want || !want_train) { ct_module_free(m); return; }
    CHECK_EQ_INT(ct_ndim(x), 4);
    /* eval mode: the running statistics */
    ct_module_eval(m);
    ct_tensor *got = NULL;
    CT_NO_GRAD { got = ct_forward(m, x); }
    CHECK(got && ct_get_dtype(got) == CT_FLOAT32 && ct_same_shape(got, want));
    double d = max_abs_diff(got, want);
    CT_T_REPORT(d <= 1e-4, "eval logits max |diff| %g > 1e-4", d);
    CHECK_EQ_INT(ct_equal(ct_argmax_dim(got, 1, 0), ct_argmax_dim(want, 1, 0)), 1);
    CHECK_EQ_INT(ct_item_int(ct_module_get(m, "1.num_batches_tracked")), 20);   /* eval updates nothing */
    /* train mode: the batch's statistics, and the buffers updated as PyTorch's */
    ct_module_train(m, 1);
    ct_tensor *got_train = NULL;
    CT_NO_GRAD { got_train = ct_forward(m, x); }
    CHECK(got_train && ct_same_shape(got_train, want_train));
    d = max_abs_diff(got_train, want_train);
    CT_T_REPORT(d <= 1e-4, "train logits max |diff| %g > 1e-4", d);
    CHECK(max_abs_diff(want, want_train) > 1e-2);   /* the two modes do differ */
    st = ct_safetensors_load(FIX "cnn_train_buffers.safetensors");
    CHECK(st && ct_safetensors_count(st) == 6);
    for (int i = 0; st && i < ct_safetensors_count(st); i++) {
        const char *name = ct_safetensors_name(st, i);
        ct_tensor *mine = ct_module_get(m, name), *theirs = ct_safetensors_get(st, name);
        CHECK(mine && theirs && ct_get_dtype(mine) == ct_get_dtype(theirs) && ct_same_shape(mine, theirs));
        if (ct_get_dtype(theirs) == CT_INT64) CHECK_EQ_INT(ct_item_int(mine), 21);
        else CT_T_REPORT(ct_allclose(mine, theirs, 1e-5, 1e-6) == 1, "%s after a train-mode forward: max |diff| %g", name,
                         max_abs_diff(mine, theirs));
    }
    ct_safetensors_free(st);
    ct_module_free(m);
}

/* ------------------------------------------------------------ dtypes: float64 params, int64 buffer */
static const ct_module_type plain_type = {"Plain", NULL, NULL, NULL};
static const ct_module_type mixed_type = {"Mixed", NULL, NULL, NULL};
/* PyTorch's Mixed: lin = Linear(3, 2).double(), bn = BatchNorm1d(2); the same keys and dtypes */
static ct_module *mixed_module(void) {
    ct_module *root = ct_module_new(&mixed_type, NULL);
    ct_module *lin = ct_module_new(&plain_type, NULL), *bn = ct_module_new(&plain_type, NULL);
    ct_module_register_parameter(lin, "weight", ct_requires_grad(ct_zeros(CT_FLOAT64, 2, 3)));
    ct_module_register_parameter(lin, "bias", ct_requires_grad(ct_zeros(CT_FLOAT64, 2)));
    ct_module_register_parameter(bn, "weight", ct_requires_grad(ct_ones(CT_FLOAT32, 2)));
    ct_module_register_parameter(bn, "bias", ct_requires_grad(ct_zeros(CT_FLOAT32, 2)));
    ct_module_register_buffer(bn, "running_mean", ct_zeros(CT_FLOAT32, 2), 1);
    ct_module_register_buffer(bn, "running_var", ct_ones(CT_FLOAT32, 2), 1);
    ct_module_register_buffer(bn, "num_batches_tracked", ct_scalar_tensor(0, CT_INT64), 1);
    ct_module_add_module(root, "lin", lin);
    ct_module_add_module(root, "bn", bn);
    return root;
}

TEST(test_dtypes_preserved_both_ways) {
    ct_module *m = mixed_module();
    CHECK_EQ_INT(ct_module_load_safetensors(m, FIX "mixed.safetensors", 1), CT_OK);
    ct_tensor *nbt = ct_module_get(m, "bn.num_batches_tracked");
    CHECK(nbt && ct_get_dtype(nbt) == CT_INT64 && ct_ndim(nbt) == 0);
    CHECK_EQ_INT(ct_item_int(nbt), 2);   /* two training-mode batches in PyTorch */
    CHECK(ct_get_dtype(ct_module_get(m, "lin.weight")) == CT_FLOAT64);
    CHECK(ct_item(ct_module_get(m, "bn.running_var")) != 1.0);
    /* the values are the file's, bit for bit */
    ct_safetensors *st = ct_safetensors_load(FIX "mixed.safetensors");
    CHECK(st && ct_safetensors_count(st) == 7);
    for (int i = 0; st && i < ct_safetensors_count(st); i++) {
        const char *name = ct_safetensors_name(st, i);
        CHECK_EQ_INT(ct_equal(ct_module_get(m, name), ct_safetensors_get(st, name)), 1);
    }
    ct_safetensors_free(st);
    /* and ctensor writes the same bytes as export.py */
    size_t flen, mlen = 0;
    unsigned char *file = read_all(FIX "mixed.safetensors", &flen);
    void *mem = NULL;
    CHECK_EQ_INT(ct_module_save_safetensors_mem(m, &mem, &mlen), CT_OK);
    CHECK(file && mem && flen == mlen && !memcmp(file, mem, flen));
    free(file);
    ct_free(mem);
    ct_module_free(m);
}

/* ------------------------------------------------------------ ctensor round trips */
TEST(test_roundtrip_bit_exact) {
    ct_manual_seed(7);
    ct_module *a = mlp3(5, 4, 3);
    ct_module *b = mlp3(5, 4, 3);   /* different initial values */
    CHECK(!same_state(a, b));
    CHECK_EQ_INT(ct_module_save_safetensors(a, tmp_path), CT_OK);
    CHECK_EQ_INT(ct_module_load_safetensors(b, tmp_path, 1), CT_OK);
    CHECK(same_state(a, b));
    remove(tmp_path);
    /* in memory; mixed dtypes; the loaded parameters stay leaves that require grad */
    ct_module *x = mixed_module(), *y = mixed_module();
    CT_NO_GRAD {
        ct_nn_init_normal_(ct_module_get(x, "lin.weight"), 0, 1);
        ct_fill_(ct_module_get(x, "bn.num_batches_tracked"), 123456789012.0);
        ct_nn_init_uniform_(ct_module_get(x, "bn.running_mean"), -1, 1);
    }
    void *mem = NULL;
    size_t len = 0;
    CHECK_EQ_INT(ct_module_save_safetensors_mem(x, &mem, &len), CT_OK);
    CHECK_EQ_INT(ct_module_load_safetensors_mem(y, mem, len, 1), CT_OK);
    CHECK(same_state(x, y));
    CHECK_EQ_INT(ct_item_int(ct_module_get(y, "bn.num_batches_tracked")), 123456789012LL);
    CHECK(ct_get_requires_grad(ct_module_get(y, "lin.weight")));
    CHECK(ct_grad_fn(ct_module_get(y, "lin.weight")) == NULL);
    ct_free(mem);
    ct_module_free(a);
    ct_module_free(b);
    ct_module_free(x);
    ct_module_free(y);
}

/* ------------------------------------------------------------ errors: PyTorch's report */
static void check_pytorch_message(ct_module *m, int strict, ct_status code, const char *fixture) {
    size_t n;
    char *want = (char *)read_all(fixture, &n);
    CHECK(want != NULL);
    if (!want) return;
    char full[4096];
    snprintf(full, sizeof full, "load_state_dict: %s", want);
    ct_clear_error();
    CHECK_EQ_INT(ct_module_load_safetensors(m, FIX "mlp.safetensors", strict), code);
    CHECK_STR(ct_last_error(), full);
    free(want);
}

TEST(test_strict_reports_match_pytorch) {
    ct_module *missing = ct_nn_sequential(ct_nn_linear(196, 32), ct_nn_relu(), ct_nn_linear(32, 10), ct_nn_relu(), ct_nn_linear(10, 10));
    ct_module *unexpected = ct_nn_sequential(ct_nn_linear(196, 32), ct_nn_relu());
    ct_module *size = mlp3(196, 16, 10);
    ct_module *before = mlp3(196, 16, 10);
    ct_module_load_state_dict(before, NULL, 0);   /* (a NULL state dict is an argument error) */
    CHECK_EQ_INT(ct_last_error_code(), CT_ERR_ARG);
    /* copy size's values into before to see that nothing changes on error */
    {
        void *mem;
        size_t len;
        ct_module_save_safetensors_mem(size, &mem, &len);
        CHECK_EQ_INT(ct_module_load_safetensors_mem(before, mem, len, 1), CT_OK);
        ct_free(mem);
    }
    check_pytorch_message(missing, 1, CT_ERR_ARG, FIX "error_missing.txt");
    check_pytorch_message(unexpected, 1, CT_ERR_ARG, FIX "error_unexpected.txt");
    check_pytorch_message(size, 1, CT_ERR_SHAPE, FIX "error_size.txt");
    check_pytorch_message(size, 0, CT_ERR_SHAPE, FIX "error_size.txt");   /* shapes are checked even when not strict */
    CHECK(same_state(size, before));
    /* non-strict: the keys present are loaded, the others reported nowhere */
    CHECK_EQ_INT(ct_module_load_safetensors(missing, FIX "mlp.safetensors", 0), CT_OK);
    CHECK_EQ_INT(ct_module_load_safetensors(unexpected, FIX "mlp.safetensors", 0), CT_OK);
    ct_module *ref = mlp3(196, 32, 10);
    CHECK_EQ_INT(ct_module_load_safetensors(ref, FIX "mlp.safetensors", 1), CT_OK);
    CHECK_EQ_INT(ct_equal(ct_module_get(missing, "2.weight"), ct_module_get(ref, "2.weight")), 1);
    CHECK_EQ_INT(ct_equal(ct_module_get(unexpected, "0.bias"), ct_module_get(ref, "0.bias")), 1);
    ct_module_free(missing);
    ct_module_free(unexpected);
    ct_module_free(size);
    ct_module_free(before);
    ct_module_free(ref);
}

TEST(test_dtype_mismatch_names_the_key) {
    ct_set_default_dtype(CT_FLOAT64);
    ct_module *d = mlp3(196, 32, 10);
    ct_set_default_dtype(CT_FLOAT32);
    CHECK(ct_get_dtype(ct_module_get(d, "0.weight")) == CT_FLOAT64);
    CHECK_ERR(ct_module_load_safetensors(d, FIX "mlp.safetensors", 1) == CT_OK, CT_ERR_DTYPE,
              "load_safetensors: Error(s) in loading state_dict for Sequential from 'tests/fixtures/interop/mlp.safetensors':"
              "\n\tdtype mismatch for 0.bias: copying a param with dtype torch.float32 from checkpoint, the dtype in current model is torch.float64."
              "\n\tdtype mismatch for 0.weight: copying a param with dtype torch.float32 from checkpoint, the dtype in current model is torch.float64.");
    /* float64 file into the float32 model, in memory; int64 into a float buffer */
    ct_module *f = mlp3(196, 32, 10), *f0 = mlp3(196, 32, 10);
    CHECK_EQ_INT(ct_module_load_safetensors_mem(f0, NULL, 0, 1) != CT_OK, 1);
    {
        void *mem;
        size_t len;
        CHECK_EQ_INT(ct_module_save_safetensors_mem(f, &mem, &len), CT_OK);
        CHECK_EQ_INT(ct_module_load_safetensors_mem(f0, mem, len, 1), CT_OK);
        ct_free(mem);
        CHECK_EQ_INT(ct_module_save_safetensors_mem(d, &mem, &len), CT_OK);
        CHECK_ERR(ct_module_load_safetensors_mem(f, mem, len, 1) == CT_OK, CT_ERR_DTYPE,
                  "dtype mismatch for 2.weight: copying a param with dtype torch.float64 from checkpoint, the dtype in current model is torch.float32.");
        ct_free(mem);
    }
    CHECK(same_state(f, f0));   /* unchanged */
    ct_module *x = mixed_module();
    const char *names[] = {"bn.num_batches_tracked"};
    const ct_tensor *ts[] = {ct_scalar_tensor(3, CT_FLOAT32)};
    CHECK_EQ_INT(ct_save_safetensors_n(tmp_path, 1, names, ts, 0, NULL, NULL), CT_OK);
    CHECK_ERR(ct_module_load_safetensors(x, tmp_path, 0) == CT_OK, CT_ERR_DTYPE,
              "dtype mismatch for bn.num_batches_tracked: copying a param with dtype torch.float32 from checkpoint, the dtype in current model is torch.int64.");
    remove(tmp_path);
    ct_module_free(x);
    ct_module_free(d);
    ct_module_free(f);
    ct_module_free(f0);
}

TEST(test_bad_files_and_arguments) {
    ct_module *m = mlp3(196, 32, 10);
    CHECK_ERR(ct_module_load_safetensors(m, FIX "no_such_file.safetensors", 1) == CT_OK, CT_ERR_IO,
              "load_safetensors: No such file or directory: 'tests/fixtures/interop/no_such_file.safetensors'");
    CHECK_ERR(ct_module_load_safetensors(NULL, FIX "mlp.safetensors", 1) == CT_OK, CT_ERR_ARG, "load_safetensors: module is NULL");
    CHECK_ERR(ct_module_load_safetensors(m, NULL, 1) == CT_OK, CT_ERR_ARG, "load_safetensors: path is NULL");
    CHECK_ERR(ct_module_save_safetensors(NULL, tmp_path) == CT_OK, CT_ERR_ARG, "save_safetensors: module is NULL");
    CHECK_ERR(ct_module_save_safetensors(m, NULL) == CT_OK, CT_ERR_ARG, "save_safetensors: path is NULL");
    CHECK_ERR(ct_module_save_safetensors(m, "/nonexistent_dir/x.safetensors") == CT_OK, CT_ERR_IO, "save_safetensors: cannot create");
    CHECK_ERR(ct_module_save_safetensors_mem(m, NULL, NULL) == CT_OK, CT_ERR_ARG, "save_safetensors: output pointers are NULL");
    CHECK_ERR(ct_module_load_safetensors_mem(m, NULL, 5, 1) == CT_OK, CT_ERR_ARG, "load_safetensors: data is NULL");
    /* a truncated file: a format error naming the source, the model untouched */
    size_t n;
    unsigned char *file = read_all(FIX "mlp.safetensors", &n);
    ct_module *ref = mlp3(196, 32, 10);
    CHECK_EQ_INT(ct_module_load_safetensors(ref, FIX "mlp.safetensors", 1), CT_OK);
    CHECK_EQ_INT(ct_module_load_safetensors(m, FIX "mlp.safetensors", 1), CT_OK);
    CHECK_ERR(ct_module_load_safetensors_mem(m, file, n - 4, 1) == CT_OK, CT_ERR_FORMAT, "<memory>");
    CHECK_ERR(ct_module_load_safetensors_mem(m, file, 6, 1) == CT_OK, CT_ERR_FORMAT, "<memory>");
    FILE *f = fopen(tmp_path, "wb");
    if (f) { fwrite(file, 1, n / 2, f); fclose(f); }
    CHECK_ERR(ct_module_load_safetensors(m, tmp_path, 1) == CT_OK, CT_ERR_FORMAT, tmp_path);
    remove(tmp_path);
    CHECK(same_state(m, ref));
    free(file);
    ct_module_free(m);
    ct_module_free(ref);
}

/* ------------------------------------------------------------ no leaks over many saves/loads */
TEST(test_memory_flat) {
    ct_module *a = mlp3(16, 8, 4), *b = mlp3(16, 8, 4);
    int64_t t0 = ct_live_tensors(), b0 = ct_live_bytes();
    for (int i = 0; i < 50; i++) {
        void *mem = NULL;
        size_t len = 0;
        ct_module_save_safetensors_mem(a, &mem, &len);
        ct_module_load_safetensors_mem(b, mem, len, 1);
        ct_module_load_safetensors_mem(b, mem, len / 2, 1);   /* failing loads leak nothing either */
        ct_free(mem);
    }
    CHECK_EQ_INT(ct_live_tensors(), t0);
    CHECK_EQ_INT(ct_live_bytes(), b0);
    ct_module_free(a);
    ct_module_free(b);
}

/* ------------------------------------------------------------ a 1,000-step training loop stays flat */
TEST(test_training_loop_memory_flat) {
    ct_manual_seed(11);
    ct_module *m = ct_nn_sequential(ct_nn_linear(20, 32), ct_nn_relu(), ct_nn_linear(32, 4));
    ct_tensor *x = ct_randn(CT_FLOAT32, 16, 20);
    ct_tensor *y = ct_randint(0, 4, CT_INT64, 16);
    ct_optimizer *opt = ct_optim_sgd(m, &(ct_sgd_options){.lr = 0.05, .momentum = 0.9});
    CHECK(m && x && y && opt);
    if (!m || !x || !y || !opt) { ct_optim_free(opt); ct_module_free(m); return; }
    int64_t t10 = 0, b10 = 0;
    double first = 0, last = 0;
    int failed = 0;
    for (int step = 1; step <= 1000; step++) {
        CT_SCOPE {
            ct_tensor *loss = ct_cross_entropy(ct_forward(m, x), y, NULL);
            ct_zero_grad(opt);
            if (!loss || ct_backward(loss) != CT_OK || ct_step(opt) != CT_OK) { failed = 1; break; }
            last = ct_item(loss);
            if (step == 1) first = last;
        }
        if (failed) break;
        if (step == 10) { t10 = ct_live_tensors(); b10 = ct_live_bytes(); }
    }
    CHECK(!failed);
    CHECK_EQ_INT(ct_live_tensors(), t10);
    CHECK_EQ_INT(ct_live_bytes(), b10);
    CT_T_REPORT(last < 0.25 * first && last < 0.1, "loss %g -> %g", first, last);
    ct_optim_free(opt);
    ct_module_free(m);
}

/* ------------------------------------------------------------ named children (torchvision-style keys) */
TEST(test_named_sequential_loads_pytorch_keys) {
    /* PyTorch: nn.Sequential(OrderedDict([("features", nn.Sequential(OrderedDict(...))), ("heads", ...)])) */
    ct_module *m = NULL;
    CT_SKIP_INIT {   /* the weights come from the file */
        m = ct_nn_sequential_dict(
            {"features", ct_nn_sequential_dict({"conv1", ct_nn_conv2d_ex(3, 8, 3, 2, 1, 1, 1, 0)},
                                               {"bn1", ct_nn_batch_norm2d(8)},
                                               {"relu", ct_nn_relu()},
                                               {"conv2", ct_nn_conv2d_ex(8, 8, 3, 1, 1, 1, 2, 0)},
                                               {"pool", ct_nn_adaptive_avg_pool2d(1, 1)},
                                               {"flatten", ct_nn_flatten()})},
            {"heads", ct_nn_sequential_dict({"head", ct_nn_linear(8, 5)})});
    }
    CHECK(m != NULL);
    if (!m) return;
    size_t rlen = 0;
    unsigned char *want_repr = read_all(FIX "named_repr.txt", &rlen);
    char buf[2048];
    ct_module_repr(m, buf, sizeof buf);
    CHECK_STR(buf, (const char *)want_repr);
    free(want_repr);
    CHECK_EQ_INT(ct_module_load_safetensors(m, FIX "named.safetensors", 1), CT_OK);
    ct_safetensors *st = ct_safetensors_load(FIX "named.safetensors");
    CHECK(st && ct_safetensors_count(st) == 9);
    CHECK(st && ct_safetensors_get(st, "heads.head.weight") != NULL);
    for (int i = 0; st && i < ct_safetensors_count(st); i++) {
        const char *name = ct_safetensors_name(st, i);
        CHECK_EQ_INT(ct_equal(ct_module_get(m, name), ct_safetensors_get(st, name)), 1);
    }
    ct_safetensors_free(st);
    ct_tensor *x = ct_load_npy(FIX "named_x.npy"), *want = ct_load_npy(FIX "named_logits.npy");
    CHECK(x && want);
    ct_module_eval(m);
    ct_tensor *got = NULL;
    CT_NO_GRAD { got = ct_forward(m, x); }
    CHECK(got && want && ct_same_shape(got, want));
    double d = got && want ? max_abs_diff(got, want) : INFINITY;
    CT_T_REPORT(d <= 1e-5, "named model logits max |diff| %g > 1e-5", d);
    /* a name that is not there: the error names the closest ones */
    CHECK_ERR(ct_module_get(m, "heads.haed.weight"), CT_ERR_ARG,
              "module_get: module 'heads' (Sequential) has no child module 'haed' (looking up 'heads.haed.weight'); did you mean 'head'?");
    ct_module_free(m);
}

int main(int argc, char **argv) {
    (void)argc;
    ct_t_init();
    snprintf(tmp_path, sizeof tmp_path, "%s.tmp.safetensors", argv[0]);
    int64_t t0 = ct_live_tensors();
    RUN(test_pytorch_weights_reproduce_logits);
    RUN(test_pytorch_cnn_reproduces_logits);
    RUN(test_named_sequential_loads_pytorch_keys);
    RUN(test_ctensor_bytes_equal_export_py);
    RUN(test_dtypes_preserved_both_ways);
    RUN(test_roundtrip_bit_exact);
    RUN(test_strict_reports_match_pytorch);
    RUN(test_dtype_mismatch_names_the_key);
    RUN(test_bad_files_and_arguments);
    RUN(test_memory_flat);
    RUN(test_training_loop_memory_flat);
    CHECK_EQ_INT(ct_live_tensors(), t0);
    return ct_t_summary();
}
