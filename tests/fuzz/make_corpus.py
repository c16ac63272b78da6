#!/usr/bin/python3
"""Writes the fuzzers' seed corpora (small valid and edge-case files):
    /usr/bin/python3 tests/fuzz/make_corpus.py
tests/fuzz/corpus/<target>/ also holds crash reproducers (named crash-*),
which this script leaves alone. The optimizer and scheduler state-dict seeds
are real state dicts, written by their fuzz targets built as programs with
CT_FUZZ_WRITE_SEEDS (this script compiles and runs them with $CC, default cc)."""
import gzip
import io
import json
import os
import struct
import subprocess
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def put(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def npy(arr, version=None):
    b = io.BytesIO()
    if version is None:
        np.save(b, arr)
    else:
        np.lib.format.write_array(b, arr, version=version)
    return b.getvalue()


def st(header, data=b"", pad=True):
    h = json.dumps(header, separators=(",", ":")).encode()
    if pad:
        h += b" " * ((8 - len(h) % 8) % 8)
    return struct.pack("<Q", len(h)) + h + data


def idx(arr, code):
    """arr as an IDX file: 0, 0, type code, ndim, big-endian uint32 sizes, big-endian data"""
    be = arr.astype(arr.dtype.newbyteorder(">"))
    return bytes([0, 0, code, arr.ndim]) + b"".join(struct.pack(">I", n) for n in arr.shape) + be.tobytes()


def gz(data):
    return gzip.compress(data, compresslevel=9, mtime=0)


def c_seeds(target):
    root = os.path.dirname(os.path.dirname(HERE))
    out = os.path.join(HERE, "corpus", target)
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, target)
        subprocess.run([os.environ.get("CC", "cc"), "-std=c11", "-O1", "-I" + root, "-DCT_FUZZ_WRITE_SEEDS",
                        os.path.join(HERE, target + ".c"), "-o", exe, "-lm", "-lpthread"], check=True)
        subprocess.run([exe, out], check=True)


def main():
    a = np.arange(12, dtype="<f4").reshape(3, 4)
    put("npy", "f4_2d.npy", npy(a))
    put("npy", "f8_scalar.npy", npy(np.array(2.5)))
    put("npy", "i8_empty.npy", npy(np.zeros((0, 3), "<i8")))
    put("npy", "bool.npy", npy(np.array([True, False, True])))
    put("npy", "u1.npy", npy(np.arange(5, dtype=np.uint8)))
    put("npy", "i1_i2.npy", npy(np.array([-1, 2], "i1")) + b"")
    put("npy", "i2_be.npy", npy(np.array([1, -2, 300], ">i2")))
    put("npy", "f8_be.npy", npy(np.array([1.0, -0.5], ">f8")))
    put("npy", "f2.npy", npy(np.array([1.0, 65504.0, -0.0], "<f2")))
    put("npy", "i4_fortran.npy", npy(np.asfortranarray(np.arange(6, dtype="<i4").reshape(2, 3))))
    put("npy", "c8.npy", npy(np.array([1 + 2j], "<c8")))
    put("npy", "v2.npy", npy(np.arange(3, dtype="<f4"), version=(2, 0)))
    put("npy", "v3.npy", npy(np.arange(3, dtype="<i4"), version=(3, 0)))
    put("npy", "dims8.npy", npy(np.zeros((1, 2, 1, 2, 1, 1, 2, 1), "<f4")))

    z = bytes(range(48))
    put("safetensors", "empty.st", st({}))
    put("safetensors", "meta.st", st({"__metadata__": {"format": "pt", "k\u00e9": "v\n"}}))
    put("safetensors", "one.st", st({"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}}, z[:16]))
    put("safetensors", "mixed.st", st({"__metadata__": {"a": "b"},
                                       "x": {"dtype": "I64", "shape": [1], "data_offsets": [0, 8]},
                                       "y": {"dtype": "BF16", "shape": [2], "data_offsets": [8, 12]},
                                       "z": {"dtype": "BOOL", "shape": [3], "data_offsets": [12, 15]},
                                       "e": {"dtype": "F16", "shape": [0, 2], "data_offsets": [15, 15]}}, z[:15]))
    put("safetensors", "alltypes.st", st({t: {"dtype": t, "shape": [1], "data_offsets": [o, o + s]}
                                          for t, o, s in [("F64", 0, 8), ("I64", 8, 8), ("F32", 16, 4), ("I32", 20, 4),
                                                          ("F16", 24, 2), ("BF16", 26, 2), ("I16", 28, 2), ("I8", 30, 1),
                                                          ("U8", 31, 1), ("BOOL", 32, 1), ("U16", 33, 2)]}, z[:35]))
    put("safetensors", "unaligned.st", st({"a": {"dtype": "I8", "shape": [3], "data_offsets": [0, 3]},
                                           "b": {"dtype": "F64", "shape": [1], "data_offsets": [3, 11]}}, z[:11], pad=False))
    put("safetensors", "scalar.st", st({"s": {"dtype": "F64", "shape": [], "data_offsets": [0, 8]}}, z[:8]))
    h = b'{"\\u00e9\\ud83d\\ude00\\/\\n":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}}'
    put("safetensors", "escapes.st", struct.pack("<Q", len(h)) + h + b"\x01\x02")
    put("safetensors", "gap.st", st({"a": {"dtype": "U8", "shape": [1], "data_offsets": [1, 2]}}, z[:2]))
    put("safetensors", "overlap.st", st({"a": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]},
                                         "b": {"dtype": "U8", "shape": [2], "data_offsets": [1, 3]}}, z[:3]))


    # IDX (MNIST's format), raw and gzip-compressed (tests/fuzz/idx.c builds with zlib)
    img = (np.arange(2 * 3 * 4) * 11 % 256).astype(np.uint8).reshape(2, 3, 4)
    put("idx", "u8_3d.idx", idx(img, 0x08))
    put("idx", "labels.idx", idx(np.array([3, 1, 4, 1, 5], np.uint8), 0x08))
    put("idx", "i8.idx", idx(np.array([-1, 2, -128], np.int8), 0x09))
    put("idx", "i16_2d.idx", idx(np.array([[1, -2], [300, -32768]], np.int16), 0x0B))
    put("idx", "i32.idx", idx(np.array([65536, -1], np.int32), 0x0C))
    put("idx", "f32.idx", idx(np.array([1.5, -0.0, np.inf], np.float32), 0x0D))
    put("idx", "f64.idx", idx(np.array([[2.5], [np.nan]], np.float64), 0x0E))
    put("idx", "empty.idx", idx(np.zeros((0, 7), np.uint8), 0x08))
    put("idx", "u8_3d.idx.gz", gz(idx(img, 0x08)))
    put("idx", "f64.idx.gz", gz(idx(np.array([[2.5], [np.nan]], np.float64), 0x0E)))
    f = idx(np.array([[1, -2], [300, -32768]], np.int16), 0x0B)
    put("idx", "members.gz", gz(f[:6]) + gz(f[6:13]) + gz(f[13:]))   # the header spans two members
    put("idx", "bomb16.gz", gz(idx(np.zeros(16, np.uint8), 0x08) + bytes(1 << 16)))   # 16 bytes declared, 64 KiB follow
    put("idx", "trailing.idx", idx(np.array([7, 8], np.uint8), 0x08) + b"\x09")
    put("idx", "huge_header.idx", bytes([0, 0, 0x08, 4]) + b"\xff" * 16)

    c_seeds("optim_state")
    c_seeds("sched_state")


if __name__ == "__main__":
    main()
