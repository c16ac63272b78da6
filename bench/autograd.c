/* Autograd benchmarks (issue 3), each line timed like its twin bench/torch/autograd.py:
     chain_125ops_4x4_f32_fwd_bwd   y = x; 25 x { y = tanh(exp(y * 0.5) + y) * 0.9 }; y.sum().backward()
     mlp_784_512_256_10_b64_fwd_bwd  3-layer MLP (ReLU), mean-square loss, forward + backward
     mlp_784_512_256_10_b64_fwd_bwd_grad_none  the same, grads set to None (zero_grad(set_to_none=True))
     mlp_784_512_256_10_b64_gemms    the same 8 GEMMs alone (3 forward, 5 backward), no autograd
   The MLP target: forward+backward within 1.1x of its GEMMs. */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"

static ct_tensor *X4;
static void chain(void *u) {
    (void)u;
    CT_SCOPE {
        ct_tensor *x = ct_requires_grad(ct_detach(X4)), *y = x;
        for (int i = 0; i < 25; i++) y = ct_mul_scalar(ct_tanh(ct_add(ct_exp(ct_mul_scalar(y, 0.5)), y)), 0.9);
        ct_backward(ct_sum(y));
    }
}

static ct_tensor *W1, *B1, *W2, *B2, *W3, *B3, *XB;
/* the MLP's forward and backward (in the caller's scope) */
static void mlp_fwd_bwd(void) {
    ct_tensor *h1 = ct_relu(ct_add(ct_matmul(XB, ct_t(W1)), B1));
    ct_tensor *h2 = ct_relu(ct_add(ct_matmul(h1, ct_t(W2)), B2));
    ct_tensor *out = ct_add(ct_matmul(h2, ct_t(W3)), B3);
    ct_backward(ct_mean(ct_square(out)));
}
static void mlp(void *u) {
    (void)u;
    CT_SCOPE {
        mlp_fwd_bwd();
        CT_NO_GRAD {
            ct_zero_(ct_grad(W1)); ct_zero_(ct_grad(W2)); ct_zero_(ct_grad(W3));
            ct_zero_(ct_grad(B1)); ct_zero_(ct_grad(B2)); ct_zero_(ct_grad(B3));
        }
    }
}
/* the same with PyTorch 2's zero_grad(set_to_none=True): no zeroing pass, and
   backward hands its gradient buffers to .grad instead of adding into them */
static void mlp_none(void *u) {
    (void)u;
    CT_SCOPE {
        mlp_fwd_bwd();
        ct_set_grad(W1, NULL); ct_set_grad(W2, NULL); ct_set_grad(W3, NULL);
        ct_set_grad(B1, NULL); ct_set_grad(B2, NULL); ct_set_grad(B3, NULL);
    }
}
static ct_tensor *G1, *G2, *G3, *H1, *H2;
static void gemms(void *u) {
    (void)u;
    CT_SCOPE CT_NO_GRAD {
        /* forward */
        ct_matmul(XB, ct_t(W1)); ct_matmul(H1, ct_t(W2)); ct_matmul(H2, ct_t(W3));
        /* backward: dW3, dH2, dW2, dH1, dW1 */
        ct_matmul(ct_t(G3), H2); ct_matmul(G3, W3);
        ct_matmul(ct_t(G2), H1); ct_matmul(G2, W2);
        ct_matmul(ct_t(G1), XB);
    }
}

int main(void) {
    CT_SCOPE {
        ct_manual_seed(0);
        X4 = ct_randn(CT_FLOAT32, 4, 4);
        bench_run("chain_125ops_4x4_f32_fwd_bwd", "25x(mul,exp,add,tanh,mul)+sum", chain, NULL);
        W1 = ct_requires_grad(ct_mul_scalar(ct_randn(CT_FLOAT32, 512, 784), 0.03));
        B1 = ct_requires_grad(ct_zeros(CT_FLOAT32, 512));
        W2 = ct_requires_grad(ct_mul_scalar(ct_randn(CT_FLOAT32, 256, 512), 0.04));
        B2 = ct_requires_grad(ct_zeros(CT_FLOAT32, 256));
        W3 = ct_requires_grad(ct_mul_scalar(ct_randn(CT_FLOAT32, 10, 256), 0.06));
        B3 = ct_requires_grad(ct_zeros(CT_FLOAT32, 10));
        XB = ct_randn(CT_FLOAT32, 64, 784);
        mlp(NULL);   /* creates the .grad tensors */
        bench_run("mlp_784_512_256_10_b64_fwd_bwd", "batch 64, f32, grad.zero_()", mlp, NULL);
        bench_run("mlp_784_512_256_10_b64_fwd_bwd_grad_none", "batch 64, f32, grad = None", mlp_none, NULL);
        G1 = ct_randn(CT_FLOAT32, 64, 512);
        G2 = ct_randn(CT_FLOAT32, 64, 256);
        G3 = ct_randn(CT_FLOAT32, 64, 10);
        H1 = ct_randn(CT_FLOAT32, 64, 512);
        H2 = ct_randn(CT_FLOAT32, 64, 256);
        bench_run("mlp_784_512_256_10_b64_gemms", "the 8 GEMMs only", gemms, NULL);
    }
    return 0;
}
