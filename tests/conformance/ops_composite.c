/* Conformance handlers: ctensor_composite.h (input conventions: see
   tests/reference/cases_composite.py). */
#include <string.h>
#include "conf.h"
#include "ctensor_composite.h"

#define IN(k) (c->in[k])
#define ONE(expr) do { out[0] = (expr); return out[0] ? 1 : -1; } while (0)
#define DIM(def) ((int)conf_int(c, "dim", def))

static int h_movedim(conf_case *c, ct_tensor **out) {
    int64_t s[CT_MAX_DIMS], d[CT_MAX_DIMS];
    int ns = conf_ints(c, "source", s, CT_MAX_DIMS), nd = conf_ints(c, "destination", d, CT_MAX_DIMS);
    if (ns != nd) return conf_skip(c, "source and destination of different lengths");
    ONE(ct_movedim(IN(0), ns, s, d));
}
static int h_swapaxes(conf_case *c, ct_tensor **out) { ONE(ct_swapaxes(IN(0), (int)conf_int(c, "axis0", 0), (int)conf_int(c, "axis1", 1))); }
static int h_swapdims(conf_case *c, ct_tensor **out) { ONE(ct_swapdims(IN(0), (int)conf_int(c, "dim0", 0), (int)conf_int(c, "dim1", 1))); }
static int h_atleast_1d(conf_case *c, ct_tensor **out) { ONE(ct_atleast_1d(IN(0))); }
static int h_atleast_2d(conf_case *c, ct_tensor **out) { ONE(ct_atleast_2d(IN(0))); }
static int h_atleast_3d(conf_case *c, ct_tensor **out) { ONE(ct_atleast_3d(IN(0))); }
static int h_ravel(conf_case *c, ct_tensor **out) { ONE(ct_ravel(IN(0))); }
static int h_fliplr(conf_case *c, ct_tensor **out) { ONE(ct_fliplr(IN(0))); }
static int h_flipud(conf_case *c, ct_tensor **out) { ONE(ct_flipud(IN(0))); }
static int h_rot90(conf_case *c, ct_tensor **out) {
    int64_t d[2] = {0, 1};
    conf_ints(c, "dims", d, 2);
    ONE(ct_rot90(IN(0), conf_int(c, "k", 1), (int)d[0], (int)d[1]));
}
/* Tensor.unfold(dimension, size, step) */
static int h_unfold(conf_case *c, ct_tensor **out) {
    ONE(ct_unfold(IN(0), (int)conf_int(c, "dimension", conf_int(c, "dim", 0)), conf_int(c, "size", 1), conf_int(c, "step", 1)));
}
static int h_diagflat(conf_case *c, ct_tensor **out) { ONE(ct_diagflat(IN(0), conf_int(c, "offset", 0))); }
static int h_positive(conf_case *c, ct_tensor **out) { ONE(ct_positive(IN(0))); }

