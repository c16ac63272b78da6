#!/usr/bin/python3
"""Fixtures of the numeric suite (tests/quant/test_quant_numeric.h), made with
PyTorch 1.13 (Debian's python3-torch):

    /usr/bin/python3 tests/reference/quant_fixtures_numeric.py

A small conv net quantized in eager mode (fuse_modules, prepare with the x86
default qconfig, calibration, convert on the onednn engine), then
torch.ao.ns._numeric_suite's compare_weights and compare_model_outputs on it, and
the one-layer-at-a-time sensitivity loop (each layer alone in a QuantWrapper with
the qconfig, the rest float), and a layer kept float by qconfig None between
stubs. Writes tests/fixtures/quant/ns_*.npy and
ns_keys.txt (the result keys, in PyTorch's order)."""
import copy
import os

import numpy as np
import torch
import torch.nn as nn
import torch.ao.ns._numeric_suite as ns
from torch.ao.quantization import DeQuantStub, QuantStub, QuantWrapper

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "quant")


def save(name, t):
    a = t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)
    np.save(os.path.join(OUT, "ns_" + name + ".npy"), np.ascontiguousarray(a))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(4)
        self.relu1 = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.flat = nn.Flatten()
        self.fc1 = nn.Linear(36, 8)
        self.relu2 = nn.ReLU()
        self.fc2 = nn.Linear(8, 3)
        self.dequant = DeQuantStub()

    def forward(self, x):
        for m in self.children():
            x = m(x)
        return x


class KeepNet(Net):
    """Net with a DeQuantStub "dq" before fc2, so that fc2 can stay float."""

    def __init__(self):
        super().__init__()
        self.dq = DeQuantStub()
        order = ["quant", "conv1", "bn1", "relu1", "pool", "flat", "fc1", "relu2", "dq", "fc2", "dequant"]
        self._modules = type(self._modules)((k, self._modules[k]) for k in order)


def calibrate(m, calib):
    with torch.no_grad():
        for c in calib:
            m(c)


def main():
    torch.manual_seed(3)
    net = Net()
    net.bn1.running_mean.uniform_(-0.3, 0.3)
    net.bn1.running_var.uniform_(0.5, 1.5)
    net.bn1.weight.data.uniform_(0.5, 1.5)
    net.bn1.bias.data.uniform_(-0.2, 0.2)
    net.eval()
    for k, v in net.state_dict().items():
        if v.dtype == torch.float32:
            save("in_" + k, v)
    calib = [torch.randn(4, 1, 6, 6) for _ in range(2)]
    x = torch.randn(2, 1, 6, 6)
    for i, c in enumerate(calib):
        save("calib%d" % i, c)
    save("x", x)
    torch.backends.quantized.engine = "onednn"
    fused = torch.ao.quantization.fuse_modules(net, [["conv1", "bn1", "relu1"], ["fc1", "relu2"]])
    float_model = copy.deepcopy(fused)
    fused.qconfig = torch.ao.quantization.get_default_qconfig("x86")
    prepared = torch.ao.quantization.prepare(fused)
    calibrate(prepared, calib)
    q = torch.ao.quantization.convert(prepared)
    keys = []
    # compare_weights: float and quantized weights (the quantized ones as codes + parameters)
    wd = ns.compare_weights(float_model.state_dict(), q.state_dict())
    for i, (k, v) in enumerate(wd.items()):
        keys.append("w %s" % k)
        save("w%d_float" % i, v["float"])
        qw = v["quantized"]
        save("w%d_codes" % i, qw.int_repr())
        if qw.qscheme() in (torch.per_channel_affine, torch.per_channel_symmetric):
            save("w%d_scales" % i, qw.q_per_channel_scales())
            save("w%d_zps" % i, qw.q_per_channel_zero_points())
        else:
            save("w%d_scales" % i, np.array([qw.q_scale()], dtype=np.float64))
            save("w%d_zps" % i, np.array([qw.q_zero_point()], dtype=np.int64))
    # compare_model_outputs: the outputs of the matching modules, quantized ones dequantized
    fm, qm = copy.deepcopy(float_model), copy.deepcopy(q)
    with torch.no_grad():
        od = ns.compare_model_outputs(fm, qm, x)
    for i, (k, v) in enumerate(od.items()):
        keys.append("o %s %d" % (k, len(v["float"])))
        save("o%d_float" % i, v["float"][0])
        qv = v["quantized"][0]
        save("o%d_quant" % i, qv.dequantize() if qv.is_quantized else qv)
        save("o%d_scale" % i, np.array([qv.q_scale() if qv.is_quantized else 0.0], dtype=np.float64))
    # the fused Linear + ReLU: PyTorch 1.13 logs the float one but not the quantized
    # LinearReLU (see the test); its outputs, taken with forward hooks
    outs = {}
    fh = float_model.fc1.register_forward_hook(lambda m, i, o: outs.__setitem__("float", o))
    qh = q.fc1.register_forward_hook(lambda m, i, o: outs.__setitem__("quant", o))
    with torch.no_grad():
        float_model(x)
        q(x)
    fh.remove()
    qh.remove()
    save("fc1_float", outs["float"])
    save("fc1_quant", outs["quant"].dequantize())
    save("fc1_scale", np.array([outs["quant"].q_scale()], dtype=np.float64))
    with torch.no_grad():
        yf = float_model(x)
    save("y_float", yf)
    # sensitivity: one layer quantized at a time (QuantWrapper around it), the rest float
    for name in ["conv1", "fc1", "fc2"]:
        m = copy.deepcopy(float_model)
        m.qconfig = None
        setattr(m, name, QuantWrapper(getattr(m, name)))
        getattr(m, name).qconfig = torch.ao.quantization.get_default_qconfig("x86")
        torch.ao.quantization.prepare(m, inplace=True)
        calibrate(m, calib)
        torch.ao.quantization.convert(m, inplace=True)
        with torch.no_grad():
            y = m(x)
        keys.append("s %s" % name)
        save("s_%s" % name, y)
        save("s_%s_sqnr" % name, np.array([(20 * torch.log10(yf.norm() / (yf - y).norm())).item()], dtype=np.float64))
        if name == "fc1":
            with open(os.path.join(OUT, "ns_wrapped.txt"), "w") as f:
                f.write(repr(m))
    # a layer kept float by qconfig None, between stubs the model places (eager mode
    # needs them): fc2 float after a DeQuantStub; the last DeQuantStub with the
    # qconfig (a DeQuantize that gets fc2's float output) or without (stays a stub)
    for tag, none in (("keep", ["fc2"]), ("keep2", ["fc2", "dequant"])):
        m = KeepNet()
        m.load_state_dict(net.state_dict())
        m.eval()
        m = torch.ao.quantization.fuse_modules(m, [["conv1", "bn1", "relu1"], ["fc1", "relu2"]])
        m.qconfig = torch.ao.quantization.get_default_qconfig("x86")
        for name in none:
            getattr(m, name).qconfig = None
        torch.ao.quantization.prepare(m, inplace=True)
        calibrate(m, calib)
        torch.ao.quantization.convert(m, inplace=True)
        with torch.no_grad():
            save(tag + "_y", m(x))
        with open(os.path.join(OUT, "ns_%s.txt" % tag), "w") as f:
            f.write(repr(m))
    with open(os.path.join(OUT, "ns_keys.txt"), "w") as f:
        f.write("\n".join(keys) + "\n")


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    main()
