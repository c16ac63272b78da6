/* Matrix products: the GEMM engine (built-in and CBLAS paths) against a naive
   reference, every product op's values, dtypes, errors, autograd (gradcheck,
   gradgradcheck), einsum's parser and contraction paths, and matmul's rules.
   tests/test_blas_portable.c reruns the value tests on the plain C micro-kernel
   without BLAS (so the optimized build also runs the built-in GEMM threaded). */
#ifndef CT_TEST_BLAS_NO_MAIN
#define CTENSOR_IMPLEMENTATION
#include "ct_test.h"
#endif

/* ---------------------------------------------------------------------------
   GEMM engine
   ------------------------------------------------------------------------- */
static uint64_t t_rng = 88172645463325252ULL;
static double t_rand(void) {   /* xorshift, values in [-1, 1) on a 1/64 grid (exact in f32) */
    t_rng ^= t_rng << 13;
    t_rng ^= t_rng >> 7;
    t_rng ^= t_rng << 17;
    return (double)(int)(t_rng % 128) / 64.0 - 1.0;
}
typedef enum { GEMM_ENTRY, GEMM_BUILTIN } gemm_path;
/* C = alpha op(A) op(B) + beta C for one shape / layout, checked against a naive
   double-precision loop. A is M x K stored row-major, or transposed (column-major),
   or with a column stride of 2 (strided view); same for B. */
static int gemm_case(ct_dtype dt, gemm_path path, int64_t M, int64_t N, int64_t K, int la, int lb, double alpha, double beta) {
    int64_t rsa = la == 0 ? K : la == 1 ? 1 : 2 * K, csa = la == 0 ? 1 : la == 1 ? CT__MAX(M, 1) : 2;
    int64_t rsb = lb == 0 ? N : lb == 1 ? 1 : 2 * N, csb = lb == 0 ? 1 : lb == 1 ? CT__MAX(K, 1) : 2;
    int64_t na = CT__MAX(M * K * (la == 2 ? 2 : 1), 1), nb = CT__MAX(K * N * (lb == 2 ? 2 : 1), 1), nc = CT__MAX(M * N, 1);
    double *A = (double *)malloc(sizeof(double) * (size_t)na), *B = (double *)malloc(sizeof(double) * (size_t)nb);
    double *C = (double *)malloc(sizeof(double) * (size_t)nc), *R = (double *)malloc(sizeof(double) * (size_t)nc);
    void *Ad = malloc(8 * (size_t)na), *Bd = malloc(8 * (size_t)nb), *Cd = malloc(8 * (size_t)nc);
    for (int64_t i = 0; i < na; i++) A[i] = t_rand();
    for (int64_t i = 0; i < nb; i++) B[i] = t_rand();
    for (int64_t i = 0; i < nc; i++) C[i] = beta == 0 ? NAN : t_rand();   /* beta == 0 must not read C */
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            double acc = 0;
            for (int64_t k = 0; k < K; k++) acc += A[i * rsa + k * csa] * B[k * rsb + j * csb];
            R[i * N + j] = alpha * acc + (beta != 0 ? beta * C[i * N + j] : 0);
        }
    for (int64_t i = 0; i < na; i++) {
        if (dt == CT_FLOAT32) ((float *)Ad)[i] = (float)A[i];
        else if (dt == CT_FLOAT64) ((double *)Ad)[i] = A[i];
        else ((int64_t *)Ad)[i] = (int64_t)(A[i] * 64);
    }
    for (int64_t i = 0; i < nb; i++) {
        if (dt == CT_FLOAT32) ((float *)Bd)[i] = (float)B[i];
        else if (dt == CT_FLOAT64) ((double *)Bd)[i] = B[i];
        else ((int64_t *)Bd)[i] = (int64_t)(B[i] * 64);
    }
    for (int64_t i = 0; i < nc; i++) {
        if (dt == CT_FLOAT32) ((float *)Cd)[i] = (float)C[i];
        else if (dt == CT_FLOAT64) ((double *)Cd)[i] = C[i];
        else ((int64_t *)Cd)[i] = beta == 0 ? INT64_MIN : (int64_t)(C[i] * 4096);
    }
    if (dt == CT_FLOAT32) {
        if (path == GEMM_ENTRY)
            ct__gemm_f32(M, N, K, (float)alpha, (float *)Ad, rsa, csa, (float *)Bd, rsb, csb, (float)beta, (float *)Cd, N);
        else
            ct__gemm_builtin_f32(M, N, K, (float)alpha, (float *)Ad, rsa, csa, (float *)Bd, rsb, csb, (float)beta, (float *)Cd, N);
    } else if (dt == CT_FLOAT64) {
        if (path == GEMM_ENTRY)
            ct__gemm_f64(M, N, K, alpha, (double *)Ad, rsa, csa, (double *)Bd, rsb, csb, beta, (double *)Cd, N);
        else
            ct__gemm_builtin_f64(M, N, K, alpha, (double *)Ad, rsa, csa, (double *)Bd, rsb, csb, beta, (double *)Cd, N);
    } else {
        ct__gemm_i64(M, N, K, (int64_t)alpha, (int64_t *)Ad, rsa, csa, (int64_t *)Bd, rsb, csb, (int64_t)beta, (int64_t *)Cd, N);
    }
    if (dt == CT_INT64) {   /* the exact integer product of the scaled inputs */
        const int64_t *Ai = (const int64_t *)Ad, *Bi = (const int64_t *)Bd;
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                int64_t acc = 0;
                for (int64_t k = 0; k < K; k++) acc += Ai[i * rsa + k * csa] * Bi[k * rsb + j * csb];
                R[i * N + j] = (double)((int64_t)alpha * acc + (beta != 0 ? (int64_t)beta * (int64_t)(C[i * N + j] * 4096) : 0));
            }
    }
    int ok = 1;
    for (int64_t i = 0; i < M * N && ok; i++) {
        double got = dt == CT_FLOAT32 ? ((float *)Cd)[i] : dt == CT_FLOAT64 ? ((double *)Cd)[i] : (double)((int64_t *)Cd)[i];
        double want = R[i];
        double tol = dt == CT_INT64 ? 0 : dt == CT_FLOAT32 ? 1e-4 * (1 + fabs(want)) * (1 + sqrt((double)K)) : 1e-10 * (1 + fabs(want)) * (1 + (double)K);
        if (!(fabs(got - want) <= tol)) {
            ok = 0;
            printf("  gemm %s path %d M=%lld N=%lld K=%lld la=%d lb=%d alpha=%g beta=%g: C[%lld] = %.9g, expected %.9g\n",
                   ct_dtype_name(dt), (int)path, (long long)M, (long long)N, (long long)K, la, lb, alpha, beta, (long long)i, got, want);
        }
    }
    free(A); free(B); free(C); free(R); free(Ad); free(Bd); free(Cd);
    return ok;
}

TEST(test_gemm_shapes) {
    /* odd sizes, 1, 0, tall/skinny, several KC/MC/NC blocks, big enough to thread */
    static const int64_t shapes[][3] = {
        {1, 1, 1}, {0, 3, 4}, {3, 0, 4}, {3, 4, 0}, {2, 3, 4}, {7, 5, 3}, {13, 33, 17}, {12, 32, 256}, {24, 64, 16},
        {100, 1, 50}, {1, 100, 70}, {37, 65, 300}, {65, 7, 513}, {3, 300, 9}, {200, 5, 4}, {500, 2, 700},
        {130, 270, 300}, {161, 170, 100}, {300, 40, 200}, {2, 2200, 3}, {50, 2100, 30}};
    int ns = (int)(sizeof shapes / sizeof shapes[0]), bad = 0, total = 0;
    for (int s = 0; s < ns; s++)
        for (int la = 0; la < 3; la++)
            for (int lb = 0; lb < 3; lb++) {
                int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
                /* big products: a few layouts (the reference loop is slow under sanitizers) */
                if (M * N * K > 1000000 && !((la == 0 && lb == 0) || (la == 1 && lb == 1) || (la == 2 && lb == 1))) continue;
                double alpha = (la + lb) % 2 ? 1.0 : -0.5, beta = (s + la) % 3 == 0 ? 0.0 : (s % 2 ? 1.0 : 0.25);
                for (int p = 0; p < 2; p++) {
                    gemm_path path = p ? GEMM_BUILTIN : GEMM_ENTRY;
                    total += 2;
                    bad += !gemm_case(CT_FLOAT32, path, M, N, K, la, lb, alpha, beta);
                    bad += !gemm_case(CT_FLOAT64, path, M, N, K, la, lb, alpha, beta);
                }
                if (M * N * K < 300000) {
                    total++;
                    bad += !gemm_case(CT_INT64, GEMM_ENTRY, M, N, K, la, lb, (la + lb) % 2 ? 1.0 : 3.0, beta == 0.25 ? 2.0 : beta);
                }
            }
    CHECK_EQ_INT(bad, 0);
    CHECK(total > 250);
    /* alpha == 0 only scales C */
    CHECK(gemm_case(CT_FLOAT64, GEMM_BUILTIN, 5, 6, 7, 0, 0, 0.0, 0.5));
    CHECK(gemm_case(CT_FLOAT32, GEMM_ENTRY, 40, 60, 70, 0, 0, 0.0, 0.0));
}

