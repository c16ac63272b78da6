"""elementwise.py - PyTorch twin of bench/elementwise.c: elementwise ops and reductions
on 1M ([1024, 1024]) and 16M ([4096, 4096]) float32 tensors, contiguous, transposed
(a.t(), b.t()) and mixed (a + b.t()), at 1 and 2 threads (torch.set_num_threads),
under torch.no_grad(). Same case names and operations as elementwise.c; softmax
(last dim) is always included here (elementwise.c has it once ct_softmax exists).
Then the other dtypes as elementwise.c: add, mul (and exp, relu for float16 and
bfloat16) on 1M float16, bfloat16, int32, uint8 and int64 tensors, contig and mixed,
1 thread; inputs |randn| * 20 converted.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import ctbench  # noqa: E402

OPS = {
    "add": ("c = x + y", True),
    "mul": ("c = x * y", True),
    "exp": ("c = torch.exp(x)", False),
    "gelu": ("c = F.gelu(x)", False),   # approximate='none', as ct_gelu(x, "none")
    "sum": ("c = x.sum()", False),
    "softmax": ("c = torch.softmax(x, -1)", False),
    "relu": ("c = torch.relu(x)", False),   # the memory-bound reference for the activations
    "gelu_tanh": ("c = F.gelu(x, approximate='tanh')", False),
    "tanh": ("c = torch.tanh(x)", False),
    "sigmoid": ("c = torch.sigmoid(x)", False),
    "silu": ("c = F.silu(x)", False),
    "log": ("c = torch.log(x)", False),   # of |a| (|a.t()|), made before timing
    "sqrt": ("c = torch.sqrt(x)", False),   # of |a|, as log
    "floor": ("c = torch.floor(x)", False),
    "sin": ("c = torch.sin(x)", False),
    "atan": ("c = torch.atan(x)", False),
    "log2": ("c = torch.log2(x)", False),   # of |a|, as log
}


def main():
    ctbench.begin("elementwise")
    torch.manual_seed(0)
    with torch.no_grad():
        for label, n in (("1M", 1024), ("16M", 4096)):
            a = torch.randn(n, n, dtype=torch.float32)
            b = torch.randn(n, n, dtype=torch.float32)
            at, bt = a.t(), b.t()
            sh = "[%d,%d]" % (n, n)
            for op, (stmt, binary) in OPS.items():
                for li, layout in enumerate(("contig", "transposed", "mixed")):
                    if li == 2 and not binary:
                        continue
                    if li != 0 and op == "softmax":
                        continue
                    x = at if li == 1 else a
                    if op in ("log", "sqrt", "log2"):
                        x = x.abs()
                    y = (b if li == 0 else bt) if binary else None
                    params = (sh, sh + ".t()", "%s + %s.t()" % (sh, sh))[li]
                    if op == "softmax":
                        params = sh + ", dim=-1"
                    nbytes = (3.0 if binary else 1.0 if op == "sum" else 2.0) * n * n * 4
                    env = {"torch": torch, "F": F, "x": x, "y": y}
                    for t in (1, 2):
                        name = "%s_%s_f32_%s_t%d" % (op, label, layout, t)
                        if not ctbench.selected(name):
                            continue
                        ctbench.set_threads(t)
                        ctbench.run(name, params, stmt, env, bytes=nbytes)
            del a, b, at, bt
        ctbench.set_threads(1)
        n = 1024
        for label, dt in (("f16", torch.float16), ("bf16", torch.bfloat16), ("i32", torch.int32),
                          ("u8", torch.uint8), ("i64", torch.int64)):
            a = (torch.randn(n, n).abs() * 20).to(dt)
            b = (torch.randn(n, n).abs() * 20).to(dt)
            bt = b.t()
            fl = dt in (torch.float16, torch.bfloat16)
            es = torch.tensor([], dtype=dt).element_size()
            for op in ("add", "mul", "exp", "relu"):
                stmt, binary = OPS[op]
                if not binary and not fl:
                    continue
                if not binary and dt == torch.float16:
                    continue   # PyTorch 1.13 has no CPU exp / relu for Half
                for li, layout in enumerate(("contig", "mixed")):
                    if li == 1 and not binary:
                        continue
                    name = "%s_1M_%s_%s_t1" % (op, label, layout)
                    if not ctbench.selected(name):
                        continue
                    env = {"torch": torch, "F": F, "x": a, "y": (b if li == 0 else bt) if binary else None}
                    params = "[1024,1024]" if li == 0 else "[1024,1024] + [1024,1024].t()"
                    ctbench.run(name, params, stmt, env, bytes=(3.0 if binary else 2.0) * n * n * es)


if __name__ == "__main__":
    main()
