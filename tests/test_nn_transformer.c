/* test_nn_transformer.c - attention and transformers (ctensor_nn.h section
   transformer-api). PyTorch parity of values and gradients is in
   tests/fixtures/nn_transformer (the conformance runner); here: the fastpath
   against the regular path (and which one ran), nested batches, the why-not
   reasons, scaled_dot_product_attention against its composition, gradcheck,
   the KV cache against the full causal forward, errors, memory. */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"
#include "ctensor_nn.h"

/* expr must fail (NULL or non-zero status) with a message that contains every
   phrase given (the code is printed, not asserted: the messages carry the meaning) */
#define CHECK_FAILS(expr, ...)                                                                     \
    do {                                                                                           \
        ct_clear_error();                                                                          \
        int ct_t_failed = !(expr);                                                                 \
        const char *ct_t_ph[] = {__VA_ARGS__};                                                     \
        const char *ct_t_m = ct_last_error(), *ct_t_miss = NULL;                                   \
        for (size_t ct_t_i = 0; ct_t_i < sizeof ct_t_ph / sizeof ct_t_ph[0]; ct_t_i++)             \
            if (!strstr(ct_t_m, ct_t_ph[ct_t_i])) { ct_t_miss = ct_t_ph[ct_t_i]; break; }          \
        CT_T_REPORT(ct_t_failed && !ct_t_miss, "%s should fail with a message containing \"%s\"; got %s %s \"%s\"", \
                    #expr, ct_t_miss ? ct_t_miss : ct_t_ph[0], ct_t_failed ? "failure" : "SUCCESS",  \
                    ct_status_name(ct_last_error_code()), ct_t_m);                                 \
        ct_clear_error();                                                                          \
    } while (0)

/* ---- helpers ---- */
/* 1 when the constructor succeeded (what it built is freed: a failing check leaks nothing) */
static int built(ct_module *m) {
    ct_module_free(m);
    return m != NULL;
}
static int built_cache(ct_kv_cache *c) {
    ct_kv_cache_free(c);
    return c != NULL;
}
static const char *const WHY_GRAD =
    "grad is enabled and at least one of query or the input/output projection weights or biases requires_grad";

/* every parameter moved by 0.1 * randn, so zero biases and unit norm weights hide nothing */
static void perturb(ct_module *m, uint64_t seed) {
    ct_tensor *ps[256];
    int n = ct_module_parameters(m, ps, 256);
    int pg = ct_set_grad_enabled(0);
    ct_manual_seed(seed);
    for (int i = 0; i < n && i < 256; i++) ct_copy_(ps[i], ct_add(ps[i], ct_mul_scalar(ct_randn_like(ps[i], NULL), 0.1)));
    ct_set_grad_enabled(pg);
}
static ct_transformer_layer_options lopt(int64_t ff, const char *act, int nf, int bf) {
    ct_transformer_layer_options o;
    memset(&o, 0, sizeof o);
    o.dim_feedforward = ff;
    o.dropout = CT_ZERO;
    o.activation = act;
    o.batch_first = bf;
    o.norm_first = nf;
    return o;
}
/* an encoder layer in dtype dt, parameters perturbed */
static ct_module *enc_layer(int64_t d, int64_t h, int64_t ff, const char *act, int nf, int bf, ct_dtype dt, uint64_t seed) {
    ct_transformer_layer_options o = lopt(ff, act, nf, bf);
    ct_dtype prev = ct_get_default_dtype();
    ct_set_default_dtype(dt);
    ct_manual_seed(seed);
    ct_module *m = ct_nn_transformer_encoder_layer(d, h, &o);
    ct_set_default_dtype(prev);
    if (m) perturb(m, seed + 1);
    return m;
}
/* an encoder of `layers` layers, with a final LayerNorm when norm */
static ct_module *encoder(int64_t d, int64_t h, int64_t ff, const char *act, int nf, int layers, int norm, ct_dtype dt, uint64_t seed) {
    ct_transformer_layer_options o = lopt(ff, act, nf, 1);
    ct_dtype prev = ct_get_default_dtype();
    ct_set_default_dtype(dt);
    ct_manual_seed(seed);
    ct_module *l = ct_nn_transformer_encoder_layer(d, h, &o);
    ct_module *n = norm ? ct_nn_layer_norm(1, &d) : NULL;
    ct_module *m = l ? ct_nn_transformer_encoder(l, layers, n) : NULL;
    ct_set_default_dtype(prev);
    if (m) perturb(m, seed + 1);
    return m;
}
static ct_tensor *randn_seeded(ct_dtype dt, uint64_t seed, int n, const int64_t *shape) {
    ct_manual_seed(seed);
    return ct_randn_n(dt, n, shape);
}
#define RANDN(dt, seed, ...) randn_seeded(dt, seed, CT_DIMS(__VA_ARGS__))
/* left-aligned key padding mask [B, S]: true at padding */
static ct_tensor *kpm_of(int B, int64_t S, const int64_t *len) {
    ct_tensor *m = ct_zeros(CT_BOOL, B, S);
    uint8_t *p = (uint8_t *)ct_data_ptr(m);
    for (int b = 0; b < B; b++)
        for (int64_t s = 0; s < S; s++) p[b * S + s] = s >= len[b];
    return m;
}
/* max |a - b| over the positions a [B, S, d] where kpm [B, S] is false (all when kpm is NULL) */
static double maxdiff(const ct_tensor *a, const ct_tensor *b, const ct_tensor *kpm) {
    if (!a || !b) return INFINITY;
    ct_tensor *d = ct_abs(ct_sub(ct_to(a, CT_FLOAT64), ct_to(b, CT_FLOAT64)));
    if (kpm) d = ct_masked_fill(d, ct_unsqueeze(kpm, -1), 0.0);
    return d ? ct_item(ct_max(d)) : INFINITY;
}
/* max |a - v| over the padded positions of a [B, S, d], v [d] (or 0 when v is NULL) */
static double maxdiff_padded(const ct_tensor *a, const ct_tensor *kpm, const ct_tensor *v) {
    if (!a) return INFINITY;
    ct_tensor *d = ct_to(a, CT_FLOAT64);
    if (v) d = ct_sub(d, ct_to(v, CT_FLOAT64));
    d = ct_masked_fill(ct_abs(d), ct_logical_not(ct_unsqueeze(kpm, -1)), 0.0);
    return d ? ct_item(ct_max(d)) : INFINITY;
}
/* runs the encoder (or layer) forward without grad */
static ct_tensor *fwd_nograd(ct_module *m, const ct_tensor *x, const ct_tensor *mask, const ct_tensor *kpm) {
    int pg = ct_set_grad_enabled(0);
    ct_tensor *y = ct_transformer_encoder_forward(m, x, mask, kpm);
    ct_set_grad_enabled(pg);
    return y;
}

