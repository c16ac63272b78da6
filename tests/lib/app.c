/* tests/lib/app.c - a user program built against the installed library
   (tests/lib/check.sh): headers without CTENSOR_IMPLEMENTATION, flags from
   pkg-config. Prints one line that check.sh compares. */
#include <ctensor.h>
#include <ctensor_nn.h>
#include <stdio.h>

int main(void) {
    int status = 1;
    CT_SCOPE {
        ct_tensor *x = ct_reshape(ct_arange(0, 6, 1, CT_FLOAT32), 2, 3);
        ct_tensor *y = ct_relu(ct_sub_scalar(ct_matmul(x, ct_t(x)), 10));   /* [[5, 14], [14, 50]] - 10 */
        ct_tensor *z = ct_from_dlpack(ct_to_dlpack(y));                        /* DLPack is in the library */
        ct_module *lin = ct_nn_linear(3, 2);                                    /* and ctensor_nn.h */
        if (z && lin) {
            printf("%g %g %g %g %d\n", ct_item(ct_select(ct_select(z, 0, 0), 0, 0)),
                   ct_item(ct_select(ct_select(z, 0, 1), 0, 0)), ct_item(ct_select(ct_select(z, 0, 1), 0, 1)),
                   ct_item(ct_sum(z)), (int)ct_size(ct_forward(lin, x), 1));
            status = 0;
        } else {
            fprintf(stderr, "%s\n", ct_last_error());
        }
        ct_module_free(lin);
    }
    return status;
}
