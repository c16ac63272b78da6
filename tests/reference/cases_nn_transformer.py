"""Attention and transformers (ctensor_nn.h section transformer-api).

Case layouts (handlers in tests/conformance/ops_nn_transformer.c). Every module
case keeps its weights as named arrays under state_dict names (the values are
PyTorch's initialization, then every parameter moved by 0.1 * randn, so zero
biases and unit LayerNorm weights do not hide a mistake). Tensor arguments are
inputs in the order of the forward's signature; an optional one left as None is
"name": null in args and takes no input (CONFORMANCE.md). Float masks are
inputs that take no gradient. Dropout is always 0 (deterministic cases).

Common args (repo extensions):
  "eval": true       module.eval() before the forward (training mode otherwise)
  "no_grad": true    the forward runs under torch.no_grad() (inputs take no grad)
  "weight_grads": [names]   outputs are out0 (the module's output), then the
                     gradients of sum(out0 * g_out) (g_out a named array) with
                     respect to the named parameters, in that order (no gout/grad
                     files in those cases)

nn.MultiheadAttention
  inputs   query, key, value, key_padding_mask, attn_mask
  args     embed_dim, num_heads, dropout, bias, add_bias_kv, add_zero_attn, kdim,
           vdim, batch_first (constructor); need_weights, average_attn_weights
           (forward); "self_attention": true: in0 alone is query, key and value
           (the same tensor, as PyTorch's fastpath requires)
  outputs  attn_output, then attn_weights when need_weights
nn.TransformerEncoderLayer
  inputs   src, src_mask, src_key_padding_mask
  args     d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
           batch_first, norm_first
nn.TransformerEncoder
  inputs   src, mask, src_key_padding_mask
  args     the encoder layer's constructor args, num_layers, "norm": true (a final
           nn.LayerNorm(d_model)), enable_nested_tensor, mask_check
nn.TransformerDecoderLayer
  inputs   tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
           memory_key_padding_mask
  args     as the encoder layer's
nn.TransformerDecoder   inputs as the layer's; args the layer's, num_layers, "norm"
nn.Transformer
  inputs   src, tgt, src_mask, tgt_mask, memory_mask, src_key_padding_mask,
           tgt_key_padding_mask, memory_key_padding_mask
  args     d_model, nhead, num_encoder_layers, num_decoder_layers, dim_feedforward,
           dropout, activation, layer_norm_eps, batch_first, norm_first
nn.Transformer.generate_square_subsequent_mask   no inputs; args sz; out0 the mask

PyTorch 1.13 takes its fastpath in the eval + no_grad cases (the notes say
which): the encoder layer's fused forward gives the regular path's values at
every position (checked here when the cases are written); the encoder's nested
path gives zeros at padded positions before the final norm (so the norm's bias
there after it), and trims the output to the longest sequence: each such case
has one sequence of full length, so the shapes agree with ctensor's (which keeps
the input's length).
"""
import zlib

import torch
import torch.nn as nn

FAM = "nn_transformer"
F32, F64 = torch.float32, torch.float64
TOL32 = dict(rtol=1e-4, atol=2e-5, grad_rtol=1e-3, grad_atol=1e-4)


def seed_case(name):
    """inputs of each case from a seed of its own (regenerating one case changes no other)"""
    torch.manual_seed(zlib.crc32(name.encode()))


def randn(*shape, dtype=F64):
    return torch.randn(*shape, dtype=torch.float64).to(dtype)


def tol(dtype):
    return TOL32 if dtype == F32 else {}


def perturb(m, dtype):
    """m.to(dtype), then every parameter moved by 0.1 * randn; returns its state_dict as named arrays"""
    m = m.to(dtype)
    with torch.no_grad():
        for p in m.parameters():
            p.add_(randn(*p.shape, dtype=dtype) * 0.1)
    return {k: v.detach().clone() for k, v in m.state_dict().items()}


def kpm_bool(lengths, S):
    """left-aligned key padding mask: True at padding"""
    return torch.tensor([[j >= n for j in range(S)] for n in lengths])


def kpm_float(lengths, S, dtype):
    m = torch.zeros(len(lengths), S, dtype=dtype)
    m.masked_fill_(kpm_bool(lengths, S), float("-inf"))
    return m


def float_mask(shape, dtype, allowed=None):
    """random additive mask; -inf where `allowed` (bool, same shape) is False"""
    m = randn(*shape, dtype=dtype) * 0.5
    if allowed is not None:
        m.masked_fill_(~allowed, float("-inf"))
    return m


def causal_bool(L, S=None):
    S = S or L
    return torch.ones(L, S).triu(1).bool()   # True: not allowed


