/* ctensor_linalg.h: the torch.linalg announcement's examples, mathematical
   identities on both kernel paths (n <= 16: ctensor's own kernels; larger: LAPACK),
   batched = per-matrix results, gradcheck for every differentiable function,
   gradgradcheck for inv, det, solve, cholesky (and more), every error with its
   code and message, and memory returning to its starting point. */
#define CTENSOR_IMPLEMENTATION
#include "ct_test.h"
#include "ctensor_linalg.h"

/* ---- helpers ---- */
static ct_tensor *randn_(uint64_t seed, int ndim, const int64_t *shape) {
    ct_generator g;
    ct_generator_init(&g, seed);
    return ct_normal_(ct_empty_n(CT_FLOAT64, ndim, shape), 0.0, 1.0, &g);
}
#define RANDN(seed, ...) randn_(seed, CT_DIMS(__VA_ARGS__))
/* well conditioned: randn + 2 sqrt(n) I */
static ct_tensor *wellcond_(uint64_t seed, int ndim, const int64_t *shape) {
    int64_t n = shape[ndim - 1];
    return ct_add(randn_(seed, ndim, shape), ct_mul_scalar(ct_eye(n, n, CT_FLOAT64), 2.0 * sqrt((double)n)));
}
#define WELL(seed, ...) wellcond_(seed, CT_DIMS(__VA_ARGS__))
/* symmetric positive definite: X X^T + n I */
static ct_tensor *spd_(uint64_t seed, int ndim, const int64_t *shape) {
    int64_t n = shape[ndim - 1];
    ct_tensor *x = randn_(seed, ndim, shape);
    return ct_add(ct_matmul(x, ct_mT(x)), ct_mul_scalar(ct_eye(n, n, CT_FLOAT64), (double)n));
}
#define SPD(seed, ...) spd_(seed, CT_DIMS(__VA_ARGS__))
static ct_tensor *sym_(uint64_t seed, int ndim, const int64_t *shape) {
    ct_tensor *x = randn_(seed, ndim, shape);
    return ct_mul_scalar(ct_add(x, ct_mT(x)), 0.5);
}
#define SYM(seed, ...) sym_(seed, CT_DIMS(__VA_ARGS__))
static ct_tensor *leaf(ct_tensor *t) { return ct_requires_grad(ct_detach(t)); }
/* max |a - b| (NAN when a chain failed) */
static double maxdiff(const ct_tensor *a, const ct_tensor *b) {
    if (!a || !b) return NAN;
    ct_tensor *d = ct_linalg_vector_norm(ct_sub(ct_to(a, CT_FLOAT64), ct_to(b, CT_FLOAT64)), INFINITY, 0, NULL, 0);
    return d ? ct_item(d) : NAN;
}
static ct_tensor *eye_like(const ct_tensor *A) { return ct_eye(ct_size(A, -1), ct_size(A, -1), A->dtype); }
#define CHECK_SMALL(expr, tol) do { double v_ = (expr); CT_T_REPORT(v_ <= (tol), "%s = %g > %g (%s)", #expr, v_, (double)(tol), ct_last_error()); } while (0)
#define CHECK_GC(expr) do { int ok_ = (expr); CT_T_REPORT(ok_, "%s: %s", #expr, ct_last_error()); ct_clear_error(); } while (0)

typedef ct_tensor *(*fn1)(const ct_tensor *);
typedef ct_tensor *(*fn2)(const ct_tensor *, const ct_tensor *);
static ct_tensor *call1(ct_tensor *const *in, void *u) { return ((fn1)(uintptr_t)u)(in[0]); }
static ct_tensor *call2(ct_tensor *const *in, void *u) { return ((fn2)(uintptr_t)u)(in[0], in[1]); }
static int gc1(fn1 f, ct_tensor *x) { ct_tensor *in[1] = {x}; return ct_gradcheck(call1, (void *)(uintptr_t)f, 1, in, NULL); }
static int gc2(fn2 f, ct_tensor *x, ct_tensor *y) { ct_tensor *in[2] = {x, y}; return ct_gradcheck(call2, (void *)(uintptr_t)f, 2, in, NULL); }
static int ggc1(fn1 f, ct_tensor *x) { ct_tensor *in[1] = {x}; return ct_gradgradcheck(call1, (void *)(uintptr_t)f, 1, in, NULL); }
static int ggc2(fn2 f, ct_tensor *x, ct_tensor *y) { ct_tensor *in[2] = {x, y}; return ct_gradgradcheck(call2, (void *)(uintptr_t)f, 2, in, NULL); }

/* ---- the torch.linalg announcement ---- */
TEST(test_announcement_mvn) {
    /* np.random.seed(0): mu = rand(4), L = rand(4, 4), noise = standard_normal(4) */
    static const double mu_d[4] = {0.5488135039273248, 0.7151893663724195, 0.6027633760716439, 0.5448831829968969};
    static const double L_d[16] = {0.4236547993389047, 0.6458941130666561, 0.4375872112626925, 0.8917730007820798,
                                   0.9636627605010293, 0.3834415188257777, 0.7917250380826646, 0.5288949197529045,
                                   0.5680445610939323, 0.925596638292661, 0.07103605819788694, 0.08712929970154071,
                                   0.02021839744032572, 0.832619845547938, 0.7781567509498505, 0.8700121482468192};
    static const double noise_d[4] = {1.4940790731576061, -0.20515826376580087, 0.31306770165090136, -0.8540957393017248};
    static const double sample_d[4] = {2.9502425950639712, 1.7851807716773718, 1.8316869694257005, 0.9079822825459917};
    ct_tensor *mu = ct_tensor_f64(mu_d, 4), *L = ct_tensor_f64(L_d, 4, 4), *noise = ct_tensor_f64(noise_d, 4);
    ct_tensor *sigma = ct_add(ct_matmul(L, ct_t(L)), ct_eye(4, 4, CT_FLOAT64));
    ct_tensor *sample = ct_add(mu, ct_matmul(ct_linalg_cholesky(sigma), noise));
    CHECK_VALUES(sample, sample_d, 4, 1e-14);
    CHECK_CLOSE(sqrt(ct_item(ct_linalg_det(sigma))), 4.237127491242027, 1e-14);
    ct_tensor *d = ct_linalg_diagonal(ct_linalg_cholesky(sigma), 0, -2, -1);
    double prod = 1.0;
    for (int i = 0; i < 4; i++) prod *= ct_item(ct_select(d, 0, i));
    CHECK_CLOSE(prod, 4.237127491242028, 1e-14);
    CHECK_REPR(ct_linalg_cholesky(ct_eye(2, 2, CT_FLOAT64)), "tensor([[1., 0.],\n        [0., 1.]], dtype=torch.float64)");
}
TEST(test_announcement_inv_backward) {
    static const float t_d[4] = {1, 2, 3, 4};
    static const double want[4] = {-0.5, 0.5, 0.5, -0.5};
    ct_tensor *t = ct_requires_grad(ct_tensor_f32(t_d, 2, 2));
    ct_tensor *inv = ct_linalg_inv(t);
    ct_tensor *g1 = ct_ones_like(inv);
    CHECK(ct_backward_ex(1, &inv, &g1, NULL) == CT_OK);
    CHECK_VALUES(ct_grad(t), want, 4, 1e-6);
    CHECK_STR(ct_grad_fn_name(inv), "LinalgInvExBackward0");
}

