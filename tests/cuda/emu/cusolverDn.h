/* tests/cuda/emu/cusolverDn.h - the cuSOLVER dense routines that ctensor_cuda.h
   uses (for ctensor_linalg.h's ops), emulated on the host for the CUDA emulator
   (see cuda_runtime.h here) with LAPACKE: potrf, potrfBatched, potrs, getrf, getrs,
   syevd, geqrf, orgqr, ormqr, gesvd (float and double), their workspace-size queries,
   a handle and its stream, the 64-bit API's Xgeev (real types), syevjBatched and gesvdjBatched; and cuBLAS's getrfBatched / getrsBatched / geqrfBatched (which
   need LAPACKE too, so they live here rather than in cublas_v2.h). The signatures are cuSOLVER's; the rules a GPU
   enforces are checked: the matrices, the workspace, the pivots and devInfo are
   device memory (a host pointer there aborts the test, as it would fault on a
   GPU), the workspace holds at least Lwork elements, the leading dimensions and
   sizes are valid (else CUSOLVER_STATUS_INVALID_VALUE, as cuSOLVER returns), and
   gesvd takes m >= n only (cuSOLVER's restriction). devInfo gets LAPACK's info
   (0, or the positive code: the failing minor, the zero pivot, the number of
   off-diagonals that did not converge), as cuSOLVER's. Device memory is readable
   only while a routine runs (the emulator's guard). The emulated workspace sizes
   are LAPACK's queries, so a wrong size computed by the caller shows up. */
#ifndef CT_EMU_CUSOLVERDN_H
#define CT_EMU_CUSOLVERDN_H
#include "cuda_runtime.h"
#include "cublas_v2.h"
#include <lapacke.h>

typedef enum {
    CUSOLVER_STATUS_SUCCESS = 0,
    CUSOLVER_STATUS_NOT_INITIALIZED = 1,
    CUSOLVER_STATUS_ALLOC_FAILED = 2,
    CUSOLVER_STATUS_INVALID_VALUE = 3,
    CUSOLVER_STATUS_EXECUTION_FAILED = 6,
    CUSOLVER_STATUS_INTERNAL_ERROR = 7
} cusolverStatus_t;
typedef enum { CUSOLVER_EIG_MODE_NOVECTOR = 0, CUSOLVER_EIG_MODE_VECTOR = 1 } cusolverEigMode_t;
typedef struct ct_emu_solver { int device; } *cusolverDnHandle_t;

inline cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *h) {
    *h = new ct_emu_solver;
    (*h)->device = ct_emu::cur_device;
    return CUSOLVER_STATUS_SUCCESS;
}
inline cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t h) {
    delete h;
    return CUSOLVER_STATUS_SUCCESS;
}
/* the stream must be a live one of the handle's device */
inline cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t h, cudaStream_t s) {
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (s && ct_emu::stream_device(s, "cusolverDnSetStream") != h->device) {
        fprintf(stderr, "cuda emulator: cusolverDnSetStream: a stream of device %d for a handle of device %d\n",
                ct_emu::stream_device(s, "cusolverDnSetStream"), h->device);
        abort();
    }
    return CUSOLVER_STATUS_SUCCESS;
}

namespace ct_emu {
inline size_t col_bytes(int rows, int cols, int ld, size_t es) { return rows && cols ? ((size_t)(cols - 1) * (size_t)ld + (size_t)rows) * es : 0; }
inline void dev_mat(const void *p, int rows, int cols, int ld, size_t es, const char *what) { check_side(p, col_bytes(rows, cols, ld, es), true, what); }
inline void dev_ws(const void *w, int lwork, int need, size_t es, const char *what) {
    if (lwork < need) {
        fprintf(stderr, "cuda emulator: %s: Lwork %d is smaller than the %d elements the workspace query gives\n", what, lwork, need);
        abort();
    }
    check_side(w, (size_t)(need > 0 ? need : 0) * es, true, what);
}
inline void dev_info(const int *info, const char *what) { check_side(info, sizeof(int), true, what); }
inline int mx1(int n) { return n > 1 ? n : 1; }
/* workspace sizes: LAPACK's own queries (at least 1) */
template <typename T> inline int potrf_ws(int) { return 1; }
template <typename T> inline int getrf_ws(int m, int n) { return mx1(m < n ? m : n); }
template <typename T> inline int syevd_ws(int jobv, int n) {
    T q = 0;
    lapack_int qi = 0;
    if (sizeof(T) == 8) LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, jobv ? 'V' : 'N', 'L', n, NULL, mx1(n), NULL, (double *)&q, -1, &qi, -1);
    else LAPACKE_ssyevd_work(LAPACK_COL_MAJOR, jobv ? 'V' : 'N', 'L', n, NULL, mx1(n), NULL, (float *)&q, -1, &qi, -1);
    return (int)q + 1 + qi + 1;   /* the integer workspace rides at its end */
}
template <typename T> inline int geqrf_ws(int m, int n) {
    T q = 0, dummy = 0;
    if (sizeof(T) == 8) LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, n, (double *)&dummy, mx1(m), (double *)&dummy, (double *)&q, -1);
    else LAPACKE_sgeqrf_work(LAPACK_COL_MAJOR, m, n, (float *)&dummy, mx1(m), (float *)&dummy, (float *)&q, -1);
    return mx1((int)q);
}
template <typename T> inline int orgqr_ws(int m, int n, int k) {
    T q = 0, dummy = 0;
    if (sizeof(T) == 8) LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, m, n, k, (double *)&dummy, mx1(m), (double *)&dummy, (double *)&q, -1);
    else LAPACKE_sorgqr_work(LAPACK_COL_MAJOR, m, n, k, (float *)&dummy, mx1(m), (float *)&dummy, (float *)&q, -1);
    return mx1((int)q);
}
template <typename T> inline int ormqr_ws(char side, char trans, int m, int n, int k) {
    T q = 0, dummy = 0;
    int lda = mx1(side == 'L' ? m : n);
    if (sizeof(T) == 8) LAPACKE_dormqr_work(LAPACK_COL_MAJOR, side, trans, m, n, k, (double *)&dummy, lda, (double *)&dummy, (double *)&dummy, mx1(m), (double *)&q, -1);
    else LAPACKE_sormqr_work(LAPACK_COL_MAJOR, side, trans, m, n, k, (float *)&dummy, lda, (float *)&dummy, (float *)&dummy, mx1(m), (float *)&q, -1);
    return mx1((int)q);
}
template <typename T> inline int gesvd_ws(int m, int n) {
    T q = 0, dummy = 0;
    if (sizeof(T) == 8)
        LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'A', 'A', m, n, (double *)&dummy, mx1(m), (double *)&dummy, (double *)&dummy, mx1(m), (double *)&dummy,
                            mx1(n), (double *)&q, -1);
    else
        LAPACKE_sgesvd_work(LAPACK_COL_MAJOR, 'A', 'A', m, n, (float *)&dummy, mx1(m), (float *)&dummy, (float *)&dummy, mx1(m), (float *)&dummy,
                            mx1(n), (float *)&q, -1);
    return mx1((int)q);
}
inline int pos(lapack_int r) { return r > 0 ? (int)r : 0; }

