#!/usr/bin/python3
"""Fixtures of ctensor_quant.h's int8 GEMM and quantized linear tests
(tests/quant/test_quant_gemm.h), made with PyTorch 1.13 (Debian's python3-torch):

    /usr/bin/python3 tests/reference/quant_fixtures_gemm.py

Writes tests/fixtures/quant/gemm_*.npy:
  static quantized::linear / linear_relu (torch.ao.nn.quantized.Linear and
  LinearReLU on the onednn engine): the input's codes and parameters, the weight's
  codes and parameters, the bias, the output's parameters and codes;
  dynamic quantized::linear_dynamic (torch.ao.quantization.quantize_dynamic on a
  float nn.Linear, per tensor and per channel weights, onednn and qnnpack engines):
  the float weight, bias and input, the quantized weight's codes and scales, the
  output; the dynamic quantized LSTM (quantize_dynamic on nn.LSTM, both engines):
  the float parameters, input, h0, c0, and output, h_n, c_n."""
import os

import numpy as np
import torch
import torch.ao.nn.quantized as nnq
import torch.nn.intrinsic.quantized as nniq
from torch.ao.quantization import quantize_dynamic, default_dynamic_qconfig, per_channel_dynamic_qconfig

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "quant")


def save(name, t):
    a = t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)
    np.save(os.path.join(OUT, "gemm_" + name + ".npy"), np.ascontiguousarray(a))


def static_cases(g):
    torch.backends.quantized.engine = "onednn"
    # (name, input shape, out_features, per_channel, relu, bias)
    cases = [("s0", (5, 37), 19, False, False, True), ("s1", (2, 3, 70), 67, True, False, True),
             ("s2", (1, 9), 1, False, True, True), ("s3", (4, 33), 8, True, True, False)]
    for name, xshape, n, per_channel, relu, has_bias in cases:
        k = xshape[-1]
        x = torch.randn(*xshape, generator=g) * 2 + 0.5
        xs, xz = 0.03, 100
        xq = torch.quantize_per_tensor(x, xs, xz, torch.quint8)
        w = torch.randn(n, k, generator=g) * 0.2
        if per_channel:
            ws = (w.abs().amax(dim=1).double() / 127.5).clamp(min=1e-6)
            wq = torch.quantize_per_channel(w, ws, torch.zeros(n, dtype=torch.long), 0, torch.qint8)
        else:
            ws = torch.tensor([w.abs().max().item() / 127.5], dtype=torch.float64)
            wq = torch.quantize_per_tensor(w, ws.item(), 0, torch.qint8)
        b = torch.randn(n, generator=g) if has_bias else None
        mod = (nniq.LinearReLU if relu else nnq.Linear)(k, n)
        mod.set_weight_bias(wq, b)
        mod.scale, mod.zero_point = 0.05, 60
        y = mod(xq)
        save(name + "_x_codes", xq.int_repr())
        save(name + "_x_qparams", np.array([xs, xz], dtype=np.float64))
        save(name + "_w_codes", wq.int_repr())
        save(name + "_w_scales", ws)
        save(name + "_bias", b if b is not None else torch.zeros(0))
        save(name + "_meta", np.array([0.05, 60, int(per_channel), int(relu), int(has_bias)], dtype=np.float64))
        save(name + "_y_codes", y.int_repr())


def dynamic_cases(g):
    # (name, input shape, out_features, per_channel)
    cases = [("d0", (6, 45), 21, False), ("d1", (2, 4, 64), 70, True), ("d2", (1, 130), 5, False)]
    for name, xshape, n, per_channel in cases:
        k = xshape[-1]
        lin = torch.nn.Linear(k, n)
        with torch.no_grad():
            lin.weight.copy_(torch.randn(n, k, generator=g) * 0.3)
            lin.bias.copy_(torch.randn(n, generator=g))
        x = torch.randn(*xshape, generator=g) * 1.5 + 0.2
        save(name + "_w", lin.weight)
        save(name + "_b", lin.bias)
        save(name + "_x", x)
        save(name + "_y_float", lin(x))
        for engine in ("onednn", "qnnpack"):
            torch.backends.quantized.engine = engine
            qc = per_channel_dynamic_qconfig if per_channel else default_dynamic_qconfig
            m = quantize_dynamic(torch.nn.Sequential(lin), {torch.nn.Linear: qc}, dtype=torch.qint8)
            wq, _ = m[0]._packed_params._weight_bias()
            save(name + "_" + engine + "_w_codes", wq.int_repr())
            save(name + "_" + engine + "_w_scales",
                 wq.q_per_channel_scales() if per_channel else torch.tensor([wq.q_scale()], dtype=torch.float64))
            save(name + "_" + engine + "_y", m(x))


def lstm_cases(g):
    # (name, input size, hidden, layers, bidirectional, batch_first, x shape)
    cases = [("l0", 7, 6, 1, False, False, (5, 3, 7)), ("l1", 5, 4, 2, True, True, (2, 6, 5))]
    for name, inp, hid, layers, bidir, bf, xshape in cases:
        lstm = torch.nn.LSTM(inp, hid, num_layers=layers, bidirectional=bidir, batch_first=bf)
        with torch.no_grad():
            for p in lstm.parameters():
                p.copy_(torch.randn(p.shape, generator=g) * 0.4)
        x = torch.randn(*xshape, generator=g)
        d = 2 if bidir else 1
        bsz = xshape[0] if bf else xshape[1]
        h0 = torch.randn(layers * d, bsz, hid, generator=g) * 0.5
        c0 = torch.randn(layers * d, bsz, hid, generator=g) * 0.5
        for k, v in lstm.state_dict().items():
            save("%s_p_%s" % (name, k), v)
        save(name + "_x", x)
        save(name + "_h0", h0)
        save(name + "_c0", c0)
        for engine in ("onednn", "qnnpack"):
            torch.backends.quantized.engine = engine
            q = quantize_dynamic(torch.nn.Sequential(lstm), {torch.nn.LSTM: default_dynamic_qconfig}, dtype=torch.qint8)[0]
            y, (hn, cn) = q(x, (h0, c0))
            save("%s_%s_y" % (name, engine), y)
            save("%s_%s_hn" % (name, engine), hn)
            save("%s_%s_cn" % (name, engine), cn)


def main():
    os.makedirs(OUT, exist_ok=True)
    g = torch.Generator().manual_seed(12)
    static_cases(g)
    dynamic_cases(g)
    lstm_cases(g)


if __name__ == "__main__":
    main()
