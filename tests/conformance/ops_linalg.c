/* Conformance handlers: torch.linalg.* and torch.cholesky_solve, cholesky_inverse,
   logdet, trace (ctensor_linalg.h).

   Outputs unique only up to sign or order are normalised here, inside the
   handler and with differentiable ops (products with constant signs, a
   permutation matrix), so that gradients are taken through exactly what the
   fixture stored (CONFORMANCE.md):
     eigh / svd: the largest-|entry| of each eigenvector / U column positive, the
       matching Vh row flipped with it; without a partner (full_matrices) a
       vector gets its own largest-|entry| positive.
     qr: diag(R) real and >= 0 (extra columns of a complete Q: largest-|entry| positive).
     eig / eigvals: eigenvalues as real parts (out0) and imaginary parts (out1),
       sorted by (real, imag).
   Case args beyond PyTorch's keywords (written by tests/reference/cases_linalg.py):
     "_outputs": [i, ...]  the case stores only these outputs of the op;
     "compose": "V_expw_Vt" (eigh -> w, V diag(exp(w)) V^T) or "U_Vh" (svd -> S, U Vh):
       gauge-invariant outputs for gradient cases. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "conf.h"
#include "ctensor_linalg.h"

#define IN(k) (c->in[k])
#define ONE(expr) do { out[0] = (expr); return out[0] ? 1 : -1; } while (0)

/* ---- normalisations ---- */
/* signs (..., 1, k) of the largest-|entry| of each column of V (..., n, k), 0 -> 1 */
static ct_tensor *colsign(const ct_tensor *V) {
    if (!V) return NULL;
    ct_tensor *v = ct_contiguous(ct_to(ct_detach(V), CT_FLOAT64));
    if (!v) return NULL;
    int nd = v->ndim;
    int64_t n = v->shape[nd - 2], k = v->shape[nd - 1], count = n > 0 && k > 0 ? ct_numel(v) / (n * k) : 0;
    int64_t shape[CT_MAX_DIMS];
    for (int d = 0; d < nd; d++) shape[d] = v->shape[d];
    shape[nd - 2] = 1;
    ct_tensor *s = ct_ones_n(CT_FLOAT64, nd, shape);
    if (!s) return NULL;
    const double *p = (const double *)ct_data_ptr(v);
    double *sp = (double *)ct_data_ptr(s);
    for (int64_t b = 0; b < count; b++)
        for (int64_t j = 0; j < k; j++) {
            double best = -1.0, val = 0.0;
            for (int64_t i = 0; i < n; i++) {
                double x = p[b * n * k + i * k + j];
                if (fabs(x) > best) { best = fabs(x); val = x; }
            }
            sp[b * k + j] = val < 0 ? -1.0 : 1.0;
        }
    return ct_to(s, V->dtype);
}
static ct_tensor *norm_eigh_V(ct_tensor *V) { return ct_mul(V, colsign(V)); }
/* svd: U columns set the signs; Vh rows follow; extra Vh rows sign themselves */
static void norm_svd(ct_tensor **U, ct_tensor **S, ct_tensor **Vh) {
    int64_t k = (*S)->shape[(*S)->ndim - 1], vr = (*Vh)->shape[(*Vh)->ndim - 2];
    ct_tensor *su = colsign(*U);
    ct_tensor *sv = ct_mT(ct_narrow(su, -1, 0, k));
    if (vr > k) {
        ct_tensor *own = ct_mT(colsign(ct_mT(*Vh)));
        ct_tensor *t = ct_zeros_like(own);
        ct_copy_(ct_narrow(t, -2, 0, k), sv);
        ct_copy_(ct_narrow(t, -2, k, vr - k), ct_narrow(own, -2, k, vr - k));
        sv = t;
    }
    *U = ct_mul(*U, su);
    *Vh = ct_mul(*Vh, sv);
}
/* d: the unit phase of each diag(R) entry (its sign when real), 1 for a zero; Q's
   columns are multiplied by d and R's rows by conj(d), so that diag(R) becomes |diag(R)| */
