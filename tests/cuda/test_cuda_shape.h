/* test_cuda_shape.h - the shape section of ctensor_cuda.h (cat, stack, flip, roll,
   repeat, tril/triu, diag_embed, the pads and pad_backward, take, one_hot,
   repeat_interleave) against the CPU path. Included by test_cuda.c. */
static const ct_dtype SHAPE_DTYPES[10] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16, CT_INT64,
                                          CT_INT32,   CT_INT16,   CT_INT8,    CT_UINT8,    CT_BOOL};
/* data of any dtype: randn * 3 converted (small integers, booleans mostly true) */
static ct_tensor *shape_data(ct_dtype dt, int ndim, const int64_t *shape) { return ct_to(ct_mul_scalar(ct_randn_n(CT_FLOAT64, ndim, shape), 3.0), dt); }
#define CHECK_EXACT(label, d, c) CHECK_SAME_AT(label, d, c, 0.0, 0.0)

TEST(test_shape_gather_ops) {
    const int64_t sh[3] = {3, 4, 5}, fd[2] = {0, 2}, rs[2] = {1, -7}, rd[2] = {0, 2}, rep[4] = {2, 1, 3, 2};
    const int64_t cpad[6] = {1, 2, -1, 1, 0, 1}, circ[4] = {2, -1, 1, 3};
    char label[96];
    for (int k = 0; k < 10; k++) {
        ct_dtype dt = SHAPE_DTYPES[k];
        ct_tensor *x = shape_data(dt, 3, sh), *xg = dev(x);
        const char *nm = ct_dtype_name(dt);
        /* a permuted view too: the kernels read any strides */
        ct_tensor *xp = ct_permute(x, 2, 0, 1), *xpg = ct_permute(xg, 2, 0, 1);
        snprintf(label, sizeof label, "flip %s", nm);
        CHECK_EXACT(label, ct_flip(xg, 2, fd), ct_flip(x, 2, fd));
        CHECK_EXACT(label, ct_flip(xpg, 2, fd), ct_flip(xp, 2, fd));
        snprintf(label, sizeof label, "roll %s", nm);
        CHECK_EXACT(label, ct_roll(xpg, 2, rs, 2, rd), ct_roll(xp, 2, rs, 2, rd));
        snprintf(label, sizeof label, "repeat %s", nm);
        CHECK_EXACT(label, ct_repeat(xpg, 4, rep), ct_repeat(xp, 4, rep));
        snprintf(label, sizeof label, "tril/triu %s", nm);
        CHECK_EXACT(label, ct_tril(xpg, 1), ct_tril(xp, 1));
        CHECK_EXACT(label, ct_triu(xg, -1), ct_triu(x, -1));
        CHECK_EXACT(label, ct_triu(xg, 9), ct_triu(x, 9));
        snprintf(label, sizeof label, "diag_embed %s", nm);
        CHECK_EXACT(label, ct_diag_embed(xpg, 1, 0, 2), ct_diag_embed(xp, 1, 0, 2));
        CHECK_EXACT(label, ct_diag_embed(xg, -2, -1, 1), ct_diag_embed(x, -2, -1, 1));
        snprintf(label, sizeof label, "pad constant %s", nm);
        CHECK_EXACT(label, ct_pad(xpg, 6, cpad, "constant", 2.5), ct_pad(xp, 6, cpad, "constant", 2.5));
        snprintf(label, sizeof label, "pad circular %s", nm);
        CHECK_EXACT(label, ct_pad(ct_unsqueeze(xpg, 0), 4, circ, "circular", 0.0), ct_pad(ct_unsqueeze(xp, 0), 4, circ, "circular", 0.0));
        CHECK_EXACT(label, ct_pad(xg, 2, circ, "circular", 0.0), ct_pad(x, 2, circ, "circular", 0.0));
        if (dt == CT_FLOAT32 || dt == CT_FLOAT64) {
            const int64_t p2[4] = {2, 1, 2, -1}, p3[6] = {1, 2, 0, 3, 1, 1};
            ct_tensor *x4 = ct_reshape_n(x, 4, CT__INTS(1, 3, 4, 5)), *x4g = ct_reshape_n(xg, 4, CT__INTS(1, 3, 4, 5));
            snprintf(label, sizeof label, "pad reflect/replicate %s", nm);
            CHECK_EXACT(label, ct_pad(xpg, 4, p2, "reflect", 0.0), ct_pad(xp, 4, p2, "reflect", 0.0));
            CHECK_EXACT(label, ct_pad(xpg, 4, p2, "replicate", 0.0), ct_pad(xp, 4, p2, "replicate", 0.0));
            CHECK_EXACT(label, ct_pad(x4g, 6, p3, "replicate", 0.0), ct_pad(x4, 6, p3, "replicate", 0.0));
            CHECK_EXACT(label, ct_pad(x4g, 6, p3, "reflect", 0.0), ct_pad(x4, 6, p3, "reflect", 0.0));
        }
    }
    /* 0-d and empty */
    ct_tensor *s = ct_scalar_tensor(1.5, CT_FLOAT32);
    CHECK_EXACT("flip 0-d", ct_flip(dev(s), 0, NULL), ct_flip(s, 0, NULL));
    CHECK_EXACT("repeat 0-d", ct_repeat(dev(s), 2, CT__INTS(2, 3)), ct_repeat(s, 2, CT__INTS(2, 3)));
    ct_tensor *e = ct_zeros(CT_FLOAT32, 0, 3);
    CHECK_EXACT("roll empty", ct_roll(dev(e), 1, CT__INTS(1), 1, CT__INTS(1)), ct_roll(e, 1, CT__INTS(1), 1, CT__INTS(1)));
    /* the metas' errors are the CPU's */
    ct_tensor *x = shape_data(CT_FLOAT32, 3, sh), *xg = dev(x);
    const int64_t big[2] = {5, 0};
    CHECK_SAME_ERR(ct_pad(xg, 2, big, "reflect", 0.0), ct_pad(x, 2, big, "reflect", 0.0));
    CHECK_SAME_ERR(ct_flip(xg, 2, CT__INTS(1, 1)), ct_flip(x, 2, CT__INTS(1, 1)));
}

