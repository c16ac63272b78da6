/* ctensor_quant.h - int8 quantization for ctensor: quantized tensors, observers,
   fake quantization, int8 kernels.                                 v0.1 (2026-11-28)

   HOW TO USE
     #define CTENSOR_IMPLEMENTATION          (in exactly one file)
     #include "ctensor.h"
     #include "ctensor_nn.h"
     #include "ctensor_quant.h"              (after ctensor.h and ctensor_nn.h)
     link with -lm (nothing else: the int8 kernels are this header's own)

     The implementation uses ctensor.h's internals (the op table, the dispatcher),
     so it is compiled in the translation unit that defines CTENSOR_IMPLEMENTATION:
     there CTENSOR_QUANT_IMPLEMENTATION is turned on automatically. Other files
     include the three headers for the declarations only.

   THE FEEL (PyTorch's torch.quantize_per_tensor, torch.ao.quantization)
       ct_tensor *q = ct_quantize_per_tensor(x, 0.1, 10, CT_QUINT8);
       ct_tensor *back = ct_dequantize(q);              // float32 again
       ct_tensor *codes = ct_int_repr(q);               // the uint8 codes
       printf("%g %lld\n", ct_q_scale(q), (long long)ct_q_zero_point(q));

   CONVENTIONS
     - Quantized dtypes are CT_QINT8 (int8 codes), CT_QUINT8 (uint8) and CT_QINT32
       (int32). A quantized tensor carries its parameters (ctensor.h's ct_qparams:
       per tensor, or per channel along an axis), shared with its views.
     - Rounding is PyTorch's: q = clamp(zero_point + nearbyint(x * (1/scale)), qmin,
       qmax), the product in float32 (float inverse scale), ties to even.
       Dequantization is (q - zero_point) * scale in float32.
     - Only float32 tensors quantize, as in PyTorch ("Quantize only works on Float
       Tensor, got Double").
     - Errors name the op and the values (CT_ERR_ARG for bad parameters,
       CT_ERR_DTYPE for bad dtypes), as PyTorch's do.

   OPS AND BACKENDS
     Every operation is an op of ctensor's one table (names as PyTorch's:
     "aten::quantize_per_tensor", "aten::dequantize.self", "aten::int_repr", ...),
     so tracing, profiling and the dispatch hook see them. Ops whose inputs are
     quantized run on the QuantizedCPU backend: this header registers their
     kernels and metas there (ct_register_backend_op).

   STATUS (v0.1)
     Quantized tensors: quantize / dequantize per tensor and per channel, int_repr,
     the parameter accessors, quantize_per_tensor_dynamic, making a quantized
     tensor from its codes.

   CONTENTS (search for the banner titles)
     Declarations:
       Quantized tensors
       Observers, fake quantization, qconfigs
       int8 GEMM and quantized linear
       Quantized ops: conv2d, add, mul, relu, pooling, cat
     Implementation:
       The op table of this header
       Quantized tensors: kernels
       Observers, fake quantization, qconfigs: implementation
       int8 GEMM and quantized linear: implementation
       Quantized ops: conv2d, add, mul, relu, pooling, cat: implementation
*/
#ifndef CTENSOR_QUANT_H_INCLUDED
#define CTENSOR_QUANT_H_INCLUDED
#include "ctensor.h"
#include "ctensor_nn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================
   Quantized tensors
   ========================================================================== */
/* x (float32) -> a quantized tensor of dtype CT_QINT8, CT_QUINT8 or CT_QINT32 with
   one scale and zero point (torch.quantize_per_tensor). */
CTENSOR_API ct_tensor *ct_quantize_per_tensor(const ct_tensor *x, double scale, int64_t zero_point, ct_dtype dtype);
/* One scale and zero point per index of `axis` (torch.quantize_per_channel):
   scales float (any float dtype, read as double), zero_points integer, both 1-D
   of x's size along axis. */
CTENSOR_API ct_tensor *ct_quantize_per_channel(const ct_tensor *x, const ct_tensor *scales, const ct_tensor *zero_points,
                                               int64_t axis, ct_dtype dtype);
/* Parameters chosen from x's range as PyTorch's dynamic quantization does
   (torch.quantize_per_tensor_dynamic: min/max including 0, reduce_range halves
   the quantized range), then quantize_per_tensor. dtype CT_QINT8 or CT_QUINT8. */
CTENSOR_API ct_tensor *ct_quantize_per_tensor_dynamic(const ct_tensor *x, ct_dtype dtype, int reduce_range);
/* q -> float32: (code - zero_point) * scale (torch.dequantize). */
CTENSOR_API ct_tensor *ct_dequantize(const ct_tensor *q);
/* The codes as a plain integer tensor: int8, uint8 or int32 (Tensor.int_repr). */
CTENSOR_API ct_tensor *ct_int_repr(const ct_tensor *q);
/* Codes (int8 for CT_QINT8, uint8 for CT_QUINT8, int32 for CT_QINT32) plus
   parameters -> a quantized tensor sharing nothing with `codes`
   (torch._make_per_tensor_quantized_tensor / _make_per_channel_quantized_tensor). */
CTENSOR_API ct_tensor *ct_make_per_tensor_quantized(const ct_tensor *codes, double scale, int64_t zero_point);
CTENSOR_API ct_tensor *ct_make_per_channel_quantized(const ct_tensor *codes, const ct_tensor *scales,
                                                     const ct_tensor *zero_points, int64_t axis);
/* Parameters (Tensor.q_scale, q_zero_point, q_per_channel_scales (float64),
   q_per_channel_zero_points (int64), q_per_channel_axis, qscheme). Errors (NAN,
   -1, NULL) for a tensor that is not quantized or has the other scheme. */
CTENSOR_API double ct_q_scale(const ct_tensor *q);
CTENSOR_API int64_t ct_q_zero_point(const ct_tensor *q);
CTENSOR_API ct_tensor *ct_q_per_channel_scales(const ct_tensor *q);
CTENSOR_API ct_tensor *ct_q_per_channel_zero_points(const ct_tensor *q);
CTENSOR_API int64_t ct_q_per_channel_axis(const ct_tensor *q);
CTENSOR_API ct_qscheme ct_q_qscheme(const ct_tensor *q);      /* (ct_qscheme)-1 when not quantized */
CTENSOR_API const char *ct_qscheme_name(ct_qscheme s);         /* "per_tensor_affine", ... */
/* The code range of a quantized dtype: [-128, 127], [0, 255], [INT32_MIN, INT32_MAX];
   0 for other dtypes. */
CTENSOR_API int ct_qdtype_range(ct_dtype dtype, int64_t *qmin, int64_t *qmax);
/* PyTorch's C++ ChooseQuantizationParams (the choice of dynamic quantization and of
   the quantized ops' outputs): the range [min, max] (float32) is widened to hold 0;
   scale = (max - min) / (qmax - qmin) (0.1 when that is 0 or its inverse overflows,
   at least 6.1e-5); the zero point from whichever end loses less, rounded and
   clamped. reduce_range halves qmin and qmax first; preserve_sparsity makes the
   range symmetric. Returns 0, or -1 with the error set when min > max or either is
   not finite. */
CTENSOR_API int ct_q_choose_qparams(double min, double max, int64_t qmin, int64_t qmax, int preserve_sparsity,
                                    int reduce_range, double *scale, int64_t *zero_point);

/* ============================================================================
   Observers, fake quantization, qconfigs
   ========================================================================== */
/* SECTION-OBSERVERS-DECL (helper A fills this section) */

/* ============================================================================
   int8 GEMM and quantized linear
   ========================================================================== */
/* SECTION-GEMM-DECL (helper B fills this section) */

/* ============================================================================
   Quantized ops: conv2d, add, mul, relu, pooling, cat
   ========================================================================== */
/* SECTION-QOPS-DECL (helper C fills this section) */
/* Quantized activations (quint8 as PyTorch's quantized CPU ops; qint8 and qint32
   where the op allows) flow through the ordinary ops: ct_relu / ct_relu_,
   ct_max_pool2d, ct_avg_pool2d, ct_adaptive_avg_pool2d, ct_cat, ct_clone,
   ct_contiguous (and so ct_reshape when it must copy), and every view (ct_view,
   ct_flatten, ct_permute, ...) accept a per-tensor quantized input and keep its
   parameters, as PyTorch's QuantizedCPU kernels do: relu clamps the codes at the
   zero point; max pooling compares codes; the average pools average the codes with
   PyTorch's rounding; ct_cat requantizes every input to the first one's parameters.
   ct_max_pool2d_with_indices also gives the indices (PyTorch has no quantized
   kernel for them). */

/* quantized::add / add_relu / mul / mul_relu: dequantize, compute in float32,
   requantize to (scale, zero_point) with PyTorch's rounding (mul: the integer
   product of the shifted codes times sa * sb / scale). Per-tensor inputs of one
   dtype; b broadcasts to a's shape; the result has a's dtype, shape and layout. */
CTENSOR_API ct_tensor *ct_q_add(const ct_tensor *a, const ct_tensor *b, double scale, int64_t zero_point);
CTENSOR_API ct_tensor *ct_q_add_relu(const ct_tensor *a, const ct_tensor *b, double scale, int64_t zero_point);
CTENSOR_API ct_tensor *ct_q_mul(const ct_tensor *a, const ct_tensor *b, double scale, int64_t zero_point);
CTENSOR_API ct_tensor *ct_q_mul_relu(const ct_tensor *a, const ct_tensor *b, double scale, int64_t zero_point);
/* quantized::cat: the n inputs (per tensor, one dtype) requantized to (scale,
   zero_point) and concatenated along dim; scale NAN: the first input's parameters
   (what ct_cat does). */
CTENSOR_API ct_tensor *ct_q_cat(int n, ct_tensor *const *ts, int dim, double scale, int64_t zero_point);

/* Quantized conv2d (quantized::conv2d, conv2d_relu; torch.ao.nn.quantized.Conv2d).
   A packed weight holds the qint8 weight (per tensor, or per channel along dim 0)
   of logical shape [out, in/groups, kH, kW] stored channels-last (out, kH, kW,
   in/groups: each output channel's taps contiguous), the float32 bias [out] or
   NULL, and the geometry. Inputs are quint8 (any layout; NHWC is read without a
   copy); the output is quint8, channels-last (as PyTorch's), with the given scale
   and zero point: q = zp + round((acc * sx * sw[o] + bias[o]) / scale), acc the
   int32 sum of (x - zx)(w - zw); conv2d_relu clamps the codes at zp. */
typedef struct ct_q_conv_packed {
    ct_tensor *weight;        /* qint8, owned (one reference) */
    ct_tensor *bias;          /* float32 [out] or NULL, owned */
    int64_t stride[2], padding[2], dilation[2], groups;
} ct_q_conv_packed;
/* (torch.ops.quantized.conv2d_prepack) weight: qint8 [out, in/groups, kH, kW];
   bias: float [out] or NULL; o: stride / padding / dilation / groups (NULL: the
   defaults; padding_str "same"/"valid" is not supported here). NULL with the error
   set on bad input. Free with ct_q_conv_packed_free. */
CTENSOR_API ct_q_conv_packed *ct_q_conv2d_prepack(const ct_tensor *weight, const ct_tensor *bias, const ct_conv_options *o);
CTENSOR_API void ct_q_conv_packed_free(ct_q_conv_packed *p);
CTENSOR_API ct_tensor *ct_q_conv2d(const ct_tensor *x, const ct_q_conv_packed *w, double scale, int64_t zero_point);
CTENSOR_API ct_tensor *ct_q_conv2d_relu(const ct_tensor *x, const ct_q_conv_packed *w, double scale, int64_t zero_point);

/* Modules of the static workflow (torch.ao.nn.quantized), for convert: Quantize
   (what a QuantStub becomes: float32 in, quantized out; buffers "scale" (float32
   [1]) and "zero_point" (int64 [1])), DeQuantize, and QuantizedConv2d /
   QuantizedConvReLU2d (relu != 0) around a packed weight, which the module takes
   over (freed with it, or at once when the call fails); its state dict is
   PyTorch's: weight (qint8), bias (float32, or absent), scale (float32 0-d),
   zero_point (int64 0-d). ct_nn_relu and the pooling modules already take quantized
   inputs. Reprs are PyTorch's. */
CTENSOR_API ct_module *ct_nnq_quantize(double scale, int64_t zero_point, ct_dtype dtype);
CTENSOR_API ct_module *ct_nnq_dequantize(void);
CTENSOR_API ct_module *ct_nnq_conv2d(ct_q_conv_packed *packed, double scale, int64_t zero_point, int relu);

#ifdef __cplusplus
}  /* extern "C" */
#endif
#endif /* CTENSOR_QUANT_H_INCLUDED */

/* ############################################################################
   IMPLEMENTATION
   ############################################################################ */
#if defined(CTENSOR_IMPLEMENTATION) && !defined(CTENSOR_QUANT_NO_IMPLEMENTATION) && !defined(CTENSOR_QUANT_IMPLEMENTATION)
#define CTENSOR_QUANT_IMPLEMENTATION
#endif
#ifdef CTENSOR_QUANT_IMPLEMENTATION
#ifndef CTENSOR_QUANT_IMPLEMENTATION_DONE
#define CTENSOR_QUANT_IMPLEMENTATION_DONE
#ifndef CTENSOR_IMPLEMENTATION_DONE
#error "ctensor_quant.h: the implementation needs ctensor.h's implementation in the same translation unit (define CTENSOR_IMPLEMENTATION before including ctensor.h)"
#endif
#ifndef CTENSOR_NN_IMPLEMENTATION_DONE
#error "ctensor_quant.h: the implementation needs ctensor_nn.h's implementation in the same translation unit (include ctensor_nn.h before ctensor_quant.h)"
#endif