/* ---- identities, both kernel paths ---- */
TEST(test_cholesky_identities) {
    int64_t ns[3] = {1, 8, 24};
    for (int k = 0; k < 3; k++) {
        ct_tensor *A = SPD(10 + k, 3, ns[k], ns[k]);
        ct_tensor *Lw = ct_linalg_cholesky(A);
        CHECK_SMALL(maxdiff(ct_matmul(Lw, ct_mT(Lw)), A), 1e-12 * ns[k] * ns[k]);
        CHECK_SMALL(maxdiff(Lw, ct__la_tril(Lw, 0)), 0);
        ct_tensor *U = ct_linalg_cholesky_ex(A, 1, 1, NULL);
        CHECK_SMALL(maxdiff(U, ct_mT(Lw)), 1e-13 * ns[k]);
        ct_tensor *Af = ct_to(A, CT_FLOAT32);
        ct_tensor *Lf = ct_linalg_cholesky(Af);
        CHECK_SMALL(maxdiff(ct_matmul(Lf, ct_mT(Lf)), Af), 2e-5 * ns[k] * ns[k]);
        /* cholesky_solve / cholesky_inverse agree with solve / inv */
        ct_tensor *B = RANDN(20 + k, 3, ns[k], 2);
        CHECK_SMALL(maxdiff(ct_cholesky_solve(B, Lw, 0), ct_linalg_solve(A, B)), 1e-10);
        CHECK_SMALL(maxdiff(ct_cholesky_solve(B, U, 1), ct_linalg_solve(A, B)), 1e-10);
        CHECK_SMALL(maxdiff(ct_cholesky_inverse(Lw, 0), ct_linalg_inv(A)), 1e-10);
        CHECK_SMALL(maxdiff(ct_cholesky_inverse(U, 1), ct_linalg_inv(A)), 1e-10);
    }
}
TEST(test_inv_solve_lu_identities) {
    int64_t ns[3] = {3, 16, 40};
    for (int k = 0; k < 3; k++) {
        int64_t n = ns[k];
        ct_tensor *A = WELL(30 + k, 2, n, n), *B = RANDN(40 + k, 2, n, 3);
        ct_tensor *Id = ct_eye(n, n, CT_FLOAT64);
        CHECK_SMALL(maxdiff(ct_matmul(A, ct_linalg_inv(A)), Id), 1e-11);
        ct_tensor *X = ct_linalg_solve(A, B);
        CHECK_SMALL(maxdiff(ct_matmul(A, X), B), 1e-11);
        ct_tensor *Xr = ct_linalg_solve_ex(A, ct_mT(B), 0, 1, NULL);
        CHECK_SMALL(maxdiff(ct_matmul(Xr, A), ct_mT(B)), 1e-11);
        ct_linalg_lu_result lu = ct_linalg_lu(A, 1);
        CHECK_SMALL(maxdiff(ct_matmul(lu.P, ct_matmul(lu.L, lu.U)), A), 1e-11);
        ct_linalg_lu_factor_result f = ct_linalg_lu_factor(A, 1);
        CHECK_SMALL(maxdiff(ct_linalg_lu_solve(f.LU, f.pivots, B, 1, 0), X), 1e-11);
        CHECK_SMALL(maxdiff(ct_matmul(ct_mT(A), ct_linalg_lu_solve(f.LU, f.pivots, B, 1, 1)), B), 1e-11);
        CHECK_SMALL(maxdiff(ct_matmul(ct_linalg_lu_solve(f.LU, f.pivots, ct_mT(B), 0, 0), A), ct_mT(B)), 1e-11);
        CHECK_SMALL(maxdiff(ct_matmul(ct_linalg_lu_solve(f.LU, f.pivots, ct_mT(B), 0, 1), ct_mT(A)), ct_mT(B)), 1e-11);
        /* det(AB) = det(A) det(B) and slogdet agrees with det */
        ct_tensor *C = ct_div_scalar(WELL(50 + k, 2, n, n), 2.0 * sqrt((double)n));
        ct_tensor *A2 = ct_div_scalar(A, 2.0 * sqrt((double)n));
        ct_tensor *dAB = ct_linalg_det(ct_matmul(A2, C)), *dAdB = ct_mul(ct_linalg_det(A2), ct_linalg_det(C));
        CHECK_SMALL(maxdiff(ct_div(dAB, dAdB), ct_ones_like(dAB)), 1e-10);
        ct_linalg_slogdet_result sl = ct_linalg_slogdet(A2);
        CHECK_SMALL(maxdiff(ct_mul(sl.sign, ct_exp(sl.logabsdet)), ct_linalg_det(A2)), 1e-10 * fabs(ct_item(ct_select(ct_linalg_det(A2), 0, 0))) + 1e-300);
        /* rectangular LU */
        ct_tensor *W = RANDN(60 + k, n, n + 3), *T = RANDN(70 + k, n + 3, n);
        ct_linalg_lu_result lw = ct_linalg_lu(W, 1), lt = ct_linalg_lu(T, 1);
        CHECK_SMALL(maxdiff(ct_matmul(lw.P, ct_matmul(lw.L, lw.U)), W), 1e-12 * n);
        CHECK_SMALL(maxdiff(ct_matmul(lt.P, ct_matmul(lt.L, lt.U)), T), 1e-12 * n);
        /* triangular solves with a transposed (non-contiguous) A */
        ct_tensor *Tu = ct__la_triu(A, 0), *Tl = ct_mT(ct_contiguous(ct_mT(ct__la_tril(A, 0))));
        CHECK_SMALL(maxdiff(ct_matmul(Tu, ct_linalg_solve_triangular(Tu, B, 1, 1, 0)), B), 1e-11);
        CHECK_SMALL(maxdiff(ct_matmul(Tl, ct_linalg_solve_triangular(Tl, B, 0, 1, 0)), B), 1e-11);
        CHECK_SMALL(maxdiff(ct_matmul(ct_linalg_solve_triangular(Tl, ct_mT(B), 0, 0, 0), Tl), ct_mT(B)), 1e-11);
    }
}
TEST(test_qr_identities) {
    int64_t shapes[5][2] = {{5, 3}, {3, 5}, {4, 4}, {40, 24}, {24, 40}};
    const char *modes[2] = {"reduced", "complete"};
    for (int s = 0; s < 5; s++)
        for (int md = 0; md < 2; md++) {
            int64_t m = shapes[s][0], n = shapes[s][1], k = m < n ? m : n, qc = md ? m : k;
            ct_tensor *A = RANDN(80 + s, 2, m, n);
            ct_linalg_qr_result r = ct_linalg_qr(A, modes[md]);
            CHECK(r.Q && ct_size(r.Q, -1) == qc && ct_size(r.R, -2) == qc);
            CHECK_SMALL(maxdiff(ct_matmul(r.Q, r.R), A), 1e-12 * m);
            CHECK_SMALL(maxdiff(ct_matmul(ct_mT(r.Q), r.Q), ct_eye(qc, qc, CT_FLOAT64)), 1e-13 * m);
            CHECK_SMALL(maxdiff(r.R, ct__la_triu(r.R, 0)), 0);
        }
    ct_linalg_qr_result r = ct_linalg_qr(RANDN(90, 4, 3), "r");
    CHECK(r.Q && ct_numel(r.Q) == 0 && ct_size(r.R, 0) == 3);
}
TEST(test_svd_identities) {
    int64_t shapes[6][2] = {{5, 3}, {3, 5}, {8, 8}, {16, 16}, {40, 24}, {24, 40}};
    for (int s = 0; s < 6; s++) {
        int64_t m = shapes[s][0], n = shapes[s][1], k = m < n ? m : n;
        ct_tensor *A = RANDN(100 + s, 3, m, n);
        for (int full = 0; full < 2; full++) {
            ct_linalg_svd_result r = ct_linalg_svd(A, full);
            ct_tensor *U = full ? ct_narrow(r.U, -1, 0, k) : r.U, *Vh = full ? ct_narrow(r.Vh, -2, 0, k) : r.Vh;
            CHECK_SMALL(maxdiff(ct_matmul(ct_mul(U, ct_unsqueeze(r.S, -2)), Vh), A), 1e-12 * m * n);
            CHECK_SMALL(maxdiff(ct_matmul(ct_mT(r.U), r.U), eye_like(r.U)), 1e-12 * m);
            CHECK_SMALL(maxdiff(ct_matmul(r.Vh, ct_mT(r.Vh)), eye_like(ct_mT(r.Vh))), 1e-12 * n);
        }
        ct_tensor *S = ct_linalg_svdvals(A);
        CHECK_SMALL(maxdiff(S, ct_linalg_svd(A, 0).S), 1e-12 * m);
        /* descending, non-negative */
        ct_tensor *d = ct_sub(ct_narrow(S, -1, 0, k - 1), ct_narrow(S, -1, 1, k - 1));
        CHECK_SMALL(-ct_item(ct_linalg_vector_norm(ct_clamp(d, NAN, 0.0), INFINITY, 0, NULL, 0)), 0);
    }
    /* rank deficient: the Jacobi kernel falls back to LAPACK, U stays orthonormal */
    ct_tensor *R = ct_matmul(RANDN(110, 6, 2), RANDN(111, 2, 5));
    ct_linalg_svd_result r = ct_linalg_svd(R, 0);
    CHECK_SMALL(maxdiff(ct_matmul(ct_mT(r.U), r.U), ct_eye(5, 5, CT_FLOAT64)), 1e-12);
    CHECK_SMALL(maxdiff(ct_matmul(ct_mul(r.U, ct_unsqueeze(r.S, -2)), r.Vh), R), 1e-12);
    CHECK_SMALL(ct_item(ct_select(r.S, 0, 2)), 1e-13);
    CHECK_EQ_INT(ct_item_int(ct_linalg_matrix_rank(R, NAN, NAN, 0)), 2);
}
TEST(test_eigh_identities) {
    int64_t ns[4] = {1, 5, 16, 30};
    for (int k = 0; k < 4; k++) {
        int64_t n = ns[k];
        ct_tensor *A = SYM(120 + k, 2, n, n);
        for (int up = 0; up < 2; up++) {
            /* only the named triangle is read: garbage in the other one */
            ct_tensor *G = ct_add(A, up ? ct__la_tril(RANDN(130, n, n), -1) : ct__la_triu(RANDN(131, n, n), 1));
            ct_linalg_eig_result r = ct_linalg_eigh(G, up ? "U" : "L");
            CHECK_SMALL(maxdiff(ct_matmul(A, r.eigenvectors), ct_mul(r.eigenvectors, ct_unsqueeze(r.eigenvalues, -2))), 1e-12 * n);
            CHECK_SMALL(maxdiff(ct_matmul(ct_mT(r.eigenvectors), r.eigenvectors), ct_eye(n, n, CT_FLOAT64)), 1e-12 * n);
            CHECK_SMALL(maxdiff(ct_linalg_eigvalsh(G, up ? "U" : "L"), r.eigenvalues), 1e-12 * n);
            if (n > 1) {
                ct_tensor *d = ct_sub(ct_narrow(r.eigenvalues, -1, 1, n - 1), ct_narrow(r.eigenvalues, -1, 0, n - 1));
                CHECK_SMALL(-ct_item(ct_linalg_vector_norm(ct_clamp(d, NAN, 0.0), INFINITY, 0, NULL, 0)), 0);
            }
        }
    }
}
/* A V = V diag(L) for eig's complex outputs, checked elementwise in C */
static double eig_residual(const ct_tensor *A, ct_linalg_eig_result r) {
    int64_t n = ct_size(A, -1), cnt = ct_numel(A) / (n * n);
    ct_tensor *a = ct_contiguous(ct_to(A, CT_FLOAT64));
    ct_tensor *lv = ct_contiguous(ct_to(ct_view_as_real(r.eigenvalues), CT_FLOAT64));
    ct_tensor *vv = ct_contiguous(ct_to(ct_view_as_real(r.eigenvectors), CT_FLOAT64));
    if (!a || !lv || !vv) return NAN;
    const double *ap = (const double *)ct_data_ptr(a), *lp = (const double *)ct_data_ptr(lv), *vp = (const double *)ct_data_ptr(vv);
    double worst = 0.0;
    for (int64_t b = 0; b < cnt; b++)
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                double re = 0, im = 0;
                for (int64_t q = 0; q < n; q++) {
                    re += ap[b * n * n + i * n + q] * vp[2 * (b * n * n + q * n + j)];
                    im += ap[b * n * n + i * n + q] * vp[2 * (b * n * n + q * n + j) + 1];
                }
                double vr = vp[2 * (b * n * n + i * n + j)], vi = vp[2 * (b * n * n + i * n + j) + 1];
                double lr = lp[2 * (b * n + j)], li = lp[2 * (b * n + j) + 1];
                re -= vr * lr - vi * li;
                im -= vr * li + vi * lr;
                double e = sqrt(re * re + im * im);
                if (e > worst) worst = e;
            }
    return worst;
}
TEST(test_eig_identities) {
    int64_t ns[3] = {3, 8, 25};
    for (int k = 0; k < 3; k++) {
        ct_tensor *A = RANDN(140 + k, 2, ns[k], ns[k]);
        ct_linalg_eig_result r = ct_linalg_eig(A);
        CHECK(r.eigenvalues && ct_get_dtype(r.eigenvalues) == CT_COMPLEX128 && ct_get_dtype(r.eigenvectors) == CT_COMPLEX128);
        CHECK_SMALL(eig_residual(A, r), 1e-11 * ns[k]);
        CHECK_SMALL(maxdiff(ct_real(ct_linalg_eigvals(A)), ct_real(r.eigenvalues)), 1e-12);
        CHECK_SMALL(maxdiff(ct_imag(ct_linalg_eigvals(A)), ct_imag(r.eigenvalues)), 1e-12);
        /* sum of eigenvalues = trace, product = det (real parts; imaginary parts cancel) */
        CHECK_SMALL(maxdiff(ct_sum_dim(ct_real(r.eigenvalues), -1, 0), ct_sum_dim(ct_linalg_diagonal(A, 0, -2, -1), -1, 0)), 1e-10 * ns[k]);
        CHECK_SMALL(ct_item(ct_linalg_vector_norm(ct_sum_dim(ct_imag(r.eigenvalues), -1, 0), INFINITY, 0, NULL, 0)), 1e-10);
    }
    ct_linalg_eig_result rf = ct_linalg_eig(ct_to(RANDN(150, 4, 4), CT_FLOAT32));
    CHECK(rf.eigenvalues && ct_get_dtype(rf.eigenvalues) == CT_COMPLEX64);
    CHECK_SMALL(eig_residual(ct_to(RANDN(150, 4, 4), CT_FLOAT32), rf), 1e-5);
    /* complex views round-trip and share memory */
    ct_tensor *re = ct_view_as_real(rf.eigenvalues);
    CHECK(re && ct_get_dtype(re) == CT_FLOAT32 && ct_ndim(re) == 2 && ct_size(re, 1) == 2);
    ct_tensor *back = ct_view_as_complex(re);
    CHECK(back && ct_get_dtype(back) == CT_COMPLEX64 && ct_data_ptr(back) == ct_data_ptr(rf.eigenvalues));
    CHECK_ERR(ct_imag(RANDN(1, 3)), CT_ERR_DTYPE, "imag: imag is not implemented for tensors with non-complex dtypes.");
    CHECK_ERR(ct_view_as_real(RANDN(1, 3)), CT_ERR_DTYPE, "view_as_real is only supported for complex tensors");
    CHECK_ERR(ct_view_as_complex(RANDN(1, 3)), CT_ERR_SHAPE, "view_as_complex: Tensor must have a last dimension of size 2");
}
TEST(test_pinv_lstsq_identities) {
    int64_t shapes[4][2] = {{6, 4}, {4, 6}, {30, 20}, {20, 30}};
    for (int s = 0; s < 4; s++) {
        int64_t m = shapes[s][0], n = shapes[s][1];
        ct_tensor *A = RANDN(160 + s, 2, m, n);
        ct_tensor *P = ct_linalg_pinv(A, NAN, NAN, 0);
        /* Moore-Penrose conditions */
        CHECK_SMALL(maxdiff(ct_matmul(A, ct_matmul(P, A)), A), 1e-11);
        CHECK_SMALL(maxdiff(ct_matmul(P, ct_matmul(A, P)), P), 1e-11);
        ct_tensor *AP = ct_matmul(A, P), *PA = ct_matmul(P, A);
        CHECK_SMALL(maxdiff(AP, ct_mT(AP)), 1e-11);
        CHECK_SMALL(maxdiff(PA, ct_mT(PA)), 1e-11);
        /* lstsq = pinv(A) B for every driver */
        ct_tensor *B = RANDN(170 + s, 2, m, 3);
        const char *drv[4] = {"gels", "gelsy", "gelsd", "gelss"};
        for (int d = 0; d < 4; d++) CHECK_SMALL(maxdiff(ct_linalg_lstsq(A, B, NAN, drv[d]).solution, ct_matmul(P, B)), 1e-10);
    }
    /* hermitian pinv of a rank-deficient PSD matrix, and rank */
    ct_tensor *X = RANDN(180, 7, 3), *H = ct_matmul(X, ct_mT(X));
    ct_tensor *Ph = ct_linalg_pinv(H, NAN, NAN, 1);
    CHECK_SMALL(maxdiff(Ph, ct_linalg_pinv(H, NAN, NAN, 0)), 1e-10);
    CHECK_SMALL(maxdiff(ct_matmul(H, ct_matmul(Ph, H)), H), 1e-10);
    CHECK_EQ_INT(ct_item_int(ct_linalg_matrix_rank(H, NAN, NAN, 1)), 3);
    CHECK_EQ_INT(ct_item_int(ct_linalg_matrix_rank(H, NAN, NAN, 0)), 3);
    /* residuals: the squared norm of A X - B per column */
    ct_tensor *A = RANDN(181, 8, 3), *B = RANDN(182, 8, 2);
    ct_linalg_lstsq_result r = ct_linalg_lstsq(A, B, NAN, "gelsd");
    ct_tensor *res = ct_sum_dim(ct_square(ct_sub(ct_matmul(A, r.solution), B)), 0, 0);
    CHECK_SMALL(maxdiff(r.residuals, res), 1e-12);
    CHECK_EQ_INT(ct_item_int(r.rank), 3);
    CHECK_SMALL(maxdiff(r.singular_values, ct_linalg_svdvals(A)), 1e-12);
}
TEST(test_matrix_functions) {
    int64_t ns[2] = {4, 20};
    for (int k = 0; k < 2; k++) {
        int64_t n = ns[k];
        ct_tensor *A = ct_div_scalar(RANDN(190 + k, 2, n, n), (double)n / 2.0);
        ct_tensor *Id = ct_eye(n, n, CT_FLOAT64);
        CHECK_SMALL(maxdiff(ct_matmul(ct_linalg_matrix_exp(A), ct_linalg_matrix_exp(ct_neg(A))), Id), 1e-12 * n);
        ct_tensor *S = SYM(195 + k, n, n);   /* exp of a symmetric matrix: V diag(exp(w)) V^T */
        ct_linalg_eig_result e = ct_linalg_eigh(S, "L");
        ct_tensor *ref = ct_matmul(ct_mul(e.eigenvectors, ct_unsqueeze(ct_exp(e.eigenvalues), -2)), ct_mT(e.eigenvectors));
        CHECK_SMALL(maxdiff(ct_linalg_matrix_exp(S), ref), 1e-11 * ct_item(ct_linalg_vector_norm(ref, INFINITY, 0, NULL, 0)));
        ct_tensor *W = ct_add(A, ct_mul_scalar(Id, 2.0));
        CHECK_SMALL(maxdiff(ct_linalg_matrix_power(W, 3), ct_matmul(W, ct_matmul(W, W))), 1e-12 * n * 10);
        CHECK_SMALL(maxdiff(ct_linalg_matrix_power(W, -2), ct_linalg_inv(ct_matmul(W, W))), 1e-12);
        CHECK_SMALL(maxdiff(ct_linalg_matrix_power(W, 0), ct_expand_as(Id, W)), 0);
        /* householder_product of QR's reflectors = Q (via LAPACK's geqrf) */
    }
    /* a big-norm matrix goes through scaling and squaring */
    ct_tensor *B = ct_mul_scalar(ct_eye(3, 3, CT_FLOAT64), 10.0);
    CHECK_SMALL(maxdiff(ct_linalg_matrix_exp(B), ct_mul_scalar(ct_eye(3, 3, CT_FLOAT64), exp(10.0))), 1e-9);
    /* multi_dot = left-to-right product, with vectors at the ends */
    ct_tensor *ts[4] = {RANDN(200, 5), RANDN(201, 5, 9), RANDN(202, 9, 2), RANDN(203, 2)};
    ct_tensor *ref = ct_matmul(ct_matmul(ct_matmul(ts[0], ts[1]), ts[2]), ts[3]);
    CHECK_SMALL(maxdiff(ct_linalg_multi_dot(4, ts), ref), 1e-12);
    CHECK(ct_ndim(ct_linalg_multi_dot(4, ts)) == 0);
    /* cross, vecdot, vander, diagonal, trace, tensorinv/tensorsolve */
    static const double a3[3] = {1, 0, 0}, b3[3] = {0, 1, 0}, c3[3] = {0, 0, 1};
    CHECK_VALUES(ct_linalg_cross(ct_tensor_f64(a3, 3), ct_tensor_f64(b3, 3), -1), c3, 3, 0);
    static const double x3[3] = {1, 2, 3}, v9[9] = {1, 1, 1, 1, 2, 4, 1, 3, 9};
    CHECK_VALUES(ct_linalg_vander(ct_tensor_f64(x3, 3), -1), v9, 9, 0);
    CHECK_CLOSE(ct_item(ct_linalg_vecdot(ct_tensor_f64(x3, 3), ct_tensor_f64(x3, 3), -1)), 14.0, 0);
    CHECK_CLOSE(ct_item(ct_trace(ct_tensor_f64(v9, 3, 3))), 12.0, 0);
    ct_tensor *T = ct_reshape(WELL(210, 6, 6), 2, 3, 6);
    ct_tensor *Ti = ct_linalg_tensorinv(T, 2);
    CHECK(Ti && ct_ndim(Ti) == 3 && ct_size(Ti, 0) == 6);
    CHECK_SMALL(maxdiff(ct_reshape(ct_matmul(ct_reshape(T, 6, 6), ct_reshape(Ti, 6, 6)), 6, 6), ct_eye(6, 6, CT_FLOAT64)), 1e-12);
    ct_tensor *Bt = RANDN(211, 2, 3), *Xt = ct_linalg_tensorsolve(T, Bt, 0, NULL);
    CHECK_SMALL(maxdiff(ct_reshape(ct_matmul(ct_reshape(T, 6, 6), ct_reshape(Xt, 6)), 2, 3), Bt), 1e-12);
}
TEST(test_norms) {
    static const double v[4] = {3, -4, 0, 12};
    ct_tensor *x = ct_tensor_f64(v, 4);
    CHECK_CLOSE(ct_item(ct_linalg_vector_norm(x, 2, 0, NULL, 0)), 13.0, 1e-14);
    CHECK_CLOSE(ct_item(ct_linalg_vector_norm(x, 1, 0, NULL, 0)), 19.0, 0);
    CHECK_CLOSE(ct_item(ct_linalg_vector_norm(x, 0, 0, NULL, 0)), 3.0, 0);
    CHECK_CLOSE(ct_item(ct_linalg_vector_norm(x, INFINITY, 0, NULL, 0)), 12.0, 0);
    CHECK_CLOSE(ct_item(ct_linalg_vector_norm(x, -INFINITY, 0, NULL, 0)), 0.0, 0);
    CHECK_CLOSE(ct_item(ct_linalg_vector_norm(x, 3, 0, NULL, 0)), pow(27.0 + 64.0 + 1728.0, 1.0 / 3.0), 1e-12);
    CHECK_CLOSE(ct_item(ct_linalg_vector_norm(x, 0.5, 0, NULL, 0)), pow(sqrt(3.0) + 2.0 + sqrt(12.0), 2.0), 1e-12);
    ct_tensor *A = RANDN(220, 3, 5, 4);
    static const char *ords[8] = {"fro", "nuc", "1", "-1", "2", "-2", "inf", "-inf"};
    for (int k = 0; k < 8; k++) {
        ct_tensor *r = ct_linalg_matrix_norm(A, ords[k], NULL, 0);
        CHECK(r && ct_ndim(r) == 1 && ct_size(r, 0) == 3);
        ct_tensor *rk = ct_linalg_matrix_norm(A, ords[k], NULL, 1);
        CHECK(rk && ct_ndim(rk) == 3 && ct_size(rk, 1) == 1 && ct_size(rk, 2) == 1);
        CHECK_SMALL(maxdiff(ct_reshape(rk, 3), r), 0);
    }
    /* 2-norm = largest singular value, nuc = their sum, 1 = max column sum */
    ct_tensor *S = ct_linalg_svdvals(A);
    CHECK_SMALL(maxdiff(ct_linalg_matrix_norm(A, "2", NULL, 0), ct_select(S, -1, 0)), 1e-12);
    CHECK_SMALL(maxdiff(ct_linalg_matrix_norm(A, "nuc", NULL, 0), ct_sum_dim(S, -1, 0)), 1e-12);
    int64_t d1 = 1, dl = -1;
    CHECK_SMALL(maxdiff(ct_linalg_matrix_norm(A, "1", NULL, 0), ct_linalg_vector_norm(ct_sum_dim(ct_abs(A), 1, 0), INFINITY, 1, &dl, 0)), 1e-12);
    CHECK_SMALL(maxdiff(ct_linalg_norm(A, NULL, 0, NULL, 0), ct_linalg_vector_norm(A, 2, 0, NULL, 0)), 1e-12);
    CHECK_SMALL(maxdiff(ct_linalg_norm(A, "3", 1, &d1, 0), ct_linalg_vector_norm(A, 3, 1, &d1, 0)), 0);
    /* cond: 2-norm ratio of singular values; p = 1 with the inverse */
    ct_tensor *C = WELL(221, 4, 4);
    ct_tensor *s = ct_linalg_svdvals(C);
    CHECK_CLOSE(ct_item(ct_linalg_cond(C, NULL)), ct_item(ct_select(s, 0, 0)) / ct_item(ct_select(s, 0, 3)), 1e-10);
    CHECK_CLOSE(ct_item(ct_linalg_cond(C, "1")),
                ct_item(ct_linalg_matrix_norm(C, "1", NULL, 0)) * ct_item(ct_linalg_matrix_norm(ct_linalg_inv(C), "1", NULL, 0)), 1e-10);
    CHECK(isinf(ct_item(ct_linalg_cond(ct_zeros(CT_FLOAT64, 2, 2), "1"))));
    CHECK(isnan(ct_item(ct_linalg_cond(ct_zeros(CT_FLOAT64, 2, 2), NULL))));
}

