"""Resampling: F.interpolate (nearest, nearest-exact, linear, bilinear, bicubic,
trilinear, area; size or scale_factor, align_corners, recompute_scale_factor;
float32 and float64; channels-last and strided inputs), F.pixel_shuffle /
pixel_unshuffle, F.affine_grid and F.grid_sample (2-D and 3-D, every mode and
padding mode). Values and gradients, and PyTorch's errors.

Also a sweep of the source-index computations (folder sweep/, not a case):
1-D interpolation of arange(I) to many sizes and scale factors, for the C test
to compare bit for bit.

    /usr/bin/python3 tests/reference/cases_nn_resample.py    (or gen_fixtures.py nn_resample)
"""
import math
import os
import sys
import warnings

import numpy as np
import torch
import torch.nn.functional as F

FAM = "nn_resample"
CL = [0, 3, 1, 2]        # permute of a stored NHWC base: a channels-last view
CL3 = [0, 4, 1, 2, 3]    # NDHWC: channels-last-3d
warnings.simplefilter("ignore")   # align_corners=None warnings


def r(*shape, dtype=torch.float64):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


def interp(**kw):
    return lambda x: F.interpolate(x, **kw)


def interpolate_cases(w):
    f32, f64 = torch.float32, torch.float64
    op = "torch.nn.functional.interpolate"

    def c(name, x, permute=None, expect_error=None, tol=None, **kw):
        # float32 bicubic sums 16 weighted values with cancellations: a looser absolute tolerance
        if tol is None and kw.get("mode") == "bicubic" and x.dtype == f32:
            tol = {"atol": 1e-5, "grad_atol": 1e-4}
        w.case(FAM, name, op, interp(**kw), [x], args=dict(kw), permute=[permute] if permute else None,
               expect_error=expect_error, **(tol or {}))

    # nearest, 1-D / 2-D / 3-D
    c("nearest1d_size_up", r(2, 3, 5, dtype=f32), size=9)
    c("nearest1d_size_down", r(2, 3, 9), size=4)
    c("nearest1d_scale_1p7", r(1, 2, 6, dtype=f32), scale_factor=1.7)
    c("nearest1d_scale_0p6", r(1, 2, 7), scale_factor=0.6)
    c("nearest2d_scale2_f32", r(2, 3, 4, 5, dtype=f32), scale_factor=2.0)
    c("nearest2d_scale2_f64", r(2, 3, 4, 5), scale_factor=2.0)
    c("nearest2d_size", r(1, 2, 5, 7, dtype=f32), size=(8, 3))
    c("nearest2d_size_int", r(1, 2, 3, 4), size=6)
    c("nearest2d_scale_tuple", r(2, 2, 4, 6, dtype=f32), scale_factor=(1.5, 0.7))
    c("nearest2d_scale_3", r(1, 2, 3, 3), scale_factor=3.0)
    c("nearest2d_recompute", r(1, 2, 5, 5), scale_factor=1.3, recompute_scale_factor=True)
    c("nearest2d_recompute_false", r(1, 2, 5, 5, dtype=f32), scale_factor=1.3, recompute_scale_factor=False)
    c("nearest2d_channels_last", r(2, 3, 4, 5, dtype=f32), permute=CL, scale_factor=2.0)
    c("nearest2d_channels_last_size", r(2, 4, 5, 3), permute=CL, size=(7, 4))
    c("nearest2d_strided", r(2, 4, 3, 5), permute=[0, 2, 1, 3], size=(6, 9))
    c("nearest2d_batch0", r(0, 2, 3, 3, dtype=f32), scale_factor=2.0)
    c("nearest3d_scale2", r(1, 2, 2, 3, 4, dtype=f32), scale_factor=2.0)
    c("nearest3d_size", r(2, 2, 3, 4, 3), size=(5, 2, 6))
    c("nearest3d_channels_last_3d", r(1, 3, 2, 3, 4, dtype=f32), permute=CL3, size=(3, 5, 6))
    # nearest-exact
    c("nearest_exact1d_size", r(2, 3, 5, dtype=f32), mode="nearest-exact", size=8)
    c("nearest_exact1d_down", r(1, 2, 10), mode="nearest-exact", size=4)
    c("nearest_exact2d_scale", r(2, 2, 4, 5, dtype=f32), mode="nearest-exact", scale_factor=1.5)
    c("nearest_exact2d_size", r(1, 3, 5, 4), mode="nearest-exact", size=(3, 7))
    c("nearest_exact2d_channels_last", r(2, 3, 4, 5, dtype=f32), permute=CL, mode="nearest-exact", size=(7, 9))
    c("nearest_exact3d", r(1, 2, 3, 2, 4), mode="nearest-exact", scale_factor=(1.5, 2.0, 0.5))
    # linear (3-D input)
    for ac in (False, True):
        t = "ac" if ac else "noac"
        c("linear1d_up_%s" % t, r(2, 3, 5, dtype=f32), mode="linear", size=11, align_corners=ac)
        c("linear1d_down_%s" % t, r(2, 2, 9), mode="linear", size=4, align_corners=ac)
        c("linear1d_scale_%s" % t, r(1, 3, 6), mode="linear", scale_factor=1.7, align_corners=ac)
    c("linear1d_same_size", r(1, 2, 6), mode="linear", size=6)
    c("linear1d_to_one", r(1, 2, 6), mode="linear", size=1, align_corners=True)
    c("linear1d_recompute", r(1, 2, 7, dtype=f32), mode="linear", scale_factor=0.6, recompute_scale_factor=True)
    # bilinear
    for ac in (False, True):
        t = "ac" if ac else "noac"
        c("bilinear_scale2_%s_f32" % t, r(2, 3, 4, 5, dtype=f32), mode="bilinear", scale_factor=2.0, align_corners=ac)
        c("bilinear_scale2_%s_f64" % t, r(2, 3, 4, 5), mode="bilinear", scale_factor=2.0, align_corners=ac)
        c("bilinear_size_%s" % t, r(1, 2, 5, 7), mode="bilinear", size=(8, 3), align_corners=ac)
        c("bilinear_down_%s" % t, r(2, 2, 9, 8, dtype=f32), mode="bilinear", size=(4, 3), align_corners=ac)
        c("bilinear_channels_last_%s" % t, r(2, 5, 4, 6, dtype=f32), permute=CL, mode="bilinear", scale_factor=(1.5, 2.5),
          align_corners=ac)
    c("bilinear_scale_tuple", r(1, 2, 5, 6), mode="bilinear", scale_factor=(1.3, 0.8))
    c("bilinear_recompute", r(1, 2, 5, 6), mode="bilinear", scale_factor=1.3, recompute_scale_factor=True)
    c("bilinear_same_size", r(1, 2, 4, 5), mode="bilinear", size=(4, 5))
    c("bilinear_one_pixel", r(2, 2, 1, 1, dtype=f32), mode="bilinear", size=(3, 4))
    c("bilinear_to_one_ac", r(1, 2, 4, 5), mode="bilinear", size=(1, 1), align_corners=True)
    c("bilinear_strided", r(2, 5, 3, 4), permute=[0, 2, 3, 1], mode="bilinear", size=(7, 5))
    c("bilinear_channels_last_f64", r(2, 6, 3, 4), permute=CL, mode="bilinear", size=(6, 9))
    c("bilinear_channels_last_one_channel", r(2, 1, 3, 4, dtype=f32), permute=CL, mode="bilinear", scale_factor=2.0)
    c("bilinear_batch0", r(0, 2, 3, 3), mode="bilinear", scale_factor=2.0)
    # bicubic
    for ac in (False, True):
        t = "ac" if ac else "noac"
        c("bicubic_scale2_%s_f32" % t, r(2, 2, 4, 5, dtype=f32), mode="bicubic", scale_factor=2.0, align_corners=ac)
        c("bicubic_size_%s" % t, r(1, 2, 5, 7), mode="bicubic", size=(9, 4), align_corners=ac)
        c("bicubic_down_%s" % t, r(1, 3, 9, 8), mode="bicubic", size=(4, 3), align_corners=ac)
    c("bicubic_scale_tuple", r(1, 2, 4, 6, dtype=f32), mode="bicubic", scale_factor=(1.6, 0.7))
    c("bicubic_channels_last", r(2, 3, 4, 5, dtype=f32), permute=CL, mode="bicubic", scale_factor=2.0)
    c("bicubic_small_input", r(1, 1, 2, 3), mode="bicubic", size=(5, 7))
    # trilinear
    for ac in (False, True):
        t = "ac" if ac else "noac"
        c("trilinear_scale2_%s_f32" % t, r(1, 2, 2, 3, 4, dtype=f32), mode="trilinear", scale_factor=2.0, align_corners=ac)
        c("trilinear_size_%s" % t, r(2, 2, 3, 4, 3), mode="trilinear", size=(5, 2, 6), align_corners=ac)
    c("trilinear_scale_tuple", r(1, 2, 3, 3, 4), mode="trilinear", scale_factor=(1.5, 0.7, 2.0))
    c("trilinear_channels_last_3d", r(1, 3, 2, 3, 4, dtype=f32), permute=CL3, mode="trilinear", size=(4, 5, 3))
    c("trilinear_down", r(1, 2, 6, 5, 7), mode="trilinear", size=(3, 2, 4))
    # area (adaptive average pooling)
    c("area1d_size", r(2, 3, 9, dtype=f32), mode="area", size=4)
    c("area2d_scale", r(2, 2, 6, 7), mode="area", scale_factor=0.5)
    c("area2d_size_up", r(1, 2, 3, 4, dtype=f32), mode="area", size=(5, 6))
    c("area2d_channels_last", r(2, 3, 6, 5, dtype=f32), permute=CL, mode="area", size=(3, 2))
    c("area3d_size", r(1, 2, 4, 5, 6), mode="area", size=(2, 3, 4))
    c("area3d_scale", r(1, 2, 4, 6, 5, dtype=f32), mode="area", scale_factor=(0.5, 0.5, 0.6))
    # errors
    x4, x3, x5 = r(1, 2, 3, 4), r(1, 2, 5), r(1, 2, 3, 4, 5)
    E = True
    c("err_size_and_scale", x4, expect_error=E, size=3, scale_factor=2.0)
    c("err_neither", x4, expect_error=E)
    c("err_size_len", x4, expect_error=E, size=[3, 4, 5])
    c("err_scale_len", x4, expect_error=E, scale_factor=[2.0, 2.0, 2.0])
    c("err_align_nearest", x4, expect_error=E, size=3, align_corners=True)
    c("err_align_area", x4, expect_error=E, mode="area", size=3, align_corners=False)
    c("err_trilinear_4d", x4, expect_error=E, mode="trilinear", size=3)
    c("err_linear_4d", x4, expect_error=E, mode="linear", size=3)
    c("err_bilinear_3d", x3, expect_error=E, mode="bilinear", size=3)
    c("err_bicubic_5d", x5, expect_error=E, mode="bicubic", size=3)
    c("err_rank_2", r(2, 3), expect_error=E, size=3)
    c("err_unknown_mode", x4, expect_error=E, mode="foo", size=3)
    c("err_zero_size", x4, expect_error=E, mode="bilinear", size=[0, 3])
    c("err_negative_size", x4, expect_error=E, size=[-1, 3])
    c("err_scale_to_zero", x4, expect_error=E, scale_factor=0.1)
    c("err_negative_scale", x4, expect_error=E, mode="bilinear", scale_factor=-2.0)
    c("err_recompute_with_size", x4, expect_error=E, size=3, recompute_scale_factor=True)
    c("err_antialias_nearest", x4, expect_error=E, scale_factor=2.0, antialias=True)
    c("err_empty_channels", r(1, 0, 3, 3), expect_error=E, scale_factor=2.0)
    c("err_empty_spatial", r(1, 2, 0, 3), expect_error=E, mode="bilinear", scale_factor=2.0)
    c("err_zero_size_1d", x3, expect_error=E, mode="linear", scale_factor=0.1)
    c("err_zero_size_3d", x5, expect_error=E, mode="trilinear", size=[1, 0, 2])
    c("err_long_input", x4.long(), expect_error=E, mode="bilinear", scale_factor=2.0)


