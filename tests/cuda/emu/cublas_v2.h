/* tests/cuda/emu/cublas_v2.h - cublasGemmEx, cublasGemmStridedBatchedEx,
   cublasStrsm / cublasDtrsm and their trsmBatched emulated on the host for the CUDA emulator (see cuda_runtime.h here): column-
   major, op N / T, device memory readable only while a gemm runs (the
   emulator's guard), leading dimensions checked as cuBLAS checks them (an invalid
   one is CUBLAS_STATUS_INVALID_VALUE), alpha and beta read as float for the
   32-bit compute types and as double for 64F, C not read when beta is 0,
   products summed in double. Element conversions use ctensor.h's half
   helpers (this file is included after ctensor.h's implementation). */
#ifndef CT_EMU_CUBLAS_V2_H
#define CT_EMU_CUBLAS_V2_H
#include "cuda_runtime.h"

typedef struct ct_emu_blas { int device; } *cublasHandle_t;
typedef enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1, CUBLAS_STATUS_INVALID_VALUE = 7, CUBLAS_STATUS_NOT_SUPPORTED = 15 } cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;
typedef enum { CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16F = 2, CUDA_R_8I = 3, CUDA_R_32I = 10, CUDA_R_16BF = 14 } cudaDataType_t;
typedef enum { CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_FAST_TF32 = 77, CUBLAS_COMPUTE_64F = 70, CUBLAS_COMPUTE_32I = 72 } cublasComputeType_t;
typedef enum { CUBLAS_GEMM_DEFAULT = -1 } cublasGemmAlgo_t;
typedef enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1 } cublasFillMode_t;
typedef enum { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 } cublasSideMode_t;
typedef enum { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 } cublasDiagType_t;
typedef enum { CUBLAS_DEFAULT_MATH = 0, CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16 } cublasMath_t;
namespace ct_emu {
inline int &blas_math_mode() { static int m = 0; return m; }   /* the last mode set (tests read it) */
}

