/* Losses and distances: values against PyTorch, the fused cross-entropy path
   against the general one, gradcheck of every loss (inputs and float targets),
   gradgradcheck of the main ones (the fused backward's own backward included),
   errors in PyTorch's words, and memory that returns to its start. */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"
#include "ctensor_nn.h"

static ct_tensor *f64(const double *v, int ndim, const int64_t *shape) { return ct_from_data_n(v, CT_FLOAT64, ndim, shape); }
#define T64(shape_list, ...) f64(((const double[]){__VA_ARGS__}), CT_DIMS shape_list)
#define I64(shape_list, ...) ct_from_data_n(((const int64_t[]){__VA_ARGS__}), CT_INT64, CT_DIMS shape_list)

static ct_tensor *rnd64(int ndim, const int64_t *shape, uint64_t seed) {
    ct_generator g;
    ct_generator_init(&g, seed);
    return ct_normal_(ct_empty_n(CT_FLOAT64, ndim, shape), 0.0, 1.0, &g);
}
static ct_tensor *unif64(int ndim, const int64_t *shape, double lo, double hi, uint64_t seed) {
    ct_generator g;
    ct_generator_init(&g, seed);
    return ct_uniform_(ct_empty_n(CT_FLOAT64, ndim, shape), lo, hi, &g);
}
static ct_tensor *leaf(ct_tensor *x) { return ct_requires_grad(ct_detach(x)); }

/* ---- values ---- */
TEST(test_cross_entropy_values) {
    /* torch: F.cross_entropy(x, t) = 0.5230, grad as below */
    ct_tensor *x = ct_requires_grad(ct_tensor_f32(((float[]){1, 2, 3, 0.5f, 0.1f, -1}), 2, 3));
    ct_tensor *t = I64((2), 2, 0);
    ct_tensor *l = ct_cross_entropy(x, t, NULL);
    CHECK(l && ct_ndim(l) == 0 && ct_get_dtype(l) == CT_FLOAT32);
    CHECK_CLOSE(ct_item(l), 0.52298, 1e-4);
    CHECK_STR(ct_grad_fn_name(l), "NllLossBackward0");
    CHECK(ct_backward(l) == CT_OK);
    double g[] = {0.0450, 0.1224, -0.1674, -0.2359, 0.1770, 0.0589};
    CHECK_VALUES(ct_grad(x), g, 6, 1e-3);
    /* reductions and ignore_index through the fused kernel */
    ct_tensor *x2 = T64((3, 2), 0, 0, 1, 0, 0, 1);
    ct_tensor *t2 = I64((3), 1, -100, 1);
    double ln2 = log(2.0), a = log(1 + exp(1.0)), b = log(1 + exp(-1.0));
    ct_tensor *none = ct_cross_entropy(x2, t2, &(ct_cross_entropy_options){.reduction = "none"});
    double e_none[] = {ln2, 0, b};
    CHECK_VALUES(none, e_none, 3, 1e-14);
    CHECK_CLOSE(ct_item(ct_cross_entropy(x2, t2, &(ct_cross_entropy_options){.reduction = "sum"})), ln2 + b, 1e-14);
    CHECK_CLOSE(ct_item(ct_cross_entropy(x2, t2, NULL)), (ln2 + b) / 2, 1e-14);
    /* ignore_index 1: row 0 and 2 ignored; row 1 uses class... -100 is out of range -> error */
    CHECK_ERR(ct_cross_entropy(x2, t2, &(ct_cross_entropy_options){.ignore_index = 1, .use_ignore_index = 1}), CT_ERR_INDEX,
              "Target -100 is out of bounds.");
    ct_tensor *t3 = I64((3), 1, 0, 1);
    CHECK_CLOSE(ct_item(ct_cross_entropy(x2, t3, &(ct_cross_entropy_options){.ignore_index = 1, .use_ignore_index = 1})), b, 1e-14);
    /* every target ignored: mean is NaN, as PyTorch */
    CHECK(isnan(ct_item(ct_cross_entropy(x2, I64((3), -100, -100, -100), NULL))));
    /* no batch dim: (C) logits, () target */
    CHECK_CLOSE(ct_item(ct_cross_entropy(T64((2), 0, 1), ct_scalar_tensor(1, CT_INT64), NULL)), b, 1e-14);
    /* class probabilities: -(sum p log_softmax(x)) / N */
    ct_tensor *p = T64((3, 2), 0.5, 0.5, 1, 0, 0, 1);
    CHECK_CLOSE(ct_item(ct_cross_entropy(x2, p, NULL)), (ln2 + 2 * b) / 3, 1e-14);
    /* label smoothing with indices: (1 - ls) nll + ls/C * sum(-log p) */
    double ls = 0.2;
    double sm0 = 2 * ln2, sm2 = a + b;
    double expect = (1 - ls) * (ln2 + b) / 2 + ls / 2 * (sm0 + sm2) / 2;
    CHECK_CLOSE(ct_item(ct_cross_entropy(x2, t2, &(ct_cross_entropy_options){.label_smoothing = ls})), expect, 1e-14);
    /* weights: mean divides by the sum of the weights of non-ignored targets */
    ct_tensor *w = T64((2), 0.5, 2.0);
    double ew = (2.0 * ln2 + 2.0 * b) / 4.0;
    CHECK_CLOSE(ct_item(ct_cross_entropy(x2, t2, &(ct_cross_entropy_options){.weight = w})), ew, 1e-14);
}

