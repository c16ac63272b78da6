/* tests/cuda/test_cuda_linalg.h - part of tests/cuda/test_cuda.c (included by it):
   ctensor_linalg.h's ops with cuSOLVER / cuBLAS kernels (cholesky, inv, solve,
   lu_factor, lu_solve, det, slogdet, eigh, qr, svd, solve_triangular,
   cholesky_solve, cholesky_inverse, householder_product, lstsq, eig, and
   pinv, matrix_exp, cross, vander composed of device ops) against
   the CPU path on the same inputs: values, the _ex infos, the errors of the
   checked functions (the same messages), and gradients (the CPU's backward
   rules, which are ctensor ops, run on the device). float32 and float64, one
   matrix, batches (potrfBatched), broadcasting, non-contiguous inputs; small
   matrices (the CPU's hand-written n <= 16 kernels) and n > 16 (LAPACK).
   Factors with a sign freedom (eigenvectors, Q, singular vectors) are compared
   up to the signs of their columns (rows of Vh), and by reconstruction. */

/* symmetric positive-definite: X X^T + n I */
static ct_tensor *la_spd(ct_dtype dt, int nb, const int64_t *bs, int64_t n) {
    int64_t sh[8];
    for (int d = 0; d < nb; d++) sh[d] = bs[d];
    sh[nb] = n;
    sh[nb + 1] = n;
    ct_tensor *x = ct_randn_n(CT_FLOAT64, nb + 2, sh);
    return ct_to(ct_add(ct_matmul(x, ct_mT(x)), ct_mul_scalar(ct_eye(n, n, CT_FLOAT64), (double)n)), dt);
}
/* general: randn + 2 I (well conditioned) */
static ct_tensor *la_gen(ct_dtype dt, int nb, const int64_t *bs, int64_t m, int64_t n) {
    int64_t sh[8];
    for (int d = 0; d < nb; d++) sh[d] = bs[d];
    sh[nb] = m;
    sh[nb + 1] = n;
    return ct_to(ct_add(ct_randn_n(CT_FLOAT64, nb + 2, sh), ct_mul_scalar(ct_eye(m, n, CT_FLOAT64), 2.0)), dt);
}
static double la_rtol(ct_dtype dt) { return dt == CT_FLOAT64 ? 1e-9 : 2e-4; }
static double la_atol(ct_dtype dt) { return dt == CT_FLOAT64 ? 1e-10 : 2e-4; }
/* the columns of t (... x r x c) multiplied by the sign of their largest-magnitude
   element (rows when rows != 0): a sign-free form of factors */
static ct_tensor *la_signfix(ct_tensor *t, int rows) {
    if (!t) return NULL;
    ct_tensor *h = ct_to_device(t, ct_cpu());
    if (rows) h = ct_mT(h);
    ct_tensor *idx = ct_argmax_dim(ct_abs(h), -2, 1);
    ct_tensor *s = ct_sign(ct_gather(h, -2, idx));
    ct_tensor *r = ct_mul(h, s);
    return rows ? ct_mT(r) : r;
}
#define LA_SAME(label, d, c, dt) CHECK_SAME_AT(label, (d), (c), la_rtol(dt), la_atol(dt))
/* the device error's message equals the CPU's */
#define LA_SAME_ERR(label, dexpr, cexpr)                                                             \
    do {                                                                                             \
        char cm_[512];                                                                               \
        ct_tensor *c_ = (cexpr);                                                                     \
        snprintf(cm_, sizeof cm_, "%.500s", ct_last_error());                                        \
        int cc_ = ct_last_error_code();                                                              \
        ct_clear_error();                                                                            \
        ct_tensor *d_ = (dexpr);                                                                     \
        CT_T_REPORT(!c_ && !d_ && cc_ == ct_last_error_code() && strcmp(cm_, ct_last_error()) == 0, \
                    "%s: device error '%s', CPU error '%s'", (label), ct_last_error(), cm_);         \
        ct_clear_error();                                                                            \
    } while (0)

TEST(test_la_cholesky) {
    const ct_dtype dts[2] = {CT_FLOAT32, CT_FLOAT64};
    for (int di = 0; di < 2; di++) {
        ct_dtype dt = dts[di];
        const int64_t ns[3] = {5, 20, 1};
        for (int ci = 0; ci < 3; ci++) {
            for (int up = 0; up < 2; up++) {
                char label[96];
                snprintf(label, sizeof label, "cholesky %s n=%lld upper=%d", ct_dtype_name(dt), (long long)ns[ci], up);
                int64_t bs[2] = {2, 3};
                ct_tensor *A = la_spd(dt, ci == 2 ? 0 : 2, bs, ns[ci]);   /* batched: potrfBatched */
                ct_tensor *ic = NULL, *id = NULL;
                ct_tensor *Lc = ct_linalg_cholesky_ex(A, up, 0, &ic), *Ld = ct_linalg_cholesky_ex(dev(A), up, 0, &id);
                LA_SAME(label, Ld, Lc, dt);
                CHECK_SAME_AT(label, id, ic, 0, 0);
            }
        }
        /* a transposed (non-contiguous) input, one matrix: potrf */
        ct_tensor *A = ct_mT(la_spd(dt, 0, NULL, 24));
        LA_SAME("cholesky transposed", ct_linalg_cholesky(dev(A)), ct_linalg_cholesky(A), dt);
        /* not positive-definite: infos, and the checked function's message */
        int64_t bs[1] = {4};
        ct_tensor *B = la_spd(dt, 1, bs, 18);
        CHECK(ct_copy_(ct_select(ct_select(ct_select(B, 0, 2), 0, 3), 0, 3), ct_scalar_tensor(-100.0, dt)) != NULL);
        ct_tensor *ic = NULL, *id = NULL;
        ct_linalg_cholesky_ex(B, 0, 0, &ic);
        ct_linalg_cholesky_ex(dev(B), 0, 0, &id);
        CHECK_SAME_AT("cholesky_ex info", id, ic, 0, 0);
        LA_SAME_ERR("cholesky not positive-definite", ct_linalg_cholesky(dev(B)), ct_linalg_cholesky(B));
        LA_SAME_ERR("cholesky_ex check_errors", ct_linalg_cholesky_ex(dev(B), 1, 1, NULL), ct_linalg_cholesky_ex(B, 1, 1, NULL));
    }
}

