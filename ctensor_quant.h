/* ctensor_quant.h - int8 quantization for ctensor (torch.ao.quantization): quantized
   tensors, observers, fake quantization, fusion, int8 kernels, and the dynamic,
   static (post-training) and quantization-aware-training workflows.   v0.1 (2026-11-28)

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

   THE FEEL (PyTorch's eager-mode post-training quantization)
       ct_fuse_modules(net, "conv1", "bn1", "relu1");        // fuse_modules
       ct_qconfig qc = ct_qconfig_default_x86();             // get_default_qconfig("x86")
       ct_quant_prepare(net, &qc, NULL);                     // prepare: observers
       for (...) ct_forward(net, calibration_batch);         // calibrate
       ct_quant_convert(net);                                // convert: int8 modules
       ct_tensor *q = ct_quantize_per_tensor(x, 0.1, 10, CT_QUINT8);   // tensors
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
     - Modules keep PyTorch's type names, child names (activation_post_process,
       weight_fake_quant), state-dict keys and reprs, so prepared and converted
       models print and save as PyTorch's.
     - Errors name the op and the values (CT_ERR_ARG for bad parameters,
       CT_ERR_DTYPE for bad dtypes), as PyTorch's do.

   OPS AND BACKENDS
     Every operation is an op of ctensor's one table (names as PyTorch's:
     "aten::quantize_per_tensor", "quantized::linear", "quantized::conv2d", ...),
     so tracing, profiling and the dispatch hook see them. Ops whose inputs are
     quantized run on the QuantizedCPU backend: this header registers their kernels
     and metas there (ct_register_backend_op), also for existing ops (relu, pooling,
     cat, clone). An op without a QuantizedCPU kernel says so, as PyTorch does.

   STATUS (v0.1)
     - Quantized tensors: quantize / dequantize per tensor and per channel, int_repr,
       the parameter accessors, ChooseQuantizationParams, quantize_per_tensor_dynamic,
       making a quantized tensor from its codes, printing, safetensors I/O, SQNR.
     - Observers (MinMax, MovingAverageMinMax, PerChannelMinMax,
       MovingAveragePerChannelMinMax, Histogram with PyTorch's L2 search, Placeholder)
       with PyTorch's qparams exactly; fake_quantize ops with straight-through
       gradients; FakeQuantize modules; qconfigs (x86, qnnpack, default, dynamic, QAT).
     - Fusion: conv(+bn)(+relu), linear(+bn), linear+relu, bn+relu (weights equal
       PyTorch's bit for bit).
     - int8 GEMM (u8 x s8 -> s32: AVX-512 VNNI, AVX2, NEON dot product, portable),
       quantized::linear / linear_relu / linear_dynamic, dynamic Linear and LSTM
       modules; quantized conv2d / conv2d_relu (NHWC, groups, depthwise), add, mul,
       cat, relu and pooling; Quantize, DeQuantize, QuantizedConv(ReLU)2d and
       QuantizedLinear(ReLU) modules.
     - Workflows: quantize_dynamic; QuantStub / DeQuantStub, prepare, convert
       (static PTQ); fuse_modules_qat and prepare_qat for Conv2d, Linear, ConvReLU2d,
       LinearReLU, ConvBn2d, ConvBnReLU2d and LinearBn1d (the batch norm folded on
       the fly).
     - FloatFunctional / QFunctional (add, add_relu, mul, cat, add_scalar,
       mul_scalar), quantized hardswish, hardsigmoid, add_scalar, mul_scalar: the
       layouts of torchvision's quantizable ResNet and MobileNetV3 (bench/quant_zoo.h)
       quantize as PyTorch's.
     - Numeric suite (torch.ao.ns._numeric_suite, eager mode): compare_weights,
       compare_model_outputs (PyTorch's keys and pairing, SQNR per entry), QuantWrapper
       and a one-layer-at-a-time sensitivity table.
     - prepare_qat gives Hardsigmoid, Sigmoid, Softmax and Tanh PyTorch's fixed-
       parameter fake quantization (FixedQParamsFakeQuantize): torchvision's
       quantizable MobileNetV3 trains with QAT as PyTorch's.
     - Loading a converted model's state dict into another converted model (copy_
       between quantized tensors; the packed weights are remade).
     - Not yet: the numeric suite's compare_model_stub (Shadow modules), quantized
       BatchNorm / LayerNorm modules.

   CONTENTS (search for the banner titles)
     Declarations:
       Quantized tensors
       Module fusion
       Observers, fake quantization, qconfigs
       int8 GEMM and quantized linear
       Quantized ops: conv2d, add, mul, relu, pooling, cat
       FloatFunctional, quantized hardswish and hardsigmoid
       Workflows: quantize_dynamic, static post-training quantization
       Numeric suite: compare_weights, compare_model_outputs, sensitivity
     Implementation:
       The op table of this header
       Quantized tensors: kernels
       Module fusion
       Observers, fake quantization, qconfigs: implementation
       int8 GEMM and quantized linear: implementation
       Quantized ops: conv2d, add, mul, relu, pooling, cat: implementation
       FloatFunctional, quantized hardswish and hardsigmoid: implementation
       Workflows: quantize_dynamic, static post-training quantization: implementation
       Numeric suite: compare_weights, compare_model_outputs, sensitivity: implementation
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
/* torch.ao.quantization.fuse_modules_qat: the same patterns, except that conv +
   batch norm (+ relu) become ConvBn2d / ConvBnReLU2d containers (nn.intrinsic) that
   keep the batch norm, in either mode, and linear + BatchNorm1d becomes LinearBn1d;
   ct_quant_prepare_qat turns them into the QAT modules that fold the batch norm on
   the fly. (Conv1d + BatchNorm1d for QAT is not built: an error.) */
CTENSOR_API ct_status ct_fuse_modules_qat_n(ct_module *model, int n, const char *const *names);
typedef struct ct__q_names { const char *v[8]; } ct__q_names;
#ifdef __cplusplus
#  define ct_fuse_modules(model, ...) ct_fuse_modules_n(model, CT__NARGS32(__VA_ARGS__), ct__q_names{{__VA_ARGS__}}.v)
#  define ct_fuse_modules_qat(model, ...) ct_fuse_modules_qat_n(model, CT__NARGS32(__VA_ARGS__), ct__q_names{{__VA_ARGS__}}.v)
#else
#  define ct_fuse_modules(model, ...) ct_fuse_modules_n(model, CT__NARGS32(__VA_ARGS__), (ct__q_names){{__VA_ARGS__}}.v)
#  define ct_fuse_modules_qat(model, ...) ct_fuse_modules_qat_n(model, CT__NARGS32(__VA_ARGS__), (ct__q_names){{__VA_ARGS__}}.v)
#endif

/* ============================================================================
   Observers, fake quantization, qconfigs
   ========================================================================== */
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
   dtype, broadcast together as in ct_add (a squeeze-excitation's [N, C, 1, 1]
   scale times its [N, C, H, W] input); the result has their dtype and the layout
   of the operand that has the output's shape. */
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
    ct_tensor *packed;        /* int8: the weight in the kernel's layout, made once here; owned */
    ct_tensor *weight_sums;   /* int32 [out]: each output channel's sum of codes; owned */
    uint32_t version;         /* the weight's version when packed: changed in place since, it is packed per call */
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
   [1]) and "zero_point" (int64 [1])), DeQuantize (a tensor that is not quantized
   comes out as float32, as from PyTorch's), and QuantizedConv2d /
   QuantizedConvReLU2d (relu != 0) around a packed weight, which the module takes
   over (freed with it, or at once when the call fails); its state dict is
   PyTorch's: weight (qint8), bias (float32, or absent), scale (float32 0-d),
   zero_point (int64 0-d). ct_nn_relu and the pooling modules already take quantized
   inputs. Reprs are PyTorch's. */
CTENSOR_API ct_module *ct_nnq_quantize(double scale, int64_t zero_point, ct_dtype dtype);
CTENSOR_API ct_module *ct_nnq_dequantize(void);
CTENSOR_API ct_module *ct_nnq_conv2d(ct_q_conv_packed *packed, double scale, int64_t zero_point, int relu);

/* ============================================================================
   FloatFunctional, quantized hardswish and hardsigmoid
   ========================================================================== */
/* torch.ao.nn.quantized.FloatFunctional: the module that lets prepare / convert see
   an operation that is not a module (a residual add, a squeeze-excitation mul, a
   cat). In the float model ct_ff_add(f, a, b) is a + b passed through f's child
   "activation_post_process" (Identity; prepare makes it an observer or, with
   prepare_qat, a FakeQuantize); ct_quant_convert turns f into a QFunctional that
   runs the quantized op with the observed output scale and zero point:
     ct_ff_add       add (quantized::add)          ct_ff_add_relu  relu(a + b)
     ct_ff_mul       mul (quantized::mul)          ct_ff_cat       cat along dim
     ct_ff_add_scalar x + c (not observed: quantized::add_scalar picks the output
                     parameters from x's, as PyTorch's)
     ct_ff_mul_scalar x * c (the same, quantized::mul_scalar)
   Tensor operands broadcast as in ct_add. f's forward is an error, as PyTorch's
   ("use the underlying operation"). The QFunctional's state dict is PyTorch's:
   scale (float32 0-d) and zero_point (int64 0-d). NULL with the error set on bad
   input (a quantized operand to a FloatFunctional, or a float one to a
   QFunctional, say so). */
CTENSOR_API ct_module *ct_nn_float_functional(void);
CTENSOR_API ct_module *ct_nnq_functional(double scale, int64_t zero_point);     /* a QFunctional */
CTENSOR_API ct_tensor *ct_ff_add(ct_module *f, const ct_tensor *a, const ct_tensor *b);
CTENSOR_API ct_tensor *ct_ff_add_relu(ct_module *f, const ct_tensor *a, const ct_tensor *b);
CTENSOR_API ct_tensor *ct_ff_mul(ct_module *f, const ct_tensor *a, const ct_tensor *b);
CTENSOR_API ct_tensor *ct_ff_cat(ct_module *f, int n, ct_tensor *const *ts, int dim);
CTENSOR_API ct_tensor *ct_ff_add_scalar(ct_module *f, const ct_tensor *x, double c);
CTENSOR_API ct_tensor *ct_ff_mul_scalar(ct_module *f, const ct_tensor *x, double c);

/* quantized::add_scalar / mul_scalar (what QFunctional runs): the output's
   parameters are derived from x's so that the codes change little, as PyTorch's:
   add: c_q = round(c / s); with zp - c_q inside the code range the codes are kept
   and the zero point becomes zp - c_q; otherwise the scale grows to hold the
   shifted range and the codes are requantized (zero point at the range's end).
   mul: c > 0 scales the scale by c, c < 0 also mirrors the codes (zero point
   qmax - (zp - qmin)), c == 0 gives zeros with scale 1, zero point 0. Per-tensor
   quint8 / qint8 input. */
CTENSOR_API ct_tensor *ct_q_add_scalar(const ct_tensor *x, double c);
CTENSOR_API ct_tensor *ct_q_mul_scalar(const ct_tensor *x, double c);
/* quantized::hardswish(x, scale, zero_point): x * relu6(x + 3) / 6 on the
   dequantized input, requantized to (scale, zero_point) (x's dtype). ct_hardsigmoid
   (aten::hardsigmoid) also takes a quantized input, with PyTorch's fixed output
   parameters: scale 1/256 and zero point 0 (quint8) or -128 (qint8). */
CTENSOR_API ct_tensor *ct_q_hardswish(const ct_tensor *x, double scale, int64_t zero_point);
/* torch.ao.nn.quantized.Hardswish (what convert makes of an observed Hardswish):
   prints as QuantizedHardswish(), empty state dict (PyTorch keeps scale and
   zero_point as plain attributes). */
CTENSOR_API ct_module *ct_nnq_hardswish(double scale, int64_t zero_point);
/* torch.ao.quantization.FixedQParamsFakeQuantize around a FixedQParamsObserver:
   fake quantization with fixed parameters, per tensor, over [quant_min, quant_max]
   (dtype quint8 or qint8). ct_quant_prepare_qat gives it, as PyTorch's prepare_qat
   does, to Hardsigmoid, Sigmoid and Softmax (scale 1/256, zero point 0:
   default_fixed_qparams_range_0to1_fake_quant) and Tanh (2/256, 128: range_neg1to1)
   modules in training mode, so that training sees the quantized kernels' fixed
   output grid; convert removes it (those modules run on quantized tensors with
   these parameters). Buffers and print are PyTorch's; ct_fake_quantize_enable_*
   switch it as a FakeQuantize. */
CTENSOR_API ct_module *ct_fixed_qparams_fake_quantize(double scale, int64_t zero_point, ct_dtype dtype, int64_t quant_min, int64_t quant_max);

/* ============================================================================
   Workflows: quantize_dynamic, static post-training quantization
   ========================================================================== */
/* torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8,
   inplace=True): every Linear below model (its children, recursively; not model
   itself, as PyTorch's convert) becomes a DynamicQuantizedLinear
   (ct_nnq_dynamic_linear: weights per tensor symmetric, or per output channel;
   reduce_range 1 is PyTorch's module on x86). Returns how many were replaced, or
   -1 with the error set (the modules replaced before the error stay replaced). */
CTENSOR_API int ct_quantize_dynamic(ct_module *model, int per_channel, int reduce_range);

/* QuantStub / DeQuantStub (torch.ao.quantization): identity in the float model;
   they mark where prepare observes the input and convert quantizes (Quantize) and
   dequantizes (DeQuantize). */
CTENSOR_API ct_module *ct_nn_quant_stub(void);
CTENSOR_API ct_module *ct_nn_dequant_stub(void);

/* torch.ao.quantization.prepare(model, inplace=True) after model.qconfig = *qconfig
   (eager mode). Each QuantStub, Conv2d, ConvReLU2d (ct_fuse_modules), Linear,
   LinearReLU and Hardswish below model gets an observer made by the qconfig's
   activation factory as its child "activation_post_process" (PyTorch's name, so the
   prepared model prints and saves as PyTorch's), run on the module's output by its
   forward; a FloatFunctional's Identity "activation_post_process" becomes that
   observer; a Dropout gets none (PyTorch's prepare skips it) but is marked for
   convert.
   Per-module qconfigs (PyTorch's submodule.qconfig): o->names[i] (a dotted name:
   that module and everything below it) takes o->qconfigs[i]; a NULL qconfig keeps
   that part float. As in PyTorch's eager mode, a part kept float between quantized
   ones needs stubs placed by the model: a DeQuantStub before it and a QuantStub
   after it (QuantStubs and DeQuantStubs in a float part stay identities; a
   DeQuantize that gets a float tensor passes it on), or the quantized layers in
   QuantWrappers (ct_nn_quant_wrapper). Other module types are not observed: ReLU,
   pooling, Flatten, Identity, Hardsigmoid and Dropout take quantized tensors as
   they are (ctensor_quant.h's QuantizedCPU kernels); an unfused BatchNorm, LayerNorm or activation without a
   quantized kernel reports an error when the converted model runs. Returns the
   number of observers inserted, or -1 with the error set (the model unchanged). */
typedef struct ct_quant_prepare_options {
    int n;                                 /* overrides */
    const char *const *names;
    const ct_qconfig *const *qconfigs;     /* NULL entries: float */
} ct_quant_prepare_options;
CTENSOR_API int ct_quant_prepare(ct_module *model, const ct_qconfig *qconfig, const ct_quant_prepare_options *o);
/* torch.ao.quantization.prepare_qat(model, inplace=True) after model.qconfig =
   *qconfig (a QAT qconfig: ct_qat_qconfig_default_x86 / _arm), for a model in
   training mode: Conv2d, Linear and the fused ConvReLU2d / LinearReLU become their
   QAT forms (PyTorch's nn.qat / nn.intrinsic.qat modules: the same type names, the
   fused ones flattened into one module, so keys are "conv1.weight",
   "conv1.weight_fake_quant.scale", ...): a child "weight_fake_quant" (the qconfig's
   weight factory) fake-quantizes the weight in every forward, and an
   "activation_post_process" (the activation factory: a FakeQuantize) the output;
   QuantStub gets the activation one, Hardswish and FloatFunctional too; Hardsigmoid,
   Sigmoid, Softmax and Tanh get PyTorch's fixed-parameter fake quantization
   (ct_fixed_qparams_fake_quantize). ConvBn2d / ConvBnReLU2d / LinearBn1d (ct_fuse_modules_qat)
   become the QAT modules that keep the batch norm as their child "bn" and fold it
   on the fly as PyTorch's default (approximate) path does: the weight scaled by
   gamma / sqrt(running_var + eps) is fake-quantized, the convolution's output
   divided back and the bias added, then the batch norm runs (batch statistics in
   training, which it tracks); convert folds it with the running statistics. Train
   with the usual optimizers (gradients pass straight through), then
   ct_module_eval and ct_quant_convert. Overrides as ct_quant_prepare's. Returns
   the number of modules prepared, or -1. */
CTENSOR_API int ct_quant_prepare_qat(ct_module *model, const ct_qconfig *qconfig, const ct_quant_prepare_options *o);
/* torch.ao.quantization.convert(model, inplace=True): every observed module is
   swapped for its quantized form, its output scale and zero point from its
   observer, its weight quantized by the qconfig's weight observer (per channel
   along dim 0 for per-channel schemes), as PyTorch's from_float:
     QuantStub -> Quantize, DeQuantStub -> DeQuantize (those prepare found under a
       qconfig: the stubs of a part kept float stay, as in PyTorch),
     Conv2d / ConvReLU2d -> QuantizedConv2d / QuantizedConvReLU2d (ct_nnq_conv2d),
     Linear / LinearReLU -> QuantizedLinear / QuantizedLinearReLU (ct_nnq_linear),
     Hardswish -> QuantizedHardswish, FloatFunctional -> QFunctional,
     Dropout -> QuantizedDropout (the same module: identity in eval mode).
   Returns the number of modules swapped, or -1 with the error set. */
CTENSOR_API int ct_quant_convert(ct_module *model);
/* torch.ao.nn.quantized.Linear / intrinsic.quantized.LinearReLU around a packed
   weight (ct_q_linear_prepack; the module takes it over, and frees it at once when
   the call fails): quint8 input -> quint8 output with the given scale and zero
   point. Buffers (its state dict): weight (qint8), bias (float32, absent without
   bias), scale (float32 0-d), zero_point (int64 0-d), the layout of the quantized
   conv modules (PyTorch's Linear keeps weight and bias in _packed_params); the
   module reads scale and zero_point at each call and the weight from its packed
   form, packed again when the weight or bias buffer changed (ct_module_load_state_dict
   of a converted model's state dict: PyTorch's deployment flow of build, fuse,
   prepare, convert, load). */
CTENSOR_API ct_module *ct_nnq_linear(ct_q_linear_packed *packed, double scale, int64_t zero_point, int relu);

/* ============================================================================
   Numeric suite: compare_weights, compare_model_outputs, sensitivity
   ========================================================================== */
/* torch.ao.ns._numeric_suite (eager mode): where a quantized model loses accuracy.
   Each call fills a ct_ns_result: one entry per compared weight or module, in
   PyTorch's order and under PyTorch's keys, holding the float and quantized
   values (retained: they outlive scopes until ct_ns_result_free) and their SQNR
   (ct_q_sqnr: 20 log10(||float|| / ||float - quantized||) in dB, the quantized
   side compared dequantized; over all n pairs together when a module ran more
   than once). Calls return CT_OK, or an error code with the message set and *out
   empty. */
typedef struct ct_ns_entry {
    char *name;                      /* "conv1.weight", "conv1.stats", "conv1" */
    int n;                           /* values per side */
    ct_tensor **float_values;        /* n tensors of the float model */
    ct_tensor **quantized_values;    /* n tensors of the quantized one, as it made them (quantized or float) */
    double sqnr;                     /* dB; INFINITY when equal */
} ct_ns_entry;
typedef struct ct_ns_result { int n; ct_ns_entry *entries; } ct_ns_result;
CTENSOR_API void ct_ns_result_free(ct_ns_result *r);
/* The entry named `name` (NULL, with CT_ERR_ARG set, when there is none). */
CTENSOR_API const ct_ns_entry *ct_ns_result_get(const ct_ns_result *r, const char *name);

/* compare_weights(float_model.state_dict(), qmodel.state_dict()): for each key of
   the quantized state dict whose last part is "weight" and that PyTorch's
   _find_match pairs with a float key (the same module path, or one level deeper:
   "conv1.weight" with a fused model's "conv1.0.weight"; paths compared with their
   dots removed, as PyTorch does), an entry under the quantized key with n = 1:
   the float weight and the quantized weight (a qint8 tensor, per channel or per
   tensor; DynamicQuantizedLinear's int8 codes with their weight_scale and
   weight_zero_point made into one). Our keys differ from PyTorch's where our
   state dicts do: a quantized Linear's weight is "fc.weight" here and
   "fc._packed_params._packed_params" in PyTorch (it keeps the packed pair);
   DynamicQuantizedLSTM keeps its weights packed, out of the state dict, so it has
   no entries (PyTorch 1.13 reports one "lstm._all_weight_values.<i>.param" entry
   per layer, and only its weight_hh). As in PyTorch, a float weight the quantized
   model kept (a layer left float) is paired too (SQNR INFINITY). Errors:
   CT_ERR_NULL for a NULL dict, CT_ERR_ARG when the quantized dict has no
   quantized weight (a float model passed twice) or none of them has a float
   match (mismatched models), CT_ERR_SHAPE when a pair's shapes differ. */
CTENSOR_API ct_status ct_ns_compare_weights(const ct_state_dict *float_dict, const ct_state_dict *quantized_dict, ct_ns_result *out);

/* compare_model_outputs(float_model, q_model, x): runs both models on x (gradients
   off) and records the outputs of the modules PyTorch's OutputLogger watches
   (get_default_compare_output_module_list: QuantStub, Conv / ConvReLU / ConvBn
   (ReLU) / Linear / LinearReLU / BatchNorm / LSTM / GRU / LayerNorm / GroupNorm /
   Embedding ..., and their quantized and dynamic forms), leaves only, a fused
   module as one; each is swapped for the run for a logging module in its
   parent's slot and put back after, so the models are unchanged. An entry per
   logged quantized-model module that ran, in module order, under PyTorch's key
   "<path>.stats", paired with the float module at the same path or one level
   below (PyTorch's _find_match over the float keys sorted in reverse): n = the
   number of calls, the float outputs, and the quantized model's outputs as it
   made them (quantized, or float after a dynamic module). Differences from
   PyTorch 1.13, where its choice is an accident: PyTorch logs a fused float
   module's output twice per call (it registers the logger hook twice) and does
   not log a quantized LinearReLU (it has a child there, _packed_params, and is
   missing from PyTorch's non-leaf list), so it has no "fc1.stats" for a fused
   Linear + ReLU; here each module is logged once per call, LinearReLU included.
   Neither logs DeQuantStub / DeQuantize. Errors: CT_ERR_NULL (a NULL model or
   x), CT_ERR_STATE (a prepared model that was not converted), CT_ERR_ARG (one
   model passed twice, a quantized model without a quantized module, or one with a
   module at a path the float model lacks), and any error of the forward passes.
   The models themselves (the roots) are not logged: PyTorch logs a root that is a
   watched leaf, such as a lone Linear. */
CTENSOR_API ct_status ct_ns_compare_model_outputs(ct_module *float_model, ct_module *quantized_model, ct_tensor *x,
                                                  ct_ns_result *out);

/* torch.ao.quantization.QuantWrapper(module): children "quant" (QuantStub),
   "dequant" (DeQuantStub) and "module" (takes ownership of `module`); forward is
   dequant(module(quant(x))). prepare / convert turn the stubs into Quantize /
   DeQuantize around the quantized module, so one layer of a float model can be
   quantized alone. NULL (error kept) when module is NULL. */
CTENSOR_API ct_module *ct_nn_quant_wrapper(ct_module *module);
/* The candidate layers of a float model for one-at-a-time quantization: the paths
   of its Conv2d, ConvReLU2d, Linear and LinearReLU modules, in module order (not
   those inside a fused module). Fills up to max entries of paths with strings
   the caller frees with CT_FREE (paths may be NULL) and returns the count, or -1. */
CTENSOR_API int ct_ns_quantizable_layers(const ct_module *model, char **paths, int max);
/* Per-layer sensitivity, the classic table of eager-mode debugging: for each path
   in layers (all of ct_ns_quantizable_layers when layers is NULL), make(user)
   builds a fresh float model (fused, in the mode to evaluate in); the module at
   that path is put in a QuantWrapper, which alone is prepared with *qconfig (as
   PyTorch's model.qconfig = None, wrapper.qconfig = qconfig: the model's own
   stubs stay float), calibrate(model, user) runs calibration batches (return 0,
   or -1 with an error set), the wrapper is converted and the model run on x
   (gradients off throughout). The
   entry (named by the path, n = 1) holds the float model's output and the
   output with that one layer quantized, and their SQNR: the lower, the more that
   layer hurts. The models made are freed. Errors: CT_ERR_NULL for a NULL
   make / calibrate / qconfig / x or a NULL model made, CT_ERR_ARG for a path
   the model lacks or a layer that is not Conv2d / ConvReLU2d / Linear /
   LinearReLU, and any error of calibrate or the forward passes. */
typedef ct_module *(*ct_ns_model_fn)(void *user);
typedef int (*ct_ns_calibrate_fn)(ct_module *model, void *user);
CTENSOR_API ct_status ct_ns_sensitivity(ct_ns_model_fn make, ct_ns_calibrate_fn calibrate, void *user, const ct_qconfig *qconfig,
                                        int nlayers, const char *const *layers, ct_tensor *x, ct_ns_result *out);

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
CT__GXX_PUSH
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


/* observers, fake quantization */
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


/* int8 GEMM, quantized linear */
#define CT__OPS_Q_GEMM(X)                                                                                          \
    X(Q_LINEAR, "quantized::linear", "quantized_linear", "", 6, 1, CT__OPF_NONDIFF,                                   \
      "int in_features=i0, float Y_scale_i=s0, int Y_zero_point_i=i1", ct__qg_meta, ct__qg_k_linear, ct__bw_none,     \
      CT__SAVE_NONE)                                                                                                \
    X(Q_LINEAR_RELU, "quantized::linear_relu", "quantized_linear_relu", "", 6, 1, CT__OPF_NONDIFF,                    \
      "int in_features=i0, float Y_scale_i=s0, int Y_zero_point_i=i1", ct__qg_meta, ct__qg_k_linear, ct__bw_none,     \
      CT__SAVE_NONE)                                                                                                \
    X(Q_LINEAR_DYNAMIC, "quantized::linear_dynamic", "quantized_linear_dynamic", "", 6, 1, CT__OPF_NONDIFF,           \
      "int in_features=i0, bool reduce_range=f0", ct__qg_meta, ct__qg_k_linear, ct__bw_none, CT__SAVE_NONE)


/* quantized conv2d, add, mul, relu, pooling, cat */
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


/* quantized::add_scalar / mul_scalar / hardswish */
#define CT__OPS_Q_ACT(X)                                                                                           \
    X(QADD_SCALAR, "quantized::add_scalar", "q_add_scalar", "", 1, 1, CT__OPF_NONDIFF, "float other=s0",               \
      ct__qa_meta, ct__qa_k_scalar, ct__bw_none, CT__SAVE_NONE)                                                      \
    X(QMUL_SCALAR, "quantized::mul_scalar", "q_mul_scalar", "", 1, 1, CT__OPF_NONDIFF, "float other=s0",               \
      ct__qa_meta, ct__qa_k_scalar, ct__bw_none, CT__SAVE_NONE)                                                      \
    X(QHARDSWISH, "quantized::hardswish", "q_hardswish", "", 1, 1, CT__OPF_NONDIFF,                                   \
      "float output_scale=s0, int output_zero_point=i0", ct__qa_meta, ct__qa_k_lut, ct__bw_none, CT__SAVE_NONE)


#define CT__Q_OPS(X) CT__OPS_Q_CORE(X) CT__OPS_Q_FAKE(X) CT__OPS_Q_GEMM(X) CT__OPS_Q_QOPS(X) CT__OPS_Q_ACT(X)
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
static void ct__q_act_backends(void);
/* The ops register once, together (consecutive ids from ct__q_base), then their
   QuantizedCPU kernels. */
CT__OP_BLOCK(q, ct__q_defs, CT__Q_NUM_OPS, ct__q_core_backends(); ct__q_fake_backends(); ct__q_gemm_backends(); ct__q_qops_backends(); \
             ct__q_act_backends();)
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
#if CT__VEC
typedef uint8_t uint8_t_v16 __attribute__((vector_size(16)));
typedef int8_t int8_t_v16 __attribute__((vector_size(16)));
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
        T##_v16 b8 = __builtin_convertvector(v, T##_v16);                                         \
        memcpy(q + e, &b8, 16);                                                                   \
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
        ct_tensor *e = ct_sub(a, b);
        double ps = ct_item(ct_sqrt(ct_sum(ct_mul(a, a)))), d = ct_item(ct_sqrt(ct_sum(ct_mul(e, e))));
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
        snprintf(w, sizeof w, "%.180s", why);
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
    for (int i = 0; i < m->nchildren && x; i++)   /* prepare's observer runs after (ct_quant_prepare) */
        if (strcmp(m->children[i].name, "activation_post_process")) x = ct_forward(m->children[i].module, x);
    return x;
}
static const ct_module_type ct__q_convrelu1d_type = {"ConvReLU1d", ct__q_fused_forward, NULL, NULL};
static const ct_module_type ct__q_convrelu2d_type = {"ConvReLU2d", ct__q_fused_forward, NULL, NULL};
static const ct_module_type ct__q_linearrelu_type = {"LinearReLU", ct__q_fused_forward, NULL, NULL};
static const ct_module_type ct__q_bnrelu2d_type = {"BNReLU2d", ct__q_fused_forward, NULL, NULL};
static const ct_module_type ct__q_convbn2d_type = {"ConvBn2d", ct__q_fused_forward, NULL, NULL};
static const ct_module_type ct__q_convbnrelu2d_type = {"ConvBnReLU2d", ct__q_fused_forward, NULL, NULL};
static const ct_module_type ct__q_linearbn1d_type = {"LinearBn1d", ct__q_fused_forward, NULL, NULL};

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
static ct_status ct__q_fuse(ct_module *model, int n, const char *const *names, int qat);
CTENSOR_API ct_status ct_fuse_modules_n(ct_module *model, int n, const char *const *names) { return ct__q_fuse(model, n, names, 0); }
CTENSOR_API ct_status ct_fuse_modules_qat_n(ct_module *model, int n, const char *const *names) { return ct__q_fuse(model, n, names, 1); }
static ct_status ct__q_fuse(ct_module *model, int n, const char *const *names, int qat) {
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
    int keep_bn = 0;   /* fuse_modules_qat: conv2d + bn (+ relu) -> ConvBn2d / ConvBnReLU2d, linear + bn1d -> LinearBn1d, the batch norm kept */
    if (qat && folds) {
        if (!conv2 && !lin) {
            ct_set_error(CT_ERR_ARG, "fuse_modules_qat: (%s, %s) for QAT is not built (Conv2d + BatchNorm2d [+ ReLU] and Linear + BatchNorm1d are)",
                         m[0]->type->name, m[1]->type->name);
            return CT_ERR_ARG;
        }
        folds = 0;
        keep_bn = 1;
        wrap = lin ? &ct__q_linearbn1d_type : relu_last ? &ct__q_convbnrelu2d_type : &ct__q_convbn2d_type;
    }
    if (folds && (m[0]->training || m[1]->training)) {
        ct_set_error(CT_ERR_STATE, "fuse_modules: Fusion only for eval! (%s and %s must be in evaluation mode: ct_module_eval; "
                     "training-time fusion is QAT's)", names[0], names[1]);
        return CT_ERR_STATE;
    }
    /* everything that can fail first: the fold's tensors and the new modules */
    ct_module *ids[2] = {NULL, NULL}, *fused = wrap ? ct_module_new(wrap, NULL) : NULL;
    int nid = n - 1;   /* the places after the first become Identity */
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
    if (fused && keep_bn) {
        if (ct_module_add_module(fused, "0", m[0]) != CT_OK || ct_module_add_module(fused, "1", m[1]) != CT_OK ||
            (relu && ct_module_add_module(fused, "2", relu) != CT_OK)) {
            par[0]->children[idx[0]].module = m[0];   /* cannot happen short of memory */
            return ct_last_error_code();
        }
        par[0]->children[idx[0]].module = fused;
    } else if (fused) {
        if (ct_module_add_module(fused, "0", m[0]) != CT_OK || ct_module_add_module(fused, "1", relu) != CT_OK) {
            par[0]->children[idx[0]].module = m[0];   /* cannot happen short of memory; keep the model whole */
            return ct_last_error_code();
        }
        par[0]->children[idx[0]].module = fused;
    } else
        par[0]->children[idx[0]].module = m[0];
    return CT_OK;
}



