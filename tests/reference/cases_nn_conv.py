"""Convolution and pooling: F.conv1d, F.conv2d (stride, padding ints and
"same"/"valid", dilation, groups, bias or not, channels-last and unbatched
inputs), F.conv_transpose2d, F.max_pool2d (indices too), F.avg_pool2d,
F.adaptive_avg_pool2d, F.max_pool1d, F.avg_pool1d. Values and gradients, and
PyTorch's errors. Also the default initialization of nn.Conv2d / Conv1d /
ConvTranspose2d under torch.manual_seed (the C test checks ct_manual_seed
gives the same weights)."""
import os

import numpy as np
import torch
import torch.nn.functional as F

FAM = "nn_conv"
CL = [0, 3, 1, 2]   # permute of a stored NHWC base: a channels-last view


def r(*shape, dtype=torch.float64):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


def conv2d_cases(w):
    f32 = torch.float32
    def c2(**kw):
        return lambda x, wt, *b: F.conv2d(x, wt, b[0] if b else None, **kw)
    w.case(FAM, "conv2d_basic_f64", "torch.nn.functional.conv2d", c2(), [r(2, 3, 6, 5), r(4, 3, 3, 3), r(4)])
    w.case(FAM, "conv2d_nobias_f32", "torch.nn.functional.conv2d", c2(), [r(2, 3, 6, 5, dtype=f32), r(4, 3, 3, 3, dtype=f32)])
    w.case(FAM, "conv2d_pad1_f32", "torch.nn.functional.conv2d", c2(padding=1), [r(2, 1, 7, 7, dtype=f32), r(5, 1, 3, 3, dtype=f32), r(5, dtype=f32)],
           args={"padding": 1})
    w.case(FAM, "conv2d_stride_pad_dil", "torch.nn.functional.conv2d", c2(stride=(2, 1), padding=(1, 2), dilation=(1, 2)),
           [r(2, 2, 9, 8), r(3, 2, 3, 2), r(3)], args={"stride": [2, 1], "padding": [1, 2], "dilation": [1, 2]})
    w.case(FAM, "conv2d_groups", "torch.nn.functional.conv2d", c2(groups=2, padding=1), [r(2, 4, 5, 5), r(6, 2, 3, 3), r(6)],
           args={"groups": 2, "padding": 1})
    w.case(FAM, "conv2d_depthwise", "torch.nn.functional.conv2d", c2(groups=3, stride=2), [r(1, 3, 6, 6), r(3, 1, 2, 2)],
           args={"groups": 3, "stride": 2})
    w.case(FAM, "conv2d_1x1", "torch.nn.functional.conv2d", c2(), [r(2, 5, 4, 3), r(3, 5, 1, 1), r(3)])
    w.case(FAM, "conv2d_same_even", "torch.nn.functional.conv2d", c2(padding="same", dilation=(1, 3)), [r(1, 2, 6, 7), r(3, 2, 4, 2), r(3)],
           args={"padding": "same", "dilation": [1, 3]}, note="even kernel: the extra padding goes on the far side")
    w.case(FAM, "conv2d_valid", "torch.nn.functional.conv2d", c2(padding="valid"), [r(1, 2, 5, 5), r(2, 2, 3, 3)], args={"padding": "valid"})
    w.case(FAM, "conv2d_channels_last_f32", "torch.nn.functional.conv2d", c2(padding=1),
           [r(2, 3, 5, 6, dtype=f32), r(4, 3, 3, 3, dtype=f32), r(4, dtype=f32)], permute=[CL, None, None], args={"padding": 1})
    w.case(FAM, "conv2d_channels_last_groups", "torch.nn.functional.conv2d", c2(groups=2, stride=2, padding=1),
           [r(2, 4, 6, 5), r(4, 2, 3, 3), r(4)], permute=[CL, None, None], args={"groups": 2, "stride": 2, "padding": 1})
    w.case(FAM, "conv2d_channels_last_1x1", "torch.nn.functional.conv2d", c2(), [r(2, 4, 3, 3), r(5, 4, 1, 1)], permute=[CL, None])
    w.case(FAM, "conv2d_noncontig_weight", "torch.nn.functional.conv2d", c2(padding=1), [r(1, 3, 5, 5), r(4, 3, 3, 3)],
           permute=[None, [1, 0, 2, 3]], args={"padding": 1})
    w.case(FAM, "conv2d_unbatched", "torch.nn.functional.conv2d", c2(padding=1), [r(2, 5, 4), r(3, 2, 3, 3), r(3)], args={"padding": 1})
    w.case(FAM, "conv2d_empty_batch", "torch.nn.functional.conv2d", c2(), [r(0, 2, 5, 5), r(3, 2, 3, 3), r(3)])
    w.case(FAM, "conv2d_gemm_sized_f32", "torch.nn.functional.conv2d", c2(padding=1),
           [r(2, 16, 10, 10, dtype=f32), r(32, 16, 3, 3, dtype=f32), r(32, dtype=f32)], args={"padding": 1},
           rtol=1e-4, atol=1e-5, grad_rtol=1e-4, grad_atol=1e-4, gout_scale=0.1)
    w.case(FAM, "err_conv2d_input_dim", "torch.nn.functional.conv2d", c2(), [r(2, 3), r(4, 3, 3, 3)], expect_error=True)
    w.case(FAM, "err_conv2d_channels", "torch.nn.functional.conv2d", c2(), [r(2, 5, 8, 8), r(4, 3, 3, 3)], expect_error=True)
    w.case(FAM, "err_conv2d_kernel_too_big", "torch.nn.functional.conv2d", c2(), [r(2, 3, 2, 2), r(4, 3, 3, 3)], expect_error=True)
    w.case(FAM, "err_conv2d_groups", "torch.nn.functional.conv2d", c2(groups=2), [r(2, 3, 8, 8), r(3, 1, 3, 3)], args={"groups": 2},
           expect_error=True)
    w.case(FAM, "err_conv2d_bias", "torch.nn.functional.conv2d", c2(), [r(2, 3, 8, 8), r(4, 3, 3, 3), r(5)], expect_error=True)
    w.case(FAM, "err_conv2d_same_strided", "torch.nn.functional.conv2d", c2(stride=2, padding="same"), [r(2, 3, 8, 8), r(4, 3, 3, 3)],
           args={"stride": 2, "padding": "same"}, expect_error=True)
    w.case(FAM, "err_conv2d_padding_string", "torch.nn.functional.conv2d", c2(padding="foo"), [r(2, 3, 8, 8), r(4, 3, 3, 3)],
           args={"padding": "foo"}, expect_error=True)
    w.case(FAM, "err_conv2d_negative_padding", "torch.nn.functional.conv2d", c2(padding=-1), [r(2, 3, 8, 8), r(4, 3, 3, 3)],
           args={"padding": -1}, expect_error=True)
    w.case(FAM, "err_conv2d_weight_dtype", "torch.nn.functional.conv2d", c2(), [r(2, 3, 8, 8, dtype=f32), r(4, 3, 3, 3)], expect_error=True)