TEST(test_gemv_dot_kernels) {
    /* y = alpha A x + beta y for row-major, column-major and strided A, strided x */
    int bad = 0;
    static const int64_t shapes[][2] = {{1, 1}, {5, 3}, {64, 70}, {300, 900}, {1000, 2}, {3, 2000}, {0, 4}, {4, 0}};
    for (int s = 0; s < 8; s++)
        for (int la = 0; la < 3; la++)
            for (int inc = 1; inc <= 3; inc += 2) {
                int64_t M = shapes[s][0], K = shapes[s][1];
                int64_t rsa = la == 0 ? K : la == 1 ? 1 : 2 * K, csa = la == 0 ? 1 : la == 1 ? CT__MAX(M, 1) : 2;
                int64_t na = CT__MAX(M * K * 2, 1), nx = CT__MAX(K * inc, 1);
                double *A = (double *)malloc(8 * (size_t)na), *x = (double *)malloc(8 * (size_t)nx);
                double *y = (double *)malloc(8 * (size_t)CT__MAX(M, 1)), *y0 = (double *)malloc(8 * (size_t)CT__MAX(M, 1));
                float *Af = (float *)malloc(4 * (size_t)na), *xf = (float *)malloc(4 * (size_t)nx), *yf = (float *)malloc(4 * (size_t)CT__MAX(M, 1));
                for (int64_t i = 0; i < na; i++) Af[i] = (float)(A[i] = t_rand());
                for (int64_t i = 0; i < nx; i++) xf[i] = (float)(x[i] = t_rand());
                double beta = s % 2 ? 0.0 : 0.5;
                for (int64_t i = 0; i < M; i++) { yf[i] = (float)(y0[i] = y[i] = beta == 0 ? NAN : t_rand()); }
                ct__gemv_f64(M, K, 2.0, A, rsa, csa, x, inc, beta, y);
                ct__gemv_f32(M, K, 2.0f, Af, rsa, csa, xf, inc, (float)beta, yf);
                for (int64_t i = 0; i < M; i++) {
                    double acc = 0;
                    for (int64_t k = 0; k < K; k++) acc += A[i * rsa + k * csa] * x[k * inc];
                    double want = 2 * acc + (beta != 0 ? beta * y0[i] : 0);
                    if (fabs(y[i] - want) > 1e-10 * (1 + fabs(want)) * (1 + (double)K) ||
                        fabs(yf[i] - want) > 1e-4 * (1 + fabs(want)) * (1 + sqrt((double)K))) {
                        bad++;
                        printf("  gemv M=%lld K=%lld la=%d inc=%d: y[%lld] = %.9g / %.9g, expected %.9g\n", (long long)M, (long long)K, la,
                               inc, (long long)i, y[i], (double)yf[i], want);
                        break;
                    }
                }
                if (la == 0 && M > 0) {
                    double d = ct__vdot_f64(K, A, 1, x, inc), want = 0;
                    for (int64_t k = 0; k < K; k++) want += A[k] * x[k * inc];
                    if (fabs(d - want) > 1e-10 * (1 + (double)K)) bad++;
                    if (fabs(ct__vdot_f32(K, Af, 1, xf, inc) - want) > 1e-4 * (1 + (double)K)) bad++;
                }
                free(A); free(x); free(y); free(y0); free(Af); free(xf); free(yf);
            }
    CHECK_EQ_INT(bad, 0);
}

/* ---------------------------------------------------------------------------
   helpers
   ------------------------------------------------------------------------- */
#ifndef CT_TEST_BLAS_VALUES_ONLY
static ct_tensor *rnd64(int ndim, const int64_t *shape) { return ct_randn_n(CT_FLOAT64, ndim, shape); }
#define R64(...) rnd64(CT_DIMS(__VA_ARGS__))
static ct_tensor *rg(ct_tensor *t) { return ct_requires_grad(t); }
/* a leaf whose memory is transposed (last two dims swapped): a non-contiguous input */
static ct_tensor *rnd64_t(int64_t r, int64_t c) { return ct_requires_grad(ct_t(ct_randn(CT_FLOAT64, c, r))); }
#endif
static ct_tensor *ar(ct_dtype dt, int64_t n) { return ct_arange(0, (double)n, 1, dt); }
/* value check of two tensors (any dtypes) */
static int close_to(const ct_tensor *a, const ct_tensor *b, double tol) {
    if (!a || !b || !ct_same_shape(a, b)) return 0;
    return ct_allclose(ct_to(a, CT_FLOAT64), ct_to(b, CT_FLOAT64), tol, tol) == 1;
}
/* naive reference for matrix products, written with elementwise ops only */
static ct_tensor *ref_mm(const ct_tensor *a, const ct_tensor *b) {
    /* (M,K,1) * (1,K,N) summed over K */
    return ct_sum_dim(ct_mul(ct_unsqueeze(a, -1), ct_unsqueeze(b, -3)), -2, 0);
}

/* ---------------------------------------------------------------------------
   values and dtypes
   ------------------------------------------------------------------------- */
TEST(test_mm_values) {
    ct_tensor *a = ct_reshape(ar(CT_FLOAT32, 6), 2, 3), *b = ct_reshape(ar(CT_FLOAT32, 12), 3, 4);
    double e[] = {20, 23, 26, 29, 56, 68, 80, 92};
    CHECK_VALUES(ct_mm(a, b), e, 8, 0);
    /* transposed and strided operands read in place give the same values */
    ct_tensor *at = ct_t(ct_contiguous(ct_t(a))), *bs = ct_slice(ct_reshape(ar(CT_FLOAT32, 24), 3, 8), 1, 0, 8, 2);
    CHECK(!ct_is_contiguous(at) && !ct_is_contiguous(bs));
    CHECK_VALUES(ct_mm(at, ct_t(ct_contiguous(ct_t(b)))), e, 8, 0);
    double es[] = {40, 46, 52, 58, 112, 136, 160, 184};
    CHECK_VALUES(ct_mm(a, bs), es, 8, 0);
    /* expanded (stride 0) operands */
    ct_tensor *ex = ct_expand(ct_reshape(ct_ones(CT_FLOAT64, 3), 1, 3), 4, 3);
    CHECK(close_to(ct_mm(ex, ct_t(ex)), ct_full(CT_FLOAT64, 3.0, 4, 4), 0));
    /* bigger random products against the elementwise reference, both dtypes, transposes */
    ct_manual_seed(3);
    for (int dt = 0; dt < 2; dt++) {
        ct_dtype d = dt ? CT_FLOAT64 : CT_FLOAT32;
        ct_tensor *x = ct_randn(d, 67, 45), *y = ct_randn(d, 45, 81);
        double tol = dt ? 1e-12 : 1e-4;
        CHECK(close_to(ct_mm(x, y), ref_mm(x, y), tol));
        CHECK(close_to(ct_mm(ct_t(ct_contiguous(ct_t(x))), y), ref_mm(x, y), tol));
        CHECK(close_to(ct_mm(ct_t(y), ct_t(x)), ct_t(ref_mm(x, y)), tol));
    }
    /* integers (wrapping int64 arithmetic), int32 keeps its dtype */
    ct_tensor *ai = ct_reshape(ar(CT_INT64, 6), 2, 3), *bi = ct_reshape(ar(CT_INT64, 12), 3, 4);
    ct_tensor *ri = ct_mm(ai, bi);
    CHECK(ri && ri->dtype == CT_INT64);
    CHECK_VALUES(ri, e, 8, 0);
    ct_tensor *r32 = ct_mm(ct_to(ai, CT_INT32), ct_to(bi, CT_INT32));
    CHECK(r32 && r32->dtype == CT_INT32);
    CHECK_VALUES(r32, e, 8, 0);
    ct_tensor *r8 = ct_mm(ct_to(ai, CT_UINT8), ct_to(bi, CT_UINT8));
    CHECK(r8 && r8->dtype == CT_UINT8);
    double e8[] = {20, 23, 26, 29, 56, 68, 80, 92};
    CHECK_VALUES(r8, e8, 8, 0);
    /* half precision multiplies in float32 */
    ct_tensor *rh = ct_mm(ct_to(a, CT_FLOAT16), ct_to(b, CT_FLOAT16));
    CHECK(rh && rh->dtype == CT_FLOAT16);
    CHECK_VALUES(rh, e, 8, 0);
    ct_tensor *rb = ct_mm(ct_to(a, CT_BFLOAT16), ct_to(b, CT_BFLOAT16));
    CHECK(rb && rb->dtype == CT_BFLOAT16);
    CHECK_VALUES(rb, e, 8, 0);
    /* empty */
    ct_tensor *z = ct_mm(ct_ones(CT_FLOAT32, 2, 0), ct_ones(CT_FLOAT32, 0, 3));
    CHECK(z && ct_size(z, 0) == 2 && ct_size(z, 1) == 3 && ct_item(ct_sum(ct_abs(z))) == 0);
    CHECK(ct_numel(ct_mm(ct_ones(CT_FLOAT32, 0, 4), ct_ones(CT_FLOAT32, 4, 3))) == 0);
    /* errors */
    CHECK_ERR(ct_mm(ct_ones(CT_FLOAT32, 64, 784), ct_ones(CT_FLOAT32, 512, 256)), CT_ERR_SHAPE,
              "mat1 and mat2 shapes cannot be multiplied (64x784 and 512x256)");
    CHECK_ERR(ct_mm(ct_ones(CT_FLOAT32, 2, 3), ct_ones(CT_FLOAT64, 3, 2)), CT_ERR_DTYPE, "expected scalar type Float but found Double");
    CHECK_ERR(ct_mm(ct_ones(CT_FLOAT32, 3), ct_ones(CT_FLOAT32, 3, 2)), CT_ERR_SHAPE, "self must be a matrix");
    CHECK_ERR(ct_mm(ct_ones(CT_FLOAT32, 2, 3), ct_ones(CT_FLOAT32, 3)), CT_ERR_SHAPE, "mat2 must be a matrix");
    CHECK_ERR(ct_mm(ct_ones(CT_BOOL, 2, 3), ct_ones(CT_BOOL, 3, 2)), CT_ERR_DTYPE, "not implemented for 'Bool'");
    CHECK_ERR(ct_mm(NULL, ct_ones(CT_BOOL, 3, 2)), CT_ERR_NULL, "mm");
}