/* the fused kernel (no weight) against the general path (weight of ones), f32 and f64,
   large enough for the vectorized and threaded loops */
TEST(test_cross_entropy_fused_vs_general) {
    const char *reds[] = {"mean", "sum", "none"};
    for (int dt = 0; dt < 2; dt++)
        for (int r = 0; r < 3; r++) CT_SCOPE {
            ct_dtype d = dt ? CT_FLOAT64 : CT_FLOAT32;
            int64_t N = 67, C = 301;
            ct_tensor *x0 = ct_mul_scalar(ct_to(rnd64(2, CT__INTS(N, C), 5 + (uint64_t)r), d), 4.0);
            ct_tensor *t = ct_randint_n(0, C, CT_INT64, 1, CT__INTS(N), NULL);
            t = ct_index_put(t, 1, (ct_tensor *const[]){I64((2), 3, 40)}, ct_scalar_tensor(-100, CT_INT64), 0);
            ct_tensor *xa = leaf(x0), *xb = leaf(x0);
            ct_tensor *la = ct_cross_entropy(xa, t, &(ct_cross_entropy_options){.reduction = reds[r]});
            ct_tensor *lb = ct_cross_entropy(xb, t, &(ct_cross_entropy_options){.reduction = reds[r], .weight = ct_ones(d, C)});
            CHECK(la && lb);
            if (!la || !lb) break;
            CHECK_STR(ct_grad_fn_name(la), "NllLossBackward0");
            double tol = dt ? 1e-12 : 2e-5;
            CHECK(ct_allclose(la, lb, tol, tol) == 1);
            ct_tensor *g = ct_ndim(la) ? ct_to(rnd64(1, CT__INTS(N), 9), d) : ct_scalar_tensor(1.5, d);
            CHECK(ct_backward_ex(1, &la, &g, NULL) == CT_OK);
            CHECK(ct_backward_ex(1, &lb, &g, NULL) == CT_OK);
            CHECK(ct_allclose(ct_grad(xa), ct_grad(xb), tol, tol) == 1);
            /* ignored rows get no gradient */
            CHECK_CLOSE(ct_item(ct_sum(ct_abs(ct_select(ct_grad(xa), 0, 3)))), 0, 0);
        }
    /* large enough for the threaded row loop (optimized builds) */
    CT_SCOPE {
        int64_t N = 300, C = 500;
        ct_tensor *x0 = ct_to(rnd64(2, CT__INTS(N, C), 17), CT_FLOAT32);
        ct_tensor *t = ct_randint_n(0, C, CT_INT64, 1, CT__INTS(N), NULL);
        ct_tensor *xa = leaf(x0), *xb = leaf(x0);
        ct_tensor *la = ct_cross_entropy(xa, t, NULL), *lb = ct_cross_entropy(xb, t, &(ct_cross_entropy_options){.weight = ct_ones(CT_FLOAT32, C)});
        CHECK(la && lb && ct_allclose(la, lb, 1e-5, 1e-5) == 1);
        CHECK(ct_backward(la) == CT_OK && ct_backward(lb) == CT_OK);
        CHECK(ct_allclose(ct_grad(xa), ct_grad(xb), 1e-5, 1e-7) == 1);
    }
    /* a non-contiguous logits view takes the fused path too */
    ct_tensor *xt = ct_t(rnd64(2, CT__INTS(5, 4), 3));
    ct_tensor *t = I64((4), 0, 4, 2, 1);
    ct_tensor *l1 = ct_cross_entropy(xt, t, NULL), *l2 = ct_cross_entropy(ct_contiguous(xt), t, NULL);
    CHECK_CLOSE(ct_item(l1), ct_item(l2), 1e-15);
    /* extreme logits stay finite */
    ct_tensor *big = T64((2, 3), 1000, -1000, 0, -1e4, 1e4, 3);
    ct_tensor *lbig = ct_cross_entropy(big, I64((2), 0, 2), &(ct_cross_entropy_options){.reduction = "none"});
    double ebig[] = {0, 1e4 - 3};
    CHECK_VALUES(lbig, ebig, 2, 1e-12);
}

