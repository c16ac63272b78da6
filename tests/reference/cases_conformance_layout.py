#!/usr/bin/python3
"""Cases in CONFORMANCE.md's layout, written as an outside author would write
them (no repo extensions), to prove that the runner follows the document:

    /usr/bin/python3 tests/reference/cases_conformance_layout.py           # writes tests/fixtures/layout/
    /usr/bin/python3 tests/reference/cases_conformance_layout.py --check build/tests/conformance
                                    # runs the runner on them: no failure, exactly the expected skips

(gen_fixtures.py also regenerates them: generate(w) writes tests/fixtures/layout/.)

What they exercise: optional tensors left as None ("name": null in args, the
following tensors moving up one input: pos_weight as in2, layer_norm's bias as
in1, ...); functional batch_norm in train and eval mode, with and without
weight/bias and running stats, the updated running stats as named arrays
running_mean.npy / running_var.npy; SGD, Adam, AdamW, RMSprop and Adagrad in
the optimizer layout (in0 parameter, in1 stacked gradients, out0 stacked
trajectory, args = param_groups[0] less params); clamp_min / clamp_max;
modules (nn.BatchNorm2d, nn.LSTM) with their weights as named arrays under
state_dict names; strided_inputs views (permute, slice, as_strided; an as_strided op on a
permuted view, whose result depends on the storage, so only a view passes);
+-inf and NaN outputs; integer, bool, 0-d, int8/uint8/int32 and complex
arrays; expect_error; gradients (an input that does not reach the loss gets
zeros; requires_grad false inputs have no file); a minimal case.json that
lists no inputs/outputs (the files say it); and cases the runner must report
as skipped: a composite: op, an unknown op, complex inputs of an op ctensor
has no complex support for, an option ctensor does not have, and a view the
runner cannot build.
"""
import json
import os
import shutil
import subprocess
import sys
import zlib

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(os.path.dirname(HERE), "fixtures", "layout")

# case name -> the reason it must be reported as skipped (the runner's line names it)
EXPECTED_SKIPS = {
    "composite_softmax_nll": "composite op",
    "unknown_bessel_j0": "no handler for this op",
    "complex_add_c8": "complex input",
    "complex_qr_normalization_c16": "complex input",
    "embedding_max_norm": "max_norm",
    "strided_unfold_view": "unsupported view",
}


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


def _save(folder, fname, t):
    a = t.detach().contiguous().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)
    np.save(os.path.join(folder, fname), a)
    return {"file": fname, "dtype": np.lib.format.dtype_to_descr(a.dtype), "shape": list(a.shape)}


def _tol(dt):
    return {torch.float64: (1e-10, 1e-12), torch.complex128: (1e-10, 1e-12)}.get(dt, (1e-5, 1e-6))


