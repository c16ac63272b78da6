/* Conformance handlers: convolution and pooling (F.conv1d, F.conv2d,
   F.conv_transpose2d, F.max_pool2d, F.avg_pool2d, F.adaptive_avg_pool2d,
   F.max_pool1d, F.avg_pool1d). Args: ints or [h, w] lists; padding may be
   "same" / "valid". Tensors: input, weight, bias (in2, or "bias": null / absent). */
#include <string.h>
#include "conf.h"

#define IN(k) (c->in[k])
#define ONE(expr) do { out[0] = (expr); return out[0] ? 1 : -1; } while (0)

/* an int or [h, w] argument into a scalar field (a square value) or an _hw pair */
static void pair_arg(conf_case *c, const char *key, int64_t *scalar, int64_t *hw) {
    int64_t v[2] = {0, 0};
    int n = conf_ints(c, key, v, 2);
    if (n == 1) *scalar = v[0];
    else if (n == 2) { hw[0] = v[0]; hw[1] = v[1]; }
}
static ct_conv_options conv_opts(conf_case *c) {
    ct_conv_options o;
    memset(&o, 0, sizeof o);
    json_value *p = c->args ? json_get(c->args, "padding") : NULL;
    if (p && p->type == JSON_STRING) o.padding_str = conf_str(c, "padding", NULL);
    else pair_arg(c, "padding", &o.padding, o.padding_hw);
    pair_arg(c, "stride", &o.stride, o.stride_hw);
    pair_arg(c, "dilation", &o.dilation, o.dilation_hw);
    pair_arg(c, "output_padding", &o.output_padding, o.output_padding_hw);
    o.groups = conf_int(c, "groups", 1);
    return o;
}
/* F.conv*(input, weight, bias=None, ...) */
static int conv(conf_case *c, ct_tensor **out,
                ct_tensor *(*f)(const ct_tensor *, const ct_tensor *, const ct_tensor *, const ct_conv_options *)) {
    static const char *const names[] = {"input", "weight", "bias"};
    ct_tensor *t[3];
    if (conf_tensors(c, 3, names, 2, t)) return -1;
    ct_conv_options o = conv_opts(c);
    ONE(f(t[0], t[1], t[2], &o));
}
static int h_conv2d(conf_case *c, ct_tensor **out) { return conv(c, out, ct_conv2d); }
static int h_conv1d(conf_case *c, ct_tensor **out) { return conv(c, out, ct_conv1d); }
static int h_conv_transpose2d(conf_case *c, ct_tensor **out) { return conv(c, out, ct_conv_transpose2d); }
static ct_pool_options pool_opts(conf_case *c, int64_t *k) {
    ct_pool_options o;
    memset(&o, 0, sizeof o);
    *k = 0;
    pair_arg(c, "kernel_size", k, o.kernel_size_hw);
    pair_arg(c, "stride", &o.stride, o.stride_hw);
    pair_arg(c, "padding", &o.padding, o.padding_hw);
    pair_arg(c, "dilation", &o.dilation, o.dilation_hw);
    o.ceil_mode = conf_bool(c, "ceil_mode", 0);
    o.count_exclude_pad = !conf_bool(c, "count_include_pad", 1);
    o.divisor_override = conf_int(c, "divisor_override", 0);
    return o;
}
static int h_max_pool2d(conf_case *c, ct_tensor **out) {
    int64_t k;
    ct_pool_options o = pool_opts(c, &k);
    if (conf_bool(c, "return_indices", 0)) {
        out[0] = ct_max_pool2d_with_indices(IN(0), k, &o, &out[1]);
        return out[0] ? 2 : -1;
    }
    ONE(ct_max_pool2d(IN(0), k, &o));
}
static int h_avg_pool2d(conf_case *c, ct_tensor **out) {
    int64_t k;
    ct_pool_options o = pool_opts(c, &k);
    ONE(ct_avg_pool2d(IN(0), k, &o));
}
static int h_max_pool1d(conf_case *c, ct_tensor **out) {
    int64_t k;
    ct_pool_options o = pool_opts(c, &k);
    ONE(ct_max_pool1d(IN(0), k, &o));
}
static int h_avg_pool1d(conf_case *c, ct_tensor **out) {
    int64_t k;
    ct_pool_options o = pool_opts(c, &k);
    ONE(ct_avg_pool1d(IN(0), k, &o));
}
static int h_adaptive_avg_pool2d(conf_case *c, ct_tensor **out) {
    int64_t v[2] = {0, 0};
    int n = conf_ints(c, "output_size", v, 2);
    if (n == 1) v[1] = v[0];
    ONE(ct_adaptive_avg_pool2d(IN(0), v[0], v[1]));
}

const conf_op conf_ops_nn_conv[] = {
    {"torch.nn.functional.conv2d", h_conv2d, NULL},
    {"torch.nn.functional.conv1d", h_conv1d, NULL},
    {"torch.nn.functional.conv_transpose2d", h_conv_transpose2d, NULL},
    {"torch.nn.functional.max_pool2d", h_max_pool2d, NULL},
    {"torch.nn.functional.avg_pool2d", h_avg_pool2d, NULL},
    {"torch.nn.functional.max_pool1d", h_max_pool1d, NULL},
    {"torch.nn.functional.avg_pool1d", h_avg_pool1d, NULL},
    {"torch.nn.functional.adaptive_avg_pool2d", h_adaptive_avg_pool2d, NULL},
    {0, 0, 0}};