static int h_hstack(conf_case *c, ct_tensor **out) { ONE(ct_hstack(c->nin, c->in)); }
static int h_vstack(conf_case *c, ct_tensor **out) { ONE(ct_vstack(c->nin, c->in)); }
static int h_row_stack(conf_case *c, ct_tensor **out) { ONE(ct_row_stack(c->nin, c->in)); }
static int h_dstack(conf_case *c, ct_tensor **out) { ONE(ct_dstack(c->nin, c->in)); }
static int h_column_stack(conf_case *c, ct_tensor **out) { ONE(ct_column_stack(c->nin, c->in)); }
static int h_block_diag(conf_case *c, ct_tensor **out) { ONE(ct_block_diag(c->nin, c->in)); }
static int pieces(conf_case *c, int n) {
    if (n > CONF_MAX_OUT) return conf_skip(c, "%d pieces: the runner compares at most %d", n, CONF_MAX_OUT);
    return n;
}
static int h_tensor_split(conf_case *c, ct_tensor **out) {
    int64_t idx[16];
    int ni = conf_ints(c, "indices", idx, 16);
    int n = ni >= 0 ? ct_tensor_split_indices(IN(0), ni, idx, DIM(0), out, CONF_MAX_OUT)
                    : ct_tensor_split(IN(0), conf_int(c, "sections", 1), DIM(0), out, CONF_MAX_OUT);
    return n < 0 ? -1 : pieces(c, n);
}
typedef int (*split_fn)(const ct_tensor *, int64_t, ct_tensor **, int);
typedef int (*split_idx_fn)(const ct_tensor *, int, const int64_t *, ct_tensor **, int);
static int hvd(conf_case *c, ct_tensor **out, split_fn f, split_idx_fn fi) {
    int64_t idx[16];
    int ni = conf_ints(c, "indices", idx, 16);
    int n = ni >= 0 ? fi(IN(0), ni, idx, out, CONF_MAX_OUT) : f(IN(0), conf_int(c, "sections", 1), out, CONF_MAX_OUT);
    return n < 0 ? -1 : pieces(c, n);
}
static int h_hsplit(conf_case *c, ct_tensor **out) { return hvd(c, out, ct_hsplit, ct_hsplit_indices); }
static int h_vsplit(conf_case *c, ct_tensor **out) { return hvd(c, out, ct_vsplit, ct_vsplit_indices); }
static int h_dsplit(conf_case *c, ct_tensor **out) { return hvd(c, out, ct_dsplit, ct_dsplit_indices); }
static int h_meshgrid(conf_case *c, ct_tensor **out) {
    if (c->nin > CONF_MAX_OUT) return conf_skip(c, "%d outputs", c->nin);
    return ct_meshgrid(c->nin, c->in, conf_str(c, "indexing", "ij"), out) ? -1 : c->nin;
}
static int h_cartesian_prod(conf_case *c, ct_tensor **out) { ONE(ct_cartesian_prod(c->nin, c->in)); }
static int h_combinations(conf_case *c, ct_tensor **out) {
    ONE(ct_combinations(IN(0), conf_int(c, "r", 2), conf_bool(c, "with_replacement", 0)));
}
static int h_tril_indices(conf_case *c, ct_tensor **out) {
    ONE(ct_tril_indices(conf_int(c, "row", 0), conf_int(c, "col", 0), conf_int(c, "offset", 0), CT_INT64));
}
static int h_triu_indices(conf_case *c, ct_tensor **out) {
    ONE(ct_triu_indices(conf_int(c, "row", 0), conf_int(c, "col", 0), conf_int(c, "offset", 0), CT_INT64));
}

static int h_kron(conf_case *c, ct_tensor **out) { ONE(ct_kron(IN(0), IN(1))); }
static int h_inner(conf_case *c, ct_tensor **out) { ONE(ct_inner(IN(0), IN(1))); }
static int h_addr(conf_case *c, ct_tensor **out) {
    ONE(ct_addr(IN(0), IN(1), IN(2), conf_double(c, "beta", 1.0), conf_double(c, "alpha", 1.0)));
}
static int h_ldexp(conf_case *c, ct_tensor **out) { ONE(ct_ldexp(IN(0), IN(1))); }
static int h_float_power(conf_case *c, ct_tensor **out) {
    if (c->nin == 1) ONE(ct_float_power_scalar(IN(0), conf_double(c, "exponent", 1.0)));
    ONE(ct_float_power(IN(0), IN(1)));
}
static int h_logaddexp(conf_case *c, ct_tensor **out) { ONE(ct_logaddexp(IN(0), IN(1))); }
static int h_logaddexp2(conf_case *c, ct_tensor **out) { ONE(ct_logaddexp2(IN(0), IN(1))); }
static int h_isreal(conf_case *c, ct_tensor **out) { ONE(ct_isreal(IN(0))); }
static int h_dist(conf_case *c, ct_tensor **out) { ONE(ct_dist(IN(0), IN(1), conf_double(c, "p", 2.0))); }
static int h_cdist(conf_case *c, ct_tensor **out) { ONE(ct_cdist(IN(0), IN(1), conf_double(c, "p", 2.0))); }
static int h_renorm(conf_case *c, ct_tensor **out) {
    ONE(ct_renorm(IN(0), conf_double(c, "p", 2.0), DIM(0), conf_double(c, "maxnorm", 1.0)));
}
static int h_diff(conf_case *c, ct_tensor **out) {
    int k = 1;
    ct_tensor *pre = conf_bool(c, "prepend", 0) ? IN(k++) : NULL;
    ct_tensor *app = conf_bool(c, "append", 0) ? IN(k++) : NULL;
    ONE(ct_diff(IN(0), conf_int(c, "n", 1), DIM(-1), pre, app));
}
static int h_trapezoid(conf_case *c, ct_tensor **out) { ONE(ct_trapezoid(IN(0), c->nin > 1 ? IN(1) : NULL, conf_double(c, "dx", 1.0), DIM(-1))); }
static int h_cumulative_trapezoid(conf_case *c, ct_tensor **out) {
    ONE(ct_cumulative_trapezoid(IN(0), c->nin > 1 ? IN(1) : NULL, conf_double(c, "dx", 1.0), DIM(-1)));
}
static int h_logspace(conf_case *c, ct_tensor **out) {
    ct_dtype dt = conf_has(c, "dtype") ? conf_dtype(c, "dtype") : CT_FLOAT32;
    ONE(ct_logspace(conf_double(c, "start", 0), conf_double(c, "end", 1), conf_int(c, "steps", 100), conf_double(c, "base", 10.0), dt));
}
static int h_take_along_dim(conf_case *c, ct_tensor **out) {
    ONE(ct_take_along_dim(IN(0), IN(1), conf_has(c, "dim") ? DIM(0) : CT_DIM_NONE));
}

