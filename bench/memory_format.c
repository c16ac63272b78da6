/* Memory formats (issue 17): a conv-bn-relu stack in NCHW and in channels-last,
   each line timed like its twin bench/torch/memory_format.py (1 thread both).
   Three blocks of conv2d 64->64 3x3 (padding 1, no bias), batch_norm, relu on a
   1x64x56x56 input (the first stage of a ResNet at 224x224; PyTorch's
   channels-last tutorial converts the input and the model, as the _cl cases do):
     cbr3_eval_fwd_*       batch_norm in evaluation mode, no grad (inference)
     cbr3_train_fwd_bwd_*  batch_norm in training mode, forward + backward to the
                           input and every weight (torch.autograd.grad)
   _cl: input and conv weights channels-last (x.contiguous(memory_format=...)). */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"

#define NB 3
typedef struct {
    ct_tensor *x, *g, *w[NB], *bw[NB], *bb[NB], *rm[NB], *rv[NB];
} cbr_state;

static ct_tensor *cbr_forward(cbr_state *s, int training) {
    ct_tensor *y = s->x;
    ct_conv_options o = {.padding = 1};
    for (int i = 0; i < NB; i++)
        y = ct_relu(ct_batch_norm(ct_conv2d(y, s->w[i], NULL, &o), s->rm[i], s->rv[i], s->bw[i], s->bb[i], training, 0.1, 1e-5));
    return y;
}
static void cbr_eval(void *u) {
    CT_SCOPE CT_NO_GRAD { cbr_forward((cbr_state *)u, 0); }
}
static void cbr_train(void *u) {
    cbr_state *s = (cbr_state *)u;
    CT_SCOPE {
        ct_tensor *y = cbr_forward(s, 1);
        ct_tensor *ins[1 + 3 * NB], *gr[1 + 3 * NB];
        ins[0] = s->x;
        for (int i = 0; i < NB; i++) { ins[1 + 3 * i] = s->w[i]; ins[2 + 3 * i] = s->bw[i]; ins[3 + 3 * i] = s->bb[i]; }
        ct_autograd_grad(1, &y, &s->g, 1 + 3 * NB, ins, gr, NULL);
    }
}
/* the same values in both formats; cl: the input, the conv weights and the upstream gradient channels-last */
static void cbr_setup(cbr_state *s, int cl) {
    ct_manual_seed(0);
    ct_memory_format f = cl ? CT_CHANNELS_LAST : CT_CONTIGUOUS_FORMAT;
    s->x = ct_retain(ct_requires_grad(ct_contiguous_format(ct_randn(CT_FLOAT32, 1, 64, 56, 56), f)));
    s->g = ct_retain(ct_contiguous_format(ct_randn(CT_FLOAT32, 1, 64, 56, 56), f));
    for (int i = 0; i < NB; i++) {
        s->w[i] = ct_retain(ct_requires_grad(ct_contiguous_format(ct_mul_scalar(ct_randn(CT_FLOAT32, 64, 64, 3, 3), 0.05), f)));
        s->bw[i] = ct_retain(ct_requires_grad(ct_ones(CT_FLOAT32, 64)));
        s->bb[i] = ct_retain(ct_requires_grad(ct_zeros(CT_FLOAT32, 64)));
        s->rm[i] = ct_retain(ct_zeros(CT_FLOAT32, 64));
        s->rv[i] = ct_retain(ct_ones(CT_FLOAT32, 64));
    }
}

int main(void) {
    bench_begin("memory_format");
    bench_set_threads(1);
    cbr_state nchw, cl;
    CT_SCOPE {
        cbr_setup(&nchw, 0);
        cbr_setup(&cl, 1);
    }
    bench_run("cbr3_eval_fwd_1x64x56x56", "f32 NCHW, no grad", cbr_eval, &nchw);
    bench_run("cbr3_eval_fwd_1x64x56x56_cl", "f32 channels-last, no grad", cbr_eval, &cl);
    bench_run("cbr3_train_fwd_bwd_1x64x56x56", "f32 NCHW", cbr_train, &nchw);
    bench_run("cbr3_train_fwd_bwd_1x64x56x56_cl", "f32 channels-last", cbr_train, &cl);
    return 0;
}
