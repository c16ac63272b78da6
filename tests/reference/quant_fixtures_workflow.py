#!/usr/bin/python3
"""Fixtures of the quantization workflows (tests/quant/test_quant_workflow.h), made
with PyTorch 1.13 (Debian's python3-torch):

    /usr/bin/python3 tests/reference/quant_fixtures_workflow.py

Static post-training quantization of a small conv net in eager mode (QuantStub,
fuse_modules, prepare with the x86 default qconfig, calibration, convert; run on
the onednn engine, the x86 engine this PyTorch build has), and quantize_dynamic of
an MLP. Writes tests/fixtures/quant/wf_*.npy."""
import os

import numpy as np
import torch
import torch.nn as nn
from torch.ao.quantization import DeQuantStub, QuantStub

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "quant")


def save(name, t):
    a = t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)
    np.save(os.path.join(OUT, "wf_" + name + ".npy"), np.ascontiguousarray(a))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu1 = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=1)
        self.relu2 = nn.ReLU()
        self.avg = nn.AdaptiveAvgPool2d(1)
        self.flat = nn.Flatten()
        self.fc1 = nn.Linear(16, 12)
        self.relu3 = nn.ReLU()
        self.fc2 = nn.Linear(12, 5)
        self.dequant = DeQuantStub()

    def forward(self, x):
        for m in self.children():
            x = m(x)
        return x


def static():
    torch.manual_seed(11)
    net = Net()
    net.bn1.running_mean.uniform_(-0.3, 0.3)
    net.bn1.running_var.uniform_(0.5, 1.5)
    net.bn1.weight.data.uniform_(0.5, 1.5)
    net.bn1.bias.data.uniform_(-0.2, 0.2)
    net.eval()
    for k, v in net.state_dict().items():
        if v.dtype == torch.float32:
            save("st_in_" + k, v)
    calib = [torch.randn(2, 3, 8, 8) for _ in range(4)]
    x = torch.randn(3, 3, 8, 8)
    for i, c in enumerate(calib):
        save("st_calib%d" % i, c)
    save("st_x", x)
    with torch.no_grad():
        save("st_y_float", net(x))
    torch.backends.quantized.engine = "onednn"
    fused = torch.ao.quantization.fuse_modules(net, [["conv1", "bn1", "relu1"], ["conv2", "relu2"], ["fc1", "relu3"]])
    fused.qconfig = torch.ao.quantization.get_default_qconfig("x86")
    prepared = torch.ao.quantization.prepare(fused)
    with torch.no_grad():
        for c in calib:
            prepared(c)
    with open(os.path.join(OUT, "wf_st_prepared.txt"), "w") as f:
        f.write(repr(prepared))
    q = torch.ao.quantization.convert(prepared)
    with open(os.path.join(OUT, "wf_st_converted.txt"), "w") as f:
        f.write(repr(q))
    params = []
    for name in ["quant", "conv1", "conv2", "fc1", "fc2"]:
        m = getattr(q, name)
        params.append([float(m.scale), int(m.zero_point)])
    save("st_qparams", np.array(params, dtype=np.float64))
    with torch.no_grad():
        y = q(x)
        save("st_y_quant", y)
        # the output codes of the last quantized layer
        h = x
        for name, m in q.named_children():
            if name == "dequant":
                break
            h = m(h)
        save("st_y_codes", h.int_repr())


def dynamic():
    torch.manual_seed(5)
    mlp = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Sequential(nn.Linear(32, 16), nn.Tanh()), nn.Linear(16, 4))
    for k, v in mlp.state_dict().items():
        save("dyn_in_" + k, v)
    x = torch.randn(6, 20) * 2
    save("dyn_x", x)
    torch.backends.quantized.engine = "onednn"
    q = torch.ao.quantization.quantize_dynamic(mlp, {nn.Linear}, dtype=torch.qint8)
    with torch.no_grad():
        save("dyn_y", q(x))
        save("dyn_y_float", mlp(x))
    with open(os.path.join(OUT, "wf_dyn_repr.txt"), "w") as f:
        f.write(repr(q))


class QatNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.relu = nn.ReLU()
        self.pool = nn.AdaptiveAvgPool2d(2)
        self.flat = nn.Flatten()
        self.fc = nn.Linear(16, 5)
        self.dequant = DeQuantStub()

    def forward(self, x):
        for m in self.children():
            x = m(x)
        return x


class QatBnNet(QatNet):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(4)
        # children in forward order: quant, conv, bn, relu, ...
        order = ["quant", "conv", "bn", "relu", "pool", "flat", "fc", "dequant"]
        self._modules = type(self._modules)((k, self._modules[k]) for k in order)


class QatLinearBnNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.fc1 = nn.Linear(12, 8)
        self.bn = nn.BatchNorm1d(8)
        self.relu = nn.ReLU()
        self.fc = nn.Linear(8, 5)
        self.dequant = DeQuantStub()

    def forward(self, x):
        for m in self.children():
            x = m(x)
        return x


def qat(bn=False, linear=False):
    tag = "qatlbn" if linear else "qatbn" if bn else "qat"
    torch.manual_seed(21)
    net = QatLinearBnNet() if linear else QatBnNet() if bn else QatNet()
    for k, v in net.state_dict().items():
        if v.dtype == torch.float32:
            save(tag + "_in_" + k, v)
    net.train()
    torch.ao.quantization.fuse_modules_qat(net, [["fc1", "bn"] if linear else ["conv", "bn", "relu"] if bn else ["conv", "relu"]], inplace=True)
    net.qconfig = torch.ao.quantization.get_default_qat_qconfig("x86", version=0)
    torch.backends.quantized.engine = "onednn"
    torch.ao.quantization.prepare_qat(net, inplace=True)
    with open(os.path.join(OUT, "wf_%s_prepared.txt" % tag), "w") as f:
        f.write(repr(net))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    losses = []
    for step in range(3):
        x = torch.randn(4, 12) if linear else torch.randn(4, 3, 6, 6)
        t = torch.randn(4, 5)
        save("%s_x%d" % (tag, step), x)
        save("%s_t%d" % (tag, step), t)
        loss = torch.nn.functional.mse_loss(net(x), t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    save(tag + "_losses", np.array(losses, dtype=np.float64))
    keys = ["conv.weight", "conv.bias", "fc.weight", "fc.bias"]
    if bn:
        keys += ["conv.bn.running_mean", "conv.bn.running_var", "conv.bn.weight"]
    if linear:
        keys = ["fc1.weight", "fc1.bias", "fc.weight", "fc.bias", "fc1.bn.running_mean", "fc1.bn.running_var", "fc1.bn.weight"]
    for k in keys:
        save(tag + "_out_" + k, net.state_dict()[k])
    net.eval()
    q = torch.ao.quantization.convert(net)
    with open(os.path.join(OUT, "wf_%s_converted.txt" % tag), "w") as f:
        f.write(repr(q))
    x = torch.randn(2, 12) if linear else torch.randn(2, 3, 6, 6)
    save(tag + "_xtest", x)
    with torch.no_grad():
        save(tag + "_ytest", q(x))
    save(tag + "_fc_scale", np.array([float(q.fc.scale)]))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    static()
    dynamic()
    qat()
    qat(bn=True)
    qat(linear=True)
