"""PyTorch twin of bench/quant.c: dynamic quantized Linear 1024 -> 1024 and the MLP
1024-4096-1024 (torch.ao.quantization.quantize_dynamic, qint8 weights per tensor) at
batch 1 and 32 on 1 and 2 threads, under each quantized engine this PyTorch has
(case suffix _qnnpack, _onednn), then the fastest engine again under the case's
plain name, the one ctensor's int8 case has, the float32 Linear / MLP under
torch.no_grad(), and torch.quantize_per_tensor on 1M float32s. Same case names and
line format as quant.c."""
import torch

import ctbench


def main():
    ctbench.begin("quant (torch.ao.quantization dynamic Linear)")
    torch.manual_seed(0)
    lin = torch.nn.Linear(1024, 1024)
    mlp = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024))
    engines = [e for e in ("qnnpack", "onednn", "fbgemm", "x86") if e in torch.backends.quantized.supported_engines]
    qmods = {}
    for e in engines:
        torch.backends.quantized.engine = e
        qmods[e] = (torch.ao.quantization.quantize_dynamic(lin, {torch.nn.Linear}, dtype=torch.qint8),
                    torch.ao.quantization.quantize_dynamic(mlp, {torch.nn.Linear}, dtype=torch.qint8))
    with torch.no_grad():
        for t in (1, 2):
            ctbench.set_threads(t)
            for b in (1, 32):
                x = torch.randn(b, 1024)
                params = "batch=%d threads=%d" % (b, t)
                f1, f2 = 2.0 * b * 1024 * 1024, 2.0 * 2 * b * 1024 * 4096
                for case, k, fl in (("linear_dyn_1024", 0, f1), ("mlp_dyn_1024_4096_1024", 1, f2)):
                    # each engine under its own name, then the fastest again under the name ctensor's case has
                    best = None
                    for e in engines:
                        torch.backends.quantized.engine = e
                        us = ctbench.run("%s_b%d_t%d_%s" % (case, b, t, e), params, "q(x)", {"q": qmods[e][k], "x": x},
                                         flops=fl)
                        if us > 0 and (best is None or us < best[0]):
                            best = (us, e)
                    if best:
                        torch.backends.quantized.engine = best[1]
                        ctbench.run("%s_b%d_t%d" % (case, b, t), params + " engine=" + best[1], "q(x)",
                                    {"q": qmods[best[1]][k], "x": x}, flops=fl)
                ctbench.run("linear_f32_1024_b%d_t%d" % (b, t), params, "lin(x)", {"lin": lin, "x": x}, flops=f1)
                ctbench.run("mlp_f32_1024_4096_1024_b%d_t%d" % (b, t), params, "mlp(x)", {"mlp": mlp, "x": x}, flops=f2)
            xq = torch.randn(1 << 20)
            ctbench.run("quantize_per_tensor_1M_t%d" % t, "1M float32 -> quint8, threads=%d" % t,
                        "torch.quantize_per_tensor(xq, 0.02, 120, torch.quint8)", {"torch": torch, "xq": xq},
                        bytes=5.0 * (1 << 20))


if __name__ == "__main__":
    main()
