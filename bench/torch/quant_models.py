"""quant_models.py - PyTorch twin of bench/quant_models.c: torchvision's quantizable
ResNet-18 and MobileNetV3-Small (torchvision/models/quantization/resnet.py and
mobilenetv3.py, written here in plain torch.nn: torchvision is not installed),
random weights, post-training static quantization in eager mode (fuse_model, the
x86 qconfig (qnnpack's on the qnnpack engine), prepare, calibration on two random
2x3x224x224 batches, convert), one 1x3x224x224 image:
  MODEL_int8_1x3x224x224_E_tT   the quantized model on engine E (qnnpack, onednn)
  MODEL_int8_1x3x224x224_tT     the fastest engine again (the case ctensor's int8 has)
  MODEL_f32_1x3x224x224_tT      the float model, torch.inference_mode()
The model classes are also the layouts of tests/reference/quant_fixtures_models.py."""
import os
import sys

import torch
import torch.nn as nn
import torch.ao.nn.quantized as nnq
from torch.ao.quantization import DeQuantStub, QuantStub


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


class QuantizableResNet(nn.Module):
    """two BasicBlocks per layer; ResNet-18: stem 64, widths (64, 128, 256, 512)"""

    def __init__(self, stem=64, widths=(64, 128, 256, 512), classes=1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, stem, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(stem)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        cin = stem
        self.nlayers = len(widths)
        for i, w in enumerate(widths):
            setattr(self, "layer%d" % (i + 1), nn.Sequential(QuantizableBasicBlock(cin, w, 2 if i else 1), QuantizableBasicBlock(w, w, 1)))
            cin = w
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, classes)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        for i in range(self.nlayers):
            x = getattr(self, "layer%d" % (i + 1))(x)
        x = self.fc(torch.flatten(self.avgpool(x), 1))
        return self.dequant(x)


def make_divisible(v, divisor):   # torchvision's _make_divisible (min_value = divisor)
    n = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return n + divisor if n < 0.9 * v else n


def cna(cin, cout, k, stride, groups, act):
    """Conv2dNormActivation: conv (no bias), BatchNorm (eps 0.001, momentum 0.01)[, act]"""
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
    def __init__(self, cin, k, exp, cout, se, hs, stride):
        super().__init__()
        act = nn.Hardswish if hs else nn.ReLU
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


# (in, kernel, expanded, out, squeeze-excitation, hardswish, stride)
MOBILENET_V3_SMALL = [(16, 3, 16, 16, 1, 0, 2), (16, 3, 72, 24, 0, 0, 2), (24, 3, 88, 24, 0, 0, 1), (24, 5, 96, 40, 1, 1, 2),
                      (40, 5, 240, 40, 1, 1, 1), (40, 5, 240, 40, 1, 1, 1), (40, 5, 120, 48, 1, 1, 1), (48, 5, 144, 48, 1, 1, 1),
                      (48, 5, 288, 96, 1, 1, 2), (96, 5, 576, 96, 1, 1, 1), (96, 5, 576, 96, 1, 1, 1)]


class QuantizableMobileNetV3(nn.Module):
    def __init__(self, cfg=MOBILENET_V3_SMALL, stem=16, last=576, hidden=1024, classes=1000):
        super().__init__()
        self.features = nn.Sequential(cna(3, stem, 3, 2, 1, nn.Hardswish), *[QuantizableInvertedResidual(*c) for c in cfg],
                                      cna(cfg[-1][3], last, 1, 1, 1, nn.Hardswish))
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Linear(last, hidden), nn.Hardswish(), nn.Dropout(0.2), nn.Linear(hidden, classes))
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))
        return self.dequant(x)


def fuse_model(net, qat=False):
    """torchvision's fuse_model(is_qat): conv + bn (+ relu) of every block, SE's fc1 + ReLU"""
    fuse = torch.ao.quantization.fuse_modules_qat if qat else torch.ao.quantization.fuse_modules
    for m in net.modules():
        if isinstance(m, (QuantizableResNet, QuantizableBasicBlock)):
            fuse(m, ["conv1", "bn1", "relu"], inplace=True)
            if isinstance(m, QuantizableBasicBlock):
                fuse(m, ["conv2", "bn2"], inplace=True)
        elif type(m) is nn.Sequential and len(m) >= 2 and isinstance(m[0], nn.Conv2d) and isinstance(m[1], nn.BatchNorm2d):
            fuse(m, ["0", "1", "2"] if len(m) == 3 and isinstance(m[2], nn.ReLU) else ["0", "1"], inplace=True)
        elif isinstance(m, QuantizableSqueezeExcitation):
            fuse(m, ["fc1", "activation"], inplace=True)
    return net


def init_weights(net):
    """bench/quant_zoo.h's qz_init: torchvision's initialisation but kaiming "fan_in" (with
    "fan_out" a random MobileNet's output vanishes, about 1e-9)"""
    for m in net.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_in", nonlinearity="relu")
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.BatchNorm2d):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, 0, 0.01)
            nn.init.zeros_(m.bias)
    return net


def quantized(make, engine, calib):
    torch.backends.quantized.engine = engine
    torch.manual_seed(0)
    net = fuse_model(init_weights(make()).eval())
    net.qconfig = torch.ao.quantization.get_default_qconfig("qnnpack" if engine == "qnnpack" else "x86")
    torch.ao.quantization.prepare(net, inplace=True)
    with torch.no_grad():
        for c in calib:
            net(c)
    return torch.ao.quantization.convert(net, inplace=True)


def main():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import warnings

    import ctbench
    warnings.filterwarnings("ignore")
    ctbench.begin("quant_models (torch.ao.quantization eager PTQ: quantizable ResNet-18, MobileNetV3-Small)")
    engines = [e for e in ("qnnpack", "onednn", "fbgemm", "x86") if e in torch.backends.quantized.supported_engines]
    torch.manual_seed(1)
    calib = [torch.randn(2, 3, 224, 224) for _ in range(2)]
    img = torch.randn(1, 3, 224, 224)
    for name, make in (("resnet18", QuantizableResNet), ("mobilenet_v3_small", QuantizableMobileNetV3)):
        qnets = {e: quantized(make, e, calib) for e in engines}
        torch.manual_seed(0)
        fnet = init_weights(make()).eval()
        for t in (1, 2):
            ctbench.set_threads(t)
            params = "1x3x224x224, threads=%d" % t
            best = None
            for e in engines:
                torch.backends.quantized.engine = e
                with torch.inference_mode():
                    us = ctbench.run("%s_int8_1x3x224x224_%s_t%d" % (name, e, t), params, "q(x)", {"q": qnets[e], "x": img})
                if us > 0 and (best is None or us < best[0]):
                    best = (us, e)
            if best is not None:
                torch.backends.quantized.engine = best[1]
                with torch.inference_mode():
                    ctbench.run("%s_int8_1x3x224x224_t%d" % (name, t), params + " engine=" + best[1], "q(x)", {"q": qnets[best[1]], "x": img})
            with torch.inference_mode():
                ctbench.run("%s_f32_1x3x224x224_t%d" % (name, t), params, "f(x)", {"f": fnet, "x": img})


if __name__ == "__main__":
    main()
