/* test_fft.c - ctensor_fft.h (torch.fft): every function against PyTorch 1.13's
   outputs and gradients (tests/fixtures/fft/fft.safetensors, written by gen_fft.py
   there: complex arrays stored as their view_as_real, the calls in its metadata),
   odd, even, prime and Bluestein lengths, every norm, n padding and trimming,
   multi-dimensional and strided inputs (hfft2, ihfft2, hfftn, ihfftn too), float32 and float64; the transforms
   against a direct DFT at more lengths; gradcheck and gradgradcheck of chains of
   every transform kind; bad input with its message for every public function. */
#ifndef CT_TEST_SHARED_IMPL
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"
#include "ctensor_fft.h"
#include <stdint.h>
#include <pthread.h>

static ct_safetensors *fx;

/* ---- a case's spec: "fn=fft;n=12;dim=-1;norm=ortho;dt=f64;cin=1;view=t;s=3,4;dims=0,1;grad=1" ---- */
typedef struct spec {
    char fn[16], norm[16], view[8];
    int64_t n, dim;
    int has_n, has_dim, cin, isint, grad, ns, nd, has_norm;
    int64_t s[8], dims[8];
    double d;
    int f32;
} spec;
static int parse_list(const char *v, int64_t *out) {
    int k = 0;
    while (*v && k < 8) {
        out[k++] = strtoll(v, (char **)&v, 10);
        if (*v == ',') v++;
    }
    return k;
}
static void parse_spec(const char *txt, spec *sp) {
    memset(sp, 0, sizeof *sp);
    sp->d = 1.0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", txt);
    for (char *tok = strtok(buf, ";"); tok; tok = strtok(NULL, ";")) {
        char *eq = strchr(tok, '=');
        if (!eq) continue;
        *eq = 0;
        const char *k = tok, *v = eq + 1;
        if (!strcmp(k, "fn")) snprintf(sp->fn, sizeof sp->fn, "%s", v);
        else if (!strcmp(k, "norm")) { snprintf(sp->norm, sizeof sp->norm, "%s", v); sp->has_norm = 1; }
        else if (!strcmp(k, "view")) snprintf(sp->view, sizeof sp->view, "%s", v);
        else if (!strcmp(k, "n")) { sp->n = strtoll(v, NULL, 10); sp->has_n = 1; }
        else if (!strcmp(k, "dim")) { sp->dim = strtoll(v, NULL, 10); sp->has_dim = 1; }
        else if (!strcmp(k, "cin")) sp->cin = atoi(v);
        else if (!strcmp(k, "int")) sp->isint = atoi(v);
        else if (!strcmp(k, "grad")) sp->grad = atoi(v);
        else if (!strcmp(k, "dt")) sp->f32 = !strcmp(v, "f32");
        else if (!strcmp(k, "d")) sp->d = strtod(v, NULL);
        else if (!strcmp(k, "s")) sp->ns = parse_list(v, sp->s);
        else if (!strcmp(k, "dims")) sp->nd = parse_list(v, sp->dims);
    }
}

/* a complex tensor from its view_as_real (a real tensor with a last dim of 2) */
static ct_tensor *as_complex(const ct_tensor *r) {
    if (!r) return NULL;
    int nd = ct_ndim(r) - 1;
    int64_t shape[CT_MAX_DIMS];
    for (int d = 0; d < nd; d++) shape[d] = ct_size(r, d);
    ct_tensor *c = ct_empty_n(ct_get_dtype(r) == CT_FLOAT32 ? CT_COMPLEX64 : CT_COMPLEX128, nd, shape);
    ct_tensor *rc = ct_contiguous(r);
    if (!c || !rc) return NULL;
    memcpy(ct_data_ptr(c), ct_data_ptr(rc), (size_t)ct_numel(rc) * (ct_get_dtype(r) == CT_FLOAT32 ? 4 : 8));
    return c;
}
/* the values of a tensor (real, or complex as interleaved pairs) as doubles; n: count */
static double *values(const ct_tensor *t, int64_t *n) {
    ct_tensor *c = ct_contiguous(t);
    if (!c) return NULL;
    ct_dtype dt = ct_get_dtype(c);
    int64_t m = ct_numel(c) * (ct_dtype_is_complex(dt) ? 2 : 1);
    double *v = (double *)malloc((size_t)(m > 0 ? m : 1) * sizeof(double));
    const void *p = ct_data_ptr(c);
    for (int64_t i = 0; i < m; i++)
        v[i] = (dt == CT_FLOAT32 || dt == CT_COMPLEX64) ? ((const float *)p)[i] : ((const double *)p)[i];
    *n = m;
    return v;
}
/* got (a tensor) against expected (stored: view_as_real for complex): shapes and
   values within tol relative to the largest expected magnitude */