/* ---- the fastpath equals the regular path on valid positions ---- */
static void fast_vs_regular(int stack, int nf, const char *act, ct_dtype dt, int masked, int line) {
    char what[128];
    snprintf(what, sizeof what, "%s norm_first=%d %s %s %s", stack ? "encoder" : "layer", nf, act, ct_dtype_name(dt),
             masked ? "kpm" : "no mask");
    CT_SCOPE {
        ct_module *m = stack ? encoder(16, 4, 32, act, nf, 2, 1, dt, 11) : enc_layer(16, 4, 32, act, nf, 1, dt, 11);
        CHECK(m != NULL);
        if (!m) break;
        ct_module_eval(m);
        static const int64_t len[3] = {6, 3, 1};
        ct_tensor *x = RANDN(dt, 5, 3, 6, 16), *kpm = masked ? kpm_of(3, 6, len) : NULL;
        ct_set_transformer_fastpath(0);
        CHECK(ct_get_transformer_fastpath() == 0);
        ct_tensor *reg = fwd_nograd(m, x, NULL, kpm);
        const char *why = ct_transformer_fastpath_why_not();
        CT_T_REPORT(why && why[0], "line %d %s: the regular path ran, but why_not is \"%s\"", line, what, why ? why : "(null)");
        ct_set_transformer_fastpath(1);
        ct_tensor *fast = fwd_nograd(m, x, NULL, kpm);
        why = ct_transformer_fastpath_why_not();
        /* an encoder that does not nest (norm_first, or no mask) still runs each layer fused; its
           why-not may then name the nested path's reason (PyTorch keeps two, one per level) */
        int stack_reason = stack && why && (strstr(why, "norm_first was True") || strstr(why, "src_key_padding_mask was None"));
        CT_T_REPORT(why && (!why[0] || stack_reason), "line %d %s: the fastpath should run; why_not \"%s\" (%s)", line, what,
                    why ? why : "(null)", ct_last_error());
        if (stack && !nf && masked) CHECK_STR(why, "");   /* the nested path */
        double d = maxdiff(fast, reg, kpm);
        CT_T_REPORT(d <= 1e-5, "line %d %s: fastpath vs regular on valid positions: max diff %g", line, what, d);
        CHECK(fast && ct_ndim(fast) == 3 && ct_size(fast, 0) == 3 && ct_size(fast, 1) == 6 && ct_size(fast, 2) == 16);
        if (fast) CHECK(ct_get_dtype(fast) == dt);
        /* the same values a second time (the workspace is reused) */
        ct_tensor *again = fwd_nograd(m, x, NULL, kpm);
        CHECK(maxdiff(again, fast, NULL) == 0.0);
        /* the regular path in grad mode gives the same values as without grad */
        ct_tensor *g = ct_transformer_encoder_forward(m, x, NULL, kpm);
        CHECK(g && ct_get_requires_grad(g));
        CT_T_REPORT(maxdiff(g, reg, kpm) <= 1e-12 * (dt == CT_FLOAT64) + 1e-6 * (dt == CT_FLOAT32),
                    "line %d %s: grad-mode regular vs no-grad regular: %g", line, what, maxdiff(g, reg, kpm));
        ct_module_free(m);
    }
}
TEST(test_fastpath_equals_regular) {
    static const char *const acts[2] = {"relu", "gelu"};
    for (int stack = 0; stack < 2; stack++)
        for (int nf = 0; nf < 2; nf++)
            for (int a = 0; a < 2; a++)
                for (int dt = 0; dt < 2; dt++)
                    for (int masked = 0; masked < 2; masked++)
                        fast_vs_regular(stack, nf, acts[a], dt ? CT_FLOAT64 : CT_FLOAT32, masked, __LINE__);
    ct_set_transformer_fastpath(1);
}

/* the nested encoder: zeros at padded positions, the final norm's bias there */
TEST(test_nested_padding_values) {
    static const int64_t len[3] = {2, 5, 3};
    for (int dt = 0; dt < 2; dt++) {
        ct_dtype t = dt ? CT_FLOAT64 : CT_FLOAT32;
        ct_module *plain = encoder(8, 2, 16, "relu", 0, 2, 0, t, 21), *normed = encoder(8, 2, 16, "gelu", 0, 2, 1, t, 22);
        CHECK(plain && normed);
        if (!plain || !normed) { ct_module_free(plain); ct_module_free(normed); continue; }
        ct_module_eval(plain);
        ct_module_eval(normed);
        ct_tensor *x = RANDN(t, 6, 3, 5, 8), *kpm = kpm_of(3, 5, len);
        ct_tensor *y = fwd_nograd(plain, x, NULL, kpm);
        CHECK_STR(ct_transformer_fastpath_why_not(), "");
        CHECK(y && ct_size(y, 1) == 5);   /* the input's length, not trimmed */
        CHECK(maxdiff_padded(y, kpm, NULL) == 0.0);
        ct_tensor *z = fwd_nograd(normed, x, NULL, kpm);
        CHECK_STR(ct_transformer_fastpath_why_not(), "");
        ct_tensor *bias = ct_module_get(normed, "norm.bias");
        CHECK(bias && ct_item(ct_max(ct_abs(bias))) > 0.01);   /* perturbed: not zero */
        CHECK(maxdiff_padded(z, kpm, bias) == 0.0);
        /* valid positions: the regular path's values */
        ct_set_transformer_fastpath(0);
        ct_tensor *r = fwd_nograd(normed, x, NULL, kpm);
        ct_set_transformer_fastpath(1);
        CHECK(maxdiff(z, r, kpm) <= 1e-5);
        CHECK(maxdiff_padded(r, kpm, bias) > 1e-3);   /* the regular path does compute padded rows */
        /* stays nested: the same real tokens, the final norm on them */
        ct_nested in, out;
        memset(&out, 0, sizeof out);
        CHECK(ct_nested_from_mask(x, kpm, &in) == CT_OK);
        int pg = ct_set_grad_enabled(0);
        CHECK(ct_transformer_encoder_forward_nested(normed, &in, &out) == CT_OK);
        ct_set_grad_enabled(pg);
        CHECK(out.values && ct_size(out.values, 0) == 10 && ct_size(out.values, 1) == 8);
        CHECK(out.lengths && ct_equal(out.lengths, in.lengths) == 1);
        ct_tensor *back = ct_nested_to_padded(&out, 0.0);
        CHECK(maxdiff(back, z, kpm) <= 1e-6);
        CHECK(maxdiff_padded(back, kpm, NULL) == 0.0);
        /* nested forward needs eval mode and no grad */
        CHECK_FAILS(ct_transformer_encoder_forward_nested(normed, &in, &out) == CT_OK, "grad");
        ct_module_train(normed, 1);
        pg = ct_set_grad_enabled(0);
        CHECK_FAILS(ct_transformer_encoder_forward_nested(normed, &in, &out) == CT_OK, "training");
        ct_set_grad_enabled(pg);
        ct_module_free(plain);
        ct_module_free(normed);
    }
}

TEST(test_nested_round_trip) {
    static const int64_t len[3] = {5, 2, 3};
    ct_tensor *x = RANDN(CT_FLOAT64, 7, 3, 5, 4), *kpm = kpm_of(3, 5, len);
    ct_nested n;
    memset(&n, 0, sizeof n);
    CHECK(ct_nested_from_mask(x, kpm, &n) == CT_OK);
    CHECK_EQ_INT(n.max_len, 5);
    CHECK(n.values && ct_ndim(n.values) == 2 && ct_size(n.values, 0) == 10 && ct_size(n.values, 1) == 4);
    CHECK(n.lengths && ct_get_dtype(n.lengths) == CT_INT64);
    CHECK_VALUES(n.lengths, ((double[]){5, 2, 3}), 3, 0);
    /* sequence after sequence */
    ct_tensor *parts[3] = {ct_narrow(ct_select(x, 0, 0), 0, 0, 5), ct_narrow(ct_select(x, 0, 1), 0, 0, 2),
                           ct_narrow(ct_select(x, 0, 2), 0, 0, 3)};
    CHECK(ct_equal(n.values, ct_cat(3, parts, 0)) == 1);
    ct_tensor *p0 = ct_nested_to_padded(&n, 0.0);
    CHECK(p0 && ct_size(p0, 1) == 5);
    CHECK(ct_equal(p0, ct_masked_fill(x, ct_unsqueeze(kpm, -1), 0.0)) == 1);
    ct_tensor *p1 = ct_nested_to_padded(&n, -1.5);
    CHECK(ct_equal(p1, ct_masked_fill(x, ct_unsqueeze(kpm, -1), -1.5)) == 1);
    /* float32 and no padding */
    ct_tensor *x32 = RANDN(CT_FLOAT32, 8, 2, 3, 4);
    static const int64_t full[2] = {3, 3};
    ct_nested f;
    CHECK(ct_nested_from_mask(x32, kpm_of(2, 3, full), &f) == CT_OK);
    CHECK(ct_equal(ct_nested_to_padded(&f, 0.0), x32) == 1);
    /* errors: PyTorch's messages (torch._nested_tensor_from_mask) */
    ct_tensor *gap = ct_tensor_bool(((uint8_t[]){0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}), 3, 5);
    ct_nested bad;
    CHECK_FAILS(ct_nested_from_mask(x, gap, &bad) == CT_OK, "left-aligned");
    ct_tensor *lead = ct_tensor_bool(((uint8_t[]){0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1}), 3, 5);
    CHECK_FAILS(ct_nested_from_mask(x, lead, &bad) == CT_OK, "left-aligned");
    /* shapes: the op and the shapes named (PyTorch's private op says only "Mask size should match input size") */
    CHECK_FAILS(ct_nested_from_mask(x, ct_narrow(kpm, 1, 0, 4), &bad) == CT_OK, "nested_from_mask", "[3, 4]", "[3, 5, 4]");
    CHECK_FAILS(ct_nested_from_mask(x, ct_narrow(kpm, 0, 0, 2), &bad) == CT_OK, "nested_from_mask", "[2, 5]");
    CHECK_FAILS(ct_nested_from_mask(x, ct_select(kpm, 0, 0), &bad) == CT_OK, "nested_from_mask", "[5]");
    CHECK_FAILS(ct_nested_from_mask(ct_select(x, 0, 0), kpm, &bad) == CT_OK, "");
    CHECK_FAILS(ct_nested_from_mask(x, ct_to(kpm, CT_INT64), &bad) == CT_OK, "");
    CHECK_FAILS(ct_nested_from_mask(NULL, kpm, &bad) == CT_OK, "");
}

