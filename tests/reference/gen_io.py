#!/usr/bin/python3
"""Writes the io fixtures (tests/fixtures/io) with PyTorch and numpy:

    /usr/bin/python3 tests/reference/gen_io.py            regenerate the fixtures
    /usr/bin/python3 tests/reference/gen_io.py --check F  read safetensors files F... (e.g. written
                                                          by ctensor) with the reader below and print them

The `safetensors` package is not installed here, so this file carries a small
writer and a strict reader of the format written from its specification
(github.com/huggingface/safetensors, "format"): the writer reproduces the
reference writer's bytes (compact JSON, __metadata__ first, tensors ordered by
dtype alignment descending then name, header padded with spaces to a multiple
of 8), which test_io.c compares byte for byte with ctensor's writer.
For each <case>.safetensors, <case>__<name>.npy holds the expected values of
tensor <name> (bfloat16 as float32); names are escaped for file names by
index: <case>__<i>.npy for the i-th name in sorted order."""
import json
import os
import struct
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "fixtures", "io")

ST_DTYPES = {torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
             torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8",
             torch.bool: "BOOL"}
# the reference's Dtype enum order (data is sorted by it, descending)
RANK = {"BOOL": 0, "U8": 1, "I8": 2, "F8_E5M2": 3, "F8_E4M3": 4, "I16": 5, "U16": 6, "F16": 7, "BF16": 8, "I32": 9,
        "U32": 10, "F32": 11, "F64": 12, "I64": 13, "U64": 14}
NP = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2", "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "|i1",
      "U8": "|u1", "BOOL": "|b1"}


def tensor_bytes(t):
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().astype("<i2").tobytes()
    a = t.numpy()
    return a.astype(a.dtype.newbyteorder("<")).tobytes()


