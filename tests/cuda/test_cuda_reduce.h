/* tests/cuda/test_cuda_reduce.h - part of tests/cuda/test_cuda.c (included by it):
   all / any / count_nonzero, norm, logsumexp and mode on the device against
   ctensor's CPU path, with gradients and errors. */

TEST(test_logic_reductions) {
    const int64_t d1[1] = {1}, d02[2] = {0, 2}, d5[1] = {5};
    const ct_dtype dts[5] = {CT_FLOAT32, CT_FLOAT16, CT_INT32, CT_BOOL, CT_UINT8};
    for (int i = 0; i < 5; i++) {
        ct_dtype dt = dts[i];
        /* about a third zeros; a NaN counts as true */
        ct_tensor *x = CT__ISFLOAT(dt) ? ct_to(ct_mul(ct_randint(0, 2, CT_FLOAT64, 6, 35, 9), ct_randn(CT_FLOAT64, 6, 35, 9)), dt)
                                       : idata(dt, 0, dt == CT_BOOL ? 2 : 3, CT_DIMS(6, 35, 9));
        if (CT__ISFLOAT(dt)) {
            const int64_t r0[2] = {0, 3}, r1[2] = {7, 2};   /* x[0, 7] and x[3, 2] */
            ct_tensor *ix[2] = {ct_tensor_i64(r0, 2), ct_tensor_i64(r1, 2)};
            x = ct_index_put_(x, 2, ix, ct_scalar_tensor(NAN, dt), 0);
        }
        ct_tensor *xd = dev(x);
        CHECK_SAME(ct_all(xd), ct_all(x), 0.0, 0.0);
        CHECK_SAME(ct_any(xd), ct_any(x), 0.0, 0.0);
        for (int dim = 0; dim < 3; dim++) {
            CHECK_SAME(ct_all_dim(xd, dim, dim == 1), ct_all_dim(x, dim, dim == 1), 0.0, 0.0);
            CHECK_SAME(ct_any_dim(xd, dim, dim == 2), ct_any_dim(x, dim, dim == 2), 0.0, 0.0);
        }
        CHECK_SAME(ct_count_nonzero(xd, 0, NULL), ct_count_nonzero(x, 0, NULL), 0.0, 0.0);
        CHECK_SAME(ct_count_nonzero(xd, 1, d1), ct_count_nonzero(x, 1, d1), 0.0, 0.0);
        CHECK_SAME(ct_count_nonzero(xd, 2, d02), ct_count_nonzero(x, 2, d02), 0.0, 0.0);
        /* a permuted view: strided reduced dims */
        ct_tensor *xt = ct_transpose(x, 0, 2), *xdt = ct_transpose(xd, 0, 2);
        CHECK_SAME(ct_all_dim(xdt, 1, 0), ct_all_dim(xt, 1, 0), 0.0, 0.0);
        CHECK_SAME(ct_count_nonzero(xdt, 1, d1), ct_count_nonzero(xt, 1, d1), 0.0, 0.0);
    }
    /* long rows (a block per output, split K) and all-true rows */
    ct_tensor *big = ct_ones(CT_FLOAT32, 3, 20000);
    CHECK_SAME(ct_all_dim(dev(big), 1, 0), ct_all_dim(big, 1, 0), 0.0, 0.0);
    ct_tensor *huge = ct_to(ct_randint(0, 2, CT_INT64, 1 << 20), CT_BOOL);
    CHECK_SAME(ct_count_nonzero(dev(huge), 0, NULL), ct_count_nonzero(huge, 0, NULL), 0.0, 0.0);
    CHECK_SAME(ct_all(dev(huge)), ct_all(huge), 0.0, 0.0);
    /* empty: all is true, any false, count 0 */
    ct_tensor *e = ct_zeros(CT_FLOAT32, 3, 0);
    CHECK_SAME(ct_all_dim(dev(e), 1, 0), ct_all_dim(e, 1, 0), 0.0, 0.0);
    CHECK_SAME(ct_any_dim(dev(e), 1, 0), ct_any_dim(e, 1, 0), 0.0, 0.0);
    CHECK_SAME(ct_count_nonzero(dev(e), 0, NULL), ct_count_nonzero(e, 0, NULL), 0.0, 0.0);
    /* errors: the CPU's */
    ct_tensor *x = ct_ones(CT_FLOAT32, 2, 3);
    CHECK_SAME_ERR(ct_all_dim(dev(x), 2, 0), ct_all_dim(x, 2, 0));
    CHECK_SAME_ERR(ct_count_nonzero(dev(x), 1, d5), ct_count_nonzero(x, 1, d5));
}

