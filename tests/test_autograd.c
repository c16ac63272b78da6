/* Autograd: the engine's behaviours (PyTorch's), gradcheck for every
   differentiable op of the core families, and the op-table coverage check. */
#define CTENSOR_IMPLEMENTATION
#include "ct_test.h"

/* ---- helpers: deterministic float64 inputs ---- */
static ct_tensor *leaf(int ndim, const int64_t *shape, double lo, double hi, uint64_t seed) {
    ct_generator g;
    ct_generator_init(&g, seed);
    ct_tensor *x = ct_uniform_(ct_empty_n(CT_FLOAT64, ndim, shape), lo, hi, &g);
    return ct_requires_grad(x);
}
#define LEAF(lo, hi, seed, ...) leaf(CT_DIMS(__VA_ARGS__), lo, hi, seed)
/* a non-contiguous leaf: the transpose of a contiguous one (requires grad itself) */
static ct_tensor *leaf_t(int64_t r, int64_t c, double lo, double hi, uint64_t seed) {
    ct_tensor *b = LEAF(lo, hi, seed, c, r);
    ct_tensor *t = ct_detach(ct_t(b));
    return ct_requires_grad(t);
}

typedef ct_tensor *(*unary_fn)(const ct_tensor *);
static ct_tensor *call_unary(ct_tensor *const *in, void *u) { return ((unary_fn)(uintptr_t)u)(in[0]); }
typedef ct_tensor *(*binary_fn)(const ct_tensor *, const ct_tensor *);
static ct_tensor *call_binary(ct_tensor *const *in, void *u) { return ((binary_fn)(uintptr_t)u)(in[0], in[1]); }

static int gc1(unary_fn f, ct_tensor *x) { ct_tensor *in[1] = {x}; return ct_gradcheck(call_unary, (void *)(uintptr_t)f, 1, in, NULL); }
static int ggc1(unary_fn f, ct_tensor *x) { ct_tensor *in[1] = {x}; return ct_gradgradcheck(call_unary, (void *)(uintptr_t)f, 1, in, NULL); }
static int gc2(binary_fn f, ct_tensor *x, ct_tensor *y) { ct_tensor *in[2] = {x, y}; return ct_gradcheck(call_binary, (void *)(uintptr_t)f, 2, in, NULL); }
static int ggc2(binary_fn f, ct_tensor *x, ct_tensor *y) { ct_tensor *in[2] = {x, y}; return ct_gradgradcheck(call_binary, (void *)(uintptr_t)f, 2, in, NULL); }
#define CHECK_GC(expr) do { int ok_ = (expr); CT_T_REPORT(ok_, "%s: %s", #expr, ct_last_error()); ct_clear_error(); } while (0)

/* ---- unary ops ---- */
static ct_tensor *f_leaky(const ct_tensor *x) { return ct_leaky_relu(x, 0.1); }
static ct_tensor *f_elu(const ct_tensor *x) { return ct_elu(x, 0.7); }
static ct_tensor *f_celu(const ct_tensor *x) { return ct_celu(x, 1.3); }
static ct_tensor *f_gelu(const ct_tensor *x) { return ct_gelu(x, "none"); }
static ct_tensor *f_gelu_tanh(const ct_tensor *x) { return ct_gelu(x, "tanh"); }
static ct_tensor *f_softplus(const ct_tensor *x) { return ct_softplus(x, 2.0, 3.0); }
static ct_tensor *f_hardtanh(const ct_tensor *x) { return ct_hardtanh(x, -0.5, 0.6); }
static ct_tensor *f_threshold(const ct_tensor *x) { return ct_threshold(x, 0.1, -2.0); }
static ct_tensor *f_nan_to_num(const ct_tensor *x) { return ct_nan_to_num(x, 0.0, NAN, NAN); }
static ct_tensor *f_clamp(const ct_tensor *x) { return ct_clamp(x, -0.4, 0.5); }
static ct_tensor *f_pow25(const ct_tensor *x) { return ct_pow_scalar(x, 2.5); }
static ct_tensor *f_pow3(const ct_tensor *x) { return ct_pow_scalar(x, 3.0); }
static ct_tensor *f_rpow(const ct_tensor *x) { return ct_rpow_scalar(1.7, x); }
static ct_tensor *f_rounddec(const ct_tensor *x) { return ct_round_decimals(x, 2); }

TEST(test_gradcheck_unary) {
    struct { const char *name; unary_fn f; double lo, hi; } ops[] = {
        {"neg", ct_neg, -2, 2}, {"abs", ct_abs, 0.1, 2}, {"sign", ct_sign, 0.1, 2}, {"exp", ct_exp, -2, 2},
        {"exp2", ct_exp2, -2, 2}, {"expm1", ct_expm1, -2, 2}, {"log", ct_log, 0.2, 3}, {"log2", ct_log2, 0.2, 3},
        {"log10", ct_log10, 0.2, 3}, {"log1p", ct_log1p, -0.5, 3}, {"sqrt", ct_sqrt, 0.2, 3}, {"rsqrt", ct_rsqrt, 0.2, 3},
        {"reciprocal", ct_reciprocal, 0.3, 3}, {"square", ct_square, -2, 2}, {"sin", ct_sin, -3, 3}, {"cos", ct_cos, -3, 3},
        {"tan", ct_tan, -1, 1}, {"asin", ct_asin, -0.9, 0.9}, {"acos", ct_acos, -0.9, 0.9}, {"atan", ct_atan, -3, 3},
        {"sinh", ct_sinh, -2, 2}, {"cosh", ct_cosh, -2, 2}, {"tanh", ct_tanh, -2, 2}, {"sigmoid", ct_sigmoid, -3, 3},
        {"logsigmoid", ct_logsigmoid, -3, 3}, {"relu", ct_relu, -2, 2}, {"relu6", ct_relu6, -2, 8}, {"selu", ct_selu, -2, 2},
        {"silu", ct_silu, -3, 3}, {"mish", ct_mish, -3, 3}, {"hardsigmoid", ct_hardsigmoid, -4, 4},
        {"hardswish", ct_hardswish, -4, 4}, {"erf", ct_erf, -2, 2}, {"erfc", ct_erfc, -2, 2}, {"floor", ct_floor, 0.1, 0.9},
        {"ceil", ct_ceil, 0.1, 0.9}, {"round", ct_round, 0.1, 0.4}, {"trunc", ct_trunc, 0.1, 0.9}, {"frac", ct_frac, 0.1, 0.9},
        {"leaky_relu", f_leaky, -2, 2}, {"elu", f_elu, -2, 2}, {"celu", f_celu, -2, 2}, {"gelu", f_gelu, -3, 3},
        {"gelu_tanh", f_gelu_tanh, -3, 3}, {"softplus", f_softplus, -3, 3}, {"hardtanh", f_hardtanh, -1, 1},
        {"threshold", f_threshold, -1, 1}, {"nan_to_num", f_nan_to_num, -1, 1}, {"clamp", f_clamp, -1, 1},
        {"pow_scalar", f_pow25, 0.2, 2}, {"pow3", f_pow3, -2, 2}, {"rpow_scalar", f_rpow, -2, 2}, {"round_decimals", f_rounddec, 0.1, 0.9},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        ct_t_current = ops[i].name;
        CHECK_GC(gc1(ops[i].f, LEAF(ops[i].lo, ops[i].hi, 7 + i, 3, 4)));
        CHECK_GC(gc1(ops[i].f, leaf_t(3, 2, ops[i].lo, ops[i].hi, 100 + i)));   /* non-contiguous */
    }
    ct_t_current = "gradgradcheck unary";
    unary_fn gg[] = {ct_exp, ct_log, ct_sqrt, ct_tanh, ct_sigmoid, ct_sin, ct_reciprocal, f_gelu, f_gelu_tanh, ct_silu, ct_mish,
                     f_softplus, ct_logsigmoid, ct_erf, f_pow25, ct_atan, ct_asin, f_elu, ct_selu};
    for (size_t i = 0; i < sizeof gg / sizeof gg[0]; i++) CHECK_GC(ggc1(gg[i], LEAF(0.2, 0.8, 50 + i, 2, 3)));
}

