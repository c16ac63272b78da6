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
/* The int8 GEMM: u8 activations x s8 weights -> s32, the weight packed once
   (PyTorch's LinearPackedParams, fbgemm's PackBMatrix): its int8 codes in the
   kernel's layout, their per-column sums (for the activation's zero point), the
   weight's per-tensor or per-channel scales and zero points, and the float bias.
   Paths, chosen when the program runs (the fastest this CPU has, whatever -march
   the file was built with, on gcc and clang for x86-64; else what the compiler
   targets): AVX-512 VNNI (vpdpbusd), AVX2 (vpmaddwd on 16-bit widened codes:
   exact for every u8 code, so activations need no reduce_range against the int16
   saturation of vpmaddubsw that fbgemm's 7-bit activations avoid), ARM NEON
   dot product (sdot on codes shifted to s8, corrected by the column sums), and
   portable C. Every path gives the same integers (exact s32 arithmetic; a sum
   past INT32_MAX, K beyond ~66000 with extreme codes, wraps as PyTorch's does). */
typedef struct ct_q_linear_packed ct_q_linear_packed;
/* weight: qint8 [out_features, in_features], per tensor (affine or symmetric) or
   per channel along axis 0; bias: float32 [out_features] or NULL. The packed
   weight keeps its own references (quantized::linear_prepack). NULL with the
   error set on bad input. Free with ct_q_linear_packed_free. */
CTENSOR_API ct_q_linear_packed *ct_q_linear_prepack(const ct_tensor *weight, const ct_tensor *bias);
CTENSOR_API void ct_q_linear_packed_free(ct_q_linear_packed *w);
/* quantized::linear_unpack: the qint8 weight and the bias (NULL when none), borrowed. */
CTENSOR_API ct_tensor *ct_q_linear_packed_weight(const ct_q_linear_packed *w);
CTENSOR_API ct_tensor *ct_q_linear_packed_bias(const ct_q_linear_packed *w);
CTENSOR_API int64_t ct_q_linear_packed_in_features(const ct_q_linear_packed *w);
CTENSOR_API int64_t ct_q_linear_packed_out_features(const ct_q_linear_packed *w);
/* quantized::linear: x quint8 [..., in_features] (per tensor) -> quint8 [...,
   out_features] with the given output scale and zero point:
   y = clamp(round((x_scale w_scale[n] acc + bias[n]) / output_scale) + zp),
   acc = sum_k (x - x_zp)(w - w_zp[n]). linear_relu clamps below at the output's
   zero point (fused relu). */
CTENSOR_API ct_tensor *ct_q_linear(const ct_tensor *x, const ct_q_linear_packed *w, double output_scale,
                                   int64_t output_zero_point);
CTENSOR_API ct_tensor *ct_q_linear_relu(const ct_tensor *x, const ct_q_linear_packed *w, double output_scale,
                                        int64_t output_zero_point);
/* quantized::linear_dynamic: x float32 [..., in_features] -> float32 [...,
   out_features]. x is quantized per call to quint8 from its min/max
   (ct_q_choose_qparams; reduce_range: codes [0, 127], PyTorch's x86 (fbgemm)
   semantics and its dynamic Linear's default; 0: [0, 255], qnnpack's), then
   y = x_scale w_scale[n] acc + bias[n]. */
CTENSOR_API ct_tensor *ct_q_linear_dynamic(const ct_tensor *x, const ct_q_linear_packed *w, int reduce_range);

/* The raw product: c[m][n] = sum_k a[m][k] w[n][k] (codes, no zero points) for m
   < M, n < out_features; a: M rows of in_features uint8 (row stride lda), c: row
   stride ldc. 0, or -1 with the error set. For tests and custom epilogues. */
CTENSOR_API int ct_q_gemm_u8s8s32(int64_t M, const uint8_t *a, int64_t lda, const ct_q_linear_packed *w, int32_t *c,
                                  int64_t ldc);
typedef enum ct_q_gemm_path {
    CT_Q_GEMM_AUTO = 0,          /* the fastest available (the default) */
    CT_Q_GEMM_PORTABLE = 1,      /* plain C */
    CT_Q_GEMM_AVX2 = 2,
    CT_Q_GEMM_AVX512_VNNI = 3,
    CT_Q_GEMM_NEON_DOTPROD = 4
} ct_q_gemm_path;
CTENSOR_API int ct_q_gemm_path_available(ct_q_gemm_path p);
CTENSOR_API const char *ct_q_gemm_path_name(ct_q_gemm_path p);   /* "avx512_vnni", ... */
/* The path that the calling thread's int8 GEMMs take (AUTO resolved). */
CTENSOR_API ct_q_gemm_path ct_q_gemm_path_used(void);
/* Forces the calling thread's int8 GEMMs onto path p (CT_Q_GEMM_AUTO undoes it),
   e.g. CT_Q_GEMM_PORTABLE to test against the SIMD paths. Returns the previous
   setting, or -1 (error set) when p is not available here. */
CTENSOR_API int ct_q_gemm_force_path(ct_q_gemm_path p);

/* torch.ao.nn.quantized.dynamic.Linear made from a float nn.Linear (ct_nn_linear):
   the weight quantized to qint8 symmetrically (PyTorch's default_weight_observer:
   scale = max|w| / 127.5, zero point 0; per_channel: one scale per output row, as
   per_channel_dynamic_qconfig), the bias kept in float32. reduce_range: as for
   ct_q_linear_dynamic (1 = PyTorch's module on x86). Buffers (its state dict):
   weight (int8 codes [out, in]), weight_scale (float64 [1] or [out]),
   weight_zero_point (int64, same size), bias (float32 [out], absent without
   bias); loading new values into them repacks on the next forward. */
CTENSOR_API ct_module *ct_nnq_dynamic_linear(const ct_module *linear, int per_channel, int reduce_range);
/* The module's packed weight (borrowed; NULL with the error set for another module). */
CTENSOR_API const ct_q_linear_packed *ct_nnq_dynamic_linear_packed(ct_module *m);
/* torch.ao.nn.quantized.dynamic.LSTM made from a float nn.LSTM (ct_nn_lstm): each
   layer's and direction's weight_ih and weight_hh quantized to qint8 per tensor
   (symmetric, as ct_nnq_dynamic_linear), the biases kept in float32. Each layer
   projects the whole input sequence at once (one dynamic quantization of it, as
   PyTorch does on the CPU), then per step the hidden state through
   quantized::linear_dynamic; gate math in float32. ct_forward(m, x) gives the
   output; ct_nnq_lstm_forward has ct_lstm_forward's arguments (h0, c0 may be
   NULL; h_n, c_n may be NULL). Inference only (no autograd). */
CTENSOR_API ct_module *ct_nnq_dynamic_lstm(const ct_module *lstm, int reduce_range);
CTENSOR_API ct_tensor *ct_nnq_lstm_forward(ct_module *m, const ct_tensor *x, const ct_tensor *h0, const ct_tensor *c0,
                                           ct_tensor **h_n, ct_tensor **c_n);

/* ============================================================================
   Quantized ops: conv2d, add, mul, relu, pooling, cat
   ========================================================================== */
/* SECTION-QOPS-DECL (helper C fills this section) */

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
#define CT__OPS_Q_GEMM(X)                                                                                          \
    X(Q_LINEAR, "quantized::linear", "quantized_linear", "", 6, 1, CT__OPF_NONDIFF,                                   \
      "int in_features=i0, float Y_scale_i=s0, int Y_zero_point_i=i1", ct__qg_meta, ct__qg_k_linear, ct__bw_none,     \
      CT__SAVE_NONE)                                                                                                \
    X(Q_LINEAR_RELU, "quantized::linear_relu", "quantized_linear_relu", "", 6, 1, CT__OPF_NONDIFF,                    \
      "int in_features=i0, float Y_scale_i=s0, int Y_zero_point_i=i1", ct__qg_meta, ct__qg_k_linear, ct__bw_none,     \
      CT__SAVE_NONE)                                                                                                \
    X(Q_LINEAR_DYNAMIC, "quantized::linear_dynamic", "quantized_linear_dynamic", "", 6, 1, CT__OPF_NONDIFF,           \
      "int in_features=i0, bool reduce_range=f0", ct__qg_meta, ct__qg_k_linear, ct__bw_none, CT__SAVE_NONE)


