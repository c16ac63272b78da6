#!/usr/bin/python3
"""Fixtures of ctensor_quant.h's observer and fake-quantization tests
(tests/quant/test_quant_observer.h), made with PyTorch 1.13 (Debian's python3-torch):

    /usr/bin/python3 tests/reference/quant_fixtures_observer.py

Writes tests/fixtures/quant/obs_*.npy. Each observer case is one row of CASES
below; the C test holds the same table (same order, same names)."""
import os
import warnings

import numpy as np
import torch
from torch.ao.quantization import observer as O
from torch.ao.quantization import fake_quantize as F
from torch.ao.quantization import qconfig as Q

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "quant")


def save(name, t):
    a = t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)
    np.save(os.path.join(OUT, "obs_" + name + ".npy"), np.ascontiguousarray(a))


def fake_quant_fixtures(g):
    # per tensor: exact ties at scale 0.5 (x * 2 = k + 0.5), clamped elements, random values
    ties = torch.arange(-300, 301, dtype=torch.float32) * 0.25
    xr = torch.randn(200, generator=g) * 20
    x = torch.cat([ties, xr, torch.tensor([0.0, -0.0, 1e9, -1e9])])
    save("fq_x", x)
    gout = torch.randn(x.shape, generator=g)
    save("fq_g", gout)
    for k, (scale, zp, qmin, qmax) in enumerate([(0.5, 3, -128, 127), (0.1, 128, 0, 255), (0.37, 0, 0, 15),
                                                 (1e-3, -5, -1000, 1000),
                                                 (1e-3, 7, -2**31, 2**31 - 1)]):
        xx = x.clone().requires_grad_(True)
        y = torch.fake_quantize_per_tensor_affine(xx, scale, zp, qmin, qmax)
        y.backward(gout)
        save("fq_pt%d_y" % k, y)
        save("fq_pt%d_gx" % k, xx.grad)
    # float64 input
    xd = x.double().requires_grad_(True)
    y = torch.fake_quantize_per_tensor_affine(xd, 0.1, 128, 0, 255)
    y.backward(gout.double())
    save("fq_ptd_y", y)
    save("fq_ptd_gx", xd.grad)
    # per channel along each axis of a 3-D tensor
    x3 = torch.randn(3, 4, 5, generator=g) * 3
    x3.view(-1)[:8] = torch.tensor([0.25, 0.75, -1.25, 2.5, 100.0, -100.0, 0.0, 1.75])
    save("fq_pc_x", x3)
    g3 = torch.randn(3, 4, 5, generator=g)
    save("fq_pc_g", g3)
    for axis in range(3):
        n = x3.shape[axis]
        scale = (torch.rand(n, generator=g) * 0.2 + 0.05)
        scale[0] = 0.5
        zp = torch.randint(-20, 20, (n,), generator=g, dtype=torch.int32)
        save("fq_pc%d_scale" % axis, scale)
        save("fq_pc%d_zp" % axis, zp)
        xx = x3.clone().requires_grad_(True)
        y = torch.fake_quantize_per_channel_affine(xx, scale, zp, axis, -30, 30)
        y.backward(g3)
        save("fq_pc%d_y" % axis, y)
        save("fq_pc%d_gx" % axis, xx.grad)
    # NaN, infinities and values beyond int64 (PyTorch's casts on x86), float32 and float64
    sx = torch.tensor([[float("nan"), float("inf"), -float("inf"), 1e30, -1e30, 3e18, 1e19, 10.0]])
    save("fq_sp_x", sx)
    for tag, dt in (("f", torch.float32), ("d", torch.float64)):
        xx = sx.to(dt).clone().requires_grad_(True)
        y = torch.fake_quantize_per_tensor_affine(xx, 0.5, 3, -128, 127)
        y.backward(torch.ones_like(y))
        save("fq_sp%s_y" % tag, y)
        save("fq_sp%s_gx" % tag, xx.grad)
        y = torch.fake_quantize_per_channel_affine(sx.to(dt), torch.tensor([0.5]), torch.tensor([3], dtype=torch.int32), 0, -128, 127)
        save("fq_sp%s_pcy" % tag, y)
    # float zero points (per_channel_affine_float_qparams), float32 and float64 inputs
    zf = torch.tensor([3.3, -2.5, 10.75, 0.5])
    sf = torch.tensor([0.5, 0.1, 0.37, 0.25])
    save("fq_pcf_scale", sf)
    save("fq_pcf_zp", zf)
    for tag, dt in (("f", torch.float32), ("d", torch.float64)):
        xx = x3.to(dt).clone().requires_grad_(True)
        y = torch.fake_quantize_per_channel_affine(xx, sf, zf, 1, 0, 20)
        y.backward(g3.to(dt))
        save("fq_pcf%s_y" % tag, y)
        save("fq_pcf%s_gx" % tag, xx.grad)