/* ---- binary ops ---- */
static ct_tensor *f_add_alpha(const ct_tensor *x, const ct_tensor *y) { return ct_add_alpha(x, y, -0.7); }
static ct_tensor *f_sub_alpha(const ct_tensor *x, const ct_tensor *y) { return ct_sub_alpha(x, y, 1.5); }
TEST(test_gradcheck_binary) {
    struct { const char *name; binary_fn f; double lo, hi; } ops[] = {
        {"add", ct_add, -2, 2}, {"add_alpha", f_add_alpha, -2, 2}, {"sub", ct_sub, -2, 2}, {"sub_alpha", f_sub_alpha, -2, 2},
        {"mul", ct_mul, -2, 2}, {"div", ct_div, 0.5, 2}, {"remainder", ct_remainder, 0.3, 0.9}, {"fmod", ct_fmod, 0.3, 0.9},
        {"pow", ct_pow, 0.5, 2}, {"atan2", ct_atan2, 0.5, 2}, {"maximum", ct_maximum, -2, 2}, {"minimum", ct_minimum, -2, 2},
        {"fmax", ct_fmax, -2, 2}, {"fmin", ct_fmin, -2, 2}, {"hypot", ct_hypot, 0.5, 2}, {"copysign", ct_copysign, 0.5, 2},
        {"xlogy", ct_xlogy, 0.5, 2},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        ct_t_current = ops[i].name;
        /* broadcasting [3,1] with [4]; and a non-contiguous pair */
        CHECK_GC(gc2(ops[i].f, LEAF(ops[i].lo, ops[i].hi, 11 + i, 3, 1), LEAF(ops[i].lo, ops[i].hi, 31 + i, 4)));
        CHECK_GC(gc2(ops[i].f, leaf_t(2, 3, ops[i].lo, ops[i].hi, 51 + i), LEAF(ops[i].lo, ops[i].hi, 71 + i, 2, 3)));
    }
    ct_t_current = "gradgradcheck binary";
    binary_fn gg[] = {ct_mul, ct_div, ct_pow, ct_atan2, ct_hypot, ct_add, f_sub_alpha, ct_xlogy};
    for (size_t i = 0; i < sizeof gg / sizeof gg[0]; i++) CHECK_GC(ggc2(gg[i], LEAF(0.5, 1.5, 90 + i, 2, 2), LEAF(0.5, 1.5, 95 + i, 2)));
    /* ties split the gradient in half (PyTorch's maximum/minimum convention) */
    ct_t_current = "maximum ties";
    ct_tensor *a = ct_requires_grad(ct_tensor_f64(((double[]){1, 2, 3}), 3));
    ct_tensor *b = ct_requires_grad(ct_tensor_f64(((double[]){1, 5, 0}), 3));
    CHECK(ct_backward(ct_sum(ct_maximum(a, b))) == CT_OK);
    double ea[] = {0.5, 0, 1}, eb[] = {0.5, 1, 0};
    CHECK_VALUES(ct_grad(a), ea, 3, 0);
    CHECK_VALUES(ct_grad(b), eb, 3, 0);
}