template <typename T> inline cusolverStatus_t potrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T *A, int lda, T *W, int lw, int *info) {
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (n < 0 || lda < mx1(n)) return CUSOLVER_STATUS_INVALID_VALUE;
    opened open_;
    dev_mat(A, n, n, lda, sizeof(T), "cusolverDn potrf A");
    dev_ws(W, lw, potrf_ws<T>(n), sizeof(T), "cusolverDn potrf workspace");
    dev_info(info, "cusolverDn potrf devInfo");
    char u = uplo == CUBLAS_FILL_MODE_UPPER ? 'U' : 'L';
    *info = n ? pos(sizeof(T) == 8 ? LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, u, n, (double *)A, lda) : LAPACKE_spotrf_work(LAPACK_COL_MAJOR, u, n, (float *)A, lda)) : 0;
    return CUSOLVER_STATUS_SUCCESS;
}
/* Aarray: a device array of batch device pointers */
template <typename T> inline cusolverStatus_t potrf_batched(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T *Aarray[], int lda, int *info, int batch) {
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (n < 0 || lda < mx1(n) || batch < 0) return CUSOLVER_STATUS_INVALID_VALUE;
    opened open_;
    check_side(Aarray, sizeof(T *) * (size_t)batch, true, "cusolverDn potrfBatched Aarray");
    check_side(info, sizeof(int) * (size_t)batch, true, "cusolverDn potrfBatched infoArray");
    char u = uplo == CUBLAS_FILL_MODE_UPPER ? 'U' : 'L';
    for (int b = 0; b < batch; b++) {
        T *A = Aarray[b];
        dev_mat(A, n, n, lda, sizeof(T), "cusolverDn potrfBatched A");
        info[b] = n ? pos(sizeof(T) == 8 ? LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, u, n, (double *)A, lda) : LAPACKE_spotrf_work(LAPACK_COL_MAJOR, u, n, (float *)A, lda)) : 0;
    }
    return CUSOLVER_STATUS_SUCCESS;
}
template <typename T> inline cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, T *A, int lda, T *W, int *ipiv, int *info) {
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || lda < mx1(m)) return CUSOLVER_STATUS_INVALID_VALUE;
    opened open_;
    dev_mat(A, m, n, lda, sizeof(T), "cusolverDn getrf A");
    check_side(W, sizeof(T), true, "cusolverDn getrf workspace");
    if (ipiv) check_side(ipiv, sizeof(int) * (size_t)(m < n ? m : n), true, "cusolverDn getrf devIpiv");
    dev_info(info, "cusolverDn getrf devInfo");
    if (!ipiv) { fprintf(stderr, "cuda emulator: getrf without pivoting is not emulated\n"); abort(); }
    *info = m && n ? pos(sizeof(T) == 8 ? LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, n, (double *)A, lda, ipiv) : LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, m, n, (float *)A, lda, ipiv)) : 0;
    return CUSOLVER_STATUS_SUCCESS;
}
template <typename T> inline cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t trans, int n, int nrhs, const T *A, int lda, const int *ipiv, T *B,
                                                    int ldb, int *info) {
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (n < 0 || nrhs < 0 || lda < mx1(n) || ldb < mx1(n)) return CUSOLVER_STATUS_INVALID_VALUE;
    opened open_;
    dev_mat(A, n, n, lda, sizeof(T), "cusolverDn getrs A");
    dev_mat(B, n, nrhs, ldb, sizeof(T), "cusolverDn getrs B");
    check_side(ipiv, sizeof(int) * (size_t)n, true, "cusolverDn getrs devIpiv");
    dev_info(info, "cusolverDn getrs devInfo");
    char t = trans == CUBLAS_OP_N ? 'N' : 'T';
    *info = 0;
    if (n && nrhs) {
        if (sizeof(T) == 8) LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, t, n, nrhs, (const double *)A, lda, ipiv, (double *)B, ldb);
        else LAPACKE_sgetrs_work(LAPACK_COL_MAJOR, t, n, nrhs, (const float *)A, lda, ipiv, (float *)B, ldb);
    }
    return CUSOLVER_STATUS_SUCCESS;
}
/* potrs: A's Cholesky factor (the uplo triangle), B n x nrhs; devInfo 0 (the parameter checks are the status) */
template <typename T> inline cusolverStatus_t potrs(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, int nrhs, const T *A, int lda, T *B, int ldb,
                                                    int *info) {
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (n < 0 || nrhs < 0 || lda < mx1(n) || ldb < mx1(n)) return CUSOLVER_STATUS_INVALID_VALUE;
    opened open_;
    dev_mat(A, n, n, lda, sizeof(T), "cusolverDn potrs A");
    dev_mat(B, n, nrhs, ldb, sizeof(T), "cusolverDn potrs B");
    dev_info(info, "cusolverDn potrs devInfo");
    char u = uplo == CUBLAS_FILL_MODE_UPPER ? 'U' : 'L';
    *info = 0;
    if (n && nrhs) {
        if (sizeof(T) == 8) LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, u, n, nrhs, (const double *)A, lda, (double *)B, ldb);
        else LAPACKE_spotrs_work(LAPACK_COL_MAJOR, u, n, nrhs, (const float *)A, lda, (float *)B, ldb);
    }
    return CUSOLVER_STATUS_SUCCESS;
}
/* ormqr: C (m x n) = op(Q) C or C op(Q), Q from geqrf's k reflectors in A and tau */
template <typename T> inline cusolverStatus_t ormqr(cusolverDnHandle_t h, cublasSideMode_t side, cublasOperation_t trans, int m, int n, int k, const T *A,
                                                    int lda, const T *tau, T *C, int ldc, T *W, int lw, int *info) {
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    char sd = side == CUBLAS_SIDE_LEFT ? 'L' : 'R', tr = trans == CUBLAS_OP_N ? 'N' : 'T';
    int nq = sd == 'L' ? m : n;
    if (m < 0 || n < 0 || k < 0 || k > nq || lda < mx1(nq) || ldc < mx1(m)) return CUSOLVER_STATUS_INVALID_VALUE;
    opened open_;
    dev_mat(A, nq, k, lda, sizeof(T), "cusolverDn ormqr A");
    check_side(tau, sizeof(T) * (size_t)k, true, "cusolverDn ormqr tau");
    dev_mat(C, m, n, ldc, sizeof(T), "cusolverDn ormqr C");
    dev_ws(W, lw, ormqr_ws<T>(sd, tr, m, n, k), sizeof(T), "cusolverDn ormqr workspace");
    dev_info(info, "cusolverDn ormqr devInfo");
    *info = 0;
    if (m && n && k) {
        if (sizeof(T) == 8) LAPACKE_dormqr_work(LAPACK_COL_MAJOR, sd, tr, m, n, k, (const double *)A, lda, (const double *)tau, (double *)C, ldc, (double *)W, lw);
        else LAPACKE_sormqr_work(LAPACK_COL_MAJOR, sd, tr, m, n, k, (const float *)A, lda, (const float *)tau, (float *)C, ldc, (float *)W, lw);
    }
    return CUSOLVER_STATUS_SUCCESS;
}
template <typename T> inline cusolverStatus_t syevd(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, T *A, int lda, T *Wv, T *W,
                                                    int lw, int *info) {
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (n < 0 || lda < mx1(n)) return CUSOLVER_STATUS_INVALID_VALUE;
    opened open_;
    int need = syevd_ws<T>(jobz == CUSOLVER_EIG_MODE_VECTOR, n);
    dev_mat(A, n, n, lda, sizeof(T), "cusolverDn syevd A");
    check_side(Wv, sizeof(T) * (size_t)n, true, "cusolverDn syevd W");
    dev_ws(W, lw, need, sizeof(T), "cusolverDn syevd workspace");
    dev_info(info, "cusolverDn syevd devInfo");
    *info = 0;
    if (!n) return CUSOLVER_STATUS_SUCCESS;
    T q = 0;
    lapack_int qi = 0;
    char jv = jobz == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N', u = uplo == CUBLAS_FILL_MODE_UPPER ? 'U' : 'L';
    if (sizeof(T) == 8) LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, jv, u, n, NULL, lda, NULL, (double *)&q, -1, &qi, -1);
    else LAPACKE_ssyevd_work(LAPACK_COL_MAJOR, jv, u, n, NULL, lda, NULL, (float *)&q, -1, &qi, -1);
    std::vector<lapack_int> iw((size_t)qi + 1);
    lapack_int r = sizeof(T) == 8 ? LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, jv, u, n, (double *)A, lda, (double *)Wv, (double *)W, (lapack_int)q, iw.data(), qi)
                                  : LAPACKE_ssyevd_work(LAPACK_COL_MAJOR, jv, u, n, (float *)A, lda, (float *)Wv, (float *)W, (lapack_int)q, iw.data(), qi);
    *info = pos(r);
    return CUSOLVER_STATUS_SUCCESS;
}
template <typename T> inline cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, T *A, int lda, T *tau, T *W, int lw, int *info) {
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || lda < mx1(m)) return CUSOLVER_STATUS_INVALID_VALUE;
    opened open_;
    int need = geqrf_ws<T>(m, n);
    dev_mat(A, m, n, lda, sizeof(T), "cusolverDn geqrf A");
    check_side(tau, sizeof(T) * (size_t)(m < n ? m : n), true, "cusolverDn geqrf tau");
    dev_ws(W, lw, need, sizeof(T), "cusolverDn geqrf workspace");
    dev_info(info, "cusolverDn geqrf devInfo");
    *info = 0;
    if (m && n) {
        if (sizeof(T) == 8) LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, n, (double *)A, lda, (double *)tau, (double *)W, lw);
        else LAPACKE_sgeqrf_work(LAPACK_COL_MAJOR, m, n, (float *)A, lda, (float *)tau, (float *)W, lw);
    }
    return CUSOLVER_STATUS_SUCCESS;
}
template <typename T> inline cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, int k, T *A, int lda, const T *tau, T *W, int lw, int *info) {
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || n > m || k < 0 || k > n || lda < mx1(m)) return CUSOLVER_STATUS_INVALID_VALUE;
    opened open_;
    int need = orgqr_ws<T>(m, n, k);
    dev_mat(A, m, n, lda, sizeof(T), "cusolverDn orgqr A");
    check_side(tau, sizeof(T) * (size_t)k, true, "cusolverDn orgqr tau");
    dev_ws(W, lw, need, sizeof(T), "cusolverDn orgqr workspace");
    dev_info(info, "cusolverDn orgqr devInfo");
    *info = 0;
    if (m && n) {
        if (sizeof(T) == 8) LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, m, n, k, (double *)A, lda, (const double *)tau, (double *)W, lw);
        else LAPACKE_sorgqr_work(LAPACK_COL_MAJOR, m, n, k, (float *)A, lda, (const float *)tau, (float *)W, lw);
    }
    return CUSOLVER_STATUS_SUCCESS;
}
/* jobu / jobvt: 'A', 'S' or 'N' ('O' is not used here); m >= n, as cuSOLVER requires */
template <typename T> inline cusolverStatus_t gesvd(cusolverDnHandle_t h, signed char ju, signed char jv, int m, int n, T *A, int lda, T *S, T *U, int ldu,
                                                    T *VT, int ldvt, T *W, int lw, T *rwork, int *info) {
    (void)rwork;
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    int k = m < n ? m : n, ucols = ju == 'A' ? m : k, vrows = jv == 'A' ? n : k;
    if (m < n || n < 0 || lda < mx1(m) || (ju != 'N' && ldu < mx1(m)) || (jv != 'N' && ldvt < mx1(vrows)) || (ju != 'A' && ju != 'S' && ju != 'N') ||
        (jv != 'A' && jv != 'S' && jv != 'N'))
        return CUSOLVER_STATUS_INVALID_VALUE;
    opened open_;
    int need = gesvd_ws<T>(m, n);
    dev_mat(A, m, n, lda, sizeof(T), "cusolverDn gesvd A");
    check_side(S, sizeof(T) * (size_t)k, true, "cusolverDn gesvd S");
    if (ju != 'N') dev_mat(U, m, ucols, ldu, sizeof(T), "cusolverDn gesvd U");
    if (jv != 'N') dev_mat(VT, vrows, n, ldvt, sizeof(T), "cusolverDn gesvd VT");
    dev_ws(W, lw, need, sizeof(T), "cusolverDn gesvd workspace");
    dev_info(info, "cusolverDn gesvd devInfo");
    *info = 0;
    if (!m || !n) return CUSOLVER_STATUS_SUCCESS;
    T one = 0;
    T *u = ju == 'N' ? &one : U, *vt = jv == 'N' ? &one : VT;
    int lu = ju == 'N' ? 1 : ldu, lv = jv == 'N' ? 1 : ldvt;
    lapack_int r = sizeof(T) == 8 ? LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, (char)ju, (char)jv, m, n, (double *)A, lda, (double *)S, (double *)u, lu,
                                                        (double *)vt, lv, (double *)W, lw)
                                  : LAPACKE_sgesvd_work(LAPACK_COL_MAJOR, (char)ju, (char)jv, m, n, (float *)A, lda, (float *)S, (float *)u, lu,
                                                        (float *)vt, lv, (float *)W, lw);
    *info = pos(r);
    return CUSOLVER_STATUS_SUCCESS;
}
}  // namespace ct_emu