def case(name, op, fn, inputs, args=None, requires_grad=None, strided=None, named=None, expect_error=False,
         force_gout=False, extra=None, minimal=False, note=""):
    """inputs: tensors in signature order (None-valued optionals are not listed: they are nulls in args).
    strided: {k: (base, view_fn, description)}: input k is view_fn(base), stored as a view description.
    named: fn(outputs, inputs) -> {name: tensor} of arrays stored beside the case (e.g. running stats after the call).
    force_gout: write a gout for every real floating output even when PyTorch recorded no graph for it."""
    folder = os.path.join(ROOT, name)
    os.makedirs(folder)
    torch.manual_seed(zlib.crc32(name.encode()))
    strided = strided or {}
    if requires_grad is None:
        requires_grad = [t.dtype.is_floating_point or t.dtype.is_complex for t in inputs]
    logical, entries = [], []
    for i, t in enumerate(inputs):
        if i in strided:
            base, view_fn, desc = strided[i]
            x = view_fn(base).detach()
            d = dict(desc)
            d["base"] = "in%d_base.npy" % i
            _save(folder, d["base"], base)
            strided[i] = d
        else:
            x = t.detach().clone()
        if requires_grad[i]:
            x.requires_grad_(True)
        logical.append(x)
        e = _save(folder, "in%d.npy" % i, x)
        e["requires_grad"] = bool(requires_grad[i])
        entries.append(e)
    meta = {"name": name, "op": op, "args": _jsonable(args or {}),
            "dtype": str(inputs[0].dtype).replace("torch.", "") if inputs else "", "note": note, "inputs": entries}
    if strided:
        meta["strided_inputs"] = {"in%d" % k: v for k, v in strided.items()}
    if extra:
        meta.update(extra)
    if expect_error:
        try:
            fn(*logical)
        except Exception as e:  # noqa: BLE001
            meta["expect_error"] = {"type": type(e).__name__, "message": str(e).split("\n")[0]}
        else:
            raise RuntimeError("case %s: PyTorch did not fail" % name)
        _write(folder, meta)
        return
    out = fn(*logical)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    r, a = _tol(outs[0].dtype)
    meta["rtol"], meta["atol"] = r, a
    oentries, roots, gouts = [], [], []
    for j, o in enumerate(outs):
        e = _save(folder, "out%d.npy" % j, o)
        if o.dtype.is_floating_point and (o.requires_grad or force_gout):
            g = torch.randn(o.shape, dtype=torch.float64).to(o.dtype)
            e["gout"] = "gout%d.npy" % j
            _save(folder, e["gout"], g)
            if o.requires_grad:
                roots.append(o)
                gouts.append(g)
        oentries.append(e)
    meta["outputs"] = oentries
    wrt = [k for k, x in enumerate(logical) if x.requires_grad]
    if wrt and any("gout" in e for e in oentries):
        grads = torch.autograd.grad(roots, [logical[k] for k in wrt], gouts, allow_unused=True) if roots else [None] * len(wrt)
        gentries = []
        for k, g in zip(wrt, grads):
            g = torch.zeros_like(logical[k]) if g is None else g
            e = _save(folder, "grad_in%d.npy" % k, g)
            e["wrt"] = "in%d" % k
            gentries.append(e)
        meta["grads"] = gentries
        meta["grad_rtol"], meta["grad_atol"] = (1e-8, 1e-10) if outs[0].dtype == torch.float64 else (1e-4, 1e-5)
    if named:
        for k, v in named(outs, logical).items():
            _save(folder, k + ".npy", v)
        meta["weights"] = list(named(outs, logical).keys())
    if minimal:   # only what the file names say: the runner finds in0/out0/gout0/grad_in0 itself
        meta = {"name": name, "op": op, "args": meta["args"], "rtol": r, "atol": a}
    _write(folder, meta)