/* ---- ternary ops ---- */
static ct_tensor *f_where(ct_tensor *const *in, void *u) { (void)u; return ct_where(ct_gt_scalar(in[0], 0.5), in[0], in[1]); }
static ct_tensor *f_lerp(ct_tensor *const *in, void *u) { (void)u; return ct_lerp(in[0], in[1], in[2]); }
static ct_tensor *f_lerp_s(ct_tensor *const *in, void *u) { (void)u; return ct_lerp_scalar(in[0], in[1], 0.3); }
static ct_tensor *f_addcmul(ct_tensor *const *in, void *u) { (void)u; return ct_addcmul(in[0], in[1], in[2], 0.7); }
static ct_tensor *f_addcdiv(ct_tensor *const *in, void *u) { (void)u; return ct_addcdiv(in[0], in[1], in[2], -1.3); }
static ct_tensor *f_clamp_t(ct_tensor *const *in, void *u) { (void)u; return ct_clamp_tensor(in[0], in[1], in[2]); }
static ct_tensor *f_masked_fill(ct_tensor *const *in, void *u) { (void)u; return ct_masked_fill_tensor(in[0], ct_gt_scalar(in[1], 0.5), in[2]); }
TEST(test_gradcheck_ternary) {
    ct_tensor *x = LEAF(0, 1, 1, 3, 4), *y = LEAF(0, 1, 2, 4), *w = LEAF(0.2, 0.8, 3, 3, 1);
    ct_tensor *in3[3] = {x, y, w};
    CHECK_GC(ct_gradcheck(f_where, NULL, 2, in3, NULL));
    CHECK_GC(ct_gradcheck(f_lerp, NULL, 3, in3, NULL));
    CHECK_GC(ct_gradgradcheck(f_lerp, NULL, 3, in3, NULL));
    CHECK_GC(ct_gradcheck(f_lerp_s, NULL, 2, in3, NULL));
    ct_tensor *d[3] = {x, y, LEAF(1, 2, 4, 3, 1)};
    CHECK_GC(ct_gradcheck(f_addcmul, NULL, 3, d, NULL));
    CHECK_GC(ct_gradcheck(f_addcdiv, NULL, 3, d, NULL));
    CHECK_GC(ct_gradgradcheck(f_addcdiv, NULL, 3, d, NULL));
    ct_tensor *c[3] = {LEAF(-2, 2, 5, 3, 4), LEAF(-1.5, -0.5, 6, 4), LEAF(0.5, 1.5, 7, 3, 1)};
    CHECK_GC(ct_gradcheck(f_clamp_t, NULL, 3, c, NULL));
    ct_tensor *m[3] = {x, ct_detach(y), ct_requires_grad(ct_scalar_tensor(2.5, CT_FLOAT64))};
    CHECK_GC(ct_gradcheck(f_masked_fill, NULL, 3, m, NULL));
}

/* ---- views, creation, reductions, products, in-place ---- */
static ct_tensor *v_view(ct_tensor *const *in, void *u) { (void)u; return ct_view(ct_mul_scalar(in[0], 2.0), 4, 3); }
static ct_tensor *v_reshape_t(ct_tensor *const *in, void *u) { (void)u; return ct_reshape(ct_t(in[0]), 12); }
static ct_tensor *v_permute(ct_tensor *const *in, void *u) { (void)u; return ct_permute(in[0], 2, 0, 1); }
static ct_tensor *v_expand(ct_tensor *const *in, void *u) { (void)u; return ct_expand(in[0], 2, 3, 4); }
static ct_tensor *v_slice(ct_tensor *const *in, void *u) { (void)u; return ct_slice(in[0], 1, 1, 4, 2); }
static ct_tensor *v_select(ct_tensor *const *in, void *u) { (void)u; return ct_select(in[0], 0, -1); }
static ct_tensor *v_diagonal(ct_tensor *const *in, void *u) { (void)u; return ct_diagonal(in[0], -1, 0, 1); }
static ct_tensor *v_as_strided(ct_tensor *const *in, void *u) {
    (void)u;
    int64_t shape[2] = {2, 2}, st[2] = {1, 2};
    return ct_as_strided(in[0], 2, shape, st, in[0]->offset + 1);
}
static ct_tensor *v_as_strided_overlap(ct_tensor *const *in, void *u) {
    (void)u;
    int64_t shape[2] = {3, 3}, st[2] = {1, 1};   /* overlapping windows: gradients add up */
    return ct_as_strided(ct_contiguous(in[0]), 2, shape, st, 0);
}
static ct_tensor *v_narrow_sq(ct_tensor *const *in, void *u) { (void)u; return ct_squeeze(ct_unsqueeze(ct_narrow(in[0], 1, 1, 2), 0)); }
static ct_tensor *v_flatten(ct_tensor *const *in, void *u) { (void)u; return ct_unflatten(ct_flatten(in[0], 0, 1), 0, 2, 6); }
static ct_tensor *v_contig(ct_tensor *const *in, void *u) { (void)u; return ct_contiguous(ct_transpose(in[0], 0, 1)); }
static ct_tensor *v_clone_to(ct_tensor *const *in, void *u) { (void)u; return ct_to(ct_clone(in[0]), CT_FLOAT64); }
static ct_tensor *r_sum(ct_tensor *const *in, void *u) { (void)u; return ct_sum(in[0]); }
static ct_tensor *r_sum_dims(ct_tensor *const *in, void *u) { (void)u; int64_t d[2] = {0, -1}; return ct_sum_dims(in[0], 2, d, 0); }
static ct_tensor *r_sum_keep(ct_tensor *const *in, void *u) { (void)u; return ct_sum_dim(in[0], 1, 1); }
static ct_tensor *r_mean(ct_tensor *const *in, void *u) { (void)u; return ct_mean_dim(in[0], 0, 0); }
static ct_tensor *r_sum_to(ct_tensor *const *in, void *u) { (void)u; int64_t s[2] = {1, 4}; return ct_sum_to_size_n(in[0], 2, s); }
static ct_tensor *p_mm(ct_tensor *const *in, void *u) { (void)u; return ct_mm(in[0], in[1]); }
static ct_tensor *p_matmul(ct_tensor *const *in, void *u) { (void)u; return ct_matmul(in[0], in[1]); }
static ct_tensor *i_add_(ct_tensor *const *in, void *u) { (void)u; ct_tensor *y = ct_mul_scalar(in[0], 1.0); return ct_add_alpha_(y, in[1], 0.5); }
static ct_tensor *i_mul_(ct_tensor *const *in, void *u) { (void)u; ct_tensor *y = ct_mul_scalar(in[0], 1.0); return ct_mul_(y, in[1]); }
static ct_tensor *i_div_(ct_tensor *const *in, void *u) { (void)u; ct_tensor *y = ct_mul_scalar(in[0], 1.0); return ct_div_(y, in[1]); }
static ct_tensor *i_clamp_(ct_tensor *const *in, void *u) { (void)u; ct_tensor *y = ct_mul_scalar(in[0], 1.0); return ct_clamp_(y, 0.3, 0.7); }
static ct_tensor *i_relu_(ct_tensor *const *in, void *u) { (void)u; ct_tensor *y = ct_sub_scalar(in[0], 0.5); return ct_relu_(y); }
static ct_tensor *i_copy_(ct_tensor *const *in, void *u) { (void)u; ct_tensor *y = ct_mul_scalar(in[0], 1.0); return ct_copy_(y, ct_sin(in[1])); }
static ct_tensor *i_fill_(ct_tensor *const *in, void *u) { (void)u; ct_tensor *y = ct_mul_scalar(in[0], 3.0); return ct_add(ct_fill_(ct_slice(y, 0, 0, 1, 1), 2.0), ct_sum(y)); }
static ct_tensor *i_addcmul_(ct_tensor *const *in, void *u) { (void)u; ct_tensor *y = ct_mul_scalar(in[0], 1.0); return ct_addcmul_(y, in[1], in[1], 0.5); }
static ct_tensor *i_masked_fill_(ct_tensor *const *in, void *u) { (void)u; ct_tensor *y = ct_mul_scalar(in[0], 1.0); return ct_masked_fill_(y, ct_gt_scalar(in[1], 0.5), 1.0); }
static ct_tensor *i_lerp_(ct_tensor *const *in, void *u) { (void)u; ct_tensor *y = ct_mul_scalar(in[0], 1.0); return ct_lerp_scalar_(y, in[1], 0.25); }
/* in-place through a view of a non-leaf (CopySlices) */
static ct_tensor *cs_mul(ct_tensor *const *in, void *u) {
    (void)u;
    ct_tensor *b = ct_mul_scalar(in[0], 1.0);
    ct_mul_(ct_select(b, 0, 1), in[1]);
    return ct_mul(b, b);
}
static ct_tensor *cs_copy_slice(ct_tensor *const *in, void *u) {
    (void)u;
    ct_tensor *b = ct_exp(in[0]);
    ct_copy_(ct_slice(ct_t(b), 1, 0, 3, 2), ct_tanh(in[1]));   /* view of a transposed view */
    return b;
}

