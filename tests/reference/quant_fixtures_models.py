#!/usr/bin/python3
"""Fixtures of FloatFunctional / QFunctional, quantized add_scalar / mul_scalar /
hardswish / hardsigmoid and the post-training quantization of small torchvision-
layout models (tests/quant/test_quant_models.h), made with PyTorch 1.13 (Debian's
python3-torch), engine onednn, qconfig get_default_qconfig("x86"):

    /usr/bin/python3 tests/reference/quant_fixtures_models.py

The models (bench/torch/quant_models.py's classes, small sizes) follow
torchvision.models.quantization: a ResNet with
QuantizableBasicBlock (the residual through FloatFunctional.add_relu) and a
MobileNetV3 with QuantizableInvertedResidual (skip_add) and
QuantizableSqueezeExcitation (skip_mul, fc1 fused with its ReLU, Hardsigmoid),
Hardswish activations and a Hardswish in the classifier. Writes
tests/fixtures/quant/mdl_*.npy and mdl_*_converted.txt."""
import os
import sys

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench", "torch"))
from quant_models import QuantizableMobileNetV3, QuantizableResNet, fuse_model  # noqa: E402  (the layouts, shared with the bench)

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "quant")


def save(name, t):
    if isinstance(t, torch.Tensor):
        t = t.detach()
        if t.is_quantized:
            t = t.int_repr()
        a = t.contiguous().numpy()
    else:
        a = np.asarray(t)
    np.save(os.path.join(OUT, "mdl_" + name + ".npy"), np.ascontiguousarray(a))


def functional():
    g = torch.Generator().manual_seed(5)
    x = torch.quantize_per_tensor(torch.randn(4, 50, generator=g) * 3, 0.05, 128, torch.quint8)
    xi = torch.quantize_per_tensor(torch.randn(4, 50, generator=g) * 3, 0.04, 3, torch.qint8)
    save("fx", x)
    save("fxi", xi)
    cs = [0.0, 1.3, -2.7, 0.024, 10.0, -10.0, 100.0]
    rows = []
    for tag, t in (("u", x), ("i", xi)):
        for k, c in enumerate(cs):
            y = torch.ops.quantized.add_scalar(t, c)
            save("add_%s%d" % (tag, k), y)
            rows.append([0, k, y.q_scale(), y.q_zero_point()])
            y = torch.ops.quantized.mul_scalar(t, c)
            save("mul_%s%d" % (tag, k), y)
            rows.append([1, k, y.q_scale(), y.q_zero_point()])
    save("scalar_c", np.array(cs, dtype=np.float64))
    save("scalar_qparams", np.array(rows, dtype=np.float64))
    save("hswish_u", torch.ops.quantized.hardswish(x, 0.03, 20))
    save("hswish_i", torch.ops.quantized.hardswish(xi, 0.02, -100))
    save("hsig_u", torch.nn.functional.hardsigmoid(x))
    save("hsig_i", torch.nn.functional.hardsigmoid(xi))
    a = torch.quantize_per_tensor(torch.rand(2, 3, 1, 1, generator=g), 0.004, 0, torch.quint8)
    b = torch.quantize_per_tensor(torch.randn(2, 3, 4, 5, generator=g), 0.03, 100, torch.quint8)
    save("bc_a", a)
    save("bc_b", b)
    save("bc_mul", torch.ops.quantized.mul(a, b, 0.02, 90))


def randomize_bn(net):
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.3, 0.3)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)


def ptq(tag, net, size):
    randomize_bn(net)
    net.eval()
    for k, v in net.state_dict().items():
        if v.dtype == torch.float32:
            save(tag + "_in_" + k, v)
    calib = [torch.randn(2, 3, size, size) for _ in range(3)]
    x = torch.randn(2, 3, size, size)
    for i, c in enumerate(calib):
        save("%s_calib%d" % (tag, i), c)
    save(tag + "_x", x)
    with torch.no_grad():
        save(tag + "_y_float", net(x))
    fuse_model(net)
    net.qconfig = torch.ao.quantization.get_default_qconfig("x86")
    prepared = torch.ao.quantization.prepare(net)
    with torch.no_grad():
        for c in calib:
            prepared(c)
    q = torch.ao.quantization.convert(prepared)
    with open(os.path.join(OUT, "mdl_%s_converted.txt" % tag), "w") as f:
        f.write(repr(q))
    with torch.no_grad():
        y = q(x)
    save(tag + "_y_quant", y)
    save(tag + "_fc_qparams", np.array([q.fc.scale if tag == "res" else q.classifier[3].scale,
                                         q.fc.zero_point if tag == "res" else q.classifier[3].zero_point], dtype=np.float64))


def qat_mobilenet():
    """prepare_qat of the small MobileNetV3 (Hardsigmoid gets PyTorch's fixed-parameter
    fake quantization), two SGD steps, convert"""
    torch.manual_seed(6)
    net = QuantizableMobileNetV3([(16, 3, 16, 16, 1, 0, 1), (16, 5, 48, 24, 1, 1, 2), (24, 3, 72, 24, 0, 0, 1)], 16, 64, 32, 10)
    for k, v in net.state_dict().items():
        if v.dtype == torch.float32:
            save("mq_in_" + k, v)
    net.train()
    fuse_model(net, qat=True)
    net.qconfig = torch.ao.quantization.get_default_qat_qconfig("x86", version=0)
    torch.ao.quantization.prepare_qat(net, inplace=True)
    net.classifier[2].eval()   # the Dropout off, so that the two libraries' steps agree
    with open(os.path.join(OUT, "mdl_mq_prepared.txt"), "w") as f:
        f.write(repr(net))
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    losses = []
    for step in range(2):
        x = torch.randn(4, 3, 32, 32)
        t = torch.randn(4, 10)
        save("mq_x%d" % step, x)
        save("mq_t%d" % step, t)
        loss = torch.nn.functional.mse_loss(net(x) * 10, t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    save("mq_losses", np.array(losses, dtype=np.float64))
    net.eval()
    q = torch.ao.quantization.convert(net)
    with open(os.path.join(OUT, "mdl_mq_converted.txt"), "w") as f:
        f.write(repr(q))
    x = torch.randn(2, 3, 32, 32)
    save("mq_xtest", x)
    with torch.no_grad():
        save("mq_ytest", q(x))
    save("mq_fc_qparams", np.array([q.classifier[3].scale, q.classifier[3].zero_point], dtype=np.float64))


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.backends.quantized.engine = "onednn"
    functional()
    torch.manual_seed(3)
    ptq("res", QuantizableResNet(8, (8, 16), 10), 16)
    torch.manual_seed(4)
    ptq("mnv3", QuantizableMobileNetV3([(16, 3, 16, 16, 1, 0, 1), (16, 5, 48, 24, 1, 1, 2), (24, 3, 72, 24, 0, 0, 1)], 16, 64, 32, 10), 32)
    qat_mobilenet()


if __name__ == "__main__":
    main()
