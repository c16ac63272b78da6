"""ctensor_composite.h: torch functions built from other ops (kron, movedim, diff,
rot90, meshgrid, hstack..., block_diag, tensor_split, cov, corrcoef, quantile, cdist,
...). Values and gradients (float64 inputs, so gradients are checked tightly),
float32, integer, complex and non-contiguous inputs, empty shapes, and PyTorch's
errors.

Input conventions the handlers in tests/conformance/ops_composite.c rely on:
  list functions (hstack, vstack, row_stack, dstack, column_stack, block_diag,
      meshgrid, cartesian_prod): every input is a list element.
  diff: in0 x, then prepend and append when args.prepend / args.append say so.
  trapezoid / cumulative_trapezoid: in0 y, in1 x when given; else args.dx.
  cov: in0 x, then fweights / aweights when args.fweights / args.aweights say so.
  quantile / nanquantile: args.q (a number), or in1 (a 1-D q tensor).
  Functions with several outputs (tensor_split, hsplit..., meshgrid, aminmax,
      histogram) return them all.
  histogram: in0 the input, then the bin edges (when args.bins is absent), then
      the weight when args.weight says so; args.range_lo / range_hi, args.density."""
import torch

FAM = "composite"
L = torch.long


def rn(*shape, dtype=torch.float64):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


def ri(lo, hi, *shape):
    return torch.randint(lo, hi, shape, dtype=L)


def rc(*shape, dtype=torch.complex128):
    return torch.randn(shape, dtype=dtype)


def shape_fns(w):
    c = w.case
    for src, dst in (([0], [2]), ([0, 1], [2, 0]), ([-1], [0])):
        c(FAM, ("movedim_%s_%s" % ("_".join(map(str, src)), "_".join(map(str, dst)))).replace("-", "m"), "torch.movedim",
          lambda x, s=src, d=dst: torch.movedim(x, s, d), [rn(2, 3, 4)], args={"source": src, "destination": dst})
    c(FAM, "moveaxis_noncontig", "torch.moveaxis", lambda x: torch.moveaxis(x, 1, 0), [rn(3, 2, 4)],
      args={"source": [1], "destination": [0]}, permute=[[1, 0, 2]])
    c(FAM, "movedim_complex", "torch.movedim", lambda x: torch.movedim(x, 0, 1), [rc(2, 3)], args={"source": [0], "destination": [1]})
    c(FAM, "err_movedim_repeated", "torch.movedim", lambda x: torch.movedim(x, [0, 0], [0, 1]), [rn(2, 3)],
      args={"source": [0, 0], "destination": [0, 1]}, expect_error=True)
    c(FAM, "err_movedim_range", "torch.movedim", lambda x: torch.movedim(x, [0], [5]), [rn(2, 3)],
      args={"source": [0], "destination": [5]}, expect_error=True)
    c(FAM, "swapaxes", "torch.swapaxes", lambda x: torch.swapaxes(x, 0, 2), [rn(2, 3, 4)], args={"axis0": 0, "axis1": 2})
    c(FAM, "swapdims", "torch.swapdims", lambda x: torch.swapdims(x, -1, 0), [rn(2, 3)], args={"dim0": -1, "dim1": 0})
    for k, f in ((1, torch.atleast_1d), (2, torch.atleast_2d), (3, torch.atleast_3d)):
        for shp in ((), (3,), (2, 3), (2, 1, 3)):
            c(FAM, "atleast_%dd_%dd" % (k, len(shp)), "torch.atleast_%dd" % k, f, [rn(*shp)])
    c(FAM, "ravel_noncontig", "torch.ravel", torch.ravel, [rn(3, 4)], permute=[[1, 0]])
    c(FAM, "ravel_int64", "torch.ravel", torch.ravel, [ri(-5, 5, 2, 3)])
    c(FAM, "fliplr", "torch.fliplr", torch.fliplr, [rn(3, 4, 2)])
    c(FAM, "flipud", "torch.flipud", torch.flipud, [rn(3, 4)])
    c(FAM, "flipud_complex", "torch.flipud", torch.flipud, [rc(3)], rtol=1e-10, atol=1e-12)
    c(FAM, "err_fliplr_1d", "torch.fliplr", torch.fliplr, [rn(3)], expect_error=True)
    c(FAM, "err_flipud_0d", "torch.flipud", torch.flipud, [rn()], expect_error=True)
    for k in (-1, 0, 1, 2, 3, 5):
        c(FAM, "rot90_k%s" % str(k).replace("-", "m"), "torch.rot90", lambda x, k=k: torch.rot90(x, k, [0, 1]), [rn(2, 3, 2)],
          args={"k": k, "dims": [0, 1]})
    c(FAM, "rot90_dims_2_0", "torch.rot90", lambda x: torch.rot90(x, 1, [2, 0]), [rn(2, 3, 4)], args={"k": 1, "dims": [2, 0]})
    c(FAM, "err_rot90_1d", "torch.rot90", lambda x: torch.rot90(x, 1, [0, 1]), [rn(3)], args={"k": 1, "dims": [0, 1]}, expect_error=True)
    c(FAM, "err_rot90_same", "torch.rot90", lambda x: torch.rot90(x, 1, [0, 0]), [rn(3, 3)], args={"k": 1, "dims": [0, 0]}, expect_error=True)
    for off in (0, 1, -2):
        c(FAM, "diagflat_%s" % str(off).replace("-", "m"), "torch.diagflat", lambda x, o=off: torch.diagflat(x, o), [rn(2, 2)], args={"offset": off})
    c(FAM, "diagflat_noncontig", "torch.diagflat", torch.diagflat, [rn(2, 3)], permute=[[1, 0]])
    c(FAM, "positive", "torch.positive", torch.positive, [rn(3)])
    c(FAM, "err_positive_bool", "torch.positive", torch.positive, [torch.tensor([True, False])], expect_error=True)