TEST(test_other_values) {
    ct_tensor *x = T64((2, 2), 1, 2, 3, 4), *y = T64((2, 2), 1.5, 2, 1, 7);
    CHECK_CLOSE(ct_item(ct_mse_loss(x, y, NULL)), (0.25 + 0 + 4 + 9) / 4, 1e-15);
    CHECK_CLOSE(ct_item(ct_l1_loss(x, y, "sum")), 0.5 + 0 + 2 + 3, 1e-15);
    double sl1[] = {0.125, 0, 1.5, 2.5};
    CHECK_VALUES(ct_smooth_l1_loss(x, y, "none", 1.0), sl1, 4, 1e-15);
    double hub[] = {0.125, 0, 1.5 * 2 / 2 * 1.0 + 0.0 * 0, 2.5};
    CHECK_VALUES(ct_huber_loss(x, y, "none", 1.0), hub, 4, 1e-15);
    double hub2[] = {0.125, 0, 2.0, 2 * (3 - 1)};
    CHECK_VALUES(ct_huber_loss(x, y, "none", 2.0), hub2, 4, 1e-15);
    /* broadcasting target (PyTorch warns; the result is the same) */
    CHECK_CLOSE(ct_item(ct_mse_loss(x, T64((1, 2), 1, 2), "sum")), 0 + 0 + 4 + 4, 1e-15);
    /* bce: log clamped at -100 */
    ct_tensor *p = T64((3), 0, 1, 0.5), *q = T64((3), 1, 1, 0);
    double eb[] = {100, 0, log(2.0)};
    CHECK_VALUES(ct_binary_cross_entropy(p, q, NULL, "none"), eb, 3, 1e-14);
    /* bce with logits: large logits, pos_weight */
    ct_tensor *z = T64((3), 200, -200, 0), *zt = T64((3), 0, 0, 1);
    double ez[] = {200, 0, log(2.0)};
    CHECK_VALUES(ct_binary_cross_entropy_with_logits(z, zt, NULL, NULL, "none"), ez, 3, 1e-12);
    double ezp[] = {200, 0, 3 * log(2.0)};
    CHECK_VALUES(ct_binary_cross_entropy_with_logits(z, zt, NULL, ct_scalar_tensor(3, CT_FLOAT64), "none"), ezp, 3, 1e-12);
    /* kl_div: target 0 contributes 0 */
    ct_tensor *lp = T64((2), log(0.25), log(0.75)), *tp = T64((2), 0, 1);
    CHECK_CLOSE(ct_item(ct_kl_div(lp, tp, "sum", 0)), -log(0.75), 1e-14);
    CHECK_CLOSE(ct_item(ct_kl_div(lp, tp, "batchmean", 0)), -log(0.75) / 2, 1e-14);
    CHECK_CLOSE(ct_item(ct_kl_div(lp, T64((2), log(0.5), log(0.5)), "sum", 1)), 0.5 * log(2.0) + 0.5 * log(0.5 / 0.75), 1e-14);
    /* cosine similarity and pairwise distance */
    ct_tensor *u = T64((2, 2), 1, 0, 1, 1), *v = T64((2, 2), 0, 1, 2, 2);
    double ec[] = {0, 1};
    CHECK_VALUES(ct_cosine_similarity(u, v, 1, 1e-8), ec, 2, 1e-15);
    ct_tensor *pd = ct_pairwise_distance(u, v, 2.0, 0.0, 1);
    double ep[] = {sqrt(2.0), sqrt(2.0)};
    CHECK_VALUES(pd, ep, 2, 1e-15);
    CHECK_EQ_INT(ct_ndim(pd), 2);
    CHECK_EQ_INT(ct_ndim(ct_pairwise_distance(u, v, 1.0, 1e-6, 0)), 1);
}

/* ---- gradients ---- */
enum { L_CE, L_CE_W, L_CE_LS, L_CE_PROB, L_CE_4D, L_NLL, L_MSE, L_L1, L_SL1, L_HUBER, L_BCE, L_BCEL, L_KL, L_KL_LOG, L_COS, L_PD };
typedef struct lcase {
    int op;
    const char *red;
    ct_tensor *target, *weight, *pos_weight;
    int64_t ignore;
    double s;
    int sq;   /* square the result (gradgradcheck of piecewise-linear parts) */
} lcase;
static ct_tensor *lc_op(ct_tensor *const *in, const lcase *c) {
    ct_tensor *t = c->target ? c->target : in[1];
    ct_cross_entropy_options o;
    memset(&o, 0, sizeof o);
    o.reduction = c->red;
    o.use_ignore_index = c->ignore != -100;
    o.ignore_index = c->ignore;
    switch (c->op) {
    case L_CE: return ct_cross_entropy(in[0], t, &o);
    case L_CE_W: o.weight = c->weight; return ct_cross_entropy(in[0], t, &o);
    case L_CE_LS: o.weight = c->weight; o.label_smoothing = c->s; return ct_cross_entropy(in[0], t, &o);
    case L_CE_PROB: o.weight = c->weight; o.label_smoothing = c->s; return ct_cross_entropy(in[0], in[1], &o);
    case L_CE_4D: o.weight = c->weight; return ct_cross_entropy(in[0], t, &o);
    case L_NLL: {
        ct_nll_loss_options n;
        memset(&n, 0, sizeof n);
        n.reduction = c->red;
        n.weight = c->weight;
        n.use_ignore_index = o.use_ignore_index;
        n.ignore_index = c->ignore;
        return ct_nll_loss(in[0], t, &n);
    }
    case L_MSE: return ct_mse_loss(in[0], in[1], c->red);
    case L_L1: return ct_l1_loss(in[0], in[1], c->red);
    case L_SL1: return ct_smooth_l1_loss(in[0], in[1], c->red, c->s);
    case L_HUBER: return ct_huber_loss(in[0], in[1], c->red, c->s);
    case L_BCE: return ct_binary_cross_entropy(in[0], in[1], c->weight, c->red);
    case L_BCEL: return ct_binary_cross_entropy_with_logits(in[0], in[1], c->weight, c->pos_weight, c->red);
    case L_KL: return ct_kl_div(in[0], in[1], c->red, 0);
    case L_KL_LOG: return ct_kl_div(in[0], in[1], c->red, 1);
    case L_COS: return ct_cosine_similarity(in[0], in[1], (int)c->s, 1e-8);
    case L_PD: return ct_pairwise_distance(in[0], in[1], c->s, 1e-6, 0);
    default: return NULL;
    }
}
static ct_tensor *lc_fn(ct_tensor *const *in, void *u) {
    const lcase *c = (const lcase *)u;
    ct_tensor *r = lc_op(in, c);
    return c->sq ? ct_square(r) : r;
}
static void check_loss_grad(lcase c, ct_tensor *x, ct_tensor *y, int second, int line) {
    int s = ct_scope_begin();
    ct_tensor *in[2];
    in[0] = leaf(x);
    in[1] = y ? leaf(y) : NULL;
    int n = y ? 2 : 1;
    int ok = ct_gradcheck(lc_fn, &c, n, in, NULL);
    if (!ok) printf("line %d: gradcheck op %d (%s): %s\n", line, c.op, c.red ? c.red : "mean", ct_last_error());
    CHECK(ok);
    if (second) {
        ok = ct_gradgradcheck(lc_fn, &c, n, in, NULL);
        if (!ok) printf("line %d: gradgradcheck op %d (%s): %s\n", line, c.op, c.red ? c.red : "mean", ct_last_error());
        CHECK(ok);
    }
    ct_scope_end(s);
}
#define GC(x, y, second, ...) do { lcase c_ = {__VA_ARGS__}; check_loss_grad(c_, (x), (y), (second), __LINE__); } while (0)

