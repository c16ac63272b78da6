/* fft.c - torch.fft: fft and rfft of 2^20 and of 1,000,003 (a prime: Bluestein)
   points, fft2 of 1024x1024; complex64 (rfft: float32 input). 1 thread, and fft2
   at 2 threads too. Twin: bench/torch/fft.py (the same cases, names and inputs).
   Inputs: element i (real and imaginary parts interleaved, i over the floats) is
   frac((i + 0.5) * 0.6180339887498949) - 0.5, rounded to float32.
   Line names: <fn>_<dtype>_<size>_t<threads>. Target: >= 1.0x PyTorch (pocketfft).
   The same source built with -DCTENSOR_FFTW (make build/bench/fft_fftw, where
   libfftw3-dev is installed) runs the cases on FFTW's plans; bench/run.sh fft runs
   it after the built-in engine, against the same PyTorch twin. */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_fft.h"

static ct_tensor *fill(ct_dtype dt, int nd, const int64_t *shape) {
    ct_tensor *t = ct_empty_n(dt, nd, shape);
    int64_t n = ct_numel(t) * (ct_dtype_is_complex(dt) ? 2 : 1);
    float *v = (float *)ct_data_ptr(t);
    for (int64_t i = 0; i < n; i++) {
        double f = ((double)i + 0.5) * 0.6180339887498949;
        v[i] = (float)(f - floor(f) - 0.5);
    }
    return t;
}
typedef struct job { int kind; ct_tensor *x; } job;
static ct_tensor *volatile sink;
static void run_case(void *u) {
    const job *j = (const job *)u;
    CT_SCOPE {
        sink = j->kind == 0 ? ct_fft_fft(j->x, -1, -1, NULL) : j->kind == 1 ? ct_fft_rfft(j->x, -1, -1, NULL)
                                                                            : ct_fft_fft2(j->x, NULL, NULL, NULL);
    }
}
static void one(const char *name, const char *params, int kind, ct_dtype dt, int nd, const int64_t *shape, int threads) {
    if (!bench_selected(name)) return;
    bench_set_threads(threads);
    int tok = ct_scope_begin();
    job j = {kind, fill(dt, nd, shape)};
    ct_clear_error();
    ct_tensor *r = NULL;
    CT_SCOPE { r = kind == 0 ? ct_fft_fft(j.x, -1, -1, NULL) : kind == 1 ? ct_fft_rfft(j.x, -1, -1, NULL) : ct_fft_fft2(j.x, NULL, NULL, NULL); }
    if (!r) printf("# %s: FAILED: %s\n", name, ct_last_error());
    else bench_run(name, params, run_case, &j);
    sink = NULL;
    ct_scope_end(tok);
}
int main(void) {
    bench_begin("fft");
    const int64_t p20[1] = {1 << 20}, prime[1] = {1000003}, sq[2] = {1024, 1024};
    one("fft_c64_2p20_t1", "[1048576]", 0, CT_COMPLEX64, 1, p20, 1);
    one("rfft_f32_2p20_t1", "[1048576]", 1, CT_FLOAT32, 1, p20, 1);
    one("fft_c64_1000003_t1", "[1000003]", 0, CT_COMPLEX64, 1, prime, 1);
    one("rfft_f32_1000003_t1", "[1000003]", 1, CT_FLOAT32, 1, prime, 1);
    one("fft2_c64_1024x1024_t1", "[1024,1024]", 2, CT_COMPLEX64, 2, sq, 1);
    one("fft2_c64_1024x1024_t2", "[1024,1024]", 2, CT_COMPLEX64, 2, sq, 2);
    return 0;
}
