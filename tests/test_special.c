/* test_special.c - ctensor_special.h (torch.special): every function against
   PyTorch 1.13's outputs (tests/fixtures/special/special.safetensors, written by
   gen_special.py there) in float32 and float64, extreme arguments included;
   gradcheck of every differentiable op; the functions without a gradient; the
   aliases; bad input with its message for every public function.
   CT_SPECIAL_VERBOSE=1 prints each function's worst deviation in ulp. */
#ifndef CT_TEST_SHARED_IMPL
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"
#include "ctensor_special.h"
#include <stdint.h>
#include <string.h>

typedef ct_tensor *(*un_fn)(const ct_tensor *);
typedef ct_tensor *(*bin_fn)(const ct_tensor *, const ct_tensor *);

static ct_tensor *logit_none(const ct_tensor *x) { return ct_special_logit(x, NAN); }
static ct_tensor *logit_eps(const ct_tensor *x) { return ct_special_logit(x, 0.01); }
static ct_tensor *polygamma0(const ct_tensor *x) { return ct_special_polygamma(0, x); }
static ct_tensor *polygamma1(const ct_tensor *x) { return ct_special_polygamma(1, x); }
static ct_tensor *polygamma2(const ct_tensor *x) { return ct_special_polygamma(2, x); }
static ct_tensor *polygamma3(const ct_tensor *x) { return ct_special_polygamma(3, x); }
static ct_tensor *polygamma5(const ct_tensor *x) { return ct_special_polygamma(5, x); }
static ct_tensor *multigammaln3(const ct_tensor *x) { return ct_special_multigammaln(x, 3); }
static ct_tensor *log_ndtr_neg(const ct_tensor *x) { return ct_special_log_ndtr(ct_neg(x)); }
static ct_tensor *xlog1py_self(const ct_tensor *x) { return ct_special_xlog1py(x, x); }
/* the polynomials at n = 8 and 40 (a 0-d n, broadcast) and at n = i mod 23 per element */
static ct_tensor *n_const(const ct_tensor *x, double n) { return ct_scalar_tensor(n, ct_get_dtype(x)); }
static ct_tensor *n_var(const ct_tensor *x) {
    static double v[4096];
    int64_t n = ct_numel(x);
    if (n > 4096) return NULL;
    for (int64_t i = 0; i < n; i++) v[i] = (double)(i % 23);
    return ct_to(ct_from_data_n(v, CT_FLOAT64, 1, &n), ct_get_dtype(x));
}
#define POLY_SWEEP_FNS(f)                                                                                \
    static ct_tensor *f##_8(const ct_tensor *x) { return ct_special_##f(x, n_const(x, 8)); }            \
    static ct_tensor *f##_40(const ct_tensor *x) { return ct_special_##f(x, n_const(x, 40)); }          \
    static ct_tensor *f##_var(const ct_tensor *x) { return ct_special_##f(x, n_var(x)); }
POLY_SWEEP_FNS(chebyshev_polynomial_t)
POLY_SWEEP_FNS(chebyshev_polynomial_w)
POLY_SWEEP_FNS(shifted_chebyshev_polynomial_u)
POLY_SWEEP_FNS(hermite_polynomial_h)
POLY_SWEEP_FNS(hermite_polynomial_he)
POLY_SWEEP_FNS(laguerre_polynomial_l)
POLY_SWEEP_FNS(legendre_polynomial_p)

/* A fixture case: its name, the function, and the tolerance in ulp of the
   result's magnitude (relative), plus an absolute floor in units of the dtype's
   epsilon (for results near a zero of the function, where PyTorch's own
   relative error is unbounded). Notes say where PyTorch's answer is less accurate. */
typedef struct sp_case {
    const char *name;
    un_fn u;
    bin_fn b;
    double ulp, abs_eps;
} sp_case;
static const sp_case cases[] = {
    {"erfcx", ct_special_erfcx, NULL, 4, 0},
    {"erfinv", ct_special_erfinv, NULL, 4, 0},
    {"ndtr", ct_special_ndtr, NULL, 4, 0},
    {"ndtri", ct_special_ndtri, NULL, 4, 0},
    {"log_ndtr", ct_special_log_ndtr, NULL, 4, 0},
    {"logit", logit_none, NULL, 4, 0},
    {"logit_eps", logit_eps, NULL, 4, 0},
    {"entr", ct_special_entr, NULL, 4, 0},
    {"sinc", ct_special_sinc, NULL, 4, 0},
    {"gammaln", ct_special_gammaln, NULL, 4, 0},
    {"digamma", ct_special_digamma, NULL, 4, 0},
    {"polygamma1", polygamma1, NULL, 4, 0},
    {"polygamma2", polygamma2, NULL, 4, 0},
    {"polygamma3", polygamma3, NULL, 4, 0},
    {"polygamma5", polygamma5, NULL, 4, 0},
    {"multigammaln3", multigammaln3, NULL, 4, 0},
    {"i0", ct_special_i0, NULL, 4, 0},
    {"i0e", ct_special_i0e, NULL, 4, 0},
    {"i1", ct_special_i1, NULL, 4, 0},
    {"i1e", ct_special_i1e, NULL, 4, 0},
    {"modified_bessel_i0", ct_special_modified_bessel_i0, NULL, 4, 0},
    {"modified_bessel_i1", ct_special_modified_bessel_i1, NULL, 4, 0},
    {"modified_bessel_k0", ct_special_modified_bessel_k0, NULL, 4, 0},
    {"modified_bessel_k1", ct_special_modified_bessel_k1, NULL, 4, 0},
    {"scaled_modified_bessel_k0", ct_special_scaled_modified_bessel_k0, NULL, 4, 0},
    {"scaled_modified_bessel_k1", ct_special_scaled_modified_bessel_k1, NULL, 4, 0},
    {"bessel_j0", ct_special_bessel_j0, NULL, 4, 4},
    {"bessel_j1", ct_special_bessel_j1, NULL, 4, 4},
    {"bessel_y0", ct_special_bessel_y0, NULL, 4, 4},
    {"bessel_y1", ct_special_bessel_y1, NULL, 4, 4},
    {"spherical_bessel_j0", ct_special_spherical_bessel_j0, NULL, 4, 0},
    {"airy_ai", ct_special_airy_ai, NULL, 4, 4},
    {"xlog1py", NULL, ct_special_xlog1py, 4, 0},
    {"zeta", NULL, ct_special_zeta, 4, 0},
    {"gammainc", NULL, ct_special_gammainc, 16, 0},
    {"gammaincc", NULL, ct_special_gammaincc, 16, 0},
    {"chebyshev_polynomial_t", NULL, ct_special_chebyshev_polynomial_t, 16, 16},
    {"chebyshev_polynomial_u", NULL, ct_special_chebyshev_polynomial_u, 16, 16},
    {"chebyshev_polynomial_v", NULL, ct_special_chebyshev_polynomial_v, 16, 16},
    {"chebyshev_polynomial_w", NULL, ct_special_chebyshev_polynomial_w, 16, 16},
    {"shifted_chebyshev_polynomial_t", NULL, ct_special_shifted_chebyshev_polynomial_t, 16, 16},
    {"shifted_chebyshev_polynomial_u", NULL, ct_special_shifted_chebyshev_polynomial_u, 16, 16},
    {"shifted_chebyshev_polynomial_v", NULL, ct_special_shifted_chebyshev_polynomial_v, 16, 16},
    {"shifted_chebyshev_polynomial_w", NULL, ct_special_shifted_chebyshev_polynomial_w, 16, 16},
    {"hermite_polynomial_h", NULL, ct_special_hermite_polynomial_h, 16, 16},
    {"hermite_polynomial_he", NULL, ct_special_hermite_polynomial_he, 16, 16},
    {"laguerre_polynomial_l", NULL, ct_special_laguerre_polynomial_l, 16, 16},
    {"legendre_polynomial_p", NULL, ct_special_legendre_polynomial_p, 16, 16},
};

static ct_safetensors *fx;
static int verbose;

static ct_tensor *fixture(const char *fn, const char *tag, const char *part) {
    char name[128];
    snprintf(name, sizeof name, "%s.%s.%s", fn, tag, part);
    return ct_safetensors_get(fx, name);
}