/* ============================================================================
   The op table of this header (rows in ctensor.h's X-macro format)
   Each section keeps its own list; the QuantizedCPU registrations of a section
   are in its ct__q_*_backends function (called once, after the ops register).
   ========================================================================== */
/* quantized tensors */
#define CT__OPS_Q_CORE(X)                                                                                          \
    X(QUANTIZE_PER_TENSOR, "aten::quantize_per_tensor", "quantize_per_tensor", "", 1, 1, CT__OPF_NONDIFF,             \
      "float scale=s0, int zero_point=i0, dtype dtype=dt", ct__q_meta_quantize, ct__q_k_quantize, ct__bw_none, CT__SAVE_NONE) \
    X(QUANTIZE_PER_CHANNEL, "aten::quantize_per_channel", "quantize_per_channel", "", 3, 1, CT__OPF_NONDIFF,          \
      "int axis=i0, dtype dtype=dt", ct__q_meta_quantize, ct__q_k_quantize, ct__bw_none, CT__SAVE_NONE)             \
    X(DEQUANTIZE, "aten::dequantize.self", "dequantize", "", 1, 1, CT__OPF_NONDIFF, "", ct__q_meta_dequantize,         \
      ct__q_k_dequantize, ct__bw_none, CT__SAVE_NONE)                                                               \
    X(INT_REPR, "aten::int_repr", "int_repr", "", 1, 1, CT__OPF_NONDIFF, "", ct__q_meta_dequantize, ct__q_k_int_repr,  \
      ct__bw_none, CT__SAVE_NONE)                                                                                   \
    X(MAKE_PER_TENSOR, "aten::_make_per_tensor_quantized_tensor", "_make_per_tensor_quantized_tensor", "", 1, 1,       \
      CT__OPF_NONDIFF, "float scale=s0, int zero_point=i0", ct__q_meta_make, ct__q_k_make, ct__bw_none, CT__SAVE_NONE) \
    X(MAKE_PER_CHANNEL, "aten::_make_per_channel_quantized_tensor", "_make_per_channel_quantized_tensor", "", 3, 1,    \
      CT__OPF_NONDIFF, "int axis=i0", ct__q_meta_make, ct__q_k_make, ct__bw_none, CT__SAVE_NONE)


/* observers, fake quantization (SECTION-OBSERVERS-OPS: helper A's rows) */
#define CT__OPS_Q_FAKE(X)


/* int8 GEMM, quantized linear (SECTION-GEMM-OPS: helper B's rows) */
#define CT__OPS_Q_GEMM(X)


/* quantized conv2d, add, mul, relu, pooling, cat (SECTION-QOPS-OPS: helper C's rows) */
#define CT__OPS_Q_QOPS(X)                                                                                          \
    X(QADD, "quantized::add", "q_add", "", 2, 1, CT__OPF_NONDIFF, "float scale=s0, int zero_point=i0",                 \
      ct__qo_meta_binary, ct__qo_k_binary, ct__bw_none, CT__SAVE_NONE)                                              \
    X(QADD_RELU, "quantized::add_relu", "q_add_relu", "", 2, 1, CT__OPF_NONDIFF, "float scale=s0, int zero_point=i0", \
      ct__qo_meta_binary, ct__qo_k_binary, ct__bw_none, CT__SAVE_NONE)                                              \
    X(QMUL, "quantized::mul", "q_mul", "", 2, 1, CT__OPF_NONDIFF, "float scale=s0, int zero_point=i0",                 \
      ct__qo_meta_binary, ct__qo_k_binary, ct__bw_none, CT__SAVE_NONE)                                              \
    X(QMUL_RELU, "quantized::mul_relu", "q_mul_relu", "", 2, 1, CT__OPF_NONDIFF, "float scale=s0, int zero_point=i0", \
      ct__qo_meta_binary, ct__qo_k_binary, ct__bw_none, CT__SAVE_NONE)                                              \
    X(QCAT, "quantized::cat", "q_cat", "", -1, 1, CT__OPF_NONDIFF, "int dim=i0, float? scale=s0, int zero_point=i1",   \
      ct__qo_meta_cat, ct__qo_k_cat, ct__bw_none, CT__SAVE_NONE)                                                    \
    X(QCONV2D, "quantized::conv2d", "q_conv2d", "", -1, 1, CT__OPF_NONDIFF,                                            \
      "int[2] stride=v0, int[2] padding=v2, int[2] dilation=v4, int groups=i1, float scale=s0, int zero_point=i0",   \
      ct__qo_meta_conv, ct__qo_k_conv, ct__bw_none, CT__SAVE_NONE)                                                  \
    X(QCONV2D_RELU, "quantized::conv2d_relu", "q_conv2d_relu", "", -1, 1, CT__OPF_NONDIFF,                             \
      "int[2] stride=v0, int[2] padding=v2, int[2] dilation=v4, int groups=i1, float scale=s0, int zero_point=i0",   \
      ct__qo_meta_conv, ct__qo_k_conv, ct__bw_none, CT__SAVE_NONE)


#define CT__Q_OPS(X) CT__OPS_Q_CORE(X) CT__OPS_Q_FAKE(X) CT__OPS_Q_GEMM(X) CT__OPS_Q_QOPS(X)
enum {
#define CT__Q_X_ENUM(E, sname, name, bw, nin, nout, flags, attrs, meta, kernel, backward, save) CT__Q_##E,
    CT__Q_OPS(CT__Q_X_ENUM)
#undef CT__Q_X_ENUM
    CT__Q_NUM_OPS
};
CT__Q_OPS(CT__X_PROTO)
static const ct__opdef ct__q_defs[CT__Q_NUM_OPS] = {CT__Q_OPS(CT__X_DEF)};
static void ct__q_core_backends(void);
static void ct__q_fake_backends(void);
static void ct__q_gemm_backends(void);
static void ct__q_qops_backends(void);
/* The ops register once, together (consecutive ids from ct__q_base), then their
   QuantizedCPU kernels. */
