"""Memory formats (issue 17): ops on channels-last inputs, with the strides of
PyTorch's outputs and input gradients recorded beside the values
("strides" in each outputs / grads entry; the runner compares them exactly).

The table: unary ops and activations, binary ops with broadcasting where both
or one operand is channels-last (TensorIterator decides the output's layout:
the first operand whose strides order the dims), conv2d / conv_transpose2d
(channels-last input, or weight only), max / avg / adaptive avg pooling and
batch_norm, and the ambiguous N,C,1,1 shape. The upstream gradients have the outputs' layout
(as a next channels-last layer's would), or are contiguous (_gout_contig). Inputs are float32 unless the
name says f64; a channels-last input is a permute of a stored NHWC base
(CL below), exactly what x.to(memory_format=torch.channels_last) gives."""
import numpy as np
import torch
import torch.nn.functional as F

FAM = "memory_format"
CL = [0, 3, 1, 2]


def r(*shape, dtype=torch.float32):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


def u(*shape, dtype=torch.float32):
    # distinct values: a unique argmax for max pooling
    n = int(np.prod(shape))
    return (torch.randperm(n).to(torch.float64) / n - 0.5).reshape(shape).to(dtype)


def generate(w):
    def case(name, op, fn, inputs, permute, args=None, **kw):
        w.case(FAM, name, op, fn, inputs, permute=permute, args=args, strides=True, **kw)

    # ---- unary ops and activations ----
    for name, op, fn, args in [
            ("relu", "torch.relu", torch.relu, None),
            ("sigmoid", "torch.sigmoid", torch.sigmoid, None),
            ("tanh", "torch.tanh", torch.tanh, None),
            ("exp", "torch.exp", torch.exp, None),
            ("neg", "torch.neg", torch.neg, None),
            ("gelu", "torch.nn.functional.gelu", F.gelu, None),
            ("silu", "torch.nn.functional.silu", F.silu, None),
            ("hardtanh", "torch.nn.functional.hardtanh", F.hardtanh, None),
            ("leaky_relu", "torch.nn.functional.leaky_relu", lambda x: F.leaky_relu(x, 0.1), {"negative_slope": 0.1})]:
        case("unary_" + name, op, fn, [r(2, 3, 4, 5)], [CL], args)
    case("unary_relu_n1hw", "torch.relu", torch.relu, [r(2, 1, 3, 4)], [CL])
    case("unary_relu_nc11", "torch.relu", torch.relu, [r(2, 3, 1, 1)], [CL])
    case("unary_relu_1chw_f64", "torch.relu", torch.relu, [r(1, 3, 2, 4, dtype=torch.float64)], [CL])

    # ---- binary ops: both, one or the other channels-last; broadcasting ----
    a, b = r(2, 3, 4, 5), r(2, 3, 4, 5)
    case("add_cl_cl", "torch.add", torch.add, [a, b], [CL, CL])
    case("add_cl_contig", "torch.add", torch.add, [a, b], [CL, None])
    case("add_contig_cl", "torch.add", torch.add, [a, b], [None, CL])
    case("mul_cl_contig", "torch.mul", torch.mul, [a, b], [CL, None])
    case("sub_contig_cl", "torch.sub", torch.sub, [a, b], [None, CL])
    case("div_cl_cl", "torch.div", torch.div, [a, b.abs() + 0.5], [CL, CL])
    case("maximum_cl_contig", "torch.maximum", torch.maximum, [a, b], [CL, None])
    case("add_cl_bias_1c11", "torch.add", torch.add, [a, r(1, 3, 1, 1)], [CL, None])
    case("add_bias_1c11_cl", "torch.add", torch.add, [r(1, 3, 1, 1), a], [None, CL])
    case("add_bias_c11_cl", "torch.add", torch.add, [r(3, 1, 1), a], [None, CL])
    case("mul_cl_hw", "torch.mul", torch.mul, [a, r(4, 5)], [CL, None])
    case("mul_hw_cl", "torch.mul", torch.mul, [r(4, 5), a], [None, CL])
    case("add_cl_n111", "torch.add", torch.add, [a, r(2, 1, 1, 1)], [CL, None])
    case("mul_cl_scalar", "torch.mul", lambda x: torch.mul(x, 2.5), [a], [CL], args={"other": 2.5})
    case("add_cl_f32_contig_f64", "torch.add", torch.add, [a, r(2, 3, 4, 5, dtype=torch.float64)], [CL, None])
    case("add_nc11_cl_contig", "torch.add", torch.add, [r(2, 3, 1, 1), r(2, 3, 1, 1)], [CL, None])
    case("add_1chw_cl_contig", "torch.add", torch.add, [r(1, 3, 4, 5), r(1, 3, 4, 5)], [CL, None])

    # three operands (where: the condition first, as TensorIterator's operands)
    cond = r(2, 3, 4, 5) > 0
    case("where_cond_contig_cl_contig", "torch.where", torch.where, [cond, a, b], [None, CL, None])
    case("where_cond_cl_contig_cl", "torch.where", torch.where, [cond, a, b], [CL, None, CL])
    case("lerp_contig_cl_scalar", "torch.lerp", lambda x, y: torch.lerp(x, y, 0.3), [a, b], [None, CL], {"weight": 0.3})
    case("addcmul_cl_bias_cl", "torch.addcmul", torch.addcmul, [a, r(1, 3, 1, 1), b], [CL, None, CL])
    case("clamp_cl", "torch.clamp", lambda x: torch.clamp(x, -0.5, 0.5), [a], [CL], {"min": -0.5, "max": 0.5})
    case("hardswish_cl", "torch.nn.functional.hardswish", F.hardswish, [a], [CL])
    case("softmax_dim1_cl", "torch.softmax", lambda x: torch.softmax(x, 1), [a], [CL], {"dim": 1})

    # ---- conv2d, conv_transpose2d ----
    def c2(**kw):
        return lambda x, wt, *bb: F.conv2d(x, wt, bb[0] if bb else None, **kw)

    def ct(**kw):
        return lambda x, wt, *bb: F.conv_transpose2d(x, wt, bb[0] if bb else None, **kw)
    conv = "torch.nn.functional.conv2d"
    case("conv2d_cl", conv, c2(padding=1), [r(2, 3, 6, 5), r(4, 3, 3, 3), r(4)], [CL, None, None], {"padding": 1})
    case("conv2d_cl_f64", conv, c2(stride=2), [r(2, 3, 7, 6, dtype=torch.float64), r(4, 3, 3, 3, dtype=torch.float64),
                                                r(4, dtype=torch.float64)], [CL, None, None], {"stride": 2})
    case("conv2d_cl_groups", conv, c2(groups=2, padding=1), [r(2, 4, 5, 5), r(6, 2, 3, 3), r(6)], [CL, None, None],
         {"groups": 2, "padding": 1})
    case("conv2d_cl_depthwise", conv, c2(groups=4, padding=1), [r(2, 4, 5, 6), r(4, 1, 3, 3), r(4)], [CL, None, None],
         {"groups": 4, "padding": 1})
    case("conv2d_cl_1x1_nc11", conv, c2(), [r(2, 4, 1, 1), r(3, 4, 1, 1)], [CL, None])
    case("conv2d_cl_weight", conv, c2(padding=1), [r(2, 3, 5, 5), r(4, 3, 3, 3), r(4)], [None, CL, None], {"padding": 1},
         note="a contiguous input with a channels-last weight: PyTorch's output is channels-last")
    case("conv2d_cl_cl_weight", conv, c2(), [r(1, 3, 5, 4), r(2, 3, 2, 2)], [CL, CL])
    case("conv_transpose2d_cl", "torch.nn.functional.conv_transpose2d", ct(stride=2, padding=1),
         [r(2, 3, 3, 4), r(3, 2, 3, 3), r(2)], [CL, None, None], {"stride": 2, "padding": 1})

    # ---- pooling ----
    case("max_pool2d_cl", "torch.nn.functional.max_pool2d", lambda x: F.max_pool2d(x, 3, 2, 1), [u(2, 3, 7, 6)], [CL],
         {"kernel_size": 3, "stride": 2, "padding": 1})
    case("max_pool2d_cl_indices", "torch.nn.functional.max_pool2d", lambda x: F.max_pool2d(x, 2, return_indices=True),
         [u(2, 3, 4, 6)], [CL], {"kernel_size": 2, "return_indices": True})
    case("avg_pool2d_cl", "torch.nn.functional.avg_pool2d", lambda x: F.avg_pool2d(x, 2, 2, 1, count_include_pad=False),
         [r(2, 3, 5, 6)], [CL], {"kernel_size": 2, "stride": 2, "padding": 1, "count_include_pad": False})
    case("adaptive_avg_pool2d_cl", "torch.nn.functional.adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (3, 2)),
         [r(2, 3, 7, 5)], [CL], {"output_size": [3, 2]})
    case("adaptive_avg_pool2d_cl_1", "torch.nn.functional.adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, 1),
         [r(2, 3, 4, 5)], [CL], {"output_size": 1})

    # a contiguous upstream gradient (the other cases pass it in the output's layout)
    case("max_pool2d_cl_gout_contig", "torch.nn.functional.max_pool2d", lambda x: F.max_pool2d(x, 2), [u(2, 3, 4, 6)], [CL],
         {"kernel_size": 2}, gout_like_output=False)
    case("conv2d_cl_gout_contig", conv, c2(padding=1), [r(2, 3, 5, 4), r(4, 3, 3, 3)], [CL, None], {"padding": 1},
         gout_like_output=False)
    case("avg_pool2d_cl_gout_contig", "torch.nn.functional.avg_pool2d", lambda x: F.avg_pool2d(x, 2), [r(2, 3, 4, 6)], [CL],
         {"kernel_size": 2}, gout_like_output=False)
    case("adaptive_avg_pool2d_cl_gout_contig", "torch.nn.functional.adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (2, 3)),
         [r(2, 3, 5, 7)], [CL], {"output_size": [2, 3]}, gout_like_output=False)
    case("adaptive_avg_pool2d_cl_1_gout_contig", "torch.nn.functional.adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, 1),
         [r(2, 3, 4, 5)], [CL], {"output_size": 1}, gout_like_output=False)
    case("relu_cl_gout_contig", "torch.relu", torch.relu, [r(2, 3, 4, 5)], [CL], gout_like_output=False)

    # ---- batch_norm ----
    def bn(training):
        def fn(x, m, v, wt, bb):
            return F.batch_norm(x, m.clone(), v.clone(), wt, bb, training=training, momentum=0.1, eps=1e-5)
        return fn
    for training in (True, False):
        for dt in (torch.float32, torch.float64):
            name = "batch_norm_%s_cl%s" % ("train" if training else "eval", "_f64" if dt == torch.float64 else "")
            case(name, "torch.nn.functional.batch_norm", bn(training),
                 [r(3, 4, 3, 5, dtype=dt), r(4, dtype=dt) * 0.1, torch.rand(4, dtype=torch.float64).to(dt) + 0.5,
                  r(4, dtype=dt), r(4, dtype=dt)], [CL, None, None, None, None],
                 {"training": training, "momentum": 0.1, "eps": 1e-5}, requires_grad=[True, False, False, True, True])
        case("batch_norm_%s_cl_gout_contig" % ("train" if training else "eval"), "torch.nn.functional.batch_norm", bn(training),
             [r(2, 4, 3, 5), r(4) * 0.1, torch.rand(4, dtype=torch.float64).float() + 0.5, r(4), r(4)],
             [CL, None, None, None, None], {"training": training, "momentum": 0.1, "eps": 1e-5},
             requires_grad=[True, False, False, True, True], gout_like_output=False)