/* ct_transformer_fastpath_why_not: PyTorch's reasons for the encoder layer, word for word */
static const char *why_after(ct_module *m, const ct_tensor *x, const ct_tensor *mask, const ct_tensor *kpm, int grad) {
    int pg = ct_set_grad_enabled(grad);
    ct_tensor *y = ct_transformer_encoder_forward(m, x, mask, kpm);
    ct_set_grad_enabled(pg);
    CHECK(y != NULL);
    return ct_transformer_fastpath_why_not();
}
TEST(test_why_not) {
    ct_module *m = enc_layer(8, 2, 16, "relu", 0, 1, CT_FLOAT32, 31);
    ct_module *seq = enc_layer(8, 2, 16, "relu", 0, 0, CT_FLOAT32, 32);
    ct_module *odd = enc_layer(9, 3, 16, "gelu", 0, 1, CT_FLOAT32, 33);
    CHECK(m && seq && odd);
    if (!m || !seq || !odd) { ct_module_free(m); ct_module_free(seq); ct_module_free(odd); return; }
    ct_tensor *x = RANDN(CT_FLOAT32, 1, 2, 4, 8), *x9 = RANDN(CT_FLOAT32, 2, 2, 4, 9);
    ct_tensor *causal = ct_nn_transformer_square_subsequent_mask(4);
    CHECK_STR(why_after(m, x, NULL, NULL, 0), "training is enabled");   /* a new module trains */
    ct_module_eval(m);
    ct_module_eval(seq);
    ct_module_eval(odd);
    CHECK_STR(why_after(m, x, NULL, NULL, 0), "");
    CHECK_STR(why_after(seq, ct_transpose(x, 0, 1), NULL, NULL, 0), "self_attn.batch_first was not True");
    CHECK_STR(why_after(odd, x9, NULL, NULL, 0), "num_head is odd");
    CHECK_STR(why_after(m, x, causal, NULL, 0), "src_mask is not supported for fastpath");
    CHECK_STR(why_after(m, x, NULL, NULL, 1), WHY_GRAD);
    CT_INFERENCE_MODE {   /* torch.inference_mode(): grad is off there */
        CHECK_STR(why_after(m, x, NULL, NULL, 1), "");
    }
    CHECK_STR(why_after(m, ct_select(x, 0, 0), NULL, NULL, 0), "input not batched; expected src.dim() of 3 but got 2");
    ct_set_transformer_fastpath(0);
    CHECK_STR(why_after(m, x, NULL, NULL, 0), "torch.backends.mha.get_fastpath_enabled() was not True");
    ct_set_transformer_fastpath(1);
    CHECK_STR(why_after(m, x, NULL, NULL, 0), "");
    /* grad mode on, but nothing requires grad: the fastpath (PyTorch checks requires_grad) */
    ct_tensor *ps[32];
    int np = ct_module_parameters(m, ps, 32);
    for (int i = 0; i < np && i < 32; i++) ct_set_requires_grad(ps[i], 0);
    CHECK_STR(why_after(m, x, NULL, NULL, 1), "");
    ct_tensor *xg = ct_requires_grad(ct_clone(x));
    CHECK_STR(why_after(m, xg, NULL, NULL, 1), WHY_GRAD);
    /* the encoder: training, and the nested path taken */
    ct_module *e = encoder(8, 2, 16, "relu", 0, 2, 1, CT_FLOAT32, 34);
    if (e) {
        static const int64_t len[2] = {4, 2};
        CHECK(strstr(why_after(e, x, NULL, kpm_of(2, 4, len), 0), "training") != NULL);
        ct_module_eval(e);
        CHECK_STR(why_after(e, x, NULL, kpm_of(2, 4, len), 0), "");
        CHECK(strstr(why_after(e, x, NULL, kpm_of(2, 4, len), 1), "grad is enabled") != NULL);
        ct_module_free(e);
    } else CHECK(e != NULL);
    ct_module_free(m);
    ct_module_free(seq);
    ct_module_free(odd);
}

/* MultiheadAttention's own reasons (PyTorch's MultiheadAttention.forward) */
static const char *mha_why(ct_module *m, const ct_tensor *q, const ct_tensor *k, const ct_mha_args *a, int grad) {
    int pg = ct_set_grad_enabled(grad);
    ct_tensor *y = ct_mha_forward(m, q, k, k, a, NULL);
    ct_set_grad_enabled(pg);
    CT_T_REPORT(y != NULL, "mha forward: %s", ct_last_error());
    return ct_transformer_fastpath_why_not();
}
TEST(test_why_not_mha) {
    ct_mha_options o;
    memset(&o, 0, sizeof o);
    o.batch_first = 1;
    ct_module *m = ct_nn_multihead_attention(8, 2, &o);
    o.add_bias_kv = 1;
    ct_module *kv = ct_module_eval(ct_nn_multihead_attention(8, 2, &o));
    o.add_bias_kv = 0;
    o.add_zero_attn = 1;
    ct_module *za = ct_module_eval(ct_nn_multihead_attention(8, 2, &o));
    o.add_zero_attn = 0;
    ct_module *odd = ct_module_eval(ct_nn_multihead_attention(9, 3, &o));
    o.batch_first = 0;
    ct_module *sf = ct_module_eval(ct_nn_multihead_attention(8, 2, &o));
    CHECK(m && kv && za && odd && sf);
    if (m && kv && za && odd && sf) {
        ct_tensor *x = ct_randn(CT_FLOAT32, 2, 3, 8), *y = ct_randn(CT_FLOAT32, 2, 3, 8), *x9 = ct_randn(CT_FLOAT32, 2, 3, 9);
        ct_mha_args a;
        memset(&a, 0, sizeof a);
        CHECK_STR(mha_why(m, x, x, &a, 0), "training is enabled");
        ct_module_eval(m);
        CHECK_STR(mha_why(m, x, x, &a, 0), "");
        CHECK_STR(mha_why(m, x, y, &a, 0), "non-self attention was used (query, key, and value are not the same Tensor)");
        CHECK_STR(mha_why(sf, x, x, &a, 0), "batch_first was not True");
        CHECK_STR(mha_why(kv, x, x, &a, 0), "self.bias_k was not None");
        CHECK_STR(mha_why(za, x, x, &a, 0), "add_zero_attn was enabled");
        CHECK_STR(mha_why(odd, x9, x9, &a, 0), "num_heads is odd");
        CHECK_STR(mha_why(m, x, x, &a, 1), WHY_GRAD);
        a.attn_mask = ct_zeros(CT_BOOL, 3, 3);
        CHECK_STR(mha_why(m, x, x, &a, 0), "attn_mask was not None");
        a.attn_mask = NULL;
        static const int64_t len[2] = {3, 1};
        a.key_padding_mask = kpm_of(2, 3, len);
        CHECK_STR(mha_why(m, x, x, &a, 0), "");
        /* the fused and the regular values agree */
        int pg = ct_set_grad_enabled(0);
        ct_tensor *f = ct_mha_forward(m, x, x, x, &a, NULL);
        ct_set_transformer_fastpath(0);
        ct_tensor *r = ct_mha_forward(m, x, x, x, &a, NULL);
        ct_set_transformer_fastpath(1);
        ct_set_grad_enabled(pg);
        CHECK(maxdiff(f, r, NULL) <= 1e-5);
    }
    ct_module_free(m);
    ct_module_free(kv);
    ct_module_free(za);
    ct_module_free(odd);
    ct_module_free(sf);
}