def pixel_shuffle_cases(w):
    f32 = torch.float32
    ps, pu = "torch.nn.functional.pixel_shuffle", "torch.nn.functional.pixel_unshuffle"

    def s(name, x, k, permute=None, expect_error=None):
        w.case(FAM, name, ps, lambda t: F.pixel_shuffle(t, k), [x], args={"upscale_factor": k},
               permute=[permute] if permute else None, expect_error=expect_error)

    def u(name, x, k, permute=None, expect_error=None):
        w.case(FAM, name, pu, lambda t: F.pixel_unshuffle(t, k), [x], args={"downscale_factor": k},
               permute=[permute] if permute else None, expect_error=expect_error)

    s("pixel_shuffle_2", r(2, 8, 3, 4, dtype=f32), 2)
    s("pixel_shuffle_3_f64", r(1, 18, 2, 3), 3)
    s("pixel_shuffle_unbatched", r(12, 2, 3), 2)
    s("pixel_shuffle_5d", r(2, 3, 8, 2, 2, dtype=f32), 2)
    s("pixel_shuffle_channels_last", r(2, 12, 3, 2, dtype=f32), 2, permute=CL)
    s("pixel_shuffle_strided", r(2, 8, 3, 2), 2, permute=[0, 2, 1, 3])
    s("pixel_shuffle_1", r(1, 3, 2, 2), 1)
    s("pixel_shuffle_int64", torch.arange(2 * 8 * 2 * 3).reshape(2, 8, 2, 3), 2)
    u("pixel_unshuffle_2", r(2, 2, 6, 4, dtype=f32), 2)
    u("pixel_unshuffle_3_f64", r(1, 2, 6, 9), 3)
    u("pixel_unshuffle_unbatched", r(3, 4, 4), 2)
    u("pixel_unshuffle_5d", r(2, 2, 3, 4, 6, dtype=f32), 2)
    u("pixel_unshuffle_channels_last", r(2, 3, 4, 6, dtype=f32), 2, permute=CL)
    u("pixel_unshuffle_int32", torch.arange(2 * 4 * 4).reshape(2, 4, 4).int(), 2)
    E = True
    s("err_pixel_shuffle_dims", r(2, 3), 2, expect_error=E)
    s("err_pixel_shuffle_channels", r(1, 5, 2, 2), 2, expect_error=E)
    s("err_pixel_shuffle_factor", r(1, 8, 2, 2), 0, expect_error=E)
    s("err_pixel_shuffle_negative", r(1, 8, 2, 2), -2, expect_error=E)
    u("err_pixel_unshuffle_dims", r(2, 3), 2, expect_error=E)
    u("err_pixel_unshuffle_height", r(1, 5, 3, 2), 2, expect_error=E)
    u("err_pixel_unshuffle_width", r(1, 5, 2, 3), 2, expect_error=E)
    u("err_pixel_unshuffle_factor", r(1, 8, 2, 2), 0, expect_error=E)


