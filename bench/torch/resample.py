"""PyTorch twin of bench/resample.c: same cases, same line format, 1 thread.
Statements are timed in a compiled loop (ctbench.run)."""
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ctbench  # noqa: E402


def interp_bwd(x, g, mode):
    y = F.interpolate(x, scale_factor=2, mode=mode)
    (y * g).sum().backward()
    x.grad = None


def grid_bwd(x, gr, g):
    y = F.grid_sample(x, gr, align_corners=False)
    (y * g).sum().backward()
    x.grad = None
    gr.grad = None


def pair(name, params, x, g, mode, nbytes):
    env = {"torch": torch, "F": F, "x": x, "mode": mode}
    ctbench.run(name + "_fwd", params, "with torch.no_grad(): y = F.interpolate(x, scale_factor=2, mode=mode)", env,
                bytes=nbytes)
    env = {"interp_bwd": interp_bwd, "x": x.clone().requires_grad_(), "g": g, "mode": mode}
    ctbench.run(name + "_fwd_bwd", params, "interp_bwd(x, g, mode)", env, bytes=3 * nbytes)


def main():
    ctbench.begin("resample")
    ctbench.set_threads(1)
    torch.manual_seed(0)
    for cl in (False, True):
        x, g = torch.randn(8, 64, 56, 56), torch.randn(8, 64, 112, 112)
        if cl:
            x, g = x.to(memory_format=torch.channels_last), g.to(memory_format=torch.channels_last)
        nbytes = 4.0 * 8 * 64 * (56 * 56 + 112 * 112)
        params = "x[8,64,56,56]%s scale 2" % (" channels_last" if cl else "")
        tag = "cl" if cl else "nchw"
        pair("bilinear2x_" + tag, params, x, g, "bilinear", nbytes)
        pair("nearest2x_" + tag, params, x, g, "nearest", nbytes)
    x, g = torch.randn(8, 16, 56, 56), torch.randn(8, 16, 112, 112)
    pair("bicubic2x_nchw", "x[8,16,56,56] scale 2", x, g, "bicubic", 4.0 * 8 * 16 * (56 * 56 + 112 * 112))
    x, g = torch.randn(8, 64, 56, 56), torch.randn(8, 64, 56, 56)
    th = []
    for n in range(8):
        a = 0.1 + 0.2 * n
        th.append([[math.cos(a), -math.sin(a), 0.05], [math.sin(a), math.cos(a), -0.05]])
    gr = F.affine_grid(torch.tensor(th), [8, 64, 56, 56], align_corners=False)
    nbytes = 4.0 * 8 * 64 * 56 * 56 * 2
    params = "x[8,64,56,56] grid[8,56,56,2] rotation"
    env = {"torch": torch, "F": F, "x": x, "gr": gr}
    ctbench.run("grid_sample_bilinear_fwd", params, "with torch.no_grad(): y = F.grid_sample(x, gr, align_corners=False)", env,
                bytes=nbytes)
    env = {"grid_bwd": grid_bwd, "x": x.clone().requires_grad_(), "gr": gr.clone().requires_grad_(), "g": g}
    ctbench.run("grid_sample_bilinear_fwd_bwd", params, "grid_bwd(x, gr, g)", env, bytes=3 * nbytes)


if __name__ == "__main__":
    main()