static int compare(const char *what, const ct_tensor *got, const ct_tensor *exp, int cplx, double tol) {
    if (!got || !exp) {
        CT_T_REPORT(0, "%s: %s", what, ct_last_error());
        return 0;
    }
    int nd = ct_ndim(exp) - (cplx ? 1 : 0), ok = ct_ndim(got) == nd && (ct_dtype_is_complex(ct_get_dtype(got)) != 0) == (cplx != 0);
    for (int d = 0; ok && d < nd; d++) ok = ct_size(got, d) == ct_size(exp, d);
    if (!ok) {
        CT_T_REPORT(0, "%s: shape or dtype differs (got %d-d %s)", what, ct_ndim(got), ct_dtype_name(ct_get_dtype(got)));
        return 0;
    }
    int64_t ng, ne;
    double *g = values(got, &ng), *e = values(exp, &ne), scale = 0, worst = 0;
    int64_t bad = -1;
    for (int64_t i = 0; i < ne; i++) scale = fmax(scale, fabs(e[i]));
    for (int64_t i = 0; i < ne && ng == ne; i++) {
        double err = fabs(g[i] - e[i]);
        if (err > worst) worst = err;
        if (err > tol * (1.0 + scale) && bad < 0) bad = i;
    }
    CT_T_REPORT(ng == ne && bad < 0, "%s: element %lld: got %.10g, expected %.10g (worst error %.3g, scale %.3g)", what,
                (long long)bad, bad >= 0 ? g[bad] : 0.0, bad >= 0 ? e[bad] : 0.0, worst, scale);
    free(g);
    free(e);
    return bad < 0;
}
static ct_tensor *get(const char *name, const char *sfx) {
    char key[160];
    snprintf(key, sizeof key, "%s.%s", name, sfx);
    return ct_safetensors_get(fx, key);
}
static ct_tensor *run_spec(const spec *sp, const ct_tensor *x) {
    const char *norm = sp->has_norm ? sp->norm : NULL;
    int64_t n = sp->has_n ? sp->n : -1, dim = sp->has_dim ? sp->dim : -1;
    const int64_t *s = sp->ns ? sp->s : NULL, *dims = sp->nd ? sp->dims : NULL;
    const char *f = sp->fn;
    if (!strcmp(f, "fft")) return ct_fft_fft(x, n, dim, norm);
    if (!strcmp(f, "ifft")) return ct_fft_ifft(x, n, dim, norm);
    if (!strcmp(f, "rfft")) return ct_fft_rfft(x, n, dim, norm);
    if (!strcmp(f, "irfft")) return ct_fft_irfft(x, n, dim, norm);
    if (!strcmp(f, "hfft")) return ct_fft_hfft(x, n, dim, norm);
    if (!strcmp(f, "ihfft")) return ct_fft_ihfft(x, n, dim, norm);
    if (!strcmp(f, "fft2")) return ct_fft_fft2(x, s, dims, norm);
    if (!strcmp(f, "ifft2")) return ct_fft_ifft2(x, s, dims, norm);
    if (!strcmp(f, "rfft2")) return ct_fft_rfft2(x, s, dims, norm);
    if (!strcmp(f, "irfft2")) return ct_fft_irfft2(x, s, dims, norm);
    if (!strcmp(f, "hfft2")) return ct_fft_hfft2(x, s, dims, norm);
    if (!strcmp(f, "ihfft2")) return ct_fft_ihfft2(x, s, dims, norm);
    if (!strcmp(f, "hfftn")) return ct_fft_hfftn(x, sp->ns, s, sp->nd, dims, norm);
    if (!strcmp(f, "ihfftn")) return ct_fft_ihfftn(x, sp->ns, s, sp->nd, dims, norm);
    if (!strcmp(f, "fftn")) return ct_fft_fftn(x, sp->ns, s, sp->nd, dims, norm);
    if (!strcmp(f, "ifftn")) return ct_fft_ifftn(x, sp->ns, s, sp->nd, dims, norm);
    if (!strcmp(f, "rfftn")) return ct_fft_rfftn(x, sp->ns, s, sp->nd, dims, norm);
    if (!strcmp(f, "irfftn")) return ct_fft_irfftn(x, sp->ns, s, sp->nd, dims, norm);
    if (!strcmp(f, "fftshift")) return ct_fft_fftshift(x, sp->nd, dims);
    if (!strcmp(f, "ifftshift")) return ct_fft_ifftshift(x, sp->nd, dims);
    return NULL;
}
static int out_complex(const spec *sp, const ct_tensor *x) {
    const char *f = sp->fn;
    if (!strcmp(f, "irfft") || !strcmp(f, "hfft") || !strcmp(f, "irfft2") || !strcmp(f, "irfftn") || !strcmp(f, "hfft2") ||
        !strcmp(f, "hfftn") || strstr(f, "freq")) return 0;
    if (strstr(f, "shift")) return ct_dtype_is_complex(ct_get_dtype(x));
    return 1;
}

static int ncases, ngrad;
TEST(test_fixtures) {
    int nm = ct_safetensors_metadata_count(fx);
    for (int i = 0; i < nm; i++) CT_SCOPE {
        const char *name = ct_safetensors_metadata_key(fx, i);
        spec sp;
        parse_spec(ct_safetensors_metadata(fx, name), &sp);
        double tol = sp.f32 || sp.isint ? 2e-5 : 1e-11; /* integers compute in float32 */
        ct_tensor *out_e = get(name, "out");
        if (strstr(sp.fn, "freq")) {
            ct_dtype dt = sp.f32 ? CT_FLOAT32 : CT_FLOAT64;
            ct_tensor *y = !strcmp(sp.fn, "fftfreq") ? ct_fft_fftfreq(sp.n, sp.d, dt) : ct_fft_rfftfreq(sp.n, sp.d, dt);
            compare(name, y, out_e, 0, sp.f32 ? 1e-7 : 1e-15);
            if (y) CHECK(ct_get_dtype(y) == dt);
            ncases++;
            continue;
        }
        ct_tensor *x = get(name, "x");
        if (sp.cin) x = as_complex(x);
        ct_tensor *leaf = x;
        if (sp.grad && x) leaf = ct_requires_grad(x);
        if (x && sp.view[0] == 't') x = ct_transpose(x, 0, 1);
        ct_tensor *y = run_spec(&sp, x);
        int oc = out_complex(&sp, x);
        if (!compare(name, y, out_e, oc, tol)) continue;
        /* dtypes: float32/complex64 -> complex64/float32 (integers: the default dtype) */
        ct_dtype want = oc ? (sp.f32 ? CT_COMPLEX64 : CT_COMPLEX128) : (sp.f32 ? CT_FLOAT32 : CT_FLOAT64);
        if (sp.isint) want = CT_COMPLEX64;
        CT_T_REPORT(ct_get_dtype(y) == want, "%s: dtype %s", name, ct_dtype_name(ct_get_dtype(y)));
        ncases++;
        if (sp.grad) {
            ct_tensor *g = get(name, "g"), *gx = get(name, "gx");
            if (oc) g = as_complex(g);
            ct_tensor *roots[1], *gouts[1];
            roots[0] = y;
            gouts[0] = g;
            ct_status st = ct_backward_ex(1, roots, gouts, NULL);
            CT_T_REPORT(st == CT_OK, "%s: backward: %s", name, ct_last_error());
            if (st == CT_OK) compare(name, ct_grad(leaf), gx, sp.cin, tol);
            ngrad++;
        }
    }
}

