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
   tensor) per index of `axis`, both 1-D of x's size along axis. Float zero points
   (per_channel_affine_float_qparams) round after adding them, as PyTorch does:
   y = (clamp(nearbyint(x * inv_scale + zero_point), quant_min, quant_max) - zero_point) * scale. */
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
   (float32) and zero_point (int32; float32 for per_channel_affine_float_qparams). forward(x): when the observer is enabled, x
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
/* model.load_state_dict(sd, strict) for models with observers and FakeQuantize
   modules: their per-channel statistics (min_val, max_val) and qparams (scale,
   zero_point) first take the checkpoint's shapes, as PyTorch's _load_from_state_dict
   does (a fresh per-channel observer has empty ones); then ct_module_load_state_dict. */
CTENSOR_API ct_status ct_quant_load_state_dict(ct_module *m, const ct_state_dict *sd, int strict);

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
#ifdef __cplusplus
}  /* extern "C": options structs by reference for C++ */
static inline ct_module *ct_observer_new(ct_observer_kind kind, const ct_observer_options &o) { return ct_observer_new(kind, &o); }
static inline ct_module *ct_minmax_observer(const ct_observer_options &o) { return ct_minmax_observer(&o); }
static inline ct_module *ct_moving_average_minmax_observer(const ct_observer_options &o) { return ct_moving_average_minmax_observer(&o); }
static inline ct_module *ct_per_channel_minmax_observer(const ct_observer_options &o) { return ct_per_channel_minmax_observer(&o); }
static inline ct_module *ct_moving_average_per_channel_minmax_observer(const ct_observer_options &o) {
    return ct_moving_average_per_channel_minmax_observer(&o);
}
static inline ct_module *ct_histogram_observer(const ct_observer_options &o) { return ct_histogram_observer(&o); }
static inline ct_module *ct_placeholder_observer(const ct_observer_options &o) { return ct_placeholder_observer(&o); }
static inline ct_module *ct_fake_quantize(ct_observer_kind observer, const ct_observer_options &o) { return ct_fake_quantize(observer, &o); }
static inline ct_module *ct_observer_factory_make(const ct_observer_factory &f) { return ct_observer_factory_make(&f); }
extern "C" {
#endif

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
    const float *zpf;          /* per channel float zero points (per_channel_affine_float_qparams) */
    float sc1;
    int64_t zp1, qmin, qmax;
} ct__fq_job;
/* elements [lo, hi) of one channel (or of the per-tensor case): scale sc, zero point zp */
static void ct__fq_span(const ct__fq_job *j, int64_t lo, int64_t hi, float sc, int64_t zp) {
    float inv = 1.0f / sc, zpf = (float)zp;
    double dsc = (double)sc, dzp = (double)zp;
    int64_t qmin = j->qmin, qmax = j->qmax;
    const int64_t small = (int64_t)1 << 23;
    if (j->dt == CT_FLOAT32 && qmin >= -small && qmax <= small && zp >= -small && zp <= small) {
        /* the same in float32 alone (vectorizable): the codes, the zero point and
           their differences are exact in float, so (c - zp) * sc rounds once, as the
           double product rounded to float does; a NaN or a sum at or beyond 2^63 is
           INT64_MIN in PyTorch's cast, hence quant_min */
        const float *x = (const float *)j->x;
        float fqmin = (float)qmin, fqmax = (float)qmax, big = 9.223372036854775808e18f;
        if (j->mask) {
            uint8_t *m = (uint8_t *)j->y;
            for (int64_t e = lo; e < hi; e++) {
                float t = nearbyintf(x[e] * inv);
                float v = zpf + t;
                m[e] = (uint8_t)(v >= fqmin && v <= fqmax && v < big);
            }
        } else {
            float *y = (float *)j->y;
            for (int64_t e = lo; e < hi; e++) {
                float t = nearbyintf(x[e] * inv);
                float v = zpf + t;
                float c = !(v >= fqmin) || v >= big ? fqmin : v > fqmax ? fqmax : v;
                c = c - zpf;
                y[e] = c * sc;
            }
        }
        return;
    }
    for (int64_t e = lo; e < hi; e++) {
        int64_t q;
        if (j->dt == CT_FLOAT32) {
            float t = nearbyintf(((const float *)j->x)[e] * inv);
            float s = zpf + t;
            q = ct__fq_i64((double)s);
        } else {
            /* float64: PyTorch's build clamps the double itself (fmin(fmax(v, qmin), qmax)):
               +inf and huge values give quant_max, NaN quant_min */
            double t = nearbyint(((const double *)j->x)[e] * (double)inv);
            double v = dzp + t;
            if (j->mask) ((uint8_t *)j->y)[e] = (uint8_t)(v >= (double)qmin && v <= (double)qmax);
            else {
                double c = !(v >= (double)qmin) ? (double)qmin : v > (double)qmax ? (double)qmax : v;
                ((double *)j->y)[e] = (c - dzp) * dsc;
            }
            continue;
        }
        if (j->mask) {
            ((uint8_t *)j->y)[e] = (uint8_t)(q >= qmin && q <= qmax);
            continue;
        }
        double c = (double)(q < qmin ? qmin : q > qmax ? qmax : q);
        double v = (c - dzp) * dsc;
        if (j->dt == CT_FLOAT32) ((float *)j->y)[e] = (float)v;
        else ((double *)j->y)[e] = v;
    }
}
/* the same with a float zero point: q = nearbyint(x * inv_scale + zero_point), all in
   x's float type (PyTorch's per_channel_affine_float_qparams kernel) */
