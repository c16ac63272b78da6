"""optim.py - PyTorch twin of bench/optim.c: one optimizer step, 1 thread.

Same case names, sizes and settings as optim.c: SGD (lr 1e-3, momentum 0.9),
Adam and AdamW (lr 1e-3) over 10 float32 tensors of 100,000 elements and over
200 tensors of 64 elements. The plain rows use PyTorch 1.13's default
(foreach=None: the single-tensor loop on CPU); the *_foreach rows pass foreach=True.
The grads are set once and kept; the statement timed is opt.step().
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import ctbench  # noqa: E402


def make_set(n, size):
    ps = []
    for _ in range(n):
        p = (torch.randn(size) * 0.1).requires_grad_()
        p.grad = torch.randn(size) * 0.01
        ps.append(p)
    return ps


def run_set(tag, ps):
    n, size = len(ps), ps[0].numel()
    el = float(n * size)
    makers = [
        ("sgd_momentum", 5.0, lambda fe: torch.optim.SGD(ps, lr=1e-3, momentum=0.9, foreach=fe)),
        ("adam", 7.0, lambda fe: torch.optim.Adam(ps, lr=1e-3, foreach=fe)),
        ("adamw", 7.0, lambda fe: torch.optim.AdamW(ps, lr=1e-3, foreach=fe)),
    ]
    for name, words, make in makers:
        for foreach, suffix, what in ((None, "", "step"), (True, "_foreach", "step, foreach=True")):
            opt = make(foreach)
            opt.step()  # creates the state
            ctbench.run("%s_%s_f32%s" % (name, tag, suffix), "%d tensors x %d, %s" % (n, size, what),
                        "opt.step()", {"opt": opt}, bytes=el * 4.0 * words)


def main():
    ctbench.begin("optim")
    ctbench.set_threads(1)
    torch.manual_seed(0)
    big = make_set(10, 100000)
    small = make_set(200, 64)
    run_set("10x100k", big)
    run_set("200x64", small)


if __name__ == "__main__":
    main()