def rotation_theta(n, dims, dtype):
    th = []
    for i in range(n):
        a = 0.3 + 0.4 * i
        if dims == 2:
            th.append([[math.cos(a) * 1.1, -math.sin(a), 0.1 * i], [math.sin(a), math.cos(a) * 0.9, -0.2]])
        else:
            th.append([[math.cos(a), -math.sin(a), 0.1, 0.05 * i], [math.sin(a), math.cos(a), 0.0, -0.1],
                       [0.1, 0.2, 0.9, 0.15]])
    return torch.tensor(th, dtype=dtype)


def affine_grid_cases(w):
    op = "torch.nn.functional.affine_grid"

    def a(name, theta, size, ac, expect_error=None, rtol=None, atol=None):
        w.case(FAM, name, op, lambda t: F.affine_grid(t, size, align_corners=ac), [theta],
               args={"size": list(size), "align_corners": ac}, expect_error=expect_error, rtol=rtol, atol=atol)

    for ac in (False, True):
        t = "ac" if ac else "noac"
        a("affine_grid_2d_%s_f32" % t, rotation_theta(2, 2, torch.float32), [2, 3, 4, 5], ac, atol=1e-6)
        a("affine_grid_2d_%s_f64" % t, rotation_theta(2, 2, torch.float64), [2, 1, 5, 3], ac)
        a("affine_grid_3d_%s" % t, rotation_theta(2, 3, torch.float64), [2, 1, 3, 4, 2], ac)
    a("affine_grid_3d_f32", rotation_theta(1, 3, torch.float32), [1, 2, 2, 3, 4], False, atol=1e-6)
    a("affine_grid_unit_ac", rotation_theta(2, 2, torch.float64), [2, 3, 1, 5], True)
    a("affine_grid_unit_noac", rotation_theta(1, 2, torch.float64), [1, 1, 1, 4], False)
    E = True
    a("err_affine_grid_theta_3d_size", rotation_theta(2, 2, torch.float64), [2, 3, 4, 5, 6], False, expect_error=E)
    a("err_affine_grid_size_len", rotation_theta(2, 2, torch.float64), [2, 3, 4], False, expect_error=E)
    a("err_affine_grid_zero_size", rotation_theta(2, 2, torch.float64), [2, 3, 0, 5], False, expect_error=E)
    a("err_affine_grid_theta_shape", r(2, 3, 4), [2, 3, 4, 5], False, expect_error=E)
    a("err_affine_grid_batch", rotation_theta(2, 2, torch.float64), [3, 3, 4, 5], False, expect_error=E)
    a("err_affine_grid_int_theta", torch.ones(2, 2, 3, dtype=torch.int64), [2, 3, 4, 5], False, expect_error=E)