TEST(test_gradcheck_cross_entropy) {
    ct_tensor *x = rnd64(2, CT__INTS(4, 5), 1), *t = I64((4), 2, 0, 4, 2), *ti = I64((4), 2, -100, 4, 1);
    ct_tensor *w = T64((5), 0.5, 1.5, 2, 1, 0.25);
    const char *reds[] = {NULL, "sum", "none"};
    for (int r = 0; r < 3; r++) {
        GC(x, NULL, 1, L_CE, reds[r], t, NULL, NULL, -100, 0, 0);
        GC(x, NULL, 1, L_CE, reds[r], ti, NULL, NULL, -100, 0, 0);
        GC(x, NULL, 1, L_CE, reds[r], t, NULL, NULL, 2, 0, 0);
        GC(x, NULL, r == 0, L_CE_W, reds[r], ti, w, NULL, -100, 0, 0);
        GC(x, NULL, r == 0, L_CE_LS, reds[r], ti, NULL, NULL, -100, 0.2, 0);
        GC(x, NULL, 0, L_CE_LS, reds[r], ti, w, NULL, -100, 0.3, 0);
        GC(x, ct_softmax(rnd64(2, CT__INTS(4, 5), 2), 1), r == 0, L_CE_PROB, reds[r], NULL, NULL, NULL, -100, 0, 0);
        GC(x, ct_softmax(rnd64(2, CT__INTS(4, 5), 2), 1), 0, L_CE_PROB, reds[r], NULL, w, NULL, -100, 0.1, 0);
    }
    ct_tensor *x4 = rnd64(4, CT__INTS(2, 3, 2, 2), 4), *t4 = I64((2, 2, 2), 0, 1, 2, -100, 1, 1, 0, 2);
    GC(x4, NULL, 1, L_CE_4D, NULL, t4, NULL, NULL, -100, 0, 0);
    GC(x4, NULL, 0, L_CE_4D, "none", t4, T64((3), 1, 2, 3), NULL, -100, 0, 0);
    GC(rnd64(1, CT__INTS(4), 5), NULL, 1, L_CE, NULL, ct_scalar_tensor(3, CT_INT64), NULL, NULL, -100, 0, 0);
    ct_tensor *lp = ct_log_softmax(x, 1);
    GC(lp, NULL, 0, L_NLL, NULL, ti, w, NULL, -100, 0, 0);
    GC(lp, NULL, 0, L_NLL, "none", t, NULL, NULL, 4, 0, 0);
}

/* double backward of the fused op in both its inputs: f(x, g) = d ce(x) / dx . g,
   checked w.r.t. x and the upstream gradient g */
