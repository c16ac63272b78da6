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
/* ---- fake quantization (torch.fake_quantize_per_tensor_affine / _per_channel_affine) ----
   y = (clamp(nearbyint(x * (1/scale)) + zero_point, quant_min, quant_max) - zero_point) * scale,
   computed as PyTorch computes it (the inverse scale and the product in float32 for a
   float32 x, ties to even), for float32 and float64 x; y has x's dtype. The gradient is
   the straight-through estimator: the incoming gradient where the rounded value was
   inside [quant_min, quant_max], zero where it was clamped. Errors: quant_min >
   quant_max, a zero point outside [quant_min, quant_max], a non-float x. */
CTENSOR_API ct_tensor *ct_fake_quantize_per_tensor_affine(const ct_tensor *x, double scale, int64_t zero_point,
                                                          int64_t quant_min, int64_t quant_max);
/* One scale (a float tensor, read as float32) and one zero point (an int32 or int64
   tensor) per index of `axis`, both 1-D of x's size along axis. */
CTENSOR_API ct_tensor *ct_fake_quantize_per_channel_affine(const ct_tensor *x, const ct_tensor *scale,
                                                           const ct_tensor *zero_point, int64_t axis,
                                                           int64_t quant_min, int64_t quant_max);

/* ---- observers (torch.ao.quantization.observer) ----
   Observers are modules: ct_forward(obs, x) records statistics of x and returns x
   itself; their statistics are buffers with PyTorch's names and order ("eps",
   "min_val", "max_val"; HistogramObserver also "histogram"), so they sit in models
   and state dicts as PyTorch's do. Statistics are kept in float32 (x is read as
   float32). */
typedef enum ct_observer_kind {
    CT_MINMAX_OBSERVER = 0,                          /* MinMaxObserver */
    CT_MOVING_AVERAGE_MINMAX_OBSERVER = 1,           /* MovingAverageMinMaxObserver */
    CT_PER_CHANNEL_MINMAX_OBSERVER = 2,              /* PerChannelMinMaxObserver */
    CT_MOVING_AVERAGE_PER_CHANNEL_MINMAX_OBSERVER = 3,
    CT_HISTOGRAM_OBSERVER = 4,                       /* HistogramObserver */
    CT_PLACEHOLDER_OBSERVER = 5                      /* PlaceholderObserver */
} ct_observer_kind;
/* PyTorch's constructor arguments. Zero means PyTorch's default for each field. */
typedef struct ct_observer_options {
    ct_dtype dtype;             /* CT_QUINT8 (0, i.e. CT_FLOAT32, means quint8), CT_QINT8 or CT_QINT32;
                                   PlaceholderObserver keeps what is given (float32 by default) */
    ct_qscheme qscheme;         /* 0: per_tensor_affine, or per_channel_affine for the per-channel observers */
    int reduce_range;           /* halve the code range ([0,127] / [-64,63]); PyTorch deprecates it */
    int64_t quant_min, quant_max; /* both 0: None (the dtype's range); otherwise quant_min <= 0 <= quant_max */
    double eps;                 /* 0: torch.finfo(torch.float32).eps */
    double averaging_constant;  /* moving-average observers; 0: 0.01 */
    int64_t ch_axis;            /* per-channel observers (negative counts from the end) */
    int64_t bins;               /* HistogramObserver; 0: 2048 */
    int64_t upsample_rate;      /* HistogramObserver; 0: 128 */
} ct_observer_options;
/* An observer of the given kind; opt may be NULL (all defaults). Errors (NULL):
   a qscheme the observer does not take, a dtype other than qint8/quint8/qint32,
   a bad quant_min/quant_max, reduce_range with symmetric quint8. */
