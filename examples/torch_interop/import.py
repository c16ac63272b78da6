#!/usr/bin/python3
"""Read a .safetensors file (e.g. written by ctensor) back into PyTorch.

    /usr/bin/python3 examples/torch_interop/import.py weights.safetensors
        lists the tensors (name, dtype, shape) and the metadata
    /usr/bin/python3 examples/torch_interop/import.py weights.safetensors --mlp 784,64,10
        builds nn.Sequential(Linear, ReLU, ..., Linear) and load_state_dict(strict=True)
    /usr/bin/python3 examples/torch_interop/import.py weights.safetensors --out state.pt
        saves the tensors with torch.save as a state_dict

C side:  ct_module_save_safetensors(model, "weights.safetensors");

As a library:  from import_st import load_file, load_model   (import is a Python
keyword: load this file with importlib, or copy it under another name)

The reader is strict, as the reference one is: the header length must fit in
the file, the JSON must be an object of well-formed entries, and the tensors'
byte ranges must tile the data buffer exactly, with numel * itemsize bytes each."""
import json
import struct
import sys

import numpy as np
import torch

DTYPES = {  # code -> (numpy little-endian dtype, torch dtype)
    "F64": ("<f8", torch.float64), "F32": ("<f4", torch.float32), "F16": ("<f2", torch.float16),
    "BF16": ("<i2", torch.bfloat16), "I64": ("<i8", torch.int64), "I32": ("<i4", torch.int32),
    "I16": ("<i2", torch.int16), "I8": ("i1", torch.int8), "U8": ("u1", torch.uint8), "BOOL": ("?", torch.bool),
}


def loads(data, name="<bytes>"):
    """Returns ({name: torch.Tensor}, metadata dict or None)."""
    if len(data) < 8:
        raise ValueError(f"{name}: file too small ({len(data)} bytes)")
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8:
        raise ValueError(f"{name}: header length {n} exceeds file size {len(data)}")
    header = json.loads(data[8:8 + n].decode("utf-8"))
    if not isinstance(header, dict):
        raise ValueError(f"{name}: the header is not a JSON object")
    buf = data[8 + n:]
    metadata = header.pop("__metadata__", None)
    spans, out = [], {}
    for key, e in header.items():
        if not isinstance(e, dict) or set(e) != {"dtype", "shape", "data_offsets"}:
            raise ValueError(f"{name}: bad entry for {key!r}")
        if e["dtype"] not in DTYPES:
            raise ValueError(f"{name}: {key}: unsupported dtype {e['dtype']}")
        np_dt, torch_dt = DTYPES[e["dtype"]]
        begin, end = e["data_offsets"]
        shape = [int(s) for s in e["shape"]]
        numel = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if not (0 <= begin <= end <= len(buf)) or end - begin != numel * np.dtype(np_dt).itemsize:
            raise ValueError(f"{name}: {key}: data_offsets {[begin, end]} do not match shape {shape} ({e['dtype']})")
        spans.append((begin, end))
        a = np.frombuffer(buf, dtype=np_dt, count=numel, offset=begin).reshape(shape).copy()
        t = torch.from_numpy(a.astype(a.dtype.newbyteorder("=")))
        out[key] = t.view(torch.bfloat16) if torch_dt == torch.bfloat16 else t
    pos = 0
    for begin, end in sorted(spans):
        if begin != pos:
            raise ValueError(f"{name}: the tensors do not cover the data buffer (gap or overlap at byte {pos})")
        pos = end
    if pos != len(buf):
        raise ValueError(f"{name}: {len(buf) - pos} bytes after the last tensor")
    return out, metadata


def load_file(path):
    with open(path, "rb") as f:
        return loads(f.read(), path)[0]


def load_model(model, path, strict=True):
    """model.load_state_dict(load_file(path), strict): PyTorch's key checks and report."""
    return model.load_state_dict(load_file(path), strict=strict)


def mlp(sizes):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def main(argv):
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    path, sizes, out = argv[0], None, None
    rest = argv[1:]
    while rest:
        if rest[0] == "--mlp" and len(rest) > 1:
            sizes = [int(s) for s in rest[1].split(",")]
        elif rest[0] == "--out" and len(rest) > 1:
            out = rest[1]
        else:
            sys.exit(__doc__)
        rest = rest[2:]
    with open(path, "rb") as f:
        tensors, meta = loads(f.read(), path)
    for k, v in tensors.items():
        print(f"{k}: {str(v.dtype).replace('torch.', '')} {list(v.shape)}")
    if meta:
        print("metadata:", meta)
    if sizes is not None:
        model = mlp(sizes)
        model.load_state_dict(tensors, strict=True)
        print(f"loaded into {model.__class__.__name__} (strict): ok")
    if out:
        torch.save(tensors, out)
        print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
