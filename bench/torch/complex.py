"""complex.py - PyTorch twin of bench/complex.c: complex64 ops, 1 thread, under
torch.no_grad(). The same cases, names and inputs: the real and imaginary parts of
element i are frac((i + 0.5) * g) * 2 - 1 and frac((i + 7.5) * g) * 2 - 1 with
g = 0.6180339887498949, rounded to float32 (the second operand: i shifted by 3).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import torch  # noqa: E402

import ctbench  # noqa: E402


def fill(rows, cols, shift):
    i = np.arange(rows * cols, dtype=np.float64) + shift
    parts = []
    for p in range(2):
        f = (i + 7 * p + 0.5) * 0.6180339887498949
        parts.append(((f - np.floor(f)) * 2 - 1).astype(np.float32))
    return torch.complex(torch.from_numpy(parts[0]), torch.from_numpy(parts[1])).reshape(rows, cols)


CASES = [("mm_1024", "c = torch.mm(x, y)"), ("mul_1M", "c = x * y"), ("div_1M", "c = x / y"),
         ("exp_1M", "c = torch.exp(x)"), ("abs_1M", "c = torch.abs(x)"), ("sum_1M", "c = x.sum()")]


def main():
    ctbench.begin("complex")
    ctbench.set_threads(1)
    n = 1024 * 1024
    with torch.no_grad():
        for k, (name, stmt) in enumerate(CASES):
            cname = "complex_%s_c64_t1" % name
            if not ctbench.selected(cname):
                continue
            x, y = fill(1024, 1024, 0), fill(1024, 1024, 3)
            kw = {"flops": 8.0 * n * 1024} if k == 0 else {"bytes": (3.0 if k <= 2 else 1.0 if k == 5 else 2.0) * n * 8}
            ctbench.run(cname, "[1024,1024]@[1024,1024]" if k == 0 else "[1024,1024]", stmt,
                        {"torch": torch, "x": x, "y": y}, **kw)


if __name__ == "__main__":
    main()
