/* tests/cuda/test_cuda_optim.h - included by test_cuda.c: the fused optimizer
   steps, scatter_reduce, randperm and multinomial on the device (ctensor_cuda.h's
   section "Fused optimizer steps, scatter_reduce, randperm and multinomial"). */

/* ---- fused optimizer steps: every option, float32 and float64, the device's
   parameters against the CPU's after three steps with the same gradients (exact
   gradients: d/dp sum(p * c) = c), the fused op seen running on the GPU ---- */
typedef struct optim_case {
    int kind;   /* 0 SGD, 1 Adam, 2 AdamW, 3 RMSprop, 4 Adagrad */
    const char *name, *fused;
    double lr, a, b, wd;   /* SGD: momentum, dampening; Adam: -, -; RMSprop: momentum, -; Adagrad: lr_decay, - */
    int f1, f2, maximize;  /* SGD: nesterov; Adam: amsgrad; RMSprop: centered */
} optim_case;
static ct_optimizer *optim_make(const optim_case *k, ct_tensor *p) {
    ct_sgd_options so;
    ct_adam_options ao;
    ct_rmsprop_options ro;
    ct_adagrad_options ag;
    memset(&so, 0, sizeof so);
    memset(&ao, 0, sizeof ao);
    memset(&ro, 0, sizeof ro);
    memset(&ag, 0, sizeof ag);
    switch (k->kind) {
    case 0:
        so.lr = k->lr; so.momentum = k->a; so.dampening = k->b; so.weight_decay = k->wd; so.nesterov = k->f1; so.maximize = k->maximize;
        return ct_optim_sgd_params(1, &p, &so);
    case 1: case 2:
        ao.lr = k->lr; ao.weight_decay = k->wd == 0 ? CT_ZERO : k->wd; ao.amsgrad = k->f2; ao.maximize = k->maximize;
        return k->kind == 1 ? ct_optim_adam_params(1, &p, &ao) : ct_optim_adamw_params(1, &p, &ao);
    case 3:
        ro.lr = k->lr; ro.momentum = k->a; ro.weight_decay = k->wd; ro.centered = k->f1; ro.maximize = k->maximize;
        return ct_optim_rmsprop_params(1, &p, &ro);
    default:
        ag.lr = k->lr; ag.lr_decay = k->a; ag.weight_decay = k->wd; ag.initial_accumulator_value = k->b; ag.maximize = k->maximize;
        return ct_optim_adagrad_params(1, &p, &ag);
    }
}
TEST(test_fused_optim) {
    static const optim_case cases[] = {
        {0, "SGD", "ct::_fused_sgd_", 0.1, 0, 0, 0, 0, 0, 0},
        {0, "SGD momentum dampening weight_decay", "ct::_fused_sgd_", 0.1, 0.9, 0.1, 0.01, 0, 0, 0},
        {0, "SGD nesterov maximize", "ct::_fused_sgd_", 0.05, 0.8, 0, 0.02, 1, 0, 1},
        {1, "Adam", "ct::_fused_adam_", 0.01, 0, 0, 0, 0, 0, 0},
        {1, "Adam amsgrad weight_decay maximize", "ct::_fused_adam_", 0.01, 0, 0, 0.05, 0, 1, 1},
        {2, "AdamW", "ct::_fused_adamw_", 0.01, 0, 0, 0.1, 0, 0, 0},
        {2, "AdamW amsgrad", "ct::_fused_adamw_", 0.02, 0, 0, 0.01, 0, 1, 0},
        {3, "RMSprop", "ct::_fused_rmsprop_", 0.01, 0, 0, 0, 0, 0, 0},
        {3, "RMSprop centered momentum weight_decay", "ct::_fused_rmsprop_", 0.01, 0.5, 0, 0.01, 1, 0, 0},
        {3, "RMSprop momentum maximize", "ct::_fused_rmsprop_", 0.01, 0.3, 0, 0, 0, 0, 1},
        {4, "Adagrad", "ct::_fused_adagrad_", 0.1, 0, 0, 0, 0, 0, 0},
        {4, "Adagrad lr_decay weight_decay init maximize", "ct::_fused_adagrad_", 0.1, 0.01, 0.1, 0.05, 0, 0, 1},
    };
    const ct_dtype dts[2] = {CT_FLOAT32, CT_FLOAT64};
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
        for (int di = 0; di < 2; di++) {
            const optim_case *k = &cases[ci];
            ct_dtype dt = dts[di];
            /* a transposed (dense, not contiguous) parameter for one case of each kind */
            int tr = (ci % 2) == 1;
            ct_tensor *w0 = data(dt, 0, CT_DIMS(5, 3)), *c0 = data(dt, 0, CT_DIMS(5, 3));
            ct_tensor *pc = ct_retain(ct_requires_grad(ct_clone(w0))), *pg = ct_retain(ct_requires_grad(ct_detach(dev(w0))));
            if (tr) {
                ct_release(pc);
                ct_release(pg);
                ct_tensor *wt = ct_contiguous(ct_transpose(w0, 0, 1));
                pc = ct_retain(ct_requires_grad(ct_detach(ct_transpose(ct_clone(wt), 0, 1))));
                pg = ct_retain(ct_requires_grad(ct_detach(ct_transpose(dev(wt), 0, 1))));
            }
            ct_tensor *cg = dev(c0);
            ct_optimizer *oc = optim_make(k, pc), *og = optim_make(k, pg);
            char label[160];
            snprintf(label, sizeof label, "%s (%s%s)", k->name, ct_dtype_name(dt), tr ? ", transposed" : "");
            int h = ct_add_dispatch_listener(nn_listener, NULL, CT_LISTEN_NESTED);
            nn_watch_reset();
            for (int step = 0; step < 3 && oc && og; step++) {
                CT_SCOPE {
                    ct_zero_grad(oc);
                    ct_zero_grad(og);
                    CHECK(ct_backward(ct_sum(ct_mul(pc, c0))) == CT_OK && ct_step(oc) == CT_OK);
                    int ok = ct_backward(ct_sum(ct_mul(pg, cg))) == CT_OK && ct_step(og) == CT_OK;
                    CT_T_REPORT(ok, "%s, step %d on the GPU: %s", label, step, ct_last_error());
                }
            }
            ct_remove_dispatch_listener(h);
            CT_T_REPORT(nn_ran(k->fused), "%s: %s did not run on the GPU", label, k->fused);
            CHECK(oc && og);
            /* the same operations in the same precision: equal but for float rounding (the same bits on an IEEE GPU) */
            CHECK_SAME_AT(label, pg, pc, dt == CT_FLOAT32 ? 1e-6 : 1e-14, 0.0);
            ct_optim_free(oc);
            ct_optim_free(og);
            ct_release(pc);
            ct_release(pg);
        }
    /* a bad call of the op itself: the meta's error, as on the CPU */
    int op = ct_op_find("ct::_fused_sgd_");
    CHECK(op >= 0);
    ct_tensor *in_c[2], *in_g[2];
    in_c[0] = ct_zeros(CT_FLOAT32, 3);
    in_c[1] = ct_zeros(CT_FLOAT32, 4);
    in_g[0] = dev(in_c[0]);
    in_g[1] = dev(in_c[1]);
    ct_clear_error();
    CHECK(ct_dispatch(op, 2, in_c, NULL, NULL, 1, NULL, 0) < 0);
    char cpu_err[2048];
    snprintf(cpu_err, sizeof cpu_err, "%s", ct_last_error());
    ct_clear_error();
    CHECK(ct_dispatch(op, 2, in_g, NULL, NULL, 1, NULL, 0) < 0);
    CT_T_REPORT(strcmp(cpu_err, ct_last_error()) == 0 && strstr(cpu_err, "tensor 1"), "device error \"%s\", CPU error \"%s\"", ct_last_error(), cpu_err);
    ct_clear_error();
}

