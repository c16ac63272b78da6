"""special.py - PyTorch twin of bench/special.c: torch.special on 1M float32 elements
([1024, 1024]), 1 thread, under torch.no_grad(). The same cases, names and inputs:
element i of an input on [lo, hi] is lo + (hi - lo) * frac((i + 0.5) * 0.6180339887498949)
rounded to float32 (second inputs: the sequence shifted by 7); the polynomials take
n = 8 as a 0-d tensor (x on [-1, 1], the shifted ones on [0, 1]); softmax, log_softmax and logsumexp work on the last dim.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import torch  # noqa: E402

import ctbench  # noqa: E402

U = lambda name, lo, hi, stmt=None: (name, lo, hi, stmt or "c = torch.special.%s(x)" % name, None)
B = lambda name, lo, hi, lo2, hi2: (name, lo, hi, "c = torch.special.%s(x, y)" % name, (lo2, hi2))
P = lambda name: (name, -1, 1, "c = torch.special.%s(x, y)" % name, "n8")
PS = lambda name: (name, 0, 1, "c = torch.special.%s(x, y)" % name, "n8")   # shifted: on [0, 1]
CASES = [
    U("erf", -5, 5), U("erfc", -5, 5), U("erfcx", -10, 10), U("erfinv", -1, 1), U("ndtr", -10, 10), U("ndtri", 0, 1),
    U("log_ndtr", -10, 10), U("expit", -10, 10), U("logit", 0, 1), U("exp2", -10, 10),
    U("expm1", -10, 10), U("log1p", 0, 10), U("entr", 0, 10), U("sinc", -10, 10), U("round", -10, 10),
    U("gammaln", 0, 10), U("digamma", 0, 10), U("polygamma1", 0, 10, "c = torch.special.polygamma(1, x)"),
    U("multigammaln2", 1, 11, "c = torch.special.multigammaln(x, 2)"),
    U("i0", -10, 10), U("i0e", -10, 10), U("i1", -10, 10), U("i1e", -10, 10),
    U("modified_bessel_i0", -10, 10), U("modified_bessel_i1", -10, 10), U("modified_bessel_k0", 0, 10),
    U("modified_bessel_k1", 0, 10), U("scaled_modified_bessel_k0", 0, 10), U("scaled_modified_bessel_k1", 0, 10),
    U("bessel_j0", -10, 10), U("bessel_j1", -10, 10), U("bessel_y0", 0, 10), U("bessel_y1", 0, 10),
    U("spherical_bessel_j0", -10, 10), U("airy_ai", -10, 10),
    B("xlogy", -10, 10, 0, 10), B("xlog1py", -10, 10, 0, 10), B("zeta", 1.5, 6, 0, 10),
    B("gammainc", 0, 10, 0, 10), B("gammaincc", 0, 10, 0, 10),
    P("chebyshev_polynomial_t"), P("chebyshev_polynomial_u"), P("hermite_polynomial_h"), P("hermite_polynomial_he"),
    P("laguerre_polynomial_l"), P("legendre_polynomial_p"),
    P("chebyshev_polynomial_v"), P("chebyshev_polynomial_w"), PS("shifted_chebyshev_polynomial_t"),
    PS("shifted_chebyshev_polynomial_u"), PS("shifted_chebyshev_polynomial_v"), PS("shifted_chebyshev_polynomial_w"),
    U("softmax", -10, 10, "c = torch.special.softmax(x, -1)"), U("log_softmax", -10, 10, "c = torch.special.log_softmax(x, -1)"),
    U("logsumexp", -10, 10, "c = torch.special.logsumexp(x, -1)"),
]


def fill(lo, hi, n, shift):
    f = (np.arange(n, dtype=np.float64) + shift + 0.5) * 0.6180339887498949
    return torch.from_numpy((lo + (hi - lo) * (f - np.floor(f))).astype(np.float32)).reshape(1024, n // 1024)


def main():
    ctbench.begin("special")
    ctbench.set_threads(1)
    n = 1024 * 1024
    with torch.no_grad():
        for name, lo, hi, stmt, second in CASES:
            cname = "special_%s_1M_f32_t1" % name
            if not ctbench.selected(cname):
                continue
            x = fill(lo, hi, n, 0)
            y = torch.tensor(8.0) if second == "n8" else fill(second[0], second[1], n, 7) if second else None
            nbytes = (3.0 if second and second != "n8" else 2.0) * n * 4
            ctbench.run(cname, "[1024,1024]", stmt, {"torch": torch, "x": x, "y": y}, bytes=nbytes)


if __name__ == "__main__":
    main()
