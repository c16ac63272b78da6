/* ctensor_fft.h - torch.fft for ctensor: discrete Fourier transforms of any
   length, real-input halving, n-dimensional and strided, with autograd; an
   opt-in FFTW backend.                                             v0.4 (2026-12-07)
     v0.4: the four-step form out of place (column transforms, twiddles and V x V
           transposes into row groups that transform in place), no copies of whole
           lines: long unit-stride 1-D transforms run from the input straight into
           the output (rfft 2^20: 2.8x, fft 2^20: 2.7x faster); vectorized rfft post-pass;
           the lanes path reads and writes neighbour or unit-stride lines in runs
           (unit-stride ones through V x V blocks)
     v0.3: Bluestein pads to the cheapest four-step length (1,000,003 points: 2^21);
           large workspaces kept in their plan; CTENSOR_FFTW runs whole transforms
           (fft2, fftn, batched 1-D, rfftn) as one FFTW guru plan, cached
   HOW TO USE
     #define CTENSOR_IMPLEMENTATION          (in exactly one file)
     #include "ctensor.h"
     #include "ctensor_fft.h"                (after ctensor.h)
     link with -lm

     The implementation registers its ops in ctensor.h's op table, so it is compiled
     in the translation unit that defines CTENSOR_IMPLEMENTATION; there
     CTENSOR_FFT_IMPLEMENTATION is turned on automatically. No other dependency.

     Opt-in: -DCTENSOR_FFTW (where the implementation is compiled) plans every
     transform with FFTW 3 instead of the built-in engine; link -lfftw3 -lfftw3f
     (Debian: libfftw3-dev). FFTW is GPL: a program linking it is bound by the GPL,
     which is why it stays the user's choice. Same API, results within rounding.
     -DCTENSOR_FFTW_FLAGS=... sets the planner flags (default FFTW_ESTIMATE;
     FFTW_MEASURE plans slower, once per length, and runs faster).

   THE FEEL (torch.fft.rfft, torch.fft.irfft, torch.fft.fftfreq)
       ct_tensor *t = ct_linspace(0.0, 1.0, 64, CT_FLOAT64);
       ct_tensor *x = ct_sin(ct_mul_scalar(t, 2 * M_PI * 5));
       ct_tensor *X = ct_fft_rfft(x, -1, -1, NULL);      // complex128, 33 bins; n=-1: None
       ct_tensor *y = ct_fft_irfft(X, 64, -1, "backward"); // back to x
       ct_print(ct_fft_rfftfreq(64, 1.0 / 64, CT_FLOAT64)); // tensor([0., 1., ..., 32.])

   TABLE OF CONTENTS
     1. Declarations: the functions of torch.fft (PyTorch 1.13)
     2. Implementation
        2.1 Plans: factorization, twiddles, Bluestein chirps; a small plan cache;
            with CTENSOR_FFTW, FFTW's plans (made under a mutex) in their place
        2.2 The 1-D engine (float and double): Stockham passes of radix 2, 3, 4, 5
            and any small prime, Bluestein for large prime factors, real halving;
            the same passes on 8 or 4 lines in vector lanes; the four-step form
        2.3 The op table: one kernel, three rows (c2c, r2c, c2r), one backward
        2.4 The n-dimensional driver: one pass per transformed dim over strided lines;
            with CTENSOR_FFTW, whole transforms as one cached guru plan first
        2.5 Backward rules (PyTorch's fft_r2c_backward / fft_c2r_backward)
        2.6 The public functions (argument handling, errors in PyTorch's words)

   THE RULES (as PyTorch 1.13's torch.fft on CPU)
     - Arguments in PyTorch's order. An optional length `n` is -1 for None; an
       optional shape `s` or dim list is NULL for None (entries of s may be -1:
       that dim's input size). norm is NULL (= "backward"), "backward", "ortho" or
       "forward".
     - float32 and complex64 give complex64 (or float32 for irfft, hfft, irfftn,
       hfft2, hfftn);
       float64 and complex128 give complex128 (or float64). Integer and bool inputs
       compute in the default float dtype; float16 and bfloat16 are refused
       ("Unsupported dtype Half").
     - n pads with zeros or trims the input along the transformed dim first;
       irfft/hfft take n/2 + 1 input points (default output length 2 (m - 1)), and
       ignore the imaginary parts of the zero-frequency (and Nyquist) bins.
     - Every transform is differentiable (PyTorch's formulas: the adjoint
       transform, with the one-sided gradients of fft_r2c_backward and
       fft_c2r_backward); gradients of complex tensors follow PyTorch's conjugate
       Wirtinger convention.
     - fftshift / ifftshift are rolls (ct_roll; complex tensors roll as their
       view_as_real); fftfreq / rfftfreq are arange divided by n d.
     - The ops: three rows (ct::fft_c2c, ct::fft_r2c, ct::fft_c2r) of one kernel
       whose attributes say, per transformed dim, the transform length and the
       output length (so padding, trimming, one-sided outputs and their adjoints
       are one op), the normalization and the direction. Backward nodes are named
       as PyTorch's (FftC2CBackward0, FftR2CBackward0, FftC2RBackward0).
     - Any length: radix 4, 2, 3, 5 passes and a direct pass for other primes up
       to 47; lengths with a larger prime factor use Bluestein's algorithm over a
       2^a 3^b 5^c length, the one of least estimated cost (long ones: with a
       four-step split). Workspaces of 1 MiB and more stay in their plan between
       calls (one per plan; a concurrent call allocates its own). Real transforms of even length run one complex transform
       of half the length. Lines of n-D passes run 8 (float) or 4 (double) at a
       time in vector lanes; lengths from 32768 up run in the four-step form,
       out of place. Whole unit-stride lines (no zero padding) that do not
       run in lanes are transformed from the input straight into the output.
       Plans (twiddles) are cached, up to 32 lengths.
     - hfftn / hfft2 as PyTorch's fft_hfftn: c2c (forward) over all but the last
       dim, then c2r of the conjugate along the last (one op: every dim in the
       forward direction, Hermitian along the last); ihfftn / ihfft2: r2c along
       the last dim, conjugated, then c2c backward over the others (one op in the
       backward direction, one-sided along the last). Errors as PyTorch's, but a
       complex input to ihfftn says "ihfftn expects a real-valued input tensor"
       (PyTorch 1.13: "Expected self.is_floating_point() to be true").
     - CTENSOR_FFTW: FFTW's advanced (guru64) plans with howmany, cached (16 keyed
       on precision, direction, lengths, strides, alignment, in-place), not one
       plan per line: a 1-D c2c transform along a unit-stride dim (or a forward
       r2c of even length, one-sided), without padding or trimming, is one plan
       over all its lines straight from the input to the output; the passes of
       fft2 / fftn and of strided or padded c2c transforms run each block of lines
       that the driver gathers (16 to 32 lines) as one plan of that many
       transforms, a strided dim's block with its points interleaved (FFTW's
       vector loop). Real-halving and Hermitian lines keep one FFTW plan per line
       (one for aligned and one for unaligned arrays, chosen by
       fftw_alignment_of), in the same 32-length cache. FFTW's planner runs under
       a mutex; executions run at once on ctensor's threads. The built-in
       vector-lane and four-step paths are then unused.
     - CPU only; lines of a multi-dimensional transform run on ctensor's threads.
*/
#ifndef CTENSOR_FFT_H_INCLUDED
#define CTENSOR_FFT_H_INCLUDED
#include "ctensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================
   1. Declarations
   ========================================================================== */
/* ---- one-dimensional transforms: n = -1 is None (the input's size along dim) ---- */
/* torch.fft.fft(input, n, dim, norm): the discrete Fourier transform along dim */
CTENSOR_API ct_tensor *ct_fft_fft(const ct_tensor *x, int64_t n, int64_t dim, const char *norm);
/* torch.fft.ifft(input, n, dim, norm): the inverse transform along dim */
CTENSOR_API ct_tensor *ct_fft_ifft(const ct_tensor *x, int64_t n, int64_t dim, const char *norm);
/* torch.fft.rfft(input, n, dim, norm): the transform of a real input, n/2 + 1 bins */
CTENSOR_API ct_tensor *ct_fft_rfft(const ct_tensor *x, int64_t n, int64_t dim, const char *norm);
/* torch.fft.irfft(input, n, dim, norm): the inverse of rfft, a real output of length
   n (None: 2 (m - 1) for m input bins) */
CTENSOR_API ct_tensor *ct_fft_irfft(const ct_tensor *x, int64_t n, int64_t dim, const char *norm);
/* torch.fft.hfft(input, n, dim, norm): the transform of a Hermitian-symmetric signal
   given by its first half, a real output of length n (None: 2 (m - 1)) */
CTENSOR_API ct_tensor *ct_fft_hfft(const ct_tensor *x, int64_t n, int64_t dim, const char *norm);
/* torch.fft.ihfft(input, n, dim, norm): the inverse of hfft, n/2 + 1 bins of a real input */
CTENSOR_API ct_tensor *ct_fft_ihfft(const ct_tensor *x, int64_t n, int64_t dim, const char *norm);

/* ---- two-dimensional transforms: s NULL or 2 lengths (-1: the input's size),
        dim NULL (= the last two) or 2 dims ---- */
/* torch.fft.fft2(input, s, dim, norm) */
CTENSOR_API ct_tensor *ct_fft_fft2(const ct_tensor *x, const int64_t *s, const int64_t *dim, const char *norm);
/* torch.fft.ifft2(input, s, dim, norm) */
CTENSOR_API ct_tensor *ct_fft_ifft2(const ct_tensor *x, const int64_t *s, const int64_t *dim, const char *norm);
/* torch.fft.rfft2(input, s, dim, norm): real input, one-sided along the last dim */
CTENSOR_API ct_tensor *ct_fft_rfft2(const ct_tensor *x, const int64_t *s, const int64_t *dim, const char *norm);
/* torch.fft.irfft2(input, s, dim, norm): the inverse of rfft2, a real output */
CTENSOR_API ct_tensor *ct_fft_irfft2(const ct_tensor *x, const int64_t *s, const int64_t *dim, const char *norm);
/* torch.fft.hfft2(input, s, dim, norm): the transform of a Hermitian-symmetric 2-D
   signal given by its half along the last dim, a real output */
CTENSOR_API ct_tensor *ct_fft_hfft2(const ct_tensor *x, const int64_t *s, const int64_t *dim, const char *norm);
/* torch.fft.ihfft2(input, s, dim, norm): the inverse of hfft2, one-sided along the
   last dim, of a real input */
CTENSOR_API ct_tensor *ct_fft_ihfft2(const ct_tensor *x, const int64_t *s, const int64_t *dim, const char *norm);

/* ---- n-dimensional transforms: s NULL (None) or ns lengths; dim NULL (None: the
        last ns dims when s is given, else all) or ndims dims ---- */
/* torch.fft.fftn(input, s, dim, norm) */
CTENSOR_API ct_tensor *ct_fft_fftn(const ct_tensor *x, int ns, const int64_t *s, int ndims, const int64_t *dim, const char *norm);
/* torch.fft.ifftn(input, s, dim, norm) */
CTENSOR_API ct_tensor *ct_fft_ifftn(const ct_tensor *x, int ns, const int64_t *s, int ndims, const int64_t *dim, const char *norm);
/* torch.fft.rfftn(input, s, dim, norm): real input, one-sided along the last dim */
CTENSOR_API ct_tensor *ct_fft_rfftn(const ct_tensor *x, int ns, const int64_t *s, int ndims, const int64_t *dim, const char *norm);
/* torch.fft.irfftn(input, s, dim, norm): the inverse of rfftn, a real output */
CTENSOR_API ct_tensor *ct_fft_irfftn(const ct_tensor *x, int ns, const int64_t *s, int ndims, const int64_t *dim, const char *norm);
/* torch.fft.hfftn(input, s, dim, norm): the n-D transform of a Hermitian-symmetric
   signal given by its half along the last dim, a real output (last length None:
   2 (m - 1)) */
CTENSOR_API ct_tensor *ct_fft_hfftn(const ct_tensor *x, int ns, const int64_t *s, int ndims, const int64_t *dim, const char *norm);
/* torch.fft.ihfftn(input, s, dim, norm): the inverse of hfftn, one-sided along the
   last dim, of a real input */
CTENSOR_API ct_tensor *ct_fft_ihfftn(const ct_tensor *x, int ns, const int64_t *s, int ndims, const int64_t *dim, const char *norm);

/* ---- helpers ---- */
/* torch.fft.fftfreq(n, d, dtype): the sample frequencies [0, 1, ..., -1] / (n d) */
CTENSOR_API ct_tensor *ct_fft_fftfreq(int64_t n, double d, ct_dtype dtype);
/* torch.fft.rfftfreq(n, d, dtype): the non-negative frequencies [0, ..., n/2] / (n d) */
CTENSOR_API ct_tensor *ct_fft_rfftfreq(int64_t n, double d, ct_dtype dtype);
/* torch.fft.fftshift(input, dim): the zero frequency to the centre (a roll by n/2);
   dims NULL: every dim */
CTENSOR_API ct_tensor *ct_fft_fftshift(const ct_tensor *x, int ndims, const int64_t *dims);
/* torch.fft.ifftshift(input, dim): the inverse of fftshift (a roll by -(n/2)) */
CTENSOR_API ct_tensor *ct_fft_ifftshift(const ct_tensor *x, int ndims, const int64_t *dims);

#ifdef __cplusplus
}
#endif
#endif /* CTENSOR_FFT_H_INCLUDED */

/* ============================================================================
   2. IMPLEMENTATION
   ========================================================================== */
#if defined(CTENSOR_IMPLEMENTATION) && !defined(CTENSOR_FFT_NO_IMPLEMENTATION) && !defined(CTENSOR_FFT_IMPLEMENTATION)
#define CTENSOR_FFT_IMPLEMENTATION
#endif
#ifdef CTENSOR_FFT_IMPLEMENTATION
#ifndef CTENSOR_FFT_IMPLEMENTATION_DONE
#define CTENSOR_FFT_IMPLEMENTATION_DONE
#ifndef CTENSOR_IMPLEMENTATION_DONE
#error "ctensor_fft.h: the implementation needs ctensor.h's implementation in the same translation unit (define CTENSOR_IMPLEMENTATION before including ctensor.h)"
#endif

/* ============================================================================
   2.1 Plans
   A plan is one length n, one direction (sign -1: forward, +1: inverse) and one
   precision. Complex plans: the factors and, per Stockham pass, p*ido twiddles
   w_{ido p}^{i u}; a direct pass of prime p keeps the p roots w_p^k. Lengths with
   a prime factor over CT__FFT_MAXP run Bluestein: a chirp c_k = exp(s i pi k^2/n)
   and the transform of the conjugate chirp over m >= 2n - 1 (a 2^a 3^b 5^c length).
   Real plans (n even): the complex plan of n/2 and the twiddles w_n^k, k < n/2.
   ========================================================================== */
#define CT__FFT_MAXP 47
#define CT__FFT_MAXF 64
#define CT__FFT_CACHE 32
typedef struct ct__fftplan {
    int64_t n;
    int sign, prec, real;           /* prec 0: float, 1: double; real: a real-halving plan */
    int nf;
    int64_t fct[CT__FFT_MAXF];
    void *tw[CT__FFT_MAXF];         /* per pass: p * ido complex twiddles */
    void *roots[CT__FFT_MAXF];      /* direct passes of primes > 5: p roots */
    int64_t m;                      /* Bluestein: the convolution length (0: none) */
    struct ct__fftplan *bf, *bb;    /* Bluestein: the m-point plans of both directions */
    void *chirp, *bk;               /* Bluestein: n chirp values, m transformed kernel values / m */
    struct ct__fftplan *half;       /* real plans: the n/2-point complex plan */
    void *rtw;                      /* real plans: w_n^k, k < n/2 */
    int64_t n1, n2;                 /* four-step plans (long lengths): n = n1 n2 */
    struct ct__fftplan *c1, *c2;    /* four-step: the n1- and n2-point plans */
    void *tw4;                      /* four-step: w_n^{k1 j2} in the lanes of the column pass:
                                       V columns j2 = c0 + v, per k1 V real then V imaginary
                                       parts, at 2 V (n1 c0 / V + k1) (V: 8 float, 4 double) */
    int64_t scratch;                /* complex elements of scratch an execution needs */
    int refs;
    void *ws;                       /* a kept workspace of ws_bytes (under the cache lock) */
    int builtin;                    /* CTENSOR_FFTW: made by the built-in engine (ct__fft_builtin) */
    size_t ws_bytes;
    void *fw[4];                    /* CTENSOR_FFTW: FFTW plans (complex: [aligned, unaligned];
                                       real: r2c [aligned, unaligned], c2r [aligned, unaligned]) */
} ct__fftplan;

static ct__fftplan *ct__fft_plan_get(int64_t n, int sign, int prec, int real);
static void ct__fft_plan_put(ct__fftplan *p);
/* 1: plan with the built-in engine even under CTENSOR_FFTW (a switch for tests and
   benchmarks that set it between calls, never during one: the FFTW path against the
   built-in in one program); plans of both kinds share the cache */
static int ct__fft_builtin;