/* the deviation of a from b in ulp of b (of the dtype's epsilon), 0 when both are
   the same NaN/inf; abs_eps: an absolute floor in units of epsilon */
static double ulp_err(double a, double b, double eps, double tiny, double abs_eps) {
    if (isnan(b) || isnan(a)) return (isnan(a) && isnan(b)) ? 0 : INFINITY;
    if (isinf(b) || isinf(a)) return a == b ? 0 : INFINITY;
    if (abs_eps > 0 && fabs(a - b) <= abs_eps * eps) return 0;
    return fabs(a - b) / (eps * (fabs(b) > tiny ? fabs(b) : tiny));
}
/* Every element within tolerance of PyTorch's result, or of the exact value where
   PyTorch's is less accurate (the fixture's .exact, NaN where there is none). */
static void check_case(const sp_case *c, int f64) {
    const char *tag = f64 ? "f64" : "f32";
    ct_tensor *x = fixture(c->name, tag, "x"), *y = c->b ? fixture(c->name, tag, "y") : NULL;
    ct_tensor *want = fixture(c->name, tag, "out"), *ex = fixture(c->name, tag, "exact");
    CT_T_REPORT(x && want && ex && (!c->b || y), "fixture %s.%s missing: %s", c->name, tag, ct_last_error());
    if (!x || !want || !ex || (c->b && !y)) return;
    ct_tensor *got = c->b ? c->b(x, y) : c->u(x);
    CT_T_REPORT(got != NULL, "%s.%s: %s", c->name, tag, ct_last_error());
    if (!got) return;
    CT_T_REPORT(ct_get_dtype(got) == ct_get_dtype(x), "%s.%s: dtype %s", c->name, tag, ct_dtype_name(ct_get_dtype(got)));
    ct_tensor *g64 = ct_contiguous(ct_to(got, CT_FLOAT64)), *w64 = ct_contiguous(ct_to(want, CT_FLOAT64));
    ct_tensor *x64 = ct_contiguous(ct_to(x, CT_FLOAT64)), *y64 = y ? ct_contiguous(ct_to(y, CT_FLOAT64)) : NULL;
    const double *g = (const double *)ct_data_ptr(g64), *w = (const double *)ct_data_ptr(w64);
    const double *e = (const double *)ct_data_ptr(ex);
    const double *xv = (const double *)ct_data_ptr(x64), *yv = y64 ? (const double *)ct_data_ptr(y64) : NULL;
    double eps = f64 ? 2.220446049250313e-16 : 1.1920928955078125e-07, tiny = f64 ? 2.2250738585072014e-308 : 1.1754943508222875e-38;
    double worst = 0, worst_t = 0;
    int64_t worst_i = -1, n = ct_numel(want), beyond_torch = 0;
    for (int64_t i = 0; i < n; i++) {
        double et = ulp_err(g[i], w[i], eps, tiny, c->abs_eps), err = et;
        if (!isnan(e[i])) {
            double ee = ulp_err(g[i], f64 ? e[i] : (double)(float)e[i], eps, tiny, c->abs_eps);
            if (ee < err) err = ee;
            if (et > c->ulp && ee <= c->ulp) beyond_torch++;
        }
        if (et > worst_t) worst_t = et;
        if (err > worst) { worst = err; worst_i = i; }
    }
    if (verbose) {
        printf("%-32s %s %9.3g ulp (from PyTorch: %9.3g; %lld closer to exact)", c->name, tag, worst, worst_t, (long long)beyond_torch);
        if (worst_i >= 0 && yv) printf(" at x=%.17g y=%.17g: %.17g, torch %.17g, exact %.17g", xv[worst_i], yv[worst_i], g[worst_i], w[worst_i], e[worst_i]);
        else if (worst_i >= 0) printf(" at x=%.17g: %.17g, torch %.17g, exact %.17g", xv[worst_i], g[worst_i], w[worst_i], e[worst_i]);
        printf("\n");
    }
    CT_T_REPORT(worst <= c->ulp, "%s.%s: element %lld (x=%.17g, y=%.17g): got %.17g, PyTorch %.17g, exact %.17g (%.3g ulp, tolerance %g)",
                c->name, tag, (long long)worst_i, worst_i >= 0 ? xv[worst_i] : 0.0, yv && worst_i >= 0 ? yv[worst_i] : 0.0,
                worst_i >= 0 ? g[worst_i] : 0.0, worst_i >= 0 ? w[worst_i] : 0.0, worst_i >= 0 ? e[worst_i] : 0.0, worst, c->ulp);
}

TEST(test_fixtures) {
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        check_case(&cases[k], 0);
        check_case(&cases[k], 1);
    }
}

/* float32 against float64 (accurate to an ulp or two, see the fixtures) on a dense
   sweep: the float32 paths (vectorized in optimized builds) stay within 4 ulp */
static double sweep_abs_eps;   /* an absolute floor (in epsilons) for functions with zeros */
static double sweep_tol = 4;   /* the tolerance in ulp */
static void sweep(const char *name, un_fn f, double lo, double hi, int logscale) {
    enum { N = 4001 };
    static float v[N];
    for (int i = 0; i < N; i++) {
        double t = (double)i / (N - 1);
        v[i] = (float)(logscale ? lo * pow(hi / lo, t) : lo + (hi - lo) * t);
    }
    int64_t n = N;
    ct_tensor *x = ct_from_data_n(v, CT_FLOAT32, 1, &n);
    ct_tensor *r32 = ct_to(f(x), CT_FLOAT64), *r64 = f(ct_to(x, CT_FLOAT64));
    CT_T_REPORT(r32 && r64, "sweep %s: %s", name, ct_last_error());
    if (!r32 || !r64) return;
    const double *a = (const double *)ct_data_ptr(ct_contiguous(r32)), *b = (const double *)ct_data_ptr(ct_contiguous(r64));
    double worst = 0;
    int wi = 0;
    for (int i = 0; i < N; i++) {
        double e = ulp_err(a[i], (double)(float)b[i], 1.1920928955078125e-07, 1.1754943508222875e-38, sweep_abs_eps);
        if (e > worst) { worst = e; wi = i; }
    }
    if (verbose) printf("sweep %-20s worst %.3g ulp at x=%.9g\n", name, worst, (double)v[wi]);
    CT_T_REPORT(worst <= sweep_tol, "sweep %s: %.3g ulp at x=%.9g (float32 %.9g, float64 %.17g)", name, worst, (double)v[wi], a[wi], b[wi]);
}
/* the same for binary functions: 4001 points (x, y) on a low-discrepancy grid of
   [xlo, xhi] x [ylo, yhi] (y on a log scale where ylog), or x one broadcast value
   (xbc: a 0-d x), float32 against float64 within tol ulp */
static void sweep2(const char *name, bin_fn f, double xlo, double xhi, double ylo, double yhi, int ylog, int xbc, double tol) {
    enum { N = 4001 };
    static float u[N], v[N];
    for (int i = 0; i < N; i++) {
        double s = (double)i / (N - 1), t = (i + 0.5) * 0.6180339887498949;
        t -= floor(t);
        u[i] = (float)(xlo + (xhi - xlo) * s);
        v[i] = (float)(ylog ? ylo * pow(yhi / ylo, t) : ylo + (yhi - ylo) * t);
    }
    int64_t n = N;
    ct_tensor *x = xbc ? ct_scalar_tensor(xlo, CT_FLOAT32) : ct_from_data_n(u, CT_FLOAT32, 1, &n);
    ct_tensor *y = ct_from_data_n(v, CT_FLOAT32, 1, &n);
    ct_tensor *r32 = ct_to(f(x, y), CT_FLOAT64), *r64 = f(ct_to(x, CT_FLOAT64), ct_to(y, CT_FLOAT64));
    CT_T_REPORT(r32 && r64, "sweep %s: %s", name, ct_last_error());
    if (!r32 || !r64) return;
    const double *a = (const double *)ct_data_ptr(ct_contiguous(r32)), *b = (const double *)ct_data_ptr(ct_contiguous(r64));
    double worst = 0;
    int wi = 0;
    for (int i = 0; i < N; i++) {
        double e = ulp_err(a[i], (double)(float)b[i], 1.1920928955078125e-07, 1.1754943508222875e-38, sweep_abs_eps);
        if (e > worst) { worst = e; wi = i; }
    }
    double wx = xbc ? (double)(float)xlo : (double)u[wi];
    if (verbose) printf("sweep %-20s worst %.3g ulp at x=%.9g y=%.9g\n", name, worst, wx, (double)v[wi]);
    CT_T_REPORT(worst <= tol, "sweep %s: %.3g ulp at x=%.9g y=%.9g (float32 %.9g, float64 %.17g)", name, worst, wx, (double)v[wi], a[wi], b[wi]);
}
/* float32 points where the erfinv / ndtri lanes were up to 7.6 / 6.5 ulp from float64
   (found by an exhaustive float32 sweep: float erf's error amplified near a = 1/2),
   32 copies each so the vector lanes take them: now within 2 ulp */