def joining_fns(w):
    c = w.case
    c(FAM, "hstack_1d", "torch.hstack", lambda *t: torch.hstack(t), [rn(2), rn(3)])
    c(FAM, "hstack_2d", "torch.hstack", lambda *t: torch.hstack(t), [rn(2, 1), rn(2, 3)])
    c(FAM, "hstack_promote", "torch.hstack", lambda *t: torch.hstack(t), [ri(0, 5, 2), rn(2, dtype=torch.float32)])
    c(FAM, "vstack_1d", "torch.vstack", lambda *t: torch.vstack(t), [rn(3), rn(3)])
    c(FAM, "vstack_mixed", "torch.vstack", lambda *t: torch.vstack(t), [rn(3), rn(2, 3)])
    c(FAM, "row_stack", "torch.row_stack", lambda *t: torch.row_stack(t), [rn(2, 3), rn(1, 3)])
    c(FAM, "dstack", "torch.dstack", lambda *t: torch.dstack(t), [rn(2), rn(2)])
    c(FAM, "dstack_2d", "torch.dstack", lambda *t: torch.dstack(t), [rn(2, 3), rn(2, 3, 2)])
    c(FAM, "column_stack", "torch.column_stack", lambda *t: torch.column_stack(t), [rn(3), rn(3, 2), rn(3)])
    c(FAM, "column_stack_0d", "torch.column_stack", lambda *t: torch.column_stack(t), [rn(), rn(1)])
    c(FAM, "err_vstack_shape", "torch.vstack", lambda *t: torch.vstack(t), [rn(3), rn(4)], expect_error=True)
    c(FAM, "block_diag", "torch.block_diag", lambda *t: torch.block_diag(*t), [rn(2, 2), rn(3), rn(), rn(1, 2)])
    c(FAM, "block_diag_promote", "torch.block_diag", lambda *t: torch.block_diag(*t), [ri(0, 5, 2, 2), rn(1, 2, dtype=torch.float32)])
    c(FAM, "block_diag_complex", "torch.block_diag", lambda *t: torch.block_diag(*t), [rc(2, 2), rc(1)], rtol=1e-10, atol=1e-12)
    c(FAM, "block_diag_empty_piece", "torch.block_diag", lambda *t: torch.block_diag(*t), [rn(2, 0), rn(1, 2)])
    c(FAM, "err_block_diag_3d", "torch.block_diag", lambda *t: torch.block_diag(*t), [rn(2, 2, 2)], expect_error=True)
    for s in (1, 3, 4, 7):
        c(FAM, "tensor_split_sections_%d" % s, "torch.tensor_split", lambda x, s=s: torch.tensor_split(x, s, 1), [rn(2, 7)],
          args={"sections": s, "dim": 1})
    c(FAM, "tensor_split_indices", "torch.tensor_split", lambda x: torch.tensor_split(x, [1, 4, 3, 9, -2], 0), [rn(6, 2)],
      args={"indices": [1, 4, 3, 9, -2], "dim": 0})
    c(FAM, "err_tensor_split_0", "torch.tensor_split", lambda x: torch.tensor_split(x, 0), [rn(3, 4)], args={"sections": 0}, expect_error=True)
    c(FAM, "err_tensor_split_0d", "torch.tensor_split", lambda x: torch.tensor_split(x, 2), [rn()], args={"sections": 2}, expect_error=True)
    c(FAM, "hsplit", "torch.hsplit", lambda x: torch.hsplit(x, 2), [rn(3, 4)], args={"sections": 2})
    c(FAM, "hsplit_1d", "torch.hsplit", lambda x: torch.hsplit(x, 3), [rn(6)], args={"sections": 3})
    c(FAM, "hsplit_indices", "torch.hsplit", lambda x: torch.hsplit(x, [1, 3]), [rn(3, 4)], args={"indices": [1, 3]})
    c(FAM, "vsplit", "torch.vsplit", lambda x: torch.vsplit(x, 2), [rn(4, 3)], args={"sections": 2})
    c(FAM, "dsplit", "torch.dsplit", lambda x: torch.dsplit(x, [1]), [rn(2, 2, 3)], args={"indices": [1]})
    c(FAM, "err_hsplit_divisible", "torch.hsplit", lambda x: torch.hsplit(x, 3), [rn(3, 4)], args={"sections": 3}, expect_error=True)
    c(FAM, "err_vsplit_1d", "torch.vsplit", lambda x: torch.vsplit(x, 3), [rn(3)], args={"sections": 3}, expect_error=True)
    c(FAM, "err_dsplit_2d", "torch.dsplit", lambda x: torch.dsplit(x, 3), [rn(3, 4)], args={"sections": 3}, expect_error=True)
    c(FAM, "meshgrid_ij", "torch.meshgrid", lambda *t: torch.meshgrid(*t, indexing="ij"), [rn(2), rn(3), rn()], args={"indexing": "ij"})
    c(FAM, "meshgrid_xy", "torch.meshgrid", lambda *t: torch.meshgrid(*t, indexing="xy"), [rn(2), rn(3), rn(4)], args={"indexing": "xy"})
    c(FAM, "meshgrid_one", "torch.meshgrid", lambda *t: torch.meshgrid(*t, indexing="xy"), [rn(3)], args={"indexing": "xy"})
    c(FAM, "err_meshgrid_2d", "torch.meshgrid", lambda *t: torch.meshgrid(*t, indexing="ij"), [rn(2), rn(3, 1)], args={"indexing": "ij"}, expect_error=True)
    c(FAM, "err_meshgrid_dtype", "torch.meshgrid", lambda *t: torch.meshgrid(*t, indexing="ij"), [rn(2), rn(3, dtype=torch.float32)],
      args={"indexing": "ij"}, expect_error=True)
    c(FAM, "err_meshgrid_indexing", "torch.meshgrid", lambda *t: torch.meshgrid(*t, indexing="xx"), [rn(2), rn(3)], args={"indexing": "xx"}, expect_error=True)
    c(FAM, "cartesian_prod", "torch.cartesian_prod", lambda *t: torch.cartesian_prod(*t), [rn(2), rn(3), rn(2)])
    c(FAM, "cartesian_prod_int64", "torch.cartesian_prod", lambda *t: torch.cartesian_prod(*t), [ri(0, 9, 3), ri(0, 9, 2)])
    c(FAM, "cartesian_prod_one", "torch.cartesian_prod", lambda *t: torch.cartesian_prod(*t), [rn(3)])
    c(FAM, "err_cartesian_prod_2d", "torch.cartesian_prod", lambda *t: torch.cartesian_prod(*t), [rn(2, 3)], expect_error=True)
    for r, rep in ((2, False), (3, False), (2, True), (1, False), (5, False), (0, False)):
        c(FAM, "combinations_r%d%s" % (r, "_rep" if rep else ""), "torch.combinations",
          lambda x, r=r, rep=rep: torch.combinations(x, r, rep), [rn(4)], args={"r": r, "with_replacement": rep})
    c(FAM, "err_combinations_2d", "torch.combinations", lambda x: torch.combinations(x), [rn(2, 3)], expect_error=True)
    c(FAM, "err_combinations_neg", "torch.combinations", lambda x: torch.combinations(x, -1), [rn(3)], args={"r": -1}, expect_error=True)
    for fn, name in ((torch.tril_indices, "tril_indices"), (torch.triu_indices, "triu_indices")):
        for (rw, cl, off) in ((3, 3, 0), (4, 3, 1), (3, 5, -1), (0, 2, 0), (3, 4, 9)):
            c(FAM, "%s_%d_%d_%s" % (name, rw, cl, str(off).replace("-", "m")), "torch." + name,
              lambda rw=rw, cl=cl, off=off, fn=fn: fn(rw, cl, off), [], args={"row": rw, "col": cl, "offset": off})
    c(FAM, "err_tril_indices_neg", "torch.tril_indices", lambda: torch.tril_indices(-1, 2), [], args={"row": -1, "col": 2}, expect_error=True)


