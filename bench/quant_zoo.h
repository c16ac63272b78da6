/* quant_zoo.h - torchvision's quantizable ResNet and MobileNetV3 layouts
   (torchvision/models/quantization/resnet.py, mobilenetv3.py), shared by
   bench/quant_models.c and tests/quant/test_quant_models.h. Include it after
   ctensor.h, ctensor_nn.h and ctensor_quant.h (with CTENSOR_IMPLEMENTATION defined
   in the including file).

     qz_resnet(stem, widths, nlayers, classes)
         QuantizableResNet of BasicBlocks, two per layer (ResNet-18: stem 64,
         widths {64, 128, 256, 512}, 4 layers): the residual through a
         FloatFunctional "add_relu"; children conv1, bn1, relu, maxpool, layer1..N,
         avgpool, fc, quant, dequant (torchvision's order and names)
     qz_mobilenet_v3(cfg, n, stem, last, hidden, classes)
         QuantizableMobileNetV3: features (stem Conv2dNormActivation with Hardswish,
         the InvertedResidual blocks of cfg, the last 1x1 Conv2dNormActivation),
         avgpool, classifier (Linear, Hardswish, Dropout(0.2), Linear), quant,
         dequant; each InvertedResidual's residual through FloatFunctional
         "skip_add", each SqueezeExcitation's scaling through "skip_mul"
     qz_mobilenet_v3_small(classes)   torchvision's MobileNetV3-Small configuration
     qz_fuse(model), qz_fuse_qat      torchvision's fuse_model(is_qat): conv + bn (+ relu)
                                      of every block, SE's fc1 + ReLU
     qz_init(model)                   random weights as torchvision's initialisation
                                      (kaiming normal convolutions, BatchNorm 1 / 0,
                                      Linear normal(0, 0.01)) but with mode "fan_in":
                                      torchvision's "fan_out" makes a random MobileNet's
                                      depthwise layers shrink the signal until its output
                                      is about 1e-9, which no quantized model keeps */
#ifndef CT_BENCH_QUANT_ZOO_H
#define CT_BENCH_QUANT_ZOO_H
#include <stdio.h>
#include <string.h>
#include "zoo.h"

/* the direct child `name` of m, NULL when absent (quietly: the forwards and qz_fuse probe) */
static inline ct_module *qz__c(ct_module *m, const char *name) {
    for (int i = 0; m && i < m->nchildren; i++)
        if (m->children[i].module && !strcmp(m->children[i].name, name)) return m->children[i].module;
    return NULL;
}

/* ---- QuantizableResNet ---- */
static inline ct_tensor *qz__block_forward(ct_module *m, int nin, ct_tensor *const *in) {
    (void)nin;
    ct_tensor *x = in[0];
    ct_tensor *out = ct_forward(qz__c(m, "relu"), ct_forward(qz__c(m, "bn1"), ct_forward(qz__c(m, "conv1"), x)));
    out = ct_forward(qz__c(m, "bn2"), ct_forward(qz__c(m, "conv2"), out));
    ct_module *ds = qz__c(m, "downsample");
    return ct_ff_add_relu(qz__c(m, "add_relu"), out, ds ? ct_forward(ds, x) : x);
}
static const ct_module_type qz__block_type = {"QuantizableBasicBlock", qz__block_forward, NULL, NULL};
/* bench/zoo.h's BasicBlock (its children and initialisation), with this forward and a
   FloatFunctional "add_relu" */