static void norm_qr(ct_tensor **Q, ct_tensor **R) {
    ct_tensor *g = ct_detach(ct_diagonal(*R, 0, -2, -1)), *d;
    if (g && ct_dtype_is_complex(g->dtype)) {
        ct_tensor *m = ct_abs(g), *zero = ct_eq_scalar(m, 0.0);
        d = ct_div(ct_where(zero, ct_ones_like(g), g), ct_where(zero, ct_ones_like(m), m));
    } else {
        d = ct_sign(g);
        d = ct_where(ct_eq_scalar(d, 0.0), ct_ones_like(d), d);
    }
    if (!d) { *Q = *R = NULL; return; }
    int64_t k = d->shape[d->ndim - 1], rr = (*R)->shape[(*R)->ndim - 2];
    if (rr > k) {   /* complete mode with m > n */
        ct_tensor *own = ct_squeeze_dim(colsign(*Q), -2);
        ct_tensor *t = ct_zeros_like(own);
        ct_copy_(ct_narrow(t, -1, 0, k), d);
        ct_copy_(ct_narrow(t, -1, k, rr - k), ct_narrow(own, -1, k, rr - k));
        d = t;
    }
    if (ct_numel(*Q) > 0) *Q = ct_mul(*Q, ct_unsqueeze(d, -2));
    *R = ct_mul(*R, ct_unsqueeze(ct_conj(d), -1));
}
/* eigenvalues (complex, (..., n)) -> real and imaginary parts sorted by (real, imag),
   through one view_as_real and a permutation matrix (differentiable) */
static int norm_eig(ct_tensor *L, ct_tensor **re, ct_tensor **im) {
    ct_tensor *R2 = ct_view_as_real(L);
    if (!R2) return -1;
    ct_tensor *rc = ct_contiguous(ct_to(ct_detach(R2), CT_FLOAT64));
    if (!rc) return -1;
    int nd = L->ndim;
    int64_t n = L->shape[nd - 1], count = n ? ct_numel(L) / n : 0;
    int64_t shape[CT_MAX_DIMS];
    for (int d = 0; d < nd; d++) shape[d] = L->shape[d];
    shape[nd] = n;
    ct_tensor *P = ct_zeros_n(CT_FLOAT64, nd + 1, shape);
    if (!P) return -1;
    const double *v = (const double *)ct_data_ptr(rc);
    double *pp = (double *)ct_data_ptr(P);
    int64_t order[64];
    if (n > 64) { ct_set_error(CT_ERR_ARG, "norm_eig: n > 64"); return -1; }
    for (int64_t b = 0; b < count; b++) {
        const double *e = v + 2 * b * n;
        for (int64_t i = 0; i < n; i++) order[i] = i;
        for (int64_t i = 1; i < n; i++) {   /* stable insertion sort by (re, im) */
            int64_t x = order[i], j = i - 1;
            while (j >= 0 && (e[2 * order[j]] > e[2 * x] || (e[2 * order[j]] == e[2 * x] && e[2 * order[j] + 1] > e[2 * x + 1]))) {
                order[j + 1] = order[j];
                j--;
            }
            order[j + 1] = x;
        }
        for (int64_t i = 0; i < n; i++) pp[b * n * n + i * n + order[i]] = 1.0;
    }
    P = ct_to(P, R2->dtype);
    ct_tensor *sorted = ct_matmul(P, R2);   /* (..., n, n) @ (..., n, 2) */
    *re = ct_select(sorted, -1, 0);
    *im = ct_select(sorted, -1, 1);
    return *re && *im ? 0 : -1;
}

/* ---- argument helpers ---- */
/* stores the selected outputs (args._outputs) of all[] into out[] */
static int pick(conf_case *c, ct_tensor **all, int nall, ct_tensor **out) {
    int64_t sel[CONF_MAX_OUT];
    int ns = conf_ints(c, "_outputs", sel, CONF_MAX_OUT);
    for (int i = 0; i < nall; i++) if (!all[i]) return -1;
    if (ns < 0) {
        for (int i = 0; i < nall; i++) out[i] = all[i];
        return nall;
    }
    for (int i = 0; i < ns; i++) {
        if (sel[i] < 0 || sel[i] >= nall) return -1;
        out[i] = all[sel[i]];
    }
    return ns;
}
/* ord / p argument as ctensor_linalg.h's string: "fro", "nuc", "inf", "2", ... (NULL = None) */
static const char *ord_str(conf_case *c, const char *key, char *buf, size_t cap) {
    if (!conf_has(c, key) || conf_is_null(c, key)) return NULL;
    const char *s = conf_str(c, key, NULL);
    if (s) return s;
    snprintf(buf, cap, "%.17g", conf_double(c, key, 2.0));
    return buf;
}
static double opt_double(conf_case *c, const char *key) {
    return conf_has(c, key) && !conf_is_null(c, key) ? conf_double(c, key, NAN) : NAN;
}