CTENSOR_API ct_module *ct_observer_new(ct_observer_kind kind, const ct_observer_options *opt);
CTENSOR_API ct_module *ct_minmax_observer(const ct_observer_options *opt);
CTENSOR_API ct_module *ct_moving_average_minmax_observer(const ct_observer_options *opt);
CTENSOR_API ct_module *ct_per_channel_minmax_observer(const ct_observer_options *opt);
CTENSOR_API ct_module *ct_moving_average_per_channel_minmax_observer(const ct_observer_options *opt);
CTENSOR_API ct_module *ct_histogram_observer(const ct_observer_options *opt);
CTENSOR_API ct_module *ct_placeholder_observer(const ct_observer_options *opt);
/* 1 when m is an observer made here (and its kind in *kind, which may be NULL). */
CTENSOR_API int ct_is_observer(const ct_module *m, ct_observer_kind *kind);
/* observer.calculate_qparams(): scale (float32) and zero_point tensors as PyTorch
   returns them: shape [1] for the per-tensor observers, [channels] for the
   per-channel ones; zero_point int32 for affine schemes, int64 for symmetric ones,
   float32 for per_channel_affine_float_qparams. Returns 0; 1 when the observer has
   seen no data yet (PyTorch warns "must run observer before calling
   calculate_qparams" and returns scale [1.0], zero point [0]: so do we, without an
   error); -1 with the error set (a PlaceholderObserver, which has no qparams). The
   tensors belong to the current scope. */
CTENSOR_API int ct_observer_calculate_qparams(ct_module *obs, ct_tensor **scale, ct_tensor **zero_point);
/* The same for a per-tensor observer, as numbers (the float32 scale widened). */
CTENSOR_API int ct_observer_calculate_qparams_per_tensor(ct_module *obs, double *scale, int64_t *zero_point);
/* The code range the observer quantizes to (after reduce_range), and its dtype / qscheme. */
CTENSOR_API int ct_observer_qrange(const ct_module *obs, int64_t *quant_min, int64_t *quant_max);
CTENSOR_API ct_dtype ct_observer_dtype(const ct_module *obs);
CTENSOR_API ct_qscheme ct_observer_qscheme(const ct_module *obs);
/* observer.reset_min_max_vals() (MinMax and per-channel observers). */
CTENSOR_API ct_status ct_observer_reset_min_max_vals(ct_module *obs);

/* ---- FakeQuantize (torch.ao.quantization.FakeQuantize) ----
   A module wrapping an observer (its child "activation_post_process"), with
   PyTorch's buffers fake_quant_enabled, observer_enabled (uint8 [1]), scale
   (float32) and zero_point (int32). forward(x): when the observer is enabled, x
   goes through the observer and scale / zero_point are recomputed; when fake
   quantization is enabled, the result is x fake-quantized with them (per channel
   along the observer's ch_axis for a per-channel scheme), else x itself. Gradients
   pass straight through (ct_fake_quantize_per_*). The observer is made from
   (observer, opt); PyTorch's default observer is CT_MOVING_AVERAGE_MINMAX_OBSERVER. */
CTENSOR_API ct_module *ct_fake_quantize(ct_observer_kind observer, const ct_observer_options *opt);
CTENSOR_API int ct_is_fake_quantize(const ct_module *m);
/* fake_quant.enable_fake_quant(enabled) / enable_observer(enabled), applied to m and
   to every FakeQuantize below it, as model.apply(torch.ao.quantization.
   disable_observer) does. Returns the number of FakeQuantize modules changed. */
CTENSOR_API int ct_fake_quantize_enable_fake_quant(ct_module *m, int enabled);
CTENSOR_API int ct_fake_quantize_enable_observer(ct_module *m, int enabled);
/* fake_quant.calculate_qparams(): its observer's (see ct_observer_calculate_qparams). */
CTENSOR_API int ct_fake_quant_module_calculate_qparams(ct_module *fq, ct_tensor **scale, ct_tensor **zero_point);

/* ---- QConfig (torch.ao.quantization.QConfig) ----
   How to observe activations and weights: for each, a constructor and its
   arguments (PyTorch's Observer.with_args(...)). make is ct_observer_new for
   post-training quantization and ct_fake_quantize for QAT. */
