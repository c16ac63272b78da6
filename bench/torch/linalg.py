"""PyTorch twin of bench/linalg.c: same cases, same line format, one thread
(OPENBLAS_NUM_THREADS=1 and torch.set_num_threads(1)), float64, no autograd."""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
import time  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

SECONDS = float(os.environ.get("CT_BENCH_SECONDS", "0.5"))


def run(name, params, fn):
    fn()
    t0 = time.perf_counter()
    fn()
    one = time.perf_counter() - t0
    batch = max(1, int(200e-6 / max(one, 1e-8)) + 1)
    samples = []
    start = time.perf_counter()
    while len(samples) < 2000 and (len(samples) < 5 or time.perf_counter() - start < SECONDS):
        a = time.perf_counter()
        for _ in range(batch):
            fn()
        samples.append((time.perf_counter() - a) / batch * 1e6)
    samples.sort()
    print("%s\t%s\t%.3f\t%.3f\t%d" % (name, params, samples[len(samples) // 2], samples[0], len(samples) * batch), flush=True)


def spd(b, n):
    x = torch.randn(b, n, n, dtype=torch.float64) if b else torch.randn(n, n, dtype=torch.float64)
    return x @ x.mT + n * torch.eye(n, dtype=torch.float64)


def well(b, n):
    x = torch.randn(b, n, n, dtype=torch.float64) if b else torch.randn(n, n, dtype=torch.float64)
    s = 2.0 * n ** 0.5
    return (x + s * torch.eye(n, dtype=torch.float64)) / s


def sym(b, n):
    x = torch.randn(b, n, n, dtype=torch.float64) if b else torch.randn(n, n, dtype=torch.float64)
    return ((x + x.mT) * 0.5).contiguous()


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    L = torch.linalg
    np.random.seed(0)
    np.random.rand(4)
    Ln = np.random.rand(4, 4)
    sigma = torch.from_numpy(Ln @ Ln.T + np.eye(4))
    with torch.no_grad():
        run("announcement_sqrt_det_4x4", "torch.sqrt(torch.linalg.det(sigma)) f64", lambda: torch.sqrt(L.det(sigma)))
        run("announcement_prod_diag_cholesky_4x4", "torch.prod(torch.diag(torch.linalg.cholesky(sigma))) f64",
            lambda: torch.prod(torch.diag(L.cholesky(sigma))))
        ns = (64, 256, 1024)
        data = {n: dict(spd=spd(0, n), well=well(0, n), rnd=torch.randn(n, n, dtype=torch.float64), sym=sym(0, n),
                        bm=torch.randn(n, n, dtype=torch.float64), bv=torch.randn(n, 1, dtype=torch.float64)) for n in ns}
        ops = [
            ("cholesky", lambda d: L.cholesky(d["spd"])),
            ("inv", lambda d: L.inv(d["well"])),
            ("solve", lambda d: L.solve(d["well"], d["bm"])),
            ("qr", lambda d: L.qr(d["rnd"], mode="reduced")),
            ("svd", lambda d: L.svd(d["rnd"], full_matrices=False)),
            ("eigh", lambda d: L.eigh(d["sym"])),
            ("lstsq", lambda d: L.lstsq(d["well"], d["bv"])),
            ("det", lambda d: L.det(d["well"])),
        ]
        for name, f in ops:
            for n in ns:
                d = data[n]
                run("%s_n%d" % (name, n), "%dx%d f64, 1 thread" % (n, n), lambda f=f, d=d: f(d))
        spd8, well8, sym8, rnd8 = spd(1000, 8), well(1000, 8), sym(1000, 8), torch.randn(1000, 8, 8, dtype=torch.float64)
        b8 = torch.randn(1000, 8, 8, dtype=torch.float64)
        run("batched_1000x8x8_cholesky", "1000x8x8 f64, 1 thread", lambda: L.cholesky(spd8))
        run("batched_1000x8x8_inv", "1000x8x8 f64, 1 thread", lambda: L.inv(well8))
        run("batched_1000x8x8_solve", "1000x8x8 f64, B 1000x8x8, 1 thread", lambda: L.solve(well8, b8))
        run("batched_1000x8x8_eigh", "1000x8x8 f64, 1 thread", lambda: L.eigh(sym8))
        run("batched_1000x8x8_svd", "1000x8x8 f64, 1 thread", lambda: L.svd(rnd8, full_matrices=False))


if __name__ == "__main__":
    main()