inline cublasStatus_t cublasCreate(cublasHandle_t *h) {
    *h = new ct_emu_blas;
    (*h)->device = ct_emu::cur_device;
    return CUBLAS_STATUS_SUCCESS;
}
/* the stream must be a live one of the handle's device */
inline cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s) {
    if (ct_emu::stream_device(s, "cublasSetStream") != h->device && s) {
        fprintf(stderr, "cuda emulator: cublasSetStream: a stream of device %d for a handle of device %d\n", ct_emu::stream_device(s, "cublasSetStream"), h->device);
        abort();
    }
    return CUBLAS_STATUS_SUCCESS;
}
/* products sum in double here whatever the mode: the mode is only recorded */
inline cublasStatus_t cublasSetMathMode(cublasHandle_t, cublasMath_t mode) {
    ct_emu::blas_math_mode() = (int)mode;
    return CUBLAS_STATUS_SUCCESS;
}
inline const char *cublasGetStatusString(cublasStatus_t s) {
    return s == CUBLAS_STATUS_SUCCESS ? "the operation completed successfully" : s == CUBLAS_STATUS_INVALID_VALUE ? "an invalid value was used as an argument"
           : s == CUBLAS_STATUS_NOT_SUPPORTED ? "the functionality requested is not supported" : "the library was not initialized";
}
namespace ct_emu {
inline double blas_ld(const void *p, cudaDataType_t t, long long i) {
    switch (t) {
    case CUDA_R_32F: return ((const float *)p)[i];
    case CUDA_R_64F: return ((const double *)p)[i];
    case CUDA_R_16F: return ct__h2f(((const uint16_t *)p)[i]);
    default: return ct__bf2f(((const uint16_t *)p)[i]);
    }
}
inline void blas_st(void *p, cudaDataType_t t, long long i, double v) {
    switch (t) {
    case CUDA_R_32F: ((float *)p)[i] = (float)v; break;
    case CUDA_R_64F: ((double *)p)[i] = v; break;
    case CUDA_R_16F: ((uint16_t *)p)[i] = ct__f2h((float)v); break;
    default: ((uint16_t *)p)[i] = ct__f2bf((float)v); break;
    }
}
inline cublasStatus_t gemm_(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const void *alpha, const void *A, cudaDataType_t at,
                           int lda, long long sa, const void *B, cudaDataType_t bt, int ldb, long long sb, const void *beta, void *C,
                           cudaDataType_t ct, int ldc, long long sc, int batch, cublasComputeType_t comp) {
    if (m < 0 || n < 0 || k < 0 || batch < 0) return CUBLAS_STATUS_INVALID_VALUE;
    if (lda < (ta == CUBLAS_OP_N ? (m > 1 ? m : 1) : (k > 1 ? k : 1))) return CUBLAS_STATUS_INVALID_VALUE;
    if (ldb < (tb == CUBLAS_OP_N ? (k > 1 ? k : 1) : (n > 1 ? n : 1))) return CUBLAS_STATUS_INVALID_VALUE;
    if (ldc < (m > 1 ? m : 1)) return CUBLAS_STATUS_INVALID_VALUE;
    /* cuBLAS's type combinations used here: A, B and C of one type, or 16F / 16BF inputs with a 32F C (compute 32F) */
    bool mixed = (at == CUDA_R_16F || at == CUDA_R_16BF) && ct == CUDA_R_32F && comp == CUBLAS_COMPUTE_32F;
    if (at != bt || (at != ct && !mixed) || (comp == CUBLAS_COMPUTE_64F) != (at == CUDA_R_64F)) return CUBLAS_STATUS_INVALID_VALUE;
    if (m && n) {   /* the matrices are device memory (alpha and beta are host scalars: CUBLAS_POINTER_MODE_HOST) */
        if (k) { check_side(A, 1, true, "cublas gemm A"); check_side(B, 1, true, "cublas gemm B"); }
        check_side(C, 1, true, "cublas gemm C");
    }
    double al = comp == CUBLAS_COMPUTE_64F ? *(const double *)alpha : *(const float *)alpha;
    double be = comp == CUBLAS_COMPUTE_64F ? *(const double *)beta : *(const float *)beta;
    for (int b = 0; b < batch; b++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                double s = 0.0;
                for (int l = 0; l < k; l++) {
                    double x = blas_ld(A, at, b * sa + (ta == CUBLAS_OP_N ? i + (long long)l * lda : l + (long long)i * lda));
                    double y = blas_ld(B, bt, b * sb + (tb == CUBLAS_OP_N ? l + (long long)j * ldb : j + (long long)l * ldb));
                    s += x * y;
                }
                long long ci = b * sc + i + (long long)j * ldc;
                blas_st(C, ct, ci, al * s + (be == 0.0 ? 0.0 : be * blas_ld(C, ct, ci)));
            }
    return CUBLAS_STATUS_SUCCESS;
}
/* reads and writes device memory: the guard is open while it runs */
template <class... A> inline cublasStatus_t gemm(A... a) {
    opened open_;
    return gemm_(a...);
}
}  // namespace ct_emu
inline cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const void *alpha,
                                   const void *A, cudaDataType_t at, int lda, const void *B, cudaDataType_t bt, int ldb, const void *beta,
                                   void *C, cudaDataType_t ct, int ldc, cublasComputeType_t comp, cublasGemmAlgo_t) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    return ct_emu::gemm(ta, tb, m, n, k, alpha, A, at, lda, 0, B, bt, ldb, 0, beta, C, ct, ldc, 0, 1, comp);
}
inline cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                                 const void *alpha, const void *A, cudaDataType_t at, int lda, long long sa, const void *B,
                                                 cudaDataType_t bt, int ldb, long long sb, const void *beta, void *C, cudaDataType_t ct,
                                                 int ldc, long long sc, int batch, cublasComputeType_t comp, cublasGemmAlgo_t) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    return ct_emu::gemm(ta, tb, m, n, k, alpha, A, at, lda, sa, B, bt, ldb, sb, beta, C, ct, ldc, sc, batch, comp);
}
namespace ct_emu {
/* op(A) X = alpha B (side left, A m x m) or X op(A) = alpha B (right, A n x n),
   B m x n column-major, overwritten by X; A triangular (uplo; unit diagonal:
   its diagonal is not read), the other triangle not read. Sums in double. */
template <typename T>
inline cublasStatus_t trsm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t ta, cublasDiagType_t diag, int m, int n,
                           const T *alpha, const T *A, int lda, T *B, int ldb) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    int na = side == CUBLAS_SIDE_LEFT ? m : n;
    if (m < 0 || n < 0 || lda < (na > 1 ? na : 1) || ldb < (m > 1 ? m : 1)) return CUBLAS_STATUS_INVALID_VALUE;
    if (!m || !n) return CUBLAS_STATUS_SUCCESS;
    opened open_;
    check_side(A, ((size_t)(na - 1) * lda + na) * sizeof(T), true, "cublas trsm A");
    check_side(B, ((size_t)(n - 1) * ldb + m) * sizeof(T), true, "cublas trsm B");
    /* the dense op(A) */
    std::vector<double> t((size_t)na * na, 0.0);
    for (int j = 0; j < na; j++)
        for (int i = 0; i < na; i++) {
            bool in = uplo == CUBLAS_FILL_MODE_UPPER ? i <= j : i >= j;
            double v = i == j && diag == CUBLAS_DIAG_UNIT ? 1.0 : in ? (double)A[i + (size_t)j * lda] : 0.0;
            if (ta == CUBLAS_OP_N) t[i + (size_t)j * na] = v;
            else t[j + (size_t)i * na] = v;
        }
    bool lower = (uplo == CUBLAS_FILL_MODE_LOWER) == (ta == CUBLAS_OP_N);   /* op(A) lower triangular */
    double al = (double)*alpha;
    std::vector<double> x((size_t)m * n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) x[i + (size_t)j * m] = al * (double)B[i + (size_t)j * ldb];
    if (side == CUBLAS_SIDE_LEFT) {   /* each column: T x = b */
        for (int j = 0; j < n; j++) {
            double *c = &x[(size_t)j * m];
            for (int s = 0; s < m; s++) {
                int i = lower ? s : m - 1 - s;
                double v = c[i];
                for (int l = 0; l < m; l++)
                    if (lower ? l < i : l > i) v -= t[i + (size_t)l * na] * c[l];
                c[i] = v / t[i + (size_t)i * na];
            }
        }
    } else {                          /* each row: x T = b, i.e. T^T x^T = b^T */
        for (int i = 0; i < m; i++) {
            for (int s = 0; s < n; s++) {
                int j = lower ? n - 1 - s : s;
                double v = x[i + (size_t)j * m];
                for (int l = 0; l < n; l++)
                    if (lower ? l > j : l < j) v -= x[i + (size_t)l * m] * t[l + (size_t)j * na];
                x[i + (size_t)j * m] = v / t[j + (size_t)j * na];
            }
        }
    }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) B[i + (size_t)j * ldb] = (T)x[i + (size_t)j * m];
    return CUBLAS_STATUS_SUCCESS;
}
}  // namespace ct_emu
inline cublasStatus_t cublasStrsm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d, int m, int n,
                                  const float *alpha, const float *A, int lda, float *B, int ldb) {
    return ct_emu::trsm<float>(h, s, u, t, d, m, n, alpha, A, lda, B, ldb);
}
inline cublasStatus_t cublasDtrsm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d, int m, int n,
                                  const double *alpha, const double *A, int lda, double *B, int ldb) {
    return ct_emu::trsm<double>(h, s, u, t, d, m, n, alpha, A, lda, B, ldb);
}
/* trsmBatched: trsm on each pair A[b], B[b] (device arrays of device pointers);
   the arguments checked as trsm's, a negative batch count refused */