#ifdef CTENSOR_FFTW
static void ct__fftw_free(ct__fftplan *p);
#endif
static void ct__fft_plan_free(ct__fftplan *p) {
    if (!p) return;
#ifdef CTENSOR_FFTW
    ct__fftw_free(p);
#endif
    for (int i = 0; i < p->nf; i++) { CT_FREE(p->tw[i]); CT_FREE(p->roots[i]); }
    CT_FREE(p->chirp);
    CT_FREE(p->bk);
    CT_FREE(p->rtw);
    CT_FREE(p->tw4);
    if (p->c1) ct__fft_plan_put(p->c1);
    if (p->c2) ct__fft_plan_put(p->c2);
    if (p->bf) ct__fft_plan_put(p->bf);
    if (p->bb) ct__fft_plan_put(p->bb);
    if (p->half) ct__fft_plan_put(p->half);
    CT_FREE(p->ws);
    CT_FREE(p);
}
/* a table of complex values exp(sign 2 pi i k / den) for k = num(j), stored in the precision */
static void *ct__fft_table(int prec, int64_t cnt) {
    return CT_MALLOC((size_t)(cnt > 0 ? cnt : 1) * (prec ? 2 * sizeof(double) : 2 * sizeof(float)));
}
static void ct__fft_tset(void *t, int prec, int64_t i, double re, double im) {
    if (prec) { ((double *)t)[2 * i] = re; ((double *)t)[2 * i + 1] = im; }
    else { ((float *)t)[2 * i] = (float)re; ((float *)t)[2 * i + 1] = (float)im; }
}
/* exp(sign 2 pi i k / den), k reduced into [0, den) and by symmetry for accuracy */
static void ct__fft_root(int64_t k, int64_t den, int sign, double *re, double *im) {
    k %= den;
    if (k < 0) k += den;
    /* angle 2 pi k / den with k folded into the first octant where possible */
    int neg = 0;
    if (2 * k > den) { k = den - k; neg = 1; }
    double a = 2.0 * 3.14159265358979323846 * (double)k / (double)den;
    double c, s;
    if (8 * k <= den) { c = cos(a); s = sin(a); }
    else if (8 * k <= 3 * den) {             /* near pi/2: use the complement */
        double b = 2.0 * 3.14159265358979323846 * (double)(den - 4 * k) / (4.0 * (double)den);
        c = sin(b); s = cos(b);
    } else {                                  /* near pi */
        double b = 2.0 * 3.14159265358979323846 * (double)(den - 2 * k) / (2.0 * (double)den);
        c = -cos(b); s = sin(b);
    }
    *re = c;
    *im = (neg ? -s : s) * (double)sign;
}
static int ct__fft_factor(int64_t n, int64_t *f) {
    int nf = 0;
    while (n % 4 == 0) { f[nf++] = 4; n /= 4; }
    if (n % 2 == 0) { f[nf++] = 2; n /= 2; }
    for (int64_t p = 3; p * p <= n; p += 2)
        while (n % p == 0) { f[nf++] = p; n /= p; }
    if (n > 1) f[nf++] = n;
    /* the 2 first (with 4s after it), as larger radices do better late */
    return nf;
}
#define CT__FFT_FOURSTEP 32768
/* the four-step split of a long length: n1, the largest multiple of 8 with n1^2 <= n
   and n / n1 a multiple of 8 (0: none, the length then runs single passes) */
static int64_t ct__fft_split4(int64_t n) {
    int64_t best = 0;
    if (n < CT__FFT_FOURSTEP) return 0;
    for (int64_t a = 8; a * a <= n; a += 8)
        if (n % a == 0 && (n / a) % 8 == 0) best = a;
    return best;
}
/* Bluestein's convolution length: the 2^a 3^b 5^c length >= n (n = 2 n0 - 1) of the
   least estimated cost, m times a per-point weight: log2 of each radix, radix 3
   and 5 passes weighted 1.1 and 1.2 (more work per point than radix 4), and long
   lengths that have no four-step split (they run single passes, out of cache)
   tripled. 2 * 1000003 - 1 = 2000005: 2^21 (four-step 1024 x 2048), not the
   smallest 2025000 = 2^3 3^4 5^5 (no split: 4x slower) */
static int64_t ct__fft_good_size(int64_t n) {
    int64_t best = INT64_MAX;
    double bcost = 0;
    for (int64_t a = 1, ea = 0; a < 2 * n + 8 && a > 0; a *= 2, ea++)
        for (int64_t b = a, eb = 0; b < 2 * n + 8 && b > 0; b *= 3, eb++)
            for (int64_t c = b, ec = 0; c > 0; c *= 5, ec++) {
                if (c >= n) {
                    double w = (double)ea + 1.1 * 1.58496 * (double)eb + 1.2 * 2.32193 * (double)ec;
                    double cost = (double)c * (w > 1 ? w : 1) * (c >= CT__FFT_FOURSTEP && !ct__fft_split4(c) ? 3 : 1);
                    if (best == INT64_MAX || cost < bcost) { best = c; bcost = cost; }
                    break;
                }
            }
    return best;
}
#ifdef CTENSOR_FFTW
#define CT__FFTW_HOOK(...) __VA_ARGS__
#else
#define CT__FFTW_HOOK(...)
#endif
static void ct__fft_exec_f(const ct__fftplan *p, float *x, float *scr);
static float *ct__fft_vexec_r_f(const ct__fftplan *p, float *x, float *scr);
static double *ct__fft_vexec_r_d(const ct__fftplan *p, double *x, double *scr);
static void ct__fft_exec4_f(const ct__fftplan *p, const float *in, float *out, float *scr);
static void ct__fft_exec4_d(const ct__fftplan *p, const double *in, double *out, double *scr);
static void ct__fft_exec_d(const ct__fftplan *p, double *x, double *scr);

/* ---- CTENSOR_FFTW: the plans are FFTW's (fftw3 and fftw3f, 64-bit guru interface,
   one line of n points, unit stride). The planner is not thread-safe: plans are made
   and destroyed under one mutex; executions (fftw_execute_dft and its kin on new
   arrays) run on ctensor's threads at once. Each transform gets two plans, one for
   arrays of FFTW's SIMD alignment and one made with FFTW_UNALIGNED for the others;
   an execution picks by fftw_alignment_of. CTENSOR_FFTW_FLAGS: the planner flags
   (default FFTW_ESTIMATE: no measurement, plans in microseconds; FFTW_MEASURE
   plans slower and runs faster). ---- */
#ifdef CTENSOR_FFTW
#include <fftw3.h>
#include <pthread.h>
#ifndef CTENSOR_FFTW_FLAGS
#define CTENSOR_FFTW_FLAGS FFTW_ESTIMATE
#endif
static pthread_mutex_t ct__fftw_mu = PTHREAD_MUTEX_INITIALIZER;
static int ct__fftw_block(const struct ct__fftplan *p, void *G, int64_t nb, int64_t LP, int vl);
static void ct__fftw_free(ct__fftplan *p) {
    pthread_mutex_lock(&ct__fftw_mu);
    for (int i = 0; i < 4; i++)
        if (p->fw[i]) {
            if (p->prec) fftw_destroy_plan((fftw_plan)p->fw[i]);
            else fftwf_destroy_plan((fftwf_plan)p->fw[i]);
            p->fw[i] = NULL;
        }
    pthread_mutex_unlock(&ct__fftw_mu);
}
/* 0 when the plans are made */
static int ct__fftw_make(ct__fftplan *p) {
    const int64_t n = p->n;
    const size_t cs = p->prec ? sizeof(fftw_complex) : sizeof(fftwf_complex);
    void *a = p->prec ? fftw_malloc(cs * (size_t)(n + 2)) : fftwf_malloc(cs * (size_t)(n + 2));
    void *b = p->prec ? fftw_malloc(cs * (size_t)(n + 2)) : fftwf_malloc(cs * (size_t)(n + 2));
    int ok = a && b;
    if (ok) {
        fftw_iodim64 d;
        d.n = n; d.is = 1; d.os = 1;
        pthread_mutex_lock(&ct__fftw_mu);
        for (int u = 0; u < 2; u++) {
            unsigned fl = (unsigned)(CTENSOR_FFTW_FLAGS) | (u ? FFTW_UNALIGNED : 0u);
            if (!p->real) {
                p->fw[u] = p->prec ? (void *)fftw_plan_guru64_dft(1, &d, 0, NULL, (fftw_complex *)a, (fftw_complex *)a, p->sign, fl)
                                   : (void *)fftwf_plan_guru64_dft(1, &d, 0, NULL, (fftwf_complex *)a, (fftwf_complex *)a, p->sign, fl);
                ok = ok && p->fw[u];
            } else {
                p->fw[u] = p->prec ? (void *)fftw_plan_guru64_dft_r2c(1, &d, 0, NULL, (double *)a, (fftw_complex *)b, fl)
                                   : (void *)fftwf_plan_guru64_dft_r2c(1, &d, 0, NULL, (float *)a, (fftwf_complex *)b, fl);
                p->fw[2 + u] = p->prec ? (void *)fftw_plan_guru64_dft_c2r(1, &d, 0, NULL, (fftw_complex *)a, (double *)b, fl)
                                       : (void *)fftwf_plan_guru64_dft_c2r(1, &d, 0, NULL, (fftwf_complex *)a, (float *)b, fl);
                ok = ok && p->fw[u] && p->fw[2 + u];
            }
        }
        pthread_mutex_unlock(&ct__fftw_mu);
    }
    if (p->prec) { fftw_free(a); fftw_free(b); }
    else { fftwf_free(a); fftwf_free(b); }
    /* real plans: c2r reads a copy of its input in the scratch (n/2 + 1 points) */
    p->scratch = p->real ? n / 2 + 2 : 1;
    return ok ? 0 : -1;
}
static int ct__fftw_aligned(int prec, const void *x, const void *y) {
    return prec ? fftw_alignment_of((double *)(uintptr_t)x) == 0 && fftw_alignment_of((double *)(uintptr_t)y) == 0
                : fftwf_alignment_of((float *)(uintptr_t)x) == 0 && fftwf_alignment_of((float *)(uintptr_t)y) == 0;
}
/* in place on x (n complex) */
static void ct__fftw_c2c(const ct__fftplan *p, void *x) {
    void *pl = p->fw[ct__fftw_aligned(p->prec, x, x) ? 0 : 1];
    if (p->prec) fftw_execute_dft((fftw_plan)pl, (fftw_complex *)x, (fftw_complex *)x);
    else fftwf_execute_dft((fftwf_plan)pl, (fftwf_complex *)x, (fftwf_complex *)x);
}
/* real r[0, n) -> X[0, n/2] (FFTW's r2c is the forward sign: conjugated for sign +1) */
static void ct__fftw_r2c(const ct__fftplan *p, const void *r, void *out) {
    void *pl = p->fw[ct__fftw_aligned(p->prec, r, out) ? 0 : 1];
    int64_t h = p->n / 2 + 1;
    if (p->prec) {
        fftw_execute_dft_r2c((fftw_plan)pl, (double *)(uintptr_t)r, (fftw_complex *)out);
        if (p->sign > 0) for (int64_t k = 0; k < h; k++) ((double *)out)[2 * k + 1] = -((double *)out)[2 * k + 1];
    } else {
        fftwf_execute_dft_r2c((fftwf_plan)pl, (float *)(uintptr_t)r, (fftwf_complex *)out);
        if (p->sign > 0) for (int64_t k = 0; k < h; k++) ((float *)out)[2 * k + 1] = -((float *)out)[2 * k + 1];
    }
}
/* Hermitian half X[0, n/2] -> real r[0, n): the half copied to scr (conjugated for
   sign -1, FFTW's c2r being the backward sign; imaginary parts of the first and
   last points zero), then FFTW's c2r, which overwrites its input */
static void ct__fftw_c2r(const ct__fftplan *p, const void *X, void *r, void *scr) {
    int64_t h = p->n / 2 + 1;
    if (p->prec) {
        double *z = (double *)scr;
        const double *x = (const double *)X;
        for (int64_t k = 0; k < h; k++) { z[2 * k] = x[2 * k]; z[2 * k + 1] = p->sign < 0 ? -x[2 * k + 1] : x[2 * k + 1]; }
        z[1] = 0; z[2 * (h - 1) + 1] = 0;
        fftw_execute_dft_c2r((fftw_plan)p->fw[ct__fftw_aligned(1, scr, r) ? 2 : 3], (fftw_complex *)z, (double *)r);
    } else {
        float *z = (float *)scr;
        const float *x = (const float *)X;
        for (int64_t k = 0; k < h; k++) { z[2 * k] = x[2 * k]; z[2 * k + 1] = p->sign < 0 ? -x[2 * k + 1] : x[2 * k + 1]; }
        z[1] = 0; z[2 * (h - 1) + 1] = 0;
        fftwf_execute_dft_c2r((fftwf_plan)p->fw[ct__fftw_aligned(0, scr, r) ? 2 : 3], (fftwf_complex *)z, (float *)r);
    }
}
#endif

static ct__fftplan *ct__fft_plan_make(int64_t n, int sign, int prec, int real) {
    ct__fftplan *p = (ct__fftplan *)CT_MALLOC(sizeof(ct__fftplan));
    if (!p) return NULL;
    memset(p, 0, sizeof *p);
    p->n = n; p->sign = sign; p->prec = prec; p->real = real; p->refs = 1;
#ifdef CTENSOR_FFTW
    p->builtin = ct__fft_builtin;
    if (!p->builtin) {
        if (ct__fftw_make(p)) { ct__fft_plan_free(p); return NULL; }
        return p;
    }
#endif
    if (real) {
        /* n even: the complex plan of n/2 and w_n^k */
        p->half = ct__fft_plan_get(n / 2, sign, prec, 0);
        p->rtw = ct__fft_table(prec, n / 2);
        if (!p->half || !p->rtw) { ct__fft_plan_free(p); return NULL; }
        for (int64_t k = 0; k < n / 2; k++) {
            double re, im;
            ct__fft_root(k, n, sign, &re, &im);
            ct__fft_tset(p->rtw, prec, k, re, im);
        }
        p->scratch = n / 2 + p->half->scratch;
        return p;
    }
    int64_t f[CT__FFT_MAXF];
    int nf = ct__fft_factor(n, f);
    if (n > 1 && f[nf - 1] > CT__FFT_MAXP) {
        /* Bluestein */
        int64_t m = ct__fft_good_size(2 * n - 1);
        p->m = m;
        p->bf = ct__fft_plan_get(m, -1, prec, 0);
        p->bb = ct__fft_plan_get(m, 1, prec, 0);
        p->chirp = ct__fft_table(prec, n);
        double *b = (double *)CT_MALLOC((size_t)m * 2 * sizeof(double));
        p->bk = ct__fft_table(prec, m);
        if (!p->bf || !p->bb || !p->chirp || !b || !p->bk) { CT_FREE(b); ct__fft_plan_free(p); return NULL; }
        memset(b, 0, (size_t)m * 2 * sizeof(double));
        for (int64_t k = 0; k < n; k++) {
            double re, im;
            /* exp(s i pi k^2 / n) = exp(s 2 pi i (k^2 mod 2n) / (2n)) */
            int64_t q = (int64_t)(((uint64_t)k * (uint64_t)k) % (uint64_t)(2 * n));
            ct__fft_root(q, 2 * n, sign, &re, &im);
            ct__fft_tset(p->chirp, prec, k, re, im);
            b[2 * k] = re; b[2 * k + 1] = -im;
            if (k) { b[2 * (m - k)] = re; b[2 * (m - k) + 1] = -im; }
        }
        /* the kernel's transform, in double, scaled by 1/m */
        ct__fftplan *bd = prec ? p->bf : ct__fft_plan_get(m, -1, 1, 0);
        double *s = bd ? (double *)CT_MALLOC((size_t)(bd->scratch > 0 ? bd->scratch : 1) * 2 * sizeof(double)) : NULL;
        if (!bd || !s) { CT_FREE(b); CT_FREE(s); if (bd && bd != p->bf) ct__fft_plan_put(bd); ct__fft_plan_free(p); return NULL; }
        ct__fft_exec_d(bd, b, s);
        for (int64_t k = 0; k < m; k++) ct__fft_tset(p->bk, prec, k, b[2 * k] / (double)m, b[2 * k + 1] / (double)m);
        CT_FREE(s);
        CT_FREE(b);
        if (bd != p->bf) ct__fft_plan_put(bd);
        p->scratch = 2 * m + p->bf->scratch;
        return p;
    }
    p->nf = nf;
    int64_t l1 = 1;
    for (int i = 0; i < nf; i++) {
        int64_t ip = f[i], ido = n / (l1 * ip), big = ido * ip;
        p->fct[i] = ip;
        p->tw[i] = ct__fft_table(prec, ip * ido);
        if (!p->tw[i]) { ct__fft_plan_free(p); return NULL; }
        for (int64_t u = 0; u < ip; u++)
            for (int64_t j = 0; j < ido; j++) {
                double re, im;
                ct__fft_root(u * j, big, sign, &re, &im);
                ct__fft_tset(p->tw[i], prec, u * ido + j, re, im);
            }
        if (ip > 5) {
            p->roots[i] = ct__fft_table(prec, ip);
            if (!p->roots[i]) { ct__fft_plan_free(p); return NULL; }
            for (int64_t k = 0; k < ip; k++) {
                double re, im;
                ct__fft_root(k, ip, sign, &re, &im);
                ct__fft_tset(p->roots[i], prec, k, re, im);
            }
        }
        l1 *= ip;
    }
    p->scratch = n;
    /* long lengths: the four-step form (n1-point transforms down the columns of an
       n1 x n2 matrix, twiddles, n2-point transforms along its rows), both in
       vector lanes; n1 and n2 multiples of 8 near sqrt(n) */
    if (n >= CT__FFT_FOURSTEP) {
        int64_t best = ct__fft_split4(n);
        if (best) {
            p->n1 = best;
            p->n2 = n / best;
            p->c1 = ct__fft_plan_get(p->n1, sign, prec, 0);
            p->c2 = ct__fft_plan_get(p->n2, sign, prec, 0);
            p->tw4 = ct__fft_table(prec, n);
            if (!p->c1 || !p->c2 || !p->tw4) { ct__fft_plan_free(p); return NULL; }
            const int64_t V = prec ? 4 : 8;   /* CT__FFT_Vd, CT__FFT_Vf */
            for (int64_t k1 = 0; k1 < p->n1; k1++)
                for (int64_t j2 = 0; j2 < p->n2; j2++) {
                    double re, im;
                    int64_t at = 2 * V * (p->n1 * (j2 / V) + k1) + j2 % V;
                    ct__fft_root(k1 * j2, n, sign, &re, &im);
                    if (prec) { ((double *)p->tw4)[at] = re; ((double *)p->tw4)[at + V] = im; }
                    else { ((float *)p->tw4)[at] = (float)re; ((float *)p->tw4)[at + V] = (float)im; }
                }
            p->scratch = n + 2 * 8 * (p->n1 > p->n2 ? p->n1 : p->n2);
        }
    }
    return p;
}