TEST(test_norm_logsumexp) {
    const int64_t d1[1] = {1}, d02[2] = {0, 2}, dm1[1] = {-1}, d3[1] = {3}, dm3[1] = {-3};
    const double ps[7] = {2.0, 1.0, 0.0, INFINITY, -INFINITY, 3.0, 0.5};
    for (int i = 0; i < 4; i++) {
        ct_dtype dt = FLOATS[i];
        double r = rtol_of(dt) * 8, a = atol_of(dt) * 8;
        ct_tensor *x = data(dt, 0, CT_DIMS(6, 35, 9));
        ct_tensor *xd = dev(x);
        for (int k = 0; k < 7; k++) {
            char label[96];
            snprintf(label, sizeof label, "norm p=%g %s", ps[k], ct_dtype_name(dt));
            CHECK_SAME_AT(label, ct_norm(xd, ps[k], 0, NULL, 0), ct_norm(x, ps[k], 0, NULL, 0), r, a * 10);
            CHECK_SAME_AT(label, ct_norm(xd, ps[k], 1, d1, 1), ct_norm(x, ps[k], 1, d1, 1), r, a);
            CHECK_SAME_AT(label, ct_norm(xd, ps[k], 2, d02, 0), ct_norm(x, ps[k], 2, d02, 0), r, a);
        }
        CHECK_SAME(ct_logsumexp(xd, 1, d1, 0), ct_logsumexp(x, 1, d1, 0), r, a);
        CHECK_SAME(ct_logsumexp(xd, 2, d02, 1), ct_logsumexp(x, 2, d02, 1), r, a);
        CHECK_SAME(ct_logsumexp(xd, 1, dm1, 0), ct_logsumexp(x, 1, dm1, 0), r, a);
        CHECK_SAME(ct_logsumexp(ct_transpose(xd, 0, 1), 1, d1, 0), ct_logsumexp(ct_transpose(x, 0, 1), 1, d1, 0), r, a);
    }
    /* infinities and NaN: an infinite max is taken as 0; NaN propagates */
    double tv[12] = {INFINITY, 1, 2, -INFINITY, -INFINITY, -INFINITY, NAN, 0, 1, 1000, 999, -5};
    ct_tensor *t = ct_reshape(ct_tensor_f64(tv, 12), 4, 3);
    CHECK_SAME(ct_logsumexp(dev(t), 1, d1, 0), ct_logsumexp(t, 1, d1, 0), 1e-12, 1e-12);
    CHECK_SAME(ct_norm(dev(t), INFINITY, 1, d1, 0), ct_norm(t, INFINITY, 1, d1, 0), 0.0, 0.0);
    CHECK_SAME(ct_norm(dev(t), -INFINITY, 1, d1, 0), ct_norm(t, -INFINITY, 1, d1, 0), 0.0, 0.0);
    /* integers: logsumexp in the default float dtype */
    ct_tensor *xi = idata(CT_INT32, -5, 5, CT_DIMS(4, 50));
    CHECK_SAME(ct_logsumexp(dev(xi), 1, d1, 0), ct_logsumexp(xi, 1, d1, 0), 2e-5, 1e-5);
    /* a long row (a block per output) and nothing to reduce */
    ct_tensor *big = data(CT_FLOAT64, 0, CT_DIMS(2, 10000));
    CHECK_SAME(ct_norm(dev(big), 2.0, 1, d1, 0), ct_norm(big, 2.0, 1, d1, 0), 1e-11, 1e-11);
    CHECK_SAME(ct_logsumexp(dev(big), 1, d1, 0), ct_logsumexp(big, 1, d1, 0), 1e-11, 1e-11);
    /* long vectors: the K range split across blocks, partial results combined */
    ct_tensor *vec = data(CT_FLOAT64, 0, CT_DIMS(1 << 18)), *vec32 = ct_to(vec, CT_FLOAT32);
    for (int k = 0; k < 7; k++) {
        CHECK_SAME_AT("split norm", ct_norm(dev(vec), ps[k], 0, NULL, 0), ct_norm(vec, ps[k], 0, NULL, 0), 1e-10, 1e-10);
        CHECK_SAME_AT("split norm f32", ct_norm(dev(vec32), ps[k], 0, NULL, 0), ct_norm(vec32, ps[k], 0, NULL, 0), 1e-4, 1e-4);
    }
    ct_tensor *vnan = ct_clone(vec);
    ((double *)ct_data_ptr(vnan))[200000] = NAN;
    CHECK_SAME(ct_norm(dev(vnan), INFINITY, 0, NULL, 0), ct_norm(vnan, INFINITY, 0, NULL, 0), 0.0, 0.0);
    CHECK_SAME(ct_norm(dev(vnan), -INFINITY, 0, NULL, 0), ct_norm(vnan, -INFINITY, 0, NULL, 0), 0.0, 0.0);
    CHECK_SAME(ct_logsumexp(dev(vec), 0, NULL, 0), ct_logsumexp(vec, 0, NULL, 0), 1e-10, 1e-10);
    ct_tensor *e = ct_zeros(CT_FLOAT32, 3, 0);
    CHECK_SAME(ct_norm(dev(e), -INFINITY, 1, d1, 0), ct_norm(e, -INFINITY, 1, d1, 0), 0.0, 0.0);
    CHECK_SAME(ct_logsumexp(dev(e), 1, d1, 0), ct_logsumexp(e, 1, d1, 0), 0.0, 0.0);
    /* gradients on the device (the backward rules are core ops) */
    ct_tensor *x0 = data(CT_FLOAT64, 0, CT_DIMS(5, 7));
    for (int k = 0; k < 4; k++) {
        double p = k == 0 ? 2.0 : k == 1 ? 1.0 : k == 2 ? 3.0 : INFINITY;
        ct_tensor *xc = leaf(x0, 0), *xg = leaf(x0, 1);
        CHECK(ct_backward(ct_sum(ct_norm(xc, p, 1, d1, 0))) == CT_OK);
        CHECK(ct_backward(ct_sum(ct_norm(xg, p, 1, d1, 0))) == CT_OK);
        CHECK_SAME(ct_grad(xg), ct_grad(xc), 1e-10, 1e-12);
    }
    ct_tensor *xc = leaf(x0, 0), *xg = leaf(x0, 1);
    CHECK(ct_backward(ct_sum(ct_logsumexp(xc, 1, d1, 0))) == CT_OK);
    CHECK(ct_backward(ct_sum(ct_logsumexp(xg, 1, d1, 0))) == CT_OK);
    CHECK_SAME(ct_grad(xg), ct_grad(xc), 1e-10, 1e-12);
    /* errors: the CPU's */
    ct_tensor *xf = ct_ones(CT_FLOAT32, 2, 3);
    ct_tensor *xl = ct_ones(CT_INT64, 2, 3);
    CHECK_SAME_ERR(ct_norm(dev(xl), 2.0, 0, NULL, 0), ct_norm(xl, 2.0, 0, NULL, 0));
    CHECK_SAME_ERR(ct_norm(dev(xf), 2.0, 1, d3, 0), ct_norm(xf, 2.0, 1, d3, 0));
    CHECK_SAME_ERR(ct_logsumexp(dev(xf), 1, dm3, 0), ct_logsumexp(xf, 1, dm3, 0));
}

