"""torch.linalg (and torch.cholesky_solve, cholesky_inverse, logdet, trace):
values, batches, broadcasting, non-contiguous inputs, edge shapes (1x1, empty
batches, identities, ill-conditioned within reason), n > 16 (the LAPACK paths;
smaller matrices use ctensor's own kernels), gradients, and errors.

Conventions for outputs unique only up to sign/order (CONFORMANCE.md):
  eigh / svd: the largest-|entry| of each eigenvector / U column is made
  positive (svd flips the matching Vh row); qr: diag(R) >= 0; eig / eigvals:
  eigenvalues as real parts (out0) and imaginary parts (out1), sorted by
  (real, imag). The normalisation multiplies by constant signs, so gradients
  through normalised outputs are well defined (distinct eigen/singular values).
Extra args the ctensor handlers understand (PyTorch ignores them):
  "_outputs": [i, ...]  the case stores only these outputs of the op
  "compose": "V_expw_Vt" (eigh: outputs w and V diag(exp(w)) V^T) or "U_Vh"
             (svd: outputs S and U @ Vh): gauge-invariant quantities for gradients.
"""
import numpy as np
import torch

FAM = "linalg"
F64 = torch.float64
F32 = torch.float32


def rnd(*shape, dtype=F64):
    return torch.randn(*shape, dtype=F64).to(dtype)


def spd(n, *batch, dtype=F64, shift=None):
    x = torch.randn(*batch, n, n, dtype=F64)
    a = x @ x.mT + (n if shift is None else shift) * torch.eye(n, dtype=F64)
    return a.to(dtype)


def wellcond(n, *batch, dtype=F64):
    return (torch.randn(*batch, n, n, dtype=F64) + 2.0 * n ** 0.5 * torch.eye(n, dtype=F64)).to(dtype)


def sym(n, *batch, dtype=F64):
    x = torch.randn(*batch, n, n, dtype=F64)
    return ((x + x.mT) / 2).to(dtype)


def hilbert(n):
    i = torch.arange(n, dtype=F64)
    return 1.0 / (i[:, None] + i[None, :] + 1.0)


# ---- normalisations (CONFORMANCE.md), as differentiable products with constant signs ----
def colsign(V):
    """sign of the largest-|entry| of each column (..., n, k) -> (..., 1, k)"""
    idx = V.detach().abs().argmax(dim=-2, keepdim=True)
    s = torch.gather(V.detach(), -2, idx).sign()
    return torch.where(s == 0, torch.ones_like(s), s)


def norm_eigh(w, V):
    return w, V * colsign(V)


def norm_svd(U, S, Vh):
    # full_matrices: U's extra columns and Vh's extra rows (no partner) get their own
    # largest-|entry| positive (unique when the complement has dimension 1)
    k = S.shape[-1]
    s = colsign(U)
    sv = colsign(Vh.mT).mT
    sv = torch.cat([s[..., :k].mT, sv[..., k:, :]], -2) if Vh.shape[-2] > k else s[..., :k].mT
    return U * s, S, Vh * sv


def norm_qr(Q, R):
    d = R.detach().diagonal(dim1=-2, dim2=-1).sign()
    d = torch.where(d == 0, torch.ones_like(d), d)
    extra = R.shape[-2] - d.shape[-1]   # complete mode with m > n: Q's extra columns get their
    if extra > 0:                        # largest-|entry| positive (R's extra rows are zero)
        d = torch.cat([d, colsign(Q)[..., 0, d.shape[-1]:]], -1)
    return (Q * d.unsqueeze(-2) if Q.numel() else Q), R * d.unsqueeze(-1)


def sort_complex(L):
    """eigenvalues sorted by (real, imag); returns (real, imag)"""
    key = L.detach()
    re, im = key.real, key.imag
    # lexicographic: sort by imag then stable sort by real
    o1 = torch.argsort(im, dim=-1, stable=True)
    re1 = torch.gather(re, -1, o1)
    o2 = torch.argsort(re1, dim=-1, stable=True)
    order = torch.gather(o1, -1, o2)
    Ls = torch.gather(L, -1, order)
    return torch.real(Ls), torch.imag(Ls)


class DetSVD(torch.autograd.Function):
    """det with the gradient PyTorch computes for singular inputs when it builds a
    graph (the SVD formula); its first-order path returns zeros there."""

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        return torch.linalg.det(A)

    @staticmethod
    def backward(ctx, g):
        (A,) = ctx.saved_tensors
        with torch.enable_grad():
            A2 = A.detach().requires_grad_()
            (gA,) = torch.autograd.grad(torch.linalg.det(A2), A2, grad_outputs=g, create_graph=True)
        return gA.detach()


