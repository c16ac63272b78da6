"""Normalization, dropout, embeddings, recurrent layers (ctensor section nn-norm).

Case layouts (handlers in tests/conformance/ops_nn_norm.c):

torch.nn.functional.batch_norm
  inputs   x, running_mean, running_var, weight, bias
  args     training, momentum, eps; "affine" / "running" false: weight/bias or the
           running stats are not passed (None)
  outputs  out0 y; out1, out2 running_mean, running_var after the call
torch.nn.functional.layer_norm   inputs x[, weight, bias]; args normalized_shape, eps
torch.nn.functional.group_norm   inputs x[, weight, bias]; args num_groups, eps
torch.nn.functional.dropout      inputs x; args p, training, seed (torch.manual_seed
                                 right before the call)
torch.nn.functional.embedding    inputs indices, weight; args padding_idx (absent: None)
torch.nn.functional.embedding_bag inputs input, weight[, offsets][, per_sample_weights];
                                 args mode, include_last_offset, has_offsets, has_psw
nn.BatchNorm2d                   inputs x1, x2 (two training forwards, then one eval
                                 forward of x2); args momentum (None allowed), affine;
                                 outputs y1, y2, y_eval, running_mean, running_var,
                                 num_batches_tracked
nn.LSTM / nn.GRU                 inputs x[, h0[, c0]]; args the constructor's keywords
                                 and "seed": torch.manual_seed(seed) right before
                                 construction (the weights come from the init);
                                 outputs output, h_n[, c_n]; with "weight_grads": output,
                                 then the gradients of sum(output * g_out) (named array)
                                 for every parameter in order (no gout/grad files)
"""
import zlib

import torch
import torch.nn as nn
import torch.nn.functional as F

FAM = "nn_norm"


def seed_case(name):
    """inputs of each case from a seed of its own (regenerating one case changes no other)"""
    torch.manual_seed(zlib.crc32(name.encode()))


def randn(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=torch.float64).to(dtype)


def bn_case(w, name, shape, dtype, training=True, momentum=0.1, eps=1e-5, affine=True, running=True, permute=None,
            expect_error=False):
    seed_case(name)
    C = shape[1]
    x = randn(*shape, dtype=dtype) * 2 + 0.5
    rm = randn(C, dtype=dtype) * 0.1
    rv = torch.rand(C, dtype=torch.float64).to(dtype) + 0.5
    wt = randn(C, dtype=dtype)
    b = randn(C, dtype=dtype)

    def fn(x, rm, rv, wt, b):
        rm2, rv2 = rm.clone(), rv.clone()
        y = F.batch_norm(x, rm2 if running else None, rv2 if running else None, wt if affine else None,
                         b if affine else None, training=training, momentum=momentum, eps=eps)
        return y, rm2, rv2

    perm = [permute, None, None, None, None] if permute else None
    w.case(FAM, name, "torch.nn.functional.batch_norm", fn, [x, rm, rv, wt, b],
           args={"training": training, "momentum": momentum, "eps": eps, "affine": affine, "running": running},
           requires_grad=[True, False, False, affine, affine], permute=perm,
           expect_error=True if expect_error else None)


def ln_case(w, name, shape, ns, dtype, affine=True, eps=1e-5, expect_error=False, wshape=None, permute=None):
    seed_case(name)
    x = randn(*shape, dtype=dtype) * 3 - 1
    ins = [x]
    if affine:
        ins += [randn(*(wshape or ns), dtype=dtype), randn(*(wshape or ns), dtype=dtype)]

    def fn(x, *wb):
        return F.layer_norm(x, ns, *wb, eps=eps)

    w.case(FAM, name, "torch.nn.functional.layer_norm", fn, ins, args={"normalized_shape": list(ns), "eps": eps},
           expect_error=True if expect_error else None,
           permute=[permute] + [None] * (len(ins) - 1) if permute else None)


def gn_case(w, name, shape, groups, dtype, affine=True, eps=1e-5, expect_error=False):
    seed_case(name)
    x = randn(*shape, dtype=dtype) + 1
    ins = [x]
    if affine:
        ins += [randn(shape[1], dtype=dtype), randn(shape[1], dtype=dtype)]

    def fn(x, *wb):
        return F.group_norm(x, groups, *wb, eps=eps)

    w.case(FAM, name, "torch.nn.functional.group_norm", fn, ins, args={"num_groups": groups, "eps": eps},
           expect_error=True if expect_error else None)


