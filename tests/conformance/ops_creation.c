/* Conformance handlers: creation, conversion, views, random. */
#include <math.h>
#include <string.h>
#include "conf.h"

#define IN(k) (c->in[k])
#define ONE(expr) do { out[0] = (expr); return out[0] ? 1 : -1; } while (0)

static int ints(conf_case *c, const char *key, int64_t *v) { int n = conf_ints(c, key, v, CT_MAX_DIMS); return n < 0 ? 0 : n; }
static ct_dtype dtype_or(conf_case *c, ct_dtype def) {
    ct_dtype d = conf_dtype(c, "dtype");
    return d == CT_NUM_DTYPES ? def : d;
}

static int h_reshape(conf_case *c, ct_tensor **out) { int64_t s[CT_MAX_DIMS]; int n = ints(c, "shape", s); ONE(ct_reshape_n(IN(0), n, s)); }
static int h_view(conf_case *c, ct_tensor **out) { int64_t s[CT_MAX_DIMS]; int n = ints(c, "size", s); ONE(ct_view_n(IN(0), n, s)); }
static int h_permute(conf_case *c, ct_tensor **out) { int64_t s[CT_MAX_DIMS]; int n = ints(c, "dims", s); ONE(ct_permute_n(IN(0), n, s)); }
static int h_expand(conf_case *c, ct_tensor **out) { int64_t s[CT_MAX_DIMS]; int n = ints(c, "size", s); ONE(ct_expand_n(IN(0), n, s)); }
static int h_transpose(conf_case *c, ct_tensor **out) { ONE(ct_transpose(IN(0), (int)conf_int(c, "dim0", 0), (int)conf_int(c, "dim1", 1))); }
static int h_t(conf_case *c, ct_tensor **out) { ONE(ct_t(IN(0))); }
static int h_narrow(conf_case *c, ct_tensor **out) {
    ONE(ct_narrow(IN(0), (int)conf_int(c, "dim", 0), conf_int(c, "start", 0), conf_int(c, "length", 0)));
}
static int h_select(conf_case *c, ct_tensor **out) { ONE(ct_select(IN(0), (int)conf_int(c, "dim", 0), conf_int(c, "index", 0))); }
static int h_slice(conf_case *c, ct_tensor **out) {
    ONE(ct_slice(IN(0), (int)conf_int(c, "dim", 0), conf_has(c, "start") && !conf_is_null(c, "start") ? conf_int(c, "start", 0) : 0,
                 conf_has(c, "end") && !conf_is_null(c, "end") ? conf_int(c, "end", INT64_MAX) : INT64_MAX, conf_int(c, "step", 1)));
}
static int h_squeeze(conf_case *c, ct_tensor **out) {
    if (conf_has(c, "dim")) ONE(ct_squeeze_dim(IN(0), (int)conf_int(c, "dim", 0)));
    ONE(ct_squeeze(IN(0)));
}
static int h_unsqueeze(conf_case *c, ct_tensor **out) { ONE(ct_unsqueeze(IN(0), (int)conf_int(c, "dim", 0))); }
static int h_flatten(conf_case *c, ct_tensor **out) { ONE(ct_flatten(IN(0), (int)conf_int(c, "start_dim", 0), (int)conf_int(c, "end_dim", -1))); }
static int h_unflatten(conf_case *c, ct_tensor **out) {
    int64_t s[CT_MAX_DIMS];
    int n = ints(c, "sizes", s);
    ONE(ct_unflatten_n(IN(0), (int)conf_int(c, "dim", 0), n, s));
}
static int h_diagonal(conf_case *c, ct_tensor **out) {
    ONE(ct_diagonal(IN(0), conf_int(c, "offset", 0), (int)conf_int(c, "dim1", 0), (int)conf_int(c, "dim2", 1)));
}
static int h_as_strided(conf_case *c, ct_tensor **out) {
    int64_t s[CT_MAX_DIMS], st[CT_MAX_DIMS];
    int n = ints(c, "size", s);
    ints(c, "stride", st);
    ONE(ct_as_strided(IN(0), n, s, st, conf_int(c, "storage_offset", 0)));
}
static int h_contiguous(conf_case *c, ct_tensor **out) { ONE(ct_contiguous(IN(0))); }
static int h_clone(conf_case *c, ct_tensor **out) { ONE(ct_clone(IN(0))); }
static int h_to(conf_case *c, ct_tensor **out) { ONE(ct_to(IN(0), dtype_or(c, ct_get_dtype(IN(0))))); }
static int h_broadcast_to(conf_case *c, ct_tensor **out) { int64_t s[CT_MAX_DIMS]; int n = ints(c, "size", s); ONE(ct_expand_n(IN(0), n, s)); }
static int h_arange(conf_case *c, ct_tensor **out) {
    double start = conf_double(c, "start", 0), end = conf_double(c, "end", 0), step = conf_double(c, "step", 1);
    int integral = start == floor(start) && end == floor(end) && step == floor(step);
    ONE(ct_arange(start, end, step, dtype_or(c, integral ? CT_INT64 : CT_FLOAT32)));
}
static int h_linspace(conf_case *c, ct_tensor **out) {
    ONE(ct_linspace(conf_double(c, "start", 0), conf_double(c, "end", 0), conf_int(c, "steps", 0), dtype_or(c, CT_FLOAT32)));
}
static int h_eye(conf_case *c, ct_tensor **out) { ONE(ct_eye(conf_int(c, "n", 0), conf_has(c, "m") ? conf_int(c, "m", -1) : -1, dtype_or(c, CT_FLOAT32))); }
static int h_zeros(conf_case *c, ct_tensor **out) { int64_t s[CT_MAX_DIMS]; int n = ints(c, "size", s); ONE(ct_zeros_n(dtype_or(c, CT_FLOAT32), n, s)); }
static int h_ones(conf_case *c, ct_tensor **out) { int64_t s[CT_MAX_DIMS]; int n = ints(c, "size", s); ONE(ct_ones_n(dtype_or(c, CT_FLOAT32), n, s)); }
static int h_full(conf_case *c, ct_tensor **out) {
    int64_t s[CT_MAX_DIMS];
    int n = ints(c, "size", s);
    double v = conf_double(c, "fill_value", 0);
    ONE(ct_full_n(dtype_or(c, v == floor(v) ? CT_INT64 : CT_FLOAT32), n, s, v));
}
static int h_zeros_like(conf_case *c, ct_tensor **out) { ONE(ct_zeros_like(IN(0))); }
static int h_ones_like(conf_case *c, ct_tensor **out) { ONE(ct_ones_like(IN(0))); }
static int h_full_like(conf_case *c, ct_tensor **out) { ONE(ct_full_like(IN(0), conf_double(c, "fill_value", 0))); }
/* random: the case gives the seed, and ctensor's generator matches PyTorch's */
static int h_rand(conf_case *c, ct_tensor **out) {
    int64_t s[CT_MAX_DIMS];
    int n = ints(c, "size", s);
    ct_manual_seed((uint64_t)conf_int(c, "manual_seed", 0));
    ONE(ct_rand_n(dtype_or(c, CT_FLOAT32), n, s));
}
static int h_randn(conf_case *c, ct_tensor **out) {
    int64_t s[CT_MAX_DIMS];
    int n = ints(c, "size", s);
    ct_manual_seed((uint64_t)conf_int(c, "manual_seed", 0));
    ONE(ct_randn_n(dtype_or(c, CT_FLOAT32), n, s));
}

