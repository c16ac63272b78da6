"""PyTorch twin of bench/conv.c: same cases, same line format, 1 thread.
The conv2d_64to64 *_cl cases make x and w channels-last (module.to(memory_format=torch.channels_last)).
Statements are timed in a compiled loop (ctbench.run)."""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ctbench  # noqa: E402


def fwd_bwd(x, w, b, g, padding=1, stride=1, groups=1):
    y = F.conv2d(x, w, b, padding=padding, stride=stride, groups=groups)
    (y * g).sum().backward()
    w.grad = None
    b.grad = None
    x.grad = None


def pool_bwd(x, g):
    y = F.max_pool2d(x, 2)
    (y * g).sum().backward()
    x.grad = None


def main():
    ctbench.begin("conv")
    ctbench.set_threads(1)
    torch.manual_seed(0)
    layers = [("conv2d_fmnist1", "x[64,1,28,28] w[32,1,3,3] pad 1", 64, 1, 28, 32),
              ("conv2d_fmnist2", "x[64,32,14,14] w[64,32,3,3] pad 1", 64, 32, 14, 64)]
    for li, (name, params, n, c, h, o) in enumerate(layers):
        flops = 2.0 * n * o * h * h * c * 9
        x, w, b = torch.randn(n, c, h, h), torch.randn(o, c, 3, 3), torch.randn(o)
        g = torch.randn(n, o, h, h)
        env = {"torch": torch, "F": F, "x": x, "w": w, "b": b}
        ctbench.run(name + "_b64_fwd", params, "with torch.no_grad(): y = F.conv2d(x, w, b, padding=1)", env, flops=flops)
        env = {"fwd_bwd": fwd_bwd, "x": x.clone().requires_grad_(li == 1), "w": w.clone().requires_grad_(),
               "b": b.clone().requires_grad_(), "g": g}
        ctbench.run(name + "_b64_fwd_bwd", params, "fwd_bwd(x, w, b, g)", env, flops=(3 if li == 1 else 2) * flops)
    x, g = torch.randn(64, 32, 28, 28), torch.randn(64, 32, 14, 14)
    env = {"torch": torch, "F": F, "x": x}
    ctbench.run("max_pool2d_2x2_b64_fwd", "x[64,32,28,28] k2", "with torch.no_grad(): y = F.max_pool2d(x, 2)", env)
    env = {"pool_bwd": pool_bwd, "x": x.clone().requires_grad_(), "g": g}
    ctbench.run("max_pool2d_2x2_b64_fwd_bwd", "x[64,32,28,28] k2", "pool_bwd(x, g)", env)
    env = {"torch": torch, "F": F, "x": torch.randn(1, 64, 224, 224).to(memory_format=torch.channels_last),
           "w": torch.randn(64, 64, 3, 3)}
    ctbench.run("conv2d_3x3_224_cl_fwd", "x[1,64,224,224] channels_last w[64,64,3,3] pad 1",
                "with torch.no_grad(): y = F.conv2d(x, w, padding=1)", env, flops=2.0 * 64 * 224 * 224 * 64 * 9)
    for cl in (False, True):
        flops = 2.0 * 8 * 64 * 56 * 56 * 64 * 9
        x, w, b = torch.randn(8, 64, 56, 56), torch.randn(64, 64, 3, 3), torch.randn(64)
        g = torch.randn(8, 64, 56, 56)
        if cl:  # as x.to(channels_last) and module.to(memory_format=torch.channels_last)
            x, w, g = (t.to(memory_format=torch.channels_last) for t in (x, w, g))
        tag = "cl" if cl else "nchw"
        params = "x[8,64,56,56] channels_last w[64,64,3,3] pad 1" if cl else "x[8,64,56,56] w[64,64,3,3] pad 1"
        env = {"torch": torch, "F": F, "x": x, "w": w, "b": b}
        ctbench.run("conv2d_64to64_8x56x56_%s_fwd" % tag, params,
                    "with torch.no_grad(): y = F.conv2d(x, w, b, padding=1)", env, flops=flops)
        env = {"fwd_bwd": fwd_bwd, "x": x.clone().requires_grad_(), "w": w.clone().requires_grad_(),
               "b": b.clone().requires_grad_(), "g": g}
        ctbench.run("conv2d_64to64_8x56x56_%s_fwd_bwd" % tag, params, "fwd_bwd(x, w, b, g)", env, flops=3 * flops)
    # depthwise, 1x1 and late ResNet 3x3 layers (x, w and g channels-last in the _cl cases)
    layers = [("dw3x3_1x16x112x112_s2", 1, 16, 112, 16, 3, 2, 16), ("dw3x3_1x72x56x56", 1, 72, 56, 72, 3, 1, 72),
              ("dw5x5_1x96x14x14", 1, 96, 14, 96, 5, 1, 96), ("conv1x1_8x64x56x56_to256", 8, 64, 56, 256, 1, 1, 1),
              ("conv1x1_1x16x56x56_to72", 1, 16, 56, 72, 1, 1, 1), ("conv3x3_2x256x4x4", 2, 256, 4, 256, 3, 1, 1),
              ("conv3x3_2x512x2x2", 2, 512, 2, 512, 3, 1, 1)]
    for name, n, c, h, o, k, s, grp in layers:
        oh = (h + 2 * (k // 2) - k) // s + 1
        flops = 2.0 * n * o * oh * oh * (c // grp) * k * k
        x, w, b, g = torch.randn(n, c, h, h), torch.randn(o, c // grp, k, k), torch.randn(o), torch.randn(n, o, oh, oh)
        for cl in (False, True):
            xx, ww, gg = (t.to(memory_format=torch.channels_last) for t in (x, w, g)) if cl else (x, w, g)
            tag = "cl" if cl else "nchw"
            params = "x[%d,%d,%d,%d]%s k%d s%d g%d" % (n, c, h, h, " cl" if cl else "", k, s, grp)
            env = {"torch": torch, "F": F, "x": xx, "w": ww, "b": b}
            ctbench.run("%s_%s_fwd" % (name, tag), params,
                        "with torch.no_grad(): y = F.conv2d(x, w, b, padding=%d, stride=%d, groups=%d)" % (k // 2, s, grp), env, flops=flops)
            env = {"fwd_bwd": fwd_bwd, "x": xx.clone().requires_grad_(), "w": ww.clone().requires_grad_(),
                   "b": b.clone().requires_grad_(), "g": gg}
            ctbench.run("%s_%s_fwd_bwd" % (name, tag), params, "fwd_bwd(x, w, b, g, %d, %d, %d)" % (k // 2, s, grp), env,
                        flops=3 * flops)

    for cl in (False, True):
        x = torch.randn(1, 64, 112, 112)
        if cl:
            x = x.to(memory_format=torch.channels_last)
        tag = "cl" if cl else "nchw"
        ctbench.run("max_pool2d_3x3s2_1x64x112x112_%s_fwd" % tag, "x[1,64,112,112]%s k3 s2 p1" % (" cl" if cl else ""),
                    "with torch.no_grad(): y = F.max_pool2d(x, 3, 2, 1)", {"torch": torch, "F": F, "x": x})


if __name__ == "__main__":
    main()