def math_fns(w):
    c = w.case
    c(FAM, "kron_2d", "torch.kron", torch.kron, [rn(2, 3), rn(3, 2)])
    c(FAM, "kron_mixed_dims", "torch.kron", torch.kron, [rn(2), rn(2, 3, 2)])
    c(FAM, "kron_f32", "torch.kron", torch.kron, [rn(3, 2, dtype=torch.float32), rn(2, 2, dtype=torch.float32)],
      note="PyTorch 1.13 refuses a transposed operand here (its view), so the case is contiguous")
    c(FAM, "kron_int64", "torch.kron", torch.kron, [ri(-3, 3, 2, 2), ri(-3, 3, 2)])
    c(FAM, "kron_complex", "torch.kron", torch.kron, [rc(2, 2), rc(2)], rtol=1e-10, atol=1e-12)
    c(FAM, "kron_0d", "torch.kron", torch.kron, [rn(), rn(3)])
    c(FAM, "inner", "torch.inner", torch.inner, [rn(2, 3), rn(4, 3)])
    c(FAM, "inner_1d", "torch.inner", torch.inner, [rn(3), rn(3)])
    c(FAM, "inner_0d", "torch.inner", torch.inner, [rn(), rn(2, 3)])
    c(FAM, "inner_complex", "torch.inner", torch.inner, [rc(2, 3), rc(3)], rtol=1e-10, atol=1e-12)
    c(FAM, "err_inner_shape", "torch.inner", torch.inner, [rn(2, 3), rn(2, 4)], expect_error=True)
    c(FAM, "addr", "torch.addr", lambda i, a, b: torch.addr(i, a, b, beta=0.5, alpha=2.0), [rn(2, 3), rn(2), rn(3)], args={"beta": 0.5, "alpha": 2.0})
    c(FAM, "addr_broadcast", "torch.addr", torch.addr, [rn(3), rn(2), rn(3)])
    c(FAM, "addr_beta0", "torch.addr", lambda i, a, b: torch.addr(i, a, b, beta=0.0), [torch.full((2, 3), float("nan"), dtype=torch.float64), rn(2), rn(3)],
      args={"beta": 0.0})
    c(FAM, "err_addr_vec1", "torch.addr", torch.addr, [rn(2, 3), rn(2, 2), rn(3)], expect_error=True)
    c(FAM, "err_addr_vec2", "torch.addr", torch.addr, [rn(2, 3), rn(2), rn(3, 1)], expect_error=True)
    c(FAM, "ldexp", "torch.ldexp", torch.ldexp, [rn(4), ri(-3, 4, 4)])
    c(FAM, "ldexp_float_exp", "torch.ldexp", torch.ldexp, [rn(2, 3), rn(3)])
    c(FAM, "ldexp_f32", "torch.ldexp", torch.ldexp, [rn(4, dtype=torch.float32), ri(-3, 4, 4)])
    c(FAM, "err_ldexp_shape", "torch.ldexp", torch.ldexp, [rn(2), rn(3)], expect_error=True)
    c(FAM, "float_power", "torch.float_power", torch.float_power, [rn(4, dtype=torch.float32).abs(), rn(4, dtype=torch.float32)])
    c(FAM, "float_power_int", "torch.float_power", torch.float_power, [ri(1, 5, 3), ri(0, 3, 3)])
    c(FAM, "float_power_complex", "torch.float_power", torch.float_power, [rc(3, dtype=torch.complex64), rn(3, dtype=torch.float32)], rtol=1e-10, atol=1e-12)
    c(FAM, "float_power_scalar", "torch.float_power", lambda x: torch.float_power(x, 2.5), [rn(3, dtype=torch.float32).abs()], args={"exponent": 2.5})
    for name, fn in (("logaddexp", torch.logaddexp), ("logaddexp2", torch.logaddexp2)):
        c(FAM, name, "torch." + name, fn, [rn(3, 4) * 10, rn(4) * 10])
        c(FAM, name + "_f32", "torch." + name, fn, [rn(5, dtype=torch.float32), rn(5, dtype=torch.float32)])
        c(FAM, name + "_inf", "torch." + name, fn,
          [torch.tensor([float("inf"), float("-inf"), float("-inf"), 1.0, float("nan")], dtype=torch.float64),
           torch.tensor([float("inf"), float("-inf"), 2.0, float("inf"), 1.0], dtype=torch.float64)], grad=False)
        c(FAM, "err_" + name + "_int", "torch." + name, fn, [ri(0, 3, 2), ri(0, 3, 2)], expect_error=True)
    c(FAM, "isreal_complex", "torch.isreal", torch.isreal, [torch.tensor([1 + 0j, 2 + 1j, -0j, 3 - 0.5j])])
    c(FAM, "isreal_float", "torch.isreal", torch.isreal, [torch.tensor([1.0, float("nan")])])
    c(FAM, "isreal_int", "torch.isreal", torch.isreal, [ri(0, 3, 2, 2)])
    for p in (2.0, 1.0, 3.0, 0.0, float("inf")):
        c(FAM, "dist_p%s" % str(p).replace(".", "_"), "torch.dist", lambda a, b, p=p: torch.dist(a, b, p), [rn(2, 3), rn(3)], args={"p": p}, grad=p != 0.0)
    c(FAM, "dist_complex", "torch.dist", torch.dist, [rc(3), rc(3)], rtol=1e-10, atol=1e-12)
    c(FAM, "err_dist_shape", "torch.dist", torch.dist, [rn(2), rn(3)], expect_error=True)
    for p in (2.0, 1.0, 0.5, float("inf")):
        c(FAM, "cdist_p%s" % str(p).replace(".", "_"), "torch.cdist", lambda a, b, p=p: torch.cdist(a, b, p), [rn(4, 3), rn(5, 3)], args={"p": p})
    c(FAM, "cdist_batched", "torch.cdist", torch.cdist, [rn(2, 3, 4), rn(1, 2, 4)])
    c(FAM, "cdist_f32", "torch.cdist", torch.cdist, [rn(3, 2, dtype=torch.float32), rn(4, 2, dtype=torch.float32)])
    c(FAM, "err_cdist_1d", "torch.cdist", torch.cdist, [rn(3), rn(3, 3)], expect_error=True)
    c(FAM, "err_cdist_cols", "torch.cdist", torch.cdist, [rn(2, 3), rn(3, 4)], expect_error=True)
    c(FAM, "err_cdist_p", "torch.cdist", lambda a, b: torch.cdist(a, b, -1.0), [rn(2, 3), rn(3, 3)], args={"p": -1.0}, expect_error=True)
    x = rn(3, 4)
    x[1] *= 0.01
    c(FAM, "renorm_dim0", "torch.renorm", lambda x: torch.renorm(x, 2, 0, 1.0), [x], args={"p": 2.0, "dim": 0, "maxnorm": 1.0})
    c(FAM, "renorm_p1_dim1", "torch.renorm", lambda x: torch.renorm(x, 1, 1, 0.5), [rn(2, 3, 2)], args={"p": 1.0, "dim": 1, "maxnorm": 0.5})
    c(FAM, "err_renorm_p", "torch.renorm", lambda x: torch.renorm(x, 0, 0, 1), [rn(2, 3)], args={"p": 0.0, "dim": 0, "maxnorm": 1.0}, expect_error=True)
    c(FAM, "err_renorm_maxnorm", "torch.renorm", lambda x: torch.renorm(x, 2, 0, -1), [rn(2, 3)], args={"p": 2.0, "dim": 0, "maxnorm": -1.0},
      expect_error=True)
    c(FAM, "err_renorm_1d", "torch.renorm", lambda x: torch.renorm(x, 2, 0, 1), [rn(3)], args={"p": 2.0, "dim": 0, "maxnorm": 1.0}, expect_error=True)
    c(FAM, "diff", "torch.diff", torch.diff, [rn(2, 5)])
    c(FAM, "diff_n2_dim0", "torch.diff", lambda x: torch.diff(x, 2, 0), [rn(5, 3)], args={"n": 2, "dim": 0})
    c(FAM, "diff_n0", "torch.diff", lambda x: torch.diff(x, 0), [rn(3)], args={"n": 0})
    c(FAM, "diff_large_n", "torch.diff", lambda x: torch.diff(x, 5), [rn(2, 3)], args={"n": 5})
    c(FAM, "diff_prepend_append", "torch.diff", lambda x, p, a: torch.diff(x, 1, -1, p, a), [rn(2, 3), rn(2, 1), rn(2, 2)],
      args={"n": 1, "dim": -1, "prepend": True, "append": True})
    c(FAM, "diff_bool", "torch.diff", torch.diff, [torch.tensor([True, False, False, True])])
    c(FAM, "diff_int64", "torch.diff", torch.diff, [ri(-9, 9, 6)])
    c(FAM, "diff_complex", "torch.diff", torch.diff, [rc(4)], rtol=1e-10, atol=1e-12)
    c(FAM, "err_diff_0d", "torch.diff", torch.diff, [rn()], expect_error=True)
    c(FAM, "err_diff_prepend_dims", "torch.diff", lambda x, p: torch.diff(x, 1, -1, p), [rn(3, 2), rn(3)], args={"prepend": True}, expect_error=True)
    c(FAM, "trapezoid_dx", "torch.trapezoid", lambda y: torch.trapezoid(y, dx=0.5), [rn(3, 4)], args={"dx": 0.5})
    c(FAM, "trapezoid_x1d", "torch.trapezoid", lambda y, x: torch.trapezoid(y, x, dim=0), [rn(4, 3), rn(4)], args={"dim": 0})
    c(FAM, "trapezoid_xnd", "torch.trapezoid", lambda y, x: torch.trapezoid(y, x), [rn(2, 4), rn(2, 4)])
    c(FAM, "trapezoid_xfewer", "torch.trapezoid", lambda y, x: torch.trapezoid(y, x, dim=1), [rn(2, 3, 4), rn(3, 4)], args={"dim": 1})
    c(FAM, "trapezoid_empty", "torch.trapezoid", torch.trapezoid, [rn(3, 0)])
    c(FAM, "err_trapezoid_x", "torch.trapezoid", lambda y, x: torch.trapezoid(y, x), [rn(3, 4), rn(5)], expect_error=True)
    c(FAM, "cumulative_trapezoid", "torch.cumulative_trapezoid", lambda y: torch.cumulative_trapezoid(y, dx=2.0), [rn(2, 5)], args={"dx": 2.0})
    c(FAM, "cumulative_trapezoid_x", "torch.cumulative_trapezoid", lambda y, x: torch.cumulative_trapezoid(y, x, dim=0), [rn(4, 2), rn(4)],
      args={"dim": 0})
    for (s, e, n, b, dt) in ((0, 2, 5, 10.0, torch.float32), (-1, 1, 4, 2.0, torch.float64), (0, 3, 4, 10.0, torch.int64), (1, 1, 1, 3.0, torch.float32),
                             (0, 1, 0, 10.0, torch.float32)):
        c(FAM, "logspace_%s_%d" % (str(dt).split(".")[1], n), "torch.logspace", lambda s=s, e=e, n=n, b=b, dt=dt: torch.logspace(s, e, n, b, dtype=dt), [],
          args={"start": s, "end": e, "steps": n, "base": b, "dtype": str(dt)})
    c(FAM, "err_logspace_steps", "torch.logspace", lambda: torch.logspace(0, 1, -1), [], args={"start": 0, "end": 1, "steps": -1}, expect_error=True)
    idx = torch.tensor([[0, 2], [1, 1], [3, 0]])
    c(FAM, "take_along_dim", "torch.take_along_dim", lambda x, i: torch.take_along_dim(x, i, 1), [rn(3, 4), idx], args={"dim": 1})
    c(FAM, "take_along_dim_broadcast", "torch.take_along_dim", lambda x, i: torch.take_along_dim(x, i, 0), [rn(3, 1), torch.tensor([[2, 0, 1]])],
      args={"dim": 0})
    c(FAM, "take_along_dim_flat", "torch.take_along_dim", lambda x, i: torch.take_along_dim(x, i), [rn(3, 4), torch.tensor([11, 0, 5])])
    c(FAM, "err_take_along_dim_dims", "torch.take_along_dim", lambda x, i: torch.take_along_dim(x, i, 1), [rn(3, 4), torch.zeros(3, dtype=L)],
      args={"dim": 1}, expect_error=True)
    c(FAM, "err_take_along_dim_dtype", "torch.take_along_dim", lambda x, i: torch.take_along_dim(x, i, 1), [rn(3, 4), torch.zeros(3, 4)],
      args={"dim": 1}, expect_error=True)


