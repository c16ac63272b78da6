#!/usr/bin/python3
"""Fixtures of ctensor_jit.h's graph-mode quantization (tests/test_jit.c), made with
PyTorch 1.13's FX graph mode (torch.ao.quantization.quantize_fx: prepare_fx,
calibration, convert_fx):

    /usr/bin/python3 tests/reference/jit_quant_fixtures.py

Two models, each quantized with a default qconfig mapping and calibrated on four
batches:
  cnn: the conv-bn-relu net of the eager static workflow fixtures (wf_st_*, without
       its QuantStub / DeQuantStub: FX quantizes the graph's edges), its weights,
       calibration batches and input read from tests/fixtures/quant, the "x86"
       qconfig mapping on the onednn engine (this build's x86 engine);
  mlp: Linear(20, 32)-ReLU-Linear(32, 16)-ReLU-Linear(16, 5), the "qnnpack" qconfig
       mapping on the qnnpack engine;
  res: a residual block, relu(bn2(conv2(relu(bn1(conv1(x))))) + x), 4 channels;
  cat: two branches, relu(bna(conva(x))) and relu(convb(x)), concatenated along the
       channels, then a 1x1 conv (these two: "x86" mapping, onednn engine, seeded
       random weights and batch norm statistics written as fixtures);
  qat: QAT (prepare_qat_fx, three SGD steps, convert_fx) of a conv-bn-relu,
       conv-bn, flatten, linear net (ConvBnReLU2d, ConvBn2d);
  qatmlp: the same of a linear-bn-relu, linear (no bias)-bn, linear MLP (LinearBn1d).
`jit_quant_fixtures.py qat` remakes only the named ones.
Writes tests/fixtures/jit_quant/jq_*.npy: weights (mlp), calibration batches and
input (mlp), the FX-converted model's output and the output layer's scale and
zero point."""
import copy
import os

import numpy as np
import torch
import torch.nn as nn
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(HERE, "fixtures", "jit_quant")
QF = os.path.join(HERE, "fixtures", "quant")


def save(name, t):
    a = t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)
    np.save(os.path.join(OUT, "jq_" + name + ".npy"), np.ascontiguousarray(a))


def qload(name):
    return torch.from_numpy(np.load(os.path.join(QF, "wf_" + name + ".npy")))


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
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

    def forward(self, x):
        for m in self.children():
            x = m(x)
        return x


def last_layer_qparams(q, name):
    m = getattr(q, name)
    return np.array([float(m.scale), int(m.zero_point)], dtype=np.float64)


def cnn():
    net = Cnn()
    sd = {k: qload("st_in_" + k) for k, v in net.state_dict().items() if v.dtype == torch.float32}
    net.load_state_dict(sd, strict=False)
    net.eval()
    calib = [qload("st_calib%d" % i) for i in range(4)]
    x = qload("st_x")
    torch.backends.quantized.engine = "onednn"
    p = prepare_fx(net, get_default_qconfig_mapping("x86"), example_inputs=(calib[0],))
    with torch.no_grad():
        for c in calib:
            p(c)
    q = convert_fx(p)
    with torch.no_grad():
        save("cnn_y", q(x))
    save("cnn_qparams", last_layer_qparams(q, "fc2"))
    with open(os.path.join(OUT, "jq_cnn_converted.txt"), "w") as f:
        f.write(str(q.graph))


def mlp():
    torch.manual_seed(5)
    net = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 5)).eval()
    for k, v in net.state_dict().items():
        save("mlp_" + k, v)
    calib = [torch.randn(8, 20) for _ in range(4)]
    x = torch.randn(6, 20)
    for i, c in enumerate(calib):
        save("mlp_calib%d" % i, c)
    save("mlp_x", x)
    torch.backends.quantized.engine = "qnnpack"
    p = prepare_fx(net, get_default_qconfig_mapping("qnnpack"), example_inputs=(calib[0],))
    with torch.no_grad():
        for c in calib:
            p(c)
    q = convert_fx(p)
    with torch.no_grad():
        save("mlp_y", q(x))
        save("mlp_y_float", net(x))
    save("mlp_qparams", last_layer_qparams(q, "4"))