typedef struct { ct_tensor *t; const char *red; int64_t ignore; int kind; } ggcase;   /* kind: 0 ce, 1 mse, 2 bce_with_logits */
static ct_tensor *ce_grad_fn(ct_tensor *const *in, void *u) {
    const ggcase *c = (const ggcase *)u;
    ct_cross_entropy_options o;
    memset(&o, 0, sizeof o);
    o.reduction = c->red;
    o.use_ignore_index = 1;
    o.ignore_index = c->ignore;
    /* the finite-difference passes run without grad: this function needs it */
    int prev = ct_set_grad_enabled(1);
    ct_tensor *x = ct_get_requires_grad(in[0]) ? in[0] : leaf(in[0]);
    ct_tensor *l = c->kind == 0 ? ct_cross_entropy(x, c->t, &o)
                 : c->kind == 1 ? ct_mse_loss(x, c->t, c->red) : ct_binary_cross_entropy_with_logits(x, c->t, NULL, NULL, c->red);
    ct_tensor *gx = NULL;
    ct_grad_options go;
    memset(&go, 0, sizeof go);
    go.create_graph = 1;
    ct_status st = l ? ct_autograd_grad(1, &l, &in[1], 1, &x, &gx, &go) : CT_ERR_NULL;
    ct_set_grad_enabled(prev);
    return st == CT_OK ? ct_square(gx) : NULL;
}
TEST(test_fused_double_backward) {
    ct_tensor *x = rnd64(2, CT__INTS(3, 4), 7), *t = I64((3), 1, 3, 0);
    const char *reds[] = {"mean", "sum", "none"};
    for (int r = 0; r < 3; r++) {
        ggcase c = {t, reds[r], r == 1 ? 3 : -100, 0};
        ct_tensor *g = r == 2 ? rnd64(1, CT__INTS(3), 8) : ct_scalar_tensor(0.7, CT_FLOAT64);
        ct_tensor *in[2];
        in[0] = leaf(x);
        in[1] = leaf(g);
        int ok = ct_gradcheck(ce_grad_fn, &c, 2, in, NULL);
        if (!ok) printf("fused double backward (%s): %s\n", reds[r], ct_last_error());
        CHECK(ok);
        /* the fused backward's node name */
        ct_tensor *l = ct_cross_entropy(in[0], t, &(ct_cross_entropy_options){.reduction = reds[r]});
        ct_tensor *gx = NULL;
        CHECK(ct_autograd_grad(1, &l, &in[1], 1, &in[0], &gx, &(ct_grad_options){.create_graph = 1}) == CT_OK);
        CHECK_STR(ct_grad_fn_name(gx), "CrossEntropyFusedBackwardBackward0");
    }
}

/* the fused mse / bce_with_logits pairs: values against the op-by-op formulas, and the
   double backward in the upstream gradient too */
TEST(test_fused_pointwise) {
    const char *reds[] = {"mean", "sum", "none"};
    ct_tensor *x = rnd64(2, CT__INTS(3, 4), 41), *y = rnd64(2, CT__INTS(3, 4), 42), *q = unif64(2, CT__INTS(3, 4), 0, 1, 43);
    for (int r = 0; r < 3; r++) {
        ct_tensor *m = ct_mse_loss(x, y, reds[r]), *b = ct_binary_cross_entropy_with_logits(x, q, NULL, NULL, reds[r]);
        ct_tensor *d2 = ct_square(ct_sub(x, y));
        ct_tensor *bl = ct_sub(ct_softplus(x, 1, 1e30), ct_mul(q, x));   /* log(1 + e^x) - y x */
        ct_tensor *em = r == 0 ? ct_mean(d2) : r == 1 ? ct_sum(d2) : d2, *eb = r == 0 ? ct_mean(bl) : r == 1 ? ct_sum(bl) : bl;
        CHECK(ct_allclose(m, em, 1e-13, 1e-13) == 1);
        CHECK(ct_allclose(b, eb, 1e-13, 1e-13) == 1);
        for (int kind = 1; kind <= 2; kind++) {
            ggcase c = {kind == 1 ? y : q, reds[r], -100, kind};
            ct_tensor *g = r == 2 ? rnd64(2, CT__INTS(3, 4), 44) : ct_scalar_tensor(0.7, CT_FLOAT64);
            ct_tensor *in[2];
            in[0] = leaf(x);
            in[1] = leaf(g);
            int ok = ct_gradcheck(ce_grad_fn, &c, 2, in, NULL);
            if (!ok) printf("fused double backward (kind %d, %s): %s\n", kind, reds[r], ct_last_error());
            CHECK(ok);
        }
    }
    ct_tensor *xl = leaf(x);
    CHECK_STR(ct_grad_fn_name(ct_mse_loss(xl, y, NULL)), "MseLossBackward0");
    CHECK_STR(ct_grad_fn_name(ct_binary_cross_entropy_with_logits(xl, q, NULL, NULL, NULL)), "BinaryCrossEntropyWithLogitsBackward0");
    /* f32, large enough for the blocked sum */
    ct_tensor *xf = ct_to(rnd64(1, CT__INTS(10000), 45), CT_FLOAT32), *yf = ct_to(rnd64(1, CT__INTS(10000), 46), CT_FLOAT32);
    CHECK_CLOSE(ct_item(ct_mse_loss(xf, yf, NULL)), ct_item(ct_mean(ct_square(ct_sub(ct_to(xf, CT_FLOAT64), ct_to(yf, CT_FLOAT64))))), 1e-5);
    /* f32 bce_with_logits (vectorized exp and log) against float64, values and gradients */
    ct_tensor *xb = ct_mul_scalar(xf, 8.0), *qb = ct_to(unif64(1, CT__INTS(10000), 0, 1, 47), CT_FLOAT32);
    const char *breds[] = {"none", "sum"};
    for (int r = 0; r < 2; r++) {
        ct_tensor *x32 = leaf(xb), *x64 = leaf(ct_to(xb, CT_FLOAT64));
        ct_tensor *l32 = ct_binary_cross_entropy_with_logits(x32, qb, NULL, NULL, breds[r]);
        ct_tensor *l64 = ct_binary_cross_entropy_with_logits(x64, ct_to(qb, CT_FLOAT64), NULL, NULL, breds[r]);
        CHECK(ct_allclose(ct_to(l32, CT_FLOAT64), l64, 2e-6, 1e-6) == 1);
        ct_tensor *g64 = r == 0 ? ct_to(rnd64(1, CT__INTS(10000), 48), CT_FLOAT64) : ct_scalar_tensor(1, CT_FLOAT64);
        ct_tensor *g32 = ct_to(g64, CT_FLOAT32);
        CHECK(ct_backward_ex(1, &l32, &g32, NULL) == CT_OK);
        CHECK(ct_backward_ex(1, &l64, &g64, NULL) == CT_OK);
        CHECK(ct_allclose(ct_to(ct_grad(x32), CT_FLOAT64), ct_grad(x64), 1e-5, 1e-6) == 1);
    }
}

