"""Matrix products: mm, bmm, matmul, addmm, baddbmm, addmv, mv, dot, vdot, outer,
F.linear, tensordot, einsum. Values and gradients (float inputs), broadcasting
batch dims, 1-D operands, non-contiguous inputs (permute=), empty dims, integer
and half-precision dtypes, and PyTorch's errors."""
import torch
import torch.nn.functional as F

FAM = "blas"


def r(*shape, dtype=torch.float64):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


def ri(*shape, dtype=torch.int64):
    return torch.randint(-4, 5, shape).to(dtype)


def mm_cases(w):
    w.case(FAM, "mm_f32", "torch.mm", torch.mm, [r(3, 4, dtype=torch.float32), r(4, 5, dtype=torch.float32)])
    w.case(FAM, "mm_f64_noncontig", "torch.mm", torch.mm, [r(3, 4), r(4, 5)], permute=[[1, 0], [1, 0]])
    w.case(FAM, "mm_f32_blocked", "torch.mm", torch.mm, [r(17, 33, dtype=torch.float32), r(33, 19, dtype=torch.float32)],
           permute=[None, [1, 0]], note="large enough for the packed GEMM path; B transposed")
    w.case(FAM, "mm_empty_k", "torch.mm", torch.mm, [r(2, 0), r(0, 3)])
    w.case(FAM, "mm_empty_m", "torch.mm", torch.mm, [r(0, 3), r(3, 2)])
    w.case(FAM, "mm_int64", "torch.mm", torch.mm, [ri(3, 4), ri(4, 2)])
    w.case(FAM, "mm_int32", "torch.mm", torch.mm, [ri(3, 4, dtype=torch.int32), ri(4, 2, dtype=torch.int32)])
    w.case(FAM, "mm_uint8", "torch.mm", torch.mm, [ri(3, 4).abs().to(torch.uint8), ri(4, 2).abs().to(torch.uint8)])
    w.case(FAM, "mm_bf16", "torch.mm", torch.mm, [r(3, 4, dtype=torch.bfloat16), r(4, 2, dtype=torch.bfloat16)], optional=True)
    w.case(FAM, "mm_f16", "torch.mm", torch.mm, [r(3, 4, dtype=torch.float16), r(4, 2, dtype=torch.float16)], optional=True,
           note="PyTorch 1.13 has no CPU half mm: written only where PyTorch has it")
    w.case(FAM, "err_mm_shape", "torch.mm", torch.mm, [r(6, 7, dtype=torch.float32), r(5, 2, dtype=torch.float32)], expect_error=True)
    w.case(FAM, "err_mm_dtype", "torch.mm", torch.mm, [r(2, 3, dtype=torch.float32), r(3, 2)], expect_error=True)
    w.case(FAM, "err_mm_1d", "torch.mm", torch.mm, [r(3), r(3, 2)], expect_error=True)
    w.case(FAM, "err_mm_bool", "torch.mm", torch.mm, [torch.ones(2, 3, dtype=torch.bool), torch.ones(3, 2, dtype=torch.bool)],
           expect_error=True)


def bmm_cases(w):
    w.case(FAM, "bmm_f32", "torch.bmm", torch.bmm, [r(2, 3, 4, dtype=torch.float32), r(2, 4, 5, dtype=torch.float32)])
    w.case(FAM, "bmm_f64_noncontig", "torch.bmm", torch.bmm, [r(3, 2, 4), r(3, 4, 2)], permute=[[1, 0, 2], [0, 2, 1]])
    w.case(FAM, "bmm_empty_batch", "torch.bmm", torch.bmm, [r(0, 2, 3), r(0, 3, 4)])
    w.case(FAM, "bmm_int64", "torch.bmm", torch.bmm, [ri(2, 3, 4), ri(2, 4, 2)])
    w.case(FAM, "bmm_bf16", "torch.bmm", torch.bmm, [r(2, 3, 4, dtype=torch.bfloat16), r(2, 4, 2, dtype=torch.bfloat16)], optional=True)
    w.case(FAM, "err_bmm_shape", "torch.bmm", torch.bmm, [r(2, 3, 4), r(2, 5, 3)], expect_error=True)
    w.case(FAM, "err_bmm_2d", "torch.bmm", torch.bmm, [r(3, 4), r(2, 4, 3)], expect_error=True)
    w.case(FAM, "err_bmm_dtype", "torch.bmm", torch.bmm, [r(2, 3, 4), r(2, 4, 3, dtype=torch.float32)], expect_error=True)