/* ---- the transforms against a direct DFT (long double) at more lengths ---- */
static void dft(const double *in, double *out, int64_t n, int sign) {
    long double *c = (long double *)malloc((size_t)n * 2 * sizeof(long double));
    for (int64_t j = 0; j < n; j++) {
        long double a = sign * 2 * 3.141592653589793238462643L * (long double)j / (long double)n;
        c[2 * j] = cosl(a);
        c[2 * j + 1] = sinl(a);
    }
    for (int64_t k = 0; k < n; k++) {
        long double sr = 0, si = 0;
        for (int64_t j = 0; j < n; j++) {
            int64_t e = j * k % n;
            sr += in[2 * j] * c[2 * e] - in[2 * j + 1] * c[2 * e + 1];
            si += in[2 * j] * c[2 * e + 1] + in[2 * j + 1] * c[2 * e];
        }
        out[2 * k] = (double)sr;
        out[2 * k + 1] = (double)si;
    }
    free(c);
}
TEST(test_direct_dft) {
    static const int64_t lens[] = {4, 6, 9, 10, 15, 16, 20, 25, 27, 32, 45, 60, 64, 77, 120, 121, 127, 128, 210, 211, 243, 256, 343, 360, 625, 1000};
    for (unsigned li = 0; li < sizeof lens / sizeof *lens; li++) CT_SCOPE {
        int64_t n = lens[li];
        double *in = (double *)malloc((size_t)n * 2 * sizeof(double)), *ref = (double *)malloc((size_t)n * 2 * sizeof(double));
        for (int64_t i = 0; i < 2 * n; i++) in[i] = sin(0.37 * (double)(i * i % 101) + 0.1 * (double)i);
        for (int prec = 0; prec < 2; prec++) {
            ct_tensor *x = ct_empty(prec ? CT_COMPLEX128 : CT_COMPLEX64, n);
            for (int64_t i = 0; i < 2 * n; i++) {
                if (prec) ((double *)ct_data_ptr(x))[i] = in[i];
                else ((float *)ct_data_ptr(x))[i] = (float)in[i];
            }
            for (int sign = -1; sign <= 1; sign += 2) {
                dft(in, ref, n, sign);
                ct_tensor *y = sign < 0 ? ct_fft_fft(x, -1, 0, NULL) : ct_fft_ifft(x, -1, 0, "forward");
                int64_t m;
                double *v = y ? values(y, &m) : NULL, worst = 0, scale = 0;
                for (int64_t i = 0; v && i < 2 * n; i++) { worst = fmax(worst, fabs(v[i] - ref[i])); scale = fmax(scale, fabs(ref[i])); }
                CT_T_REPORT(v && worst <= (prec ? 1e-14 : 3e-7) * scale * (1 + log2((double)n)), "n=%lld %s sign %d: error %.3g of %.3g",
                            (long long)n, prec ? "complex128" : "complex64", sign, worst, scale);
                free(v);
            }
            /* real halving: rfft against the direct transform of the real parts; irfft back */
            ct_tensor *xr = ct_empty(prec ? CT_FLOAT64 : CT_FLOAT32, n);
            double *rin = (double *)calloc((size_t)n * 2, sizeof(double));
            for (int64_t i = 0; i < n; i++) {
                rin[2 * i] = in[2 * i];
                if (prec) ((double *)ct_data_ptr(xr))[i] = in[2 * i];
                else ((float *)ct_data_ptr(xr))[i] = (float)in[2 * i];
            }
            dft(rin, ref, n, -1);
            ct_tensor *y = ct_fft_rfft(xr, -1, 0, NULL), *back = ct_fft_irfft(y, n, 0, NULL);
            int64_t m, mb;
            double *v = y ? values(y, &m) : NULL, *vb = back ? values(back, &mb) : NULL, worst = 0, wb = 0, scale = 0;
            for (int64_t i = 0; v && i < 2 * (n / 2 + 1); i++) { worst = fmax(worst, fabs(v[i] - ref[i])); scale = fmax(scale, fabs(ref[i])); }
            for (int64_t i = 0; vb && i < n; i++) wb = fmax(wb, fabs(vb[i] - rin[2 * i]));
            CT_T_REPORT(v && vb && worst <= (prec ? 1e-14 : 3e-7) * scale * (1 + log2((double)n)) && wb <= (prec ? 1e-13 : 3e-6) * (1 + log2((double)n)),
                        "n=%lld %s rfft error %.3g of %.3g, irfft(rfft) error %.3g", (long long)n, prec ? "float64" : "float32", worst, scale, wb);
            free(v);
            free(vb);
            free(rin);
        }
        free(in);
        free(ref);
    }
}