/* ---- cuBLAS's batched LU (cublas_api.h declares them; emulated here, beside
   the LAPACKE-backed routines): getrfBatched (square, pivoting; pivots and infos
   device arrays), getrsBatched (info: a host int, argument errors only) ---- */
namespace ct_emu {
template <typename T> inline cublasStatus_t getrf_batched(cublasHandle_t h, int n, T *const A[], int lda, int *P, int *info, int batch) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (n < 0 || lda < mx1(n) || batch < 0) return CUBLAS_STATUS_INVALID_VALUE;
    opened open_;
    check_side(A, sizeof(T *) * (size_t)batch, true, "cublas getrfBatched Aarray");
    check_side(info, sizeof(int) * (size_t)batch, true, "cublas getrfBatched info");
    if (!P) { fprintf(stderr, "cuda emulator: getrfBatched without pivoting is not emulated\n"); abort(); }
    check_side(P, sizeof(int) * (size_t)n * (size_t)batch, true, "cublas getrfBatched P");
    for (int b = 0; b < batch; b++) {
        dev_mat(A[b], n, n, lda, sizeof(T), "cublas getrfBatched A");
        info[b] = n ? pos(sizeof(T) == 8 ? LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, (double *)A[b], lda, P + (size_t)b * n)
                                         : LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, n, n, (float *)A[b], lda, P + (size_t)b * n)) : 0;
    }
    return CUBLAS_STATUS_SUCCESS;
}
template <typename T> inline cublasStatus_t getrs_batched(cublasHandle_t h, cublasOperation_t trans, int n, int nrhs, const T *const A[], int lda, const int *P,
                                                          T *const B[], int ldb, int *info, int batch) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    check_side(info, sizeof(int), false, "cublas getrsBatched info (a host pointer)");
    *info = 0;
    if (n < 0) { *info = -2; return CUBLAS_STATUS_INVALID_VALUE; }
    if (nrhs < 0) { *info = -3; return CUBLAS_STATUS_INVALID_VALUE; }
    if (lda < mx1(n)) { *info = -5; return CUBLAS_STATUS_INVALID_VALUE; }
    if (ldb < mx1(n)) { *info = -8; return CUBLAS_STATUS_INVALID_VALUE; }
    if (batch < 0) { *info = -10; return CUBLAS_STATUS_INVALID_VALUE; }
    opened open_;
    check_side(A, sizeof(T *) * (size_t)batch, true, "cublas getrsBatched Aarray");
    check_side(B, sizeof(T *) * (size_t)batch, true, "cublas getrsBatched Barray");
    check_side(P, sizeof(int) * (size_t)n * (size_t)batch, true, "cublas getrsBatched devIpiv");
    char t = trans == CUBLAS_OP_N ? 'N' : 'T';
    for (int b = 0; b < batch && n && nrhs; b++) {
        dev_mat(A[b], n, n, lda, sizeof(T), "cublas getrsBatched A");
        dev_mat(B[b], n, nrhs, ldb, sizeof(T), "cublas getrsBatched B");
        if (sizeof(T) == 8) LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, t, n, nrhs, (const double *)A[b], lda, P + (size_t)b * n, (double *)B[b], ldb);
        else LAPACKE_sgetrs_work(LAPACK_COL_MAJOR, t, n, nrhs, (const float *)A[b], lda, P + (size_t)b * n, (float *)B[b], ldb);
    }
    return CUBLAS_STATUS_SUCCESS;
}
}  // namespace ct_emu
/* geqrfBatched: geqrf on each A[b] (m x n, lda), tau[b] min(m, n) elements
   (device arrays of device pointers); info a host int: 0, or -i for the i-th
   argument invalid (then CUBLAS_STATUS_INVALID_VALUE), as cuBLAS's */
