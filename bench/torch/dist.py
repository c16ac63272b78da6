"""PyTorch twin of bench/dist.c: DistributedDataParallel's training step beside one process.
MLP 784-512-256-10 (ReLU), batch 64 per rank, F.cross_entropy, SGD lr 0.01 momentum 0.9,
one thread per process. A step: forward, loss, zero_grad(set_to_none=True), backward (with
DDP: its bucketed gloo all-reduce), step.
    mlp_step_1proc   one process
    mlp_step_ddp2    torch.nn.parallel.DistributedDataParallel over 2 processes, gloo
                     backend on loopback (torch.multiprocessing); rank 0's step times
30 warm-up steps, then 300 steps timed one by one (every rank runs the same count):
median and fastest, in microseconds, in bench.h's line format. Then the 50M-parameter
model of bench/dist.c (eight Linear(2500, 2500), batch 64 per rank, MSE, Adam; 2 + 6
steps) in one process and under DDP; its FSDP cases have no twin here (PyTorch 1.13's
FSDP cannot be imported on this Python)."""
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ctbench  # noqa: E402

WARMUP, STEPS, B = 30, 300, 64


def make_mlp():
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 10))


def run_case(name, params, model, out=None, quiet=False):
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    torch.manual_seed(0)
    x, y = torch.randn(B, 784), torch.randint(0, 10, (B,))
    ts = []
    for i in range(WARMUP + STEPS):
        t0 = time.perf_counter_ns()
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if i >= WARMUP:
            ts.append((time.perf_counter_ns() - t0) / 1000.0)
    ts.sort()
    line = "%s\t%s\t%.2f\t%.2f\t%d" % (name, params, ts[STEPS // 2], ts[0], STEPS)
    if out is not None:
        out.put(line)
    elif not quiet:
        print(line, flush=True)


BIG_WARMUP, BIG_STEPS, BIG_D, BIG_L = 2, 6, 2500, 8


def make_big():
    mods = []
    for i in range(BIG_L):
        mods.append(nn.Linear(BIG_D, BIG_D))
        if i < BIG_L - 1:
            mods.append(nn.ReLU())
    return nn.Sequential(*mods)


def run_big(name, model, ddp, out=None, quiet=False):
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    torch.manual_seed(6)
    x, y = torch.randn(B, BIG_D), torch.randn(B, BIG_D)
    ts = []
    for i in range(BIG_WARMUP + BIG_STEPS):
        t0 = time.perf_counter_ns()
        loss = F.mse_loss(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if i >= BIG_WARMUP:
            ts.append((time.perf_counter_ns() - t0) / 1000.0)
    ts.sort()
    line = "%s\t8x Linear(2500, 2500), 50M params, batch 64%s, Adam\t%.0f\t%.0f\t%d" % (
        name, " per rank, 2 ranks" if ddp else "", ts[BIG_STEPS // 2], ts[0], BIG_STEPS)
    if out is not None:
        out.put(line)
    elif not quiet:
        print(line, flush=True)


def ddp_rank(rank, world, port, q):
    torch.set_num_threads(1)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(1)
    model = nn.parallel.DistributedDataParallel(make_mlp())
    run_case("mlp_step_ddp2", "MLP 784-512-256-10, batch 64 per rank, 2 ranks, SGD", model,
             out=q if rank == 0 else None, quiet=rank != 0)
    if not os.environ.get("CT_BENCH_DIST_SMALL") and ctbench.selected("mlp50m_step_ddp2"):
        torch.manual_seed(5)
        big = nn.parallel.DistributedDataParallel(make_big())
        run_big("mlp50m_step_ddp2", big, True, out=q if rank == 0 else None, quiet=rank != 0)
    if rank == 0:
        q.put(None)
    dist.destroy_process_group()


def main():
    ctbench.begin("dist")
    torch.set_num_threads(1)
    if ctbench.selected("mlp_step_1proc"):
        torch.manual_seed(1)
        run_case("mlp_step_1proc", "MLP 784-512-256-10, batch 64, one process, SGD", make_mlp())
    if not os.environ.get("CT_BENCH_DIST_SMALL") and ctbench.selected("mlp50m_step_1proc"):
        torch.manual_seed(5)
        run_big("mlp50m_step_1proc", make_big(), False)
    if ctbench.selected("mlp_step_ddp2"):
        if not dist.is_available() or not dist.is_gloo_available():
            print("# mlp_step_ddp2 skipped: torch.distributed with gloo is not available")
            return
        ctx = mp.get_context("spawn")
        q = ctx.Queue()
        port = 29500 + os.getpid() % 1000
        procs = [ctx.Process(target=ddp_rank, args=(r, 2, port, q)) for r in range(2)]
        for p in procs:
            p.start()
        while True:
            line = q.get(timeout=1200)
            if line is None:
                break
            print(line, flush=True)
        for p in procs:
            p.join()
        print("# mlp50m_step_fsdp2_*: no PyTorch twin: PyTorch 1.13's torch.distributed.fsdp cannot be imported "
              "on this Python (a dataclass error in torch.distributed._shard)")


if __name__ == "__main__":
    main()
