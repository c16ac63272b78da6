/* signal.c - complex tensors and complex autograd: fit an 8-tap complex FIR
   filter to a target frequency response by least squares, with Adam stepping the
   complex taps (examples/signal_fit.h; tests/test_complex.c checks the same run
   against PyTorch's, step for step).
       make build/examples/signal && ./build/examples/signal */
#include <stdio.h>
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"
#include "signal_fit.h"

int main(void) {
    double losses[300];
    int rc = 1;
    CT_SCOPE {
        ct_tensor *h = signal_fit(300, losses);
        if (!h) {
            fprintf(stderr, "signal: %s\n", ct_last_error());
        } else {
            for (int s = 0; s < 300; s += 50) printf("step %3d  loss %.6f\n", s, losses[s]);
            printf("step 299  loss %.6f\n", losses[299]);
            printf("taps: ");
            ct_print(h);
            /* the fitted response at a few frequencies: |H(w)| in and out of the band */
            ct_tensor *E, *T;
            signal_problem(&E, &T);
            ct_tensor *H = ct_abs(ct_matmul(E, h));
            printf("|H(w)| at w = -pi, -pi/2, 0, 0.8, pi/2: %.3f %.3f %.3f %.3f %.3f\n", ct_item(ct_select(H, 0, 0)),
                   ct_item(ct_select(H, 0, 16)), ct_item(ct_select(H, 0, 32)), ct_item(ct_select(H, 0, 40)),
                   ct_item(ct_select(H, 0, 48)));
            rc = 0;
        }
    }
    return rc;
}