def _write(folder, meta):
    with open(os.path.join(folder, "case.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")


def rnd(*shape, dtype=torch.float64):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


# ---- optional tensors ----
def optional_cases():
    torch.manual_seed(1)
    x, y = rnd(4, 3), torch.rand(4, 3, dtype=torch.float64)
    pw, wt = torch.rand(3, dtype=torch.float64) + 0.5, torch.rand(4, 3, dtype=torch.float64) + 0.2
    case("bce_logits_pos_weight_in2", "torch.nn.functional.binary_cross_entropy_with_logits",
         lambda x, y, p: F.binary_cross_entropy_with_logits(x, y, weight=None, pos_weight=p), [x, y, pw],
         args={"weight": None, "reduction": "mean"}, requires_grad=[True, False, False],
         note="weight=None is null in args, so pos_weight is in2")
    case("bce_logits_weight_and_pos_weight", "torch.nn.functional.binary_cross_entropy_with_logits",
         lambda x, y, w, p: F.binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=p, reduction="sum"),
         [x, y, wt, pw], args={"reduction": "sum"}, requires_grad=[True, False, False, False])
    logits, tgt, cw = rnd(5, 4), torch.tensor([0, 3, 1, 1, 2]), torch.rand(4, dtype=torch.float64) + 0.5
    case("cross_entropy_weight_in2", "torch.nn.functional.cross_entropy",
         lambda x, t, w: F.cross_entropy(x, t, w), [logits, tgt, cw], requires_grad=[True, False, False])
    case("cross_entropy_all_keywords", "torch.nn.functional.cross_entropy",
         lambda x, t: F.cross_entropy(x, t), [logits.float(), tgt],
         args={"weight": None, "size_average": None, "ignore_index": -100, "reduce": None, "reduction": "mean",
               "label_smoothing": 0.0}, note="every keyword written out, as inspect.signature gives them")
    case("nll_loss_weight_null", "torch.nn.functional.nll_loss",
         lambda x, t: F.nll_loss(x, t, reduction="none"), [torch.log_softmax(logits, 1), tgt],
         args={"weight": None, "reduction": "none"})
    img, k, b = rnd(1, 2, 5, 5, dtype=torch.float32), rnd(3, 2, 3, 3, dtype=torch.float32), rnd(3, dtype=torch.float32)
    case("conv2d_bias_null", "torch.nn.functional.conv2d", lambda x, w: F.conv2d(x, w, None, padding=1), [img, k],
         args={"bias": None, "stride": 1, "padding": 1, "dilation": 1, "groups": 1})
    case("conv2d_bias_in2", "torch.nn.functional.conv2d", lambda x, w, b: F.conv2d(x, w, b, stride=2), [img, k, b],
         args={"stride": 2, "padding": 0, "dilation": 1, "groups": 1})
    case("linear_bias_null", "torch.nn.functional.linear", lambda x, w: F.linear(x, w), [rnd(3, 4), rnd(2, 4)],
         args={"bias": None})
    xs = rnd(2, 3, 4)
    case("layer_norm_weight_null_bias_in1", "torch.nn.functional.layer_norm",
         lambda x, b: F.layer_norm(x, [4], weight=None, bias=b, eps=1e-5), [xs, rnd(4)],
         args={"normalized_shape": [4], "weight": None, "eps": 1e-5}, note="bias moves up to in1")
    case("group_norm_weight_only", "torch.nn.functional.group_norm",
         lambda x, w: F.group_norm(x, 2, w), [rnd(2, 4, 3), rnd(4)], args={"num_groups": 2, "bias": None, "eps": 1e-5})
    case("embedding_bag_offsets_null_psw_in2", "torch.nn.functional.embedding_bag",
         lambda i, w, p: F.embedding_bag(i, w, None, mode="sum", per_sample_weights=p),
         [torch.tensor([[0, 2], [3, 1]]), rnd(5, 3), rnd(2, 2)],
         args={"offsets": None, "mode": "sum"}, note="2-D input, offsets None: per_sample_weights is in2")
    case("embedding_padding_idx_null", "torch.nn.functional.embedding", lambda i, w: F.embedding(i, w),
         [torch.tensor([1, 0, 3]), rnd(4, 2)],
         args={"padding_idx": None, "max_norm": None, "norm_type": 2.0, "scale_grad_by_freq": False, "sparse": False})
    case("embedding_max_norm", "torch.nn.functional.embedding", lambda i, w: F.embedding(i, w.detach().clone(), max_norm=1.0),
         [torch.tensor([1, 0, 3]), rnd(4, 2) * 3], args={"max_norm": 1.0}, requires_grad=[False, False],
         note="expected skip: ctensor has no max_norm")