TEST(test_mode) {
    const ct_dtype dts[5] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_INT32, CT_BOOL};
    for (int i = 0; i < 5; i++) {
        ct_dtype dt = dts[i];
        /* few distinct values: long runs and ties between them */
        ct_tensor *x = dt == CT_BOOL ? idata(dt, 0, 2, CT_DIMS(5, 13, 6)) : ct_to(ct_randint(-3, 4, CT_FLOAT64, 5, 13, 6), dt);
        ct_tensor *xd = dev(x);
        for (int dim = -1; dim < 3; dim++) {
            ct_tensor *ic = NULL, *ig = NULL;
            ct_tensor *vc = ct_mode(x, dim, dim == 1, &ic), *vg = ct_mode(xd, dim, dim == 1, &ig);
            CHECK_SAME(vg, vc, 0.0, 0.0);
            CHECK_SAME(ig, ic, 0.0, 0.0);
        }
        ct_tensor *ic = NULL, *ig = NULL;   /* a transposed view */
        CHECK_SAME(ct_mode(ct_transpose(xd, 0, 2), 1, 0, &ig), ct_mode(ct_transpose(x, 0, 2), 1, 0, &ic), 0.0, 0.0);
        CHECK_SAME(ig, ic, 0.0, 0.0);
    }
    /* NaNs are runs of one; a long row sorts in global memory */
    double tv[8] = {NAN, 2, NAN, 2, 1, 1, 3, NAN};
    ct_tensor *t = ct_tensor_f64(tv, 8), *ic = NULL, *ig = NULL;
    CHECK_SAME(ct_mode(dev(t), 0, 0, &ig), ct_mode(t, 0, 0, &ic), 0.0, 0.0);
    CHECK_SAME(ig, ic, 0.0, 0.0);
    ct_tensor *lng = ct_randint(0, 50, CT_INT64, 2, 3000);
    CHECK_SAME(ct_mode(dev(lng), 1, 0, &ig), ct_mode(lng, 1, 0, &ic), 0.0, 0.0);
    CHECK_SAME(ig, ic, 0.0, 0.0);
    /* 0-d */
    ct_tensor *s = ct_scalar_tensor(4.0, CT_FLOAT32);
    CHECK_SAME(ct_mode(dev(s), 0, 0, &ig), ct_mode(s, 0, 0, &ic), 0.0, 0.0);
    CHECK_SAME(ig, ic, 0.0, 0.0);
    /* the gradient goes to the mode's index */
    ct_tensor *x0 = ct_randint(0, 3, CT_FLOAT64, 4, 9);
    ct_tensor *xc = leaf(x0, 0), *xg = leaf(x0, 1);
    CHECK(ct_backward(ct_sum(ct_mode(xc, 1, 0, NULL))) == CT_OK);
    CHECK(ct_backward(ct_sum(ct_mode(xg, 1, 0, NULL))) == CT_OK);
    CHECK_SAME(ct_grad(xg), ct_grad(xc), 0.0, 0.0);
    /* errors: the CPU's */
    ct_tensor *e = ct_zeros(CT_FLOAT32, 3, 0);
    CHECK_SAME_ERR(ct_mode(dev(e), 1, 0, NULL), ct_mode(e, 1, 0, NULL));
    CHECK_SAME_ERR(ct_mode(dev(x0), 2, 0, NULL), ct_mode(x0, 2, 0, NULL));
}

