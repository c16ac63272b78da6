/* Conformance handlers: reductions, scans and sorting (ctensor.h "Reductions"). */
#include <math.h>
#include <string.h>
#include "conf.h"

#define IN(k) (c->in[k])
#define ONE(expr) do { out[0] = (expr); return out[0] ? 1 : -1; } while (0)
#define TWO(expr) do { out[0] = (expr); return out[0] ? 2 : -1; } while (0)  /* expr stores out[1] */

/* "dim": absent or null -> -1; an int or a list -> the count (0 for []) */
static int dims(conf_case *c, int64_t *d) { return conf_ints(c, "dim", d, CT_MAX_DIMS); }
static int keepdim(conf_case *c) { return conf_bool(c, "keepdim", 0); }
static int has_dtype(conf_case *c) { return conf_dtype(c, "dtype") != CT_NUM_DTYPES; }

/* sum / mean / nansum / prod: dim, keepdim, dtype */
typedef ct_tensor *(*dims_fn)(const ct_tensor *, int, const int64_t *, int);
typedef ct_tensor *(*dims_dtype_fn)(const ct_tensor *, int, const int64_t *, int, ct_dtype);
static int reduce_dt(conf_case *c, ct_tensor **out, dims_fn f, dims_dtype_fn fd) {
    int64_t d[CT_MAX_DIMS];
    int n = dims(c, d);
    if (n < 0) n = 0;
    if (has_dtype(c)) ONE(fd(IN(0), n, d, keepdim(c), conf_dtype(c, "dtype")));
    ONE(f(IN(0), n, d, keepdim(c)));
}
static ct_tensor *prod_dims(const ct_tensor *x, int n, const int64_t *d, int keep) { return ct_prod_dtype(x, n, d, keep, ct_get_dtype(x) == CT_BOOL || !ct_dtype_is_floating(ct_get_dtype(x)) ? CT_INT64 : ct_get_dtype(x)); }
static int h_sum(conf_case *c, ct_tensor **out) { return reduce_dt(c, out, ct_sum_dims, ct_sum_dtype); }
static int h_mean(conf_case *c, ct_tensor **out) { return reduce_dt(c, out, ct_mean_dims, ct_mean_dtype); }
static int h_nansum(conf_case *c, ct_tensor **out) { return reduce_dt(c, out, ct_nansum, ct_nansum_dtype); }
static int h_nanmean(conf_case *c, ct_tensor **out) { return reduce_dt(c, out, ct_nanmean, NULL); }
static int h_prod(conf_case *c, ct_tensor **out) {
    int64_t d[CT_MAX_DIMS];
    int n = dims(c, d);
    if (has_dtype(c)) ONE(ct_prod_dtype(IN(0), n < 0 ? 0 : n, d, keepdim(c), conf_dtype(c, "dtype")));
    if (n < 0) ONE(ct_prod(IN(0)));
    ONE(n == 1 ? ct_prod_dim(IN(0), (int)d[0], keepdim(c)) : prod_dims(IN(0), n, d, keepdim(c)));
}

/* var / std / var_mean / std_mean: dim, unbiased, correction, keepdim */
static double correction(conf_case *c) {
    if (conf_has(c, "correction") && !conf_is_null(c, "correction")) return conf_double(c, "correction", 1.0);
    return conf_bool(c, "unbiased", 1) ? 1.0 : 0.0;
}
static int h_var(conf_case *c, ct_tensor **out) {
    int64_t d[CT_MAX_DIMS];
    int n = dims(c, d);
    ONE(ct_var_dims(IN(0), n < 0 ? 0 : n, d, correction(c), keepdim(c)));
}
static int h_std(conf_case *c, ct_tensor **out) {
    int64_t d[CT_MAX_DIMS];
    int n = dims(c, d);
    ONE(ct_std_dims(IN(0), n < 0 ? 0 : n, d, correction(c), keepdim(c)));
}
static int h_var_mean(conf_case *c, ct_tensor **out) {
    int64_t d[CT_MAX_DIMS];
    int n = dims(c, d);
    TWO(ct_var_mean(IN(0), n < 0 ? 0 : n, d, correction(c), keepdim(c), &out[1]));
}
static int h_std_mean(conf_case *c, ct_tensor **out) {
    int64_t d[CT_MAX_DIMS];
    int n = dims(c, d);
    TWO(ct_std_mean(IN(0), n < 0 ? 0 : n, d, correction(c), keepdim(c), &out[1]));
}