static inline ct_module *qz__block(int64_t in, int64_t out, int64_t stride) {
    ct_module *b = bench__basic_block(in, out, stride);
    b->type = &qz__block_type;
    ct_module_add_module(b, "add_relu", ct_nn_float_functional());
    return b;
}
static inline ct_tensor *qz__resnet_forward(ct_module *m, int nin, ct_tensor *const *in) {
    (void)nin;
    ct_tensor *x = ct_forward(qz__c(m, "quant"), in[0]);
    x = ct_forward(qz__c(m, "maxpool"), ct_forward(qz__c(m, "relu"), ct_forward(qz__c(m, "bn1"), ct_forward(qz__c(m, "conv1"), x))));
    for (int i = 0; i < m->nchildren; i++)
        if (!strncmp(m->children[i].name, "layer", 5)) x = ct_forward(m->children[i].module, x);
    x = ct_forward(qz__c(m, "fc"), ct_flatten(ct_forward(qz__c(m, "avgpool"), x), 1, -1));
    return ct_forward(qz__c(m, "dequant"), x);
}
static const ct_module_type qz__resnet_type = {"QuantizableResNet", qz__resnet_forward, NULL, NULL};
static inline ct_module *qz_resnet(int64_t stem, const int64_t *widths, int nlayers, int64_t classes) {
    ct_module *r = ct_module_new(&qz__resnet_type, NULL);
    ct_module_add_module(r, "conv1", ct_nn_conv2d_ex(3, stem, 7, 2, 3, 1, 1, 0));
    ct_module_add_module(r, "bn1", ct_nn_batch_norm2d(stem));
    ct_module_add_module(r, "relu", ct_nn_relu());
    ct_pool_options pool = {0};
    pool.stride = 2;
    pool.padding = 1;
    ct_module_add_module(r, "maxpool", ct_nn_max_pool2d_opts(3, &pool));
    int64_t in = stem;
    for (int l = 0; l < nlayers; l++) {
        char name[32];
        snprintf(name, sizeof name, "layer%d", l + 1);
        ct_module_add_module(r, name, ct_nn_sequential(qz__block(in, widths[l], l ? 2 : 1), qz__block(widths[l], widths[l], 1)));
        in = widths[l];
    }
    ct_module_add_module(r, "avgpool", ct_nn_adaptive_avg_pool2d(1, 1));
    ct_module_add_module(r, "fc", ct_nn_linear(in, classes));
    ct_module_add_module(r, "quant", ct_nn_quant_stub());
    ct_module_add_module(r, "dequant", ct_nn_dequant_stub());
    return r;
}

/* ---- QuantizableMobileNetV3 ---- */
typedef struct qz_bneck { int64_t in, k, exp, out; int se, hs; int64_t stride; } qz_bneck;
static inline int64_t qz__make_divisible(double v, int64_t divisor) {   /* torchvision's _make_divisible(v, 8) */
    int64_t n = (int64_t)(v + (double)divisor / 2) / divisor * divisor;
    if (n < divisor) n = divisor;
    if ((double)n < 0.9 * v) n += divisor;
    return n;
}
/* Conv2dNormActivation: Sequential(Conv2d(bias=False), BatchNorm2d(eps 0.001, momentum 0.01)[, act]);
   act 0 none, 1 ReLU, 2 Hardswish */
