/* quant: int8 inference through ctensor_quant.h beside its float32 twin.
     linear_dyn_1024_b{1,32}_t{1,2}            a dynamic quantized Linear 1024 -> 1024
                                               (ct_nnq_dynamic_linear, per-tensor qint8
                                               weight, reduce_range as PyTorch on x86):
                                               the input quantized per call, int8 GEMM,
                                               float32 output
     mlp_dyn_1024_4096_1024_b{1,32}_t{1,2}     Linear 1024 -> 4096, ReLU, Linear 4096 ->
                                               1024, both dynamic quantized
     linear_f32_1024_b*, mlp_f32_1024_4096_1024_b*  the same on ctensor's float32 Linear
                                               (ct_linear: CBLAS here), no grad
     quantize_per_tensor_1M_t{1,2}             torch.quantize_per_tensor on 1M float32s to quint8
     convnet_static_1x3x64x64_t{1,2}           static PTQ int8 of a small conv net (conv 3->32
                                               /2, conv 32->64, max pool, conv 64->128, each
                                               with relu; global average pool, Linear 128->10;
                                               x86 qconfig, calibrated on random data), one
                                               1x3x64x64 image in, float out
     convnet_f32_1x3x64x64_t{1,2}              the same net in float32 (NCHW), no grad
     qconv_<shape>_t{1,2}                      one quantized conv2d (ct_q_conv2d, no relu),
                                               quint8 channels-last input, per-channel
                                               symmetric qint8 weight, float bias, batch 1:
                                               3x3_64_56 (ResNet-18 layer1: 64->64 at 56x56,
                                               pad 1), 7x7s2_3_224 (its stem: 3->64 at 224,
                                               pad 3), 3x3_512_7 (layer4), 1x1_256_64_28
                                               (pointwise 256->64 at 28x28), dw5x5_576_14
                                               (depthwise 5x5 at 14x14, pad 2), dw3x3s2_16_112
                                               (depthwise 3x3 stride 2, 16 channels at 112)
   PyTorch twin: bench/torch/quant.py, which times the dynamic cases on each of its
   quantized engines (its own cases ..._qnnpack, ..._onednn), then its fastest engine
   again under the plain name that ctensor's case has, and the float32 ones with
   torch.no_grad().
   Targets (issue 12): the int8 Linear and MLP faster than PyTorch's best engine; the
   int8 Linear at batch 32 at least 2x ctensor's float32 Linear; the static conv net
   faster than PyTorch's best engine and 2x ctensor's float32 net. */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"
#include "ctensor_quant.h"

typedef struct {
    ct_module *l1, *l2;          /* l2 NULL: one Linear */
    ct_tensor *x;
} net_case;
static ct_tensor *volatile sink;

static void run_net(void *u) {
    net_case *c = (net_case *)u;
    CT_SCOPE {
        ct_tensor *y = ct_forward(c->l1, c->x);
        if (c->l2) y = ct_forward(c->l2, ct_relu(y));
        sink = y;
    }
}
typedef struct { ct_tensor *x; } q_case;
static void run_quantize(void *u) {
    q_case *c = (q_case *)u;
    CT_SCOPE { sink = ct_quantize_per_tensor(c->x, 0.02, 120, CT_QUINT8); }
}

