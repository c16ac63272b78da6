/* Conformance handlers: torch.special (ctensor_special.h), and the torch.* names
   of the same functions that no other family handles (torch.lgamma, torch.mvlgamma,
   torch.igamma, ...). Inputs follow PyTorch's signatures: a second operand is in1,
   or a number in args ("other" for the second, "self" / "input" / "x" for the
   first: torch.special.xlogy(2.0, y)); polygamma's n and multigammaln's p are args;
   the polynomials' n is in1 or the number args["n"]. */
#include <math.h>
#include "conf.h"
#include "ctensor_special.h"

#define IN(k) (c->in[k])
#define ONE(expr) do { out[0] = (expr); return out[0] ? 1 : -1; } while (0)

#define SPECIAL_UNARY(X) X(erf) X(erfc) X(erfcx) X(erfinv) X(ndtr) X(ndtri) X(log_ndtr) X(expit) X(exp2) X(expm1) \
    X(log1p) X(entr) X(sinc) X(gammaln) X(digamma) X(psi) X(i0) X(i0e) X(i1) X(i1e) X(modified_bessel_i0)          \
    X(modified_bessel_i1) X(modified_bessel_k0) X(modified_bessel_k1) X(scaled_modified_bessel_k0)                   \
    X(scaled_modified_bessel_k1) X(bessel_j0) X(bessel_j1) X(bessel_y0) X(bessel_y1) X(spherical_bessel_j0) X(airy_ai)
#define SPECIAL_BINARY(X) X(xlogy) X(xlog1py) X(gammainc) X(gammaincc) X(zeta) X(chebyshev_polynomial_t)               \
    X(chebyshev_polynomial_u) X(chebyshev_polynomial_v) X(chebyshev_polynomial_w) X(shifted_chebyshev_polynomial_t) \
    X(shifted_chebyshev_polynomial_u) X(shifted_chebyshev_polynomial_v) X(shifted_chebyshev_polynomial_w)           \
    X(hermite_polynomial_h) X(hermite_polynomial_he) X(laguerre_polynomial_l) X(legendre_polynomial_p)

#define UNARY_HANDLER(name) \
    static int h_##name(conf_case *c, ct_tensor **out) { ONE(ct_special_##name(IN(0))); }
SPECIAL_UNARY(UNARY_HANDLER)

/* the first number among keys[] in args: 1 and *v, or 0 */
static int number_arg(conf_case *c, const char *const *keys, int n, double *v) {
    for (int i = 0; i < n; i++)
        if (conf_given(c, keys[i])) { *v = conf_double(c, keys[i], 0.0); return 1; }
    return 0;
}
/* the two operands: in0 and in1, or a number in args as a 0-d tensor of the other's
   dtype (PyTorch's wrapped number: it does not promote) */
static int operands(conf_case *c, const char *const *second, int nsecond, ct_tensor **a, ct_tensor **b) {
    static const char *const first[] = {"self", "input", "x"};
    double v;
    if (c->nin >= 2) { *a = IN(0); *b = IN(1); return 0; }
    if (c->nin < 1) return conf_skip(c, "no tensor input");
    if (number_arg(c, second, nsecond, &v)) { *a = IN(0); *b = ct_scalar_tensor(v, IN(0)->dtype); return *b ? 0 : -1; }
    if (number_arg(c, first, 3, &v)) { *a = ct_scalar_tensor(v, IN(0)->dtype); *b = IN(0); return *a ? 0 : -1; }
    return conf_skip(c, "a second operand that is neither in1 nor a number in args");
}
#define BINARY_HANDLER(name)                                                     \
    static int h_##name(conf_case *c, ct_tensor **out) {                         \
        static const char *const second[] = {"other", "q", "n", "x"};             \
        ct_tensor *a, *b;                                                        \
        int rc = operands(c, second, 4, &a, &b);                                 \
        if (rc) return rc;                                                       \
        ONE(ct_special_##name(a, b));                                            \
    }
SPECIAL_BINARY(BINARY_HANDLER)

/* logit(input, eps=None) */
static int h_logit(conf_case *c, ct_tensor **out) { ONE(ct_special_logit(IN(0), conf_given(c, "eps") ? conf_double(c, "eps", NAN) : NAN)); }
/* polygamma(n, input) */
static int h_polygamma(conf_case *c, ct_tensor **out) { ONE(ct_special_polygamma(conf_int(c, "n", 0), IN(0))); }
/* multigammaln(input, p), torch.mvlgamma(input, p) */
static int h_multigammaln(conf_case *c, ct_tensor **out) { ONE(ct_special_multigammaln(IN(0), conf_int(c, "p", 1))); }
/* round(input, decimals=0) */
static int h_round(conf_case *c, ct_tensor **out) {
    int64_t d = conf_int(c, "decimals", 0);
    ONE(d ? ct_round_decimals(IN(0), (int)d) : ct_special_round(IN(0)));
}
/* logsumexp(input, dim, keepdim=False) */
static int h_logsumexp(conf_case *c, ct_tensor **out) {
    int64_t d[CT_MAX_DIMS];
    int n = conf_ints(c, "dim", d, CT_MAX_DIMS);
    ONE(ct_special_logsumexp(IN(0), n < 0 ? 0 : n, d, conf_bool(c, "keepdim", 0)));
}
/* softmax / log_softmax(input, dim, dtype=None) */
static int h_softmax(conf_case *c, ct_tensor **out) {
    int dim = (int)conf_int(c, "dim", -1);
    ONE(conf_given(c, "dtype") ? ct_softmax_dtype(IN(0), dim, conf_dtype(c, "dtype")) : ct_special_softmax(IN(0), dim));
}
static int h_log_softmax(conf_case *c, ct_tensor **out) {
    int dim = (int)conf_int(c, "dim", -1);
    ONE(conf_given(c, "dtype") ? ct_log_softmax_dtype(IN(0), dim, conf_dtype(c, "dtype")) : ct_special_log_softmax(IN(0), dim));
}

#define T_UNARY(name) {"torch.special." #name, h_##name, NULL},
#define T_BINARY(name) {"torch.special." #name, h_##name, NULL},
const conf_op conf_ops_special[] = {
    SPECIAL_UNARY(T_UNARY)
    SPECIAL_BINARY(T_BINARY)
    {"torch.special.logit", h_logit, NULL},
    {"torch.special.polygamma", h_polygamma, NULL},
    {"torch.special.multigammaln", h_multigammaln, NULL},
    {"torch.special.round", h_round, NULL},
    {"torch.special.logsumexp", h_logsumexp, NULL},
    {"torch.special.softmax", h_softmax, NULL},
    {"torch.special.log_softmax", h_log_softmax, NULL},
    /* the torch.* spellings (and Tensor methods through them) */
    {"torch.lgamma", h_gammaln, NULL},
    {"torch.digamma", h_digamma, NULL},
    {"torch.erfinv", h_erfinv, NULL},
    {"torch.i0", h_i0, NULL},
    {"torch.sinc", h_sinc, NULL},
    {"torch.logit", h_logit, NULL},
    {"torch.polygamma", h_polygamma, NULL},
    {"torch.mvlgamma", h_multigammaln, NULL},
    {"torch.igamma", h_gammainc, NULL},
    {"torch.igammac", h_gammaincc, NULL},
    {"torch.xlogy", h_xlogy, NULL},
    {0, 0, 0}};
