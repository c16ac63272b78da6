/* Conformance handlers: indexing and joining (input conventions: see
   tests/reference/cases_index.py). */
#include <string.h>
#include "conf.h"

#define IN(k) (c->in[k])
#define ONE(expr) do { out[0] = (expr); return out[0] ? 1 : -1; } while (0)
#define DIM(def) ((int)conf_int(c, "dim", def))

static int h_index_select(conf_case *c, ct_tensor **out) { ONE(ct_index_select(IN(0), DIM(0), IN(1))); }
static int h_gather(conf_case *c, ct_tensor **out) { ONE(ct_gather(IN(0), DIM(0), IN(1))); }
/* scatter / scatter_: src tensor (in2) or args.value */
static int scatter_any(conf_case *c, ct_tensor **out, int inplace) {
    ct_tensor *x = inplace ? ct_clone(IN(0)) : IN(0);
    if (c->nin >= 3) ONE(inplace ? ct_scatter_(x, DIM(0), IN(1), IN(2)) : ct_scatter(x, DIM(0), IN(1), IN(2)));
    double v = conf_double(c, "value", 0.0);
    ONE(inplace ? ct_scatter_value_(x, DIM(0), IN(1), v) : ct_scatter_value(x, DIM(0), IN(1), v));
}
static int h_scatter(conf_case *c, ct_tensor **out) { return scatter_any(c, out, 0); }
static int h_scatter_(conf_case *c, ct_tensor **out) { return scatter_any(c, out, 1); }
static int h_scatter_add(conf_case *c, ct_tensor **out) { ONE(ct_scatter_add(IN(0), DIM(0), IN(1), IN(2))); }
static int h_scatter_add_(conf_case *c, ct_tensor **out) { ONE(ct_scatter_add_(ct_clone(IN(0)), DIM(0), IN(1), IN(2))); }
static int h_scatter_reduce(conf_case *c, ct_tensor **out) {
    ONE(ct_scatter_reduce(IN(0), DIM(0), IN(1), IN(2), conf_str(c, "reduce", "sum"), conf_bool(c, "include_self", 1)));
}
static int h_scatter_reduce_(conf_case *c, ct_tensor **out) {
    ONE(ct_scatter_reduce_(ct_clone(IN(0)), DIM(0), IN(1), IN(2), conf_str(c, "reduce", "sum"), conf_bool(c, "include_self", 1)));
}
static int h_index_add(conf_case *c, ct_tensor **out) { ONE(ct_index_add(IN(0), DIM(0), IN(1), IN(2), conf_double(c, "alpha", 1.0))); }
static int h_index_add_(conf_case *c, ct_tensor **out) { ONE(ct_index_add_(ct_clone(IN(0)), DIM(0), IN(1), IN(2), conf_double(c, "alpha", 1.0))); }
static int h_index_copy(conf_case *c, ct_tensor **out) { ONE(ct_index_copy(IN(0), DIM(0), IN(1), IN(2))); }
static int h_index_copy_(conf_case *c, ct_tensor **out) { ONE(ct_index_copy_(ct_clone(IN(0)), DIM(0), IN(1), IN(2))); }
static int h_index_fill(conf_case *c, ct_tensor **out) { ONE(ct_index_fill(IN(0), DIM(0), IN(1), conf_double(c, "value", 0.0))); }
static int h_index_fill_(conf_case *c, ct_tensor **out) { ONE(ct_index_fill_(ct_clone(IN(0)), DIM(0), IN(1), conf_double(c, "value", 0.0))); }
static int h_take(conf_case *c, ct_tensor **out) { ONE(ct_take(IN(0), IN(1))); }