static int h_cov(conf_case *c, ct_tensor **out) {
    int k = 1;
    ct_tensor *f = conf_bool(c, "fweights", 0) ? IN(k++) : NULL;
    ct_tensor *a = conf_bool(c, "aweights", 0) ? IN(k++) : NULL;
    ONE(ct_cov(IN(0), conf_int(c, "correction", 1), f, a));
}
static int h_corrcoef(conf_case *c, ct_tensor **out) { ONE(ct_corrcoef(IN(0))); }
static int h_aminmax(conf_case *c, ct_tensor **out) {
    int dim = conf_has(c, "dim") ? DIM(0) : CT_DIM_NONE;
    return ct_aminmax(IN(0), dim, conf_bool(c, "keepdim", 0), &out[0], &out[1]) ? -1 : 2;
}
static int quantile_any(conf_case *c, ct_tensor **out, int nan) {
    int dim = conf_has(c, "dim") ? DIM(0) : CT_DIM_NONE, keep = conf_bool(c, "keepdim", 0);
    const char *interp = conf_str(c, "interpolation", "linear");
    if (c->nin > 1) ONE(nan ? ct_nanquantile_t(IN(0), IN(1), dim, keep, interp) : ct_quantile_t(IN(0), IN(1), dim, keep, interp));
    double q = conf_double(c, "q", 0.5);
    ONE(nan ? ct_nanquantile(IN(0), q, dim, keep, interp) : ct_quantile(IN(0), q, dim, keep, interp));
}
static int h_quantile(conf_case *c, ct_tensor **out) { return quantile_any(c, out, 0); }
static int h_nanquantile(conf_case *c, ct_tensor **out) { return quantile_any(c, out, 1); }

static int h_heaviside(conf_case *c, ct_tensor **out) { ONE(ct_heaviside(IN(0), IN(1))); }
static int h_bincount(conf_case *c, ct_tensor **out) { ONE(ct_bincount(IN(0), c->nin > 1 ? IN(1) : NULL, conf_int(c, "minlength", 0))); }
static int h_histc(conf_case *c, ct_tensor **out) {
    ONE(ct_histc(IN(0), conf_int(c, "bins", 100), conf_double(c, "min", 0.0), conf_double(c, "max", 0.0)));
}
static int h_logcumsumexp(conf_case *c, ct_tensor **out) { ONE(ct_logcumsumexp(IN(0), DIM(0))); }
static int h_histogram(conf_case *c, ct_tensor **out) {
    int k = 1, by_count = conf_has(c, "bins");
    ct_tensor *edges = by_count ? NULL : IN(k++);
    ct_tensor *w = conf_bool(c, "weight", 0) ? IN(k++) : NULL;
    double range[2] = {conf_double(c, "range_lo", 0), conf_double(c, "range_hi", 0)};
    int has_range = conf_has(c, "range_lo");
    int density = conf_bool(c, "density", 0);
    out[1] = NULL;
    out[0] = by_count ? ct_histogram(IN(0), conf_int(c, "bins", 1), has_range ? range : NULL, w, density, &out[1])
                      : ct_histogram_bins(IN(0), edges, w, density, &out[1]);
    return out[0] ? 2 : -1;
}
static int h_searchsorted(conf_case *c, ct_tensor **out) {
    ONE(ct_searchsorted(IN(0), IN(1), conf_bool(c, "out_int32", 0), conf_bool(c, "right", 0), conf_str(c, "side", NULL), c->nin > 2 ? IN(2) : NULL));
}
static int h_bucketize(conf_case *c, ct_tensor **out) { ONE(ct_bucketize(IN(0), IN(1), conf_bool(c, "out_int32", 0), conf_bool(c, "right", 0))); }
static int unique_any(conf_case *c, ct_tensor **out, int consecutive) {
    int inv = conf_bool(c, "return_inverse", 0), cnt = conf_bool(c, "return_counts", 0), n = 1;
    ct_tensor *i = NULL, *k = NULL;
    if (conf_has(c, "dim")) {
        int d = DIM(0);
        out[0] = consecutive ? ct_unique_consecutive_dim(IN(0), d, inv ? &i : NULL, cnt ? &k : NULL) : ct_unique_dim(IN(0), d, inv ? &i : NULL, cnt ? &k : NULL);
    } else {
        out[0] = consecutive ? ct_unique_consecutive(IN(0), inv ? &i : NULL, cnt ? &k : NULL) : ct_unique(IN(0), inv ? &i : NULL, cnt ? &k : NULL);
    }
    if (!out[0]) return -1;
    if (inv) out[n++] = i;
    if (cnt) out[n++] = k;
    return n;
}
static int h_unique(conf_case *c, ct_tensor **out) { return unique_any(c, out, 0); }
static int h_unique_consecutive(conf_case *c, ct_tensor **out) { return unique_any(c, out, 1); }