/* ---- scatter_reduce.two: every reduction, include_self, every dtype ---- */
static ct_tensor *sr_src(ct_dtype dt, int red, int ndim, const int64_t *shape) {
    if (dt == CT_BOOL) return ct_to(idata(CT_INT64, 0, 2, ndim, shape), CT_BOOL);
    if (!CT__ISFLOAT(dt)) return idata(dt, dt == CT_UINT8 ? 0 : red == 1 ? -3 : -20, red == 1 ? 4 : 21, ndim, shape);
    return data(dt, red == 1 ? 1 : 0, ndim, shape);
}
TEST(test_scatter_reduce) {
    static const char *reds[5] = {"sum", "prod", "mean", "amax", "amin"};
    const ct_dtype dts[10] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16, CT_INT64, CT_INT32, CT_INT16, CT_INT8, CT_UINT8, CT_BOOL};
    for (int di = 0; di < 10; di++)
        for (int red = 0; red < 5; red++)
            for (int incl = 0; incl < 2; incl++) {
                ct_dtype dt = dts[di];
                char label[128];
                /* x [4, 5] along dim 0; the index [6, 4] (duplicates), src [7, 5] larger than it */
                ct_tensor *x = sr_src(dt, red, CT_DIMS(4, 5)), *src = sr_src(dt, red, CT_DIMS(7, 5));
                ct_tensor *idx = idata(CT_INT64, 0, 4, CT_DIMS(6, 4));
                snprintf(label, sizeof label, "scatter_reduce %s include_self=%d (%s)", reds[red], incl, ct_dtype_name(dt));
                if (dt == CT_BOOL && red == 2) {
                    CHECK_SAME_ERR(ct_scatter_reduce(dev(x), 0, dev(idx), dev(src), reds[red], incl), ct_scatter_reduce(x, 0, idx, src, reds[red], incl));
                    continue;
                }
                ct_tensor *want = ct_scatter_reduce(x, 0, idx, src, reds[red], incl);
                CHECK_SAME_AT(label, ct_scatter_reduce(dev(x), 0, dev(idx), dev(src), reds[red], incl), want, rtol_of(dt), atol_of(dt));
                if (dt == CT_FLOAT32 || dt == CT_INT32) {
                    /* along dim 1 of a transposed self, in place */
                    ct_tensor *xt = ct_transpose(sr_src(dt, red, CT_DIMS(5, 4)), 0, 1), *i1 = idata(CT_INT64, 0, 5, CT_DIMS(3, 7));
                    ct_tensor *s1 = sr_src(dt, red, CT_DIMS(4, 8)), *xg = ct_transpose(dev(ct_transpose(xt, 0, 1)), 0, 1);
                    ct_tensor *w1 = ct_scatter_reduce(xt, 1, i1, s1, reds[red], incl);
                    CHECK(ct_scatter_reduce_(xg, 1, dev(i1), dev(s1), reds[red], incl) == xg);
                    CHECK_SAME_AT(label, xg, w1, rtol_of(dt), atol_of(dt));
                }
            }
    /* amax / amin: a NaN wins and stays */
    const float xv[3] = {1, 2, 3}, sv[4] = {NAN, 5, -1, 0};
    const int64_t iv[4] = {0, 0, 1, 2}, badv[3] = {0, 7, 1}, negv[3] = {0, -1, 1};
    ct_tensor *x = ct_tensor_f32(xv, 3), *s = ct_tensor_f32(sv, 4), *ix = ct_tensor_i64(iv, 4);
    for (int red = 3; red < 5; red++)
        for (int incl = 0; incl < 2; incl++)
            CHECK_SAME_AT(reds[red], ct_scatter_reduce(dev(x), 0, dev(ix), dev(s), reds[red], incl), ct_scatter_reduce(x, 0, ix, s, reds[red], incl), 0, 0);
    /* gradients on the device (float64) against the CPU's */
    for (int red = 0; red < 5; red++)
        for (int incl = 0; incl < 2; incl++) {
            ct_tensor *x0 = data(CT_FLOAT64, 1, CT_DIMS(3, 4)), *s0 = data(CT_FLOAT64, 1, CT_DIMS(5, 4)), *i0 = idata(CT_INT64, 0, 3, CT_DIMS(5, 4));
            ct_tensor *xc = leaf(x0, 0), *sc = leaf(s0, 0), *xg = leaf(x0, 1), *sg = leaf(s0, 1);
            ct_tensor *wt = data(CT_FLOAT64, 0, CT_DIMS(3, 4));
            CHECK(ct_backward(ct_sum(ct_mul(ct_scatter_reduce(xc, 0, i0, sc, reds[red], incl), wt))) == CT_OK);
            int ok = ct_backward(ct_sum(ct_mul(ct_scatter_reduce(xg, 0, dev(i0), sg, reds[red], incl), dev(wt)))) == CT_OK;
            CT_T_REPORT(ok, "scatter_reduce %s backward on the GPU: %s", reds[red], ct_last_error());
            CHECK_SAME_AT(reds[red], ct_grad(xg), ct_grad(xc), 1e-10, 1e-12);
            CHECK_SAME_AT(reds[red], ct_grad(sg), ct_grad(sc), 1e-10, 1e-12);
        }
    /* an index out of range: the CPU's error */
    ct_tensor *bad = ct_tensor_i64(badv, 3);
    CHECK_SAME_ERR(ct_scatter_reduce(dev(x), 0, dev(bad), dev(s), "prod", 1), ct_scatter_reduce(x, 0, bad, s, "prod", 1));
    ct_tensor *neg = ct_tensor_i64(negv, 3);
    CHECK_SAME_ERR(ct_scatter_reduce(dev(x), 0, dev(neg), dev(s), "amax", 0), ct_scatter_reduce(x, 0, neg, s, "amax", 0));
}