TEST(test_bmm_values) {
    ct_manual_seed(4);
    ct_tensor *a = ct_randn(CT_FLOAT64, 5, 7, 9), *b = ct_randn(CT_FLOAT64, 5, 9, 4);
    ct_tensor *r = ct_bmm(a, b);
    CHECK(r && ct_size(r, 0) == 5 && ct_size(r, 1) == 7 && ct_size(r, 2) == 4);
    for (int i = 0; i < 5; i++) CHECK(close_to(ct_select(r, 0, i), ct_mm(ct_select(a, 0, i), ct_select(b, 0, i)), 1e-12));
    /* permuted batches and a broadcast (stride-0) batch read in place */
    ct_tensor *ap = ct_permute(ct_contiguous(ct_permute(a, 1, 0, 2)), 1, 0, 2);
    CHECK(!ct_is_contiguous(ap));
    CHECK(close_to(ct_bmm(ap, b), r, 1e-12));
    ct_tensor *b0 = ct_expand(ct_unsqueeze(ct_select(b, 0, 0), 0), 5, 9, 4);
    ct_tensor *rb = ct_bmm(a, b0);
    for (int i = 0; i < 5; i++) CHECK(close_to(ct_select(rb, 0, i), ct_mm(ct_select(a, 0, i), ct_select(b, 0, 0)), 1e-12));
    /* many small products (threads over the batch when OpenMP is on) */
    ct_tensor *sa = ct_randn(CT_FLOAT32, 600, 9, 11), *sb = ct_randn(CT_FLOAT32, 600, 11, 13);
    ct_tensor *sr = ct_bmm(sa, sb);
    CHECK(close_to(sr, ref_mm(sa, sb), 1e-4));
    ct_tensor *ia = ct_reshape(ar(CT_INT64, 24), 2, 3, 4), *ib = ct_reshape(ar(CT_INT64, 24), 2, 4, 3);
    CHECK(close_to(ct_bmm(ia, ib), ref_mm(ia, ib), 0));
    CHECK(close_to(ct_bmm(ct_to(ia, CT_BFLOAT16), ct_to(ib, CT_BFLOAT16)), ref_mm(ia, ib), 1e-2));
    CHECK_EQ_INT(ct_numel(ct_bmm(ct_ones(CT_FLOAT32, 0, 2, 3), ct_ones(CT_FLOAT32, 0, 3, 4))), 0);
    CHECK_ERR(ct_bmm(ct_ones(CT_FLOAT32, 2, 3, 4), ct_ones(CT_FLOAT32, 2, 5, 3)), CT_ERR_SHAPE,
              "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 5].");
    CHECK_ERR(ct_bmm(ct_ones(CT_FLOAT32, 3, 4), ct_ones(CT_FLOAT32, 2, 4, 3)), CT_ERR_SHAPE, "batch1 must be a 3D tensor");
    CHECK_ERR(ct_bmm(ct_ones(CT_FLOAT32, 2, 3, 4), ct_ones(CT_FLOAT32, 4, 3)), CT_ERR_SHAPE, "batch2 must be a 3D tensor");
    CHECK_ERR(ct_bmm(ct_ones(CT_FLOAT64, 2, 3, 4), ct_ones(CT_FLOAT32, 2, 4, 3)), CT_ERR_DTYPE, "expected scalar type Double but found Float");
}

TEST(test_addmm_values) {
    ct_tensor *a = ct_reshape(ar(CT_FLOAT32, 6), 2, 3), *b = ct_reshape(ar(CT_FLOAT32, 12), 3, 4);
    ct_tensor *bias = ar(CT_FLOAT32, 4);
    /* 0.5 * bias + 2 * a @ b, bias broadcast over rows */
    double e[] = {40, 46.5, 53, 59.5, 112, 136.5, 161, 185.5};
    CHECK_VALUES(ct_addmm(bias, a, b, 0.5, 2), e, 8, 0);
    double e1[] = {20, 24, 28, 32, 56, 69, 82, 95};
    CHECK_VALUES(ct_addmm(bias, a, b, 1, 1), e1, 8, 0);
    /* a full (2, 4) input, a column (2, 1) and a 0-d input */
    double ec[] = {20, 23, 26, 29, 57, 69, 81, 93};
    CHECK_VALUES(ct_addmm(ct_reshape(ar(CT_FLOAT32, 2), 2, 1), a, b, 1, 1), ec, 8, 0);
    double e0[] = {23, 26, 29, 32, 59, 71, 83, 95};
    CHECK_VALUES(ct_addmm(ct_scalar_tensor(3, CT_FLOAT32), a, b, 1, 1), e0, 8, 0);
    /* beta == 0 ignores the input, NaN included (PyTorch's rule) */
    double e2[] = {20, 23, 26, 29, 56, 68, 80, 92};
    CHECK_VALUES(ct_addmm(ct_full(CT_FLOAT32, NAN, 4), a, b, 0, 1), e2, 8, 0);
    /* integers: alpha and beta are read as integers (2.5 -> 2) */
    ct_tensor *ai = ct_to(a, CT_INT64), *bi = ct_to(b, CT_INT64), *ri = ct_addmm(ct_to(bias, CT_INT64), ai, bi, 0.5, 2.5);
    CHECK(ri && ri->dtype == CT_INT64);
    double ei[] = {40, 46, 52, 58, 112, 136, 160, 184};
    CHECK_VALUES(ri, ei, 8, 0);
    ct_tensor *rb = ct_addmm(ct_to(bias, CT_BFLOAT16), ct_to(a, CT_BFLOAT16), ct_to(b, CT_BFLOAT16), 1, 1);
    CHECK(rb && rb->dtype == CT_BFLOAT16);
    CHECK_VALUES(rb, e1, 8, 0);
    /* non-contiguous everything, f64, against mm + add */
    ct_manual_seed(5);
    ct_tensor *x = ct_t(ct_randn(CT_FLOAT64, 33, 21)), *y = ct_t(ct_randn(CT_FLOAT64, 17, 33)), *inp = ct_t(ct_randn(CT_FLOAT64, 17, 21));
    CHECK(close_to(ct_addmm(inp, x, y, -0.75, 1.5), ct_add(ct_mul_scalar(inp, -0.75), ct_mul_scalar(ct_mm(x, y), 1.5)), 1e-12));
    CHECK_ERR(ct_addmm(ct_ones(CT_FLOAT32, 3), ct_ones(CT_FLOAT32, 2, 3), ct_ones(CT_FLOAT32, 4, 3), 1, 1), CT_ERR_SHAPE,
              "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x3)");
    CHECK_ERR(ct_addmm(ct_ones(CT_FLOAT32, 5), ct_ones(CT_FLOAT32, 2, 3), ct_ones(CT_FLOAT32, 3, 4), 1, 1), CT_ERR_SHAPE,
              "The expanded size of the tensor (4) must match the existing size (5) at non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [5]");
    CHECK_ERR(ct_addmm(ct_ones(CT_FLOAT32, 1, 2, 4), ct_ones(CT_FLOAT32, 2, 3), ct_ones(CT_FLOAT32, 3, 4), 1, 1), CT_ERR_ARG,
              "the number of sizes provided (2) must be greater or equal to the number of dimensions in the tensor (3)");
    CHECK_ERR(ct_addmm(ct_ones(CT_FLOAT64, 4), ct_ones(CT_FLOAT32, 2, 3), ct_ones(CT_FLOAT32, 3, 4), 1, 1), CT_ERR_DTYPE,
              "self and mat2 must have the same dtype");
    CHECK_ERR(ct_addmm(ct_ones(CT_FLOAT32, 4), ct_ones(CT_FLOAT64, 2, 3), ct_ones(CT_FLOAT32, 3, 4), 1, 1), CT_ERR_DTYPE,
              "mat1 and mat2 must have the same dtype");
    CHECK_ERR(ct_addmm(ct_ones(CT_FLOAT32, 4), ct_ones(CT_FLOAT32, 3), ct_ones(CT_FLOAT32, 3, 4), 1, 1), CT_ERR_SHAPE,
              "mat1 must be a matrix, got 1-D tensor");
    CHECK_ERR(ct_addmm(ct_ones(CT_BOOL, 4), ct_ones(CT_BOOL, 2, 3), ct_ones(CT_BOOL, 3, 4), 1, 1), CT_ERR_DTYPE,
              "\"addmm_impl_cpu_\" not implemented for 'Bool'");
}

TEST(test_baddbmm_values) {
    ct_manual_seed(6);
    ct_tensor *a = ct_randn(CT_FLOAT64, 3, 4, 5), *b = ct_randn(CT_FLOAT64, 3, 5, 2), *inp = ct_randn(CT_FLOAT64, 4, 1);
    ct_tensor *r = ct_baddbmm(inp, a, b, 0.5, -2);
    CHECK(close_to(r, ct_add(ct_mul_scalar(inp, 0.5), ct_mul_scalar(ct_bmm(a, b), -2)), 1e-12));
    /* input of another dtype is cast to the batches' dtype */
    ct_tensor *r32 = ct_baddbmm(ct_ones(CT_INT64, 2), ct_to(a, CT_FLOAT32), ct_to(b, CT_FLOAT32), 1, 1);
    CHECK(r32 && r32->dtype == CT_FLOAT32);
    CHECK(close_to(r32, ct_add_scalar(ct_bmm(a, b), 1), 1e-5));
    ct_tensor *ii = ct_baddbmm(ct_ones(CT_INT64, 2, 2, 2), ct_ones(CT_INT64, 2, 2, 3), ct_ones(CT_INT64, 2, 3, 2), 2, 3);
    double ei[] = {11, 11, 11, 11, 11, 11, 11, 11};
    CHECK_VALUES(ii, ei, 8, 0);
    CHECK_ERR(ct_baddbmm(ct_ones(CT_FLOAT32, 2, 3, 4), ct_ones(CT_FLOAT32, 2, 3, 5), ct_ones(CT_FLOAT32, 2, 4, 4), 1, 1), CT_ERR_SHAPE,
              "Expected size for first two dimensions of batch2 tensor to be: [2, 5] but got: [2, 4].");
    CHECK_ERR(ct_baddbmm(ct_ones(CT_FLOAT32, 3, 3, 4), ct_ones(CT_FLOAT32, 2, 3, 5), ct_ones(CT_FLOAT32, 2, 5, 4), 1, 1), CT_ERR_SHAPE,
              "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 0.  Target sizes: [2, 3, 4].  Tensor sizes: [3, 3, 4]");
    CHECK_ERR(ct_baddbmm(ct_ones(CT_FLOAT32, 2, 2, 2), ct_ones(CT_FLOAT32, 2, 3), ct_ones(CT_FLOAT32, 2, 3, 2), 1, 1), CT_ERR_SHAPE,
              "The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 1.");
    CHECK_ERR(ct_baddbmm(ct_ones(CT_FLOAT32, 2), ct_ones(CT_FLOAT32, 2, 2), ct_ones(CT_FLOAT32, 2, 3, 2), 1, 1), CT_ERR_SHAPE,
              "batch1 must be a 3D tensor");
    CHECK_ERR(ct_baddbmm(ct_ones(CT_FLOAT32, 2, 2), ct_ones(CT_FLOAT64, 2, 2, 3), ct_ones(CT_FLOAT32, 2, 3, 2), 1, 1), CT_ERR_DTYPE,
              "expected scalar type Double but found Float");
}

