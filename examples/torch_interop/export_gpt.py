#!/usr/bin/python3
"""A small GPT in PyTorch and its greedy generation, for examples/gpt_generate.c.

    /usr/bin/python3 examples/torch_interop/export_gpt.py build/gpt

Token embedding + learned position embedding, 2 nn.TransformerEncoderLayer
blocks (d_model 64, 4 heads, FFN 256, gelu, pre-norm, no dropout) with a causal
mask, a final LayerNorm and a linear LM head; vocabulary 100, context 32.
Randomly initialized with seed 0 (biases and LayerNorm parameters get a little
noise too). Writes, into the output directory:
  gpt.safetensors  the state_dict (tok.weight, pos.weight, blocks.layers.0..., ln_f, head)
  io.safetensors   "prompt" (8 tokens), PyTorch's greedy continuation "tokens" (20)
                   and the logits of each step "logits" [20, 100]; __metadata__ holds
                   PyTorch's generation speed (full causal forward each step)."""
import os
import sys
import time

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export import save_file, save_model  # noqa: E402

VOCAB, D_MODEL, NHEAD, LAYERS, CONTEXT = 100, 64, 4, 2, 32
PROMPT = [11, 42, 7, 99, 3, 58, 23, 71]
NEW_TOKENS = 20


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D_MODEL)
        self.pos = nn.Embedding(CONTEXT, D_MODEL)
        block = nn.TransformerEncoderLayer(D_MODEL, NHEAD, 4 * D_MODEL, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(block, LAYERS, enable_nested_tensor=False)
        self.ln_f = nn.LayerNorm(D_MODEL)
        self.head = nn.Linear(D_MODEL, VOCAB)

    def forward(self, idx):                                     # idx [B, T] -> logits [B, T, VOCAB]
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t))
        x = self.blocks(x, mask=nn.Transformer.generate_square_subsequent_mask(t))
        return self.head(self.ln_f(x))


@torch.inference_mode()
def generate(model, prompt, n):
    seq, logits = list(prompt), []
    for _ in range(n):
        last = model(torch.tensor([seq]))[0, -1]
        logits.append(last)
        seq.append(int(last.argmax()))
    return torch.tensor(seq[len(prompt):]), torch.stack(logits)


def main(argv):
    if len(argv) != 1 or argv[0].startswith("-"):
        sys.exit(__doc__)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = GPT()
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() == 1:
                p.add_(0.1 * torch.randn_like(p))
    model.eval()

    tokens, logits = generate(model, PROMPT, NEW_TOKENS)
    top2 = logits.topk(2).values
    margin = float((top2[:, 0] - top2[:, 1]).min())
    assert margin > 1e-3, f"greedy choice too close to call (margin {margin}): pick another prompt"
    reps, t = 20, time.perf_counter()
    for _ in range(reps):
        generate(model, PROMPT, NEW_TOKENS)
    tokens_per_s = reps * NEW_TOKENS / (time.perf_counter() - t)

    out_dir = argv[0]
    os.makedirs(out_dir, exist_ok=True)
    save_model(model, os.path.join(out_dir, "gpt.safetensors"))
    save_file({"prompt": torch.tensor(PROMPT), "tokens": tokens, "logits": logits},
              os.path.join(out_dir, "io.safetensors"),
              {"torch": torch.__version__, "tokens_per_s": "%.1f" % tokens_per_s})
    print(f"PyTorch: {tokens.tolist()} (smallest top-2 logit margin {margin:.3f}), "
          f"{tokens_per_s:.0f} tokens/s without a cache (1 thread)")
    print(f"wrote {out_dir}/gpt.safetensors and {out_dir}/io.safetensors")


if __name__ == "__main__":
    main(sys.argv[1:])
