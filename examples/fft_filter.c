/* fft_filter.c - a low-pass filter in the frequency domain with ctensor_fft.h,
   and a learned filter: the gain of each frequency bin fitted by gradient descent
   (autograd through rfft / irfft) so that the filtered noisy signal matches the
   clean one.   make examples   (or: cc -I. examples/fft_filter.c -lm)

   PyTorch equivalent:
       X = torch.fft.rfft(noisy); f = torch.fft.rfftfreq(n, 1 / fs)
       clean_est = torch.fft.irfft(X * (f < 12), n)
       gain = torch.ones(n // 2 + 1, requires_grad=True)
       loss = ((torch.fft.irfft(X * gain, n) - clean) ** 2).mean() ... */
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_fft.h"
#include <stdio.h>

int main(void) {
    const int64_t n = 256;
    const double fs = 128.0, pi = 3.14159265358979323846;
    int status = 0;
    CT_SCOPE {
        ct_manual_seed(0);
        ct_tensor *t = ct_div_scalar(ct_arange(0, (double)n, 1, CT_FLOAT64), fs);
        /* a 3 Hz and a 7 Hz tone, plus noise */
        ct_tensor *clean = ct_add(ct_sin(ct_mul_scalar(t, 2 * pi * 3)), ct_mul_scalar(ct_sin(ct_mul_scalar(t, 2 * pi * 7)), 0.5));
        ct_tensor *noisy = ct_add(clean, ct_mul_scalar(ct_randn(CT_FLOAT64, n), 0.4));

        /* 1. an ideal low-pass below 12 Hz */
        ct_tensor *X = ct_fft_rfft(noisy, -1, -1, NULL);                       /* complex128, 129 bins */
        ct_tensor *f = ct_fft_rfftfreq(n, 1.0 / fs, CT_FLOAT64);               /* 0, 0.5, ..., 64 Hz */
        ct_tensor *mask = ct_to(ct_lt_scalar(f, 12.0), CT_COMPLEX128);
        ct_tensor *lowpass = ct_fft_irfft(ct_mul(X, mask), n, -1, NULL);
        double err_noisy = ct_item(ct_mean(ct_square(ct_sub(noisy, clean))));
        double err_lp = ct_item(ct_mean(ct_square(ct_sub(lowpass, clean))));

        /* 2. a learned real gain per bin, by gradient descent through irfft */
        ct_tensor *gain = ct_requires_grad(ct_ones(CT_FLOAT64, n / 2 + 1));
        double loss_v = 0;
        for (int step = 0; step < 400; step++) CT_SCOPE {
            ct_tensor *y = ct_fft_irfft(ct_mul(X, ct_to(gain, CT_COMPLEX128)), n, -1, NULL);
            ct_tensor *loss = ct_mean(ct_square(ct_sub(y, clean)));
            if (!loss || ct_backward(loss) != CT_OK) { status = 1; break; }
            loss_v = ct_item(loss);
            CT_NO_GRAD { ct_sub_(gain, ct_mul_scalar(ct_grad(gain), 1.0)); }
            ct_set_grad(gain, NULL);
        }
        if (!lowpass || status) status = fprintf(stderr, "%s\n", ct_last_error()) > 0;
        else {
            printf("mean squared error: noisy %.4f, low-pass %.4f, learned gains %.4f\n", err_noisy, err_lp, loss_v);
            ct_print(ct_narrow(gain, 0, 0, 16));   /* near 1 at the tones (bins 6 and 14), lower where there is only noise */
            status = !(err_lp < err_noisy && loss_v < err_noisy);
        }
    }
    return status;
}
