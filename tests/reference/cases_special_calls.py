"""torch.special as conformance cases (the runner's tests/conformance/ops_special.c):
every function of ctensor_special.h called by its PyTorch name, float64 and float32,
a non-contiguous input, special values, scalar operands, gradients where PyTorch
has them, and the errors PyTorch raises. tests/test_special.c checks the same
functions densely against a safetensors fixture; these cases check the calls as a
user's case file would write them."""
import torch

FAM = "special_calls"
S = torch.special


def dom(kind, shape, dtype):
    u = torch.rand(shape, dtype=torch.float64)
    g = {
        "any": torch.randn(shape, dtype=torch.float64) * 2,
        "unit": u * 1.9 - 0.95,          # (-0.95, 0.95)
        "prob": u * 0.96 + 0.02,         # (0.02, 0.98)
        "pos": u * 6 + 0.1,              # (0.1, 6.1)
        "gamma": u * 8 + 0.3,            # away from the poles
        "wide": torch.randn(shape, dtype=torch.float64) * 6,
        "zeta_x": u * 5 + 1.2,           # x > 1
        "poly_x": u * 1.8 - 0.9,
        "shifted_x": u * 0.9 + 0.05,
    }[kind]
    return g.to(dtype)


# PyTorch 1.13's own float64 bessel_j0/j1/y0/y1 and airy_ai are off by up to 4e-7
# absolute (J1(5.02617): PyTorch -0.3303975210, a 60-digit series -0.3303970954,
# ctensor -0.3303970954; Ai(-2.7377): PyTorch -0.2616662234, the series and ctensor
# -0.2616662671), so their float64 cases compare at that tolerance
PT_F64 = (1e-6, 1e-6)
# name, domain, gradient in PyTorch 1.13, (rtol, atol) for float64 where not the default
UNARY = [
    ("erf", "any", True, None), ("erfc", "any", True, None), ("erfcx", "any", True, None),
    ("erfinv", "unit", True, None), ("ndtr", "any", True, None), ("ndtri", "prob", True, None),
    ("log_ndtr", "wide", True, None), ("expit", "any", True, None), ("exp2", "any", True, None),
    ("expm1", "any", True, None), ("log1p", "pos", True, None), ("entr", "pos", True, None),
    ("sinc", "any", True, None), ("gammaln", "gamma", True, None), ("digamma", "gamma", True, None),
    ("psi", "gamma", True, None), ("i0", "any", True, None), ("i0e", "any", True, None), ("i1", "any", True, None),
    ("i1e", "any", True, None), ("modified_bessel_i0", "any", False, None), ("modified_bessel_i1", "any", False, None),
    ("modified_bessel_k0", "pos", False, None), ("modified_bessel_k1", "pos", False, None),
    ("scaled_modified_bessel_k0", "pos", False, None), ("scaled_modified_bessel_k1", "pos", False, None),
    ("bessel_j0", "wide", False, PT_F64), ("bessel_j1", "wide", False, PT_F64), ("bessel_y0", "pos", False, PT_F64),
    ("bessel_y1", "pos", False, PT_F64), ("spherical_bessel_j0", "wide", False, None), ("airy_ai", "any", False, PT_F64),
]
POLY = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
        "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
        "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
        "legendre_polynomial_p"]


def unary_cases(w):
    for name, kind, diff, tol in UNARY:
        fn, op = getattr(S, name), "torch.special." + name
        r64 = tol or (None, None)
        note = "float64 tolerance: PyTorch's own accuracy" if tol else ""
        w.case(FAM, name + "_f64", op, fn, [dom(kind, (3, 5), torch.float64)], grad=diff, rtol=r64[0], atol=r64[1],
               note=note)
        w.case(FAM, name + "_f32", op, fn, [dom(kind, (2, 7), torch.float32)], grad=False)
        w.case(FAM, name + "_f64_noncontig", op, fn, [dom(kind, (2, 3, 4), torch.float64)], grad=False,
               permute=[[2, 0, 1]], rtol=r64[0], atol=r64[1], note=note)
    sp = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.0, -1.0, 0.5, 30.0, -30.0],
                      dtype=torch.float64)
    for name in ("erf", "erfc", "erfcx", "erfinv", "ndtr", "ndtri", "log_ndtr", "expit", "entr", "sinc", "i0e", "i1e",
                 "bessel_j0", "bessel_y0", "spherical_bessel_j0", "modified_bessel_k0"):
        w.case(FAM, name + "_special_values", "torch.special." + name, getattr(S, name), [sp], grad=False)
    w.case(FAM, "gammaln_poles", "torch.special.gammaln", S.gammaln,
           [torch.tensor([0.0, -1.0, -2.0, -2.5, 1.0, 2.0, 1e-8, 170.5], dtype=torch.float64)], grad=False)
    w.case(FAM, "erf_int64", "torch.special.erf", S.erf, [torch.tensor([-2, 0, 1, 3])], grad=False)