def grid_sample_cases(w):
    op = "torch.nn.functional.grid_sample"
    f32, f64 = torch.float32, torch.float64

    def g(name, x, grid, mode="bilinear", pad="zeros", ac=False, permute=None, expect_error=None, **tol):
        w.case(FAM, name, op, lambda t, gr: F.grid_sample(t, gr, mode=mode, padding_mode=pad, align_corners=ac), [x, grid],
               args={"mode": mode, "padding_mode": pad, "align_corners": ac}, permute=permute, expect_error=expect_error,
               **tol)

    def grid(*shape, dtype=f64, spread=1.3):
        return (torch.rand(shape, dtype=torch.float64) * 2 - 1).mul(spread).to(dtype)

    # 2-D: every mode x padding x align_corners in float64, some in float32
    for mode in ("bilinear", "nearest", "bicubic"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (False, True):
                t = "%s_%s_%s" % (mode, pad, "ac" if ac else "noac")
                g("grid_sample2d_%s" % t, r(2, 3, 4, 5), grid(2, 3, 6, 2), mode, pad, ac)
            g("grid_sample2d_%s_f32" % ("%s_%s" % (mode, pad)), r(2, 2, 5, 4, dtype=f32), grid(2, 4, 3, 2, dtype=f32),
              mode, pad, False, rtol=1e-4, atol=1e-5, grad_rtol=1e-3, grad_atol=1e-4)
    g("grid_sample2d_far_outside", r(1, 2, 3, 4), grid(1, 4, 4, 2, spread=4.0), "bilinear", "reflection", False)
    g("grid_sample2d_far_outside_border", r(1, 2, 3, 4), grid(1, 4, 4, 2, spread=3.0), "bicubic", "border", True)
    g("grid_sample2d_channels_last", r(2, 3, 4, 5, dtype=f32), grid(2, 3, 4, 2, dtype=f32), permute=[CL, None],
      rtol=1e-4, atol=1e-5, grad_rtol=1e-3, grad_atol=1e-4)
    g("grid_sample2d_strided_grid", r(1, 2, 4, 5), grid(1, 3, 4, 2), permute=[None, [0, 2, 1, 3]])
    g("grid_sample2d_one_pixel", r(1, 2, 1, 1), grid(1, 3, 3, 2), "bilinear", "border", True)
    g("grid_sample2d_affine", r(2, 3, 6, 7), F.affine_grid(rotation_theta(2, 2, f64), [2, 3, 5, 6], align_corners=False))
    # 3-D: bilinear (trilinear) and nearest
    for mode in ("bilinear", "nearest"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (False, True):
                t = "%s_%s_%s" % (mode, pad, "ac" if ac else "noac")
                g("grid_sample3d_%s" % t, r(1, 2, 3, 4, 3), grid(1, 2, 3, 2, 3), mode, pad, ac)
    g("grid_sample3d_f32", r(2, 2, 3, 3, 4, dtype=f32), grid(2, 2, 2, 3, 3, dtype=f32), "bilinear", "zeros", False,
      rtol=1e-4, atol=1e-5, grad_rtol=1e-3, grad_atol=1e-4)
    E = True
    x = r(1, 2, 3, 4)
    g("err_grid_sample_mode", x, grid(1, 5, 6, 2), mode="foo", expect_error=E)
    g("err_grid_sample_padding", x, grid(1, 5, 6, 2), pad="foo", expect_error=E)
    g("err_grid_sample_last_dim", x, grid(1, 5, 6, 3), expect_error=E)
    g("err_grid_sample_batch", x, grid(2, 5, 6, 2), expect_error=E)
    g("err_grid_sample_grid_rank", x, grid(1, 5, 6, 2, 2), expect_error=E)
    g("err_grid_sample_3d_input", r(2, 3, 4), grid(2, 3, 1), expect_error=E)
    g("err_grid_sample_dtype", r(1, 2, 3, 4, dtype=f32), grid(1, 5, 6, 2), expect_error=E)
    g("err_grid_sample_bicubic_5d", r(1, 2, 3, 4, 5), grid(1, 2, 3, 4, 3), mode="bicubic", expect_error=E)
    g("err_grid_sample_empty_spatial", r(1, 2, 0, 4), grid(1, 5, 6, 2), expect_error=E)


def sweep_fixture(root):
    """1-D interpolation of arange(I) (float32, float64) to many output sizes and scale factors."""
    d = os.path.join(root, FAM, "sweep")
    os.makedirs(d, exist_ok=True)
    combos = []
    for i in range(1, 13):
        for o in range(1, 26):
            combos.append((i, o, 0.0))
        for s in (0.3, 0.5, 0.7, 0.9, 1.1, 1.3, 1.5, 1.7, 2.0, 2.5, 3.0, 1 / 3, 2 / 3, 1 / 7, 3.3, 4.0, 5.0):
            o = int(math.floor(i * s))
            if o >= 1:
                combos.append((i, o, s))
    np.save(os.path.join(d, "params.npy"), np.array(combos, dtype=np.float64))
    for dt, tag in ((torch.float32, "f32"), (torch.float64, "f64")):
        for mode, ac, mtag in (("nearest", None, "nearest"), ("nearest-exact", None, "exact"), ("linear", False, "linear"),
                               ("linear", True, "linear_ac")):
            out = []
            for (i, o, s) in combos:
                x = torch.arange(i, dtype=dt).reshape(1, 1, i)
                kw = {"size": o} if s == 0 else {"scale_factor": s}
                y = F.interpolate(x, mode=mode, align_corners=ac, **kw)
                assert y.shape[-1] == o
                out.append(y.flatten())
            np.save(os.path.join(d, "%s_%s.npy" % (mtag, tag)), torch.cat(out).numpy())
        # bicubic along W (H = 1)
        for ac, mtag in ((False, "cubic"), (True, "cubic_ac")):
            out = []
            for (i, o, s) in combos:
                x = torch.arange(i, dtype=dt).reshape(1, 1, 1, i)
                kw = {"size": (1, o)} if s == 0 else {"scale_factor": (1.0, s)}
                out.append(F.interpolate(x, mode="bicubic", align_corners=ac, **kw).flatten())
            np.save(os.path.join(d, "%s_%s.npy" % (mtag, tag)), torch.cat(out).numpy())


def generate(w):
    interpolate_cases(w)
    pixel_shuffle_cases(w)
    affine_grid_cases(w)
    grid_sample_cases(w)
    sweep_fixture(w.root)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gen_fixtures  # noqa: E402
    gen_fixtures.main([FAM])