/* ---- handlers ---- */
static int h_cholesky(conf_case *c, ct_tensor **out) {
    ONE(conf_bool(c, "upper", 0) ? ct_linalg_cholesky_ex(IN(0), 1, 1, NULL) : ct_linalg_cholesky(IN(0)));
}
static int h_cholesky_ex(conf_case *c, ct_tensor **out) {
    ct_tensor *all[2];
    all[0] = ct_linalg_cholesky_ex(IN(0), conf_bool(c, "upper", 0), conf_bool(c, "check_errors", 0), &all[1]);
    return pick(c, all, 2, out);
}
static int h_inv(conf_case *c, ct_tensor **out) { ONE(ct_linalg_inv(IN(0))); }
static int h_inv_ex(conf_case *c, ct_tensor **out) {
    ct_tensor *all[2];
    all[0] = ct_linalg_inv_ex(IN(0), conf_bool(c, "check_errors", 0), &all[1]);
    return pick(c, all, 2, out);
}
static int h_solve(conf_case *c, ct_tensor **out) {
    ONE(conf_bool(c, "left", 1) ? ct_linalg_solve(IN(0), IN(1)) : ct_linalg_solve_ex(IN(0), IN(1), 0, 1, NULL));
}
static int h_solve_ex(conf_case *c, ct_tensor **out) {
    ct_tensor *all[2];
    all[0] = ct_linalg_solve_ex(IN(0), IN(1), conf_bool(c, "left", 1), conf_bool(c, "check_errors", 0), &all[1]);
    return pick(c, all, 2, out);
}
static int h_solve_triangular(conf_case *c, ct_tensor **out) {
    ONE(ct_linalg_solve_triangular(IN(0), IN(1), conf_bool(c, "upper", 0), conf_bool(c, "left", 1), conf_bool(c, "unitriangular", 0)));
}
static int h_lu_factor(conf_case *c, ct_tensor **out) {
    ct_linalg_lu_factor_result r = ct_linalg_lu_factor(IN(0), conf_bool(c, "pivot", 1));
    ct_tensor *all[2] = {r.LU, r.pivots};
    return pick(c, all, 2, out);
}
static int h_lu_factor_ex(conf_case *c, ct_tensor **out) {
    ct_linalg_lu_factor_result r = ct_linalg_lu_factor_ex(IN(0), conf_bool(c, "pivot", 1), conf_bool(c, "check_errors", 0));
    ct_tensor *all[3] = {r.LU, r.pivots, r.info};
    return pick(c, all, 3, out);
}
static int h_lu(conf_case *c, ct_tensor **out) {
    ct_linalg_lu_result r = ct_linalg_lu(IN(0), conf_bool(c, "pivot", 1));
    ct_tensor *all[3] = {r.P, r.L, r.U};
    return pick(c, all, 3, out);
}
static int h_lu_solve(conf_case *c, ct_tensor **out) {
    ONE(ct_linalg_lu_solve(IN(0), IN(1), IN(2), conf_bool(c, "left", 1), conf_bool(c, "adjoint", 0)));
}
static int h_det(conf_case *c, ct_tensor **out) { ONE(ct_linalg_det(IN(0))); }
static int h_slogdet(conf_case *c, ct_tensor **out) {
    ct_linalg_slogdet_result r = ct_linalg_slogdet(IN(0));
    ct_tensor *all[2] = {r.sign, r.logabsdet};
    return pick(c, all, 2, out);
}
static int h_logdet(conf_case *c, ct_tensor **out) { ONE(ct_logdet(IN(0))); }
static int h_trace(conf_case *c, ct_tensor **out) { ONE(ct_trace(IN(0))); }
static int h_cholesky_solve(conf_case *c, ct_tensor **out) { ONE(ct_cholesky_solve(IN(0), IN(1), conf_bool(c, "upper", 0))); }
static int h_cholesky_inverse(conf_case *c, ct_tensor **out) { ONE(ct_cholesky_inverse(IN(0), conf_bool(c, "upper", 0))); }
static int h_qr(conf_case *c, ct_tensor **out) {
    ct_linalg_qr_result r = ct_linalg_qr(IN(0), conf_str(c, "mode", "reduced"));
    if (!r.Q) return -1;
    norm_qr(&r.Q, &r.R);
    ct_tensor *all[2] = {r.Q, r.R};
    return pick(c, all, 2, out);
}
static int h_eigh(conf_case *c, ct_tensor **out) {
    ct_linalg_eig_result r = ct_linalg_eigh(IN(0), conf_str(c, "UPLO", "L"));
    if (!r.eigenvalues) return -1;
    const char *comp = conf_str(c, "compose", NULL);
    ct_tensor *all[2];
    all[0] = r.eigenvalues;
    if (comp && !strcmp(comp, "V_expw_Vt")) {
        ct_tensor *V = r.eigenvectors;
        all[1] = ct_matmul(ct_mul(V, ct_unsqueeze(ct_exp(r.eigenvalues), -2)), ct_mT(V));
    } else {
        all[1] = norm_eigh_V(r.eigenvectors);
    }
    return pick(c, all, 2, out);
}
static int h_eigvalsh(conf_case *c, ct_tensor **out) { ONE(ct_linalg_eigvalsh(IN(0), conf_str(c, "UPLO", "L"))); }
static int h_eig(conf_case *c, ct_tensor **out) {
    ct_linalg_eig_result r = ct_linalg_eig(IN(0));
    if (!r.eigenvalues) return -1;
    ct_tensor *all[2];
    if (norm_eig(r.eigenvalues, &all[0], &all[1])) return -1;
    return pick(c, all, 2, out);
}
static int h_eigvals(conf_case *c, ct_tensor **out) {
    ct_tensor *L = ct_linalg_eigvals(IN(0)), *all[2];
    if (!L || norm_eig(L, &all[0], &all[1])) return -1;
    return pick(c, all, 2, out);
}
static int h_svd(conf_case *c, ct_tensor **out) {
    const char *comp = conf_str(c, "compose", NULL);
    ct_linalg_svd_result r = ct_linalg_svd(IN(0), conf_bool(c, "full_matrices", comp ? 0 : 1));
    if (!r.S) return -1;
    ct_tensor *all[3];
    if (comp && !strcmp(comp, "U_Vh")) {
        all[0] = r.S;
        all[1] = ct_matmul(r.U, r.Vh);
        return pick(c, all, 2, out);
    }
    norm_svd(&r.U, &r.S, &r.Vh);
    all[0] = r.U;
    all[1] = r.S;
    all[2] = r.Vh;
    return pick(c, all, 3, out);
}
static int h_svdvals(conf_case *c, ct_tensor **out) { ONE(ct_linalg_svdvals(IN(0))); }
static int h_lstsq(conf_case *c, ct_tensor **out) {
    ct_linalg_lstsq_result r = ct_linalg_lstsq(IN(0), IN(1), opt_double(c, "rcond"), conf_str(c, "driver", NULL));
    ct_tensor *all[4] = {r.solution, r.residuals, r.rank, r.singular_values};
    return pick(c, all, 4, out);
}
static int h_householder_product(conf_case *c, ct_tensor **out) { ONE(ct_linalg_householder_product(IN(0), IN(1))); }
static int h_pinv(conf_case *c, ct_tensor **out) {
    ONE(ct_linalg_pinv(IN(0), opt_double(c, "atol"), opt_double(c, "rtol"), conf_bool(c, "hermitian", 0)));
}
static int h_matrix_exp(conf_case *c, ct_tensor **out) { ONE(ct_linalg_matrix_exp(IN(0))); }
static int h_vector_norm(conf_case *c, ct_tensor **out) {
    int64_t dims[CT_MAX_DIMS];
    int nd = conf_ints(c, "dim", dims, CT_MAX_DIMS);
    ONE(ct_linalg_vector_norm(IN(0), conf_double(c, "ord", 2.0), nd < 0 ? 0 : nd, dims, conf_bool(c, "keepdim", 0)));
}
static int h_matrix_norm(conf_case *c, ct_tensor **out) {
    char buf[64];
    int64_t dims[2];
    int nd = conf_ints(c, "dim", dims, 2);
    const char *ord = ord_str(c, "ord", buf, sizeof buf);
    ONE(ct_linalg_matrix_norm(IN(0), ord ? ord : "fro", nd == 2 ? dims : NULL, conf_bool(c, "keepdim", 0)));
}
static int h_norm(conf_case *c, ct_tensor **out) {
    char buf[64];
    int64_t dims[CT_MAX_DIMS];
    int nd = conf_ints(c, "dim", dims, CT_MAX_DIMS);
    ONE(ct_linalg_norm(IN(0), ord_str(c, "ord", buf, sizeof buf), nd < 0 ? 0 : nd, dims, conf_bool(c, "keepdim", 0)));
}
static int h_cond(conf_case *c, ct_tensor **out) {
    char buf[64];
    ONE(ct_linalg_cond(IN(0), ord_str(c, "p", buf, sizeof buf)));
}
static int h_matrix_rank(conf_case *c, ct_tensor **out) {
    ONE(ct_linalg_matrix_rank(IN(0), opt_double(c, "atol"), opt_double(c, "rtol"), conf_bool(c, "hermitian", 0)));
}
static int h_matrix_power(conf_case *c, ct_tensor **out) { ONE(ct_linalg_matrix_power(IN(0), conf_int(c, "n", 1))); }
static int h_multi_dot(conf_case *c, ct_tensor **out) { ONE(ct_linalg_multi_dot(c->nin, c->in)); }
static int h_tensorinv(conf_case *c, ct_tensor **out) { ONE(ct_linalg_tensorinv(IN(0), (int)conf_int(c, "ind", 2))); }
static int h_tensorsolve(conf_case *c, ct_tensor **out) {
    int64_t dims[CT_MAX_DIMS];
    int nd = conf_ints(c, "dims", dims, CT_MAX_DIMS);
    ONE(ct_linalg_tensorsolve(IN(0), IN(1), nd < 0 ? 0 : nd, dims));
}
static int h_cross(conf_case *c, ct_tensor **out) { ONE(ct_linalg_cross(IN(0), IN(1), (int)conf_int(c, "dim", -1))); }
static int h_diagonal(conf_case *c, ct_tensor **out) {
    ONE(ct_linalg_diagonal(IN(0), conf_int(c, "offset", 0), (int)conf_int(c, "dim1", -2), (int)conf_int(c, "dim2", -1)));
}
static int h_vecdot(conf_case *c, ct_tensor **out) { ONE(ct_linalg_vecdot(IN(0), IN(1), (int)conf_int(c, "dim", -1))); }
static int h_vander(conf_case *c, ct_tensor **out) {
    ONE(ct_linalg_vander(IN(0), conf_has(c, "N") && !conf_is_null(c, "N") ? conf_int(c, "N", -1) : -1));
}