/* ============================================================================
   Observers, fake quantization, qconfigs: implementation
   ========================================================================== */

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
    if (o->kind == CT_PLACEHOLDER_OBSERVER) return 0;   /* PyTorch prints PlaceholderObserver() */
    ct_tensor *mn = NULL, *mx = NULL;
    for (int i = 0; i < m->nbuffers; i++) {
        if (!strcmp(m->buffers[i].name, "min_val")) mn = m->buffers[i].tensor;
        if (!strcmp(m->buffers[i].name, "max_val")) mx = m->buffers[i].tensor;
    }
    char a[200], b[200];
    if (mn && mx && ct_ndim(mn) == 0 && ct_ndim(mx) == 0) {   /* Python floats */
        ct__pyfloat(ct_item(mn), a, sizeof a);
        ct__pyfloat(ct_item(mx), b, sizeof b);
    } else {   /* per channel: the tensors */
        ct_repr(mn, a, sizeof a);
        ct_repr(mx, b, sizeof b);
    }
    return snprintf(buf, cap, "min_val=%s, max_val=%s", a, b);
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
    int is = -1, iz = -1;
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
/* the four buffers of a FakeQuantize (or FixedQParamsFakeQuantize) as PyTorch prints them */
static void ct__fqm_buf_reprs(ct_module *mm, char fe[64], char oe[64], char sc[200], char zp[200]) {
    ct_repr(ct_module_get(mm, "fake_quant_enabled"), fe, 64);
    ct_repr(ct_module_get(mm, "observer_enabled"), oe, 64);
    ct_repr(ct_module_get(mm, "scale"), sc, 200);
    ct_repr(ct_module_get(mm, "zero_point"), zp, 200);
}
static int ct__fqm_repr(const ct_module *m, char *buf, size_t cap) {
    const ct__fqm *f = (const ct__fqm *)m->impl;
    ct_module *mm = (ct_module *)m;
    /* PyTorch's: the buffers as tensors, the observer's dtype and qscheme */
    char fe[64], oe[64], sc[200], zp[200];
    ct__fqm_buf_reprs(mm, fe, oe, sc, zp);
    ct_module *ob = mm->nchildren > 0 ? mm->children[0].module : NULL;
    ct_dtype dt = ob ? ct_observer_dtype(ob) : CT_QUINT8;
    ct_qscheme qs = ob ? ct_observer_qscheme(ob) : CT_PER_TENSOR_AFFINE;
    return snprintf(buf, cap, "fake_quant_enabled=%s, observer_enabled=%s, quant_min=%lld, quant_max=%lld, dtype=torch.%s, "
                    "qscheme=torch.%s, ch_axis=%lld, scale=%s, zero_point=%s",
                    fe, oe, (long long)f->quant_min, (long long)f->quant_max, ct_dtype_name(dt), ct_qscheme_name(qs),
                    (long long)f->ch_axis, sc, zp);
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
    if (ct_is_fake_quantize(m) || !strcmp(m->type->name, "FixedQParamsFakeQuantize")) {
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
/* ---- the paths ----
   x86-64 with gcc or clang: the AVX2 and AVX-512 VNNI kernels are compiled with
   target attributes and picked at run time (__builtin_cpu_supports), so a build
   without -march=native still runs VNNI on a CPU that has it. nvcc's front end
   and other compilers get the portable kernel (and NEON where the compiler
   targets the dot product). */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__) && !defined(CTENSOR_NO_SIMD) && defined(__x86_64__)
#  define CT__QG_X86 1
#  include <immintrin.h>
#  define CT__QG_VNNI_FN __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
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
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512vnni");
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
                                                             int64_t K, int32_t *acc, const int nq) {
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
            if (nq > 1) c[r][1] = _mm512_dpbusd_epi32(c[r][1], b, w1);
            if (nq > 2) c[r][2] = _mm512_dpbusd_epi32(c[r][2], b, w2);
            if (nq > 2) c[r][3] = _mm512_dpbusd_epi32(c[r][3], b, w3);
        }
    }
    for (int r = 0; r < mr; r++)
        for (int q = 0; q < nq; q++) _mm512_storeu_si512((void *)(acc + r * CT__QG_NP + 16 * q), c[r][q]);
}
/* nq: 1, 2 or 4 quarters of 16 columns computed (a panel's first nr columns; the
   rest of acc is not written) */
#define CT__QG_VNNI_NQ(NQ)                                           \
    switch (mr) {                                                    \
    case 1: ct__qg_vnni_mr(a, lda, 1, p, K, acc, NQ); break;        \
    case 2: ct__qg_vnni_mr(a, lda, 2, p, K, acc, NQ); break;        \
    case 3: ct__qg_vnni_mr(a, lda, 3, p, K, acc, NQ); break;        \
    case 4: ct__qg_vnni_mr(a, lda, 4, p, K, acc, NQ); break;        \
    case 5: ct__qg_vnni_mr(a, lda, 5, p, K, acc, NQ); break;        \
    default: ct__qg_vnni_mr(a, lda, 6, p, K, acc, NQ); break;       \
    }
CT__QG_VNNI_FN static void ct__qg_tile_vnni(const uint8_t *a, int64_t lda, int mr, const int8_t *p, int64_t K, int32_t *acc, int64_t nr) {
    if (nr <= 16) {
        CT__QG_VNNI_NQ(1)
    } else if (nr <= 32) {
        CT__QG_VNNI_NQ(2)
    } else {
        CT__QG_VNNI_NQ(4)
    }
}
#undef CT__QG_VNNI_NQ
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

/* The tile kernel of `path` (a ct_q_gemm_path): acc[r][j], r < mr, j < 64, of rows a
   (lda apart) times panel p; colsum: the panel's column sums (nr of them). */
static void ct__qg_tile(int path, const uint8_t *a, int64_t lda, int mr, const int8_t *p, int64_t K, int32_t *acc,
                        const int32_t *colsum, int64_t nr) {
    (void)colsum;
    (void)nr;
    switch (path) {
#ifdef CT__QG_X86
    case CT_Q_GEMM_AVX512_VNNI: ct__qg_tile_vnni(a, lda, mr, p, K, acc, nr); break;
    case CT_Q_GEMM_AVX2: ct__qg_tile_avx2(a, lda, mr, p, K, acc); break;
#endif
#ifdef CT__QG_NEON
    case CT_Q_GEMM_NEON_DOTPROD: ct__qg_tile_neon(a, lda, mr, p, K, acc, colsum, nr); break;
#endif
    default: ct__qg_tile_c(a, lda, mr, p, K, acc); break;
    }
}
/* Packs the codes c [N][K] into panels p (zeroed, np * K4 * 256 bytes, the layout
   above; K4 >= ceil(K / 4) k-groups a panel, zero past K) and their row sums into csum [N]. */