# ---- functional batch_norm ----
def batch_norm_cases():
    def bn(name, training, affine=True, running=True, weight_only=False):
        torch.manual_seed(zlib.crc32(name.encode()))
        x = rnd(4, 3, 2) * 2 + 0.5
        rm, rv = rnd(3) * 0.1, torch.rand(3, dtype=torch.float64) + 0.5
        w, b = rnd(3), rnd(3)
        ins, args, rg = [x], {"training": training, "momentum": 0.2, "eps": 1e-5}, [True]
        if running:
            ins += [rm, rv]
            rg += [False, False]
        else:
            args.update({"running_mean": None, "running_var": None})
        if affine:
            ins += [w] if weight_only else [w, b]
            rg += [True] if weight_only else [True, True]
            if weight_only:
                args["bias"] = None
        else:
            args.update({"weight": None, "bias": None})
        stats = {}

        def fn(*t):
            t = list(t)
            xx = t.pop(0)
            m = v = None
            if running:   # F.batch_norm updates these in place: copies, so in1/in2 keep the values before the call
                m, v = t.pop(0).clone(), t.pop(0).clone()
                stats["running_mean"], stats["running_var"] = m, v
            ww = t.pop(0) if affine else None
            bb = t.pop(0) if affine and not weight_only else None
            return F.batch_norm(xx, m, v, ww, bb, training=training, momentum=0.2, eps=1e-5)

        case(name, "torch.nn.functional.batch_norm", fn, ins, args=args, requires_grad=rg,
             named=(lambda outs, ins_: dict(stats)) if running else None,
             note="running_mean.npy / running_var.npy: the running stats after the call")

    bn("batch_norm_train_affine", True)
    bn("batch_norm_train_no_affine", True, affine=False)
    bn("batch_norm_train_no_running_stats", True, running=False)
    bn("batch_norm_eval_affine", False)
    bn("batch_norm_eval_no_affine", False, affine=False)
    bn("batch_norm_eval_weight_only", False, weight_only=True)


# ---- modules: constructor arguments in args, weights as named arrays under state_dict names ----
def module_case(name, make, inputs, ctor_args, requires_grad=None, call=lambda m, *xs: m(*xs)):
    torch.manual_seed(zlib.crc32(name.encode()))
    m = make().double()
    with torch.no_grad():   # weights unlike any seeded initialisation: the runner must load them
        for t in m.state_dict().values():
            if t.dtype.is_floating_point:
                t.copy_(torch.rand(t.shape, dtype=torch.float64) + 0.5)
    state = {k: v.clone() for k, v in m.state_dict().items()}
    case(name, "nn." + type(m).__name__, lambda *xs: _flatten(call(m, *xs)), inputs, args=ctor_args,
         requires_grad=requires_grad, named=lambda outs, ins: state,
         note="a new module (training mode); named arrays: its state_dict before the forward")


def _flatten(out):
    if isinstance(out, (tuple, list)):
        r = []
        for o in out:
            r += _flatten(o)
        return r
    return [out]


def module_cases():
    module_case("module_batchnorm2d_train", lambda: torch.nn.BatchNorm2d(3, momentum=0.3), [rnd(2, 3, 2, 2)],
                {"num_features": 3, "eps": 1e-5, "momentum": 0.3, "affine": True, "track_running_stats": True})
    module_case("module_lstm_state_dict", lambda: torch.nn.LSTM(3, 2), [rnd(4, 1, 3), rnd(1, 1, 2), rnd(1, 1, 2)],
                {"input_size": 3, "hidden_size": 2, "num_layers": 1, "bias": True, "batch_first": False, "dropout": 0.0,
                 "bidirectional": False, "proj_size": 0}, requires_grad=[True, True, False],
                call=lambda m, x, h, c: m(x, (h, c)))   # hx = (h0, c0): in1, in2; outputs output, h_n, c_n


# ---- optimizers ----
def optimizer_case(name, cls, kwargs, steps=3, shape=(2, 3)):
    torch.manual_seed(zlib.crc32(name.encode()))
    p0 = rnd(*shape)
    grads = rnd(steps, *shape)
    p = p0.clone().requires_grad_(True)
    opt = cls([p], **kwargs)
    traj = []
    for s in range(steps):
        p.grad = grads[s].clone()
        opt.step()
        traj.append(p.detach().clone())
    defaults = {k: v for k, v in opt.param_groups[0].items() if k != "params"}
    folder = os.path.join(ROOT, name)
    os.makedirs(folder)
    meta = {"name": name, "op": "torch.optim." + cls.__name__, "args": _jsonable(defaults), "dtype": "float64",
            "rtol": 1e-10, "atol": 1e-12, "note": "in1[s-1] is .grad before step s; out0[s-1] the parameter after it",
            "inputs": [dict(_save(folder, "in0.npy", p0), requires_grad=False),
                       dict(_save(folder, "in1.npy", grads), requires_grad=False)],
            "outputs": [_save(folder, "out0.npy", torch.stack(traj))]}
    _write(folder, meta)