TEST(test_mv_addmv_values) {
    ct_tensor *m = ct_reshape(ar(CT_FLOAT32, 6), 2, 3), *v = ar(CT_FLOAT32, 3);
    double e[] = {5, 14};
    CHECK_VALUES(ct_mv(m, v), e, 2, 0);
    CHECK_VALUES(ct_mv(ct_t(ct_contiguous(ct_t(m))), ct_slice(ar(CT_FLOAT32, 6), 0, 0, 6, 2)), ((double[]){10, 28}), 2, 0);
    double e2[] = {0.5 + 10, 0.5 + 28};
    CHECK_VALUES(ct_addmv(ct_full(CT_FLOAT32, 1.0, 1), m, v, 0.5, 2), e2, 2, 0);
    CHECK_VALUES(ct_addmv(ct_scalar_tensor(1.0, CT_FLOAT32), m, v, 0.5, 2), e2, 2, 0);
    CHECK_VALUES(ct_addmv(ct_full(CT_FLOAT32, NAN, 2), m, v, 0, 1), e, 2, 0);
    ct_tensor *ri = ct_addmv(ct_ones(CT_INT64, 2), ct_to(m, CT_INT64), ct_to(v, CT_INT64), 1, 1);
    CHECK(ri && ri->dtype == CT_INT64);
    CHECK_VALUES(ri, ((double[]){6, 15}), 2, 0);
    ct_tensor *rf = ct_addmv(ct_ones(CT_INT64, 2), m, v, 1, 1);   /* the input is cast to mat's dtype */
    CHECK(rf && rf->dtype == CT_FLOAT32);
    CHECK_VALUES(ct_mv(ct_to(m, CT_BFLOAT16), ct_to(v, CT_BFLOAT16)), e, 2, 0);
    /* big enough for the blocked / BLAS path; row-major, transposed and strided */
    ct_manual_seed(7);
    ct_tensor *bm = ct_randn(CT_FLOAT64, 300, 200), *bv = ct_randn(CT_FLOAT64, 200);
    ct_tensor *want = ct_squeeze_dim(ref_mm(bm, ct_unsqueeze(bv, 1)), 1);
    CHECK(close_to(ct_mv(bm, bv), want, 1e-12));
    CHECK(close_to(ct_mv(ct_t(ct_contiguous(ct_t(bm))), bv), want, 1e-12));
    CHECK(close_to(ct_mv(ct_to(bm, CT_FLOAT32), ct_to(bv, CT_FLOAT32)), want, 1e-4));
    CHECK(close_to(ct_mv(ct_t(ct_contiguous(ct_t(ct_to(bm, CT_FLOAT32)))), ct_to(bv, CT_FLOAT32)), want, 1e-4));
    CHECK_EQ_INT(ct_numel(ct_mv(ct_ones(CT_FLOAT32, 0, 3), ct_ones(CT_FLOAT32, 3))), 0);
    CHECK_VALUES(ct_mv(ct_ones(CT_FLOAT32, 2, 0), ct_ones(CT_FLOAT32, 0)), ((double[]){0, 0}), 2, 0);
    CHECK_ERR(ct_mv(m, ct_ones(CT_FLOAT32, 4)), CT_ERR_SHAPE, "size mismatch, got 2, 2x3,4");
    CHECK_ERR(ct_mv(v, v), CT_ERR_SHAPE, "vector + matrix @ vector expected, got 1, 1, 1");
    CHECK_ERR(ct_mv(m, ct_ones(CT_FLOAT32, 3, 1)), CT_ERR_SHAPE, "vector + matrix @ vector expected, got 1, 2, 2");
    CHECK_ERR(ct_mv(m, ct_ones(CT_FLOAT64, 3)), CT_ERR_DTYPE, "expected scalar type Float but found Double");
    CHECK_ERR(ct_addmv(ct_ones(CT_FLOAT32, 3), m, v, 1, 1), CT_ERR_SHAPE, "size mismatch, got 3, 2x3,3");
    CHECK_ERR(ct_addmv(ct_ones(CT_FLOAT32, 2, 1), m, v, 1, 1), CT_ERR_SHAPE, "vector + matrix @ vector expected, got 2, 2, 1");
    CHECK_ERR(ct_addmv(ct_ones(CT_FLOAT32, 2), ct_ones(CT_FLOAT64, 2, 3), v, 1, 1), CT_ERR_DTYPE,
              "expected scalar type Double but found Float");
}

TEST(test_dot_outer_values) {
    ct_tensor *a = ar(CT_FLOAT32, 4), *b = ct_add_scalar(ar(CT_FLOAT32, 4), 1);
    CHECK_CLOSE(ct_item(ct_dot(a, b)), 20, 0);
    CHECK_CLOSE(ct_item(ct_vdot(a, b)), 20, 0);
    CHECK_EQ_INT(ct_ndim(ct_dot(a, b)), 0);
    CHECK_CLOSE(ct_item(ct_dot(ct_slice(ar(CT_FLOAT64, 8), 0, 0, 8, 2), ct_slice(ar(CT_FLOAT64, 8), 0, 1, 8, 2))), 68, 0);  /* strided */
    ct_tensor *bi = ct_dot(ct_to(a, CT_INT64), ct_to(b, CT_INT64));
    CHECK(bi && bi->dtype == CT_INT64 && ct_item_int(bi) == 20);
    ct_tensor *b32 = ct_dot(ct_to(a, CT_INT32), ct_to(b, CT_INT32));
    CHECK(b32 && b32->dtype == CT_INT32 && ct_item_int(b32) == 20);
    ct_tensor *bb = ct_dot(ct_to(a, CT_BFLOAT16), ct_to(b, CT_BFLOAT16));
    CHECK(bb && bb->dtype == CT_BFLOAT16 && ct_item(bb) == 20);
    CHECK_CLOSE(ct_item(ct_dot(ct_ones(CT_FLOAT32, 0), ct_ones(CT_FLOAT32, 0))), 0, 0);
    ct_manual_seed(8);
    ct_tensor *x = ct_randn(CT_FLOAT64, 1000), *y = ct_randn(CT_FLOAT64, 1000);
    CHECK_CLOSE(ct_item(ct_dot(x, y)), ct_item(ct_sum(ct_mul(x, y))), 1e-10);
    CHECK_CLOSE(ct_item(ct_dot(ct_to(x, CT_FLOAT32), ct_to(y, CT_FLOAT32))), ct_item(ct_sum(ct_mul(x, y))), 1e-3);
    CHECK_ERR(ct_dot(ct_ones(CT_FLOAT32, 3), ct_ones(CT_FLOAT32, 4)), CT_ERR_SHAPE,
              "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 and 4 elements respectively");
    CHECK_ERR(ct_dot(ct_ones(CT_FLOAT32, 2, 2), ct_ones(CT_FLOAT32, 2, 2)), CT_ERR_SHAPE, "1D tensors expected, but got 2D and 2D tensors");
    CHECK_ERR(ct_dot(ct_ones(CT_FLOAT32, 3), ct_ones(CT_FLOAT64, 3)), CT_ERR_DTYPE,
              "expected both vectors to have same dtype, but found Float and Double");
    CHECK_ERR(ct_dot(ct_ones(CT_BOOL, 3), ct_ones(CT_BOOL, 3)), CT_ERR_DTYPE, "\"dot\" not implemented for 'Bool'");
    CHECK_ERR(ct_vdot(ct_ones(CT_FLOAT32, 3), ct_ones(CT_FLOAT32, 4)), CT_ERR_SHAPE, "inconsistent tensor size");
    CHECK_ERR(ct_vdot(ct_ones(CT_FLOAT32, 2, 2), ct_ones(CT_FLOAT32, 2, 2)), CT_ERR_SHAPE, "1D tensors expected, but got 2D and 2D tensors");
    double eo[] = {1, 2, 3, 4, 2, 4, 6, 8};
    ct_tensor *o = ct_outer(ct_add_scalar(ar(CT_FLOAT32, 2), 1), b);
    CHECK_VALUES(o, eo, 8, 0);
    ct_tensor *op = ct_outer(ar(CT_INT64, 2), ct_ones(CT_FLOAT64, 3));   /* promotes like mul */
    CHECK(op && op->dtype == CT_FLOAT64);
    CHECK_ERR(ct_outer(ct_ones(CT_FLOAT32, 2, 2), b), CT_ERR_SHAPE, "outer: Expected 1-D argument self, but got 2-D");
    CHECK_ERR(ct_outer(b, ct_scalar_tensor(1, CT_FLOAT32)), CT_ERR_SHAPE, "Expected 1-D argument vec2, but got 0-D");
}

TEST(test_linear_values) {
    ct_manual_seed(9);
    ct_tensor *w = ct_randn(CT_FLOAT64, 3, 4), *bias = ct_randn(CT_FLOAT64, 3);
    ct_tensor *x2 = ct_randn(CT_FLOAT64, 5, 4), *x3 = ct_randn(CT_FLOAT64, 2, 5, 4), *x4 = ct_randn(CT_FLOAT64, 2, 1, 5, 4);
    ct_tensor *want2 = ct_add(ref_mm(x2, ct_t(w)), bias);
    CHECK(close_to(ct_linear(x2, w, bias), want2, 1e-12));
    CHECK(close_to(ct_linear(x2, w, NULL), ref_mm(x2, ct_t(w)), 1e-12));
    CHECK(close_to(ct_linear(x3, w, bias), ct_add(ct_matmul(x3, ct_t(w)), bias), 1e-12));
    CHECK(close_to(ct_linear(x4, w, bias), ct_add(ct_matmul(x4, ct_t(w)), bias), 1e-12));
    CHECK(close_to(ct_linear(ct_transpose(x3, 0, 1), w, bias), ct_add(ct_matmul(ct_transpose(x3, 0, 1), ct_t(w)), bias), 1e-12));
    CHECK(close_to(ct_linear(x3, w, NULL), ct_matmul(x3, ct_t(w)), 1e-12));
    ct_tensor *x1 = ct_randn(CT_FLOAT64, 4);
    ct_tensor *y1 = ct_linear(x1, w, bias);
    CHECK(y1 && ct_ndim(y1) == 1 && close_to(y1, ct_add(ct_mv(w, x1), bias), 1e-12));
    CHECK_STR(ct_grad_fn_name(ct_linear(x2, ct_requires_grad(ct_clone(w)), bias)), "AddmmBackward0");
    CHECK_EQ_INT(ct_size(ct_linear(x3, w, bias), 2), 3);
    ct_tensor *li = ct_linear(ct_ones(CT_INT64, 2, 3), ct_ones(CT_INT64, 4, 3), NULL);
    CHECK(li && li->dtype == CT_INT64 && ct_item_int(ct_sum(li)) == 24);
    CHECK_ERR(ct_linear(ct_ones(CT_FLOAT32, 64, 784), ct_ones(CT_FLOAT32, 256, 512), NULL), CT_ERR_SHAPE,
              "mat1 and mat2 shapes cannot be multiplied (64x784 and 512x256)");
    CHECK_ERR(ct_linear(ct_ones(CT_FLOAT32, 64, 784), ct_ones(CT_FLOAT32, 256, 512), ct_ones(CT_FLOAT32, 256)), CT_ERR_SHAPE,
              "mat1 and mat2 shapes cannot be multiplied (64x784 and 512x256)");
    CHECK_ERR(ct_linear(ct_ones(CT_FLOAT32, 2, 3, 4), ct_ones(CT_FLOAT32, 3, 5), ct_ones(CT_FLOAT32, 3)), CT_ERR_SHAPE,
              "mat1 and mat2 shapes cannot be multiplied (6x4 and 5x3)");
    CHECK_ERR(ct_linear(ct_ones(CT_FLOAT32, 64, 784), ct_ones(CT_FLOAT32, 256, 784), ct_ones(CT_FLOAT32, 5)), CT_ERR_SHAPE,
              "The expanded size of the tensor (256) must match the existing size (5) at non-singleton dimension 1");
    CHECK_ERR(ct_linear(ct_ones(CT_FLOAT32, 4, 3), ct_ones(CT_FLOAT32, 2, 2, 3), NULL), CT_ERR_ARG,
              "t() expects a tensor with <= 2 dimensions, but self is 3D");
    CHECK_ERR(ct_linear(ct_scalar_tensor(1, CT_FLOAT32), ct_ones(CT_FLOAT32, 3, 4), NULL), CT_ERR_ARG,
              "both arguments to matmul need to be at least 1D, but they are 0D and 2D");
    CHECK_ERR(ct_linear(ct_ones(CT_FLOAT32, 5, 4), ct_ones(CT_FLOAT64, 3, 4), NULL), CT_ERR_DTYPE,
              "expected scalar type Float but found Double");
    CHECK_ERR(ct_linear(ct_ones(CT_FLOAT32, 5, 4), ct_ones(CT_FLOAT32, 3, 4), ct_ones(CT_FLOAT64, 3)), CT_ERR_DTYPE,
              "self and mat2 must have the same dtype");
}