const conf_op conf_ops_composite[] = {
    {"torch.movedim", h_movedim, NULL},
    {"torch.moveaxis", h_movedim, NULL},
    {"torch.swapaxes", h_swapaxes, NULL},
    {"torch.swapdims", h_swapdims, NULL},
    {"torch.atleast_1d", h_atleast_1d, NULL},
    {"torch.atleast_2d", h_atleast_2d, NULL},
    {"torch.atleast_3d", h_atleast_3d, NULL},
    {"torch.ravel", h_ravel, NULL},
    {"torch.fliplr", h_fliplr, NULL},
    {"torch.flipud", h_flipud, NULL},
    {"torch.rot90", h_rot90, NULL},
    {"torch.diagflat", h_diagflat, NULL},
    {"torch.positive", h_positive, NULL},
    {"Tensor.unfold", h_unfold, NULL},
    {"torch.hstack", h_hstack, NULL},
    {"torch.vstack", h_vstack, NULL},
    {"torch.row_stack", h_row_stack, NULL},
    {"torch.dstack", h_dstack, NULL},
    {"torch.column_stack", h_column_stack, NULL},
    {"torch.block_diag", h_block_diag, NULL},
    {"torch.tensor_split", h_tensor_split, NULL},
    {"torch.hsplit", h_hsplit, NULL},
    {"torch.vsplit", h_vsplit, NULL},
    {"torch.dsplit", h_dsplit, NULL},
    {"torch.meshgrid", h_meshgrid, NULL},
    {"torch.cartesian_prod", h_cartesian_prod, NULL},
    {"torch.combinations", h_combinations, NULL},
    {"torch.tril_indices", h_tril_indices, NULL},
    {"torch.triu_indices", h_triu_indices, NULL},
    {"torch.kron", h_kron, NULL},
    {"torch.inner", h_inner, NULL},
    {"torch.addr", h_addr, NULL},
    {"torch.ldexp", h_ldexp, NULL},
    {"torch.float_power", h_float_power, NULL},
    {"torch.logaddexp", h_logaddexp, NULL},
    {"torch.logaddexp2", h_logaddexp2, NULL},
    {"torch.isreal", h_isreal, NULL},
    {"torch.dist", h_dist, NULL},
    {"torch.cdist", h_cdist, NULL},
    {"torch.renorm", h_renorm, NULL},
    {"torch.diff", h_diff, NULL},
    {"torch.trapezoid", h_trapezoid, NULL},
    {"torch.cumulative_trapezoid", h_cumulative_trapezoid, NULL},
    {"torch.logspace", h_logspace, NULL},
    {"torch.take_along_dim", h_take_along_dim, NULL},
    {"torch.cov", h_cov, NULL},
    {"torch.corrcoef", h_corrcoef, NULL},
    {"torch.aminmax", h_aminmax, NULL},
    {"torch.quantile", h_quantile, NULL},
    {"torch.nanquantile", h_nanquantile, NULL},
    {"torch.heaviside", h_heaviside, NULL},
    {"torch.bincount", h_bincount, NULL},
    {"torch.histc", h_histc, NULL},
    {"torch.unique", h_unique, NULL},
    {"torch.unique_consecutive", h_unique_consecutive, NULL},
    {"torch.searchsorted", h_searchsorted, NULL},
    {"torch.logcumsumexp", h_logcumsumexp, NULL},
    {"torch.histogram", h_histogram, NULL},
    {"torch.bucketize", h_bucketize, NULL},
    {0, 0, 0}};
