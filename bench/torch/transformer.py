"""PyTorch twin of bench/transformer.c: same cases, same output lines (issue 11).
The thread count of a case is applied to OpenBLAS too (as bench/torch/gemm.py does).

A BERT-base encoder layer: nn.TransformerEncoderLayer(768, 12, dim_feedforward=3072,
batch_first=True), eval mode, dropout off by eval; input [8, 128, 768] float32 with a
key padding mask (bool [8, 128], true at padding, left-aligned sequences).

Padding levels 0 %, 50 % and 75 %. The lengths (the rule bench/transformer.c uses too):
mean m = 128 * (1 - padding), spread w = min(m / 2, 128 - m), and sequence i of 8 has
    len_i = m - w + floor(2 * w * i / 7 + 0.5)
so 0 %: all 128; 50 %: 32 41 50 59 69 78 87 96 (mean 64); 75 %: 16 21 25 30 34 39 43 48
(mean 32). Every case passes the mask, even at 0 % padding (all false).

Cases, for relu and gelu, 1 and 2 threads, times per layer forward:
  layer_<act>_pad<P>_t<T>_regular   the composed (non-fused) path: the non-fast branch
        of TransformerEncoderLayer.forward, with MultiheadAttention's non-fast branch
        (F.multi_head_attention_forward, need_weights=False), under no_grad. PyTorch 1.13
        has no switch to turn the fastpath off, and the layer under no_grad takes it, so
        this function spells out the code the layer runs when it misses the fastpath
        (what it does with grad enabled), without recording a graph; ctensor's regular
        case is the layer with ct_set_transformer_fastpath(0) under no grad. The setup
        checks that it gives the layer's own output.
  layer_<act>_pad<P>_t<T>_fastpath  layer(src, src_key_padding_mask=mask) under
        inference_mode: torch._transformer_encoder_layer_fwd on the padded batch
  layer_<act>_pad<P>_t<T>_nested    nn.TransformerEncoder(layer, 1, enable_nested_tensor=True)
        with the mask under inference_mode: packs the real tokens (a nested tensor),
        runs the fused layer on them, pads the result back with zeros
  gemm_bound_pad<P>_t<T>            the layer's four GEMMs alone on the real tokens only
        (T = sum of lengths): torch.addmm(b, x, W.t()) for [T,768]x[768,2304],
        [T,768]x[768,768], [T,768]x[768,3072], [T,3072]x[3072,768]: the issue's
        "GEMM-bound limit" (the same for relu and gelu)
"""
import os
import warnings

# PyTorch's best setting here, set before torch loads libgomp (the environment may override
# it): by default its OpenMP threads spin after each parallel region (the bias copy of
# addmm, ...) and hold the core that OpenBLAS's second thread needs; measured on the
# 2-core machine at 2 threads, padding 0 %: the fastpath 116 -> 82 ms, the four GEMMs 94 -> 63 ms.
# It changes nothing at 1 thread.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import ctbench  # noqa: E402
from gemm import openblas_threads  # noqa: E402

B, S, D, H, FF = 8, 128, 768, 12, 3072
PADDINGS = (0, 50, 75)


def lengths_for(padding):
    m = S * (100 - padding) / 100.0
    w = min(m / 2, S - m)
    return [int(m - w + int(2 * w * i / (B - 1) + 0.5)) for i in range(B)]


def regular(layer, x, mask):
    """TransformerEncoderLayer.forward's non-fast branch (post-norm, eval: dropouts are
    identities) with MultiheadAttention.forward's non-fast branch spelled out."""
    sa = layer.self_attn
    q = x.transpose(0, 1)
    a = F.multi_head_attention_forward(
        q, q, q, sa.embed_dim, sa.num_heads, sa.in_proj_weight, sa.in_proj_bias, sa.bias_k, sa.bias_v,
        sa.add_zero_attn, sa.dropout, sa.out_proj.weight, sa.out_proj.bias, training=False,
        key_padding_mask=mask, need_weights=False)[0].transpose(0, 1)
    x = layer.norm1(x + a)
    return layer.norm2(x + layer._ff_block(x))


def took(fn, opname):
    """Whether running fn() calls the ATen op opname (the profiler's event names)."""
    with torch.autograd.profiler.profile() as prof:
        fn()
    return any(e.name == opname for e in prof.function_events)