const conf_op conf_ops_linalg[] = {
    {"torch.linalg.cholesky", h_cholesky, NULL},
    {"torch.linalg.cholesky_ex", h_cholesky_ex, NULL},
    {"torch.linalg.inv", h_inv, NULL},
    {"torch.linalg.inv_ex", h_inv_ex, NULL},
    {"torch.linalg.solve", h_solve, NULL},
    {"torch.linalg.solve_ex", h_solve_ex, NULL},
    {"torch.linalg.solve_triangular", h_solve_triangular, NULL},
    {"torch.linalg.lu_factor", h_lu_factor, NULL},
    {"torch.linalg.lu_factor_ex", h_lu_factor_ex, NULL},
    {"torch.linalg.lu", h_lu, NULL},
    {"torch.linalg.lu_solve", h_lu_solve, NULL},
    {"torch.linalg.det", h_det, NULL},
    {"torch.linalg.slogdet", h_slogdet, NULL},
    {"torch.logdet", h_logdet, NULL},
    {"torch.trace", h_trace, NULL},
    {"torch.cholesky_solve", h_cholesky_solve, NULL},
    {"torch.cholesky_inverse", h_cholesky_inverse, NULL},
    {"torch.linalg.qr", h_qr, NULL},
    {"torch.linalg.eigh", h_eigh, NULL},
    {"torch.linalg.eigvalsh", h_eigvalsh, NULL},
    {"torch.linalg.eig", h_eig, NULL},
    {"torch.linalg.eigvals", h_eigvals, NULL},
    {"torch.linalg.svd", h_svd, NULL},
    {"torch.linalg.svdvals", h_svdvals, NULL},
    {"torch.linalg.lstsq", h_lstsq, NULL},
    {"torch.linalg.householder_product", h_householder_product, NULL},
    {"torch.linalg.pinv", h_pinv, NULL},
    {"torch.linalg.matrix_exp", h_matrix_exp, NULL},
    {"torch.linalg.vector_norm", h_vector_norm, NULL},
    {"torch.linalg.matrix_norm", h_matrix_norm, NULL},
    {"torch.linalg.norm", h_norm, NULL},
    {"torch.linalg.cond", h_cond, NULL},
    {"torch.linalg.matrix_rank", h_matrix_rank, NULL},
    {"torch.linalg.matrix_power", h_matrix_power, NULL},
    {"torch.linalg.multi_dot", h_multi_dot, NULL},
    {"torch.linalg.tensorinv", h_tensorinv, NULL},
    {"torch.linalg.tensorsolve", h_tensorsolve, NULL},
    {"torch.linalg.cross", h_cross, NULL},
    {"torch.linalg.diagonal", h_diagonal, NULL},
    {"torch.linalg.vecdot", h_vecdot, NULL},
    {"torch.linalg.vander", h_vander, NULL},
    {0, 0, 0},
};
