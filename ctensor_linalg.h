/* ctensor_linalg.h - torch.linalg for ctensor, on LAPACKE + CBLAS, with autograd.   v0.4 (2026-12-06)

   HOW TO USE
     #define CTENSOR_IMPLEMENTATION          (in exactly one file)
     #include "ctensor.h"
     #include "ctensor_linalg.h"             (always after ctensor.h)
     link with -llapacke -lopenblas -lm      (Debian: liblapacke-dev libopenblas-dev)

     The implementation of this header uses ctensor.h's internals (the op table,
     the dispatcher, autograd), so it must be compiled in the translation unit
     that defines CTENSOR_IMPLEMENTATION: there CTENSOR_LINALG_IMPLEMENTATION is
     turned on automatically. Other files include both headers for the
     declarations only; those need neither LAPACKE nor CBLAS headers.

   THE FEEL (PyTorch's torch.linalg announcement)
       ct_tensor *sample = ct_add(mu, ct_matmul(ct_linalg_cholesky(sigma), noise));
       ct_linalg_svd_result r = ct_linalg_svd(A, 0);      // r.U, r.S, r.Vh
       if (!sample || !r.S) fprintf(stderr, "%s\n", ct_last_error());

   CONVENTIONS
     - Names and semantics are torch.linalg's (PyTorch 1.13). Inputs are float32,
       float64, complex64 or complex128 (integer inputs are an error, as in PyTorch;
       see COMPLEX below); eig/eigvals return complex64/complex128 tensors. Every
       function works on batches over any leading dimensions; solve-like functions
       broadcast the batch dimensions.
     - Functions returning several tensors return a struct named after PyTorch's
       named tuple (ct_linalg_svd_result{U, S, Vh}, ...); on failure every field
       is NULL. The *_ex functions return the info tensor (int32) through a pointer.
     - String arguments mirror PyTorch's: UPLO "L"/"U", qr mode "reduced"/"complete"/
       "r", lstsq driver "gels"/"gelsy"/"gelsd"/"gelss", matrix norm ord "fro",
       "nuc", "inf", "-inf", "1", "-1", "2", "-2". NULL selects PyTorch's default.
       A double argument that PyTorch types as Optional uses NAN for None.
     - Errors are PyTorch's messages (code CT_ERR_NUMERIC for singular / not
       definite / no convergence, CT_ERR_SHAPE, CT_ERR_DTYPE, CT_ERR_ARG).
     - Every differentiable function has PyTorch's backward rule; inv, det, solve,
       cholesky (and most others) are written with ctensor ops, so second
       derivatives work. Limitations are listed at the end of this comment.

   OPS AND DEVICES
     Each op is registered at run time in ctensor's one op table (names as
     PyTorch's: "linalg_cholesky_ex", "linalg_svd", ...; ct_op_name/ct_num_ops list
     them), so tracing, profiling and autograd see them like built-in ops. Kernels
     here are CPU kernels; a device header registers its own per op name with
     ct_register_kernel("aten::linalg_cholesky_ex", CT_BACKEND_CUDA, fn) (docs/SPINE.md):
     ctensor_cuda.h, included after this header, gives every op of this table a
     CUDA kernel for real inputs (cuSOLVER / cuBLAS, a few composed of device ops;
     link -lcusolver -lcublas). The backward rules make their helper tensors
     (masks, identities, ranges) on their operands' device, so they run there too.

   PERFORMANCE
     Matrices with n <= 16 use hand-written kernels (Cholesky, LU with partial
     pivoting, triangular solves, Jacobi eigh and one-sided Jacobi SVD) that loop
     over the batch with no LAPACK call and no allocation per matrix. In batches,
     cholesky, inv, solve, lu_factor (square), eigh and svd run whole groups of 8
     matrices in lock-step (interleaved, every inner loop across the 8 matrices, so
     the compiler vectorizes across the batch; sqrt through the vector instruction
     where there is one); the rest of a batch, and any matrix of a group that fails
     (not positive-definite, a zero pivot, non-finite entries, a rank-deficient
     SVD), go through the one-matrix kernels, so infos and messages are theirs.
     All of these compute in double, float32 inputs included. Larger matrices go
     to LAPACK, with a row-major matrix handed over as its column-major transpose
     wherever the math allows (cholesky, inv, eigh, svd), so the only copy is the one
     LAPACK's in-place algorithms need anyway (transposing copies go in tiles).
     lstsq's default driver is gelsy, as PyTorch's on the CPU. PyTorch hands gelsy an
     uninitialized jpvt that in practice is non-zero (what the previous call left),
     so every column is "fixed" and no column pivoting happens (geqp3 is then a
     blocked QR). ctensor runs gelsy that way first and, when that finds A
     rank-deficient, again with jpvt = 0 (the pivoted, rank-revealing factorization
     LAPACK documents), so full-rank problems cost what PyTorch's do and
     rank-deficient ones get the documented minimum-norm answer and rank.

   COMPLEX
     complex64 / complex128 inputs go through LAPACKE's c/z routines (potrf, getrf,
     getrs, getri, potrs, potri, trsm, geqrf + ungqr, heevd, gesdd, geev, gels,
     gelsy, gelsd, gelss) on a column-major copy of each matrix, at every size (no
     small-matrix kernels), in the input's precision: cholesky(_ex), inv(_ex),
     solve(_ex), solve_triangular, lu_factor(_ex), lu, lu_solve (adjoint: A^H),
     cholesky_solve, cholesky_inverse, det, slogdet (a complex sign, a real
     logabsdet), logdet (log det), qr, eigh / eigvalsh (Hermitian: real eigenvalues),
     eig / eigvals, svd / svdvals (real S), pinv, lstsq (real residuals and singular
     values), matrix_exp (exp of the real 2n x 2n embedding [[X, -Y], [Y, X]]),
     vector_norm / matrix_norm / norm / cond (real results), matrix_rank,
     matrix_power, multi_dot, vecdot (conj(x) . y), cross and vander (composed of
     real crosses / products), householder_product (the product of the reflectors
     as ctensor ops), tensorinv, tensorsolve, diagonal, trace: every function.
     Backward rules are PyTorch's complex ones (conjugate Wirtinger gradients, as
     ctensor.h's autograd): conjugate transposes where the real rules transpose,
     g conj(det) A^{-H} for det, slogdet's g_logabsdet - i im(conj(g_sign) sign)
     term, svd's diag(im(U^H gU)) / S term, eigh without the diagonal of V^H gV.
     As PyTorch's, the backward of eigh, eig and svd refuses a loss that depends
     on the phases of complex eigen- or singular vectors (im(diag(V^H gV)) must
     vanish: "... specified up to multiplication by e^{i phi} ...").

   LIMITATIONS
     - svd/eigh/eig gradients assume distinct singular values / eigenvalues (PyTorch's
       assumption).
     - lu_factor(pivot=0) is not implemented on the CPU (PyTorch's behaviour).

   CONTENTS (search for the banner titles)
     Declarations: results of functions with several outputs; Cholesky; inverses
       and linear systems; determinants; decompositions; norms, condition numbers,
       rank; matrix functions and products; complex views.
     Implementation: infrastructure (the op table of this header, registration,
       argument checks); LAPACK / CBLAS by dtype; small-matrix kernels; batched
       small-matrix kernels; Cholesky;
       inverse; linear systems; triangular systems; LU; determinants; from a
       Cholesky factor; QR; eigh; eig; SVD; pseudo-inverse; least squares;
       Householder products; matrix exponential; vector norms; cross products and
       Vandermonde matrices; complex views; composite functions. Complex kernels sit
       beside the real ones of each function (ct__la_k_<op>_cx, or a CT__LA_CX branch);
       their helpers follow "LAPACK / CBLAS by dtype".

   REVISIONS
     0.4 (2026-12-06)  complex64/complex128 inputs (LAPACKE c/z) with complex backward
                       rules for every function.
     0.3 (2026-11-24)  n <= 16: groups of 8 matrices in lock-step for cholesky, inv,
                       solve, lu_factor, eigh, svd; lstsq's gelsy tries without column
                       pivoting first (as PyTorch's runs in practice); tiled
                       transposing copies.
     0.2 (2026-11-24)  ops registered as one named block with typed attribute
                       schemas (spine v2); one norm backward shared with ctensor.h.
     0.1 (2026-11-22)  first release.
*/
#ifndef CTENSOR_LINALG_H_INCLUDED
#define CTENSOR_LINALG_H_INCLUDED

#include "ctensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================
   Results of functions with several outputs (PyTorch's named tuples)
   ========================================================================== */
typedef struct ct_linalg_slogdet_result { ct_tensor *sign, *logabsdet; } ct_linalg_slogdet_result;
typedef struct ct_linalg_lu_factor_result { ct_tensor *LU, *pivots, *info; } ct_linalg_lu_factor_result;  /* info: _ex only */
typedef struct ct_linalg_lu_result { ct_tensor *P, *L, *U; } ct_linalg_lu_result;
typedef struct ct_linalg_qr_result { ct_tensor *Q, *R; } ct_linalg_qr_result;
typedef struct ct_linalg_eig_result { ct_tensor *eigenvalues, *eigenvectors; } ct_linalg_eig_result;
typedef struct ct_linalg_svd_result { ct_tensor *U, *S, *Vh; } ct_linalg_svd_result;
typedef struct ct_linalg_lstsq_result { ct_tensor *solution, *residuals, *rank, *singular_values; } ct_linalg_lstsq_result;

/* ============================================================================
   Cholesky
   ========================================================================== */
/* torch.linalg.cholesky(A): lower L with A = L L^H (reads the lower triangle). */
CTENSOR_API ct_tensor *ct_linalg_cholesky(const ct_tensor *A);
/* torch.linalg.cholesky_ex(A, upper, check_errors): *info (int32, batch shape) gets
   0 or the order of the leading minor that is not positive-definite. upper: return
   U = L^H (reads the upper triangle). info may be NULL. */
CTENSOR_API ct_tensor *ct_linalg_cholesky_ex(const ct_tensor *A, int upper, int check_errors, ct_tensor **info);
/* torch.cholesky_solve(B, L, upper): solves A X = B given A's Cholesky factor. */
CTENSOR_API ct_tensor *ct_cholesky_solve(const ct_tensor *B, const ct_tensor *L, int upper);
/* torch.cholesky_inverse(L, upper): A^{-1} from A's Cholesky factor. */
CTENSOR_API ct_tensor *ct_cholesky_inverse(const ct_tensor *L, int upper);

/* ============================================================================
   Inverses and linear systems
   ========================================================================== */
CTENSOR_API ct_tensor *ct_linalg_inv(const ct_tensor *A);
CTENSOR_API ct_tensor *ct_linalg_inv_ex(const ct_tensor *A, int check_errors, ct_tensor **info);
/* torch.linalg.solve(A, B): X with A X = B. B may be a batch of vectors (*, n). */
CTENSOR_API ct_tensor *ct_linalg_solve(const ct_tensor *A, const ct_tensor *B);
/* left = 0: X A = B. */
CTENSOR_API ct_tensor *ct_linalg_solve_ex(const ct_tensor *A, const ct_tensor *B, int left, int check_errors, ct_tensor **info);
CTENSOR_API ct_tensor *ct_linalg_solve_triangular(const ct_tensor *A, const ct_tensor *B, int upper, int left, int unitriangular);
/* torch.linalg.lu_factor(A, pivot): LU (*, m, n) and pivots (int32, 1-based). */
CTENSOR_API ct_linalg_lu_factor_result ct_linalg_lu_factor(const ct_tensor *A, int pivot);
CTENSOR_API ct_linalg_lu_factor_result ct_linalg_lu_factor_ex(const ct_tensor *A, int pivot, int check_errors);
/* torch.linalg.lu(A, pivot): A = P L U. */
CTENSOR_API ct_linalg_lu_result ct_linalg_lu(const ct_tensor *A, int pivot);
CTENSOR_API ct_tensor *ct_linalg_lu_solve(const ct_tensor *LU, const ct_tensor *pivots, const ct_tensor *B, int left, int adjoint);
/* torch.linalg.lstsq(A, B, rcond, driver): rcond NAN = eps * max(m, n); driver NULL = "gelsy"
   ("gels" for device tensors, as PyTorch on CUDA). */
CTENSOR_API ct_linalg_lstsq_result ct_linalg_lstsq(const ct_tensor *A, const ct_tensor *B, double rcond, const char *driver);
/* torch.linalg.pinv(A, atol, rtol, hermitian): NAN = None (PyTorch's defaults). */
CTENSOR_API ct_tensor *ct_linalg_pinv(const ct_tensor *A, double atol, double rtol, int hermitian);
/* torch.linalg.tensorinv(A, ind) and tensorsolve(A, B, dims) (dims: ndims 0 = None). */
CTENSOR_API ct_tensor *ct_linalg_tensorinv(const ct_tensor *A, int ind);
CTENSOR_API ct_tensor *ct_linalg_tensorsolve(const ct_tensor *A, const ct_tensor *B, int ndims, const int64_t *dims);

/* ============================================================================
   Determinants
   ========================================================================== */
CTENSOR_API ct_tensor *ct_linalg_det(const ct_tensor *A);
CTENSOR_API ct_linalg_slogdet_result ct_linalg_slogdet(const ct_tensor *A);
CTENSOR_API ct_tensor *ct_logdet(const ct_tensor *A);         /* torch.logdet: nan for det < 0 */
CTENSOR_API ct_tensor *ct_trace(const ct_tensor *A);          /* torch.trace (2-D) */

/* ============================================================================
   Decompositions
   ========================================================================== */
CTENSOR_API ct_linalg_qr_result ct_linalg_qr(const ct_tensor *A, const char *mode);
CTENSOR_API ct_linalg_eig_result ct_linalg_eig(const ct_tensor *A);           /* complex outputs */
CTENSOR_API ct_tensor *ct_linalg_eigvals(const ct_tensor *A);
CTENSOR_API ct_linalg_eig_result ct_linalg_eigh(const ct_tensor *A, const char *UPLO);
CTENSOR_API ct_tensor *ct_linalg_eigvalsh(const ct_tensor *A, const char *UPLO);
CTENSOR_API ct_linalg_svd_result ct_linalg_svd(const ct_tensor *A, int full_matrices);
CTENSOR_API ct_tensor *ct_linalg_svdvals(const ct_tensor *A);
/* torch.linalg.householder_product(A, tau): the first n columns of H_1 ... H_k. */
CTENSOR_API ct_tensor *ct_linalg_householder_product(const ct_tensor *A, const ct_tensor *tau);

/* ============================================================================
   Norms, condition numbers, rank
   ========================================================================== */
/* torch.linalg.vector_norm(x, ord, dim, keepdim): any real ord (0, INFINITY,
   -INFINITY, fractional); ndims 0 = all dims. */
CTENSOR_API ct_tensor *ct_linalg_vector_norm(const ct_tensor *x, double ord, int ndims, const int64_t *dims, int keepdim);
/* torch.linalg.matrix_norm(A, ord, dim, keepdim): dim NULL = (-2, -1). */
CTENSOR_API ct_tensor *ct_linalg_matrix_norm(const ct_tensor *A, const char *ord, const int64_t *dim, int keepdim);
/* torch.linalg.norm(A, ord, dim, keepdim): ord NULL = None; ord a number in a string
   ("3", "-0.5") is a vector norm when one dim is reduced. */
CTENSOR_API ct_tensor *ct_linalg_norm(const ct_tensor *A, const char *ord, int ndims, const int64_t *dims, int keepdim);
CTENSOR_API ct_tensor *ct_linalg_cond(const ct_tensor *A, const char *p);             /* p NULL = None (2) */
CTENSOR_API ct_tensor *ct_linalg_matrix_rank(const ct_tensor *A, double atol, double rtol, int hermitian);

/* ============================================================================
   Matrix functions and products
   ========================================================================== */
CTENSOR_API ct_tensor *ct_linalg_matrix_power(const ct_tensor *A, int64_t n);   /* n < 0: powers of inv(A) */
CTENSOR_API ct_tensor *ct_linalg_matrix_exp(const ct_tensor *A);
/* torch.linalg.multi_dot: the product in the cheapest parenthesization. */
CTENSOR_API ct_tensor *ct_linalg_multi_dot(int n, ct_tensor *const *tensors);
CTENSOR_API ct_tensor *ct_linalg_cross(const ct_tensor *a, const ct_tensor *b, int dim);   /* dim -1 */
CTENSOR_API ct_tensor *ct_linalg_diagonal(const ct_tensor *A, int64_t offset, int dim1, int dim2);  /* 0, -2, -1 */
CTENSOR_API ct_tensor *ct_linalg_vecdot(const ct_tensor *x, const ct_tensor *y, int dim);  /* dim -1 */
CTENSOR_API ct_tensor *ct_linalg_vander(const ct_tensor *x, int64_t N);      /* N < 0: None (x.shape[-1]) */

/* Complex views (what eig/eigvals return): ct_view_as_real, ct_view_as_complex,
   ct_real, ct_imag are ctensor.h's. */

#ifdef __cplusplus
}  /* extern "C" */
#endif
#endif /* CTENSOR_LINALG_H_INCLUDED */

/* ############################################################################
   IMPLEMENTATION
   ############################################################################ */
#if defined(CTENSOR_IMPLEMENTATION) && !defined(CTENSOR_LINALG_NO_IMPLEMENTATION) && !defined(CTENSOR_LINALG_IMPLEMENTATION)
#define CTENSOR_LINALG_IMPLEMENTATION
#endif
#ifdef CTENSOR_LINALG_IMPLEMENTATION
#ifndef CTENSOR_LINALG_IMPLEMENTATION_DONE
#define CTENSOR_LINALG_IMPLEMENTATION_DONE
#ifndef CTENSOR_IMPLEMENTATION_DONE
#error "ctensor_linalg.h: the implementation needs ctensor.h's implementation in the same translation unit (define CTENSOR_IMPLEMENTATION before including ctensor.h)"
#endif
CT__GXX_PUSH
#ifdef CTENSOR_CUDA_IMPLEMENTATION_DONE
#error "ctensor_linalg.h: include ctensor_linalg.h before ctensor_cuda.h (ctensor_cuda.h's implementation registers the cuSOLVER kernels of ctensor_linalg.h's ops when it comes after ctensor_linalg.h's)"
#endif

/* LAPACKE with our own complex types: no <complex.h> (which defines `I`), and the
   same header compiles as C, C++ and under nvcc. Only real routines and zgesv
   (pointers to complex) are called, so the layout is all that matters. */
typedef struct ct__lapack_cf { float re, im; } ct__lapack_cf;
typedef struct ct__lapack_cd { double re, im; } ct__lapack_cd;
#ifndef LAPACK_COMPLEX_CUSTOM
#define LAPACK_COMPLEX_CUSTOM
#define lapack_complex_float ct__lapack_cf
#define lapack_complex_double ct__lapack_cd
#endif
#include <lapacke.h>
/* OpenBLAS's cblas.h includes <complex.h> in C, whose `I` and `complex` macros would
   break user code (a variable named I): they are removed again unless the user had
   them before. */
#ifndef I
#define CT__LA_UNDEF_I
#endif
#ifndef complex
#define CT__LA_UNDEF_COMPLEX
#endif
#include <cblas.h>
#ifdef CT__LA_UNDEF_I
#undef I
#undef CT__LA_UNDEF_I
#endif
#ifdef CT__LA_UNDEF_COMPLEX
#undef complex
#undef CT__LA_UNDEF_COMPLEX
#endif

/* ============================================================================
   Infrastructure: registration, argument checks, batches, matrix copies
   ========================================================================== */
#define CT__LA_SMALL 16            /* n <= this: hand-written kernels, no LAPACK call per matrix */

typedef int ct__la_int;            /* lapack_int (LP64) */

/* The name each op reports in messages (attribute `api`, i[3]: 1 + an index into
   this list; 0, "default": the op's own name), so that composite functions
   (solve via solve_ex, ...) name themselves as PyTorch does. */
#define CT__LA_NAMES(X) \
    X(CHOLESKY, "linalg.cholesky") \
    X(CHOLESKY_EX, "linalg.cholesky_ex") \
    X(INV, "linalg.inv") \
    X(INV_EX, "linalg.inv_ex") \
    X(SOLVE, "linalg.solve") \
    X(SOLVE_EX, "linalg.solve_ex") \
    X(SOLVE_TRI, "linalg.solve_triangular") \
    X(LU_FACTOR, "linalg.lu_factor") \
    X(LU_FACTOR_EX, "linalg.lu_factor_ex") \
    X(LU, "linalg.lu") \
    X(LU_SOLVE, "linalg.lu_solve") \
    X(DET, "linalg.det") \
    X(SLOGDET, "linalg.slogdet") \
    X(CHOL_SOLVE, "cholesky_solve") \
    X(CHOL_INV, "cholesky_inverse") \
    X(QR, "linalg.qr") \
    X(EIGH, "linalg.eigh") \
    X(EIGVALSH, "linalg.eigvalsh") \
    X(EIG, "linalg.eig") \
    X(EIGVALS, "linalg.eigvals") \
    X(SVD, "linalg.svd") \
    X(SVDVALS, "linalg.svdvals") \
    X(LSTSQ, "linalg.lstsq") \
    X(HOUSEHOLDER, "linalg.householder_product") \
    X(PINV, "linalg.pinv") \
    X(MATRIX_EXP, "linalg.matrix_exp") \
    X(VECTOR_NORM, "linalg.vector_norm") \
    X(CROSS, "linalg.cross") \
    X(VANDER, "linalg.vander") \
    X(MATRIX_RANK, "linalg.matrix_rank") \
    X(COND, "linalg.cond") \
    X(MATRIX_NORM, "linalg.matrix_norm") \
    X(NORM, "linalg.norm") \
    X(LOGDET, "logdet") \
    X(MATRIX_POWER, "linalg.matrix_power") \
    X(TENSORINV, "linalg.tensorinv") \
    X(TENSORSOLVE, "linalg.tensorsolve") \
    X(MULTI_DOT, "linalg.multi_dot") \
    X(VECDOT, "linalg.vecdot") \
    X(DIAGONAL, "linalg.diagonal") \
    X(TRACE, "trace")
enum {
#define CT__LA_NAME_ENUM(E, s) CT__LAN_##E,
    CT__LA_NAMES(CT__LA_NAME_ENUM)
#undef CT__LA_NAME_ENUM
    CT__LAN_COUNT
};
static const char *const ct__la_fnames[] = {
#define CT__LA_NAME_STR(E, s) s,
    CT__LA_NAMES(CT__LA_NAME_STR)
#undef CT__LA_NAME_STR
};
CT_STATIC_ASSERT(sizeof(ct__la_fnames) / sizeof(ct__la_fnames[0]) == CT__LAN_COUNT, "linalg name table");
/* the schema entry of that attribute: an enum of the same names */
#define CT__LA_NAME_ALT(E, s) "|" s
#define CT__LA_API "enum(default" CT__LA_NAMES(CT__LA_NAME_ALT) ") api=i3"
static const char *ct__la_fn(const ct__call *c) {
    int64_t k = c->a->i[3];
    return k >= 1 && k <= CT__LAN_COUNT ? ct__la_fnames[k - 1] : ct__opdef_get(c->op)->name;
}

/* The op list of this header, in ctensor's X-macro format. */
#define CT__LA_OPS(X)                                                                                                        \
    X(CHOLESKY, "aten::linalg_cholesky_ex", "linalg_cholesky_ex", "LinalgCholeskyExBackward0", 1, 2, 0, "bool upper=f0, bool check_errors=f3, " CT__LA_API, ct__la_meta_square_info, ct__la_k_cholesky, ct__la_bw_cholesky, CT__SAVE_OUT(0)) \
    X(INV, "aten::linalg_inv_ex", "linalg_inv_ex", "LinalgInvExBackward0", 1, 2, 0, "bool check_errors=f3, " CT__LA_API, ct__la_meta_square_info, ct__la_k_inv, ct__la_bw_inv, CT__SAVE_OUT(0))                              \
    X(SOLVE, "aten::linalg_solve_ex", "linalg_solve_ex", "LinalgSolveExBackward0", 2, 2, 0, "bool check_errors=f3, " CT__LA_API, ct__la_meta_solve, ct__la_k_solve, ct__la_bw_solve, CT__SAVE_IN(0) | CT__SAVE_OUT(0)) \
    X(SOLVE_TRI, "aten::linalg_solve_triangular", "linalg_solve_triangular", "LinalgSolveTriangularBackward0", 2, 1, 0, "bool upper=f0, bool left=f1, bool unitriangular=f2, " CT__LA_API, ct__la_meta_solve_tri, ct__la_k_solve_tri, ct__la_bw_solve_tri, CT__SAVE_IN(0) | CT__SAVE_OUT(0)) \
    X(LU_FACTOR, "aten::linalg_lu_factor_ex", "linalg_lu_factor_ex", "LinalgLuFactorExBackward0", 1, 3, 0, "bool pivot=f10, bool check_errors=f3, " CT__LA_API, ct__la_meta_lu_factor, ct__la_k_lu_factor, ct__la_bw_lu_factor, CT__SAVE_OUT(0) | CT__SAVE_OUT(1)) \
    X(LU_SOLVE, "aten::linalg_lu_solve", "linalg_lu_solve", "LinalgLuSolveBackward0", 3, 1, 0, "bool left=f1, bool adjoint=f4, " CT__LA_API, ct__la_meta_lu_solve, ct__la_k_lu_solve, ct__la_bw_lu_solve, CT__SAVE_IN(0) | CT__SAVE_IN(1) | CT__SAVE_OUT(0)) \
    X(DET, "aten::linalg_det", "linalg_det", "LinalgDetBackward0", 1, 1, 0, CT__LA_API, ct__la_meta_det, ct__la_k_det, ct__la_bw_det, CT__SAVE_IN(0) | CT__SAVE_OUT(0))        \
    X(SLOGDET, "aten::linalg_slogdet", "linalg_slogdet", "LinalgSlogdetBackward0", 1, 2, 0, CT__LA_API, ct__la_meta_slogdet, ct__la_k_slogdet, ct__la_bw_slogdet, CT__SAVE_IN(0) | CT__SAVE_OUT(0)) \
    X(CHOL_SOLVE, "aten::cholesky_solve", "cholesky_solve", "CholeskySolveBackward0", 2, 1, 0, "bool upper=f0, " CT__LA_API, ct__la_meta_chol_solve, ct__la_k_chol_solve, ct__la_bw_chol_solve, CT__SAVE_IN(1) | CT__SAVE_OUT(0)) \
    X(CHOL_INV, "aten::cholesky_inverse", "cholesky_inverse", "CholeskyInverseBackward0", 1, 1, 0, "bool upper=f0, " CT__LA_API, ct__la_meta_chol_inv, ct__la_k_chol_inv, ct__la_bw_chol_inv, CT__SAVE_IN(0) | CT__SAVE_OUT(0)) \
    X(QR, "aten::linalg_qr", "linalg_qr", "LinalgQrBackward0", 1, 2, 0, "enum(reduced|complete|r) mode=mode, " CT__LA_API, ct__la_meta_qr, ct__la_k_qr, ct__la_bw_qr, CT__SAVE_OUT(0) | CT__SAVE_OUT(1))             \
    X(EIGH, "aten::linalg_eigh", "linalg_eigh", "LinalgEighBackward0", 1, 2, 0, "bool upper=f0, bool compute_v=f5, " CT__LA_API, ct__la_meta_eigh, ct__la_k_eigh, ct__la_bw_eigh, CT__SAVE_OUT(0) | CT__SAVE_OUT(1))   \
    X(EIG, "aten::linalg_eig", "linalg_eig", "LinalgEigBackward0", 1, 2, 0, "bool compute_v=f5, " CT__LA_API, ct__la_meta_eig, ct__la_k_eig, ct__la_bw_eig, CT__SAVE_OUT(0) | CT__SAVE_OUT(1))        \
    X(SVD, "aten::linalg_svd", "linalg_svd", "LinalgSvdBackward0", 1, 3, 0, "bool full_matrices=f6, bool compute_uv=f5, " CT__LA_API, ct__la_meta_svd, ct__la_k_svd, ct__la_bw_svd, CT__SAVE_OUT(0) | CT__SAVE_OUT(1) | CT__SAVE_OUT(2)) \
    X(LSTSQ, "aten::linalg_lstsq", "linalg_lstsq", "LinalgLstsqBackward0", 2, 4, 0, "float? rcond=s0, enum(gels|gelsy|gelsd|gelss) driver=mode", ct__la_meta_lstsq, ct__la_k_lstsq, ct__la_bw_lstsq, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(HOUSEHOLDER, "aten::linalg_householder_product", "linalg_householder_product", "LinalgHouseholderProductBackward0", 2, 1, 0, "", ct__la_meta_householder, ct__la_k_householder, ct__la_bw_householder, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(PINV, "aten::linalg_pinv", "linalg_pinv", "LinalgPinvBackward0", 1, 1, 0, "float? atol=s0, float? rtol=s1, bool hermitian=f8, " CT__LA_API, ct__la_meta_pinv, ct__la_k_pinv, ct__la_bw_pinv, CT__SAVE_IN(0) | CT__SAVE_OUT(0))  \
    X(MATRIX_EXP, "aten::linalg_matrix_exp", "linalg_matrix_exp", "LinalgMatrixExpBackward0", 1, 1, 0, CT__LA_API, ct__la_meta_matrix_exp, ct__la_k_matrix_exp, ct__la_bw_matrix_exp, CT__SAVE_IN(0)) \
    X(VECTOR_NORM, "aten::linalg_vector_norm", "linalg_vector_norm", "LinalgVectorNormBackward0", 1, 1, 0, "float ord=s0, int[] dim=v, bool keepdim=f9", ct__la_meta_vector_norm, ct__la_k_vector_norm, ct__la_bw_vector_norm, CT__SAVE_IN(0) | CT__SAVE_OUT(0)) \
    X(CROSS, "aten::linalg_cross", "linalg_cross", "LinalgCrossBackward0", 2, 1, 0, "int dim=i0", ct__la_meta_cross, ct__la_k_cross, ct__la_bw_cross, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(VANDER, "aten::linalg_vander", "linalg_vander", "LinalgVanderBackward0", 1, 1, 0, "int? N=i0?f11", ct__la_meta_vander, ct__la_k_vander, ct__la_bw_vander, CT__SAVE_OUT(0))     \
    X(PROD_OTHERS, "ct::linalg_prod_others", "linalg_prod_others", "LinalgProdOthersBackward0", 1, 1, 0, CT__LA_API, ct__la_meta_same, ct__la_k_prod_others, ct__la_bw_prod_others, CT__SAVE_IN(0))

enum {
#define CT__LA_X_ENUM(E, sname, name, bw, nin, nout, flags, attrs, meta, kernel, backward, save) CT__LA_##E,
    CT__LA_OPS(CT__LA_X_ENUM)
#undef CT__LA_X_ENUM
    CT__LA_NUM_OPS
};
CT__LA_OPS(CT__X_PROTO)
static const ct__opdef ct__la_defs[CT__LA_NUM_OPS] = {CT__LA_OPS(CT__X_DEF)};
CT__OP_BLOCK(la, ct__la_defs, CT__LA_NUM_OPS, )
/* Every public function starts with this: registers the ops once. */
static int ct__la_init(void) {
    ct__la_register_now();
    if (ct__la_base < 0) { ct_set_error(CT_ERR_STATE, "ctensor_linalg.h: its ops could not be registered"); return -1; }
    return 0;
}
#define CT__LA_ID(E) (ct__la_base + CT__LA_##E)
#define CT__LA_INIT_OR(ret) do { if (ct__la_init()) return ret; } while (0)

/* ---- attribute layout shared by the ops ----
   a.flags bits: */
#define CT__LAF_UPPER      0x01   /* upper triangle / upper factor */
#define CT__LAF_LEFT       0x02   /* solve from the left (A X = B) */
#define CT__LAF_UNIT       0x04   /* unit triangular */
#define CT__LAF_CHECK      0x08   /* raise on numerical failure (not _ex) */
#define CT__LAF_ADJOINT    0x10   /* lu_solve: A^H */
#define CT__LAF_COMPUTE_V  0x20   /* eigenvectors / singular vectors wanted */
#define CT__LAF_FULL       0x40   /* svd full_matrices, qr complete */
#define CT__LAF_HERMITIAN  0x100  /* pinv hermitian */
#define CT__LAF_KEEPDIM    0x200
#define CT__LAF_PIVOT      0x400
#define CT__LAF_HAS_N      0x800  /* vander: N given (else the size of x's last dim) */

/* ---- argument checks with PyTorch's messages ---- */
/* the functions that take complex64 / complex128 inputs (by the name they report) */
static int ct__la_cx_ok(const char *fn) {
    static const char *const ok[] = {
        "linalg.cholesky", "linalg.cholesky_ex", "linalg_cholesky_ex", "linalg.inv", "linalg.inv_ex", "linalg_inv_ex",
        "linalg.solve", "linalg.solve_ex", "linalg_solve_ex", "linalg.solve_triangular", "linalg_solve_triangular",
        "linalg.det", "linalg_det", "linalg.slogdet", "linalg_slogdet", "logdet",
        "linalg.eigh", "linalg.eigvalsh", "linalg_eigh", "linalg.eig", "linalg.eigvals", "linalg_eig",
        "linalg.svd", "linalg.svdvals", "linalg_svd", "linalg.qr", "linalg_qr",
        "linalg.vector_norm", "linalg_vector_norm", "linalg.matrix_norm", "linalg.norm", "linalg.cond",
        "linalg.matrix_power", "linalg.multi_dot", "linalg.vecdot", "linalg.diagonal", "trace",
        "linalg.lu_factor", "linalg.lu_factor_ex", "linalg_lu_factor_ex", "linalg.lu", "linalg.lu_solve", "linalg_lu_solve",
        "cholesky_solve", "cholesky_inverse", "linalg.pinv", "linalg_pinv", "linalg.matrix_rank", "linalg.matrix_exp", "linalg_matrix_exp",
        "torch.linalg.lstsq", "torch.linalg.householder_product"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (!strcmp(fn, ok[i])) return 1;
    return 0;
}
static int ct__la_check_dtype(const char *fn, const ct_tensor *A) {
    ct_dtype dt = A->dtype;
    if (dt == CT_FLOAT32 || dt == CT_FLOAT64) return 0;
    if (ct_dtype_is_complex(dt) && ct__la_cx_ok(fn)) return 0;
    if (dt == CT_FLOAT16 || dt == CT_BFLOAT16)
        return ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s' (linalg works in float32 and float64)", fn, CT__DTNAME(dt));
    if (ct_dtype_is_complex(dt))
        return ct__failed(CT_ERR_UNSUPPORTED, "%s: complex inputs are not supported yet (ctensor_linalg.h's complex functions are listed in its header comment)", fn);
    return ct__failed(CT_ERR_DTYPE, "%s: Expected a floating point or complex tensor as input. Got %s", fn, CT__DTNAME(dt));
}
static int ct__la_check_matrix(const char *fn, const ct_tensor *A, int square) {
    if (ct__la_check_dtype(fn, A)) return -1;
    if (A->ndim < 2) return ct__failed(CT_ERR_SHAPE, "%s: The input tensor A must have at least 2 dimensions.", fn);
    if (square && A->shape[A->ndim - 1] != A->shape[A->ndim - 2])
        return ct__failed(CT_ERR_SHAPE, "%s: A must be batches of square matrices, but they are %lld by %lld matrices", fn,
                          (long long)A->shape[A->ndim - 2], (long long)A->shape[A->ndim - 1]);
    return 0;
}
static int ct__la_same_dtype(const char *fn, const ct_tensor *A, const ct_tensor *B) {
    if (A->dtype != B->dtype)
        return ct__failed(CT_ERR_DTYPE, "%s: Expected A and B to have the same dtype, but found A of type %s and B of type %s instead",
                          fn, CT__DTNAME(A->dtype), CT__DTNAME(B->dtype));
    return 0;
}
/* Broadcasts the batch dims (all but the last mdA / mdB dims) of two tensors. */
static int ct__la_bcast_batch(const char *fn, const ct_tensor *A, int mdA, const ct_tensor *B, int mdB, int *nb, int64_t *bshape) {
    int na = A->ndim - mdA, nbb = B->ndim - mdB, n = na > nbb ? na : nbb;
    for (int d = 0; d < n; d++) {
        int ia = d - (n - na), ib = d - (n - nbb);
        int64_t sa = ia >= 0 ? A->shape[ia] : 1, sb = ib >= 0 ? B->shape[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return ct__failed(CT_ERR_SHAPE, "%s: The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d",
                              fn, (long long)sa, (long long)sb, d);
        bshape[d] = sa == 1 ? sb : sa;
    }
    *nb = n;
    return 0;
}

/* ---- batches: element offsets of batch element b of a tensor whose leading dims
   broadcast to the batch shape ---- */
typedef struct ct__bat {
    int nb;
    int64_t shape[CT_MAX_DIMS];
    int64_t count;
} ct__bat;
static void ct__bat_init(ct__bat *B, int nb, const int64_t *shape) {
    B->nb = nb;
    B->count = 1;
    for (int d = 0; d < nb; d++) { B->shape[d] = shape[d]; B->count *= shape[d]; }
}
static void ct__bat_of(ct__bat *B, const ct_tensor *t, int mdims) { ct__bat_init(B, t->ndim - mdims, t->shape); }
/* Offset in elements (including t->offset) of batch element b of t (t's trailing
   mdims dims are the matrix). Dims of size 1 broadcast. */
static int64_t ct__bat_off(const ct__bat *B, const ct_tensor *t, int mdims, int64_t b) {
    int64_t off = t->offset;
    int tb = t->ndim - mdims;
    for (int d = B->nb - 1; d >= 0 && b; d--) {
        int64_t i = b % B->shape[d];
        b /= B->shape[d];
        int td = d - (B->nb - tb);
        if (td >= 0 && t->shape[td] != 1) off += i * t->strides[td];
    }
    return off;
}
/* Index of batch element b within t's own (C-ordered) batch dims. */
static int64_t ct__bat_lin(const ct__bat *B, const ct_tensor *t, int mdims, int64_t b) {
    int64_t lin = 0, mul = 1;
    int tb = t->ndim - mdims;
    for (int d = B->nb - 1; d >= 0; d--) {
        int64_t i = b % B->shape[d];
        b /= B->shape[d];
        int td = d - (B->nb - tb);
        if (td < 0) continue;
        if (t->shape[td] != 1) lin += i * mul;
        mul *= t->shape[td];
    }
    return lin;
}
CT__INLINE char *ct__la_at(const ct_tensor *t, int64_t off) {
    return (char *)t->storage->data + off * (int64_t)ct__dt[t->dtype].size;
}

/* ---- matrix copies between layouts and real dtypes ----
   dst[i*dr + j*dc] = src[i*sr + j*sc] for i < m, j < n (strides in elements). */
#define CT__LA_MCOPY_T(TD, TS)                                                                     \
    {                                                                                               \
        TD *d_ = (TD *)dst;                                                                         \
        const TS *s_ = (const TS *)src;                                                             \
        if (dc == 1 && sc == 1) {                                                                   \
            for (int64_t i = 0; i < m; i++)                                                         \
                for (int64_t j = 0; j < n; j++) d_[i * dr + j] = (TD)s_[i * sr + j];                \
        } else if (dr == 1 || sr == 1) { /* in 32 x 32 tiles: a transpose touches both sides */  \
            for (int64_t j0 = 0; j0 < n; j0 += 32)                                                  \
                for (int64_t i0 = 0; i0 < m; i0 += 32) {                                            \
                    int64_t j1 = j0 + 32 < n ? j0 + 32 : n, i1 = i0 + 32 < m ? i0 + 32 : m;         \
                    for (int64_t j = j0; j < j1; j++)                                               \
                        for (int64_t i = i0; i < i1; i++) d_[i * dr + j * dc] = (TD)s_[i * sr + j * sc]; \
                }                                                                                   \
        } else {                                                                                    \
            for (int64_t i = 0; i < m; i++)                                                         \
                for (int64_t j = 0; j < n; j++) d_[i * dr + j * dc] = (TD)s_[i * sr + j * sc];      \
        }                                                                                           \
    }
static void ct__la_mcopy(void *dst, ct_dtype dd, int64_t dr, int64_t dc, const void *src, ct_dtype sd, int64_t sr,
                         int64_t sc, int64_t m, int64_t n) {
    if (dd == CT_FLOAT64) {
        if (sd == CT_FLOAT64) CT__LA_MCOPY_T(double, double) else CT__LA_MCOPY_T(double, float)
    } else {
        if (sd == CT_FLOAT64) CT__LA_MCOPY_T(float, double) else CT__LA_MCOPY_T(float, float)
    }
}
/* Matrix b of tensor t (last two dims) -> dst with strides (dr, dc), dtype dd. */
static void ct__la_load(void *dst, ct_dtype dd, int64_t dr, int64_t dc, const ct_tensor *t, int64_t off) {
    int nd = t->ndim;
    ct__la_mcopy(dst, dd, dr, dc, ct__la_at(t, off), t->dtype, t->strides[nd - 2], t->strides[nd - 1], t->shape[nd - 2],
                 t->shape[nd - 1]);
}
/* Sets the strict upper (upper = 1) or strict lower triangle of a row-major n x n matrix to 0. */
static void ct__la_zero_tri(void *p, ct_dtype dt, int64_t n, int64_t ld, int upper) {
    for (int64_t i = 0; i < n; i++) {
        int64_t j0 = upper ? i + 1 : 0, j1 = upper ? n : i;
        if (dt == CT_FLOAT64) for (int64_t j = j0; j < j1; j++) ((double *)p)[i * ld + j] = 0.0;
        else for (int64_t j = j0; j < j1; j++) ((float *)p)[i * ld + j] = 0.0f;
    }
}

/* ---- output descriptions for metas ---- */
static void ct__la_out(ct__call *c, int j, ct_dtype dt, int ndim, const int64_t *shape) {
    ct__outinfo *o = &c->oi[j];
    o->kind = CT__OUT_NEW;
    o->dtype = dt;
    o->ndim = ndim;
    o->has_strides = 0;
    for (int d = 0; d < ndim; d++) o->shape[d] = shape[d];
}
/* Batch shape + (r, k) matrices stored column-major per matrix (what LAPACK writes). */
static void ct__la_out_colmajor(ct__call *c, int j, ct_dtype dt, int nb, const int64_t *bshape, int64_t r, int64_t k) {
    ct__outinfo *o = &c->oi[j];
    int64_t sh[CT_MAX_DIMS];
    for (int d = 0; d < nb; d++) sh[d] = bshape[d];
    sh[nb] = r;
    sh[nb + 1] = k;
    ct__la_out(c, j, dt, nb + 2, sh);
    int64_t s = 1;
    o->strides[nb] = 1;
    o->strides[nb + 1] = r > 1 ? r : 1;
    s = r * k > 1 ? r * k : 1;
    for (int d = nb - 1; d >= 0; d--) { o->strides[d] = s; s *= bshape[d] > 1 ? bshape[d] : 1; }
    o->has_strides = 1;
}
/* batch shape + extra trailing dims */
static void ct__la_out_b(ct__call *c, int j, ct_dtype dt, int nb, const int64_t *bshape, int nextra, int64_t e0, int64_t e1) {
    int64_t sh[CT_MAX_DIMS];
    for (int d = 0; d < nb; d++) sh[d] = bshape[d];
    if (nextra > 0) sh[nb] = e0;
    if (nextra > 1) sh[nb + 1] = e1;
    ct__la_out(c, j, dt, nb + nextra, sh);
}
/* A message prefix naming the batch element, when the input is batched. */
typedef struct ct__la_bstr { char s[64]; } ct__la_bstr;
static ct__la_bstr ct__la_batch_prefix(int batched, int64_t b) {
    ct__la_bstr r;
    r.s[0] = 0;
    if (batched) snprintf(r.s, sizeof r.s, "(Batch element %lld): ", (long long)b);
    return r;
}
/* Raises the first non-zero info of a batch (PyTorch's "checked" functions). */
static int ct__la_first_bad(const int32_t *info, int64_t count, int64_t *b) {
    for (int64_t k = 0; k < count; k++)
        if (info[k]) { *b = k; return info[k]; }
    return 0;
}
/* Scratch memory for kernels (not tensors: no scope, no autograd). */
static void *ct__la_scratch(size_t bytes) {
    void *p = CT_MALLOC(bytes ? bytes : 1);
    if (!p) ct_set_error(CT_ERR_MEMORY, "linalg: out of memory (%zu bytes of workspace)", bytes);
    return p;
}

/* ============================================================================
   LAPACK / CBLAS by dtype (column-major; the callers arrange the layout)
   ========================================================================== */
#define CT__LA_D(dt) ((dt) == CT_FLOAT64)
static ct__la_int ct__la_potrf(ct_dtype dt, char uplo, ct__la_int n, void *a, ct__la_int lda) {
    return CT__LA_D(dt) ? LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, uplo, n, (double *)a, lda)
                        : LAPACKE_spotrf_work(LAPACK_COL_MAJOR, uplo, n, (float *)a, lda);
}
static ct__la_int ct__la_potri(ct_dtype dt, char uplo, ct__la_int n, void *a, ct__la_int lda) {
    return CT__LA_D(dt) ? LAPACKE_dpotri_work(LAPACK_COL_MAJOR, uplo, n, (double *)a, lda)
                        : LAPACKE_spotri_work(LAPACK_COL_MAJOR, uplo, n, (float *)a, lda);
}
static ct__la_int ct__la_getrf(ct_dtype dt, ct__la_int m, ct__la_int n, void *a, ct__la_int lda, ct__la_int *ipiv) {
    return CT__LA_D(dt) ? LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, n, (double *)a, lda, ipiv)
                        : LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, m, n, (float *)a, lda, ipiv);
}
static ct__la_int ct__la_getrs(ct_dtype dt, char trans, ct__la_int n, ct__la_int nrhs, const void *a, ct__la_int lda,
                               const ct__la_int *ipiv, void *b, ct__la_int ldb) {
    return CT__LA_D(dt) ? LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, trans, n, nrhs, (const double *)a, lda, ipiv, (double *)b, ldb)
                        : LAPACKE_sgetrs_work(LAPACK_COL_MAJOR, trans, n, nrhs, (const float *)a, lda, ipiv, (float *)b, ldb);
}
static ct__la_int ct__la_getri(ct_dtype dt, ct__la_int n, void *a, ct__la_int lda, const ct__la_int *ipiv, void *work, ct__la_int lwork) {
    return CT__LA_D(dt) ? LAPACKE_dgetri_work(LAPACK_COL_MAJOR, n, (double *)a, lda, ipiv, (double *)work, lwork)
                        : LAPACKE_sgetri_work(LAPACK_COL_MAJOR, n, (float *)a, lda, ipiv, (float *)work, lwork);
}
/* workspace queries return the optimal size as a count of elements */
static ct__la_int ct__la_lwork(ct_dtype dt, const void *w) {
    double v = CT__LA_D(dt) ? *(const double *)w : (double)*(const float *)w;
    return (ct__la_int)(v + 0.5) + 1;
}
/* row-major triangular solve on one matrix (CBLAS handles the layout without copies) */
static void ct__la_trsm(ct_dtype dt, int left, int upper, int trans, int unit, int64_t m, int64_t n, const void *a, int64_t lda,
                        void *b, int64_t ldb) {
    if (!m || !n) return;
    if (CT__LA_D(dt))
        cblas_dtrsm(CblasRowMajor, left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower, trans ? CblasTrans : CblasNoTrans,
                    unit ? CblasUnit : CblasNonUnit, (int)m, (int)n, 1.0, (const double *)a, (int)lda, (double *)b, (int)ldb);
    else
        cblas_strsm(CblasRowMajor, left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower, trans ? CblasTrans : CblasNoTrans,
                    unit ? CblasUnit : CblasNonUnit, (int)m, (int)n, 1.0f, (const float *)a, (int)lda, (float *)b, (int)ldb);
}
/* C = A @ B (row-major, contiguous, double) for kernels that need a product */
static void ct__la_gemm_d(int ta, int tb, int64_t m, int64_t n, int64_t k, double alpha, const double *a, int64_t lda,
                          const double *b, int64_t ldb, double beta, double *c, int64_t ldc) {
    if (!m || !n) return;
    cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)m, (int)n, (int)k, alpha, a,
                (int)(lda > 0 ? lda : 1), b, (int)(ldb > 0 ? ldb : 1), beta, c, (int)(ldc > 0 ? ldc : 1));
}

/* ---- complex64 / complex128: LAPACKE's c and z routines, column-major ----
   Complex matrices take one path at every size: a column-major copy (conjugated
   where the math asks), the c/z routine, a strided copy into the output. */
#define CT__LA_CX(dt) ((dt) == CT_COMPLEX64 || (dt) == CT_COMPLEX128)
#define CT__LA_Z(dt) ((dt) == CT_COMPLEX128)
#define CT__LA_ZD(p) ((ct__lapack_cd *)(void *)(p))
#define CT__LA_ZF(p) ((ct__lapack_cf *)(void *)(p))
static ct_dtype ct__la_real_of(ct_dtype dt) { return dt == CT_COMPLEX64 ? CT_FLOAT32 : dt == CT_COMPLEX128 ? CT_FLOAT64 : dt; }
/* the conjugate transpose (mH); the transpose for real tensors */
static ct_tensor *ct__la_mH(const ct_tensor *x) {
    if (!x) return NULL;
    return CT__LA_CX(x->dtype) ? ct_conj(ct_mT(x)) : ct_mT(x);
}
/* dst[i*dr + j*dc] = src[i*sr + j*sc] (conjugated when conj), strides in complex elements */
static void ct__la_zcopy(ct_dtype dt, void *dst, int64_t dr, int64_t dc, const void *src, int64_t sr, int64_t sc, int64_t m,
                         int64_t n, int conj) {
    if (CT__LA_Z(dt)) {
        double *d = (double *)dst;
        const double *s = (const double *)src;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                const double *p = s + 2 * (i * sr + j * sc);
                double *q = d + 2 * (i * dr + j * dc);
                q[0] = p[0];
                q[1] = conj ? -p[1] : p[1];
            }
    } else {
        float *d = (float *)dst;
        const float *s = (const float *)src;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                const float *p = s + 2 * (i * sr + j * sc);
                float *q = d + 2 * (i * dr + j * dc);
                q[0] = p[0];
                q[1] = conj ? -p[1] : p[1];
            }
    }
}
/* matrix of t at element offset off -> column-major dst with leading dimension ld */
static void ct__la_zload(void *dst, int64_t ld, const ct_tensor *t, int64_t off) {
    int nd = t->ndim;
    ct__la_zcopy(t->dtype, dst, 1, ld, ct__la_at(t, off), t->strides[nd - 2], t->strides[nd - 1], t->shape[nd - 2], t->shape[nd - 1], 0);
}
/* column-major src (m x n, leading dimension ld) -> the matrix of t at offset off */
static void ct__la_zstore(ct_tensor *t, int64_t off, const void *src, int64_t ld, int64_t m, int64_t n) {
    int nd = t->ndim;
    ct__la_zcopy(t->dtype, ct__la_at(t, off), t->strides[nd - 2], t->strides[nd - 1], src, 1, ld, m, n, 0);
}
/* element i of a complex buffer as (re, im), and back */
static void ct__la_zget(ct_dtype dt, const void *p, int64_t i, double *re, double *im) {
    if (CT__LA_Z(dt)) { *re = ((const double *)p)[2 * i]; *im = ((const double *)p)[2 * i + 1]; }
    else { *re = ((const float *)p)[2 * i]; *im = ((const float *)p)[2 * i + 1]; }
}
static void ct__la_zset(ct_dtype dt, void *p, int64_t i, double re, double im) {
    if (CT__LA_Z(dt)) { ((double *)p)[2 * i] = re; ((double *)p)[2 * i + 1] = im; }
    else { ((float *)p)[2 * i] = (float)re; ((float *)p)[2 * i + 1] = (float)im; }
}
#define CT__LA_LD(x) ((ct__la_int)((x) > 0 ? (x) : 1))
static ct__la_int ct__la_zpotrf(ct_dtype dt, char uplo, int64_t n, void *a) {
    return CT__LA_Z(dt) ? LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, uplo, (ct__la_int)n, CT__LA_ZD(a), CT__LA_LD(n))
                        : LAPACKE_cpotrf_work(LAPACK_COL_MAJOR, uplo, (ct__la_int)n, CT__LA_ZF(a), CT__LA_LD(n));
}
static ct__la_int ct__la_zgetrf(ct_dtype dt, int64_t m, int64_t n, void *a, ct__la_int *ipiv) {
    return CT__LA_Z(dt) ? LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, (ct__la_int)m, (ct__la_int)n, CT__LA_ZD(a), CT__LA_LD(m), ipiv)
                        : LAPACKE_cgetrf_work(LAPACK_COL_MAJOR, (ct__la_int)m, (ct__la_int)n, CT__LA_ZF(a), CT__LA_LD(m), ipiv);
}
static ct__la_int ct__la_zgetrs(ct_dtype dt, char trans, int64_t n, int64_t k, const void *a, const ct__la_int *ipiv, void *b) {
    return CT__LA_Z(dt) ? LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, trans, (ct__la_int)n, (ct__la_int)k, CT__LA_ZD(a), CT__LA_LD(n), ipiv, CT__LA_ZD(b), CT__LA_LD(n))
                        : LAPACKE_cgetrs_work(LAPACK_COL_MAJOR, trans, (ct__la_int)n, (ct__la_int)k, CT__LA_ZF(a), CT__LA_LD(n), ipiv, CT__LA_ZF(b), CT__LA_LD(n));
}
static ct__la_int ct__la_zgetri(ct_dtype dt, int64_t n, void *a, const ct__la_int *ipiv) {
    return CT__LA_Z(dt) ? LAPACKE_zgetri(LAPACK_COL_MAJOR, (ct__la_int)n, CT__LA_ZD(a), CT__LA_LD(n), ipiv)
                        : LAPACKE_cgetri(LAPACK_COL_MAJOR, (ct__la_int)n, CT__LA_ZF(a), CT__LA_LD(n), ipiv);
}
/* column-major triangular solve op(A) X = B (left) or X op(A) = B; B is m x n */
static void ct__la_ztrsm(ct_dtype dt, int left, int upper, int unit, int64_t m, int64_t n, const void *a, int64_t lda, void *b, int64_t ldb) {
    static const double one_d[2] = {1.0, 0.0};
    static const float one_f[2] = {1.0f, 0.0f};
    if (!m || !n) return;
    if (CT__LA_Z(dt))
        cblas_ztrsm(CblasColMajor, left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower, CblasNoTrans, unit ? CblasUnit : CblasNonUnit,
                    (int)m, (int)n, one_d, a, (int)(lda > 0 ? lda : 1), b, (int)(ldb > 0 ? ldb : 1));
    else
        cblas_ctrsm(CblasColMajor, left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower, CblasNoTrans, unit ? CblasUnit : CblasNonUnit,
                    (int)m, (int)n, one_f, a, (int)(lda > 0 ? lda : 1), b, (int)(ldb > 0 ? ldb : 1));
}

/* ============================================================================
   Small-matrix kernels: double, row-major, n <= CT__LA_SMALL. One call per
   matrix, no allocation; the batch loops around them stay tight.
   ========================================================================== */
/* Cholesky, lower, in place (reads the lower triangle). Returns LAPACK's info. */
static int ct__la_chol_d(double *a, int n) {
    for (int j = 0; j < n; j++) {
        double *aj = a + j * n, d = aj[j];
        for (int k = 0; k < j; k++) d -= aj[k] * aj[k];
        if (!(d > 0.0)) { aj[j] = d; return j + 1; }   /* also catches NaN, as potrf does */
        d = sqrt(d);
        aj[j] = d;
        double r = 1.0 / d;
        for (int i = j + 1; i < n; i++) {
            double *ai = a + i * n, s = ai[j];
            for (int k = 0; k < j; k++) s -= ai[k] * aj[k];
            ai[j] = s * r;
        }
    }
    return 0;
}
/* LU with partial pivoting of an m x n matrix (row stride lda), in place, like
   getrf: piv[k] (0-based) is the row swapped with row k; returns info (1-based
   index of the first exactly zero pivot, 0 if none). */
static int ct__la_lu_d(double *a, int m, int n, int lda, int *piv) {
    int info = 0, k = m < n ? m : n;
    for (int j = 0; j < k; j++) {
        int p = j;
        double mx = fabs(a[j * lda + j]);
        for (int i = j + 1; i < m; i++) {
            double v = fabs(a[i * lda + j]);
            if (v > mx) { mx = v; p = i; }
        }
        piv[j] = p;
        if (a[p * lda + j] != 0.0) {
            if (p != j)
                for (int c = 0; c < n; c++) { double t = a[j * lda + c]; a[j * lda + c] = a[p * lda + c]; a[p * lda + c] = t; }
            double r = 1.0 / a[j * lda + j];
            for (int i = j + 1; i < m; i++) {
                double l = a[i * lda + j] * r;
                a[i * lda + j] = l;
                if (l != 0.0) {
                    const double *aj = a + j * lda;
                    double *ai = a + i * lda;
                    for (int c = j + 1; c < n; c++) ai[c] -= l * aj[c];
                }
            }
        } else if (!info) {
            info = j + 1;
        }
    }
    return info;
}
/* Solves A X = B (trans 0) or A^T X = B (trans 1) with A's LU (n x n, row-major);
   B is n x nrhs, row stride ldb, overwritten by X. */
static void ct__la_lu_solve_d(const double *lu, int n, const int *piv, double *b, int nrhs, int ldb, int trans) {
    if (!trans) {
        for (int k = 0; k < n; k++)
            if (piv[k] != k)
                for (int c = 0; c < nrhs; c++) { double t = b[k * ldb + c]; b[k * ldb + c] = b[piv[k] * ldb + c]; b[piv[k] * ldb + c] = t; }
        for (int i = 1; i < n; i++)          /* L y = P^T b, unit diagonal */
            for (int k = 0; k < i; k++) {
                double l = lu[i * n + k];
                if (l != 0.0) for (int c = 0; c < nrhs; c++) b[i * ldb + c] -= l * b[k * ldb + c];
            }
        for (int i = n - 1; i >= 0; i--) {   /* U x = y */
            for (int k = i + 1; k < n; k++) {
                double u = lu[i * n + k];
                if (u != 0.0) for (int c = 0; c < nrhs; c++) b[i * ldb + c] -= u * b[k * ldb + c];
            }
            double r = 1.0 / lu[i * n + i];
            for (int c = 0; c < nrhs; c++) b[i * ldb + c] *= r;
        }
    } else {
        for (int i = 0; i < n; i++) {        /* U^T y = b */
            for (int k = 0; k < i; k++) {
                double u = lu[k * n + i];
                if (u != 0.0) for (int c = 0; c < nrhs; c++) b[i * ldb + c] -= u * b[k * ldb + c];
            }
            double r = 1.0 / lu[i * n + i];
            for (int c = 0; c < nrhs; c++) b[i * ldb + c] *= r;
        }
        for (int i = n - 2; i >= 0; i--)     /* L^T z = y */
            for (int k = i + 1; k < n; k++) {
                double l = lu[k * n + i];
                if (l != 0.0) for (int c = 0; c < nrhs; c++) b[i * ldb + c] -= l * b[k * ldb + c];
            }
        for (int k = n - 1; k >= 0; k--)     /* x = P z */
            if (piv[k] != k)
                for (int c = 0; c < nrhs; c++) { double t = b[k * ldb + c]; b[k * ldb + c] = b[piv[k] * ldb + c]; b[piv[k] * ldb + c] = t; }
    }
}
/* Eigenvalues w ascending, the columns of v (row-major n x n) following them. */
static void ct__la_eigh_sort_d(double *v, double *w, int n, int want_v) {
    for (int i = 0; i < n - 1; i++) {
        int mi = i;
        for (int j = i + 1; j < n; j++) if (w[j] < w[mi]) mi = j;
        if (mi != i) {
            double t = w[i]; w[i] = w[mi]; w[mi] = t;
            if (want_v) for (int k = 0; k < n; k++) { t = v[k * n + i]; v[k * n + i] = v[k * n + mi]; v[k * n + mi] = t; }
        }
    }
}
/* Cyclic Jacobi for a symmetric n x n matrix a (full, row-major, destroyed):
   eigenvalues ascending in w, eigenvectors as the columns of v (row-major). */
static void ct__la_jacobi_eigh_d(double *a, double *v, double *w, int n, int want_v) {
    double fro2 = 0.0;
    for (int i = 0; i < n * n; i++) fro2 += a[i] * a[i];
    if (want_v) for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) v[i * n + j] = i == j;
    double tol = fro2 * DBL_EPSILON * DBL_EPSILON * 0.25;
    for (int sweep = 0; sweep < 64; sweep++) {
        double off = 0.0;
        for (int i = 0; i < n; i++) for (int j = i + 1; j < n; j++) off += a[i * n + j] * a[i * n + j];
        if (off <= tol || off == 0.0) break;
        for (int p = 0; p < n - 1; p++) {
            for (int q = p + 1; q < n; q++) {
                double apq = a[p * n + q];
                if (apq == 0.0) continue;
                double app = a[p * n + p], aqq = a[q * n + q];
                double theta = (aqq - app) / (2.0 * apq), t;
                if (fabs(theta) > 1e150) t = 0.5 / theta;
                else t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double cs = 1.0 / sqrt(t * t + 1.0), sn = t * cs;
                for (int k = 0; k < n; k++) {         /* A <- A J */
                    double akp = a[k * n + p], akq = a[k * n + q];
                    a[k * n + p] = cs * akp - sn * akq;
                    a[k * n + q] = sn * akp + cs * akq;
                }
                for (int k = 0; k < n; k++) {         /* A <- J^T A */
                    double apk = a[p * n + k], aqk = a[q * n + k];
                    a[p * n + k] = cs * apk - sn * aqk;
                    a[q * n + k] = sn * apk + cs * aqk;
                }
                a[p * n + q] = a[q * n + p] = 0.0;
                a[p * n + p] = app - t * apq;
                a[q * n + q] = aqq + t * apq;
                if (want_v)
                    for (int k = 0; k < n; k++) {
                        double vkp = v[k * n + p], vkq = v[k * n + q];
                        v[k * n + p] = cs * vkp - sn * vkq;
                        v[k * n + q] = sn * vkp + cs * vkq;
                    }
            }
        }
    }
    for (int i = 0; i < n; i++) w[i] = a[i * n + i];
    ct__la_eigh_sort_d(v, w, n, want_v);
}
/* One-sided (Hestenes) Jacobi SVD. cols: the r columns of length len, column j at
   cols + j*len (destroyed: becomes U's columns); vc: r x r, column j at vc + j*r.
   s: r singular values, descending. Returns 1 when a singular value is too small to
   give its singular vector (the caller falls back to LAPACK), else 0. */
static int ct__la_jacobi_svd_finish_d(double *cols, int len, int r, double *vc, double *s, int want_v);
static int ct__la_jacobi_svd_d(double *cols, int len, int r, double *vc, double *s, int want_v) {
    for (int i = 0; i < r * r; i++) vc[i] = 0.0;
    for (int i = 0; i < r; i++) vc[i * r + i] = 1.0;
    for (int sweep = 0; sweep < 64; sweep++) {
        int rotated = 0;
        for (int p = 0; p < r - 1; p++) {
            for (int q = p + 1; q < r; q++) {
                double *ap = cols + p * len, *aq = cols + q * len;
                double al = 0.0, be = 0.0, ga = 0.0;
                for (int i = 0; i < len; i++) { al += ap[i] * ap[i]; be += aq[i] * aq[i]; ga += ap[i] * aq[i]; }
                if (fabs(ga) <= DBL_EPSILON * sqrt(al * be) || ga == 0.0) continue;
                rotated = 1;
                double zeta = (be - al) / (2.0 * ga), t;
                if (fabs(zeta) > 1e150) t = 0.5 / zeta;
                else t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
                double cs = 1.0 / sqrt(1.0 + t * t), sn = cs * t;
                for (int i = 0; i < len; i++) {
                    double x = ap[i], y = aq[i];
                    ap[i] = cs * x - sn * y;
                    aq[i] = sn * x + cs * y;
                }
                double *vp = vc + p * r, *vq = vc + q * r;
                for (int i = 0; i < r; i++) {
                    double x = vp[i], y = vq[i];
                    vp[i] = cs * x - sn * y;
                    vq[i] = sn * x + cs * y;
                }
            }
        }
        if (!rotated) break;
    }
    return ct__la_jacobi_svd_finish_d(cols, len, r, vc, s, want_v);
}
/* The end of a one-sided Jacobi SVD whose sweeps have converged: norms, order,
   and U's columns normalized (the return value as ct__la_jacobi_svd_d's). */
static int ct__la_jacobi_svd_finish_d(double *cols, int len, int r, double *vc, double *s, int want_v) {
    double smax = 0.0;
    for (int j = 0; j < r; j++) {
        double nn = 0.0;
        for (int i = 0; i < len; i++) nn += cols[j * len + i] * cols[j * len + i];
        s[j] = sqrt(nn);
        if (s[j] > smax) smax = s[j];
    }
    for (int i = 0; i < r - 1; i++) {               /* descending, vectors follow */
        int mi = i;
        for (int j = i + 1; j < r; j++) if (s[j] > s[mi]) mi = j;
        if (mi != i) {
            double t = s[i]; s[i] = s[mi]; s[mi] = t;
            for (int k = 0; k < len; k++) { t = cols[i * len + k]; cols[i * len + k] = cols[mi * len + k]; cols[mi * len + k] = t; }
            for (int k = 0; k < r; k++) { t = vc[i * r + k]; vc[i * r + k] = vc[mi * r + k]; vc[mi * r + k] = t; }
        }
    }
    if (!want_v) return 0;
    if (r > 0 && !(s[r - 1] > smax * 64.0 * DBL_EPSILON * r)) return 1;
    for (int j = 0; j < r; j++) {
        double inv = 1.0 / s[j];
        for (int i = 0; i < len; i++) cols[j * len + i] *= inv;
    }
    return 0;
}
static int ct__la_finite_d(const double *a, int64_t n) {
    for (int64_t i = 0; i < n; i++) if (!isfinite(a[i])) return 0;
    return 1;
}

/* ============================================================================
   Batched small-matrix kernels: CT__LA_W matrices (n <= CT__LA_SMALL) in
   lock-step, element (i, j) of lane l at [(i*n + j)*CT__LA_W + l]. Every inner
   loop runs over the lanes, so gcc/clang vectorize them across the batch; each
   lane makes its own decisions (pivots, rotation angles, convergence) through
   selects, so a lane computes what the one-matrix kernel above computes, up to
   rounding. Lanes that end in a failure (not positive-definite, a zero pivot)
   or a special case are redone by the one-matrix kernels, so infos, messages and
   partial results stay those of the one-matrix path.
   ========================================================================== */
#define CT__LA_W 8
#if (defined(__AVX__) || defined(__SSE2__) || defined(_M_X64)) && !defined(CTENSOR_NO_SIMD)
#include <immintrin.h>
#endif
/* x[l] = sqrt(x[l]) for the W lanes (x >= 0). sqrt sets errno for negative
   arguments, so compilers do not vectorize the libm call: the vector
   instruction is written out where there is one. (256-bit also under AVX-512:
   gcc 12's _mm512_sqrt_pd trips -Wmaybe-uninitialized in C++.) */
CT__INLINE void ct__la_sqrt_w(double *x) {
#if defined(__AVX__) && !defined(CTENSOR_NO_SIMD)
    _mm256_storeu_pd(x, _mm256_sqrt_pd(_mm256_loadu_pd(x)));
    _mm256_storeu_pd(x + 4, _mm256_sqrt_pd(_mm256_loadu_pd(x + 4)));
#elif (defined(__SSE2__) || defined(_M_X64)) && !defined(CTENSOR_NO_SIMD)
    for (int l = 0; l < CT__LA_W; l += 2) _mm_storeu_pd(x + l, _mm_sqrt_pd(_mm_loadu_pd(x + l)));
#else
    for (int l = 0; l < CT__LA_W; l++) x[l] = sqrt(x[l]);
#endif
}
/* Loads matrices b0 .. b0+cnt-1 of t (r x k each, read with element strides sr, sc
   from each matrix's start) into lanes; lanes cnt .. W-1 get the identity. */
static void ct__la_load_w(double *dst, const ct_tensor *t, const ct__bat *B, int mdims, int64_t b0, int cnt, int64_t sr, int64_t sc,
                          int64_t r, int64_t k) {
    for (int l = 0; l < CT__LA_W; l++) {
        if (l >= cnt) {
            for (int64_t i = 0; i < r; i++)
                for (int64_t j = 0; j < k; j++) dst[(i * k + j) * CT__LA_W + l] = i == j;
            continue;
        }
        const char *p = ct__la_at(t, ct__bat_off(B, t, mdims, b0 + l));
        if (t->dtype == CT_FLOAT64) {
            const double *q = (const double *)p;
            for (int64_t i = 0; i < r; i++)
                for (int64_t j = 0; j < k; j++) dst[(i * k + j) * CT__LA_W + l] = q[i * sr + j * sc];
        } else {
            const float *q = (const float *)p;
            for (int64_t i = 0; i < r; i++)
                for (int64_t j = 0; j < k; j++) dst[(i * k + j) * CT__LA_W + l] = (double)q[i * sr + j * sc];
        }
    }
}
/* Lane l (r x k) -> dst (dtype dt) with element strides (dr, dc). */
static void ct__la_store_w(void *dst, ct_dtype dt, int64_t dr, int64_t dc, const double *src, int l, int64_t r, int64_t k) {
    if (dt == CT_FLOAT64) {
        double *d = (double *)dst;
        for (int64_t i = 0; i < r; i++)
            for (int64_t j = 0; j < k; j++) d[i * dr + j * dc] = src[(i * k + j) * CT__LA_W + l];
    } else {
        float *d = (float *)dst;
        for (int64_t i = 0; i < r; i++)
            for (int64_t j = 0; j < k; j++) d[i * dr + j * dc] = (float)src[(i * k + j) * CT__LA_W + l];
    }
}
/* Lane l -> a plain row-major r x k matrix. */
static void ct__la_lane_d(double *dst, const double *src, int l, int64_t r, int64_t k) {
    for (int64_t i = 0; i < r * k; i++) dst[i] = src[i * CT__LA_W + l];
}
static int ct__la_lane_finite(const double *a, int l, int64_t nel) {
    for (int64_t i = 0; i < nel; i++) if (!isfinite(a[i * CT__LA_W + l])) return 0;
    return 1;
}
/* Cholesky (lower, in place) of the W lanes; info[l] as ct__la_chol_d's. A lane
   that fails goes on with a pivot of 1 (its result is not used). */
static void ct__la_chol_w(double *CT_RESTRICT a, int n, int *info) {
    enum { W = CT__LA_W };
    double d[W], r[W], sum[W];
    for (int l = 0; l < W; l++) info[l] = 0;
    for (int j = 0; j < n; j++) {
        double *aj = a + (size_t)j * n * W;
        for (int l = 0; l < W; l++) d[l] = aj[j * W + l];
        for (int k = 0; k < j; k++)
            for (int l = 0; l < W; l++) d[l] -= aj[k * W + l] * aj[k * W + l];
        for (int l = 0; l < W; l++) {
            if (!(d[l] > 0.0) && !info[l]) info[l] = j + 1;
            d[l] = d[l] > 0.0 ? d[l] : 1.0;
        }
        ct__la_sqrt_w(d);
        for (int l = 0; l < W; l++) { aj[j * W + l] = d[l]; r[l] = 1.0 / d[l]; }
        for (int i = j + 1; i < n; i++) {
            double *ai = a + (size_t)i * n * W;
            for (int l = 0; l < W; l++) sum[l] = ai[j * W + l];
            for (int k = 0; k < j; k++)
                for (int l = 0; l < W; l++) sum[l] -= ai[k * W + l] * aj[k * W + l];
            for (int l = 0; l < W; l++) ai[j * W + l] = sum[l] * r[l];
        }
    }
}
/* LU with partial pivoting of the W lanes (n x n), as ct__la_lu_d: piv[j*W + l]
   the 0-based row swapped with row j; info[l] nonzero for a zero pivot (that lane's
   result is not used). */
static void ct__la_lu_w(double *CT_RESTRICT a, int n, int *piv, int *info) {
    enum { W = CT__LA_W };
    double mx[W], pf[W], r[W], lv[W];
    for (int l = 0; l < W; l++) info[l] = 0;
    for (int j = 0; j < n; j++) {
        double *aj = a + (size_t)j * n * W;
        for (int l = 0; l < W; l++) { mx[l] = fabs(aj[j * W + l]); pf[l] = j; }
        for (int i = j + 1; i < n; i++) {
            const double *ai = a + ((size_t)i * n + j) * W;
            for (int l = 0; l < W; l++) {
                double v = fabs(ai[l]);
                int gt = v > mx[l];
                mx[l] = gt ? v : mx[l];
                pf[l] = gt ? (double)i : pf[l];
            }
        }
        for (int l = 0; l < W; l++) {
            int p = (int)pf[l];
            piv[j * W + l] = p;
            if (p != j) {
                double *ap = a + (size_t)p * n * W;
                for (int c = 0; c < n; c++) { double t = aj[c * W + l]; aj[c * W + l] = ap[c * W + l]; ap[c * W + l] = t; }
            }
            if (aj[j * W + l] == 0.0 && !info[l]) info[l] = j + 1;
            r[l] = aj[j * W + l] != 0.0 ? 1.0 / aj[j * W + l] : 0.0;
        }
        for (int i = j + 1; i < n; i++) {
            double *ai = a + (size_t)i * n * W;
            for (int l = 0; l < W; l++) { lv[l] = ai[j * W + l] * r[l]; ai[j * W + l] = lv[l]; }
            for (int c = j + 1; c < n; c++)
                for (int l = 0; l < W; l++) ai[c * W + l] -= lv[l] * aj[c * W + l];
        }
    }
}
/* Solves A X = B for the W lanes from ct__la_lu_w's factors; b: n x k per lane. */
static void ct__la_lu_solve_w(const double *CT_RESTRICT lu, int n, const int *piv, double *CT_RESTRICT b, int k) {
    enum { W = CT__LA_W };
    double r[W];
    for (int j = 0; j < n; j++)
        for (int l = 0; l < W; l++) {
            int p = piv[j * W + l];
            if (p != j)
                for (int c = 0; c < k; c++) {
                    double t = b[((size_t)j * k + c) * W + l];
                    b[((size_t)j * k + c) * W + l] = b[((size_t)p * k + c) * W + l];
                    b[((size_t)p * k + c) * W + l] = t;
                }
        }
    for (int i = 1; i < n; i++) {        /* L y = P^T b, unit diagonal */
        double *bi = b + (size_t)i * k * W;
        for (int kk = 0; kk < i; kk++) {
            const double *lik = lu + ((size_t)i * n + kk) * W, *bk = b + (size_t)kk * k * W;
            for (int c = 0; c < k; c++)
                for (int l = 0; l < W; l++) bi[c * W + l] -= lik[l] * bk[c * W + l];
        }
    }
    for (int i = n - 1; i >= 0; i--) {   /* U x = y */
        double *bi = b + (size_t)i * k * W;
        for (int kk = i + 1; kk < n; kk++) {
            const double *uik = lu + ((size_t)i * n + kk) * W, *bk = b + (size_t)kk * k * W;
            for (int c = 0; c < k; c++)
                for (int l = 0; l < W; l++) bi[c * W + l] -= uik[l] * bk[c * W + l];
        }
        for (int l = 0; l < W; l++) r[l] = 1.0 / lu[((size_t)i * n + i) * W + l];
        for (int c = 0; c < k; c++)
            for (int l = 0; l < W; l++) bi[c * W + l] *= r[l];
    }
}
/* The rotation (cs, sn, t) that zeroes an off-diagonal pair: for eigh, theta =
   (aqq - app) / (2 apq); for the one-sided SVD, zeta = (beta - alpha) / (2 gamma).
   Lanes with rot[l] == 0 get the identity (cs 1, sn 0, t 0). x: the numerator,
   y: the off-diagonal (y != 0 where rot). */
CT__INLINE void ct__la_rot_w(const double *x, const double *y, const int *rot, double *cs, double *sn, double *t) {
    enum { W = CT__LA_W };
    double th[W], q[W];
    for (int l = 0; l < W; l++) {
        double den = rot[l] ? 2.0 * y[l] : 1.0;
        th[l] = rot[l] ? x[l] / den : 0.0;
        q[l] = fabs(th[l]) > 1e150 ? 1.0 : th[l] * th[l] + 1.0;
    }
    ct__la_sqrt_w(q);
    for (int l = 0; l < W; l++) {
        double a = fabs(th[l]);
        double tt = a > 1e150 ? 0.5 / th[l] : (th[l] >= 0 ? 1.0 : -1.0) / (a + q[l]);
        t[l] = rot[l] ? tt : 0.0;
        q[l] = t[l] * t[l] + 1.0;
    }
    ct__la_sqrt_w(q);
    for (int l = 0; l < W; l++) { cs[l] = 1.0 / q[l]; sn[l] = t[l] * cs[l]; }
}
/* Cyclic Jacobi (as ct__la_jacobi_eigh_d) on the W lanes: a (symmetric, full) ends
   diagonal, v (if want_v) holds the eigenvectors as columns; unsorted. A lane
   stops rotating once it has converged, as the one-matrix kernel stops. */
static void ct__la_jacobi_eigh_w(double *CT_RESTRICT a, double *CT_RESTRICT v, int n, int want_v) {
    enum { W = CT__LA_W };
    double tol[W], off[W], app[W], aqq[W], apq[W], d[W], cs[W], sn[W], t[W];
    int act[W], rot[W];
    for (int l = 0; l < W; l++) { tol[l] = 0.0; act[l] = 1; }
    for (int i = 0; i < n * n; i++)
        for (int l = 0; l < W; l++) tol[l] += a[i * W + l] * a[i * W + l];
    for (int l = 0; l < W; l++) tol[l] *= DBL_EPSILON * DBL_EPSILON * 0.25;
    if (want_v)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                for (int l = 0; l < W; l++) v[(i * n + j) * W + l] = i == j;
    for (int sweep = 0; sweep < 64; sweep++) {
        int any = 0;
        for (int l = 0; l < W; l++) off[l] = 0.0;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                for (int l = 0; l < W; l++) off[l] += a[(i * n + j) * W + l] * a[(i * n + j) * W + l];
        for (int l = 0; l < W; l++) {
            act[l] = act[l] && !(off[l] <= tol[l] || off[l] == 0.0);
            any |= act[l];
        }
        if (!any) break;
        for (int p = 0; p < n - 1; p++) {
            for (int q = p + 1; q < n; q++) {
                for (int l = 0; l < W; l++) {
                    apq[l] = a[(p * n + q) * W + l];
                    app[l] = a[(p * n + p) * W + l];
                    aqq[l] = a[(q * n + q) * W + l];
                    rot[l] = act[l] && apq[l] != 0.0;
                    d[l] = aqq[l] - app[l];
                }
                ct__la_rot_w(d, apq, rot, cs, sn, t);
                for (int k = 0; k < n; k++) {         /* A <- A J */
                    double *x = a + (k * n + p) * W, *y = a + (k * n + q) * W;
                    for (int l = 0; l < W; l++) {
                        double xp = x[l], yq = y[l];
                        x[l] = cs[l] * xp - sn[l] * yq;
                        y[l] = sn[l] * xp + cs[l] * yq;
                    }
                }
                for (int k = 0; k < n; k++) {         /* A <- J^T A */
                    double *x = a + (p * n + k) * W, *y = a + (q * n + k) * W;
                    for (int l = 0; l < W; l++) {
                        double xp = x[l], yq = y[l];
                        x[l] = cs[l] * xp - sn[l] * yq;
                        y[l] = sn[l] * xp + cs[l] * yq;
                    }
                }
                for (int l = 0; l < W; l++) {
                    double z = rot[l] ? 0.0 : apq[l];
                    a[(p * n + q) * W + l] = z;
                    a[(q * n + p) * W + l] = z;
                    a[(p * n + p) * W + l] = app[l] - t[l] * apq[l];
                    a[(q * n + q) * W + l] = aqq[l] + t[l] * apq[l];
                }
                if (want_v)
                    for (int k = 0; k < n; k++) {
                        double *x = v + (k * n + p) * W, *y = v + (k * n + q) * W;
                        for (int l = 0; l < W; l++) {
                            double xp = x[l], yq = y[l];
                            x[l] = cs[l] * xp - sn[l] * yq;
                            y[l] = sn[l] * xp + cs[l] * yq;
                        }
                    }
            }
        }
    }
}
/* One-sided Jacobi sweeps (as ct__la_jacobi_svd_d) on the W lanes: cols holds r
   columns of length len (column j, entry i at [(j*len + i)*W + l]), vc the r x r
   rotations (column j at [(j*r + i)*W + l]). A lane that no longer rotates is left
   unchanged by later sweeps (its tests give the same answers), so running until
   every lane is done gives each lane the one-matrix result. */
static void ct__la_jacobi_svd_w(double *CT_RESTRICT cols, int len, int r, double *CT_RESTRICT vc) {
    enum { W = CT__LA_W };
    double al[W], be[W], ga[W], d[W], cs[W], sn[W], t[W];
    int rot[W];
    for (int i = 0; i < r * r; i++)
        for (int l = 0; l < W; l++) vc[i * W + l] = i % (r + 1) == 0;
    for (int sweep = 0; sweep < 64; sweep++) {
        int any = 0;
        for (int p = 0; p < r - 1; p++) {
            for (int q = p + 1; q < r; q++) {
                double *ap = cols + (size_t)p * len * W, *aq = cols + (size_t)q * len * W;
                for (int l = 0; l < W; l++) { al[l] = 0.0; be[l] = 0.0; ga[l] = 0.0; }
                for (int i = 0; i < len; i++)
                    for (int l = 0; l < W; l++) {
                        double x = ap[i * W + l], y = aq[i * W + l];
                        al[l] += x * x;
                        be[l] += y * y;
                        ga[l] += x * y;
                    }
                for (int l = 0; l < W; l++) t[l] = al[l] * be[l];
                ct__la_sqrt_w(t);
                int anyp = 0;
                for (int l = 0; l < W; l++) {
                    rot[l] = !(fabs(ga[l]) <= DBL_EPSILON * t[l] || ga[l] == 0.0);
                    anyp |= rot[l];
                    d[l] = be[l] - al[l];
                }
                if (!anyp) continue;
                any = 1;
                ct__la_rot_w(d, ga, rot, cs, sn, t);
                for (int i = 0; i < len; i++)
                    for (int l = 0; l < W; l++) {
                        double x = ap[i * W + l], y = aq[i * W + l];
                        ap[i * W + l] = cs[l] * x - sn[l] * y;
                        aq[i * W + l] = sn[l] * x + cs[l] * y;
                    }
                double *vp = vc + (size_t)p * r * W, *vq = vc + (size_t)q * r * W;
                for (int i = 0; i < r; i++)
                    for (int l = 0; l < W; l++) {
                        double x = vp[i * W + l], y = vq[i * W + l];
                        vp[i * W + l] = cs[l] * x - sn[l] * y;
                        vq[i * W + l] = sn[l] * x + cs[l] * y;
                    }
            }
        }
        if (!any) break;
    }
}

/* A matrix of t (at element offset off) as a row-major matrix for CBLAS/LAPACK:
   t's own memory when one stride is 1 (*tr = 1: the memory holds the transpose),
   else a copy in `scratch` (rows*cols elements of t's dtype). */
static const void *ct__la_rm_view(const ct_tensor *t, int64_t off, void *scratch, int64_t *ld, int *tr) {
    int nd = t->ndim;
    int64_t r = t->shape[nd - 2], k = t->shape[nd - 1], sr = t->strides[nd - 2], sc = t->strides[nd - 1];
    *tr = 0;
    if (sc == 1 || k == 1) {           /* (i, j) at i*ld + j */
        int64_t l = r == 1 ? (k > 0 ? k : 1) : sr;
        if (l >= (k > 1 ? k : 1)) { *ld = l; return ct__la_at(t, off); }
    }
    if (sr == 1 || r == 1) {           /* the transpose: (i, j) at j*ld + i */
        int64_t l = k == 1 ? (r > 0 ? r : 1) : sc;
        if (l >= (r > 1 ? r : 1)) { *tr = 1; *ld = l; return ct__la_at(t, off); }
    }
    ct__la_mcopy(scratch, t->dtype, k, 1, ct__la_at(t, off), t->dtype, sr, sc, r, k);
    *ld = k > 0 ? k : 1;
    return scratch;
}

/* ---- op helpers used by backward rules (written with ctensor ops) ----
   tril/triu/diag_embed: masks and broadcasting products of core ops, so they are
   differentiable to any order. */
static ct_tensor *ct__la_trimask(const ct_tensor *x, int64_t k, int lower) {
    if (!x) return NULL;
    int64_t m = x->shape[x->ndim - 2], n = x->shape[x->ndim - 1];
    ct_tensor *ri = ct_unsqueeze(ct_arange_on(x->device, 0, (double)m, 1, CT_INT64), 1);   /* on x's device (a GPU's too) */
    ct_tensor *ci = ct_arange_on(x->device, 0, (double)n, 1, CT_INT64);
    ct_tensor *d = ct_sub(ci, ri);   /* j - i */
    ct_tensor *mask = lower ? ct_le_scalar(d, (double)k) : ct_ge_scalar(d, (double)k);
    if (ct_dtype_is_complex(x->dtype)) return ct_mul(x, ct_to(mask, x->dtype == CT_COMPLEX64 ? CT_FLOAT32 : CT_FLOAT64));
    return ct_where_scalar(mask, x, 0.0);
}
static ct_tensor *ct__la_tril(const ct_tensor *x, int64_t k) { return ct__la_trimask(x, k, 1); }
static ct_tensor *ct__la_triu(const ct_tensor *x, int64_t k) { return ct__la_trimask(x, k, 0); }
static ct_tensor *ct__la_diag_embed(const ct_tensor *v) {
    if (!v) return NULL;
    int64_t n = v->shape[v->ndim - 1];
    return ct_mul(ct_unsqueeze(v, -1), ct_eye_on(v->device, n, n, v->dtype));
}
static ct_tensor *ct__la_eye_like(const ct_tensor *A) {
    return A ? ct_eye_on(A->device, A->shape[A->ndim - 2], A->shape[A->ndim - 1], A->dtype) : NULL;
}
/* x[..., None, None] */
static ct_tensor *ct__la_unsq2(const ct_tensor *x) { return ct_unsqueeze(ct_unsqueeze(x, -1), -1); }
/* cat of two tensors along dim -1 or -2 (a copy into zeros through views) */
static ct_tensor *ct__la_cat2(const ct_tensor *a, const ct_tensor *b, int dim) {
    if (!a || !b) return NULL;
    int nd = a->ndim, d = dim < 0 ? dim + nd : dim;
    int64_t shape[CT_MAX_DIMS];
    for (int k = 0; k < nd; k++) shape[k] = a->shape[k];
    shape[d] += b->shape[d];
    ct_tensor *out = ct_zeros_on_n(a->device, a->dtype, nd, shape);
    if (!out) return NULL;
    if (!ct_copy_(ct_narrow(out, d, 0, a->shape[d]), a)) return NULL;
    if (!ct_copy_(ct_narrow(out, d, a->shape[d], b->shape[d]), b)) return NULL;
    return out;
}
/* Is every element of g zero? (an output gradient autograd filled in with zeros
   for an unused output: backward rules treat it as absent, as PyTorch's do) */
static int ct__la_all_zero(const ct_tensor *g) {
    if (!g) return 1;
    if (CT__LA_CX(g->dtype)) g = ct_view_as_real(ct_is_conj(g) ? ct_resolve_conj(g) : g);
    if (!g || (g->dtype != CT_FLOAT32 && g->dtype != CT_FLOAT64)) return 0;
    if (g->device.type != CT_CPU) {   /* a device tensor: any() there, one value read back */
        ct_tensor *a = ct_any(g);
        double v = a ? ct_item(a) : 1.0;
        return v == 0.0;
    }
    ct_tensor *c = ct__contig_ref(g);
    if (!c) return 0;
    int64_t n = ct_numel(c);
    int z = 1;
    if (c->dtype == CT_FLOAT64) { const double *p = (const double *)ct__ptr(c); for (int64_t i = 0; i < n && z; i++) z = p[i] == 0.0; }
    else { const float *p = (const float *)ct__ptr(c); for (int64_t i = 0; i < n && z; i++) z = p[i] == 0.0f; }
    ct__decref(c);
    return z;
}
static void ct__la_attrs(ct__attrs *a, int fname, int32_t flags) {
    ct__attrs_init(a);
    a->i[3] = fname + 1;   /* api (CT__LA_NAMES) */
    a->flags = flags;
}
/* runs op E with inputs in[], outputs into out[] (returns the count or -1) */
static int ct__la_dispatch(int E, int nin, ct_tensor *const *in, const ct__attrs *a, ct_tensor **out) {
    return ct__calln(ct__la_base + E, nin, in, a, out);
}
/* Output j of a multi-output op that PyTorch marks non-differentiable. */
static ct_tensor *ct__la_nondiff(ct_tensor *t) {
    if (!t || !(t->flags & CT__F_REQUIRES_GRAD)) return t;
    return ct_detach(t);
}

/* ============================================================================
   Cholesky: torch.linalg.cholesky, cholesky_ex
   ========================================================================== */
/* cholesky and inv: a square (batch of) matrix in, the result and an int32 info per matrix out */
static int ct__la_meta_square_info(ct__call *c) {
    const ct_tensor *A = c->in[0];
    if (ct__la_check_matrix(ct__la_fn(c), A, 1)) return -1;
    c->nout = 2;
    ct__la_out(c, 0, A->dtype, A->ndim, A->shape);
    ct__la_out_b(c, 1, CT_INT32, A->ndim - 2, A->shape, 0, 0, 0);
    return 0;
}
/* in: A (*, n, n); out: L (*, n, n) contiguous, info (*) int32 */
static int ct__la_k_cholesky(ct__call *c) {
    const ct_tensor *A = c->in[0];
    ct_tensor *L = c->out[0];
    int32_t *info = (int32_t *)ct__ptr(c->out[1]);
    int upper = (c->a->flags & CT__LAF_UPPER) != 0, nd = A->ndim;
    int64_t n = A->shape[nd - 1], nn = n * n;
    ct__bat B;
    ct__bat_of(&B, A, 2);
    ct_dtype dt = A->dtype;
    size_t es = ct__dt[dt].size;
    char *Lp = ct__ptr(L);
    if (CT__LA_CX(dt)) {
        /* potrf on the column-major copy; the other triangle zeroed */
        char *w = (char *)ct__la_scratch(es * (size_t)(nn ? nn : 1));
        if (!w) return -1;
        for (int64_t b = 0; b < B.count; b++) {
            ct__la_zload(w, n, A, ct__bat_off(&B, A, 2, b));
            ct__la_int r = n ? ct__la_zpotrf(dt, upper ? 'U' : 'L', n, w) : 0;
            info[b] = r > 0 ? r : 0;
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < n; i++)
                    if (upper ? i > j : i < j) ct__la_zset(dt, w, i + j * n, 0.0, 0.0);
            ct__la_zcopy(dt, Lp + (size_t)(b * nn) * es, n, 1, w, 1, n, n, n, 0);
        }
        CT_FREE(w);
    } else if (n <= CT__LA_SMALL) {
        double w[CT__LA_SMALL * CT__LA_SMALL];
        int64_t sr = A->strides[nd - 2], sc = A->strides[nd - 1];
        if (upper) { int64_t t = sr; sr = sc; sc = t; }   /* the upper triangle of A is the lower one of A^T */
        int64_t nfull = B.count / CT__LA_W * CT__LA_W;   /* whole groups in lock-step; the rest one by one */
        if (nfull) {
            double *lw = (double *)ct__la_scratch(sizeof(double) * (size_t)(nn * CT__LA_W));
            int inf[CT__LA_W];
            if (!lw) return -1;
            for (int64_t b0 = 0; b0 < nfull; b0 += CT__LA_W) {
                ct__la_load_w(lw, A, &B, 2, b0, CT__LA_W, sr, sc, n, n);
                ct__la_chol_w(lw, (int)n, inf);
                for (int l = 0; l < CT__LA_W; l++) {
                    if (inf[l]) continue;   /* redone below by the one-matrix kernel */
                    for (int64_t i = 0; i < n; i++)
                        for (int64_t j = i + 1; j < n; j++) lw[(i * n + j) * CT__LA_W + l] = 0.0;
                    ct__la_store_w(Lp + (size_t)((b0 + l) * nn) * es, dt, upper ? 1 : n, upper ? n : 1, lw, l, n, n);
                }
                for (int l = 0; l < CT__LA_W; l++) info[b0 + l] = inf[l];   /* nonzero: not done yet */
            }
            CT_FREE(lw);
        }
        for (int64_t b = 0; b < B.count; b++) {
            if (b < nfull && !info[b]) continue;
            ct__la_mcopy(w, CT_FLOAT64, n, 1, ct__la_at(A, ct__bat_off(&B, A, 2, b)), dt, sr, sc, n, n);
            info[b] = ct__la_chol_d(w, (int)n);
            for (int64_t i = 0; i < n; i++)          /* zero the other triangle (and what a failure left) */
                for (int64_t j = i + 1; j < n; j++) w[i * n + j] = 0.0;
            if (info[b]) for (int64_t i = info[b] - 1; i < n; i++) for (int64_t j = info[b] - 1; j <= i; j++) w[i * n + j] = 0.0;
            ct__la_mcopy(Lp + (size_t)(b * nn) * es, dt, upper ? 1 : n, upper ? n : 1, w, CT_FLOAT64, n, 1, n, n);
        }
    } else {
        /* row-major A is column-major A^T: potrf('U') on it reads A's lower triangle
           and leaves L row-major in place; potrf('L') gives U for upper=True */
        for (int64_t b = 0; b < B.count; b++) {
            char *dst = Lp + (size_t)(b * nn) * es;
            ct__la_load(dst, dt, n, 1, A, ct__bat_off(&B, A, 2, b));
            ct__la_int r = ct__la_potrf(dt, upper ? 'L' : 'U', (ct__la_int)n, dst, (ct__la_int)n);
            info[b] = r > 0 ? r : 0;
            ct__la_zero_tri(dst, dt, n, n, !upper);
        }
    }
    if (c->a->flags & CT__LAF_CHECK) {
        int64_t bad = 0;
        int v = ct__la_first_bad(info, B.count, &bad);
        if (v)
            return ct__failed(CT_ERR_NUMERIC, "%s: %sThe factorization could not be completed because the input is not positive-definite (the leading minor of order %d is not positive-definite).",
                              ct__la_fn(c), ct__la_batch_prefix(nd > 2, bad).s, v);
    }
    return 0;
}
/* PyTorch's cholesky_backward (Iain Murray 2016, arXiv 1602.07527):
   gA = L^{-H} Phi(L^H gL) L^{-1}, symmetrized */
static int ct__la_bw_cholesky(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *L = CT__SV_OUT(n, 0), *gL = gout[0];
    if (!L) return -1;
    if (n->attrs.flags & CT__LAF_UPPER) { L = ct__la_mH(L); gL = ct__la_mH(gL); }
    ct_tensor *gA = ct__la_tril(ct_matmul(ct__la_mH(L), gL), 0);
    gA = ct_mul_scalar(ct_add(gA, ct__la_mH(ct__la_tril(gA, -1))), 0.5);
    gA = ct_linalg_solve_triangular(ct__la_mH(L), gA, 1, 1, 0);
    gA = ct_linalg_solve_triangular(L, gA, 0, 0, 0);
    gin[0] = gA;
    return gA ? 0 : -1;
}
static ct_tensor *ct__la_cholesky(const ct_tensor *A, int upper, int check, ct_tensor **info, int fname) {
    CT__LA_INIT_OR(NULL);
    ct__attrs a;
    ct__la_attrs(&a, fname, (upper ? CT__LAF_UPPER : 0) | (check ? CT__LAF_CHECK : 0));
    ct_tensor *in[1], *out[2];
    in[0] = (ct_tensor *)A;
    if (ct__la_dispatch(CT__LA_CHOLESKY, 1, in, &a, out) < 0) { if (info) *info = NULL; return NULL; }
    if (info) *info = out[1];
    return out[0];
}
CTENSOR_API ct_tensor *ct_linalg_cholesky(const ct_tensor *A) { return ct__la_cholesky(A, 0, 1, NULL, CT__LAN_CHOLESKY); }
CTENSOR_API ct_tensor *ct_linalg_cholesky_ex(const ct_tensor *A, int upper, int check_errors, ct_tensor **info) {
    return ct__la_cholesky(A, upper, check_errors, info, CT__LAN_CHOLESKY_EX);
}

/* ============================================================================
   Inverse: torch.linalg.inv, inv_ex
   ========================================================================== */
static int ct__la_k_inv(ct__call *c) {
    const ct_tensor *A = c->in[0];
    ct_tensor *X = c->out[0];
    int32_t *info = (int32_t *)ct__ptr(c->out[1]);
    int nd = A->ndim;
    int64_t n = A->shape[nd - 1], nn = n * n;
    ct__bat B;
    ct__bat_of(&B, A, 2);
    ct_dtype dt = A->dtype;
    size_t es = ct__dt[dt].size;
    char *Xp = ct__ptr(X);
    if (CT__LA_CX(dt)) {
        /* getrf + getri on the column-major copy */
        char *w = (char *)ct__la_scratch(es * (size_t)(nn ? nn : 1));
        ct__la_int *ipiv = (ct__la_int *)ct__la_scratch(sizeof(ct__la_int) * (size_t)(n + 1));
        if (!w || !ipiv) { CT_FREE(w); CT_FREE(ipiv); return -1; }
        for (int64_t b = 0; b < B.count; b++) {
            ct__la_zload(w, n, A, ct__bat_off(&B, A, 2, b));
            ct__la_int r = n ? ct__la_zgetrf(dt, n, n, w, ipiv) : 0;
            info[b] = r > 0 ? r : 0;
            if (!info[b] && n) ct__la_zgetri(dt, n, w, ipiv);
            ct__la_zcopy(dt, Xp + (size_t)(b * nn) * es, n, 1, w, 1, n, n, n, 0);
        }
        CT_FREE(w);
        CT_FREE(ipiv);
    } else if (n <= CT__LA_SMALL) {
        double w[CT__LA_SMALL * CT__LA_SMALL], e[CT__LA_SMALL * CT__LA_SMALL];
        int piv[CT__LA_SMALL];
        int64_t nfull = B.count / CT__LA_W * CT__LA_W;   /* whole groups in lock-step; the rest one by one */
        if (nfull) {
            double *lw = (double *)ct__la_scratch(sizeof(double) * (size_t)(2 * nn * CT__LA_W)), *le = lw + nn * CT__LA_W;
            int inf[CT__LA_W], lp[CT__LA_SMALL * CT__LA_W];
            if (!lw) return -1;
            for (int64_t b0 = 0; b0 < nfull; b0 += CT__LA_W) {
                ct__la_load_w(lw, A, &B, 2, b0, CT__LA_W, A->strides[nd - 2], A->strides[nd - 1], n, n);
                ct__la_lu_w(lw, (int)n, lp, inf);
                for (int64_t i = 0; i < nn; i++)
                    for (int l = 0; l < CT__LA_W; l++) le[i * CT__LA_W + l] = i % (n + 1) == 0;
                ct__la_lu_solve_w(lw, (int)n, lp, le, (int)n);
                for (int l = 0; l < CT__LA_W; l++) {
                    info[b0 + l] = inf[l];   /* nonzero: redone below by the one-matrix kernel */
                    if (!inf[l]) ct__la_store_w(Xp + (size_t)((b0 + l) * nn) * es, dt, n, 1, le, l, n, n);
                }
            }
            CT_FREE(lw);
        }
        for (int64_t b = 0; b < B.count; b++) {
            if (b < nfull && !info[b]) continue;
            ct__la_load(w, CT_FLOAT64, n, 1, A, ct__bat_off(&B, A, 2, b));
            info[b] = ct__la_lu_d(w, (int)n, (int)n, (int)n, piv);
            for (int64_t i = 0; i < nn; i++) e[i] = 0.0;
            for (int64_t i = 0; i < n; i++) e[i * n + i] = 1.0;
            if (!info[b]) ct__la_lu_solve_d(w, (int)n, piv, e, (int)n, (int)n, 0);
            ct__la_mcopy(Xp + (size_t)(b * nn) * es, dt, n, 1, e, CT_FLOAT64, n, 1, n, n);
        }
    } else {
        /* getrf + getri on the row-major copy: (A^T)^{-1} = (A^{-1})^T, so the
           column-major result is A^{-1} row-major */
        ct__la_int *ipiv = (ct__la_int *)ct__la_scratch(sizeof(ct__la_int) * (size_t)n);
        double q = 0;
        if (!ipiv) return -1;
        memset(ipiv, 0, sizeof(ct__la_int) * (size_t)n);
        ct__la_getri(dt, (ct__la_int)n, Xp, (ct__la_int)n, ipiv, &q, -1);
        ct__la_int lwork = ct__la_lwork(dt, &q);
        void *work = ct__la_scratch(es * (size_t)lwork);
        if (!work) { CT_FREE(ipiv); return -1; }
        for (int64_t b = 0; b < B.count; b++) {
            char *dst = Xp + (size_t)(b * nn) * es;
            ct__la_load(dst, dt, n, 1, A, ct__bat_off(&B, A, 2, b));
            ct__la_int r = ct__la_getrf(dt, (ct__la_int)n, (ct__la_int)n, dst, (ct__la_int)n, ipiv);
            info[b] = r > 0 ? r : 0;
            if (!info[b]) ct__la_getri(dt, (ct__la_int)n, dst, (ct__la_int)n, ipiv, work, lwork);
        }
        CT_FREE(work);
        CT_FREE(ipiv);
    }
    if (c->a->flags & CT__LAF_CHECK) {
        int64_t bad = 0;
        int v = ct__la_first_bad(info, B.count, &bad);
        if (v)
            return ct__failed(CT_ERR_NUMERIC, "%s: %sThe diagonal element %d is zero, the inversion could not be completed because the input matrix is singular.",
                              ct__la_fn(c), ct__la_batch_prefix(nd > 2, bad).s, v);
    }
    return 0;
}
/* gA = -A^{-H} gX A^{-H} */
static int ct__la_bw_inv(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *X = CT__SV_OUT(n, 0);
    if (!X) return -1;
    ct_tensor *Xt = ct__la_mH(X);
    gin[0] = ct_neg(ct_matmul(Xt, ct_matmul(gout[0], Xt)));
    return gin[0] ? 0 : -1;
}
static ct_tensor *ct__la_inv(const ct_tensor *A, int check, ct_tensor **info, int fname) {
    CT__LA_INIT_OR(NULL);
    ct__attrs a;
    ct__la_attrs(&a, fname, check ? CT__LAF_CHECK : 0);
    ct_tensor *in[1], *out[2];
    in[0] = (ct_tensor *)A;
    if (ct__la_dispatch(CT__LA_INV, 1, in, &a, out) < 0) { if (info) *info = NULL; return NULL; }
    if (info) *info = out[1];
    return out[0];
}
CTENSOR_API ct_tensor *ct_linalg_inv(const ct_tensor *A) { return ct__la_inv(A, 1, NULL, CT__LAN_INV); }
CTENSOR_API ct_tensor *ct_linalg_inv_ex(const ct_tensor *A, int check_errors, ct_tensor **info) {
    return ct__la_inv(A, check_errors, info, CT__LAN_INV_EX);
}

/* ============================================================================
   Linear systems: torch.linalg.solve, solve_ex (left = True; left = False is
   solved as the transposed system by the public function)
   ========================================================================== */
/* PyTorch's linalg_solve_is_vector_rhs (meta, kernel and backward ask it) */
static int ct__la_vector_rhs_of(int and_, const int64_t *ashape, int bnd, const int64_t *bshape) {
    if (bnd == 1) return 1;
    if (bnd != and_ - 1) return 0;
    for (int d = 0; d < bnd; d++) if (bshape[d] != ashape[d]) return 0;
    return 1;
}
static int ct__la_vector_rhs(const ct_tensor *A, const ct_tensor *B) { return ct__la_vector_rhs_of(A->ndim, A->shape, B->ndim, B->shape); }
static int ct__la_meta_solve(ct__call *c) {
    const ct_tensor *A = c->in[0], *B = c->in[1];
    const char *fn = ct__la_fn(c);
    if (ct__la_check_matrix(fn, A, 1) || ct__la_same_dtype(fn, A, B)) return -1;
    int nd = A->ndim;
    int64_t n = A->shape[nd - 1];
    if (B->ndim < 1) return ct__failed(CT_ERR_SHAPE, "%s: The input tensor B must have at least 1 dimensions.", fn);
    int vec = ct__la_vector_rhs(A, B);
    int64_t brows = vec ? B->shape[B->ndim - 1] : B->shape[B->ndim - 2], bcols = vec ? 1 : B->shape[B->ndim - 1];
    if (brows != n)
        return ct__failed(CT_ERR_SHAPE, "%s: Incompatible shapes of A and B for the equation AX = B (%lldx%lld and %lldx%lld)", fn,
                          (long long)n, (long long)n, (long long)brows, (long long)bcols);
    int nb;
    int64_t bs[CT_MAX_DIMS];
    if (ct__la_bcast_batch(fn, A, 2, B, vec ? 1 : 2, &nb, bs)) return -1;
    c->nout = 2;
    if (vec) ct__la_out_b(c, 0, A->dtype, nb, bs, 1, n, 0);
    else if (n > CT__LA_SMALL) ct__la_out_colmajor(c, 0, A->dtype, nb, bs, n, bcols);  /* getrs writes in place */
    else ct__la_out_b(c, 0, A->dtype, nb, bs, 2, n, bcols);
    ct__la_out_b(c, 1, CT_INT32, nb, bs, 0, 0, 0);
    return 0;
}
static int ct__la_k_solve(ct__call *c) {
    const ct_tensor *A = c->in[0], *Bt = c->in[1];
    ct_tensor *X = c->out[0];
    int32_t *info = (int32_t *)ct__ptr(c->out[1]);
    int vec = ct__la_vector_rhs(A, Bt), nd = A->ndim, xd = X->ndim;
    int64_t n = A->shape[nd - 1], k = vec ? 1 : X->shape[xd - 1], nn = n * n;
    int bmd = vec ? 1 : 2;
    ct__bat B;
    ct__bat_of(&B, X, bmd);
    ct_dtype dt = A->dtype;
    size_t es = ct__dt[dt].size;
    /* B's matrix strides (a vector is an n x 1 matrix) */
    int64_t bsr = vec ? Bt->strides[Bt->ndim - 1] : Bt->strides[Bt->ndim - 2], bsc = vec ? 0 : Bt->strides[Bt->ndim - 1];
    int64_t xsr = vec ? X->strides[xd - 1] : X->strides[xd - 2], xsc = vec ? 0 : X->strides[xd - 1];
    if (CT__LA_CX(dt)) {
        /* getrf + getrs('N') on column-major copies */
        char *lu = (char *)ct__la_scratch(es * (size_t)(nn + n * k + 1));
        ct__la_int *ipiv = (ct__la_int *)ct__la_scratch(sizeof(ct__la_int) * (size_t)(n + 1));
        if (!lu || !ipiv) { CT_FREE(lu); CT_FREE(ipiv); return -1; }
        char *rhs = lu + (size_t)nn * es;
        for (int64_t b = 0; b < B.count; b++) {
            ct__la_zload(lu, n, A, ct__bat_off(&B, A, 2, b));
            ct__la_int r = n ? ct__la_zgetrf(dt, n, n, lu, ipiv) : 0;
            info[b] = r > 0 ? r : 0;
            ct__la_zcopy(dt, rhs, 1, n, ct__la_at(Bt, ct__bat_off(&B, Bt, bmd, b)), bsr, bsc, n, k, 0);
            if (!info[b] && n && k) ct__la_zgetrs(dt, 'N', n, k, lu, ipiv, rhs);
            ct__la_zcopy(dt, ct__la_at(X, ct__bat_off(&B, X, bmd, b)), xsr, xsc, rhs, 1, n, n, k, 0);
        }
        CT_FREE(lu);
        CT_FREE(ipiv);
    } else if (n <= CT__LA_SMALL) {
        double w[CT__LA_SMALL * CT__LA_SMALL];
        int piv[CT__LA_SMALL];
        double *rhs = (double *)ct__la_scratch(sizeof(double) * (size_t)(n * k));
        if (!rhs) return -1;
        int64_t nfull = B.count / CT__LA_W * CT__LA_W;   /* whole groups in lock-step; the rest one by one */
        if (nfull) {
            double *lw = (double *)ct__la_scratch(sizeof(double) * (size_t)((nn + n * k) * CT__LA_W)), *lb = lw + nn * CT__LA_W;
            int inf[CT__LA_W], lp[CT__LA_SMALL * CT__LA_W];
            if (!lw) { CT_FREE(rhs); return -1; }
            for (int64_t b0 = 0; b0 < nfull; b0 += CT__LA_W) {
                ct__la_load_w(lw, A, &B, 2, b0, CT__LA_W, A->strides[nd - 2], A->strides[nd - 1], n, n);
                ct__la_load_w(lb, Bt, &B, bmd, b0, CT__LA_W, bsr, bsc, n, k);
                ct__la_lu_w(lw, (int)n, lp, inf);
                ct__la_lu_solve_w(lw, (int)n, lp, lb, (int)k);
                for (int l = 0; l < CT__LA_W; l++) {
                    info[b0 + l] = inf[l];   /* nonzero: redone below by the one-matrix kernel */
                    if (!inf[l]) ct__la_store_w(ct__la_at(X, ct__bat_off(&B, X, bmd, b0 + l)), dt, xsr, xsc, lb, l, n, k);
                }
            }
            CT_FREE(lw);
        }
        for (int64_t b = 0; b < B.count; b++) {
            if (b < nfull && !info[b]) continue;
            ct__la_load(w, CT_FLOAT64, n, 1, A, ct__bat_off(&B, A, 2, b));
            info[b] = ct__la_lu_d(w, (int)n, (int)n, (int)n, piv);
            ct__la_mcopy(rhs, CT_FLOAT64, k, 1, ct__la_at(Bt, ct__bat_off(&B, Bt, bmd, b)), dt, bsr, bsc, n, k);
            if (!info[b]) ct__la_lu_solve_d(w, (int)n, piv, rhs, (int)k, (int)k, 0);
            ct__la_mcopy(ct__la_at(X, ct__bat_off(&B, X, bmd, b)), dt, xsr, xsc, rhs, CT_FLOAT64, k, 1, n, k);
        }
        CT_FREE(rhs);
    } else {
        /* getrf of the row-major copy (= A^T column-major), then getrs('T') solves
           A X = B into X's own column-major memory */
        ct__la_int *ipiv = (ct__la_int *)ct__la_scratch(sizeof(ct__la_int) * (size_t)n);
        void *lu = ct__la_scratch(es * (size_t)nn);
        if (!ipiv || !lu) { CT_FREE(ipiv); CT_FREE(lu); return -1; }
        for (int64_t b = 0; b < B.count; b++) {
            ct__la_load(lu, dt, n, 1, A, ct__bat_off(&B, A, 2, b));
            ct__la_int r = ct__la_getrf(dt, (ct__la_int)n, (ct__la_int)n, lu, (ct__la_int)n, ipiv);
            info[b] = r > 0 ? r : 0;
            char *xp = ct__la_at(X, ct__bat_off(&B, X, bmd, b));
            ct__la_mcopy(xp, dt, 1, n, ct__la_at(Bt, ct__bat_off(&B, Bt, bmd, b)), dt, bsr, bsc, n, k);
            if (!info[b]) ct__la_getrs(dt, 'T', (ct__la_int)n, (ct__la_int)k, lu, (ct__la_int)n, ipiv, xp, (ct__la_int)n);
        }
        CT_FREE(lu);
        CT_FREE(ipiv);
    }
    if (c->a->flags & CT__LAF_CHECK) {
        int64_t bad = 0;
        if (ct__la_first_bad(info, B.count, &bad))
            return ct__failed(CT_ERR_NUMERIC, "torch.%s: %sThe solver failed because the input matrix is singular.", ct__la_fn(c),
                              ct__la_batch_prefix(B.nb > 0, bad).s);
    }
    return 0;
}
/* gB = A^{-H} gX, gA = -gB X^H (PyTorch's linalg_solve_backward) */
static int ct__la_bw_solve(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *A = CT__SV_IN(n, 0), *X = CT__SV_OUT(n, 0);
    if (!A || !X) return -1;
    int vec = ct__la_vector_rhs_of(n->in_meta[0].ndim, n->in_meta[0].shape, n->in_meta[1].ndim, n->in_meta[1].shape);
    ct_tensor *gX = vec ? ct_unsqueeze(gout[0], -1) : gout[0];
    ct_tensor *Xm = vec ? ct_unsqueeze(X, -1) : X;
    ct_tensor *gB = ct_linalg_solve(ct__la_mH(A), gX);
    if (!gB) return -1;
    if (CT__NEEDS(n, 0) && !(gin[0] = ct_neg(ct_matmul(gB, ct__la_mH(Xm))))) return -1;
    if (CT__NEEDS(n, 1) && !(gin[1] = vec ? ct_squeeze_dim(gB, -1) : gB)) return -1;
    return 0;
}
static ct_tensor *ct__la_solve(const ct_tensor *A, const ct_tensor *B, int left, int check, ct_tensor **info, int fname) {
    CT__LA_INIT_OR(NULL);
    if (info) *info = NULL;
    if (!A || !B) { ct__null_arg(ct__la_fnames[fname], A ? 1 : 0); return NULL; }
    ct__attrs a;
    ct__la_attrs(&a, fname, check ? CT__LAF_CHECK : 0);
    ct_tensor *in[2], *out[2];
    if (left) {
        in[0] = (ct_tensor *)A;
        in[1] = (ct_tensor *)B;
        if (ct__la_dispatch(CT__LA_SOLVE, 2, in, &a, out) < 0) return NULL;
        if (info) *info = out[1];
        return out[0];
    }
    /* X A = B  <=>  A^T X^T = B^T (B is a matrix here, as in PyTorch) */
    if (B->ndim < 2) return ct__fail(CT_ERR_SHAPE, "%s: The input tensor B must have at least 2 dimensions.", ct__la_fnames[fname]);
    in[0] = ct_mT(A);
    in[1] = ct_mT(B);
    if (!in[0] || !in[1]) return NULL;
    if (ct__la_dispatch(CT__LA_SOLVE, 2, in, &a, out) < 0) return NULL;
    if (info) *info = out[1];
    return ct_mT(out[0]);
}
CTENSOR_API ct_tensor *ct_linalg_solve(const ct_tensor *A, const ct_tensor *B) { return ct__la_solve(A, B, 1, 1, NULL, CT__LAN_SOLVE); }
CTENSOR_API ct_tensor *ct_linalg_solve_ex(const ct_tensor *A, const ct_tensor *B, int left, int check_errors, ct_tensor **info) {
    return ct__la_solve(A, B, left, check_errors, info, CT__LAN_SOLVE_EX);
}

/* ============================================================================
   Triangular systems: torch.linalg.solve_triangular (CBLAS trsm, no copy of A
   when one of its strides is 1)
   ========================================================================== */
static int ct__la_meta_solve_tri(ct__call *c) {
    const ct_tensor *A = c->in[0], *Bt = c->in[1];
    const char *fn = ct__la_fn(c);
    int left = (c->a->flags & CT__LAF_LEFT) != 0;
    if (ct__la_check_matrix(fn, A, 1) || ct__la_same_dtype(fn, A, Bt)) return -1;
    if (Bt->ndim < 2) return ct__failed(CT_ERR_SHAPE, "%s: The input tensor B must have at least 2 dimensions.", fn);
    int64_t n = A->shape[A->ndim - 1], br = Bt->shape[Bt->ndim - 2], bc = Bt->shape[Bt->ndim - 1];
    if ((left ? br : bc) != n) {
        if (left)
            return ct__failed(CT_ERR_SHAPE, "%s: Incompatible shapes of A and B for the equation AX = B (%lldx%lld and %lldx%lld)", fn,
                              (long long)n, (long long)n, (long long)br, (long long)bc);
        return ct__failed(CT_ERR_SHAPE, "%s: Incompatible shapes of A and B for the equation XA = B (%lldx%lld and %lldx%lld)", fn,
                          (long long)n, (long long)n, (long long)br, (long long)bc);
    }
    int nb;
    int64_t bs[CT_MAX_DIMS];
    if (ct__la_bcast_batch(fn, A, 2, Bt, 2, &nb, bs)) return -1;
    c->nout = 1;
    ct__la_out_b(c, 0, A->dtype, nb, bs, 2, br, bc);
    return 0;
}
static int ct__la_k_solve_tri(ct__call *c) {
    const ct_tensor *A = c->in[0], *Bt = c->in[1];
    ct_tensor *X = c->out[0];
    int fl = c->a->flags, left = (fl & CT__LAF_LEFT) != 0, upper = (fl & CT__LAF_UPPER) != 0, unit = (fl & CT__LAF_UNIT) != 0;
    int xd = X->ndim;
    int64_t r = X->shape[xd - 2], k = X->shape[xd - 1], n = A->shape[A->ndim - 1];
    ct__bat B;
    ct__bat_of(&B, X, 2);
    ct_dtype dt = A->dtype;
    size_t es = ct__dt[dt].size;
    char *Xp = ct__ptr(X);
    if (CT__LA_CX(dt)) {   /* trsm on column-major copies */
        char *a = (char *)ct__la_scratch(es * (size_t)(n * n + r * k + 1)), *xb;
        if (!a) return -1;
        xb = a + (size_t)(n * n) * es;
        for (int64_t b = 0; b < B.count; b++) {
            ct__la_zload(a, n, A, ct__bat_off(&B, A, 2, b));
            ct__la_zload(xb, r, Bt, ct__bat_off(&B, Bt, 2, b));
            ct__la_ztrsm(dt, left, upper, unit, r, k, a, n, xb, r);
            ct__la_zcopy(dt, Xp + (size_t)(b * r * k) * es, k, 1, xb, 1, r, r, k, 0);
        }
        CT_FREE(a);
        return 0;
    }
    void *scratch = ct__la_scratch(es * (size_t)(n * n));
    if (!scratch) return -1;
    for (int64_t b = 0; b < B.count; b++) {
        char *xp = Xp + (size_t)(b * r * k) * es;
        ct__la_load(xp, dt, k, 1, Bt, ct__bat_off(&B, Bt, 2, b));
        int64_t lda;
        int tr;
        const void *ap = ct__la_rm_view(A, ct__bat_off(&B, A, 2, b), scratch, &lda, &tr);
        /* memory holding A^T: solve with op(A) = (A^T)^T and the other triangle */
        ct__la_trsm(dt, left, tr ? !upper : upper, tr, unit, r, k, ap, lda, xp, k > 0 ? k : 1);
    }
    CT_FREE(scratch);
    return 0;
}
/* PyTorch's linalg_solve_triangular_backward */
static int ct__la_bw_solve_tri(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *A = CT__SV_IN(n, 0), *X = CT__SV_OUT(n, 0);
    if (!A || !X) return -1;
    int fl = n->attrs.flags, left = (fl & CT__LAF_LEFT) != 0, upper = (fl & CT__LAF_UPPER) != 0, unit = (fl & CT__LAF_UNIT) != 0;
    ct_tensor *gB = ct_linalg_solve_triangular(ct__la_mH(A), gout[0], !upper, left, unit);
    if (!gB) return -1;
    if (CT__NEEDS(n, 0)) {
        ct_tensor *gA = left ? ct_neg(ct_matmul(gB, ct__la_mH(X))) : ct_neg(ct_matmul(ct__la_mH(X), gB));
        gA = upper ? ct__la_triu(gA, unit) : ct__la_tril(gA, -unit);
        if (!(gin[0] = gA)) return -1;
    }
    if (CT__NEEDS(n, 1)) gin[1] = gB;
    return 0;
}
CTENSOR_API ct_tensor *ct_linalg_solve_triangular(const ct_tensor *A, const ct_tensor *B, int upper, int left, int unitriangular) {
    CT__LA_INIT_OR(NULL);
    ct__attrs a;
    ct__la_attrs(&a, CT__LAN_SOLVE_TRI, (upper ? CT__LAF_UPPER : 0) | (left ? CT__LAF_LEFT : 0) | (unitriangular ? CT__LAF_UNIT : 0));
    ct_tensor *in[2], *out[1];
    in[0] = (ct_tensor *)A;
    in[1] = (ct_tensor *)B;
    return ct__la_dispatch(CT__LA_SOLVE_TRI, 2, in, &a, out) < 0 ? NULL : out[0];
}

/* ============================================================================
   LU: torch.linalg.lu_factor, lu_factor_ex, lu, lu_solve
   ========================================================================== */
CT_STATIC_ASSERT(sizeof(ct__la_int) == sizeof(int32_t), "pivots are int32 (LP64 LAPACK)");
static int ct__la_meta_lu_factor(ct__call *c) {
    const ct_tensor *A = c->in[0];
    const char *fn = ct__la_fn(c);
    if (A->ndim < 2)
        return ct__failed(CT_ERR_SHAPE, "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: %s instead", CT__SHAPE(A));
    if (ct__la_check_dtype(fn, A)) return -1;
    if (!(c->a->flags & CT__LAF_PIVOT))
        return ct__failed(CT_ERR_UNSUPPORTED, "%s: LU without pivoting is not implemented on the CPU", fn);
    int nb = A->ndim - 2;
    int64_t m = A->shape[nb], n = A->shape[nb + 1];
    c->nout = 3;
    ct__la_out_colmajor(c, 0, A->dtype, nb, A->shape, m, n);
    ct__la_out_b(c, 1, CT_INT32, nb, A->shape, 1, m < n ? m : n, 0);
    ct__la_out_b(c, 2, CT_INT32, nb, A->shape, 0, 0, 0);
    return 0;
}
static int ct__la_k_lu_factor(ct__call *c) {
    const ct_tensor *A = c->in[0];
    ct_tensor *LU = c->out[0];
    int32_t *piv = (int32_t *)ct__ptr(c->out[1]), *info = (int32_t *)ct__ptr(c->out[2]);
    int nd = A->ndim;
    int64_t m = A->shape[nd - 2], n = A->shape[nd - 1], k = m < n ? m : n;
    ct__bat B;
    ct__bat_of(&B, A, 2);
    ct_dtype dt = A->dtype;
    size_t es = ct__dt[dt].size;
    char *LUp = ct__ptr(LU);
    if (CT__LA_CX(dt)) {   /* getrf in place on the column-major copy */
        for (int64_t b = 0; b < B.count; b++) {
            char *dst = LUp + (size_t)(b * m * n) * es;
            ct__la_zload(dst, m, A, ct__bat_off(&B, A, 2, b));
            ct__la_int r = m && n ? ct__la_zgetrf(dt, m, n, dst, piv + b * k) : 0;
            info[b] = r > 0 ? r : 0;
        }
    } else if (m <= CT__LA_SMALL && n <= CT__LA_SMALL) {
        double w[CT__LA_SMALL * CT__LA_SMALL];
        int p[CT__LA_SMALL];
        int64_t nfull = m == n ? B.count / CT__LA_W * CT__LA_W : 0;   /* square: whole groups in lock-step */
        if (nfull) {
            double *lw = (double *)ct__la_scratch(sizeof(double) * (size_t)(m * n * CT__LA_W));
            int inf[CT__LA_W], lp[CT__LA_SMALL * CT__LA_W];
            if (!lw) return -1;
            for (int64_t b0 = 0; b0 < nfull; b0 += CT__LA_W) {
                ct__la_load_w(lw, A, &B, 2, b0, CT__LA_W, A->strides[nd - 2], A->strides[nd - 1], n, n);
                ct__la_lu_w(lw, (int)n, lp, inf);
                for (int l = 0; l < CT__LA_W; l++) {
                    info[b0 + l] = inf[l];   /* nonzero: redone below by the one-matrix kernel */
                    if (inf[l]) continue;
                    for (int64_t i = 0; i < k; i++) piv[(b0 + l) * k + i] = lp[i * CT__LA_W + l] + 1;
                    ct__la_store_w(LUp + (size_t)((b0 + l) * m * n) * es, dt, 1, m, lw, l, m, n);
                }
            }
            CT_FREE(lw);
        }
        for (int64_t b = 0; b < B.count; b++) {
            if (b < nfull && !info[b]) continue;
            ct__la_load(w, CT_FLOAT64, n, 1, A, ct__bat_off(&B, A, 2, b));
            info[b] = ct__la_lu_d(w, (int)m, (int)n, (int)n, p);
            for (int64_t i = 0; i < k; i++) piv[b * k + i] = p[i] + 1;
            ct__la_mcopy(LUp + (size_t)(b * m * n) * es, dt, 1, m, w, CT_FLOAT64, n, 1, m, n);
        }
    } else {
        for (int64_t b = 0; b < B.count; b++) {
            char *dst = LUp + (size_t)(b * m * n) * es;
            ct__la_load(dst, dt, 1, m, A, ct__bat_off(&B, A, 2, b));   /* column-major copy */
            ct__la_int r = m && n ? ct__la_getrf(dt, (ct__la_int)m, (ct__la_int)n, dst, (ct__la_int)(m > 0 ? m : 1), piv + b * k) : 0;
            info[b] = r > 0 ? r : 0;
        }
    }
    if (c->a->flags & CT__LAF_CHECK) {
        int64_t bad = 0;
        int v = ct__la_first_bad(info, B.count, &bad);
        if (v)
            return ct__failed(CT_ERR_NUMERIC, "torch.linalg.lu_factor: %sU[%d,%d] is zero and using it on lu_solve would result in a division by zero. If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)",
                              ct__la_batch_prefix(nd > 2, bad).s, v - 1, v - 1);
    }
    return 0;
}
/* P (*, m, m) from LAPACK pivots (*, k): A = P L U. Not differentiable. Built on
   the host; device pivots are read back and P goes to their device. */
static ct_tensor *ct__la_perm_matrix_host(const ct_tensor *pivots, int64_t m, ct_dtype dt);
static ct_tensor *ct__la_perm_matrix(const ct_tensor *pivots, int64_t m, ct_dtype dt) {
    if (!pivots || pivots->device.type == CT_CPU) return ct__la_perm_matrix_host(pivots, m, dt);
    return ct_to_device(ct__la_perm_matrix_host(ct_to_device(pivots, ct_cpu()), m, dt), pivots->device);
}
static ct_tensor *ct__la_perm_matrix_host(const ct_tensor *pivots, int64_t m, ct_dtype dt) {
    if (!pivots) return NULL;
    ct_tensor *pv = ct_contiguous(ct_to(pivots, CT_INT64));
    if (!pv) return NULL;
    int nb = pv->ndim - 1;
    int64_t k = pv->shape[nb], shape[CT_MAX_DIMS], count = 1;
    for (int d = 0; d < nb; d++) { shape[d] = pv->shape[d]; count *= shape[d]; }
    shape[nb] = m;
    shape[nb + 1] = m;
    ct_tensor *P = ct_zeros_n(dt, nb + 2, shape);
    if (!P) return NULL;
    int64_t *perm = (int64_t *)ct__la_scratch(sizeof(int64_t) * (size_t)(m > 0 ? m : 1));
    if (!perm) return NULL;
    const int64_t *pp = (const int64_t *)ct__ptr(pv);
    char *out = ct__ptr(P);
    size_t es = ct__dt[dt].size;
    for (int64_t b = 0; b < count; b++) {
        for (int64_t i = 0; i < m; i++) perm[i] = i;
        for (int64_t i = 0; i < k; i++) {
            int64_t j = pp[b * k + i] - 1;
            if (j < 0 || j >= m) j = i;
            int64_t t = perm[i]; perm[i] = perm[j]; perm[j] = t;
        }
        for (int64_t i = 0; i < m; i++) ct__store_f64(out + (size_t)(b * m * m + perm[i] * m + i) * es, dt, 1.0);
    }
    CT_FREE(perm);
    return P;
}
/* L (*, m, k) unit lower and U (*, k, n) upper from LU, as differentiable views */
/* x[..., :k] (last = 1) or x[..., :k, :] in a graph: ct_narrow, except for complex x,
   whose narrow backward (ctensor.h's strided scatter) keeps only the real parts; a
   product with the first k columns of the identity is exact and differentiable */
static ct_tensor *ct__la_head(const ct_tensor *x, int last, int64_t k) {
    if (!x) return NULL;
    int64_t size = x->shape[x->ndim - (last ? 1 : 2)];
    if (!CT__LA_CX(x->dtype)) return ct_narrow(x, last ? -1 : -2, 0, k);
    if (k == size) return ct_alias(x);
    ct_tensor *E = ct_eye(size, k, x->dtype);
    return last ? ct_matmul(x, E) : ct_matmul(ct_mT(E), x);
}
static void ct__la_lu_unpack_LU(const ct_tensor *LU, ct_tensor **L, ct_tensor **U) {
    int64_t m = LU->shape[LU->ndim - 2], n = LU->shape[LU->ndim - 1], k = m < n ? m : n;
    *L = ct_add(ct__la_tril(ct_narrow(LU, -1, 0, k), -1), ct_eye_on(LU->device, m, k, LU->dtype));
    *U = ct__la_triu(ct_narrow(LU, -2, 0, k), 0);
}
/* PyTorch's linalg_lu_backward: gradient of A = P L U from gL, gU */
static ct_tensor *ct__la_lu_backward(ct_tensor *gL, ct_tensor *gU, ct_tensor *P, ct_tensor *L, ct_tensor *U) {
    if (!gL || !gU || !P || !L || !U) return NULL;
    int64_t m = L->shape[L->ndim - 2], n = U->shape[U->ndim - 1], k = m < n ? m : n;
    ct_tensor *gA;
    if (m == n) {
        ct_tensor *gR = ct_add(ct__la_tril(ct_matmul(ct__la_mH(L), gL), -1), ct__la_triu(ct_matmul(gU, ct__la_mH(U)), 0));
        gA = ct_linalg_solve_triangular(ct__la_mH(L), gR, 1, 1, 1);
        gA = ct_linalg_solve_triangular(ct__la_mH(U), gA, 0, 0, 0);
    } else if (m < n) {
        ct_tensor *U1 = ct_narrow(U, -1, 0, k), *gU1 = ct_narrow(gU, -1, 0, k), *gU2 = ct_narrow(gU, -1, k, n - k);
        gA = ct_sub(ct_matmul(ct__la_mH(L), gL), ct_matmul(ct__la_triu(gU, 0), ct__la_mH(U)));
        gA = ct_linalg_solve_triangular(ct__la_mH(U1), ct__la_tril(gA, -1), 0, 0, 0);
        gA = ct__la_cat2(ct_add(gA, ct__la_triu(gU1, 0)), gU2, -1);
        gA = ct_linalg_solve_triangular(ct__la_mH(L), gA, 1, 1, 1);
    } else {
        ct_tensor *L1 = ct_narrow(L, -2, 0, k), *gL1 = ct_narrow(gL, -2, 0, k), *gL2 = ct_narrow(gL, -2, k, m - k);
        gA = ct_sub(ct_matmul(gU, ct__la_mH(U)), ct_matmul(ct__la_mH(L), gL));
        gA = ct_linalg_solve_triangular(ct__la_mH(L1), ct__la_triu(gA, 0), 1, 1, 1);
        gA = ct__la_cat2(ct_add(gA, ct__la_tril(gL1, -1)), gL2, -2);
        gA = ct_linalg_solve_triangular(ct__la_mH(U), gA, 0, 0, 0);
    }
    return ct_matmul(P, gA);
}
static int ct__la_bw_lu_factor(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *LU = CT__SV_OUT(n, 0), *piv = CT__SV_OUT(n, 1);
    if (!LU || !piv) return -1;
    ct_tensor *L, *U, *g = gout[0];
    int64_t m = LU->shape[LU->ndim - 2], nn = LU->shape[LU->ndim - 1], k = m < nn ? m : nn;
    ct__la_lu_unpack_LU(LU, &L, &U);
    ct_tensor *P = ct__la_perm_matrix(piv, m, LU->dtype);
    ct_tensor *gL = ct__la_tril(ct_narrow(g, -1, 0, k), -1), *gU = ct__la_triu(ct_narrow(g, -2, 0, k), 0);
    gin[0] = ct__la_lu_backward(gL, gU, P, L, U);
    return gin[0] ? 0 : -1;
}
static ct_linalg_lu_factor_result ct__la_lu_factor(const ct_tensor *A, int pivot, int check, int fname) {
    ct_linalg_lu_factor_result r = {NULL, NULL, NULL};
    CT__LA_INIT_OR(r);
    ct__attrs a;
    ct__la_attrs(&a, fname, (check ? CT__LAF_CHECK : 0) | (pivot ? CT__LAF_PIVOT : 0));
    ct_tensor *in[1], *out[3];
    in[0] = (ct_tensor *)A;
    if (ct__la_dispatch(CT__LA_LU_FACTOR, 1, in, &a, out) < 0) return r;
    r.LU = out[0];
    r.pivots = out[1];
    r.info = fname == CT__LAN_LU_FACTOR_EX ? out[2] : NULL;
    return r;
}
CTENSOR_API ct_linalg_lu_factor_result ct_linalg_lu_factor(const ct_tensor *A, int pivot) {
    return ct__la_lu_factor(A, pivot, 1, CT__LAN_LU_FACTOR);
}
CTENSOR_API ct_linalg_lu_factor_result ct_linalg_lu_factor_ex(const ct_tensor *A, int pivot, int check_errors) {
    return ct__la_lu_factor(A, pivot, check_errors, CT__LAN_LU_FACTOR_EX);
}
/* torch.linalg.lu: lu_factor_ex + unpack; gradients flow through lu_factor's rule
   (tril(gL, -1) + triu(gU) is exactly the gradient of LU). */
CTENSOR_API ct_linalg_lu_result ct_linalg_lu(const ct_tensor *A, int pivot) {
    ct_linalg_lu_result r = {NULL, NULL, NULL};
    ct_linalg_lu_factor_result f = ct__la_lu_factor(A, pivot, 0, CT__LAN_LU);
    if (!f.LU) return r;
    int64_t m = f.LU->shape[f.LU->ndim - 2];
    ct_tensor *L, *U, *P = ct__la_perm_matrix(f.pivots, m, f.LU->dtype);
    ct__la_lu_unpack_LU(f.LU, &L, &U);
    if (!P || !L || !U) return r;
    r.P = P;
    r.L = L;
    r.U = U;
    return r;
}

static int ct__la_meta_lu_solve(ct__call *c) {
    const ct_tensor *LU = c->in[0], *piv = c->in[1], *Bt = c->in[2];
    const char *fn = ct__la_fn(c);
    int left = (c->a->flags & CT__LAF_LEFT) != 0;
    if (ct__la_check_matrix(fn, LU, 1) || ct__la_same_dtype(fn, LU, Bt)) return -1;
    if (Bt->ndim < 2) return ct__failed(CT_ERR_SHAPE, "%s: The input tensor B must have at least 2 dimensions.", fn);
    if (piv->dtype != CT_INT32) return ct__failed(CT_ERR_DTYPE, "%s: pivots should be a Tensor of scalar type Int", fn);
    int64_t n = LU->shape[LU->ndim - 1], br = Bt->shape[Bt->ndim - 2], bc = Bt->shape[Bt->ndim - 1];
    int pbad = piv->ndim != LU->ndim - 1;
    for (int d = 0; d < piv->ndim && !pbad; d++) pbad = piv->shape[d] != LU->shape[d];
    if (pbad)
        return ct__failed(CT_ERR_SHAPE, "%s: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with shape %s instead", fn, CT__SHAPE(piv));
    if ((left ? br : bc) != n)
        return ct__failed(CT_ERR_SHAPE, "%s: Incompatible shapes of A and B for the equation %s (%lldx%lld and %lldx%lld)", fn,
                          left ? "AX = B" : "XA = B", (long long)n, (long long)n, (long long)br, (long long)bc);
    int nb;
    int64_t bs[CT_MAX_DIMS];
    if (ct__la_bcast_batch(fn, LU, 2, Bt, 2, &nb, bs)) return -1;
    c->nout = 1;
    if (left) ct__la_out_colmajor(c, 0, LU->dtype, nb, bs, br, bc);   /* getrs writes X in place */
    else ct__la_out_b(c, 0, LU->dtype, nb, bs, 2, br, bc);            /* X row-major = (X^T) column-major */
    return 0;
}
/* complex: getrs on column-major copies. left: op(A) X = B with op A or A^H ('N' / 'C');
   right, X A = B: A^T X^T = B^T ('T'); right adjoint, X A^H = B: A X^H = B^H ('N' on
   conjugated copies) */
static int ct__la_k_lu_solve_cx(ct__call *c) {
    const ct_tensor *LU = c->in[0], *pv = c->in[1], *Bt = c->in[2];
    ct_tensor *X = c->out[0];
    int left = (c->a->flags & CT__LAF_LEFT) != 0, adj = (c->a->flags & CT__LAF_ADJOINT) != 0;
    int conj = !left && adj;
    char trans = left ? (adj ? 'C' : 'N') : (adj ? 'N' : 'T');
    int xd = X->ndim;
    int64_t n = LU->shape[LU->ndim - 1], k = left ? X->shape[xd - 1] : X->shape[xd - 2];
    ct__bat B;
    ct__bat_of(&B, X, 2);
    ct_dtype dt = LU->dtype;
    size_t es = ct__dt[dt].size;
    int64_t bsr = Bt->strides[Bt->ndim - 2], bsc = Bt->strides[Bt->ndim - 1], xsr = X->strides[xd - 2], xsc = X->strides[xd - 1];
    if (!left) { int64_t t = bsr; bsr = bsc; bsc = t; t = xsr; xsr = xsc; xsc = t; }
    int64_t psr = pv->strides[pv->ndim - 1];
    ct__la_int *ipiv = (ct__la_int *)ct__la_scratch(sizeof(ct__la_int) * (size_t)(n > 0 ? n : 1));
    char *lu = (char *)ct__la_scratch(es * (size_t)(n * n + n * k + 1)), *rhs;
    if (!ipiv || !lu) { CT_FREE(ipiv); CT_FREE(lu); return -1; }
    rhs = lu + (size_t)(n * n) * es;
    int rc = 0;
    for (int64_t b = 0; b < B.count && !rc; b++) {
        const int32_t *pp = (const int32_t *)ct__la_at(pv, ct__bat_off(&B, pv, 1, b));
        for (int64_t i = 0; i < n; i++) {
            ipiv[i] = pp[i * psr];
            if (ipiv[i] < 1 || ipiv[i] > n) { rc = ct__failed(CT_ERR_ARG, "%s: pivots[%lld] = %d is out of range for a %lldx%lld LU", ct__la_fn(c), (long long)i, (int)ipiv[i], (long long)n, (long long)n); break; }
        }
        if (rc) break;
        ct__la_zload(lu, n, LU, ct__bat_off(&B, LU, 2, b));
        ct__la_zcopy(dt, rhs, 1, n, ct__la_at(Bt, ct__bat_off(&B, Bt, 2, b)), bsr, bsc, n, k, conj);
        if (n && k) ct__la_zgetrs(dt, trans, n, k, lu, ipiv, rhs);
        ct__la_zcopy(dt, ct__la_at(X, ct__bat_off(&B, X, 2, b)), xsr, xsc, rhs, 1, n, n, k, conj);
    }
    CT_FREE(ipiv);
    CT_FREE(lu);
    return rc;
}
static int ct__la_k_lu_solve(ct__call *c) {
    const ct_tensor *LU = c->in[0], *pv = c->in[1], *Bt = c->in[2];
    ct_tensor *X = c->out[0];
    int left = (c->a->flags & CT__LAF_LEFT) != 0, adj = (c->a->flags & CT__LAF_ADJOINT) != 0;
    int trans = left ? adj : !adj;   /* right-hand: X A = B <=> A^T X^T = B^T */
    int ld = LU->ndim, xd = X->ndim;
    int64_t n = LU->shape[ld - 1], k = left ? X->shape[xd - 1] : X->shape[xd - 2];
    ct__bat B;
    ct__bat_of(&B, X, 2);
    ct_dtype dt = LU->dtype;
    size_t es = ct__dt[dt].size;
    /* the n x k right-hand side as column-major in X's memory: strides (1, n) */
    int64_t bsr = Bt->strides[Bt->ndim - 2], bsc = Bt->strides[Bt->ndim - 1];
    if (!left) { int64_t t = bsr; bsr = bsc; bsc = t; }
    int64_t psr = pv->strides[pv->ndim - 1];
    if (CT__LA_CX(dt)) return ct__la_k_lu_solve_cx(c);
    ct__la_int *ipiv = (ct__la_int *)ct__la_scratch(sizeof(ct__la_int) * (size_t)(n > 0 ? n : 1));
    void *lu = ct__la_scratch(es * (size_t)(n * n));
    double *w = (double *)ct__la_scratch(sizeof(double) * (size_t)(n * n + n * k));
    if (!ipiv || !lu || !w) { CT_FREE(ipiv); CT_FREE(lu); CT_FREE(w); return -1; }
    int rc = 0;
    for (int64_t b = 0; b < B.count && !rc; b++) {
        const int32_t *pp = (const int32_t *)ct__la_at(pv, ct__bat_off(&B, pv, 1, b));
        for (int64_t i = 0; i < n; i++) {
            ipiv[i] = pp[i * psr];
            if (ipiv[i] < 1 || ipiv[i] > n) { rc = ct__failed(CT_ERR_ARG, "%s: pivots[%lld] = %d is out of range for a %lldx%lld LU", ct__la_fn(c), (long long)i, (int)ipiv[i], (long long)n, (long long)n); break; }
        }
        if (rc) break;
        char *xp = ct__la_at(X, ct__bat_off(&B, X, 2, b));
        const char *bp = ct__la_at(Bt, ct__bat_off(&B, Bt, 2, b));
        int64_t loff = ct__bat_off(&B, LU, 2, b);
        if (n <= CT__LA_SMALL) {
            int p0[CT__LA_SMALL];
            double *rhs = w + n * n;
            for (int64_t i = 0; i < n; i++) p0[i] = ipiv[i] - 1;
            ct__la_load(w, CT_FLOAT64, n, 1, LU, loff);
            ct__la_mcopy(rhs, CT_FLOAT64, k, 1, bp, dt, bsr, bsc, n, k);
            ct__la_lu_solve_d(w, (int)n, p0, rhs, (int)k, (int)k, trans);
            ct__la_mcopy(xp, dt, 1, n, rhs, CT_FLOAT64, k, 1, n, k);
        } else {
            /* LAPACK wants the factors column-major: lu_factor's output already is */
            const ct_tensor *L = LU;
            const void *ap = lu;
            int64_t lda = n;
            if (L->strides[ld - 2] == 1 && L->strides[ld - 1] >= n) { ap = ct__la_at(L, loff); lda = L->strides[ld - 1]; }
            else ct__la_load(lu, dt, 1, n, L, loff);
            ct__la_mcopy(xp, dt, 1, n, bp, dt, bsr, bsc, n, k);
            ct__la_getrs(dt, trans ? 'T' : 'N', (ct__la_int)n, (ct__la_int)k, ap, (ct__la_int)lda, ipiv, xp, (ct__la_int)n);
        }
    }
    CT_FREE(ipiv);
    CT_FREE(lu);
    CT_FREE(w);
    return rc;
}
/* PyTorch's linalg_lu_solve_LU (gradient of the factors) and lu_solve(gX, !adjoint) for B */
static int ct__la_bw_lu_solve(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *LU = CT__SV_IN(n, 0), *piv = CT__SV_IN(n, 1), *X = CT__SV_OUT(n, 0), *gX = gout[0];
    if (!LU || !piv || !X) return -1;
    int left = (n->attrs.flags & CT__LAF_LEFT) != 0, adj = (n->attrs.flags & CT__LAF_ADJOINT) != 0;
    if (CT__NEEDS(n, 2) && !(gin[2] = ct_linalg_lu_solve(LU, piv, gX, left, !adj))) return -1;
    if (CT__NEEDS(n, 0)) {
        ct_tensor *L, *U, *gLU;
        ct__la_lu_unpack_LU(LU, &L, &U);
        if (left != adj) {
            /* gR = U^{-H} op2(-gX) op2(X)^H; gL = (L^{-H} gR U^H).tril(-1); gU = gR.triu() */
            ct_tensor *prod = left ? ct_matmul(ct_neg(gX), ct__la_mH(X)) : ct_matmul(ct_neg(ct__la_mH(gX)), X);
            ct_tensor *gR = ct_linalg_solve_triangular(ct__la_mH(U), prod, 0, 1, 0);
            ct_tensor *gL = ct__la_tril(ct_linalg_solve_triangular(ct__la_mH(L), ct_matmul(gR, ct__la_mH(U)), 1, 1, 1), -1);
            gLU = ct_add(gL, ct__la_triu(gR, 0));
        } else {
            /* gR = -P^T op3(X) op1(op2(gX)) P; gR = gR L^{-H}; gU = (L^H gR U^{-H}).triu(); gL = gR.tril(-1) */
            ct_tensor *P = ct__la_perm_matrix(piv, LU->shape[LU->ndim - 1], LU->dtype);
            ct_tensor *gR = ct_matmul(ct_matmul(ct_neg(ct__la_mH(P)), left ? X : ct__la_mH(X)), left ? ct__la_mH(gX) : gX);
            gR = ct_matmul(gR, P);
            gR = ct_linalg_solve_triangular(ct__la_mH(L), gR, 1, 0, 1);
            ct_tensor *gU = ct__la_triu(ct_linalg_solve_triangular(ct__la_mH(U), ct_matmul(ct__la_mH(L), gR), 0, 0, 0), 0);
            gLU = ct_add(ct__la_tril(gR, -1), gU);
        }
        if (!(gin[0] = gLU)) return -1;
    }
    return 0;
}
CTENSOR_API ct_tensor *ct_linalg_lu_solve(const ct_tensor *LU, const ct_tensor *pivots, const ct_tensor *B, int left, int adjoint) {
    CT__LA_INIT_OR(NULL);
    ct__attrs a;
    ct__la_attrs(&a, CT__LAN_LU_SOLVE, (left ? CT__LAF_LEFT : 0) | (adjoint ? CT__LAF_ADJOINT : 0));
    ct_tensor *in[3], *out[1];
    in[0] = (ct_tensor *)LU;
    in[1] = (ct_tensor *)pivots;
    in[2] = (ct_tensor *)B;
    return ct__la_dispatch(CT__LA_LU_SOLVE, 3, in, &a, out) < 0 ? NULL : out[0];
}

/* ============================================================================
   Determinants: torch.linalg.det, slogdet, torch.logdet, torch.trace
   ========================================================================== */
static int ct__la_meta_det(ct__call *c) {
    const ct_tensor *A = c->in[0];
    if (ct__la_check_matrix(ct__la_fn(c), A, 1)) return -1;
    c->nout = 1;
    ct__la_out_b(c, 0, A->dtype, A->ndim - 2, A->shape, 0, 0, 0);
    return 0;
}
static int ct__la_meta_slogdet(ct__call *c) {
    if (ct__la_meta_det(c)) return -1;
    c->nout = 2;
    c->oi[1] = c->oi[0];
    c->oi[1].dtype = ct__la_real_of(c->oi[0].dtype);   /* complex A: a complex sign, a real log|det| */
    return 0;
}
/* complex det (mode 0) or sign and log|det| (mode 1): getrf of the column-major copy */
static int ct__la_det_run_cx(ct__call *c, int logmode) {
    const ct_tensor *A = c->in[0];
    int64_t n = A->shape[A->ndim - 1];
    ct__bat B;
    ct__bat_of(&B, A, 2);
    ct_dtype dt = A->dtype, rdt = ct__la_real_of(dt);
    size_t es = ct__dt[dt].size;
    char *o0 = ct__ptr(c->out[0]), *o1 = logmode ? ct__ptr(c->out[1]) : NULL;
    char *w = (char *)ct__la_scratch(es * (size_t)(n * n + 1));
    ct__la_int *ipiv = (ct__la_int *)ct__la_scratch(sizeof(ct__la_int) * (size_t)(n + 1));
    if (!w || !ipiv) { CT_FREE(w); CT_FREE(ipiv); return -1; }
    for (int64_t b = 0; b < B.count; b++) {
        double dr = 1.0, di = 0.0, logabs = 0.0;
        ct__la_zload(w, n, A, ct__bat_off(&B, A, 2, b));
        if (n) ct__la_zgetrf(dt, n, n, w, ipiv);
        for (int64_t k = 0; k < n; k++) {
            double ur, ui, tr;
            ct__la_zget(dt, w, k + k * n, &ur, &ui);
            if (ipiv[k] != k + 1) { dr = -dr; di = -di; }
            if (logmode) {
                double a = hypot(ur, ui);
                logabs += log(a);
                if (a > 0) { ur /= a; ui /= a; }
            }
            tr = dr * ur - di * ui;
            di = dr * ui + di * ur;
            dr = tr;
        }
        if (logmode && logabs == -INFINITY) dr = di = 0.0;
        ct__la_zset(dt, o0, b, dr, di);
        if (logmode) ct__store_f64(o1 + (size_t)b * ct__dt[rdt].size, rdt, logabs);
    }
    CT_FREE(w);
    CT_FREE(ipiv);
    return 0;
}
/* det (mode 0) or sign and log|det| (mode 1) of every matrix of A */
static int ct__la_det_run(ct__call *c, int logmode) {
    const ct_tensor *A = c->in[0];
    if (CT__LA_CX(A->dtype)) return ct__la_det_run_cx(c, logmode);
    int nd = A->ndim;
    int64_t n = A->shape[nd - 1];
    ct__bat B;
    ct__bat_of(&B, A, 2);
    ct_dtype dt = A->dtype;
    char *o0 = ct__ptr(c->out[0]), *o1 = logmode ? ct__ptr(c->out[1]) : NULL;
    size_t es = ct__dt[dt].size;
    double w0[CT__LA_SMALL * CT__LA_SMALL];
    int p0[CT__LA_SMALL];
    double *w = w0;
    ct__la_int *ipiv = NULL;
    if (n > CT__LA_SMALL) {
        w = (double *)ct__la_scratch(sizeof(double) * (size_t)(n * n));
        ipiv = (ct__la_int *)ct__la_scratch(sizeof(ct__la_int) * (size_t)n);
        if (!w || !ipiv) { if (w != w0) CT_FREE(w); CT_FREE(ipiv); return -1; }
    }
    for (int64_t b = 0; b < B.count; b++) {
        double sign = 1.0, logabs = 0.0, det = 1.0;
        int64_t off = ct__bat_off(&B, A, 2, b);
        /* det(A^T) = det(A): the row-major copy serves as the column-major input */
        ct__la_load(w, CT_FLOAT64, n, 1, A, off);
        if (n <= CT__LA_SMALL) {
            ct__la_lu_d(w, (int)n, (int)n, (int)n, p0);
            for (int64_t k = 0; k < n; k++) {
                double u = w[k * n + k];
                if (p0[k] != k) sign = -sign;
                det *= u;
                if (logmode) { if (u < 0) sign = -sign; logabs += log(fabs(u)); }
            }
        } else {
            ct__la_getrf(CT_FLOAT64, (ct__la_int)n, (ct__la_int)n, w, (ct__la_int)n, ipiv);
            for (int64_t k = 0; k < n; k++) {
                double u = w[k * n + k];
                if (ipiv[k] != k + 1) sign = -sign;
                det *= u;
                if (logmode) { if (u < 0) sign = -sign; logabs += log(fabs(u)); }
            }
        }
        if (!logmode) {
            ct__store_f64(o0 + (size_t)b * es, dt, sign * det);
        } else {
            if (logabs == -INFINITY) sign = 0.0;
            ct__store_f64(o0 + (size_t)b * es, dt, sign);
            ct__store_f64(o1 + (size_t)b * es, dt, logabs);
        }
    }
    if (w != w0) CT_FREE(w);
    CT_FREE(ipiv);
    return 0;
}
static int ct__la_k_det(ct__call *c) { return ct__la_det_run(c, 0); }
static int ct__la_k_slogdet(ct__call *c) { return ct__la_det_run(c, 1); }
/* out_i = prod_{j != i} x_j along the last dim (no division: exact at zeros) */
static int ct__la_meta_same(ct__call *c) {
    const ct_tensor *x = c->in[0];
    if (ct__la_check_dtype(ct__la_fn(c), x)) return -1;
    c->nout = 1;
    ct__la_out(c, 0, x->dtype, x->ndim, x->shape);
    return 0;
}
static int ct__la_k_prod_others(ct__call *c) {
    const ct_tensor *x = c->in[0];
    ct_tensor *y = c->out[0];
    int64_t n = x->ndim ? x->shape[x->ndim - 1] : 1, sx = x->ndim ? x->strides[x->ndim - 1] : 0;
    ct__bat B;
    ct__bat_of(&B, x, 1);
    size_t es = ct__dt[x->dtype].size;
    for (int64_t b = 0; b < B.count; b++) {
        const char *xp = ct__la_at(x, ct__bat_off(&B, x, 1, b));
        char *yp = ct__ptr(y) + (size_t)(b * n) * es;
        double pre = 1.0;
        for (int64_t i = 0; i < n; i++) {
            ct__store_f64(yp + (size_t)i * es, x->dtype, pre);
            pre *= ct__load_f64(xp + (size_t)(i * sx) * es, x->dtype);
        }
        double suf = 1.0;
        for (int64_t i = n - 1; i >= 0; i--) {
            double v = ct__load_f64(yp + (size_t)i * es, x->dtype);
            ct__store_f64(yp + (size_t)i * es, x->dtype, v * suf);
            suf *= ct__load_f64(xp + (size_t)(i * sx) * es, x->dtype);
        }
    }
    return 0;
}
/* d out_i / d x_k = prod_{j != i, k} x_j: computed directly (first order only) */
static int ct__la_bw_prod_others(ct__node *nd, ct_tensor *const *gout, ct_tensor **gin) {
    if (ct_is_grad_enabled())
        return ct__failed(CT_ERR_AUTOGRAD, "linalg.det: second derivatives at singular matrices are not implemented");
    ct_tensor *x = CT__SV_IN(nd, 0);
    if (!x) return -1;
    ct_tensor *xc = ct_contiguous(ct_to(x, CT_FLOAT64)), *gc = ct_contiguous(ct_to(gout[0], CT_FLOAT64));
    ct_tensor *r = ct_zeros_n(CT_FLOAT64, x->ndim, x->shape);
    if (!xc || !gc || !r) return -1;
    int64_t n = x->ndim ? x->shape[x->ndim - 1] : 1, count = n ? ct_numel(x) / n : 0;
    const double *xp = (const double *)ct__ptr(xc), *gp = (const double *)ct__ptr(gc);
    double *rp = (double *)ct__ptr(r);
    for (int64_t b = 0; b < count; b++)
        for (int64_t k = 0; k < n; k++) {
            double s = 0.0;
            for (int64_t i = 0; i < n; i++) {
                if (i == k) continue;
                double p = gp[b * n + i];
                for (int64_t j = 0; j < n && p != 0.0; j++) if (j != i && j != k) p *= xp[b * n + j];
                s += p;
            }
            rp[b * n + k] = s;
        }
    gin[0] = ct_to(r, x->dtype);
    return gin[0] ? 0 : -1;
}
static ct_tensor *ct__la_prod_others(const ct_tensor *x) {
    ct__attrs a;
    ct__la_attrs(&a, CT__LAN_DET, 0);
    ct_tensor *in[1], *out[1];
    in[0] = (ct_tensor *)x;
    return ct__la_dispatch(CT__LA_PROD_OTHERS, 1, in, &a, out) < 0 ? NULL : out[0];
}
/* PyTorch's linalg_det_backward: g det A^{-H} for invertible A; for singular A the
   cofactor matrix from the SVD, U diag(prod_{j != i} s_j) V^H det(U) det(V^H)
   (what PyTorch computes when it differentiates through singular inputs). */
static int ct__la_bw_det(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *A = CT__SV_IN(n, 0), *d = CT__SV_OUT(n, 0);
    if (!A || !d) return -1;
    int singular = 0, cx = CT__LA_CX(d->dtype);
    if (d->device.type != CT_CPU) {   /* a device det: is any zero? (one value read back) */
        ct_tensor *z = ct_any(ct_eq_scalar(d, 0.0));
        if (!z) return -1;
        singular = ct_item(z) != 0.0;
    } else {
        ct_tensor *dc = ct__contig_ref(cx ? ct_abs(d) : d);
        if (!dc) return -1;
        int64_t cnt = ct_numel(dc);
        for (int64_t i = 0; i < cnt && !singular; i++) singular = ct__load_f64(ct__ptr(dc) + (size_t)i * ct__dt[dc->dtype].size, dc->dtype) == 0.0;
        ct__decref(dc);
    }
    ct_tensor *gd = ct_mul(gout[0], cx ? ct_conj(d) : d);   /* conjugate Wirtinger: g conj(det) A^{-H} */
    if (!singular) {
        gin[0] = ct_mul(ct__la_unsq2(gd), ct__la_mH(ct_linalg_inv(A)));
    } else {
        ct_linalg_svd_result s = ct_linalg_svd(A, 0);
        ct_tensor *alpha = NULL;
        CT_NO_GRAD {
            alpha = ct_mul(ct_linalg_det(s.U), ct_linalg_det(s.Vh));
            if (cx) alpha = ct_conj(alpha);
        }
        ct_tensor *D = ct_mul(ct_unsqueeze(ct_mul(gout[0], alpha), -1), ct__la_prod_others(s.S));
        gin[0] = ct_matmul(ct_mul(s.U, ct_unsqueeze(D, -2)), s.Vh);
    }
    return gin[0] ? 0 : -1;
}
CTENSOR_API ct_tensor *ct_linalg_det(const ct_tensor *A) {
    CT__LA_INIT_OR(NULL);
    ct__attrs a;
    ct__la_attrs(&a, CT__LAN_DET, 0);
    ct_tensor *in[1], *out[1];
    in[0] = (ct_tensor *)A;
    return ct__la_dispatch(CT__LA_DET, 1, in, &a, out) < 0 ? NULL : out[0];
}
/* gA = g_logabsdet A^{-H} (the sign is not differentiable) */
static int ct__la_bw_slogdet(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *A = CT__SV_IN(n, 0), *g = gout[1];
    if (!A) return -1;
    if (CT__LA_CX(A->dtype)) {
        /* complex: g = g_logabsdet - i imag(conj(g_sign) sign) (PyTorch's slogdet_backward) */
        ct_tensor *sign = CT__SV_OUT(n, 0);
        if (!sign) return -1;
        g = ct_complex(g, ct_imag(ct_mul(gout[0], ct_conj(sign))));
    }
    gin[0] = ct_mul(ct__la_unsq2(g), ct__la_mH(ct_linalg_inv(A)));
    return gin[0] ? 0 : -1;
}
static ct_linalg_slogdet_result ct__la_slogdet(const ct_tensor *A, int fname) {
    ct_linalg_slogdet_result r = {NULL, NULL};
    CT__LA_INIT_OR(r);
    ct__attrs a;
    ct__la_attrs(&a, fname, 0);
    ct_tensor *in[1], *out[2];
    in[0] = (ct_tensor *)A;
    if (ct__la_dispatch(CT__LA_SLOGDET, 1, in, &a, out) < 0) return r;
    r.sign = out[0];
    r.logabsdet = out[1];
    return r;
}
CTENSOR_API ct_linalg_slogdet_result ct_linalg_slogdet(const ct_tensor *A) { return ct__la_slogdet(A, CT__LAN_SLOGDET); }
/* torch.logdet: log|det| where det > 0, nan where det < 0, -inf where det == 0 */
CTENSOR_API ct_tensor *ct_logdet(const ct_tensor *A) {
    ct_linalg_slogdet_result r = ct__la_slogdet(A, CT__LAN_LOGDET);
    if (!r.sign) return NULL;
    if (CT__LA_CX(r.sign->dtype)) return ct_add(ct_log(r.sign), r.logabsdet);   /* log det = log(sign) + log|det| */
    return ct_where_scalar(ct_ge_scalar(r.sign, 0.0), r.logabsdet, NAN);
}
CTENSOR_API ct_tensor *ct_trace(const ct_tensor *A) {
    if (!A) { ct__null_arg("trace", 0); return NULL; }
    if (A->ndim != 2) return ct__fail(CT_ERR_SHAPE, "trace: expected a matrix, but got tensor with dim %d", A->ndim);
    return ct_sum(ct_diagonal(A, 0, 0, 1));
}

/* ============================================================================
   From a Cholesky factor: torch.cholesky_solve, cholesky_inverse
   ========================================================================== */
static int ct__la_meta_chol_solve(ct__call *c) {
    const ct_tensor *Bt = c->in[0], *L = c->in[1];
    const char *fn = ct__la_fn(c);
    if (ct__la_check_dtype(fn, Bt) || ct__la_check_dtype(fn, L)) return -1;
    if (Bt->ndim < 2) return ct__failed(CT_ERR_SHAPE, "b should have at least 2 dimensions, but has %d dimensions instead", Bt->ndim);
    if (L->ndim < 2) return ct__failed(CT_ERR_SHAPE, "u should have at least 2 dimensions, but has %d dimensions instead", L->ndim);
    if (Bt->dtype != L->dtype)
        return ct__failed(CT_ERR_DTYPE, "Expected b and A to have the same dtype, but found b of type %s and A of type %s instead.",
                          CT__DTNAME(Bt->dtype), CT__DTNAME(L->dtype));
    int64_t n = L->shape[L->ndim - 1], br = Bt->shape[Bt->ndim - 2], bc = Bt->shape[Bt->ndim - 1];
    if (L->shape[L->ndim - 2] != n || br != n)
        return ct__failed(CT_ERR_SHAPE, "Incompatible matrix sizes for cholesky_solve: each A matrix is %lld by %lld but each b matrix is %lld by %lld",
                          (long long)L->shape[L->ndim - 2], (long long)n, (long long)br, (long long)bc);
    int nb;
    int64_t bs[CT_MAX_DIMS];
    if (ct__la_bcast_batch(fn, Bt, 2, L, 2, &nb, bs)) return -1;
    c->nout = 1;
    ct__la_out_b(c, 0, L->dtype, nb, bs, 2, n, bc);
    return 0;
}
static int ct__la_k_chol_solve(ct__call *c) {
    const ct_tensor *Bt = c->in[0], *L = c->in[1];
    ct_tensor *X = c->out[0];
    int upper = (c->a->flags & CT__LAF_UPPER) != 0;
    int64_t n = X->shape[X->ndim - 2], k = X->shape[X->ndim - 1];
    ct__bat B;
    ct__bat_of(&B, X, 2);
    ct_dtype dt = L->dtype;
    size_t es = ct__dt[dt].size;
    if (CT__LA_CX(dt)) {   /* potrs on column-major copies */
        char *a = (char *)ct__la_scratch(es * (size_t)(n * n + n * k + 1)), *rhs;
        if (!a) return -1;
        rhs = a + (size_t)(n * n) * es;
        for (int64_t b = 0; b < B.count; b++) {
            ct__la_zload(a, n, L, ct__bat_off(&B, L, 2, b));
            ct__la_zload(rhs, n, Bt, ct__bat_off(&B, Bt, 2, b));
            if (n && k) {
                if (CT__LA_Z(dt)) LAPACKE_zpotrs_work(LAPACK_COL_MAJOR, upper ? 'U' : 'L', (ct__la_int)n, (ct__la_int)k, CT__LA_ZD(a), (ct__la_int)n, CT__LA_ZD(rhs), (ct__la_int)n);
                else LAPACKE_cpotrs_work(LAPACK_COL_MAJOR, upper ? 'U' : 'L', (ct__la_int)n, (ct__la_int)k, CT__LA_ZF(a), (ct__la_int)n, CT__LA_ZF(rhs), (ct__la_int)n);
            }
            ct__la_zcopy(dt, ct__ptr(X) + (size_t)(b * n * k) * es, k, 1, rhs, 1, n, n, k, 0);
        }
        CT_FREE(a);
        return 0;
    }
    void *scratch = ct__la_scratch(es * (size_t)(n * n));
    if (!scratch) return -1;
    for (int64_t b = 0; b < B.count; b++) {
        char *xp = ct__ptr(X) + (size_t)(b * n * k) * es;
        ct__la_load(xp, dt, k, 1, Bt, ct__bat_off(&B, Bt, 2, b));
        int64_t lda;
        int tr;
        const void *lp = ct__la_rm_view(L, ct__bat_off(&B, L, 2, b), scratch, &lda, &tr);
        int up = tr ? !upper : upper;   /* the triangle as stored in memory */
        /* A = L L^T: L Y = B, L^T X = Y; A = U^T U: U^T Y = B, U X = Y */
        ct__la_trsm(dt, 1, up, upper ? !tr : tr, 0, n, k, lp, lda, xp, k > 0 ? k : 1);
        ct__la_trsm(dt, 1, up, upper ? tr : !tr, 0, n, k, lp, lda, xp, k > 0 ? k : 1);
    }
    CT_FREE(scratch);
    return 0;
}
/* PyTorch's cholesky_solve_backward */
static int ct__la_bw_chol_solve(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *L = CT__SV_IN(n, 1), *X = CT__SV_OUT(n, 0);
    if (!L || !X) return -1;
    int upper = (n->attrs.flags & CT__LAF_UPPER) != 0;
    ct_tensor *gB = ct_cholesky_solve(gout[0], L, upper);
    if (!gB) return -1;
    if (CT__NEEDS(n, 0)) gin[0] = gB;
    if (CT__NEEDS(n, 1)) {
        ct_tensor *common = ct_matmul(gB, ct__la_mH(X));
        common = ct_add(common, ct__la_mH(common));
        gin[1] = upper ? ct_neg(ct_matmul(L, common)) : ct_neg(ct_matmul(common, L));
        if (!gin[1]) return -1;
    }
    return 0;
}
CTENSOR_API ct_tensor *ct_cholesky_solve(const ct_tensor *B, const ct_tensor *L, int upper) {
    CT__LA_INIT_OR(NULL);
    ct__attrs a;
    ct__la_attrs(&a, CT__LAN_CHOL_SOLVE, upper ? CT__LAF_UPPER : 0);
    ct_tensor *in[2], *out[1];
    in[0] = (ct_tensor *)B;
    in[1] = (ct_tensor *)L;
    return ct__la_dispatch(CT__LA_CHOL_SOLVE, 2, in, &a, out) < 0 ? NULL : out[0];
}
static int ct__la_meta_chol_inv(ct__call *c) {
    const ct_tensor *L = c->in[0];
    if (ct__la_check_dtype(ct__la_fn(c), L)) return -1;
    if (L->ndim < 2) return ct__failed(CT_ERR_SHAPE, "cholesky_inverse: The input tensor A must have at least 2 dimensions.");
    if (L->shape[L->ndim - 1] != L->shape[L->ndim - 2])
        return ct__failed(CT_ERR_SHAPE, "cholesky_inverse: A must be batches of square matrices, but they are %lld by %lld matrices",
                          (long long)L->shape[L->ndim - 2], (long long)L->shape[L->ndim - 1]);
    c->nout = 1;
    ct__la_out(c, 0, L->dtype, L->ndim, L->shape);
    return 0;
}
static int ct__la_k_chol_inv(ct__call *c) {
    const ct_tensor *L = c->in[0];
    ct_tensor *X = c->out[0];
    int upper = (c->a->flags & CT__LAF_UPPER) != 0, nd = L->ndim;
    int64_t n = L->shape[nd - 1];
    ct__bat B;
    ct__bat_of(&B, L, 2);
    ct_dtype dt = L->dtype;
    size_t es = ct__dt[dt].size;
    if (CT__LA_CX(dt)) {   /* potri on the column-major copy; the other triangle by conjugation */
        char *a = (char *)ct__la_scratch(es * (size_t)(n * n + 1));
        if (!a) return -1;
        for (int64_t b = 0; b < B.count; b++) {
            ct__la_zload(a, n, L, ct__bat_off(&B, L, 2, b));
            ct__la_int r = !n ? 0 : CT__LA_Z(dt) ? LAPACKE_zpotri_work(LAPACK_COL_MAJOR, upper ? 'U' : 'L', (ct__la_int)n, CT__LA_ZD(a), (ct__la_int)n)
                                                 : LAPACKE_cpotri_work(LAPACK_COL_MAJOR, upper ? 'U' : 'L', (ct__la_int)n, CT__LA_ZF(a), (ct__la_int)n);
            if (r > 0) {
                CT_FREE(a);
                return ct__failed(CT_ERR_NUMERIC, "cholesky_inverse: %sThe diagonal element %d is zero, the inversion could not be completed because the input matrix is singular.",
                                  ct__la_batch_prefix(nd > 2, b).s, (int)r);
            }
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = j + 1; i < n; i++) {   /* (i, j) below the diagonal, column-major */
                    double re, im;
                    int64_t src = upper ? j + i * n : i + j * n, dst = upper ? i + j * n : j + i * n;
                    ct__la_zget(dt, a, src, &re, &im);
                    ct__la_zset(dt, a, dst, re, -im);
                }
            ct__la_zcopy(dt, ct__ptr(X) + (size_t)(b * n * n) * es, n, 1, a, 1, n, n, n, 0);
        }
        CT_FREE(a);
        return 0;
    }
    for (int64_t b = 0; b < B.count; b++) {
        char *xp = ct__ptr(X) + (size_t)(b * n * n) * es;
        ct__la_load(xp, dt, n, 1, L, ct__bat_off(&B, L, 2, b));
        /* row-major lower L is column-major upper L^T: potri('U') inverts L L^T and
           leaves the row-major lower triangle */
        ct__la_int r = n ? ct__la_potri(dt, upper ? 'L' : 'U', (ct__la_int)n, xp, (ct__la_int)n) : 0;
        if (r > 0)
            return ct__failed(CT_ERR_NUMERIC, "cholesky_inverse: %sThe diagonal element %d is zero, the inversion could not be completed because the input matrix is singular.",
                              ct__la_batch_prefix(nd > 2, b).s, (int)r);
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = i + 1; j < n; j++) {
                int64_t lo = upper ? i * n + j : j * n + i, hi = upper ? j * n + i : i * n + j;
                if (dt == CT_FLOAT64) ((double *)xp)[hi] = ((double *)xp)[lo];
                else ((float *)xp)[hi] = ((float *)xp)[lo];
            }
    }
    return 0;
}
/* PyTorch's cholesky_inverse_backward */
static int ct__la_bw_chol_inv(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *L = CT__SV_IN(n, 0), *X = CT__SV_OUT(n, 0);
    if (!L || !X) return -1;
    int upper = (n->attrs.flags & CT__LAF_UPPER) != 0;
    ct_tensor *common = ct_add(gout[0], ct__la_mH(gout[0]));
    common = ct_matmul(X, ct_matmul(common, X));
    gin[0] = upper ? ct_neg(ct_matmul(L, common)) : ct_neg(ct_matmul(common, L));
    return gin[0] ? 0 : -1;
}
CTENSOR_API ct_tensor *ct_cholesky_inverse(const ct_tensor *L, int upper) {
    CT__LA_INIT_OR(NULL);
    ct__attrs a;
    ct__la_attrs(&a, CT__LAN_CHOL_INV, upper ? CT__LAF_UPPER : 0);
    ct_tensor *in[1], *out[1];
    in[0] = (ct_tensor *)L;
    return ct__la_dispatch(CT__LA_CHOL_INV, 1, in, &a, out) < 0 ? NULL : out[0];
}

/* ============================================================================
   QR: torch.linalg.qr (geqrf + orgqr)
   ========================================================================== */
static ct__la_int ct__la_geqrf(ct_dtype dt, ct__la_int m, ct__la_int n, void *a, ct__la_int lda, void *tau, void *work, ct__la_int lwork) {
    return CT__LA_D(dt) ? LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, n, (double *)a, lda, (double *)tau, (double *)work, lwork)
                        : LAPACKE_sgeqrf_work(LAPACK_COL_MAJOR, m, n, (float *)a, lda, (float *)tau, (float *)work, lwork);
}
static ct__la_int ct__la_orgqr(ct_dtype dt, ct__la_int m, ct__la_int n, ct__la_int k, void *a, ct__la_int lda, const void *tau, void *work,
                               ct__la_int lwork) {
    return CT__LA_D(dt) ? LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, m, n, k, (double *)a, lda, (const double *)tau, (double *)work, lwork)
                        : LAPACKE_sorgqr_work(LAPACK_COL_MAJOR, m, n, k, (float *)a, lda, (const float *)tau, (float *)work, lwork);
}
enum { CT__LA_QR_REDUCED = 0, CT__LA_QR_COMPLETE = 1, CT__LA_QR_R = 2 };
static int ct__la_meta_qr(ct__call *c) {
    const ct_tensor *A = c->in[0];
    if (ct__la_check_matrix(ct__la_fn(c), A, 0)) return -1;
    int nb = A->ndim - 2, mode = c->a->mode;
    if (mode < CT__LA_QR_REDUCED || mode > CT__LA_QR_R)
        return ct__failed(CT_ERR_ARG, "qr received unrecognized mode %d but expected one of 'reduced' (default), 'r', or 'complete'", mode);
    int64_t m = A->shape[nb], n = A->shape[nb + 1], k = m < n ? m : n;
    c->nout = 2;
    if (mode == CT__LA_QR_R) { int64_t z = 0; ct__la_out(c, 0, A->dtype, 1, &z); }
    else ct__la_out_colmajor(c, 0, A->dtype, nb, A->shape, m, mode == CT__LA_QR_COMPLETE ? m : k);
    ct__la_out_b(c, 1, A->dtype, nb, A->shape, 2, mode == CT__LA_QR_COMPLETE ? m : k, n);
    return 0;
}
/* complex: geqrf + ungqr on the column-major copy */
static int ct__la_k_qr_cx(ct__call *c) {
    const ct_tensor *A = c->in[0];
    ct_tensor *Q = c->out[0], *R = c->out[1];
    int nd = A->ndim, mode = c->a->mode;
    int64_t m = A->shape[nd - 2], n = A->shape[nd - 1], k = m < n ? m : n;
    int64_t qc = mode == CT__LA_QR_COMPLETE ? m : k, rr = R->shape[R->ndim - 2];
    ct__bat B;
    ct__bat_of(&B, A, 2);
    ct_dtype dt = A->dtype;
    size_t es = ct__dt[dt].size;
    char *a = (char *)ct__la_scratch(es * (size_t)(m * n + k + m * qc + 1));
    if (!a) return -1;
    char *tau = a + (size_t)(m * n) * es, *q = tau + (size_t)k * es;
    for (int64_t b = 0; b < B.count; b++) {
        ct__la_zload(a, m, A, ct__bat_off(&B, A, 2, b));
        if (m && n) {
            if (CT__LA_Z(dt)) LAPACKE_zgeqrf(LAPACK_COL_MAJOR, (ct__la_int)m, (ct__la_int)n, CT__LA_ZD(a), (ct__la_int)m, CT__LA_ZD(tau));
            else LAPACKE_cgeqrf(LAPACK_COL_MAJOR, (ct__la_int)m, (ct__la_int)n, CT__LA_ZF(a), (ct__la_int)m, CT__LA_ZF(tau));
        }
        char *rp = ct__ptr(R) + (size_t)(b * rr * n) * es;
        for (int64_t i = 0; i < rr; i++)
            for (int64_t j = 0; j < n; j++) {
                double re = 0.0, im = 0.0;
                if (j >= i && i < k) ct__la_zget(dt, a, i + j * m, &re, &im);
                ct__la_zset(dt, rp, i * n + j, re, im);
            }
        if (mode == CT__LA_QR_R || !m || !qc) continue;
        int64_t cp = qc < n ? qc : n;
        memcpy(q, a, (size_t)(m * cp) * es);
        if (CT__LA_Z(dt)) LAPACKE_zungqr(LAPACK_COL_MAJOR, (ct__la_int)m, (ct__la_int)qc, (ct__la_int)k, CT__LA_ZD(q), (ct__la_int)m, CT__LA_ZD(tau));
        else LAPACKE_cungqr(LAPACK_COL_MAJOR, (ct__la_int)m, (ct__la_int)qc, (ct__la_int)k, CT__LA_ZF(q), (ct__la_int)m, CT__LA_ZF(tau));
        ct__la_zstore(Q, ct__bat_off(&B, Q, 2, b), q, m, m, qc);
    }
    CT_FREE(a);
    return 0;
}
static int ct__la_k_qr(ct__call *c) {
    const ct_tensor *A = c->in[0];
    if (CT__LA_CX(A->dtype)) return ct__la_k_qr_cx(c);
    ct_tensor *Q = c->out[0], *R = c->out[1];
    int nd = A->ndim, mode = c->a->mode;
    int64_t m = A->shape[nd - 2], n = A->shape[nd - 1], k = m < n ? m : n;
    int64_t qc = mode == CT__LA_QR_COMPLETE ? m : k, rr = R->shape[R->ndim - 2];
    ct__bat B;
    ct__bat_of(&B, A, 2);
    ct_dtype dt = A->dtype;
    size_t es = ct__dt[dt].size;
    ct__la_int lda = (ct__la_int)(m > 0 ? m : 1);
    double q1 = 0, q2 = 0;
    if (m && n) ct__la_geqrf(dt, (ct__la_int)m, (ct__la_int)n, NULL, lda, NULL, &q1, -1);
    if (m && qc && mode != CT__LA_QR_R) ct__la_orgqr(dt, (ct__la_int)m, (ct__la_int)qc, (ct__la_int)k, NULL, lda, NULL, &q2, -1);
    ct__la_int lw1 = ct__la_lwork(dt, &q1), lw2 = ct__la_lwork(dt, &q2), lwork = lw1 > lw2 ? lw1 : lw2;
    char *a = (char *)ct__la_scratch(es * (size_t)(m * n + k + lwork));
    if (!a) return -1;
    char *tau = a + (size_t)(m * n) * es, *work = tau + (size_t)k * es;
    for (int64_t b = 0; b < B.count; b++) {
        ct__la_load(a, dt, 1, m, A, ct__bat_off(&B, A, 2, b));   /* column-major */
        if (m && n) ct__la_geqrf(dt, (ct__la_int)m, (ct__la_int)n, a, lda, tau, work, lwork);
        char *rp = ct__ptr(R) + (size_t)(b * rr * n) * es;
        for (int64_t i = 0; i < rr; i++)
            for (int64_t j = 0; j < n; j++) {
                double v = j >= i && i < k ? ct__load_f64(a + (size_t)(i + j * m) * es, dt) : 0.0;
                ct__store_f64(rp + (size_t)(i * n + j) * es, dt, v);
            }
        if (mode == CT__LA_QR_R) continue;
        char *qp = ct__ptr(Q) + (size_t)(b * m * qc) * es;
        int64_t cp = qc < n ? qc : n;
        memcpy(qp, a, (size_t)(m * cp) * es);
        if (m && qc) ct__la_orgqr(dt, (ct__la_int)m, (ct__la_int)qc, (ct__la_int)k, qp, lda, tau, work, lwork);
    }
    CT_FREE(a);
    return 0;
}
/* symmetric matrix from the lower triangle of X */
static ct_tensor *ct__la_copyltu(const ct_tensor *X) {
    if (X && CT__LA_CX(X->dtype)) {   /* Hermitian, with the real part of X's diagonal (PyTorch's syminvadj) */
        ct_tensor *l = ct__la_tril(X, -1);
        return ct_add(ct_add(l, ct__la_mH(l)), ct__la_diag_embed(ct_real(ct_diagonal(X, 0, -2, -1))));
    }
    return ct_add(ct__la_tril(X, 0), ct_mT(ct__la_tril(X, -1)));
}
/* QR backward (real case; as PyTorch's linalg_qr_backward):
   m >= n: M = R gR^T - gQ^T Q, gA = (gQ + Q copyltu(M)) R^{-T}
   m <  n: A = Q [X | Y], R = [U | V]: gQ' = gQ + Y gV^T, then the square rule for X, gY = Q gV */
static int ct__la_bw_qr(ct__node *nd, ct_tensor *const *gout, ct_tensor **gin) {
    int mode = nd->attrs.mode;
    if (mode == CT__LA_QR_R)
        return ct__failed(CT_ERR_AUTOGRAD, "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
    ct_tensor *Q = CT__SV_OUT(nd, 0), *R = CT__SV_OUT(nd, 1), *gQ = gout[0], *gR = gout[1];
    if (!Q || !R) return -1;
    int64_t m = Q->shape[Q->ndim - 2], n = R->shape[R->ndim - 1];
    if (mode == CT__LA_QR_COMPLETE && m > n)
        return ct__failed(CT_ERR_AUTOGRAD, "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
    if (m >= n) {
        ct_tensor *M = ct_sub(ct_matmul(R, ct__la_mH(gR)), ct_matmul(ct__la_mH(gQ), Q));
        ct_tensor *gA = ct_add(gQ, ct_matmul(Q, ct__la_copyltu(M)));
        gin[0] = ct_linalg_solve_triangular(ct__la_mH(R), gA, 0, 0, 0);
    } else {
        ct_tensor *U = ct_narrow(R, -1, 0, m), *gU = ct_narrow(gR, -1, 0, m), *gV = ct_narrow(gR, -1, m, n - m);
        ct_tensor *Y = ct_matmul(Q, ct_narrow(R, -1, m, n - m));
        ct_tensor *gQ2 = ct_add(gQ, ct_matmul(Y, ct__la_mH(gV)));
        ct_tensor *M = ct_sub(ct_matmul(U, ct__la_mH(gU)), ct_matmul(ct__la_mH(gQ2), Q));
        ct_tensor *gX = ct_linalg_solve_triangular(ct__la_mH(U), ct_add(gQ2, ct_matmul(Q, ct__la_copyltu(M))), 0, 0, 0);
        gin[0] = ct__la_cat2(gX, ct_matmul(Q, gV), -1);
    }
    return gin[0] ? 0 : -1;
}
CTENSOR_API ct_linalg_qr_result ct_linalg_qr(const ct_tensor *A, const char *mode) {
    ct_linalg_qr_result r = {NULL, NULL};
    CT__LA_INIT_OR(r);
    int md;
    if (!mode || !strcmp(mode, "reduced")) md = CT__LA_QR_REDUCED;
    else if (!strcmp(mode, "complete")) md = CT__LA_QR_COMPLETE;
    else if (!strcmp(mode, "r")) md = CT__LA_QR_R;
    else {
        ct_set_error(CT_ERR_ARG, "qr received unrecognized mode '%s' but expected one of 'reduced' (default), 'r', or 'complete'", mode);
        return r;
    }
    ct__attrs a;
    ct__la_attrs(&a, CT__LAN_QR, 0);
    a.mode = md;
    ct_tensor *in[1], *out[2];
    in[0] = (ct_tensor *)A;
    if (ct__la_dispatch(CT__LA_QR, 1, in, &a, out) < 0) return r;
    r.Q = out[0];
    r.R = out[1];
    return r;
}

/* ============================================================================
   Symmetric eigendecomposition: torch.linalg.eigh, eigvalsh (syevd; Jacobi for
   n <= 16)
   ========================================================================== */
static ct__la_int ct__la_syevd(ct_dtype dt, char jobz, char uplo, ct__la_int n, void *a, ct__la_int lda, void *w, void *work,
                               ct__la_int lwork, ct__la_int *iwork, ct__la_int liwork) {
    return CT__LA_D(dt) ? LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, jobz, uplo, n, (double *)a, lda, (double *)w, (double *)work, lwork, iwork, liwork)
                        : LAPACKE_ssyevd_work(LAPACK_COL_MAJOR, jobz, uplo, n, (float *)a, lda, (float *)w, (float *)work, lwork, iwork, liwork);
}
static int ct__la_meta_eigh(ct__call *c) {
    const ct_tensor *A = c->in[0];
    if (ct__la_check_matrix(ct__la_fn(c), A, 1)) return -1;
    int nb = A->ndim - 2;
    int64_t n = A->shape[nb + 1];
    c->nout = 2;
    ct__la_out_b(c, 0, ct__la_real_of(A->dtype), nb, A->shape, 1, n, 0);   /* real eigenvalues */
    if (c->a->flags & CT__LAF_COMPUTE_V) ct__la_out_colmajor(c, 1, A->dtype, nb, A->shape, n, n);
    else { int64_t z = 0; ct__la_out(c, 1, A->dtype, 1, &z); }
    return 0;
}
/* workspace of syevd for n (elements of dt, ints) */
typedef struct ct__la_evws { ct__la_int lwork, liwork; void *work; ct__la_int *iwork; } ct__la_evws;
static int ct__la_evws_alloc(ct__la_evws *ws, ct_dtype dt, char jobz, int64_t n) {
    double q = 0;
    ct__la_int qi = 0;
    ws->work = NULL;
    ws->iwork = NULL;
    ct__la_syevd(dt, jobz, 'L', (ct__la_int)n, NULL, (ct__la_int)(n > 0 ? n : 1), NULL, &q, -1, &qi, -1);
    ws->lwork = ct__la_lwork(dt, &q);
    ws->liwork = qi + 1;
    ws->work = ct__la_scratch(ct__dt[dt].size * (size_t)ws->lwork);
    ws->iwork = (ct__la_int *)ct__la_scratch(sizeof(ct__la_int) * (size_t)ws->liwork);
    return ws->work && ws->iwork ? 0 : -1;
}
/* complex Hermitian: heevd on the column-major copy (reads the UPLO triangle) */
static int ct__la_k_eigh_cx(ct__call *c) {
    const ct_tensor *A = c->in[0];
    ct_tensor *W = c->out[0], *V = c->out[1];
    int nd = A->ndim, wantv = (c->a->flags & CT__LAF_COMPUTE_V) != 0, up = (c->a->flags & CT__LAF_UPPER) != 0;
    int64_t n = A->shape[nd - 1];
    ct__bat B;
    ct__bat_of(&B, A, 2);
    ct_dtype dt = A->dtype;
    size_t es = ct__dt[dt].size, rs = es / 2;
    char *a = (char *)ct__la_scratch(es * (size_t)(n * n + 1));
    if (!a) return -1;
    int rc = 0;
    for (int64_t b = 0; b < B.count && !rc && n; b++) {
        char *wp = ct__ptr(W) + (size_t)(b * n) * rs;
        ct__la_zload(a, n, A, ct__bat_off(&B, A, 2, b));
        ct__la_int r = CT__LA_Z(dt) ? LAPACKE_zheevd(LAPACK_COL_MAJOR, wantv ? 'V' : 'N', up ? 'U' : 'L', (ct__la_int)n, CT__LA_ZD(a), (ct__la_int)n, (double *)(void *)wp)
                                    : LAPACKE_cheevd(LAPACK_COL_MAJOR, wantv ? 'V' : 'N', up ? 'U' : 'L', (ct__la_int)n, CT__LA_ZF(a), (ct__la_int)n, (float *)(void *)wp);
        if (r < 0)
            rc = ct__failed(CT_ERR_NUMERIC, "%s: %sThe algorithm failed to converge because the input matrix contained non-finite values.", ct__la_fn(c),
                            ct__la_batch_prefix(nd > 2, b).s);
        else if (r > 0)
            rc = ct__failed(CT_ERR_NUMERIC, "%s: %sThe algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated eigenvalues (error code: %d).",
                            ct__la_fn(c), ct__la_batch_prefix(nd > 2, b).s, (int)r);
        else if (wantv) ct__la_zstore(V, ct__bat_off(&B, V, 2, b), a, n, n, n);
    }
    CT_FREE(a);
    return rc;
}
static int ct__la_k_eigh(ct__call *c) {
    const ct_tensor *A = c->in[0];
    if (CT__LA_CX(A->dtype)) return ct__la_k_eigh_cx(c);
    ct_tensor *W = c->out[0], *V = c->out[1];
    int nd = A->ndim, wantv = (c->a->flags & CT__LAF_COMPUTE_V) != 0, up = (c->a->flags & CT__LAF_UPPER) != 0;
    int64_t n = A->shape[nd - 1], nn = n * n;
    ct__bat B;
    ct__bat_of(&B, A, 2);
    ct_dtype dt = A->dtype;
    size_t es = ct__dt[dt].size;
    ct__la_evws ws = {0, 0, NULL, NULL};
    char *buf = NULL;
    int rc = 0;
    double a[CT__LA_SMALL * CT__LA_SMALL], v[CT__LA_SMALL * CT__LA_SMALL], w[CT__LA_SMALL];
    /* the stored triangle: UPLO 'L' reads A[i][j], j <= i */
    int64_t sr = A->strides[nd - 2], sc = A->strides[nd - 1];
    if (up) { int64_t t = sr; sr = sc; sc = t; }
    /* whole groups of small matrices in lock-step; the rest, and lanes with
       non-finite entries, one by one below */
    int64_t nfull = n <= CT__LA_SMALL ? B.count / CT__LA_W * CT__LA_W : 0;
    unsigned char *done = NULL;
    if (nfull) {
        double *la = (double *)ct__la_scratch(sizeof(double) * (size_t)(2 * nn * CT__LA_W)), *lv = la + nn * CT__LA_W;
        done = (unsigned char *)ct__la_scratch((size_t)nfull);
        if (!la || !done) { CT_FREE(la); CT_FREE(done); return -1; }
        for (int64_t b0 = 0; b0 < nfull; b0 += CT__LA_W) {
            ct__la_load_w(la, A, &B, 2, b0, CT__LA_W, sr, sc, n, n);
            for (int l = 0; l < CT__LA_W; l++) {
                for (int64_t i = 0; i < n; i++)
                    for (int64_t j = i + 1; j < n; j++) la[(i * n + j) * CT__LA_W + l] = la[(j * n + i) * CT__LA_W + l];
                done[b0 + l] = (unsigned char)ct__la_lane_finite(la, l, nn);
                if (!done[b0 + l])
                    for (int64_t i = 0; i < nn; i++) la[i * CT__LA_W + l] = i % (n + 1) == 0;
            }
            ct__la_jacobi_eigh_w(la, lv, (int)n, wantv);
            for (int l = 0; l < CT__LA_W; l++) {
                if (!done[b0 + l]) continue;
                for (int64_t i = 0; i < n; i++) w[i] = la[(i * n + i) * CT__LA_W + l];
                if (wantv) ct__la_lane_d(v, lv, l, n, n);
                ct__la_eigh_sort_d(v, w, (int)n, wantv);
                ct__la_mcopy(ct__ptr(W) + (size_t)((b0 + l) * n) * es, dt, 1, 0, w, CT_FLOAT64, 1, 0, n, 1);
                if (wantv) ct__la_mcopy(ct__ptr(V) + (size_t)((b0 + l) * nn) * es, dt, 1, n, v, CT_FLOAT64, n, 1, n, n);
            }
        }
        CT_FREE(la);
    }
    for (int64_t b = 0; b < B.count && !rc; b++) {
        if (b < nfull && done[b]) continue;
        int64_t off = ct__bat_off(&B, A, 2, b);
        char *wp = ct__ptr(W) + (size_t)(b * n) * es;
        if (n <= CT__LA_SMALL) {
            ct__la_mcopy(a, CT_FLOAT64, n, 1, ct__la_at(A, off), dt, sr, sc, n, n);
            for (int64_t i = 0; i < n; i++) for (int64_t j = i + 1; j < n; j++) a[i * n + j] = a[j * n + i];
            if (ct__la_finite_d(a, nn)) {
                ct__la_jacobi_eigh_d(a, v, w, (int)n, wantv);
                ct__la_mcopy(wp, dt, 1, 0, w, CT_FLOAT64, 1, 0, n, 1);
                if (wantv) ct__la_mcopy(ct__ptr(V) + (size_t)(b * nn) * es, dt, 1, n, v, CT_FLOAT64, n, 1, n, n);
                continue;
            }
        }
        /* LAPACK: the row-major copy is A^T column-major, whose upper triangle is
           A's lower one; eigenvectors come back column-major in place */
        if (!ws.work) {
            if (ct__la_evws_alloc(&ws, dt, wantv ? 'V' : 'N', n)) { rc = -1; break; }
            if (!wantv && !(buf = (char *)ct__la_scratch(es * (size_t)nn))) { rc = -1; break; }
        }
        char *dst = wantv ? ct__ptr(V) + (size_t)(b * nn) * es : buf;
        ct__la_load(dst, dt, n, 1, A, off);
        ct__la_int r = n ? ct__la_syevd(dt, wantv ? 'V' : 'N', up ? 'L' : 'U', (ct__la_int)n, dst, (ct__la_int)n, wp, ws.work, ws.lwork,
                                        ws.iwork, ws.liwork) : 0;
        if (r > 0)
            rc = ct__failed(CT_ERR_NUMERIC, "%s: %sThe algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated eigenvalues (error code: %d).",
                            ct__la_fn(c), ct__la_batch_prefix(nd > 2, b).s, (int)r);
    }
    CT_FREE(ws.work);
    CT_FREE(ws.iwork);
    CT_FREE(buf);
    CT_FREE(done);
    return rc;
}
/* gA = V (diag(gw) + ((V^T gV - gV^T V) / 2) / E) V^T, E_ij = w_j - w_i (PyTorch's
   linalg_eig_backward, Hermitian case); the result is symmetric */
/* PyTorch's check that a loss of complex eigen- or singular vectors does not
   depend on their phases (each is defined up to a factor e^{i phi}): im(diag(a))
   equals -im(diag(b)) (b NULL: 0), as allclose with rtol = atol = 1e-2 */
static int ct__la_phase_ok(const char *api, const char *msg, const ct_tensor *a, const ct_tensor *b) {
    if (!a || !CT__LA_CX(a->dtype)) return a ? 0 : -1;
    int sc = ct_scope_begin();
    ct_tensor *x = ct_contiguous(ct_imag(ct_diagonal(a, 0, -2, -1)));
    ct_tensor *y = b ? ct_neg(ct_imag(ct_diagonal(b, 0, -2, -1))) : ct_zeros_like(x);
    int ok = x && y ? ct_allclose(x, y, 1e-2, 1e-2) : -1;
    ct_scope_end(sc);
    if (ok == 0) return ct__failed(CT_ERR_AUTOGRAD, "%s: %s", api, msg);
    return ok < 0 ? -1 : 0;
}
#define CT__LA_PHASE_EIG "The eigenvectors in the complex case are specified up to multiplication by e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined."
#define CT__LA_PHASE_SVD "The singular vectors in the complex case are specified up to multiplication by e^{i phi}. The specified loss function depends on this phase term, making it ill-defined."
static int ct__la_bw_eigh(ct__node *nd, ct_tensor *const *gout, ct_tensor **gin) {
    if (!(nd->attrs.flags & CT__LAF_COMPUTE_V))
        return ct__failed(CT_ERR_AUTOGRAD, "linalg.eigh: the eigenvectors were not computed; differentiate linalg.eigh or call eigvalsh with grad mode on");
    ct_tensor *w = CT__SV_OUT(nd, 0), *V = CT__SV_OUT(nd, 1), *gw = gout[0], *gV = gout[1];
    if (!w || !V) return -1;
    ct_tensor *inner = ct__la_diag_embed(gw);
    if (!ct__la_all_zero(gV)) {
        ct_tensor *K = ct_matmul(ct__la_mH(V), gV);
        if (ct__la_phase_ok("linalg_eigh_backward", CT__LA_PHASE_EIG, K, NULL)) return -1;
        ct_tensor *S = ct_mul_scalar(ct_sub(K, ct__la_mH(K)), 0.5);
        ct_tensor *E = ct_sub(ct_unsqueeze(w, -2), ct_unsqueeze(w, -1));
        E = ct_add(E, ct__la_eye_like(E));
        if (S && CT__LA_CX(S->dtype))   /* the diagonal (i im(V^H gV)_ii) is gL's place: dropped, as PyTorch's */
            S = ct_mul(S, ct_rsub_scalar(1.0, ct__la_eye_like(E)));
        inner = ct_add(inner, ct_div(S, E));
    }
    if (inner && CT__LA_CX(V->dtype) && !CT__LA_CX(inner->dtype)) inner = ct_to(inner, V->dtype);
    gin[0] = ct_matmul(V, ct_matmul(inner, ct__la_mH(V)));
    return gin[0] ? 0 : -1;
}
static int ct__la_uplo(const char *UPLO, int *upper) {
    if (!UPLO || !strcmp(UPLO, "L") || !strcmp(UPLO, "l")) { *upper = 0; return 0; }
    if (!strcmp(UPLO, "U") || !strcmp(UPLO, "u")) { *upper = 1; return 0; }
    return ct__failed(CT_ERR_ARG, "Expected UPLO argument to be 'L' or 'U', but got %s", UPLO);
}
static ct_linalg_eig_result ct__la_eigh(const ct_tensor *A, const char *UPLO, int wantv, int fname) {
    ct_linalg_eig_result r = {NULL, NULL};
    CT__LA_INIT_OR(r);
    int upper = 0;
    if (ct__la_uplo(UPLO, &upper)) return r;
    ct__attrs a;
    ct__la_attrs(&a, fname, (upper ? CT__LAF_UPPER : 0) | (wantv ? CT__LAF_COMPUTE_V : 0));
    ct_tensor *in[1], *out[2];
    in[0] = (ct_tensor *)A;
    if (ct__la_dispatch(CT__LA_EIGH, 1, in, &a, out) < 0) return r;
    r.eigenvalues = out[0];
    r.eigenvectors = out[1];
    return r;
}
CTENSOR_API ct_linalg_eig_result ct_linalg_eigh(const ct_tensor *A, const char *UPLO) { return ct__la_eigh(A, UPLO, 1, CT__LAN_EIGH); }
/* Eigenvectors are computed only when the gradient will need them (as PyTorch does). */
CTENSOR_API ct_tensor *ct_linalg_eigvalsh(const ct_tensor *A, const char *UPLO) {
    int wantv = A && ct_is_grad_enabled() && (A->flags & CT__F_REQUIRES_GRAD);
    return ct__la_eigh(A, UPLO, wantv, CT__LAN_EIGVALSH).eigenvalues;
}

/* ============================================================================
   General eigendecomposition: torch.linalg.eig, eigvals (geev; complex outputs)
   ========================================================================== */
static int ct__la_meta_eig(ct__call *c) {
    const ct_tensor *A = c->in[0];
    if (ct__la_check_matrix(ct__la_fn(c), A, 1)) return -1;
    int nb = A->ndim - 2;
    int64_t n = A->shape[nb + 1];
    ct_dtype cdt = A->dtype == CT_FLOAT64 || A->dtype == CT_COMPLEX128 ? CT_COMPLEX128 : CT_COMPLEX64;
    c->nout = 2;
    ct__la_out_b(c, 0, cdt, nb, A->shape, 1, n, 0);
    if ((c->a->flags & CT__LAF_COMPUTE_V) && CT__LA_CX(A->dtype)) ct__la_out_colmajor(c, 1, cdt, nb, A->shape, n, n);   /* geev writes it */
    else if (c->a->flags & CT__LAF_COMPUTE_V) ct__la_out_b(c, 1, cdt, nb, A->shape, 2, n, n);
    else { int64_t z = 0; ct__la_out(c, 1, cdt, 1, &z); }
    return 0;
}
/* complex input: geev on the column-major copy */
static int ct__la_k_eig_cx(ct__call *c) {
    const ct_tensor *A = c->in[0];
    ct_tensor *L = c->out[0], *V = c->out[1];
    int nd = A->ndim, wantv = (c->a->flags & CT__LAF_COMPUTE_V) != 0;
    int64_t n = A->shape[nd - 1], nn = n * n;
    ct__bat B;
    ct__bat_of(&B, A, 2);
    ct_dtype dt = A->dtype;
    size_t es = ct__dt[dt].size;
    char *a = (char *)ct__la_scratch(es * (size_t)(nn + 1)), *vr;
    if (!a) return -1;
    int rc = 0;
    for (int64_t b = 0; b < B.count && !rc && n; b++) {
        char *lp = ct__ptr(L) + (size_t)(b * n) * es;
        vr = wantv ? ct__la_at(V, ct__bat_off(&B, V, 2, b)) : a;   /* column-major per matrix */
        ct__la_zload(a, n, A, ct__bat_off(&B, A, 2, b));
        ct__la_int r = CT__LA_Z(dt) ? LAPACKE_zgeev(LAPACK_COL_MAJOR, 'N', wantv ? 'V' : 'N', (ct__la_int)n, CT__LA_ZD(a), (ct__la_int)n, CT__LA_ZD(lp), NULL, 1,
                                                    CT__LA_ZD(vr), (ct__la_int)n)
                                    : LAPACKE_cgeev(LAPACK_COL_MAJOR, 'N', wantv ? 'V' : 'N', (ct__la_int)n, CT__LA_ZF(a), (ct__la_int)n, CT__LA_ZF(lp), NULL, 1,
                                                    CT__LA_ZF(vr), (ct__la_int)n);
        if (r < 0) rc = ct__failed(CT_ERR_NUMERIC, "torch.linalg.eig: input tensor should not contain infs or NaNs.");
        else if (r > 0)
            rc = ct__failed(CT_ERR_NUMERIC, "%s: %sThe algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated eigenvalues (error code: %d).",
                            ct__la_fn(c), ct__la_batch_prefix(nd > 2, b).s, (int)r);
    }
    CT_FREE(a);
    return rc;
}
static int ct__la_k_eig(ct__call *c) {
    const ct_tensor *A = c->in[0];
    if (CT__LA_CX(A->dtype)) return ct__la_k_eig_cx(c);
    ct_tensor *L = c->out[0], *V = c->out[1];
    int nd = A->ndim, wantv = (c->a->flags & CT__LAF_COMPUTE_V) != 0;
    int64_t n = A->shape[nd - 1], nn = n * n;
    ct__bat B;
    ct__bat_of(&B, A, 2);
    ct_dtype dt = A->dtype;
    int dbl = dt == CT_FLOAT64;
    /* computed in double (real geev); stored in the output's precision */
    double q = 0;
    ct__la_int ldn = (ct__la_int)(n > 0 ? n : 1);
    if (n) LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', wantv ? 'V' : 'N', (ct__la_int)n, NULL, ldn, NULL, NULL, NULL, 1, NULL, ldn, &q, -1);
    ct__la_int lwork = (ct__la_int)q + 1;
    double *a = (double *)ct__la_scratch(sizeof(double) * (size_t)(2 * nn + 2 * n + lwork));
    if (!a) return -1;
    double *vr = a + nn, *wr = vr + nn, *wi = wr + n, *work = wi + n;
    int rc = 0;
    for (int64_t b = 0; b < B.count && !rc; b++) {
        ct__la_load(a, CT_FLOAT64, 1, n, A, ct__bat_off(&B, A, 2, b));   /* column-major */
        if (!ct__la_finite_d(a, nn)) { rc = ct__failed(CT_ERR_NUMERIC, "torch.linalg.eig: input tensor should not contain infs or NaNs."); break; }
        ct__la_int r = n ? LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', wantv ? 'V' : 'N', (ct__la_int)n, a, ldn, wr, wi, NULL, 1, vr, ldn, work, lwork) : 0;
        if (r > 0) {
            rc = ct__failed(CT_ERR_NUMERIC, "%s: %sThe algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated eigenvalues (error code: %d).",
                            ct__la_fn(c), ct__la_batch_prefix(nd > 2, b).s, (int)r);
            break;
        }
        char *lp = ct__ptr(L) + (size_t)(b * n) * (dbl ? 16 : 8);
        for (int64_t j = 0; j < n; j++) {
            if (dbl) { ((double *)lp)[2 * j] = wr[j]; ((double *)lp)[2 * j + 1] = wi[j]; }
            else { ((float *)lp)[2 * j] = (float)wr[j]; ((float *)lp)[2 * j + 1] = (float)wi[j]; }
        }
        if (!wantv) continue;
        char *vp = ct__ptr(V) + (size_t)(b * nn) * (dbl ? 16 : 8);
        for (int64_t j = 0; j < n; j++) {
            /* a complex pair (wi[j] > 0) stores re and im in columns j, j+1 */
            int pair = wi[j] != 0.0 && j + 1 < n;
            for (int64_t i = 0; i < n; i++) {
                double re = vr[i + j * n], im = pair ? vr[i + (j + 1) * n] : 0.0;
                int64_t e0 = 2 * (i * n + j), e1 = 2 * (i * n + j + 1);
                if (dbl) {
                    ((double *)vp)[e0] = re; ((double *)vp)[e0 + 1] = im;
                    if (pair) { ((double *)vp)[e1] = re; ((double *)vp)[e1 + 1] = -im; }
                } else {
                    ((float *)vp)[e0] = (float)re; ((float *)vp)[e0 + 1] = (float)im;
                    if (pair) { ((float *)vp)[e1] = (float)re; ((float *)vp)[e1 + 1] = (float)-im; }
                }
            }
            if (pair) j++;
        }
    }
    CT_FREE(a);
    return rc;
}
/* complex helpers for eig's backward (double, row-major n x n) */
typedef struct ct__cd { double re, im; } ct__cd;
CT__INLINE ct__cd ct__cmul(ct__cd a, ct__cd b) { ct__cd r; r.re = a.re * b.re - a.im * b.im; r.im = a.re * b.im + a.im * b.re; return r; }
CT__INLINE ct__cd ct__cdiv(ct__cd a, ct__cd b) {
    double d = b.re * b.re + b.im * b.im;
    ct__cd r;
    r.re = (a.re * b.re + a.im * b.im) / d;
    r.im = (a.im * b.re - a.re * b.im) / d;
    return r;
}
/* a complex tensor's elements as double pairs, in C order (NULL input: zeros) */
static double *ct__la_cload(const ct_tensor *t, int64_t count) {
    double *p = (double *)ct__la_scratch(sizeof(double) * (size_t)(2 * (count > 0 ? count : 1)));
    if (!p) return NULL;
    if (!t) { memset(p, 0, sizeof(double) * (size_t)(2 * count)); return p; }
    ct_tensor *r = ct_contiguous(ct_to(ct_view_as_real(t), CT_FLOAT64));
    if (!r) { CT_FREE(p); return NULL; }
    memcpy(p, ct__ptr(r), sizeof(double) * (size_t)(2 * count));
    return p;
}
/* PyTorch's linalg_eig_backward (non-Hermitian), real part for a real input:
   gA = re(V^{-H} (diag(gL) + (V^H gV - V^H V diag(re(diag(V^H gV)))) / conj(E)) V^H) */
static int ct__la_bw_eig(ct__node *nd, ct_tensor *const *gout, ct_tensor **gin) {
    if (ct_is_grad_enabled())
        return ct__failed(CT_ERR_AUTOGRAD, "linalg.eig: second derivatives are not implemented");
    if (!(nd->attrs.flags & CT__LAF_COMPUTE_V))
        return ct__failed(CT_ERR_AUTOGRAD, "linalg.eig: the eigenvectors were not computed; differentiate linalg.eig");
    ct_tensor *L = CT__SV_OUT(nd, 0), *V = CT__SV_OUT(nd, 1);
    if (!L || !V) return -1;
    int64_t n = L->shape[L->ndim - 1], nn = n * n, count = n ? ct_numel(L) / n : 0;
    ct__tmeta *am = &nd->in_meta[0];
    int cxin = CT__LA_CX(am->dtype);   /* complex input: the whole complex gradient; real: its real part */
    ct_tensor *gA = ct_zeros_n(cxin ? CT_COMPLEX128 : CT_FLOAT64, am->ndim, am->shape);
    double *lp = ct__la_cload(L, count * n), *vp = ct__la_cload(V, count * nn);
    double *glp = ct__la_cload(gout[0], count * n), *gvp = ct__la_cload(gout[1], count * nn);
    ct__cd *w = (ct__cd *)ct__la_scratch(sizeof(ct__cd) * (size_t)(3 * nn + n + 1));
    ct__la_int *ipiv = (ct__la_int *)ct__la_scratch(sizeof(ct__la_int) * (size_t)(n + 1));
    int rc = 0;
    if (!gA || !lp || !vp || !glp || !gvp || !w || !ipiv) rc = -1;
    for (int64_t b = 0; b < count && !rc; b++) {
        const ct__cd *Lb = (const ct__cd *)lp + b * n, *Vb = (const ct__cd *)vp + b * nn;
        const ct__cd *gLb = (const ct__cd *)glp + b * n, *gVb = (const ct__cd *)gvp + b * nn;
        ct__cd *K = w, *M = w + nn, *VH = w + 2 * nn;   /* VH: V^H, column-major */
        double *dre = (double *)(w + 3 * nn);
        for (int64_t i = 0; i < n; i++)                 /* K = V^H gV */
            for (int64_t j = 0; j < n; j++) {
                ct__cd s = {0.0, 0.0};
                for (int64_t r = 0; r < n; r++) {
                    ct__cd vc = Vb[r * n + i];
                    vc.im = -vc.im;
                    ct__cd p = ct__cmul(vc, gVb[r * n + j]);
                    s.re += p.re; s.im += p.im;
                }
                K[i * n + j] = s;
            }
        for (int64_t j = 0; j < n && !rc; j++)   /* PyTorch's phase check: im(diag(V^H gV)) ~ 0 (allclose, 1e-2) */
            if (!(fabs(K[j * n + j].im) <= 1e-2)) rc = ct__failed(CT_ERR_AUTOGRAD, "linalg_eig_backward: %s", CT__LA_PHASE_EIG);
        if (rc) break;
        for (int64_t j = 0; j < n; j++) dre[j] = K[j * n + j].re;
        for (int64_t i = 0; i < n; i++)                 /* K -= V^H V diag(re(diag K)) */
            for (int64_t j = 0; j < n; j++) {
                if (dre[j] == 0.0) continue;
                ct__cd s = {0.0, 0.0};
                for (int64_t r = 0; r < n; r++) {
                    ct__cd vc = Vb[r * n + i];
                    vc.im = -vc.im;
                    ct__cd p = ct__cmul(vc, Vb[r * n + j]);
                    s.re += p.re; s.im += p.im;
                }
                K[i * n + j].re -= s.re * dre[j];
                K[i * n + j].im -= s.im * dre[j];
            }
        for (int64_t i = 0; i < n; i++)                 /* / conj(L_j - L_i), diagonal = gL */
            for (int64_t j = 0; j < n; j++) {
                if (i == j) { if (gout[0]) K[i * n + i] = gLb[i]; continue; }
                ct__cd e;
                e.re = Lb[j].re - Lb[i].re;
                e.im = -(Lb[j].im - Lb[i].im);
                K[i * n + j] = ct__cdiv(K[i * n + j], e);
            }
        /* M = K V^H; then solve V^H X = M (zgesv, column-major) */
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                ct__cd s = {0.0, 0.0};
                for (int64_t r = 0; r < n; r++) {
                    ct__cd vc = Vb[j * n + r];
                    vc.im = -vc.im;
                    ct__cd p = ct__cmul(K[i * n + r], vc);
                    s.re += p.re; s.im += p.im;
                }
                M[i + j * n] = s;                       /* column-major */
            }
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {           /* V^H (i, j) = conj(V (j, i)), column-major */
                ct__cd vc = Vb[j * n + i];
                vc.im = -vc.im;
                VH[i + j * n] = vc;
            }
        ct__la_int r = n ? LAPACKE_zgesv_work(LAPACK_COL_MAJOR, (ct__la_int)n, (ct__la_int)n, (ct__lapack_cd *)VH, (ct__la_int)n, ipiv,
                                              (ct__lapack_cd *)M, (ct__la_int)n) : 0;
        if (r > 0) { rc = ct__failed(CT_ERR_NUMERIC, "linalg.eig backward: the eigenvector matrix is singular"); break; }
        double *gp = (double *)ct__ptr(gA) + b * nn * (cxin ? 2 : 1);
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                if (cxin) { gp[2 * (i * n + j)] = M[i + j * n].re; gp[2 * (i * n + j) + 1] = M[i + j * n].im; }
                else gp[i * n + j] = M[i + j * n].re;
            }
    }
    CT_FREE(lp); CT_FREE(vp); CT_FREE(glp); CT_FREE(gvp); CT_FREE(w); CT_FREE(ipiv);
    if (rc) return -1;
    gin[0] = ct_to(gA, am->dtype);
    return gin[0] ? 0 : -1;
}
static ct_linalg_eig_result ct__la_eig(const ct_tensor *A, int wantv, int fname) {
    ct_linalg_eig_result r = {NULL, NULL};
    CT__LA_INIT_OR(r);
    ct__attrs a;
    ct__la_attrs(&a, fname, wantv ? CT__LAF_COMPUTE_V : 0);
    ct_tensor *in[1], *out[2];
    in[0] = (ct_tensor *)A;
    if (ct__la_dispatch(CT__LA_EIG, 1, in, &a, out) < 0) return r;
    r.eigenvalues = out[0];
    r.eigenvectors = out[1];
    return r;
}
CTENSOR_API ct_linalg_eig_result ct_linalg_eig(const ct_tensor *A) { return ct__la_eig(A, 1, CT__LAN_EIG); }
CTENSOR_API ct_tensor *ct_linalg_eigvals(const ct_tensor *A) {
    int wantv = A && ct_is_grad_enabled() && (A->flags & CT__F_REQUIRES_GRAD);
    return ct__la_eig(A, wantv, CT__LAN_EIGVALS).eigenvalues;
}

/* ============================================================================
   SVD: torch.linalg.svd, svdvals (gesdd; one-sided Jacobi for n <= 16)
   ========================================================================== */
static ct__la_int ct__la_gesdd(ct_dtype dt, char jobz, ct__la_int m, ct__la_int n, void *a, ct__la_int lda, void *s, void *u, ct__la_int ldu,
                               void *vt, ct__la_int ldvt, void *work, ct__la_int lwork, ct__la_int *iwork) {
    return CT__LA_D(dt) ? LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, jobz, m, n, (double *)a, lda, (double *)s, (double *)u, ldu, (double *)vt, ldvt,
                                              (double *)work, lwork, iwork)
                        : LAPACKE_sgesdd_work(LAPACK_COL_MAJOR, jobz, m, n, (float *)a, lda, (float *)s, (float *)u, ldu, (float *)vt, ldvt,
                                              (float *)work, lwork, iwork);
}
static int ct__la_meta_svd(ct__call *c) {
    const ct_tensor *A = c->in[0];
    if (ct__la_check_matrix(ct__la_fn(c), A, 0)) return -1;
    int nb = A->ndim - 2, full = (c->a->flags & CT__LAF_FULL) != 0;
    int64_t m = A->shape[nb], n = A->shape[nb + 1], k = m < n ? m : n, z = 0;
    c->nout = 3;
    ct__la_out_b(c, 1, ct__la_real_of(A->dtype), nb, A->shape, 1, k, 0);   /* real singular values */
    if ((c->a->flags & CT__LAF_COMPUTE_V) && CT__LA_CX(A->dtype)) {   /* complex: gesdd writes U and V^H in place */
        ct__la_out_colmajor(c, 0, A->dtype, nb, A->shape, m, full ? m : k);
        ct__la_out_colmajor(c, 2, A->dtype, nb, A->shape, full ? n : k, n);
    } else if (c->a->flags & CT__LAF_COMPUTE_V) {
        ct__la_out_b(c, 0, A->dtype, nb, A->shape, 2, m, full ? m : k);
        ct__la_out_b(c, 2, A->dtype, nb, A->shape, 2, full ? n : k, n);
    } else {
        ct__la_out(c, 0, A->dtype, 1, &z);
        ct__la_out(c, 2, A->dtype, 1, &z);
    }
    return 0;
}
/* gesdd on the row-major copy a of A (m x n) = column-major A^T: A^T = U' S V'^T, so
   U = V' and Vh = U'^T, and both land row-major in their outputs (u: Vh's memory,
   vt: U's memory). */
typedef struct ct__la_svdws { ct__la_int lwork; void *work; ct__la_int *iwork; } ct__la_svdws;
static int ct__la_svdws_alloc(ct__la_svdws *ws, ct_dtype dt, char jobz, int64_t m, int64_t n) {
    int64_t k = m < n ? m : n, uc = jobz == 'A' ? m : k;
    double q = 0, dummy = 0;
    ct__la_int idummy = 0;
    ws->work = NULL;
    ws->iwork = NULL;
    ct__la_gesdd(dt, jobz, (ct__la_int)n, (ct__la_int)m, &dummy, (ct__la_int)(n > 0 ? n : 1), &dummy, &dummy, (ct__la_int)(n > 0 ? n : 1),
                 &dummy, (ct__la_int)(uc > 0 ? uc : 1), &q, -1, &idummy);
    ws->lwork = ct__la_lwork(dt, &q);
    ws->work = ct__la_scratch(ct__dt[dt].size * (size_t)ws->lwork);
    ws->iwork = (ct__la_int *)ct__la_scratch(sizeof(ct__la_int) * (size_t)(8 * k + 1));
    return ws->work && ws->iwork ? 0 : -1;
}
/* complex: gesdd on the column-major copy, U and V^H copied out */
static int ct__la_k_svd_cx(ct__call *c) {
    const ct_tensor *A = c->in[0];
    ct_tensor *U = c->out[0], *S = c->out[1], *Vh = c->out[2];
    int nd = A->ndim, full = (c->a->flags & CT__LAF_FULL) != 0, wantv = (c->a->flags & CT__LAF_COMPUTE_V) != 0;
    int64_t m = A->shape[nd - 2], n = A->shape[nd - 1], k = m < n ? m : n;
    int64_t uc = full ? m : k, vr = full ? n : k;
    ct__bat B;
    ct__bat_of(&B, A, 2);
    ct_dtype dt = A->dtype;
    size_t es = ct__dt[dt].size, rs = es / 2;
    char jobz = wantv ? (full ? 'A' : 'S') : 'N';
    char *a = (char *)ct__la_scratch(es * (size_t)(m * n + 2));
    if (!a) return -1;
    int rc = 0;
    for (int64_t b = 0; b < B.count && !rc; b++) {
        char *sp = ct__ptr(S) + (size_t)(b * k) * rs;
        /* U and V^H are column-major per matrix (the meta's layout): LAPACK writes them */
        char *u = wantv ? ct__la_at(U, ct__bat_off(&B, U, 2, b)) : a + (size_t)(m * n) * es;
        char *vt = wantv ? ct__la_at(Vh, ct__bat_off(&B, Vh, 2, b)) : u;
        if (k) {
            ct__la_zload(a, m, A, ct__bat_off(&B, A, 2, b));
            ct__la_int ldu = (ct__la_int)m, ldvt = CT__LA_LD(vr);
            ct__la_int r = CT__LA_Z(dt) ? LAPACKE_zgesdd(LAPACK_COL_MAJOR, jobz, (ct__la_int)m, (ct__la_int)n, CT__LA_ZD(a), ldu, (double *)(void *)sp,
                                                         CT__LA_ZD(u), ldu, CT__LA_ZD(vt), ldvt)
                                        : LAPACKE_cgesdd(LAPACK_COL_MAJOR, jobz, (ct__la_int)m, (ct__la_int)n, CT__LA_ZF(a), ldu, (float *)(void *)sp,
                                                         CT__LA_ZF(u), ldu, CT__LA_ZF(vt), ldvt);
            if (r != 0) {
                rc = ct__failed(CT_ERR_NUMERIC, "%s: The algorithm failed to converge because the input matrix contained non-finite values.", ct__la_fn(c));
                break;
            }
        }
        if (!wantv) continue;
        if (!k) {   /* empty: U and V^H are identities (full_matrices) */
            for (int64_t i = 0; i < m; i++) for (int64_t j = 0; j < uc; j++) ct__la_zset(dt, ct__la_at(U, ct__bat_off(&B, U, 2, b)), i * U->strides[nd - 2] + j * U->strides[nd - 1], i == j, 0.0);
            for (int64_t i = 0; i < vr; i++) for (int64_t j = 0; j < n; j++) ct__la_zset(dt, ct__la_at(Vh, ct__bat_off(&B, Vh, 2, b)), i * Vh->strides[nd - 2] + j * Vh->strides[nd - 1], i == j, 0.0);
        }
    }
    CT_FREE(a);
    return rc;
}
static int ct__la_k_svd(ct__call *c) {
    const ct_tensor *A = c->in[0];
    if (CT__LA_CX(A->dtype)) return ct__la_k_svd_cx(c);
    ct_tensor *U = c->out[0], *S = c->out[1], *Vh = c->out[2];
    int nd = A->ndim, full = (c->a->flags & CT__LAF_FULL) != 0, wantv = (c->a->flags & CT__LAF_COMPUTE_V) != 0;
    int64_t m = A->shape[nd - 2], n = A->shape[nd - 1], k = m < n ? m : n;
    int64_t uc = full ? m : k, vr = full ? n : k;
    ct__bat B;
    ct__bat_of(&B, A, 2);
    ct_dtype dt = A->dtype;
    size_t es = ct__dt[dt].size;
    char jobz = wantv ? (full ? 'A' : 'S') : 'N';
    ct__la_svdws ws = {0, NULL, NULL};
    char *a = NULL;
    double dummy[1];
    int rc = 0;
    double cols[CT__LA_SMALL * CT__LA_SMALL], vc[CT__LA_SMALL * CT__LA_SMALL], s[CT__LA_SMALL];
    int small = m <= CT__LA_SMALL && n <= CT__LA_SMALL && (!full || m == n || !wantv);
    /* whole groups of small matrices in lock-step; the rest, lanes with non-finite
       entries and lanes the Jacobi result does not serve, one by one below */
    int64_t nfull = small && k > 0 ? B.count / CT__LA_W * CT__LA_W : 0;
    unsigned char *done = NULL;
    if (nfull) {
        int64_t len = m >= n ? m : n, r = k;
        double *lc = (double *)ct__la_scratch(sizeof(double) * (size_t)((len * r + r * r) * CT__LA_W)), *lvc = lc + len * r * CT__LA_W;
        done = (unsigned char *)ct__la_scratch((size_t)nfull);
        if (!lc || !done) { CT_FREE(lc); CT_FREE(done); return -1; }
        /* column j of A (m >= n) or of A^T (m < n) is lane row j: read A with strides swapped */
        int64_t sr = A->strides[nd - 2], sc = A->strides[nd - 1];
        for (int64_t b0 = 0; b0 < nfull; b0 += CT__LA_W) {
            if (m >= n) ct__la_load_w(lc, A, &B, 2, b0, CT__LA_W, sc, sr, r, len);
            else ct__la_load_w(lc, A, &B, 2, b0, CT__LA_W, sr, sc, r, len);
            for (int l = 0; l < CT__LA_W; l++) {
                done[b0 + l] = (unsigned char)ct__la_lane_finite(lc, l, len * r);
                if (!done[b0 + l])
                    for (int64_t i = 0; i < len * r; i++) lc[i * CT__LA_W + l] = i % (len + 1) == 0;
            }
            ct__la_jacobi_svd_w(lc, (int)len, (int)r, lvc);
            for (int l = 0; l < CT__LA_W; l++) {
                int64_t b = b0 + l;
                if (!done[b]) continue;
                ct__la_lane_d(cols, lc, l, r, len);
                ct__la_lane_d(vc, lvc, l, r, r);
                if (ct__la_jacobi_svd_finish_d(cols, (int)len, (int)r, vc, s, wantv)) { done[b] = 0; continue; }
                char *up = wantv ? ct__ptr(U) + (size_t)(b * m * uc) * es : NULL, *vp = wantv ? ct__ptr(Vh) + (size_t)(b * vr * n) * es : NULL;
                ct__la_mcopy(ct__ptr(S) + (size_t)(b * k) * es, dt, 1, 0, s, CT_FLOAT64, 1, 0, k, 1);
                if (wantv) {
                    if (m >= n) {
                        ct__la_mcopy(up, dt, uc, 1, cols, CT_FLOAT64, 1, m, m, n);
                        ct__la_mcopy(vp, dt, n, 1, vc, CT_FLOAT64, n, 1, n, n);
                    } else {
                        ct__la_mcopy(up, dt, uc, 1, vc, CT_FLOAT64, 1, m, m, m);
                        ct__la_mcopy(vp, dt, n, 1, cols, CT_FLOAT64, n, 1, m, n);
                    }
                }
            }
        }
        CT_FREE(lc);
    }
    for (int64_t b = 0; b < B.count && !rc; b++) {
        if (b < nfull && done[b]) continue;
        int64_t off = ct__bat_off(&B, A, 2, b);
        char *up = wantv ? ct__ptr(U) + (size_t)(b * m * uc) * es : NULL, *vp = wantv ? ct__ptr(Vh) + (size_t)(b * vr * n) * es : NULL;
        char *sp = ct__ptr(S) + (size_t)(b * k) * es;
        if (k == 0) {   /* full_matrices on an empty matrix: identities */
            if (wantv && full) {
                for (int64_t i = 0; i < m * m; i++) ct__store_f64(up + (size_t)i * es, dt, i % (m + 1) == 0);
                for (int64_t i = 0; i < n * n; i++) ct__store_f64(vp + (size_t)i * es, dt, i % (n + 1) == 0);
            }
            continue;
        }
        if (small) {
            int jr;
            if (m >= n) ct__la_load(cols, CT_FLOAT64, 1, m, A, off);   /* column j at cols + j*m */
            else ct__la_load(cols, CT_FLOAT64, n, 1, A, off);          /* rows of A = columns of A^T */
            if (!ct__la_finite_d(cols, m * n)) {
                rc = ct__failed(CT_ERR_NUMERIC, "%s: The algorithm failed to converge because the input matrix contained non-finite values.", ct__la_fn(c));
                break;
            }
            jr = m >= n ? ct__la_jacobi_svd_d(cols, (int)m, (int)n, vc, s, wantv) : ct__la_jacobi_svd_d(cols, (int)n, (int)m, vc, s, wantv);
            if (!jr) {
                ct__la_mcopy(sp, dt, 1, 0, s, CT_FLOAT64, 1, 0, k, 1);
                if (wantv) {
                    if (m >= n) {
                        ct__la_mcopy(up, dt, uc, 1, cols, CT_FLOAT64, 1, m, m, n);
                        ct__la_mcopy(vp, dt, n, 1, vc, CT_FLOAT64, n, 1, n, n);
                    } else {
                        ct__la_mcopy(up, dt, uc, 1, vc, CT_FLOAT64, 1, m, m, m);
                        ct__la_mcopy(vp, dt, n, 1, cols, CT_FLOAT64, n, 1, m, n);
                    }
                }
                continue;
            }
        }
        if (!ws.work) {
            if (ct__la_svdws_alloc(&ws, dt, jobz, m, n) || !(a = (char *)ct__la_scratch(es * (size_t)(m * n)))) { rc = -1; break; }
        }
        ct__la_load(a, dt, n, 1, A, off);
        if (dt == CT_FLOAT64 ? !ct__la_finite_d((const double *)a, m * n) : 0) {
            rc = ct__failed(CT_ERR_NUMERIC, "%s: The algorithm failed to converge because the input matrix contained non-finite values.", ct__la_fn(c));
            break;
        }
        if (dt == CT_FLOAT32) {
            int fin = 1;
            for (int64_t i = 0; i < m * n && fin; i++) fin = isfinite(((float *)a)[i]);
            if (!fin) { rc = ct__failed(CT_ERR_NUMERIC, "%s: The algorithm failed to converge because the input matrix contained non-finite values.", ct__la_fn(c)); break; }
        }
        ct__la_int r = ct__la_gesdd(dt, jobz, (ct__la_int)n, (ct__la_int)m, a, (ct__la_int)(n > 0 ? n : 1), sp, wantv ? (void *)vp : (void *)dummy,
                                    (ct__la_int)(n > 0 ? n : 1), wantv ? (void *)up : (void *)dummy, (ct__la_int)(uc > 0 ? uc : 1), ws.work, ws.lwork, ws.iwork);
        if (r > 0)
            rc = ct__failed(CT_ERR_NUMERIC, "%s: %sThe algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated singular values (error code: %d).",
                            ct__la_fn(c), ct__la_batch_prefix(nd > 2, b).s, (int)r);
    }
    CT_FREE(ws.work);
    CT_FREE(ws.iwork);
    CT_FREE(a);
    CT_FREE(done);
    return rc;
}
/* PyTorch's svd_backward (real case): gU, gVh that autograd filled with zeros
   count as absent, so svdvals-like uses never divide by gaps of equal values. */
static ct_tensor *ct__la_svd_backward(ct_tensor *gU, ct_tensor *gS, ct_tensor *gVh, ct_tensor *U, ct_tensor *S, ct_tensor *Vh) {
    int64_t m = U->shape[U->ndim - 2], n = Vh->shape[Vh->ndim - 1];
    int hasU = !ct__la_all_zero(gU), hasV = !ct__la_all_zero(gVh);
    if (!hasU && !hasV)
        return m >= n ? ct_matmul(U, ct_mul(ct_unsqueeze(gS, -1), Vh)) : ct_matmul(ct_mul(U, ct_unsqueeze(gS, -2)), Vh);
    ct_tensor *UhgU = hasU ? ct_matmul(ct__la_mH(U), gU) : NULL, *VhgV = hasV ? ct_matmul(Vh, ct__la_mH(gVh)) : NULL;
    if (CT__LA_CX(U->dtype) && ct__la_phase_ok("svd_backward", CT__LA_PHASE_SVD, hasU ? UhgU : VhgV, hasU ? VhgV : NULL)) return NULL;
    if (UhgU) UhgU = ct_sub(UhgU, ct__la_mH(UhgU));
    if (VhgV) VhgV = ct_sub(VhgV, ct__la_mH(VhgV));
    ct_tensor *S2 = ct_mul(S, S);
    ct_tensor *E = ct_sub(ct_unsqueeze(S2, -2), ct_unsqueeze(S2, -1));
    E = ct_add(E, ct__la_eye_like(E));
    ct_tensor *gA;
    if (hasU && hasV) gA = ct_div(ct_add(ct_mul(UhgU, ct_unsqueeze(S, -2)), ct_mul(ct_unsqueeze(S, -1), VhgV)), E);
    else if (hasU) gA = ct_mul(UhgU, ct_div(ct_unsqueeze(S, -2), E));
    else gA = ct_mul(ct_unsqueeze(S, -1), ct_div(VhgV, E));
    gA = ct_add(gA, ct__la_diag_embed(gS));
    if (hasU && CT__LA_CX(U->dtype))   /* complex: + diag(im part of U^H gU) / S (PyTorch's svd_backward) */
        gA = ct_add(gA, ct__la_diag_embed(ct_div(ct_diagonal(UhgU, 0, -2, -1), ct_mul_scalar(S, 2.0))));
    if (m > n && hasU) {
        gA = ct_matmul(U, gA);
        ct_tensor *gUSinv = ct_div(gU, ct_unsqueeze(S, -2));
        gA = ct_add(gA, ct_sub(gUSinv, ct_matmul(U, ct_matmul(ct__la_mH(U), gUSinv))));
        gA = ct_matmul(gA, Vh);
    } else if (m < n && hasV) {
        gA = ct_matmul(gA, Vh);
        ct_tensor *SinvgVh = ct_div(gVh, ct_unsqueeze(S, -1));
        gA = ct_add(gA, ct_sub(SinvgVh, ct_matmul(ct_matmul(SinvgVh, ct__la_mH(Vh)), Vh)));
        gA = ct_matmul(U, gA);
    } else {
        gA = m >= n ? ct_matmul(U, ct_matmul(gA, Vh)) : ct_matmul(ct_matmul(U, gA), Vh);
    }
    return gA;
}
static int ct__la_bw_svd(ct__node *nd, ct_tensor *const *gout, ct_tensor **gin) {
    if (!(nd->attrs.flags & CT__LAF_COMPUTE_V))
        return ct__failed(CT_ERR_AUTOGRAD, "linalg.svd: the singular vectors were not computed; differentiate linalg.svd or call svdvals with grad mode on");
    ct_tensor *U = CT__SV_OUT(nd, 0), *S = CT__SV_OUT(nd, 1), *Vh = CT__SV_OUT(nd, 2), *gU = gout[0], *gVh = gout[2];
    if (!U || !S || !Vh) return -1;
    if (nd->attrs.flags & CT__LAF_FULL) {
        int64_t k = S->shape[S->ndim - 1];
        U = ct_narrow(U, -1, 0, k);
        gU = ct_narrow(gU, -1, 0, k);
        Vh = ct_narrow(Vh, -2, 0, k);
        gVh = ct_narrow(gVh, -2, 0, k);
    }
    gin[0] = ct__la_svd_backward(gU, gout[1], gVh, U, S, Vh);
    return gin[0] ? 0 : -1;
}
static ct_linalg_svd_result ct__la_svd(const ct_tensor *A, int full, int wantv, int fname) {
    ct_linalg_svd_result r = {NULL, NULL, NULL};
    CT__LA_INIT_OR(r);
    ct__attrs a;
    ct__la_attrs(&a, fname, (full ? CT__LAF_FULL : 0) | (wantv ? CT__LAF_COMPUTE_V : 0));
    ct_tensor *in[1], *out[3];
    in[0] = (ct_tensor *)A;
    if (ct__la_dispatch(CT__LA_SVD, 1, in, &a, out) < 0) return r;
    r.U = out[0];
    r.S = out[1];
    r.Vh = out[2];
    return r;
}
CTENSOR_API ct_linalg_svd_result ct_linalg_svd(const ct_tensor *A, int full_matrices) { return ct__la_svd(A, full_matrices, 1, CT__LAN_SVD); }
CTENSOR_API ct_tensor *ct_linalg_svdvals(const ct_tensor *A) {
    int wantv = A && ct_is_grad_enabled() && (A->flags & CT__F_REQUIRES_GRAD);
    return ct__la_svd(A, 0, wantv, CT__LAN_SVDVALS).S;
}

/* ============================================================================
   Double-precision helpers for kernels that compose factorizations (pinv,
   matrix_rank, matrix_exp): thin SVD and symmetric eigendecomposition of one
   row-major matrix.
   ========================================================================== */
/* a (m x n row-major, destroyed) = U diag(s) Vt with U (m x k) and Vt (k x n) row-major.
   ws: at least 2*CT__LA_SMALL^2 doubles for small, else NULL (allocated here). */
static int ct__la_svd_d(double *a, int64_t m, int64_t n, double *U, double *s, double *Vt) {
    int64_t k = m < n ? m : n;
    if (!k) return 0;
    if (m <= CT__LA_SMALL && n <= CT__LA_SMALL) {
        double cols[CT__LA_SMALL * CT__LA_SMALL], vc[CT__LA_SMALL * CT__LA_SMALL];
        int jr;
        if (m >= n) {
            ct__la_mcopy(cols, CT_FLOAT64, 1, m, a, CT_FLOAT64, n, 1, m, n);
            jr = ct__la_jacobi_svd_d(cols, (int)m, (int)n, vc, s, 1);
            if (!jr) {
                ct__la_mcopy(U, CT_FLOAT64, k, 1, cols, CT_FLOAT64, 1, m, m, n);
                ct__la_mcopy(Vt, CT_FLOAT64, n, 1, vc, CT_FLOAT64, n, 1, n, n);
                return 0;
            }
        } else {
            memcpy(cols, a, sizeof(double) * (size_t)(m * n));
            jr = ct__la_jacobi_svd_d(cols, (int)n, (int)m, vc, s, 1);
            if (!jr) {
                ct__la_mcopy(U, CT_FLOAT64, k, 1, vc, CT_FLOAT64, 1, m, m, m);
                ct__la_mcopy(Vt, CT_FLOAT64, n, 1, cols, CT_FLOAT64, n, 1, m, n);
                return 0;
            }
        }
    }
    ct__la_svdws ws;
    if (ct__la_svdws_alloc(&ws, CT_FLOAT64, 'S', m, n)) { CT_FREE(ws.work); CT_FREE(ws.iwork); return -1; }
    ct__la_int r = ct__la_gesdd(CT_FLOAT64, 'S', (ct__la_int)n, (ct__la_int)m, a, (ct__la_int)n, s, Vt, (ct__la_int)n, U, (ct__la_int)k,
                                ws.work, ws.lwork, ws.iwork);
    CT_FREE(ws.work);
    CT_FREE(ws.iwork);
    return r > 0 ? 1 : 0;
}
/* a (n x n symmetric, full, row-major, destroyed): w ascending, V row-major (columns = vectors) */
static int ct__la_eigh_d(double *a, int64_t n, double *w, double *V) {
    if (!n) return 0;
    if (n <= CT__LA_SMALL && ct__la_finite_d(a, n * n)) { ct__la_jacobi_eigh_d(a, V, w, (int)n, 1); return 0; }
    ct__la_evws ws;
    if (ct__la_evws_alloc(&ws, CT_FLOAT64, 'V', n)) { CT_FREE(ws.work); CT_FREE(ws.iwork); return -1; }
    ct__la_int r = ct__la_syevd(CT_FLOAT64, 'V', 'L', (ct__la_int)n, a, (ct__la_int)n, w, ws.work, ws.lwork, ws.iwork, ws.liwork);
    CT_FREE(ws.work);
    CT_FREE(ws.iwork);
    ct__la_mcopy(V, CT_FLOAT64, n, 1, a, CT_FLOAT64, 1, n, n, n);   /* column-major result -> row-major */
    return r > 0 ? 1 : 0;
}
static double ct__la_eps(ct_dtype dt) { return dt == CT_FLOAT64 || dt == CT_COMPLEX128 ? DBL_EPSILON : (double)FLT_EPSILON; }

/* ============================================================================
   Pseudo-inverse: torch.linalg.pinv (SVD, or eigh when hermitian)
   ========================================================================== */
static int ct__la_meta_pinv(ct__call *c) {
    const ct_tensor *A = c->in[0];
    if (A->ndim < 2 || ct__la_check_dtype(ct__la_fn(c), A)) {
        ct_clear_error();
        return ct__failed(ct__la_check_dtype("linalg.pinv", A) ? CT_ERR_DTYPE : CT_ERR_SHAPE,
                          "linalg.pinv(%s{%s}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble types",
                          CT__DTNAME(A->dtype), CT__SHAPE(A));
    }
    int nb = A->ndim - 2;
    int64_t m = A->shape[nb], n = A->shape[nb + 1];
    if ((c->a->flags & CT__LAF_HERMITIAN) && m != n)
        return ct__failed(CT_ERR_SHAPE, "linalg.pinv: A must be batches of square matrices, but they are %lld by %lld matrices", (long long)m, (long long)n);
    c->nout = 1;
    ct__la_out_b(c, 0, A->dtype, nb, A->shape, 2, n, m);
    return 0;
}
/* tolerance rules of torch.linalg.pinv / matrix_rank: NAN = None */
static double ct__la_tol(double atol, double rtol, double smax, ct_dtype dt, int64_t m, int64_t n) {
    if (isnan(rtol)) rtol = isnan(atol) || atol <= 0 ? ct__la_eps(dt) * (double)(m > n ? m : n) : 0.0;
    if (isnan(atol)) atol = 0.0;
    double t = rtol * smax;
    return atol > t ? atol : t;
}
/* complex: P = V diag(1/s) U^H from gesdd (or V diag(1/w) V^H from heevd), zgemm */
static int ct__la_k_pinv_cx(ct__call *c) {
    const ct_tensor *A = c->in[0];
    ct_tensor *P = c->out[0];
    int nd = A->ndim, herm = (c->a->flags & CT__LAF_HERMITIAN) != 0;
    int64_t m = A->shape[nd - 2], n = A->shape[nd - 1], k = m < n ? m : n;
    ct__bat B;
    ct__bat_of(&B, A, 2);
    ct_dtype dt = A->dtype;
    size_t es = ct__dt[dt].size;
    int z = CT__LA_Z(dt);
    static const double one_d[2] = {1.0, 0.0}, zero_d[2] = {0.0, 0.0};
    static const float one_f[2] = {1.0f, 0.0f}, zero_f[2] = {0.0f, 0.0f};
    char *a = (char *)ct__la_scratch(es * (size_t)(m * n + m * k + k * n + n * m + 1));
    double *s = (double *)ct__la_scratch(sizeof(double) * (size_t)(k + 1));
    if (!a || !s) { CT_FREE(a); CT_FREE(s); return -1; }
    char *u = a + (size_t)(m * n) * es, *vt = u + (size_t)(m * k) * es, *res = vt + (size_t)(k * n) * es;
    float *sf = (float *)(void *)s;
    int rc = 0;
    for (int64_t b = 0; b < B.count && !rc; b++) {
        char *pp = ct__ptr(P) + (size_t)(b * n * m) * es;
        if (!k) continue;
        ct__la_zload(a, m, A, ct__bat_off(&B, A, 2, b));
        ct__la_int r;
        if (herm) {   /* eigh of the lower triangle: a <- V, then u <- V diag(1/w) */
            r = z ? LAPACKE_zheevd(LAPACK_COL_MAJOR, 'V', 'L', (ct__la_int)n, CT__LA_ZD(a), (ct__la_int)n, s)
                  : LAPACKE_cheevd(LAPACK_COL_MAJOR, 'V', 'L', (ct__la_int)n, CT__LA_ZF(a), (ct__la_int)n, sf);
        } else {
            r = z ? LAPACKE_zgesdd(LAPACK_COL_MAJOR, 'S', (ct__la_int)m, (ct__la_int)n, CT__LA_ZD(a), (ct__la_int)m, s, CT__LA_ZD(u), (ct__la_int)m, CT__LA_ZD(vt), (ct__la_int)k)
                  : LAPACKE_cgesdd(LAPACK_COL_MAJOR, 'S', (ct__la_int)m, (ct__la_int)n, CT__LA_ZF(a), (ct__la_int)m, sf, CT__LA_ZF(u), (ct__la_int)m, CT__LA_ZF(vt), (ct__la_int)k);
        }
        if (r) { rc = ct__failed(CT_ERR_NUMERIC, "linalg.pinv: The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated singular values"); break; }
        double smax = 0.0;
        for (int64_t l = 0; l < k; l++) { double v = fabs(z ? s[l] : (double)sf[l]); if (v > smax) smax = v; }
        double tol = ct__la_tol(c->a->s[0], c->a->s[1], smax, dt, m, n);
        for (int64_t l = 0; l < k; l++) {
            double sv = z ? s[l] : (double)sf[l], inv = fabs(sv) > tol ? 1.0 / sv : 0.0;
            for (int64_t j = 0; j < n; j++) {   /* herm: column l of V into u, scaled; else row l of V^H, scaled */
                double re, im;
                if (herm) { ct__la_zget(dt, a, j + l * n, &re, &im); ct__la_zset(dt, u, j + l * n, re * inv, im * inv); }
                else { ct__la_zget(dt, vt, l + j * k, &re, &im); ct__la_zset(dt, vt, l + j * k, re * inv, im * inv); }
            }
        }
        if (herm) {   /* res (n x n) = (V diag(1/w)) V^H */
            if (z) cblas_zgemm(CblasColMajor, CblasNoTrans, CblasConjTrans, (int)n, (int)n, (int)n, one_d, u, (int)n, a, (int)n, zero_d, res, (int)n);
            else cblas_cgemm(CblasColMajor, CblasNoTrans, CblasConjTrans, (int)n, (int)n, (int)n, one_f, u, (int)n, a, (int)n, zero_f, res, (int)n);
        } else {      /* res (n x m) = (diag(1/s) V^H)^H U^H */
            if (z) cblas_zgemm(CblasColMajor, CblasConjTrans, CblasConjTrans, (int)n, (int)m, (int)k, one_d, vt, (int)k, u, (int)m, zero_d, res, (int)n);
            else cblas_cgemm(CblasColMajor, CblasConjTrans, CblasConjTrans, (int)n, (int)m, (int)k, one_f, vt, (int)k, u, (int)m, zero_f, res, (int)n);
        }
        ct__la_zcopy(dt, pp, m, 1, res, 1, n, n, m, 0);
    }
    CT_FREE(a);
    CT_FREE(s);
    return rc;
}
static int ct__la_k_pinv(ct__call *c) {
    const ct_tensor *A = c->in[0];
    if (CT__LA_CX(A->dtype)) return ct__la_k_pinv_cx(c);
    ct_tensor *P = c->out[0];
    int nd = A->ndim, herm = (c->a->flags & CT__LAF_HERMITIAN) != 0;
    int64_t m = A->shape[nd - 2], n = A->shape[nd - 1], k = m < n ? m : n;
    ct__bat B;
    ct__bat_of(&B, A, 2);
    size_t es = ct__dt[A->dtype].size;
    double *a = (double *)ct__la_scratch(sizeof(double) * (size_t)(3 * m * n + 2 * k + n * n + m * m + 4));
    if (!a) return -1;
    double *U = a + m * n, *Vt = U + (m > n ? m : n) * k, *s = Vt + (m > n ? m : n) * k, *W = s + k + 1;
    int rc = 0;
    for (int64_t b = 0; b < B.count && !rc; b++) {
        char *pp = ct__ptr(P) + (size_t)(b * n * m) * es;
        double *res = W;   /* n x m */
        ct__la_load(a, CT_FLOAT64, n, 1, A, ct__bat_off(&B, A, 2, b));
        if (!k) continue;
        if (herm) {
            /* PyTorch's hermitian pinv reads the lower triangle (eigh) */
            for (int64_t i = 0; i < n; i++) for (int64_t j = i + 1; j < n; j++) a[i * n + j] = a[j * n + i];
            if (ct__la_eigh_d(a, n, s, U)) { rc = -1; break; }
            double smax = 0.0;
            for (int64_t i = 0; i < n; i++) if (fabs(s[i]) > smax) smax = fabs(s[i]);
            double tol = ct__la_tol(c->a->s[0], c->a->s[1], smax, A->dtype, m, n);
            for (int64_t i = 0; i < n; i++)            /* Vt <- diag(1/w) V^T */
                for (int64_t j = 0; j < n; j++) Vt[i * n + j] = fabs(s[i]) > tol ? U[j * n + i] / s[i] : 0.0;
            ct__la_gemm_d(0, 0, n, n, n, 1.0, U, n, Vt, n, 0.0, res, n);
        } else {
            int r = ct__la_svd_d(a, m, n, U, s, Vt);
            if (r) {
                rc = r < 0 ? -1 : ct__failed(CT_ERR_NUMERIC, "linalg.pinv: The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated singular values");
                break;
            }
            double smax = s[0];
            double tol = ct__la_tol(c->a->s[0], c->a->s[1], smax, A->dtype, m, n);
            for (int64_t l = 0; l < k; l++) {
                double inv = s[l] > tol ? 1.0 / s[l] : 0.0;
                for (int64_t j = 0; j < n; j++) Vt[l * n + j] *= inv;
            }
            ct__la_gemm_d(1, 1, n, m, k, 1.0, Vt, n, U, k, 0.0, res, m);   /* (diag(1/s) Vt)^T U^T */
        }
        ct__la_mcopy(pp, A->dtype, m, 1, res, CT_FLOAT64, m, 1, n, m);
    }
    CT_FREE(a);
    return rc;
}
/* PyTorch's pinv_backward */
static ct_tensor *ct__la_pinv_backward(ct_tensor *grad, ct_tensor *pinvA, ct_tensor *A) {
    int64_t m = A->shape[A->ndim - 2], n = A->shape[A->ndim - 1];
    ct_tensor *pinvAh = ct__la_mH(pinvA), *gradh = ct__la_mH(grad);
    if (m <= n) {
        ct_tensor *K = ct_matmul(gradh, pinvA);
        ct_tensor *KpinvAh = ct_matmul(K, pinvAh);
        ct_tensor *r = ct_neg(ct__la_mH(ct_matmul(pinvA, K)));
        r = ct_add(r, KpinvAh);
        r = ct_sub(r, ct_matmul(ct_matmul(A, pinvA), KpinvAh));
        return ct_add(r, ct_matmul(ct_matmul(pinvAh, pinvA), ct_sub(gradh, ct_matmul(K, A))));
    }
    ct_tensor *K = ct_matmul(pinvA, gradh);
    ct_tensor *pinvAhK = ct_matmul(pinvAh, K);
    ct_tensor *r = ct_neg(ct__la_mH(ct_matmul(K, pinvA)));
    r = ct_add(r, ct_matmul(ct_matmul(ct_sub(gradh, ct_matmul(A, K)), pinvA), pinvAh));
    r = ct_add(r, pinvAhK);
    return ct_sub(r, ct_matmul(ct_matmul(pinvAhK, pinvA), A));
}
static int ct__la_bw_pinv(ct__node *nd, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *A = CT__SV_IN(nd, 0), *P = CT__SV_OUT(nd, 0);
    if (!A || !P) return -1;
    gin[0] = ct__la_pinv_backward(gout[0], P, A);
    return gin[0] ? 0 : -1;
}
CTENSOR_API ct_tensor *ct_linalg_pinv(const ct_tensor *A, double atol, double rtol, int hermitian) {
    CT__LA_INIT_OR(NULL);
    ct__attrs a;
    ct__la_attrs(&a, CT__LAN_PINV, hermitian ? CT__LAF_HERMITIAN : 0);
    a.s[0] = atol;
    a.s[1] = rtol;
    ct_tensor *in[1], *out[1];
    in[0] = (ct_tensor *)A;
    return ct__la_dispatch(CT__LA_PINV, 1, in, &a, out) < 0 ? NULL : out[0];
}

/* ============================================================================
   Least squares: torch.linalg.lstsq (gels, gelsy, gelsd, gelss; computed in double)
   ========================================================================== */
enum { CT__LA_GELS = 0, CT__LA_GELSY = 1, CT__LA_GELSD = 2, CT__LA_GELSS = 3 };
static int ct__la_meta_lstsq(ct__call *c) {
    const ct_tensor *A = c->in[0], *Bt = c->in[1];
    const char *fn = "torch.linalg.lstsq";
    if (ct__la_check_dtype(fn, A)) return -1;
    if (A->ndim < 2) return ct__failed(CT_ERR_SHAPE, "%s: input must have at least 2 dimensions.", fn);
    if (Bt->ndim < 1) return ct__failed(CT_ERR_SHAPE, "%s: other must have at least 1 dimension.", fn);
    if (A->dtype != Bt->dtype)
        return ct__failed(CT_ERR_DTYPE, "%s: Expected input and other to have the same dtype, but got input's dtype %s and other's dtype %s",
                          fn, CT__DTNAME(A->dtype), CT__DTNAME(Bt->dtype));
    int nb0 = A->ndim - 2, drv = c->a->mode;
    if (drv < CT__LA_GELS || drv > CT__LA_GELSS) return ct__failed(CT_ERR_ARG, "%s: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)", fn);
    int64_t m = A->shape[nb0], n = A->shape[nb0 + 1];
    int vec = Bt->ndim == A->ndim - 1;
    int64_t bm = vec ? Bt->shape[Bt->ndim - 1] : Bt->shape[Bt->ndim - 2], k = vec ? 1 : Bt->shape[Bt->ndim - 1];
    if (bm != m)
        return ct__failed(CT_ERR_SHAPE, "%s: input.size(-2) should match other.size(-%d)", fn, vec ? 1 : 2);
    int nb;
    int64_t bs[CT_MAX_DIMS], z = 0;
    if (ct__la_bcast_batch(fn, A, 2, Bt, vec ? 1 : 2, &nb, bs)) return -1;
    c->nout = 4;
    if (vec) ct__la_out_b(c, 0, A->dtype, nb, bs, 1, n, 0);
    else ct__la_out_b(c, 0, A->dtype, nb, bs, 2, n, k);
    ct_dtype rdt = ct__la_real_of(A->dtype);   /* residuals and singular values are real */
    if (m > n && drv != CT__LA_GELSY) ct__la_out_b(c, 1, rdt, nb, bs, vec ? 0 : 1, k, 0);
    else ct__la_out(c, 1, rdt, 1, &z);
    /* rank and singular values have A's batch shape (PyTorch) */
    if (drv != CT__LA_GELS) ct__la_out_b(c, 2, CT_INT64, nb0, A->shape, 0, 0, 0);
    else ct__la_out(c, 2, CT_INT64, 1, &z);
    if (drv == CT__LA_GELSD || drv == CT__LA_GELSS) ct__la_out_b(c, 3, rdt, nb0, A->shape, 1, m < n ? m : n, 0);
    else ct__la_out(c, 3, rdt, 1, &z);
    return 0;
}
static ct__la_int ct__la_lstsq_call(int drv, ct__la_int m, ct__la_int n, ct__la_int k, double *a, ct__la_int lda, double *b, ct__la_int ldb,
                                    double *s, double rcond, ct__la_int *rank, ct__la_int *jpvt, double *work, ct__la_int lwork, ct__la_int *iwork) {
    switch (drv) {
    case CT__LA_GELS: return LAPACKE_dgels_work(LAPACK_COL_MAJOR, 'N', m, n, k, a, lda, b, ldb, work, lwork);
    case CT__LA_GELSY: return LAPACKE_dgelsy_work(LAPACK_COL_MAJOR, m, n, k, a, lda, b, ldb, jpvt, rcond, rank, work, lwork);
    case CT__LA_GELSD: return LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, m, n, k, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork);
    default: return LAPACKE_dgelss_work(LAPACK_COL_MAJOR, m, n, k, a, lda, b, ldb, s, rcond, rank, work, lwork);
    }
}
/* complex: LAPACKE's c/z gels, gelsy, gelsd, gelss on column-major copies (computed
   in the input's precision), gelsy first with fixed columns as the real kernel */
static ct__la_int ct__la_zlstsq_call(ct_dtype dt, int drv, int64_t m, int64_t n, int64_t k, void *a, void *b, ct__la_int ldb, double *s,
                                     double rcond, ct__la_int *rank, ct__la_int *jpvt) {
    ct__la_int M = (ct__la_int)m, N = (ct__la_int)n, K = (ct__la_int)k, lda = CT__LA_LD(m);
    float *sf = (float *)(void *)s;
    if (CT__LA_Z(dt)) switch (drv) {
        case CT__LA_GELS: return LAPACKE_zgels(LAPACK_COL_MAJOR, 'N', M, N, K, CT__LA_ZD(a), lda, CT__LA_ZD(b), ldb);
        case CT__LA_GELSY: return LAPACKE_zgelsy(LAPACK_COL_MAJOR, M, N, K, CT__LA_ZD(a), lda, CT__LA_ZD(b), ldb, jpvt, rcond, rank);
        case CT__LA_GELSD: return LAPACKE_zgelsd(LAPACK_COL_MAJOR, M, N, K, CT__LA_ZD(a), lda, CT__LA_ZD(b), ldb, s, rcond, rank);
        default: return LAPACKE_zgelss(LAPACK_COL_MAJOR, M, N, K, CT__LA_ZD(a), lda, CT__LA_ZD(b), ldb, s, rcond, rank);
        }
    switch (drv) {
    case CT__LA_GELS: return LAPACKE_cgels(LAPACK_COL_MAJOR, 'N', M, N, K, CT__LA_ZF(a), lda, CT__LA_ZF(b), ldb);
    case CT__LA_GELSY: return LAPACKE_cgelsy(LAPACK_COL_MAJOR, M, N, K, CT__LA_ZF(a), lda, CT__LA_ZF(b), ldb, jpvt, (float)rcond, rank);
    case CT__LA_GELSD: return LAPACKE_cgelsd(LAPACK_COL_MAJOR, M, N, K, CT__LA_ZF(a), lda, CT__LA_ZF(b), ldb, sf, (float)rcond, rank);
    default: return LAPACKE_cgelss(LAPACK_COL_MAJOR, M, N, K, CT__LA_ZF(a), lda, CT__LA_ZF(b), ldb, sf, (float)rcond, rank);
    }
}
static int ct__la_k_lstsq_cx(ct__call *c) {
    const ct_tensor *A = c->in[0], *Bt = c->in[1];
    ct_tensor *X = c->out[0], *R = c->out[1], *Rk = c->out[2], *SV = c->out[3];
    int vec = Bt->ndim == A->ndim - 1, drv = c->a->mode, bmd = vec ? 1 : 2;
    int64_t m = A->shape[A->ndim - 2], n = A->shape[A->ndim - 1], k = vec ? 1 : X->shape[X->ndim - 1], mn = m < n ? m : n;
    ct_dtype dt = A->dtype, rdt = ct__la_real_of(dt);
    size_t es = ct__dt[dt].size, rs = ct__dt[rdt].size;
    ct__bat B;
    ct__bat_of(&B, X, bmd);
    double rcond = isnan(c->a->s[0]) ? ct__la_eps(dt) * (double)(m > n ? m : n) : c->a->s[0];
    ct__la_int ldb = (ct__la_int)(m > n ? (m > 0 ? m : 1) : (n > 0 ? n : 1)), rank = 0;
    char *a = (char *)ct__la_scratch(es * (size_t)(m * n + ldb * k + 1)), *b;
    double *s = (double *)ct__la_scratch(sizeof(double) * (size_t)(mn + 1));
    ct__la_int *jpvt = (ct__la_int *)ct__la_scratch(sizeof(ct__la_int) * (size_t)(n + 1));
    if (!a || !s || !jpvt) { CT_FREE(a); CT_FREE(s); CT_FREE(jpvt); return -1; }
    b = a + (size_t)(m * n) * es;
    int64_t bsr = vec ? Bt->strides[Bt->ndim - 1] : Bt->strides[Bt->ndim - 2], bsc = vec ? 0 : Bt->strides[Bt->ndim - 1];
    int64_t xsr = vec ? X->strides[X->ndim - 1] : X->strides[X->ndim - 2], xsc = vec ? 0 : X->strides[X->ndim - 1];
    int rc = 0, res = ct_numel(R) > 0;
    for (int64_t bi = 0; bi < B.count && !rc; bi++) {
        int fixed = drv == CT__LA_GELSY;
        ct__la_int r = 0;
        for (int attempt = 0; attempt < 2; attempt++) {
            ct__la_zload(a, m, A, ct__bat_off(&B, A, 2, bi));
            memset(b, 0, es * (size_t)(ldb * k));
            ct__la_zcopy(dt, b, 1, ldb, ct__la_at(Bt, ct__bat_off(&B, Bt, bmd, bi)), bsr, bsc, m, k, 0);
            for (int64_t j = 0; j < n; j++) jpvt[j] = fixed;
            rank = (ct__la_int)mn;
            r = m && n && k ? ct__la_zlstsq_call(dt, drv, m, n, k, a, b, ldb, s, rcond, &rank, jpvt) : 0;
            if (!(fixed && r == 0 && rank < (ct__la_int)mn)) break;
            fixed = 0;   /* rank-deficient: the pivoted, rank-revealing factorization */
        }
        if (r != 0) {
            rc = ct__failed(CT_ERR_NUMERIC, drv == CT__LA_GELS ? "torch.linalg.lstsq: %sThe least squares solution could not be computed because the input matrix does not have full rank (error code: %d)."
                                                                : "torch.linalg.lstsq: %sThe algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated singular values (error code: %d).",
                            ct__la_batch_prefix(B.nb > 0, bi).s, (int)r);
            break;
        }
        if (!(m && n && k)) {
            if (m == 0 || n == 0) { rank = 0; for (int64_t i = 0; i < mn; i++) s[i] = 0.0; }
            if (m == 0) memset(b, 0, es * (size_t)(ldb * k));
        }
        ct__la_zcopy(dt, ct__la_at(X, ct__bat_off(&B, X, bmd, bi)), xsr, xsc, b, 1, ldb, n, k, 0);
        if (res)
            for (int64_t j = 0; j < k; j++) {
                double acc = 0.0, re, im;
                for (int64_t i = n; i < m; i++) { ct__la_zget(dt, b, i + j * ldb, &re, &im); acc += re * re + im * im; }
                ct__store_f64(ct__ptr(R) + (size_t)(bi * k + j) * rs, rdt, acc);
            }
        int64_t ai = ct__bat_lin(&B, A, 2, bi);
        if (drv != CT__LA_GELS) ((int64_t *)ct__ptr(Rk))[ai] = rank;
        if (drv == CT__LA_GELSD || drv == CT__LA_GELSS)
            for (int64_t i = 0; i < mn; i++)
                ct__store_f64(ct__ptr(SV) + (size_t)(ai * mn + i) * rs, rdt, CT__LA_Z(dt) ? s[i] : (double)((float *)(void *)s)[i]);
    }
    CT_FREE(a);
    CT_FREE(s);
    CT_FREE(jpvt);
    return rc;
}
static int ct__la_k_lstsq(ct__call *c) {
    const ct_tensor *A = c->in[0], *Bt = c->in[1];
    if (CT__LA_CX(A->dtype)) return ct__la_k_lstsq_cx(c);
    ct_tensor *X = c->out[0], *R = c->out[1], *Rk = c->out[2], *SV = c->out[3];
    int vec = Bt->ndim == A->ndim - 1, drv = c->a->mode, bmd = vec ? 1 : 2;
    int64_t m = A->shape[A->ndim - 2], n = A->shape[A->ndim - 1], k = vec ? 1 : X->shape[X->ndim - 1], mn = m < n ? m : n;
    ct_dtype dt = A->dtype;
    size_t es = ct__dt[dt].size;
    ct__bat B;
    ct__bat_of(&B, X, bmd);
    double rcond = isnan(c->a->s[0]) ? ct__la_eps(dt) * (double)(m > n ? m : n) : c->a->s[0];
    ct__la_int lda = (ct__la_int)(m > 0 ? m : 1), ldb = (ct__la_int)(m > n ? (m > 0 ? m : 1) : (n > 0 ? n : 1));
    ct__la_int rank = 0, qi = 1;
    double q = 0, dummy[2] = {0, 0};
    if (m && n && k) ct__la_lstsq_call(drv, (ct__la_int)m, (ct__la_int)n, (ct__la_int)k, dummy, lda, dummy, ldb, dummy, rcond, &rank, &qi, &q, -1, &qi);
    ct__la_int lwork = (ct__la_int)q + 1, liwork = qi + 1 > 1 ? qi + 1 : 1;
    double *a = (double *)ct__la_scratch(sizeof(double) * (size_t)(m * n + ldb * k + mn + lwork + 1));
    ct__la_int *iw = (ct__la_int *)ct__la_scratch(sizeof(ct__la_int) * (size_t)(liwork + n + 1));
    if (!a || !iw) { CT_FREE(a); CT_FREE(iw); return -1; }
    double *b = a + m * n, *s = b + ldb * k, *work = s + mn;
    ct__la_int *jpvt = iw + liwork;
    int64_t bsr = vec ? Bt->strides[Bt->ndim - 1] : Bt->strides[Bt->ndim - 2], bsc = vec ? 0 : Bt->strides[Bt->ndim - 1];
    int64_t xsr = vec ? X->strides[X->ndim - 1] : X->strides[X->ndim - 2], xsc = vec ? 0 : X->strides[X->ndim - 1];
    int rc = 0, res = ct_numel(R) > 0;
    for (int64_t bi = 0; bi < B.count && !rc; bi++) {
        ct__la_load(a, CT_FLOAT64, 1, m, A, ct__bat_off(&B, A, 2, bi));
        memset(b, 0, sizeof(double) * (size_t)(ldb * k));
        ct__la_mcopy(b, CT_FLOAT64, 1, ldb, ct__la_at(Bt, ct__bat_off(&B, Bt, bmd, bi)), dt, bsr, bsc, m, k);
        /* gelsy: first with every column fixed (jpvt != 0: no column pivoting, so
           geqp3 is a blocked QR), which is what PyTorch's gelsy runs in practice
           (its jpvt is at::empty, left from the previous call). When that finds
           A rank-deficient, the pivoted, rank-revealing factorization decides. */
        int fixed = drv == CT__LA_GELSY;
        for (int64_t j = 0; j < n; j++) jpvt[j] = fixed;
        rank = (ct__la_int)mn;
        ct__la_int r = m && n && k ? ct__la_lstsq_call(drv, (ct__la_int)m, (ct__la_int)n, (ct__la_int)k, a, lda, b, ldb, s, rcond, &rank, jpvt, work, lwork, iw) : 0;
        if (fixed && r == 0 && rank < (ct__la_int)mn) {
            ct__la_load(a, CT_FLOAT64, 1, m, A, ct__bat_off(&B, A, 2, bi));
            memset(b, 0, sizeof(double) * (size_t)(ldb * k));
            ct__la_mcopy(b, CT_FLOAT64, 1, ldb, ct__la_at(Bt, ct__bat_off(&B, Bt, bmd, bi)), dt, bsr, bsc, m, k);
            for (int64_t j = 0; j < n; j++) jpvt[j] = 0;
            rank = (ct__la_int)mn;
            r = ct__la_lstsq_call(drv, (ct__la_int)m, (ct__la_int)n, (ct__la_int)k, a, lda, b, ldb, s, rcond, &rank, jpvt, work, lwork, iw);
        }
        if (r > 0) {
            if (drv == CT__LA_GELS)
                rc = ct__failed(CT_ERR_NUMERIC, "torch.linalg.lstsq: %sThe least squares solution could not be computed because the input matrix does not have full rank (error code: %d).",
                                ct__la_batch_prefix(B.nb > 0, bi).s, (int)r);
            else
                rc = ct__failed(CT_ERR_NUMERIC, "torch.linalg.lstsq: %sThe algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated singular values (error code: %d).",
                                ct__la_batch_prefix(B.nb > 0, bi).s, (int)r);
            break;
        }
        if (!(m && n && k)) {
            if (m == 0 || n == 0) { rank = 0; for (int64_t i = 0; i < mn; i++) s[i] = 0.0; }
            if (m == 0) memset(b, 0, sizeof(double) * (size_t)(ldb * k));
        }
        ct__la_mcopy(ct__la_at(X, ct__bat_off(&B, X, bmd, bi)), dt, xsr, xsc, b, CT_FLOAT64, 1, ldb, n, k);
        if (res) {
            char *rp = ct__ptr(R) + (size_t)(bi * k) * es;
            for (int64_t j = 0; j < k; j++) {
                double acc = 0.0;
                for (int64_t i = n; i < m; i++) acc += b[i + j * ldb] * b[i + j * ldb];
                ct__store_f64(rp + (size_t)j * es, dt, acc);
            }
        }
        int64_t ai = ct__bat_lin(&B, A, 2, bi);
        if (drv != CT__LA_GELS) ((int64_t *)ct__ptr(Rk))[ai] = rank;
        if (drv == CT__LA_GELSD || drv == CT__LA_GELSS)
            for (int64_t i = 0; i < mn; i++) ct__store_f64(ct__ptr(SV) + (size_t)(ai * mn + i) * es, dt, s[i]);
    }
    CT_FREE(a);
    CT_FREE(iw);
    return rc;
}
/* PyTorch's linalg_lstsq_backward: through the pseudo-inverse */
static int ct__la_bw_lstsq(ct__node *nd, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *A = CT__SV_IN(nd, 0), *Bt = CT__SV_IN(nd, 1);
    if (!A || !Bt) return -1;
    int vec = nd->in_meta[1].ndim == nd->in_meta[0].ndim - 1;
    ct_tensor *gX = vec ? ct_unsqueeze(gout[0], -1) : gout[0], *Bm = vec ? ct_unsqueeze(Bt, -1) : Bt;
    ct_tensor *pinvA = ct_linalg_pinv(A, NAN, NAN, 0);
    if (!pinvA) return -1;
    if (CT__NEEDS(nd, 0) && !(gin[0] = ct__la_pinv_backward(ct_matmul(gX, ct__la_mH(Bm)), pinvA, A))) return -1;
    if (CT__NEEDS(nd, 1)) {
        ct_tensor *gB = ct_matmul(ct__la_mH(pinvA), gX);
        if (!(gin[1] = vec ? ct_squeeze_dim(gB, -1) : gB)) return -1;
    }
    return 0;
}
CTENSOR_API ct_linalg_lstsq_result ct_linalg_lstsq(const ct_tensor *A, const ct_tensor *B, double rcond, const char *driver) {
    ct_linalg_lstsq_result r = {NULL, NULL, NULL, NULL};
    CT__LA_INIT_OR(r);
    int drv;
    if (!driver) drv = A && A->device.type != CT_CPU ? CT__LA_GELS : CT__LA_GELSY;   /* PyTorch's defaults: gels on CUDA */
    else if (!strcmp(driver, "gelsy")) drv = CT__LA_GELSY;
    else if (!strcmp(driver, "gels")) drv = CT__LA_GELS;
    else if (!strcmp(driver, "gelsd")) drv = CT__LA_GELSD;
    else if (!strcmp(driver, "gelss")) drv = CT__LA_GELSS;
    else {
        ct_set_error(CT_ERR_ARG, "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
        return r;
    }
    ct__attrs a;
    ct__attrs_init(&a);
    a.mode = drv;
    a.s[0] = rcond;
    ct_tensor *in[2], *out[4];
    in[0] = (ct_tensor *)A;
    in[1] = (ct_tensor *)B;
    if (ct__la_dispatch(CT__LA_LSTSQ, 2, in, &a, out) < 0) return r;
    ct_tensor *res = ct__la_nondiff(out[1]);
    /* gelsd / gelss: residuals only when every matrix has full rank (PyTorch) */
    if (ct_numel(res) > 0 && (drv == CT__LA_GELSD || drv == CT__LA_GELSS)) {
        int64_t nn = A->shape[A->ndim - 1], cnt = ct_numel(out[2]);
        const int64_t *rk = (const int64_t *)ct__ptr(out[2]);
        int full = 1;
        for (int64_t i = 0; i < cnt && full; i++) full = rk[i] == nn;
        if (!full) { int64_t z = 0; res = ct_zeros_n(ct__la_real_of(A->dtype), 1, &z); }
    }
    if (!res) return r;
    r.solution = out[0];
    r.residuals = res;
    r.rank = out[2];
    r.singular_values = ct__la_nondiff(out[3]);
    return r;
}

/* ============================================================================
   Householder products: torch.linalg.householder_product (orgqr)
   ========================================================================== */
static int ct__la_hh_check(const ct_tensor *A, const ct_tensor *tau) {
    const char *fn = "torch.linalg.householder_product";
    if (ct__la_check_dtype(fn, A)) return -1;
    if (A->ndim < 2) return ct__failed(CT_ERR_SHAPE, "%s: input must have at least 2 dimensions.", fn);
    int nb = A->ndim - 2;
    int64_t m = A->shape[nb], n = A->shape[nb + 1];
    if (m < n) return ct__failed(CT_ERR_SHAPE, "%s: input.shape[-2] must be greater than or equal to input.shape[-1]", fn);
    if (tau->ndim < 1 || n < tau->shape[tau->ndim - 1])
        return ct__failed(CT_ERR_SHAPE, "%s: input.shape[-1] must be greater than or equal to tau.shape[-1]", fn);
    if (A->ndim - tau->ndim != 1)
        return ct__failed(CT_ERR_SHAPE, "%s: Expected tau to have one dimension less than input, but got tau.ndim equal to %d and input.ndim is equal to %d",
                          fn, tau->ndim, A->ndim);
    for (int d = 0; d < nb; d++)
        if (tau->shape[d] != A->shape[d])
            return ct__failed(CT_ERR_SHAPE, "%s: Expected batch dimensions of tau to be equal to input.shape[:-2], but got %s", fn, CT__SHAPE(tau));
    if (tau->dtype != A->dtype)
        return ct__failed(CT_ERR_DTYPE, "%s: tau dtype %s does not match input dtype %s", fn, CT__DTNAME(tau->dtype), CT__DTNAME(A->dtype));
    return 0;
}
static int ct__la_meta_householder(ct__call *c) {
    const ct_tensor *A = c->in[0], *tau = c->in[1];
    if (ct__la_hh_check(A, tau)) return -1;
    int nb = A->ndim - 2;
    c->nout = 1;
    ct__la_out_colmajor(c, 0, A->dtype, nb, A->shape, A->shape[nb], A->shape[nb + 1]);
    return 0;
}
static int ct__la_k_householder(ct__call *c) {
    const ct_tensor *A = c->in[0], *tau = c->in[1];
    ct_tensor *Q = c->out[0];
    int64_t m = A->shape[A->ndim - 2], n = A->shape[A->ndim - 1], k = tau->shape[tau->ndim - 1];
    ct__bat B;
    ct__bat_of(&B, A, 2);
    ct_dtype dt = A->dtype;
    size_t es = ct__dt[dt].size;
    ct__la_int lda = (ct__la_int)(m > 0 ? m : 1);
    double q = 0;
    if (m && n) ct__la_orgqr(dt, (ct__la_int)m, (ct__la_int)n, (ct__la_int)k, NULL, lda, NULL, &q, -1);
    ct__la_int lwork = ct__la_lwork(dt, &q);
    char *w = (char *)ct__la_scratch(es * (size_t)(k + lwork + 1));
    if (!w) return -1;
    char *tp = w, *work = w + (size_t)k * es;
    for (int64_t b = 0; b < B.count; b++) {
        char *qp = ct__ptr(Q) + (size_t)(b * m * n) * es;
        ct__la_load(qp, dt, 1, m, A, ct__bat_off(&B, A, 2, b));
        ct__la_mcopy(tp, dt, 1, 0, ct__la_at(tau, ct__bat_off(&B, tau, 1, b)), dt, tau->strides[tau->ndim - 1], 0, k, 1);
        if (m && n) ct__la_orgqr(dt, (ct__la_int)m, (ct__la_int)n, (ct__la_int)k, qp, lda, tp, work, lwork);
    }
    CT_FREE(w);
    return 0;
}
/* Reverse accumulation through Q = H_0 ... H_{k-1} E, H_i = I - tau_i v_i v_i^T:
   with X_i = H_i X_{i+1} and G = dL/dX_i,
   dL/dv_i = -tau_i (G X_{i+1}^T v_i + X_{i+1} G^T v_i), dL/dtau_i = -v_i^T G X_{i+1}^T v_i,
   dL/dX_{i+1} = H_i^T G. Written with ctensor ops. */
static int ct__la_bw_householder(ct__node *nd, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *A = CT__SV_IN(nd, 0), *tau = CT__SV_IN(nd, 1);
    if (!A || !tau) return -1;
    int64_t m = A->shape[A->ndim - 2], n = A->shape[A->ndim - 1], k = tau->shape[tau->ndim - 1];
    ct_tensor *V = ct_add(ct__la_tril(A, -1), ct_eye_on(A->device, m, n, A->dtype));
    ct_tensor **X = (ct_tensor **)ct__la_scratch(sizeof(ct_tensor *) * (size_t)(k + 1));
    if (!X) return -1;
    X[k] = ct_eye_on(A->device, m, n, A->dtype);
    for (int64_t i = k - 1; i >= 0; i--) {
        ct_tensor *v = ct_narrow(V, -1, i, 1), *t = ct__la_unsq2(ct_select(tau, -1, i));
        X[i] = ct_sub(X[i + 1], ct_mul(t, ct_matmul(v, ct_matmul(ct_mT(v), X[i + 1]))));
    }
    ct_tensor *G = gout[0], *gV = ct_zeros_like(A), *gtau = ct_zeros_like(tau);
    ct_tensor *Ik = ct_eye_on(A->device, k, k, A->dtype), *In = ct_eye_on(A->device, n, n, A->dtype);
    for (int64_t i = 0; i < k; i++) {
        ct_tensor *v = ct_narrow(V, -1, i, 1), *t = ct__la_unsq2(ct_select(tau, -1, i));
        ct_tensor *w = ct_matmul(ct_mT(v), G), *u = ct_matmul(ct_mT(v), X[i + 1]);
        ct_tensor *gv = ct_neg(ct_mul(t, ct_add(ct_matmul(G, ct_mT(u)), ct_matmul(X[i + 1], ct_mT(w)))));
        ct_tensor *gt = ct_neg(ct_sum_dims(ct_mul(w, u), 2, CT__INTS(-2, -1), 0));
        gV = ct_add(gV, ct_matmul(gv, ct_narrow(In, 0, i, 1)));
        gtau = ct_add(gtau, ct_mul(ct_unsqueeze(gt, -1), ct_select(Ik, 0, i)));
        G = ct_sub(G, ct_mul(t, ct_matmul(v, w)));
    }
    CT_FREE(X);
    if (CT__NEEDS(nd, 0) && !(gin[0] = ct__la_tril(gV, -1))) return -1;
    if (CT__NEEDS(nd, 1) && !(gin[1] = gtau)) return -1;
    return 0;
}
CTENSOR_API ct_tensor *ct_linalg_householder_product(const ct_tensor *A, const ct_tensor *tau) {
    CT__LA_INIT_OR(NULL);
    if (A && tau && CT__LA_CX(A->dtype)) {
        /* complex: Q = H_1 ... H_k, H_i = I - tau_i v_i v_i^H, as ctensor ops (autograd
           through them); v_i: column i of the unit lower trapezoid of A */
        if (ct__la_hh_check(A, tau)) return NULL;
        ct_dtype dt = A->dtype;
        int nd = A->ndim;
        int64_t m = A->shape[nd - 2], n = A->shape[nd - 1], k = tau->shape[tau->ndim - 1], shape[CT_MAX_DIMS];
        for (int d = 0; d < nd - 1; d++) shape[d] = A->shape[d];
        shape[nd - 1] = m;
        ct_tensor *V = ct__la_head(ct_add(ct__la_tril(A, -1), ct_eye(m, n, dt)), 1, k), *Ik = ct_eye(k, k, dt);
        ct_tensor *Q = ct_contiguous(ct_expand_n(ct_eye(m, m, dt), nd, shape)), *tr = ct_unsqueeze(tau, -2);
        for (int64_t i = 0; i < k && Q; i++) {
            ct_tensor *ei = ct_narrow(Ik, 1, i, 1);   /* a constant: picks column i */
            ct_tensor *v = ct_matmul(V, ei), *t = ct_matmul(tr, ei);
            Q = ct_sub(Q, ct_mul(t, ct_matmul(ct_matmul(Q, v), ct__la_mH(v))));
        }
        return ct__la_head(Q, 1, n);
    }
    ct__attrs a;
    ct__attrs_init(&a);
    ct_tensor *in[2], *out[1];
    in[0] = (ct_tensor *)A;
    in[1] = (ct_tensor *)tau;
    return ct__la_dispatch(CT__LA_HOUSEHOLDER, 2, in, &a, out) < 0 ? NULL : out[0];
}

/* ============================================================================
   Matrix exponential: torch.linalg.matrix_exp (Pade 13 with scaling and
   squaring, Higham 2005; computed in double)
   ========================================================================== */
static int ct__la_meta_matrix_exp(ct__call *c) {
    const ct_tensor *A = c->in[0];
    if (ct__la_check_matrix(ct__la_fn(c), A, 1)) return -1;
    c->nout = 1;
    ct__la_out(c, 0, A->dtype, A->ndim, A->shape);
    return 0;
}
/* Pade degrees 3, 5, 7, 9, 13 and their 1-norm thresholds (Higham 2005, table 2.3):
   shared with the device kernels of ctensor_cuda.h */
static const double ct__la_expm_th[5] = {1.495585217958292e-2, 2.539398330063230e-1, 9.504178996162932e-1, 2.097847961257068e0, 5.371920351148152e0};
static const double ct__la_expm_b3[4] = {120., 60., 12., 1.};
static const double ct__la_expm_b5[6] = {30240., 15120., 3360., 420., 30., 1.};
static const double ct__la_expm_b7[8] = {17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.};
static const double ct__la_expm_b9[10] = {17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880., 3960., 90., 1.};
static const double ct__la_expm_b13[14] = {64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800., 129060195264000.,
                                           10559470521600., 670442572800., 33522128640., 1323241920., 40840800., 960960., 16380., 182., 1.};
/* the degree, its coefficients and the number of squarings for a matrix of 1-norm norm1 */
static const double *ct__la_expm_plan(double norm1, int *deg, int *sq) {
    const double *th = ct__la_expm_th;
    *sq = 0;
    if (norm1 <= th[0]) { *deg = 3; return ct__la_expm_b3; }
    if (norm1 <= th[1]) { *deg = 5; return ct__la_expm_b5; }
    if (norm1 <= th[2]) { *deg = 7; return ct__la_expm_b7; }
    if (norm1 <= th[3]) { *deg = 9; return ct__la_expm_b9; }
    if (norm1 > th[4] && isfinite(norm1)) *sq = (int)ceil(log2(norm1 / th[4]));
    *deg = 13;
    return ct__la_expm_b13;
}
/* X = exp(A) for one n x n row-major matrix; w: 6 n^2 doubles; piv: n ints */
static void ct__la_expm_d(const double *A, double *X, int64_t n, double *w, ct__la_int *piv) {
    int64_t nn = n * n;
    double *a = w, *a2 = w + nn, *a4 = a2 + nn, *a6 = a4 + nn, *u = a6 + nn, *v = u + nn;
    double norm1 = 0.0;
    for (int64_t j = 0; j < n; j++) {
        double s = 0.0;
        for (int64_t i = 0; i < n; i++) s += fabs(A[i * n + j]);
        if (s > norm1 || s != s) norm1 = s;
    }
    int deg = 13, sq = 0;
    const double *bc = ct__la_expm_plan(norm1, &deg, &sq);
    double scale = ldexp(1.0, -sq);
    for (int64_t i = 0; i < nn; i++) a[i] = A[i] * scale;
    ct__la_gemm_d(0, 0, n, n, n, 1.0, a, n, a, n, 0.0, a2, n);
    if (deg == 13) {
        ct__la_gemm_d(0, 0, n, n, n, 1.0, a2, n, a2, n, 0.0, a4, n);
        ct__la_gemm_d(0, 0, n, n, n, 1.0, a2, n, a4, n, 0.0, a6, n);
        /* u = a (a6 (b13 a6 + b11 a4 + b9 a2) + b7 a6 + b5 a4 + b3 a2 + b1 I) */
        for (int64_t i = 0; i < nn; i++) v[i] = bc[13] * a6[i] + bc[11] * a4[i] + bc[9] * a2[i];
        ct__la_gemm_d(0, 0, n, n, n, 1.0, a6, n, v, n, 0.0, u, n);
        for (int64_t i = 0; i < nn; i++) u[i] += bc[7] * a6[i] + bc[5] * a4[i] + bc[3] * a2[i];
        for (int64_t i = 0; i < n; i++) u[i * n + i] += bc[1];
        ct__la_gemm_d(0, 0, n, n, n, 1.0, a, n, u, n, 0.0, X, n);
        memcpy(u, X, sizeof(double) * (size_t)nn);
        /* v = a6 (b12 a6 + b10 a4 + b8 a2) + b6 a6 + b4 a4 + b2 a2 + b0 I */
        for (int64_t i = 0; i < nn; i++) X[i] = bc[12] * a6[i] + bc[10] * a4[i] + bc[8] * a2[i];
        ct__la_gemm_d(0, 0, n, n, n, 1.0, a6, n, X, n, 0.0, v, n);
        for (int64_t i = 0; i < nn; i++) v[i] += bc[6] * a6[i] + bc[4] * a4[i] + bc[2] * a2[i];
        for (int64_t i = 0; i < n; i++) v[i * n + i] += bc[0];
    } else {
        /* powers a2^j; u = a sum_j b_{2j+1} a2^j, v = sum_j b_{2j} a2^j */
        double *pw = a4, *tmp = a6;
        for (int64_t i = 0; i < nn; i++) { u[i] = 0.0; v[i] = 0.0; pw[i] = 0.0; }
        for (int64_t i = 0; i < n; i++) pw[i * n + i] = 1.0;
        for (int j = 0; 2 * j <= deg; j++) {
            for (int64_t i = 0; i < nn; i++) { v[i] += bc[2 * j] * pw[i]; u[i] += bc[2 * j + 1] * pw[i]; }
            if (2 * j + 2 <= deg) {
                ct__la_gemm_d(0, 0, n, n, n, 1.0, pw, n, a2, n, 0.0, tmp, n);
                memcpy(pw, tmp, sizeof(double) * (size_t)nn);
            }
        }
        ct__la_gemm_d(0, 0, n, n, n, 1.0, a, n, u, n, 0.0, tmp, n);
        memcpy(u, tmp, sizeof(double) * (size_t)nn);
    }
    /* (v - u) X = (v + u) */
    for (int64_t i = 0; i < nn; i++) { double p = v[i] + u[i], q = v[i] - u[i]; X[i] = p; a[i] = q; }
    if (n <= CT__LA_SMALL) {
        int p0[CT__LA_SMALL];
        ct__la_lu_d(a, (int)n, (int)n, (int)n, p0);
        ct__la_lu_solve_d(a, (int)n, p0, X, (int)n, (int)n, 0);
    } else {
        /* row-major a is column-major a^T: solve a^T^T ... via getrf + getrs('T') */
        ct__la_getrf(CT_FLOAT64, (ct__la_int)n, (ct__la_int)n, a, (ct__la_int)n, piv);
        ct__la_mcopy(u, CT_FLOAT64, 1, n, X, CT_FLOAT64, n, 1, n, n);   /* X -> column-major */
        ct__la_getrs(CT_FLOAT64, 'T', (ct__la_int)n, (ct__la_int)n, a, (ct__la_int)n, piv, u, (ct__la_int)n);
        ct__la_mcopy(X, CT_FLOAT64, n, 1, u, CT_FLOAT64, 1, n, n, n);
    }
    for (int s = 0; s < sq; s++) {
        ct__la_gemm_d(0, 0, n, n, n, 1.0, X, n, X, n, 0.0, a, n);
        memcpy(X, a, sizeof(double) * (size_t)nn);
    }
}
static int ct__la_k_matrix_exp(ct__call *c) {
    const ct_tensor *A = c->in[0];
    ct_tensor *Y = c->out[0];
    int64_t n = A->shape[A->ndim - 1], nn = n * n;
    ct__bat B;
    ct__bat_of(&B, A, 2);
    size_t es = ct__dt[A->dtype].size;
    double *w = (double *)ct__la_scratch(sizeof(double) * (size_t)(8 * nn + 1));
    ct__la_int *piv = (ct__la_int *)ct__la_scratch(sizeof(ct__la_int) * (size_t)(n + 1));
    if (!w || !piv) { CT_FREE(w); CT_FREE(piv); return -1; }
    double *a = w + 6 * nn, *x = a + nn;
    for (int64_t b = 0; b < B.count; b++) {
        ct__la_load(a, CT_FLOAT64, n, 1, A, ct__bat_off(&B, A, 2, b));
        if (n) ct__la_expm_d(a, x, n, w, piv);
        ct__la_mcopy(ct__ptr(Y) + (size_t)(b * nn) * es, A->dtype, n, 1, x, CT_FLOAT64, n, 1, n, n);
    }
    CT_FREE(w);
    CT_FREE(piv);
    return 0;
}
/* PyTorch's backward_analytic_function_of_a_matrix: the upper-right block of
   exp([[A^T, G], [0, A^T]]) */
static int ct__la_bw_matrix_exp(ct__node *nd, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *A = CT__SV_IN(nd, 0);
    if (!A) return -1;
    int64_t n = A->shape[A->ndim - 1];
    ct_tensor *At = ct_mT(A);
    ct_tensor *top = ct__la_cat2(At, gout[0], -1), *bot = ct__la_cat2(ct_zeros_like(At), At, -1);
    ct_tensor *E = ct_linalg_matrix_exp(ct__la_cat2(top, bot, -2));
    gin[0] = ct_narrow(ct_narrow(E, -2, 0, n), -1, n, n);
    return gin[0] ? 0 : -1;
}
CTENSOR_API ct_tensor *ct_linalg_matrix_exp(const ct_tensor *A) {
    CT__LA_INIT_OR(NULL);
    if (A && CT__LA_CX(A->dtype) && A->ndim >= 2 && A->shape[A->ndim - 1] == A->shape[A->ndim - 2]) {
        /* complex X + iY: exp of the real 2n x 2n matrix [[X, -Y], [Y, X]] is
           [[Re, -Im], [Im, Re]] of exp(A); autograd follows the real ops */
        int64_t n = A->shape[A->ndim - 1];
        ct_tensor *X = ct_real(A), *Y = ct_imag(A), *top[2], *bot[2], *rows[2];
        top[0] = X;
        top[1] = ct_neg(Y);
        bot[0] = Y;
        bot[1] = X;
        rows[0] = ct_cat(2, top, -1);
        rows[1] = ct_cat(2, bot, -1);
        ct_tensor *E = ct_linalg_matrix_exp(ct_cat(2, rows, -2));
        if (!E) return NULL;
        ct_tensor *left = ct_narrow(E, -1, 0, n);
        return ct_complex(ct_narrow(left, -2, 0, n), ct_narrow(left, -2, n, n));
    }
    ct__attrs a;
    ct__la_attrs(&a, CT__LAN_MATRIX_EXP, 0);
    ct_tensor *in[1], *out[1];
    in[0] = (ct_tensor *)A;
    return ct__la_dispatch(CT__LA_MATRIX_EXP, 1, in, &a, out) < 0 ? NULL : out[0];
}

/* ============================================================================
   Vector norms: torch.linalg.vector_norm (any ord, any dims)
   ========================================================================== */
/* the reduced dims of a vector_norm call as a mask (no dims: all) */
static uint32_t ct__la_vn_mask(const ct__attrs *a, int ndim) {
    uint32_t mask = 0;
    if (ndim == 0) return 0;
    if (a->nv == 0) return (1u << ndim) - 1u;
    for (int k = 0; k < a->nv; k++) mask |= 1u << ct__wrap_dim((int)a->v[k], ndim);
    return mask;
}
static int ct__la_meta_vector_norm(ct__call *c) {
    const ct_tensor *x = c->in[0];
    const ct__attrs *a = c->a;
    const char *fn = "linalg.vector_norm";
    if (!CT__ISFLOAT(x->dtype))
        return ct__failed(ct_dtype_is_complex(x->dtype) ? CT_ERR_UNSUPPORTED : CT_ERR_DTYPE,
                          "%s: Expected a floating point or complex tensor as input. Got %s", fn, CT__DTNAME(x->dtype));
    uint32_t mask = 0;
    if (a->nv == 0) mask = x->ndim ? (1u << x->ndim) - 1u : 0u;
    for (int k = 0; k < a->nv; k++) {
        int d = ct__dim(fn, a->v[k], x->ndim);
        if (d < 0) return -1;
        if (x->ndim == 0) continue;
        if (mask & (1u << d)) return ct__failed(CT_ERR_ARG, "%s: dim %d appears multiple times in the list of dims", fn, d);
        mask |= 1u << d;
    }
    double ord = a->s[0];
    int empty = x->ndim == 0 ? 0 : 0;
    for (int d = 0; d < x->ndim; d++) if ((mask & (1u << d)) && x->shape[d] == 0) empty = 1;
    if (empty && (ord < 0 || ord == INFINITY))
        return ct__failed(CT_ERR_ARG, "%s cannot compute the %g norm on an empty tensor because the operation does not have an identity", fn, ord);
    int64_t shape[CT_MAX_DIMS];
    int nd = 0, keep = (a->flags & CT__LAF_KEEPDIM) != 0;
    for (int d = 0; d < x->ndim; d++) {
        if (mask & (1u << d)) { if (keep) shape[nd++] = 1; }
        else shape[nd++] = x->shape[d];
    }
    c->nout = 1;
    ct__la_out(c, 0, x->dtype, nd, shape);
    return 0;
}
static int ct__la_k_vector_norm(ct__call *c) {
    const ct_tensor *x = c->in[0];
    ct_tensor *y = c->out[0];
    uint32_t mask = ct__la_vn_mask(c->a, x->ndim);
    double p = c->a->s[0];
    int nk = 0, nr = 0;
    int64_t ks[CT_MAX_DIMS], kst[CT_MAX_DIMS], rs[CT_MAX_DIMS], rst[CT_MAX_DIMS], idx[CT_MAX_DIMS];
    for (int d = 0; d < x->ndim; d++) {
        if (mask & (1u << d)) { rs[nr] = x->shape[d]; rst[nr++] = x->strides[d]; }
        else { ks[nk] = x->shape[d]; kst[nk++] = x->strides[d]; }
    }
    int64_t nout = ct_numel(y), nred = 1;
    for (int r = 0; r < nr; r++) nred *= rs[r];
    ct_dtype dt = x->dtype;
    size_t es = ct__dt[dt].size;
    const char *base = (const char *)x->storage->data;
    for (int64_t o = 0; o < nout; o++) {
        int64_t off = x->offset, rem = o;
        for (int k = nk - 1; k >= 0; k--) { off += (rem % ks[k]) * kst[k]; rem /= ks[k]; }
        double acc = p == -INFINITY ? INFINITY : 0.0;
        int isnan_ = 0;
        for (int r = 0; r < nr; r++) idx[r] = 0;
        int64_t roff = 0;
        for (int64_t e = 0; e < nred; e++) {
            const char *ep = base + (size_t)(off + roff) * es;
            double v = dt == CT_FLOAT64 ? *(const double *)ep : dt == CT_FLOAT32 ? (double)*(const float *)ep : ct__load_f64(ep, dt);
            double av = fabs(v);
            if (v != v) isnan_ = 1;
            if (p == 2.0) acc += v * v;
            else if (p == 1.0) acc += av;
            else if (p == 0.0) acc += v != 0.0;
            else if (p == INFINITY) { if (av > acc) acc = av; }
            else if (p == -INFINITY) { if (av < acc) acc = av; }
            else acc += pow(av, p);
            for (int r = nr - 1; r >= 0; r--) {   /* odometer over the reduced dims */
                roff += rst[r];
                if (++idx[r] < rs[r]) break;
                roff -= rst[r] * rs[r];
                idx[r] = 0;
            }
        }
        double res;
        if (p == 2.0) res = sqrt(acc);
        else if (p == 1.0 || p == 0.0 || p == INFINITY || p == -INFINITY) res = acc;
        else res = pow(acc, 1.0 / p);
        if (isnan_ && (p == INFINITY || p == -INFINITY)) res = NAN;
        ct__store_f64(ct__ptr(y) + (size_t)o * es, dt, res);
    }
    return 0;
}
/* PyTorch's norm_backward (ctensor.h), after restoring the reduced dims */
static int ct__la_bw_vector_norm(ct__node *nd, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *x = CT__SV_IN(nd, 0), *nrm = CT__SV_OUT(nd, 0), *g = gout[0];
    if (!x || !nrm) return -1;
    double p = nd->attrs.s[0];
    uint32_t mask = ct__la_vn_mask(&nd->attrs, x->ndim);
    int64_t kshape[CT_MAX_DIMS], dims[CT_MAX_DIMS];
    int nrd = 0;
    for (int d = 0; d < x->ndim; d++) {
        kshape[d] = (mask & (1u << d)) ? 1 : x->shape[d];
        if (mask & (1u << d)) dims[nrd++] = d;
    }
    if (!(nd->attrs.flags & CT__LAF_KEEPDIM)) {
        g = ct_reshape_n(g, x->ndim, kshape);
        nrm = ct_reshape_n(nrm, x->ndim, kshape);
    }
    gin[0] = ct__norm_backward(g, x, nrm, p, nrd, dims);   /* ctensor.h's, shared with norm */
    return gin[0] ? 0 : -1;
}
CTENSOR_API ct_tensor *ct_linalg_vector_norm(const ct_tensor *x, double ord, int ndims, const int64_t *dims, int keepdim) {
    CT__LA_INIT_OR(NULL);
    if (x && CT__LA_CX(x->dtype)) {   /* complex: the norm of |x| (real; autograd through abs: g sgn(x)) */
        x = ct_abs(x);
        if (!x) return NULL;
    }
    ct__attrs a;
    ct__attrs_init(&a);
    a.flags = keepdim ? CT__LAF_KEEPDIM : 0;
    a.s[0] = ord;
    if (ndims < 0 || ndims > CT_MAX_DIMS || (ndims > 0 && !dims))
        return ct__fail(CT_ERR_ARG, "linalg.vector_norm: invalid list of %d dims", ndims);
    a.nv = ndims;
    for (int k = 0; k < ndims; k++) a.v[k] = dims[k];
    ct_tensor *in[1], *out[1];
    in[0] = (ct_tensor *)x;
    return ct__la_dispatch(CT__LA_VECTOR_NORM, 1, in, &a, out) < 0 ? NULL : out[0];
}

/* ============================================================================
   Cross products and Vandermonde matrices: torch.linalg.cross, vander
   ========================================================================== */
static int ct__la_meta_cross(ct__call *c) {
    const ct_tensor *x = c->in[0], *y = c->in[1];
    const ct__attrs *a = c->a;
    const char *fn = "linalg.cross";
    if (x->ndim != y->ndim) return ct__failed(CT_ERR_SHAPE, "%s: inputs must have the same number of dimensions.", fn);
    if (x->dtype != y->dtype)
        return ct__failed(CT_ERR_DTYPE, "%s: expected input and other to have the same dtype, but got %s and %s", fn, CT__DTNAME(x->dtype), CT__DTNAME(y->dtype));
    if (x->dtype == CT_BOOL || !CT__ISREAL(x->dtype)) return ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s'", fn, CT__DTNAME(x->dtype));
    int d = ct__dim(fn, a->i[0], x->ndim);
    if (d < 0) return -1;
    if (x->ndim == 0 || x->shape[d] != 3 || y->shape[d] != 3)
        return ct__failed(CT_ERR_SHAPE, "%s: inputs dimension %lld must have length 3. Got %lld and %lld", fn, (long long)a->i[0],
                          (long long)(x->ndim ? x->shape[d] : 1), (long long)(y->ndim ? y->shape[d] : 1));
    int nb;
    int64_t shape[CT_MAX_DIMS];
    if (ct__la_bcast_batch(fn, x, 0, y, 0, &nb, shape)) return -1;
    c->nout = 1;
    ct__la_out(c, 0, x->dtype, nb, shape);
    return 0;
}
static int ct__la_k_cross(ct__call *c) {
    const ct_tensor *x = c->in[0], *y = c->in[1];
    ct_tensor *o = c->out[0];
    int nd = o->ndim, dim = ct__wrap_dim((int)c->a->i[0], nd);
    int64_t sx[CT_MAX_DIMS], sy[CT_MAX_DIMS], idx[CT_MAX_DIMS];
    for (int d = 0; d < nd; d++) {
        sx[d] = x->shape[d] == 1 ? 0 : x->strides[d];
        sy[d] = y->shape[d] == 1 ? 0 : y->strides[d];
        idx[d] = 0;
    }
    size_t es = ct__dt[o->dtype].size;
    int64_t cnt = ct_numel(o) / 3, oo = 0;
    const char *xb = (const char *)x->storage->data, *yb = (const char *)y->storage->data;
    int integral = CT__ISINT(o->dtype);
    for (int64_t e = 0; e < cnt; e++) {
        int64_t ox = x->offset, oy = y->offset;
        oo = 0;
        for (int d = 0; d < nd; d++) { ox += idx[d] * sx[d]; oy += idx[d] * sy[d]; oo += idx[d] * o->strides[d]; }
        if (integral) {
            int64_t a0 = ct__load_i64(xb + (size_t)ox * es, x->dtype), a1 = ct__load_i64(xb + (size_t)(ox + sx[dim]) * es, x->dtype),
                    a2 = ct__load_i64(xb + (size_t)(ox + 2 * sx[dim]) * es, x->dtype);
            int64_t b0 = ct__load_i64(yb + (size_t)oy * es, y->dtype), b1 = ct__load_i64(yb + (size_t)(oy + sy[dim]) * es, y->dtype),
                    b2 = ct__load_i64(yb + (size_t)(oy + 2 * sy[dim]) * es, y->dtype);
            char *op = ct__ptr(o);
            ct__store_i64(op + (size_t)oo * es, o->dtype, (int64_t)((uint64_t)a1 * (uint64_t)b2 - (uint64_t)a2 * (uint64_t)b1));
            ct__store_i64(op + (size_t)(oo + o->strides[dim]) * es, o->dtype, (int64_t)((uint64_t)a2 * (uint64_t)b0 - (uint64_t)a0 * (uint64_t)b2));
            ct__store_i64(op + (size_t)(oo + 2 * o->strides[dim]) * es, o->dtype, (int64_t)((uint64_t)a0 * (uint64_t)b1 - (uint64_t)a1 * (uint64_t)b0));
        } else {
            double a0 = ct__load_f64(xb + (size_t)ox * es, x->dtype), a1 = ct__load_f64(xb + (size_t)(ox + sx[dim]) * es, x->dtype),
                   a2 = ct__load_f64(xb + (size_t)(ox + 2 * sx[dim]) * es, x->dtype);
            double b0 = ct__load_f64(yb + (size_t)oy * es, y->dtype), b1 = ct__load_f64(yb + (size_t)(oy + sy[dim]) * es, y->dtype),
                   b2 = ct__load_f64(yb + (size_t)(oy + 2 * sy[dim]) * es, y->dtype);
            char *op = ct__ptr(o);
            ct__store_f64(op + (size_t)oo * es, o->dtype, a1 * b2 - a2 * b1);
            ct__store_f64(op + (size_t)(oo + o->strides[dim]) * es, o->dtype, a2 * b0 - a0 * b2);
            ct__store_f64(op + (size_t)(oo + 2 * o->strides[dim]) * es, o->dtype, a0 * b1 - a1 * b0);
        }
        for (int d = nd - 1; d >= 0; d--) {     /* next position, skipping `dim` */
            if (d == dim) continue;
            if (++idx[d] < o->shape[d]) break;
            idx[d] = 0;
        }
    }
    return 0;
}
static int ct__la_bw_cross(ct__node *nd, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *x = CT__SV_IN(nd, 0), *y = CT__SV_IN(nd, 1);
    if (!x || !y) return -1;
    int dim = (int)nd->attrs.i[0];
    if (CT__NEEDS(nd, 0) && !(gin[0] = ct_linalg_cross(y, gout[0], dim))) return -1;
    if (CT__NEEDS(nd, 1) && !(gin[1] = ct_linalg_cross(gout[0], x, dim))) return -1;
    return 0;
}
CTENSOR_API ct_tensor *ct_linalg_cross(const ct_tensor *x, const ct_tensor *y, int dim) {
    CT__LA_INIT_OR(NULL);
    if (x && y && x->dtype == y->dtype && CT__LA_CX(x->dtype)) {
        /* complex: bilinear in the parts; the real op checks the shapes */
        ct_tensor *xr = ct_real(x), *xi = ct_imag(x), *yr = ct_real(y), *yi = ct_imag(y);
        ct_tensor *re = ct_sub(ct_linalg_cross(xr, yr, dim), ct_linalg_cross(xi, yi, dim));
        return re ? ct_complex(re, ct_add(ct_linalg_cross(xr, yi, dim), ct_linalg_cross(xi, yr, dim))) : NULL;
    }
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = dim;
    ct_tensor *in[2], *out[1];
    in[0] = (ct_tensor *)x;
    in[1] = (ct_tensor *)y;
    return ct__la_dispatch(CT__LA_CROSS, 2, in, &a, out) < 0 ? NULL : out[0];
}

static int ct__la_meta_vander(ct__call *c) {
    const ct_tensor *x = c->in[0];
    const ct__attrs *a = c->a;
    if (x->ndim < 1) return ct__failed(CT_ERR_SHAPE, "linalg.vander: x must have at least one dimension");
    if (!CT__ISREAL(x->dtype)) return ct__failed(CT_ERR_DTYPE, "linalg.vander: not implemented for '%s'", CT__DTNAME(x->dtype));
    int64_t N = (a->flags & CT__LAF_HAS_N) ? a->i[0] : x->shape[x->ndim - 1];
    if (N <= 1) return ct__failed(CT_ERR_ARG, "N must be greater than 1.");
    int64_t shape[CT_MAX_DIMS];
    for (int d = 0; d < x->ndim; d++) shape[d] = x->shape[d];
    shape[x->ndim] = N;
    if (x->ndim + 1 > CT_MAX_DIMS) return ct__failed(CT_ERR_ARG, "linalg.vander: too many dimensions");
    c->nout = 1;
    ct__la_out(c, 0, x->dtype == CT_BOOL ? CT_INT64 : x->dtype, x->ndim + 1, shape);
    return 0;
}
static int ct__la_k_vander(ct__call *c) {
    const ct_tensor *x = c->in[0];
    ct_tensor *V = c->out[0];
    int64_t N = V->shape[V->ndim - 1], n = ct_numel(x), idx[CT_MAX_DIMS];
    size_t xs = ct__dt[x->dtype].size, vs = ct__dt[V->dtype].size;
    int integral = !CT__ISFLOAT(V->dtype);
    for (int d = 0; d < x->ndim; d++) idx[d] = 0;
    for (int64_t e = 0; e < n; e++) {
        int64_t off = x->offset;
        for (int d = 0; d < x->ndim; d++) off += idx[d] * x->strides[d];
        const char *xp = (const char *)x->storage->data + (size_t)off * xs;
        char *vp = ct__ptr(V) + (size_t)(e * N) * vs;
        if (integral) {
            uint64_t xv = (uint64_t)ct__load_i64(xp, x->dtype), acc = 1;
            for (int64_t j = 0; j < N; j++) { ct__store_i64(vp + (size_t)j * vs, V->dtype, (int64_t)acc); acc *= xv; }
        } else {
            double xv = ct__load_f64(xp, x->dtype), acc = 1.0;
            for (int64_t j = 0; j < N; j++) { ct__store_f64(vp + (size_t)j * vs, V->dtype, acc); acc *= xv; }
        }
        for (int d = x->ndim - 1; d >= 0; d--) { if (++idx[d] < x->shape[d]) break; idx[d] = 0; }
    }
    return 0;
}
/* d/dx_i: sum_{j >= 1} g_ij j x_i^(j-1) */
static int ct__la_bw_vander(ct__node *nd, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *V = CT__SV_OUT(nd, 0);
    if (!V) return -1;
    int64_t N = V->shape[V->ndim - 1];
    ct_tensor *j = ct_arange_on(V->device, 1, (double)N, 1, V->dtype);
    ct_tensor *t = ct_mul(ct_mul(ct_narrow(gout[0], -1, 1, N - 1), j), ct_narrow(V, -1, 0, N - 1));
    gin[0] = ct_sum_dim(t, -1, 0);
    return gin[0] ? 0 : -1;
}
CTENSOR_API ct_tensor *ct_linalg_vander(const ct_tensor *x, int64_t N) {
    CT__LA_INIT_OR(NULL);
    if (x && CT__LA_CX(x->dtype) && x->ndim >= 1 && x->ndim < CT_MAX_DIMS) {
        /* complex: the columns 1, x, x^2, ... as running products (autograd through mul) */
        int64_t n = N < 0 ? x->shape[x->ndim - 1] : N;
        if (n <= 1) return ct__fail(CT_ERR_ARG, "N must be greater than 1.");
        ct_tensor **cols = (ct_tensor **)ct__la_scratch(sizeof(ct_tensor *) * (size_t)n), *r = NULL;
        if (!cols) return NULL;
        cols[0] = ct_ones_like(x);
        int64_t k = 1;
        for (; k < n && cols[k - 1]; k++) cols[k] = ct_mul(cols[k - 1], x);
        if (k == n && cols[n - 1]) r = ct_stack((int)n, cols, -1);
        CT_FREE(cols);
        return r;
    }
    ct__attrs a;
    ct__attrs_init(&a);
    a.flags = N < 0 ? 0 : CT__LAF_HAS_N;
    a.i[0] = N < 0 ? 0 : N;
    ct_tensor *in[1], *out[1];
    in[0] = (ct_tensor *)x;
    return ct__la_dispatch(CT__LA_VANDER, 1, in, &a, out) < 0 ? NULL : out[0];
}

/* ============================================================================
   Composite functions (PyTorch's CompositeImplicitAutograd ones): autograd
   comes from the ops they are made of.
   ========================================================================== */
CTENSOR_API ct_tensor *ct_linalg_diagonal(const ct_tensor *A, int64_t offset, int dim1, int dim2) {
    return ct_diagonal(A, offset, dim1, dim2);
}
CTENSOR_API ct_tensor *ct_linalg_vecdot(const ct_tensor *x, const ct_tensor *y, int dim) {
    if (!x || !y) { ct__null_arg("linalg.vecdot", x ? 1 : 0); return NULL; }
    if (x->dtype != y->dtype)
        return ct__fail(CT_ERR_DTYPE, "linalg.vecdot: Expected x and y to have the same dtype, but found x of type %s and y of type %s instead",
                        CT__DTNAME(x->dtype), CT__DTNAME(y->dtype));
    return ct_sum_dim(ct_mul(CT__LA_CX(x->dtype) ? ct_conj(x) : x, y), dim, 0);   /* complex: conj(x) . y */
}
/* A with dims d0, d1 moved to the end (torch.movedim) */
static ct_tensor *ct__la_movedims_last(const ct_tensor *A, int d0, int d1) {
    int64_t perm[CT_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < A->ndim; d++) if (d != d0 && d != d1) perm[k++] = d;
    perm[k++] = d0;
    perm[k++] = d1;
    return ct_permute_n(A, A->ndim, perm);
}
/* r of shape batch -> keepdim shape with 1 at d0, d1 */
static ct_tensor *ct__la_keepdims2(ct_tensor *r, int d0, int d1) {
    int lo = d0 < d1 ? d0 : d1, hi = d0 < d1 ? d1 : d0;
    return ct_unsqueeze(ct_unsqueeze(r, lo), hi);
}
/* ord strings: "fro", "nuc", or a number (strtod: "inf", "-inf", "2", "0.5") */
static int ct__la_parse_ord(const char *s, double *v, int *kind) {
    if (!strcmp(s, "fro")) { *kind = 1; return 0; }
    if (!strcmp(s, "nuc")) { *kind = 2; return 0; }
    char *end = NULL;
    *v = strtod(s, &end);
    *kind = 0;
    return end && end != s && *end == 0 ? 0 : -1;
}
static ct_tensor *ct__la_matrix_norm(const ct_tensor *A, const char *ord, const int64_t *dim, int keepdim, const char *fn) {
    if (!A) { ct__null_arg(fn, 0); return NULL; }
    if (!ord) ord = "fro";
    double p = 0;
    int kind;
    if (ct__la_parse_ord(ord, &p, &kind) || (kind == 0 && !(fabs(p) == 1.0 || fabs(p) == 2.0 || isinf(p))))
        return ct__fail(CT_ERR_ARG, "%s: Order %s not supported.", fn, ord);
    if (!CT__ISFLOAT(A->dtype) && !CT__LA_CX(A->dtype))
        return ct__fail(CT_ERR_DTYPE, "%s: Expected a floating point or complex tensor as input. Got %s", fn, CT__DTNAME(A->dtype));
    if (A->ndim < 2) return ct__fail(CT_ERR_SHAPE, "%s: The input tensor A must have at least 2 dimensions.", fn);
    int d0 = ct__dim(fn, dim ? (int)dim[0] : -2, A->ndim), d1 = d0 < 0 ? -1 : ct__dim(fn, dim ? (int)dim[1] : -1, A->ndim);
    if (d0 < 0 || d1 < 0) return NULL;
    if (d0 == d1) return ct__fail(CT_ERR_ARG, "%s: dims must be different. Got (%d, %d)", fn, d0, d1);
    int64_t dd[2];
    dd[0] = d0;
    dd[1] = d1;
    if (kind == 1) return ct_linalg_vector_norm(A, 2.0, 2, dd, keepdim);
    if (kind == 2 || fabs(p) == 2.0) {
        ct_tensor *s = ct_linalg_svdvals(ct__la_movedims_last(A, d0, d1));
        if (!s) return NULL;
        if (s->shape[s->ndim - 1] == 0 && kind != 2)
            return ct__fail(CT_ERR_ARG, "amax(): Expected reduction dim -1 to have non-zero size.");
        int64_t last = -1;
        ct_tensor *r = kind == 2 ? ct_sum_dim(s, -1, 0) : ct_linalg_vector_norm(s, p > 0 ? INFINITY : -INFINITY, 1, &last, 0);
        return keepdim ? ct__la_keepdims2(r, d0, d1) : r;
    }
    /* 1, -1: max/min column sum; inf, -inf: max/min row sum (sums of |a| are >= 0,
       so amax/amin are the inf / -inf vector norms) */
    int64_t sd = isinf(p) ? d1 : d0, md = isinf(p) ? d0 : d1;
    if (!keepdim && sd < md) md--;
    ct_tensor *sums = ct_linalg_vector_norm(A, 1.0, 1, &sd, keepdim);
    return ct_linalg_vector_norm(sums, p > 0 ? INFINITY : -INFINITY, 1, &md, keepdim);
}
CTENSOR_API ct_tensor *ct_linalg_matrix_norm(const ct_tensor *A, const char *ord, const int64_t *dim, int keepdim) {
    return ct__la_matrix_norm(A, ord, dim, keepdim, "linalg.matrix_norm");
}
CTENSOR_API ct_tensor *ct_linalg_norm(const ct_tensor *A, const char *ord, int ndims, const int64_t *dims, int keepdim) {
    const char *fn = "linalg.norm";
    if (!A) { ct__null_arg(fn, 0); return NULL; }
    if (ndims > 2 || ndims < 0) return ct__fail(CT_ERR_ARG, "%s: If dim is specified, it must be of length 1 or 2. Got [%d dims]", fn, ndims);
    double p = 2.0;
    int kind = 0;
    if (ord && ct__la_parse_ord(ord, &p, &kind)) return ct__fail(CT_ERR_ARG, "%s: Order %s not supported.", fn, ord);
    if (ndims == 0) {
        if (ord) {
            if (A->ndim != 1 && A->ndim != 2)
                return ct__fail(CT_ERR_SHAPE, "%s: If dim is not specified but ord is, the input must be 1D or 2D. Got %dD.", fn, A->ndim);
            if (A->ndim == 2) return ct__la_matrix_norm(A, ord, NULL, keepdim, fn);
            if (kind) return ct__fail(CT_ERR_ARG, "%s: Order %s not supported for vectors.", fn, ord);
            return ct_linalg_vector_norm(A, p, 0, NULL, keepdim);
        }
        ct_tensor *r = ct_linalg_vector_norm(ct_reshape(A, -1), 2.0, 0, NULL, 0);
        if (!r || !keepdim) return r;
        int64_t ones[CT_MAX_DIMS];
        for (int d = 0; d < A->ndim; d++) ones[d] = 1;
        return ct_reshape_n(r, A->ndim, ones);
    }
    if (ndims == 2) return ct__la_matrix_norm(A, ord ? ord : "fro", dims, keepdim, fn);
    if (kind) return ct__fail(CT_ERR_ARG, "%s: Order %s not supported for vectors.", fn, ord);
    return ct_linalg_vector_norm(A, p, 1, dims, keepdim);
}
CTENSOR_API ct_tensor *ct_linalg_cond(const ct_tensor *A, const char *p) {
    const char *fn = "linalg.cond";
    if (!A) { ct__null_arg(fn, 0); return NULL; }
    double pv = 2.0;
    int kind = 0;
    if (p && (ct__la_parse_ord(p, &pv, &kind) || (kind == 0 && !(fabs(pv) == 1.0 || fabs(pv) == 2.0 || isinf(pv)))))
        return ct__fail(CT_ERR_ARG, "linalg.cond got an invalid norm type: %s", p);
    if (ct__la_check_dtype(fn, A)) return NULL;
    if (A->ndim < 2) return ct__fail(CT_ERR_SHAPE, "%s: The input tensor A must have at least 2 dimensions.", fn);
    if (!p || (kind == 0 && fabs(pv) == 2.0)) {
        ct_tensor *s = ct_linalg_svdvals(A);
        if (!s) return NULL;
        ct_tensor *mx = ct_select(s, -1, 0), *mn = ct_select(s, -1, s->shape[s->ndim - 1] - 1);
        return pv < 0 ? ct_div(mn, mx) : ct_div(mx, mn);
    }
    if (A->shape[A->ndim - 1] != A->shape[A->ndim - 2])
        return ct__fail(CT_ERR_SHAPE, "linalg.cond(ord=%s): A must be batches of square matrices, but they are %lld by %lld matrices", p,
                        (long long)A->shape[A->ndim - 2], (long long)A->shape[A->ndim - 1]);
    ct_tensor *info = NULL;
    ct_tensor *Ai = ct__la_inv(A, 0, &info, CT__LAN_COND);
    ct_tensor *r = ct_mul(ct__la_matrix_norm(A, p, NULL, 0, fn), ct__la_matrix_norm(Ai, p, NULL, 0, fn));
    /* singular input: inf, as PyTorch */
    return info ? ct_masked_fill(r, ct_gt_scalar(info, 0.0), INFINITY) : NULL;
}
CTENSOR_API ct_tensor *ct_linalg_matrix_rank(const ct_tensor *A, double atol, double rtol, int hermitian) {
    const char *fn = "linalg.matrix_rank";
    if (!A) { ct__null_arg(fn, 0); return NULL; }
    if (ct__la_check_matrix(fn, A, hermitian)) return NULL;
    ct_tensor *r = NULL;
    int prev = ct_set_grad_enabled(0);   /* not differentiable: no graph */
    int64_t m = A->shape[A->ndim - 2], n = A->shape[A->ndim - 1], last = -1;
    ct_tensor *s = hermitian ? ct_abs(ct_linalg_eigvalsh(A, "L")) : ct_linalg_svdvals(A);
    if (s) {
        /* tol = max(atol, rtol * smax) per matrix; rtol defaults as in ct_linalg_pinv */
        double rt = isnan(rtol) ? (isnan(atol) || atol <= 0 ? ct__la_eps(A->dtype) * (double)(m > n ? m : n) : 0.0) : rtol;
        double at = isnan(atol) ? 0.0 : atol;
        ct_tensor *smax = s->shape[s->ndim - 1] ? ct_linalg_vector_norm(s, INFINITY, 1, &last, 1) : ct_zeros_like(ct_narrow(s, -1, 0, 0));
        ct_tensor *tol = ct_clamp(ct_mul_scalar(smax, rt), at, NAN);
        r = ct_sum_dim(ct_gt(s, tol), -1, 0);
    }
    ct_set_grad_enabled(prev);
    return r;
}
CTENSOR_API ct_tensor *ct_linalg_matrix_power(const ct_tensor *A, int64_t n) {
    const char *fn = "linalg.matrix_power";
    if (!A) { ct__null_arg(fn, 0); return NULL; }
    if (A->ndim < 2) return ct__fail(CT_ERR_SHAPE, "%s: The input tensor A must have at least 2 dimensions.", fn);
    int64_t m = A->shape[A->ndim - 1];
    if (A->shape[A->ndim - 2] != m)
        return ct__fail(CT_ERR_SHAPE, "%s: A must be batches of square matrices, but they are %lld by %lld matrices", fn,
                        (long long)A->shape[A->ndim - 2], (long long)m);
    if (n == 0) return ct_copy_(ct_clone(A), ct_eye(m, m, A->dtype));   /* in A's graph with a zero gradient, as PyTorch */
    const ct_tensor *a = A;
    if (n < 0) {
        if (!CT__ISFLOAT(A->dtype) && !CT__LA_CX(A->dtype))
            return ct__fail(CT_ERR_DTYPE, "%s: inverse of a matrix of integer dtype is not supported (negative power %lld)", fn, (long long)n);
        a = ct_linalg_inv(A);
        if (!a) return NULL;
        n = -n;
    }
    if (n == 1) return ct_clone(a);
    /* binary powering, in PyTorch's order of products */
    ct_tensor *z = NULL, *result = NULL;
    while (n > 0) {
        z = z ? ct_matmul(z, z) : (ct_tensor *)a;
        if (!z) return NULL;
        if (n & 1) result = result ? ct_matmul(result, z) : z;
        n >>= 1;
    }
    return result == A ? ct_clone(A) : result;
}
/* optimal parenthesization: the classic O(n^3) matrix-chain dynamic program */
static ct_tensor *ct__la_chain(ct_tensor *const *ts, const int64_t *split, int n, int i, int j) {
    if (i == j) return ts[i];
    int k = (int)split[i * n + j];
    return ct_mm(ct__la_chain(ts, split, n, i, k), ct__la_chain(ts, split, n, k + 1, j));
}
CTENSOR_API ct_tensor *ct_linalg_multi_dot(int n, ct_tensor *const *tensors) {
    if (n < 2) return ct__fail(CT_ERR_ARG, "multi_dot(): expected at least 2 tensors but got %d", n);
    for (int i = 0; i < n; i++) if (!tensors[i]) { ct__null_arg("linalg.multi_dot", i); return NULL; }
    const ct_tensor *first = tensors[0], *last = tensors[n - 1];
    if (first->ndim != 1 && first->ndim != 2) return ct__fail(CT_ERR_SHAPE, "multi_dot(): the first tensor must be 1D or 2D but got %dD", first->ndim);
    if (last->ndim != 1 && last->ndim != 2) return ct__fail(CT_ERR_SHAPE, "multi_dot(): the last tensor must be 1D or 2D but got %dD", last->ndim);
    for (int i = 1; i < n - 1; i++)
        if (tensors[i]->ndim != 2) return ct__fail(CT_ERR_SHAPE, "multi_dot(): tensor %d must be 2D but got %dD", i, tensors[i]->ndim);
    for (int i = 1; i < n; i++)
        if (tensors[i]->dtype != first->dtype)
            return ct__fail(CT_ERR_DTYPE, "multi_dot(): all tensors must have be the same dtype but tensor 0 is %s and tensor %d is %s",
                            CT__DTNAME(first->dtype), i, CT__DTNAME(tensors[i]->dtype));
    ct_tensor **ts = (ct_tensor **)ct__la_scratch(sizeof(ct_tensor *) * (size_t)n);
    int64_t *dims = (int64_t *)ct__la_scratch(sizeof(int64_t) * (size_t)(n + 1));
    double *cost = (double *)ct__la_scratch(sizeof(double) * (size_t)(n * n));
    int64_t *split = (int64_t *)ct__la_scratch(sizeof(int64_t) * (size_t)(n * n));
    ct_tensor *r = NULL;
    if (!ts || !dims || !cost || !split) goto done;
    for (int i = 0; i < n; i++) ts[i] = tensors[i];
    if (first->ndim == 1) ts[0] = ct_unsqueeze(first, 0);
    if (last->ndim == 1) ts[n - 1] = ct_unsqueeze(last, 1);
    for (int i = 0; i < n; i++) if (!ts[i]) goto done;
    for (int i = 0; i + 1 < n; i++)
        if (ts[i]->shape[1] != ts[i + 1]->shape[0]) {
            ct_set_error(CT_ERR_SHAPE, "multi_dot(): tensors %d and %d with shapes %s and %s cannot be multiplied", i, i + 1,
                         CT__SHAPE(ts[i]), ct__fmt_shape(ts[i + 1]->ndim, ts[i + 1]->shape).s);
            goto done;
        }
    for (int i = 0; i < n; i++) dims[i] = ts[i]->shape[0];
    dims[n] = ts[n - 1]->shape[1];
    for (int i = 0; i < n; i++) cost[i * n + i] = 0.0;
    for (int len = 1; len < n; len++)
        for (int i = 0; i + len < n; i++) {
            int j = i + len;
            cost[i * n + j] = INFINITY;
            for (int k = i; k < j; k++) {
                double cst = cost[i * n + k] + cost[(k + 1) * n + j] + (double)dims[i] * (double)dims[k + 1] * (double)dims[j + 1];
                if (cst < cost[i * n + j]) { cost[i * n + j] = cst; split[i * n + j] = k; }
            }
        }
    r = ct__la_chain(ts, split, n, 0, n - 1);
    if (r && first->ndim == 1 && last->ndim == 1) r = ct_reshape_n(r, 0, NULL);
    else if (r && first->ndim == 1) r = ct_squeeze_dim(r, 0);
    else if (r && last->ndim == 1) r = ct_squeeze_dim(r, 1);
done:
    CT_FREE(ts);
    CT_FREE(dims);
    CT_FREE(cost);
    CT_FREE(split);
    return r;
}
CTENSOR_API ct_tensor *ct_linalg_tensorinv(const ct_tensor *A, int ind) {
    if (!A) { ct__null_arg("linalg.tensorinv", 0); return NULL; }
    if (ind <= 0) return ct__fail(CT_ERR_ARG, "Expected a strictly positive integer for 'ind', but got %d", ind);
    if (ind > A->ndim) return ct__fail(CT_ERR_ARG, "linalg.tensorinv: ind (%d) exceeds the number of dimensions (%d)", ind, A->ndim);
    int64_t p0 = 1, p1 = 1, shape[CT_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < ind; d++) p0 *= A->shape[d];
    for (int d = ind; d < A->ndim; d++) { p1 *= A->shape[d]; shape[k++] = A->shape[d]; }
    for (int d = 0; d < ind; d++) shape[k++] = A->shape[d];
    if (p0 != p1)
        return ct__fail(CT_ERR_SHAPE, "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got %lld != %lld",
                        (long long)p1, (long long)p0);
    return ct_reshape_n(ct_linalg_inv(ct_reshape(A, p0, p1)), A->ndim, shape);
}
CTENSOR_API ct_tensor *ct_linalg_tensorsolve(const ct_tensor *A, const ct_tensor *B, int ndims, const int64_t *dims) {
    if (!A || !B) { ct__null_arg("linalg.tensorsolve", A ? 1 : 0); return NULL; }
    const ct_tensor *a = A;
    if (ndims > 0) {
        /* move the given dims of A to the end, in order */
        int64_t perm[CT_MAX_DIMS];
        uint32_t used = 0;
        int k = 0;
        for (int i = 0; i < ndims; i++) {
            int d = ct__dim("linalg.tensorsolve", dims[i], A->ndim);
            if (d < 0) return NULL;
            used |= 1u << d;
        }
        for (int d = 0; d < A->ndim; d++) if (!(used & (1u << d))) perm[k++] = d;
        for (int i = 0; i < ndims; i++) perm[k++] = ct__wrap_dim((int)dims[i], A->ndim);
        a = ct_permute_n(A, A->ndim, perm);
        if (!a) return NULL;
    }
    int bd = B->ndim;
    if (bd > a->ndim) return ct__fail(CT_ERR_SHAPE, "linalg.tensorsolve: other has more dimensions (%d) than self (%d)", bd, a->ndim);
    int64_t rp = 1, bp = 1, rshape[CT_MAX_DIMS];
    int k = 0;
    for (int d = bd; d < a->ndim; d++) { rp *= a->shape[d]; rshape[k++] = a->shape[d]; }
    for (int d = 0; d < bd; d++) {
        bp *= B->shape[d];
        if (a->shape[d] != B->shape[d])
            return ct__fail(CT_ERR_SHAPE, "linalg.tensorsolve: Expected self.shape[:other.ndim] to equal other.shape, but got %s and %s",
                            CT__SHAPE(a), CT__SHAPE(B));
    }
    if (rp != bp)
        return ct__fail(CT_ERR_SHAPE, "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but got %lld != %lld",
                        (long long)rp, (long long)bp);
    return ct_reshape_n(ct_linalg_solve(ct_reshape(a, rp, rp), ct_reshape(B, -1)), k, rshape);
}

CT__GXX_POP
#endif /* CTENSOR_LINALG_IMPLEMENTATION_DONE */
#endif /* CTENSOR_LINALG_IMPLEMENTATION */