def optimizer_cases():
    optimizer_case("optim_sgd_nesterov", torch.optim.SGD, {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01})
    optimizer_case("optim_adam_amsgrad", torch.optim.Adam, {"lr": 0.01, "amsgrad": True})
    optimizer_case("optim_adamw_default", torch.optim.AdamW, {})
    optimizer_case("optim_rmsprop_centered_momentum", torch.optim.RMSprop, {"lr": 0.01, "centered": True, "momentum": 0.5})
    optimizer_case("optim_adagrad_lr_decay", torch.optim.Adagrad, {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1})


# ---- clamp_min / clamp_max ----
def clamp_cases():
    x = torch.tensor([-1.5, -0.2, 0.0, 0.2, 0.7, 2.0], dtype=torch.float64)
    case("clamp_min_scalar", "torch.clamp_min", lambda x: torch.clamp_min(x, 0.2), [x], args={"min": 0.2},
         note="x == min takes the gradient (bounds included)")
    t = torch.tensor([0.0, 0.0, 0.5, 0.2, 0.5, 1.0], dtype=torch.float64)
    case("clamp_max_tensor", "torch.clamp_max", lambda x, m: torch.clamp_max(x, m), [x, t])
    case("clamp_max_method", "Tensor.clamp_max", lambda x: x.clamp_max(0.5), [x.float()], args={"max": 0.5})
    case("clamp_min_null_max_tensor", "torch.clamp", lambda x, m: torch.clamp(x, min=None, max=m), [x, t],
         args={"min": None}, note="min=None is null in args: the max tensor is in1")


# ---- strided inputs ----
def strided_cases():
    base = rnd(3, 4)   # in0 = base.permute(1, 0): a [4, 3] view with strides (1, 4)
    perm = (base, lambda b: b.permute(1, 0), {"permute": [1, 0]})
    case("strided_permute_mul", "torch.mul", lambda a, b: torch.mul(a, b), [base.t(), rnd(4, 3)], strided={0: perm})
    case("strided_as_strided_op_on_view", "torch.as_strided",
         lambda a: torch.as_strided(a, (2, 2), (1, 4), 1), [base.t()], strided={0: perm},
         args={"size": [2, 2], "stride": [1, 4], "storage_offset": 1},
         note="as_strided reads the storage: a contiguous copy of in0 gives other values")
    b2 = rnd(3, 6)
    case("strided_slice_exp", "torch.exp", torch.exp, [b2[:, ::2]],
         strided={0: (b2, lambda b: b[:, ::2], {"slice": [1, 0, None, 2]})})
    b4 = rnd(3, 1)
    case("strided_expand_grad", "torch.mul", torch.mul, [b4.expand(3, 4), rnd(3, 4)],
         strided={0: (b4, lambda b: b.expand(3, 4), {"expand": [3, 4]})},
         note="a stride-0 view that requires grad: its gradient has the view's shape")
    b5 = rnd(4, 5)
    case("strided_transpose_narrow", "torch.tanh", torch.tanh, [b5.t().narrow(0, 1, 3)],
         strided={0: (b5, lambda b: b.t().narrow(0, 1, 3), {"transpose": [0, 1], "narrow": [0, 1, 3]})})
    b6 = rnd(6)
    case("strided_unfold_view", "torch.sum", lambda a: torch.sum(a, dim=1), [b6.unfold(0, 3, 1)],
         strided={0: (b6, lambda b: b.unfold(0, 3, 1), {"unfold": [0, 3, 1]})}, args={"dim": 1},
         note="expected skip: the runner cannot build an unfold view")
    b3 = rnd(10)
    case("strided_as_strided_input_sum", "torch.sum", lambda a: torch.sum(a, dim=1), [b3.as_strided((3, 3), (1, 3), 1)],
         strided={0: (b3, lambda b: b.as_strided((3, 3), (1, 3), 1), {"size": [3, 3], "stride": [1, 3], "storage_offset": 1})},
         args={"dim": 1})