/* quantized conv2d, add, mul, relu, pooling, cat (SECTION-QOPS-OPS: helper C's rows) */
#define CT__OPS_Q_QOPS(X)


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
/* ---- the paths ----
   x86-64 with gcc or clang: the AVX2 and AVX-512 VNNI kernels are compiled with
   target attributes and picked at run time (__builtin_cpu_supports), so a build
   without -march=native still runs VNNI on a CPU that has it. nvcc's front end
   and other compilers get the portable kernel (and NEON where the compiler
   targets the dot product). */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__) && !defined(CTENSOR_NO_SIMD) && defined(__x86_64__)
#  define CT__QG_X86 1
#  include <immintrin.h>
#  define CT__QG_VNNI_FN __attribute__((target("avx512f,avx512bw,avx512vnni")))
#  define CT__QG_AVX2_FN __attribute__((target("avx2")))
#  define CT__QG_ALWAYS_INLINE __attribute__((always_inline)) inline
#endif
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__) && !defined(CTENSOR_NO_SIMD) && defined(__aarch64__) && \
    defined(__ARM_FEATURE_DOTPROD)
#  define CT__QG_NEON 1
#  include <arm_neon.h>
#endif

/* The packed weight. The codes sit in panels of NP = 64 output columns:
   packed[panel][k / 4][j][k % 4] = w[64 panel + j][k] (zero past N and K), so one
   k-group of a panel is 256 contiguous bytes: four 64-byte vectors of 16 columns x
   4 codes, the operand of vpdpbusd against 4 broadcast activation bytes. */
#define CT__QG_NP 64
#define CT__QG_MR 6        /* activation rows per tile */
struct ct_q_linear_packed {
    int64_t N, K, K4, np;
    ct_tensor *weight, *bias;            /* as given (retained) */
    ct_tensor *packed;                   /* int8 [np * K4 * 256] */
    ct_tensor *col_sums;                 /* int32 [N]: sum_k w[n][k] */
    ct_tensor *scales;                   /* float32 [1] (per tensor) or [N] */
    ct_tensor *zero_points;              /* int32, as scales */
    ct_tensor *bias0;                    /* float32 [N]: the bias, zeros without one */
};

static CT_THREAD_LOCAL int ct__qg_forced;   /* ct_q_gemm_force_path: 0 = auto */
CTENSOR_API int ct_q_gemm_path_available(ct_q_gemm_path p) {
    switch (p) {
    case CT_Q_GEMM_AUTO:
    case CT_Q_GEMM_PORTABLE: return 1;
#ifdef CT__QG_X86
    case CT_Q_GEMM_AVX2: return __builtin_cpu_supports("avx2") != 0;
    case CT_Q_GEMM_AVX512_VNNI:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni");
#endif
#ifdef CT__QG_NEON
    case CT_Q_GEMM_NEON_DOTPROD: return 1;
#endif
    default: return 0;
    }
}
CTENSOR_API const char *ct_q_gemm_path_name(ct_q_gemm_path p) {
    static const char *const names[] = {"auto", "portable", "avx2", "avx512_vnni", "neon_dotprod"};
    return (unsigned)p < 5u ? names[p] : "?";
}
CTENSOR_API ct_q_gemm_path ct_q_gemm_path_used(void) {
    if (ct__qg_forced) return (ct_q_gemm_path)ct__qg_forced;
    static const ct_q_gemm_path order[] = {CT_Q_GEMM_AVX512_VNNI, CT_Q_GEMM_NEON_DOTPROD, CT_Q_GEMM_AVX2};
    for (int i = 0; i < 3; i++)
        if (ct_q_gemm_path_available(order[i])) return order[i];
    return CT_Q_GEMM_PORTABLE;
}
CTENSOR_API int ct_q_gemm_force_path(ct_q_gemm_path p) {
    if ((unsigned)p > 4u || !ct_q_gemm_path_available(p))
        return ct__failed(CT_ERR_UNSUPPORTED, "q_gemm_force_path: the %s path is not available on this CPU or build",
                          ct_q_gemm_path_name(p));
    int old = ct__qg_forced;
    ct__qg_forced = (int)p;
    return old;
}

/* ---- the tile kernels ----
   acc[r][j] = sum_k a[r lda + k] w[64 panel + j][k] for r < mr (<= CT__QG_MR), j < 64;
   p: the panel; K4 = ceil(K / 4). Each reads the last k-group's activation bytes
   only up to K (zero past it), so no read passes a row's end. */
/* 4 activation bytes at k-group g of a row as one 32-bit word, zero past K */
CT__INLINE uint32_t ct__qg_a4(const uint8_t *row, int64_t g, int64_t K) {
    uint32_t v = 0;
    int64_t k = 4 * g, n = K - k < 4 ? K - k : 4;
    memcpy(&v, row + k, (size_t)n);
    return v;
}
static void ct__qg_tile_c(const uint8_t *a, int64_t lda, int mr, const int8_t *p, int64_t K, int32_t *acc) {
    int64_t K4 = (K + 3) / 4;
    memset(acc, 0, (size_t)mr * CT__QG_NP * sizeof(int32_t));
    for (int r = 0; r < mr; r++) {
        int32_t *cr = acc + r * CT__QG_NP;
        for (int64_t g = 0; g < K4; g++) {
            uint32_t v = ct__qg_a4(a + r * lda, g, K);
            uint8_t b[4];
            memcpy(b, &v, 4);
            const int8_t *w = p + g * 4 * CT__QG_NP;
            for (int j = 0; j < CT__QG_NP; j++)
                cr[j] += b[0] * w[4 * j] + b[1] * w[4 * j + 1] + b[2] * w[4 * j + 2] + b[3] * w[4 * j + 3];
        }
    }
}
#ifdef CT__QG_X86
/* AVX-512 VNNI: per k-group, 4 weight vectors (64 columns) and one broadcast word
   per row: MR x 4 vpdpbusd into 24 accumulators. */
CT__QG_VNNI_FN static CT__QG_ALWAYS_INLINE void ct__qg_vnni_mr(const uint8_t *a, int64_t lda, const int mr, const int8_t *p,
                                                             int64_t K, int32_t *acc) {
    __m512i c[CT__QG_MR][4];
    for (int r = 0; r < mr; r++)
        for (int q = 0; q < 4; q++) c[r][q] = _mm512_setzero_si512();
    int64_t K4 = (K + 3) / 4, Kf = K / 4;
    for (int64_t g = 0; g < K4; g++) {
        const int8_t *w = p + g * 4 * CT__QG_NP;
        __m512i w0 = _mm512_loadu_si512((const void *)w), w1 = _mm512_loadu_si512((const void *)(w + 64));
        __m512i w2 = _mm512_loadu_si512((const void *)(w + 128)), w3 = _mm512_loadu_si512((const void *)(w + 192));
        for (int r = 0; r < mr; r++) {
            uint32_t v;
            if (g < Kf) memcpy(&v, a + r * lda + 4 * g, 4);
            else v = ct__qg_a4(a + r * lda, g, K);
            __m512i b = _mm512_set1_epi32((int)v);
            c[r][0] = _mm512_dpbusd_epi32(c[r][0], b, w0);
            c[r][1] = _mm512_dpbusd_epi32(c[r][1], b, w1);
            c[r][2] = _mm512_dpbusd_epi32(c[r][2], b, w2);
            c[r][3] = _mm512_dpbusd_epi32(c[r][3], b, w3);
        }
    }
    for (int r = 0; r < mr; r++)
        for (int q = 0; q < 4; q++) _mm512_storeu_si512((void *)(acc + r * CT__QG_NP + 16 * q), c[r][q]);
}
CT__QG_VNNI_FN static void ct__qg_tile_vnni(const uint8_t *a, int64_t lda, int mr, const int8_t *p, int64_t K, int32_t *acc) {
    switch (mr) {
    case 1: ct__qg_vnni_mr(a, lda, 1, p, K, acc); break;
    case 2: ct__qg_vnni_mr(a, lda, 2, p, K, acc); break;
    case 3: ct__qg_vnni_mr(a, lda, 3, p, K, acc); break;
    case 4: ct__qg_vnni_mr(a, lda, 4, p, K, acc); break;
    case 5: ct__qg_vnni_mr(a, lda, 5, p, K, acc); break;
    default: ct__qg_vnni_mr(a, lda, 6, p, K, acc); break;
    }
}
/* AVX2: the codes widened to 16 bits (vpmovsxbw / vpmovzxbw) and multiplied in
   pairs by vpmaddwd: exact for every u8 x s8 product, unlike vpmaddubsw whose
   int16 sum of two products saturates (255 * -128 * 2 < -32768). Each 32-bit lane
   holds half a column's sum (codes k, k+1 of a group); the halves are added at
   the end. 16 columns and 2 rows at a time. */