def st_dumps(tensors, metadata=None):
    """tensors: dict name -> torch tensor. Returns the file's bytes."""
    items = sorted(tensors.items(), key=lambda kv: (-RANK[ST_DTYPES[kv[1].dtype]], kv[0].encode()))
    header = {}
    if metadata:
        header["__metadata__"] = {k: metadata[k] for k in sorted(metadata, key=lambda k: k.encode())}
    off, blobs = 0, []
    for name, t in items:
        b = tensor_bytes(t)
        header[name] = {"dtype": ST_DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        off += len(b)
        blobs.append(b)
    h = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    h += b" " * ((8 - len(h) % 8) % 8)
    return struct.pack("<Q", len(h)) + h + b"".join(blobs)


def _no_dups(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise ValueError("duplicate key %r" % k)
        d[k] = v
    return d


def st_loads(data):
    """Strict reader: returns ({name: numpy array}, metadata dict)."""
    if len(data) < 8:
        raise ValueError("too small")
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8 or n > 100_000_000:
        raise ValueError("header length %d exceeds file size %d" % (n, len(data)))
    raw = data[8:8 + n]
    if raw[:1] != b"{":
        raise ValueError("header must start with '{'")
    header = json.loads(raw.decode("utf-8"), object_pairs_hook=_no_dups)
    meta = header.pop("__metadata__", {}) or {}
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in meta.items()):
        raise ValueError("metadata must map strings to strings")
    buf = data[8 + n:]
    spans, out = [], {}
    for name, info in header.items():
        if set(info) != {"dtype", "shape", "data_offsets"}:
            raise ValueError("bad entry for %r" % name)
        dt, shape, (b, e) = info["dtype"], info["shape"], info["data_offsets"]
        if dt not in NP:
            raise ValueError("unknown dtype %r" % dt)
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if e < b or e - b != count * np.dtype(NP[dt]).itemsize or e > len(buf):
            raise ValueError("bad data_offsets for %r" % name)
        a = np.frombuffer(buf[b:e], dtype=NP[dt]).reshape(shape)
        if dt == "BF16":
            a = (a.astype(np.uint32) << 16).view(np.float32)
        out[name] = a
        spans.append((b, e))
    pos = 0
    for b, e in sorted(spans):
        if b != pos:
            raise ValueError("tensors overlap or leave a gap at byte %d" % pos)
        pos = e
    if pos != len(buf):
        raise ValueError("data buffer has %d bytes, tensors cover %d" % (len(buf), pos))
    return out, meta


def write_case(case, tensors, metadata=None):
    data = st_dumps(tensors, metadata)
    back, meta = st_loads(data)  # the reader accepts what the writer wrote
    assert meta == (metadata or {})
    with open(os.path.join(OUT, case + ".safetensors"), "wb") as f:
        f.write(data)
    for i, name in enumerate(sorted(tensors, key=lambda k: k.encode())):
        t = tensors[name].detach()
        exp = t.float().numpy() if t.dtype == torch.bfloat16 else t.numpy()
        got = back[name]
        assert got.shape == exp.shape and np.array_equal(got.astype(exp.dtype), exp), name
        np.save(os.path.join(OUT, "%s__%d.npy" % (case, i)), np.array(exp, order="C"))


def main():
    torch.manual_seed(0)
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    dt = {}
    dt["f64"] = torch.randn(3, 4, dtype=torch.float64)
    dt["f32"] = torch.randn(2, 3, 2)
    dt["f16"] = torch.randn(5).half()
    dt["bf16"] = torch.randn(2, 3).bfloat16()
    dt["i64"] = torch.tensor([[-(2 ** 62), 7], [2 ** 40 + 3, -1]])
    dt["i32"] = torch.randint(-2 ** 31, 2 ** 31 - 1, (4,), dtype=torch.int32)
    dt["i16"] = torch.tensor([-32768, 0, 32767], dtype=torch.int16)
    dt["i8"] = torch.tensor([-128, -1, 0, 127], dtype=torch.int8)
    dt["u8"] = torch.tensor([[0, 1, 254, 255]], dtype=torch.uint8)
    dt["bool"] = torch.tensor([True, False, False, True, True])
    dt["scalar"] = torch.tensor(2.5)
    dt["empty"] = torch.zeros(0, 3)
    write_case("all_dtypes", dt, {"format": "pt", "note": "quote \" backslash \\ newline \n tab \t unicode \u00e9\u2713"})
    # a small model's state_dict, as safetensors.torch.save_file(model.state_dict()) would store it
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.LayerNorm(3), torch.nn.Linear(3, 2))
    write_case("model", dict(model.state_dict()), {"format": "pt"})
    write_case("empty", {})
    write_case("meta_only", {}, {"b": "2", "a": "1", "": "empty key"})
    write_case("names", {"caf\u00e9": torch.arange(3, dtype=torch.int32), "tab\tname": torch.ones(2, dtype=torch.int16),
                         "z": torch.ones(1, dtype=torch.uint8), "A.b-c_d/0": torch.arange(4.0).reshape(2, 2),
                         "ctrl\u0001": torch.zeros(1, dtype=torch.int8)})
    # unaligned on purpose (not what the writer makes): I8 first, then F32 at offset 3
    h = json.dumps({"a": {"dtype": "I8", "shape": [3], "data_offsets": [0, 3]},
                    "b": {"dtype": "F32", "shape": [2], "data_offsets": [3, 11]}}).encode()
    with open(os.path.join(OUT, "unaligned.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + bytes([1, 2, 255]) + np.array([1.5, -2.0], "<f4").tobytes())
    print("io fixtures:", len(os.listdir(OUT)), "files")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--check":
        for p in sys.argv[2:]:
            with open(p, "rb") as f:
                ts, meta = st_loads(f.read())
            print(p, "metadata", meta)
            for k in sorted(ts):
                print(" ", repr(k), ts[k].dtype, ts[k].shape, ts[k].ravel()[:6].tolist())
    else:
        main()
