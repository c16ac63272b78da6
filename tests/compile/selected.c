/* The selective build (CTENSOR_SELECTED_OPS): the selected ops run and give their
   values and gradients; an op left out fails with an error naming it and the macro
   that selects it, by its public function and by ct_dispatch alike; with
   CTENSOR_NO_AUTOGRAD (-D on the command line) backward() fails naming the op.
   tests/compile/run.sh builds it both ways with gc-sections and checks that the
   kernels of ops left out are not in the binary. */
#define CTENSOR_IMPLEMENTATION
#define CTENSOR_SELECTED_OPS 1
#define CTENSOR_OP_ADD 1
#define CTENSOR_OP_MUL 1
#define CTENSOR_OP_SUM 1
#define CTENSOR_OP_EXPAND 1
#define CTENSOR_OP_FULL 1
#define CTENSOR_OP_VIEW 1
#include "ctensor.h"
#include <stdio.h>
#include <string.h>

static int passed, failed;
static void check(int ok, const char *what) {
    if (ok) passed++;
    else { failed++; printf("FAIL %s (last error: %s)\n", what, ct_last_error()); }
}

int main(void) {
    ct_set_logger(NULL, NULL);
    CT_SCOPE {
        static const float xd[3] = {1, 2, 3};
        ct_tensor *x = ct_tensor_f32(xd, 3);
        ct_tensor *s = ct_sum(ct_mul(x, x));
        check(s && ct_item(s) == 14.0, "sum(x * x) == 14");

        /* an op left out: its public function, then ct_dispatch */
        check(ct_exp(x) == NULL, "exp not selected: NULL");
        check(ct_last_error_code() == CT_ERR_UNSUPPORTED, "exp not selected: CT_ERR_UNSUPPORTED");
        check(!strcmp(ct_last_error(), "exp: op aten::exp was not selected in this build (CTENSOR_SELECTED_OPS): "
                                        "define CTENSOR_OP_EXP 1"), "exp not selected: the message");
        int op = ct_op_find("aten::mm");
        check(op >= 0, "the rows of ops left out stay (ct_op_find)");
        ct_attrs a;
        ct_attrs_init(&a);
        ct_tensor *in[2] = {ct_reshape(x, 1, 3), ct_reshape(x, 3, 1)}, *out[1] = {NULL};
        check(ct_dispatch(op, 2, in, &a, NULL, 0, out, 1) < 0 && strstr(ct_last_error(), "mm: op aten::mm was not selected"),
              "mm not selected: ct_dispatch fails naming it");

        /* autograd through selected ops, or its error without autograd */
        ct_tensor *w = ct_requires_grad(ct_tensor_f32(xd, 3));
        ct_tensor *l = ct_sum(ct_mul(w, w));
        ct_status st = ct_backward(l);
#ifdef CTENSOR_NO_AUTOGRAD
        check(st != CT_OK && strstr(ct_last_error(), "not in this build (CTENSOR_NO_AUTOGRAD)") != NULL,
              "CTENSOR_NO_AUTOGRAD: backward fails naming it");
#else
        const float *g = ct_grad(w) ? (const float *)ct_data_ptr(ct_grad(w)) : NULL;
        check(st == CT_OK && g && g[0] == 2 && g[1] == 4 && g[2] == 6, "d sum(w * w) / dw == 2w");
#endif
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
