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

typedef ct_tensor *(*un_fn)(const ct_tensor *);
typedef ct_tensor *(*bin_fn)(const ct_tensor *, const ct_tensor *);

static ct_tensor *logit_none(const ct_tensor *x) { return ct_special_logit(x, NAN); }
static ct_tensor *logit_eps(const ct_tensor *x) { return ct_special_logit(x, 0.01); }
static ct_tensor *polygamma1(const ct_tensor *x) { return ct_special_polygamma(1, x); }
static ct_tensor *polygamma2(const ct_tensor *x) { return ct_special_polygamma(2, x); }
static ct_tensor *polygamma3(const ct_tensor *x) { return ct_special_polygamma(3, x); }
static ct_tensor *polygamma5(const ct_tensor *x) { return ct_special_polygamma(5, x); }
static ct_tensor *multigammaln3(const ct_tensor *x) { return ct_special_multigammaln(x, 3); }

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
    CT_T_REPORT(got->dtype == x->dtype, "%s.%s: dtype %s", c->name, tag, ct_dtype_name(got->dtype));
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

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "tests/fixtures/special/special.safetensors";
    ct_t_init();
    verbose = getenv("CT_SPECIAL_VERBOSE") != NULL;
    fx = ct_safetensors_load(path);
    CT_T_REPORT(fx != NULL, "cannot load %s: %s", path, ct_last_error());
    if (fx) RUN(test_fixtures);
    ct_safetensors_free(fx);
    return ct_t_summary();
}