TEST(test_la_lu_family) {
    const ct_dtype dts[2] = {CT_FLOAT32, CT_FLOAT64};
    for (int di = 0; di < 2; di++) {
        ct_dtype dt = dts[di];
        const int64_t ns[2] = {6, 19};
        for (int ci = 0; ci < 2; ci++) {
            int64_t n = ns[ci], bs[2] = {3, 1}, bs2[1] = {4};
            char label[96];
            ct_tensor *A = la_gen(dt, 1, bs, n, n), *Ab = la_gen(dt, 2, bs, n, n);
            snprintf(label, sizeof label, "inv %s n=%lld", ct_dtype_name(dt), (long long)n);
            ct_tensor *ic = NULL, *id = NULL;
            LA_SAME(label, ct_linalg_inv_ex(dev(A), 0, &id), ct_linalg_inv_ex(A, 0, &ic), dt);
            CHECK_SAME_AT(label, id, ic, 0, 0);
            /* solve: a matrix right-hand side broadcast over the batch, a vector one, a transposed A, left = 0 */
            ct_tensor *Bm = ct_to(ct_randn(CT_FLOAT64, 1, 4, n, 3), dt), *bv = ct_to(ct_randn(CT_FLOAT64, n), dt);
            snprintf(label, sizeof label, "solve %s n=%lld", ct_dtype_name(dt), (long long)n);
            LA_SAME(label, ct_linalg_solve(dev(Ab), dev(Bm)), ct_linalg_solve(Ab, Bm), dt);
            LA_SAME(label, ct_linalg_solve(dev(A), dev(bv)), ct_linalg_solve(A, bv), dt);
            LA_SAME(label, ct_linalg_solve(dev(ct_mT(A)), dev(bv)), ct_linalg_solve(ct_mT(A), bv), dt);
            ct_tensor *A1 = ct_select(A, 0, 1);   /* one matrix: getrf + getrs (no batched call) */
            LA_SAME(label, ct_linalg_solve(dev(A1), dev(ct_select(ct_select(Bm, 0, 0), 0, 1))), ct_linalg_solve(A1, ct_select(ct_select(Bm, 0, 0), 0, 1)), dt);
            LA_SAME(label, ct_linalg_inv(dev(A1)), ct_linalg_inv(A1), dt);
            LA_SAME(label, ct_linalg_det(dev(A1)), ct_linalg_det(A1), dt);
            ct_tensor *Br = ct_to(ct_randn(CT_FLOAT64, 3, 2, n), dt);
            LA_SAME(label, ct_linalg_solve_ex(dev(A), dev(Br), 0, 0, &id), ct_linalg_solve_ex(A, Br, 0, 0, &ic), dt);
            CHECK_SAME_AT(label, id, ic, 0, 0);
            /* det, slogdet */
            snprintf(label, sizeof label, "det %s n=%lld", ct_dtype_name(dt), (long long)n);
            ct_tensor *As = ct_mul_scalar(Ab, 0.7);
            LA_SAME(label, ct_linalg_det(dev(As)), ct_linalg_det(As), dt);
            ct_linalg_slogdet_result sc = ct_linalg_slogdet(As), sd = ct_linalg_slogdet(dev(As));
            LA_SAME(label, sd.sign, sc.sign, dt);
            LA_SAME(label, sd.logabsdet, sc.logabsdet, dt);
            /* lu_factor (square, tall, wide), lu_solve (left / right, adjoint) */
            snprintf(label, sizeof label, "lu_factor %s n=%lld", ct_dtype_name(dt), (long long)n);
            for (int shp = 0; shp < 3; shp++) {
                ct_tensor *M = shp == 0 ? A : shp == 1 ? la_gen(dt, 1, bs2, n + 3, n) : la_gen(dt, 1, bs2, n, n + 2);
                ct_linalg_lu_factor_result fc = ct_linalg_lu_factor_ex(M, 1, 0), fd = ct_linalg_lu_factor_ex(dev(M), 1, 0);
                LA_SAME(label, fd.LU, fc.LU, dt);
                CHECK_SAME_AT(label, fd.pivots, fc.pivots, 0, 0);
                CHECK_SAME_AT(label, fd.info, fc.info, 0, 0);
            }
            ct_linalg_lu_factor_result fc = ct_linalg_lu_factor(Ab, 1), fd = ct_linalg_lu_factor(dev(Ab), 1);
            snprintf(label, sizeof label, "lu_solve %s n=%lld", ct_dtype_name(dt), (long long)n);
            for (int mode = 0; mode < 4; mode++) {
                int left = mode & 1, adj = mode >> 1;
                ct_tensor *Bs = left ? ct_to(ct_randn(CT_FLOAT64, n, 2), dt) : ct_to(ct_randn(CT_FLOAT64, 3, 1, 5, n), dt);
                LA_SAME(label, ct_linalg_lu_solve(fd.LU, fd.pivots, dev(Bs), left, adj), ct_linalg_lu_solve(fc.LU, fc.pivots, Bs, left, adj), dt);
            }
        }
        /* singular matrices: infos, the checked functions' messages, det 0 */
        int64_t bs[1] = {3};
        ct_tensor *S = la_gen(dt, 1, bs, 5, 5);
        CHECK(ct_copy_(ct_select(S, 0, 1), ct_zeros(dt, 5, 5)) != NULL);
        ct_tensor *ic = NULL, *id = NULL;
        ct_linalg_inv_ex(S, 0, &ic);
        ct_linalg_inv_ex(dev(S), 0, &id);
        CHECK_SAME_AT("inv_ex singular info", id, ic, 0, 0);
        LA_SAME_ERR("inv singular", ct_linalg_inv(dev(S)), ct_linalg_inv(S));
        LA_SAME_ERR("solve singular", ct_linalg_solve(dev(S), dev(ct_ones(dt, 5))), ct_linalg_solve(S, ct_ones(dt, 5)));
        LA_SAME_ERR("lu_factor singular", ct_linalg_lu_factor(dev(S), 1).LU, ct_linalg_lu_factor(S, 1).LU);
        LA_SAME("det singular", ct_linalg_det(dev(S)), ct_linalg_det(S), dt);
        ct_linalg_slogdet_result sc = ct_linalg_slogdet(S), sd = ct_linalg_slogdet(dev(S));
        LA_SAME("slogdet singular", sd.sign, sc.sign, dt);
        LA_SAME("slogdet singular", sd.logabsdet, sc.logabsdet, dt);
        /* solve_triangular: upper / lower, left / right, unit, broadcasting */
        int64_t bt[2] = {2, 1};
        ct_tensor *T = la_gen(dt, 2, bt, 7, 7), *Bt = ct_to(ct_randn(CT_FLOAT64, 3, 7, 4), dt), *Br = ct_to(ct_randn(CT_FLOAT64, 4, 7), dt);
        for (int mode = 0; mode < 8; mode++) {
            int upper = mode & 1, left = (mode >> 1) & 1, unit = mode >> 2;
            char label[96];
            snprintf(label, sizeof label, "solve_triangular %s upper=%d left=%d unit=%d", ct_dtype_name(dt), upper, left, unit);
            ct_tensor *Bx = left ? Bt : Br;
            LA_SAME(label, ct_linalg_solve_triangular(dev(T), dev(Bx), upper, left, unit), ct_linalg_solve_triangular(T, Bx, upper, left, unit), dt);
        }
    }
}

TEST(test_la_decompositions) {
    const ct_dtype dts[2] = {CT_FLOAT32, CT_FLOAT64};
    for (int di = 0; di < 2; di++) {
        ct_dtype dt = dts[di];
        const int64_t ns[2] = {6, 18};
        for (int ci = 0; ci < 2; ci++) {
            int64_t n = ns[ci], bs[1] = {3};
            char label[96];
            /* eigh, eigvalsh: both triangles */
            ct_tensor *X = la_gen(dt, 1, bs, n, n), *A = ct_add(X, ct_mT(X));
            for (int up = 0; up < 2; up++) {
                snprintf(label, sizeof label, "eigh %s n=%lld %s", ct_dtype_name(dt), (long long)n, up ? "U" : "L");
                ct_tensor *Ah = ct_add(A, ct_mul_scalar(ct_triu(X, 1), up ? 0.0 : 5.0));   /* the other triangle is not read */
                ct_linalg_eig_result ec = ct_linalg_eigh(Ah, up ? "U" : "L"), ed = ct_linalg_eigh(dev(Ah), up ? "U" : "L");
                LA_SAME(label, ed.eigenvalues, ec.eigenvalues, dt);
                CHECK_SAME_AT(label, dev(la_signfix(ed.eigenvectors, 0)), la_signfix(ec.eigenvectors, 0), la_rtol(dt) * 10, la_atol(dt) * 10);
                LA_SAME(label, ct_linalg_eigvalsh(dev(Ah), up ? "U" : "L"), ct_linalg_eigvalsh(Ah, up ? "U" : "L"), dt);
            }
            /* qr: tall, wide; reduced, complete, r */
            const char *modes[3] = {"reduced", "complete", "r"};
            for (int shp = 0; shp < 2; shp++)
                for (int mi = 0; mi < 3; mi++) {
                    snprintf(label, sizeof label, "qr %s %s %s n=%lld", ct_dtype_name(dt), shp ? "wide" : "tall", modes[mi], (long long)n);
                    ct_tensor *M = shp ? la_gen(dt, 1, bs, n - 2, n) : la_gen(dt, 1, bs, n + 3, n);
                    ct_linalg_qr_result qc = ct_linalg_qr(M, modes[mi]), qd = ct_linalg_qr(dev(M), modes[mi]);
                    CHECK_SAME_AT(label, dev(la_signfix(qd.R, 1)), la_signfix(qc.R, 1), la_rtol(dt) * 10, la_atol(dt) * 10);
                    if (mi == 2) {
                        CHECK(qd.Q && ct_numel(qd.Q) == 0);
                        continue;
                    }
                    CHECK_SAME_AT(label, dev(la_signfix(qd.Q, 0)), la_signfix(qc.Q, 0), la_rtol(dt) * 10, la_atol(dt) * 10);
                    LA_SAME(label, ct_matmul(qd.Q, qd.R), M, dt);
                }
            /* svd: tall, wide; full_matrices; svdvals */
            for (int shp = 0; shp < 2; shp++)
                for (int full = 0; full < 2; full++) {
                    snprintf(label, sizeof label, "svd %s %s full=%d n=%lld", ct_dtype_name(dt), shp ? "wide" : "tall", full, (long long)n);
                    ct_tensor *M = shp ? la_gen(dt, 1, bs, n - 2, n) : la_gen(dt, 1, bs, n + 3, n);
                    ct_linalg_svd_result sc = ct_linalg_svd(M, full), sd = ct_linalg_svd(dev(M), full);
                    LA_SAME(label, sd.S, sc.S, dt);
                    if (!full) {
                        CHECK_SAME_AT(label, dev(la_signfix(sd.U, 0)), la_signfix(sc.U, 0), la_rtol(dt) * 10, la_atol(dt) * 10);
                        CHECK_SAME_AT(label, dev(la_signfix(sd.Vh, 1)), la_signfix(sc.Vh, 1), la_rtol(dt) * 10, la_atol(dt) * 10);
                        LA_SAME(label, ct_matmul(ct_mul(sd.U, ct_unsqueeze(sd.S, -2)), sd.Vh), M, dt);
                    } else if (sd.U && sd.Vh && sc.U && sc.Vh) {   /* orthogonal, of the full sizes */
                        CHECK(ct_same_shape(sd.U, sc.U) && ct_same_shape(sd.Vh, sc.Vh));
                        int64_t mm = sd.U->shape[1], nn = sd.Vh->shape[1];
                        LA_SAME(label, ct_matmul(ct_mT(sd.U), sd.U), ct_expand(ct_eye(mm, mm, dt), 3, mm, mm), dt);
                        LA_SAME(label, ct_matmul(sd.Vh, ct_mT(sd.Vh)), ct_expand(ct_eye(nn, nn, dt), 3, nn, nn), dt);
                    }
                    LA_SAME(label, ct_linalg_svdvals(dev(M)), ct_linalg_svdvals(M), dt);
                }
        }
    }
    /* non-finite input to svd: the CPU's error */
    ct_tensor *M = ct_randn(CT_FLOAT64, 20, 20);
    CHECK(ct_copy_(ct_select(ct_select(M, 0, 3), 0, 4), ct_scalar_tensor(NAN, CT_FLOAT64)) != NULL);
    LA_SAME_ERR("svd non-finite", ct_linalg_svd(dev(M), 0).S, ct_linalg_svd(M, 0).S);
}