def stats_fns(w):
    c = w.case
    c(FAM, "cov", "torch.cov", torch.cov, [rn(3, 6)])
    c(FAM, "cov_1d", "torch.cov", torch.cov, [rn(5)])
    c(FAM, "cov_correction0", "torch.cov", lambda x: torch.cov(x, correction=0), [rn(2, 4)], args={"correction": 0})
    c(FAM, "cov_fweights", "torch.cov", lambda x, f: torch.cov(x, fweights=f), [rn(2, 4), torch.tensor([1, 2, 0, 3])], args={"fweights": True})
    c(FAM, "cov_aweights", "torch.cov", lambda x, a: torch.cov(x, aweights=a), [rn(2, 4), rn(4).abs()], args={"aweights": True})
    c(FAM, "cov_both", "torch.cov", lambda x, f, a: torch.cov(x, correction=2, fweights=f, aweights=a), [rn(3, 5), torch.tensor([1, 2, 1, 3, 1]), rn(5).abs()],
      args={"correction": 2, "fweights": True, "aweights": True})
    c(FAM, "cov_complex", "torch.cov", torch.cov, [rc(2, 4)], rtol=1e-10, atol=1e-12)
    c(FAM, "cov_f32", "torch.cov", torch.cov, [rn(2, 5, dtype=torch.float32)])
    c(FAM, "err_cov_3d", "torch.cov", torch.cov, [rn(2, 2, 2)], expect_error=True)
    c(FAM, "err_cov_fweights_float", "torch.cov", lambda x, f: torch.cov(x, fweights=f), [rn(2, 3), rn(3)], args={"fweights": True}, expect_error=True)
    c(FAM, "err_cov_fweights_numel", "torch.cov", lambda x, f: torch.cov(x, fweights=f), [rn(2, 3), torch.ones(4, dtype=L)], args={"fweights": True},
      expect_error=True)
    c(FAM, "err_cov_fweights_negative", "torch.cov", lambda x, f: torch.cov(x, fweights=f), [rn(2, 3), -torch.ones(3, dtype=L)], args={"fweights": True},
      expect_error=True)
    c(FAM, "err_cov_aweights_int", "torch.cov", lambda x, a: torch.cov(x, aweights=a), [rn(2, 3), torch.ones(3, dtype=L)], args={"aweights": True},
      expect_error=True)
    c(FAM, "corrcoef", "torch.corrcoef", torch.corrcoef, [rn(3, 6)])
    c(FAM, "corrcoef_1d", "torch.corrcoef", torch.corrcoef, [rn(5)])
    c(FAM, "corrcoef_complex", "torch.corrcoef", torch.corrcoef, [rc(2, 5)], grad=False, rtol=1e-10, atol=1e-12)
    c(FAM, "aminmax", "torch.aminmax", torch.aminmax, [rn(3, 4)], grad=False)
    c(FAM, "aminmax_dim", "torch.aminmax", lambda x: torch.aminmax(x, dim=1, keepdim=True), [rn(3, 4)], args={"dim": 1, "keepdim": True}, grad=False)
    c(FAM, "aminmax_int64", "torch.aminmax", lambda x: torch.aminmax(x, dim=0), [ri(-9, 9, 3, 4)], args={"dim": 0})
    c(FAM, "err_aminmax_complex", "torch.aminmax", torch.aminmax, [rc(3)], expect_error=True)
    c(FAM, "err_aminmax_empty", "torch.aminmax", torch.aminmax, [rn(0)], expect_error=True)
    xn = rn(3, 5)
    xn[1, 2] = float("nan")
    for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
        c(FAM, "quantile_" + interp, "torch.quantile", lambda x, i=interp: torch.quantile(x, 0.4, dim=1, interpolation=i), [rn(3, 6)],
          args={"q": 0.4, "dim": 1, "interpolation": interp})
    c(FAM, "quantile_flat", "torch.quantile", lambda x: torch.quantile(x, 0.75), [rn(3, 4)], args={"q": 0.75})
    c(FAM, "quantile_keepdim", "torch.quantile", lambda x: torch.quantile(x, 0.5, dim=0, keepdim=True), [rn(4, 3)], args={"q": 0.5, "dim": 0, "keepdim": True})
    c(FAM, "quantile_flat_keepdim", "torch.quantile", lambda x: torch.quantile(x, 0.1, keepdim=True), [rn(2, 3)], args={"q": 0.1, "keepdim": True})
    c(FAM, "quantile_qtensor", "torch.quantile", lambda x, q: torch.quantile(x, q, dim=1), [rn(2, 5), torch.tensor([0.0, 0.3, 1.0], dtype=torch.float64)],
      args={"dim": 1}, requires_grad=[True, False])
    c(FAM, "quantile_nan", "torch.quantile", lambda x: torch.quantile(x, 0.5, dim=1), [xn], args={"q": 0.5, "dim": 1}, grad=False)
    c(FAM, "nanquantile", "torch.nanquantile", lambda x: torch.nanquantile(x, 0.5, dim=1), [xn], args={"q": 0.5, "dim": 1})
    c(FAM, "nanquantile_allnan", "torch.nanquantile", lambda x: torch.nanquantile(x, 0.3, dim=0),
      [torch.tensor([[float("nan"), 1.0], [float("nan"), 3.0]], dtype=torch.float64)], args={"q": 0.3, "dim": 0}, grad=False)
    c(FAM, "quantile_f32", "torch.quantile", lambda x: torch.quantile(x, 0.9, dim=-1), [rn(2, 7, dtype=torch.float32)], args={"q": 0.9, "dim": -1})
    c(FAM, "err_quantile_q", "torch.quantile", lambda x: torch.quantile(x, 1.5), [rn(4)], args={"q": 1.5}, expect_error=True)
    c(FAM, "err_quantile_interp", "torch.quantile", lambda x: torch.quantile(x, 0.5, interpolation="foo"), [rn(4)],
      args={"q": 0.5, "interpolation": "foo"}, expect_error=True)
    c(FAM, "err_quantile_int", "torch.quantile", lambda x: torch.quantile(x, 0.5), [ri(0, 3, 4)], args={"q": 0.5}, expect_error=True)
    c(FAM, "err_quantile_empty", "torch.quantile", lambda x: torch.quantile(x, 0.5), [rn(0)], args={"q": 0.5}, expect_error=True)