namespace ct_emu {
inline long &geqrf_batched_calls() { static long n = 0; return n; }   /* (tests read it: the batched path ran) */
template <typename T> inline cublasStatus_t geqrf_batched(cublasHandle_t h, int m, int n, T *const A[], int lda, T *const tau[], int *info, int batch) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    check_side(info, sizeof(int), false, "cublas geqrfBatched info (a host pointer)");
    *info = 0;
    if (m < 0) { *info = -2; return CUBLAS_STATUS_INVALID_VALUE; }
    if (n < 0) { *info = -3; return CUBLAS_STATUS_INVALID_VALUE; }
    if (lda < mx1(m)) { *info = -5; return CUBLAS_STATUS_INVALID_VALUE; }
    if (batch < 0) { *info = -8; return CUBLAS_STATUS_INVALID_VALUE; }
    geqrf_batched_calls()++;
    opened open_;
    check_side(A, sizeof(T *) * (size_t)batch, true, "cublas geqrfBatched Aarray");
    check_side(tau, sizeof(T *) * (size_t)batch, true, "cublas geqrfBatched TauArray");
    int k = m < n ? m : n;
    std::vector<T> w((size_t)geqrf_ws<T>(m, n));
    for (int b = 0; b < batch && m && n; b++) {
        dev_mat(A[b], m, n, lda, sizeof(T), "cublas geqrfBatched A");
        check_side(tau[b], sizeof(T) * (size_t)k, true, "cublas geqrfBatched tau");
        if (sizeof(T) == 8) LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, n, (double *)A[b], lda, (double *)tau[b], (double *)w.data(), (lapack_int)w.size());
        else LAPACKE_sgeqrf_work(LAPACK_COL_MAJOR, m, n, (float *)A[b], lda, (float *)tau[b], (float *)w.data(), (lapack_int)w.size());
    }
    return CUBLAS_STATUS_SUCCESS;
}
}  // namespace ct_emu
inline cublasStatus_t cublasSgeqrfBatched(cublasHandle_t h, int m, int n, float *const A[], int lda, float *const tau[], int *info, int batch) {
    return ct_emu::geqrf_batched<float>(h, m, n, A, lda, tau, info, batch);
}
inline cublasStatus_t cublasDgeqrfBatched(cublasHandle_t h, int m, int n, double *const A[], int lda, double *const tau[], int *info, int batch) {
    return ct_emu::geqrf_batched<double>(h, m, n, A, lda, tau, info, batch);
}
inline cublasStatus_t cublasSgetrfBatched(cublasHandle_t h, int n, float *const A[], int lda, int *P, int *info, int batch) {
    return ct_emu::getrf_batched<float>(h, n, A, lda, P, info, batch);
}
inline cublasStatus_t cublasDgetrfBatched(cublasHandle_t h, int n, double *const A[], int lda, int *P, int *info, int batch) {
    return ct_emu::getrf_batched<double>(h, n, A, lda, P, info, batch);
}
inline cublasStatus_t cublasSgetrsBatched(cublasHandle_t h, cublasOperation_t t, int n, int nrhs, const float *const A[], int lda, const int *P,
                                          float *const B[], int ldb, int *info, int batch) {
    return ct_emu::getrs_batched<float>(h, t, n, nrhs, A, lda, P, B, ldb, info, batch);
}
inline cublasStatus_t cublasDgetrsBatched(cublasHandle_t h, cublasOperation_t t, int n, int nrhs, const double *const A[], int lda, const int *P,
                                          double *const B[], int ldb, int *info, int batch) {
    return ct_emu::getrs_batched<double>(h, t, n, nrhs, A, lda, P, B, ldb, info, batch);
}