def module_case(w, name, op, build, inputs, req, forward, args, dtype, eval_mode=False, no_grad=False,
                weight_grads=None, need_weights_out=False, note="", expect_error=False, check=None):
    """build() -> module (float32, PyTorch's init); forward(m, *inputs) -> output(s).
    req: requires_grad per input (masks False). weight_grads: parameter names."""
    args = dict(args)
    if eval_mode:
        args["eval"] = True
    if no_grad:
        args["no_grad"] = True
    named = None
    m = None
    if not expect_error:
        torch.manual_seed(zlib.crc32(name.encode()) ^ 0x5eed)
        m = build()
        named = perturb(m, dtype)
        if eval_mode:
            m.eval()
    g_out = None
    if weight_grads:
        args["weight_grads"] = list(weight_grads)

    def fn(*xs):
        mm = m if m is not None else build()
        if no_grad:
            with torch.no_grad():
                return forward(mm, *xs)
        out = forward(mm, *xs)
        if weight_grads:
            out0 = out[0] if isinstance(out, tuple) else out
            params = dict(mm.named_parameters())
            return (out0,) + tuple(torch.autograd.grad((out0 * g_out).sum(), [params[k] for k in weight_grads]))
        return out

    if weight_grads:
        # the output's shape from a trial run, then g_out
        with torch.no_grad():
            o = forward(m, *inputs)
        o = o[0] if isinstance(o, tuple) else o
        seed_case(name + "/g_out")
        g_out = randn(*o.shape, dtype=dtype)
        named = dict(named)
        named["g_out"] = g_out
    grad = not no_grad and not weight_grads and not expect_error
    if check is not None and m is not None:
        check(m, inputs)
    w.case(FAM, name, op, fn, inputs, args=args, grad=grad,
           requires_grad=[r and grad for r in req], named=named, note=note,
           expect_error=True if expect_error else None, **tol(dtype))


