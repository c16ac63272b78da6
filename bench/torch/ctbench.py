"""ctbench - the Python twin of bench/bench.h, for the PyTorch side of each benchmark.

Prints the same lines as bench.h, timed the same way:
    name <TAB> params <TAB> median_us <TAB> min_us <TAB> reps [<TAB> rate]
A case is a Python statement (source text) run in a compiled loop (timeit's
loop: no function call per repetition; the statement's names are locals), after a warm-up, in batches sized so one
batch lasts >= ~200 us, for about CT_BENCH_SECONDS; times are per operation
(median and fastest of the batch means), measured with time.perf_counter_ns.

Environment: CT_BENCH_SECONDS, CT_BENCH_THREADS, CT_BENCH_CLOCK, CT_BENCH_FILTER (as bench.h).
"""
import ctypes
import os
import sys
import time
import timeit

import torch


def seconds():
    try:
        v = float(os.environ.get("CT_BENCH_SECONDS", "0.5"))
    except ValueError:
        v = 0.5
    return v if v > 0 else 0.5


def selected(name):
    """CT_BENCH_FILTER: a substring of the name; "^..." / "...$" anchor it (as bench.h)."""
    f = os.environ.get("CT_BENCH_FILTER", "")
    if not f:
        return True
    start, end = f.startswith("^"), len(f) > 1 and f.endswith("$")
    p = f[1 if start else 0:len(f) - 1 if end else len(f)]
    if start and end:
        return name == p
    if start:
        return name.startswith(p)
    if end:
        return name.endswith(p)
    return p in name


def cpu_clock():
    return os.environ.get("CT_BENCH_CLOCK", "") == "cpu"


def _blas_threads(n):
    """OpenBLAS keeps its own thread pool, which torch.set_num_threads does not
    reach (Debian's PyTorch calls OpenBLAS for its GEMMs): a "1-thread" PyTorch
    Linear ran its GEMM on 2 cores, and the calling thread's CPU clock counted only
    one of them. Sets the pool of every OpenBLAS loaded in this process, as
    bench.h's bench_set_threads does for ctensor."""
    try:
        maps = open("/proc/self/maps").read().split("\n")
    except OSError:
        return
    for p in sorted(set(l.split()[-1] for l in maps if "openblas" in l and ".so" in l)):
        try:
            ctypes.CDLL(p).openblas_set_num_threads(ctypes.c_int(n))
        except (OSError, AttributeError):
            pass


def set_threads(n):
    n = max(1, int(n))
    torch.set_num_threads(n)
    _blas_threads(n)


def begin(program):
    t = os.environ.get("CT_BENCH_THREADS", "")
    if t.isdigit() and int(t) > 0:
        set_threads(int(t))
    f = os.environ.get("CT_BENCH_FILTER", "")
    print("# %s: PyTorch %s, seconds/case=%g, clock=%s, default threads=%d (%s)%s"
          % (program, torch.__version__, seconds(),
             "thread CPU time for 1-thread cases" if cpu_clock() else "wall", torch.get_num_threads(),
             torch.__config__.parallel_info().splitlines()[-1].strip() if hasattr(torch, "__config__") else "?",
             (", filter=" + f) if f else ""))
    sys.stdout.flush()


def run(name, params, stmt, env, ops_per_call=1, bytes=0.0, flops=0.0, setup="pass", sync=None):
    """Times `stmt` (source text; names come from the dict `env`) and prints the line.
    sync: called at the end of each batch, inside the timing (torch.cuda.synchronize
    for GPU cases: kernels are asynchronous), as bench.h's bench_opts.sync.
    Returns the median in us per operation (0 when CT_BENCH_FILTER skips the case)."""
    if not selected(name):
        return 0.0
    per = float(max(1, ops_per_call))
    budget_ns = seconds() * 1e9
    # CT_BENCH_CLOCK=cpu: 1-thread cases on this thread's CPU time (as bench.h); with one
    # thread ATen runs the op on the calling thread
    clock = time.thread_time_ns if cpu_clock() and torch.get_num_threads() == 1 else time.perf_counter_ns
    # the names in env become locals of timeit's loop function (as in a user's function),
    # so the statement pays no global-dict lookups
    binds = "".join("%s = _ctb_env[%r]\n" % (k, k) for k in env if k.isidentifier())
    timer = timeit.Timer(stmt, setup=binds + setup, timer=clock, globals={"_ctb_env": env})
    # warm up (>= 1 call, about 5% of the budget) and size the batch
    calls, el, n = 0, 0, 1
    w0 = time.perf_counter_ns()  # the budget is wall time, whatever the clock
    def timed(k):
        if sync is None:
            return timer.timeit(k)
        t = clock()
        timer.timeit(k)
        sync()
        return clock() - t
    while True:
        el += timed(n)
        calls += n
        if time.perf_counter_ns() - w0 >= 0.05 * budget_ns or calls >= 1000000:
            break
        n = min(2 * n, 4096)
    one_us = el / calls / 1e3
    batch = int(200 / max(one_us, 0.005)) + 1 if one_us < 200 else 1
    samples = []
    start = time.perf_counter_ns()
    while len(samples) < 2000 and (len(samples) < 5 or time.perf_counter_ns() - start < budget_ns):
        samples.append(timed(batch) / 1e3 / batch / per)
    samples.sort()
    med = samples[len(samples) // 2]
    line = "%s\t%s\t%.3f\t%.3f\t%d" % (name, params, med, samples[0], int(len(samples) * batch * per))
    if bytes > 0:
        line += "\t%.1f GB/s" % (bytes / (med * 1e3))
    elif flops > 0:
        line += "\t%.2f GFLOP/s" % (flops / (med * 1e3))
    print(line)
    sys.stdout.flush()
    return med


def train_step(model, opt, x, y):
    """One training step, the C side's bench_train_step (bench/zoo.h): forward,
    cross-entropy, zero_grad(set_to_none=True), backward, optimizer step."""
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
