/* Conformance handlers: matrix products (mm, bmm, matmul, addmm, baddbmm, addmv,
   mv, dot, vdot, outer, linear, tensordot, einsum). */
#include <string.h>
#include "conf.h"

#define IN(k) (c->in[k])
#define ONE(expr) do { out[0] = (expr); return out[0] ? 1 : -1; } while (0)

static int h_mm(conf_case *c, ct_tensor **out) { ONE(ct_mm(IN(0), IN(1))); }
static int h_bmm(conf_case *c, ct_tensor **out) { ONE(ct_bmm(IN(0), IN(1))); }
static int h_matmul(conf_case *c, ct_tensor **out) { ONE(ct_matmul(IN(0), IN(1))); }
static int h_mv(conf_case *c, ct_tensor **out) { ONE(ct_mv(IN(0), IN(1))); }
static int h_dot(conf_case *c, ct_tensor **out) { ONE(ct_dot(IN(0), IN(1))); }
static int h_vdot(conf_case *c, ct_tensor **out) { ONE(ct_vdot(IN(0), IN(1))); }
static int h_outer(conf_case *c, ct_tensor **out) { ONE(ct_outer(IN(0), IN(1))); }
static int h_addmm(conf_case *c, ct_tensor **out) {
    ONE(ct_addmm(IN(0), IN(1), IN(2), conf_double(c, "beta", 1.0), conf_double(c, "alpha", 1.0)));
}
static int h_baddbmm(conf_case *c, ct_tensor **out) {
    ONE(ct_baddbmm(IN(0), IN(1), IN(2), conf_double(c, "beta", 1.0), conf_double(c, "alpha", 1.0)));
}
static int h_addmv(conf_case *c, ct_tensor **out) {
    ONE(ct_addmv(IN(0), IN(1), IN(2), conf_double(c, "beta", 1.0), conf_double(c, "alpha", 1.0)));
}
/* F.linear(input, weight, bias=None): the bias is in2 when given ("bias": null or absent: None) */
static int h_linear(conf_case *c, ct_tensor **out) {
    static const char *const names[] = {"input", "weight", "bias"};
    ct_tensor *t[3];
    if (conf_tensors(c, 3, names, 2, t)) return -1;
    ONE(ct_linear(t[0], t[1], t[2]));
}
/* dims: an int, or [dims_a, dims_b] */
static int h_tensordot(conf_case *c, ct_tensor **out) {
    json_value *d = c->args ? json_get(c->args, "dims") : NULL;
    if (!d || d->type == JSON_NUMBER) ONE(ct_tensordot_int(IN(0), IN(1), d ? conf_json_int(d, 2) : 2));
    int64_t da[2 * CT_MAX_DIMS], db[2 * CT_MAX_DIMS];
    int na = 0, nb = 0;
    json_value *a = json_at(d, 0), *b = json_at(d, 1);
    if (!a || !b) { ct_set_error(CT_ERR_ARG, "tensordot case: dims must be an int or two lists"); return -1; }
    if (a->type == JSON_NUMBER) da[na++] = conf_json_int(a, 0);
    for (int i = 0; a->type == JSON_ARRAY && i < a->count && na < 2 * CT_MAX_DIMS; i++) da[na++] = conf_json_int(a->items[i], 0);
    if (b->type == JSON_NUMBER) db[nb++] = conf_json_int(b, 0);
    for (int i = 0; b->type == JSON_ARRAY && i < b->count && nb < 2 * CT_MAX_DIMS; i++) db[nb++] = conf_json_int(b->items[i], 0);
    ONE(ct_tensordot(IN(0), IN(1), na, da, nb, db));
}
static int h_einsum(conf_case *c, ct_tensor **out) {
    const char *eq = conf_str(c, "equation", NULL);
    if (!eq) { ct_set_error(CT_ERR_ARG, "einsum case: no \"equation\" in args"); return -1; }
    ONE(ct_einsum(eq, c->nin, c->in));
}

const conf_op conf_ops_blas[] = {
    {"torch.mm", h_mm, NULL},
    {"torch.bmm", h_bmm, NULL},
    {"torch.matmul", h_matmul, NULL},
    {"torch.addmm", h_addmm, NULL},
    {"torch.baddbmm", h_baddbmm, NULL},
    {"torch.addmv", h_addmv, NULL},
    {"torch.mv", h_mv, NULL},
    {"torch.dot", h_dot, NULL},
    {"torch.vdot", h_vdot, NULL},
    {"torch.outer", h_outer, NULL},
    {"torch.nn.functional.linear", h_linear, NULL},
    {"torch.tensordot", h_tensordot, NULL},
    {"torch.einsum", h_einsum, NULL},
    {0, 0, 0}};