def arg_cases(w):
    x = dom("prob", (3, 4), torch.float64)
    w.case(FAM, "logit_eps_none", "torch.special.logit", S.logit, [x])
    w.case(FAM, "logit_eps", "torch.special.logit", lambda t: S.logit(t, eps=0.1), [x], args={"eps": 0.1})
    w.case(FAM, "logit_eps_null", "torch.special.logit", lambda t: S.logit(t, eps=None), [x], args={"eps": None})
    w.case(FAM, "torch_logit_eps", "torch.logit", lambda t: torch.logit(t, 0.05), [x], args={"eps": 0.05})
    g = dom("gamma", (3, 4), torch.float64)
    for n in (0, 1, 2, 3):
        w.case(FAM, "polygamma_n%d" % n, "torch.special.polygamma", lambda t, n=n: S.polygamma(n, t), [g], args={"n": n})
    w.case(FAM, "torch_polygamma_n1", "torch.polygamma", lambda t: torch.polygamma(1, t), [g], args={"n": 1})
    m = dom("gamma", (4,), torch.float64) + 2.0
    for p in (1, 3):
        w.case(FAM, "multigammaln_p%d" % p, "torch.special.multigammaln", lambda t, p=p: S.multigammaln(t, p), [m],
               args={"p": p})
    w.case(FAM, "torch_mvlgamma_p2", "torch.mvlgamma", lambda t: torch.mvlgamma(t, 2), [m], args={"p": 2})
    r = torch.tensor([0.5, 1.5, 2.5, -0.5, 1.25, 12.345], dtype=torch.float64)
    w.case(FAM, "round", "torch.special.round", S.round, [r], grad=False)
    w.case(FAM, "round_decimals2", "torch.special.round", lambda t: S.round(t, decimals=2), [r], grad=False,
           args={"decimals": 2})
    z = torch.randn(3, 4, dtype=torch.float64)
    w.case(FAM, "logsumexp_dim1", "torch.special.logsumexp", lambda t: S.logsumexp(t, 1), [z], args={"dim": 1})
    w.case(FAM, "logsumexp_dims_keepdim", "torch.special.logsumexp", lambda t: S.logsumexp(t, (0, 1), keepdim=True),
           [z], args={"dim": [0, 1], "keepdim": True})
    w.case(FAM, "softmax_dim0", "torch.special.softmax", lambda t: S.softmax(t, 0), [z], args={"dim": 0})
    w.case(FAM, "log_softmax_dim1", "torch.special.log_softmax", lambda t: S.log_softmax(t, 1), [z], args={"dim": 1})
    w.case(FAM, "softmax_dtype_f64", "torch.special.softmax", lambda t: S.softmax(t, 1, dtype=torch.float64),
           [z.float()], args={"dim": 1, "dtype": "torch.float64"})