TEST(test_tensordot_values) {
    ct_manual_seed(10);
    ct_tensor *a = ct_randn(CT_FLOAT64, 2, 3, 4), *b = ct_randn(CT_FLOAT64, 3, 4, 5);
    int64_t da[] = {1, 2}, db[] = {0, 1};
    ct_tensor *r = ct_tensordot(a, b, 2, da, 2, db);
    ct_tensor *want = ct_mm(ct_reshape(a, 2, 12), ct_reshape(b, 12, 5));
    CHECK(r && ct_ndim(r) == 2 && close_to(r, want, 1e-12));
    CHECK(close_to(ct_tensordot_int(a, b, 2), want, 1e-12));
    int64_t da2[] = {2, 1}, db2[] = {1, 0};   /* the pairs in another order */
    CHECK(close_to(ct_tensordot(a, b, 2, da2, 2, db2), want, 1e-12));
    ct_tensor *o = ct_tensordot_int(ct_ones(CT_FLOAT64, 2, 3), ct_ones(CT_FLOAT64, 4), 0);
    CHECK(o && ct_ndim(o) == 3 && ct_size(o, 2) == 4);
    /* a contracted dim of size 1 broadcasts (the other side is summed) */
    int64_t d1[] = {1}, d0[] = {0};
    ct_tensor *bc = ct_tensordot(ct_ones(CT_FLOAT64, 2, 1, 4), b, 1, d1, 1, d0);
    CHECK(bc && ct_ndim(bc) == 4 && close_to(ct_select(ct_select(bc, 0, 0), 0, 0), ct_sum_dim(b, 0, 0), 1e-12));
    ct_tensor *ti = ct_tensordot_int(ct_ones(CT_INT64, 2, 3), ct_ones(CT_INT64, 3, 2), 1);
    CHECK(ti && ti->dtype == CT_INT64 && ct_item_int(ct_sum(ti)) == 12);
    int64_t bad1[] = {1, 0};
    CHECK_ERR(ct_tensordot(a, b, 2, da, 2, bad1), CT_ERR_SHAPE,
              "contracted dimensions need to match, but first has size 3 in dim 1 and second has size 4 in dim 1");
    CHECK_ERR(ct_tensordot_int(ct_ones(CT_FLOAT32, 2, 3), ct_ones(CT_FLOAT32, 4, 5), 1), CT_ERR_SHAPE,
              "first has size 3 in dim -1 and second has size 4 in dim 0");
    CHECK_ERR(ct_tensordot_int(a, b, -1), CT_ERR_ARG, "tensordot expects dims >= 0, but got dims=-1");
    CHECK_ERR(ct_tensordot(a, b, 2, da, 1, db), CT_ERR_ARG, "both dimension lists should have same length");
    CHECK_ERR(ct_tensordot_int(a, b, 4), CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-3, 2], but got -4)");
    int64_t dup[] = {1, 1};
    CHECK_ERR(ct_tensordot(a, ct_ones(CT_FLOAT64, 3, 3, 5), 2, dup, 2, db), CT_ERR_ARG, "dim 1 appears multiple times in the list of dims");
    int64_t oor[] = {5};
    CHECK_ERR(ct_tensordot(a, b, 1, oor, 1, d0), CT_ERR_INDEX, "but got 5");
    CHECK_ERR(ct_tensordot_int(ct_ones(CT_FLOAT32, 2, 3), ct_ones(CT_FLOAT64, 3, 2), 1), CT_ERR_DTYPE, "expected scalar type Float but found Double");
}

TEST(test_matmul_rules) {
    ct_manual_seed(11);
    ct_tensor *v3 = ct_randn(CT_FLOAT64, 3), *m23 = ct_randn(CT_FLOAT64, 2, 3), *m34 = ct_randn(CT_FLOAT64, 3, 4);
    ct_tensor *b523 = ct_randn(CT_FLOAT64, 5, 2, 3), *b534 = ct_randn(CT_FLOAT64, 5, 3, 4), *b4134 = ct_randn(CT_FLOAT64, 4, 1, 3, 4);
    ct_tensor *r;
    r = ct_matmul(v3, v3);
    CHECK(r && ct_ndim(r) == 0 && fabs(ct_item(r) - ct_item(ct_dot(v3, v3))) < 1e-12);
    CHECK_STR(ct_grad_fn_name(ct_matmul(ct_requires_grad(ct_clone(v3)), v3)), "DotBackward0");
    r = ct_matmul(m23, v3);
    CHECK(r && ct_ndim(r) == 1 && close_to(r, ct_mv(m23, v3), 1e-12));
    CHECK_STR(ct_grad_fn_name(ct_matmul(ct_requires_grad(ct_clone(m23)), v3)), "MvBackward0");
    r = ct_matmul(v3, m34);
    CHECK(r && ct_ndim(r) == 1 && ct_size(r, 0) == 4 && close_to(r, ct_mv(ct_t(m34), v3), 1e-12));
    r = ct_matmul(b523, m34);                       /* folded into one mm */
    CHECK(r && ct_ndim(r) == 3 && close_to(ct_select(r, 0, 3), ct_mm(ct_select(b523, 0, 3), m34), 1e-12));
    r = ct_matmul(b523, v3);                        /* folded into one mv */
    CHECK(r && ct_ndim(r) == 2 && close_to(ct_select(r, 0, 1), ct_mv(ct_select(b523, 0, 1), v3), 1e-12));
    r = ct_matmul(v3, b534);                        /* 1-D @ 3-D through the transpose */
    CHECK(r && ct_ndim(r) == 2 && ct_size(r, 1) == 4 && close_to(ct_select(r, 0, 2), ct_mv(ct_t(ct_select(b534, 0, 2)), v3), 1e-12));
    r = ct_matmul(m23, b534);                       /* 2-D @ 3-D through the transpose */
    CHECK(r && ct_ndim(r) == 3 && ct_is_contiguous(r) && close_to(ct_select(r, 0, 4), ct_mm(m23, ct_select(b534, 0, 4)), 1e-12));
    r = ct_matmul(b523, b534);                      /* batched */
    CHECK(r && close_to(r, ct_bmm(b523, b534), 1e-12));
    r = ct_matmul(b523, b4134);                     /* broadcast batch dims: (5) with (4, 1) */
    CHECK(r && ct_ndim(r) == 4 && ct_size(r, 0) == 4 && ct_size(r, 1) == 5 && ct_size(r, 3) == 4);
    CHECK(r && close_to(ct_select(ct_select(r, 0, 2), 0, 3), ct_mm(ct_select(b523, 0, 3), ct_select(ct_select(b4134, 0, 2), 0, 0)), 1e-12));
    /* the transposed 3-D operand goes to bmm instead of folding: same values */
    ct_tensor *bt = ct_transpose(ct_randn(CT_FLOAT64, 5, 3, 2), 1, 2);
    CHECK(close_to(ct_matmul(bt, m34), ct_bmm(bt, ct_expand(ct_unsqueeze(m34, 0), 5, 3, 4)), 1e-12));
    CHECK_EQ_INT(ct_numel(ct_matmul(ct_ones(CT_FLOAT32, 3, 5, 0), ct_ones(CT_FLOAT32, 0, 0))), 0);
    ct_tensor *ri = ct_matmul(ct_ones(CT_INT64, 2, 2, 3), ct_ones(CT_INT64, 3, 2));
    CHECK(ri && ri->dtype == CT_INT64 && ct_item_int(ct_sum(ri)) == 24);
    /* PyTorch's messages for each path */
    CHECK_ERR(ct_matmul(ct_scalar_tensor(1, CT_FLOAT32), ct_ones(CT_FLOAT32, 3)), CT_ERR_ARG,
              "both arguments to matmul need to be at least 1D, but they are 0D and 1D");
    CHECK_ERR(ct_matmul(ct_ones(CT_FLOAT32, 3), ct_ones(CT_FLOAT32, 4)), CT_ERR_SHAPE,
              "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 and 4 elements respectively");
    CHECK_ERR(ct_matmul(ct_ones(CT_FLOAT32, 2, 3), ct_ones(CT_FLOAT32, 4)), CT_ERR_SHAPE, "size mismatch, got 2, 2x3,4");
    CHECK_ERR(ct_matmul(ct_ones(CT_FLOAT32, 4), ct_ones(CT_FLOAT32, 3, 2)), CT_ERR_SHAPE, "mat1 and mat2 shapes cannot be multiplied (1x4 and 3x2)");
    CHECK_ERR(ct_matmul(ct_ones(CT_FLOAT32, 5, 2, 4), ct_ones(CT_FLOAT32, 3, 2)), CT_ERR_SHAPE,
              "mat1 and mat2 shapes cannot be multiplied (10x4 and 3x2)");
    CHECK_ERR(ct_matmul(ct_ones(CT_FLOAT32, 5, 2, 4), ct_ones(CT_FLOAT32, 3)), CT_ERR_SHAPE, "size mismatch, got 10, 10x4,3");
    CHECK_ERR(ct_matmul(ct_ones(CT_FLOAT32, 4), ct_ones(CT_FLOAT32, 5, 3, 2)), CT_ERR_SHAPE, "size mismatch, got 10, 10x3,4");
    CHECK_ERR(ct_matmul(ct_ones(CT_FLOAT32, 2, 4), ct_ones(CT_FLOAT32, 5, 3, 2)), CT_ERR_SHAPE,
              "mat1 and mat2 shapes cannot be multiplied (10x3 and 4x2)");
    CHECK_ERR(ct_matmul(ct_ones(CT_FLOAT32, 5, 2, 4), ct_ones(CT_FLOAT32, 5, 3, 2)), CT_ERR_SHAPE,
              "Expected size for first two dimensions of batch2 tensor to be: [5, 4] but got: [5, 3].");
    CHECK_ERR(ct_matmul(ct_ones(CT_FLOAT32, 5, 2, 3), ct_ones(CT_FLOAT32, 4, 3, 2)), CT_ERR_SHAPE,
              "The size of tensor a (5) must match the size of tensor b (4) at non-singleton dimension 0");
    CHECK_ERR(ct_matmul(ct_ones(CT_FLOAT32, 2, 3), ct_ones(CT_FLOAT64, 3, 2)), CT_ERR_DTYPE, "expected scalar type Float but found Double");
    CHECK_ERR(ct_matmul(ct_ones(CT_FLOAT32, 3), ct_ones(CT_FLOAT64, 3)), CT_ERR_DTYPE,
              "expected both vectors to have same dtype, but found Float and Double");
    CHECK_ERR(ct_matmul(ct_ones(CT_BOOL, 2, 3), ct_ones(CT_BOOL, 3, 2)), CT_ERR_DTYPE, "not implemented for 'Bool'");
}

