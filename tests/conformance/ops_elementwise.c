/* Conformance handlers: elementwise ops (unary, binary, ternary, in-place). */
#include <math.h>
#include <string.h>
#include "conf.h"

#define IN(k) (c->in[k])
#define ONE(expr) do { out[0] = (expr); return out[0] ? 1 : -1; } while (0)

/* unary ops taking only the tensor */
/* every row of ctensor.h's unary tables (name is the row's second column) */
#define UNARY_HANDLER(ARG_, name, ...)                                            \
    static int h_##name(conf_case *c, ct_tensor **out) { ONE(ct_##name(IN(0))); }
CT__UNARY_OPS_TABLE(UNARY_HANDLER, ~)
CT__UNARY_PREDICATES_TABLE(UNARY_HANDLER, ~)

static int h_leaky_relu(conf_case *c, ct_tensor **out) { ONE(ct_leaky_relu(IN(0), conf_double(c, "negative_slope", 0.01))); }
static int h_elu(conf_case *c, ct_tensor **out) { ONE(ct_elu(IN(0), conf_double(c, "alpha", 1.0))); }
static int h_celu(conf_case *c, ct_tensor **out) { ONE(ct_celu(IN(0), conf_double(c, "alpha", 1.0))); }
static int h_gelu(conf_case *c, ct_tensor **out) { ONE(ct_gelu(IN(0), conf_str(c, "approximate", "none"))); }
static int h_softplus(conf_case *c, ct_tensor **out) { ONE(ct_softplus(IN(0), conf_double(c, "beta", 1.0), conf_double(c, "threshold", 20.0))); }
static int h_hardtanh(conf_case *c, ct_tensor **out) { ONE(ct_hardtanh(IN(0), conf_double(c, "min_val", -1.0), conf_double(c, "max_val", 1.0))); }
static int h_threshold(conf_case *c, ct_tensor **out) { ONE(ct_threshold(IN(0), conf_double(c, "threshold", 0.0), conf_double(c, "value", 0.0))); }
static int h_nan_to_num(conf_case *c, ct_tensor **out) {
    ONE(ct_nan_to_num(IN(0), conf_has(c, "nan") && !conf_is_null(c, "nan") ? conf_double(c, "nan", 0.0) : 0.0,
                      conf_has(c, "posinf") && !conf_is_null(c, "posinf") ? conf_double(c, "posinf", NAN) : NAN,
                      conf_has(c, "neginf") && !conf_is_null(c, "neginf") ? conf_double(c, "neginf", NAN) : NAN));
}
static int h_round_dec(conf_case *c, ct_tensor **out) { ONE(ct_round_decimals(IN(0), (int)conf_int(c, "decimals", 0))); }