def counting_fns(w):
    c = w.case
    c(FAM, "heaviside", "torch.heaviside", torch.heaviside, [torch.tensor([-1.5, 0.0, 2.0, -0.0, 0.0], dtype=torch.float64), torch.tensor([0.5], dtype=torch.float64)],
      grad=False)
    c(FAM, "heaviside_int64", "torch.heaviside", torch.heaviside, [torch.tensor([[-1, 0, 2], [0, 3, -4]]), torch.tensor([7, 8, 9])])
    c(FAM, "err_heaviside_dtypes", "torch.heaviside", torch.heaviside, [rn(3), rn(3, dtype=torch.float32)], expect_error=True)
    c(FAM, "err_heaviside_complex", "torch.heaviside", torch.heaviside, [rc(3), rc(3)], expect_error=True)
    x = torch.tensor([1, 3, 1, 0, 3, 3, 7])
    c(FAM, "bincount", "torch.bincount", torch.bincount, [x])
    c(FAM, "bincount_minlength", "torch.bincount", lambda x: torch.bincount(x, minlength=10), [x], args={"minlength": 10})
    c(FAM, "bincount_weights_f32", "torch.bincount", lambda x, w: torch.bincount(x, w), [x, rn(7, dtype=torch.float32)], grad=False)
    c(FAM, "bincount_weights_f64", "torch.bincount", lambda x, w: torch.bincount(x, w), [x, rn(7)], grad=False,
      note="PyTorch 1.13 has no derivative for bincount (ctensor's composition has one: scatter_add's)")
    c(FAM, "bincount_weights_int", "torch.bincount", lambda x, w: torch.bincount(x, w), [x, ri(0, 5, 7).to(torch.int32)])
    c(FAM, "bincount_empty", "torch.bincount", torch.bincount, [torch.tensor([], dtype=L)])
    c(FAM, "bincount_uint8", "torch.bincount", torch.bincount, [torch.tensor([2, 2, 0], dtype=torch.uint8)])
    c(FAM, "err_bincount_negative", "torch.bincount", torch.bincount, [torch.tensor([1, -1])], expect_error=True)
    c(FAM, "err_bincount_2d", "torch.bincount", torch.bincount, [torch.tensor([[1]])], expect_error=True)
    c(FAM, "err_bincount_float", "torch.bincount", torch.bincount, [torch.tensor([1.0])], expect_error=True)
    c(FAM, "err_bincount_weights", "torch.bincount", lambda x, w: torch.bincount(x, w), [x, torch.ones(5)], expect_error=True)
    c(FAM, "err_bincount_minlength", "torch.bincount", lambda x: torch.bincount(x, minlength=-1), [x], args={"minlength": -1}, expect_error=True)
    c(FAM, "histc", "torch.histc", lambda x: torch.histc(x, bins=7), [rn(50, dtype=torch.float32)], args={"bins": 7}, grad=False)
    c(FAM, "histc_range", "torch.histc", lambda x: torch.histc(x, bins=5, min=-1, max=1), [rn(4, 10)], args={"bins": 5, "min": -1.0, "max": 1.0}, grad=False)
    c(FAM, "histc_edges", "torch.histc", lambda x: torch.histc(x, bins=4, min=1, max=3), [torch.tensor([1.0, 2, 1, 4, 5, 3, 0.5])],
      args={"bins": 4, "min": 1.0, "max": 3.0}, grad=False)
    c(FAM, "histc_one_value", "torch.histc", lambda x: torch.histc(x, bins=4), [torch.tensor([2.0, 2.0])], args={"bins": 4}, grad=False)
    c(FAM, "histc_empty", "torch.histc", lambda x: torch.histc(x, bins=3), [torch.zeros(0)], args={"bins": 3}, grad=False)
    c(FAM, "err_histc_int", "torch.histc", lambda x: torch.histc(x, bins=4), [torch.tensor([1, 2])], args={"bins": 4}, expect_error=True)
    c(FAM, "err_histc_bins", "torch.histc", lambda x: torch.histc(x, bins=0), [torch.tensor([1.0, 2.0])], args={"bins": 0}, expect_error=True)
    c(FAM, "err_histc_minmax", "torch.histc", lambda x: torch.histc(x, bins=3, min=3, max=1), [torch.tensor([1.0, 2.0])],
      args={"bins": 3, "min": 3.0, "max": 1.0}, expect_error=True)
    c(FAM, "err_histc_nan", "torch.histc", lambda x: torch.histc(x, bins=3), [torch.tensor([1.0, float("nan")])], args={"bins": 3}, expect_error=True)
    u = torch.tensor([[3, 1, 2], [3, 1, 9]])
    c(FAM, "unique", "torch.unique", lambda x: torch.unique(x), [u])
    c(FAM, "unique_inverse_counts", "torch.unique", lambda x: torch.unique(x, return_inverse=True, return_counts=True), [u],
      args={"return_inverse": True, "return_counts": True})
    c(FAM, "unique_counts_f64", "torch.unique", lambda x: torch.unique(x, return_counts=True), [torch.tensor([0.5, -1.0, 0.5, 2.0, -1.0], dtype=torch.float64)],
      args={"return_counts": True}, grad=False)
    c(FAM, "unique_bool", "torch.unique", lambda x: torch.unique(x, return_inverse=True), [torch.tensor([True, False, True])], args={"return_inverse": True})
    c(FAM, "unique_empty", "torch.unique", lambda x: torch.unique(x, return_inverse=True, return_counts=True), [torch.zeros(0, dtype=L)],
      args={"return_inverse": True, "return_counts": True})
    v = torch.tensor([1, 1, 2, 2, 3, 1, 1, 2])
    c(FAM, "unique_consecutive", "torch.unique_consecutive", lambda x: torch.unique_consecutive(x, return_inverse=True, return_counts=True), [v],
      args={"return_inverse": True, "return_counts": True})
    c(FAM, "unique_consecutive_2d", "torch.unique_consecutive", lambda x: torch.unique_consecutive(x), [torch.tensor([[1.0, 1.0], [1.0, 2.0]])], grad=False)
    ud = torch.tensor([[1, 2, 3], [0, 5, 6], [1, 2, 3], [0, 5, 4]])
    ic = {"return_inverse": True, "return_counts": True}
    for d in (0, 1, -1):
        c(FAM, "unique_dim%s" % str(d).replace("-", "m"), "torch.unique", lambda x, d=d: torch.unique(x, dim=d, return_inverse=True, return_counts=True),
          [ud], args=dict(ic, dim=d))
    c(FAM, "unique_dim_3d_f64", "torch.unique", lambda x: torch.unique(x, dim=1, return_inverse=True, return_counts=True),
      [torch.tensor([[[1.0, 2.0], [1.0, 2.0], [0.5, 2.0]], [[3.0, 4.0], [3.0, 4.0], [3.0, 4.0]]], dtype=torch.float64)], args=dict(ic, dim=1),
      grad=False)
    c(FAM, "unique_dim_bool", "torch.unique", lambda x: torch.unique(x, dim=0, return_counts=True),
      [torch.tensor([[True, False], [True, True], [True, False]])], args={"dim": 0, "return_counts": True})
    c(FAM, "unique_dim_empty_selected", "torch.unique", lambda x: torch.unique(x, dim=0, return_inverse=True, return_counts=True),
      [torch.zeros(0, 3)], args=dict(ic, dim=0), grad=False)
    c(FAM, "unique_dim_many_rows", "torch.unique", lambda x: torch.unique(x, dim=0, return_inverse=True, return_counts=True),
      [ri(0, 3, 40, 3)], args=dict(ic, dim=0))
    c(FAM, "unique_consecutive_dim", "torch.unique_consecutive",
      lambda x: torch.unique_consecutive(x, dim=0, return_inverse=True, return_counts=True),
      [torch.tensor([[1, 2], [1, 2], [3, 4], [1, 2], [1, 2]])], args=dict(ic, dim=0))
    c(FAM, "err_unique_dim_zero_size", "torch.unique", lambda x: torch.unique(x, dim=0), [torch.zeros(2, 0)], args={"dim": 0}, expect_error=True)
    c(FAM, "err_unique_dim_range", "torch.unique", lambda x: torch.unique(x, dim=2), [ud], args={"dim": 2}, expect_error=True)
    c(FAM, "err_unique_dim_0d", "torch.unique", lambda x: torch.unique(x, dim=0), [torch.tensor(3.0)], args={"dim": 0}, expect_error=True)
    c(FAM, "err_unique_dim_complex", "torch.unique", lambda x: torch.unique(x, dim=0), [rc(2, 2)], args={"dim": 0}, expect_error=True)


