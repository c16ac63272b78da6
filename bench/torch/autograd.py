"""PyTorch twin of bench/autograd.c: same cases, same line format."""
import time

import torch

SECONDS = 0.5


def run(name, params, fn):
    fn()
    t0 = time.perf_counter()
    fn()
    one = time.perf_counter() - t0
    batch = max(1, int(200e-6 / max(one, 1e-8)) + 1)
    samples = []
    start = time.perf_counter()
    while len(samples) < 2000 and (len(samples) < 5 or time.perf_counter() - start < SECONDS):
        a = time.perf_counter()
        for _ in range(batch):
            fn()
        samples.append((time.perf_counter() - a) / batch * 1e6)
    samples.sort()
    print("%s\t%s\t%.3f\t%.3f\t%d" % (name, params, samples[len(samples) // 2], samples[0], len(samples) * batch), flush=True)


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    x4 = torch.randn(4, 4)

    def chain():
        x = x4.detach().requires_grad_()
        y = x
        for _ in range(25):
            y = torch.tanh(torch.exp(y * 0.5) + y) * 0.9
        y.sum().backward()

    run("chain_125ops_4x4_f32_fwd_bwd", "25x(mul,exp,add,tanh,mul)+sum", chain)
    w1 = (torch.randn(512, 784) * 0.03).requires_grad_()
    b1 = torch.zeros(512, requires_grad=True)
    w2 = (torch.randn(256, 512) * 0.04).requires_grad_()
    b2 = torch.zeros(256, requires_grad=True)
    w3 = (torch.randn(10, 256) * 0.06).requires_grad_()
    b3 = torch.zeros(10, requires_grad=True)
    xb = torch.randn(64, 784)
    params = [w1, b1, w2, b2, w3, b3]

    def mlp():
        h1 = torch.relu(xb @ w1.t() + b1)
        h2 = torch.relu(h1 @ w2.t() + b2)
        out = h2 @ w3.t() + b3
        (out * out).mean().backward()
        with torch.no_grad():
            for p in params:
                p.grad.zero_()

    def mlp_none():
        h1 = torch.relu(xb @ w1.t() + b1)
        h2 = torch.relu(h1 @ w2.t() + b2)
        out = h2 @ w3.t() + b3
        (out * out).mean().backward()
        for p in params:
            p.grad = None

    mlp()
    run("mlp_784_512_256_10_b64_fwd_bwd", "batch 64, f32, grad.zero_()", mlp)
    run("mlp_784_512_256_10_b64_fwd_bwd_grad_none", "batch 64, f32, grad = None", mlp_none)
    g1, g2, g3 = torch.randn(64, 512), torch.randn(64, 256), torch.randn(64, 10)
    h1, h2 = torch.randn(64, 512), torch.randn(64, 256)
    W1, W2, W3 = w1.detach(), w2.detach(), w3.detach()

    def gemms():
        with torch.no_grad():
            xb @ W1.t(); h1 @ W2.t(); h2 @ W3.t()
            g3.t() @ h2; g3 @ W3
            g2.t() @ h1; g2 @ W2
            g1.t() @ xb

    run("mlp_784_512_256_10_b64_gemms", "the 8 GEMMs only", gemms)


if __name__ == "__main__":
    main()
