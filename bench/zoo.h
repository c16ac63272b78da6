/* zoo.h - models and the training step shared by the benchmarks (models.c,
   modules.c, train.c). Include it after ctensor.h and ctensor_nn.h (with
   CTENSOR_IMPLEMENTATION defined in the including file).

     bench_resnet18(classes)  torchvision's ResNet-18 (torchvision/models/resnet.py:
                              BasicBlock [2, 2, 2, 2]) with its initialisation: every
                              layer's default init, then kaiming_normal_(fan_out, relu)
                              over the convolutions and BatchNorm's 1 / 0
     bench_job                a model, its optimizer and one batch (x, y)
     bench_train_step(job)    one training step: logits = model(x); loss =
                              cross_entropy(logits, y); zero_grad (grads set to None);
                              backward; optimizer step. The twins' step is
                              bench/torch/ctbench.py's train_step. */
#ifndef CT_BENCH_ZOO_H
#define CT_BENCH_ZOO_H
#include <stdio.h>
#include <string.h>

/* BasicBlock: children conv1, bn1, relu, conv2, bn2 [, downsample] (looked up by
   position: the forward runs in every timed step) */
static inline ct_tensor *bench__block_forward(ct_module *m, int nin, ct_tensor *const *in) {
    (void)nin;
    ct_tensor *x = in[0];
    ct_tensor *out = ct_forward(m->children[1].module, ct_forward(m->children[0].module, x));   /* bn1(conv1(x)) */
    out = ct_forward(m->children[4].module, ct_forward(m->children[3].module, ct_relu(out)));  /* bn2(conv2(.)) */
    ct_tensor *identity = m->nchildren > 5 ? ct_forward(m->children[5].module, x) : x;        /* downsample */
    return ct_relu(ct_add(out, identity));
}
static const ct_module_type bench__basic_block_type = {"BasicBlock", bench__block_forward, NULL, NULL};

static inline ct_module *bench__basic_block(int64_t in, int64_t out, int64_t stride) {
    ct_module *b = ct_module_new(&bench__basic_block_type, NULL);
    ct_module_add_module(b, "conv1", ct_nn_conv2d_ex(in, out, 3, stride, 1, 1, 1, 0));
    ct_module_add_module(b, "bn1", ct_nn_batch_norm2d(out));
    ct_module_add_module(b, "relu", ct_nn_relu());
    ct_module_add_module(b, "conv2", ct_nn_conv2d_ex(out, out, 3, 1, 1, 1, 1, 0));
    ct_module_add_module(b, "bn2", ct_nn_batch_norm2d(out));
    if (stride != 1 || in != out)
        ct_module_add_module(b, "downsample", ct_nn_sequential(ct_nn_conv2d_ex(in, out, 1, stride, 0, 1, 1, 0), ct_nn_batch_norm2d(out)));
    return b;
}
static inline ct_tensor *bench__resnet_forward(ct_module *m, int nin, ct_tensor *const *in) {
    (void)nin;
    ct_tensor *x = in[0];
    for (int i = 0; i < m->nchildren - 1; i++) x = ct_forward(m->children[i].module, x);   /* conv1 ... avgpool */
    return ct_forward(m->children[m->nchildren - 1].module, ct_flatten(x, 1, -1));          /* fc */
}
static const ct_module_type bench__resnet_type = {"ResNet", bench__resnet_forward, NULL, NULL};

/* kaiming_normal_(mode="fan_out", nonlinearity="relu") over every Conv2d, BatchNorm 1 / 0
   (ResNet.__init__'s loop over self.modules()) */
static inline void bench__resnet_reinit(ct_module *m) {
    if (!strcmp(m->type->name, "Conv2d")) ct_nn_init_kaiming_normal_(ct_module_get(m, "weight"), 0, "fan_out", "relu");
    if (!strcmp(m->type->name, "BatchNorm2d")) {
        ct_nn_init_ones_(ct_module_get(m, "weight"));
        ct_nn_init_zeros_(ct_module_get(m, "bias"));
    }
    for (int i = 0; i < m->nchildren; i++) bench__resnet_reinit(m->children[i].module);
}
static inline ct_module *bench_resnet18(int64_t classes) {
    ct_module *r = ct_module_new(&bench__resnet_type, NULL);
    ct_module_add_module(r, "conv1", ct_nn_conv2d_ex(3, 64, 7, 2, 3, 1, 1, 0));
    ct_module_add_module(r, "bn1", ct_nn_batch_norm2d(64));
    ct_module_add_module(r, "relu", ct_nn_relu());
    ct_pool_options pool = {0};
    pool.stride = 2;
    pool.padding = 1;
    ct_module_add_module(r, "maxpool", ct_nn_max_pool2d_opts(3, &pool));
    int64_t in = 64;
    static const int64_t widths[4] = {64, 128, 256, 512};
    for (int l = 0; l < 4; l++) {
        char name[16];
        snprintf(name, sizeof name, "layer%d", l + 1);
        int64_t stride = l ? 2 : 1;
        ct_module_add_module(r, name,
                             ct_nn_sequential(bench__basic_block(in, widths[l], stride), bench__basic_block(widths[l], widths[l], 1)));
        in = widths[l];
    }
    ct_module_add_module(r, "avgpool", ct_nn_adaptive_avg_pool2d(1, 1));
    ct_module_add_module(r, "fc", ct_nn_linear(512, classes));
    bench__resnet_reinit(r);
    return r;
}

typedef struct bench_job {
    ct_module *model;
    ct_optimizer *opt;
    ct_tensor *x, *y;
} bench_job;

/* one training step; returns the loss (valid until the scope ends) through *loss_out
   when it is not NULL, and CT_OK or the failing call's status */
static inline ct_status bench_train_step_checked(const bench_job *j, double *loss_out) {
    ct_status st = CT_OK;
    CT_SCOPE {
        ct_tensor *loss = ct_cross_entropy(ct_forward(j->model, j->x), j->y, NULL);
        ct_zero_grad(j->opt);
        if (!loss) { st = ct_last_error_code(); break; }
        if ((st = ct_backward(loss)) != CT_OK || (st = ct_step(j->opt)) != CT_OK) break;
        if (loss_out) *loss_out = ct_item(loss);
    }
    return st;
}
static inline void bench_train_step(void *u) { (void)bench_train_step_checked((const bench_job *)u, NULL); }
#endif