/* ---- long lengths (the four-step form): a sum of tones has an exact transform ---- */
TEST(test_long_tones) {
    static const int64_t lens[] = {32768, 40000, 65536 * 3};
    static const int64_t bins[4] = {0, 1, 777, 12345};
    static const double amp[4][2] = {{0.5, -1.0}, {2.0, 0.25}, {-0.75, 1.5}, {1.0, 1.0}};
    for (unsigned li = 0; li < sizeof lens / sizeof *lens; li++)
        for (int prec = 0; prec < 2; prec++) CT_SCOPE {
            int64_t n = lens[li];
            ct_tensor *x = ct_empty(prec ? CT_COMPLEX128 : CT_COMPLEX64, n);
            for (int64_t j = 0; j < n; j++) {
                double re = 0, im = 0;
                for (int t = 0; t < 4; t++) {
                    double a = 2 * 3.14159265358979323846 * (double)((bins[t] * j) % n) / (double)n;
                    re += amp[t][0] * cos(a) - amp[t][1] * sin(a);
                    im += amp[t][0] * sin(a) + amp[t][1] * cos(a);
                }
                if (prec) { ((double *)ct_data_ptr(x))[2 * j] = re; ((double *)ct_data_ptr(x))[2 * j + 1] = im; }
                else { ((float *)ct_data_ptr(x))[2 * j] = (float)re; ((float *)ct_data_ptr(x))[2 * j + 1] = (float)im; }
            }
            ct_tensor *y = ct_fft_fft(x, -1, -1, "forward");   /* 1/n: the amplitudes at the tones' bins */
            int64_t m;
            double *v = y ? values(y, &m) : NULL, worst = 0;
            for (int64_t k = 0; v && k < n; k++) {
                double er = 0, ei = 0;
                for (int t = 0; t < 4; t++)
                    if (bins[t] == k) { er = amp[t][0]; ei = amp[t][1]; }
                worst = fmax(worst, fmax(fabs(v[2 * k] - er), fabs(v[2 * k + 1] - ei)));
            }
            CT_T_REPORT(v && worst < (prec ? 1e-12 : 2e-5), "n=%lld %s: error %.3g", (long long)n, prec ? "complex128" : "complex64", worst);
            free(v);
            /* and back: ifft(fft(x)) == x */
            ct_tensor *b = ct_fft_ifft(y, -1, -1, "forward");
            CHECK(b && ct_allclose(ct_view_as_real(b), ct_view_as_real(x), 0, prec ? 1e-12 : 2e-5));
        }
}

/* ---- long real inputs (rfft's half-length transform in the four-step form, run from
   the input straight into the output; and from a strided input through the block
   path): cosine tones have exact one-sided transforms; irfft gives the input back ---- */
TEST(test_long_real_tones) {
    static const int64_t lens[] = {131072, 80000};
    static const int64_t bins[4] = {0, 1, 777, 12345};
    static const double amp[4] = {0.5, 2.0, -0.75, 1.25}, ph[4] = {0.0, 0.3, -1.1, 2.0};
    for (unsigned li = 0; li < sizeof lens / sizeof *lens; li++)
        for (int prec = 0; prec < 2; prec++)
            for (int strided = 0; strided < 2; strided++) CT_SCOPE {
                int64_t n = lens[li];
                ct_dtype dt = prec ? CT_FLOAT64 : CT_FLOAT32;
                /* strided: column 1 of an n x 2 tensor (stride 2) */
                ct_tensor *base = ct_zeros(dt, n, strided ? 2 : 1);
                ct_tensor *x = ct_select(base, 1, strided ? 1 : 0);
                for (int64_t j = 0; j < n; j++) {
                    double v = 0;
                    for (int t = 0; t < 4; t++)
                        v += amp[t] * cos(2 * 3.14159265358979323846 * (double)((bins[t] * j) % n) / (double)n + ph[t]);
                    int64_t at = j * (strided ? 2 : 1) + (strided ? 1 : 0);
                    if (prec) ((double *)ct_data_ptr(base))[at] = v;
                    else ((float *)ct_data_ptr(base))[at] = (float)v;
                }
                /* "ortho" (a scale of 1/sqrt(n)) times sqrt(n): A e^{i phi} / 2 at the tone's
                   bin (A cos phi at bin 0) */
                ct_tensor *y = ct_fft_rfft(x, -1, -1, "ortho");
                int64_t m;
                double *v = y ? values(y, &m) : NULL, worst = 0, sq = sqrt((double)n);
                CHECK(!y || ct_size(y, 0) == n / 2 + 1);
                for (int64_t k = 0; v && k <= n / 2; k++) {
                    double er = 0, ei = 0;
                    for (int t = 0; t < 4; t++)
                        if (bins[t] == k) {
                            er = k ? amp[t] * cos(ph[t]) / 2 : amp[t] * cos(ph[t]);
                            ei = k ? amp[t] * sin(ph[t]) / 2 : 0;
                        }
                    worst = fmax(worst, fmax(fabs(v[2 * k] * sq / (double)n - er), fabs(v[2 * k + 1] * sq / (double)n - ei)));
                }
                CT_T_REPORT(v && worst < (prec ? 1e-12 : 2e-6), "rfft n=%lld %s%s: error %.3g", (long long)n,
                            prec ? "float64" : "float32", strided ? " strided" : "", worst);
                free(v);
                ct_tensor *b = ct_fft_irfft(y, n, -1, "ortho");
                CHECK(b && ct_allclose(b, x, 0, prec ? 1e-12 : 2e-5));
            }
}