/* ---- scaled_dot_product_attention against softmax(q k^T / sqrt(E) + mask) v ---- */
static ct_tensor *sdpa_ref(ct_tensor *q, ct_tensor *k, ct_tensor *v, ct_tensor *mask, int causal) {
    int64_t L = ct_size(q, -2), S = ct_size(k, -2), E = ct_size(q, -1);
    ct_tensor *s = ct_mul_scalar(ct_matmul(q, ct_transpose(k, -2, -1)), 1.0 / sqrt((double)E));
    if (mask && ct_get_dtype(mask) == CT_BOOL) s = ct_masked_fill(s, ct_logical_not(mask), -INFINITY);
    else if (mask) s = ct_add(s, mask);
    if (causal) s = ct_masked_fill(s, ct_to(ct_triu(ct_ones(CT_FLOAT32, L, S), 1), CT_BOOL), -INFINITY);
    return ct_matmul(ct_softmax(s, -1), v);
}
static void sdpa_check(ct_dtype dt, int64_t B, int64_t H, int64_t L, int64_t S, int64_t E, int64_t Ev, int mkind, int causal, int line) {
    CT_SCOPE {
        ct_tensor *q = RANDN(dt, 40 + line, B, H, L, E), *k = RANDN(dt, 41 + line, B, H, S, E), *v = RANDN(dt, 42 + line, B, H, S, Ev);
        ct_tensor *mask = NULL;
        if (mkind == 1) {   /* bool [B, 1, L, S], true: take part; the first key always */
            mask = ct_to(ct_gt_scalar(RANDN(CT_FLOAT32, 43 + line, B, 1, L, S), -0.5), CT_BOOL);
            ct_tensor *first = ct_narrow(mask, -1, 0, 1);
            ct_fill_(first, 1.0);
        } else if (mkind == 2) {   /* float [L, S] */
            mask = ct_to(ct_mul_scalar(RANDN(CT_FLOAT64, 44 + line, L, S), 0.7), dt);
        }
        ct_tensor *ref = sdpa_ref(q, k, v, mask, causal);
        double tol = dt == CT_FLOAT64 ? 1e-12 : 2e-6;
        ct_tensor *got = ct_scaled_dot_product_attention(q, k, v, mask, 0.0, causal);
        CT_T_REPORT(got && maxdiff(got, ref, NULL) <= tol, "line %d sdpa (grad mode) vs composition: %g (%s)", line,
                    maxdiff(got, ref, NULL), ct_last_error());
        int pg = ct_set_grad_enabled(0);   /* the fused tiled kernel */
        ct_tensor *fused = ct_scaled_dot_product_attention(q, k, v, mask, 0.0, causal);
        ct_set_grad_enabled(pg);
        CT_T_REPORT(fused && maxdiff(fused, ref, NULL) <= tol * 4, "line %d sdpa (fused) vs composition: %g (%s)", line,
                    maxdiff(fused, ref, NULL), ct_last_error());
        if (fused) CHECK(ct_get_dtype(fused) == dt && ct_size(fused, -1) == Ev && ct_size(fused, -2) == L);
    }
}
TEST(test_sdpa) {
    for (int dt = 0; dt < 2; dt++) {
        ct_dtype t = dt ? CT_FLOAT64 : CT_FLOAT32;
        for (int mk = 0; mk < 3; mk++)
            for (int causal = 0; causal < 2; causal++) {
                if (mk && causal) continue;   /* PyTorch 2.0: attn_mask and is_causal not together */
                sdpa_check(t, 2, 3, 4, 6, 5, 7, mk, causal, __LINE__ + 10 * mk + causal);
                sdpa_check(t, 2, 3, 5, 5, 8, 8, mk, causal, __LINE__ + 10 * mk + causal);
                /* past tile boundaries */
                sdpa_check(t, 1, 2, 70, 133, 16, 8, mk, causal, __LINE__ + 10 * mk + causal);
            }
    }
    /* 3-D inputs [B, L, E] */
    ct_tensor *q = RANDN(CT_FLOAT64, 50, 2, 3, 4), *k = RANDN(CT_FLOAT64, 51, 2, 5, 4), *v = RANDN(CT_FLOAT64, 52, 2, 5, 6);
    CHECK(maxdiff(ct_scaled_dot_product_attention(q, k, v, NULL, 0.0, 0), sdpa_ref(q, k, v, NULL, 0), NULL) <= 1e-12);
    /* errors */
    CHECK_FAILS(ct_scaled_dot_product_attention(q, RANDN(CT_FLOAT64, 53, 2, 5, 3), v, NULL, 0.0, 0), "");
    CHECK_FAILS(ct_scaled_dot_product_attention(q, k, RANDN(CT_FLOAT64, 54, 2, 4, 6), NULL, 0.0, 0), "");
    CHECK_FAILS(ct_scaled_dot_product_attention(q, ct_to(k, CT_FLOAT32), v, NULL, 0.0, 0), "");
    CHECK_FAILS(ct_scaled_dot_product_attention(q, k, v, ct_zeros(CT_INT64, 3, 5), 0.0, 0), "");
    CHECK_FAILS(ct_scaled_dot_product_attention(q, k, v, ct_zeros(CT_BOOL, 4, 5), 0.0, 0), "");
}

/* ---- gradcheck (float64, tiny) ---- */
static ct_module *GMHA, *GLAYER;
typedef struct { int masks, cross; } gmha_opts;
static ct_tensor *fn_mha(ct_tensor *const *in, void *user) {
    gmha_opts *o = (gmha_opts *)user;
    ct_mha_args a;
    memset(&a, 0, sizeof a);
    if (o->masks) {   /* the last key of batch 1 padded; a float [L, S] mask, -inf at (0, S-1) */
        int64_t N = ct_size(in[0], 0), L = ct_size(in[0], 1), S = ct_size(o->cross ? in[1] : in[0], 1);
        static const int64_t len[2] = {8, 2};
        a.key_padding_mask = kpm_of((int)N, S, len);
        ct_tensor *am = ct_mul_scalar(ct_arange(0, (double)(L * S), 1, CT_FLOAT64), 0.1);
        a.attn_mask = ct_masked_fill(ct_reshape(am, L, S), ct_to(ct_triu(ct_ones(CT_FLOAT64, L, S), S - 1), CT_BOOL), -INFINITY);
    }
    ct_tensor *w = NULL;
    ct_tensor *y = ct_mha_forward(GMHA, in[0], o->cross ? in[1] : in[0], o->cross ? in[2] : in[0], &a, &w);
    /* the weights take part in the loss too */
    return y && w ? ct_add(ct_sum(y), ct_sum(ct_mul(w, w))) : NULL;
}
static ct_tensor *fn_layer(ct_tensor *const *in, void *user) {
    const ct_tensor *kpm = user ? (const ct_tensor *)user : NULL;
    return ct_transformer_encoder_forward(GLAYER, in[0], NULL, kpm);
}
static ct_tensor *fn_sdpa(ct_tensor *const *in, void *user) {
    (void)user;
    return ct_scaled_dot_product_attention(in[0], in[1], in[2], NULL, 0.0, 1);
}
TEST(test_gradcheck) {
    ct_dtype prev = ct_get_default_dtype();
    ct_set_default_dtype(CT_FLOAT64);
    ct_mha_options mo;
    memset(&mo, 0, sizeof mo);
    mo.batch_first = 1;
    ct_manual_seed(61);
    GMHA = ct_nn_multihead_attention(4, 2, &mo);
    ct_set_default_dtype(prev);
    CHECK(GMHA != NULL);
    if (GMHA) {
        perturb(GMHA, 62);
        ct_tensor *in[3] = {ct_requires_grad(RANDN(CT_FLOAT64, 63, 2, 2, 4)), ct_requires_grad(RANDN(CT_FLOAT64, 64, 2, 3, 4)),
                            ct_requires_grad(RANDN(CT_FLOAT64, 65, 2, 3, 4))};
        gmha_opts o = {0, 1};
        int ok = ct_gradcheck(fn_mha, &o, 3, in, NULL);
        CT_T_REPORT(ok == 1, "gradcheck mha cross: %s", ct_last_error());
        o.masks = 1;
        ok = ct_gradcheck(fn_mha, &o, 3, in, NULL);
        CT_T_REPORT(ok == 1, "gradcheck mha cross with masks: %s", ct_last_error());
        ct_tensor *self[1] = {ct_requires_grad(RANDN(CT_FLOAT64, 66, 2, 3, 4))};
        gmha_opts so = {1, 0};
        ok = ct_gradcheck(fn_mha, &so, 1, self, NULL);
        CT_T_REPORT(ok == 1, "gradcheck mha self with masks: %s", ct_last_error());
        ok = ct_gradgradcheck(fn_mha, &o, 3, in, NULL);   /* composed of differentiable ops: double backward too */
        CT_T_REPORT(ok == 1, "gradgradcheck mha cross with masks: %s", ct_last_error());
        ct_module_free(GMHA);
    }
    for (int nf = 0; nf < 2; nf++) {
        GLAYER = enc_layer(4, 2, 6, nf ? "gelu" : "relu", nf, 1, CT_FLOAT64, 70 + (uint64_t)nf);
        CHECK(GLAYER != NULL);
        if (!GLAYER) continue;
        ct_tensor *in[1] = {ct_requires_grad(RANDN(CT_FLOAT64, 71, 2, 3, 4))};
        int ok = ct_gradcheck(fn_layer, NULL, 1, in, NULL);
        CT_T_REPORT(ok == 1, "gradcheck encoder layer norm_first=%d: %s", nf, ct_last_error());
        static const int64_t len[2] = {3, 2};
        ok = ct_gradcheck(fn_layer, kpm_of(2, 3, len), 1, in, NULL);
        CT_T_REPORT(ok == 1, "gradcheck encoder layer norm_first=%d with kpm: %s", nf, ct_last_error());
        ok = ct_gradgradcheck(fn_layer, NULL, 1, in, NULL);
        CT_T_REPORT(ok == 1, "gradgradcheck encoder layer norm_first=%d: %s", nf, ct_last_error());
        ct_module_free(GLAYER);
    }
    ct_tensor *qkv[3] = {ct_requires_grad(RANDN(CT_FLOAT64, 72, 2, 3, 4)), ct_requires_grad(RANDN(CT_FLOAT64, 73, 2, 3, 4)),
                         ct_requires_grad(RANDN(CT_FLOAT64, 74, 2, 3, 5))};
    CT_T_REPORT(ct_gradcheck(fn_sdpa, NULL, 3, qkv, NULL) == 1, "gradcheck sdpa causal: %s", ct_last_error());
}