/* binary ops: second operand is in1, or args["other"] as a scalar */
#define BINARY_HANDLER(name)                                                      \
    static int h_##name(conf_case *c, ct_tensor **out) {                          \
        if (c->nin >= 2) ONE(ct_##name(IN(0), IN(1)));                            \
        ONE(ct_##name##_scalar(IN(0), conf_double(c, "other", 0.0)));             \
    }
CT__BINARY_PUBLIC(BINARY_HANDLER)

static int h_add(conf_case *c, ct_tensor **out) {
    double alpha = conf_double(c, "alpha", 1.0);
    if (c->nin >= 2) ONE(ct_add_alpha(IN(0), IN(1), alpha));
    ONE(ct_add_scalar(IN(0), conf_double(c, "other", 0.0) * alpha));
}
static int h_sub(conf_case *c, ct_tensor **out) {
    double alpha = conf_double(c, "alpha", 1.0);
    if (c->nin >= 2) ONE(ct_sub_alpha(IN(0), IN(1), alpha));
    ONE(ct_sub_scalar(IN(0), conf_double(c, "other", 0.0) * alpha));
}
static int h_div_mode(conf_case *c, ct_tensor **out) {
    const char *mode = conf_str(c, "rounding_mode", NULL);
    if (c->nin >= 2) ONE(ct_div_mode(IN(0), IN(1), mode));
    ct_tensor *o = ct_full_like(IN(0), conf_double(c, "other", 1.0));
    ONE(mode ? ct_div_mode(IN(0), o, mode) : ct_div_scalar(IN(0), conf_double(c, "other", 1.0)));
}
static int h_pow_any(conf_case *c, ct_tensor **out) {
    if (c->nin >= 2) ONE(ct_pow(IN(0), IN(1)));
    if (conf_has(c, "self")) ONE(ct_rpow_scalar(conf_double(c, "self", 0.0), IN(0)));
    ONE(ct_pow_scalar(IN(0), conf_double(c, "exponent", conf_double(c, "other", 1.0))));
}
static int h_where(conf_case *c, ct_tensor **out) {
    if (c->nin >= 3) ONE(ct_where(IN(0), IN(1), IN(2)));
    ONE(ct_where_scalar(IN(0), IN(1), conf_double(c, "other", 0.0)));
}
/* Tensor.where(condition, other): self comes first, then the condition */
static int h_where_method(conf_case *c, ct_tensor **out) {
    if (c->nin >= 3) ONE(ct_where(IN(1), IN(0), IN(2)));
    ONE(ct_where_scalar(IN(1), IN(0), conf_double(c, "other", 0.0)));
}
/* torch.clamp(input, min=None, max=None) and clamp_min / clamp_max: each bound
   is a number in args, a tensor input (in1, then in2, in signature order), or
   None ("min": null, or absent with no input left for it). Repo extension:
   "min_is_tensor" / "max_is_tensor" say which bounds are the inputs.
   Returns 1 when a bound is a tensor (lo/hi set; a number becomes a 0-d
   tensor of x's dtype), 0 when both are numbers (dlo/dhi, NAN = None). */
static int clamp_bounds(conf_case *c, int first_bound, int nbounds, ct_tensor **b, double *d) {
    static const char *const keys[] = {"min", "max"}, *const flags[] = {"min_is_tensor", "max_is_tensor"};
    int k = 1, tensors = 0;
    for (int i = 0; i < 2; i++) {
        const char *key = keys[i];
        b[i] = NULL;
        d[i] = NAN;
        if (i < first_bound || i >= first_bound + nbounds) continue;
        if (conf_has(c, flags[i]) ? conf_bool(c, flags[i], 0) && k < c->nin : !conf_has(c, key) && k < c->nin) b[i] = IN(k++);
        else if (conf_given(c, key)) d[i] = conf_double(c, key, NAN);
        tensors |= b[i] != NULL;
    }
    if (!tensors) return 0;
    for (int i = 0; i < 2; i++)
        if (!b[i] && !isnan(d[i])) b[i] = ct_scalar_tensor(d[i], ct_get_dtype(IN(0)));
    return 1;
}
static int clamp_any(conf_case *c, ct_tensor **out, int first_bound, int nbounds, int inplace) {
    ct_tensor *b[2];
    double d[2];
    ct_tensor *x = inplace ? ct_clone(IN(0)) : IN(0);
    if (clamp_bounds(c, first_bound, nbounds, b, d)) ONE(ct_clamp_tensor(x, b[0], b[1]));
    ONE(inplace ? ct_clamp_(x, d[0], d[1]) : ct_clamp(x, d[0], d[1]));
}
static int h_clamp(conf_case *c, ct_tensor **out) { return clamp_any(c, out, 0, 2, 0); }
static int h_clamp_min(conf_case *c, ct_tensor **out) { return clamp_any(c, out, 0, 1, 0); }
static int h_clamp_max(conf_case *c, ct_tensor **out) { return clamp_any(c, out, 1, 1, 0); }
static int h_masked_fill(conf_case *c, ct_tensor **out) {
    if (c->nin >= 3) ONE(ct_masked_fill_tensor(IN(0), IN(1), IN(2)));
    ONE(ct_masked_fill(IN(0), IN(1), conf_double(c, "value", 0.0)));
}
static int h_lerp(conf_case *c, ct_tensor **out) {
    if (c->nin >= 3) ONE(ct_lerp(IN(0), IN(1), IN(2)));
    ONE(ct_lerp_scalar(IN(0), IN(1), conf_double(c, "weight", 0.5)));
}
static int h_addcmul(conf_case *c, ct_tensor **out) { ONE(ct_addcmul(IN(0), IN(1), IN(2), conf_double(c, "value", 1.0))); }
static int h_addcdiv(conf_case *c, ct_tensor **out) { ONE(ct_addcdiv(IN(0), IN(1), IN(2), conf_double(c, "value", 1.0))); }
static int h_isclose(conf_case *c, ct_tensor **out) {
    ONE(ct_isclose(IN(0), IN(1), conf_double(c, "rtol", 1e-5), conf_double(c, "atol", 1e-8), conf_bool(c, "equal_nan", 0)));
}

/* in-place variants: work on a non-leaf copy so gradients flow as in PyTorch's
   `y = x.clone(); y.op_(...)` */
static ct_tensor *fresh(conf_case *c) { return ct_clone(IN(0)); }
static int h_add_(conf_case *c, ct_tensor **out) {
    ct_tensor *x = fresh(c);
    double alpha = conf_double(c, "alpha", 1.0);
    if (c->nin >= 2) ONE(ct_add_alpha_(x, IN(1), alpha));
    ONE(ct_add_scalar_(x, conf_double(c, "other", 0.0) * alpha));
}
static int h_sub_(conf_case *c, ct_tensor **out) { ct_tensor *x = fresh(c); ONE(ct_sub_(x, IN(1))); }
static int h_mul_(conf_case *c, ct_tensor **out) {
    ct_tensor *x = fresh(c);
    if (c->nin >= 2) ONE(ct_mul_(x, IN(1)));
    ONE(ct_mul_scalar_(x, conf_double(c, "other", 1.0)));
}
static int h_div_(conf_case *c, ct_tensor **out) { ct_tensor *x = fresh(c); ONE(ct_div_(x, IN(1))); }
static int h_clamp_(conf_case *c, ct_tensor **out) { return clamp_any(c, out, 0, 2, 1); }
static int h_clamp_min_(conf_case *c, ct_tensor **out) { return clamp_any(c, out, 0, 1, 1); }
static int h_clamp_max_(conf_case *c, ct_tensor **out) { return clamp_any(c, out, 1, 1, 1); }
static int h_relu_(conf_case *c, ct_tensor **out) { ONE(ct_relu_(fresh(c))); }
static int h_masked_fill_(conf_case *c, ct_tensor **out) { ONE(ct_masked_fill_(fresh(c), IN(1), conf_double(c, "value", 0.0))); }
static int h_fill_(conf_case *c, ct_tensor **out) { ONE(ct_fill_(fresh(c), conf_double(c, "value", 0.0))); }
static int h_zero_(conf_case *c, ct_tensor **out) { ONE(ct_zero_(fresh(c))); }
static int h_copy_(conf_case *c, ct_tensor **out) { ONE(ct_copy_(fresh(c), IN(1))); }
static int h_addcmul_(conf_case *c, ct_tensor **out) { ONE(ct_addcmul_(fresh(c), IN(1), IN(2), conf_double(c, "value", 1.0))); }
static int h_addcdiv_(conf_case *c, ct_tensor **out) { ONE(ct_addcdiv_(fresh(c), IN(1), IN(2), conf_double(c, "value", 1.0))); }
static int h_lerp_(conf_case *c, ct_tensor **out) { ONE(ct_lerp_scalar_(fresh(c), IN(1), conf_double(c, "weight", 0.5))); }

#define T_UNARY(ARG_, name, ...) {"torch." #name, h_##name, NULL},
#define T_BINARY(name) {"torch." #name, h_##name, NULL},
const conf_op conf_ops_elementwise[] = {
    /* entries with extra arguments first: the first match wins */
    {"torch.round", h_round_dec, NULL},
    {"torch.div", h_div_mode, NULL},
    {"torch.pow", h_pow_any, NULL},
    CT__UNARY_OPS_TABLE(T_UNARY, ~)
    CT__UNARY_PREDICATES_TABLE(T_UNARY, ~)
    CT__BINARY_PUBLIC(T_BINARY)
    {"torch.add", h_add, NULL},
    {"torch.sub", h_sub, NULL},
    {"torch.subtract", h_sub, NULL},
    {"torch.multiply", h_mul, NULL},
    {"torch.divide", h_div_mode, NULL},
    {"torch.true_divide", h_div_mode, NULL},
    {"torch.where", h_where, NULL},
    {"Tensor.where", h_where_method, NULL},
    {"torch.clamp", h_clamp, NULL},
    {"torch.clip", h_clamp, NULL},
    {"torch.clamp_min", h_clamp_min, NULL},
    {"torch.clamp_max", h_clamp_max, NULL},
    {"torch.masked_fill", h_masked_fill, NULL},
    {"Tensor.masked_fill", h_masked_fill, NULL},
    {"torch.lerp", h_lerp, NULL},
    {"torch.addcmul", h_addcmul, NULL},
    {"torch.addcdiv", h_addcdiv, NULL},
    {"torch.isclose", h_isclose, NULL},
    {"torch.nan_to_num", h_nan_to_num, NULL},
    {"torch.special.expit", h_sigmoid, NULL},
    {"torch.nn.functional.relu", h_relu, NULL},
    {"torch.nn.functional.relu6", h_relu6, NULL},
    {"torch.nn.functional.selu", h_selu, NULL},
    {"torch.nn.functional.silu", h_silu, NULL},
    {"torch.nn.functional.mish", h_mish, NULL},
    {"torch.nn.functional.hardsigmoid", h_hardsigmoid, NULL},
    {"torch.nn.functional.hardswish", h_hardswish, NULL},
    {"torch.nn.functional.logsigmoid", h_logsigmoid, NULL},
    {"torch.nn.functional.sigmoid", h_sigmoid, NULL},
    {"torch.nn.functional.tanh", h_tanh, NULL},
    {"torch.nn.functional.gelu", h_gelu, NULL},
    {"torch.nn.functional.elu", h_elu, NULL},
    {"torch.nn.functional.celu", h_celu, NULL},
    {"torch.nn.functional.leaky_relu", h_leaky_relu, NULL},
    {"torch.nn.functional.softplus", h_softplus, NULL},
    {"torch.nn.functional.hardtanh", h_hardtanh, NULL},
    {"torch.nn.functional.threshold", h_threshold, NULL},
    {"Tensor.add_", h_add_, NULL},
    {"Tensor.sub_", h_sub_, NULL},
    {"Tensor.mul_", h_mul_, NULL},
    {"Tensor.div_", h_div_, NULL},
    {"Tensor.clamp_", h_clamp_, NULL},
    {"Tensor.clip_", h_clamp_, NULL},
    {"Tensor.clamp_min_", h_clamp_min_, NULL},
    {"Tensor.clamp_max_", h_clamp_max_, NULL},
    {"Tensor.relu_", h_relu_, NULL},
    {"Tensor.masked_fill_", h_masked_fill_, NULL},
    {"Tensor.fill_", h_fill_, NULL},
    {"Tensor.zero_", h_zero_, NULL},
    {"Tensor.copy_", h_copy_, NULL},
    {"Tensor.addcmul_", h_addcmul_, NULL},
    {"Tensor.addcdiv_", h_addcdiv_, NULL},
    {"Tensor.lerp_", h_lerp_, NULL},
    {0, 0, 0}};