def searching_fns(w):
    c = w.case
    seq = torch.tensor([1.0, 2.0, 2.0, 3.0, float("nan")])
    vals = torch.tensor([[2.0, float("nan"), 0.0, 5.0], [1.0, 3.0, 2.5, -1.0]])
    for right in (False, True):
        c(FAM, "searchsorted_1d_right%d" % right, "torch.searchsorted", lambda s, v, r=right: torch.searchsorted(s, v, right=r), [seq, vals],
          args={"right": right})
    c(FAM, "searchsorted_side_right", "torch.searchsorted", lambda s, v: torch.searchsorted(s, v, side="right"), [seq, vals], args={"side": "right"})
    c(FAM, "searchsorted_out_int32", "torch.searchsorted", lambda s, v: torch.searchsorted(s, v, out_int32=True), [seq, vals], args={"out_int32": True})
    nd = torch.sort(rn(2, 3, 6), dim=-1)[0]
    c(FAM, "searchsorted_nd", "torch.searchsorted", lambda s, v: torch.searchsorted(s, v), [nd, rn(2, 3, 4)])
    c(FAM, "searchsorted_nd_right_noncontig", "torch.searchsorted", lambda s, v: torch.searchsorted(s, v, right=True), [nd, rn(2, 3, 4)],
      args={"right": True}, permute=[None, [1, 0, 2]])
    c(FAM, "searchsorted_int64", "torch.searchsorted", lambda s, v: torch.searchsorted(s, v), [torch.tensor([-3, 0, 0, 4, 9]), ri(-5, 11, 3, 4)])
    c(FAM, "searchsorted_mixed_dtypes", "torch.searchsorted", lambda s, v: torch.searchsorted(s, v), [torch.tensor([0.5, 1.5, 2.5]), torch.tensor([0, 1, 2, 3])])
    c(FAM, "searchsorted_uint8", "torch.searchsorted", lambda s, v: torch.searchsorted(s, v, right=True),
      [torch.tensor([0, 10, 200], dtype=torch.uint8), torch.tensor([5, 10, 255], dtype=torch.uint8)], args={"right": True})
    unsorted = torch.tensor([3.0, 1.0, 2.0, 0.5])
    c(FAM, "searchsorted_sorter", "torch.searchsorted", lambda s, v, o: torch.searchsorted(s, v, sorter=o),
      [unsorted, torch.tensor([0.0, 1.0, 2.5, 4.0]), torch.argsort(unsorted)])
    u2 = rn(2, 5)
    c(FAM, "searchsorted_sorter_nd", "torch.searchsorted", lambda s, v, o: torch.searchsorted(s, v, side="right", sorter=o),
      [u2, rn(2, 3), torch.argsort(u2, dim=-1)], args={"side": "right"})
    c(FAM, "searchsorted_empty_values", "torch.searchsorted", lambda s, v: torch.searchsorted(s, v), [seq, torch.zeros(0, 3)])
    c(FAM, "searchsorted_empty_seq", "torch.searchsorted", lambda s, v: torch.searchsorted(s, v), [torch.zeros(0), torch.tensor([1.0, -1.0])])
    c(FAM, "searchsorted_0d_value", "torch.searchsorted", lambda s, v: torch.searchsorted(s, v), [seq, torch.tensor(2.0)])
    c(FAM, "searchsorted_float16", "torch.searchsorted", lambda s, v: torch.searchsorted(s, v),
      [torch.tensor([0.1, 0.2, 0.3], dtype=torch.float16), torch.tensor([0.2, 0.25], dtype=torch.float16)])
    c(FAM, "err_searchsorted_shapes", "torch.searchsorted", torch.searchsorted, [rn(2, 3), rn(3, 3)], expect_error=True)
    c(FAM, "err_searchsorted_0d_seq", "torch.searchsorted", torch.searchsorted, [torch.tensor(1.0), rn(3)], expect_error=True)
    c(FAM, "err_searchsorted_scalar_nd", "torch.searchsorted", torch.searchsorted, [rn(2, 3), torch.tensor(2.0)], expect_error=True)
    c(FAM, "err_searchsorted_side", "torch.searchsorted", lambda s, v: torch.searchsorted(s, v, side="mid"), [seq, vals], args={"side": "mid"},
      expect_error=True)
    c(FAM, "err_searchsorted_side_right", "torch.searchsorted", lambda s, v: torch.searchsorted(s, v, side="left", right=True), [seq, vals],
      args={"side": "left", "right": True}, expect_error=True)
    c(FAM, "err_searchsorted_sorter_dtype", "torch.searchsorted", lambda s, v, o: torch.searchsorted(s, v, sorter=o),
      [unsorted, rn(2), torch.tensor([0.0, 1.0, 2.0, 3.0])], expect_error=True)
    c(FAM, "err_searchsorted_sorter_shape", "torch.searchsorted", lambda s, v, o: torch.searchsorted(s, v, sorter=o),
      [unsorted, rn(2), torch.tensor([0, 1])], expect_error=True)
    c(FAM, "err_searchsorted_bool", "torch.searchsorted", torch.searchsorted, [torch.tensor([False, True]), torch.tensor([True])], expect_error=True)
    c(FAM, "err_searchsorted_complex", "torch.searchsorted", torch.searchsorted, [rc(3), rc(2)], expect_error=True)
    b = torch.tensor([1.0, 3.0, 5.0, 7.0, 9.0])
    x = torch.tensor([[-1.0, 1.0, 3.0, 6.0], [9.0, 10.0, 5.0, float("nan")]])
    for right in (False, True):
        c(FAM, "bucketize_right%d" % right, "torch.bucketize", lambda x, b, r=right: torch.bucketize(x, b, right=r), [x, b], args={"right": right})
    c(FAM, "bucketize_int32_ints", "torch.bucketize", lambda x, b: torch.bucketize(x, b, out_int32=True), [ri(0, 12, 6), torch.tensor([2, 4, 8])],
      args={"out_int32": True})
    c(FAM, "err_bucketize_2d", "torch.bucketize", torch.bucketize, [x, torch.ones(2, 2)], expect_error=True)