/* ---- the KV cache: decode step by step equals the full causal forward ---- */
static void kv_check(int layers, int nf, ct_dtype dt, int line) {
    CT_SCOPE {
        int64_t B = 2, T = 7, d = 8;
        ct_module *m = layers ? encoder(d, 2, 16, "gelu", nf, layers, 1, dt, 80 + (uint64_t)line)
                              : enc_layer(d, 2, 16, "relu", nf, 1, dt, 80 + (uint64_t)line);
        CHECK(m != NULL);
        if (!m) break;
        ct_module_eval(m);
        ct_tensor *x = RANDN(dt, 81, B, T, d);
        ct_tensor *causal = ct_to(ct_nn_transformer_square_subsequent_mask(T), dt);
        ct_tensor *full = fwd_nograd(m, x, causal, NULL);
        CHECK(full != NULL);
        ct_kv_cache *c = ct_kv_cache_new(m, B, 16);
        CHECK(c != NULL);
        if (!c || !full) { ct_kv_cache_free(c); ct_module_free(m); break; }
        double tol = dt == CT_FLOAT64 ? 1e-10 : 1e-5;
        for (int64_t t = 0; t < T; t++) {
            ct_tensor *y = ct_transformer_decode(m, ct_narrow(x, 1, t, 1), c);
            double dd = maxdiff(y, ct_narrow(full, 1, t, 1), NULL);
            CT_T_REPORT(y && dd <= tol, "line %d: decode position %lld vs full causal forward: %g (%s)", line, (long long)t, dd,
                        ct_last_error());
            CHECK_EQ_INT(ct_kv_cache_len(c), t + 1);
            if (y) CHECK(!ct_get_requires_grad(y) && ct_size(y, 1) == 1);
        }
        /* chunks: 3 positions, then 1, then 3 */
        ct_kv_cache_reset(c);
        CHECK_EQ_INT(ct_kv_cache_len(c), 0);
        int64_t at = 0, chunks[3] = {3, 1, 3};
        for (int i = 0; i < 3; i++) {
            ct_tensor *y = ct_transformer_decode(m, ct_narrow(x, 1, at, chunks[i]), c);
            double dd = maxdiff(y, ct_narrow(full, 1, at, chunks[i]), NULL);
            CT_T_REPORT(y && dd <= tol, "line %d: decode chunk at %lld (%lld positions): %g (%s)", line, (long long)at,
                        (long long)chunks[i], dd, ct_last_error());
            at += chunks[i];
        }
        CHECK_EQ_INT(ct_kv_cache_len(c), T);
        /* the cache holds no grad even in grad mode */
        ct_kv_cache_reset(c);
        ct_tensor *y = ct_transformer_decode(m, ct_narrow(x, 1, 0, 2), c);
        CHECK(y && !ct_get_requires_grad(y));
        ct_kv_cache_free(c);
        ct_module_free(m);
    }
}
TEST(test_kv_cache) {
    for (int dt = 0; dt < 2; dt++)
        for (int nf = 0; nf < 2; nf++) {
            kv_check(0, nf, dt ? CT_FLOAT64 : CT_FLOAT32, __LINE__);
            kv_check(2, nf, dt ? CT_FLOAT64 : CT_FLOAT32, __LINE__ + 1);
        }
}
TEST(test_kv_cache_errors) {
    ct_module *m = encoder(8, 2, 16, "relu", 1, 2, 1, CT_FLOAT32, 90);
    CHECK(m != NULL);
    if (!m) return;
    ct_module_eval(m);
    ct_kv_cache *c = ct_kv_cache_new(m, 2, 4);
    CHECK(c != NULL);
    if (!c) { ct_module_free(m); return; }
    CHECK(ct_transformer_decode(m, RANDN(CT_FLOAT32, 91, 2, 3, 8), c) != NULL);
    CHECK_FAILS(ct_transformer_decode(m, RANDN(CT_FLOAT32, 92, 2, 2, 8), c), "4");   /* 3 + 2 > max_len 4 */
    CHECK_EQ_INT(ct_kv_cache_len(c), 3);   /* a refused call appends nothing */
    CHECK(ct_transformer_decode(m, RANDN(CT_FLOAT32, 93, 2, 1, 8), c) != NULL);
    CHECK_FAILS(ct_transformer_decode(m, RANDN(CT_FLOAT32, 94, 2, 1, 8), c), "4");
    ct_kv_cache_reset(c);
    CHECK_FAILS(ct_transformer_decode(m, RANDN(CT_FLOAT64, 95, 2, 1, 8), c), "");          /* dtype */
    CHECK_FAILS(ct_transformer_decode(m, RANDN(CT_FLOAT32, 96, 3, 1, 8), c), "3");         /* batch 3, cache 2 */
    CHECK_FAILS(ct_transformer_decode(m, RANDN(CT_FLOAT32, 97, 2, 1, 6), c), "6");         /* width */
    CHECK_FAILS(ct_transformer_decode(m, RANDN(CT_FLOAT32, 98, 2, 8), c), "");             /* 2-D */
    CHECK_FAILS(ct_transformer_decode(m, RANDN(CT_FLOAT32, 99, 2, 5, 8), c), "5");         /* 5 > max_len 4 at once */
    CHECK_EQ_INT(ct_kv_cache_len(c), 0);
    /* a cache made for another module */
    ct_module *other = encoder(8, 2, 16, "relu", 1, 1, 1, CT_FLOAT32, 100);
    if (other) {
        ct_module_eval(other);
        CHECK_FAILS(ct_transformer_decode(other, RANDN(CT_FLOAT32, 101, 2, 1, 8), c), "");
        ct_module_free(other);
    }
    CHECK_FAILS(built_cache(ct_kv_cache_new(m, 2, 0)), "");
    ct_module *mha = ct_nn_multihead_attention(8, 2, NULL);
    CHECK_FAILS(built_cache(ct_kv_cache_new(mha, 2, 4)), "");
    ct_module_free(mha);
    ct_kv_cache_free(c);
    ct_kv_cache_free(NULL);
    ct_module_free(m);
}

