"""Reductions, scans and sorting: sum, mean, prod, var/std, max/min, amax/amin,
argmax/argmin, logsumexp, all/any, count_nonzero, norm, softmax/log_softmax,
cumsum/cumprod/cummax/cummin, sort/argsort/topk/kthvalue/median/mode,
nansum/nanmean. Values over several dims / keepdim / negative dims,
non-contiguous and empty inputs, integer / bool / half inputs, gradients
(automatic for float inputs), NaN and tie rules, and errors."""
import torch
import torch.nn.functional as F

FAM = "reduce"
NAN = float("nan")
INF = float("inf")


def rnd(*shape, dtype=torch.float64, scale=1.0):
    return (torch.randn(shape, dtype=torch.float64) * scale).to(dtype)


def ints(*shape, lo=-5, hi=6, dtype=torch.int64):
    return torch.randint(lo, hi, shape, dtype=torch.int64).to(dtype)


def mk(opname, **kw):
    """The torch callable for op `opname` with keyword args kw (the same dict goes
    to case.json, so the handler sees exactly what PyTorch was called with)."""
    obj = torch
    for part in opname.split(".")[1:]:
        obj = getattr(obj, part)
    return lambda *xs: obj(*xs, **kw)


def C(w, name, opname, inputs, args=None, **kw):
    args = dict(args or {})
    w.case(FAM, name, opname, mk(opname, **args), inputs, args=args, **kw)


def sum_mean_cases(w):
    torch.manual_seed(1)
    for op in ("sum", "mean", "nansum"):
        t = "torch." + op
        C(w, op + "_all_f32", t, [rnd(3, 4, dtype=torch.float32)])
        C(w, op + "_all_f64_noncontig", t, [rnd(3, 4, 5)], permute=[[2, 0, 1]])
        C(w, op + "_dim1", t, [rnd(3, 4, 5)], {"dim": 1})
        C(w, op + "_dimneg_keep", t, [rnd(3, 4, 5)], {"dim": -1, "keepdim": True})
        C(w, op + "_dims02", t, [rnd(3, 4, 5)], {"dim": [0, 2]})
        C(w, op + "_dims_neg_keep_noncontig", t, [rnd(3, 4, 5)], {"dim": [-1, 0], "keepdim": True}, permute=[[1, 2, 0]])
        C(w, op + "_dims_empty_list", t, [rnd(2, 3)], {"dim": []})
        C(w, op + "_empty_all", t, [torch.zeros(0, 3, dtype=torch.float64)], grad=False)
        C(w, op + "_empty_dim0", t, [torch.zeros(0, 3, dtype=torch.float64)], {"dim": 0})
        C(w, op + "_empty_dim1", t, [torch.zeros(0, 3, dtype=torch.float64)], {"dim": 1})
        C(w, op + "_0d", t, [rnd()], {"dim": 0})
        C(w, op + "_bf16", t, [rnd(4, 6, dtype=torch.bfloat16)], {"dim": 1}, grad=False, optional=True)
        C(w, op + "_f16", t, [rnd(4, 6, dtype=torch.float16)], {"dim": 0}, grad=False, optional=True)
        C(w, op + "_dtype_f64", t, [rnd(3, 4, dtype=torch.float32)], {"dim": 1, "dtype": torch.float64}, grad_rtol=1e-5, grad_atol=1e-6)
        # PyTorch sums float32 in float32: allow its rounding error (ours is exact here)
        C(w, op + "_big_vertical", t, [rnd(100, 40, dtype=torch.float32)], {"dim": 0}, grad=False, atol=1e-5)
        C(w, op + "_big_rows", t, [rnd(3, 700, dtype=torch.float32)], {"dim": 1}, grad=False, atol=1e-5)
        C(w, op + "_big_transposed", t, [rnd(40, 30, dtype=torch.float32)], {"dim": 1}, grad=False, permute=[[1, 0]], atol=1e-5)
        if op != "mean":
            C(w, op + "_int64", t, [ints(3, 4)], {"dim": 0})
            C(w, op + "_int32_all", t, [ints(3, 4, dtype=torch.int32)])
            C(w, op + "_uint8", t, [ints(3, 4, lo=0, hi=250, dtype=torch.uint8)], {"dim": 1})
            C(w, op + "_bool", t, [torch.rand(4, 5) > 0.5], {"dim": [0, 1]})
            C(w, op + "_int8_dtype_int8", t, [ints(4, lo=60, hi=100, dtype=torch.int8)], {"dtype": torch.int8})
        C(w, op + "_int_dtype_f32", t, [ints(3, 4)], {"dim": 1, "dtype": torch.float32}, grad=False)
    x = rnd(3, 4)
    x[0, 1] = NAN
    x[2, 3] = NAN
    C(w, "nansum_nan", "torch.nansum", [x], {"dim": 1})
    C(w, "nanmean_nan", "torch.nanmean", [x], {"dim": 1})
    C(w, "nanmean_nan_all", "torch.nanmean", [x])
    C(w, "nanmean_all_nan_row", "torch.nanmean", [torch.tensor([[NAN, NAN], [1.0, 2.0]], dtype=torch.float64)], {"dim": 1})
    C(w, "sum_nan", "torch.sum", [x], {"dim": 1})
    C(w, "mean_int_error", "torch.mean", [ints(3)], expect_error=True)
    C(w, "nanmean_int_error", "torch.nanmean", [ints(3)], expect_error=True)
    C(w, "sum_dim_out_of_range", "torch.sum", [rnd(2, 3)], {"dim": 2}, expect_error=True)
    C(w, "sum_dim_repeated", "torch.sum", [rnd(2, 3)], {"dim": [0, 0]}, expect_error=True)
    C(w, "mean_dim_repeated_neg", "torch.mean", [rnd(2, 3)], {"dim": [1, -1]}, expect_error=True)