# ---- special values, dtypes, 0-d ----
def value_cases():
    x = torch.tensor([0.0, -1.0, 1.0, float("inf"), float("nan"), 2.0], dtype=torch.float64)
    case("special_log", "torch.log", torch.log, [x], requires_grad=[False], note="-inf, nan, 0, inf, nan, log 2")
    num = torch.tensor([1.0, -1.0, 0.0, 3.0], dtype=torch.float32)
    case("special_div_by_zero", "torch.div", torch.div, [num, torch.tensor([0.0, 0.0, 0.0, 2.0])],
         requires_grad=[False, False])
    case("int64_argmax", "torch.argmax", lambda a: torch.argmax(a, dim=1), [rnd(3, 5)], args={"dim": 1},
         requires_grad=[False])
    case("bool_gt", "torch.gt", torch.gt, [rnd(2, 3), rnd(2, 3)], requires_grad=[False, False])
    case("bool_logical_and", "torch.logical_and", torch.logical_and,
         [torch.tensor([True, False, True]), torch.tensor([True, True, False])])
    case("int8_add", "torch.add", torch.add, [torch.tensor([100, -100, 5], dtype=torch.int8),
                                              torch.tensor([27, -28, 3], dtype=torch.int8)], note="int8 wraps around")
    case("uint8_mul", "torch.mul", torch.mul, [torch.tensor([200, 3, 16], dtype=torch.uint8),
                                               torch.tensor([2, 5, 16], dtype=torch.uint8)])
    case("int32_sub", "torch.sub", torch.sub, [torch.tensor([[1, -7], [2**30, 0]], dtype=torch.int32),
                                               torch.tensor([[4, 3], [-5, 9]], dtype=torch.int32)])
    case("zero_dim_sum", "torch.sum", torch.sum, [rnd(2, 3, dtype=torch.float32)], note="a 0-d output with a 0-d gout")
    case("zero_dim_input_mul", "torch.mul", torch.mul, [rnd(3), torch.tensor(1.5, dtype=torch.float64)])


# ---- gradients ----
def grad_cases():
    case("grad_unreached_input_zeros", "torch.zeros_like", torch.zeros_like, [rnd(2, 3)], force_gout=True,
         note="in0 requires grad but does not reach the loss: grad_in0 is zeros")
    case("grad_max_dim_values_only", "torch.max", lambda a: torch.max(a, dim=1), [rnd(3, 4)], args={"dim": 1},
         note="values carry a gout, indices (int64) none")
    case("grad_requires_grad_false", "torch.addcmul", lambda a, b, c: torch.addcmul(a, b, c, value=0.5),
         [rnd(3), rnd(3), rnd(3)], args={"value": 0.5}, requires_grad=[True, False, True],
         note="in1 has requires_grad false: no grad_in1 file")
    case("minimal_case_json_tanh", "torch.tanh", torch.tanh, [rnd(2, 2)], minimal=True,
         note="case.json without inputs/outputs/grads lists: in0, out0, gout0, grad_in0 files only")


