/* models.c - whole models: torchvision's ResNet-18 and MobileNetV3-Small, random weights,
   float32, NCHW. Twin: bench/torch/models.py (the same layouts in plain torch.nn).
     MODEL_eval_NxCxHxW_tT    eval mode, forward under CT_INFERENCE_MODE
                              (PyTorch: model.eval(), torch.inference_mode())
     MODEL_train_NxCxHxW_tT   one training step in train mode: logits = model(x);
                              loss = cross_entropy(logits, y) (fixed labels in 0..999);
                              zero_grad (grads set to None); backward; SGD lr 0.01
                              momentum 0.9 step. The model keeps training on the same batch.
   MODEL: resnet18, mobilenet_v3_small; inputs 2x3x64x64 and 1x3x224x224; T: 1 and 2
   threads (bench_set_threads; the twin: torch.set_num_threads).

   Layouts (torchvision 0.14, the release for PyTorch 1.13):
     resnet18            torchvision/models/resnet.py: BasicBlock [2, 2, 2, 2], 1000 classes
     mobilenet_v3_small  torchvision/models/mobilenetv3.py: Conv2dNormActivation stem (3->16,
                         3x3 s2, Hardswish), 11 InvertedResidual blocks (expand 1x1, depthwise
                         kxk, SqueezeExcitation (squeeze = _make_divisible(exp // 4, 8), ReLU,
                         Hardsigmoid), project 1x1), last conv 96->576 1x1 Hardswish,
                         BatchNorm eps 0.001 momentum 0.01, AdaptiveAvgPool2d(1), classifier
                         Linear(576, 1024) - Hardswish - Dropout(0.2) - Linear(1024, 1000).
                         Initialisation as torchvision's (kaiming_normal_ fan_out over the
                         convolutions, BatchNorm 1 / 0, Linear normal(0, 0.01) / 0).
   Before timing, checks (the program fails, exit status 1, when one does not hold):
   the parameter count is torchvision's (printed), eval forward at both inputs gives
   [N, 1000] finite logits, the same again on a second run, batch rows independent of
   each other in eval mode (row 0 of the 2-image batch = the model on image 0 alone),
   and a training step gives a finite loss. */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"
#include "zoo.h"

/* ResNet-18: bench/zoo.h's bench_resnet18 (shared with bench/modules.c) */
static ct_module *resnet18(void) { return bench_resnet18(1000); }

/* ---- MobileNetV3-Small (torchvision/models/mobilenetv3.py, torchvision/ops/misc.py) ---- */
static int64_t make_divisible(double v, int64_t divisor) {   /* _make_divisible(v, 8), min_value = divisor */
    int64_t n = (int64_t)(v + (double)divisor / 2) / divisor * divisor;
    if (n < divisor) n = divisor;
    if ((double)n < 0.9 * v) n += divisor;
    return n;
}
static const ct_batch_norm_options mnv3_bn = {.eps = 0.001, .momentum = 0.01};
enum { ACT_NONE, ACT_RE, ACT_HS };
/* Conv2dNormActivation: Sequential(Conv2d(bias=False), BatchNorm2d, activation) */
static ct_module *conv_norm_act(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t groups, int act) {
    ct_module *conv = ct_nn_conv2d_ex(in, out, k, stride, (k - 1) / 2, 1, groups, 0);
    ct_module *bn = ct_nn_batch_norm2d_ex(out, &mnv3_bn);
    if (act == ACT_NONE) return ct_nn_sequential(conv, bn);
    return ct_nn_sequential(conv, bn, act == ACT_HS ? ct_nn_hardswish() : ct_nn_relu());
}
/* SqueezeExcitation: children avgpool, fc1, fc2, activation (ReLU), scale_activation
   (Hardsigmoid); forward: x * hardsigmoid(fc2(relu(fc1(avgpool(x))))) */