def binary_cases(w):
    x, y = dom("any", (3, 4), torch.float64), dom("pos", (3, 4), torch.float64)
    x[0, 0] = 0.0
    w.case(FAM, "xlogy", "torch.special.xlogy", S.xlogy, [x, y])
    w.case(FAM, "xlogy_broadcast", "torch.special.xlogy", S.xlogy, [x, y[:1]])
    w.case(FAM, "xlogy_other_number", "torch.special.xlogy", lambda t: S.xlogy(t, 3.0), [x], args={"other": 3.0})
    w.case(FAM, "xlogy_self_number", "torch.special.xlogy", lambda t: S.xlogy(2.0, t), [y], args={"self": 2.0})
    w.case(FAM, "torch_xlogy", "torch.xlogy", torch.xlogy, [x, y])
    # d/dx at x = 0 is log y, but 0 where y <= 0 too
    x0 = torch.tensor([0.0, 0.0, 0.0, 2.0, 0.0], dtype=torch.float64)
    y0 = torch.tensor([3.0, 0.0, -1.0, 0.5, 1.0], dtype=torch.float64)
    w.case(FAM, "xlogy_zero_x", "torch.special.xlogy", S.xlogy, [x0, y0])
    w.case(FAM, "xlog1py", "torch.special.xlog1py", S.xlog1py, [x, y])
    w.case(FAM, "xlog1py_f32", "torch.special.xlog1py", S.xlog1py, [x.float(), y.float()], grad=False)
    a, t = dom("pos", (3, 4), torch.float64), dom("pos", (3, 4), torch.float64)
    for name in ("gammainc", "gammaincc"):
        w.case(FAM, name, "torch.special." + name, getattr(S, name), [a, t], requires_grad=[False, True])
        w.case(FAM, name + "_f32", "torch.special." + name, getattr(S, name), [a.float(), t.float()], grad=False)
    w.case(FAM, "torch_igamma", "torch.igamma", torch.igamma, [a, t], grad=False)
    w.case(FAM, "torch_igammac", "torch.igammac", torch.igammac, [a, t], grad=False)
    zx, q = dom("zeta_x", (3, 4), torch.float64), dom("pos", (3, 4), torch.float64)
    w.case(FAM, "zeta", "torch.special.zeta", S.zeta, [zx, q], grad=False)
    w.case(FAM, "zeta_q_number", "torch.special.zeta", lambda v: S.zeta(v, 1.0), [zx], grad=False,
           args={"other": 1.0})
    w.case(FAM, "zeta_f32", "torch.special.zeta", S.zeta, [zx.float(), q.float()], grad=False)


def poly_cases(w):
    n = torch.tensor([[0.0], [1.0], [2.0], [5.0], [9.0], [-1.0]], dtype=torch.float64)
    for name in POLY:
        fn, op = getattr(S, name), "torch.special." + name
        x = dom("shifted_x" if name.startswith("shifted") else "poly_x", (1, 5), torch.float64)
        w.case(FAM, name, op, fn, [x, n], grad=False)
        w.case(FAM, name + "_n_number", op, lambda t, fn=fn: fn(t, 3), [x], grad=False, args={"n": 3})


def error_cases(w):
    x = dom("gamma", (3,), torch.float64)
    w.case(FAM, "err_polygamma_negative_n", "torch.special.polygamma", lambda t: S.polygamma(-1, t), [x],
           args={"n": -1}, expect_error=True)
    w.case(FAM, "err_multigammaln_p0", "torch.special.multigammaln", lambda t: S.multigammaln(t, 0), [x],
           args={"p": 0}, expect_error=True)
    # (x <= (p - 1) / 2 is an error in ctensor; PyTorch 1.13 calls it undefined and returns inf or
    # NaN, so no case: tests/test_special.c checks ctensor's error)
    w.case(FAM, "err_xlogy_shapes", "torch.special.xlogy", S.xlogy,
           [torch.ones(3, dtype=torch.float64), torch.ones(4, dtype=torch.float64)], expect_error=True)
    w.case(FAM, "err_zeta_shapes", "torch.special.zeta", S.zeta,
           [torch.ones(2, 3, dtype=torch.float64) * 2, torch.ones(4, dtype=torch.float64)], expect_error=True)
    w.case(FAM, "err_logsumexp_dim", "torch.special.logsumexp", lambda t: S.logsumexp(t, 3),
           [torch.ones(2, 3, dtype=torch.float64)], args={"dim": 3}, expect_error=True)


def generate(w):
    torch.manual_seed(0)
    unary_cases(w)
    arg_cases(w)
    binary_cases(w)
    poly_cases(w)
    error_cases(w)