def conv1d_transpose_cases(w):
    def c1(**kw):
        return lambda x, wt, *b: F.conv1d(x, wt, b[0] if b else None, **kw)
    def ct(**kw):
        return lambda x, wt, *b: F.conv_transpose2d(x, wt, b[0] if b else None, **kw)
    w.case(FAM, "conv1d_basic", "torch.nn.functional.conv1d", c1(), [r(2, 3, 9), r(4, 3, 3), r(4)])
    w.case(FAM, "conv1d_stride_pad_dil_groups", "torch.nn.functional.conv1d", c1(stride=2, padding=2, dilation=2, groups=2),
           [r(2, 4, 11), r(6, 2, 3), r(6)], args={"stride": 2, "padding": 2, "dilation": 2, "groups": 2})
    w.case(FAM, "conv1d_same", "torch.nn.functional.conv1d", c1(padding="same"), [r(1, 2, 7), r(3, 2, 4)], args={"padding": "same"})
    w.case(FAM, "conv1d_unbatched", "torch.nn.functional.conv1d", c1(padding=1), [r(3, 6), r(2, 3, 3), r(2)], args={"padding": 1})
    w.case(FAM, "conv_transpose2d_basic", "torch.nn.functional.conv_transpose2d", ct(), [r(2, 3, 4, 5), r(3, 2, 3, 3), r(2)])
    w.case(FAM, "conv_transpose2d_stride_outpad", "torch.nn.functional.conv_transpose2d", ct(stride=2, padding=1, output_padding=1),
           [r(2, 3, 4, 4), r(3, 4, 3, 3), r(4)], args={"stride": 2, "padding": 1, "output_padding": 1})
    w.case(FAM, "conv_transpose2d_groups_dil", "torch.nn.functional.conv_transpose2d", ct(groups=2, dilation=2, stride=(1, 2)),
           [r(1, 4, 3, 3), r(4, 3, 2, 3)], args={"groups": 2, "dilation": 2, "stride": [1, 2]})
    w.case(FAM, "conv_transpose2d_channels_last_f32", "torch.nn.functional.conv_transpose2d", ct(stride=2),
           [r(2, 3, 3, 4, dtype=torch.float32), r(3, 2, 2, 2, dtype=torch.float32), r(2, dtype=torch.float32)],
           permute=[CL, None, None], args={"stride": 2})
    w.case(FAM, "err_conv_transpose2d_output_padding", "torch.nn.functional.conv_transpose2d", ct(output_padding=1),
           [r(2, 3, 8, 8), r(3, 4, 3, 3)], args={"output_padding": 1}, expect_error=True)
    w.case(FAM, "err_conv_transpose2d_channels", "torch.nn.functional.conv_transpose2d", ct(), [r(2, 5, 8, 8), r(3, 4, 3, 3)],
           expect_error=True)
    w.case(FAM, "err_conv1d_input_dim", "torch.nn.functional.conv1d", c1(), [r(2, 3, 8, 8), r(4, 3, 3)], expect_error=True)