static ct_tensor *se_forward(ct_module *m, int nin, ct_tensor *const *in) {
    (void)nin;
    ct_tensor *x = in[0], *s = ct_forward(m->children[0].module, x);
    s = ct_forward(m->children[3].module, ct_forward(m->children[1].module, s));
    s = ct_forward(m->children[4].module, ct_forward(m->children[2].module, s));
    return ct_mul(s, x);
}
static const ct_module_type se_type = {"SqueezeExcitation", se_forward, NULL, NULL};
static ct_module *squeeze_excitation(int64_t ch, int64_t squeeze) {
    ct_module *m = ct_module_new(&se_type, NULL);
    ct_module_add_module(m, "avgpool", ct_nn_adaptive_avg_pool2d(1, 1));
    ct_module_add_module(m, "fc1", ct_nn_conv2d_ex(ch, squeeze, 1, 1, 0, 1, 1, 1));
    ct_module_add_module(m, "fc2", ct_nn_conv2d_ex(squeeze, ch, 1, 1, 0, 1, 1, 1));
    ct_module_add_module(m, "activation", ct_nn_relu());
    ct_module_add_module(m, "scale_activation", ct_nn_hardsigmoid());
    return m;
}
/* InvertedResidual: block (a Sequential); the residual connection when stride 1 and in == out */
static ct_tensor *ir_forward(ct_module *m, int nin, ct_tensor *const *in) {
    (void)nin;
    return ct_forward(m->children[0].module, in[0]);
}
static ct_tensor *ir_res_forward(ct_module *m, int nin, ct_tensor *const *in) {
    (void)nin;
    return ct_add(ct_forward(m->children[0].module, in[0]), in[0]);
}
static const ct_module_type ir_type = {"InvertedResidual", ir_forward, NULL, NULL};
static const ct_module_type ir_res_type = {"InvertedResidual", ir_res_forward, NULL, NULL};
typedef struct bneck { int64_t in, k, exp, out; int se, act; int64_t stride; } bneck;
static ct_module *inverted_residual(const bneck *c) {
    ct_module *layers[4];
    int n = 0;
    if (c->exp != c->in) layers[n++] = conv_norm_act(c->in, c->exp, 1, 1, 1, c->act);                 /* expand */
    layers[n++] = conv_norm_act(c->exp, c->exp, c->k, c->stride, c->exp, c->act);                     /* depthwise */
    if (c->se) layers[n++] = squeeze_excitation(c->exp, make_divisible((double)(c->exp / 4), 8));
    layers[n++] = conv_norm_act(c->exp, c->out, 1, 1, 1, ACT_NONE);                                   /* project */
    ct_module *m = ct_module_new(c->stride == 1 && c->in == c->out ? &ir_res_type : &ir_type, NULL);
    ct_module_add_module(m, "block", ct_nn_sequential_n(n, layers));
    return m;
}
static ct_tensor *mnv3_forward(ct_module *m, int nin, ct_tensor *const *in) {
    (void)nin;
    ct_tensor *x = ct_forward(m->children[1].module, ct_forward(m->children[0].module, in[0]));   /* avgpool(features(x)) */
    return ct_forward(m->children[2].module, ct_flatten(x, 1, -1));                               /* classifier */
}
static const ct_module_type mnv3_type = {"MobileNetV3", mnv3_forward, NULL, NULL};
static void mnv3_reinit(ct_module *m) {
    const char *t = m->type->name;
    if (!strcmp(t, "Conv2d")) {
        ct_nn_init_kaiming_normal_(ct_module_get(m, "weight"), 0, "fan_out", "leaky_relu");
        if (ct_module_get(m, "bias")) ct_nn_init_zeros_(ct_module_get(m, "bias"));
    } else if (!strcmp(t, "BatchNorm2d")) {
        ct_nn_init_ones_(ct_module_get(m, "weight"));
        ct_nn_init_zeros_(ct_module_get(m, "bias"));
    } else if (!strcmp(t, "Linear")) {
        ct_nn_init_normal_(ct_module_get(m, "weight"), 0, 0.01);
        ct_nn_init_zeros_(ct_module_get(m, "bias"));
    }
    for (int i = 0; i < m->nchildren; i++) mnv3_reinit(m->children[i].module);
}
static ct_module *mobilenet_v3_small(void) {
    static const bneck cfg[] = {
        {16, 3, 16, 16, 1, ACT_RE, 2},  {16, 3, 72, 24, 0, ACT_RE, 2},  {24, 3, 88, 24, 0, ACT_RE, 1},
        {24, 5, 96, 40, 1, ACT_HS, 2},  {40, 5, 240, 40, 1, ACT_HS, 1}, {40, 5, 240, 40, 1, ACT_HS, 1},
        {40, 5, 120, 48, 1, ACT_HS, 1}, {48, 5, 144, 48, 1, ACT_HS, 1}, {48, 5, 288, 96, 1, ACT_HS, 2},
        {96, 5, 576, 96, 1, ACT_HS, 1}, {96, 5, 576, 96, 1, ACT_HS, 1}};
    enum { NB = sizeof cfg / sizeof cfg[0] };
    ct_module *features[NB + 2];
    features[0] = conv_norm_act(3, 16, 3, 2, 1, ACT_HS);
    for (int i = 0; i < NB; i++) features[i + 1] = inverted_residual(&cfg[i]);
    features[NB + 1] = conv_norm_act(96, 576, 1, 1, 1, ACT_HS);
    ct_module *m = ct_module_new(&mnv3_type, NULL);
    ct_module_add_module(m, "features", ct_nn_sequential_n(NB + 2, features));
    ct_module_add_module(m, "avgpool", ct_nn_adaptive_avg_pool2d(1, 1));
    ct_module_add_module(m, "classifier", ct_nn_sequential(ct_nn_linear(576, 1024), ct_nn_hardswish(), ct_nn_dropout(0.2),
                                                           ct_nn_linear(1024, 1000)));
    mnv3_reinit(m);
    return m;
}