# (name, observer class, kwargs, inputs key)
QI8, QU8 = torch.qint8, torch.quint8
PTA, PTS = torch.per_tensor_affine, torch.per_tensor_symmetric
PCA, PCS, PCF = torch.per_channel_affine, torch.per_channel_symmetric, torch.per_channel_affine_float_qparams
CASES = [
    ("mm_post", O.MinMaxObserver, {}, "post"),
    ("ma_post", O.MovingAverageMinMaxObserver, {}, "post"),
    ("hist_post", O.HistogramObserver, {}, "post"),
    ("masym_post", O.MovingAverageMinMaxObserver, {"qscheme": PTS}, "post"),
    ("mapc_post", O.MovingAveragePerChannelMinMaxObserver, {}, "post"),
    ("mm_sym_i8", O.MinMaxObserver, {"dtype": QI8, "qscheme": PTS}, "three"),
    ("mm_rr_u8", O.MinMaxObserver, {"reduce_range": True}, "three"),
    ("mm_rr_i8", O.MinMaxObserver, {"dtype": QI8, "reduce_range": True}, "three"),
    ("mm_q015", O.MinMaxObserver, {"quant_min": 0, "quant_max": 15}, "three"),
    ("mm_symq", O.MinMaxObserver, {"qscheme": PTS, "quant_min": 0, "quant_max": 100}, "three"),
    ("mm_pos", O.MinMaxObserver, {}, "pos"),
    ("mm_tiny", O.MinMaxObserver, {"dtype": QI8}, "tiny"),
    ("ma_i8_rr", O.MovingAverageMinMaxObserver, {"dtype": QI8, "reduce_range": True, "averaging_constant": 0.25}, "three"),
    ("pc_a1", O.PerChannelMinMaxObserver, {"ch_axis": 1}, "three"),
    ("pc_a2_sym", O.PerChannelMinMaxObserver, {"ch_axis": 2, "dtype": QI8, "qscheme": PCS}, "three"),
    ("pc_a0_rr", O.PerChannelMinMaxObserver, {"reduce_range": True}, "three"),
    ("pc_float", O.PerChannelMinMaxObserver, {"qscheme": PCF}, "three"),
    ("mapc_a1", O.MovingAveragePerChannelMinMaxObserver, {"ch_axis": 1, "averaging_constant": 0.5}, "three"),
    ("mapc_neg", O.MovingAveragePerChannelMinMaxObserver, {"ch_axis": -1, "dtype": QI8, "qscheme": PCS}, "three"),
    ("hist_three", O.HistogramObserver, {}, "three"),
    ("hist_rr", O.HistogramObserver, {"reduce_range": True}, "wide"),
    ("hist_sym", O.HistogramObserver, {"qscheme": PTS, "dtype": QI8}, "wide"),
    ("hist_wide", O.HistogramObserver, {}, "wide"),
    ("hist_small", O.HistogramObserver, {"bins": 256, "upsample_rate": 16}, "wide"),
    ("hist_unit", O.HistogramObserver, {}, "unit"),
    ("hist_pos", O.HistogramObserver, {"quant_min": 0, "quant_max": 127}, "pos"),
    ("hist_const", O.HistogramObserver, {}, "const"),
    ("hist_shrink", O.HistogramObserver, {}, "shrink"),
    # the default qconfigs' observers (torch.ao.quantization.get_default_qconfig)
    ("qc_x86_act", Q.get_default_qconfig("x86").activation, {}, "wide"),
    ("qc_x86_w", Q.get_default_qconfig("x86").weight, {}, "three"),
    ("qc_arm_act", Q.get_default_qconfig("qnnpack").activation, {}, "wide"),
    ("qc_arm_w", Q.get_default_qconfig("qnnpack").weight, {}, "three"),
    ("qc_def_act", Q.default_qconfig.activation, {}, "three"),
    ("qc_dyn_w", Q.default_dynamic_qconfig.weight, {}, "three"),
]


def fake_quant_module_fixtures(ins):
    """FakeQuantize modules over the "three" inputs: outputs, input gradients, qparams;
    "toggle" disables the observer after step 0 and fake quantization after step 1."""
    g = torch.Generator().manual_seed(5)
    cases = [
        ("fqm_act", F.FakeQuantize.with_args(observer=O.MovingAverageMinMaxObserver, quant_min=0, quant_max=255,
                                             reduce_range=True)),
        ("fqm_wpc", F.default_per_channel_weight_fake_quant),
        ("fqm_toggle", F.default_fake_quant),
        ("qat_x86_act", Q.get_default_qat_qconfig("x86", version=0).activation),
        ("qat_x86_w", Q.get_default_qat_qconfig("x86", version=0).weight),
        ("qat_arm_w", Q.get_default_qat_qconfig("qnnpack", version=0).weight),
        ("fqm_emb", F.default_embedding_fake_quant),
    ]
    gs = [torch.randn(3, 4, 5, generator=g) for _ in range(3)]
    for i, gg in enumerate(gs):
        save("fqm_g%d" % i, gg)
    for name, make in cases:
        fq = make()
        for i, x in enumerate(ins["three"]):
            if name == "fqm_toggle" and i == 1:
                fq.disable_observer()
            if name == "fqm_toggle" and i == 2:
                fq.disable_fake_quant()
            xx = x.clone().requires_grad_(True)
            y = fq(xx)
            y.backward(gs[i])
            save("%s_y%d" % (name, i), y)
            save("%s_gx%d" % (name, i), xx.grad)
        save(name + "_scale", fq.scale.reshape(-1))
        save(name + "_zp", fq.zero_point.reshape(-1))
        print("%-12s scale %s zp %s keys %s" % (name, fq.scale.numpy(), fq.zero_point.numpy(), list(fq.state_dict().keys())))