MATMUL_SHAPES = [
    ("1d_1d", (4,), (4,)), ("2d_1d", (3, 4), (4,)), ("1d_2d", (4,), (4, 3)), ("2d_2d", (3, 4), (4, 2)),
    ("3d_2d", (2, 3, 4), (4, 2)), ("3d_1d", (2, 3, 4), (4,)), ("1d_3d", (4,), (2, 4, 3)), ("2d_3d", (3, 4), (2, 4, 2)),
    ("3d_3d", (2, 3, 4), (2, 4, 2)), ("4d_3d_bcast", (2, 1, 3, 4), (5, 4, 2)), ("4d_1d", (2, 2, 3, 4), (4,)),
    ("1d_4d", (4,), (2, 2, 4, 3)), ("3d_4d_bcast", (3, 2, 4), (2, 1, 4, 5)),
]


def matmul_cases(w):
    for name, sa, sb in MATMUL_SHAPES:
        w.case(FAM, "matmul_" + name, "torch.matmul", torch.matmul, [r(*sa), r(*sb)])
    w.case(FAM, "matmul_3d_2d_f32", "torch.matmul", torch.matmul, [r(2, 3, 4, dtype=torch.float32), r(4, 5, dtype=torch.float32)])
    w.case(FAM, "matmul_3d_noncontig", "torch.matmul", torch.matmul, [r(2, 3, 4), r(4, 2)], permute=[[0, 2, 1], None],
           note="a transposed 3-D operand: bmm without folding")
    w.case(FAM, "matmul_4d_noncontig", "torch.matmul", torch.matmul, [r(2, 2, 3, 4), r(2, 1, 4, 2)], permute=[[1, 0, 2, 3], [0, 1, 3, 2]])
    w.case(FAM, "matmul_empty", "torch.matmul", torch.matmul, [r(3, 5, 0), r(0, 2)])
    w.case(FAM, "matmul_empty_batch", "torch.matmul", torch.matmul, [r(0, 2, 3), r(3, 4)])
    w.case(FAM, "matmul_int64", "torch.matmul", torch.matmul, [ri(2, 3, 4), ri(4, 2)])
    w.case(FAM, "matmul_int64_1d", "torch.matmul", torch.matmul, [ri(4), ri(4)])
    w.case(FAM, "matmul_int64_batched", "torch.matmul", torch.matmul, [ri(2, 1, 3, 4), ri(3, 4, 2)])
    w.case(FAM, "matmul_bf16", "torch.matmul", torch.matmul, [r(2, 3, 4, dtype=torch.bfloat16), r(4, 3, dtype=torch.bfloat16)],
           optional=True)
    w.case(FAM, "err_matmul_0d", "torch.matmul", torch.matmul, [r(), r(3)], expect_error=True)
    w.case(FAM, "err_matmul_1d_1d", "torch.matmul", torch.matmul, [r(3), r(4)], expect_error=True)
    w.case(FAM, "err_matmul_2d_1d", "torch.matmul", torch.matmul, [r(2, 3), r(4)], expect_error=True)
    w.case(FAM, "err_matmul_1d_2d", "torch.matmul", torch.matmul, [r(4), r(3, 2)], expect_error=True)
    w.case(FAM, "err_matmul_3d_2d", "torch.matmul", torch.matmul, [r(5, 2, 4), r(3, 2)], expect_error=True)
    w.case(FAM, "err_matmul_1d_3d", "torch.matmul", torch.matmul, [r(4), r(5, 3, 2)], expect_error=True)
    w.case(FAM, "err_matmul_3d_3d", "torch.matmul", torch.matmul, [r(5, 2, 4), r(5, 3, 2)], expect_error=True)
    w.case(FAM, "err_matmul_bcast", "torch.matmul", torch.matmul, [r(5, 2, 3), r(4, 3, 2)], expect_error=True)
    w.case(FAM, "err_matmul_dtype", "torch.matmul", torch.matmul, [r(2, 3, dtype=torch.float32), r(3, 2)], expect_error=True)


