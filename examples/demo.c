/* The ctensor demo: tensors, broadcasting, views, matmul and autograd, printed
   the way PyTorch prints them.
   Build and run:  make demo
   or by hand:     cc -std=c11 -O2 -I. examples/demo.c -o demo -lm && ./demo */
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"

static void show(const char *code, const ct_tensor *t) {
    printf(">>> %s\n", code);
    ct_print(t);
}

int main(void) {
    int status = 0;
    ct_set_logger(NULL, NULL);   /* errors are reported below, from ct_last_error() */
    CT_SCOPE {
        ct_manual_seed(0);
        ct_tensor *x = ct_reshape(ct_arange(0, 6, 1, CT_FLOAT32), 2, 3);
        show("x = torch.arange(6.).reshape(2, 3)", x);
        show("x + torch.tensor([10., 20., 30.])   # broadcasting",
             ct_add(x, ct_tensor_f32(((float[]){10, 20, 30}), 3)));
        show("x.t()                               # a view: no copy", ct_t(x));
        show("x[:, 1:]", ct_slice(x, 1, 1, 3, 1));
        show("x @ x.t()", ct_matmul(x, ct_t(x)));
        show("torch.manual_seed(0); torch.randn(2, 3)   # the same numbers as PyTorch", (ct_manual_seed(0), ct_randn(CT_FLOAT32, 2, 3)));
        show("x.sum(dim=1, keepdim=True)", ct_sum_dim(x, 1, 1));
        show("torch.ones(2, 2, dtype=torch.int32) * 2.5   # type promotion",
             ct_mul_scalar(ct_ones(CT_INT32, 2, 2), 2.5));

        /* autograd, as in PyTorch's documentation */
        ct_tensor *a = ct_requires_grad(ct_tensor_f64(((double[]){0.5, 0.75}), 2));
        ct_tensor *y = ct_mul(ct_log(ct_mul(ct_select(a, 0, 0), ct_select(a, 0, 1))), ct_sin(ct_select(a, 0, 1)));
        show("y = torch.log(a[0] * a[1]) * torch.sin(a[1])", y);
        if (ct_backward(y) == CT_OK) show("y.backward(); a.grad", ct_grad(a));

        /* errors are values: one check for a whole chain */
        ct_tensor *bad = ct_relu(ct_matmul(ct_ones(CT_FLOAT32, 64, 784), ct_ones(CT_FLOAT32, 512, 256)));
        printf(">>> torch.relu(torch.ones(64, 784) @ torch.ones(512, 256))\n");
        if (!bad) printf("error: %s\n", ct_last_error());
        else status = 1;
        ct_clear_error();
    }
    return status;
}