def histogram_fns(w):
    c = w.case
    hg = torch.histogram
    x = torch.tensor([1.0, 2.0, 1.0, 2.5, 4.0, 10.0], dtype=torch.float64)
    c(FAM, "histogram_bins4", "torch.histogram", lambda x: hg(x, 4), [x], args={"bins": 4}, grad=False)
    c(FAM, "histogram_edges", "torch.histogram", lambda x, b: hg(x, b), [x, torch.tensor([0.0, 1.0, 2.5, 4.0], dtype=torch.float64)],
      grad=False)
    c(FAM, "histogram_range_weight_density", "torch.histogram", lambda x, wt: hg(x, 3, range=(0.0, 3.0), weight=wt, density=True),
      [x, torch.tensor([2.0, 1.0, 0.5, 3.0, 1.0, 1.0], dtype=torch.float64)], args={"bins": 3, "range_lo": 0.0, "range_hi": 3.0,
                                                                              "weight": True, "density": True}, grad=False)
    c(FAM, "histogram_one_value", "torch.histogram", lambda x: hg(x, 2), [torch.tensor([3.0, 3.0, 3.0])], args={"bins": 2}, grad=False)
    c(FAM, "histogram_empty", "torch.histogram", lambda x: hg(x, 2), [torch.zeros(0)], args={"bins": 2}, grad=False)
    c(FAM, "histogram_2d_f32", "torch.histogram", lambda x: hg(x, 7), [rn(20, 30, dtype=torch.float32)], args={"bins": 7}, grad=False)
    c(FAM, "histogram_nonincreasing", "torch.histogram", lambda x, b: hg(x, b), [x, torch.tensor([1.0, 0.0], dtype=torch.float64)],
      grad=False)
    c(FAM, "histogram_edges_density_f32", "torch.histogram", lambda x, b: hg(x, b, density=True),
      [rn(50, dtype=torch.float32), torch.tensor([-2.0, -0.5, 0.0, 0.25, 3.0])], args={"density": True}, grad=False)
    c(FAM, "err_histogram_int", "torch.histogram", lambda x: hg(x, 2), [ri(0, 5, 4)], args={"bins": 2}, expect_error=True)
    c(FAM, "err_histogram_bins0", "torch.histogram", lambda x: hg(x, 0), [x], args={"bins": 0}, expect_error=True)
    c(FAM, "err_histogram_range", "torch.histogram", lambda x: hg(x, 2, range=(3.0, 1.0)), [x], args={"bins": 2, "range_lo": 3.0, "range_hi": 1.0},
      expect_error=True)
    c(FAM, "err_histogram_edges_2d", "torch.histogram", lambda x, b: hg(x, b), [x, torch.ones(1, 2, dtype=torch.float64)], expect_error=True)
    c(FAM, "err_histogram_weight_shape", "torch.histogram", lambda x, wt: hg(x, 2, weight=wt), [x, torch.ones(3, dtype=torch.float64)],
      args={"bins": 2, "weight": True}, expect_error=True)
    c(FAM, "err_histogram_edges_dtype", "torch.histogram", lambda x, b: hg(x, b), [x, torch.tensor([0.0, 1.0])], expect_error=True)
    c(FAM, "err_histogram_nan", "torch.histogram", lambda x: hg(x, 2), [torch.tensor([1.0, float("nan"), 2.0])], args={"bins": 2},
      expect_error=True)