/* the cache: plans shared by reference count; a plan in the cache holds one */
static ct__fftplan *ct__fft_cache[CT__FFT_CACHE];
static int ct__fft_cache_next;
static int ct__fft_cache_lock;
static ct__fftplan *ct__fft_plan_get(int64_t n, int sign, int prec, int real) {
    ct__spin_lock(&ct__fft_cache_lock);
    for (int i = 0; i < CT__FFT_CACHE; i++) {
        ct__fftplan *p = ct__fft_cache[i];
        if (p && p->n == n && p->sign == sign && p->prec == prec && p->real == real && p->builtin == ct__fft_builtin) {
            p->refs++;
            ct__spin_unlock(&ct__fft_cache_lock);
            return p;
        }
    }
    ct__spin_unlock(&ct__fft_cache_lock);
    ct__fftplan *p = ct__fft_plan_make(n, sign, prec, real);
    if (!p) return NULL;
    ct__fftplan *old;
    ct__spin_lock(&ct__fft_cache_lock);
    old = ct__fft_cache[ct__fft_cache_next];
    ct__fft_cache[ct__fft_cache_next] = p;
    ct__fft_cache_next = (ct__fft_cache_next + 1) % CT__FFT_CACHE;
    p->refs++;
    int drop = old && --old->refs == 0;
    ct__spin_unlock(&ct__fft_cache_lock);
    if (drop) ct__fft_plan_free(old);
    return p;
}
static void ct__fft_plan_put(ct__fftplan *p) {
    ct__spin_lock(&ct__fft_cache_lock);
    int drop = --p->refs == 0;
    ct__spin_unlock(&ct__fft_cache_lock);
    if (drop) ct__fft_plan_free(p);
}
/* workspaces of 1 MiB and more are kept in their plan between calls: a fresh one
   of tens of MiB comes from mmap, and its first touch of every page faults (a
   third of a 1,000,003-point transform's time). One per plan: a call that finds
   it taken (another thread) allocates its own, and gives it back or frees it. */
#define CT__FFT_WS_KEEP ((size_t)1 << 20)
static void *ct__fft_ws_take(ct__fftplan *p, size_t bytes) {
    void *w = NULL;
    if (bytes >= CT__FFT_WS_KEEP) {
        ct__spin_lock(&ct__fft_cache_lock);
        if (p->ws && p->ws_bytes >= bytes) { w = p->ws; p->ws = NULL; }
        ct__spin_unlock(&ct__fft_cache_lock);
    }
    return w ? w : CT_MALLOC(bytes);
}
static void ct__fft_ws_give(ct__fftplan *p, void *w, size_t bytes) {
    if (w && bytes >= CT__FFT_WS_KEEP) {
        void *old = NULL;
        ct__spin_lock(&ct__fft_cache_lock);
        if (!p->ws || p->ws_bytes < bytes) { old = p->ws; p->ws = w; p->ws_bytes = bytes; w = NULL; }
        ct__spin_unlock(&ct__fft_cache_lock);
        CT_FREE(old);
    }
    CT_FREE(w);
}

/* ============================================================================
   2.2 The 1-D engine, once per precision (T: float or double, S: f or d).
   Stockham autosort, decimation in frequency: pass (ido, l1, p) maps
   cc[i + ido (j + p k)] to ch[i + ido (k + l1 u)] = w^{i u} sum_j cc(i, j, k) w_p^{j u}.
   ========================================================================== */
#define CT__FFT_ENGINE(T, S)                                                                              \
    static void ct__fft_pass2_##S(int64_t ido, int64_t l1, const T *cc, T *ch, const T *tw) {             \
        for (int64_t k = 0; k < l1; k++)                                                                  \
            for (int64_t i = 0; i < ido; i++) {                                                           \
                const T *a = cc + 2 * (i + ido * 2 * k);                                                  \
                T ar = a[0], ai = a[1], br = a[2 * ido], bi = a[2 * ido + 1];                             \
                T *o = ch + 2 * (i + ido * k);                                                            \
                o[0] = ar + br; o[1] = ai + bi;                                                           \
                T dr = ar - br, di = ai - bi, wr = tw[2 * (ido + i)], wi = tw[2 * (ido + i) + 1];         \
                o += 2 * ido * l1;                                                                        \
                o[0] = dr * wr - di * wi; o[1] = dr * wi + di * wr;                                       \
            }                                                                                             \
    }                                                                                                     \
    static void ct__fft_pass4_##S(int64_t ido, int64_t l1, const T *cc, T *ch, const T *tw, int sign) {   \
        const int64_t so = 2 * ido * l1;                                                                  \
        for (int64_t k = 0; k < l1; k++)                                                                  \
            for (int64_t i = 0; i < ido; i++) {                                                           \
                const T *a = cc + 2 * (i + ido * 4 * k);                                                  \
                const int64_t s = 2 * ido;                                                                \
                T t0r = a[0] + a[2 * s], t0i = a[1] + a[2 * s + 1];                                       \
                T t1r = a[0] - a[2 * s], t1i = a[1] - a[2 * s + 1];                                       \
                T t2r = a[s] + a[3 * s], t2i = a[s + 1] + a[3 * s + 1];                                   \
                T t3r = a[s] - a[3 * s], t3i = a[s + 1] - a[3 * s + 1];                                   \
                /* (s i) t3 */                                                                            \
                T jr = sign < 0 ? t3i : -t3i, ji = sign < 0 ? -t3r : t3r;                                 \
                T y0r = t0r + t2r, y0i = t0i + t2i, y2r = t0r - t2r, y2i = t0i - t2i;                     \
                T y1r = t1r + jr, y1i = t1i + ji, y3r = t1r - jr, y3i = t1i - ji;                         \
                T *o = ch + 2 * (i + ido * k);                                                            \
                o[0] = y0r; o[1] = y0i;                                                                   \
                if (i == 0) {                                                                             \
                    o[so] = y1r; o[so + 1] = y1i;                                                         \
                    o[2 * so] = y2r; o[2 * so + 1] = y2i;                                                 \
                    o[3 * so] = y3r; o[3 * so + 1] = y3i;                                                 \
                } else {                                                                                  \
                    const T *w1 = tw + 2 * (ido + i), *w2 = tw + 2 * (2 * ido + i), *w3 = tw + 2 * (3 * ido + i); \
                    o[so] = y1r * w1[0] - y1i * w1[1]; o[so + 1] = y1r * w1[1] + y1i * w1[0];             \
                    o[2 * so] = y2r * w2[0] - y2i * w2[1]; o[2 * so + 1] = y2r * w2[1] + y2i * w2[0];     \
                    o[3 * so] = y3r * w3[0] - y3i * w3[1]; o[3 * so + 1] = y3r * w3[1] + y3i * w3[0];     \
                }                                                                                         \
            }                                                                                             \
    }                                                                                                     \
    static void ct__fft_pass3_##S(int64_t ido, int64_t l1, const T *cc, T *ch, const T *tw, int sign) {   \
        const T c = (T)-0.5, sn = (T)(sign * 0.86602540378443864676);                                     \
        const int64_t so = 2 * ido * l1, s = 2 * ido;                                                     \
        for (int64_t k = 0; k < l1; k++)                                                                  \
            for (int64_t i = 0; i < ido; i++) {                                                           \
                const T *a = cc + 2 * (i + ido * 3 * k);                                                  \
                T tr = a[s] + a[2 * s], ti = a[s + 1] + a[2 * s + 1];                                     \
                T dr = a[s] - a[2 * s], di = a[s + 1] - a[2 * s + 1];                                     \
                T mr = a[0] + c * tr, mi = a[1] + c * ti;                                                 \
                T er = -sn * di, ei = sn * dr;                                                            \
                T y1r = mr + er, y1i = mi + ei, y2r = mr - er, y2i = mi - ei;                             \
                T *o = ch + 2 * (i + ido * k);                                                            \
                o[0] = a[0] + tr; o[1] = a[1] + ti;                                                       \
                const T *w1 = tw + 2 * (ido + i), *w2 = tw + 2 * (2 * ido + i);                           \
                o[so] = y1r * w1[0] - y1i * w1[1]; o[so + 1] = y1r * w1[1] + y1i * w1[0];                 \
                o[2 * so] = y2r * w2[0] - y2i * w2[1]; o[2 * so + 1] = y2r * w2[1] + y2i * w2[0];         \
            }                                                                                             \
    }                                                                                                     \
    static void ct__fft_pass5_##S(int64_t ido, int64_t l1, const T *cc, T *ch, const T *tw, int sign) {   \
        const T c1 = (T)0.30901699437494742410, c2 = (T)-0.80901699437494742410;                          \
        const T s1 = (T)(sign * 0.95105651629515357212), s2 = (T)(sign * 0.58778525229247312917);         \
        const int64_t so = 2 * ido * l1, s = 2 * ido;                                                     \
        for (int64_t k = 0; k < l1; k++)                                                                  \
            for (int64_t i = 0; i < ido; i++) {                                                           \
                const T *a = cc + 2 * (i + ido * 5 * k);                                                  \
                T t1r = a[s] + a[4 * s], t1i = a[s + 1] + a[4 * s + 1];                                   \
                T t2r = a[2 * s] + a[3 * s], t2i = a[2 * s + 1] + a[3 * s + 1];                           \
                T t3r = a[s] - a[4 * s], t3i = a[s + 1] - a[4 * s + 1];                                   \
                T t4r = a[2 * s] - a[3 * s], t4i = a[2 * s + 1] - a[3 * s + 1];                           \
                T b1r = a[0] + c1 * t1r + c2 * t2r, b1i = a[1] + c1 * t1i + c2 * t2i;                     \
                T b2r = a[0] + c2 * t1r + c1 * t2r, b2i = a[1] + c2 * t1i + c1 * t2i;                     \
                T e1r = s1 * t3r + s2 * t4r, e1i = s1 * t3i + s2 * t4i; /* d1 = i e1 */                   \
                T e2r = s2 * t3r - s1 * t4r, e2i = s2 * t3i - s1 * t4i; /* d2 = i e2 */                   \
                T y[10];                                                                                  \
                y[0] = a[0] + t1r + t2r; y[1] = a[1] + t1i + t2i;                                         \
                y[2] = b1r - e1i; y[3] = b1i + e1r;                                                       \
                y[8] = b1r + e1i; y[9] = b1i - e1r;                                                       \
                y[4] = b2r - e2i; y[5] = b2i + e2r;                                                       \
                y[6] = b2r + e2i; y[7] = b2i - e2r;                                                       \
                T *o = ch + 2 * (i + ido * k);                                                            \
                o[0] = y[0]; o[1] = y[1];                                                                 \
                for (int u = 1; u < 5; u++) {                                                             \
                    const T *w = tw + 2 * (u * ido + i);                                                  \
                    o[u * so] = y[2 * u] * w[0] - y[2 * u + 1] * w[1];                                    \
                    o[u * so + 1] = y[2 * u] * w[1] + y[2 * u + 1] * w[0];                                \
                }                                                                                         \
            }                                                                                             \
    }                                                                                                     \
    /* a prime p > 5: the direct p-point sum with the roots table */                                     \
    static void ct__fft_passg_##S(int64_t ido, int64_t l1, int64_t p, const T *cc, T *ch, const T *tw,    \
                                  const T *rt) {                                                          \
        const int64_t so = 2 * ido * l1, s = 2 * ido;                                                     \
        for (int64_t k = 0; k < l1; k++)                                                                  \
            for (int64_t i = 0; i < ido; i++) {                                                           \
                const T *a = cc + 2 * (i + ido * p * k);                                                  \
                T *o = ch + 2 * (i + ido * k);                                                            \
                for (int64_t u = 0; u < p; u++) {                                                         \
                    T yr = a[0], yi = a[1];                                                               \
                    int64_t e = 0;                                                                        \
                    for (int64_t j = 1; j < p; j++) {                                                     \
                        e += u;                                                                           \
                        if (e >= p) e -= p;                                                               \
                        T xr = a[j * s], xi = a[j * s + 1], wr = rt[2 * e], wi = rt[2 * e + 1];           \
                        yr += xr * wr - xi * wi; yi += xr * wi + xi * wr;                                 \
                    }                                                                                     \
                    const T *w = tw + 2 * (u * ido + i);                                                  \
                    o[u * so] = yr * w[0] - yi * w[1]; o[u * so + 1] = yr * w[1] + yi * w[0];             \
                }                                                                                         \
            }                                                                                             \
    }                                                                                                     \
    /* in place on x (n complex); scr: p->scratch complex */                                              \
    static void ct__fft_exec_##S(const ct__fftplan *p, T *x, T *scr) {                                    \
        int64_t n = p->n;                                                                                 \
        if (n <= 1) return;                                                                               \
        CT__FFTW_HOOK(if (p->fw[0]) { ct__fftw_c2c(p, x); return; })                                      \
        if (p->n1) { ct__fft_exec4_##S(p, x, x, scr); return; }                                         \
        if (p->m) {                                                                                       \
            int64_t m = p->m;                                                                             \
            T *A = scr, *sub = scr + 2 * m;                                                               \
            const T *c = (const T *)p->chirp, *bk = (const T *)p->bk;                                     \
            for (int64_t j = 0; j < n; j++) {                                                             \
                T xr = x[2 * j], xi = x[2 * j + 1];                                                       \
                A[2 * j] = xr * c[2 * j] - xi * c[2 * j + 1];                                             \
                A[2 * j + 1] = xr * c[2 * j + 1] + xi * c[2 * j];                                         \
            }                                                                                             \
            memset(A + 2 * n, 0, (size_t)(m - n) * 2 * sizeof(T));                                        \
            ct__fft_exec_##S(p->bf, A, sub);                                                              \
            for (int64_t j = 0; j < m; j++) {                                                             \
                T ar = A[2 * j], ai = A[2 * j + 1];                                                       \
                A[2 * j] = ar * bk[2 * j] - ai * bk[2 * j + 1];                                           \
                A[2 * j + 1] = ar * bk[2 * j + 1] + ai * bk[2 * j];                                       \
            }                                                                                             \
            ct__fft_exec_##S(p->bb, A, sub);                                                              \
            for (int64_t k = 0; k < n; k++) {                                                             \
                T ar = A[2 * k], ai = A[2 * k + 1];                                                       \
                x[2 * k] = ar * c[2 * k] - ai * c[2 * k + 1];                                             \
                x[2 * k + 1] = ar * c[2 * k + 1] + ai * c[2 * k];                                         \
            }                                                                                             \
            return;                                                                                       \
        }                                                                                                 \
        T *src = x, *dst = scr;                                                                           \
        int64_t l1 = 1;                                                                                   \
        for (int f = 0; f < p->nf; f++) {                                                                 \
            int64_t ip = p->fct[f], ido = n / (l1 * ip);                                                  \
            const T *tw = (const T *)p->tw[f];                                                            \
            if (ip == 4) ct__fft_pass4_##S(ido, l1, src, dst, tw, p->sign);                               \
            else if (ip == 2) ct__fft_pass2_##S(ido, l1, src, dst, tw);                                   \
            else if (ip == 3) ct__fft_pass3_##S(ido, l1, src, dst, tw, p->sign);                          \
            else if (ip == 5) ct__fft_pass5_##S(ido, l1, src, dst, tw, p->sign);                          \
            else ct__fft_passg_##S(ido, l1, ip, src, dst, tw, (const T *)p->roots[f]);                    \
            T *t = src; src = dst; dst = t;                                                               \
            l1 *= ip;                                                                                     \
        }                                                                                                 \
        if (src != x) memcpy(x, src, (size_t)n * 2 * sizeof(T));                                          \
    }                                                                                                     \
    /* real input r[0, n) (n even, plan rp) -> X[0, n/2] in out; scr: rp->scratch */                     \
    static void ct__fft_r2c_##S(const ct__fftplan *rp, const T *r, T *out, T *scr) {                      \
        CT__FFTW_HOOK(if (rp->fw[0]) { ct__fftw_r2c(rp, r, out); return; })                               \
        int64_t M = rp->n / 2;                                                                            \
        T *z = scr, *sub = scr + 2 * M;                                                                   \
        const T *w = (const T *)rp->rtw;                                                                  \
        if (rp->half->n1 && !rp->half->fw[0]) ct__fft_exec4_##S(rp->half, r, z, sub);                     \
        else {                                                                                            \
            memcpy(z, r, (size_t)M * 2 * sizeof(T));                                                      \
            ct__fft_exec_##S(rp->half, z, sub);                                                           \
        }                                                                                                 \
        /* X_k = E_k + w^k O_k, E_k = (z_k + conj z_{M-k}) / 2, O_k = (z_k - conj z_{M-k}) / (2i);     \
           k = 0 and M: w^0 = 1, w^M = -1, z_M = z_0 (one loop without branches: vectorized) */    \
        T z0r = z[0], z0i = z[1];                                                                         \
        const T *zr = z + 2 * M;   /* zr[-2 k] = z_{M-k} */                                              \
        for (int64_t k = 1; k < M; k++) {                                                                 \
            T ar = z[2 * k], ai = z[2 * k + 1], br = zr[-2 * k], bi = -zr[-2 * k + 1];                    \
            T er = (ar + br) * (T)0.5, ei = (ai + bi) * (T)0.5;                                           \
            T or_ = (ai - bi) * (T)0.5, oi = (br - ar) * (T)0.5;                                          \
            T wr = w[2 * k], wi = w[2 * k + 1];                                                           \
            out[2 * k] = er + or_ * wr - oi * wi;                                                         \
            out[2 * k + 1] = ei + or_ * wi + oi * wr;                                                     \
        }                                                                                                 \
        out[0] = z0r + z0i; out[1] = 0;                                                                   \
        out[2 * M] = z0r - z0i; out[2 * M + 1] = 0;                                                       \
    }                                                                                                     \
    /* Hermitian half X[0, n/2] (imaginary parts of X[0], X[n/2] ignored) -> real r[0, n) */               \
    static void ct__fft_c2r_##S(const ct__fftplan *rp, const T *X, T *r, T *scr) {                        \
        CT__FFTW_HOOK(if (rp->fw[0]) { ct__fftw_c2r(rp, X, r, scr); return; })                            \
        int64_t M = rp->n / 2;                                                                            \
        T *z = scr, *sub = scr + 2 * M;                                                                   \
        const T *w = (const T *)rp->rtw;                                                                  \
        for (int64_t k = 0; k < M; k++) {                                                                 \
            T ar = X[2 * k], ai = k ? X[2 * k + 1] : (T)0;                                                \
            T br = X[2 * (M - k)], bi = (M - k == M) ? (T)0 : -X[2 * (M - k) + 1];                        \
            T er = ar + br, ei = ai + bi, dr = ar - br, di = ai - bi;                                     \
            T orr = dr * w[2 * k] - di * w[2 * k + 1], oii = dr * w[2 * k + 1] + di * w[2 * k];           \
            z[2 * k] = er - oii; z[2 * k + 1] = ei + orr;                                                 \
        }                                                                                                 \
        ct__fft_exec_##S(rp->half, z, sub);                                                               \
        memcpy(r, z, (size_t)M * 2 * sizeof(T));                                                          \
    }
