"""PyTorch twin of bench/quant.c: dynamic quantized Linear 1024 -> 1024 and the MLP
1024-4096-1024 (torch.ao.quantization.quantize_dynamic, qint8 weights per tensor) at
batch 1 and 32 on 1 and 2 threads, under each quantized engine this PyTorch has
(case suffix _qnnpack, _onednn), then the fastest engine again under the case's
plain name, the one ctensor's int8 case has, the float32 Linear / MLP under
torch.no_grad(), torch.quantize_per_tensor on 1M float32s, and the static PTQ conv
net of quant.c (eager mode: fuse_modules, the x86 qconfig, prepare, calibration on
random data, convert) on each engine, then the fastest under the plain name, and in
float32; single quantized convs (torch.ao.nn.quantized.Conv2d, per-channel symmetric
qint8 weight, channels-last quint8 input) on each engine, then the fastest. Same
case names and line format as quant.c."""
import torch
import torch.nn as nn
from torch.ao.quantization import DeQuantStub, QuantStub


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.c1, self.r1 = nn.Conv2d(3, 32, 3, 2, 1), nn.ReLU()
        self.c2, self.r2 = nn.Conv2d(32, 64, 3, 1, 1), nn.ReLU()
        self.p = nn.MaxPool2d(2, 2)
        self.c3, self.r3 = nn.Conv2d(64, 128, 3, 1, 1), nn.ReLU()
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.flat = nn.Flatten()
        self.fc = nn.Linear(128, 10)
        self.dequant = DeQuantStub()

    def forward(self, x):
        for m in self.children():
            x = m(x)
        return x


def static_convnet(engine):
    torch.backends.quantized.engine = engine
    torch.manual_seed(1)
    net = ConvNet().eval()
    torch.ao.quantization.fuse_modules(net, [["c1", "r1"], ["c2", "r2"], ["c3", "r3"]], inplace=True)
    net.qconfig = torch.ao.quantization.get_default_qconfig("x86" if engine != "qnnpack" else "qnnpack")
    torch.ao.quantization.prepare(net, inplace=True)
    with torch.no_grad():
        for _ in range(8):
            net(torch.randn(4, 3, 64, 64))
    return torch.ao.quantization.convert(net)

import ctbench


# the single quantized convs of quant.c: name, in, out, kernel, stride, padding, groups, input size
QCONVS = (("3x3_64_56", 64, 64, 3, 1, 1, 1, 56), ("7x7s2_3_224", 3, 64, 7, 2, 3, 1, 224),
          ("3x3_512_7", 512, 512, 3, 1, 1, 1, 7), ("1x1_256_64_28", 256, 64, 1, 1, 0, 1, 28),
          ("dw5x5_576_14", 576, 576, 5, 1, 2, 576, 14), ("dw3x3s2_16_112", 16, 16, 3, 2, 1, 16, 112))