static void points(const char *name, un_fn f, const float *p, int np) {
    static float v[256];
    int64_t n = 32 * np;
    for (int i = 0; i < n; i++) v[i] = p[i % np];
    ct_tensor *x = ct_from_data_n(v, CT_FLOAT32, 1, &n);
    ct_tensor *r32 = ct_to(f(x), CT_FLOAT64), *r64 = f(ct_to(x, CT_FLOAT64));
    CT_T_REPORT(r32 && r64, "points %s: %s", name, ct_last_error());
    if (!r32 || !r64) return;
    const double *a = (const double *)ct_data_ptr(ct_contiguous(r32)), *b = (const double *)ct_data_ptr(ct_contiguous(r64));
    for (int i = 0; i < n; i++) {
        double e = ulp_err(a[i], (double)(float)b[i], 1.1920928955078125e-07, 1.1754943508222875e-38, 0);
        CT_T_REPORT(e <= 2, "points %s: %.3g ulp at x=%.9g (float32 %.9g, float64 %.17g)", name, e, (double)v[i], a[i], b[i]);
    }
}
TEST(test_float32_sweep) {
    {
        static const float ei[] = {0.501057923f, 0.521721244f, 0.500002325f, 0.500000775f, 0.802520454f, 0.275270432f, -0.501057923f};
        static const float nd[] = {0.239139393f, 0.239139363f, 0.751184583f, 0.158655688f, 0.501379311f, 0.969294250f};
        points("erfinv", ct_special_erfinv, ei, (int)(sizeof ei / sizeof ei[0]));
        points("ndtri", ct_special_ndtri, nd, (int)(sizeof nd / sizeof nd[0]));
    }
    /* zeta's lanes (x in (1, 8], q > 0) and the scalar form around them */
    sweep2("zeta", ct_special_zeta, 1.0, 9.0, 1e-30, 1e30, 1, 0, 4);
    sweep2("zeta q linear", ct_special_zeta, 1.0, 9.0, -3.5, 12.0, 0, 0, 4);
    sweep2("zeta x=1.0001 (broadcast)", ct_special_zeta, 1.0001, 1.0001, 1e-6, 1e6, 1, 1, 4);
    sweep2("zeta x=7.5 (broadcast)", ct_special_zeta, 7.5, 7.5, 1e-3, 40.0, 1, 1, 4);
    /* gammainc / gammaincc: the lanes (0 < a <= 100) and the scalar form around them,
       within 16 ulp (as the fixtures), or 1.2e-37 absolute (float32's subnormals) */
    sweep_abs_eps = 1e-30;
    sweep2("gammainc", ct_special_gammainc, 0.0, 120.0, 1e-20, 400.0, 1, 0, 16);
    sweep2("gammaincc", ct_special_gammaincc, 0.0, 120.0, 1e-20, 400.0, 1, 0, 16);
    sweep2("gammainc linear", ct_special_gammainc, 0.0, 12.0, 0.0, 12.0, 0, 0, 16);
    sweep2("gammaincc linear", ct_special_gammaincc, 0.0, 12.0, 0.0, 12.0, 0, 0, 16);
    sweep2("gammaincc a=0.25 (broadcast)", ct_special_gammaincc, 0.25, 0.25, 1e-10, 60.0, 1, 1, 16);
    sweep2("gammainc a=99 (broadcast)", ct_special_gammainc, 99.0, 99.0, 50.0, 160.0, 0, 1, 16);
    sweep2("gammaincc a=99 (broadcast)", ct_special_gammaincc, 99.0, 99.0, 50.0, 160.0, 0, 1, 16);
    sweep_abs_eps = 0;
    sweep("erfinv", ct_special_erfinv, -0.99999994, 0.99999994, 0);
    sweep("erfinv tail", ct_special_erfinv, 0.9, 0.99999994, 0);
    /* ndtri's lanes: AS241 in double, within an ulp */
    sweep_tol = 1;
    sweep("ndtri", ct_special_ndtri, 1e-40, 0.5, 1);
    sweep("ndtri upper", ct_special_ndtri, 0.5, 0.99999994, 0);
    sweep("ndtri central / tail", ct_special_ndtri, 0.07, 0.08, 0);
    sweep("ndtri far tail", ct_special_ndtri, 1e-12, 1e-10, 1);
    sweep_tol = 4;
    sweep("erfcx", ct_special_erfcx, -9.3, 40.0, 0);
    sweep("ndtr", ct_special_ndtr, -13.0, 8.0, 0);
    sweep("i0", ct_special_i0, -85.0, 85.0, 0);
    sweep("i0e", ct_special_i0e, -200.0, 200.0, 0);
    sweep("i1", ct_special_i1, -85.0, 85.0, 0);
    sweep("i1e", ct_special_i1e, -200.0, 200.0, 0);
    sweep("k0", ct_special_modified_bessel_k0, 1e-30, 85.0, 1);
    sweep("k1", ct_special_modified_bessel_k1, 1e-30, 85.0, 1);
    sweep("k0e", ct_special_scaled_modified_bessel_k0, 1e-30, 1e6, 1);
    sweep("k1e", ct_special_scaled_modified_bessel_k1, 1e-30, 1e6, 1);
    sweep("k0 linear", ct_special_modified_bessel_k0, 0.0, 12.0, 0);
    sweep("k1e linear", ct_special_scaled_modified_bessel_k1, 0.0, 12.0, 0);
    /* the K lanes' trapezoid (1 < x < 10: nodes from the sinh recurrence, one exp
       each) and the I lanes' Horner series (|x| < 10) */
    sweep("k0 trapezoid", ct_special_modified_bessel_k0, 1.0, 10.0, 0);
    sweep("k1 trapezoid", ct_special_modified_bessel_k1, 1.0, 10.0, 0);
    sweep("k0e trapezoid", ct_special_scaled_modified_bessel_k0, 1.0, 10.0, 0);
    sweep("k1e trapezoid", ct_special_scaled_modified_bessel_k1, 1.0, 10.0, 0);
    sweep("i0e series", ct_special_i0e, -10.0, 10.0, 0);
    sweep("i1e series", ct_special_i1e, -10.0, 10.0, 0);
    /* the lanes' pieces: i1e's 16 float ones below 10 (then Hankel), lgamma's and K1's
       double ones on [1, 11) (lgamma below 1 through lgamma(x + 1) - log x; K1 below 1
       the series, from 10 Hankel), across their ends */
    sweep("i1e pieces to Hankel", ct_special_i1e, 9.0, 11.0, 0);
    sweep("i1e small", ct_special_i1e, 1e-30, 1.0, 1);
    sweep("gammaln pieces", ct_special_gammaln, 0.0, 12.0, 0);
    sweep("gammaln pieces to Stirling", ct_special_gammaln, 10.5, 11.5, 0);
    sweep("gammaln below 1", ct_special_gammaln, 1e-30, 1.0, 1);
    sweep("k1 pieces", ct_special_modified_bessel_k1, 0.5, 11.0, 0);
    sweep("k1e pieces", ct_special_scaled_modified_bessel_k1, 0.5, 11.0, 0);
    /* J and Y (vector lanes: series below 10, Hankel from 10), spherical j0: within 4 ulp
       or 4 epsilon absolute (near their zeros) */
    sweep_abs_eps = 4;
    sweep("j0", ct_special_bessel_j0, -60.0, 60.0, 0);
    sweep("j1", ct_special_bessel_j1, -60.0, 60.0, 0);
    sweep("y0", ct_special_bessel_y0, 1e-20, 60.0, 1);
    sweep("y0 linear", ct_special_bessel_y0, 0.0, 60.0, 0);
    sweep("y1", ct_special_bessel_y1, 1e-20, 60.0, 1);
    sweep("y1 linear", ct_special_bessel_y1, 0.0, 60.0, 0);
    sweep("spherical_bessel_j0", ct_special_spherical_bessel_j0, -100.0, 100.0, 0);
    /* the sin-only lanes (d = k pi + r, one polynomial): sinc where rounding pi x to
       float (PyTorch's formula) costs under 2 ulp, spherical j0 across many k */
    sweep("sinc", ct_special_sinc, -0.75, 0.75, 0);
    sweep("spherical_bessel_j0 far", ct_special_spherical_bessel_j0, 100.0, 5e5, 1);
    sweep("airy_ai", ct_special_airy_ai, -30.0, 30.0, 0);
    sweep_abs_eps = 0;
    sweep("airy_ai right (no zeros: relative)", ct_special_airy_ai, -2.0, 30.0, 0);
    sweep("airy_ai right, log scale", ct_special_airy_ai, 1e-30, 30.0, 1);
    /* the float32 lanes of logit, log_ndtr, xlog1py and the gamma family (double
       lanes: the Taylor series about 2 near lgamma's zeros and digamma's root) */
    sweep("logit", logit_none, 1e-30, 0.5, 1);
    sweep("logit upper", logit_none, 0.5, 0.99999994, 0);
    sweep("logit eps", logit_eps, 0.0, 1.0, 0);
    /* (on (-1, 1) log_ndtr runs PyTorch's log1p(-erfc(x/sqrt 2)/2), up to 4.2 ulp from
       float64 there: the fixtures check it against PyTorch's) */
    sweep("log_ndtr left", ct_special_log_ndtr, -40.0, -1.0, 0);
    sweep("log_ndtr right", ct_special_log_ndtr, 1.0, 12.0, 0);
    sweep("log_ndtr left tail", log_ndtr_neg, 1.0, 1e17, 1);
    sweep("xlog1py", xlog1py_self, -0.99999, 1e3, 0);
    sweep("xlog1py small", xlog1py_self, 1e-30, 1.0, 1);
    sweep("gammaln", ct_special_gammaln, 1e-30, 1e20, 1);
    sweep("gammaln near its zeros", ct_special_gammaln, 0.4, 3.0, 0);
    sweep("gammaln linear", ct_special_gammaln, 0.0, 40.0, 0);
    sweep("digamma", ct_special_digamma, 1e-30, 1e20, 1);
    sweep("digamma near its root", ct_special_digamma, 1.3, 1.6, 0);
    sweep("digamma linear", ct_special_digamma, 0.0, 40.0, 0);
    sweep("polygamma1", polygamma1, 1e-20, 1e20, 1);
    sweep("polygamma1 linear", polygamma1, 0.0, 40.0, 0);
    sweep("multigammaln3", multigammaln3, 1.0001, 60.0, 0);
    {   /* lgamma's zeros exactly, in the lanes (32 elements) and the scalar form (3) */
        static float v[32];
        int64_t n = 32, n3 = 3;
        for (int i = 0; i < 32; i++) v[i] = (float)(1 + i % 2);
        ct_tensor *z = ct_special_gammaln(ct_from_data_n(v, CT_FLOAT32, 1, &n));
        ct_tensor *z3 = ct_special_gammaln(ct_from_data_n(v, CT_FLOAT32, 1, &n3));
        CT_T_REPORT(z && z3 && ct_item(ct_sum(ct_abs(z))) == 0.0 && ct_item(ct_sum(ct_abs(z3))) == 0.0,
                    "gammaln(1), gammaln(2) not 0 in float32");
    }
    /* the polynomials' lanes (recurrences in double lanes for n <= 256): within 4 ulp
       of float64, or 4 epsilon absolute near their zeros */
    sweep_abs_eps = 4;
#define POLY_SWEEP(f, lo, hi)                                 \
    sweep(#f " n=8", f##_8, lo, hi, 0);                       \
    sweep(#f " n=40", f##_40, lo, hi, 0);                     \
    sweep(#f " n=i%23", f##_var, lo, hi, 0);
    POLY_SWEEP(chebyshev_polynomial_t, -1.2, 1.2)
    POLY_SWEEP(chebyshev_polynomial_w, -1.0, 1.0)
    POLY_SWEEP(shifted_chebyshev_polynomial_u, -0.1, 1.1)
    POLY_SWEEP(hermite_polynomial_h, -8.0, 8.0)
    POLY_SWEEP(hermite_polynomial_he, -8.0, 8.0)
    POLY_SWEEP(laguerre_polynomial_l, -2.0, 30.0)
    POLY_SWEEP(legendre_polynomial_p, -1.1, 1.1)
#undef POLY_SWEEP
    sweep_abs_eps = 0;
}

/* The lanes of ndtr (one exp: erfc's fit with its constant kept out of the rounding),
   logit (one division) and digamma (the polynomial pieces on [1, 11), below 1 through
   digamma(x + 1) - 1/x): every k-th float32 of a range (k such that about 2^20
   points are taken; k = 1 exhaustive) against float64, within 4 ulp, in blocks of
   2^16 elements (the lanes take all but a block's last few). Exhaustive runs by a
   standalone harness (every float of [-16, 9] for ndtr in steps of 3, of [2^-126, 1)
   for logit, of [0, 10) for digamma) found 3.7, 2.0 and 1.0 ulp. */
static void dense(const char *name, un_fn f, float lo, float hi, int k, double tol) {
    enum { B = 1 << 16 };
    static float v[B];
    double worst = 0, wx = 0, w32 = 0, w64 = 0;
    float cur = lo;
    int64_t total = 0;
    while (cur < hi) {
        int64_t n = 0;
        for (; n < B && cur < hi; n++) {
            v[n] = cur;
            for (int j = 0; j < k; j++) cur = nextafterf(cur, INFINITY);
        }
        ct_tensor *x = ct_from_data_n(v, CT_FLOAT32, 1, &n);
        ct_tensor *r32 = ct_to(f(x), CT_FLOAT64), *r64 = f(ct_to(x, CT_FLOAT64));
        CT_T_REPORT(r32 && r64, "dense %s: %s", name, ct_last_error());
        if (!r32 || !r64) return;
        const double *a = (const double *)ct_data_ptr(ct_contiguous(r32)), *b = (const double *)ct_data_ptr(ct_contiguous(r64));
        for (int64_t i = 0; i < n; i++) {
            double e = ulp_err(a[i], (double)(float)b[i], 1.1920928955078125e-07, 1.1754943508222875e-38, 0);
            if (e > worst) { worst = e; wx = v[i]; w32 = a[i]; w64 = b[i]; }
        }
        total += n;
    }
    if (verbose) printf("dense %-28s worst %.3g ulp at x=%.9g (%lld points)\n", name, worst, wx, (long long)total);
    CT_T_REPORT(worst <= tol, "dense %s: %.3g ulp at x=%.9g (float32 %.9g, float64 %.17g)", name, worst, wx, w32, w64);
}
/* f at special points in float32, 32 copies each (the lanes and the scalar tail take
   them): NaN and infinities as PyTorch 1.13's float32 results (/usr/bin/python3),
   finite values within 4 ulp of float64 (where PyTorch's float formula underflows,
   ndtr's left tail, the float64 value) */
static void specials(const char *name, un_fn f, const float *p, const float *want, int np) {
    static float v[32 * 16];
    int64_t n = 32 * np;
    for (int64_t i = 0; i < n; i++) v[i] = p[i % np];
    ct_tensor *x = ct_from_data_n(v, CT_FLOAT32, 1, &n);
    ct_tensor *r32 = ct_to(f(x), CT_FLOAT64), *r64 = f(ct_to(x, CT_FLOAT64));
    CT_T_REPORT(r32 && r64, "specials %s: %s", name, ct_last_error());
    if (!r32 || !r64) return;
    const double *a = (const double *)ct_data_ptr(ct_contiguous(r32)), *b = (const double *)ct_data_ptr(ct_contiguous(r64));
    for (int64_t i = 0; i < n; i++) {
        double w = want[i % np];
        double e = isfinite(w) ? ulp_err(a[i], (double)(float)b[i], 1.1920928955078125e-07, 1.1754943508222875e-38, 0) : ulp_err(a[i], w, 1, 1, 0);
        int ok = e <= 4 && (!isinf(w) || a[i] == w) && (isnan(w) == isnan(a[i])) && (w != 0 || a[i] == 0);
        CT_T_REPORT(ok, "specials %s: x=%.9g (element %lld): %.9g, want %.9g (float64 %.17g)", name, (double)v[i], (long long)i, a[i], w, b[i]);
    }
}
TEST(test_lanes_dense) {
    dense("ndtr", ct_special_ndtr, -14.5f, 9.0f, 2048, 4);
    dense("ndtr near -1", ct_special_ndtr, -1.3f, -0.6f, 12, 4);
    dense("ndtr left tail", ct_special_ndtr, -13.2f, -8.0f, 8, 4);
    dense("logit", logit_none, 1.17549435e-38f, 1.0f, 1024, 4);
    dense("logit near 1/2", logit_none, 0.35f, 0.65f, 6, 4);
    dense("logit near 1", logit_none, 0.99f, 1.0f, 1, 4);
    dense("logit eps", logit_eps, 0.0f, 1.0f, 1024, 4);
    dense("digamma", ct_special_digamma, 1e-30f, 12.0f, 1024, 4);
    dense("digamma near its root", ct_special_digamma, 1.40f, 1.52f, 1, 4);
    dense("digamma below 1", ct_special_digamma, 0.5f, 1.0f, 8, 4);
    dense("digamma pieces to Stirling", ct_special_digamma, 10.5f, 11.5f, 4, 4);
    dense("polygamma0", polygamma0, 0.25f, 11.0f, 64, 4);
    {
        static const float nx[16] = {INFINITY, -INFINITY, NAN, -20.0f, -1e30f, 1e30f, 0.0f, -0.0f, -13.5f, -14.2f, 6.0f, -37.5f, 0.5f, -0.5f, 8.5f, -9.5f};
        static const float nw[16] = {1.0f, 0.0f, NAN, 0.0f, 0.0f, 1.0f, 0.5f, 0.5f, 1.0f, 1.0f, 1.0f, 0.0f, 0.5f, 0.5f, 1.0f, 1.0f};   /* (1.0: finite, float64's) */
        specials("ndtr", ct_special_ndtr, nx, nw, 16);
        static const float lx[16] = {0.0f, -0.0f, 1.0f, -0.5f, 1.5f, NAN, INFINITY, -INFINITY, 0.5f, 1e-45f, 0.99999994f, 5.96e-8f, 0.25f, 0.75f, 2.0f, 1e-38f};
        static const float lw[16] = {-INFINITY, -INFINITY, INFINITY, NAN, NAN, NAN, NAN, NAN, 0.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, NAN, 1.0f};
        specials("logit", logit_none, lx, lw, 16);
        static const float dx[16] = {0.0f, -0.0f, -1.0f, -2.0f, -2.5f, NAN, INFINITY, -INFINITY, 1e-45f, 1.0f, 2.0f, 1.4616321f, 10.0f, 11.0f, 1e30f, -1e30f};
        static const float dw[16] = {-INFINITY, INFINITY, NAN, NAN, 1.0f, NAN, INFINITY, NAN, -INFINITY, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, NAN};
        specials("digamma", ct_special_digamma, dx, dw, 16);
    }
}

/* J0, J1, Y0, Y1 far out (x from 10 to 3e38, float32 values so both dtypes take the same
   x) against mpmath (80 digits): within 4 epsilon absolute below 25 (as the
   fixtures), 4 epsilon of the amplitude sqrt(2/(pi x)) beyond, float32 and float64. (PyTorch 1.13's rational approximations lose
   everything far out: 3e15 float64 epsilons at x = 1e30; its float32 1.5e7.) */
TEST(test_bessel_far) {
    static const double t[][5] = {
        {10.5, -0.23664819446234714, -0.078850014227331483, -0.067530372497876398, 0.23370422835726859},
        {25.25, 0.1241420860363391, -0.096539209719481392, -0.098977151556072493, -0.12612554501532683},
        {99.75, 0.00025405750257090191, -0.079887203353892572, -0.079887473345442592, -0.0006544890986904928},
        {1000.5, 0.019486559987130139, 0.016027715373203338, 0.016017974964604328, -0.019478557437521776},
        {10000, -0.0070961603533888015, 0.0036474507555295803, 0.0036478055589866058, 0.0070963427525364952},
        {123456.75, -0.0015851993543475626, -0.0016259722373682638, -0.0016259658172954573, 0.0015851927691968631},
        {10000000, -8.6837348641917022e-05, 0.00023689924031205785, 0.00023689924465392499, 8.6837360486879356e-05},
        {3300000000, 1.2244010148466633e-05, 6.557385000456106e-06, 6.557384998600953e-06, -1.2244010147473089e-05},
        {999999986991104, 1.9621668433863393e-08, 1.5862216381099806e-08, 1.5862216381099796e-08, -1.9621668433863387e-08},
        {9.9999997781963084e+21, -3.1041823054025272e-13, -7.9728049750983236e-12, -7.9728049750983236e-12, 3.1041823054025272e-13},
        {1.0000000150474662e+30, -7.9142721412417964e-16, -1.0130512095499822e-16, -1.0130512095499822e-16, 7.9142721412417964e-16},
        {3.0000000054977558e+38, 1.2723538528194067e-20, 4.4273891531292258e-20, 4.4273891531292258e-20, -1.2723538528194067e-20},
    };
    enum { N = sizeof t / sizeof t[0] };
    static const un_fn fn[4] = {ct_special_bessel_j0, ct_special_bessel_j1, ct_special_bessel_y0, ct_special_bessel_y1};
    static const char *nm[4] = {"j0", "j1", "y0", "y1"};
    double xv[2 * N];
    for (int i = 0; i < N; i++) xv[i] = xv[N + i] = t[i][0];   /* 2N: the float32 lanes see 16 or more elements */
    for (int k = 0; k < 4; k++)
        for (int f64 = 0; f64 < 2; f64++) {
            int64_t nx = 2 * N;
            ct_tensor *x = ct_to(ct_from_data_n(xv, CT_FLOAT64, 1, &nx), f64 ? CT_FLOAT64 : CT_FLOAT32);
            ct_tensor *r = ct_contiguous(ct_to(fn[k](x), CT_FLOAT64));
            CT_T_REPORT(r != NULL, "%s far: %s", nm[k], ct_last_error());
            if (!r) continue;
            const double *v = (const double *)ct_data_ptr(r);
            for (int i = 0; i < 2 * N; i++) {
                const double *w = t[i % N];
                double amp = w[0] < 25 ? 1.0 : sqrt(2.0 / (3.14159265358979323846 * w[0]));   /* absolute below 25, as the fixtures */
                double e = fabs(v[i] - w[1 + k]) / amp / (f64 ? 2.220446049250313e-16 : 1.1920928955078125e-07);
                CT_T_REPORT(e <= 4, "%s(%.17g) %s: %.17g, exact %.17g (%.3g epsilon of the amplitude)", nm[k], w[0], f64 ? "float64" : "float32", v[i], w[1 + k], e);
            }
        }
}

/* ---- gradients ---- */
static ct_tensor *call_u(ct_tensor *const *in, void *user) { return ((un_fn)(uintptr_t)user)(in[0]); }
static ct_tensor *call_b(ct_tensor *const *in, void *user) { return ((bin_fn)(uintptr_t)user)(in[0], in[1]); }
static ct_tensor *vec(const double *v, int64_t n) { return ct_from_data_n(v, CT_FLOAT64, 1, &n); }
#define GC_U(fn, ...)                                                                                    \
    do {                                                                                                 \
        static const double v_[] = {__VA_ARGS__};                                                        \
        ct_tensor *in_[1];                                                                               \
        in_[0] = ct_requires_grad(vec(v_, (int64_t)(sizeof v_ / sizeof v_[0])));                        \
        int ok_ = ct_gradcheck(call_u, (void *)(uintptr_t)(fn), 1, in_, NULL);                           \
        CT_T_REPORT(ok_ == 1, "gradcheck %s: %s", #fn, ct_last_error());                                 \
    } while (0)
static ct_tensor *ggc_gammaln(ct_tensor *const *in, void *u) { (void)u; return ct_special_gammaln(in[0]); }
static ct_tensor *ggc_erfcx(ct_tensor *const *in, void *u) { (void)u; return ct_special_erfcx(in[0]); }

TEST(test_gradcheck) {
    GC_U(ct_special_erfinv, -0.9, -0.3, 0.0, 0.2, 0.7, 0.95);
    GC_U(ct_special_erfcx, -3.0, -0.5, 0.0, 0.4, 2.0, 30.0);
    GC_U(ct_special_ndtr, -9.0, -1.5, 0.0, 0.7, 3.0);
    GC_U(ct_special_ndtri, 0.01, 0.2, 0.5, 0.8, 0.99);
    GC_U(ct_special_log_ndtr, -20.0, -2.0, -0.5, 0.0, 1.0, 5.0);
    GC_U(logit_none, 0.1, 0.3, 0.5, 0.9);
    GC_U(logit_eps, 0.001, 0.3, 0.5, 0.995);
    GC_U(ct_special_entr, 0.01, 0.5, 1.0, 3.0);
    GC_U(ct_special_sinc, -2.5, -0.3, 0.0, 0.4, 1.5, 7.2);
    GC_U(ct_special_gammaln, -2.5, -0.5, 0.3, 1.0, 4.5, 30.0);
    GC_U(ct_special_digamma, -2.5, -0.5, 0.3, 1.0, 4.5, 30.0);
    GC_U(polygamma2, -1.5, 0.3, 1.0, 4.5, 12.0);
    GC_U(multigammaln3, 1.2, 2.0, 5.5);
    GC_U(ct_special_i0, -3.0, -0.2, 0.0, 1.0, 8.0, 22.0);
    GC_U(ct_special_i0e, -3.0, -0.2, 0.5, 8.0, 22.0);
    GC_U(ct_special_i1, -3.0, -0.2, 0.0, 1.0, 8.0, 22.0);
    GC_U(ct_special_i1e, -3.0, -0.2, 0.0, 1.0, 8.0, 22.0);
    {   /* xlog1py: both inputs */
        static const double a[] = {0.5, -1.5, 2.0, 3.0}, b[] = {0.2, 4.0, -0.5, 10.0};
        ct_tensor *in[2];
        in[0] = ct_requires_grad(vec(a, 4));
        in[1] = ct_requires_grad(vec(b, 4));
        CT_T_REPORT(ct_gradcheck(call_b, (void *)(uintptr_t)ct_special_xlog1py, 2, in, NULL) == 1, "gradcheck xlog1py: %s", ct_last_error());
    }
    {   /* zeta, gammainc, gammaincc: the second input */
        static const double a[] = {2.0, 3.5, 1.5, 4.0}, b[] = {0.5, 2.0, 3.0, 1.2};
        bin_fn fns[3] = {ct_special_zeta, ct_special_gammainc, ct_special_gammaincc};
        for (int k = 0; k < 3; k++) {
            ct_tensor *in[2];
            in[0] = vec(a, 4);
            in[1] = ct_requires_grad(vec(b, 4));
            CT_T_REPORT(ct_gradcheck(call_b, (void *)(uintptr_t)fns[k], 2, in, NULL) == 1, "gradcheck binary %d: %s", k, ct_last_error());
        }
    }
    {   /* second order: gammaln -> digamma -> polygamma(1), erfcx's rule through itself */
        static const double v[] = {0.7, 2.5, 6.0};
        ct_tensor *in[1];
        in[0] = ct_requires_grad(vec(v, 3));
        CT_T_REPORT(ct_gradgradcheck(ggc_gammaln, NULL, 1, in, NULL) == 1, "gradgradcheck gammaln: %s", ct_last_error());
        CT_T_REPORT(ct_gradgradcheck(ggc_erfcx, NULL, 1, in, NULL) == 1, "gradgradcheck erfcx: %s", ct_last_error());
    }
}

/* PyTorch: the Bessel functions and the polynomials give results that do not
   require grad; zeta and gammainc/gammaincc have no derivative in the first input */
static const struct { const char *name; un_fn u; bin_fn b; } nondiff[] = {
    {"bessel_j0", ct_special_bessel_j0, NULL}, {"bessel_j1", ct_special_bessel_j1, NULL},
    {"bessel_y0", ct_special_bessel_y0, NULL}, {"bessel_y1", ct_special_bessel_y1, NULL},
    {"modified_bessel_i0", ct_special_modified_bessel_i0, NULL}, {"modified_bessel_i1", ct_special_modified_bessel_i1, NULL},
    {"modified_bessel_k0", ct_special_modified_bessel_k0, NULL}, {"modified_bessel_k1", ct_special_modified_bessel_k1, NULL},
    {"scaled_modified_bessel_k0", ct_special_scaled_modified_bessel_k0, NULL},
    {"scaled_modified_bessel_k1", ct_special_scaled_modified_bessel_k1, NULL},
    {"spherical_bessel_j0", ct_special_spherical_bessel_j0, NULL}, {"airy_ai", ct_special_airy_ai, NULL},
    {"chebyshev_polynomial_t", NULL, ct_special_chebyshev_polynomial_t}, {"chebyshev_polynomial_u", NULL, ct_special_chebyshev_polynomial_u},
    {"chebyshev_polynomial_v", NULL, ct_special_chebyshev_polynomial_v}, {"chebyshev_polynomial_w", NULL, ct_special_chebyshev_polynomial_w},
    {"shifted_chebyshev_polynomial_t", NULL, ct_special_shifted_chebyshev_polynomial_t},
    {"shifted_chebyshev_polynomial_u", NULL, ct_special_shifted_chebyshev_polynomial_u},
    {"shifted_chebyshev_polynomial_v", NULL, ct_special_shifted_chebyshev_polynomial_v},
    {"shifted_chebyshev_polynomial_w", NULL, ct_special_shifted_chebyshev_polynomial_w},
    {"hermite_polynomial_h", NULL, ct_special_hermite_polynomial_h}, {"hermite_polynomial_he", NULL, ct_special_hermite_polynomial_he},
    {"laguerre_polynomial_l", NULL, ct_special_laguerre_polynomial_l}, {"legendre_polynomial_p", NULL, ct_special_legendre_polynomial_p},
};
TEST(test_no_gradient) {
    static const double v[] = {0.3, 0.6, 2.0};
    for (size_t k = 0; k < sizeof nondiff / sizeof nondiff[0]; k++) {
        ct_tensor *x = ct_requires_grad(vec(v, 3));
        ct_tensor *y = nondiff[k].u ? nondiff[k].u(x) : nondiff[k].b(x, ct_full_like(x, 3.0));
        CT_T_REPORT(y && !ct_get_requires_grad(y), "%s: the result must not require grad", nondiff[k].name);
        CHECK_ERR(ct_backward(ct_sum(y)) == CT_OK, CT_ERR_AUTOGRAD, "does not require grad");
    }
    {
        ct_tensor *x = ct_requires_grad(vec(v, 3)), *q = vec(v, 3);
        CHECK_ERR(ct_backward(ct_sum(ct_special_zeta(ct_add_scalar(x, 2.0), q))) == CT_OK, CT_ERR_AUTOGRAD,
                  "the derivative for 'zeta' is not implemented.");
        CHECK_ERR(ct_backward(ct_sum(ct_special_gammainc(x, q))) == CT_OK, CT_ERR_AUTOGRAD,
                  "the derivative for 'igamma: input' is not implemented.");
        CHECK_ERR(ct_backward(ct_sum(ct_special_gammaincc(x, q))) == CT_OK, CT_ERR_AUTOGRAD,
                  "the derivative for 'igammac: input' is not implemented.");
    }
}

/* the aliases give the core ops' results; dtypes promote as in PyTorch */
TEST(test_aliases_and_dtypes) {
    static const double v[] = {-1.5, -0.2, 0.0, 0.5, 2.5, 3.5};
    ct_tensor *x = vec(v, 6), *y = ct_add_scalar(ct_abs(x), 0.5);
    int64_t d0 = 0;
    CHECK(ct_equal(ct_special_erf(x), ct_erf(x)) == 1);
    CHECK(ct_equal(ct_special_erfc(x), ct_erfc(x)) == 1);
    CHECK(ct_equal(ct_special_expit(x), ct_sigmoid(x)) == 1);
    CHECK(ct_equal(ct_special_exp2(x), ct_exp2(x)) == 1);
    CHECK(ct_equal(ct_special_expm1(x), ct_expm1(x)) == 1);
    CHECK(ct_equal(ct_special_log1p(y), ct_log1p(y)) == 1);
    CHECK(ct_equal(ct_special_xlogy(x, y), ct_xlogy(x, y)) == 1);
    CHECK(ct_equal(ct_special_round(x), ct_round(x)) == 1);
    CHECK(ct_equal(ct_special_logsumexp(x, 1, &d0, 0), ct_logsumexp(x, 1, &d0, 0)) == 1);
    CHECK(ct_equal(ct_special_softmax(x, 0), ct_softmax(x, 0)) == 1);
    CHECK(ct_equal(ct_special_log_softmax(x, 0), ct_log_softmax(x, 0)) == 1);
    CHECK(ct_equal(ct_special_psi(y), ct_special_digamma(y)) == 1);
    CHECK(ct_equal(ct_special_modified_bessel_i0(x), ct_special_i0(x)) == 1);
    /* integers compute in the default dtype; float64 wins a binary promotion; broadcasting */
    ct_tensor *xi = ct_arange(0, 4, 1, CT_INT64);
    ct_tensor *r = ct_special_i0e(xi);
    CHECK(r && ct_get_dtype(r) == CT_FLOAT32);
    r = ct_special_xlog1py(xi, ct_scalar_tensor(0.5, CT_FLOAT64));
    CHECK(r && ct_get_dtype(r) == CT_FLOAT64 && ct_numel(r) == 4);
    r = ct_special_chebyshev_polynomial_t(ct_unsqueeze(ct_linspace(-1, 1, 3, CT_FLOAT32), 1), ct_arange(0, 4, 1, CT_INT64));
    CHECK(r && ct_get_dtype(r) == CT_FLOAT32 && ct_ndim(r) == 2 && ct_size(r, 0) == 3 && ct_size(r, 1) == 4);
    /* strided inputs go through the iterator */
    ct_tensor *m = ct_reshape(ct_linspace(0.1, 2.4, 24, CT_FLOAT64), 4, 6);
    CHECK(ct_allclose(ct_special_i1(ct_t(m)), ct_contiguous(ct_t(ct_special_i1(m))), 0, 0) == 1);
}

/* complex inputs (PyTorch 1.13 on CPU): sinc and expit take complex64 and complex128
   (values and conjugate Wirtinger gradients below: PyTorch's, complex128); every other
   function refuses them with an error naming the function and the dtype */
static ct_tensor *sx_softmax0(const ct_tensor *x) { return ct_special_softmax(x, 0); }
static ct_tensor *sx_log_softmax0(const ct_tensor *x) { return ct_special_log_softmax(x, 0); }
static ct_tensor *sx_logsumexp0(const ct_tensor *x) { int64_t d = 0; return ct_special_logsumexp(x, 1, &d, 0); }
static ct_tensor *sx_polygamma0(const ct_tensor *x) { return ct_special_polygamma(0, x); }
static ct_tensor *sx_multigammaln1(const ct_tensor *x) { return ct_special_multigammaln(x, 1); }
/* the largest deviation of complex tensor a from the (re, im) pairs w, relative to |w| (floored at 1) */
static double cx_dev(ct_tensor *a, const double (*w)[2], int n, int skip_mask) {
    ct_tensor *r = ct_contiguous(ct_to(ct_view_as_real(ct_resolve_conj(a)), CT_FLOAT64));
    if (!r) return INFINITY;
    const double *v = (const double *)ct_data_ptr(r);
    double worst = 0;
    for (int i = 0; i < n; i++) {
        if (skip_mask >> i & 1) continue;
        double m = hypot(w[i][0], w[i][1]), d = hypot(v[2 * i] - w[i][0], v[2 * i + 1] - w[i][1]) / (m > 1 ? m : 1);
        if (!(d <= worst)) worst = d;
    }
    return worst;
}
TEST(test_complex) {
    enum { N = 8 };
    static const double zr[N] = {0, 1e-20, 0, 0.5, 3, -2.25, 1e-4, 4}, zi[N] = {0, 0, 1, 0.5, 0, 0.75, -2e-4, -3};
    static const double gr[N] = {1, 1 + 1.0 / 7, 1 + 2.0 / 7, 1 + 3.0 / 7, 1 + 4.0 / 7, 1 + 5.0 / 7, 1 + 6.0 / 7, 2};
    /* torch.special.sinc(z) and z.grad after backward(g), g = linspace(1, 2, 8) (1 - 0.5i), complex128 */
    static const double sinc_w[N][2] = {{1.0, 0.0}, {1.0, 0.0}, {3.676077910374978, 0.0}, {0.7986963159564631, -0.7986963159564631},
        {3.898171832519375e-17, 0.0}, {0.6361103415139359, -0.3109441555174321}, {1.0000000493480212, 6.579736468508119e-08},
        {236.6630386608075, -315.55071821441027}};
    static const double sinc_g[N][2] = {{0.0, 0.0}, {0.0, 0.0}, {5.088777020451348, 10.177554040902695}, {-2.7847796673001577, 2.6493653164971662},
        {-0.5238095238095237, 0.26190476190476186}, {0.5028770041846238, 4.077327059026796}, {-0.0012219510928703511, -0.000916463246908027},
        {1065.6118938436966, -2446.7745059018002}};
    static const double expit_w[N][2] = {{0.5, 0.0}, {0.5, 0.0}, {0.5, 0.27315124492189524}, {0.6299354402427704, 0.11954505781459564},
        {0.9525741268224334, 0.0}, {0.07570995563235168, 0.061650429247949716}, {0.5000250000002292, -5.000000004166667e-05},
        {1.0184601410500926, -0.0026810304610015282}};
    static const double expit_g[N][2] = {{0.25, -0.125}, {0.2857142857142857, -0.14285714285714285}, {0.4173577747744901, -0.20867888738724505},
        {0.3756299170468563, -0.13233945953776055}, {0.07099189386286171, -0.035495946931430856}, {0.08163612054181428, -0.1529223318176092},
        {0.46428571544642855, -0.23214286352678576}, {-0.04036747472863916, 0.013233700209467347}};
    int64_t n = N;
    for (int f64 = 0; f64 < 2; f64++) {
        ct_dtype rt = f64 ? CT_FLOAT64 : CT_FLOAT32, ct = f64 ? CT_COMPLEX128 : CT_COMPLEX64;
        double tol = f64 ? 1e-13 : 4e-6;
        /* complex64: PyTorch's own float sin(pi z)/(pi z) cancels at z = 3, 1e-20 (its gradient NaN) and
           1e-4 - 2e-4i; there the check is against the complex128 values with float32's tolerance, and the
           gradient at the tiny points is left out */
        int gskip = f64 ? 0 : (1 << 1) | (1 << 6);
        for (int fn = 0; fn < 2; fn++) {
            ct_tensor *z = ct_requires_grad(ct_complex(ct_to(vec(zr, N), rt), ct_to(vec(zi, N), rt)));
            ct_tensor *g = ct_complex(ct_to(vec(gr, N), rt), ct_to(ct_mul_scalar(vec(gr, N), -0.5), rt));
            ct_tensor *y = fn ? ct_special_expit(z) : ct_special_sinc(z);
            CT_T_REPORT(y && ct_get_dtype(y) == ct, "%s complex: %s", fn ? "expit" : "sinc", ct_last_error());
            if (!y) continue;
            double dv = cx_dev(y, fn ? expit_w : sinc_w, N, 0);
            CT_T_REPORT(dv <= (f64 ? tol : (fn ? tol : 1e-6)), "%s %s values: %.3g from PyTorch's", fn ? "expit" : "sinc", ct_dtype_name(ct), dv);
            CT_T_REPORT(ct_backward_ex(1, &y, &g, NULL) == CT_OK, "%s backward: %s", fn ? "expit" : "sinc", ct_last_error());
            double dg = cx_dev(ct_grad(z), fn ? expit_g : sinc_g, N, fn ? 0 : gskip);
            CT_T_REPORT(dg <= (f64 ? 1e-12 : 1e-5), "%s %s gradient: %.3g from PyTorch's", fn ? "expit" : "sinc", ct_dtype_name(ct), dg);
        }
        /* the lazy conjugate bit: sinc(conj(z)) = conj(sinc(z)) */
        ct_tensor *z = ct_complex(ct_to(vec(zr, N), rt), ct_to(vec(zi, N), rt));
        CHECK(ct_allclose(ct_special_sinc(ct_conj(z)), ct_resolve_conj(ct_conj(ct_special_sinc(z))), 1e-6, 1e-6) == 1);
        (void)n;
    }
    {   /* gradcheck with complex128 inputs (real and imaginary parts perturbed) */
        static const double a[] = {0.3, -1.2, 2.5, 0.0}, b[] = {0.4, 0.1, -0.7, 0.9};
        ct_tensor *in[1];
        in[0] = ct_requires_grad(ct_complex(vec(a, 4), vec(b, 4)));
        CT_T_REPORT(ct_gradcheck(call_u, (void *)(uintptr_t)ct_special_sinc, 1, in, NULL) == 1, "gradcheck complex sinc: %s", ct_last_error());
        in[0] = ct_requires_grad(ct_complex(vec(a, 4), vec(b, 4)));
        CT_T_REPORT(ct_gradcheck(call_u, (void *)(uintptr_t)ct_special_expit, 1, in, NULL) == 1, "gradcheck complex expit: %s", ct_last_error());
    }
    /* the refusals */
    static const struct { const char *name; un_fn u; bin_fn b; } refuse[] = {
        {"erf", ct_special_erf, NULL}, {"erfc", ct_special_erfc, NULL}, {"exp2", ct_special_exp2, NULL},
        {"expm1", ct_special_expm1, NULL}, {"log1p", ct_special_log1p, NULL}, {"round", ct_special_round, NULL},
        {"xlogy", NULL, ct_special_xlogy}, {"softmax", sx_softmax0, NULL}, {"log_softmax", sx_log_softmax0, NULL},
        {"logsumexp", sx_logsumexp0, NULL}, {"psi", ct_special_psi, NULL}, {"polygamma0", sx_polygamma0, NULL},
        {"multigammaln1", sx_multigammaln1, NULL},
    };
    ct_tensor *c64 = ct_complex(ct_ones(CT_FLOAT32, 3), ct_ones(CT_FLOAT32, 3)), *c128 = ct_to(c64, CT_COMPLEX128);
    for (int k = 0; k < 2; k++) {
        ct_tensor *c = k ? c128 : c64;
        const char *want = k ? "not implemented for 'ComplexDouble'" : "not implemented for 'ComplexFloat'";
        for (size_t j = 0; j < sizeof cases / sizeof cases[0]; j++) {
            if (!strcmp(cases[j].name, "sinc")) continue;
            ct_tensor *r = cases[j].b ? cases[j].b(c, c) : cases[j].u(c);
            CT_T_REPORT(r == NULL && strstr(ct_last_error(), want), "%s(%s): not refused (%s)", cases[j].name, ct_dtype_name(ct_get_dtype(c)), ct_last_error());
        }
        for (size_t j = 0; j < sizeof refuse / sizeof refuse[0]; j++) {
            ct_tensor *r = refuse[j].b ? refuse[j].b(c, c) : refuse[j].u(c);
            CT_T_REPORT(r == NULL && strstr(ct_last_error(), want), "%s(%s): not refused (%s)", refuse[j].name, ct_dtype_name(ct_get_dtype(c)), ct_last_error());
        }
    }
}

/* every public function refuses bad input with a message naming it */
TEST(test_bad_input) {
    ct_tensor *h = ct_to(ct_ones(CT_FLOAT32, 3), CT_FLOAT16), *f = ct_ones(CT_FLOAT32, 3);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const sp_case *c = &cases[k];
        CHECK_ERR(c->b ? c->b(h, h) : c->u(h), CT_ERR_DTYPE, "not implemented for 'Half'");
        if (c->b) CHECK_ERR(c->b(f, ct_ones(CT_FLOAT32, 4)), CT_ERR_SHAPE, "must match the size");
    }
    for (size_t k = 0; k < sizeof nondiff / sizeof nondiff[0]; k++)
        CHECK_ERR(nondiff[k].u ? nondiff[k].u(NULL) : nondiff[k].b(f, NULL), CT_ERR_NULL, "is NULL");
    CHECK_ERR(ct_special_psi(h), CT_ERR_DTYPE, "digamma: not implemented for 'Half'");
    CHECK_ERR(ct_special_polygamma(-1, f), CT_ERR_ARG, "polygamma(n, x) does not support negative n (n=-1)");
    CHECK_ERR(ct_special_multigammaln(f, 0), CT_ERR_ARG, "p has to be greater than or equal to 1 (p=0)");
    CHECK_ERR(ct_special_multigammaln(f, 3), CT_ERR_ARG, "All elements must be greater than (p-1)/2 (p=3)");
    CHECK_ERR(ct_special_erf(NULL), CT_ERR_NULL, "erf: argument 0 is NULL");
    CHECK_ERR(ct_special_erfc(NULL), CT_ERR_NULL, "erfc: argument 0 is NULL");
    CHECK_ERR(ct_special_expit(NULL), CT_ERR_NULL, "sigmoid: argument 0 is NULL");
    CHECK_ERR(ct_special_exp2(NULL), CT_ERR_NULL, "exp2: argument 0 is NULL");
    CHECK_ERR(ct_special_expm1(NULL), CT_ERR_NULL, "expm1: argument 0 is NULL");
    CHECK_ERR(ct_special_log1p(NULL), CT_ERR_NULL, "log1p: argument 0 is NULL");
    CHECK_ERR(ct_special_round(ct_ones(CT_BOOL, 2)), CT_ERR_DTYPE, "round");
    CHECK_ERR(ct_special_xlogy(f, ct_ones(CT_FLOAT32, 4)), CT_ERR_SHAPE, "must match the size");
    int64_t bad = 3;
    CHECK_ERR(ct_special_logsumexp(f, 1, &bad, 0), CT_ERR_INDEX, "out of range");
    CHECK_ERR(ct_special_softmax(f, 2), CT_ERR_INDEX, "out of range");
    CHECK_ERR(ct_special_log_softmax(f, -3), CT_ERR_INDEX, "out of range");
    CHECK_ERR(ct_special_logit(h, 0.1), CT_ERR_DTYPE, "logit: not implemented for 'Half'");
    CHECK_ERR(ct_special_gammaln(NULL), CT_ERR_NULL, "lgamma: argument 0 is NULL");
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "tests/fixtures/special/special.safetensors";
    ct_t_init();
    verbose = getenv("CT_SPECIAL_VERBOSE") != NULL;
    fx = ct_safetensors_load(path);
    CT_T_REPORT(fx != NULL, "cannot load %s: %s", path, ct_last_error());
    if (fx) RUN(test_fixtures);
    RUN(test_float32_sweep);
    RUN(test_lanes_dense);
    RUN(test_bessel_far);
    RUN(test_gradcheck);
    RUN(test_no_gradient);
    RUN(test_aliases_and_dtypes);
    RUN(test_complex);
    RUN(test_bad_input);
    ct_safetensors_free(fx);
    return ct_t_summary();
}