def addmm_cases(w):
    f = lambda b, a: (lambda x, m1, m2: torch.addmm(x, m1, m2, beta=b, alpha=a))  # noqa: E731
    w.case(FAM, "addmm_f32", "torch.addmm", torch.addmm, [r(3, 5, dtype=torch.float32), r(3, 4, dtype=torch.float32),
                                                          r(4, 5, dtype=torch.float32)])
    w.case(FAM, "addmm_bcast_row", "torch.addmm", f(0.5, -2.0), [r(5), r(3, 4), r(4, 5)], args={"beta": 0.5, "alpha": -2.0})
    w.case(FAM, "addmm_bcast_col", "torch.addmm", f(1.5, 1.0), [r(3, 1), r(3, 4), r(4, 5)], args={"beta": 1.5, "alpha": 1.0})
    w.case(FAM, "addmm_bcast_0d", "torch.addmm", torch.addmm, [r(), r(3, 4), r(4, 5)])
    w.case(FAM, "addmm_noncontig", "torch.addmm", f(2.0, 0.25), [r(3, 5), r(3, 4), r(4, 5)], args={"beta": 2.0, "alpha": 0.25},
           permute=[[1, 0], [1, 0], [1, 0]])
    w.case(FAM, "addmm_beta0", "torch.addmm", f(0.0, 1.0), [torch.full((5,), float("nan"), dtype=torch.float64), r(3, 4), r(4, 5)],
           args={"beta": 0.0, "alpha": 1.0}, requires_grad=[False, True, True], note="beta=0 ignores NaN in the input")
    w.case(FAM, "addmm_int64", "torch.addmm", f(2, 3), [ri(5), ri(3, 4), ri(4, 5)], args={"beta": 2, "alpha": 3})
    w.case(FAM, "addmm_bf16", "torch.addmm", torch.addmm, [r(2, dtype=torch.bfloat16), r(3, 4, dtype=torch.bfloat16),
                                                           r(4, 2, dtype=torch.bfloat16)], optional=True)
    w.case(FAM, "err_addmm_shape", "torch.addmm", torch.addmm, [r(3), r(2, 3), r(4, 3)], expect_error=True)
    w.case(FAM, "err_addmm_input", "torch.addmm", torch.addmm, [r(5), r(2, 3), r(3, 4)], expect_error=True)
    w.case(FAM, "err_addmm_dtype", "torch.addmm", torch.addmm, [r(4), r(2, 3, dtype=torch.float32), r(3, 4, dtype=torch.float32)],
           expect_error=True)
    w.case(FAM, "err_addmm_1d", "torch.addmm", torch.addmm, [r(4), r(3), r(3, 4)], expect_error=True)