/* torch.max / torch.min: (x) -> value; (x, dim) -> (values, indices); (x, other) -> maximum */
static int h_max(conf_case *c, ct_tensor **out) {
    int64_t d[CT_MAX_DIMS];
    if (c->nin >= 2) ONE(ct_maximum(IN(0), IN(1)));
    if (dims(c, d) < 0) ONE(ct_max(IN(0)));
    TWO(ct_max_dim(IN(0), (int)d[0], keepdim(c), &out[1]));
}
static int h_min(conf_case *c, ct_tensor **out) {
    int64_t d[CT_MAX_DIMS];
    if (c->nin >= 2) ONE(ct_minimum(IN(0), IN(1)));
    if (dims(c, d) < 0) ONE(ct_min(IN(0)));
    TWO(ct_min_dim(IN(0), (int)d[0], keepdim(c), &out[1]));
}
static int h_amax(conf_case *c, ct_tensor **out) {
    int64_t d[CT_MAX_DIMS];
    int n = dims(c, d);
    ONE(ct_amax(IN(0), n < 0 ? 0 : n, d, keepdim(c)));
}
static int h_amin(conf_case *c, ct_tensor **out) {
    int64_t d[CT_MAX_DIMS];
    int n = dims(c, d);
    ONE(ct_amin(IN(0), n < 0 ? 0 : n, d, keepdim(c)));
}
/* argmax(x, keepdim=True) without dim: the flat index in a tensor of ones' shape */
static ct_tensor *keep_flat(conf_case *c, ct_tensor *r) {
    if (!r || !keepdim(c)) return r;
    int64_t shape[CT_MAX_DIMS];
    for (int k = 0; k < ct_ndim(IN(0)); k++) shape[k] = 1;
    return ct_reshape_n(r, ct_ndim(IN(0)), shape);
}
static int h_argmax(conf_case *c, ct_tensor **out) {
    int64_t d[CT_MAX_DIMS];
    if (dims(c, d) < 0) ONE(keep_flat(c, ct_argmax(IN(0))));
    ONE(ct_argmax_dim(IN(0), (int)d[0], keepdim(c)));
}
static int h_argmin(conf_case *c, ct_tensor **out) {
    int64_t d[CT_MAX_DIMS];
    if (dims(c, d) < 0) ONE(keep_flat(c, ct_argmin(IN(0))));
    ONE(ct_argmin_dim(IN(0), (int)d[0], keepdim(c)));
}
static int h_logsumexp(conf_case *c, ct_tensor **out) {
    int64_t d[CT_MAX_DIMS];
    int n = dims(c, d);
    ONE(ct_logsumexp(IN(0), n < 0 ? 0 : n, d, keepdim(c)));
}
static int h_all(conf_case *c, ct_tensor **out) {
    int64_t d[CT_MAX_DIMS];
    if (dims(c, d) < 0) ONE(ct_all(IN(0)));
    ONE(ct_all_dim(IN(0), (int)d[0], keepdim(c)));
}
static int h_any(conf_case *c, ct_tensor **out) {
    int64_t d[CT_MAX_DIMS];
    if (dims(c, d) < 0) ONE(ct_any(IN(0)));
    ONE(ct_any_dim(IN(0), (int)d[0], keepdim(c)));
}
static int h_count_nonzero(conf_case *c, ct_tensor **out) {
    int64_t d[CT_MAX_DIMS];
    int n = dims(c, d);
    ONE(ct_count_nonzero(IN(0), n < 0 ? 0 : n, d));
}
/* torch.norm: p a number, "inf"/"-inf", or "fro" (= 2 for vectors and matrices) */
static int h_norm(conf_case *c, ct_tensor **out) {
    int64_t d[CT_MAX_DIMS];
    int n = dims(c, d);
    const char *ps = conf_str(c, "p", NULL);
    double p = ps && !strcmp(ps, "fro") ? 2.0 : conf_double(c, "p", 2.0);
    ONE(ct_norm(IN(0), p, n < 0 ? 0 : n, d, keepdim(c)));
}
static int h_softmax(conf_case *c, ct_tensor **out) {
    int dim = (int)conf_int(c, "dim", -1);
    ONE(has_dtype(c) ? ct_softmax_dtype(IN(0), dim, conf_dtype(c, "dtype")) : ct_softmax(IN(0), dim));
}
static int h_log_softmax(conf_case *c, ct_tensor **out) {
    int dim = (int)conf_int(c, "dim", -1);
    ONE(has_dtype(c) ? ct_log_softmax_dtype(IN(0), dim, conf_dtype(c, "dtype")) : ct_log_softmax(IN(0), dim));
}
static int h_cumsum(conf_case *c, ct_tensor **out) {
    int dim = (int)conf_int(c, "dim", 0);
    ONE(has_dtype(c) ? ct_cumsum_dtype(IN(0), dim, conf_dtype(c, "dtype")) : ct_cumsum(IN(0), dim));
}
static int h_cumprod(conf_case *c, ct_tensor **out) {
    int dim = (int)conf_int(c, "dim", 0);
    ONE(has_dtype(c) ? ct_cumprod_dtype(IN(0), dim, conf_dtype(c, "dtype")) : ct_cumprod(IN(0), dim));
}
static int h_cummax(conf_case *c, ct_tensor **out) { TWO(ct_cummax(IN(0), (int)conf_int(c, "dim", 0), &out[1])); }
static int h_cummin(conf_case *c, ct_tensor **out) { TWO(ct_cummin(IN(0), (int)conf_int(c, "dim", 0), &out[1])); }
/* sort is always stable here; PyTorch's stable=False order of ties is unspecified */
static int h_sort(conf_case *c, ct_tensor **out) {
    TWO(ct_sort(IN(0), (int)conf_int(c, "dim", -1), conf_bool(c, "descending", 0), &out[1]));
}
static int h_argsort(conf_case *c, ct_tensor **out) { ONE(ct_argsort(IN(0), (int)conf_int(c, "dim", -1), conf_bool(c, "descending", 0))); }
static int h_topk(conf_case *c, ct_tensor **out) {
    TWO(ct_topk(IN(0), conf_int(c, "k", 1), (int)conf_int(c, "dim", -1), conf_bool(c, "largest", 1), conf_bool(c, "sorted", 1), &out[1]));
}
static int h_kthvalue(conf_case *c, ct_tensor **out) {
    TWO(ct_kthvalue(IN(0), conf_int(c, "k", 1), (int)conf_int(c, "dim", -1), keepdim(c), &out[1]));
}
static int h_median(conf_case *c, ct_tensor **out) {
    int64_t d[CT_MAX_DIMS];
    if (dims(c, d) < 0) ONE(ct_median(IN(0)));
    TWO(ct_median_dim(IN(0), (int)d[0], keepdim(c), &out[1]));
}
static int h_mode(conf_case *c, ct_tensor **out) { TWO(ct_mode(IN(0), (int)conf_int(c, "dim", -1), keepdim(c), &out[1])); }