/* the CPU's backward rules on device tensors: gradients against the CPU's */
TEST(test_la_grads) {
    ct_dtype dt = CT_FLOAT64;
    int64_t bs[1] = {2};
    ct_tensor *Sp = la_spd(dt, 1, bs, 5), *G = la_gen(dt, 1, bs, 5, 5), *R = ct_randn(CT_FLOAT64, 2, 5, 5), *Bv = ct_randn(CT_FLOAT64, 2, 5, 3);
    ct_tensor *X = la_gen(dt, 1, bs, 5, 5), *Sym = ct_add(X, ct_mT(X)), *T = la_gen(dt, 1, bs, 7, 4);
    for (int f = 0; f < 9; f++) {
        ct_tensor *g[2];
        for (int s = 0; s < 2; s++) {
            ct_tensor *in = f == 0 ? Sp : f == 5 ? Sym : f >= 6 ? T : G;
            ct_tensor *a = ct_requires_grad(ct_detach(s ? dev(in) : in)), *r = s ? dev(R) : R, *y = NULL;
            switch (f) {
            case 0: y = ct_sum(ct_mul(ct_linalg_cholesky(a), r)); break;
            case 1: y = ct_sum(ct_mul(ct_linalg_inv(a), r)); break;
            case 2: y = ct_sum(ct_linalg_solve(a, s ? dev(Bv) : Bv)); break;
            case 3: y = ct_sum(ct_linalg_det(a)); break;
            case 4: y = ct_sum(ct_linalg_slogdet(a).logabsdet); break;
            case 5: {
                ct_linalg_eig_result e = ct_linalg_eigh(a, "L");
                y = ct_add(ct_sum(ct_mul(e.eigenvalues, ct_arange_on(s ? GPU : ct_cpu(), 0, 5, 1, dt))), ct_sum(ct_abs(e.eigenvectors)));
                break;
            }
            case 6: {
                ct_linalg_svd_result sv = ct_linalg_svd(a, 0);
                y = ct_add(ct_sum(ct_mul(sv.S, ct_arange_on(s ? GPU : ct_cpu(), 1, 5, 1, dt))), ct_sum(ct_abs(sv.U)));
                break;
            }
            case 7: {
                ct_linalg_qr_result q = ct_linalg_qr(a, "reduced");
                y = ct_add(ct_sum(ct_abs(q.R)), ct_sum(ct_abs(q.Q)));
                break;
            }
            default: {
                ct_linalg_lu_factor_result lf = ct_linalg_lu_factor(ct_narrow(a, -2, 0, 4), 1);
                y = ct_sum(ct_mul(lf.LU, ct_narrow(ct_narrow(r, -1, 0, 4), -2, 0, 4)));
                ct_tensor *ys = ct_sum(ct_linalg_lu_solve(lf.LU, lf.pivots, ct_narrow(s ? dev(Bv) : Bv, -2, 0, 4), 1, 0));
                y = ct_add(y, ys);
                break;
            }
            }
            CHECK(y != NULL && ct_backward(y) == CT_OK);
            g[s] = ct_grad(a);
        }
        char label[64];
        snprintf(label, sizeof label, "linalg gradient %d", f);
        CHECK_SAME_AT(label, g[1], g[0], 1e-8, 1e-9);
    }
}

/* argument errors and devices: the CPU's messages */
TEST(test_la_errors) {
    ct_tensor *I = ct_ones(CT_INT64, 3, 3), *NS = ct_randn(CT_FLOAT32, 3, 4), *A = ct_randn(CT_FLOAT32, 3, 3);
    LA_SAME_ERR("cholesky int64", ct_linalg_cholesky(dev(I)), ct_linalg_cholesky(I));
    LA_SAME_ERR("inv not square", ct_linalg_inv(dev(NS)), ct_linalg_inv(NS));
    LA_SAME_ERR("det not square", ct_linalg_det(dev(NS)), ct_linalg_det(NS));
    LA_SAME_ERR("eigh not square", ct_linalg_eigh(dev(NS), NULL).eigenvalues, ct_linalg_eigh(NS, NULL).eigenvalues);
    LA_SAME_ERR("solve shapes", ct_linalg_solve(dev(A), dev(ct_ones(CT_FLOAT32, 4))), ct_linalg_solve(A, ct_ones(CT_FLOAT32, 4)));
    LA_SAME_ERR("solve dtypes", ct_linalg_solve(dev(A), dev(ct_ones(CT_FLOAT64, 3))), ct_linalg_solve(A, ct_ones(CT_FLOAT64, 3)));
    /* a device A with a CPU B: the dispatcher's device error */
    CHECK(ct_linalg_solve(dev(A), ct_ones(CT_FLOAT32, 3)) == NULL && ct_last_error_code() == CT_ERR_DEVICE);
    ct_clear_error();
    /* empty matrices and batches */
    ct_tensor *E = ct_zeros(CT_FLOAT32, 2, 0, 0), *Eb = ct_zeros(CT_FLOAT32, 0, 4, 4);
    ct_tensor *ic = NULL, *id = NULL;
    LA_SAME("cholesky 0x0", ct_linalg_cholesky_ex(dev(E), 0, 0, &id), ct_linalg_cholesky_ex(E, 0, 0, &ic), CT_FLOAT32);
    CHECK_SAME_AT("cholesky 0x0 info", id, ic, 0, 0);
    LA_SAME("det 0x0", ct_linalg_det(dev(E)), ct_linalg_det(E), CT_FLOAT32);
    LA_SAME("inv empty batch", ct_linalg_inv(dev(Eb)), ct_linalg_inv(Eb), CT_FLOAT32);
    LA_SAME("svdvals empty batch", ct_linalg_svdvals(dev(Eb)), ct_linalg_svdvals(Eb), CT_FLOAT32);
}