def pool_cases(w):
    def mp(**kw):
        return lambda x: F.max_pool2d(x, **kw)
    def ap(**kw):
        return lambda x: F.avg_pool2d(x, **kw)
    # distinct values so that the argmax (and the gradient) is unique
    def u(*shape, dtype=torch.float64):
        n = int(np.prod(shape))
        return (torch.randperm(n).to(torch.float64) / n - 0.5).reshape(shape).to(dtype)
    w.case(FAM, "max_pool2d_2x2_f32", "torch.nn.functional.max_pool2d", mp(kernel_size=2), [u(2, 3, 6, 8, dtype=torch.float32)],
           args={"kernel_size": 2})
    w.case(FAM, "max_pool2d_2x2_odd", "torch.nn.functional.max_pool2d", mp(kernel_size=2), [u(1, 2, 5, 7)], args={"kernel_size": 2})
    w.case(FAM, "max_pool2d_3s2p1_ceil", "torch.nn.functional.max_pool2d", mp(kernel_size=3, stride=2, padding=1, ceil_mode=True),
           [u(2, 2, 8, 7)], args={"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True})
    w.case(FAM, "max_pool2d_dilation", "torch.nn.functional.max_pool2d", mp(kernel_size=(2, 3), stride=1, dilation=2),
           [u(1, 2, 7, 8)], args={"kernel_size": [2, 3], "stride": 1, "dilation": 2})
    w.case(FAM, "max_pool2d_indices", "torch.nn.functional.max_pool2d", mp(kernel_size=2, stride=1, return_indices=True),
           [u(1, 2, 4, 5)], args={"kernel_size": 2, "stride": 1, "return_indices": True})
    w.case(FAM, "max_pool2d_channels_last", "torch.nn.functional.max_pool2d", mp(kernel_size=2), [u(2, 3, 4, 6)], permute=[CL],
           args={"kernel_size": 2})
    w.case(FAM, "max_pool2d_unbatched", "torch.nn.functional.max_pool2d", mp(kernel_size=2), [u(3, 4, 4)], args={"kernel_size": 2})
    w.case(FAM, "avg_pool2d_2x2_f32", "torch.nn.functional.avg_pool2d", ap(kernel_size=2), [r(2, 3, 6, 8, dtype=torch.float32)],
           args={"kernel_size": 2})
    w.case(FAM, "avg_pool2d_pad_include", "torch.nn.functional.avg_pool2d", ap(kernel_size=3, stride=2, padding=1),
           [r(2, 2, 7, 6)], args={"kernel_size": 3, "stride": 2, "padding": 1})
    w.case(FAM, "avg_pool2d_pad_exclude_ceil", "torch.nn.functional.avg_pool2d",
           ap(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False), [r(1, 2, 6, 7)],
           args={"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False})
    w.case(FAM, "avg_pool2d_divisor", "torch.nn.functional.avg_pool2d", ap(kernel_size=(2, 3), divisor_override=5), [r(1, 2, 4, 6)],
           args={"kernel_size": [2, 3], "divisor_override": 5})
    w.case(FAM, "avg_pool2d_channels_last", "torch.nn.functional.avg_pool2d", ap(kernel_size=2, stride=1), [r(2, 3, 3, 4)], permute=[CL],
           args={"kernel_size": 2, "stride": 1})
    w.case(FAM, "adaptive_avg_pool2d_5x7", "torch.nn.functional.adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (5, 7)),
           [r(2, 3, 11, 9)], args={"output_size": [5, 7]})
    w.case(FAM, "adaptive_avg_pool2d_1", "torch.nn.functional.adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, 1),
           [r(2, 3, 4, 5, dtype=torch.float32)], args={"output_size": 1})
    w.case(FAM, "adaptive_avg_pool2d_unbatched_up", "torch.nn.functional.adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (4, 3)),
           [r(2, 3, 2)], args={"output_size": [4, 3]})
    w.case(FAM, "max_pool1d_basic", "torch.nn.functional.max_pool1d", lambda x: F.max_pool1d(x, 3, stride=2, padding=1),
           [u(2, 3, 9)], args={"kernel_size": 3, "stride": 2, "padding": 1})
    w.case(FAM, "avg_pool1d_basic", "torch.nn.functional.avg_pool1d", lambda x: F.avg_pool1d(x, 2), [r(2, 3, 9)], args={"kernel_size": 2})
    w.case(FAM, "err_max_pool2d_pad", "torch.nn.functional.max_pool2d", mp(kernel_size=2, padding=2), [r(2, 3, 8, 8)],
           args={"kernel_size": 2, "padding": 2}, expect_error=True)
    w.case(FAM, "err_max_pool2d_too_small", "torch.nn.functional.max_pool2d", mp(kernel_size=2), [r(1, 1, 1)], args={"kernel_size": 2},
           expect_error=True)
    w.case(FAM, "err_max_pool2d_dim", "torch.nn.functional.max_pool2d", mp(kernel_size=2), [r(2, 3)], args={"kernel_size": 2},
           expect_error=True)
    w.case(FAM, "err_max_pool2d_dilation", "torch.nn.functional.max_pool2d", mp(kernel_size=2, dilation=-1), [r(2, 3, 8, 8)],
           args={"kernel_size": 2, "dilation": -1}, expect_error=True)
    w.case(FAM, "err_avg_pool2d_pad", "torch.nn.functional.avg_pool2d", ap(kernel_size=2, padding=2), [r(2, 3, 8, 8)],
           args={"kernel_size": 2, "padding": 2}, expect_error=True)
    w.case(FAM, "err_adaptive_avg_pool2d_dim", "torch.nn.functional.adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, 2),
           [r(2, 3)], args={"output_size": 2}, expect_error=True)
    # ceil_mode: the last windows run past the input and are clipped (the 2x2 stride-2
    # max pool's fast path once read past the input); appended last so that the
    # cases above keep their random draws
    w.case(FAM, "max_pool2d_2x2_ceil_1x3", "torch.nn.functional.max_pool2d", mp(kernel_size=2, stride=2, ceil_mode=True, return_indices=True),
           [torch.tensor([[[[-1.0, -2.0, -3.0]]]])], args={"kernel_size": 2, "stride": 2, "ceil_mode": True, "return_indices": True})
    w.case(FAM, "max_pool2d_2x2_ceil_odd_f32", "torch.nn.functional.max_pool2d", mp(kernel_size=2, ceil_mode=True, return_indices=True),
           [u(2, 3, 5, 7, dtype=torch.float32)], args={"kernel_size": 2, "ceil_mode": True, "return_indices": True})
    w.case(FAM, "max_pool2d_2x2_ceil_odd_channels_last", "torch.nn.functional.max_pool2d", mp(kernel_size=2, ceil_mode=True),
           [u(2, 3, 7, 5)], permute=[CL], args={"kernel_size": 2, "ceil_mode": True})
    w.case(FAM, "max_pool2d_3s2_ceil_dilation", "torch.nn.functional.max_pool2d", mp(kernel_size=3, stride=2, dilation=2, padding=1, ceil_mode=True),
           [u(1, 2, 8, 9)], args={"kernel_size": 3, "stride": 2, "dilation": 2, "padding": 1, "ceil_mode": True})
    w.case(FAM, "avg_pool2d_2x2_ceil_odd", "torch.nn.functional.avg_pool2d", ap(kernel_size=2, ceil_mode=True),
           [r(2, 2, 5, 7)], args={"kernel_size": 2, "ceil_mode": True})
    w.case(FAM, "avg_pool2d_ceil_pad_include", "torch.nn.functional.avg_pool2d", ap(kernel_size=3, stride=2, padding=1, ceil_mode=True),
           [r(1, 2, 6, 8)], args={"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True})
    w.case(FAM, "avg_pool2d_ceil_divisor_channels_last", "torch.nn.functional.avg_pool2d",
           ap(kernel_size=(3, 2), stride=2, ceil_mode=True, divisor_override=4), [r(2, 3, 6, 5)], permute=[CL],
           args={"kernel_size": [3, 2], "stride": 2, "ceil_mode": True, "divisor_override": 4})
    w.case(FAM, "max_pool1d_ceil", "torch.nn.functional.max_pool1d", lambda x: F.max_pool1d(x, 2, ceil_mode=True),
           [u(2, 3, 7)], args={"kernel_size": 2, "ceil_mode": True})
    w.case(FAM, "avg_pool1d_ceil_pad_exclude", "torch.nn.functional.avg_pool1d",
           lambda x: F.avg_pool1d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
           [r(2, 3, 8)], args={"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False})
    w.case(FAM, "adaptive_avg_pool2d_channels_last_overlap", "torch.nn.functional.adaptive_avg_pool2d",
           lambda x: F.adaptive_avg_pool2d(x, (3, 4)), [r(2, 3, 7, 10)], permute=[CL], args={"output_size": [3, 4]})


def init_fixture(root):
    """Default-initialized modules under torch.manual_seed(s), for the C unit test."""
    d = os.path.join(root, FAM, "init")
    os.makedirs(d, exist_ok=True)
    torch.manual_seed(7)
    m1 = torch.nn.Conv2d(1, 32, 3, padding=1)
    m2 = torch.nn.Conv2d(32, 64, 3, padding=1)
    m3 = torch.nn.Conv1d(4, 6, 5, groups=2)
    m4 = torch.nn.ConvTranspose2d(3, 4, 2, stride=2)
    for i, m in enumerate([m1, m2, m3, m4]):
        np.save(os.path.join(d, "m%d_weight.npy" % i), m.weight.detach().numpy())
        np.save(os.path.join(d, "m%d_bias.npy" % i), m.bias.detach().numpy())


def fast_path_cases(w):
    """The convolution kernel families of issue 10, each in both memory formats:
    depthwise (groups == C_in, with and without a depth multiplier; stride,
    padding, dilation, 5x5), 1x1 as plain GEMMs (and the 1x1 cases that must not
    take that path: strided, padded), and shapes for an implicit GEMM (3x3 and
    5x5; output channels that are not a multiple of the micro-kernel's tile;
    stride, dilation, groups; today the im2col path runs them). float32 cases
    use PyTorch's float32 values."""
    f32 = torch.float32
    def c2(**kw):
        return lambda x, wt, *b: F.conv2d(x, wt, b[0] if b else None, **kw)
    def ct(**kw):
        return lambda x, wt, *b: F.conv_transpose2d(x, wt, b[0] if b else None, **kw)
    tol = dict(rtol=1e-4, atol=1e-5, grad_rtol=1e-4, grad_atol=1e-4, gout_scale=0.1)
    # depthwise
    w.case(FAM, "conv2d_dw_3x3_pad1_f32", "torch.nn.functional.conv2d", c2(groups=8, padding=1),
           [r(2, 8, 9, 10, dtype=f32), r(8, 1, 3, 3, dtype=f32), r(8, dtype=f32)], args={"groups": 8, "padding": 1}, **tol)
    w.case(FAM, "conv2d_dw_mult2_stride2", "torch.nn.functional.conv2d", c2(groups=3, stride=2, padding=1),
           [r(2, 3, 7, 8), r(6, 1, 3, 3), r(6)], args={"groups": 3, "stride": 2, "padding": 1})
    w.case(FAM, "conv2d_dw_k5_s2_dil", "torch.nn.functional.conv2d", c2(groups=4, stride=(2, 1), padding=(2, 3), dilation=(1, 2)),
           [r(2, 4, 11, 10), r(4, 1, 5, 5), r(4)], args={"groups": 4, "stride": [2, 1], "padding": [2, 3], "dilation": [1, 2]})
    w.case(FAM, "conv2d_dw_channels_last_f32", "torch.nn.functional.conv2d", c2(groups=6, stride=(1, 2), padding=1),
           [r(2, 6, 7, 7, dtype=f32), r(6, 1, 3, 3, dtype=f32), r(6, dtype=f32)], permute=[CL, None, None],
           args={"groups": 6, "stride": [1, 2], "padding": 1}, **tol)
    w.case(FAM, "conv2d_dw_channels_last_mult3_dil", "torch.nn.functional.conv2d", c2(groups=3, padding=2, dilation=2, stride=2),
           [r(1, 3, 8, 7), r(9, 1, 3, 3), r(9)], permute=[CL, None, None], args={"groups": 3, "padding": 2, "dilation": 2, "stride": 2})
    w.case(FAM, "conv_transpose2d_depthwise", "torch.nn.functional.conv_transpose2d", ct(groups=4, stride=2, padding=1),
           [r(2, 4, 4, 5), r(4, 1, 3, 3), r(4)], args={"groups": 4, "stride": 2, "padding": 1})
    w.case(FAM, "conv_transpose2d_depthwise_channels_last", "torch.nn.functional.conv_transpose2d", ct(groups=3, dilation=2),
           [r(1, 3, 4, 4), r(3, 2, 3, 3), r(6)], permute=[CL, None, None], args={"groups": 3, "dilation": 2})
    # 1x1
    w.case(FAM, "conv2d_1x1_batch_f32", "torch.nn.functional.conv2d", c2(),
           [r(3, 8, 5, 4, dtype=f32), r(6, 8, 1, 1, dtype=f32), r(6, dtype=f32)], **tol)
    w.case(FAM, "conv2d_1x1_channels_last_batch_f32", "torch.nn.functional.conv2d", c2(),
           [r(3, 8, 5, 4, dtype=f32), r(6, 8, 1, 1, dtype=f32), r(6, dtype=f32)], permute=[CL, None, None], **tol)
    w.case(FAM, "conv2d_1x1_channels_last_groups", "torch.nn.functional.conv2d", c2(groups=2),
           [r(2, 6, 3, 4), r(4, 3, 1, 1), r(4)], permute=[CL, None, None], args={"groups": 2})
    w.case(FAM, "conv2d_1x1_stride2", "torch.nn.functional.conv2d", c2(stride=2), [r(2, 4, 5, 6), r(3, 4, 1, 1), r(3)],
           args={"stride": 2})
    w.case(FAM, "conv2d_1x1_pad1_channels_last", "torch.nn.functional.conv2d", c2(padding=1), [r(2, 4, 3, 3), r(5, 4, 1, 1)],
           permute=[CL, None], args={"padding": 1})
    # implicit GEMM
    w.case(FAM, "conv2d_igemm_3x3_f32", "torch.nn.functional.conv2d", c2(padding=1),
           [r(2, 16, 12, 13, dtype=f32), r(40, 16, 3, 3, dtype=f32), r(40, dtype=f32)], args={"padding": 1}, **tol)
    w.case(FAM, "conv2d_igemm_3x3_channels_last_f32", "torch.nn.functional.conv2d", c2(padding=1),
           [r(2, 16, 12, 13, dtype=f32), r(40, 16, 3, 3, dtype=f32), r(40, dtype=f32)], permute=[CL, None, None],
           args={"padding": 1}, **tol)
    w.case(FAM, "conv2d_igemm_stride2_dil2", "torch.nn.functional.conv2d", c2(stride=2, padding=2, dilation=2),
           [r(2, 5, 11, 12), r(7, 5, 3, 3), r(7)], args={"stride": 2, "padding": 2, "dilation": 2})
    w.case(FAM, "conv2d_igemm_channels_last_stride2_groups", "torch.nn.functional.conv2d", c2(stride=2, padding=1, groups=2),
           [r(2, 8, 7, 9), r(10, 4, 3, 3), r(10)], permute=[CL, None, None], args={"stride": 2, "padding": 1, "groups": 2})
    w.case(FAM, "conv2d_igemm_5x5_pad2", "torch.nn.functional.conv2d", c2(padding=2), [r(1, 6, 9, 8), r(33, 6, 5, 5), r(33)],
           args={"padding": 2})
    w.case(FAM, "conv2d_igemm_5x5_channels_last_nopad", "torch.nn.functional.conv2d", c2(padding=(0, 1)),
           [r(2, 3, 9, 8), r(13, 3, 5, 4)], permute=[CL, None], args={"padding": [0, 1]})


def generate(w):
    conv2d_cases(w)
    conv1d_transpose_cases(w)
    pool_cases(w)
    init_fixture(w.root)
    fast_path_cases(w)