/* ---- randperm on the device: a permutation, reproducible, uniform ---- */
static int is_perm(const ct_tensor *d, int64_t n) {
    ct_tensor *h = ct_contiguous(ct_to(ct_to_device(d, ct_cpu()), CT_INT64));
    if (!h || ct_numel(h) != n) return 0;
    const int64_t *v = (const int64_t *)ct_data_ptr(h);
    char *seen = (char *)calloc((size_t)n + 1, 1);
    int ok = 1;
    for (int64_t i = 0; i < n && ok; i++) {
        if (v[i] < 0 || v[i] >= n || seen[v[i]]) ok = 0;
        else seen[v[i]] = 1;
    }
    free(seen);
    return ok;
}
TEST(test_randperm) {
    const ct_dtype dts[4] = {CT_INT64, CT_INT32, CT_FLOAT32, CT_INT16};
    const int64_t ns[4] = {1, 10, 300, 2500};   /* 2500: the sort in global memory */
    for (int di = 0; di < 4; di++)
        for (int k = 0; k < 4; k++) {
            if (k == 3 && di > 0) continue;
            ct_tensor *r = ct_randperm_on(GPU, ns[k], dts[di], NULL);
            CT_T_REPORT(r && r->device.type == CT_CUDA && r->dtype == dts[di] && is_perm(r, ns[k]), "randperm(%lld, %s): %s", (long long)ns[k],
                        ct_dtype_name(dts[di]), r ? "not a permutation" : ct_last_error());
        }
    CHECK(ct_randperm_on(GPU, 0, CT_INT64, NULL) && ct_numel(ct_randperm_on(GPU, 0, CT_INT64, NULL)) == 0);
    ct_manual_seed(5);
    ct_tensor *a = ct_to_device(ct_randperm_on(GPU, 2500, CT_INT64, NULL), ct_cpu()), *b = ct_to_device(ct_randperm_on(GPU, 2500, CT_INT64, NULL), ct_cpu());
    ct_manual_seed(5);
    ct_tensor *a2 = ct_to_device(ct_randperm_on(GPU, 2500, CT_INT64, NULL), ct_cpu());
    CHECK(a && b && a2 && ct_equal(a, a2) && !ct_equal(a, b));
    /* where 0 lands, over 100 permutations of 4: about 25 times each place */
    int64_t at[4] = {0, 0, 0, 0};
    for (int t = 0; t < 100; t++) {
        ct_tensor *h = ct_to_device(ct_randperm_on(GPU, 4, CT_INT64, NULL), ct_cpu());
        if (!h) break;
        const int64_t *v = (const int64_t *)ct_data_ptr(h);
        for (int j = 0; j < 4; j++)
            if (v[j] == 0) at[j]++;
    }
    for (int j = 0; j < 4; j++) CT_T_REPORT(at[j] > 8 && at[j] < 42, "randperm: 0 at place %d %lld times of 100", j, (long long)at[j]);
    /* the front's checks, as on the CPU */
    CHECK_SAME_ERR(ct_randperm_on(GPU, 300, CT_INT8, NULL), ct_randperm(300, CT_INT8, NULL));
    CHECK_SAME_ERR(ct_randperm_on(GPU, 3, CT_BOOL, NULL), ct_randperm(3, CT_BOOL, NULL));
}