/* ---- cuSOLVER's names (S: float, D: double) ---- */
#define CT_EMU_SOLVER_PAIR(P, T)                                                                                                                    \
    inline cusolverStatus_t cusolverDn##P##potrf_bufferSize(cusolverDnHandle_t h, cublasFillMode_t, int n, T *, int, int *lw) {                    \
        if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                                             \
        *lw = ct_emu::potrf_ws<T>(n);                                                                                                               \
        return CUSOLVER_STATUS_SUCCESS;                                                                                                             \
    }                                                                                                                                               \
    inline cusolverStatus_t cusolverDn##P##potrf(cusolverDnHandle_t h, cublasFillMode_t u, int n, T *A, int lda, T *W, int lw, int *info) {        \
        return ct_emu::potrf<T>(h, u, n, A, lda, W, lw, info);                                                                                      \
    }                                                                                                                                               \
    inline cusolverStatus_t cusolverDn##P##potrfBatched(cusolverDnHandle_t h, cublasFillMode_t u, int n, T *Aarray[], int lda, int *info, int b) { \
        return ct_emu::potrf_batched<T>(h, u, n, Aarray, lda, info, b);                                                                             \
    }                                                                                                                                               \
    inline cusolverStatus_t cusolverDn##P##potrs(cusolverDnHandle_t h, cublasFillMode_t u, int n, int nrhs, const T *A, int lda, T *B, int ldb,  \
                                                 int *info) {                                                                                       \
        return ct_emu::potrs<T>(h, u, n, nrhs, A, lda, B, ldb, info);                                                                               \
    }                                                                                                                                               \
    inline cusolverStatus_t cusolverDn##P##getrf_bufferSize(cusolverDnHandle_t h, int m, int n, T *, int, int *lw) {                               \
        if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                                             \
        *lw = ct_emu::getrf_ws<T>(m, n);                                                                                                            \
        return CUSOLVER_STATUS_SUCCESS;                                                                                                             \
    }                                                                                                                                               \
    inline cusolverStatus_t cusolverDn##P##getrf(cusolverDnHandle_t h, int m, int n, T *A, int lda, T *W, int *ipiv, int *info) {                  \
        return ct_emu::getrf<T>(h, m, n, A, lda, W, ipiv, info);                                                                                    \
    }                                                                                                                                               \
    inline cusolverStatus_t cusolverDn##P##getrs(cusolverDnHandle_t h, cublasOperation_t t, int n, int nrhs, const T *A, int lda, const int *ipiv, \
                                                 T *B, int ldb, int *info) {                                                                        \
        return ct_emu::getrs<T>(h, t, n, nrhs, A, lda, ipiv, B, ldb, info);                                                                         \
    }                                                                                                                                               \
    inline cusolverStatus_t cusolverDn##P##syevd_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t, int n, const T *, int,    \
                                                            const T *, int *lw) {                                                                   \
        if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                                             \
        *lw = ct_emu::syevd_ws<T>(j == CUSOLVER_EIG_MODE_VECTOR, n);                                                                                \
        return CUSOLVER_STATUS_SUCCESS;                                                                                                             \
    }                                                                                                                                               \
    inline cusolverStatus_t cusolverDn##P##syevd(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, T *A, int lda, T *Wv,       \
                                                 T *W, int lw, int *info) {                                                                         \
        return ct_emu::syevd<T>(h, j, u, n, A, lda, Wv, W, lw, info);                                                                               \
    }                                                                                                                                               \
    inline cusolverStatus_t cusolverDn##P##geqrf_bufferSize(cusolverDnHandle_t h, int m, int n, T *, int, int *lw) {                               \
        if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                                             \
        *lw = ct_emu::geqrf_ws<T>(m, n);                                                                                                            \
        return CUSOLVER_STATUS_SUCCESS;                                                                                                             \
    }                                                                                                                                               \
    inline cusolverStatus_t cusolverDn##P##geqrf(cusolverDnHandle_t h, int m, int n, T *A, int lda, T *tau, T *W, int lw, int *info) {            \
        return ct_emu::geqrf<T>(h, m, n, A, lda, tau, W, lw, info);                                                                                 \
    }                                                                                                                                               \
    inline cusolverStatus_t cusolverDn##P##orgqr_bufferSize(cusolverDnHandle_t h, int m, int n, int k, const T *, int, const T *, int *lw) {      \
        if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                                             \
        *lw = ct_emu::orgqr_ws<T>(m, n, k);                                                                                                         \
        return CUSOLVER_STATUS_SUCCESS;                                                                                                             \
    }                                                                                                                                               \
    inline cusolverStatus_t cusolverDn##P##orgqr(cusolverDnHandle_t h, int m, int n, int k, T *A, int lda, const T *tau, T *W, int lw, int *info) { \
        return ct_emu::orgqr<T>(h, m, n, k, A, lda, tau, W, lw, info);                                                                              \
    }                                                                                                                                               \
    inline cusolverStatus_t cusolverDn##P##ormqr_bufferSize(cusolverDnHandle_t h, cublasSideMode_t sd, cublasOperation_t tr, int m, int n, int k,  \
                                                            const T *, int, const T *, const T *, int, int *lw) {                                   \
        if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                                             \
        *lw = ct_emu::ormqr_ws<T>(sd == CUBLAS_SIDE_LEFT ? 'L' : 'R', tr == CUBLAS_OP_N ? 'N' : 'T', m, n, k);                                      \
        return CUSOLVER_STATUS_SUCCESS;                                                                                                             \
    }                                                                                                                                               \
    inline cusolverStatus_t cusolverDn##P##ormqr(cusolverDnHandle_t h, cublasSideMode_t sd, cublasOperation_t tr, int m, int n, int k, const T *A, \
                                                 int lda, const T *tau, T *C, int ldc, T *W, int lw, int *info) {                                   \
        return ct_emu::ormqr<T>(h, sd, tr, m, n, k, A, lda, tau, C, ldc, W, lw, info);                                                             \
    }                                                                                                                                               \
    inline cusolverStatus_t cusolverDn##P##gesvd_bufferSize(cusolverDnHandle_t h, int m, int n, int *lw) {                                         \
        if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                                             \
        *lw = ct_emu::gesvd_ws<T>(m, n);                                                                                                            \
        return CUSOLVER_STATUS_SUCCESS;                                                                                                             \
    }                                                                                                                                               \
    inline cusolverStatus_t cusolverDn##P##gesvd(cusolverDnHandle_t h, signed char ju, signed char jv, int m, int n, T *A, int lda, T *S, T *U,    \
                                                 int ldu, T *VT, int ldvt, T *W, int lw, T *rwork, int *info) {                                     \
        return ct_emu::gesvd<T>(h, ju, jv, m, n, A, lda, S, U, ldu, VT, ldvt, W, lw, rwork, info);                                                  \
    }