/* ---------------------------------------------------------------------------
   einsum
   ------------------------------------------------------------------------- */
static ct_tensor *ein(const char *eq, ct_tensor *a, ct_tensor *b, ct_tensor *c) {
    ct_tensor *ops[3];
    int n = 0;
    if (a) ops[n++] = a;
    if (b) ops[n++] = b;
    if (c) ops[n++] = c;
    return ct_einsum(eq, n, ops);
}
TEST(test_einsum_values) {
    ct_manual_seed(12);
    ct_tensor *A = ct_randn(CT_FLOAT64, 3, 4), *B = ct_randn(CT_FLOAT64, 4, 5), *C = ct_randn(CT_FLOAT64, 5, 2);
    ct_tensor *S = ct_randn(CT_FLOAT64, 4, 4), *v = ct_randn(CT_FLOAT64, 4), *w = ct_randn(CT_FLOAT64, 3);
    ct_tensor *X = ct_randn(CT_FLOAT64, 2, 3, 4), *Y = ct_randn(CT_FLOAT64, 2, 4, 5);
    CHECK(close_to(ein("ij,jk->ik", A, B, NULL), ct_mm(A, B), 1e-12));
    CHECK(close_to(ein("ij,jk", A, B, NULL), ct_mm(A, B), 1e-12));                 /* implicit output */
    CHECK(close_to(ein("jk,ij", B, A, NULL), ct_mm(A, B), 1e-12));                 /* implicit: sorted labels */
    CHECK(close_to(ein("ij,jk->ki", A, B, NULL), ct_t(ct_mm(A, B)), 1e-12));
    CHECK(close_to(ein("ij,jk,kl->il", A, B, C), ct_mm(ct_mm(A, B), C), 1e-12));   /* three operands */
    CHECK(close_to(ein("ij,jk,kl->", A, B, C), ct_sum(ct_mm(ct_mm(A, B), C)), 1e-12));
    CHECK(close_to(ein("bij,bjk->bik", X, Y, NULL), ct_bmm(X, Y), 1e-12));
    CHECK(close_to(ein("ii->i", S, NULL, NULL), ct_diagonal(S, 0, 0, 1), 0));      /* diagonal */
    CHECK_CLOSE(ct_item(ein("ii", S, NULL, NULL)), ct_item(ct_sum(ct_diagonal(S, 0, 0, 1))), 1e-12);   /* trace */
    CHECK(close_to(ein("ij->ji", A, NULL, NULL), ct_t(A), 0));
    CHECK(close_to(ein("ij->j", A, NULL, NULL), ct_sum_dim(A, 0, 0), 1e-12));
    CHECK_CLOSE(ct_item(ein("ij->", A, NULL, NULL)), ct_item(ct_sum(A)), 1e-12);
    CHECK(close_to(ein("i,j->ij", w, v, NULL), ct_outer(w, v), 0));                /* outer: a mul */
    CHECK(close_to(ein("i,i->i", v, v, NULL), ct_mul(v, v), 0));
    CHECK_CLOSE(ct_item(ein("i,i", v, v, NULL)), ct_item(ct_dot(v, v)), 1e-12);    /* everything summed: dot */
    CHECK(close_to(ein("ij,j->i", A, v, NULL), ct_mv(A, v), 1e-12));
    CHECK(close_to(ein("...ij,...jk", X, Y, NULL), ct_matmul(X, Y), 1e-12));        /* ellipsis */
    CHECK(close_to(ein("...ij,jk->...ik", X, B, NULL), ct_matmul(X, B), 1e-12));
    CHECK(close_to(ein("b...->...", X, NULL, NULL), ct_sum_dim(X, 0, 0), 1e-12));
    CHECK(close_to(ein("...j->", X, NULL, NULL), ct_sum(X), 1e-12));
    CHECK(close_to(ein("ij...->...", X, NULL, NULL), ct_sum_dims(X, 2, CT__INTS(0, 1), 0), 1e-12));   /* ellipsis at the end */
    ct_tensor *E = ct_randn(CT_FLOAT64, 2, 3, 4, 5);
    CHECK(close_to(ein("a...b->b...a", E, NULL, NULL), ct_permute(E, 3, 1, 2, 0), 0));
    /* broadcasting a size-1 subscript and ellipsis dims */
    ct_tensor *A1 = ct_randn(CT_FLOAT64, 1, 4);
    CHECK(close_to(ein("ij,ij->ij", A1, A, NULL), ct_mul(A1, A), 0));
    ct_tensor *P = ct_randn(CT_FLOAT64, 2, 3), *Q = ct_randn(CT_FLOAT64, 4, 1, 3);
    CHECK(close_to(ein("...i,...i", P, Q, NULL), ct_sum_dim(ct_mul(P, Q), -1, 0), 1e-12));
    /* repeated subscripts with other dims, several repeats */
    ct_tensor *T = ct_randn(CT_FLOAT64, 3, 4, 3);
    CHECK(close_to(ein("iji->ij", T, NULL, NULL), ct_t(ct_diagonal(T, 0, 0, 2)), 0));
    ct_tensor *T4 = ct_randn(CT_FLOAT64, 2, 2, 2, 2);
    CHECK_CLOSE(ct_item(ein("iiii", T4, NULL, NULL)), ct_item(ct_add(ct_select(ct_select(ct_select(ct_select(T4, 0, 0), 0, 0), 0, 0), 0, 0),
                                                                        ct_select(ct_select(ct_select(ct_select(T4, 0, 1), 0, 1), 0, 1), 0, 1))), 1e-12);
    ct_tensor *M42 = ct_randn(CT_FLOAT64, 4, 2);
    CHECK(close_to(ein("ii,ij->j", S, M42, NULL), ct_mv(ct_t(M42), ct_diagonal(S, 0, 0, 1)), 1e-12));
    /* a label summed out of one operand only, spaces, upper case */
    CHECK(close_to(ein("ij, kj -> i", A, ct_ones(CT_FLOAT64, 2, 4), NULL), ct_mul_scalar(ct_sum_dim(A, 1, 0), 2), 1e-12));
    CHECK(close_to(ein("Ij", A, NULL, NULL), A, 0));
    CHECK(close_to(ein("ba", A, NULL, NULL), ct_t(A), 0));
    /* 0-d operands, empty dims, dtypes */
    CHECK_CLOSE(ct_item(ein("", ct_scalar_tensor(2.5, CT_FLOAT64), NULL, NULL)), 2.5, 0);
    CHECK(close_to(ein("i,->i", v, ct_scalar_tensor(2, CT_FLOAT64), NULL), ct_mul_scalar(v, 2), 0));
    ct_tensor *ez = ein("ij,jk->ik", ct_ones(CT_FLOAT32, 2, 0), ct_ones(CT_FLOAT32, 0, 4), NULL);
    CHECK(ez && ct_size(ez, 0) == 2 && ct_size(ez, 1) == 4 && ct_item(ct_sum(ez)) == 0);
    CHECK_EQ_INT(ct_numel(ein("ij,jk->ik", ct_ones(CT_FLOAT32, 0, 3), ct_ones(CT_FLOAT32, 3, 4), NULL)), 0);
    ct_tensor *ei = ein("ij,jk->ik", ct_ones(CT_INT32, 2, 3), ct_ones(CT_INT32, 3, 4), NULL);
    CHECK(ei && ei->dtype == CT_INT32 && ct_item_int(ct_sum(ei)) == 24);
    ct_tensor *eb = ein("i->i", ct_ones(CT_BOOL, 2), NULL, NULL);
    CHECK(eb && eb->dtype == CT_BOOL);
    ct_tensor *mixed = ein("i,i->i", ct_ones(CT_FLOAT32, 3), ct_ones(CT_FLOAT64, 3), NULL);
    CHECK(mixed && mixed->dtype == CT_FLOAT64);
    /* many operands and labels (more labels than a tensor has dims) */
    ct_tensor *m1 = ct_randn(CT_FLOAT64, 2, 3), *m2 = ct_randn(CT_FLOAT64, 3, 2), *m3 = ct_randn(CT_FLOAT64, 2, 2);
    ct_tensor *ops5[5] = {m1, m2, m3, m1, m2};
    ct_tensor *chain = ct_mm(ct_mm(ct_mm(ct_mm(m1, m2), m3), m1), m2);
    CHECK(close_to(ct_einsum("ab,bc,cd,de,ef->af", 5, ops5), chain, 1e-12));
    ct_tensor *many[2] = {ct_randn(CT_FLOAT64, 2, 2, 2, 2, 2), ct_randn(CT_FLOAT64, 2, 2, 2, 2, 2)};
    ct_tensor *r10 = ct_einsum("abcde,fghij->", 2, many);
    CHECK(r10 && fabs(ct_item(r10) - ct_item(ct_sum(many[0])) * ct_item(ct_sum(many[1]))) < 1e-10);
    /* memory: nothing is left behind */
    int64_t t0 = ct_live_tensors();
    CT_SCOPE { (void)ein("bij,bjk->bik", X, Y, NULL); (void)ein("ii->i", S, NULL, NULL); }
    CHECK_EQ_INT(ct_live_tensors(), t0);
}
TEST(test_einsum_errors) {
    ct_tensor *a = ct_ones(CT_FLOAT32, 2, 3), *b = ct_ones(CT_FLOAT32, 3, 4);
    CHECK_ERR(ein("ij,jk", ct_ones(CT_FLOAT32, 2, 3, 4), b, NULL), CT_ERR_SHAPE,
              "einsum(): the number of subscripts in the equation (2) does not match the number of dimensions (3) for operand 0 and no ellipsis was given");
    CHECK_ERR(ein("ij,jk->ik", a, ct_ones(CT_FLOAT32, 4, 4), NULL), CT_ERR_SHAPE,
              "einsum(): subscript j has size 4 for operand 1 which does not broadcast with previously seen size 3");
    CHECK_ERR(ein("ii->i", a, NULL, NULL), CT_ERR_SHAPE, "einsum(): subscript i is repeated for operand 0 but the sizes don't match, 3 != 2");
    CHECK_ERR(ein("ij->ijk", a, NULL, NULL), CT_ERR_ARG, "einsum(): output subscript k does not appear in the equation for any input operand");
    CHECK_ERR(ein("ij,jk", a, NULL, NULL), CT_ERR_ARG, "einsum(): fewer operands were provided than specified in the equation");
    CHECK_ERR(ein("ij", a, b, NULL), CT_ERR_ARG, "einsum(): more operands were provided than specified in the equation");
    CHECK_ERR(ein("ij->ii", ct_ones(CT_FLOAT32, 2, 2), NULL, NULL), CT_ERR_ARG, "einsum(): output subscript i appears more than once in the output");
    CHECK_ERR(ein("ij->j->", a, NULL, NULL), CT_ERR_ARG,
              "einsum(): invalid subscript given at index 5 in the equation string, subscripts must be in [a-zA-Z]");
    CHECK_ERR(ein("i1", a, NULL, NULL), CT_ERR_ARG, "einsum(): invalid subscript given at index 1");
    CHECK_ERR(ein("ij-i", a, NULL, NULL), CT_ERR_ARG, "einsum(): invalid subscript given at index 2");
    CHECK_ERR(ein("ij->i.", a, NULL, NULL), CT_ERR_ARG, "einsum(): found '.' for output that is not part of any ellipsis (...)");
    CHECK_ERR(ein("..i..->i", a, NULL, NULL), CT_ERR_ARG, "einsum(): found '.' for operand 0 that is not part of any ellipsis");
    CHECK_ERR(ein("...i...", a, NULL, NULL), CT_ERR_ARG, "einsum(): found '.' for operand 0 for which an ellipsis was already found");
    CHECK_ERR(ein("...i->......", a, NULL, NULL), CT_ERR_ARG, "einsum(): found '.' for output but an ellipsis (...) was already found");
    CHECK_ERR(ein("...ijk", a, NULL, NULL), CT_ERR_SHAPE,
              "einsum(): the number of subscripts in the equation (3) is more than the number of dimensions (2) for operand 0");
    CHECK_ERR(ein("...i,...i", a, ct_ones(CT_FLOAT32, 4, 3), NULL), CT_ERR_SHAPE,
              "einsum(): dimension 0 covered by ellipsis in operand 1 has size 4 which does not broadcast with previously seen ellipsis with size 2");
    CHECK_ERR(ein("ij,jk", a, ct_ones(CT_FLOAT64, 3, 4), NULL), CT_ERR_DTYPE, "expected scalar type Float but found Double");
    CHECK_ERR(ein("ij,jk->ik", ct_ones(CT_BOOL, 2, 3), ct_ones(CT_BOOL, 3, 4), NULL), CT_ERR_DTYPE, "\"bmm\" not implemented for 'Bool'");
    CHECK_ERR(ct_einsum("ij", 0, NULL), CT_ERR_ARG, "must specify the equation string and at least one operand");
    ct_tensor *nul[1] = {NULL};
    CHECK_ERR(ct_einsum("ij", 1, nul), CT_ERR_NULL, "einsum");
}