/* ---- a long prime (Bluestein over a four-step length, a workspace of over 1 MiB
   kept in the plan between calls): an impulse has an exact transform; a second call
   (the kept workspace) and two threads at once (one takes the kept workspace, the
   other allocates its own) give the same bits ---- */
typedef struct prime_job { const ct_tensor *x; double *v; int64_t m; } prime_job;
static void *prime_run(void *u) {
    prime_job *j = (prime_job *)u;
    CT_SCOPE {
        ct_tensor *y = ct_fft_fft(j->x, -1, -1, "forward");
        j->v = y ? values(y, &j->m) : NULL;
    }
    return NULL;
}
TEST(test_prime_workspace) {
    const int64_t n = 40009, j0 = 31337;
    CT_SCOPE {
        /* an impulse a at j0: X_k = a w^(j0 k) / n ("forward"); every 37th bin checked */
        ct_tensor *x = ct_zeros(CT_COMPLEX64, n);
        float *xv = (float *)ct_data_ptr(x);
        xv[2 * j0] = 0.75f * (float)n;
        xv[2 * j0 + 1] = -0.5f * (float)n;
        prime_job first = {x, NULL, 0}, again = {x, NULL, 0}, th[2] = {{x, NULL, 0}, {x, NULL, 0}};
        prime_run(&first);
        double worst = 0;
        for (int64_t k = 0; first.v && k < n; k += 37) {
            double a = -2 * 3.14159265358979323846 * (double)((j0 * k) % n) / (double)n, c = cos(a), sn = sin(a);
            worst = fmax(worst, fmax(fabs(first.v[2 * k] - (0.75 * c + 0.5 * sn)), fabs(first.v[2 * k + 1] - (0.75 * sn - 0.5 * c))));
        }
        CT_T_REPORT(first.v && worst < 2e-5, "n=%lld complex64: error %.3g", (long long)n, worst);
        prime_run(&again);
        pthread_t t[2];
        int started[2];
        for (int i = 0; i < 2; i++) started[i] = pthread_create(&t[i], NULL, prime_run, &th[i]) == 0;
        for (int i = 0; i < 2; i++) if (started[i]) pthread_join(t[i], NULL);
        CHECK(started[0] && started[1]);
        prime_job *cmp[3] = {&again, &th[0], &th[1]};
        for (int c = 0; c < 3; c++) {
            int same = first.v && cmp[c]->v && cmp[c]->m == first.m;
            for (int64_t i = 0; same && i < first.m; i++) same = cmp[c]->v[i] == first.v[i];
            CT_T_REPORT(same, "n=%lld: call %d differs from the first", (long long)n, c + 2);
            free(cmp[c]->v);
        }
        free(first.v);
    }
}

#ifdef CTENSOR_FFTW
/* ---- CTENSOR_FFTW: FFTW's howmany plans (one over all rows; one per block of lines,
   interleaved for strided dims: fft2 / fftn / strided / padded, rfft2 / rfftn)
   against the built-in engine (ct__fft_builtin) in the same program; a repeated
   call reuses the cached plans ---- */
static int fftw_whole_cached(void) {   /* cached whole-transform plans that no call holds */
    int cnt = 0;
    for (int i = 0; i < CT__FFTW_WHOLE; i++) cnt += ct__fftw_wcache[i] && ct__fftw_wcache[i]->refs == 1;
    return cnt;
}
TEST(test_fftw_whole) {
    CT_SCOPE {
        ct_tensor *c3 = ct_randn(CT_COMPLEX64, 3, 64, 48), *r3 = ct_randn(CT_FLOAT64, 3, 20, 30);
        ct_tensor *ct = ct_transpose(ct_randn(CT_COMPLEX128, 40, 6), 0, 1);   /* strided lines */
        const int64_t d01[2] = {0, 1}, d0[1] = {0};
        for (int rep = 0; rep < 2; rep++) {
            ct_tensor *got[9], *want[9];
            for (int b = 0; b < 2; b++) {
                ct__fft_builtin = b;
                ct_tensor **o = b ? want : got;
                o[0] = ct_fft_fft2(c3, NULL, NULL, NULL);              /* blocks: rows, then interleaved columns */
                o[1] = ct_fft_ifft2(c3, NULL, d01, "ortho");
                o[2] = ct_fft_fft(c3, -1, -1, "forward");              /* one plan over the 192 rows */
                o[3] = ct_fft_fft(ct, -1, 1, NULL);                    /* strided lines */
                o[4] = ct_fft_fftn(ct, 0, NULL, 1, d0, NULL);
                o[5] = ct_fft_rfft2(r3, NULL, NULL, NULL);
                o[6] = ct_fft_rfftn(r3, 0, NULL, 0, NULL, "ortho");
                o[7] = ct_fft_rfft(r3, -1, -1, NULL);                  /* one r2c plan */
                o[8] = ct_fft_fft(c3, 50, -1, NULL);                   /* padded: blocks */
            }
            ct__fft_builtin = 0;
            for (int i = 0; i < 9; i++)
                CT_T_REPORT(got[i] && want[i] && ct_allclose(ct_view_as_real(got[i]), ct_view_as_real(want[i]), 1e-4, 1e-4),
                            "case %d (round %d): FFTW's plans differ from the built-in engine", i, rep);
            if (rep == 0) CHECK(fftw_whole_cached() >= 6);
        }
    }
}
#endif

