"""fft.py - PyTorch twin of bench/fft.c: torch.fft (pocketfft on CPU) on the same
cases, names and inputs: fft and rfft of 2^20 and 1,000,003 points, fft2 of
1024x1024, complex64 (rfft: float32), 1 thread (fft2 also 2), under torch.no_grad().
Input element i (over the floats, real and imaginary parts interleaved) is
frac((i + 0.5) * 0.6180339887498949) - 0.5, rounded to float32."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import torch  # noqa: E402

import ctbench  # noqa: E402


def fill(shape, cplx):
    n = int(np.prod(shape)) * (2 if cplx else 1)
    f = (np.arange(n, dtype=np.float64) + 0.5) * 0.6180339887498949
    v = torch.from_numpy((f - np.floor(f) - 0.5).astype(np.float32))
    if cplx:
        return torch.view_as_complex(v.reshape(*shape, 2))
    return v.reshape(*shape)


CASES = [
    ("fft_c64_2p20_t1", "[1048576]", "c = torch.fft.fft(x)", (1 << 20,), True, 1),
    ("rfft_f32_2p20_t1", "[1048576]", "c = torch.fft.rfft(x)", (1 << 20,), False, 1),
    ("fft_c64_1000003_t1", "[1000003]", "c = torch.fft.fft(x)", (1000003,), True, 1),
    ("rfft_f32_1000003_t1", "[1000003]", "c = torch.fft.rfft(x)", (1000003,), False, 1),
    ("fft2_c64_1024x1024_t1", "[1024,1024]", "c = torch.fft.fft2(x)", (1024, 1024), True, 1),
    ("fft2_c64_1024x1024_t2", "[1024,1024]", "c = torch.fft.fft2(x)", (1024, 1024), True, 2),
]


def main():
    ctbench.begin("fft")
    with torch.no_grad():
        for name, params, stmt, shape, cplx, threads in CASES:
            if not ctbench.selected(name):
                continue
            ctbench.set_threads(threads)
            ctbench.run(name, params, stmt, {"torch": torch, "x": fill(shape, cplx)})


if __name__ == "__main__":
    main()