/* the index list: inputs from `first` on, with CT_SLICE_ALL at args.slices positions */
static int index_list(conf_case *c, int first, ct_tensor **list) {
    int64_t sl[CT_MAX_DIMS];
    int ns = conf_ints(c, "slices", sl, CT_MAX_DIMS), n = 0, k = first;
    if (ns < 0) ns = 0;
    int total = c->nin - first + ns;
    for (int p = 0; p < total && p < CT_MAX_DIMS + 4; p++) {
        int is_slice = 0;
        for (int q = 0; q < ns; q++) is_slice |= sl[q] == p;
        list[n++] = is_slice ? CT_SLICE_ALL : IN(k++);
    }
    return n;
}
static int h_index_put(conf_case *c, ct_tensor **out) {
    ct_tensor *list[CT_MAX_DIMS + 4];
    int n = index_list(c, 2, list);
    ONE(ct_index_put(IN(0), n, list, IN(1), conf_bool(c, "accumulate", 0)));
}
static int h_index_put_(conf_case *c, ct_tensor **out) {
    ct_tensor *list[CT_MAX_DIMS + 4];
    int n = index_list(c, 2, list);
    ONE(ct_index_put_(ct_clone(IN(0)), n, list, IN(1), conf_bool(c, "accumulate", 0)));
}
static int h_getitem(conf_case *c, ct_tensor **out) {
    ct_tensor *list[CT_MAX_DIMS + 4];
    int n = index_list(c, 1, list);
    ONE(ct_index(IN(0), n, list));
}
static int h_masked_select(conf_case *c, ct_tensor **out) { ONE(ct_masked_select(IN(0), IN(1))); }
static int h_masked_scatter(conf_case *c, ct_tensor **out) { ONE(ct_masked_scatter(IN(0), IN(1), IN(2))); }
static int h_masked_scatter_(conf_case *c, ct_tensor **out) { ONE(ct_masked_scatter_(ct_clone(IN(0)), IN(1), IN(2))); }
static int h_nonzero(conf_case *c, ct_tensor **out) {
    if (conf_bool(c, "as_tuple", 0)) {
        int n = ct_nonzero_tuple(IN(0), out, CONF_MAX_OUT);
        return n > CONF_MAX_OUT ? CONF_MAX_OUT : n;
    }
    ONE(ct_nonzero(IN(0)));
}
static int h_cat(conf_case *c, ct_tensor **out) { ONE(ct_cat(c->nin, c->in, DIM(0))); }
static int h_stack(conf_case *c, ct_tensor **out) { ONE(ct_stack(c->nin, c->in, DIM(0))); }
static int pieces(int n) { return n > CONF_MAX_OUT ? CONF_MAX_OUT : n; }
static int h_split(conf_case *c, ct_tensor **out) {
    int64_t s[64];
    const char *key = conf_has(c, "split_size_or_sections") ? "split_size_or_sections" : "split_size";   /* Tensor.split's name */
    int ns = conf_ints(c, key, s, 64);
    json_value *v = json_get(c->args, key);
    if (v && v->type == JSON_ARRAY) return pieces(ct_split_sizes(IN(0), ns, s, DIM(0), out, CONF_MAX_OUT));
    return pieces(ct_split(IN(0), ns > 0 ? s[0] : 1, DIM(0), out, CONF_MAX_OUT));
}
static int h_chunk(conf_case *c, ct_tensor **out) { return pieces(ct_chunk(IN(0), (int)conf_int(c, "chunks", 1), DIM(0), out, CONF_MAX_OUT)); }
static int h_unbind(conf_case *c, ct_tensor **out) { return pieces(ct_unbind(IN(0), DIM(0), out, CONF_MAX_OUT)); }
static int h_flip(conf_case *c, ct_tensor **out) {
    int64_t d[CT_MAX_DIMS];
    int n = conf_ints(c, "dims", d, CT_MAX_DIMS);
    ONE(ct_flip(IN(0), n < 0 ? 0 : n, d));
}
static int h_roll(conf_case *c, ct_tensor **out) {
    int64_t s[CT_MAX_DIMS], d[CT_MAX_DIMS];
    int ns = conf_ints(c, "shifts", s, CT_MAX_DIMS), nd = conf_ints(c, "dims", d, CT_MAX_DIMS);
    ONE(ct_roll(IN(0), ns < 0 ? 0 : ns, s, nd < 0 ? 0 : nd, d));
}
static int h_repeat(conf_case *c, ct_tensor **out) {
    int64_t r[CT_MAX_DIMS + 1];
    int n = conf_ints(c, "repeats", r, CT_MAX_DIMS + 1);
    ONE(ct_repeat(IN(0), n < 0 ? 0 : n, r));
}
static int h_tile(conf_case *c, ct_tensor **out) {
    int64_t r[CT_MAX_DIMS + 1];
    int n = conf_ints(c, "dims", r, CT_MAX_DIMS + 1);
    ONE(ct_tile(IN(0), n < 0 ? 0 : n, r));
}
static int h_repeat_interleave(conf_case *c, ct_tensor **out) {
    int dim = !conf_has(c, "dim") || conf_is_null(c, "dim") ? CT_DIM_NONE : DIM(0);
    if (c->nin >= 2) ONE(ct_repeat_interleave_tensor(IN(0), IN(1), dim));
    if (conf_has(c, "repeats")) ONE(ct_repeat_interleave(IN(0), conf_int(c, "repeats", 1), dim));
    ONE(ct_repeat_interleave_index(IN(0)));
}
static int h_tril(conf_case *c, ct_tensor **out) { ONE(ct_tril(IN(0), conf_int(c, "diagonal", 0))); }
static int h_triu(conf_case *c, ct_tensor **out) { ONE(ct_triu(IN(0), conf_int(c, "diagonal", 0))); }
static int h_diag(conf_case *c, ct_tensor **out) { ONE(ct_diag(IN(0), conf_int(c, "diagonal", 0))); }
static int h_diag_embed(conf_case *c, ct_tensor **out) {
    ONE(ct_diag_embed(IN(0), conf_int(c, "offset", 0), (int)conf_int(c, "dim1", -2), (int)conf_int(c, "dim2", -1)));
}
static int h_one_hot(conf_case *c, ct_tensor **out) { ONE(ct_one_hot(IN(0), conf_int(c, "num_classes", -1))); }
static int h_pad(conf_case *c, ct_tensor **out) {
    int64_t p[2 * CT_MAX_DIMS + 2];
    int n = conf_ints(c, "pad", p, 2 * CT_MAX_DIMS + 2);
    double v = conf_has(c, "value") && !conf_is_null(c, "value") ? conf_double(c, "value", 0.0) : 0.0;
    ONE(ct_pad(IN(0), n < 0 ? 0 : n, p, conf_str(c, "mode", "constant"), v));
}