CT__OP_BLOCK(q, ct__q_defs, CT__Q_NUM_OPS, ct__q_core_backends(); ct__q_fake_backends(); ct__q_gemm_backends(); ct__q_qops_backends();)
static int ct__q_op_id(int local) {
    ct__q_register_now();
    return ct__q_base < 0 ? -1 : ct__q_base + local;
}
#define CT__QOP(E) ct__q_op_id(CT__Q_##E)
/* Registers the QuantizedCPU meta and kernel of local op E (its own row's). */
#define CT__Q_QBACKEND(E) \
    ct_register_backend_op(ct__q_defs[CT__Q_##E].sname, CT_BACKEND_QUANTIZED_CPU, ct__q_defs[CT__Q_##E].meta, ct__q_defs[CT__Q_##E].kernel)

/* ============================================================================
   Quantized tensors: kernels
   ========================================================================== */
CTENSOR_API int ct_qdtype_range(ct_dtype dtype, int64_t *qmin, int64_t *qmax) {
    int64_t lo, hi;
    switch (dtype) {
    case CT_QINT8: lo = -128; hi = 127; break;
    case CT_QUINT8: lo = 0; hi = 255; break;
    case CT_QINT32: lo = INT32_MIN; hi = INT32_MAX; break;
    default: return 0;
    }
    if (qmin) *qmin = lo;
    if (qmax) *qmax = hi;
    return 1;
}
CTENSOR_API const char *ct_qscheme_name(ct_qscheme s) {
    static const char *const names[] = {"per_tensor_affine", "per_channel_affine", "per_tensor_symmetric",
                                        "per_channel_symmetric", "per_channel_affine_float_qparams"};
    return (unsigned)s < 5u ? names[s] : "?";
}
/* The integer dtype of a quantized dtype's codes, and back. */
static ct_dtype ct__q_code_dtype(ct_dtype q) { return q == CT_QINT8 ? CT_INT8 : q == CT_QUINT8 ? CT_UINT8 : CT_INT32; }
static ct_dtype ct__q_of_code(ct_dtype c) { return c == CT_INT8 ? CT_QINT8 : c == CT_UINT8 ? CT_QUINT8 : c == CT_INT32 ? CT_QINT32 : CT_NUM_DTYPES; }

/* PyTorch's quantize_val: zero_point + nearbyint(x * (float)(1 / scale)), clamped. */
CT__INLINE int64_t ct__q_round(float x, float inv_scale, int64_t zp, int64_t qmin, int64_t qmax) {
    float t = nearbyintf(x * inv_scale);
    int64_t v;
    if (!(t == t)) v = 0;   /* NaN: lrint's result on x86 is INT_MIN, PyTorch's cast gives the same clamp to qmin */
    else if (t >= 9.2e18f) v = INT64_MAX / 2;
    else if (t <= -9.2e18f) v = -(INT64_MAX / 2);
    else v = (int64_t)t;
    if (!(t == t)) v = INT64_MIN / 2;
    v += zp;
    return v < qmin ? qmin : v > qmax ? qmax : v;
}
/* Checks one (scale, zero point) pair as PyTorch does. */
static int ct__q_check_params(const char *op, double scale, int64_t zp, ct_dtype dt, int64_t k) {
    int64_t qmin = 0, qmax = 0;
    ct_qdtype_range(dt, &qmin, &qmax);
    char where[48] = "";
    if (k >= 0) snprintf(where, sizeof where, " (channel %lld)", (long long)k);
    if (!(scale > 0) || !isfinite(scale) || !((float)scale > 0) || !isfinite(1.0f / (float)scale))
        return ct__failed(CT_ERR_ARG, "%s: scale%s must be a positive finite float32 number, got %g", op, where, scale);
    if (zp < qmin) return ct__failed(CT_ERR_ARG, "%s: zero_point%s %lld is below lower bound %lld", op, where, (long long)zp, (long long)qmin);
    if (zp > qmax) return ct__failed(CT_ERR_ARG, "%s: zero_point%s %lld is above upper bound %lld", op, where, (long long)zp, (long long)qmax);
    return 0;
}
static int ct__q_check_channel_params(const char *op, const ct_tensor *x, const ct_tensor *s, const ct_tensor *z, int64_t axis) {
    if (axis < 0 || axis >= x->ndim)
        return ct__failed(CT_ERR_ARG, "%s: axis %lld is out of range for a %d-D tensor", op, (long long)axis, x->ndim);
    if (s->ndim != 1 || s->shape[0] != x->shape[axis])
        return ct__failed(CT_ERR_SHAPE, "%s: expected %lld scales (the size of dim %lld) as a 1-D tensor, got shape %s", op,
                          (long long)x->shape[axis], (long long)axis, CT__SHAPE(s));
    if (z->ndim != 1 || z->shape[0] != x->shape[axis])
        return ct__failed(CT_ERR_SHAPE, "%s: expected %lld zero_points (the size of dim %lld) as a 1-D tensor, got shape %s", op,
                          (long long)x->shape[axis], (long long)axis, CT__SHAPE(z));
    if (!CT__ISFLOAT(s->dtype)) return ct__failed(CT_ERR_DTYPE, "%s: scales must be a float tensor, got %s", op, CT__DTNAME(s->dtype));
    if (!CT__ISINT(z->dtype) && !CT__ISFLOAT(z->dtype))
        return ct__failed(CT_ERR_DTYPE, "%s: zero_points must be a number tensor, got %s", op, CT__DTNAME(z->dtype));
    if (s->device.type != CT_CPU || z->device.type != CT_CPU)
        return ct__failed(CT_ERR_DEVICE, "%s: scales and zero_points must be CPU tensors", op);
    return 0;
}

/* quantize_per_tensor: x float32 -> dtype; quantize_per_channel: (x, scales, zero_points) */
static int ct__q_meta_quantize(ct__call *c) {
    const char *op = ct__opdef_get(c->op)->name;
    const ct_tensor *x = c->in[0];
    ct_dtype dt = c->a->dtype;
    if (!CT__DT_QUANT(dt))
        return ct__failed(CT_ERR_DTYPE, "%s: dtype must be qint8, quint8 or qint32, got %s", op, CT__DTNAME(dt));
    if (CT__DT_QUANT(x->dtype)) return ct__failed(CT_ERR_DTYPE, "%s: the input is already quantized (%s)", op, CT__DTNAME(x->dtype));
    if (x->dtype != CT_FLOAT32) return ct__failed(CT_ERR_DTYPE, "%s: Quantize only works on Float Tensor, got %s", op, CT__DTNAME(x->dtype));
    if (x->device.type != CT_CPU) return ct__failed(CT_ERR_DEVICE, "%s: quantized tensors live on the CPU (the input is on a device)", op);
    if (c->nin == 1) {
        if (ct__q_check_params(op, c->a->s[0], c->a->i[0], dt, -1)) return -1;
    } else if (ct__q_check_channel_params(op, x, c->in[1], c->in[2], c->a->i[0])) return -1;
    ct__out_new(c, dt, x->ndim, x->shape);
    return 0;
}
/* per-channel parameters of a call as arrays (double scales, int64 zero points) */
static ct_qparams *ct__q_channel_qparams(const char *op, const ct_tensor *s, const ct_tensor *z, int64_t axis, ct_dtype dt) {
    int64_t n = s->shape[0];
    double *sc = (double *)CT_MALLOC((size_t)(n ? n : 1) * sizeof(double));
    int64_t *zp = (int64_t *)CT_MALLOC((size_t)(n ? n : 1) * sizeof(int64_t));
    ct_qparams *q = NULL;
    if (!sc || !zp) ct_set_error(CT_ERR_MEMORY, "%s: out of memory", op);
    else {
        int bad = 0;
        for (int64_t k = 0; k < n && !bad; k++) {
            sc[k] = ct__load_f64(ct__ptr(s) + k * s->strides[0] * (int64_t)ct__dt[s->dtype].size, s->dtype);
            double zv = ct__load_f64(ct__ptr(z) + k * z->strides[0] * (int64_t)ct__dt[z->dtype].size, z->dtype);
            zp[k] = (int64_t)zv;
            bad = ct__q_check_params(op, sc[k], zp[k], dt, k) != 0;
        }
        if (!bad) q = ct_qparams_per_channel(n, sc, zp, axis, CT_PER_CHANNEL_AFFINE);
    }
    CT_FREE(sc);
    CT_FREE(zp);
    return q;
}
typedef struct {
    const float *x;
    void *q;
    ct_dtype dt;
    int64_t inner, nch;       /* per channel: channel of element e is (e / inner) % nch */
    const float *inv;         /* per channel inverse scales (NULL: per tensor) */
    const int64_t *zps;
    float inv1;
    int64_t zp1, qmin, qmax;
} ct__q_quant_job;
static void ct__q_quant_run(void *ctx, int64_t lo, int64_t hi) {
    const ct__q_quant_job *j = (const ct__q_quant_job *)ctx;
    for (int64_t e = lo; e < hi; e++) {
        float inv = j->inv1;
        int64_t zp = j->zp1;
        if (j->inv) {
            int64_t ch = (e / j->inner) % j->nch;
            inv = j->inv[ch];
            zp = j->zps[ch];
        }
        int64_t v = ct__q_round(j->x[e], inv, zp, j->qmin, j->qmax);
        if (j->dt == CT_QINT8) ((int8_t *)j->q)[e] = (int8_t)v;
        else if (j->dt == CT_QUINT8) ((uint8_t *)j->q)[e] = (uint8_t)v;
        else ((int32_t *)j->q)[e] = (int32_t)v;
    }
}
static int ct__q_k_quantize(ct__call *c) {
    const char *op = ct__opdef_get(c->op)->name;
    ct_tensor *y = c->out[0];
    ct_dtype dt = y->dtype;
    ct_qparams *qp = c->nin == 1 ? ct_qparams_per_tensor(c->a->s[0], c->a->i[0], CT_PER_TENSOR_AFFINE)
                                 : ct__q_channel_qparams(op, c->in[1], c->in[2], c->a->i[0], dt);
    if (!qp) return -1;
    ct_tensor *x = ct__contig_ref(c->in[0]);
    float *inv = NULL;
    if (x && qp->nchannels) inv = (float *)CT_MALLOC((size_t)qp->nchannels * sizeof(float));
    if (!x || (qp->nchannels && !inv)) {
        ct__decref(x);
        ct_qparams_release(qp);
        return ct__failed(CT_ERR_MEMORY, "%s: out of memory", op);
    }
    ct__q_quant_job j;
    memset(&j, 0, sizeof j);
    j.x = (const float *)ct__ptr(x);
    j.q = ct__ptr(y);
    j.dt = dt;
    ct_qdtype_range(dt, &j.qmin, &j.qmax);
    if (qp->nchannels) {
        int64_t inner = 1;
        for (int d = (int)qp->axis + 1; d < x->ndim; d++) inner *= x->shape[d];
        for (int64_t k = 0; k < qp->nchannels; k++) inv[k] = 1.0f / (float)qp->scales[k];
        j.inner = inner ? inner : 1;
        j.nch = qp->nchannels ? qp->nchannels : 1;
        j.inv = inv;
        j.zps = qp->zero_points;
    } else {
        j.inv1 = 1.0f / (float)qp->scale;
        j.zp1 = qp->zero_point;
    }
    ct__nn_par_for(ct_numel(y), 16384, ct__q_quant_run, &j);
    CT_FREE(inv);
    ct__decref(x);
    ct_status st = ct_set_qparams(y, qp);
    ct_qparams_release(qp);
    return st == CT_OK ? 0 : -1;
}

/* dequantize and int_repr: a quantized input (QuantizedCPU) */
static int ct__q_meta_dequantize(ct__call *c) {
    const char *op = ct__opdef_get(c->op)->name;
    const ct_tensor *q = c->in[0];
    if (!CT__DT_QUANT(q->dtype))
        return ct__failed(CT_ERR_DTYPE, "%s: expected a quantized tensor (qint8, quint8, qint32), got %s", op, CT__DTNAME(q->dtype));
    if (!q->qparams) return ct__failed(CT_ERR_STATE, "%s: the quantized tensor has no quantization parameters (ct_set_qparams)", op);
    ct__out_new(c, c->op == CT__QOP(DEQUANTIZE) ? CT_FLOAT32 : ct__q_code_dtype(q->dtype), q->ndim, q->shape);
    return 0;
}
/* The code of element (flat, row-major over q's shape) of a quantized tensor: */
CT__INLINE int64_t ct__q_code_at(const char *p, ct_dtype dt) {
    return dt == CT_QINT8 ? *(const int8_t *)p : dt == CT_QUINT8 ? *(const uint8_t *)p : *(const int32_t *)p;
}
typedef struct {
    const ct_tensor *q;
    void *y;
    int deq;
} ct__q_deq_job;
static void ct__q_deq_run(void *ctx, int64_t lo, int64_t hi) {
    const ct__q_deq_job *j = (const ct__q_deq_job *)ctx;
    const ct_tensor *q = j->q;
    const ct_qparams *qp = q->qparams;
    const char *base = (const char *)q->storage->data + q->offset * (int64_t)ct__dt[q->dtype].size;
    int64_t es = ct__dt[q->dtype].size, inner = 1, nch = 1;
    if (qp->nchannels) {
        for (int d = (int)qp->axis + 1; d < q->ndim; d++) inner *= q->shape[d];
        nch = qp->nchannels;
        if (!inner) inner = 1;
    }
    int64_t idx[CT_MAX_DIMS];
    int64_t r = lo;
    for (int d = q->ndim - 1; d >= 0; d--) {
        idx[d] = q->shape[d] ? r % q->shape[d] : 0;
        r = q->shape[d] ? r / q->shape[d] : 0;
    }
    for (int64_t e = lo; e < hi; e++) {
        int64_t off = 0;
        for (int d = 0; d < q->ndim; d++) off += idx[d] * q->strides[d];
        int64_t v = ct__q_code_at(base + off * es, q->dtype);
        if (j->deq) {
            float s;
            int64_t zp;
            if (qp->nchannels) {
                int64_t ch = (e / inner) % nch;
                s = (float)qp->scales[ch];
                zp = qp->zero_points[ch];
            } else {
                s = (float)qp->scale;
                zp = qp->zero_point;
            }
            ((float *)j->y)[e] = (float)(v - zp) * s;
        } else if (q->dtype == CT_QINT8) ((int8_t *)j->y)[e] = (int8_t)v;
        else if (q->dtype == CT_QUINT8) ((uint8_t *)j->y)[e] = (uint8_t)v;
        else ((int32_t *)j->y)[e] = (int32_t)v;
        for (int d = q->ndim - 1; d >= 0; d--) {
            if (++idx[d] < q->shape[d]) break;
            idx[d] = 0;
        }
    }
}
static int ct__q_k_dequantize(ct__call *c) {
    ct__q_deq_job j = {c->in[0], ct__ptr(c->out[0]), 1};
    ct__nn_par_for(ct_numel(c->out[0]), 16384, ct__q_deq_run, &j);
    return 0;
}
static int ct__q_k_int_repr(ct__call *c) {
    ct__q_deq_job j = {c->in[0], ct__ptr(c->out[0]), 0};
    ct__nn_par_for(ct_numel(c->out[0]), 16384, ct__q_deq_run, &j);
    return 0;
}

/* _make_per_tensor_quantized_tensor(codes, scale, zp) and the per-channel one */
static int ct__q_meta_make(ct__call *c) {
    const char *op = ct__opdef_get(c->op)->name;
    const ct_tensor *x = c->in[0];
    ct_dtype qdt = ct__q_of_code(x->dtype);
    if (qdt == CT_NUM_DTYPES)
        return ct__failed(CT_ERR_DTYPE, "%s: the codes must be int8, uint8 or int32, got %s", op, CT__DTNAME(x->dtype));
    if (x->device.type != CT_CPU) return ct__failed(CT_ERR_DEVICE, "%s: quantized tensors live on the CPU (the codes are on a device)", op);
    if (c->nin == 1) {
        if (ct__q_check_params(op, c->a->s[0], c->a->i[0], qdt, -1)) return -1;
    } else if (ct__q_check_channel_params(op, x, c->in[1], c->in[2], c->a->i[0])) return -1;
    ct__out_new(c, qdt, x->ndim, x->shape);
    return 0;
}
static int ct__q_k_make(ct__call *c) {
    const char *op = ct__opdef_get(c->op)->name;
    ct_tensor *y = c->out[0];
    ct_qparams *qp = c->nin == 1 ? ct_qparams_per_tensor(c->a->s[0], c->a->i[0], CT_PER_TENSOR_AFFINE)
                                 : ct__q_channel_qparams(op, c->in[1], c->in[2], c->a->i[0], y->dtype);
    if (!qp) return -1;
    ct_tensor *x = ct__contig_ref(c->in[0]);
    if (!x) {
        ct_qparams_release(qp);
        return -1;
    }
    memcpy(ct__ptr(y), ct__ptr(x), (size_t)ct_numel(x) * ct__dt[x->dtype].size);
    ct__decref(x);
    ct_status st = ct_set_qparams(y, qp);
    ct_qparams_release(qp);
    return st == CT_OK ? 0 : -1;
}

static void ct__q_core_backends(void) {
    CT__Q_QBACKEND(DEQUANTIZE);
    CT__Q_QBACKEND(INT_REPR);
    CT__Q_QBACKEND(QUANTIZE_PER_TENSOR);    /* their metas refuse quantized inputs with a clear message */
    CT__Q_QBACKEND(QUANTIZE_PER_CHANNEL);
    CT__Q_QBACKEND(MAKE_PER_TENSOR);
    CT__Q_QBACKEND(MAKE_PER_CHANNEL);
}

/* ---- public functions ---- */
static ct_tensor *ct__q_call(int op, int nin, ct_tensor *const *in, const ct__attrs *a) {
    if (op < 0) return NULL;
    return ct__call1(op, nin, in, a);
}
CTENSOR_API ct_tensor *ct_quantize_per_tensor(const ct_tensor *x, double scale, int64_t zero_point, ct_dtype dtype) {
    if (!x) { ct__null_arg("quantize_per_tensor", 0); return NULL; }
    ct__attrs a;
    ct__attrs_init(&a);
    a.s[0] = scale;
    a.i[0] = zero_point;
    a.dtype = dtype;
    ct_tensor *in[1] = {(ct_tensor *)x};
    return ct__q_call(CT__QOP(QUANTIZE_PER_TENSOR), 1, in, &a);
}
CTENSOR_API ct_tensor *ct_quantize_per_channel(const ct_tensor *x, const ct_tensor *scales, const ct_tensor *zero_points,
                                               int64_t axis, ct_dtype dtype) {
    if (!x || !scales || !zero_points) { ct__null_arg("quantize_per_channel", !x ? 0 : !scales ? 1 : 2); return NULL; }
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = axis < 0 ? axis + x->ndim : axis;
    a.dtype = dtype;
    ct_tensor *in[3] = {(ct_tensor *)x, (ct_tensor *)scales, (ct_tensor *)zero_points};
    return ct__q_call(CT__QOP(QUANTIZE_PER_CHANNEL), 3, in, &a);
}
CTENSOR_API ct_tensor *ct_dequantize(const ct_tensor *q) {
    if (!q) { ct__null_arg("dequantize", 0); return NULL; }
    ct_tensor *in[1] = {(ct_tensor *)q};
    return ct__q_call(CT__QOP(DEQUANTIZE), 1, in, &ct__attrs_none);
}
CTENSOR_API ct_tensor *ct_int_repr(const ct_tensor *q) {
    if (!q) { ct__null_arg("int_repr", 0); return NULL; }
    ct_tensor *in[1] = {(ct_tensor *)q};
    return ct__q_call(CT__QOP(INT_REPR), 1, in, &ct__attrs_none);
}
CTENSOR_API ct_tensor *ct_make_per_tensor_quantized(const ct_tensor *codes, double scale, int64_t zero_point) {
    if (!codes) { ct__null_arg("_make_per_tensor_quantized_tensor", 0); return NULL; }
    ct__attrs a;
    ct__attrs_init(&a);
    a.s[0] = scale;
    a.i[0] = zero_point;
    ct_tensor *in[1] = {(ct_tensor *)codes};
    return ct__q_call(CT__QOP(MAKE_PER_TENSOR), 1, in, &a);
}
CTENSOR_API ct_tensor *ct_make_per_channel_quantized(const ct_tensor *codes, const ct_tensor *scales,
                                                     const ct_tensor *zero_points, int64_t axis) {
    if (!codes || !scales || !zero_points)
        { ct__null_arg("_make_per_channel_quantized_tensor", !codes ? 0 : !scales ? 1 : 2); return NULL; }
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = axis < 0 ? axis + codes->ndim : axis;
    ct_tensor *in[3] = {(ct_tensor *)codes, (ct_tensor *)scales, (ct_tensor *)zero_points};
    return ct__q_call(CT__QOP(MAKE_PER_CHANNEL), 3, in, &a);
}
/* The parameters of q when it is quantized with a scheme of the given family (per
   channel or not); NULL with the error set. */
static const ct_qparams *ct__q_params_of(const char *fn, const ct_tensor *q, int per_channel) {
    if (!q) { ct__null_arg(fn, 0); return NULL; }
    if (!CT__DT_QUANT(q->dtype) || !q->qparams)
        return (const ct_qparams *)ct__fail(CT_ERR_DTYPE, "%s: expected a quantized tensor, got %s", fn, CT__DTNAME(q->dtype));
    if (per_channel >= 0 && (q->qparams->nchannels > 0) != per_channel)
        return (const ct_qparams *)ct__fail(CT_ERR_ARG, "%s: expected a %s quantized tensor, got qscheme %s", fn,
                                            per_channel ? "per-channel" : "per-tensor", ct_qscheme_name(q->qparams->qscheme));
    return q->qparams;
}
CTENSOR_API double ct_q_scale(const ct_tensor *q) {
    const ct_qparams *p = ct__q_params_of("q_scale", q, 0);
    return p ? p->scale : NAN;
}
CTENSOR_API int64_t ct_q_zero_point(const ct_tensor *q) {
    const ct_qparams *p = ct__q_params_of("q_zero_point", q, 0);
    return p ? p->zero_point : -1;
}
CTENSOR_API ct_tensor *ct_q_per_channel_scales(const ct_tensor *q) {
    const ct_qparams *p = ct__q_params_of("q_per_channel_scales", q, 1);
    return p ? ct_from_data_n(p->scales, CT_FLOAT64, 1, &p->nchannels) : NULL;
}
CTENSOR_API ct_tensor *ct_q_per_channel_zero_points(const ct_tensor *q) {
    const ct_qparams *p = ct__q_params_of("q_per_channel_zero_points", q, 1);
    return p ? ct_from_data_n(p->zero_points, CT_INT64, 1, &p->nchannels) : NULL;
}
CTENSOR_API int64_t ct_q_per_channel_axis(const ct_tensor *q) {
    const ct_qparams *p = ct__q_params_of("q_per_channel_axis", q, 1);
    return p ? p->axis : -1;
}
CTENSOR_API ct_qscheme ct_q_qscheme(const ct_tensor *q) {
    const ct_qparams *p = ct__q_params_of("qscheme", q, -1);
    return p ? p->qscheme : (ct_qscheme)-1;
}

CTENSOR_API int ct_q_choose_qparams(double min_d, double max_d, int64_t qmin, int64_t qmax, int preserve_sparsity,
                                    int reduce_range, double *scale_out, int64_t *zp_out) {
    if (!(min_d <= max_d) || !isfinite(min_d) || !isfinite(max_d))
        return ct__failed(CT_ERR_ARG, "choose_qparams: min (%g) must be <= max (%g), both finite", min_d, max_d);
    if (qmin >= qmax) return ct__failed(CT_ERR_ARG, "choose_qparams: qmin (%lld) must be < qmax (%lld)", (long long)qmin, (long long)qmax);
    float mn = (float)min_d, mx = (float)max_d;
    if (reduce_range) {
        qmin /= 2;
        qmax /= 2;
    }
    if (mn < 0 && mx > 0 && preserve_sparsity) {
        int64_t sqmin = -((qmax - qmin) / 2 + 1), sqmax = (qmax - qmin) / 2;
        double ms = fmax(fabs((double)mn / (double)sqmin), fabs((double)mx / (double)sqmax));
        mn = (float)(ms * (double)sqmin);
        mx = (float)(ms * (double)sqmax);
    }
    mn = mn < 0.f ? mn : 0.f;
    mx = mx > 0.f ? mx : 0.f;
    double scale = ((double)mx - (double)mn) / (double)(qmax - qmin);
    if ((float)scale == 0.0f || isinf(1.0f / (float)scale)) scale = 0.1;
    const float small = 6.1e-5f;
    if (scale < small) {
        float org = (float)scale;
        scale = small;
        if (mn == 0.0f) mx = small * (float)(qmax - qmin);
        else if (mx == 0.0f) mn = -small * (float)(qmax - qmin);
        else {
            float amp = small / org;
            mn *= amp;
            mx *= amp;
        }
    }
    double zmin = (double)qmin - (double)mn / scale, zmax = (double)qmax - (double)mx / scale;
    double emin = fabs((double)qmin) - fabs((double)mn / scale), emax = fabs((double)qmax) - fabs((double)mx / scale);
    double z0 = emin < emax ? zmin : zmax;
    if (mn < 0 && mx > 0 && preserve_sparsity) z0 = (double)(qmin + qmax) / 2;
    int64_t zp = z0 < (double)qmin ? qmin : z0 > (double)qmax ? qmax : (int64_t)nearbyint(z0);
    if (scale_out) *scale_out = scale;
    if (zp_out) *zp_out = zp;
    return 0;
}

/* PyTorch's dynamic choice of parameters (quantize_per_tensor_dynamic ->
   choose_qparams_optimized off: ChooseQuantizationParams): the range includes 0;
   reduce_range halves the code range ([0,127] for quint8, [-64,63] for qint8). */
CTENSOR_API ct_tensor *ct_quantize_per_tensor_dynamic(const ct_tensor *x, ct_dtype dtype, int reduce_range) {
    if (!x) { ct__null_arg("quantize_per_tensor_dynamic", 0); return NULL; }
    if (dtype != CT_QINT8 && dtype != CT_QUINT8)
        return ct__fail(CT_ERR_DTYPE, "quantize_per_tensor_dynamic: dtype must be qint8 or quint8, got %s", CT__DTNAME(dtype));
    if (x->dtype != CT_FLOAT32)
        return ct__fail(CT_ERR_DTYPE, "quantize_per_tensor_dynamic: Quantize only works on Float Tensor, got %s", CT__DTNAME(x->dtype));
    double mn = 0, mx = 0;
    if (ct_numel(x) > 0) {
        ct_tensor *lo = ct_min(x), *hi = ct_max(x);
        if (!lo || !hi) return NULL;
        mn = ct_item(lo);
        mx = ct_item(hi);
    }
    int64_t qmin = dtype == CT_QINT8 ? -128 : 0, qmax = dtype == CT_QINT8 ? 127 : 255;
    double scale;
    int64_t zp;
    if (ct_q_choose_qparams(mn, mx, qmin, qmax, 0, reduce_range, &scale, &zp)) return NULL;
    return ct_quantize_per_tensor(x, scale, zp, dtype);
}

/* SECTION-CORE-END */


/* ============================================================================
   Observers, fake quantization, qconfigs: implementation
   ========================================================================== */
/* SECTION-OBSERVERS-IMPL (helper A fills this section) */
static void ct__q_fake_backends(void) {}


/* ============================================================================
   int8 GEMM and quantized linear: implementation
   ========================================================================== */
/* SECTION-GEMM-IMPL (helper B fills this section) */
static void ct__q_gemm_backends(void) {}


/* ============================================================================
   Quantized ops: conv2d, add, mul, relu, pooling, cat: implementation
   ========================================================================== */
/* SECTION-QOPS-IMPL (helper C fills this section) */
/* Quantized ops follow PyTorch 1.13's QuantizedCPU kernels (aten/src/ATen/native/
   quantized/cpu: qrelu, qpool, AveragePool2d, AdaptiveAveragePooling, qconcat,
   qadd, qmul, qconv), checked against the onednn engine's results. Their data is
   read through "code views": headers of dtype uint8 / int8 / int32 over a quantized
   tensor's storage (no parameters), so ctensor.h's strided copy and iterator serve
   them as they serve any integer tensor. */

/* A code view of q (one reference, not in a scope; ct__decref it), or of q's storage
   with another geometry when shape is given. */
static ct_tensor *ct__qo_codes_at(const ct_tensor *q, int ndim, const int64_t *shape, const int64_t *strides, int64_t offset) {
    ct_tensor *x = ct__view_header(q, ndim, shape, strides, offset);
    if (!x) return NULL;
    x->dtype = ct__q_code_dtype(q->dtype);
    ct_qparams_release(x->qparams);
    x->qparams = NULL;
    return x;
}
static ct_tensor *ct__qo_codes(const ct_tensor *q) { return ct__qo_codes_at(q, q->ndim, q->shape, q->strides, q->offset); }

/* Argument `i` of op must be a per-tensor quantized CPU tensor. */
static int ct__qo_check_qt(const char *op, const ct_tensor *x, int i) {
    if (!CT__DT_QUANT(x->dtype))
        return ct__failed(CT_ERR_DTYPE, "%s: expected a quantized tensor (quint8, qint8, qint32) as argument %d, got %s", op, i,
                          CT__DTNAME(x->dtype));
    if (!x->qparams) return ct__failed(CT_ERR_STATE, "%s: argument %d is quantized but has no quantization parameters", op, i);
    if (x->qparams->nchannels)
        return ct__failed(CT_ERR_ARG, "%s: only per-tensor quantized inputs are supported, argument %d has qscheme %s", op, i,
                          ct_qscheme_name(x->qparams->qscheme));
    if (x->device.type != CT_CPU) return ct__failed(CT_ERR_DEVICE, "%s: quantized tensors live on the CPU", op);
    return 0;
}
/* Gives y per-tensor parameters (scale, zp), or src's when src is given. */
static int ct__qo_set_params(ct_tensor *y, const ct_tensor *src, double scale, int64_t zp) {
    ct_qparams *qp = src ? ct_qparams_retain(src->qparams) : ct_qparams_per_tensor(scale, zp, CT_PER_TENSOR_AFFINE);
    if (!qp) return -1;
    ct_status st = ct_set_qparams(y, qp);
    ct_qparams_release(qp);
    return st == CT_OK ? 0 : -1;
}

/* ---- the elementwise inner loop of relu, add, mul and the requantizing copy ----
   Operands are code views: p[0] the output, p[1] a, p[2] b. The attributes carry
   (as one op's row never does: this is a private record): s[0] sa, s[1] sb, s[2] the
   output's inverse scale (float), s[3] mul's multiplier sa * sb / so (float); i[0]
   za, i[1] zb, i[2] zo; mode the kind below; dtype the quantized dtype. */
enum { CT__QO_ADD = 0, CT__QO_ADD_RELU = 1, CT__QO_MUL = 2, CT__QO_MUL_RELU = 3, CT__QO_REQUANT = 4, CT__QO_RELU = 5 };
CT__INLINE int64_t ct__qo_ld(const char *p, ct_dtype dt) {
    return dt == CT_QUINT8 ? *(const uint8_t *)p : dt == CT_QINT8 ? *(const int8_t *)p : *(const int32_t *)p;
}
CT__INLINE void ct__qo_st(char *p, ct_dtype dt, int64_t v) {
    if (dt == CT_QUINT8) *(uint8_t *)p = (uint8_t)v;
    else if (dt == CT_QINT8) *(int8_t *)p = (int8_t)v;
    else *(int32_t *)p = (int32_t)v;
}
static void ct__qo_ew_loop(char **p, const int64_t *s, int64_t n, const ct__attrs *a) {
    const ct_dtype dt = a->dtype;
    const int kind = a->mode;
    const float sa = (float)a->s[0], sb = (float)a->s[1], inv = (float)a->s[2], mult = (float)a->s[3];
    const int64_t za = a->i[0], zb = a->i[1], zo = a->i[2];
    int64_t qmin = 0, qmax = 0;
    ct_qdtype_range(dt, &qmin, &qmax);
    const int relu = kind == CT__QO_ADD_RELU || kind == CT__QO_MUL_RELU;
    for (int64_t e = 0; e < n; e++) {
        int64_t x = ct__qo_ld(p[1] + e * s[1], dt), v;
        if (kind == CT__QO_RELU) v = x < zo ? zo : x;
        else if (kind == CT__QO_REQUANT) v = ct__q_round((float)(x - za) * sa, inv, zo, qmin, qmax);
        else {
            int64_t y = ct__qo_ld(p[2] + e * s[2], dt);
            if (kind == CT__QO_MUL || kind == CT__QO_MUL_RELU) {
                /* PyTorch's qmul: requantize_from_int(sa * sb / so, zo, (a - za) * (b - zb)) */
                float t = nearbyintf((float)((x - za) * (y - zb)) * mult);
                v = t >= (float)qmax - (float)zo ? qmax : t <= (float)qmin - (float)zo ? qmin : zo + (int64_t)t;
            } else {
                float c = (float)(x - za) * sa + (float)(y - zb) * sb;
                if (relu && c < 0.0f) c = 0.0f;
                v = ct__q_round(c, inv, zo, qmin, qmax);
            }
            if (relu && v < zo) v = zo;
        }
        ct__qo_st(p[0] + e * s[0], dt, v);
    }
}
/* Runs the loop over y (quantized output) and the inputs (1 or 2, broadcast to y). */
static int ct__qo_ew_run(ct_tensor *y, int nin, ct_tensor *const *in, const ct__attrs *a) {
    ct_tensor *ops[3] = {NULL, NULL, NULL};
    int rc = 0;
    ops[0] = ct__qo_codes(y);
    for (int i = 0; i < nin; i++) ops[1 + i] = ct__qo_codes(in[i]);
    for (int i = 0; i <= nin; i++) rc |= ops[i] == NULL;
    if (!rc) {
        ct__iter it;
        ct__iter_init(&it, 1 + nin, ops, y->ndim, y->shape);
        ct__iter_run_work(&it, ct__qo_ew_loop, a, it.numel * 8);
    }
    for (int i = 0; i <= nin; i++)
        if (ops[i]) ct__decref(ops[i]);
    return rc ? ct__failed(CT_ERR_MEMORY, "quantized op: out of memory") : 0;
}
static void ct__qo_ew_attrs(ct__attrs *a, int kind, ct_dtype dt, const ct_tensor *x, const ct_tensor *y, double so, int64_t zo) {
    ct__attrs_init(a);
    a->mode = kind;
    a->dtype = dt;
    if (x) { a->s[0] = x->qparams->scale; a->i[0] = x->qparams->zero_point; }
    if (y) { a->s[1] = y->qparams->scale; a->i[1] = y->qparams->zero_point; }
    a->s[2] = 1.0f / (float)so;
    a->s[3] = (float)a->s[0] * (float)a->s[1] * (float)a->s[2];
    a->i[2] = zo;
}

/* ---- relu (aten::relu, relu_): codes clamped at the zero point, parameters kept ---- */
static int ct__qo_meta_relu(ct__call *c) {
    const ct_tensor *x = c->in[0];
    if (ct__qo_check_qt(c->inplace ? "relu_" : "relu", x, 0)) return -1;
    if (c->inplace) {
        c->nout = 1;
        c->oi[0].kind = CT__OUT_INPLACE;
        c->oi[0].src = 0;
        return 0;
    }
    ct__outinfo *o = ct__out_new(c, x->dtype, x->ndim, x->shape);
    ct__layout_like(o, 1, c->in);
    return 0;
}
static int ct__qo_k_relu(ct__call *c) {
    const ct_tensor *x = c->in[0];
    ct__attrs a;
    ct__qo_ew_attrs(&a, CT__QO_RELU, x->dtype, x, NULL, x->qparams->scale, x->qparams->zero_point);
    if (ct__qo_ew_run(c->out[0], 1, c->in, &a)) return -1;
    return c->out[0] == x ? 0 : ct__qo_set_params(c->out[0], x, 0, 0);
}

/* ---- clone (ct_clone, ct_contiguous, ct_to_channels_last): the codes copied in the
   memory format asked for, the parameters kept ---- */
static int ct__qo_meta_clone(ct__call *c) {
    const ct_tensor *x = c->in[0];
    if (!CT__DT_QUANT(x->dtype) || !x->qparams)
        return ct__failed(CT_ERR_DTYPE, "clone: expected a quantized tensor with parameters, got %s", CT__DTNAME(x->dtype));
    if (c->a->mode == 1 && x->ndim != 4)
        return ct__failed(CT_ERR_ARG, "clone: required rank 4 tensor to use channels_last format (got rank %d)", x->ndim);
    ct__outinfo *o = ct__out_new(c, x->dtype, x->ndim, x->shape);
    if (c->a->mode == 1) {
        ct__cl_strides(x->shape, o->strides);
        o->has_strides = 1;
    } else if (c->a->mode != 2) {
        ct__layout_like(o, 1, c->in);
    }
    return 0;
}
static int ct__qo_k_clone(ct__call *c) {
    ct_tensor *ya = ct__qo_codes(c->out[0]), *xa = ct__qo_codes(c->in[0]);
    int rc = !ya || !xa ? ct__failed(CT_ERR_MEMORY, "clone: out of memory") : ct__copy_into(ya, xa);
    if (ya) ct__decref(ya);
    if (xa) ct__decref(xa);
    return rc ? -1 : ct__qo_set_params(c->out[0], c->in[0], 0, 0);
}

/* ---- cat (aten::cat: the first input's parameters) and quantized::cat (given ones):
   each input dequantized and requantized to the output's parameters (copied when they
   are the same), as PyTorch's quantized_cat_impl ---- */
static int ct__qo_meta_cat(ct__call *c) {
    const int is_q = c->op == CT__QOP(QCAT);
    const char *op = is_q ? "quantized::cat" : "cat";
    if (c->nin < 1) return ct__failed(CT_ERR_ARG, "%s: expected a non-empty list of Tensors", op);
    const ct_tensor *x0 = c->in[0];
    for (int i = 0; i < c->nin; i++) {
        const ct_tensor *x = c->in[i];
        if (ct__qo_check_qt(op, x, i)) return -1;
        if (x->dtype != x0->dtype)
            return ct__failed(CT_ERR_DTYPE, "%s: All dtypes must be the same. (input 0 is %s, input %d is %s)", op, CT__DTNAME(x0->dtype), i,
                              CT__DTNAME(x->dtype));
    }
    int d = ct__dim(op, c->a->i[0], x0->ndim);
    if (d < 0) return -1;
    int64_t shape[CT_MAX_DIMS];
    for (int k = 0; k < x0->ndim; k++) shape[k] = x0->shape[k];
    for (int i = 1; i < c->nin; i++) {
        const ct_tensor *x = c->in[i];
        int bad = x->ndim != x0->ndim;
        for (int k = 0; k < x0->ndim && !bad; k++) bad = k != d && x->shape[k] != x0->shape[k];
        if (bad)
            return ct__failed(CT_ERR_SHAPE, "%s: Sizes of tensors must match except in dimension %d. Expected %s but got %s for tensor number %d in the list",
                              op, d, CT__SHAPE(x0), CT__SHAPE(x), i);
        shape[d] += x->shape[d];
    }
    double so = c->a->s[0];
    if (is_q && !isnan(so) && ct__q_check_params(op, so, c->a->i[1], x0->dtype, -1)) return -1;
    ct__nn_out(ct__out_new(c, x0->dtype, x0->ndim, shape), x0->dtype, x0->ndim, shape, ct__is_cl_input(x0));
    return 0;
}
static int ct__qo_k_cat(ct__call *c) {
    ct_tensor *y = c->out[0];
    const ct_tensor *x0 = c->in[0];
    int d = c->a->i[0] < 0 ? (int)c->a->i[0] + x0->ndim : (int)c->a->i[0];
    double so = x0->qparams->scale;
    int64_t zo = x0->qparams->zero_point;
    if (c->op == CT__QOP(QCAT) && !isnan(c->a->s[0])) {
        so = c->a->s[0];
        zo = c->a->i[1];
    }
    int64_t off = 0;
    for (int i = 0; i < c->nin; i++) {
        const ct_tensor *x = c->in[i];
        ct_tensor *ya = ct__qo_codes_at(y, x->ndim, x->shape, y->strides, y->offset + off * y->strides[d]);
        ct_tensor *xa = ct__qo_codes(x);
        int rc;
        if (!ya || !xa) rc = ct__failed(CT_ERR_MEMORY, "cat: out of memory");
        else if (x->qparams->scale == so && x->qparams->zero_point == zo) rc = ct__copy_into(ya, xa);
        else {
            ct__attrs a;
            ct__qo_ew_attrs(&a, CT__QO_REQUANT, x->dtype, x, NULL, so, zo);
            ct__iter it;
            ct_tensor *ops[2] = {ya, xa};
            ct__iter_init(&it, 2, ops, x->ndim, x->shape);
            ct__iter_run_work(&it, ct__qo_ew_loop, &a, it.numel * 8);
            rc = 0;
        }
        if (ya) ct__decref(ya);
        if (xa) ct__decref(xa);
        if (rc) return -1;
        off += x->shape[d];
    }
    return ct__qo_set_params(y, NULL, so, zo);
}

/* ---- quantized::add / add_relu / mul / mul_relu ---- */
static int ct__qo_meta_binary(ct__call *c) {
    const char *op = ct__opdef_get(c->op)->sname;
    const ct_tensor *a = c->in[0], *b = c->in[1];
    if (ct__qo_check_qt(op, a, 0) || ct__qo_check_qt(op, b, 1)) return -1;
    if (a->dtype != b->dtype)
        return ct__failed(CT_ERR_DTYPE, "%s: Both inputs must have the same quantized dtype, got %s and %s", op, CT__DTNAME(a->dtype),
                          CT__DTNAME(b->dtype));
    int ok = b->ndim <= a->ndim;
    for (int k = 0; k < b->ndim && ok; k++) {
        int64_t sb = b->shape[k], sa = a->shape[k + a->ndim - b->ndim];
        ok = sb == sa || sb == 1;
    }
    if (!ok)
        return ct__failed(CT_ERR_SHAPE, "%s: the second input of shape %s does not broadcast to the first's shape %s", op, CT__SHAPE(b),
                          CT__SHAPE(a));
    if (ct__q_check_params(op, c->a->s[0], c->a->i[0], a->dtype, -1)) return -1;
    ct__outinfo *o = ct__out_new(c, a->dtype, a->ndim, a->shape);
    ct__layout_like(o, 1, c->in);
    return 0;
}
static int ct__qo_k_binary(ct__call *c) {
    int kind = c->op == CT__QOP(QADD) ? CT__QO_ADD : c->op == CT__QOP(QADD_RELU) ? CT__QO_ADD_RELU
             : c->op == CT__QOP(QMUL) ? CT__QO_MUL : CT__QO_MUL_RELU;
    ct__attrs a;
    ct__qo_ew_attrs(&a, kind, c->in[0]->dtype, c->in[0], c->in[1], c->a->s[0], c->a->i[0]);
    if (ct__qo_ew_run(c->out[0], 2, c->in, &a)) return -1;
    return ct__qo_set_params(c->out[0], NULL, c->a->s[0], c->a->i[0]);
}

/* ---- pooling: max_pool2d (codes compared), avg_pool2d, adaptive_avg_pool2d (codes
   averaged with PyTorch's rounding), the input's parameters kept. The attributes are
   ctensor_nn.h's pooling rows'. ---- */
static int ct__qo_meta_pool(ct__call *c) {
    const int mx = c->op == CT__NNOP(MAX_POOL2D), adaptive = c->op == CT__NNOP(ADAPTIVE_AVG_POOL2D);
    const char *op = ct__opdef_get(c->op)->name;
    const ct_tensor *x = c->in[0];
    const ct__attrs *a = c->a;
    if (ct__qo_check_qt(op, x, 0)) return -1;
    if (x->ndim != 4) return ct__failed(CT_ERR_SHAPE, "%s: expected a 4-D input, got %s", op, CT__SHAPE(x));
    int64_t H = x->shape[2], W = x->shape[3], osz[2];
    if (H < 1 || W < 1) return ct__failed(CT_ERR_SHAPE, "%s: expected a non-empty plane, got %s", op, CT__SHAPE(x));
    if (adaptive) {
        osz[0] = a->v[10];
        osz[1] = a->v[11];
        if (osz[0] < 0 || osz[1] < 0)
            return ct__failed(CT_ERR_ARG, "%s: output_size must be non-negative, got (%lld, %lld)", op, (long long)osz[0], (long long)osz[1]);
    } else {
        for (int q = 0; q < 2; q++) {
            int64_t k = a->v[q], st = a->v[2 + q], pd = a->v[4 + q], dl = mx ? a->v[6 + q] : 1;
            if (k <= 0 || st <= 0 || pd < 0 || dl <= 0 || pd > k / 2)
                return ct__failed(CT_ERR_ARG, "%s: invalid pooling geometry (kernel_size %lld, stride %lld, padding %lld, dilation %lld)", op,
                                  (long long)k, (long long)st, (long long)pd, (long long)dl);
            osz[q] = ct__pool_out(q ? W : H, k, pd, st, dl, a->flags & 1);
        }
        if (osz[0] < 1 || osz[1] < 1)
            return ct__failed(CT_ERR_SHAPE, "%s: Given input size: (%lldx%lld). Calculated output size: (%lldx%lld). Output size is too small", op,
                              (long long)H, (long long)W, (long long)osz[0], (long long)osz[1]);
    }
    int cl = ct__is_cl_input(x);
    int64_t shape[4] = {x->shape[0], x->shape[1], osz[0], osz[1]};
    c->nout = mx ? 2 : 1;
    for (int j = 0; j < c->nout; j++) ct__nn_out(&c->oi[j], j ? CT_INT64 : x->dtype, 4, shape, cl);
    return 0;
}
typedef struct ct__qo_pool_job {
    int kind;                  /* 0 max, 1 avg, 2 adaptive */
    ct__pgeo g;
    ct_dtype dt;
    int64_t C, zp, qmin, qmax;
    const char *x;
    char *y;
    int64_t *ind;
    int64_t xs[4], ys[4], is[4];   /* element strides */
} ct__qo_pool_job;
/* PyTorch's adaptive windows for the quantized kernels (float index arithmetic) */
CT__INLINE int64_t ct__qo_astart(int64_t o, int64_t out, int64_t in) { return (int64_t)floorf((float)(o * in) / (float)out); }
CT__INLINE int64_t ct__qo_aend(int64_t o, int64_t out, int64_t in) { return (int64_t)ceilf((float)((o + 1) * in) / (float)out); }
static void ct__qo_pool_run(void *ctx, int64_t lo, int64_t hi) {
    const ct__qo_pool_job *j = (const ct__qo_pool_job *)ctx;
    const ct__pgeo *g = &j->g;
    const int64_t es = (int64_t)ct__dt[j->dt].size;
    for (int64_t pl = lo; pl < hi; pl++) {
        int64_t n = pl / j->C, ch = pl % j->C;
        const char *xp = j->x + (n * j->xs[0] + ch * j->xs[1]) * es;
        char *yp = j->y + (n * j->ys[0] + ch * j->ys[1]) * es;
        for (int64_t oh = 0; oh < g->OH; oh++)
            for (int64_t ow = 0; ow < g->OW; ow++) {
                char *yo = yp + (oh * j->ys[2] + ow * j->ys[3]) * es;
                int64_t v;
                if (j->kind == 0) {
                    /* the first largest code of the window (PyTorch's qmaxpool: `if (val > max)`) */
                    int64_t m = INT64_MIN, mi = -1, hs = oh * g->sh - g->ph, ws = ow * g->sw - g->pw;
                    for (int64_t i = 0; i < g->kh; i++) {
                        int64_t h = hs + i * g->dh;
                        if (h < 0 || h >= g->H) continue;
                        for (int64_t k = 0; k < g->kw; k++) {
                            int64_t w = ws + k * g->dw;
                            if (w < 0 || w >= g->W) continue;
                            int64_t q = ct__qo_ld(xp + (h * j->xs[2] + w * j->xs[3]) * es, j->dt);
                            if (q > m) { m = q; mi = h * g->W + w; }
                        }
                    }
                    v = mi < 0 ? j->qmin : m;
                    j->ind[n * j->is[0] + ch * j->is[1] + oh * j->is[2] + ow * j->is[3]] = mi;
                } else {
                    int64_t h0, h1, w0, w1, div = 0;
                    if (j->kind == 1) div = ct__pool_window(g, 0, oh, ow, &h0, &h1, &w0, &w1);
                    else {
                        h0 = ct__qo_astart(oh, g->OH, g->H); h1 = ct__qo_aend(oh, g->OH, g->H);
                        w0 = ct__qo_astart(ow, g->OW, g->W); w1 = ct__qo_aend(ow, g->OW, g->W);
                    }
                    int64_t sum = 0;
                    for (int64_t h = h0; h < h1; h++)
                        for (int64_t w = w0; w < w1; w++) sum += ct__qo_ld(xp + (h * j->xs[2] + w * j->xs[3]) * es, j->dt);
                    if (j->kind == 1) {
                        /* PyTorch's avg_pool2d_out_frame: (sum - size * zp) * (1 / divisor) + zp, rounded in float */
                        sum -= (h1 - h0) * (w1 - w0) * j->zp;
                        float mult = (float)(1.0 / (double)div);
                        float r = nearbyintf((float)sum * mult + (float)j->zp);
                        v = r < (float)j->qmin ? j->qmin : r > (float)j->qmax ? j->qmax : (int64_t)r;
                    } else {
                        /* adaptive_avg_pool_single_out_frame: nearbyint(sum * (1 / kH / kW)) */
                        float r = 1.0f / (float)(h1 - h0) / (float)(w1 - w0);
                        v = (int64_t)nearbyintf((float)sum * r);
                    }
                }
                ct__qo_st(yo, j->dt, v);
            }
    }
}
static int ct__qo_k_pool(ct__call *c) {
    const ct_tensor *x = c->in[0];
    ct_tensor *y = c->out[0];
    ct__qo_pool_job j;
    memset(&j, 0, sizeof j);
    j.kind = c->op == CT__NNOP(MAX_POOL2D) ? 0 : c->op == CT__NNOP(AVG_POOL2D) ? 1 : 2;
    ct__attrs a = *c->a;
    a.v[8] = x->shape[2]; a.v[9] = x->shape[3]; a.v[10] = y->shape[2]; a.v[11] = y->shape[3];
    ct__pool_geo(&a, &j.g);
    j.dt = x->dtype;
    j.C = x->shape[1];
    j.zp = x->qparams->zero_point;
    ct_qdtype_range(x->dtype, &j.qmin, &j.qmax);
    j.x = ct__ptr(x);
    j.y = ct__ptr(y);
    for (int d = 0; d < 4; d++) { j.xs[d] = x->strides[d]; j.ys[d] = y->strides[d]; }
    if (j.kind == 0) {
        j.ind = (int64_t *)ct__ptr(c->out[1]);
        for (int d = 0; d < 4; d++) j.is[d] = c->out[1]->strides[d];
    }
    ct__nn_par_for(x->shape[0] * x->shape[1], 4, ct__qo_pool_run, &j);
    return ct__qo_set_params(y, x, 0, 0);
}

/* ---- quantized conv2d (NHWC, int32 accumulation) ----
   Inputs: x quint8 [N, C, H, W], w qint8 [O, C/G, kh, kw] (per tensor or per channel
   along 0), bias float32 [O] (optional). Attributes as aten::conv2d's plus the
   output's scale and zero point. Output quint8 [N, O, OH, OW], channels-last. */
static int ct__qo_meta_conv(ct__call *c) {
    const char *op = ct__opdef_get(c->op)->sname;
    const ct__attrs *a = c->a;
    if (c->nin != 2 && c->nin != 3) return ct__failed(CT_ERR_ARG, "%s: takes (input, weight[, bias]), got %d tensors", op, c->nin);
    const ct_tensor *x = c->in[0], *w = c->in[1], *b = c->nin == 3 ? c->in[2] : NULL;
    if (x->dtype != CT_QUINT8)
        return ct__failed(CT_ERR_DTYPE, "%s: expected a quint8 input (a quantized activation), got %s", op, CT__DTNAME(x->dtype));
    if (ct__qo_check_qt(op, x, 0)) return -1;
    if (w->dtype != CT_QINT8) return ct__failed(CT_ERR_DTYPE, "%s: expected a qint8 weight, got %s", op, CT__DTNAME(w->dtype));
    if (!w->qparams) return ct__failed(CT_ERR_STATE, "%s: the weight has no quantization parameters", op);
    if (x->ndim != 4) return ct__failed(CT_ERR_SHAPE, "%s: expected a 4-D input (N, C, H, W), got %s", op, CT__SHAPE(x));
    if (w->ndim != 4) return ct__failed(CT_ERR_SHAPE, "%s: expected a 4-D weight (out, in/groups, kH, kW), got %s", op, CT__SHAPE(w));
    int64_t O = w->shape[0], G = a->i[1];
    if (w->qparams->nchannels && (w->qparams->axis != 0 || w->qparams->nchannels != O))
        return ct__failed(CT_ERR_ARG, "%s: a per-channel weight must be quantized along dim 0 (the output channels)", op);
    for (int q = 0; q < 2; q++)
        if (a->v[q] <= 0 || a->v[2 + q] < 0 || a->v[4 + q] <= 0)
            return ct__failed(CT_ERR_ARG, "%s: invalid geometry (stride %lld, padding %lld, dilation %lld)", op, (long long)a->v[q],
                              (long long)a->v[2 + q], (long long)a->v[4 + q]);
    if (G <= 0) return ct__failed(CT_ERR_ARG, "%s: non-positive groups is not supported (got %lld)", op, (long long)G);
    if (O % G)
        return ct__failed(CT_ERR_ARG, "%s: the output channels (%lld) must be divisible by groups (%lld)", op, (long long)O, (long long)G);
    if (x->shape[1] != w->shape[1] * G)
        return ct__failed(CT_ERR_SHAPE, "%s: Given groups=%lld, weight of size %s, expected input%s to have %lld channels, but got %lld channels instead",
                          op, (long long)G, CT__SHAPE(w), CT__SHAPE(x), (long long)(w->shape[1] * G), (long long)x->shape[1]);
    if (b) {
        if (b->dtype != CT_FLOAT32) return ct__failed(CT_ERR_DTYPE, "%s: the bias must be float32, got %s", op, CT__DTNAME(b->dtype));
        if (b->ndim != 1 || b->shape[0] != O)
            return ct__failed(CT_ERR_SHAPE, "%s: expected a bias of shape [%lld], got %s", op, (long long)O, CT__SHAPE(b));
        if (b->device.type != CT_CPU) return ct__failed(CT_ERR_DEVICE, "%s: the bias must be a CPU tensor", op);
    }
    int64_t os[2];
    for (int q = 0; q < 2; q++) {
        int64_t in = x->shape[2 + q], k = w->shape[2 + q];
        os[q] = ct__pool_out(in, k, a->v[2 + q], a->v[q], a->v[4 + q], 0);
        if (os[q] < 1)
            return ct__failed(CT_ERR_SHAPE, "%s: the padded input %s is smaller than the dilated kernel %s (output size %lld)", op,
                              CT__SHAPE(x), CT__SHAPE(w), (long long)os[q]);
    }
    if (ct__q_check_params(op, a->s[0], a->i[0], CT_QUINT8, -1)) return -1;
    int64_t shape[4] = {x->shape[0], O, os[0], os[1]};
    ct__nn_out(ct__out_new(c, CT_QUINT8, 4, shape), CT_QUINT8, 4, shape, 1);
    return 0;
}

/* C[m][n] = sum_k A[m][k] B[n][k]: A uint8 (M x K, rows lda apart), B int8 (N x K, ldb),
   C int32 (ldc); K a multiple of CT__QO_KB (operands zero-padded). The conv's one inner
   product (an u8s8s32 GEMM with B transposed): the place to route to an int8 GEMM
   kernel. Written so that gcc -O2 vectorizes it: the trip count is visibly a multiple
   of 64 (no scalar epilogue, which -O2's cost model refuses) and four columns share
   each load of A; with AVX512-VNNI it becomes vpdpbusd, about 120 GMAC/s on one core
   here for K = 576, against 3 for the plain loop (clang: about 13). */
#define CT__QO_KB 64
static void ct__qo_gemm_u8s8(int64_t M, int64_t N, int64_t K, const uint8_t *CT_RESTRICT A, int64_t lda,
                             const int8_t *CT_RESTRICT B, int64_t ldb, int32_t *CT_RESTRICT C, int64_t ldc) {
    const int64_t Kb = K & ~(int64_t)(CT__QO_KB - 1);
    for (int64_t m = 0; m < M; m++) {
        const uint8_t *a = A + m * lda;
        int32_t *cr = C + m * ldc;
        int64_t n = 0;
        for (; n + 4 <= N; n += 4) {
            const int8_t *b0 = B + n * ldb, *b1 = b0 + ldb, *b2 = b1 + ldb, *b3 = b2 + ldb;
            int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            for (int64_t k = 0; k < Kb; k++) {
                int32_t x = a[k];
                s0 += x * b0[k];
                s1 += x * b1[k];
                s2 += x * b2[k];
                s3 += x * b3[k];
            }
            cr[n] = s0; cr[n + 1] = s1; cr[n + 2] = s2; cr[n + 3] = s3;
        }
        for (; n < N; n++) {
            const int8_t *b0 = B + n * ldb;
            int32_t s0 = 0;
            for (int64_t k = 0; k < Kb; k++) s0 += (int32_t)a[k] * b0[k];
            cr[n] = s0;
        }
    }
}
typedef struct ct__qo_conv_job {
    const uint8_t *x;          /* NHWC */
    const int8_t *w;           /* GEMM: [O][Kp] ((i, k, c) order, zero past K); depthwise: [kh * kw][O] */
    uint8_t *y;                /* NHWC */
    const float *bias;         /* [O] (zeros when the op has none) */
    const float *mult;         /* [O]: sx * sw[o] */
    const int32_t *wsum;       /* [O]: sum of w[o][.] */
    const int32_t *czw;        /* [O]: -zx wsum[o] (used when K < 32768) */
    const int32_t *zw;         /* [O] */
    int any_zw, relu;
    int64_t N, C, H, W, O, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw, G, Cg, Og, K, Kp;
    int32_t zx;
    int64_t zo;
    float inv_so;
    int failed;
} ct__qo_conv_job;
/* y[q] for output channels o0 + q, q < n, from the int32 sums acc[q] of x * w over each
   channel's taps and the sums xs[q * xs_step] of x over them: the sum of (x - zx)(w - zw)
   is acc - zx sum(w) - zw xs + K zx zw; times sx sw[o], plus the bias, requantized as
   PyTorch's conv output: zp + round(v / scale), clamped (at zp with the fused relu; a
   NaN gives the lower bound). Branch-free float clamps: the loop is the conv's other
   hot spot (one per output). */
static void ct__qo_requant(const ct__qo_conv_job *j, int64_t o0, int64_t n, const int32_t *acc, const int32_t *xs,
                           int64_t xs_step, uint8_t *y) {
    const float lo = j->relu ? (float)j->zo : 0.0f, hi = 255.0f, zo = (float)j->zo, inv = j->inv_so;
    const float *CT_RESTRICT mu = j->mult + o0, *CT_RESTRICT bi = j->bias + o0;
    int64_t q = 0;
    if (!j->any_zw && j->K < 32768) {
        /* |sum of (x - zx) w| < 255 * 128 * K: int32; a trip count that is a multiple of 16 vectorizes at -O2 */
        const int32_t *CT_RESTRICT cz = j->czw + o0;
        const int64_t n16 = n & ~(int64_t)15;
        for (; q < n16; q++) {
            float t = nearbyintf(((float)(acc[q] + cz[q]) * mu[q] + bi[q]) * inv) + zo;
            t = t > lo ? t : lo;
            t = t < hi ? t : hi;
            y[q] = (uint8_t)t;
        }
    }
    const int64_t zx = j->zx;
    for (; q < n; q++) {
        int64_t o = o0 + q, a = (int64_t)acc[q] - zx * j->wsum[o];
        if (j->any_zw) a += (int64_t)j->zw[o] * (j->K * zx - xs[q * xs_step]);
        float t = nearbyintf(((float)a * mu[q] + bi[q]) * inv) + zo;
        t = t > lo ? t : lo;
        t = t < hi ? t : hi;
        y[q] = (uint8_t)t;
    }
}
/* rows [lo, hi) of the N * OH output rows: im2col of a row per group, then the GEMM */
static void ct__qo_conv_run(void *ctx, int64_t lo, int64_t hi) {
    ct__qo_conv_job *j = (ct__qo_conv_job *)ctx;
    const int64_t K = j->K, Kp = j->Kp, OW = j->OW, Og = j->Og, Cg = j->Cg;
    uint8_t *col = (uint8_t *)CT_MALLOC((size_t)(OW * Kp));
    int32_t *acc = (int32_t *)CT_MALLOC((size_t)(OW * Og) * sizeof(int32_t));
    int32_t *xsum = (int32_t *)CT_MALLOC((size_t)OW * sizeof(int32_t));
    if (!col || !acc || !xsum) {
        CT_FREE(col); CT_FREE(acc); CT_FREE(xsum);
        CT__STORE(&j->failed, 1);
        return;
    }
    memset(col, 0, (size_t)(OW * Kp));   /* the padding past K stays zero */
    for (int64_t row = lo; row < hi; row++) {
        int64_t n = row / j->OH, oh = row % j->OH;
        uint8_t *yrow = j->y + (n * j->OH + oh) * OW * j->O;
        for (int64_t g = 0; g < j->G; g++) {
            /* im2col of one output row for group g: col[ow][(i, k, c)], the zero point off the edges */
            for (int64_t ow = 0; ow < OW; ow++) {
                uint8_t *cp = col + ow * Kp;
                for (int64_t i = 0; i < j->kh; i++) {
                    int64_t h = oh * j->sh - j->ph + i * j->dh;
                    for (int64_t k = 0; k < j->kw; k++, cp += Cg) {
                        int64_t w = ow * j->sw - j->pw + k * j->dw;
                        if (h < 0 || h >= j->H || w < 0 || w >= j->W) memset(cp, (int)j->zx, (size_t)Cg);
                        else memcpy(cp, j->x + ((n * j->H + h) * j->W + w) * j->C + g * Cg, (size_t)Cg);
                    }
                }
                if (j->any_zw) {
                    int32_t s = 0;
                    for (int64_t k = 0; k < K; k++) s += col[ow * Kp + k];
                    xsum[ow] = s;
                }
            }
            ct__qo_gemm_u8s8(OW, Og, Kp, col, Kp, j->w + g * Og * Kp, Kp, acc, Og);
            for (int64_t ow = 0; ow < OW; ow++)
                ct__qo_requant(j, g * Og, Og, acc + ow * Og, xsum + ow, 0, yrow + ow * j->O + g * Og);
        }
    }
    CT_FREE(col);
    CT_FREE(acc);
    CT_FREE(xsum);
}
/* depthwise (one input and one output channel per group): per output pixel, the taps
   accumulate into int32 lanes over the channels, contiguous in NHWC */
#define CT__QO_CB 16
static void ct__qo_dwconv_run(void *ctx, int64_t lo, int64_t hi) {
    ct__qo_conv_job *j = (ct__qo_conv_job *)ctx;
    const int64_t C = j->C;
    int32_t *acc = (int32_t *)CT_MALLOC((size_t)C * 2 * sizeof(int32_t));
    if (!acc) {
        CT__STORE(&j->failed, 1);
        return;
    }
    int32_t *xs = acc + C;
    for (int64_t row = lo; row < hi; row++) {
        int64_t n = row / j->OH, oh = row % j->OH;
        for (int64_t ow = 0; ow < j->OW; ow++) {
            memset(acc, 0, (size_t)C * 2 * sizeof(int32_t));
            for (int64_t i = 0; i < j->kh; i++) {
                int64_t h = oh * j->sh - j->ph + i * j->dh;
                for (int64_t k = 0; k < j->kw; k++) {
                    int64_t w = ow * j->sw - j->pw + k * j->dw;
                    const int8_t *wt = j->w + (i * j->kw + k) * C;
                    if (h < 0 || h >= j->H || w < 0 || w >= j->W) {
                        for (int64_t c = 0; c < C; c++) { acc[c] += j->zx * wt[c]; xs[c] += j->zx; }
                        continue;
                    }
                    const uint8_t *xp = j->x + ((n * j->H + h) * j->W + w) * C;
                    int64_t c = 0;
                    for (; c + CT__QO_CB <= C; c += CT__QO_CB)
                        for (int t = 0; t < CT__QO_CB; t++) acc[c + t] += (int32_t)xp[c + t] * (int32_t)wt[c + t];
                    for (; c < C; c++) acc[c] += (int32_t)xp[c] * (int32_t)wt[c];
                    if (j->any_zw)
                        for (c = 0; c < C; c++) xs[c] += xp[c];
                }
            }
            uint8_t *yp = j->y + ((n * j->OH + oh) * j->OW + ow) * C;
            ct__qo_requant(j, 0, C, acc, xs, 1, yp);
        }
    }
    CT_FREE(acc);
}
static int ct__qo_k_conv(ct__call *c) {
    const char *op = ct__opdef_get(c->op)->sname;
    const ct__attrs *a = c->a;
    const ct_tensor *x = c->in[0], *w = c->in[1], *b = c->nin == 3 ? c->in[2] : NULL;
    ct_tensor *y = c->out[0];
    ct__qo_conv_job j;
    memset(&j, 0, sizeof j);
    j.N = x->shape[0]; j.C = x->shape[1]; j.H = x->shape[2]; j.W = x->shape[3];
    j.O = w->shape[0]; j.Cg = w->shape[1]; j.kh = w->shape[2]; j.kw = w->shape[3];
    j.OH = y->shape[2]; j.OW = y->shape[3];
    j.sh = a->v[0]; j.sw = a->v[1]; j.ph = a->v[2]; j.pw = a->v[3]; j.dh = a->v[4]; j.dw = a->v[5];
    j.G = a->i[1]; j.Og = j.O / j.G; j.K = j.kh * j.kw * j.Cg;
    j.Kp = j.K > 0 ? (j.K + CT__QO_KB - 1) / CT__QO_KB * CT__QO_KB : CT__QO_KB;
    j.zx = (int32_t)x->qparams->zero_point;
    j.zo = a->i[0];
    j.inv_so = 1.0f / (float)a->s[0];
    j.relu = c->op == CT__QOP(QCONV2D_RELU);
    const int dw = j.Cg == 1 && j.Og == 1;
    if (ct_numel(y) == 0) return ct__qo_set_params(y, NULL, a->s[0], a->i[0]);
    /* NHWC codes of x (a view when x already is), OHWI codes of w */
    int64_t st[4];
    ct_tensor *xa = ct__qo_codes(x), *wa = ct__qo_codes(w), *xc = NULL, *wc = NULL, *bc = NULL;
    int rc = 0;
    if (xa && wa) {
        if (ct_is_channels_last(xa)) xc = ct__incref(xa);
        else if (ct__cl_strides(xa->shape, st), (xc = ct__alloc(CT_UINT8, 4, xa->shape, st, ct__cpu_dev)) != NULL && ct__copy_into(xc, xa)) rc = -1;
        if (ct_is_channels_last(wa)) wc = ct__incref(wa);
        else if (ct__cl_strides(wa->shape, st), (wc = ct__alloc(CT_INT8, 4, wa->shape, st, ct__cpu_dev)) != NULL && ct__copy_into(wc, wa)) rc = -1;
        if (b) bc = ct__contig_ref(b);
    }
    size_t wbytes = (size_t)(j.O * (dw ? j.K : j.Kp)) + 1;
    float *mult = (float *)CT_MALLOC((size_t)j.O * sizeof(float));
    int32_t *wsum = (int32_t *)CT_MALLOC((size_t)j.O * sizeof(int32_t)), *zw = (int32_t *)CT_MALLOC((size_t)j.O * sizeof(int32_t));
    int32_t *czw = (int32_t *)CT_MALLOC((size_t)j.O * sizeof(int32_t));
    int8_t *wpk = (int8_t *)CT_MALLOC(wbytes);
    float *zbias = bc ? NULL : (float *)CT_MALLOC((size_t)j.O * sizeof(float));
    if (!rc && (!xa || !wa || !xc || !wc || (b && !bc) || !mult || !wsum || !zw || !czw || !wpk || (!bc && !zbias))) rc = ct__failed(CT_ERR_MEMORY, "%s: out of memory", op);
    if (!rc) {
        const ct_qparams *wq = w->qparams;
        const int8_t *wp = (const int8_t *)ct__ptr(wc);
        double sx = x->qparams->scale;
        memset(wpk, 0, wbytes);
        for (int64_t o = 0; o < j.O; o++) {
            double sw = wq->nchannels ? wq->scales[o] : wq->scale;
            zw[o] = (int32_t)(wq->nchannels ? wq->zero_points[o] : wq->zero_point);
            j.any_zw |= zw[o] != 0;
            mult[o] = (float)(sx * sw);
            int32_t s = 0;
            for (int64_t k = 0; k < j.K; k++) {
                s += wp[o * j.K + k];
                if (dw) wpk[k * j.O + o] = wp[o * j.K + k];   /* taps-major: [kh * kw][O] */
                else wpk[o * j.Kp + k] = wp[o * j.K + k];
            }
            wsum[o] = s;
            czw[o] = j.K < 32768 ? -j.zx * s : 0;
        }
        j.x = (const uint8_t *)ct__ptr(xc);
        j.w = wpk;
        j.y = (uint8_t *)ct__ptr(y);
        if (zbias) memset(zbias, 0, (size_t)j.O * sizeof(float));
        j.bias = bc ? (const float *)ct__ptr(bc) : zbias;
        j.mult = mult;
        j.wsum = wsum;
        j.czw = czw;
        j.zw = zw;
        ct__nn_par_for(j.N * j.OH, 1, dw ? ct__qo_dwconv_run : ct__qo_conv_run, &j);
        if (CT__LOAD(&j.failed)) rc = ct__failed(CT_ERR_MEMORY, "%s: out of memory", op);
    }
    CT_FREE(mult);
    CT_FREE(wsum);
    CT_FREE(zw);
    CT_FREE(czw);
    CT_FREE(wpk);
    CT_FREE(zbias);
    if (xa) ct__decref(xa);
    if (wa) ct__decref(wa);
    if (xc) ct__decref(xc);
    if (wc) ct__decref(wc);
    if (bc) ct__decref(bc);
    return rc ? -1 : ct__qo_set_params(y, NULL, a->s[0], a->i[0]);
}

static void ct__q_qops_backends(void) {
    /* existing ops on quantized inputs */
    ct_register_backend_op("aten::relu", CT_BACKEND_QUANTIZED_CPU, ct__qo_meta_relu, ct__qo_k_relu);
    ct_register_backend_op("aten::clone", CT_BACKEND_QUANTIZED_CPU, ct__qo_meta_clone, ct__qo_k_clone);
    ct_register_backend_op("aten::cat", CT_BACKEND_QUANTIZED_CPU, ct__qo_meta_cat, ct__qo_k_cat);
    ct_register_backend_op("aten::max_pool2d_with_indices", CT_BACKEND_QUANTIZED_CPU, ct__qo_meta_pool, ct__qo_k_pool);
    ct_register_backend_op("aten::avg_pool2d", CT_BACKEND_QUANTIZED_CPU, ct__qo_meta_pool, ct__qo_k_pool);
    ct_register_backend_op("aten::adaptive_avg_pool2d", CT_BACKEND_QUANTIZED_CPU, ct__qo_meta_pool, ct__qo_k_pool);
    /* this section's ops */
    CT__Q_QBACKEND(QADD);
    CT__Q_QBACKEND(QADD_RELU);
    CT__Q_QBACKEND(QMUL);
    CT__Q_QBACKEND(QMUL_RELU);
    CT__Q_QBACKEND(QCAT);
    CT__Q_QBACKEND(QCONV2D);
    CT__Q_QBACKEND(QCONV2D_RELU);
}

/* ---- public functions ---- */
static ct_tensor *ct__qo_binary(int op, const char *nm, const ct_tensor *a, const ct_tensor *b, double scale, int64_t zp) {
    if (!a || !b) { ct__null_arg(nm, !a ? 0 : 1); return NULL; }
    ct__attrs at;
    ct__attrs_init(&at);
    at.s[0] = scale;
    at.i[0] = zp;
    ct_tensor *in[2] = {(ct_tensor *)a, (ct_tensor *)b};
    return ct__q_call(op, 2, in, &at);
}
CTENSOR_API ct_tensor *ct_q_add(const ct_tensor *a, const ct_tensor *b, double scale, int64_t zero_point) {
    return ct__qo_binary(CT__QOP(QADD), "quantized::add", a, b, scale, zero_point);
}
CTENSOR_API ct_tensor *ct_q_add_relu(const ct_tensor *a, const ct_tensor *b, double scale, int64_t zero_point) {
    return ct__qo_binary(CT__QOP(QADD_RELU), "quantized::add_relu", a, b, scale, zero_point);
}
CTENSOR_API ct_tensor *ct_q_mul(const ct_tensor *a, const ct_tensor *b, double scale, int64_t zero_point) {
    return ct__qo_binary(CT__QOP(QMUL), "quantized::mul", a, b, scale, zero_point);
}
CTENSOR_API ct_tensor *ct_q_mul_relu(const ct_tensor *a, const ct_tensor *b, double scale, int64_t zero_point) {
    return ct__qo_binary(CT__QOP(QMUL_RELU), "quantized::mul_relu", a, b, scale, zero_point);
}
CTENSOR_API ct_tensor *ct_q_cat(int n, ct_tensor *const *ts, int dim, double scale, int64_t zero_point) {
    if (n <= 0 || !ts) return ct__fail(CT_ERR_ARG, "quantized::cat: expected a non-empty list of Tensors");
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = dim;
    a.s[0] = scale;
    a.i[1] = isnan(scale) ? 0 : zero_point;
    return ct__q_call(CT__QOP(QCAT), n, ts, &a);
}
CTENSOR_API ct_q_conv_packed *ct_q_conv2d_prepack(const ct_tensor *weight, const ct_tensor *bias, const ct_conv_options *o) {
    const char *op = "quantized::conv2d_prepack";
    if (!weight) { ct__null_arg(op, 0); return NULL; }
    ct_conv_options z;
    memset(&z, 0, sizeof z);
    if (!o) o = &z;
    if (o->padding_str) return (ct_q_conv_packed *)ct__fail(CT_ERR_UNSUPPORTED, "%s: padding=\"%s\" is not supported; give the padding", op, o->padding_str);
    if (weight->dtype != CT_QINT8 || !weight->qparams)
        return (ct_q_conv_packed *)ct__fail(CT_ERR_DTYPE, "%s: expected a qint8 weight, got %s", op, CT__DTNAME(weight->dtype));
    if (weight->ndim != 4)
        return (ct_q_conv_packed *)ct__fail(CT_ERR_SHAPE, "%s: expected a 4-D weight (out, in/groups, kH, kW), got %s", op, CT__SHAPE(weight));
    if (weight->qparams->nchannels && weight->qparams->axis != 0)
        return (ct_q_conv_packed *)ct__fail(CT_ERR_ARG, "%s: a per-channel weight must be quantized along dim 0, got axis %lld", op,
                                            (long long)weight->qparams->axis);
    if (bias && (!CT__ISFLOAT(bias->dtype) || bias->ndim != 1 || bias->shape[0] != weight->shape[0]))
        return (ct_q_conv_packed *)ct__fail(CT_ERR_SHAPE, "%s: expected a float bias of shape [%lld], got %s %s", op,
                                            (long long)weight->shape[0], CT__DTNAME(bias->dtype), CT__SHAPE(bias));
    int64_t st[2], pd[2], dl[2], G = o->groups ? o->groups : 1;
    ct__pair(o->stride, o->stride_hw, 1, st);
    ct__pair(o->padding, o->padding_hw, 0, pd);
    ct__pair(o->dilation, o->dilation_hw, 1, dl);
    for (int q = 0; q < 2; q++)
        if (st[q] <= 0 || pd[q] < 0 || dl[q] <= 0)
            return (ct_q_conv_packed *)ct__fail(CT_ERR_ARG, "%s: invalid geometry (stride %lld, padding %lld, dilation %lld)", op,
                                                (long long)st[q], (long long)pd[q], (long long)dl[q]);
    if (G <= 0 || weight->shape[0] % G)
        return (ct_q_conv_packed *)ct__fail(CT_ERR_ARG, "%s: the output channels (%lld) must be divisible by groups (%lld)", op,
                                            (long long)weight->shape[0], (long long)G);
    ct_q_conv_packed *p = (ct_q_conv_packed *)CT_MALLOC(sizeof *p);
    if (!p) return (ct_q_conv_packed *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", op);
    memset(p, 0, sizeof *p);
    int s = ct_scope_begin();
    ct_tensor *wc = ct_to_channels_last(weight);
    ct_tensor *bc = bias ? ct_to(ct_detach(bias), CT_FLOAT32) : NULL;
    if (wc && (!bias || bc)) {
        p->weight = ct_retain(wc);
        p->bias = bc ? ct_retain(bc) : NULL;
    }
    ct_scope_end(s);
    if (!p->weight) {
        CT_FREE(p);
        return NULL;
    }
    for (int q = 0; q < 2; q++) { p->stride[q] = st[q]; p->padding[q] = pd[q]; p->dilation[q] = dl[q]; }
    p->groups = G;
    return p;
}
CTENSOR_API void ct_q_conv_packed_free(ct_q_conv_packed *p) {
    if (!p) return;
    if (p->weight) ct_release(p->weight);
    if (p->bias) ct_release(p->bias);
    CT_FREE(p);
}
static ct_tensor *ct__qo_conv(int op, const char *nm, const ct_tensor *x, const ct_q_conv_packed *p, double scale, int64_t zp) {
    if (!x || !p) { ct__null_arg(nm, !x ? 0 : 1); return NULL; }
    ct__attrs a;
    ct__attrs_init(&a);
    for (int q = 0; q < 2; q++) { a.v[q] = p->stride[q]; a.v[2 + q] = p->padding[q]; a.v[4 + q] = p->dilation[q]; }
    a.i[1] = p->groups;
    a.s[0] = scale;
    a.i[0] = zp;
    ct_tensor *in[3] = {(ct_tensor *)x, p->weight, p->bias};
    return ct__q_call(op, p->bias ? 3 : 2, in, &a);
}
CTENSOR_API ct_tensor *ct_q_conv2d(const ct_tensor *x, const ct_q_conv_packed *w, double scale, int64_t zero_point) {
    return ct__qo_conv(CT__QOP(QCONV2D), "quantized::conv2d", x, w, scale, zero_point);
}
CTENSOR_API ct_tensor *ct_q_conv2d_relu(const ct_tensor *x, const ct_q_conv_packed *w, double scale, int64_t zero_point) {
    return ct__qo_conv(CT__QOP(QCONV2D_RELU), "quantized::conv2d_relu", x, w, scale, zero_point);
}

/* ---- modules: Quantize, DeQuantize, QuantizedConv2d / QuantizedConvReLU2d ---- */
typedef struct ct__qo_quant_mod { ct_dtype dtype; } ct__qo_quant_mod;
static ct_tensor *ct__qo_quantize_forward(ct_module *m, int nin, ct_tensor *const *in) {
    if (nin != 1) return ct__fail(CT_ERR_ARG, "Quantize: forward takes 1 input (got %d)", nin);
    const ct__qo_quant_mod *q = (const ct__qo_quant_mod *)m->impl;
    ct_tensor *s = ct_module_get(m, "scale"), *z = ct_module_get(m, "zero_point");
    if (!s || !z) return NULL;
    return ct_quantize_per_tensor(in[0], ct_item(s), ct_item_int(z), q->dtype);
}
static void ct__qo_free_impl(ct_module *m) { CT_FREE(m->impl); }
static int ct__qo_quantize_repr(const ct_module *m, char *buf, size_t cap) {
    const ct__qo_quant_mod *q = (const ct__qo_quant_mod *)m->impl;
    char s[128], z[128];
    ct_repr(ct_module_get(m, "scale"), s, sizeof s);
    ct_repr(ct_module_get(m, "zero_point"), z, sizeof z);
    return snprintf(buf, cap, "scale=%s, zero_point=%s, dtype=torch.%s", s, z, ct_dtype_name(q->dtype));
}
static const ct_module_type ct__qo_quantize_type = {"Quantize", ct__qo_quantize_forward, ct__qo_free_impl, ct__qo_quantize_repr};
CTENSOR_API ct_module *ct_nnq_quantize(double scale, int64_t zero_point, ct_dtype dtype) {
    if (dtype != CT_QUINT8 && dtype != CT_QINT8 && dtype != CT_QINT32)
        return (ct_module *)ct__fail(CT_ERR_DTYPE, "Quantize: dtype must be quint8, qint8 or qint32, got %s", CT__DTNAME(dtype));
    if (ct__q_check_params("Quantize", scale, zero_point, dtype, -1)) return NULL;
    ct__qo_quant_mod *q = (ct__qo_quant_mod *)CT_MALLOC(sizeof *q);
    if (!q) return (ct_module *)ct__fail(CT_ERR_MEMORY, "Quantize: out of memory");
    q->dtype = dtype;
    ct_module *m = ct_module_new(&ct__qo_quantize_type, q);
    if (!m) { CT_FREE(q); return NULL; }
    int s = ct_scope_begin();
    float sf = (float)scale;
    int64_t one = 1;
    ct_status st = ct_module_register_buffer(m, "scale", ct_from_data_n(&sf, CT_FLOAT32, 1, &one), 1);
    if (st == CT_OK) st = ct_module_register_buffer(m, "zero_point", ct_from_data_n(&zero_point, CT_INT64, 1, &one), 1);
    ct_scope_end(s);
    if (st != CT_OK) { ct_module_free(m); return NULL; }
    return m;
}
static ct_tensor *ct__qo_dequantize_forward(ct_module *m, int nin, ct_tensor *const *in) {
    (void)m;
    if (nin != 1) return ct__fail(CT_ERR_ARG, "DeQuantize: forward takes 1 input (got %d)", nin);
    return ct_dequantize(in[0]);
}
static const ct_module_type ct__qo_dequantize_type = {"DeQuantize", ct__qo_dequantize_forward, NULL, NULL};
CTENSOR_API ct_module *ct_nnq_dequantize(void) { return ct_module_new(&ct__qo_dequantize_type, NULL); }

/* scale: the double given (PyTorch keeps a Python float; the state dict's buffer is
   float32): used while the buffer still holds its float32 value, else the buffer's */
typedef struct ct__qo_conv_mod { ct_q_conv_packed *p; int relu; double scale; } ct__qo_conv_mod;
static double ct__qo_conv_mod_scale(const ct_module *m) {
    const ct__qo_conv_mod *c = (const ct__qo_conv_mod *)m->impl;
    ct_tensor *s = ct_module_get(m, "scale");
    double v = s ? ct_item(s) : NAN;
    return v == (double)(float)c->scale ? c->scale : v;
}
static ct_tensor *ct__qo_conv_mod_forward(ct_module *m, int nin, ct_tensor *const *in) {
    if (nin != 1) return ct__fail(CT_ERR_ARG, "%s: forward takes 1 input (got %d)", m->type->name, nin);
    const ct__qo_conv_mod *c = (const ct__qo_conv_mod *)m->impl;
    ct_tensor *z = ct_module_get(m, "zero_point");
    double s = ct__qo_conv_mod_scale(m);
    if (!z || isnan(s)) return NULL;
    return (c->relu ? ct_q_conv2d_relu : ct_q_conv2d)(in[0], c->p, s, ct_item_int(z));
}
static void ct__qo_conv_mod_free(ct_module *m) {
    ct__qo_conv_mod *c = (ct__qo_conv_mod *)m->impl;
    if (!c) return;
    ct_q_conv_packed_free(c->p);
    CT_FREE(c);
}
static int ct__qo_conv_mod_repr(const ct_module *m, char *buf, size_t cap) {
    const ct_q_conv_packed *p = ((const ct__qo_conv_mod *)m->impl)->p;
    const ct_tensor *w = p->weight;
    char sc[40];
    ct__pyfloat(ct__qo_conv_mod_scale(m), sc, sizeof sc);
    size_t n = (size_t)snprintf(buf, cap, "%lld, %lld, kernel_size=(%lld, %lld), stride=(%lld, %lld), scale=%s, zero_point=%lld",
                                (long long)(w->shape[1] * p->groups), (long long)w->shape[0], (long long)w->shape[2],
                                (long long)w->shape[3], (long long)p->stride[0], (long long)p->stride[1], sc,
                                (long long)ct_item_int(ct_module_get(m, "zero_point")));
#define CT__QO_APPEND(...) (n += (size_t)snprintf(buf + (n < cap ? n : cap), n < cap ? cap - n : 0, __VA_ARGS__))
    if (p->padding[0] || p->padding[1]) CT__QO_APPEND(", padding=(%lld, %lld)", (long long)p->padding[0], (long long)p->padding[1]);
    if (p->dilation[0] != 1 || p->dilation[1] != 1)
        CT__QO_APPEND(", dilation=(%lld, %lld)", (long long)p->dilation[0], (long long)p->dilation[1]);
    if (p->groups != 1) CT__QO_APPEND(", groups=%lld", (long long)p->groups);
    if (!p->bias) CT__QO_APPEND(", bias=False");
#undef CT__QO_APPEND
    return (int)n;
}
static const ct_module_type ct__qo_conv_type = {"QuantizedConv2d", ct__qo_conv_mod_forward, ct__qo_conv_mod_free, ct__qo_conv_mod_repr};
static const ct_module_type ct__qo_convrelu_type = {"QuantizedConvReLU2d", ct__qo_conv_mod_forward, ct__qo_conv_mod_free,
                                                    ct__qo_conv_mod_repr};
CTENSOR_API ct_module *ct_nnq_conv2d(ct_q_conv_packed *packed, double scale, int64_t zero_point, int relu) {
    const char *nm = relu ? "QuantizedConvReLU2d" : "QuantizedConv2d";
    if (!packed) { ct__null_arg(nm, 0); return NULL; }
    ct__qo_conv_mod *c = NULL;
    ct_module *m = NULL;
    if (ct__q_check_params(nm, scale, zero_point, CT_QUINT8, -1) == 0) {
        c = (ct__qo_conv_mod *)CT_MALLOC(sizeof *c);
        if (!c) ct_set_error(CT_ERR_MEMORY, "%s: out of memory", nm);
        else if (!(m = ct_module_new(relu ? &ct__qo_convrelu_type : &ct__qo_conv_type, c))) CT_FREE(c);
    }
    if (!m) {
        ct_q_conv_packed_free(packed);
        return NULL;
    }
    c->p = packed;
    c->relu = relu != 0;
    c->scale = scale;
    int s = ct_scope_begin();
    ct_status st = ct_module_register_buffer(m, "weight", packed->weight, 1);
    if (st == CT_OK && packed->bias) st = ct_module_register_buffer(m, "bias", packed->bias, 1);
    if (st == CT_OK) st = ct_module_register_buffer(m, "scale", ct_scalar_tensor((float)scale, CT_FLOAT32), 1);
    if (st == CT_OK) st = ct_module_register_buffer(m, "zero_point", ct_scalar_tensor((double)zero_point, CT_INT64), 1);
    ct_scope_end(s);
    if (st != CT_OK) { ct_module_free(m); return NULL; }
    return m;
}


#endif /* CTENSOR_QUANT_IMPLEMENTATION_DONE */
#endif /* CTENSOR_QUANT_IMPLEMENTATION */