/* ---- errors: PyTorch's messages ---- */
TEST(test_errors) {
    CHECK_FAILS(built(ct_nn_transformer_encoder_layer(10, 4, NULL)), "embed_dim must be divisible by num_heads");
    CHECK_FAILS(built(ct_nn_transformer_decoder_layer(6, 4, NULL)), "embed_dim must be divisible by num_heads");
    CHECK_FAILS(built(ct_nn_multihead_attention(10, 3, NULL)), "embed_dim must be divisible by num_heads");
    CHECK_FAILS(built(ct_nn_multihead_attention(8, 0, NULL)), "");
    ct_transformer_layer_options o = lopt(16, "tanh", 0, 1);
    CHECK_FAILS(built(ct_nn_transformer_encoder_layer(8, 2, &o)), "activation should be relu/gelu, not tanh");
    ct_mha_options mo;
    memset(&mo, 0, sizeof mo);
    ct_module *m = ct_nn_multihead_attention(8, 2, &mo);
    CHECK(m != NULL);
    if (!m) return;
    ct_tensor *q = ct_randn(CT_FLOAT32, 4, 2, 8), *k = ct_randn(CT_FLOAT32, 5, 2, 8);
    ct_mha_args a;
    memset(&a, 0, sizeof a);
    a.attn_mask = ct_zeros(CT_BOOL, 4, 4);
    CHECK_FAILS(ct_mha_forward(m, q, k, k, &a, NULL), "The shape of the 2D attn_mask is", "4, 4", "4, 5");
    a.attn_mask = ct_zeros(CT_BOOL, 2, 4, 5);
    CHECK_FAILS(ct_mha_forward(m, q, k, k, &a, NULL), "The shape of the 3D attn_mask is", "2, 4, 5", "4, 4, 5");
    a.attn_mask = ct_zeros(CT_BOOL, 1, 1, 4, 5);
    CHECK_FAILS(ct_mha_forward(m, q, k, k, &a, NULL), "4-D");
    a.attn_mask = ct_zeros(CT_INT64, 4, 5);
    CHECK_FAILS(ct_mha_forward(m, q, k, k, &a, NULL), "Only float, byte, and bool types are supported for attn_mask", "int64");
    a.attn_mask = NULL;
    a.key_padding_mask = ct_zeros(CT_BOOL, 2, 4);
    CHECK_FAILS(ct_mha_forward(m, q, k, k, &a, NULL), "expecting key_padding_mask shape of (2, 5)");
    a.key_padding_mask = ct_zeros(CT_INT64, 2, 5);
    CHECK_FAILS(ct_mha_forward(m, q, k, k, &a, NULL), "only bool and floating types of key_padding_mask are supported");
    a.key_padding_mask = NULL;
    CHECK_FAILS(ct_mha_forward(m, ct_randn(CT_FLOAT32, 1, 4, 2, 8), k, k, &a, NULL),
                "query should be unbatched 2D or batched 3D tensor but received 4-D query tensor");
    CHECK_FAILS(ct_mha_forward(m, ct_randn(CT_FLOAT32, 4, 2, 6), k, k, &a, NULL), "was expecting embedding dimension of 8, but got 6");
    CHECK_FAILS(ct_mha_forward(m, q, k, ct_randn(CT_FLOAT32, 4, 2, 8), &a, NULL), "");
    CHECK_FAILS(ct_mha_forward(m, ct_to(q, CT_FLOAT64), k, k, &a, NULL), "");
    CHECK_FAILS(ct_mha_forward(m, NULL, k, k, &a, NULL), "");
    /* the encoder layer */
    ct_module *l = enc_layer(8, 2, 16, "relu", 0, 1, CT_FLOAT32, 110);
    if (l) {
        ct_tensor *x = ct_randn(CT_FLOAT32, 2, 5, 8);
        CHECK_FAILS(ct_transformer_encoder_forward(l, x, NULL, ct_zeros(CT_INT64, 2, 5)),
                    "only bool and floating types of key_padding_mask are supported");
        CHECK_FAILS(ct_transformer_encoder_forward(l, x, ct_zeros(CT_BOOL, 5, 6), NULL), "The shape of the 2D attn_mask is");
        CHECK_FAILS(ct_transformer_encoder_forward(l, ct_randn(CT_FLOAT32, 2, 5, 6), NULL, NULL), "");
        ct_module_eval(l);
        int pg = ct_set_grad_enabled(0);   /* the fastpath checks the same */
        CHECK_FAILS(ct_transformer_encoder_forward(l, x, NULL, ct_zeros(CT_BOOL, 2, 4)), "");
        CHECK_FAILS(ct_transformer_encoder_forward(l, ct_randn(CT_FLOAT32, 2, 5, 6), NULL, NULL), "");
        CHECK_FAILS(ct_transformer_encoder_forward(l, ct_to(x, CT_FLOAT64), NULL, NULL), "");
        ct_set_grad_enabled(pg);
        CHECK_FAILS(ct_transformer_encoder_forward(m, x, NULL, NULL), "");   /* not an encoder */
        ct_module_free(l);
    }
    ct_module *t = ct_nn_transformer(8, 2, &(ct_transformer_options){.num_encoder_layers = 1, .num_decoder_layers = 1,
                                                                     .layer = lopt(16, "relu", 0, 0)});
    if (t) {
        CHECK_FAILS(ct_transformer_forward(t, ct_randn(CT_FLOAT32, 5, 2, 8), ct_randn(CT_FLOAT32, 4, 3, 8), NULL),
                    "the batch number of src and tgt must be equal");
        CHECK_FAILS(ct_transformer_forward(t, ct_randn(CT_FLOAT32, 5, 2, 8), ct_randn(CT_FLOAT32, 4, 2, 6), NULL),
                    "the feature number of src and tgt must be equal to d_model");
        ct_module_free(t);
    } else CHECK(t != NULL);
    ct_module_free(m);
}

/* square mask values, MHA shapes (unbatched, per-head weights), is_causal */
TEST(test_mha_shapes_and_causal) {
    ct_tensor *sq = ct_nn_transformer_square_subsequent_mask(3);
    CHECK_VALUES(sq, ((double[]){0, -INFINITY, -INFINITY, 0, 0, -INFINITY, 0, 0, 0}), 9, 0);
    CHECK(sq && ct_get_dtype(sq) == ct_get_default_dtype());
    ct_mha_options mo;
    memset(&mo, 0, sizeof mo);
    mo.batch_first = 1;
    ct_module *m = ct_nn_multihead_attention(8, 4, &mo);
    CHECK(m != NULL);
    if (!m) return;
    ct_tensor *x = ct_randn(CT_FLOAT32, 2, 5, 8), *w = NULL;
    ct_mha_args a;
    memset(&a, 0, sizeof a);
    ct_tensor *y = ct_mha_forward(m, x, x, x, &a, &w);
    CHECK(y && w && ct_ndim(w) == 3 && ct_size(w, 0) == 2 && ct_size(w, 1) == 5 && ct_size(w, 2) == 5);
    a.per_head_weights = 1;
    y = ct_mha_forward(m, x, x, x, &a, &w);
    CHECK(y && w && ct_ndim(w) == 4 && ct_size(w, 1) == 4);
    /* rows of the weights sum to 1 */
    if (w) CHECK(maxdiff(ct_sum_dims(w, 1, (int64_t[]){-1}, 0), ct_ones(CT_FLOAT32, 2, 4, 5), NULL) < 1e-6);
    /* is_causal equals the square subsequent mask */
    a.per_head_weights = 0;
    a.is_causal = 1;
    ct_tensor *yc = ct_mha_forward(m, x, x, x, &a, NULL);
    a.is_causal = 0;
    a.attn_mask = ct_nn_transformer_square_subsequent_mask(5);
    ct_tensor *ym = ct_mha_forward(m, x, x, x, &a, NULL);
    CHECK(maxdiff(yc, ym, NULL) <= 1e-6);
    /* unbatched: [L, E] in, [L, E] out, weights [L, S] */
    a.attn_mask = NULL;
    ct_tensor *u = ct_mha_forward(m, ct_select(x, 0, 1), ct_select(x, 0, 1), ct_select(x, 0, 1), &a, &w);
    CHECK(u && ct_ndim(u) == 2 && w && ct_ndim(w) == 2);
    ct_tensor *full = ct_mha_forward(m, x, x, x, &a, NULL);
    CHECK(maxdiff(u, ct_select(full, 0, 1), NULL) <= 1e-6);
    /* a fully masked query row gives NaN */
    a.attn_mask = ct_tensor_bool(((uint8_t[]){0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}), 5, 5);
    ct_tensor *nanrow = ct_mha_forward(m, x, x, x, &a, NULL);
    CHECK(nanrow && isnan(ct_item(ct_select(ct_select(ct_select(nanrow, 0, 0), 0, 1), 0, 0))));
    CHECK(nanrow && !isnan(ct_item(ct_select(ct_select(ct_select(nanrow, 0, 0), 0, 0), 0, 0))));
    ct_module_free(m);
}

/* decoder / Transformer in training: gradients reach every parameter; a train step changes the output */
TEST(test_training_backward) {
    ct_transformer_options o;
    memset(&o, 0, sizeof o);
    o.num_encoder_layers = 1;
    o.num_decoder_layers = 2;
    o.layer = lopt(16, "gelu", 0, 1);
    ct_manual_seed(120);
    ct_module *t = ct_nn_transformer(8, 2, &o);
    CHECK(t != NULL);
    if (!t) return;
    ct_tensor *src = ct_randn(CT_FLOAT32, 2, 5, 8), *tgt = ct_randn(CT_FLOAT32, 2, 4, 8);
    ct_transformer_args a;
    memset(&a, 0, sizeof a);
    a.tgt_mask = ct_nn_transformer_square_subsequent_mask(4);
    static const int64_t len[2] = {5, 3};
    a.src_key_padding_mask = kpm_of(2, 5, len);
    a.memory_key_padding_mask = a.src_key_padding_mask;
    ct_tensor *y = ct_transformer_forward(t, src, tgt, &a);
    CHECK(y && ct_size(y, 0) == 2 && ct_size(y, 1) == 4 && ct_size(y, 2) == 8);
    CHECK(y && ct_backward(ct_sum(ct_mul(y, ct_randn(CT_FLOAT32, 2, 4, 8)))) == CT_OK);
    ct_tensor *ps[128];
    int np = ct_module_parameters(t, ps, 128), with_grad = 0;
    for (int i = 0; i < np && i < 128; i++) with_grad += ct_grad(ps[i]) != NULL;
    CHECK_EQ_INT(with_grad, np);
    CHECK(ct_module_get(t, "encoder.layers.0.self_attn.in_proj_weight") && ct_module_get(t, "decoder.layers.1.multihead_attn.out_proj.bias") &&
          ct_module_get(t, "encoder.norm.weight") && ct_module_get(t, "decoder.norm.bias"));
    ct_module_free(t);
}

