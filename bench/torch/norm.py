"""PyTorch twin of bench/norm.c: same cases, same output lines (1 thread)."""
import torch
import torch.nn.functional as F

import ctbench


def main():
    ctbench.begin("norm")
    torch.set_num_threads(1)
    torch.manual_seed(0)
    env = {"F": F, "torch": torch}
    for n, c, h, w in ((64, 32, 28, 28), (64, 64, 14, 14)):
        env.update({
            "x": torch.randn(n, c, h, w, requires_grad=True), "w": torch.ones(c, requires_grad=True),
            "b": torch.zeros(c, requires_grad=True), "rm": torch.zeros(c), "rv": torch.ones(c),
            "g": torch.randn(n, c, h, w)})
        tag = "%dx%dx%dx%d" % (n, c, h, w)
        ctbench.run("batch_norm2d_train_fwd_bwd_" + tag, "f32 NCHW",
                    "torch.autograd.grad(F.batch_norm(x, rm, rv, w, b, True, 0.1, 1e-5), (x, w, b), g)", dict(env))
        env["tag"] = tag
    for n, c, h, w in ((64, 32, 28, 28), (64, 64, 14, 14)):
        e = {"F": F, "torch": torch, "x": torch.randn(n, c, h, w), "w": torch.ones(c), "b": torch.zeros(c),
             "rm": torch.zeros(c), "rv": torch.ones(c)}
        ctbench.run("batch_norm2d_train_fwd_%dx%dx%dx%d" % (n, c, h, w), "f32 NCHW",
                    "F.batch_norm(x, rm, rv, w, b, True, 0.1, 1e-5)", e)
    e = {"F": F, "torch": torch, "x": torch.randn(1, 64, 56, 56), "w": torch.randn(64), "b": torch.randn(64),
         "rm": torch.randn(64), "rv": torch.rand(64) + 0.5}
    with torch.no_grad():
        ctbench.run("batch_norm2d_eval_1x64x56x56", "f32 NCHW, no grad", "F.batch_norm(x, rm, rv, w, b, False, 0.1, 1e-5)", e)
        e["x"] = e["x"].contiguous(memory_format=torch.channels_last)
        ctbench.run("batch_norm2d_eval_1x64x56x56_cl", "f32 channels-last, no grad", "F.batch_norm(x, rm, rv, w, b, False, 0.1, 1e-5)", e)
    e = {"F": F, "torch": torch, "x": torch.randn(4096, 768, requires_grad=True),
         "w": torch.randn(768, requires_grad=True), "b": torch.randn(768, requires_grad=True),
         "g": torch.randn(4096, 768)}
    ctbench.run("layer_norm_fwd_bwd_4096x768", "f32, last dim",
                "torch.autograd.grad(F.layer_norm(x, (768,), w, b, 1e-5), (x, w, b), g)", e)
    e = {"F": F, "torch": torch, "x": torch.randn(4096, 768), "w": torch.randn(768), "b": torch.randn(768)}
    ctbench.run("layer_norm_fwd_4096x768", "f32, last dim", "F.layer_norm(x, (768,), w, b, 1e-5)", e)
    lstm = torch.nn.LSTM(256, 256)
    e = {"torch": torch, "m": lstm, "x": torch.randn(32, 16, 256)}
    with torch.no_grad():
        ctbench.run("lstm_fwd_seq32_b16_h256", "f32, 1 layer, no grad", "m(x)", e)


if __name__ == "__main__":
    main()