CT__QG_AVX2_FN static void ct__qg_tile_avx2(const uint8_t *a, int64_t lda, int mr, const int8_t *p, int64_t K, int32_t *acc) {
    int64_t K4 = (K + 3) / 4, Kf = K / 4;
    for (int s = 0; s < 4; s++)
        for (int r0 = 0; r0 < mr; r0 += 2) {
            const uint8_t *a0 = a + r0 * lda, *a1 = r0 + 1 < mr ? a0 + lda : a0;
            __m256i c0[4], c1[4];
            for (int q = 0; q < 4; q++) c0[q] = c1[q] = _mm256_setzero_si256();
            for (int64_t g = 0; g < K4; g++) {
                uint32_t v0, v1;
                if (g < Kf) {
                    memcpy(&v0, a0 + 4 * g, 4);
                    memcpy(&v1, a1 + 4 * g, 4);
                } else {
                    v0 = ct__qg_a4(a0, g, K);
                    v1 = ct__qg_a4(a1, g, K);
                }
                __m256i A0 = _mm256_cvtepu8_epi16(_mm_set1_epi32((int)v0)), A1 = _mm256_cvtepu8_epi16(_mm_set1_epi32((int)v1));
                const int8_t *w = p + g * 4 * CT__QG_NP + 64 * s;
                for (int q = 0; q < 4; q++) {
                    __m256i W = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(w + 16 * q)));
                    c0[q] = _mm256_add_epi32(c0[q], _mm256_madd_epi16(W, A0));
                    c1[q] = _mm256_add_epi32(c1[q], _mm256_madd_epi16(W, A1));
                }
            }
            for (int q = 0; q < 4; q++) {
                int32_t t0[8], t1[8];
                _mm256_storeu_si256((__m256i *)(void *)t0, c0[q]);
                _mm256_storeu_si256((__m256i *)(void *)t1, c1[q]);
                for (int i = 0; i < 4; i++) {
                    acc[r0 * CT__QG_NP + 16 * s + 4 * q + i] = t0[2 * i] + t0[2 * i + 1];
                    if (r0 + 1 < mr) acc[(r0 + 1) * CT__QG_NP + 16 * s + 4 * q + i] = t1[2 * i] + t1[2 * i + 1];
                }
            }
        }
}
#endif
#ifdef CT__QG_NEON
/* NEON dot product (sdot, s8 x s8): the activation codes shifted to s8 (a - 128),
   the product corrected by 128 times the column sums (colsum: the panel's 64). */
static void ct__qg_tile_neon(const uint8_t *a, int64_t lda, int mr, const int8_t *p, int64_t K, int32_t *acc,
                             const int32_t *colsum, int64_t nr) {
    int64_t K4 = (K + 3) / 4;
    for (int r = 0; r < mr; r++) {
        int32x4_t c[16];
        for (int q = 0; q < 16; q++) c[q] = vdupq_n_s32(0);
        for (int64_t g = 0; g < K4; g++) {
            uint32_t v = ct__qg_a4(a + r * lda, g, K) ^ 0x80808080u;
            if (4 * g + 4 > K) v &= 0xffffffffu >> (8 * (4 * g + 4 - K));   /* the padding stays 0, not -128 */
            int8x16_t A = vreinterpretq_s8_u32(vdupq_n_u32(v));
            const int8_t *w = p + g * 4 * CT__QG_NP;
            for (int q = 0; q < 16; q++) c[q] = vdotq_s32(c[q], vld1q_s8(w + 16 * q), A);
        }
        for (int q = 0; q < 16; q++) vst1q_s32(acc + r * CT__QG_NP + 4 * q, c[q]);
        for (int64_t j = 0; j < nr; j++) acc[r * CT__QG_NP + j] += 128 * colsum[j];
    }
}
#endif

/* clamp(nearbyint(v * inv) + zp, lo, 255) as uint8, branch-free so that loops of it
   vectorize: the product is clamped to +-1024 first (beyond, the result is an end of
   the range anyway), where adding and subtracting 1.5 * 2^23 rounds to nearest even
   exactly as nearbyintf does; NaN gives lo (PyTorch's cast gives the low end too). */
CT__INLINE uint8_t ct__qg_requant(float v, float inv, float zp, float lo) {
    float t = v * inv;
    t = t > -1024.f ? t : -1024.f;
    t = t < 1024.f ? t : 1024.f;
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0
    t = nearbyintf(t) + zp;   /* wider evaluation (x87) would defeat the addition trick */
#else
    t = (t + 12582912.f) - 12582912.f + zp;
#endif
    t = t > lo ? t : lo;
    t = t < 255.f ? t : 255.f;
    return (uint8_t)(int32_t)t;
}
/* x's min and max (the dynamic activation range), in 16 lanes so that it vectorizes;
   NaNs are skipped unless every value is one */
#ifdef CT__QG_X86
CT__QG_AVX2_FN static int64_t ct__qg_minmax_avx2(const float *x, int64_t n, float *mn, float *mx) {
    __m256 a0 = _mm256_set1_ps(x[0]), a1 = a0, b0 = a0, b1 = a0;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256 v0 = _mm256_loadu_ps(x + i), v1 = _mm256_loadu_ps(x + i + 8);
        a0 = _mm256_min_ps(v0, a0);   /* a NaN in v keeps the running value, as the scalar loop */
        a1 = _mm256_min_ps(v1, a1);
        b0 = _mm256_max_ps(v0, b0);
        b1 = _mm256_max_ps(v1, b1);
    }
    _mm256_storeu_ps(mn, _mm256_min_ps(a0, a1));
    _mm256_storeu_ps(mx, _mm256_max_ps(b0, b1));
    return i;
}
#endif
static void ct__qg_minmax(const float *x, int64_t n, float *mn_out, float *mx_out) {
    float mn[16], mx[16];
    int64_t i = 0;
    for (int l = 0; l < 16; l++) mn[l] = mx[l] = n ? x[0] : 0.f;
#ifdef CT__QG_X86
    if (n >= 16 && __builtin_cpu_supports("avx2")) i = ct__qg_minmax_avx2(x, n, mn, mx);
#endif
    for (; i + 16 <= n; i += 16)
        for (int l = 0; l < 16; l++) {
            mn[l] = x[i + l] < mn[l] ? x[i + l] : mn[l];
            mx[l] = x[i + l] > mx[l] ? x[i + l] : mx[l];
        }
    for (; i < n; i++) {
        mn[0] = x[i] < mn[0] ? x[i] : mn[0];
        mx[0] = x[i] > mx[0] ? x[i] : mx[0];
    }
    for (int l = 1; l < 16; l++) {
        mn[0] = mn[l] < mn[0] ? mn[l] : mn[0];
        mx[0] = mx[l] > mx[0] ? mx[l] : mx[0];
    }
    *mn_out = mn[0];
    *mx_out = mx[0];
}

