"""models.py - PyTorch twin of bench/models.c: ResNet-18 and MobileNetV3-Small, random
weights, float32, NCHW, same case names and thread counts.

torchvision is not needed (nor installed here): the two models below are written in plain
torch.nn with torchvision 0.14's layouts (the release for PyTorch 1.13: the same module
names, so the same state-dict keys, the same parameter counts: 11,689,512 and 2,542,856)
and initialisation:
  resnet18            torchvision/models/resnet.py (BasicBlock, [2, 2, 2, 2]); as modules.py
  mobilenet_v3_small  torchvision/models/mobilenetv3.py (Conv2dNormActivation,
                      InvertedResidual, SqueezeExcitation from torchvision/ops/misc.py),
                      BatchNorm eps 0.001 momentum 0.01, classifier Linear(576, 1024) -
                      Hardswish - Dropout(0.2) - Linear(1024, 1000); in-place activations
                      and `result += input` as torchvision has them
Cases:
  MODEL_eval_NxCxHxW_tT   model.eval(); with torch.inference_mode(): model(x)
  MODEL_train_NxCxHxW_tT  model.train(); loss = F.cross_entropy(model(x), y);
                          opt.zero_grad(set_to_none=True); loss.backward(); opt.step()
                          (SGD lr 0.01 momentum 0.9; fixed labels y in 0..999)
"""
import os
import sys
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import ctbench  # noqa: E402
from modules import ResNet18  # noqa: E402  (torchvision.models.resnet18's layout and init)


def _make_divisible(v, divisor, min_value=None):
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class Conv2dNormActivation(nn.Sequential):
    def __init__(self, cin, cout, kernel_size=3, stride=1, groups=1, norm_layer=None, activation_layer=nn.ReLU):
        layers = [nn.Conv2d(cin, cout, kernel_size, stride, (kernel_size - 1) // 2, groups=groups, bias=False),
                  norm_layer(cout)]
        if activation_layer is not None:
            layers.append(activation_layer(inplace=True))
        super().__init__(*layers)


class SqueezeExcitation(nn.Module):
    def __init__(self, input_channels, squeeze_channels, activation=nn.ReLU, scale_activation=nn.Hardsigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def forward(self, input):
        scale = self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(input)))))
        return scale * input


class InvertedResidual(nn.Module):
    def __init__(self, cin, kernel, exp, cout, use_se, use_hs, stride, norm_layer):
        super().__init__()
        self.use_res_connect = stride == 1 and cin == cout
        act = nn.Hardswish if use_hs else nn.ReLU
        layers = []
        if exp != cin:
            layers.append(Conv2dNormActivation(cin, exp, 1, norm_layer=norm_layer, activation_layer=act))
        layers.append(Conv2dNormActivation(exp, exp, kernel, stride, groups=exp, norm_layer=norm_layer,
                                           activation_layer=act))
        if use_se:
            layers.append(SqueezeExcitation(exp, _make_divisible(exp // 4, 8)))
        layers.append(Conv2dNormActivation(exp, cout, 1, norm_layer=norm_layer, activation_layer=None))
        self.block = nn.Sequential(*layers)

    def forward(self, input):
        result = self.block(input)
        if self.use_res_connect:
            result += input
        return result


class MobileNetV3Small(nn.Module):
    # input_channels, kernel, expanded_channels, out_channels, use_se, use_hs, stride
    CFG = [(16, 3, 16, 16, True, False, 2), (16, 3, 72, 24, False, False, 2), (24, 3, 88, 24, False, False, 1),
           (24, 5, 96, 40, True, True, 2), (40, 5, 240, 40, True, True, 1), (40, 5, 240, 40, True, True, 1),
           (40, 5, 120, 48, True, True, 1), (48, 5, 144, 48, True, True, 1), (48, 5, 288, 96, True, True, 2),
           (96, 5, 576, 96, True, True, 1), (96, 5, 576, 96, True, True, 1)]

    def __init__(self, num_classes=1000):
        super().__init__()
        norm_layer = partial(nn.BatchNorm2d, eps=0.001, momentum=0.01)
        layers = [Conv2dNormActivation(3, 16, 3, 2, norm_layer=norm_layer, activation_layer=nn.Hardswish)]
        for c in self.CFG:
            layers.append(InvertedResidual(*c, norm_layer=norm_layer))
        layers.append(Conv2dNormActivation(96, 576, 1, norm_layer=norm_layer, activation_layer=nn.Hardswish))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Linear(576, 1024), nn.Hardswish(inplace=True), nn.Dropout(p=0.2, inplace=True),
                                        nn.Linear(1024, num_classes))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


def eval_step(model, x):
    with torch.inference_mode():
        model(x)


def main():
    ctbench.begin("models")
    torch.manual_seed(0)
    inputs = [(2, 3, 64, 64), (1, 3, 224, 224)]
    xs = [torch.randn(*s) for s in inputs]
    ys = [torch.randint(0, 1000, (s[0],)) for s in inputs]
    models = [("resnet18", ResNet18, 11689512), ("mobilenet_v3_small", MobileNetV3Small, 2542856)]
    for mname, make, want in models:
        ctbench.set_threads(1)
        model = make()
        n = sum(p.numel() for p in model.parameters())
        print("# check: %s: %d parameters (torchvision: %d), %d state-dict tensors: %s"
              % (mname, n, want, len(model.state_dict()), "ok" if n == want else "WRONG"))
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        for train in (False, True):
            model.train(train)
            for s, x, y in zip(inputs, xs, ys):
                for t in (1, 2):
                    name = "%s_%s_%s_t%d" % (mname, "train" if train else "eval", "x".join(map(str, s)), t)
                    ctbench.set_threads(t)
                    if train:
                        ctbench.run(name, "fwd + CE + zero_grad + bwd + SGD m0.9", "train_step(model, opt, x, y)",
                                    {"train_step": ctbench.train_step, "model": model, "opt": opt, "x": x, "y": y})
                    else:
                        ctbench.run(name, "inference mode", "eval_step(model, x)",
                                    {"eval_step": eval_step, "model": model, "x": x})


if __name__ == "__main__":
    main()
