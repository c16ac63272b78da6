/* quant_models: post-training static int8 quantization of torchvision's quantizable
   ResNet-18 and MobileNetV3-Small (bench/quant_zoo.h: the layouts of
   torchvision/models/quantization), random weights (qz_init: torchvision's
   initialisation with kaiming fan_in), one 1x3x224x224 image:
     MODEL_int8_1x3x224x224_t{1,2}   fused (qz_fuse), prepared with the x86 qconfig,
                                     calibrated on two random 2x3x224x224 batches,
                                     converted; float in, float out
     MODEL_f32_1x3x224x224_t{1,2}    the same model in float32 (NCHW), no grad
   It prints each model's output SQNR (int8 against float, dB) on the timed image.
   PyTorch twin: bench/torch/quant_models.py (the same models and workflow on each of
   its quantized engines, then the fastest under the plain name).
   Targets (issue 12): the int8 model at least 2x ctensor's float model and faster
   than PyTorch's quantized model on its best engine. */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"
#include "ctensor_quant.h"
#include "quant_zoo.h"

typedef struct { ct_module *m; ct_tensor *x; } m_case;
static ct_tensor *volatile sink;
static void run_model(void *u) {
    m_case *c = (m_case *)u;
    CT_SCOPE { sink = ct_forward(c->m, c->x); }
}
static int fail(const char *what) {
    fprintf(stderr, "quant_models: %s: %s\n", what, ct_last_error());
    return 1;
}

int main(void) {
    bench_begin("quant_models (ctensor_quant.h static PTQ: quantizable ResNet-18, MobileNetV3-Small)");
    ct_set_grad_enabled(0);
    static const int64_t widths[4] = {64, 128, 256, 512};
    ct_manual_seed(1);
    ct_tensor *calib[2], *img;
    for (int i = 0; i < 2; i++) calib[i] = ct_retain(ct_randn(CT_FLOAT32, 2, 3, 224, 224));
    img = ct_retain(ct_randn(CT_FLOAT32, 1, 3, 224, 224));
    for (int which = 0; which < 2; which++) {
        const char *name = which ? "mobilenet_v3_small" : "resnet18";
        ct_manual_seed(0);
        ct_module *f = which ? qz_mobilenet_v3_small(1000) : qz_resnet(64, widths, 4, 1000);
        if (!f) return fail(name);
        qz_init(f);
        ct_module_eval(f);
        ct_module *q = which ? qz_mobilenet_v3_small(1000) : qz_resnet(64, widths, 4, 1000);
        ct_state_dict sd;
        if (!q || ct_module_state_dict(f, &sd) != CT_OK) return fail(name);
        ct_status st = ct_module_load_state_dict(q, &sd, 1);
        ct_state_dict_free(&sd);
        ct_qconfig qc = ct_qconfig_default_x86();
        if (st != CT_OK || qz_fuse(ct_module_eval(q)) != CT_OK || ct_quant_prepare(q, &qc, NULL) < 0) return fail(name);
        for (int i = 0; i < 2; i++) CT_SCOPE { ct_forward(q, calib[i]); }
        if (ct_quant_convert(q) < 0) return fail(name);
        CT_SCOPE {
            ct_tensor *yf = ct_forward(f, img), *yq = ct_forward(q, img);
            if (!yf || !yq) return fail(name);
            printf("# %s: int8 output SQNR against float %.1f dB, top-1 agrees: %s\n", name, ct_q_sqnr(yf, yq),
                   ct_item_int(ct_argmax(yf)) == ct_item_int(ct_argmax(yq)) ? "yes" : "no");
        }
        for (int t = 1; t <= 2; t++) {
            bench_set_threads(t);
            char case_name[96], params[64];
            m_case mq = {q, img}, mf = {f, img};
            snprintf(params, sizeof params, "1x3x224x224, threads=%d", t);
            snprintf(case_name, sizeof case_name, "%s_int8_1x3x224x224_t%d", name, t);
            bench_run(case_name, params, run_model, &mq);
            snprintf(case_name, sizeof case_name, "%s_f32_1x3x224x224_t%d", name, t);
            bench_run(case_name, params, run_model, &mf);
        }
        ct_module_free(f);
        ct_module_free(q);
    }
    for (int i = 0; i < 2; i++) ct_release(calib[i]);
    ct_release(img);
    return 0;
}