/* the conv net, float, with QuantStub / DeQuantStub around it */
static ct_module *convnet(void) {
    return ct_nn_sequential_dict({"quant", ct_nn_quant_stub()}, {"c1", ct_nn_conv2d(3, 32, 3, 2, 1)}, {"r1", ct_nn_relu()},
                                 {"c2", ct_nn_conv2d(32, 64, 3, 1, 1)}, {"r2", ct_nn_relu()}, {"p", ct_nn_max_pool2d(2, 2)},
                                 {"c3", ct_nn_conv2d(64, 128, 3, 1, 1)}, {"r3", ct_nn_relu()}, {"gap", ct_nn_adaptive_avg_pool2d(1, 1)},
                                 {"flat", ct_nn_flatten()}, {"fc", ct_nn_linear(128, 10)}, {"dequant", ct_nn_dequant_stub()});
}
typedef struct { ct_module *m; ct_tensor *x; } m_case;
/* one quantized conv: weight N(0, 1) quantized per channel (symmetric, scale max|w| / 127) */
typedef struct { ct_q_conv_packed *p; ct_tensor *x; } qconv_case;
static void run_qconv(void *u) {
    qconv_case *c = (qconv_case *)u;
    CT_SCOPE { sink = ct_q_conv2d(c->x, c->p, 0.5, 64); }
}
static int qconv_make(qconv_case *c, int64_t C, int64_t O, int64_t k, int64_t s, int64_t pad, int64_t groups, int64_t hw) {
    int ok = 0;
    CT_SCOPE {
        ct_tensor *w = ct_randn(CT_FLOAT32, O, C / groups, k, k);
        int64_t d1 = 1;
        ct_tensor *sc = ct_mul_scalar(ct_amax(ct_abs(ct_reshape(w, O, -1)), 1, &d1, 0), 1.0 / 127.0);
        ct_tensor *q = ct_quantize_per_channel(w, sc, ct_zeros(CT_INT64, O), 0, CT_QINT8);
        ct_conv_options o;
        memset(&o, 0, sizeof o);
        o.stride = s;
        o.padding = pad;
        o.groups = groups;
        c->p = q ? ct_q_conv2d_prepack(q, ct_randn(CT_FLOAT32, O), &o) : NULL;
        c->x = ct_retain(ct_to_channels_last(ct_quantize_per_tensor(ct_randn(CT_FLOAT32, 1, C, hw, hw), 0.05, 64, CT_QUINT8)));
        ok = c->p && c->x;
    }
    return ok ? 0 : -1;
}
static void run_model(void *u) {
    m_case *c = (m_case *)u;
    CT_SCOPE { sink = ct_forward(c->m, c->x); }
}