def dropout_case(w, name, shape, p, dtype, training=True, seed=0, expect_error=False, permute=None):
    seed_case(name)
    x = randn(*shape, dtype=dtype)

    def fn(x):
        torch.manual_seed(seed)
        return F.dropout(x, p, training)

    w.case(FAM, name, "torch.nn.functional.dropout", fn, [x], args={"p": p, "training": training, "seed": seed},
           expect_error=True if expect_error else None, permute=[permute] if permute else None)


def emb_case(w, name, idx, num, dim, dtype, padding_idx=None, expect_error=False):
    seed_case(name)
    wt = randn(num, dim, dtype=dtype)
    args = {} if padding_idx is None else {"padding_idx": padding_idx}

    def fn(i, wt):
        return F.embedding(i, wt, padding_idx=padding_idx)

    w.case(FAM, name, "torch.nn.functional.embedding", fn, [idx, wt], args=args,
           expect_error=True if expect_error else None)


def bag_case(w, name, inp, num, dim, dtype, offsets=None, mode="mean", psw=False, include_last_offset=False,
             expect_error=False):
    seed_case(name)
    wt = randn(num, dim, dtype=dtype)
    ins = [inp, wt]
    if offsets is not None:
        ins.append(offsets)
    if psw:
        ins.append(randn(*inp.shape, dtype=dtype))

    def fn(i, wt, *rest):
        rest = list(rest)
        off = rest.pop(0) if offsets is not None else None
        pw = rest.pop(0) if psw else None
        return F.embedding_bag(i, wt, off, mode=mode, per_sample_weights=pw, include_last_offset=include_last_offset)

    w.case(FAM, name, "torch.nn.functional.embedding_bag", fn, ins,
           args={"mode": mode, "include_last_offset": include_last_offset, "has_offsets": offsets is not None,
                 "has_psw": psw},
           expect_error=True if expect_error else None)


def bn_module_case(w, name, shape, dtype, momentum=0.1, affine=True):
    seed_case(name)
    x1 = randn(*shape, dtype=dtype) * 2 + 1
    x2 = randn(*shape, dtype=dtype) - 0.5

    def fn(x1, x2):
        torch.manual_seed(0)
        m = nn.BatchNorm2d(shape[1], momentum=momentum, affine=affine).to(dtype)
        y1 = m(x1)
        y2 = m(x2)
        m.eval()
        y3 = m(x2)
        return y1, y2, y3, m.running_mean.clone(), m.running_var.clone(), m.num_batches_tracked.clone()

    w.case(FAM, name, "nn.BatchNorm2d", fn, [x1, x2], args={"num_features": shape[1], "momentum": momentum,
                                                          "affine": affine})


def rnn_case(w, name, cls, dtype, T, B, I, H, layers=1, bidirectional=False, batch_first=False, bias=True,
             hidden=True, unbatched=False, seed=3, expect_error=False, xshape=None, weight_grads=False):
    seed_case(name)
    D = 2 if bidirectional else 1
    if xshape is not None:
        x = randn(*xshape, dtype=dtype)
    elif unbatched:
        x = randn(T, I, dtype=dtype)
    else:
        x = randn(B, T, I, dtype=dtype) if batch_first else randn(T, B, I, dtype=dtype)
    hs = (layers * D, H) if unbatched else (layers * D, B, H)
    ins = [x]
    if hidden:
        ins.append(randn(*hs, dtype=dtype) * 0.5)
        if cls is nn.LSTM:
            ins.append(randn(*hs, dtype=dtype) * 0.5)

    oshape = (B, T, D * H) if batch_first else (T, B, D * H)
    g_out = randn(*oshape, dtype=dtype) if weight_grads else None

    def fn(x, *h):
        torch.manual_seed(seed)
        m = cls(I, H, num_layers=layers, bias=bias, batch_first=batch_first, bidirectional=bidirectional).to(dtype)
        if cls is nn.LSTM:
            out, (hn, cn) = m(x, (h[0], h[1]) if h else None)
            res = [out, hn, cn]
        else:
            out, hn = m(x, h[0] if h else None)
            res = [out, hn]
        if weight_grads:   # output, then the gradients of sum(output * g_out) for every parameter
            res = [out] + list(torch.autograd.grad((out * g_out).sum(), list(m.parameters())))
        return tuple(res)

    w.case(FAM, name, "nn." + cls.__name__, fn, ins,
           args={"input_size": I, "hidden_size": H, "num_layers": layers, "bias": bias, "batch_first": batch_first,
                 "bidirectional": bidirectional, "seed": seed, "weight_grads": weight_grads},
           expect_error=True if expect_error else None, grad=not weight_grads,
           named={"g_out": g_out} if weight_grads else None)