/* ---- the GEMM driver: tiles of MR rows x one panel, spread over threads ---- */
enum { CT__QG_OUT_S32 = 0, CT__QG_OUT_F32 = 1, CT__QG_OUT_U8 = 2 };
typedef struct ct__qg_job {
    int path, out;
    const uint8_t *a;
    int64_t lda, M, N, K, nmb;          /* nmb: row blocks */
    const int8_t *packed;
    const int32_t *colsum;
    void *c;
    int64_t ldc;
    /* epilogue (F32, U8): y = a_scale w_scale[n] (acc - a_zp colsum[n] - w_zp[n] rowsum[m] + K a_zp w_zp[n]) + bias[n] */
    const float *wscale;
    const int32_t *wzp;
    int per_channel;
    const int32_t *rowsum;              /* NULL when every w_zp is 0 */
    const float *bias;
    float a_scale;
    int32_t a_zp;
    float inv_out_scale;
    int32_t out_zp, qlo;                /* U8: clamp to [qlo, 255] (qlo = out_zp for relu) */
} ct__qg_job;
static void ct__qg_run(void *ctx, int64_t lo, int64_t hi) {
    const ct__qg_job *j = (const ct__qg_job *)ctx;
    int32_t acc[CT__QG_MR * CT__QG_NP];
    int64_t K4 = (j->K + 3) / 4;
    for (int64_t t = lo; t < hi; t++) {
        /* the rows split evenly over the nmb blocks (32 rows: 6 6 5 5 5 5, not 6 x 5 + 2) */
        int64_t pn = t / j->nmb, b = t % j->nmb, base = j->M / j->nmb, rem = j->M % j->nmb, n0 = pn * CT__QG_NP;
        int64_t m0 = b * base + (b < rem ? b : rem);
        int mr = (int)(base + (b < rem));
        int64_t nr = j->N - n0 < CT__QG_NP ? j->N - n0 : CT__QG_NP;
        const uint8_t *a = j->a + m0 * j->lda;
        const int8_t *p = j->packed + pn * K4 * 4 * CT__QG_NP;
        switch (j->path) {
#ifdef CT__QG_X86
        case CT_Q_GEMM_AVX512_VNNI: ct__qg_tile_vnni(a, j->lda, mr, p, j->K, acc); break;
        case CT_Q_GEMM_AVX2: ct__qg_tile_avx2(a, j->lda, mr, p, j->K, acc); break;
#endif
#ifdef CT__QG_NEON
        case CT_Q_GEMM_NEON_DOTPROD: ct__qg_tile_neon(a, j->lda, mr, p, j->K, acc, j->colsum + n0, nr); break;
#endif
        default: ct__qg_tile_c(a, j->lda, mr, p, j->K, acc); break;
        }
        if (j->out == CT__QG_OUT_S32) {
            for (int r = 0; r < mr; r++)
                memcpy((int32_t *)j->c + (m0 + r) * j->ldc + n0, acc + r * CT__QG_NP, (size_t)nr * sizeof(int32_t));
            continue;
        }
        /* per column of the tile: the multiplier and the correction of the activation's zero point */
        float mult[CT__QG_NP];
        uint32_t corr[CT__QG_NP], wz[CT__QG_NP];
        for (int64_t i = 0; i < nr; i++) {
            int64_t n = n0 + i, ch = j->per_channel ? n : 0;
            mult[i] = j->a_scale * j->wscale[ch];
            wz[i] = (uint32_t)j->wzp[ch];
            corr[i] = (uint32_t)j->a_zp * (uint32_t)j->colsum[n] - (uint32_t)j->K * (uint32_t)j->a_zp * wz[i];
        }
        for (int r = 0; r < mr; r++) {
            const int32_t *ar = acc + r * CT__QG_NP;
            int64_t m = m0 + r;
            uint32_t rs = j->rowsum ? (uint32_t)j->rowsum[m] : 0u;
            const float *bias = j->bias + n0;
            if (j->out == CT__QG_OUT_F32) {
                float *y = (float *)j->c + m * j->ldc + n0;
                for (int64_t i = 0; i < nr; i++) y[i] = (float)(int32_t)((uint32_t)ar[i] - corr[i] - wz[i] * rs) * mult[i] + bias[i];
            } else {
                uint8_t *y = (uint8_t *)j->c + m * j->ldc + n0;
                for (int64_t i = 0; i < nr; i++)
                    y[i] = ct__qg_requant((float)(int32_t)((uint32_t)ar[i] - corr[i] - wz[i] * rs) * mult[i] + bias[i],
                                          j->inv_out_scale, (float)j->out_zp, (float)j->qlo);
            }
        }
    }
}
/* Runs job j (a, M, lda, out, c, ldc and the epilogue set) over w. */
static void ct__qg_gemm(ct__qg_job *j, const ct_q_linear_packed *w) {
    j->path = (int)ct_q_gemm_path_used();
    j->N = w->N;
    j->K = w->K;
    j->packed = (const int8_t *)ct__ptr(w->packed);
    j->colsum = (const int32_t *)ct__ptr(w->col_sums);
    if (j->M <= 0 || j->N <= 0) return;
    j->nmb = (j->M + CT__QG_MR - 1) / CT__QG_MR;
    int64_t ntask = j->nmb * w->np, mr = j->M < CT__QG_MR ? j->M : CT__QG_MR;
    int64_t work = mr * CT__QG_NP * (w->K4 > 0 ? w->K4 : 1) * 4;   /* multiply-adds per tile */
    int64_t grain = (262144 + work - 1) / work;
    ct__nn_par_for(ntask, grain, ct__qg_run, j);
}