/* functions composed of the ops above (no kernel of their own) on the device */
TEST(test_la_composites) {
    ct_dtype dt = CT_FLOAT64;
    int64_t bs[1] = {2};
    ct_tensor *A = la_gen(dt, 1, bs, 6, 6), *S = la_spd(dt, 1, bs, 6), *R = ct_randn(CT_FLOAT64, 6, 4);
    LA_SAME("logdet", ct_logdet(dev(S)), ct_logdet(S), dt);
    ct_linalg_lu_result lc = ct_linalg_lu(A, 1), ld = ct_linalg_lu(dev(A), 1);
    LA_SAME("lu P", ld.P, lc.P, dt);
    LA_SAME("lu L", ld.L, lc.L, dt);
    LA_SAME("lu U", ld.U, lc.U, dt);
    LA_SAME("matrix_power -2", ct_linalg_matrix_power(dev(A), -2), ct_linalg_matrix_power(A, -2), dt);
    LA_SAME("matrix_rank", ct_linalg_matrix_rank(dev(A), NAN, NAN, 0), ct_linalg_matrix_rank(A, NAN, NAN, 0), dt);
    LA_SAME("cond", ct_linalg_cond(dev(A), NULL), ct_linalg_cond(A, NULL), dt);
    LA_SAME("matrix_norm nuc", ct_linalg_matrix_norm(dev(A), "nuc", NULL, 0), ct_linalg_matrix_norm(A, "nuc", NULL, 0), dt);
    LA_SAME("matrix_norm 2", ct_linalg_matrix_norm(dev(A), "2", NULL, 0), ct_linalg_matrix_norm(A, "2", NULL, 0), dt);
    ct_tensor *ms[3] = {ct_select(A, 0, 0), ct_select(A, 0, 1), R}, *md[3] = {dev(ms[0]), dev(ms[1]), dev(R)};
    LA_SAME("multi_dot", ct_linalg_multi_dot(3, md), ct_linalg_multi_dot(3, ms), dt);
    const int64_t d1[1] = {-1}, d2[2] = {0, 2};
    LA_SAME("vector_norm 2", ct_linalg_vector_norm(dev(A), 2.0, 1, d1, 0), ct_linalg_vector_norm(A, 2.0, 1, d1, 0), dt);
    LA_SAME("vector_norm inf", ct_linalg_vector_norm(dev(A), INFINITY, 2, d2, 1), ct_linalg_vector_norm(A, INFINITY, 2, d2, 1), dt);
    LA_SAME("vector_norm 0.5", ct_linalg_vector_norm(dev(A), 0.5, 0, NULL, 0), ct_linalg_vector_norm(A, 0.5, 0, NULL, 0), dt);
    LA_SAME("vector_norm f32", ct_linalg_vector_norm(dev(ct_to(A, CT_FLOAT32)), 3.0, 1, d1, 0), ct_linalg_vector_norm(ct_to(A, CT_FLOAT32), 3.0, 1, d1, 0), CT_FLOAT32);
    ct_tensor *T4 = ct_reshape(ct_select(A, 0, 0), 2, 3, 6);
    LA_SAME("tensorinv", ct_linalg_tensorinv(dev(T4), 2), ct_linalg_tensorinv(T4, 2), dt);
}

/* cholesky_solve and cholesky_inverse (potrs), householder_product (orgqr):
   values, errors and gradients against the CPU */
TEST(test_la_chol_solve_hh) {
    const ct_dtype dts[2] = {CT_FLOAT32, CT_FLOAT64};
    for (int di = 0; di < 2; di++) {
        ct_dtype dt = dts[di];
        const int64_t ns[2] = {5, 18};
        for (int ci = 0; ci < 2; ci++) {
            for (int up = 0; up < 2; up++) {
                char label[96];
                int64_t n = ns[ci], bs[1] = {2};
                ct_tensor *L = ct_linalg_cholesky_ex(la_spd(dt, 1, bs, n), up, 0, NULL);
                ct_tensor *Bm = ct_to(ct_randn(CT_FLOAT64, 3, 1, n, 4), dt);   /* broadcast against L's batch */
                snprintf(label, sizeof label, "cholesky_solve %s n=%lld upper=%d", ct_dtype_name(dt), (long long)n, up);
                LA_SAME(label, ct_cholesky_solve(dev(Bm), dev(L), up), ct_cholesky_solve(Bm, L, up), dt);
                ct_tensor *Bt = ct_mT(ct_to(ct_randn(CT_FLOAT64, 2, 3, n), dt));   /* non-contiguous B */
                snprintf(label, sizeof label, "cholesky_solve transposed %s n=%lld upper=%d", ct_dtype_name(dt), (long long)n, up);
                LA_SAME(label, ct_cholesky_solve(dev(Bt), dev(L), up), ct_cholesky_solve(Bt, L, up), dt);
                snprintf(label, sizeof label, "cholesky_inverse %s n=%lld upper=%d", ct_dtype_name(dt), (long long)n, up);
                LA_SAME(label, ct_cholesky_inverse(dev(L), up), ct_cholesky_inverse(L, up), dt);
                ct_tensor *L1 = ct_mT(ct_select(L, 0, 1));   /* one transposed matrix: the other triangle */
                snprintf(label, sizeof label, "cholesky_inverse transposed %s n=%lld upper=%d", ct_dtype_name(dt), (long long)n, up);
                LA_SAME(label, ct_cholesky_inverse(dev(L1), !up), ct_cholesky_inverse(L1, !up), dt);
            }
        }
        /* householder_product: m x n, k reflectors; a batch, k < n, k = 0, square */
        const int64_t shp[4][3] = {{6, 4, 3}, {5, 5, 5}, {7, 3, 0}, {20, 6, 6}};
        for (int si = 0; si < 4; si++) {
            char label[96];
            ct_tensor *A = ct_to(ct_randn(CT_FLOAT64, 2, shp[si][0], shp[si][1]), dt), *tau = ct_to(ct_rand(CT_FLOAT64, 2, shp[si][2]), dt);
            snprintf(label, sizeof label, "householder_product %s %lldx%lld k=%lld", ct_dtype_name(dt), (long long)shp[si][0], (long long)shp[si][1],
                     (long long)shp[si][2]);
            LA_SAME(label, ct_linalg_householder_product(dev(A), dev(tau)), ct_linalg_householder_product(A, tau), dt);
        }
        ct_tensor *At = ct_mT(ct_to(ct_randn(CT_FLOAT64, 4, 6), dt)), *t1 = ct_to(ct_rand(CT_FLOAT64, 4), dt);
        LA_SAME("householder_product transposed", ct_linalg_householder_product(dev(At), dev(t1)), ct_linalg_householder_product(At, t1), dt);
    }
    /* errors: a zero on L's diagonal, shapes, dtypes */
    int64_t bs[1] = {3};
    ct_tensor *L = ct_linalg_cholesky(la_spd(CT_FLOAT64, 1, bs, 4));
    CHECK(ct_copy_(ct_select(ct_select(ct_select(L, 0, 1), 0, 2), 0, 2), ct_scalar_tensor(0.0, CT_FLOAT64)) != NULL);
    LA_SAME_ERR("cholesky_inverse singular", ct_cholesky_inverse(dev(L), 0), ct_cholesky_inverse(L, 0));
    ct_tensor *NS = ct_randn(CT_FLOAT32, 3, 4), *B5 = ct_randn(CT_FLOAT32, 5, 2), *L3 = ct_randn(CT_FLOAT32, 3, 3);
    LA_SAME_ERR("cholesky_inverse not square", ct_cholesky_inverse(dev(NS), 0), ct_cholesky_inverse(NS, 0));
    LA_SAME_ERR("cholesky_solve shapes", ct_cholesky_solve(dev(B5), dev(L3), 0), ct_cholesky_solve(B5, L3, 0));
    LA_SAME_ERR("cholesky_solve dtypes", ct_cholesky_solve(dev(ct_to(B5, CT_FLOAT64)), dev(L3), 0), ct_cholesky_solve(ct_to(B5, CT_FLOAT64), L3, 0));
    ct_tensor *tau4 = ct_rand(CT_FLOAT32, 4);
    LA_SAME_ERR("householder_product wide", ct_linalg_householder_product(dev(NS), dev(tau4)), ct_linalg_householder_product(NS, tau4));
    CHECK(ct_cholesky_solve(dev(L3), L3, 0) == NULL && ct_last_error_code() == CT_ERR_DEVICE);
    ct_clear_error();
    /* empty */
    ct_tensor *E = ct_zeros(CT_FLOAT32, 2, 0, 0), *Eb = ct_zeros(CT_FLOAT32, 2, 0, 3);
    LA_SAME("cholesky_inverse 0x0", ct_cholesky_inverse(dev(E), 0), ct_cholesky_inverse(E, 0), CT_FLOAT32);
    LA_SAME("cholesky_solve 0 rows", ct_cholesky_solve(dev(Eb), dev(E), 0), ct_cholesky_solve(Eb, E, 0), CT_FLOAT32);
    /* gradients: the CPU's backward rules on the device */
    ct_dtype dt = CT_FLOAT64;
    int64_t b2[1] = {2};
    ct_tensor *Lg = ct_linalg_cholesky(la_spd(dt, 1, b2, 5)), *Bg = ct_randn(CT_FLOAT64, 2, 5, 3), *R = ct_randn(CT_FLOAT64, 2, 5, 5);
    ct_tensor *Ah = ct_randn(CT_FLOAT64, 2, 6, 4), *th = ct_rand(CT_FLOAT64, 2, 3), *Rh = ct_randn(CT_FLOAT64, 2, 6, 4);
    /* f = 2: householder_product's backward (its identities on A's device) */
    for (int f = 0; f < 3; f++) {
        ct_tensor *g[2][2] = {{NULL, NULL}, {NULL, NULL}};
        for (int s = 0; s < 2; s++) {
            ct_tensor *x0 = f == 2 ? Ah : Lg, *x1 = f == 2 ? th : Bg;
            ct_tensor *a = ct_requires_grad(ct_detach(s ? dev(x0) : x0)), *b = ct_requires_grad(ct_detach(s ? dev(x1) : x1)), *y = NULL;
            if (f == 0) y = ct_sum(ct_cholesky_solve(b, a, 0));
            else if (f == 1) y = ct_sum(ct_mul(ct_cholesky_inverse(a, 1), s ? dev(R) : R));
            else y = ct_sum(ct_mul(ct_linalg_householder_product(a, b), s ? dev(Rh) : Rh));
            int ok = y != NULL && ct_backward(y) == CT_OK;
            if (!ok) printf("  gradient %d on %s: %s\n", f, s ? "cuda" : "cpu", ct_last_error());
            CHECK(ok);
            ct_clear_error();
            g[s][0] = ct_grad(a);
            g[s][1] = f == 1 ? NULL : ct_grad(b);
        }
        char label[64];
        snprintf(label, sizeof label, "cholesky/householder gradient %d", f);
        CHECK_SAME_AT(label, g[1][0], g[0][0], 1e-8, 1e-9);
        if (f != 1) CHECK_SAME_AT(label, g[1][1], g[0][1], 1e-8, 1e-9);
    }
}