CT__FFT_ENGINE(float, f)
CT__FFT_ENGINE(double, d)

/* The same passes on V lines at once (the lines of a multi-dimensional pass):
   point e of the V lines is V real parts then V imaginary parts at x + 2 V e, so
   every butterfly is a loop over the lanes that the compiler vectorizes. */
#define CT__FFT_LANES(V) for (int v = 0; v < (V); v++)
#define CT__FFT_VENGINE(T, S, V)                                                                          \
    static void ct__fft_vpass3_##S(int64_t ido, int64_t l1, const T *CT_RESTRICT cc, T *CT_RESTRICT ch, const T *tw, int sign) {  \
        const T c = (T)-0.5, sn = (T)(sign * 0.86602540378443864676);                                     \
        const int64_t s = 2 * V * ido, so = 2 * V * ido * l1;                                             \
        for (int64_t k = 0; k < l1; k++)                                                                  \
            for (int64_t i = 0; i < ido; i++) {                                                           \
                const T *a = cc + 2 * V * (i + ido * 3 * k);                                              \
                T *o = ch + 2 * V * (i + ido * k);                                                        \
                const T *w1 = tw + 2 * (ido + i), *w2 = tw + 2 * (2 * ido + i);                           \
                const T w1r = w1[0], w1i = w1[1], w2r = w2[0], w2i = w2[1];                               \
                CT__FFT_LANES(V) {                                                                        \
                    T tr = a[s + v] + a[2 * s + v], ti = a[s + V + v] + a[2 * s + V + v];                 \
                    T dr = a[s + v] - a[2 * s + v], di = a[s + V + v] - a[2 * s + V + v];                 \
                    T mr = a[v] + c * tr, mi = a[V + v] + c * ti;                                         \
                    T er = -sn * di, ei = sn * dr;                                                        \
                    T y1r = mr + er, y1i = mi + ei, y2r = mr - er, y2i = mi - ei;                         \
                    o[v] = a[v] + tr; o[V + v] = a[V + v] + ti;                                           \
                    o[so + v] = y1r * w1r - y1i * w1i; o[so + V + v] = y1r * w1i + y1i * w1r;             \
                    o[2 * so + v] = y2r * w2r - y2i * w2i; o[2 * so + V + v] = y2r * w2i + y2i * w2r;     \
                }                                                                                         \
            }                                                                                             \
    }                                                                                                     \
    static void ct__fft_vpass5_##S(int64_t ido, int64_t l1, const T *CT_RESTRICT cc, T *CT_RESTRICT ch, const T *tw, int sign) {  \
        const T c1 = (T)0.30901699437494742410, c2 = (T)-0.80901699437494742410;                          \
        const T s1 = (T)(sign * 0.95105651629515357212), s2 = (T)(sign * 0.58778525229247312917);         \
        const int64_t s = 2 * V * ido, so = 2 * V * ido * l1;                                             \
        for (int64_t k = 0; k < l1; k++)                                                                  \
            for (int64_t i = 0; i < ido; i++) {                                                           \
                const T *a = cc + 2 * V * (i + ido * 5 * k);                                              \
                T *o = ch + 2 * V * (i + ido * k);                                                        \
                T w[10];                                                                                  \
                for (int u = 1; u < 5; u++) { w[2 * u] = tw[2 * (u * ido + i)]; w[2 * u + 1] = tw[2 * (u * ido + i) + 1]; } \
                CT__FFT_LANES(V) {                                                                        \
                    T t1r = a[s + v] + a[4 * s + v], t1i = a[s + V + v] + a[4 * s + V + v];               \
                    T t2r = a[2 * s + v] + a[3 * s + v], t2i = a[2 * s + V + v] + a[3 * s + V + v];       \
                    T t3r = a[s + v] - a[4 * s + v], t3i = a[s + V + v] - a[4 * s + V + v];               \
                    T t4r = a[2 * s + v] - a[3 * s + v], t4i = a[2 * s + V + v] - a[3 * s + V + v];       \
                    T b1r = a[v] + c1 * t1r + c2 * t2r, b1i = a[V + v] + c1 * t1i + c2 * t2i;             \
                    T b2r = a[v] + c2 * t1r + c1 * t2r, b2i = a[V + v] + c2 * t1i + c1 * t2i;             \
                    T e1r = s1 * t3r + s2 * t4r, e1i = s1 * t3i + s2 * t4i;                               \
                    T e2r = s2 * t3r - s1 * t4r, e2i = s2 * t3i - s1 * t4i;                               \
                    T yr[5], yi[5];                                                                       \
                    yr[1] = b1r - e1i; yi[1] = b1i + e1r; yr[4] = b1r + e1i; yi[4] = b1i - e1r;           \
                    yr[2] = b2r - e2i; yi[2] = b2i + e2r; yr[3] = b2r + e2i; yi[3] = b2i - e2r;           \
                    o[v] = a[v] + t1r + t2r; o[V + v] = a[V + v] + t1i + t2i;                             \
                    for (int u = 1; u < 5; u++) {                                                         \
                        o[u * so + v] = yr[u] * w[2 * u] - yi[u] * w[2 * u + 1];                          \
                        o[u * so + V + v] = yr[u] * w[2 * u + 1] + yi[u] * w[2 * u];                      \
                    }                                                                                     \
                }                                                                                         \
            }                                                                                             \
    }                                                                                                     \
    static void ct__fft_vpassg_##S(int64_t ido, int64_t l1, int64_t p, const T *CT_RESTRICT cc, T *CT_RESTRICT ch, const T *tw,   \
                                   const T *rt) {                                                         \
        const int64_t s = 2 * V * ido, so = 2 * V * ido * l1;                                             \
        for (int64_t k = 0; k < l1; k++)                                                                  \
            for (int64_t i = 0; i < ido; i++) {                                                           \
                const T *a = cc + 2 * V * (i + ido * p * k);                                              \
                T *o = ch + 2 * V * (i + ido * k);                                                        \
                for (int64_t u = 0; u < p; u++) {                                                         \
                    T yr[V], yi[V];                                                                       \
                    CT__FFT_LANES(V) { yr[v] = a[v]; yi[v] = a[V + v]; }                                  \
                    int64_t e = 0;                                                                        \
                    for (int64_t j = 1; j < p; j++) {                                                     \
                        e += u;                                                                           \
                        if (e >= p) e -= p;                                                               \
                        const T wr = rt[2 * e], wi = rt[2 * e + 1];                                       \
                        CT__FFT_LANES(V) {                                                                \
                            T xr = a[j * s + v], xi = a[j * s + V + v];                                   \
                            yr[v] += xr * wr - xi * wi; yi[v] += xr * wi + xi * wr;                       \
                        }                                                                                 \
                    }                                                                                     \
                    const T wr = tw[2 * (u * ido + i)], wi = tw[2 * (u * ido + i) + 1];                   \
                    CT__FFT_LANES(V) {                                                                    \
                        o[u * so + v] = yr[v] * wr - yi[v] * wi; o[u * so + V + v] = yr[v] * wi + yi[v] * wr; \
                    }                                                                                     \
                }                                                                                         \
            }                                                                                             \
    }                                                                                                     \
    /* V lines (a Stockham plan: no Bluestein), passes between x and scr (V n complex):              \
       returns the one that holds the result */                                                           \
    static T *ct__fft_vexec_r_##S(const ct__fftplan *p, T *x, T *scr) {                                   \
        int64_t n = p->n;                                                                                 \
        T *src = x, *dst = scr;                                                                           \
        int64_t l1 = 1;                                                                                   \
        for (int f = 0; f < p->nf; f++) {                                                                 \
            int64_t ip = p->fct[f], ido = n / (l1 * ip);                                                  \
            const T *tw = (const T *)p->tw[f];                                                            \
            if (ip == 4) ct__fft_vpass4_##S(ido, l1, src, dst, tw, p->sign);                              \
            else if (ip == 2) ct__fft_vpass2_##S(ido, l1, src, dst, tw);                                  \
            else if (ip == 3) ct__fft_vpass3_##S(ido, l1, src, dst, tw, p->sign);                         \
            else if (ip == 5) ct__fft_vpass5_##S(ido, l1, src, dst, tw, p->sign);                         \
            else ct__fft_vpassg_##S(ido, l1, ip, src, dst, tw, (const T *)p->roots[f]);                   \
            T *t = src; src = dst; dst = t;                                                               \
            l1 *= ip;                                                                                     \
        }                                                                                                 \
        return src;                                                                                       \
    }
#define CT__FFT_VP24(T, S, V)                                                                          \
    static void ct__fft_vpass2_##S(int64_t ido, int64_t l1, const T *CT_RESTRICT cc, T *CT_RESTRICT ch, const T *tw) {            \
        const int64_t s = 2 * V * ido, so = 2 * V * ido * l1;                                             \
        for (int64_t k = 0; k < l1; k++)                                                                  \
            for (int64_t i = 0; i < ido; i++) {                                                           \
                const T *a = cc + 2 * V * (i + ido * 2 * k);                                              \
                T *o = ch + 2 * V * (i + ido * k);                                                        \
                const T wr = tw[2 * (ido + i)], wi = tw[2 * (ido + i) + 1];                               \
                CT__FFT_LANES(V) {                                                                        \
                    T ar = a[v], ai = a[V + v], br = a[s + v], bi = a[s + V + v];                         \
                    o[v] = ar + br; o[V + v] = ai + bi;                                                   \
                    T dr = ar - br, di = ai - bi;                                                         \
                    o[so + v] = dr * wr - di * wi; o[so + V + v] = dr * wi + di * wr;                     \
                }                                                                                         \
            }                                                                                             \
    }                                                                                                     \
    static void ct__fft_vpass4_##S(int64_t ido, int64_t l1, const T *CT_RESTRICT cc, T *CT_RESTRICT ch, const T *tw, int sign) {  \
        const int64_t s = 2 * V * ido, so = 2 * V * ido * l1;                                             \
        const T sg = sign < 0 ? (T)1 : (T)-1;                                                             \
        for (int64_t k = 0; k < l1; k++)                                                                  \
            for (int64_t i = 0; i < ido; i++) {                                                           \
                const T *a = cc + 2 * V * (i + ido * 4 * k);                                              \
                T *o = ch + 2 * V * (i + ido * k);                                                        \
                const T *w1 = tw + 2 * (ido + i), *w2 = tw + 2 * (2 * ido + i), *w3 = tw + 2 * (3 * ido + i); \
                const T w1r = w1[0], w1i = w1[1], w2r = w2[0], w2i = w2[1], w3r = w3[0], w3i = w3[1];     \
                CT__FFT_LANES(V) {                                                                        \
                    T t0r = a[v] + a[2 * s + v], t0i = a[V + v] + a[2 * s + V + v];                       \
                    T t1r = a[v] - a[2 * s + v], t1i = a[V + v] - a[2 * s + V + v];                       \
                    T t2r = a[s + v] + a[3 * s + v], t2i = a[s + V + v] + a[3 * s + V + v];               \
                    T t3r = a[s + v] - a[3 * s + v], t3i = a[s + V + v] - a[3 * s + V + v];               \
                    T jr = sg * t3i, ji = -sg * t3r;                                                      \
                    T y1r = t1r + jr, y1i = t1i + ji, y3r = t1r - jr, y3i = t1i - ji;                     \
                    T y2r = t0r - t2r, y2i = t0i - t2i;                                                   \
                    o[v] = t0r + t2r; o[V + v] = t0i + t2i;                                               \
                    o[so + v] = y1r * w1r - y1i * w1i; o[so + V + v] = y1r * w1i + y1i * w1r;             \
                    o[2 * so + v] = y2r * w2r - y2i * w2i; o[2 * so + V + v] = y2r * w2i + y2i * w2r;     \
                    o[3 * so + v] = y3r * w3r - y3i * w3i; o[3 * so + V + v] = y3r * w3i + y3i * w3r;     \
                }                                                                                         \
            }                                                                                             \
    }
/* radix 4 and 2 with GCC/clang vector types (the lane loops above are not
   reliably vectorized): one vector holds the V lanes of a real or imaginary part */
#define CT__FFT_ST(VT, p, e) do { VT st_ = (e); memcpy((p), &st_, sizeof st_); } while (0)
#define CT__FFT_GVP24(T, S, VT)                                                                           \
    static void ct__fft_vpass2_##S(int64_t ido, int64_t l1, const T *CT_RESTRICT cc, T *CT_RESTRICT ch,   \
                                   const T *tw) {                                                         \
        const int64_t V = (int64_t)(sizeof(VT) / sizeof(T)), s = 2 * V * ido, so = 2 * V * ido * l1;     \
        for (int64_t k = 0; k < l1; k++)                                                                  \
            for (int64_t i = 0; i < ido; i++) {                                                           \
                const T *a = cc + 2 * V * (i + ido * 2 * k);                                              \
                T *o = ch + 2 * V * (i + ido * k);                                                        \
                const T wr = tw[2 * (ido + i)], wi = tw[2 * (ido + i) + 1];                               \
                VT ar, ai; memcpy(&ar, a, sizeof ar); memcpy(&ai, a + V, sizeof ai);                                    \
                VT br, bi; memcpy(&br, a + s, sizeof br); memcpy(&bi, a + s + V, sizeof bi);                            \
                CT__FFT_ST(VT, o, ar + br); CT__FFT_ST(VT, o + V, ai + bi);                               \
                VT dr = ar - br, di = ai - bi;                                                            \
                CT__FFT_ST(VT, o + so, dr * wr - di * wi); CT__FFT_ST(VT, o + so + V, dr * wi + di * wr); \
            }                                                                                             \
    }                                                                                                     \
    static void ct__fft_vpass4_##S(int64_t ido, int64_t l1, const T *CT_RESTRICT cc, T *CT_RESTRICT ch,   \
                                   const T *tw, int sign) {                                               \
        const int64_t V = (int64_t)(sizeof(VT) / sizeof(T)), s = 2 * V * ido, so = 2 * V * ido * l1;     \
        const T sg = sign < 0 ? (T)1 : (T)-1;                                                             \
        for (int64_t k = 0; k < l1; k++)                                                                  \
            for (int64_t i = 0; i < ido; i++) {                                                           \
                const T *a = cc + 2 * V * (i + ido * 4 * k);                                              \
                T *o = ch + 2 * V * (i + ido * k);                                                        \
                const T *w1 = tw + 2 * (ido + i), *w2 = tw + 2 * (2 * ido + i), *w3 = tw + 2 * (3 * ido + i); \
                VT a0r, a0i; memcpy(&a0r, a, sizeof a0r); memcpy(&a0i, a + V, sizeof a0i);                                  \
                VT a1r, a1i; memcpy(&a1r, a + s, sizeof a1r); memcpy(&a1i, a + s + V, sizeof a1i);                          \
                VT a2r, a2i; memcpy(&a2r, a + 2 * s, sizeof a2r); memcpy(&a2i, a + 2 * s + V, sizeof a2i);                  \
                VT a3r, a3i; memcpy(&a3r, a + 3 * s, sizeof a3r); memcpy(&a3i, a + 3 * s + V, sizeof a3i);                  \
                VT t0r = a0r + a2r, t0i = a0i + a2i, t1r = a0r - a2r, t1i = a0i - a2i;                    \
                VT t2r = a1r + a3r, t2i = a1i + a3i, t3r = a1r - a3r, t3i = a1i - a3i;                    \
                VT jr = sg * t3i, ji = -sg * t3r;                                                         \
                VT y1r = t1r + jr, y1i = t1i + ji, y3r = t1r - jr, y3i = t1i - ji;                        \
                VT y2r = t0r - t2r, y2i = t0i - t2i;                                                      \
                CT__FFT_ST(VT, o, t0r + t2r); CT__FFT_ST(VT, o + V, t0i + t2i);                           \
                CT__FFT_ST(VT, o + so, y1r * w1[0] - y1i * w1[1]);                                        \
                CT__FFT_ST(VT, o + so + V, y1r * w1[1] + y1i * w1[0]);                                    \
                CT__FFT_ST(VT, o + 2 * so, y2r * w2[0] - y2i * w2[1]);                                    \
                CT__FFT_ST(VT, o + 2 * so + V, y2r * w2[1] + y2i * w2[0]);                                \
                CT__FFT_ST(VT, o + 3 * so, y3r * w3[0] - y3i * w3[1]);                                    \
                CT__FFT_ST(VT, o + 3 * so + V, y3r * w3[1] + y3i * w3[0]);                                \
            }                                                                                             \
    }