/* every op of the table that this program has (ctensor.h's and ctensor_nn.h's)
   has a CUDA kernel, except views (their metadata kernel serves every backend)
   and the ops listed here with the reason */
TEST(test_kernel_coverage) {
    static const char *const exempt[] = {
        /* complex tensors are CPU-only so far (issue 18 built them on the CPU; the
           CUDA header has no complex kernels yet) */
        "aten::conj_physical", "aten::complex", "aten::polar", "aten::resolve_conj",
        /* ctensor_linalg.h's helper op for complex products: no complex kernels on the device */
        "ct::linalg_prod_others",
    };
    int missing = 0;
    for (int op = 0; op < ct_num_ops(); op++) {
        if (ct_op_flags(op) & CT_OP_VIEW) continue;
        const char *name = ct_op_schema_name(op);
        int ex = 0;
        for (size_t k = 0; k < sizeof exempt / sizeof exempt[0]; k++) ex |= strcmp(name, exempt[k]) == 0;
        /* ctensor_quant.h's ops: quantized tensors run on the QuantizedCUDA backend
           (quantized::linear / linear_relu, checked there below); the rest are CPU-only */
        if (ct__q_base >= 0 && op >= ct__q_base && op < ct__q_base + CT__Q_NUM_OPS) continue;
        if (ex || ct__kernels[CT_BACKEND_CUDA][op]) continue;
        printf("  no CUDA kernel: %s\n", name);
        missing++;
    }
    CHECK_EQ_INT(missing, 0);
    CHECK(ct_num_ops() > 200);
    CHECK(ct__kernels[CT_BACKEND_QUANTIZED_CUDA][ct__q_base + CT__Q_Q_LINEAR] != NULL);
    CHECK(ct__kernels[CT_BACKEND_QUANTIZED_CUDA][ct__q_base + CT__Q_Q_LINEAR_RELU] != NULL);
    CHECK(ct__kernels[CT_BACKEND_QUANTIZED_CUDA][CT__OP_TO] != NULL);
}
