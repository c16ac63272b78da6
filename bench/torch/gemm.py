"""PyTorch twin of bench/gemm.c: torch.mm on square float32/float64 matrices
(n = 256, 1024, 2048) with 1 and 2 threads; same line format and case names.
Run with Debian's PyTorch: /usr/bin/python3 bench/torch/gemm.py"""
import os
import time

import torch


def bench(name, params, fn):
    budget = float(os.environ.get("CT_BENCH_SECONDS", "0.5") or 0.5) * 1e6
    t0 = time.perf_counter()
    fn()
    one = (time.perf_counter() - t0) * 1e6
    batch = int(200 / max(one, 0.01)) + 1 if one < 200 else 1
    for _ in range(batch):
        fn()
    samples = []
    start = time.perf_counter()
    while len(samples) < 2000 and (len(samples) < 5 or (time.perf_counter() - start) * 1e6 < budget):
        a = time.perf_counter()
        for _ in range(batch):
            fn()
        samples.append((time.perf_counter() - a) * 1e6 / batch)
    samples.sort()
    med = samples[len(samples) // 2]
    print("%s\t%s\t%.3f\t%.3f\t%d" % (name, params, med, samples[0], len(samples) * batch), flush=True)
    return med


def main():
    print("# gemm: torch.mm (PyTorch %s)" % torch.__version__)
    for t in (1, 2):
        torch.set_num_threads(t)
        for dn, dt in (("f32", torch.float32), ("f64", torch.float64)):
            for n in (256, 1024, 2048):
                torch.manual_seed(1)
                a = torch.randn(n, n, dtype=dt)
                b = torch.randn(n, n, dtype=dt)
                name = "mm_%s_n%d_t%d" % (dn, n, t)
                med = bench(name, "n=%d threads=%d" % (n, t), lambda: torch.mm(a, b))
                print("# %s: %.1f GFLOP/s" % (name, 2.0 * n ** 3 / (med * 1e3)))


if __name__ == "__main__":
    main()