class Res(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(4, 4, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(4)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(4, 4, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(4)

    def forward(self, x):
        h = self.bn2(self.conv2(self.relu1(self.bn1(self.conv1(x)))))
        return torch.relu(h + x)


class TwoBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.conva = nn.Conv2d(3, 4, 3, padding=1)
        self.bna = nn.BatchNorm2d(4)
        self.relua = nn.ReLU()
        self.convb = nn.Conv2d(3, 2, 1)
        self.relub = nn.ReLU()
        self.convc = nn.Conv2d(6, 5, 1)

    def forward(self, x):
        return self.convc(torch.cat([self.relua(self.bna(self.conva(x))), self.relub(self.convb(x))], 1))


def out_scale(q):
    """the scale of the quantized value the converted graph dequantizes for its output"""
    out = [n for n in q.graph.nodes if n.op == "output"][0]
    n = out.args[0].args[0]
    if n.op == "call_module":
        return float(getattr(q, n.target).scale)
    return float(getattr(q, n.args[2].target))


def fx_model(name, net, cin, seed):
    torch.manual_seed(seed)
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.copy_(torch.randn(m.num_features) * 0.3)
                m.running_var.copy_(torch.rand(m.num_features) + 0.5)
                m.weight.copy_(torch.rand(m.num_features) + 0.5)
                m.bias.copy_(torch.randn(m.num_features) * 0.2)
    net.eval()
    for k, v in net.state_dict().items():
        if v.dtype == torch.float32:
            save(name + "_" + k, v)
    calib = [torch.randn(2, cin, 6, 6) for _ in range(4)]
    x = torch.randn(2, cin, 6, 6)
    for i, c in enumerate(calib):
        save(name + "_calib%d" % i, c)
    save(name + "_x", x)
    torch.backends.quantized.engine = "onednn"
    p = prepare_fx(net, get_default_qconfig_mapping("x86"), example_inputs=(calib[0],))
    with torch.no_grad():
        for c in calib:
            p(c)
    q = convert_fx(p)
    with torch.no_grad():
        save(name + "_y", q(x))
    save(name + "_qparams", np.array([out_scale(q), 0], dtype=np.float64))
    with open(os.path.join(OUT, "jq_%s_converted.txt" % name), "w") as f:
        f.write(str(q.graph))


class QatCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(4)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(4, 4, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(4)
        self.flat = nn.Flatten()
        self.fc = nn.Linear(4 * 6 * 6, 3)

    def forward(self, x):
        for m in self.children():
            x = m(x)
        return x


def qat_cnn():
    """QAT in FX graph mode of conv-bn-relu, conv-bn, flatten, linear: prepare_qat_fx
    (ConvBnReLU2d, ConvBn2d) with the eager QAT fixtures' qconfig (x86, version 0),
    three SGD steps (lr 0.05, momentum 0.9, MSE), the running statistics, convert_fx
    on the onednn engine and its output"""
    from torch.ao.quantization import QConfigMapping, get_default_qat_qconfig
    from torch.ao.quantization.quantize_fx import prepare_qat_fx
    torch.manual_seed(43)
    net = QatCnn()
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.copy_(torch.randn(4) * 0.3)
                m.running_var.copy_(torch.rand(4) + 0.5)
                m.weight.copy_(torch.rand(4) + 0.5)
                m.bias.copy_(torch.randn(4) * 0.2)
    for k, v in net.state_dict().items():
        if v.dtype == torch.float32:
            save("qat_" + k, v)
    xs = [torch.randn(5, 1, 6, 6) * 2 for _ in range(3)]
    ts = [torch.randn(5, 3) for _ in range(3)]
    xt = torch.randn(4, 1, 6, 6)
    for i in range(3):
        save("qat_x%d" % i, xs[i])
        save("qat_t%d" % i, ts[i])
    save("qat_xt", xt)
    torch.backends.quantized.engine = "onednn"
    net.train()
    qm = QConfigMapping().set_global(get_default_qat_qconfig("x86", version=0))
    p = prepare_qat_fx(net, qm, example_inputs=(xs[0],))
    opt = torch.optim.SGD(p.parameters(), lr=0.05, momentum=0.9)
    losses = []
    for i in range(3):
        loss = nn.functional.mse_loss(p(xs[i]), ts[i])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    save("qat_losses", np.array(losses, dtype=np.float64))
    stats = [getattr(p, c).bn for c in ("conv1", "conv2")]
    save("qat_running", torch.cat([torch.cat([b.running_mean, b.running_var]) for b in stats]))
    p.eval()
    q = convert_fx(p)
    with torch.no_grad():
        save("qat_y", q(xt))
    save("qat_qparams", np.array([out_scale(q), 0], dtype=np.float64))
    with open(os.path.join(OUT, "jq_qat_converted.txt"), "w") as f:
        f.write(str(q.graph))


class QatMlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.bn1 = nn.BatchNorm1d(16)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(16, 12, bias=False)
        self.bn2 = nn.BatchNorm1d(12)
        self.fc3 = nn.Linear(12, 4)

    def forward(self, x):
        for m in self.children():
            x = m(x)
        return x


def qat_mlp():
    """QAT in FX graph mode of linear-bn-relu, linear (no bias)-bn, linear:
    prepare_qat_fx (LinearBn1d twice; the relu shares the first one's FakeQuantize),
    as qat_cnn: three SGD steps (lr 0.05, momentum 0.9, MSE), the running statistics,
    convert_fx on the onednn engine and its output"""
    from torch.ao.quantization import QConfigMapping, get_default_qat_qconfig
    from torch.ao.quantization.quantize_fx import prepare_qat_fx
    torch.manual_seed(44)
    net = QatMlp()
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, nn.BatchNorm1d):
                m.running_mean.copy_(torch.randn(m.num_features) * 0.3)
                m.running_var.copy_(torch.rand(m.num_features) + 0.5)
                m.weight.copy_(torch.rand(m.num_features) + 0.5)
                m.bias.copy_(torch.randn(m.num_features) * 0.2)
    for k, v in net.state_dict().items():
        if v.dtype == torch.float32:
            save("qlm_" + k, v)
    xs = [torch.randn(6, 8) * 2 for _ in range(3)]
    ts = [torch.randn(6, 4) for _ in range(3)]
    xt = torch.randn(5, 8)
    for i in range(3):
        save("qlm_x%d" % i, xs[i])
        save("qlm_t%d" % i, ts[i])
    save("qlm_xt", xt)
    torch.backends.quantized.engine = "onednn"
    net.train()
    eager = copy.deepcopy(net)
    qm = QConfigMapping().set_global(get_default_qat_qconfig("x86", version=0))
    p = prepare_qat_fx(net, qm, example_inputs=(xs[0],))

    def train(model):
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        losses = []
        for i in range(3):
            loss = nn.functional.mse_loss(model(xs[i]), ts[i])
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return np.array(losses, dtype=np.float64)
    save("qlm_losses", train(p))
    # PyTorch's eager QAT of the same model (fuse_modules_qat's LinearBn1d; its relu
    # runs on the fake-quantized output, observed by nothing): FX's relu shares the
    # LinearBn1d's FakeQuantize, which then also observes (and fake-quantizes) the
    # relu's output, so FX's losses drift from eager's after the first step
    em = nn.Sequential(torch.ao.quantization.QuantStub(), eager, torch.ao.quantization.DeQuantStub())
    torch.ao.quantization.fuse_modules_qat(em, [["1.fc1", "1.bn1"], ["1.fc2", "1.bn2"]], inplace=True)
    em.qconfig = get_default_qat_qconfig("x86", version=0)
    torch.ao.quantization.prepare_qat(em, inplace=True)
    save("qlm_eager_losses", train(em))
    stats = [getattr(p, c).bn for c in ("fc1", "fc2")]
    save("qlm_running", torch.cat([torch.cat([b.running_mean, b.running_var]) for b in stats]))
    p.eval()
    with torch.no_grad():
        save("qlm_yf", p(xt))
    with open(os.path.join(OUT, "jq_qlm_prepared.txt"), "w") as f:
        f.write(str(p.graph))
    q = convert_fx(p)
    with torch.no_grad():
        save("qlm_y", q(xt))
    save("qlm_qparams", np.array([out_scale(q), 0], dtype=np.float64))
    with open(os.path.join(OUT, "jq_qlm_converted.txt"), "w") as f:
        f.write(str(q.graph))


if __name__ == "__main__":
    import sys
    os.makedirs(OUT, exist_ok=True)
    only = sys.argv[1:]                  # names to remake (default: all)
    if not only or "cnn" in only:
        cnn()
    if not only or "mlp" in only:
        mlp()
    if not only or "res" in only:
        fx_model("res", Res(), 4, 41)
    if not only or "cat" in only:
        fx_model("cat", TwoBranch(), 3, 42)
    if not only or "qat" in only:
        qat_cnn()
    if not only or "qatmlp" in only:
        qat_mlp()