def generate(w):
    f32, f64 = torch.float32, torch.float64
    # batch_norm
    bn_case(w, "bn2d_train_f32", (4, 3, 5, 5), f32)
    bn_case(w, "bn2d_train_f64", (3, 4, 3, 2), f64, momentum=0.3)
    bn_case(w, "bn2d_train_channels_last_f32", (4, 3, 5, 5), f32, permute=[0, 3, 1, 2])
    bn_case(w, "bn2d_eval_f32", (4, 3, 5, 5), f32, training=False)
    bn_case(w, "bn2d_eval_f64_noaffine", (2, 3, 2, 2), f64, training=False, affine=False)
    bn_case(w, "bn1d_train_f64", (6, 5), f64)
    bn_case(w, "bn1d_3d_train_f32", (4, 3, 7), f32, eps=1e-3)
    bn_case(w, "bn_train_norunning_noaffine_f64", (5, 2, 3), f64, running=False, affine=False)
    bn_case(w, "bn2d_train_channels_last_f64", (3, 4, 3, 2), f64, permute=[0, 3, 1, 2])
    bn_case(w, "bn_error_one_value", (1, 3), f32, expect_error=True)
    # layer_norm
    ln_case(w, "ln_last_f32", (4, 6, 16), (16,), f32)
    ln_case(w, "ln_two_dims_f64", (3, 4, 5), (4, 5), f64)
    ln_case(w, "ln_noaffine_f32", (5, 12), (12,), f32, affine=False, eps=1e-6)
    ln_case(w, "ln_all_dims_f64", (3, 4), (3, 4), f64)
    ln_case(w, "ln_permuted_f32", (4, 6, 16), (16,), f32, permute=[1, 0, 2])
    ln_case(w, "ln_error_shape", (4, 6), (5,), f32, expect_error=True)
    # group_norm
    gn_case(w, "gn_f32", (3, 6, 4, 4), 3, f32)
    gn_case(w, "gn_f64_1d", (2, 4, 5), 2, f64)
    gn_case(w, "gn_noaffine_f64", (2, 6, 3), 6, f64, affine=False)
    gn_case(w, "gn_error_groups", (2, 5, 3), 2, f32, expect_error=True)
    # dropout (PyTorch's mask for the seed)
    dropout_case(w, "dropout_f32", (8, 16), 0.3, f32, seed=1)
    dropout_case(w, "dropout_f64", (5, 7), 0.5, f64, seed=42)
    dropout_case(w, "dropout_permuted_f32", (6, 5), 0.25, f32, seed=5, permute=[1, 0])
    dropout_case(w, "dropout_eval", (4, 4), 0.5, f32, training=False)
    dropout_case(w, "dropout_p1", (3, 4), 1.0, f32)
    dropout_case(w, "dropout_p0", (3, 4), 0.0, f64)
    dropout_case(w, "dropout_error_p", (3,), 1.5, f32, expect_error=True)
    # embedding
    emb_case(w, "embedding_f32", torch.tensor([[1, 4, 2], [4, 0, 9]]), 10, 4, f32)
    emb_case(w, "embedding_padding_f64", torch.tensor([[1, 2, 2], [3, 2, 0]]), 5, 3, f64, padding_idx=2)
    emb_case(w, "embedding_negative_padding_f32", torch.tensor([0, 4, 4, 1]), 5, 2, f32, padding_idx=-1)
    emb_case(w, "embedding_error_range", torch.tensor([1, 7]), 5, 2, f32, expect_error=True)
    # embedding_bag
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
    off = torch.tensor([0, 4, 4, 6])
    bag_case(w, "bag_mean_f32", idx, 10, 3, f32, off, "mean")
    bag_case(w, "bag_sum_psw_f64", idx, 10, 3, f64, off, "sum", psw=True)
    bag_case(w, "bag_max_f64", idx, 10, 3, f64, off, "max")
    bag_case(w, "bag_sum_last_offset_f32", idx, 10, 3, f32, torch.tensor([0, 3, 5, 8]), "sum", include_last_offset=True)
    bag_case(w, "bag_2d_mean_f64", torch.tensor([[1, 2, 3], [4, 4, 0]]), 6, 2, f64, None, "mean")
    bag_case(w, "bag_error_psw_mean", idx, 10, 3, f32, off, "mean", psw=True, expect_error=True)
    # modules
    bn_module_case(w, "BatchNorm2d_two_steps_f32", (4, 3, 3, 3), f32)
    bn_module_case(w, "BatchNorm2d_cumulative_f64", (3, 2, 2, 2), f64, momentum=None)
    rnn_case(w, "lstm_f64", nn.LSTM, f64, 5, 3, 4, 6)
    rnn_case(w, "lstm_2layer_bidir_batch_first_f64", nn.LSTM, f64, 4, 2, 3, 5, layers=2, bidirectional=True,
             batch_first=True)
    rnn_case(w, "lstm_nobias_nohidden_f32", nn.LSTM, f32, 6, 2, 3, 4, bias=False, hidden=False)
    rnn_case(w, "lstm_unbatched_f64", nn.LSTM, f64, 4, 1, 3, 2, unbatched=True)
    rnn_case(w, "gru_f64", nn.GRU, f64, 5, 3, 4, 6)
    rnn_case(w, "gru_2layer_bidir_f32", nn.GRU, f32, 4, 2, 3, 5, layers=2, bidirectional=True)
    rnn_case(w, "gru_batch_first_nohidden_f64", nn.GRU, f64, 3, 2, 4, 3, batch_first=True, hidden=False)
    # (at most 7 parameters: the runner compares 8 outputs)
    rnn_case(w, "lstm_weight_grads_f64", nn.LSTM, f64, 4, 2, 3, 4, weight_grads=True)
    rnn_case(w, "lstm_weight_grads_2layer_nobias_f64", nn.LSTM, f64, 4, 2, 3, 4, layers=2, bias=False, weight_grads=True)
    rnn_case(w, "gru_weight_grads_bidir_nobias_batch_first_f64", nn.GRU, f64, 3, 2, 3, 4, batch_first=True,
             bidirectional=True, bias=False, weight_grads=True)
    rnn_case(w, "lstm_error_input_size", nn.LSTM, f32, 3, 2, 4, 3, xshape=(3, 2, 5), expect_error=True)
    max_norm_cases(w)