/* lstsq, driver gels: values and residuals against the CPU's gels (tall and
   wide), its rank error; other drivers fail naming the op */
TEST(test_la_lstsq) {
    const ct_dtype dts[2] = {CT_FLOAT32, CT_FLOAT64};
    for (int di = 0; di < 2; di++) {
        ct_dtype dt = dts[di];
        const int64_t shp[4][3] = {{6, 4, 3}, {5, 5, 2}, {20, 7, 1}, {4, 0, 2}};
        for (int si = 0; si < 4; si++) {
            char label[96];
            ct_tensor *A = ct_to(la_gen(CT_FLOAT64, 0, NULL, shp[si][0], shp[si][1]), dt);
            ct_tensor *Ab = ct_to(ct_randn(CT_FLOAT64, 2, shp[si][0], shp[si][1]), dt), *Bm = ct_to(ct_randn(CT_FLOAT64, 3, 1, shp[si][0], shp[si][2]), dt);
            snprintf(label, sizeof label, "lstsq gels %s %lldx%lld k=%lld", ct_dtype_name(dt), (long long)shp[si][0], (long long)shp[si][1], (long long)shp[si][2]);
            ct_linalg_lstsq_result rc = ct_linalg_lstsq(Ab, Bm, NAN, "gels"), rd = ct_linalg_lstsq(dev(Ab), dev(Bm), NAN, "gels");
            LA_SAME(label, rd.solution, rc.solution, dt);
            LA_SAME(label, rd.residuals, rc.residuals, dt);
            ct_tensor *v = ct_to(ct_randn(CT_FLOAT64, shp[si][0]), dt), *vt = ct_mT(ct_to(ct_randn(CT_FLOAT64, 2, shp[si][0]), dt));
            rc = ct_linalg_lstsq(A, v, NAN, "gels");
            rd = ct_linalg_lstsq(dev(A), dev(v), NAN, NULL);   /* no driver: gels on a device, as PyTorch */
            LA_SAME(label, rd.solution, rc.solution, dt);
            LA_SAME(label, rd.residuals, rc.residuals, dt);
            rc = ct_linalg_lstsq(ct_mT(ct_mT(A)), vt, NAN, "gels");   /* a transposed B */
            rd = ct_linalg_lstsq(dev(A), dev(vt), NAN, "gels");
            LA_SAME(label, rd.solution, rc.solution, dt);
        }
    }
    /* rank-deficient (a zero column: R's diagonal has an exact zero) */
    int64_t bs[1] = {2};
    ct_tensor *A = la_gen(CT_FLOAT64, 1, bs, 6, 3), *B = ct_randn(CT_FLOAT64, 2, 6, 2);
    CHECK(ct_fill_(ct_select(ct_select(A, 0, 1), -1, 1), 0.0) != NULL);
    LA_SAME_ERR("lstsq rank-deficient", ct_linalg_lstsq(dev(A), dev(B), NAN, "gels").solution, ct_linalg_lstsq(A, B, NAN, "gels").solution);
    LA_SAME_ERR("lstsq shapes", ct_linalg_lstsq(dev(A), dev(ct_randn(CT_FLOAT64, 5, 2)), NAN, "gels").solution,
                ct_linalg_lstsq(A, ct_randn(CT_FLOAT64, 5, 2), NAN, "gels").solution);
    /* wide (m < n): the minimum-norm solution (QR of A^T), as the CPU's gels (LQ) */
    for (int di = 0; di < 2; di++) {
        ct_dtype dt = di ? CT_FLOAT64 : CT_FLOAT32;
        ct_tensor *W = ct_to(ct_randn(CT_FLOAT64, 2, 3, 5), dt), *Bw = ct_to(ct_randn(CT_FLOAT64, 3, 1, 3, 2), dt), *bw = ct_to(ct_randn(CT_FLOAT64, 4), dt);
        ct_linalg_lstsq_result rc = ct_linalg_lstsq(W, Bw, NAN, "gels"), rd = ct_linalg_lstsq(dev(W), dev(Bw), NAN, "gels");
        LA_SAME("lstsq wide", rd.solution, rc.solution, dt);
        LA_SAME("lstsq wide residuals", rd.residuals, rc.residuals, dt);
        ct_tensor *W1 = ct_mT(ct_to(ct_randn(CT_FLOAT64, 18, 4), dt));   /* transposed, n > 16, a vector B, no driver */
        LA_SAME("lstsq wide vector", ct_linalg_lstsq(dev(W1), dev(bw), NAN, NULL).solution, ct_linalg_lstsq(W1, bw, NAN, "gels").solution, dt);
    }
    ct_tensor *Wz = ct_randn(CT_FLOAT64, 2, 3, 5), *Bz = ct_randn(CT_FLOAT64, 3, 2);
    CHECK(ct_fill_(ct_select(ct_select(Wz, 0, 1), -2, 1), 0.0) != NULL);   /* a zero row: rank-deficient */
    LA_SAME_ERR("lstsq wide rank-deficient", ct_linalg_lstsq(dev(Wz), dev(Bz), NAN, "gels").solution, ct_linalg_lstsq(Wz, Bz, NAN, "gels").solution);
    CHECK(ct_linalg_lstsq(dev(B), dev(B), NAN, "gelsd").solution == NULL && ct_last_error_code() == CT_ERR_UNSUPPORTED &&
          strstr(ct_last_error(), "`driver` other than `gels` is not supported on CUDA") != NULL);
    ct_clear_error();
}

/* pinv (svd / eigh on the device, the CPU's tolerances), matrix_exp (each
   Pade degree, squarings, a batch that mixes plans), cross and vander (float
   and integer dtypes, broadcasting): values, errors and gradients against the
   CPU; lstsq's gradient (through pinv) for tall and wide inputs */