#ifdef CT__HAVE_VEC
typedef float ct__fft_v8f __attribute__((vector_size(32)));
typedef double ct__fft_v4d __attribute__((vector_size(32)));
CT__FFT_GVP24(float, f, ct__fft_v8f)
CT__FFT_GVP24(double, d, ct__fft_v4d)
#else
CT__FFT_VP24(float, f, 8)
CT__FFT_VP24(double, d, 4)
#endif
#define CT__FFT_Vf 8
#define CT__FFT_Vd 4
CT__FFT_VENGINE(float, f, 8)
CT__FFT_VENGINE(double, d, 4)
/* the four-step form of a long transform, in -> out (the same array or apart);
   scr: p->scratch complex. n1 x n2 row-major: V columns at a time (lanes), their
   n1-point transforms, the twiddles w_n^{k1 j2}, and V x V blocks transposed into
   W, where each group of V rows k1 is n2 points of V lanes: the rows' n2-point
   transforms run there in place, and are written to out at k1 + n1 k2. */
#define CT__FFT_EXEC4(T, S)                                                                               \
    static void ct__fft_exec4_##S(const ct__fftplan *p, const T *in, T *out, T *scr) {                    \
        const int64_t n1 = p->n1, n2 = p->n2, n = p->n, V = CT__FFT_V##S;                                 \
        const int64_t mx = n1 > n2 ? n1 : n2;                                                             \
        T *W = scr, *vb = scr + 2 * n, *vs = vb + 2 * V * mx;                                             \
        for (int64_t c0 = 0; c0 < n2; c0 += V) {          /* columns: n1-point transforms */            \
            for (int64_t r = 0; r < n1; r++) {                                                            \
                const T *e = in + 2 * (r * n2 + c0);                                                      \
                T *q = vb + 2 * V * r;                                                                    \
                for (int64_t v = 0; v < V; v++) { q[v] = e[2 * v]; q[V + v] = e[2 * v + 1]; }             \
            }                                                                                             \
            const T *R = ct__fft_vexec_r_##S(p->c1, vb, vs);                                              \
            const T *tw = (const T *)p->tw4 + 2 * V * n1 * (c0 / V);                                      \
            for (int64_t g = 0; g < n1; g += V) {                                                         \
                T blk[2 * CT__FFT_V##S * CT__FFT_V##S];                                                   \
                for (int64_t u = 0; u < V; u++) {                                                         \
                    const T *q = R + 2 * V * (g + u), *w = tw + 2 * V * (g + u);                          \
                    T *b = blk + 2 * V * u;                                                               \
                    for (int64_t v = 0; v < V; v++) {                                                     \
                        b[v] = q[v] * w[v] - q[V + v] * w[V + v];                                         \
                        b[V + v] = q[v] * w[V + v] + q[V + v] * w[v];                                     \
                    }                                                                                     \
                }                                                                                         \
                T *o = W + 2 * (g * n2 + V * c0);                                                         \
                for (int64_t v = 0; v < V; v++)                                                           \
                    for (int64_t u = 0; u < V; u++) {                                                     \
                        o[2 * V * v + u] = blk[2 * V * u + v];                                            \
                        o[2 * V * v + V + u] = blk[2 * V * u + V + v];                                    \
                    }                                                                                     \
            }                                                                                             \
        }                                                                                                 \
        for (int64_t g = 0; g < n1; g += V) {             /* rows: n2-point transforms */               \
            const T *R = ct__fft_vexec_r_##S(p->c2, W + 2 * g * n2, vb);                                  \
            for (int64_t k = 0; k < n2; k++) {                                                            \
                const T *q = R + 2 * V * k;                                                               \
                T *e = out + 2 * (g + n1 * k);                                                            \
                for (int64_t v = 0; v < V; v++) { e[2 * v] = q[v]; e[2 * v + 1] = q[V + v]; }             \
            }                                                                                             \
        }                                                                                                 \
    }
CT__FFT_EXEC4(float, f)
CT__FFT_EXEC4(double, d)

/* ============================================================================
   2.3 The op table
   One kernel for every transform. Attributes: v = [dims (k), transform lengths
   N (k), output lengths (k)]; mode: the normalization (none, 1/sqrt(prod N),
   1/prod N); flags: forward (sign -1), and for the last listed dim only:
     half_in       the input is taken as n/2 + 1 points, zero-padded to n
     half_out      the output keeps n/2 + 1 points (one-sided)
     hermitian_in  the input is n/2 + 1 points of a Hermitian signal (c2r)
     double_in/out points 1 .. n - (n/2 + 1) doubled before / after the transform
     real_out      the real part of the result is the output
   Along each dim the input (length m) is resized (zero-padded or trimmed) to the
   transform length, transformed, then resized to the output length: its adjoint
   is the same op in the other direction with the lengths swapped.
   ========================================================================== */
#define CT__FFTF_FORWARD 0x01
#define CT__FFTF_HALF_IN 0x02
#define CT__FFTF_HALF_OUT 0x04
#define CT__FFTF_HERM_IN 0x08
#define CT__FFTF_DOUBLE_IN 0x10
#define CT__FFTF_DOUBLE_OUT 0x20
#define CT__FFTF_REAL_OUT 0x40
#define CT__FFT_SCHEMA                                                                                   \
    "int[] dims_sizes_lengths=v, enum(none|by_root_n|by_n) normalization=mode, bool forward=f0, "         \
    "bool half_in=f1, bool half_out=f2, bool hermitian_in=f3, bool double_in=f4, bool double_out=f5, "    \
    "bool real_out=f6"
#define CT__FFT_OPS(X)                                                                                    \
    X(C2C, "ct::fft_c2c", "fft_c2c", "FftC2CBackward0", 1, 1, 0, CT__FFT_SCHEMA, ct__fft_meta, ct__fft_kernel, ct__fft_bw, CT__SAVE_NONE) \
    X(R2C, "ct::fft_r2c", "fft_r2c", "FftR2CBackward0", 1, 1, 0, CT__FFT_SCHEMA, ct__fft_meta, ct__fft_kernel, ct__fft_bw, CT__SAVE_NONE) \
    X(C2R, "ct::fft_c2r", "fft_c2r", "FftC2RBackward0", 1, 1, 0, CT__FFT_SCHEMA, ct__fft_meta, ct__fft_kernel, ct__fft_bw, CT__SAVE_NONE)
enum {
#define CT__FFT_X_ENUM(E, sname, name, bw, nin, nout, flags, attrs, meta, kernel, backward, save) CT__FFT_##E,
    CT__FFT_OPS(CT__FFT_X_ENUM)
#undef CT__FFT_X_ENUM
    CT__FFT_NUM_OPS
};
static int ct__fft_meta(ct__call *c);
static int ct__fft_kernel(ct__call *c);
static int ct__fft_bw(ct__node *n, ct_tensor *const *gout, ct_tensor **gin);
static const ct__opdef ct__fft_defs[CT__FFT_NUM_OPS] = {CT__FFT_OPS(CT__X_DEF)};
CT__OP_BLOCK(fft, ct__fft_defs, CT__FFT_NUM_OPS, )
/* Every public function starts with this: registers the ops once. */
static int ct__fft_init(void) {
    ct__fft_register_now();
    if (ct__fft_base < 0) { ct_set_error(CT_ERR_STATE, "ctensor_fft.h: its ops could not be registered"); return -1; }
    return 0;
}
/* the transform lengths are limited so that plans stay allocatable */
#define CT__FFT_MAXN ((int64_t)1 << 36)

static ct_dtype ct__fft_complex_of(ct_dtype dt) { return dt == CT_FLOAT64 || dt == CT_COMPLEX128 ? CT_COMPLEX128 : CT_COMPLEX64; }
static ct_dtype ct__fft_real_of(ct_dtype dt) { return dt == CT_FLOAT64 || dt == CT_COMPLEX128 ? CT_FLOAT64 : CT_FLOAT32; }
static int ct__fft_meta(ct__call *c) {
    const ct__attrs *a = c->a;
    const char *name = ct__opdef_get(c->op)->name;
    ct_tensor *x = c->in[0];
    ct_dtype dt = x->dtype;
    if (!(dt == CT_FLOAT32 || dt == CT_FLOAT64 || dt == CT_COMPLEX64 || dt == CT_COMPLEX128))
        return ct__failed(CT_ERR_DTYPE, "%s: Unsupported dtype %s", name, CT__DTNAME(dt));
    if (a->nv < 0 || a->nv % 3)
        return ct__failed(CT_ERR_ARG, "%s: dims_sizes_lengths holds 3 entries per dim, got %d", name, (int)a->nv);
    int k = a->nv / 3;
    if (k > x->ndim) return ct__failed(CT_ERR_ARG, "%s: %d dims given for a %d-d input", name, k, (int)x->ndim);
    int seen[CT_MAX_DIMS] = {0};
    int64_t shape[CT_MAX_DIMS];
    for (int d = 0; d < x->ndim; d++) shape[d] = x->shape[d];
    for (int j = 0; j < k; j++) {
        int64_t d = a->v[j], n = a->v[k + j], l = a->v[2 * k + j];
        if (d < 0 || d >= x->ndim)
            return ct__failed(CT_ERR_INDEX, "%s: Dimension out of range (expected to be in range of [0, %d], but got %lld)", name,
                              (int)x->ndim - 1, (long long)d);
        if (seen[d]) return ct__failed(CT_ERR_ARG, "%s: FFT dims must be unique", name);
        seen[d] = 1;
        if (n < 1) return ct__failed(CT_ERR_ARG, "%s: Invalid number of data points (%lld) specified", name, (long long)n);
        if (n > CT__FFT_MAXN) return ct__failed(CT_ERR_ARG, "%s: %lld data points are more than this build transforms (2^36)", name, (long long)n);
        if (l < 0) return ct__failed(CT_ERR_ARG, "%s: negative output length %lld", name, (long long)l);
        /* every call the functions and the backward rules make transforms at most about
           twice its longer side: a longer transform (plans and buffers of n points) is refused */
        int64_t side = x->shape[d] > l ? x->shape[d] : l;
        if (n > ct__sat_add(ct__sat_mul(side, 2), 2))
            return ct__failed(CT_ERR_ARG, "%s: transform length %lld is more than twice the input (%lld) and output (%lld) lengths", name,
                              (long long)n, (long long)x->shape[d], (long long)l);
        shape[d] = l;
    }
    int fl = a->flags;
    if ((fl & CT__FFTF_HERM_IN) && !(fl & CT__FFTF_REAL_OUT))
        return ct__failed(CT_ERR_ARG, "%s: a Hermitian input gives a real output (hermitian_in needs real_out)", name);
    if ((fl & (CT__FFTF_HERM_IN | CT__FFTF_HALF_IN | CT__FFTF_HALF_OUT | CT__FFTF_DOUBLE_IN | CT__FFTF_DOUBLE_OUT)) && k == 0)
        return ct__failed(CT_ERR_ARG, "%s: one-sided flags need a transformed dim", name);
    if (a->mode < 0 || a->mode > 2) return ct__failed(CT_ERR_ARG, "%s: normalization %d out of range", name, (int)a->mode);
    c->cdt = ct__fft_complex_of(dt);
    ct__out_new(c, (fl & CT__FFTF_REAL_OUT) ? ct__fft_real_of(dt) : ct__fft_complex_of(dt), x->ndim, shape);
    return 0;
}

/* ============================================================================
   2.4 The n-dimensional driver: one pass per transformed dim. A pass reads lines
   along its dim from the source (the input with its strides, then the previous
   pass's contiguous complex buffer), B lines at a time (neighbours in the
   fastest other dim, so strided lines are read in cache lines), transforms each
   line in a private buffer and writes it to the destination (the output tensor
   for the last pass, scaled there).
   ========================================================================== */
typedef struct ct__fftpass {
    int prec;
    const char *src;
    int sreal;
    int64_t sst[CT_MAX_DIMS];       /* bytes */
    char *dst;
    int dreal;
    int64_t dstr[CT_MAX_DIMS];      /* bytes */
    int ndim, d;
    int64_t shape[CT_MAX_DIMS];     /* the destination's shape (the other dims as the source's) */
    int64_t lin, n, lout, h;
    int hin, herm, din, dout, hout;
    double scale;
    ct__fftplan *cp, *rp;
    int64_t B;
    int fail;
} ct__fftpass;

/* the offsets (bytes) of line l in source and destination */
static void ct__fft_line_off(const ct__fftpass *p, int64_t l, int64_t *so, int64_t *dof) {
    int64_t s = 0, o = 0;
    for (int q = p->ndim - 1; q >= 0; q--) {
        if (q == p->d) continue;
        int64_t i = l % p->shape[q];
        l /= p->shape[q];
        s += i * p->sst[q];
        o += i * p->dstr[q];
    }
    *so = s;
    *dof = o;
}

