/* ctensor_nn.h - torch.nn, torch.optim and torch.utils.data for ctensor.   v0.2 (2026-11-24)

   HOW TO USE
     #define CTENSOR_IMPLEMENTATION          (in exactly one file)
     #include "ctensor.h"
     #include "ctensor_nn.h"                 (always after ctensor.h)

     ctensor.h is tensors, ops, autograd and I/O; this header is modules and
     training: nn.Module and the layers, functional nn (convolution, pooling,
     normalization, dropout, embeddings, recurrent layers, losses), nn.init,
     optimizers, learning-rate schedulers, gradient clipping, datasets, data
     loaders and the IDX (MNIST) loader. It needs nothing but ctensor.h (zlib
     for .gz IDX files when CTENSOR_ZLIB is defined: link -lz).

     The implementation uses ctensor.h's internals (the op table, the dispatcher,
     autograd), so it is compiled in the translation unit that defines
     CTENSOR_IMPLEMENTATION; other files include both headers for declarations.

   CONTENTS (search for the banner titles)
     Declarations
       Neural networks: modules (torch.nn.Module)
       Module save/load as safetensors
       Convolution and pooling
       Resampling: interpolate, pixel shuffle, grid sampling
       Normalization, dropout, embeddings and recurrent layers
       Losses and distances
       Optimizers, learning-rate schedulers
       Data: datasets, data loaders, IDX files
       Attention and transformers (MultiheadAttention, encoder/decoder layers,
         fastpath, nested batches, KV cache)
       Profiler (torch.profiler)
     Implementation
       The op table of this header
       Neural networks: modules
       Convolution and pooling
       Convolution kernels: depthwise (and ct__nn_par_for, the parallel loop)
       Resampling: interpolate, pixel shuffle, grid sampling
       Normalization, dropout, embeddings, recurrent layers
       Losses and distances
       Optimizers, learning-rate schedulers, gradient clipping
       Data: IDX files, datasets, data loaders
       Attention and transformers: modules (regular path)
       Transformer fastpath: fused kernels, nested batches, KV cache
       Profiler (torch.profiler)

   REVISIONS
     0.2 (2026-11-24)  split from ctensor.h.
*/
#ifndef CTENSOR_NN_H_INCLUDED
#define CTENSOR_NN_H_INCLUDED

#include "ctensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================
   Neural networks: modules (torch.nn.Module)
   A module has named parameters (leaves that require grad, retained by the
   module), named buffers (running statistics...), named children, a training
   flag and a forward function. Names follow PyTorch, so state dicts carry
   PyTorch's keys ("features.0.weight"). Modules are not scope-managed: the
   caller owns a module and frees it with ct_module_free (children included).
   ========================================================================== */
typedef struct ct_module ct_module;
typedef ct_tensor *(*ct_forward_fn)(ct_module *m, int nin, ct_tensor *const *in);
typedef struct ct_module_type {
    const char *name;                                        /* "Linear" */
    ct_forward_fn forward;
    void (*destroy)(ct_module *m);                           /* frees m->impl (may be NULL) */
    int (*extra_repr)(const ct_module *m, char *buf, size_t cap); /* "in_features=3, ..." */
} ct_module_type;
typedef struct ct_named_tensor { char *name; ct_tensor *tensor; int persistent; } ct_named_tensor;
typedef struct ct_named_module { char *name; ct_module *module; } ct_named_module;
struct ct_module {
    const ct_module_type *type;
    int training;
    int nparams, nbuffers, nchildren;
    ct_named_tensor *params;       /* a NULL tensor is a registered-but-absent parameter (bias=False) */
    ct_named_tensor *buffers;
    ct_named_module *children;
    int cap_params, cap_buffers, cap_children;
    void *impl;                    /* the module type's own state */
};

/* Building modules (for module authors; the built-in constructors use these).
   Parameters, buffers and children share one namespace per module, as attributes
   of a PyTorch module do: registering a name that the module already has (as a
   parameter, a buffer or a child) is an error, "attribute 'x' already exists". */
CTENSOR_API ct_module *ct_module_new(const ct_module_type *type, void *impl);
CTENSOR_API ct_status ct_module_register_parameter(ct_module *m, const char *name, ct_tensor *t);  /* retains; NULL allowed */
CTENSOR_API ct_status ct_module_register_buffer(ct_module *m, const char *name, ct_tensor *t, int persistent);
CTENSOR_API ct_status ct_module_add_module(ct_module *m, const char *name, ct_module *child);   /* takes ownership */
CTENSOR_API void ct_module_free(ct_module *m);
/* Running and inspecting modules. */
CTENSOR_API ct_tensor *ct_forward(ct_module *m, ct_tensor *x);
CTENSOR_API ct_tensor *ct_forward_n(ct_module *m, int nin, ct_tensor *const *in);
CTENSOR_API ct_module *ct_module_train(ct_module *m, int mode);   /* recursive; returns m */
CTENSOR_API ct_module *ct_module_eval(ct_module *m);
/* model.get_submodule("features.0") / model.get_parameter("features.0.weight")
   (or a buffer): by dotted name, borrowed. An unknown name is an error
   (CT_ERR_ARG) that names the module and the closest names it has:
     module_get: module 'features.0' (Conv2d) has no parameter or buffer 'wieght'; did you mean 'weight'?
   A parameter registered as absent (bias=False) gives NULL without an error,
   as PyTorch gives None. */
CTENSOR_API ct_module *ct_module_child(const ct_module *m, const char *dotted_name);
CTENSOR_API ct_tensor *ct_module_get(const ct_module *m, const char *dotted_name);
/* Parameters in PyTorch's order (own, then children's, recursively); NULL ones skipped.
   Returns the total count; fills up to max entries of out (out may be NULL). */
CTENSOR_API int ct_module_parameters(const ct_module *m, ct_tensor **out, int max);
CTENSOR_API int64_t ct_module_num_elements(const ct_module *m);   /* sum of numel over parameters */
/* A state dict: full names -> tensors (parameters, then persistent buffers, then
   children, recursively: PyTorch's order). The tensors are the module's own
   (borrowed); free the list with ct_state_dict_free. */
typedef struct ct_state_dict { int n; ct_named_tensor *items; } ct_state_dict;
CTENSOR_API ct_status ct_module_state_dict(const ct_module *m, ct_state_dict *out);
CTENSOR_API void ct_state_dict_free(ct_state_dict *sd);
/* Copies values from sd into the module's tensors (under no_grad). strict:
   missing or unexpected keys are errors. Shape mismatches are always errors.
   The message is PyTorch's "Error(s) in loading state_dict for ..." report. */
CTENSOR_API ct_status ct_module_load_state_dict(ct_module *m, const ct_state_dict *sd, int strict);
/* print(model) */
CTENSOR_API size_t ct_module_repr(const ct_module *m, char *buf, size_t cap);
#ifndef CTENSOR_NO_STDIO
CTENSOR_API void ct_module_print(const ct_module *m);
#endif
CTENSOR_API void ct_module_zero_grad(ct_module *m);   /* .grad = None for every parameter */
/* model.to(device) / model.to(dtype) (model.double(), model.half()): every
   parameter and buffer of m and its children, and each parameter's .grad,
   converted in place. The tensors stay the same objects (their data moves, as
   PyTorch's param.data = ... does), so pointers into the module, ct_module_get
   results and optimizers made afterwards all see the converted tensors; views
   taken before the move keep the old data. ct_module_to_dtype converts only
   floating point tensors (integer buffers such as num_batches_tracked stay
   int64), as PyTorch does. All or nothing: when one copy fails (out of device
   memory, a device without kernels), the module is left as it was and NULL is
   returned with the error; else m.
       ct_module *net = ct_module_to(make_net(), ct_cuda(0));
   An optimizer's state (momentum, Adam's moments) is not moved: make the
   optimizer after moving the module, as PyTorch's documentation advises. */
CTENSOR_API ct_module *ct_module_to(ct_module *m, ct_device device);
CTENSOR_API ct_module *ct_module_to_dtype(ct_module *m, ct_dtype dtype);

/* Containers. ct_nn_sequential(a, b, c) takes ownership of its arguments; if any
   is NULL (its constructor failed) the others are freed and NULL is returned. */
CTENSOR_API ct_module *ct_nn_sequential_n(int n, ct_module *const *mods);
CTENSOR_API ct_module *ct_nn_module_list_n(int n, ct_module *const *mods);
typedef struct ct__mlist { ct_module *v[32]; } ct__mlist;
#define CT__NARGS32_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, \
                     _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, N, ...) N
#define CT__NARGS32(...) CT__NARGS32_(__VA_ARGS__, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, \
                                      15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#ifdef __cplusplus
#  define CT__MODS(...) (ct__mlist{{__VA_ARGS__}}.v)
#else
#  define CT__MODS(...) ((ct__mlist){{__VA_ARGS__}}.v)
#endif
#define ct_nn_sequential(...) ct_nn_sequential_n(CT__NARGS32(__VA_ARGS__), CT__MODS(__VA_ARGS__))
#define ct_nn_module_list(...) ct_nn_module_list_n(CT__NARGS32(__VA_ARGS__), CT__MODS(__VA_ARGS__))
/* nn.Sequential(OrderedDict([("conv1", ...), ("relu1", ...)])): children under
   names of your choosing, so state-dict keys follow the PyTorch model's
   ("heads.head.weight", "features.conv1.weight"):
     ct_module *heads = ct_nn_sequential_dict({"pre_logits", ct_nn_identity()},
                                              {"head", ct_nn_linear(768, 1000)});
   Each child is a {name, module} pair (at most 64; ct_nn_sequential_named takes
   an array of any length: n pairs, or n < 0 for "up to the first NULL name").
   Takes ownership of the modules like ct_nn_sequential; a NULL module (its
   constructor failed) or a bad name (empty, with a '.', or repeated) frees them
   all and returns NULL with the error. Names are copied. */
typedef struct ct_nn_named_module { const char *name; ct_module *module; } ct_nn_named_module;
CTENSOR_API ct_module *ct_nn_sequential_named(int n, const ct_nn_named_module *children);
typedef struct ct__nmlist { ct_nn_named_module v[65]; } ct__nmlist;   /* v[64] stays {NULL, NULL}: the end */
#ifdef __cplusplus
#  define ct_nn_sequential_dict(...) ct_nn_sequential_named(-1, ct__nmlist{{__VA_ARGS__}}.v)
#else
#  define ct_nn_sequential_dict(...) ct_nn_sequential_named(-1, (ct__nmlist){{__VA_ARGS__}}.v)
#endif
CTENSOR_API ct_status ct_nn_module_list_append(ct_module *list, ct_module *m);
CTENSOR_API ct_module *ct_nn_module_list_get(const ct_module *list, int i);
CTENSOR_API int ct_nn_module_list_len(const ct_module *list);

/* Layers and activations (PyTorch's defaults and initialization). */
CTENSOR_API ct_module *ct_nn_linear(int64_t in_features, int64_t out_features);
CTENSOR_API ct_module *ct_nn_linear_bias(int64_t in_features, int64_t out_features, int bias);
CTENSOR_API ct_module *ct_nn_identity(void);
CTENSOR_API ct_module *ct_nn_flatten(void);                              /* start_dim=1, end_dim=-1 */
CTENSOR_API ct_module *ct_nn_flatten_dims(int start_dim, int end_dim);
CTENSOR_API ct_module *ct_nn_unflatten(int dim, int n, const int64_t *sizes);
CTENSOR_API ct_module *ct_nn_relu(void);
CTENSOR_API ct_module *ct_nn_relu6(void);
CTENSOR_API ct_module *ct_nn_sigmoid(void);
CTENSOR_API ct_module *ct_nn_tanh(void);
CTENSOR_API ct_module *ct_nn_selu(void);
CTENSOR_API ct_module *ct_nn_silu(void);
CTENSOR_API ct_module *ct_nn_mish(void);
CTENSOR_API ct_module *ct_nn_hardsigmoid(void);
CTENSOR_API ct_module *ct_nn_hardswish(void);
CTENSOR_API ct_module *ct_nn_logsigmoid(void);
CTENSOR_API ct_module *ct_nn_leaky_relu(double negative_slope);
CTENSOR_API ct_module *ct_nn_elu(double alpha);
CTENSOR_API ct_module *ct_nn_celu(double alpha);
CTENSOR_API ct_module *ct_nn_gelu(const char *approximate);
CTENSOR_API ct_module *ct_nn_softplus(double beta, double threshold);
CTENSOR_API ct_module *ct_nn_hardtanh(double min_val, double max_val);
CTENSOR_API ct_module *ct_nn_threshold(double threshold, double value);

/* nn.init (PyTorch's formulas, ctensor's generator: same seed, same values).
   Every random fill below, and so every module constructor (they initialise
   through these), draws from the default generator, or from the calling
   thread's init generator while one is set:

     ct_generator g;
     ct_generator_init(&g, 0);                     // torch.Generator().manual_seed(0)
     CT_INIT_GENERATOR(&g) {                       // this thread, this block
         model = ct_nn_sequential(ct_nn_linear(3, 2), ct_nn_relu());
     }

   That is PyTorch's generator= argument of nn.init (PyTorch 2.x) for a whole
   block: two threads each with their own generator build identical models
   without touching the global seed (PyTorch 1.13's modules always use it).
   Blocks nest (up to 32 deep); with gcc/clang and in C++ a return or goto out
   of the block restores the previous generator, as with CT_NO_GRAD. */
CTENSOR_API ct_generator *ct_nn_init_generator(void);                      /* this thread's, NULL: the default */
CTENSOR_API ct_generator *ct_nn_set_init_generator(ct_generator *g);      /* returns the previous one */
CTENSOR_API int ct__nn_push_init_generator(ct_generator *g);
CTENSOR_API void ct__nn_pop_init_generator(int *token);
#define CT_INIT_GENERATOR(g) CT__MODE_BLOCK(ct__nn_push_init_generator, ct__nn_pop_init_generator, g, __LINE__)
/* torch.nn.utils.skip_init / the meta device, for weights about to be loaded:
   inside CT_SKIP_INIT { ... } (this thread) every ct_nn_init_* fill returns its
   tensor untouched, so module constructors allocate their parameters but do not
   fill them: their values are whatever the allocator returned (not zeros, maybe
   NaN) until a state dict or safetensors file is loaded into them. Constant
   tensors that constructors make directly (BatchNorm's weight, bias and running
   statistics) are still set; they cost nothing.

     CT_SKIP_INIT { model = resnet18(); }           // no random numbers drawn
     ct_module_load_safetensors(model, "resnet18.safetensors", 1);   // strict: every tensor set

   Load strictly: with strict = 0 a key missing from the file leaves that tensor
   unset. ct_nn_set_skip_init returns the previous setting. */
CTENSOR_API int ct_nn_skip_init_enabled(void);
CTENSOR_API int ct_nn_set_skip_init(int skip);
CTENSOR_API void ct__nn_restore_skip_init(int *prev);
#define CT_SKIP_INIT CT__MODE_BLOCK(ct_nn_set_skip_init, ct__nn_restore_skip_init, 1, __LINE__)
CTENSOR_API int64_t ct_nn_init_fan_in(const ct_tensor *t);
CTENSOR_API int64_t ct_nn_init_fan_out(const ct_tensor *t);
CTENSOR_API double ct_nn_init_calculate_gain(const char *nonlinearity, double param);
CTENSOR_API ct_tensor *ct_nn_init_uniform_(ct_tensor *t, double a, double b);
CTENSOR_API ct_tensor *ct_nn_init_normal_(ct_tensor *t, double mean, double std);
CTENSOR_API ct_tensor *ct_nn_init_constant_(ct_tensor *t, double v);
CTENSOR_API ct_tensor *ct_nn_init_zeros_(ct_tensor *t);
CTENSOR_API ct_tensor *ct_nn_init_ones_(ct_tensor *t);
CTENSOR_API ct_tensor *ct_nn_init_eye_(ct_tensor *t);
CTENSOR_API ct_tensor *ct_nn_init_xavier_uniform_(ct_tensor *t, double gain);
CTENSOR_API ct_tensor *ct_nn_init_xavier_normal_(ct_tensor *t, double gain);
/* mode: "fan_in" or "fan_out"; nonlinearity: "leaky_relu", "relu", ... */
CTENSOR_API ct_tensor *ct_nn_init_kaiming_uniform_(ct_tensor *t, double a, const char *mode, const char *nonlinearity);
CTENSOR_API ct_tensor *ct_nn_init_kaiming_normal_(ct_tensor *t, double a, const char *mode, const char *nonlinearity);
CTENSOR_API ct_tensor *ct_nn_init_orthogonal_(ct_tensor *t, double gain);
CTENSOR_API ct_tensor *ct_nn_init_trunc_normal_(ct_tensor *t, double mean, double std, double a, double b);

/* [section: nn-io-api] */
/* ============================================================================
   Module save/load as safetensors (safetensors.torch.save_model / load_model):
   the file holds the module's state dict under PyTorch's key names ("0.weight",
   "features.1.running_mean", ...), each tensor in its own dtype (int64 buffers
   such as num_batches_tracked stay int64), written byte for byte as the
   reference writer (and examples/torch_interop/export.py) would write it.
   Loading reads every tensor, refuses a dtype that differs from the module's
   tensor (naming the key: PyTorch would convert silently, a checkpoint of the
   wrong precision is almost always a mistake), then loads the state dict:
   strict: missing and unexpected keys are errors, with PyTorch's
   "Error(s) in loading state_dict for ..." report; shape mismatches are always
   errors. Nothing is changed on error.
   ========================================================================== */
CTENSOR_API ct_status ct_module_save_safetensors_mem(const ct_module *m, void **data, size_t *len);   /* free *data with ct_free */
CTENSOR_API ct_status ct_module_load_safetensors_mem(ct_module *m, const void *data, size_t len, int strict);
#ifndef CTENSOR_NO_STDIO
CTENSOR_API ct_status ct_module_save_safetensors(const ct_module *m, const char *path);
CTENSOR_API ct_status ct_module_load_safetensors(ct_module *m, const char *path, int strict);
#endif

/* [section: nn-conv-api] */
/* ============================================================================
   Convolution and pooling (torch.nn.functional.conv*, *_pool*, and their modules)
   Inputs are (N, C, H, W) or unbatched (C, H, W); 1-d forms take (N, C, L) or (C, L).
   Memory formats as PyTorch 1.13's CPU ops (ct_suggest_memory_format decides): a
   channels-last input gives a channels-last output; conv2d also for a channels-last
   weight, and its gradients come back channels-last (the weight's too, from
   ct_autograd_grad; .grad keeps its leaf's layout); conv_transpose2d's output is
   contiguous (slow_conv_transpose2d's).
   Options structs: a zero field means PyTorch's default; NULL means all defaults.
   The scalar fields (stride, padding, ...) apply to both spatial dims; the _hw
   arrays, when any entry is nonzero, give (H, W) separately.
   Float32 and float64 only (PyTorch also runs integer convolutions).
   ========================================================================== */
typedef struct ct_conv_options {
    int64_t stride, padding, dilation, groups;  /* 0: 1, 0, 1, 1 */
    const char *padding_str;                    /* "same" or "valid" (overrides padding); NULL: use padding */
    int64_t output_padding;                     /* conv_transpose2d only */
    int64_t stride_hw[2], padding_hw[2], dilation_hw[2], output_padding_hw[2];
} ct_conv_options;
/* F.conv2d(x, weight, bias, ...): weight (out, in/groups, kH, kW); bias NULL or (out) */
CTENSOR_API ct_tensor *ct_conv2d(const ct_tensor *x, const ct_tensor *weight, const ct_tensor *bias, const ct_conv_options *o);
/* F.conv1d: weight (out, in/groups, k); only the first entries of the options are used */
CTENSOR_API ct_tensor *ct_conv1d(const ct_tensor *x, const ct_tensor *weight, const ct_tensor *bias, const ct_conv_options *o);
/* F.conv_transpose2d: weight (in, out/groups, kH, kW); padding_str is not allowed */
CTENSOR_API ct_tensor *ct_conv_transpose2d(const ct_tensor *x, const ct_tensor *weight, const ct_tensor *bias,
                                           const ct_conv_options *o);
/* Winograd convolution for float32 NCHW conv2d with a 3x3 kernel, stride 1, dilation 1,
   groups 1 (any padding), and the stride-1 conv_transpose2d that is its input gradient
   (padding <= 2), where it measured faster than the direct kernels: at least 16 input
   and output channels and 64 or more output tiles over the batch (ResNet's 56x56 and
   28x28 3x3 layers at batch 1, Fashion-MNIST's 14x14 conv at batch 64; not 14x14 or
   7x7 at batch 1). mode 1 (the default): F(2x2, 3x3), 1 thread 1.3-1.7x the direct
   kernels (64 -> 64 on 8x64x56x56: 10.1 -> 6.1 ms, PyTorch 7.8 ms; 32 -> 64 on
   64x32x14x14: 3.1 -> 1.9 ms, PyTorch 2.0 ms); 2: F(4x4, 3x3), 2.2x the direct kernel
   on 8x64x56x56 but about 25x the rounding error of mode 1; 0: off (the direct paths, as PyTorch's CPU conv).
   Measured error, max |y - exact| over the outputs / the largest sum of |x||w| over a
   window (tests/test_nn_conv_paths.c, test_winograd): direct 1.7e-7, mode 1 1.0e-7
   (within PyTorch-made fixtures' rtol 1e-4 / atol 1e-5), mode 2 2.6e-6 (which fails
   two of them).
   Float64, channels-last and other geometries never use it. A process-wide setting,
   read when an op runs; values other than 1 and 2 mean 0. */
CTENSOR_API void ct_set_conv_winograd(int mode);
CTENSOR_API int ct_get_conv_winograd(void);

typedef struct ct_pool_options {
    int64_t stride, padding, dilation;           /* 0: kernel_size, 0, 1 (avg pools have no dilation) */
    int ceil_mode;
    int count_exclude_pad;                       /* avg: count_include_pad=False */
    int64_t divisor_override;                    /* avg: 0 = none */
    int64_t kernel_size_hw[2], stride_hw[2], padding_hw[2], dilation_hw[2];
} ct_pool_options;
CTENSOR_API ct_tensor *ct_max_pool2d(const ct_tensor *x, int64_t kernel_size, const ct_pool_options *o);
/* max_pool2d(return_indices=True): *indices (int64, flat h * W + w per plane) may be NULL */
CTENSOR_API ct_tensor *ct_max_pool2d_with_indices(const ct_tensor *x, int64_t kernel_size, const ct_pool_options *o,
                                                  ct_tensor **indices);
CTENSOR_API ct_tensor *ct_avg_pool2d(const ct_tensor *x, int64_t kernel_size, const ct_pool_options *o);
CTENSOR_API ct_tensor *ct_max_pool1d(const ct_tensor *x, int64_t kernel_size, const ct_pool_options *o);
CTENSOR_API ct_tensor *ct_avg_pool1d(const ct_tensor *x, int64_t kernel_size, const ct_pool_options *o);
CTENSOR_API ct_tensor *ct_adaptive_avg_pool2d(const ct_tensor *x, int64_t out_h, int64_t out_w);

/* Modules: nn.Conv2d / Conv1d / ConvTranspose2d / MaxPool2d / AvgPool2d /
   AdaptiveAvgPool2d, PyTorch's initialization (same seed, same weights),
   parameter names ("weight", "bias") and repr. */
typedef struct ct_conv_module_options {
    int64_t kernel_size, stride, padding, dilation, groups;   /* 0: -, 1, 0, 1, 1 */
    const char *padding_str;                                  /* "same" / "valid" */
    int64_t output_padding;                                   /* ConvTranspose2d */
    int no_bias;                                              /* bias=False */
    int64_t kernel_size_hw[2], stride_hw[2], padding_hw[2], dilation_hw[2], output_padding_hw[2];
} ct_conv_module_options;
typedef ct_conv_module_options ct_conv2d_module_options;
CTENSOR_API ct_module *ct_nn_conv2d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride,
                                    int64_t padding);
/* The _ex forms take PyTorch's positional arguments in PyTorch's order, so
   nn.Conv2d(64, 64, 3, 1, 1, 1, 1, False) is ct_nn_conv2d_ex(64, 64, 3, 1, 1, 1, 1, 0):
     Conv2d / Conv1d:  (in, out, kernel_size, stride, padding, dilation, groups, bias)
     ConvTranspose2d:  (in, out, kernel_size, stride, padding, output_padding, groups, bias, dilation)
   The short forms are the _ex forms with dilation 1, groups 1, bias on. */
CTENSOR_API ct_module *ct_nn_conv2d_ex(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride,
                                       int64_t padding, int64_t dilation, int64_t groups, int bias);
CTENSOR_API ct_module *ct_nn_conv1d_ex(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride,
                                       int64_t padding, int64_t dilation, int64_t groups, int bias);
CTENSOR_API ct_module *ct_nn_conv_transpose2d_ex(int64_t in_channels, int64_t out_channels, int64_t kernel_size,
                                                 int64_t stride, int64_t padding, int64_t output_padding, int64_t groups,
                                                 int bias, int64_t dilation);
CTENSOR_API ct_module *ct_nn_conv2d_opts(int64_t in_channels, int64_t out_channels, const ct_conv_module_options *o);
CTENSOR_API ct_module *ct_nn_conv1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride,
                                    int64_t padding);
CTENSOR_API ct_module *ct_nn_conv1d_opts(int64_t in_channels, int64_t out_channels, const ct_conv_module_options *o);
CTENSOR_API ct_module *ct_nn_conv_transpose2d(int64_t in_channels, int64_t out_channels, int64_t kernel_size,
                                              int64_t stride, int64_t padding);
CTENSOR_API ct_module *ct_nn_conv_transpose2d_opts(int64_t in_channels, int64_t out_channels,
                                                   const ct_conv_module_options *o);
CTENSOR_API ct_module *ct_nn_max_pool2d(int64_t kernel_size, int64_t stride);   /* stride 0: kernel_size */
CTENSOR_API ct_module *ct_nn_max_pool2d_opts(int64_t kernel_size, const ct_pool_options *o);
CTENSOR_API ct_module *ct_nn_avg_pool2d(int64_t kernel_size, int64_t stride);
CTENSOR_API ct_module *ct_nn_avg_pool2d_opts(int64_t kernel_size, const ct_pool_options *o);
CTENSOR_API ct_module *ct_nn_adaptive_avg_pool2d(int64_t out_h, int64_t out_w);

/* [section: nn-resample-api] */
/* ============================================================================
   Resampling: interpolate, pixel shuffle, grid sampling
   (torch.nn.functional.interpolate, pixel_shuffle, pixel_unshuffle,
   affine_grid, grid_sample; the modules nn.Upsample, UpsamplingNearest2d,
   UpsamplingBilinear2d, PixelShuffle, PixelUnshuffle), PyTorch 1.13's
   semantics: the same source indices, interpolation weights and output sizes.
   Float32 and float64 (pixel shuffles: every dtype). Everything is
   differentiable; the upsampling backward ops are linear in the gradient, so
   they differentiate again (any order). grid_sample's backward, as PyTorch's,
   has no derivative of its own (double backward is an error naming it).
   A channels-last 4-D input (5-D: channels-last-3d strides) gives a
   channels-last output, as PyTorch's suggest_memory_format does (except
   bicubic, whose output is contiguous in PyTorch 1.13 too).
   ========================================================================== */
/* F.interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor).
   input: [N, C, W] (mode "nearest", "nearest-exact", "linear", "area"),
   [N, C, H, W] ("nearest", "nearest-exact", "bilinear", "bicubic", "area") or
   [N, C, D, H, W] ("nearest", "nearest-exact", "trilinear", "area").
   size / scale_factor: exactly one is given; one entry applies to every spatial
   dim (PyTorch's int / float), or one entry per spatial dim in order (a tuple);
   the entries after the last nonzero one are not given. "area" is adaptive
   average pooling to the size (scale_factor: the size floor(in * scale)).
   antialias=True is not supported (an error). */
typedef struct ct_interpolate_options {
    int64_t size[3];              /* output spatial size; {0}: not given */
    double scale_factor[3];       /* {0}: not given */
    const char *mode;             /* NULL: "nearest" */
    int align_corners;            /* 1: True; 0: None (False for the interpolating modes); -1: an explicit False */
    int recompute_scale_factor;   /* 1: True; 0: None; -1: False */
    int antialias;                /* must stay 0 */
} ct_interpolate_options;
CTENSOR_API ct_tensor *ct_interpolate(const ct_tensor *input, const ct_interpolate_options *o);
/* F.pixel_shuffle(input, r): [*, C * r * r, H, W] -> [*, C, H * r, W * r];
   F.pixel_unshuffle(input, r): the inverse. Any number of leading dims. */
CTENSOR_API ct_tensor *ct_pixel_shuffle(const ct_tensor *input, int64_t upscale_factor);
CTENSOR_API ct_tensor *ct_pixel_unshuffle(const ct_tensor *input, int64_t downscale_factor);
/* F.affine_grid(theta, size, align_corners): theta [N, 2, 3] with size
   {N, C, H, W} (n = 4) gives [N, H, W, 2]; theta [N, 3, 4] with size
   {N, C, D, H, W} (n = 5) gives [N, D, H, W, 3]. Differentiable in theta. */
CTENSOR_API ct_tensor *ct_affine_grid(const ct_tensor *theta, int n, const int64_t *size, int align_corners);
/* F.grid_sample(input, grid, mode, padding_mode, align_corners): input
   [N, C, H, W] with grid [N, OH, OW, 2] (x, y in [-1, 1]) gives [N, C, OH, OW];
   input [N, C, D, H, W] with grid [N, OD, OH, OW, 3] gives [N, C, OD, OH, OW]
   ("bicubic" is 4-D only, as in PyTorch). Gradients for input and grid. */
typedef struct ct_grid_sample_options {
    const char *mode;             /* NULL: "bilinear"; "nearest", "bicubic" */
    const char *padding_mode;     /* NULL: "zeros"; "border", "reflection" */
    int align_corners;            /* nonzero: True (0: False; PyTorch warns when it is not given) */
} ct_grid_sample_options;
CTENSOR_API ct_tensor *ct_grid_sample(const ct_tensor *input, const ct_tensor *grid, const ct_grid_sample_options *o);

/* Modules. nn.Upsample(size, scale_factor, mode, align_corners,
   recompute_scale_factor): the options are copied (antialias must be 0).
   nn.UpsamplingNearest2d / UpsamplingBilinear2d (align_corners=True) read only
   size and scale_factor. nn.PixelShuffle(r) / PixelUnshuffle(r). The reprs
   are PyTorch's: "Upsample(scale_factor=2.0, mode=bilinear)". */
CTENSOR_API ct_module *ct_nn_upsample(const ct_interpolate_options *o);
CTENSOR_API ct_module *ct_nn_upsampling_nearest2d(const ct_interpolate_options *o);
CTENSOR_API ct_module *ct_nn_upsampling_bilinear2d(const ct_interpolate_options *o);
CTENSOR_API ct_module *ct_nn_pixel_shuffle(int64_t upscale_factor);
CTENSOR_API ct_module *ct_nn_pixel_unshuffle(int64_t downscale_factor);
#ifdef __cplusplus
}  /* extern "C": options structs by reference for C++ */
static inline ct_tensor *ct_interpolate(const ct_tensor *input, const ct_interpolate_options &o) { return ct_interpolate(input, &o); }
static inline ct_tensor *ct_grid_sample(const ct_tensor *input, const ct_tensor *grid, const ct_grid_sample_options &o) {
    return ct_grid_sample(input, grid, &o);
}
static inline ct_module *ct_nn_upsample(const ct_interpolate_options &o) { return ct_nn_upsample(&o); }
static inline ct_module *ct_nn_upsampling_nearest2d(const ct_interpolate_options &o) { return ct_nn_upsampling_nearest2d(&o); }
static inline ct_module *ct_nn_upsampling_bilinear2d(const ct_interpolate_options &o) { return ct_nn_upsampling_bilinear2d(&o); }
extern "C" {
#endif

/* [section: nn-norm-api] */
/* ============================================================================
   Normalization, dropout, embeddings and recurrent layers
   (torch.nn.functional.batch_norm / layer_norm / group_norm / dropout /
   embedding / embedding_bag, and the modules BatchNorm1d/2d, LayerNorm,
   GroupNorm, Dropout, Embedding, EmbeddingBag, Softmax, LogSoftmax, LSTM, GRU)
   Every function goes through the dispatcher and is differentiable (float32
   and float64). batch_norm and layer_norm run fused kernels (NCHW and
   channels-last for batch_norm); their second derivatives are recorded
   through ordinary ops when create_graph is set.
   ========================================================================== */
/* F.batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps).
   x: [N, C, *]. weight, bias, running_mean, running_var: [C] or NULL.
   training: normalizes with the batch statistics (biased variance) and, when
   running stats are given, updates them in place (no grad):
   running = (1 - momentum) * running + momentum * batch stat, with the
   unbiased variance, as PyTorch does. Not training: uses the running stats. */
CTENSOR_API ct_tensor *ct_batch_norm(const ct_tensor *x, ct_tensor *running_mean, ct_tensor *running_var,
                                     const ct_tensor *weight, const ct_tensor *bias, int training, double momentum,
                                     double eps);
/* F.layer_norm(x, normalized_shape, weight, bias, eps): normalizes over the
   trailing n dims; weight/bias of shape normalized_shape or NULL. */
CTENSOR_API ct_tensor *ct_layer_norm(const ct_tensor *x, int n, const int64_t *normalized_shape, const ct_tensor *weight,
                                     const ct_tensor *bias, double eps);
/* F.group_norm(x, num_groups, weight, bias, eps): x [N, C, *]; weight/bias [C] or NULL. */
CTENSOR_API ct_tensor *ct_group_norm(const ct_tensor *x, int64_t num_groups, const ct_tensor *weight,
                                     const ct_tensor *bias, double eps);
/* F.dropout(x, p, training): PyTorch 1.13's CPU algorithm, so a seeded
   generator gives PyTorch's mask: x * empty_like(x).bernoulli_(1 - p) / (1 - p).
   p = 0 or not training: x unchanged (an alias); p = 1: zeros. */
CTENSOR_API ct_tensor *ct_dropout(const ct_tensor *x, double p, int training);
/* F.embedding(indices, weight, padding_idx): rows of weight [num, dim] picked by
   int64/int32 indices; the output is indices.shape + [dim]. The row padding_idx
   gets no gradient (CT_NO_PADDING_IDX: none; negative values count from the end). */
#define CT_NO_PADDING_IDX INT64_MIN
CTENSOR_API ct_tensor *ct_embedding(const ct_tensor *indices, const ct_tensor *weight, int64_t padding_idx);
/* torch.embedding_renorm_(weight, indices, max_norm, norm_type): each row of weight
   [num, dim] that indices name (once however often named) whose norm_type-norm is
   above max_norm is scaled in place by max_norm / (norm + 1e-7), with no gradient
   recorded: what F.embedding / nn.Embedding do first when given max_norm. Returns
   weight (NULL and nothing changed on bad input). */
CTENSOR_API ct_tensor *ct_embedding_renorm_(ct_tensor *weight, const ct_tensor *indices, double max_norm, double norm_type);
/* F.embedding_bag(input, weight, offsets, mode=..., per_sample_weights=...,
   include_last_offset=...): input 1-D with offsets [B] (or [B + 1] with
   include_last_offset), or 2-D [B, L] with offsets NULL (each row one bag).
   mode: "sum", "mean" or "max" (NULL: "mean"); per_sample_weights (like input)
   only with "sum". Empty bags give zeros. Output [B, dim]. */
CTENSOR_API ct_tensor *ct_embedding_bag(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *offsets,
                                        const char *mode, const ct_tensor *per_sample_weights, int include_last_offset);

/* Modules. Options structs: a zero field means PyTorch's default; CT_ZERO
   (-0.0) asks for an explicit 0 where the default is not 0. */
typedef struct ct_batch_norm_options {
    double eps;                 /* 0: 1e-5 */
    double momentum;            /* 0: 0.1; NAN: None (cumulative moving average) */
    int no_affine;              /* PyTorch's affine=False */
    int no_track_running_stats; /* PyTorch's track_running_stats=False */
} ct_batch_norm_options;
/* nn.BatchNorm1d (input [N, C] or [N, C, L]) and nn.BatchNorm2d ([N, C, H, W]):
   parameters weight, bias; buffers running_mean, running_var,
   num_batches_tracked (int64). Training mode (ct_module_train) uses batch
   statistics and updates the buffers; eval mode uses the running statistics. */
CTENSOR_API ct_module *ct_nn_batch_norm1d(int64_t num_features);
CTENSOR_API ct_module *ct_nn_batch_norm2d(int64_t num_features);
CTENSOR_API ct_module *ct_nn_batch_norm1d_ex(int64_t num_features, const ct_batch_norm_options *o);
CTENSOR_API ct_module *ct_nn_batch_norm2d_ex(int64_t num_features, const ct_batch_norm_options *o);
typedef struct ct_layer_norm_options {
    double eps;                 /* 0: 1e-5 */
    int no_elementwise_affine;  /* PyTorch's elementwise_affine=False */
} ct_layer_norm_options;
CTENSOR_API ct_module *ct_nn_layer_norm(int n, const int64_t *normalized_shape);
CTENSOR_API ct_module *ct_nn_layer_norm_ex(int n, const int64_t *normalized_shape, const ct_layer_norm_options *o);
typedef struct ct_group_norm_options {
    double eps;                 /* 0: 1e-5 */
    int no_affine;              /* PyTorch's affine=False */
} ct_group_norm_options;
CTENSOR_API ct_module *ct_nn_group_norm(int64_t num_groups, int64_t num_channels);
CTENSOR_API ct_module *ct_nn_group_norm_ex(int64_t num_groups, int64_t num_channels, const ct_group_norm_options *o);
/* nn.Dropout(p): active in training mode only. */
CTENSOR_API ct_module *ct_nn_dropout(double p);
/* nn.Embedding(num, dim): weight ~ N(0, 1); forward takes the indices. */
CTENSOR_API ct_module *ct_nn_embedding(int64_t num_embeddings, int64_t embedding_dim);
/* ... with padding_idx: that row starts at zero and gets no gradient. */
CTENSOR_API ct_module *ct_nn_embedding_padding(int64_t num_embeddings, int64_t embedding_dim, int64_t padding_idx);
/* nn.Embedding's other keywords (a zeroed struct is PyTorch's defaults) */
typedef struct ct_embedding_options {
    int use_padding_idx;        /* 1: padding_idx below (0 with 0 here is None) */
    int64_t padding_idx;
    double max_norm;            /* > 0: each forward first renormalizes the rows it reads
                                   to at most max_norm (ct_embedding_renorm_); 0: None */
    double norm_type;           /* 0: 2 */
    int scale_grad_by_freq;     /* 1: each row's gradient divided by how often the batch reads it */
} ct_embedding_options;
CTENSOR_API ct_module *ct_nn_embedding_ex(int64_t num_embeddings, int64_t embedding_dim, const ct_embedding_options *o);
/* F.embedding(indices, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq)
   with every keyword (o NULL: the defaults; max_norm renormalizes weight in place
   first, as PyTorch's F.embedding does) */
CTENSOR_API ct_tensor *ct_embedding_ex(const ct_tensor *indices, ct_tensor *weight, const ct_embedding_options *o);
/* nn.EmbeddingBag(num, dim, mode=...): mode NULL = "mean". Forward (ct_forward_n)
   takes input, or input and offsets. */
CTENSOR_API ct_module *ct_nn_embedding_bag(int64_t num_embeddings, int64_t embedding_dim, const char *mode);
CTENSOR_API ct_module *ct_nn_softmax(int dim);
CTENSOR_API ct_module *ct_nn_log_softmax(int dim);

/* nn.LSTM / nn.GRU (no dropout between layers, no proj_size). Parameters
   weight_ih_l<k>[_reverse], weight_hh_l<k>, bias_ih_l<k>, bias_hh_l<k> in
   PyTorch's order, all initialized U(-1/sqrt(hidden), 1/sqrt(hidden)) in that
   order, so seeded weights equal PyTorch's. Gates: LSTM i, f, g, o; GRU r, z, n
   with n = tanh(W_in x + b_in + r * (W_hn h + b_hn)). */
typedef struct ct_rnn_options {
    int64_t num_layers;         /* 0: 1 */
    int no_bias;                /* PyTorch's bias=False */
    int batch_first;            /* input/output [B, T, F] instead of [T, B, F] */
    int bidirectional;
} ct_rnn_options;
CTENSOR_API ct_module *ct_nn_lstm(int64_t input_size, int64_t hidden_size, const ct_rnn_options *o);  /* o may be NULL */
CTENSOR_API ct_module *ct_nn_gru(int64_t input_size, int64_t hidden_size, const ct_rnn_options *o);
/* output, (h_n, c_n) = lstm(x, (h0, c0)). x [T, B, in] ([B, T, in] batch_first)
   or unbatched [T, in]; h0, c0 [layers * dirs, B, hidden] or NULL (zeros).
   h_n, c_n may be NULL when not wanted. Returns the output [T, B, dirs * hidden]. */
CTENSOR_API ct_tensor *ct_lstm_forward(ct_module *m, const ct_tensor *x, const ct_tensor *h0, const ct_tensor *c0,
                                       ct_tensor **h_n, ct_tensor **c_n);
CTENSOR_API ct_tensor *ct_gru_forward(ct_module *m, const ct_tensor *x, const ct_tensor *h0, ct_tensor **h_n);

#ifdef __cplusplus
}  /* extern "C": settings structs by reference for C++ */
static inline ct_module *ct_nn_batch_norm1d_ex(int64_t n, const ct_batch_norm_options &o) { return ct_nn_batch_norm1d_ex(n, &o); }
static inline ct_module *ct_nn_batch_norm2d_ex(int64_t n, const ct_batch_norm_options &o) { return ct_nn_batch_norm2d_ex(n, &o); }
static inline ct_module *ct_nn_layer_norm_ex(int n, const int64_t *s, const ct_layer_norm_options &o) { return ct_nn_layer_norm_ex(n, s, &o); }
static inline ct_module *ct_nn_group_norm_ex(int64_t g, int64_t c, const ct_group_norm_options &o) { return ct_nn_group_norm_ex(g, c, &o); }
static inline ct_module *ct_nn_lstm(int64_t i, int64_t h, const ct_rnn_options &o) { return ct_nn_lstm(i, h, &o); }
static inline ct_module *ct_nn_gru(int64_t i, int64_t h, const ct_rnn_options &o) { return ct_nn_gru(i, h, &o); }
extern "C" {
#endif

/* [section: nn-functional-api] */

/* [section: nn-loss-api] */
/* ============================================================================
   Losses and distances (torch.nn.functional): cross_entropy, nll_loss,
   mse_loss, l1_loss, smooth_l1_loss, huber_loss, binary_cross_entropy(_with_logits),
   kl_div, cosine_similarity, pairwise_distance.
   `reduction` is PyTorch's string: NULL or "mean" (the default), "sum" or
   "none" ("batchmean" too for kl_div). Every loss is differentiable w.r.t. its
   float inputs (targets too where PyTorch differentiates them), to any order.
   Pointwise losses broadcast input and target as PyTorch does (PyTorch also
   warns when their sizes differ; ctensor computes the same broadcast result
   without a warning). binary_cross_entropy(_with_logits) require equal sizes,
   as PyTorch does.
   ========================================================================== */
/* ignore_index: PyTorch's default is -100; to pass another value (0 included) set
   it together with use_ignore_index = 1. weight: a (C) tensor or NULL. */
typedef struct ct_cross_entropy_options {
    const ct_tensor *weight;    /* per-class weight (C), or NULL */
    int64_t ignore_index;       /* used when use_ignore_index != 0; else -100 */
    int use_ignore_index;
    const char *reduction;      /* NULL: "mean" */
    double label_smoothing;     /* in [0, 1]; 0: none */
} ct_cross_entropy_options;
typedef struct ct_nll_loss_options {
    const ct_tensor *weight;
    int64_t ignore_index;
    int use_ignore_index;
    const char *reduction;
} ct_nll_loss_options;
/* F.cross_entropy(input, target, ...). input: (C), (N, C) or (N, C, d1, ...) logits;
   target: int64 class indices of shape (), (N) or (N, d1, ...), or float class
   probabilities of input's shape. o == NULL: PyTorch's defaults. The common case
   (2-D float logits, int64 indices, no weight, no smoothing) runs one fused
   log_softmax + nll kernel forward and one fused (softmax - onehot) kernel backward. */
CTENSOR_API ct_tensor *ct_cross_entropy(const ct_tensor *input, const ct_tensor *target, const ct_cross_entropy_options *o);
/* F.nll_loss(input, target, ...): input holds log-probabilities, shapes as cross_entropy. */
CTENSOR_API ct_tensor *ct_nll_loss(const ct_tensor *input, const ct_tensor *target, const ct_nll_loss_options *o);
CTENSOR_API ct_tensor *ct_mse_loss(const ct_tensor *input, const ct_tensor *target, const char *reduction);
CTENSOR_API ct_tensor *ct_l1_loss(const ct_tensor *input, const ct_tensor *target, const char *reduction);
/* beta >= 0 (PyTorch's default 1.0); beta == 0 is l1_loss */
CTENSOR_API ct_tensor *ct_smooth_l1_loss(const ct_tensor *input, const ct_tensor *target, const char *reduction, double beta);
/* delta > 0 (PyTorch's default 1.0) */
CTENSOR_API ct_tensor *ct_huber_loss(const ct_tensor *input, const ct_tensor *target, const char *reduction, double delta);
/* F.binary_cross_entropy: input in [0, 1]; log clamped at -100 as PyTorch. weight may be NULL
   (it broadcasts to the input). */
CTENSOR_API ct_tensor *ct_binary_cross_entropy(const ct_tensor *input, const ct_tensor *target, const ct_tensor *weight,
                                               const char *reduction);
/* F.binary_cross_entropy_with_logits: numerically stable; weight and pos_weight may be NULL
   (pos_weight broadcasts over the last, class, dim). */
CTENSOR_API ct_tensor *ct_binary_cross_entropy_with_logits(const ct_tensor *input, const ct_tensor *target,
                                                           const ct_tensor *weight, const ct_tensor *pos_weight,
                                                           const char *reduction);
/* F.kl_div(input, target): input holds log-probabilities; target probabilities, or
   log-probabilities when log_target. reduction also "batchmean" (sum / input.size(0)). */
CTENSOR_API ct_tensor *ct_kl_div(const ct_tensor *input, const ct_tensor *target, const char *reduction, int log_target);
/* F.cosine_similarity(x1, x2, dim=1, eps=1e-8), PyTorch 1.13's form: each input is divided
   by sqrt(max(sum(x^2), eps^2)) (the clamp changes the value, not the graph), then the
   products are summed over dim. */
CTENSOR_API ct_tensor *ct_cosine_similarity(const ct_tensor *x1, const ct_tensor *x2, int dim, double eps);
/* F.pairwise_distance(x1, x2, p=2, eps=1e-6, keepdim=False): norm(x1 - x2 + eps, p) over the last dim. */
CTENSOR_API ct_tensor *ct_pairwise_distance(const ct_tensor *x1, const ct_tensor *x2, double p, double eps, int keepdim);
/* Loss modules (nn.CrossEntropyLoss, nn.MSELoss, ...): ct_forward_n(m, 2, (input, target)).
   The options are copied; a class weight becomes the buffer "weight" (PyTorch's key). */
CTENSOR_API ct_module *ct_nn_cross_entropy_loss(const ct_cross_entropy_options *o);
CTENSOR_API ct_module *ct_nn_nll_loss(const ct_nll_loss_options *o);
CTENSOR_API ct_module *ct_nn_mse_loss(const char *reduction);
CTENSOR_API ct_module *ct_nn_l1_loss(const char *reduction);
CTENSOR_API ct_module *ct_nn_bce_with_logits_loss(const char *reduction);
#ifdef __cplusplus
}  /* extern "C": options structs by reference for C++ */
static inline ct_tensor *ct_cross_entropy(const ct_tensor *input, const ct_tensor *target, const ct_cross_entropy_options &o) {
    return ct_cross_entropy(input, target, &o);
}
static inline ct_tensor *ct_nll_loss(const ct_tensor *input, const ct_tensor *target, const ct_nll_loss_options &o) {
    return ct_nll_loss(input, target, &o);
}
extern "C" {
#endif

/* [section: optim-api] */
/* ============================================================================
   Optimizers (torch.optim), learning-rate schedulers (torch.optim.lr_scheduler)
   and gradient clipping (torch.nn.utils.clip_grad_norm_ / clip_grad_value_)

   ct_optimizer *opt = ct_optim_adam(model, &(ct_adam_options){ .lr = 1e-3 });
   CT_SCOPE { loss = ...; ct_zero_grad(opt); ct_backward(loss); ct_step(opt); }
   ct_optim_free(opt);

   Updates follow PyTorch 1.13's (single-tensor) step operation for operation,
   in the same order and precision, under no-grad mode, in place on the
   parameters, through ctensor ops: any dtype/device the ops support. Adam and
   AdamW on float32/float64 CPU tensors (and GPU tensors, with ctensor_cuda.h)
   run one fused op (`_fused_adam_`) that makes the same roundings as the
   op-by-op chain (SGD, RMSprop and Adagrad likewise). A parameter whose .grad
   is NULL is skipped (its state is untouched), as in PyTorch.

   Ownership: an optimizer retains its parameters (released by ct_optim_free);
   its state tensors (momentum buffers, moments, ...) belong to it, not to a
   scope. A scheduler borrows its optimizer: free the scheduler first.

   Options structs: a zero field means PyTorch's default. Where that default is
   not 0, ask for an explicit zero with CT_ZERO (-0.0):  .beta1 = CT_ZERO.
   lr is required for every optimizer (0 is refused; CT_ZERO is a zero lr).
   A group added with ct_optim_add_param_group takes the optimizer's own
   settings for its zero fields, as a PyTorch param-group dict does.
   Hyperparameters are checked with PyTorch's messages ("Invalid learning
   rate: -0.1", "Invalid beta parameter at index 0: 1.0", ...), for added
   groups too (PyTorch checks only the constructor's).
   ========================================================================== */
#define CT_ZERO (-0.0)   /* an explicit 0 for an option whose default is not 0 */
typedef struct ct_optimizer ct_optimizer;
typedef struct ct_sgd_options {
    double lr, momentum, dampening, weight_decay;   /* defaults: required, 0, 0, 0 */
    int nesterov, maximize;
} ct_sgd_options;
typedef struct ct_adam_options {
    double lr, beta1, beta2, eps, weight_decay;     /* required, 0.9, 0.999, 1e-8, 0 (AdamW: 0.01) */
    int amsgrad, maximize;
} ct_adam_options;
typedef ct_adam_options ct_adamw_options;
typedef struct ct_rmsprop_options {
    double lr, alpha, eps, weight_decay, momentum;  /* required, 0.99, 1e-8, 0, 0 */
    int centered, maximize;
} ct_rmsprop_options;
typedef struct ct_adagrad_options {
    double lr, lr_decay, weight_decay, initial_accumulator_value, eps;   /* required, 0, 0, 0, 1e-10 */
    int maximize;
} ct_adagrad_options;

/* Constructors: over a module's parameters (ct_module_parameters order), or a
   list. NULL on error (a NULL model keeps the error that made it NULL). */
CTENSOR_API ct_optimizer *ct_optim_sgd(ct_module *model, const ct_sgd_options *o);
CTENSOR_API ct_optimizer *ct_optim_sgd_params(int n, ct_tensor *const *params, const ct_sgd_options *o);
CTENSOR_API ct_optimizer *ct_optim_adam(ct_module *model, const ct_adam_options *o);
CTENSOR_API ct_optimizer *ct_optim_adam_params(int n, ct_tensor *const *params, const ct_adam_options *o);
CTENSOR_API ct_optimizer *ct_optim_adamw(ct_module *model, const ct_adamw_options *o);
CTENSOR_API ct_optimizer *ct_optim_adamw_params(int n, ct_tensor *const *params, const ct_adamw_options *o);
CTENSOR_API ct_optimizer *ct_optim_rmsprop(ct_module *model, const ct_rmsprop_options *o);
CTENSOR_API ct_optimizer *ct_optim_rmsprop_params(int n, ct_tensor *const *params, const ct_rmsprop_options *o);
CTENSOR_API ct_optimizer *ct_optim_adagrad(ct_module *model, const ct_adagrad_options *o);
CTENSOR_API ct_optimizer *ct_optim_adagrad_params(int n, ct_tensor *const *params, const ct_adagrad_options *o);
/* options: a ct_<kind>_options of the optimizer's kind, or NULL for its own settings. */
CTENSOR_API ct_status ct_optim_add_param_group(ct_optimizer *opt, int n, ct_tensor *const *params, const void *options);
CTENSOR_API void ct_optim_free(ct_optimizer *opt);

CTENSOR_API ct_status ct_step(ct_optimizer *opt);         /* optimizer.step() */
CTENSOR_API void ct_zero_grad(ct_optimizer *opt);         /* .grad = None (PyTorch 2's default) */
/* set_to_none = 0: zero the existing grads in place (detached), PyTorch's zero_grad(False) */
CTENSOR_API void ct_optim_zero_grad(ct_optimizer *opt, int set_to_none);

CTENSOR_API const char *ct_optim_name(const ct_optimizer *opt);          /* "SGD", "Adam", ... */
CTENSOR_API int ct_optim_num_groups(const ct_optimizer *opt);
CTENSOR_API int ct_optim_group_size(const ct_optimizer *opt, int group);  /* parameters in the group */
CTENSOR_API ct_tensor *ct_optim_param(const ct_optimizer *opt, int group, int i);   /* borrowed */
CTENSOR_API double ct_optim_get_lr(const ct_optimizer *opt, int group);  /* NAN + error when out of range */
CTENSOR_API ct_status ct_optim_set_lr(ct_optimizer *opt, int group, double lr);
/* Any group setting by its param_groups name: "lr", "momentum", "dampening",
   "weight_decay", "nesterov", "maximize", "beta1", "beta2", "eps", "amsgrad",
   "alpha", "centered", "lr_decay", "initial_accumulator_value", and what
   schedulers add: "initial_lr", "max_lr", "min_lr", "max_momentum",
   "base_momentum". get: NAN + error when the optimizer has no such setting. */
CTENSOR_API double ct_optim_get_option(const ct_optimizer *opt, int group, const char *name);
CTENSOR_API ct_status ct_optim_set_option(ct_optimizer *opt, int group, const char *name, double value);

/* optimizer.state_dict() as named tensors, so it saves with the rest:
     state.<i>.<key>          per-parameter state; i counts parameters across
                              groups in order, as PyTorch does. <key>: step (0-d
                              float64), momentum_buffer (SGD, RMSprop), exp_avg,
                              exp_avg_sq, max_exp_avg_sq (Adam, AdamW),
                              square_avg, grad_avg (RMSprop), sum (Adagrad).
                              Only parameters that have state appear.
     param_groups.<g>.<key>   the group's settings as 0-d float64 tensors (flags
                              0/1; betas: a float64 [2]), in PyTorch's key order,
                              then initial_lr... when a scheduler set them, then
                              params: int64 [n], the group's parameter indices.
   State buffers are the optimizer's own tensors (borrowed, like a module's state
   dict: copy them before stepping again if you keep them); the other entries are
   new tensors of the current scope. Free the list with ct_state_dict_free.
   load: checks the whole structure first (group count and sizes, missing and
   unexpected keys, shapes) and changes nothing on error; state is copied and
   converted to each parameter's dtype. */
CTENSOR_API ct_status ct_optim_state_dict(const ct_optimizer *opt, ct_state_dict *out);
CTENSOR_API ct_status ct_optim_load_state_dict(ct_optimizer *opt, const ct_state_dict *sd);

/* Learning-rate schedulers. Construction does PyTorch's initial step
   (last_epoch becomes 0 and the groups' lr is set); call ct_sched_step after
   each ct_step (epoch or batch, as with PyTorch). Arguments are taken as given
   (PyTorch's defaults: StepLR/MultiStepLR gamma 0.1, CosineAnnealingLR eta_min 0,
   LinearLR start_factor 1/3, end_factor 1, total_iters 5). */
typedef struct ct_lr_scheduler ct_lr_scheduler;
CTENSOR_API ct_lr_scheduler *ct_sched_step_lr(ct_optimizer *opt, int64_t step_size, double gamma);
CTENSOR_API ct_lr_scheduler *ct_sched_multistep_lr(ct_optimizer *opt, int n, const int64_t *milestones, double gamma);
CTENSOR_API ct_lr_scheduler *ct_sched_exponential_lr(ct_optimizer *opt, double gamma);
CTENSOR_API ct_lr_scheduler *ct_sched_cosine_annealing_lr(ct_optimizer *opt, int64_t T_max, double eta_min);
CTENSOR_API ct_lr_scheduler *ct_sched_linear_lr(ct_optimizer *opt, double start_factor, double end_factor, int64_t total_iters);
typedef struct ct_one_cycle_options {
    double max_lr;              /* required (CT_ZERO for 0) */
    const double *max_lrs;      /* or one per param group (overrides max_lr) */
    int64_t total_steps;        /* or epochs * steps_per_epoch */
    int64_t epochs, steps_per_epoch;
    double pct_start;           /* 0: 0.3 */
    const char *anneal_strategy;/* NULL/"cos" or "linear" */
    int no_cycle_momentum;      /* PyTorch's cycle_momentum=False */
    double base_momentum;       /* 0: 0.85 */
    double max_momentum;        /* 0: 0.95 */
    double div_factor;          /* 0: 25 */
    double final_div_factor;    /* 0: 1e4 */
    int three_phase;
} ct_one_cycle_options;
/* Also cycles momentum (SGD, RMSprop) or beta1 (Adam, AdamW) as PyTorch does. */
CTENSOR_API ct_lr_scheduler *ct_sched_one_cycle_lr(ct_optimizer *opt, const ct_one_cycle_options *o);
CTENSOR_API ct_status ct_sched_step(ct_lr_scheduler *s);
CTENSOR_API double ct_sched_get_last_lr(const ct_lr_scheduler *s, int group);
CTENSOR_API int64_t ct_sched_last_epoch(const ct_lr_scheduler *s);
/* scheduler.state_dict(): last_epoch, _step_count (0-d float64), base_lrs, _last_lr
   (float64 [groups]); new tensors of the current scope. */
CTENSOR_API ct_status ct_sched_state_dict(const ct_lr_scheduler *s, ct_state_dict *out);
CTENSOR_API ct_status ct_sched_load_state_dict(ct_lr_scheduler *s, const ct_state_dict *sd);
CTENSOR_API void ct_sched_free(ct_lr_scheduler *s);

/* torch.nn.utils.clip_grad_norm_: scales the grads of params (NULL grads are
   skipped) so that their total norm_type-norm is at most max_norm, and returns
   that total norm (before clipping, in the grads' dtype; 0 when no grad).
   norm_type: any p, INFINITY, -INFINITY or 0. NAN + error on bad input. */
CTENSOR_API double ct_clip_grad_norm_(int n, ct_tensor *const *params, double max_norm, double norm_type);
/* error_if_nonfinite: a NaN/inf total norm is an error (grads untouched). */
CTENSOR_API ct_status ct_clip_grad_norm_ex(int n, ct_tensor *const *params, double max_norm, double norm_type,
                                           int error_if_nonfinite, double *total_norm);
CTENSOR_API double ct_clip_grad_norm_module_(ct_module *m, double max_norm, double norm_type);
/* torch.nn.utils.clip_grad_value_: clamps every grad to [-clip_value, clip_value]. */
CTENSOR_API ct_status ct_clip_grad_value_(int n, ct_tensor *const *params, double clip_value);
CTENSOR_API ct_status ct_clip_grad_value_module_(ct_module *m, double clip_value);

#ifdef __cplusplus
}  /* extern "C": settings structs by reference for C++ */
static inline ct_optimizer *ct_optim_sgd(ct_module *m, const ct_sgd_options &o) { return ct_optim_sgd(m, &o); }
static inline ct_optimizer *ct_optim_adam(ct_module *m, const ct_adam_options &o) { return ct_optim_adam(m, &o); }
static inline ct_optimizer *ct_optim_adamw(ct_module *m, const ct_adamw_options &o) { return ct_optim_adamw(m, &o); }
static inline ct_optimizer *ct_optim_rmsprop(ct_module *m, const ct_rmsprop_options &o) { return ct_optim_rmsprop(m, &o); }
static inline ct_optimizer *ct_optim_adagrad(ct_module *m, const ct_adagrad_options &o) { return ct_optim_adagrad(m, &o); }
static inline ct_lr_scheduler *ct_sched_one_cycle_lr(ct_optimizer *opt, const ct_one_cycle_options &o) { return ct_sched_one_cycle_lr(opt, &o); }
extern "C" {
#endif

/* ============================================================================
   Data: datasets, data loaders, IDX files (torch.utils.data)
   ========================================================================== */
/* IDX (the MNIST format): magic, dims, big-endian data; the data must be
   exactly the size the header declares (torchvision's reader asserts it).
   gzip-compressed data (recognised by its magic bytes, in a file or in memory)
   is inflated when ctensor is built with CTENSOR_ZLIB (link -lz), never past the
   size its header declares: a gzip bomb fails as soon as it produces one byte
   more. Without zlib, ct_load_idx of a path ending in ".gz" tries the same path
   without ".gz". Bad files are CT_ERR_FORMAT errors that name the file (`name`
   for the _mem form). */
CTENSOR_API ct_tensor *ct_load_idx(const char *path);
CTENSOR_API ct_tensor *ct_load_idx_mem(const void *data, size_t len, const char *name);
/* A dataset of tensors indexed along their first dimension (TensorDataset).
   The dataset retains its tensors. */
typedef struct ct_dataset ct_dataset;
CTENSOR_API ct_dataset *ct_tensor_dataset(int ntensors, ct_tensor *const *tensors);
CTENSOR_API int64_t ct_dataset_len(const ct_dataset *ds);
CTENSOR_API void ct_dataset_free(ct_dataset *ds);
typedef struct ct_dataloader_options {
    int64_t batch_size;     /* 0: 1 */
    int shuffle;            /* a new permutation each epoch, from `seed` */
    int drop_last;          /* drop a last incomplete batch */
    uint64_t seed;          /* shuffling generator seed (same seed, same order) */
    int prefetch;           /* build the next batch on a background thread */
} ct_dataloader_options;
typedef struct ct_batch {
    int n;                  /* tensors in the batch (the dataset's count) */
    ct_tensor *items[8];    /* borrowed: valid until the next ct_dataloader_next */
    ct_tensor *x, *y;       /* items[0], items[1] */
    int64_t index;          /* batch number in the epoch */
} ct_batch;
typedef struct ct_dataloader ct_dataloader;
CTENSOR_API ct_dataloader *ct_dataloader_new(ct_dataset *ds, const ct_dataloader_options *opt);
/* Fills b with the next batch and returns 1; at the end of an epoch returns 0
   (and the next call starts a new epoch). -1 on error. */
CTENSOR_API int ct_dataloader_next(ct_dataloader *dl, ct_batch *b);
CTENSOR_API int64_t ct_dataloader_num_batches(const ct_dataloader *dl);
CTENSOR_API void ct_dataloader_free(ct_dataloader *dl);

/* [section: transformer-api] */
/* ============================================================================
   Attention and transformers (nn.MultiheadAttention, nn.TransformerEncoderLayer,
   nn.TransformerEncoder, nn.TransformerDecoderLayer, nn.TransformerDecoder,
   nn.Transformer), the fused inference fastpath, nested (packed) batches and a
   KV cache for incremental decoding.

   The modules have PyTorch's constructor arguments, defaults, initialization
   (same seed, same values) and state_dict keys ("self_attn.in_proj_weight",
   "linear1.weight", "layers.3.norm2.bias", ...), so weights saved by PyTorch
   load as they are. Their regular path is composed of ctensor ops: it is
   differentiable, trains, and runs dropout in training mode.

   The fastpath (PyTorch 1.12's BetterTransformer) runs an encoder layer, or
   self-attention, as one fused native computation: one GEMM for the packed
   q/k/v projection with the bias, head split and 1/sqrt(head_dim) scaling in
   its epilogue; attention tile by tile with an online softmax and the padding
   mask applied in the tile (no [B, H, L, S] matrix); bias + activation after the
   first feed-forward GEMM; residual add + LayerNorm fused; every intermediate
   buffer from one workspace. It is taken where PyTorch would take it: module
   in eval mode, batch_first, no gradient needed (grad mode off, or nothing
   involved requires grad), relu or gelu, norm1.eps == norm2.eps, no attn_mask
   (src_mask), an even number of heads, float32 or float64. Otherwise the
   regular path runs and gives the same values (within float rounding).
   ct_transformer_fastpath_why_not() says why the last call on this thread did
   not take it (PyTorch's reasons, word for word), or "" when it did.

   Nested batches: with a key padding mask, ct_transformer_encoder_forward packs
   the real tokens ([total_tokens, d_model]) before the first layer, as
   PyTorch's enable_nested_tensor does: projections and feed-forward layers run
   on real tokens only, attention runs per sequence on its own length, and the
   result comes back padded with zeros at the padded positions (then the final
   norm, if any, runs on the padded tensor, so those positions hold its bias,
   as in PyTorch). The padded result always has the input's sequence length
   (PyTorch 1.13 trims it to the longest sequence; 2.x keeps it).
   ========================================================================== */
typedef struct ct_mha_options {
    double dropout;          /* dropout on the attention weights in training mode; 0: none */
    int no_bias;             /* PyTorch's bias=False */
    int add_bias_kv;         /* learned bias_k, bias_v [1, 1, E] appended to key and value */
    int add_zero_attn;       /* a zero key/value appended after the head split */
    int64_t kdim, vdim;      /* 0: embed_dim. Different from embed_dim: separate q/k/v weights */
    int batch_first;         /* [N, L, E] instead of [L, N, E] */
} ct_mha_options;
/* nn.MultiheadAttention(embed_dim, num_heads, ...). Parameters (PyTorch's order):
   in_proj_weight [3E, E] (or q_proj_weight, k_proj_weight, v_proj_weight),
   in_proj_bias [3E], bias_k, bias_v, out_proj.weight, out_proj.bias.
   ct_forward(m, x) is self-attention without weights; ct_forward_n(m, 3, {q, k, v}). */
CTENSOR_API ct_module *ct_nn_multihead_attention(int64_t embed_dim, int64_t num_heads, const ct_mha_options *o);
typedef struct ct_mha_args {
    const ct_tensor *key_padding_mask;  /* [N, S] ([S] unbatched): bool (true: ignore that key) or float (added); NULL */
    const ct_tensor *attn_mask;         /* [L, S] or [N * num_heads, L, S]: bool (true: not allowed) or float (added); NULL */
    int is_causal;                      /* causal mask (query i sees keys <= i); with attn_mask NULL it is built here */
    int per_head_weights;               /* PyTorch's average_attn_weights=False: weights [N, H, L, S] */
} ct_mha_args;
/* attn_output, attn_weights = mha(query, key, value, ...). query [N, L, E] with
   batch_first ([L, N, E] otherwise, [L, E] unbatched), key and value [N, S, kdim/vdim].
   The weights are computed when attn_weights is not NULL (PyTorch's need_weights):
   [N, L, S] averaged over heads, [N, H, L, S] with per_head_weights. a may be NULL.
   A query row whose keys are all masked gives NaN, as in PyTorch. */
CTENSOR_API ct_tensor *ct_mha_forward(ct_module *m, const ct_tensor *query, const ct_tensor *key, const ct_tensor *value,
                                      const ct_mha_args *a, ct_tensor **attn_weights);
/* F.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal) (PyTorch 2.0):
   q [..., L, E], k [..., S, E], v [..., S, Ev]; attn_mask bool (true: take part, as
   in PyTorch 2.0) or float (added), broadcast to [..., L, S]; NULL for none.
   softmax(q k^T / sqrt(E) + mask) v. Without grad it runs the fused tiled kernel. */
CTENSOR_API ct_tensor *ct_scaled_dot_product_attention(const ct_tensor *q, const ct_tensor *k, const ct_tensor *v,
                                                       const ct_tensor *attn_mask, double dropout_p, int is_causal);

typedef struct ct_transformer_layer_options {
    int64_t dim_feedforward;    /* 0: 2048 */
    double dropout;             /* 0: 0.1; CT_ZERO: none */
    const char *activation;     /* NULL or "relu" (default), "gelu" */
    double layer_norm_eps;      /* 0: 1e-5 */
    int batch_first;            /* [N, S, E] instead of [S, N, E] (the fastpath needs it) */
    int norm_first;             /* pre-norm: x + sa(norm1(x)), x + ff(norm2(x)) */
} ct_transformer_layer_options;
/* nn.TransformerEncoderLayer(d_model, nhead, ...): children self_attn, linear1,
   dropout, linear2, norm1, norm2, dropout1, dropout2. o may be NULL. */
CTENSOR_API ct_module *ct_nn_transformer_encoder_layer(int64_t d_model, int64_t nhead, const ct_transformer_layer_options *o);
/* nn.TransformerDecoderLayer: self_attn, multihead_attn, linear1, dropout, linear2,
   norm1, norm2, norm3, dropout1, dropout2, dropout3. */
CTENSOR_API ct_module *ct_nn_transformer_decoder_layer(int64_t d_model, int64_t nhead, const ct_transformer_layer_options *o);
/* nn.TransformerEncoder(layer, num_layers, norm): layers.0 ... layers.<n-1> are
   copies of layer (same values, as PyTorch's deepcopy), then norm. Takes
   ownership of layer and norm (NULL: no final norm). enable_nested_tensor is on;
   ct_nn_transformer_encoder_ex can turn it (and the left-alignment check) off. */
CTENSOR_API ct_module *ct_nn_transformer_encoder(ct_module *encoder_layer, int num_layers, ct_module *norm);
typedef struct ct_transformer_encoder_options {
    int no_nested_tensor;       /* PyTorch's enable_nested_tensor=False */
    int no_mask_check;          /* PyTorch's mask_check=False */
} ct_transformer_encoder_options;
CTENSOR_API ct_module *ct_nn_transformer_encoder_ex(ct_module *encoder_layer, int num_layers, ct_module *norm,
                                                    const ct_transformer_encoder_options *o);
CTENSOR_API ct_module *ct_nn_transformer_decoder(ct_module *decoder_layer, int num_layers, ct_module *norm);
typedef struct ct_transformer_options {
    int64_t num_encoder_layers, num_decoder_layers;   /* 0: 6 and 6; CT_TRANSFORMER_NONE: no layers */
    ct_transformer_layer_options layer;               /* per-layer settings (dim_feedforward, dropout, ...) */
} ct_transformer_options;
#define CT_TRANSFORMER_NONE (-1)
/* nn.Transformer(d_model, nhead, ...): encoder (with a final LayerNorm) and decoder
   (with one); every parameter with more than one dim is then xavier_uniform_, as
   PyTorch's _reset_parameters does. d_model 0: 512, nhead 0: 8. */
CTENSOR_API ct_module *ct_nn_transformer(int64_t d_model, int64_t nhead, const ct_transformer_options *o);
/* Forward functions. Masks as ct_mha_forward's: src_mask / tgt_mask / memory_mask
   [L, S] or [N * nhead, L, S]; key padding masks [N, S] bool or float. NULL: none.
   The encoder functions accept an encoder layer or an encoder; ct_forward(m, x)
   on either is forward(x) with no masks. */
CTENSOR_API ct_tensor *ct_transformer_encoder_forward(ct_module *m, const ct_tensor *src, const ct_tensor *mask,
                                                      const ct_tensor *src_key_padding_mask);
typedef struct ct_transformer_decoder_args {
    const ct_tensor *tgt_mask, *memory_mask, *tgt_key_padding_mask, *memory_key_padding_mask;
} ct_transformer_decoder_args;
CTENSOR_API ct_tensor *ct_transformer_decoder_forward(ct_module *m, const ct_tensor *tgt, const ct_tensor *memory,
                                                      const ct_transformer_decoder_args *a);
typedef struct ct_transformer_args {
    const ct_tensor *src_mask, *tgt_mask, *memory_mask;
    const ct_tensor *src_key_padding_mask, *tgt_key_padding_mask, *memory_key_padding_mask;
} ct_transformer_args;
/* nn.Transformer.forward(src, tgt, ...). ct_forward_n(m, 2, {src, tgt}) too. */
CTENSOR_API ct_tensor *ct_transformer_forward(ct_module *m, const ct_tensor *src, const ct_tensor *tgt,
                                              const ct_transformer_args *a);
/* nn.Transformer.generate_square_subsequent_mask(sz): float [sz, sz], -inf above
   the diagonal, 0 elsewhere (default dtype). */
CTENSOR_API ct_tensor *ct_nn_transformer_square_subsequent_mask(int64_t sz);

/* The fastpath switch (torch.backends.mha.set_fastpath_enabled, PyTorch 2.x),
   process-wide, on by default, and why the last call on this thread did not
   take it ("" when it did). */
CTENSOR_API void ct_set_transformer_fastpath(int enabled);
CTENSOR_API int ct_get_transformer_fastpath(void);
CTENSOR_API const char *ct_transformer_fastpath_why_not(void);

/* Nested (packed) batches: the real tokens of a padded batch, sequence after
   sequence. values [total_tokens, d] and lengths (int64 [B]) are ordinary
   scope-managed tensors. ct_nested_from_mask takes a padded [B, S, d] batch and
   a key padding mask [B, S] (true at padding, PyTorch's convention for
   src_key_padding_mask) whose real tokens come first in each row (left-aligned);
   an error otherwise. On a device (ctensor_cuda.h), values stay on the padded
   batch's device (one gather; the mask may be on that device or on the CPU) and
   lengths on the CPU: the mask is read on the host once, as PyTorch's
   nested_tensor_from_mask does, and the encoder runs the packed rows there. */
typedef struct ct_nested {
    ct_tensor *values;          /* [total_tokens, d], on the CPU or a device */
    ct_tensor *lengths;         /* int64 [B], on the CPU */
    int64_t max_len;            /* the padded length it came from */
} ct_nested;
CTENSOR_API ct_status ct_nested_from_mask(const ct_tensor *padded, const ct_tensor *key_padding_mask, ct_nested *out);
/* [B, max_len, d] with padding_value at padded positions (PyTorch's to_padded_tensor). */
CTENSOR_API ct_tensor *ct_nested_to_padded(const ct_nested *n, double padding_value);
/* An encoder or encoder layer on a nested batch, on the fastpath (eval mode, no
   grad; an error naming the reason otherwise); the result stays nested. The
   encoder's final norm, if any, runs on the real tokens only. */
CTENSOR_API ct_status ct_transformer_encoder_forward_nested(ct_module *m, const ct_nested *src, ct_nested *out);

/* Incremental decoding with a KV cache (decoder-only, GPT-style models built from
   batch_first encoder layers with causal self-attention). The cache holds each
   layer's keys and values for the positions seen so far (up to max_len).
   ct_transformer_decode runs x [B, T, d_model] (the next T positions of each
   sequence) through an encoder layer or an encoder, causally attending to the
   cached positions and to each other, appends their keys and values, and
   returns [B, T, d_model]: what the full causal forward of the whole sequence
   gives at those positions. The fused kernels run it; no grad is recorded. */
typedef struct ct_kv_cache ct_kv_cache;
CTENSOR_API ct_kv_cache *ct_kv_cache_new(const ct_module *encoder_or_layer, int64_t batch, int64_t max_len);
CTENSOR_API void ct_kv_cache_reset(ct_kv_cache *c);      /* back to length 0 */
CTENSOR_API int64_t ct_kv_cache_len(const ct_kv_cache *c);
CTENSOR_API void ct_kv_cache_free(ct_kv_cache *c);
CTENSOR_API ct_tensor *ct_transformer_decode(ct_module *m, const ct_tensor *x, ct_kv_cache *cache);
#ifdef __cplusplus
}  /* extern "C": options structs by reference for C++ */
static inline ct_module *ct_nn_multihead_attention(int64_t e, int64_t h, const ct_mha_options &o) { return ct_nn_multihead_attention(e, h, &o); }
static inline ct_module *ct_nn_transformer_encoder_layer(int64_t d, int64_t h, const ct_transformer_layer_options &o) { return ct_nn_transformer_encoder_layer(d, h, &o); }
static inline ct_module *ct_nn_transformer_decoder_layer(int64_t d, int64_t h, const ct_transformer_layer_options &o) { return ct_nn_transformer_decoder_layer(d, h, &o); }
static inline ct_module *ct_nn_transformer(int64_t d, int64_t h, const ct_transformer_options &o) { return ct_nn_transformer(d, h, &o); }
extern "C" {
#endif

/* ============================================================================
   Profiler (torch.profiler)
   A dispatch listener (ct_add_dispatch_listener, with CT_LISTEN_ENTER and
   CT_LISTEN_NESTED) records every op call of the thread that started the
   profiler: its name, input shapes and dtype, start, total time (children
   included) and self time (children excluded), and on request the bytes it
   moved, a FLOP estimate and the allocator bytes it left allocated. User
   ranges (record_function) nest into the same tree. Reports: the key-averages
   table, the events one by one, and a Chrome trace (chrome://tracing, Perfetto).
   What is captured: ops dispatched on the starting thread, at every depth (ops
   run inside other ops' kernels and in backward rules too); the intra-op thread
   pool's work is inside the op that started it. Other threads' ops are not seen
   (the dispatch hook is per thread), their ranges are no-ops, and step/stop
   belong to the starting thread. matmul and linear are compositions here, so
   their time shows as aten::mm / aten::addmm / aten::bmm rows. One profiler at
   a time per process; off, it costs nothing (no listener: the dispatcher's one
   predictable branch).
   ========================================================================== */
/* torch.profiler.ProfilerAction */
typedef enum ct_profiler_action {
    CT_PROFILER_NONE = 0,            /* not recording */
    CT_PROFILER_WARMUP = 1,          /* recording, results discarded */
    CT_PROFILER_RECORD = 2,
    CT_PROFILER_RECORD_AND_SAVE = 3  /* the last active step of a cycle: on_trace_ready follows */
} ct_profiler_action;
/* torch.profiler.schedule: skip skip_first steps, then cycles of wait, warmup and
   active steps; repeat cycles (0: until stopped). active >= 1, the rest >= 0. */
typedef struct ct_profiler_schedule { int wait, warmup, active, repeat, skip_first; } ct_profiler_schedule;
typedef void (*ct_profiler_trace_ready_fn)(void *user_data);
typedef struct ct_profiler_options {
    int record_shapes;                       /* input shapes per call (Input Shapes, trace args) */
    int profile_memory;                      /* allocator bytes per call (CPU Mem, Self CPU Mem) */
    int with_flops;                          /* FLOPs of mm, bmm, addmm, baddbmm, mv, addmv, conv2d, elementwise */
    int with_bytes;                          /* bytes moved: inputs' and outputs' bytes (0 for views) */
    const ct_profiler_schedule *schedule;    /* NULL: record from start to stop */
    ct_profiler_trace_ready_fn on_trace_ready; /* after each saved cycle, and at stop while recording */
    void *user_data;
} ct_profiler_options;
/* Starts profiling the calling thread (NULL options: PyTorch's defaults, all off).
   Errors: already running, bad schedule numbers. */
CTENSOR_API ct_status ct_profiler_start(const ct_profiler_options *o);
/* Stops; the results stay readable until the next start. Calls on_trace_ready when
   the schedule was recording. From the starting thread only. */
CTENSOR_API ct_status ct_profiler_stop(void);
/* profiler.step(): the end of one training step; moves the schedule on. */
CTENSOR_API ct_status ct_profiler_step(void);
CTENSOR_API ct_profiler_action ct_profiler_current_action(void);   /* NONE when stopped */
/* record_function: a named range, nesting with ops and other ranges. No-ops
   (CT_OK) when the profiler is not recording; pop without push is an error. */
CTENSOR_API ct_status ct_profiler_range_push(const char *name);
CTENSOR_API ct_status ct_profiler_range_pop(void);

/* The recorded events (profiler.events()), in start order. */
typedef struct ct_profiler_event {
    const char *name;          /* "aten::add" (the schema name without its overload) or the range's name */
    const char *schema_name;   /* "aten::add.Tensor"; the name for a range */
    int is_range;              /* a user range (record_function) */
    int parent;                /* index of the enclosing event; -1 at top level */
    int depth;                 /* nesting level: 0 at top level */
    double start_us;           /* from ct_profiler_start */
    double total_us, self_us;  /* self: total minus the direct children's totals */
    ct_dtype dtype;            /* first input's (float32 when it has none) */
    int ninputs;
    int64_t flops, bytes;      /* 0 unless asked (with_flops, with_bytes) */
    int64_t cpu_mem, self_cpu_mem;   /* allocator bytes left allocated (profile_memory) */
} ct_profiler_event;
CTENSOR_API int ct_profiler_num_events(void);
CTENSOR_API ct_status ct_profiler_get_event(int i, ct_profiler_event *e);
/* "[[3, 5], [3, 5]]" (record_shapes; "[]" without); returns the length, as snprintf. */
CTENSOR_API size_t ct_profiler_event_shapes(int i, char *buf, size_t cap);

/* key_averages().table(): one row per op name (and input shapes when grouped),
   PyTorch's columns: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time
   avg, [CPU Mem, Self CPU Mem], # of Calls, [Input Shapes], [Total FLOPs],
   [Total Bytes]; sorted descending by sort_by: "cpu_time_total" (default),
   "self_cpu_time_total", "cpu_time" (avg), "count", "flops", "bytes",
   "cpu_memory_usage", "self_cpu_memory_usage", or ascending by "name". */
typedef struct ct_profiler_table_options {
    const char *sort_by;
    int row_limit;               /* 0: every row */
    int group_by_input_shape;    /* needs record_shapes */
    int max_name_width;          /* 0: 55, as PyTorch */
} ct_profiler_table_options;
/* key_averages() as data: the table's rows (same grouping, sorting and row
   limit) into rows[0..cap); returns the number of rows there are (call with cap 0
   to size), or -1 with an error. Names stay valid until the next start. */
typedef struct ct_profiler_avg {
    const char *name;
    int count;                             /* # of Calls */
    double self_us, total_us, avg_us;      /* Self CPU, CPU total, CPU time avg */
    double self_percent;                   /* Self CPU % */
    int64_t flops, bytes, cpu_mem, self_cpu_mem;
} ct_profiler_avg;
CTENSOR_API int ct_profiler_key_averages(ct_profiler_avg *rows, int cap, const ct_profiler_table_options *o);
/* Writes the table into buf (always terminated when cap > 0); returns its full
   length as snprintf does, or 0 with an error (bad sort key, nothing recorded). */
CTENSOR_API size_t ct_profiler_table(char *buf, size_t cap, const ct_profiler_table_options *o);
#ifndef CTENSOR_NO_STDIO
CTENSOR_API ct_status ct_profiler_print_table(FILE *f, const ct_profiler_table_options *o);
/* export_chrome_trace: Trace Event JSON ("X" events, ts and dur in microseconds). */
CTENSOR_API ct_status ct_profiler_export_chrome_trace(const char *path);
#endif

/* [section: data-api] */

#ifdef __cplusplus
}  /* extern "C" */
#endif
#endif /* CTENSOR_NN_H_INCLUDED */

/* ############################################################################
   IMPLEMENTATION
   ############################################################################ */
#if defined(CTENSOR_IMPLEMENTATION) && !defined(CTENSOR_NN_NO_IMPLEMENTATION) && !defined(CTENSOR_NN_IMPLEMENTATION)
#define CTENSOR_NN_IMPLEMENTATION
#endif
#ifdef CTENSOR_NN_IMPLEMENTATION
#ifndef CTENSOR_NN_IMPLEMENTATION_DONE
#define CTENSOR_NN_IMPLEMENTATION_DONE
#ifndef CTENSOR_IMPLEMENTATION_DONE
#error "ctensor_nn.h: the implementation needs ctensor.h's implementation in the same translation unit (define CTENSOR_IMPLEMENTATION before including ctensor.h)"
#endif
CT__GXX_PUSH
#ifdef CTENSOR_CUDA_IMPLEMENTATION_DONE
#error "ctensor_nn.h: include ctensor_nn.h before ctensor_cuda.h (ctensor_cuda.h's implementation registers the CUDA kernels of ctensor_nn.h's ops when it comes after ctensor_nn.h's)"
#endif
#ifdef __NVCC__
#  pragma nv_diag_suppress 550
#endif

/* ============================================================================
   The op table of this header (rows in ctensor.h's X-macro format)
   ========================================================================== */
/* convolution and pooling */
#define CT__OPS_NN_CONV(X)                                                                                         \
    X(CONV2D, "aten::conv2d", "conv2d", "ConvolutionBackward0", -1, 1, 0, "int[2] stride=v0, int[2] padding=v2, int[2] dilation=v4, int groups=i0", ct__meta_conv, ct__k_conv, ct__bw_conv, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(CONV_TRANSPOSE2D, "aten::conv_transpose2d.input", "conv_transpose2d", "ConvolutionBackward0", -1, 1, 0, "int[2] stride=v0, int[2] padding=v2, int[2] dilation=v4, int groups=i0, int[2] output_size=v8", ct__meta_conv, ct__k_conv, ct__bw_conv, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(CONV2D_WEIGHT, "ct::convolution_backward_weight", "convolution_backward_weight", "ConvolutionBackwardWeightBackward0", 2, 1, 0, "int[2] stride=v0, int[2] padding=v2, int[2] dilation=v4, int groups=i0, int[2] kernel_size=v6", ct__meta_conv, ct__k_conv, ct__bw_conv, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(CONV2D_RELU, "ct::conv2d_relu", "conv2d_relu", "ConvolutionReluBackward0", -1, 1, 0, "int[2] stride=v0, int[2] padding=v2, int[2] dilation=v4, int groups=i0", ct__meta_conv, ct__k_conv, ct__bw_conv, CT__SAVE_IN(0) | CT__SAVE_IN(1) | CT__SAVE_OUT(0)) \
    X(MAX_POOL2D, "aten::max_pool2d_with_indices", "max_pool2d", "MaxPool2DWithIndicesBackward0", 1, 2, 0, "int[2] kernel_size=v0, int[2] stride=v2, int[2] padding=v4, int[2] dilation=v6, bool ceil_mode=f0", ct__meta_pool, ct__k_pool, ct__bw_pool, CT__SAVE_OUT(1)) \
    X(MAX_POOL2D_BACKWARD, "aten::max_pool2d_with_indices_backward", "max_pool2d_with_indices_backward", "MaxPool2DWithIndicesBackwardBackward0", 2, 1, 0, "int[2] kernel_size=v0, int[2] stride=v2, int[2] padding=v4, int[2] dilation=v6, bool ceil_mode=f0, int[2] input_size=v8", ct__meta_pool, ct__k_pool, ct__bw_pool, CT__SAVE_IN(1)) \
    X(AVG_POOL2D, "aten::avg_pool2d", "avg_pool2d", "AvgPool2DBackward0", 1, 1, 0, "int[2] kernel_size=v0, int[2] stride=v2, int[2] padding=v4, bool ceil_mode=f0, bool count_include_pad=f1, int divisor_override=i0", ct__meta_pool, ct__k_pool, ct__bw_pool, CT__SAVE_NONE) \
    X(AVG_POOL2D_BACKWARD, "aten::avg_pool2d_backward", "avg_pool2d_backward", "AvgPool2DBackwardBackward0", 1, 1, 0, "int[2] kernel_size=v0, int[2] stride=v2, int[2] padding=v4, bool ceil_mode=f0, bool count_include_pad=f1, int divisor_override=i0, int[2] input_size=v8", ct__meta_pool, ct__k_pool, ct__bw_pool, CT__SAVE_NONE) \
    X(ADAPTIVE_AVG_POOL2D, "aten::adaptive_avg_pool2d", "adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward0", 1, 1, 0, "int[2] output_size=v10", ct__meta_pool, ct__k_pool, ct__bw_pool, CT__SAVE_NONE) \
    X(ADAPTIVE_AVG_POOL2D_BACKWARD, "aten::adaptive_avg_pool2d_backward", "adaptive_avg_pool2d_backward", "AdaptiveAvgPool2DBackwardBackward0", 1, 1, 0, "int[2] input_size=v8", ct__meta_pool, ct__k_pool, ct__bw_pool, CT__SAVE_NONE)

/* normalization, embeddings (section nn-norm) */
#define CT__OPS_NN_NORM(X)                                                                                         \
    X(BATCH_NORM, "aten::native_batch_norm", "batch_norm", "NativeBatchNormBackward0", 3, 4, 0, "float eps=s0", ct__meta_bn, ct__k_bn, ct__bw_bn,                \
      CT__SAVE_IN(0) | CT__SAVE_IN(1) | CT__SAVE_OUT(1) | CT__SAVE_OUT(2))                                          \
    X(BATCH_NORM_BACKWARD, "aten::native_batch_norm_backward", "native_batch_norm_backward", "", 5, 3, CT__OPF_NONDIFF, "", ct__meta_bn_bw, ct__k_bn_bw,       \
      ct__bw_none, CT__SAVE_NONE)                                                                                   \
    X(BATCH_NORM_EVAL, "ct::batch_norm_eval", "batch_norm_eval", "BatchNormEvalBackward0", 3, 1, 0, "float momentum=s0:0.1", ct__meta_bn_eval, ct__k_bn_eval, ct__bw_bn_eval, \
      CT__SAVE_IN(0) | CT__SAVE_IN(1))                                                                              \
    X(LAYER_NORM, "aten::native_layer_norm", "layer_norm", "NativeLayerNormBackward0", 3, 3, 0, "int[] normalized_shape=v, float eps=s0", ct__meta_ln, ct__k_ln, ct__bw_ln,                \
      CT__SAVE_IN(0) | CT__SAVE_IN(1) | CT__SAVE_OUT(1) | CT__SAVE_OUT(2))                                          \
    X(LAYER_NORM_BACKWARD, "aten::native_layer_norm_backward", "native_layer_norm_backward", "", 5, 3, CT__OPF_NONDIFF, "", ct__meta_ln_bw, ct__k_ln_bw,       \
      ct__bw_none, CT__SAVE_NONE)                                                                                   \
    X(EMBEDDING, "aten::embedding", "embedding", "EmbeddingBackward0", 2, 1, 0, "int? padding_idx=i0?f0, bool scale_grad_by_freq=f1", ct__meta_embedding, ct__k_embedding, ct__bw_embedding,   \
      CT__SAVE_IN(1))

/* losses (nn-loss section): fused cross_entropy, mse_loss, bce_with_logits and their backwards */
#define CT__OPS_NN_LOSS(X)                                                                                         \
    X(CE_FUSED, "ct::cross_entropy_loss", "cross_entropy_loss", "NllLossBackward0", 2, 1, 0, "enum(none|mean|sum) reduction=mode, int ignore_index=i0", ct__meta_ce_fused, ct__k_ce_fused, ct__bw_ce_fused, CT__SAVE_ALL_IN) \
    X(CE_FUSED_BACKWARD, "ct::cross_entropy_loss_backward", "_cross_entropy_fused_backward", "CrossEntropyFusedBackwardBackward0", 3, 1, 0, "enum(none|mean|sum) reduction=mode, int ignore_index=i0", ct__meta_ce_fused_bw, ct__k_ce_fused_bw, ct__bw_ce_fused_bw, CT__SAVE_ALL_IN) \
    X(MSE_FUSED, "aten::mse_loss", "mse_loss", "MseLossBackward0", 2, 1, 0, "enum(none|mean|sum) reduction=mode", ct__meta_pwloss, ct__k_pwloss, ct__bw_pwloss, CT__SAVE_ALL_IN) \
    X(MSE_FUSED_BACKWARD, "aten::mse_loss_backward", "mse_loss_backward", "MseLossBackwardBackward0", 3, 1, 0, "enum(none|mean|sum) reduction=mode", ct__meta_pwloss_bw, ct__k_pwloss_bw, ct__bw_pwloss_bw, CT__SAVE_ALL_IN) \
    X(BCE_LOGITS_FUSED, "aten::binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0", 2, 1, 0, "enum(none|mean|sum) reduction=mode", ct__meta_pwloss, ct__k_pwloss, ct__bw_pwloss, CT__SAVE_ALL_IN) \
    X(BCE_LOGITS_FUSED_BACKWARD, "ct::binary_cross_entropy_with_logits_backward", "binary_cross_entropy_with_logits_backward", "BinaryCrossEntropyWithLogitsBackwardBackward0", 3, 1, 0, "enum(none|mean|sum) reduction=mode", ct__meta_pwloss_bw, ct__k_pwloss_bw, ct__bw_pwloss_bw, CT__SAVE_ALL_IN)


/* resampling (section nn-resample): upsampling (each forward row followed by its backward),
   pixel shuffles, grid samplers */
#define CT__OPS_NN_RESAMPLE(X)                                                                                     \
    X(UPSAMPLE_NEAREST1D, "aten::upsample_nearest1d.vec", "upsample_nearest1d", "UpsampleNearest1DBackward1", 1, 1, 0, "int[1] output_size=v0, float? scales=s0", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(UPSAMPLE_NEAREST1D_BACKWARD, "aten::upsample_nearest1d_backward.vec", "upsample_nearest1d_backward", "UpsampleNearest1DBackwardBackward1", 1, 1, 0, "int[1] output_size=v0, int[3] input_size=v1, float? scales=s0", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(UPSAMPLE_NEAREST2D, "aten::upsample_nearest2d.vec", "upsample_nearest2d", "UpsampleNearest2DBackward1", 1, 1, 0, "int[2] output_size=v0, float? scales_h=s0, float? scales_w=s1", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(UPSAMPLE_NEAREST2D_BACKWARD, "aten::upsample_nearest2d_backward.vec", "upsample_nearest2d_backward", "UpsampleNearest2DBackwardBackward1", 1, 1, 0, "int[2] output_size=v0, int[4] input_size=v2, float? scales_h=s0, float? scales_w=s1", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(UPSAMPLE_NEAREST3D, "aten::upsample_nearest3d.vec", "upsample_nearest3d", "UpsampleNearest3DBackward1", 1, 1, 0, "int[3] output_size=v0, float? scales_d=s0, float? scales_h=s1, float? scales_w=s2", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(UPSAMPLE_NEAREST3D_BACKWARD, "aten::upsample_nearest3d_backward.vec", "upsample_nearest3d_backward", "UpsampleNearest3DBackwardBackward1", 1, 1, 0, "int[3] output_size=v0, int[5] input_size=v3, float? scales_d=s0, float? scales_h=s1, float? scales_w=s2", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(UPSAMPLE_NEAREST_EXACT1D, "aten::_upsample_nearest_exact1d.vec", "_upsample_nearest_exact1d", "UpsampleNearestExact1DBackward1", 1, 1, 0, "int[1] output_size=v0, float? scales=s0", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(UPSAMPLE_NEAREST_EXACT1D_BACKWARD, "aten::_upsample_nearest_exact1d_backward.vec", "_upsample_nearest_exact1d_backward", "UpsampleNearestExact1DBackwardBackward1", 1, 1, 0, "int[1] output_size=v0, int[3] input_size=v1, float? scales=s0", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(UPSAMPLE_NEAREST_EXACT2D, "aten::_upsample_nearest_exact2d.vec", "_upsample_nearest_exact2d", "UpsampleNearestExact2DBackward1", 1, 1, 0, "int[2] output_size=v0, float? scales_h=s0, float? scales_w=s1", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(UPSAMPLE_NEAREST_EXACT2D_BACKWARD, "aten::_upsample_nearest_exact2d_backward.vec", "_upsample_nearest_exact2d_backward", "UpsampleNearestExact2DBackwardBackward1", 1, 1, 0, "int[2] output_size=v0, int[4] input_size=v2, float? scales_h=s0, float? scales_w=s1", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(UPSAMPLE_NEAREST_EXACT3D, "aten::_upsample_nearest_exact3d.vec", "_upsample_nearest_exact3d", "UpsampleNearestExact3DBackward1", 1, 1, 0, "int[3] output_size=v0, float? scales_d=s0, float? scales_h=s1, float? scales_w=s2", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(UPSAMPLE_NEAREST_EXACT3D_BACKWARD, "aten::_upsample_nearest_exact3d_backward.vec", "_upsample_nearest_exact3d_backward", "UpsampleNearestExact3DBackwardBackward1", 1, 1, 0, "int[3] output_size=v0, int[5] input_size=v3, float? scales_d=s0, float? scales_h=s1, float? scales_w=s2", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(UPSAMPLE_LINEAR1D, "aten::upsample_linear1d.vec", "upsample_linear1d", "UpsampleLinear1DBackward1", 1, 1, 0, "int[1] output_size=v0, bool align_corners=f0, float? scales=s0", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(UPSAMPLE_LINEAR1D_BACKWARD, "aten::upsample_linear1d_backward.vec", "upsample_linear1d_backward", "UpsampleLinear1DBackwardBackward1", 1, 1, 0, "int[1] output_size=v0, int[3] input_size=v1, bool align_corners=f0, float? scales=s0", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(UPSAMPLE_BILINEAR2D, "aten::upsample_bilinear2d.vec", "upsample_bilinear2d", "UpsampleBilinear2DBackward1", 1, 1, 0, "int[2] output_size=v0, bool align_corners=f0, float? scales_h=s0, float? scales_w=s1", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(UPSAMPLE_BILINEAR2D_BACKWARD, "aten::upsample_bilinear2d_backward.vec", "upsample_bilinear2d_backward", "UpsampleBilinear2DBackwardBackward1", 1, 1, 0, "int[2] output_size=v0, int[4] input_size=v2, bool align_corners=f0, float? scales_h=s0, float? scales_w=s1", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(UPSAMPLE_BICUBIC2D, "aten::upsample_bicubic2d.vec", "upsample_bicubic2d", "UpsampleBicubic2DBackward1", 1, 1, 0, "int[2] output_size=v0, bool align_corners=f0, float? scales_h=s0, float? scales_w=s1", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(UPSAMPLE_BICUBIC2D_BACKWARD, "aten::upsample_bicubic2d_backward.vec", "upsample_bicubic2d_backward", "UpsampleBicubic2DBackwardBackward1", 1, 1, 0, "int[2] output_size=v0, int[4] input_size=v2, bool align_corners=f0, float? scales_h=s0, float? scales_w=s1", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(UPSAMPLE_TRILINEAR3D, "aten::upsample_trilinear3d.vec", "upsample_trilinear3d", "UpsampleTrilinear3DBackward1", 1, 1, 0, "int[3] output_size=v0, bool align_corners=f0, float? scales_d=s0, float? scales_h=s1, float? scales_w=s2", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(UPSAMPLE_TRILINEAR3D_BACKWARD, "aten::upsample_trilinear3d_backward.vec", "upsample_trilinear3d_backward", "UpsampleTrilinear3DBackwardBackward1", 1, 1, 0, "int[3] output_size=v0, int[5] input_size=v3, bool align_corners=f0, float? scales_d=s0, float? scales_h=s1, float? scales_w=s2", ct__meta_upsample, ct__k_upsample, ct__bw_upsample, CT__SAVE_NONE) \
    X(PIXEL_SHUFFLE, "aten::pixel_shuffle", "pixel_shuffle", "PixelShuffleBackward0", 1, 1, 0, "int upscale_factor=i0", ct__meta_pixel_shuffle, ct__k_pixel_shuffle, ct__bw_pixel_shuffle, CT__SAVE_NONE) \
    X(PIXEL_UNSHUFFLE, "aten::pixel_unshuffle", "pixel_unshuffle", "PixelUnshuffleBackward0", 1, 1, 0, "int downscale_factor=i0", ct__meta_pixel_shuffle, ct__k_pixel_shuffle, ct__bw_pixel_shuffle, CT__SAVE_NONE) \
    X(GRID_SAMPLER_2D, "aten::grid_sampler_2d", "grid_sampler_2d", "GridSampler2DBackward0", 2, 1, 0, "enum(bilinear|nearest|bicubic) interpolation_mode=i0, enum(zeros|border|reflection) padding_mode=i1, bool align_corners=f0", ct__meta_grid_sampler, ct__k_grid_sampler, ct__bw_grid_sampler, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(GRID_SAMPLER_2D_BACKWARD, "aten::grid_sampler_2d_backward", "grid_sampler_2d_backward", "GridSampler2DBackwardBackward0", 3, 2, 0, "enum(bilinear|nearest|bicubic) interpolation_mode=i0, enum(zeros|border|reflection) padding_mode=i1, bool align_corners=f0, bool input_grad=f1, bool grid_grad=f2", ct__meta_grid_sampler, ct__k_grid_sampler, ct__bw_none, CT__SAVE_NONE) \
    X(GRID_SAMPLER_3D, "aten::grid_sampler_3d", "grid_sampler_3d", "GridSampler3DBackward0", 2, 1, 0, "enum(bilinear|nearest|bicubic) interpolation_mode=i0, enum(zeros|border|reflection) padding_mode=i1, bool align_corners=f0", ct__meta_grid_sampler, ct__k_grid_sampler, ct__bw_grid_sampler, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(GRID_SAMPLER_3D_BACKWARD, "aten::grid_sampler_3d_backward", "grid_sampler_3d_backward", "GridSampler3DBackwardBackward0", 3, 2, 0, "enum(bilinear|nearest|bicubic) interpolation_mode=i0, enum(zeros|border|reflection) padding_mode=i1, bool align_corners=f0, bool input_grad=f1, bool grid_grad=f2", ct__meta_grid_sampler, ct__k_grid_sampler, ct__bw_none, CT__SAVE_NONE)
/* the transformer fastpath's fused ops (section "Transformer fastpath"): inference only */
#define CT__OPS_NN_TRANSFORMER(X)                                                                                  \
    X(TF_ENC_LAYER, "ct::transformer_encoder_layer_fwd", "transformer_encoder_layer_fwd", "", -1, 1, CT__OPF_NONDIFF,   \
      "int num_heads=i0, bool use_gelu=f0, bool norm_first=f1, float eps1=s0, float eps2=s1, enum(none|padding|nested|cache) mask_type=mode, int past=i1", \
      ct__meta_tf_layer, ct__k_tf_layer, ct__bw_none, CT__SAVE_NONE)                                               \
    X(TF_MHA, "ct::multi_head_self_attention_fwd", "multi_head_self_attention_fwd", "", -1, 1, CT__OPF_NONDIFF,        \
      "int num_heads=i0, bool is_causal=f0, enum(none|padding) mask_type=mode", ct__meta_tf_mha, ct__k_tf_mha, ct__bw_none, CT__SAVE_NONE)
#define CT__NN_OPS(X) CT__OPS_NN_CONV(X) CT__OPS_NN_NORM(X) CT__OPS_NN_LOSS(X) CT__OPS_NN_RESAMPLE(X) CT__OPS_NN_TRANSFORMER(X)
enum {
#define CT__NN_X_ENUM(E, sname, name, bw, nin, nout, flags, attrs, meta, kernel, backward, save) CT__NN_##E,
    CT__NN_OPS(CT__NN_X_ENUM)
#undef CT__NN_X_ENUM
    CT__NN_NUM_OPS
};
CT__NN_OPS(CT__X_PROTO)
static const ct__opdef ct__nn_defs[CT__NN_NUM_OPS] = {CT__NN_OPS(CT__X_DEF)};
/* The ops register once, together (consecutive ids from ct__nn_base). */
CT__OP_BLOCK(nn, ct__nn_defs, CT__NN_NUM_OPS, )
static int ct__nn_op_id(int local) {
    ct__nn_register_now();
    return ct__nn_base < 0 ? -1 : ct__nn_base + local;
}
#define CT__NNOP(E) ct__nn_op_id(CT__NN_##E)
/* aten::conv2d, or ct::conv2d_relu (the same convolution with a ReLU epilogue) */
#define CT__NN_CONV_FWD(op) ((op) == CT__NNOP(CONV2D) || (op) == CT__NNOP(CONV2D_RELU))

/* ============================================================================
   Neural networks: modules
   ========================================================================== */
static char *ct__strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = (char *)CT_MALLOC(n);
    if (d) memcpy(d, s, n);
    return d;
}
/* appends printf-formatted text to a bounded message */
static void ct__msg_cat(char *buf, size_t cap, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void ct__msg_cat(char *buf, size_t cap, const char *fmt, ...) {
    size_t n = strlen(buf);
    if (n + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, cap - n, fmt, ap);
    va_end(ap);
}
CTENSOR_API ct_module *ct_module_new(const ct_module_type *type, void *impl) {
    if (!type) return (ct_module *)ct__fail(CT_ERR_ARG, "module: type is NULL");
    ct_module *m = CT__NEW_ZEROED(ct_module);
    if (!m) return (ct_module *)ct__fail(CT_ERR_MEMORY, "module: out of memory");
    m->type = type;
    m->impl = impl;
    m->training = 1;
    return m;
}
/* Which kind of attribute `name` already is in m (parameter, buffer or child), or NULL. */
static const char *ct__attr_kind(const ct_module *m, const char *name) {
    for (int i = 0; i < m->nparams; i++)
        if (!strcmp(m->params[i].name, name)) return "parameter";
    for (int i = 0; i < m->nbuffers; i++)
        if (!strcmp(m->buffers[i].name, name)) return "buffer";
    for (int i = 0; i < m->nchildren; i++)
        if (!strcmp(m->children[i].name, name)) return "child module";
    return NULL;
}
/* The name checks of register_parameter / register_buffer / add_module (PyTorch's
   KeyError "attribute 'x' already exists" covers any attribute, not only one kind). */
static ct_status ct__check_attr_name(const ct_module *m, const char *name, const char *api, const char *what) {
    if (!name || !name[0] || strchr(name, '.')) {
        ct_set_error(CT_ERR_ARG, "%s: %s name can't be empty or contain \".\" (got \"%s\")", api, what, name ? name : "");
        return CT_ERR_ARG;
    }
    const char *kind = ct__attr_kind(m, name);
    if (kind) {
        ct_set_error(CT_ERR_ARG, "%s: attribute '%s' already exists (%s has a %s '%s')", api, name, m->type->name, kind, name);
        return CT_ERR_ARG;
    }
    return CT_OK;
}
static ct_status ct__named_add(ct_named_tensor **arr, int *n, int *cap, const char *name, ct_tensor *t, int persistent,
                               const char *what, const ct_module *m) {
    char api[32];
    snprintf(api, sizeof api, "register_%s", what);
    ct_status st = ct__check_attr_name(m, name, api, what);
    if (st) return st;
    if (ct__grow((void **)arr, cap, *n + 1, sizeof(ct_named_tensor))) { ct_set_error(CT_ERR_MEMORY, "module: out of memory"); return CT_ERR_MEMORY; }
    char *nm = ct__strdup(name);
    if (!nm) { ct_set_error(CT_ERR_MEMORY, "module: out of memory"); return CT_ERR_MEMORY; }
    (*arr)[*n].name = nm;
    (*arr)[*n].tensor = t ? ct__incref(t) : NULL;
    (*arr)[*n].persistent = persistent;
    (*n)++;
    return CT_OK;
}
CTENSOR_API ct_status ct_module_register_parameter(ct_module *m, const char *name, ct_tensor *t) {
    if (!m) { ct_set_error(CT_ERR_ARG, "register_parameter: module is NULL"); return CT_ERR_ARG; }
    if (t && !CT__ISFLOAT(t->dtype)) {
        ct_set_error(CT_ERR_DTYPE, "register_parameter: only floating point tensors can be parameters (got %s)", ct_dtype_name(t->dtype));
        return CT_ERR_DTYPE;
    }
    if (t && t->grad_fn) {
        ct_set_error(CT_ERR_ARG, "register_parameter: cannot assign a non-leaf tensor as parameter '%s' (it has a grad_fn); detach it first", name ? name : "");
        return CT_ERR_ARG;
    }
    if (t) t->flags |= CT__F_REQUIRES_GRAD;
    return ct__named_add(&m->params, &m->nparams, &m->cap_params, name, t, 1, "parameter", m);
}
CTENSOR_API ct_status ct_module_register_buffer(ct_module *m, const char *name, ct_tensor *t, int persistent) {
    if (!m) { ct_set_error(CT_ERR_ARG, "register_buffer: module is NULL"); return CT_ERR_ARG; }
    return ct__named_add(&m->buffers, &m->nbuffers, &m->cap_buffers, name, t, persistent, "buffer", m);
}
CTENSOR_API ct_status ct_module_add_module(ct_module *m, const char *name, ct_module *child) {
    if (!m || !child) {
        if (child) ct_module_free(child);
        ct_set_error(CT_ERR_ARG, "add_module: module or child is NULL");
        return CT_ERR_ARG;
    }
    if (ct__check_attr_name(m, name, "add_module", "module")) {
        ct_module_free(child);
        return CT_ERR_ARG;
    }
    char *nm = ct__grow((void **)&m->children, &m->cap_children, m->nchildren + 1, sizeof(ct_named_module)) ? NULL : ct__strdup(name);
    if (!nm) {
        ct_module_free(child);
        ct_set_error(CT_ERR_MEMORY, "module: out of memory");
        return CT_ERR_MEMORY;
    }
    m->children[m->nchildren].name = nm;
    m->children[m->nchildren].module = child;
    m->nchildren++;
    child->training = m->training;
    return CT_OK;
}
CTENSOR_API void ct_module_free(ct_module *m) {
    if (!m) return;
    for (int i = 0; i < m->nchildren; i++) {
        ct_module_free(m->children[i].module);
        CT_FREE(m->children[i].name);
    }
    for (int i = 0; i < m->nparams; i++) {
        if (m->params[i].tensor) ct_release(m->params[i].tensor);
        CT_FREE(m->params[i].name);
    }
    for (int i = 0; i < m->nbuffers; i++) {
        if (m->buffers[i].tensor) ct_release(m->buffers[i].tensor);
        CT_FREE(m->buffers[i].name);
    }
    if (m->type && m->type->destroy) m->type->destroy(m);
    CT_FREE(m->children);
    CT_FREE(m->params);
    CT_FREE(m->buffers);
    CT_FREE(m);
}
CTENSOR_API ct_tensor *ct_forward_n(ct_module *m, int nin, ct_tensor *const *in) {
    if (!m) return ct__fail(ct_last_error_code() != CT_OK ? ct_last_error_code() : CT_ERR_NULL,
                            "%s", ct_last_error_code() != CT_OK ? ct_last_error() : "forward: module is NULL");
    for (int i = 0; i < nin; i++)
        if (!in[i]) { ct__null_arg(m->type->name, i); return NULL; }
    if (!m->type->forward) return ct__fail(CT_ERR_UNSUPPORTED, "%s: module has no forward", m->type->name);
    return m->type->forward(m, nin, in);
}
CTENSOR_API ct_tensor *ct_forward(ct_module *m, ct_tensor *x) { return ct_forward_n(m, 1, &x); }
CTENSOR_API ct_module *ct_module_train(ct_module *m, int mode) {
    if (!m) return NULL;
    m->training = mode != 0;
    for (int i = 0; i < m->nchildren; i++) ct_module_train(m->children[i].module, mode);
    return m;
}
CTENSOR_API ct_module *ct_module_eval(ct_module *m) { return ct_module_train(m, 0); }
/* Optimal string alignment distance (Levenshtein plus swaps of adjacent
   characters: "wieght" is 1 from "weight"), for "did you mean" suggestions. */
static int ct__edit_distance(const char *a, const char *b) {
    size_t n = strlen(a), m = strlen(b);
    if (n > 200 || m > 200) return INT_MAX / 2;   /* not a typo of each other worth computing */
    int rows[3][201];
    int *pp = rows[0], *p = rows[1], *c = rows[2];
    for (size_t j = 0; j <= m; j++) p[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        c[0] = (int)i;
        for (size_t j = 1; j <= m; j++) {
            int sub = p[j - 1] + (a[i - 1] != b[j - 1]), del = p[j] + 1, ins = c[j - 1] + 1;
            int v = sub < del ? sub : del;
            if (ins < v) v = ins;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v) v = pp[j - 2] + 1;
            c[j] = v;
        }
        int *t = pp; pp = p; p = c; c = t;
    }
    return p[m];
}
/* Appends "; did you mean 'x'?" (the closest of names, ties listed), or when
   nothing is close "; it has 'a', 'b', ..." (or "; it has none"). Close: within
   about a third of the lengths, as Python's own suggestions are. */
static void ct__did_you_mean(char *buf, size_t cap, const char *q, int n, const char *const *names) {
    int best = INT_MAX;
    for (int i = 0; i < n; i++) {
        int d = ct__edit_distance(q, names[i]);
        if (d <= (int)((strlen(q) + strlen(names[i]) + 3) / 6) && d < best) best = d;
    }
    if (best != INT_MAX) {
        int shown = 0, ties = 0;
        for (int i = 0; i < n; i++) ties += ct__edit_distance(q, names[i]) == best;
        ct__msg_cat(buf, cap, "; did you mean ");
        for (int i = 0; i < n && shown < 3; i++)
            if (ct__edit_distance(q, names[i]) == best) {
                shown++;
                ct__msg_cat(buf, cap, "%s'%s'", shown == 1 ? "" : shown == ties || shown == 3 ? " or " : ", ", names[i]);
            }
        ct__msg_cat(buf, cap, "?");
        return;
    }
    if (!n) { ct__msg_cat(buf, cap, "; it has none"); return; }
    ct__msg_cat(buf, cap, "; it has ");
    for (int i = 0; i < n && i < 8; i++) ct__msg_cat(buf, cap, "%s'%s'", i ? ", " : "", names[i]);
    if (n > 8) ct__msg_cat(buf, cap, ", ... (%d in all)", n);
}
/* "module 'features.0' (Conv2d)" for a submodule, "Sequential" for the root */
static void ct__module_label(char *buf, size_t cap, const ct_module *m, const char *path, size_t pathlen) {
    if (pathlen) snprintf(buf, cap, "module '%.*s' (%s)", (int)pathlen, path, m->type->name);
    else snprintf(buf, cap, "%s", m->type->name);
}
/* Walks the dotted path's module part: returns the module that holds the last
   component (*last points at it), or NULL with the error. want_module: the whole
   path names modules (module_child). */
static const ct_module *ct__module_walk(const ct_module *m, const char *dotted, const char *api, int want_module, const char **last) {
    const char *seg = dotted;
    for (;;) {
        const char *dot = strchr(seg, '.');
        if (!dot && !want_module) { *last = seg; return m; }
        size_t len = dot ? (size_t)(dot - seg) : strlen(seg);
        const ct_module *next = NULL;
        for (int i = 0; i < m->nchildren && !next; i++)
            if (strlen(m->children[i].name) == len && !memcmp(m->children[i].name, seg, len)) next = m->children[i].module;
        if (!next) {
            char label[300], msg[1500], key[256];
            ct__module_label(label, sizeof label, m, dotted, seg > dotted ? (size_t)(seg - dotted - 1) : 0);
            snprintf(key, sizeof key, "%.*s", (int)(len < 200 ? len : 200), seg);
            snprintf(msg, sizeof msg, "%s has no child module '%s'", label, key);
            if (strcmp(key, dotted)) ct__msg_cat(msg, sizeof msg, " (looking up '%s')", dotted);
            const char **names = CT__NEW_ARRAY(const char *, m->nchildren > 0 ? m->nchildren : 1);
            if (names) {
                for (int i = 0; i < m->nchildren; i++) names[i] = m->children[i].name;
                ct__did_you_mean(msg, sizeof msg, key, m->nchildren, names);
                CT_FREE(names);
            }
            ct_set_error(CT_ERR_ARG, "%s: %s", api, msg);
            return NULL;
        }
        m = next;
        if (!dot) { *last = NULL; return m; }
        seg = dot + 1;
    }
}
CTENSOR_API ct_module *ct_module_child(const ct_module *m, const char *dotted) {
    if (!m) return NULL;   /* keeps the error that made it NULL */
    if (!dotted) { ct_set_error(CT_ERR_ARG, "module_child: name is NULL"); return NULL; }
    const char *last = NULL;
    return (ct_module *)(uintptr_t)ct__module_walk(m, dotted, "module_child", 1, &last);
}
CTENSOR_API ct_tensor *ct_module_get(const ct_module *m, const char *dotted) {
    if (!m) return NULL;
    if (!dotted) { ct_set_error(CT_ERR_ARG, "module_get: name is NULL"); return NULL; }
    const char *last = NULL;
    const ct_module *o = ct__module_walk(m, dotted, "module_get", 0, &last);
    if (!o) return NULL;
    for (int i = 0; i < o->nparams; i++)
        if (!strcmp(o->params[i].name, last)) return o->params[i].tensor;
    for (int i = 0; i < o->nbuffers; i++)
        if (!strcmp(o->buffers[i].name, last)) return o->buffers[i].tensor;
    char label[300], msg[1500];
    ct__module_label(label, sizeof label, o, dotted, last > dotted ? (size_t)(last - dotted - 1) : 0);
    for (int i = 0; i < o->nchildren; i++)
        if (!strcmp(o->children[i].name, last)) {
            ct_set_error(CT_ERR_ARG, "module_get: '%s' is a child module of %s, not a parameter or buffer (ct_module_child gets modules)",
                         dotted, label);
            return NULL;
        }
    snprintf(msg, sizeof msg, "%s has no parameter or buffer '%.200s'", label, last);
    int n = o->nparams + o->nbuffers;
    const char **names = CT__NEW_ARRAY(const char *, n > 0 ? n : 1);
    if (names) {
        for (int i = 0; i < o->nparams; i++) names[i] = o->params[i].name;
        for (int i = 0; i < o->nbuffers; i++) names[o->nparams + i] = o->buffers[i].name;
        ct__did_you_mean(msg, sizeof msg, last, n, names);
        CT_FREE(names);
    }
    ct_set_error(CT_ERR_ARG, "module_get: %s", msg);
    return NULL;
}
static int ct__params_rec(const ct_module *m, ct_tensor **out, int max, int n) {
    for (int i = 0; i < m->nparams; i++) {
        ct_tensor *t = m->params[i].tensor;
        if (!t) continue;
        /* a tensor shared by two modules is listed once, like PyTorch's parameters() */
        int dup = 0;
        for (int k = 0; k < n && k < max && out && !dup; k++) dup = out[k] == t;
        if (dup) continue;
        if (out && n < max) out[n] = t;
        n++;
    }
    for (int i = 0; i < m->nchildren; i++) n = ct__params_rec(m->children[i].module, out, max, n);
    return n;
}
CTENSOR_API int ct_module_parameters(const ct_module *m, ct_tensor **out, int max) {
    if (!m) return 0;
    return ct__params_rec(m, out, max, 0);
}
CTENSOR_API int64_t ct_module_num_elements(const ct_module *m) {
    int n = ct_module_parameters(m, NULL, 0);
    ct_tensor **ps = CT__NEW_ARRAY(ct_tensor *, n);
    if (!ps) return -1;
    ct_module_parameters(m, ps, n);
    int64_t total = 0;
    for (int i = 0; i < n; i++) total += ct_numel(ps[i]);
    CT_FREE(ps);
    return total;
}
CTENSOR_API void ct_module_zero_grad(ct_module *m) {
    if (!m) return;
    for (int i = 0; i < m->nparams; i++)
        if (m->params[i].tensor) ct_set_grad(m->params[i].tensor, NULL);
    for (int i = 0; i < m->nchildren; i++) ct_module_zero_grad(m->children[i].module);
}
/* ---- Module.to: every tensor of the tree, once (tied parameters appear twice) ---- */
typedef struct ct__mto { ct_tensor **t; ct_tensor **conv; ct_tensor **grad; int n, cap; } ct__mto;
static ct_status ct__mto_add(ct__mto *l, ct_tensor *t) {
    if (!t) return CT_OK;
    for (int i = 0; i < l->n; i++)
        if (l->t[i] == t) return CT_OK;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        ct_tensor **a = (ct_tensor **)CT_REALLOC(l->t, (size_t)cap * 3 * sizeof(ct_tensor *));
        if (!a) return CT_ERR_MEMORY;
        l->t = a;
        l->cap = cap;
    }
    l->t[l->n++] = t;
    return CT_OK;
}
static ct_status ct__mto_collect(const ct_module *m, ct__mto *l) {
    for (int i = 0; i < m->nparams; i++)
        if (ct__mto_add(l, m->params[i].tensor)) return CT_ERR_MEMORY;
    for (int i = 0; i < m->nbuffers; i++)
        if (ct__mto_add(l, m->buffers[i].tensor)) return CT_ERR_MEMORY;
    for (int i = 0; i < m->nchildren; i++)
        if (ct__mto_collect(m->children[i].module, l)) return CT_ERR_MEMORY;
    return CT_OK;
}
/* t takes over x's data and geometry (x gets t's: it is freed with its scope) */
static void ct__mto_swap(ct_tensor *t, ct_tensor *x) {
    ct_storage *st = t->storage;
    t->storage = x->storage;
    x->storage = st;
    int64_t off = t->offset;
    t->offset = x->offset;
    x->offset = off;
    int64_t tmp[CT_MAX_DIMS];
    memcpy(tmp, t->strides, sizeof tmp);
    memcpy(t->strides, x->strides, sizeof tmp);
    memcpy(x->strides, tmp, sizeof tmp);
    ct_dtype dt = t->dtype;
    t->dtype = x->dtype;
    x->dtype = dt;
    ct_device dv = t->device;
    t->device = x->device;
    x->device = dv;
    uint32_t fc = t->flags & CT__F_CONTIG;
    t->flags = (t->flags & ~CT__F_CONTIG) | (x->flags & CT__F_CONTIG);
    x->flags = (x->flags & ~CT__F_CONTIG) | fc;
    if (t->flags & CT__F_IS_VIEW) {   /* it owns its data now */
        t->flags &= ~CT__F_IS_VIEW;
        if (t->base) ct__decref(t->base);
        t->base = NULL;
    }
}
static ct_module *ct__module_to(const char *api, ct_module *m, ct_device device, int set_device, ct_dtype dtype, int set_dtype) {
    if (!m) return (ct_module *)ct__fail(CT_ERR_ARG, "%s: module is NULL", api);
    if (set_device && !ct__device_valid(device))
        return (ct_module *)ct__fail(CT_ERR_DEVICE, "%s: invalid device (type %d, index %d)", api, (int)device.type, (int)device.index);
    if (set_dtype && !CT__ISFLOAT(dtype))
        return (ct_module *)ct__fail(CT_ERR_DTYPE, "%s: nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=%s", api,
                                     ct_dtype_name(dtype));
    ct__mto l = {NULL, NULL, NULL, 0, 0};
    if (ct__mto_collect(m, &l)) {
        CT_FREE(l.t);
        return (ct_module *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", api);
    }
    l.conv = l.t + l.cap;
    l.grad = l.t + 2 * l.cap;
    int ok = 1, s = ct_scope_begin();
    CT_NO_GRAD {
        for (int i = 0; i < l.n && ok; i++) {   /* every copy first: nothing changes unless all succeed */
            ct_tensor *t = l.t[i];
            ct_device d = set_device ? device : t->device;
            ct_dtype dt = set_dtype && CT__ISFLOAT(t->dtype) ? dtype : t->dtype;
            l.conv[i] = l.grad[i] = NULL;
            if (ct_device_eq(d, t->device) && dt == t->dtype) continue;
            ok = (l.conv[i] = ct__to(t, dt, d)) != NULL && (!t->grad || (l.grad[i] = ct__to(t->grad, dt, d)) != NULL);
        }
    }
    if (ok)
        for (int i = 0; i < l.n; i++) {
            if (!l.conv[i]) continue;
            ct__mto_swap(l.t[i], l.conv[i]);
            if (l.grad[i]) ct_set_grad(l.t[i], l.grad[i]);
        }
    ct_scope_end(s);
    CT_FREE(l.t);
    return ok ? m : NULL;
}
CTENSOR_API ct_module *ct_module_to(ct_module *m, ct_device device) { return ct__module_to("Module.to", m, device, 1, CT_FLOAT32, 0); }
CTENSOR_API ct_module *ct_module_to_dtype(ct_module *m, ct_dtype dtype) {
    return ct__module_to("Module.to", m, ct__cpu_dev, 0, dtype, 1);
}
static ct_status ct__sd_add(ct_state_dict *sd, int *cap, const char *prefix, const char *name, ct_tensor *t) {
    if (ct__grow((void **)&sd->items, cap, sd->n + 1, sizeof(ct_named_tensor))) return CT_ERR_MEMORY;
    size_t len = strlen(prefix) + strlen(name) + 1;
    char *full = (char *)CT_MALLOC(len);
    if (!full) return CT_ERR_MEMORY;
    snprintf(full, len, "%s%s", prefix, name);
    sd->items[sd->n].name = full;
    sd->items[sd->n].tensor = t;
    sd->items[sd->n].persistent = 1;
    sd->n++;
    return CT_OK;
}
static ct_status ct__sd_rec(const ct_module *m, const char *prefix, ct_state_dict *sd, int *cap) {
    for (int i = 0; i < m->nparams; i++)
        if (m->params[i].tensor && ct__sd_add(sd, cap, prefix, m->params[i].name, m->params[i].tensor)) return CT_ERR_MEMORY;
    for (int i = 0; i < m->nbuffers; i++)
        if (m->buffers[i].tensor && m->buffers[i].persistent && ct__sd_add(sd, cap, prefix, m->buffers[i].name, m->buffers[i].tensor))
            return CT_ERR_MEMORY;
    for (int i = 0; i < m->nchildren; i++) {
        size_t len = strlen(prefix) + strlen(m->children[i].name) + 2;
        char *p = (char *)CT_MALLOC(len);
        if (!p) return CT_ERR_MEMORY;
        snprintf(p, len, "%s%s.", prefix, m->children[i].name);
        ct_status st = ct__sd_rec(m->children[i].module, p, sd, cap);
        CT_FREE(p);
        if (st) return st;
    }
    return CT_OK;
}
CTENSOR_API ct_status ct_module_state_dict(const ct_module *m, ct_state_dict *out) {
    if (!out) { ct_set_error(CT_ERR_ARG, "state_dict: output is NULL"); return CT_ERR_ARG; }
    out->n = 0;
    out->items = NULL;
    if (!m) { ct_set_error(CT_ERR_ARG, "state_dict: module is NULL"); return CT_ERR_ARG; }
    int cap = 0;
    if (ct__sd_rec(m, "", out, &cap)) {
        ct_state_dict_free(out);
        ct_set_error(CT_ERR_MEMORY, "state_dict: out of memory");
        return CT_ERR_MEMORY;
    }
    return CT_OK;
}
CTENSOR_API void ct_state_dict_free(ct_state_dict *sd) {
    if (!sd) return;
    for (int i = 0; i < sd->n; i++) CT_FREE(sd->items[i].name);
    CT_FREE(sd->items);
    sd->items = NULL;
    sd->n = 0;
}
CTENSOR_API ct_status ct_module_load_state_dict(ct_module *m, const ct_state_dict *sd, int strict) {
    if (!m || !sd) { ct_set_error(CT_ERR_ARG, "load_state_dict: module or state dict is NULL"); return CT_ERR_ARG; }
    ct_state_dict mine;
    if (ct_module_state_dict(m, &mine)) return ct_last_error_code();
    enum { CAP = 2000 };
    char missing[CAP] = "", unexpected[CAP] = "", mism[CAP] = "";
    int nmiss = 0, nunexp = 0, nmism = 0;
    int *match = CT__NEW_ARRAY(int, mine.n);
    if (!match) { ct_state_dict_free(&mine); ct_set_error(CT_ERR_MEMORY, "load_state_dict: out of memory"); return CT_ERR_MEMORY; }
    for (int i = 0; i < mine.n; i++) {
        match[i] = -1;
        for (int j = 0; j < sd->n; j++)
            if (sd->items[j].name && !strcmp(sd->items[j].name, mine.items[i].name)) { match[i] = j; break; }
        if (match[i] < 0) {
            ct__msg_cat(missing, CAP, "%s\"%s\"", nmiss ? ", " : "", mine.items[i].name);
            nmiss++;
            continue;
        }
        ct_tensor *src = sd->items[match[i]].tensor, *dst = mine.items[i].tensor;
        if (!src || !ct_same_shape(src, dst)) {
            ct__msg_cat(mism, CAP, "\n\tsize mismatch for %s: copying a param with shape %s from checkpoint, the shape in current model is %s.",
                        mine.items[i].name, src ? CT__SHAPE(src) : "[]", CT__SHAPE(dst));
            nmism++;
        }
    }
    for (int j = 0; j < sd->n; j++) {
        int found = 0;
        for (int i = 0; i < mine.n && !found; i++) found = sd->items[j].name && !strcmp(sd->items[j].name, mine.items[i].name);
        if (!found) {
            ct__msg_cat(unexpected, CAP, "%s\"%s\"", nunexp ? ", " : "", sd->items[j].name ? sd->items[j].name : "(null)");
            nunexp++;
        }
    }
    ct_status st = CT_OK;
    if (nmism || (strict && (nmiss || nunexp))) {
        char msg[3 * CAP + 200];
        snprintf(msg, sizeof msg, "Error(s) in loading state_dict for %s:", m->type->name);
        if (strict && nmiss) ct__msg_cat(msg, sizeof msg, "\n\tMissing key(s) in state_dict: %s. ", missing);
        if (strict && nunexp) ct__msg_cat(msg, sizeof msg, "\n\tUnexpected key(s) in state_dict: %s. ", unexpected);
        ct__msg_cat(msg, sizeof msg, "%s", mism);
        ct_set_error(nmism ? CT_ERR_SHAPE : CT_ERR_ARG, "load_state_dict: %s", msg);
        st = ct_last_error_code();
    } else {
        /* everything checked first: nothing is half loaded on error */
        int prev = ct_set_grad_enabled(0), s = ct_scope_begin();
        for (int i = 0; i < mine.n && st == CT_OK; i++)
            if (match[i] >= 0 && !ct_copy_(mine.items[i].tensor, sd->items[match[i]].tensor)) st = ct_last_error_code();
        ct_scope_end(s);
        ct_set_grad_enabled(prev);
    }
    CT_FREE(match);
    ct_state_dict_free(&mine);
    return st;
}

/* print(model): PyTorch's nested repr */
static void ct__mrepr(const ct_module *m, ct__sbuf *b, int indent) {
    char extra[512] = "";
    if (m->type->extra_repr) m->type->extra_repr(m, extra, sizeof extra);
    ct__sputs(b, m->type->name);
    ct__sputs(b, "(");
    if (!m->nchildren) ct__sputs(b, extra);   /* a one-line module */
    if (m->nchildren) {
        ct__sputs(b, "\n");
        if (extra[0]) {   /* the extra repr on its own line(s) before the children, as PyTorch */
            ct__spad(b, indent + 2);
            for (const char *p = extra; *p; p++) {
                char c[2] = {*p, 0};
                ct__sputs(b, c);
                if (*p == '\n') ct__spad(b, indent + 2);
            }
            ct__sputs(b, "\n");
        }
        for (int i = 0; i < m->nchildren; i++) {
            ct__spad(b, indent + 2);
            ct__sputs(b, "(");
            ct__sputs(b, m->children[i].name);
            ct__sputs(b, "): ");
            ct__mrepr(m->children[i].module, b, indent + 2);
            ct__sputs(b, "\n");
        }
        ct__spad(b, indent);
    }
    ct__sputs(b, ")");
}
CTENSOR_API size_t ct_module_repr(const ct_module *m, char *buf, size_t cap) {
    ct__sbuf b;
    b.buf = buf;
    b.cap = cap;
    b.len = 0;
    if (cap) buf[0] = 0;
    if (!m) { ct__sputs(&b, "NULL"); return b.len; }
    ct__mrepr(m, &b, 0);
    return b.len;
}
#ifndef CTENSOR_NO_STDIO
CTENSOR_API void ct_module_print(const ct_module *m) {
    size_t n = ct_module_repr(m, NULL, 0);
    char *buf = (char *)CT_MALLOC(n + 1);
    if (!buf) return;
    ct_module_repr(m, buf, n + 1);
    printf("%s\n", buf);
    CT_FREE(buf);
}
#endif

/* ---- containers ---- */
static ct_tensor *ct__seq_forward(ct_module *m, int nin, ct_tensor *const *in) {
    if (nin != 1) return ct__fail(CT_ERR_ARG, "Sequential: forward takes 1 input (got %d)", nin);
    ct_tensor *x = in[0];
    for (int i = 0; i < m->nchildren && x; i++) x = ct_forward(m->children[i].module, x);
    return x;
}
static const ct_module_type ct__seq_type = {"Sequential", ct__seq_forward, NULL, NULL};
static const ct_module_type ct__mlist_type = {"ModuleList", NULL, NULL, NULL};
static ct_module *ct__container(const ct_module_type *ty, int n, ct_module *const *mods) {
    int bad = n < 0 || (n > 0 && !mods);
    for (int i = 0; i < n && !bad; i++) bad = !mods[i];
    if (bad) {
        for (int i = 0; i < n && mods; i++) ct_module_free(mods[i]);
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "%s: a child module is NULL", ty->name);
        return NULL;
    }
    ct_module *m = ct_module_new(ty, NULL);
    if (!m) {
        for (int i = 0; i < n; i++) ct_module_free(mods[i]);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        char name[24];
        snprintf(name, sizeof name, "%d", i);
        if (ct_module_add_module(m, name, mods[i])) {
            for (int k = i + 1; k < n; k++) ct_module_free(mods[k]);
            ct_module_free(m);
            return NULL;
        }
    }
    return m;
}
CTENSOR_API ct_module *ct_nn_sequential_n(int n, ct_module *const *mods) { return ct__container(&ct__seq_type, n, mods); }
CTENSOR_API ct_module *ct_nn_sequential_named(int n, const ct_nn_named_module *ch) {
    if (n < 0)
        for (n = 0; ch && ch[n].name; n++) {}
    int bad = n > 0 && !ch;
    for (int i = 0; i < n && !bad; i++) bad = !ch[i].module;
    ct_module *m = bad ? NULL : ct_module_new(&ct__seq_type, NULL);
    if (!m) {
        for (int i = 0; i < n && ch; i++) ct_module_free(ch[i].module);
        if (bad && ct_last_error_code() == CT_OK) {
            int k = 0;
            while (ch && k < n && ch[k].module) k++;
            ct_set_error(CT_ERR_NULL, "Sequential: child %d ('%s') is NULL", k, ch && ch[k].name ? ch[k].name : "");
        }
        return NULL;
    }
    for (int i = 0; i < n; i++)
        if (ct_module_add_module(m, ch[i].name, ch[i].module)) {   /* frees ch[i].module on error */
            for (int k = i + 1; k < n; k++) ct_module_free(ch[k].module);
            ct_module_free(m);
            return NULL;
        }
    return m;
}
CTENSOR_API ct_module *ct_nn_module_list_n(int n, ct_module *const *mods) { return ct__container(&ct__mlist_type, n, mods); }
CTENSOR_API ct_status ct_nn_module_list_append(ct_module *list, ct_module *m) {
    if (!list) { ct_module_free(m); ct_set_error(CT_ERR_ARG, "ModuleList.append: list is NULL"); return CT_ERR_ARG; }
    char name[24];
    snprintf(name, sizeof name, "%d", list->nchildren);
    return ct_module_add_module(list, name, m);
}
CTENSOR_API ct_module *ct_nn_module_list_get(const ct_module *list, int i) {
    if (!list) return NULL;
    if (i < 0) i += list->nchildren;
    if (i < 0 || i >= list->nchildren) {
        ct_set_error(CT_ERR_INDEX, "ModuleList: index %d is out of range", i);
        return NULL;
    }
    return list->children[i].module;
}
CTENSOR_API int ct_nn_module_list_len(const ct_module *list) { return list ? list->nchildren : 0; }

/* ---- nn.init ---- */
static int ct__fans(const char *api, const ct_tensor *t, int64_t *fan_in, int64_t *fan_out) {
    if (!t) { ct__null_arg(api, 0); return -1; }
    if (t->ndim < 2)
        return ct__failed(CT_ERR_ARG, "%s: Fan in and fan out can not be computed for tensor with fewer than 2 dimensions", api);
    int64_t rf = 1;
    for (int d = 2; d < t->ndim; d++) rf *= t->shape[d];
    *fan_in = t->shape[1] * rf;
    *fan_out = t->shape[0] * rf;
    return 0;
}
CTENSOR_API int64_t ct_nn_init_fan_in(const ct_tensor *t) { int64_t a = 0, b = 0; return ct__fans("fan_in", t, &a, &b) ? -1 : a; }
CTENSOR_API int64_t ct_nn_init_fan_out(const ct_tensor *t) { int64_t a = 0, b = 0; return ct__fans("fan_out", t, &a, &b) ? -1 : b; }
CTENSOR_API double ct_nn_init_calculate_gain(const char *nl, double param) {
    if (!nl || !strcmp(nl, "linear") || !strcmp(nl, "sigmoid") || !strncmp(nl, "conv", 4)) return 1.0;
    if (!strcmp(nl, "tanh")) return 5.0 / 3.0;
    if (!strcmp(nl, "relu")) return sqrt(2.0);
    if (!strcmp(nl, "leaky_relu")) {
        double slope = isnan(param) ? 0.01 : param;
        return sqrt(2.0 / (1.0 + slope * slope));
    }
    if (!strcmp(nl, "selu")) return 3.0 / 4.0;
    ct_set_error(CT_ERR_ARG, "calculate_gain: Unsupported nonlinearity %s", nl);
    return NAN;
}
/* The thread's init settings: a generator override (a small stack for
   CT_INIT_GENERATOR blocks) and the skip flag of CT_SKIP_INIT. */
enum { CT__INIT_GEN_DEPTH = 32 };
static CT_THREAD_LOCAL ct_generator *ct__init_gen;
static CT_THREAD_LOCAL ct_generator *ct__init_gen_saved[CT__INIT_GEN_DEPTH];
static CT_THREAD_LOCAL int ct__init_gen_depth;
static CT_THREAD_LOCAL int ct__init_skip;
CTENSOR_API ct_generator *ct_nn_init_generator(void) { return ct__init_gen; }
CTENSOR_API ct_generator *ct_nn_set_init_generator(ct_generator *g) {
    ct_generator *prev = ct__init_gen;
    ct__init_gen = g;
    return prev;
}
CTENSOR_API int ct__nn_push_init_generator(ct_generator *g) {
    int token = ct__init_gen_depth;
    if (token < CT__INIT_GEN_DEPTH) ct__init_gen_saved[token] = ct__init_gen;
    ct__init_gen_depth++;
    ct__init_gen = g;
    return token;
}
CTENSOR_API void ct__nn_pop_init_generator(int *token) {
    if (*token < 0) return;
    if (*token < CT__INIT_GEN_DEPTH) ct__init_gen = ct__init_gen_saved[*token];
    ct__init_gen_depth = *token;
}
CTENSOR_API int ct_nn_skip_init_enabled(void) { return ct__init_skip; }
CTENSOR_API int ct_nn_set_skip_init(int skip) {
    int prev = ct__init_skip;
    ct__init_skip = skip != 0;
    return prev;
}
CTENSOR_API void ct__nn_restore_skip_init(int *prev) { ct__init_skip = *prev; }
/* under CT_SKIP_INIT an init function checks its argument and returns it untouched */
#define CT__INIT_SKIP(api, t) do { if (ct__init_skip) { if (!(t)) ct__null_arg(api, 0); return (t); } } while (0)
#define CT__INIT_NOGRAD(expr) do { int pg_ = ct_set_grad_enabled(0); ct_tensor *r_ = (expr); ct_set_grad_enabled(pg_); return r_; } while (0)
CTENSOR_API ct_tensor *ct_nn_init_uniform_(ct_tensor *t, double a, double b) {
    CT__INIT_SKIP("uniform_", t);
    CT__INIT_NOGRAD(ct_uniform_(t, a, b, ct__init_gen));
}
CTENSOR_API ct_tensor *ct_nn_init_normal_(ct_tensor *t, double mean, double std) {
    CT__INIT_SKIP("normal_", t);
    CT__INIT_NOGRAD(ct_normal_(t, mean, std, ct__init_gen));
}
CTENSOR_API ct_tensor *ct_nn_init_constant_(ct_tensor *t, double v) {
    CT__INIT_SKIP("constant_", t);
    CT__INIT_NOGRAD(ct_fill_(t, v));
}
CTENSOR_API ct_tensor *ct_nn_init_zeros_(ct_tensor *t) { return ct_nn_init_constant_(t, 0.0); }
CTENSOR_API ct_tensor *ct_nn_init_ones_(ct_tensor *t) { return ct_nn_init_constant_(t, 1.0); }
CTENSOR_API ct_tensor *ct_nn_init_eye_(ct_tensor *t) {
    if (t && t->ndim != 2) return ct__fail(CT_ERR_ARG, "eye_: Only tensors with 2 dimensions are supported");
    if (!t) { ct__null_arg("eye_", 0); return NULL; }
    CT__INIT_SKIP("eye_", t);
    int s = ct_scope_begin();
    int pg = ct_set_grad_enabled(0);
    ct_tensor *r = ct_copy_(t, ct_eye(t->shape[0], t->shape[1], t->dtype));
    ct_set_grad_enabled(pg);
    ct_scope_end(s);
    return r;
}
static double ct__fan_for(const ct_tensor *t, const char *mode, const char *api, int *err) {
    int64_t fi = 0, fo = 0;
    *err = 0;
    if (ct__fans(api, t, &fi, &fo)) { *err = 1; return 0; }
    if (!mode || !strcmp(mode, "fan_in")) return (double)fi;
    if (!strcmp(mode, "fan_out")) return (double)fo;
    ct_set_error(CT_ERR_ARG, "%s: Mode %s not supported, please use one of fan_in, fan_out", api, mode);
    *err = 1;
    return 0;
}
CTENSOR_API ct_tensor *ct_nn_init_xavier_uniform_(ct_tensor *t, double gain) {
    int64_t fi = 0, fo = 0;
    if (ct__fans("xavier_uniform_", t, &fi, &fo)) return NULL;
    double std = gain * sqrt(2.0 / (double)(fi + fo)), a = sqrt(3.0) * std;
    return ct_nn_init_uniform_(t, -a, a);
}
CTENSOR_API ct_tensor *ct_nn_init_xavier_normal_(ct_tensor *t, double gain) {
    int64_t fi = 0, fo = 0;
    if (ct__fans("xavier_normal_", t, &fi, &fo)) return NULL;
    return ct_nn_init_normal_(t, 0.0, gain * sqrt(2.0 / (double)(fi + fo)));
}
CTENSOR_API ct_tensor *ct_nn_init_kaiming_uniform_(ct_tensor *t, double a, const char *mode, const char *nl) {
    int err;
    double fan = ct__fan_for(t, mode, "kaiming_uniform_", &err);
    if (err) return NULL;
    if (ct_numel(t) == 0) return t;   /* PyTorch warns and does nothing */
    double gain = ct_nn_init_calculate_gain(nl ? nl : "leaky_relu", a);
    if (isnan(gain)) return NULL;
    double bound = sqrt(3.0) * gain / sqrt(fan);
    return ct_nn_init_uniform_(t, -bound, bound);
}
CTENSOR_API ct_tensor *ct_nn_init_kaiming_normal_(ct_tensor *t, double a, const char *mode, const char *nl) {
    int err;
    double fan = ct__fan_for(t, mode, "kaiming_normal_", &err);
    if (err) return NULL;
    if (ct_numel(t) == 0) return t;
    double gain = ct_nn_init_calculate_gain(nl ? nl : "leaky_relu", a);
    if (isnan(gain)) return NULL;
    return ct_nn_init_normal_(t, 0.0, gain / sqrt(fan));
}
/* inverse error function in double: a rational first guess refined by Newton steps */
static double ct__erfinv(double y) {
    if (y <= -1.0) return y == -1.0 ? -INFINITY : NAN;
    if (y >= 1.0) return y == 1.0 ? INFINITY : NAN;
    double w = -log((1.0 - y) * (1.0 + y)), x;
    if (w < 5.0) {
        w -= 2.5;
        double p = 2.81022636e-08;
        p = 3.43273939e-07 + p * w; p = -3.5233877e-06 + p * w; p = -4.39150654e-06 + p * w; p = 0.00021858087 + p * w;
        p = -0.00125372503 + p * w; p = -0.00417768164 + p * w; p = 0.246640727 + p * w; p = 1.50140941 + p * w;
        x = p * y;
    } else {
        w = sqrt(w) - 3.0;
        double p = -0.000200214257;
        p = 0.000100950558 + p * w; p = 0.00134934322 + p * w; p = -0.00367342844 + p * w; p = 0.00573950773 + p * w;
        p = -0.0076224613 + p * w; p = 0.00943887047 + p * w; p = 1.00167406 + p * w; p = 2.83297682 + p * w;
        x = p * y;
    }
    for (int k = 0; k < 2; k++) x -= (erf(x) - y) / (1.1283791670955126 * exp(-x * x));
    return x;
}
CTENSOR_API ct_tensor *ct_nn_init_trunc_normal_(ct_tensor *t, double mean, double std, double a, double b) {
    /* PyTorch's method: uniform in [2l-1, 2u-1], inverse erf, scale, clamp */
    if (!t) { ct__null_arg("trunc_normal_", 0); return NULL; }
    if (!CT__ISFLOAT(t->dtype)) return ct__fail(CT_ERR_DTYPE, "trunc_normal_: expected a floating point tensor (got %s)", ct_dtype_name(t->dtype));
    CT__INIT_SKIP("trunc_normal_", t);
    double l = 0.5 * (1.0 + erf((a - mean) / std / sqrt(2.0))), u = 0.5 * (1.0 + erf((b - mean) / std / sqrt(2.0)));
    int pg = ct_set_grad_enabled(0);
    ct_tensor *r = ct_uniform_(t, 2 * l - 1, 2 * u - 1, ct__init_gen);
    if (r) {
        int64_t n = ct_numel(t), idx[CT_MAX_DIMS] = {0};
        size_t es = ct__dt[t->dtype].size;
        for (int64_t k = 0; k < n; k++) {
            int64_t off = t->offset;
            for (int d = 0; d < t->ndim; d++) off += idx[d] * t->strides[d];
            char *p = (char *)t->storage->data + off * (int64_t)es;
            /* PyTorch rounds to the tensor's dtype between steps */
            double v = ct__load_f64(p, t->dtype);
            ct__store_f64(p, t->dtype, ct__erfinv(v));
            v = ct__load_f64(p, t->dtype);
            ct__store_f64(p, t->dtype, v * (std * sqrt(2.0)));
            v = ct__load_f64(p, t->dtype) + mean;
            ct__store_f64(p, t->dtype, v < a ? a : (v > b ? b : v));
            for (int d = t->ndim - 1; d >= 0; d--) { if (++idx[d] < t->shape[d]) break; idx[d] = 0; }
        }
        CT__ATOMIC_INC(&t->storage->version);
    }
    ct_set_grad_enabled(pg);
    return r;
}
/* Householder QR of a rows x cols (rows >= cols) column set, in double: q (rows x cols), r diag signs */
CTENSOR_API ct_tensor *ct_nn_init_orthogonal_(ct_tensor *t, double gain) {
    if (!t) { ct__null_arg("orthogonal_", 0); return NULL; }
    if (t->ndim < 2) return ct__fail(CT_ERR_ARG, "orthogonal_: Only tensors with 2 or more dimensions are supported");
    if (ct_numel(t) == 0) return t;
    CT__INIT_SKIP("orthogonal_", t);
    int64_t rows = t->shape[0], cols = ct_numel(t) / rows;
    int s = ct_scope_begin(), pg = ct_set_grad_enabled(0);
    ct_tensor *flat = ct_normal_(ct_empty(t->dtype, rows, cols), 0.0, 1.0, ct__init_gen), *res = NULL;
    int transposed = rows < cols;
    int64_t m = transposed ? cols : rows, n = transposed ? rows : cols;
    double *A = CT__NEW_ARRAY(double, m * n), *Q = CT__NEW_ARRAY(double, m * n), *v = CT__NEW_ARRAY(double, m), *dr = CT__NEW_ARRAY(double, n);
    if (flat && A && Q && v && dr) {
        ct_tensor *f64 = ct_contiguous(ct_to(transposed ? ct_t(flat) : flat, CT_FLOAT64));
        memcpy(A, ct_data_ptr(f64), sizeof(double) * (size_t)(m * n));
        /* Q = I (thin), apply Householder reflections of A's columns */
        for (int64_t i = 0; i < m * n; i++) Q[i] = 0;
        for (int64_t i = 0; i < n; i++) Q[i * n + i] = 1;
        /* R from Householder on A; keep reflectors to build Q = H1 H2 ... Hn [I; 0] */
        double *V = CT__NEW_ARRAY(double, m * n);
        if (V) {
            for (int64_t k = 0; k < n; k++) {
                double norm = 0;
                for (int64_t i = k; i < m; i++) norm += A[i * n + k] * A[i * n + k];
                norm = sqrt(norm);
                double alpha = A[k * n + k] > 0 ? -norm : norm;
                for (int64_t i = 0; i < m; i++) v[i] = i < k ? 0 : A[i * n + k];
                v[k] -= alpha;
                double vn = 0;
                for (int64_t i = k; i < m; i++) vn += v[i] * v[i];
                for (int64_t i = 0; i < m; i++) V[i * n + k] = vn > 0 ? v[i] / sqrt(vn) : 0;
                for (int64_t j = k; j < n; j++) {
                    double dot = 0;
                    for (int64_t i = k; i < m; i++) dot += V[i * n + k] * A[i * n + j];
                    for (int64_t i = k; i < m; i++) A[i * n + j] -= 2 * V[i * n + k] * dot;
                }
                dr[k] = A[k * n + k];
            }
            for (int64_t k = n - 1; k >= 0; k--)
                for (int64_t j = 0; j < n; j++) {
                    double dot = 0;
                    for (int64_t i = k; i < m; i++) dot += V[i * n + k] * Q[i * n + j];
                    for (int64_t i = k; i < m; i++) Q[i * n + j] -= 2 * V[i * n + k] * dot;
                }
            /* sign fix: q *= sign(diag(r)), as PyTorch does */
            for (int64_t j = 0; j < n; j++) {
                double sg = dr[j] > 0 ? 1.0 : (dr[j] < 0 ? -1.0 : 0.0);
                for (int64_t i = 0; i < m; i++) Q[i * n + j] *= sg * gain;
            }
            CT_FREE(V);
            ct_tensor *q = ct_tensor_f64(Q, m, n);
            if (transposed) q = ct_t(q);
            res = ct_copy_(t, ct_reshape_n(q, t->ndim, t->shape));
        } else {
            ct_set_error(CT_ERR_MEMORY, "orthogonal_: out of memory");
        }
    } else if (flat) {
        ct_set_error(CT_ERR_MEMORY, "orthogonal_: out of memory");
    }
    CT_FREE(A);
    CT_FREE(Q);
    CT_FREE(v);
    CT_FREE(dr);
    ct_set_grad_enabled(pg);
    ct_scope_end(s);
    return res;
}

/* ---- Linear ---- */
typedef struct ct__linear_impl { int64_t in, out; } ct__linear_impl;
static ct_tensor *ct__linear_forward(ct_module *m, int nin, ct_tensor *const *in) {
    if (nin != 1) return ct__fail(CT_ERR_ARG, "Linear: forward takes 1 input (got %d)", nin);
    ct_tensor *w = m->params[0].tensor, *b = m->params[1].tensor;
    return ct_linear(in[0], w, b);
}
static int ct__linear_repr(const ct_module *m, char *buf, size_t cap) {
    const ct__linear_impl *l = (const ct__linear_impl *)m->impl;
    return snprintf(buf, cap, "in_features=%lld, out_features=%lld, bias=%s", (long long)l->in, (long long)l->out,
                    m->params[1].tensor ? "True" : "False");
}
static void ct__free_impl(ct_module *m) { CT_FREE(m->impl); }
static const ct_module_type ct__linear_type = {"Linear", ct__linear_forward, ct__free_impl, ct__linear_repr};
CTENSOR_API ct_module *ct_nn_linear_bias(int64_t in_f, int64_t out_f, int bias) {
    if (in_f < 0 || out_f < 0) return (ct_module *)ct__fail(CT_ERR_ARG, "Linear: in_features (%lld) and out_features (%lld) must be non-negative", (long long)in_f, (long long)out_f);
    ct__linear_impl *l = CT__NEW_ZEROED(ct__linear_impl);
    ct_module *m = l ? ct_module_new(&ct__linear_type, l) : NULL;
    if (!m) { CT_FREE(l); return (ct_module *)ct__fail(CT_ERR_MEMORY, "Linear: out of memory"); }
    l->in = in_f;
    l->out = out_f;
    int s = ct_scope_begin();
    /* reset_parameters: kaiming_uniform_(a=sqrt(5)) for the weight, then the bias in +-1/sqrt(fan_in) */
    ct_tensor *w = ct_empty(ct__default_dtype, out_f, in_f);
    ct_tensor *b = bias ? ct_empty(ct__default_dtype, out_f) : NULL;
    int ok = w && (!bias || b) && ct_nn_init_kaiming_uniform_(w, sqrt(5.0), "fan_in", "leaky_relu");
    if (ok && b && in_f > 0) {
        double bound = 1.0 / sqrt((double)in_f);
        ok = ct_nn_init_uniform_(b, -bound, bound) != NULL;
    }
    ok = ok && !ct_module_register_parameter(m, "weight", w) && !ct_module_register_parameter(m, "bias", b);
    ct_scope_end(s);
    if (!ok) { ct_module_free(m); return NULL; }
    return m;
}
CTENSOR_API ct_module *ct_nn_linear(int64_t in_f, int64_t out_f) { return ct_nn_linear_bias(in_f, out_f, 1); }

/* ---- stateless layers and activations ---- */
typedef struct ct__act_impl { int kind; double a, b; int64_t dims[CT_MAX_DIMS]; int ndims; int approx_tanh; } ct__act_impl;
enum { CT__ACT_IDENTITY, CT__ACT_FLATTEN, CT__ACT_UNFLATTEN, CT__ACT_RELU, CT__ACT_RELU6, CT__ACT_SIGMOID, CT__ACT_TANH,
       CT__ACT_SELU, CT__ACT_SILU, CT__ACT_MISH, CT__ACT_HARDSIGMOID, CT__ACT_HARDSWISH, CT__ACT_LOGSIGMOID,
       CT__ACT_LEAKY, CT__ACT_ELU, CT__ACT_CELU, CT__ACT_GELU, CT__ACT_SOFTPLUS, CT__ACT_HARDTANH, CT__ACT_THRESHOLD };
static ct_tensor *ct__act_forward(ct_module *m, int nin, ct_tensor *const *in) {
    const ct__act_impl *a = (const ct__act_impl *)m->impl;
    if (nin != 1) return ct__fail(CT_ERR_ARG, "%s: forward takes 1 input (got %d)", m->type->name, nin);
    ct_tensor *x = in[0];
    switch (a->kind) {
    case CT__ACT_IDENTITY: return ct_alias(x);
    case CT__ACT_FLATTEN: return ct_flatten(x, (int)a->a, (int)a->b);
    case CT__ACT_UNFLATTEN: return ct_unflatten_n(x, (int)a->a, a->ndims, a->dims);
    case CT__ACT_RELU: return ct_relu(x);
    case CT__ACT_RELU6: return ct_relu6(x);
    case CT__ACT_SIGMOID: return ct_sigmoid(x);
    case CT__ACT_TANH: return ct_tanh(x);
    case CT__ACT_SELU: return ct_selu(x);
    case CT__ACT_SILU: return ct_silu(x);
    case CT__ACT_MISH: return ct_mish(x);
    case CT__ACT_HARDSIGMOID: return ct_hardsigmoid(x);
    case CT__ACT_HARDSWISH: return ct_hardswish(x);
    case CT__ACT_LOGSIGMOID: return ct_logsigmoid(x);
    case CT__ACT_LEAKY: return ct_leaky_relu(x, a->a);
    case CT__ACT_ELU: return ct_elu(x, a->a);
    case CT__ACT_CELU: return ct_celu(x, a->a);
    case CT__ACT_GELU: return ct_gelu(x, a->approx_tanh ? "tanh" : "none");
    case CT__ACT_SOFTPLUS: return ct_softplus(x, a->a, a->b);
    case CT__ACT_HARDTANH: return ct_hardtanh(x, a->a, a->b);
    case CT__ACT_THRESHOLD: return ct_threshold(x, a->a, a->b);
    default: return ct__fail(CT_ERR_STATE, "%s: unknown activation", m->type->name);
    }
}
/* Python's repr of a float: shortest round-trip digits, always with a '.' */
static void ct__pyfloat(double v, char *buf, size_t cap) {
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    if (!strpbrk(buf, ".einn")) {
        size_t n = strlen(buf);
        if (n + 2 < cap) { buf[n] = '.'; buf[n + 1] = '0'; buf[n + 2] = 0; }
    }
}
static int ct__act_repr(const ct_module *m, char *buf, size_t cap) {
    const ct__act_impl *a = (const ct__act_impl *)m->impl;
    char x[40], y[40];
    ct__pyfloat(a->a, x, sizeof x);
    ct__pyfloat(a->b, y, sizeof y);
    switch (a->kind) {
    case CT__ACT_FLATTEN: return snprintf(buf, cap, "start_dim=%d, end_dim=%d", (int)a->a, (int)a->b);
    case CT__ACT_UNFLATTEN: {
        int n = snprintf(buf, cap, "dim=%d, unflattened_size=(", (int)a->a);
        for (int i = 0; i < a->ndims && (size_t)n < cap; i++)
            n += snprintf(buf + n, cap - (size_t)n, i ? ", %lld" : "%lld", (long long)a->dims[i]);
        return n + snprintf(buf + n, n < (int)cap ? cap - (size_t)n : 0, a->ndims == 1 ? ",)" : ")");
    }
    case CT__ACT_LEAKY: return snprintf(buf, cap, "negative_slope=%s", x);
    case CT__ACT_ELU: case CT__ACT_CELU: return snprintf(buf, cap, "alpha=%s", x);
    case CT__ACT_GELU: return a->approx_tanh ? snprintf(buf, cap, "approximate='tanh'") : (buf[0] = 0, 0);
    case CT__ACT_SOFTPLUS: {   /* PyTorch prints the arguments as given (ints stay ints) */
        if (a->a == floor(a->a)) snprintf(x, sizeof x, "%lld", (long long)a->a);
        if (a->b == floor(a->b)) snprintf(y, sizeof y, "%lld", (long long)a->b);
        return snprintf(buf, cap, "beta=%s, threshold=%s", x, y);
    }
    case CT__ACT_HARDTANH: return snprintf(buf, cap, "min_val=%s, max_val=%s", x, y);
    case CT__ACT_THRESHOLD: return snprintf(buf, cap, "threshold=%s, value=%s", x, y);
    default: buf[0] = 0; return 0;
    }
}
#define CT__ACT_TYPE(var, name) static const ct_module_type var = {name, ct__act_forward, ct__free_impl, ct__act_repr};
CT__ACT_TYPE(ct__identity_type, "Identity") CT__ACT_TYPE(ct__flatten_type, "Flatten") CT__ACT_TYPE(ct__unflatten_type, "Unflatten")
CT__ACT_TYPE(ct__relu_type, "ReLU") CT__ACT_TYPE(ct__relu6_type, "ReLU6") CT__ACT_TYPE(ct__sigmoid_type, "Sigmoid")
CT__ACT_TYPE(ct__tanh_type, "Tanh") CT__ACT_TYPE(ct__selu_type, "SELU") CT__ACT_TYPE(ct__silu_type, "SiLU")
CT__ACT_TYPE(ct__mish_type, "Mish") CT__ACT_TYPE(ct__hardsigmoid_type, "Hardsigmoid") CT__ACT_TYPE(ct__hardswish_type, "Hardswish")
CT__ACT_TYPE(ct__logsigmoid_type, "LogSigmoid") CT__ACT_TYPE(ct__leaky_type, "LeakyReLU") CT__ACT_TYPE(ct__elu_type, "ELU")
CT__ACT_TYPE(ct__celu_type, "CELU") CT__ACT_TYPE(ct__gelu_type, "GELU") CT__ACT_TYPE(ct__softplus_type, "Softplus")
CT__ACT_TYPE(ct__hardtanh_type, "Hardtanh") CT__ACT_TYPE(ct__threshold_type, "Threshold")
static ct_module *ct__act_new(const ct_module_type *ty, int kind, double a, double b) {
    ct__act_impl *im = CT__NEW_ZEROED(ct__act_impl);
    if (!im) return (ct_module *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", ty->name);
    im->kind = kind;
    im->a = a;
    im->b = b;
    ct_module *m = ct_module_new(ty, im);
    if (!m) CT_FREE(im);
    return m;
}
CTENSOR_API ct_module *ct_nn_identity(void) { return ct__act_new(&ct__identity_type, CT__ACT_IDENTITY, 0, 0); }
CTENSOR_API ct_module *ct_nn_flatten(void) { return ct__act_new(&ct__flatten_type, CT__ACT_FLATTEN, 1, -1); }
CTENSOR_API ct_module *ct_nn_flatten_dims(int s, int e) { return ct__act_new(&ct__flatten_type, CT__ACT_FLATTEN, s, e); }
CTENSOR_API ct_module *ct_nn_unflatten(int dim, int n, const int64_t *sizes) {
    if (n <= 0 || n > CT_MAX_DIMS || !sizes) return (ct_module *)ct__fail(CT_ERR_ARG, "Unflatten: unflattened_size must be a non-empty list of at most %d sizes", CT_MAX_DIMS);
    ct_module *m = ct__act_new(&ct__unflatten_type, CT__ACT_UNFLATTEN, dim, 0);
    if (m) {
        ct__act_impl *im = (ct__act_impl *)m->impl;
        im->ndims = n;
        for (int i = 0; i < n; i++) im->dims[i] = sizes[i];
    }
    return m;
}
CTENSOR_API ct_module *ct_nn_relu(void) { return ct__act_new(&ct__relu_type, CT__ACT_RELU, 0, 0); }
CTENSOR_API ct_module *ct_nn_relu6(void) { return ct__act_new(&ct__relu6_type, CT__ACT_RELU6, 0, 0); }
CTENSOR_API ct_module *ct_nn_sigmoid(void) { return ct__act_new(&ct__sigmoid_type, CT__ACT_SIGMOID, 0, 0); }
CTENSOR_API ct_module *ct_nn_tanh(void) { return ct__act_new(&ct__tanh_type, CT__ACT_TANH, 0, 0); }
CTENSOR_API ct_module *ct_nn_selu(void) { return ct__act_new(&ct__selu_type, CT__ACT_SELU, 0, 0); }
CTENSOR_API ct_module *ct_nn_silu(void) { return ct__act_new(&ct__silu_type, CT__ACT_SILU, 0, 0); }
CTENSOR_API ct_module *ct_nn_mish(void) { return ct__act_new(&ct__mish_type, CT__ACT_MISH, 0, 0); }
CTENSOR_API ct_module *ct_nn_hardsigmoid(void) { return ct__act_new(&ct__hardsigmoid_type, CT__ACT_HARDSIGMOID, 0, 0); }
CTENSOR_API ct_module *ct_nn_hardswish(void) { return ct__act_new(&ct__hardswish_type, CT__ACT_HARDSWISH, 0, 0); }
CTENSOR_API ct_module *ct_nn_logsigmoid(void) { return ct__act_new(&ct__logsigmoid_type, CT__ACT_LOGSIGMOID, 0, 0); }
CTENSOR_API ct_module *ct_nn_leaky_relu(double slope) { return ct__act_new(&ct__leaky_type, CT__ACT_LEAKY, slope, 0); }
CTENSOR_API ct_module *ct_nn_elu(double alpha) { return ct__act_new(&ct__elu_type, CT__ACT_ELU, alpha, 0); }
CTENSOR_API ct_module *ct_nn_celu(double alpha) {
    if (alpha == 0.0) return (ct_module *)ct__fail(CT_ERR_ARG, "CELU: alpha cannot be 0");
    return ct__act_new(&ct__celu_type, CT__ACT_CELU, alpha, 0);
}
CTENSOR_API ct_module *ct_nn_gelu(const char *approximate) {
    int tanh_mode = approximate && !strcmp(approximate, "tanh");
    if (approximate && !tanh_mode && strcmp(approximate, "none"))
        return (ct_module *)ct__fail(CT_ERR_ARG, "GELU: approximate argument must be either none or tanh (got '%s')", approximate);
    ct_module *m = ct__act_new(&ct__gelu_type, CT__ACT_GELU, 0, 0);
    if (m) ((ct__act_impl *)m->impl)->approx_tanh = tanh_mode;
    return m;
}
CTENSOR_API ct_module *ct_nn_softplus(double beta, double threshold) { return ct__act_new(&ct__softplus_type, CT__ACT_SOFTPLUS, beta, threshold); }
CTENSOR_API ct_module *ct_nn_hardtanh(double lo, double hi) {
    if (lo > hi)
        return (ct_module *)ct__fail(CT_ERR_ARG, "Hardtanh: max_val (%s) must be greater than or equal to min_val (%s)", ct__fmt_double(hi).s,
                                     ct__fmt_double(lo).s);
    return ct__act_new(&ct__hardtanh_type, CT__ACT_HARDTANH, lo, hi);
}
CTENSOR_API ct_module *ct_nn_threshold(double th, double v) { return ct__act_new(&ct__threshold_type, CT__ACT_THRESHOLD, th, v); }

/* [section: nn-io-impl] */
/* Module <-> safetensors. Saving is the state dict through the reference
   writer (ct_save_safetensors_mem). Loading checks every key's dtype against
   the module first, then hands a state dict of views of the file's buffer to
   ct_module_load_state_dict, which checks keys and shapes before copying. */
static ct_status ct__nnio_save(const ct_module *m, void **data, size_t *len) {
    const char *api = "save_safetensors";
    if (!data || !len) { ct_set_error(CT_ERR_ARG, "%s: output pointers are NULL", api); return CT_ERR_ARG; }
    *data = NULL;
    *len = 0;
    if (!m) { ct_set_error(CT_ERR_ARG, "%s: module is NULL", api); return CT_ERR_ARG; }
    ct_state_dict sd;
    if (ct_module_state_dict(m, &sd)) return ct_last_error_code();
    const char **names = CT__NEW_ARRAY(const char *, sd.n);
    const ct_tensor **ts = CT__NEW_ARRAY(const ct_tensor *, sd.n);
    ct_status st;
    if ((!names || !ts) && sd.n > 0) {
        ct_set_error(CT_ERR_MEMORY, "%s: out of memory", api);
        st = CT_ERR_MEMORY;
    } else {
        for (int i = 0; i < sd.n; i++) {
            names[i] = sd.items[i].name;
            ts[i] = sd.items[i].tensor;
        }
        st = ct_save_safetensors_mem(sd.n, names, ts, 0, NULL, NULL, data, len);
    }
    CT_FREE(names);
    CT_FREE(ts);
    ct_state_dict_free(&sd);
    return st;
}
CTENSOR_API ct_status ct_module_save_safetensors_mem(const ct_module *m, void **data, size_t *len) {
    return ct__nnio_save(m, data, len);
}

/* loads the tensors of st into m; `file` names the source in messages */
static ct_status ct__nnio_load(ct_module *m, ct_safetensors *st, int strict, const char *file) {
    ct_state_dict mine;
    if (ct_module_state_dict(m, &mine)) return ct_last_error_code();
    int n = ct_safetensors_count(st);
    ct_state_dict sd;
    sd.n = n;
    sd.items = CT__NEW_ARRAY(ct_named_tensor, n);
    if (!sd.items && n > 0) {
        ct_state_dict_free(&mine);
        ct_set_error(CT_ERR_MEMORY, "load_safetensors: out of memory");
        return CT_ERR_MEMORY;
    }
    enum { CAP = 2000 };
    char bad[CAP] = "";
    int nbad = 0;
    ct_status rc = CT_OK;
    int scope = ct_scope_begin();
    for (int j = 0; j < n && rc == CT_OK; j++) {
        const char *name = ct_safetensors_name(st, j);
        sd.items[j].name = (char *)(uintptr_t)name;   /* borrowed from st; sd is not freed with ct_state_dict_free */
        sd.items[j].tensor = NULL;                    /* a key the module lacks: only its name is used */
        sd.items[j].persistent = 1;
        const ct_tensor *dst = NULL;
        for (int i = 0; i < mine.n && !dst; i++)
            if (!strcmp(mine.items[i].name, name)) dst = mine.items[i].tensor;
        if (!dst) continue;
        ct_dtype dt = CT_FLOAT32;   /* set by ct_safetensors_info (gcc -O3 cannot see it) */
        int ndim;
        int64_t shape[CT_MAX_DIMS];
        if (ct_safetensors_info(st, j, &dt, &ndim, shape)) { rc = ct_last_error_code(); break; }
        if (dt != ct_get_dtype(dst)) {
            ct__msg_cat(bad, CAP, "\n\tdtype mismatch for %s: copying a param with dtype torch.%s from checkpoint, the dtype in current model is torch.%s.",
                        name, ct_dtype_name(dt), ct_dtype_name(ct_get_dtype(dst)));
            nbad++;
            continue;
        }
        sd.items[j].tensor = ct_safetensors_get(st, name);
        if (!sd.items[j].tensor) rc = ct_last_error_code();
    }
    if (rc == CT_OK && nbad) {
        ct_set_error(CT_ERR_DTYPE, "load_safetensors: Error(s) in loading state_dict for %s from '%s':%s", m->type->name, file, bad);
        rc = CT_ERR_DTYPE;
    }
    if (rc == CT_OK) rc = ct_module_load_state_dict(m, &sd, strict);
    ct_scope_end(scope);
    CT_FREE(sd.items);
    ct_state_dict_free(&mine);
    return rc;
}
CTENSOR_API ct_status ct_module_load_safetensors_mem(ct_module *m, const void *data, size_t len, int strict) {
    if (!m) { ct_set_error(CT_ERR_ARG, "load_safetensors: module is NULL"); return CT_ERR_ARG; }
    if (!data && len) { ct_set_error(CT_ERR_ARG, "load_safetensors: data is NULL"); return CT_ERR_ARG; }
    ct_safetensors *st = ct_safetensors_load_mem(data, len, "<memory>");
    if (!st) return ct_last_error_code();
    ct_status rc = ct__nnio_load(m, st, strict, "<memory>");
    ct_safetensors_free(st);
    return rc;
}
#ifndef CTENSOR_NO_STDIO
#include <errno.h>
static ct_status ct__write_file(const char *path, const void *data, size_t len, const char *api);
CTENSOR_API ct_status ct_module_save_safetensors(const ct_module *m, const char *path) {
    if (!path) { ct_set_error(CT_ERR_ARG, "save_safetensors: path is NULL"); return CT_ERR_ARG; }
    void *buf;
    size_t len;
    ct_status st = ct__nnio_save(m, &buf, &len);
    if (st != CT_OK) return st;
    st = ct__write_file(path, buf, len, "save_safetensors");
    CT_FREE(buf);
    return st;
}
CTENSOR_API ct_status ct_module_load_safetensors(ct_module *m, const char *path, int strict) {
    if (!m) { ct_set_error(CT_ERR_ARG, "load_safetensors: module is NULL"); return CT_ERR_ARG; }
    if (!path) { ct_set_error(CT_ERR_ARG, "load_safetensors: path is NULL"); return CT_ERR_ARG; }
    /* Python's wording for a file that cannot be opened: "No such file or directory: 'x'" */
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        ct_set_error(CT_ERR_IO, "load_safetensors: %s: '%s'", strerror(e), path);
        return CT_ERR_IO;
    }
    fclose(f);
    ct_safetensors *st = ct_safetensors_load(path);
    if (!st) return ct_last_error_code();
    ct_status rc = ct__nnio_load(m, st, strict, path);
    ct_safetensors_free(st);
    return rc;
}
#endif

/* [section: nn-conv-impl] */
/* ============================================================================
   Convolution and pooling
   Three ops carry convolution and its derivatives, all on 4-D (N, C, H, W)
   tensors, with one geometry in the attributes (stride, padding, dilation,
   kernel size, the conv input's H x W, groups):
     conv2d(X, W[, b])                    -> Y
     conv_transpose2d(G, W[, b])          -> X-shaped (the adjoint of conv2d in X)
     convolution_backward_weight(X, G)    -> W-shaped (the adjoint in W)
   Each is bilinear, so each one's gradients are the other two: double backward
   (and any order) works. The kernels are im2col (or the input itself for 1x1
   convolutions) + the packed GEMM, per sample, threaded over the batch. A
   channels-last input is computed in NHWC order (columns ordered kh, kw, c)
   and gives a channels-last output. ct__k_conv routes to faster families first
   (depthwise, the batch fold, Winograd for float32 NCHW 3x3 stride-1 forward and
   input gradient, the channels-last direct GEMMs, the implicit GEMM).
   Attributes: v[0..1] stride, v[2..3] padding, v[4..5] dilation, v[6..7] kernel,
   v[8..9] the conv input's H, W; i[0] groups.
   ========================================================================== */
typedef struct ct__cgeo {
    int64_t N, C, H, W, O, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw, G;
    int cl;            /* NHWC order */
} ct__cgeo;

/* The padded input size in + 2p and the dilated window d (k - 1) + 1 of a
   convolution or pooling dim, saturating at INT64_MAX (a size no input has). */
static int64_t ct__win_padded(int64_t in, int64_t p) { return ct__sat_add(in, ct__sat_mul(2, p)); }
static int64_t ct__win_extent(int64_t k, int64_t d) { return ct__sat_add(ct__sat_mul(d, ct__sat_sub(k, 1)), 1); }
static int64_t ct__conv_out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
    /* -1 (invalid) when the window does not fit the padded input, or either saturated */
    int64_t padded = ct__win_padded(in, p), ext = ct__win_extent(k, d);
    return padded == INT64_MAX || padded < 0 || ext == INT64_MAX || ext < 1 || padded < ext ? -1 : (padded - ext) / s + 1;
}
/* dense NHWC strides of a 4-D shape */
static void ct__cl_strides(const int64_t *shape, int64_t *st) {
    st[1] = 1;
    st[3] = shape[1];
    st[2] = ct__sat_mul(shape[1], shape[3]);   /* saturating: the dispatcher refuses a shape this large */
    st[0] = ct__sat_mul(st[2], shape[2]);
}
/* channels-last data of a 4-D x: x itself (incref) when it is, else a copy */
static ct_tensor *ct__cl_ref(const ct_tensor *x) {
    if (ct_is_channels_last(x)) return ct__incref((ct_tensor *)x);
    int64_t st[4];
    ct__cl_strides(x->shape, st);
    ct_tensor *y = ct__alloc(x->dtype, 4, x->shape, st, x->device);
    if (!y) return NULL;
    if (ct__copy_into(y, x)) { ct__decref(y); return NULL; }
    return y;
}
/* batch norm's (and resampling's) choice: channels-last when the strides say so and not also contiguous */
static int ct__is_cl_input(const ct_tensor *x) { return x->ndim == 4 && ct_is_channels_last(x) && !ct__is_contig(x); }
/* conv's and pooling's: PyTorch's suggest_memory_format (an N,C,1,1 tensor with channels-last strides
   is channels-last; a strided view whose strides order the dims NHWC too) */
static int ct__suggest_cl(const ct_tensor *x) { return x->ndim == 4 && ct_suggest_memory_format(x) == CT_CHANNELS_LAST; }
/* a new output of the given shape, dense in NCHW order or, when cl, in NHWC order */
static void ct__nn_out(ct__outinfo *o, ct_dtype dt, int ndim, const int64_t *shape, int cl) {
    o->kind = CT__OUT_NEW;
    o->dtype = dt;
    o->ndim = ndim;
    for (int d = 0; d < ndim; d++) o->shape[d] = shape[d];
    o->has_strides = cl;
    if (cl) ct__cl_strides(shape, o->strides);
}

static int ct__conv_geo(const ct__call *c, ct__cgeo *g) {
    const ct__attrs *a = c->a;
    const ct_tensor *x = c->in[0], *w = c->in[1];
    const char *nm = ct__opdef_get(c->op)->name;
    for (int i = 0; i < c->nin && i < 2; i++)
        if (c->in[i]->ndim != 4) return ct__failed(CT_ERR_SHAPE, "%s: expected a 4-D tensor as argument %d, got %s", nm, i, CT__SHAPE(c->in[i]));
    g->sh = a->v[0]; g->sw = a->v[1]; g->ph = a->v[2]; g->pw = a->v[3];
    g->dh = a->v[4]; g->dw = a->v[5]; g->G = a->i[0];
    if (g->sh <= 0 || g->sw <= 0 || g->dh <= 0 || g->dw <= 0 || g->ph < 0 || g->pw < 0 || g->G <= 0)
        return ct__failed(CT_ERR_ARG, "%s: invalid convolution geometry", nm);
    g->N = x->shape[0];
    if (c->op == CT__NNOP(CONV2D_WEIGHT)) {
        g->C = x->shape[1]; g->H = x->shape[2]; g->W = x->shape[3];
        g->O = w->shape[1]; g->kh = a->v[6]; g->kw = a->v[7];
    } else if (CT__NN_CONV_FWD(c->op)) {
        g->C = x->shape[1]; g->H = x->shape[2]; g->W = x->shape[3];
        g->O = w->shape[0]; g->kh = w->shape[2]; g->kw = w->shape[3];
        if (ct__sat_mul(w->shape[1], g->G) != g->C)
            return ct__failed(CT_ERR_SHAPE, "%s: Given groups=%lld, weight of size %s, expected input%s to have %lld channels, but got %lld channels instead",
                              nm, (long long)g->G, CT__SHAPE(w), CT__SHAPE(x), (long long)ct__sat_mul(w->shape[1], g->G), (long long)g->C);
    } else {
        g->O = w->shape[0]; g->C = ct__sat_mul(w->shape[1], g->G); g->H = a->v[8]; g->W = a->v[9];
        g->kh = w->shape[2]; g->kw = w->shape[3];
        if (x->shape[1] != g->O)
            return ct__failed(CT_ERR_SHAPE, "%s: Given transposed=1, weight of size %s, expected input%s to have %lld channels, but got %lld channels instead",
                              nm, CT__SHAPE(w), CT__SHAPE(x), (long long)g->O, (long long)x->shape[1]);
    }
    if (g->O % g->G || g->C % g->G)
        return ct__failed(CT_ERR_SHAPE, "%s: channels (%lld in, %lld out) must be divisible by groups=%lld", nm, (long long)g->C, (long long)g->O, (long long)g->G);
    g->OH = ct__conv_out_size(g->H, g->kh, g->sh, g->ph, g->dh);
    g->OW = ct__conv_out_size(g->W, g->kw, g->sw, g->pw, g->dw);
    if (g->OH <= 0 || g->OW <= 0 || g->H < 0 || g->W < 0)
        return ct__failed(CT_ERR_SHAPE, "%s: Calculated padded input size per channel: (%lld x %lld). Kernel size: (%lld x %lld). Kernel size can't be greater than actual input size",
                          nm, (long long)ct__win_padded(g->H, g->ph), (long long)ct__win_padded(g->W, g->pw),
                          (long long)ct__win_extent(g->kh, g->dh), (long long)ct__win_extent(g->kw, g->dw));
    if (c->op == CT__NNOP(CONV_TRANSPOSE2D) && (x->shape[2] != g->OH || x->shape[3] != g->OW))
        return ct__failed(CT_ERR_SHAPE, "%s: input of size %s does not match the output size %lldx%lld of the forward convolution",
                          nm, CT__SHAPE(x), (long long)g->OH, (long long)g->OW);
    if (c->op == CT__NNOP(CONV2D_WEIGHT) && (w->shape[0] != g->N || w->shape[2] != g->OH || w->shape[3] != g->OW))
        return ct__failed(CT_ERR_SHAPE, "%s: grad_output of size %s does not match input %s", nm, CT__SHAPE(w), CT__SHAPE(x));
    /* as PyTorch's thnn/mkldnn_conv_use_channels_last: a channels-last weight makes conv2d channels-last too */
    g->cl = ct__suggest_cl(x) || (CT__NN_CONV_FWD(c->op) && ct__suggest_cl(w));
    return 0;
}

static int ct__meta_conv(ct__call *c) {
    const char *nm = ct__opdef_get(c->op)->name;
    if (c->nin < 2 || c->nin > 3) return ct__failed(CT_ERR_ARG, "%s: expected 2 or 3 tensors, got %d", nm, c->nin);
    ct_dtype dt = c->in[0]->dtype;
    if (dt != CT_FLOAT32 && dt != CT_FLOAT64)
        return ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s' (ctensor convolutions run in float32 and float64)", nm, CT__DTNAME(dt));
    for (int i = 1; i < c->nin; i++)
        if (c->in[i]->dtype != dt)
            return ct__failed(CT_ERR_DTYPE, "%s: expected scalar type %s but found %s", nm, CT__DTNAME(dt), CT__DTNAME(c->in[i]->dtype));
    ct__cgeo g;
    if (ct__conv_geo(c, &g)) return -1;
    if (c->nin == 3) {
        int64_t nb = CT__NN_CONV_FWD(c->op) ? g.O : g.C;
        if (c->op == CT__NNOP(CONV2D_WEIGHT) || c->in[2]->ndim != 1 || c->in[2]->shape[0] != nb)
            return ct__failed(CT_ERR_SHAPE, "%s: expected bias to be 1-dimensional with %lld elements, but got bias of size %s instead",
                              nm, (long long)nb, CT__SHAPE(c->in[2]));
    }
    int64_t shape[4];
    if (c->op == CT__NNOP(CONV2D_WEIGHT)) {
        shape[0] = g.O; shape[1] = g.C / g.G; shape[2] = g.kh; shape[3] = g.kw;
        g.cl = 0;
    } else {
        int fwd = CT__NN_CONV_FWD(c->op);
        shape[0] = g.N; shape[1] = fwd ? g.O : g.C; shape[2] = fwd ? g.OH : g.H; shape[3] = fwd ? g.OW : g.W;
    }
    ct__nn_out(&c->oi[0], dt, 4, shape, g.cl);
    c->nout = 1;
    return 0;
}

/* ---- kernels: plain functions over raw pointers, outputs first ----
   The kernels of this section and the next take float32 or float64 data as
   void pointers with its dtype. Only their innermost loops know the element
   type: CT__NN_AS(dt, ...) runs its statements with T = float or T = double.
   Per-channel and per-row scalars go through ct__nn_ld / ct__nn_st (a double
   in registers, rounded to the dtype where it is stored). */
#define CT__NN_AS(dt, ...)                                       \
    do {                                                         \
        if ((dt) == CT_FLOAT32) { typedef float T; __VA_ARGS__ } \
        else { typedef double T; __VA_ARGS__ }                   \
    } while (0)
CT__INLINE double ct__nn_ld(ct_dtype dt, const void *p, int64_t i) {
    return dt == CT_FLOAT32 ? (double)((const float *)p)[i] : ((const double *)p)[i];
}
CT__INLINE void ct__nn_st(ct_dtype dt, void *p, int64_t i, double v) {
    if (dt == CT_FLOAT32) ((float *)p)[i] = (float)v;
    else ((double *)p)[i] = v;
}
/* v as the dtype holds it */
CT__INLINE double ct__nn_round(ct_dtype dt, double v) { return dt == CT_FLOAT32 ? (double)(float)v : v; }
/* d[i] += s[i], i < n */
static void ct__nn_acc(ct_dtype dt, void *d, const void *s, int64_t n) {
    CT__NN_AS(dt, {
        T *dp = (T *)d;
        const T *sp = (const T *)s;
        for (int64_t i = 0; i < n; i++) dp[i] += sp[i];
    });
}
/* d[i] = *v, i < n */
static void ct__nn_fill(ct_dtype dt, void *d, const void *v, int64_t n) {
    CT__NN_AS(dt, {
        T *dp = (T *)d, x = *(const T *)v;
        for (int64_t i = 0; i < n; i++) dp[i] = x;
    });
}

#ifndef CT__CONV_COLBLOCK
#  define CT__CONV_COLBLOCK ((int64_t)1 << 17)
#endif

/* [*lo, *hi): the outputs o in [0, n) whose input o * s + i0 lies in [0, len) */
static void ct__conv_span(int64_t i0, int64_t s, int64_t len, int64_t n, int64_t *lo, int64_t *hi) {
    /* ceil(m / s) as (m - 1) / s + 1: no overflow for a stride near 2^63 */
    int64_t a = i0 >= 0 ? 0 : (-i0 - 1) / s + 1, b = len - i0 <= 0 ? 0 : (len - i0 - 1) / s + 1;
    a = CT__MIN(a, n);
    *lo = a;
    *hi = CT__MAX(a, CT__MIN(b, n));
}
/* col[(ch, i, j)][(oh - oh0) * OW + ow] for output rows [oh0, oh1): the columns of
   Cg channels of x (strides sc, sy, sx); entries in the padding are 0. (This and the
   three below stay out of line: inlined into the threaded loop over samples they
   compile to slower code, their row loops spilling.) */
static CT__NOINLINE void ct__im2col(ct_dtype dt, void *col, const void *x, int64_t sc, int64_t sy, int64_t sx, const ct__cgeo *g, int64_t Cg,
                       int64_t oh0, int64_t oh1) {
    const int64_t OW = g->OW, L = (oh1 - oh0) * OW, sh = g->sh, sw = g->sw, H = g->H, W = g->W;
    for (int64_t ch = 0; ch < Cg; ch++)
        for (int64_t i = 0; i < g->kh; i++)
            for (int64_t j = 0; j < g->kw; j++) {
                int64_t row = ((ch * g->kh + i) * g->kw + j) * L, xc = ch * sc;   /* element offsets */
                int64_t iw0 = j * g->dw - g->pw, ih0 = i * g->dh - g->ph, lo, hi;
                ct__conv_span(iw0, sw, W, OW, &lo, &hi);
                if (sh == 1 && sw == 1 && sx == 1 && sy == W && OW == W && hi > lo) {
                    /* rows of col and x have one length: the valid rows [a0, a1) are one
                       shifted copy, then the columns that fell off the edges are zeroed */
                    int64_t a0 = CT__MIN(oh1, CT__MAX(oh0, -ih0)), a1 = CT__MAX(a0, CT__MIN(oh1, H - ih0));
                    int64_t d0 = (a0 - oh0) * OW + lo, d1 = (a1 - 1 - oh0) * OW + hi, src = xc + (ih0 + oh0) * OW + iw0;
                    CT__NN_AS(dt, {
                        T *r = (T *)col + row;
                        const T *xp = (const T *)x;
                        for (int64_t q = 0; q < (a0 - oh0) * OW; q++) r[q] = 0;
                        if (a1 > a0) {
                            for (int64_t q = d0; q < d1; q++) r[q] = xp[src + q];
                            for (int64_t oh = a0 - oh0; oh < a1 - oh0; oh++) {
                                for (int64_t ow = 0; ow < lo; ow++) r[oh * OW + ow] = 0;
                                for (int64_t ow = hi; ow < OW; ow++) r[oh * OW + ow] = 0;
                            }
                        }
                        for (int64_t q = (a1 - oh0) * OW; q < L; q++) r[q] = 0;
                    });
                    continue;
                }
                CT__NN_AS(dt, {
                    for (int64_t oh = oh0; oh < oh1; oh++) {
                        int64_t ih = oh * sh + ih0;
                        T *r = (T *)col + row + (oh - oh0) * OW;
                        if (ih < 0 || ih >= H) {
                            for (int64_t ow = 0; ow < OW; ow++) r[ow] = 0;
                            continue;
                        }
                        const T *xr = (const T *)x + xc + ih * sy;
                        for (int64_t ow = 0; ow < lo; ow++) r[ow] = 0;
                        if (sw == 1 && sx == 1)
                            for (int64_t ow = lo; ow < hi; ow++) r[ow] = xr[iw0 + ow];
                        else if (sw == 2 && sx == 1)   /* a constant stride: a vectorized gather */
                            for (int64_t ow = lo; ow < hi; ow++) r[ow] = xr[iw0 + 2 * ow];
                        else
                            for (int64_t ow = lo; ow < hi; ow++) r[ow] = xr[(ow * sw + iw0) * sx];
                        for (int64_t ow = hi; ow < OW; ow++) r[ow] = 0;
                    }
                });
            }
}
/* the adjoint: x (a dense NCHW sample at the group's first channel) += col, for all
   OH output rows (col is scratch: the fast path zeroes its entries that fall off the edges) */
static CT__NOINLINE void ct__col2im(ct_dtype dt, void *x, void *col, const ct__cgeo *g, int64_t Cg) {
    const int64_t OW = g->OW, L = g->OH * OW, sw = g->sw, W = g->W;
    for (int64_t ch = 0; ch < Cg; ch++)
        for (int64_t i = 0; i < g->kh; i++)
            for (int64_t j = 0; j < g->kw; j++) {
                int64_t row = ((ch * g->kh + i) * g->kw + j) * L, xc = ch * g->H * W;   /* element offsets */
                int64_t iw0 = j * g->dw - g->pw, ih0 = i * g->dh - g->ph, lo, hi;
                ct__conv_span(iw0, sw, W, OW, &lo, &hi);
                if (hi <= lo) continue;
                if (g->sh == 1 && sw == 1 && OW == W) {
                    /* the adjoint of im2col's shifted copy */
                    int64_t a0 = CT__MAX((int64_t)0, -ih0), a1 = CT__MIN(g->OH, g->H - ih0);
                    if (a1 <= a0) continue;
                    int64_t d0 = a0 * OW + lo, d1 = (a1 - 1) * OW + hi, dst = xc + ih0 * W + iw0;
                    CT__NN_AS(dt, {
                        T *r = (T *)col + row, *xp = (T *)x;
                        for (int64_t oh = a0; oh < a1; oh++) {
                            for (int64_t ow = 0; ow < lo; ow++) r[oh * OW + ow] = 0;
                            for (int64_t ow = hi; ow < OW; ow++) r[oh * OW + ow] = 0;
                        }
                        for (int64_t q = d0; q < d1; q++) xp[dst + q] += r[q];
                    });
                    continue;
                }
                CT__NN_AS(dt, {
                    for (int64_t oh = 0; oh < g->OH; oh++) {
                        int64_t ih = oh * g->sh + ih0;
                        if (ih < 0 || ih >= g->H) continue;
                        const T *r = (const T *)col + row + oh * OW;
                        T *xr = (T *)x + xc + ih * W;
                        if (sw == 1)
                            for (int64_t ow = lo; ow < hi; ow++) xr[ow + iw0] += r[ow];
                        else
                            for (int64_t ow = lo; ow < hi; ow++) xr[ow * sw + iw0] += r[ow];
                    }
                });
            }
}
/* NHWC: col[(oh - oh0) * OW + ow][(i, j, ch)] for output rows [oh0, oh1), from x (a
   dense NHWC sample, at the group's first channel) */
static CT__NOINLINE void ct__im2col_cl(ct_dtype dt, void *col, const void *x, const ct__cgeo *g, int64_t Cg, int64_t oh0, int64_t oh1) {
    const int64_t K = g->kh * g->kw * Cg, sy = g->W * g->C, sx = g->C;
    CT__NN_AS(dt, {
        for (int64_t oh = oh0; oh < oh1; oh++)
            for (int64_t ow = 0; ow < g->OW; ow++) {
                T *r = (T *)col + ((oh - oh0) * g->OW + ow) * K;
                for (int64_t i = 0; i < g->kh; i++) {
                    int64_t ih = oh * g->sh - g->ph + i * g->dh;
                    for (int64_t j = 0; j < g->kw; j++) {
                        int64_t iw = ow * g->sw - g->pw + j * g->dw;
                        T *d = r + (i * g->kw + j) * Cg;
                        if (ih < 0 || ih >= g->H || iw < 0 || iw >= g->W) {
                            for (int64_t ch = 0; ch < Cg; ch++) d[ch] = 0;
                        } else {
                            const T *sp = (const T *)x + ih * sy + iw * sx;
                            for (int64_t ch = 0; ch < Cg; ch++) d[ch] = sp[ch];
                        }
                    }
                }
            }
    });
}
static CT__NOINLINE void ct__col2im_cl(ct_dtype dt, void *x, const void *col, const ct__cgeo *g, int64_t Cg) {
    const int64_t K = g->kh * g->kw * Cg, sy = g->W * g->C, sx = g->C;
    CT__NN_AS(dt, {
        for (int64_t oh = 0; oh < g->OH; oh++)
            for (int64_t ow = 0; ow < g->OW; ow++) {
                const T *r = (const T *)col + (oh * g->OW + ow) * K;
                for (int64_t i = 0; i < g->kh; i++) {
                    int64_t ih = oh * g->sh - g->ph + i * g->dh;
                    if (ih < 0 || ih >= g->H) continue;
                    for (int64_t j = 0; j < g->kw; j++) {
                        int64_t iw = ow * g->sw - g->pw + j * g->dw;
                        if (iw < 0 || iw >= g->W) continue;
                        const T *s = r + (i * g->kw + j) * Cg;
                        T *d = (T *)x + ih * sy + iw * sx;
                        for (int64_t ch = 0; ch < Cg; ch++) d[ch] += s[ch];
                    }
                }
            }
    });
}

/* ---- conv2d forward as an implicit GEMM (NCHW, groups 1, float32/float64) ----
   Y[O][L] = W[O][K] X~[K][L], L = OH * OW, K = C * kh * kw, on ctensor.h's GEMM
   micro-kernel without an im2col buffer: the weight is packed once per call into
   the kernel's A slivers (MR rows, per KC block of K), and each NR-pixel B sliver
   is gathered straight from the input into the kernel's [k][NR] layout, kc rows at
   a time, then multiplied by every A sliver while it sits in L1. Row k = (c, i, j)
   reads x[c][oh sh + i dh - ph][ow sw + j dw - pw], 0 off the edges: with the lane
   offsets P = oh sh W + ow sw (per sliver) and the row offset xoff = c H W +
   (i dh - ph) W + (j dw - pw) (per k), lane t reads x[xoff + P_t]. When OW == W
   and sh == sw == 1 (a "same" row width at stride 1), P_t = l0 + t: one unaligned
   vector load per half sliver, masked by the lanes' row/column validity. Any
   other geometry gathers lane by lane (correct, and tested, but slower: routed
   only where the contiguous form holds, see ct__conv_igemm_ok). */
typedef struct ct__igemm_row { int64_t xoff, ih0, iw0; } ct__igemm_row;
/* B slivers gathered per KC block of K: each A block is used that many times per load */
#ifndef CT__IGEMM_SL
#  define CT__IGEMM_SL 8
#endif
/* what ct__conv_run prepares once per call (ct__igemm_prepare) */
typedef struct ct__igemm_plan {
    const void *pa;              /* weight: per KC block of K at pa + Opad * k0, [O / MR][kc][MR] */
    const ct__igemm_row *rows;   /* K rows */
    int64_t Opad;                /* O rounded up to MR */
} ct__igemm_plan;
static int64_t ct__igemm_nr(ct_dtype dt) { return dt == CT_FLOAT32 ? CT__GEMM_NR_F32 : CT__GEMM_NR_F64; }
/* bytes: one slot's workspace (a B sliver and an edge tile), and the shared plan */
static int64_t ct__igemm_slot_bytes(ct_dtype dt) {
    return ((int64_t)ct__dt[dt].size * (CT__IGEMM_SL * CT__GEMM_KC + CT__GEMM_MR) * ct__igemm_nr(dt) + 63) / 64 * 64;
}
static int64_t ct__igemm_shared_bytes(ct_dtype dt, const ct__cgeo *g) {
    int64_t K = g->C * g->kh * g->kw, Opad = (g->O + CT__GEMM_MR - 1) / CT__GEMM_MR * CT__GEMM_MR;
    return ((int64_t)ct__dt[dt].size * Opad * K + 63) / 64 * 64 + (int64_t)sizeof(ct__igemm_row) * K;
}
/* The geometries routed to the implicit GEMM: measured faster than im2col + GEMM
   (conv2d_64to64_8x56x56, see the commit) where the B sliver is one
   contiguous masked load; 1x1 stride-1 unpadded ones stay on the direct GEMM. */
static int ct__conv_igemm_ok(ct_dtype dt, const ct__cgeo *g) {
#ifdef CT__GEMM_SIMD
    const int64_t big = (int64_t)1 << 30;
    return (dt == CT_FLOAT32 || dt == CT_FLOAT64) && g->G == 1 && !g->cl && g->sh == 1 && g->sw == 1 && g->OW == g->W &&
           !(g->kh == 1 && g->kw == 1 && g->ph == 0 && g->pw == 0) && g->H < big && g->W < big && g->OH < big &&
           g->ph < big && g->pw < big && g->kh * g->dh < big && g->kw * g->dw < big;
#else
    (void)dt;
    (void)g;
    return 0;
#endif
}
/* Packs the weight b ([O][K], row-major) and the per-k rows into sh (shared bytes). */
static void ct__igemm_prepare(ct_dtype dt, ct__igemm_plan *p, char *sh, const char *b, const ct__cgeo *g) {
    const int64_t K = g->C * g->kh * g->kw, es = (int64_t)ct__dt[dt].size;
    p->Opad = (g->O + CT__GEMM_MR - 1) / CT__GEMM_MR * CT__GEMM_MR;
    p->pa = sh;
    ct__igemm_row *r = (ct__igemm_row *)(sh + (es * p->Opad * K + 63) / 64 * 64);
    p->rows = r;
    for (int64_t k0 = 0; k0 < K; k0 += CT__GEMM_KC) {
        int64_t kc = CT__MIN(CT__GEMM_KC, K - k0);
        if (dt == CT_FLOAT32) ct__gemm_pack_a_f32(g->O, kc, (const float *)b + k0, K, 1, (float *)sh + p->Opad * k0);
        else ct__gemm_pack_a_f64(g->O, kc, (const double *)b + k0, K, 1, (double *)sh + p->Opad * k0);
    }
    for (int64_t c = 0, k = 0; c < g->C; c++)
        for (int64_t i = 0; i < g->kh; i++)
            for (int64_t j = 0; j < g->kw; j++, k++) {
                r[k].ih0 = i * g->dh - g->ph;
                r[k].iw0 = j * g->dw - g->pw;
                r[k].xoff = c * g->H * g->W + r[k].ih0 * g->W + r[k].iw0;
            }
}
/* The B sliver gather, vectorized for the contiguous form: lanes t < NR of row k
   are x[xoff + l0 + t] where (oh_t + ih0, ow_t + iw0) lies inside the image, else 0.
   VI: the integer vector with V's lane count and width. */
#ifdef CT__GEMM_SIMD
/* GCC folds "load, then AND with the mask" into a zero-masking load, which Zen 4
   runs several times slower than a load and an AND (the gather went from about
   1.7 to 0.5 of the GEMM's time); an empty asm keeps the two apart on x86 */
#  if defined(__x86_64__) && defined(__AVX512F__)
#    define CT__IGEMM_KEEP(a, b) __asm__("" : "+v"(a), "+v"(b));
#  elif defined(__x86_64__)
#    define CT__IGEMM_KEEP(a, b) __asm__("" : "+x"(a), "+x"(b));
#  else
#    define CT__IGEMM_KEEP(a, b)
#  endif
typedef int32_t ct__vi32 __attribute__((vector_size(CT__VBYTES)));
typedef int64_t ct__vi64 __attribute__((vector_size(CT__VBYTES)));
#  define CT__IGEMM_VGATHER(T, V, VI, NR)                                                      \
    if (contig) {                                                                              \
        const int64_t HL = (int64_t)(sizeof(V) / sizeof(T));                                   \
        VI oh0, oh1, ow0, ow1;                                                                 \
        for (int64_t t = 0; t < HL; t++) {                                                     \
            oh0[t] = lh[t]; oh1[t] = lh[HL + t];                                               \
            ow0[t] = lw[t]; ow1[t] = lw[HL + t];                                               \
        }                                                                                      \
        for (int64_t k = 0; k < kc; k++, d += NR) {                                            \
            const ct__igemm_row *rw = rows + k;                                                \
            int64_t off = rw->xoff + l0;                                                       \
            if (off < lo || off + NR > hi) {                                                   \
                CT__IGEMM_SCALAR_ROW(T, NR)                                                    \
                continue;                                                                      \
            }                                                                                  \
            __typeof__(oh0[0]) rl = (__typeof__(oh0[0]))-rw->ih0, rh = (__typeof__(oh0[0]))(H - rw->ih0); \
            __typeof__(oh0[0]) cl = (__typeof__(oh0[0]))-rw->iw0, ch = (__typeof__(oh0[0]))(W - rw->iw0); \
            VI m0 = (oh0 >= rl) & (oh0 < rh) & (ow0 >= cl) & (ow0 < ch);                       \
            VI m1 = (oh1 >= rl) & (oh1 < rh) & (ow1 >= cl) & (ow1 < ch);                       \
            V v0, v1;                                                                          \
            memcpy(&v0, x + off, sizeof v0);                                                   \
            memcpy(&v1, x + off + HL, sizeof v1);                                              \
            CT__IGEMM_KEEP(v0, v1)                                                             \
            v0 = (V)((VI)v0 & m0);                                                             \
            v1 = (V)((VI)v1 & m1);                                                             \
            memcpy(d, &v0, sizeof v0);                                                         \
            memcpy(d + HL, &v1, sizeof v1);                                                    \
        }                                                                                      \
        return;                                                                                \
    }
#else
#  define CT__IGEMM_VGATHER(T, V, VI, NR)
#endif
/* one row k of the sliver, lane by lane (lh, lw: the lanes' oh sh and ow sw) */
#define CT__IGEMM_SCALAR_ROW(T, NR)                                                            \
    for (int64_t t = 0; t < NR; t++) {                                                         \
        int64_t ih = lh[t] + rows[k].ih0, iw = lw[t] + rows[k].iw0;                            \
        d[t] = ih >= 0 && ih < H && iw >= 0 && iw < W ? x[rows[k].xoff + lh[t] * W + lw[t]] : (T)0; \
    }
/* Y (the sample's [O][L] output, bias already in it when beta is 1) += W X~ for
   sample x (lo, hi: the element range around x that may be read, the whole
   input); ws: the slot's workspace (ct__igemm_slot_bytes, 64-byte aligned). */
#define CT__IGEMM_DEF(SUF, T, V, VI, NR)                                                       \
    static void ct__igemm_gather_##SUF(T *CT_RESTRICT d, const T *x, int64_t lo, int64_t hi, const ct__igemm_row *rows, \
                                       int64_t kc, int64_t l0, const int64_t *lh, const int64_t *lw, int64_t H, \
                                       int64_t W, int contig) {                                \
        CT__IGEMM_VGATHER(T, V, VI, NR)                                                        \
        (void)lo; (void)hi; (void)l0; (void)contig;                                            \
        for (int64_t k = 0; k < kc; k++, d += NR) {                                            \
            CT__IGEMM_SCALAR_ROW(T, NR)                                                        \
        }                                                                                      \
    }                                                                                          \
    static CT__NOINLINE void ct__igemm_sample_##SUF(T *y, const T *x, int64_t lo, int64_t hi, const ct__igemm_plan *p, \
                                                    const ct__cgeo *g, T beta, T *ws) {        \
        const int64_t MR = CT__GEMM_MR, K = g->C * g->kh * g->kw, L = g->OH * g->OW, O = g->O; \
        const int contig = g->sh == 1 && g->sw == 1 && g->OW == g->W;                          \
        T *pb = ws, *tile = ws + CT__IGEMM_SL * CT__GEMM_KC * NR;                             \
        int64_t lh[CT__IGEMM_SL * NR], lw[CT__IGEMM_SL * NR];                                  \
        for (int64_t j0 = 0; j0 < L; j0 += CT__IGEMM_SL * NR) {                                \
            int64_t ns = CT__MIN((int64_t)CT__IGEMM_SL, (L - j0 + NR - 1) / NR);               \
            for (int64_t t = 0; t < ns * NR; t++) {   /* lanes past L: never inside the image */ \
                int64_t l = CT__MIN(j0 + t, L - 1);                                            \
                lh[t] = j0 + t < L ? l / g->OW * g->sh : -((int64_t)1 << 30);   /* fits int32 lanes */ \
                lw[t] = l % g->OW * g->sw;                                                     \
            }                                                                                  \
            for (int64_t k0 = 0; k0 < K; k0 += CT__GEMM_KC) {                                  \
                int64_t kc = CT__MIN(CT__GEMM_KC, K - k0);                                     \
                T bet = k0 == 0 ? beta : (T)1;                                                 \
                const T *pa = (const T *)p->pa + p->Opad * k0;                                 \
                for (int64_t s = 0; s < ns; s++)                                               \
                    ct__igemm_gather_##SUF(pb + s * kc * NR, x, lo, hi, p->rows + k0, kc, j0 + s * NR, lh + s * NR, \
                                           lw + s * NR, g->H, g->W, contig);                   \
                for (int64_t s = 0; s < ns; s++) {                                             \
                    int64_t l0 = j0 + s * NR, nr = CT__MIN(NR, L - l0);                        \
                    const T *bp = pb + s * kc * NR;                                            \
                    for (int64_t i0 = 0; i0 < O; i0 += MR) {                                   \
                        int64_t mr = CT__MIN(MR, O - i0);                                      \
                        T *c = y + i0 * L + l0;                                                \
                        if (mr == MR && nr == NR) {                                            \
                            ct__gemm_ukr_##SUF(kc, pa + i0 * kc, bp, c, L, (T)1, bet);         \
                        } else {                                                               \
                            ct__gemm_ukr_##SUF(kc, pa + i0 * kc, bp, tile, NR, (T)1, (T)0);    \
                            for (int64_t i = 0; i < mr; i++)                                   \
                                for (int64_t j = 0; j < nr; j++)                               \
                                    c[i * L + j] = bet != 0 ? tile[i * NR + j] + bet * c[i * L + j] : tile[i * NR + j]; \
                        }                                                                      \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    }
#ifdef CT__GEMM_SIMD
CT__IGEMM_DEF(f32, float, ct__vf32, ct__vi32, CT__GEMM_NR_F32)
CT__IGEMM_DEF(f64, double, ct__vf64, ct__vi64, CT__GEMM_NR_F64)
#else
CT__IGEMM_DEF(f32, float, float, int, CT__GEMM_NR_F32)
CT__IGEMM_DEF(f64, double, double, int, CT__GEMM_NR_F64)
#endif
/* conv2d forward of sample n through the implicit GEMM (ct__conv_igemm_ok's geometries,
   or any NCHW groups-1 one: the tests run others against the im2col path) */
static void ct__conv2d_igemm(ct_dtype dt, char *out, char *ws, const char *a, const char *bias, const ct__igemm_plan *p,
                             const ct__cgeo *g, int64_t n) {
    const int64_t es = (int64_t)ct__dt[dt].size, L = g->OH * g->OW, CHW = g->C * g->H * g->W;
    char *y = out + es * n * g->O * L;
    if (bias)
        for (int64_t o = 0; o < g->O; o++) ct__nn_fill(dt, y + es * o * L, bias + es * o, L);
    if (dt == CT_FLOAT32)
        ct__igemm_sample_f32((float *)y, (const float *)a + n * CHW, -n * CHW, (g->N - n) * CHW, p, g, bias ? 1.0f : 0.0f, (float *)ws);
    else
        ct__igemm_sample_f64((double *)y, (const double *)a + n * CHW, -n * CHW, (g->N - n) * CHW, p, g, bias ? 1.0 : 0.0, (double *)ws);
}
/* The three convolution ops on one sample n and group grp; a, b and out are the
   whole tensors, dense in the geometry's order (NCHW, or NHWC when g->cl, where W
   is [O][kh][kw][Cg]); col: this thread's im2col columns. K = Cg * kh * kw. */
/* conv2d: out = Y, a = X, b = W */
static void ct__conv2d_group(ct_dtype dt, char *out, char *col, const char *a, const char *b, const char *bias,
                             const ct__cgeo *g, int64_t n, int64_t grp) {
    const int64_t es = ct__dt[dt].size, Cg = g->C / g->G, Og = g->O / g->G, K = Cg * g->kh * g->kw;
    const int64_t L = g->OH * g->OW, HW = g->H * g->W;
    const int direct = g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 && g->ph == 0 && g->pw == 0;
    /* output rows per im2col block: about CT__CONV_COLBLOCK elements of columns */
    const int64_t rb = CT__MAX((int64_t)1, CT__CONV_COLBLOCK / CT__MAX((int64_t)1, K * g->OW));
    const char *wg = b + es * grp * Og * K;
    double beta = bias ? 1.0 : 0.0;
    if (!g->cl) {
        const char *xs = a + es * (n * g->C * HW + grp * Cg * HW);
        char *y = out + es * (n * g->O * L + grp * Og * L);
        if (bias)
            for (int64_t o = 0; o < Og; o++) ct__nn_fill(dt, y + es * o * L, bias + es * (grp * Og + o), L);
        if (direct) {
            ct__gemm_cd(dt, Og, L, K, 1.0, wg, K, 1, xs, L, 1, beta, y, L);
            return;
        }
        for (int64_t r0 = 0; r0 < g->OH; r0 += rb) {   /* row blocks: columns stay in cache */
            int64_t r1 = CT__MIN(g->OH, r0 + rb), Lb = (r1 - r0) * g->OW;
            ct__im2col(dt, col, xs, HW, g->W, 1, g, Cg, r0, r1);
            ct__gemm_cd(dt, Og, Lb, K, 1.0, wg, K, 1, col, Lb, 1, beta, y + es * r0 * g->OW, L);
        }
    } else {
        const char *xs = a + es * (n * HW * g->C + grp * Cg);
        char *y = out + es * (n * L * g->O + grp * Og);
        if (bias)
            CT__NN_AS(dt, {
                const T *bp = (const T *)bias + grp * Og;
                for (int64_t l = 0; l < L; l++)
                    for (int64_t o = 0; o < Og; o++) ((T *)y)[l * g->O + o] = bp[o];
            });
        if (direct) {
            ct__gemm_cd(dt, L, Og, K, 1.0, xs, g->C, 1, wg, 1, K, beta, y, g->O);
            return;
        }
        for (int64_t r0 = 0; r0 < g->OH; r0 += rb) {
            int64_t r1 = CT__MIN(g->OH, r0 + rb), Lb = (r1 - r0) * g->OW;
            ct__im2col_cl(dt, col, xs, g, Cg, r0, r1);
            ct__gemm_cd(dt, Lb, Og, K, 1.0, col, K, 1, wg, 1, K, beta, y + es * r0 * g->OW * g->O, g->O);
        }
    }
}
/* conv_transpose2d: out = X, a = G, b = W */
static void ct__conv_transpose2d_group(ct_dtype dt, char *out, char *col, const char *a, const char *b, const char *bias,
                                       const ct__cgeo *g, int64_t n, int64_t grp) {
    const int64_t es = ct__dt[dt].size, Cg = g->C / g->G, Og = g->O / g->G, K = Cg * g->kh * g->kw;
    const int64_t L = g->OH * g->OW, HW = g->H * g->W;
    const int direct = g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 && g->ph == 0 && g->pw == 0;
    const char *wg = b + es * grp * Og * K;
    if (!g->cl) {
        const char *gp = a + es * (n * g->O * L + grp * Og * L);
        char *xs = out + es * (n * g->C * HW + grp * Cg * HW);
        for (int64_t ch = 0; ch < Cg; ch++) {
            if (bias) ct__nn_fill(dt, xs + es * ch * HW, bias + es * (grp * Cg + ch), HW);
            else memset(xs + es * ch * HW, 0, (size_t)(es * HW));
        }
        if (direct) {
            ct__gemm_cd(dt, K, L, Og, 1.0, wg, 1, K, gp, L, 1, 1.0, xs, L);
        } else {
            ct__gemm_cd(dt, K, L, Og, 1.0, wg, 1, K, gp, L, 1, 0.0, col, L);
            ct__col2im(dt, xs, col, g, Cg);
        }
    } else {
        const char *gp = a + es * (n * L * g->O + grp * Og);
        char *xs = out + es * (n * HW * g->C + grp * Cg);
        CT__NN_AS(dt, {
            const T *bp = bias ? (const T *)bias + grp * Cg : NULL;
            for (int64_t l = 0; l < HW; l++)
                for (int64_t ch = 0; ch < Cg; ch++) ((T *)xs)[l * g->C + ch] = bp ? bp[ch] : (T)0;
        });
        if (direct) {
            ct__gemm_cd(dt, L, K, Og, 1.0, gp, g->O, 1, wg, K, 1, 1.0, xs, g->C);
        } else {
            ct__gemm_cd(dt, L, K, Og, 1.0, gp, g->O, 1, wg, K, 1, 0.0, col, K);
            ct__col2im_cl(dt, xs, col, g, Cg);
        }
    }
}
/* convolution_backward_weight: acc += dW of this sample and group, as [O][K]
   (K ordered as the columns); a = X, b = G */
static void ct__conv_weight_group(ct_dtype dt, char *acc, char *col, const char *a, const char *b, const ct__cgeo *g,
                                  int64_t n, int64_t grp) {
    const int64_t es = ct__dt[dt].size, Cg = g->C / g->G, Og = g->O / g->G, K = Cg * g->kh * g->kw;
    const int64_t L = g->OH * g->OW, HW = g->H * g->W;
    const int direct = g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 && g->ph == 0 && g->pw == 0;
    if (!g->cl) {
        const char *xs = a + es * (n * g->C * HW + grp * Cg * HW);
        const char *gp = b + es * (n * g->O * L + grp * Og * L);
        const char *B = xs;
        if (!direct) {
            ct__im2col(dt, col, xs, HW, g->W, 1, g, Cg, 0, g->OH);
            B = col;
        }
        ct__gemm_cd(dt, Og, K, L, 1.0, gp, L, 1, B, 1, L, 1.0, acc + es * grp * Og * K, K);
    } else {
        const char *xs = a + es * (n * HW * g->C + grp * Cg);
        const char *gp = b + es * (n * L * g->O + grp * Og);
        const char *B = xs;
        int64_t rsb = g->C;
        if (!direct) {
            ct__im2col_cl(dt, col, xs, g, Cg, 0, g->OH);
            B = col;
            rsb = K;
        }
        ct__gemm_cd(dt, Og, K, L, 1.0, gp, 1, g->O, B, rsb, 1, 1.0, acc + es * grp * Og * K, K);
    }
}
enum { CT__CONV_FWD, CT__CONV_TRANSPOSE, CT__CONV_WEIGHT };
/* One convolution op over the batch, threaded over samples. kind CT__CONV_FWD:
   out = Y, a = X, b = W; CT__CONV_TRANSPOSE: out = X, a = G, b = W; CT__CONV_WEIGHT:
   out = dW as [O][K], a = X, b = G. ws: per-thread workspace of wsz elements (the
   columns, and for CT__CONV_WEIGHT the accumulator of threads 1.. after them), nt threads. */
typedef struct ct__conv_job {
    int kind;
    ct_dtype dt;
    char *out, *ws;
    const char *a, *b, *bias;
    const ct__cgeo *g;
    int64_t wsz, nt;
    const ct__igemm_plan *ig;   /* forward through the implicit GEMM, or NULL */
} ct__conv_job;
/* slots [lo, hi): slot t runs samples [t N / nt, (t + 1) N / nt) with workspace t */
static void ct__conv_slots(void *c, int64_t lo, int64_t hi) {
    const ct__conv_job *j = (const ct__conv_job *)c;
    const ct__cgeo *g = j->g;
    const int64_t es = ct__dt[j->dt].size, K = g->C / g->G * g->kh * g->kw, L = g->OH * g->OW;
    for (int64_t t = lo; t < hi; t++) {
        char *col = j->ws + es * t * j->wsz;
        for (int64_t n = t * g->N / j->nt; n < (t + 1) * g->N / j->nt; n++)
            for (int64_t grp = 0; grp < g->G; grp++) {
                if (j->ig) {
                    ct__conv2d_igemm(j->dt, j->out, col, j->a, j->bias, j->ig, g, n);
                    continue;
                }
                if (j->kind == CT__CONV_FWD) ct__conv2d_group(j->dt, j->out, col, j->a, j->b, j->bias, g, n, grp);
                else if (j->kind == CT__CONV_TRANSPOSE) ct__conv_transpose2d_group(j->dt, j->out, col, j->a, j->b, j->bias, g, n, grp);
                else ct__conv_weight_group(j->dt, t == 0 ? j->out : col + es * L * K, col, j->a, j->b, g, n, grp);
            }
    }
}
/* ig: a forward through the implicit GEMM (ct__conv_igemm_ok), ws then 64 bytes
   longer than nt slots and ct__igemm_shared_bytes, which it aligns */
static void ct__conv_run(int kind, ct_dtype dt, void *out_, void *ws_, const void *a_, const void *b_, const void *bias_,
                         const ct__cgeo *g, int64_t wsz, int nt, int ig) {
    const int64_t es = ct__dt[dt].size, K = g->C / g->G * g->kh * g->kw, L = g->OH * g->OW;
    char *out = (char *)out_, *ws = (char *)ws_;
    ct__igemm_plan plan;
    if (kind == CT__CONV_WEIGHT) memset(out, 0, (size_t)(es * g->O * K));
    if (ig) {
        ws = (char *)(((uintptr_t)ws + 63) & ~(uintptr_t)63);
        ct__igemm_prepare(dt, &plan, ws + es * nt * wsz, (const char *)b_, g);
    }
    ct__conv_job j = {kind, dt, out, ws, (const char *)a_, (const char *)b_, (const char *)bias_, g, wsz, nt, ig ? &plan : NULL};
    /* one chunk per slot: a thread that starts late leaves its slots to the others */
    ct__par_for(nt, 1, ct__conv_slots, &j);
    if (kind == CT__CONV_WEIGHT)
        for (int t = 1; t < nt; t++) ct__nn_acc(dt, out, ws + es * (t * wsz + L * K), g->O * K);
}
/* ---- the parallel loop of this header's kernels ----
   ct__nn_par_for(n, grain, fn, ctx) runs fn(ctx, lo, hi) over [0, n) in chunks of
   at least `grain` items on ctensor.h's thread pool when there are two chunks' worth
   of work, more than one thread and no enclosing parallel loop; else one call
   fn(ctx, 0, n). Every parallel loop of the convolution
   kernels goes through it, so that one place decides how they are threaded. */
static void ct__nn_par_for(int64_t n, int64_t grain, void (*fn)(void *, int64_t, int64_t), void *ctx) {
    ct__par_for(n, grain, fn, ctx);   /* ctensor.h's pool */
}

/* ---- channels-last conv2d (and its stride-1 input gradient) as a direct GEMM ----
   Y[l][o] = sum_k X~[l][k] W[k][o] on NHWC data, L = OH * OW pixels, K = kh * kw * C
   ordered (i, j, c) as the channels-last weight stores it. The pixels are the
   micro-kernel's MR rows and the outputs its NR columns, so a tile of Y is stored
   straight into the NHWC output; the A operand is never packed: for each tap
   (i, j), row r of the tile reads its pixel's C contiguous channels x[ih][iw][0..C)
   through a pointer (a zero row off the edges), broadcasting one element per FMA
   as the GEMM kernel does from its packed slivers. The weight is packed once per
   call into NR-column B panels [K][NR] (zero past O). Any stride, padding and
   dilation. conv_transpose2d at stride 1 (conv2d's input gradient) is the same
   product on grad_output with the flipped weight: dX[h][w][c] = sum over (i', j', o)
   of G[h + i' d - p'][w + j' d - p'][o] W[o][c][kh-1-i'][kw-1-j'], p' = (k-1) d - p. */
#ifndef CT__CLG_TAPS
#  define CT__CLG_TAPS 49   /* kh * kw routed at most (the tile's pointer table sits on the stack) */
#endif
typedef struct ct__clg_job {
    ct_dtype dt;
    const char *x, *pb, *bias, *zero;   /* pb: the B panels; bias: padded to whole panels, or NULL */
    char *y;
    int64_t Hi, Wi, Ci, Ho, Wo, Co, kh, kw, sh, sw, ph, pw, dh, dw, tiles;   /* tiles: per sample */
} ct__clg_job;
#ifdef CT__GEMM_SIMD
#  define CT__CLG_DECL(i) __typeof__(z0) c##i##_0 = z0, c##i##_1 = z1;
#  define CT__CLG_PTR(i) __typeof__(b) CT_RESTRICT p##i = pt[i];
#  define CT__CLG_FMA(i) av = p##i[q]; c##i##_0 += b0 * av; c##i##_1 += b1 * av;
#  define CT__CLG_ST(i)                                                                        \
    memcpy(d + (i) * ld, &c##i##_0, sizeof z0);                                                \
    memcpy(d + (i) * ld + HL, &c##i##_1, sizeof z0);
/* y[r][0..nr) (r < mr, row stride ldc) = bias + sum over ntap taps and q < C of
   pt[tap][r][q] * b[tap C + q][.]; pt: [ntap][MR] row pointers, b: a [K][NR] panel */
#  define CT__CLG_DEF(SUF, T, V)                                                               \
    static CT__GEMM_FPC CT__NOINLINE void ct__clg_ukr_##SUF(int64_t ntap, int64_t C, const T *const *pt, const T *b, \
                                                        const T *bias, T *y, int64_t ldc, int64_t mr, int64_t nr) { \
        enum { HL = (int)(sizeof(V) / sizeof(T)), NR = 2 * HL };                               \
        V z0 = {0}, z1 = {0};                                                                  \
        if (bias) {                                                                            \
            memcpy(&z0, bias, sizeof z0);                                                      \
            memcpy(&z1, bias + HL, sizeof z1);                                                 \
        }                                                                                      \
        CT__GEMM_ROWS(CT__CLG_DECL)                                                            \
        for (int64_t t = 0; t < ntap; t++, pt += CT__GEMM_MR) {                                \
            CT__GEMM_ROWS(CT__CLG_PTR)                                                         \
            for (int64_t q = 0; q < C; q++, b += NR) {                                         \
                V b0, b1;                                                                      \
                T av;                                                                          \
                memcpy(&b0, b, sizeof b0);                                                     \
                memcpy(&b1, b + HL, sizeof b1);                                                \
                CT__GEMM_ROWS(CT__CLG_FMA)                                                     \
            }                                                                                  \
        }                                                                                      \
        T tile[CT__GEMM_MR * NR];                                                              \
        int whole = mr == CT__GEMM_MR && nr == NR;                                             \
        T *d = whole ? y : tile;                                                               \
        int64_t ld = whole ? ldc : (int64_t)NR;                                                \
        CT__GEMM_ROWS(CT__CLG_ST)                                                              \
        if (!whole)                                                                            \
            for (int64_t r = 0; r < mr; r++) memcpy(y + r * ldc, tile + r * NR, sizeof(T) * (size_t)nr); \
    }                                                                                          \
    /* tiles [lo, hi) of all samples: tile u is sample u / tiles, pixels from (u % tiles) MR */ \
    static void ct__clg_tiles_##SUF(void *ctx, int64_t lo, int64_t hi) {                       \
        const ct__clg_job *j = (const ct__clg_job *)ctx;                                       \
        const int64_t MR = CT__GEMM_MR, L = j->Ho * j->Wo, KK = j->kh * j->kw, K = KK * j->Ci; \
        const T *pt[CT__CLG_TAPS * CT__GEMM_MR];                                               \
        for (int64_t u = lo; u < hi; u++) {                                                    \
            int64_t n = u / j->tiles, l0 = u % j->tiles * MR, mr = CT__MIN(MR, L - l0);        \
            const T *xs = (const T *)j->x + n * j->Hi * j->Wi * j->Ci;                         \
            T *ys = (T *)j->y + (n * L + l0) * j->Co;                                          \
            int64_t oh = l0 / j->Wo, ow = l0 % j->Wo;                                          \
            for (int64_t r = 0; r < MR; r++) {   /* rows past mr repeat row mr - 1 */          \
                if (r > 0 && r < mr && ++ow == j->Wo) {                                        \
                    ow = 0;                                                                    \
                    oh++;                                                                      \
                }                                                                              \
                for (int64_t i = 0; i < j->kh; i++) {                                          \
                    int64_t ih = oh * j->sh - j->ph + i * j->dh;                               \
                    for (int64_t q = 0; q < j->kw; q++) {                                      \
                        int64_t iw = ow * j->sw - j->pw + q * j->dw;                           \
                        pt[(i * j->kw + q) * MR + r] = ih >= 0 && ih < j->Hi && iw >= 0 && iw < j->Wi \
                                                           ? xs + (ih * j->Wi + iw) * j->Ci    \
                                                           : (const T *)j->zero;               \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
            for (int64_t o0 = 0; o0 < j->Co; o0 += 2 * (int64_t)(sizeof(V) / sizeof(T)))       \
                ct__clg_ukr_##SUF(KK, j->Ci, pt, (const T *)j->pb + o0 * K, j->bias ? (const T *)j->bias + o0 : NULL, \
                                  ys + o0, j->Co, mr, CT__MIN(2 * (int64_t)(sizeof(V) / sizeof(T)), j->Co - o0)); \
        }                                                                                      \
    }
CT__CLG_DEF(f32, float, ct__vf32)
CT__CLG_DEF(f64, double, ct__vf64)
#endif
/* The channels-last ops routed here: groups 1, at most CT__CLG_TAPS taps and at
   least 8 input channels (fewer leave the inner loop too short), not the 1x1
   stride-1 unpadded ones (a plain GEMM); conv_transpose2d at stride 1. */
static int ct__conv_clg_ok(int kind, const ct__cgeo *g) {
#ifdef CT__GEMM_SIMD
    if (!g->cl || g->G != 1 || g->kh * g->kw > CT__CLG_TAPS || kind == CT__CONV_WEIGHT) return 0;
    if (g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 && g->ph == 0 && g->pw == 0) return 0;
    if (kind == CT__CONV_FWD) return g->C >= 8;
    return g->O >= 8 && g->sh == 1 && g->sw == 1;
#else
    (void)kind;
    (void)g;
    return 0;
#endif
}
/* One routed op (ct__conv_clg_ok) on dense NHWC a and out, b the channels-last weight
   ([O][kh][kw][C]): out = Y (CT__CONV_FWD, a = X) or X (CT__CONV_TRANSPOSE, a = G).
   0, or -1 (out of memory) with the error set. */
static int ct__conv_clg_run(int kind, ct_dtype dt, void *out, const void *a, const void *b, const void *bias, const ct__cgeo *g,
                            const char *nm) {
#ifdef CT__GEMM_SIMD
    const int64_t es = (int64_t)ct__dt[dt].size, NR = ct__igemm_nr(dt), KK = g->kh * g->kw;
    const int fwd = kind == CT__CONV_FWD;
    ct__clg_job j;
    memset(&j, 0, sizeof j);
    j.dt = dt; j.x = (const char *)a; j.y = (char *)out;
    j.kh = g->kh; j.kw = g->kw; j.dh = g->dh; j.dw = g->dw;
    if (fwd) {
        j.Hi = g->H; j.Wi = g->W; j.Ci = g->C; j.Ho = g->OH; j.Wo = g->OW; j.Co = g->O;
        j.sh = g->sh; j.sw = g->sw; j.ph = g->ph; j.pw = g->pw;
    } else {
        j.Hi = g->OH; j.Wi = g->OW; j.Ci = g->O; j.Ho = g->H; j.Wo = g->W; j.Co = g->C;
        j.sh = j.sw = 1; j.ph = (g->kh - 1) * g->dh - g->ph; j.pw = (g->kw - 1) * g->dw - g->pw;
    }
    const int64_t K = KK * j.Ci, Cop = (j.Co + NR - 1) / NR * NR;
    char *buf = (char *)CT_MALLOC((size_t)(es * (Cop * K + Cop + j.Ci)));
    if (!buf) {
        ct_set_error(CT_ERR_MEMORY, "%s: out of memory", nm);
        return -1;
    }
    CT__NN_AS(dt, {
        T *pb = (T *)buf, *bp = pb + Cop * K, *zp = bp + Cop;
        const T *w = (const T *)b;
        /* panel o0: pb[o0 K + k NR + jj] = W[k][o0 + jj] */
        for (int64_t o0 = 0; o0 < Cop; o0 += NR)
            for (int64_t t = 0; t < KK; t++)
                for (int64_t q = 0; q < j.Ci; q++) {
                    T *d = pb + o0 * K + (t * j.Ci + q) * NR;
                    for (int64_t jj = 0; jj < NR; jj++) {
                        int64_t o = o0 + jj;
                        /* forward: w[o][t][q]; transposed: w[q][KK-1-t][o] (o a channel of X) */
                        d[jj] = o >= j.Co ? (T)0 : fwd ? w[(o * KK + t) * j.Ci + q] : w[(q * KK + KK - 1 - t) * j.Co + o];
                    }
                }
        for (int64_t o = 0; o < Cop; o++) bp[o] = bias && o < j.Co ? ((const T *)bias)[o] : (T)0;
        for (int64_t q = 0; q < j.Ci; q++) zp[q] = 0;
        j.pb = (const char *)pb;
        j.bias = bias ? (const char *)bp : NULL;
        j.zero = (const char *)zp;
    });
    j.tiles = (j.Ho * j.Wo + CT__GEMM_MR - 1) / CT__GEMM_MR;
    int64_t per = CT__GEMM_MR * K * j.Co, grain = CT__MAX((int64_t)1, (CT__GEMM_PAR / 8) / CT__MAX((int64_t)1, per));
    ct__nn_par_for(g->N * j.tiles, grain, dt == CT_FLOAT32 ? ct__clg_tiles_f32 : ct__clg_tiles_f64, &j);
    CT_FREE(buf);
    return 0;
#else
    (void)kind; (void)dt; (void)out; (void)a; (void)b; (void)bias; (void)g; (void)nm;
    return 0;
#endif
}

/* The weight gradient on NHWC data, dW[k][o] = sum over pixels of X~[l][k] G[l][o],
   on the same kind of kernel: MR consecutive k (channels of one tap, or the last of
   one tap and the first of the next: C >= MR) are the rows, read through two
   pointers per pixel, NR outputs of grad_output's pixel row the columns (loaded in
   place), summed over blocks of CT__CLW_PB pixels into an accumulator [K][O]. A last
   partial sliver is shifted to end at K (its rows already done are not added
   again); O a multiple of NR. Threaded over the tiles (sliver, output block): no
   reduction between threads. */
#ifndef CT__CLW_PB
#  define CT__CLW_PB 256
#endif
typedef struct ct__clw_job {
    const char *x, *gy, *zero;
    char *acc;   /* [K][O] */
    const ct__cgeo *g;
    int64_t nsl, nob;   /* MR-row slivers of K, NR-column blocks of O */
    int oom;
} ct__clw_job;
#ifdef CT__GEMM_SIMD
#  define CT__CLW_FMA(i) av = *((i) < r1 ? qa + (i) : qb + ((i) - r1)); c##i##_0 += b0 * av; c##i##_1 += b1 * av;
#  define CT__CLW_FMA1(i) av = qa[i]; c##i##_0 += b0 * av; c##i##_1 += b1 * av;
#  define CT__CLW_LOOP(FMA, T, V)                                                              \
    for (int64_t l = 0; l < nl; l++, gb += ldg) {                                              \
        const T *CT_RESTRICT qa = pa[l] + c0, *CT_RESTRICT qb = pb[l];                         \
        V b0, b1;                                                                              \
        T av;                                                                                  \
        memcpy(&b0, gb, sizeof b0);                                                            \
        memcpy(&b1, gb + HL, sizeof b1);                                                       \
        CT__GEMM_ROWS(FMA)                                                                     \
        (void)qb;                                                                              \
    }
#  define CT__CLW_DEF(SUF, T, V)                                                               \
    /* acc[r][0..NR) (r0 <= r < MR, row stride lda) += sum over l < nl of x~[l][r] gb[l ldg + .], \
       x~[l][r] = pa[l][c0 + r] (r < r1), pb[l][r - r1] (r >= r1) */                            \
    static CT__GEMM_FPC CT__NOINLINE void ct__clw_ukr_##SUF(int64_t nl, const T *const *pa, const T *const *pb, \
                                                        int64_t c0, int64_t r1, const T *gb, int64_t ldg, T *acc, \
                                                        int64_t lda, int64_t r0) {             \
        enum { HL = (int)(sizeof(V) / sizeof(T)), NR = 2 * HL };                               \
        V z0 = {0}, z1 = {0};                                                                  \
        CT__GEMM_ROWS(CT__CLG_DECL)                                                            \
        if (r1 == CT__GEMM_MR) { /* one tap: no selects */                                     \
            CT__CLW_LOOP(CT__CLW_FMA1, T, V)                                                   \
        } else {                                                                               \
            CT__CLW_LOOP(CT__CLW_FMA, T, V)                                                    \
        }                                                                                      \
        T tile[CT__GEMM_MR * NR], *d = tile;                                                   \
        const int64_t ld = NR;                                                                 \
        CT__GEMM_ROWS(CT__CLG_ST)                                                              \
        for (int64_t r = r0; r < CT__GEMM_MR; r++)                                             \
            for (int64_t q = 0; q < NR; q++) acc[r * lda + q] += tile[r * NR + q];             \
    }                                                                                          \
    static void ct__clw_tiles_##SUF(void *ctx, int64_t lo, int64_t hi) {                       \
        ct__clw_job *j = (ct__clw_job *)ctx;                                                   \
        const ct__cgeo *g = j->g;                                                              \
        const int64_t MR = CT__GEMM_MR, NR = 2 * (int64_t)(sizeof(V) / sizeof(T)), PB = CT__CLW_PB; \
        const int64_t L = g->OH * g->OW, NL = g->N * L;                                        \
        const int64_t K = g->kh * g->kw * g->C;                                                \
        /* the taps these tiles read: those of their first and last k */                       \
        const int64_t t0 = CT__MIN(lo / j->nob * MR, K - MR) / g->C;                           \
        const int64_t t1 = (CT__MIN((hi - 1) / j->nob * MR, K - MR) + MR - 1) / g->C + 1;      \
        const T **pt = (const T **)CT_MALLOC(sizeof(T *) * (size_t)((t1 - t0) * PB));          \
        if (!pt) {                                                                             \
            __atomic_store_n(&j->oom, 1, __ATOMIC_RELAXED);                                    \
            return;                                                                            \
        }                                                                                      \
        for (int64_t u0 = 0; u0 < NL; u0 += PB) {                                              \
            int64_t nl = CT__MIN(PB, NL - u0);                                                 \
            for (int64_t t = t0; t < t1; t++) {   /* the taps of these tiles: row pointers */  \
                int64_t i = t / g->kw, q = t % g->kw, n = u0 / L, l = u0 % L, oh = l / g->OW, ow = l % g->OW; \
                const T **pr = pt + (t - t0) * PB;                                             \
                for (int64_t u = 0; u < nl; u++) {                                             \
                    int64_t ih = oh * g->sh - g->ph + i * g->dh, iw = ow * g->sw - g->pw + q * g->dw; \
                    pr[u] = ih >= 0 && ih < g->H && iw >= 0 && iw < g->W                      \
                                ? (const T *)j->x + ((n * g->H + ih) * g->W + iw) * g->C       \
                                : (const T *)j->zero;                                          \
                    if (++ow == g->OW && (ow = 0, ++oh == g->OH)) {                            \
                        oh = 0;                                                                \
                        n++;                                                                   \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
            for (int64_t s = lo; s < hi; s++) {                                                \
                int64_t sl = s / j->nob, o0 = s % j->nob * NR, k0 = CT__MIN(sl * MR, K - MR);  \
                int64_t t = k0 / g->C, c0 = k0 % g->C, r1 = CT__MIN(MR, g->C - c0);            \
                const T *const *pa = pt + (t - t0) * PB, *const *pb = r1 < MR ? pa + PB : pa;   \
                ct__clw_ukr_##SUF(nl, pa, pb, c0, r1, (const T *)j->gy + u0 * g->O + o0, g->O, \
                                  (T *)j->acc + k0 * g->O + o0, g->O, sl * MR - k0);           \
            }                                                                                  \
        }                                                                                      \
        CT_FREE(pt);                                                                           \
    }
CT__CLW_DEF(f32, float, ct__vf32)
CT__CLW_DEF(f64, double, ct__vf64)
#endif
static int ct__conv_clw_ok(const ct__cgeo *g, ct_dtype dt) {
#ifdef CT__GEMM_SIMD
    /* a few pixels (deep 7x7 layers) leave the [K][O] accumulator and its transpose the larger cost */
    return g->cl && g->G == 1 && g->C >= CT__GEMM_MR && g->O % ct__igemm_nr(dt) == 0 && g->kh * g->kw <= CT__CLG_TAPS &&
           ct__sat_mul(g->N, ct__sat_mul(g->OH, g->OW)) >= 4 * CT__CLW_PB &&
           !(g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 && g->ph == 0 && g->pw == 0);
#else
    (void)g;
    (void)dt;
    return 0;
#endif
}
/* dW (out: a dense [O][C][kh][kw]) of NHWC x (a) and grad_output (b). 0, or -1 (out of memory) with the error set. */
static int ct__conv_clw_run(ct_dtype dt, void *out, const void *a, const void *b, const ct__cgeo *g, const char *nm) {
#ifdef CT__GEMM_SIMD
    const int64_t es = (int64_t)ct__dt[dt].size, KK = g->kh * g->kw, K = KK * g->C;
    ct__clw_job j;
    memset(&j, 0, sizeof j);
    char *buf = (char *)CT_MALLOC((size_t)(es * (K * g->O + g->C)));
    if (!buf) {
        ct_set_error(CT_ERR_MEMORY, "%s: out of memory", nm);
        return -1;
    }
    memset(buf, 0, (size_t)(es * (K * g->O + g->C)));
    j.x = (const char *)a; j.gy = (const char *)b; j.acc = buf; j.zero = buf + es * K * g->O; j.g = g;
    j.nsl = (K + CT__GEMM_MR - 1) / CT__GEMM_MR;
    j.nob = g->O / ct__igemm_nr(dt);
    ct__nn_par_for(j.nsl * j.nob, 1, dt == CT_FLOAT32 ? ct__clw_tiles_f32 : ct__clw_tiles_f64, &j);
    if (!j.oom)
        CT__NN_AS(dt, {
            const T *s = (const T *)buf;
            T *d = (T *)out;
            for (int64_t o = 0; o < g->O; o++)
                for (int64_t c = 0; c < g->C; c++)
                    for (int64_t t = 0; t < KK; t++) d[(o * g->C + c) * KK + t] = s[(t * g->C + c) * g->O + o];
        });
    CT_FREE(buf);
    if (!j.oom) return 0;
    ct_set_error(CT_ERR_MEMORY, "%s: out of memory", nm);
    return -1;
#else
    (void)dt; (void)out; (void)a; (void)b; (void)g; (void)nm;
    return 0;
#endif
}

/* [section: nn-conv-depthwise] */
/* ============================================================================
   Convolution kernels: depthwise
   groups == C_in > 1 (each input channel its own filters, O = m * C outputs with
   the depth multiplier m; output channel o reads input channel o / m): MobileNet's
   layers. A direct kernel per op and layout instead of C one-channel GEMMs:
     NCHW: one input plane at a time, zero-padded and split into its stride
           phases; each tap (i, j) then reads a phase at a fixed offset, and the
           flat output plane is summed over all taps 4 vectors at a time in
           registers (one weight per channel; with a multiplier, one axpy per tap)
     NHWC: runs of 8 or 4 output pixels with the same taps (the interior of a
           row) share each tap's weight vector w[tap][o..] over their channels
           (the weight first transposed to [kh][kw][O]); border pixels one at a time
   conv_transpose2d (the input gradient) gathers: NCHW, each stride phase sums its
   taps over the zero-margined gradient plane; NHWC, the taps that reach each input
   pixel, in runs of pixels a stride apart. The weight gradient accumulates per tap:
   NCHW, dot products of the gradient plane with the phases; NHWC, per output row
   and tap, a vector of channels in four accumulators.
   Any stride, padding, dilation and kernel size.
   ========================================================================== */
/* CT__NN_FPC lets GCC contract a * b + c into an FMA in ISO C modes, as the GEMM kernel does */
#ifdef CT__GEMM_SIMD
#  define CT__NN_FPC CT__GEMM_FPC
#else
#  define CT__NN_FPC
#endif
/* Depthwise convs run on the direct kernels when their padded stride-phase planes stay
   about the size of the planes themselves (a stride beyond the padded input, or a huge
   padding, would make them much larger: those take the im2col path). */
static int ct__conv_is_dw(const ct__cgeo *g) {
    if (!(g->G > 1 && g->G == g->C)) return 0;
    int64_t Hp = ct__sat_add(g->H, ct__sat_mul(2, g->ph)), Wp = ct__sat_add(g->W, ct__sat_mul(2, g->pw));
    if (g->sh > Hp || g->sw > Wp) return 0;
    int64_t planes = ct__sat_mul(ct__sat_mul(g->sh, (Hp + g->sh - 1) / g->sh), ct__sat_mul(g->sw, (Wp + g->sw - 1) / g->sw));
    int64_t base = ct__sat_add(ct__sat_mul(g->H, g->W), ct__sat_mul(g->OH, g->OW));
    return planes <= ct__sat_add(ct__sat_mul(4, base), (int64_t)1 << 16);
}
typedef struct ct__dw_job {
    ct_dtype dt;
    const ct__cgeo *g;
    char *out;
    const char *a, *b, *bias, *wt;   /* wt: the weight as [kh*kw][O] (NHWC kernels) */
    int oom, bwd;
} ct__dw_job;

/* The NCHW kernels work on flat planes: a zero-padded input plane split into its
   sh x sw stride phases (phase (a, b) holds the padded pixels (a + sh y, b + sw x),
   Hq x Wq each), so that every tap (i, j) reads one phase at a fixed offset with
   unit stride, and an output plane kept with row length Wq (its columns OW..Wq
   unused). A tap is then one axpy (or dot product) over the whole plane, with
   no bounds inside: (OH - 1) * Wq + OW elements. */
typedef struct ct__dw_planes {
    int64_t Hq, Wq, PQ, len;   /* phase size, elements per phase (with slack), flat length */
    void *ph, *full;           /* sh * sw phases; one output-shaped flat plane */
} ct__dw_planes;
static int ct__dw_planes_init(ct__dw_planes *p, const ct__cgeo *g, size_t es) {
    int64_t Hp = g->H + 2 * g->ph, Wp = g->W + 2 * g->pw;
    p->Hq = (Hp + g->sh - 1) / g->sh;
    p->Wq = (Wp + g->sw - 1) / g->sw;
    p->PQ = p->Hq * p->Wq;
    p->len = (g->OH - 1) * p->Wq + g->OW;
    p->ph = CT_MALLOC(es * (size_t)(g->sh * g->sw * p->PQ));
    p->full = CT_MALLOC(es * (size_t)(g->OH * p->Wq));
    if (p->ph && p->full) return 0;
    CT_FREE(p->ph);
    CT_FREE(p->full);
    return -1;
}
static void ct__dw_planes_free(ct__dw_planes *p) {
    CT_FREE(p->ph);
    CT_FREE(p->full);
}
/* the offset of tap (i, j) in the phase buffer */
static int64_t ct__dw_tap(const ct__dw_planes *p, const ct__cgeo *g, int64_t i, int64_t j) {
    int64_t a = i * g->dh, b = j * g->dw;
    return ((a % g->sh) * g->sw + b % g->sw) * p->PQ + (a / g->sh) * p->Wq + b / g->sw;
}
/* phases <- the padded input plane x (H x W) (TO_PHASES), or x <- the phases' interior */
#define CT__DW_PHASES(T, phb, xp, g, p, TO_PHASES)                                                  \
    for (int64_t ih = 0; ih < (g)->H; ih++) {                                                       \
        int64_t hp = ih + (g)->ph;                                                                  \
        T *pr = (T *)(phb) + (hp % (g)->sh) * (g)->sw * (p)->PQ + (hp / (g)->sh) * (p)->Wq;          \
        T *xr = (T *)(xp) + ih * (g)->W;                                                            \
        if ((g)->sw == 1) {                                                                         \
            if (TO_PHASES) memcpy(pr + (g)->pw, xr, sizeof(T) * (size_t)(g)->W);                    \
            else memcpy(xr, pr + (g)->pw, sizeof(T) * (size_t)(g)->W);                              \
        } else if ((g)->sw == 2) { /* both phases in one loop: a vectorized (de)interleave */       \
            T *e0 = pr, *e1 = pr + (p)->PQ;                                                         \
            int64_t iw = 0, hq = (g)->pw;                                                           \
            if ((hq & 1) && (g)->W > 0) {                                                           \
                if (TO_PHASES) e1[hq / 2] = xr[0];                                                  \
                else xr[0] = e1[hq / 2];                                                            \
                iw = 1; hq++;                                                                       \
            }                                                                                       \
            int64_t x0 = hq / 2, np = ((g)->W - iw) / 2;                                            \
            const T *xs_ = xr + iw;                                                                 \
            T *xd_ = xr + iw;                                                                       \
            if (TO_PHASES)                                                                          \
                for (int64_t k_ = 0; k_ < np; k_++) { e0[x0 + k_] = xs_[2 * k_]; e1[x0 + k_] = xs_[2 * k_ + 1]; } \
            else                                                                                    \
                for (int64_t k_ = 0; k_ < np; k_++) { xd_[2 * k_] = e0[x0 + k_]; xd_[2 * k_ + 1] = e1[x0 + k_]; } \
            if (iw + 2 * np < (g)->W) {                                                             \
                if (TO_PHASES) e0[x0 + np] = xr[iw + 2 * np];                                       \
                else xr[iw + 2 * np] = e0[x0 + np];                                                 \
            }                                                                                       \
        } else {                                                                                    \
            for (int64_t b_ = 0; b_ < (g)->sw; b_++) {   /* phase column b_: iw = b_ + sw x - pw */ \
                T *e = pr + b_ * (p)->PQ;                                                           \
                int64_t x_ = (g)->pw > b_ ? ((g)->pw - b_ + (g)->sw - 1) / (g)->sw : 0;             \
                for (int64_t iw = b_ + (g)->sw * x_ - (g)->pw; iw < (g)->W; iw += (g)->sw, x_++) {  \
                    if (TO_PHASES) e[x_] = xr[iw];                                                  \
                    else xr[iw] = e[x_];                                                            \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
    }

/* taps per pixel the tap-list kernels take (NCHW planes, NHWC pixels); larger kernels use plain loops */
#define CT__DW_MAXTAPS 64
/* One NCHW output plane from the phases: full[e] = bias + sum over t < nt of
   wv[t] src[toff[t] + e], e < len; 4 vectors of e at a time summed over all taps
   in registers (one load per multiply-add, one store per vector). */
#define CT__DW_PLANE_DEF(SUF, T, V)                                                                     \
    static CT__NN_FPC void ct__dw_plane_##SUF(T *CT_RESTRICT full, const T *src, const int64_t *toff, const T *wv, \
                                              int nt, int64_t len, T bias) {                            \
        int64_t e = 0;                                                                                  \
        CT__DW_PLANE_VEC(T, V)                                                                          \
        for (; e < len; e++) {                                                                          \
            T s = bias;                                                                                 \
            for (int t = 0; t < nt; t++) s += wv[t] * src[toff[t] + e];                                 \
            full[e] = s;                                                                                \
        }                                                                                               \
    }
#ifdef CT__GEMM_SIMD
#  define CT__DW_PLANE_VEC(T, V)                                                                        \
    const int64_t NL = (int64_t)(sizeof(V) / sizeof(T));                                                \
    const V zv = {0}, b0 = zv + bias;                                                                   \
    for (; e + 4 * NL <= len; e += 4 * NL) {                                                            \
        V a0 = b0, a1 = b0, a2 = b0, a3 = b0, x;                                                        \
        for (int t = 0; t < nt; t++) {                                                                  \
            const T *s = src + toff[t] + e;                                                             \
            V w = zv + wv[t];                                                                           \
            memcpy(&x, s, sizeof x); a0 += w * x;                                                       \
            memcpy(&x, s + NL, sizeof x); a1 += w * x;                                                  \
            memcpy(&x, s + 2 * NL, sizeof x); a2 += w * x;                                              \
            memcpy(&x, s + 3 * NL, sizeof x); a3 += w * x;                                              \
        }                                                                                               \
        memcpy(full + e, &a0, sizeof a0); memcpy(full + e + NL, &a1, sizeof a1);                        \
        memcpy(full + e + 2 * NL, &a2, sizeof a2); memcpy(full + e + 3 * NL, &a3, sizeof a3);           \
    }                                                                                                   \
    /* the last vector overlaps the one before it (the same values written twice) */                  \
    for (int last = 0; e < len && len >= NL && !last;) {                                                \
        if (e + NL > len) { e = len - NL; last = 1; }                                                   \
        V a0 = b0, x;                                                                                   \
        for (int t = 0; t < nt; t++) {                                                                  \
            memcpy(&x, src + toff[t] + e, sizeof x);                                                    \
            a0 += (zv + wv[t]) * x;                                                                     \
        }                                                                                               \
        memcpy(full + e, &a0, sizeof a0);                                                               \
        e += NL;                                                                                        \
    }
CT__DW_PLANE_DEF(f32, float, ct__vf32)
CT__DW_PLANE_DEF(f64, double, ct__vf64)
#else
#  define CT__DW_PLANE_VEC(T, V)
CT__DW_PLANE_DEF(f32, float, float)
CT__DW_PLANE_DEF(f64, double, double)
#endif
/* NCHW forward: input planes [lo, hi) of the N*C, each giving its m output planes */
static CT__NN_FPC void ct__dw_fwd_nchw(void *ctx, int64_t lo, int64_t hi) {
    ct__dw_job *j = (ct__dw_job *)ctx;
    const ct__cgeo *g = j->g;
    const int64_t C = g->C, O = g->O, m = O / C, OH = g->OH, OW = g->OW, KK = g->kh * g->kw;
    ct__dw_planes P;
    CT__NN_AS(j->dt, {
        if (ct__dw_planes_init(&P, g, sizeof(T))) { j->oom = 1; return; }
        T *full = (T *)P.full;
        int64_t toff[CT__DW_MAXTAPS];
        for (int64_t t = 0; t < KK && KK <= CT__DW_MAXTAPS; t++) toff[t] = ct__dw_tap(&P, g, t / g->kw, t % g->kw);
        memset(P.ph, 0, sizeof(T) * (size_t)(g->sh * g->sw * P.PQ));   /* the padding stays zero */
        for (int64_t q = lo; q < hi; q++) {
            int64_t n = q / C, c = q % C;
            CT__DW_PHASES(T, P.ph, (const T *)j->a + q * g->H * g->W, g, &P, 1)
            for (int64_t k = 0; k < m; k++) {
                int64_t o = c * m + k;
                const T *wp = (const T *)j->b + o * KK;
                T bv = j->bias ? ((const T *)j->bias)[o] : (T)0;
                if (KK <= CT__DW_MAXTAPS) {
                    if (sizeof(T) == 4) ct__dw_plane_f32((float *)full, (const float *)P.ph, toff, (const float *)wp, (int)KK, P.len, (float)bv);
                    else ct__dw_plane_f64((double *)full, (const double *)P.ph, toff, (const double *)wp, (int)KK, P.len, (double)bv);
                } else {
                    for (int64_t e = 0; e < P.len; e++) full[e] = bv;
                    for (int64_t i = 0; i < g->kh; i++)
                        for (int64_t t = 0; t < g->kw; t++) {
                            const T *CT_RESTRICT src = (const T *)P.ph + ct__dw_tap(&P, g, i, t);
                            T *CT_RESTRICT dst = full;
                            T wv = wp[i * g->kw + t];
                            for (int64_t e = 0; e < P.len; e++) dst[e] += wv * src[e];
                        }
                }
                T *y = (T *)j->out + (n * O + o) * OH * OW;
                for (int64_t oh = 0; oh < OH; oh++) memcpy(y + oh * OW, full + oh * P.Wq, sizeof(T) * (size_t)OW);
            }
        }
        ct__dw_planes_free(&P);
    });
}
/* NCHW conv_transpose2d (out = X, a = G): input planes [lo, hi) of the N*C; the
   gradient planes (zero in the unused columns) scatter into the phases */
static CT__NN_FPC void ct__dw_bwd_nchw(void *ctx, int64_t lo, int64_t hi) {
    ct__dw_job *j = (ct__dw_job *)ctx;
    const ct__cgeo *g = j->g;
    const int64_t C = g->C, O = g->O, m = O / C, OH = g->OH, OW = g->OW, KK = g->kh * g->kw;
    ct__dw_planes P;
    CT__NN_AS(j->dt, {
        if (ct__dw_planes_init(&P, g, sizeof(T))) { j->oom = 1; return; }
        T *full = (T *)P.full, *gpad = NULL;
        memset(full, 0, sizeof(T) * (size_t)(OH * P.Wq));
        /* one weight per channel: each phase gathers its taps from the gradient plane
           (gpad: the plane with M zeros before it and zeros after, M the largest tap
           offset), summed in registers by ct__dw_plane */
        int64_t M = ((g->kh - 1) * g->dh / g->sh) * P.Wq + (g->kw - 1) * g->dw / g->sw, toff[CT__DW_MAXTAPS];
        T wsub[CT__DW_MAXTAPS];
        if (m == 1 && KK <= CT__DW_MAXTAPS) {
            if (!(gpad = (T *)CT_MALLOC(sizeof(T) * (size_t)(M + P.PQ)))) { ct__dw_planes_free(&P); j->oom = 1; return; }
            memset(gpad, 0, sizeof(T) * (size_t)(M + P.PQ));
        }
        for (int64_t q = lo; q < hi; q++) {
            int64_t n = q / C, c = q % C;
            if (gpad) {
                const T *gp = (const T *)j->a + q * OH * OW, *wp = (const T *)j->b + c * KK;
                for (int64_t oh = 0; oh < OH; oh++) memcpy(gpad + M + oh * P.Wq, gp + oh * OW, sizeof(T) * (size_t)OW);
                for (int64_t a = 0; a < g->sh; a++)
                    for (int64_t b = 0; b < g->sw; b++) {
                        int nt = 0;
                        for (int64_t i = 0; i < g->kh; i++)
                            for (int64_t t = 0; t < g->kw; t++) {
                                if ((i * g->dh) % g->sh != a || (t * g->dw) % g->sw != b) continue;
                                toff[nt] = M - ((i * g->dh / g->sh) * P.Wq + t * g->dw / g->sw);
                                wsub[nt++] = wp[i * g->kw + t];
                            }
                        T *dst = (T *)P.ph + (a * g->sw + b) * P.PQ;
                        if (!nt) memset(dst, 0, sizeof(T) * (size_t)P.PQ);
                        else if (sizeof(T) == 4) ct__dw_plane_f32((float *)dst, (const float *)gpad, toff, (const float *)wsub, nt, P.PQ, 0.0f);
                        else ct__dw_plane_f64((double *)dst, (const double *)gpad, toff, (const double *)wsub, nt, P.PQ, 0.0);
                    }
            } else
                memset(P.ph, 0, sizeof(T) * (size_t)(g->sh * g->sw * P.PQ));
            for (int64_t k = 0; k < m && !gpad; k++) {
                int64_t o = c * m + k;
                const T *wp = (const T *)j->b + o * KK, *gp = (const T *)j->a + (n * O + o) * OH * OW;
                for (int64_t oh = 0; oh < OH; oh++) memcpy(full + oh * P.Wq, gp + oh * OW, sizeof(T) * (size_t)OW);
                for (int64_t i = 0; i < g->kh; i++)
                    for (int64_t t = 0; t < g->kw; t++) {
                        T *CT_RESTRICT dst = (T *)P.ph + ct__dw_tap(&P, g, i, t);
                        const T *CT_RESTRICT src = full;
                        T wv = wp[i * g->kw + t];
                        for (int64_t e = 0; e < P.len; e++) dst[e] += wv * src[e];
                    }
            }
            T *xq = (T *)j->out + q * g->H * g->W;
            CT__DW_PHASES(T, P.ph, xq, g, &P, 0)
            if (j->bias) {
                T bv = ((const T *)j->bias)[c];
                for (int64_t e = 0; e < g->H * g->W; e++) xq[e] += bv;
            }
        }
        CT_FREE(gpad);
        ct__dw_planes_free(&P);
    });
}
/* NCHW weight gradient (a = X, b = G): output channels [lo, hi); each tap a dot
   product of the gradient plane (zero in the unused columns) with a phase, in
   16 partial sums */
static CT__NN_FPC void ct__dw_wgrad_nchw(void *ctx, int64_t lo, int64_t hi) {
    ct__dw_job *j = (ct__dw_job *)ctx;
    const ct__cgeo *g = j->g;
    const int64_t C = g->C, O = g->O, m = O / C, OH = g->OH, OW = g->OW, KK = g->kh * g->kw;
    ct__dw_planes P;
    CT__NN_AS(j->dt, {
        if (ct__dw_planes_init(&P, g, sizeof(T))) { j->oom = 1; return; }
        T *full = (T *)P.full;
        memset(full, 0, sizeof(T) * (size_t)(OH * P.Wq));
        memset(P.ph, 0, sizeof(T) * (size_t)(g->sh * g->sw * P.PQ));
        for (int64_t o = lo; o < hi; o++) {
            T *dw = (T *)j->out + o * KK;
            for (int64_t t = 0; t < KK; t++) dw[t] = 0;
            for (int64_t n = 0; n < g->N; n++) {
                const T *gp = (const T *)j->b + (n * O + o) * OH * OW;
                CT__DW_PHASES(T, P.ph, (const T *)j->a + (n * C + o / m) * g->H * g->W, g, &P, 1)
                for (int64_t oh = 0; oh < OH; oh++) memcpy(full + oh * P.Wq, gp + oh * OW, sizeof(T) * (size_t)OW);
                for (int64_t i = 0; i < g->kh; i++)
                    for (int64_t t = 0; t < g->kw; t++) {
                        const T *CT_RESTRICT src = (const T *)P.ph + ct__dw_tap(&P, g, i, t);
                        const T *CT_RESTRICT gf = full;
                        T s16[16] = {0}, s = 0;
                        int64_t e = 0;
                        for (; e + 16 <= P.len; e += 16)
                            for (int l = 0; l < 16; l++) s16[l] += gf[e + l] * src[e + l];
                        for (; e < P.len; e++) s += gf[e] * src[e];
                        for (int l = 0; l < 16; l++) s += s16[l];
                        dw[i * g->kw + t] += s;
                    }
            }
        }
        ct__dw_planes_free(&P);
    });
}
/* The NHWC kernels: per pixel, the list of taps that land inside the input
   (at most CT__DW_MAXTAPS; larger kernels use the plain loop), then 16 channels
   at a time in a local accumulator the compiler keeps in registers. */
/* y[c] = bias[c] + sum over taps t < nt of w[wo[t] + c] * a[ao[t] + c], c < n.
   Where the built-in GEMM has SIMD vectors (CT__GEMM_SIMD), blocks of channels
   use its GCC/clang vector type, so that a block stays in a register over the
   taps (the auto-vectorizer turns the loop over taps into gathers instead). */
#define CT__DW_TAPSUM_DEF(SUF, T, V)                                                                       \
    static CT__NN_FPC void ct__dw_tapsum_##SUF(T *CT_RESTRICT y, const T *bias, const T *a, const int64_t *ao, \
                                              const T *w, const int64_t *wo, int nt, int64_t n) {          \
        int64_t c0 = 0;                                                                                    \
        CT__DW_TAPSUM_VEC(T, V)                                                                            \
        for (int64_t c = c0; c < n; c++) y[c] = bias ? bias[c] : (T)0;                                     \
        for (int t = 0; t < nt; t++)                                                                       \
            for (int64_t c = c0; c < n; c++) y[c] += w[wo[t] + c] * a[ao[t] + c];                          \
    }
#ifdef CT__GEMM_SIMD
#  define CT__DW_TAPSUM_VEC(T, V)                                                                          \
    const int64_t NL = (int64_t)(sizeof(V) / sizeof(T));                                                   \
    for (; c0 + 4 * NL <= n; c0 += 4 * NL) { /* four independent FMA chains */                           \
        V acc[4], av, wv;                                                                                  \
        if (bias) memcpy(acc, bias + c0, sizeof acc);                                                      \
        else memset(acc, 0, sizeof acc);                                                                   \
        for (int t = 0; t < nt; t++)                                                                       \
            for (int u = 0; u < 4; u++) {                                                                  \
                memcpy(&av, a + ao[t] + c0 + u * NL, sizeof av);                                           \
                memcpy(&wv, w + wo[t] + c0 + u * NL, sizeof wv);                                           \
                acc[u] += wv * av;                                                                         \
            }                                                                                              \
        memcpy(y + c0, acc, sizeof acc);                                                                   \
    }                                                                                                      \
    for (; c0 + NL <= n; c0 += NL) {                                                                       \
        V acc, av, wv;                                                                                     \
        if (bias) memcpy(&acc, bias + c0, sizeof acc);                                                     \
        else memset(&acc, 0, sizeof acc);                                                                  \
        for (int t = 0; t < nt; t++) {                                                                     \
            memcpy(&av, a + ao[t] + c0, sizeof av);                                                        \
            memcpy(&wv, w + wo[t] + c0, sizeof wv);                                                        \
            acc += wv * av;                                                                                \
        }                                                                                                  \
        memcpy(y + c0, &acc, sizeof acc);                                                                  \
    }                                                                                                      \
    {   /* a half vector: channel counts such as 72 leave 8 */                                            \
        typedef T ct__hv __attribute__((vector_size(sizeof(V) / 2)));                                     \
        for (; c0 + NL / 2 <= n && NL >= 2; c0 += NL / 2) {                                                \
            ct__hv acc, av, wv;                                                                            \
            if (bias) memcpy(&acc, bias + c0, sizeof acc);                                                 \
            else memset(&acc, 0, sizeof acc);                                                              \
            for (int t = 0; t < nt; t++) {                                                                 \
                memcpy(&av, a + ao[t] + c0, sizeof av);                                                    \
                memcpy(&wv, w + wo[t] + c0, sizeof wv);                                                    \
                acc += wv * av;                                                                            \
            }                                                                                              \
            memcpy(y + c0, &acc, sizeof acc);                                                              \
        }                                                                                                  \
    }
CT__DW_TAPSUM_DEF(f32, float, ct__vf32)
CT__DW_TAPSUM_DEF(f64, double, ct__vf64)
#else
#  define CT__DW_TAPSUM_VEC(T, V)
CT__DW_TAPSUM_DEF(f32, float, float)
CT__DW_TAPSUM_DEF(f64, double, double)
#endif
#define CT__DW_TAPSUM(T, y, bias, a, ao, w, wo, nt, n)                                                     \
    do {                                                                                                   \
        if (sizeof(T) == 4) ct__dw_tapsum_f32((float *)(y), (const float *)(bias), (const float *)(a), ao, (const float *)(w), wo, nt, n); \
        else ct__dw_tapsum_f64((double *)(y), (const double *)(bias), (const double *)(a), ao, (const double *)(w), wo, nt, n); \
    } while (0)
/* CT__DW_PIX pixels at once, for the NHWC kernels with one weight per channel:
   y_p[c] = bias[c] + sum over t < nt of w[wo[t] + c] * a[ao[t] + p as + c] at
   y_p = y + p ys, p < P, c < n. A tap's weight vector is loaded once for the P
   pixels, whose P accumulators are independent FMA chains. */
#define CT__DW_PIX_DEF(SUF, T, V, P)                                                                      \
    static CT__NN_FPC void ct__dw_pix##P##_##SUF(T *y, int64_t ys, const T *bias, const T *a, const int64_t *ao, \
                                                 int64_t as, const T *w, const int64_t *wo, int nt, int64_t n) { \
        int64_t c0 = 0;                                                                                  \
        CT__DW_PIX_VEC(T, V, P)                                                                          \
        if (c0 < n)                                                                                      \
            for (int p = 0; p < P; p++)                                                                  \
                ct__dw_tapsum_##SUF(y + p * ys + c0, bias ? bias + c0 : NULL, a + p * as + c0, ao, w + c0, wo, nt, n - c0); \
    }
#ifdef CT__GEMM_SIMD
typedef float ct__hvf32 __attribute__((vector_size(CT__VBYTES / 2)));
typedef double ct__hvf64 __attribute__((vector_size(CT__VBYTES / 2)));
#  define CT__DW_PIX_LOOP(T, V, P)                                                                      \
    for (; c0 + (int64_t)(sizeof(V) / sizeof(T)) <= n; c0 += (int64_t)(sizeof(V) / sizeof(T))) {       \
        V acc[P], b0, wv, av;                                                                           \
        if (bias) memcpy(&b0, bias + c0, sizeof b0);                                                    \
        else memset(&b0, 0, sizeof b0);                                                                 \
        for (int p = 0; p < P; p++) acc[p] = b0;                                                        \
        for (int t = 0; t < nt; t++) {                                                                  \
            const T *ap = a + ao[t] + c0;                                                               \
            memcpy(&wv, w + wo[t] + c0, sizeof wv);                                                     \
            for (int p = 0; p < P; p++) {                                                               \
                memcpy(&av, ap + p * as, sizeof av);                                                    \
                acc[p] += wv * av;                                                                      \
            }                                                                                           \
        }                                                                                               \
        for (int p = 0; p < P; p++) memcpy(y + p * ys + c0, &acc[p], sizeof(V));                        \
    }
/* full vectors, then a half vector (72 channels leave 8) */
#  define CT__DW_PIX_VEC(T, V, P)                                                                       \
    CT__DW_PIX_LOOP(T, V, P)                                                                            \
    if (sizeof(T) == 4) { CT__DW_PIX_LOOP(T, ct__hvf32, P) }                                            \
    else { CT__DW_PIX_LOOP(T, ct__hvf64, P) }
CT__DW_PIX_DEF(f32, float, ct__vf32, 8)
CT__DW_PIX_DEF(f64, double, ct__vf64, 8)
CT__DW_PIX_DEF(f32, float, ct__vf32, 4)
CT__DW_PIX_DEF(f64, double, ct__vf64, 4)
#else
#  define CT__DW_PIX_VEC(T, V, P)
CT__DW_PIX_DEF(f32, float, float, 8)
CT__DW_PIX_DEF(f64, double, double, 8)
CT__DW_PIX_DEF(f32, float, float, 4)
CT__DW_PIX_DEF(f64, double, double, 4)
#endif
/* The NHWC kernels' source positions along one dim for destination position x:
   forward, the input positions x s - p + k d inside [0, n); transpose (bwd), the
   gradient positions (x + p - k d) / s where that divides and lies in [0, n).
   Returns the count; ks[] the taps k, src[] the positions. */
static int ct__dw_taps1(int bwd, int64_t x, int64_t k, int64_t s, int64_t p, int64_t d, int64_t n, int64_t *ks, int64_t *src) {
    int cnt = 0;
    for (int64_t i = 0; i < k; i++) {
        int64_t v = bwd ? x + p - i * d : x * s - p + i * d;
        if (bwd) {
            if (v < 0 || v % s) continue;
            v /= s;
        }
        if (v < 0 || v >= n) continue;
        ks[cnt] = i;
        src[cnt++] = v;
    }
    return cnt;
}
/* NHWC forward (bwd 0: rows [lo, hi) of the N*OH) or conv_transpose2d (bwd 1: rows of
   the N*H; out = X, a = G) of a depthwise conv with one weight per channel. A run of
   destination pixels whose taps are the same (the interior: forward, consecutive
   pixels; transpose, pixels a stride apart) goes through ct__dw_pix8/4; the rest
   one pixel at a time. */
static CT__NN_FPC void ct__dw_gather_nhwc(void *ctx, int64_t lo, int64_t hi) {
    const ct__dw_job *j = (const ct__dw_job *)ctx;
    const ct__cgeo *g = j->g;
    const int bwd = j->bwd;
    const int64_t C = g->C, DH = bwd ? g->H : g->OH, DW = bwd ? g->W : g->OW, SH = bwd ? g->OH : g->H,
                  SW = bwd ? g->OW : g->W, dstep = bwd ? g->sw : 1, sstep = bwd ? 1 : g->sw;
    int64_t ri[CT__DW_MAXTAPS], rs[CT__DW_MAXTAPS], qi[CT__DW_MAXTAPS], qs[CT__DW_MAXTAPS], qi2[CT__DW_MAXTAPS],
            qs2[CT__DW_MAXTAPS], ao[CT__DW_MAXTAPS], wo[CT__DW_MAXTAPS];
    CT__NN_AS(j->dt, {
        const T *bias = (const T *)j->bias, *wt = (const T *)j->wt, *a = (const T *)j->a;
        for (int64_t r = lo; r < hi; r++) {
            int64_t n = r / DH;
            int nr = ct__dw_taps1(bwd, r % DH, g->kh, g->sh, g->ph, g->dh, SH, ri, rs);
            for (int64_t cls = 0; cls < dstep; cls++)
                for (int64_t x = cls; x < DW;) {
                    T *y = (T *)j->out + (r * DW + x) * C;
                    int nq = ct__dw_taps1(bwd, x, g->kw, g->sw, g->pw, g->dw, SW, qi, qs), P = 1, nt = 0;
                    for (int want = 8; want >= 4 && P == 1; want -= 4) {   /* do pixels x + (want - 1) dstep have the same taps? */
                        int64_t xl = x + (want - 1) * dstep;
                        if (xl >= DW || ct__dw_taps1(bwd, xl, g->kw, g->sw, g->pw, g->dw, SW, qi2, qs2) != nq) continue;
                        int same = 1;
                        for (int e = 0; e < nq; e++) same &= qi2[e] == qi[e];
                        if (same) P = want;
                    }
                    for (int u = 0; u < nr; u++)
                        for (int e = 0; e < nq; e++) {
                            ao[nt] = ((n * SH + rs[u]) * SW + qs[e]) * C;
                            wo[nt++] = (ri[u] * g->kw + qi[e]) * C;
                        }
                    if (P == 8) {
                        if (sizeof(T) == 4) ct__dw_pix8_f32((float *)y, dstep * C, (const float *)bias, (const float *)a, ao, sstep * C, (const float *)wt, wo, nt, C);
                        else ct__dw_pix8_f64((double *)y, dstep * C, (const double *)bias, (const double *)a, ao, sstep * C, (const double *)wt, wo, nt, C);
                    } else if (P == 4) {
                        if (sizeof(T) == 4) ct__dw_pix4_f32((float *)y, dstep * C, (const float *)bias, (const float *)a, ao, sstep * C, (const float *)wt, wo, nt, C);
                        else ct__dw_pix4_f64((double *)y, dstep * C, (const double *)bias, (const double *)a, ao, sstep * C, (const double *)wt, wo, nt, C);
                    } else
                        CT__DW_TAPSUM(T, y, bias, a, ao, wt, wo, nt, C);
                    x += P * dstep;
                }
        }
    });
}
/* NHWC forward: output rows [lo, hi) of the N*OH */
static CT__NN_FPC void ct__dw_fwd_nhwc(void *ctx, int64_t lo, int64_t hi) {
    const ct__dw_job *j = (const ct__dw_job *)ctx;
    const ct__cgeo *g = j->g;
    const int64_t C = g->C, O = g->O, m = O / C, OH = g->OH, OW = g->OW, H = g->H, W = g->W;
    int64_t xo[CT__DW_MAXTAPS], wo[CT__DW_MAXTAPS];
    CT__NN_AS(j->dt, {
        const T *bias = (const T *)j->bias, *wt = (const T *)j->wt;
        for (int64_t r = lo; r < hi; r++) {
            int64_t n = r / OH, oh = r % OH;
            for (int64_t ow = 0; ow < OW; ow++) {
                T *CT_RESTRICT y = (T *)j->out + (r * OW + ow) * O;
                int nt = 0, many = g->kh * g->kw > CT__DW_MAXTAPS;
                for (int64_t i = 0; i < g->kh; i++) {
                    int64_t ih = oh * g->sh - g->ph + i * g->dh;
                    if (ih < 0 || ih >= H) continue;
                    for (int64_t q = 0; q < g->kw; q++) {
                        int64_t iw = ow * g->sw - g->pw + q * g->dw;
                        if (iw < 0 || iw >= W) continue;
                        if (many || m != 1) {   /* the plain loop */
                            const T *xs = (const T *)j->a + ((n * H + ih) * W + iw) * C, *wr = wt + (i * g->kw + q) * O;
                            if (!nt++)
                                for (int64_t o = 0; o < O; o++) y[o] = bias ? bias[o] : (T)0;
                            for (int64_t o = 0; o < O; o++) y[o] += wr[o] * xs[o / m];
                            continue;
                        }
                        xo[nt] = ((n * H + ih) * W + iw) * C;
                        wo[nt++] = (i * g->kw + q) * O;
                    }
                }
                if (many || m != 1) {
                    if (!nt)
                        for (int64_t o = 0; o < O; o++) y[o] = bias ? bias[o] : (T)0;
                    continue;
                }
                CT__DW_TAPSUM(T, y, bias, (const T *)j->a, xo, wt, wo, nt, O);
            }
        }
    });
}
/* NHWC conv_transpose2d (out = X, a = G): input rows [lo, hi) of the N*H; each
   input pixel gathers the taps (i, j) whose output pixel lies on the stride grid */
static CT__NN_FPC void ct__dw_bwd_nhwc(void *ctx, int64_t lo, int64_t hi) {
    const ct__dw_job *j = (const ct__dw_job *)ctx;
    const ct__cgeo *g = j->g;
    const int64_t C = g->C, O = g->O, m = O / C, OH = g->OH, OW = g->OW, H = g->H, W = g->W;
    int64_t go[CT__DW_MAXTAPS], wo[CT__DW_MAXTAPS];
    CT__NN_AS(j->dt, {
        const T *bias = (const T *)j->bias, *wt = (const T *)j->wt;
        for (int64_t r = lo; r < hi; r++) {
            int64_t n = r / H, ih = r % H;
            for (int64_t iw = 0; iw < W; iw++) {
                T *CT_RESTRICT xo = (T *)j->out + (r * W + iw) * C;
                int nt = 0, many = g->kh * g->kw > CT__DW_MAXTAPS;
                if (many || m != 1)
                    for (int64_t c = 0; c < C; c++) xo[c] = bias ? bias[c] : (T)0;
                for (int64_t i = 0; i < g->kh; i++) {
                    int64_t th = ih + g->ph - i * g->dh, oh = th / g->sh;
                    if (th < 0 || th % g->sh || oh >= OH) continue;
                    for (int64_t q = 0; q < g->kw; q++) {
                        int64_t tw = iw + g->pw - q * g->dw, ow = tw / g->sw;
                        if (tw < 0 || tw % g->sw || ow >= OW) continue;
                        if (many || m != 1) {   /* the plain loop */
                            const T *gs = (const T *)j->a + ((n * OH + oh) * OW + ow) * O, *wr = wt + (i * g->kw + q) * O;
                            for (int64_t c = 0; c < C; c++)
                                for (int64_t k = 0; k < m; k++) xo[c] += wr[c * m + k] * gs[c * m + k];
                            continue;
                        }
                        go[nt] = ((n * OH + oh) * OW + ow) * O;
                        wo[nt++] = (i * g->kw + q) * O;
                    }
                }
                if (many || m != 1) continue;
                CT__DW_TAPSUM(T, xo, bias, (const T *)j->a, go, wt, wo, nt, C);
            }
        }
    });
}
/* NHWC weight gradient (a = X, b = G): output channels [lo, hi), accumulated as
   [kh*kw][hi - lo] along the channels */
static CT__NN_FPC void ct__dw_wgrad_nhwc(void *ctx, int64_t lo, int64_t hi) {
    ct__dw_job *j = (ct__dw_job *)ctx;
    const ct__cgeo *g = j->g;
    const int64_t C = g->C, O = g->O, m = O / C, OH = g->OH, OW = g->OW, H = g->H, W = g->W, KK = g->kh * g->kw, nb = hi - lo;
    CT__NN_AS(j->dt, {
        T *acc = (T *)CT_MALLOC(sizeof(T) * (size_t)(KK * nb));
        if (!acc) { j->oom = 1; return; }
        for (int64_t e = 0; e < KK * nb; e++) acc[e] = 0;
        for (int64_t n = 0; n < g->N; n++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    const T *CT_RESTRICT gs = (const T *)j->b + ((n * OH + oh) * OW + ow) * O + lo;
                    for (int64_t i = 0; i < g->kh; i++) {
                        int64_t ih = oh * g->sh - g->ph + i * g->dh;
                        if (ih < 0 || ih >= H) continue;
                        for (int64_t q = 0; q < g->kw; q++) {
                            int64_t iw = ow * g->sw - g->pw + q * g->dw;
                            if (iw < 0 || iw >= W) continue;
                            const T *CT_RESTRICT xs = (const T *)j->a + ((n * H + ih) * W + iw) * C;
                            T *CT_RESTRICT ar = acc + (i * g->kw + q) * nb;
                            if (m == 1)
                                for (int64_t o = 0; o < nb; o++) ar[o] += gs[o] * xs[lo + o];
                            else
                                for (int64_t o = 0; o < nb; o++) ar[o] += gs[o] * xs[(lo + o) / m];
                        }
                    }
                }
        for (int64_t o = 0; o < nb; o++)
            for (int64_t t = 0; t < KK; t++) ((T *)j->out)[(lo + o) * KK + t] = acc[t * nb + o];
        CT_FREE(acc);
    });
}
/* The NHWC weight gradient with one weight per channel, a vector of channels at a
   time: per output row and tap, one run over the row's pixels whose input lies
   inside, in four accumulators (the row of G stays in L1 over the taps); the
   channels left over after the last full vector take the loop above. */
#ifdef CT__GEMM_SIMD
#  define CT__DW_WG_STACK_TAPS 49
#  define CT__DW_WG_DEF(SUF, T, V)                                                                      \
    static CT__NN_FPC int64_t ct__dw_wgvec_##SUF(const ct__dw_job *j, int64_t lo, int64_t hi) {         \
        const ct__cgeo *g = j->g;                                                                       \
        const int64_t C = g->C, OH = g->OH, OW = g->OW, H = g->H, W = g->W, KK = g->kh * g->kw,         \
                      NL = (int64_t)(sizeof(V) / sizeof(T)), xs = g->sw * C;                           \
        /* accumulators for up to 7x7 taps (CT__DW_MAXTAPS of them made a 16.8 KB frame  \
           with AVX-512); larger kernels take their taps in passes of that many */      \
        V acc[CT__DW_WG_STACK_TAPS][4];                                                                 \
        int64_t c0 = lo;                                                                                \
        for (; c0 + NL <= hi; c0 += NL)                                                                 \
          for (int64_t t0 = 0; t0 < KK; t0 += CT__DW_WG_STACK_TAPS) {                                   \
            const int64_t t1 = KK - t0 < CT__DW_WG_STACK_TAPS ? KK : t0 + CT__DW_WG_STACK_TAPS;         \
            memset(acc, 0, sizeof(V) * 4 * (size_t)(t1 - t0));                                          \
            for (int64_t n = 0; n < g->N; n++)                                                          \
                for (int64_t oh = 0; oh < OH; oh++) {                                                   \
                    const T *gr = (const T *)j->b + (n * OH + oh) * OW * C + c0;                        \
                    for (int64_t i = 0; i < g->kh; i++) {                                               \
                        int64_t ih = oh * g->sh - g->ph + i * g->dh;                                    \
                        if (ih < 0 || ih >= H) continue;                                                \
                        for (int64_t q = 0; q < g->kw; q++) {                                           \
                            const int64_t tap = i * g->kw + q;                                          \
                            if (tap < t0 || tap >= t1) continue;                                        \
                            int64_t off = q * g->dw - g->pw, oa = 0, ob = OW;                           \
                            while (oa < OW && oa * g->sw + off < 0) oa++;                               \
                            while (ob > oa && (ob - 1) * g->sw + off >= W) ob--;                        \
                            const T *xr = (const T *)j->a + ((n * H + ih) * W + off) * C + c0;          \
                            V *A = acc[tap - t0], a0 = A[0], a1 = A[1], a2 = A[2], a3 = A[3], gv, xv; \
                            int64_t ow = oa;                                                            \
                            for (; ow + 4 <= ob; ow += 4) {                                             \
                                memcpy(&gv, gr + ow * C, sizeof gv); memcpy(&xv, xr + ow * xs, sizeof xv); a0 += gv * xv; \
                                memcpy(&gv, gr + (ow + 1) * C, sizeof gv); memcpy(&xv, xr + (ow + 1) * xs, sizeof xv); a1 += gv * xv; \
                                memcpy(&gv, gr + (ow + 2) * C, sizeof gv); memcpy(&xv, xr + (ow + 2) * xs, sizeof xv); a2 += gv * xv; \
                                memcpy(&gv, gr + (ow + 3) * C, sizeof gv); memcpy(&xv, xr + (ow + 3) * xs, sizeof xv); a3 += gv * xv; \
                            }                                                                           \
                            for (; ow < ob; ow++) {                                                     \
                                memcpy(&gv, gr + ow * C, sizeof gv); memcpy(&xv, xr + ow * xs, sizeof xv); a0 += gv * xv; \
                            }                                                                           \
                            A[0] = a0; A[1] = a1; A[2] = a2; A[3] = a3;                                 \
                        }                                                                               \
                    }                                                                                   \
                }                                                                                       \
            for (int64_t t = t0; t < t1; t++) {                                                         \
                V s = acc[t - t0][0] + acc[t - t0][1] + acc[t - t0][2] + acc[t - t0][3];                \
                T sv[sizeof(V) / sizeof(T)];                                                            \
                memcpy(sv, &s, sizeof s);                                                               \
                for (int64_t l = 0; l < NL; l++) ((T *)j->out)[(c0 + l) * KK + t] = sv[l];             \
            }                                                                                           \
        }                                                                                               \
        return c0;                                                                                      \
    }
CT__DW_WG_DEF(f32, float, ct__vf32)
CT__DW_WG_DEF(f64, double, ct__vf64)
CT__DW_WG_DEF(hf32, float, ct__hvf32)
CT__DW_WG_DEF(hf64, double, ct__hvf64)
#endif
/* the NHWC weight gradient: full and half channel vectors on ct__dw_wgvec, the rest on the loop */
static void ct__dw_wgrad_nhwc_pix(void *ctx, int64_t lo, int64_t hi) {
    int64_t v = lo;
#ifdef CT__GEMM_SIMD
    const ct__dw_job *j = (const ct__dw_job *)ctx;
    if (j->dt == CT_FLOAT32) v = ct__dw_wgvec_hf32(j, ct__dw_wgvec_f32(j, lo, hi), hi);
    else v = ct__dw_wgvec_hf64(j, ct__dw_wgvec_f64(j, lo, hi), hi);
#endif
    if (v < hi) ct__dw_wgrad_nhwc(ctx, v, hi);
}
/* One depthwise op on dense inputs in the geometry's layout (out = Y, X or dW as in
   ct__conv_run). 0, or -1 (out of memory) with the error set. */
static int ct__conv_dw_run(int kind, ct_dtype dt, void *out, const void *a, const void *b, const void *bias, const ct__cgeo *g,
                           const char *nm) {
    ct__dw_job j;
    const int64_t KK = g->kh * g->kw, es = (int64_t)ct__dt[dt].size;
    char *wt = NULL;
    memset(&j, 0, sizeof j);
    j.dt = dt; j.g = g; j.out = (char *)out; j.a = (const char *)a; j.b = (const char *)b; j.bias = (const char *)bias;
    if (g->cl && kind != CT__CONV_WEIGHT) {   /* the weight as [kh*kw][O] */
        if (!(wt = (char *)CT_MALLOC((size_t)(es * KK * g->O)))) {
            ct_set_error(CT_ERR_MEMORY, "%s: out of memory", nm);
            return -1;
        }
        for (int64_t o = 0; o < g->O; o++)
            for (int64_t t = 0; t < KK; t++) memcpy(wt + es * (t * g->O + o), j.b + es * (o * KK + t), (size_t)es);
        j.wt = wt;
    }
    /* grains: about 16k multiply-adds per chunk */
    const int64_t per = KK * (g->O / g->C), one = 1;
    /* one weight per channel and a tap list that fits: the pixel-blocked NHWC kernel */
    const int pix = g->O == g->C && KK <= CT__DW_MAXTAPS;
    j.bwd = kind == CT__CONV_TRANSPOSE;
    if (kind == CT__CONV_FWD) {
        if (g->cl) ct__nn_par_for(g->N * g->OH, CT__MAX(one, 16384 / CT__MAX(one, g->OW * g->O * KK)), pix ? ct__dw_gather_nhwc : ct__dw_fwd_nhwc, &j);
        else ct__nn_par_for(g->N * g->C, CT__MAX(one, 16384 / CT__MAX(one, g->OH * g->OW * per)), ct__dw_fwd_nchw, &j);
    } else if (kind == CT__CONV_TRANSPOSE) {
        if (g->cl) ct__nn_par_for(g->N * g->H, CT__MAX(one, 16384 / CT__MAX(one, g->W * g->C * per)), pix ? ct__dw_gather_nhwc : ct__dw_bwd_nhwc, &j);
        else ct__nn_par_for(g->N * g->C, CT__MAX(one, 16384 / CT__MAX(one, g->OH * g->OW * per)), ct__dw_bwd_nchw, &j);
    } else {
        if (g->cl) ct__nn_par_for(g->O, 16, pix ? ct__dw_wgrad_nhwc_pix : ct__dw_wgrad_nhwc, &j);
        else ct__nn_par_for(g->O, CT__MAX(one, 16384 / CT__MAX(one, g->N * g->OH * g->OW * KK)), ct__dw_wgrad_nchw, &j);
    }
    CT_FREE(wt);
    if (!j.oom) return 0;
    ct_set_error(CT_ERR_MEMORY, "%s: out of memory", nm);
    return -1;
}

/* x's data in the layout the kernels read: dense NHWC (cl) or contiguous; x itself (incref) when it is */
static ct_tensor *ct__layout_ref(const ct_tensor *x, int cl) { return cl ? ct__cl_ref(x) : ct__contig_ref(x); }
static void ct__nn_release(int n, ct_tensor **t) {
    for (int i = 0; i < n; i++) ct__decref(t[i]);
}
/* c's inputs as the kernels read them: the first nlay in the layout ct__layout_ref(., cl)
   gives, the others contiguous. 0, or -1 with nothing held. */
static int ct__nn_dense_inputs(const ct__call *c, int nlay, int cl, ct_tensor **t) {
    for (int i = 0; i < c->nin; i++) {
        t[i] = i < nlay ? ct__layout_ref(c->in[i], cl) : ct__contig_ref(c->in[i]);
        if (!t[i]) {
            ct__nn_release(i, t);
            return -1;
        }
    }
    return 0;
}

/* ---- small output planes: the batch folded into one GEMM ----
   With few output pixels per sample (late ResNet layers: 4x4 and 2x2) one GEMM per
   sample is a thin product that streams the whole weight (9.4 MB for 512 -> 512 3x3)
   once per sample, and the implicit GEMM's 32-pixel slivers would be mostly padding.
   NCHW, groups 1, L = OH * OW below CT__CONV_FOLD_L and N > 1: the columns of nb
   samples side by side, colF [K][nb L] (column n L + l), and one GEMM per chunk of
   nb samples:
     forward   YF [O][nb L] = W [O][K] colF, then y[n][o][l] = YF[o][n L + l] (+ bias)
     transpose colF = W^T [K][O] GF, GF [O][nb L] gathered from G; col2im per sample
     weight    dW += GF colF^T
   Channels-last forward folds without copies: im2col_cl's rows are pixels, so nb
   samples' rows stack into [nb L][K] and the GEMM writes y's rows directly; with
   fewer than 4 MR rows they are transposed into colF, and the NCHW form's product
   is written into y transposed. The fold runs before the channels-last direct
   kernels, whose 12-pixel tiles are mostly padding at these sizes. */
#ifndef CT__CONV_FOLD_L
#  define CT__CONV_FOLD_L 64
#endif
/* elements of colF per chunk (and of the [O][nb L] buffer): bounds the workspace */
#ifndef CT__CONV_FOLD_ELEMS
#  define CT__CONV_FOLD_ELEMS ((int64_t)1 << 22)
#endif
static int ct__conv_fold_ok(int kind, const ct__cgeo *g) {
    if (g->G != 1 || g->N < 2 || g->OH * g->OW >= CT__CONV_FOLD_L) return 0;
    return !g->cl || kind == CT__CONV_FWD;
}
/* nb: samples per chunk */
static int64_t ct__conv_fold_nb(const ct__cgeo *g) {
    int64_t K = g->C * g->kh * g->kw, L = g->OH * g->OW, per = CT__MAX(K, g->O) * L;
    return CT__MAX((int64_t)1, CT__MIN(g->N, CT__CONV_FOLD_ELEMS / CT__MAX((int64_t)1, per)));
}
/* dst[r][off + l] = src[r][l] for r < R, l < L (row lengths ld and L): the columns of one sample */
static void ct__conv_fold_cols(ct_dtype dt, void *dst, int64_t ld, int64_t off, const void *src, int64_t R, int64_t L, int to_fold) {
    const size_t es = ct__dt[dt].size;
    for (int64_t r = 0; r < R; r++) {
        char *f = (char *)dst + es * (size_t)(r * ld + off);
        char *s = (char *)src + es * (size_t)(r * L);
        if (to_fold) memcpy(f, s, es * (size_t)L);
        else memcpy(s, f, es * (size_t)L);
    }
}
/* the three ops as above on dense a, b and out (nm: the op, for the error).
   0, or -1 out of memory with the error set and nothing written. */
static int ct__conv_fold_run(int kind, ct_dtype dt, char *out, const char *a, const char *b, const char *bias, const ct__cgeo *g,
                             const char *nm) {
    const int64_t es = ct__dt[dt].size, K = g->C * g->kh * g->kw, L = g->OH * g->OW, HW = g->H * g->W, O = g->O;
    const int64_t nb = ct__conv_fold_nb(g);
    /* colF, then the [O][nb L] buffer, then one sample's columns (channels-last: nb samples' rows) */
    char *ws = (char *)CT_MALLOC((size_t)(es * (K * nb * L + O * nb * L + K * (g->cl ? nb : 1) * L)));
    if (!ws) {
        ct_set_error(CT_ERR_MEMORY, "%s: out of memory", nm);
        return -1;
    }
    if (kind == CT__CONV_WEIGHT) memset(out, 0, (size_t)(es * O * K));   /* summed over the chunks */
    char *colF = ws, *yF = colF + es * K * nb * L, *col = yF + es * O * nb * L;
    for (int64_t n0 = 0; n0 < g->N; n0 += nb) {
        const int64_t m = CT__MIN(nb, g->N - n0), W = m * L;   /* samples in this chunk, columns */
        if (g->cl) {   /* forward: rows of pixels, written straight into y */
            const int thin = W < CT__GEMM_MR * 4;   /* few rows: the weight as the tall operand */
            char *rows = thin ? col : colF;
            for (int64_t s = 0; s < m; s++) ct__im2col_cl(dt, rows + es * s * L * K, a + es * (n0 + s) * HW * g->C, g, g->C, 0, g->OH);
            char *y = out + es * n0 * L * O;
            if (thin) {   /* colF = rows^T, yF = W colF, y = yF^T */
                CT__NN_AS(dt, {
                    for (int64_t l = 0; l < W; l++)
                        for (int64_t k = 0; k < K; k++) ((T *)colF)[k * W + l] = ((const T *)rows)[l * K + k];
                });
                ct__gemm_cd(dt, O, W, K, 1.0, b, K, 1, colF, W, 1, 0.0, yF, W);
                CT__NN_AS(dt, {
                    for (int64_t l = 0; l < W; l++)
                        for (int64_t o = 0; o < O; o++)
                            ((T *)y)[l * O + o] = ((const T *)yF)[o * W + l] + (bias ? ((const T *)bias)[o] : (T)0);
                });
                continue;
            }
            if (bias)
                CT__NN_AS(dt, {
                    for (int64_t l = 0; l < W; l++)
                        for (int64_t o = 0; o < O; o++) ((T *)y)[l * O + o] = ((const T *)bias)[o];
                });
            ct__gemm_cd(dt, W, O, K, 1.0, colF, K, 1, b, 1, K, bias ? 1.0 : 0.0, y, O);
            continue;
        }
        if (kind != CT__CONV_TRANSPOSE)   /* colF from the inputs */
            for (int64_t s = 0; s < m; s++) {
                ct__im2col(dt, col, a + es * (n0 + s) * g->C * HW, HW, g->W, 1, g, g->C, 0, g->OH);
                ct__conv_fold_cols(dt, colF, W, s * L, col, K, L, 1);
            }
        if (kind != CT__CONV_FWD) {   /* GF from the gradient: a for the transpose, b for the weight */
            const char *G = kind == CT__CONV_TRANSPOSE ? a : b;
            for (int64_t s = 0; s < m; s++) ct__conv_fold_cols(dt, yF, W, s * L, (void *)(G + es * (n0 + s) * O * L), O, L, 1);
        }
        if (kind == CT__CONV_FWD) {
            ct__gemm_cd(dt, O, W, K, 1.0, b, K, 1, colF, W, 1, 0.0, yF, W);
            CT__NN_AS(dt, {   /* y[n0 + s][o][l] = yF[o][s L + l] + bias[o] */
                for (int64_t s = 0; s < m; s++)
                    for (int64_t o = 0; o < O; o++) {
                        T *y = (T *)out + ((n0 + s) * O + o) * L;
                        const T *f = (const T *)yF + o * W + s * L, bo = bias ? ((const T *)bias)[o] : (T)0;
                        for (int64_t l = 0; l < L; l++) y[l] = f[l] + bo;
                    }
            });
        } else if (kind == CT__CONV_TRANSPOSE) {
            ct__gemm_cd(dt, K, W, O, 1.0, b, 1, K, yF, W, 1, 0.0, colF, W);
            for (int64_t s = 0; s < m; s++) {
                char *x = out + es * (n0 + s) * g->C * HW;
                for (int64_t ch = 0; ch < g->C; ch++) {
                    if (bias) ct__nn_fill(dt, x + es * ch * HW, bias + es * ch, HW);
                    else memset(x + es * ch * HW, 0, (size_t)(es * HW));
                }
                ct__conv_fold_cols(dt, colF, W, s * L, col, K, L, 0);
                ct__col2im(dt, x, col, g, g->C);
            }
        } else {
            ct__gemm_cd(dt, O, K, W, 1.0, yF, W, 1, colF, 1, W, 1.0, out, K);
        }
    }
    CT_FREE(ws);
    return 0;
}

/* ---- Winograd F(2x2, 3x3) and F(4x4, 3x3): 3x3 stride-1 NCHW float32 convolutions ----
   Per m x m output tile (m = 2 or 4, TA = m + 2): Y = A^T [(G g G^T) . (B^T d B)] A,
   d the TA x TA input tile (zero off the image; tiles past the output's edge are
   clipped), g the 3x3 filter; interpolation points 0, +-1 (F(2x2)), 0, +-1, +-2
   (F(4x4)), and infinity. Summed over the input channels, each of the TA^2
   transformed planes xi is one GEMM, M[xi][O][t] = U[xi][O][C] V[xi][C][t], on
   ctensor.h's packed micro-kernel: U = G g G^T is packed once per call as its A
   slivers (per KC block of C, as ct__igemm_prepare), and the input transform
   writes V straight in the B-sliver form ([C][NR] per plane). Multiplies per
   output pixel and channel pair: 9 direct, 4 F(2x2), 2.25 F(4x4). Tiles run over
   the batch and the tile grid, NR (one B sliver) per block, so a block's V and M
   stay in L2; the transforms are vectorized across the block's tiles (lanes).
   The block's tiles are runs of consecutive tiles of a tile row: each input row
   of a run is copied (zero-padded) into a buffer at m floats per lane, so that
   column q of every lane's tile is the buffer at stride m from q (the last tile
   of a run takes its TA - m last columns from the image); the output tiles go
   back the same way. Threads take blocks (slots of blocks with a workspace
   each, as ct__conv_run), after the weight transform, threaded over O. A
   stride-1 conv_transpose2d (conv2d's input gradient) is the forward conv of G
   with the flipped, channel-swapped weight W'[c][o][i][j] = W[o][c][2-i][2-j] at
   padding 2 - p. The rounding differs from the direct paths: see
   ct_set_conv_winograd for the routed layers and the measured error. */
static int ct__conv_wino_mode = 1;   /* ct_set_conv_winograd: 0 off, 1 F(2x2, 3x3), 2 F(4x4, 3x3) */
CTENSOR_API void ct_set_conv_winograd(int mode) { ct__conv_wino_mode = mode == 1 || mode == 2 ? mode : 0; }
CTENSOR_API int ct_get_conv_winograd(void) { return ct__conv_wino_mode; }
#ifdef CT__GEMM_SIMD
typedef struct ct__wino_job {
    const float *x, *bias, *pu;   /* pu: U, plane xi at pu + xi Opad Ci, [Opad / MR][kc][MR] per KC block of Ci */
    float *y, *ws;
    int64_t N, Ci, Hi, Wi, Co, Ho, Wo, ph, pw, TH, TW, tiles, nblk, Opad, wsz, nt;
    int TM;   /* the tile size m */
    int relu; /* ct::conv2d_relu: max(y, 0) as the tiles are written (NaN kept) */
} ct__wino_job;
/* the transforms on ct__vf32 lanes (one tile or input channel each):
   r[k rs] = (B^T d)[k] for d[k ds] (TA in, TA out), (A^T m)[k] (TA in, m out),
   (G g)[k] (3 in, TA out) */
#  define CT__WINO_BT2(r, rs, d, ds)                                                           \
    do {                                                                                       \
        ct__vf32 d0_ = (d)[0], d1_ = (d)[ds], d2_ = (d)[2 * (ds)], d3_ = (d)[3 * (ds)];        \
        (r)[0] = d0_ - d2_;                                                                    \
        (r)[rs] = d1_ + d2_;                                                                   \
        (r)[2 * (rs)] = d2_ - d1_;                                                             \
        (r)[3 * (rs)] = d1_ - d3_;                                                             \
    } while (0)
#  define CT__WINO_AT2(r, rs, m, ms)                                                           \
    do {                                                                                       \
        ct__vf32 m1_ = (m)[ms], m2_ = (m)[2 * (ms)];                                           \
        (r)[0] = (m)[0] + m1_ + m2_;                                                           \
        (r)[rs] = m1_ - m2_ - (m)[3 * (ms)];                                                   \
    } while (0)
#  define CT__WINO_G2(r, rs, g, gs)                                                            \
    do {                                                                                       \
        ct__vf32 g0_ = (g)[0], g1_ = (g)[gs], g2_ = (g)[2 * (gs)], p_ = g0_ + g2_;             \
        (r)[0] = g0_;                                                                          \
        (r)[rs] = (p_ + g1_) * 0.5f;                                                           \
        (r)[2 * (rs)] = (p_ - g1_) * 0.5f;                                                     \
        (r)[3 * (rs)] = g2_;                                                                   \
    } while (0)
#  define CT__WINO_BT4(r, rs, d, ds)                                                           \
    do {                                                                                       \
        ct__vf32 d0_ = (d)[0], d1_ = (d)[ds], d2_ = (d)[2 * (ds)], d3_ = (d)[3 * (ds)];        \
        ct__vf32 d4_ = (d)[4 * (ds)], d5_ = (d)[5 * (ds)];                                     \
        ct__vf32 a_ = d4_ - 4.0f * d2_, b_ = d3_ - 4.0f * d1_, c_ = d4_ - d2_, e_ = 2.0f * (d3_ - d1_); \
        (r)[0] = 4.0f * d0_ - 5.0f * d2_ + d4_;                                                \
        (r)[rs] = a_ + b_;                                                                     \
        (r)[2 * (rs)] = a_ - b_;                                                               \
        (r)[3 * (rs)] = c_ + e_;                                                               \
        (r)[4 * (rs)] = c_ - e_;                                                               \
        (r)[5 * (rs)] = 4.0f * d1_ - 5.0f * d3_ + d5_;                                         \
    } while (0)
#  define CT__WINO_AT4(r, rs, m, ms)                                                           \
    do {                                                                                       \
        ct__vf32 m0_ = (m)[0], m5_ = (m)[5 * (ms)];                                            \
        ct__vf32 p12_ = (m)[ms] + (m)[2 * (ms)], d12_ = (m)[ms] - (m)[2 * (ms)];               \
        ct__vf32 p34_ = (m)[3 * (ms)] + (m)[4 * (ms)], d34_ = (m)[3 * (ms)] - (m)[4 * (ms)];   \
        (r)[0] = m0_ + p12_ + p34_;                                                            \
        (r)[rs] = d12_ + 2.0f * d34_;                                                          \
        (r)[2 * (rs)] = p12_ + 4.0f * p34_;                                                    \
        (r)[3 * (rs)] = d12_ + 8.0f * d34_ + m5_;                                              \
    } while (0)
#  define CT__WINO_G4(r, rs, g, gs)                                                            \
    do {                                                                                       \
        ct__vf32 g0_ = (g)[0], g1_ = (g)[gs], g2_ = (g)[2 * (gs)], p_ = g0_ + g2_;             \
        ct__vf32 q_ = g0_ * (1.0f / 24) + g2_ * (1.0f / 6), e_ = g1_ * (1.0f / 12);            \
        (r)[0] = g0_ * 0.25f;                                                                  \
        (r)[rs] = (p_ + g1_) * (-1.0f / 6);                                                    \
        (r)[2 * (rs)] = (p_ - g1_) * (-1.0f / 6);                                              \
        (r)[3 * (rs)] = q_ + e_;                                                               \
        (r)[4 * (rs)] = q_ - e_;                                                               \
        (r)[5 * (rs)] = g2_;                                                                   \
    } while (0)
#  define CT__WINO_PF(p, w) __builtin_prefetch((p), (w))
/* short row copies without a libc call: d[0..n) = s[0..n) in 8-float pieces (the last
   one overlapping); and d[0..n) = 0 in pieces that may write up to 7 floats past n */
static CT__GEMM_FPC void ct__wino_cp(float *CT_RESTRICT d, const float *CT_RESTRICT s, int64_t n) {
    int64_t f = 0;
    for (; f + 8 <= n; f += 8) memcpy(d + f, s + f, 8 * sizeof(float));
    if (f < n) {
        if (n >= 8) memcpy(d + n - 8, s + n - 8, 8 * sizeof(float));
        else
            for (; f < n; f++) d[f] = s[f];
    }
}
/* the copy with ct::conv2d_relu's epilogue: relu's operation (x < 0 ? 0 : x) */
static CT__GEMM_FPC void ct__wino_cp_relu(float *CT_RESTRICT d, const float *CT_RESTRICT s, int64_t n) {
    for (int64_t f = 0; f < n; f++) d[f] = s[f] < 0.0f ? 0.0f : s[f];
}
static CT__GEMM_FPC void ct__wino_zero(float *d, int64_t n) {
    static const float z[8] = {0};
    for (int64_t f = 0; f < n; f += 8) memcpy(d + f, z, sizeof z);
}
/* the weight transform's job: output channels [lo, hi) of w[o so + c sc + tap] (tap 3 i + j;
   flip: 8 - tap), HL input channels at a time across the lanes, into t [TA^2][Co][Ci]; then
   (ct__wino_pack) planes [lo, hi) of t packed into U */
typedef struct ct__wino_wjob {
    float *pu, *t;
    const float *w;
    int64_t Co, Ci, Opad, so, sc;
    int flip;
} ct__wino_wjob;
static void ct__wino_pack(void *ctx, int64_t lo, int64_t hi) {
    const ct__wino_wjob *j = (const ct__wino_wjob *)ctx;
    for (int64_t xi = lo; xi < hi; xi++)
        for (int64_t k0 = 0; k0 < j->Ci; k0 += CT__GEMM_KC)
            ct__gemm_pack_a_f32(j->Co, CT__MIN((int64_t)CT__GEMM_KC, j->Ci - k0), j->t + xi * j->Co * j->Ci + k0, j->Ci, 1,
                                j->pu + xi * j->Opad * j->Ci + j->Opad * k0);
}
/* ct__wino_weight_<m> and ct__wino_block_<m> for tile size m (TA = m + 2);
   block b: tiles [b NR, b NR + NR) of all samples; ws: V [TA^2][Ci][NR], then M [TA^2][Opad][NR] */
#  define CT__WINO_DEF(TM, TA, BT, AT, GM)                                                     \
    static CT__GEMM_FPC void ct__wino_weight_##TM(void *ctx, int64_t lo, int64_t hi) {         \
        enum { HL = (int)(sizeof(ct__vf32) / sizeof(float)), P = TA * TA };                    \
        const ct__wino_wjob *j = (const ct__wino_wjob *)ctx;                                   \
        const int64_t Ci = j->Ci, plane = j->Co * Ci;                                          \
        float gb[9 * HL];                                                                      \
        for (int64_t o = lo; o < hi; o++)                                                      \
            for (int64_t c0 = 0; c0 < Ci; c0 += HL) {                                          \
                int64_t nc = CT__MIN((int64_t)HL, Ci - c0);                                    \
                for (int64_t l = 0; l < HL; l++)                                               \
                    for (int t = 0; t < 9; t++)                                                \
                        gb[t * HL + l] = l < nc ? j->w[o * j->so + (c0 + l) * j->sc + (j->flip ? 8 - t : t)] : 0.0f; \
                ct__vf32 g[9], t1[3 * TA], u[P];                                               \
                for (int t = 0; t < 9; t++) memcpy(&g[t], gb + t * HL, sizeof g[0]);           \
                for (int q = 0; q < 3; q++) GM(t1 + q, 3, g + q, 3);   /* t1[a][q] = (G g)[a][q] */ \
                for (int a = 0; a < TA; a++) GM(u + a * TA, 1, t1 + a * 3, 1);   /* u = t1 G^T */ \
                float *d = j->t + o * Ci + c0;                                                 \
                for (int k = 0; k < P; k++) {                                                  \
                    if (nc == HL) memcpy(d + k * plane, &u[k], sizeof u[0]);                   \
                    else                                                                       \
                        for (int64_t l = 0; l < nc; l++) d[k * plane + l] = u[k][l];           \
                }                                                                              \
            }                                                                                  \
    }                                                                                          \
    static CT__GEMM_FPC CT__NOINLINE void ct__wino_block_##TM(const ct__wino_job *j, int64_t b, float *ws) { \
        enum { HL = (int)(sizeof(ct__vf32) / sizeof(float)), NR = CT__GEMM_NR_F32, NV = NR / HL, P = TA * TA, RW = TM * NR }; \
        const int64_t MR = CT__GEMM_MR, KC = CT__GEMM_KC, Ci = j->Ci, Co = j->Co, Opad = j->Opad; \
        const int64_t Hi = j->Hi, Wi = j->Wi, Ho = j->Ho, Wo = j->Wo, HWi = Hi * Wi, HWo = Ho * Wo, TT = j->TH * j->TW; \
        const int64_t u0 = b * NR, nu = CT__MIN((int64_t)NR, j->tiles - u0);                   \
        float *V = ws, *M = ws + P * Ci * NR;                                                  \
        float db[P * NR], rb[RW + TA + 8];   /* rb: 8 floats for ct__wino_zero to spill into */ \
        /* runs: lanes [l0[k], l0[k] + R[k]) are consecutive tiles of one tile row */          \
        int64_t l0[NR], R[NR], xo[NR], yo[NR], ih[NR], iw[NR], nrun = 0;                       \
        for (int64_t l = 0; l < nu;) {                                                         \
            int64_t u = u0 + l, n = u / TT, th = u % TT / j->TW, tw = u % TT % j->TW;          \
            int64_t r = CT__MIN(nu - l, j->TW - tw);                                           \
            l0[nrun] = l; R[nrun] = r;                                                         \
            ih[nrun] = th * TM - j->ph; iw[nrun] = tw * TM - j->pw;                            \
            xo[nrun] = n * Ci * HWi; yo[nrun] = n * Co * HWo + th * TM * Wo + tw * TM;         \
            nrun++;                                                                            \
            l += r;                                                                            \
        }                                                                                      \
        memset(rb, 0, sizeof rb);                                                              \
        for (int64_t c = 0; c < Ci; c++) {   /* V[xi][c][lane] = (B^T d B)[xi] */              \
            for (int i = 0; i < TA; i++) {                                                     \
                /* rb: row ih + i of each run, TM columns per lane; db's rows i TA + q: lane t reads rb[TM t + q] */ \
                for (int64_t k = 0; k < nrun; k++) {                                           \
                    float *d = rb + TM * l0[k];                                                \
                    int64_t h = ih[k] + i, w0 = iw[k], nw = TM * R[k];                         \
                    if (h < 0 || h >= Hi) {                                                    \
                        ct__wino_zero(d, nw);                                                  \
                        continue;                                                              \
                    }                                                                          \
                    const float *xr = j->x + xo[k] + c * HWi + h * Wi;                         \
                    if (c + 2 < Ci)   /* the same row two channels on */                        \
                        for (int64_t f = CT__MAX((int64_t)0, w0); f < CT__MIN(w0 + nw, Wi); f += 16) \
                            CT__WINO_PF(xr + 2 * HWi + f, 0);                                 \
                    int64_t a = CT__MAX((int64_t)0, -w0), e = CT__MIN(nw, Wi - w0);            \
                    if (a > 0) ct__wino_zero(d, CT__MIN(a, nw));   /* before the copy: it spills */ \
                    if (e > a) ct__wino_cp(d + a, xr + w0 + a, e - a);                         \
                    int64_t z = CT__MIN(nw, CT__MAX(e, a));   /* the zeros right of the image */ \
                    if (z < nw) ct__wino_zero(d + z, nw - z);                                  \
                }                                                                              \
                float *dr = db + i * TA * NR;                                                  \
                for (int t = 0; t < NR; t++)                                                   \
                    for (int q = 0; q < TM; q++) dr[q * NR + t] = rb[TM * t + q];              \
                for (int t = 0; t < NR; t++)   /* the next lane's columns ... */               \
                    for (int q = 0; q < TA - TM; q++) dr[(TM + q) * NR + t] = rb[TM * t + TM + q]; \
                for (int q = TM; q < TA; q++) {                                                \
                    for (int64_t k = 0; k < nrun; k++) {   /* ... but at a run's end, its own */ \
                        int64_t l = l0[k] + R[k] - 1, h = ih[k] + i;                           \
                        int64_t w = iw[k] + TM * (R[k] - 1) + q;                               \
                        dr[q * NR + l] = h >= 0 && h < Hi && w >= 0 && w < Wi ? j->x[xo[k] + c * HWi + h * Wi + w] : 0.0f; \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
            for (int v = 0; v < NV; v++) {                                                     \
                ct__vf32 d[P], t[P];                                                           \
                for (int k = 0; k < P; k++) memcpy(&d[k], db + k * NR + v * HL, sizeof d[0]);  \
                for (int q = 0; q < TA; q++) BT(t + q, TA, d + q, TA);                         \
                for (int a = 0; a < TA; a++) BT(d + a * TA, 1, t + a * TA, 1);                 \
                for (int k = 0; k < P; k++) memcpy(V + (k * Ci + c) * NR + v * HL, &d[k], sizeof d[0]); \
            }                                                                                  \
        }                                                                                      \
        for (int xi = 0; xi < P; xi++)   /* M[xi] = U[xi] V[xi] */                             \
            for (int64_t k0 = 0; k0 < Ci; k0 += KC) {                                          \
                int64_t kc = CT__MIN(KC, Ci - k0);                                             \
                const float *pa = j->pu + xi * Opad * Ci + Opad * k0, *bp = V + (xi * Ci + k0) * NR; \
                for (int64_t i0 = 0; i0 < Opad; i0 += MR)                                      \
                    ct__gemm_ukr_f32(kc, pa + i0 * kc, bp, M + (xi * Opad + i0) * NR, NR, 1.0f, k0 ? 1.0f : 0.0f); \
            }                                                                                  \
        for (int64_t o = 0; o < Co; o++) {   /* the tile = A^T M A + bias, clipped */          \
            float bo = j->bias ? j->bias[o] : 0.0f;                                            \
            for (int v = 0; v < NV; v++) {                                                     \
                ct__vf32 m[P], t[TM * TA];                                                     \
                for (int k = 0; k < P; k++) memcpy(&m[k], M + (k * Opad + o) * NR + v * HL, sizeof m[0]); \
                for (int q = 0; q < TA; q++) AT(t + q, TA, m + q, TA);                         \
                for (int r = 0; r < TM; r++) AT(m + r * TM, 1, t + r * TA, 1);                 \
                for (int k = 0; k < TM * TM; k++) {                                            \
                    m[k] += bo;                                                                \
                    memcpy(db + k * NR + v * HL, &m[k], sizeof m[0]);                          \
                }                                                                              \
            }                                                                                  \
            for (int r = 0; r < TM; r++) {   /* output row r of every lane's tile, then of each run */ \
                const float *dr = db + r * TM * NR;                                            \
                for (int t = 0; t < NR; t++)                                                   \
                    for (int q = 0; q < TM; q++) rb[TM * t + q] = dr[q * NR + t];              \
                for (int64_t k = 0; k < nrun; k++) {                                           \
                    int64_t oh = ih[k] + j->ph + r;                                            \
                    if (oh >= Ho) continue;                                                    \
                    int64_t ow = iw[k] + j->pw, nw = CT__MIN(TM * R[k], Wo - ow);              \
                    if (o + 2 < Co)                                                            \
                        for (int64_t f = 0; f < nw; f += 16) CT__WINO_PF(j->y + yo[k] + (o + 2) * HWo + r * Wo + f, 1); \
                    if (j->relu) ct__wino_cp_relu(j->y + yo[k] + o * HWo + r * Wo, rb + TM * l0[k], nw); \
                    else ct__wino_cp(j->y + yo[k] + o * HWo + r * Wo, rb + TM * l0[k], nw);    \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    }
CT__WINO_DEF(2, 4, CT__WINO_BT2, CT__WINO_AT2, CT__WINO_G2)
CT__WINO_DEF(4, 6, CT__WINO_BT4, CT__WINO_AT4, CT__WINO_G4)
/* slots [lo, hi): slot t runs blocks [t nblk / nt, (t + 1) nblk / nt) with workspace t;
   the tile size is j->TM */
static void ct__wino_slots(void *ctx, int64_t lo, int64_t hi) {
    const ct__wino_job *j = (const ct__wino_job *)ctx;
    for (int64_t t = lo; t < hi; t++)
        for (int64_t b = t * j->nblk / j->nt; b < (t + 1) * j->nblk / j->nt; b++) {
            if (j->TM == 2) ct__wino_block_2(j, b, j->ws + t * j->wsz);
            else ct__wino_block_4(j, b, j->ws + t * j->wsz);
        }
}
#endif
/* The ops routed to Winograd: float32 NCHW, groups 1, 3x3, stride 1, dilation 1:
   conv2d (any padding) and conv_transpose2d (padding <= 2, the input gradient's
   shape), unless switched off; and only where it measured faster than the
   implicit GEMM / im2col paths: at least 16 input and output channels and
   64 or more output tiles over the batch. */
static int ct__conv_wino_ok(int kind, ct_dtype dt, const ct__cgeo *g) {
#ifdef CT__GEMM_SIMD
    const int64_t big = (int64_t)1 << 24;
    if (!ct__conv_wino_mode || dt != CT_FLOAT32 || g->cl || g->G != 1 || g->kh != 3 || g->kw != 3 || g->sh != 1 ||
        g->sw != 1 || g->dh != 1 || g->dw != 1 || kind == CT__CONV_WEIGHT)
        return 0;
    if (g->H >= big || g->W >= big || g->OH >= big || g->OW >= big || g->ph >= big || g->pw >= big || g->N >= big)
        return 0;
    int64_t Ci = g->C, Co = g->O, Ho = g->OH, Wo = g->OW, m = ct__conv_wino_mode == 2 ? 4 : 2;
    if (kind == CT__CONV_TRANSPOSE) {
        if (g->ph > 2 || g->pw > 2 || g->H != g->OH + 2 - 2 * g->ph || g->W != g->OW + 2 - 2 * g->pw) return 0;
        Ci = g->O; Co = g->C; Ho = g->H; Wo = g->W;
    }
    int64_t tiles = g->N * ((Ho + m - 1) / m) * ((Wo + m - 1) / m);
    return Ci >= 16 && Co >= 16 && tiles >= 64;
#else
    (void)kind;
    (void)dt;
    (void)g;
    return 0;
#endif
}
/* One routed op (ct__conv_wino_ok) on dense NCHW a and out: out = Y (CT__CONV_FWD,
   a = X) or X (CT__CONV_TRANSPOSE, a = G); b the weight [O][C][3][3]. 0, or -1 (out
   of memory) with the error set. */
static int ct__conv_wino_run(int kind, const float *a, const float *b, const float *bias, float *out, const ct__cgeo *g,
                             const char *nm, int relu) {
#ifdef CT__GEMM_SIMD
    const int64_t NR = CT__GEMM_NR_F32, MR = CT__GEMM_MR;
    ct__wino_job j;
    ct__wino_wjob wj;
    memset(&j, 0, sizeof j);
    memset(&wj, 0, sizeof wj);
    j.x = a; j.y = out; j.bias = bias; j.N = g->N; j.relu = relu;
    j.TM = ct__conv_wino_mode == 2 ? 4 : 2;
    if (kind == CT__CONV_FWD) {
        j.Ci = g->C; j.Hi = g->H; j.Wi = g->W; j.Co = g->O; j.Ho = g->OH; j.Wo = g->OW; j.ph = g->ph; j.pw = g->pw;
        wj.so = 9 * g->C; wj.sc = 9;
    } else {
        j.Ci = g->O; j.Hi = g->OH; j.Wi = g->OW; j.Co = g->C; j.Ho = g->H; j.Wo = g->W; j.ph = 2 - g->ph; j.pw = 2 - g->pw;
        wj.so = 9; wj.sc = 9 * g->C; wj.flip = 1;
    }
    const int64_t P = (j.TM + 2) * (j.TM + 2);
    j.TH = (j.Ho + j.TM - 1) / j.TM;
    j.TW = (j.Wo + j.TM - 1) / j.TM;
    j.tiles = j.N * j.TH * j.TW;
    j.nblk = (j.tiles + NR - 1) / NR;
    j.Opad = (j.Co + MR - 1) / MR * MR;
    j.wsz = (P * (j.Ci + j.Opad) * NR + 15) / 16 * 16;
    j.nt = 1;
    if (ct__par_threads() > 1 && P * j.Opad * j.Ci * j.nblk * NR >= CT__GEMM_PAR)
        j.nt = CT__MIN((int64_t)2 * ct__par_threads(), j.nblk);
    size_t usz = (sizeof(float) * (size_t)(P * j.Opad * j.Ci) + 63) / 64 * 64;
    /* the scratch comes from the thread's block cache (as tensor storage does): a
       run after the first allocates nothing (ctensor_jit.h's graph runs) */
    ct_storage *smem = ct__storage_new((int64_t)(64 + usz + sizeof(float) * (size_t)(j.nt * j.wsz)), ct__cpu_dev);
    ct_storage *stw = smem ? ct__storage_new((int64_t)(sizeof(float) * (size_t)(P * j.Co * j.Ci)), ct__cpu_dev) : NULL;
    if (!smem || !stw) {
        if (smem) ct__storage_decref(smem);
        ct_set_error(CT_ERR_MEMORY, "%s: out of memory", nm);
        return -1;
    }
    char *mem = (char *)smem->data;
    float *tw = (float *)stw->data;
    float *pu = (float *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
    j.pu = pu;
    j.ws = (float *)((char *)pu + usz);
    wj.pu = pu; wj.t = tw; wj.w = b; wj.Co = j.Co; wj.Ci = j.Ci; wj.Opad = j.Opad;
    ct__nn_par_for(j.Co, CT__MAX((int64_t)1, 4096 / j.Ci), j.TM == 2 ? ct__wino_weight_2 : ct__wino_weight_4, &wj);
    ct__nn_par_for(P, 1, ct__wino_pack, &wj);
    ct__storage_decref(stw);
    ct__nn_par_for(j.nt, 1, ct__wino_slots, &j);
    ct__storage_decref(smem);
    return 0;
#else
    (void)kind; (void)a; (void)b; (void)bias; (void)out; (void)g; (void)nm; (void)relu;
    return 0;
#endif
}

/* ct::conv2d_relu on a path without the epilogue: relu's pass over the (dense) output */
static void ct__conv_relu_pass(ct_tensor *out) {
    int64_t n = ct_numel(out);
    if (out->dtype == CT_FLOAT32) {
        float *p = (float *)ct__ptr(out);
        for (int64_t k = 0; k < n; k++) p[k] = p[k] < 0.0f ? 0.0f : p[k];
    } else {
        double *p = (double *)ct__ptr(out);
        for (int64_t k = 0; k < n; k++) p[k] = p[k] < 0.0 ? 0.0 : p[k];
    }
}
static int ct__k_conv_run(ct__call *c, int *relu);
static int ct__k_conv(ct__call *c) {
    int relu = c->op == CT__NNOP(CONV2D_RELU);   /* cleared by a path that applied it */
    int r = ct__k_conv_run(c, &relu);
    if (!r && relu) ct__conv_relu_pass(c->out[0]);
    return r;
}
static int ct__k_conv_run(ct__call *c, int *relu) {
    ct__cgeo g;
    if (ct__conv_geo(c, &g)) return -1;
    ct_tensor *out = c->out[0], *in[3], *tmp = NULL;
    if (ct_numel(out) == 0) return 0;
    if (ct__nn_dense_inputs(c, 2, g.cl, in)) return -1;
    ct_dtype dt = c->in[0]->dtype;
    size_t es = ct__dt[dt].size;
    int kind = CT__NN_CONV_FWD(c->op) ? CT__CONV_FWD : c->op == CT__NNOP(CONV_TRANSPOSE2D) ? CT__CONV_TRANSPOSE : CT__CONV_WEIGHT;
    if (ct__conv_is_dw(&g)) {
        int r = ct__conv_dw_run(kind, dt, ct__ptr(out), ct__ptr(in[0]), ct__ptr(in[1]), c->nin == 3 ? ct__ptr(in[2]) : NULL, &g,
                                ct__opdef_get(c->op)->name);
        ct__nn_release(c->nin, in);
        return r;
    }
    if (ct__conv_fold_ok(kind, &g)) {
        int r = ct__conv_fold_run(kind, dt, ct__ptr(out), ct__ptr(in[0]), ct__ptr(in[1]), c->nin == 3 ? ct__ptr(in[2]) : NULL, &g,
                                  ct__opdef_get(c->op)->name);
        ct__nn_release(c->nin, in);
        return r;
    }
    if (ct__conv_wino_ok(kind, dt, &g)) {
        int r = ct__conv_wino_run(kind, (const float *)ct__ptr(in[0]), (const float *)ct__ptr(in[1]),
                                  c->nin == 3 ? (const float *)ct__ptr(in[2]) : NULL, (float *)ct__ptr(out), &g,
                                  ct__opdef_get(c->op)->name, *relu);
        *relu = 0;
        ct__nn_release(c->nin, in);
        return r;
    }
    if (kind == CT__CONV_WEIGHT && ct__conv_clw_ok(&g, dt)) {
        int r = ct__conv_clw_run(dt, ct__ptr(out), ct__ptr(in[0]), ct__ptr(in[1]), &g, ct__opdef_get(c->op)->name);
        ct__nn_release(c->nin, in);
        return r;
    }
    if (ct__conv_clg_ok(kind, &g)) {
        int r = ct__conv_clg_run(kind, dt, ct__ptr(out), ct__ptr(in[0]), ct__ptr(in[1]), c->nin == 3 ? ct__ptr(in[2]) : NULL, &g,
                                 ct__opdef_get(c->op)->name);
        ct__nn_release(c->nin, in);
        return r;
    }
    int64_t Cg = g.C / g.G, K = Cg * g.kh * g.kw, L = g.OH * g.OW;
    int nt = 1, rc = -1;
    /* slots of samples, one workspace each: twice the threads (a late thread takes fewer) */
    if (g.N > 1 && g.N * g.O * K * L >= CT__GEMM_PAR && ct__par_threads() > 1) nt = (int)CT__MIN((int64_t)2 * ct__par_threads(), g.N);
    int64_t wsz = K * L + (kind == CT__CONV_WEIGHT ? g.O * K : 0), extra = 0;
    /* the implicit GEMM runs one sample per thread: with a single slot on several
       threads the im2col path's threaded GEMM is faster */
    int ig = kind == CT__CONV_FWD && ct__conv_igemm_ok(dt, &g) && (nt > 1 || ct__par_threads() == 1);
    if (ig) {
        wsz = ct__igemm_slot_bytes(dt) / (int64_t)es;
        extra = ct__igemm_shared_bytes(dt, &g) + 64;
    }
    /* the workspace comes from the thread's block cache, as tensor storage does (a
       graph run after the first allocates nothing: ctensor_jit.h) */
    ct_storage *wss = ct__storage_new((int64_t)(es * (size_t)CT__MAX(wsz * nt, 1) + (size_t)extra), ct__cpu_dev);
    void *ws = wss ? wss->data : NULL;
    if (!ws) {
        ct_set_error(CT_ERR_MEMORY, "%s: out of memory", ct__opdef_get(c->op)->name);
        goto done;
    }
    if (kind == CT__CONV_WEIGHT) {
        /* per-thread accumulators after each thread's columns; thread 0 writes the output */
        for (int t = 1; t < nt; t++) memset((char *)ws + es * (size_t)(t * wsz + K * L), 0, es * (size_t)(g.O * K));
        if (g.cl) {   /* dW in NHWC order ([O][kh][kw][Cg]), copied into the output */
            int64_t st[4];
            ct__cl_strides(out->shape, st);
            if (!(tmp = ct__alloc(dt, 4, out->shape, st, out->device))) goto done;
        }
    }
    ct__conv_run(kind, dt, ct__ptr(tmp ? tmp : out), ws, ct__ptr(in[0]), ct__ptr(in[1]), c->nin == 3 ? ct__ptr(in[2]) : NULL, &g, wsz, nt, ig);
    if (tmp && ct__copy_into(out, tmp)) goto done;
    rc = 0;
done:
    ct__nn_release(c->nin, in);
    if (tmp) ct__decref(tmp);
    if (wss) ct__storage_decref(wss);
    return rc;
}

static ct_tensor *ct__conv_op(int op, const ct_tensor *x, const ct_tensor *y, const ct_tensor *bias, const ct__attrs *a) {
    return bias ? ct__op3(op, x, y, bias, a) : ct__op2(op, x, y, a);
}
/* attrs of the conv op a backward calls: this node's geometry (stride, padding,
   dilation, groups), the transposed op's output_size (v[8..9]: the spatial size
   of input `sz`), the weight op's kernel_size (v[6..7]: that of input `ks`) */
static ct__attrs ct__conv_bw_attrs(const ct__node *n, int sz, int ks) {
    ct__attrs b;
    ct__attrs_init(&b);
    for (int k = 0; k < 6; k++) b.v[k] = n->attrs.v[k];
    b.i[0] = n->attrs.i[0];
    b.v[8] = n->in_meta[sz].shape[2];
    b.v[9] = n->in_meta[sz].shape[3];
    b.v[6] = n->in_meta[ks].shape[2];
    b.v[7] = n->in_meta[ks].shape[3];
    return b;
}
/* sum over N, H, W: the bias gradient */
static ct_tensor *ct__conv_bias_grad(const ct_tensor *g) {
    int64_t d[3] = {0, 2, 3};
    return ct_sum_dims(g, 3, d, 0);
}
static int ct__bw_conv(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *A = CT__SV_IN(n, 0), *B = CT__SV_IN(n, 1), *g = gout[0];
    if (!A || !B) return -1;
    if (n->op == CT__NNOP(CONV2D_RELU)) {   /* relu's backward first: where(y > 0, g, 0) */
        ct_tensor *Y = CT__SV_OUT(n, 0);
        if (!Y || !(g = ct_where_scalar(ct_gt_scalar(Y, 0.0), g, 0.0))) return -1;
    }
    ct__attrs b = ct__conv_bw_attrs(n, 0, 1);
    const ct__attrs *a = &b;
    if (CT__NN_CONV_FWD(n->op)) {   /* A = X, B = W */
        /* as PyTorch: grad_output in the input's memory format (the input gradient is then
           channels-last exactly when X is, and both gradients take X's layout's kernels) */
        int acl = ct__suggest_cl(A) || ct__suggest_cl(B);
        if ((CT__NEEDS(n, 0) || CT__NEEDS(n, 1)) && acl != ct__suggest_cl(g) && !(g = acl ? ct_to_channels_last(g) : ct_contiguous(g)))
            return -1;
        if (CT__NEEDS(n, 0) && !(gin[0] = ct__conv_op(CT__NNOP(CONV_TRANSPOSE2D), g, B, NULL, a))) return -1;
        if (CT__NEEDS(n, 1) && !(gin[1] = ct__conv_op(CT__NNOP(CONV2D_WEIGHT), A, g, NULL, a))) return -1;
        /* PyTorch's weight gradient is in the convolution's memory format too */
        if (CT__NEEDS(n, 1) && acl) {
            int64_t st[4];
            ct__cl_strides(gin[1]->shape, st);
            /* (a 1x1 kernel's contiguous gradient is channels-last already: PyTorch's
               slow path keeps it, as ct_contiguous_format would) */
            int same = gin[1]->shape[2] == 1 && gin[1]->shape[3] == 1 && ct_is_channels_last(gin[1]);
            if (!same) {
                same = 1;
                for (int d = 0; d < 4; d++) same &= gin[1]->strides[d] == st[d];
            }
            if (!same && !(gin[1] = ct_to_channels_last(gin[1]))) return -1;
        }
    } else if (n->op == CT__NNOP(CONV_TRANSPOSE2D)) {   /* A = G, B = W */
        if (CT__NEEDS(n, 0) && !(gin[0] = ct__conv_op(CT__NNOP(CONV2D), g, B, NULL, a))) return -1;
        if (CT__NEEDS(n, 1) && !(gin[1] = ct__conv_op(CT__NNOP(CONV2D_WEIGHT), g, A, NULL, a))) return -1;
    } else {   /* A = X, B = G, g = grad of dW */
        if (CT__NEEDS(n, 0) && !(gin[0] = ct__conv_op(CT__NNOP(CONV_TRANSPOSE2D), B, g, NULL, a))) return -1;
        if (CT__NEEDS(n, 1) && !(gin[1] = ct__conv_op(CT__NNOP(CONV2D), A, g, NULL, a))) return -1;
    }
    if (n->nin > 2 && CT__NEEDS(n, 2) && !(gin[2] = ct__conv_bias_grad(g))) return -1;
    return 0;
}

/* ---- public convolution functions ---- */
static const char *ct__conv_tname(ct_dtype dt) {   /* "torch.FloatTensor" */
    static const char *const nm[CT_NUM_DTYPES] = {
        "torch.FloatTensor", "torch.DoubleTensor", "torch.HalfTensor", "torch.BFloat16Tensor", "torch.LongTensor",
        "torch.IntTensor", "torch.ShortTensor", "torch.CharTensor", "torch.ByteTensor", "torch.BoolTensor",
        "torch.QInt8Tensor", "torch.QUInt8Tensor", "torch.QInt32Tensor", "torch.ComplexFloatTensor", "torch.ComplexDoubleTensor"};
    return ct__dt_ok(dt) ? nm[dt] : "invalid";
}
static void ct__pair(int64_t s, const int64_t *hw, int64_t def, int64_t *out) {
    if (hw && (hw[0] || hw[1])) { out[0] = hw[0]; out[1] = hw[1]; }
    else out[0] = out[1] = s ? s : def;
}
/* The shared front of conv1d/conv2d/conv_transpose2d: x and w are 4-D here. dims: 1 or 2. */
static ct_tensor *ct__conv_front(const char *nm, int transposed, int dims, const ct_tensor *x, const ct_tensor *w,
                                 const ct_tensor *bias, const ct_conv_options *o) {
    ct_conv_options z;
    memset(&z, 0, sizeof z);
    if (!o) o = &z;
    int64_t st[2], pd[2], dl[2], op[2], grp = o->groups ? o->groups : 1;
    ct__pair(o->stride, o->stride_hw, 1, st);
    ct__pair(o->padding, o->padding_hw, 0, pd);
    ct__pair(o->dilation, o->dilation_hw, 1, dl);
    ct__pair(o->output_padding, o->output_padding_hw, 0, op);
    if (dims == 1) { st[1] = st[0]; st[0] = 1; pd[1] = pd[0]; pd[0] = 0; dl[1] = dl[0]; dl[0] = 1; op[1] = op[0]; op[0] = 0; }
    if (x->dtype != w->dtype)
        return ct__fail(CT_ERR_DTYPE, "%s: Input type (%s) and weight type (%s) should be the same or input should be a MKLDNN tensor and weight is a dense tensor",
                        nm, ct__conv_tname(x->dtype), ct__conv_tname(w->dtype));
    if (bias && bias->dtype != x->dtype)
        return ct__fail(CT_ERR_DTYPE, "%s: Input type (%s) and bias type (%s) should be the same", nm,
                        ct__dt[x->dtype].name, ct__dt[bias->dtype].name);
    /* float16 and bfloat16: on a device whose backend has the kernels (ctensor_cuda.h's take them) */
    if (x->dtype != CT_FLOAT32 && x->dtype != CT_FLOAT64 && !((x->dtype == CT_FLOAT16 || x->dtype == CT_BFLOAT16) && x->device.type == CT_CUDA))
        return ct__fail(CT_ERR_DTYPE, "%s: not implemented for '%s' (ctensor convolutions run in float32 and float64; float16 and bfloat16 on a GPU)", nm,
                        CT__DTNAME(x->dtype));
    if (st[0] <= 0 || st[1] <= 0) return ct__fail(CT_ERR_ARG, "%s: non-positive stride is not supported", nm);
    if (pd[0] < 0 || pd[1] < 0) return ct__fail(CT_ERR_ARG, "%s: negative padding is not supported", nm);
    if (dl[0] <= 0 || dl[1] <= 0) return ct__fail(CT_ERR_ARG, "%s: non-positive dilation is not supported", nm);
    if (op[0] < 0 || op[1] < 0) return ct__fail(CT_ERR_ARG, "%s: negative output_padding is not supported", nm);
    if (grp <= 0) return ct__fail(CT_ERR_ARG, "%s: non-positive groups is not supported", nm);
    if (w->shape[0] % grp)
        return ct__fail(CT_ERR_SHAPE, "%s: Given groups=%lld, expected weight to be divisible by %lld at dimension 0, but got weight of size [%s] instead",
                        nm, (long long)grp, (long long)grp, CT__SHAPE(w));
    int64_t nbias = transposed ? ct__sat_mul(w->shape[1], grp) : w->shape[0];
    if (bias && (bias->ndim != 1 || bias->shape[0] != nbias))
        return ct__fail(CT_ERR_SHAPE, "%s: Given weight of size %s, expected bias to be 1-dimensional with %lld elements, but got bias of size %s instead",
                        nm, CT__SHAPE(w), (long long)nbias, CT__SHAPE(bias));
    int64_t cin = transposed ? w->shape[0] : ct__sat_mul(w->shape[1], grp);
    if (x->shape[1] != cin)
        return ct__fail(CT_ERR_SHAPE, "%s: Given %s=%lld, weight of size %s, expected input%s to have %lld channels, but got %lld channels instead",
                        nm, transposed ? "transposed" : "groups", (long long)(transposed ? 1 : grp), CT__SHAPE(w), CT__SHAPE(x),
                        (long long)cin, (long long)x->shape[1]);
    ct_tensor *xin = (ct_tensor *)x;
    if (o->padding_str) {
        if (transposed) return ct__fail(CT_ERR_ARG, "%s: padding strings are not supported for transposed convolutions", nm);
        if (!strcmp(o->padding_str, "valid")) {
            pd[0] = pd[1] = 0;
        } else if (!strcmp(o->padding_str, "same")) {
            if (st[0] != 1 || st[1] != 1) return ct__fail(CT_ERR_ARG, "%s: padding='same' is not supported for strided convolutions", nm);
            int64_t tot[2], extra[2];
            for (int k = 0; k < 2; k++) {
                tot[k] = ct__sat_mul(dl[k], w->shape[2 + k] - 1);
                pd[k] = tot[k] / 2;
                extra[k] = tot[k] - 2 * pd[k];
            }
            if (extra[0] || extra[1]) {   /* odd total padding: the extra row/column goes on the far side */
                int64_t pads[4] = {0, extra[1], 0, extra[0]};
                if (!(xin = ct_pad(x, 4, pads, "constant", 0.0))) return NULL;
            }
        } else {
            return ct__fail(CT_ERR_ARG, "%s: Invalid padding string: '%s'", nm, o->padding_str);
        }
    }
    ct__attrs a;
    ct__attrs_init(&a);
    a.v[0] = st[0]; a.v[1] = st[1]; a.v[2] = pd[0]; a.v[3] = pd[1]; a.v[4] = dl[0]; a.v[5] = dl[1];
    a.i[0] = grp;
    if (!transposed) {
        for (int k = 0; k < 2; k++) {
            /* saturating: a padding or dilation near 2^62 is refused, never wrapped */
            int64_t padded = ct__win_padded(xin->shape[2 + k], pd[k]), ks = ct__win_extent(w->shape[2 + k], dl[k]);
            if (padded < ks || padded == INT64_MAX)
                return ct__fail(CT_ERR_SHAPE, "%s: Calculated padded input size per channel: (%lld x %lld). Kernel size: (%lld x %lld). Kernel size can't be greater than actual input size",
                                nm, (long long)ct__win_padded(xin->shape[2], pd[0]), (long long)ct__win_padded(xin->shape[3], pd[1]),
                                (long long)ct__win_extent(w->shape[2], dl[0]), (long long)ct__win_extent(w->shape[3], dl[1]));
        }
        return ct__conv_op(CT__NNOP(CONV2D), xin, w, bias, &a);
    }
    if ((op[0] >= st[0] && op[0] >= dl[0]) || (op[1] >= st[1] && op[1] >= dl[1]))
        return ct__fail(CT_ERR_ARG, "%s: output padding must be smaller than either stride or dilation, but got output_padding_height: %lld output_padding_width: %lld stride_height: %lld stride_width: %lld dilation_height: %lld dilation_width: %lld",
                        nm, (long long)op[0], (long long)op[1], (long long)st[0], (long long)st[1], (long long)dl[0], (long long)dl[1]);
    /* saturating: a stride or dilation near 2^62 gives a size the dispatcher refuses, never a wrapped one */
    for (int k = 0; k < 2; k++)
        a.v[8 + k] = ct__sat_add(ct__sat_sub(ct__sat_mul(x->shape[2 + k] - 1, st[k]), ct__sat_mul(2, pd[k])),
                                 ct__sat_add(ct__win_extent(w->shape[2 + k], dl[k]), op[k]));
    if (a.v[8] <= 0 || a.v[9] <= 0)   /* both sizes computed first: the message prints both */
        return ct__fail(CT_ERR_SHAPE, "%s: Given input size per channel: (%lld x %lld). Calculated output size per channel: (%lld x %lld). Output size is too small",
                        nm, (long long)x->shape[2], (long long)x->shape[3], (long long)a.v[8], (long long)a.v[9]);
    /* PyTorch 1.13's CPU conv_transpose2d (slow_conv_transpose2d) computes and returns
       contiguous tensors whatever the input's memory format */
    if (dims == 2 && ct__suggest_cl(x)) x = ct_contiguous(x);
    return ct__conv_op(CT__NNOP(CONV_TRANSPOSE2D), x, w, bias, &a);
}

static ct_tensor *ct__conv_entry(const char *nm, int transposed, int dims, const ct_tensor *x, const ct_tensor *w,
                                 const ct_tensor *bias, const ct_conv_options *o) {
    if (!x) { ct__null_arg(nm, 0); return NULL; }
    if (!w) { ct__null_arg(nm, 1); return NULL; }
    int nd = dims + 2;
    if (x->ndim != nd && x->ndim != nd - 1)
        return ct__fail(CT_ERR_SHAPE, "%s: Expected %dD (unbatched) or %dD (batched) input to %s, but got input of size: %s",
                        nm, nd - 1, nd, nm, CT__SHAPE(x));
    if (w->ndim != nd)
        return ct__fail(CT_ERR_SHAPE, "%s: Expected %d-dimensional weight for %d-dimensional input %s, but got weight of size %s instead",
                        nm, nd, x->ndim, CT__SHAPE(x), CT__SHAPE(w));
    int s = ct_scope_begin();
    const ct_tensor *xb = x->ndim == nd ? x : ct_unsqueeze(x, 0), *wb = w;
    if (dims == 1) {
        xb = ct_unsqueeze(xb, 2);
        wb = ct_unsqueeze(w, 2);
    }
    ct_tensor *y = xb && wb ? ct__conv_front(nm, transposed, dims, xb, wb, bias, o) : NULL;
    if (y && dims == 1) y = ct_squeeze_dim(y, 2);
    if (y && x->ndim != nd) y = ct_squeeze_dim(y, 0);
    ct_keep(y);
    ct_scope_end(s);
    return y;
}
CTENSOR_API ct_tensor *ct_conv2d(const ct_tensor *x, const ct_tensor *w, const ct_tensor *b, const ct_conv_options *o) {
    return ct__conv_entry("conv2d", 0, 2, x, w, b, o);
}
CTENSOR_API ct_tensor *ct_conv1d(const ct_tensor *x, const ct_tensor *w, const ct_tensor *b, const ct_conv_options *o) {
    return ct__conv_entry("conv1d", 0, 1, x, w, b, o);
}
CTENSOR_API ct_tensor *ct_conv_transpose2d(const ct_tensor *x, const ct_tensor *w, const ct_tensor *b, const ct_conv_options *o) {
    return ct__conv_entry("conv_transpose2d", 1, 2, x, w, b, o);
}

/* ---- pooling ----
   Attributes: v[0..1] kernel_size, v[2..3] stride, v[4..5] padding, v[6..7]
   dilation (max); flags: 1 ceil_mode, 2 count_include_pad; i[0] divisor_override;
   v[8..9] input_size (the backward ops: the size of the input they give the
   gradient of), v[10..11] output_size (adaptive). The kernels see the plane sizes
   in v[8..11] (H, W, OH, OW), filled from the tensors by ct__k_pool. All outputs
   keep the input's memory format. Indices are h * W + w within each plane. */
static int64_t ct__pool_out(int64_t in, int64_t k, int64_t p, int64_t s, int64_t d, int ceil_mode) {
    /* padded input and dilated window each within int64 (else 0: too small), so no overflow */
    int64_t padded = ct__win_padded(in, p), ext = ct__win_extent(k, d);
    if (padded == INT64_MAX || ext == INT64_MAX) return 0;
    int64_t num = ct__sat_add(padded - ext, ceil_mode ? s - 1 : 0);
    int64_t q = num / s;
    if ((num % s != 0) && ((num < 0) != (s < 0))) q--;   /* floor division */
    int64_t out = q + 1;
    if (ceil_mode && out > 1 && (out - 1) * s >= in + p) out--;
    return out;
}
/* The output plane osz[2] of a pooling window over an H x W plane (kernel, stride,
   padding, dilation in a->v[0..7], ceil_mode in flags bit 0; dilation 1 unless
   dilated), checked as PyTorch does; half_pad: the padding may be at most half the
   kernel. 0, or -1 with the error set. Shared with ctensor_quant.h's quantized pools. */
static int ct__pool_geometry(const char *nm, const ct__attrs *a, int64_t H, int64_t W, int dilated, int half_pad, int64_t *osz) {
    for (int q = 0; q < 2; q++) {
        int64_t k = a->v[q], st = a->v[2 + q], pd = a->v[4 + q], dl = dilated ? a->v[6 + q] : 1;
        if (k <= 0 || st <= 0 || pd < 0 || dl <= 0 || (half_pad && pd > k / 2))
            return ct__failed(CT_ERR_ARG, "%s: invalid pooling geometry (kernel_size %lld, stride %lld, padding %lld, dilation %lld)", nm,
                              (long long)k, (long long)st, (long long)pd, (long long)dl);
        osz[q] = ct__pool_out(q ? W : H, k, pd, st, dl, a->flags & 1);
    }
    if (osz[0] < 1 || osz[1] < 1)
        return ct__failed(CT_ERR_SHAPE, "%s: Given input size: (%lldx%lld). Calculated output size: (%lldx%lld). Output size is too small", nm,
                          (long long)H, (long long)W, (long long)osz[0], (long long)osz[1]);
    return 0;
}
static int ct__meta_pool(ct__call *c) {
    const char *nm = ct__opdef_get(c->op)->name;
    const ct_tensor *x = c->in[0];
    const ct__attrs *a = c->a;
    if (x->ndim != 4) return ct__failed(CT_ERR_SHAPE, "%s: expected a 4-D input, got %s", nm, CT__SHAPE(x));
    if (x->dtype != CT_FLOAT32 && x->dtype != CT_FLOAT64)
        return ct__failed(CT_ERR_DTYPE, "%s: \"%s\" not implemented for '%s'", nm, nm, CT__DTNAME(x->dtype));
    int bw = c->op == CT__NNOP(MAX_POOL2D_BACKWARD) || c->op == CT__NNOP(AVG_POOL2D_BACKWARD) || c->op == CT__NNOP(ADAPTIVE_AVG_POOL2D_BACKWARD);
    int adaptive = c->op == CT__NNOP(ADAPTIVE_AVG_POOL2D) || c->op == CT__NNOP(ADAPTIVE_AVG_POOL2D_BACKWARD);
    int isavg = c->op == CT__NNOP(AVG_POOL2D) || c->op == CT__NNOP(AVG_POOL2D_BACKWARD);
    /* the input (forward) and pooled (backward: the gradient's) plane sizes */
    int64_t H = bw ? a->v[8] : x->shape[2], W = bw ? a->v[9] : x->shape[3], osz[2] = {0, 0};
    if (H < 1 || W < 1) return ct__failed(CT_ERR_ARG, "%s: input_size (%lld, %lld) must be positive", nm, (long long)H, (long long)W);
    if (adaptive) {
        osz[0] = bw ? x->shape[2] : a->v[10];
        osz[1] = bw ? x->shape[3] : a->v[11];
        if (osz[0] < 0 || osz[1] < 0)
            return ct__failed(CT_ERR_ARG, "%s: output_size must be non-negative, got (%lld, %lld)", nm, (long long)osz[0], (long long)osz[1]);
    } else {
        if (ct__pool_geometry(nm, a, H, W, !isavg, 0, osz)) return -1;
        if (bw && (x->shape[2] != osz[0] || x->shape[3] != osz[1]))
            return ct__failed(CT_ERR_SHAPE, "%s: gradient of size %s does not match the pooled size %lldx%lld", nm, CT__SHAPE(x), (long long)osz[0], (long long)osz[1]);
    }
    if (c->op == CT__NNOP(MAX_POOL2D_BACKWARD)) {
        const ct_tensor *ix = c->in[1];
        if (ix->dtype != CT_INT64 || !ct_same_shape(ix, x))
            return ct__failed(CT_ERR_SHAPE, "%s: indices must be int64 of the gradient's shape %s, got %s", nm, CT__SHAPE(x), CT__SHAPE(ix));
    }
    int cl = ct__suggest_cl(x);
    c->nout = c->op == CT__NNOP(MAX_POOL2D) ? 2 : 1;
    int64_t shape[4] = {x->shape[0], x->shape[1], bw ? H : osz[0], bw ? W : osz[1]};
    for (int j = 0; j < c->nout; j++) ct__nn_out(&c->oi[j], j ? CT_INT64 : x->dtype, 4, shape, cl);
    return 0;
}

/* the pooling geometry the attributes carry */
typedef struct ct__pgeo {
    int64_t kh, kw, sh, sw, ph, pw, dh, dw, H, W, OH, OW;
    int count_include_pad;
    int64_t divisor;   /* divisor_override; 0: none */
} ct__pgeo;
static void ct__pool_geo(const ct__attrs *a, ct__pgeo *g) {
    g->kh = a->v[0]; g->kw = a->v[1]; g->sh = a->v[2]; g->sw = a->v[3]; g->ph = a->v[4]; g->pw = a->v[5];
    g->dh = a->v[6]; g->dw = a->v[7]; g->H = a->v[8]; g->W = a->v[9]; g->OH = a->v[10]; g->OW = a->v[11];
    g->count_include_pad = (a->flags & 2) != 0;
    g->divisor = a->i[0];
}
CT__INLINE int64_t ct__adapt_start(int64_t o, int64_t in, int64_t out) { return o * in / out; }
CT__INLINE int64_t ct__adapt_end(int64_t o, int64_t in, int64_t out) { return ((o + 1) * in + out - 1) / out; }
/* The window of output (oh, ow) clipped to the input, [h0, h1) x [w0, w1), and its
   divisor: adaptive_avg_pool2d's windows, or avg_pool2d's with PyTorch's rules (the
   window's size within the padded input, or the clipped size without
   count_include_pad, or divisor_override) */
CT__INLINE int64_t ct__pool_window(const ct__pgeo *g, int adaptive, int64_t oh, int64_t ow, int64_t *h0, int64_t *h1, int64_t *w0,
                                   int64_t *w1) {
    if (adaptive) {
        *h0 = ct__adapt_start(oh, g->H, g->OH); *h1 = ct__adapt_end(oh, g->H, g->OH);
        *w0 = ct__adapt_start(ow, g->W, g->OW); *w1 = ct__adapt_end(ow, g->W, g->OW);
        return (*h1 - *h0) * (*w1 - *w0);
    }
    int64_t hs = oh * g->sh - g->ph, ws = ow * g->sw - g->pw;
    int64_t he = CT__MIN(hs + g->kh, g->H + g->ph), we = CT__MIN(ws + g->kw, g->W + g->pw);
    int64_t pool = (he - hs) * (we - ws);
    *h0 = CT__MAX(hs, 0); *w0 = CT__MAX(ws, 0); *h1 = CT__MIN(he, g->H); *w1 = CT__MIN(we, g->W);
    if (g->divisor) return g->divisor;
    return g->count_include_pad ? pool : (*h1 - *h0) * (*w1 - *w0);
}

/* max_pool2d over one (n, c) plane: y and ind (OH x OW, strides yh, yw) from x (H x W,
   strides xh, xw); ind is h * W + w. PyTorch's rule: a later NaN or a strictly larger
   value wins; a window with no element inside the input gives -inf. */
CT__INLINE void ct__maxpool_plane(ct_dtype dt, void *y, int64_t *ind, int64_t yh, int64_t yw, const void *x, int64_t xh, int64_t xw,
                                  const ct__pgeo *g) {
    const int64_t kh = g->kh, kw = g->kw, sh = g->sh, sw = g->sw, ph = g->ph, pw = g->pw, dh = g->dh, dw = g->dw;
    const int64_t H = g->H, W = g->W, OH = g->OH, OW = g->OW;
    int64_t fh = 0, fw = 0;
    if (kh == 2 && kw == 2 && sh == 2 && sw == 2 && ph == 0 && pw == 0 && dh == 1 && dw == 1 && xw == 1 && yw == 1) {
        /* 2x2, stride 2: the windows [0, fh) x [0, fw) that lie inside the input (all
           but ceil_mode's partial last row and column) */
        fh = CT__MIN(OH, H / 2);
        fw = CT__MIN(OW, W / 2);
        CT__NN_AS(dt, {
            for (int64_t oh = 0; oh < fh; oh++) {
                const T *r0 = (const T *)x + 2 * oh * xh, *r1 = r0 + xh;
                T *yr = (T *)y + oh * yh;
                int64_t *ir = ind + oh * yh, base = 2 * oh * W;
                for (int64_t ow = 0; ow < fw; ow++) {
                    /* selects, not branches: which element wins is data (a coin toss for the predictor) */
                    const T *p0 = r0 + 2 * ow, *p1 = r1 + 2 * ow;
                    int64_t i0 = base + 2 * ow, mi = i0;
                    T m = p0[0], v;
                    int c;
                    v = p0[1]; c = (v > m) | (v != v); m = c ? v : m; mi = c ? i0 + 1 : mi;
                    v = p1[0]; c = (v > m) | (v != v); m = c ? v : m; mi = c ? i0 + W : mi;
                    v = p1[1]; c = (v > m) | (v != v); m = c ? v : m; mi = c ? i0 + W + 1 : mi;
                    yr[ow] = m;
                    ir[ow] = mi;
                }
            }
        });
    }
    /* the other windows, clipped to the input. Dense rows without dilation: the
       columns [oa, ob) whose windows lie inside the row take a loop over the taps
       (rows, then columns, PyTorch's order) with the output columns innermost, as
       selects the compiler vectorizes (stride 1 and 2 as constants); the rest below */
    CT__NN_AS(dt, {
        const T *xp = (const T *)x;
        for (int64_t oh = 0; oh < OH; oh++) {
            int64_t h0 = oh * sh - ph, h1 = CT__MIN(h0 + (kh - 1) * dh + 1, H);
            while (h0 < 0) h0 += dh;
            int64_t oa = oh < fh ? fw : 0, ob = oa;
            if (xw == 1 && yw == 1 && dh == 1 && dw == 1 && h0 < h1 && (sw == 1 || sw == 2)) {
                oa = CT__MAX(oa, (pw + sw - 1) / sw);
                ob = W - kw + pw >= 0 ? CT__MIN(OW, (W - kw + pw) / sw + 1) : 0;
                ob = CT__MAX(ob, oa);
                T *CT_RESTRICT yr = (T *)y + oh * yh;
                int64_t *CT_RESTRICT ir = ind + oh * yh;
                for (int64_t ow = oa; ow < ob; ow++) {
                    yr[ow] = (T)-INFINITY;
                    ir[ow] = h0 * W + ow * sw - pw;
                }
                for (int64_t ih = h0; ih < h1; ih++)
                    for (int64_t j = 0; j < kw; j++) {
                        const T *CT_RESTRICT xr = xp + ih * xh + j - pw;
                        const int64_t base = ih * W + j - pw;
                        if (sw == 1)
                            for (int64_t ow = oa; ow < ob; ow++) {
                                T v = xr[ow], m = yr[ow];
                                int c = (v > m) | (v != v);
                                yr[ow] = c ? v : m;
                                ir[ow] = c ? base + ow : ir[ow];
                            }
                        else
                            for (int64_t ow = oa; ow < ob; ow++) {
                                T v = xr[2 * ow], m = yr[ow];
                                int c = (v > m) | (v != v);
                                yr[ow] = c ? v : m;
                                ir[ow] = c ? base + 2 * ow : ir[ow];
                            }
                    }
            }
            for (int64_t ow = oh < fh ? fw : 0; ow < OW; ow++) {
                if (ow == oa && ob > oa) {
                    ow = ob - 1;
                    continue;
                }
                int64_t w0 = ow * sw - pw, w1 = CT__MIN(w0 + (kw - 1) * dw + 1, W);
                while (w0 < 0) w0 += dw;
                int64_t mi = h0 * W + w0;
                T m = (T)-INFINITY;
                for (int64_t ih = h0; ih < h1; ih += dh)
                    for (int64_t iw = w0; iw < w1; iw += dw) {
                        T v = xp[ih * xh + iw * xw];
                        if (v > m || v != v) { m = v; mi = ih * W + iw; }
                    }
                ((T *)y)[oh * yh + ow * yw] = m;
                ind[oh * yh + ow * yw] = mi;
            }
        }
    });
}
/* max_pool2d's backward over one plane: dx (H x W, strides xh, xw; zeroed) += gy
   (OH x OW, strides gh, gw) at the indices ind (strides ih_, iw_) */
CT__INLINE void ct__maxpool_bwd_plane(ct_dtype dt, void *dx, int64_t xh, int64_t xw, const void *gy, int64_t gh, int64_t gw,
                                      const int64_t *ind, int64_t ih_, int64_t iw_, const ct__pgeo *g) {
    const int64_t W = g->W, HW = g->H * g->W, OH = g->OH, OW = g->OW;
    CT__NN_AS(dt, {
        T *o = (T *)dx;
        for (int64_t oh = 0; oh < OH; oh++) {
            const int64_t *ir = ind + oh * ih_;
            const T *gr = (const T *)gy + oh * gh;
            if (xw == 1 && xh == W) {   /* a dense plane: the flat index is the offset (no division per element) */
                for (int64_t ow = 0; ow < OW; ow++) {
                    int64_t k = ir[ow * iw_];
                    if ((uint64_t)k < (uint64_t)HW) o[k] += gr[ow * gw];
                }
            } else {
                for (int64_t ow = 0; ow < OW; ow++) {
                    int64_t k = ir[ow * iw_];
                    if (k >= 0 && k < HW) o[(k / W) * xh + (k % W) * xw] += gr[ow * gw];
                }
            }
        }
    });
}
/* avg_pool2d (adaptive: adaptive_avg_pool2d) over one plane. Forward (bwd = 0):
   out (OH x OW, strides os_h, os_w) = the window sums of in (H x W, strides is_h,
   is_w) over their divisors. Backward (bwd = 1): out (H x W; zeroed) += each of in
   (OH x OW) over its divisor, spread over its window. */
CT__INLINE void ct__avgpool_plane(ct_dtype dt, int adaptive, int bwd, void *out, int64_t os_h, int64_t os_w, const void *in, int64_t is_h,
                                  int64_t is_w, const ct__pgeo *g) {
    CT__NN_AS(dt, {
        T *o = (T *)out;
        const T *x = (const T *)in;
        for (int64_t oh = 0; oh < g->OH; oh++)
            for (int64_t ow = 0; ow < g->OW; ow++) {
                int64_t h0, h1, w0, w1;
                T div = (T)ct__pool_window(g, adaptive, oh, ow, &h0, &h1, &w0, &w1);
                if (!bwd) {
                    T s = 0;
                    for (int64_t ih = h0; ih < h1; ih++) {
                        const T *xr = x + ih * is_h;
                        for (int64_t iw = w0; iw < w1; iw++) s += xr[iw * is_w];
                    }
                    o[oh * os_h + ow * os_w] = h0 < h1 && w0 < w1 ? s / div : (T)0;
                } else {
                    T gv = x[oh * is_h + ow * is_w] / div;
                    for (int64_t ih = h0; ih < h1; ih++)
                        for (int64_t iw = w0; iw < w1; iw++) o[ih * os_h + iw * os_w] += gv;
                }
            }
    });
}
enum { CT__POOL_MAX, CT__POOL_MAX_BWD, CT__POOL_AVG, CT__POOL_AVG_BWD, CT__POOL_ADAPTIVE, CT__POOL_ADAPTIVE_BWD };
/* One plane of a pooling op: out (and max_pool2d's indices oind, laid out as out) from
   in (and, for its backward, the indices iind); os, is, iis: 4-D strides. The kernels
   above are inlined here: kept out of the threaded loop's body, they compile to faster code. */
static CT__NOINLINE void ct__pool_plane(int kind, ct_dtype dt, char *out, const int64_t *os, int64_t *oind, const char *in,
                                        const int64_t *is, const int64_t *iind, const int64_t *iis, const ct__pgeo *g) {
    int bwd = kind == CT__POOL_AVG_BWD || kind == CT__POOL_ADAPTIVE_BWD;
    switch (kind) {
    case CT__POOL_MAX: ct__maxpool_plane(dt, out, oind, os[2], os[3], in, is[2], is[3], g); break;
    case CT__POOL_MAX_BWD: ct__maxpool_bwd_plane(dt, out, os[2], os[3], in, is[2], is[3], iind, iis[2], iis[3], g); break;
    case CT__POOL_AVG: case CT__POOL_AVG_BWD: ct__avgpool_plane(dt, 0, bwd, out, os[2], os[3], in, is[2], is[3], g); break;
    default: ct__avgpool_plane(dt, 1, bwd, out, os[2], os[3], in, is[2], is[3], g); break;
    }
}
/* One pooling op over the N x C planes of 4-D tensors (data and strides; oind has
   out's strides); the backward ops accumulate: their out must be zeroed. */
typedef struct ct__pool_job {
    int kind;
    ct_dtype dt;
    char *out;
    const int64_t *os, *is, *iind, *iis;
    int64_t *oind;
    const char *in;
    int64_t C;
    const ct__pgeo *g;
} ct__pool_job;
static void ct__pool_planes(void *c, int64_t lo, int64_t hi) {
    const ct__pool_job *j = (const ct__pool_job *)c;
    const int64_t es = ct__dt[j->dt].size, *os = j->os, *is = j->is, *iis = j->iis;
    for (int64_t p = lo; p < hi; p++) {
        int64_t n = p / j->C, ch = p % j->C;
        ct__pool_plane(j->kind, j->dt, j->out + es * (n * os[0] + ch * os[1]), os, j->oind ? j->oind + n * os[0] + ch * os[1] : NULL,
                       j->in + es * (n * is[0] + ch * is[1]), is, j->iind ? j->iind + n * iis[0] + ch * iis[1] : NULL, iis, j->g);
    }
}
static void ct__pool_run(int kind, ct_dtype dt, void *out, const int64_t *os, int64_t *oind, const void *in, const int64_t *is,
                         const int64_t *iind, const int64_t *iis, int64_t N, int64_t C, int par, const ct__pgeo *g) {
    ct__pool_job j = {kind, dt, (char *)out, os, is, iind, iis, oind, (const char *)in, C, g};
    ct__par_for(N * C, par ? 1 : N * C, ct__pool_planes, &j);
}

/* max_pool2d on dense channels-last data (x, y and the indices NHWC): output rows
   [lo, hi) of the N*OH, each pixel's window taps in PyTorch's order with the
   channels innermost (selects the compiler vectorizes); the plane kernel would
   read every element with a stride of C */
typedef struct {
    ct_dtype dt;
    char *y;
    int64_t *yi;
    const char *x;
    int64_t C;
    const ct__pgeo *g;
} ct__mpcl_job;
static CT__NN_FPC void ct__maxpool_nhwc(void *ctx, int64_t lo, int64_t hi) {
    const ct__mpcl_job *j = (const ct__mpcl_job *)ctx;
    const ct__pgeo *g = j->g;
    const int64_t C = j->C, H = g->H, W = g->W, OH = g->OH, OW = g->OW;
    CT__NN_AS(j->dt, {
        for (int64_t r = lo; r < hi; r++) {
            int64_t n = r / OH, oh = r % OH;
            int64_t h0 = oh * g->sh - g->ph, h1 = CT__MIN(h0 + (g->kh - 1) * g->dh + 1, H);
            while (h0 < 0) h0 += g->dh;
            for (int64_t ow = 0; ow < OW; ow++) {
                int64_t w0 = ow * g->sw - g->pw, w1 = CT__MIN(w0 + (g->kw - 1) * g->dw + 1, W);
                while (w0 < 0) w0 += g->dw;
                T *CT_RESTRICT y = (T *)j->y + (r * OW + ow) * C;
                int64_t *CT_RESTRICT yi = j->yi + (r * OW + ow) * C, first = h0 * W + w0;
                for (int64_t c = 0; c < C; c++) {
                    y[c] = (T)-INFINITY;
                    yi[c] = first;
                }
                for (int64_t ih = h0; ih < h1; ih += g->dh)
                    for (int64_t iw = w0; iw < w1; iw += g->dw) {
                        const T *CT_RESTRICT xr = (const T *)j->x + ((n * H + ih) * W + iw) * C;
                        const int64_t idx = ih * W + iw;
                        for (int64_t c = 0; c < C; c++) {
                            T v = xr[c], m = y[c];
                            int k = (v > m) | (v != v);
                            y[c] = k ? v : m;
                            yi[c] = k ? idx : yi[c];
                        }
                    }
            }
        }
    });
}
static int ct__k_pool(ct__call *c) {
    const ct_tensor *x = c->in[0], *ix = c->nin > 1 ? c->in[1] : NULL;
    ct_tensor *y = c->out[0], *yi = c->nout > 1 ? c->out[1] : NULL;
    int op = c->op - ct__nn_base;
    int kind = op == CT__NN_MAX_POOL2D ? CT__POOL_MAX : op == CT__NN_MAX_POOL2D_BACKWARD ? CT__POOL_MAX_BWD
             : op == CT__NN_AVG_POOL2D ? CT__POOL_AVG : op == CT__NN_AVG_POOL2D_BACKWARD ? CT__POOL_AVG_BWD
             : op == CT__NN_ADAPTIVE_AVG_POOL2D ? CT__POOL_ADAPTIVE : CT__POOL_ADAPTIVE_BWD;
    int bw = kind == CT__POOL_MAX_BWD || kind == CT__POOL_AVG_BWD || kind == CT__POOL_ADAPTIVE_BWD;
    if (ct_numel(y) == 0) return 0;
    /* the plane sizes the kernels read: v[8..9] the input's (H, W), v[10..11] the pooled (OH, OW) */
    const ct_tensor *big = bw ? y : x, *small = bw ? x : y;
    ct__attrs a = *c->a;
    a.v[8] = big->shape[2];
    a.v[9] = big->shape[3];
    a.v[10] = small->shape[2];
    a.v[11] = small->shape[3];
    ct__pgeo g;
    ct__pool_geo(&a, &g);
    if (bw) memset(ct__ptr(y), 0, ct__dt[y->dtype].size * (size_t)ct_numel(y));   /* a dense output: accumulate into zeros */
    if (kind == CT__POOL_MAX && yi && x->shape[1] > 1 && ct_is_channels_last(x) && ct_is_channels_last(y) && ct_is_channels_last(yi)) {
        ct__mpcl_job j = {x->dtype, (char *)ct__ptr(y), (int64_t *)ct__ptr(yi), (const char *)ct__ptr(x), x->shape[1], &g};
        int64_t rows = y->shape[0] * y->shape[2], per = CT__MAX((int64_t)1, g.OW * x->shape[1] * g.kh * g.kw);
        ct__par_for(rows, ct_numel(x) >= 65536 ? CT__MAX((int64_t)1, 32768 / per) : rows, ct__maxpool_nhwc, &j);
        return 0;
    }
    ct__pool_run(kind, x->dtype, ct__ptr(y), y->strides, yi ? (int64_t *)ct__ptr(yi) : NULL, ct__ptr(x), x->strides,
                 ix ? (const int64_t *)ct__ptr(ix) : NULL, ix ? ix->strides : NULL, x->shape[0], x->shape[1], ct_numel(x) >= 65536, &g);
    return 0;
}
static int ct__bw_pool(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct__attrs a = n->attrs;
    ct_tensor *g = gout[0];
    if (!CT__NEEDS(n, 0)) return 0;
    /* the backward ops' input_size: this node's input's; adaptive's output_size: its gradient's */
    a.v[8] = a.v[10] = n->in_meta[0].shape[2];
    a.v[9] = a.v[11] = n->in_meta[0].shape[3];
    switch (n->op - ct__nn_base) {
    case CT__NN_MAX_POOL2D: {
        ct_tensor *ind = CT__SV_OUT(n, 1);
        if (!ind) return -1;
        /* the input gradient in the input's memory format (the indices have it), whatever g's */
        int cl = ct__suggest_cl(ind);
        if (cl != ct__suggest_cl(g) && !(g = cl ? ct_to_channels_last(g) : ct_contiguous(g))) return -1;
        gin[0] = ct__op2(CT__NNOP(MAX_POOL2D_BACKWARD), g, ind, &a);
        break;
    }
    case CT__NN_MAX_POOL2D_BACKWARD: {   /* linear in the gradient: pick gg at the indices */
        ct_tensor *ind = CT__SV_IN(n, 1);
        if (!ind) return -1;
        int64_t N = ind->shape[0], C = ind->shape[1], OH = ind->shape[2], OW = ind->shape[3];
        int64_t s1[3] = {N, C, n->attrs.v[8] * n->attrs.v[9]}, s2[3] = {N, C, OH * OW}, s4[4] = {N, C, OH, OW};
        gin[0] = ct_reshape_n(ct_gather(ct_reshape_n(g, 3, s1), 2, ct_reshape_n(ind, 3, s2)), 4, s4);
        break;
    }
    case CT__NN_AVG_POOL2D:   /* the input gradient in the input's memory format, whatever g's (PyTorch's) */
        if (n->in_meta[0].cl != ct__suggest_cl(g) && !(g = n->in_meta[0].cl ? ct_to_channels_last(g) : ct_contiguous(g))) return -1;
        gin[0] = ct__op1(CT__NNOP(AVG_POOL2D_BACKWARD), g, &a);
        break;
    case CT__NN_AVG_POOL2D_BACKWARD: gin[0] = ct__op1(CT__NNOP(AVG_POOL2D), g, &a); break;
    case CT__NN_ADAPTIVE_AVG_POOL2D:
        if (g->shape[2] == 1 && g->shape[3] == 1) {   /* PyTorch's global pooling is mean(-1, -2): the gradient is its expand */
            const int64_t *s = n->in_meta[0].shape;
            gin[0] = ct_div_scalar(ct_expand_n(g, 4, s), (double)(s[2] * s[3]));
        } else {
            if (n->in_meta[0].cl != ct__suggest_cl(g) && !(g = n->in_meta[0].cl ? ct_to_channels_last(g) : ct_contiguous(g))) return -1;
            gin[0] = ct__op1(CT__NNOP(ADAPTIVE_AVG_POOL2D_BACKWARD), g, &a);
        }
        break;
    default: gin[0] = ct__op1(CT__NNOP(ADAPTIVE_AVG_POOL2D), g, &a); break;
    }
    return gin[0] ? 0 : -1;
}

/* ---- public pooling functions ---- */
/* max (avg = 0) or avg (avg = 1) pooling, dims = 1 or 2 */
static ct_tensor *ct__pool_entry(int avg, int dims, const ct_tensor *x, int64_t k, const ct_pool_options *o, ct_tensor **indices) {
    const char *nm = avg ? (dims == 1 ? "avg_pool1d" : "avg_pool2d") : (dims == 1 ? "max_pool1d" : "max_pool2d");
    if (indices) *indices = NULL;
    if (!x) { ct__null_arg(nm, 0); return NULL; }
    ct_pool_options z;
    memset(&z, 0, sizeof z);
    if (!o) o = &z;
    int64_t ks[2], st[2], pd[2], dl[2];
    ct__pair(k, o->kernel_size_hw, 0, ks);
    int64_t sdef[2];
    ct__pair(o->stride, o->stride_hw, 0, st);
    sdef[0] = ks[0]; sdef[1] = ks[1];
    if (!st[0] && !st[1]) { st[0] = sdef[0]; st[1] = sdef[1]; }
    ct__pair(o->padding, o->padding_hw, 0, pd);
    ct__pair(o->dilation, o->dilation_hw, 1, dl);
    if (dims == 1) {
        ks[1] = ks[0]; ks[0] = 1; st[1] = st[0]; st[0] = 1; pd[1] = pd[0]; pd[0] = 0; dl[1] = dl[0]; dl[0] = 1;
    }
    if (st[0] == 0 || st[1] == 0) return ct__fail(CT_ERR_ARG, "%s: stride should not be zero", nm);
    if (ks[0] <= 0 || ks[1] <= 0)
        return ct__fail(CT_ERR_ARG, "%s: kernel_size should be greater than zero, but got kH: %lld kW: %lld", nm, (long long)ks[0], (long long)ks[1]);
    if (st[0] < 0 || st[1] < 0)
        return ct__fail(CT_ERR_ARG, "%s: stride should be greater than zero, but got dH: %lld dW: %lld", nm, (long long)st[0], (long long)st[1]);
    if (dl[0] <= 0 || dl[1] <= 0)
        return ct__fail(CT_ERR_ARG, "%s: dilation should be greater than zero, but got dilationH: %lld dilationW: %lld", nm, (long long)dl[0], (long long)dl[1]);
    if (avg && (dl[0] != 1 || dl[1] != 1)) return ct__fail(CT_ERR_ARG, "%s: avg pooling has no dilation (got %lld, %lld)", nm, (long long)dl[0], (long long)dl[1]);
    if (pd[0] < 0 || pd[1] < 0) return ct__fail(CT_ERR_ARG, "%s: pad must be non-negative, but got pad: %lld", nm, (long long)CT__MIN(pd[0], pd[1]));
    for (int q = 0; q < 2; q++)
        if (pd[q] > ks[q] / 2)
            return ct__fail(CT_ERR_ARG, "%s: pad should be at most half of kernel size, but got pad=%lld and kernel_size=%lld", nm, (long long)pd[q], (long long)ks[q]);
    if (o->divisor_override < 0) return ct__fail(CT_ERR_ARG, "%s: divisor must be not zero", nm);
    int nd = dims + 2;
    int bad = x->ndim != nd && x->ndim != nd - 1;
    for (int q = x->ndim == nd ? 1 : 0; !bad && q < x->ndim; q++) bad = x->shape[q] == 0;
    if (bad) return ct__fail(CT_ERR_SHAPE, "%s: non-empty %dD or %dD (batch mode) tensor expected for input, but got %s", nm, nd - 1, nd, CT__SHAPE(x));
    int s = ct_scope_begin();
    const ct_tensor *xb = x;
    if (dims == 1) xb = ct_unsqueeze(xb, -2);
    if (xb && xb->ndim == 3) xb = ct_unsqueeze(xb, 0);
    ct_tensor *y = NULL, *ind = NULL;
    if (xb) {
        int ceil_mode = o->ceil_mode != 0;
        int64_t oh = ct__pool_out(xb->shape[2], ks[0], pd[0], st[0], dl[0], ceil_mode);
        int64_t ow = ct__pool_out(xb->shape[3], ks[1], pd[1], st[1], dl[1], ceil_mode);
        if (oh < 1 || ow < 1) {
            ct_set_error(CT_ERR_SHAPE, "%s: Given input size: (%lldx%lldx%lld). Calculated output size: (%lldx%lldx%lld). Output size is too small",
                         nm, (long long)xb->shape[1], (long long)xb->shape[2], (long long)xb->shape[3], (long long)xb->shape[1],
                         (long long)oh, (long long)ow);
        } else {
            ct__attrs a;
            ct__attrs_init(&a);
            a.v[0] = ks[0]; a.v[1] = ks[1]; a.v[2] = st[0]; a.v[3] = st[1]; a.v[4] = pd[0]; a.v[5] = pd[1];
            if (avg) {
                a.flags = (ceil_mode ? 1 : 0) | (o->count_exclude_pad ? 0 : 2);
                a.i[0] = o->divisor_override;
            } else {
                a.v[6] = dl[0]; a.v[7] = dl[1];
                a.flags = ceil_mode ? 1 : 0;
            }
            if (avg) {
                y = ct__op1(CT__NNOP(AVG_POOL2D), xb, &a);
            } else {
                ct_tensor *in[1], *out[2];
                in[0] = (ct_tensor *)xb;
                if (ct__calln(CT__NNOP(MAX_POOL2D), 1, in, &a, out) >= 0) { y = out[0]; ind = out[1]; }
            }
        }
    }
    for (int q = 0; q < 2; q++) {
        ct_tensor **t = q ? &ind : &y;
        if (!*t) continue;
        if (x->ndim != nd) *t = ct_squeeze_dim(*t, 0);
        if (*t && dims == 1) *t = ct_squeeze_dim(*t, -2);
    }
    if (y && (!indices || ind)) {
        ct_keep(y);
        if (indices) *indices = ct_keep(ind);
    } else {
        y = NULL;
    }
    ct_scope_end(s);
    return y;
}
CTENSOR_API ct_tensor *ct_max_pool2d(const ct_tensor *x, int64_t k, const ct_pool_options *o) { return ct__pool_entry(0, 2, x, k, o, NULL); }
CTENSOR_API ct_tensor *ct_max_pool2d_with_indices(const ct_tensor *x, int64_t k, const ct_pool_options *o, ct_tensor **indices) {
    return ct__pool_entry(0, 2, x, k, o, indices);
}
CTENSOR_API ct_tensor *ct_avg_pool2d(const ct_tensor *x, int64_t k, const ct_pool_options *o) { return ct__pool_entry(1, 2, x, k, o, NULL); }
CTENSOR_API ct_tensor *ct_max_pool1d(const ct_tensor *x, int64_t k, const ct_pool_options *o) { return ct__pool_entry(0, 1, x, k, o, NULL); }
CTENSOR_API ct_tensor *ct_avg_pool1d(const ct_tensor *x, int64_t k, const ct_pool_options *o) { return ct__pool_entry(1, 1, x, k, o, NULL); }
CTENSOR_API ct_tensor *ct_adaptive_avg_pool2d(const ct_tensor *x, int64_t out_h, int64_t out_w) {
    if (!x) { ct__null_arg("adaptive_avg_pool2d", 0); return NULL; }
    if (x->ndim != 3 && x->ndim != 4)
        return ct__fail(CT_ERR_SHAPE, "adaptive_avg_pool2d: adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got %s", CT__SHAPE(x));
    for (int q = x->ndim - 3; q < x->ndim; q++)
        if (q > 0 && x->shape[q] == 0)
            return ct__fail(CT_ERR_SHAPE, "adaptive_avg_pool2d: adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes %s with dimension %d being empty",
                            CT__SHAPE(x), q);
    if (out_h < 0 || out_w < 0)
        return ct__fail(CT_ERR_ARG, "adaptive_avg_pool2d: output_size must be non-negative, got (%lld, %lld)", (long long)out_h, (long long)out_w);
    int s = ct_scope_begin();
    const ct_tensor *xb = x->ndim == 3 ? ct_unsqueeze(x, 0) : x;
    ct_tensor *y = NULL;
    if (xb) {
        ct__attrs a;
        ct__attrs_init(&a);
        a.v[10] = out_h;
        a.v[11] = out_w;
        y = ct__op1(CT__NNOP(ADAPTIVE_AVG_POOL2D), xb, &a);
        if (y && x->ndim == 3) y = ct_squeeze_dim(y, 0);
    }
    ct_keep(y);
    ct_scope_end(s);
    return y;
}

/* ---- modules: Conv1d, Conv2d, ConvTranspose2d, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d ---- */
typedef struct ct__conv_mod {
    int dims, transposed;
    int64_t in, out, groups, k[2], st[2], pd[2], dl[2], op[2];
    char padding_str[8];
} ct__conv_mod;
static ct_tensor *ct__conv_mod_forward(ct_module *m, int nin, ct_tensor *const *in) {
    const ct__conv_mod *c = (const ct__conv_mod *)m->impl;
    if (nin != 1) return ct__fail(CT_ERR_ARG, "%s: forward takes 1 input (got %d)", m->type->name, nin);
    ct_conv_options o;
    memset(&o, 0, sizeof o);
    o.groups = c->groups;
    if (c->dims == 1) {
        o.stride = c->st[0]; o.padding = c->pd[0]; o.dilation = c->dl[0];
    } else {
        for (int q = 0; q < 2; q++) {
            o.stride_hw[q] = c->st[q]; o.padding_hw[q] = c->pd[q]; o.dilation_hw[q] = c->dl[q]; o.output_padding_hw[q] = c->op[q];
        }
    }
    if (c->padding_str[0]) o.padding_str = c->padding_str;
    ct_tensor *w = m->params[0].tensor, *b = m->params[1].tensor;
    if (c->transposed) return ct_conv_transpose2d(in[0], w, b, &o);
    return c->dims == 1 ? ct_conv1d(in[0], w, b, &o) : ct_conv2d(in[0], w, b, &o);
}
static int ct__tuple_str(char *buf, size_t cap, int n, const int64_t *v) {
    return n == 1 ? snprintf(buf, cap, "(%lld,)", (long long)v[0]) : snprintf(buf, cap, "(%lld, %lld)", (long long)v[0], (long long)v[1]);
}
static int ct__conv_mod_repr(const ct_module *m, char *buf, size_t cap) {
    const ct__conv_mod *c = (const ct__conv_mod *)m->impl;
    char t[64];
    size_t n = 0;
    int nd = c->dims;
    const int64_t *k = c->k + (2 - nd), *st = c->st + (2 - nd), *pd = c->pd + (2 - nd), *dl = c->dl + (2 - nd), *op = c->op + (2 - nd);
#define CT__RAPP(...) do { int r_ = snprintf(buf ? buf + CT__MIN(n, cap) : NULL, n < cap ? cap - n : 0, __VA_ARGS__); if (r_ > 0) n += (size_t)r_; } while (0)
    CT__RAPP("%lld, %lld", (long long)c->in, (long long)c->out);
    ct__tuple_str(t, sizeof t, nd, k);
    CT__RAPP(", kernel_size=%s", t);
    ct__tuple_str(t, sizeof t, nd, st);
    CT__RAPP(", stride=%s", t);
    if (c->padding_str[0]) CT__RAPP(", padding=%s", c->padding_str);
    else if (pd[0] || pd[nd - 1]) { ct__tuple_str(t, sizeof t, nd, pd); CT__RAPP(", padding=%s", t); }
    if (dl[0] != 1 || dl[nd - 1] != 1) { ct__tuple_str(t, sizeof t, nd, dl); CT__RAPP(", dilation=%s", t); }
    if (op[0] || op[nd - 1]) { ct__tuple_str(t, sizeof t, nd, op); CT__RAPP(", output_padding=%s", t); }
    if (c->groups != 1) CT__RAPP(", groups=%lld", (long long)c->groups);
    if (!m->params[1].tensor) CT__RAPP(", bias=False");
#undef CT__RAPP
    return (int)n;
}
static const ct_module_type ct__conv1d_type = {"Conv1d", ct__conv_mod_forward, ct__free_impl, ct__conv_mod_repr};
static const ct_module_type ct__conv2d_type = {"Conv2d", ct__conv_mod_forward, ct__free_impl, ct__conv_mod_repr};
static const ct_module_type ct__convt2d_type = {"ConvTranspose2d", ct__conv_mod_forward, ct__free_impl, ct__conv_mod_repr};

static ct_module *ct__conv_mod_new(int dims, int transposed, int64_t in, int64_t out, const ct_conv_module_options *o) {
    const ct_module_type *ty = transposed ? &ct__convt2d_type : dims == 1 ? &ct__conv1d_type : &ct__conv2d_type;
    const char *nm = ty->name;
    ct_conv_module_options z;
    memset(&z, 0, sizeof z);
    if (!o) o = &z;
    int64_t groups = o->groups ? o->groups : 1;
    int64_t k[2], st[2], pd[2], dl[2], op[2];
    ct__pair(o->kernel_size, o->kernel_size_hw, 0, k);
    ct__pair(o->stride, o->stride_hw, 1, st);
    ct__pair(o->padding, o->padding_hw, 0, pd);
    ct__pair(o->dilation, o->dilation_hw, 1, dl);
    ct__pair(o->output_padding, o->output_padding_hw, 0, op);
    if (dims == 1) { k[0] = 1; st[0] = 1; pd[0] = 0; dl[0] = 1; op[0] = 0; }
    if (in < 0 || out < 0) return (ct_module *)ct__fail(CT_ERR_ARG, "%s: in_channels (%lld) and out_channels (%lld) must be non-negative", nm, (long long)in, (long long)out);
    if (groups <= 0) return (ct_module *)ct__fail(CT_ERR_ARG, "%s: groups must be a positive integer", nm);
    if (in % groups) return (ct_module *)ct__fail(CT_ERR_ARG, "%s: in_channels must be divisible by groups", nm);
    if (out % groups) return (ct_module *)ct__fail(CT_ERR_ARG, "%s: out_channels must be divisible by groups", nm);
    if (k[0] <= 0 || k[1] <= 0) return (ct_module *)ct__fail(CT_ERR_ARG, "%s: kernel_size must be positive (got %lld)", nm, (long long)CT__MIN(k[0], k[1]));
    if (o->padding_str) {
        if (strcmp(o->padding_str, "same") && strcmp(o->padding_str, "valid"))
            return (ct_module *)ct__fail(CT_ERR_ARG, "%s: Invalid padding string '%s', should be one of {'valid', 'same'}", nm, o->padding_str);
        if (!strcmp(o->padding_str, "same") && (st[0] != 1 || st[1] != 1))
            return (ct_module *)ct__fail(CT_ERR_ARG, "%s: padding='same' is not supported for strided convolutions", nm);
        if (transposed) return (ct_module *)ct__fail(CT_ERR_ARG, "%s: Only \"zeros\" padding mode is supported for ConvTranspose2d", nm);
    }
    ct__conv_mod *c = CT__NEW_ZEROED(ct__conv_mod);
    ct_module *m = c ? ct_module_new(ty, c) : NULL;
    if (!m) { CT_FREE(c); return (ct_module *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", nm); }
    c->dims = dims; c->transposed = transposed; c->in = in; c->out = out; c->groups = groups;
    for (int q = 0; q < 2; q++) { c->k[q] = k[q]; c->st[q] = st[q]; c->pd[q] = pd[q]; c->dl[q] = dl[q]; c->op[q] = op[q]; }
    if (o->padding_str) snprintf(c->padding_str, sizeof c->padding_str, "%s", o->padding_str);
    int s = ct_scope_begin();
    int64_t shape[4];
    shape[0] = transposed ? in : out;
    shape[1] = (transposed ? out : in) / groups;
    shape[2] = k[0];
    shape[3] = k[1];
    if (dims == 1) shape[2] = k[1];
    /* reset_parameters: kaiming_uniform_(a=sqrt(5)) for the weight, then the bias in +-1/sqrt(fan_in) */
    ct_tensor *w = ct_empty_n(ct__default_dtype, dims + 2, shape);
    ct_tensor *b = o->no_bias ? NULL : ct_empty(ct__default_dtype, transposed ? out : out);
    int ok = w && (o->no_bias || b) && ct_nn_init_kaiming_uniform_(w, sqrt(5.0), "fan_in", "leaky_relu");
    if (ok && b) {
        int64_t fan_in = ct_nn_init_fan_in(w);
        if (fan_in > 0) {
            double bound = 1.0 / sqrt((double)fan_in);
            ok = ct_nn_init_uniform_(b, -bound, bound) != NULL;
        }
    }
    ok = ok && !ct_module_register_parameter(m, "weight", w) && !ct_module_register_parameter(m, "bias", b);
    ct_scope_end(s);
    if (!ok) { ct_module_free(m); return NULL; }
    return m;
}
CTENSOR_API ct_module *ct_nn_conv2d_opts(int64_t in, int64_t out, const ct_conv_module_options *o) { return ct__conv_mod_new(2, 0, in, out, o); }
CTENSOR_API ct_module *ct_nn_conv1d_opts(int64_t in, int64_t out, const ct_conv_module_options *o) { return ct__conv_mod_new(1, 0, in, out, o); }
CTENSOR_API ct_module *ct_nn_conv_transpose2d_opts(int64_t in, int64_t out, const ct_conv_module_options *o) {
    return ct__conv_mod_new(2, 1, in, out, o);
}
static ct_conv_module_options ct__conv_mod_opts(int64_t k, int64_t s, int64_t p) {
    ct_conv_module_options o;
    memset(&o, 0, sizeof o);
    o.kernel_size = k;
    o.stride = s;
    o.padding = p;
    return o;
}
/* the _ex forms: PyTorch's positional arguments; a dilation or groups of 0 is
   passed on as given (an error), not read as "the default" as in the options struct */
static ct_module *ct__conv_mod_ex(int dims, int transposed, int64_t in, int64_t out, int64_t k, int64_t s, int64_t p,
                                  int64_t op, int64_t d, int64_t g, int bias) {
    const char *nm = transposed ? "ConvTranspose2d" : dims == 1 ? "Conv1d" : "Conv2d";
    if (g <= 0) return (ct_module *)ct__fail(CT_ERR_ARG, "%s: groups must be a positive integer (got %lld)", nm, (long long)g);
    if (d <= 0) return (ct_module *)ct__fail(CT_ERR_ARG, "%s: dilation should be greater than zero (got %lld)", nm, (long long)d);
    if (s <= 0) return (ct_module *)ct__fail(CT_ERR_ARG, "%s: stride should be greater than zero (got %lld)", nm, (long long)s);
    if (p < 0 || op < 0) return (ct_module *)ct__fail(CT_ERR_ARG, "%s: negative padding is not supported (got %lld)", nm, (long long)(p < 0 ? p : op));
    ct_conv_module_options o = ct__conv_mod_opts(k, s, p);
    o.output_padding = op;
    o.dilation = d;
    o.groups = g;
    o.no_bias = !bias;
    return ct__conv_mod_new(dims, transposed, in, out, &o);
}
CTENSOR_API ct_module *ct_nn_conv2d_ex(int64_t in, int64_t out, int64_t k, int64_t s, int64_t p, int64_t d, int64_t g, int bias) {
    return ct__conv_mod_ex(2, 0, in, out, k, s, p, 0, d, g, bias);
}
CTENSOR_API ct_module *ct_nn_conv1d_ex(int64_t in, int64_t out, int64_t k, int64_t s, int64_t p, int64_t d, int64_t g, int bias) {
    return ct__conv_mod_ex(1, 0, in, out, k, s, p, 0, d, g, bias);
}
CTENSOR_API ct_module *ct_nn_conv_transpose2d_ex(int64_t in, int64_t out, int64_t k, int64_t s, int64_t p, int64_t op, int64_t g,
                                                 int bias, int64_t d) {
    return ct__conv_mod_ex(2, 1, in, out, k, s, p, op, d, g, bias);
}
CTENSOR_API ct_module *ct_nn_conv2d(int64_t in, int64_t out, int64_t k, int64_t s, int64_t p) { return ct_nn_conv2d_ex(in, out, k, s, p, 1, 1, 1); }
CTENSOR_API ct_module *ct_nn_conv1d(int64_t in, int64_t out, int64_t k, int64_t s, int64_t p) { return ct_nn_conv1d_ex(in, out, k, s, p, 1, 1, 1); }
CTENSOR_API ct_module *ct_nn_conv_transpose2d(int64_t in, int64_t out, int64_t k, int64_t s, int64_t p) {
    return ct_nn_conv_transpose2d_ex(in, out, k, s, p, 0, 1, 1, 1);
}

typedef struct ct__pool_mod { int kind; int64_t k; ct_pool_options o; int64_t oh, ow; } ct__pool_mod;   /* kind: 0 max, 1 avg, 2 adaptive */
static ct_tensor *ct__pool_mod_forward(ct_module *m, int nin, ct_tensor *const *in) {
    const ct__pool_mod *p = (const ct__pool_mod *)m->impl;
    if (nin != 1) return ct__fail(CT_ERR_ARG, "%s: forward takes 1 input (got %d)", m->type->name, nin);
    if (p->kind == 2) return ct_adaptive_avg_pool2d(in[0], p->oh, p->ow);
    return p->kind ? ct_avg_pool2d(in[0], p->k, &p->o) : ct_max_pool2d(in[0], p->k, &p->o);
}
static int ct__pair_str(char *buf, size_t cap, int64_t s, const int64_t *hw, int64_t def) {
    int64_t v[2];
    ct__pair(s, hw, def, v);
    return v[0] == v[1] ? snprintf(buf, cap, "%lld", (long long)v[0]) : snprintf(buf, cap, "(%lld, %lld)", (long long)v[0], (long long)v[1]);
}
static int ct__pool_mod_repr(const ct_module *m, char *buf, size_t cap) {
    const ct__pool_mod *p = (const ct__pool_mod *)m->impl;
    char k[48], s[48], pd[48], dl[48];
    if (p->kind == 2) {
        if (p->oh == p->ow) return snprintf(buf, cap, "output_size=%lld", (long long)p->oh);
        return snprintf(buf, cap, "output_size=(%lld, %lld)", (long long)p->oh, (long long)p->ow);
    }
    ct__pair_str(k, sizeof k, p->k, p->o.kernel_size_hw, 0);
    if (p->o.stride || p->o.stride_hw[0] || p->o.stride_hw[1]) ct__pair_str(s, sizeof s, p->o.stride, p->o.stride_hw, 0);
    else snprintf(s, sizeof s, "%s", k);
    ct__pair_str(pd, sizeof pd, p->o.padding, p->o.padding_hw, 0);
    ct__pair_str(dl, sizeof dl, p->o.dilation, p->o.dilation_hw, 1);
    if (p->kind == 1) return snprintf(buf, cap, "kernel_size=%s, stride=%s, padding=%s", k, s, pd);
    return snprintf(buf, cap, "kernel_size=%s, stride=%s, padding=%s, dilation=%s, ceil_mode=%s", k, s, pd, dl,
                    p->o.ceil_mode ? "True" : "False");
}
static const ct_module_type ct__maxpool2d_type = {"MaxPool2d", ct__pool_mod_forward, ct__free_impl, ct__pool_mod_repr};
static const ct_module_type ct__avgpool2d_type = {"AvgPool2d", ct__pool_mod_forward, ct__free_impl, ct__pool_mod_repr};
static const ct_module_type ct__adaptive_avgpool2d_type = {"AdaptiveAvgPool2d", ct__pool_mod_forward, ct__free_impl, ct__pool_mod_repr};
static ct_module *ct__pool_mod_new(int kind, int64_t k, const ct_pool_options *o, int64_t oh, int64_t ow) {
    const ct_module_type *ty = kind == 0 ? &ct__maxpool2d_type : kind == 1 ? &ct__avgpool2d_type : &ct__adaptive_avgpool2d_type;
    if (kind < 2 && k <= 0 && !(o && o->kernel_size_hw[0] > 0 && o->kernel_size_hw[1] > 0))
        return (ct_module *)ct__fail(CT_ERR_ARG, "%s: kernel_size should be greater than zero, but got %lld", ty->name, (long long)k);
    if (kind == 2 && (oh < 0 || ow < 0))
        return (ct_module *)ct__fail(CT_ERR_ARG, "%s: output_size must be non-negative, got (%lld, %lld)", ty->name, (long long)oh, (long long)ow);
    ct__pool_mod *p = CT__NEW_ZEROED(ct__pool_mod);
    ct_module *m = p ? ct_module_new(ty, p) : NULL;
    if (!m) { CT_FREE(p); return (ct_module *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", ty->name); }
    p->kind = kind;
    p->k = k;
    if (o) p->o = *o;
    p->oh = oh;
    p->ow = ow;
    return m;
}
static ct_module *ct__pool_mod_stride(int kind, int64_t k, int64_t stride) {
    ct_pool_options o;
    memset(&o, 0, sizeof o);
    o.stride = stride;
    return ct__pool_mod_new(kind, k, &o, 0, 0);
}
CTENSOR_API ct_module *ct_nn_max_pool2d(int64_t k, int64_t stride) { return ct__pool_mod_stride(0, k, stride); }
CTENSOR_API ct_module *ct_nn_max_pool2d_opts(int64_t k, const ct_pool_options *o) { return ct__pool_mod_new(0, k, o, 0, 0); }
CTENSOR_API ct_module *ct_nn_avg_pool2d(int64_t k, int64_t stride) { return ct__pool_mod_stride(1, k, stride); }
CTENSOR_API ct_module *ct_nn_avg_pool2d_opts(int64_t k, const ct_pool_options *o) { return ct__pool_mod_new(1, k, o, 0, 0); }
CTENSOR_API ct_module *ct_nn_adaptive_avg_pool2d(int64_t oh, int64_t ow) { return ct__pool_mod_new(2, 0, NULL, oh, ow); }

/* [section: nn-resample-impl] */
/* ============================================================================
   Resampling: interpolate, pixel shuffle, grid sampling (see nn-resample-api).
   PyTorch references: torch/nn/functional.py (interpolate's argument logic,
   affine_grid), aten/src/ATen/native/UpSample.h and cpu/UpSampleKernel.cpp
   (source indices and weights), GridSampler.h and cpu/GridSamplerKernel.cpp
   (grid_sample), PixelShuffle.cpp.

   Upsampling ops: one op per (mode, rank) as in PyTorch, each forward followed
   by its backward in the table. Attributes: v[0..d) output_size, the backward
   also v[d..2d+2) the full input_size; s[0..d) the scales (NaN: None); flags
   bit 0 align_corners. Every mode is separable: per spatial dim a table of
   K source indices and weights per output index (K = 1 nearest, 2 linear,
   4 cubic), computed once per call. The kernel runs on "slices": an (n, c)
   plane of a contiguous (or any strided) tensor, or a whole sample n of a
   channels-last one, where each W position is a group of G = C contiguous
   values. A slice is done in passes, W first, then H, then D, as PyTorch
   nests its sums (output = sum_d wd * sum_h wh * sum_w ww * x), so the
   results round as PyTorch's do: the W pass fills rows of a small cache
   (K rows: taps advance monotonically with the output index), the H pass
   combines cached rows into output rows (contiguous, vectorizable), the D pass
   combines H-passed planes. The backward op is the adjoint, the passes in
   reverse: output rows are spread into cached input rows, which are scattered
   into the input when the taps move past them.
   ========================================================================== */
enum { CT__RS_NEAREST, CT__RS_EXACT, CT__RS_LINEAR, CT__RS_CUBIC };
/* per upsampling pair (forward row 2k, backward row 2k + 1): mode and rank */
static const struct { int mode, dims; } ct__ups_info[10] = {
    {CT__RS_NEAREST, 1}, {CT__RS_NEAREST, 2}, {CT__RS_NEAREST, 3}, {CT__RS_EXACT, 1}, {CT__RS_EXACT, 2},
    {CT__RS_EXACT, 3},   {CT__RS_LINEAR, 1},  {CT__RS_LINEAR, 2},  {CT__RS_CUBIC, 2},  {CT__RS_LINEAR, 3}};
CT_STATIC_ASSERT(CT__NN_UPSAMPLE_TRILINEAR3D_BACKWARD - CT__NN_UPSAMPLE_NEAREST1D == 19,
                 "upsampling rows come in (forward, backward) pairs in ct__ups_info's order");
/* the local upsampling row index of an op id: 0..19, or -1 */
static int ct__ups_local(int op) {
    int k = op - CT__NNOP(UPSAMPLE_NEAREST1D);
    return k >= 0 && k < 20 ? k : -1;
}

/* PyTorch suggest_memory_format for 5-D tensors: channels-last-3d (NDHWC) strides, not also contiguous */
static int ct__is_cl3d(const ct_tensor *x) {
    if (x->ndim != 5 || ct__is_contig(x)) return 0;
    const int order[5] = {1, 4, 3, 2, 0};
    int64_t s = 1;
    for (int k = 0; k < 5; k++) {
        int d = order[k];
        if (x->shape[d] == 1) continue;
        if (x->strides[d] != s) return 0;
        s *= x->shape[d];
    }
    return 1;
}
/* dense channels-last strides of a 4-D or 5-D shape */
static void ct__cl_strides_nd(int nd, const int64_t *shape, int64_t *st) {
    int64_t s = 1;
    st[1] = s;
    s *= shape[1];
    for (int d = nd - 1; d >= 2; d--) { st[d] = s; s *= shape[d]; }
    st[0] = s;
}
static int ct__rs_suggest_cl(const ct_tensor *x) { return x->ndim == 4 ? ct__is_cl_input(x) : ct__is_cl3d(x); }

static int ct__meta_upsample(ct__call *c) {
    int k = ct__ups_local(c->op), bw = k & 1, dims = ct__ups_info[k >> 1].dims, mode = ct__ups_info[k >> 1].mode;
    const char *nm = ct__opdef_get(c->op)->name;
    const ct_tensor *x = c->in[0];
    const ct__attrs *a = c->a;
    static const char *const dn[3] = {"D", "H", "W"};
    if (x->ndim != dims + 2)
        return ct__failed(CT_ERR_SHAPE, "%s: expected a %dD input, got %s", nm, dims + 2, CT__SHAPE(x));
    if (x->dtype != CT_FLOAT32 && x->dtype != CT_FLOAT64)
        return ct__failed(CT_ERR_DTYPE, "%s: \"%s\" not implemented for '%s' (ctensor resamples float32 and float64)", nm, nm,
                          CT__DTNAME(x->dtype));
    int64_t in_shape[5] = {0, 0, 0, 0, 0}, out_shape[5] = {0, 0, 0, 0, 0};
    if (!bw) {
        for (int q = 0; q < dims + 2; q++) in_shape[q] = x->shape[q];
    } else {
        for (int q = 0; q < dims + 2; q++) in_shape[q] = a->v[dims + q];
    }
    out_shape[0] = in_shape[0];
    out_shape[1] = in_shape[1];
    for (int q = 0; q < dims; q++) out_shape[2 + q] = a->v[q];
    /* upsample_Nd_common_check: every spatial size positive */
    int ok = 1;
    for (int q = 2; q < dims + 2; q++) ok &= in_shape[q] > 0 && out_shape[q] > 0;
    if (!ok) {
        char is[96] = "", os[96] = "";
        for (int q = 0; q < dims; q++) {
            ct__msg_cat(is, sizeof is, "%s%s: %lld", q ? ", " : "", dn[3 - dims + q], (long long)in_shape[2 + q]);
            ct__msg_cat(os, sizeof os, "%s%s: %lld", q ? ", " : "", dn[3 - dims + q], (long long)out_shape[2 + q]);
        }
        return ct__failed(CT_ERR_SHAPE, "%s: Input and output sizes should be greater than 0, but got input (%s)%s output (%s)", nm, is,
                          dims == 1 ? " and" : "", os);
    }
    if (in_shape[1] == 0 && in_shape[0] != 0)
        return ct__failed(CT_ERR_SHAPE, "%s: Non-empty %dD data tensor expected but got a tensor with sizes %s", nm, dims + 2,
                          ct__fmt_shape(dims + 2, in_shape).s);
    if (bw) {
        for (int q = 0; q < dims + 2; q++)
            if (x->shape[q] != out_shape[q])
                return ct__failed(CT_ERR_SHAPE, "%s: Expected grad_output to have the same shape as output; output.size(%d) = %lld but got grad_output.size(%d) = %lld",
                                  nm, q, (long long)out_shape[q], q, (long long)x->shape[q]);
    }
    const int64_t *res = bw ? in_shape : out_shape;
    if (ct__check_shape(nm, dims + 2, res)) return -1;
    ct__outinfo *o = &c->oi[0];
    o->kind = CT__OUT_NEW;
    o->dtype = x->dtype;
    o->ndim = dims + 2;
    for (int q = 0; q < dims + 2; q++) o->shape[q] = res[q];
    /* channels-last in, channels-last out (PyTorch 1.13's bicubic gives contiguous tensors) */
    o->has_strides = dims >= 2 && mode != CT__RS_CUBIC && ct__rs_suggest_cl(x);
    if (o->has_strides) ct__cl_strides_nd(dims + 2, o->shape, o->strides);
    c->nout = 1;
    return 0;
}

/* ---- source indices and weights (UpSample.h) ----
   Coordinates are computed in double and rounded to the op's precision where
   PyTorch computes in scalar_t (float for float32: each rounded double step is
   the float operation); the source index of the linear and cubic modes is
   PyTorch's double expression scale * (o + 0.5) - 0.5, which its AVX2 build
   contracts to one fused multiply-add (fma here gives the same bits). */
CT__INLINE double ct__rs_r(double v, int f32) { return f32 ? (double)(float)v : v; }
CT__INLINE double ct__rs_floorf(double v) { return floor((double)(float)v); }   /* PyTorch's floorf */
/* area_pixel_compute_scale; scale: the user's scale factor, NaN when None */
static double ct__rs_scale(int64_t in, int64_t out, int align, double scale, int f32) {
    if (align) return out > 1 ? ct__rs_r(ct__rs_r((double)(in - 1), f32) / ct__rs_r((double)(out - 1), f32), f32) : 0.0;
    if (scale > 0) return ct__rs_r(1.0 / scale, f32);   /* compute_scales_value */
    return ct__rs_r(ct__rs_r((double)in, f32) / ct__rs_r((double)out, f32), f32);
}
/* cubic convolution with A = -0.75 (cubic_convolution1 for |x| <= 1, 2 for 1 < |x| < 2), in the op's precision */
static double ct__rs_cc1(double x, int f) {
    const double A = -0.75;
    return ct__rs_r(ct__rs_r(ct__rs_r(ct__rs_r(ct__rs_r((A + 2) * x, f) - (A + 3), f) * x, f) * x, f) + 1, f);
}
static double ct__rs_cc2(double x, int f) {
    const double A = -0.75;
    return ct__rs_r(ct__rs_r(ct__rs_r(ct__rs_r(ct__rs_r(A * x, f) - 5 * A, f) * x, f) + 8 * A, f) * x - 4 * A, f);
}
/* get_cubic_upsample_coefficients(coeffs, t) */
static void ct__rs_cubic_coeffs(double t, int f, double *c) {
    double x2 = ct__rs_r(1.0 - t, f);
    c[0] = ct__rs_cc2(ct__rs_r(t + 1.0, f), f);
    c[1] = ct__rs_cc1(t, f);
    c[2] = ct__rs_cc1(x2, f);
    c[3] = ct__rs_cc2(ct__rs_r(x2 + 1.0, f), f);
}
typedef struct ct__rs_dim {
    int64_t in, out;
    int K;              /* taps per output index: 1 nearest, 2 linear, 4 cubic; 0: the dim is absent (rank < 3) */
    int64_t *idx;       /* [out * K] source indices */
    void *w;            /* [out * K] weights in the op's dtype (1 for nearest) */
} ct__rs_dim;
/* Fills d's tables (idx, w already point to out * K entries). */
static void ct__rs_dim_fill(ct__rs_dim *d, int mode, int align, double scale, int f32) {
    int64_t in = d->in, out = d->out;
    int K = d->K;
    double sc = ct__rs_scale(in, out, mode >= CT__RS_LINEAR && align, scale, f32);
    for (int64_t o = 0; o < out; o++) {
        double wt[4] = {1, 0, 0, 0};
        int64_t *ix = d->idx + o * K;
        if (mode == CT__RS_NEAREST) {
            /* HelperInterpNearest: floor(scale * o), as OpenCV's INTER_NEAREST */
            int64_t i = (int64_t)ct__rs_floorf(ct__rs_r(sc * (double)o, f32));
            ix[0] = CT__MIN(i, in - 1);
        } else if (mode == CT__RS_EXACT) {
            /* HelperInterpNearestExact: round(scale * (o + 0.5) - 0.5), as Pillow and scikit-image */
            double real = ct__rs_r(fma(sc, (double)o + 0.5, -0.5), f32);
            if (real < 0) real = 0;
            int64_t i = (int64_t)ct__rs_floorf(real + 0.5);
            ix[0] = CT__MIN(i, in - 1);
        } else if (mode == CT__RS_LINEAR) {
            if (in == out) {   /* compute_source_index_and_lambda: equal sizes copy */
                ix[0] = ix[1] = o;
            } else {
                double real = align ? sc * (double)o : fma(sc, (double)o + 0.5, -0.5);
                if (real < 0) real = 0;
                int64_t i0 = CT__MIN((int64_t)real, in - 1);
                ix[0] = i0;
                ix[1] = i0 + (i0 < in - 1 ? 1 : 0);
                wt[1] = ct__rs_r(real - (double)i0, f32);
                wt[0] = ct__rs_r(1.0 - wt[1], f32);
            }
        } else {
            /* HelperInterpCubic: taps floor(x) - 1 .. floor(x) + 2, clamped to the input */
            double real = align ? sc * (double)o : fma(sc, (double)o + 0.5, -0.5);
            double fl = ct__rs_floorf(real);
            int64_t i = (int64_t)fl;
            ct__rs_cubic_coeffs(ct__rs_r(real - fl, f32), f32, wt);
            for (int k = 0; k < 4; k++) ix[k] = CT__MAX(CT__MIN(i - 1 + k, in - 1), (int64_t)0);
        }
        for (int k = 0; k < K; k++) {
            if (f32) ((float *)d->w)[o * K + k] = (float)wt[k];
            else ((double *)d->w)[o * K + k] = wt[k];
        }
    }
}

/* ---- inner loops, per dtype ----
   hrow:     d[o][g] = sum_k w[o][k] * s[ix[o][k] + g]   (the W pass; nearest: a copy)
   hrow_adj: s[ix[o][k] + g] += w[o][k] * d[o * ss][g]   (its adjoint; d read with element stride ss when G == 1)
   vcomb:    d[i] = sum_k rows[k][i] * w[k]              (the H and D passes)
   axpy:     d[i] += a * s[i * ss]                        (their adjoint) */
#define CT__RS_LOOPS(SUF, T)                                                                              \
    static void ct__rs_hrow_##SUF(void *d_, const void *s_, const int64_t *ix, const void *w_, int64_t n, int K, int64_t G) { \
        T *d = (T *)d_;                                                                                   \
        const T *s = (const T *)s_, *w = (const T *)w_;                                                   \
        if (G == 1) {                                                                                     \
            if (K == 1)                                                                                   \
                for (int64_t o = 0; o < n; o++) d[o] = s[ix[o]];                                          \
            else if (K == 2)                                                                              \
                for (int64_t o = 0; o < n; o++) d[o] = s[ix[2 * o]] * w[2 * o] + s[ix[2 * o + 1]] * w[2 * o + 1]; \
            else                                                                                          \
                for (int64_t o = 0; o < n; o++)                                                           \
                    d[o] = s[ix[4 * o]] * w[4 * o] + s[ix[4 * o + 1]] * w[4 * o + 1] + s[ix[4 * o + 2]] * w[4 * o + 2] + \
                           s[ix[4 * o + 3]] * w[4 * o + 3];                                               \
            return;                                                                                       \
        }                                                                                                 \
        for (int64_t o = 0; o < n; o++, d += G) {                                                         \
            const T *s0 = s + ix[o * K];                                                                  \
            if (K == 1) {                                                                                 \
                for (int64_t g = 0; g < G; g++) d[g] = s0[g];                                             \
            } else if (K == 2) {                                                                          \
                const T *s1 = s + ix[2 * o + 1];                                                          \
                T w0 = w[2 * o], w1 = w[2 * o + 1];                                                       \
                for (int64_t g = 0; g < G; g++) d[g] = s0[g] * w0 + s1[g] * w1;                           \
            } else {                                                                                      \
                const T *s1 = s + ix[4 * o + 1], *s2 = s + ix[4 * o + 2], *s3 = s + ix[4 * o + 3];        \
                T w0 = w[4 * o], w1 = w[4 * o + 1], w2 = w[4 * o + 2], w3 = w[4 * o + 3];                 \
                for (int64_t g = 0; g < G; g++) d[g] = s0[g] * w0 + s1[g] * w1 + s2[g] * w2 + s3[g] * w3; \
            }                                                                                             \
        }                                                                                                 \
    }                                                                                                     \
    static void ct__rs_hrow_adj_##SUF(void *s_, const void *d_, int64_t ss, const int64_t *ix, const void *w_, int64_t n, \
                                      int K, int64_t G) {                                                 \
        T *s = (T *)s_;                                                                                   \
        const T *d = (const T *)d_, *w = (const T *)w_;                                                   \
        if (G == 1) {                                                                                     \
            if (K == 1)                                                                                   \
                for (int64_t o = 0; o < n; o++) s[ix[o]] += d[o * ss];                                    \
            else                                                                                          \
                for (int64_t o = 0; o < n; o++) {                                                         \
                    T v = d[o * ss];                                                                      \
                    for (int k = 0; k < K; k++) s[ix[o * K + k]] += w[o * K + k] * v;                     \
                }                                                                                         \
            return;                                                                                       \
        }                                                                                                 \
        for (int64_t o = 0; o < n; o++, d += G)                                                           \
            for (int k = 0; k < K; k++) {                                                                 \
                T *sk = s + ix[o * K + k];                                                                \
                if (K == 1) {                                                                             \
                    for (int64_t g = 0; g < G; g++) sk[g] += d[g];                                        \
                } else {                                                                                  \
                    T wk = w[o * K + k];                                                                  \
                    for (int64_t g = 0; g < G; g++) sk[g] += wk * d[g];                                   \
                }                                                                                         \
            }                                                                                             \
    }                                                                                                     \
    static void ct__rs_vcomb_##SUF(void *d_, const void *const *r, const void *w_, int K, int64_t n) {    \
        T *d = (T *)d_;                                                                                   \
        const T *w = (const T *)w_, *r0 = (const T *)r[0], *r1 = (const T *)r[1 % K];                     \
        T w0 = w[0], w1 = w[1 % K];                                                                       \
        if (K == 2) {                                                                                     \
            for (int64_t i = 0; i < n; i++) d[i] = r0[i] * w0 + r1[i] * w1;                               \
        } else if (K == 4) {                                                                              \
            const T *r2 = (const T *)r[2], *r3 = (const T *)r[3];                                         \
            T w2 = w[2], w3 = w[3];                                                                       \
            for (int64_t i = 0; i < n; i++) d[i] = r0[i] * w0 + r1[i] * w1 + r2[i] * w2 + r3[i] * w3;     \
        } else {                                                                                          \
            for (int64_t i = 0; i < n; i++) d[i] = r0[i] * w0;                                            \
        }                                                                                                 \
    }                                                                                                     \
    /* channels-last linear rows: the W pass of two input rows and their H combination in one sweep   \
       (the same arithmetic as hrow then vcomb, without the cached rows' memory traffic) */               \
    static void ct__rs_hv2_##SUF(void *d_, const void *s0_, const void *s1_, const int64_t *ix, const void *w_, \
                                 const void *wh_, int64_t n, int64_t G) {                                 \
        T *d = (T *)d_;                                                                                   \
        const T *s0 = (const T *)s0_, *s1 = (const T *)s1_, *w = (const T *)w_, *wh = (const T *)wh_;    \
        T h0 = wh[0], h1 = wh[1];                                                                         \
        for (int64_t o = 0; o < n; o++, d += G) {                                                         \
            const T *a0 = s0 + ix[2 * o], *a1 = s0 + ix[2 * o + 1], *b0 = s1 + ix[2 * o], *b1 = s1 + ix[2 * o + 1]; \
            T w0 = w[2 * o], w1 = w[2 * o + 1];                                                           \
            for (int64_t g = 0; g < G; g++) d[g] = (a0[g] * w0 + a1[g] * w1) * h0 + (b0[g] * w0 + b1[g] * w1) * h1; \
        }                                                                                                 \
    }                                                                                                     \
    static void ct__rs_axpy_##SUF(void *d_, const void *s_, int64_t ss, const void *a_, int64_t n) {      \
        T *d = (T *)d_;                                                                                   \
        const T *s = (const T *)s_;                                                                       \
        T a = *(const T *)a_;                                                                             \
        if (ss == 1)                                                                                      \
            for (int64_t i = 0; i < n; i++) d[i] += a * s[i];                                             \
        else                                                                                              \
            for (int64_t i = 0; i < n; i++) d[i] += a * s[i * ss];                                        \
    }
CT__RS_LOOPS(f32, float)
CT__RS_LOOPS(f64, double)
typedef struct ct__rs_fns {
    void (*hrow)(void *d, const void *s, const int64_t *ix, const void *w, int64_t n, int K, int64_t G);
    void (*hrow_adj)(void *s, const void *d, int64_t ss, const int64_t *ix, const void *w, int64_t n, int K, int64_t G);
    void (*vcomb)(void *d, const void *const *rows, const void *w, int K, int64_t n);
    void (*axpy)(void *d, const void *s, int64_t ss, const void *a, int64_t n);
    void (*hv2)(void *d, const void *s0, const void *s1, const int64_t *ix, const void *w, const void *wh, int64_t n, int64_t G);
} ct__rs_fns;
static const ct__rs_fns ct__rs_fns_f32 = {ct__rs_hrow_f32, ct__rs_hrow_adj_f32, ct__rs_vcomb_f32, ct__rs_axpy_f32, ct__rs_hv2_f32};
static const ct__rs_fns ct__rs_fns_f64 = {ct__rs_hrow_f64, ct__rs_hrow_adj_f64, ct__rs_vcomb_f64, ct__rs_axpy_f64, ct__rs_hv2_f64};

/* One call's geometry. The input side ("in": the forward's input, the
   backward's result) is addressed with element strides isd, ish and the W
   indices wi (premultiplied by its W stride); the output side (the forward's
   result, the backward's gradient) with osd, osh, osw (osw != G only for
   G == 1: a strided gradient). Both are offsets within a slice. */
typedef struct ct__rs_job {
    const ct__rs_fns *f;
    size_t es;
    ct__rs_dim d[3];          /* D, H, W */
    int64_t *wi;
    int64_t G, isd, ish, osd, osh, osw;
} ct__rs_job;
typedef struct ct__rs_ws {   /* per-thread caches */
    char *row[4], *plane[4];
    int64_t rtag[4], ptag[4];
} ct__rs_ws;
#define CT__RS_AT(p, off, es) ((char *)(p) + (off) * (int64_t)(es))

/* forward, H and W passes: the input plane src, output rows [oh0, oh1) of the dense plane dst */
static void ct__rs_fwd2d(const ct__rs_job *j, ct__rs_ws *ws, const char *src, char *dst, int64_t oh0, int64_t oh1) {
    const ct__rs_dim *dh = &j->d[1], *dw = &j->d[2];
    int64_t n = dw->out, rowel = n * j->G;
    size_t es = j->es;
    if (dh->K == 0) { j->f->hrow(dst, src, j->wi, dw->w, n, dw->K, j->G); return; }
    if (dh->K == 1) {   /* nearest rows: a repeated source row is a copy of the previous output row */
        int64_t prev = -1;
        for (int64_t oh = oh0; oh < oh1; oh++) {
            int64_t ih = dh->idx[oh];
            char *drow = CT__RS_AT(dst, oh * rowel, es);
            if (ih == prev) memcpy(drow, drow - rowel * (int64_t)es, (size_t)rowel * es);
            else j->f->hrow(drow, CT__RS_AT(src, ih * j->ish, es), j->wi, dw->w, n, dw->K, j->G);
            prev = ih;
        }
        return;
    }
    int K = dh->K;
    if (K == 2 && dw->K == 2 && j->G > 1) {
        for (int64_t oh = oh0; oh < oh1; oh++)
            j->f->hv2(CT__RS_AT(dst, oh * rowel, es), CT__RS_AT(src, dh->idx[2 * oh] * j->ish, es), CT__RS_AT(src, dh->idx[2 * oh + 1] * j->ish, es),
                      j->wi, dw->w, CT__RS_AT(dh->w, oh * 2, es), n, j->G);
        return;
    }
    const void *rows[4];
    for (int k = 0; k < K; k++) ws->rtag[k] = -1;
    for (int64_t oh = oh0; oh < oh1; oh++) {
        /* the taps of one output row span at most K consecutive rows: distinct rows, distinct slots */
        for (int k = 0; k < K; k++) {
            int64_t ih = dh->idx[oh * K + k];
            int slot = (int)(ih % K);
            if (ws->rtag[slot] != ih) {
                j->f->hrow(ws->row[slot], CT__RS_AT(src, ih * j->ish, es), j->wi, dw->w, n, dw->K, j->G);
                ws->rtag[slot] = ih;
            }
            rows[k] = ws->row[slot];
        }
        j->f->vcomb(CT__RS_AT(dst, oh * rowel, es), rows, CT__RS_AT(dh->w, oh * K, es), K, rowel);
    }
}
/* forward of one slice; [b0, b1): the block of output planes (3-D) or rows (1-D, 2-D) */
static void ct__rs_fwd_slice(const ct__rs_job *j, ct__rs_ws *ws, const char *src, char *dst, int64_t b0, int64_t b1) {
    const ct__rs_dim *dd = &j->d[0];
    int64_t plane = j->d[1].out * j->d[2].out * j->G;
    size_t es = j->es;
    if (dd->K == 0) { ct__rs_fwd2d(j, ws, src, dst, b0, b1); return; }
    if (dd->K == 1) {
        int64_t prev = -1;
        for (int64_t od = b0; od < b1; od++) {
            int64_t id = dd->idx[od];
            char *dp = CT__RS_AT(dst, od * plane, es);
            if (id == prev) memcpy(dp, dp - plane * (int64_t)es, (size_t)plane * es);
            else ct__rs_fwd2d(j, ws, CT__RS_AT(src, id * j->isd, es), dp, 0, j->d[1].out);
            prev = id;
        }
        return;
    }
    int K = dd->K;
    const void *planes[4];
    for (int k = 0; k < K; k++) ws->ptag[k] = -1;
    for (int64_t od = b0; od < b1; od++) {
        for (int k = 0; k < K; k++) {
            int64_t id = dd->idx[od * K + k];
            int slot = (int)(id % K);
            if (ws->ptag[slot] != id) {
                ct__rs_fwd2d(j, ws, CT__RS_AT(src, id * j->isd, es), ws->plane[slot], 0, j->d[1].out);
                ws->ptag[slot] = id;
            }
            planes[k] = ws->plane[slot];
        }
        j->f->vcomb(CT__RS_AT(dst, od * plane, es), planes, CT__RS_AT(dd->w, od * K, es), K, plane);
    }
}
/* backward, H and W passes: the gradient plane g (rows at stride gsh, elements at gsw when G == 1)
   is spread into the input plane gi (zeroed by the caller) */
static void ct__rs_bwd2d(const ct__rs_job *j, ct__rs_ws *ws, const char *g, int64_t gsh, int64_t gsw, char *gi) {
    const ct__rs_dim *dh = &j->d[1], *dw = &j->d[2];
    int64_t n = dw->out, rowel = n * j->G;
    size_t es = j->es;
    if (dh->K == 0) { j->f->hrow_adj(gi, g, gsw, j->wi, dw->w, n, dw->K, j->G); return; }
    if (dh->K == 1 && j->G > 1) {   /* nearest, channels-last: each gradient row adds into its source row */
        for (int64_t oh = 0; oh < dh->out; oh++)
            j->f->hrow_adj(CT__RS_AT(gi, dh->idx[oh] * j->ish, es), CT__RS_AT(g, oh * gsh, es), gsw, j->wi, dw->w, n, dw->K, j->G);
        return;
    }
    int K = dh->K;
    for (int k = 0; k < K; k++) ws->rtag[k] = -1;
    for (int64_t oh = 0; oh < dh->out; oh++) {
        for (int k = 0; k < K; k++) {
            int64_t ih = dh->idx[oh * K + k];
            int slot = (int)(ih % K);
            if (ws->rtag[slot] != ih) {
                /* a row the taps have moved past is complete: scatter it into the input */
                if (ws->rtag[slot] >= 0)
                    j->f->hrow_adj(CT__RS_AT(gi, ws->rtag[slot] * j->ish, es), ws->row[slot], 1, j->wi, dw->w, n, dw->K, j->G);
                memset(ws->row[slot], 0, (size_t)rowel * es);
                ws->rtag[slot] = ih;
            }
            j->f->axpy(ws->row[slot], CT__RS_AT(g, oh * gsh, es), gsw, CT__RS_AT(dh->w, oh * K + k, es), rowel);
        }
    }
    for (int k = 0; k < K; k++)
        if (ws->rtag[k] >= 0) j->f->hrow_adj(CT__RS_AT(gi, ws->rtag[k] * j->ish, es), ws->row[k], 1, j->wi, dw->w, n, dw->K, j->G);
}
static void ct__rs_bwd_slice(const ct__rs_job *j, ct__rs_ws *ws, const char *g, char *gi) {
    const ct__rs_dim *dd = &j->d[0];
    int64_t OH = j->d[1].out, rowel = j->d[2].out * j->G, plane = OH * rowel;
    size_t es = j->es;
    if (dd->K == 0) { ct__rs_bwd2d(j, ws, g, j->osh, j->osw, gi); return; }
    if (dd->K == 1 && j->G > 1) {
        for (int64_t od = 0; od < dd->out; od++) ct__rs_bwd2d(j, ws, CT__RS_AT(g, od * j->osd, es), j->osh, j->osw, CT__RS_AT(gi, dd->idx[od] * j->isd, es));
        return;
    }
    int K = dd->K;
    for (int k = 0; k < K; k++) ws->ptag[k] = -1;
    for (int64_t od = 0; od < dd->out; od++) {
        for (int k = 0; k < K; k++) {
            int64_t id = dd->idx[od * K + k];
            int slot = (int)(id % K);
            if (ws->ptag[slot] != id) {
                if (ws->ptag[slot] >= 0) ct__rs_bwd2d(j, ws, ws->plane[slot], rowel, 1, CT__RS_AT(gi, ws->ptag[slot] * j->isd, es));
                memset(ws->plane[slot], 0, (size_t)plane * es);
                ws->ptag[slot] = id;
            }
            for (int64_t oh = 0; oh < OH; oh++)
                j->f->axpy(CT__RS_AT(ws->plane[slot], oh * rowel, es), CT__RS_AT(g, od * j->osd + oh * j->osh, es), j->osw,
                           CT__RS_AT(dd->w, od * K + k, es), rowel);
        }
    }
    for (int k = 0; k < K; k++)
        if (ws->ptag[k] >= 0) ct__rs_bwd2d(j, ws, ws->plane[k], rowel, 1, CT__RS_AT(gi, ws->ptag[k] * j->isd, es));
}

#ifndef CT__RS_PAR
#  define CT__RS_PAR ((int64_t)1 << 15)   /* output elements worth a thread */
#endif
typedef struct {
    int bw;
    int dims;
    const ct_tensor * tin;
    const ct_tensor * tout;
    int cl;
    ct__rs_job j;
    int64_t C;
    size_t es;
    int64_t nb;
    int64_t nouter;
    size_t rowb;
    size_t planeb;
    size_t wsb;
    char * sp_;
    char * dp_;
    int * oomp;
} ct__k_upsample_c;
static void ct__k_upsample_tasks(void *c_, int64_t lo_, int64_t hi_) {
    const ct__k_upsample_c *q_ = (const ct__k_upsample_c *)c_;
    int bw = q_->bw; (void)bw;
    int dims = q_->dims; (void)dims;
    const ct_tensor * tin = q_->tin; (void)tin;
    const ct_tensor * tout = q_->tout; (void)tout;
    int cl = q_->cl; (void)cl;
    ct__rs_job j = q_->j; (void)j;
    int64_t C = q_->C; (void)C;
    size_t es = q_->es; (void)es;
    int64_t nb = q_->nb; (void)nb;
    int64_t nouter = q_->nouter; (void)nouter;
    size_t rowb = q_->rowb; (void)rowb;
    size_t planeb = q_->planeb; (void)planeb;
    size_t wsb = q_->wsb; (void)wsb;
    char * sp_ = q_->sp_; (void)sp_;
    char * dp_ = q_->dp_; (void)dp_;
    int * oomp = q_->oomp; (void)oomp;
    {
        ct__rs_ws ws;
        char *buf = wsb ? (char *)CT_MALLOC(wsb) : NULL;
        if (wsb && !buf) {
            __atomic_store_n(oomp, 1, __ATOMIC_RELAXED);
        }
        for (int q = 0; q < 4; q++) {
            ws.row[q] = buf && q < j.d[1].K ? buf + rowb * (size_t)q : NULL;
            ws.plane[q] = buf && q < j.d[0].K ? buf + rowb * (size_t)j.d[1].K + planeb * (size_t)q : NULL;
        }
        for (int64_t t = lo_; t < hi_; t++) {
            if (wsb && !buf) continue;
            int64_t s = bw ? t : t / nb, blk = bw ? 0 : t % nb;
            int64_t n = cl ? s : s / C, ch = cl ? 0 : s % C;
            const char *in_base = CT__RS_AT(bw ? dp_ : sp_, n * tin->strides[0] + ch * tin->strides[1], es);
            char *out_base = CT__RS_AT(bw ? sp_ : dp_, n * tout->strides[0] + ch * tout->strides[1], es);
            if (bw) {
                ct__rs_bwd_slice(&j, &ws, out_base, (char *)in_base);
            } else {
                int64_t b0 = blk * nouter / nb, b1 = (blk + 1) * nouter / nb;
                if (dims == 1) { b0 = 0; b1 = 1; }
                ct__rs_fwd_slice(&j, &ws, in_base, out_base, b0, b1);
            }
        }
        CT_FREE(buf);
    }
}
static int ct__k_upsample(ct__call *c) {
    int k = ct__ups_local(c->op), bw = k & 1, dims = ct__ups_info[k >> 1].dims, mode = ct__ups_info[k >> 1].mode;
    const ct__attrs *a = c->a;
    const ct_tensor *src = c->in[0];
    ct_tensor *dst = c->out[0];
    int f32 = src->dtype == CT_FLOAT32;
    size_t es = f32 ? 4 : 8;
    int64_t nd = dims + 2;
    if (bw) memset(ct__ptr(dst), 0, (size_t)ct_numel(dst) * es);   /* dense: the adjoint accumulates */
    if (ct_numel(dst) == 0 || ct_numel(src) == 0) return 0;
    /* in: the input-sized tensor; out: the output-sized one */
    const ct_tensor *tin = bw ? dst : src, *tout = bw ? src : dst;
    /* channels-last slices: the meta made the result channels-last only for a channels-last input */
    int cl = nd >= 4 && ct__rs_suggest_cl(dst) && ct__rs_suggest_cl(src);
    ct__rs_job j;
    memset(&j, 0, sizeof j);
    j.f = f32 ? &ct__rs_fns_f32 : &ct__rs_fns_f64;
    j.es = es;
    int64_t N = tin->shape[0], C = tin->shape[1], Kd = mode == CT__RS_CUBIC ? 4 : mode == CT__RS_LINEAR ? 2 : 1;
    int64_t total = 0;
    for (int q = 0; q < 3; q++) {
        ct__rs_dim *d = &j.d[q];
        int sp = q - (3 - dims);   /* spatial index, < 0: absent */
        d->in = sp >= 0 ? tin->shape[2 + sp] : 1;
        d->out = sp >= 0 ? tout->shape[2 + sp] : 1;
        d->K = sp >= 0 ? (int)Kd : 0;
        total += d->out * d->K;
    }
    total += j.d[2].out * j.d[2].K;   /* wi */
    char *tab = (char *)CT_MALLOC((size_t)total * (8 + es) + 16);
    if (!tab) return ct__failed(CT_ERR_MEMORY, "%s: out of memory", ct__opdef_get(c->op)->name);
    int64_t *ip = (int64_t *)tab;
    char *wp = tab + (size_t)total * 8;
    for (int q = 0; q < 3; q++) {
        ct__rs_dim *d = &j.d[q];
        if (!d->K) continue;
        int sp = q - (3 - dims);
        d->idx = ip;
        d->w = wp;
        ip += d->out * d->K;
        wp += (size_t)(d->out * d->K) * es;
        ct__rs_dim_fill(d, mode, (a->flags & 1) != 0, a->s[sp], f32);
    }
    int64_t G = cl ? C : 1;
    /* element strides of the two sides within a slice */
    int64_t ist[5], ost[5];
    for (int q = 0; q < 5; q++) ist[q] = ost[q] = 0;
    for (int q = 0; q < dims; q++) { ist[5 - dims + q] = tin->strides[2 + q]; ost[5 - dims + q] = tout->strides[2 + q]; }
    j.wi = ip;
    for (int64_t o = 0; o < j.d[2].out * j.d[2].K; o++) j.wi[o] = j.d[2].idx[o] * ist[4];
    j.G = G;
    j.isd = ist[2]; j.ish = ist[3];
    j.osd = ost[2]; j.osh = ost[3]; j.osw = G > 1 ? 1 : ost[4];   /* channels-last rows are dense */
    int64_t nslices = cl ? N : N * C;
    /* the forward splits a slice into blocks of output planes / rows when there are few slices */
    int outer = j.d[0].K ? 0 : 1;   /* the dim blocks run over: D (3-D) or H */
    int64_t nouter = j.d[outer].out, nb = 1;
    int nt = 1;
    if (ct_numel(dst) >= CT__RS_PAR) nt = ct__par_threads();
    if (!bw && nt > 1 && nslices < 4 * nt && dims >= 2) nb = CT__MIN(nouter, (4 * nt + nslices - 1) / nslices);
    int64_t ntask = bw ? nslices : nslices * nb;
    size_t rowb = (size_t)(j.d[2].out * G) * es, planeb = rowb * (size_t)j.d[1].out;
    size_t wsb = rowb * (size_t)j.d[1].K + (j.d[0].K ? planeb * (size_t)j.d[0].K : 0);
    int oom = 0;
    char *sp_ = ct__ptr(src), *dp_ = ct__ptr(dst);
int *oomp = &oom;
    ct__k_upsample_c q_ = {bw, dims, tin, tout, cl, j, C, es, nb, nouter, rowb, planeb, wsb, sp_, dp_, oomp};
    ct__par_for(ntask, nt > 1 ? 1 : ntask, ct__k_upsample_tasks, &q_);

    CT_FREE(tab);
    if (oom) return ct__failed(CT_ERR_MEMORY, "%s: out of memory", ct__opdef_get(c->op)->name);
    return 0;
}
/* Each upsampling op is linear in its input: the backward of the forward is the
   backward op, and the backward of the backward op is the forward op. */
static int ct__bw_upsample(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    if (!CT__NEEDS(n, 0)) return 0;
    int k = ct__ups_local(n->op), dims = ct__ups_info[k >> 1].dims;
    ct__attrs a = n->attrs;
    if (k & 1) {
        gin[0] = ct__op1(CT__NNOP(UPSAMPLE_NEAREST1D) + (k - 1), gout[0], &a);
    } else {
        for (int q = 0; q < dims + 2; q++) a.v[dims + q] = n->in_meta[0].shape[q];
        a.nv = 2 * dims + 2;
        gin[0] = ct__op1(CT__NNOP(UPSAMPLE_NEAREST1D) + (k + 1), gout[0], &a);
    }
    return gin[0] ? 0 : -1;
}

/* ---- F.interpolate ---- */
static void ct__rs_pytuple_i(char *buf, size_t cap, int n, const int64_t *v) {
    buf[0] = 0;
    ct__msg_cat(buf, cap, "(");
    for (int i = 0; i < n; i++) ct__msg_cat(buf, cap, i ? ", %lld" : "%lld", (long long)v[i]);
    ct__msg_cat(buf, cap, n == 1 ? ",)" : ")");
}
static void ct__rs_pytuple_f(char *buf, size_t cap, int n, const double *v) {
    char f[40];
    buf[0] = 0;
    ct__msg_cat(buf, cap, "(");
    for (int i = 0; i < n; i++) {
        ct__pyfloat(v[i], f, sizeof f);
        ct__msg_cat(buf, cap, i ? ", %s" : "%s", f);
    }
    ct__msg_cat(buf, cap, n == 1 ? ",)" : ")");
}
/* entries given in a size / scale_factor array: up to the last nonzero one */
static int ct__rs_count_i(const int64_t *v) { return v[2] ? 3 : v[1] ? 2 : v[0] ? 1 : 0; }
static int ct__rs_count_f(const double *v) { return v[2] != 0 ? 3 : v[1] != 0 ? 2 : v[0] != 0 ? 1 : 0; }
static const char *const ct__rs_modes[7] = {"nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area"};
CTENSOR_API ct_tensor *ct_interpolate(const ct_tensor *x, const ct_interpolate_options *o) {
    if (!x) { ct__null_arg("interpolate", 0); return NULL; }
    ct_interpolate_options z;
    memset(&z, 0, sizeof z);
    if (!o) o = &z;
    const char *mode = o->mode ? o->mode : "nearest";
    int mi = -1;
    for (int i = 0; i < 7; i++)
        if (!strcmp(mode, ct__rs_modes[i])) mi = i;
    int nearestish = mi == 0 || mi == 1 || mi == 6;
    if (nearestish && o->align_corners)
        return ct__fail(CT_ERR_ARG, "interpolate: align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear");
    int align = o->align_corners > 0;
    int dim = x->ndim - 2;
    int ns = ct__rs_count_i(o->size), nf = ct__rs_count_f(o->scale_factor);
    int64_t out[3] = {0, 0, 0};
    double sf[3] = {NAN, NAN, NAN};
    char t1[160], t2[160];
    ct__shapestr sp = ct__fmt_shape(dim > 0 ? dim : 0, x->shape + 2);
    if (ns && nf) return ct__fail(CT_ERR_ARG, "interpolate: only one of size or scale_factor should be defined");
    if (ns) {
        if (ns > 1 && ns != dim) {
            ct__rs_pytuple_i(t1, sizeof t1, ns, o->size);
            return ct__fail(CT_ERR_ARG, "interpolate: Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of %s and output size of %s. Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.",
                            sp.s, t1);
        }
        for (int i = 0; i < dim && i < 3; i++) out[i] = ns == 1 ? o->size[0] : o->size[i];
    } else if (nf) {
        if (nf > 1 && nf != dim) {
            ct__rs_pytuple_f(t2, sizeof t2, nf, o->scale_factor);
            return ct__fail(CT_ERR_ARG, "interpolate: Input and scale_factor must have the same number of spatial dimensions, but got input with spatial dimensions of %s and scale_factor of shape %s. Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.",
                            sp.s, t2);
        }
        for (int i = 0; i < dim && i < 3; i++) sf[i] = nf == 1 ? o->scale_factor[0] : o->scale_factor[i];
    } else {
        return ct__fail(CT_ERR_ARG, "interpolate: either size or scale_factor should be defined");
    }
    if (o->recompute_scale_factor > 0 && ns) return ct__fail(CT_ERR_ARG, "interpolate: recompute_scale_factor is not meaningful with an explicit size.");
    if (nf) {
        /* the output size: floor(in * scale) in PyTorch's Python code (recomputing, "area"), the
           truncated product in its C++ otherwise (the same unless negative: the error message) */
        int py = o->recompute_scale_factor > 0 || mi == 6;
        for (int i = 0; i < dim && i < 3; i++) {
            double v = (double)x->shape[2 + i] * sf[i];
            if (!(v > -4.0e18 && v < 4.0e18))
                return ct__fail(CT_ERR_ARG, "interpolate: the output size %lld * %g is out of range", (long long)x->shape[2 + i], sf[i]);
            out[i] = (int64_t)(py ? floor(v) : trunc(v));
        }
        /* recompute_scale_factor=True, and "area": the kernels get the size only */
        if (o->recompute_scale_factor > 0 || mi == 6) sf[0] = sf[1] = sf[2] = NAN;
    }
    if (o->antialias) {
        if (!((mi == 3 || mi == 4) && x->ndim == 4))
            return ct__fail(CT_ERR_ARG, "interpolate: Anti-alias option is only supported for bilinear and bicubic modes");
        return ct__fail(CT_ERR_UNSUPPORTED, "interpolate: antialias=True is not supported by ctensor (PyTorch's _upsample_%s2d_aa)",
                        mi == 3 ? "bilinear" : "bicubic");
    }
    static const char *const need[6] = {"", "", "linear mode needs 3D", "bilinear mode needs 4D", "", "trilinear mode needs 5D"};
    int op = -1;
    int ok_rank = x->ndim >= 3 && x->ndim <= 5;
    if (mi == 6 && ok_rank) {
        int s = ct_scope_begin();
        ct_tensor *y = NULL;
        if (x->ndim == 3) {
            y = ct_squeeze_dim(ct_adaptive_avg_pool2d(ct_unsqueeze(x, 2), 1, out[0]), 2);
        } else if (x->ndim == 4) {
            y = ct_adaptive_avg_pool2d(x, out[0], out[1]);
        } else {
            /* adaptive_avg_pool3d as two 2-D poolings: (H, W) of each depth, then D (W' = OH * OW pools 1:1) */
            int64_t N = x->shape[0], C = x->shape[1], D = x->shape[2];
            if (out[0] < 0 || out[1] < 0 || out[2] < 0) {
                ct_set_error(CT_ERR_ARG, "interpolate: adaptive_avg_pool3d: output_size must be non-negative, got (%lld, %lld, %lld)",
                             (long long)out[0], (long long)out[1], (long long)out[2]);
            } else {
                int64_t s1[4] = {N, C * D, x->shape[3], x->shape[4]}, s2[4] = {N, C, D, out[1] * out[2]}, s3[5] = {N, C, out[0], out[1], out[2]};
                int bad = 0;
                for (int q = 1; q < 5; q++) bad |= x->shape[q] == 0;
                if (bad)
                    ct_set_error(CT_ERR_SHAPE, "interpolate: adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes %s",
                                 CT__SHAPE(x));
                else if (out[0] * out[1] * out[2] == 0) {   /* an empty result (still in x's graph) */
                    int64_t s0[2] = {N * C, D * x->shape[3] * x->shape[4]};
                    y = ct_reshape_n(ct_narrow(ct_reshape_n(x, 2, s0), 1, 0, 0), 5, s3);
                } else {
                    y = ct_reshape_n(ct_adaptive_avg_pool2d(ct_reshape_n(ct_adaptive_avg_pool2d(ct_reshape_n(x, 4, s1), out[1], out[2]), 4, s2),
                                                            out[0], out[1] * out[2]),
                                     5, s3);
                }
            }
        }
        ct_keep(y);
        ct_scope_end(s);
        return y;
    }
    if (x->ndim == 3 && mi == 0) op = CT__NNOP(UPSAMPLE_NEAREST1D);
    else if (x->ndim == 4 && mi == 0) op = CT__NNOP(UPSAMPLE_NEAREST2D);
    else if (x->ndim == 5 && mi == 0) op = CT__NNOP(UPSAMPLE_NEAREST3D);
    else if (x->ndim == 3 && mi == 1) op = CT__NNOP(UPSAMPLE_NEAREST_EXACT1D);
    else if (x->ndim == 4 && mi == 1) op = CT__NNOP(UPSAMPLE_NEAREST_EXACT2D);
    else if (x->ndim == 5 && mi == 1) op = CT__NNOP(UPSAMPLE_NEAREST_EXACT3D);
    else if (x->ndim == 3 && mi == 2) op = CT__NNOP(UPSAMPLE_LINEAR1D);
    else if (x->ndim == 4 && mi == 3) op = CT__NNOP(UPSAMPLE_BILINEAR2D);
    else if (x->ndim == 4 && mi == 4) op = CT__NNOP(UPSAMPLE_BICUBIC2D);
    else if (x->ndim == 5 && mi == 5) op = CT__NNOP(UPSAMPLE_TRILINEAR3D);
    if (op < 0) {
        if (ok_rank && (mi == 2 || mi == 3 || mi == 5))
            return ct__fail(CT_ERR_SHAPE, "interpolate: Got %dD input, but %s input", x->ndim, need[mi]);
        return ct__fail(mi < 0 ? CT_ERR_ARG : CT_ERR_SHAPE,
                        "interpolate: Input Error: Only 3D, 4D and 5D input Tensors supported (got %dD) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got %s)",
                        x->ndim, mode);
    }
    ct__attrs a;
    ct__attrs_init(&a);
    for (int i = 0; i < dim; i++) { a.v[i] = out[i]; a.s[i] = sf[i]; }
    a.nv = dim;
    a.flags = align ? 1 : 0;
    return ct__op1(op, x, &a);
}

/* ---- pixel shuffle ----
   Attribute i[0]: the factor r. Both ops are permutations of the elements, so
   each one's gradient is the other op applied to the incoming gradient. */
static int ct__meta_pixel_shuffle(ct__call *c) {
    int un = c->op == CT__NNOP(PIXEL_UNSHUFFLE);
    const char *nm = un ? "pixel_unshuffle" : "pixel_shuffle";
    const ct_tensor *x = c->in[0];
    int64_t r = c->a->i[0], nd = x->ndim;
    if (nd < 3) return ct__failed(CT_ERR_SHAPE, "%s: %s expects input to have at least 3 dimensions, but got input with %d dimension(s)", nm, nm, x->ndim);
    if (r <= 0) return ct__failed(CT_ERR_ARG, "%s: %s expects a positive %s, but got %lld", nm, nm, un ? "downscale_factor" : "upscale_factor", (long long)r);
    if (!CT__ISFLOAT(x->dtype) && !CT__ISINT(x->dtype) && !CT__ISBOOL(x->dtype) && !ct_dtype_is_complex(x->dtype))
        return ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s'", nm, CT__DTNAME(x->dtype));
    int64_t C = x->shape[nd - 3], H = x->shape[nd - 2], W = x->shape[nd - 1];
    ct__outinfo *o = &c->oi[0];
    o->kind = CT__OUT_NEW;
    o->dtype = x->dtype;
    o->ndim = (int32_t)nd;
    for (int q = 0; q < nd - 3; q++) o->shape[q] = x->shape[q];
    if (!un) {
        int64_t r2 = r <= 3037000499LL ? r * r : INT64_MAX;
        if (C % r2)
            return ct__failed(CT_ERR_SHAPE, "%s: pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)=%lld is not divisible by %lld",
                              nm, (long long)C, (long long)r2);
        if (H > INT64_MAX / r || W > INT64_MAX / r) return ct__failed(CT_ERR_MEMORY, "%s: the output size overflows", nm);
        o->shape[nd - 3] = C / r2;
        o->shape[nd - 2] = H * r;
        o->shape[nd - 1] = W * r;
    } else {
        if (H % r)
            return ct__failed(CT_ERR_SHAPE, "%s: pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=%lld is not divisible by %lld",
                              nm, (long long)H, (long long)r);
        if (W % r)
            return ct__failed(CT_ERR_SHAPE, "%s: pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=%lld is not divisible by %lld",
                              nm, (long long)W, (long long)r);
        if (r > 3037000499LL || C > INT64_MAX / (r * r)) return ct__failed(CT_ERR_MEMORY, "%s: the output size overflows", nm);
        o->shape[nd - 3] = C * r * r;
        o->shape[nd - 2] = H / r;
        o->shape[nd - 1] = W / r;
    }
    if (ct__check_shape(nm, (int)nd, o->shape)) return -1;
    o->has_strides = nd == 4 && ct__is_cl_input(x);
    if (o->has_strides) ct__cl_strides(o->shape, o->strides);
    c->nout = 1;
    return 0;
}
/* copies a 5-D strided box of elements of size es (dims in loop order, the last innermost) */
static void ct__copy_box5(char *dst, const int64_t *ds, const char *src, const int64_t *ss, const int64_t *n, size_t es) {
    for (int64_t a = 0; a < n[0]; a++)
        for (int64_t b = 0; b < n[1]; b++)
            for (int64_t c = 0; c < n[2]; c++)
                for (int64_t d = 0; d < n[3]; d++) {
                    char *dp = dst + (a * ds[0] + b * ds[1] + c * ds[2] + d * ds[3]) * (int64_t)es;
                    const char *sp = src + (a * ss[0] + b * ss[1] + c * ss[2] + d * ss[3]) * (int64_t)es;
                    int64_t m = n[4], dd = ds[4] * (int64_t)es, sd = ss[4] * (int64_t)es;
                    switch (es) {
                    case 4: for (int64_t e = 0; e < m; e++) memcpy(dp + e * dd, sp + e * sd, 4); break;
                    case 8: for (int64_t e = 0; e < m; e++) memcpy(dp + e * dd, sp + e * sd, 8); break;
                    default: for (int64_t e = 0; e < m; e++) memcpy(dp + e * dd, sp + e * sd, es); break;
                    }
                }
}
static int ct__k_pixel_shuffle(ct__call *c) {
    int un = c->op == CT__NNOP(PIXEL_UNSHUFFLE);
    const ct_tensor *x = c->in[0];
    ct_tensor *y = c->out[0];
    if (ct_numel(y) == 0) return 0;
    int nd = x->ndim;
    int64_t r = c->a->i[0];
    size_t es = ct__dt[x->dtype].size;
    /* the shuffled (small) side is [C, H, W] with channel c * r * r + i * r + j; the big side
       [C', H * r, W * r] has element (c, h * r + i, w * r + j) */
    const ct_tensor *sm = un ? y : x, *bg = un ? x : y;
    int64_t C = bg->shape[nd - 3], H = sm->shape[nd - 2], W = sm->shape[nd - 1];
    const int64_t *smst = sm->strides + nd - 3, *bgst = bg->strides + nd - 3;
    /* strides of the (c, i, j, h, w) box on each side */
    int64_t s_sm[5] = {smst[0] * r * r, smst[0] * r, smst[0], smst[1], smst[2]};
    int64_t s_bg[5] = {bgst[0], bgst[1], bgst[2], bgst[1] * r, bgst[2] * r};
    int64_t n5[5] = {C, r, r, H, W};
    /* loop in the output's memory order: contiguous (c, i, j, h, w) for unshuffle, (c, h, i, w, j) for shuffle;
       channels-last: channels innermost */
    int perm[5];
    int ycl = nd == 4 && ct_is_channels_last(y) && !ct__is_contig(y);
    if (un) { if (ycl) { perm[0] = 3; perm[1] = 4; perm[2] = 0; perm[3] = 1; perm[4] = 2; } else { perm[0] = 0; perm[1] = 1; perm[2] = 2; perm[3] = 3; perm[4] = 4; } }
    else { if (ycl) { perm[0] = 3; perm[1] = 1; perm[2] = 4; perm[3] = 2; perm[4] = 0; } else { perm[0] = 0; perm[1] = 3; perm[2] = 1; perm[3] = 4; perm[4] = 2; } }
    int64_t ds[5], ss[5], nn[5];
    for (int q = 0; q < 5; q++) {
        nn[q] = n5[perm[q]];
        ds[q] = un ? s_sm[perm[q]] : s_bg[perm[q]];
        ss[q] = un ? s_bg[perm[q]] : s_sm[perm[q]];
    }
    int64_t B = 1;
    for (int q = 0; q < nd - 3; q++) B *= x->shape[q];
    const char *xp = ct__ptr(x);
    char *yp = ct__ptr(y);
    for (int64_t b = 0; b < B; b++) {
        int64_t xo = 0, yo = 0, rem = b;
        for (int q = nd - 4; q >= 0; q--) {
            int64_t i = rem % x->shape[q];
            rem /= x->shape[q];
            xo += i * x->strides[q];
            yo += i * y->strides[q];
        }
        ct__copy_box5(yp + yo * (int64_t)es, ds, xp + xo * (int64_t)es, ss, nn, es);
    }
    return 0;
}
static int ct__bw_pixel_shuffle(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    if (!CT__NEEDS(n, 0)) return 0;
    ct__attrs a = n->attrs;
    int un = n->op == CT__NNOP(PIXEL_UNSHUFFLE);
    gin[0] = ct__op1(un ? CT__NNOP(PIXEL_SHUFFLE) : CT__NNOP(PIXEL_UNSHUFFLE), gout[0], &a);
    return gin[0] ? 0 : -1;
}
static ct_tensor *ct__pixel_shuffle_entry(int un, const ct_tensor *x, int64_t r) {
    if (!x) { ct__null_arg(un ? "pixel_unshuffle" : "pixel_shuffle", 0); return NULL; }
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = r;
    return ct__op1(un ? CT__NNOP(PIXEL_UNSHUFFLE) : CT__NNOP(PIXEL_SHUFFLE), x, &a);
}
CTENSOR_API ct_tensor *ct_pixel_shuffle(const ct_tensor *x, int64_t r) { return ct__pixel_shuffle_entry(0, x, r); }
CTENSOR_API ct_tensor *ct_pixel_unshuffle(const ct_tensor *x, int64_t r) { return ct__pixel_shuffle_entry(1, x, r); }

/* ---- F.affine_grid: base grid [1, D*H*W, 3 or 4] @ theta^T, as affine_grid_generator ---- */
/* linspace_from_neg_one: PyTorch's linspace(-1, 1, n) (both ends exact), times (n - 1) / n unless align_corners */
static double ct__ag_coord(int64_t i, int64_t n, int align, int f32) {
    if (n <= 1) return 0.0;
    double step = ct__rs_r(2.0 / ct__rs_r((double)(n - 1), f32), f32);
    double v = i < n / 2 ? ct__rs_r(-1.0 + ct__rs_r(step * ct__rs_r((double)i, f32), f32), f32)
                         : ct__rs_r(1.0 - ct__rs_r(step * ct__rs_r((double)(n - i - 1), f32), f32), f32);
    if (!align) v = ct__rs_r(ct__rs_r(v * ct__rs_r((double)(n - 1), f32), f32) / ct__rs_r((double)n, f32), f32);
    return v;
}
CTENSOR_API ct_tensor *ct_affine_grid(const ct_tensor *theta, int n, const int64_t *size, int align_corners) {
    if (!theta) { ct__null_arg("affine_grid", 0); return NULL; }
    if (!size || n < 0 || n > 8) return ct__fail(CT_ERR_ARG, "affine_grid: size must hold 4 or 5 sizes (got %d)", n);
    if (!CT__ISFLOAT(theta->dtype))
        return ct__fail(CT_ERR_DTYPE, "affine_grid: Expected theta to have floating point type, but got %s", ct__dt[theta->dtype].torch_name);
    ct__shapestr ss = ct__fmt_shape(n, size);
    if (n == 4 || n == 5) {
        int r = n == 4 ? 2 : 3;
        if (theta->ndim != 3 || theta->shape[1] != r || theta->shape[2] != r + 1)
            return ct__fail(CT_ERR_SHAPE, "affine_grid: Expected a batch of %dD affine matrices of shape Nx%dx%d for size %s. Got torch.Size(%s).", r,
                            r, r + 1, ss.s, CT__SHAPE(theta));
    } else {
        return ct__fail(CT_ERR_ARG, "affine_grid: affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size %s.", ss.s);
    }
    int64_t mn = size[2], msz = size[0];
    for (int q = 2; q < n; q++) mn = CT__MIN(mn, size[q]);
    for (int q = 0; q < n; q++) msz = CT__MIN(msz, size[q]);
    /* PyTorch skips the size check when align_corners and a spatial size is 1 (it warns instead) */
    if (!(align_corners && mn == 1) && msz <= 0)
        return ct__fail(CT_ERR_ARG, "affine_grid: Expected non-zero, positive output size. Got %s", ss.s);
    for (int q = 2; q < n; q++)
        if (size[q] < 0) return ct__fail(CT_ERR_ARG, "affine_grid: Expected non-zero, positive output size. Got %s", ss.s);
    if (theta->shape[0] != size[0])
        return ct__fail(CT_ERR_SHAPE, "affine_grid: Expected size for first two dimensions of batch2 tensor to be: [%lld, %lld] but got: [%lld, %lld]. (theta holds %lld matrices for a batch of %lld)",
                        (long long)size[0], (long long)(n - 1), (long long)theta->shape[0], (long long)(n - 1),
                        (long long)theta->shape[0], (long long)size[0]);
    int64_t gshape[4] = {1, 1, 1, 1};   /* D, H, W, n - 1 spatial coords + 1 */
    for (int q = 2; q < n; q++) gshape[q - (n - 3)] = size[q];
    int64_t P = gshape[0] * gshape[1] * gshape[2], k = n - 1;
    if (ct__check_shape("affine_grid", 4, gshape)) return NULL;
    int s = ct_scope_begin();
    int64_t bshape[2] = {P, k};
    ct_tensor *base = ct_empty_n(theta->dtype, 2, bshape), *y = NULL;
    if (base) {
        int f32 = theta->dtype == CT_FLOAT32;
        for (int64_t d = 0; d < gshape[0]; d++)
            for (int64_t h = 0; h < gshape[1]; h++)
                for (int64_t w = 0; w < gshape[2]; w++) {
                    double v[4];
                    int64_t p = (d * gshape[1] + h) * gshape[2] + w;
                    v[0] = ct__ag_coord(w, gshape[2], align_corners, f32);
                    v[1] = ct__ag_coord(h, gshape[1], align_corners, f32);
                    v[2] = k == 4 ? ct__ag_coord(d, gshape[0], align_corners, f32) : 1.0;
                    v[3] = 1.0;
                    for (int64_t q = 0; q < k; q++) {
                        if (f32) ((float *)ct__ptr(base))[p * k + q] = (float)v[q];
                        else ((double *)ct__ptr(base))[p * k + q] = v[q];
                    }
                }
        int64_t oshape[5] = {size[0], 1, 1, 1, 1};
        int on = 1;
        for (int q = 2; q < n; q++) oshape[on++] = size[q];
        oshape[on++] = k - 1;
        y = ct_reshape_n(ct_matmul(base, ct_transpose(theta, 1, 2)), on, oshape);
    }
    ct_keep(y);
    ct_scope_end(s);
    return y;
}

/* ---- grid sampling ----
   Ops grid_sampler_2d / _3d (input, grid) -> output and their backward ops
   (grad_output, input, grid) -> (grad_input, grad_grid). Attributes: i[0]
   interpolation (0 bilinear, 1 nearest, 2 bicubic), i[1] padding (0 zeros,
   1 border, 2 reflection), flags bit 0 align_corners; the backward: bit 1
   grad_input wanted, bit 2 grad_grid wanted (the other output stays zero).
   Each grid point becomes K taps (4 bilinear, 1 nearest, 16 bicubic in 2-D;
   8 / 1 in 3-D): an offset into the input plane (-1 outside: the value 0) and
   a weight, with the weight's derivatives in x, y, z for the backward. The
   taps of a block of points are computed once and applied to every channel.
   The coordinate math follows PyTorch's 2-D CPU kernel (GridSamplerKernel.cpp,
   vectorized) for 2-D and its scalar GridSampler.h for 3-D, in the input's
   precision (see ct__rs_r). */
typedef struct ct__gs_axis {
    int64_t size;
    int align, pad, f, d3;
    double sf, maxv, low, twice_span;   /* 2-D: scaling factor, clip limit, reflection parameters */
    int empty;
} ct__gs_axis;
static void ct__gs_axis_init(ct__gs_axis *x, int64_t size, int align, int pad, int f32, int d3) {
    x->size = size; x->align = align; x->pad = pad; x->f = f32; x->d3 = d3;
    double s = ct__rs_r((double)size, f32), s1 = ct__rs_r((double)(size - 1), f32);
    x->maxv = s1;
    x->sf = ct__rs_r((align ? s1 : s) / 2, f32);
    x->low = align ? 0.0 : -0.5;
    x->twice_span = ct__rs_r((align ? s1 : s) * 2, f32);
    x->empty = align ? size <= 1 : size <= 0;
}
/* NaN-propagating min / max (as Vectorized's minimum / maximum) */
CT__INLINE double ct__gs_max(double a, double b) { return a != a ? a : a > b ? a : b; }
CT__INLINE double ct__gs_min(double a, double b) { return a != a ? a : a < b ? a : b; }
static double ct__gs_unnormalize(const ct__gs_axis *x, double c, double *g) {
    int f = x->f;
    if (x->d3) {   /* grid_sampler_unnormalize(_set_grad) */
        double s = ct__rs_r((double)x->size, f);
        if (g) *g = ct__rs_r((x->align ? ct__rs_r((double)(x->size - 1), f) : s) / 2, f);
        if (x->align) return ct__rs_r(ct__rs_r(ct__rs_r(c + 1, f) / 2, f) * ct__rs_r((double)(x->size - 1), f), f);
        return ct__rs_r(ct__rs_r(ct__rs_r(ct__rs_r(c + 1, f) * s, f) - 1, f) / 2, f);
    }
    if (g) *g = x->sf;
    double u = ct__rs_r(ct__rs_r(c + 1, f) * x->sf, f);
    return x->align ? u : ct__rs_r(u - 0.5, f);
}
/* clip to [0, size - 1]; *g: 1 strictly inside, else 0 (borders count as outside for the gradient) */
static double ct__gs_clip(const ct__gs_axis *x, double v, double *g) {
    double lo = ct__gs_max(v, 0.0);
    double r = ct__gs_min(lo, x->maxv);
    if (g) *g = (lo != 0.0 && r != x->maxv && v == v) ? 1.0 : 0.0;
    if (x->d3 && g && !(v > 0.0 && v < x->maxv)) *g = 0.0;
    return r;
}
static double ct__gs_reflect(const ct__gs_axis *x, double v, double *g) {
    int f = x->f;
    if (x->d3) {   /* reflect_coordinates(_set_grad) with twice_low, twice_high */
        int64_t tl = x->align ? 0 : -1, th = x->align ? 2 * (x->size - 1) : 2 * x->size - 1;
        if (tl == th) { if (g) *g = 0; return 0.0; }
        double mn = ct__rs_r((double)tl / 2, f), span = ct__rs_r((double)(th - tl) / 2, f);
        double in = ct__rs_r(v - mn, f), sign = 1;
        if (in < 0) { sign = -1; in = -in; }
        double extra = fmod(in, span);
        int flips = (int)floor(ct__rs_r(in / span, f));
        if (flips % 2 == 0) { if (g) *g = sign; return ct__rs_r(extra + mn, f); }
        if (g) *g = -sign;
        return ct__rs_r(ct__rs_r(span - extra, f) + mn, f);
    }
    if (x->empty) { if (g) *g = 0; return 0.0; }
    double iml = ct__rs_r(v - x->low, f);
    int neg = iml < 0;
    double ab = fabs(iml);
    double flips = trunc(ct__rs_r(ab / x->twice_span, f));
    double extra = ct__rs_r(ab - ct__rs_r(flips * x->twice_span, f), f);
    double refl = ct__rs_r(x->twice_span - extra, f);
    int more = extra > refl;
    if (g) *g = (more ^ neg) ? -1.0 : 1.0;
    return ct__rs_r((more ? refl : extra) + x->low, f);
}
/* padding applied to an unnormalized coordinate (compute_coordinates); *g multiplies the gradient */
static double ct__gs_pad(const ct__gs_axis *x, double v, double *g) {
    double g1 = 1, g2 = 1;
    if (x->pad == 1) v = ct__gs_clip(x, v, g ? &g1 : NULL);
    else if (x->pad == 2) { v = ct__gs_reflect(x, v, g ? &g2 : NULL); v = ct__gs_clip(x, v, g ? &g1 : NULL); }
    if (g) *g = ct__rs_r(g1 * g2, x->f);
    return v;
}
/* grid_sampler_compute_source_index(_set_grad) */
static double ct__gs_source(const ct__gs_axis *x, double c, double *g) {
    double gu = 1, gp = 1;
    double v = ct__gs_pad(x, ct__gs_unnormalize(x, c, g ? &gu : NULL), g ? &gp : NULL);
    if (g) *g = gp == 1.0 ? gu : ct__rs_r(gp * gu, x->f);
    return v;
}
/* tap position i (an integer-valued coordinate) -> index, or -1 outside (zeros padding) */
CT__INLINE int64_t ct__gs_index(double i, int64_t size) { return i >= 0 && i <= (double)(size - 1) ? (int64_t)i : -1; }

enum { CT__GS_CHUNK = 256 };
typedef struct ct__gs_geo {
    int nsp;                      /* 2 or 3 spatial dims */
    int interp, pad, align, f32;
    int64_t N, C, in[3], out[3];  /* in / out: (D,) H, W */
    int K;
} ct__gs_geo;
/* Taps of points [p0, p0 + np) of sample n. off: [np * K] plane offsets with the strides ist of
   x, y, z (-1: outside); off2: the same with strides ist2 (when ist2 is not NULL); w, dw: weights and their
   derivatives (dw[np * K * 3]: d/dx, d/dy, d/dz); mult: the coordinates' gradient factors [np * 3]. */
static void ct__gs_taps(const ct__gs_geo *g, const int64_t *ist, const int64_t *ist2, const ct_tensor *grid, int64_t n, int64_t p0,
                        int64_t np, int64_t *off, int64_t *off2, double *w, double *dw, double *mult) {
    int ns = g->nsp, f = g->f32;
    ct__gs_axis ax[3];   /* x (W), y (H), z (D) */
    for (int q = 0; q < ns; q++) ct__gs_axis_init(&ax[q], g->in[ns - 1 - q], g->align, g->pad, f, ns == 3);
    const char *gp = ct__ptr(grid);
    int gdt = grid->dtype == CT_FLOAT32;
    int K = g->K;
    for (int64_t pi = 0; pi < np; pi++) {
        int64_t p = p0 + pi, rem = p, go = n * grid->strides[0];
        for (int q = ns - 1; q >= 0; q--) {
            go += (rem % g->out[q]) * grid->strides[1 + q];
            rem /= g->out[q];
        }
        double c[3], m[3] = {0, 0, 0};
        for (int q = 0; q < ns; q++) {
            int64_t e = go + q * grid->strides[grid->ndim - 1];
            c[q] = gdt ? (double)((const float *)gp)[e] : ((const double *)gp)[e];
        }
        int64_t ti[16][3];   /* each tap's x, y, z index (-1: outside) */
        double *wt = w + pi * K, *dx = dw + pi * K * 3;
        if (g->interp == 2) {
            /* bicubic: the unnormalized point; padding per tap */
            double ux = ct__gs_unnormalize(&ax[0], c[0], &m[0]), uy = ct__gs_unnormalize(&ax[1], c[1], &m[1]);
            double fx = floor(ux), fy = floor(uy);
            double tx = ct__rs_r(ux - fx, f), ty = ct__rs_r(uy - fy, f), cx[4], cy[4], gx[4], gy[4];
            ct__rs_cubic_coeffs(tx, f, cx);
            ct__rs_cubic_coeffs(ty, f, cy);
            /* d coeff / d x (PyTorch's get_cubic_coefficients_grad is its negative) */
            {
                const double A = -0.75;
                double t;
                t = ct__rs_r(-1.0 - tx, f); gx[0] = -ct__rs_r(ct__rs_r(ct__rs_r(ct__rs_r(-3 * A * t, f) - 10 * A, f) * t, f) - 8 * A, f);
                t = ct__rs_r(0.0 - tx, f); gx[1] = -ct__rs_r(ct__rs_r(ct__rs_r(-3 * (A + 2) * t, f) - 2 * (A + 3), f) * t, f);
                t = ct__rs_r(1.0 - tx, f); gx[2] = -ct__rs_r(ct__rs_r(ct__rs_r(3 * (A + 2) * t, f) - 2 * (A + 3), f) * t, f);
                t = ct__rs_r(2.0 - tx, f); gx[3] = -ct__rs_r(ct__rs_r(ct__rs_r(ct__rs_r(3 * A * t, f) - 10 * A, f) * t, f) + 8 * A, f);
                t = ct__rs_r(-1.0 - ty, f); gy[0] = -ct__rs_r(ct__rs_r(ct__rs_r(ct__rs_r(-3 * A * t, f) - 10 * A, f) * t, f) - 8 * A, f);
                t = ct__rs_r(0.0 - ty, f); gy[1] = -ct__rs_r(ct__rs_r(ct__rs_r(-3 * (A + 2) * t, f) - 2 * (A + 3), f) * t, f);
                t = ct__rs_r(1.0 - ty, f); gy[2] = -ct__rs_r(ct__rs_r(ct__rs_r(3 * (A + 2) * t, f) - 2 * (A + 3), f) * t, f);
                t = ct__rs_r(2.0 - ty, f); gy[3] = -ct__rs_r(ct__rs_r(ct__rs_r(ct__rs_r(3 * A * t, f) - 10 * A, f) * t, f) + 8 * A, f);
            }
            int64_t xi[4], yi[4];
            for (int i = 0; i < 4; i++) {
                xi[i] = ct__gs_index(ct__gs_pad(&ax[0], fx - 1 + i, NULL), ax[0].size);
                yi[i] = ct__gs_index(ct__gs_pad(&ax[1], fy - 1 + i, NULL), ax[1].size);
            }
            for (int j = 0; j < 4; j++)
                for (int i = 0; i < 4; i++) {
                    int t = j * 4 + i;
                    ti[t][0] = xi[i];
                    ti[t][1] = yi[j];
                    wt[t] = ct__rs_r(cx[i] * cy[j], f);
                    dx[3 * t] = gx[i] * cy[j];
                    dx[3 * t + 1] = cx[i] * gy[j];
                    dx[3 * t + 2] = 0;
                }
        } else {
            double u[3];
            for (int q = 0; q < ns; q++) u[q] = ct__gs_source(&ax[q], c[q], &m[q]);
            if (g->interp == 1) {
                for (int q = 0; q < ns; q++) ti[0][q] = ct__gs_index(nearbyint(u[q]), ax[q].size);
                wt[0] = 1;
                dx[0] = dx[1] = dx[2] = 0;
            } else {
                /* corners in PyTorch's order: x fastest, then y, then z (nw, ne, sw, se; t..., b...) */
                double fl[3], fr[3], e[3];
                int64_t i0[3], i1[3];
                for (int q = 0; q < ns; q++) {
                    fl[q] = floor(u[q]);
                    fr[q] = ct__rs_r(u[q] - fl[q], f);   /* distance to the low corner */
                    e[q] = ct__rs_r(1.0 - fr[q], f);     /* ... to the high one */
                    i0[q] = ct__gs_index(fl[q], ax[q].size);
                    i1[q] = ct__gs_index(fl[q] + 1, ax[q].size);
                }
                if (ns == 3) {
                    /* GridSampler.cpp: tnw = (ix_bse - ix) * (iy_bse - iy) * (iz_bse - iz), ... */
                    for (int q = 0; q < 3; q++) e[q] = ct__rs_r(fl[q] + 1 - u[q], f), fr[q] = ct__rs_r(u[q] - fl[q], f);
                }
                for (int t = 0; t < (1 << ns); t++) {
                    double ww = 1, dd[3] = {1, 1, 1};
                    for (int q = 0; q < ns; q++) {
                        int hi = (t >> q) & 1;
                        ti[t][q] = hi ? i1[q] : i0[q];
                        double lw = hi ? fr[q] : e[q];
                        for (int r = 0; r < ns; r++) dd[r] = r == q ? dd[r] * (hi ? 1.0 : -1.0) : ct__rs_r(dd[r] * lw, f);
                    }
                    if (ns == 2) {
                        /* GridSamplerKernel.cpp: nw = s * e, ne = s * w, sw = n * e, se = n * w (y first) */
                        double ly = (t >> 1) & 1 ? fr[1] : e[1], lx = t & 1 ? fr[0] : e[0];
                        ww = ct__rs_r(ly * lx, f);
                    } else {
                        double lx = t & 1 ? fr[0] : e[0], ly = (t >> 1) & 1 ? fr[1] : e[1], lz = (t >> 2) & 1 ? fr[2] : e[2];
                        ww = ct__rs_r(ct__rs_r(lx * ly, f) * lz, f);
                    }
                    wt[t] = ww;
                    for (int r = 0; r < 3; r++) dx[3 * t + r] = r < ns ? dd[r] : 0;
                }
            }
        }
        for (int t = 0; t < K; t++) {
            int64_t o1 = 0, o2 = 0;
            for (int q = 0; q < ns; q++) {
                if (ti[t][q] < 0) { o1 = o2 = -1; break; }
                o1 += ti[t][q] * ist[q];
                if (ist2) o2 += ti[t][q] * ist2[q];
            }
            off[pi * K + t] = o1;
            if (ist2) off2[pi * K + t] = o2;
        }
        for (int q = 0; q < 3; q++) mult[pi * 3 + q] = m[q];
    }
}
/* inner loops over the points of a block, every channel of a point at once (its taps stay in
   registers; the channels' planes are strides xs apart, the output's ys apart). A tap outside
   the input contributes 0 * w (as PyTorch's masked gathers), whatever x holds. */
#define CT__GS_FWD_K(T, KK)                                                                               \
    for (int64_t p = 0; p < np; p++) {                                                                    \
        const int64_t *o = off + p * (KK);                                                                \
        const T *wp = w + p * (KK);                                                                       \
        int64_t oz[KK];                                                                                   \
        int in = 1;                                                                                       \
        for (int k = 0; k < (KK); k++) { in &= o[k] >= 0; oz[k] = o[k] < 0 ? 0 : o[k]; }                 \
        const T *xc = x;                                                                                  \
        T *yp = y + p;                                                                                    \
        if (in) {                                                                                         \
            for (int64_t c = 0; c < C; c++, xc += xs, yp += ys) {                                         \
                T acc = xc[oz[0]] * wp[0];                                                                \
                for (int k = 1; k < (KK); k++) acc += xc[oz[k]] * wp[k];                                  \
                *yp = acc;                                                                                \
            }                                                                                             \
        } else {                                                                                          \
            for (int64_t c = 0; c < C; c++, xc += xs, yp += ys) {                                         \
                T acc = (o[0] < 0 ? (T)0 : xc[oz[0]]) * wp[0];                                            \
                for (int k = 1; k < (KK); k++) acc += (o[k] < 0 ? (T)0 : xc[oz[k]]) * wp[k];              \
                *yp = acc;                                                                                \
            }                                                                                             \
        }                                                                                                 \
    }
/* gi (channel planes gis apart; may be NULL) += w * g at the goff offsets; gs[p][r] = sum over
   channels of g * sum_k x[off[k]] * dw[k][r] (gs may be NULL); g of channel c at gy[gyo[p] + c * gys] */
#define CT__GS_BWD_K(T, KK)                                                                               \
    for (int64_t p = 0; p < np; p++) {                                                                    \
        const int64_t *o = off + p * (KK), *go = goff + p * (KK);                                         \
        const T *wp = w + p * (KK), *dp = dw + p * (KK) * 3;                                              \
        int64_t oz[KK];                                                                                   \
        for (int k = 0; k < (KK); k++) oz[k] = o[k] < 0 ? 0 : o[k];                                       \
        const T *xc = x, *gp = gy + gyo[p];                                                               \
        T *gic = gi, gx = 0, gyy = 0, gz = 0;                                                             \
        for (int64_t c = 0; c < C; c++, xc += xs, gp += gys) {                                            \
            T g = *gp;                                                                                    \
            if (gic) {                                                                                    \
                for (int k = 0; k < (KK); k++)                                                            \
                    if (o[k] >= 0) gic[go[k]] += wp[k] * g;                                               \
                gic += gis;                                                                               \
            }                                                                                             \
            if (gs) {                                                                                     \
                T sx = 0, sy = 0, sz = 0;                                                                 \
                for (int k = 0; k < (KK); k++) {                                                          \
                    T v = o[k] < 0 ? (T)0 : xc[oz[k]];                                                    \
                    sx += v * dp[3 * k];                                                                  \
                    sy += v * dp[3 * k + 1];                                                              \
                    if (ns == 3) sz += v * dp[3 * k + 2];                                                 \
                }                                                                                         \
                gx += sx * g;                                                                             \
                gyy += sy * g;                                                                            \
                gz += sz * g;                                                                             \
            }                                                                                             \
        }                                                                                                 \
        if (gs) { gs[p * 3] = (double)gx; gs[p * 3 + 1] = (double)gyy; gs[p * 3 + 2] = (double)gz; }      \
    }
#define CT__GS_LOOPS(SUF, T)                                                                              \
    static void ct__gs_fwd_##SUF(T *y, int64_t ys, const T *x, int64_t xs, int64_t C, const int64_t *off, const T *w, \
                                 int64_t np, int K) {                                                     \
        switch (K) {                                                                                      \
        case 1: CT__GS_FWD_K(T, 1) break;                                                                 \
        case 4: CT__GS_FWD_K(T, 4) break;                                                                 \
        case 8: CT__GS_FWD_K(T, 8) break;                                                                 \
        default: CT__GS_FWD_K(T, 16) break;                                                               \
        }                                                                                                 \
    }                                                                                                     \
    static void ct__gs_bwd_##SUF(T *gi, int64_t gis, double *gs, const T *x, int64_t xs, int64_t C, const T *gy, int64_t gys, \
                                 const int64_t *gyo, const int64_t *off, const int64_t *goff, const T *w, const T *dw, \
                                 int64_t np, int K, int ns) {                                             \
        switch (K) {                                                                                      \
        case 1: CT__GS_BWD_K(T, 1) break;                                                                 \
        case 4: CT__GS_BWD_K(T, 4) break;                                                                 \
        case 8: CT__GS_BWD_K(T, 8) break;                                                                 \
        default: CT__GS_BWD_K(T, 16) break;                                                               \
        }                                                                                                 \
    }
CT__GS_LOOPS(f32, float)
CT__GS_LOOPS(f64, double)

static int ct__gs_is3d(int op) { return op == CT__NNOP(GRID_SAMPLER_3D) || op == CT__NNOP(GRID_SAMPLER_3D_BACKWARD); }
static int ct__gs_isbw(int op) { return op == CT__NNOP(GRID_SAMPLER_2D_BACKWARD) || op == CT__NNOP(GRID_SAMPLER_3D_BACKWARD); }
static int ct__meta_grid_sampler(ct__call *c) {
    int d3 = ct__gs_is3d(c->op), bw = ct__gs_isbw(c->op);
    const char *nm = ct__opdef_get(c->op)->name;
    const ct_tensor *x = c->in[bw ? 1 : 0], *gr = c->in[bw ? 2 : 1];
    /* check_grid_sampler_common, then _2d / _3d */
    if (x->ndim < 1 || gr->ndim < 1 || x->shape[0] != gr->shape[0])
        return ct__failed(CT_ERR_SHAPE, "%s: grid_sampler(): expected grid and input to have same batch size, but got input with sizes %s and grid with sizes %s",
                          nm, CT__SHAPE(x), CT__SHAPE(gr));
    if (gr->shape[gr->ndim - 1] != x->ndim - 2)
        return ct__failed(CT_ERR_SHAPE, "%s: grid_sampler(): expected grid to have size %d in last dimension, but got grid with sizes %s", nm,
                          x->ndim - 2, CT__SHAPE(gr));
    for (int q = 2; q < x->ndim; q++)
        if (x->shape[q] <= 0)
            return ct__failed(CT_ERR_SHAPE, "%s: grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes %s with dimension %d being empty",
                              nm, CT__SHAPE(x), q);
    int want = d3 ? 5 : 4;
    if (x->ndim != want || gr->ndim != want)
        return ct__failed(CT_ERR_SHAPE, "%s: grid_sampler(): expected %dD input and grid with same number of dimensions, but got input with sizes %s and grid with sizes %s",
                          nm, want, CT__SHAPE(x), CT__SHAPE(gr));
    if (d3 && c->a->i[0] == 2) return ct__failed(CT_ERR_ARG, "%s: grid_sampler(): bicubic interpolation only supports 4D input", nm);
    if (c->a->i[0] < 0 || c->a->i[0] > 2 || c->a->i[1] < 0 || c->a->i[1] > 2)
        return ct__failed(CT_ERR_ARG, "%s: invalid interpolation (%lld) or padding (%lld) mode", nm, (long long)c->a->i[0], (long long)c->a->i[1]);
    if (x->dtype != CT_FLOAT32 && x->dtype != CT_FLOAT64)
        return ct__failed(CT_ERR_DTYPE, "%s: grid_sampler_%dd_cpu not implemented for %s", nm, d3 ? 3 : 2, CT__DTNAME(x->dtype));
    for (int i = 0; i < c->nin; i++)
        if (c->in[i]->dtype != x->dtype)
            return ct__failed(CT_ERR_DTYPE, "%s: expected scalar type %s but found %s", nm, CT__DTNAME(x->dtype), CT__DTNAME(c->in[i]->dtype));
    if (bw) {
        const ct_tensor *g = c->in[0];
        int ok = g->ndim == want && g->shape[0] == x->shape[0] && g->shape[1] == x->shape[1];
        for (int q = 2; ok && q < want; q++) ok = g->shape[q] == gr->shape[q - 1];
        if (!ok) return ct__failed(CT_ERR_SHAPE, "%s: grad_output of size %s does not match the output of grid_sampler", nm, CT__SHAPE(g));
    }
    c->nout = bw ? 2 : 1;
    for (int j = 0; j < c->nout; j++) {
        ct__outinfo *o = &c->oi[j];
        o->kind = CT__OUT_NEW;
        o->dtype = x->dtype;
        o->ndim = want;
        o->has_strides = 0;   /* contiguous, as PyTorch's */
        const ct_tensor *like = bw ? (j ? gr : x) : NULL;
        for (int q = 0; q < want; q++) o->shape[q] = like ? like->shape[q] : q == 0 ? x->shape[0] : q == 1 ? x->shape[1] : gr->shape[q - 1];
        if (ct__check_shape(nm, want, o->shape)) return -1;
    }
    return 0;
}
typedef struct {
    int bw;
    const ct_tensor * x;
    const ct_tensor * gr;
    const ct_tensor * gy;
    ct_tensor * y;
    ct_tensor * gg;
    ct__gs_geo g;
    int64_t IP;
    int64_t P;
    size_t es;
    int want_gi;
    int want_gg;
    const int64_t * xst;
    const int64_t * cst;
    int same;
    int64_t nchunk;
    int K;
    size_t per;
    int * oomp;
} ct__k_grid_sampler_c;
static void ct__k_grid_sampler_tasks(void *c_, int64_t lo_, int64_t hi_) {
    const ct__k_grid_sampler_c *q_ = (const ct__k_grid_sampler_c *)c_;
    int bw = q_->bw; (void)bw;
    const ct_tensor * x = q_->x; (void)x;
    const ct_tensor * gr = q_->gr; (void)gr;
    const ct_tensor * gy = q_->gy; (void)gy;
    ct_tensor * y = q_->y; (void)y;
    ct_tensor * gg = q_->gg; (void)gg;
    ct__gs_geo g = q_->g; (void)g;
    int64_t IP = q_->IP; (void)IP;
    int64_t P = q_->P; (void)P;
    size_t es = q_->es; (void)es;
    int want_gi = q_->want_gi; (void)want_gi;
    int want_gg = q_->want_gg; (void)want_gg;
    const int64_t * xst = q_->xst; (void)xst;
    const int64_t * cst = q_->cst; (void)cst;
    int same = q_->same; (void)same;
    int64_t nchunk = q_->nchunk; (void)nchunk;
    int K = q_->K; (void)K;
    size_t per = q_->per; (void)per;
    int * oomp = q_->oomp; (void)oomp;
    {
        char *buf = (char *)CT_MALLOC(per);
        if (!buf) {
            __atomic_store_n(oomp, 1, __ATOMIC_RELAXED);
        }
        int64_t *off = (int64_t *)buf, *off2 = off + CT__GS_CHUNK * K, *gyo = off2 + CT__GS_CHUNK * K;
        double *w = (double *)(gyo + CT__GS_CHUNK), *dw = w + CT__GS_CHUNK * K, *mult = dw + CT__GS_CHUNK * K * 3;
        double *gsum = mult + CT__GS_CHUNK * 3;
        char *wt = (char *)(gsum + CT__GS_CHUNK * 3), *dwt = wt + (size_t)CT__GS_CHUNK * K * es;
        for (int64_t t = lo_; t < hi_; t++) {
            if (!buf) continue;
            int64_t n = bw ? t : t / nchunk;
            int64_t c0 = bw ? 0 : t % nchunk, c1 = bw ? nchunk : c0 + 1;
            for (int64_t ch = c0; ch < c1; ch++) {
                int64_t p0 = ch * CT__GS_CHUNK, np = CT__MIN((int64_t)CT__GS_CHUNK, P - p0);
                ct__gs_taps(&g, xst, same || !want_gi ? NULL : cst, gr, n, p0, np, off, off2, w, dw, mult);
                for (int64_t i = 0; i < np * K; i++) {
                    if (g.f32) {
                        ((float *)wt)[i] = (float)w[i];
                        for (int r = 0; r < 3; r++) ((float *)dwt)[3 * i + r] = (float)dw[3 * i + r];
                    } else {
                        ((double *)wt)[i] = w[i];
                        for (int r = 0; r < 3; r++) ((double *)dwt)[3 * i + r] = dw[3 * i + r];
                    }
                }
                const char *xn = CT__RS_AT(ct__ptr(x), n * x->strides[0], es);
                if (!bw) {
                    char *yn = CT__RS_AT(ct__ptr(y), n * g.C * P + p0, es);
                    if (g.f32) ct__gs_fwd_f32((float *)yn, P, (const float *)xn, x->strides[1], g.C, off, (const float *)wt, np, K);
                    else ct__gs_fwd_f64((double *)yn, P, (const double *)xn, x->strides[1], g.C, off, (const double *)wt, np, K);
                    continue;
                }
                for (int64_t pi = 0; pi < np; pi++) {
                    int64_t rr = p0 + pi, go = 0;
                    for (int q = g.nsp - 1; q >= 0; q--) { go += (rr % g.out[q]) * gy->strides[2 + q]; rr /= g.out[q]; }
                    gyo[pi] = go;
                }
                const int64_t *goff = same || !want_gi ? off : off2;
                char *gin = want_gi ? CT__RS_AT(ct__ptr(y), n * g.C * IP, es) : NULL;
                const char *gyn = CT__RS_AT(ct__ptr(gy), n * gy->strides[0], es);
                if (g.f32) ct__gs_bwd_f32((float *)gin, IP, want_gg ? gsum : NULL, (const float *)xn, x->strides[1], g.C, (const float *)gyn,
                                          gy->strides[1], gyo, off, goff, (const float *)wt, (const float *)dwt, np, K, g.nsp);
                else ct__gs_bwd_f64((double *)gin, IP, want_gg ? gsum : NULL, (const double *)xn, x->strides[1], g.C, (const double *)gyn,
                                    gy->strides[1], gyo, off, goff, (const double *)wt, (const double *)dwt, np, K, g.nsp);
                if (want_gg) {
                    char *ggp = CT__RS_AT(ct__ptr(gg), (n * P + p0) * g.nsp, es);
                    for (int64_t pi = 0; pi < np; pi++)
                        for (int q = 0; q < g.nsp; q++) {
                            double v = gsum[pi * 3 + q] * mult[pi * 3 + q];
                            if (g.f32) ((float *)ggp)[pi * g.nsp + q] = (float)v;
                            else ((double *)ggp)[pi * g.nsp + q] = v;
                        }
                }
            }
        }
        CT_FREE(buf);
    }
}
static int ct__k_grid_sampler(ct__call *c) {
    int d3 = ct__gs_is3d(c->op), bw = ct__gs_isbw(c->op);
    const ct_tensor *x = c->in[bw ? 1 : 0], *gr = c->in[bw ? 2 : 1], *gy = bw ? c->in[0] : NULL;
    ct_tensor *y = c->out[0], *gg = bw ? c->out[1] : NULL;
    ct__gs_geo g;
    g.nsp = d3 ? 3 : 2;
    g.interp = (int)c->a->i[0];
    g.pad = (int)c->a->i[1];
    g.align = (c->a->flags & 1) != 0;
    g.f32 = x->dtype == CT_FLOAT32;
    g.N = x->shape[0];
    g.C = x->shape[1];
    int64_t IP = 1, P = 1;
    for (int q = 0; q < g.nsp; q++) { g.in[q] = x->shape[2 + q]; g.out[q] = gr->shape[1 + q]; IP *= g.in[q]; P *= g.out[q]; }
    g.K = g.interp == 1 ? 1 : g.interp == 2 ? 16 : (1 << g.nsp);
    size_t es = g.f32 ? 4 : 8;
    int want_gi = bw && (c->a->flags & 2), want_gg = bw && (c->a->flags & 4);
    if (bw) {
        memset(ct__ptr(y), 0, (size_t)ct_numel(y) * es);
        memset(ct__ptr(gg), 0, (size_t)ct_numel(gg) * es);
    }
    if (g.N == 0 || P == 0 || g.C == 0) return 0;
    /* plane offsets: in x (any strides) and, for grad_input, in a contiguous plane */
    int64_t xst[3], cst[3] = {1, g.in[g.nsp - 1], g.in[g.nsp - 1] * (g.nsp == 3 ? g.in[1] : 1)};
    int same = 1;
    for (int q = 0; q < g.nsp; q++) { xst[q] = x->strides[x->ndim - 1 - q]; same &= xst[q] == cst[q] || g.in[g.nsp - 1 - q] == 1; }
    int64_t nchunk = (P + CT__GS_CHUNK - 1) / CT__GS_CHUNK, ntask = bw ? g.N : g.N * nchunk;
    int K = g.K, oom = 0, nt = 1;
    if ((int64_t)K * P * g.C * g.N >= CT__RS_PAR) nt = ct__par_threads();
    /* per thread, per block of points: offsets (2 sets), weights and derivatives (double, then T),
       gradient sums, the coordinates' factors, grad_output offsets */
    size_t per = (size_t)CT__GS_CHUNK * ((size_t)K * (8 + 8 + 8 + 24 + es + 3 * es) + 3 * 8 + 3 * 8 + 8);
    (void)nt;
int *oomp = &oom;
    ct__k_grid_sampler_c q_ = {bw, x, gr, gy, y, gg, g, IP, P, es, want_gi, want_gg, xst, cst, same, nchunk, K, per, oomp};
    ct__par_for(ntask, nt > 1 ? 1 : ntask, ct__k_grid_sampler_tasks, &q_);

    if (oom) return ct__failed(CT_ERR_MEMORY, "%s: out of memory", ct__opdef_get(c->op)->name);
    return 0;
}
static int ct__bw_grid_sampler(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    int need_in = CT__NEEDS(n, 0), need_grid = CT__NEEDS(n, 1);
    if (!need_in && !need_grid) return 0;
    ct_tensor *x = CT__SV_IN(n, 0), *gr = CT__SV_IN(n, 1);
    if (!x || !gr) return -1;
    ct__attrs a = n->attrs;
    a.flags = (a.flags & 1) | (need_in ? 2 : 0) | (need_grid ? 4 : 0);
    ct_tensor *in[3];
    in[0] = gout[0];
    in[1] = x;
    in[2] = gr;
    ct__call cl;
    cl.op = n->op == CT__NNOP(GRID_SAMPLER_3D) ? CT__NNOP(GRID_SAMPLER_3D_BACKWARD) : CT__NNOP(GRID_SAMPLER_2D_BACKWARD);
    cl.nin = 3;
    cl.in = in;
    cl.a = &a;
    cl.inplace = 0;
    if (ct__dispatch(&cl) < 0) return -1;
    gin[0] = need_in ? cl.out[0] : NULL;
    gin[1] = need_grid ? cl.out[1] : NULL;
    return 0;
}
CTENSOR_API ct_tensor *ct_grid_sample(const ct_tensor *x, const ct_tensor *grid, const ct_grid_sample_options *o) {
    if (!x || !grid) { ct__null_arg("grid_sample", x ? 1 : 0); return NULL; }
    const char *mode = o && o->mode ? o->mode : "bilinear", *pad = o && o->padding_mode ? o->padding_mode : "zeros";
    int mi = !strcmp(mode, "bilinear") ? 0 : !strcmp(mode, "nearest") ? 1 : !strcmp(mode, "bicubic") ? 2 : -1;
    int pi = !strcmp(pad, "zeros") ? 0 : !strcmp(pad, "border") ? 1 : !strcmp(pad, "reflection") ? 2 : -1;
    if (mi < 0)
        return ct__fail(CT_ERR_ARG, "grid_sample: nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '%s'", mode);
    if (pi < 0)
        return ct__fail(CT_ERR_ARG, "grid_sample: nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', but got: '%s'", pad);
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = mi;
    a.i[1] = pi;
    a.flags = o && o->align_corners > 0 ? 1 : 0;
    ct_tensor *in[2];
    in[0] = (ct_tensor *)x;
    in[1] = (ct_tensor *)grid;
    return ct__call1(x->ndim == 4 ? CT__NNOP(GRID_SAMPLER_2D) : CT__NNOP(GRID_SAMPLER_3D), 2, in, &a);
}

/* ---- modules: Upsample, UpsamplingNearest2d, UpsamplingBilinear2d, PixelShuffle, PixelUnshuffle ---- */
typedef struct ct__resample_mod { ct_interpolate_options o; char mode[16]; int64_t r; } ct__resample_mod;
static ct_tensor *ct__upsample_mod_forward(ct_module *m, int nin, ct_tensor *const *in) {
    const ct__resample_mod *u = (const ct__resample_mod *)m->impl;
    if (nin != 1) return ct__fail(CT_ERR_ARG, "%s: forward takes 1 input (got %d)", m->type->name, nin);
    ct_interpolate_options o = u->o;
    o.mode = u->mode;
    return ct_interpolate(in[0], &o);
}
static int ct__upsample_mod_repr(const ct_module *m, char *buf, size_t cap) {
    const ct__resample_mod *u = (const ct__resample_mod *)m->impl;
    char t[160];
    int nf = ct__rs_count_f(u->o.scale_factor), ns = ct__rs_count_i(u->o.size);
    if (nf == 1) ct__pyfloat(u->o.scale_factor[0], t, sizeof t);
    else if (nf) ct__rs_pytuple_f(t, sizeof t, nf, u->o.scale_factor);
    else if (ns == 1) snprintf(t, sizeof t, "%lld", (long long)u->o.size[0]);
    else if (ns) ct__rs_pytuple_i(t, sizeof t, ns, u->o.size);
    else snprintf(t, sizeof t, "None");
    return snprintf(buf, cap, "%s=%s, mode=%s", nf ? "scale_factor" : "size", t, u->mode);
}
static ct_tensor *ct__shuffle_mod_forward(ct_module *m, int nin, ct_tensor *const *in) {
    const ct__resample_mod *u = (const ct__resample_mod *)m->impl;
    if (nin != 1) return ct__fail(CT_ERR_ARG, "%s: forward takes 1 input (got %d)", m->type->name, nin);
    return m->type->name[5] == 'U' ? ct_pixel_unshuffle(in[0], u->r) : ct_pixel_shuffle(in[0], u->r);
}
static int ct__shuffle_mod_repr(const ct_module *m, char *buf, size_t cap) {
    const ct__resample_mod *u = (const ct__resample_mod *)m->impl;
    return snprintf(buf, cap, "%s_factor=%lld", m->type->name[5] == 'U' ? "downscale" : "upscale", (long long)u->r);
}
static const ct_module_type ct__upsample_type = {"Upsample", ct__upsample_mod_forward, ct__free_impl, ct__upsample_mod_repr};
static const ct_module_type ct__upsampling_nearest2d_type = {"UpsamplingNearest2d", ct__upsample_mod_forward, ct__free_impl, ct__upsample_mod_repr};
static const ct_module_type ct__upsampling_bilinear2d_type = {"UpsamplingBilinear2d", ct__upsample_mod_forward, ct__free_impl, ct__upsample_mod_repr};
static const ct_module_type ct__pixel_shuffle_type = {"PixelShuffle", ct__shuffle_mod_forward, ct__free_impl, ct__shuffle_mod_repr};
static const ct_module_type ct__pixel_unshuffle_type = {"PixelUnshuffle", ct__shuffle_mod_forward, ct__free_impl, ct__shuffle_mod_repr};
static ct_module *ct__resample_mod_new(const ct_module_type *ty, const ct_interpolate_options *o, const char *mode, int align, int64_t r) {
    ct_interpolate_options z;
    memset(&z, 0, sizeof z);
    if (!o) o = &z;
    if (!mode) mode = o->mode ? o->mode : "nearest";
    if (strlen(mode) >= 16) return (ct_module *)ct__fail(CT_ERR_ARG, "%s: unknown mode '%s'", ty->name, mode);
    if (o->antialias) return (ct_module *)ct__fail(CT_ERR_UNSUPPORTED, "%s: antialias is not an argument of nn.Upsample", ty->name);
    ct__resample_mod *u = CT__NEW_ZEROED(ct__resample_mod);
    ct_module *m = u ? ct_module_new(ty, u) : NULL;
    if (!m) { CT_FREE(u); return (ct_module *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", ty->name); }
    u->o = *o;
    u->o.mode = NULL;
    if (align) u->o.align_corners = 1;
    snprintf(u->mode, sizeof u->mode, "%s", mode);
    u->r = r;
    return m;
}
CTENSOR_API ct_module *ct_nn_upsample(const ct_interpolate_options *o) { return ct__resample_mod_new(&ct__upsample_type, o, NULL, 0, 0); }
CTENSOR_API ct_module *ct_nn_upsampling_nearest2d(const ct_interpolate_options *o) {
    ct_interpolate_options z;
    memset(&z, 0, sizeof z);
    if (o) { memcpy(z.size, o->size, sizeof z.size); memcpy(z.scale_factor, o->scale_factor, sizeof z.scale_factor); }
    return ct__resample_mod_new(&ct__upsampling_nearest2d_type, &z, "nearest", 0, 0);
}
CTENSOR_API ct_module *ct_nn_upsampling_bilinear2d(const ct_interpolate_options *o) {
    ct_interpolate_options z;
    memset(&z, 0, sizeof z);
    if (o) { memcpy(z.size, o->size, sizeof z.size); memcpy(z.scale_factor, o->scale_factor, sizeof z.scale_factor); }
    return ct__resample_mod_new(&ct__upsampling_bilinear2d_type, &z, "bilinear", 1, 0);
}
CTENSOR_API ct_module *ct_nn_pixel_shuffle(int64_t r) {
    if (r <= 0) return (ct_module *)ct__fail(CT_ERR_ARG, "PixelShuffle: upscale_factor must be positive, got %lld", (long long)r);
    return ct__resample_mod_new(&ct__pixel_shuffle_type, NULL, "", 0, r);
}
CTENSOR_API ct_module *ct_nn_pixel_unshuffle(int64_t r) {
    if (r <= 0) return (ct_module *)ct__fail(CT_ERR_ARG, "PixelUnshuffle: downscale_factor must be positive, got %lld", (long long)r);
    return ct__resample_mod_new(&ct__pixel_unshuffle_type, NULL, "", 0, r);
}

/* [section: nn-norm-impl] */
/* ============================================================================
   Normalization, dropout, embeddings, recurrent layers (see nn-norm-api).
   PyTorch references: aten/src/ATen/native/Normalization.cpp,
   native/cpu/batch_norm_kernel.cpp, layer_norm_kernel.cpp, Dropout.cpp,
   Embedding.cpp, EmbeddingBag.cpp, torch/nn/modules/{batchnorm,normalization,
   sparse,rnn}.py.
   ========================================================================== */
static const char *ct__tensor_type_name(ct_dtype dt, char *buf, size_t cap) {
    snprintf(buf, cap, "torch.%sTensor", CT__DTNAME(dt));
    return buf;
}
static int ct__norm_float_dtype(const char *name, const ct_tensor *x) {
    if (x->dtype != CT_FLOAT32 && x->dtype != CT_FLOAT64)
        return ct__failed(CT_ERR_DTYPE, "%s: \"%s\" not implemented for '%s'", name, name, CT__DTNAME(x->dtype));
    return 0;
}
static int ct__norm_param_check(const char *name, const char *what, const ct_tensor *p, const ct_tensor *x, int64_t numel) {
    if (ct_numel(p) != numel)
        return ct__failed(CT_ERR_SHAPE, "%s: %s should contain %lld elements not %lld", name, what, (long long)numel, (long long)ct_numel(p));
    if (p->dtype != x->dtype)
        return ct__failed(CT_ERR_DTYPE, "%s: expected %s to have dtype %s (the input's), but got %s", name, what,
                          ct_dtype_name(x->dtype), ct_dtype_name(p->dtype));
    return 0;
}

/* ---- batch_norm: x seen as [N][C][S] (contiguous) or [N*S][C] (channels-last) ---- */
/* in: x [N, C, *], weight [C], bias [C]; out: y, save_mean [C], save_invstd [C],
   unbiased batch variance [C] (for the running stats) */
static int ct__meta_bn(ct__call *c) {
    ct_tensor *x = c->in[0], *w = c->in[1], *b = c->in[2];
    if (x->ndim < 2) return ct__failed(CT_ERR_SHAPE, "batch_norm: expected an input of at least 2 dims [N, C, *], got %s", CT__SHAPE(x));
    if (ct__norm_float_dtype("batch_norm", x)) return -1;
    int64_t C = x->shape[1];
    if (ct__norm_param_check("batch_norm", "weight", w, x, C) || ct__norm_param_check("batch_norm", "bias", b, x, C)) return -1;
    ct__nn_out(&c->oi[0], x->dtype, x->ndim, x->shape, ct__is_cl_input(x));
    for (int j = 1; j < 4; j++) ct__nn_out(&c->oi[j], x->dtype, 1, &C, 0);
    c->nout = 4;
    return 0;
}
/* 4 independent sums: the loop is not one long dependency chain */
#define CT__SUM4(acc, n, expr)                                         \
    do {                                                               \
        double s0_ = 0, s1_ = 0, s2_ = 0, s3_ = 0;                     \
        int64_t i = 0;                                                 \
        for (; i + 4 <= (n); i += 4) {                                 \
            { int64_t k_ = i; s0_ += (expr); }                         \
            { int64_t k_ = i + 1; s1_ += (expr); }                     \
            { int64_t k_ = i + 2; s2_ += (expr); }                     \
            { int64_t k_ = i + 3; s3_ += (expr); }                     \
        }                                                              \
        for (; i < (n); i++) { int64_t k_ = i; s0_ += (expr); }        \
        (acc) += (s0_ + s1_) + (s2_ + s3_);                            \
    } while (0)

/* Row sums for the kernels below. float32: 16 float lanes (vectorizable) per
   row, added up in double; float64: 4 double chains. */
#define CT__LANES 16
static double ct__nrm_sum_f32(const float *p, int64_t n) {
    float a[CT__LANES] = {0};
    int64_t i = 0;
    for (; i + CT__LANES <= n; i += CT__LANES)
        for (int k = 0; k < CT__LANES; k++) a[k] += p[i + k];
    double s = 0;
    for (; i < n; i++) s += p[i];
    for (int k = 0; k < CT__LANES; k++) s += a[k];
    return s;
}
static double ct__nrm_sumsq_f32(const float *p, int64_t n, float mu) {
    float a[CT__LANES] = {0};
    int64_t i = 0;
    for (; i + CT__LANES <= n; i += CT__LANES)
        for (int k = 0; k < CT__LANES; k++) a[k] += (p[i + k] - mu) * (p[i + k] - mu);
    double s = 0;
    for (; i < n; i++) s += (double)(p[i] - mu) * (double)(p[i] - mu);
    for (int k = 0; k < CT__LANES; k++) s += a[k];
    return s;
}
/* sum(a * (b - mu)), and with c: sum(a * c * (b - mu)) */
static double ct__nrm_dotc_f32(const float *a_, const float *b, const float *c, int64_t n, float mu) {
    float a[CT__LANES] = {0};
    int64_t i = 0;
    if (c) {
        for (; i + CT__LANES <= n; i += CT__LANES)
            for (int k = 0; k < CT__LANES; k++) a[k] += a_[i + k] * c[i + k] * (b[i + k] - mu);
    } else {
        for (; i + CT__LANES <= n; i += CT__LANES)
            for (int k = 0; k < CT__LANES; k++) a[k] += a_[i + k] * (b[i + k] - mu);
    }
    double s = 0;
    for (; i < n; i++) s += (double)a_[i] * (c ? (double)c[i] : 1.0) * ((double)b[i] - (double)mu);
    for (int k = 0; k < CT__LANES; k++) s += a[k];
    return s;
}
static double ct__nrm_dot_f32(const float *a_, const float *b, int64_t n) {
    float a[CT__LANES] = {0};
    int64_t i = 0;
    for (; i + CT__LANES <= n; i += CT__LANES)
        for (int k = 0; k < CT__LANES; k++) a[k] += a_[i + k] * b[i + k];
    double s = 0;
    for (; i < n; i++) s += (double)a_[i] * (double)b[i];
    for (int k = 0; k < CT__LANES; k++) s += a[k];
    return s;
}
static double ct__nrm_sum_f64(const double *p, int64_t n) { double s = 0; CT__SUM4(s, n, p[k_]); return s; }
static double ct__nrm_sumsq_f64(const double *p, int64_t n, double mu) { double s = 0; CT__SUM4(s, n, (p[k_] - mu) * (p[k_] - mu)); return s; }
static double ct__nrm_dotc_f64(const double *a, const double *b, const double *c, int64_t n, double mu) {
    double s = 0;
    if (c) CT__SUM4(s, n, a[k_] * c[k_] * (b[k_] - mu));
    else CT__SUM4(s, n, a[k_] * (b[k_] - mu));
    return s;
}
static double ct__nrm_dot_f64(const double *a, const double *b, int64_t n) { double s = 0; CT__SUM4(s, n, a[k_] * b[k_]); return s; }
/* the row sums above for float32 or float64 data (mu: a value of the dtype) */
CT__INLINE double ct__nrm_sum(ct_dtype dt, const void *p, int64_t n) {
    return dt == CT_FLOAT32 ? ct__nrm_sum_f32((const float *)p, n) : ct__nrm_sum_f64((const double *)p, n);
}
CT__INLINE double ct__nrm_sumsq(ct_dtype dt, const void *p, int64_t n, double mu) {
    return dt == CT_FLOAT32 ? ct__nrm_sumsq_f32((const float *)p, n, (float)mu) : ct__nrm_sumsq_f64((const double *)p, n, mu);
}
CT__INLINE double ct__nrm_dotc(ct_dtype dt, const void *a, const void *b, const void *c, int64_t n, double mu) {
    if (dt == CT_FLOAT32) return ct__nrm_dotc_f32((const float *)a, (const float *)b, (const float *)c, n, (float)mu);
    return ct__nrm_dotc_f64((const double *)a, (const double *)b, (const double *)c, n, mu);
}
CT__INLINE double ct__nrm_dot(ct_dtype dt, const void *a, const void *b, int64_t n) {
    return dt == CT_FLOAT32 ? ct__nrm_dot_f32((const float *)a, (const float *)b, n) : ct__nrm_dot_f64((const double *)a, (const double *)b, n);
}
/* scratch for the kernels below: nd doubles, then ne elements of es bytes at a 64-byte
   boundary (whole vectors); one block to free */
static double *ct__nrm_scratch(const char *name, int64_t nd, int64_t ne, size_t es, char **elems) {
    double *p = (double *)CT_MALLOC(sizeof(double) * (size_t)nd + 64 + es * (size_t)ne);
    if (!p) { ct__failed(CT_ERR_MEMORY, "%s: out of memory", name); return NULL; }
    *elems = (char *)(p + nd) + (64 - (uintptr_t)(p + nd) % 64) % 64;
    return p;
}

/* batch_norm's training forward. x, y: [N][C][HW], or [N*HW][C] when cl; out: y,
   mean, invstd and the unbiased variance (per channel). */
typedef struct {
    ct_dtype dt;
    void * y_;
    void * mean;
    void * invstd;
    void * uvar;
    const void * x_;
    const void * w;
    const void * b;
    int64_t N;
    int64_t C;
    int64_t HW;
    int cl;
    double eps;
    int64_t es;
    int64_t M;
    char * y;
    const char * x;
} ct__bn_fwd_c1;
static void ct__bn_fwd_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__bn_fwd_c1 *q_ = (const ct__bn_fwd_c1 *)c_;
    ct_dtype dt = q_->dt; (void)dt;
    void * y_ = q_->y_; (void)y_;
    void * mean = q_->mean; (void)mean;
    void * invstd = q_->invstd; (void)invstd;
    void * uvar = q_->uvar; (void)uvar;
    const void * x_ = q_->x_; (void)x_;
    const void * w = q_->w; (void)w;
    const void * b = q_->b; (void)b;
    int64_t N = q_->N; (void)N;
    int64_t C = q_->C; (void)C;
    int64_t HW = q_->HW; (void)HW;
    int cl = q_->cl; (void)cl;
    double eps = q_->eps; (void)eps;
    int64_t es = q_->es; (void)es;
    int64_t M = q_->M; (void)M;
    char * y = q_->y; (void)y;
    const char * x = q_->x; (void)x;
    for (int64_t c = (int64_t)lo_; c < hi_; c++) {
            double s = 0, q = 0;
            for (int64_t n = 0; n < N; n++) s += ct__nrm_sum(dt, x + es * (n * C + c) * HW, HW);
            double mu = M ? s / (double)M : 0.0, muT = ct__nn_round(dt, mu);
            for (int64_t n = 0; n < N; n++) q += ct__nrm_sumsq(dt, x + es * (n * C + c) * HW, HW, muT);
            q -= (double)M * (muT - mu) * (muT - mu);   /* centered on the rounded mean */
            double is = 1.0 / sqrt((M ? q / (double)M : 0.0) + eps), wc = ct__nn_ld(dt, w, c);
            ct__nn_st(dt, mean, c, muT);
            ct__nn_st(dt, invstd, c, is);
            ct__nn_st(dt, uvar, c, M > 1 ? q / (double)(M - 1) : NAN);
            double al = is * wc, be = ct__nn_ld(dt, b, c) - mu * is * wc;
            CT__NN_AS(dt, {
                T A = (T)al, B = (T)be;
                for (int64_t n = 0; n < N; n++) {
                    const T *p = (const T *)x + (n * C + c) * HW;
                    T *yr = (T *)y + (n * C + c) * HW;
                    for (int64_t i = 0; i < HW; i++) yr[i] = p[i] * A + B;
                }
            });
        }
}
static int ct__bn_fwd(ct_dtype dt, void *y_, void *mean, void *invstd, void *uvar, const void *x_, const void *w, const void *b,
                      int64_t N, int64_t C, int64_t HW, int cl, double eps) {
    const int64_t es = ct__dt[dt].size, M = N * HW;
    char *y = (char *)y_;
    const char *x = (const char *)x_;
    if (!cl) {
        int ct__par = ct__rpar(M * C) && C > 1;
        (void)ct__par;
        ct__bn_fwd_c1 q1_ = {dt, y_, mean, invstd, uvar, x_, w, b, N, C, HW, cl, eps, es, M, y, x}; ct__rrun(C, ct__par, ct__bn_fwd_b1, &q1_);
        return 0;
    }
    char *al;
    double *acc = ct__nrm_scratch("batch_norm", 2 * C, 2 * C, (size_t)es, &al);
    if (!acc) return -1;
    double *sq = acc + C;
    char *be = al + es * C;
    for (int64_t c = 0; c < 2 * C; c++) acc[c] = 0;
    CT__NN_AS(dt, {
        const T *xp = (const T *)x;
        for (int64_t r = 0; r < M; r++)
            for (int64_t c = 0; c < C; c++) acc[c] += (double)xp[r * C + c];
        for (int64_t c = 0; c < C; c++) acc[c] = M ? acc[c] / (double)M : 0.0;
        for (int64_t r = 0; r < M; r++)
            for (int64_t c = 0; c < C; c++) {
                double d = (double)xp[r * C + c] - acc[c];
                sq[c] += d * d;
            }
    });
    for (int64_t c = 0; c < C; c++) {
        double is = 1.0 / sqrt((M ? sq[c] / (double)M : 0.0) + eps), wc = ct__nn_ld(dt, w, c);
        ct__nn_st(dt, mean, c, acc[c]);
        ct__nn_st(dt, invstd, c, is);
        ct__nn_st(dt, uvar, c, M > 1 ? sq[c] / (double)(M - 1) : NAN);
        ct__nn_st(dt, al, c, is * wc);
        ct__nn_st(dt, be, c, ct__nn_ld(dt, b, c) - acc[c] * is * wc);
    }
    CT__NN_AS(dt, {
        const T *xp = (const T *)x, *a = (const T *)al, *bb = (const T *)be;
        T *yp = (T *)y;
        for (int64_t r = 0; r < M; r++)
            for (int64_t c = 0; c < C; c++) yp[r * C + c] = xp[r * C + c] * a[c] + bb[c];
    });
    CT_FREE(acc);
    return 0;
}
/* batch_norm's backward (layouts as the forward's):
   gx = (gy - mean(gy) - (x - mu) * invstd^2 * mean(gy * (x - mu))) * invstd * w */
typedef struct {
    ct_dtype dt;
    void * gx_;
    void * gw;
    void * gb;
    const void * gy_;
    const void * x_;
    const void * w;
    const void * mean;
    const void * invstd;
    int64_t N;
    int64_t C;
    int64_t HW;
    int cl;
    int64_t es;
    int64_t M;
    char * gx;
    const char * gy;
    const char * x;
} ct__bn_bwd_c1;
static void ct__bn_bwd_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__bn_bwd_c1 *q_ = (const ct__bn_bwd_c1 *)c_;
    ct_dtype dt = q_->dt; (void)dt;
    void * gx_ = q_->gx_; (void)gx_;
    void * gw = q_->gw; (void)gw;
    void * gb = q_->gb; (void)gb;
    const void * gy_ = q_->gy_; (void)gy_;
    const void * x_ = q_->x_; (void)x_;
    const void * w = q_->w; (void)w;
    const void * mean = q_->mean; (void)mean;
    const void * invstd = q_->invstd; (void)invstd;
    int64_t N = q_->N; (void)N;
    int64_t C = q_->C; (void)C;
    int64_t HW = q_->HW; (void)HW;
    int cl = q_->cl; (void)cl;
    int64_t es = q_->es; (void)es;
    int64_t M = q_->M; (void)M;
    char * gx = q_->gx; (void)gx;
    const char * gy = q_->gy; (void)gy;
    const char * x = q_->x; (void)x;
    for (int64_t c = (int64_t)lo_; c < hi_; c++) {
            double sg = 0, dot = 0, mu = ct__nn_ld(dt, mean, c), is = ct__nn_ld(dt, invstd, c), muT = mu;
            for (int64_t n = 0; n < N; n++) {
                const char *g = gy + es * (n * C + c) * HW, *p = x + es * (n * C + c) * HW;
                sg += ct__nrm_sum(dt, g, HW);
                dot += ct__nrm_dotc(dt, g, p, NULL, HW, muT);
            }
            dot += sg * (muT - mu);
            ct__nn_st(dt, gw, c, dot * is);
            ct__nn_st(dt, gb, c, sg);
            double sc = is * ct__nn_ld(dt, w, c);
            double A = sc, B = -dot * is * is / (double)M * sc, D = -sg / (double)M * sc;
            CT__NN_AS(dt, {
                T a = (T)A, bb = (T)B, d = (T)D, m = (T)muT;
                for (int64_t n = 0; n < N; n++) {
                    const T *g = (const T *)gy + (n * C + c) * HW, *p = (const T *)x + (n * C + c) * HW;
                    T *o = (T *)gx + (n * C + c) * HW;
                    for (int64_t i = 0; i < HW; i++) o[i] = a * g[i] + bb * (p[i] - m) + d;
                }
            });
        }
}
static int ct__bn_bwd(ct_dtype dt, void *gx_, void *gw, void *gb, const void *gy_, const void *x_, const void *w, const void *mean,
                      const void *invstd, int64_t N, int64_t C, int64_t HW, int cl) {
    const int64_t es = ct__dt[dt].size, M = N * HW;
    char *gx = (char *)gx_;
    const char *gy = (const char *)gy_, *x = (const char *)x_;
    if (!cl) {
        int ct__par = ct__rpar(M * C) && C > 1;
        (void)ct__par;
        ct__bn_bwd_c1 q1_ = {dt, gx_, gw, gb, gy_, x_, w, mean, invstd, N, C, HW, cl, es, M, gx, gy, x}; ct__rrun(C, ct__par, ct__bn_bwd_b1, &q1_);
        return 0;
    }
    char *co;
    double *acc = ct__nrm_scratch("batch_norm_backward", 2 * C, 3 * C, (size_t)es, &co);
    if (!acc) return -1;
    double *dots = acc + C;
    for (int64_t c = 0; c < 2 * C; c++) acc[c] = 0;
    CT__NN_AS(dt, {
        const T *g = (const T *)gy, *xp = (const T *)x, *m = (const T *)mean;
        for (int64_t r = 0; r < M; r++)
            for (int64_t c = 0; c < C; c++) {
                double gv = (double)g[r * C + c];
                acc[c] += gv;
                dots[c] += gv * ((double)xp[r * C + c] - (double)m[c]);
            }
    });
    for (int64_t c = 0; c < C; c++) {
        double is = ct__nn_ld(dt, invstd, c), sc = is * ct__nn_ld(dt, w, c);
        ct__nn_st(dt, gw, c, dots[c] * is);
        ct__nn_st(dt, gb, c, acc[c]);
        ct__nn_st(dt, co, c, sc);
        ct__nn_st(dt, co, C + c, -dots[c] * is * is / (double)M * sc);
        ct__nn_st(dt, co, 2 * C + c, -acc[c] / (double)M * sc);
    }
    CT__NN_AS(dt, {
        const T *g = (const T *)gy, *xp = (const T *)x, *m = (const T *)mean, *k = (const T *)co;
        T *o = (T *)gx;
        for (int64_t r = 0; r < M; r++)
            for (int64_t c = 0; c < C; c++) o[r * C + c] = k[c] * g[r * C + c] + k[C + c] * (xp[r * C + c] - m[c]) + k[2 * C + c];
    });
    CT_FREE(acc);
    return 0;
}

static void ct__bn_dims(const ct_tensor *x, int64_t *N, int64_t *C, int64_t *HW) {
    *N = x->shape[0];
    *C = x->shape[1];
    *HW = 1;
    for (int d = 2; d < x->ndim; d++) *HW *= x->shape[d];
}
static int ct__k_bn(ct__call *c) {
    int cl = ct__is_cl_input(c->in[0]);
    int64_t N, C, HW;
    ct_tensor *t[3];   /* x, w, b */
    if (ct__nn_dense_inputs(c, 1, cl, t)) return -1;
    ct__bn_dims(c->in[0], &N, &C, &HW);
    int rc = ct__bn_fwd(c->in[0]->dtype, ct__ptr(c->out[0]), ct__ptr(c->out[1]), ct__ptr(c->out[2]), ct__ptr(c->out[3]), ct__ptr(t[0]),
                        ct__ptr(t[1]), ct__ptr(t[2]), N, C, HW, cl, c->a->s[0]);
    ct__nn_release(3, t);
    return rc;
}
/* in: grad_out, x, weight, save_mean, save_invstd; out: grad_x, grad_weight, grad_bias */
static int ct__meta_bn_bw(ct__call *c) {
    ct_tensor *g = c->in[0], *x = c->in[1];
    if (!ct_same_shape(g, x) || g->dtype != x->dtype)
        return ct__failed(CT_ERR_SHAPE, "native_batch_norm_backward: grad_out %s must match the input %s", CT__SHAPE(g), CT__SHAPE(x));
    if (x->ndim < 2 || ct__norm_float_dtype("native_batch_norm_backward", x)) return x->ndim < 2 ? ct__failed(CT_ERR_SHAPE, "native_batch_norm_backward: bad input") : -1;
    int64_t C = x->shape[1];
    for (int i = 2; i < 5; i++)
        if (ct__norm_param_check("native_batch_norm_backward", "statistics", c->in[i], x, C)) return -1;
    ct__nn_out(&c->oi[0], x->dtype, x->ndim, x->shape, ct__is_cl_input(x));
    ct__nn_out(&c->oi[1], x->dtype, 1, &C, 0);
    ct__nn_out(&c->oi[2], x->dtype, 1, &C, 0);
    c->nout = 3;
    return 0;
}
static int ct__k_bn_bw(ct__call *c) {
    int cl = ct__is_cl_input(c->in[1]);
    int64_t N, C, HW;
    ct_tensor *t[5];   /* gy, x, w, mean, invstd */
    if (ct__nn_dense_inputs(c, 2, cl, t)) return -1;
    ct__bn_dims(c->in[1], &N, &C, &HW);
    int rc = ct__bn_bwd(c->in[1]->dtype, ct__ptr(c->out[0]), ct__ptr(c->out[1]), ct__ptr(c->out[2]), ct__ptr(t[0]), ct__ptr(t[1]),
                        ct__ptr(t[2]), ct__ptr(t[3]), ct__ptr(t[4]), N, C, HW, cl);
    ct__nn_release(5, t);
    return rc;
}
/* ---- batch_norm in evaluation mode: y = x scale[c] + shift[c], one pass ----
   in: x [N, C, *], scale [C], shift [C] (ct_batch_norm computes them from the
   running statistics, weight and bias); y in x's memory format. */
static int ct__meta_bn_eval(ct__call *c) {
    ct_tensor *x = c->in[0];
    if (x->ndim < 2) return ct__failed(CT_ERR_SHAPE, "batch_norm_eval: expected an input of at least 2 dims [N, C, *], got %s", CT__SHAPE(x));
    if (ct__norm_float_dtype("batch_norm_eval", x)) return -1;
    if (ct__norm_param_check("batch_norm_eval", "scale", c->in[1], x, x->shape[1]) ||
        ct__norm_param_check("batch_norm_eval", "shift", c->in[2], x, x->shape[1]))
        return -1;
    ct__nn_out(&c->oi[0], x->dtype, x->ndim, x->shape, ct__is_cl_input(x));
    return 0;
}
typedef struct {
    ct_dtype dt;
    char *y;
    const char *x, *s, *b;
    int64_t C, HW;
    int cl;
} ct__bne_job;
/* planes [lo, hi) of the N*C (NCHW), or pixels [lo, hi) of the N*HW (channels-last) */
static CT__NN_FPC void ct__bne_run(void *ctx, int64_t lo, int64_t hi) {
    const ct__bne_job *j = (const ct__bne_job *)ctx;
    CT__NN_AS(j->dt, {
        const T *s = (const T *)j->s, *b = (const T *)j->b;
        for (int64_t q = lo; q < hi; q++) {
            int64_t n = j->cl ? j->C : j->HW;
            const T *CT_RESTRICT xp = (const T *)j->x + q * n;
            T *CT_RESTRICT yp = (T *)j->y + q * n;
            if (j->cl)
                for (int64_t e = 0; e < n; e++) yp[e] = xp[e] * s[e] + b[e];
            else {
                T sc = s[q % j->C], sh = b[q % j->C];
                for (int64_t e = 0; e < n; e++) yp[e] = xp[e] * sc + sh;
            }
        }
    });
}
static int ct__k_bn_eval(ct__call *c) {
    int cl = ct__is_cl_input(c->in[0]);
    int64_t N, C, HW;
    ct_tensor *t[3];
    if (ct__nn_dense_inputs(c, 1, cl, t)) return -1;
    ct__bn_dims(c->in[0], &N, &C, &HW);
    ct__bne_job j = {c->in[0]->dtype, (char *)ct__ptr(c->out[0]), (const char *)ct__ptr(t[0]), (const char *)ct__ptr(t[1]),
                     (const char *)ct__ptr(t[2]), C, HW, cl};
    int64_t rows = cl ? N * HW : N * C, per = cl ? C : HW, one = 1;
    ct__nn_par_for(rows, CT__MAX(one, 32768 / CT__MAX(one, per)), ct__bne_run, &j);
    ct__nn_release(3, t);
    return 0;
}
/* d/dx = g scale, d/dscale = sum of g x, d/dshift = sum of g, over all dims but 1 */
static int ct__bw_bn_eval(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *x = CT__SV_IN(n, 0), *s = CT__SV_IN(n, 1), *g = gout[0];
    if (!x || !s) return -1;
    int64_t dims[CT_MAX_DIMS], shape[CT_MAX_DIMS];
    int nd = 0;
    for (int d = 0; d < x->ndim; d++) {
        shape[d] = d == 1 ? x->shape[1] : 1;
        if (d != 1) dims[nd++] = d;
    }
    /* the input gradient in x's memory format, whatever g's (PyTorch's batch_norm_backward) */
    ct_tensor *gl = ct__is_cl_input(x) && !ct__is_cl_input(g) ? ct_to_channels_last(g) : g;
    if (CT__NEEDS(n, 0) && !(gin[0] = ct_mul(gl, ct_view_n(s, x->ndim, shape)))) return -1;
    if (CT__NEEDS(n, 1) && !(gin[1] = ct_sum_dims(ct_mul(g, x), nd, dims, 0))) return -1;
    if (CT__NEEDS(n, 2) && !(gin[2] = ct_sum_dims(g, nd, dims, 0))) return -1;
    return 0;
}
/* Gradients of a normalization written with public ops, statistics recomputed
   from x so that they are differentiated too (double backward).
   xhat = (x - mean) * rsqrt(var + eps) over `dims`; y = xhat * w + b.
   wv: the weight broadcast against x. Out: gx, and gy * xhat (summed, the weight's gradient). */
static int ct__norm_grads_composite(const ct_tensor *x, const ct_tensor *wv, const ct_tensor *gy, int nd, const int64_t *dims,
                                    double eps, ct_tensor **gx, ct_tensor **gxhat_w) {
    ct_tensor *mean = ct_mean_dims(x, nd, dims, 1);
    ct_tensor *xc = ct_sub(x, mean);
    ct_tensor *rs = ct_rsqrt(ct_add_scalar(ct_mean_dims(ct_mul(xc, xc), nd, dims, 1), eps));
    ct_tensor *xhat = ct_mul(xc, rs);
    ct_tensor *gxh = ct_mul(gy, wv);
    *gx = ct_mul(rs, ct_sub(ct_sub(gxh, ct_mean_dims(gxh, nd, dims, 1)), ct_mul(xhat, ct_mean_dims(ct_mul(gxh, xhat), nd, dims, 1))));
    *gxhat_w = ct_mul(gy, xhat);
    return *gx && *gxhat_w ? 0 : -1;
}
/* The fused backward of batch_norm or layer_norm (op): grads of x, w, b from
   (gy, x, w, and the forward's saved outputs 1 and 2: mean and invstd) */
static int ct__norm_bw_fused(ct__node *n, int op, ct_tensor *gy, ct_tensor *x, ct_tensor *w, ct_tensor **gin) {
    ct_tensor *in[5], *out[3];
    in[0] = gy;
    in[1] = x;
    in[2] = w;
    if (!(in[3] = CT__SV_OUT(n, 1)) || !(in[4] = CT__SV_OUT(n, 2))) return -1;
    if (ct__calln(op, 5, in, &ct__attrs_none, out) < 0) return -1;
    for (int i = 0; i < 3; i++) gin[i] = CT__NEEDS(n, i) ? out[i] : NULL;
    return 0;
}
static int ct__bw_bn(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *x = CT__SV_IN(n, 0), *w = CT__SV_IN(n, 1), *gy = gout[0];
    if (!x || !w) return -1;
    int64_t C = x->shape[1];
    if (ct_is_grad_enabled()) {   /* create_graph: a differentiable formula */
        int64_t dims[CT_MAX_DIMS], wshape[CT_MAX_DIMS];
        int nd = 0;
        for (int d = 0; d < x->ndim; d++) {
            wshape[d] = d == 1 ? C : 1;
            if (d != 1) dims[nd++] = d;
        }
        ct_tensor *gx, *gwf;
        if (ct__norm_grads_composite(x, ct_reshape_n(w, x->ndim, wshape), gy, nd, dims, n->attrs.s[0], &gx, &gwf)) return -1;
        if (CT__NEEDS(n, 0)) gin[0] = gx;
        if (CT__NEEDS(n, 1) && !(gin[1] = ct_sum_dims(gwf, nd, dims, 0))) return -1;
        if (CT__NEEDS(n, 2) && !(gin[2] = ct_sum_dims(gy, nd, dims, 0))) return -1;
        return 0;
    }
    return ct__norm_bw_fused(n, CT__NNOP(BATCH_NORM_BACKWARD), gy, x, w, gin);
}
CTENSOR_API ct_tensor *ct_batch_norm(const ct_tensor *x, ct_tensor *running_mean, ct_tensor *running_var,
                                     const ct_tensor *weight, const ct_tensor *bias, int training, double momentum,
                                     double eps) {
    if (!x) { ct__null_arg("batch_norm", 0); return NULL; }
    if (x->ndim < 2) return ct__fail(CT_ERR_SHAPE, "batch_norm: expected an input of at least 2 dims [N, C, *], got %s", CT__SHAPE(x));
    int64_t C = x->shape[1];
    if (running_mean && ct_numel(running_mean) != C)
        return ct__fail(CT_ERR_SHAPE, "batch_norm: running_mean should contain %lld elements not %lld", (long long)C, (long long)ct_numel(running_mean));
    if (running_var && ct_numel(running_var) != C)
        return ct__fail(CT_ERR_SHAPE, "batch_norm: running_var should contain %lld elements not %lld", (long long)C, (long long)ct_numel(running_var));
    if (weight && ct_numel(weight) != C)
        return ct__fail(CT_ERR_SHAPE, "batch_norm: weight should contain %lld elements not %lld", (long long)C, (long long)ct_numel(weight));
    if (bias && ct_numel(bias) != C)
        return ct__fail(CT_ERR_SHAPE, "batch_norm: bias should contain %lld elements not %lld", (long long)C, (long long)ct_numel(bias));
    /* (float16 and bfloat16 on a device: ctensor_cuda.h's metas take them) */
    if ((x->device.type == CT_CPU || !CT__ISFLOAT(x->dtype)) && ct__norm_float_dtype("batch_norm", x)) return NULL;
    int s = ct_scope_begin();
    ct_tensor *y = NULL;
    if (!training) {
        /* eval: alpha = w / sqrt(running_var + eps), beta = b - running_mean * alpha (PyTorch's CPU transform) */
        if (!running_mean || !running_var) {
            ct_set_error(CT_ERR_ARG, "batch_norm: running_mean and running_var must be defined in evaluation mode");
        } else {
            int64_t shape[CT_MAX_DIMS];
            for (int d = 0; d < x->ndim; d++) shape[d] = d == 1 ? C : 1;
            ct_tensor *al = ct_rsqrt(ct_add_scalar(ct_to(running_var, x->dtype), eps));
            if (weight) al = ct_mul(al, weight);
            ct_tensor *be = ct_neg(ct_mul(ct_to(running_mean, x->dtype), al));
            if (bias) be = ct_add(be, bias);
            /* one pass (ct::batch_norm_eval) where the parameters are x's dtype; it carries
               the momentum, as aten::batch_norm does in eval mode, so that a trace records it */
            ct__attrs a;
            ct__attrs_init(&a);
            a.s[0] = momentum;
            if (al && be && al->dtype == x->dtype && be->dtype == x->dtype) y = ct__op3(CT__NNOP(BATCH_NORM_EVAL), x, al, be, &a);
            else y = ct_add(ct_mul(x, ct_view_n(al, x->ndim, shape)), ct_view_n(be, x->ndim, shape));
        }
    } else if (ct_numel(x) / (C ? C : 1) <= 1 && C > 0) {
        ct_set_error(CT_ERR_ARG, "batch_norm: Expected more than 1 value per channel when training, got input size torch.Size(%s)", CT__SHAPE(x));
    } else {
        int pg = ct_set_grad_enabled(0);
        ct_tensor *w = weight ? (ct_tensor *)weight : ct_ones_on(x->device, x->dtype, C);
        ct_tensor *b = bias ? (ct_tensor *)bias : ct_zeros_on(x->device, x->dtype, C);
        ct_set_grad_enabled(pg);
        ct__attrs a;
        ct__attrs_init(&a);
        a.s[0] = eps;
        ct_tensor *in[3], *out[4];
        in[0] = (ct_tensor *)x;
        in[1] = w;
        in[2] = b;
        if ((w && b) && ct__calln(CT__NNOP(BATCH_NORM), 3, in, &a, out) >= 0) {
            y = out[0];
            if (running_mean || running_var) {
                pg = ct_set_grad_enabled(0);
                /* running = (1 - momentum) * running + momentum * batch statistic (unbiased
                   variance); grad mode is off, so the statistics are read as they are (no
                   detach): a trace records the update reading them, not their values now */
                if (running_mean && !ct_add_(ct_mul_scalar_(running_mean, 1.0 - momentum), ct_mul_scalar(out[1], momentum))) y = NULL;
                if (running_var && !ct_add_(ct_mul_scalar_(running_var, 1.0 - momentum), ct_mul_scalar(out[3], momentum))) y = NULL;
                ct_set_grad_enabled(pg);
            }
        }
    }
    ct_keep(y);
    ct_scope_end(s);
    return y;
}

/* ---- layer_norm: x as [M][N] rows, N = prod(normalized_shape) ---- */
static int ct__meta_ln(ct__call *c) {
    ct_tensor *x = c->in[0], *w = c->in[1], *b = c->in[2];
    int k = c->a->nv;
    if (ct__norm_float_dtype("layer_norm", x)) return -1;
    int ok = k >= 1 && k <= x->ndim;
    for (int d = 0; ok && d < k; d++) ok = x->shape[x->ndim - k + d] == c->a->v[d];
    if (!ok)
        return ct__failed(CT_ERR_SHAPE, "layer_norm: Given normalized_shape=%s, expected input with shape [*, %s], but got input of size%s",
                          ct__fmt_shape(k, c->a->v).s, ct__fmt_shape(k, c->a->v).s, CT__SHAPE(x));
    int64_t N = 1;
    for (int d = x->ndim - k; d < x->ndim; d++) N *= x->shape[d];
    if (ct__norm_param_check("layer_norm", "weight", w, x, N) || ct__norm_param_check("layer_norm", "bias", b, x, N)) return -1;
    ct__nn_out(&c->oi[0], x->dtype, x->ndim, x->shape, 0);
    int64_t M = N ? ct_numel(x) / N : 0;
    for (int d = 0; N == 0 && d < x->ndim - k; d++) M = (d ? M : 1) * x->shape[d];
    ct__nn_out(&c->oi[1], x->dtype, 1, &M, 0);
    ct__nn_out(&c->oi[2], x->dtype, 1, &M, 0);
    c->nout = 3;
    return 0;
}
/* layer_norm's forward over M rows of N: y, mean [M], rstd [M] from x, w [N], b [N] */
typedef struct {
    ct_dtype dt;
    void * y_;
    void * mean;
    void * rstd;
    const void * x_;
    const void * w;
    const void * b;
    int64_t M;
    int64_t N;
    double eps;
    int64_t es;
    char * y;
    const char * x;
} ct__ln_fwd_c1;
static void ct__ln_fwd_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__ln_fwd_c1 *q_ = (const ct__ln_fwd_c1 *)c_;
    ct_dtype dt = q_->dt; (void)dt;
    void * y_ = q_->y_; (void)y_;
    void * mean = q_->mean; (void)mean;
    void * rstd = q_->rstd; (void)rstd;
    const void * x_ = q_->x_; (void)x_;
    const void * w = q_->w; (void)w;
    const void * b = q_->b; (void)b;
    int64_t M = q_->M; (void)M;
    int64_t N = q_->N; (void)N;
    double eps = q_->eps; (void)eps;
    int64_t es = q_->es; (void)es;
    char * y = q_->y; (void)y;
    const char * x = q_->x; (void)x;
    for (int64_t r = (int64_t)lo_; r < hi_; r++) {
        const char *p = x + es * r * N;
        double mu = N ? ct__nrm_sum(dt, p, N) / (double)N : 0.0, muT = ct__nn_round(dt, mu);
        double v = ct__nrm_sumsq(dt, p, N, muT) - (double)N * (muT - mu) * (muT - mu);
        double rs = 1.0 / sqrt((N ? v / (double)N : 0.0) + eps);
        ct__nn_st(dt, mean, r, mu);
        ct__nn_st(dt, rstd, r, rs);
        double c0 = -mu * rs;
        CT__NN_AS(dt, {
            const T *xp = (const T *)p, *wp = (const T *)w, *bp = (const T *)b;
            T *q = (T *)(y + es * r * N), a = (T)rs, c = (T)c0;
            for (int64_t j = 0; j < N; j++) q[j] = (xp[j] * a + c) * wp[j] + bp[j];
        });
    }
}
static void ct__ln_fwd(ct_dtype dt, void *y_, void *mean, void *rstd, const void *x_, const void *w, const void *b, int64_t M,
                       int64_t N, double eps) {
    const int64_t es = ct__dt[dt].size;
    char *y = (char *)y_;
    const char *x = (const char *)x_;
    int ct__par = ct__rpar(M * N) && M > 1;
    (void)ct__par;
    ct__ln_fwd_c1 q1_ = {dt, y_, mean, rstd, x_, w, b, M, N, eps, es, y, x}; ct__rrun(M, ct__par, ct__ln_fwd_b1, &q1_);
}
/* one row of layer_norm's input gradient (mu, rs: the row's saved mean and rstd); out
   of line, as the column sums' loop below is faster without it */
static CT__NOINLINE void ct__ln_bwd_row(ct_dtype dt, void *o, const void *g, const void *p, const void *w, double mu, double rs, int64_t N) {
    double db = ct__nrm_dot(dt, g, w, N), ds = ct__nrm_dotc(dt, g, p, w, N, mu);
    double B = -rs * rs * rs * ds / (double)N, D = -rs * db / (double)N;
    CT__NN_AS(dt, {
        T *op = (T *)o, a = (T)rs, b = (T)B, m = (T)mu, d = (T)D;
        const T *gp = (const T *)g, *wp = (const T *)w, *xp = (const T *)p;
        for (int64_t j = 0; j < N; j++) op[j] = a * gp[j] * wp[j] + b * (xp[j] - m) + d;
    });
}
/* layer_norm's backward: gx, gw [N], gb [N] from gy, x, w, mean [M], rstd [M] */
typedef struct {
    ct_dtype dt;
    void * gx_;
    void * gw;
    void * gb;
    const void * gy_;
    const void * x_;
    const void * w;
    const void * mean;
    const void * rstd;
    int64_t M;
    int64_t N;
    int64_t es;
    char * gx;
    const char * gy;
    const char * x;
} ct__ln_bwd_c1;
static void ct__ln_bwd_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__ln_bwd_c1 *q_ = (const ct__ln_bwd_c1 *)c_;
    ct_dtype dt = q_->dt; (void)dt;
    void * gx_ = q_->gx_; (void)gx_;
    void * gw = q_->gw; (void)gw;
    void * gb = q_->gb; (void)gb;
    const void * gy_ = q_->gy_; (void)gy_;
    const void * x_ = q_->x_; (void)x_;
    const void * w = q_->w; (void)w;
    const void * mean = q_->mean; (void)mean;
    const void * rstd = q_->rstd; (void)rstd;
    int64_t M = q_->M; (void)M;
    int64_t N = q_->N; (void)N;
    int64_t es = q_->es; (void)es;
    char * gx = q_->gx; (void)gx;
    const char * gy = q_->gy; (void)gy;
    const char * x = q_->x; (void)x;
    for (int64_t r = (int64_t)lo_; r < hi_; r++) {
            ct__ln_bwd_row(dt, gx + es * r * N, gy + es * r * N, x + es * r * N, w, ct__nn_ld(dt, mean, r), ct__nn_ld(dt, rstd, r), N);
        }
}
static int ct__ln_bwd(ct_dtype dt, void *gx_, void *gw, void *gb, const void *gy_, const void *x_, const void *w, const void *mean,
                      const void *rstd, int64_t M, int64_t N) {
    const int64_t es = ct__dt[dt].size;
    char *gx = (char *)gx_, *blk;
    const char *gy = (const char *)gy_, *x = (const char *)x_;
    int ct__par = ct__rpar(M * N) && M > 1;
    double *acc = ct__nrm_scratch("layer_norm_backward", 2 * N, 2 * N, (size_t)es, &blk);
    if (!acc) return -1;
    for (int64_t j = 0; j < 2 * N; j++) acc[j] = 0;
    if (ct__par) {
        ct__ln_bwd_c1 q1_ = {dt, gx_, gw, gb, gy_, x_, w, mean, rstd, M, N, es, gx, gy, x}; ct__rrun(M, ct__par, ct__ln_bwd_b1, &q1_);
    }
    /* column sums (grad_weight, grad_bias): blocks of 32 rows in the dtype, added up
       in double; one pass with the rows' gx when single-threaded */
    for (int64_t r0 = 0; r0 < M; r0 += 32) {
        int64_t r1 = r0 + 32 < M ? r0 + 32 : M;
        memset(blk, 0, (size_t)(es * 2 * N));
        for (int64_t r = r0; r < r1; r++) {
            double muT = ct__nn_ld(dt, mean, r), rsT = ct__nn_ld(dt, rstd, r);
            if (!ct__par) ct__ln_bwd_row(dt, gx + es * r * N, gy + es * r * N, x + es * r * N, w, muT, rsT, N);
            CT__NN_AS(dt, {
                const T *g = (const T *)(gy + es * r * N), *p = (const T *)(x + es * r * N);
                T *bk = (T *)blk, m = (T)muT, s = (T)rsT;
                for (int64_t j = 0; j < N; j++) {
                    bk[j] += g[j] * ((p[j] - m) * s);
                    bk[N + j] += g[j];
                }
            });
        }
        CT__NN_AS(dt, {
            const T *bk = (const T *)blk;
            for (int64_t j = 0; j < 2 * N; j++) acc[j] += (double)bk[j];
        });
    }
    for (int64_t j = 0; j < N; j++) {
        ct__nn_st(dt, gw, j, acc[j]);
        ct__nn_st(dt, gb, j, acc[N + j]);
    }
    CT_FREE(acc);
    return 0;
}
static int64_t ct__ln_cols(const ct_tensor *x, int k) {
    int64_t N = 1;
    for (int d = x->ndim - k; d < x->ndim; d++) N *= x->shape[d];
    return N;
}
static int ct__k_ln(ct__call *c) {
    ct_tensor *t[3];   /* x, w, b */
    if (ct__nn_dense_inputs(c, 0, 0, t)) return -1;
    ct__ln_fwd(c->in[0]->dtype, ct__ptr(c->out[0]), ct__ptr(c->out[1]), ct__ptr(c->out[2]), ct__ptr(t[0]), ct__ptr(t[1]), ct__ptr(t[2]),
               c->out[1]->shape[0], ct__ln_cols(c->in[0], c->a->nv), c->a->s[0]);
    ct__nn_release(3, t);
    return 0;
}
/* in: grad_out, x, weight, mean [M], rstd [M]; out: grad_x, grad_weight, grad_bias */
static int ct__meta_ln_bw(ct__call *c) {
    ct_tensor *g = c->in[0], *x = c->in[1], *w = c->in[2];
    if (!ct_same_shape(g, x) || g->dtype != x->dtype)
        return ct__failed(CT_ERR_SHAPE, "native_layer_norm_backward: grad_out %s must match the input %s", CT__SHAPE(g), CT__SHAPE(x));
    if (ct__norm_float_dtype("native_layer_norm_backward", x)) return -1;
    ct__nn_out(&c->oi[0], x->dtype, x->ndim, x->shape, 0);
    ct__nn_out(&c->oi[1], x->dtype, w->ndim, w->shape, 0);
    ct__nn_out(&c->oi[2], x->dtype, w->ndim, w->shape, 0);
    c->nout = 3;
    return 0;
}
static int ct__k_ln_bw(ct__call *c) {
    ct_tensor *t[5];   /* gy, x, w, mean, rstd */
    if (ct__nn_dense_inputs(c, 0, 0, t)) return -1;
    int rc = ct__ln_bwd(c->in[1]->dtype, ct__ptr(c->out[0]), ct__ptr(c->out[1]), ct__ptr(c->out[2]), ct__ptr(t[0]), ct__ptr(t[1]),
                        ct__ptr(t[2]), ct__ptr(t[3]), ct__ptr(t[4]), ct_numel(c->in[3]), ct_numel(c->in[2]));
    ct__nn_release(5, t);
    return rc;
}
static int ct__bw_ln(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *x = CT__SV_IN(n, 0), *w = CT__SV_IN(n, 1), *gy = gout[0];
    if (!x || !w) return -1;
    int k = n->attrs.nv;
    if (ct_is_grad_enabled()) {   /* create_graph: a differentiable formula */
        int64_t dims[CT_MAX_DIMS], lead[CT_MAX_DIMS];
        int nl = x->ndim - k;
        for (int d = 0; d < k; d++) dims[d] = nl + d;
        for (int d = 0; d < nl; d++) lead[d] = d;
        ct_tensor *gx, *gwf;
        if (ct__norm_grads_composite(x, ct_reshape_n(w, k, x->shape + nl), gy, k, dims, n->attrs.s[0], &gx, &gwf)) return -1;
        if (CT__NEEDS(n, 0)) gin[0] = gx;
        if (CT__NEEDS(n, 1) && !(gin[1] = ct_view_n(nl ? ct_sum_dims(gwf, nl, lead, 0) : gwf, w->ndim, w->shape))) return -1;
        if (CT__NEEDS(n, 2) && !(gin[2] = ct_view_n(nl ? ct_sum_dims(gy, nl, lead, 0) : gy, w->ndim, w->shape))) return -1;
        return 0;
    }
    return ct__norm_bw_fused(n, CT__NNOP(LAYER_NORM_BACKWARD), gy, x, w, gin);
}
static void ct__fmt_list(char *buf, size_t cap, int n, const int64_t *v, const char *open, const char *close) {
    size_t k = (size_t)snprintf(buf, cap, "%s", open);
    for (int i = 0; i < n && k < cap; i++) k += (size_t)snprintf(buf + k, cap - k, i ? ", %lld" : "%lld", (long long)v[i]);
    if (k < cap) snprintf(buf + k, cap - k, "%s", close);
}
CTENSOR_API ct_tensor *ct_layer_norm(const ct_tensor *x, int n, const int64_t *ns, const ct_tensor *weight,
                                     const ct_tensor *bias, double eps) {
    char a1[208], a2[208], a3[208];
    if (!x) { ct__null_arg("layer_norm", 0); return NULL; }
    if (n < 1 || !ns)
        return ct__fail(CT_ERR_ARG, "layer_norm: Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []");
    if (n > CT_MAX_DIMS) return ct__fail(CT_ERR_ARG, "layer_norm: normalized_shape has more than %d dims", CT_MAX_DIMS);
    ct__fmt_list(a1, sizeof a1, n, ns, "[", "]");
    const ct_tensor *pw[2];
    pw[0] = weight;
    pw[1] = bias;
    for (int i = 0; i < 2; i++) {
        const ct_tensor *p = pw[i];
        int ok = !p || p->ndim == n;
        for (int d = 0; ok && p && d < n; d++) ok = p->shape[d] == ns[d];
        if (!ok)
            return ct__fail(CT_ERR_SHAPE, "layer_norm: Expected %s to be of same shape as normalized_shape, but got %s of shape %s and normalized_shape = %s",
                            i ? "bias" : "weight", i ? "bias" : "weight", CT__SHAPE(p), a1);
    }
    int ok = x->ndim >= n;
    for (int d = 0; ok && d < n; d++) ok = x->shape[x->ndim - n + d] == ns[d];
    if (!ok) {
        ct__fmt_list(a2, sizeof a2, n, ns, "[*, ", "]");
        snprintf(a3, sizeof a3, "%s", CT__SHAPE(x));
        return ct__fail(CT_ERR_SHAPE, "layer_norm: Given normalized_shape=%s, expected input with shape %s, but got input of size%s", a1, a2, a3);
    }
    int s = ct_scope_begin();
    int pg = ct_set_grad_enabled(0);
    ct_tensor *w = weight ? (ct_tensor *)weight : ct_ones_on_n(x->device, x->dtype, n, ns);
    ct_tensor *b = bias ? (ct_tensor *)bias : ct_zeros_on_n(x->device, x->dtype, n, ns);
    ct_set_grad_enabled(pg);
    ct__attrs a;
    ct__attrs_init(&a);
    a.s[0] = eps;
    a.nv = n;
    for (int d = 0; d < n; d++) a.v[d] = ns[d];
    ct_tensor *in[3], *out[3];
    in[0] = (ct_tensor *)x;
    in[1] = w;
    in[2] = b;
    ct_tensor *y = w && b && ct__calln(CT__NNOP(LAYER_NORM), 3, in, &a, out) >= 0 ? out[0] : NULL;
    ct_keep(y);
    ct_scope_end(s);
    return y;
}

/* ---- group_norm: layer_norm over [N, G, C/G * S], then the per-channel affine ---- */
CTENSOR_API ct_tensor *ct_group_norm(const ct_tensor *x, int64_t G, const ct_tensor *weight, const ct_tensor *bias, double eps) {
    if (!x) { ct__null_arg("group_norm", 0); return NULL; }
    if (x->ndim < 2) return ct__fail(CT_ERR_SHAPE, "group_norm: Expected at least 2 dimensions for input tensor but received %d", x->ndim);
    int64_t N = x->shape[0], C = x->shape[1];
    if (G <= 0 || C % G)
        return ct__fail(CT_ERR_SHAPE, "group_norm: Expected number of channels in input to be divisible by num_groups, but got input of shape %s and num_groups=%lld",
                        CT__SHAPE(x), (long long)G);
    const ct_tensor *pw[2];
    pw[0] = weight;
    pw[1] = bias;
    for (int i = 0; i < 2; i++)
        if (pw[i] && (pw[i]->ndim != 1 || pw[i]->shape[0] != C)) {
            char a[208];
            snprintf(a, sizeof a, "%s", CT__SHAPE(pw[i]));
            return ct__fail(CT_ERR_SHAPE, "group_norm: Expected %s to be a vector of size equal to the number of channels in input, but got %s of shape %s and input of shape %s",
                            i ? "bias" : "weight", i ? "bias" : "weight", a, CT__SHAPE(x));
        }
    int s = ct_scope_begin();
    int64_t K = N * G != 0 ? ct_numel(x) / (N * G) : 0;
    int64_t sh[3];
    sh[0] = N;
    sh[1] = G;
    sh[2] = K;
    ct_tensor *y = ct_reshape_n(ct_layer_norm(ct_reshape_n(x, 3, sh), 1, &K, NULL, NULL, eps), x->ndim, x->shape);
    int64_t ws[CT_MAX_DIMS];
    for (int d = 0; d < x->ndim; d++) ws[d] = d == 1 ? C : 1;
    if (weight) y = ct_mul(y, ct_reshape_n(weight, x->ndim, ws));
    if (bias) y = ct_add(y, ct_reshape_n(bias, x->ndim, ws));
    ct_keep(y);
    ct_scope_end(s);
    return y;
}

/* ---- dropout (ATen/native/Dropout.cpp, _dropout_impl: the CPU path) ---- */
CTENSOR_API ct_tensor *ct_dropout(const ct_tensor *x, double p, int training) {
    if (!x) { ct__null_arg("dropout", 0); return NULL; }
    if (!(p >= 0.0 && p <= 1.0)) {
        char a[40];
        ct__pyfloat(p, a, sizeof a);
        return ct__fail(CT_ERR_ARG, "dropout: dropout probability has to be between 0 and 1, but got %s", a);
    }
    if (!training || p == 0.0 || ct_numel(x) == 0) return ct_alias(x);
    if (p == 1.0) return ct_mul(x, ct_zeros_n(x->dtype, 0, NULL));
    int s = ct_scope_begin();
    ct_tensor *noise = ct_bernoulli_scalar_(ct_empty_like(x), 1.0 - p, NULL);
    ct_tensor *y = ct_mul(x, ct_div_scalar(noise, 1.0 - p));
    ct_keep(y);
    ct_scope_end(s);
    return y;
}

/* ---- embedding (ATen/native/Embedding.cpp): in weight [V, D], indices ---- */
static int ct__meta_embedding(ct__call *c) {
    ct_tensor *w = c->in[0], *idx = c->in[1];
    if (idx->dtype != CT_INT64 && idx->dtype != CT_INT32) {
        char tn[64];
        return ct__failed(CT_ERR_DTYPE, "embedding: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got %s instead (while checking arguments for embedding)",
                          ct__tensor_type_name(idx->dtype, tn, sizeof tn));
    }
    if (w->ndim != 2) return ct__failed(CT_ERR_SHAPE, "embedding: 'weight' must be 2-D");
    if (idx->ndim + 1 > CT_MAX_DIMS) return ct__failed(CT_ERR_SHAPE, "embedding: too many dims");
    ct__outinfo *o = &c->oi[0];
    o->kind = CT__OUT_NEW;
    o->has_strides = 0;
    o->dtype = w->dtype;
    o->ndim = idx->ndim + 1;
    for (int d = 0; d < idx->ndim; d++) o->shape[d] = idx->shape[d];
    o->shape[idx->ndim] = w->shape[1];
    c->nout = 1;
    return 0;
}
static int ct__k_embedding(ct__call *c) {
    ct_tensor *w = ct__contig_ref(c->in[0]), *idx = ct__contig_ref(c->in[1]);
    int rc = -1;
    if (w && idx) {
        int64_t V = w->shape[0], D = w->shape[1], L = ct_numel(idx);
        size_t es = ct__dt[w->dtype].size, row = (size_t)D * es;
        const char *src = ct__ptr(w);
        char *dst = ct__ptr(c->out[0]);
        rc = 0;
        for (int64_t i = 0; i < L; i++) {
            int64_t k = idx->dtype == CT_INT64 ? ((const int64_t *)ct__ptr(idx))[i] : (int64_t)((const int32_t *)ct__ptr(idx))[i];
            if (k < 0 || k >= V) { rc = ct__failed(CT_ERR_INDEX, "embedding: index out of range in self (index %lld, num_embeddings %lld)", (long long)k, (long long)V); break; }
            if (row) memcpy(dst + (size_t)i * row, src + (size_t)k * row, row);
        }
    }
    if (w) ct__decref(w);
    if (idx) ct__decref(idx);
    return rc;
}
/* grad_weight = zeros(V, D).index_add(0, indices, grad rows), the padding row skipped */
static int ct__bw_embedding(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    if (!CT__NEEDS(n, 0)) return 0;
    ct_tensor *idx = CT__SV_IN(n, 1);
    if (!idx) return -1;
    const ct__tmeta *wm = &n->in_meta[0];
    int64_t L = ct_numel(idx), D = wm->shape[1], gs[2];
    gs[0] = L;
    gs[1] = D;
    ct_tensor *fi = ct_reshape_n(idx->dtype == CT_INT64 ? idx : ct_to(idx, CT_INT64), 1, &L);
    ct_tensor *g = ct_reshape_n(gout[0], 2, gs);
    if (n->attrs.flags & 1) g = ct_where_scalar(ct_unsqueeze(ct_ne_scalar(fi, (double)n->attrs.i[0]), 1), g, 0.0);
    if ((n->attrs.flags & 2) && g) {   /* scale_grad_by_freq: each row's gradient over how often the batch reads it */
        ct_tensor *cnt = ct_index_add(ct_zeros_on_n(wm->device, g->dtype, 1, wm->shape), 0, fi, ct_ones_on_n(wm->device, g->dtype, 1, &L), 1.0);
        g = ct_div(g, ct_unsqueeze(ct_index_select(cnt, 0, fi), 1));
    }
    gin[0] = ct_index_add(ct_zeros_on_n(wm->device, g ? g->dtype : wm->dtype, 2, wm->shape), 0, fi, g, 1.0);
    return gin[0] ? 0 : -1;
}
/* the embedding op's attributes: 0, or -1 with the error set */
static int ct__embedding_attrs(const ct_tensor *weight, int64_t padding_idx, int scale_grad_by_freq, ct__attrs *a) {
    ct__attrs_init(a);
    if (weight && padding_idx != CT_NO_PADDING_IDX && weight->ndim == 2) {
        int64_t V = weight->shape[0];
        if (padding_idx >= V || padding_idx < -V) return ct__failed(CT_ERR_ARG, "embedding: Padding_idx must be within num_embeddings");
        a->flags = 1;
        a->i[0] = padding_idx < 0 ? padding_idx + V : padding_idx;
    }
    if (scale_grad_by_freq) a->flags |= 2;
    return 0;
}
CTENSOR_API ct_tensor *ct_embedding(const ct_tensor *indices, const ct_tensor *weight, int64_t padding_idx) {
    ct__attrs a;
    if (ct__embedding_attrs(weight, padding_idx, 0, &a)) return NULL;
    return ct__op2(CT__NNOP(EMBEDDING), weight, indices, &a);
}
CTENSOR_API ct_tensor *ct_embedding_ex(const ct_tensor *indices, ct_tensor *weight, const ct_embedding_options *o) {
    ct__attrs a;
    const ct_embedding_options d = {0, 0, 0.0, 0.0, 0};
    if (!o) o = &d;
    if (!(o->max_norm >= 0) || !(o->norm_type >= 0))
        return ct__fail(CT_ERR_ARG, "embedding: max_norm (%g) and norm_type (%g) must be >= 0 (0: None, and 2)", o->max_norm, o->norm_type);
    if (ct__embedding_attrs(weight, o->use_padding_idx ? o->padding_idx : CT_NO_PADDING_IDX, o->scale_grad_by_freq, &a)) return NULL;
    if (o->max_norm > 0 && !ct_embedding_renorm_(weight, indices, o->max_norm, o->norm_type > 0 ? o->norm_type : 2.0)) return NULL;
    return ct__op2(CT__NNOP(EMBEDDING), weight, indices, &a);
}

static int ct__cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}
CTENSOR_API ct_tensor *ct_embedding_renorm_(ct_tensor *weight, const ct_tensor *indices, double max_norm, double norm_type) {
    if (!weight || !indices) { ct__null_arg("embedding_renorm_", weight ? 1 : 0); return NULL; }
    char tn[64];
    if (weight->ndim != 2)
        return ct__fail(CT_ERR_SHAPE, "embedding_renorm_: Expected 2-dimensional tensor, but got %d-dimensional tensor for argument #1 'self' (while checking arguments for embedding_renorm_)", weight->ndim);
    if (indices->dtype != CT_INT64 && indices->dtype != CT_INT32)
        return ct__fail(CT_ERR_DTYPE, "embedding_renorm_: Expected tensor for argument #2 'indices' to have one of the following scalar types: Long, Int; but got %s instead (while checking arguments for embedding_renorm_)",
                        ct__tensor_type_name(indices->dtype, tn, sizeof tn));
    if (!CT__ISFLOAT(weight->dtype)) return ct__fail(CT_ERR_DTYPE, "embedding_renorm_: weight must be floating point, but got %s", CT__DTNAME(weight->dtype));
    int prev = ct_set_grad_enabled(0), s = ct_scope_begin();
    ct_tensor *flat = ct_contiguous(ct_to(ct_flatten(indices, 0, -1), CT_INT64));
    int64_t n = flat ? ct_numel(flat) : 0, V = weight->shape[0];
    int64_t *idx = NULL;
    ct_tensor *r = NULL;
    if (flat && n && !(idx = (int64_t *)CT_MALLOC((size_t)n * sizeof(int64_t))))
        ct__fail(CT_ERR_MEMORY, "embedding_renorm_: out of memory for %lld indices", (long long)n);
    else if (flat)
        r = weight;   /* no indices: nothing to do */
    if (idx) {
        memcpy(idx, ct_data_ptr(flat), (size_t)n * sizeof(int64_t));
        qsort(idx, (size_t)n, sizeof(int64_t), ct__cmp_i64);
        if (idx[0] < -V || idx[n - 1] >= V)   /* checked first: a failing call changes nothing */
            r = ct__fail(CT_ERR_INDEX, "embedding_renorm_: select(): index %lld out of range for tensor of size [%lld, %lld] at dimension 0", (long long)(idx[0] < -V ? idx[0] : idx[n - 1]), (long long)V, (long long)weight->shape[1]);
        for (int64_t i = 0; r && i < n; i++) {
            if (i > 0 && idx[i] == idx[i - 1]) continue;
            ct_tensor *row = ct_select(weight, 0, idx[i]);
            ct_tensor *nt = row ? ct_norm(row, norm_type, 0, NULL, 0) : NULL;
            double nrm = nt ? ct_item(nt) : NAN;
            if (!nt) r = NULL;
            else if (nrm > max_norm && !ct_mul_scalar_(row, max_norm / (nrm + 1e-7))) r = NULL;
        }
        CT_FREE(idx);
    }
    ct_scope_end(s);
    ct_set_grad_enabled(prev);
    return r;
}

/* ---- embedding_bag: embedding rows reduced per bag (sum/mean by index_add, max per bag) ---- */
CTENSOR_API ct_tensor *ct_embedding_bag(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *offsets,
                                        const char *mode, const ct_tensor *psw, int include_last_offset) {
    if (!input || !weight) { ct__null_arg("embedding_bag", input ? 1 : 0); return NULL; }
    int md = !mode || !strcmp(mode, "mean") ? 1 : !strcmp(mode, "sum") ? 0 : !strcmp(mode, "max") ? 2 : -1;
    if (md < 0) return ct__fail(CT_ERR_ARG, "embedding_bag: mode has to be one of sum, mean or max");
    if (psw && md != 0)
        return ct__fail(CT_ERR_ARG, "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' (got mode='%s'). Please open a feature request on the Pytorch GitHub.",
                        md == 1 ? "mean" : "max");
    if (input->dtype != CT_INT64 && input->dtype != CT_INT32) {
        char tn[64];
        return ct__fail(CT_ERR_DTYPE, "embedding_bag: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got %s instead (while checking arguments for embedding_bag)",
                        ct__tensor_type_name(input->dtype, tn, sizeof tn));
    }
    if (weight->ndim != 2) return ct__fail(CT_ERR_SHAPE, "embedding_bag: 'weight' must be 2-D");
    if (psw && !ct_same_shape(psw, input)) {
        char a[208];
        snprintf(a, sizeof a, "%s", CT__SHAPE(psw));
        return ct__fail(CT_ERR_SHAPE, "embedding_bag: If per_sample_weights (%s) is not None, then it must have the same shape as the input (%s)", a, CT__SHAPE(input));
    }
    int64_t B, L, D = weight->shape[1], *off = NULL, noff = 0;
    if (input->ndim == 2) {
        if (offsets)
            return ct__fail(CT_ERR_ARG, "embedding_bag: if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length sequences. However, found offsets of type Tensor");
        B = input->shape[0];
        L = input->shape[0] * input->shape[1];
    } else if (input->ndim == 1) {
        if (!offsets) return ct__fail(CT_ERR_ARG, "embedding_bag: offsets has to be a 1D Tensor but got None");
        if (offsets->ndim != 1) return ct__fail(CT_ERR_SHAPE, "embedding_bag: offsets has to be a 1D Tensor");
        if (offsets->dtype != CT_INT64 && offsets->dtype != CT_INT32) {
            char tn[64];
            return ct__fail(CT_ERR_DTYPE, "embedding_bag: Expected tensor for argument #2 'offsets' to have one of the following scalar types: Long, Int; but got %s instead (while checking arguments for embedding_bag)",
                            ct__tensor_type_name(offsets->dtype, tn, sizeof tn));
        }
        L = input->shape[0];
        noff = offsets->shape[0];
        B = include_last_offset ? (noff > 0 ? noff - 1 : 0) : noff;
    } else {
        return ct__fail(CT_ERR_SHAPE, "embedding_bag: input has to be 1D or 2D Tensor, but got Tensor of dimension %d", input->ndim);
    }
    int s = ct_scope_begin();
    ct_tensor *res = NULL;
    int64_t *start = (int64_t *)CT_MALLOC(sizeof(int64_t) * (size_t)(2 * B + 1));
    int64_t *bag = (int64_t *)CT_MALLOC(sizeof(int64_t) * (size_t)(L + 1));
    double *cnt = (double *)CT_MALLOC(sizeof(double) * (size_t)(B + 1));
    if (!start || !bag || !cnt) { ct_set_error(CT_ERR_MEMORY, "embedding_bag: out of memory"); goto done; }
    memset(start, 0, sizeof(int64_t) * (size_t)(2 * B + 1));
    if (input->ndim == 2) {
        int64_t Lb = input->shape[1];
        for (int64_t b = 0; b < B; b++) { start[b] = b * Lb; start[B + b] = (b + 1) * Lb; }
    } else {
        ct_tensor *o64 = ct_contiguous(ct_to_device_dtype(offsets, ct_cpu(), CT_INT64));   /* read on the host */
        if (!o64) goto done;
        off = (int64_t *)ct_data_ptr(o64);
        if (noff > 0 && off[0] != 0) {
            ct_set_error(CT_ERR_ARG, "embedding_bag: offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. However, got %lld", (long long)off[0]);
            goto done;
        }
        if (noff > 0 && off[noff - 1] > L) {
            ct_set_error(CT_ERR_INDEX, "embedding_bag: offsets[-1] can not be greater than input's length (%lld), but got %lld", (long long)L, (long long)off[noff - 1]);
            goto done;
        }
        for (int64_t b = 0; b < B; b++) {
            start[b] = off[b];
            start[B + b] = b + 1 < noff ? off[b + 1] : L;
            if (start[B + b] < start[b]) {
                ct_set_error(CT_ERR_ARG, "embedding_bag: offsets must be non-decreasing, but offsets[%lld] = %lld > offsets[%lld] = %lld",
                             (long long)b, (long long)start[b], (long long)(b + 1), (long long)start[B + b]);
                goto done;
            }
        }
    }
    {
        int64_t used = B ? start[2 * B - 1] : 0;
        for (int64_t b = 0; b < B; b++) {
            cnt[b] = (double)(start[B + b] - start[b]);
            for (int64_t i = start[b]; i < start[B + b]; i++) bag[i] = b;
        }
        ct_tensor *flat = ct_narrow(ct_reshape_n(input, 1, &L), 0, 0, used);
        ct_tensor *emb = ct_embedding(flat, weight, CT_NO_PADDING_IDX);
        if (!emb) goto done;
        int64_t os[2];
        os[0] = B;
        os[1] = D;
        if (md == 2) {
            ct_tensor **rows = (ct_tensor **)CT_MALLOC(sizeof(ct_tensor *) * (size_t)(B + 1));
            if (!rows) { ct_set_error(CT_ERR_MEMORY, "embedding_bag: out of memory"); goto done; }
            int ok = 1;
            for (int64_t b = 0; b < B && ok; b++) {
                if (cnt[b] == 0) rows[b] = ct_zeros_on_n(weight->device, weight->dtype, 1, &D);
                else rows[b] = ct_max_dim(ct_narrow(emb, 0, start[b], start[B + b] - start[b]), 0, 0, NULL);
                ok = rows[b] != NULL;
            }
            res = !ok ? NULL : B ? ct_stack((int)B, rows, 0) : ct_zeros_on_n(weight->device, weight->dtype, 2, os);
            CT_FREE(rows);
        } else {
            ct_tensor *src = emb;
            if (psw) src = ct_mul(emb, ct_unsqueeze(ct_narrow(ct_reshape_n(psw, 1, &L), 0, 0, used), 1));
            ct_tensor *bi = ct_to_device(ct_from_data_n(bag, CT_INT64, 1, &used), weight->device);   /* (the bags, made on the host) */
            res = ct_index_add(ct_zeros_on_n(weight->device, weight->dtype, 2, os), 0, bi, src, 1.0);
            if (md == 1) {
                for (int64_t b = 0; b < B; b++) cnt[b] = cnt[b] > 0 ? cnt[b] : 1.0;
                int64_t cs[2];
                cs[0] = B;
                cs[1] = 1;
                res = ct_div(res, ct_to_device_dtype(ct_from_data_n(cnt, CT_FLOAT64, 2, cs), weight->device, weight->dtype));
            }
        }
    }
done:
    CT_FREE(start);
    CT_FREE(bag);
    CT_FREE(cnt);
    ct_keep(res);
    ct_scope_end(s);
    return res;
}

/* ---- modules ---- */
static ct_tensor *ct__param(const ct_module *m, int i) { return i < m->nparams ? m->params[i].tensor : NULL; }
static ct_tensor *ct__buffer(const ct_module *m, int i) { return i < m->nbuffers ? m->buffers[i].tensor : NULL; }
static double ct__opt_default(double v, double def) { return v == 0.0 && !signbit(v) ? def : v == 0.0 ? 0.0 : v; }

typedef struct ct__bn_impl { int64_t nf; double eps, momentum; int cumulative, affine, track, dims; } ct__bn_impl;
static ct_tensor *ct__bn_forward(ct_module *m, int nin, ct_tensor *const *in) {
    const ct__bn_impl *im = (const ct__bn_impl *)m->impl;
    if (nin != 1) return ct__fail(CT_ERR_ARG, "%s: forward takes 1 input (got %d)", m->type->name, nin);
    ct_tensor *x = in[0];
    if (!x) { ct__null_arg(m->type->name, 0); return NULL; }
    if (im->dims == 2 && x->ndim != 4) return ct__fail(CT_ERR_SHAPE, "%s: expected 4D input (got %dD input)", m->type->name, x->ndim);
    if (im->dims == 1 && x->ndim != 2 && x->ndim != 3) return ct__fail(CT_ERR_SHAPE, "%s: expected 2D or 3D input (got %dD input)", m->type->name, x->ndim);
    ct_tensor *rm = ct__buffer(m, 0), *rv = ct__buffer(m, 1), *nbt = ct__buffer(m, 2);
    double factor = im->cumulative ? 0.0 : im->momentum;
    if (m->training && im->track && nbt) {
        int pg = ct_set_grad_enabled(0);
        ct_tensor *r = ct_add_scalar_(nbt, 1.0);
        ct_set_grad_enabled(pg);
        if (!r) return NULL;
        if (im->cumulative) factor = 1.0 / (double)ct_item_int(nbt);
    }
    int bn_training = m->training || (!rm && !rv);
    int use_stats = !m->training || im->track;
    return ct_batch_norm(x, use_stats ? rm : NULL, use_stats ? rv : NULL, ct__param(m, 0), ct__param(m, 1), bn_training, factor, im->eps);
}
static int ct__bn_repr(const ct_module *m, char *buf, size_t cap) {
    const ct__bn_impl *im = (const ct__bn_impl *)m->impl;
    char e[40], mo[40];
    ct__pyfloat(im->eps, e, sizeof e);
    if (im->cumulative) snprintf(mo, sizeof mo, "None");
    else ct__pyfloat(im->momentum, mo, sizeof mo);
    return snprintf(buf, cap, "%lld, eps=%s, momentum=%s, affine=%s, track_running_stats=%s", (long long)im->nf, e, mo,
                    im->affine ? "True" : "False", im->track ? "True" : "False");
}
static void ct__free_impl(ct_module *m);
static const ct_module_type ct__bn1d_type = {"BatchNorm1d", ct__bn_forward, ct__free_impl, ct__bn_repr};
static const ct_module_type ct__bn2d_type = {"BatchNorm2d", ct__bn_forward, ct__free_impl, ct__bn_repr};
static ct_module *ct__bn_new(const ct_module_type *ty, int dims, int64_t nf, const ct_batch_norm_options *o) {
    if (nf < 0) return (ct_module *)ct__fail(CT_ERR_ARG, "%s: num_features must be non-negative (got %lld)", ty->name, (long long)nf);
    ct__bn_impl *im = CT__NEW_ZEROED(ct__bn_impl);
    ct_module *m = im ? ct_module_new(ty, im) : NULL;
    if (!m) { CT_FREE(im); return (ct_module *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", ty->name); }
    im->nf = nf;
    im->dims = dims;
    im->eps = ct__opt_default(o ? o->eps : 0.0, 1e-5);
    im->cumulative = o && isnan(o->momentum);
    im->momentum = im->cumulative ? 0.0 : ct__opt_default(o ? o->momentum : 0.0, 0.1);
    im->affine = !(o && o->no_affine);
    im->track = !(o && o->no_track_running_stats);
    int s = ct_scope_begin();
    ct_dtype dt = ct_get_default_dtype();
    ct_tensor *w = im->affine ? ct_ones(dt, nf) : NULL, *b = im->affine ? ct_zeros(dt, nf) : NULL;
    ct_tensor *rm = im->track ? ct_zeros(dt, nf) : NULL, *rv = im->track ? ct_ones(dt, nf) : NULL;
    ct_tensor *nbt = im->track ? ct_zeros_n(CT_INT64, 0, NULL) : NULL;
    int ok = (!im->affine || (w && b)) && (!im->track || (rm && rv && nbt));
    ok = ok && !ct_module_register_parameter(m, "weight", w) && !ct_module_register_parameter(m, "bias", b);
    ok = ok && !ct_module_register_buffer(m, "running_mean", rm, 1) && !ct_module_register_buffer(m, "running_var", rv, 1) &&
         !ct_module_register_buffer(m, "num_batches_tracked", nbt, 1);
    ct_scope_end(s);
    if (!ok) { ct_module_free(m); return NULL; }
    return m;
}
CTENSOR_API ct_module *ct_nn_batch_norm1d(int64_t nf) { return ct__bn_new(&ct__bn1d_type, 1, nf, NULL); }
CTENSOR_API ct_module *ct_nn_batch_norm2d(int64_t nf) { return ct__bn_new(&ct__bn2d_type, 2, nf, NULL); }
CTENSOR_API ct_module *ct_nn_batch_norm1d_ex(int64_t nf, const ct_batch_norm_options *o) { return ct__bn_new(&ct__bn1d_type, 1, nf, o); }
CTENSOR_API ct_module *ct_nn_batch_norm2d_ex(int64_t nf, const ct_batch_norm_options *o) { return ct__bn_new(&ct__bn2d_type, 2, nf, o); }

typedef struct ct__ln_impl { int n; int64_t shape[CT_MAX_DIMS]; double eps; int affine; int64_t groups, channels; } ct__ln_impl;
static ct_tensor *ct__ln_forward(ct_module *m, int nin, ct_tensor *const *in) {
    const ct__ln_impl *im = (const ct__ln_impl *)m->impl;
    if (nin != 1) return ct__fail(CT_ERR_ARG, "%s: forward takes 1 input (got %d)", m->type->name, nin);
    if (im->groups) return ct_group_norm(in[0], im->groups, ct__param(m, 0), ct__param(m, 1), im->eps);
    return ct_layer_norm(in[0], im->n, im->shape, ct__param(m, 0), ct__param(m, 1), im->eps);
}
static int ct__ln_repr(const ct_module *m, char *buf, size_t cap) {
    const ct__ln_impl *im = (const ct__ln_impl *)m->impl;
    char e[40], sh[200];
    ct__pyfloat(im->eps, e, sizeof e);
    if (im->groups)
        return snprintf(buf, cap, "%lld, %lld, eps=%s, affine=%s", (long long)im->groups, (long long)im->channels, e, im->affine ? "True" : "False");
    ct__fmt_list(sh, sizeof sh, im->n, im->shape, "(", im->n == 1 ? ",)" : ")");
    return snprintf(buf, cap, "%s, eps=%s, elementwise_affine=%s", sh, e, im->affine ? "True" : "False");
}
static const ct_module_type ct__ln_type = {"LayerNorm", ct__ln_forward, ct__free_impl, ct__ln_repr};
static const ct_module_type ct__gn_type = {"GroupNorm", ct__ln_forward, ct__free_impl, ct__ln_repr};
static ct_module *ct__ln_new(const ct_module_type *ty, int n, const int64_t *shape, double eps, int affine, int64_t groups) {
    ct__ln_impl *im = CT__NEW_ZEROED(ct__ln_impl);
    ct_module *m = im ? ct_module_new(ty, im) : NULL;
    if (!m) { CT_FREE(im); return (ct_module *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", ty->name); }
    im->n = n;
    for (int i = 0; i < n; i++) im->shape[i] = shape[i];
    im->eps = ct__opt_default(eps, 1e-5);
    im->affine = affine;
    im->groups = groups;
    im->channels = groups ? shape[0] : 0;
    int s = ct_scope_begin();
    ct_dtype dt = ct_get_default_dtype();
    ct_tensor *w = affine ? ct_ones_n(dt, n, shape) : NULL, *b = affine ? ct_zeros_n(dt, n, shape) : NULL;
    int ok = (!affine || (w && b)) && !ct_module_register_parameter(m, "weight", w) && !ct_module_register_parameter(m, "bias", b);
    ct_scope_end(s);
    if (!ok) { ct_module_free(m); return NULL; }
    return m;
}
CTENSOR_API ct_module *ct_nn_layer_norm_ex(int n, const int64_t *shape, const ct_layer_norm_options *o) {
    if (n < 1 || n > CT_MAX_DIMS || !shape) return (ct_module *)ct__fail(CT_ERR_ARG, "LayerNorm: normalized_shape must hold 1 to %d sizes (got %d)", CT_MAX_DIMS, n);
    for (int i = 0; i < n; i++)
        if (shape[i] < 0) return (ct_module *)ct__fail(CT_ERR_ARG, "LayerNorm: Trying to create tensor with negative dimension %lld", (long long)shape[i]);
    return ct__ln_new(&ct__ln_type, n, shape, o ? o->eps : 0.0, !(o && o->no_elementwise_affine), 0);
}
CTENSOR_API ct_module *ct_nn_layer_norm(int n, const int64_t *shape) { return ct_nn_layer_norm_ex(n, shape, NULL); }
CTENSOR_API ct_module *ct_nn_group_norm_ex(int64_t G, int64_t C, const ct_group_norm_options *o) {
    if (G <= 0 || C < 0 || C % G) return (ct_module *)ct__fail(CT_ERR_ARG, "GroupNorm: num_channels must be divisible by num_groups");
    return ct__ln_new(&ct__gn_type, 1, &C, o ? o->eps : 0.0, !(o && o->no_affine), G);
}
CTENSOR_API ct_module *ct_nn_group_norm(int64_t G, int64_t C) { return ct_nn_group_norm_ex(G, C, NULL); }

/* Dropout, Embedding, EmbeddingBag, Softmax, LogSoftmax: small state in one struct */
typedef struct ct__emb_impl { int kind; double p; int64_t num, dim, pad; int mode; int sdim; double max_norm, norm_type; int sgbf; } ct__emb_impl;
enum { CT__EMB_DROPOUT, CT__EMB_EMBEDDING, CT__EMB_BAG, CT__EMB_SOFTMAX, CT__EMB_LOG_SOFTMAX };
static const char *const ct__bag_modes[3] = {"sum", "mean", "max"};
static ct_tensor *ct__emb_forward(ct_module *m, int nin, ct_tensor *const *in) {
    const ct__emb_impl *im = (const ct__emb_impl *)m->impl;
    if (nin != 1 && !(im->kind == CT__EMB_BAG && nin == 2))
        return ct__fail(CT_ERR_ARG, "%s: forward takes %s input (got %d)", m->type->name, im->kind == CT__EMB_BAG ? "1 or 2" : "1", nin);
    switch (im->kind) {
    case CT__EMB_DROPOUT: return ct_dropout(in[0], im->p, m->training);
    case CT__EMB_EMBEDDING: {
        ct_embedding_options o = {im->pad != CT_NO_PADDING_IDX, im->pad, im->max_norm, im->norm_type, im->sgbf};
        return ct_embedding_ex(in[0], ct__param(m, 0), &o);
    }
    case CT__EMB_BAG: return ct_embedding_bag(in[0], ct__param(m, 0), nin == 2 ? in[1] : NULL, ct__bag_modes[im->mode], NULL, 0);
    case CT__EMB_SOFTMAX: return ct_softmax(in[0], im->sdim);
    default: return ct_log_softmax(in[0], im->sdim);
    }
}
static int ct__emb_repr(const ct_module *m, char *buf, size_t cap) {
    const ct__emb_impl *im = (const ct__emb_impl *)m->impl;
    char p[40];
    switch (im->kind) {
    case CT__EMB_DROPOUT: ct__pyfloat(im->p, p, sizeof p); return snprintf(buf, cap, "p=%s, inplace=False", p);
    case CT__EMB_EMBEDDING: {
        int k = snprintf(buf, cap, "%lld, %lld", (long long)im->num, (long long)im->dim);
        char mn[40], nt[40];
        ct__pyfloat(im->max_norm, mn, sizeof mn);
        ct__pyfloat(im->norm_type, nt, sizeof nt);
        if (k >= 0 && (size_t)k < cap && im->pad != CT_NO_PADDING_IDX) k += snprintf(buf + k, cap - (size_t)k, ", padding_idx=%lld", (long long)im->pad);
        if (k >= 0 && (size_t)k < cap && im->max_norm > 0) k += snprintf(buf + k, cap - (size_t)k, ", max_norm=%s", mn);
        if (k >= 0 && (size_t)k < cap && im->norm_type != 2.0) k += snprintf(buf + k, cap - (size_t)k, ", norm_type=%s", nt);
        if (k >= 0 && (size_t)k < cap && im->sgbf) k += snprintf(buf + k, cap - (size_t)k, ", scale_grad_by_freq=True");
        return k;
    }
    case CT__EMB_BAG: return snprintf(buf, cap, "%lld, %lld, mode=%s", (long long)im->num, (long long)im->dim, ct__bag_modes[im->mode]);
    default: return snprintf(buf, cap, "dim=%d", im->sdim);
    }
}
static const ct_module_type ct__dropout_type = {"Dropout", ct__emb_forward, ct__free_impl, ct__emb_repr};
static const ct_module_type ct__embedding_type = {"Embedding", ct__emb_forward, ct__free_impl, ct__emb_repr};
static const ct_module_type ct__embedding_bag_type = {"EmbeddingBag", ct__emb_forward, ct__free_impl, ct__emb_repr};
static const ct_module_type ct__softmax_type = {"Softmax", ct__emb_forward, ct__free_impl, ct__emb_repr};
static const ct_module_type ct__log_softmax_type = {"LogSoftmax", ct__emb_forward, ct__free_impl, ct__emb_repr};
static ct_module *ct__emb_new(const ct_module_type *ty, int kind) {
    ct__emb_impl *im = CT__NEW_ZEROED(ct__emb_impl);
    ct_module *m = im ? ct_module_new(ty, im) : NULL;
    if (!m) { CT_FREE(im); return (ct_module *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", ty->name); }
    im->kind = kind;
    im->pad = CT_NO_PADDING_IDX;
    return m;
}
CTENSOR_API ct_module *ct_nn_dropout(double p) {
    if (!(p >= 0.0 && p <= 1.0)) {
        char a[40];
        ct__pyfloat(p, a, sizeof a);
        return (ct_module *)ct__fail(CT_ERR_ARG, "Dropout: dropout probability has to be between 0 and 1, but got %s", a);
    }
    ct_module *m = ct__emb_new(&ct__dropout_type, CT__EMB_DROPOUT);
    if (m) ((ct__emb_impl *)m->impl)->p = p;
    return m;
}
CTENSOR_API ct_module *ct_nn_softmax(int dim) {
    ct_module *m = ct__emb_new(&ct__softmax_type, CT__EMB_SOFTMAX);
    if (m) ((ct__emb_impl *)m->impl)->sdim = dim;
    return m;
}
CTENSOR_API ct_module *ct_nn_log_softmax(int dim) {
    ct_module *m = ct__emb_new(&ct__log_softmax_type, CT__EMB_LOG_SOFTMAX);
    if (m) ((ct__emb_impl *)m->impl)->sdim = dim;
    return m;
}
static ct_module *ct__embedding_new(const ct_module_type *ty, int kind, int64_t num, int64_t dim, int64_t pad, int mode) {
    if (num < 0 || dim < 0) return (ct_module *)ct__fail(CT_ERR_ARG, "%s: Trying to create tensor with negative dimension", ty->name);
    if (pad != CT_NO_PADDING_IDX) {
        if (pad >= num || pad < -num) return (ct_module *)ct__fail(CT_ERR_ARG, "%s: Padding_idx must be within num_embeddings", ty->name);
        if (pad < 0) pad += num;
    }
    ct_module *m = ct__emb_new(ty, kind);
    if (!m) return NULL;
    ct__emb_impl *im = (ct__emb_impl *)m->impl;
    im->num = num;
    im->dim = dim;
    im->pad = pad;
    im->mode = mode;
    im->norm_type = 2.0;
    int s = ct_scope_begin();
    /* reset_parameters: normal_(weight), then the padding row zeroed */
    ct_tensor *w = ct_nn_init_normal_(ct_empty(ct_get_default_dtype(), num, dim), 0.0, 1.0);
    if (w && pad != CT_NO_PADDING_IDX && !ct_fill_(ct_select(w, 0, pad), 0.0)) w = NULL;
    int ok = w && !ct_module_register_parameter(m, "weight", w);
    ct_scope_end(s);
    if (!ok) { ct_module_free(m); return NULL; }
    return m;
}
CTENSOR_API ct_module *ct_nn_embedding(int64_t num, int64_t dim) {
    return ct__embedding_new(&ct__embedding_type, CT__EMB_EMBEDDING, num, dim, CT_NO_PADDING_IDX, 0);
}
CTENSOR_API ct_module *ct_nn_embedding_padding(int64_t num, int64_t dim, int64_t pad) {
    return ct__embedding_new(&ct__embedding_type, CT__EMB_EMBEDDING, num, dim, pad, 0);
}
CTENSOR_API ct_module *ct_nn_embedding_ex(int64_t num, int64_t dim, const ct_embedding_options *o) {
    ct_embedding_options d = {0, 0, 0.0, 0.0, 0};
    if (!o) o = &d;
    if (!(o->max_norm >= 0) || !(o->norm_type >= 0))
        return (ct_module *)ct__fail(CT_ERR_ARG, "Embedding: max_norm (%g) and norm_type (%g) must be >= 0 (0: None, and 2)", o->max_norm, o->norm_type);
    ct_module *m = ct__embedding_new(&ct__embedding_type, CT__EMB_EMBEDDING, num, dim, o->use_padding_idx ? o->padding_idx : CT_NO_PADDING_IDX, 0);
    if (m) {
        ((ct__emb_impl *)m->impl)->max_norm = o->max_norm;
        if (o->norm_type > 0) ((ct__emb_impl *)m->impl)->norm_type = o->norm_type;
        ((ct__emb_impl *)m->impl)->sgbf = o->scale_grad_by_freq != 0;
    }
    return m;
}
CTENSOR_API ct_module *ct_nn_embedding_bag(int64_t num, int64_t dim, const char *mode) {
    int md = !mode || !strcmp(mode, "mean") ? 1 : !strcmp(mode, "sum") ? 0 : !strcmp(mode, "max") ? 2 : -1;
    if (md < 0) return (ct_module *)ct__fail(CT_ERR_ARG, "EmbeddingBag: mode has to be one of sum, mean or max");
    return ct__embedding_new(&ct__embedding_bag_type, CT__EMB_BAG, num, dim, CT_NO_PADDING_IDX, md);
}

/* ---- LSTM / GRU (torch/nn/modules/rnn.py), composed of linear and elementwise ops ---- */
typedef struct ct__rnn_impl { int gru; int64_t in, hid, layers; int bias, batch_first, bidir; } ct__rnn_impl;
static ct_tensor *ct__rnn_run(ct_module *m, const ct_tensor *x, const ct_tensor *h0, const ct_tensor *c0, ct_tensor **hn, ct_tensor **cn);
static ct_tensor *ct__rnn_forward(ct_module *m, int nin, ct_tensor *const *in) {
    const ct__rnn_impl *im = (const ct__rnn_impl *)m->impl;
    if (nin < 1 || nin > (im->gru ? 2 : 3)) return ct__fail(CT_ERR_ARG, "%s: forward takes 1 to %d inputs (got %d)", m->type->name, im->gru ? 2 : 3, nin);
    return ct__rnn_run(m, in[0], nin > 1 ? in[1] : NULL, nin > 2 ? in[2] : NULL, NULL, NULL);
}
static int ct__rnn_repr(const ct_module *m, char *buf, size_t cap) {
    const ct__rnn_impl *im = (const ct__rnn_impl *)m->impl;
    int k = snprintf(buf, cap, "%lld, %lld", (long long)im->in, (long long)im->hid);
    if (im->layers != 1 && k < (int)cap) k += snprintf(buf + k, cap - (size_t)k, ", num_layers=%lld", (long long)im->layers);
    if (!im->bias && k < (int)cap) k += snprintf(buf + k, cap - (size_t)k, ", bias=False");
    if (im->batch_first && k < (int)cap) k += snprintf(buf + k, cap - (size_t)k, ", batch_first=True");
    if (im->bidir && k < (int)cap) k += snprintf(buf + k, cap - (size_t)k, ", bidirectional=True");
    return k;
}
static const ct_module_type ct__lstm_type = {"LSTM", ct__rnn_forward, ct__free_impl, ct__rnn_repr};
static const ct_module_type ct__gru_type = {"GRU", ct__rnn_forward, ct__free_impl, ct__rnn_repr};
static ct_module *ct__rnn_new(const ct_module_type *ty, int gru, int64_t in, int64_t hid, const ct_rnn_options *o) {
    int64_t layers = o && o->num_layers ? o->num_layers : 1;
    if (in < 0 || hid <= 0 || layers < 1)
        return (ct_module *)ct__fail(CT_ERR_ARG, "%s: input_size, hidden_size and num_layers must be positive (got %lld, %lld, %lld)", ty->name,
                                     (long long)in, (long long)hid, (long long)layers);
    ct__rnn_impl *im = CT__NEW_ZEROED(ct__rnn_impl);
    ct_module *m = im ? ct_module_new(ty, im) : NULL;
    if (!m) { CT_FREE(im); return (ct_module *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", ty->name); }
    im->gru = gru;
    im->in = in;
    im->hid = hid;
    im->layers = layers;
    im->bias = !(o && o->no_bias);
    im->batch_first = o && o->batch_first;
    im->bidir = o && o->bidirectional;
    int D = im->bidir ? 2 : 1, ok = 1;
    int64_t G = (gru ? 3 : 4) * hid;
    int s = ct_scope_begin();
    ct_dtype dt = ct_get_default_dtype();
    char name[64];
    for (int64_t l = 0; l < layers && ok; l++)
        for (int d = 0; d < D && ok; d++) {
            const char *sfx = d ? "_reverse" : "";
            int64_t lin = l == 0 ? in : hid * D;
            snprintf(name, sizeof name, "weight_ih_l%lld%s", (long long)l, sfx);
            ok = !ct_module_register_parameter(m, name, ct_empty(dt, G, lin));
            snprintf(name, sizeof name, "weight_hh_l%lld%s", (long long)l, sfx);
            ok = ok && !ct_module_register_parameter(m, name, ct_empty(dt, G, hid));
            if (im->bias) {
                snprintf(name, sizeof name, "bias_ih_l%lld%s", (long long)l, sfx);
                ok = ok && !ct_module_register_parameter(m, name, ct_empty(dt, G));
                snprintf(name, sizeof name, "bias_hh_l%lld%s", (long long)l, sfx);
                ok = ok && !ct_module_register_parameter(m, name, ct_empty(dt, G));
            }
        }
    /* reset_parameters: every parameter ~ U(-1/sqrt(hidden), 1/sqrt(hidden)), in order */
    double stdv = 1.0 / sqrt((double)hid);
    for (int i = 0; i < m->nparams && ok; i++) {
        int pg = ct_set_grad_enabled(0);
        ok = ct_nn_init_uniform_(m->params[i].tensor, -stdv, stdv) != NULL;
        ct_set_grad_enabled(pg);
    }
    ct_scope_end(s);
    if (!ok) { ct_module_free(m); return NULL; }
    return m;
}
CTENSOR_API ct_module *ct_nn_lstm(int64_t in, int64_t hid, const ct_rnn_options *o) { return ct__rnn_new(&ct__lstm_type, 0, in, hid, o); }
CTENSOR_API ct_module *ct_nn_gru(int64_t in, int64_t hid, const ct_rnn_options *o) { return ct__rnn_new(&ct__gru_type, 1, in, hid, o); }

static int ct__rnn_check_hidden(const char *what, const ct_tensor *h, int batched, int64_t LD, int64_t B, int64_t H) {
    int ok = h->ndim == (batched ? 3 : 2) && h->shape[0] == LD && h->shape[h->ndim - 1] == H && (!batched || h->shape[1] == B);
    if (ok) return 0;
    if (batched)
        return ct__failed(CT_ERR_SHAPE, "%s (%lld, %lld, %lld), got %s", what, (long long)LD, (long long)B, (long long)H, CT__SHAPE(h));
    return ct__failed(CT_ERR_SHAPE, "%s (%lld, %lld), got %s", what, (long long)LD, (long long)H, CT__SHAPE(h));
}
static ct_tensor *ct__rnn_run(ct_module *m, const ct_tensor *x, const ct_tensor *h0, const ct_tensor *c0, ct_tensor **hn, ct_tensor **cn) {
    const ct__rnn_impl *im = (const ct__rnn_impl *)m->impl;
    const char *name = m->type->name;
    if (hn) *hn = NULL;
    if (cn) *cn = NULL;
    if (!x) { ct__null_arg(name, 0); return NULL; }
    if (x->ndim != 2 && x->ndim != 3) return ct__fail(CT_ERR_SHAPE, "%s: Expected input to be 2-D or 3-D but received %d-D tensor", name, x->ndim);
    if (x->shape[x->ndim - 1] != im->in)
        return ct__fail(CT_ERR_SHAPE, "%s: input.size(-1) must be equal to input_size. Expected %lld, got %lld", name, (long long)im->in, (long long)x->shape[x->ndim - 1]);
    int batched = x->ndim == 3, D = im->bidir ? 2 : 1, gru = im->gru;
    int64_t H = im->hid, LD = im->layers * D;
    int64_t T = batched && im->batch_first ? x->shape[1] : x->shape[0], B = batched ? (im->batch_first ? x->shape[0] : x->shape[1]) : 1;
    if (h0 && ct__rnn_check_hidden(gru ? "Expected hidden size" : "Expected hidden[0] size", h0, batched, LD, B, H)) return NULL;
    if (c0 && ct__rnn_check_hidden("Expected hidden[1] size", c0, batched, LD, B, H)) return NULL;
    if (T == 0) return ct__fail(CT_ERR_SHAPE, "%s: the input has no time steps", name);
    int s = ct_scope_begin();
    ct_tensor *res = NULL, *hres = NULL, *cres = NULL;
    ct_tensor **outs = (ct_tensor **)CT_MALLOC(sizeof(ct_tensor *) * (size_t)(T + 2 * LD));
    ct_tensor **hl = outs + T, **cl = outs + T + LD;
    if (!outs) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", name); goto done; }
    {
        ct_tensor *inp = batched ? (im->batch_first ? ct_transpose(x, 0, 1) : (ct_tensor *)x) : ct_unsqueeze(x, 1);
        int64_t hs[3];
        hs[0] = LD;
        hs[1] = B;
        hs[2] = H;
        ct_tensor *h = h0 ? (batched ? (ct_tensor *)h0 : ct_unsqueeze(h0, 1)) : ct_zeros_n(x->dtype, 3, hs);
        ct_tensor *c = gru ? NULL : c0 ? (batched ? (ct_tensor *)c0 : ct_unsqueeze(c0, 1)) : ct_zeros_n(x->dtype, 3, hs);
        int per = im->bias ? 4 : 2;
        for (int64_t l = 0; l < im->layers && inp; l++) {
            ct_tensor *dirs[2] = {NULL, NULL};
            for (int d = 0; d < D; d++) {
                int base = (int)(l * D + d) * per;
                ct_tensor *wih = m->params[base].tensor, *whh = m->params[base + 1].tensor;
                ct_tensor *bih = im->bias ? m->params[base + 2].tensor : NULL, *bhh = im->bias ? m->params[base + 3].tensor : NULL;
                ct_tensor *xi = ct_linear(inp, wih, bih);   /* [T, B, G]: all time steps at once */
                ct_tensor *hc = ct_select(h, 0, l * D + d), *cc = gru ? NULL : ct_select(c, 0, l * D + d);
                for (int64_t st = 0; st < T; st++) {
                    int64_t t = d ? T - 1 - st : st;
                    ct_tensor *gi = ct_select(xi, 0, t), *gh = ct_linear(hc, whh, bhh);
                    if (!gru) {
                        ct_tensor *g = ct_add(gi, gh);
                        ct_tensor *ig = ct_sigmoid(ct_narrow(g, 1, 0, H)), *fg = ct_sigmoid(ct_narrow(g, 1, H, H));
                        ct_tensor *gg = ct_tanh(ct_narrow(g, 1, 2 * H, H)), *og = ct_sigmoid(ct_narrow(g, 1, 3 * H, H));
                        cc = ct_add(ct_mul(fg, cc), ct_mul(ig, gg));
                        hc = ct_mul(og, ct_tanh(cc));
                    } else {
                        ct_tensor *r = ct_sigmoid(ct_add(ct_narrow(gi, 1, 0, H), ct_narrow(gh, 1, 0, H)));
                        ct_tensor *z = ct_sigmoid(ct_add(ct_narrow(gi, 1, H, H), ct_narrow(gh, 1, H, H)));
                        ct_tensor *nn = ct_tanh(ct_add(ct_narrow(gi, 1, 2 * H, H), ct_mul(r, ct_narrow(gh, 1, 2 * H, H))));
                        hc = ct_add(nn, ct_mul(z, ct_sub(hc, nn)));   /* (1 - z) * n + z * h */
                    }
                    if (!hc) break;
                    outs[t] = hc;
                }
                if (!hc) { inp = NULL; break; }
                dirs[d] = ct_stack((int)T, outs, 0);
                hl[l * D + d] = hc;
                cl[l * D + d] = cc;
            }
            if (!inp) break;
            inp = D == 2 ? ct_cat(2, dirs, 2) : dirs[0];
        }
        if (inp) {
            res = inp;
            hres = ct_stack((int)LD, hl, 0);
            cres = gru ? NULL : ct_stack((int)LD, cl, 0);
            if (!batched) {
                res = ct_squeeze_dim(res, 1);
                hres = ct_squeeze_dim(hres, 1);
                if (!gru) cres = ct_squeeze_dim(cres, 1);
            } else if (im->batch_first) {
                res = ct_transpose(res, 0, 1);
            }
            if (!hres || (!gru && !cres)) res = NULL;
        }
    }
done:
    CT_FREE(outs);
    ct_keep(res);
    if (res && hn) *hn = ct_keep(hres);
    if (res && cn) *cn = ct_keep(cres);
    ct_scope_end(s);
    return res;
}
CTENSOR_API ct_tensor *ct_lstm_forward(ct_module *m, const ct_tensor *x, const ct_tensor *h0, const ct_tensor *c0, ct_tensor **h_n, ct_tensor **c_n) {
    if (!m || m->type != &ct__lstm_type) return ct__fail(CT_ERR_ARG, "lstm_forward: the module is not an LSTM");
    return ct__rnn_run(m, x, h0, c0, h_n, c_n);
}
CTENSOR_API ct_tensor *ct_gru_forward(ct_module *m, const ct_tensor *x, const ct_tensor *h0, ct_tensor **h_n) {
    if (!m || m->type != &ct__gru_type) return ct__fail(CT_ERR_ARG, "gru_forward: the module is not a GRU");
    return ct__rnn_run(m, x, h0, NULL, h_n, NULL);
}

/* [section: nn-functional-impl] */

/* [section: nn-loss-impl] */
/* ============================================================================
   Losses and distances (PyTorch: aten/src/ATen/native/Loss.cpp, LossNLL.cpp,
   Distance.cpp, torch/nn/functional.py). Most losses are composites of public
   ops (PyTorch's CompositeImplicitAutograd style), so their gradients of every
   order come from the ops they are made of. The training-step workhorse,
   cross_entropy on 2-D float logits with int64 class indices and no weight or
   smoothing, is one fused op each way:
     forward   loss_i = logsumexp(x_i) - x_i[t_i]             (rows with t_i == ignore_index: 0)
     backward  dx_i = (softmax(x_i) - onehot(t_i)) * w_i      (w_i = g, g_i or g / #non-ignored)
   and the backward op's own backward is written with public ops.
   ========================================================================== */
enum { CT__RED_NONE = 0, CT__RED_MEAN = 1, CT__RED_SUM = 2, CT__RED_BATCHMEAN = 3 };
static int ct__loss_reduction(const char *op, const char *r, int allow_batchmean) {
    if (!r || !strcmp(r, "mean")) return CT__RED_MEAN;
    if (!strcmp(r, "sum")) return CT__RED_SUM;
    if (!strcmp(r, "none")) return CT__RED_NONE;
    if (allow_batchmean && !strcmp(r, "batchmean")) return CT__RED_BATCHMEAN;
    ct_set_error(CT_ERR_ARG, "%s: %s is not a valid value for reduction", op, r);
    return -1;
}
static ct_tensor *ct__loss_apply_reduction(ct_tensor *l, int red) {
    if (red == CT__RED_MEAN) return ct_mean(l);
    if (red == CT__RED_SUM) return ct_sum(l);
    return l;
}
static int ct__loss_float_check(const char *op, const ct_tensor *x, const char *what) {
    if (!CT__ISFLOAT(x->dtype))
        return ct__failed(CT_ERR_DTYPE, "%s: expected a floating point %s, got %s", op, what, ct_dtype_name(x->dtype));
    return 0;
}
/* Checks every non-ignored class index of t (int64, any layout) against [0, C). */
static int ct__loss_check_targets(const char *op, const ct_tensor *t, int64_t C, int64_t ignore_index) {
    if (t->device.type != CT_CPU) return 0;
    ct_tensor *tc = ct__contig_ref(t);
    if (!tc) return -1;
    const int64_t *tp = (const int64_t *)ct__ptr(tc);
    int64_t n = ct__shape_numel(t->ndim, t->shape), bad = 0;
    int found = 0;
    for (int64_t i = 0; i < n; i++)
        if (tp[i] != ignore_index && (tp[i] < 0 || tp[i] >= C)) { bad = tp[i]; found = 1; break; }
    ct__decref(tc);
    if (found) return ct__failed(CT_ERR_INDEX, "%s: Target %lld is out of bounds.", op, (long long)bad);
    return 0;
}

/* a fused op (local id) for inputs on x's device: the CPU's kernels, or a kernel
   registered for the device's backend (ctensor_cuda.h's); else the op chain */
static int ct__nn_fused_here(int local, const ct_tensor *x) {
    if (x->device.type == CT_CPU) return 1;
    int op = ct__nn_op_id(local);
    return x->device.type == CT_CUDA && op >= 0 && ct__kernels[CT_BACKEND_CUDA][op] != NULL;   /* (read as the dispatcher reads it) */
}
/* ---- fused cross entropy (2-D logits, int64 targets, no weight) ----
   attrs: i[0] ignore_index, mode reduction. */
static int ct__meta_ce_fused(ct__call *c) {
    ct_tensor *x = c->in[0], *t = c->in[1];
    if (x->ndim != 2 || t->ndim != 1 || t->shape[0] != x->shape[0] || t->dtype != CT_INT64 ||
        (x->dtype != CT_FLOAT32 && x->dtype != CT_FLOAT64))
        return ct__failed(CT_ERR_ARG, "cross_entropy_loss: fused path needs (N, C) float logits and (N) int64 targets, got %s and %s",
                          CT__SHAPE(x), CT__SHAPE(t));
    if ((unsigned)c->a->mode > CT__RED_SUM) return ct__failed(CT_ERR_ARG, "cross_entropy_loss: invalid reduction %d", (int)c->a->mode);
    ct__outinfo *o = &c->oi[0];
    o->kind = CT__OUT_NEW;
    o->has_strides = 0;
    o->dtype = x->dtype;
    o->ndim = c->a->mode == CT__RED_NONE ? 1 : 0;
    o->shape[0] = x->shape[0];
    c->nout = 1;
    c->cdt = x->dtype;
    return 0;
}
/* row i: logsumexp of x[i, :] */
static double ct__ce_lse_f32(const float *xr, int64_t C) {
    float m = ct__rowmax_f32(xr, C);
    if (m == -INFINITY || m == INFINITY || m != m) {  /* no finite shift: plain formula */
        double s = 0.0;
        for (int64_t k = 0; k < C; k++) s += exp((double)xr[k] - (double)m);
        return (double)m + log(s);
    }
    return (double)m + log(ct__expsum_f32(NULL, xr, m, C));
}
static double ct__ce_lse_f64(const double *xr, int64_t C) {
    double m = -INFINITY, s = 0.0;
    for (int64_t k = 0; k < C; k++)
        if (m == m && (xr[k] != xr[k] || xr[k] > m)) m = xr[k];
    for (int64_t k = 0; k < C; k++) s += exp(xr[k] - m);
    return m + log(s);
}
typedef struct {
    const int64_t * tp;
    int64_t ign;
    double * rows;
    int f64;
    const char * xp;
    int64_t C;
} ct__k_ce_fused_c1;
static void ct__k_ce_fused_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__k_ce_fused_c1 *q_ = (const ct__k_ce_fused_c1 *)c_;
    const int64_t * tp = q_->tp; (void)tp;
    int64_t ign = q_->ign; (void)ign;
    double * rows = q_->rows; (void)rows;
    int f64 = q_->f64; (void)f64;
    const char * xp = q_->xp; (void)xp;
    int64_t C = q_->C; (void)C;
    for (int64_t i = (int64_t)lo_; i < hi_; i++) {
            int64_t ti = tp[i];
            if (ti == ign) { rows[i] = 0.0; continue; }
            if (f64) {
                const double *xr = (const double *)xp + i * C;
                rows[i] = ct__ce_lse_f64(xr, C) - xr[ti];
            } else {
                const float *xr = (const float *)xp + i * C;
                rows[i] = ct__ce_lse_f32(xr, C) - (double)xr[ti];
            }
        }
}
static int ct__k_ce_fused(ct__call *c) {
    ct_tensor *x = ct__contig_ref(c->in[0]), *t = x ? ct__contig_ref(c->in[1]) : NULL;
    int rc = -1;
    double *rows = NULL;
    if (!x || !t) goto done;
    {
        int64_t N = x->shape[0], C = x->shape[1], ign = c->a->i[0], count = 0;
        int red = c->a->mode, f64 = x->dtype == CT_FLOAT64;
        const int64_t *tp = (const int64_t *)ct__ptr(t);
        if (ct__loss_check_targets("cross_entropy", t, C, ign)) goto done;
        rows = (double *)CT_MALLOC((size_t)(N > 0 ? N : 1) * sizeof(double));
        if (!rows) { ct_set_error(CT_ERR_MEMORY, "cross_entropy_loss: out of memory"); goto done; }
        const char *xp = ct__ptr(x);
        int ct__par = ct__rpar(N * C) && N > 1;
        (void)ct__par;
        ct__k_ce_fused_c1 q1_ = {tp, ign, rows, f64, xp, C}; ct__rrun(N, ct__par, ct__k_ce_fused_b1, &q1_);
        char *op = ct__ptr(c->out[0]);
        if (red == CT__RED_NONE) {
            for (int64_t i = 0; i < N; i++) {
                if (f64) ((double *)op)[i] = rows[i];
                else ((float *)op)[i] = (float)rows[i];
            }
        } else {
            double total = 0.0;
            for (int64_t i = 0; i < N; i++) {
                total += rows[i];
                count += tp[i] != ign;
            }
            if (red == CT__RED_MEAN) total = total / (double)count;  /* 0 / 0: NaN, as PyTorch */
            if (f64) *(double *)op = total;
            else *(float *)op = (float)total;
        }
        rc = 0;
    }
done:
    CT_FREE(rows);
    if (x) ct__decref(x);
    if (t) ct__decref(t);
    return rc;
}
static ct_tensor *ct__ce_fused_bw_call(const ct_tensor *g, const ct_tensor *x, const ct_tensor *t, const ct__attrs *a);
static int ct__bw_ce_fused(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    if (!CT__NEEDS(n, 0)) return 0;
    ct_tensor *x = CT__SV_IN(n, 0), *t = CT__SV_IN(n, 1);
    if (!x || !t) return -1;
    gin[0] = ct__ce_fused_bw_call(gout[0], x, t, &n->attrs);
    return gin[0] ? 0 : -1;
}
/* _cross_entropy_fused_backward(grad, x, target) -> dx, attrs as the forward */
static int ct__meta_ce_fused_bw(ct__call *c) {
    ct_tensor *g = c->in[0], *x = c->in[1];
    int red = c->a->mode;
    if ((unsigned)red > CT__RED_SUM) return ct__failed(CT_ERR_ARG, "_cross_entropy_fused_backward: invalid reduction %d", red);
    if ((red == CT__RED_NONE && (g->ndim != 1 || g->shape[0] != x->shape[0])) || (red != CT__RED_NONE && g->ndim != 0) ||
        g->dtype != x->dtype)
        return ct__failed(CT_ERR_SHAPE, "_cross_entropy_fused_backward: grad %s (%s) does not fit input %s (%s)", CT__SHAPE(g),
                          ct_dtype_name(g->dtype), CT__SHAPE(x), ct_dtype_name(x->dtype));
    ct__outinfo *o = &c->oi[0];
    o->kind = CT__OUT_NEW;
    o->has_strides = 0;
    o->dtype = x->dtype;
    o->ndim = 2;
    o->shape[0] = x->shape[0];
    o->shape[1] = x->shape[1];
    c->nout = 1;
    c->cdt = x->dtype;
    return 0;
}
typedef struct {
    const int64_t * tp;
    int64_t ign;
    int64_t C;
    int red;
    int f64;
    const char * gp;
    double gs;
    const char * xp;
    char * op;
} ct__k_ce_fused_bw_c1;
static void ct__k_ce_fused_bw_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__k_ce_fused_bw_c1 *q_ = (const ct__k_ce_fused_bw_c1 *)c_;
    const int64_t * tp = q_->tp; (void)tp;
    int64_t ign = q_->ign; (void)ign;
    int64_t C = q_->C; (void)C;
    int red = q_->red; (void)red;
    int f64 = q_->f64; (void)f64;
    const char * gp = q_->gp; (void)gp;
    double gs = q_->gs; (void)gs;
    const char * xp = q_->xp; (void)xp;
    char * op = q_->op; (void)op;
    for (int64_t i = (int64_t)lo_; i < hi_; i++) {
            int64_t ti = tp[i];
            int skip = ti == ign || ti < 0 || ti >= C;
            double w = red == CT__RED_NONE ? (f64 ? ((const double *)gp)[i] : (double)((const float *)gp)[i]) : gs;
            if (f64) {
                const double *xr = (const double *)xp + i * C;
                double *yr = (double *)op + i * C;
                if (skip) { for (int64_t k = 0; k < C; k++) yr[k] = 0.0; continue; }
                double lse = ct__ce_lse_f64(xr, C);
                for (int64_t k = 0; k < C; k++) yr[k] = exp(xr[k] - lse) * w;
                yr[ti] -= w;
            } else {
                const float *xr = (const float *)xp + i * C;
                float *yr = (float *)op + i * C;
                if (skip) { memset(yr, 0, (size_t)C * sizeof(float)); continue; }
                float m = ct__rowmax_f32(xr, C);
                if (m == -INFINITY || m == INFINITY || m != m) {
                    double lse = ct__ce_lse_f32(xr, C);
                    for (int64_t k = 0; k < C; k++) yr[k] = (float)(exp((double)xr[k] - lse) * w);
                } else {
                    double s = ct__expsum_f32(yr, xr, m, C);
                    ct__scale_f32(yr, (float)(w / s), C);
                }
                yr[ti] -= (float)w;
            }
        }
}
static int ct__k_ce_fused_bw(ct__call *c) {
    ct_tensor *g = ct__contig_ref(c->in[0]), *x = g ? ct__contig_ref(c->in[1]) : NULL, *t = x ? ct__contig_ref(c->in[2]) : NULL;
    int rc = -1;
    if (!g || !x || !t) goto done;
    {
        int64_t N = x->shape[0], C = x->shape[1], ign = c->a->i[0], count = 0;
        int red = c->a->mode, f64 = x->dtype == CT_FLOAT64;
        const int64_t *tp = (const int64_t *)ct__ptr(t);
        const char *xp = ct__ptr(x), *gp = ct__ptr(g);
        char *op = ct__ptr(c->out[0]);
        double gs = 0.0;
        for (int64_t i = 0; i < N; i++) count += tp[i] != ign;
        if (red != CT__RED_NONE) {
            gs = f64 ? *(const double *)gp : (double)*(const float *)gp;
            if (red == CT__RED_MEAN) gs /= (double)(count > 0 ? count : 1);
        }
        int ct__par = ct__rpar(N * C) && N > 1;
        (void)ct__par;
        ct__k_ce_fused_bw_c1 q1_ = {tp, ign, C, red, f64, gp, gs, xp, op}; ct__rrun(N, ct__par, ct__k_ce_fused_bw_b1, &q1_);
        rc = 0;
    }
done:
    if (g) ct__decref(g);
    if (x) ct__decref(x);
    if (t) ct__decref(t);
    return rc;
}
static ct_tensor *ct__ce_fused_bw_call(const ct_tensor *g, const ct_tensor *x, const ct_tensor *t, const ct__attrs *a) {
    return ct__op3(CT__NNOP(CE_FUSED_BACKWARD), g, x, t, a);
}
/* Double backward of the fused backward, with public ops:
   dx = (p - onehot) * w  with p = softmax(x), w_i = mask_i * (g_i | g | g / count). */
static int ct__bw_ce_fused_bw(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *g = CT__SV_IN(n, 0), *x = CT__SV_IN(n, 1), *t = CT__SV_IN(n, 2), *gg = gout[0];
    if (!g || !x || !t) return -1;
    int red = n->attrs.mode;
    ct_tensor *mask = ct_to(ct_ne_scalar(t, (double)n->attrs.i[0]), x->dtype);
    double count = ct_item(ct_sum(mask));
    ct_tensor *p = ct_softmax(x, 1);
    double scale = red == CT__RED_MEAN ? 1.0 / (count > 0 ? count : 1.0) : 1.0;
    if (CT__NEEDS(n, 0)) {
        ct_tensor *tsafe = ct_where_scalar(ct_ne_scalar(t, (double)n->attrs.i[0]), t, 0);
        /* one-hot rows as (t == arange(C)): one_hot's data-dependent meta is CPU-only, this runs on any device */
        ct_tensor *onehot = ct_to(ct_eq(ct_unsqueeze(tsafe, 1), ct_arange_on(x->device, 0, (double)x->shape[1], 1, CT_INT64)), x->dtype);
        ct_tensor *h = ct_mul(ct_sum_dim(ct_mul(gg, ct_sub(p, onehot)), 1, 0), mask);
        gin[0] = red == CT__RED_NONE ? h : ct_mul_scalar(ct_sum(h), scale);
        if (!gin[0]) return -1;
    }
    if (CT__NEEDS(n, 1)) {
        ct_tensor *w = ct_unsqueeze(ct_mul_scalar(ct_mul(g, mask), scale), 1);
        ct_tensor *q = ct_mul(gg, p);
        gin[1] = ct_mul(ct_sub(q, ct_mul(p, ct_sum_dim(q, 1, 1))), w);
        if (!gin[1]) return -1;
    }
    return 0;
}

/* ---- nll_loss and cross_entropy (general forms, composites) ---- */
/* Shape rules of PyTorch's nll_loss_nd. Returns 0 or -1 with the error set. */
static int ct__nll_check(const char *op, const ct_tensor *x, const ct_tensor *t, const ct_tensor *weight) {
    if (x->ndim < 1) return ct__failed(CT_ERR_SHAPE, "%s: Expected 1 or more dimensions (got %d)", op, x->ndim);
    if (x->ndim != 1 && (t->ndim < 1 || x->shape[0] != t->shape[0]))
        return ct__failed(CT_ERR_SHAPE, "%s: Expected input batch_size (%lld) to match target batch_size (%lld).", op,
                          (long long)x->shape[0], (long long)(t->ndim ? t->shape[0] : 1));
    if (t->dtype != CT_INT64)
        return ct__failed(CT_ERR_DTYPE, "%s: expected scalar type Long but found %s", op, CT__DTNAME(t->dtype));
    if (ct__loss_float_check(op, x, "input")) return -1;
    if (x->ndim == 1 && t->ndim != 0)
        return ct__failed(CT_ERR_SHAPE, "%s: 0D target tensor expected for a 1D input, got target %s", op, CT__SHAPE(t));
    if (x->ndim >= 2) {
        int ok = t->ndim == x->ndim - 1;
        for (int d = 2; ok && d < x->ndim; d++) ok = t->shape[d - 1] == x->shape[d];
        if (!ok) {
            int64_t exp_shape[CT_MAX_DIMS];
            exp_shape[0] = x->shape[0];
            for (int d = 2; d < x->ndim; d++) exp_shape[d - 1] = x->shape[d];
            return ct__failed(CT_ERR_SHAPE, "%s: Expected target size %s, got %s", op, ct__fmt_shape(x->ndim - 1, exp_shape).s, CT__SHAPE(t));
        }
    }
    int64_t C = x->ndim == 1 ? x->shape[0] : x->shape[1];
    if (weight) {
        if (weight->ndim != 1 || weight->shape[0] != C)
            return ct__failed(CT_ERR_SHAPE, "%s: weight tensor should be defined either for all %lld classes or no classes but got weight tensor of shape: %s",
                              op, (long long)C, CT__SHAPE(weight));
        if (weight->dtype != x->dtype)
            return ct__failed(CT_ERR_DTYPE, "%s: expected scalar type %s but found %s", op, CT__DTNAME(x->dtype), CT__DTNAME(weight->dtype));
    }
    return 0;
}
/* -(x[target] * w[target]) over the class dim 1 of x (N, C, ...), masked by ignore_index.
   *wsum gets the total weight of non-ignored targets (for mean). */
static ct_tensor *ct__nll_terms(const ct_tensor *x, const ct_tensor *t, const ct_tensor *weight, int64_t ign, ct_tensor **wsum) {
    ct_tensor *keep = ct_ne_scalar(t, (double)ign);
    ct_tensor *tsafe = ct_where_scalar(keep, t, 0);
    ct_tensor *picked = ct_squeeze_dim(ct_gather(x, 1, ct_unsqueeze(tsafe, 1)), 1);
    ct_tensor *w = ct_to(keep, x->dtype);
    if (weight && w) {
        ct_tensor *wd = ct_detach(weight);   /* PyTorch does not differentiate nll_loss's weight */
        w = ct_mul(w, ct_reshape_n(ct_index_select(wd, 0, ct_flatten(tsafe, 0, -1)), t->ndim, t->shape));
    }
    if (wsum) *wsum = ct_sum(w);
    return ct_neg(ct_mul(picked, w));
}
static ct_tensor *ct__nll_impl(const char *op, const ct_tensor *x, const ct_tensor *t, const ct_tensor *weight, int64_t ign, int red) {
    if (ct__nll_check(op, x, t, weight)) return NULL;
    int64_t ncls = x->ndim == 1 ? x->shape[0] : x->shape[1];
    if (ct__loss_check_targets(op, t, ncls, ign)) return NULL;
    if (x->ndim == 1) {   /* no batch dim: (C) and () */
        ct_tensor *r = ct__nll_impl(op, ct_unsqueeze(x, 0), ct_unsqueeze(t, 0), weight, ign, red);
        return red == CT__RED_NONE && r ? ct_squeeze_dim(r, 0) : r;
    }
    ct_tensor *wsum = NULL;
    ct_tensor *l = ct__nll_terms(x, t, weight, ign, red == CT__RED_MEAN ? &wsum : NULL);
    if (red == CT__RED_NONE) return l;
    if (red == CT__RED_SUM) return ct_sum(l);
    return ct_div(ct_sum(l), wsum);
}
CTENSOR_API ct_tensor *ct_nll_loss(const ct_tensor *input, const ct_tensor *target, const ct_nll_loss_options *o) {
    if (!input || !target) { ct__null_arg("nll_loss", input ? 1 : 0); return NULL; }
    int64_t ign = o && o->use_ignore_index ? o->ignore_index : -100;
    int red = ct__loss_reduction("nll_loss", o ? o->reduction : NULL, 0);
    if (red < 0) return NULL;
    return ct__nll_impl("nll_loss", input, target, o ? o->weight : NULL, ign, red);
}

/* The fused path applies: 2-D f32/f64 logits, (N) int64 targets, no weight, no smoothing. */
static ct_tensor *ct__ce_fused(const ct_tensor *x, const ct_tensor *t, int64_t ign, int red) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = ign;
    a.mode = red;
    return ct__op2(CT__NNOP(CE_FUSED), x, t, &a);
}
CTENSOR_API ct_tensor *ct_cross_entropy(const ct_tensor *input, const ct_tensor *target, const ct_cross_entropy_options *o) {
    const char *op = "cross_entropy";
    if (!input || !target) { ct__null_arg(op, input ? 1 : 0); return NULL; }
    const ct_tensor *weight = o ? o->weight : NULL;
    double ls = o ? o->label_smoothing : 0.0;
    int64_t ign = o && o->use_ignore_index ? o->ignore_index : -100;
    int red = ct__loss_reduction(op, o ? o->reduction : NULL, 0);
    if (red < 0) return NULL;
    if (!(ls >= 0.0 && ls <= 1.0))
        return ct__fail(CT_ERR_ARG, "%s: label_smoothing must be between 0.0 and 1.0. Got: %s", op, ct__fmt_double(ls).s);
    int cdim = input->ndim == 1 ? 0 : 1;
    if (ct_same_shape(input, target)) {
        /* class probabilities (soft targets), PyTorch's first test */
        if (!CT__ISFLOAT(target->dtype))
            return ct__fail(CT_ERR_DTYPE, "%s: Expected floating point type for target with class probabilities, got %s", op, CT__DTNAME(target->dtype));
        if (ign >= 0) return ct__fail(CT_ERR_ARG, "%s: ignore_index is not supported for floating point target", op);
        if (ct__dim(op, cdim, input->ndim) < 0 || ct__loss_float_check(op, input, "input")) return NULL;
        int64_t C = input->shape[cdim];
        if (weight && (weight->ndim != 1 || weight->shape[0] != C))
            return ct__fail(CT_ERR_SHAPE, "%s: weight tensor should be defined either for all %lld classes or no classes but got weight tensor of shape: %s",
                            op, (long long)C, CT__SHAPE(weight));
        ct_tensor *logp = ct_log_softmax(input, cdim);
        const ct_tensor *tg = target;
        if (ls > 0.0) tg = ct_add_scalar(ct_mul_scalar(target, 1.0 - ls), ls / (double)C);
        ct_tensor *prod = ct_mul(logp, tg);
        if (weight) {
            int64_t shape[CT_MAX_DIMS];
            for (int d = 0; d < input->ndim; d++) shape[d] = 1;
            shape[cdim] = C;
            prod = ct_mul(prod, ct_reshape_n(weight, input->ndim, shape));
        }
        if (red == CT__RED_NONE) return ct_neg(ct_sum_dim(prod, cdim, 0));
        if (red == CT__RED_SUM) return ct_neg(ct_sum(prod));
        int64_t numel = ct_numel(input);
        if (numel == 0) return ct_full_n(input->dtype, 0, NULL, NAN);
        return ct_mul_scalar(ct_sum(prod), -1.0 / ((double)numel / (double)C));
    }
    if (!weight && ls == 0.0 && input->ndim == 2 && (input->dtype == CT_FLOAT32 || input->dtype == CT_FLOAT64) &&
        target->dtype == CT_INT64 && target->ndim == 1 && target->shape[0] == input->shape[0] && ct_device_eq(input->device, target->device) &&
        ct__nn_fused_here(CT__NN_CE_FUSED, input))
        return ct__ce_fused(input, target, ign, red);
    if (ct__nll_check(op, input, target, weight)) return NULL;
    int64_t C = input->shape[cdim];
    ct_tensor *logp = ct_log_softmax(input, cdim);
    ct_tensor *nll = ct__nll_impl(op, logp, target, weight, ign, red);
    if (ls == 0.0 || !nll) return nll;
    /* label smoothing with class indices (PyTorch 1.13's cross_entropy_loss_label_smoothing) */
    ct_tensor *lp = logp, *tt = (ct_tensor *)target;
    if (input->ndim == 1) { lp = ct_unsqueeze(logp, 0); tt = ct_unsqueeze(target, 0); }
    if (weight) {
        int64_t shape[CT_MAX_DIMS];
        for (int d = 0; d < lp->ndim; d++) shape[d] = 1;
        shape[1] = C;
        lp = ct_mul(lp, ct_reshape_n(weight, lp->ndim, shape));
    }
    ct_tensor *keep = ct_ne_scalar(tt, (double)ign);
    ct_tensor *smooth = ct_masked_fill(ct_neg(ct_sum_dim(lp, 1, 0)), ct_logical_not(keep), 0.0);
    ct_tensor *ret;
    if (red == CT__RED_NONE) ret = input->ndim == 1 ? ct_squeeze_dim(smooth, 0) : smooth;
    else if (red == CT__RED_SUM) ret = ct_sum(smooth);
    else if (weight) {
        ct_tensor *tsafe = ct_where_scalar(keep, tt, 0);
        ct_tensor *wt = ct_mul(ct_index_select(ct_detach(weight), 0, ct_flatten(tsafe, 0, -1)), ct_to(ct_flatten(keep, 0, -1), input->dtype));
        ret = ct_div(ct_sum(smooth), ct_sum(wt));
    } else {
        ret = ct_div(ct_sum(smooth), ct_sum(ct_to(keep, input->dtype)));
    }
    return ct_add(ct_mul_scalar(nll, 1.0 - ls), ct_mul_scalar(ret, ls / (double)C));
}

/* ---- fused mse_loss and binary_cross_entropy_with_logits (equal shapes and dtypes,
   float32/float64, no weights): one pass forward, one pass backward ----
   attrs: mode reduction. MSE: (x - y)^2, dx = 2 (x - y) s. BCE with logits (stable form):
   (1 - y) x + max(-x, 0) + log1p(exp(-|x|)), dx = (sigmoid(x) - y) s, where s is the
   upstream gradient (per element for "none", / numel for "mean"). */
static int ct__meta_pwloss(ct__call *c) {
    ct_tensor *x = c->in[0], *y = c->in[1];
    const char *name = ct__opdef_get(c->op)->name;
    if (!ct_same_shape(x, y) || x->dtype != y->dtype || (x->dtype != CT_FLOAT32 && x->dtype != CT_FLOAT64))
        return ct__failed(CT_ERR_ARG, "%s: fused path needs equal shapes and float dtypes, got %s and %s", name, CT__SHAPE(x), CT__SHAPE(y));
    if ((unsigned)c->a->mode > CT__RED_SUM) return ct__failed(CT_ERR_ARG, "%s: invalid reduction %d", name, (int)c->a->mode);
    ct__outinfo *o = &c->oi[0];
    o->kind = CT__OUT_NEW;
    o->has_strides = 0;
    o->dtype = x->dtype;
    o->ndim = c->a->mode == CT__RED_NONE ? x->ndim : 0;
    for (int d = 0; d < x->ndim; d++) o->shape[d] = x->shape[d];
    c->nout = 1;
    c->cdt = x->dtype;
    return 0;
}
#define CT__PWLOSS_DEF(S, T, EXP, LOG1P)                                                                     \
    static double ct__pwloss_##S(const T *x, const T *y, T *out, int64_t n, int bce) {                       \
        double total = 0.0;                                                                                    \
        int64_t k = 0;                                                                                         \
        while (k < n) {                                                                                        \
            int64_t e = k + 4096 < n ? k + 4096 : n;                                                           \
            T part = 0;                                                                                        \
            if (bce) {                                                                                         \
                for (; k < e; k++) {                                                                           \
                    T xv = x[k], m = xv < 0 ? -xv : 0;                                                         \
                    T v = (1 - y[k]) * xv + m + LOG1P(EXP(-(xv < 0 ? -xv : xv)));                              \
                    if (out) out[k] = v;                                                                       \
                    else part += v;                                                                            \
                }                                                                                              \
            } else if (out) {                                                                                  \
                for (; k < e; k++) out[k] = (x[k] - y[k]) * (x[k] - y[k]);                                     \
            } else {                                                                                           \
                for (; k < e; k++) part += (x[k] - y[k]) * (x[k] - y[k]);                                      \
            }                                                                                                  \
            total += (double)part;                                                                             \
        }                                                                                                      \
        return total;                                                                                          \
    }                                                                                                          \
    static void ct__pwloss_bw_##S(const T *g, T gs, const T *x, const T *y, T *dx, int64_t n, int bce) {     \
        for (int64_t k = 0; k < n; k++) {                                                                      \
            T s = g ? g[k] : gs;                                                                               \
            if (bce) {                                                                                         \
                T xv = x[k], ev = EXP(xv < 0 ? xv : -xv);                                                      \
                T sg = xv >= 0 ? 1 / (1 + ev) : ev / (1 + ev);                                                 \
                dx[k] = (sg - y[k]) * s;                                                                       \
            } else {                                                                                           \
                dx[k] = 2 * (x[k] - y[k]) * s;                                                                 \
            }                                                                                                  \
        }                                                                                                      \
    }
CT__PWLOSS_DEF(f32, float, expf, log1pf)
CT__PWLOSS_DEF(f64, double, exp, log1p)
/* float32 binary_cross_entropy_with_logits, 16 lanes at a time: exp is the softmax's
   vectorized Cephes expf, log(1 + e) (1 + e in [1, 2]) Cephes logf's polynomial */
#if CT__VEC
#define CT__VLOG12(y, z0)                                                                              \
    do {                                                                                               \
        ct__v16f z_ = (z0), zero_, x_, e_, zz_, p_;                                                    \
        memset(&zero_, 0, sizeof zero_);                                                               \
        ct__v16i big_ = (ct__v16i)(z_ > 1.41421356f);                                                  \
        x_ = CT__VSELF(big_, z_ * 0.5f - 1.0f, z_ - 1.0f);                                             \
        e_ = CT__VSELF(big_, zero_ + 1.0f, zero_);                                                     \
        zz_ = x_ * x_;                                                                                 \
        p_ = x_ * 7.0376836292E-2f - 1.1514610310E-1f;                                                 \
        p_ = p_ * x_ + 1.1676998740E-1f;                                                               \
        p_ = p_ * x_ - 1.2420140846E-1f;                                                               \
        p_ = p_ * x_ + 1.4249322787E-1f;                                                               \
        p_ = p_ * x_ - 1.6668057665E-1f;                                                               \
        p_ = p_ * x_ + 2.0000714765E-1f;                                                               \
        p_ = p_ * x_ - 2.4999993993E-1f;                                                               \
        p_ = p_ * x_ + 3.3333331174E-1f;                                                               \
        p_ = p_ * x_ * zz_;                                                                            \
        p_ = p_ + e_ * -2.12194440e-4f;                                                                \
        p_ = p_ - zz_ * 0.5f;                                                                          \
        (y) = x_ + p_ + e_ * 0.693359375f;                                                             \
    } while (0)
#endif
static double ct__bcel_f32(const float *x, const float *y, float *out, int64_t n) {
    double total = 0.0;
    int64_t k = 0;
#if CT__VEC
    while (k + 16 <= n) {
        int64_t e = k + 4096 < n ? k + 4096 : n;
        ct__v16f acc, zero;
        memset(&acc, 0, sizeof acc);
        memset(&zero, 0, sizeof zero);
        for (; k + 16 <= e; k += 16) {
            ct__v16f xv, yv, a, ev, lg, v;
            CT__VLD(xv, x + k);
            CT__VLD(yv, y + k);
            ct__v16i neg = (ct__v16i)(xv < zero);
            a = CT__VSELF(neg, zero - xv, xv);
            CT__VEXP16(ev, zero - a);
            CT__VLOG12(lg, ev + 1.0f);
            v = (zero + 1.0f - yv) * xv + CT__VSELF(neg, a, zero) + lg;
            if (out) CT__VST(out + k, v);
            else acc += v;
        }
        float l[16];
        CT__VST(l, acc);
        for (int w = 8; w >= 1; w /= 2)
            for (int i = 0; i < w; i++) l[i] += l[i + w];
        total += (double)l[0];
    }
#endif
    float part = 0.0f;
    for (; k < n; k++) {
        float xv = x[k], a = xv < 0 ? -xv : xv;
        float v = (1.0f - y[k]) * xv + (xv < 0 ? a : 0.0f) + logf(1.0f + ct__expf_c(-a));
        if (out) out[k] = v;
        else part += v;
    }
    return total + (double)part;
}
static void ct__bcel_bw_f32(const float *g, float gs, const float *x, const float *y, float *dx, int64_t n) {
    int64_t k = 0;
#if CT__VEC
    ct__v16f zero;
    memset(&zero, 0, sizeof zero);
    for (; k + 16 <= n; k += 16) {
        ct__v16f xv, yv, sv, a, ev, sg, d;
        CT__VLD(xv, x + k);
        CT__VLD(yv, y + k);
        if (g) CT__VLD(sv, g + k);
        else sv = zero + gs;
        ct__v16i neg = (ct__v16i)(xv < zero);
        a = CT__VSELF(neg, zero - xv, xv);
        CT__VEXP16(ev, zero - a);
        sg = CT__VSELF(neg, ev / (ev + 1.0f), (zero + 1.0f) / (ev + 1.0f));
        d = (sg - yv) * sv;
        CT__VST(dx + k, d);
    }
#endif
    for (; k < n; k++) {
        float xv = x[k], ev = ct__expf_c(xv < 0 ? xv : -xv);
        float sg = xv >= 0 ? 1.0f / (1.0f + ev) : ev / (1.0f + ev);
        dx[k] = (sg - y[k]) * (g ? g[k] : gs);
    }
}
static int ct__k_pwloss(ct__call *c) {
    ct_tensor *x = ct__contig_ref(c->in[0]), *y = x ? ct__contig_ref(c->in[1]) : NULL;
    int rc = -1;
    if (x && y) {
        int red = c->a->mode, bce = c->op == CT__NNOP(BCE_LOGITS_FUSED), f64 = x->dtype == CT_FLOAT64;
        int64_t n = ct__shape_numel(x->ndim, x->shape);
        void *op = ct__ptr(c->out[0]);
        double total;
        if (f64) total = ct__pwloss_f64((const double *)ct__ptr(x), (const double *)ct__ptr(y), red == CT__RED_NONE ? (double *)op : NULL, n, bce);
        else if (bce) total = ct__bcel_f32((const float *)ct__ptr(x), (const float *)ct__ptr(y), red == CT__RED_NONE ? (float *)op : NULL, n);
        else total = ct__pwloss_f32((const float *)ct__ptr(x), (const float *)ct__ptr(y), red == CT__RED_NONE ? (float *)op : NULL, n, bce);
        if (red != CT__RED_NONE) {
            if (red == CT__RED_MEAN) total /= (double)n;   /* empty: NaN, as PyTorch */
            if (f64) *(double *)op = total;
            else *(float *)op = (float)total;
        }
        rc = 0;
    }
    if (x) ct__decref(x);
    if (y) ct__decref(y);
    return rc;
}
/* the upstream gradient as a tensor that broadcasts over the input: g, or g / numel for mean */
static ct_tensor *ct__pwloss_scale(const ct_tensor *g, const ct__tmeta *m, int red) {
    if (red != CT__RED_MEAN) return (ct_tensor *)g;
    return ct_div_scalar(g, (double)ct__shape_numel(m->ndim, m->shape));
}
static int ct__bw_pwloss(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *x = CT__SV_IN(n, 0), *y = CT__SV_IN(n, 1);
    if (!x || !y) return -1;
    int bce = n->op == CT__NNOP(BCE_LOGITS_FUSED);
    ct_tensor *dx = NULL;
    if (CT__NEEDS(n, 0) || (CT__NEEDS(n, 1) && !bce)) {
        dx = ct__op3(bce ? CT__NNOP(BCE_LOGITS_FUSED_BACKWARD) : CT__NNOP(MSE_FUSED_BACKWARD), gout[0], x, y, &n->attrs);
        if (!dx) return -1;
        if (CT__NEEDS(n, 0)) gin[0] = dx;
    }
    if (CT__NEEDS(n, 1)) {
        /* d/dy: mse -dx; bce -x s */
        gin[1] = bce ? ct_mul(ct_neg(x), ct__pwloss_scale(gout[0], &n->in_meta[0], n->attrs.mode)) : ct_neg(dx);
        if (!gin[1]) return -1;
    }
    return 0;
}
static int ct__meta_pwloss_bw(ct__call *c) {
    ct_tensor *g = c->in[0], *x = c->in[1];
    int red = c->a->mode;
    if ((unsigned)red > CT__RED_SUM) return ct__failed(CT_ERR_ARG, "%s: invalid reduction %d", ct__opdef_get(c->op)->name, red);
    if ((red == CT__RED_NONE ? !ct_same_shape(g, x) : g->ndim != 0) || g->dtype != x->dtype)
        return ct__failed(CT_ERR_SHAPE, "%s: grad %s (%s) does not fit input %s (%s)", ct__opdef_get(c->op)->name, CT__SHAPE(g),
                          ct_dtype_name(g->dtype), CT__SHAPE(x), ct_dtype_name(x->dtype));
    ct__outinfo *o = &c->oi[0];
    o->kind = CT__OUT_NEW;
    o->has_strides = 0;
    o->dtype = x->dtype;
    o->ndim = x->ndim;
    for (int d = 0; d < x->ndim; d++) o->shape[d] = x->shape[d];
    c->nout = 1;
    c->cdt = x->dtype;
    return 0;
}
static int ct__k_pwloss_bw(ct__call *c) {
    ct_tensor *g = ct__contig_ref(c->in[0]), *x = g ? ct__contig_ref(c->in[1]) : NULL, *y = x ? ct__contig_ref(c->in[2]) : NULL;
    int rc = -1;
    if (g && x && y) {
        int red = c->a->mode, bce = c->op == CT__NNOP(BCE_LOGITS_FUSED_BACKWARD);
        int64_t n = ct__shape_numel(x->ndim, x->shape);
        double div = red == CT__RED_MEAN ? (double)n : 1.0;
        if (x->dtype == CT_FLOAT64) {
            const double *gp = (const double *)ct__ptr(g);
            ct__pwloss_bw_f64(red == CT__RED_NONE ? gp : NULL, red == CT__RED_NONE ? 0.0 : gp[0] / div, (const double *)ct__ptr(x),
                              (const double *)ct__ptr(y), (double *)ct__ptr(c->out[0]), n, bce);
        } else if (bce) {
            const float *gp = (const float *)ct__ptr(g);
            ct__bcel_bw_f32(red == CT__RED_NONE ? gp : NULL, red == CT__RED_NONE ? 0.0f : (float)((double)gp[0] / div),
                            (const float *)ct__ptr(x), (const float *)ct__ptr(y), (float *)ct__ptr(c->out[0]), n);
        } else {
            const float *gp = (const float *)ct__ptr(g);
            ct__pwloss_bw_f32(red == CT__RED_NONE ? gp : NULL, red == CT__RED_NONE ? 0.0f : (float)((double)gp[0] / div),
                              (const float *)ct__ptr(x), (const float *)ct__ptr(y), (float *)ct__ptr(c->out[0]), n, bce);
        }
        rc = 0;
    }
    if (g) ct__decref(g);
    if (x) ct__decref(x);
    if (y) ct__decref(y);
    return rc;
}
/* Double backward with public ops: dx = f(x, y) s(g), f = 2 (x - y) or sigmoid(x) - y. */
static int ct__bw_pwloss_bw(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *g = CT__SV_IN(n, 0), *x = CT__SV_IN(n, 1), *y = CT__SV_IN(n, 2), *gg = gout[0];
    if (!g || !x || !y) return -1;
    int red = n->attrs.mode, bce = n->op == CT__NNOP(BCE_LOGITS_FUSED_BACKWARD);
    ct_tensor *s = ct__pwloss_scale(g, &n->in_meta[1], red);
    ct_tensor *sig = bce ? ct_sigmoid(x) : NULL;
    if (CT__NEEDS(n, 0)) {
        ct_tensor *f = bce ? ct_sub(sig, y) : ct_mul_scalar(ct_sub(x, y), 2.0);
        ct_tensor *h = ct_mul(f, gg);
        gin[0] = red == CT__RED_NONE ? h : ct__pwloss_scale(ct_sum(h), &n->in_meta[1], red);
        if (!gin[0]) return -1;
    }
    ct_tensor *sg = ct_mul(s, gg);
    if (CT__NEEDS(n, 1)) {
        gin[1] = bce ? ct_mul(ct_mul(sig, ct_rsub_scalar(1.0, sig)), sg) : ct_mul_scalar(sg, 2.0);
        if (!gin[1]) return -1;
    }
    if (CT__NEEDS(n, 2)) {
        gin[2] = bce ? ct_neg(sg) : ct_mul_scalar(sg, -2.0);
        if (!gin[2]) return -1;
    }
    return 0;
}
static int ct__pwloss_fusable(int local, const ct_tensor *x, const ct_tensor *y) {
    return ct_same_shape(x, y) && x->dtype == y->dtype && (x->dtype == CT_FLOAT32 || x->dtype == CT_FLOAT64) &&
           ct_device_eq(x->device, y->device) && ct__nn_fused_here(local, x);
}
static ct_tensor *ct__pwloss_call(int op, const ct_tensor *x, const ct_tensor *y, int red) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.mode = red;
    return ct__op2(op, x, y, &a);
}

/* ---- pointwise regression losses ---- */
static int ct__loss_pre(const char *op, const ct_tensor *x, const ct_tensor *y, const char *reduction, int *red) {
    if (!x || !y) { ct__null_arg(op, x ? 1 : 0); return -1; }
    *red = ct__loss_reduction(op, reduction, 0);
    return *red < 0 ? -1 : 0;
}
CTENSOR_API ct_tensor *ct_mse_loss(const ct_tensor *input, const ct_tensor *target, const char *reduction) {
    int red;
    if (ct__loss_pre("mse_loss", input, target, reduction, &red)) return NULL;
    if (ct__pwloss_fusable(CT__NN_MSE_FUSED, input, target)) return ct__pwloss_call(CT__NNOP(MSE_FUSED), input, target, red);
    return ct__loss_apply_reduction(ct_square(ct_sub(input, target)), red);
}
CTENSOR_API ct_tensor *ct_l1_loss(const ct_tensor *input, const ct_tensor *target, const char *reduction) {
    int red;
    if (ct__loss_pre("l1_loss", input, target, reduction, &red)) return NULL;
    return ct__loss_apply_reduction(ct_abs(ct_sub(input, target)), red);
}
/* |d| < beta: 0.5 d^2 / beta, else |d| - 0.5 beta */
CTENSOR_API ct_tensor *ct_smooth_l1_loss(const ct_tensor *input, const ct_tensor *target, const char *reduction, double beta) {
    int red;
    if (ct__loss_pre("smooth_l1_loss", input, target, reduction, &red)) return NULL;
    if (!(beta >= 0.0)) return ct__fail(CT_ERR_ARG, "smooth_l1_loss does not support negative values for beta.");
    if (beta == 0.0) return ct__loss_apply_reduction(ct_abs(ct_sub(input, target)), red);
    ct_tensor *d = ct_sub(input, target), *ad = ct_abs(d);
    ct_tensor *l = ct_where(ct_lt_scalar(ad, beta), ct_mul_scalar(ct_square(d), 0.5 / beta), ct_sub_scalar(ad, 0.5 * beta));
    return ct__loss_apply_reduction(l, red);
}
/* |d| < delta: 0.5 d^2, else delta (|d| - 0.5 delta) */
CTENSOR_API ct_tensor *ct_huber_loss(const ct_tensor *input, const ct_tensor *target, const char *reduction, double delta) {
    int red;
    if (ct__loss_pre("huber_loss", input, target, reduction, &red)) return NULL;
    if (!(delta > 0.0)) return ct__fail(CT_ERR_ARG, "huber_loss does not support non-positive values for delta.");
    ct_tensor *d = ct_sub(input, target), *ad = ct_abs(d);
    ct_tensor *l = ct_where(ct_lt_scalar(ad, delta), ct_mul_scalar(ct_square(d), 0.5), ct_mul_scalar(ct_sub_scalar(ad, 0.5 * delta), delta));
    return ct__loss_apply_reduction(l, red);
}

/* ---- binary cross entropy ---- */
CTENSOR_API ct_tensor *ct_binary_cross_entropy(const ct_tensor *input, const ct_tensor *target, const ct_tensor *weight,
                                               const char *reduction) {
    const char *op = "binary_cross_entropy";
    int red;
    if (ct__loss_pre(op, input, target, reduction, &red)) return NULL;
    if (!ct_same_shape(input, target))
        return ct__fail(CT_ERR_SHAPE, "%s: Using a target size (%s) that is different to the input size (%s) is deprecated. Please ensure they have the same size.",
                        op, CT__SHAPE(target), CT__SHAPE(input));
    if (ct__loss_float_check(op, input, "input")) return NULL;
    if (input->device.type == CT_CPU) {   /* PyTorch checks the range of the input */
        ct_tensor *bad = ct_any(ct_logical_or(ct_lt_scalar(input, 0.0), ct_gt_scalar(input, 1.0)));
        if (!bad) return NULL;
        if (ct_item(bad) != 0.0) return ct__fail(CT_ERR_ARG, "%s: all elements of input should be between 0 and 1", op);
    }
    /* -(y log x + (1 - y) log(1 - x)), each log clamped at -100 */
    ct_tensor *lx = ct_clamp(ct_log(input), -100.0, NAN), *l1x = ct_clamp(ct_log(ct_rsub_scalar(1.0, input)), -100.0, NAN);
    ct_tensor *l = ct_neg(ct_add(ct_mul(target, lx), ct_mul(ct_rsub_scalar(1.0, target), l1x)));
    if (weight) l = ct_mul(l, weight);
    return ct__loss_apply_reduction(l, red);
}
CTENSOR_API ct_tensor *ct_binary_cross_entropy_with_logits(const ct_tensor *input, const ct_tensor *target,
                                                           const ct_tensor *weight, const ct_tensor *pos_weight,
                                                           const char *reduction) {
    const char *op = "binary_cross_entropy_with_logits";
    int red;
    if (ct__loss_pre(op, input, target, reduction, &red)) return NULL;
    if (!ct_same_shape(input, target))
        return ct__fail(CT_ERR_SHAPE, "%s: Target size (%s) must be the same as input size (%s)", op, CT__SHAPE(target), CT__SHAPE(input));
    if (ct__loss_float_check(op, input, "input")) return NULL;
    if (!weight && !pos_weight && ct__pwloss_fusable(CT__NN_BCE_LOGITS_FUSED, input, target)) return ct__pwloss_call(CT__NNOP(BCE_LOGITS_FUSED), input, target, red);
    /* PyTorch 1.13: m = max(-x, 0); (1 - y) x + lw (log(exp(-m) + exp(-x - m)) + m),
       lw = 1 + (pos_weight - 1) y (or 1) */
    ct_tensor *m = ct_clamp(ct_neg(input), 0.0, NAN);
    ct_tensor *lse = ct_add(ct_log(ct_add(ct_exp(ct_neg(m)), ct_exp(ct_sub(ct_neg(input), m)))), m);
    ct_tensor *l;
    if (pos_weight) {
        ct_tensor *lw = ct_add_scalar(ct_mul(ct_sub_scalar(pos_weight, 1.0), target), 1.0);
        l = ct_add(ct_mul(ct_rsub_scalar(1.0, target), input), ct_mul(lw, lse));
    } else {
        l = ct_add(ct_mul(ct_rsub_scalar(1.0, target), input), lse);
    }
    if (weight) l = ct_mul(l, weight);
    return ct__loss_apply_reduction(l, red);
}

/* ---- kl_div (PyTorch 1.13: xlogy(t, t) - t x, or exp(t) (t - x) for log targets) ---- */
CTENSOR_API ct_tensor *ct_kl_div(const ct_tensor *input, const ct_tensor *target, const char *reduction, int log_target) {
    const char *op = "kl_div";
    if (!input || !target) { ct__null_arg(op, input ? 1 : 0); return NULL; }
    int red = ct__loss_reduction(op, reduction, 1);
    if (red < 0) return NULL;
    ct_tensor *l = log_target ? ct_mul(ct_exp(target), ct_sub(target, input)) : ct_sub(ct_xlogy(target, target), ct_mul(target, input));
    if (red == CT__RED_BATCHMEAN) {
        if (input->ndim == 0) return ct_sum(l);
        return ct_div_scalar(ct_sum(l), (double)input->shape[0]);
    }
    return ct__loss_apply_reduction(l, red);
}

/* ---- distances ---- */
CTENSOR_API ct_tensor *ct_cosine_similarity(const ct_tensor *x1, const ct_tensor *x2, int dim, double eps) {
    const char *op = "cosine_similarity";
    if (!x1 || !x2) { ct__null_arg(op, x1 ? 1 : 0); return NULL; }
    ct_dtype dt = ct_promote_types(x1->dtype, x2->dtype);
    if (!CT__ISFLOAT(dt)) dt = ct_get_default_dtype();
    const ct_tensor *a = x1->dtype == dt ? x1 : ct_to(x1, dt), *b = x2->dtype == dt ? x2 : ct_to(x2, dt);
    if (!a || !b) return NULL;
    int nd = a->ndim > b->ndim ? a->ndim : b->ndim;
    if (ct__dim(op, dim, nd) < 0) return NULL;
    ct_tensor *ab[2];
    ab[0] = (ct_tensor *)a;
    ab[1] = (ct_tensor *)b;
    int64_t shape[CT_MAX_DIMS];
    for (int d = 0; d < nd; d++) {   /* broadcast both to one shape */
        int64_t sa = d - (nd - a->ndim) >= 0 ? a->shape[d - (nd - a->ndim)] : 1;
        int64_t sb = d - (nd - b->ndim) >= 0 ? b->shape[d - (nd - b->ndim)] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return ct__fail(CT_ERR_SHAPE, "%s: The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d",
                            op, (long long)sa, (long long)sb, d);
        shape[d] = sa == 1 ? sb : sa;
    }
    ab[0] = ct_expand_n(ab[0], nd, shape);
    ab[1] = ct_expand_n(ab[1], nd, shape);
    int64_t dd = dim;
    ct_tensor *q[2];
    for (int k = 0; k < 2; k++) {
        /* PyTorch 1.13: the squared norm is clamped at eps^2 in place under no_grad
           (the clamp changes the value, not the graph), then x / sqrt(it) */
        ct_tensor *sq = ct_sum_dim(ct_square(ab[k]), (int)dd, 1);
        ct_tensor *fix = ct_detach(ct_sub(ct_clamp(sq, eps * eps, NAN), sq));
        q[k] = ct_div(ab[k], ct_sqrt(ct_add(sq, fix)));
    }
    return ct_sum_dim(ct_mul(q[0], q[1]), dim, 0);
}
CTENSOR_API ct_tensor *ct_pairwise_distance(const ct_tensor *x1, const ct_tensor *x2, double p, double eps, int keepdim) {
    const char *op = "pairwise_distance";
    if (!x1 || !x2) { ct__null_arg(op, x1 ? 1 : 0); return NULL; }
    int nd = x1->ndim > x2->ndim ? x1->ndim : x2->ndim;
    if (nd == 0) return ct__fail(CT_ERR_SHAPE, "%s: Expected at least 1-D inputs, got 0-D", op);
    int64_t last = nd - 1;
    ct_tensor *d = ct_add_scalar(ct_sub(x1, x2), eps);
    return ct_norm(d, p, 1, &last, keepdim);
}

/* ---- loss modules ---- */
enum { CT__LM_CE, CT__LM_NLL, CT__LM_MSE, CT__LM_L1, CT__LM_BCEL };
typedef struct ct__lossmod { int kind, red, use_ign; int64_t ign; double ls; } ct__lossmod;
static const char *const ct__red_names[] = {"none", "mean", "sum"};
static ct_tensor *ct__lossmod_forward(ct_module *m, int nin, ct_tensor *const *in) {
    const ct__lossmod *im = (const ct__lossmod *)m->impl;
    if (nin != 2) return ct__fail(CT_ERR_ARG, "%s: forward expects 2 inputs (input, target), got %d", m->type->name, nin);
    const char *red = ct__red_names[im->red];
    ct_tensor *w = m->nbuffers ? m->buffers[0].tensor : NULL;
    switch (im->kind) {
    case CT__LM_CE: {
        ct_cross_entropy_options o;
        memset(&o, 0, sizeof o);
        o.weight = w;
        o.use_ignore_index = im->use_ign;
        o.ignore_index = im->ign;
        o.reduction = red;
        o.label_smoothing = im->ls;
        return ct_cross_entropy(in[0], in[1], &o);
    }
    case CT__LM_NLL: {
        ct_nll_loss_options o;
        memset(&o, 0, sizeof o);
        o.weight = w;
        o.use_ignore_index = im->use_ign;
        o.ignore_index = im->ign;
        o.reduction = red;
        return ct_nll_loss(in[0], in[1], &o);
    }
    case CT__LM_MSE: return ct_mse_loss(in[0], in[1], red);
    case CT__LM_L1: return ct_l1_loss(in[0], in[1], red);
    default: return ct_binary_cross_entropy_with_logits(in[0], in[1], NULL, NULL, red);
    }
}
static void ct__lossmod_free(ct_module *m) { CT_FREE(m->impl); }
#define CT__LOSSMOD_TYPE(var, name) static const ct_module_type var = {name, ct__lossmod_forward, ct__lossmod_free, NULL};
CT__LOSSMOD_TYPE(ct__ce_loss_type, "CrossEntropyLoss") CT__LOSSMOD_TYPE(ct__nll_loss_type, "NLLLoss")
CT__LOSSMOD_TYPE(ct__mse_loss_type, "MSELoss") CT__LOSSMOD_TYPE(ct__l1_loss_type, "L1Loss")
CT__LOSSMOD_TYPE(ct__bcel_loss_type, "BCEWithLogitsLoss")
static ct_module *ct__lossmod_new(const ct_module_type *ty, int kind, const char *reduction, const ct_tensor *weight,
                                  int use_ign, int64_t ign, double ls) {
    int red = ct__loss_reduction(ty->name, reduction, 0);
    if (red < 0) return NULL;
    if (!(ls >= 0.0 && ls <= 1.0))
        return (ct_module *)ct__fail(CT_ERR_ARG, "%s: label_smoothing must be between 0.0 and 1.0. Got: %s", ty->name, ct__fmt_double(ls).s);
    ct__lossmod *im = (ct__lossmod *)CT_MALLOC(sizeof(ct__lossmod));
    if (!im) return (ct_module *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", ty->name);
    im->kind = kind;
    im->red = red;
    im->use_ign = use_ign;
    im->ign = ign;
    im->ls = ls;
    ct_module *m = ct_module_new(ty, im);
    if (!m) { CT_FREE(im); return NULL; }
    if (weight && ct_module_register_buffer(m, "weight", (ct_tensor *)weight, 1) != CT_OK) { ct_module_free(m); return NULL; }
    return m;
}
CTENSOR_API ct_module *ct_nn_cross_entropy_loss(const ct_cross_entropy_options *o) {
    return ct__lossmod_new(&ct__ce_loss_type, CT__LM_CE, o ? o->reduction : NULL, o ? o->weight : NULL, o ? o->use_ignore_index : 0,
                           o && o->use_ignore_index ? o->ignore_index : -100, o ? o->label_smoothing : 0.0);
}
CTENSOR_API ct_module *ct_nn_nll_loss(const ct_nll_loss_options *o) {
    return ct__lossmod_new(&ct__nll_loss_type, CT__LM_NLL, o ? o->reduction : NULL, o ? o->weight : NULL, o ? o->use_ignore_index : 0,
                           o && o->use_ignore_index ? o->ignore_index : -100, 0.0);
}
CTENSOR_API ct_module *ct_nn_mse_loss(const char *reduction) { return ct__lossmod_new(&ct__mse_loss_type, CT__LM_MSE, reduction, NULL, 0, -100, 0.0); }
CTENSOR_API ct_module *ct_nn_l1_loss(const char *reduction) { return ct__lossmod_new(&ct__l1_loss_type, CT__LM_L1, reduction, NULL, 0, -100, 0.0); }
CTENSOR_API ct_module *ct_nn_bce_with_logits_loss(const char *reduction) {
    return ct__lossmod_new(&ct__bcel_loss_type, CT__LM_BCEL, reduction, NULL, 0, -100, 0.0);
}

/* [section: optim-impl] */
/* ============================================================================
   Optimizers, learning-rate schedulers, gradient clipping (torch.optim)
   PyTorch 1.13: torch/optim/{optimizer,sgd,adam,adamw,rmsprop,adagrad,
   lr_scheduler}.py and torch/nn/utils/clip_grad.py. Updates are the
   single-tensor path (foreach=False, PyTorch's default), op for op; the
   comments quote the PyTorch lines they mirror.
   ========================================================================== */

/* Python's repr of a float, for messages that quote values as PyTorch does:
   0.1 -> "0.1", 1 -> "1.0", 1e-05 -> "1e-05", 1e+16 -> "1e+16", inf -> "inf". */
typedef struct ct__pyf { char s[48]; } ct__pyf;
static ct__pyf ct__pyrepr(double v) {
    ct__pyf r;
    char tmp[40], digits[24];
    int nd = 0, prec, e, neg;
    if (v != v) { snprintf(r.s, sizeof r.s, "nan"); return r; }
    if (v == INFINITY || v == -INFINITY) { snprintf(r.s, sizeof r.s, v > 0 ? "inf" : "-inf"); return r; }
    for (prec = 1; prec < 17; prec++) {   /* shortest round-tripping digits */
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, v);
        if (strtod(tmp, NULL) == v) break;
    }
    snprintf(tmp, sizeof tmp, "%.*e", prec - 1, v);
    neg = tmp[0] == '-';
    const char *q = tmp + neg;
    for (; *q && *q != 'e' && nd < 20; q++)
        if (*q >= '0' && *q <= '9') digits[nd++] = *q;
    e = *q == 'e' ? atoi(q + 1) : 0;
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    char *o = r.s;
    if (neg) *o++ = '-';
    if (e < -4 || e >= 16) {   /* Python switches to exponent form outside [1e-4, 1e16) */
        *o++ = digits[0];
        if (nd > 1) { *o++ = '.'; memcpy(o, digits + 1, (size_t)(nd - 1)); o += nd - 1; }
        snprintf(o, 16, "e%c%02d", e < 0 ? '-' : '+', (e < 0 ? -e : e) % 1000);
    } else if (e < 0) {
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -e - 1; i++) *o++ = '0';
        memcpy(o, digits, (size_t)nd);
        o[nd] = 0;
    } else {
        for (int i = 0; i <= e; i++) *o++ = i < nd ? digits[i] : '0';
        *o++ = '.';
        if (nd > e + 1) { memcpy(o, digits + e + 1, (size_t)(nd - e - 1)); o += nd - e - 1; }
        else *o++ = '0';
        *o = 0;
    }
    return r;
}
#define CT__PYF(v) (ct__pyrepr(v).s)

/* a * b as its own rounded operation: Python rounds every operation, and a
   compiler contracting a * b + c into one fma (clang does within an expression)
   would change the last bit of a learning rate. */
static CT__NOINLINE double ct__mul(double a, double b) { return a * b; }
/* Python's a % b (the sign of b) */
static int64_t ct__pymod(int64_t a, int64_t b) {
    int64_t m = a % b;
    return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
}

/* ---- optimizer kinds, settings, state ---- */
enum { CT__OPT_SGD, CT__OPT_ADAM, CT__OPT_ADAMW, CT__OPT_RMSPROP, CT__OPT_ADAGRAD };
/* A group's settings by id; names are PyTorch's param_groups keys (betas is two). */
enum {
    CT__HP_LR, CT__HP_MOMENTUM, CT__HP_DAMPENING, CT__HP_WEIGHT_DECAY, CT__HP_NESTEROV, CT__HP_MAXIMIZE,
    CT__HP_BETA1, CT__HP_BETA2, CT__HP_EPS, CT__HP_AMSGRAD, CT__HP_ALPHA, CT__HP_CENTERED, CT__HP_LR_DECAY,
    CT__HP_INIT_ACC,
    /* set by schedulers (present only once set) */
    CT__HP_INITIAL_LR, CT__HP_MAX_LR, CT__HP_MIN_LR, CT__HP_MAX_MOMENTUM, CT__HP_BASE_MOMENTUM,
    CT__HP_COUNT
};
#define CT__HP_SCHED_FIRST CT__HP_INITIAL_LR
static const char *const ct__hp_names[CT__HP_COUNT] = {
    "lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize", "beta1", "beta2", "eps", "amsgrad",
    "alpha", "centered", "lr_decay", "initial_accumulator_value", "initial_lr", "max_lr", "min_lr",
    "max_momentum", "base_momentum"};
static int ct__hp_is_flag(int h) {
    return h == CT__HP_NESTEROV || h == CT__HP_MAXIMIZE || h == CT__HP_AMSGRAD || h == CT__HP_CENTERED;
}
typedef struct ct__optkind {
    const char *name;
    int nkeys;
    int keys[8];                /* param_groups keys in PyTorch's order; CT__HP_BETA1 is "betas" */
    int nbufs;
    const char *bufs[3];        /* per-parameter state tensors, in PyTorch's order */
    int has_step;
    double defaults[CT__HP_INIT_ACC + 1];   /* lr NAN: required */
} ct__optkind;
static const ct__optkind ct__optkinds[5] = {
    {"SGD", 6, {CT__HP_LR, CT__HP_MOMENTUM, CT__HP_DAMPENING, CT__HP_WEIGHT_DECAY, CT__HP_NESTEROV, CT__HP_MAXIMIZE, 0, 0},
     1, {"momentum_buffer", NULL, NULL}, 0,
     {NAN, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
    {"Adam", 6, {CT__HP_LR, CT__HP_BETA1, CT__HP_EPS, CT__HP_WEIGHT_DECAY, CT__HP_AMSGRAD, CT__HP_MAXIMIZE, 0, 0},
     3, {"exp_avg", "exp_avg_sq", "max_exp_avg_sq"}, 1,
     {NAN, 0, 0, 0, 0, 0, 0.9, 0.999, 1e-8, 0, 0, 0, 0, 0}},
    {"AdamW", 6, {CT__HP_LR, CT__HP_BETA1, CT__HP_EPS, CT__HP_WEIGHT_DECAY, CT__HP_AMSGRAD, CT__HP_MAXIMIZE, 0, 0},
     3, {"exp_avg", "exp_avg_sq", "max_exp_avg_sq"}, 1,
     {NAN, 0, 0, 1e-2, 0, 0, 0.9, 0.999, 1e-8, 0, 0, 0, 0, 0}},
    {"RMSprop", 7, {CT__HP_LR, CT__HP_MOMENTUM, CT__HP_ALPHA, CT__HP_EPS, CT__HP_CENTERED, CT__HP_WEIGHT_DECAY, CT__HP_MAXIMIZE, 0},
     3, {"square_avg", "momentum_buffer", "grad_avg"}, 1,
     {NAN, 0, 0, 0, 0, 0, 0, 0, 1e-8, 0, 0.99, 0, 0, 0}},
    {"Adagrad", 6, {CT__HP_LR, CT__HP_LR_DECAY, CT__HP_EPS, CT__HP_WEIGHT_DECAY, CT__HP_INIT_ACC, CT__HP_MAXIMIZE, 0, 0},
     1, {"sum", NULL, NULL}, 1,
     {NAN, 0, 0, 0, 0, 0, 0, 0, 1e-10, 0, 0, 0, 0, 0}},
};
/* is h one of the kind's settings? (betas counts for beta1 and beta2) */
static int ct__kind_has(const ct__optkind *k, int h) {
    if (h >= CT__HP_SCHED_FIRST) return 1;
    if (h == CT__HP_BETA2) h = CT__HP_BETA1;
    for (int i = 0; i < k->nkeys; i++)
        if (k->keys[i] == h) return 1;
    return 0;
}

typedef struct ct__pstate {
    int init;                   /* the parameter has state (PyTorch: len(state) != 0) */
    double step;
    ct_tensor *buf[3];          /* ct__optkind.bufs; owned (retained) */
} ct__pstate;
typedef struct ct__optgroup {
    int n;
    ct_tensor **params;         /* retained */
    ct__pstate *st;
    double hp[CT__HP_COUNT];
    uint32_t sched_has;         /* bit h - CT__HP_SCHED_FIRST: that scheduler key is set */
} ct__optgroup;
struct ct_optimizer {
    int kind;
    const ct__optkind *k;
    double defaults[CT__HP_COUNT];   /* the constructor's settings: zero fields of added groups */
    int ngroups, cap;
    ct__optgroup *groups;
};

static void ct__pstate_clear(ct__pstate *st) {
    for (int b = 0; b < 3; b++) {
        if (st->buf[b]) ct_release(st->buf[b]);
        st->buf[b] = NULL;
    }
    st->init = 0;
    st->step = 0;
}
/* A state tensor like p (zeros, or `fill`), owned by the optimizer: not in any scope. */
static ct_tensor *ct__opt_newbuf(const ct_tensor *p, double fill) {
    int s = ct_scope_begin();
    ct_tensor *t = fill == 0.0 ? ct_zeros_like(p) : ct_full_like(p, fill);
    if (t) ct_retain(t);
    ct_scope_end(s);
    return t;
}

/* ---- options -> settings ---- */
/* zero: the base value; CT_ZERO (-0.0): an explicit 0 */
static double ct__opt_pick(double v, double base) { return v == 0.0 ? (signbit(v) ? 0.0 : base) : v; }
static double ct__opt_flag(int v, double base) { return v ? 1.0 : base; }
/* Fills hp from a kind's options struct over `base`; 1 when lr was left at +0.0. */
static int ct__opt_resolve(int kind, const void *o, const double *base, double *hp) {
    for (int h = 0; h < CT__HP_COUNT; h++) hp[h] = base[h];
    double lr = 0;
    switch (kind) {
    case CT__OPT_SGD: {
        const ct_sgd_options *s = (const ct_sgd_options *)o;
        lr = s->lr;
        hp[CT__HP_MOMENTUM] = ct__opt_pick(s->momentum, base[CT__HP_MOMENTUM]);
        hp[CT__HP_DAMPENING] = ct__opt_pick(s->dampening, base[CT__HP_DAMPENING]);
        hp[CT__HP_WEIGHT_DECAY] = ct__opt_pick(s->weight_decay, base[CT__HP_WEIGHT_DECAY]);
        hp[CT__HP_NESTEROV] = ct__opt_flag(s->nesterov, base[CT__HP_NESTEROV]);
        hp[CT__HP_MAXIMIZE] = ct__opt_flag(s->maximize, base[CT__HP_MAXIMIZE]);
        break;
    }
    case CT__OPT_ADAM: case CT__OPT_ADAMW: {
        const ct_adam_options *s = (const ct_adam_options *)o;
        lr = s->lr;
        hp[CT__HP_BETA1] = ct__opt_pick(s->beta1, base[CT__HP_BETA1]);
        hp[CT__HP_BETA2] = ct__opt_pick(s->beta2, base[CT__HP_BETA2]);
        hp[CT__HP_EPS] = ct__opt_pick(s->eps, base[CT__HP_EPS]);
        hp[CT__HP_WEIGHT_DECAY] = ct__opt_pick(s->weight_decay, base[CT__HP_WEIGHT_DECAY]);
        hp[CT__HP_AMSGRAD] = ct__opt_flag(s->amsgrad, base[CT__HP_AMSGRAD]);
        hp[CT__HP_MAXIMIZE] = ct__opt_flag(s->maximize, base[CT__HP_MAXIMIZE]);
        break;
    }
    case CT__OPT_RMSPROP: {
        const ct_rmsprop_options *s = (const ct_rmsprop_options *)o;
        lr = s->lr;
        hp[CT__HP_ALPHA] = ct__opt_pick(s->alpha, base[CT__HP_ALPHA]);
        hp[CT__HP_EPS] = ct__opt_pick(s->eps, base[CT__HP_EPS]);
        hp[CT__HP_WEIGHT_DECAY] = ct__opt_pick(s->weight_decay, base[CT__HP_WEIGHT_DECAY]);
        hp[CT__HP_MOMENTUM] = ct__opt_pick(s->momentum, base[CT__HP_MOMENTUM]);
        hp[CT__HP_CENTERED] = ct__opt_flag(s->centered, base[CT__HP_CENTERED]);
        hp[CT__HP_MAXIMIZE] = ct__opt_flag(s->maximize, base[CT__HP_MAXIMIZE]);
        break;
    }
    default: {
        const ct_adagrad_options *s = (const ct_adagrad_options *)o;
        lr = s->lr;
        hp[CT__HP_LR_DECAY] = ct__opt_pick(s->lr_decay, base[CT__HP_LR_DECAY]);
        hp[CT__HP_WEIGHT_DECAY] = ct__opt_pick(s->weight_decay, base[CT__HP_WEIGHT_DECAY]);
        hp[CT__HP_INIT_ACC] = ct__opt_pick(s->initial_accumulator_value, base[CT__HP_INIT_ACC]);
        hp[CT__HP_EPS] = ct__opt_pick(s->eps, base[CT__HP_EPS]);
        hp[CT__HP_MAXIMIZE] = ct__opt_flag(s->maximize, base[CT__HP_MAXIMIZE]);
        break;
    }
    }
    hp[CT__HP_LR] = ct__opt_pick(lr, base[CT__HP_LR]);
    return lr == 0.0 && !signbit(lr);
}
/* The constructors' checks, with PyTorch's messages (and its comparisons: SGD
   tests `lr < 0`, the others `not 0 <= lr`, so NaN passes only SGD's). */
static ct_status ct__opt_validate(int kind, const double *hp) {
    const char *nm = ct__optkinds[kind].name;
    double lr = hp[CT__HP_LR], mom = hp[CT__HP_MOMENTUM], wd = hp[CT__HP_WEIGHT_DECAY], eps = hp[CT__HP_EPS];
#define CT__OPT_BAD(cond, what, v)                                                          \
    if (cond) { ct_set_error(CT_ERR_ARG, "%s: Invalid " what ": %s", nm, CT__PYF(v)); return CT_ERR_ARG; }
    switch (kind) {
    case CT__OPT_SGD:
        CT__OPT_BAD(lr < 0.0, "learning rate", lr)
        CT__OPT_BAD(mom < 0.0, "momentum value", mom)
        CT__OPT_BAD(wd < 0.0, "weight_decay value", wd)
        if (hp[CT__HP_NESTEROV] != 0 && (mom <= 0 || hp[CT__HP_DAMPENING] != 0)) {
            ct_set_error(CT_ERR_ARG, "%s: Nesterov momentum requires a momentum and zero dampening", nm);
            return CT_ERR_ARG;
        }
        break;
    case CT__OPT_ADAM: case CT__OPT_ADAMW: {
        double b1 = hp[CT__HP_BETA1], b2 = hp[CT__HP_BETA2];
        CT__OPT_BAD(!(0.0 <= lr), "learning rate", lr)
        CT__OPT_BAD(!(0.0 <= eps), "epsilon value", eps)
        CT__OPT_BAD(!(0.0 <= b1 && b1 < 1.0), "beta parameter at index 0", b1)
        CT__OPT_BAD(!(0.0 <= b2 && b2 < 1.0), "beta parameter at index 1", b2)
        CT__OPT_BAD(!(0.0 <= wd), "weight_decay value", wd)
        break;
    }
    case CT__OPT_RMSPROP:
        CT__OPT_BAD(!(0.0 <= lr), "learning rate", lr)
        CT__OPT_BAD(!(0.0 <= eps), "epsilon value", eps)
        CT__OPT_BAD(!(0.0 <= mom), "momentum value", mom)
        CT__OPT_BAD(!(0.0 <= wd), "weight_decay value", wd)
        CT__OPT_BAD(!(0.0 <= hp[CT__HP_ALPHA]), "alpha value", hp[CT__HP_ALPHA])
        break;
    default:
        CT__OPT_BAD(!(0.0 <= lr), "learning rate", lr)
        CT__OPT_BAD(!(0.0 <= hp[CT__HP_LR_DECAY]), "lr_decay value", hp[CT__HP_LR_DECAY])
        CT__OPT_BAD(!(0.0 <= wd), "weight_decay value", wd)
        CT__OPT_BAD(!(0.0 <= hp[CT__HP_INIT_ACC]), "initial_accumulator_value value", hp[CT__HP_INIT_ACC])
        CT__OPT_BAD(!(0.0 <= eps), "epsilon value", eps)
        break;
    }
#undef CT__OPT_BAD
    return CT_OK;
}

/* ---- groups ---- */
/* Optimizer.add_param_group: checks the list, retains the parameters. Adagrad
   initializes its state for them here, as its constructor does (PyTorch 1.13
   only does so for the constructor's groups; a later group would fail at step). */
static ct_status ct__opt_add_group(ct_optimizer *opt, int n, ct_tensor *const *params, const double *hp) {
    const char *nm = opt->k->name;
    if (n <= 0 || !params) { ct_set_error(CT_ERR_ARG, "%s: optimizer got an empty parameter list", nm); return CT_ERR_ARG; }
    for (int i = 0; i < n; i++) {
        ct_tensor *p = params[i];
        if (!p) {
            if (ct_last_error_code() == CT_OK)
                ct_set_error(CT_ERR_NULL, "%s: optimizer can only optimize Tensors, but parameter %d is NULL", nm, i);
            return ct_last_error_code();
        }
        if (p->grad_fn && !(p->flags & CT__F_RETAINS_GRAD)) {
            ct_set_error(CT_ERR_ARG, "%s: can't optimize a non-leaf Tensor (parameter %d)", nm, i);
            return CT_ERR_ARG;
        }
        for (int j = 0; j < i; j++)
            if (params[j] == p) {
                ct_set_error(CT_ERR_ARG, "%s: optimizer contains a parameter group with duplicate parameters (parameter %d)", nm, i);
                return CT_ERR_ARG;
            }
        for (int g = 0; g < opt->ngroups; g++)
            for (int j = 0; j < opt->groups[g].n; j++)
                if (opt->groups[g].params[j] == p) {
                    ct_set_error(CT_ERR_ARG, "%s: some parameters appear in more than one parameter group", nm);
                    return CT_ERR_ARG;
                }
    }
    if (opt->ngroups == opt->cap) {
        int nc = opt->cap ? 2 * opt->cap : 4;
        ct__optgroup *ng = (ct__optgroup *)CT_REALLOC(opt->groups, sizeof(ct__optgroup) * (size_t)nc);
        if (!ng) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", nm); return CT_ERR_MEMORY; }
        opt->groups = ng;
        opt->cap = nc;
    }
    ct__optgroup *G = &opt->groups[opt->ngroups];
    memset(G, 0, sizeof *G);
    G->params = CT__NEW_ARRAY(ct_tensor *, n);
    G->st = (ct__pstate *)ct__calloc1(sizeof(ct__pstate) * (size_t)n);
    if (!G->params || !G->st) {
        CT_FREE(G->params);
        CT_FREE(G->st);
        ct_set_error(CT_ERR_MEMORY, "%s: out of memory", nm);
        return CT_ERR_MEMORY;
    }
    for (int h = 0; h < CT__HP_COUNT; h++) G->hp[h] = hp[h];
    G->n = n;
    for (int i = 0; i < n; i++) G->params[i] = ct_retain(params[i]);
    opt->ngroups++;
    if (opt->kind == CT__OPT_ADAGRAD) {
        /* state["step"] = tensor(0.); state["sum"] = full_like(p, initial_accumulator_value) */
        for (int i = 0; i < n; i++) {
            G->st[i].buf[0] = ct__opt_newbuf(params[i], hp[CT__HP_INIT_ACC]);
            if (!G->st[i].buf[0]) return ct_last_error_code();
            G->st[i].init = 1;
        }
    }
    return CT_OK;
}

CTENSOR_API void ct_optim_free(ct_optimizer *opt) {
    if (!opt) return;
    for (int g = 0; g < opt->ngroups; g++) {
        ct__optgroup *G = &opt->groups[g];
        for (int i = 0; i < G->n; i++) {
            ct__pstate_clear(&G->st[i]);
            ct_release(G->params[i]);
        }
        CT_FREE(G->params);
        CT_FREE(G->st);
    }
    CT_FREE(opt->groups);
    CT_FREE(opt);
}

static ct_optimizer *ct__optim_new(int kind, int n, ct_tensor *const *params, const void *o) {
    const ct__optkind *k = &ct__optkinds[kind];
    if (!o) return (ct_optimizer *)ct__fail(CT_ERR_ARG, "%s: options are NULL (lr is required)", k->name);
    double base[CT__HP_COUNT], hp[CT__HP_COUNT];
    for (int h = 0; h < CT__HP_COUNT; h++) base[h] = h <= CT__HP_INIT_ACC ? k->defaults[h] : 0.0;
    if (ct__opt_resolve(kind, o, base, hp))
        return (ct_optimizer *)ct__fail(CT_ERR_ARG, "%s: parameter group didn't specify a value of required optimization "
                                        "parameter lr (a zero lr field is unset; pass CT_ZERO for a learning rate of 0)", k->name);
    if (ct__opt_validate(kind, hp)) return NULL;
    ct_optimizer *opt = CT__NEW_ZEROED(ct_optimizer);
    if (!opt) return (ct_optimizer *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", k->name);
    opt->kind = kind;
    opt->k = k;
    for (int h = 0; h < CT__HP_COUNT; h++) opt->defaults[h] = hp[h];
    if (ct__opt_add_group(opt, n, params, hp)) {
        ct_optim_free(opt);
        return NULL;
    }
    return opt;
}
static ct_optimizer *ct__optim_from_module(int kind, ct_module *m, const void *o) {
    const char *nm = ct__optkinds[kind].name;
    if (!m) {   /* a failed constructor: keep its message */
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "%s: model is NULL", nm);
        return NULL;
    }
    int n = ct_module_parameters(m, NULL, 0);
    ct_tensor **ps = CT__NEW_ARRAY(ct_tensor *, n);
    if (!ps) return (ct_optimizer *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", nm);
    ct_module_parameters(m, ps, n);
    ct_optimizer *opt = ct__optim_new(kind, n, ps, o);
    CT_FREE(ps);
    return opt;
}
CTENSOR_API ct_optimizer *ct_optim_sgd(ct_module *m, const ct_sgd_options *o) { return ct__optim_from_module(CT__OPT_SGD, m, o); }
CTENSOR_API ct_optimizer *ct_optim_sgd_params(int n, ct_tensor *const *p, const ct_sgd_options *o) { return ct__optim_new(CT__OPT_SGD, n, p, o); }
CTENSOR_API ct_optimizer *ct_optim_adam(ct_module *m, const ct_adam_options *o) { return ct__optim_from_module(CT__OPT_ADAM, m, o); }
CTENSOR_API ct_optimizer *ct_optim_adam_params(int n, ct_tensor *const *p, const ct_adam_options *o) { return ct__optim_new(CT__OPT_ADAM, n, p, o); }
CTENSOR_API ct_optimizer *ct_optim_adamw(ct_module *m, const ct_adamw_options *o) { return ct__optim_from_module(CT__OPT_ADAMW, m, o); }
CTENSOR_API ct_optimizer *ct_optim_adamw_params(int n, ct_tensor *const *p, const ct_adamw_options *o) { return ct__optim_new(CT__OPT_ADAMW, n, p, o); }
CTENSOR_API ct_optimizer *ct_optim_rmsprop(ct_module *m, const ct_rmsprop_options *o) { return ct__optim_from_module(CT__OPT_RMSPROP, m, o); }
CTENSOR_API ct_optimizer *ct_optim_rmsprop_params(int n, ct_tensor *const *p, const ct_rmsprop_options *o) { return ct__optim_new(CT__OPT_RMSPROP, n, p, o); }
CTENSOR_API ct_optimizer *ct_optim_adagrad(ct_module *m, const ct_adagrad_options *o) { return ct__optim_from_module(CT__OPT_ADAGRAD, m, o); }
CTENSOR_API ct_optimizer *ct_optim_adagrad_params(int n, ct_tensor *const *p, const ct_adagrad_options *o) { return ct__optim_new(CT__OPT_ADAGRAD, n, p, o); }

CTENSOR_API ct_status ct_optim_add_param_group(ct_optimizer *opt, int n, ct_tensor *const *params, const void *options) {
    if (!opt) { ct_set_error(CT_ERR_ARG, "add_param_group: optimizer is NULL"); return CT_ERR_ARG; }
    double hp[CT__HP_COUNT];
    if (options) {
        ct__opt_resolve(opt->kind, options, opt->defaults, hp);
        for (int h = CT__HP_SCHED_FIRST; h < CT__HP_COUNT; h++) hp[h] = 0;
        if (ct__opt_validate(opt->kind, hp)) return CT_ERR_ARG;
    } else {
        for (int h = 0; h < CT__HP_COUNT; h++) hp[h] = h < CT__HP_SCHED_FIRST ? opt->defaults[h] : 0.0;
    }
    return ct__opt_add_group(opt, n, params, hp);
}

CTENSOR_API const char *ct_optim_name(const ct_optimizer *opt) { return opt ? opt->k->name : ""; }
CTENSOR_API int ct_optim_num_groups(const ct_optimizer *opt) { return opt ? opt->ngroups : 0; }
static ct__optgroup *ct__opt_group(const ct_optimizer *opt, int g, const char *fn) {
    if (!opt) { ct_set_error(CT_ERR_ARG, "%s: optimizer is NULL", fn); return NULL; }
    if (g < 0 || g >= opt->ngroups) {
        ct_set_error(CT_ERR_INDEX, "%s: param group %d out of range (the optimizer has %d)", fn, g, opt->ngroups);
        return NULL;
    }
    return &opt->groups[g];
}
CTENSOR_API int ct_optim_group_size(const ct_optimizer *opt, int g) {
    ct__optgroup *G = ct__opt_group(opt, g, "group_size");
    return G ? G->n : 0;
}
CTENSOR_API ct_tensor *ct_optim_param(const ct_optimizer *opt, int g, int i) {
    ct__optgroup *G = ct__opt_group(opt, g, "param");
    if (!G) return NULL;
    if (i < 0 || i >= G->n) return ct__fail(CT_ERR_INDEX, "param: index %d out of range (the group has %d)", i, G->n);
    return G->params[i];
}
CTENSOR_API double ct_optim_get_lr(const ct_optimizer *opt, int g) {
    ct__optgroup *G = ct__opt_group(opt, g, "get_lr");
    return G ? G->hp[CT__HP_LR] : NAN;
}
CTENSOR_API ct_status ct_optim_set_lr(ct_optimizer *opt, int g, double lr) {
    ct__optgroup *G = ct__opt_group(opt, g, "set_lr");
    if (!G) return ct_last_error_code();
    G->hp[CT__HP_LR] = lr;
    return CT_OK;
}
static int ct__hp_lookup(const ct_optimizer *opt, const char *name, const char *fn) {
    for (int h = 0; name && h < CT__HP_COUNT; h++)
        if (!strcmp(ct__hp_names[h], name) && ct__kind_has(opt->k, h)) return h;
    ct_set_error(CT_ERR_ARG, "%s: %s has no setting '%s'", fn, opt->k->name, name ? name : "(null)");
    return -1;
}
CTENSOR_API double ct_optim_get_option(const ct_optimizer *opt, int g, const char *name) {
    ct__optgroup *G = ct__opt_group(opt, g, "get_option");
    if (!G) return NAN;
    int h = ct__hp_lookup(opt, name, "get_option");
    if (h < 0) return NAN;
    if (h >= CT__HP_SCHED_FIRST && !(G->sched_has & (1u << (h - CT__HP_SCHED_FIRST)))) {
        ct_set_error(CT_ERR_ARG, "get_option: param group %d has no '%s' (no scheduler set it)", g, name);
        return NAN;
    }
    return G->hp[h];
}
CTENSOR_API ct_status ct_optim_set_option(ct_optimizer *opt, int g, const char *name, double value) {
    ct__optgroup *G = ct__opt_group(opt, g, "set_option");
    if (!G) return ct_last_error_code();
    int h = ct__hp_lookup(opt, name, "set_option");
    if (h < 0) return CT_ERR_ARG;
    G->hp[h] = ct__hp_is_flag(h) ? (value != 0) : value;
    if (h >= CT__HP_SCHED_FIRST) G->sched_has |= 1u << (h - CT__HP_SCHED_FIRST);
    return CT_OK;
}

CTENSOR_API void ct_optim_zero_grad(ct_optimizer *opt, int set_to_none) {
    if (!opt) return;
    int prev = ct_set_grad_enabled(0), s = ct_scope_begin();
    for (int g = 0; g < opt->ngroups; g++)
        for (int i = 0; i < opt->groups[g].n; i++) {
            ct_tensor *p = opt->groups[g].params[i], *gr = p->grad;
            if (!gr) continue;
            if (set_to_none) { ct_set_grad(p, NULL); continue; }
            /* p.grad.detach_() if it has a grad_fn, else p.grad.requires_grad_(False); p.grad.zero_() */
            if (gr->grad_fn) ct_detach_(gr);
            else gr->flags &= ~CT__F_REQUIRES_GRAD;
            ct_zero_(gr);
        }
    ct_scope_end(s);
    ct_set_grad_enabled(prev);
}
CTENSOR_API void ct_zero_grad(ct_optimizer *opt) { ct_optim_zero_grad(opt, 1); }

/* ---- fused update ops ----
   One pass over a parameter, its grad and its state that does what the
   single-tensor step does op by op, element by element, with the roundings of
   PyTorch's CPU kernels: scalars are cast to the tensor's dtype as the ops cast
   them, and where PyTorch's (AVX2, FMA-contracted) kernels round once,
   add(x, y, alpha) = fma(y, alpha, x) and addcmul(x, y, z, value) =
   fma(value * y, z, x), so do these (C99 fma: exact on any machine). float32
   and float64 steps therefore give PyTorch's bits (on a GPU too, with
   ctensor_cuda.h's kernels of these ops); other dtypes, and devices without a
   kernel for them, take the op chain (ctensor's add/addcmul round twice:
   results within an ulp per op). They are ops of the table, registered at run time, so profilers and
   tracers see them: _fused_sgd_, _fused_adam_, _fused_adamw_, _fused_rmsprop_,
   _fused_adagrad_. Inputs: param, grad, then the state tensors in
   ct__optkind.bufs order (the ones in use); the settings are the float
   attributes s[0..7] and the bool flags of each op's schema (CT__FS_DEF); the
   kernel passes its loops the optimizer kind in a copy's mode.
   A product that PyTorch rounds before adding passes CT__FS_ROUNDED, so that
   compilers that contract across statements (gcc's GNU modes with FMA
   hardware) keep that rounding too. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && __GNUC__ >= 12
#  define CT__FS_ROUNDED(x) __builtin_assoc_barrier(x)
#else
#  define CT__FS_ROUNDED(x) (x)
#endif
#define CT__FS_MAXIMIZE 1
#define CT__FS_AMSGRAD 2
#define CT__FS_NESTEROV 4
#define CT__FS_FIRST 8        /* SGD: a new momentum buffer, buf = d_p */
#define CT__FS_CENTERED 16
/* the flags each kind reads (its schema's bools) */
static const int32_t ct__fs_flag_mask[5] = {CT__FS_MAXIMIZE | CT__FS_NESTEROV | CT__FS_FIRST, CT__FS_MAXIMIZE | CT__FS_AMSGRAD,
                                            CT__FS_MAXIMIZE | CT__FS_AMSGRAD, CT__FS_MAXIMIZE | CT__FS_CENTERED, CT__FS_MAXIMIZE};
/* the per-call constants, computed in double as the Python code computes them */
typedef struct ct__fs_k {
    int maxim, ams, nesterov, first, centered, has_mom, l2, dec;
    double wd, mom, omd, nlr, b1, omb1, b2, omb2, eps, nss, bc2s, decay, alpha, oma, nclr;
} ct__fs_k;
static void ct__fs_consts(const ct__attrs *a, ct__fs_k *k) {
    memset(k, 0, sizeof *k);
    k->maxim = (a->flags & CT__FS_MAXIMIZE) != 0;
    k->ams = (a->flags & CT__FS_AMSGRAD) != 0;
    k->nesterov = (a->flags & CT__FS_NESTEROV) != 0;
    k->first = (a->flags & CT__FS_FIRST) != 0;
    k->centered = (a->flags & CT__FS_CENTERED) != 0;
    double lr = a->s[0];
    k->nlr = -lr;
    switch (a->mode) {
    case CT__OPT_SGD:   /* lr, momentum, dampening, weight_decay */
        k->mom = a->s[1];
        k->omd = 1 - a->s[2];
        k->wd = a->s[3];
        k->has_mom = k->mom != 0;
        k->l2 = k->wd != 0;
        break;
    case CT__OPT_ADAM: case CT__OPT_ADAMW: {   /* lr, beta1, beta2, eps, weight_decay, step */
        double step = a->s[5];
        k->b1 = a->s[1];
        k->b2 = a->s[2];
        k->eps = a->s[3];
        k->wd = a->s[4];
        k->omb1 = 1 - k->b1;
        k->omb2 = 1 - k->b2;
        k->nss = -(lr / (1 - pow(k->b1, step)));   /* step_size = lr / (1 - beta1 ** step) */
        k->bc2s = sqrt(1 - pow(k->b2, step));      /* math.sqrt(1 - beta2 ** step) */
        k->decay = 1 - ct__mul(lr, k->wd);
        k->l2 = a->mode == CT__OPT_ADAM && k->wd != 0;
        k->dec = a->mode == CT__OPT_ADAMW && k->wd != 0;
        break;
    }
    case CT__OPT_RMSPROP:   /* lr, alpha, eps, weight_decay, momentum */
        k->alpha = a->s[1];
        k->oma = 1 - k->alpha;
        k->eps = a->s[2];
        k->wd = a->s[3];
        k->mom = a->s[4];
        k->has_mom = k->mom > 0;
        k->l2 = k->wd != 0;
        break;
    default: {   /* Adagrad: lr, lr_decay, eps, weight_decay, step */
        double step = a->s[4];
        k->nclr = -(lr / (1 + ct__mul(step - 1, a->s[1])));   /* clr = lr / (1 + (step - 1) * lr_decay) */
        k->eps = a->s[2];
        k->wd = a->s[3];
        k->l2 = k->wd != 0;
        break;
    }
    }
}
/* Optional operands point at a dummy with stride 0 when absent. */
#define CT__FS_OPT(i, on, pp, ss, dummy)                                                                 \
    char *pp = (on) ? p[i] : (char *)&(dummy);                                                           \
    const int64_t ss = (on) ? s[i] : 0;

#define CT__FS_SGD_LOOP(fname, T, F)                                                                     \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) {                       \
        ct__fs_k k;                                                                                      \
        ct__fs_consts(a, &k);                                                                            \
        const T wd = (T)k.wd, mom = (T)k.mom, omd = (T)k.omd, nlr = (T)k.nlr;                            \
        T dummy = 0;                                                                                     \
        CT__FS_OPT(2, k.has_mom, pb, sb, dummy)                                                          \
        if (!k.maxim && !k.l2 && !k.first && !k.nesterov && s[0] == (int64_t)sizeof(T) &&                \
            s[1] == (int64_t)sizeof(T) && (!k.has_mom || sb == (int64_t)sizeof(T))) {                     \
            /* contiguous, plain (heavy-ball) momentum: the same roundings, a loop that vectorizes */    \
            T *CT_RESTRICT P = (T *)p[0], *CT_RESTRICT B = (T *)pb;                                      \
            const T *CT_RESTRICT G = (const T *)p[1];                                                    \
            if (k.has_mom)                                                                               \
                for (int64_t j = 0; j < n; j++) {                                                        \
                    T b = F(G[j], omd, B[j] * mom);                                                      \
                    B[j] = b;                                                                            \
                    P[j] = F(b, nlr, P[j]);                                                              \
                }                                                                                        \
            else                                                                                         \
                for (int64_t j = 0; j < n; j++) P[j] = F(G[j], nlr, P[j]);                               \
            return;                                                                                      \
        }                                                                                                \
        for (int64_t j = 0; j < n; j++) {                                                                \
            T *P = (T *)(p[0] + j * s[0]), *B = (T *)(pb + j * sb);                                      \
            T d = *(const T *)(p[1] + j * s[1]);                                                         \
            if (k.maxim) d = -d;                          /* -d_p_list[i] */                             \
            if (k.l2) d = F(*P, wd, d);                   /* d_p.add(param, alpha=weight_decay) */       \
            if (k.has_mom) {                              /* buf.mul_(momentum).add_(d_p, alpha=1 - dampening) */ \
                T b = k.first ? d : F(d, omd, *B * mom);  /* (a new buffer: torch.clone(d_p)) */         \
                *B = b;                                                                                  \
                d = k.nesterov ? F(b, mom, d) : b;        /* d_p.add(buf, alpha=momentum) or buf */      \
            }                                                                                            \
            *P = F(d, nlr, *P);                           /* param.add_(d_p, alpha=-lr) */               \
        }                                                                                                \
    }
#define CT__FS_ADAM_LOOP(fname, T, F, SQRT, MAX, VEC)                                                    \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) {                       \
        ct__fs_k k;                                                                                      \
        ct__fs_consts(a, &k);                                                                            \
        const T wd = (T)k.wd, decay = (T)k.decay, b1 = (T)k.b1, omb1 = (T)k.omb1, b2 = (T)k.b2;          \
        const T omb2 = (T)k.omb2, eps = (T)k.eps, nss = (T)k.nss, bc2s = (T)k.bc2s;                      \
        T dummy = 0;                                                                                     \
        CT__FS_OPT(4, k.ams, pm, sm, dummy)                                                              \
        int64_t j = VEC(p, s, n, &k);                                                                    \
        for (; j < n; j++) {                                                                             \
            T *P = (T *)(p[0] + j * s[0]), *M = (T *)(p[2] + j * s[2]), *V = (T *)(p[3] + j * s[3]);     \
            T *VM = (T *)(pm + j * sm), g = *(const T *)(p[1] + j * s[1]), pk = *P, den;                 \
            if (k.maxim) g = -g;                          /* -grads[i] */                                \
            if (k.l2) g = F(pk, wd, g);                   /* grad.add(param, alpha=weight_decay) */      \
            if (k.dec) pk = CT__FS_ROUNDED(pk * decay);   /* AdamW: param.mul_(1 - lr * weight_decay) */ \
            T m = F(g, omb1, *M * b1);                    /* exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1) */ \
            T v = F(omb2 * g, g, *V * b2);                /* exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2) */ \
            if (k.ams) {                                  /* torch.maximum(max_exp_avg_sq, exp_avg_sq, out=) */ \
                T w = MAX(*VM, v);                                                                       \
                *VM = w;                                                                                 \
                den = SQRT(w);                                                                           \
            } else {                                                                                     \
                den = SQRT(v);                                                                           \
            }                                                                                            \
            den = den / bc2s + eps;                       /* (.sqrt() / bias_correction2_sqrt).add_(eps) */ \
            *P = pk + nss * m / den;                      /* param.addcdiv_(exp_avg, denom, value=-step_size) */ \
            *M = m;                                                                                      \
            *V = v;                                                                                      \
        }                                                                                                \
    }
#define CT__FS_RMSPROP_LOOP(fname, T, F, SQRT)                                                           \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) {                       \
        ct__fs_k k;                                                                                      \
        ct__fs_consts(a, &k);                                                                            \
        const T wd = (T)k.wd, alpha = (T)k.alpha, oma = (T)k.oma, eps = (T)k.eps, mom = (T)k.mom;        \
        const T nlr = (T)k.nlr;                                                                          \
        T dummy0 = 0, dummy1 = 0;                                                                        \
        CT__FS_OPT(3, k.has_mom, pb, sb, dummy0)                                                         \
        CT__FS_OPT(k.has_mom ? 4 : 3, k.centered, pga, sga, dummy1)                                      \
        for (int64_t j = 0; j < n; j++) {                                                                \
            T *P = (T *)(p[0] + j * s[0]), *SQ = (T *)(p[2] + j * s[2]), *B = (T *)(pb + j * sb);        \
            T *GA = (T *)(pga + j * sga), g = *(const T *)(p[1] + j * s[1]), pk = *P, avg;               \
            if (k.maxim) g = -g;                                                                         \
            if (k.l2) g = F(pk, wd, g);                   /* grad.add(param, alpha=weight_decay) */      \
            T sq = F(oma * g, g, *SQ * alpha);            /* square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha) */ \
            *SQ = sq;                                                                                    \
            if (k.centered) {                                                                            \
                T ga = F(g, oma, *GA * alpha);            /* grad_avg.mul_(alpha).add_(grad, alpha=1 - alpha) */ \
                *GA = ga;                                                                                \
                avg = SQRT(F(-ga, ga, sq));               /* square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_() */ \
            } else {                                                                                     \
                avg = SQRT(sq);                                                                          \
            }                                                                                            \
            avg = avg + eps;                              /* avg.add_(eps) */                            \
            if (k.has_mom) {                                                                             \
                T bm = CT__FS_ROUNDED(*B * mom);          /* buf.mul_(momentum) */                       \
                T b = bm + g / avg;                       /* .addcdiv_(grad, avg) */                     \
                *B = b;                                                                                  \
                *P = F(b, nlr, pk);                       /* param.add_(buf, alpha=-lr) */               \
            } else {                                                                                     \
                *P = pk + nlr * g / avg;                  /* param.addcdiv_(grad, avg, value=-lr) */     \
            }                                                                                            \
        }                                                                                                \
    }
#define CT__FS_ADAGRAD_LOOP(fname, T, F, SQRT)                                                           \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) {                       \
        ct__fs_k k;                                                                                      \
        ct__fs_consts(a, &k);                                                                            \
        const T wd = (T)k.wd, eps = (T)k.eps, nclr = (T)k.nclr;                                          \
        for (int64_t j = 0; j < n; j++) {                                                                \
            T *P = (T *)(p[0] + j * s[0]), *S = (T *)(p[2] + j * s[2]);                                  \
            T g = *(const T *)(p[1] + j * s[1]), pk = *P;                                                \
            if (k.maxim) g = -g;                                                                         \
            if (k.l2) g = F(pk, wd, g);                   /* grad.add(param, alpha=weight_decay) */      \
            T sum = F(g, g, *S);                          /* state_sum.addcmul_(grad, grad, value=1) */  \
            *S = sum;                                                                                    \
            T sd = SQRT(sum) + eps;                       /* state_sum.sqrt().add_(eps) */               \
            *P = pk + nclr * g / sd;                      /* param.addcdiv_(grad, std, value=-clr) */    \
        }                                                                                                \
    }

/* Adam on contiguous float32 with AVX and FMA: 8 lanes at a time (the same
   operations; the sqrt instruction is IEEE's correctly rounded sqrt). */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__AVX__) && defined(__FMA__) && !defined(__CUDACC__) && \
    !defined(CTENSOR_NO_SIMD)
#include <immintrin.h>
static int64_t ct__fs_adam_vec_f32(char **p, const int64_t *s, int64_t n, const ct__fs_k *k) {
    if (s[0] != 4 || s[1] != 4 || s[2] != 4 || s[3] != 4 || (k->ams && s[4] != 4)) return 0;
    const __m256 wd = _mm256_set1_ps((float)k->wd), decay = _mm256_set1_ps((float)k->decay);
    const __m256 b1 = _mm256_set1_ps((float)k->b1), omb1 = _mm256_set1_ps((float)k->omb1);
    const __m256 b2 = _mm256_set1_ps((float)k->b2), omb2 = _mm256_set1_ps((float)k->omb2);
    const __m256 eps = _mm256_set1_ps((float)k->eps), nss = _mm256_set1_ps((float)k->nss);
    const __m256 bc2s = _mm256_set1_ps((float)k->bc2s), sign = _mm256_set1_ps(-0.0f);
    float *pp = (float *)p[0], *pm = (float *)p[2], *pv = (float *)p[3], *pvm = k->ams ? (float *)p[4] : NULL;
    const float *pg = (const float *)p[1];
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
        __m256 P = _mm256_loadu_ps(pp + j), G = _mm256_loadu_ps(pg + j), D;
        if (k->maxim) G = _mm256_xor_ps(G, sign);
        if (k->l2) G = _mm256_fmadd_ps(P, wd, G);
        if (k->dec) P = CT__FS_ROUNDED(_mm256_mul_ps(P, decay));
        __m256 M = _mm256_fmadd_ps(G, omb1, _mm256_mul_ps(_mm256_loadu_ps(pm + j), b1));
        __m256 V = _mm256_fmadd_ps(_mm256_mul_ps(omb2, G), G, _mm256_mul_ps(_mm256_loadu_ps(pv + j), b2));
        if (k->ams) {   /* ct__maxf: NaN wins */
            __m256 X = _mm256_loadu_ps(pvm + j);
            __m256 W = _mm256_blendv_ps(V, X, _mm256_cmp_ps(X, V, _CMP_GT_OQ));
            W = _mm256_blendv_ps(W, V, _mm256_cmp_ps(V, V, _CMP_UNORD_Q));
            W = _mm256_blendv_ps(W, X, _mm256_cmp_ps(X, X, _CMP_UNORD_Q));
            _mm256_storeu_ps(pvm + j, W);
            D = _mm256_sqrt_ps(W);
        } else {
            D = _mm256_sqrt_ps(V);
        }
        D = _mm256_add_ps(_mm256_div_ps(D, bc2s), eps);
        P = _mm256_add_ps(P, _mm256_div_ps(_mm256_mul_ps(nss, M), D));
        _mm256_storeu_ps(pp + j, P);
        _mm256_storeu_ps(pm + j, M);
        _mm256_storeu_ps(pv + j, V);
    }
    return j;
}
#else
static int64_t ct__fs_adam_vec_f32(char **p, const int64_t *s, int64_t n, const ct__fs_k *k) {
    (void)p; (void)s; (void)n; (void)k;
    return 0;
}
#endif
static int64_t ct__fs_novec(char **p, const int64_t *s, int64_t n, const ct__fs_k *k) {
    (void)p; (void)s; (void)n; (void)k;
    return 0;
}
CT__FS_SGD_LOOP(ct__fs_sgd_f32, float, fmaf)
CT__FS_SGD_LOOP(ct__fs_sgd_f64, double, fma)
CT__FS_ADAM_LOOP(ct__fs_adam_f32, float, fmaf, sqrtf, ct__maxf, ct__fs_adam_vec_f32)
CT__FS_ADAM_LOOP(ct__fs_adam_f64, double, fma, sqrt, ct__maxd, ct__fs_novec)
CT__FS_RMSPROP_LOOP(ct__fs_rmsprop_f32, float, fmaf, sqrtf)
CT__FS_RMSPROP_LOOP(ct__fs_rmsprop_f64, double, fma, sqrt)
CT__FS_ADAGRAD_LOOP(ct__fs_adagrad_f32, float, fmaf, sqrtf)
CT__FS_ADAGRAD_LOOP(ct__fs_adagrad_f64, double, fma, sqrt)

static int ct__fs_ops[5] = {-1, -1, -1, -1, -1}, ct__fs_once;
/* the optimizer kind of a fused op (its position in ct__fs_defs) */
static int ct__fs_kind(int op) {
    for (int q = 0; q < 5; q++)
        if (ct__fs_ops[q] == op) return q;
    return 0;
}
/* tensors the fused op of this kind and these flags takes */
static int ct__fs_nin(int kind, const ct__attrs *a) {
    switch (kind) {
    case CT__OPT_SGD: return a->s[1] != 0 ? 3 : 2;
    case CT__OPT_ADAM: case CT__OPT_ADAMW: return (a->flags & CT__FS_AMSGRAD) ? 5 : 4;
    case CT__OPT_RMSPROP: return 3 + (a->s[4] > 0) + ((a->flags & CT__FS_CENTERED) != 0);
    default: return 3;
    }
}
static int ct__meta_fused_step(ct__call *c) {
    ct_tensor *p = c->in[0];
    const char *nm = ct__opdef_get(c->op)->name;
    int nin = ct__fs_nin(ct__fs_kind(c->op), c->a);
    if (c->nin != nin) return ct__failed(CT_ERR_ARG, "%s: expected %d tensors, got %d", nm, nin, c->nin);
    if (p->dtype != CT_FLOAT32 && p->dtype != CT_FLOAT64)
        return ct__failed(CT_ERR_DTYPE, "%s: expected float32 or float64 tensors, got %s", nm, ct_dtype_name(p->dtype));
    for (int i = 0; i < c->nin; i++) {
        ct_tensor *x = c->in[i];
        if (x->dtype != p->dtype || !ct_same_shape(x, p))
            return ct__failed(CT_ERR_SHAPE, "%s: tensor %d is %s %s, expected %s %s", nm, i, ct_dtype_name(x->dtype), CT__SHAPE(x),
                              ct_dtype_name(p->dtype), CT__SHAPE(p));
        if (i != 1 && !ct__is_dense(x)) return ct__failed(CT_ERR_ARG, "%s: tensor %d overlaps itself or is not dense", nm, i);
        for (int j = 0; j < i; j++)
            if (x->storage == c->in[j]->storage) return ct__failed(CT_ERR_ARG, "%s: tensors %d and %d share memory", nm, j, i);
    }
    c->nout = 1;
    c->oi[0].kind = CT__OUT_INPLACE;
    c->oi[0].src = 0;
    return 0;
}
static int ct__k_fused_step(ct__call *c) {
    static const ct__loop_fn loops[5][2] = {
        {ct__fs_sgd_f32, ct__fs_sgd_f64}, {ct__fs_adam_f32, ct__fs_adam_f64}, {ct__fs_adam_f32, ct__fs_adam_f64},
        {ct__fs_rmsprop_f32, ct__fs_rmsprop_f64}, {ct__fs_adagrad_f32, ct__fs_adagrad_f64}};
    ct_tensor *ops[CT__ITER_MAXOP] = {NULL};   /* zeroed: the GPU machine's host gcc under nvcc -O2 reports it maybe uninitialized */
    int kind = ct__fs_kind(c->op);
    ct__attrs a = *c->a;   /* the loops' arguments: the declared attributes and the kind */
    a.flags &= ct__fs_flag_mask[kind];
    a.mode = kind;
    for (int i = 0; i < c->nin; i++) ops[i] = c->in[i];
    ct__iter it;
    ct__iter_init(&it, c->nin, ops, ops[0]->ndim, ops[0]->shape);
    ct__iter_run(&it, loops[kind][ops[0]->dtype == CT_FLOAT64], &a);
    for (int i = 2; i < c->nin; i++) CT__ATOMIC_INC(&c->in[i]->storage->version);   /* the dispatcher bumps in[0]'s */
    return 0;
}
#define CT__FS_DEF(name, schema) {"ct::" name, name, "", -1, 1, CT__OPF_INPLACE | CT__OPF_NONDIFF, schema, ct__meta_fused_step, ct__k_fused_step, ct__bw_none, CT__SAVE_NONE}
#define CT__FS_ADAM_SCHEMA "float lr=s0, float beta1=s1, float beta2=s2, float eps=s3, float weight_decay=s4, float step=s5, bool maximize=f0, bool amsgrad=f1"
static const ct__opdef ct__fs_defs[5] = {
    CT__FS_DEF("_fused_sgd_", "float lr=s0, float momentum=s1, float dampening=s2, float weight_decay=s3, bool maximize=f0, bool nesterov=f2, bool new_momentum_buffer=f3"),
    CT__FS_DEF("_fused_adam_", CT__FS_ADAM_SCHEMA),
    CT__FS_DEF("_fused_adamw_", CT__FS_ADAM_SCHEMA),
    CT__FS_DEF("_fused_rmsprop_", "float lr=s0, float alpha=s1, float eps=s2, float weight_decay=s3, float momentum=s4, bool maximize=f0, bool centered=f4"),
    CT__FS_DEF("_fused_adagrad_", "float lr=s0, float lr_decay=s1, float eps=s2, float weight_decay=s3, float step=s4, bool maximize=f0")};
static void ct__fs_register(void) {
    int base = ct__register_ops(ct__fs_defs, 5);
    for (int q = 0; q < 5; q++) ct__fs_ops[q] = base < 0 ? -1 : base + q;
}
static void ct__fs_register_now(void) { ct__once(&ct__fs_once, ct__fs_register); }
CT__AT_LOAD(ct__fs_register_now)
/* The fused op applies to float32/float64 tensors of one shape and device,
   dense (but the grad), sharing no memory, on the CPU or on a GPU whose backend
   has a kernel for it (ctensor_cuda.h's); otherwise the op chain runs. */
static int ct__fs_ok(int kind, ct_tensor *const *t, int nt) {
    ct_dtype dt = t[0]->dtype;
    if (dt != CT_FLOAT32 && dt != CT_FLOAT64) return 0;
    for (int i = 0; i < nt; i++) {
        if (!ct_device_eq(t[i]->device, t[0]->device) || t[i]->dtype != dt || !ct_same_shape(t[i], t[0])) return 0;
        if (i != 1 && !ct__is_dense(t[i])) return 0;
        for (int j = 0; j < i; j++)
            if (t[i]->storage == t[j]->storage) return 0;
    }
    ct__once(&ct__fs_once, ct__fs_register);
    int op = ct__fs_ops[kind];
    if (op < 0) return 0;
    if (t[0]->device.type == CT_CPU) return 1;
    return t[0]->device.type == CT_CUDA && ct__kernels[CT_BACKEND_CUDA][op] != NULL;   /* (read as the dispatcher reads it) */
}
static int ct__fs_run(int kind, int nt, ct_tensor **t, int nd, const double *d, int flags) {
    ct__attrs a;
    ct__attrs_init(&a);
    for (int q = 0; q < nd && q < 8; q++) a.s[q] = d[q];
    a.flags = flags;
    ct__call c;
    ct__call_init(&c, ct__fs_ops[kind], nt, t, &a);
    return ct__dispatch(&c) < 0 ? -1 : 0;
}

/* ---- the updates, one parameter at a time (inside a scope, under no_grad):
   the fused op when it applies, else the op chain, line for line ---- */
static int ct__step_sgd(ct__optgroup *G, int i) {
    const double *h = G->hp;
    double lr = h[CT__HP_LR], momentum = h[CT__HP_MOMENTUM], dampening = h[CT__HP_DAMPENING], wd = h[CT__HP_WEIGHT_DECAY];
    int maximize = h[CT__HP_MAXIMIZE] != 0, nesterov = h[CT__HP_NESTEROV] != 0;
    ct_tensor *p = G->params[i], *d = p->grad;
    ct__pstate *st = &G->st[i];
    ct_tensor *t[3];
    t[0] = p; t[1] = d; t[2] = st->buf[0];
    /* (a buffer still to be made would be a dense zeros_like(p): checking p and d is enough) */
    if (ct__fs_ok(CT__OPT_SGD, t, momentum != 0 && st->buf[0] ? 3 : 2)) {
        int first = 0;
        if (momentum != 0 && !st->buf[0]) {
            if (!(st->buf[0] = ct__opt_newbuf(p, 0.0))) return -1;
            st->init = 1;
            first = 1;
        }
        t[2] = st->buf[0];
        double dd[4];
        dd[0] = lr; dd[1] = momentum; dd[2] = dampening; dd[3] = wd;
        return ct__fs_run(CT__OPT_SGD, momentum != 0 ? 3 : 2, t, 4, dd,
                          (maximize ? CT__FS_MAXIMIZE : 0) | (nesterov ? CT__FS_NESTEROV : 0) | (first ? CT__FS_FIRST : 0));
    }
    if (maximize) d = ct_neg(d);                                     /* d_p = d_p_list[i] if not maximize else -d_p_list[i] */
    if (wd != 0) d = ct_add_alpha(d, p, wd);                         /* d_p = d_p.add(param, alpha=weight_decay) */
    if (momentum != 0) {
        ct_tensor *buf = st->buf[0];
        if (!buf) {                                                  /* buf = torch.clone(d_p).detach() */
            ct_tensor *c = ct_clone(d);
            if (!c) return -1;
            buf = st->buf[0] = ct_retain(c);
            st->init = 1;
        } else {                                                     /* buf.mul_(momentum).add_(d_p, alpha=1 - dampening) */
            ct_add_alpha_(ct_mul_scalar_(buf, momentum), d, 1 - dampening);
        }
        d = nesterov ? ct_add_alpha(d, buf, momentum) : buf;         /* d_p = d_p.add(buf, alpha=momentum) */
    }
    return ct_add_alpha_(p, d, -lr) ? 0 : -1;                        /* param.add_(d_p, alpha=-lr) */
}

static int ct__step_adam(ct_optimizer *opt, ct__optgroup *G, int i) {
    const double *h = G->hp;
    double lr = h[CT__HP_LR], b1 = h[CT__HP_BETA1], b2 = h[CT__HP_BETA2], eps = h[CT__HP_EPS], wd = h[CT__HP_WEIGHT_DECAY];
    int adamw = opt->kind == CT__OPT_ADAMW, ams = h[CT__HP_AMSGRAD] != 0, maximize = h[CT__HP_MAXIMIZE] != 0;
    ct_tensor *p = G->params[i];
    ct__pstate *st = &G->st[i];
    if (!st->init || !st->buf[0] || !st->buf[1]) {
        /* lazy state initialization: step = tensor(0.), exp_avg, exp_avg_sq (, max_exp_avg_sq) = zeros_like(p) */
        ct__pstate_clear(st);
        for (int b = 0; b < 2; b++)
            if (!(st->buf[b] = ct__opt_newbuf(p, 0.0))) return -1;
        st->init = 1;
    }
    if (ams && !st->buf[2] && !(st->buf[2] = ct__opt_newbuf(p, 0.0))) return -1;
    st->step = (double)(float)(st->step + 1.0);                      /* step_t += 1 (a float32 tensor) */
    double step = st->step;
    ct_tensor *m = st->buf[0], *v = st->buf[1], *vmax = ams ? st->buf[2] : NULL, *t[5];
    t[0] = p; t[1] = p->grad; t[2] = m; t[3] = v; t[4] = vmax;
    if (ct__fs_ok(opt->kind, t, 4 + ams)) {
        double dd[6];
        dd[0] = lr; dd[1] = b1; dd[2] = b2; dd[3] = eps; dd[4] = wd; dd[5] = step;
        return ct__fs_run(opt->kind, 4 + ams, t, 6, dd, (ams ? CT__FS_AMSGRAD : 0) | (maximize ? CT__FS_MAXIMIZE : 0));
    }
    ct_tensor *g = p->grad;
    if (maximize) g = ct_neg(g);                                     /* grad = grads[i] if not maximize else -grads[i] */
    if (adamw) {
        if (wd != 0) ct_mul_scalar_(p, 1 - ct__mul(lr, wd));         /* param.mul_(1 - lr * weight_decay) */
    } else if (wd != 0) {
        g = ct_add_alpha(g, p, wd);                                  /* grad = grad.add(param, alpha=weight_decay) */
    }
    ct_add_alpha_(ct_mul_scalar_(m, b1), g, 1 - b1);                 /* exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1) */
    ct_addcmul_(ct_mul_scalar_(v, b2), g, g, 1 - b2);                /* exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2) */
    double step_size = lr / (1 - pow(b1, step));                     /* lr / (1 - beta1 ** step) */
    double bc2_sqrt = sqrt(1 - pow(b2, step));                       /* math.sqrt(1 - beta2 ** step) */
    ct_tensor *denom;
    if (ams) {
        ct_copy_(vmax, ct_maximum(vmax, v));                         /* torch.maximum(max_exp_avg_sqs[i], exp_avg_sq, out=...) */
        denom = ct_add_scalar_(ct_div_scalar(ct_sqrt(vmax), bc2_sqrt), eps);
    } else {
        denom = ct_add_scalar_(ct_div_scalar(ct_sqrt(v), bc2_sqrt), eps);   /* (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps) */
    }
    return ct_addcdiv_(p, m, denom, -step_size) ? 0 : -1;            /* param.addcdiv_(exp_avg, denom, value=-step_size) */
}

static int ct__step_rmsprop(ct__optgroup *G, int i) {
    const double *h = G->hp;
    double lr = h[CT__HP_LR], alpha = h[CT__HP_ALPHA], eps = h[CT__HP_EPS], wd = h[CT__HP_WEIGHT_DECAY], momentum = h[CT__HP_MOMENTUM];
    int centered = h[CT__HP_CENTERED] != 0, maximize = h[CT__HP_MAXIMIZE] != 0;
    ct_tensor *p = G->params[i];
    ct__pstate *st = &G->st[i];
    if (!st->init || !st->buf[0]) {   /* step = 0; square_avg (, momentum_buffer, grad_avg) = zeros_like(p) */
        ct__pstate_clear(st);
        if (!(st->buf[0] = ct__opt_newbuf(p, 0.0))) return -1;
        st->init = 1;
    }
    /* buffers for options turned on after the state was made (PyTorch would raise KeyError) */
    if (momentum > 0 && !st->buf[1] && !(st->buf[1] = ct__opt_newbuf(p, 0.0))) return -1;
    if (centered && !st->buf[2] && !(st->buf[2] = ct__opt_newbuf(p, 0.0))) return -1;
    st->step += 1;                                                   /* state['step'] += 1 */
    ct_tensor *t[5];
    int nt = 3;
    t[0] = p; t[1] = p->grad; t[2] = st->buf[0];
    if (momentum > 0) t[nt++] = st->buf[1];
    if (centered) t[nt++] = st->buf[2];
    if (ct__fs_ok(CT__OPT_RMSPROP, t, nt)) {
        double dd[5];
        dd[0] = lr; dd[1] = alpha; dd[2] = eps; dd[3] = wd; dd[4] = momentum;
        return ct__fs_run(CT__OPT_RMSPROP, nt, t, 5, dd, (maximize ? CT__FS_MAXIMIZE : 0) | (centered ? CT__FS_CENTERED : 0));
    }
    ct_tensor *g = p->grad, *sq = st->buf[0], *avg;
    if (maximize) g = ct_neg(g);
    if (wd != 0) g = ct_add_alpha(g, p, wd);                         /* grad = grad.add(param, alpha=weight_decay) */
    ct_addcmul_(ct_mul_scalar_(sq, alpha), g, g, 1 - alpha);         /* square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha) */
    if (centered) {
        ct_tensor *ga = st->buf[2];
        ct_add_alpha_(ct_mul_scalar_(ga, alpha), g, 1 - alpha);      /* grad_avg.mul_(alpha).add_(grad, alpha=1 - alpha) */
        avg = ct_sqrt(ct_addcmul(sq, ga, ga, -1));                   /* square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_() */
    } else {
        avg = ct_sqrt(sq);                                           /* square_avg.sqrt() */
    }
    avg = ct_add_scalar_(avg, eps);                                  /* avg.add_(eps) */
    if (momentum > 0) {
        ct_tensor *buf = st->buf[1];
        ct_addcdiv_(ct_mul_scalar_(buf, momentum), g, avg, 1.0);     /* buf.mul_(momentum).addcdiv_(grad, avg) */
        return ct_add_alpha_(p, buf, -lr) ? 0 : -1;                  /* param.add_(buf, alpha=-lr) */
    }
    return ct_addcdiv_(p, g, avg, -lr) ? 0 : -1;                     /* param.addcdiv_(grad, avg, value=-lr) */
}

static int ct__step_adagrad(ct__optgroup *G, int i) {
    const double *h = G->hp;
    double lr = h[CT__HP_LR], lr_decay = h[CT__HP_LR_DECAY], eps = h[CT__HP_EPS], wd = h[CT__HP_WEIGHT_DECAY];
    int maximize = h[CT__HP_MAXIMIZE] != 0;
    ct_tensor *p = G->params[i];
    ct__pstate *st = &G->st[i];
    if (!st->init || !st->buf[0]) {
        ct__pstate_clear(st);
        if (!(st->buf[0] = ct__opt_newbuf(p, h[CT__HP_INIT_ACC]))) return -1;
        st->init = 1;
    }
    st->step = (double)(float)(st->step + 1.0);                      /* step_t += 1; step = step_t.item() */
    double step = st->step;
    ct_tensor *g = p->grad, *sum = st->buf[0], *t[3];
    t[0] = p; t[1] = g; t[2] = sum;
    if (ct__fs_ok(CT__OPT_ADAGRAD, t, 3)) {
        double dd[5];
        dd[0] = lr; dd[1] = lr_decay; dd[2] = eps; dd[3] = wd; dd[4] = step;
        return ct__fs_run(CT__OPT_ADAGRAD, 3, t, 5, dd, maximize ? CT__FS_MAXIMIZE : 0);
    }
    if (maximize) g = ct_neg(g);
    if (wd != 0) g = ct_add_alpha(g, p, wd);                         /* grad = grad.add(param, alpha=weight_decay) */
    double clr = lr / (1 + ct__mul(step - 1, lr_decay));             /* lr / (1 + (step - 1) * lr_decay) */
    ct_addcmul_(sum, g, g, 1.0);                                     /* state_sum.addcmul_(grad, grad, value=1) */
    ct_tensor *std_ = ct_add_scalar_(ct_sqrt(sum), eps);             /* state_sum.sqrt().add_(eps) */
    return ct_addcdiv_(p, g, std_, -clr) ? 0 : -1;                   /* param.addcdiv_(grad, std, value=-clr) */
}

CTENSOR_API ct_status ct_step(ct_optimizer *opt) {
    if (!opt) { ct_set_error(CT_ERR_ARG, "step: optimizer is NULL"); return CT_ERR_ARG; }
    const char *nm = opt->k->name;
    /* every gradient is checked first: a step happens whole or not at all */
    for (int g = 0, idx = 0; g < opt->ngroups; g++)
        for (int i = 0; i < opt->groups[g].n; i++, idx++) {
            ct_tensor *p = opt->groups[g].params[i], *gr = p->grad;
            if (!gr) continue;
            if (!ct_same_shape(gr, p)) {
                ct_set_error(CT_ERR_SHAPE, "%s.step: the gradient of parameter %d has shape %s, but the parameter has shape %s",
                             nm, idx, CT__SHAPE(gr), CT__SHAPE(p));
                return CT_ERR_SHAPE;
            }
            if (!(CT__ISFLOAT(gr->dtype) && CT__ISFLOAT(p->dtype)) && !(CT__ISCOMPLEX(p->dtype) && gr->dtype == p->dtype)) {
                ct_set_error(CT_ERR_DTYPE, "%s.step: parameter %d (%s) and its gradient (%s) must be floating point or complex", nm, idx,
                             ct_dtype_name(p->dtype), ct_dtype_name(gr->dtype));
                return CT_ERR_DTYPE;
            }
            if (!ct_device_eq(gr->device, p->device)) {
                ct_set_error(CT_ERR_DEVICE, "%s.step: the gradient of parameter %d is on another device than the parameter", nm, idx);
                return CT_ERR_DEVICE;
            }
        }
    int prev = ct_set_grad_enabled(0), rc = 0;
    for (int g = 0; g < opt->ngroups && !rc; g++) {
        ct__optgroup *G = &opt->groups[g];
        for (int i = 0; i < G->n && !rc; i++) {
            if (!G->params[i]->grad) continue;
            int s = ct_scope_begin();
            /* a complex parameter steps as its view_as_real, with its gradient and state
               viewed the same way: PyTorch's optimizers do this (each part on its own) */
            ct_tensor *orig = G->params[i], *obuf[3] = {NULL, NULL, NULL}, *vbuf[3] = {NULL, NULL, NULL};
            if (CT__ISCOMPLEX(orig->dtype)) {
                ct_tensor *pr = ct_view_as_real(orig), *gr = pr ? ct_view_as_real(orig->grad) : NULL;
                if (!gr) { rc = -1; ct_scope_end(s); break; }
                pr->grad = ct_retain(gr);
                G->params[i] = pr;
                for (int b = 0; b < 3; b++)
                    if (G->st[i].buf[b] && CT__ISCOMPLEX(G->st[i].buf[b]->dtype)) {
                        obuf[b] = G->st[i].buf[b];
                        if (!(vbuf[b] = ct_view_as_real(obuf[b]))) rc = -1;
                        else G->st[i].buf[b] = vbuf[b];
                    }
            }
            if (!rc) switch (opt->kind) {
            case CT__OPT_SGD: rc = ct__step_sgd(G, i); break;
            case CT__OPT_ADAM: case CT__OPT_ADAMW: rc = ct__step_adam(opt, G, i); break;
            case CT__OPT_RMSPROP: rc = ct__step_rmsprop(G, i); break;
            default: rc = ct__step_adagrad(G, i); break;
            }
            G->params[i] = orig;
            for (int b = 0; b < 3; b++)
                if (obuf[b] && G->st[i].buf[b] == vbuf[b]) G->st[i].buf[b] = obuf[b];
            ct_scope_end(s);
        }
    }
    ct_set_grad_enabled(prev);
    return rc ? (ct_last_error_code() != CT_OK ? ct_last_error_code() : CT_ERR_STATE) : CT_OK;
}

/* ---- optimizer state dict ---- */
static ct_status ct__osd_add(ct_state_dict *sd, int *cap, ct_tensor *t, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static ct_status ct__osd_add(ct_state_dict *sd, int *cap, ct_tensor *t, const char *fmt, ...) {
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    if (!t) return ct_last_error_code() != CT_OK ? ct_last_error_code() : CT_ERR_MEMORY;
    return ct__sd_add(sd, cap, "", name, t) ? CT_ERR_MEMORY : CT_OK;
}
static ct_tensor *ct__f64_vec(int n, const double *v) {
    int64_t shape[1];
    shape[0] = n;
    return ct_from_data_n(v, CT_FLOAT64, 1, shape);
}
CTENSOR_API ct_status ct_optim_state_dict(const ct_optimizer *opt, ct_state_dict *out) {
    if (!out) { ct_set_error(CT_ERR_ARG, "state_dict: output is NULL"); return CT_ERR_ARG; }
    out->n = 0;
    out->items = NULL;
    if (!opt) { ct_set_error(CT_ERR_ARG, "state_dict: optimizer is NULL"); return CT_ERR_ARG; }
    const ct__optkind *k = opt->k;
    int cap = 0, idx = 0;
    ct_status rc = CT_OK;
    for (int g = 0; g < opt->ngroups && !rc; g++)
        for (int i = 0; i < opt->groups[g].n && !rc; i++, idx++) {
            const ct__pstate *st = &opt->groups[g].st[i];
            if (!st->init) continue;
            if (k->has_step) rc = ct__osd_add(out, &cap, ct_scalar_tensor(st->step, CT_FLOAT64), "state.%d.step", idx);
            for (int b = 0; b < k->nbufs && !rc; b++)
                if (st->buf[b]) rc = ct__osd_add(out, &cap, st->buf[b], "state.%d.%s", idx, k->bufs[b]);
        }
    idx = 0;
    for (int g = 0; g < opt->ngroups && !rc; g++) {
        const ct__optgroup *G = &opt->groups[g];
        for (int q = 0; q < k->nkeys && !rc; q++) {
            int h = k->keys[q];
            if (h == CT__HP_BETA1) {
                double betas[2];
                betas[0] = G->hp[CT__HP_BETA1];
                betas[1] = G->hp[CT__HP_BETA2];
                rc = ct__osd_add(out, &cap, ct__f64_vec(2, betas), "param_groups.%d.betas", g);
            } else {
                rc = ct__osd_add(out, &cap, ct_scalar_tensor(G->hp[h], CT_FLOAT64), "param_groups.%d.%s", g, ct__hp_names[h]);
            }
        }
        for (int h = CT__HP_SCHED_FIRST; h < CT__HP_COUNT && !rc; h++)
            if (G->sched_has & (1u << (h - CT__HP_SCHED_FIRST)))
                rc = ct__osd_add(out, &cap, ct_scalar_tensor(G->hp[h], CT_FLOAT64), "param_groups.%d.%s", g, ct__hp_names[h]);
        if (!rc) {
            int64_t shape[1];
            shape[0] = G->n;
            ct_tensor *ids = ct_empty_n(CT_INT64, 1, shape);
            if (ids)
                for (int i = 0; i < G->n; i++) ((int64_t *)ct_data_ptr(ids))[i] = idx + i;
            rc = ct__osd_add(out, &cap, ids, "param_groups.%d.params", g);
        }
        idx += G->n;
    }
    if (rc) {
        ct_state_dict_free(out);
        if (ct_last_error_code() == CT_OK) ct_set_error(rc, "state_dict: out of memory");
        return rc;
    }
    return CT_OK;
}

/* "prefix.<int>.<rest>" -> index and rest; 0 when the name does not have that form */
static int ct__osd_parse(const char *name, const char *prefix, int *index, const char **rest) {
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) || name[n] != '.') return 0;
    const char *q = name + n + 1;
    if (*q < '0' || *q > '9') return 0;
    long v = 0;
    while (*q >= '0' && *q <= '9') {
        v = v * 10 + (*q++ - '0');
        if (v > 1000000000L) return 0;
    }
    if (*q != '.' || !q[1]) return 0;
    *index = (int)v;
    *rest = q + 1;
    return 1;
}
static int ct__osd_numel_ok(const ct_tensor *t, int64_t n) { return t && ct_numel(t) == n; }

CTENSOR_API ct_status ct_optim_load_state_dict(ct_optimizer *opt, const ct_state_dict *sd) {
    if (!opt || !sd) { ct_set_error(CT_ERR_ARG, "load_state_dict: optimizer or state dict is NULL"); return CT_ERR_ARG; }
    const ct__optkind *k = opt->k;
    const char *nm = k->name;
    int total = 0;
    for (int g = 0; g < opt->ngroups; g++) total += opt->groups[g].n;
    /* working copies: new settings per group, the saved id -> parameter map,
       and for each parameter the entry index of each state key (-1: none) */
    double *nhp = CT__NEW_ARRAY(double, opt->ngroups * CT__HP_COUNT);
    uint32_t *nsched = (uint32_t *)ct__calloc1(sizeof(uint32_t) * (size_t)(opt->ngroups > 0 ? opt->ngroups : 1));
    int *ids = CT__NEW_ARRAY(int, total);                 /* saved id of parameter j */
    int *skey = CT__NEW_ARRAY(int, total * 4);            /* [j][0] step, [j][1 + b] buffer b */
    int *gseen = (int *)ct__calloc1(sizeof(int) * (size_t)(opt->ngroups > 0 ? opt->ngroups : 1));
    ct_tensor **fresh = (ct_tensor **)ct__calloc1(sizeof(ct_tensor *) * (size_t)(total * 3 > 0 ? total * 3 : 1));
    ct_status rc = CT_OK;
    char why[600] = "";
    int prev = ct_set_grad_enabled(0), scope = ct_scope_begin();
    if (!nhp || !nsched || !ids || !skey || !gseen || !fresh) { rc = CT_ERR_MEMORY; snprintf(why, sizeof why, "out of memory"); goto done; }
    for (int j = 0; j < total * 4; j++) skey[j] = -1;
    for (int j = 0; j < total; j++) ids[j] = -1;
    for (int g = 0; g < opt->ngroups; g++)
        for (int h = 0; h < CT__HP_COUNT; h++) nhp[g * CT__HP_COUNT + h] = NAN;
    /* 1. groups: count, sizes, parameter ids, settings */
    {
        int maxg = -1;
        for (int e = 0; e < sd->n; e++) {
            int gi;
            const char *rest;
            if (sd->items[e].name && ct__osd_parse(sd->items[e].name, "param_groups", &gi, &rest) && gi > maxg) maxg = gi;
        }
        int ngs = 0;
        for (int gi = 0; gi <= maxg && gi < 1000000; gi++) {
            int found = 0;
            for (int e = 0; e < sd->n && !found; e++) {
                int x;
                const char *rest;
                found = sd->items[e].name && ct__osd_parse(sd->items[e].name, "param_groups", &x, &rest) && x == gi;
            }
            ngs += found;
        }
        if (ngs != opt->ngroups || maxg + 1 != opt->ngroups) {
            rc = CT_ERR_ARG;
            snprintf(why, sizeof why, "loaded state dict has a different number of parameter groups (%d, the optimizer has %d)",
                     maxg + 1, opt->ngroups);
            goto done;
        }
    }
    for (int e = 0; e < sd->n && !rc; e++) {
        const char *name = sd->items[e].name, *rest;
        ct_tensor *t = sd->items[e].tensor;
        int gi;
        if (!name) { rc = CT_ERR_ARG; snprintf(why, sizeof why, "an entry has no name"); break; }
        if (ct__osd_parse(name, "state", &gi, &rest)) continue;
        if (!ct__osd_parse(name, "param_groups", &gi, &rest)) {
            rc = CT_ERR_ARG;
            snprintf(why, sizeof why, "unexpected key \"%s\" (keys are state.<i>.<name> and param_groups.<g>.<name>)", name);
            break;
        }
        ct__optgroup *G = &opt->groups[gi];
        double *hp = nhp + gi * CT__HP_COUNT;
        if (!t) { rc = CT_ERR_ARG; snprintf(why, sizeof why, "\"%s\" is NULL", name); break; }
        if (!strcmp(rest, "params")) {
            if (ct_numel(t) != G->n || t->ndim != 1 || CT__ISFLOAT(t->dtype)) {
                rc = CT_ERR_ARG;
                snprintf(why, sizeof why, "loaded state dict contains a parameter group that doesn't match the size of "
                                          "optimizer's group (param_groups.%d.params has %lld entries, the group has %d)",
                         gi, (long long)ct_numel(t), G->n);
                break;
            }
            int base = 0;
            for (int g = 0; g < gi; g++) base += opt->groups[g].n;
            for (int i = 0; i < G->n; i++) {
                double v = ct_item(ct_select(t, 0, i));
                if (!(v >= 0 && v < 1e9)) { rc = CT_ERR_ARG; snprintf(why, sizeof why, "\"%s\" holds a negative index", name); break; }
                ids[base + i] = (int)v;
            }
            gseen[gi] = 1;
            continue;
        }
        int h = -1;
        if (!strcmp(rest, "betas") && ct__kind_has(k, CT__HP_BETA1)) h = CT__HP_BETA1;
        for (int q = 0; q < CT__HP_COUNT && h < 0; q++)
            if (q != CT__HP_BETA1 && q != CT__HP_BETA2 && !strcmp(rest, ct__hp_names[q]) && ct__kind_has(k, q)) h = q;
        if (h < 0) {
            rc = CT_ERR_ARG;
            snprintf(why, sizeof why, "unexpected key \"%s\" (%s has no setting '%s')", name, nm, rest);
            break;
        }
        if (!ct__osd_numel_ok(t, h == CT__HP_BETA1 ? 2 : 1)) {
            rc = CT_ERR_SHAPE;
            snprintf(why, sizeof why, "\"%s\" has shape %s, expected %s", name, CT__SHAPE(t), h == CT__HP_BETA1 ? "[2]" : "[]");
            break;
        }
        if (h == CT__HP_BETA1) {
            ct_tensor *f = ct_contiguous(ct_to_device_dtype(t, ct_cpu(), CT_FLOAT64));   /* read on the host */
            if (!f) { rc = ct_last_error_code(); snprintf(why, sizeof why, "%.500s", ct_last_error()); break; }
            hp[CT__HP_BETA1] = ((const double *)ct_data_ptr(f))[0];
            hp[CT__HP_BETA2] = ((const double *)ct_data_ptr(f))[1];
        } else {
            hp[h] = ct_item(t);
            if (h >= CT__HP_SCHED_FIRST) nsched[gi] |= 1u << (h - CT__HP_SCHED_FIRST);
        }
    }
    if (rc) goto done;
    for (int g = 0; g < opt->ngroups && !rc; g++) {
        if (!gseen[g]) { rc = CT_ERR_ARG; snprintf(why, sizeof why, "missing key \"param_groups.%d.params\"", g); break; }
        for (int q = 0; q < k->nkeys; q++) {
            int h = k->keys[q];
            if (nhp[g * CT__HP_COUNT + h] != nhp[g * CT__HP_COUNT + h]) {
                rc = CT_ERR_ARG;
                snprintf(why, sizeof why, "missing key \"param_groups.%d.%s\"", g, h == CT__HP_BETA1 ? "betas" : ct__hp_names[h]);
                break;
            }
        }
    }
    if (rc) goto done;
    for (int a = 0; a < total && !rc; a++)
        for (int b = 0; b < a; b++)
            if (ids[a] == ids[b]) { rc = CT_ERR_ARG; snprintf(why, sizeof why, "parameter index %d appears twice in param_groups", ids[a]); break; }
    if (rc) goto done;
    /* 2. state: keys, shapes, completeness */
    for (int e = 0; e < sd->n && !rc; e++) {
        const char *name = sd->items[e].name, *rest;
        ct_tensor *t = sd->items[e].tensor;
        int id, j = -1, b = -1;
        if (!ct__osd_parse(name, "state", &id, &rest)) continue;
        for (int q = 0; q < total && j < 0; q++)
            if (ids[q] == id) j = q;
        if (j < 0) { rc = CT_ERR_ARG; snprintf(why, sizeof why, "unexpected key \"%s\" (no parameter has index %d)", name, id); break; }
        if (!(k->has_step && !strcmp(rest, "step"))) {
            for (int q = 0; q < k->nbufs; q++)
                if (!strcmp(rest, k->bufs[q])) b = q;
            if (b < 0) { rc = CT_ERR_ARG; snprintf(why, sizeof why, "unexpected key \"%s\" (%s keeps no '%s')", name, nm, rest); break; }
        }
        /* parameter j */
        int gj = 0, ij = j;
        while (ij >= opt->groups[gj].n) ij -= opt->groups[gj++].n;
        ct_tensor *p = opt->groups[gj].params[ij];
        if (!t) { rc = CT_ERR_ARG; snprintf(why, sizeof why, "\"%s\" is NULL", name); break; }
        if (b < 0) {
            if (ct_numel(t) != 1) { rc = CT_ERR_SHAPE; snprintf(why, sizeof why, "\"%s\" has shape %s, expected []", name, CT__SHAPE(t)); break; }
            skey[j * 4] = e;
        } else {
            if (!ct_same_shape(t, p)) {
                rc = CT_ERR_SHAPE;
                snprintf(why, sizeof why, "size mismatch for %s: copying a tensor with shape %s from checkpoint, the shape of "
                                          "parameter %d in the optimizer is %s", name, CT__SHAPE(t), j, CT__SHAPE(p));
                break;
            }
            skey[j * 4 + 1 + b] = e;
        }
    }
    if (rc) goto done;
    for (int j = 0, gj = 0, ij = 0; j < total && !rc; j++, ij++) {
        while (ij >= opt->groups[gj].n) { ij = 0; gj++; }
        int any = 0;
        for (int q = 0; q < 4; q++) any |= skey[j * 4 + q] >= 0;
        if (!any) continue;
        const double *hp = nhp + gj * CT__HP_COUNT;
        int need[4] = {k->has_step, 1, 0, 0};
        if (opt->kind == CT__OPT_ADAM || opt->kind == CT__OPT_ADAMW) { need[2] = 1; need[3] = hp[CT__HP_AMSGRAD] != 0; }
        if (opt->kind == CT__OPT_RMSPROP) { need[2] = hp[CT__HP_MOMENTUM] > 0; need[3] = hp[CT__HP_CENTERED] != 0; }
        for (int q = 0; q < 4; q++)
            if (need[q] && skey[j * 4 + q] < 0) {
                rc = CT_ERR_ARG;
                snprintf(why, sizeof why, "missing key \"state.%d.%s\"", ids[j], q == 0 ? "step" : k->bufs[q - 1]);
                break;
            }
    }
    if (rc) goto done;
    /* 3. copies of the saved state in each parameter's dtype (PyTorch's cast()),
       made before anything changes, so that a failure leaves the optimizer as it was */
    for (int j = 0, gj = 0, ij = 0; j < total && !rc; j++, ij++) {
        while (ij >= opt->groups[gj].n) { ij = 0; gj++; }
        ct_tensor *p = opt->groups[gj].params[ij];
        for (int b = 0; b < k->nbufs && !rc; b++) {
            int e = skey[j * 4 + 1 + b];
            if (e < 0) continue;
            ct_tensor *f = ct__opt_newbuf(p, 0.0);
            fresh[j * 3 + b] = f;
            if (!f || !ct_copy_(f, sd->items[e].tensor)) { rc = ct_last_error_code(); snprintf(why, sizeof why, "%.500s", ct_last_error()); }
        }
    }
    if (rc) goto done;
    /* 4. commit */
    for (int g = 0; g < opt->ngroups; g++) {
        ct__optgroup *G = &opt->groups[g];
        for (int h = 0; h < CT__HP_COUNT; h++)
            if (h < CT__HP_SCHED_FIRST ? ct__kind_has(k, h) : (nsched[g] & (1u << (h - CT__HP_SCHED_FIRST))) != 0)
                G->hp[h] = nhp[g * CT__HP_COUNT + h];
        G->sched_has = nsched[g];
    }
    for (int j = 0, gj = 0, ij = 0; j < total; j++, ij++) {
        while (ij >= opt->groups[gj].n) { ij = 0; gj++; }
        ct__optgroup *G = &opt->groups[gj];
        ct__pstate *st = &G->st[ij];
        ct__pstate_clear(st);
        int any = 0;
        for (int b = 0; b < 3; b++) {
            st->buf[b] = fresh[j * 3 + b];
            fresh[j * 3 + b] = NULL;
            any |= st->buf[b] != NULL;
        }
        if (skey[j * 4] >= 0) st->step = ct_item(sd->items[skey[j * 4]].tensor);
        st->init = any || skey[j * 4] >= 0;
        if (opt->kind == CT__OPT_ADAGRAD && !st->init) {   /* Adagrad keeps state for every parameter */
            st->buf[0] = ct__opt_newbuf(G->params[ij], G->hp[CT__HP_INIT_ACC]);
            st->init = st->buf[0] != NULL;
        }
    }
done:
    if (fresh)
        for (int j = 0; j < total * 3; j++)
            if (fresh[j]) ct_release(fresh[j]);
    ct_scope_end(scope);
    ct_set_grad_enabled(prev);
    CT_FREE(nhp);
    CT_FREE(nsched);
    CT_FREE(ids);
    CT_FREE(skey);
    CT_FREE(gseen);
    CT_FREE(fresh);
    if (rc) {
        ct_set_error(rc, "%s.load_state_dict: %s", nm, why);
        return rc;
    }
    return CT_OK;
}

/* ---- learning-rate schedulers (torch.optim.lr_scheduler, 1.13's chainable forms) ---- */
enum { CT__SCHED_STEP, CT__SCHED_MULTISTEP, CT__SCHED_EXPONENTIAL, CT__SCHED_COSINE, CT__SCHED_LINEAR, CT__SCHED_ONECYCLE };
static const char *const ct__sched_names[6] = {"StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LinearLR", "OneCycleLR"};
struct ct_lr_scheduler {
    int kind;
    ct_optimizer *opt;              /* borrowed */
    int ngroups;                    /* the optimizer's groups at construction (PyTorch zips with base_lrs) */
    int64_t last_epoch, step_count;
    double *base_lrs, *last_lr;
    int64_t step_size, T_max, total_iters, total_steps;
    double gamma, eta_min, start_factor, end_factor;
    int nmil;
    int64_t *milestones;
    /* OneCycleLR: phases with their end steps and the group keys they anneal between */
    int nphases;
    double end_step[3];
    int start_lr[3], end_lr[3], start_mom[3], end_mom[3];
    int anneal_linear, cycle_momentum, use_beta1;
};
CTENSOR_API void ct_sched_free(ct_lr_scheduler *s) {
    if (!s) return;
    CT_FREE(s->base_lrs);
    CT_FREE(s->last_lr);
    CT_FREE(s->milestones);
    CT_FREE(s);
}
static void ct__sched_set_key(ct__optgroup *G, int h, double v) {
    G->hp[h] = v;
    G->sched_has |= 1u << (h - CT__HP_SCHED_FIRST);
}
/* values[g] for the current last_epoch (get_lr); also sets OneCycle's momentum */
static ct_status ct__sched_get_lr(ct_lr_scheduler *s, double *values) {
    ct_optimizer *opt = s->opt;
    int64_t le = s->last_epoch;
    const char *nm = ct__sched_names[s->kind];
    int ng = s->ngroups < opt->ngroups ? s->ngroups : opt->ngroups;
    if (s->kind == CT__SCHED_ONECYCLE && le > s->total_steps) {
        ct_set_error(CT_ERR_STATE, "%s: Tried to step %lld times. The specified number of total steps is %lld", nm,
                     (long long)(le + 1), (long long)s->total_steps);
        return CT_ERR_STATE;
    }
    for (int g = 0; g < ng; g++) {
        ct__optgroup *G = &opt->groups[g];
        double lr = G->hp[CT__HP_LR], base = s->base_lrs[g], v = lr;
        switch (s->kind) {
        case CT__SCHED_STEP:
            if (le != 0 && le % s->step_size == 0) v = lr * s->gamma;
            break;
        case CT__SCHED_MULTISTEP: {
            int count = 0;
            for (int q = 0; q < s->nmil; q++) count += s->milestones[q] == le;
            if (count) v = lr * pow(s->gamma, (double)count);
            break;
        }
        case CT__SCHED_EXPONENTIAL:
            if (le != 0) v = lr * s->gamma;
            break;
        case CT__SCHED_COSINE: {
            const double pi = 3.141592653589793, T = (double)s->T_max, eta = s->eta_min;
            if (le == 0) v = lr;
            else if (s->step_count == 1 && le > 0)
                v = eta + (base - eta) * (1 + cos((double)le * pi / T)) / 2;
            else if (ct__pymod(le - 1 - s->T_max, 2 * s->T_max) == 0)
                v = lr + (base - eta) * (1 - cos(pi / T)) / 2;
            else
                v = ct__mul((1 + cos(pi * (double)le / T)) / (1 + cos(pi * (double)(le - 1) / T)), lr - eta) + eta;
            break;
        }
        case CT__SCHED_LINEAR: {
            if (le == 0) v = lr * s->start_factor;
            else if (le > s->total_iters) v = lr;
            else {
                double den = ct__mul((double)s->total_iters, s->start_factor) + ct__mul((double)(le - 1), s->end_factor - s->start_factor);
                if (den == 0) {
                    ct_set_error(CT_ERR_ARG, "%s: ZeroDivisionError: float division by zero (start_factor is 0)", nm);
                    return CT_ERR_ARG;
                }
                v = lr * (1. + (s->end_factor - s->start_factor) / den);
            }
            break;
        }
        default: {   /* OneCycleLR */
            double start_step = 0, pct = 0;
            int ph = s->nphases - 1;
            for (int q = 0; q < s->nphases; q++) {
                double end_step = s->end_step[q];
                if ((double)le <= end_step || q == s->nphases - 1) {
                    if (end_step - start_step == 0) {
                        ct_set_error(CT_ERR_ARG, "%s: ZeroDivisionError: float division by zero (phase %d has no steps)", nm, q);
                        return CT_ERR_ARG;
                    }
                    pct = ((double)le - start_step) / (end_step - start_step);
                    ph = q;
                    break;
                }
                start_step = end_step;
            }
            double a0 = G->hp[s->start_lr[ph]], a1 = G->hp[s->end_lr[ph]];
            /* _annealing_linear: (end - start) * pct + start; _annealing_cos: end + (start - end) / 2.0 * (cos(pi * pct) + 1) */
            v = s->anneal_linear ? ct__mul(a1 - a0, pct) + a0 : a1 + ct__mul((a0 - a1) / 2.0, cos(3.141592653589793 * pct) + 1);
            if (s->cycle_momentum) {
                double m0 = G->hp[s->start_mom[ph]], m1 = G->hp[s->end_mom[ph]];
                double mom = s->anneal_linear ? ct__mul(m1 - m0, pct) + m0 : m1 + ct__mul((m0 - m1) / 2.0, cos(3.141592653589793 * pct) + 1);
                G->hp[s->use_beta1 ? CT__HP_BETA1 : CT__HP_MOMENTUM] = mom;
            }
            break;
        }
        }
        values[g] = v;
    }
    return CT_OK;
}
CTENSOR_API ct_status ct_sched_step(ct_lr_scheduler *s) {
    if (!s) { ct_set_error(CT_ERR_ARG, "scheduler step: scheduler is NULL"); return CT_ERR_ARG; }
    s->step_count++;
    s->last_epoch++;
    double vals[64], *values = s->ngroups <= 64 ? vals : CT__NEW_ARRAY(double, s->ngroups);
    if (!values) { ct_set_error(CT_ERR_MEMORY, "scheduler step: out of memory"); return CT_ERR_MEMORY; }
    ct_status rc = ct__sched_get_lr(s, values);
    if (!rc) {
        int ng = s->ngroups < s->opt->ngroups ? s->ngroups : s->opt->ngroups;
        for (int g = 0; g < ng; g++) s->opt->groups[g].hp[CT__HP_LR] = values[g];
        for (int g = 0; g < s->ngroups; g++) s->last_lr[g] = g < ng ? s->opt->groups[g].hp[CT__HP_LR] : NAN;
    }
    if (values != vals) CT_FREE(values);
    return rc;
}
/* _LRScheduler.__init__ with last_epoch=-1: initial_lr (setdefault), base_lrs, the initial step */
static ct_lr_scheduler *ct__sched_new(ct_optimizer *opt, int kind) {
    const char *nm = ct__sched_names[kind];
    if (!opt) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "%s: optimizer is NULL", nm);
        return NULL;
    }
    ct_lr_scheduler *s = CT__NEW_ZEROED(ct_lr_scheduler);
    if (!s) return (ct_lr_scheduler *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", nm);
    s->kind = kind;
    s->opt = opt;
    s->ngroups = opt->ngroups;
    s->last_epoch = -1;
    s->base_lrs = CT__NEW_ARRAY(double, opt->ngroups);
    s->last_lr = CT__NEW_ARRAY(double, opt->ngroups);
    if (!s->base_lrs || !s->last_lr) {
        ct_sched_free(s);
        return (ct_lr_scheduler *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", nm);
    }
    return s;
}
static ct_lr_scheduler *ct__sched_start(ct_lr_scheduler *s) {
    for (int g = 0; g < s->ngroups; g++) {
        ct__optgroup *G = &s->opt->groups[g];
        if (!(G->sched_has & (1u << (CT__HP_INITIAL_LR - CT__HP_SCHED_FIRST)))) ct__sched_set_key(G, CT__HP_INITIAL_LR, G->hp[CT__HP_LR]);
        s->base_lrs[g] = G->hp[CT__HP_INITIAL_LR];
    }
    s->step_count = 0;
    if (ct_sched_step(s)) {
        ct_sched_free(s);
        return NULL;
    }
    return s;
}
CTENSOR_API ct_lr_scheduler *ct_sched_step_lr(ct_optimizer *opt, int64_t step_size, double gamma) {
    if (opt && step_size <= 0) return (ct_lr_scheduler *)ct__fail(CT_ERR_ARG, "StepLR: step_size must be positive (got %lld)", (long long)step_size);
    ct_lr_scheduler *s = ct__sched_new(opt, CT__SCHED_STEP);
    if (!s) return NULL;
    s->step_size = step_size;
    s->gamma = gamma;
    return ct__sched_start(s);
}
CTENSOR_API ct_lr_scheduler *ct_sched_multistep_lr(ct_optimizer *opt, int n, const int64_t *milestones, double gamma) {
    if (opt && n > 0 && !milestones) return (ct_lr_scheduler *)ct__fail(CT_ERR_ARG, "MultiStepLR: milestones is NULL");
    ct_lr_scheduler *s = ct__sched_new(opt, CT__SCHED_MULTISTEP);
    if (!s) return NULL;
    s->nmil = n > 0 ? n : 0;
    s->milestones = CT__NEW_ARRAY(int64_t, s->nmil);
    if (!s->milestones) { ct_sched_free(s); return (ct_lr_scheduler *)ct__fail(CT_ERR_MEMORY, "MultiStepLR: out of memory"); }
    for (int q = 0; q < s->nmil; q++) s->milestones[q] = milestones[q];
    s->gamma = gamma;
    return ct__sched_start(s);
}
CTENSOR_API ct_lr_scheduler *ct_sched_exponential_lr(ct_optimizer *opt, double gamma) {
    ct_lr_scheduler *s = ct__sched_new(opt, CT__SCHED_EXPONENTIAL);
    if (!s) return NULL;
    s->gamma = gamma;
    return ct__sched_start(s);
}
CTENSOR_API ct_lr_scheduler *ct_sched_cosine_annealing_lr(ct_optimizer *opt, int64_t T_max, double eta_min) {
    if (opt && T_max <= 0) return (ct_lr_scheduler *)ct__fail(CT_ERR_ARG, "CosineAnnealingLR: T_max must be positive (got %lld)", (long long)T_max);
    ct_lr_scheduler *s = ct__sched_new(opt, CT__SCHED_COSINE);
    if (!s) return NULL;
    s->T_max = T_max;
    s->eta_min = eta_min;
    return ct__sched_start(s);
}
CTENSOR_API ct_lr_scheduler *ct_sched_linear_lr(ct_optimizer *opt, double start_factor, double end_factor, int64_t total_iters) {
    if (opt && (start_factor > 1.0 || start_factor < 0))
        return (ct_lr_scheduler *)ct__fail(CT_ERR_ARG, "LinearLR: Starting multiplicative factor expected to be between 0 and 1.");
    if (opt && (end_factor > 1.0 || end_factor < 0))
        return (ct_lr_scheduler *)ct__fail(CT_ERR_ARG, "LinearLR: Ending multiplicative factor expected to be between 0 and 1.");
    ct_lr_scheduler *s = ct__sched_new(opt, CT__SCHED_LINEAR);
    if (!s) return NULL;
    s->start_factor = start_factor;
    s->end_factor = end_factor;
    s->total_iters = total_iters;
    return ct__sched_start(s);
}
CTENSOR_API ct_lr_scheduler *ct_sched_one_cycle_lr(ct_optimizer *opt, const ct_one_cycle_options *o) {
    const char *nm = "OneCycleLR";
    if (!opt) return ct__sched_new(opt, CT__SCHED_ONECYCLE);
    if (!o) return (ct_lr_scheduler *)ct__fail(CT_ERR_ARG, "%s: options are NULL (max_lr is required)", nm);
    int64_t total;
    if (o->total_steps == 0 && o->epochs == 0 && o->steps_per_epoch == 0)
        return (ct_lr_scheduler *)ct__fail(CT_ERR_ARG, "%s: You must define either total_steps OR (epochs AND steps_per_epoch)", nm);
    if (o->total_steps != 0) {
        if (o->total_steps <= 0)
            return (ct_lr_scheduler *)ct__fail(CT_ERR_ARG, "%s: Expected positive integer total_steps, but got %lld", nm, (long long)o->total_steps);
        total = o->total_steps;
    } else {
        if (o->epochs <= 0) return (ct_lr_scheduler *)ct__fail(CT_ERR_ARG, "%s: Expected positive integer epochs, but got %lld", nm, (long long)o->epochs);
        if (o->steps_per_epoch <= 0)
            return (ct_lr_scheduler *)ct__fail(CT_ERR_ARG, "%s: Expected positive integer steps_per_epoch, but got %lld", nm, (long long)o->steps_per_epoch);
        total = o->epochs * o->steps_per_epoch;
    }
    double pct = ct__opt_pick(o->pct_start, 0.3);
    if (pct < 0 || pct > 1 || pct != pct)
        return (ct_lr_scheduler *)ct__fail(CT_ERR_ARG, "%s: Expected float between 0 and 1 pct_start, but got %s", nm, CT__PYF(pct));
    int linear = 0;
    if (o->anneal_strategy && strcmp(o->anneal_strategy, "cos")) {
        if (strcmp(o->anneal_strategy, "linear"))
            return (ct_lr_scheduler *)ct__fail(CT_ERR_ARG, "%s: anneal_strategy must by one of 'cos' or 'linear', instead got %s", nm, o->anneal_strategy);
        linear = 1;
    }
    if (!o->max_lrs && o->max_lr == 0.0 && !signbit(o->max_lr))
        return (ct_lr_scheduler *)ct__fail(CT_ERR_ARG, "%s: max_lr is required (pass CT_ZERO for 0)", nm);
    int cycle = !o->no_cycle_momentum;
    int use_beta1 = opt->kind == CT__OPT_ADAM || opt->kind == CT__OPT_ADAMW;
    if (cycle && !use_beta1 && !ct__kind_has(opt->k, CT__HP_MOMENTUM))
        return (ct_lr_scheduler *)ct__fail(CT_ERR_ARG, "%s: optimizer must support momentum with `cycle_momentum` option enabled", nm);
    double div = ct__opt_pick(o->div_factor, 25.0), fdiv = ct__opt_pick(o->final_div_factor, 1e4);
    double base_m = ct__opt_pick(o->base_momentum, 0.85), max_m = ct__opt_pick(o->max_momentum, 0.95);
    ct_lr_scheduler *s = ct__sched_new(opt, CT__SCHED_ONECYCLE);
    if (!s) return NULL;
    s->total_steps = total;
    s->anneal_linear = linear;
    s->cycle_momentum = cycle;
    s->use_beta1 = use_beta1;
    double T = (double)total;
    if (o->three_phase) {
        s->nphases = 3;
        s->end_step[0] = ct__mul(pct, T) - 1;                      /* float(pct_start * total_steps) - 1 */
        s->end_step[1] = ct__mul(2 * pct, T) - 2;
        s->end_step[2] = T - 1;
        s->start_lr[0] = CT__HP_INITIAL_LR; s->end_lr[0] = CT__HP_MAX_LR;
        s->start_lr[1] = CT__HP_MAX_LR; s->end_lr[1] = CT__HP_INITIAL_LR;
        s->start_lr[2] = CT__HP_INITIAL_LR; s->end_lr[2] = CT__HP_MIN_LR;
        s->start_mom[0] = CT__HP_MAX_MOMENTUM; s->end_mom[0] = CT__HP_BASE_MOMENTUM;
        s->start_mom[1] = CT__HP_BASE_MOMENTUM; s->end_mom[1] = CT__HP_MAX_MOMENTUM;
        s->start_mom[2] = CT__HP_MAX_MOMENTUM; s->end_mom[2] = CT__HP_MAX_MOMENTUM;
    } else {
        s->nphases = 2;
        s->end_step[0] = ct__mul(pct, T) - 1;
        s->end_step[1] = T - 1;
        s->start_lr[0] = CT__HP_INITIAL_LR; s->end_lr[0] = CT__HP_MAX_LR;
        s->start_lr[1] = CT__HP_MAX_LR; s->end_lr[1] = CT__HP_MIN_LR;
        s->start_mom[0] = CT__HP_MAX_MOMENTUM; s->end_mom[0] = CT__HP_BASE_MOMENTUM;
        s->start_mom[1] = CT__HP_BASE_MOMENTUM; s->end_mom[1] = CT__HP_MAX_MOMENTUM;
    }
    for (int g = 0; g < opt->ngroups; g++) {
        ct__optgroup *G = &opt->groups[g];
        double mx = o->max_lrs ? o->max_lrs[g] : o->max_lr;
        ct__sched_set_key(G, CT__HP_INITIAL_LR, mx / div);          /* group['initial_lr'] = max_lrs[idx] / div_factor */
        ct__sched_set_key(G, CT__HP_MAX_LR, mx);
        ct__sched_set_key(G, CT__HP_MIN_LR, G->hp[CT__HP_INITIAL_LR] / fdiv);
        if (cycle) {
            G->hp[use_beta1 ? CT__HP_BETA1 : CT__HP_MOMENTUM] = max_m;
            ct__sched_set_key(G, CT__HP_MAX_MOMENTUM, max_m);
            ct__sched_set_key(G, CT__HP_BASE_MOMENTUM, base_m);
        }
    }
    return ct__sched_start(s);
}
CTENSOR_API double ct_sched_get_last_lr(const ct_lr_scheduler *s, int g) {
    if (!s) { ct_set_error(CT_ERR_ARG, "get_last_lr: scheduler is NULL"); return NAN; }
    if (g < 0 || g >= s->ngroups) {
        ct_set_error(CT_ERR_INDEX, "get_last_lr: param group %d out of range (the scheduler has %d)", g, s->ngroups);
        return NAN;
    }
    return s->last_lr[g];
}
CTENSOR_API int64_t ct_sched_last_epoch(const ct_lr_scheduler *s) { return s ? s->last_epoch : -1; }
CTENSOR_API ct_status ct_sched_state_dict(const ct_lr_scheduler *s, ct_state_dict *out) {
    if (!out) { ct_set_error(CT_ERR_ARG, "state_dict: output is NULL"); return CT_ERR_ARG; }
    out->n = 0;
    out->items = NULL;
    if (!s) { ct_set_error(CT_ERR_ARG, "state_dict: scheduler is NULL"); return CT_ERR_ARG; }
    int cap = 0;
    ct_status rc = ct__osd_add(out, &cap, ct_scalar_tensor((double)s->last_epoch, CT_FLOAT64), "last_epoch");
    if (!rc) rc = ct__osd_add(out, &cap, ct_scalar_tensor((double)s->step_count, CT_FLOAT64), "_step_count");
    if (!rc) rc = ct__osd_add(out, &cap, ct__f64_vec(s->ngroups, s->base_lrs), "base_lrs");
    if (!rc) rc = ct__osd_add(out, &cap, ct__f64_vec(s->ngroups, s->last_lr), "_last_lr");
    if (rc) {
        ct_state_dict_free(out);
        if (ct_last_error_code() == CT_OK) ct_set_error(rc, "state_dict: out of memory");
    }
    return rc;
}
CTENSOR_API ct_status ct_sched_load_state_dict(ct_lr_scheduler *s, const ct_state_dict *sd) {
    if (!s || !sd) { ct_set_error(CT_ERR_ARG, "load_state_dict: scheduler or state dict is NULL"); return CT_ERR_ARG; }
    const char *keys[4] = {"last_epoch", "_step_count", "base_lrs", "_last_lr"};
    ct_tensor *t[4] = {NULL, NULL, NULL, NULL};
    const char *nm = ct__sched_names[s->kind];
    for (int e = 0; e < sd->n; e++) {
        int q = -1;
        for (int k = 0; k < 4; k++)
            if (sd->items[e].name && !strcmp(sd->items[e].name, keys[k])) q = k;
        if (q < 0) {
            ct_set_error(CT_ERR_ARG, "%s.load_state_dict: unexpected key \"%s\"", nm, sd->items[e].name ? sd->items[e].name : "(null)");
            return CT_ERR_ARG;
        }
        t[q] = sd->items[e].tensor;
    }
    for (int k = 0; k < 4; k++) {
        int64_t want = k < 2 ? 1 : s->ngroups;
        if (!t[k]) { ct_set_error(CT_ERR_ARG, "%s.load_state_dict: missing key \"%s\"", nm, keys[k]); return CT_ERR_ARG; }
        if (ct_numel(t[k]) != want) {
            ct_set_error(CT_ERR_SHAPE, "%s.load_state_dict: \"%s\" has %lld values, expected %lld", nm, keys[k],
                         (long long)ct_numel(t[k]), (long long)want);
            return CT_ERR_SHAPE;
        }
    }
    /* counters: integers in a range where stepping on cannot overflow (NaN, 1e300 would) */
    for (int k = 0; k < 2; k++) {
        double v = ct_item(t[k]), lo = k == 0 ? -1.0 : 0.0;
        if (!(v >= lo && v <= 9007199254740992.0 && v == floor(v))) {
            ct_set_error(CT_ERR_ARG, "%s.load_state_dict: \"%s\" must be an integer from %g to 2^53 (got %g)", nm, keys[k], lo, v);
            return CT_ERR_ARG;
        }
    }
    int sc = ct_scope_begin();
    ct_tensor *b = ct_contiguous(ct_to_device_dtype(t[2], ct_cpu(), CT_FLOAT64)), *l = ct_contiguous(ct_to_device_dtype(t[3], ct_cpu(), CT_FLOAT64));
    if (b && l) {
        s->last_epoch = (int64_t)ct_item(t[0]);
        s->step_count = (int64_t)ct_item(t[1]);
        memcpy(s->base_lrs, ct_data_ptr(b), sizeof(double) * (size_t)s->ngroups);
        memcpy(s->last_lr, ct_data_ptr(l), sizeof(double) * (size_t)s->ngroups);
    }
    ct_scope_end(sc);
    return b && l ? CT_OK : ct_last_error_code();
}

/* ---- gradient clipping (torch.nn.utils.clip_grad) ---- */
/* x rounded to dtype dt (the dtype PyTorch's 0-d results have) */
static double ct__round_to(double x, ct_dtype dt) {
    if (dt == CT_FLOAT64) return x;
    if (dt == CT_FLOAT32) return (double)(float)x;
    unsigned char buf[16];
    ct__store_f64(buf, dt, x);
    return ct__load_f64(buf, dt);
}
/* torch.norm(g, p) of one tensor, accumulated in double (CPU tensors) */
static int ct__grad_norm(ct_tensor *g, double p, double *out) {
    int s = ct_scope_begin();
    ct_tensor *x = ct_contiguous(ct_to(g, CT_FLOAT64));
    if (!x) { ct_scope_end(s); return -1; }
    const double *d = (const double *)ct_data_ptr(x);
    int64_t n = ct_numel(x);
    double acc;
    if (p == INFINITY || p == -INFINITY) {
        acc = p > 0 ? 0.0 : INFINITY;
        if (n == 0 && p < 0) acc = INFINITY;
        for (int64_t i = 0; i < n; i++) {
            double a = fabs(d[i]);
            if (a != a) { acc = a; break; }
            acc = p > 0 ? (a > acc ? a : acc) : (a < acc ? a : acc);
        }
    } else if (p == 0) {
        acc = 0;
        for (int64_t i = 0; i < n; i++) acc += d[i] != 0;
    } else if (p == 1) {
        acc = 0;
        for (int64_t i = 0; i < n; i++) acc += fabs(d[i]);
    } else if (p == 2) {
        acc = 0;
        for (int64_t i = 0; i < n; i++) acc += d[i] * d[i];
        acc = sqrt(acc);
    } else {
        acc = 0;
        for (int64_t i = 0; i < n; i++) acc += pow(fabs(d[i]), p);
        acc = pow(acc, 1.0 / p);
    }
    ct_scope_end(s);
    *out = acc;
    return 0;
}
CTENSOR_API ct_status ct_clip_grad_norm_ex(int n, ct_tensor *const *params, double max_norm, double norm_type,
                                           int error_if_nonfinite, double *total_norm) {
    const char *fn = "clip_grad_norm_";
    if (total_norm) *total_norm = NAN;
    if (n < 0 || (n > 0 && !params)) { ct_set_error(CT_ERR_ARG, "%s: bad parameter list", fn); return CT_ERR_ARG; }
    int ng = 0;
    ct_dtype dt = CT_FLOAT32;
    for (int i = 0; i < n; i++) {
        if (!params[i]) {
            if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "%s: parameter %d is NULL", fn, i);
            return ct_last_error_code();
        }
        ct_tensor *g = params[i]->grad;
        if (!g) continue;
        if (g->device.type != CT_CPU) { ct_set_error(CT_ERR_UNSUPPORTED, "%s: gradients off the CPU are not supported yet", fn); return CT_ERR_UNSUPPORTED; }
        if (!CT__ISFLOAT(g->dtype)) { ct_set_error(CT_ERR_DTYPE, "%s: gradient %d is %s, expected a floating point dtype", fn, i, ct_dtype_name(g->dtype)); return CT_ERR_DTYPE; }
        dt = ng ? ct_promote_types(dt, g->dtype) : g->dtype;
        ng++;
    }
    if (!ng) {   /* return torch.tensor(0.) */
        if (total_norm) *total_norm = 0.0;
        return CT_OK;
    }
    /* norms = [torch.norm(g, norm_type)] (or abs().max() for inf); total = norm of the norms (max for inf) */
    double total = 0;
    int first = 1, inf = norm_type == INFINITY;
    double acc = 0;
    for (int i = 0; i < n; i++) {
        ct_tensor *g = params[i]->grad;
        double v;
        if (!g) continue;
        if (ct__grad_norm(g, norm_type, &v)) return ct_last_error_code();
        v = ct__round_to(v, g->dtype);
        if (inf) {   /* torch.max: NaN wins */
            if (first || (acc == acc && (v != v || v > acc))) acc = v;
        } else if (norm_type == -INFINITY) {
            if (first || (acc == acc && (v != v || v < acc))) acc = v;
        } else if (norm_type == 0) {
            acc += v != 0;
        } else if (norm_type == 1) {
            acc += fabs(v);
        } else if (norm_type == 2) {
            acc += v * v;
        } else {
            acc += pow(fabs(v), norm_type);
        }
        first = 0;
    }
    if (inf || norm_type == -INFINITY || norm_type == 0 || norm_type == 1) total = acc;
    else if (norm_type == 2) total = sqrt(acc);
    else total = pow(acc, 1.0 / norm_type);
    total = ct__round_to(total, dt);
    if (error_if_nonfinite && (total != total || total == INFINITY || total == -INFINITY)) {
        ct_set_error(CT_ERR_NUMERIC, "%s: The total norm of order %s for gradients from `parameters` is non-finite, so it cannot "
                     "be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
                     "`error_if_nonfinite=False`", fn, CT__PYF(norm_type));
        return CT_ERR_NUMERIC;
    }
    /* clip_coef = max_norm / (total_norm + 1e-6); clamp(clip_coef, max=1.0), in total_norm's dtype */
    double coef;
    if (dt == CT_FLOAT64) {
        coef = max_norm / (total + 1e-6);
    } else {
        float t1 = (float)ct__round_to((double)((float)total + (float)1e-6), dt);
        coef = ct__round_to((double)((float)max_norm / t1), dt);
    }
    if (coef > 1.0) coef = 1.0;
    int prev = ct_set_grad_enabled(0), s = ct_scope_begin();
    ct_status rc = CT_OK;
    for (int i = 0; i < n && !rc; i++)   /* g.detach().mul_(clip_coef_clamped) */
        if (params[i]->grad && !ct_mul_scalar_(params[i]->grad, coef)) rc = ct_last_error_code();
    ct_scope_end(s);
    ct_set_grad_enabled(prev);
    if (total_norm) *total_norm = total;
    return rc;
}
CTENSOR_API double ct_clip_grad_norm_(int n, ct_tensor *const *params, double max_norm, double norm_type) {
    double t = NAN;
    ct_clip_grad_norm_ex(n, params, max_norm, norm_type, 0, &t);
    return t;
}
static int ct__module_params(ct_module *m, ct_tensor ***out, const char *fn) {
    if (!m) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "%s: module is NULL", fn);
        return -1;
    }
    int n = ct_module_parameters(m, NULL, 0);
    *out = CT__NEW_ARRAY(ct_tensor *, n);
    if (!*out) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", fn); return -1; }
    ct_module_parameters(m, *out, n);
    return n;
}
CTENSOR_API double ct_clip_grad_norm_module_(ct_module *m, double max_norm, double norm_type) {
    ct_tensor **ps = NULL;
    int n = ct__module_params(m, &ps, "clip_grad_norm_");
    if (n < 0) return NAN;
    double t = ct_clip_grad_norm_(n, ps, max_norm, norm_type);
    CT_FREE(ps);
    return t;
}
CTENSOR_API ct_status ct_clip_grad_value_(int n, ct_tensor *const *params, double clip_value) {
    if (n < 0 || (n > 0 && !params)) { ct_set_error(CT_ERR_ARG, "clip_grad_value_: bad parameter list"); return CT_ERR_ARG; }
    int prev = ct_set_grad_enabled(0), s = ct_scope_begin();
    ct_status rc = CT_OK;
    for (int i = 0; i < n && !rc; i++) {   /* p.grad.data.clamp_(min=-clip_value, max=clip_value) */
        if (!params[i]) {
            if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "clip_grad_value_: parameter %d is NULL", i);
            rc = ct_last_error_code();
            break;
        }
        if (params[i]->grad && !ct_clamp_(params[i]->grad, -clip_value, clip_value)) rc = ct_last_error_code();
    }
    ct_scope_end(s);
    ct_set_grad_enabled(prev);
    return rc;
}
CTENSOR_API ct_status ct_clip_grad_value_module_(ct_module *m, double clip_value) {
    ct_tensor **ps = NULL;
    int n = ct__module_params(m, &ps, "clip_grad_value_");
    if (n < 0) return ct_last_error_code();
    ct_status rc = ct_clip_grad_value_(n, ps, clip_value);
    CT_FREE(ps);
    return rc;
}

/* ============================================================================
   Data: IDX files, datasets, data loaders
   ========================================================================== */
#if !defined(CTENSOR_NO_THREADS) && (defined(__unix__) || defined(__APPLE__))
#include <pthread.h>
#define CT__HAVE_PTHREADS 1
#endif
#ifdef CTENSOR_ZLIB
#include <zlib.h>
#endif
#ifndef CTENSOR_NO_STDIO
static void *ct__read_file(const char *path, size_t *len, const char *api);
#endif

/* The IDX header: 0, 0, a type byte, a dimension count, then one big-endian
   uint32 size per dimension; the data follows, big-endian. Reads and checks the
   header of p[0..len) (which may be only a prefix of the file) and the size of
   the data it declares. */
typedef struct ct__idx_header {
    ct_dtype dt;
    int nd;
    int64_t shape[CT_MAX_DIMS];
    size_t off;         /* header bytes */
    uint64_t nbytes;    /* data bytes the header declares */
} ct__idx_header;
static int ct__idx_parse_header(const unsigned char *p, size_t len, const char *name, ct__idx_header *h) {
    if (len < 4 || p[0] != 0 || p[1] != 0)
        return ct__failed(CT_ERR_FORMAT, "load_idx: not an IDX file (bad magic) (%s)", name);
    switch (p[2]) {
    case 0x08: h->dt = CT_UINT8; break;
    case 0x09: h->dt = CT_INT8; break;
    case 0x0B: h->dt = CT_INT16; break;
    case 0x0C: h->dt = CT_INT32; break;
    case 0x0D: h->dt = CT_FLOAT32; break;
    case 0x0E: h->dt = CT_FLOAT64; break;
    default: return ct__failed(CT_ERR_FORMAT, "load_idx: unknown element type 0x%02x (%s)", p[2], name);
    }
    h->nd = p[3];
    if (h->nd < 1 || h->nd > CT_MAX_DIMS)
        return ct__failed(CT_ERR_FORMAT, "load_idx: %d dimensions is not supported (1 to %d) (%s)", h->nd, CT_MAX_DIMS, name);
    h->off = 4 + 4 * (size_t)h->nd;
    if (len < h->off)
        return ct__failed(CT_ERR_FORMAT, "load_idx: truncated header (%zu bytes, %zu expected for %d dimensions) (%s)", len, h->off,
                          h->nd, name);
    /* sizes are uint32: their product (zeros counted as ones, as ct_empty's check
       does, so that no partial product overflows) is at most 2^46 elements */
    uint64_t numel = 1;
    int zero = 0;
    for (int d = 0; d < h->nd; d++) {
        const unsigned char *q = p + 4 + 4 * d;
        h->shape[d] = ((int64_t)q[0] << 24) | ((int64_t)q[1] << 16) | ((int64_t)q[2] << 8) | q[3];
    }
    for (int d = 0; d < h->nd; d++) {
        zero |= h->shape[d] == 0;
        if (h->shape[d] && numel > ((uint64_t)1 << 46) / (uint64_t)h->shape[d])
            return ct__failed(CT_ERR_FORMAT, "load_idx: the header declares a shape of %s, too large to load (%s)",
                              ct__fmt_shape(h->nd, h->shape).s, name);
        numel *= (uint64_t)(h->shape[d] ? h->shape[d] : 1);
    }
    h->nbytes = zero ? 0 : numel * ct__dt[h->dt].size;
    return 0;
}
/* data (big-endian) -> x (native order) */
static void ct__idx_swap(unsigned char *dst, uint64_t nbytes, size_t es) {
    if (es > 1)
        for (uint64_t k = 0; k < nbytes; k += es)
            for (size_t b = 0; b < es / 2; b++) {
                unsigned char t = dst[k + b];
                dst[k + b] = dst[k + es - 1 - b];
                dst[k + es - 1 - b] = t;
            }
}
static ct_tensor *ct__idx_from_raw(const unsigned char *p, size_t len, const char *name) {
    ct__idx_header h;
    if (ct__idx_parse_header(p, len, name, &h)) return NULL;
    size_t left = len - h.off;
    if (h.nbytes > left)
        return ct__fail(CT_ERR_FORMAT, "load_idx: data of %llu elements exceeds the %zu bytes left in the file (%s)",
                        (unsigned long long)(h.nbytes / ct__dt[h.dt].size), left, name);
    if (h.nbytes < left)   /* as torchvision's reader, which asserts the element count */
        return ct__fail(CT_ERR_FORMAT, "load_idx: %zu bytes follow the %llu bytes of data the header declares (%s)",
                        left - (size_t)h.nbytes, (unsigned long long)h.nbytes, name);
    ct_tensor *x = ct__alloc(h.dt, h.nd, h.shape, NULL, ct__cpu_dev);
    if (!x) return NULL;
    unsigned char *dst = (unsigned char *)ct__ptr(x);
    if (h.nbytes) memcpy(dst, p + h.off, (size_t)h.nbytes);
    ct__idx_swap(dst, h.nbytes, ct__dt[h.dt].size);
    return ct__own(x);
}
#ifdef CTENSOR_ZLIB
/* inflates into out[0..cap) from where z stands; *n counts the bytes produced.
   Concatenated gzip members are read one after the other (as gzread does).
   Returns 0 when out is full or the input is done, -1 on corrupt data. */
static int ct__gz_fill(z_stream *z, unsigned char *out, size_t cap, size_t *n, int *done) {
    while (*n < cap && !*done) {
        size_t room = cap - *n;
        z->next_out = out + *n;
        z->avail_out = (uInt)(room > (1u << 30) ? (1u << 30) : room);
        uInt before = z->avail_out;
        int r = inflate(z, Z_NO_FLUSH);
        *n += before - z->avail_out;
        if (r == Z_STREAM_END) {
            if (z->avail_in == 0) *done = 1;
            else if (inflateReset(z) != Z_OK) return -1;
        } else if (r == Z_BUF_ERROR) {
            if (z->avail_in == 0) return -1;   /* the stream ends inside a member */
        } else if (r != Z_OK) {
            return -1;
        }
    }
    return 0;
}
/* A gzip-compressed IDX file, decompressed no further than its header allows:
   first the header, then exactly the data size it declares, straight into the
   tensor; one byte more is an error (a gzip bomb stops there). The declared size
   is also checked against the most that len compressed bytes can expand to
   (deflate's limit is 1032:1), so a tiny file cannot make it allocate gigabytes. */
static ct_tensor *ct__idx_from_gzip(const unsigned char *p, size_t len, const char *name) {
    if (len > ((size_t)1 << 31))
        return ct__fail(CT_ERR_UNSUPPORTED, "load_idx: gzip data of %zu bytes (over 2 GiB) is not supported (%s)", len, name);
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) return ct__fail(CT_ERR_MEMORY, "load_idx: cannot start zlib (%s)", name);
    z.next_in = (Bytef *)(uintptr_t)p;
    z.avail_in = (uInt)len;
    unsigned char hdr[4 + 4 * 255];
    size_t n = 0;
    int done = 0, bad = 0;
    ct_tensor *x = NULL;
    ct__idx_header h;
    bad = bad || ct__gz_fill(&z, hdr, 4, &n, &done);
    if (!bad && n == 4 && hdr[0] == 0 && hdr[1] == 0) bad = ct__gz_fill(&z, hdr, 4 + 4 * (size_t)hdr[3], &n, &done);
    if (bad) {
        ct_set_error(CT_ERR_FORMAT, "load_idx: corrupt gzip data (%s)", name);
    } else if (!ct__idx_parse_header(hdr, n, name, &h)) {
        if (h.nbytes / 1032 > len)
            ct_set_error(CT_ERR_FORMAT, "load_idx: the header declares %llu bytes of data, more than %zu bytes of gzip data can hold (%s)",
                         (unsigned long long)h.nbytes, len, name);
        else if ((x = ct__alloc(h.dt, h.nd, h.shape, NULL, ct__cpu_dev)) != NULL) {
            unsigned char *dst = (unsigned char *)ct__ptr(x), extra;
            size_t got = 0, more = 0;
            bad = ct__gz_fill(&z, dst, (size_t)h.nbytes, &got, &done);
            if (!bad && !done) bad = ct__gz_fill(&z, &extra, 1, &more, &done);
            if (bad) ct_set_error(CT_ERR_FORMAT, "load_idx: corrupt gzip data (%s)", name);
            else if (got < h.nbytes)
                ct_set_error(CT_ERR_FORMAT, "load_idx: data of %llu elements exceeds the %zu bytes left in the file (%s)",
                             (unsigned long long)(h.nbytes / ct__dt[h.dt].size), got, name);
            else if (more)
                ct_set_error(CT_ERR_FORMAT, "load_idx: gzip data decompresses to more than the %llu bytes the header declares (%s)",
                             (unsigned long long)(h.off + h.nbytes), name);
            if (bad || got < h.nbytes || more) {
                ct__decref(x);
                x = NULL;
            } else {
                ct__idx_swap(dst, h.nbytes, ct__dt[h.dt].size);
            }
        }
    }
    inflateEnd(&z);
    return x ? ct__own(x) : NULL;
}
#endif
CTENSOR_API ct_tensor *ct_load_idx_mem(const void *data, size_t len, const char *name) {
    const unsigned char *p = (const unsigned char *)data;
    if (!name) name = "<memory>";
    if (!p && len) return ct__fail(CT_ERR_ARG, "load_idx: data is NULL (%s)", name);
    if (len >= 2 && p[0] == 0x1f && p[1] == 0x8b) {
#ifdef CTENSOR_ZLIB
        return ct__idx_from_gzip(p, len, name);
#else
        return ct__fail(CT_ERR_UNSUPPORTED, "load_idx: %s is gzip-compressed and ctensor was built without CTENSOR_ZLIB; gunzip it or "
                                            "build with -DCTENSOR_ZLIB -lz", name);
#endif
    }
    return ct__idx_from_raw(p, len, name);
}
#ifndef CTENSOR_NO_STDIO
CTENSOR_API ct_tensor *ct_load_idx(const char *path) {
    if (!path) return ct__fail(CT_ERR_ARG, "load_idx: path is NULL");
    size_t plen = strlen(path), len;
    int gz = plen > 3 && !strcmp(path + plen - 3, ".gz");
#ifndef CTENSOR_ZLIB
    if (gz) {
        /* no zlib: use the uncompressed file next to it */
        char alt[4096];
        if (plen - 3 >= sizeof alt) return ct__fail(CT_ERR_ARG, "load_idx: path too long");
        memcpy(alt, path, plen - 3);
        alt[plen - 3] = 0;
        void *buf = ct__read_file(alt, &len, "load_idx");
        if (!buf) {
            ct_set_error(CT_ERR_IO, "load_idx: '%s' is gzip-compressed and ctensor was built without CTENSOR_ZLIB; gunzip it to '%s' or build with -DCTENSOR_ZLIB -lz", path, alt);
            return NULL;
        }
        ct_tensor *t = ct_load_idx_mem(buf, len, alt);
        CT_FREE(buf);
        return t;
    }
#else
    (void)gz;
#endif
    /* gzip data (whatever the name) is recognised by its magic bytes */
    void *buf = ct__read_file(path, &len, "load_idx");
    if (!buf) return NULL;
    ct_tensor *t = ct_load_idx_mem(buf, len, path);
    CT_FREE(buf);
    return t;
}
#endif

struct ct_dataset {
    int n;
    ct_tensor *t[8];    /* retained, contiguous */
    int64_t len;
};
CTENSOR_API ct_dataset *ct_tensor_dataset(int n, ct_tensor *const *ts) {
    if (n <= 0 || n > 8 || !ts) return (ct_dataset *)ct__fail(CT_ERR_ARG, "TensorDataset: between 1 and 8 tensors are supported (got %d)", n);
    for (int i = 0; i < n; i++) {
        if (!ts[i]) { ct__null_arg("TensorDataset", i); return NULL; }
        if (ts[i]->ndim == 0) return (ct_dataset *)ct__fail(CT_ERR_ARG, "TensorDataset: tensor %d is 0-dimensional", i);
        if (ts[i]->shape[0] != ts[0]->shape[0])
            return (ct_dataset *)ct__fail(CT_ERR_SHAPE, "TensorDataset: Size mismatch between tensors (%lld vs %lld along dim 0)",
                                          (long long)ts[0]->shape[0], (long long)ts[i]->shape[0]);
        if (ts[i]->device.type != CT_CPU) return (ct_dataset *)ct__fail(CT_ERR_DEVICE, "TensorDataset: tensors must be on the CPU");
    }
    ct_dataset *ds = CT__NEW_ZEROED(ct_dataset);
    if (!ds) return (ct_dataset *)ct__fail(CT_ERR_MEMORY, "TensorDataset: out of memory");
    ds->n = n;
    ds->len = ts[0]->shape[0];
    for (int i = 0; i < n; i++) {
        ct_tensor *c = ct__contig_ref(ts[i]);
        if (!c) { for (int k = 0; k < i; k++) ct__decref(ds->t[k]); CT_FREE(ds); return NULL; }
        ds->t[i] = c;
    }
    return ds;
}
CTENSOR_API int64_t ct_dataset_len(const ct_dataset *ds) { return ds ? ds->len : -1; }
CTENSOR_API void ct_dataset_free(ct_dataset *ds) {
    if (!ds) return;
    for (int i = 0; i < ds->n; i++) ct__decref(ds->t[i]);
    CT_FREE(ds);
}

struct ct_dataloader {
    ct_dataset *ds;
    ct_dataloader_options opt;
    ct_generator gen;
    int64_t *order;             /* this epoch's sample order */
    int64_t nbatches, next_batch;
    ct_tensor *cur[8];          /* the batch handed out last (owned) */
    int have_cur;
    int error;
#ifdef CT__HAVE_PTHREADS
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int running, stop;
    int slot_full;              /* a prefetched batch is ready */
    int64_t slot_index;         /* which batch it is */
    ct_tensor *slot[8];
    int requested;              /* batch index the worker should build next (-1: none) */
    int slot_err;
    char slot_msg[256];
#endif
};
static void ct__dl_new_epoch(ct_dataloader *dl) {
    int64_t n = dl->ds->len;
    for (int64_t i = 0; i < n; i++) dl->order[i] = i;
    if (dl->opt.shuffle) /* PyTorch's randperm on CPU: for i, swap r[i] with r[i + random() % (n - i)] */
        for (int64_t i = 0; i + 1 < n; i++) {
            int64_t z = (int64_t)(ct__mt_next(&dl->gen) % (uint64_t)(n - i));
            int64_t t = dl->order[i];
            dl->order[i] = dl->order[z + i];
            dl->order[z + i] = t;
        }
    dl->next_batch = 0;
}
/* builds batch k of the current order into out[] (new tensors, no scope) */
static int ct__dl_build(ct_dataloader *dl, int64_t k, ct_tensor **out) {
    int64_t bs = dl->opt.batch_size, start = k * bs, cnt = dl->ds->len - start < bs ? dl->ds->len - start : bs;
    for (int i = 0; i < dl->ds->n; i++) {
        ct_tensor *src = dl->ds->t[i];
        int64_t shape[CT_MAX_DIMS];
        shape[0] = cnt;
        for (int d = 1; d < src->ndim; d++) shape[d] = src->shape[d];
        ct_tensor *b = ct__alloc(src->dtype, src->ndim, shape, NULL, ct__cpu_dev);
        if (!b) { for (int q = 0; q < i; q++) ct__decref(out[q]); return -1; }
        size_t row = (size_t)(ct_numel(src) / (src->shape[0] ? src->shape[0] : 1)) * ct__dt[src->dtype].size;
        const char *sp = ct__ptr(src);
        char *dp = ct__ptr(b);
        for (int64_t r = 0; r < cnt; r++) memcpy(dp + (size_t)r * row, sp + (size_t)dl->order[start + r] * row, row);
        out[i] = b;
    }
    return 0;
}
#ifdef CT__HAVE_PTHREADS
static void *ct__dl_worker(void *arg) {
    ct_dataloader *dl = (ct_dataloader *)arg;
    pthread_mutex_lock(&dl->mu);
    for (;;) {
        while (!dl->stop && (dl->requested < 0 || dl->slot_full)) pthread_cond_wait(&dl->cv, &dl->mu);
        if (dl->stop) break;
        int64_t k = dl->requested;
        dl->requested = -1;
        pthread_mutex_unlock(&dl->mu);
        ct_tensor *b[8];
        int rc = ct__dl_build(dl, k, b);
        pthread_mutex_lock(&dl->mu);
        dl->slot_err = rc;
        if (rc) {   /* the message is copied across threads (the error state is thread-local) */
            strncpy(dl->slot_msg, ct_last_error(), sizeof dl->slot_msg - 1);
            dl->slot_msg[sizeof dl->slot_msg - 1] = 0;
        }
        else for (int i = 0; i < dl->ds->n; i++) dl->slot[i] = b[i];
        dl->slot_index = k;
        dl->slot_full = 1;
        pthread_cond_broadcast(&dl->cv);
    }
    pthread_mutex_unlock(&dl->mu);
    ct_thread_cleanup();
    return NULL;
}
#endif
CTENSOR_API ct_dataloader *ct_dataloader_new(ct_dataset *ds, const ct_dataloader_options *opt) {
    if (!ds) return (ct_dataloader *)ct__fail(CT_ERR_ARG, "DataLoader: dataset is NULL");
    ct_dataloader *dl = CT__NEW_ZEROED(ct_dataloader);
    if (!dl) return (ct_dataloader *)ct__fail(CT_ERR_MEMORY, "DataLoader: out of memory");
    dl->ds = ds;
    if (opt) dl->opt = *opt;
    if (dl->opt.batch_size < 0) {
        long long bs = (long long)dl->opt.batch_size;
        CT_FREE(dl);
        return (ct_dataloader *)ct__fail(CT_ERR_ARG, "DataLoader: batch_size should be a positive integer value, but got batch_size=%lld", bs);
    }
    if (dl->opt.batch_size == 0) dl->opt.batch_size = 1;
    ct_generator_init(&dl->gen, dl->opt.seed);
    dl->order = CT__NEW_ARRAY(int64_t, ds->len);
    if (!dl->order) { CT_FREE(dl); return (ct_dataloader *)ct__fail(CT_ERR_MEMORY, "DataLoader: out of memory"); }
    int64_t bs = dl->opt.batch_size;
    dl->nbatches = dl->opt.drop_last ? ds->len / bs : (ds->len + bs - 1) / bs;
    ct__dl_new_epoch(dl);
#ifdef CT__HAVE_PTHREADS
    dl->requested = -1;
    if (dl->opt.prefetch) {
        pthread_mutex_init(&dl->mu, NULL);
        pthread_cond_init(&dl->cv, NULL);
        if (pthread_create(&dl->thread, NULL, ct__dl_worker, dl) == 0) dl->running = 1;
        else { pthread_mutex_destroy(&dl->mu); pthread_cond_destroy(&dl->cv); }
    }
#endif
    return dl;
}
CTENSOR_API int64_t ct_dataloader_num_batches(const ct_dataloader *dl) { return dl ? dl->nbatches : -1; }
static void ct__dl_drop_current(ct_dataloader *dl) {
    if (!dl->have_cur) return;
    for (int i = 0; i < dl->ds->n; i++) ct__decref(dl->cur[i]);
    dl->have_cur = 0;
}
CTENSOR_API int ct_dataloader_next(ct_dataloader *dl, ct_batch *b) {
    if (!dl || !b) { ct_set_error(CT_ERR_ARG, "DataLoader: loader or batch is NULL"); return -1; }
    ct__dl_drop_current(dl);
    memset(b, 0, sizeof *b);
    if (dl->next_batch >= dl->nbatches) {
        ct__dl_new_epoch(dl);
        return 0;
    }
    int64_t k = dl->next_batch++;
    int n = dl->ds->n;
#ifdef CT__HAVE_PTHREADS
    if (dl->running) {
        pthread_mutex_lock(&dl->mu);
        if (!(dl->slot_full && dl->slot_index == k) && dl->requested != k) {
            /* nothing prefetched for k (first batch of an epoch): ask for it */
            while (dl->slot_full && dl->slot_index != k) {  /* discard a stale slot */
                if (!dl->slot_err) for (int i = 0; i < n; i++) ct__decref(dl->slot[i]);
                dl->slot_full = 0;
            }
            dl->requested = k;
            pthread_cond_broadcast(&dl->cv);
        }
        while (!dl->slot_full) pthread_cond_wait(&dl->cv, &dl->mu);
        int err = dl->slot_err;
        if (!err) for (int i = 0; i < n; i++) dl->cur[i] = dl->slot[i];
        dl->slot_full = 0;
        if (dl->next_batch < dl->nbatches) {   /* start on the next one while the caller works */
            dl->requested = dl->next_batch;
            pthread_cond_broadcast(&dl->cv);
        }
        pthread_mutex_unlock(&dl->mu);
        if (err) { ct_set_error(CT_ERR_MEMORY, "DataLoader: %s", dl->slot_msg); return -1; }
    } else
#endif
    {
        if (ct__dl_build(dl, k, dl->cur)) return -1;
    }
    dl->have_cur = 1;
    b->n = n;
    for (int i = 0; i < n; i++) b->items[i] = dl->cur[i];
    b->x = b->items[0];
    b->y = n > 1 ? b->items[1] : NULL;
    b->index = k;
    return 1;
}
CTENSOR_API void ct_dataloader_free(ct_dataloader *dl) {
    if (!dl) return;
#ifdef CT__HAVE_PTHREADS
    if (dl->running) {
        pthread_mutex_lock(&dl->mu);
        dl->stop = 1;
        pthread_cond_broadcast(&dl->cv);
        pthread_mutex_unlock(&dl->mu);
        pthread_join(dl->thread, NULL);
        if (dl->slot_full && !dl->slot_err)
            for (int i = 0; i < dl->ds->n; i++) ct__decref(dl->slot[i]);
        pthread_mutex_destroy(&dl->mu);
        pthread_cond_destroy(&dl->cv);
    }
#endif
    ct__dl_drop_current(dl);
    CT_FREE(dl->order);
    CT_FREE(dl);
}

/* [section: transformer-impl] */
/* ============================================================================
   Attention and transformers: modules (regular path)
   MultiheadAttention follows F.multi_head_attention_forward of PyTorch 1.13 op
   for op (projections, mask merging, baddbmm, softmax, dropout, bmm, out_proj),
   so values and gradients match. The encoder layer decides here whether the
   fastpath (next section) runs; the decision and its reason follow PyTorch's.
   ========================================================================== */
typedef struct ct__mha_impl {
    int64_t E, H, kdim, vdim;
    double dropout;
    int bias, bias_kv, zero_attn, batch_first, same;
} ct__mha_impl;
enum { CT__TL_ENC = 1, CT__TL_DEC = 2, CT__TL_ENCODER = 3, CT__TL_DECODER = 4, CT__TL_TRANSFORMER = 5 };
typedef struct ct__tl_impl {
    int kind;
    int64_t d, nhead, dff;
    double dropout, eps;
    int gelu, batch_first, norm_first;
    int nested, mask_check;          /* encoder: enable_nested_tensor, mask_check */
    int nlayers;
} ct__tl_impl;
static CT_THREAD_LOCAL char ct__tf_why[192];
static int ct__tf_disabled;          /* ct_set_transformer_fastpath(0) */
CTENSOR_API void ct_set_transformer_fastpath(int enabled) { ct__tf_disabled = !enabled; }
CTENSOR_API int ct_get_transformer_fastpath(void) { return !ct__tf_disabled; }
CTENSOR_API const char *ct_transformer_fastpath_why_not(void) { return ct__tf_why; }
static void ct__tf_set_why(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void ct__tf_set_why(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ct__tf_why, sizeof ct__tf_why, fmt, ap);
    va_end(ap);
}
static ct_tensor *ct__mparam(const ct_module *m, const char *name) {
    for (int i = 0; i < m->nparams; i++)
        if (!strcmp(m->params[i].name, name)) return m->params[i].tensor;
    return NULL;
}
static ct_module *ct__mchild(const ct_module *m, const char *name) {
    for (int i = 0; i < m->nchildren; i++)
        if (!strcmp(m->children[i].name, name)) return m->children[i].module;
    return NULL;
}
static int ct__is_type(const ct_module *m, const char *name) { return m && m->type && !strcmp(m->type->name, name); }

/* ---- MultiheadAttention ---- */
static int ct__mask_dtype_ok(const ct_tensor *t) { return t->dtype == CT_BOOL || t->dtype == CT_UINT8 || CT__ISFLOAT(t->dtype); }
/* bool/uint8 mask -> float additive mask (-inf where true); float masks unchanged */
static ct_tensor *ct__mask_to_float(const ct_tensor *mask, ct_dtype dt) {
    if (CT__ISFLOAT(mask->dtype)) return mask->dtype == dt ? ct_alias(mask) : ct_to(mask, dt);
    ct_tensor *b = mask->dtype == CT_BOOL ? ct_alias(mask) : ct_to(mask, CT_BOOL);
    ct_tensor *z = ct_zeros_n(dt, b ? b->ndim : 0, b ? b->shape : NULL);
    return ct_masked_fill(z, b, -INFINITY);
}
static ct_tensor *ct__pad_last(const ct_tensor *t) {   /* F.pad(t, (0, 1)) with zeros (false) */
    int64_t pads[2] = {0, 1};
    if (t->dtype == CT_BOOL) {
        ct_tensor *z = ct_zeros_n(CT_BOOL, t->ndim, t->shape);
        ct_tensor *zc = ct_narrow(z, t->ndim - 1, 0, 1);
        ct_tensor *parts[2] = {(ct_tensor *)t, zc};
        return ct_cat(2, parts, t->ndim - 1);
    }
    return ct_pad(t, 2, pads, "constant", 0.0);
}
static ct_tensor *ct__mha_regular(ct_module *m, const ct_tensor *query, const ct_tensor *key, const ct_tensor *value,
                                  const ct_mha_args *a, ct_tensor **weights) {
    const ct__mha_impl *im = (const ct__mha_impl *)m->impl;
    const ct_tensor *kpm = a ? a->key_padding_mask : NULL, *am = a ? a->attn_mask : NULL;
    int batched = query->ndim == 3;
    int64_t E = im->E, H = im->H, hd = E / H;
    ct_tensor *q0 = (ct_tensor *)query, *k0 = (ct_tensor *)key, *v0 = (ct_tensor *)value;
    if (batched && im->batch_first) {
        q0 = ct_transpose(query, 0, 1);
        k0 = key == query ? q0 : ct_transpose(key, 0, 1);
        v0 = value == key ? k0 : ct_transpose(value, 0, 1);
    } else if (!batched) {
        q0 = ct_unsqueeze(query, 1);
        k0 = key == query ? q0 : ct_unsqueeze(key, 1);
        v0 = value == key ? k0 : ct_unsqueeze(value, 1);
        if (kpm) kpm = ct_unsqueeze(kpm, 0);
    }
    if (!q0 || !k0 || !v0 || (a && a->key_padding_mask && !kpm)) return NULL;
    int64_t L = q0->shape[0], N = q0->shape[1], S = k0->shape[0];
    ct_tensor *bq = NULL, *bk = NULL, *bv = NULL, *in_b = ct__mparam(m, "in_proj_bias");
    if (in_b) { bq = ct_narrow(in_b, 0, 0, E); bk = ct_narrow(in_b, 0, E, E); bv = ct_narrow(in_b, 0, 2 * E, E); }
    ct_tensor *q, *k, *v;
    if (im->same) {
        ct_tensor *w = ct__mparam(m, "in_proj_weight");
        if (q0 == k0 && k0 == v0) {
            ct_tensor *proj = ct_linear(q0, w, in_b), *parts[3] = {NULL, NULL, NULL};
            if (!proj || ct_chunk(proj, 3, -1, parts, 3) != 3) return NULL;
            q = parts[0]; k = parts[1]; v = parts[2];
        } else {
            q = ct_linear(q0, ct_narrow(w, 0, 0, E), bq);
            if (k0 == v0) {
                ct_tensor *kv = ct_linear(k0, ct_narrow(w, 0, E, 2 * E), in_b ? ct_narrow(in_b, 0, E, 2 * E) : NULL), *parts[2] = {NULL, NULL};
                if (!kv || ct_chunk(kv, 2, -1, parts, 2) != 2) return NULL;
                k = parts[0]; v = parts[1];
            } else {
                k = ct_linear(k0, ct_narrow(w, 0, E, E), bk);
                v = ct_linear(v0, ct_narrow(w, 0, 2 * E, E), bv);
            }
        }
    } else {
        q = ct_linear(q0, ct__mparam(m, "q_proj_weight"), bq);
        k = ct_linear(k0, ct__mparam(m, "k_proj_weight"), bk);
        v = ct_linear(v0, ct__mparam(m, "v_proj_weight"), bv);
    }
    if (!q || !k || !v) return NULL;
    ct_dtype dt = q->dtype;
    ct_tensor *mask = NULL;   /* [1 or N*H, L, S'] */
    if (am) {
        mask = am->dtype == CT_UINT8 ? ct_to(am, CT_BOOL) : ct_alias(am);
        if (mask && mask->ndim == 2) mask = ct_unsqueeze(mask, 0);
    } else if (a && a->is_causal) {
        ct_tensor *ones = ct_ones_on_n(q->device, CT_BOOL, 2, CT__INTS(L, S));
        mask = ct_unsqueeze(ct_triu(ones, 1), 0);
    }
    if ((am || (a && a->is_causal)) && !mask) return NULL;
    ct_tensor *kp = kpm ? ct_alias(kpm) : NULL;
    if (kpm && !kp) return NULL;
    if (im->bias_kv) {
        ct_tensor *bkr = ct_repeat(ct__mparam(m, "bias_k"), 3, CT__INTS(1, N, 1));
        ct_tensor *bvr = ct_repeat(ct__mparam(m, "bias_v"), 3, CT__INTS(1, N, 1));
        ct_tensor *pk[2] = {k, bkr}, *pv[2] = {v, bvr};
        k = ct_cat(2, pk, 0);
        v = ct_cat(2, pv, 0);
        if (mask) mask = ct__pad_last(mask);
        if (kp) kp = ct__pad_last(kp);
        if (!k || !v || (mask == NULL && (am || (a && a->is_causal))) || (kpm && !kp)) return NULL;
    }
    q = ct_transpose(ct_view(ct_contiguous(q), L, N * H, hd), 0, 1);
    k = ct_transpose(ct_view(ct_contiguous(k), k->shape[0], N * H, hd), 0, 1);
    v = ct_transpose(ct_view(ct_contiguous(v), v->shape[0], N * H, hd), 0, 1);
    if (!q || !k || !v) return NULL;
    if (im->zero_attn) {
        ct_tensor *z = ct_zeros_n(dt, 3, CT__INTS(N * H, 1, hd));
        ct_tensor *pk[2] = {k, z}, *pv[2] = {v, z};
        k = ct_cat(2, pk, 1);
        v = ct_cat(2, pv, 1);
        if (mask) mask = ct__pad_last(mask);
        if (kp) kp = ct__pad_last(kp);
        if (!k || !v || (mask == NULL && (am || (a && a->is_causal))) || (kpm && !kp)) return NULL;
    }
    S = k->shape[1];
    if (kp) {
        if (kp->ndim != 2 || kp->shape[0] != N || kp->shape[1] != S)
            return ct__fail(CT_ERR_SHAPE, "MultiheadAttention: expecting key_padding_mask shape of (%lld, %lld), but got %s",
                            (long long)N, (long long)S, CT__SHAPE(kp));
        ct_tensor *kx = ct_reshape(ct_expand(ct_view(kp, N, 1, 1, S), N, H, 1, S), N * H, 1, S);
        if (!kx) return NULL;
        if (kx->dtype == CT_UINT8) kx = ct_to(kx, CT_BOOL);
        if (!mask) mask = kx;
        else if (mask->dtype == CT_BOOL && kx->dtype == CT_BOOL) mask = ct_logical_or(mask, kx);
        else mask = ct_add(ct__mask_to_float(mask, dt), ct__mask_to_float(kx, dt));
        if (!mask) return NULL;
    }
    if (mask && !CT__ISFLOAT(mask->dtype)) mask = ct__mask_to_float(mask, dt);
    if (mask && mask->dtype != dt) mask = ct_to(mask, dt);
    if (mask && !mask) return NULL;
    double p = m->training ? im->dropout : 0.0;
    ct_tensor *qs = ct_div_scalar(q, sqrt((double)hd));
    ct_tensor *kt = ct_transpose(k, -2, -1);
    ct_tensor *w = mask ? ct_baddbmm(ct_expand(mask, N * H, L, S), qs, kt, 1.0, 1.0) : ct_bmm(qs, kt);
    w = ct_softmax(w, -1);
    if (p > 0.0) w = ct_dropout(w, p, 1);
    ct_tensor *o = ct_bmm(w, v);
    o = ct_view(ct_contiguous(ct_transpose(o, 0, 1)), L * N, E);
    ct_module *op = ct__mchild(m, "out_proj");
    o = ct_view(ct_linear(o, ct__mparam(op, "weight"), ct__mparam(op, "bias")), L, N, E);
    if (!o) return NULL;
    if (weights) {
        ct_tensor *wv = ct_view(w, N, H, L, S);
        if (!a || !a->per_head_weights) wv = ct_div_scalar(ct_sum_dim(wv, 1, 0), (double)H);
        if (!batched) wv = ct_squeeze_dim(wv, 0);
        if (!wv) return NULL;
        *weights = wv;
    }
    if (batched && im->batch_first) o = ct_transpose(o, 0, 1);
    else if (!batched) o = ct_squeeze_dim(o, 1);
    return o;
}
/* shape and dtype checks with PyTorch's messages (its asserts in _mha_shape_check
   and multi_head_attention_forward) */
static int ct__mha_check(const ct_module *m, const ct_tensor *q, const ct_tensor *k, const ct_tensor *v, const ct_mha_args *a) {
    const ct__mha_impl *im = (const ct__mha_impl *)m->impl;
    const ct_tensor *kpm = a ? a->key_padding_mask : NULL, *am = a ? a->attn_mask : NULL;
    const char *op = "MultiheadAttention";
    if (!q || !k || !v) { ct__null_arg(op, !q ? 0 : !k ? 1 : 2); return -1; }
    if (!CT__ISFLOAT(q->dtype) || k->dtype != q->dtype || v->dtype != q->dtype) {
        ct_set_error(CT_ERR_DTYPE, "%s: query, key and value must be floating point tensors of one dtype (got %s, %s, %s)", op,
                     ct_dtype_name(q->dtype), ct_dtype_name(k->dtype), ct_dtype_name(v->dtype));
        return -1;
    }
    ct_tensor *w = ct__mparam(m, im->same ? "in_proj_weight" : "q_proj_weight");
    if (w && w->dtype != q->dtype) {
        ct_set_error(CT_ERR_DTYPE, "%s: expected query and the weights to have the same dtype, but got %s query and %s weights",
                     op, ct_dtype_name(q->dtype), ct_dtype_name(w->dtype));
        return -1;
    }
    if (q->ndim == 3) {
        if (k->ndim != 3 || v->ndim != 3) {
            ct_set_error(CT_ERR_SHAPE, "%s: For batched (3-D) `query`, expected `key` and `value` to be 3-D but found %d-D and %d-D tensors respectively", op, k->ndim, v->ndim);
            return -1;
        }
        if (kpm && kpm->ndim != 2) {
            ct_set_error(CT_ERR_SHAPE, "%s: For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found %d-D tensor instead", op, kpm->ndim);
            return -1;
        }
        if (am && am->ndim != 2 && am->ndim != 3) {
            ct_set_error(CT_ERR_SHAPE, "%s: For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found %d-D tensor instead", op, am->ndim);
            return -1;
        }
    } else if (q->ndim == 2) {
        if (k->ndim != 2 || v->ndim != 2) {
            ct_set_error(CT_ERR_SHAPE, "%s: For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found %d-D and %d-D tensors respectively", op, k->ndim, v->ndim);
            return -1;
        }
        if (kpm && kpm->ndim != 1) {
            ct_set_error(CT_ERR_SHAPE, "%s: For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found %d-D tensor instead", op, kpm->ndim);
            return -1;
        }
        if (am && am->ndim != 2 && am->ndim != 3) {
            ct_set_error(CT_ERR_SHAPE, "%s: For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found %d-D tensor instead", op, am->ndim);
            return -1;
        }
    } else {
        ct_set_error(CT_ERR_SHAPE, "%s: query should be unbatched 2D or batched 3D tensor but received %d-D query tensor", op, q->ndim);
        return -1;
    }
    int b3 = q->ndim == 3, bf = b3 && im->batch_first;
    int64_t L = q->shape[bf ? 1 : 0], N = b3 ? q->shape[bf ? 0 : 1] : 1, S = k->shape[bf ? 1 : 0];
    int64_t E = q->shape[q->ndim - 1];
    if (E != im->E) {
        ct_set_error(CT_ERR_SHAPE, "%s: was expecting embedding dimension of %lld, but got %lld", op, (long long)im->E, (long long)E);
        return -1;
    }
    if (k->shape[k->ndim - 1] != im->kdim || v->shape[v->ndim - 1] != im->vdim) {
        ct_set_error(CT_ERR_SHAPE, "%s: expected key and value of feature sizes kdim=%lld and vdim=%lld, but got %lld and %lld", op,
                     (long long)im->kdim, (long long)im->vdim, (long long)k->shape[k->ndim - 1], (long long)v->shape[v->ndim - 1]);
        return -1;
    }
    if (im->same ? (k->ndim != v->ndim || memcmp(k->shape, v->shape, sizeof(int64_t) * (size_t)k->ndim))
                 : (k->shape[0] != v->shape[0] || (b3 && k->shape[1] != v->shape[1]))) {
        ct_set_error(CT_ERR_SHAPE, "%s: key shape %s does not match value shape %s", op, CT__SHAPE(k), CT__SHAPE(v));
        return -1;
    }
    if (b3 && k->shape[bf ? 0 : 1] != N) {
        ct_set_error(CT_ERR_SHAPE, "%s: query batch size %lld does not match key batch size %lld", op, (long long)N, (long long)k->shape[bf ? 0 : 1]);
        return -1;
    }
    if (kpm && kpm->dtype != CT_BOOL && !CT__ISFLOAT(kpm->dtype)) {
        ct_set_error(CT_ERR_DTYPE, "%s: only bool and floating types of key_padding_mask are supported (got %s)", op, ct_dtype_name(kpm->dtype));
        return -1;
    }
    if (am) {
        if (!ct__mask_dtype_ok(am)) {
            ct_set_error(CT_ERR_DTYPE, "%s: Only float, byte, and bool types are supported for attn_mask, not %s", op, ct_dtype_name(am->dtype));
            return -1;
        }
        if (am->ndim == 2 && (am->shape[0] != L || am->shape[1] != S)) {
            ct_set_error(CT_ERR_SHAPE, "%s: The shape of the 2D attn_mask is %s, but should be (%lld, %lld).", op, CT__SHAPE(am), (long long)L, (long long)S);
            return -1;
        }
        if (am->ndim == 3 && (am->shape[0] != N * im->H || am->shape[1] != L || am->shape[2] != S)) {
            ct_set_error(CT_ERR_SHAPE, "%s: The shape of the 3D attn_mask is %s, but should be (%lld, %lld, %lld).", op, CT__SHAPE(am),
                         (long long)(N * im->H), (long long)L, (long long)S);
            return -1;
        }
    }
    int64_t Sx = S + (im->bias_kv ? 1 : 0) + (im->zero_attn ? 1 : 0);
    if (kpm && (kpm->shape[0] != (b3 ? N : S) || (b3 && kpm->shape[1] != S))) {
        if (b3) ct_set_error(CT_ERR_SHAPE, "%s: expecting key_padding_mask shape of (%lld, %lld), but got %s", op, (long long)N, (long long)S, CT__SHAPE(kpm));
        else ct_set_error(CT_ERR_SHAPE, "%s: expecting key_padding_mask shape of (%lld,), but got %s", op, (long long)S, CT__SHAPE(kpm));
        return -1;
    }
    (void)Sx;
    return 0;
}
static ct_tensor *ct__mha_fast(ct_module *m, const ct_tensor *x, const ct_tensor *kpm, int causal, ct_tensor **weights);
static int ct__mha_fast_ok(ct_module *m, const ct_tensor *q, const ct_tensor *k, const ct_tensor *v, const ct_mha_args *a);
CTENSOR_API ct_tensor *ct_mha_forward(ct_module *m, const ct_tensor *query, const ct_tensor *key, const ct_tensor *value,
                                      const ct_mha_args *a, ct_tensor **attn_weights) {
    if (attn_weights) *attn_weights = NULL;
    if (!m) return ct__fail(CT_ERR_NULL, "MultiheadAttention: module is NULL");
    if (!ct__is_type(m, "MultiheadAttention"))
        return ct__fail(CT_ERR_ARG, "MultiheadAttention: expected a MultiheadAttention module (got %s)", m->type->name);
    if (ct__mha_check(m, query, key, value, a)) return NULL;
    ct_tensor *w = NULL, *r;
    int s = ct_scope_begin();
    if (ct__mha_fast_ok(m, query, key, value, a))
        r = ct__mha_fast(m, query, a ? a->key_padding_mask : NULL, a ? a->is_causal : 0, attn_weights ? &w : NULL);
    else
        r = ct__mha_regular(m, query, key, value, a, attn_weights ? &w : NULL);
    if (r) { ct_keep(r); if (w) ct_keep(w); }
    ct_scope_end(s);
    if (attn_weights) *attn_weights = r ? w : NULL;
    return r;
}
static ct_tensor *ct__mha_mod_forward(ct_module *m, int nin, ct_tensor *const *in) {
    if (nin == 1) return ct_mha_forward(m, in[0], in[0], in[0], NULL, NULL);
    if (nin == 3) return ct_mha_forward(m, in[0], in[1], in[2], NULL, NULL);
    return ct__fail(CT_ERR_ARG, "MultiheadAttention: forward takes 1 (self-attention) or 3 inputs (got %d)", nin);
}
static int ct__mha_repr(const ct_module *m, char *buf, size_t cap) { (void)m; if (cap) buf[0] = 0; return 0; }
static const ct_module_type ct__mha_type = {"MultiheadAttention", ct__mha_mod_forward, ct__free_impl, ct__mha_repr};
CTENSOR_API ct_module *ct_nn_multihead_attention(int64_t E, int64_t H, const ct_mha_options *o) {
    if (E <= 0 || H <= 0)
        return (ct_module *)ct__fail(CT_ERR_ARG, "MultiheadAttention: embed_dim (%lld) and num_heads (%lld) must be positive", (long long)E, (long long)H);
    if (E % H)
        return (ct_module *)ct__fail(CT_ERR_ARG, "MultiheadAttention: embed_dim must be divisible by num_heads (embed_dim=%lld, num_heads=%lld)", (long long)E, (long long)H);
    double p = o ? o->dropout : 0.0;
    if (!(p >= 0.0 && p <= 1.0)) return (ct_module *)ct__fail(CT_ERR_ARG, "MultiheadAttention: dropout probability has to be between 0 and 1, but got %g", p);
    if (o && (o->kdim < 0 || o->vdim < 0)) return (ct_module *)ct__fail(CT_ERR_ARG, "MultiheadAttention: kdim and vdim must be non-negative");
    ct__mha_impl *im = CT__NEW_ZEROED(ct__mha_impl);
    ct_module *m = im ? ct_module_new(&ct__mha_type, im) : NULL;
    if (!m) { CT_FREE(im); return (ct_module *)ct__fail(CT_ERR_MEMORY, "MultiheadAttention: out of memory"); }
    im->E = E; im->H = H;
    im->kdim = o && o->kdim ? o->kdim : E;
    im->vdim = o && o->vdim ? o->vdim : E;
    im->same = im->kdim == E && im->vdim == E;
    im->dropout = p;
    im->bias = !(o && o->no_bias);
    im->bias_kv = o && o->add_bias_kv;
    im->zero_attn = o && o->add_zero_attn;
    im->batch_first = o && o->batch_first;
    int s = ct_scope_begin();
    ct_dtype dt = ct_get_default_dtype();
    ct_tensor *w = NULL, *wq = NULL, *wk = NULL, *wv = NULL, *b = NULL, *bk = NULL, *bv = NULL;
    int ok = 1;
    if (im->same) {
        ok = (w = ct_empty(dt, 3 * E, E)) && !ct_module_register_parameter(m, "in_proj_weight", w) &&
             !ct_module_register_parameter(m, "q_proj_weight", NULL) && !ct_module_register_parameter(m, "k_proj_weight", NULL) &&
             !ct_module_register_parameter(m, "v_proj_weight", NULL);
    } else {
        ok = (wq = ct_empty(dt, E, E)) && (wk = ct_empty(dt, E, im->kdim)) && (wv = ct_empty(dt, E, im->vdim)) &&
             !ct_module_register_parameter(m, "q_proj_weight", wq) && !ct_module_register_parameter(m, "k_proj_weight", wk) &&
             !ct_module_register_parameter(m, "v_proj_weight", wv) && !ct_module_register_parameter(m, "in_proj_weight", NULL);
    }
    ok = ok && (!im->bias || (b = ct_empty(dt, 3 * E))) && !ct_module_register_parameter(m, "in_proj_bias", b);
    /* out_proj is made (and initialized, drawing from the generator) before _reset_parameters, as in PyTorch */
    ct_module *op = ok ? ct_nn_linear_bias(E, E, im->bias) : NULL;
    ok = ok && op && !ct_module_add_module(m, "out_proj", op);
    if (ok && im->bias_kv)
        ok = (bk = ct_empty(dt, 1, 1, E)) && (bv = ct_empty(dt, 1, 1, E)) && !ct_module_register_parameter(m, "bias_k", bk) &&
             !ct_module_register_parameter(m, "bias_v", bv);
    /* _reset_parameters */
    if (ok) {
        if (im->same) ok = ct_nn_init_xavier_uniform_(w, 1.0) != NULL;
        else ok = ct_nn_init_xavier_uniform_(wq, 1.0) && ct_nn_init_xavier_uniform_(wk, 1.0) && ct_nn_init_xavier_uniform_(wv, 1.0);
    }
    if (ok && b) ok = ct_nn_init_zeros_(b) && ct_nn_init_zeros_(ct__mparam(op, "bias"));
    if (ok && bk) ok = ct_nn_init_xavier_normal_(bk, 1.0) && ct_nn_init_xavier_normal_(bv, 1.0);
    ct_scope_end(s);
    if (!ok) { ct_module_free(m); return NULL; }
    return m;
}

/* ---- encoder and decoder layers, stacks, Transformer ---- */
static int ct__tl_check_opts(const char *name, int64_t d, int64_t nhead, const ct_transformer_layer_options *o) {
    if (d <= 0 || nhead <= 0) { ct_set_error(CT_ERR_ARG, "%s: d_model (%lld) and nhead (%lld) must be positive", name, (long long)d, (long long)nhead); return -1; }
    if (d % nhead) { ct_set_error(CT_ERR_ARG, "%s: embed_dim must be divisible by num_heads (d_model=%lld, nhead=%lld)", name, (long long)d, (long long)nhead); return -1; }
    if (o && o->dim_feedforward < 0) { ct_set_error(CT_ERR_ARG, "%s: dim_feedforward must be positive (got %lld)", name, (long long)o->dim_feedforward); return -1; }
    if (o && o->activation && strcmp(o->activation, "relu") && strcmp(o->activation, "gelu")) {
        ct_set_error(CT_ERR_ARG, "%s: activation should be relu/gelu, not %s", name, o->activation);
        return -1;
    }
    double p = o ? ct__opt_default(o->dropout, 0.1) : 0.1;
    if (!(p >= 0.0 && p <= 1.0)) { ct_set_error(CT_ERR_ARG, "%s: dropout probability has to be between 0 and 1, but got %g", name, p); return -1; }
    return 0;
}
static ct_tensor *ct__tl_forward(ct_module *m, int nin, ct_tensor *const *in);
static int ct__tl_repr(const ct_module *m, char *buf, size_t cap) {
    const ct__tl_impl *im = (const ct__tl_impl *)m->impl;
    if (cap) buf[0] = 0;
    if (im->kind == CT__TL_TRANSFORMER || im->kind == CT__TL_ENC || im->kind == CT__TL_DEC) return 0;
    return 0;
}
static const ct_module_type ct__tel_type = {"TransformerEncoderLayer", ct__tl_forward, ct__free_impl, ct__tl_repr};
static const ct_module_type ct__tdl_type = {"TransformerDecoderLayer", ct__tl_forward, ct__free_impl, ct__tl_repr};
static const ct_module_type ct__te_type = {"TransformerEncoder", ct__tl_forward, ct__free_impl, ct__tl_repr};
static const ct_module_type ct__td_type = {"TransformerDecoder", ct__tl_forward, ct__free_impl, ct__tl_repr};
static const ct_module_type ct__tr_type = {"Transformer", ct__tl_forward, ct__free_impl, ct__tl_repr};
static ct_module *ct__tl_new(const ct_module_type *ty, int kind) {
    ct__tl_impl *im = CT__NEW_ZEROED(ct__tl_impl);
    ct_module *m = im ? ct_module_new(ty, im) : NULL;
    if (!m) { CT_FREE(im); return (ct_module *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", ty->name); }
    im->kind = kind;
    return m;
}
static int ct__add(ct_module *m, const char *name, ct_module *child) { return !child || ct_module_add_module(m, name, child) != CT_OK; }
static ct_module *ct__layer_new(int dec, int64_t d, int64_t nhead, const ct_transformer_layer_options *o) {
    const char *name = dec ? "TransformerDecoderLayer" : "TransformerEncoderLayer";
    if (ct__tl_check_opts(name, d, nhead, o)) return NULL;
    ct_module *m = ct__tl_new(dec ? &ct__tdl_type : &ct__tel_type, dec ? CT__TL_DEC : CT__TL_ENC);
    if (!m) return NULL;
    ct__tl_impl *im = (ct__tl_impl *)m->impl;
    im->d = d; im->nhead = nhead;
    im->dff = o && o->dim_feedforward ? o->dim_feedforward : 2048;
    im->dropout = o ? ct__opt_default(o->dropout, 0.1) : 0.1;
    im->eps = o ? ct__opt_default(o->layer_norm_eps, 1e-5) : 1e-5;
    im->gelu = o && o->activation && !strcmp(o->activation, "gelu");
    im->batch_first = o && o->batch_first;
    im->norm_first = o && o->norm_first;
    ct_mha_options mo;
    memset(&mo, 0, sizeof mo);
    mo.dropout = im->dropout;
    mo.batch_first = im->batch_first;
    ct_layer_norm_options lo;
    memset(&lo, 0, sizeof lo);
    lo.eps = im->eps == 0.0 ? CT_ZERO : im->eps;
    int bad = ct__add(m, "self_attn", ct_nn_multihead_attention(d, nhead, &mo));
    if (dec) bad = bad || ct__add(m, "multihead_attn", ct_nn_multihead_attention(d, nhead, &mo));
    bad = bad || ct__add(m, "linear1", ct_nn_linear(d, im->dff)) || ct__add(m, "dropout", ct_nn_dropout(im->dropout)) ||
          ct__add(m, "linear2", ct_nn_linear(im->dff, d)) || ct__add(m, "norm1", ct_nn_layer_norm_ex(1, &d, &lo)) ||
          ct__add(m, "norm2", ct_nn_layer_norm_ex(1, &d, &lo));
    if (dec) bad = bad || ct__add(m, "norm3", ct_nn_layer_norm_ex(1, &d, &lo));
    bad = bad || ct__add(m, "dropout1", ct_nn_dropout(im->dropout)) || ct__add(m, "dropout2", ct_nn_dropout(im->dropout));
    if (dec) bad = bad || ct__add(m, "dropout3", ct_nn_dropout(im->dropout));
    if (bad) { ct_module_free(m); return NULL; }
    return m;
}
CTENSOR_API ct_module *ct_nn_transformer_encoder_layer(int64_t d, int64_t nhead, const ct_transformer_layer_options *o) { return ct__layer_new(0, d, nhead, o); }
CTENSOR_API ct_module *ct_nn_transformer_decoder_layer(int64_t d, int64_t nhead, const ct_transformer_layer_options *o) { return ct__layer_new(1, d, nhead, o); }
/* dst (same structure as src) gets copies of src's tensors: values, dtype, requires_grad */
static int ct__module_copy_values(ct_module *dst, const ct_module *src) {
    if (dst->nparams != src->nparams || dst->nbuffers != src->nbuffers || dst->nchildren != src->nchildren) {
        ct_set_error(CT_ERR_ARG, "%s: module copy: structures differ", src->type->name);
        return -1;
    }
    int s = ct_scope_begin(), pg = ct_set_grad_enabled(0), rc = 0;
    for (int k = 0; k < 2 && !rc; k++) {
        ct_named_tensor *d = k ? dst->buffers : dst->params;
        const ct_named_tensor *sr = k ? src->buffers : src->params;
        for (int i = 0; i < (k ? dst->nbuffers : dst->nparams) && !rc; i++) {
            if (!sr[i].tensor) continue;
            ct_tensor *c = ct_clone(sr[i].tensor);
            if (!c) { rc = -1; break; }
            if (!k && ct_get_requires_grad(sr[i].tensor)) ct_requires_grad(c);
            ct_retain(c);
            if (d[i].tensor) ct_release(d[i].tensor);
            d[i].tensor = c;
        }
    }
    ct_set_grad_enabled(pg);
    ct_scope_end(s);
    for (int i = 0; i < dst->nchildren && !rc; i++) rc = ct__module_copy_values(dst->children[i].module, src->children[i].module);
    return rc;
}
/* copy.deepcopy of a layer: a new one built from its settings without drawing
   random numbers, then the values copied */
static ct_module *ct__layer_clone(const ct_module *src) {
    const ct__tl_impl *im = (const ct__tl_impl *)src->impl;
    ct_transformer_layer_options o;
    memset(&o, 0, sizeof o);
    o.dim_feedforward = im->dff;
    o.dropout = im->dropout == 0.0 ? CT_ZERO : im->dropout;
    o.activation = im->gelu ? "gelu" : "relu";
    o.layer_norm_eps = im->eps == 0.0 ? CT_ZERO : im->eps;
    o.batch_first = im->batch_first;
    o.norm_first = im->norm_first;
    int prev = ct_nn_set_skip_init(1);
    ct_module *c = ct__layer_new(im->kind == CT__TL_DEC, im->d, im->nhead, &o);
    ct_nn_set_skip_init(prev);
    if (!c) return NULL;
    if (ct__module_copy_values(c, src)) { ct_module_free(c); return NULL; }
    ct_module_train(c, src->training);
    return c;
}
static ct_module *ct__stack_new(int dec, ct_module *layer, int n, ct_module *norm, const ct_transformer_encoder_options *o) {
    const char *name = dec ? "TransformerDecoder" : "TransformerEncoder";
    const char *lname = dec ? "TransformerDecoderLayer" : "TransformerEncoderLayer";
    ct_module *m = NULL, **ls = NULL, *list = NULL;
    ct__tl_impl *im = NULL;
    if (!layer) { ct__null_arg(name, 0); goto fail; }
    if (!ct__is_type(layer, lname)) { ct_set_error(CT_ERR_ARG, "%s: expected a %s (got %s)", name, lname, layer->type->name); goto fail; }
    if (n < 0) { ct_set_error(CT_ERR_ARG, "%s: num_layers must be non-negative (got %d)", name, n); goto fail; }
    if (norm && !ct__is_type(norm, "LayerNorm")) { ct_set_error(CT_ERR_ARG, "%s: norm must be a LayerNorm (got %s)", name, norm->type->name); goto fail; }
    m = ct__tl_new(dec ? &ct__td_type : &ct__te_type, dec ? CT__TL_DECODER : CT__TL_ENCODER);
    if (!m) goto fail;
    im = (ct__tl_impl *)m->impl;
    *im = *(const ct__tl_impl *)layer->impl;
    im->kind = dec ? CT__TL_DECODER : CT__TL_ENCODER;
    im->nlayers = n;
    im->nested = !(o && o->no_nested_tensor);
    im->mask_check = !(o && o->no_mask_check);
    ls = (ct_module **)CT_MALLOC(sizeof(ct_module *) * (size_t)(n > 0 ? n : 1));
    if (!ls) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", name); goto fail; }
    for (int i = 0; i < n; i++)
        if (!(ls[i] = i == 0 ? layer : ct__layer_clone(layer))) {
            for (int j = 1; j < i; j++) ct_module_free(ls[j]);
            goto fail;
        }
    if (n == 0) ct_module_free(layer);
    layer = NULL;
    list = ct_nn_module_list_n(n, ls);   /* takes the layers (frees them on failure) */
    CT_FREE(ls);
    ls = NULL;
    if (ct__add(m, "layers", list)) goto fail;
    if (norm) {
        ct_module *nm = norm;
        norm = NULL;
        if (ct__add(m, "norm", nm)) goto fail;
    }
    return m;
fail:
    CT_FREE(ls);
    ct_module_free(m);
    ct_module_free(layer);
    ct_module_free(norm);
    return NULL;
}
CTENSOR_API ct_module *ct_nn_transformer_encoder_ex(ct_module *layer, int n, ct_module *norm, const ct_transformer_encoder_options *o) {
    return ct__stack_new(0, layer, n, norm, o);
}
CTENSOR_API ct_module *ct_nn_transformer_encoder(ct_module *layer, int n, ct_module *norm) { return ct__stack_new(0, layer, n, norm, NULL); }
CTENSOR_API ct_module *ct_nn_transformer_decoder(ct_module *layer, int n, ct_module *norm) { return ct__stack_new(1, layer, n, norm, NULL); }
CTENSOR_API ct_module *ct_nn_transformer(int64_t d, int64_t nhead, const ct_transformer_options *o) {
    if (d == 0) d = 512;
    if (nhead == 0) nhead = 8;
    int64_t ne = o && o->num_encoder_layers ? o->num_encoder_layers : 6, nd = o && o->num_decoder_layers ? o->num_decoder_layers : 6;
    if (ne == CT_TRANSFORMER_NONE) ne = 0;
    if (nd == CT_TRANSFORMER_NONE) nd = 0;
    if (ne < 0 || nd < 0 || ne > INT32_MAX || nd > INT32_MAX)
        return (ct_module *)ct__fail(CT_ERR_ARG, "Transformer: bad layer counts (num_encoder_layers=%lld, num_decoder_layers=%lld)", (long long)ne, (long long)nd);
    const ct_transformer_layer_options *lo = o ? &o->layer : NULL;
    if (ct__tl_check_opts("Transformer", d, nhead, lo)) return NULL;
    ct_layer_norm_options lno;
    memset(&lno, 0, sizeof lno);
    lno.eps = lo ? lo->layer_norm_eps : 0.0;
    ct_module *m = ct__tl_new(&ct__tr_type, CT__TL_TRANSFORMER);
    if (!m) return NULL;
    ct_module *el = ct_nn_transformer_encoder_layer(d, nhead, lo);
    ct_module *en = ct_nn_layer_norm_ex(1, &d, &lno);
    ct_module *enc = el && en ? ct_nn_transformer_encoder(el, (int)ne, en) : NULL;
    if (!enc) { ct_module_free(el); ct_module_free(en); }
    ct_module *dl = enc ? ct_nn_transformer_decoder_layer(d, nhead, lo) : NULL;
    ct_module *dn = dl ? ct_nn_layer_norm_ex(1, &d, &lno) : NULL;
    ct_module *dec = dl && dn ? ct_nn_transformer_decoder(dl, (int)nd, dn) : NULL;
    if (!dec) { ct_module_free(dl); ct_module_free(dn); }
    if (!enc || ct_module_add_module(m, "encoder", enc) != CT_OK || !dec || ct_module_add_module(m, "decoder", dec) != CT_OK) {
        if (enc && !ct__mchild(m, "encoder")) ct_module_free(enc);
        if (dec && !ct__mchild(m, "decoder")) ct_module_free(dec);
        ct_module_free(m);
        return NULL;
    }
    *(ct__tl_impl *)m->impl = *(const ct__tl_impl *)ct__mchild(enc, "layers")->children[0].module->impl;
    if (!ne) { ct__tl_impl *im = (ct__tl_impl *)m->impl; im->d = d; im->nhead = nhead; im->batch_first = lo && lo->batch_first; }
    ((ct__tl_impl *)m->impl)->kind = CT__TL_TRANSFORMER;
    /* _reset_parameters: xavier_uniform_ on every parameter with more than one dim */
    int np = ct_module_parameters(m, NULL, 0), ok = 1;
    ct_tensor **ps = (ct_tensor **)CT_MALLOC(sizeof(ct_tensor *) * (size_t)(np > 0 ? np : 1));
    if (!ps) { ct_module_free(m); return (ct_module *)ct__fail(CT_ERR_MEMORY, "Transformer: out of memory"); }
    ct_module_parameters(m, ps, np);
    int s = ct_scope_begin();
    for (int i = 0; i < np && ok; i++)
        if (ps[i]->ndim > 1) ok = ct_nn_init_xavier_uniform_(ps[i], 1.0) != NULL;
    ct_scope_end(s);
    CT_FREE(ps);
    if (!ok) { ct_module_free(m); return NULL; }
    return m;
}
CTENSOR_API ct_tensor *ct_nn_transformer_square_subsequent_mask(int64_t sz) {
    if (sz < 0) return ct__fail(CT_ERR_ARG, "generate_square_subsequent_mask: sz must be non-negative (got %lld)", (long long)sz);
    int s = ct_scope_begin();
    ct_tensor *r = ct_triu(ct_full_n(ct_get_default_dtype(), 2, CT__INTS(sz, sz), -INFINITY), 1);
    ct_keep(r);
    ct_scope_end(s);
    return r;
}
static ct_tensor *ct__act(const ct__tl_impl *im, ct_tensor *x) { return im->gelu ? ct_gelu(x, "none") : ct_relu(x); }
static ct_tensor *ct__ff_block(ct_module *L, ct_tensor *x, const char *drop) {
    const ct__tl_impl *im = (const ct__tl_impl *)L->impl;
    ct_tensor *h = ct_forward(ct__mchild(L, "dropout"), ct__act(im, ct_forward(ct__mchild(L, "linear1"), x)));
    return ct_forward(ct__mchild(L, drop), ct_forward(ct__mchild(L, "linear2"), h));
}
static ct_tensor *ct__attn_block(ct_module *L, const char *attn, const char *drop, ct_tensor *x, const ct_tensor *mem,
                                 const ct_tensor *mask, const ct_tensor *kpm) {
    ct_mha_args a;
    memset(&a, 0, sizeof a);
    a.attn_mask = mask;
    a.key_padding_mask = kpm;
    ct_module *mha = ct__mchild(L, attn);
    if (!x || ct__mha_check(mha, x, mem ? mem : x, mem ? mem : x, &a)) return NULL;
    return ct_forward(ct__mchild(L, drop), ct__mha_regular(mha, x, mem ? mem : x, mem ? mem : x, &a, NULL));
}
static ct_tensor *ct__enc_layer_regular(ct_module *L, ct_tensor *x, const ct_tensor *mask, const ct_tensor *kpm) {
    const ct__tl_impl *im = (const ct__tl_impl *)L->impl;
    ct_module *n1 = ct__mchild(L, "norm1"), *n2 = ct__mchild(L, "norm2");
    if (im->norm_first) {
        x = ct_add(x, ct__attn_block(L, "self_attn", "dropout1", ct_forward(n1, x), NULL, mask, kpm));
        return ct_add(x, ct__ff_block(L, ct_forward(n2, x), "dropout2"));
    }
    x = ct_forward(n1, ct_add(x, ct__attn_block(L, "self_attn", "dropout1", x, NULL, mask, kpm)));
    return ct_forward(n2, ct_add(x, ct__ff_block(L, x, "dropout2")));
}
static ct_tensor *ct__dec_layer_regular(ct_module *L, ct_tensor *x, const ct_tensor *mem, const ct_transformer_decoder_args *a) {
    const ct__tl_impl *im = (const ct__tl_impl *)L->impl;
    ct_module *n1 = ct__mchild(L, "norm1"), *n2 = ct__mchild(L, "norm2"), *n3 = ct__mchild(L, "norm3");
    const ct_tensor *tm = a ? a->tgt_mask : NULL, *mm = a ? a->memory_mask : NULL;
    const ct_tensor *tk = a ? a->tgt_key_padding_mask : NULL, *mk = a ? a->memory_key_padding_mask : NULL;
    if (im->norm_first) {
        x = ct_add(x, ct__attn_block(L, "self_attn", "dropout1", ct_forward(n1, x), NULL, tm, tk));
        x = ct_add(x, ct__attn_block(L, "multihead_attn", "dropout2", ct_forward(n2, x), mem, mm, mk));
        return ct_add(x, ct__ff_block(L, ct_forward(n3, x), "dropout3"));
    }
    x = ct_forward(n1, ct_add(x, ct__attn_block(L, "self_attn", "dropout1", x, NULL, tm, tk)));
    x = ct_forward(n2, ct_add(x, ct__attn_block(L, "multihead_attn", "dropout2", x, mem, mm, mk)));
    return ct_forward(n3, ct_add(x, ct__ff_block(L, x, "dropout3")));
}
/* torch.is_grad_enabled(): off under no_grad and under inference mode */
static int ct__tf_grad_on(void) { return ct_is_grad_enabled() && !ct_is_inference_mode_enabled(); }
/* does any parameter of m (recursively) require grad? */
static int ct__any_param_grad(const ct_module *m) {
    for (int i = 0; i < m->nparams; i++)
        if (m->params[i].tensor && ct_get_requires_grad(m->params[i].tensor)) return 1;
    for (int i = 0; i < m->nchildren; i++)
        if (ct__any_param_grad(m->children[i].module)) return 1;
    return 0;
}
/* the fastpath on a device: where that backend registered the fused op's kernel
   (ctensor_cuda.h), input and mask on the same device. Packed (nested) rows run
   there too: their lengths are read from the mask on the host, the rows are
   gathered and scattered on the device. */
static int ct__tf_dev_ok(const ct_tensor *x, const ct_tensor *kpm, int op) {
    if (x->device.type == CT_CPU) return !kpm || kpm->device.type == CT_CPU;
    return (!kpm || ct_device_eq(kpm->device, x->device)) && ct__kernels[CT_BACKEND_CUDA][op] != NULL;
}
/* PyTorch's TransformerEncoderLayer fastpath conditions, in its order and words */
static int ct__enc_fast_ok(ct_module *L, const ct_tensor *src, const ct_tensor *mask, const ct_tensor *kpm, int nested) {
    const ct__tl_impl *im = (const ct__tl_impl *)L->impl;
    ct__tf_why[0] = 0;
    if (ct__tf_disabled) ct__tf_set_why("torch.backends.mha.get_fastpath_enabled() was not True");
    else if (!nested && src->ndim != 3) ct__tf_set_why("input not batched; expected src.dim() of 3 but got %d", src->ndim);
    else if (L->training) ct__tf_set_why("training is enabled");
    else if (!im->batch_first) ct__tf_set_why("self_attn.batch_first was not True");
    else if (mask) ct__tf_set_why("src_mask is not supported for fastpath");
    else if (im->nhead % 2 == 1) ct__tf_set_why("num_head is odd");
    else if (src->dtype != CT_FLOAT32 && src->dtype != CT_FLOAT64) ct__tf_set_why("the input dtype %s is not supported by the fastpath (float32 and float64 are)", ct_dtype_name(src->dtype));
    else if (!ct__tf_dev_ok(src, kpm, CT__NNOP(TF_ENC_LAYER))) ct__tf_set_why("the fastpath runs on the CPU (the input is on a device)");
    else if (kpm && kpm->dtype != CT_BOOL) ct__tf_set_why("src_key_padding_mask is not a bool tensor (the fastpath takes bool masks)");
    else if (ct__tf_grad_on() && (ct_get_requires_grad(src) || ct__any_param_grad(L)))
        ct__tf_set_why("grad is enabled and at least one of query or the input/output projection weights or biases requires_grad");
    else if (ct__mparam(L->children[0].module, "in_proj_weight")->dtype != src->dtype)
        ct__tf_set_why("dtypes of src (%s) and the layer's weights (%s) don't match", ct_dtype_name(src->dtype),
                       ct_dtype_name(ct__mparam(L->children[0].module, "in_proj_weight")->dtype));
    return ct__tf_why[0] == 0;
}
typedef struct ct__packed { const int64_t *off; int64_t B, S; const uint8_t *kpm; } ct__packed;
static ct_tensor *ct__enc_stack_fast(ct_module *m, int n, const ct_tensor *x, int mt, const ct_tensor *aux, ct_kv_cache *cache);
enum { CT__TFM_NONE = 0, CT__TFM_PADDING = 1, CT__TFM_NESTED = 2, CT__TFM_CACHE = 3 };   /* the fused layer op's mask_type */
static ct_tensor *ct__enc_layer_call(ct_module *L, ct_tensor *x, const ct_tensor *mask, const ct_tensor *kpm) {
    ct_mha_args a;
    memset(&a, 0, sizeof a);
    a.attn_mask = mask;
    a.key_padding_mask = kpm;
    if (ct__mha_check(L->children[0].module, x, x, x, &a)) return NULL;
    if (ct__enc_fast_ok(L, x, mask, kpm, 0)) {
        return ct__enc_stack_fast(L, 1, x, kpm ? CT__TFM_PADDING : CT__TFM_NONE, kpm, NULL);
    }
    return ct__enc_layer_regular(L, x, mask, kpm);
}
/* kpm contiguous in host memory (a copy when it lives on a device); NULL with the error set */
static const ct_tensor *ct__host_contig(const ct_tensor *t) {
    ct_tensor *c = ct_contiguous(t);
    return c && c->device.type != CT_CPU ? ct_to_device(c, ct_cpu()) : c;
}
static int ct__left_aligned(const ct_tensor *kpm) {   /* each row: false..., then true... */
    if (!kpm) return 0;
    const uint8_t *p = (const uint8_t *)ct__ptr(kpm);
    int64_t B = kpm->shape[0], S = kpm->shape[1];
    for (int64_t b = 0; b < B; b++) {
        int64_t j = 0;
        while (j < S && !p[b * S + j]) j++;
        while (j < S && p[b * S + j]) j++;
        if (j != S) return 0;
    }
    return 1;
}
static ct_status ct__nested_pack(const ct_tensor *padded, const ct_tensor *kpm, ct_nested *out, const char *op);
static ct_tensor *ct__nested_unpad(const ct_nested *n, int64_t S, double value);
static ct_tensor *ct__nested_offsets(const ct_nested *n);
CTENSOR_API ct_tensor *ct_transformer_encoder_forward(ct_module *m, const ct_tensor *src, const ct_tensor *mask, const ct_tensor *kpm) {
    if (!m) return ct__fail(CT_ERR_NULL, "TransformerEncoder: module is NULL");
    if (!src) { ct__null_arg(m->type->name, 0); return NULL; }
    const ct__tl_impl *im = (const ct__tl_impl *)m->impl;
    if (!ct__is_type(m, "TransformerEncoder") && !ct__is_type(m, "TransformerEncoderLayer"))
        return ct__fail(CT_ERR_ARG, "transformer_encoder_forward: expected a TransformerEncoder or TransformerEncoderLayer (got %s)", m->type->name);
    if (mask && !ct__mask_dtype_ok(mask))
        return ct__fail(CT_ERR_DTYPE, "%s: Only float, byte, and bool types are supported for attn_mask, not %s", m->type->name, ct_dtype_name(mask->dtype));
    int s = ct_scope_begin();
    ct_tensor *x = (ct_tensor *)src;
    if (im->kind == CT__TL_ENC) {
        x = ct__enc_layer_call(m, x, mask, kpm);
    } else {
        ct_module *list = ct__mchild(m, "layers"), *norm = ct__mchild(m, "norm");
        int n = list->nchildren, convert = 0;
        ct_module *first = n ? list->children[0].module : NULL;
        ct__tf_why[0] = 0;
        /* PyTorch's TransformerEncoder conditions for the nested path */
        if (!first) ct__tf_set_why("num_layers was 0");
        else if (first->training) ct__tf_set_why("layers.0 was in training mode");
        else if (((const ct__tl_impl *)first->impl)->norm_first) ct__tf_set_why("layers.0.norm_first was True");
        else if (!im->batch_first) ct__tf_set_why(" layers.0.self_attn.batch_first was not True");
        else if (src->ndim != 3) ct__tf_set_why("input not batched; expected src.dim() of 3 but got %d", src->ndim);
        else if (!im->nested) ct__tf_set_why("enable_nested_tensor was not True");
        else if (!kpm) ct__tf_set_why("src_key_padding_mask was None");
        else if (kpm->dtype != CT_BOOL || kpm->ndim != 2 || kpm->shape[0] != src->shape[0] || kpm->shape[1] != src->shape[1])
            ct__tf_set_why("src_key_padding_mask is not a bool [N, S] tensor");
        else if (!ct_device_eq(kpm->device, src->device))
        {
            char b1[32], b2[32];
            ct__tf_set_why("src_key_padding_mask is on %s but src on %s", ct_device_str(kpm->device, b1, sizeof b1),
                           ct_device_str(src->device, b2, sizeof b2));
        }
        else if (im->mask_check && !ct__left_aligned(ct__host_contig(kpm)))
            ct__tf_set_why("mask_check enabled, and src and src_key_padding_mask was not left aligned");
        else if (mask) ct__tf_set_why("src_key_padding_mask and mask were both supplied");
        else if (im->nhead % 2 == 1) ct__tf_set_why("num_head is odd");
        else if (ct__enc_fast_ok(first, src, NULL, kpm, 0)) convert = 1;
        if (convert) {
            ct_mha_args a;
            memset(&a, 0, sizeof a);
            a.key_padding_mask = kpm;
            ct_nested nt;
            if (ct__mha_check(first->children[0].module, x, x, x, &a) || ct__nested_pack(x, kpm, &nt, "TransformerEncoder")) x = NULL;
            else {
                ct_tensor *offt = ct__nested_offsets(&nt);
                if (offt && x->device.type != CT_CPU) offt = ct_to_device(offt, x->device);
                ct_tensor *v = offt ? nt.values : NULL;
                if (v) v = ct__enc_stack_fast(m, n, v, CT__TFM_NESTED, offt, NULL);
                nt.values = v;
                x = v ? ct__nested_unpad(&nt, src->shape[1], 0.0) : NULL;
            }
        } else {
            for (int i = 0; i < n && x; i++) x = ct__enc_layer_call(list->children[i].module, x, mask, kpm);
        }
        if (norm && x) x = ct_forward(norm, x);
    }
    if (x == src) x = ct_alias(src);
    if (x) ct_keep(x);
    ct_scope_end(s);
    return x;
}
CTENSOR_API ct_tensor *ct_transformer_decoder_forward(ct_module *m, const ct_tensor *tgt, const ct_tensor *memory,
                                                      const ct_transformer_decoder_args *a) {
    if (!m) return ct__fail(CT_ERR_NULL, "TransformerDecoder: module is NULL");
    if (!tgt || !memory) { ct__null_arg(m->type->name, !tgt ? 0 : 1); return NULL; }
    const ct__tl_impl *im = (const ct__tl_impl *)m->impl;
    if (!ct__is_type(m, "TransformerDecoder") && !ct__is_type(m, "TransformerDecoderLayer"))
        return ct__fail(CT_ERR_ARG, "transformer_decoder_forward: expected a TransformerDecoder or TransformerDecoderLayer (got %s)", m->type->name);
    int s = ct_scope_begin();
    ct_tensor *x = (ct_tensor *)tgt;
    if (im->kind == CT__TL_DEC) {
        x = ct__dec_layer_regular(m, x, memory, a);
    } else {
        ct_module *list = ct__mchild(m, "layers"), *norm = ct__mchild(m, "norm");
        for (int i = 0; i < list->nchildren && x; i++) x = ct__dec_layer_regular(list->children[i].module, x, memory, a);
        if (norm && x) x = ct_forward(norm, x);
    }
    if (x == tgt) x = ct_alias(tgt);
    if (x) ct_keep(x);
    ct_scope_end(s);
    return x;
}
CTENSOR_API ct_tensor *ct_transformer_forward(ct_module *m, const ct_tensor *src, const ct_tensor *tgt, const ct_transformer_args *a) {
    if (!m) return ct__fail(CT_ERR_NULL, "Transformer: module is NULL");
    if (!ct__is_type(m, "Transformer")) return ct__fail(CT_ERR_ARG, "transformer_forward: expected a Transformer (got %s)", m->type->name);
    if (!src || !tgt) { ct__null_arg("Transformer", !src ? 0 : 1); return NULL; }
    const ct__tl_impl *im = (const ct__tl_impl *)m->impl;
    int batched = src->ndim == 3;
    if (!im->batch_first && batched && (tgt->ndim != 3 || src->shape[1] != tgt->shape[1]))
        return ct__fail(CT_ERR_SHAPE, "Transformer: the batch number of src and tgt must be equal (src %s, tgt %s)", CT__SHAPE(src), CT__SHAPE(tgt));
    if (im->batch_first && batched && (tgt->ndim != 3 || src->shape[0] != tgt->shape[0]))
        return ct__fail(CT_ERR_SHAPE, "Transformer: the batch number of src and tgt must be equal (src %s, tgt %s)", CT__SHAPE(src), CT__SHAPE(tgt));
    if (src->ndim < 1 || tgt->ndim < 1 || src->shape[src->ndim - 1] != im->d || tgt->shape[tgt->ndim - 1] != im->d)
        return ct__fail(CT_ERR_SHAPE, "Transformer: the feature number of src and tgt must be equal to d_model (%lld; src %s, tgt %s)",
                        (long long)im->d, CT__SHAPE(src), CT__SHAPE(tgt));
    ct_transformer_decoder_args da;
    memset(&da, 0, sizeof da);
    if (a) { da.tgt_mask = a->tgt_mask; da.memory_mask = a->memory_mask; da.tgt_key_padding_mask = a->tgt_key_padding_mask; da.memory_key_padding_mask = a->memory_key_padding_mask; }
    int s = ct_scope_begin();
    ct_tensor *mem = ct_transformer_encoder_forward(ct__mchild(m, "encoder"), src, a ? a->src_mask : NULL, a ? a->src_key_padding_mask : NULL);
    ct_tensor *r = mem ? ct_transformer_decoder_forward(ct__mchild(m, "decoder"), tgt, mem, &da) : NULL;
    if (r) ct_keep(r);
    ct_scope_end(s);
    return r;
}
static ct_tensor *ct__tl_forward(ct_module *m, int nin, ct_tensor *const *in) {
    const ct__tl_impl *im = (const ct__tl_impl *)m->impl;
    switch (im->kind) {
    case CT__TL_ENC: case CT__TL_ENCODER:
        if (nin != 1) return ct__fail(CT_ERR_ARG, "%s: forward takes 1 input (src; masks through ct_transformer_encoder_forward), got %d", m->type->name, nin);
        return ct_transformer_encoder_forward(m, in[0], NULL, NULL);
    case CT__TL_DEC: case CT__TL_DECODER:
        if (nin != 2) return ct__fail(CT_ERR_ARG, "%s: forward takes 2 inputs (tgt, memory), got %d", m->type->name, nin);
        return ct_transformer_decoder_forward(m, in[0], in[1], NULL);
    default:
        if (nin != 2) return ct__fail(CT_ERR_ARG, "Transformer: forward takes 2 inputs (src, tgt), got %d", nin);
        return ct_transformer_forward(m, in[0], in[1], NULL);
    }
}
/* ============================================================================
   Transformer fastpath: fused kernels, nested batches, KV cache
   One encoder layer on rows X [T, E] (T = B * S padded rows, or the real tokens
   of a nested batch), every buffer carved from one workspace:
     qkv = X Win^T                          one GEMM, [T, 3E]
     att = attention(qkv)                   per (sequence, head) task: Q (bias,
                                            1/sqrt(hd)), K (bias) and V (bias)
                                            copied row by row into the thread's
                                            scratch, K transposed there; blocks of
                                            8 queries x key tiles of 64 in 8 x 32
                                            register tiles (AVX-512), an online
                                            softmax, the padding, causal and cache
                                            masks applied in the tile (keys after a
                                            sequence's last real one skipped); the
                                            result written at its head's columns
                                            of att [T, E]
     x1 = LN1(X + att Wo^T + bo)            GEMM, then one row pass
     h  = act(x1 W1^T + b1)                 GEMM, then one pass
     y  = LN2(x1 + h W2^T + b2)             GEMM, then one row pass
   (norm_first: x1 = X + SA(LN1(X)), y = x1 + FF(LN2(x1))). The GEMMs are
   ct__gemm_f32/f64 (the BLAS or the built-in kernel, threaded on the pool);
   attention tasks and row passes run on the pool too. A layer is one op of the
   table (ct::transformer_encoder_layer_fwd; MultiheadAttention's self-attention
   ct::multi_head_self_attention_fwd), dispatched per layer by the modules below.
   ========================================================================== */
#ifdef CT__GEMM_FPC
#  define CT__TF_FPC CT__GEMM_FPC
#else
#  define CT__TF_FPC
#endif
#define CT__TF_QB 8      /* query rows per block */
#define CT__TF_KT 64     /* keys per tile */
typedef struct ct__att_job {
    int mode;                      /* 0: rows of a packed qkv [T, 3E]; 1: separate q, k, v [BH, L|S, hd] */
    int64_t B, H, hd, E;
    const void *q, *k, *v;         /* mode 0: q = qkv */
    const void *bias;              /* in_proj_bias [3E] or NULL (mode 0) */
    void *out;                     /* mode 0: [T, E] at the head's columns; mode 1: [BH, L, hd] */
    int64_t L, S;                  /* mode 0: padded length per sequence (off NULL); mode 1: query / key lengths */
    const int64_t *off;            /* mode 0 nested: rows off[b] .. off[b + 1] */
    const uint8_t *kpm;            /* mode 0 padded: [B, S], nonzero = padding key */
    int causal;
    void *kc, *vc;                 /* KV cache [B, H, maxlen, hd] (mode 0) or NULL */
    int64_t maxlen, past;
    double scale;
    char *scratch;
    size_t task_bytes;
    int64_t nkp, hdp, nqp;         /* packed key count (rounded), head dim (rounded), query rows (whole blocks) */
} ct__att_job;

#if defined(CT__HAVE_VEC)
static inline ct__vf ct__tf_vsplat(float c) {   /* a zero vector plus c: no lane left unset */
    ct__vf v = {0};
    return v + c;
}
#  define CT__TF_VF ct__vf
#  define CT__TF_NLF CT__VL
#  define CT__TF_SPLATF(x) ct__tf_vsplat(x)
#  define CT__TF_EXPF(x) ct__v_exp(x)
#  define CT__TF_VMAXF(a, b) ct__vsel((b) > (a), (b), (a))
#  define CT__TF_HMAXF(v) ct__tf_hmax(v)
#  define CT__TF_HSUMF(v) ct__tf_hsum(v)
/* a tree over the lanes (AVX-512's reduce sequences), not a chain of NL dependent steps */
static inline float ct__tf_hmax(ct__vf v) {
#  if defined(__AVX512F__)
    return _mm512_reduce_max_ps((__m512)v);
#  else
    float m = v[0];
    for (int q = 1; q < CT__VL; q++) m = v[q] > m ? v[q] : m;
    return m;
#  endif
}
static inline float ct__tf_hsum(ct__vf v) {
#  if defined(__AVX512F__)
    return _mm512_reduce_add_ps((__m512)v);
#  else
    float s = 0;
    for (int q = 0; q < CT__VL; q++) s += v[q];
    return s;
#  endif
}
#else
#  define CT__TF_VF float
#  define CT__TF_NLF 1
#  define CT__TF_SPLATF(x) (x)
#  define CT__TF_EXPF(x) expf(x)
#  define CT__TF_VMAXF(a, b) CT__TF_VMAXS(a, b)
#  define CT__TF_HMAXF(v) (v)
#  define CT__TF_HSUMF(v) (v)
#endif
#define CT__TF_ID(v) (v)
#define CT__TF_VMAXS(a, b) ((b) > (a) ? (b) : (a))
#define CT__TF_SPLATD(x) (x)
#define CT__TF_EXPD(x) exp(x)

/* the 8 x W register tiles of the attention task: accumulators a<r> (first vector) and b<r>
   (second, W 2); k0 and k1 the vectors of the pass; scores go to sc rows, outputs to o rows */
#define CT__TF_R8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define CT__TF_ACC_DECL(r) , a##r = z, b##r = z
#define CT__TF_SC_FMA1(r) a##r += qs[r * hd + d] * k0;
#define CT__TF_SC_FMA2(r) { ct__tf_T q_ = qs[r * hd + d]; a##r += q_ * k0; b##r += q_ * k1; }
#define CT__TF_SC_ST(r)                                                                        \
    memcpy(s0 + r * CT__TF_KT, &a##r, sizeof a##r);                                            \
    if (w == 2) memcpy(s0 + r * CT__TF_KT + ct__tf_NL, &b##r, sizeof b##r);
#define CT__TF_PV_FMA1(r) a##r += sc[r * CT__TF_KT + jj] * k0;
#define CT__TF_PV_FMA2(r) { ct__tf_T p_ = sc[r * CT__TF_KT + jj]; a##r += p_ * k0; b##r += p_ * k1; }
#define CT__TF_O_LD(r)                                                                         \
    memcpy(&a##r, o + r * hdp + c, sizeof a##r);                                               \
    if (w == 2) memcpy(&b##r, o + r * hdp + c + ct__tf_NL, sizeof b##r);
#define CT__TF_O_ST(r)                                                                         \
    memcpy(o + r * hdp + c, &a##r, sizeof a##r);                                               \
    if (w == 2) memcpy(o + r * hdp + c + ct__tf_NL, &b##r, sizeof b##r);
/* CT__TF_DEFINE(SUF, T, V, NL, SPLAT, VEXP, VMAX, HMAX, HSUM): the attention task and the row passes
   for one dtype. V is a vector of NL lanes of T (NL 1: T itself); VMAX(a, b): b where b > a, else a,
   lane by lane; HMAX, HSUM: the largest lane and the sum of the lanes.
   A task's buffers are the scratch slot of the first task of its chunk (lo), so a thread
   reuses one slot, warm in its cache, for all the tasks it runs. */
#define CT__TF_DEFINE(SUF, T, V, NL, SPLAT, VEXP, VMAX, HMAX, HSUM)                                                                    \
    static CT__TF_FPC void ct__att_task_##SUF(void *ctx, int64_t lo, int64_t hi) {                                   \
        const ct__att_job *j = (const ct__att_job *)ctx;                                                               \
        typedef T ct__tf_T;                                                                                            \
        const int64_t ct__tf_NL = NL;                                                                                  \
        const int64_t H = j->H, hd = j->hd, hdp = j->hdp, nkp = j->nkp;                                                \
        for (int64_t t = lo; t < hi; t++) {                                                                            \
            int64_t b = t / H, h = t % H, n, nk, r0 = 0;                                                               \
            T *kt = (T *)(j->scratch + (size_t)lo * j->task_bytes), *vp = kt + hd * nkp, *kr = vp + nkp * hdp;         \
            T *qp = kr + nkp * hd, *sc = qp + j->nqp * hd, *o = sc + CT__TF_QB * CT__TF_KT, *mx = o + CT__TF_QB * hdp;    \
            T *ls = mx + CT__TF_QB, *madd = ls + CT__TF_QB;   /* madd: the padding mask as 0 / -inf per key (nkp) */   \
            const T *qb, *kb, *vb, *bq = NULL, *bk = NULL, *bv = NULL;                                                 \
            int64_t ldq, ldk, ldv, ldo;                                                                                \
            T *ob;                                                                                                     \
            if (j->mode == 0) {                                                                                        \
                int64_t E = j->E, ld = 3 * E;                                                                          \
                r0 = j->off ? j->off[b] : b * j->L;                                                                    \
                n = j->off ? j->off[b + 1] - r0 : j->L;                                                                \
                qb = (const T *)j->q + r0 * ld + h * hd;                                                               \
                kb = qb + E;                                                                                           \
                vb = qb + 2 * E;                                                                                       \
                ldq = ldk = ldv = ld;                                                                                  \
                if (j->bias) { bq = (const T *)j->bias + h * hd; bk = bq + E; bv = bq + 2 * E; }                      \
                ob = (T *)j->out + r0 * E + h * hd;                                                                    \
                ldo = E;                                                                                               \
                nk = n;                                                                                                \
                if (j->kc) { /* append the new keys and values to the cache, then attend over it */                   \
                    T *kc = (T *)j->kc + (size_t)(t * j->maxlen) * (size_t)hd, *vc = (T *)j->vc + (size_t)(t * j->maxlen) * (size_t)hd; \
                    for (int64_t i = 0; i < n; i++)                                                                    \
                        for (int64_t d = 0; d < hd; d++) {                                                             \
                            kc[(j->past + i) * hd + d] = kb[i * ld + d] + (bk ? bk[d] : (T)0);                         \
                            vc[(j->past + i) * hd + d] = vb[i * ld + d] + (bv ? bv[d] : (T)0);                         \
                        }                                                                                              \
                    kb = kc; vb = vc; ldk = ldv = hd; bk = bv = NULL;                                                  \
                    nk = j->past + n;                                                                                  \
                }                                                                                                      \
            } else {                                                                                                   \
                n = j->L;                                                                                              \
                nk = j->S;                                                                                             \
                qb = (const T *)j->q + t * n * hd;                                                                     \
                kb = (const T *)j->k + t * nk * hd;                                                                    \
                vb = (const T *)j->v + t * nk * hd;                                                                    \
                ldq = ldk = ldv = hd;                                                                                  \
                ob = (T *)j->out + t * n * hd;                                                                         \
                ldo = hd;                                                                                              \
            }                                                                                                          \
            const uint8_t *km = j->mode == 0 && j->kpm && !j->kc ? j->kpm + b * j->L : NULL;                           \
            if (km) { /* keys past the last unmasked one are skipped; the rest get 0 or -inf */                        \
                while (nk > 0 && km[nk - 1]) nk--;                                                                     \
                for (int64_t i = 0; i < nk; i++) madd[i] = km[i] ? (T)-INFINITY : (T)0;                                \
                for (int64_t i = nk; i < nkp; i++) madd[i] = 0;                                                        \
            }                                                                                                          \
            /* one pass over the rows (each a contiguous read): Q with its bias and 1/sqrt(hd) into qp (zero rows  \
               up to a whole block), K with its bias into kr, V with its bias into vp; then K^T from kr */             \
            const int64_t past = j->mode == 0 && j->kc ? j->past : 0;                                                  \
            const T scale = (T)j->scale;                                                                               \
            int64_t nkr = (nk + NL - 1) / NL * NL, nqr = (n + CT__TF_QB - 1) / CT__TF_QB * CT__TF_QB;                  \
            for (int64_t i = 0; i < n; i++) {                                                                          \
                const T *qr = qb + i * ldq;                                                                            \
                T *qd = qp + i * hd;                                                                                   \
                if (bq) for (int64_t d = 0; d < hd; d++) qd[d] = (qr[d] + bq[d]) * scale;                              \
                else for (int64_t d = 0; d < hd; d++) qd[d] = qr[d] * scale;                                           \
            }                                                                                                          \
            for (int64_t i = n * hd; i < nqr * hd; i++) qp[i] = 0;                                                     \
            for (int64_t i = 0; i < nk; i++) {                                                                         \
                const T *kx = kb + i * ldk, *vx = vb + i * ldv;                                                        \
                T *kd = kr + i * hd, *vd = vp + i * hdp;                                                               \
                if (bk) for (int64_t d = 0; d < hd; d++) kd[d] = kx[d] + bk[d];                                        \
                else for (int64_t d = 0; d < hd; d++) kd[d] = kx[d];                                                   \
                if (bv) for (int64_t d = 0; d < hd; d++) vd[d] = vx[d] + bv[d];                                        \
                else for (int64_t d = 0; d < hd; d++) vd[d] = vx[d];                                                   \
                for (int64_t d = hd; d < hdp; d++) vd[d] = 0;                                                          \
            }                                                                                                          \
            for (int64_t d = 0; d < hd; d++) {                                                                         \
                for (int64_t i = 0; i < nk; i++) kt[d * nkp + i] = kr[i * hd + d];                                     \
                for (int64_t i = nk; i < nkr; i++) kt[d * nkp + i] = 0;                                                \
            }                                                                                                          \
            for (int64_t i0 = 0; i0 < n; i0 += CT__TF_QB) {                                                            \
                int qn = (int)(n - i0 < CT__TF_QB ? n - i0 : CT__TF_QB);                                               \
                const T *qs = qp + i0 * hd;                                                                            \
                for (int r = 0; r < CT__TF_QB; r++) {                                                                  \
                    for (int64_t d = 0; d < hdp; d++) o[r * hdp + d] = 0;                                              \
                    mx[r] = -INFINITY;                                                                                 \
                    ls[r] = 0;                                                                                         \
                }                                                                                                      \
                int64_t jmax = j->causal ? (past + i0 + qn < nk ? past + i0 + qn : nk) : nk;                           \
                for (int64_t j0 = 0; j0 < jmax; j0 += CT__TF_KT) {                                                     \
                    int kn = (int)(jmax - j0 < CT__TF_KT ? jmax - j0 : CT__TF_KT), nch = (kn + NL - 1) / NL;           \
                    for (int c = 0; c < nch;) { /* scores: 8 rows x W vectors of NL keys per pass over d */            \
                        const int w = NL >= 16 && c + 1 < nch ? 2 : 1; /* W 2 where 32 vector registers allow */       \
                        V z = SPLAT((T)0) CT__TF_R8(CT__TF_ACC_DECL);                                                  \
                        const T *kp = kt + j0 + c * NL;                                                                \
                        if (w == 2)                                                                                    \
                            for (int64_t d = 0; d < hd; d++) {                                                         \
                                V k0, k1;                                                                              \
                                memcpy(&k0, kp + d * nkp, sizeof k0);                                                  \
                                memcpy(&k1, kp + d * nkp + NL, sizeof k1);                                             \
                                CT__TF_R8(CT__TF_SC_FMA2)                                                              \
                            }                                                                                          \
                        else                                                                                           \
                            for (int64_t d = 0; d < hd; d++) {                                                         \
                                V k0;                                                                                  \
                                memcpy(&k0, kp + d * nkp, sizeof k0);                                                  \
                                CT__TF_R8(CT__TF_SC_FMA1)                                                              \
                            }                                                                                          \
                        T *s0 = sc + c * NL;                                                                           \
                        CT__TF_R8(CT__TF_SC_ST)                                                                        \
                        c += w;                                                                                        \
                    }                                                                                                  \
                    for (int r = 0; r < CT__TF_QB; r++) { /* masks, online softmax */                                  \
                        T *s = sc + r * CT__TF_KT;                                                                     \
                        if (r >= qn) { for (int jj = 0; jj < nch * NL; jj++) s[jj] = 0; continue; }                    \
                        for (int jj = kn; jj < nch * NL; jj++) s[jj] = -INFINITY;                                      \
                        if (j->causal)                                                                                 \
                            for (int64_t jj = CT__MAX(past + i0 + r + 1 - j0, 0); jj < kn; jj++) s[jj] = -INFINITY;    \
                        V vx = SPLAT((T)-INFINITY);                                                                    \
                        for (int c = 0; c < nch; c++) {                                                                \
                            V e;                                                                                       \
                            memcpy(&e, s + c * NL, sizeof e);                                                          \
                            if (km) {                                                                                  \
                                V a;                                                                                   \
                                memcpy(&a, madd + j0 + c * NL, sizeof a);                                              \
                                e += a;                                                                                \
                                memcpy(s + c * NL, &e, sizeof e);                                                      \
                            }                                                                                          \
                            vx = VMAX(vx, e);                                                                          \
                        }                                                                                              \
                        T m = mx[r];                                                                                   \
                        { T hm = HMAX(vx); m = hm > m ? hm : m; }                                                      \
                        if (m == -INFINITY) { for (int jj = 0; jj < nch * NL; jj++) s[jj] = 0; continue; }             \
                        T corr = mx[r] == -INFINITY ? (T)0 : (T)exp((double)(mx[r] - m));                              \
                        mx[r] = m;                                                                                     \
                        V vm = SPLAT(m), vs = SPLAT((T)0);                                                             \
                        for (int c = 0; c < nch; c++) {                                                                \
                            V e;                                                                                       \
                            memcpy(&e, s + c * NL, sizeof e);                                                          \
                            e = VEXP(e - vm);                                                                          \
                            vs += e;                                                                                   \
                            memcpy(s + c * NL, &e, sizeof e);                                                          \
                        }                                                                                              \
                        T sum = 0;                                                                                     \
                        sum = HSUM(vs);                                                                                \
                        ls[r] = ls[r] * corr + sum;                                                                    \
                        if (corr != (T)1)                                                                              \
                            for (int64_t d = 0; d < hdp; d++) o[r * hdp + d] *= corr;                                  \
                    }                                                                                                  \
                    for (int64_t c = 0; c < hdp;) { /* o += p v: 8 rows x W vectors of NL dims per pass over keys */   \
                        const int w = NL >= 16 && c + NL < hdp ? 2 : 1;                                                \
                        V z = SPLAT((T)0) CT__TF_R8(CT__TF_ACC_DECL);                                                  \
                        CT__TF_R8(CT__TF_O_LD)                                                                         \
                        const T *v0 = vp + j0 * hdp + c;                                                               \
                        if (w == 2)                                                                                    \
                            for (int jj = 0; jj < kn; jj++) {                                                          \
                                V k0, k1;                                                                              \
                                memcpy(&k0, v0 + jj * hdp, sizeof k0);                                                 \
                                memcpy(&k1, v0 + jj * hdp + NL, sizeof k1);                                            \
                                CT__TF_R8(CT__TF_PV_FMA2)                                                              \
                            }                                                                                          \
                        else                                                                                           \
                            for (int jj = 0; jj < kn; jj++) {                                                          \
                                V k0;                                                                                  \
                                memcpy(&k0, v0 + jj * hdp, sizeof k0);                                                 \
                                CT__TF_R8(CT__TF_PV_FMA1)                                                              \
                            }                                                                                          \
                        CT__TF_R8(CT__TF_O_ST)                                                                         \
                        c += w * NL;                                                                                   \
                    }                                                                                                  \
                }                                                                                                      \
                for (int r = 0; r < qn; r++) { /* a row with no key left gives NaN, as PyTorch's softmax */           \
                    T inv = ls[r] > 0 ? (T)1 / ls[r] : (T)NAN;                                                         \
                    for (int64_t d = 0; d < hd; d++) ob[(i0 + r) * ldo + d] = o[r * hdp + d] * inv;                    \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
    }                                                                                                                  \
    /* y[r] = [LN]( [res[r] +] y[r] [+ bias] ) into out[r]; act: bias + relu/gelu over h */                         \
    typedef struct ct__rp_job_##SUF {                                                                                  \
        int64_t E;                                                                                                     \
        const T *res, *y, *bias, *g, *be;                                                                              \
        T *out;                                                                                                        \
        double eps;                                                                                                    \
        int ln, act;                                                                                                   \
    } ct__rp_job_##SUF;                                                                                                \
    static CT__TF_FPC void ct__rp_rows_##SUF(void *ctx, int64_t lo, int64_t hi) {                                    \
        const ct__rp_job_##SUF *j = (const ct__rp_job_##SUF *)ctx;                                                     \
        const int64_t E = j->E;                                                                                        \
        for (int64_t r = lo; r < hi; r++) {                                                                            \
            const T *y = j->y + r * E, *res = j->res ? j->res + r * E : NULL;                                          \
            T *out = j->out + r * E;                                                                                   \
            if (j->act) {                                                                                              \
                for (int64_t c = 0; c < E; c++) {                                                                      \
                    T z = y[c] + (j->bias ? j->bias[c] : (T)0);                                                        \
                    out[c] = j->act == 1 ? (z > 0 ? z : (T)0) : z;                                                     \
                }                                                                                                      \
                if (j->act == 2) ct__tf_gelu_row_##SUF(out, E);                                                        \
                continue;                                                                                              \
            }                                                                                                          \
            ct__tf_row_##SUF(res, y, j->bias, j->g, j->be, j->eps, j->ln, out, E);                                     \
        }                                                                                                              \
    }                                                                                                                  \
    static void ct__rp_##SUF(int64_t rows, int64_t E, const T *res, const T *y, const T *bias, const T *g, const T *be, \
                             double eps, int ln, int act, T *out) {                                                    \
        ct__rp_job_##SUF j = {E, res, y, bias, g, be, out, eps, ln, act};                                              \
        ct__nn_par_for(rows, (8192 + E - 1) / (E > 0 ? E : 1), ct__rp_rows_##SUF, &j);                                 \
    }

/* out = [LN]([res +] y [+ bias]) over one row of E; float32 sums in vector lanes */
static CT__TF_FPC void ct__tf_row_f32(const float *res, const float *y, const float *bias, const float *g, const float *be,
                                      double eps, int ln, float *out, int64_t E) {
    int64_t c = 0;
    float s = 0;
#if defined(CT__HAVE_VEC)
    ct__vf vs = ct__tf_vsplat(0.0f);
    for (; c + CT__VL <= E; c += CT__VL) {
        ct__vf z, t;
        memcpy(&z, y + c, sizeof z);
        if (res) { memcpy(&t, res + c, sizeof t); z += t; }
        if (bias) { memcpy(&t, bias + c, sizeof t); z += t; }
        memcpy(out + c, &z, sizeof z);
        vs += z;
    }
    for (int q = 0; q < CT__VL; q++) s += vs[q];
#endif
    for (; c < E; c++) {
        float z = y[c] + (res ? res[c] : 0.0f) + (bias ? bias[c] : 0.0f);
        out[c] = z;
        s += z;
    }
    if (!ln) return;
    float mean = s / (float)E, v = 0;
    c = 0;
#if defined(CT__HAVE_VEC)
    ct__vf vv = ct__tf_vsplat(0.0f), vm = ct__tf_vsplat(mean);
    for (; c + CT__VL <= E; c += CT__VL) {
        ct__vf z;
        memcpy(&z, out + c, sizeof z);
        z -= vm;
        vv += z * z;
    }
    for (int q = 0; q < CT__VL; q++) v += vv[q];
#endif
    for (; c < E; c++) { float d = out[c] - mean; v += d * d; }
    float rstd = (float)(1.0 / sqrt((double)v / (double)E + eps));
    c = 0;
#if defined(CT__HAVE_VEC)
    ct__vf vr = ct__tf_vsplat(rstd);
    for (; c + CT__VL <= E; c += CT__VL) {
        ct__vf z, t;
        memcpy(&z, out + c, sizeof z);
        z = (z - vm) * vr;
        if (g) { memcpy(&t, g + c, sizeof t); z *= t; }
        if (be) { memcpy(&t, be + c, sizeof t); z += t; }
        memcpy(out + c, &z, sizeof z);
    }
#endif
    for (; c < E; c++) {
        float z = (out[c] - mean) * rstd;
        out[c] = (g ? z * g[c] : z) + (be ? be[c] : 0.0f);
    }
}
static void ct__tf_row_f64(const double *res, const double *y, const double *bias, const double *g, const double *be,
                           double eps, int ln, double *out, int64_t E) {
    double s = 0;
    for (int64_t c = 0; c < E; c++) {
        double z = y[c] + (res ? res[c] : 0.0) + (bias ? bias[c] : 0.0);
        out[c] = z;
        s += z;
    }
    if (!ln) return;
    double mean = s / (double)E, v = 0;
    for (int64_t c = 0; c < E; c++) { double d = out[c] - mean; v += d * d; }
    double rstd = 1.0 / sqrt(v / (double)E + eps);
    for (int64_t c = 0; c < E; c++) {
        double z = (out[c] - mean) * rstd;
        out[c] = (g ? z * g[c] : z) + (be ? be[c] : 0.0);
    }
}
static CT__TF_FPC void ct__tf_gelu_row_f32(float *x, int64_t n) {
    int64_t i = 0;
#if defined(CT__HAVE_VEC)
    for (; i + CT__VL <= n; i += CT__VL) {
        ct__vf v;
        memcpy(&v, x + i, sizeof v);
        v = ct__v_gelu(v);
        memcpy(x + i, &v, sizeof v);
    }
#endif
    for (; i < n; i++) x[i] = ct__gelu_exactf(x[i]);
}
static void ct__tf_gelu_row_f64(double *x, int64_t n) {
    for (int64_t i = 0; i < n; i++) x[i] = ct__gelu(x[i], 0);
}
CT__TF_DEFINE(f32, float, CT__TF_VF, CT__TF_NLF, CT__TF_SPLATF, CT__TF_EXPF, CT__TF_VMAXF, CT__TF_HMAXF, CT__TF_HSUMF)
CT__TF_DEFINE(f64, double, double, 1, CT__TF_SPLATD, CT__TF_EXPD, CT__TF_VMAXS, CT__TF_ID, CT__TF_ID)

/* one task's scratch: kt [hd, nkp], vp [nkp, hdp], kr [nkp, hd], qp [nqp, hd], sc [QB, KT],
   o [QB, hdp], mx and ls [QB], madd [nkp] */
static size_t ct__att_task_bytes(size_t es, int64_t hd, int64_t hdp, int64_t nkp, int64_t nqp) {
    return ((size_t)(hd * nkp + nkp * hdp + nkp * hd + nqp * hd + CT__TF_QB * CT__TF_KT + CT__TF_QB * hdp + 2 * CT__TF_QB + nkp) * es +
            63) / 64 * 64;
}
/* runs the attention tasks of a job (scratch from ws) */
static void ct__att_run(ct__att_job *j, ct_dtype dt, int64_t nqmax, int64_t nkmax, char *scratch) {
    int64_t NL = dt == CT_FLOAT32 ? CT__TF_NLF : 1;
    size_t es = dt == CT_FLOAT32 ? 4 : 8;
    j->nkp = (nkmax + NL - 1) / NL * NL;
    j->hdp = (j->hd + NL - 1) / NL * NL;
    j->nqp = (nqmax + CT__TF_QB - 1) / CT__TF_QB * CT__TF_QB;
    j->task_bytes = ct__att_task_bytes(es, j->hd, j->hdp, j->nkp, j->nqp);
    j->scratch = scratch;
    ct__nn_par_for(j->B * j->H, 1, dt == CT_FLOAT32 ? ct__att_task_f32 : ct__att_task_f64, j);
}
/* the scratch of nqmax query rows and nkmax keys per task, for that many tasks */
static size_t ct__att_scratch_bytes(ct_dtype dt, int64_t tasks, int64_t hd, int64_t nqmax, int64_t nkmax) {
    int64_t NL = dt == CT_FLOAT32 ? CT__TF_NLF : 1;
    size_t es = dt == CT_FLOAT32 ? 4 : 8;
    int64_t nkp = (nkmax + NL - 1) / NL * NL, hdp = (hd + NL - 1) / NL * NL, nqp = (nqmax + CT__TF_QB - 1) / CT__TF_QB * CT__TF_QB;
    return ct__att_task_bytes(es, hd, hdp, nkp, nqp) * (size_t)tasks;
}
/* C[M, N] = A[M, K] W[N, K]^T (W row-major, as nn.Linear stores it) */
static void ct__tf_gemm(ct_dtype dt, int64_t M, int64_t N, int64_t K, const void *A, const void *W, void *C) {
    if (dt == CT_FLOAT32)
        ct__gemm_f32(M, N, K, 1.0f, (const float *)A, K, 1, (const float *)W, 1, K, 0.0f, (float *)C, N);
    else
        ct__gemm_f64(M, N, K, 1.0, (const double *)A, K, 1, (const double *)W, 1, K, 0.0, (double *)C, N);
}
static void ct__tf_rows(ct_dtype dt, int64_t rows, int64_t E, const void *res, const void *y, const void *bp, const void *gp,
                        const void *bep, double eps, int ln, int act, void *out) {
    if (dt == CT_FLOAT32)
        ct__rp_f32(rows, E, (const float *)res, (const float *)y, (const float *)bp, (const float *)gp, (const float *)bep, eps, ln, act, (float *)out);
    else
        ct__rp_f64(rows, E, (const double *)res, (const double *)y, (const double *)bp, (const double *)gp, (const double *)bep, eps, ln, act, (double *)out);
}

/* ---- the KV cache ---- */
/* Each layer's keys and values: [B, H, max_len, head_dim] tensors of the model's dtype,
   retained by the cache, written by the fused layer op at positions [len, len + T). */
struct ct_kv_cache {
    const ct_module *owner;
    int nlayers;
    int64_t B, H, hd, maxlen, len;
    ct_dtype dt;
    ct_tensor **k, **v;
};
static ct_module *ct__enc_layer_at(const ct_module *m, int i) {
    const ct__tl_impl *im = (const ct__tl_impl *)m->impl;
    return im->kind == CT__TL_ENC ? (ct_module *)m : ct__mchild(m, "layers")->children[i].module;
}
CTENSOR_API ct_kv_cache *ct_kv_cache_new(const ct_module *m, int64_t batch, int64_t max_len) {
    if (!m) return (ct_kv_cache *)ct__fail(CT_ERR_NULL, "kv_cache_new: module is NULL");
    if (!ct__is_type(m, "TransformerEncoder") && !ct__is_type(m, "TransformerEncoderLayer"))
        return (ct_kv_cache *)ct__fail(CT_ERR_ARG, "kv_cache_new: expected a TransformerEncoder or TransformerEncoderLayer (got %s)", m->type->name);
    if (batch <= 0 || max_len <= 0)
        return (ct_kv_cache *)ct__fail(CT_ERR_ARG, "kv_cache_new: batch (%lld) and max_len (%lld) must be positive", (long long)batch, (long long)max_len);
    const ct__tl_impl *im = (const ct__tl_impl *)m->impl;
    int n = im->kind == CT__TL_ENC ? 1 : ct__mchild(m, "layers")->nchildren;
    ct_kv_cache *c = CT__NEW_ZEROED(ct_kv_cache);
    if (!c) return (ct_kv_cache *)ct__fail(CT_ERR_MEMORY, "kv_cache_new: out of memory");
    c->owner = m;
    c->nlayers = n;
    c->B = batch;
    c->H = im->nhead;
    c->hd = im->d / im->nhead;
    c->maxlen = max_len;
    c->dt = n ? ct__mparam(ct__enc_layer_at(m, 0)->children[0].module, "in_proj_weight")->dtype : ct_get_default_dtype();
    c->k = (ct_tensor **)calloc((size_t)(n > 0 ? n : 1), sizeof(ct_tensor *));
    c->v = (ct_tensor **)calloc((size_t)(n > 0 ? n : 1), sizeof(ct_tensor *));
    int ok = c->k && c->v;
    if (ok) {
        int s = ct_scope_begin();
        for (int i = 0; i < n && ok; i++) {
            ct_tensor *k = ct_empty_n(c->dt, 4, CT__INTS(batch, c->H, max_len, c->hd)), *v = k ? ct_empty_like(k) : NULL;
            ok = k && v;
            if (ok) {
                c->k[i] = ct_retain(k);
                c->v[i] = ct_retain(v);
            }
        }
        ct_scope_end(s);
    }
    if (!ok) {
        ct_kv_cache_free(c);
        return (ct_kv_cache *)ct__fail(CT_ERR_MEMORY, "kv_cache_new: out of memory (%d layers of 2 x [%lld, %lld, %lld, %lld])", n,
                                       (long long)batch, (long long)im->nhead, (long long)max_len, (long long)(im->d / im->nhead));
    }
    return c;
}
CTENSOR_API void ct_kv_cache_reset(ct_kv_cache *c) { if (c) c->len = 0; }
CTENSOR_API int64_t ct_kv_cache_len(const ct_kv_cache *c) { return c ? c->len : 0; }
CTENSOR_API void ct_kv_cache_free(ct_kv_cache *c) {
    if (!c) return;
    for (int i = 0; i < c->nlayers; i++) {
        if (c->k && c->k[i]) ct_release(c->k[i]);
        if (c->v && c->v[i]) ct_release(c->v[i]);
    }
    free(c->k);
    free(c->v);
    CT_FREE(c);
}

/* ---- the fused ops: ct::transformer_encoder_layer_fwd, ct::multi_head_self_attention_fwd ----
   The fastpath is two rows of this header's op table, so the dispatcher sees each
   fused call as one op: the dispatch hook, a tracer, a profiler, and another backend
   (a CUDA header registers its kernels under the same names). Inference only: the
   ops are not differentiable (the fastpath runs without grad).

   transformer_encoder_layer_fwd (PyTorch's aten::_transformer_encoder_layer_fwd):
     inputs  src, qkv_weight [3E, E], qkv_bias [3E], proj_weight [E, E], proj_bias [E],
             norm1_weight, norm1_bias, norm2_weight, norm2_bias [E], ffn1_weight [F, E],
             ffn1_bias [F], ffn2_weight [E, F], ffn2_bias [E], then by mask_type:
               none     src [B, S, E]
               padding  src [B, S, E], a key padding mask bool [B, S] (true: a padding key)
               nested   src [T, E] (packed tokens), offsets int64 [B + 1] (sequence b on
                        rows offsets[b] .. offsets[b + 1])
               cache    src [B, S, E] (the next S positions), k_cache, v_cache
                        [B, H, max_len, E / H] contiguous: positions past .. past + S - 1
                        are written, and the queries attend causally to positions
                        0 .. past + S - 1 (decoding: rerunning a call writes the same values)
     attributes num_heads, use_gelu, norm_first, eps1 and eps2 (norm1's, norm2's), mask_type, past
     output  src's shape and dtype (float32 or float64)
   multi_head_self_attention_fwd (nn.MultiheadAttention's self-attention fastpath):
     inputs  x [B, S, E], qkv_weight, qkv_bias, proj_weight, proj_bias[, key padding mask bool [B, S]]
     attributes num_heads, is_causal, mask_type (none or padding)
   A module without a bias, or a norm without affine parameters, passes zeros (ones
   for a norm weight): the same values. */
typedef struct ct__tf_lw {   /* a layer's operands: contiguous data of the compute dtype */
    const char *qkv_w, *qkv_b, *proj_w, *proj_b, *n1_w, *n1_b, *n2_w, *n2_b, *f1_w, *f1_b, *f2_w, *f2_b;
    int64_t E, H, F;
    int gelu, norm_first;
    double eps1, eps2;
} ct__tf_lw;
/* qkv GEMM + attention into at [T, E]; X [T, E] contiguous of dtype dt; kc, vc: the
   layer's KV cache (NULL: none) */
static void ct__fast_attn(const ct__tf_lw *w, ct_dtype dt, const void *X, int64_t T, const ct__packed *pk, int causal, void *kc,
                          void *vc, int64_t maxlen, int64_t past, void *qkv, void *at, char *scratch) {
    ct__tf_gemm(dt, T, 3 * w->E, w->E, X, w->qkv_w, qkv);
    ct__att_job j;
    memset(&j, 0, sizeof j);
    j.mode = 0;
    j.B = pk->B;
    j.H = w->H;
    j.hd = w->E / w->H;
    j.E = w->E;
    j.q = qkv;
    j.bias = w->qkv_b;
    j.out = at;
    j.L = pk->S;
    j.off = pk->off;
    j.kpm = pk->kpm;
    j.causal = causal;
    j.scale = 1.0 / sqrt((double)j.hd);
    if (kc) {
        j.kc = kc;
        j.vc = vc;
        j.maxlen = maxlen;
        j.past = past;
    }
    ct__att_run(&j, dt, pk->S, kc ? past + pk->S : pk->S, scratch);
}
/* The workspace: one block kept between calls (the first caller to come back
   keeps it; a concurrent call makes its own), so that a steady stream of calls
   touches memory that is already mapped. Off under CTENSOR_NO_CACHES. */
#ifndef CTENSOR_NO_CACHES
static void *ct__tf_ws_slot;
#endif
static char *ct__tf_ws_get(double bytes_d, void **raw, const char *op) {
    void *p = NULL;
    if (!(bytes_d < (double)((size_t)1 << 48))) {   /* sizes from hostile shapes: refused before any arithmetic wraps */
        ct_set_error(CT_ERR_MEMORY, "%s: out of memory (a workspace of %.0f bytes)", op, bytes_d);
        return NULL;
    }
    size_t bytes = (size_t)bytes_d;
#ifndef CTENSOR_NO_CACHES
    p = CT__LOAD(&ct__tf_ws_slot);
    while (p && !CT__CAS(&ct__tf_ws_slot, &p, NULL)) {}
    if (p && *(size_t *)p < bytes) { CT_FREE(p); p = NULL; }
#endif
    if (!p) {
        p = CT_MALLOC(bytes + 128);
        if (!p) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory (a workspace of %zu bytes)", op, bytes); return NULL; }
        *(size_t *)p = bytes;
    }
    *raw = p;
    return (char *)(((uintptr_t)p + 64 + 63) & ~(uintptr_t)63);
}
static void ct__tf_ws_put(void *p) {
    if (!p) return;
#ifndef CTENSOR_NO_CACHES
    void *expected = NULL;
    if (CT__CAS(&ct__tf_ws_slot, &expected, p)) return;
#endif
    CT_FREE(p);
}
/* bytes of one layer's buffers on T rows: qkv [T, 3E], at, x1, xn [T, E], h [T, max(F, E)],
   then the attention scratch (nq query rows, nk keys per task); in double, so that no
   hostile size wraps */
static double ct__layer_ws_bytes(ct_dtype dt, int64_t T, int64_t E, int64_t H, int64_t F, int64_t B, int64_t nq, int64_t nk) {
    double es = dt == CT_FLOAT32 ? 4 : 8, rows = (double)T * (6.0 * (double)E + (double)(F > E ? F : E)) * es;
    double hd = (double)(E / H), tasks = (double)B * (double)H, NL = dt == CT_FLOAT32 ? CT__TF_NLF : 1;
    double nkp = ceil((double)nk / NL) * NL + NL, hdp = ceil(hd / NL) * NL, nqp = ceil((double)nq / CT__TF_QB) * CT__TF_QB;
    double task = (hd * nkp * 2 + nkp * hdp + nqp * hd + CT__TF_QB * CT__TF_KT + CT__TF_QB * hdp + 2 * CT__TF_QB + nkp) * es + 64;
    return rows + tasks * task + 64;
}
/* one encoder layer on rows X [T, E] into OUT [T, E] (contiguous, dtype dt), its
   buffers in base (ct__layer_ws_bytes) */
static void ct__enc_layer_raw(const ct__tf_lw *w, ct_dtype dt, int64_t T, const char *X, char *OUT, const ct__packed *pk,
                              int causal, void *kc, void *vc, int64_t maxlen, int64_t past, char *base) {
    int64_t E = w->E, dff = w->F;
    size_t es = dt == CT_FLOAT32 ? 4 : 8;
    char *qkv = base, *at = qkv + (size_t)(T * 3 * E) * es, *x1 = at + (size_t)(T * E) * es, *xn = x1 + (size_t)(T * E) * es;
    char *hb = xn + (size_t)(T * E) * es, *scratch = hb + (size_t)(T * (dff > E ? dff : E)) * es;
    if (w->norm_first) {
        ct__tf_rows(dt, T, E, NULL, X, NULL, w->n1_w, w->n1_b, w->eps1, 1, 0, xn);                  /* xn = LN1(x) */
        ct__fast_attn(w, dt, xn, T, pk, causal, kc, vc, maxlen, past, qkv, at, scratch);
        ct__tf_gemm(dt, T, E, E, at, w->proj_w, x1);
        ct__tf_rows(dt, T, E, X, x1, w->proj_b, NULL, NULL, 0, 0, 0, x1);                          /* x1 = x + sa */
        ct__tf_rows(dt, T, E, NULL, x1, NULL, w->n2_w, w->n2_b, w->eps2, 1, 0, xn);                 /* xn = LN2(x1) */
        ct__tf_gemm(dt, T, dff, E, xn, w->f1_w, hb);
        ct__tf_rows(dt, T, dff, NULL, hb, w->f1_b, NULL, NULL, 0, 0, w->gelu ? 2 : 1, hb);
        ct__tf_gemm(dt, T, E, dff, hb, w->f2_w, OUT);
        ct__tf_rows(dt, T, E, x1, OUT, w->f2_b, NULL, NULL, 0, 0, 0, OUT);                         /* x1 + ff */
    } else {
        ct__fast_attn(w, dt, X, T, pk, causal, kc, vc, maxlen, past, qkv, at, scratch);
        ct__tf_gemm(dt, T, E, E, at, w->proj_w, x1);
        ct__tf_rows(dt, T, E, X, x1, w->proj_b, w->n1_w, w->n1_b, w->eps1, 1, 0, x1);              /* x1 = LN1(x + sa) */
        ct__tf_gemm(dt, T, dff, E, x1, w->f1_w, hb);
        ct__tf_rows(dt, T, dff, NULL, hb, w->f1_b, NULL, NULL, 0, 0, w->gelu ? 2 : 1, hb);
        ct__tf_gemm(dt, T, E, dff, hb, w->f2_w, OUT);
        ct__tf_rows(dt, T, E, x1, OUT, w->f2_b, w->n2_w, w->n2_b, w->eps2, 1, 0, OUT);             /* LN2(x1 + ff) */
    }
}
/* a parameter as ws: shape [n] or [n, k], dtype dt */
static int ct__tf_meta_w(const char *nm, const char *what, const ct_tensor *t, ct_dtype dt, int64_t n, int64_t k) {
    int ok = t->dtype == dt && t->ndim == (k < 0 ? 1 : 2) && t->shape[0] == n && (k < 0 || t->shape[1] == k);
    if (ok) return 0;
    if (k < 0)
        return ct__failed(t->dtype != dt ? CT_ERR_DTYPE : CT_ERR_SHAPE, "%s: expected %s of shape [%lld] and dtype %s (got %s %s)", nm, what,
                          (long long)n, CT__DTNAME(dt), CT__SHAPE(t), CT__DTNAME(t->dtype));
    return ct__failed(t->dtype != dt ? CT_ERR_DTYPE : CT_ERR_SHAPE, "%s: expected %s of shape [%lld, %lld] and dtype %s (got %s %s)", nm, what,
                      (long long)n, (long long)k, CT__DTNAME(dt), CT__SHAPE(t), CT__DTNAME(t->dtype));
}
/* src, the projections' weights and biases (qkv, then proj); E and H */
static int ct__tf_meta_attn(ct__call *c, const char *nm, int nested, int64_t *E_out) {
    const ct_tensor *x = c->in[0];
    ct_dtype dt = x->dtype;
    if (dt != CT_FLOAT32 && dt != CT_FLOAT64)
        return ct__failed(CT_ERR_DTYPE, "%s: expected a float32 or float64 input (got %s)", nm, CT__DTNAME(dt));
    if (x->ndim != (nested ? 2 : 3))
        return ct__failed(CT_ERR_SHAPE, "%s: expected %s (got %s)", nm, nested ? "packed tokens [T, E]" : "a batch_first input [B, S, E]", CT__SHAPE(x));
    int64_t E = x->shape[x->ndim - 1], H = c->a->i[0];
    if (H <= 0 || E <= 0 || E % H)
        return ct__failed(CT_ERR_ARG, "%s: embed_dim (%lld) must be positive and divisible by num_heads (%lld)", nm, (long long)E, (long long)H);
    int64_t E3 = ct__sat_mul(E, 3);
    if (ct__tf_meta_w(nm, "qkv_weight", c->in[1], dt, E3, E) || ct__tf_meta_w(nm, "qkv_bias", c->in[2], dt, E3, -1) ||
        ct__tf_meta_w(nm, "proj_weight", c->in[3], dt, E, E) || ct__tf_meta_w(nm, "proj_bias", c->in[4], dt, E, -1))
        return -1;
    *E_out = E;
    return 0;
}
/* the key padding mask: bool [B, S] of src [B, S, E] */
static int ct__tf_meta_kpm(const char *nm, const ct_tensor *m, const ct_tensor *x) {
    if (m->dtype != CT_BOOL || m->ndim != 2 || m->shape[0] != x->shape[0] || m->shape[1] != x->shape[1])
        return ct__failed(m->dtype != CT_BOOL ? CT_ERR_DTYPE : CT_ERR_SHAPE, "%s: expected a bool key padding mask of shape [%lld, %lld] (got %s %s)",
                          nm, (long long)x->shape[0], (long long)x->shape[1], CT__SHAPE(m), CT__DTNAME(m->dtype));
    return 0;
}
static int ct__meta_tf_layer(ct__call *c) {
    const char *nm = ct__opdef_get(c->op)->name;
    int mt = c->a->mode, need = 13 + (mt == CT__TFM_PADDING || mt == CT__TFM_NESTED) + 2 * (mt == CT__TFM_CACHE);
    if (c->nin != need)
        return ct__failed(CT_ERR_ARG, "%s: expected %d tensors for mask_type %d, got %d", nm, need, mt, c->nin);
    int64_t E;
    if (ct__tf_meta_attn(c, nm, mt == CT__TFM_NESTED, &E)) return -1;
    const ct_tensor *x = c->in[0];
    ct_dtype dt = x->dtype;
    int64_t F = c->in[9]->ndim == 2 ? c->in[9]->shape[0] : -1;
    if (F <= 0) return ct__failed(CT_ERR_SHAPE, "%s: expected ffn1_weight [F, %lld] with F > 0 (got %s)", nm, (long long)E, CT__SHAPE(c->in[9]));
    static const char *const nn[4] = {"norm1_weight", "norm1_bias", "norm2_weight", "norm2_bias"};
    for (int i = 0; i < 4; i++)
        if (ct__tf_meta_w(nm, nn[i], c->in[5 + i], dt, E, -1)) return -1;
    if (ct__tf_meta_w(nm, "ffn1_weight", c->in[9], dt, F, E) || ct__tf_meta_w(nm, "ffn1_bias", c->in[10], dt, F, -1) ||
        ct__tf_meta_w(nm, "ffn2_weight", c->in[11], dt, E, F) || ct__tf_meta_w(nm, "ffn2_bias", c->in[12], dt, E, -1))
        return -1;
    if (mt == CT__TFM_PADDING && ct__tf_meta_kpm(nm, c->in[13], x)) return -1;
    if (mt == CT__TFM_NESTED) {
        const ct_tensor *o = c->in[13];
        if (o->dtype != CT_INT64 || o->ndim != 1 || o->shape[0] < 1)
            return ct__failed(CT_ERR_SHAPE, "%s: expected int64 offsets [B + 1] (got %s %s)", nm, CT__SHAPE(o), CT__DTNAME(o->dtype));
    }
    if (mt == CT__TFM_CACHE) {
        int64_t H = c->a->i[0], past = c->a->i[1];
        for (int i = 13; i < 15; i++) {
            const ct_tensor *k = c->in[i];
            if (k->dtype != dt || k->ndim != 4 || k->shape[0] != x->shape[0] || k->shape[1] != H || k->shape[3] != E / H || !ct__is_contig(k))
                return ct__failed(CT_ERR_SHAPE, "%s: expected a contiguous %s cache [%lld, %lld, max_len, %lld] of dtype %s (got %s %s)", nm,
                                  i == 13 ? "key" : "value", (long long)x->shape[0], (long long)H, (long long)(E / H), CT__DTNAME(dt),
                                  CT__SHAPE(k), CT__DTNAME(k->dtype));
        }
        if (c->in[14]->shape[2] != c->in[13]->shape[2])
            return ct__failed(CT_ERR_SHAPE, "%s: the key and value caches differ (%s, %s)", nm, CT__SHAPE(c->in[13]), CT__SHAPE(c->in[14]));
        if (past < 0 || ct__sat_add(past, x->shape[1]) > c->in[13]->shape[2])
            return ct__failed(CT_ERR_ARG, "%s: positions %lld .. %lld do not fit a cache of max_len %lld", nm, (long long)past,
                              (long long)ct__sat_add(past, x->shape[1]), (long long)c->in[13]->shape[2]);
    }
    ct__out_new(c, dt, x->ndim, x->shape);
    return 0;
}
static int ct__meta_tf_mha(ct__call *c) {
    const char *nm = ct__opdef_get(c->op)->name;
    int mt = c->a->mode, need = 5 + (mt == CT__TFM_PADDING);
    if (mt != CT__TFM_NONE && mt != CT__TFM_PADDING) return ct__failed(CT_ERR_ARG, "%s: mask_type must be none or padding (got %d)", nm, mt);
    if (c->nin != need) return ct__failed(CT_ERR_ARG, "%s: expected %d tensors for mask_type %d, got %d", nm, need, mt, c->nin);
    int64_t E;
    if (ct__tf_meta_attn(c, nm, 0, &E)) return -1;
    if (mt == CT__TFM_PADDING && ct__tf_meta_kpm(nm, c->in[5], c->in[0])) return -1;
    ct__out_new(c, c->in[0]->dtype, 3, c->in[0]->shape);
    return 0;
}
/* the operands of a fused call, contiguous (copies live in the caller's scope) */
static int ct__tf_operands(ct__call *c, ct_tensor **t) {
    for (int i = 0; i < c->nin; i++)
        if (!(t[i] = ct__is_contig(c->in[i]) ? c->in[i] : ct_contiguous(c->in[i]))) return -1;
    return 0;
}
/* the layer op on its contiguous operands t (in the caller's scope) */
static int ct__k_tf_layer_run(ct__call *c, ct_tensor *const *t) {
    const char *nm = ct__opdef_get(c->op)->name;
    int mt = c->a->mode;
    ct_dtype dt = c->in[0]->dtype;
    ct__tf_lw w;
    w.qkv_w = ct__ptr(t[1]); w.qkv_b = ct__ptr(t[2]); w.proj_w = ct__ptr(t[3]); w.proj_b = ct__ptr(t[4]);
    w.n1_w = ct__ptr(t[5]); w.n1_b = ct__ptr(t[6]); w.n2_w = ct__ptr(t[7]); w.n2_b = ct__ptr(t[8]);
    w.f1_w = ct__ptr(t[9]); w.f1_b = ct__ptr(t[10]); w.f2_w = ct__ptr(t[11]); w.f2_b = ct__ptr(t[12]);
    w.E = t[0]->shape[t[0]->ndim - 1];
    w.H = c->a->i[0];
    w.F = t[9]->shape[0];
    w.gelu = (c->a->flags & 1) != 0;
    w.norm_first = (c->a->flags & 2) != 0;
    w.eps1 = c->a->s[0];
    w.eps2 = c->a->s[1];
    int64_t T = ct_numel(t[0]) / w.E, nk;
    ct__packed pk;
    memset(&pk, 0, sizeof pk);
    if (mt == CT__TFM_NESTED) {   /* offsets: 0 = o[0] <= o[1] <= ... <= o[B] = T */
        const int64_t *o = (const int64_t *)ct__ptr(t[13]);
        pk.B = t[13]->shape[0] - 1;
        if (o[0] != 0 || o[pk.B] != T)
            return ct__failed(CT_ERR_ARG, "%s: the offsets must run from 0 to the %lld packed tokens (got %lld .. %lld)", nm, (long long)T,
                              (long long)o[0], (long long)o[pk.B]);
        for (int64_t b = 0; b < pk.B; b++) {
            if (o[b + 1] < o[b])
                return ct__failed(CT_ERR_ARG, "%s: the offsets must not decrease (offsets[%lld] = %lld, offsets[%lld] = %lld)", nm,
                                  (long long)b, (long long)o[b], (long long)(b + 1), (long long)o[b + 1]);
            pk.S = o[b + 1] - o[b] > pk.S ? o[b + 1] - o[b] : pk.S;
        }
        pk.off = o;
        nk = pk.S;
    } else {
        pk.B = t[0]->shape[0];
        pk.S = t[0]->shape[1];
        if (mt == CT__TFM_PADDING) pk.kpm = (const uint8_t *)ct__ptr(t[13]);
        nk = mt == CT__TFM_CACHE ? c->a->i[1] + pk.S : pk.S;
    }
    if (T == 0) return 0;
    void *raw = NULL;
    char *ws = ct__tf_ws_get(ct__layer_ws_bytes(dt, T, w.E, w.H, w.F, pk.B, pk.S, nk), &raw, nm);
    if (!ws) return -1;
    if (mt == CT__TFM_CACHE)
        ct__enc_layer_raw(&w, dt, T, ct__ptr(t[0]), ct__ptr(c->out[0]), &pk, 1, ct__ptr(t[13]), ct__ptr(t[14]), t[13]->shape[2], c->a->i[1], ws);
    else
        ct__enc_layer_raw(&w, dt, T, ct__ptr(t[0]), ct__ptr(c->out[0]), &pk, 0, NULL, NULL, 0, 0, ws);
    ct__tf_ws_put(raw);
    return 0;
}
static int ct__k_tf_layer(ct__call *c) {
    ct_tensor *t[15];
    int s = ct_scope_begin();
    int rc = ct__tf_operands(c, t) ? -1 : ct__k_tf_layer_run(c, t);
    ct_scope_end(s);
    return rc;
}
static int ct__k_tf_mha_run(ct__call *c, ct_tensor *const *t) {
    const char *nm = ct__opdef_get(c->op)->name;
    ct_dtype dt = c->in[0]->dtype;
    ct__tf_lw w;
    memset(&w, 0, sizeof w);
    w.qkv_w = ct__ptr(t[1]); w.qkv_b = ct__ptr(t[2]); w.proj_w = ct__ptr(t[3]); w.proj_b = ct__ptr(t[4]);
    w.E = t[0]->shape[2];
    w.H = c->a->i[0];
    ct__packed pk;
    memset(&pk, 0, sizeof pk);
    pk.B = t[0]->shape[0];
    pk.S = t[0]->shape[1];
    pk.kpm = c->nin > 5 ? (const uint8_t *)ct__ptr(t[5]) : NULL;
    int64_t T = pk.B * pk.S, E = w.E;
    if (T == 0) return 0;
    size_t es = dt == CT_FLOAT32 ? 4 : 8;
    /* qkv [T, 3E], at [T, E], then the attention scratch: a layer's buffers less x1, xn and h */
    double bytes = ct__layer_ws_bytes(dt, T, E, w.H, 0, pk.B, pk.S, pk.S) - (double)T * (double)E * 3 * (double)es;
    void *raw = NULL;
    char *qkv = ct__tf_ws_get(bytes, &raw, nm);
    if (!qkv) return -1;
    char *at = qkv + (size_t)(T * 3 * E) * es, *scratch = at + (size_t)(T * E) * es;
    ct__fast_attn(&w, dt, ct__ptr(t[0]), T, &pk, (c->a->flags & 1) != 0, NULL, NULL, 0, 0, qkv, at, scratch);
    ct__tf_gemm(dt, T, E, E, at, w.proj_w, ct__ptr(c->out[0]));
    ct__tf_rows(dt, T, E, NULL, ct__ptr(c->out[0]), w.proj_b, NULL, NULL, 0, 0, 0, ct__ptr(c->out[0]));
    ct__tf_ws_put(raw);
    return 0;
}
static int ct__k_tf_mha(ct__call *c) {
    ct_tensor *t[6];
    int s = ct_scope_begin();
    int rc = ct__tf_operands(c, t) ? -1 : ct__k_tf_mha_run(c, t);
    ct_scope_end(s);
    return rc;
}

/* ---- the modules' side: their parameters as the fused ops' operands ---- */
/* p as a contiguous tensor of dtype dt; NULL: a vector of n fill values */
static ct_tensor *ct__tf_operand(const ct_tensor *p, ct_device dev, ct_dtype dt, int64_t n, double fill) {
    if (!p) return ct_full_on_n(dev, dt, 1, &n, fill);   /* a missing bias: made on the input's device */
    if (p->dtype == dt && ct__is_contig(p)) return (ct_tensor *)p;
    return ct_contiguous(ct_to(ct_detach(p), dt));
}
/* in[1..4]: the attention projections of mha */
static int ct__tf_attn_operands(const ct_module *mha, ct_device dev, ct_dtype dt, ct_tensor **in) {
    const ct__mha_impl *im = (const ct__mha_impl *)mha->impl;
    ct_module *op = ct__mchild(mha, "out_proj");
    in[1] = ct__tf_operand(ct__mparam(mha, "in_proj_weight"), dev, dt, 0, 0);
    in[2] = ct__tf_operand(ct__mparam(mha, "in_proj_bias"), dev, dt, 3 * im->E, 0);
    in[3] = ct__tf_operand(ct__mparam(op, "weight"), dev, dt, 0, 0);
    in[4] = ct__tf_operand(ct__mparam(op, "bias"), dev, dt, im->E, 0);
    return in[1] && in[2] && in[3] && in[4] ? 0 : -1;
}
/* one fused layer call: x through layer L (mask_type mt with its extra operands) */
static ct_tensor *ct__tf_layer_call(ct_module *L, const ct_tensor *x, int mt, const ct_tensor *aux0, const ct_tensor *aux1, int64_t past) {
    const ct__tl_impl *im = (const ct__tl_impl *)L->impl;
    ct_dtype dt = x->dtype;
    ct_module *n1 = ct__mchild(L, "norm1"), *n2 = ct__mchild(L, "norm2"), *l1 = ct__mchild(L, "linear1"), *l2 = ct__mchild(L, "linear2");
    ct_tensor *in[15];
    in[0] = (ct_tensor *)x;
    ct_device dev = x->device;
    if (ct__tf_attn_operands(L->children[0].module, dev, dt, in)) return NULL;
    in[5] = ct__tf_operand(ct__mparam(n1, "weight"), dev, dt, im->d, 1);
    in[6] = ct__tf_operand(ct__mparam(n1, "bias"), dev, dt, im->d, 0);
    in[7] = ct__tf_operand(ct__mparam(n2, "weight"), dev, dt, im->d, 1);
    in[8] = ct__tf_operand(ct__mparam(n2, "bias"), dev, dt, im->d, 0);
    in[9] = ct__tf_operand(ct__mparam(l1, "weight"), dev, dt, 0, 0);
    in[10] = ct__tf_operand(ct__mparam(l1, "bias"), dev, dt, im->dff, 0);
    in[11] = ct__tf_operand(ct__mparam(l2, "weight"), dev, dt, 0, 0);
    in[12] = ct__tf_operand(ct__mparam(l2, "bias"), dev, dt, im->d, 0);
    for (int i = 5; i < 13; i++)
        if (!in[i]) return NULL;
    int nin = 13;
    if (aux0) in[nin++] = (ct_tensor *)aux0;
    if (aux1) in[nin++] = (ct_tensor *)aux1;
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = im->nhead;
    a.i[1] = past;
    a.flags = (im->gelu ? 1 : 0) | (im->norm_first ? 2 : 0);
    a.s[0] = ((const ct__ln_impl *)n1->impl)->eps;
    a.s[1] = ((const ct__ln_impl *)n2->impl)->eps;
    a.mode = mt;
    return ct__call1(CT__NNOP(TF_ENC_LAYER), nin, in, &a);
}
/* layers 0..n-1 of m (an encoder, or a layer: n = 1) on x, one fused op call each.
   mt: CT__TFM_NONE / PADDING (aux: the mask) / NESTED (x packed, aux: the offsets) /
   CACHE (the cache's tensors; positions from cache->len). Intermediate rows come
   from the allocator's block cache (the same two sizes alternate), the layers'
   buffers from the one workspace the op keeps. */
static ct_tensor *ct__enc_stack_fast(ct_module *m, int n, const ct_tensor *x, int mt, const ct_tensor *aux, ct_kv_cache *cache) {
    int s = ct_scope_begin();
    ct_tensor *y = (ct_tensor *)x;
    for (int i = 0; i < n && y; i++) {
        ct_tensor *prev = y;
        y = mt == CT__TFM_CACHE ? ct__tf_layer_call(ct__enc_layer_at(m, i), y, mt, cache->k[i], cache->v[i], cache->len)
                                : ct__tf_layer_call(ct__enc_layer_at(m, i), y, mt, aux, NULL, 0);
        if (prev != x) ct_release(prev);   /* the intermediate rows go back now, for the next layer */
    }
    if (y) ct_keep(y);
    ct_scope_end(s);
    return y;
}

/* ---- MultiheadAttention's own fastpath (self-attention) ---- */
static int ct__mha_fast_ok(ct_module *m, const ct_tensor *q, const ct_tensor *k, const ct_tensor *v, const ct_mha_args *a) {
    const ct__mha_impl *im = (const ct__mha_impl *)m->impl;
    const ct_tensor *kpm = a ? a->key_padding_mask : NULL;
    ct__tf_why[0] = 0;
    if (ct__tf_disabled) ct__tf_set_why("torch.backends.mha.get_fastpath_enabled() was not True");
    else if (q->ndim != 3) ct__tf_set_why("input not batched; expected query.dim() of 3 but got %d", q->ndim);
    else if (q != k || k != v) ct__tf_set_why("non-self attention was used (query, key, and value are not the same Tensor)");
    else if (m->training) ct__tf_set_why("training is enabled");
    else if (!im->batch_first) ct__tf_set_why("batch_first was not True");
    else if (im->bias_kv) ct__tf_set_why("self.bias_k was not None");
    else if (im->dropout != 0.0) ct__tf_set_why("dropout was %g, required zero", im->dropout);
    else if (im->zero_attn) ct__tf_set_why("add_zero_attn was enabled");
    else if (!im->same) ct__tf_set_why("_qkv_same_embed_dim was not True");
    else if (a && a->attn_mask) ct__tf_set_why("attn_mask was not None");
    else if (im->H % 2 == 1) ct__tf_set_why("num_heads is odd");
    else if (q->dtype != CT_FLOAT32 && q->dtype != CT_FLOAT64) ct__tf_set_why("the input dtype %s is not supported by the fastpath (float32 and float64 are)", ct_dtype_name(q->dtype));
    else if (kpm && kpm->dtype != CT_BOOL) ct__tf_set_why("key_padding_mask is not a bool tensor (the fastpath takes bool masks)");
    else if (!ct__tf_dev_ok(q, kpm, CT__NNOP(TF_MHA)))
        ct__tf_set_why("the fastpath runs on the CPU (the input is on a device)");
    else if (ct__tf_grad_on() && (ct_get_requires_grad(q) || ct__any_param_grad(m)))
        ct__tf_set_why("grad is enabled and at least one of query or the input/output projection weights or biases requires_grad");
    return ct__tf_why[0] == 0;
}
static ct_tensor *ct__mha_fast(ct_module *m, const ct_tensor *x, const ct_tensor *kpm, int causal, ct_tensor **weights) {
    const ct__mha_impl *im = (const ct__mha_impl *)m->impl;
    if (weights) {   /* the weights are not formed by the fused kernel */
        ct_mha_args a;
        memset(&a, 0, sizeof a);
        a.key_padding_mask = kpm;
        a.is_causal = causal;
        ct__tf_set_why("need_weights was True (the fused kernel does not form the attention weights)");
        return ct__mha_regular(m, x, x, x, &a, weights);
    }
    ct_tensor *in[6];
    in[0] = (ct_tensor *)x;
    if (ct__tf_attn_operands(m, x->device, x->dtype, in)) return NULL;
    if (kpm) in[5] = (ct_tensor *)kpm;
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = im->H;
    a.flags = causal ? 1 : 0;
    a.mode = kpm ? CT__TFM_PADDING : CT__TFM_NONE;
    return ct__call1(CT__NNOP(TF_MHA), kpm ? 6 : 5, in, &a);
}

/* ---- nested batches ---- */
/* the copies between a padded [B, S, D] batch and packed rows, sequence b on rows
   off[b] .. off[b + 1], one sequence per item of a parallel loop; zero: padded rows zeroed */
typedef struct ct__nest_copy_job {
    char *dst;
    const char *src;
    const int64_t *off;
    int64_t S, D;
    size_t es;
    int pack, zero;
} ct__nest_copy_job;
static void ct__nest_copy(void *ctx, int64_t lo, int64_t hi) {
    const ct__nest_copy_job *j = (const ct__nest_copy_job *)ctx;
    size_t row = (size_t)j->D * j->es;
    for (int64_t b = lo; b < hi; b++) {
        int64_t n = j->off[b + 1] - j->off[b];
        char *padded = (j->pack ? (char *)j->src : j->dst) + (size_t)(b * j->S) * row, *packed = (j->pack ? j->dst : (char *)j->src) + (size_t)j->off[b] * row;
        if (j->pack) memcpy(packed, padded, (size_t)n * row);
        else {
            memcpy(padded, packed, (size_t)n * row);
            if (j->zero) memset(padded + (size_t)n * row, 0, (size_t)(j->S - n) * row);
        }
    }
}
/* int64 [total] on dev: the padded row (b * S + j) of each packed row, j < lengths[b]
   (lengths: int64 on the host) */
static ct_tensor *ct__nested_rows(const ct_tensor *lengths, int64_t S, ct_device dev) {
    int64_t B = lengths->shape[0], total = 0;
    const int64_t *l = (const int64_t *)ct__ptr(lengths);
    for (int64_t b = 0; b < B; b++) total += l[b];
    ct_tensor *r = ct_empty(CT_INT64, total);
    if (!r) return NULL;
    int64_t *p = (int64_t *)ct__ptr(r);
    for (int64_t b = 0; b < B; b++)
        for (int64_t j = 0; j < l[b]; j++) *p++ = b * S + j;
    return dev.type == CT_CPU ? r : ct_to_device(r, dev);
}
static ct_status ct__nested_pack(const ct_tensor *x, const ct_tensor *kpm, ct_nested *out, const char *op) {
    memset(out, 0, sizeof *out);
    if (!x || !kpm) { ct__null_arg(op, !x ? 0 : 1); return ct_last_error_code(); }
    if (x->ndim != 3) { ct_set_error(CT_ERR_SHAPE, "%s: expected a padded [B, S, d] tensor (got %s)", op, CT__SHAPE(x)); return CT_ERR_SHAPE; }
    if (kpm->dtype != CT_BOOL) { ct_set_error(CT_ERR_DTYPE, "%s: the key padding mask must be bool (got %s)", op, ct_dtype_name(kpm->dtype)); return CT_ERR_DTYPE; }
    if (kpm->device.type != CT_CPU && !ct_device_eq(kpm->device, x->device)) {
        char b1[32], b2[32];
        ct_set_error(CT_ERR_DEVICE, "%s: the key padding mask is on %s but the input on %s", op, ct_device_str(kpm->device, b1, sizeof b1),
                     ct_device_str(x->device, b2, sizeof b2));
        return CT_ERR_DEVICE;
    }
    if (kpm->ndim != 2 || kpm->shape[0] != x->shape[0] || kpm->shape[1] != x->shape[1]) {
        ct_set_error(CT_ERR_SHAPE, "%s: the key padding mask must be [%lld, %lld] for input %s (got %s)", op, (long long)x->shape[0],
                     (long long)x->shape[1], CT__SHAPE(x), CT__SHAPE(kpm));
        return CT_ERR_SHAPE;
    }
    int64_t B = x->shape[0], S = x->shape[1], D = x->shape[2];
    int s = ct_scope_begin();
    const ct_tensor *kc = ct__host_contig(kpm);   /* the lengths are host metadata */
    ct_tensor *xc = ct_contiguous(x);
    ct_tensor *len = ct_empty(CT_INT64, B), *off = ct_empty(CT_INT64, B + 1);
    if (!kc || !xc || !len || !off) { ct_scope_end(s); return ct_last_error_code(); }
    const uint8_t *mp = (const uint8_t *)ct__ptr(kc);
    int64_t *lp = (int64_t *)ct__ptr(len), *op_ = (int64_t *)ct__ptr(off), total = 0;
    for (int64_t b = 0; b < B; b++) {
        int64_t n = 0;
        while (n < S && !mp[b * S + n]) n++;
        for (int64_t j = n; j < S; j++)
            if (!mp[b * S + j]) {
                ct_scope_end(s);
                ct_set_error(CT_ERR_ARG, "%s: the key padding mask is not left-aligned (row %lld has a real token at position %lld after padding at %lld)",
                             op, (long long)b, (long long)j, (long long)n);
                return CT_ERR_ARG;
            }
        lp[b] = n;
        op_[b] = total;
        total += n;
    }
    op_[B] = total;
    ct_tensor *vals;
    if (x->device.type == CT_CPU) {
        vals = ct_empty(x->dtype, total, D);
        if (!vals) { ct_scope_end(s); return ct_last_error_code(); }
        ct__nest_copy_job j = {ct__ptr(vals), ct__ptr(xc), op_, S, D, ct__dt[x->dtype].size, 1, 0};
        ct__nn_par_for(B, 1, ct__nest_copy, &j);
    } else {   /* one gather of the real rows on the device */
        ct_tensor *rows = ct__nested_rows(len, S, x->device);
        vals = rows ? ct_index_select(ct_reshape(xc, B * S, D), 0, rows) : NULL;
        if (!vals) { ct_scope_end(s); return ct_last_error_code(); }
    }
    out->values = ct_keep(vals);
    out->lengths = ct_keep(len);
    out->max_len = S;
    ct_scope_end(s);
    return CT_OK;
}
CTENSOR_API ct_status ct_nested_from_mask(const ct_tensor *padded, const ct_tensor *kpm, ct_nested *out) {
    if (!out) { ct_set_error(CT_ERR_NULL, "nested_from_mask: out is NULL"); return CT_ERR_NULL; }
    return ct__nested_pack(padded, kpm, out, "nested_from_mask");
}
static ct_tensor *ct__nested_offsets(const ct_nested *n) {
    int64_t B = n->lengths->shape[0];
    ct_tensor *off = ct_empty(CT_INT64, B + 1);
    if (!off) return NULL;
    int64_t *o = (int64_t *)ct__ptr(off), t = 0;
    const int64_t *l = (const int64_t *)ct__ptr(n->lengths);
    for (int64_t b = 0; b < B; b++) { o[b] = t; t += l[b]; }
    o[B] = t;
    return off;
}
static int ct__nested_check(const ct_nested *n, const char *op) {
    if (!n || !n->values || !n->lengths) { ct_set_error(CT_ERR_NULL, "%s: the nested batch is NULL or empty", op); return -1; }
    if (n->values->ndim != 2 || n->lengths->ndim != 1 || n->lengths->dtype != CT_INT64 || !ct__is_contig(n->lengths)) {
        ct_set_error(CT_ERR_SHAPE, "%s: a nested batch has values [total_tokens, d] and int64 lengths [B] (got values %s, lengths %s %s)",
                     op, CT__SHAPE(n->values), CT__SHAPE(n->lengths), ct_dtype_name(n->lengths->dtype));
        return -1;
    }
    if (n->lengths->device.type != CT_CPU) {   /* host metadata; the values may live on a device */
        char b1[32];
        ct_set_error(CT_ERR_DEVICE, "%s: a nested batch keeps its lengths on the CPU (got lengths on %s)", op,
                     ct_device_str(n->lengths->device, b1, sizeof b1));
        return -1;
    }
    int64_t t = 0, B = n->lengths->shape[0];
    const int64_t *l = (const int64_t *)ct__ptr(n->lengths);
    for (int64_t b = 0; b < B; b++) {
        if (l[b] < 0 || l[b] > n->max_len) {
            ct_set_error(CT_ERR_ARG, "%s: sequence %lld has length %lld, outside [0, max_len = %lld]", op, (long long)b, (long long)l[b], (long long)n->max_len);
            return -1;
        }
        t += l[b];
    }
    if (t != n->values->shape[0]) {
        ct_set_error(CT_ERR_SHAPE, "%s: the lengths add up to %lld tokens but values has %lld rows", op, (long long)t, (long long)n->values->shape[0]);
        return -1;
    }
    return 0;
}
static ct_tensor *ct__nested_unpad(const ct_nested *n, int64_t S, double value) {
    int64_t B = n->lengths->shape[0], D = n->values->shape[1];
    ct_tensor *vc = ct_contiguous(n->values);
    if (vc && vc->device.type != CT_CPU) {   /* one scatter of the real rows on the device */
        ct_tensor *rows = ct__nested_rows(n->lengths, S, vc->device);
        ct_tensor *r = rows ? ct_full_on_n(vc->device, vc->dtype, 2, CT__INTS(B * S, D), value) : NULL;
        return r && ct_index_copy_(r, 0, rows, vc) ? ct_reshape(r, B, S, D) : NULL;
    }
    ct_tensor *off = ct__nested_offsets(n);
    ct_tensor *r = value == 0.0 && !signbit(value) ? ct_empty_n(n->values->dtype, 3, CT__INTS(B, S, D))
                                                     : ct_full_n(n->values->dtype, 3, CT__INTS(B, S, D), value);
    if (!vc || !r || !off) return NULL;
    /* the real rows copied, the padded rows zeroed (a +0.0 padding value: all bits clear) */
    ct__nest_copy_job j = {ct__ptr(r), ct__ptr(vc), (const int64_t *)ct__ptr(off), S, D, ct__dt[r->dtype].size, 0,
                           value == 0.0 && !signbit(value)};
    ct__nn_par_for(B, 1, ct__nest_copy, &j);
    return r;
}
CTENSOR_API ct_tensor *ct_nested_to_padded(const ct_nested *n, double padding_value) {
    if (ct__nested_check(n, "nested_to_padded")) return NULL;
    int s = ct_scope_begin();
    ct_tensor *r = ct__nested_unpad(n, n->max_len, padding_value);
    if (r) ct_keep(r);
    ct_scope_end(s);
    return r;
}
CTENSOR_API ct_status ct_transformer_encoder_forward_nested(ct_module *m, const ct_nested *src, ct_nested *out) {
    const char *op = "transformer_encoder_forward_nested";
    if (!out) { ct_set_error(CT_ERR_NULL, "%s: out is NULL", op); return CT_ERR_NULL; }
    memset(out, 0, sizeof *out);
    if (!m) { ct_set_error(CT_ERR_NULL, "%s: module is NULL", op); return CT_ERR_NULL; }
    if (!ct__is_type(m, "TransformerEncoder") && !ct__is_type(m, "TransformerEncoderLayer")) {
        ct_set_error(CT_ERR_ARG, "%s: expected a TransformerEncoder or TransformerEncoderLayer (got %s)", op, m->type->name);
        return CT_ERR_ARG;
    }
    if (ct__nested_check(src, op)) return ct_last_error_code();
    const ct__tl_impl *im = (const ct__tl_impl *)m->impl;
    if (src->values->shape[1] != im->d) {
        ct_set_error(CT_ERR_SHAPE, "%s: was expecting embedding dimension of %lld, but got %lld", op, (long long)im->d, (long long)src->values->shape[1]);
        return CT_ERR_SHAPE;
    }
    int n = im->kind == CT__TL_ENC ? 1 : ct__mchild(m, "layers")->nchildren;
    for (int i = 0; i < n; i++)
        if (!ct__enc_fast_ok(ct__enc_layer_at(m, i), src->values, NULL, NULL, 1)) {
            ct_set_error(CT_ERR_UNSUPPORTED, "%s: the fastpath cannot run: %s", op, ct__tf_why);
            return CT_ERR_UNSUPPORTED;
        }
    int s = ct_scope_begin();
    ct_tensor *off = ct__nested_offsets(src), *v = src->values;
    if (off && v->device.type != CT_CPU) off = ct_to_device(off, v->device);
    if (off && n > 0) v = ct__enc_stack_fast(m, n, v, CT__TFM_NESTED, off, NULL);
    if (v && im->kind == CT__TL_ENCODER && ct__mchild(m, "norm")) v = ct_forward(ct__mchild(m, "norm"), v);
    if (v == src->values) v = ct_alias(v);
    if (!v || !off) { ct_scope_end(s); return ct_last_error_code() != CT_OK ? ct_last_error_code() : CT_ERR_MEMORY; }
    out->values = ct_keep(v);
    out->lengths = ct_keep(ct_alias(src->lengths));
    out->max_len = src->max_len;
    ct_scope_end(s);
    return CT_OK;
}

/* ---- incremental decoding ---- */
CTENSOR_API ct_tensor *ct_transformer_decode(ct_module *m, const ct_tensor *x, ct_kv_cache *c) {
    const char *op = "transformer_decode";
    if (!m || !c) return ct__fail(CT_ERR_NULL, "%s: %s is NULL", op, !m ? "module" : "cache");
    if (!x) { ct__null_arg(op, 1); return NULL; }
    if (c->owner != m) return ct__fail(CT_ERR_ARG, "%s: the cache was made for another module", op);
    const ct__tl_impl *im = (const ct__tl_impl *)m->impl;
    if (!im->batch_first) return ct__fail(CT_ERR_ARG, "%s: the layers must be batch_first", op);
    if (m->training) return ct__fail(CT_ERR_ARG, "%s: the module is in training mode (decode runs inference: call ct_module_eval)", op);
    if (x->ndim != 3 || x->shape[0] != c->B || x->shape[2] != im->d)
        return ct__fail(CT_ERR_SHAPE, "%s: expected x of shape [%lld, T, %lld] (got %s)", op, (long long)c->B, (long long)im->d, CT__SHAPE(x));
    if (x->dtype != c->dt) return ct__fail(CT_ERR_DTYPE, "%s: x is %s but the model is %s", op, ct_dtype_name(x->dtype), ct_dtype_name(c->dt));
    if (c->len + x->shape[1] > c->maxlen)
        return ct__fail(CT_ERR_ARG, "%s: the KV cache holds %lld of %lld positions; %lld more do not fit", op, (long long)c->len,
                        (long long)c->maxlen, (long long)x->shape[1]);
    int s = ct_scope_begin(), pg = ct_set_grad_enabled(0);
    ct_tensor *v = (ct_tensor *)x;
    if (c->nlayers > 0) v = ct__enc_stack_fast(m, c->nlayers, v, CT__TFM_CACHE, NULL, c);
    if (v && im->kind == CT__TL_ENCODER && ct__mchild(m, "norm")) v = ct_forward(ct__mchild(m, "norm"), v);
    if (v == x) v = ct_alias(x);
    if (v) { ct_keep(v); c->len += x->shape[1]; }
    ct_set_grad_enabled(pg);
    ct_scope_end(s);
    return v;
}

/* ---- F.scaled_dot_product_attention ---- */
CTENSOR_API ct_tensor *ct_scaled_dot_product_attention(const ct_tensor *q, const ct_tensor *k, const ct_tensor *v,
                                                       const ct_tensor *mask, double p, int is_causal) {
    const char *op = "scaled_dot_product_attention";
    if (!q || !k || !v) { ct__null_arg(op, !q ? 0 : !k ? 1 : 2); return NULL; }
    if (!CT__ISFLOAT(q->dtype) || k->dtype != q->dtype || v->dtype != q->dtype)
        return ct__fail(CT_ERR_DTYPE, "%s: query, key and value must be floating point tensors of one dtype (got %s, %s, %s)", op,
                        ct_dtype_name(q->dtype), ct_dtype_name(k->dtype), ct_dtype_name(v->dtype));
    if (q->ndim < 2 || k->ndim != q->ndim || v->ndim != q->ndim)
        return ct__fail(CT_ERR_SHAPE, "%s: query, key and value must have the same number of dims (>= 2) (got %s, %s, %s)", op,
                        CT__SHAPE(q), CT__SHAPE(k), CT__SHAPE(v));
    int nd = q->ndim;
    int64_t L = q->shape[nd - 2], S = k->shape[nd - 2], E = q->shape[nd - 1], Ev = v->shape[nd - 1];
    if (k->shape[nd - 1] != E || v->shape[nd - 2] != S)
        return ct__fail(CT_ERR_SHAPE, "%s: expected key [..., S, %lld] and value [..., S, Ev] (got query %s, key %s, value %s)", op,
                        (long long)E, CT__SHAPE(q), CT__SHAPE(k), CT__SHAPE(v));
    for (int i = 0; i < nd - 2; i++)
        if (k->shape[i] != q->shape[i] || v->shape[i] != q->shape[i])
            return ct__fail(CT_ERR_SHAPE, "%s: the batch dims of query %s, key %s and value %s differ", op, CT__SHAPE(q), CT__SHAPE(k), CT__SHAPE(v));
    if (mask && mask->dtype != CT_BOOL && !CT__ISFLOAT(mask->dtype))
        return ct__fail(CT_ERR_DTYPE, "%s: attn_mask must be bool or floating point (got %s)", op, ct_dtype_name(mask->dtype));
    if (mask && is_causal) return ct__fail(CT_ERR_ARG, "%s: attn_mask and is_causal cannot both be set", op);
    if (!(p >= 0.0 && p <= 1.0)) return ct__fail(CT_ERR_ARG, "%s: dropout_p must be in [0, 1] (got %g)", op, p);
    int s = ct_scope_begin();
    ct_tensor *r;
    int fused = !mask && p == 0.0 && (q->dtype == CT_FLOAT32 || q->dtype == CT_FLOAT64) && Ev == E &&
                q->device.type == CT_CPU && k->device.type == CT_CPU && v->device.type == CT_CPU &&   /* a host kernel */
                !(ct__tf_grad_on() && (ct_get_requires_grad(q) || ct_get_requires_grad(k) || ct_get_requires_grad(v)));
    if (fused) {
        int64_t BH = 1;
        for (int i = 0; i < nd - 2; i++) BH *= q->shape[i];
        ct_tensor *qc = ct_contiguous(q), *kc = ct_contiguous(k), *vc = ct_contiguous(v);
        r = ct_empty_n(q->dtype, nd, q->shape);
        size_t es = ct__dt[q->dtype].size, scr = ct__att_scratch_bytes(q->dtype, BH, E, L, S);
        ct_tensor *ws = ct_empty(CT_UINT8, (int64_t)scr + 64);
        if (qc && kc && vc && r && ws && BH * L * E > 0) {
            ct__att_job j;
            memset(&j, 0, sizeof j);
            j.mode = 1;
            j.B = BH; j.H = 1; j.hd = E; j.E = E;
            j.q = ct__ptr(qc); j.k = ct__ptr(kc); j.v = ct__ptr(vc);
            j.out = ct__ptr(r);
            j.L = L; j.S = S;
            j.causal = is_causal;
            j.scale = 1.0 / sqrt((double)E);
            ct__att_run(&j, q->dtype, L, S, ct__ptr(ws));
        }
        (void)es;
        if (!qc || !kc || !vc || !ws) r = NULL;
    } else {
        ct_tensor *sc = ct_div_scalar(ct_matmul(q, ct_transpose(k, -2, -1)), sqrt((double)E));
        ct_tensor *mk = NULL;
        if (is_causal) mk = ct_tril(ct_ones_on_n(q->device, CT_BOOL, 2, CT__INTS(L, S)), 0);
        else if (mask) mk = ct_alias(mask);
        if (mk) sc = mk->dtype == CT_BOOL ? ct_masked_fill(sc, ct_logical_not(mk), -INFINITY) : ct_add(sc, mk);
        ct_tensor *w = ct_softmax(sc, -1);
        if (p > 0.0) w = ct_dropout(w, p, 1);
        r = ct_matmul(w, v);
    }
    if (r) ct_keep(r);
    ct_scope_end(s);
    return r;
}

/* ============================================================================
   Profiler (torch.profiler)
   One session per process, on the thread that started it. Records live in
   growing arrays; the listener keeps a stack of the open ones (ops and ranges),
   so a closing record adds its time and memory to its parent: self = total -
   children. Shapes go to an int64 pool: nin, then per input ndim and dims.
   ========================================================================== */
#include <time.h>
typedef struct ct__prof_rec {
    int64_t t0, t1, child_ns;          /* ns from the start; t1 < 0 while open */
    int64_t mem0, mem, child_mem;      /* live bytes at entry; bytes left allocated; children's */
    int64_t flops, bytes;
    int32_t op;                        /* op id; -1: a user range */
    int32_t name;                      /* a range: its name's offset in names */
    int32_t parent, depth, shapes, dtype, nin;
} ct__prof_rec;
#define CT__PROF_STACK 1024
typedef struct ct__prof {
    int running, has_sched, handle, nrecs, caprecs, nshp, capshp, nnames, capnames, ndisp;
    int nstack, overflow, step_slot;
    ct_profiler_action action;
    ct_profiler_options o;
    ct_profiler_schedule sched;
    int64_t step, t_start;
    ct__tls *tls;
    ct__prof_rec *recs;
    int64_t *shp;
    char *names;
    char (*disp)[64];                  /* display names per op id: "aten::add" */
    int op_mm, op_bmm, op_addmm, op_baddbmm, op_mv, op_addmv, op_conv2d;
    int32_t stack[CT__PROF_STACK];     /* open records; -1: opened while not recording */
} ct__prof;
static ct__prof ct__the_prof;

static int64_t ct__prof_now(const ct__prof *p) {
    struct timespec ts;
#if defined(CLOCK_MONOTONIC)
    clock_gettime(CLOCK_MONOTONIC, &ts);
#else
    timespec_get(&ts, TIME_UTC);
#endif
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - p->t_start;
}
static int ct__prof_check(const char *api) {
    ct__prof *p = &ct__the_prof;
    if (!p->running) { ct_set_error(CT_ERR_STATE, "%s: the profiler is not running (call ct_profiler_start first)", api); return -1; }
    if (ct__tls_get() != p->tls) { ct_set_error(CT_ERR_STATE, "%s: called from a thread other than the one that started the profiler", api); return -1; }
    return 0;
}
static int32_t ct__prof_open(ct__prof *p, int op, int32_t name) {
    if (p->nstack == CT__PROF_STACK) { p->overflow++; return -1; }
    int32_t idx = -1;
    if (!ct__grow((void **)&p->recs, &p->caprecs, p->nrecs + 1, sizeof(ct__prof_rec))) {
        idx = p->nrecs++;
        ct__prof_rec *r = &p->recs[idx];
        memset(r, 0, sizeof *r);
        r->op = op;
        r->name = name;
        r->shapes = -1;
        r->dtype = CT_FLOAT32;
        r->parent = p->nstack ? p->stack[p->nstack - 1] : -1;
        r->depth = r->parent >= 0 ? p->recs[r->parent].depth + 1 : 0;
        r->t1 = -1;
        if (p->o.profile_memory) r->mem0 = CT__LOAD(&p->tls->live_bytes);
    }
    p->stack[p->nstack++] = idx;
    if (idx >= 0) p->recs[idx].t0 = ct__prof_now(p);
    return idx;
}
static void ct__prof_end(ct__prof *p, ct__prof_rec *r, int64_t now) {
    r->t1 = now;
    if (p->o.profile_memory) r->mem = CT__LOAD(&p->tls->live_bytes) - r->mem0;
    if (r->parent >= 0) {
        p->recs[r->parent].child_ns += r->t1 - r->t0;
        p->recs[r->parent].child_mem += r->mem;
    }
}
static ct__prof_rec *ct__prof_close_slot(ct__prof *p, int slot, int64_t now) {
    int32_t idx = p->stack[slot];
    memmove(&p->stack[slot], &p->stack[slot + 1], sizeof(int32_t) * (size_t)(p->nstack - slot - 1));
    p->nstack--;
    if (p->step_slot > slot) p->step_slot--;
    else if (p->step_slot == slot) p->step_slot = -1;
    if (idx < 0 || p->recs[idx].t1 >= 0) return NULL;
    ct__prof_end(p, &p->recs[idx], now);
    return &p->recs[idx];
}
static ct__prof_rec *ct__prof_close(ct__prof *p, int64_t now) {
    if (p->overflow) { p->overflow--; return NULL; }
    return p->nstack ? ct__prof_close_slot(p, p->nstack - 1, now) : NULL;
}
/* FLOPs as PyTorch's profiler counts them (2 M N K for a matrix product, a
   convolution's multiply-adds times 2); elementwise ops: the output's numel
   (PyTorch counts add and mul only, as numel). */
static int64_t ct__prof_flops(const ct__prof *p, const ct_dispatch_event *e) {
    ct_tensor *const *in = e->inputs;
    int op = e->op, k = (op == p->op_addmm || op == p->op_baddbmm || op == p->op_addmv) ? 1 : 0;
    if (op == p->op_mm || op == p->op_addmm)
        return 2 * in[k]->shape[0] * in[k]->shape[1] * in[k + 1]->shape[1];
    if (op == p->op_bmm || op == p->op_baddbmm)
        return 2 * in[k]->shape[0] * in[k]->shape[1] * in[k]->shape[2] * in[k + 1]->shape[2];
    if (op == p->op_mv || op == p->op_addmv) return 2 * in[k]->shape[0] * in[k]->shape[1];
    if (op == p->op_conv2d && e->nin >= 2 && in[1] && in[1]->ndim == 4 && e->nout > 0 && e->outputs[0])
        return 2 * ct_numel(e->outputs[0]) * in[1]->shape[1] * in[1]->shape[2] * in[1]->shape[3];
    const ct__opdef *d = ct__opdef_get(op);
    if ((d->meta == ct__meta_binary || d->meta == ct__meta_unary) && e->nout > 0 && e->outputs[0]) return ct_numel(e->outputs[0]);
    return 0;
}
static void ct__prof_listen(const ct_dispatch_event *e, void *u) {
    ct__prof *p = (ct__prof *)u;
    if (e->phase == CT_DISPATCH_ENTER) { ct__prof_open(p, e->op, -1); return; }
    int64_t now = ct__prof_now(p);
    ct__prof_rec *r = ct__prof_close(p, now);
    if (!r || r->op != e->op) return;
    r->nin = e->nin;
    for (int k = 0; k < e->nin; k++)
        if (e->inputs[k]) { r->dtype = (int32_t)e->inputs[k]->dtype; break; }
    if (p->o.record_shapes) {
        int need = 1;
        for (int k = 0; k < e->nin; k++) need += 1 + (e->inputs[k] ? e->inputs[k]->ndim : 0);
        if (!ct__grow((void **)&p->shp, &p->capshp, p->nshp + need, sizeof(int64_t))) {
            int64_t *s = p->shp + p->nshp;
            r->shapes = p->nshp;
            p->nshp += need;
            *s++ = e->nin;
            for (int k = 0; k < e->nin; k++) {
                const ct_tensor *t = e->inputs[k];
                *s++ = t ? t->ndim : 0;
                for (int d = 0; t && d < t->ndim; d++) *s++ = t->shape[d];
            }
        }
    }
    if (p->o.with_bytes && !(ct_op_flags(e->op) & CT_OP_VIEW)) {   /* a view moves no data */
        int64_t b = 0;
        for (int k = 0; k < e->nin; k++)
            if (e->inputs[k]) b += ct_numel(e->inputs[k]) * (int64_t)ct_dtype_size(e->inputs[k]->dtype);
        for (int k = 0; k < e->nout; k++)
            if (e->outputs[k]) b += ct_numel(e->outputs[k]) * (int64_t)ct_dtype_size(e->outputs[k]->dtype);
        r->bytes = b;
    }
    if (p->o.with_flops && e->phase == CT_DISPATCH_EXIT) r->flops = ct__prof_flops(p, e);
}
static void ct__prof_clear(ct__prof *p) {
    p->nrecs = p->nshp = p->nnames = 0;
    for (int k = 0; k < p->nstack; k++) p->stack[k] = -1;
}
/* Closes what is still open (a saved cycle's end), innermost first. */
static void ct__prof_finish(ct__prof *p) {
    int64_t now = ct__prof_now(p);
    for (int k = p->nstack - 1; k >= 0; k--) {
        int32_t idx = p->stack[k];
        if (idx >= 0 && p->recs[idx].t1 < 0) ct__prof_end(p, &p->recs[idx], now);
        p->stack[k] = -1;
    }
}
static ct_profiler_action ct__prof_sched(const ct__prof *p, int64_t step) {
    if (!p->has_sched) return CT_PROFILER_RECORD;
    const ct_profiler_schedule *s = &p->sched;
    if (step < s->skip_first) return CT_PROFILER_NONE;
    step -= s->skip_first;
    int64_t n = (int64_t)s->wait + s->warmup + s->active, m = step % n;
    if (s->repeat > 0 && step / n >= s->repeat) return CT_PROFILER_NONE;
    if (m < s->wait) return CT_PROFILER_NONE;
    if (m < s->wait + s->warmup) return CT_PROFILER_WARMUP;
    return m < n - 1 ? CT_PROFILER_RECORD : CT_PROFILER_RECORD_AND_SAVE;
}
/* profiler.py's _transit_action: a recording phase that ends saves (on_trace_ready);
   warmup's records are dropped; the listener is on while warming up or recording. */
static ct_status ct__prof_transit(ct__prof *p, ct_profiler_action prev, ct_profiler_action next, int stopping) {
    int was_rec = prev == CT_PROFILER_RECORD || prev == CT_PROFILER_RECORD_AND_SAVE;
    int saves = prev == CT_PROFILER_RECORD_AND_SAVE || (was_rec && (stopping || next == CT_PROFILER_NONE || next == CT_PROFILER_WARMUP));
    if (saves) {
        ct__prof_finish(p);
        if (p->o.on_trace_ready) p->o.on_trace_ready(p->o.user_data);
    }
    if (stopping || next == CT_PROFILER_NONE) {
        if (prev == CT_PROFILER_WARMUP) ct__prof_clear(p);
        if (p->handle > 0) ct_remove_dispatch_listener(p->handle);
        p->handle = 0;
        return CT_OK;
    }
    if (prev == CT_PROFILER_NONE || saves || (prev == CT_PROFILER_WARMUP && next != CT_PROFILER_WARMUP)) ct__prof_clear(p);
    if (p->handle <= 0) {
        p->handle = ct_add_dispatch_listener(ct__prof_listen, p, CT_LISTEN_ENTER | CT_LISTEN_NESTED);
        if (p->handle < 0) { p->handle = 0; return ct_last_error_code(); }
    }
    return CT_OK;
}
static void ct__prof_push_blank(ct__prof *p) {   /* a range that is not recorded */
    if (p->nstack == CT__PROF_STACK) p->overflow++;
    else p->stack[p->nstack++] = -1;
}
static ct_status ct__prof_push(ct__prof *p, const char *name) {
    int len = (int)strlen(name) + 1;
    if (ct__grow((void **)&p->names, &p->capnames, p->nnames + len, 1)) {
        ct__prof_push_blank(p);
        ct_set_error(CT_ERR_MEMORY, "profiler_range_push: out of memory");
        return CT_ERR_MEMORY;
    }
    memcpy(p->names + p->nnames, name, (size_t)len);
    p->nnames += len;
    ct__prof_open(p, -1, p->nnames - len);
    return CT_OK;
}
static void ct__prof_step_range(ct__prof *p) {   /* "ProfilerStep#N", as profile.step() records */
    if (!p->has_sched || p->action == CT_PROFILER_NONE || p->nstack == CT__PROF_STACK) return;
    char nm[40];
    snprintf(nm, sizeof nm, "ProfilerStep#%lld", (long long)p->step);
    p->step_slot = p->nstack;
    ct__prof_push(p, nm);
}

CTENSOR_API ct_status ct_profiler_start(const ct_profiler_options *o) {
    ct__prof *p = &ct__the_prof;
    if (p->running) {
        ct_set_error(CT_ERR_STATE, "profiler_start: the profiler is already running (call ct_profiler_stop first)");
        return CT_ERR_STATE;
    }
    const ct_profiler_schedule *s = o ? o->schedule : NULL;
    if (s && (s->wait < 0 || s->warmup < 0 || s->active <= 0 || s->repeat < 0 || s->skip_first < 0)) {
        ct_set_error(CT_ERR_ARG,
                     "profiler_start: Invalid profiler schedule arguments (wait=%d, warmup=%d, active=%d, repeat=%d, skip_first=%d): "
                     "active must be > 0 and the others >= 0", s->wait, s->warmup, s->active, s->repeat, s->skip_first);
        return CT_ERR_ARG;
    }
    p->op_conv2d = ct_op_find("aten::conv2d");   /* also registers the companion headers' ops */
    p->op_mm = ct_op_find("aten::mm");
    p->op_bmm = ct_op_find("aten::bmm");
    p->op_addmm = ct_op_find("aten::addmm");
    p->op_baddbmm = ct_op_find("aten::baddbmm");
    p->op_mv = ct_op_find("aten::mv");
    p->op_addmv = ct_op_find("aten::addmv");
    memset(&p->o, 0, sizeof p->o);
    if (o) p->o = *o;
    p->o.schedule = NULL;
    p->has_sched = s != NULL;
    if (s) p->sched = *s;
    p->tls = ct__tls_get();
    p->t_start = 0;
    p->t_start = ct__prof_now(p);
    p->step = 0;
    p->nstack = p->overflow = 0;
    p->step_slot = -1;
    p->handle = 0;
    ct__prof_clear(p);
    p->running = 1;
    p->action = ct__prof_sched(p, 0);
    ct_status st = ct__prof_transit(p, CT_PROFILER_NONE, p->action, 0);
    if (st != CT_OK) { p->running = 0; p->action = CT_PROFILER_NONE; return st; }
    ct__prof_step_range(p);
    return CT_OK;
}
CTENSOR_API ct_status ct_profiler_stop(void) {
    ct__prof *p = &ct__the_prof;
    if (ct__prof_check("profiler_stop")) return CT_ERR_STATE;
    if (p->step_slot >= 0) ct__prof_close_slot(p, p->step_slot, ct__prof_now(p));
    ct__prof_transit(p, p->action, CT_PROFILER_NONE, 1);
    p->running = 0;
    p->action = CT_PROFILER_NONE;
    p->nstack = p->overflow = 0;
    return CT_OK;
}
CTENSOR_API ct_status ct_profiler_step(void) {
    ct__prof *p = &ct__the_prof;
    if (ct__prof_check("profiler_step")) return CT_ERR_STATE;
    if (p->step_slot >= 0) ct__prof_close_slot(p, p->step_slot, ct__prof_now(p));
    ct_profiler_action prev = p->action;
    p->action = ct__prof_sched(p, ++p->step);
    ct_status st = ct__prof_transit(p, prev, p->action, 0);
    ct__prof_step_range(p);
    return st;
}
CTENSOR_API ct_profiler_action ct_profiler_current_action(void) {
    return ct__the_prof.running ? ct__the_prof.action : CT_PROFILER_NONE;
}
CTENSOR_API ct_status ct_profiler_range_push(const char *name) {
    ct__prof *p = &ct__the_prof;
    if (!name) { ct_set_error(CT_ERR_ARG, "profiler_range_push: name is NULL"); return CT_ERR_ARG; }
    if (!p->running || ct__tls_get() != p->tls) return CT_OK;
    if (p->action == CT_PROFILER_NONE) {
        ct__prof_push_blank(p);
        return CT_OK;
    }
    return ct__prof_push(p, name);
}
CTENSOR_API ct_status ct_profiler_range_pop(void) {
    ct__prof *p = &ct__the_prof;
    if (!p->running || ct__tls_get() != p->tls) return CT_OK;
    if (!p->overflow && (p->nstack == 0 || p->nstack - 1 == p->step_slot)) {
        ct_set_error(CT_ERR_STATE, "profiler_range_pop: no range is open (pop without a matching push)");
        return CT_ERR_STATE;
    }
    ct__prof_close(p, ct__prof_now(p));
    return CT_OK;
}

/* ---- reading the records ---- */
static const char *ct__prof_disp(ct__prof *p, const ct__prof_rec *r) {
    if (r->op < 0) return r->name >= 0 ? p->names + r->name : "?";
    if (r->op >= p->ndisp) {
        int n = ct_num_ops();
        void *nd = CT_REALLOC(p->disp, sizeof(*p->disp) * (size_t)n);
        if (!nd) return ct_op_schema_name(r->op);
        p->disp = (char (*)[64])nd;
        for (int k = p->ndisp; k < n; k++) {
            const char *s = ct_op_schema_name(k), *c = strstr(s, "::"), *dot = strchr(c ? c + 2 : s, '.');
            size_t len = dot ? (size_t)(dot - s) : strlen(s);
            if (len > 63) len = 63;
            memcpy(p->disp[k], s, len);
            p->disp[k][len] = 0;
        }
        p->ndisp = n;
    }
    return p->disp[r->op];
}
static int64_t ct__prof_total(const ct__prof *p, const ct__prof_rec *r) {
    return (r->t1 >= 0 ? r->t1 : ct__prof_now(p)) - r->t0;
}
typedef struct ct__prof_sb { char *s; size_t n, cap; int oom; } ct__prof_sb;
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static void ct__prof_sbf(ct__prof_sb *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
    va_end(ap);
    if (n < 0 || b->oom) return;
    if (!b->s || b->n + (size_t)n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 1024;
        while (nc < b->n + (size_t)n + 1) nc *= 2;
        char *s = (char *)CT_REALLOC(b->s, nc);
        if (!s) { b->oom = 1; return; }
        b->s = s;
        b->cap = nc;
        va_start(ap, fmt);
        vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
    }
    b->n += (size_t)n;
}
static void ct__prof_shapes_sb(const ct__prof *p, const ct__prof_rec *r, ct__prof_sb *b) {
    ct__prof_sbf(b, "[");
    if (r->shapes >= 0) {
        const int64_t *s = p->shp + r->shapes;
        int64_t nin = *s++;
        for (int64_t k = 0; k < nin; k++) {
            int64_t nd = *s++;
            ct__prof_sbf(b, "%s[", k ? ", " : "");
            for (int64_t d = 0; d < nd; d++) ct__prof_sbf(b, "%s%lld", d ? ", " : "", (long long)*s++);
            ct__prof_sbf(b, "]");
        }
    }
    ct__prof_sbf(b, "]");
}
static size_t ct__prof_sb_out(ct__prof_sb *b, char *buf, size_t cap) {
    if (cap > 0) {
        size_t m = b->n < cap - 1 ? b->n : cap - 1;
        if (m) memcpy(buf, b->s, m);
        buf[m] = 0;
    }
    CT_FREE(b->s);
    return b->n;
}
CTENSOR_API int ct_profiler_num_events(void) { return ct__the_prof.nrecs; }
CTENSOR_API ct_status ct_profiler_get_event(int i, ct_profiler_event *e) {
    ct__prof *p = &ct__the_prof;
    if (i < 0 || i >= p->nrecs || !e) {
        ct_set_error(CT_ERR_INDEX, "profiler_get_event: index %d is out of range for %d events%s", i, p->nrecs, e ? "" : " (e is NULL)");
        return CT_ERR_INDEX;
    }
    const ct__prof_rec *r = &p->recs[i];
    e->name = ct__prof_disp(p, r);
    e->schema_name = r->op >= 0 ? ct_op_schema_name(r->op) : e->name;
    e->is_range = r->op < 0;
    e->parent = r->parent;
    e->depth = r->depth;
    e->start_us = (double)r->t0 / 1e3;
    e->total_us = (double)ct__prof_total(p, r) / 1e3;
    e->self_us = (double)(ct__prof_total(p, r) - r->child_ns) / 1e3;
    e->dtype = (ct_dtype)r->dtype;
    e->ninputs = r->nin;
    e->flops = r->flops;
    e->bytes = r->bytes;
    e->cpu_mem = r->mem;
    e->self_cpu_mem = r->mem - r->child_mem;
    return CT_OK;
}
CTENSOR_API size_t ct_profiler_event_shapes(int i, char *buf, size_t cap) {
    ct__prof *p = &ct__the_prof;
    if (i < 0 || i >= p->nrecs) {
        ct_set_error(CT_ERR_INDEX, "profiler_event_shapes: index %d is out of range for %d events", i, p->nrecs);
        if (buf && cap) buf[0] = 0;
        return 0;
    }
    ct__prof_sb b = {NULL, 0, 0, 0};
    ct__prof_shapes_sb(p, &p->recs[i], &b);
    return ct__prof_sb_out(&b, buf, buf ? cap : 0);
}

/* ---- key averages ---- */
typedef struct ct__prof_grp {
    char *key;                 /* name, or name \x01 shapes */
    const char *name;
    int first, count;
    int64_t self_ns, total_ns, flops, bytes, mem, self_mem;
} ct__prof_grp;
static int ct__prof_sort_key;
static int ct__prof_grp_cmp(const void *a, const void *b) {
    const ct__prof_grp *x = (const ct__prof_grp *)a, *y = (const ct__prof_grp *)b;
    double u = 0, v = 0;
    switch (ct__prof_sort_key) {
    case 0: u = (double)x->total_ns; v = (double)y->total_ns; break;
    case 1: u = (double)x->self_ns; v = (double)y->self_ns; break;
    case 2: u = (double)x->total_ns / x->count; v = (double)y->total_ns / y->count; break;
    case 3: u = x->count; v = y->count; break;
    case 4: u = (double)x->flops; v = (double)y->flops; break;
    case 5: u = (double)x->bytes; v = (double)y->bytes; break;
    case 6: u = (double)x->mem; v = (double)y->mem; break;
    case 7: u = (double)x->self_mem; v = (double)y->self_mem; break;
    default: {
        int c = strcmp(x->name, y->name);
        if (c) return c;
    }
    }
    if (u != v) return u > v ? -1 : 1;
    return x->first - y->first;
}
static void ct__prof_fmt_time(char *s, size_t n, int64_t ns) {
    double us = (double)ns / 1e3;
    if (us >= 1e6) snprintf(s, n, "%.3fs", us / 1e6);
    else if (us >= 1e3) snprintf(s, n, "%.3fms", us / 1e3);
    else snprintf(s, n, "%.3fus", us);
}
static void ct__prof_fmt_share(char *s, size_t n, int64_t ns, int64_t all) {
    if (all == 0) snprintf(s, n, "NaN");
    else snprintf(s, n, "%.2f%%", (double)ns * 100.0 / (double)all);
}
static void ct__prof_fmt_mem(char *s, size_t n, int64_t b) {
    double a = fabs((double)b);
    if (a >= 1073741824.0) snprintf(s, n, "%.2f Gb", (double)b / 1073741824.0);
    else if (a >= 1048576.0) snprintf(s, n, "%.2f Mb", (double)b / 1048576.0);
    else if (a >= 1024.0) snprintf(s, n, "%.2f Kb", (double)b / 1024.0);
    else snprintf(s, n, "%lld b", (long long)b);
}
static void ct__prof_cell(ct__prof_sb *b, const char *v, int w) {   /* right-aligned, cut to w */
    ct__prof_sbf(b, "%*.*s  ", w, w, v);
}
static void ct__prof_groups_free(ct__prof_grp *g, int ng) {
    for (int i = 0; g && i < ng; i++) CT_FREE(g[i].key);
    CT_FREE(g);
}
/* key_averages(): the records grouped by name (and shapes), sorted; -1 with an error */
static int ct__prof_groups(const char *api, const ct_profiler_table_options *o, ct__prof_grp **out, int *ngo, int64_t *self_allo) {
    static const char *keys[] = {"cpu_time_total", "self_cpu_time_total", "cpu_time", "count", "flops", "bytes",
                                 "cpu_memory_usage", "self_cpu_memory_usage", "name"};
    ct__prof *p = &ct__the_prof;
    int key = 0, nk = (int)(sizeof keys / sizeof keys[0]);
    if (o->sort_by) {
        for (key = 0; key < nk && strcmp(o->sort_by, keys[key]); key++) {}
        if (key == nk) {
            ct_set_error(CT_ERR_ARG, "%s: unknown sort_by '%s' (cpu_time_total, self_cpu_time_total, cpu_time, count, "
                                     "flops, bytes, cpu_memory_usage, self_cpu_memory_usage or name)", api, o->sort_by);
            return -1;
        }
    }
    if (o->row_limit < 0 || o->max_name_width < 0) {
        ct_set_error(CT_ERR_ARG, "%s: row_limit (%d) and max_name_width (%d) must be >= 0", api, o->row_limit, o->max_name_width);
        return -1;
    }
    if (p->nrecs == 0) { ct_set_error(CT_ERR_STATE, "%s: no profiling data (nothing was recorded)", api); return -1; }
    if (o->group_by_input_shape && !p->o.record_shapes) {
        ct_set_error(CT_ERR_STATE, "%s: group_by_input_shape needs the profiler started with record_shapes", api);
        return -1;
    }
    /* group: an open-addressing table of group indices over the keys */
    int n = p->nrecs, ng = 0, hcap = 16;
    while (hcap < 2 * n) hcap *= 2;
    int *h = (int *)CT_MALLOC(sizeof(int) * (size_t)hcap);
    ct__prof_grp *g = (ct__prof_grp *)CT_MALLOC(sizeof(ct__prof_grp) * (size_t)n);
    int ok = h && g;
    if (h) memset(h, -1, sizeof(int) * (size_t)hcap);
    int64_t self_all = 0;
    for (int i = 0; ok && i < n; i++) {
        const ct__prof_rec *r = &p->recs[i];
        ct__prof_sb k = {NULL, 0, 0, 0};
        const char *nm = ct__prof_disp(p, r);
        ct__prof_sbf(&k, "%s", nm);
        if (o->group_by_input_shape) { ct__prof_sbf(&k, "\x01"); ct__prof_shapes_sb(p, r, &k); }
        if (k.oom || !k.s) { CT_FREE(k.s); ok = 0; break; }
        uint64_t hv = 1469598103934665603ull;
        for (const char *c = k.s; *c; c++) hv = (hv ^ (unsigned char)*c) * 1099511628211ull;
        int slot = (int)(hv & (uint64_t)(hcap - 1));
        while (h[slot] >= 0 && strcmp(g[h[slot]].key, k.s)) slot = (slot + 1) & (hcap - 1);
        ct__prof_grp *q;
        if (h[slot] < 0) {
            h[slot] = ng;
            q = &g[ng++];
            memset(q, 0, sizeof *q);
            q->key = k.s;
            q->name = nm;
            q->first = i;
        } else {
            q = &g[h[slot]];
            CT_FREE(k.s);
        }
        int64_t tot = ct__prof_total(p, r);
        q->count++;
        q->total_ns += tot;
        q->self_ns += tot - r->child_ns;
        q->flops += r->flops;
        q->bytes += r->bytes;
        q->mem += r->mem;
        q->self_mem += r->mem - r->child_mem;
        self_all += tot - r->child_ns;
    }
    CT_FREE(h);
    if (!ok) {
        ct__prof_groups_free(g, ng);
        ct_set_error(CT_ERR_MEMORY, "%s: out of memory", api);
        return -1;
    }
    ct__prof_sort_key = key;
    qsort(g, (size_t)ng, sizeof *g, ct__prof_grp_cmp);
    *out = g;
    *ngo = ng;
    *self_allo = self_all;
    return 0;
}
static size_t ct__prof_table_sb(ct__prof_sb *b, const ct_profiler_table_options *o) {
    ct__prof *p = &ct__the_prof;
    ct_profiler_table_options d = {NULL, 0, 0, 0};
    if (!o) o = &d;
    ct__prof_grp *g = NULL;
    int ng = 0;
    int64_t self_all = 0;
    if (ct__prof_groups("profiler_table", o, &g, &ng, &self_all)) return 0;
    {
        int rows = o->row_limit > 0 && o->row_limit < ng ? o->row_limit : ng;
        int maxw = o->max_name_width ? o->max_name_width : 55, namew = 4, shapew = 4;
        int64_t minflops = 0;
        for (int i = 0; i < ng; i++) {
            int l = (int)strlen(g[i].name) + 4;
            if (l > namew) namew = l;
            if (o->group_by_input_shape) {
                int sl = (int)strlen(strchr(g[i].key, '\x01') + 1) + 4;
                if (sl > shapew) shapew = sl;
            }
            if (g[i].flops > 0 && (minflops == 0 || g[i].flops < minflops)) minflops = g[i].flops;
        }
        if (namew > maxw) namew = maxw;
        if (shapew > 80) shapew = 80;
        int with_flops = p->o.with_flops && minflops > 0;
        static const char *fu[] = {"FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"};
        int fl = 0;
        if (with_flops) {
            double lf = log10((double)minflops) / 3;
            fl = lf < 0 ? 0 : lf > 5 ? 5 : (int)floor(lf);
        }
        /* header and separator */
        const char *hd[16];
        int wd[16], nc = 0;
        hd[nc] = "Name"; wd[nc++] = namew;
        hd[nc] = "Self CPU %"; wd[nc++] = 12;
        hd[nc] = "Self CPU"; wd[nc++] = 12;
        hd[nc] = "CPU total %"; wd[nc++] = 12;
        hd[nc] = "CPU total"; wd[nc++] = 12;
        hd[nc] = "CPU time avg"; wd[nc++] = 12;
        if (p->o.profile_memory) { hd[nc] = "CPU Mem"; wd[nc++] = 12; hd[nc] = "Self CPU Mem"; wd[nc++] = 12; }
        hd[nc] = "# of Calls"; wd[nc++] = 12;
        if (o->group_by_input_shape) { hd[nc] = "Input Shapes"; wd[nc++] = shapew; }
        char fh[32];
        snprintf(fh, sizeof fh, "Total %s", fu[fl]);
        if (with_flops) { hd[nc] = fh; wd[nc++] = 12; }
        if (p->o.with_bytes) { hd[nc] = "Total Bytes"; wd[nc++] = 12; }
        ct__prof_sb sep = {NULL, 0, 0, 0};
        for (int c = 0; c < nc; c++) ct__prof_sbf(&sep, "%.*s  ", wd[c],
            "--------------------------------------------------------------------------------------------------------");
        const char *line = sep.s ? sep.s : "";
        ct__prof_sbf(b, "%s\n", line);
        for (int c = 0; c < nc; c++) ct__prof_cell(b, hd[c], wd[c]);
        ct__prof_sbf(b, "\n%s\n", line);
        for (int i = 0; i < rows; i++) {
            const ct__prof_grp *q = &g[i];
            char v[128], nm[128];
            int c = 0;
            if ((int)strlen(q->name) >= namew - 3 && namew == maxw) snprintf(nm, sizeof nm, "%.*s...", namew - 3 > 0 ? namew - 3 : 0, q->name);
            else snprintf(nm, sizeof nm, "%s", q->name);
            ct__prof_cell(b, nm, wd[c++]);
            ct__prof_fmt_share(v, sizeof v, q->self_ns, self_all); ct__prof_cell(b, v, wd[c++]);
            ct__prof_fmt_time(v, sizeof v, q->self_ns); ct__prof_cell(b, v, wd[c++]);
            ct__prof_fmt_share(v, sizeof v, q->total_ns, self_all); ct__prof_cell(b, v, wd[c++]);
            ct__prof_fmt_time(v, sizeof v, q->total_ns); ct__prof_cell(b, v, wd[c++]);
            ct__prof_fmt_time(v, sizeof v, q->total_ns / q->count); ct__prof_cell(b, v, wd[c++]);
            if (p->o.profile_memory) {
                ct__prof_fmt_mem(v, sizeof v, q->mem); ct__prof_cell(b, v, wd[c++]);
                ct__prof_fmt_mem(v, sizeof v, q->self_mem); ct__prof_cell(b, v, wd[c++]);
            }
            snprintf(v, sizeof v, "%d", q->count); ct__prof_cell(b, v, wd[c++]);
            if (o->group_by_input_shape) ct__prof_cell(b, strchr(q->key, '\x01') + 1, wd[c++]);
            if (with_flops) {
                if (q->flops > 0) snprintf(v, sizeof v, "%8.3f", (double)q->flops * pow(10.0, -3.0 * fl));
                else snprintf(v, sizeof v, "--");
                ct__prof_cell(b, v, wd[c++]);
            }
            if (p->o.with_bytes) { ct__prof_fmt_mem(v, sizeof v, q->bytes); ct__prof_cell(b, v, wd[c++]); }
            ct__prof_sbf(b, "\n");
        }
        char tt[64];
        ct__prof_fmt_time(tt, sizeof tt, self_all);
        ct__prof_sbf(b, "%s\nSelf CPU time total: %s\n", line, tt);
        CT_FREE(sep.s);
        if (sep.oom) b->oom = 1;
    }
    ct__prof_groups_free(g, ng);
    if (b->oom) { ct_set_error(CT_ERR_MEMORY, "profiler_table: out of memory"); return 0; }
    return b->n;
}
CTENSOR_API int ct_profiler_key_averages(ct_profiler_avg *rows, int cap, const ct_profiler_table_options *o) {
    ct_profiler_table_options d = {NULL, 0, 0, 0};
    if (!o) o = &d;
    if (cap < 0 || (cap > 0 && !rows)) {
        ct_set_error(CT_ERR_ARG, "profiler_key_averages: rows is NULL or cap (%d) is negative", cap);
        return -1;
    }
    ct__prof_grp *g = NULL;
    int ng = 0;
    int64_t self_all = 0;
    if (ct__prof_groups("profiler_key_averages", o, &g, &ng, &self_all)) return -1;
    int n = o->row_limit > 0 && o->row_limit < ng ? o->row_limit : ng;
    for (int i = 0; i < n && i < cap; i++) {
        ct_profiler_avg *r = &rows[i];
        r->name = g[i].name;
        r->count = g[i].count;
        r->self_us = (double)g[i].self_ns / 1e3;
        r->total_us = (double)g[i].total_ns / 1e3;
        r->avg_us = r->total_us / g[i].count;
        r->self_percent = self_all ? 100.0 * (double)g[i].self_ns / (double)self_all : 0.0;
        r->flops = g[i].flops;
        r->bytes = g[i].bytes;
        r->cpu_mem = g[i].mem;
        r->self_cpu_mem = g[i].self_mem;
    }
    ct__prof_groups_free(g, ng);
    return n;
}
CTENSOR_API size_t ct_profiler_table(char *buf, size_t cap, const ct_profiler_table_options *o) {
    ct__prof_sb b = {NULL, 0, 0, 0};
    if (!ct__prof_table_sb(&b, o)) {
        CT_FREE(b.s);
        if (buf && cap) buf[0] = 0;
        return 0;
    }
    return ct__prof_sb_out(&b, buf, buf ? cap : 0);
}
#ifndef CTENSOR_NO_STDIO
CTENSOR_API ct_status ct_profiler_print_table(FILE *f, const ct_profiler_table_options *o) {
    if (!f) { ct_set_error(CT_ERR_ARG, "profiler_print_table: f is NULL"); return CT_ERR_ARG; }
    ct__prof_sb b = {NULL, 0, 0, 0};
    if (!ct__prof_table_sb(&b, o)) { CT_FREE(b.s); return ct_last_error_code(); }
    fputs(b.s, f);
    CT_FREE(b.s);
    return CT_OK;
}
static void ct__prof_json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}
CTENSOR_API ct_status ct_profiler_export_chrome_trace(const char *path) {
    ct__prof *p = &ct__the_prof;
    if (!path) { ct_set_error(CT_ERR_ARG, "export_chrome_trace: path is NULL"); return CT_ERR_ARG; }
    if (p->nrecs == 0) {
        ct_set_error(CT_ERR_STATE, "export_chrome_trace: no profiling data (nothing was recorded between ct_profiler_start and ct_profiler_stop)");
        return CT_ERR_STATE;
    }
    FILE *f = fopen(path, "w");
    if (!f) { ct_set_error(CT_ERR_IO, "export_chrome_trace: cannot open '%s' for writing", path); return CT_ERR_IO; }
    fprintf(f, "{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n");
    for (int i = 0; i < p->nrecs; i++) {
        const ct__prof_rec *r = &p->recs[i];
        fprintf(f, "    {\"ph\": \"X\", \"cat\": \"%s\", \"name\": ", r->op < 0 ? "user_annotation" : "cpu_op");
        ct__prof_json_str(f, ct__prof_disp(p, r));
        fprintf(f, ", \"pid\": 0, \"tid\": 1, \"ts\": %.3f, \"dur\": %.3f, \"args\": {", (double)(r->t0 + p->t_start) / 1e3,
                (double)ct__prof_total(p, r) / 1e3);
        if (r->op >= 0) {
            fprintf(f, "\"Schema\": ");
            ct__prof_json_str(f, ct_op_schema_name(r->op));
            fprintf(f, ", \"dtype\": \"%s\"", ct_dtype_name((ct_dtype)r->dtype));
            if (r->shapes >= 0) {
                ct__prof_sb s = {NULL, 0, 0, 0};
                ct__prof_shapes_sb(p, r, &s);
                fprintf(f, ", \"Input Dims\": %s", s.s ? s.s : "[]");
                CT_FREE(s.s);
            }
            if (p->o.with_flops) fprintf(f, ", \"FLOPs\": %lld", (long long)r->flops);
            if (p->o.with_bytes) fprintf(f, ", \"Bytes\": %lld", (long long)r->bytes);
            if (p->o.profile_memory) fprintf(f, ", \"CPU Mem\": %lld", (long long)r->mem);
        }
        fprintf(f, "}}%s\n", i + 1 < p->nrecs ? "," : "");
    }
    fprintf(f, "  ],\n  \"displayTimeUnit\": \"ms\"\n}\n");
    if (fclose(f) != 0) { ct_set_error(CT_ERR_IO, "export_chrome_trace: writing '%s' failed", path); return CT_ERR_IO; }
    return CT_OK;
}
#endif

/* [section: data-impl] */

#ifdef __NVCC__
#  pragma nv_diag_default 550
#endif
CT__GXX_POP
#endif /* CTENSOR_NN_IMPLEMENTATION_DONE */
#endif /* CTENSOR_NN_IMPLEMENTATION */
