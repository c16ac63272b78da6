#!/usr/bin/python3
"""Fixtures of ctensor_quant.h's quantized ops (tests/quant/test_quant_qops.h), made
with PyTorch 1.13 (Debian's python3-torch), quantized engine onednn (x86's default
here). Engine qnnpack gives the same codes for every case but two: adapt_b (one
quantum apart: QNNPACK's average pooling) and avgpool_c (QNNPACK ignores
divisor_override there):

    /usr/bin/python3 tests/reference/quant_fixtures_qops.py

Writes tests/fixtures/quant/qops_*.npy: input codes and parameters, and the output
codes of relu, max_pool2d, avg_pool2d, adaptive_avg_pool2d, cat, quantized::cat,
quantized::add / add_relu / mul and quantized Conv2d / ConvReLU2d modules."""
import os

import numpy as np
import torch
import torch.nn.functional as F
import torch.ao.nn.quantized as nnq
import torch.nn.intrinsic.quantized as nniq

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "quant")


def save(name, t):
    if isinstance(t, torch.Tensor):
        t = t.detach()
        if t.is_quantized:
            t = t.int_repr()
        a = t.contiguous().numpy()
    else:
        a = np.asarray(t)
    np.save(os.path.join(OUT, "qops_" + name + ".npy"), np.ascontiguousarray(a))


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.backends.quantized.engine = "onednn"
    g = torch.Generator().manual_seed(11)
    # an activation: quint8, scale 0.05, zero point 60 (codes saved; the tests rebuild it)
    x = torch.randn(2, 3, 7, 6, generator=g) * 2
    qx = torch.quantize_per_tensor(x, 0.05, 60, torch.quint8)
    save("x", qx)
    save("relu", torch.relu(qx))
    save("maxpool_a", F.max_pool2d(qx, 3, stride=2, padding=1))
    save("maxpool_b", F.max_pool2d(qx, 2, stride=1, dilation=2, ceil_mode=True))
    save("maxpool_c", F.max_pool2d(qx, (2, 3), stride=(2, 2), ceil_mode=True))
    save("avgpool_a", F.avg_pool2d(qx, 3, stride=2, padding=1))
    save("avgpool_b", F.avg_pool2d(qx, 2, stride=2, padding=1, ceil_mode=True, count_include_pad=False))
    save("avgpool_c", F.avg_pool2d(qx, (3, 2), stride=(1, 2), divisor_override=5))
    save("adapt_a", F.adaptive_avg_pool2d(qx, (3, 4)))
    save("adapt_b", F.adaptive_avg_pool2d(qx, (1, 1)))
    # channels-last input: PyTorch's NHWC kernels (the same codes expected within one)
    qxc = qx.contiguous(memory_format=torch.channels_last)
    save("avgpool_a_cl", F.avg_pool2d(qxc, 3, stride=2, padding=1))
    save("adapt_a_cl", F.adaptive_avg_pool2d(qxc, (3, 4)))

    # two more activations for add / mul / cat
    a = torch.quantize_per_tensor(torch.randn(2, 3, 4, generator=g), 0.04, 70, torch.quint8)
    b = torch.quantize_per_tensor(torch.randn(2, 3, 4, generator=g) * 1.5, 0.03, 110, torch.quint8)
    b1 = torch.quantize_per_tensor(torch.randn(3, 4, generator=g), 0.03, 110, torch.quint8)   # broadcasts to a
    save("a", a)
    save("b", b)
    save("b1", b1)
    save("add", torch.ops.quantized.add(a, b, 0.06, 64))
    save("add_bcast", torch.ops.quantized.add(a, b1, 0.06, 64))
    save("add_relu", torch.ops.quantized.add_relu(a, b, 0.05, 10))
    save("mul", torch.ops.quantized.mul(a, b, 0.08, 100))
    save("mul_relu", torch.ops.quantized.mul_relu(a, b, 0.08, 100))
    save("qcat1", torch.ops.quantized.cat([a, b], 1, 0.045, 90))
    save("cat0", torch.cat([a, b], 0))     # requantized to a's parameters
    save("cat2", torch.cat([a, a], 2))

    # quantized conv2d (torch.ao.nn.quantized.Conv2d / nn.intrinsic.quantized.ConvReLU2d)
    # rows of qops_conv_params: C, O, kh, kw, stride, padding, dilation, groups, per_channel,
    # relu, N, H, W, x_scale, x_zp, out_scale, out_zp
    params = []
    cases = [
        # C  O  kh kw s  p  d  g  pc relu N  H  W
        (4, 6, 3, 3, 1, 1, 1, 1, 1, 0, 2, 7, 6),    # 3x3, padding
        (4, 6, 3, 3, 2, 0, 1, 2, 1, 0, 1, 9, 8),    # groups 2, stride 2
        (6, 6, 3, 3, 2, 1, 1, 6, 1, 1, 1, 8, 7),    # depthwise, stride 2, relu
        (8, 5, 1, 1, 1, 0, 1, 1, 0, 0, 2, 5, 5),    # 1x1, per-tensor weight
        (3, 4, 2, 3, 1, 2, 2, 1, 0, 1, 1, 6, 9),    # dilation 2, per-tensor, relu
    ]
    for k, (C, O, kh, kw, s, p, d, G, pc, relu, N, H, W) in enumerate(cases):
        xs, xz = 0.04 + 0.01 * k, 50 + 10 * k
        xin = torch.quantize_per_tensor(torch.randn(N, C, H, W, generator=g) * 1.5, xs, xz, torch.quint8)
        w = torch.randn(O, C // G, kh, kw, generator=g) * 0.3
        if pc:
            ws = (torch.rand(O, generator=g, dtype=torch.float64) * 0.006 + 0.003)
            qw = torch.quantize_per_channel(w, ws, torch.zeros(O, dtype=torch.long), 0, torch.qint8)
        else:
            ws = torch.tensor([0.005], dtype=torch.float64)
            qw = torch.quantize_per_tensor(w, 0.005, 0, torch.qint8)
        bias = torch.randn(O, generator=g) * 0.5
        os_, oz = 0.08 + 0.02 * k, 40 + 15 * k
        cls = nniq.ConvReLU2d if relu else nnq.Conv2d
        m = cls(C, O, (kh, kw), stride=s, padding=p, dilation=d, groups=G)
        m.set_weight_bias(qw, bias)
        m.scale, m.zero_point = os_, oz
        y = m(xin)
        # the same in float, quantized: the codes should agree within one
        ref = F.conv2d(xin.dequantize(), qw.dequantize(), bias, s, p, d, G)
        if relu:
            ref = F.relu(ref)
        qref = torch.quantize_per_tensor(ref, os_, oz, torch.quint8)
        assert (y.int_repr().int() - qref.int_repr().int()).abs().max() <= 1
        save("conv%d_x" % k, xin)
        save("conv%d_w" % k, qw)
        save("conv%d_ws" % k, ws)
        save("conv%d_b" % k, bias)
        save("conv%d_y" % k, y)
        params.append([C, O, kh, kw, s, p, d, G, pc, relu, N, H, W, xs, xz, os_, oz])
    save("conv_params", np.array(params, dtype=np.float64))


if __name__ == "__main__":
    main()