def prod_cases(w):
    torch.manual_seed(2)
    t = "torch.prod"
    C(w, "prod_all_f32", t, [rnd(3, 4, dtype=torch.float32)])
    C(w, "prod_all_f64_noncontig", t, [rnd(2, 3, 2)], permute=[[2, 0, 1]])
    C(w, "prod_dim1", t, [rnd(3, 4, 5)], {"dim": 1})
    C(w, "prod_dimneg_keep", t, [rnd(3, 4, 5)], {"dim": -1, "keepdim": True})
    C(w, "prod_dim0_noncontig", t, [rnd(3, 4, 5)], {"dim": 0}, permute=[[1, 2, 0]])
    x = rnd(3, 4)
    x[1, 2] = 0.0
    C(w, "prod_one_zero_dim1", t, [x], {"dim": 1})
    C(w, "prod_one_zero_all", t, [x])
    x2 = rnd(3, 4)
    x2[1, 2] = 0.0
    x2[1, 0] = 0.0
    x2[2, 3] = 0.0
    C(w, "prod_two_zeros_dim1", t, [x2], {"dim": 1})
    C(w, "prod_two_zeros_dim0", t, [x2], {"dim": 0})
    C(w, "prod_two_zeros_all", t, [x2])
    C(w, "prod_empty_all", t, [torch.zeros(0, 3, dtype=torch.float64)], grad=False)
    C(w, "prod_empty_dim0", t, [torch.zeros(0, 3, dtype=torch.float64)], {"dim": 0})
    C(w, "prod_0d", t, [rnd()], {"dim": 0})
    C(w, "prod_int64", t, [ints(3, 4)], {"dim": 1})
    C(w, "prod_int_overflow", t, [torch.tensor([2 ** 40, 2 ** 40, 3])])
    C(w, "prod_int8", t, [ints(3, 4, lo=-3, hi=4, dtype=torch.int8)])
    C(w, "prod_bool", t, [torch.tensor([[True, False], [True, True]])], {"dim": 1})
    C(w, "prod_dtype_int64", t, [torch.tensor([1.5, 2.0, 3.7], dtype=torch.float32)], {"dtype": torch.int64}, grad=False)
    C(w, "prod_bf16", t, [rnd(3, 4, dtype=torch.bfloat16)], {"dim": 1}, grad=False, optional=True)
    C(w, "prod_dim_out_of_range", t, [rnd(2, 3)], {"dim": 2}, expect_error=True)


