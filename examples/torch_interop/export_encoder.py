#!/usr/bin/python3
"""A BERT-base-sized encoder in PyTorch, for examples/bert_encoder.c.

    /usr/bin/python3 examples/torch_interop/export_encoder.py build/bert [--threads 1]

nn.TransformerEncoder of 12 nn.TransformerEncoderLayer(768, 12, 3072, gelu,
batch_first) with a final LayerNorm, randomly initialized with seed 0 (no
pretrained weights can be downloaded here); biases and LayerNorm parameters get
a little noise too, so that none of them is trivially 0 or 1. Writes, into the
output directory:
  encoder.safetensors  the state_dict (~340 MB of float32)
  io.safetensors       a padded batch "src" [4, 64, 768] with lengths 64, 40, 17, 5,
                       its key padding mask "mask" [4, 64] (true at padding), "lengths",
                       and PyTorch's outputs of its three paths:
                         "regular"   grad enabled (the composed path),
                         "fastpath"  inference mode, layer by layer on the padded batch,
                         "nested"    inference mode, the encoder packing the real tokens;
                       __metadata__ holds PyTorch's real tokens/s for each path.
Takes about a minute (most of it writing and timing)."""
import os
import sys
import time
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export import save_file, save_model  # noqa: E402

LAYERS, D_MODEL, NHEAD, D_FF = 12, 768, 12, 3072
LENGTHS = [64, 40, 17, 5]


def best_seconds(fn, reps=3):
    fn()
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main(argv):
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    out_dir, threads = argv[0], 1
    if len(argv) == 3 and argv[1] == "--threads":
        threads = int(argv[2])
    torch.set_num_threads(threads)
    warnings.filterwarnings("ignore", message="The PyTorch API of nested tensors")
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(D_MODEL, NHEAD, D_FF, activation="gelu", batch_first=True)
    encoder = torch.nn.TransformerEncoder(layer, LAYERS, norm=torch.nn.LayerNorm(D_MODEL))
    with torch.no_grad():
        for p in encoder.parameters():
            if p.dim() == 1:
                p.add_(0.1 * torch.randn_like(p))
    encoder.eval()

    batch, seq = len(LENGTHS), max(LENGTHS)
    src = torch.randn(batch, seq, D_MODEL)
    mask = torch.arange(seq)[None, :] >= torch.tensor(LENGTHS)[:, None]

    def regular():                      # eval, but the parameters require grad: no fastpath
        return encoder(src, src_key_padding_mask=mask).detach()

    def fastpath():                     # the fused layer on the padded batch
        with torch.inference_mode():
            x = src
            for mod in encoder.layers:
                x = mod(x, src_key_padding_mask=mask)
            return encoder.norm(x)

    def nested():                       # the encoder packs the real tokens (nested tensor)
        with torch.inference_mode():
            return encoder(src, src_key_padding_mask=mask)

    outputs, meta = {}, {"torch": torch.__version__, "threads": str(threads)}
    for name, fn in (("regular", regular), ("fastpath", fastpath), ("nested", nested)):
        outputs[name] = fn().clone()
        meta[f"{name}_tokens_per_s"] = "%.1f" % (sum(LENGTHS) / best_seconds(fn))
        print(f"PyTorch {name:8s} {meta[name + '_tokens_per_s']:>8s} real tokens/s ({threads} thread(s))")
    assert outputs["nested"].shape == src.shape, "this PyTorch trims the nested output: keep one full-length sequence"

    os.makedirs(out_dir, exist_ok=True)
    save_model(encoder, os.path.join(out_dir, "encoder.safetensors"))
    save_file({"src": src, "mask": mask, "lengths": torch.tensor(LENGTHS), **outputs},
              os.path.join(out_dir, "io.safetensors"), meta)
    print(f"wrote {out_dir}/encoder.safetensors and {out_dir}/io.safetensors")


if __name__ == "__main__":
    main(sys.argv[1:])
