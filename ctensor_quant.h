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
       Module fusion
       Observers, fake quantization, qconfigs
       int8 GEMM and quantized linear
       Quantized ops: conv2d, add, mul, relu, pooling, cat
     Implementation:
       The op table of this header
       Quantized tensors: kernels
       Module fusion
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

/* Signal-to-quantization-noise ratio in dB, 20 log10(||x|| / ||x - y||) (PyTorch's
   numeric suite, torch.ao.ns.fx.utils.compute_sqnr): x the reference, y its
   approximation, either may be quantized (compared dequantized); same shapes.
   INFINITY when they are equal; NAN with the error set on bad input. */
CTENSOR_API double ct_q_sqnr(const ct_tensor *x, const ct_tensor *y);

/* ---- quantized tensors in safetensors ----
   safetensors has no quantized dtype. ctensor stores a quantized tensor under its
   own name as its integer codes (I8 for qint8, U8 for quint8, I32 for qint32), so
   every safetensors reader can open the file and the keys stay the state dict's,
   and writes its parameters as a metadata entry "qparams:<name>" with the value
     dtype=qint8;qscheme=per_tensor_affine;scale=0.1;zero_point=3
     dtype=quint8;qscheme=per_channel_affine;axis=0;scales=0.1,0.2;zero_points=3,4
   (doubles written so that they read back exactly). Other tensors are stored as
   ct_save_safetensors_n stores them. */
CTENSOR_API ct_status ct_q_save_safetensors_mem(int n, const char *const *names, const ct_tensor *const *tensors, void **data,
                                                size_t *len);   /* free *data with ct_free */
#ifndef CTENSOR_NO_STDIO
CTENSOR_API ct_status ct_q_save_safetensors_n(const char *path, int n, const char *const *names, const ct_tensor *const *tensors);
#endif
/* Tensor `name` of a loaded file: a quantized tensor (a copy, with its parameters)
   when the file has its "qparams:" entry, else as ct_safetensors_get gives it. A
   malformed entry, or parameters that do not fit the codes, is CT_ERR_FORMAT. */
CTENSOR_API ct_tensor *ct_q_safetensors_get(ct_safetensors *st, const char *name);

/* ============================================================================
   Module fusion (torch.ao.quantization.fuse_modules)
   ========================================================================== */
/* Fuses one group of child modules of `model`, named by dotted paths, in place:
     ct_fuse_modules(model, "features.0", "features.1", "features.2");
   Patterns, as PyTorch's default fuser methods (modules in evaluation mode where a
   batch norm is folded):
     Conv1d/Conv2d + BatchNorm1d/2d          -> the convolution with the batch norm
                                                 folded into its weight and bias
     Conv1d/Conv2d + BatchNorm + ReLU        -> ConvReLU1d/ConvReLU2d(folded conv, relu)
     Conv1d/Conv2d + ReLU                    -> ConvReLU1d/ConvReLU2d(conv, relu)
     Linear + BatchNorm1d                    -> the folded Linear
     Linear + ReLU                           -> LinearReLU(linear, relu)
     BatchNorm2d + ReLU                      -> BNReLU2d(bn, relu)
   The first module's place gets the fused module; the others become Identity, so
   names and state-dict keys follow PyTorch's ("conv1.0.weight" inside a
   ConvReLU2d). Folding uses PyTorch's formulas and operation order (float32
   results equal PyTorch's): w' = w * (gamma * rsqrt(var + eps)) per output
   channel, b' = (b - mean) * rsqrt(var + eps) * gamma + beta (Linear: (b - mean) *
   (gamma * rsqrt(var + eps)) + beta). A batch norm in training mode is an error
   ("Fusion only for eval!"): training-time fusion belongs to QAT. On any error the
   model is left unchanged. */
CTENSOR_API ct_status ct_fuse_modules_n(ct_module *model, int n, const char *const *names);
typedef struct ct__q_names { const char *v[8]; } ct__q_names;
#ifdef __cplusplus
#  define ct_fuse_modules(model, ...) ct_fuse_modules_n(model, CT__NARGS32(__VA_ARGS__), ct__q_names{{__VA_ARGS__}}.v)
#else
#  define ct_fuse_modules(model, ...) ct_fuse_modules_n(model, CT__NARGS32(__VA_ARGS__), (ct__q_names){{__VA_ARGS__}}.v)
#endif

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
#include <errno.h>
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