def var_cases(w):
    torch.manual_seed(3)
    for op in ("var", "std"):
        t = "torch." + op
        C(w, op + "_dim_none", t, [rnd(3, 4, dtype=torch.float32)], {"dim": None})
        C(w, op + "_dim1", t, [rnd(3, 4, 5)], {"dim": 1})
        C(w, op + "_dims_keep_noncontig", t, [rnd(3, 4, 5)], {"dim": [0, -1], "keepdim": True}, permute=[[2, 0, 1]])
        C(w, op + "_unbiased_false", t, [rnd(3, 4)], {"dim": 0, "unbiased": False})
        C(w, op + "_correction0", t, [rnd(3, 4)], {"dim": 1, "correction": 0})
        C(w, op + "_correction2", t, [rnd(3, 5)], {"dim": 1, "correction": 2})
        C(w, op + "_dof_zero", t, [rnd(3, 1)], {"dim": 1}, grad=False)
        C(w, op + "_empty", t, [torch.zeros(0, 3, dtype=torch.float64)], {"dim": 0}, grad=False)
        C(w, op + "_empty_other", t, [torch.zeros(0, 3, dtype=torch.float64)], {"dim": 1})
        C(w, op + "_bf16", t, [rnd(4, 5, dtype=torch.bfloat16)], {"dim": 1}, grad=False, optional=True)
        C(w, op + "_f16", t, [rnd(4, 5, dtype=torch.float16)], {"dim": 1}, grad=False, optional=True)
        C(w, op + "_int_error", t, [ints(3, 4)], expect_error=True)
        C(w, op + "_big", t, [rnd(8, 300, dtype=torch.float32) + 100], {"dim": 1}, grad=False)
    C(w, "var_mean_dim", "torch.var_mean", [rnd(3, 4)], {"dim": 1})
    C(w, "std_mean_all", "torch.std_mean", [rnd(3, 4)], {"dim": None, "correction": 0})


def minmax_cases(w):
    torch.manual_seed(4)
    for op in ("max", "min"):
        t = "torch." + op
        C(w, op + "_all_f32", t, [rnd(3, 4, dtype=torch.float32)])
        C(w, op + "_all_noncontig", t, [rnd(3, 4, 2)], permute=[[2, 0, 1]])
        C(w, op + "_dim1", t, [rnd(3, 4, 5)], {"dim": 1})
        C(w, op + "_dimneg_keep", t, [rnd(3, 4, 5)], {"dim": -1, "keepdim": True})
        C(w, op + "_dim0_noncontig", t, [rnd(3, 4, 5)], {"dim": 0}, permute=[[1, 2, 0]])
        C(w, op + "_int64_dim", t, [ints(4, 5)], {"dim": 1})
        C(w, op + "_uint8_all", t, [ints(4, 5, lo=0, hi=255, dtype=torch.uint8)])
        C(w, op + "_bool_dim", t, [torch.rand(3, 4) > 0.5], {"dim": 0})
        C(w, op + "_bf16_dim", t, [rnd(3, 8, dtype=torch.bfloat16)], {"dim": 1}, grad=False, optional=True)
        C(w, op + "_empty_error", t, [torch.zeros(0, 3)], expect_error=True)
        C(w, op + "_empty_dim_error", t, [torch.zeros(0, 3)], {"dim": 0}, expect_error=True)
        C(w, op + "_empty_other_dim", t, [torch.zeros(0, 3, dtype=torch.float64)], {"dim": 1})
        C(w, op + "_0d_dim", t, [rnd()], {"dim": 0})
        C(w, op + "_dim_out_of_range", t, [rnd(2, 3)], {"dim": -3}, expect_error=True)
        # ties: the first index along a dim; an even split for the full reduction
        tie = torch.tensor([[1.0, 3.0, 3.0, -2.0], [-4.0, -4.0, 0.5, 0.5]], dtype=torch.float64)
        if op == "min":
            tie = -tie
        C(w, op + "_ties_dim", t, [tie], {"dim": 1})
        C(w, op + "_ties_all", t, [tie])
        nan = torch.tensor([[1.0, NAN, 3.0, NAN], [2.0, 5.0, -1.0, 0.0]], dtype=torch.float64)
        C(w, op + "_nan_dim", t, [nan], {"dim": 1}, grad=False)
        C(w, op + "_nan_all", t, [nan], grad=False)
    for op in ("amax", "amin"):
        t = "torch." + op
        C(w, op + "_default", t, [rnd(3, 4, dtype=torch.float32)])
        C(w, op + "_dims", t, [rnd(3, 4, 5)], {"dim": [0, 2]})
        C(w, op + "_dims_keep_noncontig", t, [rnd(3, 4, 5)], {"dim": [-1, 1], "keepdim": True}, permute=[[2, 1, 0]])
        C(w, op + "_dim_int", t, [rnd(3, 4)], {"dim": 1})
        C(w, op + "_int32", t, [ints(3, 4, dtype=torch.int32)], {"dim": 0})
        C(w, op + "_bool", t, [torch.rand(3, 4) > 0.5], {"dim": 1})
        tie = torch.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], dtype=torch.float64)
        if op == "amin":
            tie = -tie
        C(w, op + "_ties", t, [tie], {"dim": 1})
        C(w, op + "_ties_all", t, [tie])
        C(w, op + "_nan", t, [torch.tensor([[1.0, NAN], [0.0, 2.0]], dtype=torch.float64)], {"dim": 1}, grad=False)
        C(w, op + "_empty_error", t, [torch.zeros(0, 3)], expect_error=True)
        C(w, op + "_empty_dim_error", t, [torch.zeros(0, 3)], {"dim": 0}, expect_error=True)
        C(w, op + "_empty_other_dim", t, [torch.zeros(0, 3, dtype=torch.float64)], {"dim": 1})
        C(w, op + "_dims_repeated", t, [rnd(2, 3)], {"dim": [0, -2]}, expect_error=True)
    for op in ("argmax", "argmin"):
        t = "torch." + op
        C(w, op + "_flat", t, [rnd(3, 4, dtype=torch.float32)])
        C(w, op + "_flat_noncontig", t, [rnd(3, 4, 5)], permute=[[2, 0, 1]])
        C(w, op + "_flat_keep", t, [rnd(3, 4)], {"keepdim": True})
        C(w, op + "_dim", t, [rnd(3, 4, 5)], {"dim": 1})
        C(w, op + "_dimneg_keep", t, [rnd(3, 4, 5)], {"dim": -1, "keepdim": True})
        C(w, op + "_int", t, [ints(4, 6)], {"dim": 0})
        C(w, op + "_ties", t, [torch.tensor([[2.0, 2.0, 1.0], [-1.0, -1.0, -1.0]])], {"dim": 1})
        C(w, op + "_nan", t, [torch.tensor([[1.0, NAN, 3.0, NAN], [2.0, 0.0, -1.0, 5.0]])], {"dim": 1})
        C(w, op + "_empty_error", t, [torch.zeros(0, 3)], expect_error=True)
        C(w, op + "_empty_dim_error", t, [torch.zeros(0, 3)], {"dim": 0}, expect_error=True)
        C(w, op + "_0d", t, [rnd()], {"dim": 0})
    C(w, "max_binary", "torch.max", [rnd(3, 4), rnd(4)])