TEST(test_shape_cat_stack) {
    const int64_t s1[3] = {2, 3, 4}, s2[3] = {2, 5, 4}, s3[3] = {1, 4, 2};
    /* mixed dtypes (promotion) and strides */
    ct_tensor *a = shape_data(CT_INT32, 3, s1), *b = ct_permute(shape_data(CT_FLOAT16, 3, s3), 2, 0, 1);
    ct_tensor *bc = ct_contiguous(ct_permute(shape_data(CT_FLOAT64, 3, CT__INTS(4, 2, 5)), 1, 2, 0));
    (void)s2;
    ct_tensor *cs[3] = {a, b, bc}, *gs[3] = {dev(a), ct_permute(dev(ct_permute(b, 1, 2, 0)), 2, 0, 1), dev(bc)};
    CHECK_EXACT("cat dim 1 promoted", ct_cat(3, gs, 1), ct_cat(3, cs, 1));
    ct_tensor *x = shape_data(CT_BFLOAT16, 3, s1), *y = shape_data(CT_BOOL, 3, s1), *z = ct_transpose(shape_data(CT_INT8, 3, CT__INTS(2, 4, 3)), 1, 2);
    ct_tensor *ss[3] = {x, y, z}, *sg[3] = {dev(x), dev(y), ct_transpose(dev(ct_transpose(z, 1, 2)), 1, 2)};
    for (int d = -4; d < 4; d++) {
        char label[48];
        snprintf(label, sizeof label, "stack dim %d", d);
        CHECK_EXACT(label, ct_stack(3, sg, d), ct_stack(3, ss, d));
        if (d >= -3 && d < 3) {
            snprintf(label, sizeof label, "cat dim %d", d);
            CHECK_EXACT(label, ct_cat(3, sg, d), ct_cat(3, ss, d));
        }
    }
    /* legacy empty inputs are skipped; one input */
    ct_tensor *e = ct_zeros(CT_FLOAT32, 0), *w = shape_data(CT_FLOAT32, 2, CT__INTS(2, 3));
    ct_tensor *le[3] = {e, w, e}, *lg[3] = {dev(e), dev(w), dev(e)};
    CHECK_EXACT("cat legacy empty", ct_cat(3, lg, 0), ct_cat(3, le, 0));
    CHECK_EXACT("cat one", ct_cat(1, lg + 1, 1), ct_cat(1, le + 1, 1));
    ct_tensor *bad[2] = {w, a}, *badg[2] = {dev(w), dev(a)};
    CHECK_SAME_ERR(ct_cat(2, badg, 0), ct_cat(2, bad, 0));
    ct_tensor *bs[2] = {a, ct_narrow(a, 1, 0, 2)}, *bsg[2] = {dev(a), ct_narrow(dev(a), 1, 0, 2)};
    CHECK_SAME_ERR(ct_stack(2, bsg, 0), ct_stack(2, bs, 0));
    CHECK_SAME_ERR(ct_cat(2, bsg, 0), ct_cat(2, bs, 0));
}

