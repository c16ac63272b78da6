/* Observer and fake-quantization benchmarks (ctensor_quant.h), each line timed like
   its twin bench/torch/quant_observer.py (1 thread both), on 1M float32 randn values:
     histogram_observer_fwd_1M        a fresh HistogramObserver (2048 bins) sees x:
                                      aminmax + histc over int(min)..int(max)
     histogram_observer_fwd2_1M       a fresh one sees x, then 3x (a wider range): the
                                      second call combines the histograms (upsampled
                                      by 128, downsampled, interpolated)
     histogram_observer_qparams       calculate_qparams after those two calls: the
                                      L2 search over start / end bins (_non_linear_param_search)
     minmax_observer_fwd_1M           MinMaxObserver forward (running min / max)
     per_channel_minmax_fwd_64x16384  PerChannelMinMaxObserver forward, 64 channels
     fake_quantize_per_tensor_1M      torch.fake_quantize_per_tensor_affine, no grad
     fake_quantize_per_channel_64x16384  torch.fake_quantize_per_channel_affine, axis 0 */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"
#include "ctensor_quant.h"

static ct_tensor *X, *X3, *XPC, *SC, *ZP;
static ct_module *HIST2;
static void hist_fwd(void *u) {
    (void)u;
    ct_module *o = ct_histogram_observer(NULL);
    CT_SCOPE { ct_forward(o, X); }
    ct_module_free(o);
}
static void hist_fwd2(void *u) {
    (void)u;
    ct_module *o = ct_histogram_observer(NULL);
    CT_SCOPE {
        ct_forward(o, X);
        ct_forward(o, X3);
    }
    ct_module_free(o);
}
static void hist_qparams(void *u) {
    (void)u;
    CT_SCOPE {
        ct_tensor *s, *z;
        ct_observer_calculate_qparams(HIST2, &s, &z);
    }
}
static ct_module *MM, *PC;
static void mm_fwd(void *u) {
    (void)u;
    CT_SCOPE { ct_forward(MM, X); }
}
static void pc_fwd(void *u) {
    (void)u;
    CT_SCOPE { ct_forward(PC, XPC); }
}
static void fq_pt(void *u) {
    (void)u;
    CT_SCOPE CT_NO_GRAD { ct_fake_quantize_per_tensor_affine(X, 0.02, 128, 0, 255); }
}
static void fq_pc(void *u) {
    (void)u;
    CT_SCOPE CT_NO_GRAD { ct_fake_quantize_per_channel_affine(XPC, SC, ZP, 0, -128, 127); }
}

int main(void) {
    bench_begin("quant_observer");
    bench_set_threads(1);
    ct_manual_seed(0);
    X = ct_retain(ct_randn(CT_FLOAT32, 1 << 20));
    X3 = ct_retain(ct_mul_scalar_(ct_clone(X), 3.0));
    XPC = ct_retain(ct_randn(CT_FLOAT32, 64, 16384));
    SC = ct_retain(ct_full(CT_FLOAT32, 0.02, 64));
    ZP = ct_retain(ct_zeros(CT_INT32, 64));
    HIST2 = ct_histogram_observer(NULL);
    CT_SCOPE {
        ct_forward(HIST2, X);
        ct_forward(HIST2, X3);
    }
    MM = ct_minmax_observer(NULL);
    PC = ct_per_channel_minmax_observer(NULL);
    bench_run("histogram_observer_fwd_1M", "f32, 2048 bins", hist_fwd, NULL);
    bench_run("histogram_observer_fwd2_1M", "f32, 2048 bins, 2 calls", hist_fwd2, NULL);
    bench_run("histogram_observer_qparams", "2048 bins, after fwd2", hist_qparams, NULL);
    bench_run("minmax_observer_fwd_1M", "f32", mm_fwd, NULL);
    bench_run("per_channel_minmax_fwd_64x16384", "f32, axis 0", pc_fwd, NULL);
    bench_run("fake_quantize_per_tensor_1M", "f32, no grad", fq_pt, NULL);
    bench_run("fake_quantize_per_channel_64x16384", "f32, axis 0, no grad", fq_pc, NULL);
    ct_module_free(HIST2);
    ct_module_free(MM);
    ct_module_free(PC);
    ct_release(X);
    ct_release(X3);
    ct_release(XPC);
    ct_release(SC);
    ct_release(ZP);
    return 0;
}
