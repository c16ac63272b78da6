"""jit.py - PyTorch twin of bench/jit.c: eager execution and torch.jit.trace +
torch.jit.freeze, one thread, the same cases and names. PyTorch 1.13 fuses no
elementwise chain on the CPU (its fusers are off there by default), so the _jit
chain runs op by op as eager does."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import ctbench  # noqa: E402


def chain20(x):
    y = x * 0.5
    y = y + 0.25
    y = torch.tanh(y)
    y = y * x
    y = torch.sigmoid(y)
    y = y - x
    y = torch.relu(y)
    y = y + x
    y = torch.exp(-y)
    y = y * 3.0
    y = torch.abs(y)
    y = torch.sqrt(y + 1.0)
    y = x / y
    y = F.silu(y)
    y = y * y
    y = y - 0.1
    y = torch.maximum(y, x)
    y = F.gelu(y)
    return y


class Chain(torch.nn.Module):
    def forward(self, x):
        return chain20(x)


def frozen(m, x):
    return torch.jit.freeze(torch.jit.trace(m.eval(), x))


def main():
    ctbench.begin("jit")
    ctbench.set_threads(1)
    torch.manual_seed(0)
    with torch.no_grad():
        x = torch.randn(1 << 20)
        g = frozen(Chain(), x)
        env = {"f": chain20, "g": g, "x": x}
        ctbench.run("chain20_1m_f32_eager", "20 ops, 1M floats", "y = f(x)", env)
        ctbench.run("chain20_1m_f32_jit", "trace + freeze", "y = g(x)", env)
        m = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 10)).eval()
        x = torch.randn(64, 784)
        env = {"m": m, "g": frozen(m, x), "x": x}
        ctbench.run("mlp_784_512_256_10_b64_eager", "eval forward", "y = m(x)", env)
        ctbench.run("mlp_784_512_256_10_b64_jit", "trace + freeze", "y = g(x)", env)
        m = torch.nn.Sequential(torch.nn.Conv2d(64, 64, 3, padding=1, bias=False), torch.nn.BatchNorm2d(64),
                                torch.nn.ReLU()).eval()
        x = torch.randn(8, 64, 56, 56)
        env = {"m": m, "g": frozen(m, x), "x": x}
        ctbench.run("convbnrelu_8x64x56x56_eager", "eval forward", "y = m(x)", env)
        ctbench.run("convbnrelu_8x64x56x56_jit", "trace + freeze (conv-bn folded)", "y = g(x)", env)
        c = torch.nn.Conv2d(64, 64, 3, padding=1, bias=False).eval()
        env = {"c": c, "x": x}
        ctbench.run("conv_8x64x56x56", "the bare conv", "y = c(x)", env)


if __name__ == "__main__":
    main()