TEST(test_gradcheck_pointwise) {
    ct_tensor *x = rnd64(2, CT__INTS(3, 4), 21), *y = rnd64(2, CT__INTS(3, 4), 22), *y1 = rnd64(2, CT__INTS(1, 4), 23);
    const char *reds[] = {NULL, "sum", "none"};
    for (int r = 0; r < 3; r++) {
        GC(x, y, 1, L_MSE, reds[r], NULL, NULL, NULL, -100, 0, 0);
        GC(x, y1, r == 0, L_MSE, reds[r], NULL, NULL, NULL, -100, 0, 0);
        GC(x, y, 1, L_L1, reds[r], NULL, NULL, NULL, -100, 0, 1);
        GC(x, y, 1, L_SL1, reds[r], NULL, NULL, NULL, -100, 1.0, 0);
        GC(x, y, 0, L_SL1, reds[r], NULL, NULL, NULL, -100, 0.3, 0);
        GC(x, y, 0, L_SL1, reds[r], NULL, NULL, NULL, -100, 0.0, 0);
        GC(x, y, 1, L_HUBER, reds[r], NULL, NULL, NULL, -100, 1.0, 0);
        GC(x, y1, 0, L_HUBER, reds[r], NULL, NULL, NULL, -100, 0.4, 0);
    }
    ct_tensor *p = unif64(2, CT__INTS(3, 4), 0.05, 0.95, 24), *q = unif64(2, CT__INTS(3, 4), 0, 1, 25);
    ct_tensor *w = unif64(1, CT__INTS(4), 0.5, 2, 26);
    for (int r = 0; r < 3; r++) {
        GC(p, q, 1, L_BCE, reds[r], NULL, NULL, NULL, -100, 0, 0);
        GC(p, q, 0, L_BCE, reds[r], NULL, w, NULL, -100, 0, 0);
        GC(x, q, 1, L_BCEL, reds[r], NULL, NULL, NULL, -100, 0, 0);
        GC(x, q, r == 0, L_BCEL, reds[r], NULL, w, T64((4), 0.5, 2, 3, 1), -100, 0, 0);
    }
    ct_tensor *lp = ct_log_softmax(x, 1), *tp = ct_softmax(y, 1);
    const char *kreds[] = {NULL, "sum", "none", "batchmean"};
    for (int r = 0; r < 4; r++) {
        GC(lp, tp, r == 3, L_KL, kreds[r], NULL, NULL, NULL, -100, 0, 0);
        GC(lp, ct_log_softmax(y, 1), r == 3, L_KL_LOG, kreds[r], NULL, NULL, NULL, -100, 0, 0);
    }
    GC(x, y, 1, L_COS, NULL, NULL, NULL, NULL, -100, 1, 0);
    GC(x, y1, 0, L_COS, NULL, NULL, NULL, NULL, -100, 0, 0);
    GC(x, y, 1, L_PD, NULL, NULL, NULL, NULL, -100, 2, 0);
    GC(x, y1, 0, L_PD, NULL, NULL, NULL, NULL, -100, 1.5, 0);
}