static void ct__qg_pack(const int8_t *c, int64_t N, int64_t K, int64_t K4, int8_t *p, int32_t *csum) {
    for (int64_t n = 0; n < N; n++) {
        int32_t sum = 0;
        int8_t *pn = p + (n / CT__QG_NP) * K4 * 4 * CT__QG_NP + (n % CT__QG_NP) * 4;
        for (int64_t k = 0; k < K; k++) {
            int8_t v = c[n * K + k];
            sum += v;
            pn[(k / 4) * 4 * CT__QG_NP + k % 4] = v;
        }
        csum[n] = sum;
    }
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
        ct__qg_tile(j->path, j->a + m0 * j->lda, j->lda, mr, j->packed + pn * K4 * 4 * CT__QG_NP, j->K, acc, j->colsum + n0, nr);
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
            ct__qg_pack((const int8_t *)ct__ptr(codes), N, K, w->K4, (int8_t *)ct__ptr(pk), (int32_t *)ct__ptr(cs));
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
/* the Linear's input, for the CPU's and the CUDA backend's metas: float32
   (dynamic) or quint8 per tensor with valid output parameters (static), its last
   dim in_features K */
static int ct__qg_check_input(const char *op, const ct__call *c, int dyn, int64_t K) {
    const ct_tensor *x = c->in[0];
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
    return 0;
}
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
    if (x->ndim < 1 || x->shape[x->ndim - 1] != K)
        return ct__failed(CT_ERR_SHAPE, "%s: the input's last dimension must be in_features = %lld, got shape %s", op, (long long)K,
                          CT__SHAPE(x));
    /* the packed panels' length, without overflow (a packed weight is dense and real) */
    if ((double)((N + CT__QG_NP - 1) / CT__QG_NP) * (double)((K + 3) / 4) * 4.0 * CT__QG_NP > 4e18 || !ct__is_contig(pk) ||
        !ct__is_contig(cs) || !ct__is_contig(sc) || !ct__is_contig(zp) || !ct__is_contig(b))
        return ct__failed(CT_ERR_ARG, "%s: malformed packed weight (make it with ct_q_linear_prepack)", op);
    int64_t plen = (N + CT__QG_NP - 1) / CT__QG_NP * ((K + 3) / 4) * 4 * CT__QG_NP;
    if (pk->shape[0] != plen || sc->dtype != CT_FLOAT32 || sc->ndim != 1 || (sc->shape[0] != 1 && sc->shape[0] != N) ||
        zp->dtype != CT_INT32 || zp->ndim != 1 || zp->shape[0] != sc->shape[0] || b->dtype != CT_FLOAT32 || b->ndim != 1 ||
        b->shape[0] != N)
        return ct__failed(CT_ERR_ARG, "%s: malformed packed weight (make it with ct_q_linear_prepack)", op);
    if (ct__qg_check_input(op, c, dyn, K)) return -1;
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
            char why[256];   /* a copy: the message is formatted into the buffer ct_last_error reads */
            const char *e = ct_last_error();
            size_t len = strlen(e) < sizeof why - 1 ? strlen(e) : sizeof why - 1;
            memcpy(why, e, len);
            why[len] = 0;
            ct__decref(x);
            return ct__failed(CT_ERR_ARG, "%s: cannot quantize the input (%s)", op, why);
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
/* add / mul (+ relu) of quint8 operands with unit or zero element strides (residual adds,
   the squeeze-excitation's broadcast mul): the loop above's results, written so that gcc
   vectorizes it (32-bit integers, float clamps, nearbyintf). 0 when it does not apply. */
#define CT__QO_EW_U8(XA, XB, VAL)                                                       \
    for (int64_t e = 0; e < n; e++) {                                                   \
        const int32_t x = (int32_t)(XA)-za, y = (int32_t)(XB)-zb;                       \
        float t = (VAL);                                                                \
        t = t > lo ? t : lo;                                                            \
        t = t < hi ? t : hi;                                                            \
        o[e] = (uint8_t)t;                                                              \
    }
#define CT__QO_EW_U8_STRIDES(VAL)                                                       \
    if (s[1] && s[2]) { CT__QO_EW_U8(pa[e], pb[e], VAL) }                               \
    else if (s[2]) { CT__QO_EW_U8(pa[0], pb[e], VAL) }                                  \
    else { CT__QO_EW_U8(pa[e], pb[0], VAL) }
#ifdef CT__QG_X86
/* The mask of the first min(rem, 16) lanes. */
CT__QG_VNNI_FN static CT__QG_ALWAYS_INLINE __mmask16 ct__qo_mask16(int64_t rem) {
    return (__mmask16)(rem >= 16 ? 0xffff : (1u << rem) - 1);
}
/* quint8 codes from t (the value over the output's scale): rounded to nearest even
   (vrndscaleps, as the scalar code's clamp and 1.5 * 2^23: beyond +-1024 both end at
   the bounds), plus zo, clamped to [lo, 255] (a NaN: vmaxps gives lo), the lanes of m
   stored at y. min, max and the conversions in their zero-masked forms: g++ 12 -O2
   takes the plain ones' undefined pass-through operand for an uninitialized read
   (-Wmaybe-uninitialized). */
CT__QG_VNNI_FN static CT__QG_ALWAYS_INLINE void ct__qo_u8_store(__m512 t, __m512 vzo, __m512 vlo, __m512 vhi, __mmask16 m, uint8_t *y) {
    t = _mm512_add_ps(_mm512_maskz_roundscale_ps(0xffff, t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), vzo);
    t = _mm512_maskz_min_ps(0xffff, _mm512_maskz_max_ps(0xffff, t, vlo), vhi);
    _mm_mask_storeu_epi8((void *)y, m, _mm512_maskz_cvtepi32_epi8(0xffff, _mm512_maskz_cvttps_epi32(0xffff, t)));
}
/* quint8 mul, both operands dense: the loop below's steps 16 lanes at a time (the last
   1-15 masked), so that short rows (an SE block's 16 channels) need no scalar tail */
CT__QG_VNNI_FN static void ct__qo_mul_u8_avx512(uint8_t *o, const uint8_t *pa, const uint8_t *pb, int64_t n, int32_t za, int32_t zb, float mult,
                                                float zo, float lo) {
    const __m512i vza = _mm512_set1_epi32(za), vzb = _mm512_set1_epi32(zb);
    const __m512 vm = _mm512_set1_ps(mult), vzo = _mm512_set1_ps(zo), vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(255.0f);
    for (int64_t e = 0; e < n; e += 16) {
        const __mmask16 m = ct__qo_mask16(n - e);
        __m512i x = _mm512_sub_epi32(_mm512_maskz_cvtepu8_epi32(0xffff, _mm_maskz_loadu_epi8(m, (const void *)(pa + e))), vza);
        __m512i y = _mm512_sub_epi32(_mm512_maskz_cvtepu8_epi32(0xffff, _mm_maskz_loadu_epi8(m, (const void *)(pb + e))), vzb);
        ct__qo_u8_store(_mm512_mul_ps(_mm512_maskz_cvtepi32_ps(0xffff, _mm512_mullo_epi32(x, y)), vm), vzo, vlo, vhi, m, o + e);
    }
}
#endif
static int ct__qo_ew_u8(char **p, const int64_t *s, int64_t n, const ct__attrs *a) {
    const int kind = a->mode;
    if (a->dtype != CT_QUINT8 || kind > CT__QO_MUL_RELU || s[0] != 1 || (s[1] | s[2]) & ~(int64_t)1 || !(s[1] | s[2])) return 0;
    uint8_t *CT_RESTRICT o = (uint8_t *)p[0];
    const uint8_t *CT_RESTRICT pa = (const uint8_t *)p[1], *CT_RESTRICT pb = (const uint8_t *)p[2];
    const float sa = (float)a->s[0], sb = (float)a->s[1], inv = (float)a->s[2], mult = (float)a->s[3], zo = (float)a->i[2];
    const int32_t za = (int32_t)a->i[0], zb = (int32_t)a->i[1];
    const float lo = kind == CT__QO_ADD_RELU || kind == CT__QO_MUL_RELU ? zo : 0.0f, hi = 255.0f;
    if (kind == CT__QO_MUL || kind == CT__QO_MUL_RELU) {
#ifdef CT__QG_X86
        if (s[1] && s[2] && ct_q_gemm_path_used() == CT_Q_GEMM_AVX512_VNNI) {
            ct__qo_mul_u8_avx512(o, pa, pb, n, za, zb, mult, zo, lo);
            return 1;
        }
#endif
        CT__QO_EW_U8_STRIDES(nearbyintf((float)(x * y) * mult) + zo)
    } else {
        CT__QO_EW_U8_STRIDES(zo + nearbyintf(((float)x * sa + (float)y * sb) * inv))
    }
    return 1;
}
#undef CT__QO_EW_U8_STRIDES
#undef CT__QO_EW_U8
static void ct__qo_ew_loop(char **p, const int64_t *s, int64_t n, const ct__attrs *a) {
    if (ct__qo_ew_u8(p, s, n, a)) return;
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
    int nd = 0;
    int64_t shape[CT_MAX_DIMS];
    if (ct__broadcast(op, 2, c->in, &nd, shape)) return -1;
    if (ct__q_check_params(op, c->a->s[0], c->a->i[0], a->dtype, -1)) return -1;
    ct__outinfo *o = ct__out_new(c, a->dtype, nd, shape);
    /* the layout of the operand that has the output's shape (a [N, C, 1, 1] one is
       contiguous in every layout: it must not decide) */
    int full_b = b->ndim == nd && !memcmp(b->shape, shape, sizeof(int64_t) * (size_t)nd);
    ct_tensor *order[2] = {full_b ? c->in[1] : c->in[0], full_b ? c->in[0] : c->in[1]};
    ct__layout_like(o, 2, order);
    return 0;
}
/* A [N, C, 1, 1] operand against a channels-last [N, C, H, W] one into a channels-last
   output (the squeeze-excitation scale): the 8-bit loop over each pixel's C channels,
   without the general iterator's steps between pixels */
typedef struct {
    const ct__attrs *a;
    char *y;
    const char *se, *x;
    int se_first;
    int64_t C, P;
} ct__qo_se_job;
static void ct__qo_se_run(void *ctx, int64_t lo, int64_t hi) {
    const ct__qo_se_job *j = (const ct__qo_se_job *)ctx;
    static const int64_t st[3] = {1, 1, 1};
    for (int64_t r = lo; r < hi; r++) {
        const char *se = j->se + r / j->P * j->C, *x = j->x + r * j->C;
        char *p[3] = {j->y + r * j->C, (char *)(j->se_first ? se : x), (char *)(j->se_first ? x : se)};
        ct__qo_ew_u8(p, st, j->C, j->a);
    }
}
static int ct__qo_se_fast(ct__call *c, const ct__attrs *a) {
    const ct_tensor *y = c->out[0], *i0 = c->in[0], *i1 = c->in[1];
    if (y->dtype != CT_QUINT8 || y->ndim != 4 || i0->ndim != 4 || i1->ndim != 4 || !ct_is_channels_last(y) || !ct__is_dense(y)) return 0;
    const int se_first = i0->shape[2] == 1 && i0->shape[3] == 1;
    const ct_tensor *se = se_first ? i0 : i1, *x = se_first ? i1 : i0;
    if (se->shape[2] != 1 || se->shape[3] != 1 || !ct_same_shape(x, y) || !ct_is_channels_last(x) || !ct__is_dense(x) ||
        se->shape[0] != y->shape[0] || se->shape[1] != y->shape[1] || se->strides[1] != 1 || se->strides[0] != se->shape[1])
        return 0;
    ct__qo_se_job j;
    j.a = a;
    j.y = (char *)ct__ptr(y);
    j.se = (const char *)ct__ptr(se);
    j.x = (const char *)ct__ptr(x);
    j.se_first = se_first;
    j.C = y->shape[1];
    j.P = y->shape[2] * y->shape[3];
    ct__nn_par_for(y->shape[0] * j.P, (4096 + j.C - 1) / j.C, ct__qo_se_run, &j);
    return 1;
}
static int ct__qo_k_binary(ct__call *c) {
    int kind = c->op == CT__QOP(QADD) ? CT__QO_ADD : c->op == CT__QOP(QADD_RELU) ? CT__QO_ADD_RELU
             : c->op == CT__QOP(QMUL) ? CT__QO_MUL : CT__QO_MUL_RELU;
    ct__attrs a;
    ct__qo_ew_attrs(&a, kind, c->in[0]->dtype, c->in[0], c->in[1], c->a->s[0], c->a->i[0]);
    if (!ct__qo_se_fast(c, &a) && ct__qo_ew_run(c->out[0], 2, c->in, &a)) return -1;
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
    int64_t H = x->shape[2], W = x->shape[3], osz[2] = {0, 0};
    if (H < 1 || W < 1) return ct__failed(CT_ERR_SHAPE, "%s: expected a non-empty plane, got %s", op, CT__SHAPE(x));
    if (adaptive) {
        osz[0] = a->v[10];
        osz[1] = a->v[11];
        if (osz[0] < 0 || osz[1] < 0)
            return ct__failed(CT_ERR_ARG, "%s: output_size must be non-negative, got (%lld, %lld)", op, (long long)osz[0], (long long)osz[1]);
    } else {
        if (ct__pool_geometry(op, a, H, W, mx, 1, osz)) return -1;
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
/* The same for quint8 / qint8 in NHWC (channels contiguous in x, y and the indices):
   rows [lo, hi) of the N * OH output rows, each output pixel's channels at once
   (vectorizable), max and adaptive average pooling. The same codes and indices. */
static void ct__qo_pool_nhwc_run(void *ctx, int64_t lo, int64_t hi) {
    const ct__qo_pool_job *j = (const ct__qo_pool_job *)ctx;
    const ct__pgeo *g = &j->g;
    const int sgn = j->dt == CT_QINT8;
#define CT__QO_POOL_CB 256
    int32_t acc[CT__QO_POOL_CB], idx[CT__QO_POOL_CB];
    for (int64_t row = lo; row < hi; row++) {
        const int64_t n = row / g->OH, oh = row % g->OH;
        for (int64_t ow = 0; ow < g->OW; ow++)
            for (int64_t c0 = 0; c0 < j->C; c0 += CT__QO_POOL_CB) {   /* channel blocks */
                const int64_t nc = j->C - c0 < CT__QO_POOL_CB ? j->C - c0 : CT__QO_POOL_CB;
                uint8_t *yo = (uint8_t *)j->y + n * j->ys[0] + oh * j->ys[2] + ow * j->ys[3] + c0;
                if (j->kind == 0) {
                    const int64_t hs = oh * g->sh - g->ph, ws = ow * g->sw - g->pw;
                    for (int64_t c = 0; c < nc; c++) { acc[c] = INT32_MIN; idx[c] = -1; }
                    for (int64_t i = 0; i < g->kh; i++) {
                        const int64_t h = hs + i * g->dh;
                        if (h < 0 || h >= g->H) continue;
                        for (int64_t k = 0; k < g->kw; k++) {
                            const int64_t w = ws + k * g->dw;
                            if (w < 0 || w >= g->W) continue;
                            const uint8_t *xp = (const uint8_t *)j->x + n * j->xs[0] + h * j->xs[2] + w * j->xs[3] + c0;
                            const int32_t at = (int32_t)(h * g->W + w);
                            for (int64_t c = 0; c < nc; c++) {   /* the first largest code, as the plane loop */
                                const int32_t q = sgn ? (int32_t)(int8_t)xp[c] : (int32_t)xp[c];
                                const int gt = q > acc[c];
                                acc[c] = gt ? q : acc[c];
                                idx[c] = gt ? at : idx[c];
                            }
                        }
                    }
                    int64_t *io = j->ind + n * j->is[0] + oh * j->is[2] + ow * j->is[3] + c0 * j->is[1];
                    for (int64_t c = 0; c < nc; c++) {
                        yo[c] = (uint8_t)(idx[c] < 0 ? j->qmin : acc[c]);
                        io[c * j->is[1]] = idx[c];
                    }
                } else {
                    const int64_t h0 = ct__qo_astart(oh, g->OH, g->H), h1 = ct__qo_aend(oh, g->OH, g->H);
                    const int64_t w0 = ct__qo_astart(ow, g->OW, g->W), w1 = ct__qo_aend(ow, g->OW, g->W);
                    for (int64_t c = 0; c < nc; c++) acc[c] = 0;
                    for (int64_t h = h0; h < h1; h++)
                        for (int64_t w = w0; w < w1; w++) {
                            const uint8_t *xp = (const uint8_t *)j->x + n * j->xs[0] + h * j->xs[2] + w * j->xs[3] + c0;
                            for (int64_t c = 0; c < nc; c++) acc[c] += sgn ? (int32_t)(int8_t)xp[c] : (int32_t)xp[c];
                        }
                    const float r = 1.0f / (float)(h1 - h0) / (float)(w1 - w0);
                    for (int64_t c = 0; c < nc; c++) yo[c] = (uint8_t)(int32_t)nearbyintf((float)acc[c] * r);
                }
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
    /* 8-bit NHWC (channels contiguous in x and y; a window sum of 8-bit codes fits int32):
       each output pixel's channels at once */
    if (j.kind != 1 && j.dt != CT_QINT32 && j.xs[1] == 1 && j.ys[1] == 1 && j.C > 1 && j.g.H * j.g.W < (1 << 23)) {
        int64_t rows = x->shape[0] * j.g.OH;
        ct__nn_par_for(rows, 1, ct__qo_pool_nhwc_run, &j);
    } else
        ct__nn_par_for(x->shape[0] * x->shape[1], 4, ct__qo_pool_run, &j);
    return ct__qo_set_params(y, x, 0, 0);
}

/* ---- the packed weight ----
   GEMM convs (all but depthwise): per group, the [Og][K] weight codes (K = kh kw Cg
   in (i, j, c) order, the channels-last weight's) in the int8 GEMM's panels
   (ct__qg_pack), each of K4 = ceil(K / 64) * 16 k-groups (zero past K, so that AMX
   runs whole blocks of 64 codes): G ceil(Og / 64) K4 256 bytes, the operand of the
   linear section's tile kernels (which read the first ceil(K / 4) k-groups). Depthwise (Cg = Og = 1): the taps as int16 pairs,
   [ceil(T / 2)][C][2] (T = kh kw taps; an odd last tap's partner 0), the operand of
   vpmaddwd against two taps' activations. wsum [O]: each channel's sum of codes. */
static int64_t ct__qo_conv_pklen(int64_t O, int64_t G, int64_t K, int dw) {
    if (dw) return (K + 1) / 2 * O * 4;
    return G * ((O / G + CT__QG_NP - 1) / CT__QG_NP) * ((K + 63) / 64 * 16) * 4 * CT__QG_NP;
}
static void ct__qo_conv_pack(const int8_t *w, int64_t O, int64_t G, int64_t K, int dw, int8_t *pk, int32_t *wsum) {
    memset(pk, 0, (size_t)ct__qo_conv_pklen(O, G, K, dw));
    if (dw) {
        int16_t *p = (int16_t *)(void *)pk;
        for (int64_t o = 0; o < O; o++) {
            int32_t s = 0;
            for (int64_t t = 0; t < K; t++) {
                s += w[o * K + t];
                p[((t / 2) * O + o) * 2 + t % 2] = w[o * K + t];
            }
            wsum[o] = s;
        }
        return;
    }
    int64_t Og = O / G, gl = ct__qo_conv_pklen(Og, 1, K, 0);
    for (int64_t g = 0; g < G; g++) ct__qg_pack(w + g * Og * K, Og, K, (K + 63) / 64 * 16, pk + g * gl, wsum + g * Og);
}
/* The codes of a conv weight w, channels-last ([O][kh][kw][Cg] in memory): one
   reference (ct__decref it), NULL with the error set. */
static ct_tensor *ct__qo_conv_wcodes(const ct_tensor *w) {
    ct_tensor *wa = ct__qo_codes(w), *wc = NULL;
    if (!wa) return NULL;
    int64_t st[4];
    if (ct_is_channels_last(wa)) return wa;
    ct__cl_strides(wa->shape, st);
    wc = ct__alloc(CT_INT8, 4, wa->shape, st, ct__cpu_dev);
    if (wc && ct__copy_into(wc, wa)) {
        ct__decref(wc);
        wc = NULL;
    }
    ct__decref(wa);
    return wc;
}

/* ---- quantized conv2d (NHWC, int32 accumulation) ----
   Inputs: x quint8 [N, C, H, W], w qint8 [O, C/G, kh, kw] (per tensor or per channel
   along 0), bias float32 [O] (optional), then optionally the weight as prepacking left
   it: packed int8 (the kernel's layout, see ct__qo_conv_pack) and wsum int32 [O], so
   that a packed weight is not packed again per call. Attributes as aten::conv2d's
   plus the output's scale and zero point. Output quint8 [N, O, OH, OW], channels-last. */
static int ct__qo_meta_conv(ct__call *c) {
    const char *op = ct__opdef_get(c->op)->sname;
    const ct__attrs *a = c->a;
    if (c->nin < 2 || c->nin > 5)
        return ct__failed(CT_ERR_ARG, "%s: takes (input, weight[, bias][, packed, weight_sums]), got %d tensors", op, c->nin);
    const ct_tensor *x = c->in[0], *w = c->in[1], *b = c->nin == 3 || c->nin == 5 ? c->in[2] : NULL;
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
    if (c->nin >= 4) {
        const ct_tensor *pk = c->in[c->nin - 2], *ws = c->in[c->nin - 1];
        int64_t K = w->shape[1] * w->shape[2] * w->shape[3];
        if (pk->dtype != CT_INT8 || pk->ndim != 1 || pk->device.type != CT_CPU || !ct__is_contig(pk) ||
            pk->shape[0] != ct__qo_conv_pklen(O, G, K, w->shape[1] == 1 && O == G) || ws->dtype != CT_INT32 || ws->ndim != 1 ||
            ws->shape[0] != O || ws->device.type != CT_CPU || !ct__is_contig(ws))
            return ct__failed(CT_ERR_ARG, "%s: malformed packed weight (make it with ct_q_conv2d_prepack)", op);
    }
    int64_t shape[4] = {x->shape[0], O, os[0], os[1]};
    ct__nn_out(ct__out_new(c, CT_QUINT8, 4, shape), CT_QUINT8, 4, shape, 1);
    return 0;
}

typedef struct ct__qo_conv_job {
    const uint8_t *x;          /* NHWC */
    const int8_t *pk;          /* the packed weight */
    const int32_t *wsum;       /* [O]: sum of w[o][.] */
    uint8_t *y;                /* NHWC */
    const float *bias;         /* [O] (zeros when the op has none) */
    const float *mult;         /* [O]: sx * sw[o] */
    const int32_t *czw;        /* [O]: -zx wsum[o] (used when K < 32768) */
    const int32_t *zw;         /* [O] */
    int any_zw, relu, path;    /* path: the ct_q_gemm_path of the tile kernels */
    int direct;                /* 1x1, stride 1, no padding: x's NHWC rows are the GEMM's A rows */
    int amx;                   /* the AMX tiles (see ct__qo_amx_tile) */
    int64_t N, C, H, W, O, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw, G, Cg, Og, K;
    int64_t M, nmb, npg, npc, ntc;   /* pixels, their blocks; panels per group, per task, tasks per block and group */
    int32_t zx;
    int64_t zo;
    float inv_so;
    int failed;
} ct__qo_conv_job;
/* y[q] for output channels o0 + q, q < n, from the int32 sums acc[q] of x * w over each
   channel's taps and the sums xs[q * xs_step] of x over them: the sum of (x - zx)(w - zw)
   is acc - zx sum(w) - zw xs + K zx zw; times sx sw[o], plus the bias, requantized as
   PyTorch's conv output: zp + round(v / scale), clamped (at zp with the fused relu; a
   NaN gives the lower bound), with the linear section's branch-free rounding. The
   product and the sum are separate statements: clang's default contraction would
   fuse them within one expression, and the AVX-512 loop below does not. */
#if defined(CT__QG_X86) && !(defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0)
/* the result of ct__qg_requant, 16 outputs a vector (the last 1-15 masked) */
CT__QG_VNNI_FN static void ct__qo_requant_avx512(int64_t n, const int32_t *acc, const int32_t *cz, const float *mu, const float *bi, float inv,
                                                 float zo, float lo, uint8_t *y) {
    const __m512 vinv = _mm512_set1_ps(inv), vzo = _mm512_set1_ps(zo), vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(255.0f);
    for (int64_t q = 0; q < n; q += 16) {
        const __mmask16 m = ct__qo_mask16(n - q);
        __m512i a = _mm512_add_epi32(_mm512_maskz_loadu_epi32(m, (const void *)(acc + q)), _mm512_maskz_loadu_epi32(m, (const void *)(cz + q)));
        __m512 v = _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(0xffff, a), _mm512_maskz_loadu_ps(m, mu + q));
        v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, bi + q));
        ct__qo_u8_store(_mm512_mul_ps(v, vinv), vzo, vlo, vhi, m, y + q);
    }
}
/* ct__qo_requant_avx512 over the mr rows of a tile (acc rows lda apart, y rows ldy
   apart) for n <= 64 outputs: the channels' corrections, multipliers and biases
   loaded once for the tile */
CT__QG_VNNI_FN static void ct__qo_requant_rows_avx512(int mr, int64_t n, const int32_t *acc, int64_t lda, const int32_t *cz, const float *mu,
                                                      const float *bi, float inv, float zo, float lo, uint8_t *y, int64_t ldy) {
    const __m512 vinv = _mm512_set1_ps(inv), vzo = _mm512_set1_ps(zo), vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(255.0f);
    __m512i vcz[4];
    __m512 vmu[4], vbi[4];
    __mmask16 m[4];
    const int nq = (int)((n + 15) / 16);
    for (int q = 0; q < nq; q++) {
        m[q] = ct__qo_mask16(n - 16 * q);
        vcz[q] = _mm512_maskz_loadu_epi32(m[q], (const void *)(cz + 16 * q));
        vmu[q] = _mm512_maskz_loadu_ps(m[q], mu + 16 * q);
        vbi[q] = _mm512_maskz_loadu_ps(m[q], bi + 16 * q);
    }
    for (int r = 0; r < mr; r++)
        for (int q = 0; q < nq; q++) {
            __m512i a = _mm512_add_epi32(_mm512_maskz_loadu_epi32(m[q], (const void *)(acc + r * lda + 16 * q)), vcz[q]);
            __m512 v = _mm512_add_ps(_mm512_mul_ps(_mm512_maskz_cvtepi32_ps(0xffff, a), vmu[q]), vbi[q]);
            ct__qo_u8_store(_mm512_mul_ps(v, vinv), vzo, vlo, vhi, m[q], y + r * ldy + 16 * q);
        }
}
#endif
static void ct__qo_requant(const ct__qo_conv_job *j, int64_t o0, int64_t n, const int32_t *acc, const int32_t *xs,
                           int64_t xs_step, uint8_t *y) {
    const float lo = j->relu ? (float)j->zo : 0.0f, zo = (float)j->zo, inv = j->inv_so;
    const float *CT_RESTRICT mu = j->mult + o0, *CT_RESTRICT bi = j->bias + o0;
    int64_t q = 0;
    if (!j->any_zw && j->K < 32768) {
        /* |sum of (x - zx) w| < 255 * 128 * K: int32; a trip count that is a multiple of 16 vectorizes at -O2 */
        const int32_t *CT_RESTRICT cz = j->czw + o0;
        const int64_t n16 = n & ~(int64_t)15;
#if defined(CT__QG_X86) && !(defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0)
        if (j->path == CT_Q_GEMM_AVX512_VNNI) {
            ct__qo_requant_avx512(n, acc, cz, mu, bi, inv, zo, lo, y);
            return;
        }
#endif
        for (; q < n16; q++) {
            float v = (float)(acc[q] + cz[q]) * mu[q];
            y[q] = ct__qg_requant(v + bi[q], inv, zo, lo);
        }
    }
    const int64_t zx = j->zx;
    for (; q < n; q++) {
        int64_t o = o0 + q, a = (int64_t)acc[q] - zx * j->wsum[o];
        if (j->any_zw) a += (int64_t)j->zw[o] * (j->K * zx - xs[q * xs_step]);
        float v = (float)a * mu[q];
        y[q] = ct__qg_requant(v + bi[q], inv, zo, lo);
    }
}
/* The im2col row of output pixel m (flat over N, OH, OW) for group g: col[(i, k, c)],
   the zero point off the edges. Undilated taps of an ungrouped conv are one run of x
   per kernel row (one copy for the kw taps); runs of at most 32 bytes inside x (the
   C = 3 stem conv's 21) are copied as 32 bytes, a move the compiler inlines: the
   bytes past the run are overwritten by the next run or lie past K, where the packed
   weight is zero (the column buffer has 32 bytes to spare). */
static void ct__qo_im2col(const ct__qo_conv_job *j, int64_t n, int64_t oh, int64_t ow, int64_t g, uint8_t *cp) {
    const int64_t Cg = j->Cg, kw = j->kw;
    const int zx = (int)j->zx;
    int64_t w0 = ow * j->sw - j->pw, h0 = oh * j->sh - j->ph;
    if (j->dw == 1 && Cg == j->C && kw * Cg <= 32 && w0 >= 0 && w0 + kw <= j->W && h0 >= 0 && h0 + (j->kh - 1) * j->dh < j->H &&
        n * j->H * j->W * j->C + ((h0 + (j->kh - 1) * j->dh) * j->W + w0) * j->C + 32 <= j->N * j->H * j->W * j->C) {
        const uint8_t *xr = j->x + ((n * j->H + h0) * j->W + w0) * j->C;
        for (int64_t i = 0; i < j->kh; i++) memcpy(cp + i * kw * Cg, xr + i * j->dh * j->W * j->C, 32);
        return;
    }
    for (int64_t i = 0; i < j->kh; i++, cp += kw * Cg) {
        int64_t h = oh * j->sh - j->ph + i * j->dh;
        if (h < 0 || h >= j->H) {
            memset(cp, zx, (size_t)(kw * Cg));
            continue;
        }
        const uint8_t *xr = j->x + (n * j->H + h) * j->W * j->C + g * Cg;
        if (j->dw == 1 && Cg == j->C) {
            int64_t klo = w0 < 0 ? -w0 : 0, khi = j->W - w0;
            klo = klo < kw ? klo : kw;
            khi = khi < kw ? khi : kw;
            khi = khi > klo ? khi : klo;
            if (klo) memset(cp, zx, (size_t)(klo * Cg));
            if (khi > klo) memcpy(cp + klo * Cg, xr + (w0 + klo) * Cg, (size_t)((khi - klo) * Cg));
            if (khi < kw) memset(cp + khi * Cg, zx, (size_t)((kw - khi) * Cg));
        } else {
            for (int64_t k = 0; k < kw; k++) {
                int64_t w = w0 + k * j->dw;
                if (w < 0 || w >= j->W) memset(cp + k * Cg, zx, (size_t)Cg);
                else memcpy(cp + k * Cg, xr + w * j->C, (size_t)Cg);
            }
        }
    }
}
#if defined(CT__QG_X86) && defined(__linux__) && ((defined(__clang__) && __clang_major__ >= 12) || (!defined(__clang__) && __GNUC__ >= 11))
/* AMX (Sapphire Rapids and later): a 16-row tile of A against a 64-column panel in
   tmul's int8 product (u8 x s8, int32 sums: the same sums as the other paths). The
   panels' layout is already AMX's B layout: a tile is 16 k-groups of 16 columns,
   rows 256 bytes apart, and the conv's panels have whole blocks of 16 k-groups.
   Tiles 0-3: the 16 x 64 sums; 4, 5: A, by turns from block to block; 6, 7: B, by
   turns (a tile loaded again waits for the product that reads it). Used by the conv when the
   int8 GEMM runs its VNNI path unforced, the CPU has AMX-INT8 and Linux grants the
   tile data (arch_prctl ARCH_REQ_XCOMP_PERM). */
#  define CT__QO_AMX 1
#  include <cpuid.h>
#  define CT__QO_AMX_FN __attribute__((target("amx-tile,amx-int8")))
static int ct__qo_amx_ok(void) {
    static int ok = -1;
    int v = CT__LOAD(&ok);
    if (v < 0) {
        unsigned a = 0, b = 0, c = 0, d = 0;
        v = 0;
        if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && ((d >> 24) & 3u) == 3u) {
            long r;   /* arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) */
            __asm__ volatile("syscall" : "=a"(r) : "a"(158L), "D"(0x1023L), "S"(18L) : "rcx", "r11", "memory");
            v = r == 0;
        }
        CT__STORE(&ok, v);
    }
    return v;
}
typedef struct ct__qo_amx_cfg {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} ct__qo_amx_cfg;
CT__QO_AMX_FN static void ct__qo_amx_begin(void) {
    ct__qo_amx_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette = 1;
    for (int t = 0; t < 8; t++) {
        cfg.rows[t] = 16;
        cfg.colsb[t] = 64;
    }
    /* gcc's _tile_loadconfig tells the compiler it reads 8 bytes: without the barrier the
       rest of cfg's stores are dead to it (and ldtilecfg faults on the garbage) */
    __asm__ volatile("" : : "r"(&cfg) : "memory");
    _tile_loadconfig(&cfg);
}
CT__QO_AMX_FN static void ct__qo_amx_end(void) { _tile_release(); }
/* acc[16][64] = a (16 rows, lda apart, 4 K4 readable bytes each) x panel p; K4 a multiple of 16 */
CT__QO_AMX_FN static void ct__qo_amx_tile(const uint8_t *a, int64_t lda, const int8_t *p, int64_t K4, int32_t *acc, int nq) {
    int64_t nkb = K4 / 16;
    _tile_zero(0);
    if (nq > 1) _tile_zero(1);
    if (nq > 2) _tile_zero(2);
    if (nq > 2) _tile_zero(3);
    /* one block of k-groups: A in tile TA, the panel's four 16-column B tiles in TB, TC
       (tile numbers are immediates, hence a macro); nq (1, 2 or 4): the 16-column
       quarters the panel uses (the rest of acc is not written) */
#  define CT__QO_AMX_BLOCK(TA, TB, TC, ap, bp) \
    do {                                       \
        _tile_loadd(TA, ap, lda);              \
        _tile_loadd(TB, bp, 256);              \
        if (nq > 1) _tile_loadd(TC, (bp) + 64, 256); \
        _tile_dpbusd(0, TA, TB);               \
        if (nq > 1) _tile_dpbusd(1, TA, TC);   \
        if (nq > 2) {                          \
            _tile_loadd(TB, (bp) + 128, 256);  \
            _tile_loadd(TC, (bp) + 192, 256);  \
            _tile_dpbusd(2, TA, TB);           \
            _tile_dpbusd(3, TA, TC);           \
        }                                      \
    } while (0)
    int64_t kb = 0;
    for (; kb + 2 <= nkb; kb += 2) {
        CT__QO_AMX_BLOCK(4, 6, 7, a + kb * 64, p + kb * 16 * 4 * CT__QG_NP);
        CT__QO_AMX_BLOCK(5, 6, 7, a + kb * 64 + 64, p + (kb + 1) * 16 * 4 * CT__QG_NP);
    }
    if (kb < nkb) CT__QO_AMX_BLOCK(4, 6, 7, a + kb * 64, p + kb * 16 * 4 * CT__QG_NP);
#  undef CT__QO_AMX_BLOCK
    _tile_stored(0, acc, 4 * CT__QG_NP);
    if (nq > 1) _tile_stored(1, acc + 16, 4 * CT__QG_NP);
    if (nq > 2) _tile_stored(2, acc + 32, 4 * CT__QG_NP);
    if (nq > 2) _tile_stored(3, acc + 48, 4 * CT__QG_NP);
}
#endif
/* Tasks [lo, hi): task t is (pixel block, group, chunk of npc panels), t = (b G + g)
   ntc + chunk. A block's A rows (its pixels' im2col rows, or x's rows for the direct
   1x1 conv) are made once for its consecutive tasks; each panel runs the int8 GEMM's
   tile kernel over MR-row tiles, requantized straight into the NHWC output. */
static void ct__qo_conv_run(void *ctx, int64_t lo, int64_t hi) {
    ct__qo_conv_job *j = (ct__qo_conv_job *)ctx;
    const int64_t K = j->K, K4 = (K + 63) / 64 * 16, base = j->M / j->nmb, rem = j->M % j->nmb, mbmax = base + (rem > 0);
    /* AMX: tiles of 16 rows, each readable to 4 K4 bytes: im2col rows that far apart
       (zero-padded), whole tiles of rows (the direct conv's last partial tile copied) */
    const int amx = j->amx, tm = amx ? 16 : CT__QG_MR;
    const int64_t la = amx ? 4 * K4 : K, crows = amx ? (j->direct ? 16 : (mbmax + 15) / 16 * 16) : (j->direct ? 0 : mbmax);
    uint8_t *col = NULL;
    int32_t *xs = NULL;
    if (crows || j->any_zw) {
        xs = (int32_t *)CT_MALLOC((size_t)mbmax * sizeof(int32_t) + (size_t)(crows * la) + 32);
        if (!xs) {
            CT__STORE(&j->failed, 1);
            return;
        }
        col = (uint8_t *)(xs + mbmax);
        memset(col, 0, (size_t)(crows * la) + 32);
    }
    int32_t acc[16 * CT__QG_NP];
#ifdef CT__QO_AMX
    if (amx) ct__qo_amx_begin();
#endif
    int64_t have = -1;   /* the (block, group) whose rows col and xs hold */
    for (int64_t t = lo; t < hi; t++) {
        int64_t bg = t / j->ntc, b = bg / j->G, g = bg % j->G, chunk = t % j->ntc;
        int64_t m0 = b * base + (b < rem ? b : rem), rows = base + (b < rem);
        const uint8_t *a = j->direct ? j->x + m0 * j->C + g * j->Cg : col;
        int64_t lda = j->direct ? j->C : la;
        if (have != bg) {
            /* (image, row, column) of pixel m0, stepped along (no division per pixel) */
            int64_t pn = m0 / (j->OH * j->OW), poh = m0 / j->OW % j->OH, pow_ = m0 % j->OW;
            for (int64_t r = 0; r < rows; r++) {
                if (!j->direct) {
                    ct__qo_im2col(j, pn, poh, pow_, g, col + r * la);
                    if (++pow_ == j->OW && (pow_ = 0, ++poh == j->OH)) poh = 0, pn++;
                }
                if (j->any_zw) {
                    int32_t s = 0;
                    for (int64_t k = 0; k < K; k++) s += a[r * lda + k];
                    xs[r] = s;
                }
            }
            if (amx && j->direct && rows % 16)   /* the last partial tile's rows, zero-padded to whole ones */
                for (int64_t r = rows / 16 * 16; r < rows; r++) memcpy(col + (r % 16) * la, a + r * lda, (size_t)K);
            have = bg;
        }
        /* the block's rows split evenly over its tiles (32 rows with MR 6: 6 6 5 5 5 5) */
        int64_t nt = (rows + tm - 1) / tm, tb = amx ? 16 : rows / nt, tr = amx ? 0 : rows % nt;
        int64_t p1 = (chunk + 1) * j->npc < j->npg ? (chunk + 1) * j->npc : j->npg;
        for (int64_t p = chunk * j->npc; p < p1; p++) {
            int64_t n0 = p * CT__QG_NP, nr = j->Og - n0 < CT__QG_NP ? j->Og - n0 : CT__QG_NP, o0 = g * j->Og + n0;
            const int8_t *pp = j->pk + (g * j->npg + p) * K4 * 4 * CT__QG_NP;
            for (int64_t i = 0, r0 = 0; i < nt; i++) {
                int mr = (int)(tb + (i < tr));
                mr = mr < rows - r0 ? mr : (int)(rows - r0);
#ifdef CT__QO_AMX
                if (amx) {
                    int part = j->direct && mr < 16;
                    ct__qo_amx_tile(part ? col : a + r0 * lda, part ? la : lda, pp, K4, acc, nr <= 16 ? 1 : nr <= 32 ? 2 : 4);
                } else
#endif
                    ct__qg_tile(j->path, a + r0 * lda, lda, mr, pp, K, acc, j->wsum + o0, nr);
#if defined(CT__QG_X86) && !(defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0)
                if (j->path == CT_Q_GEMM_AVX512_VNNI && !j->any_zw && K < 32768)
                    ct__qo_requant_rows_avx512(mr, nr, acc, CT__QG_NP, j->czw + o0, j->mult + o0, j->bias + o0, j->inv_so, (float)j->zo,
                                               j->relu ? (float)j->zo : 0.0f, j->y + (m0 + r0) * j->O + o0, j->O);
                else
#endif
                    for (int r = 0; r < mr; r++)
                        ct__qo_requant(j, o0, nr, acc + r * CT__QG_NP, xs ? xs + r0 + r : NULL, 0, j->y + (m0 + r0 + r) * j->O + o0);
                r0 += mr;
            }
        }
    }
#ifdef CT__QO_AMX
    if (amx) ct__qo_amx_end();
#endif
    CT_FREE(xs);
}
/* depthwise: acc[c] = sum over taps t of pt[t][c] w[t][c] for c < C; pt: [2 T2] rows of
   the taps' activations (a row of the zero point off the edges and for the odd tap's
   partner), w the int16 pairs */
static void ct__qo_dw_c(const uint8_t *const *pt, int64_t T2, const int16_t *w, int64_t c0, int64_t C, int32_t *acc) {
    for (int64_t c = c0; c < C; c++) acc[c] = 0;
    for (int64_t tp = 0; tp < T2; tp++) {
        const uint8_t *x0 = pt[2 * tp], *x1 = pt[2 * tp + 1];
        const int16_t *wp = w + tp * C * 2;
        for (int64_t c = c0; c < C; c++) acc[c] += x0[c] * wp[2 * c] + x1[c] * wp[2 * c + 1];
    }
}
#ifdef CT__QG_X86
/* AVX2: 16 channels at a time; two taps' codes interleaved (vpunpck*bw) and widened
   to int16 meet the int16 weight pairs in vpmaddwd (exact: |x w| < 2^15) */
CT__QG_AVX2_FN static void ct__qo_dw_avx2(const uint8_t *const *pt, int64_t T2, const int16_t *w, int64_t C, int32_t *acc) {
    int64_t c = 0;
    for (; c + 16 <= C; c += 16) {
        __m256i a0 = _mm256_setzero_si256(), a1 = _mm256_setzero_si256();
        for (int64_t tp = 0; tp < T2; tp++) {
            __m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)(pt[2 * tp] + c));
            __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(pt[2 * tp + 1] + c));
            const int16_t *wp = w + (tp * C + c) * 2;
            __m256i l = _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(x0, x1)), h = _mm256_cvtepu8_epi16(_mm_unpackhi_epi8(x0, x1));
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(l, _mm256_loadu_si256((const __m256i *)(const void *)wp)));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(h, _mm256_loadu_si256((const __m256i *)(const void *)(wp + 16))));
        }
        _mm256_storeu_si256((__m256i *)(void *)(acc + c), a0);
        _mm256_storeu_si256((__m256i *)(void *)(acc + c + 8), a1);
    }
    if (c < C) ct__qo_dw_c(pt, T2, w, c, C, acc);
}
#endif
#ifdef CT__QG_X86
/* AVX-512 VNNI: one output row at a time, 32 channels a block, the block's weights
   loaded once for the row. Two taps' 32 codes interleaved (vpunpck*bw: channels 0-7
   and 16-23 in the low half, 8-15 and 24-31 in the high one) and widened to int16
   meet the weight pairs permuted alike in vpdpwssd (exact: |x w| < 2^15, a pair's sum
   < 2^16, T of them far from 2^31); the sums are put back in channel order when
   stored. Channels past C: masked loads (zeros) and stores. pt: the row's pixels' tap
   pointers, [OW][2 T2]; acc: [OW][C]. */
