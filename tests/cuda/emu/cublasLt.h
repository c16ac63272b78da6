/* tests/cuda/emu/cublasLt.h - the cuBLASLt entry points ctensor_cuda.h calls
   (its int8 Linear), emulated on the host for the CUDA emulator (see
   cuda_runtime.h here): a handle, a matmul descriptor (compute and scale type,
   the transposes), matrix layouts (type, rows, cols, leading dimension;
   column-major, one matrix: no batch attributes) and cublasLtMatmul for the one
   combination used: A and B CUDA_R_8I, C = D CUDA_R_32I, compute
   CUBLAS_COMPUTE_32I, scale CUDA_R_32I (alpha and beta host int32).
   The constraints cuBLASLt documents for int8 matrices in the regular (not
   COL32) order are checked, so that code which passes here passes there:
   op(A) = A^T and op(B) = B only ("TN"), the leading dimensions of A, B and C
   multiples of 4, m and k multiples of 4, the pointers 4-byte aligned (a failed
   one is CUBLAS_STATUS_NOT_SUPPORTED: no algorithm fits, as the library says);
   layouts that do not match the problem's dimensions, or a leading dimension
   below the rows, are CUBLAS_STATUS_INVALID_VALUE. C must be D (in place) here.
   Products are summed in int32 with wrap-around (two's complement), as the
   tensor cores accumulate. Device memory is readable only while the matmul runs
   (the emulator's guard). */
#ifndef CT_EMU_CUBLASLT_H
#define CT_EMU_CUBLASLT_H
#include "cublas_v2.h"
#include <stdint.h>

typedef struct ct_emu_lt { int device; } *cublasLtHandle_t;
typedef struct ct_emu_lt_desc { cublasComputeType_t compute; cudaDataType_t scale; int32_t ta, tb; } *cublasLtMatmulDesc_t;
typedef struct ct_emu_lt_layout { cudaDataType_t type; uint64_t rows, cols; int64_t ld; } *cublasLtMatrixLayout_t;
typedef struct { uint64_t data[8]; } cublasLtMatmulAlgo_t;
typedef enum {
    CUBLASLT_MATMUL_DESC_COMPUTE_TYPE = 0,
    CUBLASLT_MATMUL_DESC_SCALE_TYPE = 1,
    CUBLASLT_MATMUL_DESC_POINTER_MODE = 2,
    CUBLASLT_MATMUL_DESC_TRANSA = 3,
    CUBLASLT_MATMUL_DESC_TRANSB = 4,
} cublasLtMatmulDescAttributes_t;