typedef struct ct_observer_factory {
    ct_module *(*make)(ct_observer_kind kind, const ct_observer_options *opt);
    ct_observer_kind kind;
    ct_observer_options options;
} ct_observer_factory;
typedef struct ct_qconfig {
    ct_observer_factory activation, weight;
} ct_qconfig;
/* A new module from a factory (NULL with the error set when it is invalid). */
CTENSOR_API ct_module *ct_observer_factory_make(const ct_observer_factory *f);
/* get_default_qconfig("x86") (= "fbgemm"): HistogramObserver(reduce_range=True) for
   activations, PerChannelMinMaxObserver(qint8, per_channel_symmetric) for weights. */
CTENSOR_API ct_qconfig ct_qconfig_default_x86(void);
/* get_default_qconfig("qnnpack"): HistogramObserver(reduce_range=False),
   MinMaxObserver(qint8, per_tensor_symmetric). */
CTENSOR_API ct_qconfig ct_qconfig_default_arm(void);
/* default_qconfig: MinMaxObserver(quant_min=0, quant_max=127) activations,
   MinMaxObserver(qint8, per_tensor_symmetric) weights. */
CTENSOR_API ct_qconfig ct_qconfig_default(void);
/* default_dynamic_qconfig: PlaceholderObserver(quint8) activations (their range is
   found at run time), MinMaxObserver(qint8, per_tensor_symmetric) weights. */
CTENSOR_API ct_qconfig ct_qconfig_default_dynamic(void);
/* get_default_qat_qconfig("x86" / "qnnpack", version=0): FakeQuantize with a
   MovingAverageMinMaxObserver(quant_min=0, quant_max=255, reduce_range=True for x86)
   for activations; weights FakeQuantize(MovingAveragePerChannelMinMaxObserver, qint8,
   per_channel_symmetric, [-128, 127]) for x86, FakeQuantize(MovingAverageMinMaxObserver,
   qint8, per_tensor_symmetric, [-128, 127]) for qnnpack. (PyTorch's version=1 default
   fuses the same observer and fake quantization into one module with the same numbers.) */
CTENSOR_API ct_qconfig ct_qat_qconfig_default_x86(void);
CTENSOR_API ct_qconfig ct_qat_qconfig_default_arm(void);

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
#define CT__OPS_Q_FAKE(X)                                                                                          \
    X(FAKE_QUANT_PT, "aten::fake_quantize_per_tensor_affine", "fake_quantize_per_tensor_affine",                    \
      "FakeQuantizePerTensorAffineCachemaskBackward0", 1, 1, 0,                                                     \
      "float scale=s0, int zero_point=i0, int quant_min=i1, int quant_max=i2", ct__q_meta_fq, ct__q_k_fq, ct__q_bw_fq, \
      CT__SAVE_IN(0))                                                                                               \
    X(FAKE_QUANT_PC, "aten::fake_quantize_per_channel_affine", "fake_quantize_per_channel_affine",                  \
      "FakeQuantizePerChannelAffineCachemaskBackward0", 3, 1, 0, "int axis=i0, int quant_min=i1, int quant_max=i2",  \
      ct__q_meta_fq, ct__q_k_fq, ct__q_bw_fq, CT__SAVE_IN(0) | CT__SAVE_IN(1) | CT__SAVE_IN(2))                     \
    X(FAKE_QUANT_PT_MASK, "ct::fake_quantize_per_tensor_affine_mask", "fake_quantize_per_tensor_affine_mask", "", 1, 1, \
      CT__OPF_NONDIFF, "float scale=s0, int zero_point=i0, int quant_min=i1, int quant_max=i2", ct__q_meta_fq,       \
      ct__q_k_fq, ct__bw_none, CT__SAVE_NONE)                                                                       \
    X(FAKE_QUANT_PC_MASK, "ct::fake_quantize_per_channel_affine_mask", "fake_quantize_per_channel_affine_mask", "", 3, 1, \
      CT__OPF_NONDIFF, "int axis=i0, int quant_min=i1, int quant_max=i2", ct__q_meta_fq, ct__q_k_fq, ct__bw_none,   \
      CT__SAVE_NONE)


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

