"""linalg.py - PyTorch twin of bench/linalg.c: the same cases and statements, one
thread (torch.set_num_threads(1); OpenBLAS with one thread), float64, torch.no_grad().
Statements are timed in a compiled loop (ctbench.run)."""
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import torch  # noqa: E402

import ctbench  # noqa: E402


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


OPS = [
    ("cholesky", "c = L.cholesky(spd)"),
    ("inv", "c = L.inv(well)"),
    ("solve", "c = L.solve(well, bm)"),
    ("qr", "c = L.qr(rnd, mode='reduced')"),
    ("svd", "c = L.svd(rnd, full_matrices=False)"),
    ("eigh", "c = L.eigh(sym)"),
    ("lstsq", "c = L.lstsq(well, bv)"),
    ("det", "c = L.det(well)"),
]


def main():
    ctbench.begin("linalg")
    ctbench.set_threads(1)
    torch.manual_seed(0)
    np.random.seed(0)
    np.random.rand(4)
    Ln = np.random.rand(4, 4)
    sigma = torch.from_numpy(Ln @ Ln.T + np.eye(4))
    env = {"torch": torch, "L": torch.linalg, "sigma": sigma}
    with torch.no_grad():
        ctbench.run("announcement_sqrt_det_4x4", "torch.sqrt(torch.linalg.det(sigma)) f64", "c = torch.sqrt(L.det(sigma))", env)
        ctbench.run("announcement_prod_diag_cholesky_4x4", "torch.prod(torch.diag(torch.linalg.cholesky(sigma))) f64",
                    "c = torch.prod(torch.diag(L.cholesky(sigma)))", env)
        ns = (64, 256, 1024)
        data = {}
        for n in ns:
            data[n] = dict(env, spd=spd(0, n), well=well(0, n), rnd=torch.randn(n, n, dtype=torch.float64), sym=sym(0, n),
                           bm=torch.randn(n, n, dtype=torch.float64), bv=torch.randn(n, 1, dtype=torch.float64))
        for name, stmt in OPS:
            for n in ns:
                ctbench.run("%s_n%d" % (name, n), "%dx%d f64, 1 thread" % (n, n), stmt, data[n])
        e8 = dict(env, spd8=spd(1000, 8), well8=well(1000, 8), sym8=sym(1000, 8),
                  rnd8=torch.randn(1000, 8, 8, dtype=torch.float64), b8=torch.randn(1000, 8, 8, dtype=torch.float64))
        ctbench.run("batched_1000x8x8_cholesky", "1000x8x8 f64, 1 thread", "c = L.cholesky(spd8)", e8)
        ctbench.run("batched_1000x8x8_inv", "1000x8x8 f64, 1 thread", "c = L.inv(well8)", e8)
        ctbench.run("batched_1000x8x8_solve", "1000x8x8 f64, B 1000x8x8, 1 thread", "c = L.solve(well8, b8)", e8)
        ctbench.run("batched_1000x8x8_eigh", "1000x8x8 f64, 1 thread", "c = L.eigh(sym8)", e8)
        ctbench.run("batched_1000x8x8_svd", "1000x8x8 f64, 1 thread", "c = L.svd(rnd8, full_matrices=False)", e8)
        ec = dict(env, crnd=torch.complex(torch.randn(256, 256, dtype=torch.float64), torch.randn(256, 256, dtype=torch.float64)))
        ctbench.run("complex128_eig_n256", "256x256 complex128, 1 thread", "c = L.eig(crnd)", ec)
        ctbench.run("complex128_svd_n256", "256x256 complex128, 1 thread", "c = L.svd(crnd, full_matrices=False)", ec)


if __name__ == "__main__":
    main()
