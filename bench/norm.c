/* Normalization and recurrent-layer benchmarks, each line timed like its twin
   bench/torch/norm.py (1 thread both):
     batch_norm2d_train_fwd_bwd_*   F.batch_norm in training mode (running stats
                                    updated) + backward to x, weight, bias: the two
                                    BatchNorm2d layers of the Fashion-MNIST CNN
     batch_norm2d_train_fwd_*       the forward alone
     batch_norm2d_eval_*            F.batch_norm in evaluation mode (running stats),
                                    no grad, NCHW and channels-last: a ResNet layer
     layer_norm_fwd_bwd_4096x768    F.layer_norm over the last dim + backward
     layer_norm_fwd_4096x768        the forward alone
     lstm_fwd_seq32_b16_h256        nn.LSTM(256, 256) forward, no grad */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"

typedef struct { ct_tensor *x, *w, *b, *rm, *rv, *g; } bn_state;
static void bn_fwd_bwd(void *u) {
    bn_state *s = (bn_state *)u;
    CT_SCOPE {
        ct_tensor *y = ct_batch_norm(s->x, s->rm, s->rv, s->w, s->b, 1, 0.1, 1e-5);
        ct_tensor *ins[3] = {s->x, s->w, s->b}, *gr[3];
        ct_autograd_grad(1, &y, &s->g, 3, ins, gr, NULL);
    }
}
static void bn_fwd(void *u) {
    bn_state *s = (bn_state *)u;
    CT_SCOPE CT_NO_GRAD { ct_batch_norm(s->x, s->rm, s->rv, s->w, s->b, 1, 0.1, 1e-5); }
}
static void bn_eval(void *u) {
    bn_state *s = (bn_state *)u;
    CT_SCOPE CT_NO_GRAD { ct_batch_norm(s->x, s->rm, s->rv, s->w, s->b, 0, 0.1, 1e-5); }
}
static int64_t ln_shape[1] = {768};
static void ln_fwd_bwd(void *u) {
    bn_state *s = (bn_state *)u;
    CT_SCOPE {
        ct_tensor *y = ct_layer_norm(s->x, 1, ln_shape, s->w, s->b, 1e-5);
        ct_tensor *ins[3] = {s->x, s->w, s->b}, *gr[3];
        ct_autograd_grad(1, &y, &s->g, 3, ins, gr, NULL);
    }
}
static void ln_fwd(void *u) {
    bn_state *s = (bn_state *)u;
    CT_SCOPE CT_NO_GRAD { ct_layer_norm(s->x, 1, ln_shape, s->w, s->b, 1e-5); }
}
static ct_module *LSTM;
static ct_tensor *SEQ;
static void lstm_fwd(void *u) {
    (void)u;
    CT_SCOPE CT_NO_GRAD { ct_lstm_forward(LSTM, SEQ, NULL, NULL, NULL, NULL); }
}

static void bn_setup(bn_state *s, int64_t n, int64_t c, int64_t h, int64_t w) {
    s->x = ct_retain(ct_requires_grad(ct_randn(CT_FLOAT32, n, c, h, w)));
    s->w = ct_retain(ct_requires_grad(ct_ones(CT_FLOAT32, c)));
    s->b = ct_retain(ct_requires_grad(ct_zeros(CT_FLOAT32, c)));
    s->rm = ct_retain(ct_zeros(CT_FLOAT32, c));
    s->rv = ct_retain(ct_ones(CT_FLOAT32, c));
    s->g = ct_retain(ct_randn(CT_FLOAT32, n, c, h, w));
}

int main(void) {
    bench_begin("norm");
    bench_set_threads(1);
    ct_manual_seed(0);
    bn_state a, b, l, e, ec;
    CT_SCOPE {
        bn_setup(&a, 64, 32, 28, 28);
        bn_setup(&b, 64, 64, 14, 14);
        bn_setup(&e, 1, 64, 56, 56);
        ec = e;
        ec.x = ct_retain(ct_to_channels_last(e.x));
        l.x = ct_retain(ct_requires_grad(ct_randn(CT_FLOAT32, 4096, 768)));
        l.w = ct_retain(ct_requires_grad(ct_randn(CT_FLOAT32, 768)));
        l.b = ct_retain(ct_requires_grad(ct_randn(CT_FLOAT32, 768)));
        l.g = ct_retain(ct_randn(CT_FLOAT32, 4096, 768));
        l.rm = l.rv = NULL;
        LSTM = ct_nn_lstm(256, 256, NULL);
        SEQ = ct_retain(ct_randn(CT_FLOAT32, 32, 16, 256));
    }
    bench_run("batch_norm2d_train_fwd_bwd_64x32x28x28", "f32 NCHW", bn_fwd_bwd, &a);
    bench_run("batch_norm2d_train_fwd_bwd_64x64x14x14", "f32 NCHW", bn_fwd_bwd, &b);
    bench_run("batch_norm2d_train_fwd_64x32x28x28", "f32 NCHW", bn_fwd, &a);
    bench_run("batch_norm2d_train_fwd_64x64x14x14", "f32 NCHW", bn_fwd, &b);
    bench_run("batch_norm2d_eval_1x64x56x56", "f32 NCHW, no grad", bn_eval, &e);
    bench_run("batch_norm2d_eval_1x64x56x56_cl", "f32 channels-last, no grad", bn_eval, &ec);
    bench_run("layer_norm_fwd_bwd_4096x768", "f32, last dim", ln_fwd_bwd, &l);
    bench_run("layer_norm_fwd_4096x768", "f32, last dim", ln_fwd, &l);
    bench_run("lstm_fwd_seq32_b16_h256", "f32, 1 layer, no grad", lstm_fwd, NULL);
    ct_module_free(LSTM);
    return 0;
}