def baddbmm_cases(w):
    f = lambda b, a: (lambda x, m1, m2: torch.baddbmm(x, m1, m2, beta=b, alpha=a))  # noqa: E731
    w.case(FAM, "baddbmm_f32", "torch.baddbmm", torch.baddbmm, [r(2, 3, 4, dtype=torch.float32), r(2, 3, 5, dtype=torch.float32),
                                                                r(2, 5, 4, dtype=torch.float32)])
    w.case(FAM, "baddbmm_bcast", "torch.baddbmm", f(-0.5, 2.0), [r(3, 1), r(2, 3, 5), r(2, 5, 4)], args={"beta": -0.5, "alpha": 2.0})
    w.case(FAM, "baddbmm_noncontig", "torch.baddbmm", f(1.0, 0.5), [r(2, 3, 4), r(2, 3, 5), r(2, 5, 4)], args={"beta": 1.0, "alpha": 0.5},
           permute=[None, [0, 2, 1], [1, 0, 2]])
    w.case(FAM, "baddbmm_int64", "torch.baddbmm", f(2, 3), [ri(2, 2, 2), ri(2, 2, 3), ri(2, 3, 2)], args={"beta": 2, "alpha": 3})
    w.case(FAM, "err_baddbmm_shape", "torch.baddbmm", torch.baddbmm, [r(2, 3, 4), r(2, 3, 5), r(2, 4, 4)], expect_error=True)
    w.case(FAM, "err_baddbmm_input", "torch.baddbmm", torch.baddbmm, [r(3, 3, 4), r(2, 3, 5), r(2, 5, 4)], expect_error=True)
    w.case(FAM, "err_baddbmm_dtype", "torch.baddbmm", torch.baddbmm, [r(2, 2), r(2, 2, 3), r(2, 3, 2, dtype=torch.float32)],
           expect_error=True)


def mv_dot_cases(w):
    f = lambda b, a: (lambda x, m, v: torch.addmv(x, m, v, beta=b, alpha=a))  # noqa: E731
    w.case(FAM, "addmv_f32", "torch.addmv", torch.addmv, [r(3, dtype=torch.float32), r(3, 4, dtype=torch.float32), r(4, dtype=torch.float32)])
    w.case(FAM, "addmv_args", "torch.addmv", f(0.5, 2.0), [r(3), r(3, 4), r(4)], args={"beta": 0.5, "alpha": 2.0})
    w.case(FAM, "addmv_bcast_0d", "torch.addmv", torch.addmv, [r(), r(3, 4), r(4)])
    w.case(FAM, "addmv_bcast_1", "torch.addmv", f(2.0, -1.0), [r(1), r(3, 4), r(4)], args={"beta": 2.0, "alpha": -1.0})
    w.case(FAM, "addmv_noncontig", "torch.addmv", torch.addmv, [r(3), r(3, 4), r(4)], permute=[None, [1, 0], None])
    w.case(FAM, "addmv_int64", "torch.addmv", torch.addmv, [ri(3), ri(3, 4), ri(4)])
    w.case(FAM, "err_addmv_shape", "torch.addmv", torch.addmv, [r(2), r(2, 3), r(4)], expect_error=True)
    w.case(FAM, "err_addmv_input", "torch.addmv", torch.addmv, [r(3), r(2, 3), r(3)], expect_error=True)
    w.case(FAM, "err_addmv_1d", "torch.addmv", torch.addmv, [r(2), r(3), r(3)], expect_error=True)
    w.case(FAM, "mv_f32", "torch.mv", torch.mv, [r(3, 4, dtype=torch.float32), r(4, dtype=torch.float32)])
    w.case(FAM, "mv_f64_noncontig", "torch.mv", torch.mv, [r(5, 4), r(4)], permute=[[1, 0], None])
    w.case(FAM, "mv_f64_large", "torch.mv", torch.mv, [r(20, 40), r(40)])
    w.case(FAM, "mv_empty", "torch.mv", torch.mv, [r(0, 3), r(3)])
    w.case(FAM, "mv_int64", "torch.mv", torch.mv, [ri(3, 4), ri(4)])
    w.case(FAM, "mv_bf16", "torch.mv", torch.mv, [r(3, 4, dtype=torch.bfloat16), r(4, dtype=torch.bfloat16)], optional=True)
    w.case(FAM, "err_mv_shape", "torch.mv", torch.mv, [r(2, 3), r(4)], expect_error=True)
    w.case(FAM, "err_mv_2d", "torch.mv", torch.mv, [r(2, 3), r(3, 1)], expect_error=True)
    w.case(FAM, "err_mv_dtype", "torch.mv", torch.mv, [r(2, 3, dtype=torch.float32), r(3)], expect_error=True)
    for op, fn in (("dot", torch.dot), ("vdot", torch.vdot)):
        w.case(FAM, op + "_f32", "torch." + op, fn, [r(5, dtype=torch.float32), r(5, dtype=torch.float32)])
        w.case(FAM, op + "_f64", "torch." + op, fn, [r(7), r(7)])
        w.case(FAM, op + "_empty", "torch." + op, fn, [r(0), r(0)])
        w.case(FAM, op + "_int64", "torch." + op, fn, [ri(6), ri(6)])
        w.case(FAM, op + "_bf16", "torch." + op, fn, [r(4, dtype=torch.bfloat16), r(4, dtype=torch.bfloat16)], optional=True)
        w.case(FAM, "err_" + op + "_size", "torch." + op, fn, [r(3), r(4)], expect_error=True)
        w.case(FAM, "err_" + op + "_2d", "torch." + op, fn, [r(2, 2), r(2, 2)], expect_error=True)
        w.case(FAM, "err_" + op + "_dtype", "torch." + op, fn, [r(3, dtype=torch.float32), r(3)], expect_error=True)
    w.case(FAM, "dot_int32", "torch.dot", torch.dot, [ri(6, dtype=torch.int32), ri(6, dtype=torch.int32)])
    w.case(FAM, "outer_f32", "torch.outer", torch.outer, [r(3, dtype=torch.float32), r(4, dtype=torch.float32)])
    w.case(FAM, "outer_f64", "torch.outer", torch.outer, [r(2), r(5)])
    w.case(FAM, "outer_promote", "torch.outer", torch.outer, [ri(3), r(2)])
    w.case(FAM, "outer_int64", "torch.outer", torch.outer, [ri(3), ri(2)])
    w.case(FAM, "outer_empty", "torch.outer", torch.outer, [r(0), r(3)])
    w.case(FAM, "err_outer_2d", "torch.outer", torch.outer, [r(2, 2), r(3)], expect_error=True)