static inline ct_module *qz__cna(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t groups, int act) {
    static const ct_batch_norm_options bn = {.eps = 0.001, .momentum = 0.01};
    ct_module *conv = ct_nn_conv2d_ex(in, out, k, stride, (k - 1) / 2, 1, groups, 0), *norm = ct_nn_batch_norm2d_ex(out, &bn);
    if (!act) return ct_nn_sequential(conv, norm);
    return ct_nn_sequential(conv, norm, act == 2 ? ct_nn_hardswish() : ct_nn_relu());
}
static inline ct_tensor *qz__se_forward(ct_module *m, int nin, ct_tensor *const *in) {
    (void)nin;
    ct_tensor *s = ct_forward(qz__c(m, "fc1"), ct_forward(qz__c(m, "avgpool"), in[0]));
    s = ct_forward(qz__c(m, "scale_activation"), ct_forward(qz__c(m, "fc2"), ct_forward(qz__c(m, "activation"), s)));
    return ct_ff_mul(qz__c(m, "skip_mul"), s, in[0]);
}
static const ct_module_type qz__se_type = {"QuantizableSqueezeExcitation", qz__se_forward, NULL, NULL};
static inline ct_tensor *qz__ir_forward(ct_module *m, int nin, ct_tensor *const *in) {
    (void)nin;
    ct_tensor *y = ct_forward(qz__c(m, "block"), in[0]);
    return m->impl ? ct_ff_add(qz__c(m, "skip_add"), in[0], y) : y;   /* impl non-NULL: the residual connection */
}
static const ct_module_type qz__ir_type = {"QuantizableInvertedResidual", qz__ir_forward, NULL, NULL};
static inline ct_module *qz__ir(const qz_bneck *c) {
    ct_module *layers[4];
    int n = 0;
    const int act = c->hs ? 2 : 1;
    if (c->exp != c->in) layers[n++] = qz__cna(c->in, c->exp, 1, 1, 1, act);
    layers[n++] = qz__cna(c->exp, c->exp, c->k, c->stride, c->exp, act);
    if (c->se) {
        int64_t sq = qz__make_divisible((double)(c->exp / 4), 8);
        ct_module *se = ct_module_new(&qz__se_type, NULL);
        ct_module_add_module(se, "avgpool", ct_nn_adaptive_avg_pool2d(1, 1));
        ct_module_add_module(se, "fc1", ct_nn_conv2d_ex(c->exp, sq, 1, 1, 0, 1, 1, 1));
        ct_module_add_module(se, "fc2", ct_nn_conv2d_ex(sq, c->exp, 1, 1, 0, 1, 1, 1));
        ct_module_add_module(se, "activation", ct_nn_relu());
        ct_module_add_module(se, "scale_activation", ct_nn_hardsigmoid());
        ct_module_add_module(se, "skip_mul", ct_nn_float_functional());
        layers[n++] = se;
    }
    layers[n++] = qz__cna(c->exp, c->out, 1, 1, 1, 0);
    static char residual;   /* a non-NULL impl marks the residual form (nothing to free) */
    ct_module *m = ct_module_new(&qz__ir_type, c->stride == 1 && c->in == c->out ? &residual : NULL);
    ct_module_add_module(m, "block", ct_nn_sequential_n(n, layers));
    ct_module_add_module(m, "skip_add", ct_nn_float_functional());
    return m;
}
static inline ct_tensor *qz__mnv3_forward(ct_module *m, int nin, ct_tensor *const *in) {
    (void)nin;
    ct_tensor *x = ct_forward(qz__c(m, "avgpool"), ct_forward(qz__c(m, "features"), ct_forward(qz__c(m, "quant"), in[0])));
    return ct_forward(qz__c(m, "dequant"), ct_forward(qz__c(m, "classifier"), ct_flatten(x, 1, -1)));
}
static const ct_module_type qz__mnv3_type = {"QuantizableMobileNetV3", qz__mnv3_forward, NULL, NULL};
static inline ct_module *qz_mobilenet_v3(const qz_bneck *cfg, int n, int64_t stem, int64_t last, int64_t hidden, int64_t classes) {
    ct_module *features[32];
    int k = 0;
    features[k++] = qz__cna(3, stem, 3, 2, 1, 2);
    for (int i = 0; i < n && k < 31; i++) features[k++] = qz__ir(&cfg[i]);
    features[k++] = qz__cna(cfg[n - 1].out, last, 1, 1, 1, 2);
    ct_module *m = ct_module_new(&qz__mnv3_type, NULL);
    ct_module_add_module(m, "features", ct_nn_sequential_n(k, features));
    ct_module_add_module(m, "avgpool", ct_nn_adaptive_avg_pool2d(1, 1));
    ct_module_add_module(m, "classifier", ct_nn_sequential(ct_nn_linear(last, hidden), ct_nn_hardswish(), ct_nn_dropout(0.2),
                                                           ct_nn_linear(hidden, classes)));
    ct_module_add_module(m, "quant", ct_nn_quant_stub());
    ct_module_add_module(m, "dequant", ct_nn_dequant_stub());
    return m;
}
static inline ct_module *qz_mobilenet_v3_small(int64_t classes) {
    static const qz_bneck cfg[] = {
        {16, 3, 16, 16, 1, 0, 2},  {16, 3, 72, 24, 0, 0, 2},  {24, 3, 88, 24, 0, 0, 1},  {24, 5, 96, 40, 1, 1, 2},
        {40, 5, 240, 40, 1, 1, 1}, {40, 5, 240, 40, 1, 1, 1}, {40, 5, 120, 48, 1, 1, 1}, {48, 5, 144, 48, 1, 1, 1},
        {48, 5, 288, 96, 1, 1, 2}, {96, 5, 576, 96, 1, 1, 1}, {96, 5, 576, 96, 1, 1, 1}};
    return qz_mobilenet_v3(cfg, (int)(sizeof cfg / sizeof cfg[0]), 16, 576, 1024, classes);
}