/* ---- fake quantization: kernels, metas, the straight-through backward ----
   PyTorch's fake_quantize_*_cachemask kernels: inv_scale = 1.0f / (float)scale;
   qval = (int64)(zero_point + nearbyint(x * inv_scale)) (the sum in x's float type);
   y = (fmin(fmax(qval, quant_min), quant_max) - zero_point) * scale in double, stored
   in x's dtype; mask = quant_min <= qval <= quant_max. The mask ops are our own
   (ct::...), used by the backward rule: grad * mask. */
/* (int64)v as x86's cvttsd2si gives it: INT64_MIN for NaN and out-of-range values
   (what PyTorch's static_cast produces there). */
CT__INLINE int64_t ct__fq_i64(double v) {
    return v >= -9223372036854775808.0 && v < 9223372036854775808.0 ? (int64_t)v : INT64_MIN;
}
CT__INLINE int32_t ct__fq_i32(float v) { return v >= -2147483648.0f && v < 2147483648.0f ? (int32_t)v : INT32_MIN; }
typedef struct {
    const char *x;
    char *y;
    ct_dtype dt;
    int mask;
    int64_t inner, nch;        /* per channel: channel of element e is (e / inner) % nch */
    const float *sc;           /* per channel scales (NULL: per tensor) */
    const int64_t *zp;
    float sc1;
    int64_t zp1, qmin, qmax;
} ct__fq_job;
static void ct__fq_run(void *ctx, int64_t lo, int64_t hi) {
    const ct__fq_job *j = (const ct__fq_job *)ctx;
    for (int64_t e = lo; e < hi; e++) {
        float sc = j->sc1;
        int64_t zp = j->zp1, q;
        if (j->sc) {
            int64_t ch = (e / j->inner) % j->nch;
            sc = j->sc[ch];
            zp = j->zp[ch];
        }
        float inv = 1.0f / sc;
        if (j->dt == CT_FLOAT32) {
            float t = nearbyintf(((const float *)j->x)[e] * inv);
            float s = (float)zp + t;
            q = ct__fq_i64((double)s);
        } else {
            double t = nearbyint(((const double *)j->x)[e] * (double)inv);
            double s = (double)zp + t;
            q = ct__fq_i64(s);
        }
        if (j->mask) {
            ((uint8_t *)j->y)[e] = (uint8_t)(q >= j->qmin && q <= j->qmax);
            continue;
        }
        double c = (double)(q < j->qmin ? j->qmin : q > j->qmax ? j->qmax : q);
        double v = (c - (double)zp) * (double)sc;
        if (j->dt == CT_FLOAT32) ((float *)j->y)[e] = (float)v;
        else ((double *)j->y)[e] = v;
    }
}
static int ct__q_fq_is_pc(int op) { return op == CT__QOP(FAKE_QUANT_PC) || op == CT__QOP(FAKE_QUANT_PC_MASK); }
static int ct__q_meta_fq(ct__call *c) {
    const char *op = ct__opdef_get(c->op)->name;
    const ct_tensor *x = c->in[0];
    int pc = ct__q_fq_is_pc(c->op);
    int mask = c->op == CT__QOP(FAKE_QUANT_PT_MASK) || c->op == CT__QOP(FAKE_QUANT_PC_MASK);
    int64_t qmin = c->a->i[1], qmax = c->a->i[2];
    if (x->dtype != CT_FLOAT32 && x->dtype != CT_FLOAT64)
        return ct__failed(CT_ERR_DTYPE, "%s: expected a float32 or float64 input, got %s", op, CT__DTNAME(x->dtype));
    if (x->device.type != CT_CPU) return ct__failed(CT_ERR_DEVICE, "%s: the input must be a CPU tensor", op);
    if (qmin > qmax)
        return ct__failed(CT_ERR_ARG, "%s: `quant_min` should be less than or equal to `quant_max` (got quant_min %lld, quant_max %lld)",
                          op, (long long)qmin, (long long)qmax);
    if (!pc) {
        int64_t zp = c->a->i[0];
        if (zp < qmin || zp > qmax)
            return ct__failed(CT_ERR_ARG, "%s: `zero_point` must be between `quant_min` and `quant_max` (got zero_point %lld, range [%lld, %lld])",
                              op, (long long)zp, (long long)qmin, (long long)qmax);
    } else {
        const ct_tensor *s = c->in[1], *z = c->in[2];
        int64_t axis = c->a->i[0];
        if (axis < 0 || axis >= x->ndim)
            return ct__failed(CT_ERR_ARG, "%s: `axis` must be between 0 and number of dimensions of input (got axis %lld for a %d-D input)",
                              op, (long long)axis, x->ndim);
        if (s->dtype != CT_FLOAT32 && s->dtype != CT_FLOAT64)
            return ct__failed(CT_ERR_DTYPE, "%s: Scale must be Float, found %s", op, CT__DTNAME(s->dtype));
        if (z->dtype != CT_INT32 && z->dtype != CT_INT64)
            return ct__failed(CT_ERR_DTYPE, "%s: Zero-point must be Int32 or Int64, found %s (float zero points are not supported)", op,
                              CT__DTNAME(z->dtype));
        if (s->ndim != 1 || z->ndim != 1)
            return ct__failed(CT_ERR_SHAPE, "%s: scale and zero point should be 1-D tensors (got shapes %s and %s)", op, CT__SHAPE(s), CT__SHAPE(z));
        if (s->shape[0] != z->shape[0] || s->shape[0] != x->shape[axis])
            return ct__failed(CT_ERR_SHAPE, "%s: dimensions of scale (%lld) and zero-point (%lld) are not consistent with input tensor (size %lld along axis %lld)",
                              op, (long long)s->shape[0], (long long)z->shape[0], (long long)x->shape[axis], (long long)axis);
        if (s->device.type != CT_CPU || z->device.type != CT_CPU)
            return ct__failed(CT_ERR_DEVICE, "%s: scale and zero point must be CPU tensors", op);
    }
    ct__out_new(c, mask ? CT_BOOL : x->dtype, x->ndim, x->shape);
    return 0;
}
static int ct__q_k_fq(ct__call *c) {
    const char *op = ct__opdef_get(c->op)->name;
    int pc = ct__q_fq_is_pc(c->op);
    ct__fq_job j;
    memset(&j, 0, sizeof j);
    j.qmin = c->a->i[1];
    j.qmax = c->a->i[2];
    j.mask = c->op == CT__QOP(FAKE_QUANT_PT_MASK) || c->op == CT__QOP(FAKE_QUANT_PC_MASK);
    float *sc = NULL;
    int64_t *zp = NULL;
    if (pc) {
        const ct_tensor *x = c->in[0], *s = c->in[1], *z = c->in[2];
        int64_t n = s->shape[0], inner = 1;
        for (int d = (int)c->a->i[0] + 1; d < x->ndim; d++) inner *= x->shape[d];
        sc = (float *)CT_MALLOC((size_t)(n ? n : 1) * sizeof(float));
        zp = (int64_t *)CT_MALLOC((size_t)(n ? n : 1) * sizeof(int64_t));
        if (!sc || !zp) {
            CT_FREE(sc);
            CT_FREE(zp);
            return ct__failed(CT_ERR_MEMORY, "%s: out of memory", op);
        }
        for (int64_t k = 0; k < n; k++) {
            sc[k] = (float)ct__load_f64(ct__ptr(s) + k * s->strides[0] * (int64_t)ct__dt[s->dtype].size, s->dtype);
            zp[k] = ct__load_i64(ct__ptr(z) + k * z->strides[0] * (int64_t)ct__dt[z->dtype].size, z->dtype);
            if (zp[k] < j.qmin || zp[k] > j.qmax) {
                long long bad = (long long)zp[k];
                CT_FREE(sc);
                CT_FREE(zp);
                return ct__failed(CT_ERR_ARG, "%s: `zero_point` must be between `quant_min` and `quant_max` (channel %lld has %lld, range [%lld, %lld])",
                                  op, (long long)k, bad, (long long)j.qmin, (long long)j.qmax);
            }
        }
        j.sc = sc;
        j.zp = zp;
        j.inner = inner ? inner : 1;
        j.nch = n ? n : 1;
    } else {
        j.sc1 = (float)c->a->s[0];
        j.zp1 = c->a->i[0];
    }
    ct_tensor *x = ct__contig_ref(c->in[0]);
    if (!x) {
        CT_FREE(sc);
        CT_FREE(zp);
        return -1;
    }
    j.x = ct__ptr(x);
    j.y = ct__ptr(c->out[0]);
    j.dt = x->dtype;
    ct__nn_par_for(ct_numel(x), 16384, ct__fq_run, &j);
    ct__decref(x);
    CT_FREE(sc);
    CT_FREE(zp);
    return 0;
}
/* The straight-through estimator: d/dx = grad where the rounded value was not
   clamped, 0 where it was (PyTorch's *_cachemask_backward: grad * mask). The scale
   and zero point get no gradient (PyTorch's op does not differentiate them). */