TEST(test_gradcheck_views_products_inplace) {
    struct { const char *name; ct_grad_fn_t f; int nin; } fs[] = {
        {"view", v_view, 1}, {"reshape_t", v_reshape_t, 1}, {"slice", v_slice, 1}, {"select", v_select, 1},
        {"diagonal", v_diagonal, 1}, {"as_strided", v_as_strided, 1}, {"as_strided_overlap", v_as_strided_overlap, 1},
        {"narrow_squeeze", v_narrow_sq, 1}, {"flatten_unflatten", v_flatten, 1}, {"contiguous", v_contig, 1},
        {"sum", r_sum, 1}, {"sum_dims", r_sum_dims, 1}, {"sum_keepdim", r_sum_keep, 1}, {"mean", r_mean, 1}, {"sum_to_size", r_sum_to, 1},
        {"add_", i_add_, 2}, {"mul_", i_mul_, 2}, {"div_", i_div_, 2}, {"clamp_", i_clamp_, 1}, {"relu_", i_relu_, 1},
        {"copy_", i_copy_, 2}, {"fill_ on a view", i_fill_, 1}, {"addcmul_", i_addcmul_, 2}, {"masked_fill_", i_masked_fill_, 2},
        {"lerp_", i_lerp_, 2},
    };
    for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++) {
        ct_t_current = fs[i].name;
        ct_tensor *in[2] = {LEAF(0.1, 0.9, 200 + i, 3, 4), LEAF(0.5, 1.5, 300 + i, 3, 4)};
        CHECK_GC(ct_gradcheck(fs[i].f, NULL, fs[i].nin, in, NULL));
    }
    ct_t_current = "permute/expand";
    ct_tensor *x3[1] = {LEAF(0, 1, 1, 3, 4, 2)};
    CHECK_GC(ct_gradcheck(v_permute, NULL, 1, x3, NULL));
    ct_tensor *e1[1] = {LEAF(0, 1, 2, 3, 1)};
    CHECK_GC(ct_gradcheck(v_expand, NULL, 1, e1, NULL));
    ct_t_current = "clone/to";
    ct_tensor *c1[1] = {LEAF(0, 1, 3, 2, 2)};
    CHECK_GC(ct_gradcheck(v_clone_to, NULL, 1, c1, NULL));
    /* through a dtype change the gradient comes back in the input's dtype */
    ct_tensor *h = ct_requires_grad(ct_ones(CT_FLOAT64, 3));
    CHECK(ct_backward(ct_sum(ct_mul_scalar(ct_to(h, CT_FLOAT32), 2.0))) == CT_OK);
    CHECK_EQ_INT(ct_grad(h)->dtype, CT_FLOAT64);
    double e2[] = {2, 2, 2};
    CHECK_VALUES(ct_grad(h), e2, 3, 0);
    ct_t_current = "mm/matmul";
    ct_tensor *m[2] = {LEAF(-1, 1, 4, 3, 4), LEAF(-1, 1, 5, 4, 2)};
    CHECK_GC(ct_gradcheck(p_mm, NULL, 2, m, NULL));
    CHECK_GC(ct_gradgradcheck(p_mm, NULL, 2, m, NULL));
    ct_tensor *bm[2] = {LEAF(-1, 1, 6, 2, 1, 3, 4), LEAF(-1, 1, 7, 3, 4, 2)};
    CHECK_GC(ct_gradcheck(p_matmul, NULL, 2, bm, NULL));
    ct_tensor *vm[2] = {LEAF(-1, 1, 8, 4), LEAF(-1, 1, 9, 2, 4, 3)};
    CHECK_GC(ct_gradcheck(p_matmul, NULL, 2, vm, NULL));
    ct_t_current = "CopySlices";
    ct_tensor *cs[2] = {LEAF(0.1, 0.9, 10, 3, 4), LEAF(0.5, 1.5, 11, 4)};
    CHECK_GC(ct_gradcheck(cs_mul, NULL, 2, cs, NULL));
    CHECK_GC(ct_gradgradcheck(cs_mul, NULL, 2, cs, NULL));
    ct_tensor *cs2[2] = {LEAF(0.1, 0.9, 12, 3, 4), LEAF(0.5, 1.5, 13, 2, 3)};
    CHECK_GC(ct_gradcheck(cs_copy_slice, NULL, 2, cs2, NULL));
}