static void ct__fq_span_fz(const ct__fq_job *j, int64_t lo, int64_t hi, float s, float z) {
    float inv = 1.0f / s, fmin_ = (float)j->qmin, fmax_ = (float)j->qmax;
    for (int64_t e = lo; e < hi; e++) {
        if (j->dt == CT_FLOAT32) {
            float t = ((const float *)j->x)[e] * inv;
            float qf = nearbyintf(t + z);
            if (j->mask) ((uint8_t *)j->y)[e] = (uint8_t)(qf >= fmin_ && qf <= fmax_);
            else {
                float c = qf < fmin_ ? fmin_ : qf > fmax_ ? fmax_ : qf;
                c = c - z;
                ((float *)j->y)[e] = c * s;
            }
        } else {
            double t = ((const double *)j->x)[e] * (double)inv;
            double qf = nearbyint(t + (double)z);
            if (j->mask) ((uint8_t *)j->y)[e] = (uint8_t)(qf >= (double)j->qmin && qf <= (double)j->qmax);
            else {
                double c = qf < (double)j->qmin ? (double)j->qmin : qf > (double)j->qmax ? (double)j->qmax : qf;
                ((double *)j->y)[e] = (c - (double)z) * (double)s;
            }
        }
    }
}
static void ct__fq_run(void *ctx, int64_t lo, int64_t hi) {
    const ct__fq_job *j = (const ct__fq_job *)ctx;
    if (!j->sc) {
        ct__fq_span(j, lo, hi, j->sc1, j->zp1);
        return;
    }
    /* per channel: runs of `inner` elements share a channel */
    for (int64_t e = lo; e < hi;) {
        int64_t blk = e / j->inner, ch = blk % j->nch, end = (blk + 1) * j->inner;
        if (end > hi) end = hi;
        if (j->zpf) ct__fq_span_fz(j, e, end, j->sc[ch], j->zpf[ch]);
        else ct__fq_span(j, e, end, j->sc[ch], j->zp[ch]);
        e = end;
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
        if (z->dtype != CT_INT32 && z->dtype != CT_INT64 && z->dtype != CT_FLOAT32 && z->dtype != CT_FLOAT64)
            return ct__failed(CT_ERR_DTYPE, "%s: Zero-point must be Int32, Int64 or Float, found %s", op, CT__DTNAME(z->dtype));
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
        int fz = CT__ISFLOAT(z->dtype);
        sc = (float *)CT_MALLOC((size_t)(n ? n : 1) * sizeof(float));
        zp = (int64_t *)CT_MALLOC((size_t)(n ? n : 1) * sizeof(int64_t));
        if (!sc || !zp) {
            CT_FREE(sc);
            CT_FREE(zp);
            return ct__failed(CT_ERR_MEMORY, "%s: out of memory", op);
        }
        for (int64_t k = 0; k < n; k++) {
            sc[k] = (float)ct__load_f64(ct__ptr(s) + k * s->strides[0] * (int64_t)ct__dt[s->dtype].size, s->dtype);
            if (fz) {   /* float zero points: no range check (PyTorch's) */
                ((float *)zp)[k] = (float)ct__load_f64(ct__ptr(z) + k * z->strides[0] * (int64_t)ct__dt[z->dtype].size, z->dtype);
                continue;
            }
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
        if (fz) j.zpf = (const float *)zp;
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
/* ---- observers (torch/ao/quantization/observer.py) ----
   Statistics in float32 buffers; every step uses PyTorch's float32 (or double,
   where PyTorch leaves tensors for Python floats) arithmetic in PyTorch's order,
   so that the qparams agree exactly. */
typedef struct ct__obs {
    ct_observer_kind kind;
    ct_dtype dtype;
    ct_qscheme qscheme;
    int reduce_range, has_qrange;
    int64_t quant_min, quant_max;  /* the effective range (calculate_qmin_qmax) */
    double averaging_constant;
    int64_t ch_axis, bins, upsample_rate;
} ct__obs;
static ct_tensor *ct__obs_forward(ct_module *m, int nin, ct_tensor *const *in);
static int ct__obs_repr(const ct_module *m, char *buf, size_t cap);
static void ct__obs_free(ct_module *m) { CT_FREE(m->impl); }
static const ct_module_type ct__obs_types[6] = {
    {"MinMaxObserver", ct__obs_forward, ct__obs_free, ct__obs_repr},
    {"MovingAverageMinMaxObserver", ct__obs_forward, ct__obs_free, ct__obs_repr},
    {"PerChannelMinMaxObserver", ct__obs_forward, ct__obs_free, ct__obs_repr},
    {"MovingAveragePerChannelMinMaxObserver", ct__obs_forward, ct__obs_free, ct__obs_repr},
    {"HistogramObserver", ct__obs_forward, ct__obs_free, ct__obs_repr},
    {"PlaceholderObserver", ct__obs_forward, ct__obs_free, ct__obs_repr},
};
CTENSOR_API int ct_is_observer(const ct_module *m, ct_observer_kind *kind) {
    if (!m || m->type < &ct__obs_types[0] || m->type > &ct__obs_types[5]) return 0;
    if (kind) *kind = ((const ct__obs *)m->impl)->kind;
    return 1;
}
static ct__obs *ct__obs_of(const ct_module *m, const char *fn) {
    if (!m) {
        ct_set_error(ct_last_error_code() != CT_OK ? ct_last_error_code() : CT_ERR_NULL, "%s: module is NULL", fn);
        return NULL;
    }
    if (!ct_is_observer(m, NULL)) {
        ct_set_error(CT_ERR_ARG, "%s: expected an observer, got a %s module", fn, m->type->name);
        return NULL;
    }
    return (ct__obs *)m->impl;
}
static int ct__obs_per_channel(const ct__obs *o) {
    return o->kind == CT_PER_CHANNEL_MINMAX_OBSERVER || o->kind == CT_MOVING_AVERAGE_PER_CHANNEL_MINMAX_OBSERVER;
}
/* A float32 buffer's data (contiguous, CPU), and its element count; NULL with the
   error set when the buffer was replaced by one of another kind. */
static float *ct__obs_buf(ct_module *m, const char *name, int64_t *numel, int *idx) {
    for (int i = 0; i < m->nbuffers; i++) {
        if (strcmp(m->buffers[i].name, name)) continue;
        ct_tensor *t = m->buffers[i].tensor;
        if (!t || t->dtype != CT_FLOAT32 || t->device.type != CT_CPU || !ct__is_contig(t)) {
            ct_set_error(CT_ERR_STATE, "%s: buffer '%s' must be a contiguous float32 CPU tensor", m->type->name, name);
            return NULL;
        }
        if (numel) *numel = ct_numel(t);
        if (idx) *idx = i;
        return (float *)ct__ptr(t);
    }
    ct_set_error(CT_ERR_STATE, "%s: buffer '%s' is missing", m->type->name, name);
    return NULL;
}
/* Replaces buffer idx by a new float32 tensor of shape [n] (resize_ in PyTorch). */
static float *ct__obs_resize(ct_module *m, int idx, int64_t n) {
    ct_tensor *t = ct__alloc(CT_FLOAT32, 1, &n, NULL, ct__cpu_dev);
    if (!t) return NULL;
    ct_release(m->buffers[idx].tensor);
    m->buffers[idx].tensor = t;
    return (float *)ct__ptr(t);
}
/* NaN-propagating min / max (torch.min / torch.max of two tensors). */
CT__INLINE float ct__obs_min(float a, float b) { return a != a || b != b ? NAN : a < b ? a : b; }
CT__INLINE float ct__obs_max(float a, float b) { return a != a || b != b ? NAN : a > b ? a : b; }
/* min / max of x[0..n) folded into *lo / *hi (NaN: *nan set); 32 independent lanes,
   so that the compiler keeps them in vector registers without a dependency chain. */
#define CT__OBS_LANES 32
static void ct__obs_fold(const float *x, int64_t n, float *lo_io, float *hi_io, int *nan_io) {
    float lo[CT__OBS_LANES], hi[CT__OBS_LANES];
    int nan = 0;
    for (int l = 0; l < CT__OBS_LANES; l++) {
        lo[l] = *lo_io;
        hi[l] = *hi_io;
    }
    int64_t i = 0;
    for (; i + CT__OBS_LANES <= n; i += CT__OBS_LANES) {
        int bad = 0;
        for (int l = 0; l < CT__OBS_LANES; l++) {
            float v = x[i + l];
            bad |= v != v;
            lo[l] = v < lo[l] ? v : lo[l];
            hi[l] = v > hi[l] ? v : hi[l];
        }
        nan |= bad;
    }
    for (; i < n; i++) {
        float v = x[i];
        nan |= v != v;
        lo[0] = v < lo[0] ? v : lo[0];
        hi[0] = v > hi[0] ? v : hi[0];
    }
    for (int l = 0; l < CT__OBS_LANES; l++) {
        *lo_io = lo[l] < *lo_io ? lo[l] : *lo_io;
        *hi_io = hi[l] > *hi_io ? hi[l] : *hi_io;
    }
    *nan_io |= nan;
}
static void ct__obs_aminmax(const float *x, int64_t n, float *mn, float *mx) {
    float lo = INFINITY, hi = -INFINITY;
    int nan = 0;
    ct__obs_fold(x, n, &lo, &hi, &nan);
    *mn = nan ? NAN : lo;
    *mx = nan ? NAN : hi;
}
/* x as float32 contiguous CPU data (x.detach().to(torch.float)); a new reference. */
static ct_tensor *ct__obs_input(const char *who, const ct_tensor *x) {
    if (!CT__ISREAL(x->dtype) || CT__DT_QUANT(x->dtype))
        return ct__fail(CT_ERR_DTYPE, "%s: expected a real (float or integer) input, got %s", who, CT__DTNAME(x->dtype));
    if (x->dtype == CT_FLOAT32 && x->device.type == CT_CPU) return ct__contig_ref(x);
    return ct__host_copy(x, CT_FLOAT32);
}

/* torch.histc(x, bins, min=lo, max=hi) as PyTorch computes it: a range of zero width
   becomes the data's own range, then [lo - 1, hi + 1]; element e goes to bin
   (int64)((e - lo) * bins / (hi - lo)) in float32 (the last bin holds hi); elements
   outside [lo, hi] and NaN are skipped. hist is zeroed first. O(n). */
static int ct__obs_histc(const char *who, const float *x, int64_t n, int64_t bins, double lo, double hi, float *hist) {
    if (lo == hi && n > 0) {
        float a, b;
        ct__obs_aminmax(x, n, &a, &b);
        lo = a;
        hi = b;
    }
    if (lo == hi) {
        lo -= 1;
        hi += 1;
    }
    if (!isfinite(lo) || !isfinite(hi))
        return ct__failed(CT_ERR_ARG, "%s: torch.histc: range of [%g, %g] is not finite", who, lo, hi);
    if (!(lo < hi)) return ct__failed(CT_ERR_ARG, "%s: torch.histc: max must be larger than min", who);
    float left = (float)lo, right = (float)hi, nb = (float)bins, width = right - left;
    memset(hist, 0, (size_t)bins * sizeof(float));
    for (int64_t i = 0; i < n; i++) {
        float e = x[i];
        if (!(e >= left && e <= right)) continue;
        float d = e - left;
        d = d * nb;
        int64_t pos = (int64_t)(d / width);
        if (pos == bins) pos -= 1;
        hist[pos] += 1.0f;
    }
    return 0;
}
/* PyTorch's floor division of floats (div(..., rounding_mode='floor')). */
static float ct__obs_floordiv(float a, float b) {
    if (b == 0) return a / b;
    float mod = fmodf(a, b);
    float div = (a - mod) / b;
    if (mod != 0 && (b < 0) != (mod < 0)) div -= 1.0f;
    if (div == 0) return copysignf(0.0f, a / b);
    float fl = floorf(div);
    if (div - fl > 0.5f) fl += 1.0f;
    return fl;
}
CT__INLINE float ct__obs_clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

/* HistogramObserver.forward */
static int ct__obs_hist_forward(ct_module *m, const ct__obs *o, const float *x, int64_t n) {
    const char *who = m->type->name;
    int64_t nh = 0, nmin = 0, nmax = 0, bins = o->bins, up = o->upsample_rate;
    float *hist = ct__obs_buf(m, "histogram", &nh, NULL), *pmin = ct__obs_buf(m, "min_val", &nmin, NULL),
          *pmax = ct__obs_buf(m, "max_val", &nmax, NULL);
    if (!hist || !pmin || !pmax) return -1;
    if (nh != bins || nmin != 1 || nmax != 1)
        return ct__failed(CT_ERR_STATE, "%s: expected a histogram of %lld bins and one min_val / max_val", who, (long long)bins);
    float mn, mx;
    ct__obs_aminmax(x, n, &mn, &mx);
    float min_val = *pmin, max_val = *pmax;
    if ((min_val == INFINITY && max_val == -INFINITY) || min_val == max_val) {
        /* first data (or a constant so far): a fresh histogram over int(min)..int(max) */
        if (ct__obs_histc(who, x, n, bins, trunc((double)mn), trunc((double)mx), hist)) return -1;
        *pmin = mn;
        *pmax = mx;
        return 0;
    }
    float cmin = ct__obs_min(mn, min_val), cmax = ct__obs_max(mx, max_val);
    /* _adjust_min_max: a grid of width (max - min) / (bins * upsample_rate) */
    float hbw = (max_val - min_val) / (float)(bins * up);
    float span = (float)bins * hbw;
    float ratio = (cmax - cmin) / span;
    float dsf = ceilf(ratio);
    if (!(dsf >= 1 && dsf < 1e9f))
        return ct__failed(CT_ERR_ARG, "%s: the combined range [%g, %g] cannot be histogrammed (downsample rate %g)", who, cmin, cmax, dsf);
    int64_t ds = (int64_t)dsf;
    float e = (float)ds * span;
    e = e - (cmax - cmin);
    cmax = cmax + e;
    float si = nearbyintf((min_val - cmin) / hbw);
    int64_t start = (int64_t)si;
    float *nh_new = (float *)CT_MALLOC((size_t)bins * sizeof(float));
    if (!nh_new) return ct__failed(CT_ERR_MEMORY, "%s: out of memory", who);
    if (ct__obs_histc(who, x, n, bins, trunc((double)cmin), trunc((double)cmax), nh_new)) {
        CT_FREE(nh_new);
        return -1;
    }
    if (cmin == min_val && cmax == max_val) {
        for (int64_t k = 0; k < bins; k++) nh_new[k] += hist[k];
    } else {
        /* _combine_histograms: the old histogram upsampled (each bin repeated
           upsample_rate times) at offset start into a zero array of bins * ds, its
           double cumulative sum sampled every ds, differenced (the previous sample
           through float32) and divided by upsample_rate. Only the upsampled stretch
           adds anything, so the walk is O(bins * upsample_rate). */
        int64_t len = bins * ds, stop = start + bins * up, i = start;
        if (stop > len) stop = len;
        double cum = 0, prev = 0;
        for (int64_t k = 0; k < bins; k++) {
            int64_t target = (k + 1) * ds - 1;
            for (; i <= target && i < stop; i++) cum += (double)hist[(i - start) / up];
            double cur = cum;
            double interp = (cur - (double)(float)prev) / (double)up;
            if (k == 0) interp = cur / (double)up;
            nh_new[k] = nh_new[k] + (float)interp;
            prev = cur;
        }
    }
    memcpy(hist, nh_new, (size_t)bins * sizeof(float));
    CT_FREE(nh_new);
    *pmin = cmin;
    *pmax = cmax;
    return 0;
}

static ct_tensor *ct__obs_forward(ct_module *m, int nin, ct_tensor *const *in) {
    const ct__obs *o = (const ct__obs *)m->impl;
    const char *who = m->type->name;
    if (nin != 1) return ct__fail(CT_ERR_ARG, "%s: forward takes 1 input (got %d)", who, nin);
    ct_tensor *x0 = in[0];
    if (o->kind == CT_PLACEHOLDER_OBSERVER || ct_numel(x0) == 0) return x0;
    ct_tensor *x = ct__obs_input(who, x0);
    if (!x) return NULL;
    const float *xp = (const float *)ct__ptr(x);
    int64_t n = ct_numel(x);
    int rc = 0;
    if (o->kind == CT_HISTOGRAM_OBSERVER) rc = ct__obs_hist_forward(m, o, xp, n);
    else if (!ct__obs_per_channel(o)) {
        float *pmin = ct__obs_buf(m, "min_val", NULL, NULL), *pmax = ct__obs_buf(m, "max_val", NULL, NULL);
        float mn, mx;
        if (!pmin || !pmax) rc = -1;
        else {
            ct__obs_aminmax(xp, n, &mn, &mx);
            if (o->kind == CT_MINMAX_OBSERVER || (*pmin == INFINITY && *pmax == -INFINITY)) {
                *pmin = o->kind == CT_MINMAX_OBSERVER ? ct__obs_min(mn, *pmin) : mn;
                *pmax = o->kind == CT_MINMAX_OBSERVER ? ct__obs_max(mx, *pmax) : mx;
            } else {
                float c = (float)o->averaging_constant, d;
                d = mn - *pmin;
                d = c * d;
                *pmin = *pmin + d;
                d = mx - *pmax;
                d = c * d;
                *pmax = *pmax + d;
            }
        }
    } else {
        int64_t axis = o->ch_axis < 0 ? o->ch_axis + x->ndim : o->ch_axis;
        if (axis < 0 || axis >= x->ndim) {
            ct__decref(x);
            return ct__fail(CT_ERR_INDEX, "%s: ch_axis %lld is out of range for a %d-D input", who, (long long)o->ch_axis, x->ndim);
        }
        int64_t C = x->shape[axis], inner = 1, nmin = 0, nmax = 0;
        int imin = 0, imax = 0;
        for (int d = (int)axis + 1; d < x->ndim; d++) inner *= x->shape[d];
        float *cur = (float *)CT_MALLOC((size_t)(2 * C) * sizeof(float));
        float *pmin = ct__obs_buf(m, "min_val", &nmin, &imin), *pmax = ct__obs_buf(m, "max_val", &nmax, &imax);
        if (!cur) rc = ct__failed(CT_ERR_MEMORY, "%s: out of memory", who);
        else if (!pmin || !pmax) rc = -1;
        else if ((nmin && nmin != C) || (nmax && nmax != C))
            rc = ct__failed(CT_ERR_SHAPE, "%s: the input has %lld channels along ch_axis %lld, the observer has seen %lld", who,
                            (long long)C, (long long)o->ch_axis, (long long)nmin);
        else {
            float *cmn = cur, *cmx = cur + C;
            int *nan = (int *)CT_MALLOC((size_t)C * sizeof(int));
            if (!nan) rc = ct__failed(CT_ERR_MEMORY, "%s: out of memory", who);
            else {
                for (int64_t k = 0; k < C; k++) { cmn[k] = INFINITY; cmx[k] = -INFINITY; nan[k] = 0; }
                for (int64_t e = 0; inner > 0 && e < n; e += inner) {   /* runs of `inner` elements per channel */
                    int64_t k = (e / inner) % C;
                    ct__obs_fold(xp + e, inner, &cmn[k], &cmx[k], &nan[k]);
                }
                for (int64_t k = 0; k < C; k++)
                    if (nan[k]) cmn[k] = cmx[k] = NAN;
                CT_FREE(nan);
                if (!nmin || !nmax) {
                    pmin = ct__obs_resize(m, imin, C);
                    pmax = pmin ? ct__obs_resize(m, imax, C) : NULL;
                    if (!pmin || !pmax) rc = -1;
                    else
                        for (int64_t k = 0; k < C; k++) { pmin[k] = cmn[k]; pmax[k] = cmx[k]; }
                } else if (o->kind == CT_PER_CHANNEL_MINMAX_OBSERVER) {
                    for (int64_t k = 0; k < C; k++) {
                        pmin[k] = ct__obs_min(cmn[k], pmin[k]);
                        pmax[k] = ct__obs_max(cmx[k], pmax[k]);
                    }
                } else {
                    float c = (float)o->averaging_constant, d;
                    for (int64_t k = 0; k < C; k++) {
                        d = cmn[k] - pmin[k];
                        d = c * d;
                        pmin[k] = pmin[k] + d;
                        d = cmx[k] - pmax[k];
                        d = c * d;
                        pmax[k] = pmax[k] + d;
                    }
                }
            }
        }
        CT_FREE(cur);
    }
    ct__decref(x);
    return rc ? NULL : x0;
}

/* _calculate_qparams for n channels (n = 1 and per_tensor: the per-tensor form).
   Returns 0, 1 (no data: the defaults), -1. */
static int ct__obs_qparams(const ct__obs *o, const char *who, float eps, const float *mn, const float *mx, int64_t n,
                           ct_tensor **scale_out, ct_tensor **zp_out) {
    int sym = o->qscheme == CT_PER_TENSOR_SYMMETRIC || o->qscheme == CT_PER_CHANNEL_SYMMETRIC;
    int fq = o->qscheme == CT_PER_CHANNEL_AFFINE_FLOAT_QPARAMS;
    ct_dtype zdt = sym ? CT_INT64 : fq ? CT_FLOAT32 : CT_INT32;
    int64_t one = 1;
    if (n == 0 || (!ct__obs_per_channel(o) && mn[0] == INFINITY && mx[0] == -INFINITY)) {
        float s1 = 1.0f;
        int64_t z1 = 0;
        *scale_out = ct_from_data_n(&s1, CT_FLOAT32, 1, &one);
        *zp_out = ct_from_data_n(&z1, CT_INT64, 1, &one);
        return *scale_out && *zp_out ? 1 : -1;
    }
    for (int64_t k = 0; k < n; k++)
        if (!(mn[k] <= mx[k]))
            return ct__failed(CT_ERR_STATE, "%s: min %g should be less than max %g%s", who, (double)mn[k], (double)mx[k],
                              n > 1 ? " (per channel)" : "");
    float *sc = (float *)CT_MALLOC((size_t)n * sizeof(float));
    void *zp = CT_MALLOC((size_t)n * 8);
    if (!sc || !zp) {
        CT_FREE(sc);
        CT_FREE(zp);
        return ct__failed(CT_ERR_MEMORY, "%s: out of memory", who);
    }
    int64_t qmin = o->quant_min, qmax = o->quant_max;
    for (int64_t k = 0; k < n; k++) {
        float mneg = ct__obs_min(mn[k], 0.0f), mpos = ct__obs_max(mx[k], 0.0f), s;
        if (sym) {
            mpos = ct__obs_max(-mneg, mpos);
            s = mpos / (float)((double)(qmax - qmin) / 2.0);
            s = ct__obs_max(s, eps);
            int64_t z = 0;
            if (o->dtype == CT_QUINT8) {
                int64_t t = qmin + qmax;
                z = o->has_qrange ? (t >= 0 ? t / 2 : -((-t + 1) / 2)) : 128;
            }
            ((int64_t *)zp)[k] = z;
        } else if (fq) {
            s = (mx[k] - mn[k]) / (float)(qmax - qmin);
            s = s > eps ? s : 1.0f;
            ((float *)zp)[k] = -mn[k] / s;
        } else {
            s = (mpos - mneg) / (float)(qmax - qmin);
            s = ct__obs_max(s, eps);
            int32_t r = ct__fq_i32(nearbyintf(mneg / s));
            int32_t z = (int32_t)(uint32_t)((uint32_t)(int32_t)qmin - (uint32_t)r);
            z = z < (int32_t)qmin ? (int32_t)qmin : z > (int32_t)qmax ? (int32_t)qmax : z;
            ((int32_t *)zp)[k] = z;
        }
        sc[k] = s;
    }
    *scale_out = ct_from_data_n(sc, CT_FLOAT32, 1, &n);
    *zp_out = ct_from_data_n(zp, zdt, 1, &n);
    CT_FREE(sc);
    CT_FREE(zp);
    return *scale_out && *zp_out ? 0 : -1;
}

/* HistogramObserver._compute_quantization_error: the L2 error of quantizing the
   histogram's mass with [start_bin, end_bin] as the range, in PyTorch's mix of double
   (Python floats) and float32 (tensors). */
static double ct__obs_hist_error(const float *hist, int64_t bins, float min_val, float max_val, double dst_nbins,
                                 int64_t s, int64_t e) {
    double bw = ((double)max_val - (double)min_val) / (double)bins;
    double dbw = bw * (double)(e - s + 1) / dst_nbins;
    if (dbw == 0.0) return 0.0;
    float bwf = (float)bw, dbwf = (float)dbw, half = (float)(dbw / 2), nhalf = (float)(-dbw / 2), top = (float)(dst_nbins - 1);
    float n0 = half * half, m0 = nhalf * nhalf;
    n0 = n0 * half;
    m0 = m0 * nhalf;
    n0 = (n0 - m0) / 3.0f;                        /* the norm of a whole destination bin */
    float m3 = nhalf * nhalf;
    m3 = m3 * nhalf;
    double total = 0;
    for (int64_t i = 0; i < bins; i++) {
        float sb = (float)(i - s) * bwf;
        float se = sb + bwf;
        float db = ct__obs_clampf(ct__obs_floordiv(sb, dbwf), 0.0f, top);
        float dbc = db + 0.5f;
        dbc = dbc * dbwf;
        float de = ct__obs_clampf(ct__obs_floordiv(se, dbwf), 0.0f, top);
        float dens = hist[i] / bwf;
        float delb = sb - dbc;
        float a = half * half, b = delb * delb;
        a = a * half;
        b = b * delb;
        float t1 = (a - b) / 3.0f;
        float norm = dens * t1;
        float cnt = de - db;
        cnt = cnt - 1.0f;
        float t2 = dens * n0;
        t2 = cnt * t2;
        norm = norm + t2;
        float dec = de * dbwf;
        dec = dec + half;
        float dele = se - dec;
        float c3 = dele * dele;
        c3 = c3 * dele;
        float t3 = (c3 - m3) / 3.0f;
        t3 = dens * t3;
        norm = norm + t3;
        total += (double)norm;
    }
    return (double)(float)total;
}
/* HistogramObserver._non_linear_param_search: the new (min, max). */
static void ct__obs_hist_search(const ct__obs *o, const float *hist, float min_val, float max_val, float *new_min, float *new_max) {
    int64_t bins = o->bins;
    double dst_nbins = o->dtype == CT_QINT32 ? 4294967296.0 : 256.0;
    float bin_width = (max_val - min_val) / (float)bins;
    double tot = 0, cum = 0;
    for (int64_t k = 0; k < bins; k++) tot += (double)hist[k];
    double total = (double)(float)tot;
    float *csum = (float *)CT_MALLOC((size_t)bins * sizeof(float));
    int64_t start_bin = 0, end_bin = bins - 1;
    if (csum) {
        for (int64_t k = 0; k < bins; k++) {
            cum += (double)hist[k];
            csum[k] = (float)cum;
        }
        double stepsize = 1e-5, alpha = 0.0, beta = 1.0, norm_min = INFINITY;
        while (alpha < beta) {
            double next_alpha = alpha + stepsize, next_beta = beta - stepsize;
            float ta = (float)(next_alpha * total), tb = (float)(next_beta * total);
            int64_t l = start_bin, r = end_bin;
            while (l < end_bin && csum[l] < ta) l++;
            while (r > start_bin && csum[r] > tb) r--;
            int64_t ns = start_bin, ne = end_bin;
            if (l - start_bin > end_bin - r) {
                ns = l;
                alpha = next_alpha;
            } else {
                ne = r;
                beta = next_beta;
            }
            if (ns == start_bin && ne == end_bin) continue;
            double norm = ct__obs_hist_error(hist, bins, min_val, max_val, dst_nbins, ns, ne);
            if (norm > norm_min) break;
            norm_min = norm;
            start_bin = ns;
            end_bin = ne;
        }
        CT_FREE(csum);
    }
    float t = bin_width * (float)start_bin;
    *new_min = min_val + t;
    t = bin_width * (float)(end_bin + 1);
    *new_max = min_val + t;
}

CTENSOR_API int ct_observer_calculate_qparams(ct_module *obs, ct_tensor **scale, ct_tensor **zero_point) {
    const char *fn = "calculate_qparams";
    ct__obs *o = ct__obs_of(obs, fn);
    if (scale) *scale = NULL;
    if (zero_point) *zero_point = NULL;
    if (!o) return -1;
    const char *who = obs->type->name;
    if (o->kind == CT_PLACEHOLDER_OBSERVER)
        return ct__failed(CT_ERR_UNSUPPORTED, "%s: calculate_qparams should not be called for PlaceholderObserver", who);
    int64_t ne = 0, nmin = 0, nmax = 0;
    float *eps = ct__obs_buf(obs, "eps", &ne, NULL), *pmin = ct__obs_buf(obs, "min_val", &nmin, NULL),
          *pmax = ct__obs_buf(obs, "max_val", &nmax, NULL);
    if (!eps || !pmin || !pmax) return -1;
    if (ne != 1 || nmin != nmax) return ct__failed(CT_ERR_STATE, "%s: eps must have one element and min_val / max_val the same count", who);
    ct_tensor *s = NULL, *z = NULL;
    int rc;
    if (o->kind == CT_HISTOGRAM_OBSERVER) {
        int64_t nh = 0;
        float *hist = ct__obs_buf(obs, "histogram", &nh, NULL);
        if (!hist) return -1;
        if (nmin != 1) return ct__failed(CT_ERR_STATE, "%s: min_val and max_val must have one element", who);
        if (*pmin == INFINITY && *pmax == -INFINITY) {
            rc = ct__obs_qparams(o, who, *eps, pmin, pmax, 1, &s, &z);
        } else if (nh != o->bins) {
            return ct__failed(CT_ERR_STATE, "%s: The number of bins in histogram (%lld) should be equal to the number of bins supplied while making this observer (%lld)",
                              who, (long long)nh, (long long)o->bins);
        } else {
            float a, b;
            ct__obs_hist_search(o, hist, *pmin, *pmax, &a, &b);
            rc = ct__obs_qparams(o, who, *eps, &a, &b, 1, &s, &z);
        }
    } else {
        if (!ct__obs_per_channel(o) && nmin != 1) return ct__failed(CT_ERR_STATE, "%s: min_val and max_val must have one element", who);
        rc = ct__obs_qparams(o, who, *eps, pmin, pmax, nmin, &s, &z);
    }
    if (rc >= 0) {
        if (scale) *scale = s;
        if (zero_point) *zero_point = z;
    }
    return rc;
}
CTENSOR_API int ct_observer_calculate_qparams_per_tensor(ct_module *obs, double *scale, int64_t *zero_point) {
    ct__obs *o = ct__obs_of(obs, "calculate_qparams");
    if (!o) return -1;
    if (ct__obs_per_channel(o))
        return ct__failed(CT_ERR_ARG, "%s: a per-channel observer has one scale per channel (use ct_observer_calculate_qparams)", obs->type->name);
    ct_tensor *s, *z;
    int rc = ct_observer_calculate_qparams(obs, &s, &z);
    if (rc < 0) return rc;
    if (scale) *scale = ct_item(s);
    if (zero_point) *zero_point = ct_item_int(z);
    return rc;
}
CTENSOR_API int ct_observer_qrange(const ct_module *obs, int64_t *quant_min, int64_t *quant_max) {
    ct__obs *o = ct__obs_of(obs, "observer_qrange");
    if (!o) return -1;
    if (quant_min) *quant_min = o->quant_min;
    if (quant_max) *quant_max = o->quant_max;
    return 0;
}
CTENSOR_API ct_dtype ct_observer_dtype(const ct_module *obs) {
    ct__obs *o = ct__obs_of(obs, "observer_dtype");
    return o ? o->dtype : CT_NUM_DTYPES;
}
CTENSOR_API ct_qscheme ct_observer_qscheme(const ct_module *obs) {
    ct__obs *o = ct__obs_of(obs, "observer_qscheme");
    return o ? o->qscheme : (ct_qscheme)-1;
}
CTENSOR_API ct_status ct_observer_reset_min_max_vals(ct_module *obs) {
    ct__obs *o = ct__obs_of(obs, "reset_min_max_vals");
    if (!o) return ct_last_error_code();
    if (o->kind == CT_HISTOGRAM_OBSERVER || o->kind == CT_PLACEHOLDER_OBSERVER) {
        ct_set_error(CT_ERR_UNSUPPORTED, "%s: Cannot reset min/max values in the given observer.", obs->type->name);
        return CT_ERR_UNSUPPORTED;
    }
    int imin = 0, imax = 0;
    float *pmin = ct__obs_buf(obs, "min_val", NULL, &imin), *pmax = ct__obs_buf(obs, "max_val", NULL, &imax);
    if (!pmin || !pmax) return ct_last_error_code();
    if (ct__obs_per_channel(o)) {
        if (!ct__obs_resize(obs, imin, 0) || !ct__obs_resize(obs, imax, 0)) return ct_last_error_code();
    } else {
        *pmin = INFINITY;
        *pmax = -INFINITY;
    }
    return CT_OK;
}
static int ct__obs_repr(const ct_module *m, char *buf, size_t cap) {
    const ct__obs *o = (const ct__obs *)m->impl;
    if (o->kind == CT_PLACEHOLDER_OBSERVER) return snprintf(buf, cap, "dtype=%s", ct_dtype_name(o->dtype));
    ct_tensor *mn = NULL, *mx = NULL;
    for (int i = 0; i < m->nbuffers; i++) {
        if (!strcmp(m->buffers[i].name, "min_val")) mn = m->buffers[i].tensor;
        if (!strcmp(m->buffers[i].name, "max_val")) mx = m->buffers[i].tensor;
    }
    if (mn && mx && ct_numel(mn) == 1 && ct_numel(mx) == 1)
        return snprintf(buf, cap, "min_val=%g, max_val=%g", ct_item(mn), ct_item(mx));
    return snprintf(buf, cap, "min_val=%s, max_val=%s", mn ? CT__SHAPE(mn) : "?", mx ? CT__SHAPE(mx) : "?");
}

/* The constructor: PyTorch's argument checks, calculate_qmin_qmax, the buffers. */
CTENSOR_API ct_module *ct_observer_new(ct_observer_kind kind, const ct_observer_options *opt) {
    if ((unsigned)kind > 5u) return (ct_module *)ct__fail(CT_ERR_ARG, "observer: unknown observer kind %d", (int)kind);
    const char *who = ct__obs_types[kind].name;
    ct_observer_options d;
    memset(&d, 0, sizeof d);
    if (opt) d = *opt;
    ct__obs o;
    memset(&o, 0, sizeof o);
    o.kind = kind;
    int pc = kind == CT_PER_CHANNEL_MINMAX_OBSERVER || kind == CT_MOVING_AVERAGE_PER_CHANNEL_MINMAX_OBSERVER;
    o.dtype = kind == CT_PLACEHOLDER_OBSERVER ? d.dtype : d.dtype == CT_FLOAT32 ? CT_QUINT8 : d.dtype;
    o.qscheme = d.qscheme == CT_PER_TENSOR_AFFINE && pc ? CT_PER_CHANNEL_AFFINE : d.qscheme;
    o.reduce_range = d.reduce_range != 0;
    o.averaging_constant = d.averaging_constant == 0 ? 0.01 : d.averaging_constant;
    o.ch_axis = d.ch_axis;
    o.bins = d.bins ? d.bins : 2048;
    o.upsample_rate = d.upsample_rate ? d.upsample_rate : 128;
    double eps = d.eps == 0 ? (double)FLT_EPSILON : d.eps;
    if (kind != CT_PLACEHOLDER_OBSERVER) {
        int sym = o.qscheme == CT_PER_TENSOR_SYMMETRIC || o.qscheme == CT_PER_CHANNEL_SYMMETRIC;
        if (!pc && o.qscheme != CT_PER_TENSOR_AFFINE && o.qscheme != CT_PER_TENSOR_SYMMETRIC)
            return (ct_module *)ct__fail(CT_ERR_ARG, "%s: %s's qscheme only support torch.per_tensor_symmetric and torch.per_tensor_affine (got %s)",
                                         who, who, ct_qscheme_name(o.qscheme));
        if (pc && o.qscheme != CT_PER_CHANNEL_AFFINE && o.qscheme != CT_PER_CHANNEL_SYMMETRIC && o.qscheme != CT_PER_CHANNEL_AFFINE_FLOAT_QPARAMS)
            return (ct_module *)ct__fail(CT_ERR_ARG, "%s: %s's qscheme only support torch.per_channel_symmetric, torch.per_channel_affine and torch.per_channel_affine_float_qparams (got %s)",
                                         who, who, ct_qscheme_name(o.qscheme));
        if (o.dtype != CT_QINT8 && o.dtype != CT_QUINT8 && o.dtype != CT_QINT32)
            return (ct_module *)ct__fail(CT_ERR_DTYPE, "%s: Default Observer only works for qint8, quint8 and qint32 data type (got %s)", who,
                                         CT__DTNAME(o.dtype));
        if (sym && o.reduce_range && o.dtype == CT_QUINT8 && kind != CT_HISTOGRAM_OBSERVER)
            return (ct_module *)ct__fail(CT_ERR_UNSUPPORTED, "%s: Cannot reduce range for symmetric quantization for quint8", who);
        if (o.bins < 1 || o.upsample_rate < 1)
            return (ct_module *)ct__fail(CT_ERR_ARG, "%s: bins (%lld) and upsample_rate (%lld) must be positive", who, (long long)o.bins,
                                         (long long)o.upsample_rate);
        if (!(eps >= 0) || !isfinite(eps)) return (ct_module *)ct__fail(CT_ERR_ARG, "%s: eps must be a non-negative number (got %g)", who, eps);
        o.has_qrange = d.quant_min != 0 || d.quant_max != 0;
        int64_t qmin = d.quant_min, qmax = d.quant_max;
        if (o.has_qrange) {
            if (!(qmin <= 0 && 0 <= qmax))
                return (ct_module *)ct__fail(CT_ERR_ARG, "%s: Used-specified quantization range must include 0 (got [%lld, %lld])", who,
                                             (long long)qmin, (long long)qmax);
            if (!(qmin < qmax))
                return (ct_module *)ct__fail(CT_ERR_ARG, "%s: qmin must be strictly less than qmax for user-specified quantization range (got [%lld, %lld])",
                                             who, (long long)qmin, (long long)qmax);
            int64_t len = qmax - qmin + 1;
            if (o.dtype == CT_QINT8 && !(len > 0 && len <= 256))
                return (ct_module *)ct__fail(CT_ERR_ARG, "%s: quantization range should be positive and not exceed the maximum bit range (=256) (got [%lld, %lld])",
                                             who, (long long)qmin, (long long)qmax);
            if (o.dtype == CT_QINT32 && !(len > 0 && len <= 2147483648LL))
                return (ct_module *)ct__fail(CT_ERR_ARG, "%s: quantization range should be positive and not exceed the maximum bit range (=4294967296)", who);
            if (o.reduce_range) {   /* Python's floor division */
                qmin = qmin >= 0 ? qmin / 2 : -((-qmin + 1) / 2);
                qmax = qmax >= 0 ? qmax / 2 : -((-qmax + 1) / 2);
            }
        } else if (o.dtype == CT_QINT8) {
            qmin = o.reduce_range ? -64 : -128;
            qmax = o.reduce_range ? 63 : 127;
        } else if (o.dtype == CT_QUINT8) {
            qmin = 0;
            qmax = o.reduce_range ? 127 : 255;
        } else {
            qmin = INT32_MIN;
            qmax = INT32_MAX;
        }
        o.quant_min = qmin;
        o.quant_max = qmax;
    }
    ct__obs *im = CT__NEW_ZEROED(ct__obs);
    ct_module *m = im ? ct_module_new(&ct__obs_types[kind], im) : NULL;
    if (!m) {
        CT_FREE(im);
        return (ct_module *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", who);
    }
    *im = o;
    if (kind == CT_PLACEHOLDER_OBSERVER) return m;
    int ok = 1, s = ct_scope_begin();
    int64_t one = 1, zero = 0, bins = o.bins;
    ok = !ct_module_register_buffer(m, "eps", ct_full_n(CT_FLOAT32, 1, &one, eps), 1);
    if (ok && kind == CT_HISTOGRAM_OBSERVER) ok = !ct_module_register_buffer(m, "histogram", ct_zeros_n(CT_FLOAT32, 1, &bins), 1);
    if (ok && pc)
        ok = !ct_module_register_buffer(m, "min_val", ct_zeros_n(CT_FLOAT32, 1, &zero), 1) &&
             !ct_module_register_buffer(m, "max_val", ct_zeros_n(CT_FLOAT32, 1, &zero), 1);
    else if (ok)
        ok = !ct_module_register_buffer(m, "min_val", ct_full_n(CT_FLOAT32, 0, NULL, INFINITY), 1) &&
             !ct_module_register_buffer(m, "max_val", ct_full_n(CT_FLOAT32, 0, NULL, -INFINITY), 1);
    for (int i = 0; ok && i < m->nbuffers; i++) ok = m->buffers[i].tensor != NULL;
    ct_scope_end(s);
    if (!ok) {
        ct_module_free(m);
        return NULL;
    }
    return m;
}
CTENSOR_API ct_module *ct_minmax_observer(const ct_observer_options *opt) { return ct_observer_new(CT_MINMAX_OBSERVER, opt); }
CTENSOR_API ct_module *ct_moving_average_minmax_observer(const ct_observer_options *opt) {
    return ct_observer_new(CT_MOVING_AVERAGE_MINMAX_OBSERVER, opt);
}
CTENSOR_API ct_module *ct_per_channel_minmax_observer(const ct_observer_options *opt) {
    return ct_observer_new(CT_PER_CHANNEL_MINMAX_OBSERVER, opt);
}
CTENSOR_API ct_module *ct_moving_average_per_channel_minmax_observer(const ct_observer_options *opt) {
    return ct_observer_new(CT_MOVING_AVERAGE_PER_CHANNEL_MINMAX_OBSERVER, opt);
}
CTENSOR_API ct_module *ct_histogram_observer(const ct_observer_options *opt) { return ct_observer_new(CT_HISTOGRAM_OBSERVER, opt); }
CTENSOR_API ct_module *ct_placeholder_observer(const ct_observer_options *opt) { return ct_observer_new(CT_PLACEHOLDER_OBSERVER, opt); }
/* ---- FakeQuantize (torch/ao/quantization/fake_quantize.py) ---- */
typedef struct ct__fqm {
    int per_channel;
    int64_t ch_axis, quant_min, quant_max;
} ct__fqm;
static ct_tensor *ct__fqm_forward(ct_module *m, int nin, ct_tensor *const *in);
static int ct__fqm_repr(const ct_module *m, char *buf, size_t cap);
static const ct_module_type ct__fqm_type = {"FakeQuantize", ct__fqm_forward, ct__obs_free, ct__fqm_repr};
CTENSOR_API int ct_is_fake_quantize(const ct_module *m) { return m && m->type == &ct__fqm_type; }
/* buffer `name` of a FakeQuantize (its index), NULL when missing */
static ct_tensor *ct__fqm_buf(ct_module *m, const char *name, int *idx) {
    for (int i = 0; i < m->nbuffers; i++)
        if (!strcmp(m->buffers[i].name, name)) {
            if (idx) *idx = i;
            return m->buffers[i].tensor;
        }
    ct_set_error(CT_ERR_STATE, "FakeQuantize: buffer '%s' is missing", name);
    return NULL;
}
static int ct__fqm_flag(ct_module *m, const char *name) {
    ct_tensor *t = ct__fqm_buf(m, name, NULL);
    return t && ct_numel(t) >= 1 ? ct__load_i64(ct__ptr(t), t->dtype) == 1 : 0;
}
static ct_tensor *ct__fqm_forward(ct_module *m, int nin, ct_tensor *const *in) {
    const ct__fqm *f = (const ct__fqm *)m->impl;
    if (nin != 1) return ct__fail(CT_ERR_ARG, "FakeQuantize: forward takes 1 input (got %d)", nin);
    if (m->nchildren < 1) return ct__fail(CT_ERR_STATE, "FakeQuantize: activation_post_process is missing");
    ct_module *obs = m->children[0].module;
    ct_tensor *x = in[0];
    int is, iz;
    ct_tensor *scale = ct__fqm_buf(m, "scale", &is), *zp = ct__fqm_buf(m, "zero_point", &iz);
    if (!scale || !zp) return NULL;
    if (ct__fqm_flag(m, "observer_enabled")) {
        int s = ct_scope_begin(), ok = 0;
        ct_tensor *sc = NULL, *z = NULL;
        if (ct_forward(obs, ct_detach(x)) && ct_observer_calculate_qparams(obs, &sc, &z) >= 0) {
            if (ct_numel(scale) != ct_numel(sc)) {   /* resize_ to the observer's channel count */
                ct_tensor *ns = ct__alloc(CT_FLOAT32, 1, sc->shape, NULL, ct__cpu_dev);
                ct_tensor *nz = ns ? ct__alloc(zp->dtype, 1, z->shape, NULL, ct__cpu_dev) : NULL;
                if (ns && nz) {
                    ct_release(m->buffers[is].tensor);
                    m->buffers[is].tensor = scale = ns;
                    ct_release(m->buffers[iz].tensor);
                    m->buffers[iz].tensor = zp = nz;
                } else if (ns) ct__decref(ns);
            }
            ok = ct_numel(scale) == ct_numel(sc) && ct_numel(zp) == ct_numel(z) && ct_copy_(scale, sc) && ct_copy_(zp, z);
        }
        ct_scope_end(s);
        if (!ok) return NULL;
    }
    if (!ct__fqm_flag(m, "fake_quant_enabled")) return x;
    if (f->per_channel) return ct_fake_quantize_per_channel_affine(x, scale, zp, f->ch_axis, f->quant_min, f->quant_max);
    return ct_fake_quantize_per_tensor_affine(x, ct_item(scale), ct_item_int(zp), f->quant_min, f->quant_max);
}
static int ct__fqm_repr(const ct_module *m, char *buf, size_t cap) {
    const ct__fqm *f = (const ct__fqm *)m->impl;
    ct_module *mm = (ct_module *)m;
    return snprintf(buf, cap, "fake_quant_enabled=%d, observer_enabled=%d, quant_min=%lld, quant_max=%lld, ch_axis=%lld",
                    ct__fqm_flag(mm, "fake_quant_enabled"), ct__fqm_flag(mm, "observer_enabled"), (long long)f->quant_min,
                    (long long)f->quant_max, (long long)f->ch_axis);
}
CTENSOR_API ct_module *ct_fake_quantize(ct_observer_kind observer, const ct_observer_options *opt) {
    if (opt && (opt->quant_min || opt->quant_max)) {
        ct_dtype dt = opt->dtype == CT_FLOAT32 ? CT_QUINT8 : opt->dtype;
        int64_t lo = 0, hi = 0;
        if (opt->quant_min > opt->quant_max)
            return (ct_module *)ct__fail(CT_ERR_ARG, "FakeQuantize: quant_min must be less than or equal to quant_max (got %lld, %lld)",
                                         (long long)opt->quant_min, (long long)opt->quant_max);
        if (ct_qdtype_range(dt, &lo, &hi) && opt->quant_min < lo)
            return (ct_module *)ct__fail(CT_ERR_ARG, "FakeQuantize: quant_min out of bound (%lld < %lld for %s)", (long long)opt->quant_min,
                                         (long long)lo, CT__DTNAME(dt));
        if (ct_qdtype_range(dt, &lo, &hi) && opt->quant_max > hi)
            return (ct_module *)ct__fail(CT_ERR_ARG, "FakeQuantize: quant_max out of bound (%lld > %lld for %s)", (long long)opt->quant_max,
                                         (long long)hi, CT__DTNAME(dt));
    }
    if (observer == CT_PLACEHOLDER_OBSERVER)
        return (ct_module *)ct__fail(CT_ERR_ARG, "FakeQuantize: the observer must compute qparams (got PlaceholderObserver)");
    ct_module *obs = ct_observer_new(observer, opt);
    if (!obs) return NULL;
    const ct__obs *o = (const ct__obs *)obs->impl;
    ct__fqm *f = CT__NEW_ZEROED(ct__fqm);
    ct_module *m = f ? ct_module_new(&ct__fqm_type, f) : NULL;
    if (!m) {
        CT_FREE(f);
        ct_module_free(obs);
        return (ct_module *)ct__fail(CT_ERR_MEMORY, "FakeQuantize: out of memory");
    }
    f->per_channel = ct__obs_per_channel(o);
    f->ch_axis = f->per_channel ? o->ch_axis : -1;
    f->quant_min = o->quant_min;
    f->quant_max = o->quant_max;
    int s = ct_scope_begin();
    int64_t one = 1;
    int ok = !ct_module_register_buffer(m, "fake_quant_enabled", ct_full_n(CT_UINT8, 1, &one, 1), 1) &&
             !ct_module_register_buffer(m, "observer_enabled", ct_full_n(CT_UINT8, 1, &one, 1), 1) &&
             !ct_module_register_buffer(m, "scale", ct_full_n(CT_FLOAT32, 1, &one, 1.0), 1) &&
             !ct_module_register_buffer(m, "zero_point",
                                        ct_zeros_n(o->qscheme == CT_PER_CHANNEL_AFFINE_FLOAT_QPARAMS ? CT_FLOAT32 : CT_INT32, 1, &one), 1);
    for (int i = 0; ok && i < m->nbuffers; i++) ok = m->buffers[i].tensor != NULL;
    ct_scope_end(s);
    if (!ok || ct_module_add_module(m, "activation_post_process", obs)) {   /* add_module frees obs on failure */
        if (!ok) ct_module_free(obs);
        ct_module_free(m);
        return NULL;
    }
    return m;
}
static int ct__fqm_set(ct_module *m, const char *flag, int enabled) {
    int n = 0;
    if (!m) return 0;
    if (ct_is_fake_quantize(m)) {
        ct_tensor *t = ct__fqm_buf(m, flag, NULL);
        if (t && ct_numel(t) >= 1 && t->device.type == CT_CPU) {
            ct__store_f64(ct__ptr(t), t->dtype, enabled ? 1.0 : 0.0);
            n++;
        }
    }
    for (int i = 0; i < m->nchildren; i++) n += ct__fqm_set(m->children[i].module, flag, enabled);
    return n;
}
CTENSOR_API int ct_fake_quantize_enable_fake_quant(ct_module *m, int enabled) { return ct__fqm_set(m, "fake_quant_enabled", enabled); }
CTENSOR_API int ct_fake_quantize_enable_observer(ct_module *m, int enabled) { return ct__fqm_set(m, "observer_enabled", enabled); }
CTENSOR_API int ct_fake_quant_module_calculate_qparams(ct_module *fq, ct_tensor **scale, ct_tensor **zero_point) {
    if (!ct_is_fake_quantize(fq) || fq->nchildren < 1) {
        if (scale) *scale = NULL;
        if (zero_point) *zero_point = NULL;
        return ct__failed(fq ? CT_ERR_ARG : CT_ERR_NULL, "fake_quant calculate_qparams: expected a FakeQuantize module, got %s",
                          fq ? fq->type->name : "NULL");
    }
    return ct_observer_calculate_qparams(fq->children[0].module, scale, zero_point);
}

/* ---- QConfig (torch/ao/quantization/qconfig.py) ---- */
CTENSOR_API ct_module *ct_observer_factory_make(const ct_observer_factory *f) {
    if (!f || !f->make) return (ct_module *)ct__fail(CT_ERR_ARG, "observer factory: no constructor (make is NULL)");
    return f->make(f->kind, &f->options);
}
static ct_observer_factory ct__qc_factory(ct_module *(*make)(ct_observer_kind, const ct_observer_options *), ct_observer_kind kind,
                                          ct_dtype dtype, ct_qscheme qscheme, int reduce_range, int64_t qmin, int64_t qmax) {
    ct_observer_factory f;
    memset(&f, 0, sizeof f);
    f.make = make;
    f.kind = kind;
    f.options.dtype = dtype;
    f.options.qscheme = qscheme;
    f.options.reduce_range = reduce_range;
    f.options.quant_min = qmin;
    f.options.quant_max = qmax;
    return f;
}
static ct_qconfig ct__qc(ct_observer_factory a, ct_observer_factory w) {
    ct_qconfig q;
    q.activation = a;
    q.weight = w;
    return q;
}
/* default_weight_observer: MinMaxObserver(qint8, per_tensor_symmetric) */
static ct_observer_factory ct__qc_weight_obs(void) {
    return ct__qc_factory(ct_observer_new, CT_MINMAX_OBSERVER, CT_QINT8, CT_PER_TENSOR_SYMMETRIC, 0, 0, 0);
}
CTENSOR_API ct_qconfig ct_qconfig_default_x86(void) {
    return ct__qc(ct__qc_factory(ct_observer_new, CT_HISTOGRAM_OBSERVER, CT_QUINT8, CT_PER_TENSOR_AFFINE, 1, 0, 0),
                  ct__qc_factory(ct_observer_new, CT_PER_CHANNEL_MINMAX_OBSERVER, CT_QINT8, CT_PER_CHANNEL_SYMMETRIC, 0, 0, 0));
}
CTENSOR_API ct_qconfig ct_qconfig_default_arm(void) {
    return ct__qc(ct__qc_factory(ct_observer_new, CT_HISTOGRAM_OBSERVER, CT_QUINT8, CT_PER_TENSOR_AFFINE, 0, 0, 0), ct__qc_weight_obs());
}
CTENSOR_API ct_qconfig ct_qconfig_default(void) {
    return ct__qc(ct__qc_factory(ct_observer_new, CT_MINMAX_OBSERVER, CT_QUINT8, CT_PER_TENSOR_AFFINE, 0, 0, 127), ct__qc_weight_obs());
}
CTENSOR_API ct_qconfig ct_qconfig_default_dynamic(void) {
    return ct__qc(ct__qc_factory(ct_observer_new, CT_PLACEHOLDER_OBSERVER, CT_QUINT8, CT_PER_TENSOR_AFFINE, 0, 0, 0), ct__qc_weight_obs());
}
CTENSOR_API ct_qconfig ct_qat_qconfig_default_x86(void) {
    return ct__qc(ct__qc_factory(ct_fake_quantize, CT_MOVING_AVERAGE_MINMAX_OBSERVER, CT_QUINT8, CT_PER_TENSOR_AFFINE, 1, 0, 255),
                  ct__qc_factory(ct_fake_quantize, CT_MOVING_AVERAGE_PER_CHANNEL_MINMAX_OBSERVER, CT_QINT8, CT_PER_CHANNEL_SYMMETRIC, 0,
                                 -128, 127));
}
CTENSOR_API ct_qconfig ct_qat_qconfig_default_arm(void) {
    return ct__qc(ct__qc_factory(ct_fake_quantize, CT_MOVING_AVERAGE_MINMAX_OBSERVER, CT_QUINT8, CT_PER_TENSOR_AFFINE, 0, 0, 255),
                  ct__qc_factory(ct_fake_quantize, CT_MOVING_AVERAGE_MINMAX_OBSERVER, CT_QINT8, CT_PER_TENSOR_SYMMETRIC, 0, -128, 127));
}
/* ---- loading state dicts: per-channel statistics take the checkpoint's shapes ----
   PyTorch's observers and FakeQuantize resize these buffers in _load_from_state_dict
   (a fresh per-channel observer holds empty ones); ctensor's loader refuses shape
   mismatches, so they are resized first. */
static void ct__q_resize_for_load(ct_module *m, const char *prefix, const ct_state_dict *sd) {
    static const char *const names[] = {"min_val", "max_val", "scale", "zero_point"};
    ct_observer_kind kind;
    int resizable = ct_is_fake_quantize(m) ||
                    (ct_is_observer(m, &kind) && (kind == CT_PER_CHANNEL_MINMAX_OBSERVER || kind == CT_MOVING_AVERAGE_PER_CHANNEL_MINMAX_OBSERVER));
    char key[512];
    for (int b = 0; resizable && b < m->nbuffers; b++) {
        int which = -1;
        for (int k = 0; k < 4; k++)
            if (!strcmp(m->buffers[b].name, names[k])) which = k;
        ct_tensor *cur = m->buffers[b].tensor;
        if (which < 0 || !cur || cur->ndim != 1) continue;
        snprintf(key, sizeof key, "%s%s", prefix, m->buffers[b].name);
        for (int j = 0; j < sd->n; j++) {
            const ct_tensor *src = sd->items[j].tensor;
            if (!sd->items[j].name || strcmp(sd->items[j].name, key) || !src || src->ndim != 1 || src->shape[0] == cur->shape[0]) continue;
            ct_tensor *t = ct__alloc(cur->dtype, 1, src->shape, NULL, cur->device);
            if (!t) return;
            memset(ct__ptr(t), 0, (size_t)src->shape[0] * ct__dt[cur->dtype].size);
            ct_release(cur);
            m->buffers[b].tensor = t;
            break;
        }
    }
    for (int c = 0; c < m->nchildren; c++) {
        snprintf(key, sizeof key, "%s%s.", prefix, m->children[c].name);
        ct__q_resize_for_load(m->children[c].module, key, sd);
    }
}
CTENSOR_API ct_status ct_quant_load_state_dict(ct_module *m, const ct_state_dict *sd, int strict) {
    if (!m || !sd) {
        ct_set_error(CT_ERR_ARG, "load_state_dict: module or state dict is NULL");
        return CT_ERR_ARG;
    }
    ct__q_resize_for_load(m, "", sd);
    return ct_module_load_state_dict(m, sd, strict);
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