def main():
    # 1.13 warns that nested tensors are a prototype, on the nested path's first call
    warnings.filterwarnings("ignore", message="The PyTorch API of nested tensors")
    ctbench.begin("transformer")
    ctbench.set_threads(1)
    # PyTorch's addmm calls OpenBLAS, whose own thread pool torch.set_num_threads does
    # not size (by default it takes every core): each case gives it its thread count
    print("# OpenBLAS threads set with each case's thread count: %s; OMP_WAIT_POLICY=%s"
          % ("yes" if openblas_threads(1) else "no (not found)", os.environ.get("OMP_WAIT_POLICY")))
    torch.manual_seed(0)
    x = torch.randn(B, S, D)
    layers = {}
    for act in ("relu", "gelu"):
        layer = torch.nn.TransformerEncoderLayer(D, H, dim_feedforward=FF, activation=act, batch_first=True).eval()
        enc = torch.nn.TransformerEncoder(layer, 1, enable_nested_tensor=True).eval()
        layers[act] = (layer, enc)
    status = True
    for padding in PADDINGS:
        lens = lengths_for(padding)
        T = sum(lens)
        mask = torch.arange(S).unsqueeze(0) >= torch.tensor(lens).unsqueeze(1)
        valid = ~mask
        for act in ("relu", "gelu"):
            layer, enc = layers[act]
            with torch.no_grad():
                want = layer(x, src_key_padding_mask=mask)  # the fastpath
                got = regular(layer, x, mask)
                nested = enc(x, src_key_padding_mask=mask)
            slow = layer(x, src_key_padding_mask=mask).detach()  # grad enabled: the regular path
            e_reg = (got - slow)[valid].abs().max().item()
            e_fast = (want - slow)[valid].abs().max().item()
            e_nest = (nested - slow[:, :nested.shape[1]])[valid[:, :nested.shape[1]]].abs().max().item()
            pad0 = nested[mask[:, :nested.shape[1]]].abs().max().item() if padding else 0.0
            with torch.inference_mode():
                tf = took(lambda: layer(x, src_key_padding_mask=mask), "aten::_transformer_encoder_layer_fwd")
                tn = took(lambda: enc(x, src_key_padding_mask=mask), "aten::_nested_tensor_from_mask")
            tr = not took(lambda: regular(layer, x, mask), "aten::_transformer_encoder_layer_fwd") and \
                not took(lambda: regular(layer, x, mask), "aten::_native_multi_head_attention")
            ok = e_reg < 1e-5 and e_fast < 1e-4 and e_nest < 1e-4 and pad0 == 0 and tf and tn and tr
            status = status and ok
            print("# check: %s pad %d%% lengths %s (T=%d): regular - layer %.1e, fastpath - layer %.1e, nested - layer %.1e,"
                  " nested at padding %g; paths taken: regular composed %s, fastpath fused %s, nested packed %s: %s"
                  % (act, padding, " ".join(map(str, lens)), T, e_reg, e_fast, e_nest, pad0, tr, tf, tn,
                     "ok" if ok else "WRONG"))
    for t in (1, 2):
        ctbench.set_threads(t)
        openblas_threads(t)
        for padding in PADDINGS:
            lens = lengths_for(padding)
            T = sum(lens)
            mask = torch.arange(S).unsqueeze(0) >= torch.tensor(lens).unsqueeze(1)
            tag = "pad%d_t%d" % (padding, t)
            for act in ("relu", "gelu"):
                layer, enc = layers[act]
                env = {"regular": regular, "layer": layer, "enc": enc, "x": x, "mask": mask}
                name = "layer_%s_%s" % (act, tag)
                params = "%s, %d tokens of %d" % (act, T, B * S)
                with torch.no_grad():
                    ctbench.run(name + "_regular", params + ", composed", "regular(layer, x, mask)", env)
                with torch.inference_mode():
                    ctbench.run(name + "_fastpath", params + ", fused padded",
                                "layer(x, src_key_padding_mask=mask)", env)
                    ctbench.run(name + "_nested", params + ", fused nested",
                                "enc(x, src_key_padding_mask=mask)", env)
            with torch.inference_mode():
                ctbench.run("gemm_bound_" + tag, "4 addmm on %d tokens" % T,
                            "torch.addmm(b0, x, w0); torch.addmm(b1, x, w1); torch.addmm(b2, x, w2); torch.addmm(b3, h, w3)",
                            gemm_env(layers["relu"][0], T),
                            flops=2.0 * T * (D * 3 * D + D * D + 2 * D * FF))
    if not status:
        raise SystemExit("transformer: a check failed")


def gemm_env(layer, T):
    g = {"torch": torch, "x": torch.randn(T, D), "h": torch.randn(T, FF)}
    for k, (w, b) in enumerate(((layer.self_attn.in_proj_weight, layer.self_attn.in_proj_bias),
                                (layer.self_attn.out_proj.weight, layer.self_attn.out_proj.bias),
                                (layer.linear1.weight, layer.linear1.bias),
                                (layer.linear2.weight, layer.linear2.bias))):
        g["w%d" % k], g["b%d" % k] = w.detach().t(), b.detach()
    return g


if __name__ == "__main__":
    main()
