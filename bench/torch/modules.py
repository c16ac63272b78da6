"""modules.py - PyTorch twin of bench/modules.c: building and loading a ResNet-18, 1 thread.

torchvision is not needed: the ResNet-18 below is torchvision.models.resnet18's
layout (the same module names, so the same state-dict keys) and initialisation
(every layer's default init, then kaiming_normal_(mode="fan_out",
nonlinearity="relu") over the convolutions and BatchNorm weight 1 / bias 0), in
plain torch.nn. Cases (the names of modules.c):
  resnet18_build               ResNet18() and drop it
  resnet18_build_skip_init     ResNet18(device="meta").to_empty(device="cpu"): what
                               torch.nn.utils.skip_init does for one module
  resnet18_load_state_dict     model.load_state_dict(other.state_dict()) (strict)
  resnet18_skip_init_and_load  the two above together: a model ready from a checkpoint
(resnet18_load_safetensors has no twin: the safetensors package is not installed.)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import ctbench  # noqa: E402


class BasicBlock(nn.Module):
    def __init__(self, inplanes, planes, stride=1, device=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False, device=device)
        self.bn1 = nn.BatchNorm2d(planes, device=device)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False, device=device)
        self.bn2 = nn.BatchNorm2d(planes, device=device)
        self.downsample = None
        if stride != 1 or inplanes != planes:
            self.downsample = nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride, bias=False, device=device),
                                            nn.BatchNorm2d(planes, device=device))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class ResNet18(nn.Module):
    def __init__(self, num_classes=1000, device=None):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False, device=device)
        self.bn1 = nn.BatchNorm2d(64, device=device)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        inplanes = 64
        for i, planes in enumerate((64, 128, 256, 512)):
            stride = 1 if i == 0 else 2
            setattr(self, "layer%d" % (i + 1), nn.Sequential(BasicBlock(inplanes, planes, stride, device),
                                                             BasicBlock(planes, planes, 1, device)))
            inplanes = planes
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512, num_classes, device=device)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def skip_init():
    return ResNet18(device="meta").to_empty(device="cpu")


def skip_and_load(sd):
    m = ResNet18(device="meta").to_empty(device="cpu")
    m.load_state_dict(sd)
    return m


def main():
    ctbench.begin("modules")
    ctbench.set_threads(1)
    torch.manual_seed(0)
    src = ResNet18()
    sd = src.state_dict()
    target = skip_init()
    target.load_state_dict(sd)
    src.eval()
    target.eval()
    with torch.no_grad():
        x = torch.randn(1, 3, 64, 64)
        same = torch.equal(src(x), target(x))
    print("# check: meta + to_empty ResNet-18 + load_state_dict gives the source model's logits: %s "
          "(%d parameters, %d state-dict tensors)" % ("yes" if same else "NO", sum(p.numel() for p in src.parameters()), len(sd)))
    env = {"ResNet18": ResNet18, "skip_init": skip_init, "skip_and_load": skip_and_load, "target": target, "sd": sd}
    ctbench.run("resnet18_build", "torchvision layout, random init", "ResNet18()", env)
    ctbench.run("resnet18_build_skip_init", "CT_SKIP_INIT / meta + to_empty", "skip_init()", env)
    ctbench.run("resnet18_load_state_dict", "strict, 122 tensors", "target.load_state_dict(sd)", env)
    ctbench.run("resnet18_skip_init_and_load", "skip-init build + load_state_dict", "skip_and_load(sd)", env)


if __name__ == "__main__":
    main()