const conf_op conf_ops_index[] = {
    {"torch.index_select", h_index_select, NULL},
    {"torch.gather", h_gather, NULL},
    {"torch.scatter", h_scatter, NULL},
    {"Tensor.scatter_", h_scatter_, NULL},
    {"torch.scatter_add", h_scatter_add, NULL},
    {"Tensor.scatter_add_", h_scatter_add_, NULL},
    {"torch.scatter_reduce", h_scatter_reduce, NULL},
    {"Tensor.scatter_reduce_", h_scatter_reduce_, NULL},
    {"torch.index_add", h_index_add, NULL},
    {"Tensor.index_add_", h_index_add_, NULL},
    {"torch.index_copy", h_index_copy, NULL},
    {"Tensor.index_copy_", h_index_copy_, NULL},
    {"torch.index_fill", h_index_fill, NULL},
    {"Tensor.index_fill_", h_index_fill_, NULL},
    {"torch.index_put", h_index_put, NULL},
    {"Tensor.index_put", h_index_put, NULL},
    {"Tensor.index_put_", h_index_put_, NULL},
    {"Tensor.__getitem__", h_getitem, NULL},
    {"torch.masked_select", h_masked_select, NULL},
    {"torch.masked_scatter", h_masked_scatter, NULL},
    {"Tensor.masked_scatter_", h_masked_scatter_, NULL},
    {"torch.nonzero", h_nonzero, NULL},
    {"torch.take", h_take, NULL},
    {"torch.cat", h_cat, NULL},
    {"torch.concat", h_cat, NULL},
    {"torch.stack", h_stack, NULL},
    {"torch.split", h_split, NULL},
    {"torch.chunk", h_chunk, NULL},
    {"torch.unbind", h_unbind, NULL},
    {"torch.flip", h_flip, NULL},
    {"torch.roll", h_roll, NULL},
    {"Tensor.repeat", h_repeat, NULL},
    {"torch.repeat_interleave", h_repeat_interleave, NULL},
    {"torch.tile", h_tile, NULL},
    {"torch.tril", h_tril, NULL},
    {"torch.triu", h_triu, NULL},
    {"torch.diag", h_diag, NULL},
    {"torch.diag_embed", h_diag_embed, NULL},
    {"torch.nn.functional.one_hot", h_one_hot, NULL},
    {"torch.nn.functional.pad", h_pad, NULL},
    {0, 0, 0}};