const conf_op conf_ops_reduce[] = {
    {"torch.sum", h_sum, NULL},
    {"torch.mean", h_mean, NULL},
    {"torch.nansum", h_nansum, NULL},
    {"torch.nanmean", h_nanmean, NULL},
    {"torch.prod", h_prod, NULL},
    {"torch.var", h_var, NULL},
    {"torch.std", h_std, NULL},
    {"torch.var_mean", h_var_mean, NULL},
    {"torch.std_mean", h_std_mean, NULL},
    {"torch.max", h_max, NULL},
    {"torch.min", h_min, NULL},
    {"torch.amax", h_amax, NULL},
    {"torch.amin", h_amin, NULL},
    {"torch.argmax", h_argmax, NULL},
    {"torch.argmin", h_argmin, NULL},
    {"torch.logsumexp", h_logsumexp, NULL},
    {"torch.all", h_all, NULL},
    {"torch.any", h_any, NULL},
    {"torch.count_nonzero", h_count_nonzero, NULL},
    {"torch.norm", h_norm, NULL},
    {"torch.softmax", h_softmax, NULL},
    {"torch.nn.functional.softmax", h_softmax, NULL},
    {"torch.log_softmax", h_log_softmax, NULL},
    {"torch.nn.functional.log_softmax", h_log_softmax, NULL},
    {"torch.cumsum", h_cumsum, NULL},
    {"torch.cumprod", h_cumprod, NULL},
    {"torch.cummax", h_cummax, NULL},
    {"torch.cummin", h_cummin, NULL},
    {"torch.sort", h_sort, NULL},
    {"torch.argsort", h_argsort, NULL},
    {"torch.topk", h_topk, NULL},
    {"torch.kthvalue", h_kthvalue, NULL},
    {"torch.median", h_median, NULL},
    {"torch.mode", h_mode, NULL},
    {0, 0, 0}};