CT_EMU_SOLVER_PAIR(S, float)
CT_EMU_SOLVER_PAIR(D, double)
#undef CT_EMU_SOLVER_PAIR
/* ---- the 64-bit API's parameters object and Xgeev (CUDA 12.6+): real inputs
   with all-real types only (W: n real parts then n imaginary parts; VR in
   LAPACK's form), left eigenvectors not computed (jobvl NOVECTOR, which is all
   that ctensor asks for: anything else aborts as not emulated). The device
   workspace is LAPACK's query in bytes; a host workspace of 64 bytes is asked
   for, so that the caller's host-buffer path runs; both are checked. ---- */
typedef struct ct_emu_solver_params { int unused; } *cusolverDnParams_t;
inline cusolverStatus_t cusolverDnCreateParams(cusolverDnParams_t *p) {
    *p = new ct_emu_solver_params;
    return CUSOLVER_STATUS_SUCCESS;
}
inline cusolverStatus_t cusolverDnDestroyParams(cusolverDnParams_t p) {
    delete p;
    return CUSOLVER_STATUS_SUCCESS;
}
namespace ct_emu {
inline const size_t geev_host_bytes = 64;
inline bool geev_types(cudaDataType_t a, cudaDataType_t w, cudaDataType_t vr, cudaDataType_t ct) {
    return (a == CUDA_R_32F || a == CUDA_R_64F) && w == a && vr == a && ct == a;
}
inline size_t geev_dev_bytes(cudaDataType_t t, cusolverEigMode_t jv, int64_t n) {
    double q = 0;
    float qf = 0;
    int ld = mx1((int)n);
    if (t == CUDA_R_64F) LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', jv == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N', (int)n, NULL, ld, NULL, NULL, NULL, 1, NULL, ld, &q, -1);
    else { LAPACKE_sgeev_work(LAPACK_COL_MAJOR, 'N', jv == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N', (int)n, NULL, ld, NULL, NULL, NULL, 1, NULL, ld, &qf, -1); q = qf; }
    return (size_t)(q + 1) * (t == CUDA_R_64F ? 8 : 4);
}
}  // namespace ct_emu
inline cusolverStatus_t cusolverDnXgeev_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t p, cusolverEigMode_t jl, cusolverEigMode_t jv, int64_t n,
                                                   cudaDataType_t ta, const void *, int64_t lda, cudaDataType_t tw, const void *, cudaDataType_t, const void *,
                                                   int64_t, cudaDataType_t tv, const void *, int64_t ldvr, cudaDataType_t tc, size_t *dev_bytes,
                                                   size_t *host_bytes) {
    if (!h || !p) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (jl != CUSOLVER_EIG_MODE_NOVECTOR || !ct_emu::geev_types(ta, tw, tv, tc)) {
        fprintf(stderr, "cuda emulator: cusolverDnXgeev: only real types with jobvl NOVECTOR are emulated\n");
        abort();
    }
    if (n < 0 || n > 0x7fffffff || lda < ct_emu::mx1((int)n) || (jv == CUSOLVER_EIG_MODE_VECTOR && ldvr < ct_emu::mx1((int)n))) return CUSOLVER_STATUS_INVALID_VALUE;
    *dev_bytes = ct_emu::geev_dev_bytes(ta, jv, n);
    *host_bytes = ct_emu::geev_host_bytes;
    return CUSOLVER_STATUS_SUCCESS;
}
inline cusolverStatus_t cusolverDnXgeev(cusolverDnHandle_t h, cusolverDnParams_t p, cusolverEigMode_t jl, cusolverEigMode_t jv, int64_t n, cudaDataType_t ta,
                                        void *A, int64_t lda, cudaDataType_t tw, void *W, cudaDataType_t, void *, int64_t, cudaDataType_t tv, void *VR,
                                        int64_t ldvr, cudaDataType_t tc, void *dws, size_t dbytes, void *hws, size_t hbytes, int *info) {
    if (!h || !p) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (jl != CUSOLVER_EIG_MODE_NOVECTOR || !ct_emu::geev_types(ta, tw, tv, tc)) {
        fprintf(stderr, "cuda emulator: cusolverDnXgeev: only real types with jobvl NOVECTOR are emulated\n");
        abort();
    }
    bool wantv = jv == CUSOLVER_EIG_MODE_VECTOR;
    if (n < 0 || n > 0x7fffffff || lda < ct_emu::mx1((int)n) || (wantv && ldvr < ct_emu::mx1((int)n))) return CUSOLVER_STATUS_INVALID_VALUE;
    size_t es = ta == CUDA_R_64F ? 8 : 4, need = ct_emu::geev_dev_bytes(ta, jv, n);
    if (dbytes < need || hbytes < ct_emu::geev_host_bytes) {
        fprintf(stderr, "cuda emulator: cusolverDnXgeev: workspaces of %zu / %zu bytes, smaller than the query's %zu / %zu\n", dbytes, hbytes, need,
                ct_emu::geev_host_bytes);
        abort();
    }
    ct_emu::opened open_;
    int ni = (int)n, ld = (int)lda;
    ct_emu::dev_mat(A, ni, ni, ld, es, "cusolverDnXgeev A");
    ct_emu::check_side(W, 2 * (size_t)n * es, true, "cusolverDnXgeev W");
    if (wantv) ct_emu::dev_mat(VR, ni, ni, (int)ldvr, es, "cusolverDnXgeev VR");
    ct_emu::check_side(dws, need, true, "cusolverDnXgeev device workspace");
    ct_emu::check_side(hws, ct_emu::geev_host_bytes, false, "cusolverDnXgeev host workspace");
    ct_emu::dev_info(info, "cusolverDnXgeev devInfo");
    int lw = (int)(need / es), ldv = wantv ? (int)ldvr : 1;
    lapack_int r = 0;
    if (n == 0) r = 0;
    else if (ta == CUDA_R_64F)
        r = LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', wantv ? 'V' : 'N', ni, (double *)A, ld, (double *)W, (double *)W + n, NULL, 1, wantv ? (double *)VR : NULL, ldv,
                               (double *)dws, lw);
    else
        r = LAPACKE_sgeev_work(LAPACK_COL_MAJOR, 'N', wantv ? 'V' : 'N', ni, (float *)A, ld, (float *)W, (float *)W + n, NULL, 1, wantv ? (float *)VR : NULL, ldv,
                               (float *)dws, lw);
    *info = ct_emu::pos(r);
    return CUSOLVER_STATUS_SUCCESS;
}
/* ---- the Jacobi batched solvers: syevjBatched (n <= 32) and gesvdjBatched (m, n
   <= 32) with their info objects (the tolerance and sweep settings are not
   emulated: LAPACK's syevd and gesvd stand in for the Jacobi sweeps, so the
   values are the same up to rounding and the vectors up to sign). The
   batch is contiguous (matrix b at A + b * lda * n); eigenvalues ascending,
   singular values descending (cuSOLVER's default sorting); gesvdjBatched
   returns V, not V^T, and full U and V. info[b] is 0, or min(m, n) + 1 (n + 1
   for syevj) when the solver did not converge, cuSOLVER's code. ---- */