def lse_cases(w):
    torch.manual_seed(5)
    t = "torch.logsumexp"
    C(w, "logsumexp_dim1", t, [rnd(3, 4, 5, dtype=torch.float32)], {"dim": 1})
    C(w, "logsumexp_dims_keep_noncontig", t, [rnd(3, 4, 5)], {"dim": [0, 2], "keepdim": True}, permute=[[2, 0, 1]])
    C(w, "logsumexp_large", t, [rnd(4, 6) * 300], {"dim": -1})
    C(w, "logsumexp_inf", t, [torch.tensor([[INF, 1.0], [-INF, -INF], [-INF, 2.0]], dtype=torch.float64)], {"dim": 1}, grad=False)
    C(w, "logsumexp_nan", t, [torch.tensor([[NAN, 1.0], [0.0, 2.0]], dtype=torch.float64)], {"dim": 1}, grad=False)
    C(w, "logsumexp_int", t, [ints(3, 4)], {"dim": 1})
    C(w, "logsumexp_empty", t, [torch.zeros(0, 3, dtype=torch.float64)], {"dim": 0})
    C(w, "logsumexp_bf16", t, [rnd(3, 5, dtype=torch.bfloat16)], {"dim": 1}, grad=False, optional=True)
    C(w, "logsumexp_0d", t, [rnd()], {"dim": 0})
    C(w, "logsumexp_dim_error", t, [rnd(2, 3)], {"dim": 3}, expect_error=True)


