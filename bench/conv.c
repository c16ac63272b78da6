/* conv.c - convolution and pooling, 1 thread. Twin: bench/torch/conv.py.

   The Fashion-MNIST CNN's layers at batch 64 (float32):
     conv2d_fmnist1_*   x [64, 1, 28, 28],  w [32, 1, 3, 3] + bias, padding 1
     conv2d_fmnist2_*   x [64, 32, 14, 14], w [64, 32, 3, 3] + bias, padding 1
   _fwd: the forward alone (no graph); _fwd_bwd: forward with w, b (and x for
   layer 2, whose input comes from the graph) requiring grad, then backward of
   sum(y * g) with a fixed g; grads are cleared each time (.grad = None).
     max_pool2d_2x2_*   x [64, 32, 28, 28], kernel 2 (the pool after layer 1)
     conv2d_3x3_224_cl  x [1, 64, 224, 224] channels-last, w [64, 64, 3, 3], padding 1: forward
     conv2d_64to64_8x56x56_{nchw,cl}_{fwd,fwd_bwd}
                        x [8, 64, 56, 56], w [64, 64, 3, 3] + bias, padding 1, x contiguous
                        (nchw) or channels-last (cl; the twin makes the weight channels-last
                        too, as module.to(memory_format=torch.channels_last) does);
                        _fwd_bwd: grads for x, w and b (g in x's layout)
     dw3x3_*, dw5x5_*   depthwise (groups = channels) layers of MobileNetV3-Small, batch 1:
                        16ch 112x112 stride 2, 72ch 56x56, 96ch 14x14 5x5 (padding k/2)
     conv1x1_*          pointwise layers: 8x64x56x56 -> 256, 1x16x56x56 -> 72
     conv3x3_2x*        ResNet-18's last layers at a 2x3x64x64 input: 256ch 4x4, 512ch 2x2
                        (padding 1; a batch of few output pixels per sample)
                        (each _{nchw,cl}_{fwd,fwd_bwd}, fwd_bwd with grads for x, w and b;
                        cl: x, w and g channels-last, as in the twin)
     max_pool2d_3x3s2_* x [1, 64, 112, 112], kernel 3, stride 2, padding 1 (ResNet-18's pool
                        after the stem at 224), NCHW and channels-last, forward
   GFLOP/s counts 2 * multiply-adds of the convolution (forward; x3 with backward). */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"

typedef struct job {
    int kind;   /* 0 conv fwd, 1 conv fwd+bwd, 2 pool fwd, 3 pool fwd+bwd, 4 pool 3x3/2 pad 1 fwd */
    ct_tensor *x, *w, *b, *g;
    int64_t pad, stride, groups;
} job;
static ct_tensor *volatile sink;

static void run_case(void *u) {
    const job *j = (const job *)u;
    CT_SCOPE {
        ct_conv_options o = {0};
        o.padding = j->pad;
        o.stride = j->stride;
        o.groups = j->groups;
        if (j->kind == 0) {
            int pg = ct_set_grad_enabled(0);
            sink = ct_conv2d(j->x, j->w, j->b, &o);
            ct_set_grad_enabled(pg);
        } else if (j->kind == 1) {
            ct_tensor *y = ct_conv2d(j->x, j->w, j->b, &o);
            ct_backward(ct_sum(ct_mul(y, j->g)));
            ct_set_grad(j->w, NULL);
            ct_set_grad(j->b, NULL);
            if (ct_get_requires_grad(j->x)) ct_set_grad(j->x, NULL);
            sink = y;
        } else if (j->kind == 2) {
            int pg = ct_set_grad_enabled(0);
            sink = ct_max_pool2d(j->x, 2, NULL);
            ct_set_grad_enabled(pg);
        } else if (j->kind == 4) {
            int pg = ct_set_grad_enabled(0);
            ct_pool_options po = {.stride = 2, .padding = 1};
            sink = ct_max_pool2d(j->x, 3, &po);
            ct_set_grad_enabled(pg);
        } else {
            ct_tensor *y = ct_max_pool2d(j->x, 2, NULL);
            ct_backward(ct_sum(ct_mul(y, j->g)));
            ct_set_grad(j->x, NULL);
            sink = y;
        }
    }
}
static int works(const char *name, const job *j) {
    ct_clear_error();
    run_case((void *)j);
    if (ct_last_error_code() != CT_OK) { printf("# %s: FAILED: %s\n", name, ct_last_error()); return 0; }
    return 1;
}