typedef struct ct_emu_syevj_info { int unused; } *syevjInfo_t;
typedef struct ct_emu_gesvdj_info { int unused; } *gesvdjInfo_t;
inline cusolverStatus_t cusolverDnCreateSyevjInfo(syevjInfo_t *p) { *p = new ct_emu_syevj_info; return CUSOLVER_STATUS_SUCCESS; }
inline cusolverStatus_t cusolverDnDestroySyevjInfo(syevjInfo_t p) { delete p; return CUSOLVER_STATUS_SUCCESS; }
inline cusolverStatus_t cusolverDnCreateGesvdjInfo(gesvdjInfo_t *p) { *p = new ct_emu_gesvdj_info; return CUSOLVER_STATUS_SUCCESS; }
inline cusolverStatus_t cusolverDnDestroyGesvdjInfo(gesvdjInfo_t p) { delete p; return CUSOLVER_STATUS_SUCCESS; }
namespace ct_emu {
template <typename T> inline int gesvdj_ws(int m, int n) { return gesvd_ws<T>(m > n ? m : n, m < n ? m : n) + mx1(m * n); }
template <typename T> inline cusolverStatus_t syevj_batched(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, T *A, int lda, T *Wv,
                                                            T *W, int lw, int *info, syevjInfo_t p, int batch) {
    if (!h || !p) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (n < 0 || n > 32 || lda < mx1(n) || batch < 0) return CUSOLVER_STATUS_INVALID_VALUE;
    for (int b = 0; b < batch; b++) {
        cusolverStatus_t r = syevd<T>(h, jobz, uplo, n, A + (size_t)b * lda * n, lda, Wv + (size_t)b * n, W, lw, info + b);
        if (r != CUSOLVER_STATUS_SUCCESS) return r;
        opened open_;
        if (info[b]) info[b] = n + 1;
    }
    return CUSOLVER_STATUS_SUCCESS;
}
template <typename T> inline cusolverStatus_t gesvdj_batched(cusolverDnHandle_t h, cusolverEigMode_t jobz, int m, int n, T *A, int lda, T *S, T *U, int ldu,
                                                             T *V, int ldv, T *W, int lw, int *info, gesvdjInfo_t p, int batch) {
    if (!h || !p) return CUSOLVER_STATUS_NOT_INITIALIZED;
    bool wantv = jobz == CUSOLVER_EIG_MODE_VECTOR;
    if (m < 0 || n < 0 || m > 32 || n > 32 || lda < mx1(m) || batch < 0 || (wantv && (ldu < mx1(m) || ldv < mx1(n)))) return CUSOLVER_STATUS_INVALID_VALUE;
    opened open_;
    int k = m < n ? m : n;
    dev_ws(W, lw, gesvdj_ws<T>(m, n), sizeof(T), "cusolverDn gesvdjBatched workspace");
    check_side(info, sizeof(int) * (size_t)batch, true, "cusolverDn gesvdjBatched info");
    std::vector<T> vt((size_t)mx1(n) * mx1(n)), u1(1), work((size_t)gesvd_ws<T>(m > n ? m : n, k) + (size_t)mx1(m) * mx1(n) + 64);
    for (int b = 0; b < batch; b++) {
        T *a = A + (size_t)b * lda * n, *s = S + (size_t)b * k, *u = wantv ? U + (size_t)b * ldu * m : u1.data();
        dev_mat(a, m, n, lda, sizeof(T), "cusolverDn gesvdjBatched A");
        check_side(s, sizeof(T) * (size_t)k, true, "cusolverDn gesvdjBatched S");
        if (wantv) {
            dev_mat(u, m, m, ldu, sizeof(T), "cusolverDn gesvdjBatched U");
            dev_mat(V + (size_t)b * ldv * n, n, n, ldv, sizeof(T), "cusolverDn gesvdjBatched V");
        }
        info[b] = 0;
        if (!k) continue;
        char j = wantv ? 'A' : 'N';
        lapack_int r = sizeof(T) == 8 ? LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, j, j, m, n, (double *)a, lda, (double *)s, (double *)u, wantv ? ldu : 1,
                                                            (double *)vt.data(), wantv ? mx1(n) : 1, (double *)work.data(), (lapack_int)work.size())
                                      : LAPACKE_sgesvd_work(LAPACK_COL_MAJOR, j, j, m, n, (float *)a, lda, (float *)s, (float *)u, wantv ? ldu : 1,
                                                            (float *)vt.data(), wantv ? mx1(n) : 1, (float *)work.data(), (lapack_int)work.size());
        info[b] = r > 0 ? k + 1 : 0;
        if (wantv)   /* V = VT^T */
            for (int c = 0; c < n; c++)
                for (int i = 0; i < n; i++) V[(size_t)b * ldv * n + i + (size_t)c * ldv] = vt[c + (size_t)i * n];
    }
    return CUSOLVER_STATUS_SUCCESS;
}
}  // namespace ct_emu
#define CT_EMU_JACOBI_PAIR(P, T)                                                                                                                 \
    inline cusolverStatus_t cusolverDn##P##syevjBatched_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t, int n, const T *,  \
                                                                   int, const T *, int *lw, syevjInfo_t p, int) {                               \
        if (!h || !p) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                                    \
        *lw = ct_emu::syevd_ws<T>(j == CUSOLVER_EIG_MODE_VECTOR, n);                                                                             \
        return CUSOLVER_STATUS_SUCCESS;                                                                                                          \
    }                                                                                                                                            \
    inline cusolverStatus_t cusolverDn##P##syevjBatched(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, T *A, int lda,    \
                                                        T *Wv, T *W, int lw, int *info, syevjInfo_t p, int b) {                                 \
        return ct_emu::syevj_batched<T>(h, j, u, n, A, lda, Wv, W, lw, info, p, b);                                                              \
    }                                                                                                                                            \
    inline cusolverStatus_t cusolverDn##P##gesvdjBatched_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t, int m, int n, const T *, int,       \
                                                                    const T *, const T *, int, const T *, int, int *lw, gesvdjInfo_t p, int) {  \
        if (!h || !p) return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                                    \
        *lw = ct_emu::gesvdj_ws<T>(m, n);                                                                                                        \
        return CUSOLVER_STATUS_SUCCESS;                                                                                                          \
    }                                                                                                                                            \
    inline cusolverStatus_t cusolverDn##P##gesvdjBatched(cusolverDnHandle_t h, cusolverEigMode_t j, int m, int n, T *A, int lda, T *S, T *U,    \
                                                         int ldu, T *V, int ldv, T *W, int lw, int *info, gesvdjInfo_t p, int b) {              \
        return ct_emu::gesvdj_batched<T>(h, j, m, n, A, lda, S, U, ldu, V, ldv, W, lw, info, p, b);                                              \
    }
CT_EMU_JACOBI_PAIR(S, float)
CT_EMU_JACOBI_PAIR(D, double)
#undef CT_EMU_JACOBI_PAIR
#endif
