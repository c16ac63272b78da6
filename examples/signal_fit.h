/* signal_fit.h - the complex least-squares fit of examples/signal.c, shared with
   tests/test_complex.c (which checks it against PyTorch's run of the same steps,
   tests/fixtures/complex/gen_complex.py).
   An 8-tap FIR filter with complex taps h is fitted so that its frequency
   response H(w) = sum_k h[k] e^(-i w k) matches a target response T(w) at 64
   frequencies w in [-pi, pi): a band-pass with linear phase, shifted off zero
   (so the taps must be complex). The loss is mean |H(w) - T(w)|^2; Adam steps
   the complex taps (PyTorch's rule: each part on its own, as on view_as_real). */
#ifndef SIGNAL_FIT_H
#define SIGNAL_FIT_H
#include <math.h>
#include "ctensor.h"
#include "ctensor_nn.h"

#define SIGNAL_TAPS 8
#define SIGNAL_FREQS 64
#define SIGNAL_PI 3.14159265358979323846

/* E[n][k] = e^(-i w_n k) and the target T[n], complex128 */
static void signal_problem(ct_tensor **E, ct_tensor **T) {
    double e[SIGNAL_FREQS][SIGNAL_TAPS][2], t[SIGNAL_FREQS][2];
    for (int n = 0; n < SIGNAL_FREQS; n++) {
        double w = -SIGNAL_PI + 2 * SIGNAL_PI * n / SIGNAL_FREQS;
        for (int k = 0; k < SIGNAL_TAPS; k++) {
            e[n][k][0] = cos(w * k);
            e[n][k][1] = -sin(w * k);
        }
        double pass = fabs(w - 0.8) < 0.9 ? 1.0 : 0.0;   /* the band 0.8 +- 0.9 rad */
        t[n][0] = pass * cos(3.5 * w);                   /* linear phase: a delay of 3.5 taps */
        t[n][1] = -pass * sin(3.5 * w);
    }
    *E = ct_view_as_complex(ct_from_data(e, CT_FLOAT64, SIGNAL_FREQS, SIGNAL_TAPS, 2));
    *T = ct_view_as_complex(ct_from_data(t, CT_FLOAT64, SIGNAL_FREQS, 2));
}
/* mean |E h - T|^2 */
static ct_tensor *signal_loss(const ct_tensor *E, const ct_tensor *T, const ct_tensor *h) {
    return ct_mean(ct_pow_scalar(ct_abs(ct_sub(ct_matmul(E, h), T)), 2.0));
}
/* Runs `steps` Adam steps (lr 0.05) from zero taps; losses[s] gets the loss before
   step s (losses may be NULL). Returns the taps (complex128 [8], current scope) or
   NULL with the error set. */
static ct_tensor *signal_fit(int steps, double *losses) {
    ct_tensor *E, *T, *h = NULL;
    signal_problem(&E, &T);
    ct_adam_options ao = {0.05, 0, 0, 0, 0, 0, 0};   /* lr 0.05; zeros: PyTorch's defaults */
    ct_tensor *taps = ct_retain(ct_requires_grad(ct_zeros(CT_COMPLEX128, SIGNAL_TAPS)));
    ct_optimizer *opt = taps ? ct_optim_adam_params(1, &taps, &ao) : NULL;
    int ok = opt != NULL;
    for (int s = 0; ok && s < steps; s++) {
        CT_SCOPE {
            ct_zero_grad(opt);
            ct_tensor *L = signal_loss(E, T, taps);
            ok = L && ct_backward(L) == CT_OK && ct_step(opt) == CT_OK;
            if (ok && losses) losses[s] = ct_item(L);
        }
    }
    if (ok) h = ct_detach(ct_clone(taps));
    ct_optim_free(opt);
    ct_release(taps);
    return h;
}
#endif