#ifndef CT_TEST_BLAS_VALUES_ONLY
/* ---------------------------------------------------------------------------
   autograd: names, gradcheck, gradgradcheck
   ------------------------------------------------------------------------- */
TEST(test_grad_fn_names) {
    ct_tensor *m = rg(R64(2, 3)), *n2 = rg(R64(3, 4)), *v = rg(R64(3)), *b = rg(R64(4));
    CHECK_STR(ct_grad_fn_name(ct_mm(m, n2)), "MmBackward0");
    CHECK_STR(ct_grad_fn_name(ct_addmm(b, m, n2, 1, 1)), "AddmmBackward0");
    CHECK_STR(ct_grad_fn_name(ct_bmm(ct_unsqueeze(m, 0), ct_unsqueeze(n2, 0))), "BmmBackward0");
    CHECK_STR(ct_grad_fn_name(ct_baddbmm(b, ct_unsqueeze(m, 0), ct_unsqueeze(n2, 0), 1, 1)), "BaddbmmBackward0");
    CHECK_STR(ct_grad_fn_name(ct_mv(m, v)), "MvBackward0");
    CHECK_STR(ct_grad_fn_name(ct_addmv(R64(2), m, v, 1, 1)), "AddmvBackward0");
    CHECK_STR(ct_grad_fn_name(ct_dot(v, v)), "DotBackward0");
    CHECK_STR(ct_grad_fn_name(ct_vdot(v, v)), "VdotBackward0");
    CHECK_STR(ct_grad_fn_name(ct_outer(v, b)), "MulBackward0");
}

typedef ct_tensor *(*gfn)(ct_tensor *const *in, void *u);
static int gc(gfn f, int n, ct_tensor **in) { int ok = ct_gradcheck(f, NULL, n, in, NULL); if (!ok) printf("  %s\n", ct_last_error()); return ok; }
static int ggc(gfn f, int n, ct_tensor **in) { int ok = ct_gradgradcheck(f, NULL, n, in, NULL); if (!ok) printf("  %s\n", ct_last_error()); return ok; }
static ct_tensor *f_mm(ct_tensor *const *in, void *u) { (void)u; return ct_mm(in[0], in[1]); }
static ct_tensor *f_mm_tt(ct_tensor *const *in, void *u) { (void)u; return ct_mm(ct_t(in[0]), ct_t(in[1])); }
static ct_tensor *f_bmm(ct_tensor *const *in, void *u) { (void)u; return ct_bmm(in[0], in[1]); }
static ct_tensor *f_bmm_t(ct_tensor *const *in, void *u) { (void)u; return ct_bmm(ct_mT(in[0]), in[1]); }
static ct_tensor *f_addmm(ct_tensor *const *in, void *u) { (void)u; return ct_addmm(in[0], in[1], in[2], 0.5, -1.5); }
static ct_tensor *f_addmm1(ct_tensor *const *in, void *u) { (void)u; return ct_addmm(in[0], in[1], in[2], 1, 1); }
static ct_tensor *f_baddbmm(ct_tensor *const *in, void *u) { (void)u; return ct_baddbmm(in[0], in[1], in[2], -0.5, 2); }
static ct_tensor *f_addmv(ct_tensor *const *in, void *u) { (void)u; return ct_addmv(in[0], in[1], in[2], 2, 0.5); }
static ct_tensor *f_mv(ct_tensor *const *in, void *u) { (void)u; return ct_mv(in[0], in[1]); }
static ct_tensor *f_dot(ct_tensor *const *in, void *u) { (void)u; return ct_dot(in[0], in[1]); }
static ct_tensor *f_vdot(ct_tensor *const *in, void *u) { (void)u; return ct_vdot(in[0], in[1]); }
static ct_tensor *f_outer(ct_tensor *const *in, void *u) { (void)u; return ct_outer(in[0], in[1]); }
static ct_tensor *f_linear(ct_tensor *const *in, void *u) { (void)u; return ct_linear(in[0], in[1], in[2]); }
static ct_tensor *f_linear_nob(ct_tensor *const *in, void *u) { (void)u; return ct_linear(in[0], in[1], NULL); }
static ct_tensor *f_matmul(ct_tensor *const *in, void *u) { (void)u; return ct_matmul(in[0], in[1]); }
static ct_tensor *f_tensordot(ct_tensor *const *in, void *u) {
    int64_t da[] = {2, 0}, db[] = {0, 1};
    (void)u;
    return ct_tensordot(in[0], in[1], 2, da, 2, db);
}
static ct_tensor *f_tensordot1(ct_tensor *const *in, void *u) { (void)u; return ct_tensordot_int(in[0], in[1], 1); }
static const char *g_eq;
static ct_tensor *f_einsum(ct_tensor *const *in, void *u) { return ct_einsum(g_eq, (int)(intptr_t)u, in); }