/* ---- prepacking ---- */
CTENSOR_API void ct_q_linear_packed_free(ct_q_linear_packed *w) {
    if (!w) return;
    ct_release(w->weight);
    ct_release(w->bias);
    ct_release(w->packed);
    ct_release(w->col_sums);
    ct_release(w->scales);
    ct_release(w->zero_points);
    ct_release(w->bias0);
    CT_FREE(w);
}
CTENSOR_API ct_q_linear_packed *ct_q_linear_prepack(const ct_tensor *weight, const ct_tensor *bias) {
    const char *op = "quantized::linear_prepack";
    if (!weight) { ct__null_arg(op, 0); return NULL; }
    if (weight->dtype != CT_QINT8 || !weight->qparams)
        return (ct_q_linear_packed *)ct__fail(CT_ERR_DTYPE, "%s: the weight must be a qint8 tensor, got %s", op, CT__DTNAME(weight->dtype));
    if (weight->ndim != 2)
        return (ct_q_linear_packed *)ct__fail(CT_ERR_SHAPE, "%s: the weight must be 2-D [out_features, in_features], got shape %s", op,
                                              CT__SHAPE(weight));
    const ct_qparams *qp = weight->qparams;
    if (qp->nchannels && qp->axis != 0)
        return (ct_q_linear_packed *)ct__fail(CT_ERR_ARG, "%s: a per-channel weight must be quantized along axis 0 (got axis %lld)", op,
                                              (long long)qp->axis);
    int64_t N = weight->shape[0], K = weight->shape[1];
    if (bias && (bias->dtype != CT_FLOAT32 || bias->ndim != 1 || bias->shape[0] != N || bias->device.type != CT_CPU))
        return (ct_q_linear_packed *)ct__fail(CT_ERR_SHAPE, "%s: the bias must be a float32 CPU tensor of shape [%lld], got %s %s", op,
                                              (long long)N, CT__DTNAME(bias->dtype), CT__SHAPE(bias));
    ct_q_linear_packed *w = CT__NEW_ZEROED(ct_q_linear_packed);
    if (!w) return (ct_q_linear_packed *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", op);
    w->N = N;
    w->K = K;
    w->K4 = (K + 3) / 4;
    w->np = (N + CT__QG_NP - 1) / CT__QG_NP;
    int nsc = qp->nchannels ? (int)N : 1;
    int ok = 0, s = ct_scope_begin();
    {
        int64_t plen = w->np * w->K4 * 4 * CT__QG_NP, n1 = nsc;
        ct_tensor *codes = ct_int_repr(weight);
        ct_tensor *pk = ct_zeros_n(CT_INT8, 1, &plen), *cs = ct_empty_n(CT_INT32, 1, &N);
        ct_tensor *sc = ct_empty_n(CT_FLOAT32, 1, &n1), *zp = ct_empty_n(CT_INT32, 1, &n1);
        ct_tensor *b0 = bias ? ct_contiguous(bias) : ct_zeros_n(CT_FLOAT32, 1, &N);
        if (codes && pk && cs && sc && zp && b0) {
            const int8_t *c = (const int8_t *)ct__ptr(codes);
            int8_t *p = (int8_t *)ct__ptr(pk);
            int32_t *csum = (int32_t *)ct__ptr(cs);
            for (int64_t n = 0; n < N; n++) {
                int32_t sum = 0;
                int8_t *pn = p + (n / CT__QG_NP) * w->K4 * 4 * CT__QG_NP + (n % CT__QG_NP) * 4;
                for (int64_t k = 0; k < K; k++) {
                    int8_t v = c[n * K + k];
                    sum += v;
                    pn[(k / 4) * 4 * CT__QG_NP + k % 4] = v;
                }
                csum[n] = sum;
            }
            for (int i = 0; i < nsc; i++) {
                ((float *)ct__ptr(sc))[i] = (float)(qp->nchannels ? qp->scales[i] : qp->scale);
                ((int32_t *)ct__ptr(zp))[i] = (int32_t)(qp->nchannels ? qp->zero_points[i] : qp->zero_point);
            }
            w->weight = ct_retain((ct_tensor *)weight);
            w->bias = bias ? ct_retain((ct_tensor *)bias) : NULL;
            w->packed = ct_retain(pk);
            w->col_sums = ct_retain(cs);
            w->scales = ct_retain(sc);
            w->zero_points = ct_retain(zp);
            w->bias0 = ct_retain(b0);
            ok = 1;
        }
    }
    ct_scope_end(s);
    if (!ok) {
        CT_FREE(w);
        return NULL;
    }
    return w;
}
CTENSOR_API ct_tensor *ct_q_linear_packed_weight(const ct_q_linear_packed *w) { return w ? w->weight : NULL; }
CTENSOR_API ct_tensor *ct_q_linear_packed_bias(const ct_q_linear_packed *w) { return w ? w->bias : NULL; }
CTENSOR_API int64_t ct_q_linear_packed_in_features(const ct_q_linear_packed *w) { return w ? w->K : -1; }
CTENSOR_API int64_t ct_q_linear_packed_out_features(const ct_q_linear_packed *w) { return w ? w->N : -1; }

CTENSOR_API int ct_q_gemm_u8s8s32(int64_t M, const uint8_t *a, int64_t lda, const ct_q_linear_packed *w, int32_t *c, int64_t ldc) {
    if (!w) return ct__failed(CT_ERR_ARG, "q_gemm_u8s8s32: the packed weight is NULL");
    if (M < 0 || lda < w->K || ldc < w->N || (M > 0 && w->N > 0 && (!c || (w->K > 0 && !a))))
        return ct__failed(CT_ERR_ARG, "q_gemm_u8s8s32: bad arguments (M %lld, lda %lld, ldc %lld for K %lld, N %lld)", (long long)M,
                          (long long)lda, (long long)ldc, (long long)w->K, (long long)w->N);
    ct__qg_job j;
    memset(&j, 0, sizeof j);
    j.out = CT__QG_OUT_S32;
    j.a = a;
    j.lda = lda;
    j.M = M;
    j.c = c;
    j.ldc = ldc;
    ct__qg_gemm(&j, w);
    return 0;
}

/* ---- the ops: quantized::linear, linear_relu (QuantizedCPU), linear_dynamic ----
   inputs (x, packed, col_sums, scales, zero_points, bias0): the packed weight's
   tensors, so the op is a plain row of the table that a tracer can save */
static int ct__qg_meta(ct__call *c) {
    const char *op = ct__opdef_get(c->op)->name;
    int dyn = c->op == CT__QOP(Q_LINEAR_DYNAMIC);
    const ct_tensor *x = c->in[0], *pk = c->in[1], *cs = c->in[2], *sc = c->in[3], *zp = c->in[4], *b = c->in[5];
    int64_t K = c->a->i[0];
    for (int i = 0; i < 6; i++)
        if (c->in[i]->device.type != CT_CPU) return ct__failed(CT_ERR_DEVICE, "%s: expected CPU tensors (input %d is on a device)", op, i);
    if (cs->dtype != CT_INT32 || cs->ndim != 1 || pk->dtype != CT_INT8 || pk->ndim != 1 || K < 0)
        return ct__failed(CT_ERR_ARG, "%s: malformed packed weight (make it with ct_q_linear_prepack)", op);
    int64_t N = cs->shape[0];
    int64_t plen = (N + CT__QG_NP - 1) / CT__QG_NP * ((K + 3) / 4) * 4 * CT__QG_NP;
    if (pk->shape[0] != plen || sc->dtype != CT_FLOAT32 || sc->ndim != 1 || (sc->shape[0] != 1 && sc->shape[0] != N) ||
        zp->dtype != CT_INT32 || zp->ndim != 1 || zp->shape[0] != sc->shape[0] || b->dtype != CT_FLOAT32 || b->ndim != 1 ||
        b->shape[0] != N)
        return ct__failed(CT_ERR_ARG, "%s: malformed packed weight (make it with ct_q_linear_prepack)", op);
    if (dyn) {
        if (x->dtype != CT_FLOAT32)
            return ct__failed(CT_ERR_DTYPE, "%s: the input must be float32 (dynamic quantization), got %s", op, CT__DTNAME(x->dtype));
    } else {
        if (x->dtype != CT_QUINT8 || !x->qparams)
            return ct__failed(CT_ERR_DTYPE, "%s: the input must be a quint8 tensor, got %s", op, CT__DTNAME(x->dtype));
        if (x->qparams->nchannels)
            return ct__failed(CT_ERR_ARG, "%s: the input must be quantized per tensor, got qscheme %s", op,
                              ct_qscheme_name(x->qparams->qscheme));
        if (ct__q_check_params(op, c->a->s[0], c->a->i[1], CT_QUINT8, -1)) return -1;
    }
    if (x->ndim < 1 || x->shape[x->ndim - 1] != K)
        return ct__failed(CT_ERR_SHAPE, "%s: the input's last dimension must be in_features = %lld, got shape %s", op, (long long)K,
                          CT__SHAPE(x));
    int64_t shape[CT_MAX_DIMS];
    for (int d = 0; d + 1 < x->ndim; d++) shape[d] = x->shape[d];
    shape[x->ndim - 1] = N;
    ct__out_new(c, dyn ? CT_FLOAT32 : CT_QUINT8, x->ndim, shape);
    return 0;
}
/* The packed weight as the op's inputs see it (no references taken). */
static void ct__qg_view(ct_q_linear_packed *v, ct__call *c) {
    memset(v, 0, sizeof *v);
    v->packed = c->in[1];
    v->col_sums = c->in[2];
    v->N = c->in[2]->shape[0];
    v->K = c->a->i[0];
    v->K4 = (v->K + 3) / 4;
    v->np = (v->N + CT__QG_NP - 1) / CT__QG_NP;
}
/* A quantized tensor's codes, contiguous: x itself when it is, else a uint8 copy
   gathered through its strides (ct__copy_into does not take quantized dtypes). */
static ct_tensor *ct__qg_codes(const ct_tensor *x) {
    if (ct__is_contig(x)) return ct__incref((ct_tensor *)x);
    ct_tensor *y = ct__alloc(CT_UINT8, x->ndim, x->shape, NULL, x->device);
    if (!y) return NULL;
    const uint8_t *src = (const uint8_t *)ct__ptr(x);
    uint8_t *dst = (uint8_t *)ct__ptr(y);
    int64_t idx[CT_MAX_DIMS] = {0}, n = ct_numel(x);
    for (int64_t e = 0; e < n; e++) {
        int64_t off = 0;
        for (int d = 0; d < x->ndim; d++) off += idx[d] * x->strides[d];
        dst[e] = src[off];
        for (int d = x->ndim - 1; d >= 0; d--) {
            if (++idx[d] < x->shape[d]) break;
            idx[d] = 0;
        }
    }
    return y;
}
static int ct__qg_k_linear(ct__call *c) {
    const char *op = ct__opdef_get(c->op)->name;
    int dyn = c->op == CT__QOP(Q_LINEAR_DYNAMIC);
    ct_q_linear_packed w;
    ct__qg_view(&w, c);
    ct_tensor *y = c->out[0];
    ct_tensor *x = dyn ? ct__contig_ref(c->in[0]) : ct__qg_codes(c->in[0]), *zpt = c->in[4];
    int64_t M = 1;   /* the rows: every dimension of x but the last */
    for (int d = 0; d + 1 < c->in[0]->ndim; d++) M *= c->in[0]->shape[d];
    uint8_t *abuf = NULL;
    int32_t *rowsum = NULL;
    int nsc = (int)c->in[3]->shape[0], any_wzp = 0;
    const int32_t *wzp = (const int32_t *)ct__ptr(zpt);
    for (int i = 0; i < nsc; i++) any_wzp |= wzp[i] != 0;
    ct__qg_job j;
    memset(&j, 0, sizeof j);
    if (!x) return -1;
    if (dyn) {
        /* quantize x per call (PyTorch's fbgemm linear_dynamic: its min and max, ChooseQuantizationParams to quint8) */
        const float *xf = (const float *)ct__ptr(x);
        int64_t n = ct_numel(x);
        float mn, mx;
        ct__qg_minmax(xf, n, &mn, &mx);
        double sc;
        int64_t zp;
        if (ct_q_choose_qparams(mn, mx, 0, 255, 0, (c->a->flags & 1) != 0, &sc, &zp)) {
            ct__decref(x);
            return ct__failed(CT_ERR_ARG, "%s: cannot quantize the input (%s)", op, ct_last_error());
        }
        abuf = (uint8_t *)CT_MALLOC((size_t)(n ? n : 1));
        if (!abuf) {
            ct__decref(x);
            return ct__failed(CT_ERR_MEMORY, "%s: out of memory", op);
        }
        float inv = 1.0f / (float)sc;
        for (int64_t i = 0; i < n; i++) abuf[i] = ct__qg_requant(xf[i], inv, (float)zp, 0.f);   /* = ct__q_round */
        j.a = abuf;
        j.a_scale = (float)sc;
        j.a_zp = (int32_t)zp;
        j.out = CT__QG_OUT_F32;
    } else {
        j.a = (const uint8_t *)ct__ptr(x);
        j.a_scale = (float)c->in[0]->qparams->scale;
        j.a_zp = (int32_t)c->in[0]->qparams->zero_point;
        j.out = CT__QG_OUT_U8;
        j.inv_out_scale = 1.0f / (float)c->a->s[0];
        j.out_zp = (int32_t)c->a->i[1];
        j.qlo = c->op == CT__QOP(Q_LINEAR_RELU) ? j.out_zp : 0;
    }
    if (any_wzp && M > 0) {
        rowsum = (int32_t *)CT_MALLOC((size_t)M * sizeof(int32_t));
        if (!rowsum) {
            CT_FREE(abuf);
            ct__decref(x);
            return ct__failed(CT_ERR_MEMORY, "%s: out of memory", op);
        }
        for (int64_t m = 0; m < M; m++) {
            int32_t s = 0;
            for (int64_t k = 0; k < w.K; k++) s += j.a[m * w.K + k];
            rowsum[m] = s;
        }
    }
    j.lda = w.K;
    j.M = M;
    j.c = ct__ptr(y);
    j.ldc = w.N;
    j.wscale = (const float *)ct__ptr(c->in[3]);
    j.wzp = wzp;
    j.per_channel = nsc > 1;
    j.rowsum = rowsum;
    j.bias = (const float *)ct__ptr(c->in[5]);
    ct__qg_gemm(&j, &w);
    CT_FREE(abuf);
    CT_FREE(rowsum);
    ct__decref(x);
    if (!dyn) {
        ct_qparams *qp = ct_qparams_per_tensor(c->a->s[0], c->a->i[1], CT_PER_TENSOR_AFFINE);
        if (!qp) return -1;
        ct_status st = ct_set_qparams(y, qp);
        ct_qparams_release(qp);
        return st == CT_OK ? 0 : -1;
    }
    return 0;
}
static void ct__q_gemm_backends(void) {
    CT__Q_QBACKEND(Q_LINEAR);
    CT__Q_QBACKEND(Q_LINEAR_RELU);
    CT__Q_QBACKEND(Q_LINEAR_DYNAMIC);   /* its meta refuses a quantized input with a clear message */
}
static ct_tensor *ct__qg_call(int op, const char *name, const ct_tensor *x, const ct_q_linear_packed *w, const ct__attrs *a) {
    if (!x || !w) {
        ct__null_arg(name, x ? 1 : 0);
        return NULL;
    }
    ct_tensor *in[6] = {(ct_tensor *)x, w->packed, w->col_sums, w->scales, w->zero_points, w->bias0};
    return ct__q_call(op, 6, in, a);
}
static ct_tensor *ct__qg_linear(int op, const char *name, const ct_tensor *x, const ct_q_linear_packed *w, double s, int64_t zp) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = w ? w->K : 0;
    a.s[0] = s;
    a.i[1] = zp;
    return ct__qg_call(op, name, x, w, &a);
}
CTENSOR_API ct_tensor *ct_q_linear(const ct_tensor *x, const ct_q_linear_packed *w, double output_scale, int64_t output_zero_point) {
    return ct__qg_linear(CT__QOP(Q_LINEAR), "quantized_linear", x, w, output_scale, output_zero_point);
}
CTENSOR_API ct_tensor *ct_q_linear_relu(const ct_tensor *x, const ct_q_linear_packed *w, double output_scale,
                                        int64_t output_zero_point) {
    return ct__qg_linear(CT__QOP(Q_LINEAR_RELU), "quantized_linear_relu", x, w, output_scale, output_zero_point);
}
CTENSOR_API ct_tensor *ct_q_linear_dynamic(const ct_tensor *x, const ct_q_linear_packed *w, int reduce_range) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = w ? w->K : 0;
    a.flags = reduce_range ? 1 : 0;
    return ct__qg_call(CT__QOP(Q_LINEAR_DYNAMIC), "quantized_linear_dynamic", x, w, &a);
}

