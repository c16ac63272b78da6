#!/usr/bin/python3
"""Fixtures of ctensor_quant.h's quantized-tensor tests (tests/quant/test_quant_core.h),
made with PyTorch 1.13 (Debian's python3-torch):

    /usr/bin/python3 tests/reference/quant_fixtures.py

Writes tests/fixtures/quant/core_*.npy (inputs, codes, parameters). The
observer and GEMM tests have their own scripts (quant_fixtures_*.py)."""
import os

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "quant")


def save(name, t):
    a = t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)
    np.save(os.path.join(OUT, "core_" + name + ".npy"), np.ascontiguousarray(a))


def main():
    os.makedirs(OUT, exist_ok=True)
    g = torch.Generator().manual_seed(7)
    # per tensor: values on and near the rounding ties, out of range, and random
    xbase = torch.cat([torch.randn(200, generator=g) * 3,
                       torch.arange(-40, 41, dtype=torch.float32) * 0.05,     # ties at scale 0.1
                       torch.tensor([1e6, -1e6, 0.0, -0.0])])
    x = torch.cat([xbase, torch.tensor([float('nan'), float('inf'), -float('inf'), 1e30, -1e30, 1e17, 3e18])])
    save("pt_x", x)
    for dt, name, scale, zp in [(torch.qint8, "qint8", 0.1, 3), (torch.quint8, "quint8", 0.037, 128),
                                (torch.qint32, "qint32", 0.001, -5), (torch.qint8, "qint8_small", 1e-3, -128)]:
        q = torch.quantize_per_tensor(x, scale, zp, dt)
        save("pt_%s_codes" % name, q.int_repr())
        save("pt_%s_deq" % name, q.dequantize())
    # per channel along each axis of a 3-D tensor
    x3 = torch.randn(3, 4, 5, generator=g) * 2
    save("pc_x", x3)
    for axis in range(3):
        n = x3.shape[axis]
        scales = torch.rand(n, generator=g, dtype=torch.float64) * 0.05 + 0.01
        zps = torch.randint(0, 40, (n,), generator=g)
        for dt, name in [(torch.qint8, "qint8"), (torch.quint8, "quint8")]:
            q = torch.quantize_per_channel(x3, scales, zps, axis, dt)
            save("pc_a%d_scales" % axis, scales)
            save("pc_a%d_zps" % axis, zps)
            save("pc_a%d_%s_codes" % (axis, name), q.int_repr())
            save("pc_a%d_%s_deq" % (axis, name), q.dequantize())
    # dynamic quantization (ChooseQuantizationParams), both dtypes, reduce_range on and off
    torch.backends.quantized.engine = "onednn"
    params = []
    for k, xs in enumerate([xbase, torch.rand(50, generator=g) + 0.5, -torch.rand(50, generator=g),
                            torch.zeros(10), torch.full((5,), 1e-7), torch.randn(64, generator=g) * 1e-4]):
        save("dyn%d_x" % k, xs)
        for dt in (torch.qint8, torch.quint8):
            for rr in (False, True):
                q = torch.quantize_per_tensor_dynamic(xs, dt, rr)
                params.append([k, 0 if dt == torch.qint8 else 1, int(rr), q.q_scale(), q.q_zero_point()])
                save("dyn%d_%s_rr%d_codes" % (k, "qint8" if dt == torch.qint8 else "quint8", int(rr)), q.int_repr())
    save("dyn_params", np.array(params, dtype=np.float64))


if __name__ == "__main__":
    main()


def fusion():
    """A small net fused by torch.ao.quantization.fuse_modules: inputs, fused weights, outputs."""
    import torch.nn as nn
    torch.manual_seed(3)
    net = nn.Sequential(nn.Conv2d(3, 4, 3, bias=False), nn.BatchNorm2d(4), nn.ReLU(),
                        nn.Conv2d(4, 5, 1), nn.BatchNorm2d(5),
                        nn.Conv2d(5, 6, 3, padding=1), nn.ReLU(),
                        nn.Flatten(), nn.Linear(6 * 4 * 4, 7), nn.BatchNorm1d(7), nn.Linear(7, 3), nn.ReLU())
    for bn in (net[1], net[4], net[9]):   # non-trivial statistics and affine parameters
        bn.running_mean.uniform_(-0.5, 0.5)
        bn.running_var.uniform_(0.5, 2.0)
        bn.weight.data.uniform_(0.5, 1.5)
        bn.bias.data.uniform_(-0.2, 0.2)
    net.eval()
    x = torch.randn(2, 3, 6, 6)
    sd = {k: v.clone() for k, v in net.state_dict().items()}
    for k, v in sd.items():
        if v.dtype == torch.float32:
            np.save(os.path.join(OUT, "fuse_in_%s.npy" % k), v.numpy())
    np.save(os.path.join(OUT, "fuse_x.npy"), x.numpy())
    with torch.no_grad():
        np.save(os.path.join(OUT, "fuse_y_float.npy"), net(x).numpy())
    fused = torch.ao.quantization.fuse_modules(net, [["0", "1", "2"], ["3", "4"], ["5", "6"], ["8", "9"], ["10", "11"]])
    with torch.no_grad():
        np.save(os.path.join(OUT, "fuse_y_fused.npy"), fused(x).numpy())
    for k, v in fused.state_dict().items():
        np.save(os.path.join(OUT, "fuse_out_%s.npy" % k), v.numpy())
    with open(os.path.join(OUT, "fuse_repr.txt"), "w") as f:
        f.write(repr(fused))


if __name__ == "__main__":
    fusion()