/* ---- multinomial on the device: with and without replacement ---- */
static void counts_of(const ct_tensor *d, int64_t ncat, int64_t *cnt) {
    ct_tensor *h = ct_contiguous(ct_to_device(d, ct_cpu()));
    for (int64_t j = 0; j < ncat; j++) cnt[j] = 0;
    if (!h) return;
    const int64_t *v = (const int64_t *)ct_data_ptr(h);
    for (int64_t i = 0; i < ct_numel(h); i++)
        if (v[i] >= 0 && v[i] < ncat) cnt[v[i]]++;
}
TEST(test_multinomial) {
    for (int di = 0; di < 4; di++) {
        ct_dtype dt = FLOATS[di];
        const double wv[8] = {1, 2, 3, 4, 0, 0, 5, 5};
        ct_tensor *w = dev(ct_to(ct_tensor_f64(wv, 2, 4), dt));
        /* with replacement: frequencies within 0.04 of p */
        ct_tensor *s = ct_multinomial(w, 2000, 1, NULL);
        CT_T_REPORT(s && s->device.type == CT_CUDA && s->dtype == CT_INT64 && s->ndim == 2 && s->shape[0] == 2 && s->shape[1] == 2000,
                    "multinomial (%s): %s", ct_dtype_name(dt), ct_last_error());
        int64_t cnt[4];
        counts_of(ct_select(s, 0, 0), 4, cnt);
        for (int j = 0; j < 4; j++)
            CT_T_REPORT(fabs(cnt[j] / 2000.0 - (j + 1) / 10.0) < 0.04, "multinomial (%s) row 0: %lld draws of %d", ct_dtype_name(dt), (long long)cnt[j], j);
        counts_of(ct_select(s, 0, 1), 4, cnt);
        CHECK(cnt[0] == 0 && cnt[1] == 0 && labs((long)(cnt[2] - cnt[3])) < 200);
        /* without replacement: distinct, zero weights never drawn while others remain */
        ct_tensor *u = ct_multinomial(ct_select(w, 0, 0), 4, 0, NULL);
        CT_T_REPORT(u && is_perm(u, 4), "multinomial without replacement (%s): %s", ct_dtype_name(dt), u ? "not distinct" : ct_last_error());
        ct_tensor *u1 = ct_to_device(ct_multinomial(w, 2, 0, NULL), ct_cpu());
        CHECK(u1 && ct_numel(u1) == 4);
        if (u1) {
            const int64_t *v = (const int64_t *)ct_data_ptr(ct_contiguous(u1));
            CHECK(v[0] != v[1] && v[2] != v[3] && v[2] >= 2 && v[3] >= 2);
        }
    }
    /* without replacement, the first draw: weights 1 : 3 over 400 rows (a transposed, column-major input) */
    ct_tensor *cols[2];
    cols[0] = ct_full(CT_FLOAT32, 1.0, 400);
    cols[1] = ct_full(CT_FLOAT32, 3.0, 400);
    ct_tensor *w2 = dev(ct_contiguous(ct_transpose(ct_stack(2, cols, 0), 0, 1)));
    ct_tensor *wt = ct_transpose(dev(ct_stack(2, cols, 0)), 0, 1);
    int64_t c2[2];
    counts_of(ct_multinomial(w2, 1, 0, NULL), 2, c2);
    CT_T_REPORT(fabs(c2[1] / 400.0 - 0.75) < 0.1, "multinomial without replacement: %lld of 400 draws of the weight 3", (long long)c2[1]);
    counts_of(ct_multinomial(wt, 1, 0, NULL), 2, c2);
    CT_T_REPORT(fabs(c2[1] / 400.0 - 0.75) < 0.1, "multinomial without replacement (transposed): %lld of 400", (long long)c2[1]);
    /* the same seed, the same draws */
    const float w3v[5] = {0.5f, 1, 2, 0.25f, 3};
    ct_tensor *w3 = dev(ct_tensor_f32(w3v, 5));
    ct_manual_seed(9);
    ct_tensor *r1 = ct_to_device(ct_multinomial(w3, 50, 1, NULL), ct_cpu()), *q1 = ct_to_device(ct_multinomial(w3, 5, 0, NULL), ct_cpu());
    ct_manual_seed(9);
    ct_tensor *r2 = ct_to_device(ct_multinomial(w3, 50, 1, NULL), ct_cpu()), *q2 = ct_to_device(ct_multinomial(w3, 5, 0, NULL), ct_cpu());
    CHECK(r1 && r2 && q1 && q2 && ct_equal(r1, r2) && ct_equal(q1, q2));
    /* invalid weights: the CPU's errors */
    const double bads[4][3] = {{1, -1, 2}, {1, NAN, 2}, {1, INFINITY, 2}, {0, 0, 0}};
    for (int k = 0; k < 4; k++) {
        ct_tensor *b = ct_tensor_f64(bads[k], 3), *rows[2];
        rows[0] = ct_ones(CT_FLOAT64, 3);
        rows[1] = b;
        ct_tensor *b2 = ct_stack(2, rows, 0);
        CHECK_SAME_ERR(ct_multinomial(dev(b), 2, 1, NULL), ct_multinomial(b, 2, 1, NULL));
        CHECK_SAME_ERR(ct_multinomial(dev(b2), 2, 0, NULL), ct_multinomial(b2, 2, 0, NULL));
    }
    ct_tensor *ok3 = ct_ones(CT_FLOAT32, 3);
    CHECK_SAME_ERR(ct_multinomial(dev(ok3), 4, 0, NULL), ct_multinomial(ok3, 4, 0, NULL));
}