/* ---- gradcheck: chains from real to real through every transform kind ---- */
typedef struct chain { int kind; } chain;
static ct_tensor *chain_fn(ct_tensor *const *in, void *user) {
    const chain *c = (const chain *)user;
    ct_tensor *x = in[0];
    switch (c->kind) {
    case 0: /* fft of a real input (r2c, full), ifft with trimming (c2c), irfft with padding (c2r) */
        return ct_fft_irfft(ct_fft_ifft(ct_fft_fft(x, 7, -1, "ortho"), 5, -1, NULL), 9, -1, "forward");
    case 1: /* rfft (one-sided, padded) then hfft (odd length) */
        return ct_fft_hfft(ct_fft_rfft(x, 8, -1, NULL), 5, -1, "ortho");
    case 2: /* ihfft then irfft with trimming of the input */
        return ct_fft_irfft(ct_fft_ihfft(x, -1, -1, NULL), 4, -1, NULL);
    case 3: /* two dims: rfft2 with s, fftn over one dim, irfftn */
        {
            int64_t s[2] = {4, 5}, d1[1] = {0};
            ct_tensor *a = ct_fft_rfft2(x, s, NULL, "backward");
            ct_tensor *b = ct_fft_fftn(a, 0, NULL, 1, d1, "forward");
            return ct_fft_irfftn(b, 0, NULL, 0, NULL, "ortho");
        }
    case 4: /* a strided input, dim 0, Bluestein length */
        return ct_fft_irfft(ct_fft_fft(ct_transpose(x, 0, 1), 53, 0, NULL), 60, 0, NULL);
    default: /* fft2 of a real input, ifft2 with s, irfft2 */
        {
            int64_t s[2] = {3, 6};
            return ct_fft_irfft2(ct_fft_ifft2(ct_fft_fft2(x, NULL, NULL, "ortho"), s, NULL, NULL), NULL, NULL, NULL);
        }
    }
}
/* ---- gradcheck with complex tensors, as PyTorch's gradcheck treats them: real
   parameters [..., 2] viewed as complex, the complex result viewed as real ---- */
static ct_tensor *cplx_fn(ct_tensor *const *in, void *user) {
    int kind = *(const int *)user;
    ct_tensor *z = ct_view_as_complex(in[0]);
    int64_t s[2] = {5, 3};
    switch (kind) {
    case 0: return ct_view_as_real(ct_fft_fft(z, 7, -1, "ortho"));
    case 1: return ct_view_as_real(ct_fft_ifft2(z, s, NULL, NULL));
    case 2: return ct_fft_irfft(z, 7, -1, NULL);
    case 3: return ct_fft_hfft(z, -1, 0, "forward");
    case 4: return ct_view_as_real(ct_fft_fftn(ct_transpose(z, 0, 1), 0, NULL, 0, NULL, "backward"));
    default: return ct_view_as_real(ct_fft_fftshift(ct_fft_ifft(z, -1, -1, NULL), 0, NULL));
    }
}
static ct_tensor *real_to_cplx_fn(ct_tensor *const *in, void *user) {
    (void)user;
    return ct_view_as_real(ct_fft_rfftn(in[0], 0, NULL, 0, NULL, "ortho"));
}
TEST(test_gradcheck_complex) {
    for (int k = 0; k < 6; k++) CT_SCOPE {
        ct_tensor *x = ct_requires_grad(ct_randn(CT_FLOAT64, 3, 4, 2));
        CT_T_REPORT(ct_gradcheck(cplx_fn, &k, 1, &x, NULL) == 1, "gradcheck complex %d: %s", k, ct_last_error());
        if (k == 0 || k == 2)
            CT_T_REPORT(ct_gradgradcheck(cplx_fn, &k, 1, &x, NULL) == 1, "gradgradcheck complex %d: %s", k, ct_last_error());
    }
    CT_SCOPE {
        ct_tensor *x = ct_requires_grad(ct_randn(CT_FLOAT64, 3, 6));
        CT_T_REPORT(ct_gradcheck(real_to_cplx_fn, NULL, 1, &x, NULL) == 1, "gradcheck rfftn: %s", ct_last_error());
        CT_T_REPORT(ct_gradgradcheck(real_to_cplx_fn, NULL, 1, &x, NULL) == 1, "gradgradcheck rfftn: %s", ct_last_error());
    }
}

TEST(test_gradcheck) {
    static const int64_t shapes[6][2] = {{2, 6}, {3, 7}, {2, 9}, {3, 6}, {4, 3}, {4, 5}};
    for (int k = 0; k < 6; k++) CT_SCOPE {
        chain c = {k};
        ct_tensor *x = ct_requires_grad(ct_randn(CT_FLOAT64, shapes[k][0], shapes[k][1]));
        CT_T_REPORT(ct_gradcheck(chain_fn, &c, 1, &x, NULL) == 1, "gradcheck chain %d: %s", k, ct_last_error());
        if (k < 3) CT_T_REPORT(ct_gradgradcheck(chain_fn, &c, 1, &x, NULL) == 1, "gradgradcheck chain %d: %s", k, ct_last_error());
    }
}