/* ---- the engine ---- */
TEST(test_doc_examples) {
    /* PyTorch's autograd documentation */
    ct_tensor *x = ct_requires_grad(ct_tensor_f64(((double[]){0.5, 0.75}), 2));
    ct_tensor *y = ct_mul(ct_log(ct_mul(ct_select(x, 0, 0), ct_select(x, 0, 1))), ct_sin(ct_select(x, 0, 1)));
    CHECK(ct_backward(y) == CT_OK);
    double e1[] = {1.3633, 0.1912};
    CHECK_VALUES(ct_grad(x), e1, 2, 1e-4);
    ct_tensor *a = ct_requires_grad(ct_tensor_f64(((double[]){0.5, 0.75}), 2));
    ct_tensor *b = ct_requires_grad(ct_tensor_f64(((double[]){0.1, 0.9}), 2));
    ct_tensor *z = ct_sum(ct_exp(ct_mul(a, b)));
    ct_backward_options o = {0, 0, 1, &a};
    CHECK(ct_backward_ex(1, &z, NULL, &o) == CT_OK);
    double e2[] = {0.1051, 1.7676};
    CHECK_VALUES(ct_grad(a), e2, 2, 1e-4);
    CHECK(ct_grad(b) == NULL);
}

TEST(test_accumulation_and_roots) {
    ct_tensor *x = ct_requires_grad(ct_tensor_f64(((double[]){1, 2, 3}), 3));
    ct_tensor *y = ct_add(ct_mul(x, x), x);      /* x used three times */
    CHECK(ct_backward(ct_sum(y)) == CT_OK);
    double e[] = {3, 5, 7};
    CHECK_VALUES(ct_grad(x), e, 3, 0);
    CHECK(ct_backward(ct_sum(ct_mul_scalar(x, 2.0))) == CT_OK);   /* .grad accumulates */
    double e2[] = {5, 7, 9};
    CHECK_VALUES(ct_grad(x), e2, 3, 0);
    /* several roots with their grad_outputs */
    ct_tensor *w = ct_requires_grad(ct_tensor_f64(((double[]){1, 2}), 2));
    ct_tensor *r[2] = {ct_mul_scalar(w, 3.0), ct_mul(w, w)};
    ct_tensor *g[2] = {ct_tensor_f64(((double[]){1, 1}), 2), ct_tensor_f64(((double[]){10, 100}), 2)};
    CHECK(ct_backward_ex(2, r, g, NULL) == CT_OK);
    double e3[] = {3 + 20, 3 + 400};
    CHECK_VALUES(ct_grad(w), e3, 2, 0);
    CHECK_ERR(ct_backward(ct_mul(w, w)) == CT_OK, CT_ERR_AUTOGRAD, "grad can be implicitly created only for scalar outputs");
    CHECK_ERR(ct_backward(ct_ones(CT_FLOAT64, 1)) == CT_OK, CT_ERR_AUTOGRAD, "does not require grad and does not have a grad_fn");
    ct_tensor *bad = ct_ones(CT_FLOAT64, 3);
    CHECK_ERR(ct_backward_ex(1, &r[1], &bad, NULL) == CT_OK, CT_ERR_SHAPE, "Mismatch in shape: grad_output[0] has a shape of torch.Size([3])");
}

TEST(test_inputs_pruning) {
    ct_tensor *x = ct_requires_grad(ct_tensor_f64(((double[]){0.5}), 1));
    ct_tensor *y = ct_requires_grad(ct_tensor_f64(((double[]){0.3}), 1));
    ct_tensor *yy = y;
    for (int i = 0; i < 20; i++) yy = ct_tanh(ct_add_scalar(yy, 0.1));   /* a long branch on y only */
    ct_tensor *z = ct_sum(ct_mul(ct_exp(x), yy));
    int64_t n0 = ct_autograd_nodes_run();
    ct_backward_options o = {1, 0, 1, &x};
    CHECK(ct_backward_ex(1, &z, NULL, &o) == CT_OK);
    int64_t pruned = ct_autograd_nodes_run() - n0;
    CHECK(ct_grad(y) == NULL);
    CHECK_EQ_INT(pruned, 4);   /* Sum, Mul, Exp, AccumulateGrad(x): the y branch does not run */
    n0 = ct_autograd_nodes_run();
    CHECK(ct_backward(z) == CT_OK);
    CHECK_EQ_INT(ct_autograd_nodes_run() - n0, 4 + 40 + 1);
    /* autograd.grad: captured gradients, .grad untouched, allow_unused */
    ct_tensor *gx;
    ct_tensor *fresh = ct_sum(ct_mul(x, x));
    CHECK(ct_autograd_grad(1, &fresh, NULL, 1, &x, &gx, NULL) == CT_OK);
    CHECK_CLOSE(ct_item(gx), 1.0, 1e-15);
    ct_tensor *unused = ct_requires_grad(ct_ones(CT_FLOAT64, 1));
    ct_tensor *ins[2] = {x, unused}, *gs[2];
    ct_tensor *f2 = ct_sum(ct_mul(x, x));
    ct_grad_options go = {1, 0, 0, 0};
    CHECK_ERR(ct_autograd_grad(1, &f2, NULL, 2, ins, gs, &go) == CT_OK, CT_ERR_AUTOGRAD, "appears to not have been used in the graph");
    go.allow_unused = 1;
    CHECK(ct_autograd_grad(1, &f2, NULL, 2, ins, gs, &go) == CT_OK);
    CHECK(gs[1] == NULL);
}

TEST(test_retain_graph) {
    ct_tensor *x = ct_requires_grad(ct_tensor_f64(((double[]){1, 2}), 2));
    ct_tensor *y = ct_sum(ct_exp(x));
    ct_backward_options keep = {1, 0, 0, NULL};
    CHECK(ct_backward_ex(1, &y, NULL, &keep) == CT_OK);
    CHECK(ct_backward(y) == CT_OK);       /* second pass allowed: the first kept the graph */
    double e[] = {2 * exp(1.0), 2 * exp(2.0)};
    CHECK_VALUES(ct_grad(x), e, 2, 1e-12);
    CHECK_ERR(ct_backward(y) == CT_OK, CT_ERR_AUTOGRAD, "Trying to backward through the graph a second time");
}

