"""cuda_ops.py - the PyTorch twin of bench/cuda/cuda_ops.c: the same cases on the
same GPU with PyTorch's CUDA backend (cuBLAS, its caching allocator). Every batch
ends with torch.cuda.synchronize() inside the timing, as the C side's does.
Without CUDA it prints a comment line and exits 0."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ctbench  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def main():
    ctbench.begin("cuda_ops")
    if not torch.cuda.is_available():
        print("# cuda_ops: no CUDA device: skipped")
        return
    print("# device: %s" % torch.cuda.get_device_name(0))
    dev = torch.device("cuda", 0)
    sync = torch.cuda.synchronize
    torch.manual_seed(0)

    def on_gpu(dt, rows, cols):
        return torch.randn(rows, cols).to(dt).to(dev)

    n = 4096
    for name, dt, tf32 in (("gemm_4096_f32", torch.float32, False), ("gemm_4096_tf32", torch.float32, True),
                           ("gemm_4096_bf16", torch.bfloat16, False), ("gemm_4096_f16", torch.float16, False)):
        if not ctbench.selected(name):
            continue
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a, b = on_gpu(dt, n, n), on_gpu(dt, n, n)
        ctbench.run(name, "4096x4096 @ 4096x4096" + (", allow_tf32" if tf32 else ""), "c = torch.mm(a, b)",
                    {"torch": torch, "a": a, "b": b}, flops=2.0 * n * n * n, sync=sync)
        del a, b
    torch.backends.cuda.matmul.allow_tf32 = False

    rows, cols = 100000, 1000
    a, b = on_gpu(torch.float32, rows, cols), on_gpu(torch.float32, rows, cols)
    e = float(rows * cols)
    env = {"torch": torch, "F": F, "a": a, "b": b}
    ctbench.run("copy_100M_f32", "clone of [100000, 1000]", "c = a.clone()", env, bytes=8 * e, sync=sync)
    ctbench.run("add_100M_f32", "a + b, [100000, 1000]", "c = a + b", env, bytes=12 * e, sync=sync)
    ctbench.run("mul_100M_f32", "a * b, [100000, 1000]", "c = a * b", env, bytes=12 * e, sync=sync)
    ctbench.run("gelu_100M_f32", "gelu (erf), [100000, 1000]", "c = F.gelu(a)", env, bytes=8 * e, sync=sync)
    ctbench.run("softmax_100M_f32", "softmax(dim=-1), [100000, 1000]", "c = torch.softmax(a, -1)", env, bytes=8 * e, sync=sync)
    del a, b, env

    a, b = on_gpu(torch.float32, 4, 4), on_gpu(torch.float32, 4, 4)
    ctbench.run("small_add_4x4_f32", "a + b, 4x4", "c = a + b", {"a": a, "b": b}, sync=sync)
    a, b = on_gpu(torch.float32, 1, 1000), on_gpu(torch.float32, 1, 1000)
    chain = ("x = a * 0.5; x = x + b; x = torch.relu(x); x = torch.exp(-x); x = x - b; x = x * x; x = x + 1.0; "
             "x = torch.sqrt(x); c = torch.tanh(x)")
    ctbench.run("small_chain10_1k_f32", "10 elementwise ops on 1000 elements (per op)", chain,
                {"torch": torch, "a": a, "b": b}, ops_per_call=10, sync=sync)
    sizes = [1024, 4096, 16384, 65536, 262144, 2048, 8192, 32768]
    loop = "for i in range(64):\n    t = torch.empty(sizes[i % 8], device=dev)"
    ctbench.run("alloc_loop_64", "64 tensors, 4 KiB - 1 MiB (per tensor)", loop,
                {"torch": torch, "sizes": sizes, "dev": dev}, ops_per_call=64, sync=sync)

    # linear algebra (issue 16): PyTorch's cuSOLVER / MAGMA paths
    def mats_gpu(batch, n, spd):
        x = torch.randn(batch, n, n, device=dev)
        eye = torch.eye(n, device=dev) * n
        r = x @ x.mT + eye if spd else x + eye
        return r[0] if batch == 1 else r

    la = {"torch": torch}
    if ctbench.selected("cholesky_4096_f32") or ctbench.selected("solve_4096_f32"):
        la.update(a=mats_gpu(1, 4096, True), b=torch.randn(4096, 128, device=dev))
        ctbench.run("cholesky_4096_f32", "linalg.cholesky, 4096 x 4096", "c = torch.linalg.cholesky(a)", la,
                    flops=4096.0 ** 3 / 3.0, sync=sync)
        ctbench.run("solve_4096_f32", "linalg.solve, A 4096 x 4096, B 4096 x 128", "c = torch.linalg.solve(a, b)", la,
                    flops=2.0 * 4096.0 ** 3 / 3.0 + 2.0 * 4096.0 * 4096.0 * 128.0, sync=sync)
    la.update(a=mats_gpu(10000, 32, True), b=torch.randn(10000, 32, 1, device=dev))
    ctbench.run("cholesky_b10000_32_f32", "linalg.cholesky, 10000 x 32 x 32", "c = torch.linalg.cholesky(a)", la, sync=sync)
    ctbench.run("solve_b10000_32_f32", "linalg.solve, 10000 x 32 x 32, B 10000 x 32 x 1", "c = torch.linalg.solve(a, b)", la,
                sync=sync)
    la.update(a=mats_gpu(1, 1024, True))
    ctbench.run("eigh_1024_f32", "linalg.eigh, 1024 x 1024", "c = torch.linalg.eigh(a)", la, sync=sync)
    la.update(a=mats_gpu(1000, 32, False))
    ctbench.run("svd_b1000_32_f32", "linalg.svd(full_matrices=False), 1000 x 32 x 32",
                "c = torch.linalg.svd(a, full_matrices=False)", la, sync=sync)
    la.update(a=mats_gpu(10000, 32, False), b=torch.randn(10000, 32, 1, device=dev))
    ctbench.run("qr_b10000_32_f32", "linalg.qr, 10000 x 32 x 32", "c = torch.linalg.qr(a)", la, sync=sync)
    ctbench.run("solve_triangular_b10000_32_f32", "linalg.solve_triangular(upper), 10000 x 32 x 32, B 10000 x 32 x 1",
                "c = torch.linalg.solve_triangular(a, b, upper=True)", la, sync=sync)
    del la

    # a BERT-base encoder layer, inference: PyTorch's fastpath (eval, no grad)
    if ctbench.selected("encoder_layer_b64_s512_f32") or ctbench.selected("encoder_layer_pad_b64_s512_f32"):
        B, S, E, Fd = 64, 512, 768, 3072
        layer = nn.TransformerEncoderLayer(E, 12, Fd, dropout=0.1, batch_first=True).to(dev).eval()
        x = torch.randn(B, S, E, device=dev)
        lens = S - 4 * torch.arange(B, device=dev)
        kpm = torch.arange(S, device=dev)[None, :] >= lens[:, None]
        env = {"torch": torch, "layer": layer, "x": x, "kpm": kpm}
        flops = 2.0 * B * S * (4.0 * E * E + 2.0 * E * Fd) + 4.0 * B * S * S * E
        ctbench.run("encoder_layer_b64_s512_f32", "fused encoder layer, BERT-base, [64, 512, 768]",
                    "with torch.no_grad():\n    c = layer(x)", env, flops=flops, sync=sync)
        ctbench.run("encoder_layer_pad_b64_s512_f32", "fused encoder layer, BERT-base, [64, 512, 768], key padding (lengths 512 - 4b)",
                    "with torch.no_grad():\n    c = layer(x, src_key_padding_mask=kpm)", env, flops=flops, sync=sync)
        del layer, x, kpm, env

    # the same layer: regular path (training mode with dropout 0 takes no fastpath: the
    # same math), and nested rows (TransformerEncoder with enable_nested_tensor packs the
    # padded batch, runs the layer on the real tokens and pads the result again)
    if ctbench.selected("encoder_layer_regular_b64_s512_f32") or ctbench.selected("encoder_layer_nested_b64_s512_f32"):
        B, S, E, Fd = 64, 512, 768, 3072
        layer = nn.TransformerEncoderLayer(E, 12, Fd, dropout=0.0, batch_first=True).to(dev)
        x = torch.randn(B, S, E, device=dev)
        lens = S - 4 * torch.arange(B, device=dev)
        kpm = torch.arange(S, device=dev)[None, :] >= lens[:, None]
        flops = 2.0 * B * S * (4.0 * E * E + 2.0 * E * Fd) + 4.0 * B * S * S * E
        layer.train()
        ctbench.run("encoder_layer_regular_b64_s512_f32", "encoder layer module, fastpath off, BERT-base, [64, 512, 768]",
                    "with torch.no_grad():\n    c = layer(x)", {"torch": torch, "layer": layer, "x": x}, flops=flops, sync=sync)
        layer.eval()
        enc = nn.TransformerEncoder(layer, 1, enable_nested_tensor=True).to(dev).eval()
        ctbench.run("encoder_layer_nested_b64_s512_f32",
                    "fused encoder layer, BERT-base, [64, 512, 768] as nested rows (lengths 512 - 4b): pack, layer, unpad",
                    "with torch.no_grad():\n    c = enc(x, src_key_padding_mask=kpm)", {"torch": torch, "enc": enc, "x": x, "kpm": kpm},
                    flops=flops, sync=sync)
        del layer, enc, x, kpm

    # the int8 Linear 4096 x 4096, batch 1 and 256. PyTorch has no quantized Linear on
    # CUDA: the same steps from its CUDA ops, torch._int_mm for the int8 GEMM (it needs
    # more than 16 rows: batch 1 is padded to 32 rows, said in the params)
    qnames = ["q_linear_dynamic_4096_b1", "q_linear_dynamic_4096_b256", "q_linear_4096_b1", "q_linear_4096_b256"]
    if any(ctbench.selected(q) for q in qnames):
        if not hasattr(torch, "_int_mm"):
            print("# q_linear: torch._int_mm is missing (PyTorch < 2.1): skipped")
        else:
            K = N = 4096
            w8 = torch.randint(-127, 128, (N, K), dtype=torch.int8, device=dev)
            wt = w8.t()
            colsum = w8.sum(1, dtype=torch.int32)
            wscale, bias = 0.0005, torch.randn(N, device=dev)
            dyn = ("mn, mx = torch.aminmax(x)\n"
                   "mn = torch.clamp(mn, max=0.0); mx = torch.clamp(mx, min=0.0)\n"
                   "sc = torch.clamp((mx - mn) / 255.0, min=1e-8); zp = torch.clamp(torch.round(-mn / sc), 0, 255)\n"
                   "a = (torch.clamp(torch.round(x / sc) + zp, 0, 255) - 128).to(torch.int8)\n"
                   "acc = torch._int_mm(a, wt)\n"
                   "c = ((acc + (128 - zp) * colsum).float() * (sc * wscale) + bias)[:m]")
            stat = ("a = (xq.to(torch.int16) - 128).to(torch.int8)\n"
                    "acc = torch._int_mm(a, wt)\n"
                    "v = (acc + (128 - 128) * colsum).float() * (0.03 * wscale) + bias\n"
                    "c = torch.clamp(torch.round(v / 0.5) + 128, 0, 255).to(torch.uint8)[:m]")
            for m in (1, 256):
                rows = 32 if m <= 16 else m
                pad = ", padded to 32 rows for torch._int_mm" if rows != m else ""
                x = torch.randn(rows, K, device=dev)
                xq = torch.randint(0, 256, (rows, K), dtype=torch.uint8, device=dev)
                env = {"torch": torch, "x": x, "xq": xq, "wt": wt, "colsum": colsum, "wscale": wscale, "bias": bias, "m": m}
                ctbench.run("q_linear_dynamic_4096_b%d" % m,
                            "float32 in and out, [%d, 4096] x 4096 x 4096 int8, per-tensor weight, bias%s" % (m, pad), dyn, env,
                            flops=2.0 * m * N * K, sync=sync)
                ctbench.run("q_linear_4096_b%d" % m,
                            "quint8 in and out, [%d, 4096] x 4096 x 4096 int8, per-tensor weight, bias%s" % (m, pad), stat, env,
                            flops=2.0 * m * N * K, sync=sync)
            del w8, wt, colsum, bias

    if ctbench.selected("cnn_train_step_b64"):
        model = nn.Sequential(nn.Conv2d(1, 32, 3, 1, 1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2, 2),
                              nn.Conv2d(32, 64, 3, 1, 1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2, 2),
                              nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(), nn.Linear(128, 10)).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        x = torch.randn(64, 1, 28, 28).to(dev)
        y = torch.randint(0, 10, (64,)).to(dev)
        ctbench.run("cnn_train_step_b64", "Fashion-MNIST CNN, batch 64, SGD momentum", "ctbench.train_step(model, opt, x, y)",
                    {"ctbench": ctbench, "model": model, "opt": opt, "x": x, "y": y}, sync=sync)


if __name__ == "__main__":
    main()