def max_norm_cases(w):
    """max_norm: F.embedding / F.embedding_bag renormalize the named rows of the weight in
    place first (torch.embedding_renorm_); weight_renormed.npy is the weight after the call"""
    f32_, f64_ = torch.float32, torch.float64

    def case(name, op, idx, num, dim, dtype, max_norm, norm_type=2.0, bag=False, expect_error=False):
        seed_case(name)
        wt = randn(num, dim, dtype=dtype) * 2

        def fn(i, wt):
            if bag:
                return F.embedding_bag(i, wt, max_norm=max_norm, norm_type=norm_type, mode="sum")
            return F.embedding(i, wt, max_norm=max_norm, norm_type=norm_type)
        named = None
        if not expect_error:
            after = wt.clone()
            fn(idx, after)
            named = {"weight_renormed": after}
        args = {"max_norm": max_norm, "norm_type": norm_type}
        if bag:
            args.update({"mode": "sum", "include_last_offset": False, "has_offsets": False, "has_psw": False})
        w.case(FAM, name, op, fn, [idx, wt], args=args, named=named, expect_error=True if expect_error else None)
    E, B = "torch.nn.functional.embedding", "torch.nn.functional.embedding_bag"
    case("embedding_max_norm_f32", E, torch.tensor([[1, 4, 2], [4, 0, 4]]), 6, 4, f32_, 1.0)
    case("embedding_max_norm_p1_f64", E, torch.tensor([3, 0, 3, 1]), 5, 3, f64_, 1.5, norm_type=1.0)
    case("embedding_max_norm_large_f64", E, torch.tensor([2, 1]), 4, 3, f64_, 100.0)
    case("embedding_max_norm_int32_idx_f32", E, torch.tensor([0, 2, 2], dtype=torch.int32), 3, 5, f32_, 0.5)
    case("embedding_bag_max_norm_f32", B, torch.tensor([[0, 2, 1], [3, 3, 1]]), 4, 3, f32_, 1.2, bag=True)
    case("embedding_max_norm_error_range", E, torch.tensor([1, 7]), 5, 2, f32_, 1.0, expect_error=True)
    scale_grad_by_freq_cases(w)


def scale_grad_by_freq_cases(w):
    """scale_grad_by_freq: each row's gradient divided by how often the batch reads it"""
    def case(name, idx, num, dim, dtype, padding_idx=None):
        seed_case(name)
        wt = randn(num, dim, dtype=dtype)
        args = {"scale_grad_by_freq": True}
        if padding_idx is not None:
            args["padding_idx"] = padding_idx

        def fn(i, wt):
            return F.embedding(i, wt, padding_idx=padding_idx, scale_grad_by_freq=True)
        w.case(FAM, name, "torch.nn.functional.embedding", fn, [idx, wt], args=args)
    case("embedding_scale_grad_by_freq_f64", torch.tensor([[1, 4, 1], [4, 1, 0]]), 6, 3, torch.float64)
    case("embedding_scale_grad_by_freq_padding_f32", torch.tensor([2, 2, 3, 0, 2]), 4, 2, torch.float32, padding_idx=0)