/* random extras: "manual_seed" seeds the default generator; "generator_seed"
   instead passes a generator of that seed (PyTorch's generator= argument) */
static ct_generator conf_gen;
static ct_generator *rgen(conf_case *c) {
    if (conf_has(c, "generator_seed")) {
        ct_generator_init(&conf_gen, (uint64_t)conf_int(c, "generator_seed", 0));
        return &conf_gen;
    }
    ct_manual_seed((uint64_t)conf_int(c, "manual_seed", 0));
    return NULL;
}
static int h_randint(conf_case *c, ct_tensor **out) {
    int64_t s[CT_MAX_DIMS];
    int n = ints(c, "size", s);
    ct_generator *g = rgen(c);
    ONE(ct_randint_n(conf_int(c, "low", 0), conf_int(c, "high", 0), dtype_or(c, CT_INT64), n, s, g));
}
static int h_random_(conf_case *c, ct_tensor **out) {
    ct_generator *g = rgen(c);
    if (conf_has(c, "to")) ONE(ct_random_range_(IN(0), conf_int(c, "from", 0), conf_int(c, "to", 0), g));
    ONE(ct_random_(IN(0), g));
}
static int h_bernoulli(conf_case *c, ct_tensor **out) {
    ct_generator *g = rgen(c);
    if (conf_has(c, "p")) ONE(ct_bernoulli_p(IN(0), conf_double(c, "p", 0.5), g));
    ONE(ct_bernoulli(IN(0), g));
}
static int h_bernoulli_(conf_case *c, ct_tensor **out) {
    ct_generator *g = rgen(c);
    if (c->nin > 1) ONE(ct_bernoulli_(IN(0), IN(1), g));
    ONE(ct_bernoulli_scalar_(IN(0), conf_double(c, "p", 0.5), g));
}
static int h_exponential_(conf_case *c, ct_tensor **out) {
    ct_generator *g = rgen(c);
    ONE(ct_exponential_(IN(0), conf_double(c, "lambd", 1.0), g));
}
static int h_randperm(conf_case *c, ct_tensor **out) {
    ct_generator *g = rgen(c);
    ONE(ct_randperm(conf_int(c, "n", 0), dtype_or(c, CT_INT64), g));
}
static int h_multinomial(conf_case *c, ct_tensor **out) {
    ct_generator *g = rgen(c);
    ONE(ct_multinomial(IN(0), conf_int(c, "num_samples", 1), conf_bool(c, "replacement", 0), g));
}
static int h_normal(conf_case *c, ct_tensor **out) {
    ct_generator *g = rgen(c);
    if (c->nin == 2) ONE(ct_normal_tensor(IN(0), IN(1), g));
    if (conf_has(c, "std")) ONE(ct_normal_tensor_scalar(IN(0), conf_double(c, "std", 1.0), g));
    ONE(ct_normal_scalar_tensor(conf_double(c, "mean", 0.0), IN(0), g));
}
static int h_rand_like(conf_case *c, ct_tensor **out) { ct_generator *g = rgen(c); ONE(ct_rand_like(IN(0), g)); }
static int h_randn_like(conf_case *c, ct_tensor **out) { ct_generator *g = rgen(c); ONE(ct_randn_like(IN(0), g)); }
static int h_randint_like(conf_case *c, ct_tensor **out) {
    ct_generator *g = rgen(c);
    ONE(ct_randint_like(IN(0), conf_int(c, "low", 0), conf_int(c, "high", 0), g));
}