TEST(test_create_graph) {
    /* d/dx x^3 = 3x^2, d2/dx2 = 6x */
    ct_tensor *x = ct_requires_grad(ct_scalar_tensor(2.0, CT_FLOAT64));
    ct_tensor *y = ct_pow_scalar(x, 3.0), *g1, *g2;
    ct_grad_options cg = {0, 1, 0, 0};
    CHECK(ct_autograd_grad(1, &y, NULL, 1, &x, &g1, &cg) == CT_OK);
    CHECK_CLOSE(ct_item(g1), 12.0, 1e-12);
    CHECK(ct_get_requires_grad(g1));
    CHECK(ct_autograd_grad(1, &g1, NULL, 1, &x, &g2, NULL) == CT_OK);
    CHECK_CLOSE(ct_item(g2), 12.0, 1e-12);
    /* Hessian-vector product of f(x) = (x.x)^2: H = 4(x.x) I + 8 x x^T */
    double xv[] = {1, -2, 0.5}, vv[] = {0.3, 0.1, -1};
    ct_tensor *X = ct_requires_grad(ct_tensor_f64(xv, 3)), *V = ct_tensor_f64(vv, 3);
    ct_tensor *s = ct_sum(ct_mul(X, X));
    ct_tensor *f = ct_mul(s, s), *gr, *hv;
    CHECK(ct_autograd_grad(1, &f, NULL, 1, &X, &gr, &cg) == CT_OK);
    ct_tensor *dot = ct_sum(ct_mul(gr, V));
    CHECK(ct_autograd_grad(1, &dot, NULL, 1, &X, &hv, NULL) == CT_OK);
    double xx = 1 + 4 + 0.25, xd = 0.3 - 0.2 - 0.5, e[3];
    for (int i = 0; i < 3; i++) e[i] = 4 * xx * vv[i] + 8 * xv[i] * xd;
    CHECK_VALUES(hv, e, 3, 1e-12);
    /* gradient penalty style: backward through a gradient into .grad */
    ct_tensor *w = ct_requires_grad(ct_tensor_f64(((double[]){1.5}), 1));
    ct_tensor *out = ct_sum(ct_mul(ct_mul(w, w), w)), *gw;
    CHECK(ct_autograd_grad(1, &out, NULL, 1, &w, &gw, &cg) == CT_OK);
    CHECK(ct_backward(ct_sum(ct_mul(gw, gw))) == CT_OK);   /* d/dw (3w^2)^2 = 36 w^3 */
    CHECK_CLOSE(ct_item(ct_grad(w)), 36 * 1.5 * 1.5 * 1.5, 1e-10);
}

static ct_tensor *hook_double(ct_tensor *g, void *u) { (*(int *)u)++; return ct_mul_scalar(g, 2.0); }
static ct_tensor *hook_seen(ct_tensor *g, void *u) { (void)g; (*(int *)u)++; return NULL; }
TEST(test_hooks_retain_grad_detach) {
    int calls = 0, seen = 0;
    ct_tensor *x = ct_requires_grad(ct_tensor_f64(((double[]){1, 2}), 2));
    ct_tensor *h = ct_mul_scalar(x, 3.0);
    CHECK(ct_register_hook(h, hook_double, &calls) > 0);
    int id = ct_register_hook(x, hook_seen, &seen);
    CHECK(ct_retain_grad(h) == h);
    CHECK(ct_backward(ct_sum(ct_mul(h, h))) == CT_OK);
    CHECK_EQ_INT(calls, 1);
    CHECK_EQ_INT(seen, 1);
    double eh[] = {6, 12};          /* retain_grad sees the gradient after the hook, as PyTorch */
    double ex[] = {36, 72};
    CHECK_VALUES(ct_grad(h), eh, 2, 0);
    CHECK_VALUES(ct_grad(x), ex, 2, 0);
    ct_remove_hook(x, id);
    ct_set_grad(x, NULL);
    CHECK(ct_backward(ct_sum(x)) == CT_OK);
    CHECK_EQ_INT(seen, 1);
    CHECK_ERR(ct_register_hook(ct_ones(CT_FLOAT64, 1), hook_seen, &seen) > 0, CT_ERR_AUTOGRAD, "doesn't require gradient");
    /* detach: shares storage, no history */
    ct_tensor *d = ct_detach(h);
    CHECK(!ct_get_requires_grad(d) && d->storage == h->storage && ct_is_leaf(d));
    /* grad_fn inspection */
    ct_tensor *y = ct_mul(ct_exp(x), x);
    CHECK_STR(ct_grad_fn_name(y), "MulBackward0");
    CHECK_EQ_INT(ct_node_num_next(ct_grad_fn(y)), 2);
    CHECK_STR(ct_node_name(ct_node_next(ct_grad_fn(y), 0, NULL)), "ExpBackward0");
    CHECK_STR(ct_node_name(ct_node_next(ct_grad_fn(y), 1, NULL)), "AccumulateGrad");
    CHECK(ct_grad_fn_name(x) == NULL);
    CHECK_ERR(ct_set_requires_grad(ct_ones(CT_INT64, 2), 1), CT_ERR_AUTOGRAD, "only Tensors of floating point");
    CHECK_ERR(ct_set_requires_grad(y, 0), CT_ERR_AUTOGRAD, "only change requires_grad flags of leaf variables");
}

TEST(test_modes) {
    ct_tensor *x = ct_requires_grad(ct_ones(CT_FLOAT64, 2));
    CT_NO_GRAD {
        ct_tensor *y = ct_mul_scalar(x, 2.0);
        CHECK(!ct_get_requires_grad(y) && ct_grad_fn(y) == NULL);
    }
    CHECK(ct_is_grad_enabled());
    for (int i = 0; i < 3; i++) CT_NO_GRAD { if (i == 1) break; }   /* break leaves the block, mode restored */
    CHECK(ct_is_grad_enabled());
    int prev = ct_set_grad_enabled(0);
    CT_ENABLE_GRAD { CHECK(ct_get_requires_grad(ct_exp(x))); }
    ct_set_grad_enabled(prev);
    ct_tensor *inf = NULL;
    CT_INFERENCE_MODE {
        inf = ct_mul_scalar(x, 2.0);
        CHECK(!ct_get_requires_grad(inf));
        CHECK(ct_add_scalar_(inf, 1.0) != NULL);   /* in-place on inference tensors is fine inside */
    }
    CHECK_ERR(ct_mul(inf, x), CT_ERR_AUTOGRAD, "Inference tensors cannot be saved for backward");
    CHECK_ERR(ct_add_scalar_(inf, 1.0), CT_ERR_AUTOGRAD, "Inplace update to inference tensor outside InferenceMode");
    /* non-differentiable ops cut the graph */
    ct_tensor *b = ct_eq(x, x);
    CHECK(!ct_get_requires_grad(b));
    CHECK_ERR(ct_backward(ct_sum(ct_to(b, CT_FLOAT64))) == CT_OK, CT_ERR_AUTOGRAD, "does not require grad");
}