/* ---- other behaviour: empty dim lists, batches, float32 round trips, helpers ---- */
TEST(test_misc) {
    CT_SCOPE {
        ct_tensor *x = ct_randn(CT_FLOAT32, 3, 4);
        ct_tensor *y = ct_fft_fftn(x, 0, NULL, 0, (const int64_t[1]){0}, NULL);   /* no dims: a complex copy */
        CHECK(y && ct_get_dtype(y) == CT_COMPLEX64 && ct_size(y, 0) == 3 && ct_size(y, 1) == 4);
        if (y) CHECK_CLOSE(((float *)ct_data_ptr(y))[2], ((float *)ct_data_ptr(x))[1], 0);
        /* round trips: irfftn(rfftn(x)) == x, ifft(fft(x)) == x in every norm */
        static const char *norms[] = {"backward", "ortho", "forward"};
        for (int i = 0; i < 3; i++) {
            ct_tensor *z = ct_randn(CT_FLOAT64, 5, 6, 7);
            int64_t s[3] = {5, 6, 7};
            ct_tensor *b = ct_fft_irfftn(ct_fft_rfftn(z, 0, NULL, 0, NULL, norms[i]), 3, s, 0, NULL, norms[i]);
            CHECK(b && ct_allclose(b, z, 1e-12, 1e-12));
            ct_tensor *r = ct_fft_ifft(ct_fft_fft(z, -1, 1, norms[i]), -1, 1, norms[i]);
            ct_tensor *rr = ct_fft_irfft(ct_fft_rfft(z, -1, 1, norms[i]), 6, 1, norms[i]);
            CHECK(rr && ct_allclose(rr, z, 1e-12, 1e-12));
            CHECK(r && ct_get_dtype(r) == CT_COMPLEX128);
        }
        /* a large transform runs through the threads: a 64 x 4096 batch against rows one by one */
        ct_tensor *big = ct_randn(CT_FLOAT32, 64, 512);
        ct_tensor *all = ct_fft_rfft(big, -1, 1, NULL);
        ct_tensor *row = ct_fft_rfft(ct_select(big, 0, 37), -1, 0, NULL);
        if (all && row) {
            int64_t m1, m2;
            double *a = values(ct_select(all, 0, 37), &m1), *b = values(row, &m2);
            int same = m1 == m2;
#ifdef CTENSOR_FFTW
            const double tol = 1e-4;   /* FFTW: one plan of 64 transforms against a plan of one */
#else
            const double tol = 0;      /* the same bits */
#endif
            for (int64_t i = 0; same && i < m1; i++) same = fabs(a[i] - b[i]) <= tol;
            CHECK(same);
            free(a);
            free(b);
        } else CHECK(0);
        /* fftshift then ifftshift is the identity; fftfreq's shift is centred */
        ct_tensor *f = ct_fft_fftshift(ct_fft_fftfreq(6, 1.0, CT_FLOAT64), 0, NULL);
        static const double fs[] = {-0.5, -1.0 / 3, -1.0 / 6, 0.0, 1.0 / 6, 1.0 / 3};
        CHECK_VALUES(f, fs, 6, 1e-15);
        ct_tensor *q = ct_randn(CT_FLOAT64, 5, 4);
        CHECK(ct_allclose(ct_fft_ifftshift(ct_fft_fftshift(q, 0, NULL), 0, NULL), q, 0, 0));
        /* the op's backward node carries PyTorch's name */
        ct_tensor *w = ct_fft_rfft(ct_requires_grad(ct_randn(CT_FLOAT64, 4)), -1, -1, NULL);
        CHECK(w && ct_grad_fn_name(w) && !strcmp(ct_grad_fn_name(w), "FftR2CBackward0"));
    }
}