/* the same seed gives PyTorch's initial values (torch.manual_seed(0) before each constructor) */
TEST(test_init_matches_pytorch) {
    ct_manual_seed(0);
    ct_module *m = ct_nn_multihead_attention(8, 2, NULL);
    CHECK_VALUES(ct_narrow(ct_select(ct_module_get(m, "in_proj_weight"), 0, 0), 0, 0, 3), ((double[]){0.17017828, 0.35877240, 0.37681082}), 3, 1e-6);
    CHECK_VALUES(ct_narrow(ct_select(ct_module_get(m, "out_proj.weight"), 0, 0), 0, 0, 3), ((double[]){-0.00264699, 0.18966144, -0.29099038}), 3, 1e-6);
    CHECK_VALUES(ct_narrow(ct_module_get(m, "in_proj_bias"), 0, 0, 2), ((double[]){0, 0}), 2, 0);
    ct_module_free(m);
    ct_mha_options mo;
    memset(&mo, 0, sizeof mo);
    mo.add_bias_kv = 1;
    mo.kdim = 5;
    mo.vdim = 3;
    ct_manual_seed(0);
    m = ct_nn_multihead_attention(8, 2, &mo);
    CHECK(m && !ct_module_get(m, "in_proj_weight"));
    ct_clear_error();
    CHECK_VALUES(ct_narrow(ct_select(ct_module_get(m, "k_proj_weight"), 0, 0), 0, 0, 3), ((double[]){0.01888109, -0.05860818, 0.13749108}), 3, 1e-6);
    CHECK_VALUES(ct_narrow(ct_flatten(ct_module_get(m, "bias_k"), 0, -1), 0, 0, 3), ((double[]){0.47520059, 0.84259528, -0.20027523}), 3, 1e-6);
    ct_module_free(m);
    ct_transformer_layer_options o = lopt(16, NULL, 0, 0);
    ct_manual_seed(0);
    m = ct_nn_transformer_encoder_layer(8, 2, &o);
    CHECK_VALUES(ct_narrow(ct_select(ct_module_get(m, "self_attn.in_proj_weight"), 0, 0), 0, 0, 3), ((double[]){0.17017828, 0.35877240, 0.37681082}), 3, 1e-6);
    CHECK_VALUES(ct_narrow(ct_select(ct_module_get(m, "linear1.weight"), 0, 0), 0, 0, 3), ((double[]){0.12824199, -0.11807258, -0.09879984}), 3, 1e-6);
    CHECK_VALUES(ct_narrow(ct_module_get(m, "linear2.bias"), 0, 0, 3), ((double[]){-0.06372598, -0.16363642, -0.08966804}), 3, 1e-6);
    ct_module_free(m);
    ct_transformer_options to;
    memset(&to, 0, sizeof to);
    to.num_encoder_layers = 1;
    to.num_decoder_layers = 1;
    to.layer = lopt(16, NULL, 0, 0);
    ct_manual_seed(0);
    m = ct_nn_transformer(8, 2, &to);   /* then xavier_uniform_ on every matrix, in parameter order */
    CHECK_VALUES(ct_narrow(ct_select(ct_module_get(m, "encoder.layers.0.self_attn.in_proj_weight"), 0, 0), 0, 0, 3),
                 ((double[]){0.38422978, 0.40284890, -0.04131941}), 3, 1e-6);
    CHECK_VALUES(ct_narrow(ct_select(ct_module_get(m, "decoder.layers.0.linear1.weight"), 0, 0), 0, 0, 3),
                 ((double[]){0.06189811, -0.44083977, 0.41639334}), 3, 1e-6);
    ct_module_free(m);
}

TEST(test_memory_flat) {
    ct_module *l = enc_layer(8, 2, 16, "relu", 0, 1, CT_FLOAT32, 130);
    ct_module *e = encoder(8, 2, 16, "gelu", 0, 2, 1, CT_FLOAT32, 131);
    ct_module *g = encoder(8, 2, 16, "gelu", 1, 2, 1, CT_FLOAT32, 132);
    CHECK(l && e && g);
    if (!l || !e || !g) { ct_module_free(l); ct_module_free(e); ct_module_free(g); return; }
    static const int64_t len[3] = {5, 2, 4};
    int64_t t0 = ct_live_tensors();
    for (int i = 0; i < 3; i++) CT_SCOPE {
        ct_module_train(l, 1);
        ct_module_train(e, 1);
        ct_tensor *x = ct_requires_grad(ct_randn(CT_FLOAT32, 3, 5, 8)), *kpm = kpm_of(3, 5, len);
        ct_tensor *y = ct_transformer_encoder_forward(l, x, NULL, kpm), *z = ct_transformer_encoder_forward(e, x, NULL, kpm);
        CHECK(y && z && ct_backward(ct_add(ct_sum(y), ct_sum(z))) == CT_OK);
        ct_module_zero_grad(l);
        ct_module_zero_grad(e);
        ct_module_eval(l);
        ct_module_eval(e);
        ct_module_eval(g);
        CHECK(fwd_nograd(l, x, NULL, kpm) && fwd_nograd(e, x, NULL, kpm));
        ct_nested n, out;
        int pg = ct_set_grad_enabled(0);
        CHECK(ct_nested_from_mask(ct_detach(x), kpm, &n) == CT_OK && ct_transformer_encoder_forward_nested(e, &n, &out) == CT_OK);
        ct_set_grad_enabled(pg);
        ct_kv_cache *c = ct_kv_cache_new(g, 3, 8);
        CHECK(c && ct_transformer_decode(g, ct_detach(x), c) && ct_transformer_decode(g, ct_randn(CT_FLOAT32, 3, 2, 8), c));
        ct_kv_cache_free(c);
        ct_tensor *q = ct_randn(CT_FLOAT32, 2, 2, 9, 4);
        int pg2 = ct_set_grad_enabled(0);
        CHECK(ct_scaled_dot_product_attention(q, q, q, NULL, 0.0, 1) != NULL);
        ct_set_grad_enabled(pg2);
        /* a failing call leaves nothing behind either */
        CHECK(!ct_transformer_encoder_forward(l, x, NULL, ct_zeros(CT_INT64, 3, 5)));
        ct_clear_error();
    }
    CHECK_EQ_INT(ct_live_tensors(), t0);
    ct_module_free(l);
    ct_module_free(e);
    ct_module_free(g);
}


