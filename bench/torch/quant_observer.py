"""PyTorch twin of bench/quant_observer.c: same cases, same output lines (1 thread)."""
import warnings

import torch
from torch.ao.quantization import observer as O

import ctbench


def main():
    warnings.simplefilter("ignore")
    ctbench.begin("quant_observer")
    torch.set_num_threads(1)
    torch.manual_seed(0)
    x = torch.randn(1 << 20)
    x3 = x * 3
    xpc = torch.randn(64, 16384)
    h2 = O.HistogramObserver()
    h2(x)
    h2(x3)
    env = {"torch": torch, "O": O, "x": x, "x3": x3, "xpc": xpc, "h2": h2, "mm": O.MinMaxObserver(),
           "pc": O.PerChannelMinMaxObserver(), "sc": torch.full((64,), 0.02), "zp": torch.zeros(64, dtype=torch.int32)}
    ctbench.run("histogram_observer_fwd_1M", "f32, 2048 bins", "O.HistogramObserver()(x)", env)
    ctbench.run("histogram_observer_fwd2_1M", "f32, 2048 bins, 2 calls", "o = O.HistogramObserver(); o(x); o(x3)", env)
    ctbench.run("histogram_observer_qparams", "2048 bins, after fwd2", "h2.calculate_qparams()", env)
    ctbench.run("minmax_observer_fwd_1M", "f32", "mm(x)", env)
    ctbench.run("per_channel_minmax_fwd_64x16384", "f32, axis 0", "pc(xpc)", env)
    with torch.no_grad():
        ctbench.run("fake_quantize_per_tensor_1M", "f32, no grad", "torch.fake_quantize_per_tensor_affine(x, 0.02, 128, 0, 255)", env)
        ctbench.run("fake_quantize_per_channel_64x16384", "f32, axis 0, no grad",
                    "torch.fake_quantize_per_channel_affine(xpc, sc, zp, 0, -128, 127)", env)


if __name__ == "__main__":
    main()