def linear_cases(w):
    L = "torch.nn.functional.linear"
    w.case(FAM, "linear_2d", L, F.linear, [r(5, 4, dtype=torch.float32), r(3, 4, dtype=torch.float32), r(3, dtype=torch.float32)])
    w.case(FAM, "linear_2d_nobias", L, F.linear, [r(5, 4), r(3, 4)])
    w.case(FAM, "linear_3d", L, F.linear, [r(2, 5, 4), r(3, 4), r(3)])
    w.case(FAM, "linear_3d_nobias", L, F.linear, [r(2, 5, 4), r(3, 4)])
    w.case(FAM, "linear_4d", L, F.linear, [r(2, 1, 3, 4), r(3, 4), r(3)])
    w.case(FAM, "linear_1d", L, F.linear, [r(4), r(3, 4), r(3)])
    w.case(FAM, "linear_3d_noncontig", L, F.linear, [r(2, 5, 4), r(3, 4), r(3)], permute=[[1, 0, 2], [1, 0], None])
    w.case(FAM, "linear_bias_0d", L, F.linear, [r(5, 4), r(3, 4), r()])
    w.case(FAM, "linear_empty", L, F.linear, [r(0, 4), r(3, 4), r(3)])
    w.case(FAM, "linear_int64", L, F.linear, [ri(2, 3), ri(4, 3), ri(4)])
    w.case(FAM, "linear_bf16", L, F.linear, [r(2, 3, dtype=torch.bfloat16), r(4, 3, dtype=torch.bfloat16), r(4, dtype=torch.bfloat16)],
           optional=True)
    w.case(FAM, "err_linear_shape", L, F.linear, [r(6, 7, dtype=torch.float32), r(2, 5, dtype=torch.float32)], expect_error=True)
    w.case(FAM, "err_linear_bias", L, F.linear, [r(6, 4), r(3, 4), r(5)], expect_error=True)
    w.case(FAM, "err_linear_3d_weight", L, F.linear, [r(6, 4), r(2, 3, 4)], expect_error=True)
    w.case(FAM, "err_linear_dtype", L, F.linear, [r(6, 4, dtype=torch.float32), r(3, 4)], expect_error=True)


