/* ctensor_composite.h - more of torch's functions, each built from ctensor.h's ops:
   kron, movedim, diff, rot90, meshgrid, hstack, cov, quantile, cdist, ...
                                                                   v0.1 (2026-12-07)
   HOW TO USE
     #define CTENSOR_IMPLEMENTATION          (in exactly one file)
     #include "ctensor.h"
     #include "ctensor_composite.h"          (after ctensor.h)
     link with -lm

     In the file that defines CTENSOR_IMPLEMENTATION, CTENSOR_COMPOSITE_IMPLEMENTATION
     is turned on automatically (its ops with kernels, searchsorted and
     logcumsumexp, register in ctensor.h's op table, so it compiles in that file).

   WHAT IT IS
     PyTorch defines many of its functions by composing other ops (its
     CompositeImplicitAutograd kernels): torch.kron is a reshape, a broadcast mul and
     a reshape; torch.cov is a mean, a sub and a matmul. This header does the same
     with ctensor.h's public ops, so each function gets from its parts, with no code
     of its own: autograd (and double backward), every dtype the parts take (complex
     included), strided and empty inputs, and the devices the parts run on. Results
     equal PyTorch 1.13's within float tolerance (tests/reference/cases_composite.py
     makes the fixtures with PyTorch; tests/conformance/ops_composite.c runs them).
     ctensor.h holds the primitive kernels and stays under its 1 MiB limit; these
     functions live here. The exceptions: searchsorted / bucketize, a binary search
     per value, and logcumsumexp, a scan, are ops with CPU kernels of their own
     (aten::searchsorted.Tensor, aten::logcumsumexp).

   THE FEEL (torch.kron, torch.meshgrid, torch.cov)
       ct_tensor *k = ct_kron(a, b);
       ct_tensor *axes[2] = {x, y}, *g[2];
       ct_meshgrid(2, axes, "ij", g);
       ct_tensor *c = ct_cov(obs, 1, NULL, NULL);
       ct_tensor *q = ct_quantile(x, 0.9, 1, 0, "linear");

   TABLE OF CONTENTS
     1. Declarations
        1a. shape and layout: movedim moveaxis swapaxes swapdims atleast_1d/2d/3d
            ravel fliplr flipud rot90 diagflat positive unfold (Tensor.unfold)
        1b. joining and splitting: hstack vstack row_stack dstack column_stack
            block_diag tensor_split (sections, indices) hsplit vsplit dsplit
            meshgrid cartesian_prod combinations tril_indices triu_indices
        1c. math: kron inner addr ldexp float_power logaddexp logaddexp2 isreal
            dist cdist renorm diff trapezoid cumulative_trapezoid logspace
            take_along_dim logcumsumexp (an op with a kernel of its own)
        1d. statistics: cov corrcoef aminmax quantile nanquantile
        1e. counting: heaviside bincount histc histogram unique unique_consecutive
            (flattened, or slices along a dim)
        1f. searching: searchsorted bucketize (one op with a kernel of its own)
     2. Implementation

   ERRORS
     As everywhere in ctensor: NULL (or -1) with ct_last_error() naming the function
     and the values, in PyTorch's words; nothing is modified. Intermediate results
     are freed before the function returns (each runs in a scope of its own and keeps
     only its result).
*/
#ifndef CTENSOR_COMPOSITE_H_INCLUDED
#define CTENSOR_COMPOSITE_H_INCLUDED
#include "ctensor.h"
#ifdef __cplusplus
extern "C" {
#endif
/* ============================================================================
   1. Declarations
   ========================================================================== */
/* ---- 1a. shape and layout ------------------------------------------------ */
/* torch.movedim(x, source, destination): dims source[k] move to destination[k], the
   others keep their order (a view). torch.moveaxis is the same. */
CTENSOR_API ct_tensor *ct_movedim(const ct_tensor *x, int n, const int64_t *source, const int64_t *destination);
CTENSOR_API ct_tensor *ct_moveaxis(const ct_tensor *x, int n, const int64_t *source, const int64_t *destination);
/* torch.swapaxes / torch.swapdims: transpose (a view) */
CTENSOR_API ct_tensor *ct_swapaxes(const ct_tensor *x, int dim0, int dim1);
CTENSOR_API ct_tensor *ct_swapdims(const ct_tensor *x, int dim0, int dim1);
/* torch.atleast_1d / 2d / 3d: views with leading (and for 3d, trailing) size-1 dims:
   0-d -> [1], [1, 1], [1, 1, 1]; [n] -> [1, n], [1, n, 1]; [m, n] -> [m, n, 1] */
CTENSOR_API ct_tensor *ct_atleast_1d(const ct_tensor *x);
CTENSOR_API ct_tensor *ct_atleast_2d(const ct_tensor *x);
CTENSOR_API ct_tensor *ct_atleast_3d(const ct_tensor *x);
/* torch.ravel: the elements in C order as one dim (a view when x is contiguous) */
CTENSOR_API ct_tensor *ct_ravel(const ct_tensor *x);
/* torch.fliplr (dim 1; x at least 2-D) and torch.flipud (dim 0; at least 1-D) */
CTENSOR_API ct_tensor *ct_fliplr(const ct_tensor *x);
CTENSOR_API ct_tensor *ct_flipud(const ct_tensor *x);
/* torch.rot90(x, k, dims=[dim0, dim1]): k quarter turns from dim0 towards dim1 */
CTENSOR_API ct_tensor *ct_rot90(const ct_tensor *x, int64_t k, int dim0, int dim1);
/* torch.diagflat(x, offset): x flattened onto the offset-th diagonal of a matrix */
CTENSOR_API ct_tensor *ct_diagflat(const ct_tensor *x, int64_t offset);
/* torch.positive: x itself (a view); refuses bool as PyTorch does */
CTENSOR_API ct_tensor *ct_positive(const ct_tensor *x);
/* Tensor.unfold(dim, size, step): a view holding every slice of length `size` along
   dim, `step` apart, in a new last dim of length size: [..., n, ...] becomes
   [..., (n - size) / step + 1, ..., size]. Windows may overlap (step < size); their
   gradients add up. A 0-d x is one element along dim 0. (F.unfold, the
   convolution's im2col, is another function, not in ctensor.) */
CTENSOR_API ct_tensor *ct_unfold(const ct_tensor *x, int dim, int64_t size, int64_t step);

/* ---- 1b. joining and splitting ------------------------------------------- */
/* torch.hstack (cat along dim 1, or 0 for 1-D inputs), vstack / row_stack (inputs
   made at least 2-D, cat along 0), dstack (at least 3-D, along 2), column_stack
   (0-d and 1-D inputs become columns, cat along 1). Dtypes promote as cat's do. */
CTENSOR_API ct_tensor *ct_hstack(int n, ct_tensor *const *ts);
CTENSOR_API ct_tensor *ct_vstack(int n, ct_tensor *const *ts);
CTENSOR_API ct_tensor *ct_row_stack(int n, ct_tensor *const *ts);
CTENSOR_API ct_tensor *ct_dstack(int n, ct_tensor *const *ts);
CTENSOR_API ct_tensor *ct_column_stack(int n, ct_tensor *const *ts);
/* torch.block_diag(*ts): 0-, 1- and 2-D inputs ([n] is a row [1, n]) on the diagonal
   of a zero matrix of the promoted dtype */
CTENSOR_API ct_tensor *ct_block_diag(int n, ct_tensor *const *ts);
/* torch.tensor_split(x, sections, dim): `sections` views, the first size % sections
   of them one longer. Returns how many were written to out (at most max_out: the
   count needed when it is larger), -1 on error. */
CTENSOR_API int ct_tensor_split(const ct_tensor *x, int64_t sections, int dim, ct_tensor **out, int max_out);
/* torch.tensor_split(x, indices, dim): views [0, i0), [i0, i1), ..., [i_last, end)
   (indices clamped to the size, as Python slices) */
CTENSOR_API int ct_tensor_split_indices(const ct_tensor *x, int nidx, const int64_t *indices, int dim,
                                        ct_tensor **out, int max_out);
/* torch.hsplit / vsplit / dsplit(x, sections): equal splits along dim 1 (0 for 1-D
   inputs to hsplit), 0 and 2; the size must be divisible. The _indices forms split
   at indices like tensor_split's. */
CTENSOR_API int ct_hsplit(const ct_tensor *x, int64_t sections, ct_tensor **out, int max_out);
CTENSOR_API int ct_vsplit(const ct_tensor *x, int64_t sections, ct_tensor **out, int max_out);
CTENSOR_API int ct_dsplit(const ct_tensor *x, int64_t sections, ct_tensor **out, int max_out);
CTENSOR_API int ct_hsplit_indices(const ct_tensor *x, int nidx, const int64_t *indices, ct_tensor **out, int max_out);
CTENSOR_API int ct_vsplit_indices(const ct_tensor *x, int nidx, const int64_t *indices, ct_tensor **out, int max_out);
CTENSOR_API int ct_dsplit_indices(const ct_tensor *x, int nidx, const int64_t *indices, ct_tensor **out, int max_out);
/* torch.meshgrid(*ts, indexing): n 0-D or 1-D inputs of one dtype; out[k] (n of
   them, expanded views) holds ts[k]'s values along dim k ("ij") or, for "xy", with
   the first two dims swapped (NULL indexing is "ij"). Returns 0 or -1. */
CTENSOR_API int ct_meshgrid(int n, ct_tensor *const *ts, const char *indexing, ct_tensor **out);
/* torch.cartesian_prod(*ts): [prod(len), n] rows of every combination (1-D inputs;
   one input comes back as it is) */
CTENSOR_API ct_tensor *ct_cartesian_prod(int n, ct_tensor *const *ts);
/* torch.combinations(x, r, with_replacement): the r-element combinations of the 1-D
   x, in lexicographic order of positions, as rows */
CTENSOR_API ct_tensor *ct_combinations(const ct_tensor *x, int64_t r, int with_replacement);
/* torch.tril_indices / triu_indices(row, col, offset): [2, N] int64 (dtype dt) row and
   column indices of the lower / upper triangle, in row-major order */
CTENSOR_API ct_tensor *ct_tril_indices(int64_t row, int64_t col, int64_t offset, ct_dtype dt);
CTENSOR_API ct_tensor *ct_triu_indices(int64_t row, int64_t col, int64_t offset, ct_dtype dt);

/* ---- 1c. math -------------------------------------------------------------- */
/* torch.kron(a, b): the Kronecker product (shapes padded with leading 1s) */
CTENSOR_API ct_tensor *ct_kron(const ct_tensor *a, const ct_tensor *b);
/* torch.inner(a, b): the sum over the last dims (a * b when either is 0-d) */
CTENSOR_API ct_tensor *ct_inner(const ct_tensor *a, const ct_tensor *b);
/* torch.addr(input, vec1, vec2, beta, alpha): beta * input + alpha * outer(vec1, vec2)
   (beta == 0: input is ignored, NaN included) */
CTENSOR_API ct_tensor *ct_addr(const ct_tensor *input, const ct_tensor *vec1, const ct_tensor *vec2, double beta, double alpha);
/* torch.ldexp(x, e): x * 2 ** e */
CTENSOR_API ct_tensor *ct_ldexp(const ct_tensor *x, const ct_tensor *e);
/* torch.float_power(x, y): pow in float64 (complex128 when either is complex) */
CTENSOR_API ct_tensor *ct_float_power(const ct_tensor *x, const ct_tensor *y);
CTENSOR_API ct_tensor *ct_float_power_scalar(const ct_tensor *x, double exponent);
/* torch.logaddexp(a, b) = log(e^a + e^b) and logaddexp2 = log2(2^a + 2^b), without
   overflow (floating dtypes) */
CTENSOR_API ct_tensor *ct_logaddexp(const ct_tensor *a, const ct_tensor *b);
CTENSOR_API ct_tensor *ct_logaddexp2(const ct_tensor *a, const ct_tensor *b);
/* torch.isreal: imag == 0 for complex inputs, all true otherwise (bool) */
CTENSOR_API ct_tensor *ct_isreal(const ct_tensor *x);
/* torch.dist(a, b, p): the p-norm of a - b (0-d) */
CTENSOR_API ct_tensor *ct_dist(const ct_tensor *a, const ct_tensor *b, double p);
/* torch.cdist(x1, x2, p): [..., P, M] and [..., R, M] -> [..., P, R] p-norm distances
   between rows (batch dims broadcast; p >= 0, INFINITY allowed) */
CTENSOR_API ct_tensor *ct_cdist(const ct_tensor *x1, const ct_tensor *x2, double p);
/* torch.renorm(x, p, dim, maxnorm): each slice along dim whose p-norm exceeds maxnorm
   scaled to norm maxnorm (PyTorch's factor maxnorm / (norm + 1e-7)) */
CTENSOR_API ct_tensor *ct_renorm(const ct_tensor *x, double p, int dim, double maxnorm);
/* torch.diff(x, n, dim, prepend, append): the n-th forward difference along dim
   (prepend / append, may be NULL, are concatenated first; bool inputs: !=) */
CTENSOR_API ct_tensor *ct_diff(const ct_tensor *x, int64_t n, int dim, const ct_tensor *prepend, const ct_tensor *append);
/* torch.trapezoid(y, x=x, dim) (x NULL: spacing dx) and cumulative_trapezoid: the
   trapezoidal rule along dim; x is 1-D (its length the size of dim) or broadcasts
   with y */
CTENSOR_API ct_tensor *ct_trapezoid(const ct_tensor *y, const ct_tensor *x, double dx, int dim);
CTENSOR_API ct_tensor *ct_cumulative_trapezoid(const ct_tensor *y, const ct_tensor *x, double dx, int dim);
/* torch.logcumsumexp(x, dim): log(cumsum(exp(x), dim)) without overflow or
   underflow: each step is log(exp(a) + exp(b)) = max + log1p(exp(min - max)),
   accumulated in float64 (float32 and float64 inputs; bfloat16 through float32), and
   -inf, +inf and NaN as PyTorch's (a NaN stays to the end of its line). One op,
   aten::logcumsumexp, with a CPU kernel (lines on the thread pool) and PyTorch's
   derivative (itself made of logcumsumexp, so double backward works; at an input of
   -inf it gives NaN, as PyTorch 1.13's does). Integer, bool, half and complex inputs
   are refused, as PyTorch 1.13's CPU kernel does. */
CTENSOR_API ct_tensor *ct_logcumsumexp(const ct_tensor *x, int dim);
/* torch.logspace(start, end, steps, base, dtype): base ** linspace(start, end, steps) */
CTENSOR_API ct_tensor *ct_logspace(double start, double end, int64_t steps, double base, ct_dtype dt);
/* torch.take_along_dim(x, indices, dim): gather after broadcasting x and indices in
   every dim but dim; dim CT_DIM_NONE: both flattened */
CTENSOR_API ct_tensor *ct_take_along_dim(const ct_tensor *x, const ct_tensor *indices, int dim);

/* ---- 1d. statistics ------------------------------------------------------- */
/* torch.cov(x, correction, fweights, aweights): x [variables, observations] (or 1-D);
   fweights integral, aweights floating, each NULL or one per observation */
CTENSOR_API ct_tensor *ct_cov(const ct_tensor *x, int64_t correction, const ct_tensor *fweights, const ct_tensor *aweights);
/* torch.corrcoef(x): Pearson's correlation coefficients, clipped to [-1, 1] */
CTENSOR_API ct_tensor *ct_corrcoef(const ct_tensor *x);
/* torch.aminmax(x, dim, keepdim): *min and *max (dim CT_DIM_NONE: over everything).
   Returns 0 or -1. */
CTENSOR_API int ct_aminmax(const ct_tensor *x, int dim, int keepdim, ct_tensor **min, ct_tensor **max);
/* torch.quantile(x, q, dim, keepdim, interpolation) (dim CT_DIM_NONE: flattened;
   interpolation "linear" (NULL), "lower", "higher", "midpoint" or "nearest"): float32
   or float64 x; a slice with a NaN gives NaN. nanquantile ignores NaNs (a slice of
   only NaNs gives NaN). The _t forms take q as a 1-D tensor: the result gains a
   leading dim of its length (a 0-d q: as a scalar). */
CTENSOR_API ct_tensor *ct_quantile(const ct_tensor *x, double q, int dim, int keepdim, const char *interpolation);
CTENSOR_API ct_tensor *ct_nanquantile(const ct_tensor *x, double q, int dim, int keepdim, const char *interpolation);
CTENSOR_API ct_tensor *ct_quantile_t(const ct_tensor *x, const ct_tensor *q, int dim, int keepdim, const char *interpolation);
CTENSOR_API ct_tensor *ct_nanquantile_t(const ct_tensor *x, const ct_tensor *q, int dim, int keepdim, const char *interpolation);

/* ---- 1e. counting ------------------------------------------------------------ */
/* torch.heaviside(x, values): 0 where x < 0, values where x == 0, 1 where x > 0 (x
   and values of one real dtype; values broadcasts) */
CTENSOR_API ct_tensor *ct_heaviside(const ct_tensor *x, const ct_tensor *values);
/* torch.bincount(x, weights, minlength): counts (int64) or summed weights (their
   dtype when floating, float64 otherwise) of each value of the 1-D non-negative
   integer x, max(max(x) + 1, minlength) of them; weights may be NULL */
CTENSOR_API ct_tensor *ct_bincount(const ct_tensor *x, const ct_tensor *weights, int64_t minlength);
/* torch.histc(x, bins, min, max): counts in `bins` equal bins over [min, max]
   (min == max: the data's range, widened by 1 each way when it is one value);
   elements outside are ignored; the result has x's (floating) dtype */
CTENSOR_API ct_tensor *ct_histc(const ct_tensor *x, int64_t bins, double min, double max);
/* torch.histogram(input, bins, range=, weight=, density=): the histogram of the
   flattened input (float32 or float64) in `bins` equal bins over range[0..1]
   (range NULL: the data's min and max; an empty input: [0, 1]; one value: widened
   by 0.5 each way); *bin_edges (bins + 1 of them, linspace) when not NULL. Each
   bin is [e_i, e_i+1), the last one [e_n-1, e_n]; elements outside (and NaN) are
   ignored. weight (input's shape, may be NULL) gives each element's weight;
   density divides by the total and by each bin's width. The result has the input's
   dtype. ct_histogram_bins: the same with the edges given (a 1-D tensor of the
   input's dtype; edges that do not increase count nothing there, as PyTorch's). */
CTENSOR_API ct_tensor *ct_histogram(const ct_tensor *input, int64_t bins, const double *range, const ct_tensor *weight, int density,
                                    ct_tensor **bin_edges);
CTENSOR_API ct_tensor *ct_histogram_bins(const ct_tensor *input, const ct_tensor *bins, const ct_tensor *weight, int density,
                                         ct_tensor **bin_edges);
/* torch.unique(x, sorted=True, return_inverse, return_counts) over the flattened x:
   the sorted distinct values; *inverse (x's shape: each element's index in them)
   and *counts (int64) when the pointers are not NULL. torch.unique_consecutive:
   the same for runs of equal consecutive elements, in order. */
CTENSOR_API ct_tensor *ct_unique(const ct_tensor *x, ct_tensor **inverse, ct_tensor **counts);
CTENSOR_API ct_tensor *ct_unique_consecutive(const ct_tensor *x, ct_tensor **inverse, ct_tensor **counts);
/* torch.unique(x, dim=dim) / torch.unique_consecutive(x, dim=dim): the distinct
   slices of x along dim (sorted lexicographically; consecutive: runs of equal
   neighbouring slices, in order), stacked along dim; *inverse (x's size along dim:
   each slice's index among them) and *counts (int64) when not NULL. Slices are
   equal when every element compares equal (a NaN never does; -0 equals 0). Any
   real dtype and bool. */
CTENSOR_API ct_tensor *ct_unique_dim(const ct_tensor *x, int dim, ct_tensor **inverse, ct_tensor **counts);
CTENSOR_API ct_tensor *ct_unique_consecutive_dim(const ct_tensor *x, int dim, ct_tensor **inverse, ct_tensor **counts);

/* ---- 1f. searching -------------------------------------------------------- */
/* torch.searchsorted(sorted_sequence, values, out_int32, right, side, sorter): for
   each value, the index where it would go in the innermost dim of sorted_sequence to
   keep it sorted: the first i with seq[i] >= v (left), or seq[i] > v (right = 1 or
   side "right"; side NULL: from right). sorted_sequence is 1-D (any values shape), or
   N-D with values' first N-1 dims equal to its own. sorter (int64, seq's shape, may
   be NULL) holds the indices that sort seq along its innermost dim. The two operands
   compare in their promoted dtype (bool and complex are refused, as PyTorch's);
   int64 result (int32 with out_int32). A sequence that is not sorted gives the
   indices PyTorch's bisection gives (NaN last, as torch.sort puts it). One op,
   aten::searchsorted.Tensor, with a CPU kernel (a binary search per value; rows on
   the thread pool). The _scalar form searches one number (a 0-d result; seq 1-D);
   it compares in seq's dtype when that is floating, in int64 when seq is integral
   and value a whole number, else in float64. */
CTENSOR_API ct_tensor *ct_searchsorted(const ct_tensor *sorted_sequence, const ct_tensor *values, int out_int32, int right,
                                       const char *side, const ct_tensor *sorter);
CTENSOR_API ct_tensor *ct_searchsorted_scalar(const ct_tensor *sorted_sequence, double value, int out_int32, int right,
                                              const char *side, const ct_tensor *sorter);
/* torch.bucketize(input, boundaries, out_int32, right): the bucket of each element
   of input among the 1-D sorted boundaries: i with boundaries[i-1] < x <= boundaries[i]
   (right = 1: boundaries[i-1] <= x < boundaries[i]); searchsorted with the operands
   swapped. */
CTENSOR_API ct_tensor *ct_bucketize(const ct_tensor *input, const ct_tensor *boundaries, int out_int32, int right);
CTENSOR_API ct_tensor *ct_bucketize_scalar(double input, const ct_tensor *boundaries, int out_int32, int right);
#ifdef __cplusplus
}
#endif
#endif /* CTENSOR_COMPOSITE_H_INCLUDED */