def scan_fns(w):
    c = w.case
    lc = torch.logcumsumexp
    c(FAM, "logcumsumexp_dim1", "torch.logcumsumexp", lambda x: lc(x, 1), [rn(3, 5)], args={"dim": 1})
    c(FAM, "logcumsumexp_dim0_inner", "torch.logcumsumexp", lambda x: lc(x, 0), [rn(4, 2, 3)], args={"dim": 0})
    c(FAM, "logcumsumexp_neg_dim", "torch.logcumsumexp", lambda x: lc(x, -2), [rn(2, 3, 4)], args={"dim": -2})
    c(FAM, "logcumsumexp_f32_wide", "torch.logcumsumexp", lambda x: lc(x, 0), [rn(5, 300, dtype=torch.float32)], args={"dim": 0},
      note="300 columns: more than one block of the kernel's 256")
    c(FAM, "logcumsumexp_noncontig", "torch.logcumsumexp", lambda x: lc(x, 1), [rn(4, 3)], args={"dim": 1}, permute=[[1, 0]])
    c(FAM, "logcumsumexp_large", "torch.logcumsumexp", lambda x: lc(x, 0),
      [torch.tensor([1000.0, 1000.0, -1000.0, 88.0, 89.0, 3e38], dtype=torch.float32)], args={"dim": 0})
    c(FAM, "logcumsumexp_specials", "torch.logcumsumexp", lambda x: lc(x, 1),
      [torch.tensor([[float("-inf"), float("-inf"), 1.0, float("inf"), 2.0], [0.5, float("nan"), 2.0, -1.0, 3.0],
                     [float("inf"), float("inf"), 1.0, 0.0, -2.0]], dtype=torch.float64)], args={"dim": 1}, grad=False)
    c(FAM, "logcumsumexp_0d", "torch.logcumsumexp", lambda x: lc(x, 0), [torch.tensor(2.5, dtype=torch.float64)], args={"dim": 0})
    c(FAM, "logcumsumexp_empty", "torch.logcumsumexp", lambda x: lc(x, 0), [torch.zeros(0, 3, dtype=torch.float64)], args={"dim": 0})
    c(FAM, "logcumsumexp_bf16", "torch.logcumsumexp", lambda x: lc(x, 1), [rn(2, 6, dtype=torch.bfloat16)], args={"dim": 1}, grad=False)
    c(FAM, "err_logcumsumexp_int", "torch.logcumsumexp", lambda x: lc(x, 0), [ri(0, 5, 4)], args={"dim": 0}, expect_error=True)
    c(FAM, "err_logcumsumexp_bool", "torch.logcumsumexp", lambda x: lc(x, 0), [torch.tensor([True, False])], args={"dim": 0}, expect_error=True)
    c(FAM, "err_logcumsumexp_complex", "torch.logcumsumexp", lambda x: lc(x, 0), [rc(3)], args={"dim": 0}, expect_error=True)
    c(FAM, "err_logcumsumexp_dim", "torch.logcumsumexp", lambda x: lc(x, 2), [rn(2, 3)], args={"dim": 2}, expect_error=True)


def generate(w):
    torch.manual_seed(0)
    shape_fns(w)
    joining_fns(w)
    math_fns(w)
    stats_fns(w)
    counting_fns(w)
    searching_fns(w)
    scan_fns(w)
    histogram_fns(w)
    unfold_fns(w)


def unfold_fns(w):
    """Tensor.unfold (ct_unfold), added after the rest: seeded on its own"""
    torch.manual_seed(11)
    c = w.case
    U = "Tensor.unfold"

    def uf(d, size, step):
        return lambda x: x.unfold(d, size, step)
    c(FAM, "unfold_1d_overlap", U, uf(0, 3, 2), [rn(9)], args={"dimension": 0, "size": 3, "step": 2})
    c(FAM, "unfold_1d_gap", U, uf(0, 2, 3), [rn(10)], args={"dimension": 0, "size": 2, "step": 3})
    c(FAM, "unfold_last_dim", U, uf(-1, 4, 1), [rn(2, 3, 6)], args={"dimension": -1, "size": 4, "step": 1})
    c(FAM, "unfold_middle_dim", U, uf(1, 2, 2), [rn(3, 5, 2)], args={"dimension": 1, "size": 2, "step": 2})
    c(FAM, "unfold_noncontig", U, uf(0, 3, 1), [rn(5, 4)], args={"dimension": 0, "size": 3, "step": 1}, permute=[[1, 0]])
    c(FAM, "unfold_full_size", U, uf(1, 4, 1), [rn(2, 4)], args={"dimension": 1, "size": 4, "step": 1})
    c(FAM, "unfold_size0", U, uf(0, 0, 1), [rn(3, 2)], args={"dimension": 0, "size": 0, "step": 1}, grad=False)
    c(FAM, "unfold_0d", U, uf(0, 1, 1), [torch.tensor(1.5, dtype=torch.float64)], args={"dimension": 0, "size": 1, "step": 1})
    c(FAM, "unfold_int64", U, uf(0, 2, 1), [ri(-5, 5, 6)], args={"dimension": 0, "size": 2, "step": 1}, grad=False)
    c(FAM, "unfold_c128", U, uf(0, 2, 1), [rc(4)], args={"dimension": 0, "size": 2, "step": 1}, grad=False)
    c(FAM, "err_unfold_size", U, uf(0, 11, 1), [rn(10)], args={"dimension": 0, "size": 11, "step": 1}, expect_error=True)
    c(FAM, "err_unfold_step", U, uf(0, 3, 0), [rn(10)], args={"dimension": 0, "size": 3, "step": 0}, expect_error=True)
    c(FAM, "err_unfold_dim", U, uf(1, 2, 1), [rn(10)], args={"dimension": 1, "size": 2, "step": 1}, expect_error=True)