/* ---- errors ---- */
TEST(test_errors) {
    ct_tensor *x = rnd64(2, CT__INTS(3, 4), 31);
    CHECK_ERR(ct_cross_entropy(x, I64((2), 0, 1), NULL), CT_ERR_SHAPE, "cross_entropy: Expected input batch_size (3) to match target batch_size (2).");
    CHECK_ERR(ct_cross_entropy(x, I64((3), 0, 5, 1), NULL), CT_ERR_INDEX, "cross_entropy: Target 5 is out of bounds.");
    CHECK_ERR(ct_cross_entropy(x, I64((3), 0, -1, 1), &(ct_cross_entropy_options){.weight = ct_ones(CT_FLOAT64, 4)}), CT_ERR_INDEX,
              "Target -1 is out of bounds.");
    CHECK_ERR(ct_cross_entropy(x, I64((3), 0, 1, 1), &(ct_cross_entropy_options){.weight = ct_ones(CT_FLOAT64, 3)}), CT_ERR_SHAPE,
              "weight tensor should be defined either for all 4 classes or no classes but got weight tensor of shape: [3]");
    CHECK_ERR(ct_cross_entropy(x, I64((3), 0, 1, 1), &(ct_cross_entropy_options){.reduction = "avg"}), CT_ERR_ARG,
              "cross_entropy: avg is not a valid value for reduction");
    CHECK_ERR(ct_cross_entropy(x, I64((3), 0, 1, 1), &(ct_cross_entropy_options){.label_smoothing = 1.5}), CT_ERR_ARG,
              "label_smoothing must be between 0.0 and 1.0. Got: 1.5");
    CHECK_ERR(ct_cross_entropy(x, ct_softmax(x, 1), &(ct_cross_entropy_options){.ignore_index = 0, .use_ignore_index = 1}), CT_ERR_ARG,
              "ignore_index is not supported for floating point target");
    CHECK_ERR(ct_cross_entropy(x, ct_ones(CT_INT64, 3, 4), NULL), CT_ERR_DTYPE,
              "Expected floating point type for target with class probabilities, got Long");
    CHECK_ERR(ct_cross_entropy(x, ct_zeros(CT_FLOAT64, 3), NULL), CT_ERR_DTYPE, "expected scalar type Long but found Double");
    CHECK_ERR(ct_cross_entropy(rnd64(3, CT__INTS(2, 3, 4), 1), ct_zeros(CT_INT64, 2, 5), NULL), CT_ERR_SHAPE,
              "Expected target size [2, 4], got [2, 5]");
    CHECK_ERR(ct_cross_entropy(ct_scalar_tensor(1, CT_FLOAT64), ct_scalar_tensor(0, CT_INT64), NULL), CT_ERR_DTYPE,
              "Expected floating point type for target with class probabilities");
    CHECK_ERR(ct_cross_entropy(ct_ones(CT_INT64, 3, 4), I64((3), 0, 1, 1), NULL), CT_ERR_DTYPE, "cross_entropy: expected a floating point input");
    CHECK_ERR(ct_cross_entropy(NULL, I64((3), 0, 1, 1), NULL), CT_ERR_NULL, "cross_entropy: argument 0 is NULL");
    CHECK_ERR(ct_nll_loss(x, I64((3), 0, 4, 1), NULL), CT_ERR_INDEX, "nll_loss: Target 4 is out of bounds.");
    CHECK_ERR(ct_nll_loss(x, I64((2), 0, 1), NULL), CT_ERR_SHAPE, "nll_loss: Expected input batch_size (3) to match target batch_size (2).");
    CHECK_ERR(ct_nll_loss(ct_scalar_tensor(1, CT_FLOAT64), ct_scalar_tensor(0, CT_INT64), NULL), CT_ERR_SHAPE,
              "nll_loss: Expected 1 or more dimensions (got 0)");
    CHECK_ERR(ct_nll_loss(x, I64((3), 0, 1, 1), &(ct_nll_loss_options){.weight = ct_ones(CT_FLOAT32, 4)}), CT_ERR_DTYPE,
              "nll_loss: expected scalar type Double but found Float");
    CHECK_ERR(ct_mse_loss(x, x, "batchmean"), CT_ERR_ARG, "mse_loss: batchmean is not a valid value for reduction");
    CHECK_ERR(ct_mse_loss(x, rnd64(1, CT__INTS(3), 1), NULL), CT_ERR_SHAPE, "must match the size of tensor b");
    CHECK_ERR(ct_l1_loss(x, NULL, NULL), CT_ERR_NULL, "l1_loss: argument 1 is NULL");
    CHECK_ERR(ct_smooth_l1_loss(x, x, NULL, -1), CT_ERR_ARG, "smooth_l1_loss does not support negative values for beta.");
    CHECK_ERR(ct_huber_loss(x, x, NULL, 0), CT_ERR_ARG, "huber_loss does not support non-positive values for delta.");
    CHECK_ERR(ct_binary_cross_entropy(T64((2), 0.5, 0.5), T64((3), 0, 1, 0), NULL, NULL), CT_ERR_SHAPE,
              "binary_cross_entropy: Using a target size ([3]) that is different to the input size ([2]) is deprecated. Please ensure they have the same size.");
    CHECK_ERR(ct_binary_cross_entropy(T64((2), 0.5, 1.5), T64((2), 0, 1), NULL, NULL), CT_ERR_ARG,
              "binary_cross_entropy: all elements of input should be between 0 and 1");
    CHECK_ERR(ct_binary_cross_entropy_with_logits(T64((2), 0.5, 0.5), T64((3), 0, 1, 0), NULL, NULL, NULL), CT_ERR_SHAPE,
              "binary_cross_entropy_with_logits: Target size ([3]) must be the same as input size ([2])");
    CHECK_ERR(ct_kl_div(x, x, "avg", 0), CT_ERR_ARG, "kl_div: avg is not a valid value for reduction");
    CHECK_ERR(ct_cosine_similarity(x, x, 2, 1e-8), CT_ERR_INDEX,
              "cosine_similarity: Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    CHECK_ERR(ct_cosine_similarity(x, rnd64(2, CT__INTS(2, 4), 1), 1, 1e-8), CT_ERR_SHAPE,
              "cosine_similarity: The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0");
    CHECK_ERR(ct_pairwise_distance(ct_scalar_tensor(1, CT_FLOAT64), ct_scalar_tensor(2, CT_FLOAT64), 2, 1e-6, 0), CT_ERR_SHAPE,
              "pairwise_distance: Expected at least 1-D inputs");
}