/* ---- bad input: PyTorch's words, for every public function ---- */
TEST(test_bad_input) {
    ct_tensor *x = ct_randn(CT_FLOAT32, 4, 5), *c = ct_fft_fft(x, -1, -1, NULL), *h = ct_ones(CT_FLOAT16, 4);
    int64_t s22[2] = {2, 2}, s0[2] = {0, 2}, d00[2] = {0, 0}, d0[1] = {0}, s222[3] = {2, 2, 2}, d5[1] = {5};
    CHECK_ERR(ct_fft_fft(x, 0, -1, NULL), CT_ERR_ARG, "fft: Invalid number of data points (0) specified");
    CHECK_ERR(ct_fft_fft(x, -1, 2, NULL), CT_ERR_INDEX, "fft: Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    CHECK_ERR(ct_fft_ifft(x, -1, -1, "bad"), CT_ERR_ARG, "ifft: Invalid normalization mode: \"bad\"");
    CHECK_ERR(ct_fft_rfft(c, -1, -1, NULL), CT_ERR_DTYPE, "rfft: rfft expects a real input tensor, but got ComplexFloat");
    CHECK_ERR(ct_fft_irfft(c, 0, -1, NULL), CT_ERR_ARG, "irfft: Invalid number of data points (0) specified");
    CHECK_ERR(ct_fft_irfft(ct_fft_fft(ct_ones(CT_FLOAT32, 1), -1, -1, NULL), -1, -1, NULL), CT_ERR_ARG,
              "irfft: Invalid number of data points (0) specified");
    CHECK_ERR(ct_fft_hfft(c, -3, -1, NULL), CT_ERR_ARG, "hfft: Invalid number of data points (-3) specified");
    CHECK_ERR(ct_fft_ihfft(c, -1, -1, NULL), CT_ERR_DTYPE, "ihfft: ihfft expects a real input tensor, but got ComplexFloat");
    CHECK_ERR(ct_fft_fft(h, -1, -1, NULL), CT_ERR_DTYPE, "fft: Unsupported dtype Half");
    CHECK_ERR(ct_fft_fft(ct_scalar_tensor(1.0, CT_FLOAT64), -1, -1, NULL), CT_ERR_INDEX, "fft: Dimension specified as -1 but tensor has no dimensions");
    CHECK_ERR(ct_fft_fft(NULL, -1, -1, NULL), CT_ERR_NULL, "fft: argument 0 is NULL");
    CHECK_ERR(ct_fft_fftn(x, 2, s22, 1, d0, NULL), CT_ERR_ARG, "fftn: When given, dim and shape arguments must have the same length");
    CHECK_ERR(ct_fft_ifftn(x, 3, s222, 0, NULL, NULL), CT_ERR_ARG, "ifftn: Got shape with 3 values but input tensor only has 2 dimensions.");
    CHECK_ERR(ct_fft_fftn(x, 0, NULL, 2, d00, NULL), CT_ERR_ARG, "fftn: FFT dims must be unique");
    CHECK_ERR(ct_fft_fftn(x, 2, s0, 0, NULL, NULL), CT_ERR_ARG, "fftn: Invalid number of data points (0) specified");
    CHECK_ERR(ct_fft_rfftn(x, 0, NULL, 0, d0, NULL), CT_ERR_ARG, "rfftn: rfftn must transform at least one axis");
    CHECK_ERR(ct_fft_irfftn(c, 0, NULL, 0, d0, NULL), CT_ERR_ARG, "irfftn: irfftn must transform at least one axis");
    CHECK_ERR(ct_fft_fft2(ct_ones(CT_FLOAT32, 5), NULL, NULL, NULL), CT_ERR_INDEX,
              "fft2: Dimension out of range (expected to be in range of [-1, 0], but got -2)");
    CHECK_ERR(ct_fft_ifft2(x, NULL, NULL, "Ortho"), CT_ERR_ARG, "ifft2: Invalid normalization mode: \"Ortho\"");
    CHECK_ERR(ct_fft_rfft2(c, NULL, NULL, NULL), CT_ERR_DTYPE, "rfft2: rfftn expects a real-valued input tensor, but got ComplexFloat");
    CHECK_ERR(ct_fft_irfft2(c, (const int64_t[2]){3, 0}, NULL, NULL), CT_ERR_ARG, "irfft2: Invalid number of data points (0) specified");
    CHECK_ERR(ct_fft_hfft2(c, (const int64_t[2]){3, 0}, NULL, NULL), CT_ERR_ARG, "hfft2: Invalid number of data points (0) specified");
    CHECK_ERR(ct_fft_ihfft2(c, NULL, NULL, NULL), CT_ERR_DTYPE, "ihfft2: ihfftn expects a real-valued input tensor, but got ComplexFloat");
    CHECK_ERR(ct_fft_hfftn(c, 0, NULL, 0, d0, NULL), CT_ERR_ARG, "hfftn: hfftn must transform at least one axis");
    CHECK_ERR(ct_fft_ihfftn(x, 0, NULL, 0, d0, NULL), CT_ERR_ARG, "ihfftn: ihfftn must transform at least one axis");
    CHECK_ERR(ct_fft_hfftn(x, 1, s22, 0, NULL, "fwd"), CT_ERR_ARG, "hfftn: Invalid normalization mode: \"fwd\"");
    CHECK_ERR(ct_fft_fftfreq(-1, 1.0, CT_FLOAT32), CT_ERR_ARG, "fftfreq: Trying to create tensor with negative dimension -1: [-1]");
    CHECK_ERR(ct_fft_rfftfreq(-3, 1.0, CT_FLOAT64), CT_ERR_ARG, "rfftfreq: Trying to create tensor with negative dimension -1: [-1]");
    CHECK_ERR(ct_fft_fftshift(x, 1, d5), CT_ERR_INDEX, "fftshift: Dimension out of range (expected to be in range of [-2, 1], but got 5)");
    CHECK_ERR(ct_fft_ifftshift(NULL, 0, NULL), CT_ERR_NULL, "ifftshift: argument 0 is NULL");
    /* the op itself, called through the dispatcher with inconsistent attributes */
    int op = ct_op_find("ct::fft_c2c");
    CHECK(op >= 0);
    ct_attrs a;
    ct_attrs_init(&a);
    a.nv = 3;
    a.v[0] = 0; a.v[1] = 0; a.v[2] = 4;
    ct_tensor *out[1];
    ct_clear_error();
    CHECK(ct_dispatch(op, 1, &c, &a, NULL, 0, out, 1) < 0 && strstr(ct_last_error(), "fft_c2c: Invalid number of data points (0) specified"));
    ct_clear_error();
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "tests/fixtures/fft/fft.safetensors";
    ct_t_init();
    fx = ct_safetensors_load(path);
    CT_T_REPORT(fx != NULL, "cannot load %s: %s", path, ct_last_error());
    if (fx) RUN(test_fixtures);
    RUN(test_direct_dft);
    RUN(test_long_tones);
    RUN(test_long_real_tones);
    RUN(test_prime_workspace);
#ifdef CTENSOR_FFTW
    RUN(test_fftw_whole);
#endif
    RUN(test_gradcheck);
    RUN(test_gradcheck_complex);
    RUN(test_misc);
    RUN(test_bad_input);
    ct_safetensors_free(fx);
    if (getenv("CT_FFT_VERBOSE")) printf("%d fixture cases, %d with gradients\n", ncases, ngrad);
    return ct_t_summary();
}