# ---- errors, skips, complex ----
def other_cases():
    case("error_mm_shapes", "torch.mm", torch.mm, [rnd(2, 3), rnd(4, 5)], expect_error=True)
    case("error_cross_entropy_weight_size", "torch.nn.functional.cross_entropy", lambda x, t, w: F.cross_entropy(x, t, w),
         [rnd(3, 4), torch.tensor([0, 1, 3]), torch.rand(3, dtype=torch.float64)], requires_grad=[False, False, False],
         expect_error=True)
    case("composite_softmax_nll", "composite:log_softmax_then_nll_loss",
         lambda x, t: F.nll_loss(torch.log_softmax(x, 1), t), [rnd(3, 4), torch.tensor([0, 1, 3])],
         note="expected skip: not a single PyTorch call")
    case("unknown_bessel_j0", "torch.special.bessel_j0", torch.special.bessel_j0, [rnd(4)], requires_grad=[False],
         note="expected skip: ctensor has no bessel_j0")
    z = torch.complex(rnd(3, dtype=torch.float32), rnd(3, dtype=torch.float32))
    case("complex_add_c8", "torch.add", torch.add, [z, z * 2], requires_grad=[False, False],
         note="expected skip: ctensor has no complex elementwise ops")
    a = torch.complex(rnd(3, 3), rnd(3, 3))
    case("complex_qr_normalization_c16", "torch.linalg.qr", _qr_normalized, [a], requires_grad=[False],
         extra={"normalization": {"out0": "columns of Q times the unit phase that makes diag(R) real and >= 0",
                                  "out1": "rows of R times the same phases"}},
         note="expected skip: ctensor's linalg takes no complex input")
    case("qr_normalization_f64", "torch.linalg.qr", _qr_normalized, [rnd(4, 3)], requires_grad=[False],
         extra={"normalization": {"out0": "columns of Q times the sign that makes diag(R) >= 0",
                                  "out1": "rows of R times the same signs"}})
    zc = torch.complex(rnd(2, 3), rnd(2, 3))
    case("complex_view_as_real_grad", "torch.view_as_real", torch.view_as_real, [zc],
         extra={"complex_grad": "PyTorch's .grad of a complex leaf: dL/dRe + i dL/dIm (conjugate Wirtinger)"})
    case("complex_view_as_complex_output", "torch.view_as_complex", torch.view_as_complex, [rnd(3, 2, dtype=torch.float32)],
         requires_grad=[False], note="a complex output (<c8), compared as complex numbers")


def _qr_normalized(A):
    """A = (Q D)(D^H R) with D = diag(phase of diag(R)): diag(D^H R) = |diag(R)|"""
    Q, R = torch.linalg.qr(A)
    d = torch.diagonal(R)
    ph = torch.where(d.abs() > 0, d / d.abs(), torch.ones_like(d))
    return Q * ph.unsqueeze(-2), R * ph.conj().unsqueeze(-1)


def build():
    if os.path.exists(ROOT):
        shutil.rmtree(ROOT)
    os.makedirs(ROOT)
    torch.set_num_threads(1)
    for f in (optional_cases, batch_norm_cases, module_cases, optimizer_cases, clamp_cases, strided_cases, value_cases, grad_cases,
              other_cases):
        f()
    return len(os.listdir(ROOT))


def generate(w):
    """gen_fixtures.py entry point (its family folder stays empty: the cases go to tests/fixtures/layout)."""
    w.count += build()


def check(runner):
    """runs the runner on the cases: no failure, and exactly EXPECTED_SKIPS skipped (with their reasons)"""
    p = subprocess.run([runner, ROOT], capture_output=True, text=True)
    lines = p.stdout.strip().split("\n")
    skipped, failed = {}, []
    for ln in lines[:-1]:
        kind, rest = ln.split(" ", 1)
        name = os.path.basename(rest.split(" ", 1)[0])
        (skipped.__setitem__(name, rest) if kind == "SKIP" else failed.append(ln))
    ok = not failed and p.returncode == 0 and set(skipped) == set(EXPECTED_SKIPS)
    ok = ok and all(EXPECTED_SKIPS[n] in skipped[n] for n in skipped)
    print("\n".join(lines))
    if not ok:
        print("check FAILED: expected skips %s" % sorted(EXPECTED_SKIPS))
        return 1
    print("check ok: %d skipped as expected, no failure" % len(skipped))
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2]))
    print("%d cases in %s" % (build(), ROOT))