/* offsets o[0..nb) one element (es bytes) apart: neighbour lines */
static int ct__fft_adjacent(const int64_t *o, int64_t nb, size_t es) {
    for (int64_t b = 1; b < nb; b++)
        if (o[b] != o[0] + b * (int64_t)es) return 0;
    return 1;
}
#define CT__FFT_DRIVER(T, S)                                                                              \
    static void ct__fft_lines_##S(void *ctx, int64_t lo, int64_t hi) {                                    \
        ct__fftpass *p = (ct__fftpass *)ctx;                                                              \
        const int64_t N = p->n, h = p->h, B = p->B;                                                       \
        /* line pitch: lines a power of two apart would share cache sets; lines, scratch       \
           and tmp start 64-byte aligned (FFTW's aligned plans take them) */                     \
        const int64_t LP = (N + 15) & ~(int64_t)7;                                                        \
        const int64_t scr_n = ((p->rp ? p->rp->scratch : p->cp->scratch) + 7) & ~(int64_t)7;              \
        const int64_t tmp_n = p->rp ? ((N / 2 + 8) & ~(int64_t)7) : 0;                                    \
        const int realpath = p->sreal && !p->herm;                                                        \
        const int64_t VL = CT__FFT_V##S;                                                                  \
        const int vec = !realpath && !p->herm && p->cp && !p->cp->m && !p->cp->fw[0] && B >= VL && N > 1; \
        const int64_t v_n = vec ? 2 * VL * N : 0;                                                         \
        /* CTENSOR_FFTW, plain c2c lines: a block is one plan of nb transforms, lines in place
           (unit-stride dims) or, for a strided dim, points interleaved (vl: FFTW's vector loop) */ \
        const int fwb = !realpath && !p->herm && p->cp && p->cp->fw[0] && !p->din && !p->dout;            \
        const int vl = fwb && p->sst[p->d] != (int64_t)(2 * sizeof(T));                                  \
        ct__fftplan *wsp = p->rp ? p->rp : p->cp;                                                         \
        const size_t g0b = (size_t)(B * LP + scr_n + tmp_n + v_n) * 2 * sizeof(T) + 64;                   \
        char *G0 = (char *)ct__fft_ws_take(wsp, g0b);                                                     \
        int64_t so[64], dof[64];                                                                          \
        if (!G0) { p->fail = 1; return; }                                                                 \
        T *G = (T *)(void *)(G0 + (64 - (uintptr_t)G0 % 64) % 64);                                        \
        T *scr = G + 2 * B * LP, *tmp = scr + 2 * scr_n, *vb = tmp + 2 * tmp_n, *vs = vb + 2 * VL * N;      \
        const int64_t mincnt = (p->hin || p->herm) ? h : N;                                               \
        const int64_t ncopy = p->lin < mincnt ? p->lin : mincnt;                                          \
        const int64_t mout = p->herm ? N : p->hout ? h : N;                                               \
        const int64_t nwrite = p->lout < mout ? p->lout : mout;                                           \
        const int64_t ss = p->sst[p->d], ds = p->dstr[p->d];                                              \
        const T sc = (T)p->scale;                                                                         \
        const int64_t ndbl = N - h; /* points 1 .. N - h are doubled */                                   \
        /* unit-stride lines whole (no padding, trimming or doubling): transformed from the     \
           source straight into the destination, no block copies (long 1-D transforms) */       \
        const int direct = !fwb && !p->din && !p->dout && !p->dreal && ncopy == N && ds == (int64_t)(2 * sizeof(T)) && \
            (realpath ? p->rp && !p->rp->fw[0] && p->hout && p->lout == h && ss == (int64_t)sizeof(T)     \
                      : !p->herm && !p->sreal && p->cp && !p->cp->fw[0] && p->lout == N && ss == (int64_t)(2 * sizeof(T))); \
        int64_t l0 = lo;                                                                                  \
        if (direct && (!vec || N >= CT__FFT_FOURSTEP))   /* the lanes path does short lines better */    \
            for (; l0 < hi; l0++) {                                                                       \
                ct__fft_line_off(p, l0, &so[0], &dof[0]);                                                 \
                const T *e = (const T *)(p->src + so[0]);                                                 \
                T *o = (T *)(p->dst + dof[0]);                                                            \
                const int64_t no = realpath ? 2 * h : 2 * N;                                              \
                if (realpath) ct__fft_r2c_##S(p->rp, e, o, scr);                                          \
                else if (p->cp->n1) ct__fft_exec4_##S(p->cp, e, o, scr);                                  \
                else { memcpy(o, e, (size_t)N * 2 * sizeof(T)); ct__fft_exec_##S(p->cp, o, scr); }       \
                if (sc != (T)1) for (int64_t i = 0; i < no; i++) o[i] *= sc;                              \
            }                                                                                             \
        /* V lines at once, gathered straight into lanes and written straight back */                     \
        if (vec)                                                                                          \
            for (; l0 + VL <= hi; l0 += VL) {                                                             \
                for (int64_t v = 0; v < VL; v++) ct__fft_line_off(p, l0 + v, &so[v], &dof[v]);            \
                /* neighbour lines (a strided dim): point i of the V lines is one run of V     \
                   complex; unit-stride lines: each line read (written) as one run */           \
                if (ct__fft_adjacent(so, VL, 2 * sizeof(T)))                                              \
                    for (int64_t i = 0; i < ncopy; i++) {                                                 \
                        T *q = vb + 2 * VL * i;                                                           \
                        const T *e = (const T *)(p->src + so[0] + i * ss);                                \
                        for (int64_t v = 0; v < VL; v++) { q[v] = e[2 * v]; q[VL + v] = e[2 * v + 1]; }  \
                    }                                                                                     \
                else if (ss == (int64_t)(2 * sizeof(T))) {  /* V x V blocks through blk: runs both ways */ \
                    int64_t i0 = 0;                                                                       \
                    for (; i0 + VL <= ncopy; i0 += VL) {                                                  \
                        T blk[CT__FFT_V##S][2 * CT__FFT_V##S];                                            \
                        for (int64_t v = 0; v < VL; v++) memcpy(blk[v], (const T *)(p->src + so[v]) + 2 * i0, sizeof blk[v]); \
                        for (int64_t u = 0; u < VL; u++) {                                                \
                            T *q = vb + 2 * VL * (i0 + u);                                                \
                            for (int64_t v = 0; v < VL; v++) { q[v] = blk[v][2 * u]; q[VL + v] = blk[v][2 * u + 1]; } \
                        }                                                                                 \
                    }                                                                                     \
                    for (int64_t v = 0; v < VL; v++) {                                                    \
                        const T *e = (const T *)(p->src + so[v]);                                         \
                        for (int64_t i = i0; i < ncopy; i++) { vb[2 * VL * i + v] = e[2 * i]; vb[2 * VL * i + VL + v] = e[2 * i + 1]; } \
                    }                                                                                     \
                } else                                                                                    \
                    for (int64_t i = 0; i < ncopy; i++) {                                                 \
                        T *q = vb + 2 * VL * i;                                                           \
                        for (int64_t v = 0; v < VL; v++) {                                                \
                            const T *e = (const T *)(p->src + so[v] + i * ss);                            \
                            q[v] = e[0];                                                                  \
                            q[VL + v] = e[1];                                                             \
                        }                                                                                 \
                    }                                                                                     \
                if (N > ncopy) memset(vb + 2 * VL * ncopy, 0, (size_t)(N - ncopy) * 2 * VL * sizeof(T));   \
                if (p->din) for (int64_t i = 2 * VL; i < 2 * VL * (ndbl + 1); i++) vb[i] *= 2;           \
                T *R = ct__fft_vexec_r_##S(p->cp, vb, vs);                                                \
                if (p->dout) for (int64_t i = 2 * VL; i < 2 * VL * (ndbl + 1); i++) R[i] *= 2;           \
                if (!p->dreal && ct__fft_adjacent(dof, VL, 2 * sizeof(T))) {                              \
                    for (int64_t i = 0; i < p->lout; i++) {                                               \
                        const T *q = R + 2 * VL * i;                                                      \
                        T *e = (T *)(p->dst + dof[0] + i * ds);                                           \
                        if (i < nwrite) for (int64_t v = 0; v < VL; v++) { e[2 * v] = q[v] * sc; e[2 * v + 1] = q[VL + v] * sc; } \
                        else memset(e, 0, (size_t)VL * 2 * sizeof(T));                                   \
                    }                                                                                     \
                } else if (!p->dreal && ds == (int64_t)(2 * sizeof(T))) {                                 \
                    int64_t i0 = 0;                                                                       \
                    for (; i0 + VL <= nwrite; i0 += VL) {                                                 \
                        T blk[CT__FFT_V##S][2 * CT__FFT_V##S];                                            \
                        for (int64_t u = 0; u < VL; u++) {                                                \
                            const T *q = R + 2 * VL * (i0 + u);                                           \
                            for (int64_t v = 0; v < VL; v++) { blk[v][2 * u] = q[v] * sc; blk[v][2 * u + 1] = q[VL + v] * sc; } \
                        }                                                                                 \
                        for (int64_t v = 0; v < VL; v++) memcpy((T *)(p->dst + dof[v]) + 2 * i0, blk[v], sizeof blk[v]); \
                    }                                                                                     \
                    for (int64_t v = 0; v < VL; v++) {                                                    \
                        T *e = (T *)(p->dst + dof[v]);                                                    \
                        for (int64_t i = i0; i < nwrite; i++) { e[2 * i] = R[2 * VL * i + v] * sc; e[2 * i + 1] = R[2 * VL * i + VL + v] * sc; } \
                        if (p->lout > nwrite) memset(e + 2 * nwrite, 0, (size_t)(p->lout - nwrite) * 2 * sizeof(T)); \
                    }                                                                                     \
                } else                                                                                    \
                    for (int64_t i = 0; i < p->lout; i++) {                                               \
                        const T *q = R + 2 * VL * i;                                                      \
                        const int in = i < nwrite;                                                        \
                        for (int64_t v = 0; v < VL; v++) {                                                \
                            T *e = (T *)(p->dst + dof[v] + i * ds);                                       \
                            e[0] = in ? q[v] * sc : (T)0;                                                 \
                            if (!p->dreal) e[1] = in ? q[VL + v] * sc : (T)0;                             \
                        }                                                                                 \
                    }                                                                                     \
            }                                                                                             \
        for (; l0 < hi; l0 += B) {                                                                        \
            int64_t nb = hi - l0 < B ? hi - l0 : B;                                                       \
            for (int64_t b = 0; b < nb; b++) ct__fft_line_off(p, l0 + b, &so[b], &dof[b]);                \
            /* gather: real lines as T[N] (real path), else complex T[2N] */                              \
            if (realpath) {                                                                               \
                for (int64_t i = 0; i < ncopy; i++)                                                       \
                    for (int64_t b = 0; b < nb; b++)                                                      \
                        G[2 * b * LP + i] = *(const T *)(p->src + so[b] + i * ss);                         \
                for (int64_t b = 0; b < nb; b++)                                                          \
                    for (int64_t i = ncopy; i < N; i++) G[2 * b * LP + i] = 0;                             \
            } else if (vl && ct__fft_adjacent(so, nb, 2 * sizeof(T))) {   /* FFTW blocks, neighbour lines */ \
                for (int64_t i = 0; i < ncopy; i++)                                                       \
                    memcpy(G + 2 * i * nb, p->src + so[0] + i * ss, (size_t)nb * 2 * sizeof(T));           \
                if (N > ncopy) memset(G + 2 * ncopy * nb, 0, (size_t)((N - ncopy) * nb) * 2 * sizeof(T));    \
            } else if (vl) {       /* FFTW blocks of a strided dim: point i of line b at i nb + b */     \
                for (int64_t i = 0; i < ncopy; i++)                                                       \
                    for (int64_t b = 0; b < nb; b++) {                                                    \
                        const T *e = (const T *)(p->src + so[b] + i * ss);                                \
                        G[2 * (i * nb + b)] = e[0];                                                        \
                        G[2 * (i * nb + b) + 1] = p->sreal ? (T)0 : e[1];                                  \
                    }                                                                                     \
                if (N > ncopy) memset(G + 2 * ncopy * nb, 0, (size_t)((N - ncopy) * nb) * 2 * sizeof(T));    \
            } else if (fwb && ss == (int64_t)(2 * sizeof(T))) {    /* FFTW blocks of unit-stride lines */ \
                for (int64_t b = 0; b < nb; b++) {                                                        \
                    memcpy(G + 2 * b * LP, p->src + so[b], (size_t)ncopy * 2 * sizeof(T));                 \
                    memset(G + 2 * (b * LP + ncopy), 0, (size_t)(N - ncopy) * 2 * sizeof(T));              \
                }                                                                                         \
            } else {                                                                                      \
                for (int64_t i = 0; i < ncopy; i++)                                                       \
                    for (int64_t b = 0; b < nb; b++) {                                                    \
                        const T *e = (const T *)(p->src + so[b] + i * ss);                                \
                        G[2 * (b * LP + i)] = e[0];                                                        \
                        G[2 * (b * LP + i) + 1] = p->sreal ? (T)0 : e[1];                                  \
                    }                                                                                     \
                for (int64_t b = 0; b < nb; b++)                                                          \
                    memset(G + 2 * (b * LP + ncopy), 0, (size_t)(N - ncopy) * 2 * sizeof(T));              \
            }                                                                                             \
            /* transform each line (FFTW: the block as one plan of nb transforms) */                      \
            if (fwb) { CT__FFTW_HOOK(if (ct__fftw_block(p->cp, G, nb, LP, vl)) p->fail = 1;) }             \
            else for (int64_t b = 0; b < nb; b++) {                                                      \
                T *L = G + 2 * b * LP;                                                                     \
                if (realpath) {                                                                           \
                    if (p->din) for (int64_t i = 1; i <= ndbl; i++) L[i] *= 2;                            \
                    if (p->rp) {                                                                          \
                        ct__fft_r2c_##S(p->rp, L, tmp, scr);                                              \
                        memcpy(L, tmp, (size_t)(N / 2 + 1) * 2 * sizeof(T));                              \
                        if (!p->hout)                                                                     \
                            for (int64_t i = 1; i < N / 2; i++) { L[2 * (N - i)] = L[2 * i]; L[2 * (N - i) + 1] = -L[2 * i + 1]; } \
                    } else {                                                                              \
                        for (int64_t i = N - 1; i >= 0; i--) { L[2 * i] = L[i]; L[2 * i + 1] = 0; }       \
                        ct__fft_exec_##S(p->cp, L, scr);                                                  \
                    }                                                                                     \
                } else if (p->herm) {                                                                     \
                    if (p->din) for (int64_t i = 1; i <= ndbl; i++) { L[2 * i] *= 2; L[2 * i + 1] *= 2; } \
                    if (p->rp) {                                                                          \
                        ct__fft_c2r_##S(p->rp, L, tmp, scr);                                              \
                        memcpy(L, tmp, (size_t)N * sizeof(T));                                            \
                    } else {                                                                              \
                        L[1] = 0;                                                                         \
                        for (int64_t i = 1; i < h; i++) { L[2 * (N - i)] = L[2 * i]; L[2 * (N - i) + 1] = -L[2 * i + 1]; } \
                        ct__fft_exec_##S(p->cp, L, scr);                                                  \
                        for (int64_t i = 0; i < N; i++) L[i] = L[2 * i];                                  \
                    }                                                                                     \
                } else {                                                                                  \
                    if (p->din) for (int64_t i = 1; i <= ndbl; i++) { L[2 * i] *= 2; L[2 * i + 1] *= 2; } \
                    ct__fft_exec_##S(p->cp, L, scr);                                                      \
                }                                                                                         \
                if (p->dout && !p->herm) for (int64_t i = 1; i <= ndbl; i++) { L[2 * i] *= 2; L[2 * i + 1] *= 2; } \
            }                                                                                             \
            /* scatter (FFTW blocks to neighbour lines or along unit-stride lines: row copies) */          \
            if (fwb && !p->dreal && (vl ? ct__fft_adjacent(dof, nb, 2 * sizeof(T)) : ds == (int64_t)(2 * sizeof(T)))) { \
                const int64_t rows = vl ? p->lout : nb, len = vl ? 2 * nb : 2 * nwrite;                   \
                for (int64_t r = 0; r < rows; r++) {                                                      \
                    T *e = vl ? (T *)(p->dst + dof[0] + r * ds) : (T *)(p->dst + dof[r]);                 \
                    const T *q = vl ? G + 2 * r * nb : G + 2 * r * LP;                                    \
                    if (vl && r >= nwrite) memset(e, 0, (size_t)len * sizeof(T));                         \
                    else if (sc == (T)1) memcpy(e, q, (size_t)len * sizeof(T));                           \
                    else for (int64_t j = 0; j < len; j++) e[j] = q[j] * sc;                              \
                    if (!vl && p->lout > nwrite) memset(e + 2 * nwrite, 0, (size_t)(p->lout - nwrite) * 2 * sizeof(T)); \
                }                                                                                         \
            } else                                                                                        \
            for (int64_t i = 0; i < p->lout; i++)                                                         \
                for (int64_t b = 0; b < nb; b++) {                                                        \
                    const T *L = G + 2 * b * LP;                                                           \
                    T re = 0, im = 0;                                                                     \
                    if (i < nwrite) {                                                                     \
                        if (p->herm) re = L[i] * sc;                                                      \
                        else if (vl) { re = G[2 * (i * nb + b)] * sc; im = G[2 * (i * nb + b) + 1] * sc; }  \
                        else { re = L[2 * i] * sc; im = L[2 * i + 1] * sc; }                              \
                    }                                                                                     \
                    T *e = (T *)(p->dst + dof[b] + i * ds);                                               \
                    e[0] = re;                                                                            \
                    if (!p->dreal) e[1] = im;                                                             \
                }                                                                                         \
        }                                                                                                 \
        ct__fft_ws_give(wsp, G0, g0b);                                                                    \
    }
CT__FFT_DRIVER(float, f)
CT__FFT_DRIVER(double, d)

/* elementwise copy (no transformed dim): real or complex in, complex (or real) out */
static void ct__fft_copy(ct_tensor *x, ct_tensor *y, int prec) {
    int64_t n = ct_numel(y), idx[CT_MAX_DIMS] = {0};
    size_t ts = prec ? sizeof(double) : sizeof(float);
    int xr = !ct_dtype_is_complex(x->dtype), yr = !ct_dtype_is_complex(y->dtype);
    const char *xb = ct__ptr(x);
    char *yb = ct__ptr(y);
    for (int64_t e = 0; e < n; e++) {
        int64_t xo = 0, yo = 0;
        for (int d = 0; d < x->ndim; d++) { xo += idx[d] * x->strides[d]; yo += idx[d] * y->strides[d]; }
        char *o = yb + yo * (int64_t)ts * (yr ? 1 : 2);
        const char *i = xb + xo * (int64_t)ts * (xr ? 1 : 2);
        memcpy(o, i, ts);
        if (!yr) {
            if (xr) memset(o + ts, 0, ts);
            else memcpy(o + ts, i + ts, ts);
        }
        for (int d = x->ndim - 1; d >= 0; d--) {
            if (++idx[d] < x->shape[d]) break;
            idx[d] = 0;
        }
    }
}

#ifdef CTENSOR_FFTW
/* ---- CTENSOR_FFTW: whole transforms as one plan. A c2c transform (or a forward r2c
   one-sided along its last dim) without padding, trimming or doubling runs as one
   guru plan: rank = the transformed dims, howmany = the others, the input's and the
   output's own strides, so fft2 / fftn and batched 1-D transforms are FFTW's
   multi-dimensional and vector loops, not one plan run per line. Plans are cached
   (16, keyed on precision, kind, sign, every dim's length and strides, and
   whether both arrays have FFTW's SIMD alignment), made under the planner mutex on
   scratch arrays of the same extent (FFTW_MEASURE writes them) and run on the
   call's arrays by fftw_execute_dft / _r2c (new-array execution; the input is
   preserved, as c2c and r2c plans do). A cached plan is counted while it runs: an
   evicted one is destroyed by its last user. ---- */
#define CT__FFTW_WHOLE 16
typedef struct ct__fftw_whole {
    int prec, kind, sign, rank, hrank, aligned, inplace, refs;
    fftw_iodim64 dims[CT_MAX_DIMS], hdims[CT_MAX_DIMS];
    void *plan;
} ct__fftw_whole;
static ct__fftw_whole *ct__fftw_wcache[CT__FFTW_WHOLE];
static int ct__fftw_wnext;
static void ct__fftw_wdrop(ct__fftw_whole *w) {   /* under ct__fftw_mu */
    if (--w->refs > 0) return;
    if (w->prec) fftw_destroy_plan((fftw_plan)w->plan);
    else fftwf_destroy_plan((fftwf_plan)w->plan);
    CT_FREE(w);
}
static int ct__fftw_wsame(const ct__fftw_whole *a, const ct__fftw_whole *b) {
    if (a->prec != b->prec || a->kind != b->kind || a->sign != b->sign || a->rank != b->rank || a->hrank != b->hrank ||
        a->aligned != b->aligned || a->inplace != b->inplace)
        return 0;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i].n != b->dims[i].n || a->dims[i].is != b->dims[i].is || a->dims[i].os != b->dims[i].os) return 0;
    for (int i = 0; i < a->hrank; i++)
        if (a->hdims[i].n != b->hdims[i].n || a->hdims[i].is != b->hdims[i].is || a->hdims[i].os != b->hdims[i].os) return 0;
    return 1;
}
/* the plan for key k (made when missing), counted; NULL when FFTW cannot plan it */
static ct__fftw_whole *ct__fftw_wget(const ct__fftw_whole *k, int64_t iext, int64_t oext) {
    pthread_mutex_lock(&ct__fftw_mu);
    for (int i = 0; i < CT__FFTW_WHOLE; i++) {
        ct__fftw_whole *w = ct__fftw_wcache[i];
        if (w && ct__fftw_wsame(w, k)) { w->refs++; pthread_mutex_unlock(&ct__fftw_mu); return w; }
    }
    ct__fftw_whole *w = (ct__fftw_whole *)CT_MALLOC(sizeof *w);
    const size_t es = k->prec ? sizeof(double) : sizeof(float);
    const size_t ib = (size_t)iext * es * (k->kind ? 1 : 2), ob = (size_t)oext * es * 2;
    void *a = k->prec ? fftw_malloc(ib) : fftwf_malloc(ib);
    void *b = k->inplace ? a : k->prec ? fftw_malloc(ob) : fftwf_malloc(ob);
    if (w && a && b) {
        *w = *k;
        unsigned fl = (unsigned)(CTENSOR_FFTW_FLAGS) | (k->aligned ? 0u : FFTW_UNALIGNED);
        if (k->kind == 0)
            w->plan = k->prec ? (void *)fftw_plan_guru64_dft(k->rank, k->dims, k->hrank, k->hdims, (fftw_complex *)a, (fftw_complex *)b, k->sign, fl)
                              : (void *)fftwf_plan_guru64_dft(k->rank, k->dims, k->hrank, k->hdims, (fftwf_complex *)a, (fftwf_complex *)b, k->sign, fl);
        else
            w->plan = k->prec ? (void *)fftw_plan_guru64_dft_r2c(k->rank, k->dims, k->hrank, k->hdims, (double *)a, (fftw_complex *)b, fl)
                              : (void *)fftwf_plan_guru64_dft_r2c(k->rank, k->dims, k->hrank, k->hdims, (float *)a, (fftwf_complex *)b, fl);
    }
    if (k->inplace) b = NULL;
    if (k->prec) { if (a) fftw_free(a); if (b) fftw_free(b); }
    else { if (a) fftwf_free(a); if (b) fftwf_free(b); }
    if (w && !w->plan) { CT_FREE(w); w = NULL; }
    if (w) {
        w->refs = 2;   /* the cache's and the caller's */
        ct__fftw_whole *old = ct__fftw_wcache[ct__fftw_wnext];
        ct__fftw_wcache[ct__fftw_wnext] = w;
        ct__fftw_wnext = (ct__fftw_wnext + 1) % CT__FFTW_WHOLE;
        if (old) ct__fftw_wdrop(old);
    }
    pthread_mutex_unlock(&ct__fftw_mu);
    return w;
}
static void ct__fftw_wput(ct__fftw_whole *w) {
    pthread_mutex_lock(&ct__fftw_mu);
    ct__fftw_wdrop(w);
    pthread_mutex_unlock(&ct__fftw_mu);
}
/* the driver's block of nb lines of plan p's length in G (64-byte aligned), in place:
   line b at G + b LP (vl 0) or point i of line b at i nb + b (vl 1); 0 when done */