TEST(test_la_pinv_expm_cross_vander) {
    const ct_dtype dts[2] = {CT_FLOAT32, CT_FLOAT64};
    for (int di = 0; di < 2; di++) {
        ct_dtype dt = dts[di];
        char label[96];
        /* pinv: tall, wide, rank-deficient (a zero column: the tolerance drops it), hermitian, atol/rtol */
        ct_tensor *T = ct_to(ct_randn(CT_FLOAT64, 2, 6, 4), dt), *Wd = ct_to(ct_randn(CT_FLOAT64, 3, 5), dt);
        ct_tensor *Rk = ct_clone(T);
        CHECK(ct_fill_(ct_select(ct_select(Rk, 0, 1), -1, 2), 0.0) != NULL);
        /* hermitian and indefinite, eigenvalues bounded away from 0 (a random shift of an
           SPD matrix can land one near 0 and make float32's pinv ill-conditioned); 0.5 is
           under rtol 0.3's cutoff (0.9), well apart from it */
        static const double ev[10] = {3.0, -2.0, 1.5, -0.5, 2.5, -3.0, 2.0, 1.2, -0.5, 2.2};
        ct_tensor *Q = ct_linalg_qr(ct_randn(CT_FLOAT64, 2, 5, 5), "reduced").Q;
        ct_tensor *Sy = ct_to(ct_matmul(ct_matmul(Q, ct_diag_embed(ct_from_data(ev, CT_FLOAT64, 2, 5), 0, -2, -1)), ct_mT(Q)), dt);
        snprintf(label, sizeof label, "pinv %s", ct_dtype_name(dt));
        LA_SAME(label, ct_linalg_pinv(dev(T), NAN, NAN, 0), ct_linalg_pinv(T, NAN, NAN, 0), dt);
        LA_SAME(label, ct_linalg_pinv(dev(Wd), NAN, NAN, 0), ct_linalg_pinv(Wd, NAN, NAN, 0), dt);
        LA_SAME(label, ct_linalg_pinv(dev(Rk), NAN, NAN, 0), ct_linalg_pinv(Rk, NAN, NAN, 0), dt);
        LA_SAME(label, ct_linalg_pinv(dev(ct_mT(T)), 0.5, NAN, 0), ct_linalg_pinv(ct_mT(T), 0.5, NAN, 0), dt);
        LA_SAME(label, ct_linalg_pinv(dev(Sy), NAN, NAN, 1), ct_linalg_pinv(Sy, NAN, NAN, 1), dt);
        LA_SAME(label, ct_linalg_pinv(dev(Sy), NAN, 0.3, 1), ct_linalg_pinv(Sy, NAN, 0.3, 1), dt);
        /* matrix_exp: norms in every degree's range (3, 5, 7, 9, 13 and 13 with squarings), one batch */
        const double scales[6] = {0.002, 0.05, 0.3, 0.8, 1.6, 4.0};
        ct_tensor *parts[6];
        for (int k = 0; k < 6; k++) parts[k] = ct_mul_scalar(ct_to(ct_randn(CT_FLOAT64, 1, 4, 4), dt), scales[k]);
        ct_tensor *E = ct_cat(6, parts, 0);
        snprintf(label, sizeof label, "matrix_exp %s", ct_dtype_name(dt));
        LA_SAME(label, ct_linalg_matrix_exp(dev(E)), ct_linalg_matrix_exp(E), dt);
        LA_SAME(label, ct_linalg_matrix_exp(dev(parts[5])), ct_linalg_matrix_exp(parts[5]), dt);   /* one plan: no grouping */
        ct_tensor *E1 = ct_mT(ct_select(E, 0, 4));
        LA_SAME(label, ct_linalg_matrix_exp(dev(E1)), ct_linalg_matrix_exp(E1), dt);
        /* cross: broadcast, dim 0, a non-contiguous operand */
        ct_tensor *x = ct_to(ct_randn(CT_FLOAT64, 4, 3), dt), *y = ct_to(ct_randn(CT_FLOAT64, 1, 3), dt), *z = ct_mT(ct_to(ct_randn(CT_FLOAT64, 5, 3), dt));
        snprintf(label, sizeof label, "cross %s", ct_dtype_name(dt));
        LA_SAME(label, ct_linalg_cross(dev(x), dev(y), -1), ct_linalg_cross(x, y, -1), dt);
        LA_SAME(label, ct_linalg_cross(dev(z), dev(ct_narrow(z, 1, 0, 1)), 0), ct_linalg_cross(z, ct_narrow(z, 1, 0, 1), 0), dt);
        /* vander: N default and given */
        snprintf(label, sizeof label, "vander %s", ct_dtype_name(dt));
        ct_tensor *v = ct_to(ct_randn(CT_FLOAT64, 2, 4), dt);
        LA_SAME(label, ct_linalg_vander(dev(v), -1), ct_linalg_vander(v, -1), dt);
        LA_SAME(label, ct_linalg_vander(dev(ct_select(v, 0, 1)), 6), ct_linalg_vander(ct_select(v, 0, 1), 6), dt);
    }
    /* integer cross and vander: exact */
    ct_tensor *xi = ct_randint(-9, 9, CT_INT64, 2, 3), *yi = ct_randint(-9, 9, CT_INT64, 2, 3), *vi = ct_randint(-5, 5, CT_INT32, 5);
    CHECK_SAME_AT("cross int64", ct_linalg_cross(dev(xi), dev(yi), 1), ct_linalg_cross(xi, yi, 1), 0, 0);
    CHECK_SAME_AT("vander int32", ct_linalg_vander(dev(vi), 7), ct_linalg_vander(vi, 7), 0, 0);
    const uint8_t bv[3] = {1, 0, 1};
    ct_tensor *vb = ct_tensor_bool(bv, 3);
    CHECK_SAME_AT("vander bool", ct_linalg_vander(dev(vb), -1), ct_linalg_vander(vb, -1), 0, 0);
    /* errors: the CPU's */
    ct_tensor *x2 = ct_randn(CT_FLOAT32, 4, 2), *v1 = ct_randn(CT_FLOAT32, 1), *NS = ct_randn(CT_FLOAT32, 3, 4);
    LA_SAME_ERR("cross length", ct_linalg_cross(dev(x2), dev(x2), -1), ct_linalg_cross(x2, x2, -1));
    LA_SAME_ERR("vander N", ct_linalg_vander(dev(v1), -1), ct_linalg_vander(v1, -1));
    LA_SAME_ERR("matrix_exp not square", ct_linalg_matrix_exp(dev(NS)), ct_linalg_matrix_exp(NS));
    LA_SAME_ERR("pinv hermitian not square", ct_linalg_pinv(dev(NS), NAN, NAN, 1), ct_linalg_pinv(NS, NAN, NAN, 1));
    /* empty */
    ct_tensor *E0 = ct_zeros(CT_FLOAT64, 0, 3), *Z = ct_zeros(CT_FLOAT64, 2, 0, 0);
    LA_SAME("pinv 0x3", ct_linalg_pinv(dev(E0), NAN, NAN, 0), ct_linalg_pinv(E0, NAN, NAN, 0), CT_FLOAT64);
    LA_SAME("matrix_exp 0x0", ct_linalg_matrix_exp(dev(Z)), ct_linalg_matrix_exp(Z), CT_FLOAT64);
    /* gradients: pinv, pinv hermitian, matrix_exp, cross, vander, lstsq tall and wide (through pinv) */
    ct_dtype dt = CT_FLOAT64;
    int64_t b1[1] = {2};
    ct_tensor *P = ct_randn(CT_FLOAT64, 2, 5, 3), *Hs = la_spd(dt, 1, b1, 4), *M = ct_mul_scalar(ct_randn(CT_FLOAT64, 2, 4, 4), 0.7);
    ct_tensor *c0 = ct_randn(CT_FLOAT64, 4, 3), *c1 = ct_randn(CT_FLOAT64, 4, 3), *vv = ct_randn(CT_FLOAT64, 2, 4);
    ct_tensor *Lt = ct_randn(CT_FLOAT64, 6, 3), *Lw = ct_randn(CT_FLOAT64, 3, 6), *Bt6 = ct_randn(CT_FLOAT64, 6, 2), *Bw3 = ct_randn(CT_FLOAT64, 3, 2);
    for (int f = 0; f < 7; f++) {
        ct_tensor *g[2][2] = {{NULL, NULL}, {NULL, NULL}};
        for (int s = 0; s < 2; s++) {
            ct_tensor *x0 = f == 0 ? P : f == 1 ? Hs : f == 2 ? M : f == 3 ? c0 : f == 4 ? vv : f == 5 ? Lt : Lw;
            ct_tensor *x1 = f == 3 ? c1 : f == 5 ? Bt6 : f == 6 ? Bw3 : NULL;
            ct_tensor *a = ct_requires_grad(ct_detach(s ? dev(x0) : x0)), *b = x1 ? ct_requires_grad(ct_detach(s ? dev(x1) : x1)) : NULL, *y = NULL;
            ct_tensor *w = NULL;
            switch (f) {
            case 0: y = ct_linalg_pinv(a, NAN, NAN, 0); break;
            case 1: y = ct_linalg_pinv(a, NAN, NAN, 1); break;
            case 2: y = ct_linalg_matrix_exp(a); break;
            case 3: y = ct_linalg_cross(a, b, -1); break;
            case 4: y = ct_linalg_vander(a, -1); break;
            default: y = ct_linalg_lstsq(a, b, NAN, "gels").solution; break;
            }
            if (y) w = ct_cos(ct_arange_on(s ? GPU : ct_cpu(), 0, (double)ct_numel(y), 1, dt));
            y = w ? ct_sum(ct_mul(y, ct_reshape_n(w, y->ndim, y->shape))) : NULL;
            int ok = y != NULL && ct_backward(y) == CT_OK;
            if (!ok) printf("  gradient %d on %s: %s\n", f, s ? "cuda" : "cpu", ct_last_error());
            CHECK(ok);
            ct_clear_error();
            g[s][0] = ct_grad(a);
            g[s][1] = b ? ct_grad(b) : NULL;
        }
        char label[64];
        snprintf(label, sizeof label, "pinv/expm/cross/vander/lstsq gradient %d", f);
        CHECK_SAME_AT(label, g[1][0], g[0][0], 1e-8, 1e-9);
        if (g[0][1]) CHECK_SAME_AT(label, g[1][1], g[0][1], 1e-8, 1e-9);
    }
}