def inputs(g):
    post = [torch.randn(3, 4, generator=g), torch.randn(3, 4, generator=g)]
    three = [torch.randn(3, 4, 5, generator=g) * s + o for s, o in [(1, 0), (2, 0.5), (0.5, -1)]]
    return {
        "post": post,
        "three": three,
        "pos": [torch.rand(100, generator=g) * 4, torch.rand(100, generator=g) * 6 + 0.5],
        "tiny": [torch.randn(50, generator=g) * 1e-6],
        "wide": [torch.randn(1000, generator=g) * s + o for s, o in [(1, 0), (3, 1), (0.5, -2), (8, 0)]],
        "unit": [torch.rand(500, generator=g) * 1.8 - 0.9, torch.rand(500, generator=g) * 1.9 - 0.95],
        "const": [torch.full((20,), 1.5), torch.randn(300, generator=g) * 2],
        "shrink": [torch.randn(800, generator=g) * 5, torch.randn(800, generator=g) * 0.5, torch.randn(800, generator=g)],
    }


def observer_fixtures(g):
    ins = inputs(g)
    for key, xs in ins.items():
        for i, x in enumerate(xs):
            save("in_%s_x%d" % (key, i), x)
    for name, cls, kw, key in CASES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            obs = cls(**kw)
        for x in ins[key]:
            y = obs(x)
            assert y is x
        scale, zp = obs.calculate_qparams()
        save(name + "_scale", scale.reshape(-1))
        save(name + "_zp", zp.reshape(-1))
        save(name + "_min", obs.min_val.reshape(-1))
        save(name + "_max", obs.max_val.reshape(-1))
        if isinstance(obs, O.HistogramObserver):
            save(name + "_hist", obs.histogram)
        print("%-12s scale %s zp %s" % (name, scale.numpy(), zp.numpy()))
    fake_quant_module_fixtures(ins)
    # state dict keys of each observer type (checked by the C test as text)
    with open(os.path.join(OUT, "obs_state_keys.txt"), "w") as f:
        for cls in (O.MinMaxObserver, O.MovingAverageMinMaxObserver, O.PerChannelMinMaxObserver,
                    O.MovingAveragePerChannelMinMaxObserver, O.HistogramObserver, O.PlaceholderObserver, F.FakeQuantize):
            f.write("%s %s\n" % (cls.__name__, ",".join(cls().state_dict().keys())))


def histogram_sweep():
    """40 HistogramObservers, 3 calls of 200 values each, settings and scales drawn at
    random: obs_sweep_x [40, 3, 200], obs_sweep_params [40, 6] (bins, upsample_rate,
    qint8, reduce_range, symmetric, unused), obs_sweep_out [40, 4] (scale, zero_point,
    min_val, max_val)."""
    g = torch.Generator().manual_seed(99)
    xs, params, outs = [], [], []
    for k in range(40):
        bins = [2048, 512, 100, 2048][k % 4]
        up = [128, 16][k % 2]
        qint8 = int(torch.randint(0, 2, (1,), generator=g))
        rr = int(torch.randint(0, 2, (1,), generator=g))
        sym = int(torch.randint(0, 3, (1,), generator=g) == 0)
        kw = {"bins": bins, "upsample_rate": up, "dtype": torch.qint8 if qint8 else torch.quint8, "reduce_range": bool(rr),
              "qscheme": torch.per_tensor_symmetric if sym else torch.per_tensor_affine}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            obs = O.HistogramObserver(**kw)
        calls = []
        for c in range(3):
            scale = float(10 ** (torch.rand(1, generator=g) * 4 - 2))
            off = float(torch.randn(1, generator=g)) * scale
            x = torch.randn(200, generator=g) * scale + off
            if k % 5 == 0:
                x = x.abs()
            if k % 7 == 0 and c == 2:
                x = x * 0.01
            calls.append(x)
            obs(x)
        scale, zp = obs.calculate_qparams()
        xs.append(torch.stack(calls))
        params.append([bins, up, qint8, rr, sym, 0])
        outs.append([float(scale), float(zp), float(obs.min_val), float(obs.max_val)])
    save("sweep_x", torch.stack(xs))
    save("sweep_params", np.array(params, dtype=np.float64))
    save("sweep_out", np.array(outs, dtype=np.float64))


def main():
    os.makedirs(OUT, exist_ok=True)
    g = torch.Generator().manual_seed(12)
    fake_quant_fixtures(g)
    observer_fixtures(g)
    histogram_sweep()


if __name__ == "__main__":
    main()