def tensordot_cases(w):
    T = "torch.tensordot"
    td = lambda dims: (lambda a, b: torch.tensordot(a, b, dims=dims))  # noqa: E731
    w.case(FAM, "tensordot_lists", T, td([[1, 2], [0, 1]]), [r(2, 3, 4), r(3, 4, 5)], args={"dims": [[1, 2], [0, 1]]})
    w.case(FAM, "tensordot_lists_swapped", T, td([[2, 0], [0, 2]]), [r(3, 2, 4), r(4, 5, 3)], args={"dims": [[2, 0], [0, 2]]})
    w.case(FAM, "tensordot_int2", T, td(2), [r(2, 3, 4), r(3, 4, 5, dtype=torch.float64)], args={"dims": 2})
    w.case(FAM, "tensordot_int0", T, td(0), [r(2, 3), r(4)], args={"dims": 0})
    w.case(FAM, "tensordot_f32", T, td(1), [r(2, 3, dtype=torch.float32), r(3, 2, dtype=torch.float32)], args={"dims": 1})
    w.case(FAM, "tensordot_bcast1", T, td([[1], [0]]), [r(2, 1, 4), r(3, 4, 5)], args={"dims": [[1], [0]]})
    w.case(FAM, "tensordot_noncontig", T, td([[0], [1]]), [r(3, 4), r(2, 3)], args={"dims": [[0], [1]]}, permute=[[1, 0], [1, 0]])
    w.case(FAM, "tensordot_int64", T, td(1), [ri(2, 3), ri(3, 2)], args={"dims": 1})
    w.case(FAM, "err_tensordot_size", T, td([[1, 2], [1, 0]]), [r(2, 3, 4), r(3, 4, 5)], args={"dims": [[1, 2], [1, 0]]},
           expect_error=True)
    w.case(FAM, "err_tensordot_len", T, td([[1, 2], [0]]), [r(2, 3, 4), r(3, 4, 5)], args={"dims": [[1, 2], [0]]}, expect_error=True)
    w.case(FAM, "err_tensordot_dup", T, td([[1, 1], [0, 1]]), [r(2, 3, 4), r(3, 3, 5)], args={"dims": [[1, 1], [0, 1]]},
           expect_error=True)
    w.case(FAM, "err_tensordot_range", T, td(4), [r(2, 3, 4), r(3, 4, 5)], args={"dims": 4}, expect_error=True)