/* ---- the fused ops are rows of the op table: the dispatcher sees them ---- */
typedef struct { int n, layer, mha, depth0; char attrs[4][256]; } fused_log;
static void on_fused(const ct_dispatch_event *e, void *user) {
    fused_log *l = (fused_log *)user;
    if (e->phase != CT_DISPATCH_EXIT) return;
    const char *nm = ct_op_schema_name(e->op);
    int is_layer = !strcmp(nm, "ct::transformer_encoder_layer_fwd"), is_mha = !strcmp(nm, "ct::multi_head_self_attention_fwd");
    if (!is_layer && !is_mha) return;
    if (l->n < 4) ct_attrs_repr(e->op, e->attrs, l->attrs[l->n], sizeof l->attrs[0]);
    l->n++;
    l->layer += is_layer;
    l->mha += is_mha;
    l->depth0 += e->depth == 0;
}
/* the layer's operands in the op's order (biases and norms as the module holds them) */
static int layer_operands(ct_module *L, ct_tensor **in) {
    static const char *const names[12] = {"self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
                                          "self_attn.out_proj.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias",
                                          "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias"};
    for (int i = 0; i < 12; i++)
        if (!(in[1 + i] = ct_detach(ct_module_get(L, names[i])))) return -1;
    return 0;
}
TEST(test_fused_ops_in_table) {
    int op_layer = ct_op_find("ct::transformer_encoder_layer_fwd"), op_mha = ct_op_find("ct::multi_head_self_attention_fwd");
    CHECK(op_layer >= 0 && op_mha >= 0);
    if (op_layer < 0 || op_mha < 0) return;
    char buf[512];
    ct_op_schema(op_layer, buf, sizeof buf);
    CHECK(strstr(buf, "mask_type") != NULL && strstr(buf, "num_heads") != NULL);
    ct_module *e = encoder(16, 4, 32, "gelu", 0, 2, 1, CT_FLOAT32, 130), *l = enc_layer(16, 4, 32, "relu", 1, 1, CT_FLOAT32, 131);
    ct_mha_options mo;
    memset(&mo, 0, sizeof mo);
    mo.batch_first = 1;
    ct_module *m = ct_nn_multihead_attention(16, 4, &mo);
    CHECK(e && l && m);
    if (!e || !l || !m) goto out;
    ct_module_eval(e);
    ct_module_eval(l);
    ct_module_eval(m);
    int64_t len[3] = {5, 2, 4};
    ct_tensor *x = randn_seeded(CT_FLOAT32, 132, 3, CT__INTS(3, 5, 16)), *kpm = kpm_of(3, 5, len);
    fused_log lg;
    memset(&lg, 0, sizeof lg);
    int h = ct_add_dispatch_listener(on_fused, &lg, 0);
    CHECK(h > 0);
    ct_tensor *y_nested, *y_layer, *y_mha;
    int pg = ct_set_grad_enabled(0);
    y_nested = ct_transformer_encoder_forward(e, x, NULL, kpm);      /* 2 layers, nested */
    CHECK_EQ_INT(lg.layer, 2);
    CHECK(strstr(lg.attrs[0], "mask_type='nested'") != NULL && strstr(lg.attrs[0], "num_heads=4") != NULL &&
          strstr(lg.attrs[0], "use_gelu=True") != NULL);
    y_layer = ct_transformer_encoder_forward(l, x, NULL, kpm);       /* one layer, padded */
    CHECK_EQ_INT(lg.layer, 3);
    CHECK(strstr(lg.attrs[2], "mask_type='padding'") != NULL && strstr(lg.attrs[2], "norm_first=True") != NULL);
    y_mha = ct_mha_forward(m, x, x, x, &(ct_mha_args){.key_padding_mask = kpm}, NULL);
    CHECK_EQ_INT(lg.mha, 1);
    CHECK(strstr(lg.attrs[3], "mask_type='padding'") != NULL);
    CHECK_EQ_INT(lg.depth0, lg.n);   /* called from module code: depth 0, what a tracer records */
    ct_remove_dispatch_listener(h);
    CHECK(y_nested && y_layer && y_mha);
    /* ct_dispatch runs the op as the module does */
    ct_tensor *in[15], *out[1] = {NULL};
    in[0] = x;
    CHECK(layer_operands(l, in) == 0);
    in[13] = kpm;
    ct_attrs a;
    memset(&a, 0, sizeof a);
    a.i[0] = 4;
    a.flags = 2;   /* relu, norm_first */
    a.s[0] = a.s[1] = 1e-5;
    a.mode = 1;    /* padding */
    CHECK_EQ_INT(ct_dispatch(op_layer, 14, in, &a, NULL, 0, out, 1), 1);
    CHECK(out[0] && y_layer && ct_equal(out[0], y_layer));
    /* bad operands: each named in the message, nothing run */
    CHECK_FAILS(ct_dispatch(op_layer, 13, in, &a, NULL, 0, out, 1) >= 0, "transformer_encoder_layer_fwd", "expected 14 tensors");
    a.i[0] = 3;
    CHECK_FAILS(ct_dispatch(op_layer, 14, in, &a, NULL, 0, out, 1) >= 0, "transformer_encoder_layer_fwd", "embed_dim (16)", "num_heads (3)");
    a.i[0] = 4;
    in[13] = ct_zeros(CT_BOOL, 3, 4);
    CHECK_FAILS(ct_dispatch(op_layer, 14, in, &a, NULL, 0, out, 1) >= 0, "key padding mask of shape [3, 5]", "[3, 4]");
    in[13] = kpm;
    ct_tensor *w0 = in[1];
    in[1] = ct_randn(CT_FLOAT32, 40, 16);
    CHECK_FAILS(ct_dispatch(op_layer, 14, in, &a, NULL, 0, out, 1) >= 0, "qkv_weight of shape [48, 16]", "[40, 16]");
    in[1] = ct_to(w0, CT_FLOAT64);
    CHECK_FAILS(ct_dispatch(op_layer, 14, in, &a, NULL, 0, out, 1) >= 0, "qkv_weight", "dtype Float", "Double");
    in[1] = w0;
    in[0] = ct_to(x, CT_INT64);
    CHECK_FAILS(ct_dispatch(op_layer, 14, in, &a, NULL, 0, out, 1) >= 0, "expected a float32 or float64 input", "Long");
    /* nested: offsets must run from 0 to the packed tokens, never decreasing */
    in[0] = ct_randn(CT_FLOAT32, 11, 16);
    a.mode = 2;
    in[13] = ct_tensor_i64(((int64_t[]){0, 5, 7, 11}), 4);
    CHECK_EQ_INT(ct_dispatch(op_layer, 14, in, &a, NULL, 0, out, 1), 1);
    in[13] = ct_tensor_i64(((int64_t[]){0, 5, 7, 10}), 4);
    CHECK_FAILS(ct_dispatch(op_layer, 14, in, &a, NULL, 0, out, 1) >= 0, "offsets must run from 0 to the 11 packed tokens");
    in[13] = ct_tensor_i64(((int64_t[]){0, 7, 5, 11}), 4);
    CHECK_FAILS(ct_dispatch(op_layer, 14, in, &a, NULL, 0, out, 1) >= 0, "must not decrease", "offsets[1] = 7");
    in[13] = ct_tensor_f32(((float[]){0, 5, 7, 11}), 4);
    CHECK_FAILS(ct_dispatch(op_layer, 14, in, &a, NULL, 0, out, 1) >= 0, "int64 offsets");
    /* cache: positions must fit */
    in[0] = x;
    a.mode = 3;
    a.i[1] = 4;
    in[13] = ct_zeros(CT_FLOAT32, 3, 4, 8, 4);
    in[14] = ct_zeros(CT_FLOAT32, 3, 4, 8, 4);
    CHECK_FAILS(ct_dispatch(op_layer, 15, in, &a, NULL, 0, out, 1) >= 0, "positions 4 .. 9 do not fit a cache of max_len 8");
    in[14] = ct_zeros(CT_FLOAT32, 3, 2, 8, 8);
    a.i[1] = 0;
    CHECK_FAILS(ct_dispatch(op_layer, 15, in, &a, NULL, 0, out, 1) >= 0, "value cache [3, 4, max_len, 4]");
    /* the attention op */
    ct_tensor *mi[6] = {x, ct_detach(ct_module_get(m, "in_proj_weight")), ct_detach(ct_module_get(m, "in_proj_bias")),
                        ct_detach(ct_module_get(m, "out_proj.weight")), ct_detach(ct_module_get(m, "out_proj.bias")), kpm};
    memset(&a, 0, sizeof a);
    a.i[0] = 4;
    a.mode = 1;
    CHECK_EQ_INT(ct_dispatch(op_mha, 6, mi, &a, NULL, 0, out, 1), 1);
    CHECK(out[0] && y_mha && ct_equal(out[0], y_mha));
    a.mode = 2;
    CHECK_FAILS(ct_dispatch(op_mha, 6, mi, &a, NULL, 0, out, 1) >= 0, "multi_head_self_attention_fwd", "mask_type");
    a.mode = 0;
    CHECK_FAILS(ct_dispatch(op_mha, 6, mi, &a, NULL, 0, out, 1) >= 0, "expected 5 tensors");
    mi[4] = ct_zeros(CT_FLOAT32, 15);
    CHECK_FAILS(ct_dispatch(op_mha, 5, mi, &a, NULL, 0, out, 1) >= 0, "proj_bias of shape [16]", "[15]");
    ct_set_grad_enabled(pg);
out:
    ct_module_free(e);
    ct_module_free(l);
    ct_module_free(m);
}

int main(void) {
    ct_t_init();
    RUN(test_fastpath_equals_regular);
    RUN(test_nested_padding_values);
    RUN(test_nested_round_trip);
    RUN(test_why_not);
    RUN(test_why_not_mha);
    RUN(test_sdpa);
    RUN(test_gradcheck);
    RUN(test_kv_cache);
    RUN(test_kv_cache_errors);
    RUN(test_errors);
    RUN(test_mha_shapes_and_causal);
    RUN(test_training_backward);
    RUN(test_init_matches_pytorch);
    RUN(test_memory_flat);
    RUN(test_fused_ops_in_table);
    return ct_t_summary();
}
