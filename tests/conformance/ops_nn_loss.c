/* Conformance handlers: losses and distances (ctensor.h "nn-loss" section).
   Class weights and pos_weight come as named arrays (weight.npy, pos_weight.npy). */
#include <math.h>
#include <string.h>
#include "conf.h"

#define IN(k) (c->in[k])
#define ONE(expr) do { out[0] = (expr); return out[0] ? 1 : -1; } while (0)

static const char *reduction(conf_case *c) { return conf_str(c, "reduction", "mean"); }

static int h_cross_entropy(conf_case *c, ct_tensor **out) {
    ct_cross_entropy_options o;
    memset(&o, 0, sizeof o);
    o.weight = conf_named(c, "weight");
    if (conf_has(c, "ignore_index")) {
        o.use_ignore_index = 1;
        o.ignore_index = conf_int(c, "ignore_index", -100);
    }
    o.reduction = reduction(c);
    o.label_smoothing = conf_double(c, "label_smoothing", 0.0);
    ONE(ct_cross_entropy(IN(0), IN(1), &o));
}
static int h_nll_loss(conf_case *c, ct_tensor **out) {
    ct_nll_loss_options o;
    memset(&o, 0, sizeof o);
    o.weight = conf_named(c, "weight");
    if (conf_has(c, "ignore_index")) {
        o.use_ignore_index = 1;
        o.ignore_index = conf_int(c, "ignore_index", -100);
    }
    o.reduction = reduction(c);
    ONE(ct_nll_loss(IN(0), IN(1), &o));
}
static int h_mse(conf_case *c, ct_tensor **out) { ONE(ct_mse_loss(IN(0), IN(1), reduction(c))); }
static int h_l1(conf_case *c, ct_tensor **out) { ONE(ct_l1_loss(IN(0), IN(1), reduction(c))); }
static int h_smooth_l1(conf_case *c, ct_tensor **out) {
    ONE(ct_smooth_l1_loss(IN(0), IN(1), reduction(c), conf_double(c, "beta", 1.0)));
}
static int h_huber(conf_case *c, ct_tensor **out) { ONE(ct_huber_loss(IN(0), IN(1), reduction(c), conf_double(c, "delta", 1.0))); }
static int h_bce(conf_case *c, ct_tensor **out) {
    ONE(ct_binary_cross_entropy(IN(0), IN(1), conf_named(c, "weight"), reduction(c)));
}
static int h_bce_logits(conf_case *c, ct_tensor **out) {
    ONE(ct_binary_cross_entropy_with_logits(IN(0), IN(1), conf_named(c, "weight"), conf_named(c, "pos_weight"), reduction(c)));
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