/* ---- batched = per matrix (the small kernels loop over the batch) ---- */
TEST(test_batched_matches_single) {
    const int nb = 50;
    ct_tensor *A = SPD(230, nb, 8, 8), *B = RANDN(231, nb, 8, 3), *G = RANDN(232, nb, 8, 6);
    ct_tensor *L = ct_linalg_cholesky(A), *Ai = ct_linalg_inv(A), *X = ct_linalg_solve(A, B), *d = ct_linalg_det(A);
    ct_linalg_eig_result e = ct_linalg_eigh(A, "L");
    ct_linalg_svd_result s = ct_linalg_svd(G, 0);
    double worst = 0;
    for (int b = 0; b < nb; b++) {
        ct_tensor *Ab = ct_select(A, 0, b);
        double w[6];
        w[0] = maxdiff(ct_select(L, 0, b), ct_linalg_cholesky(Ab));
        w[1] = maxdiff(ct_select(Ai, 0, b), ct_linalg_inv(Ab));
        w[2] = maxdiff(ct_select(X, 0, b), ct_linalg_solve(Ab, ct_select(B, 0, b)));
        w[3] = maxdiff(ct_select(d, 0, b), ct_linalg_det(Ab));
        w[4] = maxdiff(ct_select(e.eigenvalues, 0, b), ct_linalg_eigh(Ab, "L").eigenvalues);
        w[5] = maxdiff(ct_select(s.S, 0, b), ct_linalg_svd(ct_select(G, 0, b), 0).S);
        for (int k = 0; k < 6; k++) if (!(w[k] <= worst)) worst = w[k];
    }
    CHECK_SMALL(worst, 0);
    /* broadcasting in solve: A (2, 1, n, n), B (3, n, k) -> (2, 3, n, k) */
    ct_tensor *Ab = WELL(233, 2, 1, 5, 5), *Bb = RANDN(234, 3, 5, 2);
    ct_tensor *Xb = ct_linalg_solve(Ab, Bb);
    CHECK(Xb && ct_ndim(Xb) == 4 && ct_size(Xb, 0) == 2 && ct_size(Xb, 1) == 3);
    CHECK_SMALL(maxdiff(ct_matmul(Ab, Xb), ct_expand_as(Bb, Xb)), 1e-12);
    /* empty batches and 0x0 matrices */
    CHECK(ct_numel(ct_linalg_cholesky(ct_zeros(CT_FLOAT64, 0, 4, 4))) == 0);
    CHECK(ct_numel(ct_linalg_inv(ct_zeros(CT_FLOAT64, 0, 0))) == 0);
    CHECK_CLOSE(ct_item(ct_linalg_det(ct_zeros(CT_FLOAT64, 0, 0))), 1.0, 0);
    CHECK(ct_numel(ct_linalg_svd(ct_zeros(CT_FLOAT64, 3, 0, 4), 0).S) == 0);
    CHECK(ct_numel(ct_linalg_eigh(ct_zeros(CT_FLOAT64, 0, 4, 4), "L").eigenvalues) == 0);
}

/* ---- n <= 16 in lock-step: whole groups of 8 matrices run the batched kernels,
   the rest of the batch the one-matrix ones (a batch of 19: two groups and three
   alone). Every n, both dtypes: identities, the one-matrix results, and failures
   inside a group giving the one-matrix path's infos and messages. ---- */
