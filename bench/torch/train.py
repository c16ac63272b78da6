"""PyTorch twin of bench/train.c: one full training step per case, same line format.
A step: forward, F.cross_entropy, zero_grad(set_to_none=True), backward, step,
timed as one statement in a compiled loop (ctbench.run); threads set per case."""
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ctbench  # noqa: E402


def make_mlp():
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 10))


def make_cnn():
    return nn.Sequential(nn.Conv2d(1, 32, 3, 1, 1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2, 2),
                         nn.Conv2d(32, 64, 3, 1, 1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2, 2),
                         nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(), nn.Linear(128, 10))


def main():
    ctbench.begin("train")
    torch.manual_seed(0)
    xm, xc = torch.randn(64, 784), torch.randn(64, 1, 28, 28)
    y = torch.randint(0, 10, (64,))
    cases = [("train_mlp_sgd_b64", "MLP 784-512-256-10, SGD lr 0.01 m 0.9", False, False),
             ("train_mlp_adam_b64", "MLP 784-512-256-10, Adam lr 1e-3", False, True),
             ("train_cnn_sgd_b64", "CNN conv32-bn-pool-conv64-bn-pool-3136-128-10, SGD lr 0.01 m 0.9", True, False)]
    for name, params, cnn, adam in cases:
        names = ["%s_t%d" % (name, t) for t in (1, 2)]
        if not any(ctbench.selected(n) for n in names):
            continue
        model = make_cnn() if cnn else make_mlp()
        model.train()
        opt = (torch.optim.Adam(model.parameters(), lr=1e-3) if adam
               else torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9))
        env = {"step": ctbench.train_step, "model": model, "opt": opt, "x": xc if cnn else xm, "y": y}
        for t, n in zip((1, 2), names):
            ctbench.set_threads(t)
            ctbench.run(n, params, "step(model, opt, x, y)", env)


if __name__ == "__main__":
    main()