static int ct__q_bw_fq(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    if (!CT__NEEDS(n, 0)) return 0;
    int pc = ct__q_fq_is_pc(n->op);
    ct_tensor *in[3] = {CT__SV_IN(n, 0), NULL, NULL};
    if (pc) {
        in[1] = CT__SV_IN(n, 1);
        in[2] = CT__SV_IN(n, 2);
    }
    if (!in[0] || (pc && (!in[1] || !in[2]))) return -1;
    ct_tensor *mask = ct__q_call(pc ? CT__QOP(FAKE_QUANT_PC_MASK) : CT__QOP(FAKE_QUANT_PT_MASK), pc ? 3 : 1, in, &n->attrs);
    gin[0] = mask ? ct_mul(gout[0], mask) : NULL;
    return gin[0] ? 0 : -1;
}
CTENSOR_API ct_tensor *ct_fake_quantize_per_tensor_affine(const ct_tensor *x, double scale, int64_t zero_point,
                                                          int64_t quant_min, int64_t quant_max) {
    if (!x) { ct__null_arg("fake_quantize_per_tensor_affine", 0); return NULL; }
    ct__attrs a;
    ct__attrs_init(&a);
    a.s[0] = scale;
    a.i[0] = zero_point;
    a.i[1] = quant_min;
    a.i[2] = quant_max;
    ct_tensor *in[1] = {(ct_tensor *)x};
    return ct__q_call(CT__QOP(FAKE_QUANT_PT), 1, in, &a);
}
CTENSOR_API ct_tensor *ct_fake_quantize_per_channel_affine(const ct_tensor *x, const ct_tensor *scale,
                                                           const ct_tensor *zero_point, int64_t axis,
                                                           int64_t quant_min, int64_t quant_max) {
    if (!x || !scale || !zero_point) {
        ct__null_arg("fake_quantize_per_channel_affine", !x ? 0 : !scale ? 1 : 2);
        return NULL;
    }
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = axis < 0 && axis >= -(int64_t)x->ndim ? axis + x->ndim : axis;
    a.i[1] = quant_min;
    a.i[2] = quant_max;
    ct_tensor *in[3] = {(ct_tensor *)x, (ct_tensor *)scale, (ct_tensor *)zero_point};
    return ct__q_call(CT__QOP(FAKE_QUANT_PC), 3, in, &a);
}
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
