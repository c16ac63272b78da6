/* special.c - torch.special on 1M float32 elements ([1024, 1024]), 1 thread.
   Twin: bench/torch/special.py (the same cases, names and inputs).

   Inputs are the same on both sides, made by one formula: element i of a case's
   input on [lo, hi] is lo + (hi - lo) * frac((i + 0.5) * 0.6180339887498949),
   rounded to float32 (a low-discrepancy fill of the domain). Each function gets
   its natural domain (erfinv on (-1, 1), gammaln on (0, 10], ...); binary
   functions get a second input the same way (a shifted sequence). The
   polynomials take n = 8 (a 0-d tensor, broadcast; x on [-1, 1], the shifted ones on [0, 1]). softmax, log_softmax and
   logsumexp work on the last dim. Line names: special_<fn>_1M_f32_t1. */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_special.h"

typedef struct sp_case {
    const char *name;
    double lo, hi;
    ct_tensor *(*u)(const ct_tensor *);
    ct_tensor *(*b)(const ct_tensor *, const ct_tensor *);
    double lo2, hi2;
    int kind;   /* 0 plain, 1 polynomial (n = 8), 2..: special calls below */
} sp_case;

static ct_tensor *polygamma1(const ct_tensor *x) { return ct_special_polygamma(1, x); }
static ct_tensor *multigammaln2(const ct_tensor *x) { return ct_special_multigammaln(x, 2); }
static ct_tensor *logit_none(const ct_tensor *x) { return ct_special_logit(x, NAN); }
static ct_tensor *softmax_last(const ct_tensor *x) { return ct_special_softmax(x, -1); }
static ct_tensor *log_softmax_last(const ct_tensor *x) { return ct_special_log_softmax(x, -1); }
static ct_tensor *logsumexp_last(const ct_tensor *x) { int64_t d = -1; return ct_special_logsumexp(x, 1, &d, 0); }

#define U(n, lo, hi) {#n, lo, hi, ct_special_##n, NULL, 0, 0, 0}
static const sp_case cases[] = {
    U(erf, -5, 5), U(erfc, -5, 5), U(erfcx, -10, 10), U(erfinv, -1, 1), U(ndtr, -10, 10), U(ndtri, 0, 1),
    U(log_ndtr, -10, 10), U(expit, -10, 10), {"logit", 0, 1, logit_none, NULL, 0, 0, 0}, U(exp2, -10, 10),
    U(expm1, -10, 10), U(log1p, 0, 10), U(entr, 0, 10), U(sinc, -10, 10), U(round, -10, 10),
    U(gammaln, 0, 10), U(digamma, 0, 10), {"polygamma1", 0, 10, polygamma1, NULL, 0, 0, 0},
    {"multigammaln2", 1, 11, multigammaln2, NULL, 0, 0, 0},
    U(i0, -10, 10), U(i0e, -10, 10), U(i1, -10, 10), U(i1e, -10, 10),
    U(modified_bessel_i0, -10, 10), U(modified_bessel_i1, -10, 10), U(modified_bessel_k0, 0, 10),
    U(modified_bessel_k1, 0, 10), U(scaled_modified_bessel_k0, 0, 10), U(scaled_modified_bessel_k1, 0, 10),
    U(bessel_j0, -10, 10), U(bessel_j1, -10, 10), U(bessel_y0, 0, 10), U(bessel_y1, 0, 10),
    U(spherical_bessel_j0, -10, 10), U(airy_ai, -10, 10),
    {"xlogy", -10, 10, NULL, ct_special_xlogy, 0, 10, 0}, {"xlog1py", -10, 10, NULL, ct_special_xlog1py, 0, 10, 0},
    {"zeta", 1.5, 6, NULL, ct_special_zeta, 0, 10, 0}, {"gammainc", 0, 10, NULL, ct_special_gammainc, 0, 10, 0},
    {"gammaincc", 0, 10, NULL, ct_special_gammaincc, 0, 10, 0},
#define P(n) {#n, -1, 1, NULL, ct_special_##n, 0, 0, 1}
    P(chebyshev_polynomial_t), P(chebyshev_polynomial_u), P(hermite_polynomial_h), P(hermite_polynomial_he),
    P(laguerre_polynomial_l), P(legendre_polynomial_p),
#define PS(n) {#n, 0, 1, NULL, ct_special_##n, 0, 0, 1}   /* the shifted ones on [0, 1] */
    P(chebyshev_polynomial_v), P(chebyshev_polynomial_w), PS(shifted_chebyshev_polynomial_t),
    PS(shifted_chebyshev_polynomial_u), PS(shifted_chebyshev_polynomial_v), PS(shifted_chebyshev_polynomial_w),
    {"softmax", -10, 10, softmax_last, NULL, 0, 0, 0}, {"log_softmax", -10, 10, log_softmax_last, NULL, 0, 0, 0},
    {"logsumexp", -10, 10, logsumexp_last, NULL, 0, 0, 0},
};

static ct_tensor *fill(double lo, double hi, int64_t n, int shift) {
    float *v = (float *)malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) {
        double f = ((double)(i + shift) + 0.5) * 0.6180339887498949;
        v[i] = (float)(lo + (hi - lo) * (f - floor(f)));
    }
    ct_tensor *t = ct_from_data(v, CT_FLOAT32, 1024, n / 1024);
    free(v);
    return t;
}

typedef struct job { const sp_case *c; ct_tensor *x, *y; } job;
static ct_tensor *volatile sink;
static ct_tensor *apply(const job *j) { return j->c->u ? j->c->u(j->x) : j->c->b(j->x, j->y); }
static void run_case(void *u) {
    CT_SCOPE { sink = apply((const job *)u); }
}

int main(void) {
    bench_begin("special");
    bench_set_threads(1);
    const int64_t n = 1024 * 1024;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const sp_case *c = &cases[k];
        char name[96];
        snprintf(name, sizeof name, "special_%s_1M_f32_t1", c->name);
        if (!bench_selected(name)) continue;
        int tok = ct_scope_begin();
        job j = {c, fill(c->lo, c->hi, n, 0), NULL};
        if (c->kind == 1) j.y = ct_scalar_tensor(8.0, CT_FLOAT32);
        else if (c->b) j.y = fill(c->lo2, c->hi2, n, 7);
        ct_clear_error();
        ct_tensor *r = apply(&j);
        if (!r) {
            printf("# %s: FAILED: %s\n", name, ct_last_error());
        } else {
            bench_opts o = {1, (c->b && c->kind != 1 ? 3.0 : 2.0) * (double)n * 4.0, 0, NULL};
            bench_run_opts(name, "[1024,1024]", run_case, &j, &o);
        }
        sink = NULL;
        ct_scope_end(tok);
    }
    return 0;
}