/* ---- torch.ao.nn.quantized.dynamic.Linear ---- */
typedef struct ct__qdl_impl {
    int64_t in, out;
    int per_channel, reduce_range;
    ct_q_linear_packed *w;
    const void *src[4];                  /* the buffers' data and versions when w was packed */
    uint32_t ver[4];
    int lock;
} ct__qdl_impl;
/* The symmetric qint8 parameters of PyTorch's MinMaxObserver / PerChannelMinMaxObserver
   (qscheme per_tensor_symmetric / per_channel_symmetric): scale = max(|min|, |max|)
   / 127.5 in float32, at least float32's eps; zero point 0. */
static float ct__qdl_sym_scale(const float *w, int64_t n) {
    float mn = 0.f, mx = 0.f;
    for (int64_t i = 0; i < n; i++) {
        mn = w[i] < mn ? w[i] : mn;
        mx = w[i] > mx ? w[i] : mx;
    }
    float m = -mn > mx ? -mn : mx;
    float s = m / 127.5f;
    return s > FLT_EPSILON ? s : FLT_EPSILON;
}
/* (Re)packs the module's weight from its buffers; 0 or -1. */
static int ct__qdl_pack(ct_module *m) {
    ct__qdl_impl *im = (ct__qdl_impl *)m->impl;
    ct_tensor *codes = m->buffers[0].tensor, *sc = m->buffers[1].tensor, *zp = m->buffers[2].tensor, *b = m->buffers[3].tensor;
    int ok = 0, s = ct_scope_begin();
    {
        ct_tensor *q = im->per_channel ? ct_make_per_channel_quantized(codes, sc, zp, 0)
                                       : ct_make_per_tensor_quantized(codes, ct_item(sc), ct_item_int(zp));
        ct_q_linear_packed *w = q ? ct_q_linear_prepack(q, b) : NULL;
        if (w) {
            ct_q_linear_packed_free(im->w);
            im->w = w;
            for (int i = 0; i < 4; i++) {
                ct_tensor *t = m->buffers[i].tensor;
                im->src[i] = t ? (const void *)t->storage : NULL;
                im->ver[i] = t ? ct_version(t) : 0;
            }
            ok = 1;
        }
    }
    ct_scope_end(s);
    return ok ? 0 : -1;
}
static int ct__qdl_stale(const ct_module *m) {
    const ct__qdl_impl *im = (const ct__qdl_impl *)m->impl;
    for (int i = 0; i < 4; i++) {
        ct_tensor *t = m->buffers[i].tensor;
        if ((t ? (const void *)t->storage : NULL) != im->src[i] || (t && ct_version(t) != im->ver[i])) return 1;
    }
    return 0;
}
static ct_tensor *ct__qdl_forward(ct_module *m, int nin, ct_tensor *const *in) {
    if (nin != 1) return ct__fail(CT_ERR_ARG, "DynamicQuantizedLinear: forward takes 1 input (got %d)", nin);
    ct__qdl_impl *im = (ct__qdl_impl *)m->impl;
    if (ct__qdl_stale(m)) {   /* new values loaded into the buffers: pack them once */
        ct__spin_lock(&im->lock);
        int bad = ct__qdl_stale(m) && ct__qdl_pack(m);
        ct__spin_unlock(&im->lock);
        if (bad) return NULL;
    }
    return ct_q_linear_dynamic(in[0], im->w, im->reduce_range);
}
static int ct__qdl_repr(const ct_module *m, char *buf, size_t cap) {
    const ct__qdl_impl *im = (const ct__qdl_impl *)m->impl;
    return snprintf(buf, cap, "in_features=%lld, out_features=%lld, dtype=torch.qint8, qscheme=%s", (long long)im->in,
                    (long long)im->out, im->per_channel ? "torch.per_channel_affine" : "torch.per_tensor_affine");
}
static void ct__qdl_free(ct_module *m) {
    ct__qdl_impl *im = (ct__qdl_impl *)m->impl;
    if (im) ct_q_linear_packed_free(im->w);
    CT_FREE(im);
}
static const ct_module_type ct__qdl_type = {"DynamicQuantizedLinear", ct__qdl_forward, ct__qdl_free, ct__qdl_repr};
CTENSOR_API ct_module *ct_nnq_dynamic_linear(const ct_module *linear, int per_channel, int reduce_range) {
    const char *op = "DynamicQuantizedLinear.from_float";
    if (!linear) return (ct_module *)ct__fail(CT_ERR_ARG, "%s: the float module is NULL", op);
    if (linear->type != &ct__linear_type)
        return (ct_module *)ct__fail(CT_ERR_ARG, "%s: nnqd.Linear.from_float only works for nn.Linear (got %s)", op, linear->type->name);
    ct_tensor *wf = linear->params[0].tensor, *bf = linear->params[1].tensor;
    if (wf->dtype != CT_FLOAT32 || (bf && bf->dtype != CT_FLOAT32) || wf->device.type != CT_CPU)
        return (ct_module *)ct__fail(CT_ERR_DTYPE, "%s: the float module must hold float32 CPU tensors (weight is %s)", op,
                                     CT__DTNAME(wf->dtype));
    const ct__linear_impl *li = (const ct__linear_impl *)linear->impl;
    ct__qdl_impl *im = CT__NEW_ZEROED(ct__qdl_impl);
    ct_module *m = im ? ct_module_new(&ct__qdl_type, im) : NULL;
    if (!m) {
        CT_FREE(im);
        return (ct_module *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", op);
    }
    im->in = li->in;
    im->out = li->out;
    im->per_channel = per_channel != 0;
    im->reduce_range = reduce_range != 0;
    int ok = 0, s = ct_scope_begin();
    {
        int64_t N = li->out, K = li->in, nsc = per_channel ? N : 1;
        ct_tensor *w = ct_contiguous(ct_detach(wf));
        ct_tensor *sc = ct_empty_n(CT_FLOAT64, 1, &nsc), *zp = ct_zeros_n(CT_INT64, 1, &nsc);
        ct_tensor *codes = NULL;
        if (w && sc && zp) {
            const float *p = (const float *)ct__ptr(w);
            double *scp = (double *)ct__ptr(sc);
            if (per_channel)
                for (int64_t n = 0; n < N; n++) scp[n] = ct__qdl_sym_scale(p + n * K, K);
            else scp[0] = ct__qdl_sym_scale(p, N * K);
            ct_tensor *q = per_channel ? ct_quantize_per_channel(w, sc, zp, 0, CT_QINT8) : ct_quantize_per_tensor(w, scp[0], 0, CT_QINT8);
            codes = q ? ct_int_repr(q) : NULL;
        }
        ct_tensor *b = bf ? ct_contiguous(ct_detach(bf)) : NULL;
        ok = codes && (!bf || b) && !ct_module_register_buffer(m, "weight", codes, 1) &&
             !ct_module_register_buffer(m, "weight_scale", sc, 1) && !ct_module_register_buffer(m, "weight_zero_point", zp, 1) &&
             !ct_module_register_buffer(m, "bias", b, 1) && !ct__qdl_pack(m);
    }
    ct_scope_end(s);
    if (!ok) {
        ct_module_free(m);
        return NULL;
    }
    return m;
}
CTENSOR_API const ct_q_linear_packed *ct_nnq_dynamic_linear_packed(ct_module *m) {
    if (!m || m->type != &ct__qdl_type)
        return (const ct_q_linear_packed *)ct__fail(CT_ERR_ARG, "nnq_dynamic_linear_packed: not a DynamicQuantizedLinear module");
    ct__qdl_impl *im = (ct__qdl_impl *)m->impl;
    if (ct__qdl_stale(m)) {
        ct__spin_lock(&im->lock);
        int bad = ct__qdl_stale(m) && ct__qdl_pack(m);
        ct__spin_unlock(&im->lock);
        if (bad) return NULL;
    }
    return im->w;
}


/* ---- torch.ao.nn.quantized.dynamic.LSTM ---- */
typedef struct ct__qlstm_impl {
    int64_t in, hid, layers;
    int dirs, batch_first, reduce_range;
    ct_q_linear_packed **w;              /* [layers * dirs * 2]: ih, hh of each (layer, direction) */
} ct__qlstm_impl;
static void ct__qlstm_free(ct_module *m) {
    ct__qlstm_impl *im = (ct__qlstm_impl *)m->impl;
    if (im && im->w)
        for (int64_t i = 0; i < im->layers * im->dirs * 2; i++) ct_q_linear_packed_free(im->w[i]);
    if (im) CT_FREE(im->w);
    CT_FREE(im);
}
static int ct__qlstm_repr(const ct_module *m, char *buf, size_t cap) {
    const ct__qlstm_impl *im = (const ct__qlstm_impl *)m->impl;
    return snprintf(buf, cap, "%lld, %lld, num_layers=%lld%s%s, dtype=torch.qint8", (long long)im->in, (long long)im->hid,
                    (long long)im->layers, im->batch_first ? ", batch_first=True" : "", im->dirs == 2 ? ", bidirectional=True" : "");
}
static ct_tensor *ct__qlstm_forward(ct_module *m, int nin, ct_tensor *const *in) {
    if (nin < 1 || nin > 3) return ct__fail(CT_ERR_ARG, "DynamicQuantizedLSTM: forward takes 1 to 3 inputs (got %d)", nin);
    return ct_nnq_lstm_forward(m, in[0], nin > 1 ? in[1] : NULL, nin > 2 ? in[2] : NULL, NULL, NULL);
}
static const ct_module_type ct__qlstm_type = {"DynamicQuantizedLSTM", ct__qlstm_forward, ct__qlstm_free, ct__qlstm_repr};
CT__INLINE float ct__qlstm_sigmoid(float v) { return 1.0f / (1.0f + expf(-v)); }
CTENSOR_API ct_tensor *ct_nnq_lstm_forward(ct_module *m, const ct_tensor *x, const ct_tensor *h0, const ct_tensor *c0,
                                           ct_tensor **h_n, ct_tensor **c_n) {
    const char *op = "DynamicQuantizedLSTM";
    if (!m || m->type != &ct__qlstm_type) return ct__fail(CT_ERR_ARG, "%s: not a DynamicQuantizedLSTM module", op);
    if (!x) { ct__null_arg(op, 0); return NULL; }
    const ct__qlstm_impl *im = (const ct__qlstm_impl *)m->impl;
    int64_t H = im->hid, D = im->dirs, L = im->layers;
    if (x->dtype != CT_FLOAT32 || (x->ndim != 2 && x->ndim != 3) || x->shape[x->ndim - 1] != im->in)
        return ct__fail(CT_ERR_SHAPE, "%s: input must be float32 [T, B, %lld] or [T, %lld], got %s %s", op, (long long)im->in,
                        (long long)im->in, CT__DTNAME(x->dtype), CT__SHAPE(x));
    int unbatched = x->ndim == 2;
    ct_tensor *xs = unbatched ? ct_unsqueeze(x, 1) : im->batch_first ? ct_transpose(x, 0, 1) : (ct_tensor *)x;
    int64_t T = xs ? xs->shape[0] : 0, B = xs ? xs->shape[1] : 0;
    int64_t hsh[3] = {L * D, B, H};
    const ct_tensor *hc[2] = {h0, c0};
    for (int k = 0; k < 2; k++)
        if (hc[k] && (hc[k]->dtype != CT_FLOAT32 || hc[k]->ndim != (unbatched ? 2 : 3) || hc[k]->shape[0] != L * D ||
                      hc[k]->shape[hc[k]->ndim - 1] != H || (!unbatched && hc[k]->shape[1] != B)))
            return ct__fail(CT_ERR_SHAPE, "%s: Expected hidden[%d] size (%lld, %lld, %lld), got %s", op, k, (long long)(L * D),
                            (long long)B, (long long)H, CT__SHAPE(hc[k]));
    ct_tensor *hn = ct_empty_n(CT_FLOAT32, 3, hsh), *cn = ct_empty_n(CT_FLOAT32, 3, hsh);
    ct_tensor *h0c = h0 ? ct_contiguous(h0) : ct_zeros_n(CT_FLOAT32, 3, hsh), *c0c = c0 ? ct_contiguous(c0) : ct_zeros_n(CT_FLOAT32, 3, hsh);
    ct_tensor *layer_in = xs ? ct_contiguous(xs) : NULL, *out = NULL;
    if (!hn || !cn || !h0c || !c0c || !layer_in) return NULL;
    for (int64_t l = 0; l < L && layer_in; l++) {
        int64_t F = layer_in->shape[2], osh[3] = {T, B, D * H};
        out = ct_empty_n(CT_FLOAT32, 3, osh);
        if (!out) return NULL;
        for (int64_t d = 0; d < D; d++) {
            int64_t ld = l * D + d, hsh2[2] = {B, H};
            int ok = 1, s = ct_scope_begin();
            {
                /* the input projection of the whole sequence: [T B, 4H] */
                int64_t fsh[2] = {T * B, F};
                ct_tensor *gi = ct_q_linear_dynamic(ct_reshape_n(layer_in, 2, fsh), im->w[2 * ld], im->reduce_range);
                ct_tensor *h = ct_empty_n(CT_FLOAT32, 2, hsh2);
                ok = gi && h;
                float *hp = ok ? (float *)ct__ptr(h) : NULL, *cp = (float *)ct__ptr(cn) + ld * B * H;
                if (ok) {
                    memcpy(hp, (const float *)ct__ptr(h0c) + ld * B * H, (size_t)(B * H) * sizeof(float));
                    memcpy(cp, (const float *)ct__ptr(c0c) + ld * B * H, (size_t)(B * H) * sizeof(float));
                }
                for (int64_t step = 0; ok && step < T; step++) {
                    int64_t t = d ? T - 1 - step : step;
                    int s2 = ct_scope_begin();
                    ct_tensor *gh = ct_q_linear_dynamic(h, im->w[2 * ld + 1], im->reduce_range);
                    if (!gh) ok = 0;
                    else {
                        const float *a = (const float *)ct__ptr(gi) + t * B * 4 * H, *g2 = (const float *)ct__ptr(gh);
                        float *o = (float *)ct__ptr(out) + t * B * D * H + d * H;
                        for (int64_t b = 0; b < B; b++)
                            for (int64_t q = 0; q < H; q++) {
                                const float *ab = a + b * 4 * H, *gb = g2 + b * 4 * H;
                                float ig = ct__qlstm_sigmoid(ab[q] + gb[q]), fg = ct__qlstm_sigmoid(ab[H + q] + gb[H + q]);
                                float gg = tanhf(ab[2 * H + q] + gb[2 * H + q]), og = ct__qlstm_sigmoid(ab[3 * H + q] + gb[3 * H + q]);
                                float cv = fg * cp[b * H + q] + ig * gg;
                                cp[b * H + q] = cv;
                                hp[b * H + q] = og * tanhf(cv);
                                o[b * D * H + q] = hp[b * H + q];
                            }
                    }
                    ct_scope_end(s2);
                }
                if (ok) memcpy((float *)ct__ptr(hn) + ld * B * H, hp, (size_t)(B * H) * sizeof(float));
            }
            ct_scope_end(s);
            if (!ok) return NULL;
        }
        layer_in = out;
    }
    ct_tensor *y = unbatched ? ct_squeeze_dim(out, 1) : im->batch_first ? ct_contiguous(ct_transpose(out, 0, 1)) : out;
    if (h_n) *h_n = unbatched ? ct_squeeze_dim(hn, 1) : hn;
    if (c_n) *c_n = unbatched ? ct_squeeze_dim(cn, 1) : cn;
    return y;
}
CTENSOR_API ct_module *ct_nnq_dynamic_lstm(const ct_module *lstm, int reduce_range) {
    const char *op = "DynamicQuantizedLSTM.from_float";
    if (!lstm) return (ct_module *)ct__fail(CT_ERR_ARG, "%s: the float module is NULL", op);
    if (lstm->type != &ct__lstm_type)
        return (ct_module *)ct__fail(CT_ERR_ARG, "%s: nnqd.LSTM.from_float only works for nn.LSTM (got %s)", op, lstm->type->name);
    const ct__rnn_impl *ri = (const ct__rnn_impl *)lstm->impl;
    ct__qlstm_impl *im = CT__NEW_ZEROED(ct__qlstm_impl);
    ct_module *m = im ? ct_module_new(&ct__qlstm_type, im) : NULL;
    int64_t D = ri->bidir ? 2 : 1, n = ri->layers * D * 2;
    if (im) im->w = (ct_q_linear_packed **)ct__calloc1((size_t)n * sizeof(ct_q_linear_packed *));
    if (!m || !im->w) {
        if (m) ct_module_free(m);
        else CT_FREE(im);
        return (ct_module *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", op);
    }
    im->in = ri->in;
    im->hid = ri->hid;
    im->layers = ri->layers;
    im->dirs = (int)D;
    im->batch_first = ri->batch_first;
    im->reduce_range = reduce_range != 0;
    int ok = 1, s = ct_scope_begin();
    for (int64_t i = 0; ok && i < n; i++) {
        int64_t l = i / (2 * D), d = (i / 2) % D;
        const char *kind = i % 2 ? "hh" : "ih";
        char wn[64], bn[64];
        snprintf(wn, sizeof wn, "weight_%s_l%lld%s", kind, (long long)l, d ? "_reverse" : "");
        snprintf(bn, sizeof bn, "bias_%s_l%lld%s", kind, (long long)l, d ? "_reverse" : "");
        ct_tensor *wf = ct_module_get(lstm, wn), *bf = ri->bias ? ct_module_get(lstm, bn) : NULL;
        ct_tensor *w = wf ? ct_contiguous(ct_detach(wf)) : NULL, *b = bf ? ct_contiguous(ct_detach(bf)) : NULL;
        ok = w && (!ri->bias || b) && w->dtype == CT_FLOAT32;
        if (ok) {
            float sc = ct__qdl_sym_scale((const float *)ct__ptr(w), ct_numel(w));
            ct_tensor *q = ct_quantize_per_tensor(w, sc, 0, CT_QINT8);
            im->w[i] = q ? ct_q_linear_prepack(q, b) : NULL;
            ok = im->w[i] != NULL;
        } else if (w && w->dtype != CT_FLOAT32)
            ct_set_error(CT_ERR_DTYPE, "%s: the float module must hold float32 tensors (%s is %s)", op, wn, CT__DTNAME(w->dtype));
    }
    ct_scope_end(s);
    if (!ok) {
        ct_module_free(m);
        return NULL;
    }
    return m;
}


/* ============================================================================
   Quantized ops: conv2d, add, mul, relu, pooling, cat: implementation
   ========================================================================== */
/* SECTION-QOPS-IMPL (helper C fills this section) */
static void ct__q_qops_backends(void) {}


#endif /* CTENSOR_QUANT_IMPLEMENTATION_DONE */
#endif /* CTENSOR_QUANT_IMPLEMENTATION */