TEST(test_shape_take_one_hot_repeat_interleave) {
    const int64_t sh[2] = {3, 5};
    for (int k = 0; k < 10; k++) {
        ct_dtype dt = SHAPE_DTYPES[k];
        ct_tensor *x = ct_transpose(shape_data(dt, 2, sh), 0, 1), *xg = ct_transpose(dev(ct_transpose(x, 0, 1)), 0, 1);
        ct_tensor *idx = ct_transpose(idata(CT_INT64, -15, 15, 2, CT__INTS(4, 2)), 0, 1);
        char label[48];
        snprintf(label, sizeof label, "take %s", ct_dtype_name(dt));
        CHECK_EXACT(label, ct_take(xg, dev(idx)), ct_take(x, idx));
    }
    ct_tensor *x = shape_data(CT_FLOAT32, 2, sh), *xg = dev(x);
    ct_tensor *bi = ct_from_data_n(CT__INTS(1, -15, 15, 2), CT_INT64, 1, CT__INTS(4)), *bj = ct_from_data_n(CT__INTS(-16, 0, 1), CT_INT64, 1, CT__INTS(3));
    CHECK_SAME_ERR(ct_take(xg, dev(bi)), ct_take(x, bi));
    CHECK_SAME_ERR(ct_take(xg, dev(bj)), ct_take(x, bj));
    CHECK_SAME_ERR(ct_take(xg, dev(ct_to(bi, CT_INT32))), ct_take(x, ct_to(bi, CT_INT32)));
    CHECK_EXACT("take empty index", ct_take(xg, dev(ct_zeros(CT_INT64, 0))), ct_take(x, ct_zeros(CT_INT64, 0)));
    /* one_hot: given and inferred classes, strided input, the errors in the CPU's order */
    ct_tensor *cls = ct_transpose(idata(CT_INT64, 0, 6, 2, CT__INTS(3, 4)), 0, 1), *clsg = ct_transpose(dev(ct_transpose(cls, 0, 1)), 0, 1);
    CHECK_EXACT("one_hot 7", ct_one_hot(clsg, 7), ct_one_hot(cls, 7));
    CHECK_EXACT("one_hot -1", ct_one_hot(clsg, -1), ct_one_hot(cls, -1));
    CHECK_EXACT("one_hot empty", ct_one_hot(dev(ct_zeros(CT_INT64, 0)), 3), ct_one_hot(ct_zeros(CT_INT64, 0), 3));
    ct_tensor *neg = ct_from_data_n(CT__INTS(9, 1, -1), CT_INT64, 1, CT__INTS(3));
    CHECK_SAME_ERR(ct_one_hot(dev(neg), 4), ct_one_hot(neg, 4));
    CHECK_SAME_ERR(ct_one_hot(dev(neg), -1), ct_one_hot(neg, -1));
    CHECK_SAME_ERR(ct_one_hot(dev(cls), 3), ct_one_hot(cls, 3));
    CHECK_SAME_ERR(ct_one_hot(dev(ct_zeros(CT_INT64, 0)), -1), ct_one_hot(ct_zeros(CT_INT64, 0), -1));
    CHECK_SAME_ERR(ct_one_hot(dev(x), 3), ct_one_hot(x, 3));
    /* repeat_interleave: int32 / int64 repeats with zeros, strided; through ct_repeat_interleave_tensor too */
    for (int k = 0; k < 2; k++) {
        ct_dtype dt = k ? CT_INT32 : CT_INT64;
        ct_tensor *r = ct_select(idata(dt, 0, 4, 2, CT__INTS(7, 2)), 1, 1);
        CHECK_EXACT("repeat_interleave", ct_repeat_interleave_index(dev(r)), ct_repeat_interleave_index(r));
        CHECK_EXACT("repeat_interleave zeros", ct_repeat_interleave_index(dev(ct_zeros(dt, 3))), ct_repeat_interleave_index(ct_zeros(dt, 3)));
        CHECK_EXACT("repeat_interleave empty", ct_repeat_interleave_index(dev(ct_zeros(dt, 0))), ct_repeat_interleave_index(ct_zeros(dt, 0)));
    }
    ct_tensor *r = idata(CT_INT64, 0, 3, 1, CT__INTS(3)), *y = shape_data(CT_INT16, 2, CT__INTS(3, 2));
    CHECK_EXACT("repeat_interleave tensor", ct_repeat_interleave_tensor(dev(y), dev(r), 0), ct_repeat_interleave_tensor(y, r, 0));
    CHECK_EXACT("repeat_interleave int", ct_repeat_interleave(dev(y), 2, 1), ct_repeat_interleave(y, 2, 1));
    ct_tensor *rn = ct_from_data_n(CT__INTS(2, -1, 1), CT_INT64, 1, CT__INTS(3));
    CHECK_SAME_ERR(ct_repeat_interleave_index(dev(rn)), ct_repeat_interleave_index(rn));
    CHECK_SAME_ERR(ct_repeat_interleave_index(dev(ct_zeros(CT_FLOAT32, 3))), ct_repeat_interleave_index(ct_zeros(CT_FLOAT32, 3)));
}

