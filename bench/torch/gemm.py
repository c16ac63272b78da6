"""PyTorch twin of bench/gemm.c: torch.mm on square float32/float64 matrices
(n = 256, 1024, 2048) with 1 and 2 threads; same case names and line format.
The thread count is applied to OpenBLAS too (PyTorch's CPU mm calls the BLAS,
whose own thread pool torch.set_num_threads does not size)."""
import ctypes
import ctypes.util

import torch

import ctbench


def openblas_threads(n):
    for name in ("libopenblas.so.0", ctypes.util.find_library("openblas")):
        if not name:
            continue
        try:
            ctypes.CDLL(name).openblas_set_num_threads(n)
            return True
        except (OSError, AttributeError):
            pass
    return False


def main():
    ctbench.begin("gemm (torch.mm)")
    for t in (1, 2):
        ctbench.set_threads(t)
        openblas_threads(t)
        for dn, dt in (("f32", torch.float32), ("f64", torch.float64)):
            for n in (256, 1024, 2048):
                torch.manual_seed(1)
                a = torch.randn(n, n, dtype=dt)
                b = torch.randn(n, n, dtype=dt)
                ctbench.run("mm_%s_n%d_t%d" % (dn, n, t), "n=%d threads=%d" % (n, t), "torch.mm(a, b)",
                            {"torch": torch, "a": a, "b": b}, flops=2.0 * n ** 3)


if __name__ == "__main__":
    main()
