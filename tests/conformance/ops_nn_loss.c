/* Conformance handlers: losses and distances (ctensor.h "nn-loss" section).
   Tensor arguments are inputs in PyTorch's signature order (CONFORMANCE.md):
   F.cross_entropy / nll_loss / binary_cross_entropy (input, target, weight),
   F.binary_cross_entropy_with_logits (input, target, weight, pos_weight); an
   optional one left as None is "name": null in args and takes no input.
   Repo extension: weight / pos_weight that no input gives may come as named
   arrays (weight.npy, pos_weight.npy), as the repo's older fixtures have them.
   size_average / reduce (deprecated) map to a reduction as PyTorch's
   _Reduction.legacy_get_string does. */
#include <math.h>
#include <string.h>
#include "conf.h"

#define IN(k) (c->in[k])
#define ONE(expr) do { out[0] = (expr); return out[0] ? 1 : -1; } while (0)

static const char *reduction(conf_case *c) {
    if (conf_given(c, "size_average") || conf_given(c, "reduce")) {
        if (!conf_bool(c, "reduce", 1)) return "none";
        return conf_bool(c, "size_average", 1) ? "mean" : "sum";
    }
    return conf_str(c, "reduction", "mean");
}
/* input, target, then the optional tensors names[2..n) (named-array fallback) */
static int loss_tensors(conf_case *c, int n, const char *const *names, ct_tensor **t) {
    if (conf_tensors(c, n, names, 2, t)) return -1;
    for (int i = 2; i < n; i++)
        if (!t[i] && !conf_is_null(c, names[i])) t[i] = conf_named(c, names[i]);
    return 0;
}
static const char *const WEIGHTED[] = {"input", "target", "weight"};
static int ignore_index(conf_case *c, int64_t *v) {
    if (!conf_given(c, "ignore_index")) return 0;
    *v = conf_int(c, "ignore_index", -100);
    return 1;
}

static int h_cross_entropy(conf_case *c, ct_tensor **out) {
    ct_tensor *t[3];
    if (loss_tensors(c, 3, WEIGHTED, t)) return -1;
    ct_cross_entropy_options o;
    memset(&o, 0, sizeof o);
    o.weight = t[2];
    o.use_ignore_index = ignore_index(c, &o.ignore_index);
    o.reduction = reduction(c);
    o.label_smoothing = conf_double(c, "label_smoothing", 0.0);
    ONE(ct_cross_entropy(t[0], t[1], &o));
}
static int h_nll_loss(conf_case *c, ct_tensor **out) {
    ct_tensor *t[3];
    if (loss_tensors(c, 3, WEIGHTED, t)) return -1;
    ct_nll_loss_options o;
    memset(&o, 0, sizeof o);
    o.weight = t[2];
    o.use_ignore_index = ignore_index(c, &o.ignore_index);
    o.reduction = reduction(c);
    ONE(ct_nll_loss(t[0], t[1], &o));
}
static int h_mse(conf_case *c, ct_tensor **out) { ONE(ct_mse_loss(IN(0), IN(1), reduction(c))); }
static int h_l1(conf_case *c, ct_tensor **out) { ONE(ct_l1_loss(IN(0), IN(1), reduction(c))); }
static int h_smooth_l1(conf_case *c, ct_tensor **out) {
    ONE(ct_smooth_l1_loss(IN(0), IN(1), reduction(c), conf_double(c, "beta", 1.0)));
}
static int h_huber(conf_case *c, ct_tensor **out) { ONE(ct_huber_loss(IN(0), IN(1), reduction(c), conf_double(c, "delta", 1.0))); }
static int h_bce(conf_case *c, ct_tensor **out) {
    ct_tensor *t[3];
    if (loss_tensors(c, 3, WEIGHTED, t)) return -1;
    ONE(ct_binary_cross_entropy(t[0], t[1], t[2], reduction(c)));
}
static int h_bce_logits(conf_case *c, ct_tensor **out) {
    static const char *const names[] = {"input", "target", "weight", "pos_weight"};
    ct_tensor *t[4];
    if (loss_tensors(c, 4, names, t)) return -1;
    ONE(ct_binary_cross_entropy_with_logits(t[0], t[1], t[2], t[3], reduction(c)));
}
static int h_kl_div(conf_case *c, ct_tensor **out) { ONE(ct_kl_div(IN(0), IN(1), reduction(c), conf_bool(c, "log_target", 0))); }
static int h_cosine_similarity(conf_case *c, ct_tensor **out) {
    ONE(ct_cosine_similarity(IN(0), IN(1), (int)conf_int(c, "dim", 1), conf_double(c, "eps", 1e-8)));
}
static int h_pairwise_distance(conf_case *c, ct_tensor **out) {
    ONE(ct_pairwise_distance(IN(0), IN(1), conf_double(c, "p", 2.0), conf_double(c, "eps", 1e-6), conf_bool(c, "keepdim", 0)));
}

const conf_op conf_ops_nn_loss[] = {
    {"torch.nn.functional.cross_entropy", h_cross_entropy, NULL},
    {"torch.nn.functional.nll_loss", h_nll_loss, NULL},
    {"torch.nn.functional.mse_loss", h_mse, NULL},
    {"torch.nn.functional.l1_loss", h_l1, NULL},
    {"torch.nn.functional.smooth_l1_loss", h_smooth_l1, NULL},
    {"torch.nn.functional.huber_loss", h_huber, NULL},
    {"torch.nn.functional.binary_cross_entropy", h_bce, NULL},
    {"torch.nn.functional.binary_cross_entropy_with_logits", h_bce_logits, NULL},
    {"torch.nn.functional.kl_div", h_kl_div, NULL},
    {"torch.nn.functional.cosine_similarity", h_cosine_similarity, NULL},
    {"torch.nn.functional.pairwise_distance", h_pairwise_distance, NULL},
    {0},
};