def qconv(engine, C, O, k, s, pad, groups):
    torch.backends.quantized.engine = engine
    w = torch.randn(O, C // groups, k, k)
    sc = w.reshape(O, -1).abs().amax(1) / 127.0
    qw = torch.quantize_per_channel(w, sc.double(), torch.zeros(O, dtype=torch.long), 0, torch.qint8)
    m = torch.ao.nn.quantized.Conv2d(C, O, k, stride=s, padding=pad, groups=groups)
    m.set_weight_bias(qw, torch.randn(O))
    m.scale, m.zero_point = 0.5, 64
    return m


def main():
    ctbench.begin("quant (torch.ao.quantization dynamic Linear)")
    torch.manual_seed(0)
    lin = torch.nn.Linear(1024, 1024)
    mlp = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024))
    engines = [e for e in ("qnnpack", "onednn", "fbgemm", "x86") if e in torch.backends.quantized.supported_engines]
    qmods = {}
    for e in engines:
        torch.backends.quantized.engine = e
        qmods[e] = (torch.ao.quantization.quantize_dynamic(lin, {torch.nn.Linear}, dtype=torch.qint8),
                    torch.ao.quantization.quantize_dynamic(mlp, {torch.nn.Linear}, dtype=torch.qint8))
    import warnings
    warnings.filterwarnings("ignore")
    qnets = {e: static_convnet(e) for e in engines}
    torch.manual_seed(1)
    fnet = ConvNet().eval()
    with torch.no_grad():
        for t in (1, 2):
            ctbench.set_threads(t)
            for b in (1, 32):
                x = torch.randn(b, 1024)
                params = "batch=%d threads=%d" % (b, t)
                f1, f2 = 2.0 * b * 1024 * 1024, 2.0 * 2 * b * 1024 * 4096
                for case, k, fl in (("linear_dyn_1024", 0, f1), ("mlp_dyn_1024_4096_1024", 1, f2)):
                    # each engine under its own name, then the fastest again under the name ctensor's case has
                    best = None
                    for e in engines:
                        torch.backends.quantized.engine = e
                        us = ctbench.run("%s_b%d_t%d_%s" % (case, b, t, e), params, "q(x)", {"q": qmods[e][k], "x": x},
                                         flops=fl)
                        if us > 0 and (best is None or us < best[0]):
                            best = (us, e)
                    if best:
                        torch.backends.quantized.engine = best[1]
                        ctbench.run("%s_b%d_t%d" % (case, b, t), params + " engine=" + best[1], "q(x)",
                                    {"q": qmods[best[1]][k], "x": x}, flops=fl)
                ctbench.run("linear_f32_1024_b%d_t%d" % (b, t), params, "lin(x)", {"lin": lin, "x": x}, flops=f1)
                ctbench.run("mlp_f32_1024_4096_1024_b%d_t%d" % (b, t), params, "mlp(x)", {"mlp": mlp, "x": x}, flops=f2)
            img = torch.randn(1, 3, 64, 64)
            params = "1x3x64x64, threads=%d" % t
            best = None
            for e in engines:
                torch.backends.quantized.engine = e
                us = ctbench.run("convnet_static_1x3x64x64_t%d_%s" % (t, e), params, "m(x)", {"m": qnets[e], "x": img})
                if us > 0 and (best is None or us < best[0]):
                    best = (us, e)
            if best:
                torch.backends.quantized.engine = best[1]
                ctbench.run("convnet_static_1x3x64x64_t%d" % t, params + " engine=" + best[1], "m(x)", {"m": qnets[best[1]], "x": img})
            ctbench.run("convnet_f32_1x3x64x64_t%d" % t, params, "m(x)", {"m": fnet, "x": img})
            for name, C, O, k, s, pad, groups, hw in QCONVS:
                x = torch.quantize_per_tensor(torch.randn(1, C, hw, hw), 0.05, 64, torch.quint8)
                x = x.contiguous(memory_format=torch.channels_last)
                oh = (hw + 2 * pad - k) // s + 1
                fl = 2.0 * oh * oh * O * (C // groups) * k * k
                params = "1x%dx%dx%d, threads=%d" % (C, hw, hw, t)
                best = None
                for e in engines:
                    m = qconv(e, C, O, k, s, pad, groups)
                    us = ctbench.run("qconv_%s_t%d_%s" % (name, t, e), params, "m(x)", {"m": m, "x": x}, flops=fl)
                    if us > 0 and (best is None or us < best[0]):
                        best = (us, e, m)
                if best:
                    torch.backends.quantized.engine = best[1]
                    ctbench.run("qconv_%s_t%d" % (name, t), params + " engine=" + best[1], "m(x)", {"m": best[2], "x": x},
                                flops=fl)
            xq = torch.randn(1 << 20)
            ctbench.run("quantize_per_tensor_1M_t%d" % t, "1M float32 -> quint8, threads=%d" % t,
                        "torch.quantize_per_tensor(xq, 0.02, 120, torch.quint8)", {"torch": torch, "xq": xq},
                        bytes=5.0 * (1 << 20))


if __name__ == "__main__":
    main()