inline cublasStatus_t cublasLtCreate(cublasLtHandle_t *h) {
    if (!h) return CUBLAS_STATUS_INVALID_VALUE;
    *h = new ct_emu_lt;
    (*h)->device = ct_emu::cur_device;
    return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasLtDestroy(cublasLtHandle_t h) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    delete h;
    return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *d, cublasComputeType_t compute, cudaDataType_t scale) {
    if (!d) return CUBLAS_STATUS_INVALID_VALUE;
    *d = new ct_emu_lt_desc{compute, scale, CUBLAS_OP_N, CUBLAS_OP_N};
    return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d) {
    delete d;
    return CUBLAS_STATUS_SUCCESS;
}
/* the transposes (int32_t, cublasOperation_t values); other attributes are not emulated */
inline cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t attr, const void *buf, size_t size) {
    if (!d || !buf) return CUBLAS_STATUS_INVALID_VALUE;
    if (attr != CUBLASLT_MATMUL_DESC_TRANSA && attr != CUBLASLT_MATMUL_DESC_TRANSB) return CUBLAS_STATUS_NOT_SUPPORTED;
    if (size != sizeof(int32_t)) return CUBLAS_STATUS_INVALID_VALUE;
    int32_t v;
    memcpy(&v, buf, sizeof v);
    if (v != CUBLAS_OP_N && v != CUBLAS_OP_T) return CUBLAS_STATUS_INVALID_VALUE;
    (attr == CUBLASLT_MATMUL_DESC_TRANSA ? d->ta : d->tb) = v;
    return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *l, cudaDataType_t type, uint64_t rows, uint64_t cols, int64_t ld) {
    if (!l) return CUBLAS_STATUS_INVALID_VALUE;
    if (ld < (int64_t)(rows > 1 ? rows : 1)) return CUBLAS_STATUS_INVALID_VALUE;   /* column-major: ld >= rows */
    *l = new ct_emu_lt_layout{type, rows, cols, ld};
    return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l) {
    delete l;
    return CUBLAS_STATUS_SUCCESS;
}
/* D = alpha op(A) op(B) + beta C, m x n, op(A) m x k, op(B) k x n */
inline cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t d, const void *alpha, const void *A, cublasLtMatrixLayout_t la,
                                     const void *B, cublasLtMatrixLayout_t lb, const void *beta, const void *C, cublasLtMatrixLayout_t lc,
                                     void *D, cublasLtMatrixLayout_t ld, const cublasLtMatmulAlgo_t *algo, void *ws, size_t wsize,
                                     cudaStream_t stream) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!d || !la || !lb || !lc || !ld || !alpha || !beta || (wsize && !ws)) return CUBLAS_STATUS_INVALID_VALUE;
    (void)algo;   /* NULL: the library's heuristic; any algorithm computes the same integers */
    if (ct_emu::stream_device(stream, "cublasLtMatmul") != h->device && stream) {
        fprintf(stderr, "cuda emulator: cublasLtMatmul: a stream of device %d for a handle of device %d\n", ct_emu::stream_device(stream, "cublasLtMatmul"),
                h->device);
        abort();
    }
    /* the one type combination emulated (cuBLASLt's int8 row of its type table) */
    if (d->compute != CUBLAS_COMPUTE_32I || d->scale != CUDA_R_32I || la->type != CUDA_R_8I || lb->type != CUDA_R_8I || lc->type != CUDA_R_32I ||
        ld->type != CUDA_R_32I)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    uint64_t m = d->ta == CUBLAS_OP_N ? la->rows : la->cols, k = d->ta == CUBLAS_OP_N ? la->cols : la->rows;
    uint64_t kb = d->tb == CUBLAS_OP_N ? lb->rows : lb->cols, n = d->tb == CUBLAS_OP_N ? lb->cols : lb->rows;
    if (kb != k || lc->rows != m || lc->cols != n || ld->rows != m || ld->cols != n || ld->ld != lc->ld) return CUBLAS_STATUS_INVALID_VALUE;
    if (C != D) return CUBLAS_STATUS_NOT_SUPPORTED;   /* out of place C is not emulated */
    /* int8 in the regular order: TN, leading dimensions and m, k multiples of 4, 4-byte aligned pointers */
    if (d->ta != CUBLAS_OP_T || d->tb != CUBLAS_OP_N || la->ld % 4 || lb->ld % 4 || lc->ld % 4 || m % 4 || k % 4 ||
        ((uintptr_t)A | (uintptr_t)B | (uintptr_t)D) % 4)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (!m || !n) return CUBLAS_STATUS_SUCCESS;
    int32_t al, be;
    memcpy(&al, alpha, sizeof al);
    memcpy(&be, beta, sizeof be);
    ct_emu::opened open_;
    if (k) {
        ct_emu::check_side(A, (size_t)((m - 1) * la->ld + k), true, "cublasLtMatmul A");
        ct_emu::check_side(B, (size_t)((n - 1) * lb->ld + k), true, "cublasLtMatmul B");
    }
    ct_emu::check_side(D, (size_t)((n - 1) * ld->ld + m) * 4, true, "cublasLtMatmul D");
    const int8_t *a = (const int8_t *)A, *b = (const int8_t *)B;
    int32_t *c = (int32_t *)D;
    for (uint64_t j = 0; j < n; j++)
        for (uint64_t i = 0; i < m; i++) {
            uint32_t s = 0;   /* A^T: element (i, l) of op(A) is A[l + i lda]; B[l + j ldb] */
            for (uint64_t l = 0; l < k; l++) s += (uint32_t)((int32_t)a[l + i * la->ld] * (int32_t)b[l + j * lb->ld]);
            int32_t *ci = c + i + j * ld->ld;
            uint32_t v = (uint32_t)al * s + (be ? (uint32_t)be * (uint32_t)*ci : 0u);
            *ci = (int32_t)v;
        }
    return CUBLAS_STATUS_SUCCESS;
}
#endif