/* eig / eigvals of real matrices (Xgeev): eigenvalues against the CPU's (their
   sorted real parts and moduli: the order is the solver's), eigenvectors by
   A V = V diag(L) on the host; the non-finite error; complex inputs and the
   gradient (complex ops) are refused with an error, no crash */
TEST(test_la_eig) {
    const ct_dtype dts[2] = {CT_FLOAT32, CT_FLOAT64};
    for (int di = 0; di < 2; di++) {
        ct_dtype dt = dts[di];
        double tol = dt == CT_FLOAT64 ? 1e-9 : 2e-4;
        const int64_t ns[2] = {5, 18};
        for (int ci = 0; ci < 2; ci++) {
            char label[96];
            int64_t n = ns[ci];
            ct_tensor *A = ct_to(ct_randn(CT_FLOAT64, 2, n, n), dt);   /* complex pairs, almost surely */
            ct_linalg_eig_result rc = ct_linalg_eig(A), rd = ct_linalg_eig(dev(ct_mT(ct_mT(A))));
            CHECK(rd.eigenvalues && rd.eigenvectors && rd.eigenvalues->device.type == CT_CUDA);
            ct_tensor *L = ct_to_device(rd.eigenvalues, ct_cpu()), *V = ct_to_device(rd.eigenvectors, ct_cpu());
            snprintf(label, sizeof label, "eig %s n=%lld", ct_dtype_name(dt), (long long)n);
            /* (complex tensors live on the CPU here: their parts are compared on the device) */
            CHECK_SAME_AT(label, dev(ct_sort(ct_real(L), -1, 0, NULL)), ct_sort(ct_real(rc.eigenvalues), -1, 0, NULL), tol, tol);
            CHECK_SAME_AT(label, dev(ct_sort(ct_abs(L), -1, 0, NULL)), ct_sort(ct_abs(rc.eigenvalues), -1, 0, NULL), tol, tol);
            ct_tensor *Ac = ct_to(A, dt == CT_FLOAT64 ? CT_COMPLEX128 : CT_COMPLEX64), *AV = ct_matmul(Ac, V), *VL = ct_mul(V, ct_unsqueeze(L, -2));
            CHECK_SAME_AT(label, dev(ct_real(AV)), ct_real(VL), tol * 10, tol * 10);
            CHECK_SAME_AT(label, dev(ct_imag(AV)), ct_imag(VL), tol * 10, tol * 10);
            ct_tensor *L2 = ct_to_device(ct_linalg_eigvals(dev(A)), ct_cpu());
            CHECK_SAME_AT(label, dev(ct_real(L2)), ct_real(L), 0, 0);
            CHECK_SAME_AT(label, dev(ct_imag(L2)), ct_imag(L), 0, 0);
        }
        /* a transposed input; a symmetric one (real eigenvalues) */
        ct_tensor *S = ct_to(la_spd(CT_FLOAT64, 0, NULL, 6), dt);
        ct_tensor *Ls = ct_to_device(ct_linalg_eigvals(dev(ct_mT(S))), ct_cpu());
        CHECK_SAME_AT("eigvals symmetric", dev(ct_sort(ct_real(Ls), -1, 0, NULL)), ct_linalg_eigvalsh(S, "L"), tol, tol);
    }
    ct_tensor *N = ct_randn(CT_FLOAT64, 3, 3);
    CHECK(ct_fill_(ct_select(ct_select(N, 0, 1), 0, 2), NAN) != NULL);
    LA_SAME_ERR("eig non-finite", ct_linalg_eig(dev(N)).eigenvalues, ct_linalg_eig(N).eigenvalues);
    ct_tensor *NS = ct_randn(CT_FLOAT32, 3, 4);
    LA_SAME_ERR("eig not square", ct_linalg_eig(dev(NS)).eigenvalues, ct_linalg_eig(NS).eigenvalues);
    ct_tensor *E = ct_zeros(CT_FLOAT64, 2, 0, 0);
    ct_linalg_eig_result re = ct_linalg_eig(dev(E));
    CHECK(re.eigenvalues && ct_numel(re.eigenvalues) == 0);
    /* the gradient needs complex ops on the device: a clean error */
    ct_tensor *a = ct_requires_grad(dev(ct_randn(CT_FLOAT64, 3, 3)));
    ct_tensor *y = ct_sum(ct_real(ct_linalg_eigvals(a)));
    CHECK(y == NULL || ct_backward(y) != CT_OK);
    CHECK(ct_last_error()[0] != 0);
    ct_clear_error();
}

/* which cuSOLVER path: batches of matrices up to 32 x 32 go through
   syevjBatched / gesvdjBatched (test_la_decompositions covers them: its
   batches are small), one matrix and larger batches through syevd / gesvd:
   those here, against the CPU (vectors up to sign) */
TEST(test_la_eigh_svd_paths) {
    ct_dtype dt = CT_FLOAT64;
    const int64_t shp[4][3] = {{1, 7, 5}, {1, 5, 7}, {2, 34, 33}, {2, 33, 34}};
    for (int si = 0; si < 4; si++) {
        char label[96];
        snprintf(label, sizeof label, "svd %lldx%lldx%lld", (long long)shp[si][0], (long long)shp[si][1], (long long)shp[si][2]);
        ct_tensor *M = ct_randn(CT_FLOAT64, shp[si][0], shp[si][1], shp[si][2]);
        for (int full = 0; full < 2; full++) {
            ct_linalg_svd_result sc = ct_linalg_svd(M, full), sd = ct_linalg_svd(dev(M), full);
            LA_SAME(label, sd.S, sc.S, dt);
            if (!full) {
                CHECK_SAME_AT(label, dev(la_signfix(sd.U, 0)), la_signfix(sc.U, 0), 1e-8, 1e-9);
                CHECK_SAME_AT(label, dev(la_signfix(sd.Vh, 1)), la_signfix(sc.Vh, 1), 1e-8, 1e-9);
            } else {
                CHECK(sd.U && sd.Vh && ct_same_shape(sd.U, sc.U) && ct_same_shape(sd.Vh, sc.Vh));
                LA_SAME(label, ct_matmul(ct_mul(ct_narrow(sd.U, -1, 0, sd.S->shape[1]), ct_unsqueeze(sd.S, -2)), ct_narrow(sd.Vh, -2, 0, sd.S->shape[1])), M, dt);
            }
        }
        int64_t n = shp[si][1], bs[1] = {shp[si][0]};
        ct_tensor *X = la_gen(dt, 1, bs, n, n), *A = ct_add(X, ct_mT(X));
        snprintf(label, sizeof label, "eigh %lldx%lld", (long long)bs[0], (long long)n);
        ct_linalg_eig_result ec = ct_linalg_eigh(A, "U"), ed = ct_linalg_eigh(dev(A), "U");
        LA_SAME(label, ed.eigenvalues, ec.eigenvalues, dt);
        CHECK_SAME_AT(label, dev(la_signfix(ed.eigenvectors, 0)), la_signfix(ec.eigenvectors, 0), 1e-8, 1e-9);
    }
}

