#!/usr/bin/python3
"""Export a PyTorch model's state_dict as .safetensors, for ctensor to load.

    /usr/bin/python3 examples/torch_interop/export.py model.pt out.safetensors
        model.pt: what torch.save wrote, a state_dict or a whole nn.Module
    /usr/bin/python3 examples/torch_interop/export.py --mlp 784,64,10 [--seed 0] out.safetensors
        a freshly initialized nn.Sequential(Linear, ReLU, ..., Linear)
    options: --meta KEY=VALUE (repeatable) adds a __metadata__ entry

In C:  ct_module_load_safetensors(model, "out.safetensors", 1);

As a library:  from export import save_file, save_model

The `safetensors` package is not needed: this file writes the format from its
specification (github.com/huggingface/safetensors): an 8-byte little-endian
header length N, N bytes of JSON {"__metadata__": {...}, "name": {"dtype":
"F32", "shape": [...], "data_offsets": [begin, end]}, ...} padded with spaces
to a multiple of 8, then the tensors' little-endian bytes. Like the reference
writer (and ctensor's), the JSON is compact, __metadata__ comes first and the
tensors are laid out by dtype alignment (largest first), then by name, so the
same weights give the same bytes from either side."""
import json
import struct
import sys

import torch

DTYPE_CODE = {
    torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
    torch.uint8: "U8", torch.bool: "BOOL",
}
# position in the reference implementation's Dtype enum: data is ordered by it, descending
DTYPE_ORDER = ["BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "I16", "U16", "F16", "BF16", "I32", "U32", "F32",
               "F64", "I64", "U64"]


def _raw_bytes(t):
    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:              # numpy has no bfloat16: reinterpret the bits
        t = t.view(torch.int16)
    a = t.numpy()
    if a.dtype.byteorder == ">" or (a.dtype.byteorder == "=" and sys.byteorder == "big"):
        a = a.byteswap()
    return a.tobytes()


def dumps(tensors, metadata=None):
    """tensors: {name: torch.Tensor}; metadata: {str: str} or None. Returns the file's bytes."""
    for name, t in tensors.items():
        if name == "__metadata__":
            raise ValueError("the name '__metadata__' is reserved")
        if t.dtype not in DTYPE_CODE:
            raise ValueError(f"{name}: dtype {t.dtype} cannot be stored in safetensors")
    order = sorted(tensors, key=lambda n: (-DTYPE_ORDER.index(DTYPE_CODE[tensors[n].dtype]), n.encode("utf-8")))
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = {str(k): str(metadata[k]) for k in sorted(metadata, key=lambda k: str(k).encode("utf-8"))}
    for name in order:
        t = tensors[name]
        raw = _raw_bytes(t)
        header[name] = {"dtype": DTYPE_CODE[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
        blobs.append(raw)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def save_file(tensors, path, metadata=None):
    with open(path, "wb") as f:
        f.write(dumps(tensors, metadata))


def save_model(model, path, metadata=None):
    """model: an nn.Module or a state_dict. Tensors that share memory are written as copies."""
    sd = model.state_dict() if isinstance(model, torch.nn.Module) else model
    save_file({k: v for k, v in sd.items()}, path, metadata)


def mlp(sizes):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def main(argv):
    meta, sizes, seed, rest = {}, None, 0, []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--meta", "--mlp", "--seed") and i + 1 < len(argv):
            v = argv[i + 1]
            if a == "--meta":
                k, _, val = v.partition("=")
                meta[k] = val
            elif a == "--mlp":
                sizes = [int(s) for s in v.split(",")]
            else:
                seed = int(v)
            i += 2
        elif a.startswith("-"):
            sys.exit(__doc__)
        else:
            rest.append(a)
            i += 1
    if sizes is not None and len(rest) == 1:
        torch.manual_seed(seed)
        model = mlp(sizes)
    elif sizes is None and len(rest) == 2:
        model = torch.load(rest.pop(0), map_location="cpu")
    else:
        sys.exit(__doc__)
    save_model(model, rest[0], meta or None)
    sd = model.state_dict() if isinstance(model, torch.nn.Module) else model
    for k, v in sd.items():
        print(f"{k}: {str(v.dtype).replace('torch.', '')} {list(v.shape)}")
    print(f"wrote {rest[0]}")


if __name__ == "__main__":
    main(sys.argv[1:])