/* loss = sum(f(x) * w): x's gradient on the device against the CPU's */
typedef ct_tensor *(*shape_fn)(ct_tensor *x);
static void shape_grad_check(const char *label, shape_fn f, ct_tensor *x0, double tol) {
    ct_tensor *xc = leaf(x0, 0), *xg = leaf(x0, 1), *yc = f(xc);
    CT_T_REPORT(yc != NULL, "%s: CPU forward failed (%s)", label, ct_last_error());
    if (!yc) return;
    ct_tensor *w = ct_to(ct_randn_n(CT_FLOAT64, yc->ndim, yc->shape), x0->dtype);
    ct_tensor *lc = ct_sum(ct_mul(yc, w)), *lg = ct_sum(ct_mul(f(xg), dev(w)));
    CT_T_REPORT(lc && lg && ct_backward(lc) == CT_OK && ct_backward(lg) == CT_OK, "%s: backward failed (%s)", label, ct_last_error());
    CHECK_SAME_AT(label, ct_grad(xg), ct_grad(xc), tol, tol);
}
static ct_tensor *g_flip(ct_tensor *x) { return ct_flip(x, 2, CT__INTS(0, 2)); }
static ct_tensor *g_roll(ct_tensor *x) { return ct_roll(x, 2, CT__INTS(2, -1), 2, CT__INTS(1, 2)); }
static ct_tensor *g_repeat(ct_tensor *x) { return ct_repeat(x, 4, CT__INTS(2, 1, 2, 3)); }
static ct_tensor *g_tril(ct_tensor *x) { return ct_tril(x, -1); }
static ct_tensor *g_triu(ct_tensor *x) { return ct_triu(x, 1); }
static ct_tensor *g_diag_embed(ct_tensor *x) { return ct_diag_embed(x, -1, 0, 3); }
static ct_tensor *g_cat(ct_tensor *x) { ct_tensor *t[3] = {x, ct_mul_scalar(x, 2.0), ct_flip(x, 1, CT__INTS(1))}; return ct_cat(3, t, 1); }
static ct_tensor *g_stack(ct_tensor *x) { ct_tensor *t[2] = {x, ct_exp(x)}; return ct_stack(2, t, 2); }
static ct_tensor *g_pad_c(ct_tensor *x) { return ct_pad(x, 4, CT__INTS(2, -1, 1, 1), "constant", 0.5); }
static ct_tensor *g_pad_reflect(ct_tensor *x) { return ct_pad(x, 4, CT__INTS(3, 2, 1, 2), "reflect", 0.0); }
static ct_tensor *g_pad_replicate(ct_tensor *x) { return ct_pad(x, 4, CT__INTS(4, 1, -1, 3), "replicate", 0.0); }
static ct_tensor *g_pad_circular(ct_tensor *x) { return ct_pad(ct_unsqueeze(x, 0), 4, CT__INTS(3, -1, 2, 3), "circular", 0.0); }
static ct_tensor *g_pad_reflect1(ct_tensor *x) { return ct_pad(ct_reshape_n(x, 2, CT__INTS(6, 4)), 2, CT__INTS(3, 2), "reflect", 0.0); }
static ct_tensor *g_pad_replicate3(ct_tensor *x) {
    return ct_pad(ct_reshape_n(x, 5, CT__INTS(1, 1, 2, 3, 4)), 6, CT__INTS(1, 2, 3, 0, 2, 1), "replicate", 0.0);
}
static ct_tensor *g_take(ct_tensor *x) {
    return ct_take(x, ct_to_device(ct_from_data_n(CT__INTS(0, 3, -1, 3, 7), CT_INT64, 1, CT__INTS(5)), x->device));
}
TEST(test_shape_grads) {
    static const struct { const char *name; shape_fn f; } fs[] = {
        {"flip", g_flip}, {"roll", g_roll}, {"repeat", g_repeat}, {"tril", g_tril}, {"triu", g_triu}, {"diag_embed", g_diag_embed},
        {"cat", g_cat}, {"stack", g_stack}, {"pad constant", g_pad_c}, {"pad reflect", g_pad_reflect}, {"pad replicate", g_pad_replicate},
        {"pad circular", g_pad_circular}, {"pad reflect 1-d", g_pad_reflect1}, {"pad replicate 3-d", g_pad_replicate3}, {"take", g_take},
    };
    const int64_t sh[3] = {2, 3, 4};
    for (int dk = 0; dk < 2; dk++) {
        ct_tensor *x = data(dk ? CT_FLOAT64 : CT_FLOAT32, 0, 3, sh);
        for (size_t k = 0; k < sizeof fs / sizeof fs[0]; k++) {
            char label[64];
            snprintf(label, sizeof label, "%s grad %s", fs[k].name, ct_dtype_name(x->dtype));
            shape_grad_check(label, fs[k].f, x, dk ? 1e-12 : 1e-5);
        }
    }
    /* pad_backward itself, bit for bit in every float dtype (circular pads take them all),
       and its double backward (a pad) */
    for (int k = 0; k < 4; k++) {
        ct_tensor *g = data(FLOATS[k], 0, 3, CT__INTS(2, 9, 7));
        ct_tensor *gg = dev(g);
        static const char *const attrs_of[6] = {"pad=[2, 2], mode='reflect'", "pad=[5, 1], mode='replicate'", "pad=[2, -1], mode='circular'",
                                                "pad=[-2, 3], mode='reflect'", "pad=[-1, 4], mode='replicate'", "pad=[-3, 1], mode='circular'"};
        for (int mode = 0; mode < 6; mode++) {
            const char *attrs = attrs_of[mode];
            ct_tensor *in[1], *oc = NULL, *og = NULL;
            char label[64];
            in[0] = g;
            int rc = run_op("ct::pad_backward", attrs, 1, in, &oc, 1);
            in[0] = gg;
            int rg = run_op("ct::pad_backward", attrs, 1, in, &og, 1);
            snprintf(label, sizeof label, "pad_backward %s mode %d", ct_dtype_name(FLOATS[k]), mode);
            CT_T_REPORT(rc >= 0 && rg >= 0, "%s: %s", label, ct_last_error());
            if (rc >= 0 && rg >= 0) CHECK_EXACT(label, og, oc);
        }
    }
    ct_tensor *x = data(CT_FLOAT64, 0, 3, sh);
    shape_grad_check("pad circular grad float64 (2)", g_pad_circular, x, 1e-12);
}