CT__QG_VNNI_FN static void ct__qo_dw_avx512(const uint8_t *const *pt, int64_t OW, int64_t T2, const int16_t *w, int64_t C, int32_t *acc) {
    const __m512i plo = _mm512_set_epi32(23, 22, 21, 20, 19, 18, 17, 16, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i phi = _mm512_set_epi32(31, 30, 29, 28, 27, 26, 25, 24, 15, 14, 13, 12, 11, 10, 9, 8);
    __m512i wl[13], wh[13];
    for (int64_t c0 = 0; c0 < C; c0 += 32) {
        const int64_t nc = C - c0 < 32 ? C - c0 : 32;
        const __mmask32 mb = nc == 32 ? ~(__mmask32)0 : ((__mmask32)1 << nc) - 1;
        const __mmask16 m0 = ct__qo_mask16(nc), m1 = nc <= 16 ? 0 : ct__qo_mask16(nc - 16);
        /* weights of up to 13 tap pairs in registers; more pairs (7x7 kernels) in chunks */
        for (int64_t tq = 0; tq < T2; tq += 13) {
            const int64_t nt = T2 - tq < 13 ? T2 - tq : 13;
            for (int64_t k = 0; k < nt; k++) {
                const int16_t *wp = w + ((tq + k) * C + c0) * 2;
                __m512i a = _mm512_maskz_loadu_epi32(m0, (const void *)wp), b = _mm512_maskz_loadu_epi32(m1, (const void *)(wp + 32));
                wl[k] = _mm512_permutex2var_epi32(a, plo, b);
                wh[k] = _mm512_permutex2var_epi32(a, phi, b);
            }
            for (int64_t ow = 0; ow < OW; ow++) {
                const uint8_t *const *pp = pt + ow * 2 * T2 + 2 * tq;
                int32_t *ac = acc + ow * C + c0;
                __m512i sl, sh;
                if (tq == 0) {
                    sl = _mm512_setzero_si512();
                    sh = _mm512_setzero_si512();
                } else {   /* continue the chunk before (stored in channel order) */
                    __m512i a = _mm512_maskz_loadu_epi32(m0, (const void *)ac), b = _mm512_maskz_loadu_epi32(m1, (const void *)(ac + 16));
                    sl = _mm512_permutex2var_epi32(a, plo, b);
                    sh = _mm512_permutex2var_epi32(a, phi, b);
                }
                for (int64_t k = 0; k < nt; k++) {
                    __m256i x0 = _mm256_maskz_loadu_epi8(mb, (const void *)(pp[2 * k] + c0));
                    __m256i x1 = _mm256_maskz_loadu_epi8(mb, (const void *)(pp[2 * k + 1] + c0));
                    sl = _mm512_dpwssd_epi32(sl, _mm512_cvtepu8_epi16(_mm256_unpacklo_epi8(x0, x1)), wl[k]);
                    sh = _mm512_dpwssd_epi32(sh, _mm512_cvtepu8_epi16(_mm256_unpackhi_epi8(x0, x1)), wh[k]);
                }
                _mm512_mask_storeu_epi32((void *)ac, m0, _mm512_permutex2var_epi32(sl, plo, sh));
                _mm512_mask_storeu_epi32((void *)(ac + 16), m1, _mm512_permutex2var_epi32(sl, phi, sh));
            }
        }
    }
}
#endif
/* rows [lo, hi) of the N * OH output rows */
static void ct__qo_dwconv_run(void *ctx, int64_t lo, int64_t hi) {
    ct__qo_conv_job *j = (ct__qo_conv_job *)ctx;
    const int64_t C = j->C, T = j->K, T2 = (T + 1) / 2, OW = j->OW;
    const int16_t *w = (const int16_t *)(const void *)j->pk;
    /* a row's tap pointers [OW][2 T2], the taps' offsets [T], the sums [OW][C], xs [C], the zero row [C] */
    const uint8_t **pt = (const uint8_t **)CT_MALLOC((size_t)(OW * 2 * T2) * sizeof(uint8_t *) + (size_t)T * sizeof(int64_t) +
                                                     (size_t)(OW * C + C) * sizeof(int32_t) + (size_t)C);
    if (!pt) {
        CT__STORE(&j->failed, 1);
        return;
    }
    int64_t *off = (int64_t *)(void *)(pt + OW * 2 * T2);   /* the taps' offsets from the window's corner, inside x */
    int32_t *acc = (int32_t *)(void *)(off + T), *xs = acc + OW * C;
    for (int64_t t = 0; t < T; t++) off[t] = ((t / j->kw) * j->dh * j->W + (t % j->kw) * j->dw) * C;
    uint8_t *zrow = (uint8_t *)(xs + C);
    memset(zrow, (int)j->zx, (size_t)C);
    for (int64_t ow = 0; ow < OW; ow++) pt[ow * 2 * T2 + 2 * T2 - 1] = zrow;   /* the odd tap's partner (weight 0) */
#ifdef CT__QG_X86
    const int v512 = j->path == CT_Q_GEMM_AVX512_VNNI;   /* (the path needs AVX-512 VL too) */
#endif
    for (int64_t row = lo; row < hi; row++) {
        int64_t n = row / j->OH, oh = row % j->OH;
        int64_t h0 = oh * j->sh - j->ph;
        int hin = h0 >= 0 && h0 + (j->kh - 1) * j->dh < j->H;
        for (int64_t ow = 0; ow < OW; ow++) {
            int64_t w0 = ow * j->sw - j->pw;
            const uint8_t **p = pt + ow * 2 * T2;
            if (hin && w0 >= 0 && w0 + (j->kw - 1) * j->dw < j->W) {
                const uint8_t *xb = j->x + ((n * j->H + h0) * j->W + w0) * C;
                for (int64_t t = 0; t < T; t++) p[t] = xb + off[t];
            } else
                for (int64_t i = 0; i < j->kh; i++) {
                    int64_t h = h0 + i * j->dh;
                    for (int64_t k = 0; k < j->kw; k++) {
                        int64_t ww = w0 + k * j->dw;
                        p[i * j->kw + k] = h < 0 || h >= j->H || ww < 0 || ww >= j->W ? zrow : j->x + ((n * j->H + h) * j->W + ww) * C;
                    }
                }
        }
#ifdef CT__QG_X86
        if (v512) ct__qo_dw_avx512(pt, OW, T2, w, C, acc);
        else if (j->path == CT_Q_GEMM_AVX2 || j->path == CT_Q_GEMM_AVX512_VNNI)
            for (int64_t ow = 0; ow < OW; ow++) ct__qo_dw_avx2(pt + ow * 2 * T2, T2, w, C, acc + ow * C);
        else
#endif
            for (int64_t ow = 0; ow < OW; ow++) ct__qo_dw_c(pt + ow * 2 * T2, T2, w, 0, C, acc + ow * C);
        for (int64_t ow = 0; ow < OW; ow++) {
            const uint8_t *const *p = pt + ow * 2 * T2;
            if (j->any_zw)
                for (int64_t c = 0; c < C; c++) {
                    int32_t s = 0;
                    for (int64_t t = 0; t < T; t++) s += p[t][c];
                    xs[c] = s;
                }
            ct__qo_requant(j, 0, C, acc + ow * C, xs, 1, j->y + ((n * j->OH + oh) * OW + ow) * C);
        }
    }
    CT_FREE(pt);
}
/* inputs (x, w[, bias][, packed, wsum]): the packed form when ct_q_conv2d_prepack made
   it (see ct__qo_conv), else packed here per call */
/* NCHW bytes to NHWC (the float model's input after the QuantStub): tiles of 16
   channels x 64 pixels, read along the pixels, written along the channels */
static void ct__qo_to_nhwc(const uint8_t *CT_RESTRICT x, uint8_t *CT_RESTRICT y, int64_t N, int64_t C, int64_t P) {
    for (int64_t n = 0; n < N; n++, x += C * P, y += C * P)
        for (int64_t p0 = 0; p0 < P; p0 += 64) {
            const int64_t p1 = p0 + 64 < P ? p0 + 64 : P;
            for (int64_t c0 = 0; c0 < C; c0 += 16) {
                const int64_t c1 = c0 + 16 < C ? c0 + 16 : C;
                if (C == 3)
                    for (int64_t p = p0; p < p1; p++) {
                        y[p * 3] = x[p];
                        y[p * 3 + 1] = x[P + p];
                        y[p * 3 + 2] = x[2 * P + p];
                    }
                else
                    for (int64_t p = p0; p < p1; p++)
                        for (int64_t c = c0; c < c1; c++) y[p * C + c] = x[c * P + p];
            }
        }
}
static int ct__qo_k_conv(ct__call *c) {
    const char *op = ct__opdef_get(c->op)->sname;
    const ct__attrs *a = c->a;
    const ct_tensor *x = c->in[0], *w = c->in[1], *b = c->nin == 3 || c->nin == 5 ? c->in[2] : NULL;
    const ct_tensor *pkt = c->nin >= 4 ? c->in[c->nin - 2] : NULL, *wst = c->nin >= 4 ? c->in[c->nin - 1] : NULL;
    ct_tensor *y = c->out[0];
    ct__qo_conv_job j;
    memset(&j, 0, sizeof j);
    j.N = x->shape[0]; j.C = x->shape[1]; j.H = x->shape[2]; j.W = x->shape[3];
    j.O = w->shape[0]; j.Cg = w->shape[1]; j.kh = w->shape[2]; j.kw = w->shape[3];
    j.OH = y->shape[2]; j.OW = y->shape[3];
    j.sh = a->v[0]; j.sw = a->v[1]; j.ph = a->v[2]; j.pw = a->v[3]; j.dh = a->v[4]; j.dw = a->v[5];
    j.G = a->i[1]; j.Og = j.O / j.G; j.K = j.kh * j.kw * j.Cg;
    j.zx = (int32_t)x->qparams->zero_point;
    j.zo = a->i[0];
    j.inv_so = 1.0f / (float)a->s[0];
    j.relu = c->op == CT__QOP(QCONV2D_RELU);
    j.path = (int)ct_q_gemm_path_used();
    const int dw = j.Cg == 1 && j.Og == 1;
    if (ct_numel(y) == 0) return ct__qo_set_params(y, NULL, a->s[0], a->i[0]);
    /* NHWC codes of x (a view when x already is) */
    int64_t st[4], plen = pkt ? 0 : ct__qo_conv_pklen(j.O, j.G, j.K, dw);
    ct_tensor *xa = ct__qo_codes(x), *xc = NULL, *wc = pkt ? NULL : ct__qo_conv_wcodes(w), *bc = b ? ct__contig_ref(b) : NULL;
    int rc = 0;
    if (xa) {
        if (ct_is_channels_last(xa)) xc = ct__incref(xa);
        else if (ct__cl_strides(xa->shape, st), (xc = ct__alloc(CT_UINT8, 4, xa->shape, st, ct__cpu_dev)) == NULL) rc = -1;
        else if (ct__is_contig(xa)) ct__qo_to_nhwc((const uint8_t *)ct__ptr(xa), (uint8_t *)ct__ptr(xc), j.N, j.C, j.H * j.W);
        else if (ct__copy_into(xc, xa)) rc = -1;
    }
    /* per call: mult, bias, czw, zw [O] (they depend on x's parameters), and the packing without a packed weight */
    float *f = (float *)CT_MALLOC((size_t)j.O * 4 * sizeof(float) + (size_t)(pkt ? 0 : plen + j.O * (int64_t)sizeof(int32_t)));
    if (!rc && (!xa || !xc || (!pkt && !wc) || (b && !bc) || !f)) rc = ct__failed(CT_ERR_MEMORY, "%s: out of memory", op);
    if (!rc) {
        const ct_qparams *wq = w->qparams;
        double sx = x->qparams->scale;
        float *mult = f, *bias = f + j.O;
        int32_t *czw = (int32_t *)(void *)(f + 2 * j.O), *zw = czw + j.O, *wsum;
        if (pkt) {
            j.pk = (const int8_t *)ct__ptr(pkt);
            wsum = (int32_t *)ct__ptr(wst);
            /* sums of K int8 codes lie in [-128 K, 127 K]; other values did not come from
               ct_q_conv2d_prepack (and would overflow the int32 corrections) */
            for (int64_t o = 0; o < j.O && !rc; o++)
                if (wsum[o] < -128 * j.K || wsum[o] > 127 * j.K)
                    rc = ct__failed(CT_ERR_ARG, "%s: the packed weight's sums are not its weight's (sum %lld for output channel %lld of %lld taps); "
                                    "pack it with ct_q_conv2d_prepack", op, (long long)wsum[o], (long long)o, (long long)j.K);
        } else {
            wsum = (int32_t *)(void *)(f + 4 * j.O);
            ct__qo_conv_pack((const int8_t *)ct__ptr(wc), j.O, j.G, j.K, dw, (int8_t *)(wsum + j.O), wsum);
            j.pk = (const int8_t *)(wsum + j.O);
        }
        for (int64_t o = 0; o < j.O && !rc; o++) {
            double sw = wq->nchannels ? wq->scales[o] : wq->scale;
            zw[o] = (int32_t)(wq->nchannels ? wq->zero_points[o] : wq->zero_point);
            j.any_zw |= zw[o] != 0;
            mult[o] = (float)(sx * sw);
            czw[o] = j.K < 32768 ? -j.zx * wsum[o] : 0;
            bias[o] = bc ? ((const float *)ct__ptr(bc))[o] : 0.0f;
        }
        j.x = (const uint8_t *)ct__ptr(xc);
        j.y = (uint8_t *)ct__ptr(y);
        j.bias = bias;
        j.mult = mult;
        j.wsum = wsum;
        j.czw = czw;
        j.zw = zw;
        if (rc) {
            /* inconsistent packed sums: nothing runs */
        } else if (dw) {
            ct__nn_par_for(j.N * j.OH, 1, ct__qo_dwconv_run, &j);
        } else {
            /* blocks of about 48 pixels (8 tiles); with few blocks (late layers, batch 1)
               the panels are split too, so that every thread gets work */
            int64_t nth = ct_get_num_threads(), ntask;
            j.direct = j.kh == 1 && j.kw == 1 && j.sh == 1 && j.sw == 1 && j.ph == 0 && j.pw == 0;
#ifdef CT__QO_AMX
            /* AMX rows read 64 ceil(K / 64) bytes: the direct conv's rows only when K is a multiple of 64 */
            j.amx = j.path == CT_Q_GEMM_AVX512_VNNI && !ct__qg_forced && ct__qo_amx_ok() && (!j.direct || j.K % 64 == 0);
#endif
            j.M = j.N * j.OH * j.OW;
            j.nmb = (j.M + 47) / 48;
            j.npg = (j.Og + CT__QG_NP - 1) / CT__QG_NP;
            j.ntc = j.nmb * j.G >= 2 * nth ? 1 : (2 * nth + j.nmb * j.G - 1) / (j.nmb * j.G);
            j.ntc = j.ntc < j.npg ? j.ntc : j.npg;
            j.npc = (j.npg + j.ntc - 1) / j.ntc;
            j.ntc = (j.npg + j.npc - 1) / j.npc;
            ntask = j.nmb * j.G * j.ntc;
            ct__nn_par_for(ntask, 1, ct__qo_conv_run, &j);
        }
        if (CT__LOAD(&j.failed)) rc = ct__failed(CT_ERR_MEMORY, "%s: out of memory", op);
    }
    CT_FREE(f);
    if (xa) ct__decref(xa);
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
/* Packs p->weight into p->packed and p->weight_sums (allocated) and notes the weight's
   version. 0, or -1 with the error set. */
static int ct__qo_conv_repack(ct_q_conv_packed *p) {
    const ct_tensor *w = p->weight;
    int64_t O = w->shape[0], K = w->shape[1] * w->shape[2] * w->shape[3];
    ct_tensor *codes = ct__qo_conv_wcodes(w);
    if (!codes) return -1;
    ct__qo_conv_pack((const int8_t *)ct__ptr(codes), O, p->groups, K, w->shape[1] == 1 && O == p->groups, (int8_t *)ct__ptr(p->packed),
                     (int32_t *)ct__ptr(p->weight_sums));
    p->version = ct_version(w);
    ct__decref(codes);
    return 0;
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
    int64_t O = weight->shape[0], K = weight->shape[1] * weight->shape[2] * weight->shape[3];
    int64_t plen = ct__qo_conv_pklen(O, G, K, weight->shape[1] == 1 && O == G);
    ct_tensor *pk = wc ? ct_empty_n(CT_INT8, 1, &plen) : NULL, *ws = pk ? ct_empty_n(CT_INT32, 1, &O) : NULL;
    p->groups = G;
    if (ws && (!bias || bc)) {
        p->weight = ct_retain(wc);
        p->bias = bc ? ct_retain(bc) : NULL;
        p->packed = ct_retain(pk);
        p->weight_sums = ct_retain(ws);
    }
    ct_scope_end(s);
    if (p->weight && ct__qo_conv_repack(p)) {
        ct_q_conv_packed_free(p);
        return NULL;
    }
    if (!p->weight) {
        ct_q_conv_packed_free(p);
        return NULL;
    }
    for (int q = 0; q < 2; q++) { p->stride[q] = st[q]; p->padding[q] = pd[q]; p->dilation[q] = dl[q]; }
    return p;
}
CTENSOR_API void ct_q_conv_packed_free(ct_q_conv_packed *p) {
    if (!p) return;
    if (p->weight) ct_release(p->weight);
    if (p->bias) ct_release(p->bias);
    if (p->packed) ct_release(p->packed);
    if (p->weight_sums) ct_release(p->weight_sums);
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
    /* the packing travels as two more inputs while it matches the weight */
    ct_tensor *in[5] = {(ct_tensor *)x, p->weight, p->bias, NULL, NULL};
    int n = p->bias ? 3 : 2;
    if (p->packed && p->weight_sums && ct_version(p->weight) == p->version) {
        in[n++] = p->packed;
        in[n++] = p->weight_sums;
    }
    return ct__q_call(op, n, in, &a);
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
    /* PyTorch's module calls Tensor.dequantize(), which gives a tensor that is not
       quantized as float32 (self.to(torch.float)): a layer kept float before it */
    return CT__DT_QUANT(in[0]->dtype) ? ct_dequantize(in[0]) : ct_to(in[0], CT_FLOAT32);
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
    /* a weight changed in place since it was packed (load_state_dict copies into it): packed again, once */
    if (c->p->packed && ct_version(c->p->weight) != c->p->version && ct__qo_conv_repack(c->p)) return NULL;
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


/* ============================================================================
   FloatFunctional, quantized hardswish and hardsigmoid: implementation
   ========================================================================== */
/* ---- quantized::add_scalar / mul_scalar / hardswish and aten::hardsigmoid on
   quantized input: one input, the output dense in the input's layout. The codes are
   first copied into the output (any input strides), then rewritten in place. ---- */
static int ct__qa_meta(ct__call *c) {
    const char *op = c->op >= 0 ? ct__opdef_get(c->op)->sname : "quantized op";
    const ct_tensor *x = c->in[0];
    if (ct__qo_check_qt(op, x, 0)) return -1;
    if (c->inplace) return ct__failed(CT_ERR_UNSUPPORTED, "%s_: the in-place form has no quantized kernel; use %s", op, op);
    const int is_scalar = c->op == CT__QOP(QADD_SCALAR) || c->op == CT__QOP(QMUL_SCALAR);
    if (is_scalar && x->dtype == CT_QINT32)
        return ct__failed(CT_ERR_DTYPE, "%s: expected a quint8 or qint8 input, got qint32", op);
    if (is_scalar && !isfinite(c->a->s[0])) return ct__failed(CT_ERR_ARG, "%s: the scalar must be finite, got %g", op, c->a->s[0]);
    /* add_scalar's shift round(c / scale) goes to PyTorch's kernel as an int32 (Scalar::to<int32_t>,
       which refuses larger values) */
    if (c->op == CT__QOP(QADD_SCALAR) && !(fabs(nearbyint(c->a->s[0] / x->qparams->scale)) <= 2147483647.0))
        return ct__failed(CT_ERR_ARG, "%s: value cannot be converted to type int32_t without overflow (the scalar %g is %g steps of the input's scale %g)",
                          op, c->a->s[0], nearbyint(c->a->s[0] / x->qparams->scale), x->qparams->scale);
    if (c->op == CT__QOP(QHARDSWISH) && ct__q_check_params(op, c->a->s[0], c->a->i[0], x->dtype, -1)) return -1;
    ct__outinfo *o = ct__out_new(c, x->dtype, x->ndim, x->shape);
    ct__layout_like(o, 1, c->in);
    return 0;
}
/* y's codes = x's codes (y dense); returns y's code pointer (NULL: failed) */
static char *ct__qa_copy_codes(ct_tensor *y, const ct_tensor *x) {
    ct_tensor *ya = ct__qo_codes(y), *xa = ct__qo_codes(x);
    int rc = !ya || !xa ? ct__failed(CT_ERR_MEMORY, "quantized op: out of memory") : ct__copy_into(ya, xa);
    if (ya) ct__decref(ya);
    if (xa) ct__decref(xa);
    return rc ? NULL : (char *)ct__ptr(y);
}
#ifdef CT__QG_X86
/* v[e] = lut[u[e]] 64 bytes at a time: two 128-entry vpermi2b lookups, the code's
   top bit picks one (AVX-512 VBMI; u may be v) */
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static void ct__qa_lut_vbmi(const uint8_t *lut, const uint8_t *u, uint8_t *v, int64_t n) {
    const __m512i t0 = _mm512_loadu_si512((const void *)lut), t1 = _mm512_loadu_si512((const void *)(lut + 64));
    const __m512i t2 = _mm512_loadu_si512((const void *)(lut + 128)), t3 = _mm512_loadu_si512((const void *)(lut + 192));
    int64_t e = 0;
    for (; e < n; e += 64) {
        const __mmask64 m = n - e >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (n - e)) - 1;
        const __m512i i = _mm512_maskz_loadu_epi8(m, (const void *)(u + e));
        const __m512i lo = _mm512_permutex2var_epi8(t0, i, t1), hi = _mm512_permutex2var_epi8(t2, i, t3);
        _mm512_mask_storeu_epi8((void *)(v + e), m, _mm512_mask_blend_epi8(_mm512_movepi8_mask(i), lo, hi));
    }
}
#endif
/* The n codes at src, mapped through f, to p (src may be p; 8-bit dtypes: through a
   256-entry table made once). */
static void ct__qa_map_from(char *p, const char *src, int64_t n, ct_dtype dt, int64_t (*f)(int64_t q, const void *ctx), const void *ctx) {
    if (dt == CT_QINT32) {
        int32_t *v = (int32_t *)p;
        const int32_t *u = (const int32_t *)src;
        for (int64_t e = 0; e < n; e++) v[e] = (int32_t)f(u[e], ctx);
        return;
    }
    uint8_t lut[256];
    for (int q = 0; q < 256; q++) lut[q] = (uint8_t)f(dt == CT_QINT8 ? (int64_t)(int8_t)(uint8_t)q : (int64_t)q, ctx);
    uint8_t *v = (uint8_t *)p;
    const uint8_t *u = (const uint8_t *)src;
#ifdef CT__QG_X86
    if (n >= 64 && !ct__qg_forced && __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw")) {
        ct__qa_lut_vbmi(lut, u, v, n);
        return;
    }
#endif
    for (int64_t e = 0; e < n; e++) v[e] = lut[u[e]];
}
static void ct__qa_map(char *p, int64_t n, ct_dtype dt, int64_t (*f)(int64_t q, const void *ctx), const void *ctx) {
    ct__qa_map_from(p, p, n, dt, f, ctx);
}
typedef struct {
    float sx, inv_so, mult;
    int64_t zx, zo, qmin, qmax, shift;
    int kind;   /* 0 hardswish, 1 hardsigmoid, 2 requantize (add_scalar), 3 mirror (mul_scalar < 0) */
} ct__qa_ctx;
static int64_t ct__qa_one(int64_t q, const void *ctx) {
    const ct__qa_ctx *k = (const ct__qa_ctx *)ctx;
    if (k->kind == 3) return k->qmax + k->qmin - q;
    if (k->kind == 2) {   /* PyTorch's requantize_from_int(s / s', z', q - z + c_q): lrintf of a float product */
        float t = nearbyintf((float)(q - k->zx + k->shift) * k->mult);
        int64_t v = k->zo + (int64_t)t;
        return v < k->qmin ? k->qmin : v > k->qmax ? k->qmax : v;
    }
    float x = (float)(q - k->zx) * k->sx, r = x + 3.0f;
    r = r > 0.0f ? (r < 6.0f ? r : 6.0f) : 0.0f;
    float y = k->kind == 0 ? x * r / 6.0f : r / 6.0f;
    return ct__q_round(y, k->inv_so, k->zo, k->qmin, k->qmax);
}
/* hardswish (output parameters given) and hardsigmoid (PyTorch's fixed ones) */
static int ct__qa_k_lut(ct__call *c) {
    const ct_tensor *x = c->in[0];
    ct_tensor *y = c->out[0];
    ct__qa_ctx k;
    memset(&k, 0, sizeof k);
    k.kind = c->op == CT__QOP(QHARDSWISH) ? 0 : 1;
    double so = k.kind == 0 ? c->a->s[0] : x->dtype == CT_QINT32 ? 1.0 / 4294967296.0 : 1.0 / 256.0;
    k.zo = k.kind == 0 ? c->a->i[0] : x->dtype == CT_QINT8 ? -128 : 0;
    k.sx = (float)x->qparams->scale;
    k.zx = x->qparams->zero_point;
    k.inv_so = 1.0f / (float)so;
    ct_qdtype_range(x->dtype, &k.qmin, &k.qmax);
    if (ct__is_dense(x) && !memcmp(x->strides, y->strides, sizeof(int64_t) * (size_t)x->ndim)) {   /* one pass, x to y */
        ct__qa_map_from((char *)ct__ptr(y), (const char *)ct__ptr(x), ct_numel(y), x->dtype, ct__qa_one, &k);
    } else {
        char *p = ct__qa_copy_codes(y, x);
        if (!p) return -1;
        ct__qa_map(p, ct_numel(y), x->dtype, ct__qa_one, &k);
    }
    return ct__qo_set_params(y, NULL, so, k.zo);
}
/* add_scalar / mul_scalar: PyTorch's output parameters (qadd.cpp, qmul.cpp) */
static int ct__qa_k_scalar(ct__call *c) {
    const ct_tensor *x = c->in[0];
    ct_tensor *y = c->out[0];
    const double s = x->qparams->scale, cv = c->a->s[0];
    const int64_t z = x->qparams->zero_point;
    ct__qa_ctx k;
    memset(&k, 0, sizeof k);
    ct_qdtype_range(x->dtype, &k.qmin, &k.qmax);
    double so = s;
    int64_t zo = z;
    int map = 0;
    char *p = ct__qa_copy_codes(y, x);
    if (!p) return -1;
    if (c->op == CT__QOP(QADD_SCALAR)) {
        int64_t cq = (int64_t)nearbyint(cv / s);
        if (k.qmin > z - cq || k.qmax < z - cq) {
            const int low = k.qmin > z - cq;
            so = (low ? (double)k.qmax - (double)(z - cq) : (double)(z - cq) - (double)k.qmin) / ((double)k.qmax - (double)k.qmin) * s;
            zo = low ? k.qmin : k.qmax;
            k.kind = 2;
            k.zx = z;
            k.shift = cq;
            k.zo = zo;
            k.mult = (float)s * (1.0f / (float)so);
            map = 1;
        } else
            zo = z - cq;
    } else if (cv > 0.0) {
        so = cv * s;
    } else if (cv == 0.0) {
        so = 1.0;
        zo = 0;
        memset(p, 0, (size_t)ct_numel(y) * ct_dtype_size(y->dtype));
    } else {
        so = -cv * s;
        zo = k.qmax - (z - k.qmin);
        k.kind = 3;
        map = 1;
    }
    if (map) ct__qa_map(p, ct_numel(y), x->dtype, ct__qa_one, &k);
    return ct__qo_set_params(y, NULL, so, zo);
}
/* ---- copy_ (ct_copy_, and so ct_module_load_state_dict) into a quantized tensor: the
   source's codes and parameters, as PyTorch's copy_ between quantized tensors (which
   sets the destination's quantizer to the source's) ---- */
static int ct__qa_meta_copy(ct__call *c) {
    const ct_tensor *dst = c->in[0], *src = c->in[1];
    if (!CT__DT_QUANT(dst->dtype))
        return ct__failed(CT_ERR_DTYPE, "copy_: Copying from quantized Tensor to non-quantized Tensor is not allowed, please use dequantize "
                          "to get a float Tensor from a quantized Tensor (ct_dequantize)");
    if (!CT__DT_QUANT(src->dtype))
        return ct__failed(CT_ERR_DTYPE, "copy_: copying a %s tensor into a quantized one is not supported here; quantize it "
                          "(ct_quantize_per_tensor / ct_quantize_per_channel) and copy that", CT__DTNAME(src->dtype));
    if (src->dtype != dst->dtype)
        return ct__failed(CT_ERR_DTYPE, "copy_: Quantized Copy only works with the same quantized dtype (destination %s, source %s)",
                          CT__DTNAME(dst->dtype), CT__DTNAME(src->dtype));
    if (!src->qparams) return ct__failed(CT_ERR_STATE, "copy_: the source is quantized but has no quantization parameters");
    if (!ct_same_shape(dst, src))
        return ct__failed(CT_ERR_SHAPE, "copy_: a quantized copy needs equal shapes (destination %s, source %s)", CT__SHAPE(dst), CT__SHAPE(src));
    return ct__meta_inplace_self(c);
}
static int ct__qa_k_copy(ct__call *c) {
    ct_tensor *dst = c->in[0];
    const ct_tensor *src = c->in[1];
    ct_tensor *da = ct__qo_codes(dst), *sa = ct__qo_codes(src), *tmp = NULL;
    int rc = !da || !sa ? ct__failed(CT_ERR_MEMORY, "copy_: out of memory") : 0;
    if (!rc && src->storage == dst->storage) rc = (tmp = ct__clone_detached(sa)) ? 0 : -1;   /* overlapping: through a copy */
    if (!rc) rc = ct__copy_into(da, tmp ? tmp : sa);
    if (tmp) ct__decref(tmp);
    if (da) ct__decref(da);
    if (sa) ct__decref(sa);
    if (rc) return -1;
    return ct_set_qparams(dst, src->qparams) == CT_OK ? 0 : -1;
}
/* ---- FixedQParamsObserver / FixedQParamsFakeQuantize ---- */
static ct_tensor *ct__fqfix_obs_forward(ct_module *m, int nin, ct_tensor *const *in) {
    if (nin != 1) return ct__fail(CT_ERR_ARG, "%s: forward takes 1 input (got %d)", m->type->name, nin);
    return in[0];
}
static const ct_module_type ct__fqfix_obs_type = {"FixedQParamsObserver", ct__fqfix_obs_forward, NULL, NULL};
typedef struct ct__fqfix { ct_dtype dtype; int64_t quant_min, quant_max; } ct__fqfix;
static ct_tensor *ct__fqfix_forward(ct_module *m, int nin, ct_tensor *const *in) {
    if (nin != 1) return ct__fail(CT_ERR_ARG, "FixedQParamsFakeQuantize: forward takes 1 input (got %d)", nin);
    const ct__fqfix *f = (const ct__fqfix *)m->impl;
    ct_tensor *sc = ct__fqm_buf(m, "scale", NULL), *zp = ct__fqm_buf(m, "zero_point", NULL);
    if (!sc || !zp) return NULL;
    if (ct__fqm_flag(m, "observer_enabled") && m->nchildren > 0) {   /* the observer's (fixed) parameters */
        ct_module *ob = m->children[0].module;
        ct_tensor *os = ct_module_get(ob, "scale"), *oz = ct_module_get(ob, "zero_point");
        if (!os || !oz || !ct_copy_(sc, os) || !ct_copy_(zp, oz)) return NULL;
    }
    if (!ct__fqm_flag(m, "fake_quant_enabled")) return in[0];
    return ct_fake_quantize_per_tensor_affine(in[0], ct_item(sc), ct_item_int(zp), f->quant_min, f->quant_max);
}
static int ct__fqfix_repr(const ct_module *m, char *buf, size_t cap) {
    const ct__fqfix *f = (const ct__fqfix *)m->impl;
    char fe[64], oe[64], sc[200], zp[200];
    ct__fqm_buf_reprs((ct_module *)m, fe, oe, sc, zp);
    return snprintf(buf, cap, "fake_quant_enabled=%s, observer_enabled=%s, scale=%s, zero_point=%s, dtype=torch.%s, quant_min=%lld, quant_max=%lld, "
                    "qscheme=torch.per_tensor_affine", fe, oe, sc, zp, ct_dtype_name(f->dtype), (long long)f->quant_min, (long long)f->quant_max);
}
static const ct_module_type ct__fqfix_type = {"FixedQParamsFakeQuantize", ct__fqfix_forward, ct__qo_free_impl, ct__fqfix_repr};
/* scale [1] float32 and zero_point [1] int32 buffers */
static int ct__fqfix_qparams(ct_module *m, double scale, int64_t zero_point) {
    int64_t one = 1;
    float s = (float)scale;
    int32_t z = (int32_t)zero_point;
    return !ct_module_register_buffer(m, "scale", ct_from_data_n(&s, CT_FLOAT32, 1, &one), 1) &&
           !ct_module_register_buffer(m, "zero_point", ct_from_data_n(&z, CT_INT32, 1, &one), 1);
}
CTENSOR_API ct_module *ct_fixed_qparams_fake_quantize(double scale, int64_t zero_point, ct_dtype dtype, int64_t quant_min, int64_t quant_max) {
    const char *nm = "FixedQParamsFakeQuantize";
    int64_t lo = 0, hi = 0;
    if (dtype != CT_QUINT8 && dtype != CT_QINT8)
        return (ct_module *)ct__fail(CT_ERR_DTYPE, "%s: dtype must be quint8 or qint8, got %s", nm, CT__DTNAME(dtype));
    ct_qdtype_range(dtype, &lo, &hi);
    if (quant_min < lo || quant_max > hi || quant_min > quant_max)
        return (ct_module *)ct__fail(CT_ERR_ARG, "%s: quant_min %lld and quant_max %lld must lie in [%lld, %lld], in order", nm,
                                     (long long)quant_min, (long long)quant_max, (long long)lo, (long long)hi);
    if (ct__q_check_params(nm, scale, zero_point, dtype, -1)) return NULL;
    ct__fqfix *f = CT__NEW_ZEROED(ct__fqfix);
    ct_module *m = f ? ct_module_new(&ct__fqfix_type, f) : NULL, *ob = m ? ct_module_new(&ct__fqfix_obs_type, NULL) : NULL;
    if (!ob) {
        if (m) ct_module_free(m);
        else CT_FREE(f);
        return (ct_module *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", nm);
    }
    f->dtype = dtype;
    f->quant_min = quant_min;
    f->quant_max = quant_max;
    int s = ct_scope_begin(), one1 = 1;
    int64_t one = 1;
    int ok = !ct_module_register_buffer(m, "fake_quant_enabled", ct_full_n(CT_UINT8, 1, &one, one1), 1) &&
             !ct_module_register_buffer(m, "observer_enabled", ct_full_n(CT_UINT8, 1, &one, one1), 1) && ct__fqfix_qparams(m, scale, zero_point) &&
             ct__fqfix_qparams(ob, scale, zero_point);
    ct_scope_end(s);
    if (!ok || ct_module_add_module(m, "activation_post_process", ob) != CT_OK) {   /* add_module frees ob on failure */
        if (!ok) ct_module_free(ob);
        ct_module_free(m);
        return NULL;
    }
    return m;
}
/* the fixed-parameter fake quantization prepare_qat gives module m in training mode
   (PyTorch's DEFAULT_MODULE_TO_ACT_POST_PROCESS); NULL for other modules */
static int ct__q_special_act(const ct_module *m, double *scale, int64_t *zp) {
    const char *t = m->type->name;
    if (!m->training) return 0;
    if (!strcmp(t, "Hardsigmoid") || !strcmp(t, "Sigmoid") || !strcmp(t, "Softmax")) {
        *scale = 1.0 / 256.0;
        *zp = 0;
        return 1;
    }
    if (!strcmp(t, "Tanh")) {
        *scale = 2.0 / 256.0;
        *zp = 128;
        return 1;
    }
    return 0;
}
static void ct__q_act_backends(void) {
    ct_register_backend_op("aten::copy_", CT_BACKEND_QUANTIZED_CPU, ct__qa_meta_copy, ct__qa_k_copy);
    ct_register_backend_op("aten::hardsigmoid", CT_BACKEND_QUANTIZED_CPU, ct__qa_meta, ct__qa_k_lut);
    CT__Q_QBACKEND(QADD_SCALAR);
    CT__Q_QBACKEND(QMUL_SCALAR);
    CT__Q_QBACKEND(QHARDSWISH);
}
static ct_tensor *ct__qa_call(int op, const char *nm, const ct_tensor *x, double s0, int64_t i0) {
    if (!x) { ct__null_arg(nm, 0); return NULL; }
    ct__attrs a;
    ct__attrs_init(&a);
    a.s[0] = s0;
    a.i[0] = i0;
    ct_tensor *in[1] = {(ct_tensor *)x};
    return ct__q_call(op, 1, in, &a);
}
CTENSOR_API ct_tensor *ct_q_add_scalar(const ct_tensor *x, double c) { return ct__qa_call(CT__QOP(QADD_SCALAR), "quantized::add_scalar", x, c, 0); }
CTENSOR_API ct_tensor *ct_q_mul_scalar(const ct_tensor *x, double c) { return ct__qa_call(CT__QOP(QMUL_SCALAR), "quantized::mul_scalar", x, c, 0); }
CTENSOR_API ct_tensor *ct_q_hardswish(const ct_tensor *x, double scale, int64_t zero_point) {
    return ct__qa_call(CT__QOP(QHARDSWISH), "quantized::hardswish", x, scale, zero_point);
}

/* ---- FloatFunctional / QFunctional ---- */
static int ct__q_child_index(const ct_module *m, const char *name);
static ct_tensor *ct__ff_forward(ct_module *m, int nin, ct_tensor *const *in) {
    (void)nin;
    (void)in;
    return ct__fail(CT_ERR_STATE, "%s is not intended to use the 'forward'. Please use the underlying operation (ct_ff_add, ct_ff_mul, ...)",
                    m->type->name);
}
/* scale as Python prints the float, and the zero point */
static int ct__q_scale_zp_repr(const ct_module *m, char *buf, size_t cap) {
    char sc[40];
    ct__pyfloat(ct_item(ct_module_get(m, "scale")), sc, sizeof sc);
    return snprintf(buf, cap, "scale=%s, zero_point=%lld", sc, (long long)ct_item_int(ct_module_get(m, "zero_point")));
}
static const ct_module_type ct__ff_type = {"FloatFunctional", ct__ff_forward, NULL, NULL};
static const ct_module_type ct__qf_type = {"QFunctional", ct__ff_forward, NULL, ct__q_scale_zp_repr};
/* a module with buffers scale (float32 0-d) and zero_point (int64 0-d) */
static ct_module *ct__q_scale_zp_module(const ct_module_type *t, const char *nm, double scale, int64_t zero_point, ct_dtype dt) {
    if (ct__q_check_params(nm, scale, zero_point, dt, -1)) return NULL;
    ct_module *m = ct_module_new(t, NULL);
    if (!m) return NULL;
    int s = ct_scope_begin();
    ct_status st = ct_module_register_buffer(m, "scale", ct_scalar_tensor((float)scale, CT_FLOAT32), 1);
    if (st == CT_OK) st = ct_module_register_buffer(m, "zero_point", ct_scalar_tensor((double)zero_point, CT_INT64), 1);
    ct_scope_end(s);
    if (st != CT_OK) {
        ct_module_free(m);
        return NULL;
    }
    return m;
}
static ct_module *ct__ff_with_identity(ct_module *m) {
    ct_module *id = m ? ct_nn_identity() : NULL;
    if (m && (!id || ct_module_add_module(m, "activation_post_process", id) != CT_OK)) {
        ct_module_free(id);
        ct_module_free(m);
        return NULL;
    }
    return m;
}
CTENSOR_API ct_module *ct_nn_float_functional(void) { return ct__ff_with_identity(ct_module_new(&ct__ff_type, NULL)); }
CTENSOR_API ct_module *ct_nnq_functional(double scale, int64_t zero_point) {
    return ct__ff_with_identity(ct__q_scale_zp_module(&ct__qf_type, "QFunctional", scale, zero_point, CT_QUINT8));
}
/* 0 float, 1 quantized (with its parameters), -1 error: f is neither, or an operand
   is of the other kind */
static int ct__ff_kind(const ct_module *f, const char *fn, int n, const ct_tensor *const *ts, double *scale, int64_t *zp) {
    if (!f) return ct__null_arg(fn, 0), -1;
    int q = f->type == &ct__qf_type;
    if (!q && f->type != &ct__ff_type)
        return ct__failed(CT_ERR_ARG, "%s: expected a FloatFunctional or QFunctional module, got %s", fn, f->type->name);
    for (int i = 0; i < n; i++) {
        if (!ts[i]) return ct__null_arg(fn, i + 1), -1;
        if (!q && CT__DT_QUANT(ts[i]->dtype))
            return ct__failed(CT_ERR_DTYPE, "%s: operand %d is quantized (%s) but the module is a FloatFunctional; give it a qconfig before ct_quant_prepare so that convert makes it a QFunctional",
                              fn, i, CT__DTNAME(ts[i]->dtype));
        if (q && !CT__DT_QUANT(ts[i]->dtype))
            return ct__failed(CT_ERR_DTYPE, "%s: operand %d is %s but the module is a QFunctional (quantized operands)", fn, i, CT__DTNAME(ts[i]->dtype));
    }
    if (q) {
        ct_tensor *s = ct_module_get((ct_module *)f, "scale"), *z = ct_module_get((ct_module *)f, "zero_point");
        if (!s || !z) return -1;
        *scale = ct_item(s);
        *zp = ct_item_int(z);
    }
    return q;
}
/* a FloatFunctional whose activation_post_process is no longer the Identity (prepared) */
static int ct__ff_observed(const ct_module *f) {
    int k = ct__q_child_index(f, "activation_post_process");
    return k >= 0 && f->children[k].module->type != &ct__identity_type;
}
/* a float result through the module's activation_post_process (observer, fake quant or Identity) */
static ct_tensor *ct__ff_post(ct_module *f, ct_tensor *y) {
    int k = ct__q_child_index(f, "activation_post_process");
    return y && k >= 0 ? ct_forward(f->children[k].module, y) : y;
}
static ct_tensor *ct__ff_binary(ct_module *f, const char *fn, int kind, const ct_tensor *a, const ct_tensor *b) {
    double s = 1.0;
    int64_t z = 0;
    const ct_tensor *ts[2] = {a, b};
    int q = ct__ff_kind(f, fn, 2, ts, &s, &z);
    if (q < 0) return NULL;
    if (q) return (kind == 0 ? ct_q_add : kind == 1 ? ct_q_add_relu : ct_q_mul)(a, b, s, z);
    ct_tensor *y = kind == 2 ? ct_mul(a, b) : ct_add(a, b);
    return ct__ff_post(f, kind == 1 && y ? ct_relu(y) : y);
}
CTENSOR_API ct_tensor *ct_ff_add(ct_module *f, const ct_tensor *a, const ct_tensor *b) { return ct__ff_binary(f, "FloatFunctional.add", 0, a, b); }
CTENSOR_API ct_tensor *ct_ff_add_relu(ct_module *f, const ct_tensor *a, const ct_tensor *b) {
    return ct__ff_binary(f, "FloatFunctional.add_relu", 1, a, b);
}
CTENSOR_API ct_tensor *ct_ff_mul(ct_module *f, const ct_tensor *a, const ct_tensor *b) { return ct__ff_binary(f, "FloatFunctional.mul", 2, a, b); }
CTENSOR_API ct_tensor *ct_ff_cat(ct_module *f, int n, ct_tensor *const *ts, int dim) {
    double s = 1.0;
    int64_t z = 0;
    if (n <= 0 || !ts) return ct__fail(CT_ERR_ARG, "FloatFunctional.cat: expected a non-empty list of Tensors");
    int q = ct__ff_kind(f, "FloatFunctional.cat", n, (const ct_tensor *const *)ts, &s, &z);
    if (q < 0) return NULL;
    return q ? ct_q_cat(n, ts, dim, s, z) : ct__ff_post(f, ct_cat(n, ts, dim));
}
static ct_tensor *ct__ff_scalar(ct_module *f, const char *fn, int mul, const ct_tensor *x, double c) {
    double s = 1.0;
    int64_t z = 0;
    int q = ct__ff_kind(f, fn, 1, &x, &s, &z);
    if (q < 0) return NULL;
    if (q) return mul ? ct_q_mul_scalar(x, c) : ct_q_add_scalar(x, c);
    return mul ? ct_mul_scalar(x, c) : ct_add_scalar(x, c);   /* not observed, as PyTorch's */
}
CTENSOR_API ct_tensor *ct_ff_add_scalar(ct_module *f, const ct_tensor *x, double c) { return ct__ff_scalar(f, "FloatFunctional.add_scalar", 0, x, c); }
CTENSOR_API ct_tensor *ct_ff_mul_scalar(ct_module *f, const ct_tensor *x, double c) { return ct__ff_scalar(f, "FloatFunctional.mul_scalar", 1, x, c); }

/* ---- QuantizedHardswish ---- */
static ct_tensor *ct__qhs_forward(ct_module *m, int nin, ct_tensor *const *in) {
    if (nin != 1) return ct__fail(CT_ERR_ARG, "QuantizedHardswish: forward takes 1 input (got %d)", nin);
    const double *p = (const double *)m->impl;
    return ct_q_hardswish(in[0], p[0], (int64_t)p[1]);
}
static void ct__qhs_free(ct_module *m) { CT_FREE(m->impl); }
static const ct_module_type ct__qhs_type = {"QuantizedHardswish", ct__qhs_forward, ct__qhs_free, NULL};
CTENSOR_API ct_module *ct_nnq_hardswish(double scale, int64_t zero_point) {
    if (ct__q_check_params("QuantizedHardswish", scale, zero_point, CT_QUINT8, -1)) return NULL;
    double *p = (double *)CT_MALLOC(2 * sizeof(double));
    if (!p) return (ct_module *)ct__fail(CT_ERR_MEMORY, "QuantizedHardswish: out of memory");
    p[0] = (double)(float)scale;   /* PyTorch's float(scale) of a float32 observer value */
    p[1] = (double)zero_point;
    ct_module *m = ct_module_new(&ct__qhs_type, p);
    if (!m) CT_FREE(p);
    return m;
}

/* ============================================================================
   Workflows: quantize_dynamic, static post-training quantization: implementation
   ========================================================================== */
/* The child slot of `name` in m (-1 when absent). */
static int ct__q_child_index(const ct_module *m, const char *name) {
    for (int i = 0; i < m->nchildren; i++)
        if (m->children[i].module && !strcmp(m->children[i].name, name)) return i;
    return -1;
}
/* ---- quantize_dynamic ---- */
static int ct__q_dyn_walk(ct_module *m, int per_channel, int reduce_range) {
    int n = 0;
    for (int i = 0; i < m->nchildren; i++) {
        ct_module *c = m->children[i].module;
        if (!c) continue;
        if (!strcmp(c->type->name, "Linear")) {
            ct_module *q = ct_nnq_dynamic_linear(c, per_channel, reduce_range);
            if (!q) return -1;
            q->training = c->training;
            m->children[i].module = q;
            ct_module_free(c);
            n++;
        } else {
            int k = ct__q_dyn_walk(c, per_channel, reduce_range);
            if (k < 0) return -1;
            n += k;
        }
    }
    return n;
}
CTENSOR_API int ct_quantize_dynamic(ct_module *model, int per_channel, int reduce_range) {
    if (!model) {
        ct__null_arg("quantize_dynamic", 0);
        return -1;
    }
    return ct__q_dyn_walk(model, per_channel, reduce_range);
}

/* ---- QuantStub / DeQuantStub ---- */
static ct_tensor *ct__q_stub_forward(ct_module *m, int nin, ct_tensor *const *in) {
    if (nin != 1) return ct__fail(CT_ERR_ARG, "%s: forward takes 1 input (got %d)", m->type->name, nin);
    return in[0];
}
static const ct_module_type ct__q_quant_stub_type = {"QuantStub", ct__q_stub_forward, NULL, NULL};
static const ct_module_type ct__q_dequant_stub_type = {"DeQuantStub", ct__q_stub_forward, NULL, NULL};
/* a DeQuantStub that prepare found under a qconfig: the one convert swaps for DeQuantize
   (PyTorch's convert swaps only modules with a qconfig; a DeQuantStub in a part kept
   float stays an identity) */
static const ct_module_type ct__q_dequant_stub_prepared_type = {"DeQuantStub", ct__q_stub_forward, NULL, NULL};
CTENSOR_API ct_module *ct_nn_quant_stub(void) { return ct_module_new(&ct__q_quant_stub_type, NULL); }
CTENSOR_API ct_module *ct_nn_dequant_stub(void) { return ct_module_new(&ct__q_dequant_stub_type, NULL); }

/* ---- observed modules ----
   prepare gives an observed module its own type record: the original type's name,
   destroy and repr, a forward that runs the original forward and then the child
   "activation_post_process", and the qconfig convert needs. convert puts the
   original type back (or frees the module it replaces). */
typedef struct ct__q_observed {
    ct_module_type type;                 /* first: m->type points here */
    const ct_module_type *orig;
    ct_qconfig qconfig;
    int qat, relu;                       /* prepare_qat: the weight fake-quantized in forward; a flattened fused relu */
} ct__q_observed;
/* conv2d of module m (a Conv2d) with weight w: the module's own geometry */
static ct_tensor *ct__q_conv_with(const ct_module *m, ct_tensor *x, ct_tensor *w, ct_tensor *b) {
    const ct__conv_mod *c = (const ct__conv_mod *)m->impl;
    ct_conv_options o;
    memset(&o, 0, sizeof o);
    o.groups = c->groups;
    for (int q = 0; q < 2; q++) {
        o.stride_hw[q] = c->st[q];
        o.padding_hw[q] = c->pd[q];
        o.dilation_hw[q] = c->dl[q];
    }
    if (c->padding_str[0]) o.padding_str = c->padding_str;
    return ct_conv2d(x, w, b, &o);
}
static ct_tensor *ct__q_observed_forward(ct_module *m, int nin, ct_tensor *const *in) {
    const ct__q_observed *o = (const ct__q_observed *)m->type;
    ct_tensor *y;
    if (o->qat) {   /* nn.qat: F.conv2d / F.linear with weight_fake_quant(weight), then the fused relu */
        if (nin != 1) return ct__fail(CT_ERR_ARG, "%s: forward takes 1 input (got %d)", o->type.name, nin);
        int kw = ct__q_child_index(m, "weight_fake_quant"), kb = ct__q_child_index(m, "bn");
        if (kw < 0) return ct__fail(CT_ERR_STATE, "%s: weight_fake_quant is missing", o->type.name);
        if (kb >= 0) {
            /* ConvBn2d / LinearBn1d (PyTorch's _forward_approximate): the weight scaled by
               gamma / running_std is fake-quantized; the conv / linear output is scaled back,
               the bias added, then the batch norm (batch statistics in training, which it
               also tracks) */
            ct_module *bnm = m->children[kb].module;
            const ct__bn_impl *bi = (const ct__bn_impl *)bnm->impl;
            ct_tensor *wt = m->params[0].tensor, *bias = m->params[1].tensor;
            const int lin = !strcmp(o->orig->name, "Linear"), bnd = lin ? 2 : 4;
            int64_t ws[4] = {-1, 1, 1, 1}, bs[4] = {1, -1, 1, 1};
            ct_tensor *sf = ct_div(bnm->params[0].tensor, ct_sqrt(ct_add_scalar(ct_module_get(bnm, "running_var"), bi->eps)));
            ct_tensor *sw = ct_forward(m->children[kw].module, ct_mul(wt, ct_view_n(sf, ct_ndim(wt), ws)));
            ct_tensor *zb = ct_zeros_n(ct_get_dtype(in[0]), 1, &wt->shape[0]);
            y = !sw ? NULL : lin ? ct_linear(in[0], sw, zb) : ct__q_conv_with(m, in[0], sw, zb);
            y = ct_div(y, ct_view_n(sf, bnd, bs));
            if (bias) y = ct_add(y, ct_view_n(bias, bnd, bs));
            y = y ? ct_forward(bnm, y) : NULL;
        } else {
            ct_tensor *w = ct_forward(m->children[kw].module, m->params[0].tensor);
            if (!w) return NULL;
            y = !strcmp(o->orig->name, "Conv2d") ? ct__q_conv_with(m, in[0], w, m->params[1].tensor) : ct_linear(in[0], w, m->params[1].tensor);
        }
        if (y && o->relu) y = ct_relu(y);
    } else
        y = o->orig->forward(m, nin, in);
    int k = ct__q_child_index(m, "activation_post_process");
    return y && k >= 0 ? ct_forward(m->children[k].module, y) : y;
}
static void ct__q_observed_destroy(ct_module *m) {
    ct__q_observed *o = (ct__q_observed *)m->type;
    if (o->orig->destroy) o->orig->destroy(m);
    CT_FREE(o);
}
static int ct__q_is_observed(const ct_module *m) { return m && m->type->forward == ct__q_observed_forward; }
/* the module types prepare observes */
static int ct__q_observable(const ct_module *m, int qat) {
    double s;
    int64_t z;
    if (qat && ct__q_special_act(m, &s, &z)) return 1;
    static const char *const names[] = {"QuantStub", "Conv2d",          "ConvReLU2d", "Linear",   "LinearReLU",   "Hardswish",
                                        "FloatFunctional", "Dropout", "ConvBn2d",   "ConvBnReLU2d", "LinearBn1d"};
    for (int i = 0; i < (qat ? 11 : 8); i++)
        if (!strcmp(m->type->name, names[i])) return 1;
    return 0;
}
/* the qconfig for the module at `path`: the deepest override naming it or a parent
   (*found 0 when none applies: the parent's) */
static const ct_qconfig *ct__q_qconfig_for(const char *path, const ct_qconfig *inherited, const ct_quant_prepare_options *o) {
    if (!o) return inherited;
    for (int i = 0; i < o->n; i++)
        if (o->names[i] && !strcmp(o->names[i], path)) return o->qconfigs ? o->qconfigs[i] : NULL;
    return inherited;
}
typedef struct { ct_module *m; const ct_qconfig *qc; ct_module *parent; int slot; } ct__q_site;
static int ct__q_prepare_walk(ct_module *m, const char *prefix, const ct_qconfig *qc, const ct_quant_prepare_options *o,
                              ct__q_site **sites, int *n, int *cap, int qat) {
    for (int i = 0; i < m->nchildren; i++) {
        ct_module *c = m->children[i].module;
        if (!c) continue;
        char path[512];
        snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", m->children[i].name);
        const ct_qconfig *cq = ct__q_qconfig_for(path, qc, o);
        int ka = ct__q_child_index(c, "activation_post_process");
        if (ct__q_is_observed(c) || (ka >= 0 && (c->type != &ct__ff_type || ct__ff_observed(c)))) {
            ct_set_error(CT_ERR_STATE, "quant_prepare: module '%s' (%s) is already prepared", path, c->type->name);   /* (either form) */
            return -1;
        }
        if (cq && ct__q_observable(c, qat)) {
            if (*n == *cap) {
                int nc = *cap ? 2 * *cap : 16;
                ct__q_site *ns = (ct__q_site *)CT_REALLOC(*sites, sizeof(ct__q_site) * (size_t)nc);
                if (!ns) return ct__failed(CT_ERR_MEMORY, "quant_prepare: out of memory");
                *sites = ns;
                *cap = nc;
            }
            ct__q_site site;
            site.m = c;
            site.qc = cq;
            site.parent = m;
            site.slot = i;
            (*sites)[(*n)++] = site;
        } else if (strcmp(c->type->name, "QuantStub") && strcmp(c->type->name, "DeQuantStub") &&
                   ct__q_prepare_walk(c, path, cq, o, sites, n, cap, qat))
            return -1;
    }
    return 0;
}
/* after a successful prepare: the DeQuantStubs with a qconfig marked for convert */
static void ct__q_mark_dequant_stubs(ct_module *m, const char *prefix, const ct_qconfig *qc, const ct_quant_prepare_options *o) {
    for (int i = 0; i < m->nchildren; i++) {
        ct_module *c = m->children[i].module;
        if (!c || ct__q_is_observed(c)) continue;
        char path[512];
        snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", m->children[i].name);
        const ct_qconfig *cq = ct__q_qconfig_for(path, qc, o);
        if (c->type == &ct__q_dequant_stub_type) {
            if (cq) c->type = &ct__q_dequant_stub_prepared_type;
        } else
            ct__q_mark_dequant_stubs(c, path, cq, o);
    }
}
static int ct__q_prepare(ct_module *model, const ct_qconfig *qconfig, const ct_quant_prepare_options *o, int qat);
CTENSOR_API int ct_quant_prepare(ct_module *model, const ct_qconfig *qconfig, const ct_quant_prepare_options *o) {
    return ct__q_prepare(model, qconfig, o, 0);
}
CTENSOR_API int ct_quant_prepare_qat(ct_module *model, const ct_qconfig *qconfig, const ct_quant_prepare_options *o) {
    if (model && !model->training) {
        ct_set_error(CT_ERR_STATE, "quant_prepare_qat: prepare_qat only works on models in training mode (ct_module_train)");
        return -1;
    }
    return ct__q_prepare(model, qconfig, o, 1);
}
static int ct__q_prepare(ct_module *model, const ct_qconfig *qconfig, const ct_quant_prepare_options *o, int qat) {
    const char *fn = qat ? "quant_prepare_qat" : "quant_prepare";
    if (!model) {
        ct__null_arg(fn, 0);
        return -1;
    }
    if (o && o->n > 0 && !o->names) {
        ct_set_error(CT_ERR_ARG, "quant_prepare: %d overrides but no names", o->n);
        return -1;
    }
    for (int i = 0; o && i < o->n; i++)
        if (!o->names[i] || !ct_module_child(model, o->names[i])) {
            if (!o->names[i]) ct_set_error(CT_ERR_ARG, "quant_prepare: override %d has no name", i);
            return -1;
        }
    ct__q_site *sites = NULL;
    int n = 0, cap = 0;
    if (ct__q_prepare_walk(model, "", qconfig, o, &sites, &n, &cap, qat)) {
        CT_FREE(sites);
        return -1;
    }
    /* all observers and type records first, so that a failure changes nothing */
    ct_module **obs = (ct_module **)CT_MALLOC(sizeof(ct_module *) * (size_t)(n ? n : 1));
    ct_module **wfq = (ct_module **)CT_MALLOC(sizeof(ct_module *) * (size_t)(n ? n : 1));
    ct__q_observed **recs = (ct__q_observed **)CT_MALLOC(sizeof(ct__q_observed *) * (size_t)(n ? n : 1));
    int ok = obs && recs && wfq, made = 0;
    if (!ok) ct_set_error(CT_ERR_MEMORY, "%s: out of memory", fn);
    for (; ok && made < n; made++) {
        const char *tn = sites[made].m->type->name;
        int needs_w = qat && strcmp(tn, "QuantStub") && strcmp(tn, "Hardswish") && strcmp(tn, "FloatFunctional") && strcmp(tn, "Dropout");
        int mark = !strcmp(tn, "Dropout");   /* no observer: only marked for convert (PyTorch's prepare skips Dropout) */
        double fs = 0;
        int64_t fz = 0;
        int fixed = qat && ct__q_special_act(sites[made].m, &fs, &fz);
        needs_w = needs_w && !fixed;
        obs[made] = mark ? NULL : fixed ? ct_fixed_qparams_fake_quantize(fs, fz, CT_QUINT8, 0, 255) : ct_observer_factory_make(&sites[made].qc->activation);
        wfq[made] = needs_w && obs[made] ? ct_observer_factory_make(&sites[made].qc->weight) : NULL;
        recs[made] = CT__NEW_ZEROED(ct__q_observed);
        if ((!mark && !obs[made]) || (needs_w && !wfq[made]) || !recs[made]) {
            if ((mark || obs[made]) && (!needs_w || wfq[made]) && !recs[made]) ct_set_error(CT_ERR_MEMORY, "%s: out of memory", fn);
            ct_module_free(obs[made]);
            ct_module_free(wfq[made]);
            CT_FREE(recs[made]);
            ok = 0;
            break;
        }
    }
    if (!ok) {
        for (int k = 0; k < made; k++) {
            ct_module_free(obs[k]);
            ct_module_free(wfq[k]);
            CT_FREE(recs[k]);
        }
        CT_FREE(obs);
        CT_FREE(wfq);
        CT_FREE(recs);
        CT_FREE(sites);
        return -1;
    }
    int marked = 0;
    for (int k = 0; k < n; k++) {
        ct_module *m = sites[k].m;
        ct__q_observed *r = recs[k];
        const char *name = m->type->name;
        int with_bn = !strcmp(name, "ConvBn2d") || !strcmp(name, "ConvBnReLU2d") || !strcmp(name, "LinearBn1d");
        if (qat && (with_bn || !strcmp(name, "ConvReLU2d") || !strcmp(name, "LinearReLU"))) {
            /* nn.intrinsic.qat: one module, the conv / linear itself with the relu fused and
               the batch norm as its child "bn" */
            ct_module *parent = sites[k].parent, *inner = m->children[ct__q_child_index(m, "0")].module;
            ct_module *bnm = with_bn ? m->children[ct__q_child_index(m, "1")].module : NULL;
            m->children[ct__q_child_index(m, "0")].module = NULL;
            if (bnm) m->children[ct__q_child_index(m, "1")].module = NULL;
            parent->children[sites[k].slot].module = inner;
            r->relu = strcmp(name, "ConvBn2d") && strcmp(name, "LinearBn1d");
            ct_module_free(m);
            m = inner;
            if (bnm && ct_module_add_module(m, "bn", bnm) != CT_OK) ct_module_free(bnm);   /* only out of memory */
        }
        if (!obs[k]) {   /* Dropout */
            marked++;
        } else if (m->type == &ct__ff_type) {   /* FloatFunctional: the observer replaces its Identity */
            int ka = ct__q_child_index(m, "activation_post_process");
            ct_module_free(m->children[ka].module);
            obs[k]->training = m->training;
            m->children[ka].module = obs[k];
            CT_FREE(recs[k]);
            continue;
        } else
            obs[k]->training = m->training;
        if (wfq[k]) {
            wfq[k]->training = m->training;
            if (ct_module_add_module(m, "weight_fake_quant", wfq[k]) != CT_OK) wfq[k] = NULL;   /* only out of memory */
        }
        if (obs[k] && ct_module_add_module(m, "activation_post_process", obs[k]) != CT_OK) {   /* only out of memory */
            CT_FREE(recs[k]);
            continue;
        }
        r->type = *m->type;
        r->type.name = name;
        r->type.forward = ct__q_observed_forward;
        r->type.destroy = ct__q_observed_destroy;
        r->orig = m->type;
        r->qconfig = *sites[k].qc;
        r->qat = qat && wfq[k] != NULL;
        m->type = &r->type;
    }
    CT_FREE(obs);
    CT_FREE(wfq);
    CT_FREE(recs);
    CT_FREE(sites);
    ct__q_mark_dequant_stubs(model, "", qconfig, o);
    return n - marked;
}

/* ---- QuantizedLinear ---- */
typedef struct ct__q_lin_mod {
    ct_q_linear_packed *p;
    int relu, has_bias;
    const void *src[2];   /* the weight and bias buffers' storages and versions when p was packed */
    uint32_t ver[2];
} ct__q_lin_mod;
/* the weight and bias buffers' identity now (stale when it differs from what the packing saw) */
static void ct__q_buf_ids(ct_module *m, int has_bias, const void **src, uint32_t *ver) {
    ct_tensor *t[2] = {ct_module_get(m, "weight"), has_bias ? ct_module_get(m, "bias") : NULL};
    for (int i = 0; i < 2; i++) {
        src[i] = t[i] ? (const void *)t[i]->storage : NULL;
        ver[i] = t[i] ? ct_version(t[i]) : 0;
    }
}
/* After ct_module_load_state_dict (or any write) into the weight or bias buffer: the
   packed weight made anew from them. */
static int ct__q_lin_mod_refresh(ct_module *m) {
    ct__q_lin_mod *l = (ct__q_lin_mod *)m->impl;
    const void *src[2];
    uint32_t ver[2];
    ct__q_buf_ids(m, l->has_bias, src, ver);
    if (src[0] == l->src[0] && ver[0] == l->ver[0] && src[1] == l->src[1] && ver[1] == l->ver[1]) return 0;
    ct_q_linear_packed *p = ct_q_linear_prepack(ct_module_get(m, "weight"), l->has_bias ? ct_module_get(m, "bias") : NULL);
    if (!p) return -1;
    ct_q_linear_packed_free(l->p);
    l->p = p;
    memcpy(l->src, src, sizeof src);
    memcpy(l->ver, ver, sizeof ver);
    return 0;
}
static ct_tensor *ct__q_lin_mod_forward(ct_module *m, int nin, ct_tensor *const *in) {
    if (nin != 1) return ct__fail(CT_ERR_ARG, "%s: forward takes 1 input (got %d)", m->type->name, nin);
    const ct__q_lin_mod *l = (const ct__q_lin_mod *)m->impl;
    ct_tensor *s = ct_module_get(m, "scale"), *z = ct_module_get(m, "zero_point");
    if (!s || !z || ct__q_lin_mod_refresh(m)) return NULL;
    return (l->relu ? ct_q_linear_relu : ct_q_linear)(in[0], l->p, ct_item(s), ct_item_int(z));
}
static void ct__q_lin_mod_free(ct_module *m) {
    ct__q_lin_mod *l = (ct__q_lin_mod *)m->impl;
    if (!l) return;
    ct_q_linear_packed_free(l->p);
    CT_FREE(l);
}
static int ct__q_lin_mod_repr(const ct_module *m, char *buf, size_t cap) {
    const ct__q_lin_mod *l = (const ct__q_lin_mod *)m->impl;
    char sc[40];
    ct__pyfloat(ct_item(ct_module_get(m, "scale")), sc, sizeof sc);
    const ct_tensor *w = ct_q_linear_packed_weight(l->p);
    return snprintf(buf, cap, "in_features=%lld, out_features=%lld, scale=%s, zero_point=%lld, qscheme=torch.%s",
                    (long long)ct_q_linear_packed_in_features(l->p), (long long)ct_q_linear_packed_out_features(l->p), sc,
                    (long long)ct_item_int(ct_module_get(m, "zero_point")),
                    w && w->qparams && w->qparams->nchannels ? "per_channel_affine" : "per_tensor_affine");
}
static const ct_module_type ct__q_lin_type = {"QuantizedLinear", ct__q_lin_mod_forward, ct__q_lin_mod_free, ct__q_lin_mod_repr};
static const ct_module_type ct__q_linrelu_type = {"QuantizedLinearReLU", ct__q_lin_mod_forward, ct__q_lin_mod_free, ct__q_lin_mod_repr};
CTENSOR_API ct_module *ct_nnq_linear(ct_q_linear_packed *packed, double scale, int64_t zero_point, int relu) {
    const char *nm = relu ? "QuantizedLinearReLU" : "QuantizedLinear";
    if (!packed) {
        ct__null_arg(nm, 0);
        return NULL;
    }
    ct__q_lin_mod *l = NULL;
    ct_module *m = NULL;
    if (ct__q_check_params(nm, scale, zero_point, CT_QUINT8, -1) == 0) {
        l = (ct__q_lin_mod *)CT_MALLOC(sizeof *l);
        if (!l) ct_set_error(CT_ERR_MEMORY, "%s: out of memory", nm);
        else if (!(m = ct_module_new(relu ? &ct__q_linrelu_type : &ct__q_lin_type, l))) CT_FREE(l);
    }
    if (!m) {
        ct_q_linear_packed_free(packed);
        return NULL;
    }
    memset(l, 0, sizeof *l);
    l->p = packed;
    l->relu = relu != 0;
    int s = ct_scope_begin();
    ct_tensor *b = ct_q_linear_packed_bias(packed);
    l->has_bias = b != NULL;
    ct_status st = ct_module_register_buffer(m, "weight", ct_q_linear_packed_weight(packed), 1);
    if (st == CT_OK && b) st = ct_module_register_buffer(m, "bias", b, 1);
    if (st == CT_OK) st = ct_module_register_buffer(m, "scale", ct_scalar_tensor((float)scale, CT_FLOAT32), 1);
    if (st == CT_OK) st = ct_module_register_buffer(m, "zero_point", ct_scalar_tensor((double)zero_point, CT_INT64), 1);
    ct_scope_end(s);
    if (st != CT_OK) {
        ct_module_free(m);
        return NULL;
    }
    ct__q_buf_ids(m, l->has_bias, l->src, l->ver);
    return m;
}

/* ---- convert ---- */
/* the weight quantized as the qconfig's weight observer says (PyTorch's _quantize_weight) */
static ct_tensor *ct__q_quantize_weight(const ct_qconfig *qc, ct_tensor *w) {
    ct_module *wo = ct_observer_factory_make(&qc->weight);
    if (!wo) return NULL;
    ct_tensor *q = NULL, *s = NULL, *z = NULL;
    ct_qscheme qs = ct_observer_qscheme(wo);
    if (ct_forward(wo, w) && ct_observer_calculate_qparams(wo, &s, &z) >= 0) {
        if (qs == CT_PER_CHANNEL_AFFINE || qs == CT_PER_CHANNEL_SYMMETRIC)
            q = ct_quantize_per_channel(w, ct_to(s, CT_FLOAT64), ct_to(z, CT_INT64), 0, ct_observer_dtype(wo));
        else
            q = ct_quantize_per_tensor(w, ct_item(s), ct_item_int(z), ct_observer_dtype(wo));
    }
    ct_module_free(wo);
    return q;
}
/* an observer, or a FakeQuantize's observer */
static ct_module *ct__q_observer_of(ct_module *m) {
    return ct_is_fake_quantize(m) && m->nchildren > 0 ? m->children[0].module : m;
}
/* scale and zero point of an observer or a FakeQuantize (PyTorch's calculate_qparams) */
static int ct__q_act_qparams(ct_module *m, double *scale, int64_t *zp) {
    if (!ct_is_fake_quantize(m)) return ct_observer_calculate_qparams_per_tensor(m, scale, zp);
    int tok = ct_scope_begin(), rc = -1;
    ct_tensor *s = NULL, *z = NULL;
    if (ct_fake_quant_module_calculate_qparams(m, &s, &z) >= 0 && s && z) {
        *scale = ct_item(s);
        *zp = ct_item_int(z);
        rc = 0;
    }
    ct_scope_end(tok);
    return rc;
}
/* the weight quantized with the qparams of a QAT module's weight_fake_quant (PyTorch's
   from_float with weight_post_process = mod.weight_fake_quant) */
static ct_tensor *ct__q_quantize_weight_fq(ct_module *fq, ct_tensor *w) {
    ct_module *ob = ct__q_observer_of(fq);
    ct_tensor *s = NULL, *z = NULL;
    if (ct_fake_quant_module_calculate_qparams(fq, &s, &z) < 0) return NULL;
    ct_qscheme qs = ct_observer_qscheme(ob);
    if (qs == CT_PER_CHANNEL_AFFINE || qs == CT_PER_CHANNEL_SYMMETRIC)
        return ct_quantize_per_channel(w, ct_to(s, CT_FLOAT64), ct_to(z, CT_INT64), 0, ct_observer_dtype(ob));
    return ct_quantize_per_tensor(w, ct_item(s), ct_item_int(z), ct_observer_dtype(ob));
}
/* the quantized replacement of observed module m (NULL with the error set) */
static ct_module *ct__q_convert_one(ct_module *m, const char *path) {
    const ct__q_observed *o = (const ct__q_observed *)m->type;
    const char *tn = o->orig->name;
    int k = ct__q_child_index(m, "activation_post_process");
    double scale = 1.0;
    int64_t zp = 0;
    if (k < 0 || ct__q_act_qparams(m->children[k].module, &scale, &zp) < 0) {
        if (k < 0) ct_set_error(CT_ERR_STATE, "quant_convert: '%s' has no activation_post_process", path);
        return NULL;
    }
    if (!strcmp(tn, "QuantStub")) return ct_nnq_quantize(scale, zp, ct_observer_dtype(ct__q_observer_of(m->children[k].module)));
    if (!strcmp(tn, "Hardswish")) return ct_nnq_hardswish(scale, zp);
    int fused = o->relu || !strcmp(tn, "ConvReLU2d") || !strcmp(tn, "LinearReLU");
    ct_module *inner = o->qat || !fused ? m : m->children[ct__q_child_index(m, "0")].module;
    ct_tensor *w = inner->params[0].tensor, *b = inner->params[1].tensor;
    int tok = ct_scope_begin();
    ct_module *r = NULL;
    int kw = ct__q_child_index(m, "weight_fake_quant"), kb = ct__q_child_index(m, "bn");
    if (o->qat && kb >= 0 && ct__q_fold_bn(m, m->children[kb].module, !strcmp(o->orig->name, "Linear"))) {   /* ConvBn2d / LinearBn1d: fold first */
        ct_scope_end(tok);
        return NULL;
    }
    w = inner->params[0].tensor;
    b = inner->params[1].tensor;
    ct_tensor *qw = o->qat && kw >= 0 ? ct__q_quantize_weight_fq(m->children[kw].module, ct_detach(w))
                                      : ct__q_quantize_weight(&o->qconfig, ct_detach(w));
    if (qw && (!strcmp(tn, "Conv2d") || !strcmp(tn, "ConvReLU2d") || !strcmp(inner->type->name, "Conv2d"))) {
        const ct__conv_mod *cm = (const ct__conv_mod *)inner->impl;
        ct_conv_options co;
        memset(&co, 0, sizeof co);
        for (int d = 0; d < 2; d++) {
            co.stride_hw[d] = cm->st[d];
            co.padding_hw[d] = cm->pd[d];
            co.dilation_hw[d] = cm->dl[d];
        }
        co.groups = cm->groups;
        if (cm->padding_str[0]) co.padding_str = cm->padding_str;
        ct_q_conv_packed *p = ct_q_conv2d_prepack(qw, b ? ct_detach(b) : NULL, &co);
        r = p ? ct_nnq_conv2d(p, scale, zp, fused) : NULL;
    } else if (qw) {
        ct_q_linear_packed *p = ct_q_linear_prepack(qw, b ? ct_detach(b) : NULL);
        r = p ? ct_nnq_linear(p, scale, zp, fused) : NULL;
    }
    ct_scope_end(tok);
    return r;
}
static const ct_module_type ct__q_dropout_type = {"QuantizedDropout", ct__emb_forward, ct__free_impl, ct__emb_repr};
static int ct__q_convert_walk(ct_module *m, const char *prefix) {
    int n = 0;
    for (int i = 0; i < m->nchildren; i++) {
        ct_module *c = m->children[i].module;
        if (!c) continue;
        char path[512];
        snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", m->children[i].name);
        ct_module *r = NULL;
        if (ct__q_is_observed(c) && ct__q_child_index(c, "activation_post_process") >= 0 &&
            c->children[ct__q_child_index(c, "activation_post_process")].module->type == &ct__fqfix_type) {
            /* Hardsigmoid, Sigmoid, Softmax, Tanh after prepare_qat: the module itself again
               (PyTorch's convert keeps it and drops its activation_post_process) */
            ct__q_observed *rec = (ct__q_observed *)c->type;
            int ka = ct__q_child_index(c, "activation_post_process");
            c->type = rec->orig;
            CT_FREE(rec);
            ct_module_free(c->children[ka].module);
            CT_FREE(c->children[ka].name);
            for (int j = ka; j + 1 < c->nchildren; j++) c->children[j] = c->children[j + 1];
            c->nchildren--;
            continue;
        }
        if (ct__q_is_observed(c) && ((const ct__q_observed *)c->type)->orig == &ct__dropout_type) {
            /* Dropout -> QuantizedDropout (nn.quantized.Dropout: the same module, renamed) */
            ct__q_observed *rec = (ct__q_observed *)c->type;
            c->type = &ct__q_dropout_type;
            CT_FREE(rec);
            n++;
            continue;
        }
        if (ct__q_is_observed(c)) {
            if (!(r = ct__q_convert_one(c, path))) return -1;
        } else if (c->type == &ct__q_dequant_stub_prepared_type) {
            if (!(r = ct_nnq_dequantize())) return -1;
        } else if (c->type == &ct__ff_type && ct__ff_observed(c)) {   /* FloatFunctional -> QFunctional */
            double scale = 1.0;
            int64_t zp = 0;
            if (ct__q_act_qparams(c->children[ct__q_child_index(c, "activation_post_process")].module, &scale, &zp) < 0 ||
                !(r = ct_nnq_functional(scale, zp)))
                return -1;
        } else {
            int k = ct__q_convert_walk(c, path);
            if (k < 0) return -1;
            n += k;
            continue;
        }
        r->training = c->training;
        m->children[i].module = r;
        ct_module_free(c);
        n++;
    }
    return n;
}
CTENSOR_API int ct_quant_convert(ct_module *model) {
    if (!model) {
        ct__null_arg("quant_convert", 0);
        return -1;
    }
    return ct__q_convert_walk(model, "");
}

/* ============================================================================
   Numeric suite: compare_weights, compare_model_outputs, sensitivity: implementation
   (torch/ao/ns/_numeric_suite.py)
   ========================================================================== */
static ct_status ct__ns_oom(const char *fn) {
    ct_set_error(CT_ERR_MEMORY, "%s: out of memory", fn);
    return CT_ERR_MEMORY;
}
static void ct__ns_entry_clear(ct_ns_entry *e) {
    for (int i = 0; i < e->n; i++) {
        if (e->float_values) ct_release(e->float_values[i]);
        if (e->quantized_values) ct_release(e->quantized_values[i]);
    }
    CT_FREE(e->float_values);
    CT_FREE(e->quantized_values);
    CT_FREE(e->name);
}
CTENSOR_API void ct_ns_result_free(ct_ns_result *r) {
    if (!r) return;
    for (int i = 0; i < r->n; i++) ct__ns_entry_clear(&r->entries[i]);
    CT_FREE(r->entries);
    r->n = 0;
    r->entries = NULL;
}
CTENSOR_API const ct_ns_entry *ct_ns_result_get(const ct_ns_result *r, const char *name) {
    if (!r || !name) {
        ct__null_arg("ns_result_get", !r ? 0 : 1);
        return NULL;
    }
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->entries[i].name, name)) return &r->entries[i];
    ct_set_error(CT_ERR_ARG, "ns_result_get: no entry '%s' (%d entries)", name, r->n);
    return NULL;
}
static ct_tensor *ct__ns_float(ct_tensor *t) { return CT__DT_QUANT(t->dtype) ? ct_dequantize(t) : ct_detach(t); }
/* SQNR over n pairs together (ct_q_sqnr's formula); shapes checked by the caller */
static double ct__ns_sqnr(int n, ct_tensor *const *f, ct_tensor *const *q) {
    if (n == 1) return ct_q_sqnr(f[0], q[0]);
    double ps = 0, d = 0;
    int tok = ct_scope_begin();
    for (int i = 0; i < n; i++) {
        ct_tensor *a = ct_to(ct__ns_float(f[i]), CT_FLOAT64), *b = ct_to(ct__ns_float(q[i]), CT_FLOAT64);
        ct_tensor *e = ct_sub(a, b);
        ps += ct_item(ct_sum(ct_mul(a, a)));
        d += ct_item(ct_sum(ct_mul(e, e)));
    }
    ct_scope_end(tok);
    return d == 0 ? INFINITY : 20.0 * log10(sqrt(ps) / sqrt(d));
}
/* appends an entry (the tensors retained), after checking that each pair has one shape */
static ct_status ct__ns_add(const char *fn, ct_ns_result *r, int *cap, const char *name, int n, ct_tensor *const *f,
                           ct_tensor *const *q) {
    for (int i = 0; i < n; i++)
        if (!ct_same_shape(f[i], q[i])) {
            ct_set_error(CT_ERR_SHAPE, "%s: '%s' has shape %s in the float model and %s in the quantized one", fn, name,
                         CT__SHAPE(f[i]), CT__SHAPE(q[i]));
            return CT_ERR_SHAPE;
        }
    if (r->n == *cap) {
        int nc = *cap ? 2 * *cap : 8;
        ct_ns_entry *ne = (ct_ns_entry *)CT_REALLOC(r->entries, sizeof(ct_ns_entry) * (size_t)nc);
        if (!ne) return ct__ns_oom(fn);
        r->entries = ne;
        *cap = nc;
    }
    ct_ns_entry *e = &r->entries[r->n];
    memset(e, 0, sizeof *e);
    e->name = ct__strdup(name);
    e->float_values = (ct_tensor **)CT_MALLOC(sizeof(ct_tensor *) * (size_t)(n ? n : 1));
    e->quantized_values = (ct_tensor **)CT_MALLOC(sizeof(ct_tensor *) * (size_t)(n ? n : 1));
    if (!e->name || !e->float_values || !e->quantized_values) {
        ct__ns_entry_clear(e);
        return ct__ns_oom(fn);
    }
    e->sqnr = ct__ns_sqnr(n, f, q);
    for (int i = 0; i < n; i++) {
        e->float_values[i] = ct_retain(f[i]);
        e->quantized_values[i] = ct_retain(q[i]);
    }
    e->n = n;
    r->n++;
    return CT_OK;
}

/* ---- PyTorch's _find_match: keys compared without their last one or two parts, dots
   removed ("conv1.0.weight" -> "conv10" and "conv1") ---- */
static const char *ct__ns_last_part(const char *key) {
    const char *d = strrchr(key, '.');
    return d ? d + 1 : key;
}
static void ct__ns_join(const char *key, int drop, char *buf, size_t cap) {
    int parts = 1, part = 0;
    size_t j = 0;
    for (const char *p = key; *p; p++) parts += *p == '.';
    for (const char *p = key; *p && part < parts - drop; p++) {
        if (*p == '.') part++;
        else if (j + 1 < cap) buf[j++] = *p;
    }
    buf[j] = 0;
}
/* the index in keys of key's match, -1 when none (postfix: "weight" or "stats") */
static int ct__ns_find_match(int n, const char *const *keys, const char *key, const char *postfix) {
    if (strcmp(ct__ns_last_part(key), postfix)) return -1;
    char ms[512], p1[512], p2[512];
    ct__ns_join(key, 1, ms, sizeof ms);
    for (int i = 0; i < n; i++) {
        ct__ns_join(keys[i], 1, p1, sizeof p1);
        ct__ns_join(keys[i], 2, p2, sizeof p2);
        if (!strcmp(ms, p1) || !strcmp(ms, p2)) return i;
    }
    return -1;
}

/* ---- compare_weights ---- */
static ct_tensor *ct__ns_sd_find(const ct_state_dict *sd, const char *name) {
    for (int i = 0; i < sd->n; i++)
        if (!strcmp(sd->items[i].name, name)) return sd->items[i].tensor;
    return NULL;
}
/* the quantized weight behind key: the tensor itself, or DynamicQuantizedLinear's
   int8 codes with its weight_scale and weight_zero_point buffers made into one */
static ct_tensor *ct__ns_quantized_weight(const ct_state_dict *qd, const char *key, ct_tensor *v) {
    if (!v || v->dtype != CT_INT8) return v;
    char sn[512], zn[512];
    size_t plen = strlen(key) - strlen("weight");
    snprintf(sn, sizeof sn, "%.*sweight_scale", (int)plen, key);
    snprintf(zn, sizeof zn, "%.*sweight_zero_point", (int)plen, key);
    ct_tensor *s = ct__ns_sd_find(qd, sn), *z = ct__ns_sd_find(qd, zn);
    if (!s || !z) return v;
    if (ct_numel(s) == 1) return ct_make_per_tensor_quantized(v, ct_item(s), ct_item_int(z));
    return ct_make_per_channel_quantized(v, s, z, 0);
}
CTENSOR_API ct_status ct_ns_compare_weights(const ct_state_dict *float_dict, const ct_state_dict *quantized_dict, ct_ns_result *out) {
    const char *fn = "compare_weights";
    if (!out) {
        ct__null_arg(fn, 2);
        return ct_last_error_code();
    }
    out->n = 0;
    out->entries = NULL;
    if (!float_dict || !quantized_dict) {
        ct__null_arg(fn, !float_dict ? 0 : 1);
        return ct_last_error_code();
    }
    const char **fkeys = (const char **)CT_MALLOC(sizeof(char *) * (size_t)(float_dict->n ? float_dict->n : 1));
    if (!fkeys) return ct__ns_oom(fn);
    for (int i = 0; i < float_dict->n; i++) fkeys[i] = float_dict->items[i].name;
    int cap = 0, nq = 0, matched = 0, tok = ct_scope_begin();
    const char *first = NULL;
    ct_status st = CT_OK;
    for (int i = 0; i < quantized_dict->n && st == CT_OK; i++) {
        const char *key = quantized_dict->items[i].name;
        if (strcmp(ct__ns_last_part(key), "weight") || !quantized_dict->items[i].tensor) continue;
        ct_tensor *qw = ct__ns_quantized_weight(quantized_dict, key, quantized_dict->items[i].tensor);
        if (!qw) {
            st = ct_last_error_code();
            break;
        }
        int isq = CT__DT_QUANT(qw->dtype) != 0;
        nq += isq;
        if (isq && !first) first = key;
        int j = ct__ns_find_match(float_dict->n, fkeys, key, "weight");
        if (j < 0 || !float_dict->items[j].tensor) continue;
        matched += isq;
        st = ct__ns_add(fn, out, &cap, key, 1, &float_dict->items[j].tensor, &qw);
    }
    ct_scope_end(tok);
    CT_FREE(fkeys);
    if (st == CT_OK && nq == 0) {
        ct_set_error(CT_ERR_ARG, "%s: the quantized state dict has no quantized weight (is it a converted model's?)", fn);
        st = CT_ERR_ARG;
    } else if (st == CT_OK && matched == 0) {
        ct_set_error(CT_ERR_ARG, "%s: no quantized weight has a match in the float state dict ('%s' has none): are they the same model's?",
                     fn, first);
        st = CT_ERR_ARG;
    }
    if (st != CT_OK) ct_ns_result_free(out);
    return st;
}

/* ---- compare_model_outputs: OutputLogger modules put in the watched modules' slots ---- */
typedef struct ct__ns_log {
    ct_module *orig, *parent, *logger;
    int slot, n, cap;
    char *path, *key;                    /* "conv1", "conv1.stats" */
    ct_tensor **vals;
} ct__ns_log;
static ct_tensor *ct__ns_logger_forward(ct_module *m, int nin, ct_tensor *const *in) {
    ct__ns_log *l = (ct__ns_log *)m->impl;
    ct_tensor *y = ct_forward_n(l->orig, nin, in);
    if (!y) return NULL;
    if (l->n == l->cap) {
        int nc = l->cap ? 2 * l->cap : 2;
        ct_tensor **nv = (ct_tensor **)CT_REALLOC(l->vals, sizeof(ct_tensor *) * (size_t)nc);
        if (!nv) return ct__fail(CT_ERR_MEMORY, "OutputLogger: out of memory");
        l->vals = nv;
        l->cap = nc;
    }
    l->vals[l->n++] = ct_retain(y);
    return y;
}
static const ct_module_type ct__ns_logger_type = {"OutputLogger", ct__ns_logger_forward, NULL, NULL};
/* the type names of get_default_compare_output_module_list() that ctensor has, with
   ours of the quantized modules (PyTorch's classes share the float names); without
   DeQuantStub and DeQuantize, whose outputs PyTorch never pairs, and Dropout, which
   its prepare skips */
static int ct__ns_watched(const char *tn) {
    static const char *const names[] = {
        "QuantStub", "Quantize", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
        "ConvReLU1d", "ConvReLU2d", "ConvReLU3d", "ConvBn1d", "ConvBn2d", "ConvBn3d", "ConvBnReLU1d", "ConvBnReLU2d",
        "ConvBnReLU3d", "BNReLU2d", "BNReLU3d", "Linear", "LinearReLU", "LinearBn1d", "BatchNorm2d", "BatchNorm3d",
        "LayerNorm", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "Embedding", "EmbeddingBag",
        "LSTM", "LSTMCell", "GRU", "GRUCell", "RNNCell", "ELU", "Hardswish", "LeakyReLU", "PReLU", "ReLU6",
        "QuantizedConv2d", "QuantizedConvReLU2d", "QuantizedLinear", "QuantizedLinearReLU", "DynamicQuantizedLinear",
        "DynamicQuantizedLSTM"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(tn, names[i])) return 1;
    return 0;
}
/* fused modules are watched as one (PyTorch's _FusedModule) */
static int ct__ns_fused(const char *tn) {
    return !strncmp(tn, "ConvReLU", 8) || !strncmp(tn, "ConvBn", 6) || !strncmp(tn, "BNReLU", 6) || !strcmp(tn, "LinearReLU") ||
           !strcmp(tn, "LinearBn1d");
}
static int ct__ns_quantized_type(const char *tn) {
    return !strcmp(tn, "Quantize") || !strncmp(tn, "Quantized", 9) || !strncmp(tn, "DynamicQuantized", 16);
}
static int ct__ns_has_quantized(const ct_module *m) {
    for (int i = 0; i < m->nchildren; i++) {
        const ct_module *c = m->children[i].module;
        if (c && (ct__ns_quantized_type(c->type->name) || ct__ns_has_quantized(c))) return 1;
    }
    return 0;
}
typedef struct { ct__ns_log **v; int n, cap; } ct__ns_logs;
static void ct__ns_detach(ct__ns_logs *ls) {
    for (int i = ls->n - 1; i >= 0; i--) {
        ct__ns_log *l = ls->v[i];
        if (l->logger) {
            l->parent->children[l->slot].module = l->orig;
            ct_module_free(l->logger);
            l->logger = NULL;
        }
    }
}
static void ct__ns_logs_free(ct__ns_logs *ls) {
    ct__ns_detach(ls);
    for (int i = 0; i < ls->n; i++) {
        for (int k = 0; k < ls->v[i]->n; k++) ct_release(ls->v[i]->vals[k]);
        CT_FREE(ls->v[i]->vals);
        CT_FREE(ls->v[i]->path);
        CT_FREE(ls->v[i]->key);
        CT_FREE(ls->v[i]);
    }
    CT_FREE(ls->v);
    ls->v = NULL;
    ls->n = ls->cap = 0;
}
/* checks that m has no prepared module; with attach, puts a logger on each watched one */
static ct_status ct__ns_attach(const char *fn, ct_module *m, const char *prefix, ct__ns_logs *ls) {
    for (int i = 0; i < m->nchildren; i++) {
        ct_module *c = m->children[i].module;
        if (!c) continue;
        char path[512];
        snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", m->children[i].name);
        if (ct__q_is_observed(c) || ct_is_fake_quantize(c) || ct__q_child_index(c, "activation_post_process") >= 0) {
            ct_set_error(CT_ERR_STATE, "%s: module '%s' (%s) is prepared but not converted (ct_quant_convert)", fn, path, c->type->name);
            return CT_ERR_STATE;
        }
        if (!ct__ns_watched(c->type->name) || (c->nchildren > 0 && !ct__ns_fused(c->type->name))) {
            ct_status st = ct__ns_attach(fn, c, path, ls);
            if (st != CT_OK) return st;
            continue;
        }
        if (ls->n == ls->cap) {
            int nc = ls->cap ? 2 * ls->cap : 16;
            ct__ns_log **nv = (ct__ns_log **)CT_REALLOC(ls->v, sizeof(ct__ns_log *) * (size_t)nc);
            if (!nv) return ct__ns_oom(fn);
            ls->v = nv;
            ls->cap = nc;
        }
        ct__ns_log *l = CT__NEW_ZEROED(ct__ns_log);
        if (!l) return ct__ns_oom(fn);
        ls->v[ls->n++] = l;
        size_t kl = strlen(path) + sizeof ".stats";
        if (!(l->path = ct__strdup(path)) || !(l->key = (char *)CT_MALLOC(kl))) return ct__ns_oom(fn);
        snprintf(l->key, kl, "%s.stats", path);
        if (!(l->logger = ct_module_new(&ct__ns_logger_type, l))) return ct_last_error_code();
        l->orig = c;
        l->parent = m;
        l->slot = i;
        l->logger->training = c->training;
        m->children[i].module = l->logger;
    }
    return CT_OK;
}
static int ct__ns_cmp_desc(const void *a, const void *b) {
    return strcmp((*(const ct__ns_log *const *)b)->key, (*(const ct__ns_log *const *)a)->key);
}
CTENSOR_API ct_status ct_ns_compare_model_outputs(ct_module *float_model, ct_module *quantized_model, ct_tensor *x,
                                                  ct_ns_result *out) {
    const char *fn = "compare_model_outputs";
    if (!out) {
        ct__null_arg(fn, 3);
        return ct_last_error_code();
    }
    out->n = 0;
    out->entries = NULL;
    if (!float_model || !quantized_model || !x) {
        ct__null_arg(fn, !float_model ? 0 : !quantized_model ? 1 : 2);
        return ct_last_error_code();
    }
    if (float_model == quantized_model || !ct__ns_has_quantized(quantized_model)) {
        if (float_model == quantized_model) ct_set_error(CT_ERR_ARG, "%s: the float and the quantized model are the same module", fn);
        else ct_set_error(CT_ERR_ARG, "%s: the quantized model has no quantized module (was it converted with ct_quant_convert?)", fn);
        return CT_ERR_ARG;
    }
    ct__ns_logs fl = {NULL, 0, 0}, ql = {NULL, 0, 0};
    ct_status st = ct__ns_attach(fn, quantized_model, "", &ql);
    for (int i = 0; st == CT_OK && i < ql.n; i++)
        if (!ct_module_child(float_model, ql.v[i]->path)) {
            ct_set_error(CT_ERR_ARG, "%s: the quantized model's '%s' (%s) has no counterpart in the float model", fn, ql.v[i]->path,
                         ql.v[i]->orig->type->name);
            st = CT_ERR_ARG;
        }
    if (st == CT_OK) st = ct__ns_attach(fn, float_model, "", &fl);
    if (st == CT_OK) {
        int tok = ct_scope_begin(), g = ct_set_grad_enabled(0);
        if (!ct_forward(float_model, x) || !ct_forward(quantized_model, x)) st = ct_last_error_code();
        ct_set_grad_enabled(g);
        ct_scope_end(tok);
    }
    ct__ns_detach(&fl);
    ct__ns_detach(&ql);
    /* pairs: each quantized key with PyTorch's match among the float keys sorted in reverse */
    ct__ns_log **sorted = st == CT_OK ? (ct__ns_log **)CT_MALLOC(sizeof(ct__ns_log *) * (size_t)(fl.n ? fl.n : 1)) : NULL;
    const char **fkeys = st == CT_OK ? (const char **)CT_MALLOC(sizeof(char *) * (size_t)(fl.n ? fl.n : 1)) : NULL;
    if (st == CT_OK && (!sorted || !fkeys)) st = ct__ns_oom(fn);
    if (st == CT_OK) {
        memcpy(sorted, fl.v, sizeof(ct__ns_log *) * (size_t)fl.n);
        qsort(sorted, (size_t)fl.n, sizeof(ct__ns_log *), ct__ns_cmp_desc);
        for (int i = 0; i < fl.n; i++) fkeys[i] = sorted[i]->key;
    }
    for (int i = 0, cap = 0; st == CT_OK && i < ql.n; i++) {
        const ct__ns_log *q = ql.v[i];
        int j = q->n ? ct__ns_find_match(fl.n, fkeys, q->key, "stats") : -1;   /* (PyTorch skips modules that did not run) */
        if (j < 0) continue;
        const ct__ns_log *f = sorted[j];
        if (f->n != q->n) {
            ct_set_error(CT_ERR_STATE, "%s: '%s' ran %d times in the quantized model and its float match '%s' %d times", fn, q->path, q->n,
                         f->path, f->n);
            st = CT_ERR_STATE;
        } else
            st = ct__ns_add(fn, out, &cap, q->key, q->n, f->vals, q->vals);
    }
    CT_FREE(fkeys);
    CT_FREE(sorted);
    ct__ns_logs_free(&fl);
    ct__ns_logs_free(&ql);
    if (st != CT_OK) ct_ns_result_free(out);
    return st;
}

/* ---- QuantWrapper, per-layer sensitivity ---- */
static ct_tensor *ct__ns_qw_forward(ct_module *m, int nin, ct_tensor *const *in) {
    if (nin != 1) return ct__fail(CT_ERR_ARG, "QuantWrapper: forward takes 1 input (got %d)", nin);
    int kq = ct__q_child_index(m, "quant"), km = ct__q_child_index(m, "module"), kd = ct__q_child_index(m, "dequant");
    if (kq < 0 || km < 0 || kd < 0) return ct__fail(CT_ERR_STATE, "QuantWrapper: a child (quant, module or dequant) is missing");
    return ct_forward(m->children[kd].module, ct_forward(m->children[km].module, ct_forward(m->children[kq].module, in[0])));
}
static const ct_module_type ct__ns_qw_type = {"QuantWrapper", ct__ns_qw_forward, NULL, NULL};
CTENSOR_API ct_module *ct_nn_quant_wrapper(ct_module *module) {
    if (!module) {
        ct__null_arg("QuantWrapper", 0);
        return NULL;
    }
    ct_module *m = ct_module_new(&ct__ns_qw_type, NULL);
    if (!m) {
        ct_module_free(module);
        return NULL;
    }
    m->training = module->training;   /* (add_module gives the stubs this mode) */
    ct_status st = ct_module_add_module(m, "quant", ct_nn_quant_stub());
    if (st == CT_OK) st = ct_module_add_module(m, "dequant", ct_nn_dequant_stub());
    if (st != CT_OK) ct_module_free(module);
    else st = ct_module_add_module(m, "module", module);   /* (frees module when it fails) */
    if (st != CT_OK) {
        ct_module_free(m);
        return NULL;
    }
    module->training = m->training;
    return m;
}
static int ct__ns_candidate(const char *tn) {
    return !strcmp(tn, "Conv2d") || !strcmp(tn, "ConvReLU2d") || !strcmp(tn, "Linear") || !strcmp(tn, "LinearReLU");
}
typedef struct { char **paths; int max, n, failed; } ct__ns_layers;
static void ct__ns_layers_walk(const ct_module *m, const char *prefix, ct__ns_layers *ls) {
    for (int i = 0; i < m->nchildren && !ls->failed; i++) {
        const ct_module *c = m->children[i].module;
        if (!c) continue;
        char path[512];
        snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", m->children[i].name);
        if (!ct__ns_candidate(c->type->name)) ct__ns_layers_walk(c, path, ls);
        else if (ls->paths && ls->n < ls->max && !(ls->paths[ls->n] = ct__strdup(path))) ls->failed = 1;
        else ls->n++;
    }
}
CTENSOR_API int ct_ns_quantizable_layers(const ct_module *model, char **paths, int max) {
    if (!model) {
        ct__null_arg("ns_quantizable_layers", 0);
        return -1;
    }
    ct__ns_layers ls = {paths, max, 0, 0};
    ct__ns_layers_walk(model, "", &ls);
    if (!ls.failed) return ls.n;
    for (int i = 0; i < ls.n && i < max; i++) {   /* out of memory: the strings made so far freed */
        CT_FREE(paths[i]);
        paths[i] = NULL;
    }
    ct__ns_oom("ns_quantizable_layers");
    return -1;
}
/* the module at path in a QuantWrapper, in its place; the wrapper, or NULL */
static ct_module *ct__ns_wrap(const char *fn, ct_module *model, const char *path) {
    ct_module *c = ct_module_child(model, path);
    if (!c) return NULL;
    if (!ct__ns_candidate(c->type->name)) {
        ct_set_error(CT_ERR_ARG, "%s: '%s' is %s, not a Conv2d, ConvReLU2d, Linear or LinearReLU", fn, path, c->type->name);
        return NULL;
    }
    const char *dot = strrchr(path, '.');
    ct_module *parent = model;
    if (dot) {
        char pp[512];
        snprintf(pp, sizeof pp, "%.*s", (int)(dot - path), path);
        parent = ct_module_child(model, pp);
    }
    int slot = parent ? ct__q_child_index(parent, dot ? dot + 1 : path) : -1;
    if (slot < 0 || parent->children[slot].module != c) {
        ct_set_error(CT_ERR_STATE, "%s: '%s' was not found in its parent", fn, path);
        return NULL;
    }
    parent->children[slot].module = NULL;
    ct_module *w = ct_nn_quant_wrapper(c);   /* (frees c when it fails) */
    parent->children[slot].module = w;
    return w;
}
CTENSOR_API ct_status ct_ns_sensitivity(ct_ns_model_fn make, ct_ns_calibrate_fn calibrate, void *user, const ct_qconfig *qconfig,
                                        int nlayers, const char *const *layers, ct_tensor *x, ct_ns_result *out) {
    const char *fn = "sensitivity";
    if (!out) {
        ct__null_arg(fn, 7);
        return ct_last_error_code();
    }
    out->n = 0;
    out->entries = NULL;
    if (!make || !calibrate || !qconfig || !x) {
        ct__null_arg(fn, !make ? 0 : !calibrate ? 1 : !qconfig ? 3 : 6);
        return ct_last_error_code();
    }
    if (nlayers < 0 || (nlayers > 0 && !layers)) {
        if (nlayers < 0) ct_set_error(CT_ERR_ARG, "%s: the number of layers is negative (%d)", fn, nlayers);
        else ct_set_error(CT_ERR_ARG, "%s: %d layers but no names", fn, nlayers);
        return CT_ERR_ARG;
    }
    int tok = ct_scope_begin(), g = ct_set_grad_enabled(0), cap = 0, n = 0;
    char **paths = NULL;
    ct_status st = CT_OK;
    ct_module *m = make(user);
    ct_tensor *yf = m ? ct_forward(m, x) : NULL;
    if (!m) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "%s: make returned NULL", fn);
        st = ct_last_error_code();
    } else if (!yf)
        st = ct_last_error_code();
    else {
        n = layers ? nlayers : ct_ns_quantizable_layers(m, NULL, 0);
        paths = (char **)CT_MALLOC(sizeof(char *) * (size_t)(n > 0 ? n : 1));
        if (n < 0) st = ct_last_error_code();
        else if (!paths) st = ct__ns_oom(fn);
        else {
            memset(paths, 0, sizeof(char *) * (size_t)(n > 0 ? n : 1));
            for (int i = 0; layers && i < n && st == CT_OK; i++)
                if (!layers[i]) {
                    ct_set_error(CT_ERR_ARG, "%s: layer %d has no name", fn, i);
                    st = CT_ERR_ARG;
                } else if (!(paths[i] = ct__strdup(layers[i])))
                    st = ct__ns_oom(fn);
            if (!layers && ct_ns_quantizable_layers(m, paths, n) != n) st = ct_last_error_code();
        }
    }
    ct_module_free(m);
    for (int i = 0; st == CT_OK && i < n; i++) {
        int t2 = ct_scope_begin();
        ct_module *w = NULL;
        if (!(m = make(user))) {
            if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "%s: make returned NULL", fn);
        } else if ((w = ct__ns_wrap(fn, m, paths[i])) && ct_quant_prepare(w, qconfig, NULL) >= 0) {
            int rc = calibrate(m, user);
            if (rc != 0 && ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_STATE, "%s: calibrate returned %d", fn, rc);
            ct_tensor *yq = rc == 0 && ct_quant_convert(w) >= 0 ? ct_forward(m, x) : NULL;
            if (yq) st = ct__ns_add(fn, out, &cap, paths[i], 1, &yf, &yq);
            else w = NULL;
        } else
            w = NULL;
        if (!w) st = ct_last_error_code();
        ct_module_free(m);
        ct_scope_end(t2);
    }
    for (int i = 0; paths && i < n; i++) CT_FREE(paths[i]);
    CT_FREE(paths);
    ct_set_grad_enabled(g);
    ct_scope_end(tok);
    if (st != CT_OK) ct_ns_result_free(out);
    return st;
}

CT__GXX_POP
#endif /* CTENSOR_QUANT_IMPLEMENTATION_DONE */
#endif /* CTENSOR_QUANT_IMPLEMENTATION */