/* batched qr and solve_triangular: cuBLAS's geqrfBatched (Q from the reflectors
   by ct__cu_la_orgqr_kernel) and trsmBatched for batches of matrices up to
   CT__CU_LA_BATCHED_MAX, against the CPU: values (Q and R up to signs, Q R = A),
   every qr mode, tall / wide / square, broadcast and non-contiguous inputs,
   all eight triangular modes, the errors, and gradients through both */
TEST(test_la_batched_qr_trsm) {
#ifdef CT_EMU_CUSOLVERDN_H
    long q0 = ct_emu::geqrf_batched_calls(), t0 = ct_emu::trsm_batched_calls();
#endif
    const ct_dtype dts[2] = {CT_FLOAT32, CT_FLOAT64};
    const char *modes[3] = {"reduced", "complete", "r"};
    for (int di = 0; di < 2; di++) {
        ct_dtype dt = dts[di];
        char label[96];
        int64_t bs[2] = {4, 3};
        const int64_t shapes[4][2] = {{7, 4}, {4, 7}, {5, 5}, {1, 3}};
        for (int si = 0; si < 4; si++)
            for (int mi = 0; mi < 3; mi++) {
                snprintf(label, sizeof label, "batched qr %s %lldx%lld %s", ct_dtype_name(dt), (long long)shapes[si][0], (long long)shapes[si][1], modes[mi]);
                ct_tensor *M = la_gen(dt, 2, bs, shapes[si][0], shapes[si][1]);
                if (si == 2) M = ct_mT(M);   /* a non-contiguous input */
                ct_linalg_qr_result qc = ct_linalg_qr(M, modes[mi]), qd = ct_linalg_qr(dev(M), modes[mi]);
                CHECK(qd.R && qc.R && ct_same_shape(qd.R, qc.R));
                CHECK_SAME_AT(label, dev(la_signfix(qd.R, 1)), la_signfix(qc.R, 1), la_rtol(dt) * 10, la_atol(dt) * 10);
                if (mi == 2) {
                    CHECK(qd.Q && ct_numel(qd.Q) == 0);
                    continue;
                }
                CHECK_SAME_AT(label, dev(la_signfix(qd.Q, 0)), la_signfix(qc.Q, 0), la_rtol(dt) * 10, la_atol(dt) * 10);
                LA_SAME(label, ct_matmul(qd.Q, qd.R), M, dt);
                int64_t qcn = qd.Q ? qd.Q->shape[3] : 0;   /* orthonormal columns */
                LA_SAME(label, ct_matmul(ct_mT(qd.Q), qd.Q), ct_expand(ct_eye(qcn, qcn, dt), 4, 3, qcn, qcn), dt);
            }
        /* a broadcast batch (a stride-0 dim) */
        ct_tensor *Mb = ct_expand(la_gen(dt, 0, NULL, 6, 3), 5, 6, 3);
        ct_linalg_qr_result bc = ct_linalg_qr(Mb, "reduced"), bd = ct_linalg_qr(dev(Mb), "reduced");
        CHECK_SAME_AT("batched qr broadcast", dev(la_signfix(bd.R, 1)), la_signfix(bc.R, 1), la_rtol(dt) * 10, la_atol(dt) * 10);
        CHECK_SAME_AT("batched qr broadcast", dev(la_signfix(bd.Q, 0)), la_signfix(bc.Q, 0), la_rtol(dt) * 10, la_atol(dt) * 10);
        /* solve_triangular: batch 5 x 3 (A broadcast over the 3), every mode */
        int64_t bt[2] = {5, 1};
        ct_tensor *T = la_gen(dt, 2, bt, 6, 6), *Bl = ct_to(ct_randn(CT_FLOAT64, 3, 6, 2), dt), *Br = ct_to(ct_randn(CT_FLOAT64, 5, 3, 4, 6), dt);
        for (int mode = 0; mode < 8; mode++) {
            int upper = mode & 1, left = (mode >> 1) & 1, unit = mode >> 2;
            snprintf(label, sizeof label, "batched solve_triangular %s upper=%d left=%d unit=%d", ct_dtype_name(dt), upper, left, unit);
            ct_tensor *Bx = left ? Bl : Br;
            ct_tensor *Tx = mode == 3 ? ct_mT(ct_triu(T, 0)) : T;   /* a transposed (non-contiguous) triangle */
            if (mode == 3) upper = 0;
            LA_SAME(label, ct_linalg_solve_triangular(dev(Tx), dev(Bx), upper, left, unit), ct_linalg_solve_triangular(Tx, Bx, upper, left, unit), dt);
        }
    }
#ifdef CT_EMU_CUSOLVERDN_H
    CHECK(ct_emu::geqrf_batched_calls() > q0);   /* the batched routines ran */
    CHECK(ct_emu::trsm_batched_calls() > t0);
#endif
    /* errors: the CPU's messages */
    ct_tensor *I = ct_ones(CT_INT64, 2, 3, 3), *A = ct_randn(CT_FLOAT32, 2, 3, 3), *B3 = ct_randn(CT_FLOAT32, 2, 4, 2);
    LA_SAME_ERR("batched qr int64", ct_linalg_qr(dev(I), "reduced").R, ct_linalg_qr(I, "reduced").R);
    LA_SAME_ERR("batched qr mode", ct_linalg_qr(dev(A), "thin").R, ct_linalg_qr(A, "thin").R);
    LA_SAME_ERR("batched solve_triangular shapes", ct_linalg_solve_triangular(dev(A), dev(B3), 1, 1, 0), ct_linalg_solve_triangular(A, B3, 1, 1, 0));
    LA_SAME_ERR("batched solve_triangular dtypes", ct_linalg_solve_triangular(dev(A), dev(ct_ones(CT_FLOAT64, 2, 3, 2)), 1, 1, 0),
                ct_linalg_solve_triangular(A, ct_ones(CT_FLOAT64, 2, 3, 2), 1, 1, 0));
    /* gradients (float64): qr's and solve_triangular's backward rules on the device against the CPU */
    int64_t bg[1] = {3};
    ct_tensor *Gq = la_gen(CT_FLOAT64, 1, bg, 6, 4), *Gt = la_gen(CT_FLOAT64, 1, bg, 5, 5), *Gb = ct_randn(CT_FLOAT64, 3, 5, 2);
    for (int f = 0; f < 3; f++) {
        ct_tensor *g[2], *gb[2] = {NULL, NULL};
        for (int s = 0; s < 2; s++) {
            ct_tensor *a = ct_requires_grad(ct_detach(s ? dev(f ? Gt : Gq) : (f ? Gt : Gq))), *b = NULL, *y = NULL;
            if (f == 0) {
                ct_linalg_qr_result q = ct_linalg_qr(a, "reduced");
                y = ct_add(ct_sum(ct_mul(q.R, q.R)), ct_sum(ct_abs(q.Q)));
            } else {
                b = ct_requires_grad(ct_detach(s ? dev(Gb) : Gb));
                y = ct_sum(ct_mul(ct_linalg_solve_triangular(a, f == 1 ? b : ct_mT(b), f == 1, f == 1, 0), f == 1 ? ct_ones_like(b) : ct_mT(ct_ones_like(b))));
            }
            CHECK(y != NULL && ct_backward(y) == CT_OK);
            g[s] = ct_grad(a);
            if (b) gb[s] = ct_grad(b);
        }
        CHECK_SAME_AT(f == 0 ? "batched qr gradient" : "batched solve_triangular gradient (A)", g[1], g[0], 1e-8, 1e-9);
        if (f) CHECK_SAME_AT("batched solve_triangular gradient (B)", gb[1], gb[0], 1e-8, 1e-9);
    }
}
