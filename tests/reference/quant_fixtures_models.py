#!/usr/bin/python3
"""Fixtures of FloatFunctional / QFunctional, quantized add_scalar / mul_scalar /
hardswish / hardsigmoid and the post-training quantization of small torchvision-
layout models (tests/quant/test_quant_models.h), made with PyTorch 1.13 (Debian's
python3-torch), engine onednn, qconfig get_default_qconfig("x86"):

    /usr/bin/python3 tests/reference/quant_fixtures_models.py

The models follow torchvision.models.quantization: a ResNet with
QuantizableBasicBlock (the residual through FloatFunctional.add_relu) and a
MobileNetV3 with QuantizableInvertedResidual (skip_add) and
QuantizableSqueezeExcitation (skip_mul, fc1 fused with its ReLU, Hardsigmoid),
Hardswish activations and a Hardswish in the classifier. Writes
tests/fixtures/quant/mdl_*.npy and mdl_*_converted.txt."""
import os

import numpy as np
import torch
import torch.nn as nn
import torch.ao.nn.quantized as nnq
from torch.ao.quantization import DeQuantStub, QuantStub

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


# ---- a small ResNet in torchvision's quantizable layout ----
class QuantizableBasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
        self.add_relu = nnq.FloatFunctional()

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = self.downsample(x) if self.downsample is not None else x
        return self.add_relu.add_relu(out, identity)

    def fuse(self):
        torch.ao.quantization.fuse_modules(self, [["conv1", "bn1", "relu"], ["conv2", "bn2"]], inplace=True)
        if self.downsample is not None:
            torch.ao.quantization.fuse_modules(self.downsample, ["0", "1"], inplace=True)


class QuantizableResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        self.layer1 = nn.Sequential(QuantizableBasicBlock(8, 8, 1), QuantizableBasicBlock(8, 8, 1))
        self.layer2 = nn.Sequential(QuantizableBasicBlock(8, 16, 2), QuantizableBasicBlock(16, 16, 1))
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer2(self.layer1(x))
        x = self.fc(torch.flatten(self.avgpool(x), 1))
        return self.dequant(x)

    def fuse(self):
        torch.ao.quantization.fuse_modules(self, ["conv1", "bn1", "relu"], inplace=True)
        for m in self.modules():
            if isinstance(m, QuantizableBasicBlock):
                m.fuse()


# ---- a small MobileNetV3 in torchvision's quantizable layout ----
def make_divisible(v, divisor):   # torchvision's _make_divisible (min_value = divisor)
    n = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return n + divisor if n < 0.9 * v else n


def cna(cin, cout, k, stride, groups, act):
    layers = [nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False), nn.BatchNorm2d(cout, eps=0.001, momentum=0.01)]
    if act is not None:
        layers.append(act())
    return nn.Sequential(*layers)


class QuantizableSqueezeExcitation(nn.Module):
    def __init__(self, ch, sq):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(ch, sq, 1)
        self.fc2 = nn.Conv2d(sq, ch, 1)
        self.activation = nn.ReLU()
        self.scale_activation = nn.Hardsigmoid()
        self.skip_mul = nnq.FloatFunctional()

    def forward(self, x):
        s = self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(x)))))
        return self.skip_mul.mul(s, x)


class QuantizableInvertedResidual(nn.Module):
    def __init__(self, cin, k, exp, cout, se, act, stride):
        super().__init__()
        layers = []
        if exp != cin:
            layers.append(cna(cin, exp, 1, 1, 1, act))
        layers.append(cna(exp, exp, k, stride, exp, act))
        if se:
            layers.append(QuantizableSqueezeExcitation(exp, make_divisible(exp // 4, 8)))
        layers.append(cna(exp, cout, 1, 1, 1, None))
        self.block = nn.Sequential(*layers)
        self.use_res = stride == 1 and cin == cout
        self.skip_add = nnq.FloatFunctional()

    def forward(self, x):
        return self.skip_add.add(x, self.block(x)) if self.use_res else self.block(x)


class QuantizableMobileNetV3(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(cna(3, 16, 3, 2, 1, nn.Hardswish), QuantizableInvertedResidual(16, 3, 16, 16, True, nn.ReLU, 1),
                                      QuantizableInvertedResidual(16, 5, 48, 24, True, nn.Hardswish, 2), QuantizableInvertedResidual(24, 3, 72, 24, False, nn.ReLU, 1),
                                      cna(24, 64, 1, 1, 1, nn.Hardswish))
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Linear(64, 32), nn.Hardswish(), nn.Dropout(0.2), nn.Linear(32, 10))
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))
        return self.dequant(x)

    def fuse(self):
        for m in self.modules():
            if type(m) is nn.Sequential and len(m) >= 2 and isinstance(m[0], nn.Conv2d):
                names = ["0", "1", "2"] if len(m) == 3 and isinstance(m[2], nn.ReLU) else ["0", "1"]
                torch.ao.quantization.fuse_modules(m, names, inplace=True)
            elif isinstance(m, QuantizableSqueezeExcitation):
                torch.ao.quantization.fuse_modules(m, ["fc1", "activation"], inplace=True)


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
    net.fuse()
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


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.backends.quantized.engine = "onednn"
    functional()
    torch.manual_seed(3)
    ptq("res", QuantizableResNet(), 16)
    torch.manual_seed(4)
    ptq("mnv3", QuantizableMobileNetV3(), 32)


if __name__ == "__main__":
    main()
