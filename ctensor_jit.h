/* ctensor_jit.h - a tracing JIT for ctensor (PyTorch's torch.jit.trace, freeze and
   optimize_for_inference, in C): trace to a graph, optimize it, run it, save it,
   export it as a standalone C file, and quantize it in graph mode.  v0.2 (2026-12-06)

   HOW TO USE
     #define CTENSOR_IMPLEMENTATION          (in exactly one file)
     #include "ctensor.h"
     #include "ctensor_nn.h"                 (optional: ct_trace_module)
     #include "ctensor_quant.h"              (optional: graph-mode quantization)
     #include "ctensor_jit.h"                (after them)
     link with -lm

     The implementation uses ctensor.h's internals (the dispatch hook, the
     elementwise loops), so it is compiled in the translation unit that defines
     CTENSOR_IMPLEMENTATION; there CTENSOR_JIT_IMPLEMENTATION is turned on.

   CONFIGURATION (define before including, in the implementation file)
     CTENSOR_JIT_LITE       the interpreter-only runtime (PyTorch's lite interpreter):
                            loading, running, inspecting and building graphs; no
                            tracer, no passes, no export. With ctensor.h's selective
                            build (the CTENSOR_OP_* lines ct_jit_export_selected_ops
                            writes for a graph) and CTENSOR_NO_AUTOGRAD, a program
                            that loads and runs a saved model links only the kernels
                            the model runs (examples/jit_lite.c; make footprint)

   THE FEEL (torch.jit.trace + torch.jit.freeze + torch.jit.save)
       ct_graph *g = ct_trace_module(model, 1, &example);   // records every op
       ct_jit_freeze(g);                                    // parameters -> constants, folded
       ct_jit_optimize(g);                                  // DCE, CSE, conv-bn, simplify, fusion
       ct_graph_print(g);                                   // TorchScript-like text
       ct_tensor *y;
       ct_graph_run(g, 1, &x, &y, 1);                       // y == ct_forward(model, x)
       ct_graph_save(g, "model.ctjit");                     // graph + weights, one file
       ct_jit_export_c(g, "model.c", "model_forward");      // plain C, no ctensor needed
       ct_graph *p = ct_jit_quant_prepare(g, &qconfig);     // prepare_fx (ctensor_quant.h)
       ct_graph_run(p, 1, &calib, &y, 1);                   // calibrate
       ct_graph *q = ct_jit_quant_convert(p);               // convert_fx: an int8 graph

   TABLE OF CONTENTS
     1. Declarations
        1.1 Tracing                     ct_trace_begin / ct_trace_end / ct_trace_module
        1.2 Graphs                      printing, verifying, inspecting, building by hand
        1.3 Running                     ct_graph_run (the interpreter)
        1.4 Passes                      DCE, CSE, simplification, constant propagation, freeze, conv-bn
                                        and linear-bn folding, elementwise fusion,
                                        ct_jit_optimize
        1.5 Files                       ct_graph_save / ct_graph_load (safetensors layout)
        1.6 Export to C                 ct_jit_export_c; the selective build's op list
                                        (ct_jit_export_selected_ops)
        1.7 Graph-mode quantization     ct_jit_quant_prepare / ct_jit_quant_convert /
                                        ct_jit_quant_dynamic / ct_jit_quant_prepare_qat
                                        (with ctensor_quant.h: FX's prepare_fx / convert_fx /
                                        prepare_qat_fx)
     2. Implementation
        2.1 The graph store             values, nodes, liveness
        2.2 The tracer                  a dispatch listener
        2.3 Text: printing and parsing
        2.4 The interpreter             dispatch per node, fused loops per block
        2.5 Passes
        2.6 Save and load
        2.7 Export to C, and the op list of a selective build
        2.8 Graph-mode quantization     pattern matching, observers, convert by tracing

   WHAT TRACING MEANS (as torch.jit.trace)
     - The graph is what ran: C control flow (if, for) is specialised to the
       example inputs. A branch on tensor values, or an op whose output shape
       depends on tensor values (nonzero, masked_select, ...), is recorded as it
       ran for the example; such ops add a warning to the graph (ct_graph_warning),
       as PyTorch's TracerWarning.
     - Every tensor an op reads that is neither a graph input nor made by a traced
       op becomes a constant captured by reference (a parameter when it requires
       grad; ct_trace_module names parameters and buffers by their state-dict keys).
       ct_jit_freeze turns parameters into constants and folds what depends only on
       constants (the eval-mode batch-norm scale and shift, a weight's transpose).
     - Shapes: the graph records the example's dtypes and shapes. Running checks
       inputs against them; ct_graph_set_dynamic_batch lets dimension 0 of every
       input vary (for graphs whose attributes do not bake the batch size in).
     - In-place ops are recorded in place; writes through views to other tensors
       are not tracked (as in PyTorch, avoid in-place ops on views in traced code).

   THREADS
     A graph is read-only while it runs: any number of threads may run one graph at
     once (each run has its own values). Passes, save and export need the graph to
     themselves. Tracing is per thread: the tracer sees only its own thread's ops.

   Errors name the function and the values, come back as NULL / -1 / a ct_status
   with ct_last_error() set, and leave the graph as it was. Tracer warnings go to
   the logger of ct_set_logger (with code CT_OK; NULL silences them), else stderr.
*/
#ifndef CTENSOR_JIT_H_INCLUDED
#define CTENSOR_JIT_H_INCLUDED
#include "ctensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================
   1. Declarations
   ========================================================================== */
typedef struct ct_graph ct_graph;

/* ---- 1.1 Tracing ---------------------------------------------------------- */
#ifndef CTENSOR_JIT_LITE
/* Starts recording this thread's ops; inputs become the graph's inputs, in order.
   One trace per thread at a time. */
CTENSOR_API ct_status ct_trace_begin(int nin, ct_tensor *const *inputs);
/* Stops recording and returns the graph computing `outputs` from the inputs
   (dead ops removed), or NULL with an error (no trace running, an output the
   trace never saw and that is not a constant...). */
CTENSOR_API ct_graph *ct_trace_end(int nout, ct_tensor *const *outputs);
/* Stops recording and drops what was recorded (after an error). */
CTENSOR_API void ct_trace_abort(void);
/* 1 while this thread is tracing */
CTENSOR_API int ct_is_tracing(void);
#endif

/* ---- 1.2 Graphs ----------------------------------------------------------- */
CTENSOR_API void ct_graph_free(ct_graph *g);              /* NULL is fine */
CTENSOR_API ct_graph *ct_graph_clone(const ct_graph *g);  /* constants shared (read-only) */
/* graph.graph printout, TorchScript style; returns the length (as snprintf) */
CTENSOR_API size_t ct_graph_repr(const ct_graph *g, char *buf, size_t cap);
CTENSOR_API void ct_graph_print(const ct_graph *g);       /* to stdout */
/* Checks the graph's invariants (every use after its definition, arities match
   each op's schema, attributes valid, outputs defined): CT_OK or CT_ERR_STATE
   with the first problem named. Passes and loads keep graphs valid. */
CTENSOR_API ct_status ct_graph_verify(const ct_graph *g);
CTENSOR_API int ct_graph_num_inputs(const ct_graph *g);
CTENSOR_API int ct_graph_num_outputs(const ct_graph *g);
CTENSOR_API int ct_graph_num_nodes(const ct_graph *g);    /* a fused group counts once */
/* Nodes running op `name` (a stable name such as "aten::relu", or
   "prim::FusedElementwise"); -1 for a bad argument. */
CTENSOR_API int ct_graph_count_op(const ct_graph *g, const char *name);
/* The stable names of the ops the graph runs (fused groups listed by their
   members), each once, sorted: the list a selective build keeps
   (CTENSOR_SELECTED_OPS). Returns the count; writes up to cap names. */
CTENSOR_API int ct_graph_ops_used(const ct_graph *g, const char **names, int cap);
CTENSOR_API int ct_graph_num_warnings(const ct_graph *g);
CTENSOR_API const char *ct_graph_warning(const ct_graph *g, int i);  /* NULL out of range */
/* Lets dimension 0 of every input (and what follows from it) vary between runs.
   Views that keep dimension 0 and flatten or split the rest (a traced nn.Flatten,
   x.view(N, -1)) get -1 as their first size, so the batch size is not baked in. */
CTENSOR_API ct_status ct_graph_set_dynamic_batch(ct_graph *g, int on);

/* Building graphs by hand (the C counterpart of writing a TorchScript graph).
   Values are numbered from 0; node outputs get their dtype and shape when
   ct_graph_infer_shapes runs (ct_jit_export_c needs them). */
CTENSOR_API ct_graph *ct_graph_new(void);
/* an input: dtype and shape are what ct_graph_run checks (ndim < 0: unchecked) */
CTENSOR_API int ct_graph_add_input(ct_graph *g, const char *name, ct_dtype dt, int ndim, const int64_t *shape);
/* a constant (the graph keeps a reference to t; name NULL: a generated one) */
CTENSOR_API int ct_graph_add_constant(ct_graph *g, const char *name, ct_tensor *t);
/* a node running op `op` (stable or short name) on the given values; a NULL
   attrs takes the op's defaults. Writes its nout output values to outputs and
   returns 0, or -1 with an error. */
CTENSOR_API int ct_graph_add_node(ct_graph *g, const char *op, int nin, const int *inputs, const ct_attrs *attrs,
                                  int nout, int *outputs);
CTENSOR_API ct_status ct_graph_set_outputs(ct_graph *g, int n, const int *values);
/* Control flow that lives in the graph (TorchScript's prim::If and prim::Loop; the
   C counterpart of scripting). The subgraphs are copied into the node; they see
   only their own inputs (pass what they need as inputs).
   prim::If: `cond` is a one-element value (nonzero: true); then_g and else_g take
   the nin `inputs` and both return nout values, which become the node's outputs.
   prim::Loop: runs body while i < trip_count (a one-element integer value) and the
   condition holds (`cond`: the initial one); body takes (i, carried...) as int64
   0-d tensor and ncarried values and returns (condition, carried...); the node's
   outputs are the final carried values. Both return 0, or -1 with an error. */
CTENSOR_API int ct_graph_add_if(ct_graph *g, int cond, const ct_graph *then_g, const ct_graph *else_g, int nin,
                                const int *inputs, int nout, int *outputs);
CTENSOR_API int ct_graph_add_loop(ct_graph *g, int trip_count, int cond, const ct_graph *body, int ncarried,
                                  const int *init, int *outputs);
/* Runs the graph once on example inputs and records every value's dtype and shape. */
CTENSOR_API ct_status ct_graph_infer_shapes(ct_graph *g, int nin, ct_tensor *const *inputs);

/* ---- 1.3 Running ---------------------------------------------------------- */
/* Runs the graph: writes up to max_out outputs (new references in the current
   scope) and returns the graph's output count, or -1 with an error naming the
   input or the node that failed. Intermediate values are freed after their last
   use, so their blocks are reused within the run and by the next run. Autograd
   records the run when an input requires grad (grad mode as the caller's). */
CTENSOR_API int ct_graph_run(const ct_graph *g, int nin, ct_tensor *const *inputs, ct_tensor **outputs, int max_out);

/* ---- 1.4 Passes: each rewrites the graph into an equivalent one ---------- */
#ifndef CTENSOR_JIT_LITE
CTENSOR_API ct_status ct_jit_eliminate_dead_code(ct_graph *g);
CTENSOR_API ct_status ct_jit_eliminate_common_subexpressions(ct_graph *g);  /* not random or in-place ops */
/* evaluates nodes whose inputs are all constants (not random ops) */
CTENSOR_API ct_status ct_jit_constant_propagation(ct_graph *g);
/* torch.jit.freeze: parameters become constants (a copy: later changes to the
   model do not reach the graph), then constant propagation and DCE. */
CTENSOR_API ct_status ct_jit_freeze(ct_graph *g);
/* conv2d (constant weight and bias) followed by eval-mode batch norm (constant
   scale and shift) becomes one conv2d; needs constants (freeze first). */
CTENSOR_API ct_status ct_jit_fold_conv_bn(ct_graph *g);
/* addmm / mm with a constant weight (a frozen linear layer) followed by eval-mode
   batch norm over its features (BatchNorm1d on [N, C]) becomes one addmm with the
   scaled weight and bias; needs constants (freeze first). */
CTENSOR_API ct_status ct_jit_fold_linear_bn(ct_graph *g);
/* Chains of float elementwise ops (unary, binary, with same-shape or scalar
   operands) become one node that computes the whole chain per block of elements
   in cache: the intermediates never reach memory. With AVX-512, a run of cheap ops
   (add, sub, mul, div, maximum, minimum, neg, abs, relu, rsqrt) each reading the
   one before it runs in registers, 64 floats at a time, and so does the costly op
   (exp, sigmoid, silu, tanh, gelu) that reads the run's result: one pass over the
   block for the whole segment, one store (the same bits as op by op). Results are
   eager's bits but for the fused tanh and rsqrt (within 2 ulp of double) and exp
   below -87.34 (subnormal results where eager gives 0). */
CTENSOR_API ct_status ct_jit_fuse_elementwise(ct_graph *g);
/* conv2d / addmm / mm followed by an activation (relu, relu6, hardtanh, leaky_relu,
   silu, gelu, sigmoid, tanh) that is the product's only reader: the activation runs
   in place on the product's buffer (no second buffer, one pass less of memory).
   conv2d + relu becomes one ct::conv2d_relu (ctensor_nn.h's convolution with relu in
   its epilogue where the kernel has one, Winograd's 3x3; the same bits as conv2d then
   relu; differentiable; a constant weight on the CPU). Graph-mode quantization's
   prepare takes a ct::conv2d_relu as the conv2d + relu pattern (the same converted
   graph as preparing first). */
CTENSOR_API ct_status ct_jit_fuse_activation(ct_graph *g);
/* Algebraic simplification (then DCE): x * 1, 1 * x, x / 1, x + (-0), x - (+0) and
   neg(neg(x)) become x where the result has x's dtype and shape (these hold for every
   float, NaN and signed zeros included; x + (+0) does not: -0 + 0 is +0), and a float
   x / sqrt(y) whose sqrt has no other reader becomes x * rsqrt(y) (two ops that the
   fused loop runs as one multiply and one reciprocal square root estimate refined by
   a Newton step: within 2 ulp of the division's result instead of exact). A sign
   analysis drops abs(x) and relu(x) where every element of x is at least +0 or NaN:
   x made by exp, sigmoid or abs, or by sqrt, rsqrt, relu, a product, quotient, sum,
   maximum or minimum of such values and float scalar constants >= +0 (e.g.
   abs(3 * exp(y)) is 3 * exp(y)); the same values, but a NaN keeps the sign bit abs
   would have cleared. Not done,
   because they do not hold for every input: exp(log x) (x < 0 gives NaN), log(exp x)
   (overflow), folding (x * c1) * c2 (rounding, overflow). Graphs with in-place ops are
   left alone. */
CTENSOR_API ct_status ct_jit_simplify(ct_graph *g);
/* torch.jit.optimize_for_inference: freeze, conv-bn and linear-bn folding, CSE,
   simplification, DCE, elementwise fusion, activation fusion. */
CTENSOR_API ct_status ct_jit_optimize(ct_graph *g);
#endif

/* ---- 1.5 Files ------------------------------------------------------------ */
/* One file: the safetensors layout, the weights (constants and parameters) as its
   tensors, the graph's text in its metadata ("ctensor.jit.graph", with
   "ctensor.jit.version" = "1"). Quantized constants (a converted graph's weights)
   are stored as ctensor_quant.h's files store them: their codes, and their scales
   and zero points in a "qparams:<name>" entry (saving and loading them needs
   ctensor_quant.h's implementation in the build). A prepared graph (observers)
   cannot be saved. Loading validates the whole file and the graph. */
CTENSOR_API ct_status ct_graph_save_mem(const ct_graph *g, void **data, size_t *len);  /* free *data with ct_free */
/* Loads a graph from memory (name is used in messages; may be NULL). */
CTENSOR_API ct_graph *ct_graph_load_mem(const void *data, size_t len, const char *name);
#ifndef CTENSOR_NO_STDIO
/* Writes the graph file to path. */
CTENSOR_API ct_status ct_graph_save(const ct_graph *g, const char *path);
/* Reads a graph file; every error names the file and the line of the graph text. */
CTENSOR_API ct_graph *ct_graph_load(const char *path);
#endif

/* ---- 1.6 Export to C, and the selective build ---------------------------- */
#ifndef CTENSOR_JIT_LITE
/* Writes a standalone C99 file: the constants as const arrays and one function
   `void <fn>(const float *in0, ..., float *out0, ...)` (inputs and outputs
   contiguous, in order) that computes the graph with static shapes, fused loops
   inlined, no allocation and no ctensor. Its values share one static arena,
   planned from their lifetimes (a value's memory is reused once its last reader
   has run), as large as the peak of live values. float32 graphs of the ops listed in the
   implementation (linear/addmm/mm, conv2d, pooling, batch norm, flatten/view,
   elementwise and activations); anything else is an error naming the op. */
CTENSOR_API ct_status ct_jit_export_c_mem(const ct_graph *g, const char *fn_name, char **text, size_t *len);
#ifndef CTENSOR_NO_STDIO
CTENSOR_API ct_status ct_jit_export_c(const ct_graph *g, const char *path, const char *fn_name);
#endif
/* The selective build of a graph (torch.jit.export_opnames, for PyTorch Mobile's
   selective build): C text that defines CTENSOR_SELECTED_OPS and one
   `#define CTENSOR_OP_<NAME> 1` line for every op the graph runs (fused groups by
   their members, blocks of prim::If / prim::Loop too), plus the ops the
   interpreter itself may call for it (aten::alias for outputs that are inputs or
   constants, aten::clone for a fused group's strided input, aten::full for loop
   counters). Ops of a companion header also get `#define CTENSOR_JIT_USES_NN 1`
   (_LINALG, _QUANT, _SPECIAL): include that header. Include the text before
   ctensor.h in the file that defines CTENSOR_IMPLEMENTATION (examples/jit_lite.c).
   The _mem form returns the text (free with ct_free). */
CTENSOR_API ct_status ct_jit_export_selected_ops_mem(const ct_graph *g, char **text, size_t *len);
#ifndef CTENSOR_NO_STDIO
CTENSOR_API ct_status ct_jit_export_selected_ops(const ct_graph *g, const char *path);
#endif

#ifdef CTENSOR_QUANT_H_INCLUDED
/* ---- 1.7 Graph-mode quantization (torch.ao.quantization.quantize_fx) --------
   Needs ctensor_quant.h included before this header (and its implementation in
   the same translation unit). The flow of PyTorch's prepare_fx / convert_fx:
       ct_qconfig qc = ct_qconfig_default_x86();
       ct_graph *p = ct_jit_quant_prepare(g, &qc);       // fuse, insert observers
       for (...) ct_graph_run(p, 1, &calib_batch, &y, 1); // calibrate
       ct_graph *q = ct_jit_quant_convert(p);            // int8 graph
   ct_jit_quant_prepare returns a new graph (g is not changed): frozen, batch norms
   folded into the convolutions before them, then these patterns found by graph
   matching, as FX's fusion patterns (each becomes one quantized op):
     conv2d (constant weight) [+ relu]                 -> quantized::conv2d[_relu]
     ct::conv2d_relu (ct_jit_fuse_activation's)         -> quantized::conv2d_relu
     linear (addmm / mm with a constant weight) [+ relu] -> quantized::linear[_relu]
     add of two activations (alpha 1) [+ relu]          -> quantized::add[_relu]
     cat of activations                                  -> quantized::cat
   (conv + batch norm + relu is conv + relu once the batch norm is folded). An
   observer of the qconfig's activation factory sits on every edge that enters a
   pattern from float (graph inputs) and on every pattern's output: an add or cat
   has an observer of its own on its output (a residual block's add of its input
   and its second conv: the input's observer, the conv's, the add's), as eager
   mode's FloatFunctional. A cat's inputs and output share one observer, as FX
   1.13 does (eager mode's FloatFunctional.cat instead observes its output alone
   and requantizes): the convs before it write the cat's parameters directly and
   quantized::cat copies codes, with no requantize. Running the
   prepared graph (ct_graph_run) computes in float and feeds the observers: that
   is calibration. Its printout names each observer after the line of the value it
   watches ("# observed by HistogramObserver: %3"). A prepared graph's observers are not thread-safe (run it from
   one thread), are dropped by ct_graph_clone, and it cannot be saved or exported;
   run no passes on it. ct_jit_quant_convert returns a new graph: inputs quantized
   (quantize_per_tensor with the input observer's scale and zero point), each
   pattern a quantized op (a float value quantized once, however many patterns
   read it; the weight quantized by the qconfig's weight observer,
   per channel or per tensor, packed once; output scale and zero point from its
   observer), relu / pooling / flatten / view between patterns run on the int8
   tensors (they keep their input's parameters), any other op runs in float on
   dequantized inputs, and quantized outputs are dequantized. The converted graph
   runs, saves (quantized constants carry their parameters) and loads like any
   graph; its int8 results equal ctensor_quant.h's eager static quantization
   (ct_fuse_modules, ct_quant_prepare, ct_quant_convert) of the same model with
   the same calibration data.
   Both return NULL with an error: a NULL graph or qconfig, control flow in the
   graph, no pattern to quantize, a graph not prepared, an observer that has seen
   no data (convert before calibrating). */
CTENSOR_API ct_graph *ct_jit_quant_prepare(const ct_graph *g, const ct_qconfig *qconfig);
CTENSOR_API ct_graph *ct_jit_quant_convert(const ct_graph *prepared);
/* Dynamic quantization in graph mode (quantize_dynamic on an FX graph, the default
   dynamic qconfig): a new graph (g is not changed), frozen, where each linear
   (addmm / mm with a constant weight) is quantized::linear_dynamic with the weight
   int8 symmetric, per output channel (per_channel = 1) or per tensor, and the bias
   in float32; activations are quantized at run time, per call, from their own range
   (reduce_range as ct_q_linear_dynamic: 1 is PyTorch's x86 default). Everything
   else stays float. Equal, bit for bit, to ctensor_quant.h's eager
   ct_quantize_dynamic of the same model. No calibration. Errors: NULL graph, a
   prepared graph, If / Loop / fused nodes (run it before ct_jit_optimize), no
   linear layer with a constant weight. */
CTENSOR_API ct_graph *ct_jit_quant_dynamic(const ct_graph *g, int per_channel, int reduce_range);
/* The observers of a prepared graph (0 for other graphs, -1 for NULL; a QAT
   ConvBn2d's / LinearBn1d's weight FakeQuantize and batch norm are not counted). */
CTENSOR_API int ct_jit_quant_num_observers(const ct_graph *g);
/* Quantization-aware training in graph mode (prepare_qat_fx, then convert_fx):
       ct_qconfig qc = ct_qat_qconfig_default_x86();
       ct_graph *p = ct_jit_quant_prepare_qat(g, &qc);   // fake-quant nodes
       ct_tensor *w[64];
       int n = ct_jit_quant_qat_parameters(p, w, 64);    // weights, biases, gamma, beta
       ct_optimizer *opt = ct_optim_sgd_params(n, w, &so);
       ... ct_graph_run(p, ...) with grad enabled, a loss, ct_backward, ct_step ...
       ct_jit_quant_qat_train(p, 0);                     // batch norms: running statistics
       ct_graph *q = ct_jit_quant_convert(p);            // the int8 graph
   The patterns, graph edges and observers' places of ct_jit_quant_prepare, with the
   qconfig's FakeQuantize modules (a QAT qconfig, else an error) in place of the
   observers: running the graph replaces each value they watch by its fake-quantized
   form (gradients pass straight through), and each conv2d / linear weight passes
   through a FakeQuantize of the qconfig's weight factory (a linear's as [out, in],
   per channel along the output features) before the node reads it, as FX's QAT
   modules do. A view, flatten, pooling or relu of a value already fake-quantized
   gets no FakeQuantize of its own (convert runs it on the int8 tensor, which keeps
   its parameters; eager mode observes no Flatten either). The weights and biases of those layers become trainable copies
   (leaves that require grad) that ct_jit_quant_qat_parameters lists (the count;
   at most max written; -1 for a graph not prepared for QAT). A conv2d followed by
   a batch norm (optionally a relu) trains as FX's ConvBn2d / ConvBnReLU2d
   (PyTorch's _forward_approximate): sf = gamma / sqrt(running_var + eps); the
   weight times sf (per output channel) passes through the weight FakeQuantize;
   the conv runs without bias, its output is divided by sf and the conv's bias
   added; then a real BatchNorm2d runs (ctensor_nn.h's module, on the value as a
   FakeQuantize is: no graph op updates running statistics outside autograd) and
   the relu. A linear followed by a BatchNorm1d trains the same way as FX's
   LinearBn1d (its weight [out, in] times sf per output feature, fake-quantized
   per output feature; the linear without bias, divided by sf, the bias added, a
   real BatchNorm1d); PyTorch has no LinearBnReLU1d, so a relu after it is not part
   of the pattern: it runs on the fake-quantized output and shares its FakeQuantize
   (FX's and eager mode's relu), and convert runs quantized::linear then the relu
   on the int8 tensor. A linear without bias (mm) runs as addmm(zeros, x, w'), as
   ct_linear does. The batch norm is found in a trace of the model in training mode
   (native_batch_norm and its statistics updates: eps and momentum read from
   them) or in eval mode (ct::batch_norm_eval of the running statistics: eps
   read, and the momentum it carries; 0 there is momentum=None); its
   affine parameters and running statistics are copied (the model is not
   touched). The batch norm is in training mode after prepare, as prepare_qat_fx's
   model: batch statistics, running statistics updated by every run (with or
   without grad); ct_jit_quant_qat_train(p, 0) switches it to the running
   statistics (model.eval()) and back. Gamma and beta are trainable parameters
   (gamma among the constants, then each beta, in ct_jit_quant_qat_parameters);
   ct_jit_quant_qat_buffers lists the running means and variances (mean, var for
   each ConvBn2d / LinearBn1d in graph order). Other batch norms are folded with
   their running statistics before training. Convert folds each ConvBn2d's /
   LinearBn1d's batch norm into the weight and bias with the running statistics as
   they are then (fuse_conv_bn_weights / fuse_linear_bn_weights), quantizes
   each weight with its FakeQuantize's parameters and each activation with its
   FakeQuantize's, as ctensor_quant.h's eager ct_quant_convert after
   ct_fuse_modules_qat (ConvBn2d, ConvBnReLU2d, LinearBn1d) and
   ct_quant_prepare_qat (the same losses, running statistics and int8 results,
   bit for bit). A run needs the
   graph's first dimension fixed or dynamic as traced; the FakeQuantize and
   batch norm modules are not thread-safe (one thread). Errors: a batch norm
   whose size is not the conv2d's output channels or the linear's output
   features. */
CTENSOR_API ct_graph *ct_jit_quant_prepare_qat(const ct_graph *g, const ct_qconfig *qat_qconfig);
CTENSOR_API int ct_jit_quant_qat_parameters(const ct_graph *g, ct_tensor **params, int max);
/* The running means and variances of the ConvBn2d and LinearBn1d patterns (the
   count; at most max written; -1 for a graph not prepared for QAT). */
CTENSOR_API int ct_jit_quant_qat_buffers(const ct_graph *g, ct_tensor **bufs, int max);
/* Training (1, after prepare) or evaluation (0) mode of the ConvBn2d / LinearBn1d batch norms. */
CTENSOR_API ct_status ct_jit_quant_qat_train(ct_graph *g, int training);
#endif

#ifdef CTENSOR_NN_H_INCLUDED
/* torch.jit.trace(module, example): traces ct_forward_n(m, nin, inputs); the
   module's parameters and buffers are named by their state-dict keys. */
CTENSOR_API ct_graph *ct_trace_module(ct_module *m, int nin, ct_tensor *const *inputs);
#endif
#endif /* !CTENSOR_JIT_LITE */

#ifdef __cplusplus
}
#endif
#endif /* CTENSOR_JIT_H_INCLUDED */

/* ============================================================================
   2. Implementation
   ========================================================================== */
#if defined(CTENSOR_IMPLEMENTATION) && !defined(CTENSOR_JIT_NO_IMPLEMENTATION) && !defined(CTENSOR_JIT_IMPLEMENTATION)
#define CTENSOR_JIT_IMPLEMENTATION
#endif
#ifdef CTENSOR_JIT_IMPLEMENTATION
#ifndef CTENSOR_JIT_IMPLEMENTATION_DONE
#define CTENSOR_JIT_IMPLEMENTATION_DONE
#ifndef CTENSOR_IMPLEMENTATION_DONE
#error "ctensor_jit.h: the implementation needs ctensor.h's implementation in the same translation unit (define CTENSOR_IMPLEMENTATION before including ctensor.h)"
#endif
CT__GXX_PUSH
#include <ctype.h>
#include <stdarg.h>
#if defined(__AVX__)
#include <immintrin.h>
#elif defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#elif defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#endif
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <math.h>

/* ---- 2.1 The graph store --------------------------------------------------
   Values are SSA: each is a graph input, a parameter or constant (a tensor the
   graph holds a reference to), or output k of one node. Nodes are in execution
   order. A fused node (op CT__JIT_FUSED) carries a small program of elementwise
   ops over its inputs. After every change, ct__jit_finish recomputes liveness:
   which values a run may free after each node. */
#define CT__JIT_FUSED (-2)
#define CT__JIT_IF (-3)
#define CT__JIT_LOOP (-4)
enum { CT__JV_INPUT = 0, CT__JV_PARAM = 1, CT__JV_CONST = 2, CT__JV_NODE = 3 };

typedef struct ct__jval {
    int kind;
    ct_dtype dtype;
    int ndim;                          /* -1: not known (built by hand, not inferred) */
    int64_t shape[CT_MAX_DIMS];
    char *name;                        /* inputs, parameters, constants; NULL for node outputs */
    ct_tensor *t;                      /* parameters and constants: a reference */
    int node, idx;                     /* node outputs: producer and which output */
    int alias;                         /* value whose tensor this one is (in-place outputs), else itself */
} ct__jval;

typedef struct ct__jfop {              /* one op of a fused program */
    int op;
    ct_attrs a;
    int nin;
    int src[2];                        /* >= 0: the fused node's input; < 0: -(k+1), op k's result */
} ct__jfop;
typedef struct ct__jfused {
    int nops;
    ct__jfop *ops;
    int *slot;                         /* op k writes scratch slot slot[k], or -(j+1): the node's output j */
    int nslots;
} ct__jfused;

typedef struct ct__jnode {
    int op;                            /* op id, or CT__JIT_FUSED */
    ct_attrs a;
    int inplace;
    int nin, nout;
    int *in, *out;
    ct__jfused *fz;
    ct_graph *sub[2];                  /* prim::If: then, else; prim::Loop: body */
    int *frees;                        /* values to free after this node (liveness), -1 terminated */
} ct__jnode;

typedef struct ct__jqw { void *fq; int in, tr, aux; void *cb; } ct__jqw;   /* QAT: a node's weight FakeQuantize; ConvBn2d / LinearBn1d (2.8) */
struct ct_graph {
    ct__jval *v;
    int nv, cv;
    ct__jnode *n;
    int nn, cn;
    int *in, nin;
    int *out, nout;
    char **warn;
    int nwarn;
    int dyn_batch;
    int has_inplace;
    /* a prepared graph (2.8): an observer module per value (NULL: none), how to run
       one on a value, and how to free them */
    void **qobs;
    int (*qobserve)(void *obs, ct_tensor *t);
    const char *(*qobsname)(void *obs);
    void (*qfree)(ct_graph *g);
    void *qcfg;
    /* a graph prepared for QAT (ct_jit_quant_prepare_qat): the observers are
       FakeQuantize modules whose output replaces the value they watch (qfq, tr 0),
       and each conv / linear node's weight passes through its own FakeQuantize
       (qw[node]; tr 1: a linear's transposed weight, fake-quantized as [out, in]);
       a conv2d + batch norm trained as ConvBn2d: qw[conv].cb, its added nodes aux */
    ct_tensor *(*qfq)(void *fq, ct_tensor *t, int tr);
    ct__jqw *qw;
};

static const char *ct__jit_node_name(int op) {
    return op == CT__JIT_FUSED ? "prim::FusedElementwise" : op == CT__JIT_IF ? "prim::If" : op == CT__JIT_LOOP ? "prim::Loop" : ct_op_schema_name(op);
}
/* the current error message, copied (messages are rewrapped with context) */
static void ct__jit_errcopy(char *dst, size_t cap) {
    const char *m = ct_last_error();
    size_t n = strlen(m);
    if (n >= cap) n = cap - 1;
    memcpy(dst, m, n);
    dst[n] = 0;
}
static void *ct__jit_grow(void *p, int *cap, int need, size_t elem) {
    if (need <= *cap) return p;
    int nc = *cap ? *cap * 2 : 16;
    while (nc < need) nc *= 2;
    void *q = CT_REALLOC(p, (size_t)nc * elem);
    if (!q) return NULL;
    *cap = nc;
    return q;
}
static char *ct__jit_strdup(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = (char *)CT_MALLOC(n);
    if (d) memcpy(d, s, n);
    return d;
}
static int *ct__jit_idup(const int *a, int n) {
    int *d = (int *)CT_MALLOC((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (d && n > 0) memcpy(d, a, (size_t)n * sizeof(int));
    return d;
}
static void ct__jit_fused_free(ct__jfused *f) {
    if (!f) return;
    CT_FREE(f->ops);
    CT_FREE(f->slot);
    CT_FREE(f);
}
static ct__jfused *ct__jit_fused_dup(const ct__jfused *f) {
    if (!f) return NULL;
    ct__jfused *d = (ct__jfused *)CT_MALLOC(sizeof *d);
    if (!d) return NULL;
    *d = *f;
    d->ops = (ct__jfop *)CT_MALLOC((size_t)f->nops * sizeof(ct__jfop));
    d->slot = ct__jit_idup(f->slot, f->nops);
    if (!d->ops || !d->slot) { ct__jit_fused_free(d); return NULL; }
    memcpy(d->ops, f->ops, (size_t)f->nops * sizeof(ct__jfop));
    return d;
}
CTENSOR_API void ct_graph_free(ct_graph *g);
static void ct__jit_node_clear(ct__jnode *n) {
    ct_graph_free(n->sub[0]);
    ct_graph_free(n->sub[1]);
    CT_FREE(n->in);
    CT_FREE(n->out);
    CT_FREE(n->frees);
    ct__jit_fused_free(n->fz);
    memset(n, 0, sizeof *n);
}
static void ct__jit_val_clear(ct__jval *v) {
    CT_FREE(v->name);
    if (v->t) ct_release(v->t);
    v->name = NULL;
    v->t = NULL;
}

CTENSOR_API ct_graph *ct_graph_new(void) {
    ct_graph *g = (ct_graph *)CT_MALLOC(sizeof *g);
    if (!g) { ct_set_error(CT_ERR_MEMORY, "graph_new: out of memory"); return NULL; }
    memset(g, 0, sizeof *g);
    return g;
}
CTENSOR_API void ct_graph_free(ct_graph *g) {
    if (!g) return;
    if (g->qfree) g->qfree(g);
    for (int i = 0; i < g->nv; i++) ct__jit_val_clear(&g->v[i]);
    for (int i = 0; i < g->nn; i++) ct__jit_node_clear(&g->n[i]);
    for (int i = 0; i < g->nwarn; i++) CT_FREE(g->warn[i]);
    CT_FREE(g->warn);
    CT_FREE(g->v);
    CT_FREE(g->n);
    CT_FREE(g->in);
    CT_FREE(g->out);
    CT_FREE(g);
}

/* a new value; returns its id or -1 */
static int ct__jit_new_val(ct_graph *g, int kind, const ct_tensor *like) {
    ct__jval *nv = (ct__jval *)ct__jit_grow(g->v, &g->cv, g->nv + 1, sizeof(ct__jval));
    if (!nv) return -1;
    g->v = nv;
    ct__jval *v = &g->v[g->nv];
    memset(v, 0, sizeof *v);
    v->kind = kind;
    v->ndim = -1;
    v->node = -1;
    v->alias = g->nv;
    if (like) {
        v->dtype = like->dtype;
        v->ndim = like->ndim;
        memcpy(v->shape, like->shape, sizeof(int64_t) * (size_t)like->ndim);
    }
    return g->nv++;
}
static int ct__jit_add_warning(ct_graph *g, const char *msg) {
    char **w = (char **)CT_REALLOC(g->warn, (size_t)(g->nwarn + 1) * sizeof(char *));
    if (!w) return -1;
    g->warn = w;
    g->warn[g->nwarn] = ct__jit_strdup(msg);
    if (!g->warn[g->nwarn]) return -1;
    g->nwarn++;
    return 0;
}
/* appends a node; ins copied; outputs made as new values typed like outs (may be NULL) */
static int ct__jit_add_node(ct_graph *g, int op, const ct_attrs *a, int inplace, int nin, const int *ins, int nout,
                            ct_tensor *const *outs) {
    ct__jnode *nn = (ct__jnode *)ct__jit_grow(g->n, &g->cn, g->nn + 1, sizeof(ct__jnode));
    if (!nn) return -1;
    g->n = nn;
    ct__jnode *n = &g->n[g->nn];
    memset(n, 0, sizeof *n);
    n->op = op;
    if (a) n->a = *a;
    n->inplace = inplace;
    n->nin = nin;
    n->nout = nout;
    n->in = ct__jit_idup(ins, nin);
    n->out = (int *)CT_MALLOC((size_t)(nout > 0 ? nout : 1) * sizeof(int));
    if (!n->in || !n->out) { ct__jit_node_clear(n); return -1; }
    for (int k = 0; k < nout; k++) {
        int id = ct__jit_new_val(g, CT__JV_NODE, outs ? outs[k] : NULL);
        if (id < 0) { ct__jit_node_clear(n); return -1; }
        g->v[id].node = g->nn;
        g->v[id].idx = k;
        if (inplace && k == 0 && nin > 0 && ins[0] >= 0) g->v[id].alias = g->v[ins[0]].alias;
        n->out[k] = id;
    }
    if (inplace) g->has_inplace = 1;
    return g->nn++;
}

/* Liveness: after node i, a run frees each tensor whose last reader is node i
   (a value and its in-place aliases share one tensor), unless it is a graph
   input, a constant or a graph output. Also renumbers producers after passes. */
static ct_status ct__jit_finish(ct_graph *g) {
    int *last = (int *)CT_MALLOC((size_t)(g->nv > 0 ? g->nv : 1) * sizeof(int));
    int *cnt = (int *)CT_MALLOC((size_t)(g->nn + 1) * sizeof(int));
    if (!last || !cnt) { CT_FREE(last); CT_FREE(cnt); ct_set_error(CT_ERR_MEMORY, "jit: out of memory"); return CT_ERR_MEMORY; }
    g->has_inplace = 0;
    for (int i = 0; i < g->nv; i++) last[i] = -1;
    for (int i = 0; i < g->nn; i++) {
        ct__jnode *n = &g->n[i];
        if (n->inplace) g->has_inplace = 1;
        for (int k = 0; k < n->nout; k++) { g->v[n->out[k]].node = i; g->v[n->out[k]].idx = k; }
        for (int k = 0; k < n->nin; k++) if (n->in[k] >= 0) last[g->v[n->in[k]].alias] = i;
        for (int k = 0; k < n->nout; k++) {          /* a value never read dies where it is made */
            int r = g->v[n->out[k]].alias;
            if (last[r] < i) last[r] = i;
        }
    }
    for (int k = 0; k < g->nout; k++) last[g->v[g->out[k]].alias] = g->nn;   /* outputs live on */
    for (int i = 0; i <= g->nn; i++) cnt[i] = 0;
    for (int v = 0; v < g->nv; v++)
        if (g->v[v].alias == v && g->v[v].kind == CT__JV_NODE && last[v] >= 0 && last[v] < g->nn) cnt[last[v]]++;
    for (int i = 0; i < g->nn; i++) {
        CT_FREE(g->n[i].frees);
        g->n[i].frees = (int *)CT_MALLOC((size_t)(cnt[i] + 1) * sizeof(int));
        if (!g->n[i].frees) { CT_FREE(last); CT_FREE(cnt); ct_set_error(CT_ERR_MEMORY, "jit: out of memory"); return CT_ERR_MEMORY; }
        cnt[i] = 0;
    }
    for (int v = 0; v < g->nv; v++)
        if (g->v[v].alias == v && g->v[v].kind == CT__JV_NODE && last[v] >= 0 && last[v] < g->nn) {
            int i = last[v];
            g->n[i].frees[cnt[i]++] = v;
        }
    for (int i = 0; i < g->nn; i++) g->n[i].frees[cnt[i]] = -1;
    CT_FREE(last);
    CT_FREE(cnt);
    return CT_OK;
}

#ifndef CTENSOR_JIT_LITE
/* Drops values no node, input list or output list refers to, and renumbers. */
static ct_status ct__jit_compact(ct_graph *g) {
    int *used = (int *)CT_MALLOC((size_t)(g->nv > 0 ? g->nv : 1) * sizeof(int));
    if (!used) { ct_set_error(CT_ERR_MEMORY, "jit: out of memory"); return CT_ERR_MEMORY; }
    memset(used, 0, (size_t)g->nv * sizeof(int));
    for (int i = 0; i < g->nin; i++) used[g->in[i]] = 1;
    for (int i = 0; i < g->nout; i++) used[g->out[i]] = 1;
    for (int i = 0; i < g->nn; i++) {
        for (int k = 0; k < g->n[i].nin; k++) if (g->n[i].in[k] >= 0) used[g->n[i].in[k]] = 1;
        for (int k = 0; k < g->n[i].nout; k++) used[g->n[i].out[k]] = 1;
    }
    for (int v = 0; v < g->nv; v++) if (used[v]) used[g->v[v].alias] = 1;
    int m = 0;
    for (int v = 0; v < g->nv; v++) {
        if (used[v]) { used[v] = m; g->v[m++] = g->v[v]; }
        else { ct__jit_val_clear(&g->v[v]); used[v] = -1; }
    }
    /* used[] now maps old -> new for kept values (aliases are kept with their values) */
    for (int v = 0; v < m; v++) g->v[v].alias = used[g->v[v].alias];
    for (int i = 0; i < g->nin; i++) g->in[i] = used[g->in[i]];
    for (int i = 0; i < g->nout; i++) g->out[i] = used[g->out[i]];
    for (int i = 0; i < g->nn; i++) {
        for (int k = 0; k < g->n[i].nin; k++) if (g->n[i].in[k] >= 0) g->n[i].in[k] = used[g->n[i].in[k]];
        for (int k = 0; k < g->n[i].nout; k++) g->n[i].out[k] = used[g->n[i].out[k]];
    }
    g->nv = m;
    CT_FREE(used);
    return ct__jit_finish(g);
}
#endif

CTENSOR_API ct_graph *ct_graph_clone(const ct_graph *g) {
    if (!g) { ct_set_error(CT_ERR_NULL, "graph_clone: graph is NULL"); return NULL; }
    ct_graph *d = ct_graph_new();
    if (!d) return NULL;
    d->v = (ct__jval *)CT_MALLOC((size_t)(g->nv > 0 ? g->nv : 1) * sizeof(ct__jval));
    d->n = (ct__jnode *)CT_MALLOC((size_t)(g->nn > 0 ? g->nn : 1) * sizeof(ct__jnode));
    if (!d->v || !d->n) goto oom;
    d->cv = g->nv > 0 ? g->nv : 1;
    d->cn = g->nn > 0 ? g->nn : 1;
    for (int i = 0; i < g->nv; i++) {
        d->v[i] = g->v[i];
        d->v[i].name = NULL;
        d->v[i].t = NULL;
        d->nv = i + 1;
        if (g->v[i].name && !(d->v[i].name = ct__jit_strdup(g->v[i].name))) goto oom;
        if (g->v[i].t) d->v[i].t = ct_retain(g->v[i].t);
    }
    for (int i = 0; i < g->nn; i++) {
        ct__jnode *s = &g->n[i], *t = &d->n[i];
        *t = *s;
        t->in = t->out = t->frees = NULL;
        t->fz = NULL;
        t->sub[0] = t->sub[1] = NULL;
        d->nn = i + 1;
        t->in = ct__jit_idup(s->in, s->nin);
        t->out = ct__jit_idup(s->out, s->nout);
        if (!t->in || !t->out) goto oom;
        if (s->fz && !(t->fz = ct__jit_fused_dup(s->fz))) goto oom;
        for (int b = 0; b < 2; b++)
            if (s->sub[b] && !(t->sub[b] = ct_graph_clone(s->sub[b]))) goto oom;
    }
    d->in = ct__jit_idup(g->in, g->nin);
    d->out = ct__jit_idup(g->out, g->nout);
    if (!d->in || !d->out) goto oom;
    d->nin = g->nin;
    d->nout = g->nout;
    d->dyn_batch = g->dyn_batch;
    for (int i = 0; i < g->nwarn; i++)
        if (ct__jit_add_warning(d, g->warn[i])) goto oom;
    if (ct__jit_finish(d)) { ct_graph_free(d); return NULL; }
    return d;
oom:
    ct_graph_free(d);
    ct_set_error(CT_ERR_MEMORY, "graph_clone: out of memory");
    return NULL;
}

/* a fresh constant name %cK for value v */
static int ct__jit_const_name(ct_graph *g, int v) {
    char buf[32];
    for (int k = 0;; k++) {
        snprintf(buf, sizeof buf, "c%d", k);
        int clash = 0;
        for (int u = 0; u < g->nv && !clash; u++) clash = g->v[u].name && !strcmp(g->v[u].name, buf);
        if (!clash) break;
    }
    g->v[v].name = ct__jit_strdup(buf);
    return g->v[v].name ? 0 : -1;
}
/* Scratch slots of a fused program: op k's result goes to the node's output j when
   outsrc[j] == k, else to a slot, which is free again after its last reader (a slot
   read by op m is never the one op m writes). */
static void ct__jit_assign_slots(ct__jfused *f, const int *outsrc, int nout) {
    int lastuse[256], slotfree[256], nslots = 0;
    for (int m = 0; m < f->nops; m++) lastuse[m] = m;
    for (int m = 0; m < f->nops; m++)
        for (int j = 0; j < f->ops[m].nin; j++) if (f->ops[m].src[j] < 0) lastuse[-f->ops[m].src[j] - 1] = m;
    for (int m = 0; m < f->nops; m++) {
        int isout = -1;
        for (int j = 0; j < nout; j++) if (outsrc[j] == m) isout = j;
        if (isout >= 0) { f->slot[m] = -(isout + 1); continue; }
        int sl = -1;
        for (int q = 0; q < nslots && sl < 0; q++) if (slotfree[q] < m) sl = q;
        if (sl < 0) sl = nslots++;
        f->slot[m] = sl;
        slotfree[sl] = lastuse[m];
    }
    f->nslots = nslots;
}

#ifndef CTENSOR_JIT_LITE
/* ---- 2.2 The tracer ---------------------------------------------------------
   A dispatch listener on the tracing thread. Tensors map to values through an
   open-addressing table keyed by address; every tensor the trace has seen is
   retained until the trace ends, so no address is reused while it runs. */
typedef struct ct__jtrace {
    ct_graph *g;
    int listener;
    ct_tensor **keys;
    int *vals;
    int64_t cap, count;
    ct_tensor **held;
    int nheld, cheld;
    int nconst, nparam;
    int failed;
    int nnamed;                        /* ct_trace_module: state-dict names of the module's tensors */
    ct_tensor **named_t;
    char **named_s;
} ct__jtrace;
static CT_THREAD_LOCAL ct__jtrace *ct__jit_tr;

static uint64_t ct__jit_phash(const void *p) {
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}
static int ct__jit_map_get(const ct__jtrace *tr, const ct_tensor *t) {
    if (!tr->cap) return -1;
    uint64_t m = (uint64_t)tr->cap - 1, i = ct__jit_phash(t) & m;
    while (tr->keys[i]) {
        if (tr->keys[i] == t) return tr->vals[i];
        i = (i + 1) & m;
    }
    return -1;
}
static int ct__jit_map_put(ct__jtrace *tr, ct_tensor *t, int v) {
    if ((tr->count + 1) * 2 > tr->cap) {
        int64_t nc = tr->cap ? tr->cap * 2 : 256;
        ct_tensor **nk = (ct_tensor **)CT_MALLOC((size_t)nc * sizeof(ct_tensor *));
        int *nvv = (int *)CT_MALLOC((size_t)nc * sizeof(int));
        if (!nk || !nvv) { CT_FREE(nk); CT_FREE(nvv); return -1; }
        memset(nk, 0, (size_t)nc * sizeof(ct_tensor *));
        for (int64_t j = 0; j < tr->cap; j++)
            if (tr->keys[j]) {
                uint64_t i = ct__jit_phash(tr->keys[j]) & (uint64_t)(nc - 1);
                while (nk[i]) i = (i + 1) & (uint64_t)(nc - 1);
                nk[i] = tr->keys[j];
                nvv[i] = tr->vals[j];
            }
        CT_FREE(tr->keys);
        CT_FREE(tr->vals);
        tr->keys = nk;
        tr->vals = nvv;
        tr->cap = nc;
    }
    uint64_t m = (uint64_t)tr->cap - 1, i = ct__jit_phash(t) & m;
    while (tr->keys[i] && tr->keys[i] != t) i = (i + 1) & m;
    if (!tr->keys[i]) {
        tr->keys[i] = t;
        tr->count++;
        /* hold a reference so the address stays this tensor's until the trace ends */
        ct_tensor **h = (ct_tensor **)ct__jit_grow(tr->held, &tr->cheld, tr->nheld + 1, sizeof(ct_tensor *));
        if (!h) return -1;
        tr->held = h;
        tr->held[tr->nheld++] = ct_retain(t);
    }
    tr->vals[i] = v;
    return 0;
}
static void ct__jit_trace_destroy(ct__jtrace *tr) {
    if (!tr) return;
    if (tr->listener > 0) ct_remove_dispatch_listener(tr->listener);
    for (int i = 0; i < tr->nheld; i++) ct_release(tr->held[i]);
    CT_FREE(tr->held);
    CT_FREE(tr->keys);
    CT_FREE(tr->vals);
    for (int i = 0; i < tr->nnamed; i++) CT_FREE(tr->named_s[i]);
    CT_FREE(tr->named_s);
    CT_FREE(tr->named_t);
    ct_graph_free(tr->g);
    CT_FREE(tr);
}
/* a tensor the trace has not seen: a constant, or a parameter when it requires grad */
static int ct__jit_capture(ct__jtrace *tr, ct_tensor *t) {
    ct_graph *g = tr->g;
    const char *nm = NULL;
    for (int k = 0; k < tr->nnamed; k++)
        if (tr->named_t[k] == t) { nm = tr->named_s[k]; break; }
    int isparam = nm != NULL || ct_get_requires_grad(t);
    int id = ct__jit_new_val(g, isparam ? CT__JV_PARAM : CT__JV_CONST, t);
    if (id < 0) return -1;
    char buf[48];
    if (!nm) {
        snprintf(buf, sizeof buf, isparam ? "p%d" : "c%d", isparam ? tr->nparam : tr->nconst);
        nm = buf;
    }
    if (isparam) tr->nparam++; else tr->nconst++;
    g->v[id].name = ct__jit_strdup(nm);
    g->v[id].t = ct_retain(t);
    if (!g->v[id].name || ct__jit_map_put(tr, t, id)) return -1;
    return id;
}
static void ct__jit_on_op(const ct_dispatch_event *e, void *user) {
    ct__jtrace *tr = (ct__jtrace *)user;
    if (tr->failed || e->phase != CT_DISPATCH_EXIT || e->depth != 0) return;
    ct_graph *g = tr->g;
    int ins[64];
    if (e->nin > 64) { tr->failed = 1; ct_set_error(CT_ERR_UNSUPPORTED, "trace: %s has %d inputs (at most 64 are traced)", ct_op_name(e->op), e->nin); return; }
    for (int k = 0; k < e->nin; k++) {
        ct_tensor *t = e->inputs[k];
        if (!t) { ins[k] = -1; continue; }          /* an absent optional tensor (bias=None) */
        int id = ct__jit_map_get(tr, t);
        if (id < 0) id = ct__jit_capture(tr, t);
        if (id < 0) { tr->failed = 1; return; }
        ins[k] = id;
    }
    unsigned fl = ct_op_flags(e->op);
    if (fl & CT_OP_DATA_SHAPE) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s: the output's shape depends on the input's values; the graph records the call, "
                 "but shapes derived from this example may not hold for other inputs", ct_op_schema_name(e->op));
        if (ct__jit_add_warning(g, msg)) { tr->failed = 1; return; }
    }
    int inplace = e->inplace || (fl & CT_OP_INPLACE);
    int node = ct__jit_add_node(g, e->op, e->attrs, inplace, e->nin, ins, e->nout, e->outputs);
    if (node < 0) { tr->failed = 1; return; }
    for (int k = 0; k < e->nout; k++)
        if (e->outputs[k] && ct__jit_map_put(tr, e->outputs[k], g->n[node].out[k])) { tr->failed = 1; return; }
}

static ct_status ct__jit_trace_start(int nin, ct_tensor *const *inputs, ct__jtrace **out) {
    if (ct__jit_tr) { ct_set_error(CT_ERR_STATE, "trace_begin: this thread is already tracing (call ct_trace_end or ct_trace_abort first)"); return CT_ERR_STATE; }
    if (nin < 0 || (nin > 0 && !inputs)) { ct_set_error(CT_ERR_ARG, "trace_begin: %d inputs with a NULL list", nin); return CT_ERR_ARG; }
    for (int i = 0; i < nin; i++)
        if (!inputs[i]) { ct_set_error(CT_ERR_NULL, "trace_begin: input %d is NULL", i); return CT_ERR_NULL; }
    ct__jtrace *tr = (ct__jtrace *)CT_MALLOC(sizeof *tr);
    if (!tr) { ct_set_error(CT_ERR_MEMORY, "trace_begin: out of memory"); return CT_ERR_MEMORY; }
    memset(tr, 0, sizeof *tr);
    tr->g = ct_graph_new();
    if (!tr->g) { CT_FREE(tr); return CT_ERR_MEMORY; }
    tr->g->in = (int *)CT_MALLOC((size_t)(nin > 0 ? nin : 1) * sizeof(int));
    if (!tr->g->in) goto oom;
    for (int i = 0; i < nin; i++) {
        if (ct__jit_map_get(tr, inputs[i]) >= 0) {
            ct_set_error(CT_ERR_ARG, "trace_begin: input %d is the same tensor as an earlier input", i);
            ct__jit_trace_destroy(tr);
            return CT_ERR_ARG;
        }
        int id = ct__jit_new_val(tr->g, CT__JV_INPUT, inputs[i]);
        char nm[24];
        snprintf(nm, sizeof nm, "x%d", i);
        if (id < 0 || !(tr->g->v[id].name = ct__jit_strdup(nm)) || ct__jit_map_put(tr, inputs[i], id)) goto oom;
        tr->g->in[tr->g->nin++] = id;
    }
    *out = tr;
    return CT_OK;
oom:
    ct__jit_trace_destroy(tr);
    ct_set_error(CT_ERR_MEMORY, "trace_begin: out of memory");
    return CT_ERR_MEMORY;
}
static ct_status ct__jit_trace_listen(ct__jtrace *tr) {
    tr->listener = ct_add_dispatch_listener(ct__jit_on_op, tr, 0);
    if (tr->listener < 0) { ct__jit_trace_destroy(tr); return ct_last_error_code(); }
    ct__jit_tr = tr;
    return CT_OK;
}
CTENSOR_API ct_status ct_trace_begin(int nin, ct_tensor *const *inputs) {
    ct__jtrace *tr = NULL;
    ct_status s = ct__jit_trace_start(nin, inputs, &tr);
    return s ? s : ct__jit_trace_listen(tr);
}
CTENSOR_API int ct_is_tracing(void) { return ct__jit_tr != NULL; }
CTENSOR_API void ct_trace_abort(void) {
    ct__jtrace *tr = ct__jit_tr;
    ct__jit_tr = NULL;
    ct__jit_trace_destroy(tr);
}
CTENSOR_API ct_status ct_jit_eliminate_dead_code(ct_graph *g);
CTENSOR_API ct_graph *ct_trace_end(int nout, ct_tensor *const *outputs) {
    ct__jtrace *tr = ct__jit_tr;
    if (!tr) { ct_set_error(CT_ERR_STATE, "trace_end: this thread is not tracing (call ct_trace_begin first)"); return NULL; }
    ct_remove_dispatch_listener(tr->listener);
    tr->listener = 0;
    ct__jit_tr = NULL;
    ct_graph *g = tr->g;
    if (tr->failed) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_MEMORY, "trace_end: out of memory while tracing");
        ct__jit_trace_destroy(tr);
        return NULL;
    }
    if (nout < 0 || (nout > 0 && !outputs)) {
        ct_set_error(CT_ERR_ARG, "trace_end: %d outputs with a NULL list", nout);
        ct__jit_trace_destroy(tr);
        return NULL;
    }
    g->out = (int *)CT_MALLOC((size_t)(nout > 0 ? nout : 1) * sizeof(int));
    if (!g->out) { ct__jit_trace_destroy(tr); ct_set_error(CT_ERR_MEMORY, "trace_end: out of memory"); return NULL; }
    for (int i = 0; i < nout; i++) {
        if (!outputs[i]) {
            char why[512];
            ct__jit_errcopy(why, sizeof why);
            ct_set_error(CT_ERR_NULL, "trace_end: output %d is NULL (did an op fail while tracing? %s)", i, why);
            ct__jit_trace_destroy(tr);
            return NULL;
        }
        int id = ct__jit_map_get(tr, outputs[i]);
        if (id < 0) id = ct__jit_capture(tr, outputs[i]);
        if (id < 0) { ct__jit_trace_destroy(tr); ct_set_error(CT_ERR_MEMORY, "trace_end: out of memory"); return NULL; }
        g->out[g->nout++] = id;
    }
    tr->g = NULL;
    ct__jit_trace_destroy(tr);
    if (ct_jit_eliminate_dead_code(g)) { ct_graph_free(g); return NULL; }
    /* warnings go where errors go: the logger (with code CT_OK), else stderr */
    for (int i = 0; i < g->nwarn; i++) {
        if (ct__logger_set) {
            if (ct__logger_fn) {
                char m[600];
                snprintf(m, sizeof m, "TracerWarning: %s", g->warn[i]);
                ct__logger_fn(CT_OK, m, ct__logger_user);
            }
            continue;
        }
#ifndef CTENSOR_NO_STDIO
        fprintf(stderr, "ctensor_jit: TracerWarning: %s\n", g->warn[i]);
#endif
    }
    return g;
}

#endif /* !CTENSOR_JIT_LITE: the tracer */

/* ---- 2.3 Text: printing and parsing ----------------------------------------
   graph(%x0 : Float(*, 784)):
     %0.weight : Float(128, 784) = prim::Param[name="0.weight"]()
     %c0 : Float() = prim::Constant[value=<Tensor>]()
     %3 : Float(784, 128) = aten::permute[dims=[1, 0]](%0.weight)
     %4 : Float(64, 128) = aten::addmm[beta=1., alpha=1.](%0.bias, %x0, %3)
     %5 : Float(64, 128) = aten::relu_(%4)                 (in place: PyTorch's _ name)
     %9 : Float(64, 128) = prim::FusedElementwise(%5, %c0)
       %f0 = aten::mul.Tensor(%i0, %i1)
       %f1 = aten::tanh(%f0)
       return (%f1)
     return (%9)
   Node outputs are numbered by value id; inputs, parameters and constants carry
   names. Attributes are ct_attrs_repr's text. The file format stores this text. */
typedef struct ct__jsb { char *p; size_t len, cap; int oom; } ct__jsb;
static void ct__jsb_put(ct__jsb *b, const char *s, size_t n) {
    if (b->oom) return;
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 1024;
        while (nc < b->len + n + 1) nc *= 2;
        char *q = (char *)CT_REALLOC(b->p, nc);
        if (!q) { b->oom = 1; return; }
        b->p = q;
        b->cap = nc;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}
static void ct__jsb_printf(ct__jsb *b, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void ct__jsb_printf(ct__jsb *b, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) { ct__jsb_put(b, tmp, (size_t)n); return; }
    char *big = (char *)CT_MALLOC((size_t)n + 1);
    if (!big) { b->oom = 1; return; }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    ct__jsb_put(b, big, (size_t)n);
    CT_FREE(big);
}
static const char *const ct__jit_tsnames[CT_NUM_DTYPES] = {
    "Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool",
    "QInt8", "QUInt8", "QInt32", "ComplexFloat", "ComplexDouble"};
static CT_THREAD_LOCAL const int *ct__jit_labels;   /* node values' printed numbers (order of definition) */
static void ct__jit_put_val(ct__jsb *b, const ct_graph *g, int v) {
    if (v < 0) ct__jsb_put(b, "None", 4);
    else if (g->v[v].name) ct__jsb_printf(b, "%%%s", g->v[v].name);
    else ct__jsb_printf(b, "%%%d", ct__jit_labels ? ct__jit_labels[v] : v);
}
static void ct__jit_put_type(ct__jsb *b, const ct_graph *g, int v, int star0) {
    const ct__jval *x = &g->v[v];
    if (x->ndim < 0 || (unsigned)x->dtype >= CT_NUM_DTYPES) { ct__jsb_put(b, "Tensor", 6); return; }
    ct__jsb_printf(b, "%s(", ct__jit_tsnames[x->dtype]);
    for (int d = 0; d < x->ndim; d++) {
        if (d == 0 && star0) ct__jsb_put(b, "*", 1);
        else ct__jsb_printf(b, "%lld", (long long)x->shape[d]);
        if (d + 1 < x->ndim) ct__jsb_put(b, ", ", 2);
    }
    ct__jsb_put(b, ")", 1);
}
/* "aten::add.Tensor" in place -> "aten::add_.Tensor" (PyTorch's in-place names) */
static void ct__jit_put_opname(ct__jsb *b, int op, int inplace) {
    const char *s = ct_op_schema_name(op);
    if (!inplace || (ct_op_flags(op) & CT_OP_INPLACE)) { ct__jsb_put(b, s, strlen(s)); return; }
    const char *colon = strstr(s, "::");
    const char *dot = strchr(colon ? colon + 2 : s, '.');
    size_t k = dot ? (size_t)(dot - s) : strlen(s);
    ct__jsb_put(b, s, k);
    ct__jsb_put(b, "_", 1);
    ct__jsb_put(b, s + k, strlen(s + k));
}
static void ct__jit_put_attrs(ct__jsb *b, int op, const ct_attrs *a) {
    char tmp[1024];
    size_t n = ct_attrs_repr(op, a, tmp, sizeof tmp);
    if (n == 0) return;
    if (n >= sizeof tmp) {
        char *big = (char *)CT_MALLOC(n + 1);
        if (!big) { b->oom = 1; return; }
        ct_attrs_repr(op, a, big, n + 1);
        ct__jsb_printf(b, "[%s]", big);
        CT_FREE(big);
        return;
    }
    ct__jsb_printf(b, "[%s]", tmp);
}
/* depth 0: the graph ("graph(...):" ... "return (...)"); depth d > 0: a block of a
   control-flow node ("blockK(...):" ... "-> (...)"), indented 2 + 4 (d - 1) more */
static void ct__jit_write_graph(ct__jsb *b, const ct_graph *g, int depth, int blockno);
static void ct__jit_write_text(ct__jsb *b, const ct_graph *g) { ct__jit_write_graph(b, g, 0, 0); }
static void ct__jit_indent(ct__jsb *b, int n) {
    static const char sp[] = "                                                                ";
    while (n > 0) { int k = n > 64 ? 64 : n; ct__jsb_put(b, sp, (size_t)k); n -= k; }
}
/* a prepared graph's observer on value v, as a comment line (FX prints call_module nodes) */
static void ct__jit_put_observer(ct__jsb *b, const ct_graph *g, int v, int ind) {
    if (!g->qobs[v]) return;
    ct__jit_indent(b, ind);
    ct__jsb_put(b, "# observed by ", 14);
    const char *nm = g->qobsname ? g->qobsname(g->qobs[v]) : "an observer";
    ct__jsb_put(b, nm, strlen(nm));
    ct__jsb_put(b, ": ", 2);
    ct__jit_put_val(b, g, v);
    ct__jsb_put(b, "\n", 1);
}
static void ct__jit_write_graph(ct__jsb *b, const ct_graph *g, int depth, int blockno) {
    int *lab = (int *)CT_MALLOC((size_t)(g->nv > 0 ? g->nv : 1) * sizeof(int));
    if (!lab) { b->oom = 1; return; }
    int k = 0;
    for (int v = 0; v < g->nv; v++) lab[v] = v;
    for (int i = 0; i < g->nn; i++)
        for (int j = 0; j < g->n[i].nout; j++) lab[g->n[i].out[j]] = k++;
    const int *saved = ct__jit_labels;
    ct__jit_labels = lab;
    int ind = depth == 0 ? 2 : 2 + 4 * depth;        /* the lines of this graph */
    if (depth == 0) ct__jsb_put(b, "graph(", 6);
    else { ct__jit_indent(b, ind - 2); ct__jsb_printf(b, "block%d(", blockno); }
    for (int i = 0; i < g->nin; i++) {
        ct__jit_put_val(b, g, g->in[i]);
        ct__jsb_put(b, " : ", 3);
        ct__jit_put_type(b, g, g->in[i], g->dyn_batch);
        if (i + 1 < g->nin) ct__jsb_put(b, ", ", 2);
    }
    ct__jsb_put(b, "):\n", 3);
    for (int i = 0; g->qobs && i < g->nin; i++) ct__jit_put_observer(b, g, g->in[i], ind);
    for (int v = 0; v < g->nv; v++) {
        const ct__jval *x = &g->v[v];
        if (x->kind != CT__JV_PARAM && x->kind != CT__JV_CONST) continue;
        ct__jit_indent(b, ind);
        ct__jit_put_val(b, g, v);
        ct__jsb_put(b, " : ", 3);
        ct__jit_put_type(b, g, v, 0);
        if (x->kind == CT__JV_PARAM) ct__jsb_printf(b, " = prim::Param[name=\"%s\"]()\n", x->name);
        else ct__jsb_put(b, " = prim::Constant[value=<Tensor>]()\n", 36);
    }
    for (int i = 0; i < g->nn; i++) {
        const ct__jnode *n = &g->n[i];
        ct__jit_indent(b, ind);
        for (int q = 0; q < n->nout; q++) {
            ct__jit_put_val(b, g, n->out[q]);
            ct__jsb_put(b, " : ", 3);
            ct__jit_put_type(b, g, n->out[q], 0);
            if (q + 1 < n->nout) ct__jsb_put(b, ", ", 2);
        }
        ct__jsb_put(b, " = ", 3);
        if (n->op < 0) ct__jsb_put(b, ct__jit_node_name(n->op), strlen(ct__jit_node_name(n->op)));
        else {
            ct__jit_put_opname(b, n->op, n->inplace);
            ct__jit_put_attrs(b, n->op, &n->a);
        }
        ct__jsb_put(b, "(", 1);
        for (int q = 0; q < n->nin; q++) {
            ct__jit_put_val(b, g, n->in[q]);
            if (q + 1 < n->nin) ct__jsb_put(b, ", ", 2);
        }
        ct__jsb_put(b, ")\n", 2);
        for (int q = 0; g->qobs && q < n->nout; q++) ct__jit_put_observer(b, g, n->out[q], ind);
        if (n->op == CT__JIT_FUSED) {
            const ct__jfused *f = n->fz;
            for (int q = 0; q < f->nops; q++) {
                const ct__jfop *o = &f->ops[q];
                ct__jit_indent(b, ind + 2);
                ct__jsb_printf(b, "%%f%d = ", q);
                ct__jit_put_opname(b, o->op, 0);
                ct__jit_put_attrs(b, o->op, &o->a);
                ct__jsb_put(b, "(", 1);
                for (int j = 0; j < o->nin; j++) {
                    if (o->src[j] >= 0) ct__jsb_printf(b, "%%i%d", o->src[j]);
                    else ct__jsb_printf(b, "%%f%d", -o->src[j] - 1);
                    if (j + 1 < o->nin) ct__jsb_put(b, ", ", 2);
                }
                ct__jsb_put(b, ")\n", 2);
            }
            ct__jit_indent(b, ind + 2);
            ct__jsb_put(b, "return (", 8);
            for (int j = 0; j < n->nout; j++) {
                int src = -1;
                for (int q = 0; q < f->nops; q++) if (f->slot[q] == -(j + 1)) src = q;
                ct__jsb_printf(b, "%%f%d", src);
                if (j + 1 < n->nout) ct__jsb_put(b, ", ", 2);
            }
            ct__jsb_put(b, ")\n", 2);
        }
        for (int q = 0; q < 2; q++)
            if (n->sub[q]) ct__jit_write_graph(b, n->sub[q], depth + 1, q);
    }
    ct__jit_indent(b, ind);
    if (depth == 0) ct__jsb_put(b, "return (", 8);
    else ct__jsb_put(b, "-> (", 4);
    for (int q = 0; q < g->nout; q++) {
        ct__jit_put_val(b, g, g->out[q]);
        if (q + 1 < g->nout) ct__jsb_put(b, ", ", 2);
    }
    ct__jsb_put(b, ")\n", 2);
    ct__jit_labels = saved;
    CT_FREE(lab);
}
CTENSOR_API size_t ct_graph_repr(const ct_graph *g, char *buf, size_t cap) {
    if (!g) { if (buf && cap) buf[0] = 0; ct_set_error(CT_ERR_NULL, "graph_repr: graph is NULL"); return 0; }
    ct__jsb b = {NULL, 0, 0, 0};
    ct__jit_write_text(&b, g);
    if (b.oom) { CT_FREE(b.p); if (buf && cap) buf[0] = 0; ct_set_error(CT_ERR_MEMORY, "graph_repr: out of memory"); return 0; }
    if (buf && cap) {
        size_t k = b.len < cap - 1 ? b.len : cap - 1;
        memcpy(buf, b.p, k);
        buf[k] = 0;
    }
    size_t n = b.len;
    CT_FREE(b.p);
    return n;
}
CTENSOR_API void ct_graph_print(const ct_graph *g) {
#ifndef CTENSOR_NO_STDIO
    ct__jsb b = {NULL, 0, 0, 0};
    if (!g) return;
    ct__jit_write_text(&b, g);
    if (!b.oom && b.p) fputs(b.p, stdout);
    CT_FREE(b.p);
#else
    (void)g;
#endif
}

/* ---- 2.4 The interpreter ----------------------------------------------------
   Each node runs through ct_dispatch (checks, autograd, listeners: exactly what
   the eager call does) inside its own scope; the run holds one reference per live
   value and drops it after the value's last reader, so a block freed by one node
   is reused by the next (the allocator's cache) and by the next run. */
static int ct__jit_is_fusable_kernel(int op) {
    if (op < 0 || op >= CT__NUM_OPS) return 0;
    const ct__opdef *d = &ct__ops[op];
    if (d->flags & (CT__OPF_OUT_BOOL | CT__OPF_INPLACE | CT__OPF_RANDOM | CT__OPF_INT_ONLY)) return 0;
    if (d->kernel == ct__k_unary && d->nin == 1) return 1;
    if (d->kernel == ct__k_binary && d->nin == 2) return 2;
    return 0;
}
/* float32 exp, sigmoid, silu and tanh for fused groups on AVX-512: ctensor.h's
   formulas (the same polynomial, reduction and operation order as ct__v_exp and its
   users), with the range checks done by min/max clamps instead of compare-and-
   select lanes (a NaN passes through the clamps). That halves exp's instruction
   count; the results are the eager kernels' bits, but for exp below -87.34, where
   this exp gives the subnormal result and the eager kernel 0. */
#if defined(__AVX512F__) && defined(CT__HAVE_VEC)
#define CT__JIT_HAVE_EXP_F32 1
/* The costly ops below work on n vectors at once (n = 1 in their own loops and a
   segment's tail, CT__JIT_SEGU in a segment's steps), statement by statement across
   the n: the same operations in the same order per lane either way (so the same
   bits), but n independent dependency chains side by side in the instruction
   stream. One lane's chain is 20 to 30 dependent operations; four of them together
   give the out-of-order core enough independent work to keep the FMA pipe busy
   (tanh, sigmoid, silu and gelu segments 10-15% faster than one vector after
   another, measured). */
#define CT__JIT_SEGU 4
#define CT__JIT_N(stmt) do { for (int i = 0; i < n; i++) { stmt; } } while (0)
/* exp: clamped to [-104, 89] (a NaN stays NaN): above 88.72283 (eager's bound, where
   exp overflows) n is 128 and r >= 0, so p >= 1 and p 2^128 overflows to inf in the
   scalef, as eager's bound check gives; no compare-and-select lanes */
static inline void ct__jit_expn(__m512 *v, int n) {
    ct__vf xc[CT__JIT_SEGU], nv[CT__JIT_SEGU], em[CT__JIT_SEGU], tv;
    CT__JIT_N(xc[i] = (ct__vf)_mm512_min_ps(_mm512_set1_ps(89.0f), _mm512_max_ps(_mm512_set1_ps(-104.0f), v[i])));
    CT__JIT_N(em[i] = ct__v_exp_red(xc[i], &tv, &nv[i]));   /* ctensor.h's reduction */
    CT__JIT_N(v[i] = _mm512_scalef_ps(_mm512_add_ps((__m512)em[i], _mm512_set1_ps(1.0f)), (__m512)nv[i]));
}
/* sigmoid 1 / (1 + exp(-v)) and silu v / (1 + exp(-v)), as eager */
static inline void ct__jit_sigsilun(__m512 *v, int n, int silu) {
    __m512 d[CT__JIT_SEGU];
    CT__JIT_N(d[i] = _mm512_sub_ps(_mm512_setzero_ps(), v[i]));
    ct__jit_expn(d, n);
    CT__JIT_N(d[i] = _mm512_add_ps(_mm512_set1_ps(1.0f), d[i]));
    CT__JIT_N(v[i] = _mm512_div_ps(silu ? v[i] : _mm512_set1_ps(1.0f), d[i]));
}
/* tanh |x| = e / (e + 2), e = expm1(2 |x|) (exp's reduction, then r + r^2 P(r) with P
   a degree-4 minimax fit on [-ln2/2, ln2/2], error 6e-8 on P: one FMA fewer than
   ct__v_expm1's degree 5), |x| clamped to 9, where tanh rounds to 1: one exp-sized
   polynomial and a division for every lane, where ct__v_tanh computes both its
   small-x polynomial and exp. Not the eager kernel's bits: within 2 ulp of double
   tanh over every 7th float bit pattern (613M; tests/test_jit.c checks 131,072 of
   them); the sign of x (and -0, NaN) kept. */
static inline void ct__jit_tanhn(__m512 *v, int n) {
    __m512 z[CT__JIT_SEGU], m[CT__JIT_SEGU], r[CT__JIT_SEGU], p[CT__JIT_SEGU], e[CT__JIT_SEGU];
    CT__JIT_N(z[i] = _mm512_min_ps(_mm512_set1_ps(9.0f), _mm512_abs_ps(v[i])); z[i] = _mm512_add_ps(z[i], z[i]));
    CT__JIT_N(m[i] = _mm512_fmadd_ps(z[i], _mm512_set1_ps(1.44269504088896341f), _mm512_set1_ps(12582912.0f)));
    CT__JIT_N(m[i] = _mm512_sub_ps(m[i], _mm512_set1_ps(12582912.0f)));   /* rint(z / ln2), in [0, 26] */
    CT__JIT_N(r[i] = _mm512_fnmadd_ps(m[i], _mm512_set1_ps(-2.12194440e-4f), _mm512_fnmadd_ps(m[i], _mm512_set1_ps(0.693359375f), z[i])));
    CT__JIT_N(p[i] = _mm512_fmadd_ps(_mm512_set1_ps(0.00139411131f), r[i], _mm512_set1_ps(0.00836317521f)));
    CT__JIT_N(p[i] = _mm512_fmadd_ps(p[i], r[i], _mm512_set1_ps(0.0416663736f)));
    CT__JIT_N(p[i] = _mm512_fmadd_ps(p[i], r[i], _mm512_set1_ps(0.166665763f)));
    CT__JIT_N(p[i] = _mm512_fmadd_ps(p[i], r[i], _mm512_set1_ps(0.5f)));
    CT__JIT_N(p[i] = _mm512_fmadd_ps(p[i], _mm512_mul_ps(r[i], r[i]), r[i]));   /* expm1(r) */
    CT__JIT_N(z[i] = _mm512_scalef_ps(_mm512_set1_ps(1.0f), m[i]));             /* 2^m */
    CT__JIT_N(e[i] = _mm512_fmadd_ps(z[i], p[i], _mm512_sub_ps(z[i], _mm512_set1_ps(1.0f))));
    CT__JIT_N(e[i] = _mm512_div_ps(e[i], _mm512_add_ps(e[i], _mm512_set1_ps(2.0f))));
    /* e | (v & sign) in one ternary-logic instruction */
    CT__JIT_N(v[i] = _mm512_castsi512_ps(_mm512_ternarylogic_epi32(_mm512_castps_si512(e[i]), _mm512_castps_si512(v[i]), _mm512_set1_epi32((int)0x80000000u), 0xf8)));
}
static inline __m512 ct__jit_exp16(__m512 x) { ct__jit_expn(&x, 1); return x; }
static inline __m512 ct__jit_sigmoid16(__m512 x) { ct__jit_sigsilun(&x, 1, 0); return x; }
static inline __m512 ct__jit_silu16(__m512 x) { ct__jit_sigsilun(&x, 1, 1); return x; }
static inline __m512 ct__jit_tanh16(__m512 x) { ct__jit_tanhn(&x, 1); return x; }
static inline void ct__jit_exp4(__m512 *v) { ct__jit_expn(v, CT__JIT_SEGU); }
static inline void ct__jit_sigmoid4(__m512 *v) { ct__jit_sigsilun(v, CT__JIT_SEGU, 0); }
static inline void ct__jit_silu4(__m512 *v) { ct__jit_sigsilun(v, CT__JIT_SEGU, 1); }
static inline void ct__jit_tanh4(__m512 *v) { ct__jit_tanhn(v, CT__JIT_SEGU); }
#define CT__JIT_VLOOP(fname, EXPR, FALLBACK)                                                          \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) {                    \
        if (s[0] != 4 || s[1] != 4) { FALLBACK(p, s, n, a); return; }                               \
        float *o = (float *)p[0];                                                                   \
        const float *in = (const float *)p[1];                                                      \
        int64_t k = 0;                                                                              \
        for (; k + 16 <= n; k += 16) {                                                              \
            __m512 v = _mm512_loadu_ps(in + k);                                                     \
            _mm512_storeu_ps(o + k, EXPR);                                                          \
        }                                                                                           \
        if (k < n) {                                                                                \
            __mmask16 m = (__mmask16)((1u << (unsigned)(n - k)) - 1u);                              \
            __m512 v = _mm512_maskz_loadu_ps(m, in + k);                                            \
            _mm512_mask_storeu_ps(o + k, m, EXPR);                                                  \
        }                                                                                           \
    }
CT__JIT_VLOOP(ct__jit_exp_f32, ct__jit_exp16(v), ct__uv_exp)
CT__JIT_VLOOP(ct__jit_sigmoid_f32, ct__jit_sigmoid16(v), ct__uv_sigmoid)
CT__JIT_VLOOP(ct__jit_silu_f32, ct__jit_silu16(v), ct__uv_silu)
CT__JIT_VLOOP(ct__jit_tanh_f32, ct__jit_tanh16(v), ct__uv_tanh)
/* gelu (approximate='none') on AVX-512: ct__v_gelu's operations (the same fits, the
   same order, so the same bits), lanes below -5.5 and NaN through its erfc tail.
   n = rint(q) (ties to even, as ct__v_gelu's 1.5 * 2^23 shifter) in one round-scale
   instruction and 2^n applied by scalef instead of through n's bits: the same n, f
   and product (h is a normal float, so p 2^n is exact either way). Then x h for
   x < 0, else x (1 - h): the subtraction masked to the other lanes (NaN's too). */
#if CT__SEL(GELU)
static inline void ct__jit_gelun(__m512 *v, int n) {
    __m512 u[CT__JIT_SEGU], q[CT__JIT_SEGU], nq[CT__JIT_SEGU], p[CT__JIT_SEGU];
    CT__JIT_N(u[i] = _mm512_min_ps(_mm512_abs_ps(v[i]), _mm512_set1_ps(5.5f)); q[i] = _mm512_set1_ps(CT__GELU_Q_FIRST));
#define CT__JIT_GSTEP(c) CT__JIT_N(q[i] = _mm512_fmadd_ps(q[i], u[i], _mm512_set1_ps(c)));
    CT__GELU_Q_REST(CT__JIT_GSTEP)
#undef CT__JIT_GSTEP
    CT__JIT_N(nq[i] = _mm512_roundscale_ps(q[i], _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    CT__JIT_N(q[i] = _mm512_sub_ps(q[i], nq[i]); p[i] = _mm512_set1_ps(CT__EXP2_P_FIRST));
#define CT__JIT_ESTEP(c) CT__JIT_N(p[i] = _mm512_fmadd_ps(p[i], q[i], _mm512_set1_ps(c)));
    CT__EXP2_P_REST(CT__JIT_ESTEP)
#undef CT__JIT_ESTEP
    CT__JIT_N(p[i] = _mm512_scalef_ps(p[i], nq[i]));
    CT__JIT_N(__mmask16 nneg = _mm512_cmp_ps_mask(v[i], _mm512_setzero_ps(), _CMP_NLT_UQ);
              __m512 y = _mm512_mul_ps(v[i], _mm512_mask_sub_ps(p[i], nneg, _mm512_set1_ps(1.0f), p[i]));
              __mmask16 fast = _mm512_cmp_ps_mask(v[i], _mm512_set1_ps(-5.5f), _CMP_GE_OQ);
              if (fast != 0xffff) y = _mm512_mask_mov_ps((__m512)ct__v_gelu_tail((ct__vf)v[i]), fast, y);
              v[i] = y);
}
static inline __m512 ct__jit_gelu16(__m512 x) { ct__jit_gelun(&x, 1); return x; }
static inline void ct__jit_gelu4(__m512 *v) { ct__jit_gelun(v, CT__JIT_SEGU); }
static void ct__jit_gelu_f32(char **p, const int64_t *s, int64_t n, const ct__attrs *a) {
    if (s[0] != 4 || s[1] != 4 || a->mode) { ct__uv_gelu(p, s, n, a); return; }
    float *o = (float *)p[0];
    const float *in = (const float *)p[1];
    int64_t k = 0;
    for (; k + 16 <= n; k += 16) _mm512_storeu_ps(o + k, ct__jit_gelu16(_mm512_loadu_ps(in + k)));
    if (k < n) {
        __mmask16 m = (__mmask16)((1u << (unsigned)(n - k)) - 1u);
        _mm512_mask_storeu_ps(o + k, m, ct__jit_gelu16(_mm512_maskz_loadu_ps(m, in + k)));
    }
}
#endif
/* The cheap ops of fused groups, 16 lanes at a time with masked tails: the eager
   loops are auto-vectorized for 8 lanes (gcc prefers 256-bit vectors) and take a
   generic path for a stride-0 (scalar) operand. Same operations, same bits: add and
   sub with alpha 1 (else the eager loop), maximum / minimum return x when x is NaN,
   else y when y is NaN, else the larger / smaller (y on ties), as ct__maxf. */
#define CT__JIT_BBODY(EXPR)                                                                         \
    do {                                                                                            \
        int64_t k = 0;                                                                              \
        for (; k + 16 <= n; k += 16) {                                                              \
            __m512 x = sx ? _mm512_loadu_ps(xp + k) : xb, y = sy ? _mm512_loadu_ps(yp + k) : yb;    \
            _mm512_storeu_ps(o + k, EXPR);                                                          \
        }                                                                                           \
        if (k < n) {                                                                                \
            __mmask16 m = (__mmask16)((1u << (unsigned)(n - k)) - 1u);                              \
            __m512 x = sx ? _mm512_maskz_loadu_ps(m, xp + k) : xb;                                  \
            __m512 y = sy ? _mm512_maskz_loadu_ps(m, yp + k) : yb;                                  \
            _mm512_mask_storeu_ps(o + k, m, EXPR);                                                  \
        }                                                                                           \
    } while (0)
#define CT__JIT_BLOOP(fname, OPE, ALPHA, EXPR)                                                      \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) {                  \
        if (s[0] != 4 || (s[1] != 4 && s[1] != 0) || (s[2] != 4 && s[2] != 0) || (ALPHA && a->s[0] != 1.0)) { \
            ct__binary_table(OPE)[CT_FLOAT32](p, s, n, a);                                          \
            return;                                                                                 \
        }                                                                                           \
        float *o = (float *)p[0];                                                                   \
        const float *xp = (const float *)p[1], *yp = (const float *)p[2];                           \
        const __m512 xb = _mm512_set1_ps(*xp), yb = _mm512_set1_ps(*yp);                           \
        if (s[1] && s[2]) { const int sx = 1, sy = 1; CT__JIT_BBODY(EXPR); }                        \
        else if (s[1]) { const int sx = 1, sy = 0; CT__JIT_BBODY(EXPR); }                           \
        else { const int sx = 0, sy = 1; CT__JIT_BBODY(EXPR); }                                     \
    }
/* max_ps(x, y) is x > y ? x : y (y when either is NaN, and on ties such as -0 vs +0),
   so only a NaN x needs a select */
#define CT__JIT_MAXMIN(x, y, F) _mm512_mask_mov_ps(F(x, y), _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x)
#if CT__SEL(ADD)
CT__JIT_BLOOP(ct__jit_add_f32, CT__OP_ADD, 1, _mm512_add_ps(x, y))
#endif
#if CT__SEL(SUB)
CT__JIT_BLOOP(ct__jit_sub_f32, CT__OP_SUB, 1, _mm512_sub_ps(x, y))
#endif
#if CT__SEL(MUL)
CT__JIT_BLOOP(ct__jit_mul_f32, CT__OP_MUL, 0, _mm512_mul_ps(x, y))
#endif
#if CT__SEL(DIV)
CT__JIT_BLOOP(ct__jit_div_f32, CT__OP_DIV, 0, _mm512_div_ps(x, y))
#endif
#if CT__SEL(MAXIMUM)
CT__JIT_BLOOP(ct__jit_maximum_f32, CT__OP_MAXIMUM, 0, CT__JIT_MAXMIN(x, y, _mm512_max_ps))
#endif
#if CT__SEL(MINIMUM)
CT__JIT_BLOOP(ct__jit_minimum_f32, CT__OP_MINIMUM, 0, CT__JIT_MAXMIN(x, y, _mm512_min_ps))
#endif
#define CT__JIT_ULOOP(fname, OPE, EXPR) CT__JIT_VLOOP(fname, EXPR, ct__unary_table(OPE)[CT_FLOAT32])
#if CT__SEL(NEG)
CT__JIT_ULOOP(ct__jit_neg_f32, CT__OP_NEG, _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(v), _mm512_set1_epi32((int)0x80000000u))))
#endif
#if CT__SEL(ABS)
CT__JIT_ULOOP(ct__jit_abs_f32, CT__OP_ABS, _mm512_abs_ps(v))
#endif
#if CT__SEL(RELU)
/* relu: max_ps(0, x) is 0 > x ? 0 : x, eager's x < 0 ? 0 : x (NaN and -0 kept) */
CT__JIT_ULOOP(ct__jit_relu_f32, CT__OP_RELU, _mm512_max_ps(_mm512_setzero_ps(), v))
#endif
/* rsqrt: rsqrt14 and one Newton step, r + r (1 - b r^2) / 2 (within 2 ulp of
   1 / sqrt over a sweep, tests/test_jit.c); lanes that are not normal and finite
   (0, -0, negative, subnormal, inf, NaN) take 1 / sqrt(b) as eager does */
#if CT__SEL(RSQRT)
static inline __m512 ct__jit_rsqrt16(__m512 b) {
    __m512 r = _mm512_rsqrt14_ps(b);
    __m512 e = _mm512_fnmadd_ps(_mm512_mul_ps(b, r), r, _mm512_set1_ps(1.0f));
    __m512 y = _mm512_fmadd_ps(_mm512_mul_ps(r, _mm512_set1_ps(0.5f)), e, r);
#if defined(__AVX512DQ__)
    __mmask16 bad = _mm512_fpclass_ps_mask(b, 0xff);   /* one class test: NaN, zeros, infinities, subnormals, negatives */
#else
    __mmask16 bad = (__mmask16)~(_mm512_cmp_ps_mask(b, _mm512_set1_ps(1.17549435e-38f), _CMP_GE_OQ) & _mm512_cmp_ps_mask(b, _mm512_set1_ps(INFINITY), _CMP_LT_OQ));
#endif
    if (bad) y = _mm512_mask_mov_ps(y, bad, _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_sqrt_ps(b)));
    return y;
}
CT__JIT_ULOOP(ct__jit_rsqrt_f32, CT__OP_RSQRT, ct__jit_rsqrt16(v))
#endif
/* the fused loop of a cheap op (NULL: none) */
static ct__loop_fn ct__jit_cheap_f32(int op) {
#define CT__JIT_CHEAP(E, table, fn) CT__WHEN_SEL(E)(case CT__OP_##E: return table(op) ? fn : NULL;)
    switch (op) {
    CT__JIT_CHEAP(ADD, ct__binary_table, ct__jit_add_f32)
    CT__JIT_CHEAP(SUB, ct__binary_table, ct__jit_sub_f32)
    CT__JIT_CHEAP(MUL, ct__binary_table, ct__jit_mul_f32)
    CT__JIT_CHEAP(DIV, ct__binary_table, ct__jit_div_f32)
    CT__JIT_CHEAP(MAXIMUM, ct__binary_table, ct__jit_maximum_f32)
    CT__JIT_CHEAP(MINIMUM, ct__binary_table, ct__jit_minimum_f32)
    CT__JIT_CHEAP(NEG, ct__unary_table, ct__jit_neg_f32)
    CT__JIT_CHEAP(ABS, ct__unary_table, ct__jit_abs_f32)
    CT__JIT_CHEAP(RELU, ct__unary_table, ct__jit_relu_f32)
    CT__JIT_CHEAP(RSQRT, ct__unary_table, ct__jit_rsqrt_f32)
    default: return NULL;
    }
#undef CT__JIT_CHEAP
}
/* Runs of cheap ops in registers: consecutive cheap ops of a fused program, each
   reading the previous one's result (its only reader, not an output of the group),
   run as one pass over the block, 64 floats at a time, the running value in
   registers: one store per run instead of one per op. The same operations as the
   ops' own loops above, so the same bits. */
enum { CT__JR_ADD, CT__JR_SUB, CT__JR_MUL, CT__JR_DIV, CT__JR_MAX, CT__JR_MIN, CT__JR_NEG, CT__JR_ABS, CT__JR_RELU, CT__JR_RSQRT };
typedef struct ct__jrop {
    int code;
    int mode;            /* 0: f(v, o), 1: f(o, v), 2: f(v, v), 3: f(v) */
    int src;             /* o: the group's input src (>= 0) or -(j+1), op j's result */
} ct__jrop;
static int ct__jit_rcode(ct__loop_fn fn, const ct__attrs *a) {
    (void)fn;
    (void)a;
#define CT__JIT_RC(E, f, C, alpha) CT__WHEN_SEL(E)(if (fn == f) return (alpha) ? C : -1;)
    CT__JIT_RC(ADD, ct__jit_add_f32, CT__JR_ADD, a->s[0] == 1.0)
    CT__JIT_RC(SUB, ct__jit_sub_f32, CT__JR_SUB, a->s[0] == 1.0)
    CT__JIT_RC(MUL, ct__jit_mul_f32, CT__JR_MUL, 1)
    CT__JIT_RC(DIV, ct__jit_div_f32, CT__JR_DIV, 1)
    CT__JIT_RC(MAXIMUM, ct__jit_maximum_f32, CT__JR_MAX, 1)
    CT__JIT_RC(MINIMUM, ct__jit_minimum_f32, CT__JR_MIN, 1)
    CT__JIT_RC(NEG, ct__jit_neg_f32, CT__JR_NEG, 1)
    CT__JIT_RC(ABS, ct__jit_abs_f32, CT__JR_ABS, 1)
    CT__JIT_RC(RELU, ct__jit_relu_f32, CT__JR_RELU, 1)
    CT__JIT_RC(RSQRT, ct__jit_rsqrt_f32, CT__JR_RSQRT, 1)
#undef CT__JIT_RC
    return -1;
}
static inline __m512 ct__jit_rapply(int code, __m512 x, __m512 y) {
    switch (code) {
    case CT__JR_ADD: return _mm512_add_ps(x, y);
    case CT__JR_SUB: return _mm512_sub_ps(x, y);
    case CT__JR_MUL: return _mm512_mul_ps(x, y);
    case CT__JR_DIV: return _mm512_div_ps(x, y);
    case CT__JR_MAX: return CT__JIT_MAXMIN(x, y, _mm512_max_ps);
    case CT__JR_MIN: return CT__JIT_MAXMIN(x, y, _mm512_min_ps);
    case CT__JR_NEG: return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x), _mm512_set1_epi32((int)0x80000000u)));
    case CT__JR_ABS: return _mm512_abs_ps(x);
#if CT__SEL(RSQRT)
    case CT__JR_RSQRT: return ct__jit_rsqrt16(x);
#endif
    default: return _mm512_max_ps(_mm512_setzero_ps(), x);
    }
}
/* The cheap ops of a run on CT__JIT_SEGU vectors at once, op by op: o[j] is op j's
   other operand at the block's start (a broadcast operand: 64 copies, om[j] = 0). */
static inline void ct__jit_rprolog(const ct__jrop *r, int L, const float *const *o, const int64_t *om, __m512 *v, int64_t k) {
    for (int j = 0; j < L; j++) {
        const float *op = o[j] + (k & om[j]);
        int c = r[j].code;
        switch (r[j].mode) {
        case 0:
            for (int i = 0; i < CT__JIT_SEGU; i++) v[i] = ct__jit_rapply(c, v[i], _mm512_loadu_ps(op + 16 * i));
            break;
        case 1:
            for (int i = 0; i < CT__JIT_SEGU; i++) v[i] = ct__jit_rapply(c, _mm512_loadu_ps(op + 16 * i), v[i]);
            break;
        default:
            for (int i = 0; i < CT__JIT_SEGU; i++) v[i] = ct__jit_rapply(c, v[i], v[i]);
            break;
        }
    }
}
/* A segment: a run of L cheap ops (x0 / m0: the first op's first operand), then
   F, 16 CT__JIT_SEGU floats at a time (16 with masks in the tail). F is the
   identity for a run alone, or the costly op (exp, sigmoid, silu, tanh, gelu) that
   reads the run's result: the cheap ops then cost no pass of their own over the
   block, and their dispatch is paid once per CT__JIT_SEGU vectors. The same
   operations as the ops' own loops, so the same bits. */
typedef void (*ct__jsegfn)(const ct__jrop *r, int L, const float *const *o, const int64_t *om, const float *x0, int64_t m0, float *out, int64_t len);
#define CT__JIT_SEGFN(fname, F, F4)                                                                                     \
    static void fname(const ct__jrop *r, int L, const float *const *o, const int64_t *om, const float *x0, int64_t m0, \
                      float *out, int64_t len) {                                                                   \
        int64_t k = 0;                                                                                             \
        for (; k + 16 * CT__JIT_SEGU <= len; k += 16 * CT__JIT_SEGU) {                                             \
            const float *xp = x0 + (k & m0);                                                                       \
            __m512 v[CT__JIT_SEGU];                                                                                \
            for (int i = 0; i < CT__JIT_SEGU; i++) v[i] = _mm512_loadu_ps(xp + 16 * i);                            \
            ct__jit_rprolog(r, L, o, om, v, k);                                                                    \
            F4(v);                                                                                                 \
            for (int i = 0; i < CT__JIT_SEGU; i++) _mm512_storeu_ps(out + k + 16 * i, v[i]);                      \
        }                                                                                                          \
        for (; k < len; k += 16) {                                                                                 \
            __mmask16 m = len - k >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (unsigned)(len - k)) - 1u);       \
            __m512 v = _mm512_maskz_loadu_ps(m, x0 + (k & m0));                                                    \
            for (int j = 0; j < L; j++) {                                                                          \
                __m512 w = _mm512_maskz_loadu_ps(m, o[j] + (k & om[j]));                                           \
                v = r[j].mode == 1 ? ct__jit_rapply(r[j].code, w, v) : ct__jit_rapply(r[j].code, v, r[j].mode == 0 ? w : v); \
            }                                                                                                      \
            _mm512_mask_storeu_ps(out + k, m, F(v));                                                               \
        }                                                                                                          \
    }
#define CT__JIT_ID(v) (v)
#define CT__JIT_ID4(v) (void)(v)
CT__JIT_SEGFN(ct__jit_run_cheap, CT__JIT_ID, CT__JIT_ID4)
CT__JIT_SEGFN(ct__jit_seg_exp, ct__jit_exp16, ct__jit_exp4)
CT__JIT_SEGFN(ct__jit_seg_sigmoid, ct__jit_sigmoid16, ct__jit_sigmoid4)
CT__JIT_SEGFN(ct__jit_seg_silu, ct__jit_silu16, ct__jit_silu4)
CT__JIT_SEGFN(ct__jit_seg_tanh, ct__jit_tanh16, ct__jit_tanh4)
#if CT__SEL(GELU)
CT__JIT_SEGFN(ct__jit_seg_gelu, ct__jit_gelu16, ct__jit_gelu4)
#endif
/* the segment kernel of a costly op's fused loop (NULL: none) */
static ct__jsegfn ct__jit_seg_of(ct__loop_fn fn, const ct__attrs *a) {
    if (fn == ct__jit_exp_f32) return ct__jit_seg_exp;
    if (fn == ct__jit_sigmoid_f32) return ct__jit_seg_sigmoid;
    if (fn == ct__jit_silu_f32) return ct__jit_seg_silu;
    if (fn == ct__jit_tanh_f32) return ct__jit_seg_tanh;
#if CT__SEL(GELU)
    if (fn == ct__jit_gelu_f32 && !a->mode) return ct__jit_seg_gelu;
#endif
    (void)a;
    return NULL;
}
#define CT__JIT_HAVE_RUNS 1
#endif
static ct__loop_fn ct__jit_loop_of(int op, ct_dtype dt) {
    int kind = ct__jit_is_fusable_kernel(op);
#ifdef CT__JIT_HAVE_EXP_F32
    if (kind && dt == CT_FLOAT32 && ct__jit_cheap_f32(op)) return ct__jit_cheap_f32(op);
    if (kind == 1 && dt == CT_FLOAT32) {
        ct__loop_fn v = ct__unary_vec_f32(op);        /* NULL when the op is not in a selective build */
        if (v && v == ct__unary_vec_f32(CT__OP_EXP)) return ct__jit_exp_f32;
        if (v && v == ct__unary_vec_f32(CT__OP_SIGMOID)) return ct__jit_sigmoid_f32;
        if (v && v == ct__unary_vec_f32(CT__OP_SILU)) return ct__jit_silu_f32;
        if (v && v == ct__unary_vec_f32(CT__OP_TANH)) return ct__jit_tanh_f32;
#if CT__SEL(GELU)
        if (v && v == ct__unary_vec_f32(CT__OP_GELU)) return ct__jit_gelu_f32;
#endif
    }
#endif
    if (kind == 1) {
        ct__loop_fn v = dt == CT_FLOAT32 ? ct__unary_vec_f32(op) : NULL;
        const ct__loop_fn *tab = ct__unary_table(op);
        return v ? v : (tab ? tab[dt] : NULL);
    }
    if (kind == 2) {
        const ct__loop_fn *tab = ct__binary_table(op);
        return tab ? tab[dt] : NULL;
    }
    return NULL;
}

/* the fused program, op by op through the dispatcher (autograd, odd shapes) */
static int ct__jit_fused_unfused(const ct__jnode *n, ct_tensor *const *ins, ct_tensor **outs) {
    const ct__jfused *f = n->fz;
    ct_tensor *tmp[256];
    if (f->nops > 256) { ct_set_error(CT_ERR_UNSUPPORTED, "graph_run: a fused group of %d ops (at most 256)", f->nops); return -1; }
    for (int k = 0; k < f->nops; k++) {
        const ct__jfop *o = &f->ops[k];
        ct_tensor *a[2];
        for (int j = 0; j < o->nin; j++) a[j] = o->src[j] >= 0 ? ins[o->src[j]] : tmp[-o->src[j] - 1];
        if (ct_dispatch(o->op, o->nin, a, &o->a, NULL, 0, &tmp[k], 1) < 0) return -1;
        if (f->slot[k] < 0) outs[-f->slot[k] - 1] = tmp[k];
    }
    return 0;
}

typedef struct ct__jfctx {
    const ct__jfused *f;
    int nin;
    char *inp[64];
    int64_t inst[64];
    char *outp[16];
    ct__loop_fn fn[256];
    int64_t es, n, block;
#ifdef CT__JIT_HAVE_RUNS
    unsigned char run[256];            /* ops in a run of cheap ops that starts at op k (0: op k runs alone), with its costly end */
    ct__jsegfn seg[256];               /* the run's kernel: ct__jit_run_cheap, or a segment's ending in a costly op */
    ct__jrop rop[256];                 /* op k's part in its run */
    float rep[16][16 * CT__JIT_SEGU];  /* the group's scalar inputs (the first 16), a segment step's copies each */
#endif
} ct__jfctx;
/* Scratch for a fused group's intermediates: nslots blocks, on the stack (at most
   8 KB: the block shrinks when a group needs many slots), so nothing is allocated
   and nothing stays behind per thread. */
#define CT__JIT_SCRATCH 8192
static CT__NOINLINE void ct__jit_fused_blocks(void *vctx, int64_t lo, int64_t hi) {
    const ct__jfctx *c = (const ct__jfctx *)vctx;
    const ct__jfused *f = c->f;
    union { double d; char b[CT__JIT_SCRATCH + 64]; } scratch;
    char *scr = scratch.b + ((64 - ((uintptr_t)scratch.b & 63)) & 63);   /* on a cache line: no vector access splits */
    char *res[256];
    int64_t st[3];
    char *p[3];
    for (int64_t b = lo; b < hi; b++) {
        int64_t s0 = b * c->block, len = c->n - s0 < c->block ? c->n - s0 : c->block;
        for (int k = 0; k < f->nops; k++) {
            const ct__jfop *o = &f->ops[k];
            int sl = f->slot[k];
#ifdef CT__JIT_HAVE_RUNS
            if (c->run[k]) {
                int L = c->run[k], e = k + L - 1;
                const float *op[256];
                int64_t om[256];
                if (c->seg[k] != ct__jit_run_cheap) L--;   /* the cheap ops before the costly one */
                for (int j = 0; j <= L; j++) {   /* j == L: the first op's first operand */
                    int sj = j < L ? c->rop[k + j].src : f->ops[k].src[0];
                    if (j < L && c->rop[k + j].mode >= 2) sj = f->ops[k].src[0];
                    const float *q;
                    int64_t m = ~(int64_t)0;
                    if (sj >= 0 && !c->inst[sj]) { q = c->rep[sj]; m = 0; }
                    else q = sj >= 0 ? (const float *)(c->inp[sj] + s0 * c->es) : (const float *)res[-sj - 1];
                    op[j] = q;
                    om[j] = m;
                }
                sl = f->slot[e];
                char *dst = sl < 0 ? c->outp[-sl - 1] + s0 * c->es : scr + (size_t)sl * (size_t)c->block * (size_t)c->es;
                c->seg[k](&c->rop[k], L, op, om, op[L], om[L], (float *)dst, len);
                res[e] = dst;
                k = e;
                continue;
            }
#endif
            p[0] = sl < 0 ? c->outp[-sl - 1] + s0 * c->es : scr + (size_t)sl * (size_t)c->block * (size_t)c->es;
            st[0] = c->es;
            for (int j = 0; j < o->nin; j++) {
                int s = o->src[j];
                if (s >= 0) {
                    st[1 + j] = c->inst[s];
                    p[1 + j] = c->inp[s] + (c->inst[s] ? s0 * c->es : 0);
                } else {
                    st[1 + j] = c->es;
                    p[1 + j] = res[-s - 1];
                }
            }
            c->fn[k](p, st, len, &o->a);
            res[k] = p[0];
        }
    }
}
#ifdef CT__JIT_HAVE_RUNS
/* whether op k's result is read by op k + 1 only (and is not an output) */
static int ct__jit_only_next(const ct__jfused *f, int k) {
    if (f->slot[k] < 0 || k + 1 >= f->nops) return 0;
    int used = 0;
    for (int j = k + 1; j < f->nops; j++)
        for (int q = 0; q < f->ops[j].nin; q++)
            if (f->ops[j].src[q] == -(k + 1)) { if (j != k + 1) return 0; used = 1; }
    return used;
}
/* an operand a run can read: an earlier result, an input, a scalar input among the first 16 */
static int ct__jit_run_operand(const ct__jfctx *c, int src) { return src < 0 || c->inst[src] || src < 16; }
static void ct__jit_plan_runs(ct__jfctx *c, ct_dtype dt) {
    const ct__jfused *f = c->f;
    memset(c->run, 0, (size_t)f->nops);
    if (dt != CT_FLOAT32) return;
    for (int q = 0; q < c->nin && q < 16; q++)
        if (!c->inst[q]) for (int i = 0; i < 16 * CT__JIT_SEGU; i++) c->rep[q][i] = *(const float *)c->inp[q];
    for (int k = 0; k < f->nops;) {
        const ct__jfop *o = &f->ops[k];
        int code = ct__jit_rcode(c->fn[k], &o->a), L = 0;
        if (code >= 0 && ct__jit_run_operand(c, o->src[0]) && (o->nin == 1 || ct__jit_run_operand(c, o->src[1]))) {
            c->rop[k].code = code;
            c->rop[k].mode = o->nin == 1 ? 3 : 0;
            c->rop[k].src = o->nin == 1 ? 0 : o->src[1];
            L = 1;
            while (k + L < f->nops && L < 255 && ct__jit_only_next(f, k + L - 1)) {
                const ct__jfop *p = &f->ops[k + L];
                int pc = ct__jit_rcode(c->fn[k + L], &p->a), v = -(k + L);
                if (pc < 0) break;
                ct__jrop *r = &c->rop[k + L];
                r->code = pc;
                r->src = 0;
                if (p->nin == 1) r->mode = 3;
                else if (p->src[0] == v && p->src[1] == v) r->mode = 2;
                else if (p->src[0] == v && ct__jit_run_operand(c, p->src[1])) { r->mode = 0; r->src = p->src[1]; }
                else if (p->src[1] == v && ct__jit_run_operand(c, p->src[0])) { r->mode = 1; r->src = p->src[0]; }
                else break;
                L++;
            }
        }
        c->seg[k] = ct__jit_run_cheap;
        if (L >= 1 && L < 255 && k + L < f->nops && ct__jit_only_next(f, k + L - 1)) {   /* a costly op reading the run's result */
            ct__jsegfn sf = ct__jit_seg_of(c->fn[k + L], &f->ops[k + L].a);
            if (sf) { c->seg[k] = sf; L++; }
        }
        if (L >= 2) c->run[k] = (unsigned char)L;
        k += L >= 1 ? L : 1;
    }
}
#endif
static CT__NOINLINE int ct__jit_run_fused(const ct__jnode *n, ct_tensor *const *ins, ct_tensor **outs) {
    const ct__jfused *f = n->fz;
    ct_tensor *ref = NULL;
    ct_dtype dt = ins[0]->dtype;
    int fast = n->nin <= 64 && n->nout <= 16 && f->nops <= 256 && (dt == CT_FLOAT32 || dt == CT_FLOAT64);
    int grad = ct_is_grad_enabled();
    for (int k = 0; fast && k < n->nin; k++) {
        ct_tensor *x = ins[k];
        if (x->dtype != dt || !ct_device_eq(x->device, ct__cpu_dev) || (grad && ct_get_requires_grad(x)) || x->names) fast = 0;
        else if (!ref || ct_numel(x) > ct_numel(ref)) ref = x;
    }
    for (int k = 0; fast && k < n->nin; k++) {
        ct_tensor *x = ins[k];
        if (ct_numel(x) != 1 && !ct_same_shape(x, ref)) fast = 0;
        if (x->ndim > ref->ndim) fast = 0;
    }
    if (!fast) return ct__jit_fused_unfused(n, ins, outs);
    ct__jfctx c;
    c.f = f;
    c.nin = n->nin;
    c.es = (int64_t)ct__dt[dt].size;
    c.n = ct_numel(ref);
    /* 1024 floats (512 doubles) per block, fewer when the slots would not fit */
    int64_t slots = f->nslots > 0 ? f->nslots : 1;
    c.block = (int64_t)(CT__JIT_SCRATCH / (slots * c.es)) & ~(int64_t)15;
    if (c.block > 4096 / c.es) c.block = 4096 / c.es;
    if (c.block < 16) return ct__jit_fused_unfused(n, ins, outs);   /* a group this wide runs op by op */
    for (int k = 0; k < f->nops; k++) {
        c.fn[k] = ct__jit_loop_of(f->ops[k].op, dt);
        if (!c.fn[k]) return ct__jit_fused_unfused(n, ins, outs);
    }
    for (int k = 0; k < n->nin; k++) {
        ct_tensor *x = ins[k];
        if (ct_numel(x) == 1 && c.n != 1) { c.inst[k] = 0; c.inp[k] = ct__ptr(x); continue; }
        if (!ct__is_contig(x)) {
            x = ct_contiguous(x);
            if (!x) return -1;
        }
        c.inst[k] = c.es;
        c.inp[k] = ct__ptr(x);
    }
#ifdef CT__JIT_HAVE_RUNS
    ct__jit_plan_runs(&c, dt);
#endif
    for (int j = 0; j < n->nout; j++) {
        outs[j] = ct_empty_n(dt, ref->ndim, ref->shape);
        if (!outs[j]) return -1;
        c.outp[j] = ct__ptr(outs[j]);
    }
    int64_t nb = (c.n + c.block - 1) / c.block;
    ct__par_for(nb, (CT__GRAIN + c.block - 1) / c.block, ct__jit_fused_blocks, &c);
    return 0;
}

/* prim::If / prim::Loop: the subgraphs run through ct_graph_run */
static int ct__jit_read_scalar(ct_tensor *t, const char *what, double *v) {
    if (!t || ct_numel(t) != 1) {
        ct_set_error(CT_ERR_SHAPE, "graph_run: the %s must have one element, got %lld", what, t ? (long long)ct_numel(t) : 0LL);
        return -1;
    }
    *v = ct_item(t);
    return 0;
}
static CT__NOINLINE int ct__jit_run_cf(const ct__jnode *n, ct_tensor *const *ins, ct_tensor **outs) {
    if (n->op == CT__JIT_IF) {
        double c;
        if (ct__jit_read_scalar(ins[0], "prim::If condition", &c)) return -1;
        const ct_graph *b = n->sub[c != 0.0 ? 0 : 1];
        return ct_graph_run(b, n->nin - 1, ins + 1, outs, n->nout) < 0 ? -1 : 0;
    }
    double trip, c;
    if (ct__jit_read_scalar(ins[0], "prim::Loop trip count", &trip) || ct__jit_read_scalar(ins[1], "prim::Loop condition", &c)) return -1;
    int nc = n->nout;
    ct_tensor *cur[17], *res[18];
    for (int k = 0; k < nc; k++) cur[k] = ins[2 + k];
    for (int64_t i = 0; (double)i < trip && c != 0.0; i++) {
        ct_tensor *bin[18];
        bin[0] = ct_scalar_tensor((double)i, CT_INT64);
        if (!bin[0]) return -1;
        for (int k = 0; k < nc; k++) bin[1 + k] = cur[k];
        if (ct_graph_run(n->sub[0], nc + 1, bin, res, nc + 1) < 0) return -1;
        if (ct__jit_read_scalar(res[0], "prim::Loop body's condition", &c)) return -1;
        /* what this iteration no longer needs goes now, so a long loop stays flat */
        ct_tensor *drop[19];
        int nd = 0;
        drop[nd++] = bin[0];
        drop[nd++] = res[0];
        for (int k = 0; k < nc; k++) {
            if (i > 0) drop[nd++] = cur[k];                 /* the previous iteration's values */
            cur[k] = res[1 + k];
        }
        for (int k = 0; k < nd; k++)
            if (CT__LOAD(&drop[k]->refcount) == 1 && drop[k]->scope_slot >= 0) ct_release(drop[k]);
    }
    /* the outputs: the final carried values (a fresh alias of an input carried through untouched) */
    for (int k = 0; k < nc; k++) {
        if (cur[k] == ins[2 + k]) {
            if (ct_dispatch(CT__OP_ALIAS, 1, &cur[k], NULL, NULL, 0, &outs[k], 1) < 0) return -1;
        } else {
            outs[k] = cur[k];
        }
    }
    return 0;
}
static int ct__jit_same_shape_rec(const ct__jval *v, const ct_tensor *t, int skip0) {
    if (v->ndim < 0) return 1;
    if (t->ndim != v->ndim) return 0;
    for (int d = skip0 ? 1 : 0; d < t->ndim; d++)
        if (t->shape[d] != v->shape[d]) return 0;
    return 1;
}
static void ct__jit_shape_str(char *buf, size_t cap, int ndim, const int64_t *shape) {
    size_t k = 0;
    k += (size_t)snprintf(buf + k, cap - k, "[");
    for (int d = 0; d < ndim && k < cap; d++) k += (size_t)snprintf(buf + k, cap - k, d ? ", %lld" : "%lld", (long long)shape[d]);
    if (k < cap) snprintf(buf + k, cap - k, "]");
}
CTENSOR_API int ct_graph_run(const ct_graph *g, int nin, ct_tensor *const *inputs, ct_tensor **outputs, int max_out) {
    if (!g) { ct_set_error(CT_ERR_NULL, "graph_run: graph is NULL"); return -1; }
    if (nin != g->nin) { ct_set_error(CT_ERR_ARG, "graph_run: the graph takes %d inputs, got %d", g->nin, nin); return -1; }
    if (max_out < 0 || (max_out > 0 && !outputs)) { ct_set_error(CT_ERR_ARG, "graph_run: max_out %d with a NULL output list", max_out); return -1; }
    for (int i = 0; i < nin; i++) {
        const ct_tensor *t = inputs ? inputs[i] : NULL;
        const ct__jval *v = &g->v[g->in[i]];
        if (!t) { ct_set_error(CT_ERR_NULL, "graph_run: input %d is NULL", i); return -1; }
        if (v->ndim >= 0 && t->dtype != v->dtype) {
            ct_set_error(CT_ERR_DTYPE, "graph_run: input %d (%%%s) has dtype %s, the graph expects %s", i, v->name ? v->name : "?",
                         ct_dtype_name(t->dtype), ct_dtype_name(v->dtype));
            return -1;
        }
        if (!ct__jit_same_shape_rec(v, t, g->dyn_batch)) {
            char a[160], b[160];
            ct__jit_shape_str(a, sizeof a, t->ndim, t->shape);
            ct__jit_shape_str(b, sizeof b, v->ndim, v->shape);
            ct_set_error(CT_ERR_SHAPE, "graph_run: input %d (%%%s) has shape %s, the graph was traced with %s%s", i,
                         v->name ? v->name : "?", a, b, g->dyn_batch ? " (dimension 0 may vary)" : "");
            return -1;
        }
    }
    ct_tensor *stackenv[256];
    ct_tensor **env = g->nv <= 256 ? stackenv : (ct_tensor **)CT_MALLOC((size_t)g->nv * sizeof(ct_tensor *));
    if (!env) { ct_set_error(CT_ERR_MEMORY, "graph_run: out of memory"); return -1; }
    for (int v = 0; v < g->nv; v++) env[v] = g->v[v].t;       /* parameters and constants */
    for (int i = 0; i < nin; i++) env[g->in[i]] = inputs[i];
    int rc = 0, obsfail = 0, nqheld = 0;
    ct_tensor **qheld = NULL;                                 /* QAT: fake-quantized inputs and weights of this run */
    if (g->qfq && !(qheld = (ct_tensor **)CT_MALLOC((size_t)(nin + g->nn + 1) * sizeof(ct_tensor *)))) {
        ct_set_error(CT_ERR_MEMORY, "graph_run: out of memory");
        rc = -1;
    }
    if (g->qobs && !rc) {                                     /* a prepared graph: its inputs' observers */
        int tok = ct_scope_begin();
        for (int i = 0; i < nin && !rc; i++) {
            void *ob = g->qobs[g->in[i]];
            if (!ob) continue;
            if (!g->qfq) { if (g->qobserve(ob, inputs[i]) < 0) rc = -1; continue; }
            ct_tensor *f = g->qfq(ob, inputs[i], 0);
            if (!f) rc = -1;
            else env[g->in[i]] = qheld[nqheld++] = ct_retain(f);
        }
        /* QAT: each weight through its FakeQuantize (a linear's transposed weight as
           [out, in], so per-channel parameters follow the output features) */
        for (int i = 0; g->qw && i < g->nn && !rc; i++) {
            const ct__jqw *w = &g->qw[i];
            if (!w->fq) continue;
            int v = g->n[i].in[w->in];
            ct_tensor *f = g->qfq(w->fq, env[v], w->tr);
            if (!f) rc = -1;
            else env[v] = qheld[nqheld++] = ct_retain(f);
        }
        ct_scope_end(tok);
    }
    for (int i = 0; i < g->nn && !rc; i++) {
        const ct__jnode *n = &g->n[i];
        ct_tensor *ins[64], *outs[16];
        if (n->nin > 64 || n->nout > 16) { ct_set_error(CT_ERR_UNSUPPORTED, "graph_run: node %d has %d inputs and %d outputs (at most 64 and 16)", i, n->nin, n->nout); rc = -1; break; }
        for (int k = 0; k < n->nin; k++) ins[k] = n->in[k] >= 0 ? env[n->in[k]] : NULL;
        for (int k = 0; k < n->nout; k++) outs[k] = NULL;
        int tok = ct_scope_begin();
        int r = n->op == CT__JIT_FUSED ? ct__jit_run_fused(n, ins, outs)
              : n->op <= CT__JIT_IF    ? ct__jit_run_cf(n, ins, outs)
                                       : ct_dispatch(n->op, n->nin, ins, &n->a, NULL, n->inplace, outs, n->nout);
        if (r < 0) {
            char msg[768];
            ct__jit_errcopy(msg, sizeof msg);
            ct_status code = ct_last_error_code();
            ct_set_error(code == CT_OK ? CT_ERR_STATE : code, "graph_run: node %d (%s) failed: %s", i,
                         ct__jit_node_name(n->op), msg);
            rc = -1;
        } else {
            for (int k = 0; k < n->nout; k++) {
                if (n->inplace && k == 0) { env[n->out[0]] = ins[0]; continue; }
                env[n->out[k]] = ct_retain(outs[k]);
            }
            for (int k = 0; g->qobs && k < n->nout && !obsfail; k++) {   /* calibration; QAT: fake quantization */
                void *ob = g->qobs[n->out[k]];
                if (!ob) continue;
                if (!g->qfq) { if (g->qobserve(ob, env[n->out[k]]) < 0) obsfail = 1; continue; }
                if (n->inplace && k == 0) {
                    ct_set_error(CT_ERR_UNSUPPORTED, "graph_run: node %d (%s) writes in place a value that a FakeQuantize watches", i, ct__jit_node_name(n->op));
                    obsfail = 1;
                    continue;
                }
                ct_tensor *f = g->qfq(ob, env[n->out[k]], 0), *old = env[n->out[k]];
                if (!f) { obsfail = 1; continue; }
                env[n->out[k]] = ct_retain(f);
                ct_release(old);
            }
        }
        ct_scope_end(tok);
        if (rc) {
            for (int k = 0; k < n->nout; k++) env[n->out[k]] = NULL;
            break;
        }
        if (obsfail) {                                        /* the outputs are in env: freed below */
            rc = -1;
            break;
        }
        for (const int *fr = n->frees; *fr >= 0; fr++) {
            ct_release(env[*fr]);
            env[*fr] = NULL;
        }
    }
    for (int k = 0; !rc && k < g->nout && k < max_out; k++) outputs[k] = NULL;
    for (int k = 0; !rc && k < g->nout && k < max_out; k++) {
        int v = g->out[k], root = g->v[v].alias, dup = 0;
        for (int j = 0; j < k; j++) if (g->v[g->out[j]].alias == root) dup = 1;
        ct_tensor *t = env[v];
        if (g->v[root].kind == CT__JV_NODE && !dup) {
            outputs[k] = ct__own(ct_retain(t));       /* the caller's scope gets a reference */
            if (!outputs[k]) rc = -1;
        } else {
            /* an input, a constant, or a value returned twice: a fresh alias, as a view */
            if (ct_dispatch(CT__OP_ALIAS, 1, &t, NULL, NULL, 0, &outputs[k], 1) < 0) rc = -1;
        }
    }
    for (int v = 0; v < g->nv; v++)
        if (g->v[v].kind == CT__JV_NODE && g->v[v].alias == v && env[v]) ct_release(env[v]);
    for (int k = 0; k < nqheld; k++) ct_release(qheld[k]);
    CT_FREE(qheld);
    if (env != stackenv) CT_FREE(env);
    return rc ? -1 : g->nout;
}

#ifndef CTENSOR_JIT_LITE
/* ---- 2.5 Passes --------------------------------------------------------------
   Each pass rewrites the graph in place and leaves it valid (ct__jit_compact
   renumbers values and recomputes liveness). Uses are replaced with
   ct__jit_replace; a removed node has op -1 until ct__jit_drop_nodes. */
static void ct__jit_replace(ct_graph *g, int from, int to, int after_node) {
    for (int i = after_node + 1; i < g->nn; i++)
        for (int k = 0; k < g->n[i].nin; k++)
            if (g->n[i].in[k] == from) g->n[i].in[k] = to;
    for (int k = 0; k < g->nout; k++)
        if (g->out[k] == from) g->out[k] = to;
}
static ct_status ct__jit_drop_nodes(ct_graph *g) {
    int m = 0;
    for (int i = 0; i < g->nn; i++) {
        if (g->n[i].op == -1) { ct__jit_node_clear(&g->n[i]); continue; }
        g->n[m++] = g->n[i];
    }
    g->nn = m;
    return ct__jit_compact(g);
}
static int ct__jit_node_has_effect(const ct_graph *g, const ct__jnode *n) {
    for (int q = 0; q < 2; q++)
        if (n->sub[q] && n->sub[q]->has_inplace) return 1;   /* a block may write into what it was given */
    if (!n->inplace || n->nin == 0 || n->in[0] < 0) return 0;
    return g->v[g->v[n->in[0]].alias].kind != CT__JV_NODE;   /* writes into an input or a constant */
}
CTENSOR_API ct_status ct_jit_eliminate_dead_code(ct_graph *g) {
    if (!g) { ct_set_error(CT_ERR_NULL, "eliminate_dead_code: graph is NULL"); return CT_ERR_NULL; }
    char *live = (char *)CT_MALLOC((size_t)(g->nv > 0 ? g->nv : 1));
    if (!live) { ct_set_error(CT_ERR_MEMORY, "eliminate_dead_code: out of memory"); return CT_ERR_MEMORY; }
    memset(live, 0, (size_t)g->nv);
    for (int k = 0; k < g->nout; k++) live[g->out[k]] = 1;
    for (int i = g->nn - 1; i >= 0; i--) {
        ct__jnode *n = &g->n[i];
        int keep = ct__jit_node_has_effect(g, n);
        for (int k = 0; k < n->nout && !keep; k++) keep = live[n->out[k]];
        if (!keep) { n->op = -1; continue; }
        for (int k = 0; k < n->nin; k++) if (n->in[k] >= 0) live[n->in[k]] = 1;
    }
    CT_FREE(live);
    return ct__jit_drop_nodes(g);
}

CTENSOR_API ct_status ct_jit_eliminate_common_subexpressions(ct_graph *g) {
    if (!g) { ct_set_error(CT_ERR_NULL, "eliminate_common_subexpressions: graph is NULL"); return CT_ERR_NULL; }
    if (g->has_inplace) return CT_OK;   /* in-place writes make equal-looking calls differ: left alone */
    for (int i = 0; i < g->nn; i++) {
        ct__jnode *n = &g->n[i];
        if (n->op < 0 || n->inplace || (ct_op_flags(n->op) & CT_OP_RANDOM)) continue;
        uint64_t h = ct_attrs_hash(n->op, &n->a);
        for (int j = 0; j < i; j++) {
            ct__jnode *m = &g->n[j];
            if (m->op != n->op || m->inplace || m->nin != n->nin || m->nout != n->nout) continue;
            if (memcmp(m->in, n->in, (size_t)n->nin * sizeof(int))) continue;
            if (ct_attrs_hash(m->op, &m->a) != h || !ct_attrs_equal(n->op, &m->a, &n->a)) continue;
            for (int k = 0; k < n->nout; k++) ct__jit_replace(g, n->out[k], m->out[k], i);
            n->op = -1;
            break;
        }
    }
    return ct__jit_drop_nodes(g);
}

/* turns value v into a constant holding t (a new reference is taken). A strided t
   (a folded transpose of a weight) is stored contiguous, as a saved graph loads it:
   the graph then runs the same kernels, on the same layouts, before and after
   ct_graph_save / ct_graph_load (a GEMM may round differently on another layout). */
static int ct__jit_make_const(ct_graph *g, int v, ct_tensor *t) {
    ct_tensor *kept;
    if (ct_is_contiguous(t)) {
        kept = ct_retain(t);
    } else {
        int tok = ct_scope_begin();   /* the copy outlives this scope through the retain only */
        kept = ct_contiguous(t);
        if (kept) kept = ct_retain(kept);
        ct_scope_end(tok);
        if (!kept) return -1;
        t = kept;
    }
    ct__jval *x = &g->v[v];
    x->kind = CT__JV_CONST;
    x->node = -1;
    x->alias = v;
    x->dtype = t->dtype;
    x->ndim = t->ndim;
    memcpy(x->shape, t->shape, sizeof(int64_t) * (size_t)t->ndim);
    x->t = kept;
    return ct__jit_const_name(g, v);
}
CTENSOR_API ct_status ct_jit_constant_propagation(ct_graph *g) {
    if (!g) { ct_set_error(CT_ERR_NULL, "constant_propagation: graph is NULL"); return CT_ERR_NULL; }
    ct_status st = CT_OK;
    for (int i = 0; i < g->nn && !st; i++) {
        ct__jnode *n = &g->n[i];
        if (n->op < 0 || n->inplace || n->nout > 16 || n->nin > 64 || (ct_op_flags(n->op) & (CT_OP_RANDOM | CT_OP_INPLACE))) continue;
        int allc = 1;
        int64_t insz = 0;
        for (int k = 0; k < n->nin && allc; k++) {
            int v = n->in[k];
            if (v < 0) continue;
            allc = g->v[v].kind == CT__JV_CONST;
            if (allc) insz += ct_numel(g->v[v].t);
        }
        if (!allc) continue;
        ct_tensor *ins[64], *outs[16];
        for (int k = 0; k < n->nin; k++) ins[k] = n->in[k] >= 0 ? g->v[n->in[k]].t : NULL;
        int tok = ct_scope_begin();
        int prev = ct_set_grad_enabled(0);
        int r = ct_dispatch(n->op, n->nin, ins, &n->a, NULL, 0, outs, n->nout);
        ct_set_grad_enabled(prev);
        if (r >= 0) {
            int64_t outsz = 0;
            for (int k = 0; k < n->nout; k++) outsz += ct_numel(outs[k]);
            if (outsz <= 4 * insz + 64) {                 /* no folding that materializes an expansion */
                for (int k = 0; k < n->nout && !st; k++) {
                    int nv = ct__jit_new_val(g, CT__JV_CONST, NULL);
                    if (nv < 0 || ct__jit_make_const(g, nv, outs[k])) { st = CT_ERR_MEMORY; break; }
                    ct__jit_replace(g, g->n[i].out[k], nv, i);
                }
                g->n[i].op = -1;
            }
        } else {
            ct_clear_error();                             /* the run will report it */
        }
        ct_scope_end(tok);
    }
    if (st) { ct_set_error(CT_ERR_MEMORY, "constant_propagation: out of memory"); return st; }
    return ct__jit_drop_nodes(g);
}

CTENSOR_API ct_status ct_jit_freeze(ct_graph *g) {
    if (!g) { ct_set_error(CT_ERR_NULL, "freeze: graph is NULL"); return CT_ERR_NULL; }
    for (int v = 0; v < g->nv; v++) {
        ct__jval *x = &g->v[v];
        if (x->kind != CT__JV_PARAM) continue;
        ct_tensor *c = NULL;
        int tok = ct_scope_begin();
        int prev = ct_set_grad_enabled(0);
        c = ct_clone(ct_detach(x->t));
        ct_set_grad_enabled(prev);
        if (c) { ct_release(x->t); x->t = ct_retain(c); x->kind = CT__JV_CONST; }
        ct_scope_end(tok);
        if (!c) return ct_last_error_code();
    }
    ct_status s = ct_jit_constant_propagation(g);
    if (!s) s = ct_jit_eliminate_dead_code(g);
    for (int i = 0; i < g->nn && !s; i++)
        for (int q = 0; q < 2 && !s; q++)
            if (g->n[i].sub[q]) s = ct_jit_freeze(g->n[i].sub[q]);
    return s;
}

/* conv2d(x, W, b) -> batch_norm_eval(., scale, shift): W * scale[:, None, None, None],
   b * scale + shift (the eval-mode batch norm is y = x * scale + shift per channel) */
CTENSOR_API ct_status ct_jit_fold_conv_bn(ct_graph *g) {
    if (!g) { ct_set_error(CT_ERR_NULL, "fold_conv_bn: graph is NULL"); return CT_ERR_NULL; }
    int conv = ct_op_find("aten::conv2d"), bn = ct_op_find("ct::batch_norm_eval");
    if (conv < 0 || bn < 0) return CT_OK;   /* ctensor_nn.h not in this build */
    int *uses = (int *)CT_MALLOC((size_t)(g->nv > 0 ? g->nv : 1) * sizeof(int));
    if (!uses) { ct_set_error(CT_ERR_MEMORY, "fold_conv_bn: out of memory"); return CT_ERR_MEMORY; }
    memset(uses, 0, (size_t)g->nv * sizeof(int));
    for (int i = 0; i < g->nn; i++)
        for (int k = 0; k < g->n[i].nin; k++) if (g->n[i].in[k] >= 0) uses[g->n[i].in[k]]++;
    for (int k = 0; k < g->nout; k++) uses[g->out[k]]++;
    ct_status st = CT_OK;
    for (int i = 0; i < g->nn && !st; i++) {
        ct__jnode *b = &g->n[i];
        if (b->op != bn || b->nin != 3 || b->in[0] < 0 || b->in[1] < 0 || b->in[2] < 0) continue;
        int cv = b->in[0];
        if (g->v[cv].kind != CT__JV_NODE || uses[cv] != 1) continue;
        ct__jnode *c = &g->n[g->v[cv].node];
        if (c->op != conv || c->inplace || (c->nin != 3 && c->nin != 2) || c->in[1] < 0) continue;
        int w = c->in[1], bias = c->nin == 3 ? c->in[2] : -1;   /* a conv without bias traces with two inputs */
        if (g->v[w].kind != CT__JV_CONST || (bias >= 0 && g->v[bias].kind != CT__JV_CONST)) continue;
        if (g->v[b->in[1]].kind != CT__JV_CONST || g->v[b->in[2]].kind != CT__JV_CONST) continue;
        ct_tensor *W = g->v[w].t, *scale = g->v[b->in[1]].t, *shift = g->v[b->in[2]].t;
        if (W->ndim != 4 || scale->ndim != 1 || shift->ndim != 1 || scale->shape[0] != W->shape[0] || shift->shape[0] != W->shape[0]) continue;
        int tok = ct_scope_begin();
        int prev = ct_set_grad_enabled(0);
        const int64_t col[4] = {-1, 1, 1, 1};
        ct_tensor *W2 = ct_mul(W, ct_reshape_n(scale, 4, col));
        ct_tensor *B2 = bias >= 0 ? ct_add(ct_mul(g->v[bias].t, scale), shift) : ct_clone(shift);
        if (W2 && W->dtype != W2->dtype) W2 = ct_to(W2, W->dtype);
        ct_set_grad_enabled(prev);
        if (W2 && B2) {
            int nw = ct__jit_new_val(g, CT__JV_CONST, NULL);
            int nb = nw < 0 ? -1 : ct__jit_new_val(g, CT__JV_CONST, NULL);
            c = &g->n[g->v[cv].node];
            int *in3 = c->nin == 3 ? c->in : (int *)CT_REALLOC(c->in, 3 * sizeof(int));
            if (in3 && c->nin == 2) in3[2] = -1;                  /* None until the folded bias goes in */
            if (in3) { c->in = in3; c->nin = 3; }
            if (nb < 0 || !in3 || ct__jit_make_const(g, nw, W2) || ct__jit_make_const(g, nb, B2)) st = CT_ERR_MEMORY;
            else {
                c = &g->n[g->v[cv].node];
                b = &g->n[i];
                c->in[1] = nw;
                c->in[2] = nb;
                ct__jit_replace(g, b->out[0], cv, i);
                b->op = -1;
            }
        } else {
            ct_clear_error();
        }
        ct_scope_end(tok);
    }
    CT_FREE(uses);
    if (st) { ct_set_error(CT_ERR_MEMORY, "fold_conv_bn: out of memory"); return st; }
    return ct__jit_drop_nodes(g);
}

/* addmm(b, x, Wt) or mm(x, Wt) (a linear layer: Wt is the frozen, transposed
   weight [in, out]) followed by eval-mode batch norm over its columns:
   addmm(b * scale + shift, x, Wt * scale[None, :]) (beta 1; alpha kept). */
CTENSOR_API ct_status ct_jit_fold_linear_bn(ct_graph *g) {
    if (!g) { ct_set_error(CT_ERR_NULL, "fold_linear_bn: graph is NULL"); return CT_ERR_NULL; }
    int addmm = ct_op_find("aten::addmm"), mm = ct_op_find("aten::mm"), bn = ct_op_find("ct::batch_norm_eval");
    if (addmm < 0 || mm < 0 || bn < 0) return CT_OK;   /* ctensor_nn.h not in this build */
    int *uses = (int *)CT_MALLOC((size_t)(g->nv > 0 ? g->nv : 1) * sizeof(int));
    if (!uses) { ct_set_error(CT_ERR_MEMORY, "fold_linear_bn: out of memory"); return CT_ERR_MEMORY; }
    memset(uses, 0, (size_t)g->nv * sizeof(int));
    for (int i = 0; i < g->nn; i++)
        for (int k = 0; k < g->n[i].nin; k++) if (g->n[i].in[k] >= 0) uses[g->n[i].in[k]]++;
    for (int k = 0; k < g->nout; k++) uses[g->out[k]]++;
    ct_status st = CT_OK;
    for (int i = 0; i < g->nn && !st; i++) {
        ct__jnode *b = &g->n[i];
        if (b->op != bn || b->nin != 3 || b->in[0] < 0 || b->in[1] < 0 || b->in[2] < 0) continue;
        int pv = b->in[0];
        if (g->v[pv].kind != CT__JV_NODE || uses[pv] != 1) continue;
        ct__jnode *p = &g->n[g->v[pv].node];
        int isaddmm = p->op == addmm && p->nin == 3, ismm = p->op == mm && p->nin == 2;
        if ((!isaddmm && !ismm) || p->inplace) continue;
        int w = p->in[isaddmm ? 2 : 1], bias = isaddmm ? p->in[0] : -1;
        if (w < 0 || g->v[w].kind != CT__JV_CONST || (isaddmm && (bias < 0 || g->v[bias].kind != CT__JV_CONST))) continue;
        if (g->v[b->in[1]].kind != CT__JV_CONST || g->v[b->in[2]].kind != CT__JV_CONST) continue;
        ct_tensor *Wt = g->v[w].t, *scale = g->v[b->in[1]].t, *shift = g->v[b->in[2]].t;
        int64_t O = Wt->ndim == 2 ? Wt->shape[1] : -1;
        if (O < 0 || scale->ndim != 1 || shift->ndim != 1 || scale->shape[0] != O || shift->shape[0] != O) continue;
        if (isaddmm) {
            ct_attr_value beta;
            ct_tensor *B = g->v[bias].t;
            if (ct_attrs_get(p->op, &p->a, "beta", &beta) || beta.f != 1.0) { ct_clear_error(); continue; }
            if (B->ndim != 1 || B->shape[0] != O) continue;
        }
        int tok = ct_scope_begin();
        int prev = ct_set_grad_enabled(0);
        ct_tensor *W2 = ct_mul(Wt, scale);                        /* scale broadcasts over the rows */
        ct_tensor *B2 = isaddmm ? ct_add(ct_mul(g->v[bias].t, scale), shift) : ct_clone(shift);
        if (W2 && Wt->dtype != W2->dtype) W2 = ct_to(W2, Wt->dtype);
        if (B2 && Wt->dtype != B2->dtype) B2 = ct_to(B2, Wt->dtype);
        ct_set_grad_enabled(prev);
        if (W2 && B2) {
            int nw = ct__jit_new_val(g, CT__JV_CONST, NULL);
            int nb = nw < 0 ? -1 : ct__jit_new_val(g, CT__JV_CONST, NULL);
            int *nin = nb < 0 || !ismm ? NULL : (int *)CT_MALLOC(3 * sizeof(int));
            if (nb < 0 || (ismm && !nin) || ct__jit_make_const(g, nw, W2) || ct__jit_make_const(g, nb, B2)) {
                CT_FREE(nin);
                st = CT_ERR_MEMORY;
            } else {
                p = &g->n[g->v[pv].node];
                b = &g->n[i];
                if (ismm) {                                       /* mm becomes addmm with the shift as its bias */
                    nin[1] = p->in[0];
                    CT_FREE(p->in);
                    p->in = nin;
                    p->nin = 3;
                    p->op = addmm;
                    ct_attrs_defaults(addmm, &p->a);
                }
                p->in[0] = nb;
                p->in[2] = nw;
                ct__jit_replace(g, b->out[0], pv, i);
                b->op = -1;
            }
        } else {
            ct_clear_error();
        }
        ct_scope_end(tok);
    }
    CT_FREE(uses);
    if (st) { ct_set_error(CT_ERR_MEMORY, "fold_linear_bn: out of memory"); return st; }
    return ct__jit_drop_nodes(g);
}

/* Elementwise fusion. A node joins an open group when it is a float unary or
   binary elementwise op of the group's dtype and shape (its other operands: any
   value of that shape, or a one-element value), and one of its inputs is made by
   the group. A group closes when any node outside it reads one of its values,
   so every outside reader comes after the group's last member: the fused node
   takes that member's place. Values read outside (or returned) are its outputs. */
static int ct__jit_fusable(const ct_graph *g, const ct__jnode *n) {
    if (n->op < 0 || n->inplace || n->nout != 1 || !ct__jit_is_fusable_kernel(n->op)) return 0;
    const ct__jval *o = &g->v[n->out[0]];
    if (o->ndim < 0 || (o->dtype != CT_FLOAT32 && o->dtype != CT_FLOAT64)) return 0;
    if (!ct__jit_loop_of(n->op, o->dtype)) return 0;
    for (int k = 0; k < n->nin; k++) {
        if (n->in[k] < 0) return 0;
        const ct__jval *x = &g->v[n->in[k]];
        if (x->ndim < 0 || x->dtype != o->dtype) return 0;
        int64_t ne = 1;
        for (int d = 0; d < x->ndim; d++) ne *= x->shape[d];
        int same = x->ndim == o->ndim && !memcmp(x->shape, o->shape, sizeof(int64_t) * (size_t)o->ndim);
        if (!same && !(ne == 1 && x->ndim <= o->ndim)) return 0;
    }
    return 1;
}
CTENSOR_API ct_status ct_jit_fuse_elementwise(ct_graph *g) {
    if (!g) { ct_set_error(CT_ERR_NULL, "fuse_elementwise: graph is NULL"); return CT_ERR_NULL; }
    int nn = g->nn;
    int *grp = (int *)CT_MALLOC((size_t)(nn > 0 ? nn : 1) * sizeof(int));       /* node -> group (its first node), -1 */
    char *closed = (char *)CT_MALLOC((size_t)(nn > 0 ? nn : 1));
    int *cnt = (int *)CT_MALLOC((size_t)(nn > 0 ? nn : 1) * sizeof(int));
    ct_status st = CT_OK;
    if (!grp || !closed || !cnt) { st = CT_ERR_MEMORY; goto done; }
    for (int i = 0; i < nn; i++) { grp[i] = -1; closed[i] = 0; cnt[i] = 0; }
    for (int i = 0; i < nn; i++) {
        ct__jnode *n = &g->n[i];
        int join = -1;
        if (ct__jit_fusable(g, n)) {
            for (int k = 0; k < n->nin && join < 0; k++) {
                const ct__jval *x = &g->v[n->in[k]];
                if (x->kind != CT__JV_NODE) continue;
                int G = grp[x->node];
                if (G < 0 || closed[G] || cnt[G] >= 200) continue;
                const ct__jval *o = &g->v[n->out[0]], *go = &g->v[g->n[G].out[0]];
                if (o->dtype == go->dtype && o->ndim == go->ndim && !memcmp(o->shape, go->shape, sizeof(int64_t) * (size_t)o->ndim))
                    join = G;
            }
            if (join < 0) join = i;                       /* a new group */
            grp[i] = join;
            cnt[join]++;
        }
        /* readers outside a group close it */
        for (int k = 0; k < n->nin; k++) {
            if (n->in[k] < 0) continue;
            const ct__jval *x = &g->v[n->in[k]];
            if (x->kind != CT__JV_NODE) continue;
            int G = grp[x->node];
            if (G >= 0 && G != grp[i]) closed[G] = 1;
        }
    }
    for (int G = 0; G < nn && !st; G++) {
        if (cnt[G] < 2 || grp[G] != G) continue;
        /* members, in order; external inputs; outputs (values read outside or returned) */
        int nops = cnt[G], nin = 0, nout = 0, k = 0;
        ct__jfused *f = (ct__jfused *)CT_MALLOC(sizeof *f);
        int *mem = (int *)CT_MALLOC((size_t)nops * sizeof(int));
        int ext[64], outs[16], outsrc[16];
        if (!f || !mem) { CT_FREE(f); CT_FREE(mem); st = CT_ERR_MEMORY; break; }
        memset(f, 0, sizeof *f);
        for (int i = G; i < nn; i++) if (grp[i] == G) mem[k++] = i;
        f->nops = nops;
        f->ops = (ct__jfop *)CT_MALLOC((size_t)nops * sizeof(ct__jfop));
        f->slot = (int *)CT_MALLOC((size_t)nops * sizeof(int));
        if (!f->ops || !f->slot) { ct__jit_fused_free(f); CT_FREE(mem); st = CT_ERR_MEMORY; break; }
        int ok = 1;
        for (int m = 0; m < nops && ok; m++) {
            const ct__jnode *n = &g->n[mem[m]];
            ct__jfop *o = &f->ops[m];
            o->op = n->op;
            o->a = n->a;
            o->nin = n->nin;
            for (int j = 0; j < n->nin; j++) {
                int v = n->in[j], src = 0, found = 0;
                for (int q = 0; q < m && !found; q++) if (g->n[mem[q]].out[0] == v) { src = -(q + 1); found = 1; }
                if (!found) {
                    for (int q = 0; q < nin && !found; q++) if (ext[q] == v) { src = q; found = 1; }
                    if (!found) {
                        if (nin == 64) { ok = 0; break; }
                        ext[nin] = v;
                        src = nin++;
                    }
                }
                o->src[j] = src;
            }
        }
        /* which member values are read outside the group */
        for (int m = 0; m < nops && ok; m++) {
            int v = g->n[mem[m]].out[0], outside = 0;
            for (int i = 0; i < nn && !outside; i++) {
                if (grp[i] == G) continue;
                for (int j = 0; j < g->n[i].nin; j++) if (g->n[i].in[j] == v) outside = 1;
            }
            for (int j = 0; j < g->nout; j++) if (g->out[j] == v) outside = 1;
            if (outside) {
                if (nout == 16) { ok = 0; break; }
                outs[nout] = v;
                outsrc[nout++] = m;
            }
        }
        if (!ok || nout == 0) { ct__jit_fused_free(f); CT_FREE(mem); continue; }
        ct__jit_assign_slots(f, outsrc, nout);
        /* the fused node replaces the last member; the others go */
        int at = mem[nops - 1];
        ct__jnode *dst = &g->n[at];
        CT_FREE(dst->in);
        CT_FREE(dst->out);
        dst->in = ct__jit_idup(ext, nin);
        dst->out = ct__jit_idup(outs, nout);
        if (!dst->in || !dst->out) { ct__jit_fused_free(f); CT_FREE(mem); st = CT_ERR_MEMORY; break; }
        dst->op = CT__JIT_FUSED;
        dst->nin = nin;
        dst->nout = nout;
        dst->inplace = 0;
        memset(&dst->a, 0, sizeof dst->a);
        dst->fz = f;
        for (int m = 0; m < nops - 1; m++) g->n[mem[m]].op = -1;
        CT_FREE(mem);
    }
done:
    CT_FREE(grp);
    CT_FREE(closed);
    CT_FREE(cnt);
    if (st) { ct_set_error(CT_ERR_MEMORY, "fuse_elementwise: out of memory"); return st; }
    return ct__jit_drop_nodes(g);
}

CTENSOR_API ct_status ct_jit_fuse_activation(ct_graph *g) {
    if (!g) { ct_set_error(CT_ERR_NULL, "fuse_activation: graph is NULL"); return CT_ERR_NULL; }
    static const char *const names[] = {"aten::conv2d", "aten::addmm", "aten::mm",            /* products */
                                        "aten::relu", "aten::relu6", "aten::hardtanh", "aten::leaky_relu",
                                        "aten::silu", "aten::gelu", "aten::sigmoid", "aten::tanh"};
    enum { NPROD = 3, NNAMES = sizeof names / sizeof names[0] };
    int ids[NNAMES];
    for (int k = 0; k < NNAMES; k++) ids[k] = ct_op_find(names[k]);   /* -1 without ctensor_nn.h's conv2d */
    int crelu = ct_op_find("ct::conv2d_relu");
    int *uses = (int *)CT_MALLOC((size_t)(g->nv > 0 ? g->nv : 1) * sizeof(int));
    if (!uses) { ct_set_error(CT_ERR_MEMORY, "fuse_activation: out of memory"); return CT_ERR_MEMORY; }
    memset(uses, 0, (size_t)g->nv * sizeof(int));
    for (int i = 0; i < g->nn; i++)
        for (int k = 0; k < g->n[i].nin; k++) if (g->n[i].in[k] >= 0) uses[g->n[i].in[k]]++;
    for (int k = 0; k < g->nout; k++) uses[g->out[k]] += 2;
    for (int i = 0; i < g->nn; i++) {
        ct__jnode *n = &g->n[i];
        if (n->op < 0 || n->inplace || n->nin != 1 || n->in[0] < 0) continue;
        int isact = 0, isprod = 0;
        for (int k = NPROD; k < NNAMES; k++) isact |= n->op == ids[k];
        const ct__jval *x = &g->v[n->in[0]];
        if (!isact || x->kind != CT__JV_NODE || x->alias != n->in[0] || uses[n->in[0]] != 1) continue;
        const ct__jnode *p = &g->n[x->node];
        for (int k = 0; k < NPROD; k++) isprod |= ids[k] >= 0 && p->op == ids[k];
        if (!isprod || x->dtype != g->v[n->out[0]].dtype) continue;
        const ct_tensor *w = p->nin >= 2 && p->in[1] >= 0 ? g->v[p->in[1]].t : NULL;
        if (n->op == ids[NPROD] && p->op == ids[0] && crelu >= 0 && p->nout == 1 && w && ct_device_eq(w->device, ct__cpu_dev)) {
            /* conv2d + relu: one ct::conv2d_relu (ctensor_nn.h's convolution with relu in
               its epilogue: the product is written once, already rectified); CPU kernels
               only, so a constant weight on the CPU */
            g->n[x->node].op = crelu;
            ct__jit_replace(g, n->out[0], n->in[0], i);
            n->op = -1;
            continue;
        }
        n->inplace = 1;
        g->v[n->out[0]].alias = n->in[0];
    }
    CT_FREE(uses);
    if (ct__jit_drop_nodes(g)) return ct_last_error_code();
    return ct__jit_finish(g);
}

/* algebraic simplification: identities that hold for every float (NaN and signed
   zeros included), and x / sqrt(y) as x * rsqrt(y) */
static int ct__jit_const_scalar(const ct_graph *g, int v, double *val) {
    if (v < 0 || g->v[v].kind != CT__JV_CONST || !g->v[v].t || ct_numel(g->v[v].t) != 1) return 0;
    ct_tensor *t = g->v[v].t;
    if (t->dtype != CT_FLOAT32 && t->dtype != CT_FLOAT64) return 0;
    *val = ct_item(t);
    return 1;
}
/* whether value a has value r's dtype and shape (so r can be replaced by a) */
static int ct__jit_same_type(const ct_graph *g, int a, int r) {
    const ct__jval *x = &g->v[a], *y = &g->v[r];
    if (x->ndim < 0 || y->ndim < 0 || x->dtype != y->dtype || x->ndim != y->ndim) return 0;
    return !memcmp(x->shape, y->shape, sizeof(int64_t) * (size_t)x->ndim);
}
/* Sign analysis: whether every element of value v has its sign bit clear or is NaN
   ("at least +0"), from what produced it: a float scalar constant >= +0; exp,
   sigmoid and abs of anything; sqrt, rsqrt and relu of such a value; the product,
   quotient, sum (alpha >= 0), maximum and minimum of two such values. Float32 and
   float64 values only (integers wrap). */
static int ct__jit_signclear(const ct_graph *g, const unsigned char *pos, int v) {
    double c;
    if (v < 0) return 0;
    if (g->v[v].kind == CT__JV_CONST) return ct__jit_const_scalar(g, v, &c) && c >= 0.0 && !signbit(c);
    return g->v[v].kind == CT__JV_NODE && pos[v];
}
static int ct__jit_signclear_out(const ct_graph *g, const unsigned char *pos, const ct__jnode *n) {
    ct_dtype dt = g->v[n->out[0]].dtype;
    if (dt != CT_FLOAT32 && dt != CT_FLOAT64) return 0;
    int a = n->nin >= 1 && ct__jit_signclear(g, pos, n->in[0]), b = n->nin >= 2 && ct__jit_signclear(g, pos, n->in[1]);
    switch (n->op) {
    case CT__OP_EXP: case CT__OP_SIGMOID: case CT__OP_ABS: return n->nin == 1;
    case CT__OP_SQRT: case CT__OP_RSQRT: case CT__OP_RELU: return n->nin == 1 && a;
    case CT__OP_MUL: case CT__OP_DIV: case CT__OP_MAXIMUM: case CT__OP_MINIMUM: return n->nin == 2 && a && b;
    case CT__OP_ADD: return n->nin == 2 && a && b && n->a.s[0] >= 0.0;
    default: return 0;
    }
}
CTENSOR_API ct_status ct_jit_simplify(ct_graph *g) {
    if (!g) { ct_set_error(CT_ERR_NULL, "simplify: graph is NULL"); return CT_ERR_NULL; }
    if (g->has_inplace) return CT_OK;   /* in-place writes make aliases observable: left alone */
    int *uses = (int *)CT_MALLOC((size_t)(g->nv > 0 ? g->nv : 1) * (sizeof(int) + 1));
    if (!uses) { ct_set_error(CT_ERR_MEMORY, "simplify: out of memory"); return CT_ERR_MEMORY; }
    unsigned char *pos = (unsigned char *)(uses + (g->nv > 0 ? g->nv : 1));   /* ct__jit_signclear */
    memset(uses, 0, (size_t)(g->nv > 0 ? g->nv : 1) * (sizeof(int) + 1));
    for (int i = 0; i < g->nn; i++)
        for (int k = 0; k < g->n[i].nin; k++) if (g->n[i].in[k] >= 0) uses[g->n[i].in[k]]++;
    for (int k = 0; k < g->nout; k++) uses[g->out[k]]++;
    for (int i = 0; i < g->nn; i++) {
        ct__jnode *n = &g->n[i];
        if (n->op < 0 || n->inplace || n->nout != 1 || n->sub[0]) continue;
        int o = n->out[0], keep = -1;
        double c;
        if (n->op == CT__OP_MUL && n->nin == 2) {                       /* x * 1, 1 * x */
            if (ct__jit_const_scalar(g, n->in[1], &c) && c == 1.0) keep = n->in[0];
            else if (ct__jit_const_scalar(g, n->in[0], &c) && c == 1.0) keep = n->in[1];
        } else if (n->op == CT__OP_DIV && n->nin == 2) {                /* x / 1 */
            if (ct__jit_const_scalar(g, n->in[1], &c) && c == 1.0) keep = n->in[0];
        } else if (n->op == CT__OP_ADD && n->nin == 2 && n->a.s[0] == 1.0) {   /* x + (-0), (-0) + x */
            if (ct__jit_const_scalar(g, n->in[1], &c) && c == 0.0 && signbit(c)) keep = n->in[0];
            else if (ct__jit_const_scalar(g, n->in[0], &c) && c == 0.0 && signbit(c)) keep = n->in[1];
        } else if (n->op == CT__OP_SUB && n->nin == 2 && n->a.s[0] == 1.0) {   /* x - (+0) */
            if (ct__jit_const_scalar(g, n->in[1], &c) && c == 0.0 && !signbit(c)) keep = n->in[0];
        } else if (n->op == CT__OP_NEG && n->nin == 1 && n->in[0] >= 0 && g->v[n->in[0]].kind == CT__JV_NODE) {
            const ct__jnode *m = &g->n[g->v[n->in[0]].node];                /* neg(neg(x)) */
            if (m->op == CT__OP_NEG && !m->inplace) keep = m->in[0];
        } else if ((n->op == CT__OP_ABS || n->op == CT__OP_RELU) && n->nin == 1 && ct__jit_signclear(g, pos, n->in[0])) {
            keep = n->in[0];                                            /* abs(x), relu(x) of x >= +0 */
        }
        if (keep >= 0 && ct__jit_same_type(g, keep, o)) {
            ct__jit_replace(g, o, keep, i);
            uses[keep] += uses[o];
            n->op = -1;
            for (int k = 0; k < n->nin; k++) if (n->in[k] >= 0) uses[n->in[k]]--;
            continue;
        }
        pos[o] = (unsigned char)ct__jit_signclear_out(g, pos, n);
        /* x / sqrt(y) -> x * rsqrt(y), the sqrt's only reader being this division */
        if (n->op == CT__OP_DIV && n->nin == 2 && n->in[1] >= 0 && g->v[n->in[1]].kind == CT__JV_NODE && uses[n->in[1]] == 1 &&
            (g->v[o].dtype == CT_FLOAT32 || g->v[o].dtype == CT_FLOAT64)) {
            ct__jnode *m = &g->n[g->v[n->in[1]].node];
            if (m->op == CT__OP_SQRT && !m->inplace && m->nin == 1) {
                m->op = CT__OP_RSQRT;
                ct_attrs_defaults(CT__OP_RSQRT, &m->a);
                n->op = CT__OP_MUL;
                ct_attrs_defaults(CT__OP_MUL, &n->a);
            }
        }
    }
    CT_FREE(uses);
    return ct_jit_eliminate_dead_code(g);
}
CTENSOR_API ct_status ct_jit_optimize(ct_graph *g) {
    if (!g) { ct_set_error(CT_ERR_NULL, "optimize: graph is NULL"); return CT_ERR_NULL; }
    ct_status s = ct_jit_freeze(g);
    if (!s) s = ct_jit_fold_conv_bn(g);
    if (!s) s = ct_jit_fold_linear_bn(g);
    if (!s) s = ct_jit_eliminate_common_subexpressions(g);
    if (!s) s = ct_jit_simplify(g);
    if (!s) s = ct_jit_fuse_elementwise(g);
    if (!s) s = ct_jit_fuse_activation(g);
    for (int i = 0; i < g->nn && !s; i++)          /* the blocks of control-flow nodes too */
        for (int q = 0; q < 2 && !s; q++)
            if (g->n[i].sub[q]) s = ct_jit_optimize(g->n[i].sub[q]);
    return s;
}

#endif /* !CTENSOR_JIT_LITE: the passes */

/* ---- inspecting, verifying, building -------------------------------------- */
CTENSOR_API int ct_graph_num_inputs(const ct_graph *g) { return g ? g->nin : -1; }
CTENSOR_API int ct_graph_num_outputs(const ct_graph *g) { return g ? g->nout : -1; }
CTENSOR_API int ct_graph_num_nodes(const ct_graph *g) { return g ? g->nn : -1; }
CTENSOR_API int ct_graph_num_warnings(const ct_graph *g) { return g ? g->nwarn : -1; }
CTENSOR_API const char *ct_graph_warning(const ct_graph *g, int i) { return g && i >= 0 && i < g->nwarn ? g->warn[i] : NULL; }
CTENSOR_API int ct_graph_count_op(const ct_graph *g, const char *name) {
    if (!g || !name) { ct_set_error(CT_ERR_NULL, "graph_count_op: NULL argument"); return -1; }
    int op = !strcmp(name, "prim::FusedElementwise") ? CT__JIT_FUSED : !strcmp(name, "prim::If") ? CT__JIT_IF
           : !strcmp(name, "prim::Loop") ? CT__JIT_LOOP : ct_op_find(name), c = 0;
    if (op == -1) return 0;
    for (int i = 0; i < g->nn; i++) c += g->n[i].op == op;
    return c;
}
static int ct__jit_cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }
static void ct__jit_mark_ops(const ct_graph *g, char *seen, int nops) {
    for (int i = 0; i < g->nn; i++) {
        const ct__jnode *n = &g->n[i];
        int cnt = n->op == CT__JIT_FUSED ? n->fz->nops : 1;
        for (int k = 0; k < cnt; k++) {
            int op = n->op == CT__JIT_FUSED ? n->fz->ops[k].op : n->op;
            if (op >= 0 && op < nops) seen[op] = 1;
        }
        for (int q = 0; q < 2; q++) if (n->sub[q]) ct__jit_mark_ops(n->sub[q], seen, nops);
    }
}
CTENSOR_API int ct_graph_ops_used(const ct_graph *g, const char **names, int cap) {
    if (!g) { ct_set_error(CT_ERR_NULL, "graph_ops_used: graph is NULL"); return -1; }
    int nops = ct_num_ops(), c = 0;
    char *seen = (char *)CT_MALLOC((size_t)nops + 1);
    if (!seen) { ct_set_error(CT_ERR_MEMORY, "graph_ops_used: out of memory"); return -1; }
    memset(seen, 0, (size_t)nops + 1);
    ct__jit_mark_ops(g, seen, nops);
    for (int op = 0; op < nops; op++) {
        if (!seen[op]) continue;
        if (names && c < cap) names[c] = ct_op_schema_name(op);
        c++;
    }
    CT_FREE(seen);
    if (names) qsort((void *)names, (size_t)(c < cap ? c : cap), sizeof(const char *), ct__jit_cmp_str);
    return c;
}
CTENSOR_API ct_status ct_graph_set_dynamic_batch(ct_graph *g, int on) {
    if (!g) { ct_set_error(CT_ERR_NULL, "graph_set_dynamic_batch: graph is NULL"); return CT_ERR_NULL; }
    for (int i = 0; on && i < g->nin; i++)
        if (g->v[g->in[i]].ndim == 0) {
            ct_set_error(CT_ERR_ARG, "graph_set_dynamic_batch: input %d (%%%s) is 0-dimensional: it has no batch dimension", i, g->v[g->in[i]].name);
            return CT_ERR_ARG;
        }
    g->dyn_batch = on != 0;
    /* a view whose size keeps dimension 0 as it is and the rest's product (what a
       traced flatten(x, 1) or x.view(N, -1) records, with N baked in) takes -1 there:
       the same result for the traced batch, the batch's size for any other */
    for (int i = 0; on && i < g->nn; i++) {
        ct__jnode *n = &g->n[i];
        if (n->op != CT__OP_VIEW || n->nin != 1 || n->in[0] < 0 || n->a.nv < 1) continue;
        const ct__jval *x = &g->v[n->in[0]];
        if (x->ndim < 1 || n->a.v[0] != x->shape[0]) continue;
        int64_t p = 1, q = 1;
        for (int d = 1; d < x->ndim; d++) p *= x->shape[d];
        for (int d = 1; d < n->a.nv; d++) q = n->a.v[d] < 0 ? -1 : q * n->a.v[d];
        if (p == q && p > 0) n->a.v[0] = -1;
    }
    return CT_OK;
}

static ct_status ct__jit_bad(const char *what, int at, const char *msg) {
    ct_set_error(CT_ERR_STATE, "graph_verify: %s %d: %s", what, at, msg);
    return CT_ERR_STATE;
}
CTENSOR_API ct_status ct_graph_verify(const ct_graph *g) {
    if (!g) { ct_set_error(CT_ERR_NULL, "graph_verify: graph is NULL"); return CT_ERR_NULL; }
    char *def = (char *)CT_MALLOC((size_t)(g->nv > 0 ? g->nv : 1));
    if (!def) { ct_set_error(CT_ERR_MEMORY, "graph_verify: out of memory"); return CT_ERR_MEMORY; }
    memset(def, 0, (size_t)g->nv);
    ct_status st = CT_OK;
    char msg[200];
    for (int v = 0; v < g->nv && !st; v++) {
        const ct__jval *x = &g->v[v];
        if ((x->kind == CT__JV_PARAM || x->kind == CT__JV_CONST) && !x->t) st = ct__jit_bad("value", v, "a constant without a tensor");
        else if (x->kind != CT__JV_NODE && !x->name) st = ct__jit_bad("value", v, "an input or constant without a name");
        else if (x->alias < 0 || x->alias >= g->nv) st = ct__jit_bad("value", v, "alias out of range");
        if (x->kind == CT__JV_PARAM || x->kind == CT__JV_CONST) def[v] = 1;
    }
    for (int i = 0; i < g->nin && !st; i++) {
        int v = g->in[i];
        if (v < 0 || v >= g->nv || g->v[v].kind != CT__JV_INPUT) st = ct__jit_bad("input", i, "not an input value");
        else def[v] = 1;
    }
    for (int i = 0; i < g->nn && !st; i++) {
        const ct__jnode *n = &g->n[i];
        for (int k = 0; k < n->nin && !st; k++) {
            int v = n->in[k];
            if (v < -1 || v >= g->nv) st = ct__jit_bad("node", i, "an input value out of range");
            else if (v >= 0 && !def[v]) {
                snprintf(msg, sizeof msg, "input %d (value %d) is used before it is defined", k, v);
                st = ct__jit_bad("node", i, msg);
            }
        }
        if (st) break;
        if (n->op == CT__JIT_FUSED) {
            const ct__jfused *f = n->fz;
            if (!f || f->nops < 1) { st = ct__jit_bad("node", i, "a fused node without a program"); break; }
            int seen = 0;
            for (int k = 0; k < f->nops && !st; k++) {
                const ct__jfop *o = &f->ops[k];
                if (ct__jit_is_fusable_kernel(o->op) != o->nin) st = ct__jit_bad("node", i, "a fused op that is not elementwise");
                for (int j = 0; j < o->nin && !st; j++)
                    if (o->src[j] >= n->nin || o->src[j] < -k) st = ct__jit_bad("node", i, "a fused operand out of range");
                if (f->slot[k] < -n->nout || f->slot[k] >= f->nslots) st = ct__jit_bad("node", i, "a fused slot out of range");
                if (f->slot[k] < 0) seen++;
            }
            if (!st && seen != n->nout) st = ct__jit_bad("node", i, "fused outputs do not match the node's");
        } else if (n->op == CT__JIT_IF || n->op == CT__JIT_LOOP) {
            int isif = n->op == CT__JIT_IF;
            int want_in = isif ? n->nin - 1 : n->nout + 1, want_out = isif ? n->nout : n->nout + 1;
            for (int q = 0; q < (isif ? 2 : 1) && !st; q++) {
                const ct_graph *sub = n->sub[q];
                if (!sub) st = ct__jit_bad("node", i, "a control-flow node without its block");
                else if (sub->nin != want_in || sub->nout != want_out || (!isif && n->nin != n->nout + 2) || (isif && n->nin < 1))
                    st = ct__jit_bad("node", i, "a block's inputs or outputs do not match its node");
                else if (ct_graph_verify(sub)) {
                    char m[160];
                    ct__jit_errcopy(m, sizeof m);
                    st = ct__jit_bad("node", i, m);
                }
            }
        } else if (n->op < 0 || n->op >= ct_num_ops()) {
            st = ct__jit_bad("node", i, "an unknown op");
        } else {
            int want_in = ct_op_num_inputs(n->op), want_out = ct_op_num_outputs(n->op);
            if ((want_in >= 0 && want_in != n->nin) || want_out != n->nout) {
                snprintf(msg, sizeof msg, "%s takes %d inputs and %d outputs, the node has %d and %d", ct_op_schema_name(n->op),
                         want_in, want_out, n->nin, n->nout);
                st = ct__jit_bad("node", i, msg);
            }
        }
        for (int k = 0; k < n->nout && !st; k++) {
            int v = n->out[k];
            if (v < 0 || v >= g->nv || g->v[v].kind != CT__JV_NODE || def[v]) st = ct__jit_bad("node", i, "an output value defined twice or out of range");
            else def[v] = 1;
        }
    }
    for (int k = 0; k < g->nout && !st; k++)
        if (g->out[k] < 0 || g->out[k] >= g->nv || !def[g->out[k]]) st = ct__jit_bad("output", k, "not defined");
    CT_FREE(def);
    return st;
}

static int ct__jit_name_ok(const ct_graph *g, const char *name, const char *fn) {
    if (!name || !*name) return 1;
    int digits = 1;
    for (const char *p = name; *p; p++) {
        if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '.')) {
            ct_set_error(CT_ERR_ARG, "%s: name '%s' has a character other than letters, digits, '_' and '.'", fn, name);
            return 0;
        }
        if (!isdigit((unsigned char)*p)) digits = 0;
    }
    if (digits) { ct_set_error(CT_ERR_ARG, "%s: name '%s' is all digits (node values are numbered)", fn, name); return 0; }
    for (int v = 0; v < g->nv; v++)
        if (g->v[v].name && !strcmp(g->v[v].name, name)) { ct_set_error(CT_ERR_ARG, "%s: name '%s' is already used", fn, name); return 0; }
    return 1;
}
CTENSOR_API int ct_graph_add_input(ct_graph *g, const char *name, ct_dtype dt, int ndim, const int64_t *shape) {
    if (!g) { ct_set_error(CT_ERR_NULL, "graph_add_input: graph is NULL"); return -1; }
    if (ndim > CT_MAX_DIMS || (ndim > 0 && !shape)) { ct_set_error(CT_ERR_ARG, "graph_add_input: ndim %d (at most %d) with shape %p", ndim, CT_MAX_DIMS, (const void *)shape); return -1; }
    if ((unsigned)dt >= CT_NUM_DTYPES) { ct_set_error(CT_ERR_DTYPE, "graph_add_input: invalid dtype %d", (int)dt); return -1; }
    for (int d = 0; d < ndim; d++)
        if (shape[d] < 0) { ct_set_error(CT_ERR_SHAPE, "graph_add_input: dimension %d is %lld", d, (long long)shape[d]); return -1; }
    if (!ct__jit_name_ok(g, name, "graph_add_input")) return -1;
    int *ni = (int *)CT_REALLOC(g->in, (size_t)(g->nin + 1) * sizeof(int));
    if (!ni) { ct_set_error(CT_ERR_MEMORY, "graph_add_input: out of memory"); return -1; }
    g->in = ni;
    int id = ct__jit_new_val(g, CT__JV_INPUT, NULL);
    if (id < 0) { ct_set_error(CT_ERR_MEMORY, "graph_add_input: out of memory"); return -1; }
    char buf[24];
    snprintf(buf, sizeof buf, "x%d", g->nin);
    g->v[id].name = ct__jit_strdup(name && *name ? name : buf);
    g->v[id].dtype = dt;
    g->v[id].ndim = ndim < 0 ? -1 : ndim;
    for (int d = 0; d < ndim; d++) g->v[id].shape[d] = shape[d];
    g->in[g->nin++] = id;
    return ct__jit_finish(g) ? -1 : id;
}
CTENSOR_API int ct_graph_add_constant(ct_graph *g, const char *name, ct_tensor *t) {
    if (!g || !t) { ct_set_error(CT_ERR_NULL, "graph_add_constant: %s is NULL", g ? "tensor" : "graph"); return -1; }
    if (!ct__jit_name_ok(g, name, "graph_add_constant")) return -1;
    int id = ct__jit_new_val(g, CT__JV_CONST, t);
    if (id < 0) { ct_set_error(CT_ERR_MEMORY, "graph_add_constant: out of memory"); return -1; }
    g->v[id].t = ct_retain(t);
    if (name && *name) g->v[id].name = ct__jit_strdup(name);
    else ct__jit_const_name(g, id);
    if (!g->v[id].name) { ct_set_error(CT_ERR_MEMORY, "graph_add_constant: out of memory"); return -1; }
    return id;
}
CTENSOR_API int ct_graph_add_node(ct_graph *g, const char *op, int nin, const int *inputs, const ct_attrs *attrs, int nout, int *outputs) {
    if (!g || !op) { ct_set_error(CT_ERR_NULL, "graph_add_node: %s is NULL", g ? "op" : "graph"); return -1; }
    int id = ct_op_find(op);
    if (id < 0) { ct_set_error(CT_ERR_ARG, "graph_add_node: no op named '%s' in this build", op); return -1; }
    int want_in = ct_op_num_inputs(id), want_out = ct_op_num_outputs(id);
    if (nin < 0 || nin > 64 || (want_in >= 0 && nin != want_in) || (nin > 0 && !inputs)) {
        ct_set_error(CT_ERR_ARG, "graph_add_node: %s takes %d inputs, got %d", ct_op_schema_name(id), want_in, nin);
        return -1;
    }
    if (nout != want_out || (nout > 0 && !outputs)) {
        ct_set_error(CT_ERR_ARG, "graph_add_node: %s has %d outputs, asked for %d", ct_op_schema_name(id), want_out, nout);
        return -1;
    }
    for (int k = 0; k < nin; k++)
        if (inputs[k] < -1 || inputs[k] >= g->nv || (inputs[k] >= 0 && g->v[inputs[k]].kind == CT__JV_NODE && g->v[inputs[k]].node < 0)) {
            ct_set_error(CT_ERR_INDEX, "graph_add_node: %s input %d is value %d, which is not defined (the graph has %d values)",
                         ct_op_schema_name(id), k, inputs[k], g->nv);
            return -1;
        }
    ct_attrs a;
    if (attrs) a = *attrs;
    else if (ct_attrs_defaults(id, &a)) return -1;
    char tmp[1024];
    ct_attrs chk;
    ct_attrs_repr(id, &a, tmp, sizeof tmp);      /* the schema's check: what text round-trips is valid */
    if (ct_attrs_parse(id, tmp, &chk)) return -1;
    int node = ct__jit_add_node(g, id, &a, (ct_op_flags(id) & CT_OP_INPLACE) != 0, nin, inputs, nout, NULL);
    if (node < 0) { ct_set_error(CT_ERR_MEMORY, "graph_add_node: out of memory"); return -1; }
    for (int k = 0; k < nout; k++) outputs[k] = g->n[node].out[k];
    return ct__jit_finish(g) ? -1 : 0;
}
CTENSOR_API ct_status ct_graph_set_outputs(ct_graph *g, int n, const int *values) {
    if (!g) { ct_set_error(CT_ERR_NULL, "graph_set_outputs: graph is NULL"); return CT_ERR_NULL; }
    if (n < 0 || (n > 0 && !values)) { ct_set_error(CT_ERR_ARG, "graph_set_outputs: %d outputs with a NULL list", n); return CT_ERR_ARG; }
    for (int k = 0; k < n; k++)
        if (values[k] < 0 || values[k] >= g->nv) {
            ct_set_error(CT_ERR_INDEX, "graph_set_outputs: output %d is value %d (the graph has %d values)", k, values[k], g->nv);
            return CT_ERR_INDEX;
        }
    int *o = ct__jit_idup(values, n);
    if (!o) { ct_set_error(CT_ERR_MEMORY, "graph_set_outputs: out of memory"); return CT_ERR_MEMORY; }
    CT_FREE(g->out);
    g->out = o;
    g->nout = n;
    return ct__jit_finish(g);
}
/* a control-flow node: inputs checked, blocks copied, outputs typed like block 0's */
static int ct__jit_add_cf(ct_graph *g, int kind, const char *fn, int nin, const int *ins, ct_graph *const *subs, int nsub,
                          int nout, int *outputs) {
    for (int k = 0; k < nin; k++)
        if (ins[k] < 0 || ins[k] >= g->nv || (g->v[ins[k]].kind == CT__JV_NODE && g->v[ins[k]].node < 0)) {
            ct_set_error(CT_ERR_INDEX, "%s: input %d is value %d, which is not defined (the graph has %d values)", fn, k, ins[k], g->nv);
            return -1;
        }
    for (int q = 0; q < nsub; q++)
        if (ct_graph_verify(subs[q])) {
            char m[400];
            ct__jit_errcopy(m, sizeof m);
            ct_set_error(CT_ERR_ARG, "%s: block %d is not a valid graph: %s", fn, q, m);
            return -1;
        }
    ct_graph *copies[2] = {NULL, NULL};
    for (int q = 0; q < nsub; q++)
        if (!(copies[q] = ct_graph_clone(subs[q]))) { ct_graph_free(copies[0]); return -1; }
    int node = ct__jit_add_node(g, kind, NULL, 0, nin, ins, nout, NULL);
    if (node < 0) {
        ct_graph_free(copies[0]);
        ct_graph_free(copies[1]);
        ct_set_error(CT_ERR_MEMORY, "%s: out of memory", fn);
        return -1;
    }
    ct__jnode *n = &g->n[node];
    n->sub[0] = copies[0];
    n->sub[1] = copies[1];
    const ct_graph *b0 = copies[0];
    int off = kind == CT__JIT_LOOP ? 1 : 0;         /* a loop body's output 0 is its condition */
    for (int k = 0; k < nout; k++) {
        ct__jval *o = &g->v[n->out[k]];
        const ct__jval *src = &b0->v[b0->out[k + off]];
        o->dtype = src->dtype;
        o->ndim = src->ndim;
        memcpy(o->shape, src->shape, sizeof o->shape);
        outputs[k] = n->out[k];
    }
    return ct__jit_finish(g) ? -1 : 0;
}
CTENSOR_API int ct_graph_add_if(ct_graph *g, int cond, const ct_graph *then_g, const ct_graph *else_g, int nin,
                                const int *inputs, int nout, int *outputs) {
    if (!g || !then_g || !else_g) { ct_set_error(CT_ERR_NULL, "graph_add_if: %s is NULL", !g ? "graph" : "a block"); return -1; }
    if (nin < 0 || nin > 63 || (nin > 0 && !inputs) || nout < 1 || nout > 16 || !outputs) {
        ct_set_error(CT_ERR_ARG, "graph_add_if: %d inputs (0..63) and %d outputs (1..16)", nin, nout);
        return -1;
    }
    if (then_g->nin != nin || else_g->nin != nin || then_g->nout != nout || else_g->nout != nout) {
        ct_set_error(CT_ERR_ARG, "graph_add_if: the blocks take %d and %d inputs and return %d and %d values; the node passes %d and expects %d",
                     then_g->nin, else_g->nin, then_g->nout, else_g->nout, nin, nout);
        return -1;
    }
    int ins[64];
    ins[0] = cond;
    for (int k = 0; k < nin; k++) ins[1 + k] = inputs[k];
    ct_graph *subs[2] = {(ct_graph *)then_g, (ct_graph *)else_g};
    return ct__jit_add_cf(g, CT__JIT_IF, "graph_add_if", nin + 1, ins, subs, 2, nout, outputs);
}
CTENSOR_API int ct_graph_add_loop(ct_graph *g, int trip_count, int cond, const ct_graph *body, int ncarried,
                                  const int *init, int *outputs) {
    if (!g || !body) { ct_set_error(CT_ERR_NULL, "graph_add_loop: %s is NULL", !g ? "graph" : "the body"); return -1; }
    if (ncarried < 1 || ncarried > 16 || !init || !outputs) {
        ct_set_error(CT_ERR_ARG, "graph_add_loop: %d carried values (1..16)", ncarried);
        return -1;
    }
    if (body->nin != ncarried + 1 || body->nout != ncarried + 1) {
        ct_set_error(CT_ERR_ARG, "graph_add_loop: the body takes %d inputs and returns %d values; a loop carrying %d values needs %d and %d "
                     "(the iteration number first; the condition first)", body->nin, body->nout, ncarried, ncarried + 1, ncarried + 1);
        return -1;
    }
    int ins[18];
    ins[0] = trip_count;
    ins[1] = cond;
    for (int k = 0; k < ncarried; k++) ins[2 + k] = init[k];
    ct_graph *subs[1] = {(ct_graph *)body};
    return ct__jit_add_cf(g, CT__JIT_LOOP, "graph_add_loop", ncarried + 2, ins, subs, 1, ncarried, outputs);
}

/* runs the graph on examples, recording every value's dtype and shape (a listener
   would see fused nodes' members only unfused, so this walks the nodes itself) */
CTENSOR_API ct_status ct_graph_infer_shapes(ct_graph *g, int nin, ct_tensor *const *inputs) {
    if (!g) { ct_set_error(CT_ERR_NULL, "graph_infer_shapes: graph is NULL"); return CT_ERR_NULL; }
    ct_status st = ct_graph_verify(g);
    if (st) return st;
    ct_graph *tmp = ct_graph_clone(g);
    if (!tmp) return ct_last_error_code();
    /* every node value becomes an output of the copy, so one run shows them all */
    int cnt = 0;
    for (int v = 0; v < tmp->nv; v++) cnt += tmp->v[v].kind == CT__JV_NODE;
    int *outs = (int *)CT_MALLOC((size_t)(cnt > 0 ? cnt : 1) * sizeof(int));
    ct_tensor **res = (ct_tensor **)CT_MALLOC((size_t)(cnt > 0 ? cnt : 1) * sizeof(ct_tensor *));
    if (!outs || !res) { CT_FREE(outs); CT_FREE(res); ct_graph_free(tmp); ct_set_error(CT_ERR_MEMORY, "graph_infer_shapes: out of memory"); return CT_ERR_MEMORY; }
    cnt = 0;
    for (int v = 0; v < tmp->nv; v++) if (tmp->v[v].kind == CT__JV_NODE) outs[cnt++] = v;
    int tok = ct_scope_begin();
    int prev = ct_set_grad_enabled(0);
    tmp->dyn_batch = 1;                                  /* the shapes come from these inputs */
    for (int i = 0; i < tmp->nin; i++) tmp->v[tmp->in[i]].ndim = -1;
    if (!(st = ct_graph_set_outputs(tmp, cnt, outs)) && ct_graph_run(tmp, nin, inputs, res, cnt) >= 0) {
        for (int k = 0; k < cnt; k++) {
            ct__jval *x = &g->v[outs[k]];
            x->dtype = res[k]->dtype;
            x->ndim = res[k]->ndim;
            memcpy(x->shape, res[k]->shape, sizeof(int64_t) * (size_t)res[k]->ndim);
        }
        for (int i = 0; i < g->nin; i++) {
            ct__jval *x = &g->v[g->in[i]];
            x->dtype = inputs[i]->dtype;
            x->ndim = inputs[i]->ndim;
            memcpy(x->shape, inputs[i]->shape, sizeof(int64_t) * (size_t)inputs[i]->ndim);
        }
    } else if (!st) {
        st = ct_last_error_code();
    }
    ct_set_grad_enabled(prev);
    ct_scope_end(tok);
    CT_FREE(outs);
    CT_FREE(res);
    ct_graph_free(tmp);
    return st;
}

/* ---- 2.6 Save and load -------------------------------------------------------
   The file is a safetensors file: its tensors are the graph's parameters and
   constants under their value names; its metadata holds "format" = "ctensor.jit",
   "ctensor.jit.version" = "1" and "ctensor.jit.graph" = the text of section 2.3.
   Loading parses that text line by line and validates every name, op, attribute,
   type and arity, then runs ct_graph_verify. */
#define CT__JIT_VERSION "1"
/* the weights of g and of its blocks: top-level names as they are, a block's as
   "n<node>b<block>/<name>" (the parser rebuilds the same path) */
typedef struct ct__jwts { char **names; const ct_tensor **ts; int n, cap; int oom; } ct__jwts;
static void ct__jit_collect(ct__jwts *w, const ct_graph *g, const char *path) {
    for (int v = 0; v < g->nv && !w->oom; v++) {
        if (g->v[v].kind != CT__JV_PARAM && g->v[v].kind != CT__JV_CONST) continue;
        if (w->n == w->cap) {
            int nc = w->cap ? w->cap * 2 : 16;
            char **nn = (char **)CT_REALLOC(w->names, (size_t)nc * sizeof(char *));
            if (!nn) { w->oom = 1; return; }
            w->names = nn;
            const ct_tensor **nt = (const ct_tensor **)CT_REALLOC((void *)w->ts, (size_t)nc * sizeof(ct_tensor *));
            if (!nt) { w->oom = 1; return; }
            w->ts = nt;
            w->cap = nc;
        }
        size_t k = strlen(path) + strlen(g->v[v].name) + 1;
        char *q = (char *)CT_MALLOC(k);
        if (!q) { w->oom = 1; return; }
        snprintf(q, k, "%s%s", path, g->v[v].name);
        w->names[w->n] = q;
        w->ts[w->n++] = g->v[v].t;
    }
    for (int i = 0; i < g->nn && !w->oom; i++)
        for (int q = 0; q < 2; q++)
            if (g->n[i].sub[q]) {
                char sub[160];
                snprintf(sub, sizeof sub, "%sn%db%d/", path, i, q);
                ct__jit_collect(w, g->n[i].sub[q], sub);
            }
}
CTENSOR_API ct_status ct_graph_save_mem(const ct_graph *g, void **data, size_t *len) {
    if (!g || !data || !len) { ct_set_error(CT_ERR_NULL, "graph_save: NULL argument"); return CT_ERR_NULL; }
    *data = NULL;
    *len = 0;
    ct__jsb b = {NULL, 0, 0, 0};
    ct__jit_write_text(&b, g);
    ct__jwts w;
    memset(&w, 0, sizeof w);
    ct__jit_collect(&w, g, "");
    ct_status st = CT_ERR_MEMORY;
    if (g->qobs) {
        st = CT_ERR_STATE;
        ct_set_error(st, "graph_save: the graph is prepared for quantization (observers): convert it first (ct_jit_quant_convert)");
    } else if (!b.oom && !w.oom) {
        /* quantized constants (a converted graph): their codes, and their parameters
           in "qparams:<name>" entries, as ctensor_quant.h's files */
        int nk = 3, tok = ct_scope_begin();
        const char **keys = (const char **)CT_MALLOC((size_t)(3 + w.n) * sizeof(char *));
        char **vals = (char **)CT_MALLOC((size_t)(3 + w.n) * sizeof(char *));
        st = keys && vals ? CT_OK : CT_ERR_MEMORY;
        if (st == CT_OK) {
            keys[0] = "format"; keys[1] = "ctensor.jit.version"; keys[2] = "ctensor.jit.graph";
            vals[0] = (char *)"ctensor.jit"; vals[1] = (char *)CT__JIT_VERSION; vals[2] = b.p;
        }
        for (int i = 0; i < w.n && st == CT_OK; i++) {
            if (!CT__DT_QUANT(w.ts[i]->dtype)) continue;
#ifdef CTENSOR_QUANT_IMPLEMENTATION
            size_t kl = strlen(w.names[i]) + 9;
            char *k = (char *)CT_MALLOC(kl);
            char *v = ct__q_meta_value(w.ts[i]);
            const ct_tensor *c = ct_int_repr(w.ts[i]);
            if (!k || !v || !c) { CT_FREE(k); CT_FREE(v); st = CT_ERR_MEMORY; break; }
            snprintf(k, kl, "qparams:%s", w.names[i]);
            keys[nk] = k;
            vals[nk++] = v;
            w.ts[i] = c;
#else
            st = CT_ERR_DTYPE;
            ct_set_error(st, "graph_save: constant '%s' is quantized (%s): saving it needs ctensor_quant.h's implementation in this build",
                         w.names[i], ct_dtype_name(w.ts[i]->dtype));
#endif
        }
        if (st == CT_OK) st = ct_save_safetensors_mem(w.n, (const char *const *)w.names, w.ts, nk, keys, (const char *const *)vals, data, len);
        else if (st == CT_ERR_MEMORY) ct_set_error(CT_ERR_MEMORY, "graph_save: out of memory");
        for (int k = 3; k < nk; k++) { CT_FREE((void *)keys[k]); CT_FREE(vals[k]); }
        CT_FREE((void *)keys);
        CT_FREE(vals);
        ct_scope_end(tok);
    } else {
        ct_set_error(CT_ERR_MEMORY, "graph_save: out of memory");
    }
    for (int i = 0; i < w.n; i++) CT_FREE(w.names[i]);
    CT_FREE(w.names);
    CT_FREE((void *)w.ts);
    CT_FREE(b.p);
    return st;
}

typedef struct ct__jparse {
    const char *p, *end, *file;
    int line;
    ct_graph *g;
    ct_safetensors *st;
    char **lab;                        /* label of each value as written in the file */
    int nlab, clab;
    int err;
    char path[128];                    /* where the graph being read sits: "" or "n3b0/" ... */
} ct__jparse;
static int ct__jgp_fail(ct__jparse *P, const char *what) {
    if (!P->err) {
        char near[40];
        int k = 0;
        while (P->p + k < P->end && k < 30 && P->p[k] != '\n') { near[k] = P->p[k]; k++; }
        near[k] = 0;
        ct_set_error(CT_ERR_FORMAT, "graph_load: %s: line %d: %s (at '%s')", P->file, P->line, what, near);
    }
    P->err = 1;
    return -1;
}
static void ct__jgp_ws(ct__jparse *P) { while (P->p < P->end && (*P->p == ' ' || *P->p == '\t')) P->p++; }
static int ct__jgp_lit(ct__jparse *P, const char *s) {
    ct__jgp_ws(P);
    size_t n = strlen(s);
    if ((size_t)(P->end - P->p) >= n && !memcmp(P->p, s, n)) { P->p += n; return 1; }
    return 0;
}
static int ct__jgp_expect(ct__jparse *P, const char *s) {
    if (ct__jgp_lit(P, s)) return 0;
    char m[64];
    snprintf(m, sizeof m, "expected '%s'", s);
    return ct__jgp_fail(P, m);
}
static int ct__jgp_eol(ct__jparse *P) {
    ct__jgp_ws(P);
    if (P->p < P->end && *P->p == '\r') P->p++;
    if (P->p < P->end && *P->p != '\n') return ct__jgp_fail(P, "expected the end of the line");
    if (P->p < P->end) P->p++;
    P->line++;
    return 0;
}
/* an identifier-like word: letters, digits, _ . : */
static int ct__jgp_word(ct__jparse *P, char *buf, size_t cap) {
    ct__jgp_ws(P);
    size_t k = 0;
    while (P->p < P->end && (isalnum((unsigned char)*P->p) || *P->p == '_' || *P->p == '.' || *P->p == ':')) {
        if (k + 1 >= cap) return ct__jgp_fail(P, "a name too long");
        buf[k++] = *P->p++;
    }
    buf[k] = 0;
    return k ? 0 : ct__jgp_fail(P, "expected a name");
}
static int ct__jgp_label(ct__jparse *P, char *buf, size_t cap) {
    if (!ct__jgp_lit(P, "%")) return ct__jgp_fail(P, "expected a value (%name)");
    if (P->p < P->end && !(isalnum((unsigned char)*P->p) || *P->p == '_')) return ct__jgp_fail(P, "expected a value name after %");
    return ct__jgp_word(P, buf, cap);
}
static int ct__jgp_find(const ct__jparse *P, const char *lab) {
    for (int i = P->nlab - 1; i >= 0; i--)
        if (P->lab[i] && !strcmp(P->lab[i], lab)) return i;
    return -1;
}
/* records the label of a new value (its id is P->g->nv - 1) */
static int ct__jgp_define(ct__jparse *P, const char *lab) {
    if (ct__jgp_find(P, lab) >= 0) {
        char m[160];
        snprintf(m, sizeof m, "value %%%s is defined twice", lab);
        return ct__jgp_fail(P, m);
    }
    char **l = (char **)ct__jit_grow(P->lab, &P->clab, P->g->nv, sizeof(char *));
    if (!l) return ct__jgp_fail(P, "out of memory");
    P->lab = l;
    while (P->nlab < P->g->nv) P->lab[P->nlab++] = NULL;
    P->lab[P->g->nv - 1] = ct__jit_strdup(lab);
    return P->lab[P->g->nv - 1] ? 0 : ct__jgp_fail(P, "out of memory");
}
static int ct__jgp_use(ct__jparse *P, int *v) {
    char lab[256];
    if (ct__jgp_lit(P, "None")) { *v = -1; return 0; }
    if (ct__jgp_label(P, lab, sizeof lab)) return -1;
    *v = ct__jgp_find(P, lab);
    if (*v < 0) {
        char m[320];
        snprintf(m, sizeof m, "value %%%s is used before it is defined", lab);
        return ct__jgp_fail(P, m);
    }
    return 0;
}
static int ct__jgp_type(ct__jparse *P, ct__jval *x, int *star0) {
    int allow_star = *star0 == 0;
    char w[32];
    if (ct__jgp_word(P, w, sizeof w)) return -1;
    x->ndim = -1;
    if (!strcmp(w, "Tensor")) return 0;
    int dt = -1;
    for (int k = 0; k < CT_NUM_DTYPES; k++) if (!strcmp(w, ct__jit_tsnames[k])) dt = k;
    if (dt < 0) return ct__jgp_fail(P, "an unknown dtype");
    x->dtype = (ct_dtype)dt;
    if (ct__jgp_expect(P, "(")) return -1;
    x->ndim = 0;
    if (ct__jgp_lit(P, ")")) return 0;
    for (;;) {
        if (x->ndim >= CT_MAX_DIMS) return ct__jgp_fail(P, "too many dimensions");
        ct__jgp_ws(P);
        if (ct__jgp_lit(P, "*")) {
            if (x->ndim != 0 || !allow_star) return ct__jgp_fail(P, "'*' only as dimension 0 of an input");
            *star0 = 1;
            x->shape[x->ndim++] = 0;
        } else {
            int64_t d = 0;
            int nd = 0;
            while (P->p < P->end && isdigit((unsigned char)*P->p)) {
                if (d > (INT64_MAX - 9) / 10) return ct__jgp_fail(P, "a dimension too large");
                d = d * 10 + (*P->p++ - '0');
                nd++;
            }
            if (!nd) return ct__jgp_fail(P, "expected a dimension");
            x->shape[x->ndim++] = d;
        }
        if (ct__jgp_lit(P, ")")) return 0;
        if (ct__jgp_expect(P, ",")) return -1;
    }
}
/* [attrs] -> text between the brackets (quotes and nested brackets skipped) */
static int ct__jgp_attrs(ct__jparse *P, int op, ct_attrs *a) {
    if (!ct__jgp_lit(P, "[")) {
        if (!ct_attrs_defaults(op, a)) return 0;
        char m[400];
        ct__jit_errcopy(m, sizeof m);
        return ct__jgp_fail(P, m);
    }
    const char *s = P->p;
    int depth = 0;
    char q = 0;
    while (P->p < P->end && *P->p != '\n') {
        char c = *P->p;
        if (q) { if (c == q) q = 0; }
        else if (c == '\'' || c == '"') q = c;
        else if (c == '[') depth++;
        else if (c == ']') { if (!depth) break; depth--; }
        P->p++;
    }
    if (P->p >= P->end || *P->p != ']') return ct__jgp_fail(P, "an attribute list without its ']'");
    size_t n = (size_t)(P->p - s);
    char *t = (char *)CT_MALLOC(n + 1);
    if (!t) return ct__jgp_fail(P, "out of memory");
    memcpy(t, s, n);
    t[n] = 0;
    P->p++;
    ct_status r = ct_attrs_parse(op, t, a);
    CT_FREE(t);
    if (r) {
        char m[400];
        memcpy(m, "bad attributes: ", 16);
        ct__jit_errcopy(m + 16, sizeof m - 16);
        return ct__jgp_fail(P, m);
    }
    return 0;
}
/* an op name, PyTorch's in-place spelling included ("aten::add_.Tensor", "aten::relu_") */
static int ct__jgp_op(ct__jparse *P, const char *w, int *inplace) {
    *inplace = 0;
    int op = ct_op_find(w);
    if (op >= 0 && strchr(w, ':')) return op;
    char base[256];
    size_t n = strlen(w);
    const char *colon = strstr(w, "::"), *dot = strchr(colon ? colon + 2 : w, '.');
    size_t k = dot ? (size_t)(dot - w) : n;
    if (k > 0 && k < sizeof base && w[k - 1] == '_' && colon) {
        memcpy(base, w, k - 1);
        memcpy(base + k - 1, w + k, n - k + 1);
        op = ct_op_find(base);
        if (op >= 0 && !(ct_op_flags(op) & CT_OP_INPLACE)) { *inplace = 1; return op; }
    }
    char m[320];
    snprintf(m, sizeof m, "no op named '%s' in this build", w);
    return ct__jgp_fail(P, m);
}
static int ct__jgp_fused_body2(ct__jparse *P, ct__jnode *n, ct__jfop *ops);
static int ct__jgp_fused_body(ct__jparse *P, ct__jnode *n) {
    ct__jfop *ops = (ct__jfop *)CT_MALLOC(256 * sizeof(ct__jfop));   /* 80 KB: not on the stack */
    if (!ops) return ct__jgp_fail(P, "out of memory");
    int r = ct__jgp_fused_body2(P, n, ops);
    CT_FREE(ops);
    return r;
}
static int ct__jgp_fused_body2(ct__jparse *P, ct__jnode *n, ct__jfop *ops) {
    int nops = 0, outsrc[16], nret = 0;
    for (;;) {
        ct__jgp_ws(P);
        if (ct__jgp_lit(P, "return")) break;
        char lab[32], w[256];
        if (nops == 256) return ct__jgp_fail(P, "a fused group of more than 256 ops");
        if (ct__jgp_label(P, lab, sizeof lab)) return -1;
        char want[16];
        snprintf(want, sizeof want, "f%d", nops);
        if (strcmp(lab, want)) return ct__jgp_fail(P, "fused ops must be numbered %f0, %f1, ... in order");
        if (ct__jgp_expect(P, "=") || ct__jgp_word(P, w, sizeof w)) return -1;
        ct__jfop *o = &ops[nops];
        int inpl;
        if ((o->op = ct__jgp_op(P, w, &inpl)) < 0) return -1;
        if (inpl || !ct__jit_is_fusable_kernel(o->op)) return ct__jgp_fail(P, "a fused op must be a unary or binary elementwise op");
        o->nin = ct__jit_is_fusable_kernel(o->op);
        if (ct__jgp_attrs(P, o->op, &o->a) || ct__jgp_expect(P, "(")) return -1;
        for (int j = 0; j < o->nin; j++) {
            if (j && ct__jgp_expect(P, ",")) return -1;
            if (ct__jgp_label(P, lab, sizeof lab)) return -1;
            char *e = NULL;
            long idx = (lab[0] == 'i' || lab[0] == 'f') ? strtol(lab + 1, &e, 10) : -1;
            if (!e || *e || idx < 0 || (lab[0] == 'i' && idx >= n->nin) || (lab[0] == 'f' && idx >= nops))
                return ct__jgp_fail(P, "a fused operand must be %iK (an input of the node) or %fK (an earlier op)");
            o->src[j] = lab[0] == 'i' ? (int)idx : -(int)idx - 1;
        }
        if (ct__jgp_expect(P, ")") || ct__jgp_eol(P)) return -1;
        nops++;
    }
    if (ct__jgp_expect(P, "(")) return -1;
    for (;;) {
        char lab[32];
        if (nret == 16 || nret == n->nout) return ct__jgp_fail(P, "the fused return lists more values than the node has outputs");
        if (ct__jgp_label(P, lab, sizeof lab)) return -1;
        char *e = NULL;
        long idx = lab[0] == 'f' ? strtol(lab + 1, &e, 10) : -1;
        if (!e || *e || idx < 0 || idx >= nops) return ct__jgp_fail(P, "a fused return must name %fK");
        for (int j = 0; j < nret; j++) if (outsrc[j] == idx) return ct__jgp_fail(P, "a fused op returned twice");
        outsrc[nret++] = (int)idx;
        if (ct__jgp_lit(P, ")")) break;
        if (ct__jgp_expect(P, ",")) return -1;
    }
    if (nret != n->nout || nops == 0) return ct__jgp_fail(P, "the fused return must list one value per node output");
    if (ct__jgp_eol(P)) return -1;
    ct__jfused *f = (ct__jfused *)CT_MALLOC(sizeof *f);
    if (!f) return ct__jgp_fail(P, "out of memory");
    f->nops = nops;
    f->ops = (ct__jfop *)CT_MALLOC((size_t)nops * sizeof(ct__jfop));
    f->slot = (int *)CT_MALLOC((size_t)nops * sizeof(int));
    if (!f->ops || !f->slot) { ct__jit_fused_free(f); return ct__jgp_fail(P, "out of memory"); }
    memcpy(f->ops, ops, (size_t)nops * sizeof(ct__jfop));
    ct__jit_assign_slots(f, outsrc, nret);
    n->fz = f;
    return 0;
}
static ct_status ct__jit_finish(ct_graph *g);
static int ct__jgp_graph(ct__jparse *P, int depth, int blockno);
/* the blocks of a control-flow node: parsed as graphs of their own (own labels) */
static int ct__jgp_blocks(ct__jparse *P, ct__jnode *n, int node_index, int depth) {
    int nb = n->op == CT__JIT_IF ? 2 : 1;
    if (depth >= 8) return ct__jgp_fail(P, "control flow nested deeper than 8 levels");
    for (int q = 0; q < nb; q++) {
        ct__jparse S = *P;                       /* the outer graph's state, restored below */
        char path[128];
        int np = snprintf(path, sizeof path, "%sn%db%d/", P->path, node_index, q);
        if (np < 0 || (size_t)np >= sizeof path) return ct__jgp_fail(P, "control flow nested too deep");
        P->g = ct_graph_new();
        P->lab = NULL;
        P->nlab = P->clab = 0;
        memcpy(P->path, path, (size_t)np + 1);
        int r = P->g ? ct__jgp_graph(P, depth + 1, q) : ct__jgp_fail(P, "out of memory");
        ct_graph *sub = P->g;
        for (int i = 0; i < P->nlab; i++) CT_FREE(P->lab[i]);
        CT_FREE(P->lab);
        S.p = P->p;
        S.line = P->line;
        S.err = P->err;
        *P = S;
        if (!r && (ct__jit_finish(sub) || ct_graph_verify(sub))) {
            char m[400];
            ct__jit_errcopy(m, sizeof m);
            r = ct__jgp_fail(P, m);
        }
        n->sub[q] = sub;                         /* freed with the node on failure */
        if (r) return -1;
    }
    return 0;
}
static int ct__jgp_graph(ct__jparse *P, int depth, int blockno) {
    ct_graph *g = P->g;
    int star = 0;
    if (depth == 0) {
        if (ct__jgp_expect(P, "graph") || ct__jgp_expect(P, "(")) return -1;
    } else {
        char hdr[24];
        snprintf(hdr, sizeof hdr, "block%d(", blockno);
        if (ct__jgp_expect(P, hdr)) return -1;
    }
    if (!ct__jgp_lit(P, ")")) {
        for (;;) {
            char lab[256];
            ct__jgp_ws(P);
            while (P->p < P->end && (*P->p == '\n' || *P->p == ' ')) { if (*P->p == '\n') P->line++; P->p++; }
            if (ct__jgp_label(P, lab, sizeof lab) || ct__jgp_expect(P, ":")) return -1;
            int id = ct__jit_new_val(g, CT__JV_INPUT, NULL);
            int *ni = id < 0 ? NULL : (int *)CT_REALLOC(g->in, (size_t)(g->nin + 1) * sizeof(int));
            if (!ni) return ct__jgp_fail(P, "out of memory");
            g->in = ni;
            g->in[g->nin++] = id;
            int s0 = depth == 0 ? 0 : -1;               /* '*' only on the graph's own inputs */
            if (ct__jgp_type(P, &g->v[id], &s0)) return -1;
            if (s0 < 0) s0 = 0;
            if (g->nin > 1 && s0 != star) return ct__jgp_fail(P, "either every input has a dynamic dimension 0 ('*') or none");
            star = s0;
            if (ct__jgp_define(P, lab) || !(g->v[id].name = ct__jit_strdup(lab))) return ct__jgp_fail(P, "out of memory");
            if (ct__jgp_lit(P, ")")) break;
            if (ct__jgp_expect(P, ",")) return -1;
        }
    }
    g->dyn_batch = star;
    if (ct__jgp_expect(P, ":") || ct__jgp_eol(P)) return -1;
    for (;;) {
        ct__jgp_ws(P);
        if (P->p >= P->end) return ct__jgp_fail(P, depth ? "a block ends without '->'" : "the graph ends without 'return'");
        if (ct__jgp_lit(P, depth ? "->" : "return")) break;
        /* outputs: %a : T, %b : T = op[attrs](args) */
        int first = g->nv, nout = 0;
        char labs[16][256];
        for (;;) {
            if (nout == 16) return ct__jgp_fail(P, "a node with more than 16 outputs");
            if (ct__jgp_label(P, labs[nout], sizeof labs[0]) || ct__jgp_expect(P, ":")) return -1;
            int id = ct__jit_new_val(g, CT__JV_NODE, NULL);
            if (id < 0) return ct__jgp_fail(P, "out of memory");
            int no = -1;                                   /* no '*' here */
            if (ct__jgp_type(P, &g->v[id], &no)) return -1;
            nout++;
            if (ct__jgp_lit(P, "=")) break;
            if (ct__jgp_expect(P, ",")) return -1;
        }
        char w[256];
        if (ct__jgp_word(P, w, sizeof w)) return -1;
        if (!strcmp(w, "prim::Param") || !strcmp(w, "prim::Constant")) {
            if (nout != 1) return ct__jgp_fail(P, "a parameter or constant has one output");
            ct__jval *x = &g->v[first];
            x->kind = !strcmp(w, "prim::Param") ? CT__JV_PARAM : CT__JV_CONST;
            if (x->kind == CT__JV_PARAM) {
                char nm[256];
                if (ct__jgp_expect(P, "[") || ct__jgp_expect(P, "name=\"")) return -1;
                size_t k = 0;
                while (P->p < P->end && *P->p != '"' && *P->p != '\n' && k + 1 < sizeof nm) nm[k++] = *P->p++;
                nm[k] = 0;
                if (ct__jgp_expect(P, "\"") || ct__jgp_expect(P, "]")) return -1;
                if (strcmp(nm, labs[0])) return ct__jgp_fail(P, "a parameter's name must be its value's name");
            } else if (ct__jgp_expect(P, "[value=<Tensor>]")) {
                return -1;
            }
            if (ct__jgp_expect(P, "(") || ct__jgp_expect(P, ")") || ct__jgp_eol(P)) return -1;
            if (ct__jgp_define(P, labs[0])) return -1;
            char qual[400];
            snprintf(qual, sizeof qual, "%s%s", P->path, labs[0]);
#ifdef CTENSOR_QUANT_IMPLEMENTATION
            ct_tensor *t = ct_q_safetensors_get(P->st, qual);    /* quantized when the file has its parameters */
#else
            ct_tensor *t = ct_safetensors_get(P->st, qual);
#endif
            if (!t) {
                char m[480];
                snprintf(m, sizeof m, "no tensor named '%s' in the file", qual);
                ct_clear_error();
                return ct__jgp_fail(P, m);
            }
            if (x->ndim < 0 || t->dtype != x->dtype || t->ndim != x->ndim || memcmp(t->shape, x->shape, sizeof(int64_t) * (size_t)t->ndim))
                return ct__jgp_fail(P, "the stored tensor's dtype or shape differs from the value's type");
            x->t = ct_retain(t);
            x->name = ct__jit_strdup(labs[0]);
            if (!x->name) return ct__jgp_fail(P, "out of memory");
            continue;
        }
        int fused = !strcmp(w, "prim::FusedElementwise"), inplace = 0, op = CT__JIT_FUSED;
        int cf = !strcmp(w, "prim::If") ? CT__JIT_IF : !strcmp(w, "prim::Loop") ? CT__JIT_LOOP : 0;
        ct_attrs a;
        memset(&a, 0, sizeof a);
        if (cf) op = cf;
        if (!fused && !cf) {
            if ((op = ct__jgp_op(P, w, &inplace)) < 0) return -1;
            if (ct__jgp_attrs(P, op, &a)) return -1;
            if (ct_op_num_outputs(op) != nout) return ct__jgp_fail(P, "the number of outputs differs from the op's");
        }
        int ins[64], nin = 0;
        if (ct__jgp_expect(P, "(")) return -1;
        if (!ct__jgp_lit(P, ")")) {
            for (;;) {
                if (nin == 64) return ct__jgp_fail(P, "a node with more than 64 inputs");
                if (ct__jgp_use(P, &ins[nin])) return -1;
                if (ins[nin] >= first) return ct__jgp_fail(P, "a node reads its own output");
                nin++;
                if (ct__jgp_lit(P, ")")) break;
                if (ct__jgp_expect(P, ",")) return -1;
            }
        }
        if (ct__jgp_eol(P)) return -1;
        if (!fused && ct_op_num_inputs(op) >= 0 && ct_op_num_inputs(op) != nin) return ct__jgp_fail(P, "the number of inputs differs from the op's");
        if (fused && nin == 0) return ct__jgp_fail(P, "a fused node without inputs");
        if (cf == CT__JIT_IF && nin < 1) return ct__jgp_fail(P, "prim::If needs a condition");
        if (cf == CT__JIT_LOOP && nin != nout + 2) return ct__jgp_fail(P, "prim::Loop takes a trip count, a condition and one initial value per output");
        for (int k = 0; cf && k < nin; k++) if (ins[k] < 0) return ct__jgp_fail(P, "control flow reads None");
        for (int k = 0; fused && k < nin; k++) if (ins[k] < 0) return ct__jgp_fail(P, "a fused node reads None");
        /* the node: its outputs are the values made above */
        ct__jnode *nn = (ct__jnode *)ct__jit_grow(g->n, &g->cn, g->nn + 1, sizeof(ct__jnode));
        if (!nn) return ct__jgp_fail(P, "out of memory");
        g->n = nn;
        ct__jnode *n = &g->n[g->nn];
        memset(n, 0, sizeof *n);
        n->op = op;
        n->a = a;
        n->inplace = inplace || (!fused && (ct_op_flags(op) & CT_OP_INPLACE));
        n->nin = nin;
        n->nout = nout;
        n->in = ct__jit_idup(ins, nin);
        n->out = (int *)CT_MALLOC((size_t)nout * sizeof(int));
        if (!n->in || !n->out) { ct__jit_node_clear(n); return ct__jgp_fail(P, "out of memory"); }
        g->nn++;
        for (int k = 0; k < nout; k++) {
            n->out[k] = first + k;
            g->v[first + k].node = g->nn - 1;
            g->v[first + k].idx = k;
        }
        if (n->inplace && (nin == 0 || ins[0] < 0)) return ct__jgp_fail(P, "an in-place node without an input to write");
        if (n->inplace) g->v[first].alias = g->v[ins[0]].alias;
        /* labels, defined after the inputs were read */
        for (int k = 0; k < nout; k++) {
            int save = g->nv;
            g->nv = first + k + 1;
            int r = ct__jgp_define(P, labs[k]);
            g->nv = save;
            if (r) return -1;
        }
        if (fused && ct__jgp_fused_body(P, n)) return -1;
        if (cf) {
            if (ct__jgp_blocks(P, n, g->nn - 1, depth)) return -1;
            /* the blocks' interfaces must fit the node */
            int want_in = cf == CT__JIT_IF ? nin - 1 : nout + 1, want_out = cf == CT__JIT_IF ? nout : nout + 1;
            for (int q = 0; q < (cf == CT__JIT_IF ? 2 : 1); q++)
                if (n->sub[q]->nin != want_in || n->sub[q]->nout != want_out)
                    return ct__jgp_fail(P, "a block's inputs or outputs do not match its node");
        }
    }
    int outs[256], no = 0;
    if (ct__jgp_expect(P, "(")) return -1;
    if (!ct__jgp_lit(P, ")")) {
        for (;;) {
            if (no == 256) return ct__jgp_fail(P, "more than 256 graph outputs");
            if (ct__jgp_use(P, &outs[no])) return -1;
            if (outs[no] < 0) return ct__jgp_fail(P, "a graph output is None");
            no++;
            if (ct__jgp_lit(P, ")")) break;
            if (ct__jgp_expect(P, ",")) return -1;
        }
    }
    if (depth) {
        if (ct__jgp_eol(P)) return -1;
    } else {
        ct__jgp_ws(P);
        while (P->p < P->end && (*P->p == '\n' || *P->p == ' ' || *P->p == '\r')) P->p++;
        if (P->p != P->end) return ct__jgp_fail(P, "text after the graph's return");
    }
    g->out = ct__jit_idup(outs, no);
    if (!g->out) return ct__jgp_fail(P, "out of memory");
    g->nout = no;
    return 0;
}
CTENSOR_API ct_graph *ct_graph_load_mem(const void *data, size_t len, const char *name) {
    const char *file = name ? name : "<memory>";
    if (!data) { ct_set_error(CT_ERR_NULL, "graph_load: %s: data is NULL", file); return NULL; }
    ct_safetensors *st = ct_safetensors_load_mem(data, len, file);
    if (!st) return NULL;
    const char *fmt = ct_safetensors_metadata(st, "format"), *ver = ct_safetensors_metadata(st, "ctensor.jit.version");
    const char *text = ct_safetensors_metadata(st, "ctensor.jit.graph");
    if (!fmt || strcmp(fmt, "ctensor.jit") || !text) {
        ct_set_error(CT_ERR_FORMAT, "graph_load: %s: not a ctensor graph file (safetensors metadata lacks format=ctensor.jit and ctensor.jit.graph)", file);
        ct_safetensors_free(st);
        return NULL;
    }
    if (!ver || strcmp(ver, CT__JIT_VERSION)) {
        ct_set_error(CT_ERR_FORMAT, "graph_load: %s: graph file version '%s'; this build reads version " CT__JIT_VERSION, file, ver ? ver : "(none)");
        ct_safetensors_free(st);
        return NULL;
    }
    ct__jparse P;
    memset(&P, 0, sizeof P);
    P.p = text;
    P.end = text + strlen(text);
    P.file = file;
    P.line = 1;
    P.st = st;
    P.g = ct_graph_new();
    int r = P.g ? ct__jgp_graph(&P, 0, 0) : -1;
    for (int i = 0; i < P.nlab; i++) CT_FREE(P.lab[i]);
    CT_FREE(P.lab);
    ct_safetensors_free(st);
    if (r || ct__jit_finish(P.g) || ct_graph_verify(P.g)) {
        if (!r && ct_last_error_code() == CT_ERR_STATE) {
            char m[512];
            ct__jit_errcopy(m, sizeof m);
            ct_set_error(CT_ERR_FORMAT, "graph_load: %s: %s", file, m);
        }
        ct_graph_free(P.g);
        return NULL;
    }
    return P.g;
}
#ifndef CTENSOR_NO_STDIO
CTENSOR_API ct_status ct_graph_save(const ct_graph *g, const char *path) {
    if (!path) { ct_set_error(CT_ERR_NULL, "graph_save: path is NULL"); return CT_ERR_NULL; }
    void *data = NULL;
    size_t len = 0;
    ct_status st = ct_graph_save_mem(g, &data, &len);
    if (st) return st;
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len) {
        if (f) fclose(f);
        ct_free(data);
        ct_set_error(CT_ERR_IO, "graph_save: cannot write %s", path);
        return CT_ERR_IO;
    }
    ct_free(data);
    if (fclose(f)) { ct_set_error(CT_ERR_IO, "graph_save: cannot write %s", path); return CT_ERR_IO; }
    return CT_OK;
}
CTENSOR_API ct_graph *ct_graph_load(const char *path) {
    if (!path) { ct_set_error(CT_ERR_NULL, "graph_load: path is NULL"); return NULL; }
    FILE *f = fopen(path, "rb");
    if (!f) { ct_set_error(CT_ERR_IO, "graph_load: cannot open %s", path); return NULL; }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            size_t nc = cap ? cap * 2 : 65536;
            char *q = (char *)CT_REALLOC(buf, nc);
            if (!q) { CT_FREE(buf); fclose(f); ct_set_error(CT_ERR_MEMORY, "graph_load: out of memory reading %s", path); return NULL; }
            buf = q;
            cap = nc;
        }
        size_t r = fread(buf + len, 1, cap - len, f);
        len += r;
        if (r == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) { CT_FREE(buf); ct_set_error(CT_ERR_IO, "graph_load: cannot read %s", path); return NULL; }
    ct_graph *g = ct_graph_load_mem(buf, len, path);
    CT_FREE(buf);
    return g;
}
#endif

#ifndef CTENSOR_JIT_LITE
/* ---- 2.7 Export to C -----------------------------------------------------------
   Static shapes (the graph's types), float32. Every node value gets a static
   array (no allocation; the function is not reentrant: give each thread its own
   copy of the file, or a lock). Constants become static const arrays written as
   hexadecimal float literals (exact). Elementwise ops and fused groups become one
   loop each; broadcasting reads through per-operand strides. */
typedef struct ct__jx { ct__jsb *b; const ct_graph *g; char err[256]; } ct__jx;
static void ct__jx_name(const ct__jx *X, int v, char *buf, size_t cap) {
    const ct__jval *x = &X->g->v[v];
    if (x->kind == CT__JV_INPUT) {
        for (int i = 0; i < X->g->nin; i++) if (X->g->in[i] == v) { snprintf(buf, cap, "in%d", i); return; }
    }
    snprintf(buf, cap, x->kind == CT__JV_NODE ? "v%d" : "w%d", x->kind == CT__JV_NODE ? x->alias : v);
}
static int64_t ct__jx_numel(const ct__jval *x) {
    int64_t n = 1;
    for (int d = 0; d < x->ndim; d++) n *= x->shape[d];
    return n;
}
/* the C expression of a unary or binary elementwise op, or NULL */
static int ct__jx_expr(int op, const ct_attrs *at, const char *a, const char *b, char *out, size_t cap) {
    const char *s = ct_op_schema_name(op);
    ct_attr_value v;
    double alpha = 1.0;
    if ((!strcmp(s, "aten::add.Tensor") || !strcmp(s, "aten::sub.Tensor")) && ct_attrs_get(op, at, "alpha", &v) == CT_OK) alpha = v.f;
#define CT__JX(name, ...) if (!strcmp(s, name)) { snprintf(out, cap, __VA_ARGS__); return 0; }
    CT__JX("aten::relu", "(%s < 0.0f ? 0.0f : %s)", a, a)
    CT__JX("aten::sigmoid", "(1.0f / (1.0f + expf(-%s)))", a)
    CT__JX("aten::tanh", "tanhf(%s)", a)
    CT__JX("aten::exp", "expf(%s)", a)
    CT__JX("aten::log", "logf(%s)", a)
    CT__JX("aten::neg", "(-%s)", a)
    CT__JX("aten::abs", "fabsf(%s)", a)
    CT__JX("aten::sqrt", "sqrtf(%s)", a)
    CT__JX("aten::rsqrt", "(1.0f / sqrtf(%s))", a)
    CT__JX("aten::reciprocal", "(1.0f / %s)", a)
    CT__JX("aten::square", "(%s * %s)", a, a)
    CT__JX("aten::sin", "sinf(%s)", a)
    CT__JX("aten::cos", "cosf(%s)", a)
    CT__JX("aten::silu", "(%s / (1.0f + expf(-%s)))", a, a)
    CT__JX("aten::softplus", "(%s > 20.0f ? %s : log1pf(expf(%s)))", a, a, a)
    CT__JX("aten::relu6", "fminf(fmaxf(%s, 0.0f), 6.0f)", a)
    CT__JX("aten::hardsigmoid", "(fminf(fmaxf(%s + 3.0f, 0.0f), 6.0f) / 6.0f)", a)
    CT__JX("aten::hardswish", "(%s * fminf(fmaxf(%s + 3.0f, 0.0f), 6.0f) / 6.0f)", a, a)
    CT__JX("aten::mul.Tensor", "(%s * %s)", a, b)
    CT__JX("aten::div.Tensor", "(%s / %s)", a, b)
    CT__JX("aten::maximum", "fmaxf(%s, %s)", a, b)
    CT__JX("aten::minimum", "fminf(%s, %s)", a, b)
#undef CT__JX
    if (!strcmp(s, "aten::add.Tensor") || !strcmp(s, "aten::sub.Tensor")) {
        char sign = s[6] == 'a' ? '+' : '-';
        if (alpha == 1.0) snprintf(out, cap, "(%s %c %s)", a, sign, b);
        else snprintf(out, cap, "(%s %c %af * %s)", a, sign, alpha, b);
        return 0;
    }
    if (!strcmp(s, "aten::gelu")) {
        if (ct_attrs_get(op, at, "approximate", &v) == CT_OK && v.i == 1)
            snprintf(out, cap, "(0.5f * %s * (1.0f + tanhf(0.7978845608f * (%s + 0.044715f * %s * %s * %s))))", a, a, a, a, a);
        else snprintf(out, cap, "(0.5f * %s * (1.0f + erff(%s * 0.70710678118654752f)))", a, a);
        return 0;
    }
    if (!strcmp(s, "aten::leaky_relu") && ct_attrs_get(op, at, "negative_slope", &v) == CT_OK) {
        snprintf(out, cap, "(%s < 0.0f ? %af * %s : %s)", a, v.f, a, a);
        return 0;
    }
    if (!strcmp(s, "aten::hardtanh")) {
        ct_attr_value lo, hi;
        if (ct_attrs_get(op, at, "min_val", &lo) || ct_attrs_get(op, at, "max_val", &hi)) return -1;
        snprintf(out, cap, "fminf(fmaxf(%s, %af), %af)", a, lo.f, hi.f);
        return 0;
    }
    return -1;
}
/* broadcast strides of value v read as shape (ndim, shape): static array text */
static void ct__jx_bstrides(const ct__jval *x, int ndim, const int64_t *shape, int64_t *bs) {
    int64_t st = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        int xd = d - (ndim - x->ndim);
        if (xd < 0 || x->shape[xd] == 1) bs[d] = 0;
        else { bs[d] = st; }
        if (xd >= 0) st *= x->shape[xd];
    }
    (void)shape;
}
/* the operand access for element i of an output of shape (ndim, shape) */
static void ct__jx_operand(ct__jx *X, int v, int ndim, const int64_t *shape, int tag, char *expr, size_t cap) {
    const ct__jval *x = &X->g->v[v];
    char nm[32];
    ct__jx_name(X, v, nm, sizeof nm);
    int same = x->ndim == ndim && !memcmp(x->shape, shape, sizeof(int64_t) * (size_t)ndim);
    if (same) { snprintf(expr, cap, "%s[i]", nm); return; }
    if (ct__jx_numel(x) == 1) { snprintf(expr, cap, "%s[0]", nm); return; }
    int64_t bs[CT_MAX_DIMS];
    ct__jx_bstrides(x, ndim, shape, bs);
    ct__jsb_printf(X->b, "    static const long bs%d[%d] = {", tag, ndim > 0 ? ndim : 1);
    for (int d = 0; d < ndim; d++) ct__jsb_printf(X->b, d ? ", %lld" : "%lld", (long long)bs[d]);
    ct__jsb_put(X->b, "};\n", 3);
    snprintf(expr, cap, "%s[ct_bcast(i, %d, shp, bs%d)]", nm, ndim, tag);
}
static void ct__jx_shape_decl(ct__jx *X, const ct__jval *o) {
    ct__jsb_printf(X->b, "    static const long shp[%d] = {", o->ndim > 0 ? o->ndim : 1);
    for (int d = 0; d < o->ndim; d++) ct__jsb_printf(X->b, d ? ", %lld" : "%lld", (long long)o->shape[d]);
    if (o->ndim == 0) ct__jsb_put(X->b, "1", 1);
    ct__jsb_put(X->b, "};\n    (void)shp;\n", 18);
}
static int ct__jx_fail(ct__jx *X, int node, const char *why) {
    const ct__jnode *n = &X->g->n[node];
    snprintf(X->err, sizeof X->err, "node %d (%s): %s", node, ct__jit_node_name(n->op), why);
    return -1;
}
static CT__NOINLINE int ct__jx_elementwise(ct__jx *X, int node) {
    const ct__jnode *n = &X->g->n[node];
    const ct__jval *o = &X->g->v[n->out[0]];
    char ops[64][160], e[512], nm[32];
    ct__jx_shape_decl(X, o);
    int nin = n->nin;
    if (nin > 64) return ct__jx_fail(X, node, "too many inputs");
    for (int k = 0; k < nin; k++) ct__jx_operand(X, n->in[k], o->ndim, o->shape, k, ops[k], sizeof ops[k]);
    ct__jsb_printf(X->b, "    for (long i = 0; i < %lldL; i++) {\n", (long long)ct__jx_numel(o));
    if (n->op == CT__JIT_FUSED) {
        const ct__jfused *f = n->fz;
        for (int k = 0; k < f->nops; k++) {
            const ct__jfop *q = &f->ops[k];
            char a[160], b[160];
            for (int j = 0; j < q->nin; j++) {
                char *dst = j ? b : a;
                if (q->src[j] >= 0) snprintf(dst, 160, "%s", ops[q->src[j]]);
                else snprintf(dst, 160, "t%d", -q->src[j] - 1);
            }
            if (ct__jx_expr(q->op, &q->a, a, q->nin > 1 ? b : "", e, sizeof e)) return ct__jx_fail(X, node, "a fused op with no C form");
            ct__jsb_printf(X->b, "        const float t%d = %s;\n", k, e);
            if (f->slot[k] < 0) {
                ct__jx_name(X, n->out[-f->slot[k] - 1], nm, sizeof nm);
                ct__jsb_printf(X->b, "        %s[i] = t%d;\n", nm, k);
            }
        }
    } else {
        if (ct__jx_expr(n->op, &n->a, ops[0], nin > 1 ? ops[1] : "", e, sizeof e)) return ct__jx_fail(X, node, "no C form for this op");
        ct__jx_name(X, n->out[0], nm, sizeof nm);
        ct__jsb_printf(X->b, "        %s[i] = %s;\n", nm, e);
    }
    ct__jsb_put(X->b, "    }\n", 6);
    return 0;
}
static int ct__jx_ints(const ct__jnode *n, const char *name, int64_t *out, int cnt) {
    ct_attr_value v;
    if (ct_attrs_get(n->op, &n->a, name, &v)) return -1;
    for (int k = 0; k < cnt; k++) out[k] = v.count > k ? v.ints[k] : (v.count == 1 ? v.ints[0] : 0);
    return 0;
}
/* The exported function's memory plan: one static arena. Each float32 node value
   (with its in-place aliases) lives from the node that makes it through its last
   reader, inclusive (a node reads its inputs while it writes its outputs); graph
   outputs to the end. Values are placed largest first, each at the lowest offset
   (a multiple of 16 floats) that overlaps no placed value whose lifetime overlaps
   its own (greedy by size, as TFLite's planner). off[v] gets the offset of each
   planned value (-1 for the others); returns the arena's size in floats, or -1. */
static int64_t ct__jx_plan(const ct_graph *g, int64_t *off, int64_t *naive) {
    int nv = g->nv > 0 ? g->nv : 1;
    int *first = (int *)CT_MALLOC((size_t)nv * sizeof(int)), *last = (int *)CT_MALLOC((size_t)nv * sizeof(int));
    int *order = (int *)CT_MALLOC((size_t)nv * sizeof(int));
    int64_t *size = (int64_t *)CT_MALLOC((size_t)nv * sizeof(int64_t));
    if (!first || !last || !order || !size) { CT_FREE(first); CT_FREE(last); CT_FREE(order); CT_FREE(size); return -1; }
    int np = 0;
    *naive = 0;
    for (int v = 0; v < g->nv; v++) {
        const ct__jval *x = &g->v[v];
        off[v] = -1;
        size[v] = 0;
        if (x->kind != CT__JV_NODE || x->alias != v || x->ndim < 0 || x->dtype != CT_FLOAT32) continue;
        size[v] = ((ct__jx_numel(x) > 0 ? ct__jx_numel(x) : 1) + 15) / 16 * 16;
        first[v] = last[v] = x->node;
        order[np++] = v;
        *naive += size[v];
    }
    for (int i = 0; i < g->nn; i++)
        for (int k = 0; k < g->n[i].nin; k++) {
            int r = g->n[i].in[k] >= 0 ? g->v[g->n[i].in[k]].alias : -1;
            if (r >= 0 && size[r] && last[r] < i) last[r] = i;
        }
    for (int i = 0; i < g->nn; i++)   /* an in-place alias made later extends its root */
        for (int k = 0; k < g->n[i].nout; k++) {
            int r = g->v[g->n[i].out[k]].alias;
            if (size[r] && last[r] < i) last[r] = i;
        }
    for (int k = 0; k < g->nout; k++) {
        int r = g->v[g->out[k]].alias;
        if (size[r]) last[r] = g->nn;
    }
    for (int a = 1; a < np; a++)      /* largest first (insertion sort: graphs are small) */
        for (int b = a; b > 0 && size[order[b]] > size[order[b - 1]]; b--) { int t = order[b]; order[b] = order[b - 1]; order[b - 1] = t; }
    int64_t total = 0;
    for (int a = 0; a < np; a++) {
        int v = order[a];
        int64_t o = 0;
        for (int moved = 1; moved;) {
            moved = 0;
            for (int b = 0; b < a; b++) {
                int u = order[b];
                if (first[u] > last[v] || first[v] > last[u]) continue;       /* lifetimes apart */
                if (o < off[u] + size[u] && off[u] < o + size[v]) { o = off[u] + size[u]; moved = 1; }
            }
        }
        off[v] = o;
        if (o + size[v] > total) total = o + size[v];
    }
    CT_FREE(first);
    CT_FREE(last);
    CT_FREE(order);
    CT_FREE(size);
    return total;
}
static int ct__jx_node(ct__jx *X, int node) {
    const ct_graph *g = X->g;
    const ct__jnode *n = &g->n[node];
    const char *s = ct__jit_node_name(n->op);
    char o0[32], i0[32], i1[32], i2[32];
    if (n->op == CT__JIT_IF || n->op == CT__JIT_LOOP)
        return ct__jx_fail(X, node, "control flow is not exported (the exported C is straight-line code with static shapes)");
    for (int k = 0; k < n->nin; k++)
        if (n->in[k] >= 0 && (g->v[n->in[k]].ndim < 0 || g->v[n->in[k]].dtype != CT_FLOAT32))
            return ct__jx_fail(X, node, "an input that is not float32 of known shape (run ct_graph_infer_shapes, or the op is outside the exported set)");
    const ct__jval *o = &g->v[n->out[0]];
    if (o->ndim < 0 || o->dtype != CT_FLOAT32) return ct__jx_fail(X, node, "an output that is not float32 of known shape");
    ct__jx_name(X, n->out[0], o0, sizeof o0);
    if (n->nin > 0 && n->in[0] >= 0) ct__jx_name(X, n->in[0], i0, sizeof i0); else i0[0] = 0;
    if (n->nin > 1 && n->in[1] >= 0) ct__jx_name(X, n->in[1], i1, sizeof i1); else i1[0] = 0;
    if (n->nin > 2 && n->in[2] >= 0) ct__jx_name(X, n->in[2], i2, sizeof i2); else i2[0] = 0;
    ct__jsb_printf(X->b, "  { /* %s */\n", s);
    int r = 0;
    if (n->op == CT__JIT_FUSED || (ct__jit_is_fusable_kernel(n->op) && n->nout == 1)) {
        r = ct__jx_elementwise(X, node);
    } else if (!strcmp(s, "aten::view") || !strcmp(s, "aten::_unsafe_view") || !strcmp(s, "aten::alias") || !strcmp(s, "aten::clone") ||
               !strcmp(s, "aten::_to_copy") || !strncmp(s, "aten::squeeze", 13) || !strcmp(s, "aten::unsqueeze") ||
               !strcmp(s, "aten::contiguous") || !strncmp(s, "aten::flatten", 13) || !strcmp(s, "aten::reshape")) {
        if (ct__jx_numel(&g->v[n->in[0]]) != ct__jx_numel(o)) r = ct__jx_fail(X, node, "a reshape that changes the element count");
        else ct__jsb_printf(X->b, "    memcpy(%s, %s, sizeof(float) * %lld);\n", o0, i0, (long long)ct__jx_numel(o));
    } else if (!strcmp(s, "aten::permute") || !strcmp(s, "aten::expand")) {
        const ct__jval *x = &g->v[n->in[0]];
        int64_t bs[CT_MAX_DIMS];
        if (s[6] == 'p') {
            int64_t dims[CT_MAX_DIMS], st[CT_MAX_DIMS], acc = 1;
            if (ct__jx_ints(n, "dims", dims, o->ndim)) return ct__jx_fail(X, node, "no dims");
            for (int d = x->ndim - 1; d >= 0; d--) { st[d] = acc; acc *= x->shape[d]; }
            for (int d = 0; d < o->ndim; d++) { int64_t dd = dims[d] < 0 ? dims[d] + x->ndim : dims[d]; bs[d] = st[dd]; }
        } else {
            ct__jx_bstrides(x, o->ndim, o->shape, bs);
        }
        ct__jx_shape_decl(X, o);
        ct__jsb_printf(X->b, "    static const long bs0[%d] = {", o->ndim > 0 ? o->ndim : 1);
        for (int d = 0; d < o->ndim; d++) ct__jsb_printf(X->b, d ? ", %lld" : "%lld", (long long)bs[d]);
        if (o->ndim == 0) ct__jsb_put(X->b, "0", 1);
        ct__jsb_printf(X->b, "};\n    for (long i = 0; i < %lldL; i++) %s[i] = %s[ct_bcast(i, %d, shp, bs0)];\n",
                       (long long)ct__jx_numel(o), o0, i0, o->ndim);
    } else if (!strcmp(s, "aten::addmm") || !strcmp(s, "aten::mm")) {
        int mm = s[6] == 'm';
        const ct__jval *A = &g->v[n->in[mm ? 0 : 1]], *B = &g->v[n->in[mm ? 1 : 2]];
        ct_attr_value be, al;
        double beta = 1, alpha = 1;
        if (!mm && !ct_attrs_get(n->op, &n->a, "beta", &be)) beta = be.f;
        if (!mm && !ct_attrs_get(n->op, &n->a, "alpha", &al)) alpha = al.f;
        int64_t M = A->shape[0], K = A->shape[1], N = B->shape[1];
        char bias[200];
        const char *a = mm ? i0 : i1, *b = mm ? i1 : i2;
        if (!mm) { ct__jx_shape_decl(X, o); ct__jx_operand(X, n->in[0], o->ndim, o->shape, 9, bias, sizeof bias); }
        ct__jsb_printf(X->b, "    for (long r = 0; r < %lldL; r++) {\n        for (long c = 0; c < %lldL; c++) %s[r * %lldL + c] = 0.0f;\n"
                       "        for (long k = 0; k < %lldL; k++) {\n            const float av = %s[r * %lldL + k];\n"
                       "            const float *br = %s + k * %lldL;\n            float *orow = %s + r * %lldL;\n"
                       "            for (long c = 0; c < %lldL; c++) orow[c] += av * br[c];\n        }\n",
                       (long long)M, (long long)N, o0, (long long)N, (long long)K, a, (long long)K, b, (long long)N, o0, (long long)N, (long long)N);
        if (!mm) {
            ct__jsb_printf(X->b, "        for (long c = 0; c < %lldL; c++) { const long i = r * %lldL + c; %s[i] = %af * %s + %af * %s[i]; }\n",
                           (long long)N, (long long)N, o0, beta, bias, alpha, o0);
        }
        ct__jsb_put(X->b, "    }\n", 6);
    } else if (!strcmp(s, "aten::conv2d") || !strcmp(s, "ct::conv2d_relu")) {
        const ct__jval *x = &g->v[n->in[0]], *w = &g->v[n->in[1]];
        const char *relu = s[1] == 't' ? "acc < 0.0f ? 0.0f : " : "";
        int64_t st[2], pd[2], dl[2], grp = 1;
        ct_attr_value gv;
        if (x->ndim != 4 || ct__jx_ints(n, "stride", st, 2) || ct__jx_ints(n, "padding", pd, 2) || ct__jx_ints(n, "dilation", dl, 2))
            return ct__jx_fail(X, node, "only 4-D inputs with int padding");
        if (!ct_attrs_get(n->op, &n->a, "groups", &gv)) grp = gv.i;
        int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3], O = w->shape[0], KH = w->shape[2], KW = w->shape[3];
        int64_t OH = o->shape[2], OW = o->shape[3], CG = C / grp, OG = O / grp;
        char binit[48];
        if (i2[0]) snprintf(binit, sizeof binit, "%s[oc]", i2);
        else snprintf(binit, sizeof binit, "0.0f");
        ct__jsb_printf(X->b,
            "    for (long nb = 0; nb < %lldL; nb++) for (long oc = 0; oc < %lldL; oc++) {\n"
            "        const long gi = oc / %lldL;\n"
            "        for (long oh = 0; oh < %lldL; oh++) for (long ow = 0; ow < %lldL; ow++) {\n"
            "            float acc = %s;\n"
            "            for (long ic = 0; ic < %lldL; ic++) for (long kh = 0; kh < %lldL; kh++) {\n"
            "                const long ih = oh * %lldL - %lldL + kh * %lldL;\n"
            "                if (ih < 0 || ih >= %lldL) continue;\n"
            "                for (long kw = 0; kw < %lldL; kw++) {\n"
            "                    const long iw = ow * %lldL - %lldL + kw * %lldL;\n"
            "                    if (iw < 0 || iw >= %lldL) continue;\n"
            "                    acc += %s[((nb * %lldL + gi * %lldL + ic) * %lldL + ih) * %lldL + iw] * %s[((oc * %lldL + ic) * %lldL + kh) * %lldL + kw];\n"
            "                }\n            }\n"
            "            %s[((nb * %lldL + oc) * %lldL + oh) * %lldL + ow] = %sacc;\n        }\n    }\n",
            (long long)N, (long long)O, (long long)OG, (long long)OH, (long long)OW, binit, (long long)CG, (long long)KH,
            (long long)st[0], (long long)pd[0], (long long)dl[0], (long long)H, (long long)KW, (long long)st[1], (long long)pd[1],
            (long long)dl[1], (long long)W, i0, (long long)C, (long long)CG, (long long)H, (long long)W, i1, (long long)CG,
            (long long)KH, (long long)KW, o0, (long long)O, (long long)OH, (long long)OW, relu);
    } else if (!strcmp(s, "aten::max_pool2d_with_indices") || !strcmp(s, "aten::avg_pool2d") || !strcmp(s, "aten::adaptive_avg_pool2d")) {
        const ct__jval *x = &g->v[n->in[0]];
        if (x->ndim != 4) return ct__jx_fail(X, node, "only 4-D inputs");
        int64_t C = x->shape[0] * x->shape[1], H = x->shape[2], W = x->shape[3], OH = o->shape[2], OW = o->shape[3];
        if (s[6] == 'a' && s[7] == 'd') {
            ct__jsb_printf(X->b,
                "    for (long c = 0; c < %lldL; c++) for (long oh = 0; oh < %lldL; oh++) for (long ow = 0; ow < %lldL; ow++) {\n"
                "        const long h0 = oh * %lldL / %lldL, h1 = ((oh + 1) * %lldL + %lldL - 1) / %lldL;\n"
                "        const long w0 = ow * %lldL / %lldL, w1 = ((ow + 1) * %lldL + %lldL - 1) / %lldL;\n"
                "        float acc = 0.0f;\n"
                "        for (long h = h0; h < h1; h++) for (long w = w0; w < w1; w++) acc += %s[(c * %lldL + h) * %lldL + w];\n"
                "        %s[(c * %lldL + oh) * %lldL + ow] = acc / (float)((h1 - h0) * (w1 - w0));\n    }\n",
                (long long)C, (long long)OH, (long long)OW, (long long)H, (long long)OH, (long long)H, (long long)OH, (long long)OH,
                (long long)W, (long long)OW, (long long)W, (long long)OW, (long long)OW, i0, (long long)H, (long long)W, o0,
                (long long)OH, (long long)OW);
        } else {
            int64_t k[2], st[2], pd[2], dl[2] = {1, 1};
            int mx = s[6] == 'm';
            if (ct__jx_ints(n, "kernel_size", k, 2) || ct__jx_ints(n, "stride", st, 2) || ct__jx_ints(n, "padding", pd, 2) ||
                (mx && ct__jx_ints(n, "dilation", dl, 2)))
                return ct__jx_fail(X, node, "pooling attributes");
            if (st[0] == 0) { st[0] = k[0]; st[1] = k[1]; }
            if (mx && n->nout > 1) {
                for (int i = 0; i < g->nn; i++)
                    for (int j = 0; j < g->n[i].nin; j++) if (g->n[i].in[j] == n->out[1]) return ct__jx_fail(X, node, "the indices output is read (only values are exported)");
                for (int j = 0; j < g->nout; j++) if (g->out[j] == n->out[1]) return ct__jx_fail(X, node, "the indices output is returned");
            }
            ct_attr_value cip, dov;
            int incl = mx || (ct_attrs_get(n->op, &n->a, "count_include_pad", &cip) == CT_OK && cip.i);
            int64_t div = (!mx && ct_attrs_get(n->op, &n->a, "divisor_override", &dov) == CT_OK && !dov.is_none) ? dov.i : 0;
            ct__jsb_printf(X->b,
                "    for (long c = 0; c < %lldL; c++) for (long oh = 0; oh < %lldL; oh++) for (long ow = 0; ow < %lldL; ow++) {\n"
                "        long hs = oh * %lldL - %lldL, ws = ow * %lldL - %lldL;\n"
                "        long he = hs + (%lldL - 1) * %lldL + 1, we = ws + (%lldL - 1) * %lldL + 1;\n"
                "        if (he > %lldL + %lldL) he = %lldL + %lldL;\n        if (we > %lldL + %lldL) we = %lldL + %lldL;\n"
                "        const long pool = (he - hs) * (we - ws);\n"
                "        float acc = %s;\n        long cnt = 0;\n"
                "        for (long h = hs; h < he; h += %lldL) for (long w = ws; w < we; w += %lldL) {\n"
                "            if (h < 0 || h >= %lldL || w < 0 || w >= %lldL) continue;\n"
                "            const float x = %s[(c * %lldL + h) * %lldL + w];\n"
                "            %s\n            cnt++;\n        }\n",
                (long long)C, (long long)OH, (long long)OW, (long long)st[0], (long long)pd[0], (long long)st[1], (long long)pd[1],
                (long long)k[0], (long long)dl[0], (long long)k[1], (long long)dl[1], (long long)H, (long long)pd[0], (long long)H,
                (long long)pd[0], (long long)W, (long long)pd[1], (long long)W, (long long)pd[1], mx ? "-INFINITY" : "0.0f",
                (long long)dl[0], (long long)dl[1], (long long)H, (long long)W, i0, (long long)H, (long long)W,
                mx ? "if (x > acc || x != x) acc = x;" : "acc += x;");
            if (mx) ct__jsb_printf(X->b, "        (void)pool; (void)cnt;\n        %s[(c * %lldL + oh) * %lldL + ow] = acc;\n    }\n", o0, (long long)OH, (long long)OW);
            else if (div) ct__jsb_printf(X->b, "        (void)pool; (void)cnt;\n        %s[(c * %lldL + oh) * %lldL + ow] = acc / %lld.0f;\n    }\n", o0, (long long)OH, (long long)OW, (long long)div);
            else ct__jsb_printf(X->b, "        %s[(c * %lldL + oh) * %lldL + ow] = acc / (float)(%s);\n    }\n", o0, (long long)OH, (long long)OW,
                                incl ? "pool" : "cnt");
        }
    } else if (!strcmp(s, "ct::batch_norm_eval")) {
        const ct__jval *x = &g->v[n->in[0]];
        int64_t C = x->ndim > 1 ? x->shape[1] : 1, inner = 1;
        for (int d = 2; d < x->ndim; d++) inner *= x->shape[d];
        ct__jsb_printf(X->b, "    for (long i = 0; i < %lldL; i++) { const long c = (i / %lldL) %% %lldL; %s[i] = %s[i] * %s[c] + %s[c]; }\n",
                       (long long)ct__jx_numel(o), (long long)inner, (long long)C, o0, i0, i1, i2);
    } else if (!strcmp(s, "aten::_softmax") || !strcmp(s, "aten::_log_softmax")) {
        ct_attr_value dv;
        if (ct_attrs_get(n->op, &n->a, "dim", &dv)) return ct__jx_fail(X, node, "no dim");
        int64_t d = dv.i < 0 ? dv.i + o->ndim : dv.i, outer = 1, len = o->ndim ? o->shape[d] : 1, inner = 1;
        for (int q = 0; q < d; q++) outer *= o->shape[q];
        for (int q = (int)d + 1; q < o->ndim; q++) inner *= o->shape[q];
        int lg = s[7] == 'l';
        ct__jsb_printf(X->b,
            "    const long is = %lldL;\n"
            "    for (long a = 0; a < %lldL; a++) for (long b = 0; b < is; b++) {\n"
            "        const float *x = %s + a * %lldL * is + b;\n        float *y = %s + a * %lldL * is + b;\n"
            "        float m = -INFINITY, s = 0.0f;\n"
            "        for (long k = 0; k < %lldL; k++) if (x[k * is] > m) m = x[k * is];\n"
            "        for (long k = 0; k < %lldL; k++) s += expf(x[k * is] - m);\n"
            "        for (long k = 0; k < %lldL; k++) y[k * is] = %s;\n    }\n",
            (long long)inner, (long long)outer, i0, (long long)len, o0, (long long)len, (long long)len, (long long)len,
            (long long)len, lg ? "x[k * is] - m - logf(s)" : "expf(x[k * is] - m) / s");
    } else {
        r = ct__jx_fail(X, node, "no C form for this op (the exported set: elementwise and fused groups, addmm/mm, conv2d, "
                                 "max/avg/adaptive-avg pooling, eval batch norm, softmax, view/reshape/permute/expand)");
    }
    ct__jsb_put(X->b, "  }\n", 4);
    return r;
}

CTENSOR_API ct_status ct_jit_export_c_mem(const ct_graph *g, const char *fn_name, char **text, size_t *len) {
    if (!g || !text || !len) { ct_set_error(CT_ERR_NULL, "jit_export_c: NULL argument"); return CT_ERR_NULL; }
    *text = NULL;
    *len = 0;
    const char *fn = fn_name ? fn_name : "model_forward";
    if (!isalpha((unsigned char)fn[0]) && fn[0] != '_') { ct_set_error(CT_ERR_ARG, "jit_export_c: '%s' is not a C identifier", fn); return CT_ERR_ARG; }
    for (const char *q = fn; *q; q++)
        if (!isalnum((unsigned char)*q) && *q != '_') { ct_set_error(CT_ERR_ARG, "jit_export_c: '%s' is not a C identifier", fn); return CT_ERR_ARG; }
    for (int i = 0; i < g->nn; i++)
        if (g->n[i].op == CT__JIT_IF || g->n[i].op == CT__JIT_LOOP) {
            ct_set_error(CT_ERR_UNSUPPORTED, "jit_export_c: node %d (%s): control flow is not exported (the exported C is straight-line code with static shapes)",
                         i, ct__jit_node_name(g->n[i].op));
            return CT_ERR_UNSUPPORTED;
        }
    if (g->dyn_batch) { ct_set_error(CT_ERR_UNSUPPORTED, "jit_export_c: the graph has a dynamic batch dimension; the exported C has static shapes (ct_graph_set_dynamic_batch(g, 0))"); return CT_ERR_UNSUPPORTED; }
    for (int i = 0; i < g->nin; i++) {
        const ct__jval *x = &g->v[g->in[i]];
        if (x->ndim < 0 || x->dtype != CT_FLOAT32) { ct_set_error(CT_ERR_UNSUPPORTED, "jit_export_c: input %d (%%%s) is not float32 of known shape", i, x->name); return CT_ERR_UNSUPPORTED; }
    }
    for (int k = 0; k < g->nout; k++) {
        const ct__jval *x = &g->v[g->out[k]];
        if (x->ndim < 0 || x->dtype != CT_FLOAT32) { ct_set_error(CT_ERR_UNSUPPORTED, "jit_export_c: output %d is not float32 of known shape", k); return CT_ERR_UNSUPPORTED; }
    }
    ct__jsb b = {NULL, 0, 0, 0};
    ct__jx X;
    X.b = &b;
    X.g = g;
    X.err[0] = 0;
    ct__jsb_printf(&b, "/* Generated by ctensor_jit.h (ct_jit_export_c): %d nodes, %d inputs, %d outputs.\n"
                       "   Standalone C99: no ctensor, no allocation; static buffers, so not reentrant.\n"
                       "   Build: cc -std=c99 -O2 -c this_file.c (link with -lm). */\n"
                       "#include <math.h>\n#include <string.h>\n\n", g->nn, g->nin, g->nout);
    size_t prelude = b.len;
    /* constants: their logical (contiguous) values */
    for (int v = 0; v < g->nv && !b.oom; v++) {
        const ct__jval *x = &g->v[v];
        if (x->kind != CT__JV_PARAM && x->kind != CT__JV_CONST) continue;
        if (x->t->dtype != CT_FLOAT32) {
            CT_FREE(b.p);
            ct_set_error(CT_ERR_UNSUPPORTED, "jit_export_c: constant %%%s is %s (only float32 is exported)", x->name, ct_dtype_name(x->t->dtype));
            return CT_ERR_UNSUPPORTED;
        }
        int tok = ct_scope_begin();
        ct_tensor *c = ct_contiguous(ct_to_device(x->t, ct_cpu()));
        if (!c) { ct_scope_end(tok); CT_FREE(b.p); return ct_last_error_code(); }
        const float *d = (const float *)ct_data_ptr(c);
        int64_t n = ct_numel(c);
        ct__jsb_printf(&b, "/* %%%s */\nstatic const float w%d[%lld] = {", x->name, v, (long long)(n > 0 ? n : 1));
        for (int64_t i = 0; i < n; i++) {
            if (i % 6 == 0) ct__jsb_put(&b, "\n   ", 4);
            if (isfinite(d[i])) ct__jsb_printf(&b, " %af,", (double)d[i]);
            else ct__jsb_printf(&b, " %s,", d[i] != d[i] ? "NAN" : d[i] > 0 ? "INFINITY" : "-INFINITY");
        }
        if (n == 0) ct__jsb_put(&b, "0", 1);
        ct__jsb_put(&b, "\n};\n", 4);
        ct_scope_end(tok);
    }
    int64_t *off = (int64_t *)CT_MALLOC((size_t)(g->nv > 0 ? g->nv : 1) * sizeof(int64_t)), naive = 0;
    int64_t arena = off ? ct__jx_plan(g, off, &naive) : -1;
    if (arena < 0) { CT_FREE(off); CT_FREE(b.p); ct_set_error(CT_ERR_MEMORY, "jit_export_c: out of memory"); return CT_ERR_MEMORY; }
    ct__jsb_printf(&b, "\n/* memory plan: the values share one arena of %lld floats (%lld without reuse) */\n"
                       "static float ct_arena[%lld];\n", (long long)arena, (long long)naive, (long long)(arena > 0 ? arena : 1));
    for (int v = 0; v < g->nv; v++)
        if (off[v] >= 0) ct__jsb_printf(&b, "static float *const v%d = ct_arena + %lld;\n", v, (long long)off[v]);
    CT_FREE(off);
    ct__jsb_printf(&b, "\nvoid %s(", fn);
    for (int i = 0; i < g->nin; i++) ct__jsb_printf(&b, "%sconst float *in%d", i ? ", " : "", i);
    for (int k = 0; k < g->nout; k++) ct__jsb_printf(&b, "%sfloat *out%d", (g->nin || k) ? ", " : "", k);
    if (g->nin + g->nout == 0) ct__jsb_put(&b, "void", 4);
    ct__jsb_put(&b, ") {\n", 4);
    /* in-place ops write their input's array: elementwise ones only (each element is
       read before it is written), and never into an input or a constant */
    for (int i = 0; i < g->nn; i++) {
        const ct__jnode *n = &g->n[i];
        if (!n->inplace) continue;
        if (n->nout != 1 || !ct__jit_is_fusable_kernel(n->op) || g->v[g->v[n->out[0]].alias].kind != CT__JV_NODE) {
            ct_set_error(CT_ERR_UNSUPPORTED, "jit_export_c: node %d (%s) writes in place into %s; export a graph traced without it", i,
                         ct_op_schema_name(n->op), g->v[g->v[n->out[0]].alias].kind == CT__JV_NODE ? "a value" : "an input or constant");
            CT_FREE(b.p);
            return CT_ERR_UNSUPPORTED;
        }
    }
    int rc = 0;
    for (int i = 0; i < g->nn && !rc; i++) rc = ct__jx_node(&X, i);
    if (rc) {
        CT_FREE(b.p);
        ct_set_error(CT_ERR_UNSUPPORTED, "jit_export_c: %s", X.err);
        return CT_ERR_UNSUPPORTED;
    }
    for (int k = 0; k < g->nout; k++) {
        char nm[32];
        ct__jx_name(&X, g->out[k], nm, sizeof nm);
        ct__jsb_printf(&b, "  memcpy(out%d, %s, sizeof(float) * %lld);\n", k, nm, (long long)ct__jx_numel(&g->v[g->out[k]]));
    }
    ct__jsb_put(&b, "}\n", 2);
    if (!b.oom && strstr(b.p + prelude, "ct_bcast(")) {   /* the broadcast helper, where it is used */
        static const char helper[] =
            "/* the offset of element i of an output of shape shp in an operand read with strides bs (0: broadcast) */\n"
            "static long ct_bcast(long i, int nd, const long *shp, const long *bs) {\n"
            "    long off = 0;\n    for (int d = nd - 1; d >= 0; d--) { off += (i % shp[d]) * bs[d]; i /= shp[d]; }\n    return off;\n}\n\n";
        ct__jsb t = {NULL, 0, 0, 0};
        ct__jsb_put(&t, b.p, prelude);
        ct__jsb_put(&t, helper, sizeof helper - 1);
        ct__jsb_put(&t, b.p + prelude, b.len - prelude);
        CT_FREE(b.p);
        b = t;
    }
    if (b.oom) { CT_FREE(b.p); ct_set_error(CT_ERR_MEMORY, "jit_export_c: out of memory"); return CT_ERR_MEMORY; }
    *text = b.p;
    *len = b.len;
    return CT_OK;
}
#ifndef CTENSOR_NO_STDIO
CTENSOR_API ct_status ct_jit_export_c(const ct_graph *g, const char *path, const char *fn_name) {
    if (!path) { ct_set_error(CT_ERR_NULL, "jit_export_c: path is NULL"); return CT_ERR_NULL; }
    char *text = NULL;
    size_t len = 0;
    ct_status st = ct_jit_export_c_mem(g, fn_name, &text, &len);
    if (st) return st;
    FILE *f = fopen(path, "wb");
    int bad = !f || fwrite(text, 1, len, f) != len;
    if (f && fclose(f)) bad = 1;
    CT_FREE(text);
    if (bad) { ct_set_error(CT_ERR_IO, "jit_export_c: cannot write %s", path); return CT_ERR_IO; }
    return CT_OK;
}
#endif

/* ---- the op list of a selective build (ct_jit_export_selected_ops) ----------
   Op table rows by stable name: ctensor.h's, and those of the companion headers
   whose implementation came before this one (their X-macro lists are visible);
   NAME is the row's first field, the CTENSOR_OP_<NAME> switch of CT__SEL. */
typedef struct ct__jopname { const char *sname, *ename, *header; } ct__jopname;
#define CT__JIT_X_NAME(E, sname, ...) {sname, #E, NULL},
#define CT__JIT_X_NAME_NN(E, sname, ...) {sname, #E, "NN"},
#define CT__JIT_X_NAME_LA(E, sname, ...) {sname, #E, "LINALG"},
#define CT__JIT_X_NAME_Q(E, sname, ...) {sname, #E, "QUANT"},
#define CT__JIT_X_NAME_SP(E, sname, ...) {sname, #E, "SPECIAL"},
static const ct__jopname ct__jit_opnames[] = {
    CT__OPS(CT__JIT_X_NAME)
#ifdef CT__NN_OPS
    CT__NN_OPS(CT__JIT_X_NAME_NN)
#endif
#ifdef CT__LA_OPS
    CT__LA_OPS(CT__JIT_X_NAME_LA)
#endif
#ifdef CT__Q_OPS
    CT__Q_OPS(CT__JIT_X_NAME_Q)
#endif
#ifdef CT__SP_OPS
    CT__SP_OPS(CT__JIT_X_NAME_SP)
#endif
};
#undef CT__JIT_X_NAME
#undef CT__JIT_X_NAME_NN
#undef CT__JIT_X_NAME_LA
#undef CT__JIT_X_NAME_Q
#undef CT__JIT_X_NAME_SP
static void ct__jit_mark_runtime(const ct_graph *g, int *fused, int *loop) {
    for (int i = 0; i < g->nn; i++) {
        *fused |= g->n[i].op == CT__JIT_FUSED;
        *loop |= g->n[i].op == CT__JIT_LOOP;
        for (int q = 0; q < 2; q++) if (g->n[i].sub[q]) ct__jit_mark_runtime(g->n[i].sub[q], fused, loop);
    }
}
CTENSOR_API ct_status ct_jit_export_selected_ops_mem(const ct_graph *g, char **text, size_t *len) {
    if (!g || !text || !len) { ct_set_error(CT_ERR_NULL, "jit_export_selected_ops: NULL argument"); return CT_ERR_NULL; }
    *text = NULL;
    *len = 0;
    int n = ct_graph_ops_used(g, NULL, 0);
    if (n < 0) return ct_last_error_code();
    const char **names = (const char **)CT_MALLOC((size_t)(n + 3) * sizeof(char *));
    if (!names) { ct_set_error(CT_ERR_MEMORY, "jit_export_selected_ops: out of memory"); return CT_ERR_MEMORY; }
    ct_graph_ops_used(g, names, n);
    int fused = 0, loop = 0, nrt = 0;
    ct__jit_mark_runtime(g, &fused, &loop);
    const char *rt[3], *why[3];
    rt[nrt] = "aten::alias"; why[nrt++] = "graph outputs that are inputs or constants";
    if (fused) { rt[nrt] = "aten::clone"; why[nrt++] = "a fused group's strided input made contiguous"; }
    if (loop) { rt[nrt] = "aten::full"; why[nrt++] = "prim::Loop's counter"; }
    ct__jsb b = {NULL, 0, 0, 0};
    const char *headers[4] = {"NN", "LINALG", "QUANT", "SPECIAL"};
    int need[4] = {0, 0, 0, 0};
    ct__jsb_printf(&b, "/* The selective build of a ctensor_jit graph (ct_jit_export_selected_ops): %d op%s.\n"
                       "   Include before ctensor.h in the file that defines CTENSOR_IMPLEMENTATION. */\n"
                       "#define CTENSOR_SELECTED_OPS 1\n", n, n == 1 ? "" : "s");
    ct_status st = CT_OK;
    for (int k = 0; k < n + nrt && !st; k++) {
        const char *sn = k < n ? names[k] : rt[k - n];
        if (k >= n) {   /* the interpreter's own, unless the graph runs it already */
            int dup = 0;
            for (int j = 0; j < n; j++) dup |= !strcmp(names[j], sn);
            if (dup) continue;
        }
        const ct__jopname *row = NULL;
        for (size_t r = 0; r < sizeof ct__jit_opnames / sizeof ct__jit_opnames[0] && !row; r++)
            if (!strcmp(ct__jit_opnames[r].sname, sn)) row = &ct__jit_opnames[r];
        if (!row) {
            ct_set_error(CT_ERR_UNSUPPORTED, "jit_export_selected_ops: op %s is not in the op lists of the headers this file was compiled with "
                         "(include its header before ctensor_jit.h)", sn);
            st = CT_ERR_UNSUPPORTED;
            break;
        }
        for (int h = 0; h < 4; h++) need[h] |= row->header && !strcmp(row->header, headers[h]);
        ct__jsb_printf(&b, "#define CTENSOR_OP_%s 1   /* %s%s%s */\n", row->ename, sn, k < n ? "" : ": the interpreter, ", k < n ? "" : why[k - n]);
    }
    for (int h = 0; h < 4 && !st; h++)
        if (need[h]) ct__jsb_printf(&b, "#define CTENSOR_JIT_USES_%s 1   /* ops of ctensor_%s.h: include it */\n", headers[h],
                                    h == 0 ? "nn" : h == 1 ? "linalg" : h == 2 ? "quant" : "special");
    CT_FREE((void *)names);
    if (!st && b.oom) { ct_set_error(CT_ERR_MEMORY, "jit_export_selected_ops: out of memory"); st = CT_ERR_MEMORY; }
    if (st) { CT_FREE(b.p); return st; }
    *text = b.p;
    *len = b.len;
    return CT_OK;
}
#ifndef CTENSOR_NO_STDIO
CTENSOR_API ct_status ct_jit_export_selected_ops(const ct_graph *g, const char *path) {
    if (!path) { ct_set_error(CT_ERR_NULL, "jit_export_selected_ops: path is NULL"); return CT_ERR_NULL; }
    char *text = NULL;
    size_t len = 0;
    ct_status st = ct_jit_export_selected_ops_mem(g, &text, &len);
    if (st) return st;
    FILE *f = fopen(path, "wb");
    int bad = !f || fwrite(text, 1, len, f) != len;
    if (f && fclose(f)) bad = 1;
    CT_FREE(text);
    if (bad) { ct_set_error(CT_ERR_IO, "jit_export_selected_ops: cannot write %s", path); return CT_ERR_IO; }
    return CT_OK;
}
#endif

#ifdef CTENSOR_NN_H_INCLUDED
CTENSOR_API ct_graph *ct_trace_module(ct_module *m, int nin, ct_tensor *const *inputs) {
    if (!m) { ct_set_error(CT_ERR_NULL, "trace_module: module is NULL"); return NULL; }
    ct__jtrace *tr = NULL;
    if (ct__jit_trace_start(nin, inputs, &tr)) return NULL;
    ct_state_dict sd;
    if (ct_module_state_dict(m, &sd)) { ct__jit_trace_destroy(tr); return NULL; }
    tr->named_t = (ct_tensor **)CT_MALLOC((size_t)(sd.n > 0 ? sd.n : 1) * sizeof(ct_tensor *));
    tr->named_s = (char **)CT_MALLOC((size_t)(sd.n > 0 ? sd.n : 1) * sizeof(char *));
    if (!tr->named_t || !tr->named_s) { ct_state_dict_free(&sd); ct__jit_trace_destroy(tr); ct_set_error(CT_ERR_MEMORY, "trace_module: out of memory"); return NULL; }
    for (int i = 0; i < sd.n; i++) {
        tr->named_t[i] = sd.items[i].tensor;
        tr->named_s[i] = sd.items[i].name;     /* the trace takes the strings */
        sd.items[i].name = NULL;
        tr->nnamed++;
    }
    ct_state_dict_free(&sd);
    if (ct__jit_trace_listen(tr)) return NULL;
    ct_tensor *y = NULL;
    int tok = ct_scope_begin();
    y = ct_forward_n(m, nin, inputs);
    if (!y) {
        char msg[768];
        ct__jit_errcopy(msg, sizeof msg);
        ct_trace_abort();
        ct_scope_end(tok);
        ct_set_error(CT_ERR_STATE, "trace_module: the forward pass failed: %s", msg);
        return NULL;
    }
    ct_graph *g = ct_trace_end(1, &y);
    ct_scope_end(tok);
    return g;
}
#endif

/* ---- 2.8 Graph-mode quantization ----------------------------------------------
   prepare: clone, freeze, fold batch norms, CSE and DCE, then match the patterns
   (a head: conv2d or addmm / mm with a constant weight; its relu when the relu is
   the head's only reader) and hang observers on values (g->qobs). convert: the
   weights are quantized and packed first, then the prepared graph is walked once
   under the tracer, calling ctensor_quant.h's ops on example inputs: the trace is
   the converted graph (the packed weights its constants). */
#if defined(CTENSOR_QUANT_IMPLEMENTATION) && defined(CTENSOR_QUANT_H_INCLUDED)
enum { CT__JQ_CONV = 1, CT__JQ_ADDMM = 2, CT__JQ_MM = 3, CT__JQ_ADD = 4, CT__JQ_CAT = 5 };
typedef struct ct__jq_ops { int conv, crelu, addmm, mm, relu, add, cat; } ct__jq_ops;
static void ct__jq_find_ops(ct__jq_ops *o) {
    o->conv = ct_op_find("aten::conv2d");
    o->crelu = ct_op_find("ct::conv2d_relu");      /* ct_jit_fuse_activation's conv2d + relu */
    o->addmm = ct_op_find("aten::addmm");
    o->mm = ct_op_find("aten::mm");
    o->relu = ct_op_find("aten::relu");
    o->add = ct_op_find("aten::add.Tensor");
    o->cat = ct_op_find("aten::cat");
}
/* a float32 activation: a graph input or a node's output (not a constant) */
static int ct__jq_act(const ct_graph *g, int v) {
    return v >= 0 && v < g->nv && (g->v[v].kind == CT__JV_INPUT || g->v[v].kind == CT__JV_NODE) && g->v[v].dtype == CT_FLOAT32;
}
static int ct__jq_const(const ct_graph *g, int v, int ndim) {
    return v >= 0 && v < g->nv && g->v[v].kind == CT__JV_CONST && g->v[v].t && g->v[v].t->ndim == ndim &&
           g->v[v].t->dtype == CT_FLOAT32;
}
/* the pattern node i heads (0: none) */
static int ct__jq_head(const ct_graph *g, const ct__jq_ops *o, int i) {
    const ct__jnode *n = &g->n[i];
    if (n->inplace || n->nout != 1 || n->nin < 2 || n->in[0] < 0) return 0;
    if ((n->op == o->conv || (o->crelu >= 0 && n->op == o->crelu)) && (n->nin == 2 || n->nin == 3) && ct__jq_const(g, n->in[1], 4) &&
        (n->nin == 2 || n->in[2] < 0 || ct__jq_const(g, n->in[2], 1)))
        return CT__JQ_CONV;
    if (n->op == o->addmm && n->nin == 3 && n->a.s[0] == 1.0 && n->a.s[1] == 1.0 && ct__jq_const(g, n->in[0], 1) &&
        ct__jq_const(g, n->in[2], 2) && g->v[n->in[0]].t->shape[0] == g->v[n->in[2]].t->shape[1])
        return CT__JQ_ADDMM;
    if (n->op == o->mm && n->nin == 2 && ct__jq_const(g, n->in[1], 2)) return CT__JQ_MM;
    /* add of two activations (alpha 1): quantized::add; cat of activations: quantized::cat */
    if (n->op == o->add && n->nin == 2 && n->a.s[0] == 1.0 && ct__jq_act(g, n->in[0]) && ct__jq_act(g, n->in[1])) return CT__JQ_ADD;
    if (n->op == o->cat && n->nin >= 1 && n->nin <= 64) {
        for (int k = 0; k < n->nin; k++)
            if (!ct__jq_act(g, n->in[k])) return 0;
        return CT__JQ_CAT;
    }
    return 0;
}
/* readers of value v (graph outputs count) and the last reading node */
static int ct__jq_readers(const ct_graph *g, int v, int *reader) {
    int c = 0;
    *reader = -1;
    for (int i = 0; i < g->nn; i++)
        for (int k = 0; k < g->n[i].nin; k++)
            if (g->n[i].in[k] == v) { c++; *reader = i; }
    for (int k = 0; k < g->nout; k++)
        if (g->out[k] == v) { c++; *reader = -1; }
    return c;
}
/* the relu node fused with head i (i itself for ct::conv2d_relu, its relu inside), or -1 */
static int ct__jq_relu_of(const ct_graph *g, const ct__jq_ops *o, int i) {
    int r;
    if (g->n[i].op == o->cat) return -1;
    if (o->crelu >= 0 && g->n[i].op == o->crelu) return i;
    if (ct__jq_readers(g, g->n[i].out[0], &r) != 1 || r < 0) return -1;
    const ct__jnode *n = &g->n[r];
    return n->op == o->relu && n->nin == 1 && n->nout == 1 ? r : -1;   /* relu_ too (ct_jit_fuse_activation makes it) */
}
/* the node making value v when it runs op `op` (a name), else -1 */
static int ct__jq_def(const ct_graph *g, int v, const char *op) {
    if (v < 0 || v >= g->nv || g->v[v].kind != CT__JV_NODE) return -1;
    int i = g->v[v].node;
    return i >= 0 && g->n[i].op == ct_op_find(op) ? i : -1;
}
/* a parameter or constant, directly or through a dtype copy (_to_copy) */
static ct_tensor *ct__jq_leaf(const ct_graph *g, int v) {
    int i = ct__jq_def(g, v, "aten::_to_copy");
    if (i >= 0) v = g->n[i].in[0];
    if (v < 0 || v >= g->nv || (g->v[v].kind != CT__JV_PARAM && g->v[v].kind != CT__JV_CONST)) return NULL;
    return g->v[v].t && g->v[v].t->dtype == CT_FLOAT32 ? g->v[v].t : NULL;
}
/* conv2d -> traced eval-mode batch norm, folded before freezing with the formula
   (and the rounding) of ctensor_quant.h's fuse_modules / PyTorch's fuse_conv_bn:
   w * (gamma * rsqrt(var + eps)), ((b - mean) * rsqrt(var + eps)) * gamma + beta.
   The batch norm's scale and shift were traced as
   scale = rsqrt(var + eps) * gamma, shift = beta - mean * scale. */
typedef struct ct__jqbnm { int conv, wv, bv, lin; int64_t C; ct_tensor *gamma, *beta, *rm, *rv, *W, *B; double eps, momentum; } ct__jqbnm;
/* the head a batch norm reads (value v, read by it alone): a conv2d, or a linear
   traced as addmm(b, x, permute(W)) / mm(x, permute(W)) (W: [out, in]; a constant
   weight already transposed, [in, out], is read through); fills m's head fields
   (lin 1 for a linear; C its output channels / features) */
static int ct__jq_bn_head(const ct_graph *g, int v, ct__jqbnm *m) {
    int r, c = ct__jq_def(g, v, "aten::conv2d"), ad = ct__jq_def(g, v, "aten::addmm"), mm = ct__jq_def(g, v, "aten::mm");
    int h = c >= 0 ? c : ad >= 0 ? ad : mm;
    if (h < 0 || ct__jq_readers(g, v, &r) != 1 || g->n[h].inplace || g->n[h].nin < 2) return 0;
    const ct__jnode *n = &g->n[h];
    m->conv = h;
    m->lin = c < 0;
    m->wv = c >= 0 ? n->in[1] : n->in[ad >= 0 ? 2 : 1];
    m->bv = c >= 0 ? (n->nin == 3 ? n->in[2] : -1) : ad >= 0 ? n->in[0] : -1;
    if (ad >= 0 && (n->nin != 3 || n->a.s[0] != 1.0 || n->a.s[1] != 1.0)) return 0;
    if (mm >= 0 && n->nin != 2) return 0;
    if (m->wv < 0 || (m->bv >= 0 && g->v[m->bv].kind != CT__JV_PARAM && g->v[m->bv].kind != CT__JV_CONST)) return 0;
    m->B = m->bv >= 0 ? g->v[m->bv].t : NULL;
    if (!m->lin) {
        if (g->v[m->wv].kind != CT__JV_PARAM && g->v[m->wv].kind != CT__JV_CONST) return 0;
        m->W = g->v[m->wv].t;
        m->C = m->W && m->W->ndim == 4 ? m->W->shape[0] : -1;
        return m->W && m->W->ndim == 4 && m->W->dtype == CT_FLOAT32;
    }
    int pm = ct__jq_def(g, m->wv, "aten::permute");
    ct_tensor *w = pm >= 0 && g->n[pm].a.nv == 2 && g->n[pm].a.v[0] == 1 && g->n[pm].a.v[1] == 0 ? ct__jq_leaf(g, g->n[pm].in[0]) : NULL;
    ct_tensor *wt = pm < 0 ? ct__jq_leaf(g, m->wv) : NULL;
    m->W = w ? w : wt;
    m->C = w && w->ndim == 2 ? w->shape[0] : wt && wt->ndim == 2 ? wt->shape[1] : -1;
    return m->W && m->W->ndim == 2 && (!m->B || m->B->dtype == CT_FLOAT32);
}
/* node i: an eval-mode batch norm traced after a conv2d or linear that only it reads
   (the scale and shift made of the batch norm's parameters, as ct_batch_norm traces them) */
static int ct__jq_match_bn(const ct_graph *g, int i, ct__jqbnm *m) {
    int bn = ct_op_find("ct::batch_norm_eval");
    const ct__jnode *b = &g->n[i];
    if (bn < 0 || b->op != bn || b->nin != 3 || b->in[0] < 0 || b->in[1] < 0 || b->in[2] < 0) return 0;
    if (!ct__jq_bn_head(g, b->in[0], m)) return 0;
    int sm = ct__jq_def(g, b->in[1], "aten::mul.Tensor"), ta = ct__jq_def(g, b->in[2], "aten::add.Tensor");
    if (sm < 0 || ta < 0) return 0;
    int rq = ct__jq_def(g, g->n[sm].in[0], "aten::rsqrt");
    int ad = rq >= 0 ? ct__jq_def(g, g->n[rq].in[0], "aten::add.Tensor") : -1;
    int ng = ct__jq_def(g, g->n[ta].in[0], "aten::neg");
    int mm = ng >= 0 ? ct__jq_def(g, g->n[ng].in[0], "aten::mul.Tensor") : -1;
    if (ad < 0 || mm < 0 || g->n[mm].in[1] != b->in[1] || g->n[ad].a.s[0] != 1.0 || g->n[ta].a.s[0] != 1.0) return 0;
    ct_tensor *epst = ct__jq_leaf(g, g->n[ad].in[1]);
    m->gamma = ct__jq_leaf(g, g->n[sm].in[1]);
    m->beta = ct__jq_leaf(g, g->n[ta].in[1]);
    m->rv = ct__jq_leaf(g, g->n[ad].in[0]);
    m->rm = ct__jq_leaf(g, g->n[mm].in[0]);
    m->eps = epst && ct_numel(epst) == 1 ? ct_item(epst) : 0;
    m->momentum = b->a.s[0];
    return m->gamma && m->beta && m->rv && m->rm && epst && ct_numel(epst) == 1;
}
/* PyTorch's fuse_conv_bn_weights (ctensor_quant.h's fold, its rounding); for a
   linear weight W [out, in], fuse_linear_bn_weights: (b - mean) * (gamma * rsqrt(var + eps)) + beta */
static int ct__jq_fold_bn_math(ct_tensor *W, ct_tensor *B, ct_tensor *gamma, ct_tensor *beta, ct_tensor *rm, ct_tensor *rv, double eps,
                               ct_tensor **nw, ct_tensor **nb) {
    const int64_t col[4] = {-1, 1, 1, 1};
    const int nd = W->ndim == 2 ? 2 : 4;
    ct_tensor *rs = ct_rsqrt(ct_add_scalar(rv, eps)), *sc = ct_mul(gamma, rs);
    ct_tensor *bias = B ? ct_detach(B) : ct_zeros_like(rm);
    *nw = ct_contiguous(ct_mul(ct_detach(W), ct_view_n(sc, nd, col)));
    *nb = ct_contiguous(nd == 2 ? ct_add(ct_mul(ct_sub(bias, rm), sc), beta) : ct_add(ct_mul(ct_mul(ct_sub(bias, rm), rs), gamma), beta));
    return *nw && *nb && ct_numel(*nb) == W->shape[0] ? 0 : -1;
}
static ct_status ct__jq_fold_bn_exact(ct_graph *g) {
    ct_status st = CT_OK;
    for (int i = 0; i < g->nn && !st; i++) {
        ct__jqbnm m;
        if (!ct__jq_match_bn(g, i, &m) || m.lin) continue;   /* a linear's: ct_jit_fold_linear_bn */
        int c = m.conv, cv = g->n[i].in[0];
        int tok = ct_scope_begin(), prev = ct_set_grad_enabled(0);
        ct_tensor *nw = NULL, *nb = NULL;
        int bad = ct__jq_fold_bn_math(m.W, m.B, m.gamma, m.beta, m.rm, m.rv, m.eps, &nw, &nb);
        ct_set_grad_enabled(prev);
        if (!bad) {
            int nwv = ct__jit_new_val(g, CT__JV_CONST, NULL);
            int nbv = nwv < 0 ? -1 : ct__jit_new_val(g, CT__JV_CONST, NULL);
            ct__jnode *cn = &g->n[c];
            int *in3 = cn->nin == 3 ? cn->in : (int *)CT_REALLOC(cn->in, 3 * sizeof(int));
            if (in3) { cn->in = in3; cn->nin = 3; }
            if (nbv < 0 || !in3 || ct__jit_make_const(g, nwv, nw) || ct__jit_make_const(g, nbv, nb)) st = CT_ERR_MEMORY;
            else {
                g->n[c].in[1] = nwv;
                g->n[c].in[2] = nbv;
                ct__jit_replace(g, g->n[i].out[0], cv, i);
                g->n[i].op = -1;
            }
        } else {
            ct_clear_error();
        }
        ct_scope_end(tok);
    }
    if (st) { ct_set_error(CT_ERR_MEMORY, "jit_quant_prepare: out of memory"); return st; }
    return ct__jit_drop_nodes(g);
}
static const char *ct__jq_obsname(void *obs) { return ((ct_module *)obs)->type->name; }
static int ct__jq_observe(void *obs, ct_tensor *t) {
    int prev = ct_set_grad_enabled(0);
    ct_tensor *r = ct_forward((ct_module *)obs, t);
    ct_set_grad_enabled(prev);
    return r ? 0 : -1;
}
static void ct__jq_free(ct_graph *g) {
    for (int v = 0; g->qobs && v < g->nv; v++) {        /* a shared observer (a cat's) freed once */
        void *m = g->qobs[v];
        if (!m) continue;
        for (int u = v; u < g->nv; u++)
            if (g->qobs[u] == m) g->qobs[u] = NULL;
        ct_module_free((ct_module *)m);
    }
    for (int i = 0; g->qw && i < g->nn; i++) {
        if (g->qw[i].fq) ct_module_free((ct_module *)g->qw[i].fq);
        CT_FREE(g->qw[i].cb);                        /* its modules are in qobs */
    }
    CT_FREE(g->qobs);
    CT_FREE(g->qcfg);
    CT_FREE(g->qw);
    g->qobs = NULL;
    g->qcfg = NULL;
    g->qw = NULL;
}
static ct_status ct__jq_add_observer(ct_graph *g, const ct_qconfig *qc, int v) {
    if (g->qobs[v]) return CT_OK;
    ct_module *m = ct_observer_factory_make(&qc->activation);
    if (!m) return ct_last_error_code() ? ct_last_error_code() : CT_ERR_ARG;
    g->qobs[v] = m;
    return CT_OK;
}
/* FX's shared observer for a cat: its inputs' and output's observers become one
   (every value watched by a merged observer moves to the first input's) */
static void ct__jq_share(ct_graph *g, int i) {
    const ct__jnode *n = &g->n[i];
    void *rep = g->qobs[n->in[0]];
    for (int k = 1; k <= n->nin; k++) {
        void *m = g->qobs[k < n->nin ? n->in[k] : n->out[0]];
        if (!m || m == rep) continue;
        for (int v = 0; v < g->nv; v++)
            if (g->qobs[v] == m) g->qobs[v] = rep;
        ct_module_free((ct_module *)m);
    }
}
static int ct__jq_cb_hook(const ct_graph *g, const void *m);
CTENSOR_API int ct_jit_quant_num_observers(const ct_graph *g) {
    if (!g) { ct_set_error(CT_ERR_NULL, "jit_quant_num_observers: graph is NULL"); return -1; }
    int c = 0;
    for (int v = 0; g->qobs && v < g->nv; v++) {        /* distinct observers (a cat's is shared) */
        int seen = 0;
        for (int u = 0; u < v && !seen && g->qobs[v]; u++) seen = g->qobs[u] == g->qobs[v];
        c += g->qobs[v] != NULL && !seen && !ct__jq_cb_hook(g, g->qobs[v]);
    }
    return c;
}
/* QAT: a conv2d -> batch norm kept as ConvBn2d, a linear -> batch norm as
   LinearBn1d. Before prepare's folds, each is taken out of the graph (the conv2d
   then reads as one the batch norm was folded into: the same patterns and
   observers; a linear's batch norm leaves an alias, so that a relu after it does
   not join the pattern), its statistics and affine parameters copied into a
   BatchNorm2d / BatchNorm1d module; `ord` counts the conv2d (or addmm and mm)
   nodes before it (the passes drop nodes, never reorder them). */
typedef struct ct__jqtake { int ord, lin; ct_module *bn; double eps; } ct__jqtake;
/* the shortest decimal that rounds to the traced float32 eps or momentum (1e-05,
   the module's double, not 9.99999974737875e-06) */
static double ct__jq_eps(double e) {
    for (int p = 1; p <= 9; p++) {
        char buf[40];
        snprintf(buf, sizeof buf, "%.*g", p, e);
        double d = strtod(buf, NULL);
        if ((float)d == (float)e) return d;
    }
    return e;
}
/* node i: a training-mode batch norm as a trace records it after a conv2d or linear
   that only it reads: native_batch_norm(y, gamma, beta), num_batches_tracked += 1 before it,
   running = running * (1 - momentum) + (batch statistic: the node's mean and variance
   outputs, or a constant in a graph traced before they were recorded) * momentum after
   it. Fills m (and the momentum), marks the nodes to drop (CT__JQ_DEAD of them). */
#define CT__JQ_DEAD 8
static int ct__jq_match_bn_train(const ct_graph *g, int i, ct__jqbnm *m, double *momentum, int dead[CT__JQ_DEAD]) {
    const ct__jnode *b = &g->n[i];
    int nbn = ct_op_find("aten::native_batch_norm"), mul = ct_op_find("aten::mul.Tensor"), add = ct_op_find("aten::add.Tensor"), r;
    if (nbn < 0 || b->op != nbn || b->nin != 3 || b->nout != 4 || b->in[0] < 0 || b->in[1] < 0 || b->in[2] < 0) return 0;
    if (!ct__jq_bn_head(g, b->in[0], m)) return 0;
    int nread[4] = {0, 0, 0, 0};   /* readers of the statistics outputs: the updates' products only */
    for (int k = 1; k < 4; k++)
        if ((nread[k] = ct__jq_readers(g, b->out[k], &r)) > (k == 2 ? 0 : 1)) return 0;
    m->gamma = ct__jq_leaf(g, b->in[1]);
    m->beta = ct__jq_leaf(g, b->in[2]);
    m->eps = b->a.s[0];
    m->rm = m->rv = NULL;
    *momentum = 0;
    int nd = 1;
    dead[0] = i;
    for (int j = i + 1; j < g->nn && !m->rv; j++) {   /* running_mean's update, then running_var's */
        const ct__jnode *u = &g->n[j];
        if (u->op != mul || !u->inplace || u->nin != 2 || u->in[0] < 0 || u->in[1] < 0) continue;
        ct_tensor *st = ct__jq_leaf(g, u->in[0]);
        if (!st || ct_numel(st) != m->C || g->v[u->in[1]].kind != CT__JV_CONST) continue;
        int a = -1;
        if (ct__jq_readers(g, u->out[0], &a) != 1 || a < 0 || g->n[a].op != add || !g->n[a].inplace || g->n[a].in[0] != u->out[0]) return 0;
        int mm = ct__jq_def(g, g->n[a].in[1], "aten::mul.Tensor");
        ct_tensor *mo = mm >= 0 ? ct__jq_leaf(g, g->n[mm].in[1]) : NULL;
        if (!mo || ct_numel(mo) != 1) return 0;
        int so = m->rm ? 3 : 1;   /* the statistic this update reads: the batch mean, then the variance */
        if (g->n[mm].in[0] == b->out[so]) {
            if (ct__jq_readers(g, g->n[mm].out[0], &r) != 1) return 0;
            dead[nd++] = mm;
            nread[so] = 0;
        } else if (!ct__jq_leaf(g, g->n[mm].in[0])) {
            return 0;
        }
        if (!m->rm) *momentum = ct__jq_eps(ct_item(mo));
        if (!m->rm) m->rm = st;
        else m->rv = st;
        dead[nd++] = j;
        dead[nd++] = a;
    }
    if (nread[1] || nread[3]) return 0;   /* a statistic read by something else */
    const ct__jnode *t = i > 0 ? &g->n[i - 1] : NULL;   /* num_batches_tracked += 1 */
    if (t && t->op == add && t->inplace && t->nin == 2 && t->in[0] >= 0 && g->v[t->in[0]].dtype == CT_INT64 && g->v[t->in[0]].ndim == 0 &&
        g->v[t->in[0]].kind == CT__JV_PARAM)
        dead[nd++] = i - 1;
    while (nd < CT__JQ_DEAD) dead[nd++] = -1;
    m->momentum = *momentum;
    return m->gamma && m->beta && m->rm && m->rv && *momentum > 0;
}
/* node i is a head of its kind: a conv2d (lin 0) or a linear's addmm / mm (lin 1) */
static int ct__jq_headop(const ct_graph *g, int i, int lin) {
    int op = g->n[i].op;
    return lin ? op == ct_op_find("aten::addmm") || op == ct_op_find("aten::mm") : op == ct_op_find("aten::conv2d");
}
static ct_status ct__jq_take_bn(ct_graph *g, ct__jqtake **take, int *ntake) {
    int alias = ct_op_find("aten::alias");
    for (int i = 0; i < g->nn; i++) {
        ct__jqbnm m;
        double momentum = 0;
        int dead[CT__JQ_DEAD] = {-1, -1, -1, -1, -1, -1, -1, -1}, train = 0;
        if (!ct__jq_match_bn(g, i, &m) && !(train = ct__jq_match_bn_train(g, i, &m, &momentum, dead))) continue;
        int64_t C = m.C;
        const ct_tensor *st[4] = {m.gamma, m.beta, m.rm, m.rv};
        static const char *const nm[4] = {"weight", "bias", "running_mean", "running_var"};
        for (int k = 0; k < 4; k++)
            if (ct_numel(st[k]) != C) {
                ct_set_error(CT_ERR_SHAPE, "jit_quant_prepare_qat: the batch norm after %s node %d has a %s of %lld elements, the %s makes %lld %s",
                             m.lin ? "linear" : "conv2d", m.conv, nm[k], (long long)ct_numel(st[k]), m.lin ? "linear" : "conv2d", (long long)C,
                             m.lin ? "features" : "channels");
                return CT_ERR_SHAPE;
            }
        if (m.lin && (alias < 0 || (m.B && ct_numel(m.B) != C))) {
            ct_set_error(CT_ERR_UNSUPPORTED, "jit_quant_prepare_qat: the linear node %d before a batch norm %s", m.conv,
                         alias < 0 ? "needs aten::alias, not in this build" : "has a bias of another size");
            return CT_ERR_UNSUPPORTED;
        }
        ct__jqtake *t = (ct__jqtake *)CT_REALLOC(*take, (size_t)(*ntake + 1) * sizeof **take);
        if (!t) { ct_set_error(CT_ERR_MEMORY, "jit_quant_prepare_qat: out of memory"); return CT_ERR_MEMORY; }
        *take = t;
        t = &t[*ntake];
        t->ord = 0;
        t->lin = m.lin;
        for (int j = 0; j < m.conv; j++) t->ord += ct__jq_headop(g, j, m.lin);
        t->eps = train ? m.eps : ct__jq_eps(m.eps);
        ct_batch_norm_options bo;
        memset(&bo, 0, sizeof bo);
        bo.eps = t->eps;
        /* an eval-mode trace records the module's momentum on batch_norm_eval (0 for
           momentum=None, as PyTorch's module passes: a cumulative moving average) */
        bo.momentum = m.momentum > 0 ? m.momentum : NAN;
        t->bn = m.lin ? ct_nn_batch_norm1d_ex(C, &bo) : ct_nn_batch_norm2d_ex(C, &bo);   /* (C++ has overloads of both: no pointer choice) */
        if (!t->bn) return ct_last_error_code() ? ct_last_error_code() : CT_ERR_MEMORY;
        (*ntake)++;
        int bad = 0, prev = ct_set_grad_enabled(0);
        for (int k = 0; k < 4 && !bad; k++) {
            ct_tensor *d = ct_module_get(t->bn, nm[k]);
            bad = !d || !ct_copy_(d, (ct_tensor *)st[k]);
        }
        ct_set_grad_enabled(prev);
        if (bad) return ct_last_error_code() ? ct_last_error_code() : CT_ERR_STATE;
        ct_module_train(t->bn, 1);
        if (m.lin) {   /* LinearBn1d: an alias stays the linear's only reader, so that a relu after it joins no pattern */
            ct__jnode *b = &g->n[i];
            b->op = alias;
            b->nin = 1;
            b->nout = 1;
            ct__attrs_init(&b->a);
        } else {
            ct__jit_replace(g, g->n[i].out[0], g->n[i].in[0], i);
            g->n[i].op = -1;
        }
        for (int k = 1; k < CT__JQ_DEAD; k++)      /* a training-mode trace's statistics updates */
            if (dead[k] >= 0) g->n[dead[k]].op = -1;
    }
    return ct__jit_drop_nodes(g);
}
static ct_graph *ct__jq_prepare(const ct_graph *g0, const ct_qconfig *qc, ct__jqtake **take, int *ntake);
CTENSOR_API ct_graph *ct_jit_quant_prepare(const ct_graph *g0, const ct_qconfig *qc) { return ct__jq_prepare(g0, qc, NULL, NULL); }
static ct_graph *ct__jq_prepare(const ct_graph *g0, const ct_qconfig *qc, ct__jqtake **take, int *ntake) {
    if (!g0 || !qc) { ct_set_error(CT_ERR_NULL, "jit_quant_prepare: %s is NULL", g0 ? "qconfig" : "graph"); return NULL; }
    if (g0->qobs) { ct_set_error(CT_ERR_STATE, "jit_quant_prepare: the graph is already prepared"); return NULL; }
    for (int i = 0; i < g0->nn; i++)
        if (g0->n[i].op == CT__JIT_IF || g0->n[i].op == CT__JIT_LOOP || g0->n[i].op == CT__JIT_FUSED) {
            ct_set_error(CT_ERR_UNSUPPORTED, "jit_quant_prepare: node %d is %s: graph-mode quantization takes straight-line graphs (prepare before ct_jit_optimize)",
                         i, ct__jit_node_name(g0->n[i].op));
            return NULL;
        }
    for (int k = 0; k < g0->nin; k++) {
        const ct__jval *x = &g0->v[g0->in[k]];
        if (x->ndim < 0 || x->dtype != CT_FLOAT32) {
            ct_set_error(CT_ERR_DTYPE, "jit_quant_prepare: input %d (%%%s) must be float32 with a known shape (a traced graph), got %s%s", k,
                         x->name ? x->name : "?", ct_dtype_name(x->dtype), x->ndim < 0 ? " of unknown shape" : "");
            return NULL;
        }
    }
    ct__jq_ops o;
    ct__jq_find_ops(&o);
    ct_graph *g = ct_graph_clone(g0);
    if (!g) return NULL;
    int convs = 0;
    ct_status st = take ? ct__jq_take_bn(g, take, ntake) : CT_OK;
    for (int i = 0; take && i < g->nn; i++) convs += ct__jq_headop(g, i, 0) + 2 * ct__jq_headop(g, i, 1);
    if (!st) st = ct__jq_fold_bn_exact(g);
    if (!st) st = ct_jit_freeze(g);
    if (!st) st = ct_jit_fold_conv_bn(g);
    if (!st) st = ct_jit_fold_linear_bn(g);
    if (!st) st = ct_jit_eliminate_common_subexpressions(g);
    if (!st) st = ct_jit_eliminate_dead_code(g);
    for (int i = 0; take && *ntake && !st && i < g->nn; i++) convs -= ct__jq_headop(g, i, 0) + 2 * ct__jq_headop(g, i, 1);
    if (!st && take && *ntake && convs) {
        ct_set_error(CT_ERR_UNSUPPORTED, "jit_quant_prepare_qat: conv2d or linear nodes were merged or dropped by the passes (one layer run twice?): "
                     "a batch norm after one cannot be kept");
        st = CT_ERR_UNSUPPORTED;
    }
    if (st) { ct_graph_free(g); return NULL; }
    g->qobs = (void **)CT_MALLOC((size_t)(g->nv > 0 ? g->nv : 1) * sizeof(void *));
    g->qcfg = CT_MALLOC(sizeof(ct_qconfig));
    g->qfree = ct__jq_free;
    g->qobserve = ct__jq_observe;
    g->qobsname = ct__jq_obsname;
    if (!g->qobs || !g->qcfg) { ct_graph_free(g); ct_set_error(CT_ERR_MEMORY, "jit_quant_prepare: out of memory"); return NULL; }
    memset(g->qobs, 0, (size_t)(g->nv > 0 ? g->nv : 1) * sizeof(void *));
    memcpy(g->qcfg, qc, sizeof *qc);
    int heads = 0;
    for (int i = 0; i < g->nn && !st; i++) {
        int kind = ct__jq_head(g, &o, i);
        if (!kind) continue;
        heads += kind <= CT__JQ_MM;
        int r = ct__jq_relu_of(g, &o, i);
        int out = r >= 0 ? g->n[r].out[0] : g->n[i].out[0];
        /* its activation inputs (an observer already there, a pattern's output, is kept) */
        if (kind >= CT__JQ_ADD)
            for (int k = 0; k < g->n[i].nin && !st; k++) st = ct__jq_add_observer(g, qc, g->n[i].in[k]);
        else
            st = ct__jq_add_observer(g, qc, g->n[i].in[kind == CT__JQ_ADDMM ? 1 : 0]);
        if (!st) st = ct__jq_add_observer(g, qc, out);
        if (!st && kind == CT__JQ_CAT) ct__jq_share(g, i);
    }
    if (!st && !heads) {
        ct_set_error(CT_ERR_ARG, "jit_quant_prepare: the graph has no conv2d or linear layer with constant weights to quantize (%d nodes)", g->nn);
        st = CT_ERR_ARG;
    }
    if (st) { ct_graph_free(g); return NULL; }
    return g;
}

/* QAT: a FakeQuantize's forward in the run's grad mode (straight-through gradients) */
static ct_tensor *ct__jq_fakequant(void *fq, ct_tensor *t, int tr) {
    if (!tr) return ct_forward((ct_module *)fq, t);
    ct_tensor *f = ct_forward((ct_module *)fq, ct_contiguous(ct_t(t)));   /* [out, in], contiguous as an eager weight */
    return f ? ct_t(f) : NULL;
}
/* a constant of the graph becomes a trainable leaf (a copy that requires grad) */
static ct_status ct__jq_trainable(ct_graph *g, int v) {
    if (v < 0 || !g->v[v].t) return CT_OK;
    if (ct_get_requires_grad(g->v[v].t)) return CT_OK;     /* already (a value two nodes read) */
    int tok = ct_scope_begin(), prev = ct_set_grad_enabled(0);
    ct_tensor *c = ct_contiguous(ct_clone(g->v[v].t));
    if (c) c = ct_retain(ct_set_requires_grad(c, 1));
    ct_set_grad_enabled(prev);
    ct_scope_end(tok);
    if (!c) return ct_last_error_code() ? ct_last_error_code() : CT_ERR_MEMORY;
    ct_release(g->v[v].t);
    g->v[v].t = c;
    return CT_OK;
}
/* QAT: a conv2d + batch norm trained as FX's ConvBn2d (qw[conv].cb), a linear +
   batch norm as LinearBn1d (the same nodes in 2-D: w [out, in], sf[:, None] and
   sf[None, :], w' transposed for the addmm, no relu). Its nodes,
   after the patterns and observers of prepare (PyTorch's _forward_approximate):
       sf = gamma / sqrt(running_var + eps)                    (the module's tensors)
       w' = FakeQuantize(w * sf[:, None, None, None])          (a hook on w')
       y  = conv2d(x, w', zeros) / sf[None, :, None, None] + b[None, :, None, None]
       y  = BatchNorm2d(y)                                     (a hook on y: the module)
   then the relu, or an alias that carries the output's FakeQuantize. The batch
   norm runs as ctensor_nn.h's module on the value (as a FakeQuantize does): batch
   statistics, running statistics updated without autograd (no graph op can), the
   module's train / eval switch. */
typedef struct ct__jqcb {
    ct_module *bn;                     /* held by qobs[bnv] */
    void *wfq;                         /* held by qobs[sw] */
    int w, b, sw, bnv, out, relu;      /* weight, bias (-1: none), scaled weight, batch norm input, pattern output, relu node */
    int lin;                           /* LinearBn1d: w is the weight as [out, in] (no relu in the pattern) */
    double eps;
} ct__jqcb;
static int ct__jq_addn(ct_graph *g, const char *op, const ct_attrs *a, int nin, const int *ins, int ndim, const int64_t *shape) {
    int id = ct_op_find(op), n = id < 0 ? -1 : ct__jit_add_node(g, id, a, 0, nin, ins, 1, NULL);
    if (n < 0) {
        if (id < 0) ct_set_error(CT_ERR_UNSUPPORTED, "jit_quant_prepare_qat: op %s is not in this build", op);
        else ct_set_error(CT_ERR_MEMORY, "jit_quant_prepare_qat: out of memory");
        return -1;
    }
    ct__jval *v = &g->v[g->n[n].out[0]];
    v->dtype = CT_FLOAT32;
    v->ndim = ndim;
    if (ndim > 0) memcpy(v->shape, shape, sizeof(int64_t) * (size_t)ndim);
    return g->n[n].out[0];
}
static int ct__jq_addc(ct_graph *g, ct_tensor *t) {
    int v = t ? ct__jit_new_val(g, CT__JV_CONST, NULL) : -1;
    if (v < 0 || ct__jit_make_const(g, v, t)) {
        if (t) ct_set_error(CT_ERR_MEMORY, "jit_quant_prepare_qat: out of memory");
        return -1;
    }
    return v;
}
static ct_status ct__jq_convbn(ct_graph *g, const ct__jq_ops *o, ct__jqtake *take, int ntake) {
    int nn0 = g->nn, cap = g->nv + 16 * ntake;
    void **qo = (void **)CT_REALLOC(g->qobs, (size_t)cap * sizeof(void *));
    int *pos = (int *)CT_MALLOC((size_t)(4 * ntake + 1) * sizeof(int));
    if (qo) {
        memset(qo + g->nv, 0, (size_t)(cap - g->nv) * sizeof(void *));
        g->qobs = qo;
    }
    if (!qo || !pos) { CT_FREE(pos); ct_set_error(CT_ERR_MEMORY, "jit_quant_prepare_qat: out of memory"); return CT_ERR_MEMORY; }
    ct_status st = CT_OK;
    int tok = ct_scope_begin();
    for (int t = 0; t < ntake && !st; t++) {
        int c = -1, lin = take[t].lin;
        for (int i = 0, k = 0; i < nn0 && c < 0; i++)
            if (ct__jq_headop(g, i, lin) && k++ == take[t].ord) c = i;
        int kind = c < 0 ? 0 : ct__jq_head(g, o, c), wi = kind == CT__JQ_ADDMM ? 2 : 1, rd = -1;
        if (c < 0 || (lin ? kind != CT__JQ_ADDMM && kind != CT__JQ_MM : kind != CT__JQ_CONV) || !g->qw[c].fq || g->qw[c].cb ||
            (lin && ct__jq_readers(g, g->n[c].in[wi], &rd) != 1)) {
            ct_set_error(CT_ERR_UNSUPPORTED, "jit_quant_prepare_qat: %s %d before a batch norm is not a pattern with a constant weight of its own",
                         lin ? "linear" : "conv2d", take[t].ord);
            st = CT_ERR_UNSUPPORTED;
            break;
        }
        ct__jqcb *cb = (ct__jqcb *)CT_MALLOC(sizeof *cb);
        if (!cb) { ct_set_error(CT_ERR_MEMORY, "jit_quant_prepare_qat: out of memory"); st = CT_ERR_MEMORY; break; }
        memset(cb, 0, sizeof *cb);
        g->qw[c].cb = cb;
        int out0 = g->n[c].out[0], r = lin ? -1 : ct__jq_relu_of(g, o, c);
        cb->lin = lin;
        cb->w = g->n[c].in[wi];
        cb->b = kind == CT__JQ_ADDMM ? g->n[c].in[0] : kind == CT__JQ_CONV && g->n[c].nin == 3 ? g->n[c].in[2] : -1;
        cb->relu = r;
        cb->eps = take[t].eps;
        ct_module *bn = take[t].bn;
        if (lin) {   /* the trainable weight as [out, in] (a contiguous copy, eager's layout): scaled, fake-quantized, then transposed */
            ct__jval *wv = &g->v[cb->w];
            int prev = ct_set_grad_enabled(0);
            ct_tensor *wc = ct_contiguous(ct_clone(ct_transpose(wv->t, 0, 1)));
            if (wc) wc = ct_retain(ct_set_requires_grad(wc, 1));
            ct_set_grad_enabled(prev);
            if (!wc) { st = ct_last_error_code() ? ct_last_error_code() : CT_ERR_MEMORY; break; }
            ct_release(wv->t);
            wv->t = wc;
            wv->shape[0] = wc->shape[0];
            wv->shape[1] = wc->shape[1];
        }
        const int nd = lin ? 2 : 4;
        int64_t C = g->v[cb->w].t->shape[0], ws[4], ys[CT_MAX_DIMS], yd = g->v[out0].ndim, wts[2];
        const int64_t cshape[4] = {C, 1, 1, 1}, rshape[4] = {1, C, 1, 1};
        for (int d = 0; d < nd; d++) ws[d] = g->v[cb->w].t->shape[d];
        wts[0] = ws[1];
        wts[1] = ws[0];
        memcpy(ys, g->v[out0].shape, sizeof(int64_t) * (size_t)(yd > 0 ? yd : 0));
        ct_attrs none, alpha, vc, vr, pm;
        ct__attrs_init(&none);
        alpha = none;
        alpha.s[0] = 1.0;
        vc = none;
        vr = none;
        pm = none;
        vc.nv = vr.nv = nd;
        for (int d = 0; d < nd; d++) {
            vc.v[d] = d ? 1 : -1;
            vr.v[d] = d == 1 ? -1 : 1;
        }
        pm.nv = 2;
        pm.v[0] = 1;
        pm.v[1] = 0;
        int rv = ct__jq_addc(g, ct_module_get(bn, "running_var")), gm = rv < 0 ? -1 : ct__jq_addc(g, ct_module_get(bn, "weight"));
        int ep = gm < 0 ? -1 : ct__jq_addc(g, ct_scalar_tensor(cb->eps, CT_FLOAT32)), zb = ep < 0 ? -1 : ct__jq_addc(g, ct_zeros_n(CT_FLOAT32, 1, &C));
        int pre = g->nn, in2[2], v = zb;
        if (v >= 0) { in2[0] = rv; in2[1] = ep; v = ct__jq_addn(g, "aten::add.Tensor", &alpha, 2, in2, 1, &C); }
        if (v >= 0) v = ct__jq_addn(g, "aten::sqrt", &none, 1, &v, 1, &C);
        int sf = -1, wread = -1;
        if (v >= 0) { in2[0] = gm; in2[1] = v; v = sf = ct__jq_addn(g, "aten::div.Tensor", &none, 2, in2, 1, &C); }
        if (v >= 0) v = ct__jq_addn(g, "aten::view", &vc, 1, &sf, nd, cshape);
        if (v >= 0) { in2[0] = cb->w; in2[1] = v; v = wread = cb->sw = ct__jq_addn(g, "aten::mul.Tensor", &none, 2, in2, nd, ws); }
        if (v >= 0 && lin) v = wread = ct__jq_addn(g, "aten::permute", &pm, 1, &cb->sw, 2, wts);
        int mid = g->nn;
        if (v >= 0) v = ct__jq_addn(g, "aten::view", &vr, 1, &sf, nd, rshape);
        if (v >= 0) { in2[0] = out0; in2[1] = v; v = ct__jq_addn(g, "aten::div.Tensor", &none, 2, in2, (int)yd, ys); }
        if (v >= 0 && cb->b >= 0) {
            int y = v;
            v = ct__jq_addn(g, "aten::view", &vr, 1, &cb->b, nd, rshape);
            if (v >= 0) { in2[0] = y; in2[1] = v; v = ct__jq_addn(g, "aten::add.Tensor", &alpha, 2, in2, (int)yd, ys); }
        }
        cb->bnv = v;
        if (v >= 0 && r < 0) v = ct__jq_addn(g, "aten::alias", &none, 1, &cb->bnv, (int)yd, ys);
        if (v < 0 || g->nv > cap) {
            if (v >= 0) ct_set_error(CT_ERR_STATE, "jit_quant_prepare_qat: internal: %d values, room for %d", g->nv, cap);
            st = ct_last_error_code() ? ct_last_error_code() : CT_ERR_STATE;
            break;
        }
        cb->out = r >= 0 ? g->n[r].out[0] : v;
        /* the head's readers (and the graph's outputs) read the batch norm's relu or alias */
        int rep = r >= 0 ? cb->bnv : v;
        for (int i = c + 1; i < nn0; i++)
            for (int k = 0; k < g->n[i].nin; k++)
                if (g->n[i].in[k] == out0) g->n[i].in[k] = rep;
        for (int k = 0; k < g->nout; k++)
            if (g->out[k] == out0) g->out[k] = rep;
        ct__jnode *cn = &g->n[c];
        if (kind == CT__JQ_MM) {                   /* linear without bias: addmm(zeros, x, w'), as ct_linear runs it */
            int *in3 = (int *)CT_MALLOC(3 * sizeof(int));
            if (!in3) { ct_set_error(CT_ERR_MEMORY, "jit_quant_prepare_qat: out of memory"); st = CT_ERR_MEMORY; break; }
            in3[1] = cn->in[0];
            CT_FREE(cn->in);
            cn->in = in3;
            cn->nin = 3;
            cn->op = o->addmm;
            ct_attrs_defaults(o->addmm, &cn->a);
        }
        if (lin) {
            cn->in[0] = zb;
            cn->in[2] = wread;
        } else {
            int *in3 = cn->nin == 3 ? cn->in : (int *)CT_REALLOC(cn->in, 3 * sizeof(int));
            if (!in3) { ct_set_error(CT_ERR_MEMORY, "jit_quant_prepare_qat: out of memory"); st = CT_ERR_MEMORY; break; }
            cn->in = in3;
            cn->nin = 3;
            cn->in[1] = cb->sw;
            cn->in[2] = zb;
        }
        if (r < 0) {                               /* the output's FakeQuantize moves past the batch norm */
            g->qobs[v] = g->qobs[out0];
            g->qobs[out0] = NULL;
        }
        cb->wfq = g->qobs[cb->sw] = g->qw[c].fq;
        g->qw[c].fq = NULL;
        cb->bn = (ct_module *)(g->qobs[cb->bnv] = bn);
        take[t].bn = NULL;
        pos[4 * t] = c;
        pos[4 * t + 1] = pre;
        pos[4 * t + 2] = mid;
        pos[4 * t + 3] = g->nn;
    }
    ct_scope_end(tok);
    /* the added nodes in place: a ConvBn2d's first ones before its conv2d (a LinearBn1d's before its addmm), the rest after */
    ct__jnode *nn = st ? NULL : (ct__jnode *)CT_MALLOC((size_t)(g->nn > 0 ? g->nn : 1) * sizeof(ct__jnode));
    ct__jqw *nq = st ? NULL : (ct__jqw *)CT_MALLOC((size_t)(g->nn > 0 ? g->nn : 1) * sizeof(ct__jqw));
    if (!st && (!nn || !nq)) { ct_set_error(CT_ERR_MEMORY, "jit_quant_prepare_qat: out of memory"); st = CT_ERR_MEMORY; }
    if (!st) {
        int m = 0;
        memset(nq, 0, (size_t)(g->nn > 0 ? g->nn : 1) * sizeof(ct__jqw));
        for (int i = 0; i < nn0; i++)                /* relu nodes by their output: the indices move */
            if (g->qw[i].cb && ((ct__jqcb *)g->qw[i].cb)->relu >= 0) ((ct__jqcb *)g->qw[i].cb)->relu = -2;
        for (int i = 0; i < nn0; i++) {
            int t = -1;
            for (int k = 0; k < ntake && t < 0; k++)
                if (pos[4 * k] == i) t = k;
            for (int j = t < 0 ? 0 : pos[4 * t + 1]; t >= 0 && j < pos[4 * t + 2]; j++) { nq[m].aux = 1; nn[m++] = g->n[j]; }
            nq[m] = g->qw[i];
            nn[m++] = g->n[i];
            for (int j = t < 0 ? 0 : pos[4 * t + 2]; t >= 0 && j < pos[4 * t + 3]; j++) { nq[m].aux = 1; nn[m++] = g->n[j]; }
        }
        CT_FREE(g->n);
        CT_FREE(g->qw);
        g->n = nn;
        g->qw = nq;
        g->cn = g->nn;
        nn = NULL;
        nq = NULL;
        st = ct__jit_finish(g);
        for (int i = 0; !st && i < g->nn; i++) {
            ct__jqcb *cb = (ct__jqcb *)g->qw[i].cb;
            if (cb && cb->relu == -2) cb->relu = g->v[cb->out].node;
        }
    }
    CT_FREE(nn);
    CT_FREE(nq);
    CT_FREE(pos);
    return st;
}
/* QAT: no FakeQuantize on the output of an op convert runs on int8 tensors (a
   view, flatten, pooling, relu outside a pattern) when its input is quantized
   there by then (a pattern's input or output, or such an op's output): convert
   keeps the input's parameters, so the trained model fake-quantizes once, as the
   converted one quantizes (and as eager mode, which observes no Flatten) */
static int ct__jq_passthrough(int op);
static ct_status ct__jq_qat_drop_passthrough(ct_graph *g, const ct__jq_ops *o) {
    char *q = (char *)CT_MALLOC((size_t)(g->nv > 0 ? g->nv : 1));
    if (!q) { ct_set_error(CT_ERR_MEMORY, "jit_quant_prepare_qat: out of memory"); return CT_ERR_MEMORY; }
    memset(q, 0, (size_t)(g->nv > 0 ? g->nv : 1));
    for (int i = 0; i < g->nn; i++) {
        const ct__jnode *n = &g->n[i];
        int kind = ct__jq_head(g, o, i);
        if (kind) {
            int r = ct__jq_relu_of(g, o, i);
            if (kind >= CT__JQ_ADD)
                for (int k = 0; k < n->nin; k++) q[n->in[k]] = 1;
            else
                q[n->in[kind == CT__JQ_ADDMM ? 1 : 0]] = 1;
            q[r >= 0 ? g->n[r].out[0] : n->out[0]] = 1;
            continue;
        }
        if (n->nin < 1 || n->in[0] < 0 || !q[n->in[0]] || !ct__jq_passthrough(n->op)) continue;
        for (int k = 0; k < n->nout; k++) {
            int v = n->out[k], shared = 0;
            q[v] = 1;
            for (int u = 0; u < g->nv && g->qobs[v]; u++) shared |= u != v && g->qobs[u] == g->qobs[v];
            if (!g->qobs[v] || shared) continue;
            ct_module_free((ct_module *)g->qobs[v]);
            g->qobs[v] = NULL;
        }
    }
    CT_FREE(q);
    return CT_OK;
}
CTENSOR_API ct_graph *ct_jit_quant_prepare_qat(const ct_graph *g0, const ct_qconfig *qc) {
    if (!g0 || !qc) { ct_set_error(CT_ERR_NULL, "jit_quant_prepare_qat: %s is NULL", g0 ? "qconfig" : "graph"); return NULL; }
    for (int w = 0; w < 2; w++) {                 /* a QAT qconfig: FakeQuantize factories */
        ct_module *m = ct_observer_factory_make(w ? &qc->weight : &qc->activation);
        int fq = m && ct_is_fake_quantize(m);
        if (m && !fq)
            ct_set_error(CT_ERR_ARG, "jit_quant_prepare_qat: the qconfig's %s factory makes %s, not a FakeQuantize (a QAT qconfig: ct_qat_qconfig_default_x86 / _arm)",
                         w ? "weight" : "activation", m->type->name);
        ct_module_free(m);
        if (!fq) return NULL;
    }
    ct__jqtake *take = NULL;
    int ntake = 0;
    ct_graph *g = ct__jq_prepare(g0, qc, &take, &ntake);
    if (!g) {
        for (int t = 0; t < ntake; t++) ct_module_free(take[t].bn);
        CT_FREE(take);
        return NULL;
    }
    ct__jq_ops o;
    ct__jq_find_ops(&o);
    g->qw = (ct__jqw *)CT_MALLOC((size_t)(g->nn > 0 ? g->nn : 1) * sizeof *g->qw);
    ct_status st = CT_OK;
    if (g->qw) memset(g->qw, 0, (size_t)(g->nn > 0 ? g->nn : 1) * sizeof *g->qw);
    else { ct_set_error(CT_ERR_MEMORY, "jit_quant_prepare_qat: out of memory"); st = CT_ERR_MEMORY; }
    g->qfq = ct__jq_fakequant;
    for (int i = 0; i < g->nn && !st; i++) {
        int kind = ct__jq_head(g, &o, i);
        if (!kind || kind > CT__JQ_MM) continue;
        const ct__jnode *n = &g->n[i];
        ct__jqw *w = &g->qw[i];
        w->in = kind == CT__JQ_ADDMM ? 2 : 1;
        w->tr = kind != CT__JQ_CONV;
        int bias = kind == CT__JQ_ADDMM ? n->in[0] : kind == CT__JQ_CONV && n->nin == 3 ? n->in[2] : -1;
        st = ct__jq_trainable(g, n->in[w->in]);
        if (!st) st = ct__jq_trainable(g, bias);
        if (!st && !(w->fq = ct_observer_factory_make(&qc->weight))) st = ct_last_error_code() ? ct_last_error_code() : CT_ERR_ARG;
    }
    if (!st) st = ct__jq_qat_drop_passthrough(g, &o);
    if (!st && ntake) st = ct__jq_convbn(g, &o, take, ntake);
    for (int t = 0; t < ntake; t++) ct_module_free(take[t].bn);   /* those not handed to the graph */
    CT_FREE(take);
    if (st) { ct_graph_free(g); return NULL; }
    return g;
}
CTENSOR_API int ct_jit_quant_qat_parameters(const ct_graph *g, ct_tensor **params, int max) {
    if (!g) { ct_set_error(CT_ERR_NULL, "jit_quant_qat_parameters: graph is NULL"); return -1; }
    if (!g->qw) { ct_set_error(CT_ERR_STATE, "jit_quant_qat_parameters: the graph is not prepared for QAT (ct_jit_quant_prepare_qat)"); return -1; }
    if (max < 0 || (max > 0 && !params)) { ct_set_error(CT_ERR_ARG, "jit_quant_qat_parameters: max %d with a NULL list", max); return -1; }
    int c = 0;
    for (int v = 0; v < g->nv; v++)               /* the trainable constants, in value order */
        if (g->v[v].kind == CT__JV_CONST && g->v[v].t && ct_get_requires_grad(g->v[v].t)) {
            if (c < max) params[c] = g->v[v].t;
            c++;
        }
    for (int i = 0; i < g->nn; i++)               /* then each ConvBn2d's / LinearBn1d's beta (gamma is a constant its nodes read) */
        if (g->qw[i].cb) {
            if (c < max) params[c] = ct_module_get(((ct__jqcb *)g->qw[i].cb)->bn, "bias");
            c++;
        }
    return c;
}
CTENSOR_API int ct_jit_quant_qat_buffers(const ct_graph *g, ct_tensor **bufs, int max) {
    if (!g) { ct_set_error(CT_ERR_NULL, "jit_quant_qat_buffers: graph is NULL"); return -1; }
    if (!g->qw) { ct_set_error(CT_ERR_STATE, "jit_quant_qat_buffers: the graph is not prepared for QAT (ct_jit_quant_prepare_qat)"); return -1; }
    if (max < 0 || (max > 0 && !bufs)) { ct_set_error(CT_ERR_ARG, "jit_quant_qat_buffers: max %d with a NULL list", max); return -1; }
    int c = 0;
    for (int i = 0; i < g->nn; i++)
        for (int k = 0; g->qw[i].cb && k < 2; k++) {
            if (c < max) bufs[c] = ct_module_get(((ct__jqcb *)g->qw[i].cb)->bn, k ? "running_var" : "running_mean");
            c++;
        }
    return c;
}
CTENSOR_API ct_status ct_jit_quant_qat_train(ct_graph *g, int training) {
    if (!g) { ct_set_error(CT_ERR_NULL, "jit_quant_qat_train: graph is NULL"); return CT_ERR_NULL; }
    if (!g->qw) { ct_set_error(CT_ERR_STATE, "jit_quant_qat_train: the graph is not prepared for QAT (ct_jit_quant_prepare_qat)"); return CT_ERR_STATE; }
    for (int i = 0; i < g->nn; i++)
        if (g->qw[i].cb) ct_module_train(((ct__jqcb *)g->qw[i].cb)->bn, training != 0);
    return CT_OK;
}
/* a ConvBn2d's / LinearBn1d's own hooks (its weight's FakeQuantize, its batch norm): not observers */
static int ct__jq_cb_hook(const ct_graph *g, const void *m) {
    for (int i = 0; g->qw && i < g->nn; i++) {
        const ct__jqcb *cb = (const ct__jqcb *)g->qw[i].cb;
        if (cb && (m == cb->wfq || m == cb->bn)) return 1;
    }
    return 0;
}

/* ops that run on int8 tensors and keep their input's parameters */
static int ct__jq_passthrough(int op) {
    static const char *const names[] = {"aten::relu", "aten::max_pool2d_with_indices", "aten::max_pool2d", "aten::adaptive_avg_pool2d",
                                        "aten::avg_pool2d", "aten::view", "aten::reshape", "aten::flatten", "aten::_unsafe_view",
                                        "aten::clone", "aten::contiguous", "aten::alias", "aten::squeeze", "aten::unsqueeze"};
    const char *nm = ct_op_schema_name(op);
    for (size_t k = 0; nm && k < sizeof names / sizeof names[0]; k++)
        if (!strcmp(nm, names[k])) return 1;
    return 0;
}
typedef struct ct__jq_prep {
    int kind, relu, out;
    double scale;
    int64_t zp;
    ct_q_linear_packed *lin;
    ct_q_conv_packed *conv;
} ct__jq_prep;
static int ct__jq_calibrated(ct_module *obs) {
    ct_tensor *mn = ct_module_get(obs, "min_val");
    if (!mn) return 1;                           /* an observer without statistics (placeholder) */
    if (ct_numel(mn) == 0) return 0;
    int tok = ct_scope_begin();
    double v = ct_item(ct_amin(ct_to(mn, CT_FLOAT64), 0, NULL, 0));
    ct_scope_end(tok);
    return isfinite(v);
}
/* 2.8 dynamic: each linear head's weight packed as ct_nnq_dynamic_linear packs it
   (a float nn.Linear holding the graph's weight, converted), then the graph walked
   once under the tracer with quantized::linear_dynamic in place of those heads */
CTENSOR_API ct_graph *ct_jit_quant_dynamic(const ct_graph *g0, int per_channel, int reduce_range) {
    if (!g0) { ct_set_error(CT_ERR_NULL, "jit_quant_dynamic: graph is NULL"); return NULL; }
    if (g0->qobs) { ct_set_error(CT_ERR_STATE, "jit_quant_dynamic: the graph is prepared for static quantization (observers)"); return NULL; }
    if (ct_is_tracing()) { ct_set_error(CT_ERR_STATE, "jit_quant_dynamic: this thread is tracing"); return NULL; }
    for (int i = 0; i < g0->nn; i++)
        if (g0->n[i].op == CT__JIT_IF || g0->n[i].op == CT__JIT_LOOP || g0->n[i].op == CT__JIT_FUSED) {
            ct_set_error(CT_ERR_UNSUPPORTED, "jit_quant_dynamic: node %d is %s: graph-mode quantization takes straight-line graphs (quantize before ct_jit_optimize)",
                         i, ct__jit_node_name(g0->n[i].op));
            return NULL;
        }
    for (int k = 0; k < g0->nin; k++)
        if (g0->v[g0->in[k]].ndim < 0) {
            ct_set_error(CT_ERR_SHAPE, "jit_quant_dynamic: input %d has an unknown shape (a traced graph has them)", k);
            return NULL;
        }
    ct__jq_ops o;
    ct__jq_find_ops(&o);
    ct_graph *p = ct_graph_clone(g0);
    if (!p) return NULL;
    if (ct_jit_freeze(p) || ct_jit_eliminate_dead_code(p)) { ct_graph_free(p); return NULL; }
    ct_q_linear_packed **pk = (ct_q_linear_packed **)CT_MALLOC((size_t)(p->nn > 0 ? p->nn : 1) * sizeof(void *));
    ct_module **mods = (ct_module **)CT_MALLOC((size_t)(p->nn > 0 ? p->nn : 1) * sizeof(void *));
    ct_tensor **env = (ct_tensor **)CT_MALLOC((size_t)(p->nv > 0 ? p->nv : 1) * sizeof(ct_tensor *));
    if (!pk || !mods || !env) {
        CT_FREE(pk); CT_FREE(mods); CT_FREE(env); ct_graph_free(p);
        ct_set_error(CT_ERR_MEMORY, "jit_quant_dynamic: out of memory");
        return NULL;
    }
    memset(pk, 0, (size_t)(p->nn > 0 ? p->nn : 1) * sizeof(void *));
    memset(mods, 0, (size_t)(p->nn > 0 ? p->nn : 1) * sizeof(void *));
    int tok = ct_scope_begin(), prev = ct_set_grad_enabled(0), bad = 0, heads = 0;
    ct_graph *q = NULL;
    for (int i = 0; i < p->nn && !bad; i++) {
        int kind = ct__jq_head(p, &o, i);
        if (kind != CT__JQ_ADDMM && kind != CT__JQ_MM) continue;
        const ct__jnode *n = &p->n[i];
        ct_tensor *wt = p->v[n->in[kind == CT__JQ_ADDMM ? 2 : 1]].t, *b = kind == CT__JQ_ADDMM ? p->v[n->in[0]].t : NULL;
        ct_module *lin = ct_nn_linear_bias(wt->shape[0], wt->shape[1], b != NULL);
        ct_tensor *w = ct_transpose(wt, 0, 1);
        if (!lin || !w || !ct_copy_(ct_module_get(lin, "weight"), w) || (b && !ct_copy_(ct_module_get(lin, "bias"), b))) bad = 1;
        if (!bad) mods[i] = ct_nnq_dynamic_linear(lin, per_channel, reduce_range);
        ct_module_free(lin);
        if (!bad && !(mods[i] && (pk[i] = (ct_q_linear_packed *)ct_nnq_dynamic_linear_packed(mods[i])))) bad = 1;
        heads++;
    }
    if (!bad && !heads) {
        ct_set_error(CT_ERR_ARG, "jit_quant_dynamic: the graph has no linear layer with a constant weight to quantize (%d nodes)", p->nn);
        bad = 1;
    }
    ct_tensor *xs[64];
    if (!bad && p->nin > 64) { ct_set_error(CT_ERR_UNSUPPORTED, "jit_quant_dynamic: %d inputs (at most 64)", p->nin); bad = 1; }
    for (int k = 0; k < p->nin && !bad; k++) {
        const ct__jval *x = &p->v[p->in[k]];
        if (!(xs[k] = ct_zeros_n(x->dtype, x->ndim, x->shape))) bad = 1;
    }
    if (!bad && ct_trace_begin(p->nin, xs) != CT_OK) bad = 1;
    if (!bad) {
        for (int v = 0; v < p->nv; v++) env[v] = p->v[v].t;
        for (int k = 0; k < p->nin; k++) env[p->in[k]] = xs[k];
        ct_tensor *ins[64], *outs[16];
        for (int i = 0; i < p->nn && !bad; i++) {
            const ct__jnode *n = &p->n[i];
            if (n->nin > 64 || n->nout > 16) { ct_set_error(CT_ERR_UNSUPPORTED, "jit_quant_dynamic: node %d has too many inputs or outputs", i); bad = 1; break; }
            for (int k = 0; k < n->nin; k++) ins[k] = n->in[k] >= 0 ? env[n->in[k]] : NULL;
            if (pk[i]) {
                ct_tensor *y = ct_q_linear_dynamic(ins[p->n[i].op == o.addmm ? 1 : 0], pk[i], reduce_range);
                if (!y) { bad = 1; break; }
                env[n->out[0]] = y;
                continue;
            }
            if (ct_dispatch(n->op, n->nin, ins, &n->a, NULL, n->inplace, outs, n->nout) < 0) { bad = 1; break; }
            for (int k = 0; k < n->nout; k++) env[n->out[k]] = n->inplace && k == 0 ? ins[0] : outs[k];
        }
        ct_tensor *ys[64];
        if (!bad && p->nout > 64) { ct_set_error(CT_ERR_UNSUPPORTED, "jit_quant_dynamic: %d outputs (at most 64)", p->nout); bad = 1; }
        for (int k = 0; k < p->nout && !bad; k++) ys[k] = env[p->out[k]];
        if (bad) {
            char msg[768];
            ct__jit_errcopy(msg, sizeof msg);
            ct_trace_abort();
            ct_set_error(ct_last_error_code() ? ct_last_error_code() : CT_ERR_STATE, "jit_quant_dynamic: %s", msg);
        } else {
            q = ct_trace_end(p->nout, ys);
            if (q) q->dyn_batch = p->dyn_batch;
        }
    }
    ct_set_grad_enabled(prev);
    for (int i = 0; i < p->nn; i++) ct_module_free(mods[i]);
    ct_scope_end(tok);
    CT_FREE(pk);
    CT_FREE(mods);
    CT_FREE(env);
    ct_graph_free(p);
    return q;
}
static ct_tensor *ct__jq_deq(ct_tensor *t) { return t && CT__DT_QUANT(t->dtype) ? ct_dequantize(t) : t; }
CTENSOR_API ct_graph *ct_jit_quant_convert(const ct_graph *p) {
    if (!p) { ct_set_error(CT_ERR_NULL, "jit_quant_convert: graph is NULL"); return NULL; }
    if (!p->qobs) { ct_set_error(CT_ERR_STATE, "jit_quant_convert: the graph is not prepared (make it with ct_jit_quant_prepare and calibrate it)"); return NULL; }
    if (ct_is_tracing()) { ct_set_error(CT_ERR_STATE, "jit_quant_convert: this thread is tracing"); return NULL; }
    const ct_qconfig *qc = (const ct_qconfig *)p->qcfg;
    for (int v = 0; v < p->nv; v++) {
        ct_module *ob = (ct_module *)p->qobs[v];
        if (ob && p->qw && !ct_is_fake_quantize(ob)) continue;              /* QAT: a ConvBn2d's / LinearBn1d's batch norm */
        if (ob && ct_is_fake_quantize(ob)) ob = ct__q_observer_of(ob);     /* QAT: its observer */
        if (!ob || ct__jq_calibrated(ob)) continue;
        char lab[64];
        if (p->v[v].name) snprintf(lab, sizeof lab, "%s", p->v[v].name);
        else snprintf(lab, sizeof lab, "%d", v);
        ct_set_error(CT_ERR_STATE, "jit_quant_convert: the observer of %%%s has seen no data: run the prepared graph on calibration inputs first", lab);
        return NULL;
    }
    ct__jq_ops o;
    ct__jq_find_ops(&o);
    ct__jq_prep *pr = (ct__jq_prep *)CT_MALLOC((size_t)(p->nn > 0 ? p->nn : 1) * sizeof(ct__jq_prep));
    ct_tensor **env = (ct_tensor **)CT_MALLOC((size_t)(p->nv > 0 ? p->nv : 1) * sizeof(ct_tensor *));
    char *skip = (char *)CT_MALLOC((size_t)(p->nn > 0 ? p->nn : 1));
    if (!pr || !env || !skip) {
        CT_FREE(pr); CT_FREE(env); CT_FREE(skip);
        ct_set_error(CT_ERR_MEMORY, "jit_quant_convert: out of memory");
        return NULL;
    }
    memset(pr, 0, (size_t)(p->nn > 0 ? p->nn : 1) * sizeof(ct__jq_prep));
    memset(skip, 0, (size_t)(p->nn > 0 ? p->nn : 1));
    int tok = ct_scope_begin(), prev = ct_set_grad_enabled(0), bad = 0;
    ct_graph *q = NULL;
    /* 1. weights quantized and packed, output parameters read (not traced) */
    for (int i = 0; i < p->nn && !bad; i++) {
        const ct__jqcb *cb = p->qw ? (const ct__jqcb *)p->qw[i].cb : NULL;   /* QAT: a ConvBn2d / LinearBn1d */
        if (p->qw && p->qw[i].aux) skip[i] = 1;
        int kind = cb ? cb->lin ? CT__JQ_ADDMM : CT__JQ_CONV : skip[i] ? 0 : ct__jq_head(p, &o, i);
        if (!kind) continue;
        const ct__jnode *n = &p->n[i];
        int r = cb ? cb->relu : ct__jq_relu_of(p, &o, i);
        int out = cb ? cb->out : r >= 0 ? p->n[r].out[0] : n->out[0];
        ct__jq_prep *e = &pr[i];
        e->kind = kind;
        e->relu = r;
        e->out = out;
        if (r >= 0 && r != i) skip[r] = 1;
        if (!p->qobs[out] || ct__q_act_qparams((ct_module *)p->qobs[out], &e->scale, &e->zp) < 0) { bad = 1; break; }
        e->scale = (double)(float)e->scale;    /* a float32 scale, as the quantized modules keep it */
        if (kind >= CT__JQ_ADD) continue;          /* no weight */
        ct_module *wfq = cb ? (ct_module *)cb->wfq : p->qw ? (ct_module *)p->qw[i].fq : NULL;   /* QAT: the trained weight's FakeQuantize */
        ct_tensor *fw = NULL, *fb = NULL;
        if (cb) {   /* ConvBn2d / LinearBn1d: the batch norm folded with its running statistics (convert's fuse_conv_bn_weights / fuse_linear_bn_weights) */
            ct_module *bn = cb->bn;
            if (ct__jq_fold_bn_math(p->v[cb->w].t, cb->b >= 0 ? p->v[cb->b].t : NULL, ct_module_get(bn, "weight"), ct_module_get(bn, "bias"),
                                    ct_module_get(bn, "running_mean"), ct_module_get(bn, "running_var"), cb->eps, &fw, &fb)) {
                bad = 1;
                break;
            }
        }
        if (kind == CT__JQ_CONV) {
            ct_tensor *cw = cb ? fw : ct_detach(p->v[n->in[1]].t);
            ct_tensor *qw = !cw ? NULL : wfq ? ct__q_quantize_weight_fq(wfq, cw) : ct__q_quantize_weight(qc, cw);
            ct_conv_options co;
            memset(&co, 0, sizeof co);
            for (int d = 0; d < 2; d++) {
                co.stride_hw[d] = n->a.v[d];
                co.padding_hw[d] = n->a.v[2 + d];
                co.dilation_hw[d] = n->a.v[4 + d];
            }
            co.groups = n->a.i[0];
            ct_tensor *b = cb ? fb : n->nin == 3 && n->in[2] >= 0 ? ct_detach(p->v[n->in[2]].t) : NULL;
            e->conv = qw ? ct_q_conv2d_prepack(qw, b, &co) : NULL;
            if (!e->conv) bad = 1;
        } else {
            ct_tensor *w = cb ? fw : ct_contiguous(ct_transpose(ct_detach(p->v[n->in[kind == CT__JQ_ADDMM ? 2 : 1]].t), 0, 1));
            ct_tensor *qw = !w ? NULL : wfq ? ct__q_quantize_weight_fq(wfq, w) : ct__q_quantize_weight(qc, w);
            e->lin = qw ? ct_q_linear_prepack(qw, cb ? fb : kind == CT__JQ_ADDMM ? ct_detach(p->v[n->in[0]].t) : NULL) : NULL;
            if (!e->lin) bad = 1;
        }
    }
    /* 2. the walk, traced */
    ct_tensor *xs[64];
    if (!bad && p->nin > 64) {
        ct_set_error(CT_ERR_UNSUPPORTED, "jit_quant_convert: %d inputs (at most 64)", p->nin);
        bad = 1;
    }
    for (int k = 0; k < p->nin && !bad; k++) {
        const ct__jval *x = &p->v[p->in[k]];
        xs[k] = ct_zeros_n(x->dtype, x->ndim, x->shape);
        if (!xs[k]) bad = 1;
    }
    if (!bad && ct_trace_begin(p->nin, xs) != CT_OK) bad = 1;
    if (!bad) {
        for (int v = 0; v < p->nv; v++) env[v] = p->v[v].t;
        for (int k = 0; k < p->nin; k++) env[p->in[k]] = xs[k];
        ct_tensor *outs[64];
        for (int i = 0; i < p->nn && !bad; i++) {
            const ct__jnode *n = &p->n[i];
            if (skip[i]) continue;
            ct_tensor *ins[64];
            if (n->nin > 64 || n->nout > 16) { ct_set_error(CT_ERR_UNSUPPORTED, "jit_quant_convert: node %d has too many inputs or outputs", i); bad = 1; break; }
            for (int k = 0; k < n->nin; k++) ins[k] = n->in[k] >= 0 ? env[n->in[k]] : NULL;
            if (pr[i].kind) {
                const ct__jq_prep *e = &pr[i];
                int xi = e->kind == CT__JQ_ADDMM ? 1 : 0, nq = e->kind >= CT__JQ_ADD ? n->nin : 1;
                for (int k = 0; k < nq && !bad; k++) {
                    int v = n->in[e->kind >= CT__JQ_ADD ? k : xi];
                    if (!CT__DT_QUANT(env[v]->dtype)) {      /* from float: its observer's parameters, quantized once */
                        double s;
                        int64_t zp;
                        ct_module *ob = (ct_module *)p->qobs[v];
                        env[v] = ob && ct__q_act_qparams(ob, &s, &zp) == 0
                                     ? ct_quantize_per_tensor(env[v], (double)(float)s, zp, ct_observer_dtype(ct__q_observer_of(ob))) : NULL;
                        if (!env[v]) bad = 1;
                    }
                    ins[e->kind >= CT__JQ_ADD ? k : xi] = env[v];
                }
                if (bad) break;
                ct_tensor *x = ins[xi];
                ct_tensor *y = e->kind == CT__JQ_ADD ? (e->relu >= 0 ? ct_q_add_relu : ct_q_add)(ins[0], ins[1], e->scale, e->zp)
                             : e->kind == CT__JQ_CAT ? ct_q_cat(n->nin, ins, (int)n->a.i[0], e->scale, e->zp)
                             : !x ? NULL
                             : e->conv ? (e->relu >= 0 ? ct_q_conv2d_relu : ct_q_conv2d)(x, e->conv, e->scale, e->zp)
                                       : (e->relu >= 0 ? ct_q_linear_relu : ct_q_linear)(x, e->lin, e->scale, e->zp);
                if (!y) { bad = 1; break; }
                env[e->out] = y;
                continue;
            }
            int anyq = 0;
            for (int k = 0; k < n->nin; k++) anyq |= ins[k] && CT__DT_QUANT(ins[k]->dtype);
            if (anyq && !ct__jq_passthrough(n->op))
                for (int k = 0; k < n->nin; k++) {
                    ins[k] = ct__jq_deq(ins[k]);
                    if (n->in[k] >= 0 && !ins[k]) bad = 1;
                }
            /* a view traced on a contiguous float tensor may meet an int8 one in another
               layout (quantized conv2d writes channels-last): made contiguous first */
            if (anyq && n->nin >= 1 && ins[0] && CT__DT_QUANT(ins[0]->dtype) && !ct_is_contiguous(ins[0]) &&
                (n->op == ct_op_find("aten::view") || n->op == ct_op_find("aten::_unsafe_view")) && !(ins[0] = ct_contiguous(ins[0])))
                bad = 1;
            if (bad || ct_dispatch(n->op, n->nin, ins, &n->a, NULL, n->inplace, outs, n->nout) < 0) { bad = 1; break; }
            for (int k = 0; k < n->nout; k++) env[n->out[k]] = n->inplace && k == 0 ? ins[0] : outs[k];
        }
        ct_tensor *ys[64];
        for (int k = 0; k < p->nout && !bad; k++) {
            ys[k] = ct__jq_deq(env[p->out[k]]);
            if (!ys[k]) bad = 1;
        }
        if (bad || p->nout > 64) {
            char msg[768];
            ct__jit_errcopy(msg, sizeof msg);
            ct_trace_abort();
            ct_set_error(ct_last_error_code() ? ct_last_error_code() : CT_ERR_STATE, "jit_quant_convert: %s", msg);
        } else {
            q = ct_trace_end(p->nout, ys);
            if (q) q->dyn_batch = p->dyn_batch;
        }
    }
    ct_set_grad_enabled(prev);
    for (int i = 0; i < p->nn; i++) {
        ct_q_linear_packed_free(pr[i].lin);
        ct_q_conv_packed_free(pr[i].conv);
    }
    ct_scope_end(tok);
    CT_FREE(pr);
    CT_FREE(env);
    CT_FREE(skip);
    return q;
}
#endif /* quantization */

#endif /* !CTENSOR_JIT_LITE: export, the op list, ct_trace_module */

CT__GXX_POP
#endif /* CTENSOR_JIT_IMPLEMENTATION_DONE */
#endif /* CTENSOR_JIT_IMPLEMENTATION */