/* PyTorch's quantize_val: zero_point + nearbyint(x * (float)(1 / scale)), the sum in
   float32 as PyTorch's (an int64 plus a float is a float), cast to int64, clamped.
   NaN, infinities and sums beyond the int64 range give qmin on every target, as
   PyTorch's cast does on x86 (the conversion yields INT64_MIN there). */
CT__INLINE int64_t ct__q_round(float x, float inv_scale, int64_t zp, int64_t qmin, int64_t qmax) {
    float t = (float)zp + nearbyintf(x * inv_scale);
    if (!(t > -9.2e18f && t < 9.2e18f)) return qmin;
    int64_t v = (int64_t)t;
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
/* per tensor, 8-bit codes: ct__q_round's result, 16 lanes at a time where GCC/clang
   vector extensions exist (ctensor.h's CT__VEC). nearbyint through the 1.5 * 2^23
   trick (exact ties-to-even for |p| <= 2^22; larger products clamp to qmin/qmax
   anyway); a NaN, or a sum beyond the int64 range, fails the range test and gives
   qmin, as ct__q_round. */
#ifdef CT__VEC
#define CT__Q_QUANT8_VEC(T)                                                                       \
    for (; e + 16 <= hi; e += 16) {                                                               \
        ct__v16f p, pc, t;                                                                        \
        CT__VLD(p, x + e);                                                                        \
        p = p * inv;                                                                              \
        ct__v16f sum = p + zp;                                                                    \
        ct__v16i ok = (sum > -9.2e18f) & (sum < 9.2e18f);                                         \
        pc = CT__VSELF(p < -lim, p * 0.0f - lim, p);                                              \
        pc = CT__VSELF(pc > lim, pc * 0.0f + lim, pc);                                            \
        t = ((pc + magic) - magic) + zp;                                                          \
        ct__v16i v = __builtin_convertvector(t, ct__v16i);                                        \
        v = (v & ~(v < qlo)) | (qlo & (v < qlo));                                                 \
        v = (v & ~(v > qhi)) | (qhi & (v > qhi));                                                 \
        v = (v & ok) | (qlo & ~ok);                                                               \
        for (int l = 0; l < 16; l++) q[e + l] = (T)v[l];                                          \
    }
#else
#define CT__Q_QUANT8_VEC(T)
#endif
#define CT__Q_QUANT8(T)                                                                           \
    do {                                                                                          \
        T *CT_RESTRICT q = (T *)j->q;                                                              \
        const float *CT_RESTRICT x = j->x;                                                        \
        const float inv = j->inv1, zp = (float)j->zp1;                                            \
        const int32_t qlo = (int32_t)j->qmin, qhi = (int32_t)j->qmax;                             \
        const float magic = 12582912.0f, lim = 4194304.0f;                                        \
        int64_t e = lo;                                                                           \
        CT__Q_QUANT8_VEC(T)                                                                       \
        for (; e < hi; e++) {                                                                     \
            float p = x[e] * inv;                                                                 \
            float sum = zp + p;                                                                   \
            float pc = p < -lim ? -lim : p > lim ? lim : p;                                       \
            int32_t v = (int32_t)(zp + ((pc + magic) - magic));                                   \
            v = v < qlo ? qlo : v > qhi ? qhi : v;                                                 \
            q[e] = (T)(((sum > -9.2e18f) & (sum < 9.2e18f)) ? v : qlo);                           \
        }                                                                                         \
    } while (0)
static void ct__q_quant_run(void *ctx, int64_t lo, int64_t hi) {
    const ct__q_quant_job *j = (const ct__q_quant_job *)ctx;
    if (!j->inv && j->dt == CT_QUINT8) {
        CT__Q_QUANT8(uint8_t);
        return;
    }
    if (!j->inv && j->dt == CT_QINT8) {
        CT__Q_QUANT8(int8_t);
        return;
    }
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
    ct__nn_par_for(ct_numel(y), 65536, ct__q_quant_run, &j);
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
            if (qp->nchannels) {   /* PyTorch: in double with the double scales */
                int64_t ch = (e / inner) % nch;
                ((float *)j->y)[e] = (float)((double)(v - qp->zero_points[ch]) * qp->scales[ch]);
            } else   /* in float32 */
                ((float *)j->y)[e] = (float)(v - qp->zero_point) * (float)qp->scale;
        } else if (q->dtype == CT_QINT8) ((int8_t *)j->y)[e] = (int8_t)v;
        else if (q->dtype == CT_QUINT8) ((uint8_t *)j->y)[e] = (uint8_t)v;
        else ((int32_t *)j->y)[e] = (int32_t)v;
        for (int d = q->ndim - 1; d >= 0; d--) {
            if (++idx[d] < q->shape[d]) break;
            idx[d] = 0;
        }
    }
}
/* contiguous, per tensor: one multiply per element */
typedef struct {
    const void *q;
    float *y;
    ct_dtype dt;
    float zp, scale;
} ct__q_deq1_job;
#define CT__Q_DEQ1(T)                                                             \
    do {                                                                          \
        const T *CT_RESTRICT q = (const T *)j->q;                                 \
        float *CT_RESTRICT y = j->y;                                              \
        for (int64_t e = lo; e < hi; e++) y[e] = ((float)q[e] - j->zp) * j->scale; \
    } while (0)