def logic_cases(w):
    torch.manual_seed(6)
    for op in ("all", "any"):
        t = "torch." + op
        b = torch.rand(3, 4) > 0.3
        C(w, op + "_bool", t, [b])
        C(w, op + "_bool_dim", t, [b], {"dim": 1})
        C(w, op + "_bool_dim_keep_noncontig", t, [torch.rand(3, 4, 2) > 0.3], {"dim": 0, "keepdim": True}, permute=[[2, 0, 1]])
        C(w, op + "_float", t, [torch.tensor([[0.0, 0.5, -1.0], [NAN, 0.0, 0.0]])], {"dim": 1})
        C(w, op + "_int", t, [ints(3, 4, lo=0, hi=2)], {"dim": 0})
        C(w, op + "_uint8", t, [ints(3, 4, lo=0, hi=3, dtype=torch.uint8)], {"dim": 1})
        C(w, op + "_empty", t, [torch.zeros(0, 3)])
        C(w, op + "_empty_dim", t, [torch.zeros(0, 3)], {"dim": 0})
        C(w, op + "_dim_error", t, [b], {"dim": 2}, expect_error=True)
    t = "torch.count_nonzero"
    x = torch.tensor([[0.0, 1.5, NAN], [0.0, -0.0, 2.0]])
    C(w, "count_nonzero_all", t, [x])
    C(w, "count_nonzero_dim", t, [x], {"dim": 1})
    C(w, "count_nonzero_dims_noncontig", t, [ints(3, 4, 2, lo=-1, hi=2)], {"dim": [0, 2]}, permute=[[2, 0, 1]])
    C(w, "count_nonzero_bool", t, [torch.rand(5) > 0.5])
    C(w, "count_nonzero_empty", t, [torch.zeros(0, 3)], {"dim": 0})
    C(w, "count_nonzero_dims_repeated", t, [x], {"dim": [0, 0]}, expect_error=True)


def norm_cases(w):
    torch.manual_seed(7)
    t = "torch.norm"
    for p in (2, 1, 3, 0.5, 1.5, INF, -INF, 0, -1):
        name = ("norm_p%s" % p).replace(".", "_").replace("-", "m")
        C(w, name, t, [rnd(3, 4)], {"p": p, "dim": 1})
        C(w, name + "_all_f32", t, [rnd(3, 4, dtype=torch.float32)], {"p": p})
        C(w, name + "_empty", t, [torch.zeros(0, 3)], {"p": p, "dim": 0}, grad=False)
    C(w, "norm_default", t, [rnd(3, 4, 5)])
    C(w, "norm_dims_keep_noncontig", t, [rnd(3, 4, 5)], {"p": 2, "dim": [0, 2], "keepdim": True}, permute=[[2, 0, 1]])
    C(w, "norm_fro", t, [rnd(3, 4)], {"p": "fro", "dim": [0, 1]})
    C(w, "norm_zero_vector_p2", t, [torch.tensor([[0.0, 0.0], [1.0, 2.0]], dtype=torch.float64)], {"p": 2, "dim": 1})
    C(w, "norm_zero_vector_p3", t, [torch.tensor([[0.0, 0.0], [1.0, 2.0]], dtype=torch.float64)], {"p": 3, "dim": 1})
    C(w, "norm_zero_vector_p0_5", t, [torch.tensor([[0.0, 0.0], [1.0, 2.0]], dtype=torch.float64)], {"p": 0.5, "dim": 1})
    C(w, "norm_inf_ties", t, [torch.tensor([[1.0, -3.0, 3.0], [2.0, 0.5, -1.0]], dtype=torch.float64)], {"p": INF, "dim": 1})
    C(w, "norm_bf16", t, [rnd(3, 5, dtype=torch.bfloat16)], {"p": 2, "dim": 1}, grad=False, optional=True)
    C(w, "norm_int_error", t, [ints(3)], expect_error=True)


def softmax_cases(w):
    torch.manual_seed(8)
    for op, fn in (("softmax", "torch.softmax"), ("log_softmax", "torch.log_softmax"),
                   ("F_softmax", "torch.nn.functional.softmax"), ("F_log_softmax", "torch.nn.functional.log_softmax")):
        C(w, op + "_last_f32", fn, [rnd(3, 7, dtype=torch.float32)], {"dim": -1})
        C(w, op + "_dim0", fn, [rnd(4, 5)], {"dim": 0})
        C(w, op + "_mid_noncontig", fn, [rnd(3, 4, 5)], {"dim": 1}, permute=[[2, 0, 1]])
        C(w, op + "_big_last_f32", fn, [rnd(8, 100, dtype=torch.float32, scale=5)], {"dim": 1}, grad=False)
        C(w, op + "_big_mid_f32", fn, [rnd(2, 50, 37, dtype=torch.float32, scale=5)], {"dim": 1}, grad=False)
        C(w, op + "_0d", fn, [rnd()], {"dim": 0})
        C(w, op + "_empty", fn, [torch.zeros(0, 3)], {"dim": 1}, grad=False)
        C(w, op + "_bf16", fn, [rnd(3, 8, dtype=torch.bfloat16)], {"dim": 1}, grad=False, optional=True)
        C(w, op + "_dtype_f64", fn, [rnd(3, 5, dtype=torch.float32)], {"dim": 1, "dtype": torch.float64}, grad_rtol=1e-5, grad_atol=1e-6)
        C(w, op + "_int_dtype", fn, [ints(3, 4)], {"dim": 1, "dtype": torch.float32}, grad=False)
        C(w, op + "_int_error", fn, [ints(3, 4)], {"dim": 1}, expect_error=True)
        C(w, op + "_dim_error", fn, [rnd(3, 4)], {"dim": 2}, expect_error=True)
        C(w, op + "_large_values", fn, [rnd(3, 6, dtype=torch.float32) * 1000], {"dim": 1}, grad=False)
        C(w, op + "_inf", fn, [torch.tensor([[-INF, 1.0, 2.0], [-INF, -INF, -INF], [INF, 0.0, 1.0], [NAN, 0.0, 1.0]])], {"dim": 1}, grad=False)
        C(w, op + "_tiny", fn, [torch.tensor([[0.0, -100.0, -90.0, -80.0, -104.5, -87.0, -88.0, -1e4]] * 3)], {"dim": 1}, grad=False)