def generate(w):
    torch.manual_seed(0)
    c = w.case
    L = torch.linalg

    # ---------------- cholesky ----------------
    np.random.seed(0)
    mu = np.random.rand(4)
    Lr = np.random.rand(4, 4)
    sigma = torch.from_numpy(Lr @ Lr.T + np.eye(4))
    c(FAM, "cholesky_mvn_sigma", "torch.linalg.cholesky", L.cholesky, [sigma],
      note="the torch.linalg announcement's covariance (np.random.seed(0))")
    c(FAM, "cholesky_f32", "torch.linalg.cholesky", L.cholesky, [spd(3, dtype=F32)])
    c(FAM, "cholesky_batched", "torch.linalg.cholesky", L.cholesky, [spd(5, 2, 3)])
    c(FAM, "cholesky_noncontig", "torch.linalg.cholesky", L.cholesky, [spd(4, 3)], permute=[[0, 2, 1]])
    c(FAM, "cholesky_1x1", "torch.linalg.cholesky", L.cholesky, [torch.tensor([[2.5]], dtype=F64)])
    c(FAM, "cholesky_empty_batch", "torch.linalg.cholesky", L.cholesky, [torch.zeros(0, 3, 3, dtype=F64)])
    c(FAM, "cholesky_identity", "torch.linalg.cholesky", L.cholesky, [torch.eye(4, dtype=F64)])
    c(FAM, "cholesky_upper", "torch.linalg.cholesky", lambda A: L.cholesky(A, upper=True), [spd(4)], args={"upper": True})
    c(FAM, "cholesky_n20", "torch.linalg.cholesky", L.cholesky, [spd(20)])
    c(FAM, "cholesky_n20_upper_batched", "torch.linalg.cholesky", lambda A: L.cholesky(A, upper=True), [spd(20, 2)],
      args={"upper": True})
    c(FAM, "cholesky_n20_f32", "torch.linalg.cholesky", L.cholesky, [spd(20, dtype=F32)], atol=1e-5)
    q, _ = torch.linalg.qr(torch.randn(6, 6, dtype=F64))
    illc = q @ torch.diag(torch.logspace(0, -7, 6, dtype=F64)) @ q.T
    illc = (illc + illc.T) / 2
    c(FAM, "cholesky_illcond", "torch.linalg.cholesky", L.cholesky, [illc], rtol=1e-7, atol=1e-9, grad_rtol=1e-3, grad_atol=1e-3,
      note="condition number 1e7")
    npd = torch.eye(4, dtype=F64)
    npd[2, 2] = -1
    c(FAM, "cholesky_err_not_pd", "torch.linalg.cholesky", L.cholesky, [npd], expect_error=True)
    c(FAM, "cholesky_err_not_pd_batch", "torch.linalg.cholesky", L.cholesky,
      [torch.stack([torch.eye(4, dtype=F64)] * 2 + [npd])], expect_error=True)
    npd20 = spd(20)
    npd20[10, 10] = -100
    c(FAM, "cholesky_err_not_pd_n20", "torch.linalg.cholesky", L.cholesky, [npd20], expect_error=True)
    c(FAM, "cholesky_err_int", "torch.linalg.cholesky", L.cholesky, [torch.ones(3, 3, dtype=torch.int64)], expect_error=True)
    c(FAM, "cholesky_err_nonsquare", "torch.linalg.cholesky", L.cholesky, [torch.ones(3, 4, dtype=F64)], expect_error=True)
    c(FAM, "cholesky_err_1d", "torch.linalg.cholesky", L.cholesky, [torch.ones(3, dtype=F64)], expect_error=True)
    c(FAM, "cholesky_ex", "torch.linalg.cholesky_ex", lambda A: tuple(L.cholesky_ex(A)), [spd(4, 2)])
    bad = torch.stack([spd(4), npd])
    c(FAM, "cholesky_ex_info", "torch.linalg.cholesky_ex", lambda A: L.cholesky_ex(A).info, [bad], args={"_outputs": [1]}, grad=False)

    # ---------------- inverse ----------------
    c(FAM, "inv_f64", "torch.linalg.inv", L.inv, [wellcond(3)])
    c(FAM, "inv_f32", "torch.linalg.inv", L.inv, [wellcond(4, dtype=F32)])
    c(FAM, "inv_announcement", "torch.linalg.inv", L.inv, [torch.tensor([[1.0, 2.0], [3.0, 4.0]])],
      note="the torch.linalg announcement's autograd example")
    c(FAM, "inv_batched", "torch.linalg.inv", L.inv, [wellcond(5, 2, 2)])
    c(FAM, "inv_noncontig", "torch.linalg.inv", L.inv, [wellcond(4, 3)], permute=[[2, 0, 1]])
    c(FAM, "inv_1x1", "torch.linalg.inv", L.inv, [torch.tensor([[4.0]], dtype=F64)])
    c(FAM, "inv_empty_batch", "torch.linalg.inv", L.inv, [torch.zeros(0, 4, 4, dtype=F64)])
    c(FAM, "inv_0x0", "torch.linalg.inv", L.inv, [torch.zeros(0, 0, dtype=F64)])
    c(FAM, "inv_identity", "torch.linalg.inv", L.inv, [torch.eye(5, dtype=F64)])
    c(FAM, "inv_n20", "torch.linalg.inv", L.inv, [wellcond(20)])
    c(FAM, "inv_n20_batched_f32", "torch.linalg.inv", L.inv, [wellcond(20, 2, dtype=F32)], atol=1e-5)
    c(FAM, "inv_hilbert6", "torch.linalg.inv", L.inv, [hilbert(6)], rtol=1e-5, atol=1e-3, grad=False,
      note="Hilbert matrix, condition number 1.5e7")
    sing = torch.eye(3, dtype=F64)
    sing[1, 1] = 0
    c(FAM, "inv_err_singular", "torch.linalg.inv", L.inv, [sing], expect_error=True)
    c(FAM, "inv_err_singular_batch", "torch.linalg.inv", L.inv, [torch.stack([torch.eye(3, dtype=F64), sing])], expect_error=True)
    sing20 = wellcond(20)
    sing20[:, 7] = 0
    c(FAM, "inv_err_singular_n20", "torch.linalg.inv", L.inv, [sing20], expect_error=True)
    c(FAM, "inv_err_int", "torch.linalg.inv", L.inv, [torch.ones(3, 3, dtype=torch.int64)], expect_error=True)
    c(FAM, "inv_err_nonsquare", "torch.linalg.inv", L.inv, [torch.ones(3, 4)], expect_error=True)
    c(FAM, "inv_ex", "torch.linalg.inv_ex", lambda A: tuple(L.inv_ex(A)), [wellcond(3, 2)])
    c(FAM, "inv_ex_info", "torch.linalg.inv_ex", lambda A: L.inv_ex(A).info, [torch.stack([torch.eye(3, dtype=F64), sing])],
      args={"_outputs": [1]}, grad=False)

    # ---------------- solve ----------------
    c(FAM, "solve_matrix", "torch.linalg.solve", L.solve, [wellcond(3), rnd(3, 2)])
    c(FAM, "solve_vector", "torch.linalg.solve", L.solve, [wellcond(3), rnd(3)])
    c(FAM, "solve_batched_vector", "torch.linalg.solve", L.solve, [wellcond(3, 2), rnd(2, 3)])
    c(FAM, "solve_broadcast", "torch.linalg.solve", L.solve, [wellcond(3, 2, 1), rnd(4, 3, 2)])
    c(FAM, "solve_broadcast_vec1d", "torch.linalg.solve", L.solve, [wellcond(3, 2), rnd(3)])
    c(FAM, "solve_noncontig", "torch.linalg.solve", L.solve, [wellcond(4, 2), rnd(2, 4, 2)], permute=[[0, 2, 1], [0, 2, 1]])
    c(FAM, "solve_left_false", "torch.linalg.solve", lambda A, B: L.solve(A, B, left=False), [wellcond(3), rnd(2, 3)],
      args={"left": False})
    c(FAM, "solve_f32", "torch.linalg.solve", L.solve, [wellcond(4, dtype=F32), rnd(4, 3, dtype=F32)])
    c(FAM, "solve_n20", "torch.linalg.solve", L.solve, [wellcond(20), rnd(20, 3)])
    c(FAM, "solve_n20_vector_batched", "torch.linalg.solve", L.solve, [wellcond(20, 2), rnd(2, 20)])
    c(FAM, "solve_1x1", "torch.linalg.solve", L.solve, [torch.tensor([[2.0]], dtype=F64), rnd(1, 3)])
    c(FAM, "solve_empty_batch", "torch.linalg.solve", L.solve, [torch.zeros(0, 3, 3, dtype=F64), torch.zeros(0, 3, 2, dtype=F64)])
    c(FAM, "solve_err_singular", "torch.linalg.solve", L.solve, [sing, rnd(3, 1)], expect_error=True)
    c(FAM, "solve_err_singular_batch", "torch.linalg.solve", L.solve, [torch.zeros(2, 3, 3, dtype=F64), rnd(3)], expect_error=True)
    c(FAM, "solve_err_shape", "torch.linalg.solve", L.solve, [torch.eye(3, dtype=F64), rnd(4, 1)], expect_error=True)
    c(FAM, "solve_err_dtype", "torch.linalg.solve", L.solve, [torch.eye(3, dtype=F64), torch.ones(3, 1)], expect_error=True)
    c(FAM, "solve_ex", "torch.linalg.solve_ex", lambda A, B: tuple(L.solve_ex(A, B)), [wellcond(3, 2), rnd(2, 3, 2)])

    # ---------------- solve_triangular ----------------
    tri_u = torch.triu(wellcond(4))
    tri_l = torch.tril(wellcond(4))
    c(FAM, "solve_triangular_upper", "torch.linalg.solve_triangular", lambda A, B: L.solve_triangular(A, B, upper=True),
      [tri_u, rnd(4, 2)], args={"upper": True})
    c(FAM, "solve_triangular_lower_reads_triangle", "torch.linalg.solve_triangular",
      lambda A, B: L.solve_triangular(A, B, upper=False), [wellcond(4), rnd(4, 3)], args={"upper": False},
      note="A is full: only its lower triangle is used (and differentiated)")
    c(FAM, "solve_triangular_right", "torch.linalg.solve_triangular",
      lambda A, B: L.solve_triangular(A, B, upper=True, left=False), [tri_u, rnd(3, 4)], args={"upper": True, "left": False})
    c(FAM, "solve_triangular_unit", "torch.linalg.solve_triangular",
      lambda A, B: L.solve_triangular(A, B, upper=False, unitriangular=True), [tri_l, rnd(4, 2)],
      args={"upper": False, "unitriangular": True})
    c(FAM, "solve_triangular_broadcast", "torch.linalg.solve_triangular",
      lambda A, B: L.solve_triangular(A, B, upper=True), [torch.triu(wellcond(3, 2, 1)), rnd(3, 3, 2)], args={"upper": True})
    c(FAM, "solve_triangular_transposed_A", "torch.linalg.solve_triangular",
      lambda A, B: L.solve_triangular(A, B, upper=False), [wellcond(5), rnd(5, 2)], args={"upper": False},
      permute=[[1, 0], None], note="A is a transposed view: trsm on its memory with the other triangle")
    c(FAM, "solve_triangular_f32_n20", "torch.linalg.solve_triangular",
      lambda A, B: L.solve_triangular(A, B, upper=True), [torch.triu(wellcond(20, dtype=F32)), rnd(20, 3, dtype=F32)],
      args={"upper": True}, atol=1e-5)
    c(FAM, "solve_triangular_err_shape", "torch.linalg.solve_triangular",
      lambda A, B: L.solve_triangular(A, B, upper=True), [tri_u, rnd(5, 1)], args={"upper": True}, expect_error=True)

    # ---------------- LU ----------------
    c(FAM, "lu_factor_square", "torch.linalg.lu_factor", lambda A: tuple(L.lu_factor(A)), [wellcond(4)])
    c(FAM, "lu_factor_batched", "torch.linalg.lu_factor", lambda A: tuple(L.lu_factor(A)), [rnd(2, 3, 3)])
    c(FAM, "lu_factor_wide", "torch.linalg.lu_factor", lambda A: tuple(L.lu_factor(A)), [rnd(3, 5)])
    c(FAM, "lu_factor_tall", "torch.linalg.lu_factor", lambda A: tuple(L.lu_factor(A)), [rnd(5, 3)])
    c(FAM, "lu_factor_n20", "torch.linalg.lu_factor", lambda A: tuple(L.lu_factor(A)), [rnd(20, 20)])
    c(FAM, "lu_factor_n20_wide", "torch.linalg.lu_factor", lambda A: tuple(L.lu_factor(A)), [rnd(17, 20)])
    c(FAM, "lu_factor_n20_tall", "torch.linalg.lu_factor", lambda A: tuple(L.lu_factor(A)), [rnd(20, 17)])
    c(FAM, "lu_factor_f32_noncontig", "torch.linalg.lu_factor", lambda A: tuple(L.lu_factor(A)), [rnd(4, 4, dtype=F32)],
      permute=[[1, 0]])
    c(FAM, "lu_factor_err_singular", "torch.linalg.lu_factor", lambda A: tuple(L.lu_factor(A)), [sing], expect_error=True)
    c(FAM, "lu_factor_err_1d", "torch.linalg.lu_factor", lambda A: tuple(L.lu_factor(A)), [rnd(3)], expect_error=True)
    c(FAM, "lu_factor_ex_info", "torch.linalg.lu_factor_ex", lambda A: tuple(L.lu_factor_ex(A)),
      [torch.stack([wellcond(3), sing])], grad=False)
    c(FAM, "lu_square", "torch.linalg.lu", lambda A: tuple(L.lu(A)), [rnd(4, 4)])
    c(FAM, "lu_batched_wide", "torch.linalg.lu", lambda A: tuple(L.lu(A)), [rnd(2, 3, 5)])
    c(FAM, "lu_tall", "torch.linalg.lu", lambda A: tuple(L.lu(A)), [rnd(5, 3)])
    c(FAM, "lu_n20", "torch.linalg.lu", lambda A: tuple(L.lu(A)), [rnd(20, 20)])
    for left in (True, False):
        for adj in (False, True):
            A = wellcond(4)
            LU, piv = L.lu_factor(A)
            B = rnd(4, 2) if left else rnd(2, 4)
            c(FAM, "lu_solve_left%d_adj%d" % (left, adj), "torch.linalg.lu_solve",
              lambda LU, piv, B, left=left, adj=adj: L.lu_solve(LU, piv, B, left=left, adjoint=adj), [LU, piv, B],
              args={"left": left, "adjoint": adj})
    A20 = wellcond(20, 2)
    LU20, piv20 = L.lu_factor(A20)
    c(FAM, "lu_solve_n20_batched", "torch.linalg.lu_solve", L.lu_solve, [LU20, piv20, rnd(2, 20, 3)])
    c(FAM, "lu_solve_n20_adjoint", "torch.linalg.lu_solve", lambda LU, p, B: L.lu_solve(LU, p, B, adjoint=True),
      [LU20, piv20, rnd(20, 2)], args={"adjoint": True})
    c(FAM, "lu_solve_err_shape", "torch.linalg.lu_solve", L.lu_solve,
      [LU20[0], piv20[0], rnd(19, 2)], expect_error=True)

    # ---------------- determinants ----------------
    c(FAM, "det_f64", "torch.linalg.det", L.det, [rnd(3, 3)])
    c(FAM, "det_mvn_sigma", "torch.linalg.det", L.det, [sigma])
    c(FAM, "det_f32_batched", "torch.linalg.det", L.det, [rnd(2, 3, 4, 4, dtype=F32)])
    c(FAM, "det_noncontig", "torch.linalg.det", L.det, [rnd(2, 5, 5)], permute=[[1, 2, 0]])
    c(FAM, "det_1x1", "torch.linalg.det", L.det, [torch.tensor([[-3.0]], dtype=F64)])
    c(FAM, "det_empty_batch", "torch.linalg.det", L.det, [torch.zeros(0, 3, 3, dtype=F64)])
    c(FAM, "det_0x0", "torch.linalg.det", L.det, [torch.zeros(2, 0, 0, dtype=F64)])
    c(FAM, "det_identity", "torch.linalg.det", L.det, [torch.eye(6, dtype=F64)])
    c(FAM, "det_n20", "torch.linalg.det", L.det, [wellcond(20) / 4], rtol=1e-9)
    sg = torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], dtype=F64)
    c(FAM, "det_singular_grad", "torch.linalg.det", DetSVD.apply, [sg], atol=1e-12, grad_atol=1e-9,
      note="singular A: the gradient is the cofactor matrix (PyTorch's SVD formula, as with create_graph=True)")
    c(FAM, "det_singular_batch_grad", "torch.linalg.det", DetSVD.apply,
      [torch.stack([sg, torch.tensor([[0.0, 0, 0], [0, 1, 2], [0, 3, 1]], dtype=F64)])], atol=1e-12, grad_atol=1e-9,
      note="singular matrices (rank 2): the cofactor gradient")
    c(FAM, "det_err_nonsquare", "torch.linalg.det", L.det, [torch.ones(3, 4)], expect_error=True)
    c(FAM, "det_err_f16", "torch.linalg.det", L.det, [torch.ones(3, 3, dtype=torch.float16)], expect_error=True)
    c(FAM, "slogdet", "torch.linalg.slogdet", lambda A: tuple(L.slogdet(A)), [rnd(2, 4, 4)])
    c(FAM, "slogdet_f32", "torch.linalg.slogdet", lambda A: tuple(L.slogdet(A)), [rnd(3, 3, dtype=F32)])
    c(FAM, "slogdet_n20", "torch.linalg.slogdet", lambda A: tuple(L.slogdet(A)), [rnd(20, 20)])
    c(FAM, "slogdet_singular", "torch.linalg.slogdet", lambda A: tuple(L.slogdet(A)), [torch.zeros(3, 3, dtype=F64)], grad=False)
    c(FAM, "logdet_pos", "torch.logdet", torch.logdet, [spd(4, 2)])
    c(FAM, "logdet_neg_nan", "torch.logdet", torch.logdet, [-torch.eye(3, dtype=F64)], grad=False)
    c(FAM, "logdet_zero", "torch.logdet", torch.logdet, [torch.zeros(3, 3, dtype=F64)], grad=False)
    c(FAM, "trace", "torch.trace", torch.trace, [rnd(3, 4)])
    c(FAM, "trace_err_3d", "torch.trace", torch.trace, [rnd(2, 2, 2)], expect_error=True)

    # ---------------- from Cholesky factors ----------------
    Lf = torch.linalg.cholesky(spd(4))
    c(FAM, "cholesky_solve_lower", "torch.cholesky_solve", torch.cholesky_solve, [rnd(4, 2), Lf],
      note="gradient of L is PyTorch's full-matrix formula")
    c(FAM, "cholesky_solve_upper", "torch.cholesky_solve", lambda B, U: torch.cholesky_solve(B, U, upper=True),
      [rnd(4, 3), Lf.mT.contiguous()], args={"upper": True})
    c(FAM, "cholesky_solve_broadcast", "torch.cholesky_solve", torch.cholesky_solve,
      [rnd(2, 3, 2), torch.linalg.cholesky(spd(3, 1))])
    c(FAM, "cholesky_solve_n20", "torch.cholesky_solve", torch.cholesky_solve, [rnd(20, 2), torch.linalg.cholesky(spd(20))])
    c(FAM, "cholesky_solve_err_shape", "torch.cholesky_solve", torch.cholesky_solve, [rnd(3, 1), torch.eye(4, dtype=F64)],
      expect_error=True)
    c(FAM, "cholesky_inverse_lower", "torch.cholesky_inverse", torch.cholesky_inverse, [Lf])
    c(FAM, "cholesky_inverse_upper", "torch.cholesky_inverse", lambda U: torch.cholesky_inverse(U, upper=True),
      [Lf.mT.contiguous()], args={"upper": True})
    c(FAM, "cholesky_inverse_n20", "torch.cholesky_inverse", torch.cholesky_inverse, [torch.linalg.cholesky(spd(20))])

    # ---------------- QR ----------------
    def qr_fn(mode):
        return lambda A: norm_qr(*L.qr(A, mode=mode))
    for shp in ((5, 3), (3, 3), (3, 5)):
        c(FAM, "qr_reduced_%dx%d" % shp, "torch.linalg.qr", qr_fn("reduced"), [rnd(*shp)], args={"mode": "reduced"},
          note="normalised: diag(R) >= 0")
    for shp in ((4, 3), (3, 5)):
        c(FAM, "qr_complete_%dx%d" % shp, "torch.linalg.qr", qr_fn("complete"), [rnd(*shp)], args={"mode": "complete"},
          grad=shp[0] <= shp[1], note="normalised: diag(R) >= 0")
    c(FAM, "qr_r", "torch.linalg.qr", lambda A: norm_qr(*L.qr(A, mode="r")), [rnd(4, 3)], args={"mode": "r"}, grad=False)
    c(FAM, "qr_batched_f32", "torch.linalg.qr", qr_fn("reduced"), [rnd(2, 4, 3, dtype=F32)], atol=1e-5)
    c(FAM, "qr_n20", "torch.linalg.qr", qr_fn("reduced"), [rnd(20, 18)], rtol=1e-9, atol=1e-11)
    c(FAM, "qr_noncontig", "torch.linalg.qr", qr_fn("reduced"), [rnd(4, 4)], permute=[[1, 0]])
    c(FAM, "qr_err_mode", "torch.linalg.qr", lambda A: L.qr(A, mode="foo"), [rnd(3, 3)], args={"mode": "foo"}, expect_error=True)
    c(FAM, "qr_err_1d", "torch.linalg.qr", lambda A: L.qr(A), [rnd(3)], expect_error=True)

    # ---------------- eigh / eigvalsh ----------------
    eigh_tol = dict(rtol=1e-9, atol=1e-10, grad_rtol=1e-7, grad_atol=1e-8)
    c(FAM, "eigh_f64", "torch.linalg.eigh", lambda A: norm_eigh(*L.eigh(A)), [sym(4)], **eigh_tol,
      note="eigenvectors normalised: largest-|entry| positive; distinct eigenvalues, so the gradient is well defined")
    c(FAM, "eigh_upper_reads_triangle", "torch.linalg.eigh", lambda A: norm_eigh(*L.eigh(A, UPLO="U")), [rnd(4, 4)],
      args={"UPLO": "U"}, **eigh_tol, note="A is not symmetric: only its upper triangle is read")
    c(FAM, "eigh_lower_reads_triangle", "torch.linalg.eigh", lambda A: norm_eigh(*L.eigh(A)), [rnd(4, 4)], **eigh_tol,
      note="A is not symmetric: only its lower triangle is read")
    c(FAM, "eigh_batched_f32", "torch.linalg.eigh", lambda A: norm_eigh(*L.eigh(A)), [sym(5, 2, 2, dtype=F32)], atol=1e-5,
      grad=False)
    c(FAM, "eigh_n20", "torch.linalg.eigh", lambda A: norm_eigh(*L.eigh(A)), [sym(20)], rtol=1e-8, atol=1e-9,
      grad_rtol=1e-6, grad_atol=1e-7)
    c(FAM, "eigh_n20_upper_f32", "torch.linalg.eigh", lambda A: norm_eigh(*L.eigh(A, UPLO="U")), [sym(20, dtype=F32)],
      args={"UPLO": "U"}, rtol=1e-4, atol=1e-4, grad=False)
    c(FAM, "eigh_noncontig", "torch.linalg.eigh", lambda A: norm_eigh(*L.eigh(A)), [sym(4, 3)], permute=[[1, 0, 2]], **eigh_tol)
    c(FAM, "eigh_1x1", "torch.linalg.eigh", lambda A: norm_eigh(*L.eigh(A)), [torch.tensor([[3.0]], dtype=F64)])
    c(FAM, "eigh_empty_batch", "torch.linalg.eigh", lambda A: norm_eigh(*L.eigh(A)), [torch.zeros(0, 3, 3, dtype=F64)])

    def eigh_compose(A):
        w_, V_ = L.eigh(A)
        return w_, V_ @ torch.diag_embed(torch.exp(w_)) @ V_.mT
    c(FAM, "eigh_gauge_invariant", "torch.linalg.eigh", eigh_compose, [sym(4, 2)], args={"compose": "V_expw_Vt"}, **eigh_tol,
      note="gauge-invariant outputs: w and V diag(exp(w)) V^T")
    c(FAM, "eigh_gauge_invariant_n20", "torch.linalg.eigh", eigh_compose, [sym(20) / 4], args={"compose": "V_expw_Vt"},
      rtol=1e-8, atol=1e-9, grad_rtol=1e-6, grad_atol=1e-7, note="gauge-invariant outputs: w and V diag(exp(w)) V^T")
    c(FAM, "eigh_err_uplo", "torch.linalg.eigh", lambda A: L.eigh(A, UPLO="X"), [sym(3)], args={"UPLO": "X"}, expect_error=True)
    c(FAM, "eigh_err_nonsquare", "torch.linalg.eigh", L.eigh, [rnd(3, 4)], expect_error=True)
    c(FAM, "eigh_err_nan_n20", "torch.linalg.eigh", L.eigh, [torch.full((20, 20), float("nan"), dtype=F64)], expect_error=True)
    c(FAM, "eigvalsh", "torch.linalg.eigvalsh", L.eigvalsh, [sym(5, 3)], **eigh_tol)
    c(FAM, "eigvalsh_identity", "torch.linalg.eigvalsh", L.eigvalsh, [torch.eye(4, dtype=F64)],
      note="repeated eigenvalues: the eigenvalue gradient is still defined")
    c(FAM, "eigvalsh_upper", "torch.linalg.eigvalsh", lambda A: L.eigvalsh(A, UPLO="U"), [rnd(4, 4)], args={"UPLO": "U"}, **eigh_tol)

    # ---------------- eig / eigvals ----------------
    rot = torch.tensor([[0.0, -2.0, 0.3], [2.0, 0.1, 0.0], [0.5, 0.0, 1.5]], dtype=F64)
    eig_fn = lambda A: sort_complex(L.eig(A)[0])
    c(FAM, "eig_real_spectrum", "torch.linalg.eig", eig_fn, [sym(4) + 0.1 * rnd(4, 4)], rtol=1e-9, atol=1e-10,
      note="eigenvalues: real parts (out0), imaginary parts (out1), sorted by (real, imag)")
    c(FAM, "eig_complex_pair", "torch.linalg.eig", eig_fn, [rot], rtol=1e-9, atol=1e-10,
      note="a complex conjugate pair; eigenvalues as (real, imag), sorted")
    c(FAM, "eig_batched_f32", "torch.linalg.eig", eig_fn, [rnd(2, 4, 4, dtype=F32)], atol=1e-5, grad=False)
    c(FAM, "eig_n20", "torch.linalg.eig", eig_fn, [rnd(20, 20)], rtol=1e-8, atol=1e-9, grad_rtol=1e-6, grad_atol=1e-7)
    c(FAM, "eig_err_nan", "torch.linalg.eig", L.eig, [torch.full((3, 3), float("nan"), dtype=F64)], expect_error=True)
    c(FAM, "eig_err_nonsquare", "torch.linalg.eig", L.eig, [rnd(3, 4)], expect_error=True)
    c(FAM, "eigvals", "torch.linalg.eigvals", lambda A: sort_complex(L.eigvals(A)), [rnd(2, 5, 5)], rtol=1e-9, atol=1e-10,
      note="eigenvalues as (real, imag), sorted")

    # ---------------- svd / svdvals ----------------
    svd_tol = dict(rtol=1e-9, atol=1e-10, grad_rtol=1e-7, grad_atol=1e-8)
    svd_fn = lambda A: norm_svd(*L.svd(A, full_matrices=False))
    for shp in ((5, 3), (4, 4), (3, 5)):
        c(FAM, "svd_reduced_%dx%d" % shp, "torch.linalg.svd", svd_fn, [rnd(*shp)], args={"full_matrices": False}, **svd_tol,
          note="normalised: largest-|entry| of each U column positive, Vh rows follow; distinct singular values")
    for shp in ((5, 4), (4, 5), (4, 4)):
        c(FAM, "svd_full_%dx%d" % shp, "torch.linalg.svd", lambda A: norm_svd(*L.svd(A, full_matrices=True)), [rnd(*shp)],
          args={"full_matrices": True}, grad=False, **svd_tol,
          note="full_matrices: the extra columns of U / rows of Vh are compared after sign normalisation")
    c(FAM, "svd_batched_f32", "torch.linalg.svd", svd_fn, [rnd(2, 4, 3, dtype=F32)], args={"full_matrices": False}, atol=1e-5,
      grad=False)
    c(FAM, "svd_n20", "torch.linalg.svd", svd_fn, [rnd(20, 18)], args={"full_matrices": False}, rtol=1e-8, atol=1e-9,
      grad_rtol=1e-6, grad_atol=1e-7)
    c(FAM, "svd_n20_wide_f32", "torch.linalg.svd", svd_fn, [rnd(17, 20, dtype=F32)], args={"full_matrices": False},
      rtol=1e-4, atol=1e-4, grad=False)
    c(FAM, "svd_noncontig", "torch.linalg.svd", svd_fn, [rnd(2, 4, 3)], args={"full_matrices": False}, permute=[[0, 2, 1]],
      **svd_tol)
    c(FAM, "svd_rank_deficient", "torch.linalg.svd", lambda A: L.svd(A).S, [rnd(5, 2) @ rnd(2, 4)], args={"_outputs": [1]},
      grad=False, rtol=1e-9, atol=1e-10, note="rank 2: the small-matrix kernel falls back to LAPACK")

    def svd_compose(A):
        U_, S_, Vh_ = L.svd(A, full_matrices=False)
        return S_, U_ @ Vh_
    c(FAM, "svd_gauge_invariant", "torch.linalg.svd", svd_compose, [rnd(2, 4, 3)], args={"compose": "U_Vh", "full_matrices": False}, **svd_tol,
      note="gauge-invariant outputs: S and U @ Vh")
    c(FAM, "svd_gauge_invariant_wide", "torch.linalg.svd", svd_compose, [rnd(3, 5)], args={"compose": "U_Vh", "full_matrices": False}, **svd_tol,
      note="gauge-invariant outputs: S and U @ Vh")
    c(FAM, "svd_err_nan", "torch.linalg.svd", L.svd, [torch.full((3, 3), float("nan"))], expect_error=True)
    c(FAM, "svd_err_1d", "torch.linalg.svd", L.svd, [rnd(3)], expect_error=True)
    c(FAM, "svdvals", "torch.linalg.svdvals", L.svdvals, [rnd(3, 4, 6)], **svd_tol)
    c(FAM, "svdvals_n20", "torch.linalg.svdvals", L.svdvals, [rnd(18, 20)], rtol=1e-9, atol=1e-10)
    c(FAM, "svdvals_empty", "torch.linalg.svdvals", L.svdvals, [torch.zeros(2, 0, 3, dtype=F64)])

    # ---------------- lstsq ----------------
    for drv in ("gels", "gelsy", "gelsd", "gelss"):
        for shp in ((6, 3), (3, 3), (3, 5)):
            A = rnd(*shp)
            B = rnd(shp[0], 2)
            c(FAM, "lstsq_%s_%dx%d" % (drv, shp[0], shp[1]), "torch.linalg.lstsq",
              lambda A, B, d=drv: tuple(L.lstsq(A, B, driver=d)), [A, B], args={"driver": drv}, rtol=1e-9, atol=1e-10,
              grad_rtol=1e-7, grad_atol=1e-8)
    c(FAM, "lstsq_vector", "torch.linalg.lstsq", lambda A, B: tuple(L.lstsq(A, B)), [rnd(5, 3), rnd(5)], rtol=1e-9, atol=1e-10,
      grad=False, note="no gradient: PyTorch 1.13 fails in lstsq backward for a vector B")
    c(FAM, "lstsq_batched_broadcast", "torch.linalg.lstsq", lambda A, B: tuple(L.lstsq(A, B, driver="gelsd")),
      [rnd(2, 1, 5, 3), rnd(1, 3, 5, 2)], args={"driver": "gelsd"}, rtol=1e-9, atol=1e-10, grad_rtol=1e-7, grad_atol=1e-8)
    c(FAM, "lstsq_rank_deficient", "torch.linalg.lstsq", lambda A, B: tuple(L.lstsq(A, B, driver="gelsd")),
      [rnd(6, 2) @ rnd(2, 4), rnd(6, 2)], args={"driver": "gelsd"}, grad=False, rtol=1e-8, atol=1e-9,
      note="rank 2 < 4: residuals are empty, rank is 2")
    c(FAM, "lstsq_rcond", "torch.linalg.lstsq", lambda A, B: tuple(L.lstsq(A, B, rcond=0.5, driver="gelss")),
      [torch.diag(torch.tensor([4.0, 1.0, 0.1], dtype=F64)), rnd(3, 1)], args={"rcond": 0.5, "driver": "gelss"}, grad=False)
    c(FAM, "lstsq_f32", "torch.linalg.lstsq", lambda A, B: tuple(L.lstsq(A, B)), [rnd(6, 3, dtype=F32), rnd(6, 2, dtype=F32)],
      atol=1e-5, grad=False)
    c(FAM, "lstsq_n20", "torch.linalg.lstsq", lambda A, B: tuple(L.lstsq(A, B, driver="gelsd")), [rnd(24, 20), rnd(24, 3)],
      args={"driver": "gelsd"}, rtol=1e-8, atol=1e-9, grad=False)
    c(FAM, "lstsq_err_driver", "torch.linalg.lstsq", lambda A, B: L.lstsq(A, B, driver="foo"), [rnd(3, 3), rnd(3, 1)],
      args={"driver": "foo"}, expect_error=True)
    c(FAM, "lstsq_err_shape", "torch.linalg.lstsq", lambda A, B: L.lstsq(A, B), [rnd(3, 3), rnd(4, 1)], expect_error=True)

    # ---------------- householder_product ----------------
    A = rnd(5, 3)
    c(FAM, "householder_product", "torch.linalg.householder_product", L.householder_product, [A, rnd(3)])
    c(FAM, "householder_product_fewer_tau", "torch.linalg.householder_product", L.householder_product, [rnd(5, 3), rnd(2)])
    c(FAM, "householder_product_batched", "torch.linalg.householder_product", L.householder_product, [rnd(2, 4, 4), rnd(2, 3)])
    geq = torch.geqrf(rnd(20, 18))
    c(FAM, "householder_product_geqrf_n20", "torch.linalg.householder_product", L.householder_product, [geq[0], geq[1]],
      grad=False, rtol=1e-9, atol=1e-10, note="geqrf's reflectors give Q")
    c(FAM, "householder_product_err", "torch.linalg.householder_product", L.householder_product, [rnd(3, 4), rnd(2)],
      expect_error=True)

    # ---------------- pinv ----------------
    c(FAM, "pinv_tall", "torch.linalg.pinv", L.pinv, [rnd(5, 3)], rtol=1e-9, atol=1e-10)
    c(FAM, "pinv_wide_batched", "torch.linalg.pinv", L.pinv, [rnd(2, 3, 5)], rtol=1e-9, atol=1e-10)
    c(FAM, "pinv_square_f32", "torch.linalg.pinv", L.pinv, [wellcond(4, dtype=F32)], atol=1e-5)
    c(FAM, "pinv_hermitian", "torch.linalg.pinv", lambda A: L.pinv(A, hermitian=True), [spd(4)], args={"hermitian": True},
      rtol=1e-9, atol=1e-10)
    c(FAM, "pinv_rank_deficient_atol", "torch.linalg.pinv", lambda A: L.pinv(A, atol=1e-6), [rnd(5, 2) @ rnd(2, 4)],
      args={"atol": 1e-6}, grad=False, rtol=1e-8, atol=1e-9)
    c(FAM, "pinv_rtol", "torch.linalg.pinv", lambda A: L.pinv(A, rtol=0.2),
      [torch.diag(torch.tensor([4.0, 1.0, 0.1], dtype=F64))], args={"rtol": 0.2}, grad=False)
    c(FAM, "pinv_n20", "torch.linalg.pinv", L.pinv, [rnd(20, 18)], rtol=1e-8, atol=1e-9, grad=False)
    c(FAM, "pinv_err_1d", "torch.linalg.pinv", L.pinv, [rnd(3, dtype=F32)], expect_error=True)

    # ---------------- matrix_exp ----------------
    for scale, nm in ((0.005, "tiny"), (0.1, "small"), (0.5, "mid"), (1.0, "one"), (5.0, "scaled")):
        c(FAM, "matrix_exp_%s" % nm, "torch.linalg.matrix_exp", L.matrix_exp, [rnd(4, 4) * scale], rtol=1e-9, atol=1e-11,
          grad_rtol=1e-7, grad_atol=1e-9)
    c(FAM, "matrix_exp_batched_f32", "torch.linalg.matrix_exp", L.matrix_exp, [rnd(2, 3, 3, dtype=F32)], atol=1e-5)
    c(FAM, "matrix_exp_n20", "torch.linalg.matrix_exp", L.matrix_exp, [rnd(20, 20) / 5], rtol=1e-9, atol=1e-10, grad=False)
    c(FAM, "matrix_exp_zeros", "torch.linalg.matrix_exp", L.matrix_exp, [torch.zeros(3, 3, dtype=F64)])
    c(FAM, "matrix_exp_err", "torch.linalg.matrix_exp", L.matrix_exp, [rnd(3, 4)], expect_error=True)

    # ---------------- norms ----------------
    x = rnd(3, 4)
    x = x + 0.1 * torch.sign(x)
    for ordv in (2.0, 1.0, 0.0, float("inf"), float("-inf"), 3.0, 0.5, -1.0, -0.5, 1.5):
        c(FAM, "vector_norm_ord%s" % str(ordv).replace(".", "p").replace("-", "m"), "torch.linalg.vector_norm",
          lambda t, o=ordv: L.vector_norm(t, ord=o), [x], args={"ord": ordv})
    c(FAM, "vector_norm_dim", "torch.linalg.vector_norm", lambda t: L.vector_norm(t, ord=3.0, dim=1), [rnd(3, 4, 2)],
      args={"ord": 3.0, "dim": 1})
    c(FAM, "vector_norm_dims_keepdim", "torch.linalg.vector_norm", lambda t: L.vector_norm(t, dim=(0, 2), keepdim=True),
      [rnd(3, 4, 2)], args={"dim": [0, 2], "keepdim": True})
    c(FAM, "vector_norm_inf_dim_noncontig", "torch.linalg.vector_norm", lambda t: L.vector_norm(t, ord=float("inf"), dim=-1),
      [rnd(3, 5)], args={"ord": float("inf"), "dim": -1}, permute=[[1, 0]])
    c(FAM, "vector_norm_f32", "torch.linalg.vector_norm", lambda t: L.vector_norm(t, ord=2.0, dim=0), [rnd(50, 3, dtype=F32)],
      args={"ord": 2.0, "dim": 0})
    c(FAM, "vector_norm_with_zeros", "torch.linalg.vector_norm", L.vector_norm, [torch.tensor([0.0, 3.0, 0.0, 4.0], dtype=F64)])
    c(FAM, "vector_norm_empty", "torch.linalg.vector_norm", L.vector_norm, [torch.zeros(0, dtype=F64)], grad=False)
    c(FAM, "vector_norm_err_int", "torch.linalg.vector_norm", L.vector_norm, [torch.ones(3, dtype=torch.int64)], expect_error=True)
    c(FAM, "vector_norm_err_empty_inf", "torch.linalg.vector_norm", lambda t: L.vector_norm(t, ord=float("inf")),
      [torch.zeros(0, dtype=F64)], args={"ord": float("inf")}, expect_error=True)
    Am = rnd(2, 3, 4)
    for o in ("fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf")):
        nm = str(o).replace("-", "m").replace(".", "p")
        c(FAM, "matrix_norm_%s" % nm, "torch.linalg.matrix_norm", lambda A, o=o: L.matrix_norm(A, ord=o), [Am],
          args={"ord": o}, rtol=1e-9, atol=1e-10, grad_rtol=1e-7, grad_atol=1e-8)
    c(FAM, "matrix_norm_dims_keepdim", "torch.linalg.matrix_norm", lambda A: L.matrix_norm(A, ord=1, dim=(2, 0), keepdim=True),
      [rnd(3, 2, 4)], args={"ord": 1, "dim": [2, 0], "keepdim": True})
    c(FAM, "matrix_norm_nuc_dims", "torch.linalg.matrix_norm", lambda A: L.matrix_norm(A, ord="nuc", dim=(0, 2), keepdim=True),
      [rnd(3, 2, 4)], args={"ord": "nuc", "dim": [0, 2], "keepdim": True}, rtol=1e-9, atol=1e-10)
    c(FAM, "matrix_norm_err_ord", "torch.linalg.matrix_norm", lambda A: L.matrix_norm(A, ord=3), [rnd(3, 3)], args={"ord": 3},
      expect_error=True)
    c(FAM, "matrix_norm_err_1d", "torch.linalg.matrix_norm", L.matrix_norm, [rnd(3)], expect_error=True)
    c(FAM, "norm_default", "torch.linalg.norm", L.norm, [rnd(2, 3, 4)])
    c(FAM, "norm_default_keepdim", "torch.linalg.norm", lambda A: L.norm(A, keepdim=True), [rnd(2, 3)], args={"keepdim": True})
    c(FAM, "norm_vector_ord", "torch.linalg.norm", lambda A: L.norm(A, ord=3), [rnd(5)], args={"ord": 3})
    c(FAM, "norm_matrix_ord", "torch.linalg.norm", lambda A: L.norm(A, ord=float("inf")), [rnd(3, 4)], args={"ord": float("inf")})
    c(FAM, "norm_matrix_nuc", "torch.linalg.norm", lambda A: L.norm(A, ord="nuc"), [rnd(3, 4)], args={"ord": "nuc"},
      rtol=1e-9, atol=1e-10)
    c(FAM, "norm_dim1", "torch.linalg.norm", lambda A: L.norm(A, ord=1, dim=1), [rnd(3, 4)], args={"ord": 1, "dim": 1})
    c(FAM, "norm_dim2", "torch.linalg.norm", lambda A: L.norm(A, dim=(0, 1)), [rnd(3, 4, 2)], args={"dim": [0, 1]})
    c(FAM, "norm_err_3d_ord", "torch.linalg.norm", lambda A: L.norm(A, ord=2), [rnd(2, 3, 4)], args={"ord": 2}, expect_error=True)

    # ---------------- cond / matrix_rank ----------------
    Ac = wellcond(4, 2)
    for p in (None, 2, -2, 1, -1, float("inf"), float("-inf"), "fro", "nuc"):
        nm = "none" if p is None else str(p).replace("-", "m")
        args = {} if p is None else {"p": p}
        # PyTorch 1.13 cannot differentiate cond for p in (1, -1, inf, -inf, 'fro') (an in-place
        # write on a saved inverse); ctensor's gradient there is checked by gradcheck in test_linalg.c
        c(FAM, "cond_%s" % nm, "torch.linalg.cond", lambda A, p=p: L.cond(A, p=p), [Ac], args=args, rtol=1e-9, atol=1e-10,
          grad_rtol=1e-7, grad_atol=1e-8, grad=p in (None, 2, -2, "nuc"))
    c(FAM, "cond_rect", "torch.linalg.cond", L.cond, [rnd(5, 3)], rtol=1e-9, atol=1e-10)
    c(FAM, "cond_singular_inf", "torch.linalg.cond", lambda A: L.cond(A, p=1), [sing], args={"p": 1}, grad=False)
    c(FAM, "cond_err_nonsquare", "torch.linalg.cond", lambda A: L.cond(A, p=1), [rnd(3, 4)], args={"p": 1}, expect_error=True)
    lowrank = rnd(2, 6, 2) @ rnd(2, 2, 5)
    c(FAM, "matrix_rank", "torch.linalg.matrix_rank", L.matrix_rank, [lowrank])
    c(FAM, "matrix_rank_full", "torch.linalg.matrix_rank", L.matrix_rank, [rnd(4, 4)])
    c(FAM, "matrix_rank_hermitian", "torch.linalg.matrix_rank", lambda A: L.matrix_rank(A, hermitian=True),
      [rnd(5, 2) @ rnd(5, 2).mT], args={"hermitian": True})
    c(FAM, "matrix_rank_atol", "torch.linalg.matrix_rank", lambda A: L.matrix_rank(A, atol=0.5),
      [torch.diag(torch.tensor([4.0, 1.0, 0.1], dtype=F64))], args={"atol": 0.5})
    c(FAM, "matrix_rank_rtol", "torch.linalg.matrix_rank", lambda A: L.matrix_rank(A, rtol=0.2),
      [torch.diag(torch.tensor([4.0, 1.0, 0.1], dtype=F64))], args={"rtol": 0.2})

    # ---------------- matrix functions and products ----------------
    for n in (0, 1, 2, 3, 5, -1, -3):
        c(FAM, "matrix_power_%s" % str(n).replace("-", "m"), "torch.linalg.matrix_power",
          lambda A, n=n: L.matrix_power(A, n), [wellcond(3, 2) / 3], args={"n": n}, rtol=1e-9, atol=1e-11)
    c(FAM, "matrix_power_int", "torch.linalg.matrix_power", lambda A: L.matrix_power(A, 3),
      [torch.tensor([[1, 2], [3, 4]], dtype=torch.int64)], args={"n": 3})
    c(FAM, "matrix_power_err", "torch.linalg.matrix_power", lambda A: L.matrix_power(A, 2), [rnd(3, 4)], args={"n": 2},
      expect_error=True)
    c(FAM, "multi_dot_3", "torch.linalg.multi_dot", lambda a, b, d: L.multi_dot([a, b, d]), [rnd(10, 3), rnd(3, 8), rnd(8, 2)])
    c(FAM, "multi_dot_4_vec_ends", "torch.linalg.multi_dot", lambda a, b, d, e: L.multi_dot([a, b, d, e]),
      [rnd(4), rnd(4, 6), rnd(6, 3), rnd(3)])
    c(FAM, "multi_dot_5", "torch.linalg.multi_dot", lambda *t: L.multi_dot(list(t)),
      [rnd(2, 7), rnd(7, 3), rnd(3, 9), rnd(9, 2), rnd(2, 5)])
    c(FAM, "multi_dot_2", "torch.linalg.multi_dot", lambda a, b: L.multi_dot([a, b]), [rnd(3, 4), rnd(4)])
    c(FAM, "multi_dot_err_one", "torch.linalg.multi_dot", lambda a: L.multi_dot([a]), [rnd(3, 3)], expect_error=True)
    c(FAM, "multi_dot_err_shape", "torch.linalg.multi_dot", lambda a, b: L.multi_dot([a, b]), [rnd(3, 3), rnd(4, 3)],
      expect_error=True)
    c(FAM, "tensorinv_ind2", "torch.linalg.tensorinv", lambda A: L.tensorinv(A, ind=2), [wellcond(6).reshape(2, 3, 6)],
      args={"ind": 2})
    c(FAM, "tensorinv_ind1", "torch.linalg.tensorinv", lambda A: L.tensorinv(A, ind=1), [wellcond(6).reshape(6, 2, 3)],
      args={"ind": 1})
    c(FAM, "tensorinv_err", "torch.linalg.tensorinv", lambda A: L.tensorinv(A, ind=1), [rnd(4, 3)], args={"ind": 1},
      expect_error=True)
    c(FAM, "tensorsolve", "torch.linalg.tensorsolve", L.tensorsolve, [wellcond(6).reshape(2, 3, 6), rnd(2, 3)])
    c(FAM, "tensorsolve_dims", "torch.linalg.tensorsolve", lambda A, B: L.tensorsolve(A, B, dims=(0,)),
      [wellcond(6).reshape(6, 2, 3).permute(1, 2, 0).contiguous().permute(2, 0, 1), rnd(2, 3)], args={"dims": [0]})
    c(FAM, "cross", "torch.linalg.cross", L.cross, [rnd(4, 3), rnd(4, 3)])
    c(FAM, "cross_dim0_broadcast", "torch.linalg.cross", lambda a, b: L.cross(a, b, dim=0), [rnd(3, 1, 4), rnd(3, 2, 1)],
      args={"dim": 0})
    c(FAM, "cross_int", "torch.linalg.cross", L.cross, [torch.tensor([[1, 2, 3]]), torch.tensor([[4, 5, 6]])])
    c(FAM, "cross_noncontig", "torch.linalg.cross", L.cross, [rnd(5, 3), rnd(5, 3)], permute=[[1, 0], None])
    c(FAM, "cross_err_len", "torch.linalg.cross", L.cross, [rnd(3, 2), rnd(3, 2)], expect_error=True)
    c(FAM, "diagonal", "torch.linalg.diagonal", L.diagonal, [rnd(2, 3, 4)])
    c(FAM, "diagonal_offset_dims", "torch.linalg.diagonal", lambda A: L.diagonal(A, offset=-1, dim1=0, dim2=2), [rnd(4, 2, 3)],
      args={"offset": -1, "dim1": 0, "dim2": 2})
    c(FAM, "vecdot", "torch.linalg.vecdot", L.vecdot, [rnd(2, 1, 4), rnd(3, 4)])
    c(FAM, "vecdot_dim0", "torch.linalg.vecdot", lambda a, b: L.vecdot(a, b, dim=0), [rnd(4, 3), rnd(4, 3)], args={"dim": 0})
    c(FAM, "vecdot_err_dtype", "torch.linalg.vecdot", L.vecdot, [rnd(3), rnd(3, dtype=F32)], expect_error=True)
    c(FAM, "vander", "torch.linalg.vander", L.vander, [rnd(4)])
    c(FAM, "vander_N_batched", "torch.linalg.vander", lambda t: L.vander(t, N=5), [rnd(2, 3)], args={"N": 5})
    c(FAM, "vander_int", "torch.linalg.vander", L.vander, [torch.tensor([1, 2, 3])])
    c(FAM, "vander_err_N", "torch.linalg.vander", lambda t: L.vander(t, N=1), [rnd(3)], args={"N": 1}, expect_error=True)

    # ---------------- small matrices in lock-step (issue 10) ----------------
    # n <= 16 runs whole groups of 8 matrices through the batched kernels and the
    # rest one by one: batches of 9 and 17 cover both, and failures inside a group
    # must give the one-matrix path's infos and messages. (Appended last, so the
    # random draws of the cases above do not change.)
    for dt, tag, tol in ((F64, "f64", {}), (F32, "f32", dict(rtol=1e-4, atol=1e-5, grad=False))):
        for n in (1, 2, 3, 5, 8, 12, 16):
            c(FAM, "lanes_cholesky_n%d_%s" % (n, tag), "torch.linalg.cholesky", L.cholesky, [spd(n, 9, dtype=dt)], **tol)
            c(FAM, "lanes_inv_n%d_%s" % (n, tag), "torch.linalg.inv", L.inv, [wellcond(n, 9, dtype=dt)], **tol)
            c(FAM, "lanes_solve_n%d_%s" % (n, tag), "torch.linalg.solve", L.solve, [wellcond(n, 9, dtype=dt), rnd(9, n, 3, dtype=dt)],
              **tol)
            c(FAM, "lanes_lu_factor_n%d_%s" % (n, tag), "torch.linalg.lu_factor", lambda A: tuple(L.lu_factor(A)),
              [rnd(9, n, n, dtype=dt)], **dict(tol, grad=False))
            etol = dict(rtol=1e-9, atol=1e-10, grad_rtol=1e-7, grad_atol=1e-8) if dt == F64 else dict(rtol=1e-3, atol=1e-4, grad=False)
            c(FAM, "lanes_eigh_n%d_%s" % (n, tag), "torch.linalg.eigh", lambda A: norm_eigh(*L.eigh(A)), [sym(n, 9, dtype=dt)],
              **dict(etol, grad=False))
            c(FAM, "lanes_svd_n%d_%s" % (n, tag), "torch.linalg.svd", lambda A: norm_svd(*L.svd(A, full_matrices=False)),
              [rnd(9, n, n, dtype=dt)], args={"full_matrices": False}, **dict(etol, grad=False))
    c(FAM, "lanes_cholesky_upper_noncontig", "torch.linalg.cholesky", lambda A: L.cholesky(A, upper=True), [spd(6, 17)],
      args={"upper": True}, permute=[[0, 2, 1]])
    c(FAM, "lanes_cholesky_illcond", "torch.linalg.cholesky", L.cholesky, [torch.stack([illc] * 8)], rtol=1e-7, atol=1e-9,
      grad=False, note="condition number 1e7, eight times")
    npd_b = spd(5, 17)
    npd_b[11, 3, 3] = -50.0
    npd_b[13, 0, 0] = -1.0
    c(FAM, "lanes_cholesky_err_not_pd", "torch.linalg.cholesky", L.cholesky, [npd_b], expect_error=True,
      note="batch element 11 (inside the second group of 8) is the first failure")
    c(FAM, "lanes_cholesky_ex_info", "torch.linalg.cholesky_ex", lambda A: L.cholesky_ex(A).info, [npd_b], args={"_outputs": [1]},
      grad=False)
    sing_b = wellcond(6, 17)
    sing_b[4, :, 5] = 0
    sing_b[9, 5, :] = 0
    c(FAM, "lanes_inv_err_singular", "torch.linalg.inv", L.inv, [sing_b], expect_error=True,
      note="batch element 4 (inside the first group of 8)")
    c(FAM, "lanes_inv_ex_info", "torch.linalg.inv_ex", lambda A: L.inv_ex(A).info, [sing_b], args={"_outputs": [1]}, grad=False)
    c(FAM, "lanes_solve_err_singular", "torch.linalg.solve", L.solve, [sing_b, rnd(17, 6, 2)], expect_error=True)
    c(FAM, "lanes_lu_factor_ex_info", "torch.linalg.lu_factor_ex", lambda A: L.lu_factor_ex(A).info, [sing_b],
      args={"_outputs": [2]}, grad=False)
    c(FAM, "lanes_solve_vector_broadcast", "torch.linalg.solve", L.solve, [wellcond(4, 9, 1), rnd(4)])
    c(FAM, "lanes_inv_grad", "torch.linalg.inv", L.inv, [wellcond(3, 8)])
    c(FAM, "lanes_cholesky_grad", "torch.linalg.cholesky", L.cholesky, [spd(3, 8)])
    # repeated eigenvalues: the eigenvectors are not unique, so the case compares
    # the eigenvalues and the gauge-invariant V diag(exp(w)) V^T
    q8, _ = torch.linalg.qr(torch.randn(9, 6, 6, dtype=F64))
    rep = q8 @ torch.diag(torch.tensor([1.0, 1.0, 1.0, 2.0, 2.0, -3.0], dtype=F64)) @ q8.mT
    rep = (rep + rep.mT) / 2
    c(FAM, "lanes_eigh_repeated", "torch.linalg.eigh", eigh_compose, [rep], args={"compose": "V_expw_Vt"}, rtol=1e-9, atol=1e-10,
      grad=False, note="eigenvalues 1, 1, 1, 2, 2, -3")
    c(FAM, "lanes_eigh_upper_noncontig", "torch.linalg.eigh", lambda A: norm_eigh(*L.eigh(A, UPLO="U")), [rnd(17, 5, 5)],
      args={"UPLO": "U"}, permute=[[0, 2, 1]], rtol=1e-9, atol=1e-10, grad=False)
    c(FAM, "lanes_eigh_gauge_grad", "torch.linalg.eigh", eigh_compose, [sym(4, 8)], args={"compose": "V_expw_Vt"}, rtol=1e-9,
      atol=1e-10, grad_rtol=1e-7, grad_atol=1e-8)
    c(FAM, "lanes_eigvalsh_identity", "torch.linalg.eigvalsh", L.eigvalsh, [torch.eye(7, dtype=F64).expand(9, 7, 7).contiguous()],
      grad=False)
    for shp in ((6, 4), (4, 6)):
        c(FAM, "lanes_svd_%dx%d" % shp, "torch.linalg.svd", lambda A: norm_svd(*L.svd(A, full_matrices=False)), [rnd(17, *shp)],
          args={"full_matrices": False}, rtol=1e-9, atol=1e-10, grad=False)
    c(FAM, "lanes_svd_gauge_grad", "torch.linalg.svd", svd_compose, [rnd(8, 4, 3)], args={"compose": "U_Vh", "full_matrices": False},
      **svd_tol)
    rd = rnd(9, 6, 2) @ rnd(9, 2, 5)
    c(FAM, "lanes_svd_rank_deficient", "torch.linalg.svd", lambda A: L.svd(A).S, [rd], args={"_outputs": [1]}, grad=False,
      rtol=1e-9, atol=1e-10, note="rank 2: those lanes fall back to LAPACK")
    c(FAM, "lanes_svdvals_rank_deficient_sq", "torch.linalg.svdvals", L.svdvals, [rnd(9, 5, 3) @ rnd(9, 3, 5)], rtol=1e-9, atol=1e-10,
      grad=False, note="rank 3 of 5")
    # lstsq's default driver (gelsy) on rank-deficient matrices: the minimum-norm
    # solution and the rank (gelsd's, which ranks with the SVD, is the reference)
    for name, Ad in (("rank2", rnd(7, 2) @ rnd(2, 4)),
                     ("zero_first_col", torch.cat([torch.zeros(7, 1, dtype=F64), rnd(7, 3)], -1))):
        c(FAM, "lstsq_default_%s" % name, "torch.linalg.lstsq", lambda A, B: (lambda r: (r.solution, r.rank))(L.lstsq(A, B, driver="gelsd")),
          [Ad, rnd(7, 2)], args={"_outputs": [0, 2]}, grad=False, rtol=1e-8, atol=1e-9,
          note="default driver (gelsy) against gelsd's minimum-norm solution and rank")