/* ---- fuse_model() ---- */
static inline int qz__is(const ct_module *m, const char *name) { return m && !strcmp(m->type->name, name); }
static inline ct_status qz__fuse(ct_module *root, int qat, int n, const char *a, const char *b, const char *c) {
    const char *names[3] = {a, b, c};
    return qat ? ct_fuse_modules_qat_n(root, n, names) : ct_fuse_modules_n(root, n, names);
}
static inline ct_status qz__fuse_walk(ct_module *root, ct_module *m, const char *path, int qat) {
    char a[256], b[256], c[256];
#define QZ__P(buf, nm) snprintf(buf, sizeof buf, "%s%s%s", path, path[0] ? "." : "", nm)
    ct_status st = CT_OK;
    if (qz__is(qz__c(m, "conv1"), "Conv2d") && qz__is(qz__c(m, "bn1"), "BatchNorm2d")) {   /* ResNet stem, BasicBlock */
        QZ__P(a, "conv1"); QZ__P(b, "bn1"); QZ__P(c, "relu");
        st = qz__fuse(root, qat, 3, a, b, c);
        if (st == CT_OK && qz__c(m, "conv2")) {
            QZ__P(a, "conv2"); QZ__P(b, "bn2");
            st = qz__fuse(root, qat, 2, a, b, NULL);
        }
    } else if (qz__is(m, "Sequential") && qz__is(qz__c(m, "0"), "Conv2d") && qz__is(qz__c(m, "1"), "BatchNorm2d")) {
        QZ__P(a, "0"); QZ__P(b, "1"); QZ__P(c, "2");
        st = qz__fuse(root, qat, qz__is(qz__c(m, "2"), "ReLU") ? 3 : 2, a, b, c);
    } else if (qz__is(m, "QuantizableSqueezeExcitation")) {
        QZ__P(a, "fc1"); QZ__P(b, "activation");
        st = qz__fuse(root, qat, 2, a, b, NULL);
    }
    for (int i = 0; i < m->nchildren && st == CT_OK; i++) {
        ct_module *ch = m->children[i].module;
        if (!ch || ch->nchildren == 0) continue;
        QZ__P(a, m->children[i].name);
        st = qz__fuse_walk(root, ch, a, qat);
    }
#undef QZ__P
    return st;
}
static inline ct_status qz_fuse(ct_module *model) { return qz__fuse_walk(model, model, "", 0); }
static inline ct_status qz_fuse_qat(ct_module *model) { return qz__fuse_walk(model, model, "", 1); }

/* ---- random weights (qz_init) ---- */
static inline void qz_init(ct_module *m) {
    const char *t = m->type->name;
    if (!strcmp(t, "Conv2d")) {
        ct_nn_init_kaiming_normal_(ct_module_get(m, "weight"), 0, "fan_in", "relu");
        if (ct_module_get(m, "bias")) ct_nn_init_zeros_(ct_module_get(m, "bias"));
    } else if (!strcmp(t, "BatchNorm2d")) {
        ct_nn_init_ones_(ct_module_get(m, "weight"));
        ct_nn_init_zeros_(ct_module_get(m, "bias"));
    } else if (!strcmp(t, "Linear")) {
        ct_nn_init_normal_(ct_module_get(m, "weight"), 0, 0.01);
        ct_nn_init_zeros_(ct_module_get(m, "bias"));
    }
    for (int i = 0; i < m->nchildren; i++)
        if (m->children[i].module) qz_init(m->children[i].module);
}
#endif