static int ct__fftw_block(const ct__fftplan *p, void *G, int64_t nb, int64_t LP, int vl) {
    ct__fftw_whole key;
    memset(&key, 0, sizeof key);
    key.prec = p->prec; key.sign = p->sign; key.rank = 1; key.hrank = 1; key.inplace = 1;
    key.dims[0].n = p->n; key.dims[0].is = key.dims[0].os = vl ? nb : 1;
    key.hdims[0].n = nb; key.hdims[0].is = key.hdims[0].os = vl ? 1 : LP;
    key.aligned = ct__fftw_aligned(p->prec, G, G);
    ct__fftw_whole *w = ct__fftw_wget(&key, vl ? nb * p->n : (nb - 1) * LP + p->n, 0);
    if (!w) return -1;
    if (p->prec) fftw_execute_dft((fftw_plan)w->plan, (fftw_complex *)G, (fftw_complex *)G);
    else fftwf_execute_dft((fftwf_plan)w->plan, (fftwf_complex *)G, (fftwf_complex *)G);
    ct__fftw_wput(w);
    return 0;
}
/* 0: done, -1: failed (the error set), 1: not this path's case (the per-line path runs) */
static int ct__fftw_whole_run(ct__call *c, int k, int prec, int sign, double scale) {
    const ct__attrs *a = c->a;
    const ct_tensor *x = c->in[0];
    ct_tensor *y = c->out[0];
    const int fl = a->flags, xreal = !ct_dtype_is_complex(x->dtype);
    const ct_dtype want = xreal ? (prec ? CT_FLOAT64 : CT_FLOAT32) : (prec ? CT_COMPLEX128 : CT_COMPLEX64);
    if (x->dtype != want || y->dtype != (prec ? CT_COMPLEX128 : CT_COMPLEX64) || !ct_is_contiguous(y)) return 1;
    if (fl & (CT__FFTF_HALF_IN | CT__FFTF_HERM_IN | CT__FFTF_DOUBLE_IN | CT__FFTF_DOUBLE_OUT | CT__FFTF_REAL_OUT)) return 1;
    if (xreal && (!(fl & CT__FFTF_HALF_OUT) || sign > 0)) return 1;   /* r2c: forward, one-sided */
    if (!xreal && (fl & CT__FFTF_HALF_OUT)) return 1;
    if (x->ndim != y->ndim || x->ndim > CT_MAX_DIMS) return 1;
    ct__fftw_whole key;
    memset(&key, 0, sizeof key);
    key.prec = prec; key.kind = xreal; key.sign = sign; key.rank = k;
    int tr[CT_MAX_DIMS] = {0};
    int64_t iext = 1, oext = 1;
    for (int j = 0; j < k; j++) {
        int d = (int)a->v[j];
        int64_t n = a->v[k + j], lout = a->v[2 * k + j];
        if (d < 0 || d >= x->ndim || tr[d] || n < 1 || x->shape[d] != n) return 1;
        if (lout != (xreal && j == k - 1 ? n / 2 + 1 : n) || y->shape[d] != lout) return 1;
        tr[d] = 1;
        key.dims[j].n = n; key.dims[j].is = x->strides[d]; key.dims[j].os = y->strides[d];
    }
    /* one transformed dim of unit stride in both (batched rows, one long line; r2c of
       even length): FFTW_ESTIMATE's plans of strided and multi-dimensional transforms
       run their columns in place, far slower than the driver's blocks (fft2 1024^2:
       58 ms against 6), and its r2c of odd lengths is slower than its c2c */
    if (k != 1 || key.dims[0].is != 1 || key.dims[0].os != 1 || (xreal && key.dims[0].n % 2)) return 1;
    for (int d = 0; d < x->ndim; d++) {
        if (x->strides[d] < 0 || y->strides[d] < 0) return 1;
        if (x->shape[d] != y->shape[d] && !tr[d]) return 1;
        iext += (x->shape[d] - 1) * x->strides[d];
        oext += (y->shape[d] - 1) * y->strides[d];
        if (tr[d] || x->shape[d] == 1) continue;
        key.hdims[key.hrank].n = x->shape[d]; key.hdims[key.hrank].is = x->strides[d]; key.hdims[key.hrank].os = y->strides[d];
        key.hrank++;
    }
    void *in = ct__ptr(x), *out = ct__ptr(y);
    key.aligned = ct__fftw_aligned(prec, in, out);
    ct__fftw_whole *w = ct__fftw_wget(&key, iext, oext);
    if (!w) return 1;
    if (xreal) {
        if (prec) fftw_execute_dft_r2c((fftw_plan)w->plan, (double *)in, (fftw_complex *)out);
        else fftwf_execute_dft_r2c((fftwf_plan)w->plan, (float *)in, (fftwf_complex *)out);
    } else {
        if (prec) fftw_execute_dft((fftw_plan)w->plan, (fftw_complex *)in, (fftw_complex *)out);
        else fftwf_execute_dft((fftwf_plan)w->plan, (fftwf_complex *)in, (fftwf_complex *)out);
    }
    ct__fftw_wput(w);
    if (scale != 1.0) {
        int64_t cnt = 2 * ct_numel(y);
        if (prec) { double *o = (double *)out; for (int64_t i = 0; i < cnt; i++) o[i] *= scale; }
        else { float *o = (float *)out; const float sc = (float)scale; for (int64_t i = 0; i < cnt; i++) o[i] *= sc; }
    }
    return 0;
}
#endif
static int ct__fft_kernel(ct__call *c) {
    const ct__attrs *a = c->a;
    ct_tensor *x = c->in[0], *y = c->out[0];
    int prec = c->cdt == CT_COMPLEX128, k = a->nv / 3, fl = a->flags, nd = x->ndim;
    size_t ts = prec ? sizeof(double) : sizeof(float);
    if (ct_numel(y) == 0) return 0;
    if (k == 0) { ct__fft_copy(x, y, prec); return 0; }
    int xreal = !ct_dtype_is_complex(x->dtype);
    /* pass order: a real input's last dim first (real halving), a Hermitian
       input's last dim last, the others as listed */
    int order[CT_MAX_DIMS], no = 0, first_free;
    if (xreal && !(fl & CT__FFTF_HERM_IN)) order[no++] = k - 1;
    first_free = no;
    for (int j = 0; j < k - 1; j++) order[no++] = j;
    if (!(xreal && !(fl & CT__FFTF_HERM_IN)) && !(fl & CT__FFTF_HERM_IN)) order[no++] = k - 1;
    /* the dims that shrink most first: intermediate buffers stay small */
    for (int q = first_free + 1; q < no; q++)
        for (int r = q; r > first_free; r--) {
            int ja = order[r - 1], jb = order[r];
            double ra = (double)a->v[2 * k + ja] / (double)(x->shape[a->v[ja]] > 0 ? x->shape[a->v[ja]] : 1);
            double rb = (double)a->v[2 * k + jb] / (double)(x->shape[a->v[jb]] > 0 ? x->shape[a->v[jb]] : 1);
            if (rb >= ra) break;
            order[r - 1] = jb;
            order[r] = ja;
        }
    if (no < k) order[no++] = k - 1;   /* a Hermitian input's last dim: last */
    double prodn = 1.0;
    for (int j = 0; j < k; j++) prodn *= (double)a->v[k + j];
    double scale = a->mode == 1 ? 1.0 / sqrt(prodn) : a->mode == 2 ? 1.0 / prodn : 1.0;
    int sign = (fl & CT__FFTF_FORWARD) ? -1 : 1;
#ifdef CTENSOR_FFTW
    if (!ct__fft_builtin) {
        int wr = ct__fftw_whole_run(c, k, prec, sign, scale);
        if (wr <= 0) return wr;
    }
#endif
    int64_t shape[CT_MAX_DIMS];
    for (int d = 0; d < nd; d++) shape[d] = x->shape[d];
    const char *src = ct__ptr(x);
    int sreal = xreal;
    int64_t sst[CT_MAX_DIMS];
    for (int d = 0; d < nd; d++) sst[d] = x->strides[d] * (int64_t)ts * (xreal ? 1 : 2);
    char *prev = NULL;
    int rc = 0;
    for (int q = 0; q < k; q++) {
        int j = order[q], last = j == k - 1, final = q == k - 1;
        int d = (int)a->v[j];
        ct__fftpass p;
        memset(&p, 0, sizeof p);
        p.prec = prec;
        p.src = src;
        p.sreal = sreal;
        p.ndim = nd;
        p.d = d;
        for (int e = 0; e < nd; e++) p.sst[e] = sst[e];
        p.lin = shape[d];
        p.n = a->v[k + j];
        p.lout = a->v[2 * k + j];
        p.h = p.n / 2 + 1;
        if (last) {
            p.hin = (fl & CT__FFTF_HALF_IN) != 0;
            p.hout = (fl & CT__FFTF_HALF_OUT) != 0;
            p.herm = (fl & CT__FFTF_HERM_IN) != 0;
            p.din = (fl & CT__FFTF_DOUBLE_IN) != 0;
            p.dout = (fl & CT__FFTF_DOUBLE_OUT) != 0;
        }
        shape[d] = p.lout;
        for (int e = 0; e < nd; e++) p.shape[e] = shape[e];
        char *buf = NULL;
        if (final) {
            p.dst = ct__ptr(y);
            p.dreal = !ct_dtype_is_complex(y->dtype);
            for (int e = 0; e < nd; e++) p.dstr[e] = y->strides[e] * (int64_t)ts * (p.dreal ? 1 : 2);
            p.scale = scale;
        } else {
            int64_t cnt = 1;
            for (int e = 0; e < nd; e++) cnt = ct__sat_mul(cnt, shape[e]);
            if (cnt > ((int64_t)1 << 40) / (int64_t)(2 * ts)) {
                rc = ct__failed(CT_ERR_MEMORY, "%s: an intermediate of %lld elements is too large", ct__opdef_get(c->op)->name, (long long)cnt);
                break;
            }
            buf = (char *)CT_MALLOC((size_t)(cnt > 0 ? cnt : 1) * 2 * ts);
            if (!buf) { rc = ct__failed(CT_ERR_MEMORY, "%s: out of memory", ct__opdef_get(c->op)->name); break; }
            p.dst = buf;
            p.dreal = 0;
            int64_t st = 2 * (int64_t)ts;
            for (int e = nd - 1; e >= 0; e--) { p.dstr[e] = st; st *= shape[e]; }
            p.scale = 1.0;
        }
        int want_real = p.n % 2 == 0 && p.n >= 2 && ((sreal && !p.herm) || p.herm);
        p.rp = want_real ? ct__fft_plan_get(p.n, sign, prec, 1) : NULL;
        p.cp = want_real ? NULL : ct__fft_plan_get(p.n, sign, prec, 0);
        if (!(p.cp || p.rp)) {
            if (p.cp) ct__fft_plan_put(p.cp);
            if (p.rp) ct__fft_plan_put(p.rp);
            CT_FREE(buf);
            rc = ct__failed(CT_ERR_MEMORY, "%s: out of memory planning a transform of %lld points", ct__opdef_get(c->op)->name, (long long)p.n);
            break;
        }
        int64_t lines = 1;
        for (int e = 0; e < nd; e++)
            if (e != d) lines *= shape[e];
        /* lines per block: neighbours share the cache lines (and pages) of a strided
           dim, so strided passes take more of them */
        int strided = p.sst[d] != (int64_t)ts * (sreal ? 1 : 2) || p.dstr[d] != (int64_t)ts * (p.dreal ? 1 : 2);
        p.B = (strided ? 131072 : 65536) / p.n;
        if (p.B > (strided ? 32 : 16)) p.B = strided ? 32 : 16;
        if (p.B < 1) p.B = 1;
        if (p.B > lines) p.B = lines;
        if (lines > 0) {
            int64_t grain = 32768 / p.n;
            if (grain < p.B) grain = p.B;
            ct__par_for(lines, grain, prec ? ct__fft_lines_d : ct__fft_lines_f, &p);
        }
        if (p.cp) ct__fft_plan_put(p.cp);
        if (p.rp) ct__fft_plan_put(p.rp);
        CT_FREE(prev);
        prev = buf;
        if (p.fail) { rc = ct__failed(CT_ERR_MEMORY, "%s: out of memory", ct__opdef_get(c->op)->name); break; }
        src = buf;
        sreal = 0;
        for (int e = 0; e < nd; e++) sst[e] = p.dstr[e];
    }
    CT_FREE(prev);
    return rc;
}

/* ============================================================================
   2.5 Backward: the adjoint transform (PyTorch's derivatives.yaml: _fft_c2c's
   gradient is _fft_c2c in the other direction; fft_r2c_backward zero-fills the
   missing half and takes the real part; fft_c2r_backward is the one-sided r2c
   with the points that stand for two doubled). The swapped flags do exactly that.
   ========================================================================== */
static ct_tensor *ct__fft_call(const ct_tensor *x, const ct__attrs *a) {
    int row = (a->flags & CT__FFTF_REAL_OUT) ? CT__FFT_C2R : !ct_dtype_is_complex(x->dtype) ? CT__FFT_R2C : CT__FFT_C2C;
    ct_tensor *in[1];
    in[0] = (ct_tensor *)x;
    return ct__call1(ct__fft_base + row, 1, in, a);
}
static int ct__fft_bw(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    const ct__attrs *a = &n->attrs;
    ct__attrs b = *a;
    int k = a->nv / 3, fl = a->flags, nf = 0;
    if (!(fl & CT__FFTF_FORWARD)) nf |= CT__FFTF_FORWARD;
    if (fl & CT__FFTF_HERM_IN) nf |= CT__FFTF_HALF_OUT | CT__FFTF_DOUBLE_OUT;
    if (fl & CT__FFTF_HALF_OUT) nf |= CT__FFTF_HALF_IN;
    if (fl & CT__FFTF_HALF_IN) nf |= CT__FFTF_HALF_OUT;
    if (fl & CT__FFTF_DOUBLE_OUT) nf |= CT__FFTF_DOUBLE_IN;
    if (fl & CT__FFTF_DOUBLE_IN) nf |= CT__FFTF_DOUBLE_OUT;
    if (!ct_dtype_is_complex(n->in_meta[0].dtype)) nf |= CT__FFTF_REAL_OUT;
    b.flags = nf;
    for (int j = 0; j < k; j++) b.v[2 * k + j] = n->in_meta[0].shape[a->v[j]];
    gin[0] = ct__fft_call(gout[0], &b);
    return gin[0] ? 0 : -1;
}

