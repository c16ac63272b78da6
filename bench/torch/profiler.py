"""profiler.py - PyTorch twin of bench/profiler.c: the profiler's cost per op.

A 4x4 float32 add, 1000 per timed statement, one thread, under torch.no_grad():
off; inside torch.profiler.profile() (CPU activity, PyTorch's defaults); and with
record_shapes, profile_memory and with_flops. The profiler stays open over the
whole case (no schedule); its results are collected after the timing, untimed.
"""
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

import ctbench  # noqa: E402

STMT = "for _j in r1000: c = a + b"


def case(name, params, env, **kw):
    if not ctbench.selected(name):
        return
    if kw.get("off"):
        ctbench.run(name, params, STMT, env, ops_per_call=1000)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prof = profile(activities=[ProfilerActivity.CPU], **kw)
        prof.start()
        ctbench.run(name, params, STMT, env, ops_per_call=1000)
        prof.stop()


def main():
    ctbench.begin("profiler")
    ctbench.set_threads(1)
    torch.manual_seed(0)
    a = torch.randn(4, 4, dtype=torch.float32)
    b = torch.randn(4, 4, dtype=torch.float32)
    env = {"torch": torch, "a": a, "b": b, "r1000": range(1000)}
    with torch.no_grad():
        case("add_4x4_f32_off", "a + b, profiler off", env, off=True)
        case("add_4x4_f32_on", "a + b, profiler on (defaults)", env)
        case("add_4x4_f32_on_all", "a + b, shapes+memory+flops(+bytes)", env,
             record_shapes=True, profile_memory=True, with_flops=True)
        case("add_4x4_f32_off_after", "a + b, after the profiler stopped", env, off=True)


if __name__ == "__main__":
    main()