EINSUM = [
    # name, equation, shapes
    ("mm", "ij,jk->ik", [(3, 4), (4, 2)]),
    ("mm_implicit", "ij,jk", [(3, 4), (4, 2)]),
    ("mm_transposed_out", "ij,jk->ki", [(3, 4), (4, 2)]),
    ("bmm", "bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
    ("diag", "ii->i", [(4, 4)]),
    ("trace", "ii", [(4, 4)]),
    ("diag_3d", "iji->ij", [(3, 2, 3)]),
    ("transpose", "ij->ji", [(2, 3)]),
    ("sum_rows", "ij->j", [(3, 4)]),
    ("sum_all", "ij->", [(3, 4)]),
    ("outer", "i,j->ij", [(3,), (4,)]),
    ("inner", "i,i", [(5,), (5,)]),
    ("hadamard", "ij,ij->ij", [(2, 3), (2, 3)]),
    ("mv", "ij,j->i", [(3, 4), (4,)]),
    ("chain3", "ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("chain3_sum", "ij,jk,kl->", [(2, 3), (3, 4), (4, 2)]),
    ("ellipsis_matmul", "...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("ellipsis_implicit", "...ij,...jk", [(2, 2, 3), (2, 3, 2)]),
    ("ellipsis_bcast", "...i,...i", [(2, 3), (4, 1, 3)]),
    ("ellipsis_sum", "b...->...", [(2, 3, 4)]),
    ("ellipsis_dropped", "...ij->ij", [(2, 3, 4)]),
    ("ellipsis_middle", "a...b->b...a", [(2, 3, 4, 5)]),
    ("bcast_label", "ij,ij->ij", [(1, 4), (3, 4)]),
    ("repeated_and_other", "ii,ij->j", [(3, 3), (3, 2)]),
    ("bilinear", "bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("attention", "bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 5, 4)]),
    ("upper_case", "Ij,jK->IK", [(2, 3), (3, 2)]),
    ("spaces", "i j , j k -> i k", [(2, 3), (3, 2)]),
    ("scalar_operand", "i,->i", [(3,), ()]),
    ("empty", "ij,jk->ik", [(2, 0), (0, 3)]),
]


def einsum_cases(w):
    E = "torch.einsum"
    ein = lambda eq: (lambda *ops: torch.einsum(eq, *ops))  # noqa: E731
    for name, eq, shapes in EINSUM:
        w.case(FAM, "einsum_" + name, E, ein(eq), [r(*s) for s in shapes], args={"equation": eq})
    w.case(FAM, "einsum_f32", E, ein("bij,bjk->bik"), [r(2, 3, 4, dtype=torch.float32), r(2, 4, 5, dtype=torch.float32)],
           args={"equation": "bij,bjk->bik"})
    w.case(FAM, "einsum_noncontig", E, ein("ij,jk->ik"), [r(3, 4), r(4, 2)], args={"equation": "ij,jk->ik"}, permute=[[1, 0], [1, 0]])
    w.case(FAM, "einsum_int64", E, ein("ij,jk->ik"), [ri(2, 3), ri(3, 4)], args={"equation": "ij,jk->ik"})
    w.case(FAM, "einsum_int32_trace", E, ein("ii"), [ri(3, 3, dtype=torch.int32)], args={"equation": "ii"})
    w.case(FAM, "einsum_bf16", E, ein("ij,jk->ik"), [r(2, 3, dtype=torch.bfloat16), r(3, 2, dtype=torch.bfloat16)],
           args={"equation": "ij,jk->ik"}, optional=True)
    errs = [
        ("ndim", "ij,jk", [(2, 3, 4), (3, 4)]), ("size", "ij,jk->ik", [(2, 3), (4, 4)]), ("repeat_size", "ii->i", [(2, 3)]),
        ("out_missing", "ij->ijk", [(2, 3)]), ("out_repeat", "ij->ii", [(2, 2)]), ("fewer_ops", "ij,jk", [(2, 3)]),
        ("more_ops", "ij", [(2, 3), (3,)]), ("bad_char", "i1", [(2, 3)]), ("two_arrows", "ij->j->", [(2, 3)]),
        ("bad_dot", "..i..->i", [(2, 3)]), ("two_ellipsis", "...i...", [(2, 3)]), ("ell_too_many", "...ijk", [(2, 3)]),
        ("ell_bcast", "...i,...i", [(2, 3), (4, 3)]), ("out_dot", "ij->i.", [(2, 3)]),
    ]
    for name, eq, shapes in errs:
        w.case(FAM, "err_einsum_" + name, E, ein(eq), [r(*s) for s in shapes], args={"equation": eq}, expect_error=True)
    w.case(FAM, "err_einsum_dtype", E, ein("ij,jk"), [r(2, 3, dtype=torch.float32), r(3, 4)], args={"equation": "ij,jk"},
           expect_error=True)


def generate(w):
    mm_cases(w)
    bmm_cases(w)
    matmul_cases(w)
    addmm_cases(w)
    baddbmm_cases(w)
    mv_dot_cases(w)
    linear_cases(w)
    tensordot_cases(w)
    einsum_cases(w)