const conf_op conf_ops_creation[] = {
    {"torch.reshape", h_reshape, NULL},
    {"Tensor.view", h_view, NULL},
    {"torch.permute", h_permute, NULL},
    {"Tensor.expand", h_expand, NULL},
    {"torch.broadcast_to", h_broadcast_to, NULL},
    {"torch.transpose", h_transpose, NULL},
    {"torch.t", h_t, NULL},
    {"torch.narrow", h_narrow, NULL},
    {"torch.select", h_select, NULL},
    {"torch.ops.aten.slice", h_slice, NULL},
    {"torch.squeeze", h_squeeze, NULL},
    {"torch.unsqueeze", h_unsqueeze, NULL},
    {"torch.flatten", h_flatten, NULL},
    {"torch.unflatten", h_unflatten, NULL},
    {"Tensor.unflatten", h_unflatten, NULL},
    {"torch.diagonal", h_diagonal, NULL},
    {"torch.as_strided", h_as_strided, NULL},
    {"Tensor.contiguous", h_contiguous, NULL},
    {"torch.clone", h_clone, NULL},
    {"Tensor.to", h_to, NULL},
    {"torch.arange", h_arange, NULL},
    {"torch.linspace", h_linspace, NULL},
    {"torch.eye", h_eye, NULL},
    {"torch.zeros", h_zeros, NULL},
    {"torch.ones", h_ones, NULL},
    {"torch.full", h_full, NULL},
    {"torch.zeros_like", h_zeros_like, NULL},
    {"torch.ones_like", h_ones_like, NULL},
    {"torch.full_like", h_full_like, NULL},
    {"torch.rand", h_rand, NULL},
    {"torch.randn", h_randn, NULL},
    {"torch.randint", h_randint, NULL},
    {"Tensor.random_", h_random_, NULL},
    {"torch.bernoulli", h_bernoulli, NULL},
    {"Tensor.bernoulli_", h_bernoulli_, NULL},
    {"Tensor.exponential_", h_exponential_, NULL},
    {"torch.randperm", h_randperm, NULL},
    {"torch.multinomial", h_multinomial, NULL},
    {"torch.normal", h_normal, NULL},
    {"torch.rand_like", h_rand_like, NULL},
    {"torch.randn_like", h_randn_like, NULL},
    {"torch.randint_like", h_randint_like, NULL},
    {0, 0, 0}};
