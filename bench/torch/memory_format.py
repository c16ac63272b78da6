"""PyTorch twin of bench/memory_format.c: same cases, same output lines (1 thread)."""
import torch
import torch.nn.functional as F

import ctbench


def setup(fmt):
    torch.manual_seed(0)
    e = {"F": F, "torch": torch}
    e["x"] = torch.randn(1, 64, 56, 56).contiguous(memory_format=fmt).requires_grad_()
    e["g"] = torch.randn(1, 64, 56, 56).contiguous(memory_format=fmt)
    for i in range(3):
        e["w%d" % i] = (torch.randn(64, 64, 3, 3) * 0.05).contiguous(memory_format=fmt).requires_grad_()
        e["bw%d" % i] = torch.ones(64, requires_grad=True)
        e["bb%d" % i] = torch.zeros(64, requires_grad=True)
        e["rm%d" % i] = torch.zeros(64)
        e["rv%d" % i] = torch.ones(64)
    return e


def stack(training):
    y = "x"
    for i in range(3):
        y = "F.relu(F.batch_norm(F.conv2d(%s, w%d, None, 1, 1), rm%d, rv%d, bw%d, bb%d, %s, 0.1, 1e-5))" % (
            y, i, i, i, i, i, training)
    return y


def main():
    ctbench.begin("memory_format")
    torch.set_num_threads(1)
    nchw, cl = setup(torch.contiguous_format), setup(torch.channels_last)
    params = "(x, w0, bw0, bb0, w1, bw1, bb1, w2, bw2, bb2)"
    with torch.no_grad():
        ctbench.run("cbr3_eval_fwd_1x64x56x56", "f32 NCHW, no grad", stack(False), nchw)
        ctbench.run("cbr3_eval_fwd_1x64x56x56_cl", "f32 channels-last, no grad", stack(False), cl)
    train = "torch.autograd.grad(%s, %s, g)" % (stack(True), params)
    ctbench.run("cbr3_train_fwd_bwd_1x64x56x56", "f32 NCHW", train, nchw)
    ctbench.run("cbr3_train_fwd_bwd_1x64x56x56_cl", "f32 channels-last", train, cl)


if __name__ == "__main__":
    main()