namespace ct_emu {
inline long &trsm_batched_calls() { static long n = 0; return n; }   /* (tests read it: the batched path ran) */
template <typename T>
inline cublasStatus_t trsm_batched(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t ta, cublasDiagType_t diag, int m,
                                   int n, const T *alpha, const T *const A[], int lda, T *const B[], int ldb, int batch) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    int na = side == CUBLAS_SIDE_LEFT ? m : n;
    if (m < 0 || n < 0 || batch < 0 || lda < (na > 1 ? na : 1) || ldb < (m > 1 ? m : 1)) return CUBLAS_STATUS_INVALID_VALUE;
    trsm_batched_calls()++;
    if (!m || !n || !batch) return CUBLAS_STATUS_SUCCESS;
    opened open_;
    check_side(A, sizeof(T *) * (size_t)batch, true, "cublas trsmBatched Aarray");
    check_side(B, sizeof(T *) * (size_t)batch, true, "cublas trsmBatched Barray");
    for (int b = 0; b < batch; b++) {
        cublasStatus_t s = trsm<T>(h, side, uplo, ta, diag, m, n, alpha, A[b], lda, B[b], ldb);
        if (s != CUBLAS_STATUS_SUCCESS) return s;
    }
    return CUBLAS_STATUS_SUCCESS;
}
}  // namespace ct_emu
inline cublasStatus_t cublasStrsmBatched(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d, int m,
                                         int n, const float *alpha, const float *const A[], int lda, float *const B[], int ldb, int batch) {
    return ct_emu::trsm_batched<float>(h, s, u, t, d, m, n, alpha, A, lda, B, ldb, batch);
}
inline cublasStatus_t cublasDtrsmBatched(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d, int m,
                                         int n, const double *alpha, const double *const A[], int lda, double *const B[], int ldb, int batch) {
    return ct_emu::trsm_batched<double>(h, s, u, t, d, m, n, alpha, A, lda, B, ldb, batch);
}
#endif
