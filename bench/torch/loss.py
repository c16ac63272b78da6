"""PyTorch twin of bench/loss.c: same cases, same line format (1 thread)."""
import torch
import torch.nn.functional as F

import ctbench


def main():
    ctbench.begin("loss")
    ctbench.set_threads(1)
    torch.manual_seed(0)

    def step(x, loss):
        x.grad = None
        loss().backward()

    for n, c in ((64, 10), (256, 1000), (1024, 32000)):
        x = torch.randn(n, c).requires_grad_()
        t = torch.randint(0, c, (n,))
        ctbench.run("cross_entropy_%dx%d_fwd_bwd" % (n, c), "[%d,%d] f32, mean" % (n, c),
                    "step(x, lambda: F.cross_entropy(x, t))", {"step": step, "x": x, "t": t, "F": F})
    x = torch.randn(1 << 20).requires_grad_()
    y = torch.randn(1 << 20)
    ctbench.run("mse_1M_fwd_bwd", "2^20 f32, mean", "step(x, lambda: F.mse_loss(x, y))", {"step": step, "x": x, "y": y, "F": F})
    y = torch.rand(1 << 20)
    ctbench.run("bce_logits_1M_fwd_bwd", "2^20 f32, mean", "step(x, lambda: F.binary_cross_entropy_with_logits(x, y))",
                {"step": step, "x": x, "y": y, "F": F})


if __name__ == "__main__":
    main()
