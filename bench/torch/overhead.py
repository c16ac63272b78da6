"""overhead.py - PyTorch twin of bench/overhead.c: per-op cost on 4x4 float32 tensors.

Same case names and the same operations as overhead.c, one thread
(torch.set_num_threads(1)), under torch.no_grad() except add_4x4_f32_autograd.
Statements are timed in a compiled loop (ctbench.run), so Python's per-op cost
is the interpreter running `c = a + b`, as a PyTorch user's loop would.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import ctbench  # noqa: E402

# the 100-op chain, unrolled so that no Python loop overhead is added to it
CHAIN = "\n".join(("x = x + b", "x = x * b", "x = torch.tanh(x)")[i % 3] for i in range(100))

CASES = [
    ("add_4x4_f32", "a + b, 1 scope/op", "c = a + b", 1),
    ("add_4x4_f32_scope1000", "a + b, 1 scope/1000 ops", "for _j in r1000: c = a + b", 1000),
    ("add_inplace_4x4_f32", "a.add_(b)", "acc.add_(b)", 1),
    ("mul_4x4_f32", "a * b", "c = a * b", 1),
    ("matmul_4x4_f32", "a @ b", "c = a @ b", 1),
    ("sum_4x4_f32", "a.sum()", "c = a.sum()", 1),
    ("relu_4x4_f32", "a.relu()", "c = a.relu()", 1),
    ("tanh_4x4_f32", "a.tanh()", "c = a.tanh()", 1),
    ("t_4x4_f32", "a.t() (view)", "c = a.t()", 1),
    ("chain100_4x4_f32_nograd", "us per 100-op chain", "x = a\n" + CHAIN + "\nc = x", 1),
]


def main():
    ctbench.begin("overhead")
    ctbench.set_threads(1)
    torch.manual_seed(0)
    a = torch.randn(4, 4, dtype=torch.float32)
    b = torch.randn(4, 4, dtype=torch.float32)
    ag = a.clone().requires_grad_(True)  # for add_4x4_f32_autograd
    acc = a.clone()  # the in-place case updates this one
    env = {"torch": torch, "a": a, "b": b, "ag": ag, "acc": acc, "r1000": range(1000)}
    with torch.no_grad():
        for name, params, stmt, ops in CASES:
            ctbench.run(name, params, stmt, env, ops_per_call=ops)
    with torch.enable_grad():
        ctbench.run("add_4x4_f32_autograd", "a + b, a requires grad", "c = ag + b", env)


if __name__ == "__main__":
    main()