static void ct__q_deq1_run(void *ctx, int64_t lo, int64_t hi) {
    const ct__q_deq1_job *j = (const ct__q_deq1_job *)ctx;
    if (j->dt == CT_QUINT8) CT__Q_DEQ1(uint8_t);
    else if (j->dt == CT_QINT8) CT__Q_DEQ1(int8_t);
    else
        for (int64_t e = lo; e < hi; e++) j->y[e] = (float)((int64_t)((const int32_t *)j->q)[e] - (int64_t)j->zp) * j->scale;
}
static int ct__q_k_dequantize(ct__call *c) {
    const ct_tensor *q = c->in[0];
    if (!q->qparams->nchannels && ct__is_contig(q) && q->dtype != CT_QINT32) {
        /* (code - zp) in float is exact for 8-bit codes and zero points, as PyTorch's int subtraction */
        ct__q_deq1_job d = {ct__ptr(q), (float *)ct__ptr(c->out[0]), q->dtype, (float)q->qparams->zero_point, (float)q->qparams->scale};
        ct__nn_par_for(ct_numel(q), 65536, ct__q_deq1_run, &d);
        return 0;
    }
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

CTENSOR_API double ct_q_sqnr(const ct_tensor *x, const ct_tensor *y) {
    if (!x || !y) {
        ct__null_arg("q_sqnr", !x ? 0 : 1);
        return NAN;
    }
    if (!ct_same_shape(x, y)) {
        ct_set_error(CT_ERR_SHAPE, "q_sqnr: x and y must have the same shape, got %s and %s", CT__SHAPE(x), CT__SHAPE(y));
        return NAN;
    }
    int tok = ct_scope_begin();
    const ct_tensor *xs[2] = {x, y};
    ct_tensor *f[2];
    for (int k = 0; k < 2; k++) f[k] = CT__DT_QUANT(xs[k]->dtype) ? ct_dequantize(xs[k]) : ct_detach(xs[k]);
    ct_tensor *a = f[0] ? ct_to(f[0], CT_FLOAT64) : NULL, *b = f[1] ? ct_to(f[1], CT_FLOAT64) : NULL;
    double r = NAN;
    if (a && b) {
        double ps = ct_item(ct_sqrt(ct_sum(ct_mul(a, a)))), d = ct_item(ct_sqrt(ct_sum(ct_mul(ct_sub(a, b), ct_sub(a, b)))));
        r = d == 0 ? INFINITY : 20.0 * log10(ps / d);
    }
    ct_scope_end(tok);
    return r;
}

/* ---- quantized tensors in safetensors ---- */
/* appends to a growing string; -1 when out of memory */
typedef struct { char *p; size_t n, cap; } ct__q_str;
static int ct__q_cat(ct__q_str *b, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int ct__q_cat(ct__q_str *b, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int r = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (r < 0) return -1;
        if (b->p && b->n + (size_t)r < b->cap) {
            b->n += (size_t)r;
            return 0;
        }
        size_t nc = (b->cap ? 2 * b->cap : 256) + (size_t)r;
        char *q = (char *)CT_REALLOC(b->p, nc);
        if (!q) return -1;
        b->p = q;
        b->cap = nc;
    }
}
/* the shortest %.*g that reads back to the same double */
static int ct__q_cat_double(ct__q_str *b, double v) {
    char t[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(t, sizeof t, "%.*g", prec, v);
        if (strtod(t, NULL) == v) break;
    }
    return ct__q_cat(b, "%s", t);
}
static const char *ct__q_dtname(ct_dtype dt) { return dt == CT_QINT8 ? "qint8" : dt == CT_QUINT8 ? "quint8" : "qint32"; }
/* the metadata value of quantized tensor q */
static char *ct__q_meta_value(const ct_tensor *q) {
    const ct_qparams *p = q->qparams;
    ct__q_str b = {NULL, 0, 0};
    int bad = ct__q_cat(&b, "dtype=%s;qscheme=%s", ct__q_dtname(q->dtype), ct_qscheme_name(p->qscheme));
    if (!p->nchannels) {
        bad |= ct__q_cat(&b, ";scale=") || ct__q_cat_double(&b, p->scale) || ct__q_cat(&b, ";zero_point=%lld", (long long)p->zero_point);
    } else {
        bad |= ct__q_cat(&b, ";axis=%lld;scales=", (long long)p->axis);
        for (int64_t k = 0; k < p->nchannels && !bad; k++) bad |= (k && ct__q_cat(&b, ",")) || ct__q_cat_double(&b, p->scales[k]);
        bad |= ct__q_cat(&b, ";zero_points=");
        for (int64_t k = 0; k < p->nchannels && !bad; k++) bad |= ct__q_cat(&b, k ? ",%lld" : "%lld", (long long)p->zero_points[k]);
    }
    if (bad) {
        CT_FREE(b.p);
        return NULL;
    }
    return b.p;
}
CTENSOR_API ct_status ct_q_save_safetensors_mem(int n, const char *const *names, const ct_tensor *const *tensors, void **data,
                                                size_t *len) {
    if (n < 0 || (n && (!names || !tensors)) || !data || !len) {
        ct_set_error(CT_ERR_ARG, "q_save_safetensors: bad arguments (n %d, names, tensors, data and len must be given)", n);
        return CT_ERR_ARG;
    }
    int tok = ct_scope_begin(), nq = 0;
    const ct_tensor **ts = (const ct_tensor **)CT_MALLOC(sizeof(ct_tensor *) * (size_t)(n ? n : 1));
    char **keys = (char **)CT_MALLOC(sizeof(char *) * (size_t)(n ? n : 1)), **vals = (char **)CT_MALLOC(sizeof(char *) * (size_t)(n ? n : 1));
    ct_status st = CT_OK;
    if (!ts || !keys || !vals) {
        ct_set_error(CT_ERR_MEMORY, "q_save_safetensors: out of memory");
        st = CT_ERR_MEMORY;
    }
    for (int i = 0; i < n && st == CT_OK; i++) {
        const ct_tensor *t = tensors[i];
        ts[i] = t;
        if (!t || !names[i]) {
            ct_set_error(CT_ERR_NULL, "q_save_safetensors: tensor %d (%s) is NULL", i, names[i] ? names[i] : "no name");
            st = CT_ERR_NULL;
        } else if (CT__DT_QUANT(t->dtype)) {
            if (!t->qparams) {
                ct_set_error(CT_ERR_STATE, "q_save_safetensors: quantized tensor '%s' has no quantization parameters", names[i]);
                st = CT_ERR_STATE;
                break;
            }
            ct_tensor *c = ct_int_repr(t);
            size_t kl = strlen(names[i]) + 9;
            keys[nq] = (char *)CT_MALLOC(kl);
            vals[nq] = ct__q_meta_value(t);
            if (!c || !keys[nq] || !vals[nq]) {
                if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_MEMORY, "q_save_safetensors: out of memory");
                st = ct_last_error_code();
                nq++;
                break;
            }
            snprintf(keys[nq], kl, "qparams:%s", names[i]);
            nq++;
            ts[i] = c;
        }
    }
    if (st == CT_OK)
        st = ct_save_safetensors_mem(n, names, ts, nq, (const char *const *)keys, (const char *const *)vals, data, len);
    for (int k = 0; k < nq; k++) {
        CT_FREE(keys[k]);
        CT_FREE(vals[k]);
    }
    CT_FREE(keys);
    CT_FREE(vals);
    CT_FREE((void *)ts);
    ct_scope_end(tok);
    return st;
}
#ifndef CTENSOR_NO_STDIO
CTENSOR_API ct_status ct_q_save_safetensors_n(const char *path, int n, const char *const *names, const ct_tensor *const *tensors) {
    if (!path) {
        ct_set_error(CT_ERR_ARG, "q_save_safetensors: path is NULL");
        return CT_ERR_ARG;
    }
    void *buf = NULL;
    size_t len = 0;
    ct_status st = ct_q_save_safetensors_mem(n, names, tensors, &buf, &len);
    if (st != CT_OK) return st;
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, len, f) != len) {
        ct_set_error(CT_ERR_IO, "q_save_safetensors: cannot write '%s'", path);
        st = CT_ERR_IO;
    }
    if (f && fclose(f) && st == CT_OK) {
        ct_set_error(CT_ERR_IO, "q_save_safetensors: cannot write '%s'", path);
        st = CT_ERR_IO;
    }
    ct_free(buf);
    return st;
}
#endif
/* "key=" at *p: advances past it; 0 when the text there is something else */
static int ct__q_key(const char **p, const char *key) {
    size_t n = strlen(key);
    if (strncmp(*p, key, n)) return 0;
    *p += n;
    return 1;
}
/* a number list up to ';' or the end: doubles (ints NULL) or int64 (dbl NULL); the count, -1 when malformed */
static int64_t ct__q_list(const char **p, double *dbl, int64_t *ints, int64_t cap) {
    int64_t k = 0;
    for (;;) {
        char *end;
        errno = 0;
        if (dbl) {
            double v = strtod(*p, &end);
            if (end == *p || k >= cap) return -1;
            dbl[k] = v;
        } else {
            long long v = strtoll(*p, &end, 10);
            if (end == *p || errno || k >= cap) return -1;
            ints[k] = v;
        }
        k++;
        *p = end;
        if (**p != ',') return k;
        (*p)++;
    }
}
CTENSOR_API ct_tensor *ct_q_safetensors_get(ct_safetensors *st, const char *name) {
    if (!st || !name) {
        ct__null_arg("q_safetensors_get", !st ? 0 : 1);
        return NULL;
    }
    size_t kl = strlen(name) + 9;
    char *key = (char *)CT_MALLOC(kl);
    if (!key) return ct__fail(CT_ERR_MEMORY, "q_safetensors_get: out of memory");
    snprintf(key, kl, "qparams:%s", name);
    const char *meta = ct_safetensors_metadata(st, key);
    CT_FREE(key);
    ct_tensor *codes = ct_safetensors_get(st, name);
    if (!codes || !meta) return codes;
    const char *p = meta;
    ct_dtype dt = CT_NUM_DTYPES;
    ct_qscheme qs = (ct_qscheme)-1;
    if (ct__q_key(&p, "dtype=")) {
        if (ct__q_key(&p, "qint8;")) dt = CT_QINT8;
        else if (ct__q_key(&p, "quint8;")) dt = CT_QUINT8;
        else if (ct__q_key(&p, "qint32;")) dt = CT_QINT32;
    }
    if (dt != CT_NUM_DTYPES && ct__q_key(&p, "qscheme="))
        for (int k = 0; k < 5; k++) {
            char w[48];
            snprintf(w, sizeof w, "%s;", ct_qscheme_name((ct_qscheme)k));
            if (ct__q_key(&p, w)) {
                qs = (ct_qscheme)k;
                break;
            }
        }
    ct_tensor *out = NULL;
    const char *why = "malformed";
    if (dt == CT_NUM_DTYPES || (int)qs < 0) why = "unknown dtype or qscheme";
    else if (ct__q_code_dtype(dt) != ct_get_dtype(codes)) why = "the codes' dtype does not match";
    else if (qs == CT_PER_TENSOR_AFFINE || qs == CT_PER_TENSOR_SYMMETRIC) {
        double sc;
        int64_t zp;
        if (ct__q_key(&p, "scale=") && ct__q_list(&p, &sc, NULL, 1) == 1 && ct__q_key(&p, ";zero_point=") &&
            ct__q_list(&p, NULL, &zp, 1) == 1 && !*p) {
            ct_qparams *qp = ct_qparams_per_tensor(sc, zp, qs);
            if (qp && !ct__q_check_params("q_safetensors_get", sc, zp, dt, -1) && (out = ct_clone(codes))) {
                out->dtype = dt;
                if (ct_set_qparams(out, qp) != CT_OK) out = NULL;
            }
            ct_qparams_release(qp);
            if (!out) why = ct_last_error();
        }
    } else {
        int64_t axis = -1, n = 0;
        if (ct__q_key(&p, "axis=") && ct__q_list(&p, NULL, &axis, 1) == 1 && axis >= 0 && axis < ct_ndim(codes) && ct__q_key(&p, ";scales=")) {
            n = ct_size(codes, (int)axis);
            double *sc = (double *)CT_MALLOC(sizeof(double) * (size_t)(n ? n : 1));
            int64_t *zp = (int64_t *)CT_MALLOC(sizeof(int64_t) * (size_t)(n ? n : 1));
            if (sc && zp && ct__q_list(&p, sc, NULL, n) == n && ct__q_key(&p, ";zero_points=") && ct__q_list(&p, NULL, zp, n) == n && !*p) {
                int bad = 0;
                for (int64_t k = 0; k < n && !bad; k++) bad = ct__q_check_params("q_safetensors_get", sc[k], zp[k], dt, k) != 0;
                ct_qparams *qp = bad ? NULL : ct_qparams_per_channel(n, sc, zp, axis, qs);
                if (qp && (out = ct_clone(codes))) {
                    out->dtype = dt;
                    if (ct_set_qparams(out, qp) != CT_OK) out = NULL;
                }
                ct_qparams_release(qp);
                if (!out) why = ct_last_error();
            }
            CT_FREE(sc);
            CT_FREE(zp);
        }
    }
    if (!out) {
        char w[200];
        snprintf(w, sizeof w, "%s", why);
        return ct__fail(CT_ERR_FORMAT, "q_safetensors_get: tensor '%s': bad quantization parameters \"%.80s\" (%s)", name, meta, w);
    }
    return out;
}