int main(void) {
    bench_begin("quant (ctensor_quant.h int8 GEMM, dynamic quantized Linear)");
    ct_set_grad_enabled(0);
    ct_manual_seed(0);
    ct_module *f1 = ct_nn_linear(1024, 1024), *f2a = ct_nn_linear(1024, 4096), *f2b = ct_nn_linear(4096, 1024);
    ct_module *q1 = ct_nnq_dynamic_linear(f1, 0, 1), *q2a = ct_nnq_dynamic_linear(f2a, 0, 1), *q2b = ct_nnq_dynamic_linear(f2b, 0, 1);
    if (!q1 || !q2a || !q2b) {
        fprintf(stderr, "quant: %s\n", ct_last_error());
        return 1;
    }
    printf("# int8 GEMM path: %s\n", ct_q_gemm_path_name(ct_q_gemm_path_used()));
    for (int t = 1; t <= 2; t++) {
        bench_set_threads(t);
        for (int bi = 0; bi < 2; bi++) {
            int b = bi ? 32 : 1;
            char name[96], params[96];
            ct_tensor *x = ct_retain(ct_randn(CT_FLOAT32, b, 1024));
            net_case lin_q = {q1, NULL, x}, lin_f = {f1, NULL, x}, mlp_q = {q2a, q2b, x}, mlp_f = {f2a, f2b, x};
            bench_opts o1 = {1, 0, 2.0 * b * 1024 * 1024, NULL}, o2 = {1, 0, 2.0 * 2 * b * 1024 * 4096, NULL};
            snprintf(params, sizeof params, "batch=%d threads=%d", b, t);
            snprintf(name, sizeof name, "linear_dyn_1024_b%d_t%d", b, t);
            bench_run_opts(name, params, run_net, &lin_q, &o1);
            snprintf(name, sizeof name, "linear_f32_1024_b%d_t%d", b, t);
            bench_run_opts(name, params, run_net, &lin_f, &o1);
            snprintf(name, sizeof name, "mlp_dyn_1024_4096_1024_b%d_t%d", b, t);
            bench_run_opts(name, params, run_net, &mlp_q, &o2);
            snprintf(name, sizeof name, "mlp_f32_1024_4096_1024_b%d_t%d", b, t);
            bench_run_opts(name, params, run_net, &mlp_f, &o2);
            ct_release(x);
        }
        char name[64], params[64];
        q_case qc = {ct_retain(ct_randn(CT_FLOAT32, 1 << 20))};
        bench_opts oq = {1, 5.0 * (1 << 20), 0, NULL};
        snprintf(name, sizeof name, "quantize_per_tensor_1M_t%d", t);
        snprintf(params, sizeof params, "1M float32 -> quint8, threads=%d", t);
        bench_run_opts(name, params, run_quantize, &qc, &oq);
        ct_release(qc.x);
    }
    /* the static conv net: float, then fused, prepared, calibrated, converted */
    ct_manual_seed(1);
    ct_module *cf = ct_module_eval(convnet()), *cq = ct_module_eval(convnet());
    ct_state_dict sd;
    if (!cf || !cq || ct_module_state_dict(cf, &sd) != CT_OK || ct_module_load_state_dict(cq, &sd, 1) != CT_OK) {
        fprintf(stderr, "quant: %s\n", ct_last_error());
        return 1;
    }
    ct_state_dict_free(&sd);
    ct_qconfig qc = ct_qconfig_default_x86();
    if (ct_fuse_modules(cq, "c1", "r1") || ct_fuse_modules(cq, "c2", "r2") || ct_fuse_modules(cq, "c3", "r3") ||
        ct_quant_prepare(cq, &qc, NULL) < 0) {
        fprintf(stderr, "quant: %s\n", ct_last_error());
        return 1;
    }
    for (int i = 0; i < 8; i++) CT_SCOPE { ct_forward(cq, ct_randn(CT_FLOAT32, 4, 3, 64, 64)); }
    if (ct_quant_convert(cq) < 0) {
        fprintf(stderr, "quant: %s\n", ct_last_error());
        return 1;
    }
    ct_tensor *img = ct_retain(ct_randn(CT_FLOAT32, 1, 3, 64, 64));
    for (int t = 1; t <= 2; t++) {
        bench_set_threads(t);
        char name[64], params[64];
        m_case mq = {cq, img}, mf = {cf, img};
        snprintf(params, sizeof params, "1x3x64x64, threads=%d", t);
        snprintf(name, sizeof name, "convnet_static_1x3x64x64_t%d", t);
        bench_run(name, params, run_model, &mq);
        snprintf(name, sizeof name, "convnet_f32_1x3x64x64_t%d", t);
        bench_run(name, params, run_model, &mf);
    }
    ct_release(img);
    /* single quantized convs of ResNet-18 and MobileNetV3-Small shapes */
    static const struct { const char *name; int64_t C, O, k, s, pad, groups, hw; } qconvs[] = {
        {"3x3_64_56", 64, 64, 3, 1, 1, 1, 56},       {"7x7s2_3_224", 3, 64, 7, 2, 3, 1, 224},
        {"3x3_512_7", 512, 512, 3, 1, 1, 1, 7},      {"1x1_256_64_28", 256, 64, 1, 1, 0, 1, 28},
        {"dw5x5_576_14", 576, 576, 5, 1, 2, 576, 14}, {"dw3x3s2_16_112", 16, 16, 3, 2, 1, 16, 112},
    };
    for (size_t i = 0; i < sizeof qconvs / sizeof qconvs[0]; i++) {
        qconv_case qv;
        ct_manual_seed(2);
        if (qconv_make(&qv, qconvs[i].C, qconvs[i].O, qconvs[i].k, qconvs[i].s, qconvs[i].pad, qconvs[i].groups, qconvs[i].hw)) {
            fprintf(stderr, "quant: %s\n", ct_last_error());
            return 1;
        }
        for (int t = 1; t <= 2; t++) {
            bench_set_threads(t);
            char name[64], params[96];
            int64_t hw = qconvs[i].hw, oh = (hw + 2 * qconvs[i].pad - qconvs[i].k) / qconvs[i].s + 1;
            bench_opts oc = {1, 0, 2.0 * oh * oh * qconvs[i].O * (qconvs[i].C / qconvs[i].groups) * qconvs[i].k * qconvs[i].k, NULL};
            snprintf(name, sizeof name, "qconv_%s_t%d", qconvs[i].name, t);
            snprintf(params, sizeof params, "1x%lldx%lldx%lld, threads=%d", (long long)qconvs[i].C, (long long)hw, (long long)hw, t);
            bench_run_opts(name, params, run_qconv, &qv, &oc);
        }
        ct_q_conv_packed_free(qv.p);
        ct_release(qv.x);
    }
    ct_module_free(cf);
    ct_module_free(cq);
    ct_module_free(q1);
    ct_module_free(q2a);
    ct_module_free(q2b);
    ct_module_free(f1);
    ct_module_free(f2a);
    ct_module_free(f2b);
    return 0;
}
