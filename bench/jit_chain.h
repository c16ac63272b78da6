/* jit_chain.h - the 20-op elementwise chain that bench/jit.c times and
   tests/test_jit.c fuses (its PyTorch twin is chain20 in bench/torch/jit.py).
   Include after ctensor.h. */
#ifndef CT_JIT_CHAIN_H
#define CT_JIT_CHAIN_H
static ct_tensor *jit_chain20(ct_tensor *x) {
    ct_tensor *y = ct_mul_scalar(x, 0.5);
    y = ct_add_scalar(y, 0.25);
    y = ct_tanh(y);
    y = ct_mul(y, x);
    y = ct_sigmoid(y);
    y = ct_sub(y, x);
    y = ct_relu(y);
    y = ct_add(y, x);
    y = ct_exp(ct_neg(y));
    y = ct_mul_scalar(y, 3.0);
    y = ct_abs(y);
    y = ct_sqrt(ct_add_scalar(y, 1.0));
    y = ct_div(x, y);
    y = ct_silu(y);
    y = ct_mul(y, y);
    y = ct_sub_scalar(y, 0.1);
    y = ct_maximum(y, x);
    y = ct_gelu(y, "none");
    return y;
}
#endif