static double rel_to(const ct_tensor *A) { return ct_item(ct_linalg_vector_norm(ct_to(A, CT_FLOAT64), INFINITY, 0, NULL, 0)) + 1.0; }
TEST(test_small_lanes) {
    const int64_t nb = 19;
    for (int f32 = 0; f32 < 2; f32++)
        for (int64_t n = 1; n <= 16; n++) {
            ct_dtype dt = f32 ? CT_FLOAT32 : CT_FLOAT64;
            double eps = f32 ? 1e-5 : 1e-13, tol = eps * (double)(n * n);
            ct_tensor *S = ct_to(SPD(300 + n, nb, n, n), dt), *A = ct_to(WELL(320 + n, nb, n, n), dt);
            ct_tensor *H = ct_to(SYM(340 + n, nb, n, n), dt), *G = ct_to(RANDN(360 + n, nb, n, n), dt);
            ct_tensor *B = ct_to(RANDN(380 + n, nb, n, 3), dt), *Id = ct_eye(n, n, dt);
            ct_tensor *L = ct_linalg_cholesky(S), *U = ct_linalg_cholesky_ex(S, 1, 1, NULL);
            ct_tensor *Ai = ct_linalg_inv(A), *X = ct_linalg_solve(A, B);
            ct_linalg_lu_factor_result f = ct_linalg_lu_factor(A, 1);
            ct_linalg_eig_result e = ct_linalg_eigh(H, "L");
            ct_linalg_svd_result sv = ct_linalg_svd(G, 0);
            CHECK_SMALL(maxdiff(ct_matmul(L, ct_mT(L)), S) / rel_to(S), tol);
            CHECK_SMALL(maxdiff(L, ct__la_tril(L, 0)), 0);
            CHECK_SMALL(maxdiff(U, ct_mT(L)) / rel_to(S), tol);
            CHECK_SMALL(maxdiff(ct_matmul(A, Ai), Id), tol);
            CHECK_SMALL(maxdiff(ct_matmul(A, X), B) / rel_to(B), tol);
            CHECK_SMALL(maxdiff(ct_linalg_lu_solve(f.LU, f.pivots, B, 1, 0), X) / rel_to(X), 10 * tol);
            CHECK_SMALL(maxdiff(ct_matmul(H, e.eigenvectors), ct_mul(e.eigenvectors, ct_unsqueeze(e.eigenvalues, -2))) / rel_to(H), tol);
            CHECK_SMALL(maxdiff(ct_matmul(ct_mT(e.eigenvectors), e.eigenvectors), Id), tol);
            CHECK_SMALL(maxdiff(ct_linalg_eigvalsh(H, "L"), e.eigenvalues), 0);
            CHECK_SMALL(maxdiff(ct_matmul(ct_mul(sv.U, ct_unsqueeze(sv.S, -2)), sv.Vh), G) / rel_to(G), tol);
            CHECK_SMALL(maxdiff(ct_matmul(ct_mT(sv.U), sv.U), Id), tol);
            CHECK_SMALL(maxdiff(ct_matmul(sv.Vh, ct_mT(sv.Vh)), Id), tol);
            CHECK_SMALL(maxdiff(ct_linalg_svdvals(G), sv.S), 0);
            if (n > 1) {   /* eigenvalues ascending, singular values descending */
                ct_tensor *dw = ct_sub(ct_narrow(e.eigenvalues, -1, 1, n - 1), ct_narrow(e.eigenvalues, -1, 0, n - 1));
                ct_tensor *ds = ct_sub(ct_narrow(sv.S, -1, 0, n - 1), ct_narrow(sv.S, -1, 1, n - 1));
                CHECK_SMALL(-ct_item(ct_min(ct_to(dw, CT_FLOAT64))), 0);
                CHECK_SMALL(-ct_item(ct_min(ct_to(ds, CT_FLOAT64))), 0);
            }
            /* the same results (signs of eigenvectors and singular vectors included)
               as the one-matrix kernels give each matrix alone */
            double worst = 0;
            for (int64_t b = 0; b < nb; b += 4) {
                ct_tensor *Sb = ct_select(S, 0, b), *Ab = ct_select(A, 0, b), *Hb = ct_select(H, 0, b), *Gb = ct_select(G, 0, b);
                ct_linalg_eig_result e1 = ct_linalg_eigh(Hb, "L");
                ct_linalg_svd_result s1 = ct_linalg_svd(Gb, 0);
                double w[9];
                w[0] = maxdiff(ct_select(L, 0, b), ct_linalg_cholesky(Sb)) / rel_to(Sb);
                w[1] = maxdiff(ct_select(Ai, 0, b), ct_linalg_inv(Ab)) / rel_to(Ai);
                w[2] = maxdiff(ct_select(X, 0, b), ct_linalg_solve(Ab, ct_select(B, 0, b))) / rel_to(X);
                w[3] = maxdiff(ct_select(f.LU, 0, b), ct_linalg_lu_factor(Ab, 1).LU) / rel_to(f.LU);
                w[4] = maxdiff(ct_select(f.pivots, 0, b), ct_linalg_lu_factor(Ab, 1).pivots);
                w[5] = maxdiff(ct_select(e.eigenvalues, 0, b), e1.eigenvalues) / rel_to(Hb);
                w[6] = maxdiff(ct_select(e.eigenvectors, 0, b), e1.eigenvectors);
                w[7] = maxdiff(ct_select(sv.S, 0, b), s1.S) / rel_to(Gb);
                w[8] = maxdiff(ct_select(sv.U, 0, b), s1.U) + maxdiff(ct_select(sv.Vh, 0, b), s1.Vh);
                for (int k = 0; k < 9; k++) if (!(w[k] <= worst)) worst = w[k];
            }
            CHECK_SMALL(worst, f32 ? 1e-6 : 1e-9);
        }
    /* failures inside a group: the infos and the first failing batch element of
       the one-matrix path */
    ct_tensor *S = ct_contiguous(SPD(400, 17, 5, 5)), *A = ct_contiguous(WELL(401, 17, 6, 6));
    ct_fill_(ct_select(ct_select(ct_select(S, 0, 11), 0, 3), 0, 3), -50.0);
    ct_fill_(ct_select(ct_select(ct_select(S, 0, 13), 0, 0), 0, 0), -1.0);
    ct_fill_(ct_select(ct_select(A, 0, 4), -1, 2), 0.0);   /* a zero column */
    ct_fill_(ct_select(ct_select(A, 0, 9), 0, 5), 0.0);    /* a zero row */
    ct_tensor *info = NULL;
    ct_linalg_cholesky_ex(S, 0, 0, &info);
    for (int64_t b = 0; b < 17; b++) {
        ct_tensor *i1 = NULL;
        ct_linalg_cholesky_ex(ct_select(S, 0, b), 0, 0, &i1);
        CHECK_EQ_INT(ct_item_int(ct_select(info, 0, b)), ct_item_int(i1));
    }
    CHECK_EQ_INT(ct_item_int(ct_select(info, 0, 11)), 4);
    CHECK_EQ_INT(ct_item_int(ct_select(info, 0, 13)), 1);
    CHECK_ERR(ct_linalg_cholesky(S), CT_ERR_NUMERIC,
              "linalg.cholesky: (Batch element 11): The factorization could not be completed because the input is not positive-definite (the leading minor of order 4 is not positive-definite).");
    ct_linalg_inv_ex(A, 0, &info);
    for (int64_t b = 0; b < 17; b++) {
        ct_tensor *i1 = NULL;
        ct_linalg_inv_ex(ct_select(A, 0, b), 0, &i1);
        CHECK_EQ_INT(ct_item_int(ct_select(info, 0, b)), ct_item_int(i1));
    }
    CHECK_EQ_INT(ct_item_int(ct_select(info, 0, 4)), 3);
    CHECK_EQ_INT(ct_item_int(ct_select(info, 0, 9)), 6);
    CHECK_ERR(ct_linalg_inv(A), CT_ERR_NUMERIC,
              "linalg.inv: (Batch element 4): The diagonal element 3 is zero, the inversion could not be completed because the input matrix is singular.");
    CHECK_ERR(ct_linalg_solve(A, RANDN(402, 17, 6, 2)), CT_ERR_NUMERIC,
              "torch.linalg.solve: (Batch element 4): The solver failed because the input matrix is singular.");
    ct_linalg_lu_factor_result fe = ct_linalg_lu_factor_ex(A, 1, 0);
    CHECK_EQ_INT(ct_item_int(ct_select(fe.info, 0, 9)), 6);
    CHECK_ERR(ct_linalg_lu_factor(A, 1).LU, CT_ERR_NUMERIC, "torch.linalg.lu_factor: (Batch element 4): U[2,2] is zero");
    /* non-finite entries in a group: eigh goes to LAPACK for that matrix, svd raises */
    ct_tensor *Hn = ct_contiguous(SYM(403, 9, 4, 4));
    ct_fill_(ct_select(ct_select(ct_select(Hn, 0, 2), 0, 1), 0, 1), NAN);
    ct_linalg_eig_result en = ct_linalg_eigh(Hn, "L");
    CHECK(!en.eigenvalues || isnan(ct_item(ct_select(ct_select(en.eigenvalues, 0, 2), 0, 0))));
    ct_clear_error();
    CHECK_ERR(ct_linalg_svd(Hn, 0).S, CT_ERR_NUMERIC, "linalg.svd: The algorithm failed to converge because the input matrix contained non-finite values.");
    /* repeated eigenvalues: eigenvalues exact, eigenvectors orthonormal */
    ct_tensor *Q = ct_linalg_qr(RANDN(404, 9, 6, 6), "reduced").Q;
    static const double ev[6] = {1, 1, 1, 2, 2, -3};
    ct_tensor *Rp = ct_matmul(ct_mul(Q, ct_tensor_f64(ev, 6)), ct_mT(Q));
    Rp = ct_mul_scalar(ct_add(Rp, ct_mT(Rp)), 0.5);
    ct_linalg_eig_result er = ct_linalg_eigh(Rp, "L");
    static const double evs[6] = {-3, 1, 1, 1, 2, 2};
    CHECK_SMALL(maxdiff(er.eigenvalues, ct_expand(ct_tensor_f64(evs, 6), 9, 6)), 1e-13);
    CHECK_SMALL(maxdiff(ct_matmul(ct_mT(er.eigenvectors), er.eigenvectors), ct_eye(6, 6, CT_FLOAT64)), 1e-13);
    CHECK_SMALL(maxdiff(ct_matmul(Rp, er.eigenvectors), ct_mul(er.eigenvectors, ct_unsqueeze(er.eigenvalues, -2))), 1e-13);
    /* rank-deficient svd in a group (those lanes go to LAPACK) */
    ct_tensor *Rd = ct_matmul(RANDN(405, 9, 6, 2), RANDN(406, 9, 2, 5));
    ct_linalg_svd_result rs = ct_linalg_svd(Rd, 0);
    CHECK_SMALL(maxdiff(ct_matmul(ct_mT(rs.U), rs.U), ct_eye(5, 5, CT_FLOAT64)), 1e-12);
    CHECK_SMALL(maxdiff(ct_matmul(ct_mul(rs.U, ct_unsqueeze(rs.S, -2)), rs.Vh), Rd), 1e-12);
    CHECK_SMALL(ct_item(ct_max(ct_narrow(rs.S, -1, 2, 3))), 1e-13);
    /* lstsq's default (gelsy) on rank-deficient matrices: the unpivoted first try
       finds them deficient and the pivoted factorization decides (minimum norm) */
    ct_tensor *Z = ct_contiguous(RANDN(407, 7, 4));
    ct_fill_(ct_select(Z, -1, 0), 0.0);   /* zero first column */
    ct_tensor *Zb = RANDN(408, 7, 2), *R2 = ct_matmul(RANDN(409, 7, 2), RANDN(410, 2, 4));
    ct_linalg_lstsq_result lz = ct_linalg_lstsq(Z, Zb, NAN, NULL), l2 = ct_linalg_lstsq(R2, Zb, NAN, NULL);
    CHECK_EQ_INT(ct_item_int(lz.rank), 3);
    CHECK_EQ_INT(ct_item_int(l2.rank), 2);
    CHECK_SMALL(maxdiff(lz.solution, ct_matmul(ct_linalg_pinv(Z, NAN, NAN, 0), Zb)), 1e-12);
    CHECK_SMALL(maxdiff(l2.solution, ct_matmul(ct_linalg_pinv(R2, NAN, NAN, 0), Zb)), 1e-11);
    ct_tensor *W = WELL(411, 40, 40), *Wb = RANDN(412, 40, 2);
    ct_linalg_lstsq_result lw = ct_linalg_lstsq(W, Wb, NAN, NULL);
    CHECK_EQ_INT(ct_item_int(lw.rank), 40);
    CHECK_SMALL(maxdiff(lw.solution, ct_linalg_solve(W, Wb)), 1e-12);
}

/* ---- gradcheck: every differentiable function ---- */
static ct_tensor *symz(const ct_tensor *x) { return ct_add(x, ct_mT(x)); }
static ct_tensor *f_chol(const ct_tensor *x) { return ct_linalg_cholesky(symz(x)); }
static ct_tensor *f_chol_up(const ct_tensor *x) { return ct_linalg_cholesky_ex(symz(x), 1, 1, NULL); }
static ct_tensor *f_inv(const ct_tensor *x) { return ct_linalg_inv(x); }
static ct_tensor *f_det(const ct_tensor *x) { return ct_linalg_det(x); }
static ct_tensor *f_logabsdet(const ct_tensor *x) { return ct_linalg_slogdet(x).logabsdet; }
static ct_tensor *f_logdet(const ct_tensor *x) { return ct_logdet(symz(x)); }
static ct_tensor *f_solve(const ct_tensor *a, const ct_tensor *b) { return ct_linalg_solve(a, b); }
static ct_tensor *f_solve_right(const ct_tensor *a, const ct_tensor *b) { return ct_linalg_solve_ex(a, b, 0, 1, NULL); }
static ct_tensor *f_stri_u(const ct_tensor *a, const ct_tensor *b) { return ct_linalg_solve_triangular(a, b, 1, 1, 0); }
static ct_tensor *f_stri_l_right_unit(const ct_tensor *a, const ct_tensor *b) { return ct_linalg_solve_triangular(a, b, 0, 0, 1); }
static ct_tensor *f_lu_factor(const ct_tensor *x) { return ct_linalg_lu_factor(x, 1).LU; }
static ct_tensor *f_lu_LU(const ct_tensor *x) { ct_linalg_lu_result r = ct_linalg_lu(x, 1); return ct_add(ct_sum(r.L), ct_mul_scalar(ct_sum(ct_square(r.U)), 0.5)); }
static int lu_left, lu_adj;
static ct_tensor *f_lu_solve(const ct_tensor *a, const ct_tensor *b) {
    ct_linalg_lu_factor_result f = ct_linalg_lu_factor(a, 1);
    return ct_linalg_lu_solve(f.LU, f.pivots, b, lu_left, lu_adj);
}
static ct_tensor *f_chol_solve(const ct_tensor *b, const ct_tensor *l) { return ct_cholesky_solve(b, ct_add(ct__la_tril(l, 0), ct_mul_scalar(eye_like(l), 3.0)), 0); }
static ct_tensor *f_chol_inv(const ct_tensor *l) { return ct_cholesky_inverse(ct_add(ct__la_triu(l, 0), ct_mul_scalar(eye_like(l), 3.0)), 1); }
static ct_tensor *f_qr_sum(const ct_tensor *x) {
    ct_linalg_qr_result r = ct_linalg_qr(x, "reduced");
    return ct_add(ct_sum(ct_mul(r.Q, r.Q)), ct_sum(ct_mul_scalar(r.Q, 0.3))) ? ct_add(ct_sum(ct_mul_scalar(r.Q, 0.7)), ct_sum(ct_mul_scalar(r.R, 0.2))) : NULL;
}
static ct_tensor *f_qr_Q(const ct_tensor *x) { return ct_linalg_qr(x, "reduced").Q; }
static ct_tensor *f_qr_R(const ct_tensor *x) { return ct_linalg_qr(x, "reduced").R; }
static ct_tensor *f_qr_complete_Q(const ct_tensor *x) { return ct_linalg_qr(x, "complete").Q; }
static ct_tensor *f_eigvalsh(const ct_tensor *x) { return ct_linalg_eigvalsh(symz(x), "L"); }
static ct_tensor *f_eigh_vfv(const ct_tensor *x) {
    ct_linalg_eig_result r = ct_linalg_eigh(symz(x), "U");
    return ct_matmul(ct_mul(r.eigenvectors, ct_unsqueeze(ct_sin(r.eigenvalues), -2)), ct_mT(r.eigenvectors));
}
static ct_tensor *f_eig_vals(const ct_tensor *x) {
    ct_tensor *L = ct_view_as_real(ct_linalg_eig(x).eigenvalues);
    return ct_sum(ct_mul(L, L));   /* sum |lambda|^2 ... of re and im separately: symmetric in the pair order */
}
static ct_tensor *f_eigvals_prod(const ct_tensor *x) {
    ct_tensor *L = ct_view_as_real(ct_linalg_eigvals(x));
    return ct_sum(ct_mul(ct_select(L, -1, 0), ct_exp(ct_select(L, -1, 1))));
}
static ct_tensor *f_eig_vecs(const ct_tensor *x) {   /* |V_ij|^2 is phase (gauge) invariant */
    ct_tensor *V = ct_view_as_real(ct_linalg_eig(x).eigenvectors);
    return ct_sum_dim(ct_mul(V, V), -1, 0);
}
static ct_tensor *f_svdvals(const ct_tensor *x) { return ct_linalg_svdvals(x); }
static ct_tensor *f_svd_uvh(const ct_tensor *x) { ct_linalg_svd_result r = ct_linalg_svd(x, 0); return ct_matmul(r.U, r.Vh); }
static ct_tensor *f_svd_full_uvh(const ct_tensor *x) {
    ct_linalg_svd_result r = ct_linalg_svd(x, 1);
    int64_t k = ct_size(r.S, -1);
    return ct_add(ct_matmul(ct_narrow(r.U, -1, 0, k), ct_narrow(r.Vh, -2, 0, k)), ct_unsqueeze(ct_sum(r.S), -1));
}
static ct_tensor *f_pinv(const ct_tensor *x) { return ct_linalg_pinv(x, NAN, NAN, 0); }
static ct_tensor *f_pinv_h(const ct_tensor *x) { return ct_linalg_pinv(ct_add(symz(x), ct_mul_scalar(eye_like(x), 5.0)), NAN, NAN, 1); }
static const char *lstsq_drv;
static ct_tensor *f_lstsq(const ct_tensor *a, const ct_tensor *b) { return ct_linalg_lstsq(a, b, NAN, lstsq_drv).solution; }
static ct_tensor *f_hh(const ct_tensor *a, const ct_tensor *t) { return ct_linalg_householder_product(a, t); }
static ct_tensor *f_expm(const ct_tensor *x) { return ct_linalg_matrix_exp(x); }
static ct_tensor *f_mpow3(const ct_tensor *x) { return ct_linalg_matrix_power(x, 3); }
static ct_tensor *f_mpowm2(const ct_tensor *x) { return ct_linalg_matrix_power(x, -2); }
static double vn_ord;
static ct_tensor *f_vnorm(const ct_tensor *x) { int64_t d = 1; return ct_linalg_vector_norm(x, vn_ord, 1, &d, 0); }
static const char *mn_ord;
static ct_tensor *f_mnorm(const ct_tensor *x) { return ct_linalg_matrix_norm(x, mn_ord, NULL, 0); }
static ct_tensor *f_cond(const ct_tensor *x) { return ct_linalg_cond(x, mn_ord); }
static ct_tensor *f_norm(const ct_tensor *x) { return ct_linalg_norm(x, NULL, 0, NULL, 0); }
static ct_tensor *f_multi_dot(const ct_tensor *a, const ct_tensor *b) {
    ct_tensor *ts[3] = {(ct_tensor *)a, (ct_tensor *)b, (ct_tensor *)a};
    return ct_linalg_multi_dot(3, ts);
}
static ct_tensor *f_tinv(const ct_tensor *x) { return ct_linalg_tensorinv(ct_reshape(x, 2, 2, 4), 2); }
static ct_tensor *f_tsolve(const ct_tensor *a, const ct_tensor *b) { return ct_linalg_tensorsolve(ct_reshape(a, 2, 2, 4), b, 0, NULL); }
static ct_tensor *f_cross(const ct_tensor *a, const ct_tensor *b) { return ct_linalg_cross(a, b, -1); }
static ct_tensor *f_vecdot(const ct_tensor *a, const ct_tensor *b) { return ct_linalg_vecdot(a, b, -1); }
static ct_tensor *f_vander(const ct_tensor *x) { return ct_linalg_vander(x, 4); }
static ct_tensor *f_diag(const ct_tensor *x) { return ct_linalg_diagonal(x, 1, -2, -1); }
static ct_tensor *f_trace(const ct_tensor *x) { return ct_trace(x); }
static ct_tensor *f_det_singular(const ct_tensor *x) {
    /* rank 2: the last row is the sum of the first two */
    ct_tensor *r = ct_add(ct_select(x, 0, 0), ct_select(x, 0, 1));
    ct_tensor *m = ct_add(ct_mul(x, ct_tensor_f64(((const double[9]){1, 1, 1, 1, 1, 1, 0, 0, 0}), 3, 3)),
                          ct_mul(ct_unsqueeze(r, 0), ct_tensor_f64(((const double[3]){0, 0, 1}), 3, 1)));
    return ct_linalg_det(m);
}