TEST(test_inplace_errors) {
    ct_tensor *x = ct_requires_grad(ct_tensor_f64(((double[]){1, 2, 3}), 3));
    CHECK_ERR(ct_add_scalar_(x, 1.0), CT_ERR_AUTOGRAD, "a leaf Variable that requires grad is being used in an in-place operation");
    CHECK_ERR(ct_mul_scalar_(ct_select(x, 0, 1), 2.0), CT_ERR_AUTOGRAD, "a view of a leaf Variable that requires grad");
    CT_NO_GRAD { CHECK(ct_mul_scalar_(x, 1.0) == x); }   /* allowed without grad mode (optimizer steps) */
    ct_tensor *y = ct_exp(x);
    ct_add_scalar_(y, 1.0);             /* exp saved its output; now it is modified */
    CHECK_ERR(ct_backward(ct_sum(y)) == CT_OK, CT_ERR_AUTOGRAD,
              "one of the variables needed for gradient computation has been modified by an inplace operation: "
              "[torch.DoubleTensor [3]], which is output 0 of ExpBackward0, is at version 1; expected version 0 instead");
    /* in-place on a non-leaf rebases its history: d/dx (x*2)^2 ... */
    ct_tensor *z = ct_mul_scalar(x, 2.0);
    ct_mul_(z, z);   /* z = (2x)^2 */
    ct_set_grad(x, NULL);
    CHECK_ERR(ct_backward(ct_sum(z)) == CT_OK, CT_ERR_AUTOGRAD, "modified by an inplace operation");  /* like PyTorch */
    ct_tensor *u = ct_mul_scalar(x, 2.0);
    ct_tensor *u2 = ct_mul(u, u);
    ct_add_scalar_(u2, 5.0);   /* u2's saved inputs are untouched */
    CHECK(ct_backward(ct_sum(u2)) == CT_OK);
    double e[] = {8, 16, 24};
    CHECK_VALUES(ct_grad(x), e, 3, 0);
    CHECK_STR(ct_grad_fn_name(u2), "AddBackward0");
}

TEST(test_copyslices_matches_torch) {
    /* a = [[1,2,3],[4,5,6]]; b = a*1; b[1].mul_([10,20,30]); (b*b).sum().backward() */
    ct_tensor *a = ct_requires_grad(ct_tensor_f64(((double[]){1, 2, 3, 4, 5, 6}), 2, 3));
    ct_tensor *b = ct_mul_scalar(a, 1.0);
    ct_tensor *v = ct_select(b, 0, 1);
    CHECK(ct_mul_(v, ct_tensor_f64(((double[]){10, 20, 30}), 3)) == v);
    CHECK_STR(ct_grad_fn_name(b), "CopySlices");
    CHECK_STR(ct_grad_fn_name(v), "AsStridedBackward0");
    CHECK(ct_backward(ct_sum(ct_mul(b, b))) == CT_OK);
    double e[] = {2, 4, 6, 800, 4000, 10800};
    CHECK_VALUES(ct_grad(a), e, 6, 1e-12);
    /* a base that did not require grad gets history from the written value */
    ct_tensor *w = ct_requires_grad(ct_ones(CT_FLOAT64, 3));
    ct_tensor *c = ct_zeros(CT_FLOAT64, 2, 3);
    ct_copy_(ct_select(c, 0, 0), ct_mul_scalar(w, 3.0));
    CHECK(ct_get_requires_grad(c));
    CHECK(ct_backward(ct_sum(ct_mul(c, c))) == CT_OK);
    double ew[] = {18, 18, 18};
    CHECK_VALUES(ct_grad(w), ew, 3, 0);
    /* an old view of a base written in place gets a fresh history when used */
    ct_tensor *p = ct_requires_grad(ct_tensor_f64(((double[]){1, 2, 3, 4}), 4));
    ct_tensor *q = ct_mul_scalar(p, 1.0);
    ct_tensor *old = ct_slice(q, 0, 0, 2, 1);
    ct_mul_scalar_(q, 5.0);
    CHECK(ct_backward(ct_sum(old)) == CT_OK);
    double ep[] = {5, 5, 0, 0};
    CHECK_VALUES(ct_grad(p), ep, 4, 0);
}

static ct_tensor *mlp_step(ct_tensor *w1, ct_tensor *w2, ct_tensor *xin) {
    ct_tensor *h = ct_relu(ct_matmul(xin, w1));
    return ct_mean(ct_square(ct_matmul(h, w2)));
}
TEST(test_memory) {
    ct_tensor *w1 = ct_requires_grad(ct_randn(CT_FLOAT32, 16, 32));
    ct_tensor *w2 = ct_requires_grad(ct_randn(CT_FLOAT32, 32, 4));
    ct_tensor *xin = ct_randn(CT_FLOAT32, 8, 16);
    int64_t t0, b0;
    /* saved tensors go away with a backward that does not retain the graph */
    CT_SCOPE {
        ct_tensor *loss0 = mlp_step(w1, w2, xin);
        CHECK(ct_backward(loss0) == CT_OK);   /* creates .grad for w1, w2 */
    }
    t0 = ct_live_tensors();
    b0 = ct_live_bytes();
    CT_SCOPE {
        ct_tensor *loss = mlp_step(w1, w2, xin);
        CHECK(ct_live_bytes() > b0);
        CHECK(ct_backward(loss) == CT_OK);
    }
    CHECK_EQ_INT(ct_live_tensors(), t0);
    CHECK_EQ_INT(ct_live_bytes(), b0);
    /* 10,000 forward/backward iterations: flat */
    for (int i = 0; i < 10000; i++) CT_SCOPE {
        ct_tensor *loss = mlp_step(w1, w2, xin);
        if (ct_backward(loss) != CT_OK) break;
        CT_NO_GRAD { ct_zero_(ct_grad(w1)); ct_zero_(ct_grad(w2)); }
    }
    CHECK_EQ_INT(ct_live_tensors(), t0);
    CHECK_EQ_INT(ct_live_bytes(), b0);
}

