"""Writes conformance case folders in the layout of CONFORMANCE.md.

Run with Debian's PyTorch: /usr/bin/python3 tests/reference/gen_fixtures.py
Each case calls a PyTorch function on given inputs and stores inputs, outputs,
upstream gradients (gout) and input gradients as .npy, plus case.json.
Extra keys this writer may add (the runner understands them):
  inputs[i].permute: the file holds a contiguous base; the input is base.permute(p)
                     (a non-contiguous view), so strided kernels are exercised.
  inputs[i].dtype "bfloat16": the file holds float32 values to convert.
  grad_rtol / grad_atol: tolerances for gradients when they differ from outputs'.
  outputs[j].strides / grads[k].strides (case(..., strides=True)): PyTorch's strides
                     of that output or input gradient, compared exactly (memory formats).
"""
import hashlib
import json
import os
import shutil

import numpy as np
import torch

TOL = {
    torch.float64: (1e-10, 1e-12),
    torch.float32: (1e-5, 1e-6),
    torch.float16: (2e-3, 1e-3),
    torch.bfloat16: (1e-2, 1e-2),
}
GRAD_TOL = {
    torch.float64: (1e-8, 1e-10),
    torch.float32: (1e-4, 1e-5),
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (5e-2, 5e-2),
}


def _np(t):
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.float().numpy()
    return t.contiguous().numpy()


def _inverse(p):
    inv = [0] * len(p)
    for i, v in enumerate(p):
        inv[v] = i
    return inv


def _jsonable(v):
    if isinstance(v, float):
        if v == float("inf"):
            return "inf"
        if v == float("-inf"):
            return "-inf"
        if v != v:
            return "nan"
        return v
    if isinstance(v, torch.dtype):
        return str(v)
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    return v


class Writer:
    def __init__(self, root):
        self.root = root
        self.count = 0
        self.families = set()

    def case(self, family, name, op, fn, inputs, args=None, grad=True, requires_grad=None, rtol=None, atol=None,
             grad_rtol=None, grad_atol=None, note="", permute=None, named=None, expect_error=None, gout_scale=1.0,
             optional=False, strides=False, gout_like_output=True):
        """fn(*inputs) -> tensor or tuple. inputs: tensors (copied). permute: per-input list or None.
        optional: PyTorch may not implement this dtype on CPU; then no case is written."""
        if optional:
            try:
                fn(*[t.detach().clone() for t in inputs])
            except (RuntimeError, TypeError):
                return
        folder = os.path.join(self.root, family, name)
        if family not in self.families:
            self.families.add(family)
        if os.path.exists(folder):
            raise RuntimeError("duplicate case " + folder)
        os.makedirs(folder)
        seed = int(hashlib.sha1(name.encode()).hexdigest()[:8], 16)
        torch.manual_seed(seed)
        permute = permute or [None] * len(inputs)
        if requires_grad is None:
            requires_grad = [grad and (t.dtype.is_floating_point) for t in inputs]
        entries, logical = [], []
        for i, t in enumerate(inputs):
            t = t.detach().clone()
            p = permute[i]
            if p is not None:
                # a fresh contiguous base, size-1 dims included (what the runner loads), so that
                # base.permute(p) has the strides to(memory_format=...) gives
                base = t.permute(_inverse(p)).clone(memory_format=torch.contiguous_format)
                x = base.permute(p)
                stored = base
            else:
                x = t
                stored = t
            x = x.detach()
            if requires_grad[i]:
                x.requires_grad_(True)
            logical.append(x)
            fname = "in%d.npy" % i
            np.save(os.path.join(folder, fname), _np(stored))
            e = {"file": fname, "dtype": np.lib.format.dtype_to_descr(_np(stored).dtype), "shape": list(t.shape),
                 "requires_grad": bool(requires_grad[i])}
            if t.dtype == torch.bfloat16:
                e["dtype"] = "bfloat16"
            if p is not None:
                e["permute"] = list(p)
            entries.append(e)
        meta = {"name": name, "op": op, "args": _jsonable(args or {}),
                "dtype": str(inputs[0].dtype).replace("torch.", "") if inputs else "", "note": note, "inputs": entries}
        if named:
            for k, v in named.items():
                np.save(os.path.join(folder, k + ".npy"), _np(v))
            meta["weights"] = list(named.keys())
        if expect_error is not None:
            try:
                fn(*logical)
            except Exception as e:  # noqa: BLE001
                meta["expect_error"] = {"type": type(e).__name__, "message": str(e).split("\n")[0]}
            else:
                raise RuntimeError("case %s expected an error but PyTorch succeeded" % name)
            self._write_json(folder, meta)
            return
        out = fn(*logical)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        odt = outs[0].dtype if outs else torch.float32
        r, a = TOL.get(odt, (0, 0))
        meta["rtol"] = rtol if rtol is not None else r
        meta["atol"] = atol if atol is not None else a
        oentries, gouts, groots = [], [], []
        for j, o in enumerate(outs):
            fname = "out%d.npy" % j
            np.save(os.path.join(folder, fname), _np(o))
            e = {"file": fname, "dtype": np.lib.format.dtype_to_descr(_np(o).dtype), "shape": list(o.shape)}
            if o.dtype == torch.bfloat16:
                e["dtype"] = "bfloat16"
            if strides:
                e["strides"] = list(o.stride())
            if grad and o.requires_grad and o.dtype.is_floating_point:
                g = (torch.randn(o.shape, dtype=torch.float64) * gout_scale).to(o.dtype)
                if strides and gout_like_output:   # the upstream gradient in the output's layout, as a next layer's would be
                    g = torch.empty_like(o).copy_(g)
                    e["gout_strides"] = list(g.stride())
                gname = "gout%d.npy" % j
                np.save(os.path.join(folder, gname), _np(g))
                e["gout"] = gname
                gouts.append(g)
                groots.append(o)
            oentries.append(e)
        meta["outputs"] = oentries
        if groots:
            wrt = [x for x in logical if x.requires_grad]
            grads = torch.autograd.grad(groots, wrt, gouts, allow_unused=True)
            gentries = []
            k = 0
            for i, x in enumerate(logical):
                if not x.requires_grad:
                    continue
                gv = grads[k] if grads[k] is not None else torch.zeros_like(x)
                k += 1
                fname = "grad_in%d.npy" % i
                np.save(os.path.join(folder, fname), _np(gv))
                ge = {"file": fname, "dtype": np.lib.format.dtype_to_descr(_np(gv).dtype),
                      "shape": list(gv.shape), "wrt": "in%d" % i}
                if strides and grads[k - 1] is not None:
                    ge["strides"] = list(gv.stride())
                gentries.append(ge)
            meta["grads"] = gentries
            gr, ga = GRAD_TOL.get(odt, (1e-5, 1e-6))
            meta["grad_rtol"] = grad_rtol if grad_rtol is not None else gr
            meta["grad_atol"] = grad_atol if grad_atol is not None else ga
        self._write_json(folder, meta)

    def _write_json(self, folder, meta):
        with open(os.path.join(folder, "case.json"), "w") as f:
            json.dump(meta, f, indent=1, sort_keys=False)
            f.write("\n")
        self.count += 1


def reset_family(root, family):
    path = os.path.join(root, family)
    if os.path.exists(path):
        shutil.rmtree(path)