/* ---- cases ---- */
static void eval_step(void *u) {
    const bench_job *j = (const bench_job *)u;
    CT_SCOPE CT_INFERENCE_MODE ct_forward(j->model, j->x);
}
/* the checks; each prints a comment line and returns 0 when it fails */
static int failed(const char *what) {
    printf("# check: %s: FAILED%s%s\n", what, ct_last_error_code() != CT_OK ? ": " : "",
           ct_last_error_code() != CT_OK ? ct_last_error() : "");
    return 0;
}
static int finite_logits(const ct_tensor *out, int64_t n) {   /* [n, 1000], every value finite */
    if (!out || ct_ndim(out) != 2 || ct_size(out, 0) != n || ct_size(out, 1) != 1000) return 0;
    double s = ct_item(ct_sum(ct_abs(out)));
    return s == s && s < 1e30 && s > 0;
}
static int check_model(const char *name, ct_module *m, int64_t want_params, ct_tensor *const *xs, int nx) {
    char what[160];
    int ok = 1;
    ct_state_dict sd = {0};
    int64_t np = ct_module_num_elements(m);
    int nsd = ct_module_state_dict(m, &sd) == CT_OK ? sd.n : -1;
    ct_state_dict_free(&sd);
    printf("# check: %s: %lld parameters (torchvision: %lld), %d state-dict tensors: %s\n", name, (long long)np,
           (long long)want_params, nsd, np == want_params ? "ok" : "WRONG");
    if (np != want_params) ok = 0;
    ct_module_eval(m);
    for (int i = 0; i < nx && ok; i++) {
        ct_tensor *x = xs[i];
        snprintf(what, sizeof what, "%s eval forward on [%lld, 3, %lld, %lld]", name, (long long)ct_size(x, 0),
                 (long long)ct_size(x, 2), (long long)ct_size(x, 3));
        CT_SCOPE {
            ct_tensor *a = NULL, *b = NULL;
            CT_INFERENCE_MODE {
                a = ct_forward(m, x);
                b = ct_forward(m, x);
            }
            if (!finite_logits(a, ct_size(x, 0))) { ok = failed(what); break; }
            if (ct_equal(a, b) != 1) { ok = failed(strcat(what, ": a second run differs")); break; }
            /* with grad mode on (parameters require grad) the values are the same */
            ct_tensor *c = ct_forward(m, x);
            if (!c || ct_allclose(a, c, 1e-5, 1e-6) != 1) { ok = failed(strcat(what, ": grad mode differs")); break; }
            if (ct_size(x, 0) > 1) {   /* eval mode: a row does not depend on the other images */
                ct_tensor *one = NULL;
                CT_INFERENCE_MODE one = ct_forward(m, ct_narrow(x, 0, 0, 1));
                if (!one || ct_allclose(one, ct_narrow(a, 0, 0, 1), 1e-4, 1e-5) != 1) {
                    ok = failed(strcat(what, ": image 0 alone differs from row 0"));
                    break;
                }
            }
            printf("# check: %s: [%lld, %lld] finite logits, std %.4g, repeatable, rows independent: ok\n", what,
                   (long long)ct_size(a, 0), (long long)ct_size(a, 1), ct_item(ct_std(a)));
        }
    }
    return ok;
}
/* one training step on a copy of the state: builds its own model so the timed one is untouched */
static int check_train(const char *name, ct_module *(*make)(void), ct_tensor *x, ct_tensor *y) {
    char what[160];
    snprintf(what, sizeof what, "%s train step on [%lld, 3, %lld, %lld]", name, (long long)ct_size(x, 0),
             (long long)ct_size(x, 2), (long long)ct_size(x, 3));
    ct_module *m = make();
    ct_optimizer *opt = m ? ct_optim_sgd(m, &(ct_sgd_options){.lr = 0.01, .momentum = 0.9}) : NULL;
    int ok = 0;
    double l0 = 0, l1 = 0;
    if (opt) {
        ct_module_train(m, 1);
        int good = 1;
        for (int it = 0; it < 2 && good; it++) CT_SCOPE {
            good = 0;
            ct_tensor *loss = ct_cross_entropy(ct_forward(m, x), y, NULL);
            ct_zero_grad(opt);
            if (!loss || ct_backward(loss) != CT_OK || ct_step(opt) != CT_OK) break;
            ct_tensor *g = ct_grad(ct_module_get(m, name[0] == 'r' ? "conv1.weight" : "features.0.0.weight"));
            if (!g) break;
            double v = ct_item(loss), gs = ct_item(ct_sum(ct_abs(g)));
            if (!(v == v && v > 0 && v < 1e6 && gs == gs && gs > 0 && gs < 1e30)) break;
            good = 1;
            if (it == 0) l0 = v; else l1 = v;
        }
        ok = good;
    }
    if (ok) printf("# check: %s: loss %.4f then %.4f, first conv's grad finite and non-zero: ok\n", what, l0, l1);
    else failed(what);
    if (opt) ct_optim_free(opt);
    if (m) ct_module_free(m);
    return ok;
}