/* x.grad = g and x.detach_(): PyTorch raises where ctensor once accepted silently */
TEST(test_set_grad_detach_checks) {
    ct_tensor *x = ct_requires_grad(ct_zeros(CT_FLOAT32, 3));
    CHECK_ERR(ct_set_grad(x, ct_zeros(CT_FLOAT64, 3)) == CT_OK, CT_ERR_DTYPE,
              "set_grad: assigned grad has data of a different type (grad is float64, tensor is float32)");
    CHECK_ERR(ct_set_grad(x, ct_zeros(CT_FLOAT32, 4)) == CT_OK, CT_ERR_SHAPE,
              "set_grad: assigned grad has data of a different size (grad is [4], tensor is [3])");
    /* PyTorch checks the type first */
    CHECK_ERR(ct_set_grad(x, ct_zeros(CT_FLOAT64, 4)) == CT_OK, CT_ERR_DTYPE, "different type");
    CHECK_ERR(ct_set_grad(x, x) == CT_OK, CT_ERR_AUTOGRAD, "set_grad: can't assign Variable as its own grad");
    CHECK(ct_grad(x) == NULL);                                  /* failed assignments leave .grad alone */
    CHECK_ERR(ct_set_grad(NULL, x) == CT_OK, CT_ERR_NULL, "set_grad: argument 0 is NULL");
    ct_tensor *g = ct_ones(CT_FLOAT32, 3);
    CHECK(ct_set_grad(x, g) == CT_OK && ct_grad(x) == g);
    CHECK(ct_set_grad(x, NULL) == CT_OK && ct_grad(x) == NULL);
    CHECK(ct_set_grad(ct_zeros(CT_INT64, 3), ct_zeros(CT_INT64, 3)) == CT_OK);   /* allowed, as in PyTorch */
    /* detach_: a view cannot be detached in place; a non-view can, and so can detach()'s result */
    const char *view_msg = "detach_: Can't detach views in-place. Use detach() instead.";
    CHECK_ERR(ct_detach_(ct_view(x, 3)), CT_ERR_AUTOGRAD, view_msg);
    CHECK_ERR(ct_detach_(ct_slice(x, 0, 1, 3, 1)), CT_ERR_AUTOGRAD, view_msg);
    CHECK_ERR(ct_detach_(ct_slice(ct_zeros(CT_FLOAT32, 3), 0, 1, 3, 1)), CT_ERR_AUTOGRAD, view_msg);
    CHECK_ERR(ct_detach_(ct_slice(ct_detach(x), 0, 1, 3, 1)), CT_ERR_AUTOGRAD, view_msg);
    ct_tensor *y = ct_mul_scalar(x, 2.0);
    CHECK(ct_detach_(y) == y && ct_is_leaf(y) && !ct_get_requires_grad(y));
    ct_tensor *d = ct_detach(x);
    CHECK(ct_detach_(d) == d);
}

/* graphs that once kept themselves alive: an in-place op that saves its own output
   (z.mul_(z)), an AccumulateGrad made for an unused input or for a leaf root */
TEST(test_no_cycles_left) {
    int64_t live0 = ct_live_tensors();
    CT_SCOPE {
        ct_tensor *x = ct_requires_grad(ct_ones(CT_FLOAT64, 3));
        ct_tensor *z = ct_mul_scalar(x, 2.0);
        CHECK(ct_mul_(z, z) == z);
        CHECK_ERR(ct_backward(ct_sum(z)) == CT_OK, CT_ERR_AUTOGRAD, "modified by an inplace operation");
        ct_tensor *unused = ct_requires_grad(ct_ones(CT_FLOAT64, 1));
        ct_tensor *ins[2], *gs[2];
        ins[0] = x;
        ins[1] = unused;
        ct_tensor *f = ct_sum(ct_mul(x, x));
        CHECK_ERR(ct_autograd_grad(1, &f, NULL, 2, ins, gs, NULL) == CT_OK, CT_ERR_AUTOGRAD, "appears to not have been used");
        ct_tensor *leaf = ct_requires_grad(ct_ones(CT_FLOAT64, 1));
        CHECK(ct_backward(leaf) == CT_OK);
        double e1[] = {1};
        CHECK_VALUES(ct_grad(leaf), e1, 1, 0);
    }
    CHECK_EQ_INT(ct_live_tensors(), live0);
}

TEST(test_every_op_has_a_rule) {
    /* each op either has a backward rule or is marked non-differentiable */
    /* every op of the table: built in, and registered by the companion headers compiled in */
    for (int op = 0; op < ct_num_ops(); op++) {
        const ct__opdef *d = ct__opdef_get(op);
        int nondiff = (d->flags & CT__OPF_NONDIFF) != 0;
        /* a rule "exists" unless it refuses: the non-differentiable rows of the unary
           table have a generated rule that reports the op as not differentiable */
        int rule = d->backward && d->backward != ct__bw_none;
        if (rule && nondiff) {
            ct__node fake;
            ct_tensor *gout[1] = {NULL}, *gin[1] = {NULL};
            memset(&fake, 0, sizeof fake);
            fake.op = op;
            rule = !(d->backward(&fake, gout, gin) < 0 && strstr(ct_last_error(), "not differentiable"));
            ct_clear_error();
        }
        CT_T_REPORT(nondiff != rule, "op %s: %s", d->name, nondiff ? "non-differentiable op has a rule" : "no backward rule and not marked non-differentiable");
        CT_T_REPORT(nondiff || d->bw_name[0], "op %s has no backward node name", d->name);
    }
}

int main(void) {
    ct_t_init();
    RUN(test_gradcheck_unary);
    RUN(test_gradcheck_binary);
    RUN(test_gradcheck_ternary);
    RUN(test_gradcheck_views_products_inplace);
    RUN(test_doc_examples);
    RUN(test_accumulation_and_roots);
    RUN(test_inputs_pruning);
    RUN(test_retain_graph);
    RUN(test_create_graph);
    RUN(test_hooks_retain_grad_detach);
    RUN(test_modes);
    RUN(test_inplace_errors);
    RUN(test_copyslices_matches_torch);
    RUN(test_memory);
    RUN(test_set_grad_detach_checks);
    RUN(test_no_cycles_left);
    RUN(test_every_op_has_a_rule);
    return ct_t_summary();
}