TEST(test_gradcheck) {
    ct_tensor *A = leaf(WELL(300, 3, 3)), *Ab = leaf(WELL(301, 2, 3, 3)), *B = leaf(RANDN(302, 3, 2)), *Bv = leaf(RANDN(303, 3));
    ct_tensor *S = leaf(ct_add(RANDN(304, 3, 3), ct_mul_scalar(ct_eye(3, 3, CT_FLOAT64), 2.0)));
    CHECK_GC(gc1(f_chol, S));
    CHECK_GC(gc1(f_chol_up, S));
    CHECK_GC(gc1(f_chol, leaf(ct_add(RANDN(305, 2, 18, 18), ct_mul_scalar(ct_eye(18, 18, CT_FLOAT64), 8.0)))));
    CHECK_GC(gc1(f_inv, A));
    CHECK_GC(gc1(f_inv, Ab));
    CHECK_GC(gc1(f_inv, leaf(WELL(306, 17, 17))));
    CHECK_GC(gc1(f_det, A));
    CHECK_GC(gc1(f_det, Ab));
    CHECK_GC(gc1(f_det, leaf(ct_div_scalar(WELL(307, 17, 17), 8.0))));
    CHECK_GC(gc1(f_det_singular, leaf(RANDN(308, 3, 3))));
    CHECK_GC(gc1(f_logabsdet, Ab));
    CHECK_GC(gc1(f_logdet, S));
    CHECK_GC(gc2(f_solve, A, B));
    CHECK_GC(gc2(f_solve, A, Bv));
    CHECK_GC(gc2(f_solve, Ab, B));
    CHECK_GC(gc2(f_solve_right, A, leaf(RANDN(309, 2, 3))));
    CHECK_GC(gc2(f_solve, leaf(WELL(310, 18, 18)), leaf(RANDN(311, 18, 2))));
    CHECK_GC(gc2(f_stri_u, A, B));
    CHECK_GC(gc2(f_stri_l_right_unit, Ab, leaf(RANDN(312, 2, 3))));
    CHECK_GC(gc1(f_lu_factor, A));
    CHECK_GC(gc1(f_lu_factor, leaf(RANDN(313, 3, 5))));
    CHECK_GC(gc1(f_lu_factor, leaf(RANDN(314, 5, 3))));
    CHECK_GC(gc1(f_lu_LU, leaf(RANDN(315, 4, 4))));
    for (lu_left = 0; lu_left < 2; lu_left++)
        for (lu_adj = 0; lu_adj < 2; lu_adj++) CHECK_GC(gc2(f_lu_solve, A, lu_left ? B : leaf(RANDN(316, 2, 3))));
    CHECK_GC(gc2(f_chol_solve, B, leaf(RANDN(317, 3, 3))));
    CHECK_GC(gc1(f_chol_inv, leaf(RANDN(318, 3, 3))));
    CHECK_GC(gc1(f_qr_Q, leaf(RANDN(319, 5, 3))));
    CHECK_GC(gc1(f_qr_R, leaf(RANDN(320, 5, 3))));
    CHECK_GC(gc1(f_qr_Q, leaf(RANDN(321, 3, 5))));
    CHECK_GC(gc1(f_qr_R, leaf(RANDN(322, 3, 5))));
    CHECK_GC(gc1(f_qr_sum, leaf(RANDN(323, 2, 4, 4))));
    CHECK_GC(gc1(f_qr_complete_Q, leaf(RANDN(324, 3, 4))));
    CHECK_GC(gc1(f_eigvalsh, leaf(RANDN(325, 2, 4, 4))));
    CHECK_GC(gc1(f_eigh_vfv, leaf(RANDN(326, 4, 4))));
    CHECK_GC(gc1(f_eigh_vfv, leaf(RANDN(327, 17, 17))));
    CHECK_GC(gc1(f_eig_vals, leaf(RANDN(328, 4, 4))));
    CHECK_GC(gc1(f_eigvals_prod, leaf(RANDN(329, 2, 3, 3))));
    CHECK_GC(gc1(f_eig_vecs, leaf(RANDN(330, 3, 3))));
    CHECK_GC(gc1(f_svdvals, leaf(RANDN(331, 2, 4, 3))));
    CHECK_GC(gc1(f_svd_uvh, leaf(RANDN(332, 5, 3))));
    CHECK_GC(gc1(f_svd_uvh, leaf(RANDN(333, 3, 5))));
    CHECK_GC(gc1(f_svd_uvh, leaf(RANDN(334, 18, 17))));
    CHECK_GC(gc1(f_svd_full_uvh, leaf(RANDN(335, 4, 4))));
    CHECK_GC(gc1(f_pinv, leaf(RANDN(336, 4, 3))));
    CHECK_GC(gc1(f_pinv, leaf(RANDN(337, 3, 4))));
    CHECK_GC(gc1(f_pinv_h, leaf(RANDN(338, 3, 3))));
    const char *drv[4] = {"gels", "gelsy", "gelsd", "gelss"};
    for (int d = 0; d < 4; d++) {
        lstsq_drv = drv[d];
        CHECK_GC(gc2(f_lstsq, leaf(RANDN(339, 5, 3)), leaf(RANDN(340, 5, 2))));
        CHECK_GC(gc2(f_lstsq, leaf(RANDN(341, 3, 5)), leaf(RANDN(342, 3, 2))));
    }
    CHECK_GC(gc2(f_hh, leaf(RANDN(343, 5, 3)), leaf(RANDN(344, 3))));
    CHECK_GC(gc2(f_hh, leaf(RANDN(345, 2, 4, 4)), leaf(RANDN(346, 2, 2))));
    CHECK_GC(gc1(f_expm, leaf(ct_mul_scalar(RANDN(347, 3, 3), 0.1))));
    CHECK_GC(gc1(f_expm, leaf(ct_mul_scalar(RANDN(348, 2, 3, 3), 2.0))));
    CHECK_GC(gc1(f_mpow3, A));
    CHECK_GC(gc1(f_mpowm2, A));
    double ords[10] = {2, 1, 0, INFINITY, -INFINITY, 3, 0.5, -1, -0.5, 1.5};
    ct_tensor *xn = leaf(ct_add(RANDN(349, 3, 4), ct_mul_scalar(ct_sign(RANDN(349, 3, 4)), 0.2)));
    for (int k = 0; k < 10; k++) { vn_ord = ords[k]; CHECK_GC(gc1(f_vnorm, xn)); }
    static const char *mords[8] = {"fro", "nuc", "1", "-1", "2", "-2", "inf", "-inf"};
    ct_tensor *xm = leaf(RANDN(350, 2, 3, 4));
    for (int k = 0; k < 8; k++) { mn_ord = mords[k]; CHECK_GC(gc1(f_mnorm, xm)); }
    static const char *cps[9] = {NULL, "2", "-2", "1", "-1", "inf", "-inf", "fro", "nuc"};
    for (int k = 0; k < 9; k++) { mn_ord = cps[k]; CHECK_GC(gc1(f_cond, A)); }
    CHECK_GC(gc1(f_norm, xm));
    CHECK_GC(gc2(f_multi_dot, leaf(RANDN(351, 3, 4)), leaf(RANDN(352, 4, 3))));
    CHECK_GC(gc1(f_tinv, leaf(WELL(353, 4, 4))));
    CHECK_GC(gc2(f_tsolve, leaf(WELL(354, 4, 4)), leaf(RANDN(355, 2, 2))));
    CHECK_GC(gc2(f_cross, leaf(RANDN(356, 2, 3)), leaf(RANDN(357, 1, 3))));
    CHECK_GC(gc2(f_vecdot, leaf(RANDN(358, 2, 3)), leaf(RANDN(359, 3))));
    CHECK_GC(gc1(f_vander, leaf(RANDN(360, 2, 3))));
    CHECK_GC(gc1(f_diag, leaf(RANDN(361, 2, 3, 4))));
    CHECK_GC(gc1(f_trace, leaf(RANDN(362, 3, 4))));
}
TEST(test_gradgradcheck) {
    ct_tensor *A = leaf(WELL(400, 3, 3)), *B = leaf(RANDN(401, 3, 2));
    ct_tensor *S = leaf(ct_add(RANDN(402, 3, 3), ct_mul_scalar(ct_eye(3, 3, CT_FLOAT64), 2.0)));
    CHECK_GC(ggc1(f_inv, A));
    CHECK_GC(ggc1(f_inv, leaf(WELL(403, 2, 17, 17))));
    CHECK_GC(ggc1(f_det, A));
    CHECK_GC(ggc1(f_det, leaf(WELL(404, 2, 3, 3))));
    CHECK_GC(ggc2(f_solve, A, B));
    CHECK_GC(ggc2(f_solve, A, leaf(RANDN(405, 3))));
    CHECK_GC(ggc1(f_chol, S));
    CHECK_GC(ggc1(f_chol_up, S));
    CHECK_GC(ggc1(f_logabsdet, A));
    CHECK_GC(ggc2(f_stri_u, A, B));
    CHECK_GC(ggc2(f_chol_solve, B, leaf(RANDN(406, 3, 3))));
    CHECK_GC(ggc1(f_mpowm2, A));
    vn_ord = 3.0;
    CHECK_GC(ggc1(f_vnorm, leaf(RANDN(407, 3, 4))));
    CHECK_GC(ggc2(f_cross, leaf(RANDN(408, 2, 3)), leaf(RANDN(409, 2, 3))));
    CHECK_GC(ggc1(f_eigvalsh, leaf(RANDN(410, 3, 3))));
}