TEST(test_gradcheck_products) {
    ct_manual_seed(13);
    ct_tensor *in[3];
    in[0] = rg(R64(3, 4)); in[1] = rg(R64(4, 2));
    CHECK(gc(f_mm, 2, in));
    in[0] = rnd64_t(3, 4); in[1] = rnd64_t(4, 2);      /* transposed (non-contiguous) leaves */
    CHECK(gc(f_mm, 2, in));
    in[0] = rg(R64(4, 3)); in[1] = rg(R64(2, 4));
    CHECK(gc(f_mm_tt, 2, in));
    in[0] = rg(R64(2, 3, 4)); in[1] = rg(R64(2, 4, 2));
    CHECK(gc(f_bmm, 2, in));
    in[0] = rg(R64(2, 4, 3)); in[1] = rg(ct_permute(R64(4, 2, 2), 1, 0, 2));
    CHECK(gc(f_bmm_t, 2, in));
    in[0] = rg(R64(2)); in[1] = rg(R64(3, 4)); in[2] = rg(R64(4, 2));   /* broadcast input */
    CHECK(gc(f_addmm, 3, in));
    in[0] = rg(R64(3, 2)); in[1] = rnd64_t(3, 4); in[2] = rnd64_t(4, 2);
    CHECK(gc(f_addmm1, 3, in));
    in[0] = rg(R64(3, 1)); in[1] = rg(R64(2, 3, 4)); in[2] = rg(R64(2, 4, 2));
    CHECK(gc(f_baddbmm, 3, in));
    in[0] = rg(R64(1)); in[1] = rg(R64(3, 4)); in[2] = rg(R64(4));
    CHECK(gc(f_addmv, 3, in));
    in[0] = rg(R64(3)); in[1] = rnd64_t(3, 4); in[2] = rg(ct_slice(R64(8), 0, 0, 8, 2));
    CHECK(gc(f_addmv, 3, in));
    in[0] = rg(R64(3, 4)); in[1] = rg(R64(4));
    CHECK(gc(f_mv, 2, in));
    in[0] = rnd64_t(3, 4);
    CHECK(gc(f_mv, 2, in));
    in[0] = rg(R64(5)); in[1] = rg(ct_slice(R64(10), 0, 1, 10, 2));
    CHECK(gc(f_dot, 2, in));
    CHECK(gc(f_vdot, 2, in));
    in[0] = rg(R64(3)); in[1] = rg(R64(4));
    CHECK(gc(f_outer, 2, in));
    in[0] = rg(R64(5, 4)); in[1] = rg(R64(3, 4)); in[2] = rg(R64(3));
    CHECK(gc(f_linear, 3, in));
    in[0] = rg(R64(2, 3, 4));
    CHECK(gc(f_linear, 3, in));
    in[0] = rg(ct_transpose(R64(3, 2, 4), 0, 1));
    CHECK(gc(f_linear, 3, in));
    in[0] = rg(R64(4));
    CHECK(gc(f_linear, 3, in));
    in[0] = rg(R64(2, 3, 4));
    CHECK(gc(f_linear_nob, 2, in));
    in[0] = rg(R64(3, 2, 4)); in[1] = rg(R64(4, 3, 5));
    CHECK(gc(f_tensordot, 2, in));
    in[0] = rg(R64(2, 3)); in[1] = rg(R64(3, 2, 2));
    CHECK(gc(f_tensordot1, 2, in));
}

TEST(test_gradcheck_matmul) {
    ct_manual_seed(14);
    static const int64_t shapes[][2][5] = {
        {{1, 3}, {1, 3}},             /* dot */
        {{2, 2, 3}, {1, 3}},          /* mv */
        {{1, 3}, {2, 3, 2}},          /* 1-D @ 2-D */
        {{3, 2, 3, 4}, {2, 4, 2}},    /* folded mm */
        {{3, 2, 3, 4}, {1, 4}},       /* folded mv */
        {{1, 4}, {3, 2, 4, 3}},       /* 1-D @ 3-D */
        {{2, 3, 4}, {3, 2, 4, 2}},    /* 2-D @ 3-D */
        {{3, 2, 3, 4}, {3, 2, 4, 2}}, /* bmm */
        {{4, 2, 1, 2, 3}, {3, 3, 3, 2}}, /* broadcast batches */
    };
    for (int s = 0; s < 9; s++) {
        ct_tensor *in[2];
        in[0] = rg(ct_randn_n(CT_FLOAT64, (int)shapes[s][0][0], &shapes[s][0][1]));
        in[1] = rg(ct_randn_n(CT_FLOAT64, (int)shapes[s][1][0], &shapes[s][1][1]));
        CHECK(gc(f_matmul, 2, in));
    }
    /* the transposed 3-D operand (bmm path) */
    ct_tensor *in[2] = {rg(ct_transpose(R64(2, 4, 3), 1, 2)), rg(R64(4, 2))};
    CHECK(gc(f_matmul, 2, in));
}

TEST(test_gradcheck_einsum) {
    ct_manual_seed(15);
    struct { const char *eq; int n; int64_t s[3][4]; } cases[] = {
        {"ij,jk->ik", 2, {{2, 2, 3}, {2, 3, 2}}},
        {"ij,jk", 2, {{2, 2, 3}, {2, 3, 2}}},
        {"ii->i", 1, {{2, 3, 3}}},
        {"ii", 1, {{2, 3, 3}}},
        {"iji->j", 1, {{3, 2, 3, 2}}},
        {"bij,bjk->bik", 2, {{3, 2, 2, 3}, {3, 2, 3, 2}}},
        {"...ij,...jk->...ik", 2, {{3, 2, 2, 3}, {2, 3, 2}}},
        {"b...,b->...", 2, {{3, 2, 2, 3}, {1, 2}}},
        {"ij,jk,kl->il", 3, {{2, 2, 3}, {2, 3, 2}, {2, 2, 2}}},
        {"ij,ij->", 2, {{2, 2, 3}, {2, 2, 3}}},
        {"ij->j", 1, {{2, 3, 2}}},
        {"i,j->ij", 2, {{1, 3}, {1, 2}}},
        {"ij,kj->ik", 2, {{2, 1, 3}, {2, 2, 3}}},   /* size-1 broadcast */
        {"abc,cd->bd", 2, {{3, 2, 3, 2}, {2, 2, 3}}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ct_tensor *in[3];
        for (int i = 0; i < cases[k].n; i++) in[i] = rg(ct_randn_n(CT_FLOAT64, (int)cases[k].s[i][0], &cases[k].s[i][1]));
        g_eq = cases[k].eq;
        int ok = ct_gradcheck(f_einsum, (void *)(intptr_t)cases[k].n, cases[k].n, in, NULL);
        if (!ok) printf("  einsum %s: %s\n", g_eq, ct_last_error());
        CHECK(ok);
    }
    /* a non-contiguous operand */
    ct_tensor *in[2] = {rnd64_t(3, 2), rg(R64(2, 2))};
    g_eq = "ij,jk->ki";
    CHECK(ct_gradcheck(f_einsum, (void *)(intptr_t)2, 2, in, NULL));
}

TEST(test_gradgradcheck) {
    ct_manual_seed(16);
    ct_tensor *in[3];
    in[0] = rg(R64(3, 2)); in[1] = rg(R64(2, 2));
    CHECK(ggc(f_mm, 2, in));
    in[0] = rg(R64(2, 2, 3)); in[1] = rg(R64(2, 3, 2));
    CHECK(ggc(f_bmm, 2, in));
    in[0] = rg(R64(2, 2, 3)); in[1] = rg(R64(3, 2));
    CHECK(ggc(f_matmul, 2, in));
    in[0] = rg(R64(3)); in[1] = rg(R64(3));
    CHECK(ggc(f_matmul, 2, in));
    in[0] = rg(R64(2, 3)); in[1] = rg(R64(2, 3)); in[2] = rg(R64(2));
    CHECK(ggc(f_linear, 3, in));
    in[0] = rg(R64(2)); in[1] = rg(R64(2, 3)); in[2] = rg(R64(3, 2));
    CHECK(ggc(f_addmm, 3, in));
    in[0] = rg(R64(2)); in[1] = rg(R64(2, 3)); in[2] = rg(R64(3));
    CHECK(ggc(f_addmv, 3, in));
    in[0] = rg(R64(2, 2)); in[1] = rg(R64(2, 2, 3)); in[2] = rg(R64(2, 3, 2));
    CHECK(ggc(f_baddbmm, 3, in));
    in[0] = rg(R64(3)); in[1] = rg(R64(3));
    CHECK(ggc(f_dot, 2, in));
    g_eq = "ij,jk->ik";
    in[0] = rg(R64(2, 3)); in[1] = rg(R64(3, 2));
    CHECK(ct_gradgradcheck(f_einsum, (void *)(intptr_t)2, 2, in, NULL));
    g_eq = "bii,bij->bj";
    in[0] = rg(R64(2, 2, 2)); in[1] = rg(R64(2, 2, 3));
    CHECK(ct_gradgradcheck(f_einsum, (void *)(intptr_t)2, 2, in, NULL));
}

TEST(test_backward_values) {
    /* d/dA sum(A @ B) = ones @ B^T, through the strided GEMM in backward */
    ct_tensor *A = rg(ct_reshape(ar(CT_FLOAT32, 6), 2, 3)), *B = rg(ct_reshape(ar(CT_FLOAT32, 12), 3, 4));
    CHECK_EQ_INT(ct_backward(ct_sum(ct_mm(A, B))), CT_OK);
    double ga[] = {6, 22, 38, 6, 22, 38}, gb[] = {3, 3, 3, 3, 5, 5, 5, 5, 7, 7, 7, 7};
    CHECK_VALUES(ct_grad(A), ga, 6, 0);
    CHECK_VALUES(ct_grad(B), gb, 12, 0);
    /* addmm: the broadcast input gets beta * the summed gradient */
    ct_tensor *bias = rg(ct_zeros(CT_FLOAT32, 4));
    CHECK_EQ_INT(ct_backward(ct_sum(ct_addmm(bias, A, B, 0.5, 2))), CT_OK);
    CHECK_VALUES(ct_grad(bias), ((double[]){1, 1, 1, 1}), 4, 0);
    /* addmv with a float64 input and float32 matrix: the gradient comes back as float64 */
    ct_tensor *i64 = rg(ct_zeros(CT_FLOAT64, 2));
    CHECK_EQ_INT(ct_backward(ct_sum(ct_addmv(i64, ct_detach(A), ct_ones(CT_FLOAT32, 3), 3, 1))), CT_OK);
    CHECK(ct_grad(i64) && ct_grad(i64)->dtype == CT_FLOAT64);
    CHECK_VALUES(ct_grad(i64), ((double[]){3, 3}), 2, 0);
}
#endif /* CT_TEST_BLAS_VALUES_ONLY */

#ifndef CT_TEST_BLAS_NO_MAIN
int main(void) {
    ct_t_init();
    RUN(test_gemm_shapes);
    RUN(test_gemv_dot_kernels);
    RUN(test_mm_values);
    RUN(test_bmm_values);
    RUN(test_addmm_values);
    RUN(test_baddbmm_values);
    RUN(test_mv_addmv_values);
    RUN(test_dot_outer_values);
    RUN(test_linear_values);
    RUN(test_tensordot_values);
    RUN(test_matmul_rules);
    RUN(test_einsum_values);
    RUN(test_einsum_errors);
    RUN(test_grad_fn_names);
    RUN(test_gradcheck_products);
    RUN(test_gradcheck_matmul);
    RUN(test_gradcheck_einsum);
    RUN(test_gradgradcheck);
    RUN(test_backward_values);
    return ct_t_summary();
}
#endif