/* ============================================================================
   2. Implementation
   ========================================================================== */
#if defined(CTENSOR_IMPLEMENTATION) && !defined(CTENSOR_COMPOSITE_NO_IMPLEMENTATION) && !defined(CTENSOR_COMPOSITE_IMPLEMENTATION)
#define CTENSOR_COMPOSITE_IMPLEMENTATION
#endif
#ifdef CTENSOR_COMPOSITE_IMPLEMENTATION
#ifndef CTENSOR_COMPOSITE_IMPLEMENTATION_DONE
#define CTENSOR_COMPOSITE_IMPLEMENTATION_DONE
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __cplusplus
extern "C" {
#endif

/* every function runs in a scope of its own: intermediates go when it ends, the
   result is kept for the caller's scope */
static ct_tensor *ctc__done(int tok, ct_tensor *r) {
    if (r) ct_keep(r);
    ct_scope_end(tok);
    return r;
}
/* ct_set_error (printf-style, format-checked), then NULL or -1 for the caller to return */
#define ctc__fail(...) (ct_set_error(__VA_ARGS__), (ct_tensor *)NULL)
#define ctc__failn(...) (ct_set_error(__VA_ARGS__), -1)
/* dim d of an ndim-dim tensor wrapped to [0, ndim); -1 with PyTorch's IndexError text */
static int ctc__wrap(int d, int ndim) {
    int lo = ndim > 0 ? -ndim : -1, hi = ndim > 0 ? ndim - 1 : 0;
    if (d < lo || d > hi) {
        ct_set_error(CT_ERR_INDEX, "Dimension out of range (expected to be in range of [%d, %d], but got %d)", lo, hi, d);
        return -1;
    }
    return d < 0 ? d + (ndim > 0 ? ndim : 1) : d;
}
static const char *ctc__shape_str(const ct_tensor *t, char *buf, size_t cap) {
    size_t k = 0;
    k += (size_t)snprintf(buf + k, cap - k, "[");
    for (int d = 0; d < ct_ndim(t) && k < cap; d++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%lld", d ? ", " : "", (long long)ct_size(t, d));
    if (k < cap) snprintf(buf + k, cap - k, "]");
    return buf;
}
static int ctc__nonnull(const char *api, int n, ct_tensor *const *ts) {
    if (n < 0 || (n > 0 && !ts)) { ct_set_error(CT_ERR_ARG, "%s: bad tensor list (n = %d)", api, n); return -1; }
    for (int k = 0; k < n; k++)
        if (!ts[k]) { ct_set_error(CT_ERR_ARG, "%s: tensor %d is NULL", api, k); return -1; }
    return 0;
}
#define CTC__ARG(api, x) do { if (!(x)) return ctc__fail(CT_ERR_ARG, "%s: NULL tensor", api); } while (0)

/* ---- shape and layout ---------------------------------------------------- */
CTENSOR_API ct_tensor *ct_movedim(const ct_tensor *x, int n, const int64_t *source, const int64_t *destination) {
    CTC__ARG("movedim", x);
    int nd = ct_ndim(x), perm[CT_MAX_DIMS], used_src[CT_MAX_DIMS] = {0}, used_dst[CT_MAX_DIMS] = {0};
    int src[CT_MAX_DIMS], dst[CT_MAX_DIMS];
    int64_t p64[CT_MAX_DIMS];
    if (n < 0 || (n > 0 && (!source || !destination)) || n > (nd > 0 ? nd : 1))
        return ctc__fail(CT_ERR_ARG, "movedim: Invalid source or destination dims: %d dims for a %d-dim tensor", n, nd);
    for (int k = 0; k < n; k++) {
        if ((src[k] = ctc__wrap((int)source[k], nd)) < 0 || (dst[k] = ctc__wrap((int)destination[k], nd)) < 0) return NULL;
        if (used_src[src[k]]++) return ctc__fail(CT_ERR_ARG, "movedim: repeated dim in `source` (dim %lld)", (long long)source[k]);
        if (used_dst[dst[k]]++) return ctc__fail(CT_ERR_ARG, "movedim: repeated dim in `destination` (dim %lld)", (long long)destination[k]);
    }
    if (nd == 0) return ct_expand_n(x, 0, NULL);
    for (int d = 0; d < nd; d++) perm[d] = -1;
    for (int k = 0; k < n; k++) perm[dst[k]] = src[k];
    for (int d = 0, s = 0; d < nd; d++) {
        if (perm[d] >= 0) continue;
        while (used_src[s]) s++;
        perm[d] = s++;
    }
    for (int d = 0; d < nd; d++) p64[d] = perm[d];
    return ct_permute_n(x, nd, p64);
}
CTENSOR_API ct_tensor *ct_moveaxis(const ct_tensor *x, int n, const int64_t *source, const int64_t *destination) {
    return ct_movedim(x, n, source, destination);
}
CTENSOR_API ct_tensor *ct_swapaxes(const ct_tensor *x, int dim0, int dim1) { return ct_transpose(x, dim0, dim1); }
CTENSOR_API ct_tensor *ct_swapdims(const ct_tensor *x, int dim0, int dim1) { return ct_transpose(x, dim0, dim1); }

static ct_tensor *ctc__atleast(const char *api, const ct_tensor *x, int want) {
    CTC__ARG(api, x);
    int nd = ct_ndim(x);
    int64_t sh[3];
    if (nd >= want) return ct_expand_n(x, nd, (x)->shape);   /* a view of x as it is */
    if (want == 3 && nd == 1) { sh[0] = 1; sh[1] = ct_size(x, 0); sh[2] = 1; }
    else if (want == 3 && nd == 2) { sh[0] = ct_size(x, 0); sh[1] = ct_size(x, 1); sh[2] = 1; }
    else {
        for (int d = 0; d < want; d++) sh[d] = 1;
        if (nd == 1) sh[want - 1] = ct_size(x, 0);
    }
    return ct_view_n(ct_expand_n(x, nd, (x)->shape), want, sh);
}
CTENSOR_API ct_tensor *ct_atleast_1d(const ct_tensor *x) { return ctc__atleast("atleast_1d", x, 1); }
CTENSOR_API ct_tensor *ct_atleast_2d(const ct_tensor *x) { return ctc__atleast("atleast_2d", x, 2); }
CTENSOR_API ct_tensor *ct_atleast_3d(const ct_tensor *x) { return ctc__atleast("atleast_3d", x, 3); }
CTENSOR_API ct_tensor *ct_ravel(const ct_tensor *x) {
    CTC__ARG("ravel", x);
    int64_t m1 = -1;
    return ct_reshape_n(x, 1, &m1);
}
CTENSOR_API ct_tensor *ct_fliplr(const ct_tensor *x) {
    CTC__ARG("fliplr", x);
    int64_t d = 1;
    if (ct_ndim(x) < 2) return ctc__fail(CT_ERR_SHAPE, "fliplr: Input must be >= 2-d.");
    return ct_flip(x, 1, &d);
}
CTENSOR_API ct_tensor *ct_flipud(const ct_tensor *x) {
    CTC__ARG("flipud", x);
    int64_t d = 0;
    if (ct_ndim(x) < 1) return ctc__fail(CT_ERR_SHAPE, "flipud: Input must be >= 1-d.");
    return ct_flip(x, 1, &d);
}
CTENSOR_API ct_tensor *ct_rot90(const ct_tensor *x, int64_t k, int dim0, int dim1) {
    CTC__ARG("rot90", x);
    int nd = ct_ndim(x), d0, d1;
    if (nd < 2) return ctc__fail(CT_ERR_SHAPE, "rot90: expected total dims >= 2, but got total dims = %d", nd);
    if ((d0 = ctc__wrap(dim0, nd)) < 0 || (d1 = ctc__wrap(dim1, nd)) < 0) return NULL;
    if (d0 == d1) return ctc__fail(CT_ERR_ARG, "rot90: expected rotation dims to be different, but got dim0 = %d and dim1 = %d", dim0, dim1);
    int64_t f0 = d0, f1 = d1, both[2] = {d0, d1};
    k = ((k % 4) + 4) % 4;
    if (k == 1) return ct_transpose(ct_flip(x, 1, &f1), d0, d1);
    if (k == 2) return ct_flip(x, 2, both);
    if (k == 3) return ct_transpose(ct_flip(x, 1, &f0), d0, d1);
    return ct_clone(x);
}
CTENSOR_API ct_tensor *ct_diagflat(const ct_tensor *x, int64_t offset) {
    CTC__ARG("diagflat", x);
    int tok = ct_scope_begin();
    return ctc__done(tok, ct_diag(ct_ravel(ct_contiguous(x)), offset));
}
CTENSOR_API ct_tensor *ct_unfold(const ct_tensor *x, int dim, int64_t size, int64_t step) {
    CTC__ARG("unfold", x);
    int nd = ct_ndim(x), d = ctc__wrap(dim, nd);
    if (d < 0) return NULL;
    int64_t n = nd ? x->shape[d] : 1, shape[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    if (size < 0) return ctc__fail(CT_ERR_ARG, "unfold: size is %lld but must be >= 0", (long long)size);
    if (size > n) return ctc__fail(CT_ERR_ARG, "unfold: maximum size for tensor at dimension %d is %lld but size is %lld", d, (long long)n, (long long)size);
    if (step <= 0) return ctc__fail(CT_ERR_ARG, "unfold: step is %lld but must be > 0", (long long)step);
    if (nd >= CT_MAX_DIMS) return ctc__fail(CT_ERR_SHAPE, "unfold: a %d-d result exceeds the maximum of %d dims", nd + 1, CT_MAX_DIMS);
    for (int k = 0; k < nd; k++) { shape[k] = x->shape[k]; strides[k] = x->strides[k]; }
    shape[nd] = size;
    strides[nd] = nd ? x->strides[d] : 1;
    if (nd) { shape[d] = (n - size) / step + 1; strides[d] *= step; }
    return ct_as_strided(x, nd + 1, shape, strides, x->offset);
}
CTENSOR_API ct_tensor *ct_positive(const ct_tensor *x) {
    CTC__ARG("positive", x);
    if (ct_get_dtype(x) == CT_BOOL) return ctc__fail(CT_ERR_DTYPE, "positive: The `+` operator, on a bool tensor is not supported.");
    return ct_expand_n(x, ct_ndim(x), (x)->shape);
}

/* ---- joining and splitting ----------------------------------------------- */
typedef ct_tensor *(*ctc__unary_fn)(const ct_tensor *);
static ct_tensor *ctc__stack_as(const char *api, int n, ct_tensor *const *ts, ctc__unary_fn f, int dim) {
    if (ctc__nonnull(api, n, ts)) return NULL;
    if (n == 0) return ctc__fail(CT_ERR_ARG, "%s expects a non-empty TensorList", api);
    int tok = ct_scope_begin();
    ct_tensor **v = (ct_tensor **)malloc(sizeof(ct_tensor *) * (size_t)n);
    if (!v) { ct_scope_end(tok); return ctc__fail(CT_ERR_MEMORY, "%s: out of memory", api); }
    int ok = 1;
    for (int k = 0; k < n && ok; k++) ok = (v[k] = f(ts[k])) != NULL;
    if (ok && dim < 0) dim = ct_ndim(v[0]) == 1 ? 0 : 1;   /* hstack */
    ct_tensor *r = ok ? ct_cat(n, v, dim) : NULL;
    free(v);
    return ctc__done(tok, r);
}
CTENSOR_API ct_tensor *ct_hstack(int n, ct_tensor *const *ts) { return ctc__stack_as("hstack", n, ts, ct_atleast_1d, -1); }
CTENSOR_API ct_tensor *ct_vstack(int n, ct_tensor *const *ts) { return ctc__stack_as("vstack", n, ts, ct_atleast_2d, 0); }
CTENSOR_API ct_tensor *ct_row_stack(int n, ct_tensor *const *ts) { return ctc__stack_as("row_stack", n, ts, ct_atleast_2d, 0); }
CTENSOR_API ct_tensor *ct_dstack(int n, ct_tensor *const *ts) { return ctc__stack_as("dstack", n, ts, ct_atleast_3d, 2); }
static ct_tensor *ctc__column(const ct_tensor *t) {
    if (ct_ndim(t) > 1) return ct_expand_n(t, ct_ndim(t), t->shape);
    int64_t sh[2] = {ct_numel(t), 1};
    return ct_reshape_n(t, 2, sh);
}
CTENSOR_API ct_tensor *ct_column_stack(int n, ct_tensor *const *ts) { return ctc__stack_as("column_stack", n, ts, ctc__column, 1); }

CTENSOR_API ct_tensor *ct_block_diag(int n, ct_tensor *const *ts) {
    if (ctc__nonnull("block_diag", n, ts)) return NULL;
    ct_dtype dt = CT_FLOAT32;
    int64_t cols = 0;
    for (int k = 0; k < n; k++) {
        int nd = ct_ndim(ts[k]);
        if (nd > 2) return ctc__fail(CT_ERR_SHAPE, "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input %d has %d dimensions", k, nd);
        dt = k ? ct_promote_types(dt, ct_get_dtype(ts[k])) : ct_get_dtype(ts[k]);
        cols += nd == 2 ? ct_size(ts[k], 1) : nd == 1 ? ct_size(ts[k], 0) : 1;
    }
    if (n == 0) return ct_empty(CT_FLOAT32, 1, 0);
    int tok = ct_scope_begin();
    ct_tensor **rows = (ct_tensor **)malloc(sizeof(ct_tensor *) * (size_t)n);
    if (!rows) { ct_scope_end(tok); return ctc__fail(CT_ERR_MEMORY, "block_diag: out of memory"); }
    int64_t before = 0;
    int ok = 1;
    for (int k = 0; k < n && ok; k++) {
        ct_tensor *b = ct_to(ct_atleast_2d(ts[k]), dt);
        ok = b != NULL;
        if (!ok) break;
        int64_t r = ct_size(b, 0), c = ct_size(b, 1);
        ct_tensor *parts[3] = {ct_zeros(dt, r, before), b, ct_zeros(dt, r, cols - before - c)};
        ok = parts[0] && parts[2] && (rows[k] = ct_cat(3, parts, 1)) != NULL;
        before += c;
    }
    ct_tensor *res = ok ? ct_cat(n, rows, 0) : NULL;
    free(rows);
    return ctc__done(tok, res);
}

/* the pieces [b[k], b[k + 1]) along d, n of them; returns n or the count needed */
static int ctc__pieces(const ct_tensor *x, int d, int n, const int64_t *b, ct_tensor **out, int max_out) {
    if (n > max_out) return n;
    if (!out && n > 0) return ctc__failn(CT_ERR_ARG, "tensor_split: out is NULL");
    for (int k = 0; k < n; k++) {   /* x[b[k]:b[k + 1]] (empty when b[k + 1] < b[k]) */
        if (!(out[k] = ct_slice(x, d, b[k], b[k + 1] < b[k] ? b[k] : b[k + 1], 1))) {
            for (int j = 0; j < k; j++) out[j] = NULL;   /* (they stay in the scope) */
            return -1;
        }
    }
    return n;
}
static int ctc__split_prep(const char *api, const ct_tensor *x, int dim, int *d) {
    if (!x) return ctc__failn(CT_ERR_ARG, "%s: NULL tensor", api);
    if (ct_ndim(x) < 1)
        return ctc__failn(CT_ERR_SHAPE, "%s expected at least a 1-dimensional tensor, but got a tensor with 0 dims", api);
    return (*d = ctc__wrap(dim, ct_ndim(x))) < 0 ? -1 : 0;
}
CTENSOR_API int ct_tensor_split(const ct_tensor *x, int64_t sections, int dim, ct_tensor **out, int max_out) {
    int d;
    if (ctc__split_prep("tensor_split", x, dim, &d)) return -1;
    if (sections <= 0) return ctc__failn(CT_ERR_ARG, "tensor_split: number of sections must be larger than 0, got %lld", (long long)sections);
    if (sections > 1 << 20) return ctc__failn(CT_ERR_ARG, "tensor_split: %lld sections are too many", (long long)sections);
    int64_t L = ct_size(x, d), q = L / sections, rem = L % sections;
    int64_t *b = (int64_t *)malloc(sizeof(int64_t) * (size_t)(sections + 1));
    if (!b) return ctc__failn(CT_ERR_MEMORY, "tensor_split: out of memory");
    b[0] = 0;
    for (int64_t k = 0; k < sections; k++) b[k + 1] = b[k] + q + (k < rem ? 1 : 0);
    int r = ctc__pieces(x, d, (int)sections, b, out, max_out);
    free(b);
    return r;
}
CTENSOR_API int ct_tensor_split_indices(const ct_tensor *x, int nidx, const int64_t *indices, int dim, ct_tensor **out, int max_out) {
    int d;
    if (ctc__split_prep("tensor_split", x, dim, &d)) return -1;
    if (nidx < 0 || (nidx > 0 && !indices)) return ctc__failn(CT_ERR_ARG, "tensor_split: bad indices (n = %d)", nidx);
    int64_t L = ct_size(x, d);
    int64_t *b = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nidx + 2));
    if (!b) return ctc__failn(CT_ERR_MEMORY, "tensor_split: out of memory");
    b[0] = 0;
    for (int k = 0; k < nidx; k++) {
        int64_t i = indices[k];
        if (i < 0) i += L;   /* a Python slice bound */
        b[k + 1] = i < 0 ? 0 : i > L ? L : i;
    }
    b[nidx + 1] = L;
    int r = ctc__pieces(x, d, nidx + 1, b, out, max_out);
    free(b);
    return r;
}
static int ctc__hvdsplit(const char *api, const ct_tensor *x, int64_t sections, int use_idx, int nidx, const int64_t *idx,
                         int which, ct_tensor **out, int max_out) {
    if (!x) return ctc__failn(CT_ERR_ARG, "%s: NULL tensor", api);
    int nd = ct_ndim(x), need = which == 0 ? 1 : which == 1 ? 2 : 3;
    if (nd < need)
        return ctc__failn(CT_ERR_SHAPE, "torch.%s requires a tensor with at least %d dimension, but got a tensor with %d dimensions!", api, need, nd);
    int d = which == 0 ? (nd == 1 ? 0 : 1) : which == 1 ? 0 : 2;
    if (use_idx) return ct_tensor_split_indices(x, nidx, idx, d, out, max_out);
    if (sections <= 0) return ctc__failn(CT_ERR_ARG, "torch.%s: number of sections must be larger than 0, got %lld", api, (long long)sections);
    if (ct_size(x, d) % sections)
        return ctc__failn(CT_ERR_SHAPE, "torch.%s attempted to split along dimension %d, but the size of the dimension %lld is not divisible by the split_size %lld!",
                          api, d, (long long)ct_size(x, d), (long long)sections);
    return ct_tensor_split(x, sections, d, out, max_out);
}
CTENSOR_API int ct_hsplit(const ct_tensor *x, int64_t s, ct_tensor **out, int m) { return ctc__hvdsplit("hsplit", x, s, 0, 0, NULL, 0, out, m); }
CTENSOR_API int ct_vsplit(const ct_tensor *x, int64_t s, ct_tensor **out, int m) { return ctc__hvdsplit("vsplit", x, s, 0, 0, NULL, 1, out, m); }
CTENSOR_API int ct_dsplit(const ct_tensor *x, int64_t s, ct_tensor **out, int m) { return ctc__hvdsplit("dsplit", x, s, 0, 0, NULL, 2, out, m); }
CTENSOR_API int ct_hsplit_indices(const ct_tensor *x, int n, const int64_t *i, ct_tensor **out, int m) {
    return ctc__hvdsplit("hsplit", x, 0, 1, n, i, 0, out, m);
}
CTENSOR_API int ct_vsplit_indices(const ct_tensor *x, int n, const int64_t *i, ct_tensor **out, int m) {
    return ctc__hvdsplit("vsplit", x, 0, 1, n, i, 1, out, m);
}
CTENSOR_API int ct_dsplit_indices(const ct_tensor *x, int n, const int64_t *i, ct_tensor **out, int m) {
    return ctc__hvdsplit("dsplit", x, 0, 1, n, i, 2, out, m);
}

CTENSOR_API int ct_meshgrid(int n, ct_tensor *const *ts, const char *indexing, ct_tensor **out) {
    if (ctc__nonnull("meshgrid", n, ts)) return -1;
    if (n == 0) return ctc__failn(CT_ERR_ARG, "torch.meshgrid: expects a non-empty TensorList");
    if (!out) return ctc__failn(CT_ERR_ARG, "torch.meshgrid: out is NULL");
    if (n > CT_MAX_DIMS) return ctc__failn(CT_ERR_ARG, "torch.meshgrid: %d tensors (at most CTENSOR_MAX_DIMS = %d)", n, CT_MAX_DIMS);
    if (!indexing) indexing = "ij";
    int xy = !strcmp(indexing, "xy");
    if (!xy && strcmp(indexing, "ij"))
        return ctc__failn(CT_ERR_ARG, "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: %s", indexing);
    int64_t sizes[CT_MAX_DIMS];
    for (int k = 0; k < n; k++) {
        if (ct_ndim(ts[k]) > 1)
            return ctc__failn(CT_ERR_SHAPE, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a %d-D tensor (input %d)", ct_ndim(ts[k]), k);
        if (ct_get_dtype(ts[k]) != ct_get_dtype(ts[0])) return ctc__failn(CT_ERR_DTYPE, "meshgrid expects all tensors to have the same dtype");
        if (!ct_device_eq(ct_get_device(ts[k]), ct_get_device(ts[0]))) return ctc__failn(CT_ERR_DEVICE, "meshgrid expects all tensors to have the same device");
        sizes[k] = ct_numel(ts[k]);
    }
    /* "xy": the first two inputs swap places in the grid (their dims 0 and 1) */
    int swap = xy && n >= 2;
    if (swap) { int64_t t = sizes[0]; sizes[0] = sizes[1]; sizes[1] = t; }
    for (int k = 0; k < n; k++) {
        int pos = swap && k < 2 ? 1 - k : k;
        int64_t sh[CT_MAX_DIMS];
        for (int j = 0; j < n; j++) sh[j] = j == pos ? sizes[pos] : 1;
        ct_tensor *v = ct_view_n(ct_expand_n(ts[k], ct_ndim(ts[k]), ts[k]->shape), n, sh);
        if (!v || !(out[k] = ct_expand_n(v, n, sizes))) {
            for (int j = 0; j < k; j++) out[j] = NULL;
            return -1;
        }
    }
    return 0;
}
CTENSOR_API ct_tensor *ct_cartesian_prod(int n, ct_tensor *const *ts) {
    if (ctc__nonnull("cartesian_prod", n, ts)) return NULL;
    char sb[64];
    for (int k = 0; k < n; k++)
        if (ct_ndim(ts[k]) != 1) return ctc__fail(CT_ERR_SHAPE, "cartesian_prod: Expect a 1D vector, but got shape %s", ctc__shape_str(ts[k], sb, sizeof sb));
    if (n == 0) return ctc__fail(CT_ERR_ARG, "cartesian_prod: expects a non-empty TensorList");
    if (n == 1) return ct_expand_n(ts[0], 1, ts[0]->shape);
    int tok = ct_scope_begin();
    ct_tensor *g[CT_MAX_DIMS];
    ct_tensor *r = NULL;
    if (n <= CT_MAX_DIMS && !ct_meshgrid(n, ts, "ij", g)) {
        int ok = 1;
        for (int k = 0; k < n && ok; k++) ok = (g[k] = ct_ravel(g[k])) != NULL;
        r = ok ? ct_stack(n, g, 1) : NULL;
    } else if (n > CT_MAX_DIMS) {
        ct_set_error(CT_ERR_ARG, "cartesian_prod: %d tensors (at most CTENSOR_MAX_DIMS = %d)", n, CT_MAX_DIMS);
    }
    return ctc__done(tok, r);
}
CTENSOR_API ct_tensor *ct_combinations(const ct_tensor *x, int64_t r, int with_replacement) {
    CTC__ARG("combinations", x);
    char sb[64];
    if (ct_ndim(x) != 1) return ctc__fail(CT_ERR_SHAPE, "combinations: Expect a 1D vector, but got shape %s", ctc__shape_str(x, sb, sizeof sb));
    if (r < 0) return ctc__fail(CT_ERR_ARG, "combinations: Expect a non-negative number, but got %lld", (long long)r);
    if (r == 0) return ct_empty(ct_get_dtype(x), 0);
    if (r > CT_MAX_DIMS * 4) return ctc__fail(CT_ERR_ARG, "combinations: r = %lld is too large", (long long)r);
    int64_t n = ct_size(x, 0), count = 0;
    /* enumerate index tuples i1 < i2 < ... (or <= with replacement), lexicographic */
    int64_t idx[CT_MAX_DIMS * 4];
    int64_t cap = 64, *rows = (int64_t *)malloc(sizeof(int64_t) * (size_t)(cap * r));
    if (!rows) return ctc__fail(CT_ERR_MEMORY, "combinations: out of memory");
    for (int64_t k = 0; k < r; k++) idx[k] = with_replacement ? 0 : k;
    int any = with_replacement ? n > 0 : r <= n;
    while (any) {
        if (count == cap) {
            int64_t *g = (int64_t *)realloc(rows, sizeof(int64_t) * (size_t)(2 * cap * r));
            if (!g || cap > ((int64_t)1 << 40) / r) { free(g ? g : rows); return ctc__fail(CT_ERR_MEMORY, "combinations: out of memory"); }
            rows = g;
            cap *= 2;
        }
        memcpy(rows + count * r, idx, sizeof(int64_t) * (size_t)r);
        count++;
        int64_t k = r - 1;
        while (k >= 0 && idx[k] == (with_replacement ? n - 1 : n - r + k)) k--;
        if (k < 0) break;
        idx[k]++;
        for (int64_t j = k + 1; j < r; j++) idx[j] = with_replacement ? idx[k] : idx[j - 1] + 1;
    }
    int tok = ct_scope_begin();
    int64_t sh[2] = {count, r};
    ct_tensor *ix = ct_from_data_n(rows, CT_INT64, 2, sh);
    free(rows);
    ct_tensor *res = NULL;
    if (ix) {
        int64_t m1 = -1;
        ct_tensor *flat = ct_index_select(x, 0, ct_reshape_n(ix, 1, &m1));
        res = flat ? ct_reshape_n(flat, 2, sh) : NULL;
    }
    return ctc__done(tok, res);
}
static ct_tensor *ctc__tri_indices(const char *api, int upper, int64_t row, int64_t col, int64_t offset, ct_dtype dt) {
    if (row < 0) return ctc__fail(CT_ERR_ARG, "%s: row must be non-negative, got%lld", api, (long long)row);
    if (col < 0) return ctc__fail(CT_ERR_ARG, "%s: col must be non-negative, got%lld", api, (long long)col);
    if (dt != CT_INT64 && dt != CT_INT32)
        return ctc__fail(CT_ERR_DTYPE, "%s: \"%s\" not implemented for '%s'", api, api, ct_dtype_name(dt));
    if (row > ((int64_t)1 << 24) || col > ((int64_t)1 << 24)) return ctc__fail(CT_ERR_ARG, "%s: %lld x %lld is too large", api, (long long)row, (long long)col);
    int64_t n = 0;
    for (int64_t i = 0; i < row; i++) {
        int64_t lo = upper ? (i + offset > 0 ? i + offset : 0) : 0, hi = upper ? col : (i + offset + 1 < col ? i + offset + 1 : col);
        if (hi > lo) n += hi - lo;
    }
    int64_t *v = (int64_t *)malloc(sizeof(int64_t) * (size_t)(2 * n + 1));
    if (!v) return ctc__fail(CT_ERR_MEMORY, "%s: out of memory", api);
    int64_t k = 0;
    for (int64_t i = 0; i < row; i++) {
        int64_t lo = upper ? (i + offset > 0 ? i + offset : 0) : 0, hi = upper ? col : (i + offset + 1 < col ? i + offset + 1 : col);
        for (int64_t j = lo; j < hi; j++, k++) { v[k] = i; v[n + k] = j; }
    }
    int64_t sh[2] = {2, n};
    int tok = ct_scope_begin();
    ct_tensor *r = ct_from_data_n(v, CT_INT64, 2, sh);
    free(v);
    return ctc__done(tok, r && dt != CT_INT64 ? ct_to(r, dt) : r);
}
CTENSOR_API ct_tensor *ct_tril_indices(int64_t row, int64_t col, int64_t offset, ct_dtype dt) { return ctc__tri_indices("tril_indices", 0, row, col, offset, dt); }
CTENSOR_API ct_tensor *ct_triu_indices(int64_t row, int64_t col, int64_t offset, ct_dtype dt) { return ctc__tri_indices("triu_indices", 1, row, col, offset, dt); }

/* ---- math ------------------------------------------------------------------- */
CTENSOR_API ct_tensor *ct_kron(const ct_tensor *a, const ct_tensor *b) {
    CTC__ARG("kron", a);
    CTC__ARG("kron", b);
    int na = ct_ndim(a), nb = ct_ndim(b), nd = na > nb ? na : nb;
    if (2 * nd > CT_MAX_DIMS) return ctc__fail(CT_ERR_SHAPE, "kron: %d dims need %d (CTENSOR_MAX_DIMS = %d)", nd, 2 * nd, CT_MAX_DIMS);
    int64_t sa[CT_MAX_DIMS], sb[CT_MAX_DIMS], so[CT_MAX_DIMS];
    for (int d = 0; d < nd; d++) {
        int64_t ea = d < nd - na ? 1 : ct_size(a, d - (nd - na)), eb = d < nd - nb ? 1 : ct_size(b, d - (nd - nb));
        sa[2 * d] = ea; sa[2 * d + 1] = 1;
        sb[2 * d] = 1; sb[2 * d + 1] = eb;
        so[d] = ea * eb;
    }
    int tok = ct_scope_begin();
    ct_tensor *m = ct_mul(ct_reshape_n(a, 2 * nd, sa), ct_reshape_n(b, 2 * nd, sb));
    return ctc__done(tok, m ? ct_reshape_n(m, nd, so) : NULL);
}
CTENSOR_API ct_tensor *ct_inner(const ct_tensor *a, const ct_tensor *b) {
    CTC__ARG("inner", a);
    CTC__ARG("inner", b);
    if (ct_ndim(a) == 0 || ct_ndim(b) == 0) return ct_mul(a, b);
    char s1[96], s2[96];
    if (ct_size(a, -1) != ct_size(b, -1))
        return ctc__fail(CT_ERR_SHAPE, "inner() the last dimension must match on both input tensors but got shapes %s and %s",
                         ctc__shape_str(a, s1, sizeof s1), ctc__shape_str(b, s2, sizeof s2));
    int64_t da = ct_ndim(a) - 1, db = ct_ndim(b) - 1;
    return ct_tensordot(a, b, 1, &da, 1, &db);
}
CTENSOR_API ct_tensor *ct_addr(const ct_tensor *input, const ct_tensor *vec1, const ct_tensor *vec2, double beta, double alpha) {
    CTC__ARG("addr", input);
    CTC__ARG("addr", vec1);
    CTC__ARG("addr", vec2);
    if (ct_ndim(vec1) != 1) return ctc__fail(CT_ERR_SHAPE, "addr: Expected 1-D argument vec1, but got %d-D", ct_ndim(vec1));
    if (ct_ndim(vec2) != 1) return ctc__fail(CT_ERR_SHAPE, "addr: Expected 1-D argument vec2, but got %d-D", ct_ndim(vec2));
    int tok = ct_scope_begin();
    ct_tensor *o = ct_outer(vec1, vec2), *r = NULL;
    if (o) {
        int64_t sh[2] = {ct_size(o, 0), ct_size(o, 1)};
        ct_tensor *in = ct_expand_n(input, 2, sh);   /* input broadcasts to the outer product's shape */
        if (in) {
            ct_tensor *ao = alpha == 1.0 ? o : ct_mul_scalar(o, alpha);
            r = beta == 0.0 ? ct_add(ct_zeros_like(in), ao)   /* input ignored (NaN too), its dtype promoted */
                            : ct_add(beta == 1.0 ? in : ct_mul_scalar(in, beta), ao);
        }
    }
    return ctc__done(tok, r);
}
CTENSOR_API ct_tensor *ct_ldexp(const ct_tensor *x, const ct_tensor *e) {
    CTC__ARG("ldexp", x);
    CTC__ARG("ldexp", e);
    int tok = ct_scope_begin();
    ct_dtype ed = ct_get_dtype(e);   /* 2.0 ** an integer tensor is float32, as PyTorch's */
    const ct_tensor *ef = ct_dtype_is_floating(ed) || ct_dtype_is_complex(ed) ? e : ct_to(e, CT_FLOAT32);
    return ctc__done(tok, ef ? ct_mul(x, ct_rpow_scalar(2.0, ef)) : NULL);
}
static ct_dtype ctc__fp_dtype(const ct_tensor *a, const ct_tensor *b) {
    return ct_dtype_is_complex(ct_get_dtype(a)) || (b && ct_dtype_is_complex(ct_get_dtype(b))) ? CT_COMPLEX128 : CT_FLOAT64;
}
CTENSOR_API ct_tensor *ct_float_power(const ct_tensor *x, const ct_tensor *y) {
    CTC__ARG("float_power", x);
    CTC__ARG("float_power", y);
    ct_dtype dt = ctc__fp_dtype(x, y);
    int tok = ct_scope_begin();
    return ctc__done(tok, ct_pow(ct_to(x, dt), ct_to(y, dt)));
}
CTENSOR_API ct_tensor *ct_float_power_scalar(const ct_tensor *x, double exponent) {
    CTC__ARG("float_power", x);
    int tok = ct_scope_begin();
    return ctc__done(tok, ct_pow_scalar(ct_to(x, ctc__fp_dtype(x, NULL)), exponent));
}
static ct_tensor *ctc__logaddexp(const char *api, const ct_tensor *a, const ct_tensor *b, int base2) {
    CTC__ARG(api, a);
    CTC__ARG(api, b);
    ct_dtype dt = ct_promote_types(ct_get_dtype(a), ct_get_dtype(b));
    if (!ct_dtype_is_floating(dt)) return ctc__fail(CT_ERR_DTYPE, "\"%s_cpu\" not implemented for '%s'", api, ct_dtype_name(dt));
    int tok = ct_scope_begin();
    /* max(a, b) + log1p(e^-|a - b|); a == b == +-inf gives a (|a - b| would be NaN) */
    ct_tensor *m = ct_maximum(a, b), *d = ct_neg(ct_abs(ct_sub(a, b)));
    ct_tensor *t = base2 ? ct_div_scalar(ct_log1p(ct_exp2(d)), 0.69314718055994530942) : ct_log1p(ct_exp(d));
    ct_tensor *same = ct_logical_and(ct_eq(a, b), ct_isinf(a));
    ct_tensor *r = ct_add(m, t);
    return ctc__done(tok, r && same ? ct_where(same, ct_to(a, dt), r) : NULL);
}
CTENSOR_API ct_tensor *ct_logaddexp(const ct_tensor *a, const ct_tensor *b) { return ctc__logaddexp("logaddexp", a, b, 0); }
CTENSOR_API ct_tensor *ct_logaddexp2(const ct_tensor *a, const ct_tensor *b) { return ctc__logaddexp("logaddexp2", a, b, 1); }
CTENSOR_API ct_tensor *ct_isreal(const ct_tensor *x) {
    CTC__ARG("isreal", x);
    int tok = ct_scope_begin();
    if (ct_dtype_is_complex(ct_get_dtype(x))) return ctc__done(tok, ct_eq_scalar(ct_imag(x), 0.0));
    return ctc__done(tok, ct_ones_like(ct_to(x, CT_BOOL)));
}
CTENSOR_API ct_tensor *ct_dist(const ct_tensor *a, const ct_tensor *b, double p) {
    CTC__ARG("dist", a);
    CTC__ARG("dist", b);
    int tok = ct_scope_begin();
    return ctc__done(tok, ct_norm(ct_sub(a, b), p, 0, NULL, 0));
}
CTENSOR_API ct_tensor *ct_cdist(const ct_tensor *x1, const ct_tensor *x2, double p) {
    CTC__ARG("cdist", x1);
    CTC__ARG("cdist", x2);
    if (ct_ndim(x1) < 2) return ctc__fail(CT_ERR_SHAPE, "cdist only supports at least 2D tensors, X1 got: %dD", ct_ndim(x1));
    if (ct_ndim(x2) < 2) return ctc__fail(CT_ERR_SHAPE, "cdist only supports at least 2D tensors, X2 got: %dD", ct_ndim(x2));
    if (ct_size(x1, -1) != ct_size(x2, -1))
        return ctc__fail(CT_ERR_SHAPE, "cdist: X1 and X2 must have the same number of columns. X1: %lld X2: %lld",
                         (long long)ct_size(x1, -1), (long long)ct_size(x2, -1));
    if (!(p >= 0)) return ctc__fail(CT_ERR_ARG, "cdist only supports non-negative p values (got %g)", p);
    if (!ct_dtype_is_floating(ct_get_dtype(x1)))
        return ctc__fail(CT_ERR_DTYPE, "cdist only supports floating-point dtypes, X1 got: %s", ct_dtype_name(ct_get_dtype(x1)));
    if (ct_get_dtype(x1) != ct_get_dtype(x2))
        return ctc__fail(CT_ERR_DTYPE, "cdist: X1 and X2 must have the same dtype (%s and %s)", ct_dtype_name(ct_get_dtype(x1)), ct_dtype_name(ct_get_dtype(x2)));
    int tok = ct_scope_begin();
    int64_t last = -1;
    ct_tensor *d = ct_sub(ct_unsqueeze(x1, -2), ct_unsqueeze(x2, -3));   /* [..., P, R, M] */
    return ctc__done(tok, d ? ct_norm(d, p, 1, &last, 0) : NULL);
}
CTENSOR_API ct_tensor *ct_renorm(const ct_tensor *x, double p, int dim, double maxnorm) {
    CTC__ARG("renorm", x);
    int nd = ct_ndim(x), d;
    if (!(p > 0)) return ctc__fail(CT_ERR_ARG, "renorm: non-positive-norm not supported");
    if (!(maxnorm >= 0)) return ctc__fail(CT_ERR_ARG, "renorm: expected maxnorm to be >= 0 but got %g", maxnorm);
    if (nd <= 1) return ctc__fail(CT_ERR_SHAPE, "renorm: input needs at least 2 dimensions, got %d dimensions", nd);
    if (ct_dtype_is_complex(ct_get_dtype(x))) return ctc__fail(CT_ERR_DTYPE, "renorm: Norm of complex input is not supported (%s)", ct_dtype_name(ct_get_dtype(x)));
    if ((d = ctc__wrap(dim, nd)) < 0) return NULL;
    int64_t others[CT_MAX_DIMS];
    int no = 0;
    for (int k = 0; k < nd; k++)
        if (k != d) others[no++] = k;
    int tok = ct_scope_begin();
    /* PyTorch's factor: the norm is a constant of the scaling (its renorm_backward
       differentiates through it; so does this composition) */
    ct_tensor *nrm = ct_norm(x, p, no, others, 1);
    ct_tensor *f = nrm ? ct_where_scalar(ct_gt_scalar(nrm, maxnorm), ct_rdiv_scalar(maxnorm, ct_add_scalar(nrm, 1e-7)), 1.0) : NULL;
    return ctc__done(tok, f ? ct_mul(x, f) : NULL);
}
CTENSOR_API ct_tensor *ct_diff(const ct_tensor *x, int64_t n, int dim, const ct_tensor *prepend, const ct_tensor *append) {
    CTC__ARG("diff", x);
    int nd = ct_ndim(x), d;
    if (nd < 1) return ctc__fail(CT_ERR_SHAPE, "diff expects input to be at least one-dimensional");
    if (n < 0) return ctc__fail(CT_ERR_ARG, "diff: order must be non-negative but got %lld", (long long)n);
    if ((d = ctc__wrap(dim, nd)) < 0) return NULL;
    if ((prepend && ct_ndim(prepend) != nd) || (append && ct_ndim(append) != nd))
        return ctc__fail(CT_ERR_SHAPE, "diff expects prepend or append to be the same dimension as input");
    int tok = ct_scope_begin();
    ct_tensor *parts[3], *y = (ct_tensor *)x;
    int np = 0;
    if (prepend) parts[np++] = (ct_tensor *)prepend;
    parts[np++] = (ct_tensor *)x;
    if (append) parts[np++] = (ct_tensor *)append;
    if (np > 1) y = ct_cat(np, parts, d);
    int is_bool = y && ct_get_dtype(y) == CT_BOOL;
    for (int64_t k = 0; k < n && y; k++) {
        int64_t L = ct_size(y, d);
        if (L == 0) break;
        ct_tensor *hi = ct_narrow(y, d, 1, L - 1), *lo = ct_narrow(y, d, 0, L - 1);
        y = is_bool ? ct_ne(hi, lo) : ct_sub(hi, lo);
    }
    if (y == x) y = ct_expand_n(x, nd, (x)->shape);   /* n == 0: x as it is, a view */
    return ctc__done(tok, y);
}
/* the spacing along dim d of y: a 1-D x is viewed along d; an x of fewer dims gets
   leading size-1 dims; then its forward differences along d (they broadcast with y) */
static ct_tensor *ctc__trap_dx(const char *api, const ct_tensor *y, const ct_tensor *x, int d) {
    int nd = ct_ndim(y), nx = ct_ndim(x);
    int64_t sh[CT_MAX_DIMS];
    if (nx == 1) {
        if (ct_size(x, 0) != ct_size(y, d)) {
            ct_set_error(CT_ERR_SHAPE, "%s: There must be one `x` value for each sample point", api);
            return NULL;
        }
        for (int k = 0; k < nd; k++) sh[k] = k == d ? ct_size(x, 0) : 1;
    } else if (nx < nd) {
        for (int k = 0; k < nd; k++) sh[k] = k < nd - nx ? 1 : ct_size(x, k - (nd - nx));
    } else {
        return ct_diff(x, 1, d - nd, NULL, NULL);
    }
    return ct_diff(ct_reshape_n(x, nd, sh), 1, d, NULL, NULL);
}
static ct_tensor *ctc__trapezoid(const char *api, const ct_tensor *y, const ct_tensor *x, double dx, int dim, int cumulative) {
    CTC__ARG(api, y);
    int nd = ct_ndim(y), d;
    if (nd < 1) return ctc__fail(CT_ERR_INDEX, "%s: Dimension specified as %d but tensor has no dimensions", api, dim);
    if ((d = ctc__wrap(dim, nd)) < 0) return NULL;
    int tok = ct_scope_begin();
    int64_t L = ct_size(y, d);
    ct_tensor *r = NULL;
    if (L == 0) {   /* no interval: zeros of the reduced shape; cumulative: empty */
        r = cumulative ? ct_clone(y) : ct_sum_dim(y, d, 0);
    } else {
        int64_t n1 = L > 0 ? L - 1 : 0;
        ct_tensor *avg = ct_mul_scalar(ct_add(ct_narrow(y, d, 1, n1), ct_narrow(y, d, 0, n1)), 0.5);
        ct_tensor *terms = NULL;
        if (x) {
            ct_tensor *dxs = ctc__trap_dx(api, y, x, d);
            terms = dxs && avg ? ct_mul(avg, dxs) : NULL;
        } else {
            terms = avg ? ct_mul_scalar(avg, dx) : NULL;
        }
        if (terms) r = cumulative ? ct_cumsum(terms, d) : ct_sum_dim(terms, d, 0);
    }
    return ctc__done(tok, r);
}
CTENSOR_API ct_tensor *ct_trapezoid(const ct_tensor *y, const ct_tensor *x, double dx, int dim) { return ctc__trapezoid("trapezoid", y, x, dx, dim, 0); }
CTENSOR_API ct_tensor *ct_cumulative_trapezoid(const ct_tensor *y, const ct_tensor *x, double dx, int dim) {
    return ctc__trapezoid("cumulative_trapezoid", y, x, dx, dim, 1);
}
CTENSOR_API ct_tensor *ct_logspace(double start, double end, int64_t steps, double base, ct_dtype dt) {
    if (steps < 0) return ctc__fail(CT_ERR_ARG, "logspace: number of steps must be non-negative");
    if (ct_dtype_is_complex(dt) || dt == CT_BOOL)
        return ctc__fail(CT_ERR_DTYPE, "logspace: \"logspace_cpu\" not implemented for '%s'", ct_dtype_name(dt));
    if (steps > ((int64_t)1 << 40)) return ctc__fail(CT_ERR_ARG, "logspace: %lld steps are too many", (long long)steps);
    double *v = (double *)malloc(sizeof(double) * (size_t)(steps ? steps : 1));
    if (!v) return ctc__fail(CT_ERR_MEMORY, "logspace: out of memory");
    /* PyTorch's kernel: the first half counts up from start, the second down from end */
    double step = steps > 1 ? (end - start) / (double)(steps - 1) : 0.0;
    int64_t half = steps / 2;
    for (int64_t i = 0; i < steps; i++)
        v[i] = pow(base, i < half ? start + step * (double)i : end - step * (double)(steps - i - 1));
    int tok = ct_scope_begin();
    ct_tensor *r = ct_from_data_n(v, CT_FLOAT64, 1, &steps);
    free(v);
    return ctc__done(tok, r && dt != CT_FLOAT64 ? ct_to(r, dt) : r);
}
CTENSOR_API ct_tensor *ct_take_along_dim(const ct_tensor *x, const ct_tensor *indices, int dim) {
    CTC__ARG("take_along_dim", x);
    CTC__ARG("take_along_dim", indices);
    if (ct_get_dtype(indices) != CT_INT64)
        return ctc__fail(CT_ERR_DTYPE, "torch.take_along_dim(): dtype of indices should be Long but got %s", ct_dtype_name(ct_get_dtype(indices)));
    int tok = ct_scope_begin();
    if (dim == CT_DIM_NONE) return ctc__done(tok, ct_gather(ct_ravel(x), 0, ct_ravel(indices)));
    int nd = ct_ndim(x), d;
    if (nd != ct_ndim(indices)) {
        ct_scope_end(tok);
        return ctc__fail(CT_ERR_SHAPE, "torch.take_along_dim(): input and indices should have the same number of dimensions, but got %d dimensions for input, and %d dimensions for indices",
                         nd, ct_ndim(indices));
    }
    if ((d = ctc__wrap(dim, nd)) < 0) { ct_scope_end(tok); return NULL; }
    int64_t sx[CT_MAX_DIMS], si[CT_MAX_DIMS];
    char s1[96], s2[96];
    for (int k = 0; k < nd; k++) {
        int64_t a = ct_size(x, k), b = ct_size(indices, k);
        if (k == d) { sx[k] = a; si[k] = b; continue; }
        if (a != b && a != 1 && b != 1) {
            ct_scope_end(tok);
            return ctc__fail(CT_ERR_SHAPE, "take_along_dim: shapes %s and %s do not broadcast at dim %d (%lld and %lld)",
                             ctc__shape_str(x, s1, sizeof s1), ctc__shape_str(indices, s2, sizeof s2), k, (long long)a, (long long)b);
        }
        sx[k] = si[k] = a == 1 ? b : a;
    }
    return ctc__done(tok, ct_gather(ct_expand_n(x, nd, sx), d, ct_expand_n(indices, nd, si)));
}

/* ---- statistics ------------------------------------------------------------ */
CTENSOR_API ct_tensor *ct_cov(const ct_tensor *x, int64_t correction, const ct_tensor *fweights, const ct_tensor *aweights) {
    CTC__ARG("cov", x);
    int nd = ct_ndim(x);
    if (nd > 2) return ctc__fail(CT_ERR_SHAPE, "cov(): expected input to have two or fewer dimensions but got an input with %d dimensions", nd);
    int64_t nobs = nd == 0 ? 1 : ct_size(x, nd - 1);
    const ct_tensor *wts[2] = {fweights, aweights};
    static const char *const wname[2] = {"fweights", "aweights"};
    for (int k = 0; k < 2; k++) {
        const ct_tensor *w = wts[k];
        if (!w) continue;
        if (ct_ndim(w) > 1)
            return ctc__fail(CT_ERR_SHAPE, "cov(): expected %s to have one or fewer dimensions but got %s with %d dimensions", wname[k], wname[k], ct_ndim(w));
        if (ct_numel(w) != nobs)
            return ctc__fail(CT_ERR_SHAPE, "cov(): expected %s to have the same numel as there are observations in the input but got %lld != %lld",
                             wname[k], (long long)ct_numel(w), (long long)nobs);
        ct_dtype wd = ct_get_dtype(w);
        if (k == 0 && (ct_dtype_is_floating(wd) || ct_dtype_is_complex(wd) || wd == CT_BOOL))
            return ctc__fail(CT_ERR_DTYPE, "cov(): expected fweights to have integral dtype but got fweights with %s dtype", ct_dtype_name(wd));
        if (k == 1 && !ct_dtype_is_floating(wd))
            return ctc__fail(CT_ERR_DTYPE, "cov(): expected aweights to have floating point dtype but got aweights with %s dtype", ct_dtype_name(wd));
    }
    int tok = ct_scope_begin();
    for (int k = 0; k < 2; k++) {
        if (!wts[k]) continue;
        ct_tensor *neg = ct_any(ct_lt_scalar(wts[k], 0.0));
        if (!neg) { ct_scope_end(tok); return NULL; }
        if (ct_item(neg) != 0) { ct_scope_end(tok); return ctc__fail(CT_ERR_ARG, "cov(): %s cannot be negative", wname[k]); }
    }
    int64_t sh[2] = {1, nobs};
    ct_tensor *X = nd < 2 ? ct_reshape_n(x, 2, sh) : (ct_tensor *)x;
    ct_dtype dt = ct_get_dtype(X);
    if (!ct_dtype_is_floating(dt) && !ct_dtype_is_complex(dt)) X = ct_to(X, CT_FLOAT32);
    if (!X) return ctc__done(tok, NULL);
    ct_tensor *w = fweights ? (ct_tensor *)fweights : NULL;
    if (aweights) w = w ? ct_mul(w, aweights) : (ct_tensor *)aweights;
    ct_tensor *avg, *wsum = NULL, *nf;
    if (w) {
        wsum = ct_sum(w);
        avg = ct_div(ct_sum_dim(ct_mul(X, w), 1, 0), wsum);
    } else {
        avg = ct_mean_dim(X, 1, 0);
    }
    if (w && correction != 0) {
        nf = aweights ? ct_sub(wsum, ct_mul_scalar(ct_div(ct_sum(ct_mul(w, aweights)), wsum), (double)correction))
                      : ct_sub_scalar(wsum, (double)correction);
    } else if (w) {
        nf = wsum;
    } else {
        nf = ct_full_n(CT_FLOAT64, 0, NULL, (double)(nobs - correction));
    }
    if (!avg || !nf) return ctc__done(tok, NULL);
    nf = ct_clamp(nf, 0.0, NAN);   /* PyTorch warns "degrees of freedom is <= 0" and clamps */
    ct_tensor *xm = ct_sub(X, ct_unsqueeze(avg, 1));
    ct_tensor *xw = w ? ct_mul(xm, w) : xm;
    ct_tensor *c = xw ? ct_mm(xm, ct_conj(ct_transpose(xw, 0, 1))) : NULL;
    if (c) c = ct_div(c, ct_to(nf, ct_dtype_is_complex(ct_get_dtype(c)) ? CT_FLOAT64 : ct_get_dtype(c)));
    if (c && nd < 2) c = ct_reshape_n(c, 0, NULL);   /* a 1-D (or 0-d) input: the variance, 0-d */
    return ctc__done(tok, c);
}
CTENSOR_API ct_tensor *ct_corrcoef(const ct_tensor *x) {
    CTC__ARG("corrcoef", x);
    int nd = ct_ndim(x);
    if (nd > 2) return ctc__fail(CT_ERR_SHAPE, "corrcoef(): expected input to have two or fewer dimensions but got an input with %d dimensions", nd);
    int tok = ct_scope_begin();
    ct_tensor *c = ct_cov(x, 1, NULL, NULL);
    if (!c) return ctc__done(tok, NULL);
    if (ct_ndim(c) == 0) return ctc__done(tok, ct_div(c, c));   /* 1 (or NaN), as PyTorch */
    ct_tensor *sd = ct_sqrt(ct_real(ct_diagonal(c, 0, 0, 1)));
    c = ct_div(ct_div(c, ct_unsqueeze(sd, 1)), ct_unsqueeze(sd, 0));
    if (!c) return ctc__done(tok, NULL);
    if (ct_dtype_is_complex(ct_get_dtype(c))) return ctc__done(tok, ct_view_as_complex(ct_clamp(ct_view_as_real(c), -1.0, 1.0)));
    return ctc__done(tok, ct_clamp(c, -1.0, 1.0));
}
CTENSOR_API int ct_aminmax(const ct_tensor *x, int dim, int keepdim, ct_tensor **min, ct_tensor **max) {
    if (!x || !min || !max) return ctc__failn(CT_ERR_ARG, "aminmax: NULL argument");
    if (ct_dtype_is_complex(ct_get_dtype(x))) return ctc__failn(CT_ERR_DTYPE, "\"aminmax_cpu\" not implemented for '%s'", ct_dtype_name(ct_get_dtype(x)));
    int64_t d64 = dim;
    int nd = ct_ndim(x);
    if (dim != CT_DIM_NONE) {
        int d = ctc__wrap(dim, nd);
        if (d < 0) return -1;
        if (nd > 0 && ct_size(x, d) == 0)
            return ctc__failn(CT_ERR_SHAPE, "aminmax(): Expected reduction dim %d to have non-zero size.", dim);
        d64 = d;
    } else if (ct_numel(x) == 0) {
        return ctc__failn(CT_ERR_SHAPE, "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
    }
    int all = dim == CT_DIM_NONE || nd == 0;
    ct_tensor *lo = all ? ct_amin(x, 0, NULL, 0) : ct_amin(x, 1, &d64, keepdim);
    ct_tensor *hi = lo ? (all ? ct_amax(x, 0, NULL, 0) : ct_amax(x, 1, &d64, keepdim)) : NULL;
    if (!hi) return -1;
    if (all && keepdim && nd > 0) {
        int64_t ones[CT_MAX_DIMS];
        for (int k = 0; k < nd; k++) ones[k] = 1;
        if (!(lo = ct_reshape_n(lo, nd, ones)) || !(hi = ct_reshape_n(hi, nd, ones))) return -1;
    }
    *min = lo;
    *max = hi;
    return 0;
}

/* quantile: sort along the dim (NaN sorts last), the position q * (k - 1) in the
   first k (the count of non-NaN values for nanquantile, the size otherwise) and
   the interpolation between its two neighbours */
static ct_tensor *ctc__quantile(const char *api, const ct_tensor *x, const ct_tensor *qt, double qs, int dim, int keepdim,
                                const char *interp, int ignore_nan) {
    CTC__ARG(api, x);
    ct_dtype dt = ct_get_dtype(x);
    if (dt != CT_FLOAT32 && dt != CT_FLOAT64) return ctc__fail(CT_ERR_DTYPE, "%s() input tensor must be either float or double dtype", api);
    if (ct_numel(x) == 0) return ctc__fail(CT_ERR_SHAPE, "%s() input tensor must be non-empty", api);
    int mode;
    if (!interp || !strcmp(interp, "linear")) mode = 0;
    else if (!strcmp(interp, "lower")) mode = 1;
    else if (!strcmp(interp, "higher")) mode = 2;
    else if (!strcmp(interp, "midpoint")) mode = 3;
    else if (!strcmp(interp, "nearest")) mode = 4;
    else return ctc__fail(CT_ERR_ARG, "%s() interpolation must be one of linear, lower, higher, midpoint or nearest, but got %s", api, interp);
    int tok = ct_scope_begin();
    ct_tensor *q;
    if (qt) {
        if (ct_ndim(qt) > 1) { ct_scope_end(tok); return ctc__fail(CT_ERR_SHAPE, "%s() q must be a scalar or 1D tensor", api); }
        if (ct_get_dtype(qt) != dt) { ct_scope_end(tok); return ctc__fail(CT_ERR_DTYPE, "%s() q tensor must be same dtype as the input tensor", api); }
        ct_tensor *bad = ct_any(ct_logical_or(ct_lt_scalar(qt, 0.0), ct_gt_scalar(qt, 1.0)));
        if (!bad || ct_item(bad) != 0) { ct_scope_end(tok); return bad ? ctc__fail(CT_ERR_ARG, "%s() q values must be in the range [0, 1]", api) : NULL; }
        q = ct_detach(qt);
    } else {
        if (!(qs >= 0 && qs <= 1)) { ct_scope_end(tok); return ctc__fail(CT_ERR_ARG, "%s() q must be in the range [0, 1] but got %g", api, qs); }
        q = ct_full_n(dt, 0, NULL, qs);
    }
    int nd = ct_ndim(x), d;
    ct_tensor *v;
    if (dim == CT_DIM_NONE || nd == 0) { v = ct_ravel(x); d = 0; }
    else {
        if ((d = ctc__wrap(dim, nd)) < 0) { ct_scope_end(tok); return NULL; }
        int64_t from = d, to = -1;
        v = ct_movedim(x, 1, &from, &to);   /* the reduced dim last */
    }
    ct_tensor *sorted = ct_sort(v, -1, 0, NULL);
    if (!sorted || !q) return ctc__done(tok, NULL);
    int64_t L = ct_size(sorted, -1);
    /* k per slice ([..., 1]), as the sorted dtype */
    ct_tensor *nan = ct_isnan(sorted);
    ct_tensor *k = ignore_nan ? ct_sum_dim(ct_logical_not(nan), -1, 1) : ct_full_like(ct_narrow(sorted, -1, 0, 1), (double)L);
    ct_tensor *hasnan = ct_narrow(nan, -1, L - 1, 1);   /* NaN sorts last */
    k = ct_to(k, dt);
    /* positions: [..., nq] with q broadcast along the last dim */
    int64_t nq = ct_numel(q), qsh = nq;
    ct_tensor *qv = ct_reshape_n(q, 1, &qsh);
    ct_tensor *pos = ct_mul(qv, ct_clamp(ct_sub_scalar(k, 1.0), 0.0, NAN));
    ct_tensor *lo = ct_floor(pos), *hi = ct_ceil(pos);
    if (mode == 4) lo = hi = ct_round(pos);   /* round half to even, as PyTorch */
    ct_tensor *ilo = ct_to(lo, CT_INT64), *ihi = ct_to(hi, CT_INT64);
    ct_tensor *vlo = ct_gather(sorted, -1, ilo), *vhi = ct_gather(sorted, -1, ihi);
    ct_tensor *r = NULL;
    if (vlo && vhi) {
        if (mode == 1 || mode == 4) r = vlo;
        else if (mode == 2) r = vhi;
        else if (mode == 3) r = ct_lerp_scalar(vlo, vhi, 0.5);
        else r = ct_lerp(vlo, vhi, ct_sub(pos, lo));
    }
    /* quantile: a slice with a NaN is NaN; nanquantile: a slice of only NaNs is NaN */
    if (r) r = ignore_nan ? ct_where_scalar(ct_ne_scalar(k, 0.0), r, NAN) : ct_where_scalar(ct_logical_not(hasnan), r, NAN);
    if (!r) return ctc__done(tok, NULL);
    /* r is [..., nq]: q's dim first, then the kept dims */
    int rn = ct_ndim(r);
    int64_t from = rn - 1, to = 0;
    r = ct_movedim(r, 1, &from, &to);
    if (keepdim) {
        if (dim == CT_DIM_NONE || nd == 0) {
            int64_t sh[CT_MAX_DIMS + 1];
            sh[0] = nq;
            for (int j = 0; j < nd; j++) sh[j + 1] = 1;
            r = ct_reshape_n(r, nd + 1, sh);
        } else {
            r = ct_unsqueeze(r, d + 1);
        }
    } else if (dim == CT_DIM_NONE || nd == 0) {
        r = ct_reshape_n(r, 1, &nq);
    }
    if (r && (!qt || ct_ndim(qt) == 0)) r = ct_squeeze_dim(r, 0);   /* a scalar q: no q dim */
    return ctc__done(tok, r ? ct_contiguous(r) : NULL);
}
CTENSOR_API ct_tensor *ct_quantile(const ct_tensor *x, double q, int dim, int keepdim, const char *interpolation) {
    return ctc__quantile("quantile", x, NULL, q, dim, keepdim, interpolation, 0);
}
CTENSOR_API ct_tensor *ct_nanquantile(const ct_tensor *x, double q, int dim, int keepdim, const char *interpolation) {
    return ctc__quantile("nanquantile", x, NULL, q, dim, keepdim, interpolation, 1);
}
CTENSOR_API ct_tensor *ct_quantile_t(const ct_tensor *x, const ct_tensor *q, int dim, int keepdim, const char *interpolation) {
    if (!q) return ctc__fail(CT_ERR_ARG, "quantile: NULL q");
    return ctc__quantile("quantile", x, q, 0.0, dim, keepdim, interpolation, 0);
}
CTENSOR_API ct_tensor *ct_nanquantile_t(const ct_tensor *x, const ct_tensor *q, int dim, int keepdim, const char *interpolation) {
    if (!q) return ctc__fail(CT_ERR_ARG, "nanquantile: NULL q");
    return ctc__quantile("nanquantile", x, q, 0.0, dim, keepdim, interpolation, 1);
}

/* ---- counting ---------------------------------------------------------------- */
CTENSOR_API ct_tensor *ct_heaviside(const ct_tensor *x, const ct_tensor *values) {
    CTC__ARG("heaviside", x);
    CTC__ARG("heaviside", values);
    ct_dtype dt = ct_get_dtype(x);
    if (ct_dtype_is_complex(dt) || ct_dtype_is_complex(ct_get_dtype(values)))
        return ctc__fail(CT_ERR_DTYPE, "heaviside is not yet implemented for complex tensors.");
    if (dt != ct_get_dtype(values))
        return ctc__fail(CT_ERR_DTYPE, "heaviside is not yet implemented for tensors with different dtypes. (%s and %s)", ct_dtype_name(dt), ct_dtype_name(ct_get_dtype(values)));
    int tok = ct_scope_begin();
    return ctc__done(tok, ct_where(ct_eq_scalar(x, 0.0), values, ct_to(ct_gt_scalar(x, 0.0), dt)));
}
static int ctc__integral(ct_dtype dt) { return !ct_dtype_is_floating(dt) && !ct_dtype_is_complex(dt) && dt != CT_BOOL; }
CTENSOR_API ct_tensor *ct_bincount(const ct_tensor *x, const ct_tensor *weights, int64_t minlength) {
    CTC__ARG("bincount", x);
    ct_dtype dt = ct_get_dtype(x);
    if (!ctc__integral(dt)) return ctc__fail(CT_ERR_DTYPE, "\"bincount_cpu\" not implemented for '%s'", ct_dtype_name(dt));
    if (ct_ndim(x) != 1) return ctc__fail(CT_ERR_SHAPE, "bincount only supports 1-d non-negative integral inputs. (got %d dims)", ct_ndim(x));
    if (minlength < 0) return ctc__fail(CT_ERR_ARG, "bincount: minlength should be >= 0 (got %lld)", (long long)minlength);
    if (weights && (ct_ndim(weights) != 1 || ct_size(weights, 0) != ct_size(x, 0)))
        return ctc__fail(CT_ERR_SHAPE, "bincount: weights should be 1-d and have the same length as input");
    int tok = ct_scope_begin();
    int64_t n = minlength;
    if (ct_numel(x) > 0) {
        double lo = ct_item(ct_amin(x, 0, NULL, 0)), hi = ct_item(ct_amax(x, 0, NULL, 0));
        if (lo < 0) { ct_scope_end(tok); return ctc__fail(CT_ERR_ARG, "bincount only supports 1-d non-negative integral inputs. (got %g)", lo); }
        if (hi + 1 > (double)n) n = (int64_t)hi + 1;
    }
    ct_dtype od = !weights ? CT_INT64 : ct_dtype_is_floating(ct_get_dtype(weights)) ? ct_get_dtype(weights) : CT_FLOAT64;
    ct_tensor *idx = ct_to(x, CT_INT64);
    ct_tensor *src = weights ? ct_to(weights, od) : ct_ones(CT_INT64, ct_size(x, 0));
    ct_tensor *z = ct_zeros(od, n);
    return ctc__done(tok, idx && src && z ? ct_scatter_add(z, 0, idx, src) : NULL);
}
CTENSOR_API ct_tensor *ct_histc(const ct_tensor *x, int64_t bins, double min, double max) {
    CTC__ARG("histc", x);
    ct_dtype dt = ct_get_dtype(x);
    if (!ct_dtype_is_floating(dt)) return ctc__fail(CT_ERR_DTYPE, "\"histogram_cpu\" not implemented for '%s'", ct_dtype_name(dt));
    if (bins <= 0) return ctc__fail(CT_ERR_ARG, "torch.histc: bins must be > 0, but got %lld", (long long)bins);
    if (bins > ((int64_t)1 << 40)) return ctc__fail(CT_ERR_ARG, "torch.histc: %lld bins are too many", (long long)bins);
    int tok = ct_scope_begin();
    double lo = min, hi = max;
    if (lo == hi && ct_numel(x) > 0) {
        lo = ct_item(ct_amin(x, 0, NULL, 0));
        hi = ct_item(ct_amax(x, 0, NULL, 0));
    }
    if (lo == hi) { lo -= 1; hi += 1; }
    if (!isfinite(lo) || !isfinite(hi)) { ct_scope_end(tok); return ctc__fail(CT_ERR_ARG, "torch.histc: range of [%g, %g] is not finite", lo, hi); }
    if (lo > hi) { ct_scope_end(tok); return ctc__fail(CT_ERR_ARG, "torch.histc: max must be larger than min"); }
    /* PyTorch's bin: (x - lo) * bins / (hi - lo) in x's dtype, truncated; x == hi goes
       to the last bin; outside (and NaN) to a spare bin past the end, dropped */
    ct_tensor *v = ct_ravel(x);
    ct_tensor *pos = ct_div(ct_mul_scalar(ct_sub_scalar(v, lo), (double)bins), ct_full_n(dt, 0, NULL, hi - lo));
    ct_tensor *inside = ct_logical_and(ct_ge_scalar(v, lo), ct_le_scalar(v, hi));
    ct_tensor *b = ct_clamp(ct_to(ct_trunc(ct_where_scalar(inside, pos, 0.0)), CT_INT64), 0.0, (double)(bins - 1));
    b = ct_where_scalar(inside, b, (double)bins);
    ct_tensor *r = NULL;
    if (b) {
        ct_tensor *cnt = ct_scatter_add(ct_zeros(dt, bins + 1), 0, b, ct_ones(dt, ct_numel(v)));
        r = cnt ? ct_narrow(cnt, 0, 0, bins) : NULL;
    }
    return ctc__done(tok, r ? ct_contiguous(r) : NULL);
}
/* unique over a sorted (or, consecutive, as it is) flat vector s: keep[i] = s[i] != s[i-1] */
static ct_tensor *ctc__unique_runs(ct_tensor *s, ct_tensor *perm, const ct_tensor *x, ct_tensor **inverse, ct_tensor **counts) {
    int64_t n = ct_numel(s);
    ct_tensor *keep;
    if (n > 0) {
        ct_tensor *two[2] = {ct_ones(CT_BOOL, 1), ct_ne(ct_narrow(s, 0, 1, n - 1), ct_narrow(s, 0, 0, n - 1))};
        keep = two[1] ? ct_cat(2, two, 0) : NULL;
    } else {
        keep = ct_zeros(CT_BOOL, 0);
    }
    ct_tensor *vals = keep ? ct_masked_select(s, keep) : NULL;
    if (!vals) return NULL;
    if (inverse || counts) {
        ct_tensor *gid = ct_sub_scalar(ct_cumsum_dtype(keep, 0, CT_INT64), 1.0);   /* the run of each sorted position */
        if (!gid) return NULL;
        if (inverse) {
            ct_tensor *inv = perm ? ct_scatter(ct_zeros(CT_INT64, n), 0, perm, gid) : gid;
            if (!inv || !(*inverse = ct_reshape_n(inv, ct_ndim(x), x->shape))) return NULL;
        }
        if (counts && !(*counts = ct_bincount(gid, NULL, ct_numel(vals)))) return NULL;
    }
    return vals;
}
static ct_tensor *ctc__unique(const char *api, const ct_tensor *x, ct_tensor **inverse, ct_tensor **counts, int consecutive) {
    CTC__ARG(api, x);
    if (ct_dtype_is_complex(ct_get_dtype(x)))
        return ctc__fail(CT_ERR_DTYPE, "\"%s_cpu\" not implemented for '%s'", consecutive ? "unique_consecutive" : "unique", ct_dtype_name(ct_get_dtype(x)));
    int tok = ct_scope_begin();
    ct_tensor *inv = NULL, *cnt = NULL, *s, *perm = NULL, *v = ct_ravel(x);
    int is_bool = ct_get_dtype(x) == CT_BOOL;
    if (is_bool && v) v = ct_to(v, CT_UINT8);   /* sorted as 0 / 1 */
    if (consecutive || !v) s = v;
    else s = ct_sort(v, 0, 0, &perm);
    ct_tensor *vals = s ? ctc__unique_runs(s, perm, x, inverse ? &inv : NULL, counts ? &cnt : NULL) : NULL;
    if (vals && is_bool) vals = ct_to(vals, CT_BOOL);
    if (!vals) { ct_scope_end(tok); return NULL; }
    ct_keep(vals);
    if (inv) { ct_keep(inv); *inverse = inv; }
    if (cnt) { ct_keep(cnt); *counts = cnt; }
    ct_scope_end(tok);
    return vals;
}
CTENSOR_API ct_tensor *ct_unique(const ct_tensor *x, ct_tensor **inverse, ct_tensor **counts) { return ctc__unique("unique", x, inverse, counts, 0); }
CTENSOR_API ct_tensor *ct_unique_consecutive(const ct_tensor *x, ct_tensor **inverse, ct_tensor **counts) {
    return ctc__unique("unique_consecutive", x, inverse, counts, 1);
}
/* unique slices: x as [N, M] rows (dim moved first), sorted lexicographically by
   stable sorts of the columns from the last to the first (or left in order), then
   the runs of equal rows */
static ct_tensor *ctc__unique_dim(const char *api, const ct_tensor *x, int dim, ct_tensor **inverse, ct_tensor **counts, int consecutive) {
    CTC__ARG(api, x);
    ct_dtype dt = ct_get_dtype(x);
    if (ct_dtype_is_complex(dt)) return ctc__fail(CT_ERR_DTYPE, "\"%s\" not implemented for '%s'", consecutive ? "unique_dim_consecutive" : "unique_dim", CT__DTNAME(dt));
    int nd = ct_ndim(x);
    if (nd == 0) return ctc__fail(CT_ERR_INDEX, "%s: Dimension specified as %d but tensor has no dimensions", api, dim);
    if (dim < -nd || dim >= nd) return ctc__fail(CT_ERR_INDEX, "%s: Dimension out of range (expected to be in range of [%d, %d], but got %d)", api, -nd, nd - 1, dim);
    int d = dim < 0 ? dim + nd : dim;
    for (int k = 0; k < nd; k++)
        if (k != d && ct_size(x, k) == 0) return ctc__fail(CT_ERR_ARG, "%s: There are 0 sized dimensions, and they aren't selected, so unique cannot be applied", api);
    int tok = ct_scope_begin();
    int64_t src = d, dst = 0, N = ct_size(x, d), M = N ? ct_numel(x) / N : 0, shp[2] = {N, M};
    ct_tensor *moved = ct_movedim(x, 1, &src, &dst);
    ct_tensor *y = moved ? ct_reshape_n(moved, 2, shp) : NULL;
    if (y && dt == CT_BOOL) y = ct_to(y, CT_UINT8);   /* compared as 0 / 1 */
    ct_tensor *perm = ct_arange(0, (double)N, 1, CT_INT64);
    for (int64_t c = M - 1; !consecutive && c >= 0 && y && perm; c--)
        perm = ct_index_select(perm, 0, ct_argsort(ct_index_select(ct_select(y, 1, c), 0, perm), 0, 0));
    ct_tensor *srt = y && perm ? ct_index_select(y, 0, perm) : NULL, *keep = NULL;
    if (srt && N > 0) {
        ct_tensor *two[2] = {ct_ones(CT_BOOL, 1), ct_any_dim(ct_ne(ct_narrow(srt, 0, 1, N - 1), ct_narrow(srt, 0, 0, N - 1)), 1, 0)};
        keep = two[1] ? ct_cat(2, two, 0) : NULL;
    } else if (srt) {
        keep = ct_zeros(CT_BOOL, 0);
    }
    const int64_t flat = -1;
    ct_tensor *rows = keep ? ct_index_select(ct_index_select(moved ? ct_contiguous(moved) : NULL, 0, perm), 0, ct_reshape_n(ct_nonzero(keep), 1, &flat)) : NULL;
    ct_tensor *out = NULL, *inv = NULL, *cnt = NULL;
    if (rows) out = ct_movedim(rows, 1, &dst, &src);
    if (out && (inverse || counts)) {
        ct_tensor *gid = ct_sub_scalar(ct_cumsum_dtype(keep, 0, CT_INT64), 1.0);
        if (gid && inverse) inv = ct_scatter(ct_zeros(CT_INT64, N), 0, perm, gid);
        if (gid && counts) cnt = ct_bincount(gid, NULL, ct_size(rows, 0));
        if (!gid || (inverse && !inv) || (counts && !cnt)) out = NULL;
    }
    if (!out) { ct_scope_end(tok); return NULL; }
    out = ct_contiguous(out);
    ct_keep(out);
    if (inverse) { ct_keep(inv); *inverse = inv; }
    if (counts) { ct_keep(cnt); *counts = cnt; }
    ct_scope_end(tok);
    return out;
}
CTENSOR_API ct_tensor *ct_unique_dim(const ct_tensor *x, int dim, ct_tensor **inverse, ct_tensor **counts) {
    return ctc__unique_dim("unique", x, dim, inverse, counts, 0);
}
CTENSOR_API ct_tensor *ct_unique_consecutive_dim(const ct_tensor *x, int dim, ct_tensor **inverse, ct_tensor **counts) {
    return ctc__unique_dim("unique_consecutive", x, dim, inverse, counts, 1);
}

/* ---- searching: the one op of this header with a kernel of its own ----
   searchsorted is a binary search per value: composed of ops it would take
   log2(n) passes of a dozen ops each, so it is an op of ctensor.h's table
   (registered as the other companion headers register theirs: the dispatcher,
   listeners and the JIT's tracer see aten::searchsorted.Tensor). This part uses the
   implementation's internals, so it compiles in the file that defines
   CTENSOR_IMPLEMENTATION (the automatic case). */
#ifndef CTENSOR_IMPLEMENTATION
#error "ctensor_composite.h: its implementation compiles in the file that defines CTENSOR_IMPLEMENTATION (do not define CTENSOR_COMPOSITE_IMPLEMENTATION elsewhere)"
#endif
#define CTC__OPS(X) \
    X(SEARCHSORTED, "aten::searchsorted.Tensor", "searchsorted", "", 2, 1, CT__OPF_NONDIFF, "bool out_int32=f0, bool right=f1", \
      ctc__meta_searchsorted, ctc__k_searchsorted, ctc__bw_none, CT__SAVE_NONE) \
    X(LOGCUMSUMEXP, "aten::logcumsumexp", "logcumsumexp", "LogcumsumexpBackward0", 1, 1, 0, "int dim=i0", \
      ctc__meta_lcse, ctc__k_lcse, ctc__bw_lcse, CT__SAVE_IN(0) | CT__SAVE_OUT(0))
enum {
#define CTC__X_ENUM(E, sname, name, bw, nin, nout, flags, attrs, meta, kernel, backward, save) CTC__##E,
    CTC__OPS(CTC__X_ENUM)
#undef CTC__X_ENUM
    CTC__NUM_OPS
};
CTC__OPS(CT__X_PROTO)
/* never called (searchsorted is CT__OPF_NONDIFF); a rule of this header's own, so
   that its prototype's linkage matches under C++ */
static int ctc__bw_none(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    (void)gout; (void)gin;
    return ct__failed(CT_ERR_AUTOGRAD, "the derivative for '%s' is not implemented: it is not differentiable", ct__opdef_get(n->op)->name);
}
static const ct__opdef ctc__defs[CTC__NUM_OPS] = {CTC__OPS(CT__X_DEF)};
CT__OP_BLOCK(ctc, ctc__defs, CTC__NUM_OPS, )
/* in[0]: the sequence, contiguous, [R, n] as [n] or [..., n]; in[1]: the values,
   contiguous, R rows of m (any shape when the sequence is 1-D); one dtype */
static int ctc__meta_searchsorted(ct__call *c) {
    const ct_tensor *seq = c->in[0], *v = c->in[1];
    if (seq->dtype != v->dtype || !CT__ISREAL(seq->dtype) || seq->dtype == CT_BOOL)
        return ct__failed(CT_ERR_DTYPE, "\"searchsorted_out_cpu\" not implemented for '%s'", CT__DTNAME(v->dtype));
    if (seq->ndim < 1 || (seq->ndim > 1 && (v->ndim != seq->ndim || memcmp(v->shape, seq->shape, sizeof(int64_t) * (size_t)(seq->ndim - 1)))))
        return ct__failed(CT_ERR_SHAPE, "searchsorted: the sequence %s and the values %s do not match", CT__SHAPE(seq), CT__SHAPE(v));
    if (!ct__is_contig(seq) || !ct__is_contig(v)) return ct__failed(CT_ERR_ARG, "searchsorted: the op takes contiguous operands");
    ct__outinfo *o = &c->oi[0];
    c->nout = 1;
    c->cdt = v->dtype;
    o->kind = CT__OUT_NEW;
    o->has_strides = 0;
    o->dtype = (c->a->flags & 1) ? CT_INT32 : CT_INT64;
    o->ndim = v->ndim;
    for (int d = 0; d < v->ndim; d++) o->shape[d] = v->shape[d];
    return 0;
}
typedef struct ctc__ss_job {
    const char *seq, *val;
    char *out;
    int64_t n, m;   /* sequence length, values per row */
    int right, i32;
    ct_dtype dt;
} ctc__ss_job;
/* PyTorch's bisection, in its comparisons: left moves past seq[mid] when
   !(seq[mid] >= v), right when !(seq[mid] > v) (a NaN value goes last; NaNs at the
   sequence's end, as torch.sort puts them, are passed) */
#define CTC__SS_ROWS(T)                                                                             \
    for (int64_t r = lo; r < hi; r++) {                                                             \
        const T *s = (const T *)j->seq + r * j->n, *v = (const T *)j->val + r * j->m;              \
        for (int64_t k = 0; k < j->m; k++) {                                                        \
            const T x = v[k];                                                                       \
            int64_t a = 0, b = j->n;                                                                \
            if (j->right)                                                                           \
                while (a < b) { int64_t mid = a + ((b - a) >> 1); if (!(s[mid] > x)) a = mid + 1; else b = mid; } \
            else                                                                                    \
                while (a < b) { int64_t mid = a + ((b - a) >> 1); if (!(s[mid] >= x)) a = mid + 1; else b = mid; } \
            if (j->i32) ((int32_t *)j->out)[r * j->m + k] = (int32_t)a;                            \
            else ((int64_t *)j->out)[r * j->m + k] = a;                                              \
        }                                                                                           \
    }
static void ctc__ss_rows(void *ctx, int64_t lo, int64_t hi) {
    const ctc__ss_job *j = (const ctc__ss_job *)ctx;
    switch (j->dt) {
    case CT_UINT8: CTC__SS_ROWS(uint8_t) break;
    case CT_INT8: CTC__SS_ROWS(int8_t) break;
    case CT_INT16: CTC__SS_ROWS(int16_t) break;
    case CT_INT32: CTC__SS_ROWS(int32_t) break;
    case CT_INT64: CTC__SS_ROWS(int64_t) break;
    case CT_FLOAT32: CTC__SS_ROWS(float) break;
    default: CTC__SS_ROWS(double) break;
    }
}
/* the values of one row split into chunks when the sequence is 1-D (one row) */
static void ctc__ss_chunks(void *ctx, int64_t lo, int64_t hi) {
    const ctc__ss_job *j = (const ctc__ss_job *)ctx;
    size_t es = ct__dt[j->dt].size, os = j->i32 ? 4 : 8;
    ctc__ss_job part = *j;
    part.val = j->val + (size_t)lo * es;
    part.out = j->out + (size_t)lo * os;
    part.m = hi - lo;
    ctc__ss_rows(&part, 0, 1);
}
static int ctc__k_searchsorted(ct__call *c) {
    const ct_tensor *seq = c->in[0], *v = c->in[1];
    int64_t n = seq->shape[seq->ndim - 1], R = seq->ndim == 1 ? 1 : ct__shape_numel(seq->ndim, seq->shape) / (n ? n : 1);
    int64_t total = ct__shape_numel(v->ndim, v->shape);
    if (seq->ndim > 1 && n == 0) R = total ? total / (v->shape[v->ndim - 1] ? v->shape[v->ndim - 1] : 1) : 0;
    ctc__ss_job j;
    j.seq = (const char *)ct__ptr(seq);
    j.val = (const char *)ct__ptr(v);
    j.out = (char *)ct__ptr(c->out[0]);
    j.n = n;
    j.m = R ? total / R : 0;
    j.right = (c->a->flags & 2) != 0;
    j.i32 = (c->a->flags & 1) != 0;
    j.dt = v->dtype;
    if (total == 0) return 0;
    int64_t grain = 4096 / (n > 1 ? 1 + (int64_t)log2((double)n) : 1) + 1;   /* about 4096 comparisons a chunk */
    if (R == 1) ct__par_for(j.m, grain, ctc__ss_chunks, &j);
    else ct__par_for(R, j.m >= grain ? 1 : grain / (j.m ? j.m : 1) + 1, ctc__ss_rows, &j);
    return 0;
}
static ct_tensor *ctc__call_ss(ct_tensor *seq, ct_tensor *v, int out_int32, int right) {
    ct__ctc_register_now();
    if (ct__ctc_base < 0) return ctc__fail(CT_ERR_STATE, "ctensor_composite.h: its ops could not be registered");
    ct__attrs a;
    ct__attrs_init(&a);
    a.flags = (out_int32 ? 1u : 0u) | (right ? 2u : 0u);
    ct_tensor *in[2] = {seq, v};
    return ct__call1(ct__ctc_base + CTC__SEARCHSORTED, 2, in, &a);
}
/* PyTorch's argument checks, in its order and words; the operands promoted to one
   dtype (half types compared in float32: the same order), contiguous; the sequence
   put in order by the sorter first */
static ct_tensor *ctc__searchsorted(const char *api, const ct_tensor *seq, const ct_tensor *v, int out_int32, int right,
                                    const char *side, const ct_tensor *sorter) {
    CTC__ARG(api, seq);
    CTC__ARG(api, v);
    if (side) {
        if (strcmp(side, "left") && strcmp(side, "right"))
            return ctc__fail(CT_ERR_ARG, "torch.searchsorted(): side can only be 'left' or 'right' but got %s", side);
        if (right && !strcmp(side, "left"))
            return ctc__fail(CT_ERR_ARG, "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True");
        right = !strcmp(side, "right");
    }
    char b1[96], b2[96];
    int sd = ct_ndim(seq), vd = ct_ndim(v);
    if (sd == 0) return ctc__fail(CT_ERR_ARG, "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension");
    if (sd > 1 && vd == 0)
        return ctc__fail(CT_ERR_ARG, "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, but we got boundaries tensor dim(%d) and input value's dim(0) numel(1)", sd);
    if (sd > 1) {
        int ok = vd == sd;
        for (int d = 0; ok && d < sd - 1; d++) ok = ct_size(seq, d) == ct_size(v, d);
        if (!ok)
            return ctc__fail(CT_ERR_SHAPE, "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input value tensor must match, but we got boundaries tensor %s and input value tensor %s",
                             ctc__shape_str(seq, b1, sizeof b1), ctc__shape_str(v, b2, sizeof b2));
    }
    if (sorter) {
        if (ct_get_dtype(sorter) != CT_INT64)
            return ctc__fail(CT_ERR_DTYPE, "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype %s", CT__DTNAME(ct_get_dtype(sorter)));
        int same = ct_ndim(sorter) == sd;
        for (int d = 0; same && d < sd; d++) same = ct_size(sorter, d) == ct_size(seq, d);
        if (!same)
            return ctc__fail(CT_ERR_SHAPE, "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor %sand got sorter tensor %s",
                             ctc__shape_str(seq, b1, sizeof b1), ctc__shape_str(sorter, b2, sizeof b2));
    }
    ct_dtype dt = ct_promote_types(ct_get_dtype(seq), ct_get_dtype(v));
    if (dt == CT_NUM_DTYPES)
        return ctc__fail(CT_ERR_DTYPE, "torch.searchsorted(): cannot promote %s and %s", ct_dtype_name(ct_get_dtype(seq)), ct_dtype_name(ct_get_dtype(v)));
    if (dt == CT_BOOL || ct_dtype_is_complex(dt)) return ctc__fail(CT_ERR_DTYPE, "\"searchsorted_out_cpu\" not implemented for '%s'", CT__DTNAME(dt));
    int tok = ct_scope_begin();
    ct_dtype cdt = dt == CT_FLOAT16 || dt == CT_BFLOAT16 ? CT_FLOAT32 : dt;
    ct_tensor *s = ct_contiguous(ct_to((ct_tensor *)seq, cdt)), *x = ct_contiguous(ct_to((ct_tensor *)v, cdt));
    if (s && sorter) {
        int64_t n = ct_size(seq, sd - 1);
        ct_tensor *lo = ct_numel(sorter) ? ct_amin(sorter, 0, NULL, 0) : NULL, *hi = lo ? ct_amax(sorter, 0, NULL, 0) : NULL;
        if (ct_numel(sorter) && (!lo || !hi)) return ctc__done(tok, NULL);
        int64_t l = lo ? ct_item_int(lo) : 0, h = lo ? ct_item_int(hi) : 0;
        if (lo && (l < 0 || h >= n)) {
            ct_scope_end(tok);
            return ctc__fail(CT_ERR_INDEX, "torch.searchsorted(): sorter index out of range: its values run from %lld to %lld for a sequence of length %lld",
                             (long long)l, (long long)h, (long long)n);
        }
        s = ct_contiguous(ct_gather(s, sd - 1, sorter));
    }
    return ctc__done(tok, s && x ? ctc__call_ss(s, x, out_int32, right) : NULL);
}
CTENSOR_API ct_tensor *ct_searchsorted(const ct_tensor *sorted_sequence, const ct_tensor *values, int out_int32, int right,
                                       const char *side, const ct_tensor *sorter) {
    return ctc__searchsorted("searchsorted", sorted_sequence, values, out_int32, right, side, sorter);
}
/* a number as PyTorch wraps it: in seq's dtype when floating, int64 for a whole
   number beside an integral seq, else float64 */
static ct_tensor *ctc__wrap_number(const ct_tensor *like, double value) {
    ct_dtype dt = ct_get_dtype(like);
    ct_dtype vt = ct_dtype_is_floating(dt) ? dt : value == floor(value) && fabs(value) < 9.2e18 ? CT_INT64 : CT_FLOAT64;
    return ct_scalar_tensor_on(ct_get_device(like), value, vt);
}
CTENSOR_API ct_tensor *ct_searchsorted_scalar(const ct_tensor *sorted_sequence, double value, int out_int32, int right,
                                              const char *side, const ct_tensor *sorter) {
    CTC__ARG("searchsorted", sorted_sequence);
    int tok = ct_scope_begin();
    ct_tensor *v = ctc__wrap_number(sorted_sequence, value);
    return ctc__done(tok, v ? ctc__searchsorted("searchsorted", sorted_sequence, v, out_int32, right, side, sorter) : NULL);
}
static ct_tensor *ctc__bucketize(const ct_tensor *input, const ct_tensor *boundaries, int out_int32, int right) {
    CTC__ARG("bucketize", boundaries);
    CTC__ARG("bucketize", input);
    if (ct_ndim(boundaries) != 1) return ctc__fail(CT_ERR_SHAPE, "boundaries tensor must be 1 dimension, but got dim(%d)", ct_ndim(boundaries));
    return ctc__searchsorted("bucketize", boundaries, input, out_int32, right, NULL, NULL);
}
CTENSOR_API ct_tensor *ct_bucketize(const ct_tensor *input, const ct_tensor *boundaries, int out_int32, int right) {
    return ctc__bucketize(input, boundaries, out_int32, right);
}
CTENSOR_API ct_tensor *ct_bucketize_scalar(double input, const ct_tensor *boundaries, int out_int32, int right) {
    CTC__ARG("bucketize", boundaries);
    int tok = ct_scope_begin();
    ct_tensor *v = ctc__wrap_number(boundaries, input);
    return ctc__done(tok, v ? ctc__bucketize(v, boundaries, out_int32, right) : NULL);
}

/* ---- logcumsumexp: a scan with a kernel of its own ----
   in[0]: contiguous float32 or float64; the scan runs along dim (attrs i[0]) */
static int ctc__meta_lcse(ct__call *c) {
    const ct_tensor *x = c->in[0];
    if (x->dtype != CT_FLOAT32 && x->dtype != CT_FLOAT64)
        return ct__failed(CT_ERR_DTYPE, "\"logcumsumexp_out_cpu\" not implemented for '%s'", CT__DTNAME(x->dtype));
    if (ct__dim("logcumsumexp", c->a->i[0], x->ndim) < 0) return -1;
    if (!ct__is_contig(x)) return ct__failed(CT_ERR_ARG, "logcumsumexp: the op takes a contiguous operand");
    ct__outinfo *o = &c->oi[0];
    c->nout = 1;
    c->cdt = x->dtype;
    o->kind = CT__OUT_NEW;
    o->has_strides = 0;
    o->dtype = x->dtype;
    o->ndim = x->ndim;
    for (int d = 0; d < x->ndim; d++) o->shape[d] = x->shape[d];
    return 0;
}
/* log(exp(x) + exp(acc)), PyTorch's _log_add_exp_helper: the larger plus
   log1p(exp(smaller - larger)); two infinities of one sign give x; NaN spreads */
static double ctc__lae(double x, double acc) {
    double mn = isnan(acc) ? acc : (acc < x ? acc : x), mx = isnan(acc) ? acc : (x < acc ? acc : x);
    if (mn != mx || isfinite(mn)) return log1p(exp(mn - mx)) + mx;
    return x;
}
typedef struct ctc__lcse_job { const char *x; char *y; int64_t nk, ni, nib; int f64; } ctc__lcse_job;   /* nk steps of ni columns */
#define CTC__LCSE_IB 256
/* w lines (at most CTC__LCSE_IB) from element `at`, line q's step k at
   at + q * ls + k * ks, scanned step by step across the lines (their dependency
   chains overlap), accumulated in float64 */
static void ctc__lcse_block(const ctc__lcse_job *j, int64_t at, int64_t w, int64_t ls, int64_t ks) {
    double acc[CTC__LCSE_IB];
    for (int64_t q = 0; q < w; q++) acc[q] = -INFINITY;
    for (int64_t k = 0; k < j->nk; k++, at += ks) {
        if (j->f64) {
            const double *x = (const double *)j->x + at;
            double *y = (double *)j->y + at;
            for (int64_t q = 0; q < w; q++) y[q * ls] = acc[q] = ctc__lae(x[q * ls], acc[q]);
        } else {
            const float *x = (const float *)j->x + at;
            float *y = (float *)j->y + at;
            for (int64_t q = 0; q < w; q++) y[q * ls] = (float)(acc[q] = ctc__lae((double)x[q * ls], acc[q]));
        }
    }
}
/* task t: outer index t / nib, inner columns [(t % nib) * IB, +IB), contiguous */
static void ctc__lcse_tasks(void *ctx, int64_t lo, int64_t hi) {
    const ctc__lcse_job *j = (const ctc__lcse_job *)ctx;
    for (int64_t t = lo; t < hi; t++) {
        int64_t o = t / j->nib, i0 = (t % j->nib) * CTC__LCSE_IB, w = j->ni - i0 < CTC__LCSE_IB ? j->ni - i0 : CTC__LCSE_IB;
        ctc__lcse_block(j, o * j->nk * j->ni + i0, w, 1, j->ni);
    }
}
/* a scan along the last dim (one column per line): task t takes lines
   [t * IB, +IB) of the nib lines */
static void ctc__lcse_rows(void *ctx, int64_t lo, int64_t hi) {
    const ctc__lcse_job *j = (const ctc__lcse_job *)ctx;
    for (int64_t t = lo; t < hi; t++) {
        int64_t r0 = t * CTC__LCSE_IB, w = j->nib - r0 < CTC__LCSE_IB ? j->nib - r0 : CTC__LCSE_IB;
        ctc__lcse_block(j, r0 * j->nk, w, j->nk, 1);
    }
}
static int ctc__k_lcse(ct__call *c) {
    const ct_tensor *x = c->in[0];
    int d = ct__dim("logcumsumexp", c->a->i[0], x->ndim);
    if (d < 0) return -1;
    ctc__lcse_job j;
    j.x = (const char *)ct__ptr(x);
    j.y = (char *)ct__ptr(c->out[0]);
    j.f64 = x->dtype == CT_FLOAT64;
    j.nk = x->ndim ? x->shape[d] : 1;
    j.ni = 1;
    for (int q = d + 1; q < x->ndim; q++) j.ni *= x->shape[q];
    int64_t n = ct__shape_numel(x->ndim, x->shape), O = j.nk > 0 && j.ni > 0 ? n / (j.nk * j.ni) : 0;
    if (n == 0) return 0;
    if (j.ni == 1 && O > 1) {   /* along the last dim: blocks of lines */
        j.nib = O;
        int64_t per = j.nk * (O < CTC__LCSE_IB ? O : CTC__LCSE_IB);
        ct__par_for((O + CTC__LCSE_IB - 1) / CTC__LCSE_IB, per >= 4096 ? 1 : 4096 / per + 1, ctc__lcse_rows, &j);
        return 0;
    }
    j.nib = (j.ni + CTC__LCSE_IB - 1) / CTC__LCSE_IB;
    int64_t per = j.nk * (j.ni < CTC__LCSE_IB ? j.ni : CTC__LCSE_IB);   /* elements a task scans */
    ct__par_for(O * j.nib, per >= 4096 ? 1 : 4096 / per + 1, ctc__lcse_tasks, &j);
    return 0;
}
/* PyTorch's logcumsumexp_backward: grad_j = sum over i >= j of g_i exp(x_j - y_i),
   as exp(x_j + reverse logcumsumexp(log|g| - y)) for the positive and the negative
   g apart (log 0 as the dtype's lowest number) */
static int ctc__bw_lcse(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *X = CT__SV_IN(n, 0), *Y = CT__SV_OUT(n, 0), *g = gout[0];
    if (!X || !Y) return -1;
    if (ct_ndim(g) == 0 || ct_numel(g) == 0) { gin[0] = g; return 0; }
    int64_t d = ct__dim("logcumsumexp", n->attrs.i[0], ct_ndim(X));
    if (d < 0) return -1;
    double lowest = ct_get_dtype(g) == CT_FLOAT64 ? -DBL_MAX : -FLT_MAX;
    ct_tensor *lg = ct_log(ct_abs(g)), *part[2];
    for (int s = 0; s < 2; s++) {
        ct_tensor *sel = s ? ct_lt_scalar(g, 0.0) : ct_gt_scalar(g, 0.0);
        ct_tensor *lgs = ct_sub(ct_where(sel, lg, ct_full_like(lg, lowest)), Y);
        ct_tensor *rev = ct_flip(ct_logcumsumexp(ct_flip(lgs, 1, &d), (int)d), 1, &d);
        part[s] = ct_exp(ct_add(rev, X));
    }
    gin[0] = ct_sub(part[0], part[1]);
    return gin[0] ? 0 : -1;
}
CTENSOR_API ct_tensor *ct_logcumsumexp(const ct_tensor *x, int dim) {
    CTC__ARG("logcumsumexp", x);
    ct_dtype dt = ct_get_dtype(x);
    if (dt != CT_FLOAT32 && dt != CT_FLOAT64 && dt != CT_BFLOAT16)
        return ctc__fail(CT_ERR_DTYPE, "logcumsumexp: \"logcumsumexp_out_cpu\" not implemented for '%s'", CT__DTNAME(dt));
    ct__ctc_register_now();
    if (ct__ctc_base < 0) return ctc__fail(CT_ERR_STATE, "ctensor_composite.h: its ops could not be registered");
    int tok = ct_scope_begin();
    ct_tensor *in = dt == CT_BFLOAT16 ? ct_to(x, CT_FLOAT32) : (ct_tensor *)x;
    if (in && !ct__is_contig(in)) in = ct_contiguous(in);
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = dim;
    ct_tensor *r = in ? ct__call1(ct__ctc_base + CTC__LOGCUMSUMEXP, 1, &in, &a) : NULL;
    if (r && dt == CT_BFLOAT16) r = ct_to(r, CT_BFLOAT16);
    return ctc__done(tok, r);
}

/* ---- histogram: counted through searchsorted (declared in 1e) ---- */
static ct_tensor *ctc__histogram(const ct_tensor *x, const ct_tensor *edges, const ct_tensor *weight, int density, ct_tensor **bin_edges) {
    ct_dtype dt = ct_get_dtype(x);
    if (weight && !ct_same_shape(weight, x)) {
        return ctc__fail(CT_ERR_SHAPE, "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor excluding its innermost dimension, but got input with shape [%lld, 1] and weight with shape %s",
                         (long long)ct_numel(x), CT__SHAPE(weight));
    }
    int tok = ct_scope_begin();
    int64_t ne = ct_numel(edges), nb = ne - 1;
    ct_tensor *v = ct_ravel(x), *e = ct_contiguous(edges);
    ct_tensor *lo = ct_narrow(e, 0, 0, 1), *hi = ct_narrow(e, 0, nb, 1);
    /* bin i: e_i <= v < e_i+1 (the last edge in the last bin): the count of edges
       <= v, less one; elements outside [e_0, e_n] go to a spare bin, dropped */
    ct_tensor *inside = ct_logical_and(ct_ge(v, lo), ct_le(v, hi));
    ct_tensor *pos = ct_clamp(ct_sub_scalar(ct_searchsorted(e, v, 0, 1, NULL, NULL), 1.0), 0.0, (double)(nb - 1));
    ct_tensor *b = ct_where_scalar(inside, pos, (double)nb);
    ct_tensor *src = weight ? ct_to(ct_ravel(weight), dt) : ct_ones(dt, ct_numel(v));
    ct_tensor *h = b && src ? ct_scatter_add(ct_zeros(dt, nb + 1), 0, b, src) : NULL;
    h = h ? ct_contiguous(ct_narrow(h, 0, 0, nb)) : NULL;
    if (h && density) h = ct_div(ct_div(h, ct_sum(h)), ct_sub(ct_narrow(e, 0, 1, nb), ct_narrow(e, 0, 0, nb)));
    if (!h) { ct_scope_end(tok); return NULL; }
    ct_keep(h);
    if (bin_edges) { ct_keep(e); *bin_edges = e; }
    ct_scope_end(tok);
    return h;
}
static int ctc__hist_input(const char *api, const ct_tensor *x) {
    ct_dtype dt = ct_get_dtype(x);
    if (dt != CT_FLOAT32 && dt != CT_FLOAT64) {
        ct_set_error(CT_ERR_DTYPE, "%s: \"histogramdd\" not implemented for '%s'", api, CT__DTNAME(dt));
        return -1;
    }
    return 0;
}
CTENSOR_API ct_tensor *ct_histogram(const ct_tensor *input, int64_t bins, const double *range, const ct_tensor *weight, int density,
                                    ct_tensor **bin_edges) {
    CTC__ARG("histogram", input);
    if (ctc__hist_input("histogram", input)) return NULL;
    if (bins <= 0) return ctc__fail(CT_ERR_ARG, "torch.histogram(): bins must be > 0, but got %lld for dimension 0", (long long)bins);
    if (bins > ((int64_t)1 << 40)) return ctc__fail(CT_ERR_ARG, "torch.histogram(): %lld bins are too many", (long long)bins);
    double lo = 0, hi = 1;
    if (range) {
        lo = range[0];
        hi = range[1];
        if (lo > hi) return ctc__fail(CT_ERR_ARG, "torch.histogramdd: min should not exceed max, but got min %g max %g for dimension 0", lo, hi);
    } else if (ct_numel(input) > 0) {
        int tok = ct_scope_begin();
        lo = ct_item(ct_amin(input, 0, NULL, 0));
        hi = ct_item(ct_amax(input, 0, NULL, 0));
        ct_scope_end(tok);
    }
    if (!isfinite(lo) || !isfinite(hi))
        return ctc__fail(CT_ERR_ARG, "torch.histogramdd: dimension 0's range [%g, %g] is not finite", lo, hi);
    if (lo == hi) { lo -= 0.5; hi += 0.5; }
    int tok = ct_scope_begin();
    ct_tensor *e = ct_linspace(lo, hi, bins + 1, ct_get_dtype(input));
    ct_tensor *h = e ? ctc__histogram(input, e, weight, density, bin_edges) : NULL;
    if (h && bin_edges) ct_keep(*bin_edges);
    return ctc__done(tok, h);
}
CTENSOR_API ct_tensor *ct_histogram_bins(const ct_tensor *input, const ct_tensor *bins, const ct_tensor *weight, int density,
                                         ct_tensor **bin_edges) {
    CTC__ARG("histogram", input);
    CTC__ARG("histogram", bins);
    if (ctc__hist_input("histogram", input)) return NULL;
    if (ct_ndim(bins) != 1)
        return ctc__fail(CT_ERR_SHAPE, "torch.histogramdd: bins tensor should have one dimension, but got %d dimensions in the bins tensor for dimension 0", ct_ndim(bins));
    if (ct_get_dtype(bins) != ct_get_dtype(input))
        return ctc__fail(CT_ERR_DTYPE, "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input with dtype %s and bins for dimension 0 with dtype %s",
                         ct__dt[ct_get_dtype(input)].cpp_name, ct__dt[ct_get_dtype(bins)].cpp_name);
    if (ct_numel(bins) < 1) return ctc__fail(CT_ERR_ARG, "torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements for dimension 0");
    return ctc__histogram(input, bins, weight, density, bin_edges);
}

#ifdef __cplusplus
}
#endif
#endif /* CTENSOR_COMPOSITE_IMPLEMENTATION_DONE */
#endif /* CTENSOR_COMPOSITE_IMPLEMENTATION */