/* ---- errors: code and PyTorch's message ---- */
TEST(test_errors) {
    ct_tensor *npd = ct_eye(4, 4, CT_FLOAT64);
    ct_fill_(ct_select(ct_select(npd, 0, 2), 0, 2), -1.0);
    CHECK_ERR(ct_linalg_cholesky(npd), CT_ERR_NUMERIC,
              "linalg.cholesky: The factorization could not be completed because the input is not positive-definite (the leading minor of order 3 is not positive-definite).");
    ct_tensor *stack = ct_zeros(CT_FLOAT64, 3, 4, 4);
    ct_copy_(ct_select(stack, 0, 0), ct_eye(4, 4, CT_FLOAT64));
    ct_copy_(ct_select(stack, 0, 1), ct_eye(4, 4, CT_FLOAT64));
    ct_copy_(ct_select(stack, 0, 2), npd);
    CHECK_ERR(ct_linalg_cholesky(stack), CT_ERR_NUMERIC,
              "linalg.cholesky: (Batch element 2): The factorization could not be completed because the input is not positive-definite (the leading minor of order 3 is not positive-definite).");
    ct_tensor *npd20 = ct_mul_scalar(ct_eye(20, 20, CT_FLOAT64), 2.0);
    ct_fill_(ct_select(ct_select(npd20, 0, 11), 0, 11), -1.0);
    CHECK_ERR(ct_linalg_cholesky(npd20), CT_ERR_NUMERIC, "(the leading minor of order 12 is not positive-definite).");
    ct_tensor *info = NULL;
    ct_tensor *Lx = ct_linalg_cholesky_ex(stack, 0, 0, &info);
    static const double infos[3] = {0, 0, 3};
    CHECK(Lx != NULL);
    CHECK_VALUES(info, infos, 3, 0);
    CHECK(info && ct_get_dtype(info) == CT_INT32);
    ct_tensor *sing = ct_eye(3, 3, CT_FLOAT64);
    ct_fill_(ct_select(ct_select(sing, 0, 1), 0, 1), 0.0);
    CHECK_ERR(ct_linalg_inv(sing), CT_ERR_NUMERIC,
              "linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the input matrix is singular.");
    CHECK_ERR(ct_linalg_inv(ct_expand(sing, 2, 3, 3)), CT_ERR_NUMERIC,
              "linalg.inv: (Batch element 0): The diagonal element 2 is zero, the inversion could not be completed because the input matrix is singular.");
    ct_tensor *sing20 = ct_eye(20, 20, CT_FLOAT64);
    ct_fill_(ct_select(ct_select(sing20, 0, 6), 0, 6), 0.0);
    CHECK_ERR(ct_linalg_inv(sing20), CT_ERR_NUMERIC, "linalg.inv: The diagonal element 7 is zero");
    ct_tensor *iinfo = NULL;
    CHECK(ct_linalg_inv_ex(sing, 0, &iinfo) && ct_item_int(iinfo) == 2);
    CHECK_ERR(ct_linalg_solve(sing, ct_ones(CT_FLOAT64, 3, 1)), CT_ERR_NUMERIC,
              "torch.linalg.solve: The solver failed because the input matrix is singular.");
    CHECK_ERR(ct_linalg_solve(ct_expand(sing, 2, 3, 3), ct_ones(CT_FLOAT64, 3)), CT_ERR_NUMERIC,
              "torch.linalg.solve: (Batch element 0): The solver failed because the input matrix is singular.");
    CHECK_ERR(ct_linalg_solve(ct_eye(3, 3, CT_FLOAT64), ct_ones(CT_FLOAT64, 4, 1)), CT_ERR_SHAPE,
              "linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x1)");
    CHECK_ERR(ct_linalg_solve(ct_eye(3, 3, CT_FLOAT64), ct_ones(CT_FLOAT32, 3, 1)), CT_ERR_DTYPE,
              "linalg.solve: Expected A and B to have the same dtype, but found A of type Double and B of type Float instead");
    CHECK_ERR(ct_linalg_inv(ct_ones(CT_FLOAT32, 3, 4)), CT_ERR_SHAPE,
              "linalg.inv: A must be batches of square matrices, but they are 3 by 4 matrices");
    CHECK_ERR(ct_linalg_inv(ct_ones(CT_INT64, 3, 3)), CT_ERR_DTYPE,
              "linalg.inv: Expected a floating point or complex tensor as input. Got Long");
    CHECK_ERR(ct_linalg_cholesky(ct_ones(CT_FLOAT64, 3)), CT_ERR_SHAPE,
              "linalg.cholesky: The input tensor A must have at least 2 dimensions.");
    CHECK_ERR(ct_linalg_det(ct_ones(CT_FLOAT16, 3, 3)), CT_ERR_DTYPE, "linalg.det: not implemented for 'Half'");
    CHECK_ERR(ct_linalg_solve_triangular(ct_eye(3, 3, CT_FLOAT64), ct_ones(CT_FLOAT64, 4, 1), 1, 1, 0), CT_ERR_SHAPE,
              "linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x1)");
    CHECK_ERR(ct_linalg_lu_factor(sing, 1).LU, CT_ERR_NUMERIC,
              "torch.linalg.lu_factor: U[1,1] is zero and using it on lu_solve would result in a division by zero.");
    CHECK_ERR(ct_linalg_lu_factor(ct_eye(3, 3, CT_FLOAT64), 0).LU, CT_ERR_UNSUPPORTED, "LU without pivoting is not implemented on the CPU");
    ct_linalg_lu_factor_result fx = ct_linalg_lu_factor_ex(ct_expand(sing, 2, 3, 3), 1, 0);
    CHECK(fx.info && ct_item_int(ct_select(fx.info, 0, 1)) == 2);
    ct_tensor *nan20 = ct_full(CT_FLOAT64, NAN, 20, 20);
    CHECK_ERR(ct_linalg_eigh(nan20, "L").eigenvalues, CT_ERR_NUMERIC,
              "linalg.eigh: The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated eigenvalues (error code: ");
    CHECK_ERR(ct_linalg_eigh(ct_full(CT_FLOAT64, NAN, 3, 3), "L").eigenvalues, CT_ERR_NUMERIC, "linalg.eigh: The algorithm failed to converge");
    CHECK_ERR(ct_linalg_svd(ct_full(CT_FLOAT64, NAN, 3, 3), 0).S, CT_ERR_NUMERIC,
              "linalg.svd: The algorithm failed to converge because the input matrix contained non-finite values.");
    CHECK_ERR(ct_linalg_svd(nan20, 0).S, CT_ERR_NUMERIC, "linalg.svd: The algorithm failed to converge because the input matrix contained non-finite values.");
    CHECK_ERR(ct_linalg_eig(ct_full(CT_FLOAT64, NAN, 3, 3)).eigenvalues, CT_ERR_NUMERIC, "torch.linalg.eig: input tensor should not contain infs or NaNs.");
    CHECK_ERR(ct_linalg_eigh(ct_eye(3, 3, CT_FLOAT64), "X").eigenvalues, CT_ERR_ARG, "Expected UPLO argument to be 'L' or 'U', but got X");
    CHECK_ERR(ct_linalg_qr(ct_eye(3, 3, CT_FLOAT64), "foo").Q, CT_ERR_ARG,
              "qr received unrecognized mode 'foo' but expected one of 'reduced' (default), 'r', or 'complete'");
    CHECK_ERR(ct_linalg_lstsq(ct_eye(3, 3, CT_FLOAT64), ct_ones(CT_FLOAT64, 3, 1), NAN, "foo").solution, CT_ERR_ARG,
              "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
    CHECK_ERR(ct_linalg_lstsq(ct_eye(3, 3, CT_FLOAT64), ct_ones(CT_FLOAT64, 4, 1), NAN, NULL).solution, CT_ERR_SHAPE,
              "torch.linalg.lstsq: input.size(-2) should match other.size(-2)");
    static const double zc[12] = {1, 0, 2, 3, 0, 1, 0, 0, 5, 1, 0, 1};   /* a zero column: R[1][1] == 0 exactly */
    CHECK_ERR(ct_linalg_lstsq(ct_tensor_f64(zc, 4, 3), ct_ones(CT_FLOAT64, 4, 1), NAN, "gels").solution, CT_ERR_NUMERIC,
              "torch.linalg.lstsq: The least squares solution could not be computed because the input matrix does not have full rank");
    CHECK_ERR(ct_linalg_vector_norm(ct_ones(CT_INT64, 3), 2, 0, NULL, 0), CT_ERR_DTYPE,
              "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long");
    CHECK_ERR(ct_linalg_vector_norm(ct_zeros(CT_FLOAT64, 0), INFINITY, 0, NULL, 0), CT_ERR_ARG,
              "linalg.vector_norm cannot compute the inf norm on an empty tensor because the operation does not have an identity");
    CHECK_ERR(ct_linalg_matrix_norm(ct_eye(3, 3, CT_FLOAT64), "3", NULL, 0), CT_ERR_ARG, "linalg.matrix_norm: Order 3 not supported.");
    CHECK_ERR(ct_linalg_matrix_norm(ct_ones(CT_FLOAT64, 3), "fro", NULL, 0), CT_ERR_SHAPE,
              "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
    CHECK_ERR(ct_linalg_norm(ct_ones(CT_FLOAT64, 2, 3, 4), "2", 0, NULL, 0), CT_ERR_SHAPE,
              "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D.");
    CHECK_ERR(ct_linalg_cond(ct_ones(CT_FLOAT64, 3, 4), "1"), CT_ERR_SHAPE,
              "linalg.cond(ord=1): A must be batches of square matrices, but they are 3 by 4 matrices");
    CHECK_ERR(ct_linalg_cross(ct_ones(CT_FLOAT64, 3, 2), ct_ones(CT_FLOAT64, 3, 2), -1), CT_ERR_SHAPE,
              "linalg.cross: inputs dimension -1 must have length 3. Got 2 and 2");
    ct_tensor *one[1] = {ct_eye(3, 3, CT_FLOAT64)};
    CHECK_ERR(ct_linalg_multi_dot(1, one), CT_ERR_ARG, "multi_dot(): expected at least 2 tensors but got 1");
    ct_tensor *two[2] = {ct_eye(3, 3, CT_FLOAT64), ct_ones(CT_FLOAT64, 4, 3)};
    CHECK_ERR(ct_linalg_multi_dot(2, two), CT_ERR_SHAPE, "multi_dot(): tensors 0 and 1 with shapes [3, 3] and [4, 3] cannot be multiplied");
    CHECK_ERR(ct_linalg_householder_product(ct_ones(CT_FLOAT64, 3, 4), ct_ones(CT_FLOAT64, 2)), CT_ERR_SHAPE,
              "torch.linalg.householder_product: input.shape[-2] must be greater than or equal to input.shape[-1]");
    CHECK_ERR(ct_linalg_tensorinv(ct_ones(CT_FLOAT64, 4, 3), 1), CT_ERR_SHAPE,
              "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got 3 != 4");
    CHECK_ERR(ct_linalg_pinv(ct_ones(CT_FLOAT32, 3), NAN, NAN, 0), CT_ERR_SHAPE,
              "linalg.pinv(Float{[3]}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble types");
    CHECK_ERR(ct_linalg_matrix_power(ct_ones(CT_FLOAT64, 3, 4), 2), CT_ERR_SHAPE,
              "linalg.matrix_power: A must be batches of square matrices, but they are 3 by 4 matrices");
    CHECK_ERR(ct_linalg_matrix_power(sing, -1), CT_ERR_NUMERIC, "linalg.inv: The diagonal element 2 is zero");
    CHECK_ERR(ct_linalg_vander(ct_ones(CT_FLOAT64, 3), 1), CT_ERR_ARG, "N must be greater than 1.");
    CHECK_ERR(ct_cholesky_solve(ct_ones(CT_FLOAT64, 3, 1), ct_eye(4, 4, CT_FLOAT64), 0), CT_ERR_SHAPE,
              "Incompatible matrix sizes for cholesky_solve: each A matrix is 4 by 4 but each b matrix is 3 by 1");
    CHECK_ERR(ct_trace(ct_ones(CT_FLOAT64, 2, 2, 2)), CT_ERR_SHAPE, "trace: expected a matrix, but got tensor with dim 3");
    CHECK_ERR(ct_linalg_vecdot(ct_ones(CT_FLOAT64, 3), ct_ones(CT_FLOAT32, 3), -1), CT_ERR_DTYPE,
              "linalg.vecdot: Expected x and y to have the same dtype, but found x of type Double and y of type Float instead");
    /* NULL inputs keep the first error */
    ct_clear_error();
    ct_tensor *bad = ct_linalg_inv(sing);
    CHECK(ct_linalg_det(ct_linalg_cholesky(bad)) == NULL && strstr(ct_last_error(), "linalg.inv: The diagonal element 2"));
    ct_clear_error();
    /* the QR gradient in mode 'r' is PyTorch's error */
    ct_tensor *q = leaf(RANDN(500, 3, 3));
    ct_linalg_qr_result qr = ct_linalg_qr(q, "r");
    CHECK_ERR(ct_backward(ct_sum(qr.R)) == CT_OK, CT_ERR_AUTOGRAD, "The derivative of linalg.qr depends on Q, which is not computed when mode='r'.");
}

/* ---- the op table, graph names, memory ---- */
TEST(test_ops_registered) {
    int found = 0;
    ct_linalg_det(ct_eye(2, 2, CT_FLOAT64));   /* registers */
    for (int k = 0; k < ct_num_ops(); k++)
        if (!strcmp(ct_op_name(k), "linalg_cholesky_ex") || !strcmp(ct_op_name(k), "linalg_svd") || !strcmp(ct_op_name(k), "linalg_eigh")) found++;
    CHECK_EQ_INT(found, 3);
    ct_tensor *A = leaf(SPD(600, 3, 3));
    CHECK_STR(ct_grad_fn_name(ct_linalg_cholesky(A)), "LinalgCholeskyExBackward0");
    CHECK_STR(ct_grad_fn_name(ct_linalg_svd(A, 0).S), "LinalgSvdBackward0");
    CHECK_STR(ct_grad_fn_name(ct_linalg_solve(A, A)), "LinalgSolveExBackward0");
    CHECK(ct_linalg_svdvals(ct_detach(A)) && ct_get_requires_grad(ct_linalg_svdvals(A)));
    CT_NO_GRAD { CHECK(!ct_get_requires_grad(ct_linalg_inv(A))); }
}
TEST(test_memory_flat) {
    int64_t t0 = ct_live_tensors(), b0 = ct_live_bytes();
    CT_SCOPE {
        ct_tensor *A = leaf(SPD(700, 2, 5, 5)), *B = leaf(RANDN(701, 2, 5, 3));
        ct_tensor *loss = ct_add(ct_sum(ct_linalg_solve(A, B)), ct_sum(ct_linalg_cholesky(A)));
        loss = ct_add(loss, ct_sum(ct_linalg_svd(A, 0).S));
        loss = ct_add(loss, ct_sum(ct_linalg_eigh(A, "L").eigenvalues));
        loss = ct_add(loss, ct_sum(ct_linalg_det(A)));
        loss = ct_add(loss, ct_sum(ct_linalg_lstsq(A, B, NAN, "gelsd").solution));
        CHECK(ct_backward(loss) == CT_OK);
        ct_linalg_eig(A);
        ct_linalg_inv(ct_eye(3, 3, CT_FLOAT64));
        ct_linalg_inv(ct_zeros(CT_FLOAT64, 3, 3));   /* error path frees its outputs */
        ct_clear_error();
    }
    CHECK_EQ_INT(ct_live_tensors(), t0);
    CHECK_EQ_INT(ct_live_bytes(), b0);
}

/* ---- complex inputs (complex64 / complex128) against PyTorch 1.13 ----
   tests/fixtures/linalg_complex/linalg_complex.safetensors, written by
   gen_linalg_complex.py beside it: inputs, gauge-free outputs, loss weights and
   PyTorch's gradients (complex arrays stored as their view_as_real). */
static ct_safetensors *cfx;
static ct_tensor *cfix(const char *c, const char *part) {
    char name[128];
    snprintf(name, sizeof name, "%s.%s", c, part);
    ct_tensor *t = cfx ? ct_safetensors_get(cfx, name) : NULL;
    ct_clear_error();
    return t;
}
/* a fixture array as PyTorch's tensor: complex when stored as (re, im) pairs of a complex case */
static ct_tensor *cfixc(const char *c, const char *part) {
    ct_tensor *t = cfix(c, part);
    return t && ct_ndim(t) >= 1 && ct_size(t, -1) == 2 ? ct_view_as_complex(t) : t;
}
/* max |got - want| / max(1, max |want|), on the real views */
static double relerr(const ct_tensor *got, const ct_tensor *want) {
    if (!got || !want) return INFINITY;
    const ct_tensor *g = ct_dtype_is_complex(ct_get_dtype(got)) ? ct_view_as_real(got) : got;
    const ct_tensor *w = ct_dtype_is_complex(ct_get_dtype(want)) ? ct_view_as_real(want) : want;
    if (ct_numel(g) != ct_numel(w)) return INFINITY;
    if (!ct_numel(g)) return 0.0;
    double scale = ct_item(ct_linalg_vector_norm(ct_to(w, CT_FLOAT64), INFINITY, 0, NULL, 0));
    double d = maxdiff(ct_reshape(g, -1), ct_reshape(w, -1));
    return d / (scale > 1.0 ? scale : 1.0);
}
typedef int (*cxfn)(ct_tensor *const *x, ct_tensor **y);   /* the outputs; returns their count, or -1 */
#define CXF(name, body) static int cx_##name(ct_tensor *const *x, ct_tensor **y) { body }
CXF(cholesky, y[0] = ct_linalg_cholesky(x[0]); return 1;)
CXF(cholesky_upper, ct_tensor *info = NULL; y[0] = ct_linalg_cholesky_ex(x[0], 1, 1, &info); return 1;)
CXF(inv, y[0] = ct_linalg_inv(x[0]); return 1;)
CXF(solve, y[0] = ct_linalg_solve(x[0], x[1]); return 1;)
CXF(solve_right, y[0] = ct_linalg_solve_ex(x[0], x[1], 0, 1, NULL); return 1;)
CXF(tri_upper, y[0] = ct_linalg_solve_triangular(x[0], x[1], 1, 1, 0); return 1;)
CXF(tri_lower_right_unit, y[0] = ct_linalg_solve_triangular(x[0], x[1], 0, 0, 1); return 1;)
CXF(det, y[0] = ct_linalg_det(x[0]); return 1;)
CXF(slogdet, ct_linalg_slogdet_result r = ct_linalg_slogdet(x[0]); y[0] = r.sign; y[1] = r.logabsdet; return 2;)
CXF(eigh, ct_linalg_eig_result r = ct_linalg_eigh(x[0], "L"); y[0] = r.eigenvalues; y[1] = r.eigenvectors; return 2;)
CXF(eigh_upper, ct_linalg_eig_result r = ct_linalg_eigh(x[0], "U"); y[0] = r.eigenvalues; y[1] = r.eigenvectors; return 2;)
CXF(eigvalsh, y[0] = ct_linalg_eigvalsh(x[0], NULL); return 1;)
CXF(svd, ct_linalg_svd_result r = ct_linalg_svd(x[0], 0); y[0] = r.U; y[1] = r.S; y[2] = r.Vh; return 3;)
CXF(svdvals, y[0] = ct_linalg_svdvals(x[0]); return 1;)
CXF(eig, ct_linalg_eig_result r = ct_linalg_eig(x[0]); y[0] = r.eigenvalues; y[1] = r.eigenvectors; return 2;)
CXF(eigvals, y[0] = ct_linalg_eigvals(x[0]); return 1;)
CXF(qr, ct_linalg_qr_result r = ct_linalg_qr(x[0], NULL); y[0] = r.Q; y[1] = r.R; return 2;)
CXF(qr_complete, ct_linalg_qr_result r = ct_linalg_qr(x[0], "complete"); y[0] = r.Q; y[1] = r.R; return 2;)
CXF(vn2, y[0] = ct_linalg_vector_norm(x[0], 2.0, 0, NULL, 0); return 1;)
CXF(vn1_dim1, int64_t d = 1; y[0] = ct_linalg_vector_norm(x[0], 1.0, 1, &d, 0); return 1;)
CXF(vninf_dim0, int64_t d = 0; y[0] = ct_linalg_vector_norm(x[0], INFINITY, 1, &d, 0); return 1;)
CXF(vn3_last, int64_t d = -1; y[0] = ct_linalg_vector_norm(x[0], 3.0, 1, &d, 0); return 1;)
CXF(mn_fro, y[0] = ct_linalg_matrix_norm(x[0], NULL, NULL, 0); return 1;)
CXF(mn_nuc, y[0] = ct_linalg_matrix_norm(x[0], "nuc", NULL, 0); return 1;)
CXF(mn_2, y[0] = ct_linalg_matrix_norm(x[0], "2", NULL, 0); return 1;)
CXF(mn_1, y[0] = ct_linalg_matrix_norm(x[0], "1", NULL, 0); return 1;)
CXF(mn_inf, y[0] = ct_linalg_matrix_norm(x[0], "inf", NULL, 0); return 1;)
CXF(norm, y[0] = ct_linalg_norm(x[0], NULL, 0, NULL, 0); return 1;)
CXF(cond, y[0] = ct_linalg_cond(x[0], NULL); return 1;)
CXF(mpow3, y[0] = ct_linalg_matrix_power(x[0], 3); return 1;)
CXF(mpowm2, y[0] = ct_linalg_matrix_power(x[0], -2); return 1;)
CXF(multi_dot, y[0] = ct_linalg_multi_dot(3, x); return 1;)
CXF(vecdot, y[0] = ct_linalg_vecdot(x[0], x[1], -1); return 1;)
CXF(lu_factor, y[0] = ct_linalg_lu_factor(x[0], 1).LU; return 1;)
CXF(lu, ct_linalg_lu_result r = ct_linalg_lu(x[0], 1); y[0] = r.P; y[1] = r.L; y[2] = r.U; return 3;)
#define CX_LU_SOLVE(l, a) CXF(lu_solve_##l##a, ct_linalg_lu_factor_result f = ct_linalg_lu_factor(x[0], 1); \
                              y[0] = ct_linalg_lu_solve(f.LU, f.pivots, x[1], l, a); return 1;)
CX_LU_SOLVE(1, 0)
CX_LU_SOLVE(1, 1)
CX_LU_SOLVE(0, 0)
CX_LU_SOLVE(0, 1)
CXF(chol_solve, y[0] = ct_cholesky_solve(x[1], ct_linalg_cholesky(x[0]), 0); return 1;)
CXF(chol_solve_upper, y[0] = ct_cholesky_solve(x[1], ct_linalg_cholesky_ex(x[0], 1, 1, NULL), 1); return 1;)
CXF(chol_inv, y[0] = ct_cholesky_inverse(ct_linalg_cholesky(x[0]), 0); return 1;)
CXF(pinv, y[0] = ct_linalg_pinv(x[0], NAN, NAN, 0); return 1;)
CXF(pinv_herm, y[0] = ct_linalg_pinv(x[0], NAN, NAN, 1); return 1;)
CXF(mexp, y[0] = ct_linalg_matrix_exp(x[0]); return 1;)
CXF(lstsq_gelsy, y[0] = ct_linalg_lstsq(x[0], x[1], NAN, NULL).solution; return 1;)
CXF(lstsq_gelsd, ct_linalg_lstsq_result r = ct_linalg_lstsq(x[0], x[1], NAN, "gelsd"); y[0] = r.solution; y[1] = r.residuals; y[2] = r.singular_values; return 3;)
CXF(lstsq_gelss, y[0] = ct_linalg_lstsq(x[0], x[1], NAN, "gelss").solution; return 1;)
CXF(lstsq_gels, ct_linalg_lstsq_result r = ct_linalg_lstsq(x[0], x[1], NAN, "gels"); y[0] = r.solution; y[1] = r.residuals; return 2;)
CXF(tensorinv, y[0] = ct_linalg_tensorinv(x[0], 1); return 1;)
CXF(tensorsolve, y[0] = ct_linalg_tensorsolve(x[0], x[1], 0, NULL); return 1;)
CXF(cross, y[0] = ct_linalg_cross(x[0], x[1], 0); return 1;)
CXF(vander, y[0] = ct_linalg_vander(x[0], 4); return 1;)
CXF(householder, y[0] = ct_linalg_householder_product(x[0], x[1]); return 1;)
CXF(chol_inv_upper, y[0] = ct_cholesky_inverse(ct_linalg_cholesky_ex(x[0], 1, 1, NULL), 1); return 1;)
static const struct cxcase { const char *name; int nin; cxfn fn; unsigned phase; } cxcases[] = {
    {"cholesky", 1, cx_cholesky, 0}, {"cholesky_c64", 1, cx_cholesky, 0}, {"cholesky_upper_batched", 1, cx_cholesky_upper, 0},
    {"cholesky_n20", 1, cx_cholesky, 0}, {"inv", 1, cx_inv, 0}, {"inv_c64", 1, cx_inv, 0}, {"inv_batched_n20", 1, cx_inv, 0},
    {"solve", 2, cx_solve, 0}, {"solve_vector_batched", 2, cx_solve, 0}, {"solve_left_false", 2, cx_solve_right, 0},
    {"solve_n20_c64", 2, cx_solve, 0}, {"solve_triangular_upper", 2, cx_tri_upper, 0},
    {"solve_triangular_lower_right_unit", 2, cx_tri_lower_right_unit, 0}, {"det", 1, cx_det, 0}, {"det_batched_c64", 1, cx_det, 0},
    {"slogdet", 1, cx_slogdet, 0}, {"slogdet_batched", 1, cx_slogdet, 0}, {"eigh", 1, cx_eigh, 2}, {"eigh_upper_batched", 1, cx_eigh_upper, 2},
    {"eigh_n20", 1, cx_eigh, 2}, {"eigvalsh", 1, cx_eigvalsh, 0}, {"svd_tall", 1, cx_svd, 5}, {"svd_wide", 1, cx_svd, 5},
    {"svd_square_c64", 1, cx_svd, 5}, {"svdvals", 1, cx_svdvals, 0}, {"svdvals_n20", 1, cx_svdvals, 0}, {"eig", 1, cx_eig, 2},
    {"eigvals_c64", 1, cx_eigvals, 0}, {"eig_n20", 1, cx_eig, 2}, {"qr_tall", 1, cx_qr, 0}, {"qr_wide", 1, cx_qr, 0},
    {"qr_complete_square", 1, cx_qr_complete, 0}, {"vector_norm_2", 1, cx_vn2, 0}, {"vector_norm_1_dim", 1, cx_vn1_dim1, 0},
    {"vector_norm_inf_dim", 1, cx_vninf_dim0, 0}, {"vector_norm_p3_c64", 1, cx_vn3_last, 0}, {"matrix_norm_fro", 1, cx_mn_fro, 0},
    {"matrix_norm_nuc", 1, cx_mn_nuc, 0}, {"matrix_norm_2", 1, cx_mn_2, 0}, {"matrix_norm_1", 1, cx_mn_1, 0},
    {"matrix_norm_inf", 1, cx_mn_inf, 0}, {"norm_default", 1, cx_norm, 0}, {"cond", 1, cx_cond, 0}, {"matrix_power_3", 1, cx_mpow3, 0},
    {"matrix_power_m2", 1, cx_mpowm2, 0}, {"multi_dot", 3, cx_multi_dot, 0}, {"vecdot", 2, cx_vecdot, 0},
    {"lu_factor", 1, cx_lu_factor, 0}, {"lu_factor_tall_c64", 1, cx_lu_factor, 0}, {"lu_square", 1, cx_lu, 0}, {"lu_wide", 1, cx_lu, 0},
    {"lu_solve_left1_adj0", 2, cx_lu_solve_10, 0}, {"lu_solve_left1_adj1", 2, cx_lu_solve_11, 0},
    {"lu_solve_left0_adj0", 2, cx_lu_solve_00, 0}, {"lu_solve_left0_adj1", 2, cx_lu_solve_01, 0},
    {"cholesky_solve", 2, cx_chol_solve, 0}, {"cholesky_solve_upper_n20", 2, cx_chol_solve_upper, 0},
    {"cholesky_inverse", 1, cx_chol_inv, 0}, {"cholesky_inverse_upper", 1, cx_chol_inv_upper, 0},
    {"pinv_tall", 1, cx_pinv, 0}, {"pinv_wide_c64", 1, cx_pinv, 0}, {"pinv_hermitian", 1, cx_pinv_herm, 0},
    {"matrix_exp", 1, cx_mexp, 0}, {"matrix_exp_batched_c64", 1, cx_mexp, 0}, {"matrix_exp_n20", 1, cx_mexp, 0},
    {"lstsq_gelsy", 2, cx_lstsq_gelsy, 0}, {"lstsq_gelsd", 2, cx_lstsq_gelsd, 0}, {"lstsq_gelss_wide", 2, cx_lstsq_gelss, 0},
    {"lstsq_gels_vector_c64", 2, cx_lstsq_gels, 0}, {"tensorinv", 1, cx_tensorinv, 0}, {"tensorsolve", 2, cx_tensorsolve, 0},
    {"cross", 2, cx_cross, 0}, {"vander", 1, cx_vander, 0}, {"householder_product", 2, cx_householder, 0},
    {"householder_product_fewer_tau_batched", 2, cx_householder, 0},
};
TEST(test_complex_fixtures) {
    if (!cfx) { CT_T_REPORT(0, "no complex fixtures: %s", ct_last_error()); return; }
    for (size_t ci = 0; ci < sizeof cxcases / sizeof cxcases[0]; ci++) {
        const struct cxcase *cc = &cxcases[ci];
        int c64 = strstr(cc->name, "_c64") != NULL;
        double tol = c64 ? 2e-4 : 1e-9;
        CT_SCOPE {
            ct_tensor *x[3] = {NULL, NULL, NULL}, *y[3] = {NULL, NULL, NULL};
            char part[16];
            int ok = 1;
            for (int i = 0; i < cc->nin; i++) {
                snprintf(part, sizeof part, "x%d", i);
                x[i] = cfixc(cc->name, part);
                if (!x[i]) { CT_T_REPORT(0, "%s: fixture %s missing", cc->name, part); ok = 0; break; }
                x[i] = ct_requires_grad(ct_clone(x[i]));
            }
            int ny = ok ? cc->fn(x, y) : -1;
            for (int k = 0; k < ny; k++)
                if (!y[k]) { CT_T_REPORT(0, "%s: output %d: %s", cc->name, k, ct_last_error()); ny = -1; break; }
            ct_tensor *loss = NULL;
            for (int k = 0; k < ny; k++) {
                snprintf(part, sizeof part, "w%d", k);
                ct_tensor *w = cfix(cc->name, part);
                if (!w) continue;
                ct_tensor *v = (cc->phase >> k) & 1 ? ct_square(ct_abs(y[k])) : ct_dtype_is_complex(ct_get_dtype(y[k])) ? ct_view_as_real(y[k]) : y[k];
                ct_tensor *term = ct_sum(ct_mul(v, w));
                loss = loss ? ct_add(loss, term) : term;
                snprintf(part, sizeof part, "y%d", k);
                ct_tensor *want = ct_dtype_is_complex(ct_get_dtype(y[k])) ? cfixc(cc->name, part) : cfix(cc->name, part);
                if (!want) continue;
                CT_T_REPORT(ct_get_dtype(y[k]) == ct_get_dtype(want), "%s: output %d is %s, PyTorch's %s", cc->name, k,
                            ct_dtype_name(ct_get_dtype(y[k])), ct_dtype_name(ct_get_dtype(want)));
                double e = relerr(y[k], want);
                CT_T_REPORT(e <= tol, "%s: output %d differs from PyTorch's by %g", cc->name, k, e);
            }
            if (ny > 0 && loss) {
                CT_T_REPORT(ct_backward(loss) == CT_OK, "%s: backward: %s", cc->name, ct_last_error());
                for (int i = 0; i < cc->nin; i++) {
                    snprintf(part, sizeof part, "g%d", i);
                    ct_tensor *want = cfixc(cc->name, part);
                    if (!want) continue;
                    double e = relerr(ct_grad(x[i]), want);
                    CT_T_REPORT(e <= tol * 10, "%s: gradient %d differs from PyTorch's by %g", cc->name, i, e);
                }
            }
        }
        ct_clear_error();
    }
    /* the _ex functions' infos */
    CT_SCOPE {
        ct_tensor *info = NULL;
        ct_linalg_cholesky_ex(cfixc("cholesky_ex_info", "x0"), 0, 0, &info);
        CHECK(info && ct_item(info) == ct_item(cfix("cholesky_ex_info", "info")));
        info = NULL;
        ct_linalg_inv_ex(cfixc("inv_ex_info", "x0"), 0, &info);
        CHECK(info && ct_item(info) == ct_item(cfix("inv_ex_info", "info")));
    }
}
/* complex random matrices (complex128) */
static ct_tensor *crandn_(uint64_t seed, int ndim, const int64_t *shape) {
    return ct_complex(randn_(seed, ndim, shape), randn_(seed + 1000, ndim, shape));
}
#define CRANDN(seed, ...) crandn_(seed, CT_DIMS(__VA_ARGS__))
static ct_tensor *cx_hpd_of(ct_tensor *const *in, void *u) { (void)u; return ct_linalg_cholesky(ct_add(ct_matmul(in[0], ct_conj(ct_mT(in[0]))), ct_eye(3, 3, CT_COMPLEX128))); }
static ct_tensor *cx_eigh_of(ct_tensor *const *in, void *u) {
    (void)u;
    ct_linalg_eig_result r = ct_linalg_eigh(ct_add(in[0], ct_conj(ct_mT(in[0]))), "L");
    return ct_add(ct_sum(r.eigenvalues), ct_sum(ct_mul(ct_square(ct_abs(r.eigenvectors)), ct_arange(1, 4, 1, CT_FLOAT64))));
}
static ct_tensor *cx_svd_of(ct_tensor *const *in, void *u) {
    (void)u;
    ct_linalg_svd_result r = ct_linalg_svd(in[0], 0);
    if (!r.U) return NULL;
    int64_t m = ct_size(r.U, 0), k = ct_size(r.U, 1);   /* |U|^2 is free of the phase of each vector */
    ct_tensor *w = ct_reshape(ct_arange(1, (double)(m * k + 1), 1, CT_FLOAT64), m, k);
    return ct_add(ct_sum(ct_mul(r.S, ct_arange(1, 4, 1, CT_FLOAT64))), ct_sum(ct_mul(ct_square(ct_abs(r.U)), w)));
}
static ct_tensor *cx_slogdet_of(ct_tensor *const *in, void *u) {
    (void)u;
    ct_linalg_slogdet_result r = ct_linalg_slogdet(in[0]);
    return ct_add(ct_view_as_real(r.sign), ct_unsqueeze(r.logabsdet, -1));
}
static ct_tensor *cx_qr_of(ct_tensor *const *in, void *u) { (void)u; ct_linalg_qr_result r = ct_linalg_qr(in[0], NULL); return ct_add(ct_sum(r.Q), ct_sum(r.R)); }
static ct_tensor *cx_eig_of(ct_tensor *const *in, void *u) {
    (void)u;
    ct_linalg_eig_result r = ct_linalg_eig(in[0]);
    return ct_add(ct_view_as_real(r.eigenvalues), ct_unsqueeze(ct_sum_dim(ct_square(ct_abs(r.eigenvectors)), -2, 0), -1));
}
static ct_tensor *cx_tri_of(ct_tensor *const *in, void *u) { (void)u; return ct_linalg_solve_triangular(in[0], in[1], 1, 1, 0); }
static ct_tensor *cx_nuc_of(ct_tensor *const *in, void *u) { (void)u; return ct_linalg_matrix_norm(in[0], "nuc", NULL, 0); }
TEST(test_complex_gradcheck) {
    ct_tensor *A = leaf(ct_add(CRANDN(900, 3, 3), ct_mul_scalar(ct_eye(3, 3, CT_COMPLEX128), 4.0)));
    ct_tensor *B = leaf(CRANDN(901, 3, 2)), *W = leaf(CRANDN(902, 4, 3)), *T = leaf(CRANDN(903, 3, 5));
    CHECK_GC(gc1(ct_linalg_inv, A));
    CHECK_GC(gc1(ct_linalg_det, A));
    CHECK_GC(gc2(ct_linalg_solve, A, B));
    ct_tensor *in[2] = {A, B};
    CHECK_GC(ct_gradcheck(cx_hpd_of, NULL, 1, in, NULL));
    CHECK_GC(ct_gradcheck(cx_eigh_of, NULL, 1, in, NULL));
    CHECK_GC(ct_gradcheck(cx_slogdet_of, NULL, 1, in, NULL));
    CHECK_GC(ct_gradcheck(cx_eig_of, NULL, 1, in, NULL));
    CHECK_GC(ct_gradcheck(cx_tri_of, NULL, 2, in, NULL));
    in[0] = W;
    CHECK_GC(ct_gradcheck(cx_svd_of, NULL, 1, in, NULL));
    CHECK_GC(ct_gradcheck(cx_qr_of, NULL, 1, in, NULL));
    CHECK_GC(ct_gradcheck(cx_nuc_of, NULL, 1, in, NULL));
    in[0] = T;
    CHECK_GC(ct_gradcheck(cx_qr_of, NULL, 1, in, NULL));
    CHECK_GC(ct_gradcheck(cx_svd_of, NULL, 1, in, NULL));
    CHECK_GC(ggc1(ct_linalg_inv, A));
    CHECK_GC(ggc1(ct_linalg_det, A));
    CHECK_GC(ggc2(ct_linalg_solve, A, B));
    in[0] = A;
    CHECK_GC(ct_gradgradcheck(cx_hpd_of, NULL, 1, in, NULL));
}
TEST(test_complex_rank) {
    /* a rank-2 complex 4 x 4 matrix: u1 v1^H + u2 v2^H */
    ct_tensor *U = CRANDN(950, 4, 2), *V = CRANDN(951, 4, 2);
    ct_tensor *A = ct_matmul(U, ct_conj(ct_mT(V)));
    CHECK(ct_item(ct_linalg_matrix_rank(A, NAN, NAN, 0)) == 2.0);
    CHECK(ct_item(ct_linalg_matrix_rank(ct_matmul(A, ct_conj(ct_mT(A))), NAN, NAN, 1)) == 2.0);
    CHECK(ct_item(ct_linalg_matrix_rank(ct_to(A, CT_COMPLEX64), NAN, NAN, 0)) == 2.0);
    /* identities: A pinv(A) A = A; det(exp(A)) = exp(trace(A)) */
    CHECK_SMALL(maxdiff(ct_matmul(ct_matmul(A, ct_linalg_pinv(A, NAN, NAN, 0)), A), A), 1e-12);
    ct_tensor *B = CRANDN(952, 3, 3);
    CHECK_SMALL(maxdiff(ct_view_as_real(ct_linalg_det(ct_linalg_matrix_exp(B))), ct_view_as_real(ct_exp(ct_sum(ct_diagonal(B, 0, 0, 1))))), 1e-12);
}
TEST(test_complex_errors) {
    ct_tensor *npd = ct_mul_scalar(ct_eye(3, 3, CT_COMPLEX128), -1.0), *sing = ct_zeros(CT_COMPLEX64, 3, 3);
    CHECK_ERR(ct_linalg_cholesky(npd), CT_ERR_NUMERIC, "linalg.cholesky: The factorization could not be completed because the input is not positive-definite (the leading minor of order 1 is not positive-definite).");
    CHECK_ERR(ct_linalg_inv(sing), CT_ERR_NUMERIC, "linalg.inv: The diagonal element 1 is zero, the inversion could not be completed because the input matrix is singular.");
    CHECK_ERR(ct_linalg_solve(sing, ct_ones(CT_COMPLEX64, 3)), CT_ERR_NUMERIC, "The solver failed because the input matrix is singular.");
    CHECK_ERR(ct_linalg_solve(npd, ct_ones(CT_FLOAT64, 3)), CT_ERR_DTYPE, "Expected A and B to have the same dtype, but found A of type ComplexDouble and B of type Double instead");
    CHECK_ERR(ct_linalg_solve_triangular(npd, ct_ones(CT_COMPLEX128, 2, 2), 1, 1, 0), CT_ERR_SHAPE, "Incompatible shapes of A and B");
    CHECK_ERR(ct_linalg_det(ct_zeros(CT_COMPLEX128, 2, 3)), CT_ERR_SHAPE, "linalg.det: A must be batches of square matrices, but they are 2 by 3 matrices");
    CHECK_ERR(ct_linalg_slogdet(ct_zeros(CT_COMPLEX128, 3)).sign, CT_ERR_SHAPE, "linalg.slogdet: The input tensor A must have at least 2 dimensions.");
    CHECK_ERR(ct_linalg_eigh(npd, "X").eigenvalues, CT_ERR_ARG, "Expected UPLO argument to be 'L' or 'U', but got X");
    ct_tensor *nan = ct_full(CT_COMPLEX128, NAN, 3, 3);
    CHECK_ERR(ct_linalg_eigh(nan, "L").eigenvalues, CT_ERR_NUMERIC, "linalg.eigh: The algorithm failed to converge because the input matrix contained non-finite values.");
    CHECK_ERR(ct_linalg_svd(nan, 0).S, CT_ERR_NUMERIC, "linalg.svd: The algorithm failed to converge because the input matrix contained non-finite values.");
    CHECK_ERR(ct_linalg_eig(nan).eigenvalues, CT_ERR_NUMERIC, "torch.linalg.eig: input tensor should not contain infs or NaNs.");
    CHECK_ERR(ct_linalg_qr(ct_zeros(CT_COMPLEX64, 3), NULL).R, CT_ERR_SHAPE, "linalg.qr: The input tensor A must have at least 2 dimensions.");
    CHECK_ERR(ct_linalg_vector_norm(npd, 2.0, 1, (const int64_t[]){5}, 0), CT_ERR_INDEX, "out of range");
    CHECK_ERR(ct_linalg_matrix_norm(npd, "3", NULL, 0), CT_ERR_ARG, "Order 3 not supported.");
    CHECK_ERR(ct_linalg_vecdot(npd, ct_ones(CT_COMPLEX64, 3, 3), -1), CT_ERR_DTYPE, "Expected x and y to have the same dtype");
    CHECK_ERR(ct_linalg_lu_factor(ct_zeros(CT_COMPLEX128, 3, 3), 1).LU, CT_ERR_NUMERIC, "torch.linalg.lu_factor: U[0,0] is zero");
    CHECK_ERR(ct_linalg_lu_solve(ct_linalg_lu_factor(npd, 1).LU, ct_linalg_lu_factor(npd, 1).pivots, ct_ones(CT_COMPLEX128, 2, 2), 1, 0),
              CT_ERR_SHAPE, "linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 2x2)");
    CHECK_ERR(ct_cholesky_solve(ct_ones(CT_COMPLEX128, 3, 2), ct_ones(CT_COMPLEX64, 3, 3), 0), CT_ERR_DTYPE, "Expected b and A to have the same dtype");
    CHECK_ERR(ct_cholesky_inverse(ct_zeros(CT_COMPLEX128, 3, 3), 0), CT_ERR_NUMERIC, "cholesky_inverse: The diagonal element 1 is zero");
    CHECK_ERR(ct_linalg_pinv(ct_ones(CT_COMPLEX128, 3), NAN, NAN, 0), CT_ERR_SHAPE, "linalg.pinv(ComplexDouble{[3]}): expected a tensor with 2 or more dimensions");
    CHECK_ERR(ct_linalg_matrix_exp(ct_ones(CT_COMPLEX128, 2, 3)), CT_ERR_SHAPE, "linalg.matrix_exp: A must be batches of square matrices");
    CHECK_ERR(ct_linalg_lstsq(npd, ct_ones(CT_COMPLEX128, 4, 2), NAN, NULL).solution, CT_ERR_SHAPE, "torch.linalg.lstsq: input.size(-2) should match other.size(-2)");
    CHECK_ERR(ct_linalg_householder_product(npd, ct_ones(CT_COMPLEX128, 4)), CT_ERR_SHAPE, "input.shape[-1] must be greater than or equal to tau.shape[-1]");
    CHECK_ERR(ct_linalg_householder_product(npd, ct_ones(CT_COMPLEX64, 2)), CT_ERR_DTYPE, "tau dtype ComplexFloat does not match input dtype ComplexDouble");
    CHECK_ERR(ct_linalg_cross(npd, ct_ones(CT_COMPLEX128, 3, 4), -1), CT_ERR_SHAPE, "linalg.cross: inputs dimension -1 must have length 3. Got 3 and 4");
    CHECK_ERR(ct_linalg_vander(ct_ones(CT_COMPLEX128, 3), 1), CT_ERR_ARG, "N must be greater than 1.");
}

/* A loss of complex eigen- or singular vectors must not depend on their phases
   (each is defined up to e^{i phi}): PyTorch's backward refuses one that does,
   and takes one that does not (|v|^2) */
static int phase_loss_fails(int which, int phase_free) {
    ct_manual_seed(11);
    ct_tensor *X = ct_complex(ct_randn(CT_FLOAT64, 4, 4), ct_randn(CT_FLOAT64, 4, 4));
    ct_tensor *A = ct_requires_grad(which == 0 ? ct_add(X, ct_mH(X)) : X), *V = NULL;
    if (which == 0) V = ct_linalg_eigh(A, "L").eigenvectors;
    else if (which == 1) V = ct_linalg_eig(A).eigenvectors;
    else V = ct_linalg_svd(A, 0).U;
    if (!V) return -1;
    ct_tensor *L = phase_free ? ct_sum(ct_mul(ct_square(ct_abs(V)), ct_arange(0, 16, 1, CT_FLOAT64) ? ct_reshape(ct_arange(0, 16, 1, CT_FLOAT64), 4, 4) : NULL))
                              : ct_sum(ct_real(V));
    ct_clear_error();
    return ct_backward(L) != CT_OK;
}
TEST(test_complex_phase_check) {
    const char *who[3] = {"linalg_eigh_backward: The eigenvectors in the complex case are specified up to multiplication by e^{i phi}",
                          "linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication by e^{i phi}",
                          "svd_backward: The singular vectors in the complex case are specified up to multiplication by e^{i phi}"};
    for (int w = 0; w < 3; w++) {
        CT_T_REPORT(phase_loss_fails(w, 0) == 1 && ct_last_error_code() == CT_ERR_AUTOGRAD && strstr(ct_last_error(), who[w]),
                    "phase-dependent loss %d: got \"%s\"", w, ct_last_error());
        CT_T_REPORT(phase_loss_fails(w, 1) == 0, "phase-free loss %d: %s", w, ct_last_error());
    }
}

int main(int argc, char **argv) {
    ct_t_init();
    cfx = ct_safetensors_load(argc > 1 ? argv[1] : "tests/fixtures/linalg_complex/linalg_complex.safetensors");
    RUN(test_announcement_mvn);
    RUN(test_announcement_inv_backward);
    RUN(test_cholesky_identities);
    RUN(test_inv_solve_lu_identities);
    RUN(test_qr_identities);
    RUN(test_svd_identities);
    RUN(test_eigh_identities);
    RUN(test_eig_identities);
    RUN(test_pinv_lstsq_identities);
    RUN(test_matrix_functions);
    RUN(test_norms);
    RUN(test_batched_matches_single);
    RUN(test_small_lanes);
    RUN(test_gradcheck);
    RUN(test_gradgradcheck);
    RUN(test_errors);
    RUN(test_ops_registered);
    RUN(test_memory_flat);
    RUN(test_complex_fixtures);
    RUN(test_complex_gradcheck);
    RUN(test_complex_rank);
    RUN(test_complex_errors);
    RUN(test_complex_phase_check);
    ct_safetensors_free(cfx);
    return ct_t_summary();
}