def scan_cases(w):
    torch.manual_seed(9)
    for op in ("cumsum", "cumprod"):
        t = "torch." + op
        C(w, op + "_dim1_f32", t, [rnd(3, 5, dtype=torch.float32)], {"dim": 1})
        C(w, op + "_dim0", t, [rnd(4, 3)], {"dim": 0})
        C(w, op + "_dimneg_noncontig", t, [rnd(3, 4, 5)], {"dim": -2}, permute=[[2, 0, 1]])
        C(w, op + "_0d", t, [rnd()], {"dim": 0})
        C(w, op + "_empty", t, [torch.zeros(0, 3, dtype=torch.float64)], {"dim": 0})
        C(w, op + "_int", t, [ints(3, 4, lo=-3, hi=4)], {"dim": 1})
        C(w, op + "_bool", t, [torch.rand(3, 4) > 0.5], {"dim": 1})
        C(w, op + "_int8_dtype_int8", t, [ints(6, lo=20, hi=100, dtype=torch.int8)], {"dim": 0, "dtype": torch.int8})
        C(w, op + "_dtype_f64", t, [rnd(3, 4, dtype=torch.float32)], {"dim": 1, "dtype": torch.float64}, grad_rtol=1e-5, grad_atol=1e-6)
        C(w, op + "_bf16", t, [rnd(3, 6, dtype=torch.bfloat16)], {"dim": 1}, grad=False, optional=True)
        C(w, op + "_dim_error", t, [rnd(3, 4)], {"dim": -3}, expect_error=True)
        C(w, op + "_long_f32", t, [rnd(4, 500, dtype=torch.float32, scale=0.05) + (1.0 if op == "cumprod" else 0.0)], {"dim": 1}, grad=False)
    C(w, "cumsum_overflow", "torch.cumsum", [torch.tensor([2 ** 62, 2 ** 62, 5])], {"dim": 0})
    x = rnd(3, 5)
    x[0, 2] = 0.0
    x[1, 1] = 0.0
    x[1, 3] = 0.0
    x[2, 0] = 0.0
    x[2, 4] = 0.0
    C(w, "cumprod_zeros", "torch.cumprod", [x], {"dim": 1})
    C(w, "cumprod_zeros_dim0", "torch.cumprod", [x], {"dim": 0})
    for op in ("cummax", "cummin"):
        t = "torch." + op
        C(w, op + "_dim1", t, [rnd(3, 6, dtype=torch.float32)], {"dim": 1})
        C(w, op + "_dim0_noncontig", t, [rnd(4, 3, 2)], {"dim": 0}, permute=[[1, 0, 2]])
        C(w, op + "_int", t, [ints(3, 7)], {"dim": 1})
        C(w, op + "_bool", t, [torch.rand(3, 5) > 0.5], {"dim": 1})
        C(w, op + "_0d", t, [rnd()], {"dim": 0})
        C(w, op + "_empty", t, [torch.zeros(0, 3)], {"dim": 0})
        ties = torch.tensor([[1.0, 3.0, 3.0, 2.0, 3.0], [0.0, 0.0, -1.0, -1.0, 0.0]], dtype=torch.float64)
        C(w, op + "_ties", t, [ties if op == "cummax" else -ties], {"dim": 1})
        C(w, op + "_nan", t, [torch.tensor([[1.0, NAN, 3.0, NAN, 0.0]], dtype=torch.float64)], {"dim": 1}, grad=False)
        C(w, op + "_dim_error", t, [rnd(3)], {"dim": 1}, expect_error=True)