TEST(test_loss_modules) {
    ct_tensor *x = rnd64(2, CT__INTS(4, 3), 51), *t = I64((4), 0, 2, 1, 2), *y = rnd64(2, CT__INTS(4, 3), 52);
    ct_tensor *w = T64((3), 0.5, 1, 2);
    ct_cross_entropy_options o = {w, 2, 1, "sum", 0.1};
    ct_module *ce = ct_nn_cross_entropy_loss(&o), *mse = ct_nn_mse_loss("none"), *nll = ct_nn_nll_loss(NULL);
    ct_module *l1 = ct_nn_l1_loss(NULL), *bce = ct_nn_bce_with_logits_loss("sum");
    CHECK(ce && mse && nll && l1 && bce);
    ct_tensor *xt[2] = {x, t}, *xy[2] = {x, y};
    CHECK_CLOSE(ct_item(ct_forward_n(ce, 2, xt)), ct_item(ct_cross_entropy(x, t, &o)), 0);
    CHECK(ct_equal(ct_forward_n(mse, 2, xy), ct_mse_loss(x, y, "none")) == 1);
    ct_tensor *lpt[2] = {ct_log_softmax(x, 1), t};
    CHECK_CLOSE(ct_item(ct_forward_n(nll, 2, lpt)), ct_item(ct_nll_loss(lpt[0], t, NULL)), 0);
    CHECK_CLOSE(ct_item(ct_forward_n(l1, 2, xy)), ct_item(ct_l1_loss(x, y, NULL)), 0);
    ct_tensor *q = ct_sigmoid(y), *xq[2] = {x, q};
    CHECK_CLOSE(ct_item(ct_forward_n(bce, 2, xq)), ct_item(ct_binary_cross_entropy_with_logits(x, q, NULL, NULL, "sum")), 0);
    /* the class weight is the buffer "weight" */
    CHECK(ct_module_get(ce, "weight") == w);
    char buf[128];
    ct_module_repr(ce, buf, sizeof buf);
    CHECK_STR(buf, "CrossEntropyLoss()");
    CHECK_ERR(ct_forward(ce, x), CT_ERR_ARG, "CrossEntropyLoss: forward expects 2 inputs (input, target), got 1");
    CHECK_ERR(ct_nn_mse_loss("avg"), CT_ERR_ARG, "MSELoss: avg is not a valid value for reduction");
    ct_module_free(ce);
    ct_module_free(mse);
    ct_module_free(nll);
    ct_module_free(l1);
    ct_module_free(bce);
}

TEST(test_memory_flat) {
    int64_t t0 = ct_live_tensors(), b0 = ct_live_bytes();
    for (int it = 0; it < 3; it++) {
        CT_SCOPE {
            ct_tensor *x = ct_requires_grad(ct_randn(CT_FLOAT32, 8, 10));
            ct_tensor *t = ct_randint(0, 10, CT_INT64, 8);
            ct_tensor *l = ct_cross_entropy(x, t, NULL);
            l = ct_add(l, ct_cross_entropy(x, t, &(ct_cross_entropy_options){.label_smoothing = 0.1, .weight = ct_ones(CT_FLOAT32, 10)}));
            l = ct_add(l, ct_mse_loss(x, ct_zeros_like(x), NULL));
            l = ct_add(l, ct_binary_cross_entropy_with_logits(x, ct_ones_like(x), NULL, NULL, NULL));
            l = ct_add(l, ct_sum(ct_cosine_similarity(x, ct_ones_like(x), 1, 1e-8)));
            ct_tensor *gx = NULL;
            CHECK(ct_autograd_grad(1, &l, NULL, 1, &x, &gx, &(ct_grad_options){.create_graph = 1}) == CT_OK);
            CHECK(ct_backward(ct_sum(ct_square(gx))) == CT_OK);
        }
    }
    CHECK_EQ_INT(ct_live_tensors(), t0);
    CHECK_EQ_INT(ct_live_bytes(), b0);
}

int main(void) {
    ct_t_init();
    RUN(test_cross_entropy_values);
    RUN(test_cross_entropy_fused_vs_general);
    RUN(test_other_values);
    RUN(test_gradcheck_cross_entropy);
    RUN(test_fused_double_backward);
    RUN(test_fused_pointwise);
    RUN(test_gradcheck_pointwise);
    RUN(test_errors);
    RUN(test_loss_modules);
    RUN(test_memory_flat);
    return ct_t_summary();
}