/* ============================================================================
   Module fusion
   ========================================================================== */
/* The fused containers run their children in order (PyTorch's nn.intrinsic
   modules are Sequentials). */
static ct_tensor *ct__q_fused_forward(ct_module *m, int nin, ct_tensor *const *in) {
    if (nin != 1) return ct__fail(CT_ERR_ARG, "%s: forward takes 1 input (got %d)", m->type->name, nin);
    ct_tensor *x = in[0];
    for (int i = 0; i < m->nchildren && x; i++) x = ct_forward(m->children[i].module, x);
    return x;
}
static const ct_module_type ct__q_convrelu1d_type = {"ConvReLU1d", ct__q_fused_forward, NULL, NULL};
static const ct_module_type ct__q_convrelu2d_type = {"ConvReLU2d", ct__q_fused_forward, NULL, NULL};
static const ct_module_type ct__q_linearrelu_type = {"LinearReLU", ct__q_fused_forward, NULL, NULL};
static const ct_module_type ct__q_bnrelu2d_type = {"BNReLU2d", ct__q_fused_forward, NULL, NULL};

/* The parent of a dotted child name and the child's index in it; -1 with the error set. */
static int ct__q_locate(ct_module *model, const char *name, ct_module **parent) {
    const char *dot = strrchr(name, '.');
    ct_module *p = model;
    if (dot) {
        char pre[256];
        size_t n = (size_t)(dot - name);
        if (n >= sizeof pre) return ct__failed(CT_ERR_ARG, "fuse_modules: name '%.64s...' is too long", name);
        memcpy(pre, name, n);
        pre[n] = 0;
        if (!(p = ct_module_child(model, pre))) return -1;
    }
    const char *leaf = dot ? dot + 1 : name;
    for (int i = 0; i < p->nchildren; i++)
        if (!strcmp(p->children[i].name, leaf)) {
            *parent = p;
            return i;
        }
    ct_module_child(model, name);   /* sets the error with the closest names */
    if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_ARG, "fuse_modules: no module named '%s'", name);
    return -1;
}
static int ct__q_is(const ct_module *m, const char *type) { return !strcmp(m->type->name, type); }
static int ct__q_is_bn(const ct_module *m) { return ct__q_is(m, "BatchNorm1d") || ct__q_is(m, "BatchNorm2d"); }
/* conv or linear weight and bias folded with batch norm bn (under no_grad); the
   new tensors replace the module's parameters (0 and 1: weight, bias) */