int main(void) {
    bench_begin("models");
    ct_manual_seed(0);
    int root = ct_scope_begin();
    static const int64_t inputs[2][4] = {{2, 3, 64, 64}, {1, 3, 224, 224}};
    ct_tensor *xs[2], *ys[2];
    for (int i = 0; i < 2; i++) {
        xs[i] = ct_randn(CT_FLOAT32, inputs[i][0], inputs[i][1], inputs[i][2], inputs[i][3]);
        ys[i] = ct_randint(0, 1000, CT_INT64, inputs[i][0]);
        if (!xs[i] || !ys[i]) {
            fprintf(stderr, "models: setup failed: %s\n", ct_last_error());
            return 1;
        }
    }
    static const struct { const char *name; ct_module *(*make)(void); int64_t params; } models[] = {
        {"resnet18", resnet18, 11689512},
        {"mobilenet_v3_small", mobilenet_v3_small, 2542856}};
    static const int threads[] = {1, 2};
    int status = 0;
    for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
        bench_set_threads(1);
        bench_job j = {models[mi].make(), NULL, NULL, NULL};
        if (!j.model || !(j.opt = ct_optim_sgd(j.model, &(ct_sgd_options){.lr = 0.01, .momentum = 0.9}))) {
            printf("# %s: FAILED to build: %s\n", models[mi].name, ct_last_error());
            status = 1;
            continue;
        }
        int ok = check_model(models[mi].name, j.model, models[mi].params, xs, 2);
        for (int i = 0; i < 2 && ok; i++) ok = check_train(models[mi].name, models[mi].make, xs[i], ys[i]);
        if (!ok) status = 1;
        for (int train = 0; train < 2 && ok; train++) {
            if (train) ct_module_train(j.model, 1);
            else ct_module_eval(j.model);
            for (int i = 0; i < 2; i++) {
                j.x = xs[i];
                j.y = ys[i];
                for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++) {
                    char name[96], params[96];
                    snprintf(name, sizeof name, "%s_%s_%lldx%lldx%lldx%lld_t%d", models[mi].name, train ? "train" : "eval",
                             (long long)inputs[i][0], (long long)inputs[i][1], (long long)inputs[i][2],
                             (long long)inputs[i][3], threads[ti]);
                    snprintf(params, sizeof params, "%s", train ? "fwd + CE + zero_grad + bwd + SGD m0.9" : "inference mode");
                    bench_set_threads(threads[ti]);
                    bench_run(name, params, train ? bench_train_step : eval_step, &j);
                }
            }
        }
        ct_optim_free(j.opt);
        ct_module_free(j.model);
    }
    ct_scope_end(root);
    return status;
}