int main(void) {
    bench_begin("conv");
    bench_set_threads(1);
    ct_manual_seed(0);
    int root = ct_scope_begin();
    struct { const char *name, *params; int64_t n, c, h, o; } L[2] = {
        {"conv2d_fmnist1", "x[64,1,28,28] w[32,1,3,3] pad 1", 64, 1, 28, 32},
        {"conv2d_fmnist2", "x[64,32,14,14] w[64,32,3,3] pad 1", 64, 32, 14, 64}};
    for (int l = 0; l < 2; l++) {
        int64_t n = L[l].n, c = L[l].c, h = L[l].h, o = L[l].o;
        double flops = 2.0 * (double)n * (double)o * (double)h * (double)h * (double)c * 9.0;
        ct_tensor *x = ct_randn(CT_FLOAT32, n, c, h, h), *w = ct_randn(CT_FLOAT32, o, c, 3, 3), *b = ct_randn(CT_FLOAT32, o);
        ct_tensor *g = ct_randn(CT_FLOAT32, n, o, h, h);
        char name[96];
        job jf = {0, x, w, b, g, 1, 1, 1};
        snprintf(name, sizeof name, "%s_b64_fwd", L[l].name);
        bench_opts of = {1, 0, flops, NULL};
        if (works(name, &jf)) bench_run_opts(name, L[l].params, run_case, &jf, &of);
        job jb = {1, l == 1 ? ct_requires_grad(ct_detach(x)) : x, ct_requires_grad(ct_detach(w)), ct_requires_grad(ct_detach(b)), g, 1, 1, 1};
        snprintf(name, sizeof name, "%s_b64_fwd_bwd", L[l].name);
        bench_opts ob = {1, 0, (l == 1 ? 3 : 2) * flops, NULL};
        if (works(name, &jb)) bench_run_opts(name, L[l].params, run_case, &jb, &ob);
    }
    {
        ct_tensor *x = ct_randn(CT_FLOAT32, 64, 32, 28, 28), *g = ct_randn(CT_FLOAT32, 64, 32, 14, 14);
        job jf = {2, x, NULL, NULL, g, 0, 1, 1};
        if (works("max_pool2d_2x2_b64_fwd", &jf)) bench_run("max_pool2d_2x2_b64_fwd", "x[64,32,28,28] k2", run_case, &jf);
        job jb = {3, ct_requires_grad(ct_detach(x)), NULL, NULL, g, 0, 1, 1};
        if (works("max_pool2d_2x2_b64_fwd_bwd", &jb)) bench_run("max_pool2d_2x2_b64_fwd_bwd", "x[64,32,28,28] k2", run_case, &jb);
    }
    {
        ct_tensor *x = ct_to_channels_last(ct_randn(CT_FLOAT32, 1, 64, 224, 224)), *w = ct_randn(CT_FLOAT32, 64, 64, 3, 3);
        job jf = {0, x, w, NULL, NULL, 1, 1, 1};
        bench_opts of = {1, 0, 2.0 * 64 * 224 * 224 * 64 * 9, NULL};
        if (works("conv2d_3x3_224_cl_fwd", &jf)) bench_run_opts("conv2d_3x3_224_cl_fwd", "x[1,64,224,224] channels_last w[64,64,3,3] pad 1", run_case, &jf, &of);
    }
    for (int cl = 0; cl < 2; cl++) {
        double flops = 2.0 * 8 * 64 * 56 * 56 * 64 * 9;
        ct_tensor *x = ct_randn(CT_FLOAT32, 8, 64, 56, 56), *w = ct_randn(CT_FLOAT32, 64, 64, 3, 3);
        ct_tensor *b = ct_randn(CT_FLOAT32, 64), *g = ct_randn(CT_FLOAT32, 8, 64, 56, 56);
        if (cl) { x = ct_to_channels_last(x); g = ct_to_channels_last(g); }
        const char *params = cl ? "x[8,64,56,56] channels_last w[64,64,3,3] pad 1" : "x[8,64,56,56] w[64,64,3,3] pad 1";
        char name[96];
        job jf = {0, x, w, b, g, 1, 1, 1};
        snprintf(name, sizeof name, "conv2d_64to64_8x56x56_%s_fwd", cl ? "cl" : "nchw");
        bench_opts of = {1, 0, flops, NULL};
        if (works(name, &jf)) bench_run_opts(name, params, run_case, &jf, &of);
        job jb = {1, ct_requires_grad(ct_detach(x)), ct_requires_grad(ct_detach(w)), ct_requires_grad(ct_detach(b)), g, 1, 1, 1};
        snprintf(name, sizeof name, "conv2d_64to64_8x56x56_%s_fwd_bwd", cl ? "cl" : "nchw");
        bench_opts ob = {1, 0, 3 * flops, NULL};
        if (works(name, &jb)) bench_run_opts(name, params, run_case, &jb, &ob);
    }
    {
        /* depthwise, 1x1 and late ResNet 3x3 layers */
        struct { const char *name; int64_t n, c, h, o, k, s, g; } M[7] = {
            {"dw3x3_1x16x112x112_s2", 1, 16, 112, 16, 3, 2, 16},
            {"dw3x3_1x72x56x56", 1, 72, 56, 72, 3, 1, 72},
            {"dw5x5_1x96x14x14", 1, 96, 14, 96, 5, 1, 96},
            {"conv1x1_8x64x56x56_to256", 8, 64, 56, 256, 1, 1, 1},
            {"conv1x1_1x16x56x56_to72", 1, 16, 56, 72, 1, 1, 1},
            {"conv3x3_2x256x4x4", 2, 256, 4, 256, 3, 1, 1},
            {"conv3x3_2x512x2x2", 2, 512, 2, 512, 3, 1, 1}};
        for (int l = 0; l < 7; l++) {
            int64_t n = M[l].n, c = M[l].c, h = M[l].h, o = M[l].o, k = M[l].k, s = M[l].s, oh = (h + 2 * (k / 2) - k) / s + 1;
            double flops = 2.0 * (double)n * (double)o * (double)oh * (double)oh * (double)(c / M[l].g) * (double)(k * k);
            ct_tensor *x = ct_randn(CT_FLOAT32, n, c, h, h), *w = ct_randn(CT_FLOAT32, o, c / M[l].g, k, k), *b = ct_randn(CT_FLOAT32, o);
            ct_tensor *g = ct_randn(CT_FLOAT32, n, o, oh, oh);
            for (int cl = 0; cl < 2; cl++) {
                ct_tensor *xx = cl ? ct_to_channels_last(x) : x, *gg = cl ? ct_to_channels_last(g) : g;
                ct_tensor *ww = cl ? ct_to_channels_last(w) : w;   /* as the twin (module.to(channels_last)) */
                char name[96], params[96];
                snprintf(params, sizeof params, "x[%lld,%lld,%lld,%lld]%s k%lld s%lld g%lld", (long long)n, (long long)c, (long long)h,
                         (long long)h, cl ? " cl" : "", (long long)k, (long long)s, (long long)M[l].g);
                job jf = {0, xx, ww, b, gg, k / 2, s, M[l].g};
                snprintf(name, sizeof name, "%s_%s_fwd", M[l].name, cl ? "cl" : "nchw");
                bench_opts of = {1, 0, flops, NULL};
                if (works(name, &jf)) bench_run_opts(name, params, run_case, &jf, &of);
                job jb = {1, ct_requires_grad(ct_detach(xx)), ct_requires_grad(ct_detach(ww)), ct_requires_grad(ct_detach(b)), gg, k / 2, s, M[l].g};
                snprintf(name, sizeof name, "%s_%s_fwd_bwd", M[l].name, cl ? "cl" : "nchw");
                bench_opts ob = {1, 0, 3 * flops, NULL};
                if (works(name, &jb)) bench_run_opts(name, params, run_case, &jb, &ob);
            }
        }
    }
    /* ResNet-18's pool after the stem at 224 */
    for (int cl = 0; cl < 2; cl++) {
        ct_tensor *x = ct_randn(CT_FLOAT32, 1, 64, 112, 112);
        job jf = {4, cl ? ct_to_channels_last(x) : x, NULL, NULL, NULL, 0, 1, 1};
        const char *name = cl ? "max_pool2d_3x3s2_1x64x112x112_cl_fwd" : "max_pool2d_3x3s2_1x64x112x112_nchw_fwd";
        if (works(name, &jf)) bench_run(name, cl ? "x[1,64,112,112] cl k3 s2 p1" : "x[1,64,112,112] k3 s2 p1", run_case, &jf);
    }
    sink = NULL;
    ct_scope_end(root);
    return 0;
}