/* ============================================================================
   2.6 The public functions
   ========================================================================== */
enum { CT__FFT_K_FFT, CT__FFT_K_IFFT, CT__FFT_K_RFFT, CT__FFT_K_IRFFT, CT__FFT_K_HFFT, CT__FFT_K_IHFFT };
/* PyTorch's norm_from_string: the scaling of a transform in its direction */
static int ct__fft_norm(const char *fname, const char *norm, int forward, int32_t *mode) {
    if (!norm || !strcmp(norm, "backward")) *mode = forward ? 0 : 2;
    else if (!strcmp(norm, "forward")) *mode = forward ? 2 : 0;
    else if (!strcmp(norm, "ortho")) *mode = 1;
    else return ct__failed(CT_ERR_ARG, "%s: Invalid normalization mode: \"%s\"", fname, norm);
    return 0;
}
/* the input as a float or complex tensor (integers and bool: the default float
   dtype); NULL with PyTorch's error for the others. *owned: a new reference. */
static ct_tensor *ct__fft_input(const char *fname, const ct_tensor *x, int want_real, const char *realname) {
    if (!x) { ct__null_arg(fname, 0); return NULL; }
    ct_dtype dt = x->dtype;
    if (want_real && ct_dtype_is_complex(dt))
        return ct__fail(CT_ERR_DTYPE, "%s: %s expects a real%s input tensor, but got %s", fname, realname,
                        want_real == 2 ? "-valued" : "", CT__DTNAME(dt));
    if (dt == CT_FLOAT32 || dt == CT_FLOAT64 || dt == CT_COMPLEX64 || dt == CT_COMPLEX128) return (ct_tensor *)x;
    if (dt == CT_BOOL || ct_dtype_is_integral(dt)) return ct_to(x, ct_get_default_dtype());
    return ct__fail(CT_ERR_DTYPE, "%s: Unsupported dtype %s", fname, CT__DTNAME(dt));
}
static ct_tensor *ct__fft_1d(const char *fname, int kind, const ct_tensor *x0, int64_t n, int64_t dim, const char *norm) {
    if (ct__fft_init()) return NULL;
    int real_in = kind == CT__FFT_K_RFFT || kind == CT__FFT_K_IHFFT;
    ct_tensor *x = ct__fft_input(fname, x0, real_in, fname);
    if (!x) return NULL;
    if (x->ndim == 0) return ct__fail(CT_ERR_INDEX, "%s: Dimension specified as %lld but tensor has no dimensions", fname, (long long)dim);
    int d = ct__dim(fname, dim, x->ndim);
    if (d < 0) return NULL;
    if (n != -1 && n < 1) return ct__fail(CT_ERR_ARG, "%s: Invalid number of data points (%lld) specified", fname, (long long)n);
    int forward = kind == CT__FFT_K_FFT || kind == CT__FFT_K_RFFT || kind == CT__FFT_K_HFFT;
    ct__attrs a;
    ct__attrs_init(&a);
    if (ct__fft_norm(fname, norm, forward, &a.mode)) return NULL;
    int64_t N, L;
    int fl = forward ? CT__FFTF_FORWARD : 0;
    if (kind == CT__FFT_K_IRFFT || kind == CT__FFT_K_HFFT) {
        N = n != -1 ? n : 2 * (x->shape[d] - 1);
        if (N < 1) return ct__fail(CT_ERR_ARG, "%s: Invalid number of data points (%lld) specified", fname, (long long)N);
        L = N;
        fl |= CT__FFTF_HERM_IN | CT__FFTF_REAL_OUT;
    } else {
        N = n != -1 ? n : x->shape[d];
        if (N < 1) return ct__fail(CT_ERR_ARG, "%s: Invalid number of data points (%lld) specified", fname, (long long)N);
        L = real_in ? N / 2 + 1 : N;
        if (real_in) fl |= CT__FFTF_HALF_OUT;
    }
    a.flags = fl;
    a.nv = 3;
    a.v[0] = d;
    a.v[1] = N;
    a.v[2] = L;
    return ct__fft_call(x, &a);
}
CTENSOR_API ct_tensor *ct_fft_fft(const ct_tensor *x, int64_t n, int64_t dim, const char *norm) {
    return ct__fft_1d("fft", CT__FFT_K_FFT, x, n, dim, norm);
}
CTENSOR_API ct_tensor *ct_fft_ifft(const ct_tensor *x, int64_t n, int64_t dim, const char *norm) {
    return ct__fft_1d("ifft", CT__FFT_K_IFFT, x, n, dim, norm);
}
CTENSOR_API ct_tensor *ct_fft_rfft(const ct_tensor *x, int64_t n, int64_t dim, const char *norm) {
    return ct__fft_1d("rfft", CT__FFT_K_RFFT, x, n, dim, norm);
}
CTENSOR_API ct_tensor *ct_fft_irfft(const ct_tensor *x, int64_t n, int64_t dim, const char *norm) {
    return ct__fft_1d("irfft", CT__FFT_K_IRFFT, x, n, dim, norm);
}
CTENSOR_API ct_tensor *ct_fft_hfft(const ct_tensor *x, int64_t n, int64_t dim, const char *norm) {
    return ct__fft_1d("hfft", CT__FFT_K_HFFT, x, n, dim, norm);
}
CTENSOR_API ct_tensor *ct_fft_ihfft(const ct_tensor *x, int64_t n, int64_t dim, const char *norm) {
    return ct__fft_1d("ihfft", CT__FFT_K_IHFFT, x, n, dim, norm);
}

/* n-dimensional: PyTorch's canonicalize_fft_shape_and_dim_args, then one op */
static ct_tensor *ct__fft_nd(const char *fname, const char *pname, int kind, const ct_tensor *x0, int ns, const int64_t *s,
                             int ndims, const int64_t *dim, const char *norm) {
    if (ct__fft_init()) return NULL;
    int real_in = kind == CT__FFT_K_RFFT || kind == CT__FFT_K_IHFFT;
    int herm = kind == CT__FFT_K_IRFFT || kind == CT__FFT_K_HFFT;
    ct_tensor *x = ct__fft_input(fname, x0, real_in ? 2 : 0, pname);
    if (!x) return NULL;
    int nd = x->ndim, k;
    int64_t dims[CT_MAX_DIMS], sz[CT_MAX_DIMS];
    if (s && ns < 0) return ct__fail(CT_ERR_ARG, "%s: negative length of s (%d)", fname, ns);
    if (dim && ndims < 0) return ct__fail(CT_ERR_ARG, "%s: negative number of dims (%d)", fname, ndims);
    if (dim) {
        if (ndims > nd && ndims > CT_MAX_DIMS) return ct__fail(CT_ERR_ARG, "%s: FFT dims must be unique", fname);
        k = ndims;
        for (int j = 0; j < k; j++) {
            int d = ct__dim(fname, dim[j], nd);
            if (d < 0) return NULL;
            for (int i = 0; i < j; i++)
                if (dims[i] == d) return ct__fail(CT_ERR_ARG, "%s: FFT dims must be unique", fname);
            dims[j] = d;
        }
        if (s && ns != k) return ct__fail(CT_ERR_ARG, "%s: When given, dim and shape arguments must have the same length", fname);
    } else if (s) {
        if (ns > nd)
            return ct__fail(CT_ERR_ARG, "%s: Got shape with %d values but input tensor only has %d dimensions.", fname, ns, nd);
        k = ns;
        for (int j = 0; j < k; j++) dims[j] = nd - k + j;
    } else {
        k = nd;
        for (int j = 0; j < k; j++) dims[j] = j;
    }
    for (int j = 0; j < k; j++) {
        if (s && s[j] != -1 && s[j] < 1)
            return ct__fail(CT_ERR_ARG, "%s: Invalid number of data points (%lld) specified", fname, (long long)s[j]);
        sz[j] = s && s[j] != -1 ? s[j] : x->shape[dims[j]];
    }
    if ((real_in || herm) && k == 0) return ct__fail(CT_ERR_ARG, "%s: %s must transform at least one axis", fname, pname);
    int forward = kind == CT__FFT_K_FFT || kind == CT__FFT_K_RFFT || kind == CT__FFT_K_HFFT;
    ct__attrs a;
    ct__attrs_init(&a);
    if (ct__fft_norm(fname, norm, forward, &a.mode)) return NULL;
    int fl = forward ? CT__FFTF_FORWARD : 0;
    for (int j = 0; j < k; j++) {
        a.v[j] = dims[j];
        a.v[k + j] = sz[j];
        a.v[2 * k + j] = sz[j];
    }
    if (real_in) {
        fl |= CT__FFTF_HALF_OUT;
        a.v[3 * k - 1] = sz[k - 1] / 2 + 1;
    } else if (herm) {
        int64_t last = s && s[k - 1] != -1 ? s[k - 1] : 2 * (x->shape[dims[k - 1]] - 1);
        if (last < 1) return ct__fail(CT_ERR_ARG, "%s: Invalid number of data points (%lld) specified", fname, (long long)last);
        a.v[2 * k - 1] = last;
        a.v[3 * k - 1] = last;
        fl |= CT__FFTF_HERM_IN | CT__FFTF_REAL_OUT;
    }
    a.flags = fl;
    a.nv = 3 * k;
    return ct__fft_call(x, &a);
}
CTENSOR_API ct_tensor *ct_fft_fftn(const ct_tensor *x, int ns, const int64_t *s, int ndims, const int64_t *dim, const char *norm) {
    return ct__fft_nd("fftn", "fftn", CT__FFT_K_FFT, x, ns, s, ndims, dim, norm);
}
CTENSOR_API ct_tensor *ct_fft_ifftn(const ct_tensor *x, int ns, const int64_t *s, int ndims, const int64_t *dim, const char *norm) {
    return ct__fft_nd("ifftn", "ifftn", CT__FFT_K_IFFT, x, ns, s, ndims, dim, norm);
}
CTENSOR_API ct_tensor *ct_fft_rfftn(const ct_tensor *x, int ns, const int64_t *s, int ndims, const int64_t *dim, const char *norm) {
    return ct__fft_nd("rfftn", "rfftn", CT__FFT_K_RFFT, x, ns, s, ndims, dim, norm);
}
CTENSOR_API ct_tensor *ct_fft_irfftn(const ct_tensor *x, int ns, const int64_t *s, int ndims, const int64_t *dim, const char *norm) {
    return ct__fft_nd("irfftn", "irfftn", CT__FFT_K_IRFFT, x, ns, s, ndims, dim, norm);
}
/* hfftn (PyTorch's fft_hfftn_impl: c2c forward over the other dims, then c2r of
   the conjugate along the last: one pass each, all in the forward direction) and
   ihfftn (r2c along the last dim, conjugated, then c2c backward over the others:
   all in the backward direction, one-sided along the last) */
CTENSOR_API ct_tensor *ct_fft_hfftn(const ct_tensor *x, int ns, const int64_t *s, int ndims, const int64_t *dim, const char *norm) {
    return ct__fft_nd("hfftn", "hfftn", CT__FFT_K_HFFT, x, ns, s, ndims, dim, norm);
}
CTENSOR_API ct_tensor *ct_fft_ihfftn(const ct_tensor *x, int ns, const int64_t *s, int ndims, const int64_t *dim, const char *norm) {
    return ct__fft_nd("ihfftn", "ihfftn", CT__FFT_K_IHFFT, x, ns, s, ndims, dim, norm);
}
static const int64_t ct__fft_last2[2] = {-2, -1};
CTENSOR_API ct_tensor *ct_fft_hfft2(const ct_tensor *x, const int64_t *s, const int64_t *dim, const char *norm) {
    return ct__fft_nd("hfft2", "hfftn", CT__FFT_K_HFFT, x, 2, s, 2, dim ? dim : ct__fft_last2, norm);
}
CTENSOR_API ct_tensor *ct_fft_ihfft2(const ct_tensor *x, const int64_t *s, const int64_t *dim, const char *norm) {
    return ct__fft_nd("ihfft2", "ihfftn", CT__FFT_K_IHFFT, x, 2, s, 2, dim ? dim : ct__fft_last2, norm);
}
CTENSOR_API ct_tensor *ct_fft_fft2(const ct_tensor *x, const int64_t *s, const int64_t *dim, const char *norm) {
    return ct__fft_nd("fft2", "fftn", CT__FFT_K_FFT, x, 2, s, 2, dim ? dim : ct__fft_last2, norm);
}
CTENSOR_API ct_tensor *ct_fft_ifft2(const ct_tensor *x, const int64_t *s, const int64_t *dim, const char *norm) {
    return ct__fft_nd("ifft2", "ifftn", CT__FFT_K_IFFT, x, 2, s, 2, dim ? dim : ct__fft_last2, norm);
}
CTENSOR_API ct_tensor *ct_fft_rfft2(const ct_tensor *x, const int64_t *s, const int64_t *dim, const char *norm) {
    return ct__fft_nd("rfft2", "rfftn", CT__FFT_K_RFFT, x, 2, s, 2, dim ? dim : ct__fft_last2, norm);
}
CTENSOR_API ct_tensor *ct_fft_irfft2(const ct_tensor *x, const int64_t *s, const int64_t *dim, const char *norm) {
    return ct__fft_nd("irfft2", "irfftn", CT__FFT_K_IRFFT, x, 2, s, 2, dim ? dim : ct__fft_last2, norm);
}

/* fftfreq / rfftfreq: PyTorch's arange, the upper half moved below zero, / (n d) */
static ct_tensor *ct__fft_freq(const char *fname, int64_t n, int64_t len, double d, ct_dtype dt, int wrap) {
    if (len < 0) return ct__fail(CT_ERR_ARG, "%s: Trying to create tensor with negative dimension %lld: [%lld]", fname, (long long)len, (long long)len);
    if (dt != CT_FLOAT32 && dt != CT_FLOAT64)
        return ct__fail(CT_ERR_DTYPE, "%s: not implemented for '%s' (fftfreq in ctensor gives float32 or float64)", fname, CT__DTNAME(dt));
    int64_t shape[1];
    shape[0] = len;
    ct_tensor *t = ct_empty_n(dt, 1, shape);
    if (!t) return NULL;
    double den = (double)n * d;
    for (int64_t i = 0; i < len; i++) {
        int64_t v = wrap && i >= (n + 1) / 2 ? i - n : i;
        double f = (double)v / den;
        if (dt == CT_FLOAT32) ((float *)ct_data_ptr(t))[i] = (float)((float)v / (float)den);
        else ((double *)ct_data_ptr(t))[i] = f;
    }
    return t;
}
CTENSOR_API ct_tensor *ct_fft_fftfreq(int64_t n, double d, ct_dtype dtype) {
    return ct__fft_freq("fftfreq", n, n, d, dtype, 1);
}
CTENSOR_API ct_tensor *ct_fft_rfftfreq(int64_t n, double d, ct_dtype dtype) {
    /* Python's n // 2 + 1 (floor division) */
    int64_t h = (n >= 0 ? n / 2 : -((-n + 1) / 2)) + 1;
    return ct__fft_freq("rfftfreq", n, h, d, dtype, 0);
}
static ct_tensor *ct__fft_shift(const char *fname, const ct_tensor *x, int ndims, const int64_t *dims, int inverse) {
    if (!x) { ct__null_arg(fname, 0); return NULL; }
    int64_t dd[CT_MAX_DIMS], sh[CT_MAX_DIMS];
    int k = 0;
    if (dims) {
        if (ndims < 0 || ndims > CT_MAX_DIMS) return ct__fail(CT_ERR_ARG, "%s: %d dims given", fname, ndims);
        for (int j = 0; j < ndims; j++) {
            int d = ct__dim(fname, dims[j], x->ndim);
            if (d < 0) return NULL;
            dd[k++] = d;
        }
    } else {
        for (int d = 0; d < x->ndim; d++) dd[k++] = d;
    }
    if (k == 0) return ct_clone(x);
    for (int j = 0; j < k; j++) {
        int64_t m = x->shape[dd[j]];
        sh[j] = inverse ? (m + 1) / 2 : m / 2;
    }
    if (ct_dtype_is_complex(x->dtype))   /* rolled as its real view: the trailing (re, im) dim stays */
        return ct_view_as_complex(ct_roll(ct_view_as_real(x), k, sh, k, dd));
    return ct_roll(x, k, sh, k, dd);
}
CTENSOR_API ct_tensor *ct_fft_fftshift(const ct_tensor *x, int ndims, const int64_t *dims) {
    return ct__fft_shift("fftshift", x, ndims, dims, 0);
}
CTENSOR_API ct_tensor *ct_fft_ifftshift(const ct_tensor *x, int ndims, const int64_t *dims) {
    return ct__fft_shift("ifftshift", x, ndims, dims, 1);
}

#endif /* CTENSOR_FFT_IMPLEMENTATION_DONE */
#endif /* CTENSOR_FFT_IMPLEMENTATION */