# ---------------------------------------------------------------------------
# nn.MultiheadAttention
MHA_PARAMS = ["in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]


def mha_case(w, name, dtype, E=8, H=2, L=4, S=5, N=2, batch_first=False, cross=False, kdim=None, vdim=None,
             bias=True, add_bias_kv=False, add_zero_attn=False, kpm=None, attn_mask=None, need_weights=True,
             average_attn_weights=True, unbatched=False, self_attention=False, eval_mode=False, no_grad=False,
             weight_grads=None, qshape=None, expect_error=False, note=""):
    """kpm / attn_mask: callables (N, L, S, dtype) -> tensor, or None"""
    seed_case(name)
    if not cross:
        S = L
    kd, vd = kdim or E, vdim or E

    def shp(T, D):
        if unbatched:
            return (T, D)
        return (N, T, D) if batch_first else (T, N, D)

    q = randn(*(qshape or shp(L, E)), dtype=dtype)
    if self_attention:
        ins, req = [q], [True]
    else:
        k = q.clone() if not cross else randn(*shp(S, kd), dtype=dtype)
        v = q.clone() if not cross else randn(*shp(S, vd), dtype=dtype)
        ins, req = [q, k, v], [True, True, True]
    # the masks' shapes count the keys PyTorch sees before bias_kv / zero_attn are appended
    kp = kpm(N, L, S, dtype) if kpm else None
    am = attn_mask(N, L, S, dtype) if attn_mask else None
    args = {"embed_dim": E, "num_heads": H, "dropout": 0.0, "bias": bias, "add_bias_kv": add_bias_kv,
            "add_zero_attn": add_zero_attn, "kdim": kdim, "vdim": vdim, "batch_first": batch_first,
            "need_weights": need_weights, "average_attn_weights": average_attn_weights}
    if self_attention:
        args["self_attention"] = True
    if kp is not None:
        ins.append(kp)
        req.append(False)
    else:
        args["key_padding_mask"] = None
    if am is not None:
        ins.append(am)
        req.append(False)
    else:
        args["attn_mask"] = None

    def build():
        return nn.MultiheadAttention(E, H, dropout=0.0, bias=bias, add_bias_kv=add_bias_kv,
                                     add_zero_attn=add_zero_attn, kdim=kdim, vdim=vdim, batch_first=batch_first)

    def forward(m, *xs):
        xs = list(xs)
        if self_attention:
            qq = kk = vv = xs.pop(0)
        else:
            qq, kk, vv = xs.pop(0), xs.pop(0), xs.pop(0)
        kpv = xs.pop(0) if kp is not None else None
        amv = xs.pop(0) if am is not None else None
        o, wts = m(qq, kk, vv, key_padding_mask=kpv, need_weights=need_weights, attn_mask=amv,
                   average_attn_weights=average_attn_weights)
        return (o, wts) if need_weights else o

    module_case(w, name, "nn.MultiheadAttention", build, ins, req, forward, args, dtype, eval_mode=eval_mode,
                no_grad=no_grad, weight_grads=weight_grads, expect_error=expect_error, note=note)


def kpm_b(lengths):
    return lambda N, L, S, dt: kpm_bool(lengths, S)


def kpm_f(lengths):
    return lambda N, L, S, dt: kpm_float(lengths, S, dt)


def am2_bool():   # 2-D bool: a few disallowed pairs, never a whole row
    def f(N, L, S, dt):
        m = torch.zeros(L, S, dtype=torch.bool)
        for i in range(L):
            m[i, (i + 1) % S] = True
        return m
    return f


def am2_float():
    def f(N, L, S, dt):
        allowed = torch.ones(L, S, dtype=torch.bool)
        allowed[0, S - 1] = False
        return float_mask((L, S), dt, allowed)
    return f


def am3_bool(H):
    def f(N, L, S, dt):
        g = torch.Generator().manual_seed(N * 100 + L * 10 + S)
        m = torch.rand(N * H, L, S, generator=g) < 0.3
        m[:, :, 0] = False   # every query keeps a key
        return m
    return f


def am3_float(H):
    def f(N, L, S, dt):
        allowed = torch.ones(N * H, L, S, dtype=torch.bool)
        allowed[:, 1, 2] = False
        return float_mask((N * H, L, S), dt, allowed)
    return f


def mha_cases(w):
    mha_case(w, "mha_self_f64", F64)
    mha_case(w, "mha_self_batch_first_f64", F64, batch_first=True)
    mha_case(w, "mha_self_same_tensor_f64", F64, batch_first=True, self_attention=True,
             note="one input for query, key and value: its gradient sums the three uses")
    mha_case(w, "mha_cross_f64", F64, L=3, S=5, cross=True)
    mha_case(w, "mha_cross_batch_first_4heads_f64", F64, E=16, H=4, L=4, S=6, N=3, cross=True, batch_first=True)
    mha_case(w, "mha_self_f32", F32, E=12, H=2, batch_first=True)
    mha_case(w, "mha_cross_f32", F32, E=16, H=4, L=3, S=6, cross=True)
    mha_case(w, "mha_unbatched_f64", F64, L=4, S=3, cross=True, unbatched=True)
    mha_case(w, "mha_unbatched_kpm_f64", F64, L=3, S=5, cross=True, unbatched=True,
             kpm=lambda N, L, S, dt: torch.tensor([False, False, True, False, True]))
    mha_case(w, "mha_kpm_bool_f64", F64, L=5, kpm=kpm_b([5, 3]))
    mha_case(w, "mha_kpm_float_f64", F64, L=5, kpm=kpm_f([2, 5]), batch_first=True)
    mha_case(w, "mha_kpm_float_finite_f64", F64, L=3, S=4, cross=True,
             kpm=lambda N, L, S, dt: randn(N, S, dtype=dt), note="a finite float key padding mask is added")
    mha_case(w, "mha_attn_mask_2d_bool_f64", F64, L=4, S=5, cross=True, attn_mask=am2_bool())
    mha_case(w, "mha_attn_mask_2d_float_f64", F64, L=4, S=5, cross=True, attn_mask=am2_float(), batch_first=True)
    mha_case(w, "mha_attn_mask_causal_f64", F64, L=5, attn_mask=lambda N, L, S, dt: causal_bool(L))
    mha_case(w, "mha_attn_mask_3d_bool_f64", F64, N=2, H=2, L=4, S=5, cross=True, attn_mask=am3_bool(2))
    mha_case(w, "mha_attn_mask_3d_float_f64", F64, N=3, E=16, H=4, L=4, S=3, cross=True, attn_mask=am3_float(4),
             batch_first=True)
    mha_case(w, "mha_both_masks_bool_f64", F64, L=5, kpm=kpm_b([5, 4]), attn_mask=lambda N, L, S, dt: causal_bool(L))
    mha_case(w, "mha_both_masks_float_attn_bool_kpm_f64", F64, L=4, S=5, cross=True, kpm=kpm_b([3, 5]),
             attn_mask=am2_float(), note="float attn_mask with a bool key_padding_mask (-inf at padding)")
    mha_case(w, "mha_both_masks_3d_f32", F32, N=2, H=2, L=4, S=4, kpm=kpm_b([4, 2]), attn_mask=am3_bool(2),
             batch_first=True)
    mha_case(w, "mha_no_weights_f64", F64, need_weights=False, kpm=kpm_b([4, 2]))
    mha_case(w, "mha_per_head_weights_f64", F64, E=12, H=4, average_attn_weights=False,
             cross=True, L=3, S=4)
    mha_case(w, "mha_per_head_weights_masks_f64", F64, average_attn_weights=False, kpm=kpm_b([4, 3]),
             attn_mask=am2_bool(), batch_first=True)
    mha_case(w, "mha_add_bias_kv_f64", F64, add_bias_kv=True)
    mha_case(w, "mha_add_bias_kv_masks_f64", F64, add_bias_kv=True, kpm=kpm_b([4, 2]), attn_mask=am2_bool(),
             note="the masks are padded by one allowed key for bias_k / bias_v")
    mha_case(w, "mha_add_zero_attn_f64", F64, add_zero_attn=True, cross=True, L=3, S=4)
    mha_case(w, "mha_add_zero_attn_masks_f64", F64, add_zero_attn=True, kpm=kpm_b([2, 4]), attn_mask=am2_float(),
             batch_first=True)
    mha_case(w, "mha_bias_kv_zero_attn_f64", F64, add_bias_kv=True, add_zero_attn=True, kpm=kpm_b([4, 3]))
    mha_case(w, "mha_kdim_vdim_f64", F64, cross=True, kdim=5, vdim=3, L=3, S=4)
    mha_case(w, "mha_kdim_vdim_batch_first_masks_f64", F64, cross=True, kdim=6, vdim=4, L=4, S=5, batch_first=True,
             kpm=kpm_b([5, 2]), attn_mask=am2_bool())
    mha_case(w, "mha_no_bias_f64", F64, bias=False)
    mha_case(w, "mha_no_bias_kdim_f32", F32, bias=False, cross=True, kdim=4, vdim=6, E=12, H=2, L=3, S=5)
    mha_case(w, "mha_all_masked_row_nan_f64", F64, L=3, S=3, cross=True,
             attn_mask=lambda N, L, S, dt: torch.tensor([[False, False, False], [True, True, True],
                                                         [False, True, False]]),
             weight_grads=None, no_grad=True,
             note="a query whose keys are all masked gives NaN (output and weights), as in PyTorch")
    # parameter gradients
    mha_case(w, "mha_weight_grads_f64", F64, cross=True, L=3, S=4, kpm=kpm_b([4, 2]), weight_grads=MHA_PARAMS)
    mha_case(w, "mha_weight_grads_bias_kv_f64", F64, add_bias_kv=True, attn_mask=am2_float(),
             weight_grads=["in_proj_weight", "in_proj_bias", "bias_k", "bias_v", "out_proj.weight", "out_proj.bias"])
    mha_case(w, "mha_weight_grads_kdim_f64", F64, cross=True, kdim=5, vdim=3, L=3, S=4, batch_first=True,
             weight_grads=["q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias", "out_proj.weight"])
    # eval / no_grad: PyTorch 1.13's MHA fastpath (self-attention, batch_first, no attn_mask, even heads)
    mha_case(w, "mha_fastpath_eval_nograd_f32", F32, E=16, H=4, L=5, N=3, batch_first=True, self_attention=True,
             need_weights=False, eval_mode=True, no_grad=True, note="PyTorch takes its MHA fastpath here")
    mha_case(w, "mha_fastpath_eval_nograd_kpm_f64", F64, L=5, N=3, batch_first=True, self_attention=True,
             need_weights=False, eval_mode=True, no_grad=True, kpm=kpm_b([5, 3, 1]),
             note="PyTorch takes its MHA fastpath here (key padding mask)")
    mha_case(w, "mha_eval_nograd_weights_f64", F64, L=4, batch_first=True, eval_mode=True, no_grad=True,
             kpm=kpm_b([4, 2]), note="need_weights: the regular path in PyTorch")
    # bad input
    mha_case(w, "mha_error_embed_dim_heads", F32, E=10, H=3, expect_error=True)
    mha_case(w, "mha_error_attn_mask_2d_shape", F32, L=4, S=5, cross=True, expect_error=True,
             attn_mask=lambda N, L, S, dt: torch.zeros(L, S - 1, dtype=torch.bool))
    mha_case(w, "mha_error_attn_mask_3d_shape", F32, L=4, S=5, cross=True, expect_error=True,
             attn_mask=lambda N, L, S, dt: torch.zeros(N, L, S, dtype=torch.bool))
    mha_case(w, "mha_error_attn_mask_4d", F32, L=4, expect_error=True,
             attn_mask=lambda N, L, S, dt: torch.zeros(1, 1, L, S, dtype=torch.bool))
    mha_case(w, "mha_error_kpm_shape", F32, L=4, S=5, cross=True, expect_error=True,
             kpm=lambda N, L, S, dt: torch.zeros(N, S - 1, dtype=torch.bool))
    mha_case(w, "mha_error_attn_mask_int64", F32, L=4, expect_error=True,
             attn_mask=lambda N, L, S, dt: torch.zeros(L, S, dtype=torch.int64))
    mha_case(w, "mha_error_kpm_int64", F32, L=4, expect_error=True,
             kpm=lambda N, L, S, dt: torch.zeros(N, S, dtype=torch.int64))
    mha_case(w, "mha_error_query_4d", F32, qshape=(2, 4, 2, 8), L=4, S=4, cross=True, expect_error=True)
    mha_case(w, "mha_error_embed_dim_mismatch", F32, qshape=(4, 2, 6), expect_error=True)


# ---------------------------------------------------------------------------
# encoder / decoder layers and stacks
def layer_args(d, h, ff, act, eps, bf, nf):
    return {"d_model": d, "nhead": h, "dim_feedforward": ff, "dropout": 0.0, "activation": act,
            "layer_norm_eps": eps, "batch_first": bf, "norm_first": nf}


def seq_shape(N, T, d, bf, unbatched=False):
    if unbatched:
        return (T, d)
    return (N, T, d) if bf else (T, N, d)


def enc_layer_case(w, name, dtype, d=8, h=2, ff=16, N=2, S=5, act="relu", eps=1e-5, bf=False, nf=False,
                   src_mask=None, kpm=None, eval_mode=False, no_grad=False, weight_grads=None, unbatched=False,
                   expect_error=False, note="", xshape=None):
    seed_case(name)
    x = randn(*(xshape or seq_shape(N, S, d, bf, unbatched)), dtype=dtype)
    ins, req = [x], [True]
    args = layer_args(d, h, ff, act, eps, bf, nf)
    sm = src_mask(N, S, dtype) if src_mask else None
    kp = kpm(N, S, dtype) if kpm else None
    for key, t in (("src_mask", sm), ("src_key_padding_mask", kp)):
        if t is None:
            args[key] = None
        else:
            ins.append(t)
            req.append(False)

    def build():
        return nn.TransformerEncoderLayer(d, h, ff, dropout=0.0, activation=act, layer_norm_eps=eps, batch_first=bf,
                                          norm_first=nf)

    def forward(m, *xs):
        xs = list(xs)
        src = xs.pop(0)
        smv = xs.pop(0) if sm is not None else None
        kpv = xs.pop(0) if kp is not None else None
        return m(src, src_mask=smv, src_key_padding_mask=kpv)

    def check(m, inputs):
        # PyTorch's fused layer (eval + no_grad) gives the regular path's values at every position
        if not (eval_mode and no_grad):
            return
        with torch.no_grad():
            fast = forward(m, *inputs)
        reg = forward(m, *inputs).detach()
        assert torch.allclose(fast, reg, rtol=1e-5, atol=1e-5, equal_nan=True), (name, (fast - reg).abs().max())

    module_case(w, name, "nn.TransformerEncoderLayer", build, ins, req, forward, args, dtype, eval_mode=eval_mode,
                no_grad=no_grad, weight_grads=weight_grads, expect_error=expect_error, note=note, check=check)


def enc_case(w, name, dtype, d=8, h=2, ff=16, N=3, S=5, layers=2, act="relu", eps=1e-5, bf=True, nf=False,
             norm=True, mask=None, kpm=None, eval_mode=False, no_grad=False, weight_grads=None,
             enable_nested_tensor=True, note=""):
    seed_case(name)
    x = randn(*seq_shape(N, S, d, bf), dtype=dtype)
    ins, req = [x], [True]
    args = layer_args(d, h, ff, act, eps, bf, nf)
    args.update({"num_layers": layers, "norm": norm, "enable_nested_tensor": enable_nested_tensor})
    mk = mask(N, S, dtype) if mask else None
    kp = kpm(N, S, dtype) if kpm else None
    for key, t in (("mask", mk), ("src_key_padding_mask", kp)):
        if t is None:
            args[key] = None
        else:
            ins.append(t)
            req.append(False)

    def build():
        layer = nn.TransformerEncoderLayer(d, h, ff, dropout=0.0, activation=act, layer_norm_eps=eps,
                                           batch_first=bf, norm_first=nf)
        return nn.TransformerEncoder(layer, layers, norm=nn.LayerNorm(d) if norm else None,
                                     enable_nested_tensor=enable_nested_tensor)

    def forward(m, *xs):
        xs = list(xs)
        src = xs.pop(0)
        mkv = xs.pop(0) if mk is not None else None
        kpv = xs.pop(0) if kp is not None else None
        return m(src, mask=mkv, src_key_padding_mask=kpv)

    def check(m, inputs):
        if not (eval_mode and no_grad):
            return
        with torch.no_grad():
            fast = forward(m, *inputs)
        assert fast.shape == inputs[0].shape, (name, "PyTorch trimmed the nested output", fast.shape)

    module_case(w, name, "nn.TransformerEncoder", build, ins, req, forward, args, dtype, eval_mode=eval_mode,
                no_grad=no_grad, weight_grads=weight_grads, note=note, check=check)


def dec_inputs(name, dtype, d, N, T, S, bf, tgt_mask, memory_mask, tkpm, mkpm, names):
    seed_case(name)
    tgt = randn(*seq_shape(N, T, d, bf), dtype=dtype)
    mem = randn(*seq_shape(N, S, d, bf), dtype=dtype)
    ins, req, args = [tgt, mem], [True, True], {}
    masks = [tgt_mask(N, T, T, dtype) if tgt_mask else None, memory_mask(N, T, S, dtype) if memory_mask else None,
             tkpm(N, T, dtype) if tkpm else None, mkpm(N, S, dtype) if mkpm else None]
    for key, t in zip(names, masks):
        if t is None:
            args[key] = None
        else:
            ins.append(t)
            req.append(False)
    return ins, req, args, masks


DEC_MASKS = ["tgt_mask", "memory_mask", "tgt_key_padding_mask", "memory_key_padding_mask"]


def dec_forward(masks):
    def forward(m, *xs):
        xs = list(xs)
        tgt, mem = xs.pop(0), xs.pop(0)
        kw = {}
        for key, t in zip(DEC_MASKS, masks):
            kw[key] = xs.pop(0) if t is not None else None
        return m(tgt, mem, **kw)
    return forward


def dec_layer_case(w, name, dtype, d=8, h=2, ff=16, N=2, T=4, S=5, act="relu", eps=1e-5, bf=False, nf=False,
                   tgt_mask=None, memory_mask=None, tkpm=None, mkpm=None, layers=None, norm=False,
                   weight_grads=None, eval_mode=False, no_grad=False, note=""):
    ins, req, margs, masks = dec_inputs(name, dtype, d, N, T, S, bf, tgt_mask, memory_mask, tkpm, mkpm, DEC_MASKS)
    args = layer_args(d, h, ff, act, eps, bf, nf)
    if layers:
        args.update({"num_layers": layers, "norm": norm})
    args.update(margs)

    def build():
        layer = nn.TransformerDecoderLayer(d, h, ff, dropout=0.0, activation=act, layer_norm_eps=eps, batch_first=bf,
                                           norm_first=nf)
        if not layers:
            return layer
        return nn.TransformerDecoder(layer, layers, norm=nn.LayerNorm(d) if norm else None)

    module_case(w, name, "nn.TransformerDecoder" if layers else "nn.TransformerDecoderLayer", build, ins, req,
                dec_forward(masks), args, dtype, eval_mode=eval_mode, no_grad=no_grad, weight_grads=weight_grads,
                note=note)


def transformer_case(w, name, dtype, d=8, h=2, ff=16, enc=2, dec=2, N=2, S=5, T=4, act="relu", bf=False, nf=False,
                     src_mask=None, tgt_mask=None, memory_mask=None, skpm=None, tkpm=None, mkpm=None,
                     eval_mode=False, no_grad=False, note="", expect_error=False, tshape=None):
    seed_case(name)
    src = randn(*seq_shape(N, S, d, bf), dtype=dtype)
    tgt = randn(*(tshape or seq_shape(N, T, d, bf)), dtype=dtype)
    names = ["src_mask", "tgt_mask", "memory_mask", "src_key_padding_mask", "tgt_key_padding_mask",
             "memory_key_padding_mask"]
    masks = [src_mask(N, S, S, dtype) if src_mask else None, tgt_mask(N, T, T, dtype) if tgt_mask else None,
             memory_mask(N, T, S, dtype) if memory_mask else None, skpm(N, S, dtype) if skpm else None,
             tkpm(N, T, dtype) if tkpm else None, mkpm(N, S, dtype) if mkpm else None]
    ins, req = [src, tgt], [True, True]
    args = {"d_model": d, "nhead": h, "num_encoder_layers": enc, "num_decoder_layers": dec, "dim_feedforward": ff,
            "dropout": 0.0, "activation": act, "layer_norm_eps": 1e-5, "batch_first": bf, "norm_first": nf}
    for key, t in zip(names, masks):
        if t is None:
            args[key] = None
        else:
            ins.append(t)
            req.append(False)

    def build():
        return nn.Transformer(d, h, enc, dec, ff, dropout=0.0, activation=act, batch_first=bf, norm_first=nf)

    def forward(m, *xs):
        xs = list(xs)
        s, t = xs.pop(0), xs.pop(0)
        kw = {}
        for key, mk in zip(names, masks):
            kw[key] = xs.pop(0) if mk is not None else None
        return m(s, t, **kw)

    module_case(w, name, "nn.Transformer", build, ins, req, forward, args, dtype, eval_mode=eval_mode,
                no_grad=no_grad, note=note, expect_error=expect_error)


def lens_b(lengths):
    return lambda N, S, dt: kpm_bool(lengths, S)


def lens_f(lengths):
    return lambda N, S, dt: kpm_float(lengths, S, dt)


def causal_float():
    return lambda N, L, S, dt: nn.Transformer.generate_square_subsequent_mask(L).to(dt)


def square_mask_case(w, name, sz):
    w.case(FAM, name, "nn.Transformer.generate_square_subsequent_mask",
           lambda: nn.Transformer.generate_square_subsequent_mask(sz), [], args={"sz": sz}, grad=False)


def layer_cases(w):
    EL_P = ["self_attn.in_proj_weight", "self_attn.in_proj_bias", "linear1.weight", "linear2.bias",
            "norm1.weight", "norm2.bias"]
    # encoder layer, training mode (dropout 0), input gradients
    enc_layer_case(w, "enc_layer_relu_f64", F64)
    enc_layer_case(w, "enc_layer_gelu_batch_first_f64", F64, act="gelu", bf=True)
    enc_layer_case(w, "enc_layer_norm_first_f64", F64, nf=True)
    enc_layer_case(w, "enc_layer_norm_first_gelu_batch_first_f64", F64, nf=True, act="gelu", bf=True, d=16, h=4)
    enc_layer_case(w, "enc_layer_src_mask_f64", F64, src_mask=lambda N, S, dt: causal_bool(S))
    enc_layer_case(w, "enc_layer_src_mask_float_f64", F64, bf=True,
                   src_mask=lambda N, S, dt: nn.Transformer.generate_square_subsequent_mask(S).to(dt))
    enc_layer_case(w, "enc_layer_kpm_f64", F64, bf=True, kpm=lens_b([5, 3]))
    enc_layer_case(w, "enc_layer_kpm_float_norm_first_f64", F64, nf=True, kpm=lens_f([2, 5]))
    enc_layer_case(w, "enc_layer_both_masks_gelu_f64", F64, act="gelu", src_mask=lambda N, S, dt: causal_bool(S),
                   kpm=lens_b([4, 5]))
    enc_layer_case(w, "enc_layer_eps_f64", F64, eps=1e-3, N=3, S=3)
    enc_layer_case(w, "enc_layer_unbatched_f64", F64, unbatched=True, S=4)
    enc_layer_case(w, "enc_layer_f32", F32, d=16, h=4, N=3, S=6, bf=True, kpm=lens_b([6, 4, 2]))
    enc_layer_case(w, "enc_layer_norm_first_gelu_f32", F32, nf=True, act="gelu", src_mask=lambda N, S, dt: causal_bool(S))
    enc_layer_case(w, "enc_layer_weight_grads_f64", F64, bf=True, kpm=lens_b([5, 2]), weight_grads=EL_P)
    enc_layer_case(w, "enc_layer_weight_grads_norm_first_gelu_f64", F64, nf=True, act="gelu", weight_grads=EL_P)
    # eval + no_grad: PyTorch's fused layer (all positions equal the regular path's)
    fast = "PyTorch takes its fused encoder layer (torch._transformer_encoder_layer_fwd); it equals the regular path at every position"
    for nf in (False, True):
        for act in ("relu", "gelu"):
            tag = ("norm_first_" if nf else "") + act
            enc_layer_case(w, "enc_layer_fastpath_%s_f64" % tag, F64, bf=True, nf=nf, act=act, N=3,
                           kpm=lens_b([5, 3, 1]), eval_mode=True, no_grad=True, note=fast)
            enc_layer_case(w, "enc_layer_fastpath_%s_nomask_f32" % tag, F32, bf=True, nf=nf, act=act, d=16, h=4,
                           eval_mode=True, no_grad=True, note=fast)
    enc_layer_case(w, "enc_layer_fastpath_kpm_f32", F32, bf=True, d=16, h=4, N=3, S=6, kpm=lens_b([6, 2, 4]),
                   eval_mode=True, no_grad=True, note=fast)
    enc_layer_case(w, "enc_layer_fastpath_empty_row_f32", F32, bf=True, N=3, kpm=lens_b([5, 0, 2]), eval_mode=True,
                   no_grad=True, note=fast + "; a row that is all padding gives NaN there (its keys are all masked)")
    enc_layer_case(w, "enc_layer_eval_nograd_seq_first_f64", F64, bf=False, kpm=lens_b([5, 3]), eval_mode=True,
                   no_grad=True, note="batch_first False: the regular path in PyTorch")
    enc_layer_case(w, "enc_layer_eval_nograd_src_mask_f64", F64, bf=True, src_mask=lambda N, S, dt: causal_bool(S),
                   eval_mode=True, no_grad=True, note="src_mask: the regular path in PyTorch")
    enc_layer_case(w, "enc_layer_eval_odd_heads_f64", F64, d=9, h=3, bf=True, kpm=lens_b([5, 2]), eval_mode=True,
                   no_grad=True, note="an odd number of heads: the regular path in PyTorch")
    enc_layer_case(w, "enc_layer_error_d_model_nhead", F32, d=10, h=4, expect_error=True)
    enc_layer_case(w, "enc_layer_error_kpm_int64", F32, kpm=lambda N, S, dt: torch.zeros(N, S, dtype=torch.int64),
                   expect_error=True)
    enc_layer_case(w, "enc_layer_error_src_mask_shape", F32, src_mask=lambda N, S, dt: torch.zeros(S, S + 1).bool(),
                   expect_error=True)
    enc_layer_case(w, "enc_layer_error_width", F32, xshape=(5, 2, 6), expect_error=True)

    # encoder stacks
    nested = ("eval + no_grad + left-aligned key padding mask: PyTorch's nested path (outputs at padded positions "
              "are 0 before the final norm, its bias after; one sequence has full length, so PyTorch's output is "
              "not trimmed)")
    EN_P = ["layers.0.self_attn.in_proj_weight", "layers.1.linear1.bias", "layers.1.norm2.weight", "norm.weight",
            "norm.bias"]
    enc_case(w, "encoder_f64", F64, bf=False)
    enc_case(w, "encoder_kpm_batch_first_f64", F64, kpm=lens_b([5, 3, 4]))
    enc_case(w, "encoder_mask_gelu_norm_first_f64", F64, act="gelu", nf=True, mask=lambda N, S, dt: causal_bool(S))
    enc_case(w, "encoder_no_norm_f32", F32, norm=False, d=16, h=4, kpm=lens_b([5, 1, 3]))
    enc_case(w, "encoder_weight_grads_f64", F64, kpm=lens_b([5, 2, 3]), weight_grads=EN_P)
    for act in ("relu", "gelu"):
        enc_case(w, "encoder_nested_%s_f64" % act, F64, act=act, kpm=lens_b([5, 2, 3]), eval_mode=True,
                 no_grad=True, note=nested)
        enc_case(w, "encoder_nested_%s_f32" % act, F32, act=act, d=16, h=4, S=6, kpm=lens_b([3, 6, 1]),
                 eval_mode=True, no_grad=True, note=nested)
    enc_case(w, "encoder_nested_empty_row_f64", F64, kpm=lens_b([5, 0, 2]), eval_mode=True, no_grad=True,
             note=nested + "; a row that is all padding holds the norm's bias everywhere")
    enc_case(w, "encoder_nested_no_norm_f64", F64, norm=False, kpm=lens_b([4, 5, 1]), eval_mode=True, no_grad=True,
             note=nested + "; no final norm: exact zeros")
    enc_case(w, "encoder_nested_off_f64", F64, kpm=lens_b([5, 2, 3]), eval_mode=True, no_grad=True,
             enable_nested_tensor=False, note="enable_nested_tensor False: every layer's fused forward, no zeros")
    enc_case(w, "encoder_fastpath_nomask_f64", F64, eval_mode=True, no_grad=True,
             note="no key padding mask: every layer's fused forward, not nested")
    enc_case(w, "encoder_fastpath_nomask_gelu_f32", F32, act="gelu", d=16, h=4, eval_mode=True, no_grad=True,
             note="no key padding mask: every layer's fused forward, not nested")
    enc_case(w, "encoder_eval_norm_first_kpm_f64", F64, nf=True, kpm=lens_b([5, 3, 2]), eval_mode=True,
             no_grad=True, note="norm_first: not nested; every layer's fused forward (all positions regular)")
    enc_case(w, "encoder_eval_not_left_aligned_f64", F64,
             kpm=lambda N, S, dt: torch.tensor([[False] * S, [True, False, False, True, False],
                                                [False, False, True, True, True]]),
             eval_mode=True, no_grad=True,
             note="a mask that is not left-aligned: PyTorch's mask check refuses the nested path")

    # decoder layer, decoder
    sq = causal_float()
    dec_layer_case(w, "dec_layer_f64", F64)
    dec_layer_case(w, "dec_layer_masks_f64", F64, tgt_mask=sq, tkpm=lens_b([4, 3]), mkpm=lens_b([5, 2]))
    dec_layer_case(w, "dec_layer_norm_first_gelu_batch_first_f64", F64, nf=True, act="gelu", bf=True, tgt_mask=sq,
                   memory_mask=lambda N, L, S, dt: am2_bool()(N, L, S, dt))
    # (a float key padding mask only without an attn_mask: PyTorch 1.13 merges a float attn_mask with a float
    # key padding mask through masked_fill, which this build does not refuse and gets wrong)
    dec_layer_case(w, "dec_layer_float_masks_f64", F64, bf=True, tgt_mask=sq, memory_mask=am2_float(),
                   tkpm=lens_b([4, 2]))
    dec_layer_case(w, "dec_layer_float_kpm_f64", F64, tkpm=lens_f([4, 2]), mkpm=lens_f([3, 5]))
    dec_layer_case(w, "dec_layer_f32", F32, d=16, h=4, N=3, tgt_mask=sq, mkpm=lens_b([5, 1, 3]))
    dec_layer_case(w, "dec_layer_weight_grads_f64", F64, tgt_mask=sq,
                   weight_grads=["self_attn.in_proj_weight", "multihead_attn.in_proj_weight",
                                 "multihead_attn.out_proj.bias", "linear1.weight", "norm3.bias"])
    dec_layer_case(w, "dec_layer_eval_nograd_f64", F64, bf=True, tgt_mask=sq, mkpm=lens_b([5, 3]), eval_mode=True,
                   no_grad=True)
    dec_layer_case(w, "decoder_f64", F64, layers=2, norm=True, tgt_mask=sq, tkpm=lens_b([4, 2]), mkpm=lens_b([3, 5]))
    dec_layer_case(w, "decoder_no_norm_norm_first_f64", F64, layers=2, nf=True, bf=True, tgt_mask=sq)
    dec_layer_case(w, "decoder_gelu_f32", F32, layers=2, norm=True, act="gelu", d=16, h=4, tgt_mask=sq,
                   mkpm=lens_b([5, 4]))

    # nn.Transformer
    transformer_case(w, "transformer_f64", F64, tgt_mask=sq, skpm=lens_b([5, 3]), tkpm=lens_b([4, 2]),
                     mkpm=lens_b([5, 3]))
    transformer_case(w, "transformer_batch_first_norm_first_gelu_f64", F64, bf=True, nf=True, act="gelu",
                     enc=1, dec=2, tgt_mask=sq, src_mask=lambda N, L, S, dt: causal_bool(S),
                     memory_mask=am2_float())
    transformer_case(w, "transformer_f32", F32, d=16, h=4, N=3, enc=2, dec=1, bf=True, tgt_mask=sq,
                     skpm=lens_b([5, 2, 4]), mkpm=lens_b([5, 2, 4]))
    transformer_case(w, "transformer_eval_nograd_f64", F64, bf=True, N=3, tgt_mask=sq, skpm=lens_b([5, 2, 4]),
                     mkpm=lens_b([5, 2, 4]), eval_mode=True, no_grad=True,
                     note="the encoder takes PyTorch's nested path (memory is zero before the encoder's final norm "
                          "at padded source positions)")
    transformer_case(w, "transformer_error_batch", F32, tshape=(4, 3, 8), expect_error=True)
    square_mask_case(w, "square_subsequent_mask_4", 4)
    square_mask_case(w, "square_subsequent_mask_1", 1)


def generate(w):
    mha_cases(w)
    layer_cases(w)