def sort_cases(w):
    torch.manual_seed(10)
    t = "torch.sort"
    C(w, "sort_last_f32", t, [rnd(3, 6, dtype=torch.float32)])
    C(w, "sort_dim0_desc", t, [rnd(5, 3)], {"dim": 0, "descending": True})
    C(w, "sort_mid_noncontig", t, [rnd(3, 4, 5)], {"dim": 1}, permute=[[2, 0, 1]])
    C(w, "sort_long_rows", t, [rnd(2, 300, dtype=torch.float32)], {"dim": 1}, grad=False)
    C(w, "sort_int", t, [ints(3, 8)], {"dim": 1, "stable": True})
    C(w, "sort_int_desc_stable", t, [ints(2, 40, lo=0, hi=4)], {"dim": 1, "descending": True, "stable": True})
    C(w, "sort_uint8", t, [ints(2, 9, lo=0, hi=250, dtype=torch.uint8)], {"dim": 1, "stable": True})
    C(w, "sort_bool", t, [torch.rand(2, 7) > 0.5], {"dim": 1, "stable": True})
    C(w, "sort_bf16", t, [rnd(2, 9, dtype=torch.bfloat16)], {"dim": 1, "stable": True}, grad=False, optional=True)
    C(w, "sort_nan", t, [torch.tensor([[1.0, NAN, 3.0, NAN, 0.0, -INF, INF]], dtype=torch.float64)], {"dim": 1, "stable": True}, grad=False)
    C(w, "sort_nan_desc", t, [torch.tensor([[1.0, NAN, 3.0, NAN, 0.0, -INF, INF]], dtype=torch.float64)], {"dim": 1, "descending": True, "stable": True}, grad=False)
    C(w, "sort_ties_stable", t, [torch.tensor([[2.0, 1.0, 2.0, 1.0, 2.0, 0.5] * 4], dtype=torch.float64)], {"dim": 1, "stable": True})
    C(w, "sort_ties_stable_desc", t, [torch.tensor([[2.0, 1.0, 2.0, 1.0, 2.0, 0.5] * 4], dtype=torch.float64)], {"dim": 1, "stable": True, "descending": True})
    C(w, "sort_0d", t, [rnd()], {"dim": 0})
    C(w, "sort_empty", t, [torch.zeros(0, 3)], {"dim": 0})
    C(w, "sort_dim_error", t, [rnd(3)], {"dim": 1}, expect_error=True)
    t = "torch.argsort"
    C(w, "argsort_last", t, [rnd(3, 6)])
    C(w, "argsort_dim0_desc", t, [rnd(5, 3)], {"dim": 0, "descending": True})
    C(w, "argsort_dim_error", t, [rnd(3)], {"dim": -2}, expect_error=True)
    t = "torch.topk"
    C(w, "topk_k2", t, [rnd(3, 6, dtype=torch.float32)], {"k": 2})
    C(w, "topk_k3_dim0_smallest", t, [rnd(5, 4)], {"k": 3, "dim": 0, "largest": False})
    C(w, "topk_mid_noncontig", t, [rnd(3, 6, 4)], {"k": 2, "dim": 1}, permute=[[2, 0, 1]])
    C(w, "topk_all", t, [rnd(2, 5)], {"k": 5})
    C(w, "topk_k0", t, [rnd(2, 5)], {"k": 0})
    C(w, "topk_long_rows", t, [rnd(2, 300, dtype=torch.float32)], {"k": 7, "dim": 1}, grad=False)
    C(w, "topk_int", t, [torch.randperm(20).view(2, 10)], {"k": 4})
    C(w, "topk_nan", t, [torch.tensor([[1.0, NAN, 3.0, 0.0, 5.0]], dtype=torch.float64)], {"k": 3}, grad=False)
    C(w, "topk_nan_smallest", t, [torch.tensor([[1.0, NAN, 3.0, 0.0, 5.0]], dtype=torch.float64)], {"k": 4, "largest": False}, grad=False)
    C(w, "topk_0d", t, [rnd()], {"k": 1})
    C(w, "topk_k_error", t, [rnd(2, 5)], {"k": 6}, expect_error=True)
    C(w, "topk_negk_error", t, [rnd(2, 5)], {"k": -1}, expect_error=True)
    # sorted=False: PyTorch's order is unspecified; the fixture stores it sorted,
    # the handler sorts ours the same way
    x = rnd(3, 8)

    def unsorted(v):
        vals, idx = torch.topk(v, 3, dim=1, sorted=False)
        s, order = torch.sort(vals, dim=1, descending=True)
        return s, torch.gather(idx, 1, order)
    w.case(FAM, "topk_unsorted", "torch.topk", unsorted, [x], args={"k": 3, "dim": 1, "sorted": False})
    t = "torch.kthvalue"
    C(w, "kthvalue_k2", t, [rnd(3, 6, dtype=torch.float32)], {"k": 2})
    C(w, "kthvalue_dim0_keep", t, [rnd(5, 4)], {"k": 3, "dim": 0, "keepdim": True})
    C(w, "kthvalue_noncontig", t, [rnd(3, 6, 4)], {"k": 6, "dim": 1}, permute=[[2, 0, 1]])
    C(w, "kthvalue_int", t, [torch.randperm(20).view(2, 10)], {"k": 4})
    C(w, "kthvalue_nan", t, [torch.tensor([[1.0, NAN, 3.0, 0.0]], dtype=torch.float64)], {"k": 4}, grad=False)
    C(w, "kthvalue_0d", t, [rnd()], {"k": 1})
    C(w, "kthvalue_k_error", t, [rnd(2, 5)], {"k": 6}, expect_error=True)
    C(w, "kthvalue_k0_error", t, [rnd(2, 5)], {"k": 0}, expect_error=True)
    C(w, "kthvalue_empty_error", t, [torch.zeros(0, 3)], {"k": 1, "dim": 0}, expect_error=True)
    t = "torch.median"
    C(w, "median_all_odd", t, [rnd(3, 5, dtype=torch.float32)])
    C(w, "median_all_even", t, [rnd(4, 4)])
    C(w, "median_all_noncontig", t, [rnd(3, 4, 2)], permute=[[2, 0, 1]])
    C(w, "median_all_int", t, [torch.tensor([5, 1, 4, 2, 8, 3])])
    C(w, "median_all_nan", t, [torch.tensor([1.0, NAN, 0.0], dtype=torch.float64)], grad=False)
    C(w, "median_all_ties", t, [torch.tensor([1.0, 2.0, 2.0, 5.0, 2.0], dtype=torch.float64)])
    C(w, "median_all_empty", t, [torch.zeros(0, 3)], grad=False)
    C(w, "median_dim", t, [rnd(3, 6)], {"dim": 1})
    C(w, "median_dim_odd_keep", t, [rnd(5, 3)], {"dim": 0, "keepdim": True})
    C(w, "median_dim_noncontig", t, [rnd(3, 5, 4)], {"dim": 1}, permute=[[2, 0, 1]])
    C(w, "median_dim_nan", t, [torch.tensor([[1.0, NAN, 0.0, NAN], [3.0, 1.0, 2.0, 0.0]], dtype=torch.float64)], {"dim": 1}, grad=False)
    C(w, "median_dim_int", t, [torch.randperm(15).view(3, 5)], {"dim": 1})
    C(w, "median_0d", t, [rnd()], {"dim": 0})
    C(w, "median_dim_empty_error", t, [torch.zeros(0, 3)], {"dim": 0}, expect_error=True)
    t = "torch.mode"
    C(w, "mode_int", t, [torch.tensor([[1, 2, 2, 1, 3, 1, 2], [5, 4, 4, 5, 0, 0, 0]])], {"dim": 1})
    C(w, "mode_float_keep", t, [torch.tensor([[1.0, 2.0, 2.0, 3.0], [4.0, 4.0, 1.0, 1.0], [0.5, 0.25, 0.125, 1.0]], dtype=torch.float64)], {"dim": 1, "keepdim": True})
    C(w, "mode_dim0_noncontig", t, [ints(6, 3, 2, lo=0, hi=3).double()], {"dim": 0}, permute=[[1, 0, 2]])
    C(w, "mode_bool", t, [torch.tensor([[True, False, True], [False, False, True]])], {"dim": 1})
    C(w, "mode_0d", t, [rnd()], {"dim": 0})
    C(w, "mode_empty_error", t, [torch.zeros(0, 3)], {"dim": 0}, expect_error=True)


def generate(w):
    sum_mean_cases(w)
    prod_cases(w)
    var_cases(w)
    minmax_cases(w)
    lse_cases(w)
    logic_cases(w)
    norm_cases(w)
    softmax_cases(w)
    scan_cases(w)
    sort_cases(w)
