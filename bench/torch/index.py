"""PyTorch twin of bench/index.c: same cases, same output lines."""
import os
import time

import torch
import torch.nn.functional as F


def bench(name, params, fn):
    budget = float(os.environ.get("CT_BENCH_SECONDS", "0.5")) * 1e6
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
    print("%s\t%s\t%.3f\t%.3f\t%d" % (name, params, samples[len(samples) // 2], samples[0], len(samples) * batch), flush=True)


def main():
    torch.manual_seed(0)
    A = [torch.randn(256, 1024) for _ in range(4)]
    X = torch.randn(4096, 512)
    SRC = torch.randn(4096, 512)
    IDX0 = torch.randint(0, 4096, (4096,))
    IDX1 = torch.randint(0, 512, (512,))
    G1 = torch.randint(0, 512, (4096, 512))
    G0 = torch.randint(0, 4096, (4096, 512))
    M = X > 0
    IMG = torch.randn(8, 64, 64, 64)
    VOL = torch.randn(2, 16, 32, 32, 32)
    SQ = torch.randn(2048, 2048)
    SEQ = torch.sort(torch.randn(4096))[0]
    SEQROWS = torch.sort(torch.randn(4096, 64), 1)[0]
    with torch.no_grad():
        bench("cat_dim0", "4x[256,1024] f32", lambda: torch.cat(A, 0))
        bench("cat_dim1", "4x[256,1024] f32", lambda: torch.cat(A, 1))
        bench("stack_dim0", "4x[256,1024] f32", lambda: torch.stack(A, 0))
        bench("index_select_dim0", "[4096,512] f32, 4096 idx", lambda: torch.index_select(X, 0, IDX0))
        bench("index_select_dim1", "[4096,512] f32, 512 idx", lambda: torch.index_select(X, 1, IDX1))
        bench("gather_dim1", "[4096,512] f32", lambda: torch.gather(X, 1, G1))
        bench("gather_dim0", "[4096,512] f32", lambda: torch.gather(X, 0, G0))
        bench("scatter_add_dim1", "[4096,512] f32", lambda: torch.scatter_add(X, 1, G1, SRC))
        bench("index_add_dim0", "[4096,512] f32, 4096 idx", lambda: torch.index_add(X, 0, IDX0, SRC))
        bench("index_put_acc", "[4096,512] f32, 4096 rows", lambda: X.index_put((IDX0,), SRC, accumulate=True))
        bench("masked_select", "[4096,512] f32", lambda: torch.masked_select(X, M))
        bench("nonzero", "[4096,512] bool", lambda: torch.nonzero(M))
        bench("take", "[4096,512] f32, 2M idx", lambda: torch.take(X, G1))
        bench("flip_dim1", "[4096,512] f32", lambda: torch.flip(X, [1]))
        bench("roll_2d", "[4096,512] f32", lambda: torch.roll(X, (5, 7), (0, 1)))
        bench("repeat_2x2", "[256,1024] f32", lambda: A[0].repeat(2, 2))
        bench("tril", "[2048,2048] f32", lambda: torch.tril(SQ))
        bench("pad_constant", "[8,64,64,64] f32 (1,1,1,1)", lambda: F.pad(IMG, (1, 1, 1, 1)))
        bench("pad_reflect2d", "[8,64,64,64] f32 (2,2,2,2)", lambda: F.pad(IMG, (2, 2, 2, 2), "reflect"))
        bench("pad_replicate3d", "[2,16,32,32,32] f32 (1,)*6", lambda: F.pad(VOL, (1,) * 6, "replicate"))
        bench("split_views", "[4096,512] f32 by 256", lambda: torch.split(X, 256, 0))
        bench("searchsorted_1d", "4096 sorted f32, [4096,512] values", lambda: torch.searchsorted(SEQ, X))
        bench("searchsorted_rows", "[4096,64] sorted rows, [4096,512] values, right", lambda: torch.searchsorted(SEQROWS, X, right=True))
        bench("bucketize", "[4096,512] f32, 4096 boundaries", lambda: torch.bucketize(X, SEQ))
        bench("logcumsumexp_dim1", "[4096,512] f32, along rows", lambda: torch.logcumsumexp(X, 1))
        bench("logcumsumexp_dim0", "[4096,512] f32, down columns", lambda: torch.logcumsumexp(X, 0))


if __name__ == "__main__":
    main()