static int ct__q_fold_bn(ct_module *mod, const ct_module *bn, int linear) {
    const ct__bn_impl *bi = (const ct__bn_impl *)bn->impl;
    ct_tensor *rm = ct_module_get(bn, "running_mean"), *rv = ct_module_get(bn, "running_var");
    if (!rm || !rv)
        return ct__failed(CT_ERR_ARG, "fuse_modules: %s has no running statistics (track_running_stats=False) to fold", bn->type->name);
    ct_tensor *w = mod->params[0].tensor, *b = mod->params[1].tensor;
    if (!w) return ct__failed(CT_ERR_ARG, "fuse_modules: %s has no weight", mod->type->name);
    if (ct_size(w, 0) != bi->nf)
        return ct__failed(CT_ERR_SHAPE, "fuse_modules: %s has %lld output channels but %s has %lld features", mod->type->name,
                          (long long)ct_size(w, 0), bn->type->name, (long long)bi->nf);
    int tok = ct_scope_begin(), prev = ct_set_grad_enabled(0), rc = -1;
    ct_tensor *gamma = bn->params[0].tensor ? bn->params[0].tensor : ct_ones_like(rm);
    ct_tensor *beta = bn->params[1].tensor ? bn->params[1].tensor : ct_zeros_like(rm);
    ct_tensor *bias = b ? b : ct_zeros_like(rm);
    ct_tensor *rs = ct_rsqrt(ct_add_scalar(rv, bi->eps));
    ct_tensor *nw = NULL, *nb = NULL;
    if (linear) {
        ct_tensor *sc = ct_mul(gamma, rs);
        nw = ct_mul(w, ct_unsqueeze(sc, -1));
        nb = ct_add(ct_mul(ct_sub(bias, rm), sc), beta);
    } else {
        int64_t shape[CT_MAX_DIMS];
        shape[0] = -1;
        for (int d = 1; d < ct_ndim(w); d++) shape[d] = 1;
        nw = ct_mul(w, ct_view_n(ct_mul(gamma, rs), ct_ndim(w), shape));
        nb = ct_add(ct_mul(ct_mul(ct_sub(bias, rm), rs), gamma), beta);
    }
    if (nw && nb) {
        nw = ct_retain(ct_requires_grad(ct_contiguous(nw)));
        nb = ct_retain(ct_requires_grad(ct_contiguous(nb)));
        ct_release(mod->params[0].tensor);
        ct_release(mod->params[1].tensor);
        mod->params[0].tensor = nw;
        mod->params[1].tensor = nb;
        rc = 0;
    }
    ct_set_grad_enabled(prev);
    ct_scope_end(tok);
    return rc;
}
CTENSOR_API ct_status ct_fuse_modules_n(ct_module *model, int n, const char *const *names) {
    if (!model || !names) {
        ct__null_arg("fuse_modules", !model ? 0 : 2);
        return CT_ERR_NULL;
    }
    if (n < 2 || n > 3) {
        ct_set_error(CT_ERR_ARG, "fuse_modules: a group has 2 or 3 modules, got %d", n);
        return CT_ERR_ARG;
    }
    ct_module *par[3] = {NULL, NULL, NULL}, *m[3] = {NULL, NULL, NULL};
    int idx[3];
    for (int k = 0; k < n; k++) {
        if (!names[k]) {
            ct__null_arg("fuse_modules", 2);
            return CT_ERR_NULL;
        }
        if ((idx[k] = ct__q_locate(model, names[k], &par[k])) < 0) return ct_last_error_code();
        m[k] = par[k]->children[idx[k]].module;
        for (int j = 0; j < k; j++)
            if (m[j] == m[k]) {
                ct_set_error(CT_ERR_ARG, "fuse_modules: '%s' is named twice in the group", names[k]);
                return CT_ERR_ARG;
            }
    }
    int conv1 = ct__q_is(m[0], "Conv1d"), conv2 = ct__q_is(m[0], "Conv2d"), lin = ct__q_is(m[0], "Linear");
    int bn = ct__q_is_bn(m[1]), relu_last = ct__q_is(m[n - 1], "ReLU");
    int ok = 0;
    const ct_module_type *wrap = NULL;
    if (conv1 || conv2) {
        int bn_ok = bn && ct__q_is(m[1], conv1 ? "BatchNorm1d" : "BatchNorm2d");
        ok = (n == 2 && (bn_ok || relu_last)) || (n == 3 && bn_ok && relu_last);
        if (relu_last) wrap = conv1 ? &ct__q_convrelu1d_type : &ct__q_convrelu2d_type;
    } else if (lin) {
        ok = n == 2 && (ct__q_is(m[1], "BatchNorm1d") || relu_last);
        if (relu_last) wrap = &ct__q_linearrelu_type;
    } else if (ct__q_is(m[0], "BatchNorm2d")) {
        ok = n == 2 && relu_last;
        wrap = &ct__q_bnrelu2d_type;
    }
    if (!ok) {
        char seq[160];
        snprintf(seq, sizeof seq, "%s, %s%s%s", m[0]->type->name, m[1]->type->name, n == 3 ? ", " : "", n == 3 ? m[2]->type->name : "");
        ct_set_error(CT_ERR_ARG, "fuse_modules: cannot fuse (%s): the patterns are (Conv1d|Conv2d, BatchNorm[, ReLU]), "
                     "(Conv1d|Conv2d, ReLU), (Linear, BatchNorm1d), (Linear, ReLU), (BatchNorm2d, ReLU)", seq);
        return CT_ERR_ARG;
    }
    int folds = (conv1 || conv2 || lin) && bn;
    if (folds && (m[0]->training || m[1]->training)) {
        ct_set_error(CT_ERR_STATE, "fuse_modules: Fusion only for eval! (%s and %s must be in evaluation mode: ct_module_eval; "
                     "training-time fusion is QAT's)", names[0], names[1]);
        return CT_ERR_STATE;
    }
    /* everything that can fail first: the fold's tensors and the new modules */
    ct_module *ids[2] = {NULL, NULL}, *fused = wrap ? ct_module_new(wrap, NULL) : NULL;
    int nid = n - 1;
    for (int k = 0; k < nid; k++) ids[k] = ct_nn_identity();
    if ((wrap && !fused) || !ids[0] || (nid > 1 && !ids[1]) || (folds && ct__q_fold_bn(m[0], m[1], lin))) {
        ct_module_free(fused);
        ct_module_free(ids[0]);
        ct_module_free(ids[1]);
        return ct_last_error_code() ? ct_last_error_code() : CT_ERR_MEMORY;
    }
    if (fused) fused->training = m[0]->training;
    /* detach the group's modules from their parents; Identity in the places after the first */
    for (int k = 0; k < n; k++) par[k]->children[idx[k]].module = k ? ids[k - 1] : NULL;
    ct_module *relu = relu_last ? m[n - 1] : NULL;
    if (folds) ct_module_free(m[1]);
    if (fused) {
        if (ct_module_add_module(fused, "0", m[0]) != CT_OK || ct_module_add_module(fused, "1", relu) != CT_OK) {
            par[0]->children[idx[0]].module = m[0];   /* cannot happen short of memory; keep the model whole */
            return ct_last_error_code();
        }
        par[0]->children[idx[0]].module = fused;
    } else
        par[0]->children[idx[0]].module = m[0];
    return CT_OK;
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
static void ct__q_qops_backends(void) {}


#endif /* CTENSOR_QUANT_IMPLEMENTATION_DONE */
#endif /* CTENSOR_QUANT_IMPLEMENTATION */
