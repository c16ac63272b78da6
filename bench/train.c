/* train.c - one full training step, batch 64, float32, model in train mode.
   Twin: bench/torch/train.py.

   A step: logits = model(x); loss = cross_entropy(logits, y); zero_grad (grads set
   to None); loss.backward(); optimizer.step(). x and y (labels in 0..9) are random,
   drawn once up front; the model keeps training on the same batch.
     train_mlp_sgd_b64_t*    MLP 784-512-256-10 (ReLU), SGD lr 0.01 momentum 0.9
     train_mlp_adam_b64_t*   the same MLP, Adam lr 1e-3
     train_cnn_sgd_b64_t*    CNN (the Fashion-MNIST one, examples/fashion_mnist.c):
                             conv 1->32 3x3 pad 1, BatchNorm2d, ReLU, MaxPool 2,
                             conv 32->64 3x3 pad 1, BatchNorm2d, ReLU, MaxPool 2,
                             Flatten, Linear 3136-128, ReLU, Linear 128-10;
                             SGD lr 0.01 momentum 0.9; x [64, 1, 28, 28]
   Threads: t1 / t2 (bench_set_threads; the twin: torch.set_num_threads). */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"
#include "zoo.h"

/* Runs one step and checks that it worked (and that the loss is finite), so a
   failing step is reported instead of being timed as a fast no-op. */
static int works(const char *name, const bench_job *j) {
    double v = -1;
    ct_clear_error();
    int ok = bench_train_step_checked(j, &v) == CT_OK && v == v && v > 0 && v < 1e6;
    if (!ok) printf("# %s: FAILED: %s\n", name, ct_last_error_code() != CT_OK ? ct_last_error() : "bad loss");
    return ok;
}

static ct_module *make_mlp(void) {
    return ct_nn_sequential(ct_nn_linear(784, 512), ct_nn_relu(), ct_nn_linear(512, 256), ct_nn_relu(),
                            ct_nn_linear(256, 10));
}
static ct_module *make_cnn(void) {
    return ct_nn_sequential(ct_nn_conv2d(1, 32, 3, 1, 1), ct_nn_batch_norm2d(32), ct_nn_relu(), ct_nn_max_pool2d(2, 2),
                            ct_nn_conv2d(32, 64, 3, 1, 1), ct_nn_batch_norm2d(64), ct_nn_relu(), ct_nn_max_pool2d(2, 2),
                            ct_nn_flatten(), ct_nn_linear(3136, 128), ct_nn_relu(), ct_nn_linear(128, 10));
}

int main(void) {
    bench_begin("train");
    ct_manual_seed(0);
    int root = ct_scope_begin();
    ct_tensor *xm = ct_randn(CT_FLOAT32, 64, 784), *xc = ct_randn(CT_FLOAT32, 64, 1, 28, 28);
    ct_tensor *y = ct_randint(0, 10, CT_INT64, 64);
    if (!xm || !xc || !y) {
        fprintf(stderr, "train: setup failed: %s\n", ct_last_error());
        return 1;
    }
    static const struct { const char *name, *params; int cnn, adam; } cases[] = {
        {"train_mlp_sgd_b64", "MLP 784-512-256-10, SGD lr 0.01 m 0.9", 0, 0},
        {"train_mlp_adam_b64", "MLP 784-512-256-10, Adam lr 1e-3", 0, 1},
        {"train_cnn_sgd_b64", "CNN conv32-bn-pool-conv64-bn-pool-3136-128-10, SGD lr 0.01 m 0.9", 1, 0}};
    static const int threads[] = {1, 2};
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        char name[96];
        int any = 0;
        for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++) {
            snprintf(name, sizeof name, "%s_t%d", cases[ci].name, threads[ti]);
            any |= bench_selected(name);
        }
        if (!any) continue;
        bench_job j = {cases[ci].cnn ? make_cnn() : make_mlp(), NULL, cases[ci].cnn ? xc : xm, y};
        if (j.model) {
            ct_module_train(j.model, 1);
            j.opt = cases[ci].adam ? ct_optim_adam(j.model, &(ct_adam_options){.lr = 1e-3})
                                   : ct_optim_sgd(j.model, &(ct_sgd_options){.lr = 0.01, .momentum = 0.9});
        }
        for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++) {
            snprintf(name, sizeof name, "%s_t%d", cases[ci].name, threads[ti]);
            if (!bench_selected(name)) continue;
            if (!j.model || !j.opt) {
                printf("# %s: FAILED: %s\n", name, ct_last_error());
                continue;
            }
            bench_set_threads(threads[ti]);
            if (!works(name, &j)) continue;
            bench_run(name, cases[ci].params, bench_train_step, &j);
        }
        if (j.opt) ct_optim_free(j.opt);
        if (j.model) ct_module_free(j.model);
    }
    ct_scope_end(root);
    return 0;
}
