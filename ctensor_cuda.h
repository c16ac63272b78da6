/* ctensor_cuda.h - ctensor on NVIDIA GPUs: devices, a caching allocator, CUDA
   kernels for the core and nn ops, cuBLAS matrix products, cuSOLVER for
   ctensor_linalg.h, fused attention for ctensor_nn.h's transformer fastpath.
   v0.8 (2026-12-07)

   STATUS
     Issue 15. It compiles warning-free under nvcc (CUDA 13.0, -Werror
     all-warnings) and skips cleanly without a GPU. Every op of ctensor.h's and
     ctensor_nn.h's tables has a CUDA kernel (tests/cuda/test_cuda_reduce.h:
     test_kernel_coverage), the fused transformer ops included. The first slice (devices,
     allocator, copies, elementwise, reductions, softmax, gather/scatter, cuBLAS)
     passed tests/cuda/gpu_check.sh on a GPU (NVIDIA H200, driver 580, CUDA
     13.0, 2026-11-27): 2463 checks, compute-sanitizer memcheck 0 errors,
     racecheck (reductions, softmax) 0 hazards. Everything since (streams,
     events, pinned memory, the nn kernels, random numbers, scans, sorting,
     indexing, shapes, resampling, the fused optimizers, ...) has run only on a
     host emulation of the CUDA runtime (tests/cuda/emu: the kernels' logic on
     the CPU, with device memory unreadable by host code as on a GPU), not yet
     on a GPU. No GPU benchmarks have been taken yet (make bench-cuda).
     Issue 16 (part): cuSOLVER / cuBLAS kernels for ctensor_linalg.h's cholesky,
     inv, solve, lu_factor, lu_solve, det, slogdet, eigh, qr, svd,
     solve_triangular, cholesky_solve, cholesky_inverse, householder_product
     and lstsq (driver gels, m >= n) (float32/float64, the CPU's infos and errors, gradients
     through the CPU's backward rules) compile warning-free under nvcc and pass
     against the CPU path on the emulator (tests/cuda/emu/cusolverDn.h, LAPACKE
     behind cuSOLVER's signatures); they have never run on a GPU.
     Issue 16 (part 2, 2026-12-07): pinv (svd / eigh on the device), matrix_exp
     (Pade with scaling and squaring on cuBLAS and getrs), cross, vander, lstsq
     of wide matrices (the minimum-norm solution through the QR of A^T), eig /
     eigvals of real matrices (cusolverDnXgeev, CUDA 12.6+), syevjBatched and
     gesvdjBatched for batches of matrices up to 32 x 32, and fused attention
     for ctensor_nn.h's two fused transformer ops (a tiled kernel with an online
     softmax; see "Transformer fastpath: fused attention") pass against the CPU
     path on the emulator and compile under nvcc; they have never run on a GPU.
     Issue 16 (part 3, 2026-12-07): ctensor_quant.h's quantized::linear and
     linear_relu on the device (int8 GEMM through cuBLASLt, requantisation in
     a kernel; the CPU's output codes exactly on the emulator,
     tests/cuda/emu/cublasLt.h) and ct::conv2d_relu; never run on a GPU.
     Issue 16 (part 4, 2026-12-07): quantized::conv2d and conv2d_relu on the
     device (im2col into int8, the Linear's cuBLASLt int8 GEMM per group, a
     requantisation kernel; the CPU's codes exactly on the emulator), batched
     qr (cuBLAS geqrfBatched, Q formed by a kernel) and batched
     solve_triangular (cuBLAS trsmBatched); never run on a GPU.
     Issue 16 (part 5, 2026-12-07): quantized::linear_dynamic on the device
     (the activation's range and codes in kernels, the same cuBLASLt GEMM,
     dequantisation + bias in the epilogue; the CPU's int32 products bit for
     bit on the emulator), one cuBLASLt helper for the three int8 ops (a packed
     weight at an unaligned address is copied to an aligned block), and
     TransformerEncoder's nested (packed) rows on the device (ctensor_nn.h
     gathers and scatters them with the device's index_select / index_copy_);
     never run on a GPU.

   HOW TO USE
     One file of the program, compiled by nvcc as CUDA, holds the implementations:
         #define CTENSOR_IMPLEMENTATION
         #include "ctensor.h"
         #include "ctensor_nn.h"        (optional; any companion headers)
         #include "ctensor_cuda.h"      (last: it registers kernels of the
                                         companions included before it)
     and the program builds with one line:
         nvcc -O2 -x cu -DCTENSOR_CUDA main.c -lcublas
     (with ctensor_linalg.h before this header: add -lcusolver -llapacke -lopenblas;
     with ctensor_quant.h before it: add -lcublasLt)
     (add -arch=native, or the GPU's architecture: -arch=sm_90 for an H100,
     -arch=sm_87 for a Jetson Orin; Xavier sm_72, TX2 sm_62 and Nano sm_53 need a
     CUDA toolkit before 13, which dropped them: the code uses nothing newer).
     Other files of the program may include ctensor.h and this header (with
     CTENSOR_CUDA defined) and be compiled by any C compiler: the declarations
     below are plain C. Nothing else changes: device tensors go through the same
     functions as CPU tensors.

   THE FEEL
       ct_device gpu = ct_cuda(0);
       CT_SCOPE {
           ct_tensor *x = ct_to_device(ct_randn(CT_FLOAT32, 64, 784), gpu);
           ct_tensor *w = ct_requires_grad(ct_detach(ct_to_device(ct_randn(CT_FLOAT32, 10, 784), gpu)));
           ct_tensor *loss = ct_cross_entropy(ct_linear(x, w, NULL), ct_to_device(labels, gpu), NULL);
           ct_backward(loss);                 // gradients on the GPU, w's in ct_grad(w)
           ct_print(loss);                    // tensor(2.4123, device='cuda:0', grad_fn=<...>)
       }

   WHAT RUNS ON THE GPU IN THIS SLICE
     - copies: ct_to_device / ct_to (aten::_to_copy: host to device, device to host,
       device to device, with dtype conversion and any strides), clone,
       contiguous, copy_, fill_; ctensor.h's internal copies (autograd's
       accumulation, conversions, ct_item) go through this header's copy_; factories on a device (full/zeros/ones,
       arange, linspace, eye); printing (a host copy, device='cuda:0')
     - elementwise: every unary op of ctensor.h's unary tables (neg, abs, exp,
       log, sqrt, sin, cos, tanh, sigmoid, relu, gelu, silu, ..., the
       predicates), leaky_relu/elu/celu/softplus/hardtanh/threshold/clamp/pow/
       nan_to_num/round(decimals), every binary op (add/sub with alpha, mul, div
       and its rounding modes, remainder, fmod, pow, atan2, maximum, minimum,
       fmax, fmin, hypot, copysign, xlogy, comparisons, logical and bitwise),
       where, masked_fill, lerp, addcmul, addcdiv, clamp(tensor): broadcasting,
       PyTorch type promotion, in-place forms, CPU 0-d tensors as scalars
     - reductions: sum, mean, nansum, prod, amax, amin, max/min (with indices
       along a dim), argmax/argmin (a dim or all), all, any, count_nonzero,
       norm (p = 0, 1, 2, inf, -inf, any), logsumexp; softmax, log_softmax and
       their backward ops
     - gather, scatter (src and value), scatter_add
     - random numbers on the device: uniform_, normal_, random_ (from/to and
       the dtype's range), bernoulli_ (a float p or a tensor p), exponential_,
       so rand/randn/randint (ct_rand_on, ct_randn_on, ct_rand_like,
       ct_randn_like, ct_randint_like), bernoulli and nn's dropout run there:
       a counter-based Philox4x32-10 generator per device, seeded by
       ct_manual_seed (as torch.manual_seed) or ct_cuda_manual_seed / _all;
       same seed and calls, same numbers, whatever the grid (not PyTorch's
       CUDA numbers: see the section "Random numbers on the device")
     - scans: cumsum (dtype=, the reverse scan of its backward), cumprod,
       cummax, cummin along any dim; var, std, var_mean, std_mean (dims,
       correction, keepdim)
     - sort (stable, NaN last ascending as the CPU path), argsort, topk,
       kthvalue, median (a dim or all), mode along any dim, any length (a
       bitonic sort in shared memory up to 2048 elements a row, in global
       memory beyond)
     - index_select, index_add, index_copy, index_fill, advanced indexing
       (index, index_put with accumulate; boolean masks through nonzero);
       index errors are the CPU's (the first bad index is read back);
       nonzero, masked_select, masked_scatter (their lengths are read back)
     - ctensor_nn.h's kernels, when ctensor_nn.h comes before this header (its
       implementation first; the other order is an #error in ctensor_nn.h):
       layer_norm and native_layer_norm_backward, batch_norm (training, with the
       running statistics; evaluation: batch_norm_eval) and
       native_batch_norm_backward, float32/float64 as on the CPU and, on the
       device, float16/bfloat16 too (float arithmetic; every operand, the saved
       statistics too, in the input's dtype), NCHW or channels-last; embedding (any dtype, int32/int64 indices, padding_idx;
       its backward is index_add); the fused cross_entropy (class indices,
       ignore_index, reductions; weights, label smoothing and class
       probabilities take the op chain, as on the CPU), mse_loss,
       binary_cross_entropy_with_logits and their backward ops; pixel_shuffle
       and pixel_unshuffle; group_norm (layer_norm and core ops)
     - mm, bmm, addmm, baddbmm, mv, addmv, dot through cuBLAS (float32, float64,
       float16, bfloat16), TF32 behind ct_cuda_set_allow_tf32
     - ctensor_nn.h's convolution and pooling ops (when ctensor_nn.h is included
       before this header): conv2d, conv_transpose2d and the weight gradient
       (im2col / col2im + cuBLAS, groups, stride, padding, dilation, bias, NCHW
       and channels-last), max_pool2d_with_indices, avg_pool2d,
       adaptive_avg_pool2d and their backward ops; float32, float64, and on the
       device also float16 and bfloat16 (float accumulation).
       conv1d, Conv2d, MaxPool2d, ... run through them.
     - ctensor_nn.h's resampling ops: upsample_nearest1d/2d/3d,
       _upsample_nearest_exact1d/2d/3d, upsample_linear1d, upsample_bilinear2d,
       upsample_bicubic2d, upsample_trilinear3d and their backward ops (so
       ct_interpolate and Upsample in every mode), grid_sampler_2d / 3d and
       their backward ops (ct_grid_sample: bilinear / nearest / bicubic, zeros
       / border / reflection, align_corners); float32 and float64 as on the
       CPU, and on the device also float16 and bfloat16 (float arithmetic;
       their backward sums go through a float32 buffer); NCHW, channels-last
       and strided inputs. Forward: the CPU kernels' index math and summation
       order; backward ops add atomically into grad_input (sums in any order).
     - shapes: cat and stack (inputs of any strides and dtypes, promoted; each
       copied into its slice), flip, roll, repeat, tril, triu, diag_embed,
       constant_pad_nd and the reflect / replicate / circular pads (negative
       pads crop) through one gather kernel with a per-op index map, in every
       dtype the CPU takes; pad_backward (the CPU's summation order, no
       atomics); take, one_hot (num_classes=-1 included) and repeat_interleave
       with the CPU's data-dependent errors (take's first bad index, one_hot's
       class range and repeat_interleave's repeats are read back).
     - autograd: the backward rules of these ops run unchanged on device tensors,
       so an MLP (linear, relu, cross_entropy, SGD from ctensor_nn.h), a small
       CNN (conv2d, relu, max_pool2d, linear) and a LayerNorm, Linear,
       cross_entropy model train on the GPU step for step with the CPU
       (tests/cuda/test_cuda.c: test_mlp_step, test_cnn_step, test_ln_model_step)
     - streams and events (ct_cuda_stream_new, ct_cuda_set_stream, record /
       wait / elapsed time), per-stream memory reuse with ct_cuda_record_stream,
       pinned host memory (ct_cuda_pin_memory) and non-blocking copies from it
       (ct_to_device_nonblocking)
     - Module.to(device): ct_module_to (ctensor_nn.h) moves a model's parameters,
       buffers and gradients
     - ctensor_nn.h's fused optimizer steps (_fused_sgd_, _fused_adam_,
       _fused_adamw_, _fused_rmsprop_, _fused_adagrad_; every option:
       momentum, dampening, nesterov, weight_decay, maximize, amsgrad,
       centered, lr_decay), float32/float64: a thread per element with the CPU
       loops' operations and roundings (fma, __fmul_rn), so SGD, Adam, AdamW,
       RMSprop and Adagrad on device parameters take the fused op and match
       the CPU's fused step; embedding_bag (core ops on the device)
     - scatter_reduce (sum, prod, mean, amax, amin; include_self), every
       dtype: indices checked first (the CPU's error, read back), atomic adds
       and compare-and-swap loops (float sums in any order; integer sums
       exact), mean's counts and floor division for integers
     - randperm (ct_randperm_on: Philox keys + the bitonic sort) and
       multinomial (with replacement: cumulative sums + binary search;
       without: p / Exponential(1) keys + topk), from the device generator;
       the CPU's errors for invalid weights (a flag read back); not the CPU's
       numbers
     - ctensor_linalg.h's ops, when it is included before this header (link
       -lcusolver): cholesky / cholesky_ex (potrf; potrfBatched for batches),
       inv / inv_ex (getrf + getrs), solve / solve_ex (getrf + getrs, vector
       and broadcast right-hand sides, left=False), lu_factor / lu_factor_ex
       (getrf), lu_solve (getrs; left, adjoint), det, slogdet, logdet (getrf and
       a kernel), eigh / eigvalsh (syevd; syevjBatched for batches of n <= 32),
       qr in every mode (geqrf + orgqr; batches of matrices up to 128 x 128:
       cuBLAS's geqrfBatched and Q from its reflectors in a kernel), svd /
       svdvals (gesvd; gesvdjBatched for batches of matrices up to 32 x 32),
       solve_triangular (cuBLAS trsm; trsmBatched for batches of n <= 128), cholesky_solve
       (potrs), cholesky_inverse (potrs against the identity; the CPU's
       zero-diagonal error), householder_product (orgqr), lstsq with driver
       "gels" (PyTorch's CUDA driver; other drivers fail naming the op): m >= n
       through geqrf + ormqr + cuBLAS trsm, m < n the minimum-norm solution
       through the QR of A^T (geqrf, trsm with R^T, ormqr), vector_norm (the
       core norm's reduction kernel), eig / eigvals of real matrices (Xgeev;
       complex outputs on the device), and, composed of these and of device
       ops, pinv (svd or eigh, the CPU's tolerances), matrix_exp (Pade 3 to 13
       with scaling and squaring, the CPU's plan per matrix), cross and vander;
       float32 and float64;
       the _ex infos are cuSOLVER's devInfo (LAPACK's codes, as on the CPU), and
       the checked functions read them back and raise the CPU's messages. The
       functions composed of these (logdet, lu, matrix_power, matrix_rank,
       cond, matrix_norm, tensorinv, multi_dot, ...) and their
       gradients (the CPU's backward rules are ctensor ops) run on the device.
       lstsq's gradient (through pinv) and householder_product's run there
       too. Not yet: complex inputs (no complex kernels on the device), so
       eig's gradient (complex ops) fails naming an op; qr and
       solve_triangular of matrices larger than 128 x 128 loop over one call
       per matrix, eigh and svd over
       matrices larger than 32 x 32 (cholesky and the LU family batch through
       potrfBatched and cuBLAS's getrfBatched/getrsBatched).
     - ctensor_nn.h's fused transformer ops, ct::multi_head_self_attention_fwd
       and ct::transformer_encoder_layer_fwd (masks none, padding, nested; not
       the KV-cache mode): cuBLAS projections, residual + LayerNorm and
       bias + activation fused (one pass each), and a fused attention kernel (tiles of keys in shared
       memory, an online softmax, the masks inside the tile; no B x H x S x S
       matrix). The modules take them for device inputs (unmasked, padded,
       and TransformerEncoder's nested rows: ctensor_nn.h reads the mask's
       lengths on the host and gathers the rows on the device).
     - ctensor_nn.h's ct::conv2d_relu (the JIT's conv + relu fusion): the device
       convolution, then relu's kernel over the output in place.
     - ctensor_quant.h's quantized::linear and quantized::linear_relu, when it
       is included before this header (link -lcublasLt): quint8 inputs on the
       device (ct_to_device moves quantized tensors, contiguous, both ways) and
       a packed weight moved there by ct_cuda_q_linear_packed_to; an int8 GEMM
       through cuBLASLt (int32 accumulation) and a requantisation kernel (bias
       and relu fused there) that repeats the CPU's float32 epilogue, so the
       output codes equal the CPU's. quantized::conv2d and conv2d_relu with a
       packed weight moved by ct_cuda_q_conv_packed_to (groups, depthwise,
       stride, padding, dilation, per-channel weights): im2col into int8, the
       same cuBLASLt GEMM per group, the CPU's epilogue in a kernel (the same
       codes; the output NCHW contiguous); quantized::linear_dynamic with a
       float32 input on the device (the range, the codes, the GEMM and the
       dequantisation there; one read-back of the range). Not yet: the
       quantized modules (ct_nnq_conv2d stays on the CPU) and the other
       quantized ops on the device (they fail naming the op).
     An op without a CUDA kernel fails cleanly naming the op, as PyTorch:
       "mode: Could not run 'aten::mode' with arguments from the 'CUDA' backend."
     Every op of ctensor.h's and ctensor_nn.h's tables has one (checked by
     test_kernel_coverage), and every op of ctensor_linalg.h's but its helper
     for complex products (ct::linalg_prod_others); of ctensor_quant.h's, only
     quantized::linear, linear_relu, conv2d and conv2d_relu (QuantizedCUDA
     backend) so far.

   SYNCHRONISATION
     Each host thread has a current stream per device (ct_cuda_set_stream; the
     device's default stream until set). An op's kernels, copies and cuBLAS
     calls are queued on the current stream of the op's device, in the order
     the ops were called; the host does not wait for them. These wait: copies
     to the host (ct_to_device(t, ct_cpu()), ct_item, printing) and from
     pageable host memory, which wait for the current stream; the few ops whose
     errors are data-dependent (gather/scatter, index_* and embedding index
     bounds, index/index_put, cross_entropy's targets, bernoulli_'s tensor p,
     integer division by zero) and those whose output length is (nonzero,
     masked_select, masked_scatter's count), which read a flag (or the counts)
     back from the current stream, as PyTorch's CPU kernels report these
     errors; ct_cuda_synchronize (the whole device), ct_cuda_stream_synchronize,
     ct_cuda_event_synchronize, ct_cuda_empty_cache.
     ct_to_device_nonblocking from pinned memory (ct_cuda_pin_memory) does not
     wait. Streams made with ct_cuda_stream_new are non-blocking, as PyTorch's:
     order work across streams with events (ct_cuda_event_record,
     ct_cuda_stream_wait_event, ct_cuda_stream_wait_stream), and record a
     tensor made on one stream and used on another (ct_cuda_record_stream) so
     that its memory is not reused too early. ct_backward queues the backward
     ops on the calling thread's current stream (PyTorch runs each on its
     forward op's stream): make that stream wait for the forward's first. A
     kernel fault (an illegal
     address) surfaces at the next call that waits, as a CT_ERR_DEVICE error
     naming that call. Build with nvcc's default, the legacy default stream:
     --default-stream per-thread is an #error (as in PyTorch, per-thread work
     goes through each thread's current stream instead).

   MEMORY
     Device memory comes from a caching allocator modelled on PyTorch's: sizes
     round up to 512 bytes; blocks up to 1 MiB come from 2 MiB segments (the
     small pool), larger ones from segments of 20 MiB (requests under 10 MiB) or
     the size rounded up to 2 MiB (the large pool); a block larger than asked
     is split, freed blocks merge with free neighbours of their segment, and a
     freed block is reused without cudaMalloc, by the stream it was made on
     (blocks used by other streams wait for events when freed). When
     cudaMalloc fails, the cache is released (cudaFree of wholly free
     segments) and the call is retried once; then the error is
     "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.11 GiB total
     capacity; 1.50 GiB already allocated; 77.02 GiB free; 1.52 GiB reserved in
     total by ctensor)". ct_cuda_memory_stats reports what it holds.

   CONFIGURATION
     CTENSOR_CUDA             required: without it this header is an #error
     CTENSOR_CUDA_MAX_DEVICES devices the allocator keeps state for (default 64)

   CONTENTS (search for the banner titles)
     Declarations: devices; memory; streams and events; pinned host memory;
     matmul math mode; random numbers; quantized inference
     Implementation: Includes and checks; Errors and device guards; Streams and
     events; The caching allocator; Device arithmetic (dtypes, half precision,
     the core's expression helpers); Elementwise kernels; Copies and factories;
     Reductions; Softmax; Gather and scatter; Matrix products (cuBLAS);
     Normalization, embedding and loss kernels (ctensor_nn.h's ops) and
     index_add; Convolution and pooling; Resampling: upsampling and grid
     sampling; Random numbers on the device; Shapes (cat, stack, flip, roll,
     repeat, tril, triu, diag_embed, pads, take, one_hot, repeat_interleave);
     Scans, variance and sorting along dims; Indexing along a dim, advanced
     indexing, nonzero and masked_select; Fused optimizer steps,
     scatter_reduce, randperm and multinomial; Linear algebra: cuSOLVER and
     cuBLAS for ctensor_linalg.h's ops; Quantized inference: int8 Linear
     and conv through cuBLASLt; Transformer fastpath: fused attention; Registration and
     the public API

   REVISIONS
     0.1 (2026-11-27)  first slice: devices, caching allocator, copies,
                       elementwise, reductions, softmax, gather/scatter, cuBLAS,
                       autograd on device (an MLP trains); tests pass on an H200
                       under memcheck and racecheck.
     0.2 (2026-11-27)  streams and events, per-stream allocator pools,
                       pinned memory and non-blocking copies; kernels for
                       ctensor_nn.h's norms, embedding, fused losses,
                       convolution and pooling; Philox random numbers, scans,
                       var/std, sorting, indexing, as_strided_scatter (emulator
                       only so far).
     0.3 (2026-11-27)  a kernel for every op of the tables: all/any/
                       count_nonzero, norm, logsumexp, mode, the shape ops,
                       resampling, the fused optimizers, scatter_reduce,
                       randperm, multinomial; layer_norm and batch_norm in
                       float16/bfloat16 (emulator only so far).
     0.4 (2026-12-06)  cuSOLVER / cuBLAS kernels for ctensor_linalg.h's
                       cholesky, inv, solve, lu_factor, lu_solve, det,
                       slogdet, eigh, qr, svd, solve_triangular,
                       cholesky_solve, cholesky_inverse,
                       householder_product, lstsq (gels) (emulator only
                       so far).
     0.5 (2026-12-07)  pinv, matrix_exp, cross, vander, eig / eigvals (Xgeev),
                       lstsq of wide matrices, syevjBatched / gesvdjBatched for
                       batches of small matrices; fused attention and the
                       fused transformer ops (emulator only so far).
     0.6 (2026-12-07)  int8 quantized Linear through cuBLASLt
                       (ct_cuda_q_linear_packed_to, quantized tensors to and
                       from the device), ct::conv2d_relu (emulator only so
                       far).
     0.7 (2026-12-07)  int8 quantized conv2d / conv2d_relu through cuBLASLt
                       (ct_cuda_q_conv_packed_to), batched qr (geqrfBatched)
                       and solve_triangular (trsmBatched) (emulator only so
                       far).
     0.8 (2026-12-07)  quantized::linear_dynamic on the device;
                       TransformerEncoder's nested rows on the device
                       (emulator only so far).
*/
#ifndef CTENSOR_CUDA_H_INCLUDED
#define CTENSOR_CUDA_H_INCLUDED
#ifndef CTENSOR_H_INCLUDED
#  error "ctensor_cuda.h: include ctensor.h before ctensor_cuda.h"
#endif
#ifndef CTENSOR_CUDA
#  error "ctensor_cuda.h: define CTENSOR_CUDA to build with CUDA (nvcc -O2 -x cu -DCTENSOR_CUDA main.c -lcublas); a CPU-only program does not include this header"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================
   Devices (torch.cuda)
   ========================================================================== */
/* The number of CUDA devices; 0 (and no error) when there is no GPU or no driver. */
CTENSOR_API int ct_cuda_device_count(void);
CTENSOR_API int ct_cuda_is_available(void);                /* ct_cuda_device_count() > 0 */
/* The calling thread's current device (torch.cuda.current_device); -1 with an error
   when there is none. Ops run on their tensors' device whatever the current one is. */
CTENSOR_API int ct_cuda_current_device(void);
CTENSOR_API ct_status ct_cuda_set_device(int index);
/* Waits for all work queued on the current device; reports a kernel fault that
   happened since the last call that waited (CT_ERR_DEVICE with CUDA's message). */
CTENSOR_API ct_status ct_cuda_synchronize(void);
/* The device's name ("NVIDIA H100 80GB HBM3") into buf; returns buf ("" on error). */
CTENSOR_API const char *ct_cuda_device_name(int index, char *buf, size_t cap);

/* ============================================================================
   Memory: the caching allocator's statistics (torch.cuda.memory_stats)
   ========================================================================== */
typedef struct ct_cuda_mem_stats {
    int64_t allocated_bytes;        /* in blocks handed out now (sizes rounded to 512) */
    int64_t peak_allocated_bytes;   /* highest allocated_bytes since the start or the last reset */
    int64_t requested_bytes;        /* what the callers asked for, of allocated_bytes */
    int64_t reserved_bytes;         /* in segments obtained with cudaMalloc and kept */
    int64_t peak_reserved_bytes;
    int64_t active_blocks;          /* blocks handed out now */
    int64_t segments;               /* segments held now */
    int64_t num_allocs, num_frees;  /* calls served */
    int64_t num_cuda_mallocs;       /* segments allocated (PyTorch's num_device_alloc) */
    int64_t num_cuda_frees;         /* segments returned to CUDA (num_device_free) */
    int64_t num_alloc_retries;      /* cudaMalloc failed, the cache was released, and it was tried again */
    int64_t num_ooms;               /* out-of-memory errors reported */
} ct_cuda_mem_stats;
/* Statistics of device `index` into *out; CT_ERR_DEVICE for an index out of range. */
CTENSOR_API ct_status ct_cuda_memory_stats(int index, ct_cuda_mem_stats *out);
/* torch.cuda.memory_allocated / memory_reserved / max_memory_allocated */
CTENSOR_API int64_t ct_cuda_memory_allocated(int index);
CTENSOR_API int64_t ct_cuda_memory_reserved(int index);
CTENSOR_API int64_t ct_cuda_max_memory_allocated(int index);
CTENSOR_API void ct_cuda_reset_peak_memory_stats(int index);
/* Returns every wholly free cached segment of every device to CUDA (waits for
   the devices first). Memory held by live tensors stays. */
CTENSOR_API ct_status ct_cuda_empty_cache(void);

/* ============================================================================
   Streams and events (torch.cuda.Stream, torch.cuda.Event)
   Each host thread has a current stream per device: the device's default
   stream until ct_cuda_set_stream says otherwise. Every kernel, copy and cuBLAS
   call of an op runs on the current stream of the op's device, in call order.
   Streams made here are non-blocking (as PyTorch's): they do not wait for the
   default stream, nor it for them; order them with events or
   ct_cuda_stream_wait_stream. Memory a tensor gets comes from the pool of the
   stream current when it is made, and returns to it: another stream that uses
   the tensor must be recorded with ct_cuda_record_stream, else its block may be
   reused while that stream still reads it (PyTorch's rule too).
   ========================================================================== */
typedef struct ct_cuda_stream ct_cuda_stream;
typedef struct ct_cuda_event ct_cuda_event;
/* A new stream on device `index`; NULL with CT_ERR_DEVICE when it cannot be made.
   ct_cuda_stream_free waits for the work queued on it, then releases it; the
   calling thread, if it is its current stream, goes back to the default stream
   (no other thread may have it current then). */
CTENSOR_API ct_cuda_stream *ct_cuda_stream_new(int index);
CTENSOR_API void ct_cuda_stream_free(ct_cuda_stream *s);
/* The default stream of device `index` (a handle owned by the library). */
CTENSOR_API ct_cuda_stream *ct_cuda_default_stream(int index);
/* The calling thread's current stream on device `index` (torch.cuda.current_stream). */
CTENSOR_API ct_cuda_stream *ct_cuda_current_stream(int index);
/* Makes s the calling thread's current stream on its device (torch.cuda.set_stream);
   returns the stream it replaces there, to restore it later (NULL on error). */
CTENSOR_API ct_cuda_stream *ct_cuda_set_stream(ct_cuda_stream *s);
CTENSOR_API int ct_cuda_stream_device(const ct_cuda_stream *s);   /* -1 for NULL */
/* Waits until the work queued on s is done; reports a kernel fault as ct_cuda_synchronize. */
CTENSOR_API ct_status ct_cuda_stream_synchronize(ct_cuda_stream *s);
/* 1 when the work queued on s is done, 0 when not yet, -1 on error. */
CTENSOR_API int ct_cuda_stream_query(ct_cuda_stream *s);
/* Work queued on s from now on waits for e (for the work before e's record). */
CTENSOR_API ct_status ct_cuda_stream_wait_event(ct_cuda_stream *s, ct_cuda_event *e);
/* Work queued on s from now on waits for the work queued on `other` until now. */
CTENSOR_API ct_status ct_cuda_stream_wait_stream(ct_cuda_stream *s, ct_cuda_stream *other);
/* An event; with enable_timing, ct_cuda_event_elapsed_ms can time two of them.
   It belongs to the device of the stream it is first recorded on. */
CTENSOR_API ct_cuda_event *ct_cuda_event_new(int enable_timing);
CTENSOR_API void ct_cuda_event_free(ct_cuda_event *e);
/* Records e on s (NULL: the current stream of the current device). */
CTENSOR_API ct_status ct_cuda_event_record(ct_cuda_event *e, ct_cuda_stream *s);
CTENSOR_API ct_status ct_cuda_event_synchronize(ct_cuda_event *e);   /* waits for it (at once if never recorded) */
CTENSOR_API int ct_cuda_event_query(ct_cuda_event *e);               /* 1 happened (or never recorded), 0 not yet, -1 error */
/* Milliseconds between two recorded timing events (start.elapsed_time(end)); NAN
   with an error when either was not recorded, has no timing, or is not done. */
CTENSOR_API double ct_cuda_event_elapsed_ms(ct_cuda_event *start, ct_cuda_event *end);
/* Tensor.record_stream(s): t's memory is also used by work on s. When the
   tensor's memory is freed, it is reused only after the work queued on s by
   then is done. */
CTENSOR_API ct_status ct_cuda_record_stream(const ct_tensor *t, ct_cuda_stream *s);

/* ============================================================================
   Pinned host memory (Tensor.pin_memory)
   A pinned tensor is a CPU tensor in page-locked memory: the GPU reads it
   directly, so ct_to_device_nonblocking(t, gpu) queues its copy on the current
   stream and returns at once (t must then stay unchanged until the stream is
   past the copy). Pinned blocks are cached (sizes rounded up to a power of
   two); a block is reused only when the copies queued from it are done.
   ct_cuda_empty_cache returns the free ones to CUDA.
   ========================================================================== */
/* A copy of CPU tensor t in pinned memory (t itself, a new reference, when it is
   pinned already); CT_ERR_DEVICE when t is not on the CPU or there is no GPU. */
CTENSOR_API ct_tensor *ct_cuda_pin_memory(const ct_tensor *t);
CTENSOR_API int ct_cuda_is_pinned(const ct_tensor *t);              /* Tensor.is_pinned() */

/* ============================================================================
   Matrix products: math mode (torch.backends.cuda.matmul.allow_tf32, ...)
   ========================================================================== */
/* float32 matrix products may use TF32 tensor cores (10-bit mantissa inputs, float
   accumulation) when allowed. Off by default, as PyTorch's default since 1.12. */
CTENSOR_API void ct_cuda_set_allow_tf32(int allow);
CTENSOR_API int ct_cuda_get_allow_tf32(void);
/* float16 and bfloat16 products run on tensor cores and accumulate in float32;
   cuBLAS may still do parts of the reduction in the inputs' precision (split-K)
   unless this is disallowed (torch.backends.cuda.matmul.
   allow_fp16_reduced_precision_reduction / allow_bf16_...: allowed by default,
   as in PyTorch) */
CTENSOR_API void ct_cuda_set_allow_fp16_reduced_precision_reduction(int allow);
CTENSOR_API int ct_cuda_get_allow_fp16_reduced_precision_reduction(void);
CTENSOR_API void ct_cuda_set_allow_bf16_reduced_precision_reduction(int allow);
CTENSOR_API int ct_cuda_get_allow_bf16_reduced_precision_reduction(void);

/* ============================================================================
   Random numbers: the device generators (torch.cuda.manual_seed)
   ========================================================================== */
/* Seeds the generator of the current device (ct_cuda_manual_seed) or of every
   device (_all). ct_manual_seed seeds them all too, as torch.manual_seed does. */
CTENSOR_API ct_status ct_cuda_manual_seed(uint64_t seed);
CTENSOR_API void ct_cuda_manual_seed_all(uint64_t seed);

/* ============================================================================
   Quantized inference (when ctensor_quant.h is included before this header)
   ========================================================================== */
#ifdef CTENSOR_QUANT_H_INCLUDED
/* A copy of the CPU packed weight w (ct_q_linear_prepack) on device dev, for
   ct_q_linear / ct_q_linear_relu with quint8 inputs on that device (int8 GEMM
   through cuBLASLt, the output requantised on the device; the same codes as the
   CPU path). A snapshot: later changes of w's weight are not seen. Free with
   ct_q_linear_packed_free. NULL with the error set for a CPU device or bad w. */
CTENSOR_API ct_q_linear_packed *ct_cuda_q_linear_packed_to(const ct_q_linear_packed *w, ct_device dev);
/* A copy of the CPU packed conv weight w (ct_q_conv2d_prepack) on device dev,
   for ct_q_conv2d / ct_q_conv2d_relu with quint8 NCHW-contiguous inputs on that
   device (im2col into int8, cuBLASLt's int8 GEMM per group, the output
   requantised on the device; the same codes as the CPU path, as a contiguous
   NCHW quint8 tensor). A snapshot, as the Linear's. Free with
   ct_q_conv_packed_free. NULL with the error set for a CPU device or bad w. */
CTENSOR_API ct_q_conv_packed *ct_cuda_q_conv_packed_to(const ct_q_conv_packed *w, ct_device dev);
#endif

/* ============================================================================
   Initialisation
   ========================================================================== */
/* Registers the CUDA kernels and the allocator. It runs by itself when the
   program loads (and before any ctensor_cuda.h function); calling it is harmless.
   It makes no CUDA call: a program without a GPU pays nothing. */
CTENSOR_API void ct_cuda_init(void);

#ifdef __cplusplus
}  /* extern "C" */
#endif
#endif /* CTENSOR_CUDA_H_INCLUDED */

/* ############################################################################
   IMPLEMENTATION
   ############################################################################ */
#if defined(CTENSOR_IMPLEMENTATION) && !defined(CTENSOR_CUDA_IMPLEMENTATION_DONE)
#define CTENSOR_CUDA_IMPLEMENTATION_DONE
/* ============================================================================
   Includes and checks
   ========================================================================== */
#ifndef CTENSOR_IMPLEMENTATION_DONE
#  error "ctensor_cuda.h: the implementation needs ctensor.h's implementation in the same translation unit (define CTENSOR_IMPLEMENTATION before including ctensor.h)"
#endif
#if !defined(__CUDACC__)
#  error "ctensor_cuda.h: the file that defines CTENSOR_IMPLEMENTATION must be compiled by nvcc as CUDA (nvcc -x cu -DCTENSOR_CUDA main.c -lcublas)"
#endif
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#  error "ctensor_cuda.h: nvcc --default-stream per-thread is not supported (the allocator would take every host thread's default stream for one stream and reuse memory across them unordered); build with the default (legacy) stream and give each thread its own stream: ct_cuda_set_stream(ct_cuda_stream_new(device))"
#endif
#ifdef __NVCC__
/* as in ctensor.h: the expression-generating macros declare operands some
   expressions do not use (#550, "set but never used") */
#  pragma nv_diag_suppress 550
#endif
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <mutex>

#ifndef CTENSOR_CUDA_MAX_DEVICES
#  define CTENSOR_CUDA_MAX_DEVICES 64
#endif
#define CT__CU_THREADS 256   /* threads per block of the elementwise and reduction kernels */
/* Every kernel launch: CT__CU_LAUNCH(grid, block, (args...), kernel<T...>) is
   kernel<<<grid, block>>>(args...) on the current stream of the current device
   (the op's device: its guard made it current). The kernel comes last
   so that its template arguments may hold commas. tests/cuda/emu defines it
   first, to run the kernels on the host (a test of the logic, not of a GPU). */
#ifndef CT__CU_LAUNCH
#  define CT__CU_LAUNCH(grid, block, args, ...) __VA_ARGS__<<<(grid), (block), 0, ct__cu_cur_stream()>>> args
#endif

/* ============================================================================
   Errors and device guards
   A CUDA failure becomes a ctensor error naming the op and CUDA's message
   ("relu: CUDA error: an illegal memory access was encountered"); nothing
   aborts. An out-of-memory from cudaMalloc is the allocator's (below).
   ========================================================================== */
static int ct__cu_fail(const char *op, cudaError_t e) {
    (void)cudaGetLastError();   /* clear it (a sticky error stays for the process, as CUDA's are) */
    return ct__failed(e == cudaErrorMemoryAllocation ? CT_ERR_MEMORY : CT_ERR_DEVICE, "%s: CUDA error: %s", op, cudaGetErrorString(e));
}
/* after a kernel launch: a configuration or launch failure is reported now */
static int ct__cu_launched(const char *op) {
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? 0 : ct__cu_fail(op, e);
}

/* Makes `dev` the thread's current device for the guard's life and restores the
   previous one after (PyTorch's CUDAGuard): an op on cuda:1 leaves the current
   device as it was. ok is 0 (error set) when the device cannot be used. */
struct ct__cu_guard {
    int prev, ok;
    ct__cu_guard(int dev, const char *op) : prev(-1), ok(0) {
        cudaError_t e = cudaGetDevice(&prev);
        if (e == cudaSuccess && prev != dev) e = cudaSetDevice(dev);
        else if (e == cudaSuccess) prev = -1;   /* nothing to restore */
        if (e != cudaSuccess) { prev = -1; ct__cu_fail(op, e); return; }
        ok = 1;
    }
    ~ct__cu_guard() { if (prev >= 0) (void)cudaSetDevice(prev); }
};
/* The device a call runs on: its output device when that is a GPU, else its
   first GPU input's (a copy to the host runs on its source's device). */
static int ct__cu_call_device(const ct__call *c) {
    if (c->odev.type == CT_CUDA) return c->odev.index;
    for (int i = 0; i < c->nin; i++)
        if (c->in[i]->device.type == CT_CUDA) return c->in[i]->device.index;
    return 0;
}
#define CT__CU_OPNAME(c) (ct__opdef_get((c)->op)->name)

/* multiprocessors of a device (sizes the grids), read once */
static int ct__cu_sm_count[CTENSOR_CUDA_MAX_DEVICES];
static int ct__cu_sms(int dev) {
    if (dev < 0 || dev >= CTENSOR_CUDA_MAX_DEVICES) return 16;
    int n = CT__LOAD_ACQUIRE(&ct__cu_sm_count[dev]);
    if (n > 0) return n;
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || n <= 0) {
        (void)cudaGetLastError();
        n = 16;
    }
    CT__STORE_RELEASE(&ct__cu_sm_count[dev], n);
    return n;
}
/* blocks for n work items of `per_block` each: enough to fill the device, the
   kernels stride over the rest */
static unsigned ct__cu_blocks(int64_t n, int64_t per_block, int dev) {
    int64_t b = (n + per_block - 1) / per_block, cap = (int64_t)ct__cu_sms(dev) * 32;
    if (b > cap) b = cap;
    return (unsigned)(b < 1 ? 1 : b);
}

/* ============================================================================
   Streams and events
   A ct_cuda_stream is a cudaStream_t and its device; the default streams are
   handles of stream 0 kept here. The current stream of each device is per host
   thread (as PyTorch's): CT__CU_LAUNCH, the copies, the flag read-backs and
   cuBLAS all take ct__cu_cur_stream(), the current stream of the current device,
   which the op's device guard has made the op's device.
   ========================================================================== */
struct ct_cuda_stream { cudaStream_t s; int device; };
struct ct_cuda_event { cudaEvent_t e; int device, timing, recorded; };
static ct_cuda_stream ct__cu_default_streams[CTENSOR_CUDA_MAX_DEVICES];
static thread_local ct_cuda_stream *ct__cu_tls_stream[CTENSOR_CUDA_MAX_DEVICES];   /* NULL: the default stream */
static cudaStream_t ct__cu_stream_of(int dev) {
    ct_cuda_stream *st = dev >= 0 && dev < CTENSOR_CUDA_MAX_DEVICES ? ct__cu_tls_stream[dev] : NULL;
    return st ? st->s : (cudaStream_t)0;
}
static cudaStream_t ct__cu_cur_stream(void) {
    int d = 0;
    if (cudaGetDevice(&d) != cudaSuccess) {
        (void)cudaGetLastError();
        return (cudaStream_t)0;
    }
    return ct__cu_stream_of(d);
}
/* waits for the current stream of the current device (the op's): read-backs */
static int ct__cu_sync_cur(const char *op) {
    cudaError_t e = cudaStreamSynchronize(ct__cu_cur_stream());
    return e == cudaSuccess ? 0 : ct__cu_fail(op, e);
}

/* ============================================================================
   The caching allocator (PyTorch: c10/cuda/CUDACachingAllocator.cpp)
   Sizes round up to 512 bytes. Requests up to 1 MiB are served from the small
   pool, whose segments are 2 MiB; larger ones from the large pool, whose
   segments are 20 MiB for requests under 10 MiB and the request rounded up to
   2 MiB otherwise. A free block is found best-fit (smallest that fits, lowest
   address among equals); a larger one is split when the rest is worth keeping
   (512 bytes in the small pool, over 1 MiB in the large); a freed block merges
   with free neighbours of its segment. Segments go back to CUDA only in
   ct_cuda_empty_cache and when cudaMalloc fails (then the call is retried once).
   Blocks belong to the stream current when their segment was made, and are
   handed out again only on that stream: work on one stream runs in order, so a
   block freed by one op is safe for the next op on its stream without an event.
   A block that other streams used (ct_cuda_record_stream) is held back when
   freed: an event is recorded on each of those streams, and the block returns
   to its pool when they have all happened (checked at each allocation; waited
   for before the cache is released). One mutex guards everything.
   ========================================================================== */
#define CT__CU_ROUND ((size_t)512)
#define CT__CU_SMALL_SIZE ((size_t)1 << 20)
#define CT__CU_SMALL_SEGMENT ((size_t)2 << 20)
#define CT__CU_LARGE_SEGMENT ((size_t)20 << 20)
#define CT__CU_MIN_LARGE_ALLOC ((size_t)10 << 20)
#define CT__CU_ROUND_LARGE ((size_t)2 << 20)

typedef struct ct__cu_block {
    char *ptr;
    size_t size;                      /* bytes of the block (a multiple of 512) */
    size_t requested;                 /* what the caller asked for, when allocated */
    int device, pool, allocated;     /* allocated: handed out, or freed and waiting for its events */
    cudaStream_t stream;              /* the stream whose pool it belongs to */
    cudaStream_t *uses;               /* other streams recorded on it while handed out */
    int nuses, cap_uses;
    struct ct__cu_block *prev, *next; /* address neighbours in the same segment */
} ct__cu_block;
/* freed blocks waiting for events on the streams that used them */
typedef struct ct__cu_pending { ct__cu_block *b; cudaEvent_t *ev; int nev; } ct__cu_pending;
static ct__cu_pending *ct__cu_pend;
static int ct__cu_npend, ct__cu_cap_pend;
/* a pool's free blocks, sorted by (stream, size, address) */
typedef struct ct__cu_pool { ct__cu_block **v; int n, cap; } ct__cu_pool;
typedef struct ct__cu_devmem { ct__cu_pool pools[2]; ct_cuda_mem_stats st; } ct__cu_devmem;
static ct__cu_devmem ct__cu_mem[CTENSOR_CUDA_MAX_DEVICES];
/* allocated blocks by address (open addressing, linear probing) */
static ct__cu_block **ct__cu_live;
static size_t ct__cu_live_cap, ct__cu_live_n;
static std::mutex ct__cu_mutex;

static size_t ct__cu_round_size(size_t n) { return n < CT__CU_ROUND ? CT__CU_ROUND : (n + CT__CU_ROUND - 1) / CT__CU_ROUND * CT__CU_ROUND; }
static size_t ct__cu_segment_size(size_t n) {
    if (n <= CT__CU_SMALL_SIZE) return CT__CU_SMALL_SEGMENT;
    if (n < CT__CU_MIN_LARGE_ALLOC) return CT__CU_LARGE_SEGMENT;
    return (n + CT__CU_ROUND_LARGE - 1) / CT__CU_ROUND_LARGE * CT__CU_ROUND_LARGE;
}
/* (stream, size, address) order */
static int ct__cu_before(const ct__cu_block *a, cudaStream_t st, size_t size, const char *ptr) {
    if (a->stream != st) return (uintptr_t)a->stream < (uintptr_t)st;
    return a->size < size || (a->size == size && (uintptr_t)a->ptr < (uintptr_t)ptr);
}
static int ct__cu_pool_lower(const ct__cu_pool *p, cudaStream_t st, size_t size, const char *ptr) {
    int lo = 0, hi = p->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (ct__cu_before(p->v[mid], st, size, ptr)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
static int ct__cu_pool_insert(ct__cu_pool *p, ct__cu_block *b) {
    if (p->n == p->cap) {
        int nc = p->cap ? p->cap * 2 : 64;
        ct__cu_block **v = (ct__cu_block **)CT_REALLOC(p->v, sizeof(ct__cu_block *) * (size_t)nc);
        if (!v) return -1;
        p->v = v;
        p->cap = nc;
    }
    int k = ct__cu_pool_lower(p, b->stream, b->size, b->ptr);
    memmove(p->v + k + 1, p->v + k, sizeof(ct__cu_block *) * (size_t)(p->n - k));
    p->v[k] = b;
    p->n++;
    return 0;
}
static void ct__cu_pool_remove_at(ct__cu_pool *p, int k) {
    memmove(p->v + k, p->v + k + 1, sizeof(ct__cu_block *) * (size_t)(p->n - k - 1));
    p->n--;
}
static void ct__cu_pool_remove(ct__cu_pool *p, ct__cu_block *b) {
    int k = ct__cu_pool_lower(p, b->stream, b->size, b->ptr);
    CT_ASSERT(k < p->n && p->v[k] == b);
    ct__cu_pool_remove_at(p, k);
}

static size_t ct__cu_hash(const void *ptr) {
    uint64_t x = (uint64_t)(uintptr_t)ptr;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}
static int ct__cu_live_put(ct__cu_block *b) {
    if ((ct__cu_live_n + 1) * 2 > ct__cu_live_cap) {   /* keep it at most half full */
        size_t nc = ct__cu_live_cap ? ct__cu_live_cap * 2 : 1024;
        ct__cu_block **t = (ct__cu_block **)CT_MALLOC(nc * sizeof(ct__cu_block *));
        if (!t) return -1;
        memset(t, 0, nc * sizeof(ct__cu_block *));
        for (size_t i = 0; i < ct__cu_live_cap; i++) {
            ct__cu_block *x = ct__cu_live[i];
            if (!x) continue;
            size_t j = ct__cu_hash(x->ptr) & (nc - 1);
            while (t[j]) j = (j + 1) & (nc - 1);
            t[j] = x;
        }
        CT_FREE(ct__cu_live);
        ct__cu_live = t;
        ct__cu_live_cap = nc;
    }
    size_t mask = ct__cu_live_cap - 1, j = ct__cu_hash(b->ptr) & mask;
    while (ct__cu_live[j]) j = (j + 1) & mask;
    ct__cu_live[j] = b;
    ct__cu_live_n++;
    return 0;
}
/* the block at ptr, left in place (NULL when none) */
static ct__cu_block *ct__cu_live_find(const void *ptr) {
    if (!ct__cu_live_cap) return NULL;
    size_t mask = ct__cu_live_cap - 1, i = ct__cu_hash(ptr) & mask;
    while (ct__cu_live[i] && ct__cu_live[i]->ptr != ptr) i = (i + 1) & mask;
    return ct__cu_live[i];
}
/* removes and returns the block at ptr (NULL when none); backward-shift deletion
   keeps every probe chain unbroken without tombstones */
static ct__cu_block *ct__cu_live_take(const void *ptr) {
    if (!ct__cu_live_cap) return NULL;
    size_t mask = ct__cu_live_cap - 1, i = ct__cu_hash(ptr) & mask;
    while (ct__cu_live[i] && ct__cu_live[i]->ptr != ptr) i = (i + 1) & mask;
    ct__cu_block *b = ct__cu_live[i];
    if (!b) return NULL;
    for (size_t j = i;;) {
        j = (j + 1) & mask;
        if (!ct__cu_live[j]) break;
        size_t home = ct__cu_hash(ct__cu_live[j]->ptr) & mask;
        /* entry j may move to the hole at i unless its home lies cyclically in (i, j] */
        int stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) { ct__cu_live[i] = ct__cu_live[j]; i = j; }
    }
    ct__cu_live[i] = NULL;
    ct__cu_live_n--;
    return b;
}

/* PyTorch's format_size: "512 bytes", "3.50 KiB", "20.00 MiB", "1.25 GiB" */
static void ct__cu_fmt_size(char *buf, size_t cap, double bytes) {
    if (bytes < 1024.0) snprintf(buf, cap, "%.0f bytes", bytes);
    else if (bytes < 1048576.0) snprintf(buf, cap, "%.2f KiB", bytes / 1024.0);
    else if (bytes < 1073741824.0) snprintf(buf, cap, "%.2f MiB", bytes / 1048576.0);
    else snprintf(buf, cap, "%.2f GiB", bytes / 1073741824.0);
}

/* Under the mutex: a block no longer in use goes back to its pool, merged with
   free neighbours of its segment (all of one stream: a segment's blocks share it). */
static void ct__cu_free_block(ct__cu_block *b) {
    ct__cu_devmem *m = &ct__cu_mem[b->device];
    ct__cu_pool *p = &m->pools[b->pool];
    b->allocated = 0;
    CT_FREE(b->uses);
    b->uses = NULL;
    b->nuses = b->cap_uses = 0;
    ct__cu_block *nb = b->prev;
    if (nb && !nb->allocated) {   /* merge into the free block before */
        ct__cu_pool_remove(p, nb);
        nb->size += b->size;
        nb->next = b->next;
        if (b->next) b->next->prev = nb;
        CT_FREE(b);
        b = nb;
    }
    nb = b->next;
    if (nb && !nb->allocated) {   /* and absorb the free block after */
        ct__cu_pool_remove(p, nb);
        b->size += nb->size;
        b->next = nb->next;
        if (nb->next) nb->next->prev = b;
        CT_FREE(nb);
    }
    if (ct__cu_pool_insert(p, b)) {
        /* no host memory to list it: give the block back to CUDA when it is a whole segment */
        if (!b->prev && !b->next && cudaFree(b->ptr) == cudaSuccess) {
            m->st.reserved_bytes -= (int64_t)b->size;
            m->st.segments--;
            m->st.num_cuda_frees++;
            CT_FREE(b);
        }
    }
}
/* Under the mutex: b, freed while other streams used it, waits for an event on
   each. 0 when it waits; -1 when events could not be made (then every stream of
   the device is waited for and b is free now). */
static int ct__cu_hold_back(ct__cu_block *b) {
    int prev = -1, ok = 1;
    if (cudaGetDevice(&prev) != cudaSuccess || (prev != b->device && cudaSetDevice(b->device) != cudaSuccess)) ok = 0;
    cudaEvent_t *ev = ok ? (cudaEvent_t *)CT_MALLOC(sizeof(cudaEvent_t) * (size_t)b->nuses) : NULL;
    int nev = 0;
    if (ev) {
        for (; nev < b->nuses; nev++) {
            if (cudaEventCreateWithFlags(&ev[nev], cudaEventDisableTiming) != cudaSuccess) break;
            if (cudaEventRecord(ev[nev], b->uses[nev]) != cudaSuccess) { (void)cudaEventDestroy(ev[nev]); break; }
        }
    }
    if (ev && nev == b->nuses && (ct__cu_npend < ct__cu_cap_pend || !ct__grow((void **)&ct__cu_pend, &ct__cu_cap_pend, ct__cu_npend + 1, sizeof(ct__cu_pending)))) {
        ct__cu_pend[ct__cu_npend].b = b;
        ct__cu_pend[ct__cu_npend].ev = ev;
        ct__cu_pend[ct__cu_npend].nev = nev;
        ct__cu_npend++;
    } else {
        (void)cudaGetLastError();
        for (int i = 0; i < nev; i++) (void)cudaEventDestroy(ev[i]);
        CT_FREE(ev);
        (void)cudaDeviceSynchronize();   /* the safe way out: nothing is in flight any more */
        ok = 0;
    }
    if (prev >= 0 && prev != b->device) (void)cudaSetDevice(prev);
    return ok ? 0 : -1;
}
/* Under the mutex: held-back blocks of device dev whose events have all happened
   return to their pools; with wait, all of them, after waiting for the events. */
static void ct__cu_process_pending(int dev, int wait) {
    for (int i = 0; i < ct__cu_npend;) {
        ct__cu_pending *q = &ct__cu_pend[i];
        if (q->b->device != dev) { i++; continue; }
        int done = 1;
        for (int k = 0; k < q->nev && done; k++) {
            cudaError_t e = wait ? cudaEventSynchronize(q->ev[k]) : cudaEventQuery(q->ev[k]);
            if (e != cudaSuccess) {
                (void)cudaGetLastError();   /* not ready (or a fault, which the next waiting call reports) */
                done = wait;
            }
        }
        if (!done) { i++; continue; }
        for (int k = 0; k < q->nev; k++) (void)cudaEventDestroy(q->ev[k]);
        CT_FREE(q->ev);
        ct__cu_block *b = q->b;
        *q = ct__cu_pend[--ct__cu_npend];
        ct__cu_free_block(b);
    }
}
/* Returns the wholly free segments of device dev to CUDA (caller holds the mutex
   and has made dev current). cudaFree waits for the device. */
static void ct__cu_release_cached(int dev) {
    ct__cu_devmem *m = &ct__cu_mem[dev];
    ct__cu_process_pending(dev, 1);
    for (int pl = 0; pl < 2; pl++) {
        ct__cu_pool *p = &m->pools[pl];
        for (int k = p->n - 1; k >= 0; k--) {
            ct__cu_block *b = p->v[k];
            if (b->prev || b->next) continue;   /* part of a segment still in use */
            if (cudaFree(b->ptr) != cudaSuccess) { (void)cudaGetLastError(); continue; }
            m->st.reserved_bytes -= (int64_t)b->size;
            m->st.segments--;
            m->st.num_cuda_frees++;
            ct__cu_pool_remove_at(p, k);
            CT_FREE(b);
        }
    }
}

/* Under the mutex: an allocated block of `size` bytes (rounded) for a request of
   nbytes on device dev (current), or NULL with the error's code and message in
   *code and msg (set by the caller once the mutex is released: a logger that
   allocates must not find it held). */
static ct__cu_block *ct__cu_take(int dev, cudaStream_t stream, size_t size, size_t nbytes, ct_status *code, char *msg, size_t cap) {
    int pool = size <= CT__CU_SMALL_SIZE ? 0 : 1;
    ct__cu_devmem *m = &ct__cu_mem[dev];
    ct__cu_pool *p = &m->pools[pool];
    ct__cu_block *b = NULL;
    if (ct__cu_npend) ct__cu_process_pending(dev, 0);
    int k = ct__cu_pool_lower(p, stream, size, NULL);
    *code = CT_ERR_MEMORY;
    if (k < p->n && p->v[k]->stream == stream) {   /* the smallest cached block of this stream that fits: no cudaMalloc */
        b = p->v[k];
        ct__cu_pool_remove_at(p, k);
    } else {
        size_t seg = ct__cu_segment_size(size);
        void *ptr = NULL;
        cudaError_t e = seg < size ? cudaErrorMemoryAllocation : cudaMalloc(&ptr, seg);
        if (e == cudaErrorMemoryAllocation) {   /* free the cache, try once more */
            (void)cudaGetLastError();
            ct__cu_release_cached(dev);
            m->st.num_alloc_retries++;
            e = seg < size ? cudaErrorMemoryAllocation : cudaMalloc(&ptr, seg);
        }
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            if (e != cudaErrorMemoryAllocation) {
                *code = CT_ERR_DEVICE;
                snprintf(msg, cap, "CUDA error: %s (allocating %zu bytes on cuda:%d)", cudaGetErrorString(e), nbytes, dev);
                return NULL;
            }
            size_t free_b = 0, total_b = 0;
            if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) (void)cudaGetLastError();
            char s_req[32], s_tot[32], s_alloc[32], s_free[32], s_res[32];
            ct__cu_fmt_size(s_req, sizeof s_req, (double)seg);   /* PyTorch reports the cudaMalloc it tried */
            ct__cu_fmt_size(s_tot, sizeof s_tot, (double)total_b);
            ct__cu_fmt_size(s_alloc, sizeof s_alloc, (double)m->st.allocated_bytes);
            ct__cu_fmt_size(s_free, sizeof s_free, (double)free_b);
            ct__cu_fmt_size(s_res, sizeof s_res, (double)m->st.reserved_bytes);
            m->st.num_ooms++;
            snprintf(msg, cap, "CUDA out of memory. Tried to allocate %s (GPU %d; %s total capacity; %s already allocated; %s free; %s reserved in total by ctensor)",
                     s_req, dev, s_tot, s_alloc, s_free, s_res);
            return NULL;
        }
        b = (ct__cu_block *)CT_MALLOC(sizeof(ct__cu_block));
        if (!b) {
            (void)cudaFree(ptr);
            snprintf(msg, cap, "out of memory (host memory for the CUDA allocator's bookkeeping)");
            return NULL;
        }
        memset(b, 0, sizeof *b);
        b->ptr = (char *)ptr;
        b->size = seg;
        b->device = dev;
        b->pool = pool;
        b->stream = stream;
        m->st.reserved_bytes += (int64_t)seg;
        if (m->st.reserved_bytes > m->st.peak_reserved_bytes) m->st.peak_reserved_bytes = m->st.reserved_bytes;
        m->st.segments++;
        m->st.num_cuda_mallocs++;
    }
    size_t rest = b->size - size;
    if (pool == 0 ? rest >= CT__CU_ROUND : rest > CT__CU_SMALL_SIZE) {   /* split: the rest stays cached */
        ct__cu_block *r = (ct__cu_block *)CT_MALLOC(sizeof(ct__cu_block));
        if (r) {
            memset(r, 0, sizeof *r);
            r->ptr = b->ptr + size;
            r->size = rest;
            r->device = dev;
            r->pool = pool;
            r->stream = b->stream;
            r->prev = b;
            r->next = b->next;
            if (b->next) b->next->prev = r;
            b->next = r;
            b->size = size;
            if (ct__cu_pool_insert(p, r)) {   /* no room to list it: undo the split */
                b->next = r->next;
                if (r->next) r->next->prev = b;
                b->size += rest;
                CT_FREE(r);
            }
        }
    }
    if (ct__cu_live_put(b)) {
        (void)ct__cu_pool_insert(p, b);
        snprintf(msg, cap, "out of memory (host memory for the CUDA allocator's bookkeeping)");
        return NULL;
    }
    b->allocated = 1;
    b->requested = nbytes;
    m->st.allocated_bytes += (int64_t)b->size;
    m->st.requested_bytes += (int64_t)nbytes;
    if (m->st.allocated_bytes > m->st.peak_allocated_bytes) m->st.peak_allocated_bytes = m->st.allocated_bytes;
    m->st.active_blocks++;
    m->st.num_allocs++;
    return b;
}
/* the allocator ct_set_allocator(CT_CUDA) gets */
static void *ct__cu_alloc(size_t nbytes, ct_device d, void *user) {
    (void)user;
    int dev = d.index;
    char what[48], msg[400];
    if (dev < 0 || dev >= CTENSOR_CUDA_MAX_DEVICES) {
        ct_set_error(CT_ERR_DEVICE, "CUDA error: invalid device ordinal (cuda:%d; this build keeps state for %d devices, CTENSOR_CUDA_MAX_DEVICES)",
                     dev, CTENSOR_CUDA_MAX_DEVICES);
        return NULL;
    }
    snprintf(what, sizeof what, "allocating on cuda:%d", dev);
    ct__cu_guard guard(dev, what);
    if (!guard.ok) return NULL;
    ct_status code = CT_OK;
    ct__cu_block *b;
    {
        std::lock_guard<std::mutex> lock(ct__cu_mutex);
        b = ct__cu_take(dev, ct__cu_stream_of(dev), ct__cu_round_size(nbytes), nbytes, &code, msg, sizeof msg);
    }
    if (!b) {
        ct_set_error(code, "%s", msg);
        return NULL;
    }
    return b->ptr;
}

static void ct__cu_free(void *ptr, ct_device d, void *user) {
    (void)d;
    (void)user;
    std::lock_guard<std::mutex> lock(ct__cu_mutex);
    ct__cu_block *b = ct__cu_live_take(ptr);
    CT_ASSERT(b != NULL);   /* storages free only what this allocator gave them */
    if (!b) return;
    ct__cu_devmem *m = &ct__cu_mem[b->device];
    m->st.allocated_bytes -= (int64_t)b->size;
    m->st.requested_bytes -= (int64_t)b->requested;
    m->st.active_blocks--;
    m->st.num_frees++;
    b->requested = 0;
    if (b->nuses && ct__cu_hold_back(b) == 0) return;   /* back in its pool when the other streams are past it */
    ct__cu_free_block(b);
}

/* ============================================================================
   Device arithmetic: dtypes, half precision, the core's expression helpers
   Everything a kernel computes comes from here. The elementwise expressions
   are ctensor.h's own tables (CT__UNARY_LOOPS, CT__BINARY_LOOPS, ...), the
   same text the CPU loops are made from; they are expanded inside the namespace
   ct__cu_dev, whose device functions carry the names of the CPU helpers the
   expressions call (ct__clampf, ct__floordiv, ...), so the names resolve to
   these. A helper missing here is a compile error (a host function called from
   device code), never a silent difference. Values follow the CPU path's rules:
   integers compute in int64 with wrap-around, float16/bfloat16 in float, and a
   conversion between dtypes is the CPU cast table's (ct__f2i64's defined
   out-of-range results, round-to-nearest-even halves, NaN stays NaN).
   ========================================================================== */
namespace ct__cu_dev {

/* ---- half precision: the same bits as ct__h2f / ct__f2h / ct__bf2f / ct__f2bf ---- */
__device__ __forceinline__ float ct__h2f(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, ex = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    if (ex == 0x1fu) return __uint_as_float(sign | 0x7f800000u | (man << 13));
    if (ex == 0) {
        if (man == 0) return __uint_as_float(sign);
        float f = (float)man * 5.9604644775390625e-8f;   /* 2^-24 */
        return sign ? -f : f;
    }
    return __uint_as_float(sign | ((ex + 112u) << 23) | (man << 13));
}
__device__ __forceinline__ uint16_t ct__f2h(float f) {
    uint32_t x = __float_as_uint(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0u));
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
    if (ax < 0x38800000u) {   /* a subnormal half or zero: the float add rounds to nearest even */
        float v = __fadd_rn(__uint_as_float(ax), 0.5f);
        return (uint16_t)(sign | (__float_as_uint(v) - 0x3f000000u));
    }
    uint32_t odd = (ax >> 13) & 1u;
    ax += 0xc8000fffu + odd;
    return (uint16_t)(sign | (ax >> 13));
}
__device__ __forceinline__ float ct__bf2f(uint16_t b) { return __uint_as_float((uint32_t)b << 16); }
__device__ __forceinline__ uint16_t ct__f2bf(float f) {
    uint32_t u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}
/* ct__f2i64: NaN and out-of-range give INT64_MIN (defined, as the CPU path) */
__device__ __forceinline__ int64_t ct__f2i64(double v) {
    if (v != v || v >= 9.2233720368547758e18 || v < -9.2233720368547758e18) return INT64_MIN;
    return (int64_t)v;
}

/* ---- values of one compute type C (float, double or int64_t) from and to any dtype ---- */
template <class C> struct cv;
template <> struct cv<float> {
    static __device__ __forceinline__ float f(double v) { return (float)v; }
    static __device__ __forceinline__ float i(int64_t v) { return (float)v; }
};
template <> struct cv<double> {
    static __device__ __forceinline__ double f(double v) { return v; }
    static __device__ __forceinline__ double i(int64_t v) { return (double)v; }
};
template <> struct cv<int64_t> {
    static __device__ __forceinline__ int64_t f(double v) { return ct__f2i64(v); }
    static __device__ __forceinline__ int64_t i(int64_t v) { return v; }
};
__device__ __forceinline__ int64_t toi(float v) { return ct__f2i64((double)v); }
__device__ __forceinline__ int64_t toi(double v) { return ct__f2i64(v); }
__device__ __forceinline__ int64_t toi(int64_t v) { return v; }

/* element at p of dtype dt, as C */
template <class C> __device__ __forceinline__ C ld(const char *p, int dt) {
    switch (dt) {
    case CT_FLOAT32: return cv<C>::f(*(const float *)p);
    case CT_FLOAT64: return cv<C>::f(*(const double *)p);
    case CT_FLOAT16: return cv<C>::f(ct__h2f(*(const uint16_t *)p));
    case CT_BFLOAT16: return cv<C>::f(ct__bf2f(*(const uint16_t *)p));
    case CT_INT64: return cv<C>::i(*(const int64_t *)p);
    case CT_INT32: return cv<C>::i(*(const int32_t *)p);
    case CT_INT16: return cv<C>::i(*(const int16_t *)p);
    case CT_INT8: return cv<C>::i(*(const int8_t *)p);
    case CT_UINT8: return cv<C>::i(*(const uint8_t *)p);
    default: return cv<C>::i(*(const uint8_t *)p != 0);   /* bool */
    }
}
/* v written as dtype dt at p (the CPU cast table's conversion) */
template <class C> __device__ __forceinline__ void st(char *p, int dt, C v) {
    switch (dt) {
    case CT_FLOAT32: *(float *)p = (float)v; break;
    case CT_FLOAT64: *(double *)p = (double)v; break;
    case CT_FLOAT16: *(uint16_t *)p = ct__f2h((float)v); break;
    case CT_BFLOAT16: *(uint16_t *)p = ct__f2bf((float)v); break;
    case CT_INT64: *(int64_t *)p = toi(v); break;
    case CT_INT32: *(int32_t *)p = (int32_t)toi(v); break;
    case CT_INT16: *(int16_t *)p = (int16_t)toi(v); break;
    case CT_INT8: *(int8_t *)p = (int8_t)toi(v); break;
    case CT_UINT8: *(uint8_t *)p = (uint8_t)toi(v); break;
    default: *(uint8_t *)p = v != 0; break;
    }
}
/* v as it reads back after a store as dtype dt (the CPU path converts inputs to
   the compute dtype first: an int64 scalar added to an int32 tensor wraps to 32 bits) */
template <class C> __device__ __forceinline__ C round_to(C v, int dt) {
    switch (dt) {
    case CT_FLOAT32: return cv<C>::f((float)v);
    case CT_FLOAT64: return cv<C>::f((double)v);
    case CT_FLOAT16: return cv<C>::f(ct__h2f(ct__f2h((float)v)));
    case CT_BFLOAT16: return cv<C>::f(ct__bf2f(ct__f2bf((float)v)));
    case CT_INT64: return cv<C>::i(toi(v));
    case CT_INT32: return cv<C>::i((int32_t)toi(v));
    case CT_INT16: return cv<C>::i((int16_t)toi(v));
    case CT_INT8: return cv<C>::i((int8_t)toi(v));
    case CT_UINT8: return cv<C>::i((uint8_t)toi(v));
    default: return cv<C>::i(v != 0);
    }
}

/* ---- the helpers ctensor.h's expressions call, by the same names ---- */
__device__ int ct__kerr_tls;   /* CT__KERR's target: 1 integer division by zero (one per device) */
__device__ __forceinline__ int64_t ct__iabs(int64_t x) { return x < 0 ? CT__ISUB(0, x) : x; }
__device__ __forceinline__ float ct__expf(float x) { return expf(x); }
__device__ __forceinline__ float ct__tanhf(float x) { return tanhf(x); }
__device__ __forceinline__ float ct__sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }
__device__ __forceinline__ double ct__sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
__device__ __forceinline__ float ct__erff(float x) { return erff(x); }
__device__ __forceinline__ float ct__erfcf(float x) { return erfcf(x); }
/* exact gelu through erfc: no cancellation for x < 0 */
__device__ __forceinline__ float ct__geluf(float x, int tanh_mode) {
    if (tanh_mode) return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
    return 0.5f * x * erfcf(-x * 0.7071067811865476f);
}
__device__ __forceinline__ double ct__gelu(double x, int tanh_mode) {
    if (tanh_mode) return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    return 0.5 * x * (1.0 + erf(x * 0.7071067811865476));
}
__device__ __forceinline__ float ct__softplusf(float x, float beta, float th) { return x * beta > th ? x : log1pf(expf(x * beta)) / beta; }
__device__ __forceinline__ double ct__softplus(double x, double beta, double th) { return x * beta > th ? x : log1p(exp(x * beta)) / beta; }
__device__ __forceinline__ float ct__clampf(float x, float lo, float hi) { float r = x < lo ? lo : x; return r > hi ? hi : r; }
__device__ __forceinline__ double ct__clampd(double x, double lo, double hi) { double r = x < lo ? lo : x; return r > hi ? hi : r; }
__device__ __forceinline__ int64_t ct__clampi(int64_t x, int64_t lo, int64_t hi) { int64_t r = x < lo ? lo : x; return r > hi ? hi : r; }
__device__ __forceinline__ int64_t ct__d2i_sat(double v) { return v >= 9.2e18 ? INT64_MAX : v <= -9.2e18 ? INT64_MIN : (int64_t)v; }
__device__ __forceinline__ float ct__powf_s(float x, double e) {
    if (e == 2.0) return x * x;
    if (e == 0.5) return sqrtf(x);
    if (e == 1.0) return x;
    if (e == 3.0) return x * x * x;
    if (e == -1.0) return 1.0f / x;
    if (e == -2.0) return 1.0f / (x * x);
    if (e == -0.5) return 1.0f / sqrtf(x);
    return powf(x, (float)e);
}
__device__ __forceinline__ double ct__pow_s(double x, double e) {
    if (e == 2.0) return x * x;
    if (e == 0.5) return sqrt(x);
    if (e == 1.0) return x;
    if (e == 3.0) return x * x * x;
    if (e == -1.0) return 1.0 / x;
    return pow(x, e);
}
__device__ __forceinline__ int64_t ct__ipow(int64_t b, int64_t e) {
    uint64_t r = 1, base = (uint64_t)b;
    if (e < 0) return 0;
    while (e) {
        if (e & 1) r *= base;
        base *= base;
        e >>= 1;
    }
    return (int64_t)r;
}
__device__ __forceinline__ double ct__round_dec(double x, int64_t d) {
    if (d >= 0) { double m = pow(10.0, (double)d); return nearbyint(x * m) / m; }
    double m = pow(10.0, -(double)d);
    return nearbyint(x / m) * m;
}
__device__ __forceinline__ float ct__round_decf(float x, int64_t d) {
    if (d >= 0) { float m = (float)pow(10.0, (double)d); return nearbyintf(x * m) / m; }
    float m = (float)pow(10.0, -(double)d);
    return nearbyintf(x / m) * m;
}
__device__ __forceinline__ float ct__nan2numf(float x, double nanv, double pinf, double ninf) {
    return x != x ? (float)nanv : (x == INFINITY ? (float)pinf : (x == -INFINITY ? (float)ninf : x));
}
__device__ __forceinline__ double ct__nan2num(double x, double nanv, double pinf, double ninf) {
    return x != x ? nanv : (x == INFINITY ? pinf : (x == -INFINITY ? ninf : x));
}
__device__ __forceinline__ float ct__floordivf(float a, float b) {
    if (b == 0.0f) return a / b;
    float mod = fmodf(a, b), div = (a - mod) / b;
    if (mod != 0.0f && ((b < 0.0f) != (mod < 0.0f))) div -= 1.0f;
    float fl;
    if (div != 0.0f) { fl = floorf(div); if (div - fl > 0.5f) fl += 1.0f; }
    else fl = copysignf(0.0f, a / b);
    return fl;
}
__device__ __forceinline__ double ct__floordiv(double a, double b) {
    if (b == 0.0) return a / b;
    double mod = fmod(a, b), div = (a - mod) / b;
    if (mod != 0.0 && ((b < 0.0) != (mod < 0.0))) div -= 1.0;
    double fl;
    if (div != 0.0) { fl = floor(div); if (div - fl > 0.5) fl += 1.0; }
    else fl = copysign(0.0, a / b);
    return fl;
}
__device__ __forceinline__ float ct__remf(float a, float b) { float m = fmodf(a, b); if (m != 0.0f && ((b < 0.0f) != (m < 0.0f))) m += b; return m; }
__device__ __forceinline__ double ct__rem(double a, double b) { double m = fmod(a, b); if (m != 0.0 && ((b < 0.0) != (m < 0.0))) m += b; return m; }
__device__ __forceinline__ int64_t ct__idiv_trunc(int64_t x, int64_t y, int *err) {
    if (y == 0) { *err = 1; return 0; }
    if (y == -1) return CT__ISUB(0, x);
    return x / y;
}
__device__ __forceinline__ int64_t ct__idiv_floor(int64_t x, int64_t y, int *err) {
    if (y == 0) { *err = 1; return 0; }
    if (y == -1) return CT__ISUB(0, x);
    int64_t q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) q--;
    return q;
}
__device__ __forceinline__ int64_t ct__irem(int64_t x, int64_t y, int *err) {
    if (y == 0) { *err = 1; return 0; }
    if (y == -1) return 0;
    int64_t r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
}
__device__ __forceinline__ int64_t ct__ifmod(int64_t x, int64_t y, int *err) {
    if (y == 0) { *err = 1; return 0; }
    if (y == -1) return 0;
    return x % y;
}
__device__ __forceinline__ int64_t ct__ipow_t(int64_t x, int64_t y, int *err) {
    (void)err;
    if (y < 0) {
        if (x == 1) return 1;
        if (x == -1) return (y & 1) ? -1 : 1;
        return 0;
    }
    return ct__ipow(x, y);
}
__device__ __forceinline__ float ct__maxf(float x, float y) { return x != x ? x : (y != y ? y : (x > y ? x : y)); }
__device__ __forceinline__ float ct__minf(float x, float y) { return x != x ? x : (y != y ? y : (x < y ? x : y)); }
__device__ __forceinline__ double ct__maxd(double x, double y) { return x != x ? x : (y != y ? y : (x > y ? x : y)); }
__device__ __forceinline__ double ct__mind(double x, double y) { return x != x ? x : (y != y ? y : (x < y ? x : y)); }
__device__ __forceinline__ float ct__xlogyf(float x, float y) { return y != y ? y : (x == 0.0f ? 0.0f : x * logf(y)); }
__device__ __forceinline__ double ct__xlogy(double x, double y) { return y != y ? y : (x == 0.0 ? 0.0 : x * log(y)); }
__device__ __forceinline__ int64_t ct__ishl(int64_t x, int64_t y) { return (y < 0 || y >= 64) ? 0 : CT__IW((uint64_t)x << y); }
__device__ __forceinline__ int64_t ct__ishr(int64_t x, int64_t y) { return (y < 0 || y >= 64) ? (x < 0 ? -1 : 0) : (x >> y); }
__device__ __forceinline__ float ct__lerpf(float s, float e, float w) { return fabsf(w) < 0.5f ? s + w * (e - s) : e - (e - s) * (1.0f - w); }
__device__ __forceinline__ double ct__lerp(double s, double e, double w) { return fabs(w) < 0.5 ? s + w * (e - s) : e - (e - s) * (1.0 - w); }
__device__ __forceinline__ float ct__clamptf(float x, float lo, float hi) { return x != x ? x : fminf(fmaxf(x, lo), hi); }
__device__ __forceinline__ double ct__clamptd(double x, double lo, double hi) { return x != x ? x : fmin(fmax(x, lo), hi); }

/* ---- the ops: one functor per table row. ap() computes one element in the
   compute type (float for float32/16/bf16, double, int64 for integers and bool);
   nin inputs; ints: the row has an integer (or bool) expression. ---- */
struct args { double a0, a1, a2, a3; int64_t i0; int32_t mo; };
#define CT__CU_ARGS                                                                              \
    const double a0 = A.a0, a1 = A.a1, a2 = A.a2, a3 = A.a3;                                     \
    const int64_t i0 = A.i0;                                                                     \
    const int32_t mo = A.mo;                                                                     \
    (void)a0; (void)a1; (void)a2; (void)a3; (void)i0; (void)mo;
#define CT__CU_YN_Y 1
#define CT__CU_YN_N 0
#define CT__CU_FUNCTOR(NAME, NIN, INTS, FX, DX, IX)                                                              \
    struct NAME {                                                                                                \
        enum { nin = NIN, ints = INTS };                                                                         \
        static __device__ __forceinline__ float ap(float x, float y, float z, const args &A) {                   \
            CT__CU_ARGS (void)x; (void)y; (void)z; return (float)(FX);                                           \
        }                                                                                                        \
        static __device__ __forceinline__ double ap(double x, double y, double z, const args &A) {               \
            CT__CU_ARGS (void)x; (void)y; (void)z; return (double)(DX);                                          \
        }                                                                                                        \
        static __device__ __forceinline__ int64_t ap(int64_t x, int64_t y, int64_t z, const args &A) {           \
            CT__CU_ARGS (void)x; (void)y; (void)z; return (int64_t)(IX);                                         \
        }                                                                                                        \
    };
#define CT__CU_U(E, I, B, FX, DX, IX) CT__CU_FUNCTOR(u_##E, 1, CT__CU_YN_##I || CT__CU_YN_##B, FX, DX, IX)
#define CT__CU_UB(E, FX, DX, IX) CT__CU_FUNCTOR(ub_##E, 1, 1, (FX) ? 1 : 0, (DX) ? 1 : 0, (IX) ? 1 : 0)
#define CT__CU_B(E, I, Bo, FX, DX, IX) CT__CU_FUNCTOR(b_##E, 2, CT__CU_YN_##I || CT__CU_YN_##Bo, FX, DX, IX)
#define CT__CU_BB(E, X) CT__CU_FUNCTOR(bb_##E, 2, 1, (X) ? 1 : 0, (X) ? 1 : 0, (X) ? 1 : 0)
#define CT__CU_T(E, I, Bo, FX, DX, IX) CT__CU_FUNCTOR(t_##E, 3, CT__CU_YN_##I || CT__CU_YN_##Bo, FX, DX, IX)
CT__UNARY_LOOPS(CT__CU_U)
CT__UNARY_BOOL_LOOPS(CT__CU_UB)
CT__BINARY_LOOPS(CT__CU_B)
CT__BINARY_BOOL_LOOPS(CT__CU_BB)
CT__TERNARY_LOOPS(CT__CU_T)
/* where(cond, x, y) and masked_fill(x, mask, value): selects, every dtype */
CT__CU_FUNCTOR(t_WHERE, 3, 1, x != 0 ? y : z, x != 0 ? y : z, x != 0 ? y : z)
CT__CU_FUNCTOR(t_MASKED_FILL, 3, 1, y != 0 ? z : x, y != 0 ? z : x, y != 0 ? z : x)
/* a copy: the value as it is (converted by the store) */
CT__CU_FUNCTOR(copy, 1, 1, x, x, x)

} /* namespace ct__cu_dev */

/* ============================================================================
   Elementwise kernels
   One family for every elementwise op, driven by the CPU path's iterator
   (ct__iter: operands broadcast to the output's shape, size-1 dims dropped,
   dims coalesced, byte strides, innermost first):
     ct__cu_ew_kernel   any dtypes and strides: each thread finds its element's
                        offsets from the iterator's shape, loads every input in
                        its dtype, rounds it to the compute dtype as the CPU path
                        converts it, computes, rounds to the result dtype, stores
     ct__cu_ew_fast     the common case: float32/float16/bfloat16 operands of the
                        compute dtype, contiguous and aligned: 4 elements a
                        thread through one vector load or store per operand
   CPU 0-d tensors (scalars: ct_mul_scalar's wrapped numbers) travel in the
   kernel's parameters, converted on the host as the CPU path converts them.
   ========================================================================== */
#define CT__CU_MAXOP 4   /* the output and up to 3 inputs */
typedef struct ct__cu_ewp {
    int32_t ndim, nop;
    int64_t numel;
    int64_t shape[CT_MAX_DIMS];              /* innermost first */
    int64_t st[CT_MAX_DIMS][CT__CU_MAXOP];   /* byte strides [dim][operand] */
    char *base[CT__CU_MAXOP];
    int32_t dt[CT__CU_MAXOP];                /* operand dtypes (0: the output) */
    int32_t cdt, rdt;                        /* compute dtype; the dtype the result is rounded to */
    uint32_t host;                           /* bit k: operand k is a CPU scalar, its value in sd[k] / si[k] */
    double sd[CT__CU_MAXOP];                 /* (already in the compute dtype: sd when it is a float dtype) */
    int64_t si[CT__CU_MAXOP];
    ct__cu_dev::args a;
} ct__cu_ewp;

__device__ __forceinline__ void ct__cu_offsets(const ct__cu_ewp &p, int64_t i, int64_t *off) {
    if (p.ndim == 1) {
        for (int k = 0; k < CT__CU_MAXOP; k++) off[k] = i * p.st[0][k];
        return;
    }
    for (int k = 0; k < CT__CU_MAXOP; k++) off[k] = 0;
    for (int d = 0; d < p.ndim; d++) {
        int64_t q = i % p.shape[d];
        i /= p.shape[d];
        for (int k = 0; k < CT__CU_MAXOP; k++) off[k] += q * p.st[d][k];
    }
}
template <class C> __device__ __forceinline__ C ct__cu_scalar(const ct__cu_ewp &p, int k) {
    return p.cdt <= CT_BFLOAT16 ? ct__cu_dev::cv<C>::f(p.sd[k]) : ct__cu_dev::cv<C>::i(p.si[k]);
}

template <class F, class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_ew_kernel(const ct__cu_ewp p) {
    using namespace ct__cu_dev;
    C sv[3] = {C(0), C(0), C(0)};
    for (int k = 0; k < F::nin; k++)
        if ((p.host >> (k + 1)) & 1u) sv[k] = ct__cu_scalar<C>(p, k + 1);
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.numel; i += step) {
        int64_t off[CT__CU_MAXOP];
        ct__cu_offsets(p, i, off);
        C v[3] = {C(0), C(0), C(0)};
        for (int k = 0; k < F::nin; k++) {
            if ((p.host >> (k + 1)) & 1u) {
                v[k] = sv[k];
            } else {
                v[k] = ld<C>(p.base[k + 1] + off[k + 1], p.dt[k + 1]);
                if (p.dt[k + 1] != p.cdt) v[k] = round_to<C>(v[k], p.cdt);
            }
        }
        C r = F::ap(v[0], v[1], v[2], p.a);
        st<C>(p.base[0] + off[0], p.dt[0], p.dt[0] == p.rdt ? r : round_to<C>(r, p.rdt));
    }
}

/* storage of the fast kernel's dtypes, computed in float */
struct ct__cu_s_f32 {
    typedef float T;
    static __device__ __forceinline__ float in(float v) { return v; }
    static __device__ __forceinline__ float out(float v) { return v; }
};
struct ct__cu_s_f16 {
    typedef uint16_t T;
    static __device__ __forceinline__ float in(uint16_t v) { return ct__cu_dev::ct__h2f(v); }
    static __device__ __forceinline__ uint16_t out(float v) { return ct__cu_dev::ct__f2h(v); }
};
struct ct__cu_s_bf16 {
    typedef uint16_t T;
    static __device__ __forceinline__ float in(uint16_t v) { return ct__cu_dev::ct__bf2f(v); }
    static __device__ __forceinline__ uint16_t out(float v) { return ct__cu_dev::ct__f2bf(v); }
};
template <class T> struct alignas(4 * sizeof(T)) ct__cu_vec4 { T v[4]; };

template <class F, class S>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_ew_fast(const ct__cu_ewp p) {
    typedef typename S::T T;
    typedef ct__cu_vec4<T> V;
    float sv[3] = {0.0f, 0.0f, 0.0f};
    for (int k = 0; k < F::nin; k++)
        if ((p.host >> (k + 1)) & 1u) sv[k] = (float)p.sd[k + 1];
    T *out = (T *)p.base[0];
    const int64_t n = p.numel, step = (int64_t)gridDim.x * blockDim.x * 4;
    for (int64_t q = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * 4; q < n; q += step) {
        if (q + 4 <= n) {
            float v[3][4];
            for (int k = 0; k < 3; k++) {
                if (k >= F::nin || ((p.host >> (k + 1)) & 1u)) {
                    for (int j = 0; j < 4; j++) v[k][j] = sv[k];
                } else {
                    V w = *(const V *)((const T *)p.base[k + 1] + q);
                    for (int j = 0; j < 4; j++) v[k][j] = S::in(w.v[j]);
                }
            }
            V r;
            for (int j = 0; j < 4; j++) r.v[j] = S::out(F::ap(v[0][j], v[1][j], v[2][j], p.a));
            *(V *)(out + q) = r;
        } else {
            for (int64_t e = q; e < n; e++) {
                float v[3];
                for (int k = 0; k < 3; k++)
                    v[k] = k >= F::nin || ((p.host >> (k + 1)) & 1u) ? sv[k] : S::in(((const T *)p.base[k + 1])[e]);
                out[e] = S::out(F::ap(v[0], v[1], v[2], p.a));
            }
        }
    }
}

/* A CPU 0-d tensor's value converted to the compute dtype cdt, as the CPU path's
   cast would (ct__cast_tab), into sd (a float cdt) or si. */
static void ct__cu_host_scalar(const ct_tensor *x, ct_dtype cdt, double *sd, int64_t *si) {
    const void *p = ct__ptr(x);
    unsigned char tmp[8];
    *sd = 0.0;
    *si = 0;
    if (CT__ISFLOAT(cdt)) {
        if (CT__ISFLOAT(x->dtype)) {
            ct__store_f64(tmp, cdt, ct__load_f64(p, x->dtype));   /* f64 -> f16 goes through float, as the CPU cast */
            *sd = ct__load_f64(tmp, cdt);
        } else {
            int64_t w = ct__load_i64(p, x->dtype);
            float f = (float)w;   /* integers convert to float directly (no double rounding) */
            switch (cdt) {
            case CT_FLOAT64: *sd = (double)w; break;
            case CT_FLOAT16: *sd = ct__h2f(ct__f2h(f)); break;
            case CT_BFLOAT16: *sd = ct__bf2f(ct__f2bf(f)); break;
            default: *sd = f; break;
            }
        }
    } else if (cdt == CT_BOOL) {
        *si = CT__ISFLOAT(x->dtype) ? ct__load_f64(p, x->dtype) != 0.0 : ct__load_i64(p, x->dtype) != 0;
    } else {
        int64_t w = CT__ISFLOAT(x->dtype) ? ct__f2i64(ct__load_f64(p, x->dtype)) : ct__load_i64(p, x->dtype);
        ct__store_i64(tmp, cdt, w);
        *si = ct__load_i64(tmp, cdt);
    }
}
/* an integer expression that reports an error through CT__KERR (division by zero) */
static int ct__cu_raises(const char *int_expr) { return strstr(int_expr, "CT__KERR") != NULL; }
static int ct__cu_kerr_reset(const char *op) {
    int zero = 0;
    cudaError_t e = cudaMemcpyToSymbolAsync(ct__cu_dev::ct__kerr_tls, &zero, sizeof zero, 0, cudaMemcpyHostToDevice, ct__cu_cur_stream());
    return e == cudaSuccess ? 0 : ct__cu_fail(op, e);
}
static int ct__cu_kerr_check(const char *op) {
    int flag = 0;
    cudaStream_t st = ct__cu_cur_stream();
    cudaError_t e = cudaMemcpyFromSymbolAsync(&flag, ct__cu_dev::ct__kerr_tls, sizeof flag, 0, cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);   /* waits for the kernel */
    if (e != cudaSuccess) return ct__cu_fail(op, e);
    return flag ? ct__failed(CT_ERR_ARG, "%s: ZeroDivisionError", op) : 0;
}

/* PyTorch's words for an operand a kernel cannot reach */
static CT__NOINLINE int ct__cu_mismatch(const char *op, ct_device a, ct_device b) {
    char x[24], y[24];
    return ct__failed(CT_ERR_DEVICE, "%s: Expected all tensors to be on the same device, but found at least two devices, %s and %s!", op,
                      ct_device_str(a, x, sizeof x), ct_device_str(b, y, sizeof y));
}
/* Kernels are made only for the functors that have them: the integer kernel for
   ops with an integer expression, the vector kernel for ops whose result has the
   compute dtype (C++11 specializations; no C++17 needed from the host compiler). */
template <class F, bool INTS> struct ct__cu_int_launch {
    static void run(unsigned blocks, const ct__cu_ewp &p) { CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_ew_kernel<F, int64_t>); }
};
template <class F> struct ct__cu_int_launch<F, false> {
    static void run(unsigned, const ct__cu_ewp &) {}
};
template <class F, bool FAST> struct ct__cu_fast_launch {
    static void run(unsigned blocks, const ct__cu_ewp &p, ct_dtype cdt) {
        if (cdt == CT_FLOAT32) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_ew_fast<F, ct__cu_s_f32>);
        else if (cdt == CT_FLOAT16) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_ew_fast<F, ct__cu_s_f16>);
        else CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_ew_fast<F, ct__cu_s_bf16>);
    }
};
template <class F> struct ct__cu_fast_launch<F, false> {
    static void run(unsigned, const ct__cu_ewp &, ct_dtype) {}
};
/* Runs functor F over out = F(in...) on device dev: nin inputs, compute dtype cdt,
   result rounded to rdt (cdt, or bool for comparisons). FAST: F may take the
   vector kernel (its result is of the compute dtype). raises: check CT__KERR. */
template <class F, bool FAST>
static int ct__cu_ew(const char *op, int dev, ct_tensor *out, int nin, ct_tensor *const *in, ct_dtype cdt, ct_dtype rdt,
                     const ct__attrs *a, int raises) {
    if (ct__shape_numel(out->ndim, out->shape) == 0) return 0;
    ct_tensor *ops[CT__CU_MAXOP];
    ops[0] = out;
    for (int i = 0; i < nin; i++) {
        ops[1 + i] = in[i];
        if (in[i]->device.type != CT_CUDA && in[i]->ndim != 0)   /* a kernel would read host memory: refuse, never fault */
            return ct__cu_mismatch(op, in[i]->device, ct_cuda(dev));
    }
    if (out->device.type != CT_CUDA) return ct__cu_mismatch(op, out->device, ct_cuda(dev));
    ct__iter it;
    ct__iter_init(&it, nin + 1, ops, out->ndim, out->shape);
    ct__cu_ewp p;
    memset(&p, 0, sizeof p);
    p.ndim = it.ndim;
    p.nop = nin + 1;
    p.numel = it.numel;
    for (int d = 0; d < it.ndim; d++) {
        p.shape[d] = it.shape[d];
        for (int k = 0; k <= nin; k++) p.st[d][k] = it.st[d][k];
    }
    for (int k = 0; k <= nin; k++) {
        p.base[k] = it.base[k];
        p.dt[k] = ops[k]->dtype;
        if (k > 0 && ops[k]->device.type == CT_CPU) {   /* a 0-d CPU tensor (the dispatcher allows no other) */
            p.host |= 1u << k;
            p.base[k] = NULL;
            ct__cu_host_scalar(ops[k], cdt, &p.sd[k], &p.si[k]);
        }
    }
    p.cdt = cdt;
    p.rdt = rdt;
    if (a) {
        p.a.a0 = a->s[0];
        p.a.a1 = a->s[1];
        p.a.a2 = a->s[2];
        p.a.a3 = a->s[3];
        p.a.i0 = a->i[0];
        p.a.mo = a->mode;
    }
    int fast = FAST && (cdt == CT_FLOAT32 || cdt == CT_FLOAT16 || cdt == CT_BFLOAT16) && rdt == cdt && out->dtype == cdt && it.ndim == 1;
    size_t es = ct__dt[cdt].size;
    for (int k = 0; fast && k <= nin; k++)
        if (!((p.host >> k) & 1u))
            fast = p.dt[k] == (int32_t)cdt && it.st[0][k] == (int64_t)es && (uintptr_t)p.base[k] % (4 * es) == 0;
    int ints = cdt != CT_FLOAT64 && !CT__ISFLOAT(cdt);
    ct__cu_guard guard(dev, op);
    if (!guard.ok) return -1;
    if (raises && ints && ct__cu_kerr_reset(op)) return -1;
    if (fast) {
        ct__cu_fast_launch<F, FAST>::run(ct__cu_blocks(it.numel, 4 * CT__CU_THREADS, dev), p, cdt);
    } else {
        unsigned blocks = ct__cu_blocks(it.numel, CT__CU_THREADS, dev);
        if (cdt == CT_FLOAT64) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_ew_kernel<F, double>);
        else if (!ints) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_ew_kernel<F, float>);
        else if (F::ints) ct__cu_int_launch<F, F::ints != 0>::run(blocks, p);
        else return ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s' on CUDA", op, CT__DTNAME(cdt));
    }
    if (ct__cu_launched(op)) return -1;
    return raises && ints ? ct__cu_kerr_check(op) : 0;
}
/* An in-place op whose self is a CPU 0-d tensor and whose other inputs are on a
   GPU: the dispatcher lets a CPU 0-d input join them, but an output must be on
   the device of the call (PyTorch: "Expected all tensors to be on the same device"). */
static int ct__cu_out_on_device(const ct__call *c, const ct_tensor *out) {
    if (out->device.type == CT_CUDA) return 0;
    return ct__device_mismatch(ct__opdef_get(c->op), out->device, ct_cuda(ct__cu_call_device(c)));
}
/* the op's kernel: output 0, the call's compute dtype */
template <class F, bool FAST>
static int ct__cu_ew_call(ct__call *c, int nin, ct_tensor *const *in, ct_dtype rdt, int raises) {
    if (ct__cu_out_on_device(c, c->out[0])) return -1;
    return ct__cu_ew<F, FAST>(CT__CU_OPNAME(c), ct__cu_call_device(c), c->out[0], nin, in, c->cdt, rdt, c->a, raises);
}

static int ct__cu_k_unary(ct__call *c) {
    int op = c->op;
    if (op == CT__OP_BITWISE_NOT && c->cdt == CT_BOOL) op = CT__OP_LOGICAL_NOT;   /* ~True == False, as the CPU kernel */
    ct_dtype rdt = (ct__opdef_get(c->op)->flags & CT__OPF_OUT_BOOL) ? CT_BOOL : c->cdt;
    switch (op) {
#define CT__CU_UCASE(E, ...) case CT__OP_##E: return ct__cu_ew_call<ct__cu_dev::u_##E, true>(c, 1, c->in, rdt, 0);
        CT__UNARY_LOOPS(CT__CU_UCASE)
#undef CT__CU_UCASE
#define CT__CU_UBCASE(E, ...) case CT__OP_##E: return ct__cu_ew_call<ct__cu_dev::ub_##E, false>(c, 1, c->in, CT_BOOL, 0);
        CT__UNARY_BOOL_LOOPS(CT__CU_UBCASE)
#undef CT__CU_UBCASE
    default: return ct__no_kernel(ct__opdef_get(c->op), CT_BACKEND_CUDA);
    }
}
static int ct__cu_k_binary(ct__call *c) {
    switch (c->op) {
#define CT__CU_BCASE(E, I, Bo, FX, DX, IX) \
    case CT__OP_##E: return ct__cu_ew_call<ct__cu_dev::b_##E, true>(c, 2, c->in, c->cdt, ct__cu_raises(#IX));
        CT__BINARY_LOOPS(CT__CU_BCASE)
#undef CT__CU_BCASE
#define CT__CU_BBCASE(E, ...) case CT__OP_##E: return ct__cu_ew_call<ct__cu_dev::bb_##E, false>(c, 2, c->in, CT_BOOL, 0);
        CT__BINARY_BOOL_LOOPS(CT__CU_BBCASE)
#undef CT__CU_BBCASE
    default: return ct__no_kernel(ct__opdef_get(c->op), CT_BACKEND_CUDA);
    }
}
static int ct__cu_k_ternary(ct__call *c) {
    switch (c->op) {
#define CT__CU_TCASE(E, I, Bo, FX, DX, IX) \
    case CT__OP_##E: return ct__cu_ew_call<ct__cu_dev::t_##E, true>(c, 3, c->in, c->cdt, ct__cu_raises(#IX));
        CT__TERNARY_LOOPS(CT__CU_TCASE)
#undef CT__CU_TCASE
    case CT__OP_WHERE: return ct__cu_ew_call<ct__cu_dev::t_WHERE, false>(c, 3, c->in, c->cdt, 0);
    case CT__OP_MASKED_FILL: return ct__cu_ew_call<ct__cu_dev::t_MASKED_FILL, false>(c, 3, c->in, c->cdt, 0);
    default: return ct__no_kernel(ct__opdef_get(c->op), CT_BACKEND_CUDA);
    }
}

/* ============================================================================
   Copies and factories
   aten::_to_copy (ct_to_device, ct_to) and aten::clone (clone, contiguous):
     device -> same device   one cudaMemcpyAsync when both are dense with the
                             same layout and dtype, else the elementwise copy
                             (dtype conversion, any strides, broadcasting)
     host -> device          one copy from the source when it already has the
                             output's dtype and layout, else from a host staging
                             copy made by the CPU path (ct__copy_into); the host
                             waits for it, except with non_blocking from pinned
                             memory (ct_to_device_nonblocking): then the copy is
                             queued, and an event keeps the pinned block from
                             reuse until it is done
     device -> host          one copy (the host waits for the current stream)
                             from the source, or from a device copy in the
                             output's layout
     device -> other device  the same through cudaMemcpyPeer (ordered with all
                             work of both devices)
   Copies run on the current stream of the device that does them.
   Outputs of these ops are new dense tensors (the meta's layout).
   ========================================================================== */
/* dense, and the same strides where a dim has more than one element */
static int ct__cu_same_layout(const ct_tensor *a, const ct_tensor *b) {
    if (a->ndim != b->ndim || a->dtype != b->dtype || !ct__is_dense(a) || !ct__is_dense(b)) return 0;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d] || (a->shape[d] > 1 && a->strides[d] != b->strides[d])) return 0;
    return 1;
}
/* dst = src on dst's device (same device or a CPU 0-d src): conversion, strides, broadcasting */
static int ct__cu_copy_dev(const char *op, ct_tensor *dst, ct_tensor *src) {
    int dev = dst->device.index;
    int64_t n = ct__shape_numel(dst->ndim, dst->shape);
    if (n == 0) return 0;
    if (src->device.type == CT_CUDA && ct__cu_same_layout(dst, src)) {
        ct__cu_guard guard(dev, op);
        if (!guard.ok) return -1;
        cudaError_t e = cudaMemcpyAsync(ct__ptr(dst), ct__ptr(src), (size_t)n * ct__dt[dst->dtype].size, cudaMemcpyDeviceToDevice, ct__cu_cur_stream());
        return e == cudaSuccess ? 0 : ct__cu_fail(op, e);
    }
    ct_tensor *in[1];
    in[0] = src;
    return ct__cu_ew<ct__cu_dev::copy, false>(op, dev, dst, 1, in, src->dtype, src->dtype, NULL, 0);
}
/* A new tensor shaped like `like` on device dev, with its strides when it is dense
   (a permuted layout), else contiguous; not in a scope. */
static ct_tensor *ct__cu_empty_as(const ct_tensor *like, ct_dtype dt, ct_device dev) {
    return ct__alloc(dt, like->ndim, like->shape, ct__is_contig(like) || !ct__is_dense(like) ? NULL : like->strides, dev);
}
/* An input of a kernel that reads it through a pointer, on device dev (a new
   reference): t itself, or a copy when t is a CPU 0-d tensor (the dispatcher lets
   those join any device, as PyTorch does) or, when asked, not contiguous. */
static int ct__cu_memcpy(const char *op, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
static ct_tensor *ct__cu_input(const char *op, ct_tensor *t, ct_device dev, int contiguous) {
    int host = t->device.type != CT_CUDA;
    if (!host && (!contiguous || ct__is_contig(t))) return ct__incref(t);
    ct_tensor *y = ct__alloc(t->dtype, t->ndim, t->shape, NULL, dev);
    if (!y) return NULL;
    int rc;
    if (host) {   /* 0-d: one element */
        ct__cu_guard guard(dev.index, op);
        rc = guard.ok ? ct__cu_memcpy(op, ct__ptr(y), ct__ptr(t), ct__dt[t->dtype].size, cudaMemcpyHostToDevice) : -1;
    } else {
        rc = ct__cu_copy_dev(op, y, t);
    }
    if (rc) { ct__decref(y); return NULL; }
    return y;
}
/* a copy to or from the host on the current stream (the op's device), waited for */
static int ct__cu_memcpy(const char *op, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind) {
    if (!bytes) return 0;
    cudaStream_t st = ct__cu_cur_stream();
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, kind, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    return e == cudaSuccess ? 0 : ct__cu_fail(op, e);
}
static int ct__cu_host_record(const void *base, int dev, cudaStream_t st);
static int ct__cu_is_pinned(const ct_tensor *t);
/* out = x, out a new dense tensor (the meta's layout) on any device, x anywhere
   with out's shape: the body of aten::_to_copy and clone */
static int ct__cu_copy_new(const char *op, ct_tensor *out, ct_tensor *x, int nonblocking) {
    ct_tensor *tmp = NULL;
    int64_t n = ct__shape_numel(out->ndim, out->shape);
    size_t bytes = (size_t)n * ct__dt[out->dtype].size;
    int rc;
    if (n == 0) return 0;
    if (x->device.type == CT_CUDA && out->device.type == CT_CUDA && x->device.index == out->device.index)
        return ct__cu_copy_dev(op, out, x);
    if (x->device.type == CT_CPU) {   /* host to device */
        ct__cu_guard guard(out->device.index, op);
        if (!guard.ok) return -1;
        if (ct__cu_same_layout(out, x)) {
            if (nonblocking && ct__cu_is_pinned(x)) {   /* queued; the pinned block is held until it is done */
                cudaStream_t st = ct__cu_cur_stream();
                cudaError_t e = cudaMemcpyAsync(ct__ptr(out), ct__ptr(x), bytes, cudaMemcpyHostToDevice, st);
                if (e != cudaSuccess) return ct__cu_fail(op, e);
                if (ct__cu_host_record(x->storage->data, out->device.index, st)) return ct__cu_sync_cur(op);   /* no event: wait instead */
                return 0;
            }
            return ct__cu_memcpy(op, ct__ptr(out), ct__ptr(x), bytes, cudaMemcpyHostToDevice);
        }
        if (!(tmp = ct__cu_empty_as(out, out->dtype, ct__cpu_dev))) return -1;
        rc = ct__copy_into(tmp, x);
        if (!rc) rc = ct__cu_memcpy(op, ct__ptr(out), ct__ptr(tmp), bytes, cudaMemcpyHostToDevice);
        ct__decref(tmp);
        return rc;
    }
    /* from a device: to the host or to another device, through a copy in the output's layout when needed */
    ct_tensor *src = x;
    if (!ct__cu_same_layout(out, x)) {
        if (!(tmp = ct__cu_empty_as(out, out->dtype, x->device))) return -1;
        if (ct__cu_copy_dev(op, tmp, x)) { ct__decref(tmp); return -1; }
        src = tmp;
    }
    {
        ct__cu_guard guard(x->device.index, op);
        if (!guard.ok) rc = -1;
        else if (out->device.type == CT_CPU) rc = ct__cu_memcpy(op, ct__ptr(out), ct__ptr(src), bytes, cudaMemcpyDeviceToHost);
        else {
            cudaError_t e = cudaMemcpyPeer(ct__ptr(out), out->device.index, ct__ptr(src), x->device.index, bytes);
            rc = e == cudaSuccess ? 0 : ct__cu_fail(op, e);
        }
    }
    if (tmp) ct__decref(tmp);
    return rc;
}
static int ct__cu_k_copy(ct__call *c) {
    return ct__cu_copy_new(CT__CU_OPNAME(c), c->out[0], c->in[0], c->op == CT__OP_TO && (c->a->flags & 1));   /* _to_copy's non_blocking */
}
/* aten::copy_(self, src), self[...] = src[...] converting and broadcasting. From the
   dispatcher: self a CPU 0-d tensor and src a one-element GPU tensor (to the host),
   or src on self's device or a CPU 0-d tensor. From ctensor.h's internal copies
   (ct__copy_into: autograd's accumulation, conversions, contiguous copies), any
   devices: a source elsewhere comes over first. src may share memory with self
   (then through a copy). */
/* aten::as_strided_scatter (the gradient of a view of a tensor: ctensor.h's
   ct__strided_scatter): out = self, then src added at the view (sizes, strides,
   offset relative to a contiguous tensor of self's shape). A view whose elements
   overlap (a stride of 0 over more than one element) is refused: its sums would
   race. */
static int ct__cu_k_strided_scatter(ct__call *c) {
    const char *op = "as_strided_scatter";
    const ct__attrs *a = c->a;
    ct_tensor *out = c->out[0], *g = c->in[1];
    if (ct__cu_out_on_device(c, out)) return -1;
    if (ct__cu_copy_dev(op, out, c->in[0])) return -1;
    ct_tensor *view = ct__view_header(out, a->nv, a->v, a->v + a->nv, a->i[0]);
    if (!view) return -1;
    int rc = 0;
    for (int d = 0; d < view->ndim && !rc; d++)
        if (view->strides[d] == 0 && view->shape[d] > 1)
            rc = ct__failed(CT_ERR_UNSUPPORTED, "%s: a view whose elements overlap (size %s, stride %s) is not supported on CUDA", op,
                            ct__fmt_shape(a->nv, a->v).s, ct__fmt_shape(a->nv, a->v + a->nv).s);
    if (!rc) {
        ct__attrs one;
        ct__attrs_init(&one);
        one.s[0] = 1.0;   /* add's alpha */
        ct_tensor *in[2];
        in[0] = view;
        in[1] = g;
        rc = ct__cu_ew<ct__cu_dev::b_ADD, false>(op, out->device.index, view, 2, in, out->dtype, out->dtype, &one, 0);
    }
    ct__decref(view);
    return rc;
}
static int ct__cu_k_copy_(ct__call *c) {
    ct_tensor *x = c->in[0], *src = c->in[1];
    if (x->device.type == CT_CUDA && !ct_device_eq(src->device, x->device) && !(src->device.type == CT_CPU && src->ndim == 0)) {
        ct_tensor *t = ct__alloc(src->dtype, src->ndim, src->shape, NULL, x->device);
        if (!t) return -1;
        int rc = ct__cu_copy_new("copy_", t, src, 0);
        if (!rc) rc = ct__cu_copy_dev("copy_", x, t);
        ct__decref(t);
        return rc;
    }
    if (x->device.type != CT_CUDA) {
        ct_tensor *h = ct__alloc(src->dtype, src->ndim, src->shape, NULL, ct__cpu_dev), *d = h ? ct__cu_input("copy_", src, src->device, 1) : NULL;
        int rc = -1;
        if (d) {
            ct__cu_guard guard(src->device.index, "copy_");
            if (guard.ok && !ct__cu_memcpy("copy_", ct__ptr(h), ct__ptr(d), (size_t)ct_numel(d) * ct__dt[d->dtype].size, cudaMemcpyDeviceToHost))
                rc = ct__copy_into(x, h);
        }
        if (h) ct__decref(h);
        if (d) ct__decref(d);
        return rc;
    }
    if (src->storage == x->storage) {
        ct_tensor *t = ct__cu_empty_as(src, src->dtype, src->device);
        if (!t) return -1;
        int rc = ct__cu_copy_dev("copy_", t, src);
        if (!rc) rc = ct__cu_copy_dev("copy_", x, t);
        ct__decref(t);
        return rc;
    }
    return ct__cu_copy_dev("copy_", x, src);
}

/* fill: every element of x (any strides) gets the bits of `value` in x's dtype */
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_fill_kernel(const ct__cu_ewp p, uint64_t bits, int es) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.numel; i += step) {
        int64_t off[CT__CU_MAXOP];
        ct__cu_offsets(p, i, off);
        char *q = p.base[0] + off[0];
        switch (es) {
        case 1: *(uint8_t *)q = (uint8_t)bits; break;
        case 2: *(uint16_t *)q = (uint16_t)bits; break;
        case 4: *(uint32_t *)q = (uint32_t)bits; break;
        default: *(uint64_t *)q = bits; break;
        }
    }
}
static int ct__cu_fill(const char *op, ct_tensor *x, double value) {
    if (!CT__ISREAL(x->dtype)) return ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s'", op, CT__DTNAME(x->dtype));
    if (ct__shape_numel(x->ndim, x->shape) == 0) return 0;
    unsigned char b[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    uint64_t bits;
    ct__store_f64(b, x->dtype, value);   /* the CPU path's conversion of the value */
    memcpy(&bits, b, 8);
    ct_tensor *ops[1];
    ops[0] = x;
    ct__iter it;
    ct__iter_init(&it, 1, ops, x->ndim, x->shape);
    ct__cu_ewp p;
    memset(&p, 0, sizeof p);
    p.ndim = it.ndim;
    p.nop = 1;
    p.numel = it.numel;
    for (int d = 0; d < it.ndim; d++) { p.shape[d] = it.shape[d]; p.st[d][0] = it.st[d][0]; }
    p.base[0] = it.base[0];
    ct__cu_guard guard(x->device.index, op);
    if (!guard.ok) return -1;
    unsigned blocks = ct__cu_blocks(it.numel, CT__CU_THREADS, x->device.index);
    CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p, bits, (int)ct__dt[x->dtype].size), ct__cu_fill_kernel);
    return ct__cu_launched(op);
}
static int ct__cu_k_fill(ct__call *c) { return ct__cu_fill("fill_", c->in[0], c->a->s[0]); }
static int ct__cu_k_full(ct__call *c) { return ct__cu_fill(CT__CU_OPNAME(c), c->out[0], c->a->s[0]); }

/* arange, linspace, eye: element i from its index, with the CPU kernels' formulas
   (products and sums rounded separately: no fused multiply-add, so the values
   are the CPU's bits) */
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_arange_kernel(char *out, int dt, int64_t n, int integral, double start,
                                                                        double step, int64_t s0, int64_t st) {
    const int64_t es = dt == CT_FLOAT64 || dt == CT_INT64 ? 8 : dt == CT_FLOAT32 || dt == CT_INT32 ? 4 : dt == CT_INT8 || dt == CT_UINT8 || dt == CT_BOOL ? 1 : 2;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        if (integral) ct__cu_dev::st<int64_t>(out + i * es, dt, CT__IADD(s0, CT__IMUL(st, i)));
        else ct__cu_dev::st<double>(out + i * es, dt, __dadd_rn(start, __dmul_rn(step, (double)i)));
    }
}
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_linspace_kernel(char *out, int dt, int64_t n, double start, double end,
                                                                          double step, int integral) {
    const int64_t es = dt == CT_FLOAT64 || dt == CT_INT64 ? 8 : dt == CT_FLOAT32 || dt == CT_INT32 ? 4 : dt == CT_INT8 || dt == CT_UINT8 || dt == CT_BOOL ? 1 : 2;
    const int64_t half = n / 2;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        double v = n == 1 ? start
                 : i < half ? __dadd_rn(start, __dmul_rn(step, (double)i)) : __dsub_rn(end, __dmul_rn(step, (double)(n - 1 - i)));
        if (integral) v = trunc(v);
        ct__cu_dev::st<double>(out + i * es, dt, v);
    }
}
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_eye_kernel(char *out, int dt, int64_t rows, int64_t cols) {
    const int64_t es = dt == CT_FLOAT64 || dt == CT_INT64 ? 8 : dt == CT_FLOAT32 || dt == CT_INT32 ? 4 : dt == CT_INT8 || dt == CT_UINT8 || dt == CT_BOOL ? 1 : 2;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows * cols; i += (int64_t)gridDim.x * blockDim.x)
        ct__cu_dev::st<int64_t>(out + i * es, dt, i / cols == i % cols ? 1 : 0);
}
static int ct__cu_k_factory(ct__call *c) {
    ct_tensor *x = c->out[0];
    const ct__attrs *a = c->a;
    const char *op = CT__CU_OPNAME(c);
    int64_t n = ct__shape_numel(x->ndim, x->shape);
    int dev = x->device.index, integral = CT__ISINT(x->dtype);
    if (n == 0) return 0;
    ct__cu_guard guard(dev, op);
    if (!guard.ok) return -1;
    unsigned blocks = ct__cu_blocks(n, CT__CU_THREADS, dev);
    if (c->op == CT__OP_ARANGE) {
        double start = a->s[0], step = a->s[2];
        if (integral) { start = trunc(start); step = trunc(step); }   /* as the meta's size */
        int ints = integral && ct__scalar_is_int(start) && ct__scalar_is_int(step);
        int64_t s0 = ints ? (int64_t)start : 0, st = ints ? (int64_t)step : 0;
        CT__CU_LAUNCH(blocks, CT__CU_THREADS, (ct__ptr(x), x->dtype, n, ints, start, step, s0, st), ct__cu_arange_kernel);
    } else if (c->op == CT__OP_LINSPACE) {
        double start = a->s[0], end = a->s[1], step = n > 1 ? (end - start) / (double)(n - 1) : 0.0;
        CT__CU_LAUNCH(blocks, CT__CU_THREADS, (ct__ptr(x), x->dtype, n, start, end, step, integral), ct__cu_linspace_kernel);
    } else {
        CT__CU_LAUNCH(blocks, CT__CU_THREADS, (ct__ptr(x), x->dtype, x->shape[0], x->shape[1]), ct__cu_eye_kernel);
    }
    return ct__cu_launched(op);
}

/* ============================================================================
   Reductions (sum, mean, nansum, prod, amax, amin, max, min, argmax, argmin;
   all, any, count_nonzero; norm and logsumexp below)
   The input is seen as O outputs by K reduced elements: kept dims and reduced
   dims each in C order (size-1 dims dropped, neighbours coalesced), so k, the
   position among the reduced elements, is the index along a single reduced dim
   and the flat C-order index over all of them (argmax without a dim). Each
   output is reduced by a group of L threads of a 256-thread block:
     L = 1     one thread per output, when the reduced elements are strided and
               the outputs adjacent (sum over dim 0 of a matrix: coalesced)
     L = 32    a warp per output (warp shuffles)
     L = 256   the whole block (warp shuffles, then shared memory), K >= 4096
   and when that leaves the GPU idle (few outputs, many elements) the K range
   is split across gridDim.y blocks whose partial results a second kernel
   combines (two passes). Accumulation: float for float32/16/bf16 (PyTorch's
   CUDA accumulate type), double for float64 and for prod, int64 (wrapping) for
   integers and bool. max/min: a NaN wins (the first NaN's index), ties go to
   the lowest index, as on the CPU.
   ========================================================================== */
template <class C> struct ct__cu_acc { C v; int64_t i; };
namespace ct__cu_dev {
__device__ __forceinline__ float addw(float a, float b) { return a + b; }
__device__ __forceinline__ double addw(double a, double b) { return a + b; }
__device__ __forceinline__ int64_t addw(int64_t a, int64_t b) { return CT__IADD(a, b); }
__device__ __forceinline__ float mulw(float a, float b) { return a * b; }
__device__ __forceinline__ double mulw(double a, double b) { return a * b; }
__device__ __forceinline__ int64_t mulw(int64_t a, int64_t b) { return CT__IMUL(a, b); }
__device__ __forceinline__ bool isn(float v) { return v != v; }
__device__ __forceinline__ bool isn(double v) { return v != v; }
__device__ __forceinline__ bool isn(int64_t) { return false; }
template <class C> __device__ __forceinline__ C lowest();
template <> __device__ __forceinline__ float lowest<float>() { return -INFINITY; }
template <> __device__ __forceinline__ double lowest<double>() { return -INFINITY; }
template <> __device__ __forceinline__ int64_t lowest<int64_t>() { return INT64_MIN; }
template <class C> __device__ __forceinline__ C highest();
template <> __device__ __forceinline__ float highest<float>() { return INFINITY; }
template <> __device__ __forceinline__ double highest<double>() { return INFINITY; }
template <> __device__ __forceinline__ int64_t highest<int64_t>() { return INT64_MAX; }

/* reducers: init (identity), from (one element at position k), comb (associative,
   commutative), fin (the output value; mean scales) */
struct r_sum {
    template <class C> static __device__ ct__cu_acc<C> init() { ct__cu_acc<C> a = {C(0), 0}; return a; }
    template <class C> static __device__ ct__cu_acc<C> from(C v, int64_t) { ct__cu_acc<C> a = {v, 0}; return a; }
    template <class C> static __device__ ct__cu_acc<C> comb(ct__cu_acc<C> a, ct__cu_acc<C> b) { a.v = addw(a.v, b.v); return a; }
    template <class C> static __device__ C fin(C v, double scale) { return scale == 1.0 ? v : (C)(v * (C)scale); }
};
struct r_nansum : r_sum {
    template <class C> static __device__ ct__cu_acc<C> from(C v, int64_t) { ct__cu_acc<C> a = {isn(v) ? C(0) : v, 0}; return a; }
};
struct r_prod {
    template <class C> static __device__ ct__cu_acc<C> init() { ct__cu_acc<C> a = {C(1), 0}; return a; }
    template <class C> static __device__ ct__cu_acc<C> from(C v, int64_t) { ct__cu_acc<C> a = {v, 0}; return a; }
    template <class C> static __device__ ct__cu_acc<C> comb(ct__cu_acc<C> a, ct__cu_acc<C> b) { a.v = mulw(a.v, b.v); return a; }
    template <class C> static __device__ C fin(C v, double) { return v; }
};
/* MAX = 1: max, 0: min. Order: a NaN first, then the larger (smaller) value, then the lower index */
template <int MAX> struct r_ext {
    template <class C> static __device__ ct__cu_acc<C> init() { ct__cu_acc<C> a = {MAX ? lowest<C>() : highest<C>(), INT64_MAX}; return a; }
    template <class C> static __device__ ct__cu_acc<C> from(C v, int64_t k) { ct__cu_acc<C> a = {v, k}; return a; }
    template <class C> static __device__ ct__cu_acc<C> comb(ct__cu_acc<C> a, ct__cu_acc<C> b) {
        bool an = isn(a.v), bn = isn(b.v);
        if (an || bn) return an && bn ? (a.i <= b.i ? a : b) : (an ? a : b);
        if (MAX ? a.v > b.v : a.v < b.v) return a;
        if (MAX ? b.v > a.v : b.v < a.v) return b;
        return a.i <= b.i ? a : b;
    }
    template <class C> static __device__ C fin(C v, double) { return v; }
};
/* all / any / count_nonzero: the count of nonzero elements (a NaN counts), then
   all: count == K (passed as scale), any: count > 0 */
struct r_nz : r_sum {
    template <class C> static __device__ ct__cu_acc<C> from(C v, int64_t) { ct__cu_acc<C> a = {v != C(0) ? C(1) : C(0), 0}; return a; }
    template <class C> static __device__ C fin(C v, double) { return v; }
};
struct r_all : r_nz {
    template <class C> static __device__ C fin(C v, double k) { return (double)v == k ? C(1) : C(0); }
};
struct r_any : r_nz {
    template <class C> static __device__ C fin(C v, double) { return v > C(0) ? C(1) : C(0); }
};
} /* namespace ct__cu_dev */

/* ---- a group of L threads (1, 32 or 256 of a 256-thread block) reduces a value;
   every thread of the group gets the result. All threads of the block call it. ---- */
__device__ __forceinline__ float ct__cu_shfl_down(float v, int off) { return __shfl_down_sync(0xffffffffu, v, off); }
__device__ __forceinline__ double ct__cu_shfl_down(double v, int off) { return __shfl_down_sync(0xffffffffu, v, off); }
__device__ __forceinline__ int64_t ct__cu_shfl_down(int64_t v, int off) { return (int64_t)__shfl_down_sync(0xffffffffu, (long long)v, off); }
template <class C> __device__ __forceinline__ ct__cu_acc<C> ct__cu_shfl_down(ct__cu_acc<C> a, int off) {
    a.v = ct__cu_shfl_down(a.v, off);
    a.i = ct__cu_shfl_down(a.i, off);
    return a;
}
__device__ __forceinline__ float ct__cu_shfl0(float v) { return __shfl_sync(0xffffffffu, v, 0); }
__device__ __forceinline__ double ct__cu_shfl0(double v) { return __shfl_sync(0xffffffffu, v, 0); }
__device__ __forceinline__ int64_t ct__cu_shfl0(int64_t v) { return (int64_t)__shfl_sync(0xffffffffu, (long long)v, 0); }
template <class C> __device__ __forceinline__ ct__cu_acc<C> ct__cu_shfl0(ct__cu_acc<C> a) {
    a.v = ct__cu_shfl0(a.v);
    a.i = ct__cu_shfl0(a.i);
    return a;
}
/* sm: 9 elements of shared memory */
template <class A, class Op> __device__ __forceinline__ A ct__cu_group_reduce(A a, int L, A *sm) {
    if (L >= 32)
        for (int off = 16; off > 0; off >>= 1) a = Op::comb(a, ct__cu_shfl_down(a, off));
    if (L == CT__CU_THREADS) {
        if ((threadIdx.x & 31) == 0) sm[threadIdx.x >> 5] = a;
        __syncthreads();
        if (threadIdx.x == 0) {
            A r = sm[0];
            for (int j = 1; j < CT__CU_THREADS / 32; j++) r = Op::comb(r, sm[j]);
            sm[8] = r;
        }
        __syncthreads();
        a = sm[8];
        __syncthreads();   /* before sm is written again */
    } else if (L == 32) {
        a = ct__cu_shfl0(a);
    }
    return a;
}

typedef struct ct__cu_redp {
    const char *x;
    char *out;                    /* values (NULL for argmax/argmin) */
    int64_t *idx;                 /* indices (NULL when none) */
    void *part;                   /* split K: partial results [O][splits] */
    int32_t xdt, odt, rdt;        /* rdt >= 0: inputs are first rounded to it (sum's dtype=) */
    int32_t xes, oes;
    int32_t no, nk, lanes, splits;
    int64_t O, K, chunk;
    int64_t oshape[CT_MAX_DIMS], ostride[CT_MAX_DIMS];   /* kept dims, C order, element strides of x */
    int64_t kshape[CT_MAX_DIMS], kstride[CT_MAX_DIMS];   /* reduced dims */
    double scale;                 /* mean: 1 / K; all: K */
    double arg;                   /* norm: p */
    int32_t mode;                 /* norm / logsumexp: CT__CU_NRM_* */
} ct__cu_redp;

/* the element offset of flat C-order index i over n dims */
__device__ __forceinline__ int64_t ct__cu_doff(int64_t i, int n, const int64_t *shape, const int64_t *stride) {
    if (n == 1) return i * stride[0];
    int64_t off = 0;
    for (int d = n - 1; d >= 0; d--) {
        int64_t q = i % shape[d];
        i /= shape[d];
        off += q * stride[d];
    }
    return off;
}
template <class R, class C> __device__ __forceinline__ void ct__cu_red_store(const ct__cu_redp &p, int64_t o, ct__cu_acc<C> a) {
    if (p.out) ct__cu_dev::st<C>(p.out + o * p.oes, p.odt, R::template fin<C>(a.v, p.scale));
    if (p.idx) p.idx[o] = a.i;
}
template <class R, class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_reduce_kernel(const ct__cu_redp p) {
    typedef ct__cu_acc<C> A;
    __shared__ A sm[9];
    const int L = p.lanes, lane = (int)threadIdx.x % L;
    const int64_t per = CT__CU_THREADS / L, k0 = (int64_t)blockIdx.y * p.chunk;
    const int64_t k1 = p.K < k0 + p.chunk ? p.K : k0 + p.chunk;
    for (int64_t ob = (int64_t)blockIdx.x * per; ob < p.O; ob += (int64_t)gridDim.x * per) {   /* uniform in the block */
        const int64_t o = ob + (int64_t)threadIdx.x / L;
        A a = R::template init<C>();
        if (o < p.O) {
            const char *xo = p.x + ct__cu_doff(o, p.no, p.oshape, p.ostride) * p.xes;
            for (int64_t k = k0 + lane; k < k1; k += L) {
                C v = ct__cu_dev::ld<C>(xo + ct__cu_doff(k, p.nk, p.kshape, p.kstride) * p.xes, p.xdt);
                if (p.rdt >= 0) v = ct__cu_dev::round_to<C>(v, p.rdt);
                a = R::comb(a, R::template from<C>(v, k));
            }
        }
        a = ct__cu_group_reduce<A, R>(a, L, sm);
        if (o < p.O && lane == 0) {
            if (p.splits > 1) ((A *)p.part)[o * p.splits + blockIdx.y] = a;
            else ct__cu_red_store<R, C>(p, o, a);
        }
    }
}
/* the second pass: partial results, in split order, into the outputs */
template <class R, class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_reduce_finish(const ct__cu_redp p) {
    typedef ct__cu_acc<C> A;
    for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < p.O; o += (int64_t)gridDim.x * blockDim.x) {
        A a = R::template init<C>();
        for (int s = 0; s < p.splits; s++) a = R::comb(a, ((const A *)p.part)[o * p.splits + s]);
        ct__cu_red_store<R, C>(p, o, a);
    }
}

/* x's dims split into kept and reduced (mask), each in C order, coalesced */
static void ct__cu_red_geometry(const ct_tensor *x, uint32_t mask, ct__cu_redp *p) {
    p->no = p->nk = 0;
    p->O = p->K = 1;
    for (int d = 0; d < x->ndim; d++) {
        int64_t sz = x->shape[d], s = x->strides[d];
        int red = (mask >> d) & 1u;
        int32_t *n = red ? &p->nk : &p->no;
        int64_t *shape = red ? p->kshape : p->oshape, *stride = red ? p->kstride : p->ostride;
        if (red) p->K *= sz;
        else p->O *= sz;
        if (sz == 1) continue;
        if (*n > 0 && stride[*n - 1] == s * sz) {   /* the dim before steps over this one exactly */
            shape[*n - 1] *= sz;
            stride[*n - 1] = s;
            continue;
        }
        shape[*n] = sz;
        stride[*n] = s;
        (*n)++;
    }
}
template <class R, class C> static int ct__cu_reduce_run(const char *op, int dev, ct__cu_redp *p) {
    typedef ct__cu_acc<C> A;
    unsigned bx = ct__cu_blocks(p->O, CT__CU_THREADS / p->lanes, dev);
    ct_tensor *part = NULL;
    if (p->splits > 1) {
        int64_t bytes = p->O * p->splits * (int64_t)sizeof(A);
        if (!(part = ct__alloc(CT_UINT8, 1, &bytes, NULL, ct_cuda(dev)))) return -1;
        p->part = ct__ptr(part);
    }
    dim3 grid(bx, (unsigned)p->splits);
    CT__CU_LAUNCH(grid, CT__CU_THREADS, (*p), ct__cu_reduce_kernel<R, C>);
    int rc = ct__cu_launched(op);
    if (!rc && p->splits > 1) {
        unsigned blocks = ct__cu_blocks(p->O, CT__CU_THREADS, dev);
        CT__CU_LAUNCH(blocks, CT__CU_THREADS, (*p), ct__cu_reduce_finish<R, C>);
        rc = ct__cu_launched(op);
    }
    if (part) ct__decref(part);   /* back to the cache: the next use is ordered after these kernels */
    return rc;
}
/* lanes per output: one thread when the reduced elements are strided and the
   outputs adjacent, or few; else a warp, or the block for long rows. Then K
   splits (gridDim.y) when the outputs leave the GPU idle and split allows it */
static void ct__cu_red_plan(ct__cu_redp *p, int dev, int split) {
    int64_t kin = p->nk ? p->kstride[p->nk - 1] : 1, oin = p->no ? p->ostride[p->no - 1] : 0;
    if (p->K <= 1 || (kin != 1 && oin == 1 && p->O >= 256) || (p->K < 32 && p->O >= 1024)) p->lanes = 1;
    else p->lanes = p->K >= 4096 ? CT__CU_THREADS : 32;
    int sms = ct__cu_sms(dev);
    int64_t bx = (p->O + CT__CU_THREADS / p->lanes - 1) / (CT__CU_THREADS / p->lanes);
    p->splits = 1;
    p->chunk = p->K > 0 ? p->K : 1;
    if (split && bx < 2 * sms && p->K >= 8192) {
        int64_t s = (2 * sms + bx - 1) / bx, by_k = p->K / 4096;
        if (s > by_k) s = by_k;
        if (s > 1024) s = 1024;
        if (s > 1) {
            p->chunk = (p->K + s - 1) / s;
            p->splits = (int32_t)((p->K + p->chunk - 1) / p->chunk);
        }
    }
}
/* the plan for p's shape; then the kernels for compute type cdt */
template <class R>
static int ct__cu_reduce(const char *op, int dev, ct__cu_redp *p, ct_dtype cdt) {
    if (p->O == 0) return 0;
    ct__cu_red_plan(p, dev, 1);
    ct__cu_guard guard(dev, op);
    if (!guard.ok) return -1;
    if (cdt == CT_FLOAT64) return ct__cu_reduce_run<R, double>(op, dev, p);
    if (CT__ISFLOAT(cdt)) return ct__cu_reduce_run<R, float>(op, dev, p);
    return ct__cu_reduce_run<R, int64_t>(op, dev, p);
}
static void ct__cu_red_init(ct__cu_redp *p, const ct_tensor *x, uint32_t mask) {
    memset(p, 0, sizeof *p);
    p->x = ct__ptr(x);
    p->xdt = x->dtype;
    p->xes = (int32_t)ct__dt[x->dtype].size;
    p->rdt = -1;
    p->scale = 1.0;
    ct__cu_red_geometry(x, mask, p);
}
static int ct__cu_k_sum(ct__call *c) {
    ct_tensor *x = c->in[0], *out = c->out[0];
    const char *op = CT__CU_OPNAME(c);
    uint32_t mask;
    ct__outinfo tmp;
    if (ct__reduce_shape(op, x, c->a, &mask, &tmp)) return -1;
    ct__cu_redp p;
    ct__cu_red_init(&p, x, mask);
    p.out = ct__ptr(out);
    p.odt = out->dtype;
    p.oes = (int32_t)ct__dt[out->dtype].size;
    if (x->dtype != out->dtype) p.rdt = out->dtype;   /* sum(x, dtype=): PyTorch converts x first */
    if (c->op == CT__OP_MEAN) p.scale = 1.0 / (double)p.K;
    int dev = ct__cu_call_device(c);
    if (c->op == CT__OP_PROD) return ct__cu_reduce<ct__cu_dev::r_prod>(op, dev, &p, c->cdt);
    if (c->op == CT__OP_NANSUM && CT__ISFLOAT(x->dtype)) return ct__cu_reduce<ct__cu_dev::r_nansum>(op, dev, &p, c->cdt);
    return ct__cu_reduce<ct__cu_dev::r_sum>(op, dev, &p, c->cdt);
}
static int ct__cu_k_minmax(ct__call *c) {
    ct_tensor *x = c->in[0];
    const char *op = CT__CU_OPNAME(c);
    int o = c->op;
    uint32_t mask;
    ct__outinfo tmp;
    ct__attrs da;
    if (ct__reduce_shape(op, x, ct__rdims(o, c->a, &da), &mask, &tmp)) return -1;
    int ismax = o == CT__OP_AMAX || o == CT__OP_MAX || o == CT__OP_MAX_DIM || o == CT__OP_ARGMAX;
    int isarg = o == CT__OP_ARGMAX || o == CT__OP_ARGMIN, withidx = isarg || o == CT__OP_MAX_DIM || o == CT__OP_MIN_DIM;
    ct__cu_redp p;
    ct__cu_red_init(&p, x, mask);
    if (!isarg) {
        p.out = ct__ptr(c->out[0]);
        p.odt = c->out[0]->dtype;
        p.oes = (int32_t)ct__dt[p.odt].size;
    }
    if (withidx) p.idx = (int64_t *)ct__ptr(c->out[isarg ? 0 : 1]);
    int dev = ct__cu_call_device(c);
    ct_dtype cdt = ct__rvdt(x->dtype);
    return ismax ? ct__cu_reduce<ct__cu_dev::r_ext<1> >(op, dev, &p, cdt) : ct__cu_reduce<ct__cu_dev::r_ext<0> >(op, dev, &p, cdt);
}

/* ---- all / any / count_nonzero: the reducers above over the input's truth
   values, counted in double (floating inputs) or int64 ---- */
static int ct__cu_k_logic(ct__call *c) {
    ct_tensor *x = c->in[0], *out = c->out[0];
    const char *op = CT__CU_OPNAME(c);
    uint32_t mask;
    ct__outinfo tmp;
    ct__attrs da;
    if (ct__reduce_shape(op, x, ct__rdims(c->op, c->a, &da), &mask, &tmp)) return -1;
    ct__cu_redp p;
    ct__cu_red_init(&p, x, mask);
    p.out = ct__ptr(out);
    p.odt = out->dtype;
    p.oes = (int32_t)ct__dt[out->dtype].size;
    p.scale = (double)p.K;
    int dev = ct__cu_call_device(c);
    ct_dtype cdt = CT__ISFLOAT(x->dtype) ? CT_FLOAT64 : CT_INT64;
    if (c->op == CT__OP_ALL) return ct__cu_reduce<ct__cu_dev::r_all>(op, dev, &p, cdt);
    if (c->op == CT__OP_ANY) return ct__cu_reduce<ct__cu_dev::r_any>(op, dev, &p, cdt);
    return ct__cu_reduce<ct__cu_dev::r_nz>(op, dev, &p, cdt);
}

/* ---- norm (p = 0, inf, -inf, 1, 2, other) and logsumexp: a group of L threads
   per output (the lanes and K splits of the reductions above: the norms'
   partial sums or extremes of a split go to a buffer that a second kernel
   combines and finishes); logsumexp reads its elements twice, without splits:
   the max (NaN wins; an infinite max is taken as 0, as on the CPU), then the
   sum of exp(x - max). Accumulation in float (double for float64), where the
   CPU path accumulates in double. ---- */
enum { CT__CU_NRM_0, CT__CU_NRM_INF, CT__CU_NRM_NINF, CT__CU_NRM_1, CT__CU_NRM_2, CT__CU_NRM_P, CT__CU_LSE };
struct ct__cu_op_max {
    template <class C> static __device__ __forceinline__ C comb(C a, C b) { return a != a ? a : (b != b ? b : (a > b ? a : b)); }
};
struct ct__cu_op_min {
    template <class C> static __device__ __forceinline__ C comb(C a, C b) { return a != a ? a : (b != b ? b : (a < b ? a : b)); }
};
struct ct__cu_op_sum {
    template <class C> static __device__ __forceinline__ C comb(C a, C b) { return a + b; }
};
namespace ct__cu_dev {
/* a norm's accumulator: its start, one element's term, two partial results combined, the result */
template <class C> __device__ __forceinline__ C nrm_init(int mode) { return mode == CT__CU_NRM_NINF ? C(INFINITY) : C(0); }
template <class C> __device__ __forceinline__ C nrm_add(int mode, C a, C v, C pp) {
    switch (mode) {
    case CT__CU_NRM_INF: return ct__cu_op_max::comb(a, C(fabs(v)));
    case CT__CU_NRM_NINF: return ct__cu_op_min::comb(a, C(fabs(v)));
    case CT__CU_NRM_0: return a + (v != C(0) ? C(1) : C(0));
    case CT__CU_NRM_1: return a + fabs(v);
    case CT__CU_NRM_2: return a + v * v;
    default: return a + pow(fabs(v), pp);
    }
}
template <class C> __device__ __forceinline__ C nrm_comb(int mode, C a, C b) {
    return mode == CT__CU_NRM_INF ? ct__cu_op_max::comb(a, b) : mode == CT__CU_NRM_NINF ? ct__cu_op_min::comb(a, b) : a + b;
}
template <class C> __device__ __forceinline__ C nrm_fin(int mode, C a, C pp) {
    return mode == CT__CU_NRM_2 ? sqrt(a) : mode == CT__CU_NRM_P ? pow(a, C(1) / pp) : a;
}
} /* namespace ct__cu_dev */
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_pnorm_kernel(const ct__cu_redp p) {
    using namespace ct__cu_dev;
    __shared__ C sm[9];
    const int L = p.lanes, lane = (int)threadIdx.x % L;
    const int64_t per = CT__CU_THREADS / L, k0 = (int64_t)blockIdx.y * p.chunk;
    const int64_t k1 = p.K < k0 + p.chunk ? p.K : k0 + p.chunk;
    const C pp = (C)p.arg;
    for (int64_t ob = (int64_t)blockIdx.x * per; ob < p.O; ob += (int64_t)gridDim.x * per) {   /* uniform in the block */
        const int64_t o = ob + (int64_t)threadIdx.x / L;
        const bool active = o < p.O;
        const char *xo = p.x + (active ? ct__cu_doff(o, p.no, p.oshape, p.ostride) * p.xes : 0);
        const int64_t kb = active ? k0 + lane : k1;   /* inactive threads only join the group reductions */
#define CT__CU_NRM_LD(k) ld<C>(xo + ct__cu_doff(k, p.nk, p.kshape, p.kstride) * p.xes, p.xdt)
        C r;
        if (p.mode == CT__CU_LSE) {
            C m = -INFINITY, s = C(0);
            for (int64_t k = kb; k < k1; k += L) m = ct__cu_op_max::comb(m, CT__CU_NRM_LD(k));
            m = ct__cu_group_reduce<C, ct__cu_op_max>(m, L, sm);
            if (isinf(m)) m = C(0);
            for (int64_t k = kb; k < k1; k += L) s += exp(CT__CU_NRM_LD(k) - m);
            s = ct__cu_group_reduce<C, ct__cu_op_sum>(s, L, sm);
            r = log(s) + m;
        } else {
            C a = nrm_init<C>(p.mode);
            for (int64_t k = kb; k < k1; k += L) a = nrm_add<C>(p.mode, a, CT__CU_NRM_LD(k), pp);
            if (p.mode == CT__CU_NRM_INF) r = ct__cu_group_reduce<C, ct__cu_op_max>(a, L, sm);
            else if (p.mode == CT__CU_NRM_NINF) r = ct__cu_group_reduce<C, ct__cu_op_min>(a, L, sm);
            else r = ct__cu_group_reduce<C, ct__cu_op_sum>(a, L, sm);
            if (p.splits > 1) {
                if (active && lane == 0) ((C *)p.part)[o * p.splits + blockIdx.y] = r;
                continue;
            }
            r = nrm_fin<C>(p.mode, r, pp);
        }
#undef CT__CU_NRM_LD
        if (active && lane == 0) st<C>(p.out + o * p.oes, p.odt, r);
    }
}
/* the second pass of a split norm: the partial results, in split order */
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_pnorm_finish(const ct__cu_redp p) {
    using namespace ct__cu_dev;
    for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < p.O; o += (int64_t)gridDim.x * blockDim.x) {
        const C *part = (const C *)p.part + o * p.splits;
        C a = part[0];
        for (int s = 1; s < p.splits; s++) a = nrm_comb<C>(p.mode, a, part[s]);
        st<C>(p.out + o * p.oes, p.odt, nrm_fin<C>(p.mode, a, (C)p.arg));
    }
}
template <class C> static int ct__cu_pnorm_run(const char *op, int dev, ct__cu_redp *p) {
    ct_tensor *part = NULL;
    if (p->splits > 1) {
        int64_t bytes = p->O * p->splits * (int64_t)sizeof(C);
        if (!(part = ct__alloc(CT_UINT8, 1, &bytes, NULL, ct_cuda(dev)))) return -1;
        p->part = ct__ptr(part);
    }
    dim3 grid(ct__cu_blocks(p->O, CT__CU_THREADS / p->lanes, dev), (unsigned)p->splits);
    CT__CU_LAUNCH(grid, CT__CU_THREADS, (*p), ct__cu_pnorm_kernel<C>);
    int rc = ct__cu_launched(op);
    if (!rc && p->splits > 1) {
        CT__CU_LAUNCH(ct__cu_blocks(p->O, CT__CU_THREADS, dev), CT__CU_THREADS, (*p), ct__cu_pnorm_finish<C>);
        rc = ct__cu_launched(op);
    }
    if (part) ct__decref(part);   /* back to the cache: the next use is ordered after these kernels */
    return rc;
}
static int ct__cu_k_pnorm(ct__call *c) {
    ct_tensor *x = c->in[0], *out = c->out[0];
    const char *op = CT__CU_OPNAME(c);
    uint32_t mask;
    ct__outinfo tmp;
    if (ct__reduce_shape(op, x, c->a, &mask, &tmp)) return -1;
    ct__cu_redp p;
    ct__cu_red_init(&p, x, mask);
    p.out = ct__ptr(out);
    p.odt = out->dtype;
    p.oes = (int32_t)ct__dt[out->dtype].size;
    if (c->op == CT__OP_LOGSUMEXP) {
        p.mode = CT__CU_LSE;
    } else {
        double q = c->a->s[0];
        p.arg = q;
        p.mode = q == 0 ? CT__CU_NRM_0 : q == INFINITY ? CT__CU_NRM_INF : q == -INFINITY ? CT__CU_NRM_NINF : q == 1 ? CT__CU_NRM_1 : q == 2 ? CT__CU_NRM_2 : CT__CU_NRM_P;
    }
    if (p.O == 0) return 0;
    if (p.K == 0) return ct__cu_fill(op, out, p.mode == CT__CU_LSE ? -INFINITY : 0.0);   /* the CPU's values for nothing */
    int dev = ct__cu_call_device(c);
    ct__cu_red_plan(&p, dev, p.mode != CT__CU_LSE);
    ct__cu_guard guard(dev, op);
    if (!guard.ok) return -1;
    return c->cdt == CT_FLOAT64 ? ct__cu_pnorm_run<double>(op, dev, &p) : ct__cu_pnorm_run<float>(op, dev, &p);
}

/* ============================================================================
   Softmax: softmax, log_softmax and their backward ops along one dim
   The input (made contiguous) is [O][D][NI]. Rows (NI == 1): a group of 32
   or 256 threads per row (max, then the sum of exponentials, then the
   outputs); otherwise one thread per column, looping over D. Accumulation in
   float (double for float64). Backward: grad * (y - sum(grad * y)) and
   grad - exp(y) * sum(grad), y the forward's output.
   ========================================================================== */
enum { CT__CU_SOFTMAX, CT__CU_LOG_SOFTMAX, CT__CU_SOFTMAX_BW, CT__CU_LOG_SOFTMAX_BW };
typedef struct ct__cu_smp {
    const char *x, *y;            /* forward: x; backward: x is the gradient, y the output */
    char *out;
    int32_t xdt, ydt, odt, xes, yes, oes, kind, lanes;
    int64_t O, D, NI;
} ct__cu_smp;
/* one row or column: elements at base + d * stride, d < D, reduced by the calling group */
template <class C> __device__ __forceinline__ void ct__cu_softmax_line(const ct__cu_smp &p, int64_t base, int64_t stride, int lane, int L,
                                                                      bool active, C *sm) {
    using namespace ct__cu_dev;
    C s = C(0), m = C(0);
    if (p.kind <= CT__CU_LOG_SOFTMAX) {
        m = -INFINITY;
        if (active)
            for (int64_t d = lane; d < p.D; d += L) m = ct__cu_op_max::comb(m, ld<C>(p.x + (base + d * stride) * p.xes, p.xdt));
        m = ct__cu_group_reduce<C, ct__cu_op_max>(m, L, sm);
        if (active)
            for (int64_t d = lane; d < p.D; d += L) s += exp(ld<C>(p.x + (base + d * stride) * p.xes, p.xdt) - m);
    } else if (active) {
        for (int64_t d = lane; d < p.D; d += L) {
            C g = ld<C>(p.x + (base + d * stride) * p.xes, p.xdt);
            s += p.kind == CT__CU_SOFTMAX_BW ? g * ld<C>(p.y + (base + d * stride) * p.yes, p.ydt) : g;
        }
    }
    s = ct__cu_group_reduce<C, ct__cu_op_sum>(s, L, sm);
    if (!active) return;
    const C ls = log(s);
    for (int64_t d = lane; d < p.D; d += L) {
        const int64_t q = base + d * stride;
        C v = ld<C>(p.x + q * p.xes, p.xdt), r;
        switch (p.kind) {
        case CT__CU_SOFTMAX: r = exp(v - m) / s; break;
        case CT__CU_LOG_SOFTMAX: r = v - m - ls; break;
        case CT__CU_SOFTMAX_BW: r = ld<C>(p.y + q * p.yes, p.ydt) * (v - s); break;
        default: r = v - exp(ld<C>(p.y + q * p.yes, p.ydt)) * s; break;
        }
        st<C>(p.out + q * p.oes, p.odt, r);
    }
}
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_softmax_rows(const ct__cu_smp p) {
    __shared__ C sm[9];
    const int L = p.lanes;
    const int64_t per = CT__CU_THREADS / L;
    for (int64_t rb = (int64_t)blockIdx.x * per; rb < p.O; rb += (int64_t)gridDim.x * per) {   /* uniform in the block */
        const int64_t r = rb + (int64_t)threadIdx.x / L;
        ct__cu_softmax_line<C>(p, r * p.D, 1, (int)threadIdx.x % L, L, r < p.O, sm);
    }
}
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_softmax_cols(const ct__cu_smp p) {
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < p.O * p.NI; t += (int64_t)gridDim.x * blockDim.x)
        ct__cu_softmax_line<C>(p, (t / p.NI) * p.D * p.NI + t % p.NI, p.NI, 0, 1, true, (C *)NULL);
}
static int ct__cu_softmax_any(ct__call *c, int kind) {
    const char *op = CT__CU_OPNAME(c);
    int bw = kind >= CT__CU_SOFTMAX_BW;
    ct_tensor *ref = c->in[bw ? 1 : 0], *out = c->out[0];
    int64_t n = ct__shape_numel(out->ndim, out->shape);
    if (n == 0) return 0;
    int dim = ref->ndim ? ct__wrap_dim((int)c->a->i[0], ref->ndim) : 0;
    ct_tensor *x = ct__cu_input(op, c->in[0], out->device, 1), *y = bw ? ct__cu_input(op, c->in[1], out->device, 1) : NULL;
    int rc = -1;
    if (!x || (bw && !y)) goto done;
    {
        ct__cu_smp p;
        memset(&p, 0, sizeof p);
        p.x = ct__ptr(x);
        p.xdt = x->dtype;
        p.xes = (int32_t)ct__dt[x->dtype].size;
        if (y) {
            p.y = ct__ptr(y);
            p.ydt = y->dtype;
            p.yes = (int32_t)ct__dt[y->dtype].size;
        }
        p.out = ct__ptr(out);
        p.odt = out->dtype;
        p.oes = (int32_t)ct__dt[out->dtype].size;
        p.kind = kind;
        p.O = 1;
        p.D = ref->ndim ? ref->shape[dim] : 1;
        p.NI = 1;
        for (int d = 0; d < dim; d++) p.O *= ref->shape[d];
        for (int d = dim + 1; d < ref->ndim; d++) p.NI *= ref->shape[d];
        int dev = ct__cu_call_device(c);
        ct__cu_guard guard(dev, op);
        if (!guard.ok) goto done;
        int f64 = c->cdt == CT_FLOAT64;
        if (p.NI == 1) {
            p.lanes = p.D >= 1024 ? CT__CU_THREADS : 32;
            unsigned blocks = ct__cu_blocks(p.O, CT__CU_THREADS / p.lanes, dev);
            if (f64) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_softmax_rows<double>);
            else CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_softmax_rows<float>);
        } else {
            p.lanes = 1;
            unsigned blocks = ct__cu_blocks(p.O * p.NI, CT__CU_THREADS, dev);
            if (f64) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_softmax_cols<double>);
            else CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_softmax_cols<float>);
        }
        rc = ct__cu_launched(op);
    }
done:
    if (x) ct__decref(x);
    if (y) ct__decref(y);
    return rc;
}
static int ct__cu_k_softmax(ct__call *c) { return ct__cu_softmax_any(c, c->op == CT__OP_LOG_SOFTMAX ? CT__CU_LOG_SOFTMAX : CT__CU_SOFTMAX); }
static int ct__cu_k_softmax_bw(ct__call *c) {
    return ct__cu_softmax_any(c, c->op == CT__OP_LOG_SOFTMAX_BACKWARD ? CT__CU_LOG_SOFTMAX_BW : CT__CU_SOFTMAX_BW);
}

/* ============================================================================
   Gather and scatter (gather, scatter.src, scatter.value, scatter_add)
   One thread per index element: its coordinates give the index value's
   position, the source's and the output's; the value replaces the coordinate
   along dim. An index out of range is recorded on the device and reported
   after the kernel ("gather: index 7 is out of bounds for dimension 1 with
   size 4", the CPU kernel's words). scatter_add adds atomically (float16,
   bfloat16 and 8/16-bit integers through a compare-and-swap on the word that
   holds them): sums of duplicates come in any order, as on PyTorch's GPU path.
   ========================================================================== */
namespace ct__cu_dev {
__device__ unsigned long long ct__ix_bad[2];   /* [0] set when an index was out of range, [1] the index */
__device__ __forceinline__ void atomic_add_f64(double *p, double v) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600
    atomicAdd(p, v);
#else
    unsigned long long *w = (unsigned long long *)p, old = *w, assumed;
    do {
        assumed = old;
        old = atomicCAS(w, assumed, (unsigned long long)__double_as_longlong(__longlong_as_double((long long)assumed) + v));
    } while (assumed != old);
#endif
}
/* *p += v for an element of dtype dt (value v in the compute type C) */
template <class C> __device__ void atomic_add(char *p, int dt, C v) {
    switch (dt) {
    case CT_FLOAT32: atomicAdd((float *)p, (float)v); return;
    case CT_FLOAT64: atomic_add_f64((double *)p, (double)v); return;
    case CT_INT64: atomicAdd((unsigned long long *)p, (unsigned long long)toi(v)); return;
    case CT_INT32: atomicAdd((unsigned *)p, (unsigned)toi(v)); return;
    default: break;
    }
    /* 8- and 16-bit elements: compare-and-swap on the aligned 32-bit word holding them */
    uintptr_t a = (uintptr_t)p;
    unsigned *w = (unsigned *)(a & ~(uintptr_t)3), sh = (unsigned)(a & 3u) * 8u;
    unsigned mask = (dt == CT_FLOAT16 || dt == CT_BFLOAT16 || dt == CT_INT16 ? 0xffffu : 0xffu) << sh;
    unsigned old = *w, assumed;
    do {
        assumed = old;
        unsigned cur = (assumed & mask) >> sh, upd = 0;
        C x = ld<C>((const char *)&cur, dt);   /* little-endian: the element's bytes come first */
        st<C>((char *)&upd, dt, (C)(x + v));
        old = atomicCAS(w, assumed, (assumed & ~mask) | ((upd << sh) & mask));
    } while (assumed != old);
}
} /* namespace ct__cu_dev */

enum { CT__CU_GATHER, CT__CU_SCATTER, CT__CU_SCATTER_FILL, CT__CU_SCATTER_ADD };
typedef struct ct__cu_ixp {
    char *out;
    const char *x, *src;
    const int64_t *idx;
    int32_t nd, dim, es, mode, dt;
    int64_t n, size;                 /* index elements; size of the indexed dim */
    int64_t ish[CT_MAX_DIMS];        /* the index's shape */
    int64_t ist[CT_MAX_DIMS], xst[CT_MAX_DIMS], ost[CT_MAX_DIMS], sst[CT_MAX_DIMS];   /* element strides */
    uint64_t bits;                   /* scatter.value: the value's bits in dt */
} ct__cu_ixp;
__device__ __forceinline__ void ct__cu_move(char *d, const char *s, int es) {
    switch (es) {
    case 1: *(uint8_t *)d = *(const uint8_t *)s; break;
    case 2: *(uint16_t *)d = *(const uint16_t *)s; break;
    case 4: *(uint32_t *)d = *(const uint32_t *)s; break;
    default: *(uint64_t *)d = *(const uint64_t *)s; break;
    }
}
/* the offsets of index element i (C order over the index's shape): in the index,
   x, out and src (element strides), in a counts tensor of strides cst (when
   given), and its coordinate j along p.dim */
typedef struct ct__cu_ixo { int64_t io, xo, oo, so, co, j; } ct__cu_ixo;
__device__ __forceinline__ ct__cu_ixo ct__cu_ix_at(const ct__cu_ixp &p, int64_t i, const int64_t *cst) {
    ct__cu_ixo o = {0, 0, 0, 0, 0, 0};
    for (int d = p.nd - 1; d >= 0; d--) {
        int64_t q = i % p.ish[d];
        i /= p.ish[d];
        o.io += q * p.ist[d];
        o.xo += q * p.xst[d];
        o.oo += q * p.ost[d];
        o.so += q * p.sst[d];
        if (cst) o.co += q * cst[d];
        if (d == p.dim) o.j = q;
    }
    return o;
}
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_ix_kernel(const ct__cu_ixp p) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += (int64_t)gridDim.x * blockDim.x) {
        const ct__cu_ixo at = ct__cu_ix_at(p, i, NULL);
        const int64_t xo = at.xo, oo = at.oo, so = at.so, j = at.j;
        int64_t v = p.idx[at.io];
        if (v < 0 || v >= p.size) {
            if (atomicCAS(&ct__cu_dev::ct__ix_bad[0], 0ull, 1ull) == 0ull) ct__cu_dev::ct__ix_bad[1] = (unsigned long long)v;
            continue;
        }
        if (p.mode == CT__CU_GATHER) {
            ct__cu_move(p.out + oo * p.es, p.x + (xo + (v - j) * p.xst[p.dim]) * p.es, p.es);
            continue;
        }
        char *t = p.out + (oo + (v - j) * p.ost[p.dim]) * p.es;
        if (p.mode == CT__CU_SCATTER) ct__cu_move(t, p.src + so * p.es, p.es);
        else if (p.mode == CT__CU_SCATTER_FILL) {
            uint64_t b = p.bits;
            ct__cu_move(t, (const char *)&b, p.es);
        }
        else ct__cu_dev::atomic_add<C>(t, p.dt, ct__cu_dev::ld<C>(p.src + so * p.es, p.dt));
    }
}
static int ct__cu_ix_run(const char *op, int dev, ct__cu_ixp *p) {
    if (p->n == 0) return 0;
    ct__cu_guard guard(dev, op);
    if (!guard.ok) return -1;
    unsigned long long rec[2] = {0, 0};
    cudaStream_t st = ct__cu_cur_stream();
    cudaError_t e = cudaMemcpyToSymbolAsync(ct__cu_dev::ct__ix_bad, rec, sizeof rec, 0, cudaMemcpyHostToDevice, st);
    if (e != cudaSuccess) return ct__cu_fail(op, e);
    unsigned blocks = ct__cu_blocks(p->n, CT__CU_THREADS, dev);
    if (p->mode != CT__CU_SCATTER_ADD || CT__ISINT(p->dt) || p->dt == CT_BOOL) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (*p), ct__cu_ix_kernel<int64_t>);
    else if (p->dt == CT_FLOAT64) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (*p), ct__cu_ix_kernel<double>);
    else CT__CU_LAUNCH(blocks, CT__CU_THREADS, (*p), ct__cu_ix_kernel<float>);
    if (ct__cu_launched(op)) return -1;
    e = cudaMemcpyFromSymbolAsync(rec, ct__cu_dev::ct__ix_bad, sizeof rec, 0, cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);   /* waits for the kernel */
    if (e != cudaSuccess) return ct__cu_fail(op, e);
    if (rec[0])
        return ct__failed(CT_ERR_INDEX, "%s: index %lld is out of bounds for dimension %d with size %lld", op, (long long)rec[1], (int)p->dim,
                          (long long)p->size);
    return 0;
}
static void ct__cu_ix_geometry(ct__cu_ixp *p, const ct_tensor *idx) {
    ct__geo gi = ct__geo_ne(idx);
    p->nd = gi.nd;
    p->n = ct__shape_numel(idx->ndim, idx->shape);
    p->idx = (const int64_t *)ct__ptr(idx);
    for (int d = 0; d < gi.nd; d++) {
        p->ish[d] = gi.sh[d];
        p->ist[d] = gi.st[d];
    }
}
static int ct__cu_k_gather(ct__call *c) {
    ct_tensor *out = c->out[0];
    ct_tensor *x = ct__cu_input("gather", c->in[0], out->device, 0), *idx = x ? ct__cu_input("gather", c->in[1], out->device, 0) : NULL;
    int rc = -1;
    if (x && idx) {
        ct__cu_ixp p;
        memset(&p, 0, sizeof p);
        ct__cu_ix_geometry(&p, idx);
        ct__geo gx = ct__geo_ne(x), go = ct__geo_ne(out);
        p.mode = CT__CU_GATHER;
        p.dim = ct__wrap_dim((int)c->a->i[0], x->ndim);
        p.dt = x->dtype;
        p.es = (int32_t)ct__dt[x->dtype].size;
        p.size = gx.sh[p.dim];
        p.out = ct__ptr(out);
        p.x = ct__ptr(x);
        for (int d = 0; d < p.nd; d++) {
            p.xst[d] = gx.st[d];
            p.ost[d] = go.st[d];
        }
        rc = ct__cu_ix_run("gather", out->device.index, &p);
    }
    if (x) ct__decref(x);
    if (idx) ct__decref(idx);
    return rc;
}
static int ct__cu_k_scatter(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    ct_tensor *x = c->in[0], *out = c->out[0], *idx = NULL, *src = NULL;
    int rc = -1;
    if (ct__cu_out_on_device(c, out)) return -1;
    if (out != x && ct__cu_copy_dev(op, out, x)) return -1;
    if (!(idx = ct__cu_input(op, c->in[1], out->device, 0))) return -1;
    if (c->nin > 2) {
        src = c->in[2];
        if (src->storage == out->storage) {   /* x.scatter_(d, i, x): read a copy */
            if ((src = ct__cu_empty_as(src, src->dtype, out->device)) && ct__cu_copy_dev(op, src, c->in[2])) { ct__decref(src); src = NULL; }
        } else {
            src = ct__cu_input(op, src, out->device, 0);
        }
        if (!src) goto done;
    }
    {
        ct__cu_ixp p;
        memset(&p, 0, sizeof p);
        ct__cu_ix_geometry(&p, idx);
        ct__geo go = ct__geo_ne(out), gs = src ? ct__geo_ne(src) : go;
        p.mode = c->op == CT__OP_SCATTER_ADD ? CT__CU_SCATTER_ADD : c->op == CT__OP_SCATTER_VALUE ? CT__CU_SCATTER_FILL : CT__CU_SCATTER;
        p.dim = ct__wrap_dim((int)c->a->i[0], out->ndim);
        p.dt = out->dtype;
        p.es = (int32_t)ct__dt[out->dtype].size;
        p.size = go.sh[p.dim];
        p.out = ct__ptr(out);
        p.src = src ? ct__ptr(src) : NULL;
        for (int d = 0; d < p.nd; d++) {
            p.ost[d] = go.st[d];
            p.sst[d] = gs.st[d];
        }
        if (p.mode == CT__CU_SCATTER_FILL) {
            unsigned char b[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            ct__store_f64(b, out->dtype, c->a->s[0]);
            memcpy(&p.bits, b, 8);
        }
        rc = ct__cu_ix_run(op, out->device.index, &p);
    }
done:
    ct__decref(idx);
    if (src) ct__decref(src);
    return rc;
}

/* ============================================================================
   Matrix products (cuBLAS): mm, bmm, addmm, baddbmm, mv, addmv, dot, vdot
   Every product is one cublasGemmEx or cublasGemmStridedBatchedEx call (a
   vector is a one-column matrix). cuBLAS is column-major: the row-major
   product C = A B is computed as C^T = B^T A^T, where a row-major matrix is
   its transpose in column-major order, so no operand is copied as long as
   each has a unit stride in one of its two dims (transposed views included);
   others are made contiguous first. A batch stride of 0 (an expanded operand)
   is passed as it is. float32 computes in float32, or TF32 when
   ct_cuda_set_allow_tf32(1); float16 and bfloat16 accumulate in float32;
   float64 in float64. Integer products fail as on PyTorch's GPU path
   ("addmm_cuda" not implemented for 'Long').
   ========================================================================== */
static int ct__cu_tf32;   /* torch.backends.cuda.matmul.allow_tf32 (default False) */
static cublasHandle_t ct__cu_blas[CTENSOR_CUDA_MAX_DEVICES];
static std::mutex ct__cu_blas_mutex;   /* one handle per device; calls are serialized */

static int ct__cu_fp16_rpr = 1, ct__cu_bf16_rpr = 1;   /* allow_fp16 / bf16_reduced_precision_reduction (default True) */

static const char *ct__cu_blas_msg(cublasStatus_t s) { return cublasGetStatusString(s); }
/* under ct__cu_blas_mutex, on device dev: its handle (made on first use; stage 1
   when that fails), set to the current stream and to the math mode for inputs of
   type ty (stage 2 when a setting fails): float16 / bfloat16 products may reduce
   in their own precision unless that was disallowed */
static cublasStatus_t ct__cu_blas_ready(int dev, cudaDataType_t ty, int *stage) {
    cublasStatus_t s;
    if (!ct__cu_blas[dev] && (s = cublasCreate(&ct__cu_blas[dev])) != CUBLAS_STATUS_SUCCESS) {
        ct__cu_blas[dev] = NULL;
        *stage = 1;
        return s;
    }
    *stage = 2;
    if ((s = cublasSetStream(ct__cu_blas[dev], ct__cu_stream_of(dev))) != CUBLAS_STATUS_SUCCESS) return s;
    int strict = (ty == CUDA_R_16F && !CT__LOAD(&ct__cu_fp16_rpr)) || (ty == CUDA_R_16BF && !CT__LOAD(&ct__cu_bf16_rpr));
    return cublasSetMathMode(ct__cu_blas[dev], strict ? CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION : CUBLAS_DEFAULT_MATH);
}
/* X (r x c, element strides sr, sc) as cuBLAS sees it: trans 0 when its rows are
   contiguous (a c x r column-major matrix, leading dim ld >= c), 1 when its columns
   are (an r x c one, ld >= r). 0 when neither fits. */
static int ct__cu_blas_layout(int64_t r, int64_t c, int64_t sr, int64_t sc, int *trans, int64_t *ld) {
    int64_t mr = r > 1 ? r : 1, mc = c > 1 ? c : 1;
    if ((sc == 1 || c == 1) && (r == 1 || sr >= mc)) {
        *trans = 0;
        *ld = r == 1 ? mc : sr;
        return 1;
    }
    if ((sr == 1 || r == 1) && (c == 1 || sc >= mr)) {
        *trans = 1;
        *ld = c == 1 ? mr : sc;
        return 1;
    }
    return 0;
}
/* One matrix operand: batch stride, rows, cols, row and col strides of tensor t
   (a vector is a column: rows = its size), made contiguous when cuBLAS cannot take it. */
typedef struct ct__cu_mat { ct_tensor *t; const char *p; int trans; int64_t ld, bstride; } ct__cu_mat;
static int ct__cu_mat_make(const char *op, ct_tensor *t, int batched, ct__cu_mat *m) {
    int b = batched ? 1 : 0;
    int64_t r = t->shape[b], c = t->ndim > b + 1 ? t->shape[b + 1] : 1;
    int64_t sr = t->strides[b], sc = t->ndim > b + 1 ? t->strides[b + 1] : 1;
    m->t = NULL;
    if (!ct__cu_blas_layout(r, c, sr, sc, &m->trans, &m->ld)) {
        if (!(m->t = ct__alloc(t->dtype, t->ndim, t->shape, NULL, t->device))) return -1;
        if (ct__cu_copy_dev(op, m->t, t)) { ct__decref(m->t); m->t = NULL; return -1; }
        t = m->t;
        sr = t->strides[b];
        sc = t->ndim > b + 1 ? t->strides[b + 1] : 1;
        ct__cu_blas_layout(r, c, sr, sc, &m->trans, &m->ld);
    }
    m->p = ct__ptr(t);
    m->bstride = batched ? t->strides[0] : 0;
    return 0;
}
static int ct__cu_blas_types(ct_dtype dt, cudaDataType_t *ty, cublasComputeType_t *ct) {
    switch (dt) {
    case CT_FLOAT32: *ty = CUDA_R_32F; *ct = ct__cu_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F; return 1;
    case CT_FLOAT64: *ty = CUDA_R_64F; *ct = CUBLAS_COMPUTE_64F; return 1;
    case CT_FLOAT16: *ty = CUDA_R_16F; *ct = CUBLAS_COMPUTE_32F; return 1;
    case CT_BFLOAT16: *ty = CUDA_R_16BF; *ct = CUBLAS_COMPUTE_32F; return 1;
    default: return 0;
    }
}
/* out (batch x M x N, contiguous) = alpha * a @ b + beta * out, a (batch x M x K), b (batch x K x N);
   2-D operands when batch < 0; b may be a vector (N = 1) and a a row (dot) */
static int ct__cu_gemm(const char *op, int dev, ct_tensor *out, ct_tensor *a, ct_tensor *b, double alpha, double beta, int batched,
                       int64_t batch, int64_t M, int64_t N, int64_t K) {
    cudaDataType_t ty;
    cublasComputeType_t ctype;
    if (!ct__cu_blas_types(out->dtype, &ty, &ctype)) return -1;
    if (M > INT32_MAX || N > INT32_MAX || K > INT32_MAX || batch > INT32_MAX)
        return ct__failed(CT_ERR_UNSUPPORTED, "%s: a dimension larger than 2^31-1 (M=%lld, N=%lld, K=%lld, batch=%lld) is not supported on CUDA", op,
                          (long long)M, (long long)N, (long long)K, (long long)batch);
    ct__cu_mat ma, mb;
    if (ct__cu_mat_make(op, a, batched, &ma)) return -1;
    if (ct__cu_mat_make(op, b, batched, &mb)) { if (ma.t) ct__decref(ma.t); return -1; }
    int rc = 0, stage = 0;   /* what failed: 1 cublasCreate, 2 the product */
    cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
    cudaError_t launch = cudaSuccess;
    {
        ct__cu_guard guard(dev, op);
        if (!guard.ok) {
            rc = -1;
        } else {
            std::lock_guard<std::mutex> lock(ct__cu_blas_mutex);   /* (errors are reported after it is released) */
            if ((s = ct__cu_blas_ready(dev, ty, &stage)) == CUBLAS_STATUS_SUCCESS) {
                float af = (float)alpha, bf = (float)beta;
                const void *pa = ctype == CUBLAS_COMPUTE_64F ? (const void *)&alpha : (const void *)&af;
                const void *pb = ctype == CUBLAS_COMPUTE_64F ? (const void *)&beta : (const void *)&bf;
                /* C^T (N x M, ld N) = op(B') (N x K) op(A') (K x M) */
                cublasOperation_t opb = mb.trans ? CUBLAS_OP_T : CUBLAS_OP_N, opa = ma.trans ? CUBLAS_OP_T : CUBLAS_OP_N;
                int ldc = (int)(N > 1 ? N : 1);
                if (!batched)
                    s = cublasGemmEx(ct__cu_blas[dev], opb, opa, (int)N, (int)M, (int)K, pa, mb.p, ty, (int)mb.ld, ma.p, ty, (int)ma.ld, pb,
                                     ct__ptr(out), ty, ldc, ctype, CUBLAS_GEMM_DEFAULT);
                else
                    s = cublasGemmStridedBatchedEx(ct__cu_blas[dev], opb, opa, (int)N, (int)M, (int)K, pa, mb.p, ty, (int)mb.ld, (long long)mb.bstride,
                                                   ma.p, ty, (int)ma.ld, (long long)ma.bstride, pb, ct__ptr(out), ty, ldc, (long long)(M * N),
                                                   (int)batch, ctype, CUBLAS_GEMM_DEFAULT);
                stage = 2;
                if (s == CUBLAS_STATUS_SUCCESS) launch = cudaGetLastError();
            }
        }
    }
    if (stage == 1) rc = ct__failed(CT_ERR_DEVICE, "%s: cuBLAS error: %s (cublasCreate)", op, ct__cu_blas_msg(s));
    else if (stage == 2 && s != CUBLAS_STATUS_SUCCESS) rc = ct__failed(CT_ERR_DEVICE, "%s: cuBLAS error: %s", op, ct__cu_blas_msg(s));
    else if (stage == 2 && launch != cudaSuccess) rc = ct__cu_fail(op, launch);
    if (ma.t) ct__decref(ma.t);
    if (mb.t) ct__decref(mb.t);
    return rc;
}
static int ct__cu_k_blas(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    ct_tensor *out = c->out[0], *bias = NULL, *a, *b, *res = out;
    double alpha = 1.0, beta = 0.0;
    int batched = 0, rc;
    int dev = ct__cu_call_device(c);
    switch (c->op) {
    case CT__OP_ADDMM: case CT__OP_BADDBMM: case CT__OP_ADDMV:
        bias = c->in[0]; a = c->in[1]; b = c->in[2];
        beta = c->a->s[0];
        alpha = c->a->s[1];
        break;
    default:
        a = c->in[0]; b = c->in[1];
        break;
    }
    batched = c->op == CT__OP_BMM || c->op == CT__OP_BADDBMM;
    cudaDataType_t ty;
    cublasComputeType_t ctype;
    if (!ct__cu_blas_types(a->dtype, &ty, &ctype)) {
        const char *k = batched ? (c->op == CT__OP_BMM ? "bmm_cuda" : "baddbmm_cuda")
                      : c->op == CT__OP_MV || c->op == CT__OP_ADDMV ? "addmv_impl_cuda" : c->op == CT__OP_DOT || c->op == CT__OP_VDOT ? "dot" : "addmm_cuda";
        return ct__failed(CT_ERR_DTYPE, "%s: \"%s\" not implemented for '%s'", op, k, CT__DTNAME(a->dtype));
    }
    int64_t M, N, K, batch = 1;
    if (c->op == CT__OP_DOT || c->op == CT__OP_VDOT) {   /* (1 x K) @ (K x 1), a seen as a row */
        int64_t shape[2], strides[2];
        shape[0] = 1;
        shape[1] = a->shape[0];
        strides[0] = a->shape[0];
        strides[1] = a->strides[0];
        ct_tensor row = ct__ix_view(a, 2, shape, strides, a->offset);
        K = a->shape[0];
        if (K == 0) return ct__cu_fill(op, out, 0.0);
        return ct__cu_gemm(op, dev, out, &row, b, 1.0, 0.0, 0, 1, 1, 1, K);
    }
    if (c->op == CT__OP_MV || c->op == CT__OP_ADDMV) { M = a->shape[0]; K = a->shape[1]; N = 1; }
    else if (batched) { batch = a->shape[0]; M = a->shape[1]; K = a->shape[2]; N = b->shape[2]; }
    else { M = a->shape[0]; K = a->shape[1]; N = b->shape[1]; }
    if (ct__shape_numel(out->ndim, out->shape) == 0) return 0;
    /* the result in the output's dtype and a contiguous layout (a temporary otherwise) */
    if (out->dtype != a->dtype || !ct__is_contig(out)) {
        if (!(res = ct__alloc(a->dtype, out->ndim, out->shape, NULL, out->device))) return -1;
    }
    if (bias && beta != 0.0) {
        rc = ct__cu_copy_dev(op, res, bias);   /* broadcast into the result, then beta */
    } else {
        beta = 0.0;   /* PyTorch ignores the input (NaN included) when beta is 0 */
        rc = K == 0 ? ct__cu_fill(op, res, 0.0) : 0;
    }
    if (!rc && K > 0) rc = ct__cu_gemm(op, dev, res, a, b, alpha, beta, batched, batch, M, N, K);
    else if (!rc && K == 0 && beta != 0.0 && beta != 1.0) {   /* alpha * (empty product) + beta * bias */
        ct_tensor *in[2];
        in[0] = res;
        if (!(in[1] = ct__wrap(beta, CT_FLOAT64))) rc = -1;
        else rc = ct__cu_ew<ct__cu_dev::b_MUL, true>(op, dev, res, 2, in, res->dtype, res->dtype, NULL, 0);
        ct__unwrap(in[1]);
    }
    if (res != out) {
        if (!rc) rc = ct__cu_copy_dev(op, out, res);
        ct__decref(res);
    }
    return rc;
}

/* ============================================================================
   Normalization, embedding and loss kernels (ctensor_nn.h's ops) and index_add
   The kernels of ctensor_nn.h's ops, with the CPU kernels' attributes, outputs,
   saved values and errors (ct__k_ln, ct__k_bn, ct__k_embedding, ct__k_ce_fused,
   ct__k_pwloss and their backward ops). They exist when ctensor_nn.h's
   implementation comes before this header's in the translation unit (it is an
   #error the other way round); index_add, which embedding's backward uses, is
   a core op and is always here. Accumulation in float for float32 (double for
   float64), as PyTorch's CUDA kernels; the CPU path sums in double, so float32
   results differ from the CPU's by rounding.
     layer_norm           a group of 32 or 256 threads per row: mean, then the
                          centred sum of squares (two passes over the row), then
                          the outputs; mean and rstd are outputs 1 and 2
     layer_norm_backward  the input gradient a row per group as the forward;
                          weight and bias gradients by columns: a block of 32
                          columns x 8 row lanes, summed in shared memory, the
                          rows split in chunks (summed by a second kernel) when
                          there are few columns
     batch_norm           a block per channel (training: mean, biased variance
                          for invstd, the unbiased one as output 3 for the
                          running statistics, which ct_batch_norm updates with
                          the core's in-place ops); NCHW or channels-last
     batch_norm_backward  a block per channel; batch_norm_eval elementwise
     embedding            a thread per output element; an index out of range is
                          recorded on the device and reported after the kernel
                          (one flag read back, as gather), the CPU's message
     index_add            indices checked first (one flag read back, nothing
                          written when one is out of range), then an atomic add
                          per source element: duplicate indices add in any order
                          (nondeterministic float sums, as PyTorch's CUDA
                          index_add and embedding backward)
     cross_entropy_loss   a group per row (max, sum of exponentials, the target's
                          term); reductions by one block over the rows, in
                          double; a target out of range is the CPU's error
     ..._backward         the mean's divisor (the non-ignored count) and the
                          upstream gradient read on the device: no host wait
     mse_loss, binary_cross_entropy_with_logits and their backward ops:
                          elementwise; sum and mean by per-block partial sums
                          and one block that adds them (deterministic)
     pixel_shuffle, pixel_unshuffle: a thread per output element, any strides
   ========================================================================== */
typedef struct ct__cu_nnp {
    const char *x, *g, *w, *b, *m, *r;   /* x: input; g: incoming gradient; w, b: weight, bias; m, r: saved mean, rstd / invstd */
    char *y, *o1, *o2, *o3;              /* outputs (layer_norm's saved mean and rstd o1, o2 may be NULL) */
    const char *res;                     /* layer_norm: a residual added to each row before the norm, or NULL */
    char *sum;                           /* layer_norm with res: x + res written here, or NULL */
    int32_t dt, es, lanes, cl;           /* the dtype of every operand; element size; threads per row; channels-last */
    int64_t M, N, C, HW;                 /* layer_norm: M rows of N; batch_norm: N samples, C channels, HW pixels (M = N HW) */
    double eps;
} ct__cu_nnp;
/* batch_norm: element k (of the M = N HW) of channel c, an offset in elements */
__device__ __forceinline__ int64_t ct__cu_bn_off(const ct__cu_nnp &p, int64_t c, int64_t k) {
    const int64_t n = k / p.HW, s = k - n * p.HW;
    return p.cl ? (n * p.HW + s) * p.C + c : (n * p.C + c) * p.HW + s;
}

/* ---- layer_norm forward: rows of p.N, one group of p.lanes threads each ---- */
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_ln_fwd(const ct__cu_nnp p) {
    using namespace ct__cu_dev;
    __shared__ C sm[9];
    const int L = p.lanes, lane = (int)threadIdx.x % L;
    const int64_t per = CT__CU_THREADS / L;
    for (int64_t rb = (int64_t)blockIdx.x * per; rb < p.M; rb += (int64_t)gridDim.x * per) {   /* uniform in the block */
        const int64_t r = rb + (int64_t)threadIdx.x / L;
        const bool on = r < p.M;
        const char *x = p.x + (on ? r : 0) * p.N * p.es;
        const char *xr = p.res ? p.res + (on ? r : 0) * p.N * p.es : NULL;   /* the fused residual, added as each element is read */
        C s = C(0), q = C(0);
        if (on)
            for (int64_t j = lane; j < p.N; j += L) s += ld<C>(x + j * p.es, p.dt) + (xr ? ld<C>(xr + j * p.es, p.dt) : C(0));
        s = ct__cu_group_reduce<C, ct__cu_op_sum>(s, L, sm);
        const C mu = p.N ? s / (C)p.N : C(0);
        if (on)
            for (int64_t j = lane; j < p.N; j += L) {
                C d = ld<C>(x + j * p.es, p.dt) + (xr ? ld<C>(xr + j * p.es, p.dt) : C(0)) - mu;
                q += d * d;
            }
        q = ct__cu_group_reduce<C, ct__cu_op_sum>(q, L, sm);
        if (!on) continue;   /* (the loop bound is the block's: everyone reaches the next reduction) */
        const C rs = C(1) / sqrt((p.N ? q / (C)p.N : C(0)) + (C)p.eps), c0 = -mu * rs;
        if (lane == 0 && p.o1) {
            st<C>(p.o1 + r * p.es, p.dt, mu);
            st<C>(p.o2 + r * p.es, p.dt, rs);
        }
        char *y = p.y + r * p.N * p.es;
        for (int64_t j = lane; j < p.N; j += L) {
            const C v = ld<C>(x + j * p.es, p.dt) + (xr ? ld<C>(xr + j * p.es, p.dt) : C(0));
            if (p.sum) st<C>(p.sum + (r * p.N + j) * p.es, p.dt, v);
            st<C>(y + j * p.es, p.dt, (v * rs + c0) * ld<C>(p.w + j * p.es, p.dt) + ld<C>(p.b + j * p.es, p.dt));
        }
    }
}
/* ---- layer_norm backward, the input gradient of each row:
   gx = rs g w - rs^3 (x - mu) sum(g w (x - mu)) / N - rs sum(g w) / N ---- */
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_ln_bwd_rows(const ct__cu_nnp p) {
    using namespace ct__cu_dev;
    __shared__ C sm[9];
    const int L = p.lanes, lane = (int)threadIdx.x % L;
    const int64_t per = CT__CU_THREADS / L;
    for (int64_t rb = (int64_t)blockIdx.x * per; rb < p.M; rb += (int64_t)gridDim.x * per) {
        const int64_t r = rb + (int64_t)threadIdx.x / L;
        const bool on = r < p.M;
        const int64_t o = (on ? r : 0) * p.N * p.es;
        const C mu = on ? ld<C>(p.m + r * p.es, p.dt) : C(0), rs = on ? ld<C>(p.r + r * p.es, p.dt) : C(0);
        C db = C(0), ds = C(0);
        if (on)
            for (int64_t j = lane; j < p.N; j += L) {
                C gw = ld<C>(p.g + o + j * p.es, p.dt) * ld<C>(p.w + j * p.es, p.dt);
                db += gw;
                ds += gw * (ld<C>(p.x + o + j * p.es, p.dt) - mu);
            }
        db = ct__cu_group_reduce<C, ct__cu_op_sum>(db, L, sm);
        ds = ct__cu_group_reduce<C, ct__cu_op_sum>(ds, L, sm);
        if (!on) continue;
        const C B = -rs * rs * rs * ds / (C)p.N, D = -rs * db / (C)p.N;
        for (int64_t j = lane; j < p.N; j += L) {
            C gw = ld<C>(p.g + o + j * p.es, p.dt) * ld<C>(p.w + j * p.es, p.dt);
            st<C>(p.y + o + j * p.es, p.dt, rs * gw + B * (ld<C>(p.x + o + j * p.es, p.dt) - mu) + D);
        }
    }
}
/* ---- layer_norm backward, weight and bias gradients: column sums over the M rows of
   g (x - mu) rstd and of g. A block takes 32 columns, its 8 warps a share of the rows
   [blockIdx.y chunk, + chunk); with several row chunks (few columns, many rows: the
   GPU would idle) each block writes its sums to part [chunks][2 N] and a second
   kernel adds them up in chunk order (deterministic) ---- */
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_ln_bwd_cols(const ct__cu_nnp p, C *part, int64_t chunk) {
    using namespace ct__cu_dev;
    __shared__ C sa[CT__CU_THREADS / 32][33], sb[CT__CU_THREADS / 32][33];
    const int tx = (int)threadIdx.x & 31, ty = (int)threadIdx.x >> 5, ny = CT__CU_THREADS / 32;
    const int64_t r0 = (int64_t)blockIdx.y * chunk, r1 = p.M < r0 + chunk ? p.M : r0 + chunk;
    for (int64_t j0 = (int64_t)blockIdx.x * 32; j0 < p.N; j0 += (int64_t)gridDim.x * 32) {   /* uniform in the block */
        const int64_t j = j0 + tx;
        C a = C(0), b = C(0);
        if (j < p.N)
            for (int64_t r = r0 + ty; r < r1; r += ny) {
                C g = ld<C>(p.g + (r * p.N + j) * p.es, p.dt);
                a += g * ((ld<C>(p.x + (r * p.N + j) * p.es, p.dt) - ld<C>(p.m + r * p.es, p.dt)) * ld<C>(p.r + r * p.es, p.dt));
                b += g;
            }
        sa[ty][tx] = a;
        sb[ty][tx] = b;
        __syncthreads();
        if (ty == 0 && j < p.N) {
            for (int k = 1; k < ny; k++) {
                a += sa[k][tx];
                b += sb[k][tx];
            }
            if (gridDim.y > 1) {
                part[(int64_t)blockIdx.y * 2 * p.N + j] = a;
                part[(int64_t)blockIdx.y * 2 * p.N + p.N + j] = b;
            } else {
                st<C>(p.o1 + j * p.es, p.dt, a);
                st<C>(p.o2 + j * p.es, p.dt, b);
            }
        }
        __syncthreads();   /* before sa, sb are written again */
    }
}
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_ln_bwd_cols_finish(const ct__cu_nnp p, const C *part, int chunks) {
    for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < p.N; j += (int64_t)gridDim.x * blockDim.x) {
        C a = C(0), b = C(0);
        for (int s = 0; s < chunks; s++) {
            a += part[(int64_t)s * 2 * p.N + j];
            b += part[(int64_t)s * 2 * p.N + p.N + j];
        }
        ct__cu_dev::st<C>(p.o1 + j * p.es, p.dt, a);
        ct__cu_dev::st<C>(p.o2 + j * p.es, p.dt, b);
    }
}
template <class C> static int ct__cu_ln_bwd_cols_run(const char *op, int dev, const ct__cu_nnp &p) {
    const int64_t bx = (p.N + 31) / 32, sms = ct__cu_sms(dev);
    int64_t chunks = 1, chunk = p.M > 0 ? p.M : 1;
    if (bx < 2 * sms && p.M >= 512) {   /* rows split so that about 2 blocks per SM run, 256 rows or more each */
        int64_t s = (2 * sms + bx - 1) / bx, by_m = p.M / 256;
        if (s > by_m) s = by_m;
        if (s > 1024) s = 1024;
        if (s > 1) {
            chunk = (p.M + s - 1) / s;
            chunks = (p.M + chunk - 1) / chunk;
        }
    }
    ct_tensor *part = NULL;
    if (chunks > 1) {
        int64_t n = chunks * 2 * p.N * (int64_t)sizeof(C);
        if (!(part = ct__alloc(CT_UINT8, 1, &n, NULL, ct_cuda(dev)))) return -1;
    }
    C *pp = part ? (C *)ct__ptr(part) : NULL;
    dim3 grid(ct__cu_blocks(p.N, 32, dev), (unsigned)chunks);
    CT__CU_LAUNCH(grid, CT__CU_THREADS, (p, pp, chunk), ct__cu_ln_bwd_cols<C>);
    int rc = ct__cu_launched(op);
    if (!rc && chunks > 1) {
        CT__CU_LAUNCH(ct__cu_blocks(p.N, CT__CU_THREADS, dev), CT__CU_THREADS, (p, (const C *)pp, (int)chunks), ct__cu_ln_bwd_cols_finish<C>);
        rc = ct__cu_launched(op);
    }
    if (part) ct__decref(part);   /* back to the cache: its next use is ordered after these kernels */
    return rc;
}

/* ---- batch_norm training forward: a block per channel ---- */
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_bn_fwd(const ct__cu_nnp p) {
    using namespace ct__cu_dev;
    __shared__ C sm[9];
    for (int64_t c = blockIdx.x; c < p.C; c += gridDim.x) {   /* uniform in the block */
        C s = C(0), q = C(0);
        for (int64_t k = threadIdx.x; k < p.M; k += CT__CU_THREADS) s += ld<C>(p.x + ct__cu_bn_off(p, c, k) * p.es, p.dt);
        s = ct__cu_group_reduce<C, ct__cu_op_sum>(s, CT__CU_THREADS, sm);
        const C mu = p.M ? s / (C)p.M : C(0);
        for (int64_t k = threadIdx.x; k < p.M; k += CT__CU_THREADS) {
            C d = ld<C>(p.x + ct__cu_bn_off(p, c, k) * p.es, p.dt) - mu;
            q += d * d;
        }
        q = ct__cu_group_reduce<C, ct__cu_op_sum>(q, CT__CU_THREADS, sm);
        const C is = C(1) / sqrt((p.M ? q / (C)p.M : C(0)) + (C)p.eps);
        if (threadIdx.x == 0) {
            st<C>(p.o1 + c * p.es, p.dt, mu);
            st<C>(p.o2 + c * p.es, p.dt, is);
            st<C>(p.o3 + c * p.es, p.dt, p.M > 1 ? q / (C)(p.M - 1) : C(NAN));
        }
        const C A = is * ld<C>(p.w + c * p.es, p.dt), B = ld<C>(p.b + c * p.es, p.dt) - mu * A;
        for (int64_t k = threadIdx.x; k < p.M; k += CT__CU_THREADS) {
            const int64_t o = ct__cu_bn_off(p, c, k) * p.es;
            st<C>(p.y + o, p.dt, ld<C>(p.x + o, p.dt) * A + B);
        }
    }
}
/* ---- batch_norm backward: a block per channel.
   gx = (g - mean(g) - (x - mu) invstd^2 mean(g (x - mu))) invstd w ---- */
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_bn_bwd(const ct__cu_nnp p) {
    using namespace ct__cu_dev;
    __shared__ C sm[9];
    for (int64_t c = blockIdx.x; c < p.C; c += gridDim.x) {
        const C mu = ld<C>(p.m + c * p.es, p.dt), is = ld<C>(p.r + c * p.es, p.dt);
        C sg = C(0), dot = C(0);
        for (int64_t k = threadIdx.x; k < p.M; k += CT__CU_THREADS) {
            const int64_t o = ct__cu_bn_off(p, c, k) * p.es;
            C g = ld<C>(p.g + o, p.dt);
            sg += g;
            dot += g * (ld<C>(p.x + o, p.dt) - mu);
        }
        sg = ct__cu_group_reduce<C, ct__cu_op_sum>(sg, CT__CU_THREADS, sm);
        dot = ct__cu_group_reduce<C, ct__cu_op_sum>(dot, CT__CU_THREADS, sm);
        if (threadIdx.x == 0) {
            st<C>(p.o1 + c * p.es, p.dt, dot * is);
            st<C>(p.o2 + c * p.es, p.dt, sg);
        }
        const C A = is * ld<C>(p.w + c * p.es, p.dt), B = -dot * is * is / (C)p.M * A, D = -sg / (C)p.M * A;
        for (int64_t k = threadIdx.x; k < p.M; k += CT__CU_THREADS) {
            const int64_t o = ct__cu_bn_off(p, c, k) * p.es;
            st<C>(p.y + o, p.dt, A * ld<C>(p.g + o, p.dt) + B * (ld<C>(p.x + o, p.dt) - mu) + D);
        }
    }
}
/* ---- batch_norm in evaluation mode: y = x scale[c] + shift[c], a thread per element ---- */
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_bn_eval(const ct__cu_nnp p) {
    using namespace ct__cu_dev;
    const int64_t n = p.M * p.C;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t c = p.cl ? i % p.C : (i / p.HW) % p.C;
        st<C>(p.y + i * p.es, p.dt, ld<C>(p.x + i * p.es, p.dt) * ld<C>(p.w + c * p.es, p.dt) + ld<C>(p.b + c * p.es, p.dt));
    }
}

/* ---- the data-dependent errors: a flag and a value on the device (ct__ix_bad,
   gather's), cleared before the kernel and read back after it ---- */
__device__ __forceinline__ void ct__cu_flag_bad(int64_t v) {
    if (atomicCAS(&ct__cu_dev::ct__ix_bad[0], 0ull, 1ull) == 0ull) ct__cu_dev::ct__ix_bad[1] = (unsigned long long)v;
}
static int ct__cu_flag_clear(const char *op) {
    unsigned long long rec[2] = {0, 0};
    cudaError_t e = cudaMemcpyToSymbolAsync(ct__cu_dev::ct__ix_bad, rec, sizeof rec, 0, cudaMemcpyHostToDevice, ct__cu_cur_stream());
    return e == cudaSuccess ? 0 : ct__cu_fail(op, e);
}
/* waits for the kernels before it; *bad: whether a flag was set, *v its value */
static int ct__cu_flag_read(const char *op, int *bad, int64_t *v) {
    unsigned long long rec[2] = {0, 0};
    cudaStream_t st = ct__cu_cur_stream();
    cudaError_t e = cudaMemcpyFromSymbolAsync(rec, ct__cu_dev::ct__ix_bad, sizeof rec, 0, cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    if (e != cudaSuccess) return ct__cu_fail(op, e);
    *bad = rec[0] != 0;
    *v = (int64_t)rec[1];
    return 0;
}
__device__ __forceinline__ int64_t ct__cu_index_at(const char *idx, int i32, int64_t k) {
    return i32 ? (int64_t)((const int32_t *)idx)[k] : ((const int64_t *)idx)[k];
}


#ifdef CTENSOR_NN_IMPLEMENTATION_DONE
/* ---- embedding: out[i, :] = weight[idx[i], :] ---- */
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_embedding_kernel(char *out, const char *w, const char *idx, int i32, int64_t L,
                                                                           int64_t D, int64_t V, int es) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < L * D; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t row = i / D, k = ct__cu_index_at(idx, i32, row);
        if (k < 0 || k >= V) {
            ct__cu_flag_bad(k);
            continue;
        }
        ct__cu_move(out + i * es, w + (k * D + (i - row * D)) * es, es);
    }
}
static int ct__cu_k_embedding(ct__call *c) {
    const char *op = "embedding";
    ct_tensor *out = c->out[0], *w = ct__cu_input(op, c->in[0], out->device, 1), *idx = w ? ct__cu_input(op, c->in[1], out->device, 1) : NULL;
    int rc = -1, bad = 0;
    int64_t badv = 0;
    if (ct__dt[c->in[0]->dtype].size > 8) rc = ct__no_kernel(ct__opdef_get(c->op), CT_BACKEND_CUDA);   /* (complex128: no 16-byte move) */
    else if (w && idx) {
        int64_t V = w->shape[0], D = w->shape[1], L = ct_numel(idx);
        int dev = out->device.index;
        if (L * D == 0) rc = 0;
        else {
            ct__cu_guard guard(dev, op);
            if (guard.ok && !ct__cu_flag_clear(op)) {
                CT__CU_LAUNCH(ct__cu_blocks(L * D, CT__CU_THREADS, dev), CT__CU_THREADS,
                              (ct__ptr(out), ct__ptr(w), ct__ptr(idx), idx->dtype == CT_INT32, L, D, V, (int)ct__dt[w->dtype].size),
                              ct__cu_embedding_kernel);
                if (!ct__cu_launched(op) && !ct__cu_flag_read(op, &bad, &badv))
                    rc = bad ? ct__failed(CT_ERR_INDEX, "embedding: index out of range in self (index %lld, num_embeddings %lld)", (long long)badv,
                                          (long long)V)
                             : 0;
            }
        }
    }
    if (w) ct__decref(w);
    if (idx) ct__decref(idx);
    return rc;
}

/* ---- the norms' operands: dense device tensors (x-like ones in the channels-last
   layout when cl, the others contiguous; a CPU 0-d tensor copied over) ---- */
static int ct__cu_nn_inputs(const char *op, const ct__call *c, int nlay, int cl, ct_device dev, ct_tensor **t) {
    for (int i = 0; i < c->nin; i++) {
        ct_tensor *x = c->in[i];
        t[i] = x->device.type != CT_CUDA ? ct__cu_input(op, x, dev, 1) : i < nlay ? ct__layout_ref(x, cl) : ct__contig_ref(x);
        if (!t[i]) {
            ct__nn_release(i, t);
            return -1;
        }
    }
    return 0;
}
static void ct__cu_nnp_init(ct__cu_nnp *p, ct_dtype dt) {
    memset(p, 0, sizeof *p);
    p->dt = dt;
    p->es = (int32_t)ct__dt[dt].size;
}
/* a kernel of compute type double (float64) or float on p, blocks for n items of per_block */
#define CT__CU_NN_LAUNCH(kern, blocks, p)                                                         \
    do {                                                                                          \
        if ((p).dt == CT_FLOAT64) CT__CU_LAUNCH((blocks), CT__CU_THREADS, (p), kern<double>);     \
        else CT__CU_LAUNCH((blocks), CT__CU_THREADS, (p), kern<float>);                           \
    } while (0)
/* the same on device dev under its guard, the launch's error in rc */
#define CT__CU_NN_RUN(rc, op, dev, kern, blocks, p)                                               \
    do {                                                                                          \
        ct__cu_guard guard_((dev), (op));                                                         \
        if (!guard_.ok) (rc) = -1;                                                                \
        else {                                                                                    \
            CT__CU_NN_LAUNCH(kern, blocks, p);                                                    \
            (rc) = ct__cu_launched(op);                                                           \
        }                                                                                         \
    } while (0)

static int ct__cu_k_ln(ct__call *c) {
    const char *op = "layer_norm";
    ct_tensor *t[3];   /* x, w, b */
    ct_device dv = c->out[0]->device;
    if (ct__cu_nn_inputs(op, c, 0, 0, dv, t)) return -1;
    ct__cu_nnp p;
    ct__cu_nnp_init(&p, c->in[0]->dtype);
    p.M = c->out[1]->shape[0];
    p.N = ct__ln_cols(c->in[0], c->a->nv);
    p.eps = c->a->s[0];
    p.x = ct__ptr(t[0]);
    p.w = ct__ptr(t[1]);
    p.b = ct__ptr(t[2]);
    p.y = ct__ptr(c->out[0]);
    p.o1 = ct__ptr(c->out[1]);
    p.o2 = ct__ptr(c->out[2]);
    p.lanes = p.N >= 1024 ? CT__CU_THREADS : 32;
    int rc = 0;
    if (p.M > 0) CT__CU_NN_RUN(rc, op, dv.index, ct__cu_ln_fwd, ct__cu_blocks(p.M, CT__CU_THREADS / p.lanes, dv.index), p);
    ct__nn_release(3, t);
    return rc;
}
static int ct__cu_k_ln_bw(ct__call *c) {
    const char *op = "native_layer_norm_backward";
    ct_tensor *t[5];   /* gy, x, w, mean, rstd */
    ct_device dv = c->out[0]->device;
    if (ct__cu_nn_inputs(op, c, 0, 0, dv, t)) return -1;
    ct__cu_nnp p;
    ct__cu_nnp_init(&p, c->in[1]->dtype);
    p.M = ct_numel(c->in[3]);
    p.N = ct_numel(c->in[2]);
    p.g = ct__ptr(t[0]);
    p.x = ct__ptr(t[1]);
    p.w = ct__ptr(t[2]);
    p.m = ct__ptr(t[3]);
    p.r = ct__ptr(t[4]);
    p.y = ct__ptr(c->out[0]);
    p.o1 = ct__ptr(c->out[1]);
    p.o2 = ct__ptr(c->out[2]);
    p.lanes = p.N >= 1024 ? CT__CU_THREADS : 32;
    int rc = 0;
    if (p.N > 0) {
        ct__cu_guard guard(dv.index, op);
        if (!guard.ok) rc = -1;
        else {
            if (p.M > 0) CT__CU_NN_LAUNCH(ct__cu_ln_bwd_rows, ct__cu_blocks(p.M, CT__CU_THREADS / p.lanes, dv.index), p);
            rc = ct__cu_launched(op);
            if (!rc) rc = p.dt == CT_FLOAT64 ? ct__cu_ln_bwd_cols_run<double>(op, dv.index, p) : ct__cu_ln_bwd_cols_run<float>(op, dv.index, p);   /* (M == 0: zeros) */
        }
    }
    ct__nn_release(5, t);
    return rc;
}
/* batch_norm's geometry: N, C, HW of x, channels-last when the CPU kernel's would be */
static void ct__cu_bn_geometry(ct__cu_nnp *p, const ct_tensor *x, int cl) {
    ct__bn_dims(x, &p->N, &p->C, &p->HW);
    p->M = p->N * p->HW;
    p->cl = cl;
}
static int ct__cu_k_bn(ct__call *c) {
    const char *op = "batch_norm";
    int cl = ct__is_cl_input(c->in[0]);
    ct_tensor *t[3];   /* x, w, b */
    ct_device dv = c->out[0]->device;
    if (ct__cu_nn_inputs(op, c, 1, cl, dv, t)) return -1;
    ct__cu_nnp p;
    ct__cu_nnp_init(&p, c->in[0]->dtype);
    ct__cu_bn_geometry(&p, c->in[0], cl);
    p.eps = c->a->s[0];
    p.x = ct__ptr(t[0]);
    p.w = ct__ptr(t[1]);
    p.b = ct__ptr(t[2]);
    p.y = ct__ptr(c->out[0]);
    p.o1 = ct__ptr(c->out[1]);
    p.o2 = ct__ptr(c->out[2]);
    p.o3 = ct__ptr(c->out[3]);
    int rc = 0;
    if (p.C > 0) CT__CU_NN_RUN(rc, op, dv.index, ct__cu_bn_fwd, ct__cu_blocks(p.C, 1, dv.index), p);
    ct__nn_release(3, t);
    return rc;
}
static int ct__cu_k_bn_bw(ct__call *c) {
    const char *op = "native_batch_norm_backward";
    int cl = ct__is_cl_input(c->in[1]);
    ct_tensor *t[5];   /* gy, x, w, mean, invstd */
    ct_device dv = c->out[0]->device;
    if (ct__cu_nn_inputs(op, c, 2, cl, dv, t)) return -1;
    ct__cu_nnp p;
    ct__cu_nnp_init(&p, c->in[1]->dtype);
    ct__cu_bn_geometry(&p, c->in[1], cl);
    p.g = ct__ptr(t[0]);
    p.x = ct__ptr(t[1]);
    p.w = ct__ptr(t[2]);
    p.m = ct__ptr(t[3]);
    p.r = ct__ptr(t[4]);
    p.y = ct__ptr(c->out[0]);
    p.o1 = ct__ptr(c->out[1]);
    p.o2 = ct__ptr(c->out[2]);
    int rc = 0;
    if (p.C > 0) CT__CU_NN_RUN(rc, op, dv.index, ct__cu_bn_bwd, ct__cu_blocks(p.C, 1, dv.index), p);
    ct__nn_release(5, t);
    return rc;
}
static int ct__cu_k_bn_eval(ct__call *c) {
    const char *op = "batch_norm_eval";
    int cl = ct__is_cl_input(c->in[0]);
    ct_tensor *t[3];   /* x, scale, shift */
    ct_device dv = c->out[0]->device;
    if (ct__cu_nn_inputs(op, c, 1, cl, dv, t)) return -1;
    ct__cu_nnp p;
    ct__cu_nnp_init(&p, c->in[0]->dtype);
    ct__cu_bn_geometry(&p, c->in[0], cl);
    p.x = ct__ptr(t[0]);
    p.w = ct__ptr(t[1]);
    p.b = ct__ptr(t[2]);
    p.y = ct__ptr(c->out[0]);
    int rc = 0;
    if (p.M * p.C > 0) CT__CU_NN_RUN(rc, op, dv.index, ct__cu_bn_eval, ct__cu_blocks(p.M * p.C, CT__CU_THREADS, dv.index), p);
    ct__nn_release(3, t);
    return rc;
}

/* ---- fused cross entropy over (N, C) logits and int64 targets ---- */
typedef struct ct__cu_cep {
    const char *x, *g;
    const int64_t *t;
    char *out;
    double *rows;          /* forward with a reduction: the rows' losses; backward: [0] the gradient's scale */
    int32_t dt, es, lanes, red;
    int64_t N, C, ign;
} ct__cu_cep;
/* a row's logsumexp, by the calling group (all threads of the block call it) */
template <class C> __device__ __forceinline__ C ct__cu_row_lse(const ct__cu_cep &p, const char *xr, bool on, int lane, C *sm) {
    using namespace ct__cu_dev;
    C m = -INFINITY, s = C(0);
    if (on)
        for (int64_t k = lane; k < p.C; k += p.lanes) m = ct__cu_op_max::comb(m, ld<C>(xr + k * p.es, p.dt));
    m = ct__cu_group_reduce<C, ct__cu_op_max>(m, p.lanes, sm);
    if (on)
        for (int64_t k = lane; k < p.C; k += p.lanes) s += exp(ld<C>(xr + k * p.es, p.dt) - m);
    s = ct__cu_group_reduce<C, ct__cu_op_sum>(s, p.lanes, sm);
    return m + log(s);
}
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_ce_fwd(const ct__cu_cep p) {
    using namespace ct__cu_dev;
    __shared__ C sm[9];
    const int L = p.lanes, lane = (int)threadIdx.x % L;
    const int64_t per = CT__CU_THREADS / L;
    for (int64_t rb = (int64_t)blockIdx.x * per; rb < p.N; rb += (int64_t)gridDim.x * per) {   /* uniform in the block */
        const int64_t i = rb + (int64_t)threadIdx.x / L;
        const int64_t ti = i < p.N ? p.t[i] : p.ign;
        const bool bad = ti != p.ign && (ti < 0 || ti >= p.C), on = ti != p.ign && !bad;   /* ignored rows: 0 */
        const char *xr = p.x + (i < p.N ? i : 0) * p.C * p.es;
        const C lse = ct__cu_row_lse<C>(p, xr, on, lane, sm);
        if (i >= p.N || lane != 0) continue;
        if (bad) ct__cu_flag_bad(ti);
        const double v = on ? (double)(lse - ld<C>(xr + ti * p.es, p.dt)) : 0.0;
        if (p.red == CT__RED_NONE) st<double>(p.out + i * p.es, p.dt, v);
        else p.rows[i] = v;
    }
}
/* one block: the rows' sum (and the non-ignored count, for the mean) into the 0-d output */
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_ce_reduce(const ct__cu_cep p) {
    __shared__ double sm[9];
    __shared__ int64_t smi[9];
    double s = 0.0;
    int64_t n = 0;
    for (int64_t i = threadIdx.x; i < p.N; i += CT__CU_THREADS) {
        s += p.rows[i];
        n += p.t[i] != p.ign;
    }
    s = ct__cu_group_reduce<double, ct__cu_op_sum>(s, CT__CU_THREADS, sm);
    n = ct__cu_group_reduce<int64_t, ct__cu_op_sum>(n, CT__CU_THREADS, smi);
    if (threadIdx.x == 0) ct__cu_dev::st<double>(p.out, p.dt, p.red == CT__RED_MEAN ? s / (double)n : s);   /* 0 / 0: NaN, as PyTorch */
}
static int ct__cu_k_ce(ct__call *c) {
    const char *op = "cross_entropy_loss";
    ct_tensor *out = c->out[0], *x = ct__cu_input(op, c->in[0], out->device, 1), *t = x ? ct__cu_input(op, c->in[1], out->device, 1) : NULL;
    ct_tensor *rows = NULL;
    int rc = -1, bad = 0, dev = out->device.index;
    int64_t badv = 0;
    if (!x || !t) goto done;
    {
        ct__cu_cep p;
        memset(&p, 0, sizeof p);
        p.dt = x->dtype;
        p.es = (int32_t)ct__dt[x->dtype].size;
        p.N = x->shape[0];
        p.C = x->shape[1];
        p.ign = c->a->i[0];
        p.red = c->a->mode;
        p.x = ct__ptr(x);
        p.t = (const int64_t *)ct__ptr(t);
        p.out = ct__ptr(out);
        p.lanes = p.C >= 1024 ? CT__CU_THREADS : 32;
        if (p.red != CT__RED_NONE) {
            int64_t n = p.N > 0 ? p.N : 1;
            if (!(rows = ct__alloc(CT_FLOAT64, 1, &n, NULL, out->device))) goto done;
            p.rows = (double *)ct__ptr(rows);
        }
        ct__cu_guard guard(dev, op);
        if (!guard.ok || ct__cu_flag_clear(op)) goto done;
        if (p.N > 0) {
            unsigned blocks = ct__cu_blocks(p.N, CT__CU_THREADS / p.lanes, dev);
            if (p.dt == CT_FLOAT64) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_ce_fwd<double>);
            else CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_ce_fwd<float>);
            if (ct__cu_launched(op)) goto done;
        }
        if (p.red != CT__RED_NONE) {
            CT__CU_LAUNCH(1, CT__CU_THREADS, (p), ct__cu_ce_reduce);
            if (ct__cu_launched(op)) goto done;
        }
        if (ct__cu_flag_read(op, &bad, &badv)) goto done;
        rc = bad ? ct__failed(CT_ERR_INDEX, "cross_entropy: Target %lld is out of bounds.", (long long)badv) : 0;
    }
done:
    if (rows) ct__decref(rows);
    if (x) ct__decref(x);
    if (t) ct__decref(t);
    return rc;
}
/* the backward's scale for a reduction: g, or g / (the non-ignored count, at least 1) */
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_ce_scale(const ct__cu_cep p) {
    __shared__ int64_t smi[9];
    int64_t n = 0;
    for (int64_t i = threadIdx.x; i < p.N; i += CT__CU_THREADS) n += p.t[i] != p.ign;
    n = ct__cu_group_reduce<int64_t, ct__cu_op_sum>(n, CT__CU_THREADS, smi);
    if (threadIdx.x == 0) {
        double g = ct__cu_dev::ld<double>(p.g, p.dt);
        p.rows[0] = p.red == CT__RED_MEAN ? g / (double)(n > 0 ? n : 1) : g;
    }
}
/* dx_i = (softmax(x_i) - onehot(t_i)) w_i; rows with an ignored or out-of-range target: 0 */
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_ce_bwd(const ct__cu_cep p) {
    using namespace ct__cu_dev;
    __shared__ C sm[9];
    const int L = p.lanes, lane = (int)threadIdx.x % L;
    const int64_t per = CT__CU_THREADS / L;
    for (int64_t rb = (int64_t)blockIdx.x * per; rb < p.N; rb += (int64_t)gridDim.x * per) {
        const int64_t i = rb + (int64_t)threadIdx.x / L;
        const int64_t ti = i < p.N ? p.t[i] : p.ign;
        const bool on = ti != p.ign && ti >= 0 && ti < p.C;
        const char *xr = p.x + (i < p.N ? i : 0) * p.C * p.es;
        const C lse = ct__cu_row_lse<C>(p, xr, on, lane, sm);
        if (i >= p.N) continue;
        char *yr = p.out + i * p.C * p.es;
        const C w = on ? (p.red == CT__RED_NONE ? ld<C>(p.g + i * p.es, p.dt) : (C)p.rows[0]) : C(0);
        for (int64_t k = lane; k < p.C; k += L)
            st<C>(yr + k * p.es, p.dt, on ? exp(ld<C>(xr + k * p.es, p.dt) - lse) * w - (k == ti ? w : C(0)) : C(0));
    }
}
static int ct__cu_k_ce_bw(ct__call *c) {
    const char *op = "_cross_entropy_fused_backward";
    ct_tensor *out = c->out[0], *g = ct__cu_input(op, c->in[0], out->device, 1);
    ct_tensor *x = g ? ct__cu_input(op, c->in[1], out->device, 1) : NULL, *t = x ? ct__cu_input(op, c->in[2], out->device, 1) : NULL;
    ct_tensor *sc = NULL;
    int rc = -1, dev = out->device.index;
    if (!g || !x || !t) goto done;
    {
        ct__cu_cep p;
        memset(&p, 0, sizeof p);
        p.dt = x->dtype;
        p.es = (int32_t)ct__dt[x->dtype].size;
        p.N = x->shape[0];
        p.C = x->shape[1];
        p.ign = c->a->i[0];
        p.red = c->a->mode;
        p.x = ct__ptr(x);
        p.g = ct__ptr(g);
        p.t = (const int64_t *)ct__ptr(t);
        p.out = ct__ptr(out);
        p.lanes = p.C >= 1024 ? CT__CU_THREADS : 32;
        if (p.N == 0 || p.C == 0) { rc = 0; goto done; }
        ct__cu_guard guard(dev, op);
        if (!guard.ok) goto done;
        if (p.red != CT__RED_NONE) {
            int64_t one = 1;
            if (!(sc = ct__alloc(CT_FLOAT64, 1, &one, NULL, out->device))) goto done;
            p.rows = (double *)ct__ptr(sc);
            CT__CU_LAUNCH(1, CT__CU_THREADS, (p), ct__cu_ce_scale);
            if (ct__cu_launched(op)) goto done;
        }
        unsigned blocks = ct__cu_blocks(p.N, CT__CU_THREADS / p.lanes, dev);
        if (p.dt == CT_FLOAT64) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_ce_bwd<double>);
        else CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_ce_bwd<float>);
        rc = ct__cu_launched(op);
    }
done:
    if (sc) ct__decref(sc);
    if (g) ct__decref(g);
    if (x) ct__decref(x);
    if (t) ct__decref(t);
    return rc;
}

/* ---- fused mse_loss and binary_cross_entropy_with_logits (equal shapes, one dtype) ---- */
typedef struct ct__cu_plp {
    const char *x, *y, *g;
    char *out;
    void *part;               /* the blocks' partial sums (compute type) */
    int32_t dt, es, red, bce, nblocks;
    int64_t n;
} ct__cu_plp;
template <class C> __device__ __forceinline__ C ct__cu_pwloss_term(C x, C y, int bce) {
    if (!bce) return (x - y) * (x - y);
    const C a = x < C(0) ? -x : x;
    return (C(1) - y) * x + (x < C(0) ? a : C(0)) + log1p(exp(-a));   /* (1 - y) x + max(-x, 0) + log(1 + exp(-|x|)) */
}
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_pwloss_fwd(const ct__cu_plp p) {
    using namespace ct__cu_dev;
    __shared__ C sm[9];
    C s = C(0);
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < p.n; k += (int64_t)gridDim.x * blockDim.x) {
        C v = ct__cu_pwloss_term<C>(ld<C>(p.x + k * p.es, p.dt), ld<C>(p.y + k * p.es, p.dt), p.bce);
        if (p.red == CT__RED_NONE) st<C>(p.out + k * p.es, p.dt, v);
        else s += v;
    }
    if (p.red == CT__RED_NONE) return;
    s = ct__cu_group_reduce<C, ct__cu_op_sum>(s, CT__CU_THREADS, sm);
    if (threadIdx.x == 0) ((C *)p.part)[blockIdx.x] = s;
}
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_pwloss_sum(const ct__cu_plp p) {
    __shared__ C sm[9];
    C s = C(0);
    for (int k = (int)threadIdx.x; k < p.nblocks; k += CT__CU_THREADS) s += ((const C *)p.part)[k];
    s = ct__cu_group_reduce<C, ct__cu_op_sum>(s, CT__CU_THREADS, sm);
    if (threadIdx.x == 0) ct__cu_dev::st<C>(p.out, p.dt, p.red == CT__RED_MEAN ? s / (C)p.n : s);   /* empty: NaN, as PyTorch */
}
/* dx = f(x, y) s, f = 2 (x - y) or sigmoid(x) - y, s = g[k], or g (divided by n for the mean) */
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_pwloss_bwd(const ct__cu_plp p) {
    using namespace ct__cu_dev;
    const C gs = p.red == CT__RED_NONE ? C(0) : ld<C>(p.g, p.dt) / (C)(p.red == CT__RED_MEAN ? (double)p.n : 1.0);
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < p.n; k += (int64_t)gridDim.x * blockDim.x) {
        const C x = ld<C>(p.x + k * p.es, p.dt), y = ld<C>(p.y + k * p.es, p.dt);
        C f;
        if (p.bce) {
            const C e = exp(x < C(0) ? x : -x);   /* exp(-|x|): no overflow */
            f = (x >= C(0) ? C(1) / (C(1) + e) : e / (C(1) + e)) - y;
        } else {
            f = C(2) * (x - y);
        }
        st<C>(p.out + k * p.es, p.dt, f * (p.red == CT__RED_NONE ? ld<C>(p.g + k * p.es, p.dt) : gs));
    }
}
static int ct__cu_pwloss_run(ct__call *c, int bw) {
    const char *op = CT__CU_OPNAME(c);
    ct_tensor *out = c->out[0], *in[3] = {NULL, NULL, NULL}, *part = NULL;
    int rc = -1, nin = bw ? 3 : 2, dev = out->device.index;
    for (int i = 0; i < nin; i++)
        if (!(in[i] = ct__cu_input(op, c->in[i], out->device, 1))) goto done;
    {
        ct__cu_plp p;
        memset(&p, 0, sizeof p);
        const ct_tensor *x = in[bw ? 1 : 0];
        p.dt = x->dtype;
        p.es = (int32_t)ct__dt[x->dtype].size;
        p.red = c->a->mode;
        p.bce = c->op == CT__NNOP(BCE_LOGITS_FUSED) || c->op == CT__NNOP(BCE_LOGITS_FUSED_BACKWARD);
        p.n = ct_numel(x);
        p.x = ct__ptr(x);
        p.y = ct__ptr(in[bw ? 2 : 1]);
        p.g = bw ? ct__ptr(in[0]) : NULL;
        p.out = ct__ptr(out);
        ct__cu_guard guard(dev, op);
        if (!guard.ok) goto done;
        unsigned blocks = ct__cu_blocks(p.n, CT__CU_THREADS, dev);
        int f64 = p.dt == CT_FLOAT64;
        if (bw) {
            if (p.n == 0) { rc = 0; goto done; }
            if (f64) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_pwloss_bwd<double>);
            else CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_pwloss_bwd<float>);
        } else if (p.red == CT__RED_NONE) {
            if (p.n == 0) { rc = 0; goto done; }
            if (f64) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_pwloss_fwd<double>);
            else CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_pwloss_fwd<float>);
        } else {
            int64_t bytes = (int64_t)blocks * 8;
            if (!(part = ct__alloc(CT_UINT8, 1, &bytes, NULL, out->device))) goto done;
            p.part = ct__ptr(part);
            p.nblocks = (int32_t)blocks;
            if (f64) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_pwloss_fwd<double>);
            else CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_pwloss_fwd<float>);
            if (ct__cu_launched(op)) goto done;
            if (f64) CT__CU_LAUNCH(1, CT__CU_THREADS, (p), ct__cu_pwloss_sum<double>);
            else CT__CU_LAUNCH(1, CT__CU_THREADS, (p), ct__cu_pwloss_sum<float>);
        }
        rc = ct__cu_launched(op);
    }
done:
    for (int i = 0; i < 3; i++)
        if (in[i]) ct__decref(in[i]);
    if (part) ct__decref(part);
    return rc;
}
static int ct__cu_k_pwloss(ct__call *c) { return ct__cu_pwloss_run(c, 0); }
static int ct__cu_k_pwloss_bw(ct__call *c) { return ct__cu_pwloss_run(c, 1); }

/* ---- pixel_shuffle / pixel_unshuffle: the big side [C, H r, W r] has element
   (c, h r + i, w r + j) where the small side [C r r, H, W] has (c r r + i r + j, h, w) ---- */
typedef struct ct__cu_psp {
    char *y;
    const char *x;
    int32_t nd, es, un;
    int64_t n, r;
    int64_t ysh[CT_MAX_DIMS], yst[CT_MAX_DIMS], xst[CT_MAX_DIMS];   /* element strides */
} ct__cu_psp;
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_pixel_shuffle_kernel(const ct__cu_psp p) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t q[CT_MAX_DIMS], rem = i, yo = 0, xo = 0;
        for (int d = p.nd - 1; d >= 0; d--) {
            q[d] = rem % p.ysh[d];
            rem /= p.ysh[d];
            yo += q[d] * p.yst[d];
        }
        for (int d = 0; d < p.nd - 3; d++) xo += q[d] * p.xst[d];
        const int64_t c = q[p.nd - 3], h = q[p.nd - 2], w = q[p.nd - 1], r = p.r;
        int64_t xc, xh, xw;
        if (p.un) {   /* y small: channel c = (c' r + i) r + j */
            xc = c / (r * r);
            xh = h * r + (c / r) % r;
            xw = w * r + c % r;
        } else {      /* y big */
            xc = (c * r + h % r) * r + w % r;
            xh = h / r;
            xw = w / r;
        }
        xo += xc * p.xst[p.nd - 3] + xh * p.xst[p.nd - 2] + xw * p.xst[p.nd - 1];
        ct__cu_move(p.y + yo * p.es, p.x + xo * p.es, p.es);
    }
}
static int ct__cu_k_pixel_shuffle(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    ct_tensor *y = c->out[0];
    if (ct__dt[y->dtype].size > 8) return ct__no_kernel(ct__opdef_get(c->op), CT_BACKEND_CUDA);   /* (complex128: no 16-byte move) */
    ct_tensor *x = ct__cu_input(op, c->in[0], y->device, 0);
    if (!x) return -1;
    ct__cu_psp p;
    memset(&p, 0, sizeof p);
    p.un = c->op == CT__NNOP(PIXEL_UNSHUFFLE);
    p.nd = y->ndim;
    p.es = (int32_t)ct__dt[y->dtype].size;
    p.r = c->a->i[0];
    p.n = ct_numel(y);
    p.y = ct__ptr(y);
    p.x = ct__ptr(x);
    for (int d = 0; d < p.nd; d++) {
        p.ysh[d] = y->shape[d];
        p.yst[d] = y->strides[d];
        p.xst[d] = x->strides[d];
    }
    int rc = 0;
    if (p.n > 0) {
        ct__cu_guard guard(y->device.index, op);
        if (!guard.ok) rc = -1;
        else {
            CT__CU_LAUNCH(ct__cu_blocks(p.n, CT__CU_THREADS, y->device.index), CT__CU_THREADS, (p), ct__cu_pixel_shuffle_kernel);
            rc = ct__cu_launched(op);
        }
    }
    ct__decref(x);
    return rc;
}

/* float16 and bfloat16 on the device: the CPU metas run on float32 headers
   (ct__cu_half_meta, in the convolution section); every operand of one call,
   the saved mean and rstd / invstd too, has the input's dtype; the kernels
   compute in float, as for float32 */
static int ct__cu_half_meta(ct__call *c, int ntyped, int (*meta)(ct__call *));
static int ct__cu_meta_ln(ct__call *c) { return ct__cu_half_meta(c, 3, ct__meta_ln); }
static int ct__cu_meta_ln_bw(ct__call *c) { return ct__cu_half_meta(c, 5, ct__meta_ln_bw); }
static int ct__cu_meta_bn(ct__call *c) { return ct__cu_half_meta(c, 3, ct__meta_bn); }
static int ct__cu_meta_bn_bw(ct__call *c) { return ct__cu_half_meta(c, 5, ct__meta_bn_bw); }
static int ct__cu_meta_bn_eval(ct__call *c) { return ct__cu_half_meta(c, 3, ct__meta_bn_eval); }
/* by stable names: ctensor_nn.h's ops are a block registered at load, by name */
static const struct { const char *name; ct_meta_fn meta; ct_kernel_fn fn; } ct__cu_nn_norms[] = {
    {"aten::native_layer_norm", ct__cu_meta_ln, ct__cu_k_ln}, {"aten::native_layer_norm_backward", ct__cu_meta_ln_bw, ct__cu_k_ln_bw},
    {"aten::native_batch_norm", ct__cu_meta_bn, ct__cu_k_bn}, {"aten::native_batch_norm_backward", ct__cu_meta_bn_bw, ct__cu_k_bn_bw},
    {"ct::batch_norm_eval", ct__cu_meta_bn_eval, ct__cu_k_bn_eval},
};
static const struct { const char *name; ct_kernel_fn fn; } ct__cu_nn_kernels[] = {
    {"aten::embedding", ct__cu_k_embedding},
    {"ct::cross_entropy_loss", ct__cu_k_ce}, {"ct::cross_entropy_loss_backward", ct__cu_k_ce_bw},
    {"aten::mse_loss", ct__cu_k_pwloss}, {"aten::mse_loss_backward", ct__cu_k_pwloss_bw},
    {"aten::binary_cross_entropy_with_logits", ct__cu_k_pwloss}, {"ct::binary_cross_entropy_with_logits_backward", ct__cu_k_pwloss_bw},
    {"aten::pixel_shuffle", ct__cu_k_pixel_shuffle}, {"aten::pixel_unshuffle", ct__cu_k_pixel_shuffle},
};
#endif /* CTENSOR_NN_IMPLEMENTATION_DONE */
/* registers this section's kernels (from ct__cu_register_all) */
static void ct__cu_nn_register(void) {
    /* (index_add, which embedding's backward uses, is the indexing section's) */
#ifdef CTENSOR_NN_IMPLEMENTATION_DONE
    ct__nn_register_now();   /* the nn block first: its names must resolve */
    for (size_t k = 0; k < sizeof ct__cu_nn_kernels / sizeof ct__cu_nn_kernels[0]; k++)
        ct_register_kernel(ct__cu_nn_kernels[k].name, CT_BACKEND_CUDA, ct__cu_nn_kernels[k].fn);
    for (size_t k = 0; k < sizeof ct__cu_nn_norms / sizeof ct__cu_nn_norms[0]; k++)
        ct_register_backend_op(ct__cu_nn_norms[k].name, CT_BACKEND_CUDA, ct__cu_nn_norms[k].meta, ct__cu_nn_norms[k].fn);
#endif
}

/* ============================================================================
   Convolution and pooling (ctensor_nn.h's ops, when it is included first)
   The three convolution ops of ctensor_nn.h (each is the adjoint of the
   others in one argument, so every order of derivative runs on the device):
     conv2d(X, W[, b])                    im2col, then per group Y = W col
     conv_transpose2d(G, W[, b])          per group col = W^T G, then col2im
     convolution_backward_weight(X, G)    im2col, then per group dW += G col^T
                                          (a chunk's samples in one product)
   im2col writes the column matrix [C kh kw][OH OW] of a chunk of samples into
   one workspace from the caching allocator (at most 256 MiB, at least one
   sample), reading X through its strides (any layout, channels-last included).
   The products are cuBLAS strided-batched GEMMs, batched over the samples of
   the chunk (one call per group) or over the groups (one call per sample),
   whichever is fewer calls; an NCHW or NHWC operand is a plain or a
   transposed matrix to cuBLAS, so neither is copied (other layouts are made
   contiguous first). The weight gradient sums over the samples inside the
   product: its columns are written [C kh kw][samples][OH OW] and an NCHW G
   is copied per chunk to [O][samples][OH OW] (an NHWC one is used as it is),
   so each chunk is one call batched over the groups. col2im is a gather: each input pixel sums the column
   entries that came from it, no atomics. float16 and bfloat16 multiply in
   cuBLAS with float accumulation; the transposed op's columns and the weight
   gradient's sum over the samples are kept in float32 (cuBLAS's mixed
   16F x 16F -> 32F products), then rounded once. float32 follows
   ct_cuda_set_allow_tf32 as the matrix products do. Outputs take the CPU
   kernels' layouts (the dispatcher allocates them from ctensor_nn.h's meta).
   Pooling: one thread per output element in the output's memory order (NCHW
   or NHWC), reading through strides. max_pool2d keeps PyTorch's rule (a later
   NaN or a strictly larger value wins; indices h * W + w). The backward ops
   are gathers too: each input pixel visits the pooled windows that can hold
   it (max: those whose index names it), in the CPU kernel's order, so no
   atomics and the same sums. (max_pool2d's backward thus counts only indices
   inside their window, as max_pool2d gives them and as PyTorch's CUDA kernel
   assumes; the CPU kernel would also take an index from elsewhere in the
   plane.) A 1x1 convolution without stride or padding reads X as its
   columns (no im2col). float16 and bfloat16 pooling and convolution
   run on the device only (ctensor_nn.h's CPU kernels take float32 and
   float64): a CUDA meta accepts them and otherwise defers to the op's own
   checks and messages. Status: checked on tests/cuda's emulator against the
   CPU kernels and compiled warning-free by nvcc; not yet run on a GPU.
   ========================================================================== */
#ifdef CTENSOR_NN_IMPLEMENTATION_DONE
#define CT__CU_CONV_WS ((int64_t)256 << 20)   /* bytes of im2col columns per chunk of samples */
static int64_t ct__cu_conv_ws = CT__CU_CONV_WS;   /* (tests/cuda lowers it to run the chunking on small inputs) */

/* coordinates of element i of a 4-D (N, C, H, W) tensor counted in its memory
   order: NCHW, or NHWC when cl */
__device__ __forceinline__ void ct__cu_nchw(int64_t i, int cl, int64_t C, int64_t H, int64_t W, int64_t *n, int64_t *c, int64_t *h, int64_t *w) {
    if (cl) {
        *c = i % C; i /= C;
        *w = i % W; i /= W;
        *h = i % H; *n = i / H;
    } else {
        *w = i % W; i /= W;
        *h = i % H; i /= H;
        *c = i % C; *n = i / C;
    }
}

typedef struct ct__cu_convp {
    char *col, *y;
    const char *x, *bias;
    int32_t xdt, cdt, ydt, bdt, xes, ces, yes, bes, cl;
    int64_t n;                                  /* work items */
    int64_t n0;                                 /* the chunk's first sample */
    int64_t C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, OH, OW;
    int64_t xs[4], ys[4], bst;                  /* element strides of x, y; the bias's */
    int64_t cns, crs;                           /* the columns' strides: sample, row ([n][r][l]: R L, L; [r][n][l]: L, m L) */
} ct__cu_convp;

/* col at n cns + ((c kh + i) kw + j) crs + oh OW + ow = x[n0 + n][c][oh sh - ph + i dh][ow sw - pw + j dw], 0 in the padding */
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_im2col_kernel(const ct__cu_convp p) {
    const int64_t L = p.OH * p.OW, kk = p.kh * p.kw;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t l = i % L, r = (i / L) % (p.C * kk), n = i / L / (p.C * kk);
        int64_t c = r / kk, ki = (r % kk) / p.kw, kj = r % p.kw;
        int64_t h = (l / p.OW) * p.sh - p.ph + ki * p.dh, w = (l % p.OW) * p.sw - p.pw + kj * p.dw;
        char *d = p.col + (n * p.cns + r * p.crs + l) * p.ces;
        if (h >= 0 && h < p.H && w >= 0 && w < p.W) {
            ct__cu_move(d, p.x + ((p.n0 + n) * p.xs[0] + c * p.xs[1] + h * p.xs[2] + w * p.xs[3]) * p.xes, p.ces);
        } else {
            const uint64_t zero = 0;   /* +0.0 in every float dtype */
            ct__cu_move(d, (const char *)&zero, p.ces);
        }
    }
}
/* col2im as a gather, for the chunk's samples: y[n0 + n][c][h][w] = the sum of the
   column entries of (n, c) whose window tap lands on (h, w), + bias[c] */
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_col2im_kernel(const ct__cu_convp p) {
    const int64_t L = p.OH * p.OW, kk = p.kh * p.kw;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t n, c, h, w;
        ct__cu_nchw(i, p.cl, p.C, p.H, p.W, &n, &c, &h, &w);
        C s = 0;
        const char *cb = p.col + (n * p.C + c) * kk * L * p.ces;
        for (int64_t ki = 0; ki < p.kh; ki++) {
            int64_t hh = h + p.ph - ki * p.dh;   /* = oh sh for the output row that reads (h, w) with tap ki */
            if (hh < 0) break;                   /* (only smaller for the later taps) */
            if (hh % p.sh || hh / p.sh >= p.OH) continue;
            for (int64_t kj = 0; kj < p.kw; kj++) {
                int64_t ww = w + p.pw - kj * p.dw;
                if (ww < 0) break;
                if (ww % p.sw || ww / p.sw >= p.OW) continue;
                s += ct__cu_dev::ld<C>(cb + ((ki * p.kw + kj) * L + (hh / p.sh) * p.OW + ww / p.sw) * p.ces, p.cdt);
            }
        }
        if (p.bias) s += ct__cu_dev::ld<C>(p.bias + c * p.bst * p.bes, p.bdt);
        ct__cu_dev::st<C>(p.y + ((p.n0 + n) * p.ys[0] + c * p.ys[1] + h * p.ys[2] + w * p.ys[3]) * p.yes, p.ydt, s);
    }
}
/* y[n][c][h][w] += bias[c] over all of y (conv2d's bias, after the products) */
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_bias_kernel(const ct__cu_convp p) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t n, c, h, w;
        ct__cu_nchw(i, p.cl, p.C, p.H, p.W, &n, &c, &h, &w);
        char *q = p.y + (n * p.ys[0] + c * p.ys[1] + h * p.ys[2] + w * p.ys[3]) * p.yes;
        ct__cu_dev::st<C>(q, p.ydt, ct__cu_dev::ld<C>(q, p.ydt) + ct__cu_dev::ld<C>(p.bias + c * p.bst * p.bes, p.bdt));
    }
}
/* launches one of the kernels above over p->n items, float or double by dtype */
enum { CT__CU_IM2COL, CT__CU_COL2IM, CT__CU_BIAS };
static int ct__cu_conv_launch(const char *op, int dev, int which, const ct__cu_convp *p, ct_dtype cdt) {
    if (p->n == 0) return 0;
    ct__cu_guard guard(dev, op);
    if (!guard.ok) return -1;
    unsigned blocks = ct__cu_blocks(p->n, CT__CU_THREADS, dev);
    if (which == CT__CU_IM2COL) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (*p), ct__cu_im2col_kernel);
    else if (which == CT__CU_COL2IM && cdt == CT_FLOAT64) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (*p), ct__cu_col2im_kernel<double>);
    else if (which == CT__CU_COL2IM) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (*p), ct__cu_col2im_kernel<float>);
    else if (cdt == CT_FLOAT64) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (*p), ct__cu_bias_kernel<double>);
    else CT__CU_LAUNCH(blocks, CT__CU_THREADS, (*p), ct__cu_bias_kernel<float>);
    return ct__cu_launched(op);
}

/* A matrix operand in row-major terms: element (i, j) at p[i ld + j], or at
   p[j ld + i] when t (stored transposed); bs: the stride between the matrices
   of a batch. Sizes in elements. */
typedef struct ct__cu_gm { char *p; int64_t ld, bs; int t; } ct__cu_gm;
/* c (M x N) = a (M x K) b (K x N) + beta c, batch times; a and b of dtype abt, c of
   cdt (abt, or float32 for float16/bfloat16 inputs: cuBLAS's mixed products) */
static int ct__cu_conv_gemm(const char *op, int dev, ct_dtype abt, ct_dtype cdt, ct__cu_gm c, ct__cu_gm a, ct__cu_gm b, int64_t M, int64_t N,
                            int64_t K, int64_t batch, double beta) {
    if (c.t) {   /* c^T = b^T a^T: the same storage, the flags flipped */
        ct__cu_gm t = a;
        a = b; b = t;
        a.t = !a.t; b.t = !b.t; c.t = 0;
        int64_t m = M; M = N; N = m;
    }
    cudaDataType_t ty, cty;
    cublasComputeType_t ctype, unused;
    if (!ct__cu_blas_types(abt, &ty, &ctype) || !ct__cu_blas_types(cdt, &cty, &unused))
        return ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s'", op, CT__DTNAME(abt));
    if (M > INT32_MAX || N > INT32_MAX || K > INT32_MAX || batch > INT32_MAX || a.ld > INT32_MAX || b.ld > INT32_MAX || c.ld > INT32_MAX)
        return ct__failed(CT_ERR_UNSUPPORTED, "%s: a dimension larger than 2^31-1 (M=%lld, N=%lld, K=%lld, batch=%lld) is not supported on CUDA", op,
                          (long long)M, (long long)N, (long long)K, (long long)batch);
    if (M == 0 || N == 0 || batch == 0) return 0;
    cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
    cudaError_t launch = cudaSuccess;
    int stage = 0;
    {
        ct__cu_guard guard(dev, op);
        if (!guard.ok) return -1;
        std::lock_guard<std::mutex> lock(ct__cu_blas_mutex);
        if ((s = ct__cu_blas_ready(dev, ty, &stage)) == CUBLAS_STATUS_SUCCESS) {
            double one = 1.0;
            float onef = 1.0f, bf = (float)beta;
            int f64 = ctype == CUBLAS_COMPUTE_64F;
            /* row-major c = a b is column-major c^T = b^T a^T: b first */
            s = cublasGemmStridedBatchedEx(ct__cu_blas[dev], b.t ? CUBLAS_OP_T : CUBLAS_OP_N, a.t ? CUBLAS_OP_T : CUBLAS_OP_N, (int)N, (int)M, (int)K,
                                           f64 ? (const void *)&one : (const void *)&onef, b.p, ty, (int)b.ld, (long long)b.bs, a.p, ty,
                                           (int)a.ld, (long long)a.bs, f64 ? (const void *)&beta : (const void *)&bf, c.p, cty, (int)c.ld,
                                           (long long)c.bs, (int)batch, ctype, CUBLAS_GEMM_DEFAULT);
            stage = 2;
            if (s == CUBLAS_STATUS_SUCCESS) launch = cudaGetLastError();
        }
    }
    if (stage == 1) return ct__failed(CT_ERR_DEVICE, "%s: cuBLAS error: %s (cublasCreate)", op, ct__cu_blas_msg(s));
    if (s != CUBLAS_STATUS_SUCCESS) return ct__failed(CT_ERR_DEVICE, "%s: cuBLAS error: %s", op, ct__cu_blas_msg(s));
    return launch == cudaSuccess ? 0 : ct__cu_fail(op, launch);
}
/* The products of nb samples x G groups: operand X of (sample s, group q) is X.p
   advanced by s xs + q xg elements (xs, xg: ms/mg for c, as/ag for a, bs/bg for b).
   One call per group batched over the samples, or per sample batched over the
   groups: the fewer calls. */
static int ct__cu_conv_mm(const char *op, int dev, ct_dtype abt, ct_dtype cdt, ct__cu_gm c, int64_t ms, int64_t mg, ct__cu_gm a, int64_t as,
                          int64_t ag, ct__cu_gm b, int64_t bs, int64_t bg, int64_t nb, int64_t G, int64_t M, int64_t N, int64_t K) {
    size_t es = ct__dt[abt].size, ces = ct__dt[cdt].size;
    int by_sample = nb >= G;
    int64_t outer = by_sample ? G : nb, inner = by_sample ? nb : G;
    for (int64_t o = 0; o < outer; o++) {
        ct__cu_gm co = c, ao = a, bo = b;
        co.p += ces * (size_t)(o * (by_sample ? mg : ms));
        ao.p += es * (size_t)(o * (by_sample ? ag : as));
        bo.p += es * (size_t)(o * (by_sample ? bg : bs));
        co.bs = by_sample ? ms : mg;
        ao.bs = by_sample ? as : ag;
        bo.bs = by_sample ? bs : bg;
        if (ct__cu_conv_gemm(op, dev, abt, cdt, co, ao, bo, M, N, K, inner, 0.0)) return -1;
    }
    return 0;
}
/* A 4-D (N, C, H, W) tensor as N matrices [C][H W]: dense NCHW (t = 0) or NHWC
   (stored transposed); *cs gets the stride between channels. 0 when neither. */
static int ct__cu_conv_mat(const ct_tensor *t, ct__cu_gm *m, int64_t *cs) {
    int64_t C = t->shape[1], L = t->shape[2] * t->shape[3];
    if (ct__is_contig(t)) { m->t = 0; m->ld = L > 1 ? L : 1; *cs = L; }
    else if (ct_is_channels_last(t)) { m->t = 1; m->ld = C > 1 ? C : 1; *cs = 1; }
    else return 0;
    m->p = ct__ptr(t);
    m->bs = C * L;
    return 1;
}
/* t on dev as such a matrix: t itself or a contiguous copy (a new reference either way) */
static ct_tensor *ct__cu_conv_mat_input(const char *op, ct_tensor *t, ct_device d, ct__cu_gm *m, int64_t *cs) {
    ct_tensor *r = ct__cu_input(op, t, d, 0);
    if (r && !ct__cu_conv_mat(r, m, cs)) {
        ct_tensor *y = ct__cu_input(op, r, d, 1);
        ct__decref(r);
        if ((r = y) && !ct__cu_conv_mat(r, m, cs)) { ct__decref(r); r = NULL; ct__failed(CT_ERR_STATE, "%s: no matrix layout", op); }
    }
    return r;
}
static void ct__cu_conv_geo4(ct__cu_convp *p, const ct__cgeo *g) {
    p->kh = g->kh; p->kw = g->kw; p->sh = g->sh; p->sw = g->sw; p->ph = g->ph; p->pw = g->pw;
    p->dh = g->dh; p->dw = g->dw; p->OH = g->OH; p->OW = g->OW; p->C = g->C; p->H = g->H; p->W = g->W;
}
static void ct__cu_strides4(const ct_tensor *t, int64_t *s) {
    for (int d = 0; d < 4; d++) s[d] = t->strides[d];
}
/* conv2d, ct::conv2d_relu, conv_transpose2d, convolution_backward_weight (the
   geometry and the checks are ctensor_nn.h's, ct__conv_geo); conv2d_relu is the
   convolution, then relu's elementwise kernel over the output in place (x < 0 ?
   0 : x, NaN kept, as the CPU's epilogue) */
static int ct__cu_k_conv_run(ct__call *c);
static int ct__cu_k_conv(ct__call *c) {
    int rc = ct__cu_k_conv_run(c);
    if (rc || c->op != CT__NNOP(CONV2D_RELU)) return rc;
    ct_tensor *out = c->out[0];
    return ct__cu_ew<ct__cu_dev::u_RELU, true>(CT__CU_OPNAME(c), out->device.index, out, 1, &out, out->dtype, out->dtype, c->a, 0);
}
static int ct__cu_k_conv_run(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    ct__cgeo g;
    if (ct__conv_geo(c, &g)) return -1;
    ct_tensor *out = c->out[0];
    if (ct__cu_out_on_device(c, out)) return -1;
    int kind = CT__NN_CONV_FWD(c->op) ? 0 : c->op == CT__NNOP(CONV_TRANSPOSE2D) ? 1 : 2;
    int dev = out->device.index;
    ct_dtype dt = out->dtype;
    int half = dt == CT_FLOAT16 || dt == CT_BFLOAT16;
    int64_t numel = ct__shape_numel(out->ndim, out->shape);
    if (numel == 0) return 0;
    const int64_t Og = g.O / g.G, Cg = g.C / g.G, kk = g.kh * g.kw, Kg = Cg * kk, R = g.C * kk, L = g.OH * g.OW;
    ct_tensor *w = NULL, *dy = NULL, *bias = NULL, *col = NULL, *acc = NULL, *gperm = NULL;
    const ct_tensor *x = c->in[0];
    ct__cu_gm wm, dm, om;   /* W, G and the output as matrices */
    int64_t dcs = 0, ocs = 0;
    ct__cu_convp p;
    memset(&p, 0, sizeof p);
    ct__cu_conv_geo4(&p, &g);
    int rc = -1;
    if (c->nin > 2 && !(bias = ct__cu_input(op, c->in[2], out->device, 0))) return -1;
    if (bias) {
        p.bias = ct__ptr(bias);
        p.bdt = bias->dtype;
        p.bes = (int32_t)ct__dt[bias->dtype].size;
        p.bst = bias->strides[0];
    }
    if (g.N == 0 || Og == 0 || Cg == 0) {   /* no products: zeros (and the bias) */
        rc = ct__cu_fill(op, out, 0.0);
        if (!rc && bias) {
            p.y = ct__ptr(out); p.ydt = dt; p.yes = (int32_t)ct__dt[dt].size; p.cl = ct_is_channels_last(out) && !ct__is_contig(out);
            p.C = out->shape[1]; p.H = out->shape[2]; p.W = out->shape[3]; p.n = numel;
            ct__cu_strides4(out, p.ys);
            rc = ct__cu_conv_launch(op, dev, CT__CU_BIAS, &p, dt);
        }
        if (bias) ct__decref(bias);
        return rc;
    }
    /* the operands: W contiguous ([O][Cg][kh][kw], a row-major [Og][Kg] per group), G as matrices */
    memset(&wm, 0, sizeof wm);
    memset(&dm, 0, sizeof dm);
    memset(&om, 0, sizeof om);
    if (kind != 2) {
        if (!(w = ct__cu_input(op, c->in[1], out->device, 1))) goto done;
        wm.p = ct__ptr(w); wm.ld = Kg; wm.bs = 0; wm.t = 0;
    }
    if (kind != 0 && !(dy = ct__cu_conv_mat_input(op, c->in[kind == 1 ? 0 : 1], out->device, &dm, &dcs))) goto done;
    if (kind == 0 && !ct__cu_conv_mat(out, &om, &ocs)) { ct__failed(CT_ERR_STATE, "%s: unexpected output layout", op); goto done; }
    {
        ct_dtype coldt = kind == 1 && half ? CT_FLOAT32 : dt;   /* the transposed op's columns in float for half inputs */
        /* the columns as matrices [Kg][L] per (sample, group): cm, a sample's stride cms, a
           group's cmg. A 1x1 convolution without stride or padding reads X itself (NCHW:
           as im2col would write it; NHWC: stored transposed), without a workspace. */
        ct__cu_gm cm;
        memset(&cm, 0, sizeof cm);
        int64_t cms = R * L, cmg = Kg * L, xcs = 0, nb = g.N;
        int direct = kind != 1 && g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0 && ct__cu_conv_mat(x, &cm, &xcs);
        if (direct && kind == 2 && !cm.t) direct = 0;   /* the weight gradient reads NHWC X directly ([(n, l)][C]), NCHW through im2col */
        if (direct) {
            cms = cm.bs;
            cmg = Kg * xcs;
        } else {
            int64_t per = R * L * (int64_t)ct__dt[coldt].size;
            nb = CT__LOAD(&ct__cu_conv_ws) / per;
            nb = nb < 1 ? 1 : nb > g.N ? g.N : nb;
            int64_t csz = nb * R * L;
            if (!(col = ct__alloc(coldt, 1, &csz, NULL, out->device))) goto done;
            cm.p = ct__ptr(col); cm.ld = L; cm.t = 0;
        }
        cm.bs = 0;
        if (kind == 2) {   /* the sum over the samples: in out, or in float for half */
            if (half && !(acc = ct__alloc(CT_FLOAT32, 4, out->shape, NULL, out->device))) goto done;
        }
        if (col) { p.col = ct__ptr(col); p.cdt = coldt; p.ces = (int32_t)ct__dt[coldt].size; }
        if (kind != 1) {
            p.x = ct__ptr(x); p.xdt = x->dtype; p.xes = (int32_t)ct__dt[x->dtype].size;
            ct__cu_strides4(x, p.xs);
        }
        for (int64_t n0 = 0; n0 < g.N; n0 += nb) {
            int64_t m = g.N - n0 < nb ? g.N - n0 : nb;
            p.n0 = n0;
            ct__cu_gm cmn = cm;   /* the chunk's first sample's columns */
            if (direct) cmn.p += ct__dt[dt].size * (size_t)(n0 * cms);
            if (kind != 1 && !direct) {
                p.n = m * R * L;
                p.cns = kind == 0 ? R * L : L;   /* the weight gradient's columns interleave the samples ([R][m][L]) */
                p.crs = kind == 0 ? L : m * L;
                if (ct__cu_conv_launch(op, dev, CT__CU_IM2COL, &p, dt)) goto done;
            }
            if (kind == 0) {   /* Y[n][g] (Og x L) = W[g] (Og x Kg) col[n][g] (Kg x L) */
                ct__cu_gm ym = om;
                ym.p += ct__dt[dt].size * (size_t)(n0 * om.bs);
                if (ct__cu_conv_mm(op, dev, dt, dt, ym, om.bs, Og * ocs, wm, 0, Og * Kg, cmn, cms, cmg, m, g.G, Og, L, Kg)) goto done;
            } else if (kind == 1) {   /* col[n][g] (Kg x L) = W[g]^T (Kg x Og) G[n][g] (Og x L), then col2im */
                ct__cu_gm wt = wm, gm = dm;
                wt.t = 1;
                gm.p += ct__dt[dt].size * (size_t)(n0 * dm.bs);
                if (ct__cu_conv_mm(op, dev, dt, coldt, cmn, cms, cmg, wt, 0, Og * Kg, gm, dm.bs, Og * dcs, m, g.G, Kg, L, Og)) goto done;
                p.y = ct__ptr(out); p.ydt = dt; p.yes = (int32_t)ct__dt[dt].size;
                p.cl = ct_is_channels_last(out) && !ct__is_contig(out);
                ct__cu_strides4(out, p.ys);
                p.n = m * g.C * g.H * g.W;
                if (ct__cu_conv_launch(op, dev, CT__CU_COL2IM, &p, dt)) goto done;
            } else {   /* dW[g] (Og x Kg) += G[g] (Og x m L) col[g]^T (m L x Kg): the chunk's samples in one product per group */
                ct_tensor *dst = acc ? acc : out;
                ct__cu_gm wg, gm = dm, cs = cmn;
                int64_t ggs = Og * dcs, cgs = cmg;   /* group strides */
                wg.p = ct__ptr(dst); wg.ld = Kg; wg.bs = 0; wg.t = 0;
                if (dm.t) {   /* NHWC: the chunk's G is [(n, l)][O] already */
                    gm.p += ct__dt[dt].size * (size_t)(n0 * dm.bs);
                } else {      /* NCHW: the chunk's G copied to [O][n][l] */
                    int64_t sh[4] = {m, g.O, g.OH, g.OW}, st[4] = {L, m * L, g.OW, 1};
                    ct_tensor src = ct__ix_view(dy, 4, sh, dy->strides, dy->offset + n0 * dy->strides[0]);
                    if (gperm) ct__decref(gperm);
                    if (!(gperm = ct__alloc(dt, 4, sh, st, out->device)) || ct__cu_copy_dev(op, gperm, &src)) goto done;
                    gm.p = ct__ptr(gperm); gm.ld = m * L; gm.t = 0;
                    ggs = Og * m * L;
                }
                if (!direct) {   /* the columns written as [R][m][L] (below): col^T is (m L x R) stored transposed */
                    cs.ld = m * L;
                    cgs = Kg * m * L;
                }
                cs.t = !cs.t;   /* col^T */
                gm.bs = ggs;
                cs.bs = cgs;
                wg.bs = Og * Kg;
                if (ct__cu_conv_gemm(op, dev, dt, dst->dtype, wg, gm, cs, Og, Kg, m * L, g.G, n0 == 0 ? 0.0 : 1.0)) goto done;
            }
        }
        if (kind == 0 && bias) {
            p.y = ct__ptr(out); p.ydt = dt; p.yes = (int32_t)ct__dt[dt].size;
            p.cl = om.t; p.C = g.O; p.H = g.OH; p.W = g.OW; p.n = numel;
            ct__cu_strides4(out, p.ys);
            if (ct__cu_conv_launch(op, dev, CT__CU_BIAS, &p, dt)) goto done;
        }
        if (acc && ct__cu_copy_dev(op, out, acc)) goto done;
    }
    rc = 0;
done:
    if (w) ct__decref(w);
    if (dy) ct__decref(dy);
    if (bias) ct__decref(bias);
    if (col) ct__decref(col);
    if (acc) ct__decref(acc);
    if (gperm) ct__decref(gperm);
    return rc;
}

/* ---- pooling ---- */
enum { CT__CU_MAXPOOL, CT__CU_MAXPOOL_BW, CT__CU_AVGPOOL, CT__CU_AVGPOOL_BW, CT__CU_ADAPTIVE, CT__CU_ADAPTIVE_BW };
typedef struct ct__cu_poolp {
    char *y;
    int64_t *yi;                     /* max_pool2d's indices (y's layout) */
    const char *x;
    const int64_t *xi;               /* max_pool2d_with_indices_backward's indices */
    int32_t kind, dt, es, cl, cip;   /* cl: y counted in NHWC order; cip: count_include_pad */
    int64_t n, C, H, W, OH, OW;      /* y's elements; the input's and the pooled plane sizes */
    int64_t kh, kw, sh, sw, ph, pw, dh, dw, divisor;
    int64_t ys[4], xs[4], yis[4], xis[4];
} ct__cu_poolp;
/* ctensor_nn.h's ct__pool_window on the device: output (oh, ow)'s window clipped
   to the input and its divisor */
__device__ __forceinline__ int64_t ct__cu_pool_window(const ct__cu_poolp &p, int adaptive, int64_t oh, int64_t ow, int64_t *h0, int64_t *h1,
                                                      int64_t *w0, int64_t *w1) {
    if (adaptive) {
        *h0 = oh * p.H / p.OH; *h1 = ((oh + 1) * p.H + p.OH - 1) / p.OH;
        *w0 = ow * p.W / p.OW; *w1 = ((ow + 1) * p.W + p.OW - 1) / p.OW;
        return (*h1 - *h0) * (*w1 - *w0);
    }
    int64_t hs = oh * p.sh - p.ph, ws = ow * p.sw - p.pw;
    int64_t he = hs + p.kh < p.H + p.ph ? hs + p.kh : p.H + p.ph, we = ws + p.kw < p.W + p.pw ? ws + p.kw : p.W + p.pw;
    int64_t pool = (he - hs) * (we - ws);
    *h0 = hs > 0 ? hs : 0; *w0 = ws > 0 ? ws : 0; *h1 = he < p.H ? he : p.H; *w1 = we < p.W ? we : p.W;
    if (p.divisor) return p.divisor;
    return p.cip ? pool : (*h1 - *h0) * (*w1 - *w0);
}
/* the pooled rows [lo, hi] whose windows (k taps, stride s, padding pd, dilation d) can hold input row h */
__device__ __forceinline__ void ct__cu_pool_span(int64_t h, int64_t k, int64_t s, int64_t pd, int64_t d, int64_t out, int64_t *lo, int64_t *hi) {
    int64_t a = h + pd - (k - 1) * d, b = h + pd;
    *lo = a <= 0 ? 0 : (a + s - 1) / s;
    *hi = b / s < out - 1 ? b / s : out - 1;
}
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_pool_kernel(const ct__cu_poolp p) {
    using ct__cu_dev::ld;
    using ct__cu_dev::st;
    const int bw = p.kind == CT__CU_MAXPOOL_BW || p.kind == CT__CU_AVGPOOL_BW || p.kind == CT__CU_ADAPTIVE_BW;
    const int adaptive = p.kind == CT__CU_ADAPTIVE || p.kind == CT__CU_ADAPTIVE_BW;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t n, c, a, b;   /* y's coordinates: (a, b) a pooled position, or an input one for the backward ops */
        ct__cu_nchw(i, p.cl, p.C, bw ? p.H : p.OH, bw ? p.W : p.OW, &n, &c, &a, &b);
        const char *xp = p.x + (n * p.xs[0] + c * p.xs[1]) * p.es;
        char *yp = p.y + (n * p.ys[0] + c * p.ys[1] + a * p.ys[2] + b * p.ys[3]) * p.es;
        if (p.kind == CT__CU_MAXPOOL) {   /* the CPU kernel's scan: rows, then columns; a later NaN or a larger value wins */
            int64_t h0 = a * p.sh - p.ph, h1 = h0 + (p.kh - 1) * p.dh + 1, w0 = b * p.sw - p.pw, w1 = w0 + (p.kw - 1) * p.dw + 1;
            if (h1 > p.H) h1 = p.H;
            if (w1 > p.W) w1 = p.W;
            while (h0 < 0) h0 += p.dh;
            while (w0 < 0) w0 += p.dw;
            C m = -(C)INFINITY;
            int64_t mi = h0 * p.W + w0;
            for (int64_t ih = h0; ih < h1; ih += p.dh)
                for (int64_t iw = w0; iw < w1; iw += p.dw) {
                    C v = ld<C>(xp + (ih * p.xs[2] + iw * p.xs[3]) * p.es, p.dt);
                    if (v > m || v != v) { m = v; mi = ih * p.W + iw; }
                }
            st<C>(yp, p.dt, m);
            p.yi[n * p.yis[0] + c * p.yis[1] + a * p.yis[2] + b * p.yis[3]] = mi;
        } else if (p.kind == CT__CU_MAXPOOL_BW) {   /* the pooled outputs whose index is this pixel */
            int64_t olo, ohi, plo, phi, me = a * p.W + b;
            ct__cu_pool_span(a, p.kh, p.sh, p.ph, p.dh, p.OH, &olo, &ohi);
            ct__cu_pool_span(b, p.kw, p.sw, p.pw, p.dw, p.OW, &plo, &phi);
            const int64_t *ip = p.xi + n * p.xis[0] + c * p.xis[1];
            C s = 0;
            for (int64_t oh = olo; oh <= ohi; oh++)
                for (int64_t ow = plo; ow <= phi; ow++)
                    if (ip[oh * p.xis[2] + ow * p.xis[3]] == me) s += ld<C>(xp + (oh * p.xs[2] + ow * p.xs[3]) * p.es, p.dt);
            st<C>(yp, p.dt, s);
        } else if (!bw) {   /* avg / adaptive avg: the window's sum over its divisor */
            int64_t h0, h1, w0, w1;
            C div = (C)ct__cu_pool_window(p, adaptive, a, b, &h0, &h1, &w0, &w1), s = 0;
            for (int64_t ih = h0; ih < h1; ih++)
                for (int64_t iw = w0; iw < w1; iw++) s += ld<C>(xp + (ih * p.xs[2] + iw * p.xs[3]) * p.es, p.dt);
            st<C>(yp, p.dt, h0 < h1 && w0 < w1 ? s / div : (C)0);
        } else {   /* their backward: each window holding this pixel gives its gradient over its divisor */
            int64_t olo, ohi, plo, phi;
            if (adaptive) {   /* the windows of oh are [oh H / OH, ceil((oh + 1) H / OH)): they hold a for these oh */
                olo = a * p.OH / p.H; ohi = ((a + 1) * p.OH + p.H - 1) / p.H - 1;
                plo = b * p.OW / p.W; phi = ((b + 1) * p.OW + p.W - 1) / p.W - 1;
                if (ohi > p.OH - 1) ohi = p.OH - 1;
                if (phi > p.OW - 1) phi = p.OW - 1;
            } else {
                ct__cu_pool_span(a, p.kh, p.sh, p.ph, 1, p.OH, &olo, &ohi);
                ct__cu_pool_span(b, p.kw, p.sw, p.pw, 1, p.OW, &plo, &phi);
            }
            C s = 0;
            for (int64_t oh = olo; oh <= ohi; oh++)
                for (int64_t ow = plo; ow <= phi; ow++) {
                    int64_t h0, h1, w0, w1;
                    C div = (C)ct__cu_pool_window(p, adaptive, oh, ow, &h0, &h1, &w0, &w1);
                    if (a >= h0 && a < h1 && b >= w0 && b < w1) s += ld<C>(xp + (oh * p.xs[2] + ow * p.xs[3]) * p.es, p.dt) / div;
                }
            st<C>(yp, p.dt, s);
        }
    }
}
static int ct__cu_k_pool(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    ct_tensor *y = c->out[0], *yi = c->nout > 1 ? c->out[1] : NULL;
    if (ct__cu_out_on_device(c, y)) return -1;
    int local = c->op - ct__nn_base;
    int kind = local == CT__NN_MAX_POOL2D ? CT__CU_MAXPOOL : local == CT__NN_MAX_POOL2D_BACKWARD ? CT__CU_MAXPOOL_BW
             : local == CT__NN_AVG_POOL2D ? CT__CU_AVGPOOL : local == CT__NN_AVG_POOL2D_BACKWARD ? CT__CU_AVGPOOL_BW
             : local == CT__NN_ADAPTIVE_AVG_POOL2D ? CT__CU_ADAPTIVE : CT__CU_ADAPTIVE_BW;
    int bw = kind == CT__CU_MAXPOOL_BW || kind == CT__CU_AVGPOOL_BW || kind == CT__CU_ADAPTIVE_BW;
    int64_t numel = ct__shape_numel(y->ndim, y->shape);
    if (numel == 0) return 0;
    ct_tensor *x = ct__cu_input(op, c->in[0], y->device, 0), *xi = NULL;
    if (!x) return -1;
    if (kind == CT__CU_MAXPOOL_BW && !(xi = ct__cu_input(op, c->in[1], y->device, 0))) { ct__decref(x); return -1; }
    const ct__attrs *at = c->a;
    const ct_tensor *big = bw ? y : x, *small = bw ? x : y;
    ct__cu_poolp p;
    memset(&p, 0, sizeof p);
    p.kind = kind;
    p.dt = x->dtype;
    p.es = (int32_t)ct__dt[x->dtype].size;
    p.cl = ct_is_channels_last(y) && !ct__is_contig(y);
    p.cip = (at->flags & 2) != 0;
    p.n = numel;
    p.C = y->shape[1]; p.H = big->shape[2]; p.W = big->shape[3]; p.OH = small->shape[2]; p.OW = small->shape[3];
    p.kh = at->v[0]; p.kw = at->v[1]; p.sh = at->v[2]; p.sw = at->v[3]; p.ph = at->v[4]; p.pw = at->v[5];
    p.dh = kind == CT__CU_MAXPOOL || kind == CT__CU_MAXPOOL_BW ? at->v[6] : 1;
    p.dw = kind == CT__CU_MAXPOOL || kind == CT__CU_MAXPOOL_BW ? at->v[7] : 1;
    p.divisor = kind == CT__CU_AVGPOOL || kind == CT__CU_AVGPOOL_BW ? at->i[0] : 0;
    p.y = ct__ptr(y);
    p.x = ct__ptr(x);
    ct__cu_strides4(y, p.ys);
    ct__cu_strides4(x, p.xs);
    if (yi) { p.yi = (int64_t *)ct__ptr(yi); ct__cu_strides4(yi, p.yis); }
    if (xi) { p.xi = (const int64_t *)ct__ptr(xi); ct__cu_strides4(xi, p.xis); }
    int rc = -1;
    {
        ct__cu_guard guard(y->device.index, op);
        if (guard.ok) {
            unsigned blocks = ct__cu_blocks(numel, CT__CU_THREADS, y->device.index);
            if (p.dt == CT_FLOAT64) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_pool_kernel<double>);
            else CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_pool_kernel<float>);
            rc = ct__cu_launched(op);
        }
    }
    ct__decref(x);
    if (xi) ct__decref(xi);
    return rc;
}

/* ---- metas: float16 and bfloat16 on the device ----
   ctensor_nn.h's metas take float32 and float64 (its CPU kernels' dtypes). For
   a float16 or bfloat16 call the meta runs on headers that say float32 (shapes,
   strides, every check and message the same), and the outputs get the dtype back. */
static int ct__cu_half_meta(ct__call *c, int ntyped, int (*meta)(ct__call *)) {
    ct_dtype dt = c->nin > 0 ? c->in[0]->dtype : CT_FLOAT32;
    if (dt != CT_FLOAT16 && dt != CT_BFLOAT16) return meta(c);
    const char *nm = ct__opdef_get(c->op)->name;
    int n = c->nin < ntyped ? c->nin : ntyped;
    for (int i = 1; i < n; i++)
        if (c->in[i]->dtype != dt) return ct__failed(CT_ERR_DTYPE, "%s: expected scalar type %s but found %s", nm, CT__DTNAME(dt), CT__DTNAME(c->in[i]->dtype));
    if (c->nin > 8) return meta(c);
    ct_tensor hdr[8], *ins[8];
    for (int i = 0; i < c->nin; i++) {
        ins[i] = c->in[i];
        if (i < n) {
            hdr[i] = *c->in[i];
            hdr[i].dtype = CT_FLOAT32;
            ins[i] = &hdr[i];
        }
    }
    ct_tensor *const *orig = c->in;
    c->in = ins;
    int rc = meta(c);
    c->in = orig;
    if (rc) return rc;
    for (int j = 0; j < c->nout; j++)
        if (c->oi[j].dtype == CT_FLOAT32) c->oi[j].dtype = dt;
    return 0;
}
static int ct__cu_meta_conv(ct__call *c) { return ct__cu_half_meta(c, 3, ct__meta_conv); }
static int ct__cu_meta_pool(ct__call *c) { return ct__cu_half_meta(c, 1, ct__meta_pool); }

/* this section's registrations, by the ops' stable names */
typedef struct ct__cu_nnreg { const char *name; ct_meta_fn meta; ct_kernel_fn fn; } ct__cu_nnreg;
static const ct__cu_nnreg ct__cu_conv_kernels[] = {
    {"aten::conv2d", ct__cu_meta_conv, ct__cu_k_conv},
    {"ct::conv2d_relu", ct__cu_meta_conv, ct__cu_k_conv},
    {"aten::conv_transpose2d.input", ct__cu_meta_conv, ct__cu_k_conv},
    {"ct::convolution_backward_weight", ct__cu_meta_conv, ct__cu_k_conv},
    {"aten::max_pool2d_with_indices", ct__cu_meta_pool, ct__cu_k_pool},
    {"aten::max_pool2d_with_indices_backward", ct__cu_meta_pool, ct__cu_k_pool},
    {"aten::avg_pool2d", ct__cu_meta_pool, ct__cu_k_pool},
    {"aten::avg_pool2d_backward", ct__cu_meta_pool, ct__cu_k_pool},
    {"aten::adaptive_avg_pool2d", ct__cu_meta_pool, ct__cu_k_pool},
    {"aten::adaptive_avg_pool2d_backward", ct__cu_meta_pool, ct__cu_k_pool},
};
static void ct__cu_conv_register(void) {
    ct__nn_register_now();   /* the nn ops' block first: their names resolve only once it is registered */
    for (size_t k = 0; k < sizeof ct__cu_conv_kernels / sizeof ct__cu_conv_kernels[0]; k++)
        ct_register_backend_op(ct__cu_conv_kernels[k].name, CT_BACKEND_CUDA, ct__cu_conv_kernels[k].meta, ct__cu_conv_kernels[k].fn);
}
#else
static void ct__cu_conv_register(void) {}   /* ctensor_nn.h not included (or after this header): nothing to register */
#endif /* CTENSOR_NN_IMPLEMENTATION_DONE */

/* ============================================================================
   Resampling: upsampling and grid sampling (ctensor_nn.h's ops, when it is
   included first)
   The upsampling ops (nearest, nearest-exact 1-D/2-D/3-D; linear 1-D,
   bilinear 2-D, bicubic 2-D, trilinear 3-D) and their backward ops, and
   grid_sampler_2d / _3d and their backward ops.
   Upsampling: one thread per element of the output-sized tensor (the
   forward's output, the backward's grad_output), counted in its memory order
   (NC(D)HW or channels-last), reading through strides. The thread computes
   its own taps per spatial dim with ctensor_nn.h's rules (ct__rs_dim_fill:
   floor(scale o) for nearest, round(scale (o + 1/2) - 1/2) for nearest-exact,
   the linear and cubic source index with align_corners, A = -0.75 cubic
   weights and clamped taps; the scales are the CPU's ct__rs_scale, taken on
   the host) in the same precision (float32 rounding for float32), and sums
   them in the CPU's nesting (W, then H, then D), so the forward rounds as
   the CPU's (bit for bit on tests/cuda's emulator; the additions are
   __fadd_rn / __dadd_rn, never fused with a product, as the CPU build does
   not fuse). The backward op adds each
   gradient element's weighted share into grad_input atomically (zeroed
   first): sums in any order, so within rounding of the CPU's.
   Grid sampling: one thread per (sample, grid point), looping over the
   channels (its taps, as ctensor_nn.h's ct__gs_taps: unnormalize, padding
   zeros / border / reflection, bilinear / nearest / bicubic, align_corners,
   computed once for every channel). The forward writes each channel's
   weighted sum (the CPU's order); the backward adds w g into grad_input
   atomically and sums grad_grid's channel terms in the thread (no atomics).
   float16 and bfloat16 run on the device only (ctensor_nn.h's CPU kernels
   take float32 and float64): computed in float with float32 weights, their
   atomic sums in a float32 buffer rounded once at the end; the metas accept
   them through ct__cu_half_meta. Status: checked on tests/cuda's emulator
   against the CPU kernels and compiled warning-free by nvcc; not yet run on a GPU.
   ========================================================================== */
#ifdef CTENSOR_NN_IMPLEMENTATION_DONE
namespace ct__cu_dev {
/* v in the op's precision (ctensor_nn.h's ct__rs_r) */
__device__ __forceinline__ double rs_r(double v, int f) { return f ? (double)(float)v : v; }
/* a + b and a - b on their own (the CPU's arithmetic: nvcc would fuse a product into them) */
__device__ __forceinline__ float rs_add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double rs_add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ double rs_addr(double a, double b, int f) { return rs_r(__dadd_rn(a, b), f); }
__device__ __forceinline__ double rs_subr(double a, double b, int f) { return rs_r(__dsub_rn(a, b), f); }
/* ct__rs_cc1, ct__rs_cc2 and ct__rs_cubic_coeffs: A = -0.75 */
__device__ __forceinline__ double rs_cc1(double x, int f) {
    const double A = -0.75;
    return rs_addr(rs_r(rs_r(rs_subr(rs_r((A + 2) * x, f), A + 3, f) * x, f) * x, f), 1, f);
}
__device__ __forceinline__ double rs_cc2(double x, int f) {
    const double A = -0.75;
    return rs_subr(rs_addr(rs_r(rs_subr(rs_r(A * x, f), 5 * A, f) * x, f), 8 * A, f) * x, 4 * A, f);
}
__device__ __forceinline__ void rs_cubic_coeffs(double t, int f, double *c) {
    double x2 = rs_r(1.0 - t, f);
    c[0] = rs_cc2(rs_r(t + 1.0, f), f);
    c[1] = rs_cc1(t, f);
    c[2] = rs_cc1(x2, f);
    c[3] = rs_cc2(rs_r(x2 + 1.0, f), f);
}
} /* namespace ct__cu_dev */

/* ---- upsampling ---- */
typedef struct ct__cu_upp {
    char *y;                     /* forward: the output; backward: grad_input (or its float32 buffer) */
    const char *x;               /* forward: the input; backward: grad_output */
    int32_t dt;                  /* the compute dtype: float64, else float */
    int32_t xdt, ydt, xes, yes, mode, f32, bw, cl, dims;
    int64_t n;                   /* work items: the output-sized tensor's elements */
    int64_t C, in[3], out[3];    /* D, H, W (absent dims: 1) */
    double sc[3];                /* ct__rs_scale per dim */
    int64_t is[5], os[5];        /* element strides (N, C, D, H, W; absent dims 0) of the input-sized and the output-sized tensor */
    int align;
} ct__cu_upp;
/* output index o's taps along one dim (ct__rs_dim_fill's rules): K indices and weights */
template <class C>
__device__ __forceinline__ int ct__cu_up_taps(const ct__cu_upp &p, int q, int64_t o, int64_t *ix, C *w) {
    using ct__cu_dev::rs_r;
    const int f = p.f32;
    const int64_t in = p.in[q], out = p.out[q];
    const double sc = p.sc[q];
    if (q < 3 - p.dims) { ix[0] = 0; w[0] = (C)1; return 1; }   /* an absent dim */
    if (p.mode == CT__RS_NEAREST) {
        int64_t i = (int64_t)floor((double)(float)rs_r(sc * (double)o, f));
        ix[0] = i < in - 1 ? i : in - 1;
        w[0] = (C)1;
        return 1;
    }
    if (p.mode == CT__RS_EXACT) {
        double real = rs_r(fma(sc, (double)o + 0.5, -0.5), f);
        if (real < 0) real = 0;
        int64_t i = (int64_t)floor((double)(float)(real + 0.5));
        ix[0] = i < in - 1 ? i : in - 1;
        w[0] = (C)1;
        return 1;
    }
    double real = p.align ? sc * (double)o : fma(sc, (double)o + 0.5, -0.5);
    if (p.mode == CT__RS_LINEAR) {
        if (in == out) { ix[0] = ix[1] = o; w[0] = (C)1; w[1] = (C)0; return 2; }
        if (real < 0) real = 0;
        int64_t i0 = (int64_t)real;
        if (i0 > in - 1) i0 = in - 1;
        ix[0] = i0;
        ix[1] = i0 + (i0 < in - 1 ? 1 : 0);
        double w1 = rs_r(real - (double)i0, f);
        w[1] = (C)w1;
        w[0] = (C)rs_r(1.0 - w1, f);
        return 2;
    }
    double fl = floor((double)(float)real), cf[4];
    int64_t i = (int64_t)fl;
    ct__cu_dev::rs_cubic_coeffs(rs_r(real - fl, f), f, cf);
    for (int k = 0; k < 4; k++) {
        int64_t t = i - 1 + k;
        ix[k] = t < 0 ? 0 : t > in - 1 ? in - 1 : t;
        w[k] = (C)cf[k];
    }
    return 4;
}
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_up_kernel(const ct__cu_upp p) {
    using ct__cu_dev::rs_add;
    using ct__cu_dev::ld;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t r = i, o[3], n, c;
        if (p.cl) {
            c = r % p.C; r /= p.C;
            o[2] = r % p.out[2]; r /= p.out[2];
            o[1] = r % p.out[1]; r /= p.out[1];
            o[0] = r % p.out[0]; n = r / p.out[0];
        } else {
            o[2] = r % p.out[2]; r /= p.out[2];
            o[1] = r % p.out[1]; r /= p.out[1];
            o[0] = r % p.out[0]; r /= p.out[0];
            c = r % p.C; n = r / p.C;
        }
        int64_t ix[3][4];
        C w[3][4];
        int K[3];
        for (int q = 0; q < 3; q++) K[q] = ct__cu_up_taps<C>(p, q, o[q], ix[q], w[q]);
        const int64_t ob = n * p.os[0] + c * p.os[1] + o[0] * p.os[2] + o[1] * p.os[3] + o[2] * p.os[4];
        const int64_t ib = n * p.is[0] + c * p.is[1];
        if (!p.bw) {   /* sum_d wd * (sum_h wh * (sum_w ww * x)), each sum left to right (the CPU's passes) */
            C acc = 0;
            for (int kd = 0; kd < K[0]; kd++) {
                C ah = 0;
                for (int kh = 0; kh < K[1]; kh++) {
                    const char *row = p.x + (ib + ix[0][kd] * p.is[2] + ix[1][kh] * p.is[3]) * p.xes;
                    C aw = ld<C>(row + ix[2][0] * p.is[4] * p.xes, p.xdt) * w[2][0];
                    for (int kw = 1; kw < K[2]; kw++) aw = rs_add(aw, ld<C>(row + ix[2][kw] * p.is[4] * p.xes, p.xdt) * w[2][kw]);
                    ah = kh ? rs_add(ah, aw * w[1][kh]) : aw * w[1][kh];
                }
                acc = kd ? rs_add(acc, ah * w[0][kd]) : ah * w[0][kd];
            }
            ct__cu_dev::st<C>(p.y + ob * p.yes, p.ydt, acc);
        } else {   /* the adjoint: grad_input[taps] += ww (wh (wd g)) */
            const C g = ld<C>(p.x + ob * p.xes, p.xdt);
            for (int kd = 0; kd < K[0]; kd++) {
                const C gd = w[0][kd] * g;
                for (int kh = 0; kh < K[1]; kh++) {
                    const C gh = w[1][kh] * gd;
                    char *row = p.y + (ib + ix[0][kd] * p.is[2] + ix[1][kh] * p.is[3]) * p.yes;
                    for (int kw = 0; kw < K[2]; kw++) ct__cu_dev::atomic_add<C>(row + ix[2][kw] * p.is[4] * p.yes, p.ydt, w[2][kw] * gh);
                }
            }
        }
    }
}
/* a float32 buffer for the atomic sums of a float16 / bfloat16 result t (its layout), zeroed; or t itself, zeroed */
static ct_tensor *ct__cu_rs_acc(const char *op, ct_tensor *t) {
    int half = t->dtype == CT_FLOAT16 || t->dtype == CT_BFLOAT16;
    ct_tensor *a = half ? ct__alloc(CT_FLOAT32, t->ndim, t->shape, t->strides, t->device) : ct__incref(t);
    if (a && ct__cu_fill(op, a, 0.0)) { ct__decref(a); a = NULL; }
    return a;
}
/* the upsampling ops and their backward ops (ctensor_nn.h's ct__k_upsample's attributes) */
static int ct__cu_k_upsample(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    int k = ct__ups_local(c->op), bw = k & 1, dims = ct__ups_info[k >> 1].dims, mode = ct__ups_info[k >> 1].mode;
    ct_tensor *dst = c->out[0];
    if (ct__cu_out_on_device(c, dst)) return -1;
    ct_dtype dt = dst->dtype;
    int dev = dst->device.index;
    ct_tensor *src = ct__cu_input(op, c->in[0], dst->device, 0), *acc = NULL;
    if (!src) return -1;
    int rc = -1;
    const ct_tensor *tin = bw ? dst : src, *tout = bw ? src : dst;
    ct__cu_upp p;
    memset(&p, 0, sizeof p);
    if (bw && !(acc = ct__cu_rs_acc(op, dst))) goto done;
    p.y = ct__ptr(bw ? acc : dst);
    p.x = ct__ptr(src);
    p.xdt = src->dtype; p.xes = (int32_t)ct__dt[src->dtype].size;
    p.ydt = bw ? acc->dtype : dt; p.yes = (int32_t)ct__dt[p.ydt].size;
    p.dt = dt; p.mode = mode; p.bw = bw; p.dims = dims;
    p.f32 = dt != CT_FLOAT64;
    p.align = (c->a->flags & 1) != 0;
    p.n = ct_numel(tout);
    p.cl = dims >= 2 && ct__rs_suggest_cl(tout);
    p.C = tout->shape[1];
    p.is[0] = tin->strides[0]; p.is[1] = tin->strides[1];
    p.os[0] = tout->strides[0]; p.os[1] = tout->strides[1];
    for (int q = 0; q < 3; q++) {
        int sp = q - (3 - dims);   /* spatial index, < 0: absent */
        p.in[q] = sp >= 0 ? tin->shape[2 + sp] : 1;
        p.out[q] = sp >= 0 ? tout->shape[2 + sp] : 1;
        p.is[2 + q] = sp >= 0 ? tin->strides[2 + sp] : 0;
        p.os[2 + q] = sp >= 0 ? tout->strides[2 + sp] : 0;
        p.sc[q] = sp >= 0 ? ct__rs_scale(p.in[q], p.out[q], mode >= CT__RS_LINEAR && p.align, c->a->s[sp], p.f32) : 1.0;
    }
    if (p.n > 0 && ct_numel(tin) > 0) CT__CU_NN_RUN(rc, op, dev, ct__cu_up_kernel, ct__cu_blocks(p.n, CT__CU_THREADS, dev), p);
    else rc = 0;
    if (rc == 0 && acc && acc != dst) rc = ct__cu_copy_dev(op, dst, acc);
done:
    ct__decref(src);
    if (acc) ct__decref(acc);
    return rc;
}

/* ---- grid sampling ---- */
namespace ct__cu_dev {
/* ctensor_nn.h's ct__gs_* coordinate functions, on the device (same arithmetic) */
__device__ __forceinline__ double gs_max(double a, double b) { return a != a ? a : a > b ? a : b; }
__device__ __forceinline__ double gs_min(double a, double b) { return a != a ? a : a < b ? a : b; }
static __device__ double gs_unnormalize(const ct__gs_axis &x, double c, double *g) {
    const int f = x.f;
    if (x.d3) {
        double s = rs_r((double)x.size, f), s1 = rs_r((double)(x.size - 1), f);
        if (g) *g = rs_r((x.align ? s1 : s) / 2, f);
        if (x.align) return rs_r(rs_r(rs_r(c + 1, f) / 2, f) * s1, f);
        return rs_r(rs_subr(rs_r(rs_r(c + 1, f) * s, f), 1, f) / 2, f);
    }
    if (g) *g = x.sf;
    double u = rs_r(rs_r(c + 1, f) * x.sf, f);
    return x.align ? u : rs_subr(u, 0.5, f);
}
static __device__ double gs_clip(const ct__gs_axis &x, double v, double *g) {
    double lo = gs_max(v, 0.0);
    double r = gs_min(lo, x.maxv);
    if (g) *g = (lo != 0.0 && r != x.maxv && v == v) ? 1.0 : 0.0;
    if (x.d3 && g && !(v > 0.0 && v < x.maxv)) *g = 0.0;
    return r;
}
static __device__ double gs_reflect(const ct__gs_axis &x, double v, double *g) {
    const int f = x.f;
    if (x.d3) {
        int64_t tl = x.align ? 0 : -1, th = x.align ? 2 * (x.size - 1) : 2 * x.size - 1;
        if (tl == th) { if (g) *g = 0; return 0.0; }
        double mn = rs_r((double)tl / 2, f), span = rs_r((double)(th - tl) / 2, f);
        double in = rs_subr(v, mn, f), sign = 1;
        if (in < 0) { sign = -1; in = -in; }
        double extra = fmod(in, span);
        int flips = (int)floor(rs_r(in / span, f));
        if (flips % 2 == 0) { if (g) *g = sign; return rs_addr(extra, mn, f); }
        if (g) *g = -sign;
        return rs_addr(rs_subr(span, extra, f), mn, f);
    }
    if (x.empty) { if (g) *g = 0; return 0.0; }
    double iml = rs_subr(v, x.low, f);
    int neg = iml < 0;
    double ab = fabs(iml);
    double flips = trunc(rs_r(ab / x.twice_span, f));
    double extra = rs_subr(ab, rs_r(flips * x.twice_span, f), f);
    double refl = rs_subr(x.twice_span, extra, f);
    int more = extra > refl;
    if (g) *g = (more ^ neg) ? -1.0 : 1.0;
    return rs_addr(more ? refl : extra, x.low, f);
}
static __device__ double gs_pad(const ct__gs_axis &x, double v, double *g) {
    double g1 = 1, g2 = 1;
    if (x.pad == 1) v = gs_clip(x, v, g ? &g1 : NULL);
    else if (x.pad == 2) { v = gs_reflect(x, v, g ? &g2 : NULL); v = gs_clip(x, v, g ? &g1 : NULL); }
    if (g) *g = rs_r(g1 * g2, x.f);
    return v;
}
static __device__ double gs_source(const ct__gs_axis &x, double c, double *g) {
    double gu = 1, gp = 1;
    double v = gs_pad(x, gs_unnormalize(x, c, g ? &gu : NULL), g ? &gp : NULL);
    if (g) *g = gp == 1.0 ? gu : rs_r(gp * gu, x.f);
    return v;
}
__device__ __forceinline__ int64_t gs_index(double i, int64_t size) { return i >= 0 && i <= (double)(size - 1) ? (int64_t)i : -1; }
/* d coeff / d t of the cubic weights (ct__gs_taps' gx) */
__device__ __forceinline__ void gs_cubic_grad(double tx, int f, double *gx) {
    const double A = -0.75;
    double t;
    t = rs_r(-1.0 - tx, f); gx[0] = -rs_subr(rs_r(rs_subr(rs_r(-3 * A * t, f), 10 * A, f) * t, f), 8 * A, f);
    t = rs_r(0.0 - tx, f); gx[1] = -rs_r(rs_subr(rs_r(-3 * (A + 2) * t, f), 2 * (A + 3), f) * t, f);
    t = rs_r(1.0 - tx, f); gx[2] = -rs_r(rs_subr(rs_r(3 * (A + 2) * t, f), 2 * (A + 3), f) * t, f);
    t = rs_r(2.0 - tx, f); gx[3] = -rs_addr(rs_r(rs_subr(rs_r(3 * A * t, f), 10 * A, f) * t, f), 8 * A, f);
}
} /* namespace ct__cu_dev */

typedef struct ct__cu_gsp {
    char *y, *gg;                  /* forward: the output; backward: grad_input (or its float32 buffer), grad_grid */
    const char *x, *grid, *gy;     /* the input, the grid, grad_output (backward) */
    int32_t dt;                    /* the compute dtype: float64, else float */
    int32_t xdt, ydt, ggdt, es, yes, nsp, interp, bw, want_gi, want_gg;
    int64_t n;                     /* work items: N P */
    int64_t C, P, IP, out[3];      /* out: the grid's (D,) H, W */
    int64_t xs[5], gs[5], gys[5];  /* element strides: the input, the grid, grad_output */
    int64_t cst[3];                /* a contiguous plane's strides along x, y, z (grad_input) */
    ct__gs_axis ax[3];             /* x (W), y (H), z (D) */
} ct__cu_gsp;
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_gs_kernel(const ct__cu_gsp p) {
    using namespace ct__cu_dev;
    const int ns = p.nsp, f = p.ax[0].f;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t n = i / p.P, pt = i % p.P;
        int64_t rem = pt, go = n * p.gs[0], gyo = n * p.gys[0];
        for (int q = ns - 1; q >= 0; q--) {
            go += (rem % p.out[q]) * p.gs[1 + q];
            gyo += (rem % p.out[q]) * p.gys[2 + q];
            rem /= p.out[q];
        }
        double cc[3], m[3] = {0, 0, 0};
        for (int q = 0; q < ns; q++) cc[q] = ld<double>(p.grid + (go + q * p.gs[ns + 1]) * p.es, p.xdt);
        int64_t ti[16][3];   /* each tap's x, y, z index (-1: outside) */
        C w[16], dw[16][3];
        int K;
        if (p.interp == 2) {   /* bicubic: the unnormalized point, padding per tap */
            double ux = gs_unnormalize(p.ax[0], cc[0], &m[0]), uy = gs_unnormalize(p.ax[1], cc[1], &m[1]);
            double fx = floor(ux), fy = floor(uy);
            double tx = rs_r(ux - fx, f), ty = rs_r(uy - fy, f), cx[4], cy[4], gx[4], gy[4];
            rs_cubic_coeffs(tx, f, cx);
            rs_cubic_coeffs(ty, f, cy);
            gs_cubic_grad(tx, f, gx);
            gs_cubic_grad(ty, f, gy);
            int64_t xi[4], yi[4];
            for (int k = 0; k < 4; k++) {
                xi[k] = gs_index(gs_pad(p.ax[0], fx - 1 + k, NULL), p.ax[0].size);
                yi[k] = gs_index(gs_pad(p.ax[1], fy - 1 + k, NULL), p.ax[1].size);
            }
            K = 16;
            for (int j = 0; j < 4; j++)
                for (int k = 0; k < 4; k++) {
                    int t = j * 4 + k;
                    ti[t][0] = xi[k];
                    ti[t][1] = yi[j];
                    w[t] = (C)rs_r(cx[k] * cy[j], f);
                    dw[t][0] = (C)(gx[k] * cy[j]);
                    dw[t][1] = (C)(cx[k] * gy[j]);
                    dw[t][2] = 0;
                }
        } else {
            double u[3];
            for (int q = 0; q < ns; q++) u[q] = gs_source(p.ax[q], cc[q], &m[q]);
            if (p.interp == 1) {
                K = 1;
                for (int q = 0; q < ns; q++) ti[0][q] = gs_index(nearbyint(u[q]), p.ax[q].size);
                w[0] = 1;
                dw[0][0] = dw[0][1] = dw[0][2] = 0;
            } else {   /* corners: x fastest, then y, then z */
                double fl[3], fr[3], e[3];
                int64_t i0[3], i1[3];
                K = 1 << ns;
                for (int q = 0; q < ns; q++) {
                    fl[q] = floor(u[q]);
                    fr[q] = rs_r(u[q] - fl[q], f);
                    e[q] = rs_r(1.0 - fr[q], f);
                    i0[q] = gs_index(fl[q], p.ax[q].size);
                    i1[q] = gs_index(fl[q] + 1, p.ax[q].size);
                }
                if (ns == 3)
                    for (int q = 0; q < 3; q++) e[q] = rs_r(fl[q] + 1 - u[q], f), fr[q] = rs_r(u[q] - fl[q], f);
                for (int t = 0; t < K; t++) {
                    double ww, dd[3] = {1, 1, 1};
                    for (int q = 0; q < ns; q++) {
                        int hi = (t >> q) & 1;
                        ti[t][q] = hi ? i1[q] : i0[q];
                        double lw = hi ? fr[q] : e[q];
                        for (int r = 0; r < ns; r++) dd[r] = r == q ? dd[r] * (hi ? 1.0 : -1.0) : rs_r(dd[r] * lw, f);
                    }
                    double lx = t & 1 ? fr[0] : e[0], ly = (t >> 1) & 1 ? fr[1] : e[1];
                    if (ns == 2) ww = rs_r(ly * lx, f);
                    else ww = rs_r(rs_r(lx * ly, f) * ((t >> 2) & 1 ? fr[2] : e[2]), f);
                    w[t] = (C)ww;
                    for (int r = 0; r < 3; r++) dw[t][r] = (C)(r < ns ? dd[r] : 0);
                }
            }
        }
        int64_t off[16], goff[16];   /* the taps' offsets in x's plane and in a contiguous plane; -1 outside */
        for (int t = 0; t < K; t++) {
            int64_t o1 = 0, o2 = 0;
            for (int q = 0; q < ns; q++) {
                if (ti[t][q] < 0) { o1 = o2 = -1; break; }
                o1 += ti[t][q] * p.xs[ns + 1 - q];
                o2 += ti[t][q] * p.cst[q];
            }
            off[t] = o1;
            goff[t] = o2;
        }
        const char *xc = p.x + n * p.xs[0] * p.es;
        if (!p.bw) {   /* each channel: sum_k x[tap k] w[k] (a tap outside reads 0) */
            char *yp = p.y + ((n * p.C) * p.P + pt) * p.yes;
            for (int64_t ch = 0; ch < p.C; ch++, xc += p.xs[1] * p.es, yp += p.P * p.yes) {
                C acc = (off[0] < 0 ? (C)0 : ld<C>(xc + off[0] * p.es, p.xdt)) * w[0];
                for (int t = 1; t < K; t++) acc = rs_add(acc, (off[t] < 0 ? (C)0 : ld<C>(xc + off[t] * p.es, p.xdt)) * w[t]);
                st<C>(yp, p.ydt, acc);
            }
            continue;
        }
        C sgx = 0, sgy = 0, sgz = 0;
        char *gic = p.want_gi ? p.y + n * p.C * p.IP * p.yes : NULL;
        const char *gp = p.gy + gyo * p.es;
        for (int64_t ch = 0; ch < p.C; ch++, xc += p.xs[1] * p.es, gp += p.gys[1] * p.es) {
            const C g = ld<C>(gp, p.xdt);
            if (gic) {
                for (int t = 0; t < K; t++)
                    if (off[t] >= 0) atomic_add<C>(gic + goff[t] * p.yes, p.ydt, w[t] * g);
                gic += p.IP * p.yes;
            }
            if (p.want_gg) {
                C sx = 0, sy = 0, sz = 0;
                for (int t = 0; t < K; t++) {
                    C v = off[t] < 0 ? (C)0 : ld<C>(xc + off[t] * p.es, p.xdt);
                    sx = rs_add(sx, v * dw[t][0]);
                    sy = rs_add(sy, v * dw[t][1]);
                    if (ns == 3) sz = rs_add(sz, v * dw[t][2]);
                }
                sgx = rs_add(sgx, sx * g);
                sgy = rs_add(sgy, sy * g);
                sgz = rs_add(sgz, sz * g);
            }
        }
        if (p.want_gg) {
            const C s3[3] = {sgx, sgy, sgz};
            char *ggp = p.gg + (n * p.P + pt) * ns * p.yes;
            for (int q = 0; q < ns; q++) st<C>(ggp + q * p.yes, p.ggdt, (C)((double)s3[q] * m[q]));
        }
    }
}
/* grid_sampler_2d / _3d and their backward ops (ctensor_nn.h's ct__k_grid_sampler's attributes) */
static int ct__cu_k_grid_sampler(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    int d3 = ct__gs_is3d(c->op), bw = ct__gs_isbw(c->op);
    ct_tensor *y = c->out[0], *gg = bw ? c->out[1] : NULL;
    if (ct__cu_out_on_device(c, y) || (gg && ct__cu_out_on_device(c, gg))) return -1;
    int dev = y->device.index;
    ct_tensor *t[3] = {NULL, NULL, NULL}, *acc = NULL;   /* grad_output, input, grid (forward: input, grid) */
    int rc = -1;
    for (int i = 0; i < c->nin; i++)
        if (!(t[i] = ct__cu_input(op, c->in[i], y->device, 0))) goto done;
    {
        const ct_tensor *x = t[bw ? 1 : 0], *gr = t[bw ? 2 : 1], *gy = bw ? t[0] : NULL;
        ct__cu_gsp p;
        memset(&p, 0, sizeof p);
        p.nsp = d3 ? 3 : 2;
        p.interp = (int)c->a->i[0];
        p.bw = bw;
        p.want_gi = bw && (c->a->flags & 2);
        p.want_gg = bw && (c->a->flags & 4);
        int align = (c->a->flags & 1) != 0, pad = (int)c->a->i[1], f32 = x->dtype != CT_FLOAT64;
        p.dt = p.xdt = x->dtype;
        p.es = (int32_t)ct__dt[x->dtype].size;
        p.C = x->shape[1];
        p.P = 1;
        p.IP = 1;
        for (int q = 0; q < p.nsp; q++) { p.out[q] = gr->shape[1 + q]; p.P *= p.out[q]; p.IP *= x->shape[2 + q]; }
        for (int q = 0; q < p.nsp; q++) ct__gs_axis_init(&p.ax[q], x->shape[x->ndim - 1 - q], align, pad, f32, d3);
        p.cst[0] = 1; p.cst[1] = x->shape[x->ndim - 1]; p.cst[2] = p.cst[1] * (d3 ? x->shape[3] : 1);
        for (int d = 0; d < x->ndim; d++) { p.xs[d] = x->strides[d]; p.gs[d] = gr->strides[d]; if (gy) p.gys[d] = gy->strides[d]; }
        p.x = ct__ptr(x);
        p.grid = ct__ptr(gr);
        p.gy = gy ? ct__ptr(gy) : NULL;
        if (bw) {   /* both results start at zero (the one not wanted stays so) */
            if (!(acc = ct__cu_rs_acc(op, y)) || ct__cu_fill(op, gg, 0.0)) goto done;
            p.gg = ct__ptr(gg);
            p.ggdt = gg->dtype;
        }
        p.y = ct__ptr(acc ? acc : y);
        p.ydt = acc ? acc->dtype : y->dtype;
        p.yes = (int32_t)ct__dt[p.ydt].size;
        p.n = x->shape[0] * p.P;
        if (p.n > 0 && p.C > 0) CT__CU_NN_RUN(rc, op, dev, ct__cu_gs_kernel, ct__cu_blocks(p.n, CT__CU_THREADS, dev), p);
        else rc = 0;
        if (rc == 0 && acc && acc != y) rc = ct__cu_copy_dev(op, y, acc);
    }
done:
    for (int i = 0; i < 3; i++)
        if (t[i]) ct__decref(t[i]);
    if (acc) ct__decref(acc);
    return rc;
}

static int ct__cu_meta_upsample(ct__call *c) { return ct__cu_half_meta(c, 1, ct__meta_upsample); }
static int ct__cu_meta_grid_sampler(ct__call *c) { return ct__cu_half_meta(c, 3, ct__meta_grid_sampler); }
/* this section's kernels by the ops' stable names (ct__cu_register_all calls this) */
static void ct__cu_upsample_register(void) {
    static const char *const ups[20] = {
        "aten::upsample_nearest1d.vec", "aten::upsample_nearest1d_backward.vec", "aten::upsample_nearest2d.vec",
        "aten::upsample_nearest2d_backward.vec", "aten::upsample_nearest3d.vec", "aten::upsample_nearest3d_backward.vec",
        "aten::_upsample_nearest_exact1d.vec", "aten::_upsample_nearest_exact1d_backward.vec", "aten::_upsample_nearest_exact2d.vec",
        "aten::_upsample_nearest_exact2d_backward.vec", "aten::_upsample_nearest_exact3d.vec", "aten::_upsample_nearest_exact3d_backward.vec",
        "aten::upsample_linear1d.vec", "aten::upsample_linear1d_backward.vec", "aten::upsample_bilinear2d.vec",
        "aten::upsample_bilinear2d_backward.vec", "aten::upsample_bicubic2d.vec", "aten::upsample_bicubic2d_backward.vec",
        "aten::upsample_trilinear3d.vec", "aten::upsample_trilinear3d_backward.vec"};
    static const char *const gs[4] = {"aten::grid_sampler_2d", "aten::grid_sampler_2d_backward", "aten::grid_sampler_3d",
                                      "aten::grid_sampler_3d_backward"};
    ct__nn_register_now();   /* the nn ops' block first: their names resolve only once it is registered */
    for (int k = 0; k < 20; k++) ct_register_backend_op(ups[k], CT_BACKEND_CUDA, ct__cu_meta_upsample, ct__cu_k_upsample);
    for (int k = 0; k < 4; k++) ct_register_backend_op(gs[k], CT_BACKEND_CUDA, ct__cu_meta_grid_sampler, ct__cu_k_grid_sampler);
}
#else
static void ct__cu_upsample_register(void) {}   /* ctensor_nn.h not included (or after this header): nothing to register */
#endif /* CTENSOR_NN_IMPLEMENTATION_DONE */

/* ============================================================================
   Random numbers on the device (uniform_, normal_, random_, bernoulli_,
   exponential_; and through them rand/randn/randint/rand_like/randn_like/
   bernoulli and nn's dropout, which is bernoulli_ and a multiply)
   A counter-based generator, Philox4x32-10 (Salmon et al., "Parallel random
   numbers: as easy as 1, 2, 3", SC'11): 10 rounds turn a 128-bit counter and
   a 64-bit key into four 32-bit words, with no state per thread. Each device
   has a generator (seed, offset). A call draws element i (its C-order index
   in the tensor, whatever the strides) from the counter (i, offset) under the
   key seed, then advances the offset by one: one 128-bit block per element
   per call, so the numbers depend only on the seed and the sequence of calls,
   never on the grid, and two calls never share a counter. ct_manual_seed
   seeds these generators too (seed, offset 0), as torch.manual_seed seeds
   every CUDA generator; ct_cuda_manual_seed / _all seed them alone. Before
   any seeding a device generator takes ct_initial_seed() (PyTorch's default
   seed 67280421310721). The values are NOT PyTorch's CUDA stream (which uses
   curand's Philox with its own counter layout), nor the CPU's mt19937 stream.
   Transformations, per element, from the block's four words w0..w3:
     uniform     float32/16/bf16: 24 bits (w0 >> 8) / 2^24; float64: 53 bits of
                 w1:w0 / 2^53; from + u * (to - from) in double
     normal      Box-Muller: u1 in (0, 1] and u2 in [0, 1) (24 bits each for
                 float, computed in float; 53 bits each for float64, computed
                 in double), sqrt(-2 log u1) cos(2 pi u2) * std + mean
     random_     w0 (32 bits) or w1:w0 (64 bits, when the range needs it, as
                 the CPU path decides) modulo the range, plus from
     bernoulli_  u (53 bits) < p; with a tensor p: float64 p compares a 53-bit
                 u in double, other p a 24-bit u in float (the CPU's rules)
     exponential -log(1 - u) / lambd, u of 53 bits, in double
   A generator object (ct_generator, the CPU's mt19937) cannot drive a device
   op: "Expected a 'cuda' device type for generator but found 'cpu'", as
   PyTorch. bernoulli_ with a tensor p outside [0, 1] is an error (the first
   bad p is read back), and the tensor is then left partly written.
   ========================================================================== */
/* element size of a dtype, in device code */
__host__ __device__ __forceinline__ int ct__cu_esize(int dt) {
    return dt == CT_FLOAT64 || dt == CT_INT64 ? 8 : dt == CT_FLOAT32 || dt == CT_INT32 ? 4 : dt == CT_INT8 || dt == CT_UINT8 || dt == CT_BOOL ? 1 : 2;
}
/* ct__cu_doff on the host */
static int64_t ct__cu_doff_host(int64_t i, int n, const int64_t *shape, const int64_t *stride) {
    int64_t off = 0;
    for (int d = n - 1; d >= 0; d--) {
        off += (i % shape[d]) * stride[d];
        i /= shape[d];
    }
    return off;
}
namespace ct__cu_dev {
/* Philox4x32-10 on the counter (c[0..3]) and key (k0, k1); callable from the
   host too (the tests check it against Random123's known answers) */
__host__ __device__ __forceinline__ void ct__philox(uint32_t *c, uint32_t k0, uint32_t k1) {
    for (int r = 0; r < 10; r++) {
        if (r) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
        uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
        c[0] = n0;
        c[1] = (uint32_t)p1;
        c[2] = n2;
        c[3] = (uint32_t)p0;
    }
}
__device__ unsigned long long ct__cu_bad_pos;   /* the lowest position of a bad input (an index, a p), ~0 when none */
__device__ __forceinline__ void ct__cu_mark_bad(int64_t pos) { atomicMin(&ct__cu_bad_pos, (unsigned long long)pos); }
} /* namespace ct__cu_dev */

enum { CT__CU_UNIFORM, CT__CU_NORMAL, CT__CU_RANDOM, CT__CU_RANDOM_FULL, CT__CU_BERNOULLI, CT__CU_BERNOULLI_T, CT__CU_EXPONENTIAL };
typedef struct ct__cu_rngp {
    char *x;
    const char *p;                                  /* bernoulli_.Tensor: p, x's shape (expanded) */
    int32_t dt, pdt, nd, kind, wide;
    int64_t n;
    int64_t shape[CT_MAX_DIMS], st[CT_MAX_DIMS], pst[CT_MAX_DIMS];   /* element strides */
    uint64_t seed, offset;
    double a, b;                                    /* from/to, mean/std, p, lambd */
    int64_t from;
    uint64_t range;
} ct__cu_rngp;

__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_rng_kernel(const ct__cu_rngp q) {
    using namespace ct__cu_dev;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < q.n; i += (int64_t)gridDim.x * blockDim.x) {
        uint32_t w[4] = {(uint32_t)i, (uint32_t)((uint64_t)i >> 32), (uint32_t)q.offset, (uint32_t)(q.offset >> 32)};
        ct__philox(w, (uint32_t)q.seed, (uint32_t)(q.seed >> 32));
        const double u53a = (double)((((uint64_t)w[1] << 32) | w[0]) >> 11) * (1.0 / 9007199254740992.0);
        const double u53b = (double)((((uint64_t)w[3] << 32) | w[2]) >> 11) * (1.0 / 9007199254740992.0);
        const float u24a = (float)(w[0] >> 8) * (1.0f / 16777216.0f), u24b = (float)(w[1] >> 8) * (1.0f / 16777216.0f);
        char *out = q.x + ct__cu_doff(i, q.nd, q.shape, q.st) * (int64_t)ct__cu_esize(q.dt);
        switch (q.kind) {
        case CT__CU_UNIFORM:
            st<double>(out, q.dt, (q.dt == CT_FLOAT64 ? u53a : (double)u24a) * (q.b - q.a) + q.a);
            break;
        case CT__CU_NORMAL:
            if (q.dt == CT_FLOAT64) {
                double r = sqrt(-2.0 * log(1.0 - u53a)), th = 6.283185307179586 * u53b;
                st<double>(out, q.dt, r * cos(th) * q.b + q.a);
            } else {
                float r = sqrtf(-2.0f * logf(1.0f - u24a)), th = 6.2831853f * u24b;
                st<float>(out, q.dt, r * cosf(th) * (float)q.b + (float)q.a);
            }
            break;
        case CT__CU_RANDOM: {
            uint64_t r = q.wide ? (((uint64_t)w[1] << 32) | w[0]) : w[0];
            st<int64_t>(out, q.dt, (int64_t)(r % q.range + (uint64_t)q.from));   /* integers to floats round once */
            break;
        }
        case CT__CU_RANDOM_FULL: {   /* the dtype's range: [0, 2^digits] for floats, [0, max] for integers */
            uint64_t r64 = ((uint64_t)w[1] << 32) | w[0];
            int64_t v;
            switch (q.dt) {
            case CT_BOOL: v = w[0] & 1u; break;
            case CT_INT64: v = (int64_t)(r64 % ((uint64_t)INT64_MAX + 1)); break;
            case CT_FLOAT64: v = (int64_t)(r64 % (((uint64_t)1 << 53) + 1)); break;
            case CT_FLOAT32: v = w[0] % ((1u << 24) + 1); break;
            case CT_FLOAT16: v = w[0] % ((1u << 11) + 1); break;
            case CT_BFLOAT16: v = w[0] % ((1u << 8) + 1); break;
            case CT_INT32: v = w[0] % ((uint32_t)INT32_MAX + 1); break;
            case CT_INT16: v = w[0] % 32768u; break;
            case CT_INT8: v = w[0] % 128u; break;
            default: v = w[0] % 256u; break;
            }
            st<int64_t>(out, q.dt, v);
            break;
        }
        case CT__CU_BERNOULLI: st<int64_t>(out, q.dt, u53a < q.a ? 1 : 0); break;
        case CT__CU_BERNOULLI_T: {
            const char *pp = q.p + ct__cu_doff(i, q.nd, q.shape, q.pst) * (int64_t)ct__cu_esize(q.pdt);
            double p = ld<double>(pp, q.pdt);
            if (!(p >= 0.0 && p <= 1.0)) { ct__cu_mark_bad(i); break; }
            int hit = q.pdt == CT_FLOAT64 ? u53a < p : u24a < (float)p;
            st<int64_t>(out, q.dt, hit ? 1 : 0);
            break;
        }
        default: st<double>(out, q.dt, -1.0 / q.a * log(1.0 - u53a)); break;
        }
    }
}

/* the generators of the devices */
typedef struct ct__cu_gen_state { uint64_t seed, offset; int seeded; } ct__cu_gen_state;
static ct__cu_gen_state ct__cu_gens[CTENSOR_CUDA_MAX_DEVICES];
static std::mutex ct__cu_gen_mutex;
static void ct__cu_gen_seed(int dev, uint64_t seed) {   /* dev < 0: every device */
    std::lock_guard<std::mutex> lock(ct__cu_gen_mutex);
    for (int d = dev < 0 ? 0 : dev; d < (dev < 0 ? CTENSOR_CUDA_MAX_DEVICES : dev + 1); d++) {
        ct__cu_gens[d].seed = seed;
        ct__cu_gens[d].offset = 0;
        ct__cu_gens[d].seeded = 1;
    }
}
/* the (seed, offset) of one call on device dev; the call consumes one counter block per element */
static void ct__cu_gen_next(int dev, uint64_t *seed, uint64_t *offset) {
    uint64_t initial = ct_initial_seed();   /* (outside the lock: it may make the CPU generator) */
    std::lock_guard<std::mutex> lock(ct__cu_gen_mutex);
    ct__cu_gen_state *g = &ct__cu_gens[dev];
    if (!g->seeded) {
        g->seed = initial;
        g->offset = 0;
        g->seeded = 1;
    }
    *seed = g->seed;
    *offset = g->offset++;
}
/* ct_manual_seed's hook (ctensor.h): torch.manual_seed seeds the CUDA generators too */
static void ct__cu_on_manual_seed(uint64_t seed) { ct__cu_gen_seed(-1, seed); }

static void ct__cu_shape_of(const ct_tensor *t, int32_t *nd, int64_t *shape, int64_t *st) {
    *nd = t->ndim;
    for (int d = 0; d < t->ndim; d++) { shape[d] = t->shape[d]; st[d] = t->strides[d]; }
}
/* resets the bad-position record; after the kernel, reads it back (-1: none) */
static int ct__cu_bad_reset(const char *op) {
    unsigned long long none = ~0ull;
    cudaError_t e = cudaMemcpyToSymbolAsync(ct__cu_dev::ct__cu_bad_pos, &none, sizeof none, 0, cudaMemcpyHostToDevice, ct__cu_cur_stream());
    return e == cudaSuccess ? 0 : ct__cu_fail(op, e);
}
static int ct__cu_bad_read(const char *op, int64_t *pos) {
    unsigned long long v = 0;
    cudaStream_t st = ct__cu_cur_stream();
    cudaError_t e = cudaMemcpyFromSymbolAsync(&v, ct__cu_dev::ct__cu_bad_pos, sizeof v, 0, cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);   /* waits for the kernels */
    if (e != cudaSuccess) return ct__cu_fail(op, e);
    *pos = v == ~0ull ? -1 : (int64_t)v;
    return 0;
}
/* one element of a device tensor at element offset off, as double / int64 */
static int ct__cu_peek(const char *op, const ct_tensor *t, int64_t off, double *d, int64_t *i) {
    unsigned char b[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    size_t es = ct__dt[t->dtype].size;
    if (ct__cu_memcpy(op, b, ct__ptr(t) + off * (int64_t)es, es, cudaMemcpyDeviceToHost)) return -1;
    if (d) *d = ct__load_f64(b, t->dtype);
    if (i) *i = ct__load_i64(b, t->dtype);
    return 0;
}

static int ct__cu_k_random(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    ct_tensor *x = c->in[0], *pt = NULL;
    int dev = x->device.index, rc = 0;
    if (c->gen && c->gen != ct_default_generator())
        return ct__failed(CT_ERR_DEVICE, "%s: Expected a 'cuda' device type for generator but found 'cpu'", op);
    ct__cu_rngp q;
    memset(&q, 0, sizeof q);
    switch (c->op) {
    case CT__OP_UNIFORM_:
        if (!CT__ISFLOAT(x->dtype)) return ct__failed(CT_ERR_DTYPE, "uniform_: not implemented for '%s'", CT__DTNAME(x->dtype));
        q.kind = CT__CU_UNIFORM;
        q.a = c->a->s[0];
        q.b = c->a->s[1];
        if (x->dtype == CT_FLOAT32) { q.a = (double)(float)q.a; q.b = (double)(float)q.b; }   /* the bounds in the tensor's type, as the CPU path */
        break;
    case CT__OP_NORMAL_:
        if (!CT__ISFLOAT(x->dtype)) return ct__failed(CT_ERR_DTYPE, "normal_: not implemented for '%s'", CT__DTNAME(x->dtype));
        q.kind = CT__CU_NORMAL;
        q.a = c->a->s[0];
        q.b = c->a->s[1];
        break;
    case CT__OP_RANDOM_: {
        ct_dtype dt = x->dtype;
        if (!CT__ISREAL(dt)) return ct__failed(CT_ERR_DTYPE, "\"random_kernel_cpu\" not implemented for '%s'", CT__DTNAME(dt));
        q.kind = (c->a->flags & 1) ? CT__CU_RANDOM : CT__CU_RANDOM_FULL;
        q.from = c->a->i[0];
        q.range = (uint64_t)c->a->i[1] - (uint64_t)q.from;
        q.wide = (dt == CT_INT64 || dt == CT_FLOAT64 || dt == CT_FLOAT32 || dt == CT_BFLOAT16) && q.range >= ((uint64_t)1 << 32);
        break;
    }
    case CT__OP_BERNOULLI_:
        if (!CT__ISREAL(x->dtype)) return ct__failed(CT_ERR_DTYPE, "\"bernoulli_scalar_cpu_\" not implemented for '%s'", CT__DTNAME(x->dtype));
        q.kind = CT__CU_BERNOULLI;
        q.a = c->a->s[0];
        break;
    case CT__OP_BERNOULLI_TENSOR_:
        if (!CT__ISREAL(x->dtype)) return ct__failed(CT_ERR_DTYPE, "\"bernoulli_tensor_cpu_self_\" not implemented for '%s'", CT__DTNAME(x->dtype));
        if (!CT__ISFLOAT(c->in[1]->dtype)) return ct__failed(CT_ERR_DTYPE, "\"bernoulli_tensor_cpu_p_\" not implemented for '%s'", CT__DTNAME(c->in[1]->dtype));
        q.kind = CT__CU_BERNOULLI_T;
        break;
    default:   /* exponential_ */
        if (!CT__ISFLOAT(x->dtype)) return ct__failed(CT_ERR_DTYPE, "\"exponential_cpu\" not implemented for '%s'", CT__DTNAME(x->dtype));
        q.kind = CT__CU_EXPONENTIAL;
        q.a = c->a->s[0];
        break;
    }
    if (ct__cu_out_on_device(c, x)) return -1;
    q.n = ct__shape_numel(x->ndim, x->shape);
    if (q.n == 0) return 0;
    q.x = ct__ptr(x);
    q.dt = x->dtype;
    ct__cu_shape_of(x, &q.nd, q.shape, q.st);
    if (q.kind == CT__CU_BERNOULLI_T) {
        if (!(pt = ct__cu_input(op, c->in[1], x->device, 0))) return -1;
        q.p = ct__ptr(pt);
        q.pdt = pt->dtype;
        for (int d = 0; d < x->ndim; d++) q.pst[d] = pt->ndim == x->ndim ? pt->strides[d] : 0;
    }
    ct__cu_gen_next(dev, &q.seed, &q.offset);
    {
        ct__cu_guard guard(dev, op);
        if (!guard.ok) rc = -1;
        else if (q.kind == CT__CU_BERNOULLI_T && ct__cu_bad_reset(op)) rc = -1;
        else {
            CT__CU_LAUNCH(ct__cu_blocks(q.n, CT__CU_THREADS, dev), CT__CU_THREADS, (q), ct__cu_rng_kernel);
            rc = ct__cu_launched(op);
        }
        int64_t bad = -1;
        double p = 0.0;
        if (!rc && q.kind == CT__CU_BERNOULLI_T && !(rc = ct__cu_bad_read(op, &bad)) && bad >= 0 &&
            !(rc = ct__cu_peek(op, pt, ct__cu_doff_host(bad, q.nd, q.shape, q.pst), &p, NULL)))
            rc = ct__failed(CT_ERR_ARG, "bernoulli_: Expected p_in >= 0 && p_in <= 1 to be true, but got false (p=%s)", ct__fmt_double(p).s);
    }
    if (pt) ct__decref(pt);
    return rc;
}

/* ============================================================================
   Shapes: cat, stack, flip, roll, repeat, tril, triu, diag_embed, the pads
   (constant, reflect, replicate, circular) and pad_backward, take, one_hot,
   repeat_interleave
   Most of these ops are a gather: each output element is one input element or
   a constant. One kernel family, ct__cu_shape_gather<M>, does them: a thread per
   output element finds its coordinates (C order), asks the op's index map M for
   the offset of the input element it copies (none: the constant, p.fill's
   bits), and copies that element's bits (any dtype). The maps:
     flip        x[.., n-1-i, ..] along the flipped dims
     roll        x[.., (i - shift) mod n, ..]
     repeat      x[.., i mod n, ..], x's dims right-aligned with the repeats
     tril/triu   x where j - i <= k (tril) or j - i >= k (triu), else 0
     diag_embed  x[.., t] where i2 - i1 == offset (t: i1 when offset >= 0, else
                 i2), else 0
     pads        along each dim the CPU's source index (ctensor.h's
                 ct__pad_src, compiled for both sides): constant (the value
                 outside the input), reflect, replicate, circular; negative
                 pads crop
     take        x.flatten()[index] (negative indices count from the end)
   cat and stack copy each input into its slice of the output with the copies'
   elementwise kernel (any strides, the promoted dtype). pad_backward is a
   gather the other way round: each input-gradient element sums the gradient
   over the output positions the pad read it from (ct__cu_pad_next walks them
   in C order), in the CPU kernel's order and rounding: the CPU's bits, no
   atomics. Data-dependent errors are the CPU's: take's indices are checked
   first (the first bad one is read back); one_hot reads back the smallest and
   the largest class (num_classes=-1 needs the largest for the output's shape);
   repeat_interleave reads the repeats back (the output's length is their sum),
   checks them as the CPU does and sends each repeat's first output slot to
   the device, where a thread per output element finds its index by binary
   search. The core's metas of one_hot and repeat_interleave refuse device
   tensors (their CPU kernels read the data on the host): these register CUDA
   metas with the same checks (ctensor.h's *_any).
   ========================================================================== */
typedef struct ct__cu_shp {
    char *out;
    const char *x, *idx;                              /* idx: take's indices (int64) */
    int32_t nd, xnd, es, mode, lower, d1, d2;         /* mode: the pad's (0 reflect 1 replicate 2 circular 3 constant) */
    int64_t n, k;                                     /* output elements; tril/triu's diagonal, diag_embed's offset, take's x numel,
                                                         pad_backward's padded dims */
    int64_t shape[CT_MAX_DIMS], ost[CT_MAX_DIMS];     /* the output's shape and element strides */
    int64_t xsh[CT_MAX_DIMS], xst[CT_MAX_DIMS];       /* x's, per output dim where the map lines them up so */
    int64_t a[CT_MAX_DIMS], b[CT_MAX_DIMS];           /* per output dim: flip 1/0, roll's shift, the pads' left and right */
    int64_t ist[CT_MAX_DIMS];                         /* take: the index's strides */
    uint64_t fill;                                    /* the constant's bits in the output's dtype */
} ct__cu_shp;
/* the index maps: src(p, c, &xo) gives the input element of output coordinates c
   (its element offset from x's first element), or false for the constant */
struct ct__cu_sm_flip {
    static __device__ __forceinline__ bool src(const ct__cu_shp &p, const int64_t *c, int64_t *xo) {
        int64_t o = 0;
        for (int d = 0; d < p.nd; d++) o += (p.a[d] ? p.xsh[d] - 1 - c[d] : c[d]) * p.xst[d];
        *xo = o;
        return true;
    }
};
struct ct__cu_sm_roll {   /* a[d]: the shift, in [0, n) */
    static __device__ __forceinline__ bool src(const ct__cu_shp &p, const int64_t *c, int64_t *xo) {
        int64_t o = 0;
        for (int d = 0; d < p.nd; d++) {
            int64_t i = c[d] - p.a[d];
            o += (i < 0 ? i + p.xsh[d] : i) * p.xst[d];
        }
        *xo = o;
        return true;
    }
};
struct ct__cu_sm_repeat {   /* x's dims right-aligned: the leading ones of size 1, stride 0 */
    static __device__ __forceinline__ bool src(const ct__cu_shp &p, const int64_t *c, int64_t *xo) {
        int64_t o = 0;
        for (int d = 0; d < p.nd; d++) o += (c[d] % p.xsh[d]) * p.xst[d];
        *xo = o;
        return true;
    }
};
struct ct__cu_sm_tri {
    static __device__ __forceinline__ bool src(const ct__cu_shp &p, const int64_t *c, int64_t *xo) {
        int64_t j = c[p.nd - 1] - c[p.nd - 2], o = 0;
        if (p.lower ? j > p.k : j < p.k) return false;
        for (int d = 0; d < p.nd; d++) o += c[d] * p.xst[d];
        *xo = o;
        return true;
    }
};
struct ct__cu_sm_diag_embed {   /* xst: x's own strides (x has the output's dims less d1 and d2, then the diagonal) */
    static __device__ __forceinline__ bool src(const ct__cu_shp &p, const int64_t *c, int64_t *xo) {
        if (c[p.d2] - c[p.d1] != p.k) return false;
        int64_t o = (p.k >= 0 ? c[p.d1] : c[p.d2]) * p.xst[p.xnd - 1];
        for (int d = 0, k = 0; d < p.nd; d++)
            if (d != p.d1 && d != p.d2) o += c[d] * p.xst[k++];
        *xo = o;
        return true;
    }
};
struct ct__cu_sm_pad {   /* every dim through ct__cu_pad_src (an unpadded one: pads 0, the identity) */
    static __device__ __forceinline__ bool src(const ct__cu_shp &p, const int64_t *c, int64_t *xo) {
        int64_t o = 0;
        for (int d = 0; d < p.nd; d++) {
            int64_t i = ct__pad_src(p.mode, c[d], p.a[d], p.b[d], p.xsh[d]);
            if (i < 0) return false;
            o += i * p.xst[d];
        }
        *xo = o;
        return true;
    }
};
struct ct__cu_sm_take {   /* the index has the output's shape; xsh/xst: x's own, p.k its numel */
    static __device__ __forceinline__ bool src(const ct__cu_shp &p, const int64_t *c, int64_t *xo) {
        int64_t io = 0;
        for (int d = 0; d < p.nd; d++) io += c[d] * p.ist[d];
        int64_t v = *(const int64_t *)(p.idx + io * 8);
        *xo = ct__cu_doff(v < 0 ? v + p.k : v, p.xnd, p.xsh, p.xst);
        return true;
    }
};
template <class M> __global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_shape_gather(const ct__cu_shp p) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t c[CT_MAX_DIMS], r = i, oo = 0, xo = 0;
        for (int d = p.nd - 1; d >= 0; d--) {
            c[d] = r % p.shape[d];
            r /= p.shape[d];
            oo += c[d] * p.ost[d];
        }
        if (M::src(p, c, &xo)) ct__cu_move(p.out + oo * p.es, p.x + xo * p.es, p.es);
        else ct__cu_move(p.out + oo * p.es, (const char *)&p.fill, p.es);
    }
}
/* out (on device dev) from x through map M; p holds the map's parameters */
template <class M> static int ct__cu_shape_run(const char *op, int dev, ct__cu_shp *p, ct_tensor *out, const ct_tensor *x) {
    p->out = ct__ptr(out);
    p->x = ct__ptr(x);
    p->es = (int32_t)ct__dt[out->dtype].size;
    p->nd = out->ndim;
    p->n = ct__shape_numel(out->ndim, out->shape);
    for (int d = 0; d < out->ndim; d++) { p->shape[d] = out->shape[d]; p->ost[d] = out->strides[d]; }
    if (p->n == 0) return 0;
    ct__cu_guard guard(dev, op);
    if (!guard.ok) return -1;
    CT__CU_LAUNCH(ct__cu_blocks(p->n, CT__CU_THREADS, dev), CT__CU_THREADS, (*p), ct__cu_shape_gather<M>);
    return ct__cu_launched(op);
}
/* flip, roll, repeat, tril, triu, diag_embed and the pads: the attributes as the CPU kernels read them */
static int ct__cu_k_shape(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    const ct__attrs *a = c->a;
    ct_tensor *out = c->out[0], *x;
    if (ct__cu_out_on_device(c, out)) return -1;
    if (ct_numel(out) == 0) return 0;
    if (!(x = ct__cu_input(op, c->in[0], out->device, 0))) return -1;
    ct__cu_shp p;
    memset(&p, 0, sizeof p);
    int nd = out->ndim, dev = out->device.index, rc;
    p.xnd = x->ndim;
    for (int d = 0; d < x->ndim; d++) { p.xsh[d] = x->shape[d]; p.xst[d] = x->strides[d]; }
    switch (c->op) {
    case CT__OP_FLIP:
        for (int k = 0; k < a->nv; k++) p.a[ct__wrap_dim((int)a->v[k], nd)] = 1;
        rc = ct__cu_shape_run<ct__cu_sm_flip>(op, dev, &p, out, x);
        break;
    case CT__OP_ROLL:
        for (int k = 0; k < a->nv; k++) p.a[ct__wrap_dim((int)a->v[a->nv + k], nd)] += a->v[k];
        for (int d = 0; d < nd; d++) p.a[d] = ((p.a[d] % x->shape[d]) + x->shape[d]) % x->shape[d];
        rc = ct__cu_shape_run<ct__cu_sm_roll>(op, dev, &p, out, x);
        break;
    case CT__OP_REPEAT:
        for (int d = 0; d < nd; d++) {
            int xd = d - (nd - x->ndim);
            p.xsh[d] = xd >= 0 ? x->shape[xd] : 1;
            p.xst[d] = xd >= 0 ? x->strides[xd] : 0;
        }
        rc = ct__cu_shape_run<ct__cu_sm_repeat>(op, dev, &p, out, x);
        break;
    case CT__OP_TRIL:
    case CT__OP_TRIU: {
        int64_t R = x->shape[nd - 2], C = x->shape[nd - 1], k = a->i[0];
        p.lower = c->op == CT__OP_TRIL;
        p.k = k < -R ? -R : k > C ? C : k;   /* the same elements kept */
        rc = ct__cu_shape_run<ct__cu_sm_tri>(op, dev, &p, out, x);
        break;
    }
    case CT__OP_DIAG_EMBED:
        p.k = a->i[0];
        p.d1 = ct__wrap_dim((int)a->i[1], nd);
        p.d2 = ct__wrap_dim((int)a->i[2], nd);
        rc = ct__cu_shape_run<ct__cu_sm_diag_embed>(op, dev, &p, out, x);
        break;
    default: {   /* the pads: the last nv/2 dims, the last dim first in a->v */
        unsigned char bits[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        p.mode = c->op == CT__OP_CONSTANT_PAD ? 3 : ct__pad_mode(c->op);
        for (int j = 0; j < a->nv / 2; j++) {
            p.a[nd - 1 - j] = a->v[2 * j];
            p.b[nd - 1 - j] = a->v[2 * j + 1];
        }
        if (p.mode == 3) ct__store_f64(bits, out->dtype, a->s[0]);   /* the CPU path's conversion of the value */
        memcpy(&p.fill, bits, 8);
        rc = ct__cu_shape_run<ct__cu_sm_pad>(op, dev, &p, out, x);
        break;
    }
    }
    ct__decref(x);
    return rc;
}

/* cat / stack: each input into its slice of the output (1-D empty inputs of a
   cat of more dims are skipped, as the CPU path) */
static int ct__cu_k_cat(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    ct_tensor *out = c->out[0];
    int stack = c->op == CT__OP_STACK, nd = out->ndim, dim = ct__wrap_dim((int)c->a->i[0], nd);
    if (ct__cu_out_on_device(c, out)) return -1;
    if (ct_numel(out) == 0) return 0;
    int64_t off = 0, sh[CT_MAX_DIMS], st[CT_MAX_DIMS];
    for (int i = 0; i < c->nin; i++) {
        ct_tensor *t = c->in[i];
        if (!stack && ct__cat_skip(t) && nd != 1) continue;
        int64_t sz = stack ? 1 : t->shape[dim];
        int vnd = 0;
        for (int d = 0; d < nd; d++) {   /* stack: the slice without dim; cat: dim narrowed to the input */
            if (stack && d == dim) continue;
            sh[vnd] = d == dim ? sz : out->shape[d];
            st[vnd++] = out->strides[d];
        }
        ct_tensor ov = ct__ix_view(out, vnd, sh, st, out->offset + off * out->strides[dim]);
        if (ct__shape_numel(vnd, sh) && ct__cu_copy_dev(op, &ov, t)) return -1;
        off += sz;
    }
    return 0;
}

/* take: the indices are checked first (none written on an error) */
static int ct__cu_index_bad(const char *op, int dev, const ct_tensor *idx, int64_t size, int wrap, int64_t *bad);
static int ct__cu_k_take(ct__call *c) {
    const char *op = "take";
    ct_tensor *out = c->out[0], *x = NULL, *idx = NULL;
    if (ct__cu_out_on_device(c, out)) return -1;
    if (ct_numel(out) == 0) return 0;
    int rc = -1, dev = out->device.index;
    if ((x = ct__cu_input(op, c->in[0], out->device, 0)) && (idx = ct__cu_input(op, c->in[1], out->device, 0))) {
        int64_t numel = ct_numel(x), bad = 0;
        int r = ct__cu_index_bad(op, dev, idx, numel, 1, &bad);
        if (r == 1)
            rc = ct__failed(CT_ERR_INDEX, "take(): out of range: tried to access index %lld on a tensor of %lld elements.", (long long)bad, (long long)numel);
        else if (r == 0) {
            ct__cu_shp p;
            memset(&p, 0, sizeof p);
            p.idx = ct__ptr(idx);
            p.k = numel;
            ct__cu_shape_of(x, &p.xnd, p.xsh, p.xst);
            for (int d = 0; d < idx->ndim; d++) p.ist[d] = idx->strides[d];
            rc = ct__cu_shape_run<ct__cu_sm_take>(op, dev, &p, out, x);
        }
    }
    if (x) ct__decref(x);
    if (idx) ct__decref(idx);
    return rc;
}

/* ---- one_hot ---- */
namespace ct__cu_dev {
/* the smallest class, and the largest one complemented, as order-keeping unsigned
   numbers (v ^ 2^63) for atomicMin; ~0 when none */
__device__ unsigned long long ct__cu_oh_range[2];
} /* namespace ct__cu_dev */
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_one_hot_range(const ct__cu_shp p) {
    __shared__ unsigned long long sm[2][CT__CU_THREADS];
    unsigned long long lo = ~0ull, hi = ~0ull;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += (int64_t)gridDim.x * blockDim.x) {
        unsigned long long u = (unsigned long long)*(const int64_t *)(p.x + ct__cu_doff(i, p.xnd, p.xsh, p.xst) * 8) ^ (1ull << 63);
        lo = u < lo ? u : lo;
        hi = ~u < hi ? ~u : hi;
    }
    const int t = (int)threadIdx.x;
    sm[0][t] = lo;
    sm[1][t] = hi;
    __syncthreads();
    for (int s = CT__CU_THREADS / 2; s > 0; s >>= 1) {
        if (t < s) {
            if (sm[0][t + s] < sm[0][t]) sm[0][t] = sm[0][t + s];
            if (sm[1][t + s] < sm[1][t]) sm[1][t] = sm[1][t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        atomicMin(&ct__cu_dev::ct__cu_oh_range[0], sm[0][0]);
        atomicMin(&ct__cu_dev::ct__cu_oh_range[1], sm[1][0]);
    }
}
/* out[j, cls] = x[j] == cls, out dense int64 of p.n elements, p.k classes */
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_one_hot_write(const ct__cu_shp p) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t j = i / p.k, v = *(const int64_t *)(p.x + ct__cu_doff(j, p.xnd, p.xsh, p.xst) * 8);
        ((int64_t *)p.out)[i] = v == i - j * p.k;
    }
}
static int ct__cu_k_one_hot(ct__call *c) {
    const char *op = "one_hot";
    ct_tensor *x = c->in[0];
    int64_t n = ct_numel(x), nc = c->a->i[0], lo = INT64_MAX, hi = INT64_MIN, shape[CT_MAX_DIMS];
    int dev = x->device.index, rc = 0;
    ct__cu_shp p;
    memset(&p, 0, sizeof p);
    p.x = ct__ptr(x);
    p.n = n;
    ct__cu_shape_of(x, &p.xnd, p.xsh, p.xst);
    ct__cu_guard guard(dev, op);
    if (!guard.ok) return -1;
    if (n > 0) {   /* the classes' range, read back */
        unsigned long long r[2] = {~0ull, ~0ull};
        cudaStream_t s = ct__cu_cur_stream();
        cudaError_t e = cudaMemcpyToSymbolAsync(ct__cu_dev::ct__cu_oh_range, r, sizeof r, 0, cudaMemcpyHostToDevice, s);
        if (e != cudaSuccess) return ct__cu_fail(op, e);
        CT__CU_LAUNCH(ct__cu_blocks(n, CT__CU_THREADS, dev), CT__CU_THREADS, (p), ct__cu_one_hot_range);
        if (ct__cu_launched(op)) return -1;
        e = cudaMemcpyFromSymbolAsync(r, ct__cu_dev::ct__cu_oh_range, sizeof r, 0, cudaMemcpyDeviceToHost, s);
        if (e == cudaSuccess) e = cudaStreamSynchronize(s);
        if (e != cudaSuccess) return ct__cu_fail(op, e);
        lo = (int64_t)(r[0] ^ (1ull << 63));
        hi = (int64_t)(~r[1] ^ (1ull << 63));
    }
    /* the CPU kernel's checks, in its order */
    if (n > 0 && lo < 0) rc = ct__failed(CT_ERR_ARG, "one_hot: Class values must be non-negative.");
    else if (nc == -1) {
        for (int d = 0; d < x->ndim; d++) shape[d] = x->shape[d];
        shape[x->ndim] = nc = ct__sat_add(hi, 1);
        rc = ct__out_alloc(c, 0, CT_INT64, x->ndim + 1, shape);
    } else if (n > 0 && hi >= nc) rc = ct__failed(CT_ERR_ARG, "one_hot: Class values must be smaller than num_classes.");
    if (!rc && ct_numel(c->out[0]) > 0) {
        p.out = ct__ptr(c->out[0]);
        p.n = ct_numel(c->out[0]);
        p.k = nc;
        CT__CU_LAUNCH(ct__cu_blocks(p.n, CT__CU_THREADS, dev), CT__CU_THREADS, (p), ct__cu_one_hot_write);
        rc = ct__cu_launched(op);
    }
    return rc;
}

/* ---- repeat_interleave(repeats): the index vector [0]*r0 + [1]*r1 + ... ----
   first[k]: repeat k's first output slot, non-decreasing; output w is the last k
   with first[k] <= w */
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_repeat_interleave(char *out, int32_t i32, const int64_t *first, int64_t nr, int64_t n) {
    for (int64_t w = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; w < n; w += (int64_t)gridDim.x * blockDim.x) {
        int64_t lo = 0, hi = nr - 1;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo + 1) / 2;
            if (first[mid] <= w) lo = mid;
            else hi = mid - 1;
        }
        if (i32) ((int32_t *)out)[w] = (int32_t)lo;
        else ((int64_t *)out)[w] = lo;
    }
}
static int ct__cu_k_repeat_interleave(ct__call *c) {
    const char *op = "repeat_interleave";
    ct_tensor *r = ct__cu_input(op, c->in[0], c->odev, 1), *fb = NULL;
    if (!r) return -1;
    int64_t n = r->shape[0], total = 0, es = (int64_t)ct__dt[r->dtype].size;
    int dev = r->device.index, rc = 0, i32 = r->dtype == CT_INT32;
    int64_t *first = (int64_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    char *h = (char *)malloc((size_t)(n > 0 ? n : 1) * (size_t)es);
    if (!first || !h) rc = ct__failed(CT_ERR_MEMORY, "%s: out of memory", op);
    if (!rc) {
        ct__cu_guard guard(dev, op);
        rc = guard.ok ? ct__cu_memcpy(op, h, ct__ptr(r), (size_t)(n * es), cudaMemcpyDeviceToHost) : -1;
    }
    for (int64_t k = 0; !rc && k < n; k++) {   /* the CPU kernel's checks, in its order */
        int64_t v = ct__ixld(h + k * es, i32);
        if (v < 0) rc = ct__failed(CT_ERR_ARG, "repeat_interleave: repeats can not be negative");
        else if (v > INT64_MAX - total) rc = ct__failed(CT_ERR_MEMORY, "repeat_interleave: the sum of the repeats overflows int64");
        else {
            first[k] = total;
            total += v;
        }
    }
    if (!rc) rc = ct__out_alloc(c, 0, r->dtype, 1, &total);
    if (!rc && total > 0 && !(fb = ct__alloc(CT_INT64, 1, &n, NULL, r->device))) rc = -1;
    if (!rc && total > 0) {
        ct__cu_guard guard(dev, op);
        rc = guard.ok ? ct__cu_memcpy(op, ct__ptr(fb), first, (size_t)n * sizeof(int64_t), cudaMemcpyHostToDevice) : -1;
        if (!rc) {
            CT__CU_LAUNCH(ct__cu_blocks(total, CT__CU_THREADS, dev), CT__CU_THREADS, (ct__ptr(c->out[0]), (int32_t)i32, (const int64_t *)ct__ptr(fb), n, total),
                          ct__cu_repeat_interleave);
            rc = ct__cu_launched(op);
        }
    }
    if (fb) ct__decref(fb);   /* back to the cache: its next use is ordered after the kernel */
    free(first);
    free(h);
    ct__decref(r);
    return rc;
}

/* ---- pad_backward: gx[i] = the sum of gy over the positions o that the pad read
   from i, in C order ---- */
/* the first output position after o that reads input index i along a padded dim
   (mode 0 reflect, 1 replicate, 2 circular; input size s, output size on, pads
   l, r, as the forward pad allows them); on when there is none */
__device__ __forceinline__ int64_t ct__cu_pad_next(int mode, int64_t o, int64_t i, int64_t l, int64_t r, int64_t s, int64_t on) {
    int64_t q;
    if (mode == 1) {   /* a run: [0, l] for i = 0, [l + s - 1, on) for i = s - 1, else l + i */
        int64_t first = i == 0 ? 0 : i + l, last = i == s - 1 ? on - 1 : i + l;
        q = o + 1 > first ? o + 1 : first;
        return q <= last && q < on ? q : on;
    }
    if (mode == 0) {   /* l - i (i > 0), l + i, l + 2(s - 1) - i (i < s - 1): ascending */
        int64_t cand[3] = {i > 0 ? l - i : -1, l + i, i < s - 1 ? l + 2 * (s - 1) - i : -1};
        for (int k = 0; k < 3; k++)
            if (cand[k] > o && cand[k] < on) return cand[k];
        return on;
    }
    int64_t lo = l < 0 ? -l : 0, m = s - lo - (r < 0 ? -r : 0);   /* circular: every position of i's residue */
    if (i < lo || i >= lo + m) return on;
    int64_t res = ((l > 0 ? l : 0) + i - lo) % m, t = o + 1;
    q = t + (((res - t) % m) + m) % m;
    return q < on ? q : on;
}
/* out: gx (dense, p.n elements, p.nd dims of p.shape); x: gy (strides xst, sizes
   xsh); the padded dims are the last p.k, with pads a, b */
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_pad_backward(const ct__cu_shp p, int32_t dt) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t c[CT_MAX_DIMS], r = i, base = 0;
        int64_t s3[3], on3[3], l3[3], r3[3], i3[3], st3[3];
        int m3[3];
        for (int d = p.nd - 1; d >= 0; d--) {
            c[d] = r % p.shape[d];
            r /= p.shape[d];
            if (d < p.nd - p.k) base += c[d] * p.xst[d];
        }
        for (int q = 0; q < 3; q++) {   /* three padded dims, the leading ones trivial when fewer */
            int d = p.nd - 3 + q;
            int pad = d >= p.nd - p.k;
            s3[q] = pad ? p.shape[d] : 1;
            on3[q] = pad ? p.xsh[d] : 1;
            l3[q] = pad ? p.a[d] : 0;
            r3[q] = pad ? p.b[d] : 0;
            i3[q] = pad ? c[d] : 0;
            st3[q] = pad ? p.xst[d] : 0;
            m3[q] = pad ? p.mode : 1;
        }
        double acc = 0.0;
        for (int64_t o0 = ct__cu_pad_next(m3[0], -1, i3[0], l3[0], r3[0], s3[0], on3[0]); o0 < on3[0];
             o0 = ct__cu_pad_next(m3[0], o0, i3[0], l3[0], r3[0], s3[0], on3[0]))
            for (int64_t o1 = ct__cu_pad_next(m3[1], -1, i3[1], l3[1], r3[1], s3[1], on3[1]); o1 < on3[1];
                 o1 = ct__cu_pad_next(m3[1], o1, i3[1], l3[1], r3[1], s3[1], on3[1]))
                for (int64_t o2 = ct__cu_pad_next(m3[2], -1, i3[2], l3[2], r3[2], s3[2], on3[2]); o2 < on3[2];
                     o2 = ct__cu_pad_next(m3[2], o2, i3[2], l3[2], r3[2], s3[2], on3[2])) {
                    const char *g = p.x + (base + o0 * st3[0] + o1 * st3[1] + o2 * st3[2]) * p.es;
                    acc = ct__cu_dev::round_to<double>(acc + ct__cu_dev::ld<double>(g, dt), dt);   /* each sum rounded to dt, as the CPU's += */
                }
        ct__cu_dev::st<double>(p.out + i * p.es, dt, acc);
    }
}
static int ct__cu_k_pad_backward(ct__call *c) {
    const char *op = "pad_backward";
    const ct__attrs *a = c->a;
    ct_tensor *gx = c->out[0], *gy;
    if (ct__cu_out_on_device(c, gx)) return -1;
    if (ct_numel(gx) == 0) return 0;
    if (!(gy = ct__cu_input(op, c->in[0], gx->device, 0))) return -1;
    ct__cu_shp p;
    memset(&p, 0, sizeof p);
    int nd = gx->ndim, dev = gx->device.index, rc = 0;
    p.out = ct__ptr(gx);
    p.x = ct__ptr(gy);
    p.es = (int32_t)ct__dt[gx->dtype].size;
    p.nd = nd;
    p.n = ct_numel(gx);
    p.k = a->nv / 2;
    p.mode = (int32_t)a->mode;
    for (int d = 0; d < nd; d++) { p.shape[d] = gx->shape[d]; p.xsh[d] = gy->shape[d]; p.xst[d] = gy->strides[d]; }
    for (int j = 0; j < p.k; j++) {
        p.a[nd - 1 - j] = a->v[2 * j];
        p.b[nd - 1 - j] = a->v[2 * j + 1];
    }
    if (ct_numel(gy) == 0) {
        rc = ct__cu_fill(op, gx, 0.0);
    } else {
        ct__cu_guard guard(dev, op);
        if (!guard.ok) rc = -1;
        else {
            CT__CU_LAUNCH(ct__cu_blocks(p.n, CT__CU_THREADS, dev), CT__CU_THREADS, (p, (int32_t)gx->dtype), ct__cu_pad_backward);
            rc = ct__cu_launched(op);
        }
    }
    ct__decref(gy);
    return rc;
}

/* this section's kernels: ct__cu_register_all calls this */
static void ct__cu_shape_register(void) {
    static const struct { int op; ct_kernel_fn fn; } ks[] = {
        {CT__OP_CAT, ct__cu_k_cat}, {CT__OP_STACK, ct__cu_k_cat}, {CT__OP_FLIP, ct__cu_k_shape}, {CT__OP_ROLL, ct__cu_k_shape},
        {CT__OP_REPEAT, ct__cu_k_shape}, {CT__OP_TRIL, ct__cu_k_shape}, {CT__OP_TRIU, ct__cu_k_shape}, {CT__OP_DIAG_EMBED, ct__cu_k_shape},
        {CT__OP_CONSTANT_PAD, ct__cu_k_shape}, {CT__OP_REFLECTION_PAD, ct__cu_k_shape}, {CT__OP_REPLICATION_PAD, ct__cu_k_shape},
        {CT__OP_CIRCULAR_PAD, ct__cu_k_shape}, {CT__OP_PAD_BACKWARD, ct__cu_k_pad_backward}, {CT__OP_TAKE, ct__cu_k_take},
    };
    for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++) ct_register_kernel(ct__opdef_get(ks[k].op)->sname, CT_BACKEND_CUDA, ks[k].fn);
    ct_register_backend_op(ct__opdef_get(CT__OP_ONE_HOT)->sname, CT_BACKEND_CUDA, ct__meta_one_hot_any, ct__cu_k_one_hot);
    ct_register_backend_op(ct__opdef_get(CT__OP_REPEAT_INTERLEAVE)->sname, CT_BACKEND_CUDA, ct__meta_repeat_interleave_any, ct__cu_k_repeat_interleave);
}

/* ============================================================================
   Scans, variance and sorting along dims (cumsum, cumprod, cummax, cummin;
   var, std, var_mean, std_mean; sort, argsort, topk, kthvalue, median, mode)
   Every input is read in place through its strides: the dims other than the
   op's dim(s), in C order, number the rows (or outputs), exactly as
   the reductions' geometry does (ct__cu_red_geometry), and the dim's stride
   steps along a row. Outputs (new dense tensors) are addressed the same way.
     scans    a row per thread when rows are short (K <= 32); otherwise a
              256-thread block per row, in chunks of 256: an inclusive
              Hillis-Steele scan in shared memory plus the carry of the chunks
              before. Sums and products accumulate in double for floating
              dtypes and in int64 (wrapping) for integers, as the CPU path;
              cummax/cummin keep (value, index): a NaN wins and stays, ties
              take the later index (the CPU's >=). Sums are associated in a
              different order than the CPU's left-to-right loop (in double:
              differences far below the output's precision).
     var/std  two passes per output (the mean, then the squared deviations),
              in double, by a group of 1, 32 or 256 threads; dof = max(0,
              N - correction), as the CPU path
     sort     bitonic sort of (value, index) pairs, ordered by value (NaN the
              largest; descending reverses that) and equal values by index, a
              total order, so the result is the CPU's stable sort exactly. Rows
              up to 2048 elements sort in shared memory (a block per row);
              longer rows in global memory (the row padded to a power of two,
              one launch per bitonic step). topk takes the first k of the
              sorted row (largest: descending), kthvalue the k-th ascending,
              median (along a dim, or of every element) the lower median, or
              the first NaN when the row holds one, as the CPU path. (A full
              sort where the CPU selects in O(n): simple, not the fastest.)
   ========================================================================== */
typedef struct ct__cu_rows {
    int32_t n;
    int64_t shape[CT_MAX_DIMS], stride[CT_MAX_DIMS];   /* row r's offset: its C-order index over these */
    int64_t kst;                                       /* along the row */
} ct__cu_rows;
/* rows of t across the dims in mask (at most one dim); O rows of K elements */
static void ct__cu_rows_of(const ct_tensor *t, uint32_t mask, ct__cu_rows *r, int64_t *O, int64_t *K) {
    ct__cu_redp p;
    memset(&p, 0, sizeof p);
    ct__cu_red_geometry(t, mask, &p);
    r->n = p.no;
    for (int d = 0; d < p.no; d++) { r->shape[d] = p.oshape[d]; r->stride[d] = p.ostride[d]; }
    r->kst = p.nk ? p.kstride[p.nk - 1] : 0;
    if (O) *O = p.O;
    if (K) *K = p.K;
}
/* the mask of t's dim `dim` of an input with xnd dims: none when t lost it (keepdim=False) */
static uint32_t ct__cu_out_mask(const ct_tensor *t, int xnd, int dim) { return t->ndim == xnd && xnd > 0 ? 1u << dim : 0u; }
__device__ __forceinline__ int64_t ct__cu_row_off(const ct__cu_rows &r, int64_t row) { return ct__cu_doff(row, r.n, r.shape, r.stride); }

/* ---- scans ---- */
enum { CT__CU_CUMSUM, CT__CU_CUMPROD, CT__CU_CUMMAX, CT__CU_CUMMIN };
typedef struct ct__cu_scanp {
    const char *x;
    char *y;
    int64_t *yi;
    int32_t xdt, ydt, rdt, kind, rev;   /* rdt >= 0: inputs are first rounded to it (dtype=) */
    int64_t O, K;
    ct__cu_rows xr, yr, ir;
} ct__cu_scanp;
namespace ct__cu_dev {
template <class C> __device__ __forceinline__ ct__cu_acc<C> scan_id(int kind) {
    ct__cu_acc<C> a;
    a.i = -1;
    a.v = kind == CT__CU_CUMSUM ? C(0) : kind == CT__CU_CUMPROD ? C(1) : kind == CT__CU_CUMMAX ? lowest<C>() : highest<C>();
    return a;
}
/* a: the earlier part of the row, b: the later one (associative) */
template <class C> __device__ __forceinline__ ct__cu_acc<C> scan_comb(int kind, ct__cu_acc<C> a, ct__cu_acc<C> b) {
    if (kind == CT__CU_CUMSUM) { a.v = addw(a.v, b.v); return a; }
    if (kind == CT__CU_CUMPROD) { a.v = mulw(a.v, b.v); return a; }
    if (isn(b.v)) return b;
    if (isn(a.v)) return a;
    return (kind == CT__CU_CUMMAX ? b.v >= a.v : b.v <= a.v) ? b : a;
}
template <class C> __device__ __forceinline__ ct__cu_acc<C> scan_load(const ct__cu_scanp &p, const char *row, int64_t k) {
    ct__cu_acc<C> a;
    a.v = ld<C>(row + k * p.xr.kst * ct__cu_esize(p.xdt), p.xdt);
    if (p.rdt >= 0) a.v = round_to<C>(a.v, p.rdt);
    a.i = k;
    return a;
}
template <class C> __device__ __forceinline__ void scan_store(const ct__cu_scanp &p, int64_t row, int64_t k, ct__cu_acc<C> a) {
    st<C>(p.y + (ct__cu_row_off(p.yr, row) + k * p.yr.kst) * ct__cu_esize(p.ydt), p.ydt, a.v);
    if (p.yi) p.yi[ct__cu_row_off(p.ir, row) + k * p.ir.kst] = a.i;
}
} /* namespace ct__cu_dev */
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_scan_rows(const ct__cu_scanp p) {
    using namespace ct__cu_dev;
    for (int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; row < p.O; row += (int64_t)gridDim.x * blockDim.x) {
        const char *xrow = p.x + ct__cu_row_off(p.xr, row) * ct__cu_esize(p.xdt);
        ct__cu_acc<C> acc = scan_id<C>(p.kind);
        for (int64_t kk = 0; kk < p.K; kk++) {
            int64_t k = p.rev ? p.K - 1 - kk : kk;
            acc = scan_comb<C>(p.kind, acc, scan_load<C>(p, xrow, k));
            scan_store<C>(p, row, k, acc);
        }
    }
}
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_scan_block(const ct__cu_scanp p) {
    using namespace ct__cu_dev;
    typedef ct__cu_acc<C> A;
    __shared__ A sm[CT__CU_THREADS];
    const int t = (int)threadIdx.x;
    for (int64_t row = blockIdx.x; row < p.O; row += gridDim.x) {   /* uniform in the block */
        const char *xrow = p.x + ct__cu_row_off(p.xr, row) * ct__cu_esize(p.xdt);
        A carry = scan_id<C>(p.kind);
        for (int64_t k0 = 0; k0 < p.K; k0 += CT__CU_THREADS) {
            const int64_t kk = k0 + t, k = p.rev ? p.K - 1 - kk : kk;
            A a = kk < p.K ? scan_load<C>(p, xrow, k) : scan_id<C>(p.kind);
            sm[t] = a;
            __syncthreads();
            for (int off = 1; off < CT__CU_THREADS; off <<= 1) {   /* sm[t]: the scan of the chunk up to t */
                if (t >= off) a = scan_comb<C>(p.kind, sm[t - off], a);
                __syncthreads();
                sm[t] = a;
                __syncthreads();
            }
            if (kk < p.K) scan_store<C>(p, row, k, scan_comb<C>(p.kind, carry, a));
            carry = scan_comb<C>(p.kind, carry, sm[CT__CU_THREADS - 1]);
            __syncthreads();   /* every thread has read sm before the next chunk writes it */
        }
    }
}
static int ct__cu_k_scan(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    ct_tensor *x = c->in[0];
    int kind = c->op == CT__OP_CUMSUM ? CT__CU_CUMSUM : c->op == CT__OP_CUMPROD ? CT__CU_CUMPROD : c->op == CT__OP_CUMMAX ? CT__CU_CUMMAX : CT__CU_CUMMIN;
    int dev = ct__cu_call_device(c);
    uint32_t mask = ct__rdim_mask(x, c->a->i[0]);
    ct__cu_scanp p;
    memset(&p, 0, sizeof p);
    p.x = ct__ptr(x);
    p.xdt = x->dtype;
    p.y = ct__ptr(c->out[0]);
    p.ydt = c->out[0]->dtype;
    p.kind = kind;
    p.rdt = -1;
    if (kind <= CT__CU_CUMPROD && (c->a->flags & CT__RF_DTYPE) && x->dtype != c->a->dtype) p.rdt = c->a->dtype;   /* x converted first */
    p.rev = kind == CT__CU_CUMSUM && (c->a->flags & CT__RF_REVERSE) != 0;
    ct__cu_rows_of(x, mask, &p.xr, &p.O, &p.K);
    ct__cu_rows_of(c->out[0], mask, &p.yr, NULL, NULL);
    if (kind >= CT__CU_CUMMAX) {
        p.yi = (int64_t *)ct__ptr(c->out[1]);
        ct__cu_rows_of(c->out[1], mask, &p.ir, NULL, NULL);
    }
    if (p.O == 0 || p.K == 0) return 0;
    ct__cu_guard guard(dev, op);
    if (!guard.ok) return -1;
    /* sums and products in double (floats) or int64; cummax/cummin in the values' own type */
    ct_dtype cdt = kind <= CT__CU_CUMPROD ? (CT__ISFLOAT(c->cdt) ? CT_FLOAT64 : CT_INT64) : c->cdt;
    int serial = p.K <= 32;
    unsigned blocks = serial ? ct__cu_blocks(p.O, CT__CU_THREADS, dev) : ct__cu_blocks(p.O, 1, dev);
#define CT__CU_SCAN_GO(C)                                                                   \
    do {                                                                                    \
        if (serial) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_scan_rows<C>);       \
        else CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_scan_block<C>);             \
    } while (0)
    if (cdt == CT_FLOAT64) CT__CU_SCAN_GO(double);
    else if (cdt == CT_FLOAT32) CT__CU_SCAN_GO(float);
    else CT__CU_SCAN_GO(int64_t);
#undef CT__CU_SCAN_GO
    return ct__cu_launched(op);
}

/* ---- var / std ---- */
typedef struct ct__cu_varp {
    ct__cu_redp g;       /* x's geometry (outputs, reduced elements) and the group size */
    char *v, *m;         /* outputs: var or std; the mean (or NULL); dense, C order */
    int32_t odt, sq;
    double dof;
} ct__cu_varp;
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_var_kernel(const ct__cu_varp q) {
    using namespace ct__cu_dev;
    typedef ct__cu_acc<double> A;
    __shared__ A sm[9];
    const ct__cu_redp &p = q.g;
    const int L = p.lanes, lane = (int)threadIdx.x % L, oes = ct__cu_esize(q.odt);
    const int64_t per = CT__CU_THREADS / L;
    for (int64_t ob = (int64_t)blockIdx.x * per; ob < p.O; ob += (int64_t)gridDim.x * per) {   /* uniform in the block */
        const int64_t o = ob + (int64_t)threadIdx.x / L;
        const char *xo = o < p.O ? p.x + ct__cu_doff(o, p.no, p.oshape, p.ostride) * p.xes : p.x;
        A s = {0.0, 0};
        if (o < p.O)
            for (int64_t k = lane; k < p.K; k += L) s.v += ld<double>(xo + ct__cu_doff(k, p.nk, p.kshape, p.kstride) * p.xes, p.xdt);
        s = ct__cu_group_reduce<A, r_sum>(s, L, sm);
        const double mean = s.v / (double)p.K;
        A m2 = {0.0, 0};
        if (o < p.O)
            for (int64_t k = lane; k < p.K; k += L) {
                double d = ld<double>(xo + ct__cu_doff(k, p.nk, p.kshape, p.kstride) * p.xes, p.xdt) - mean;
                m2.v += d * d;
            }
        m2 = ct__cu_group_reduce<A, r_sum>(m2, L, sm);
        if (o < p.O && lane == 0) {
            double var = m2.v / q.dof;
            st<double>(q.v + o * oes, q.odt, q.sq ? sqrt(var) : var);
            if (q.m) st<double>(q.m + o * oes, q.odt, mean);
        }
    }
}
static int ct__cu_k_var(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    ct_tensor *x = c->in[0];
    uint32_t mask;
    ct__outinfo tmp;
    if (ct__reduce_shape(op, x, c->a, &mask, &tmp)) return -1;
    ct__cu_varp q;
    memset(&q, 0, sizeof q);
    ct__cu_red_init(&q.g, x, mask);
    if (q.g.O == 0) return 0;
    q.g.lanes = q.g.K >= 4096 ? CT__CU_THREADS : q.g.K >= 32 ? 32 : 1;
    q.v = ct__ptr(c->out[0]);
    q.m = c->nout == 2 ? ct__ptr(c->out[1]) : NULL;
    q.odt = c->out[0]->dtype;
    q.sq = c->op == CT__OP_STD || c->op == CT__OP_STD_MEAN;
    q.dof = (double)q.g.K - c->a->s[0];
    if (q.dof < 0) q.dof = 0;
    int dev = ct__cu_call_device(c);
    ct__cu_guard guard(dev, op);
    if (!guard.ok) return -1;
    CT__CU_LAUNCH(ct__cu_blocks(q.g.O, CT__CU_THREADS / q.g.lanes, dev), CT__CU_THREADS, (q), ct__cu_var_kernel);
    return ct__cu_launched(op);
}

/* ---- sort, argsort (sort's indices), topk, kthvalue ---- */
#define CT__CU_SORT_TILE 2048   /* rows up to this length sort in shared memory */
typedef struct ct__cu_sortp {
    const char *x;
    char *v;
    int64_t *idx;
    char *kbuf;         /* rows longer than a tile: [O][P] values and indices in global memory */
    int64_t *ibuf;
    int32_t xdt, vdt, desc, median;
    int64_t O, K, P;    /* P: K rounded up to a power of two */
    int64_t first, kout;   /* the outputs are the sorted positions [first, first + kout) */
    ct__cu_rows xr, vr, ir;
} ct__cu_sortp;
namespace ct__cu_dev {
/* the order: (value, index) a before b; indices >= K are padding, after everything */
template <class C> __device__ __forceinline__ bool sort_before(C va, int64_t ia, C vb, int64_t ib, int64_t K, int desc) {
    if (ia >= K || ib >= K) return ia < ib;
    bool an = isn(va), bn = isn(vb);
    if (desc ? ((an && !bn) || va > vb) : ((!an && bn) || va < vb)) return true;
    if (desc ? ((bn && !an) || vb > va) : ((!bn && an) || vb < va)) return false;
    return ia < ib;
}
template <class C> __device__ __forceinline__ void sort_out(const ct__cu_sortp &p, int64_t row, int64_t j, C v, int64_t i) {
    st<C>(p.v + (ct__cu_row_off(p.vr, row) + j * p.vr.kst) * ct__cu_esize(p.vdt), p.vdt, v);
    if (p.idx) p.idx[ct__cu_row_off(p.ir, row) + j * p.ir.kst] = i;
}
/* the sorted position that output j takes (v: the sorted row): first + j; for
   the median, the lower median, or the first NaN when the row holds one (the
   CPU's rule; NaNs sort last, among themselves by index) */
template <class C> __device__ __forceinline__ int64_t sort_pick(const ct__cu_sortp &p, const C *v, int64_t j) {
    if (!p.median) return p.first + j;
    if (!isn(v[p.K - 1])) return (p.K - 1) / 2;
    int64_t lo = 0, hi = p.K - 1;   /* the NaNs are a suffix: the first of them */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (isn(v[mid])) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}
} /* namespace ct__cu_dev */
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_sort_tile(const ct__cu_sortp p) {
    using namespace ct__cu_dev;
    __shared__ C sv[CT__CU_SORT_TILE];
    __shared__ int32_t si[CT__CU_SORT_TILE];
    const int xes = ct__cu_esize(p.xdt);
    for (int64_t row = blockIdx.x; row < p.O; row += gridDim.x) {   /* uniform in the block */
        const char *xrow = p.x + ct__cu_row_off(p.xr, row) * xes;
        for (int64_t j = threadIdx.x; j < p.P; j += blockDim.x) {
            si[j] = (int32_t)j;
            sv[j] = j < p.K ? ld<C>(xrow + j * p.xr.kst * xes, p.xdt) : C(0);
        }
        __syncthreads();
        for (int64_t k = 2; k <= p.P; k <<= 1)
            for (int64_t j = k >> 1; j > 0; j >>= 1) {
                for (int64_t t = threadIdx.x; t < p.P / 2; t += blockDim.x) {   /* disjoint pairs (a, a + j) */
                    int64_t a = 2 * t - (t & (j - 1)), b = a + j;
                    bool up = (a & k) == 0;
                    if (up ? sort_before<C>(sv[b], si[b], sv[a], si[a], p.K, p.desc) : sort_before<C>(sv[a], si[a], sv[b], si[b], p.K, p.desc)) {
                        C tv = sv[a];
                        sv[a] = sv[b];
                        sv[b] = tv;
                        int32_t ti = si[a];
                        si[a] = si[b];
                        si[b] = ti;
                    }
                }
                __syncthreads();
            }
        for (int64_t j = threadIdx.x; j < p.kout; j += blockDim.x) {
            int64_t s = sort_pick<C>(p, sv, j);
            sort_out<C>(p, row, j, sv[s], si[s]);
        }
        __syncthreads();   /* before the next row is loaded */
    }
}
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_sort_load(const ct__cu_sortp p) {
    C *kv = (C *)p.kbuf;
    const int xes = ct__cu_esize(p.xdt);
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < p.O * p.P; e += (int64_t)gridDim.x * blockDim.x) {
        int64_t row = e / p.P, j = e % p.P;
        kv[e] = j < p.K ? ct__cu_dev::ld<C>(p.x + (ct__cu_row_off(p.xr, row) + j * p.xr.kst) * xes, p.xdt) : C(0);
        p.ibuf[e] = j;
    }
}
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_sort_step(const ct__cu_sortp p, int64_t k, int64_t j) {
    C *kv = (C *)p.kbuf;
    const int64_t half = p.P / 2;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < p.O * half; e += (int64_t)gridDim.x * blockDim.x) {
        int64_t row = e / half, t = e % half, a = 2 * t - (t & (j - 1)), b = a + j;
        C *v = kv + row * p.P;
        int64_t *ix = p.ibuf + row * p.P;
        bool up = (a & k) == 0;
        if (up ? ct__cu_dev::sort_before<C>(v[b], ix[b], v[a], ix[a], p.K, p.desc) : ct__cu_dev::sort_before<C>(v[a], ix[a], v[b], ix[b], p.K, p.desc)) {
            C tv = v[a];
            v[a] = v[b];
            v[b] = tv;
            int64_t ti = ix[a];
            ix[a] = ix[b];
            ix[b] = ti;
        }
    }
}
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_sort_store(const ct__cu_sortp p) {
    const C *kv = (const C *)p.kbuf;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < p.O * p.kout; e += (int64_t)gridDim.x * blockDim.x) {
        int64_t row = e / p.kout, j = e % p.kout, s = row * p.P + ct__cu_dev::sort_pick<C>(p, kv + row * p.P, j);
        ct__cu_dev::sort_out<C>(p, row, j, kv[s], p.ibuf[s]);
    }
}
template <class C> static int ct__cu_sort_run(const char *op, int dev, ct__cu_sortp *p) {
    if (p->P <= CT__CU_SORT_TILE) {
        CT__CU_LAUNCH(ct__cu_blocks(p->O, 1, dev), CT__CU_THREADS, (*p), ct__cu_sort_tile<C>);
        return ct__cu_launched(op);
    }
    int64_t bytes = p->O * p->P * (int64_t)(sizeof(C) + sizeof(int64_t));
    ct_tensor *buf = ct__alloc(CT_UINT8, 1, &bytes, NULL, ct_cuda(dev));
    if (!buf) return -1;
    p->kbuf = ct__ptr(buf);
    p->ibuf = (int64_t *)(ct__ptr(buf) + p->O * p->P * (int64_t)sizeof(C));
    int rc = 0;
    CT__CU_LAUNCH(ct__cu_blocks(p->O * p->P, CT__CU_THREADS, dev), CT__CU_THREADS, (*p), ct__cu_sort_load<C>);
    rc = ct__cu_launched(op);
    unsigned steps = ct__cu_blocks(p->O * p->P / 2, CT__CU_THREADS, dev);
    for (int64_t k = 2; !rc && k <= p->P; k <<= 1)
        for (int64_t j = k >> 1; !rc && j > 0; j >>= 1) {
            CT__CU_LAUNCH(steps, CT__CU_THREADS, (*p, k, j), ct__cu_sort_step<C>);
            rc = ct__cu_launched(op);
        }
    if (!rc) {
        CT__CU_LAUNCH(ct__cu_blocks(p->O * p->kout, CT__CU_THREADS, dev), CT__CU_THREADS, (*p), ct__cu_sort_store<C>);
        rc = ct__cu_launched(op);
    }
    ct__decref(buf);   /* back to the cache: its next use is ordered after these kernels */
    return rc;
}
static int ct__cu_k_sort(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    ct_tensor *x = c->in[0], *xc = NULL;
    int full = c->op == CT__OP_MEDIAN, rc = 0;
    int dim = x->ndim && !full ? ct__wrap_dim((int)c->a->i[0], x->ndim) : 0, dev = ct__cu_call_device(c);
    ct__cu_sortp p;
    memset(&p, 0, sizeof p);
    p.v = ct__ptr(c->out[0]);
    p.vdt = c->out[0]->dtype;
    if (full) {   /* median of every element: one row, x made contiguous; a 0-d value, no index */
        if (!(xc = ct__cu_input(op, x, c->out[0]->device, 1))) return -1;
        p.x = ct__ptr(xc);
        p.O = 1;
        p.K = ct__shape_numel(x->ndim, x->shape);
        p.xr.kst = 1;
    } else {
        p.x = ct__ptr(x);
        p.idx = (int64_t *)ct__ptr(c->out[1]);
        ct__cu_rows_of(x, ct__rdim_mask(x, dim), &p.xr, &p.O, &p.K);
        ct__cu_rows_of(c->out[0], ct__cu_out_mask(c->out[0], x->ndim, dim), &p.vr, NULL, NULL);
        ct__cu_rows_of(c->out[1], ct__cu_out_mask(c->out[1], x->ndim, dim), &p.ir, NULL, NULL);
    }
    p.xdt = x->dtype;
    p.median = full || c->op == CT__OP_MEDIAN_DIM;
    p.desc = (c->op == CT__OP_SORT || c->op == CT__OP_TOPK) && (c->a->flags & CT__RF_DESC) != 0;
    p.kout = c->op == CT__OP_SORT ? p.K : c->op == CT__OP_TOPK ? c->a->i[1] : 1;
    p.first = c->op == CT__OP_KTHVALUE ? c->a->i[1] - 1 : 0;
    if (p.O > 0 && p.K > 0 && p.kout > 0) {
        for (p.P = 1; p.P < p.K; p.P <<= 1) {}
        ct__cu_guard guard(dev, op);
        if (!guard.ok) rc = -1;
        else if (c->cdt == CT_FLOAT64) rc = ct__cu_sort_run<double>(op, dev, &p);
        else if (c->cdt == CT_FLOAT32) rc = ct__cu_sort_run<float>(op, dev, &p);
        else rc = ct__cu_sort_run<int64_t>(op, dev, &p);
    } else if (full && p.K == 0) {
        rc = ct__cu_fill(op, c->out[0], NAN);   /* a float median of nothing (the meta refuses integers) */
    }
    if (xc) ct__decref(xc);
    return rc;
}

/* ---- mode: each row sorted (ascending, equal values by index) into a scratch
   buffer, then one thread per row walks it: the longest run of equal values,
   the smaller value on a tie, and the last index of its run (the largest
   index holding it), as the CPU path; a NaN is a run of its own ---- */
typedef struct ct__cu_modep {
    const char *sv;          /* [O][K] sorted values, in the compute dtype sdt */
    const int64_t *si;       /* [O][K] their indices */
    char *v;
    int64_t *idx;
    int32_t sdt, vdt;
    int64_t O, K;
    ct__cu_rows vr, ir;
} ct__cu_modep;
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_mode_kernel(const ct__cu_modep p) {
    using namespace ct__cu_dev;
    const int ses = ct__cu_esize(p.sdt);
    for (int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; row < p.O; row += (int64_t)gridDim.x * blockDim.x) {
        const char *sv = p.sv + row * p.K * ses;
        int64_t best = 0, bestn = 0, run = 0;
        C cur = ld<C>(sv, p.sdt);
        for (int64_t i = 0; i < p.K; i++) {
            C nxt = i + 1 < p.K ? ld<C>(sv + (i + 1) * ses, p.sdt) : cur;
            run++;
            if (i == p.K - 1 || cur != nxt) {
                if (run > bestn) {
                    bestn = run;
                    best = i;
                }
                run = 0;
            }
            cur = nxt;
        }
        st<C>(p.v + ct__cu_row_off(p.vr, row) * ct__cu_esize(p.vdt), p.vdt, ld<C>(sv + best * ses, p.sdt));
        p.idx[ct__cu_row_off(p.ir, row)] = p.si[row * p.K + best];
    }
}
template <class C> static int ct__cu_mode_run(const char *op, int dev, ct__cu_sortp *sp, ct__cu_modep *mp) {
    int rc = ct__cu_sort_run<C>(op, dev, sp);
    if (rc) return rc;
    CT__CU_LAUNCH(ct__cu_blocks(mp->O, CT__CU_THREADS, dev), CT__CU_THREADS, (*mp), ct__cu_mode_kernel<C>);
    return ct__cu_launched(op);
}
static int ct__cu_k_mode(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    ct_tensor *x = c->in[0];
    int dim = x->ndim ? ct__wrap_dim((int)c->a->i[0], x->ndim) : 0, dev = ct__cu_call_device(c);
    ct__cu_sortp p;
    ct__cu_modep m;
    memset(&p, 0, sizeof p);
    memset(&m, 0, sizeof m);
    ct__cu_rows_of(x, ct__rdim_mask(x, dim), &p.xr, &p.O, &p.K);
    if (p.O == 0 || p.K == 0) return 0;   /* (the meta refuses an empty dim) */
    ct_dtype sdt = c->cdt;
    int64_t shape[2] = {p.O, p.K};
    ct_tensor *sv = ct__alloc(sdt, 2, shape, NULL, c->out[0]->device), *si = ct__alloc(CT_INT64, 2, shape, NULL, c->out[0]->device);
    int rc = -1;
    if (sv && si) {
        p.x = ct__ptr(x);
        p.xdt = x->dtype;
        p.v = ct__ptr(sv);
        p.vdt = sdt;
        p.idx = (int64_t *)ct__ptr(si);
        p.vr.n = p.ir.n = 1;
        p.vr.shape[0] = p.ir.shape[0] = p.O;
        p.vr.stride[0] = p.ir.stride[0] = p.K;
        p.vr.kst = p.ir.kst = 1;
        p.kout = p.K;
        for (p.P = 1; p.P < p.K; p.P <<= 1) {}
        m.sv = ct__ptr(sv);
        m.si = (const int64_t *)ct__ptr(si);
        m.v = ct__ptr(c->out[0]);
        m.idx = (int64_t *)ct__ptr(c->out[1]);
        m.sdt = sdt;
        m.vdt = c->out[0]->dtype;
        m.O = p.O;
        m.K = p.K;
        ct__cu_rows_of(c->out[0], ct__cu_out_mask(c->out[0], x->ndim, dim), &m.vr, NULL, NULL);
        ct__cu_rows_of(c->out[1], ct__cu_out_mask(c->out[1], x->ndim, dim), &m.ir, NULL, NULL);
        ct__cu_guard guard(dev, op);
        if (guard.ok) {
            if (sdt == CT_FLOAT64) rc = ct__cu_mode_run<double>(op, dev, &p, &m);
            else if (sdt == CT_FLOAT32) rc = ct__cu_mode_run<float>(op, dev, &p, &m);
            else rc = ct__cu_mode_run<int64_t>(op, dev, &p, &m);
        }
    }
    if (sv) ct__decref(sv);   /* back to the cache: the next use is ordered after these kernels */
    if (si) ct__decref(si);
    return rc;
}

/* ============================================================================
   Indexing along a dim, advanced indexing, nonzero and masked_select
   (index_select, index_add, index_copy, index_fill; index, index_put with
   accumulate; nonzero, masked_select, masked_scatter: below)
   Indices are checked first, on the device: a kernel records the lowest
   position of an out-of-range index (atomicMin), the host reads it back and
   then that index's value, so the error is the CPU's, with the same first bad
   index ("index_select(): index out of range in self (index 9, size 4)",
   "index: index 5 is out of bounds for dimension 0 with size 3"), and nothing
   has been written. Then one thread per element of the iteration shape:
     index_select   out[.., j, ..] = x[.., index[j], ..]
     index_add/copy/fill   out[.., index[j], ..] (+)= src[.., j, ..] (or the value)
     index          out[r] = x at the offset of r's plain dims plus, for each
                    index tensor (broadcast together), its value times the
                    stride of the dim it indexes (negative values count from the end)
     index_put      the same offsets written from values (broadcast to the
                    result), or added atomically (accumulate)
   Additions are atomic (the gather/scatter section's atomic_add): duplicates
   all land, in any order, as on PyTorch's GPU path; index_copy and index_put
   without accumulate leave one of the duplicates, unspecified which (PyTorch
   documents the same).
   ========================================================================== */
typedef struct ct__cu_chkp {
    const char *p;
    int32_t i32, wrap, nd;
    int64_t n, size;
    int64_t shape[CT_MAX_DIMS], st[CT_MAX_DIMS];
} ct__cu_chkp;
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_index_check(const ct__cu_chkp q) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < q.n; i += (int64_t)gridDim.x * blockDim.x) {
        const char *e = q.p + ct__cu_doff(i, q.nd, q.shape, q.st) * (q.i32 ? 4 : 8);
        int64_t v = q.i32 ? (int64_t)*(const int32_t *)e : *(const int64_t *)e;
        if (v < 0 && q.wrap) v += q.size;
        if (v < 0 || v >= q.size) ct__cu_dev::ct__cu_mark_bad(i);
    }
}
/* idx (on device dev) against [0, size) ([-size, size) when wrap): 0, or 1 with the
   first bad value (C order) in *bad; -1 on a CUDA error */
static int ct__cu_index_bad(const char *op, int dev, const ct_tensor *idx, int64_t size, int wrap, int64_t *bad) {
    ct__cu_chkp q;
    memset(&q, 0, sizeof q);
    q.n = ct__shape_numel(idx->ndim, idx->shape);
    if (q.n == 0) return 0;
    q.p = ct__ptr(idx);
    q.i32 = idx->dtype == CT_INT32;
    q.wrap = wrap;
    q.size = size;
    ct__cu_shape_of(idx, &q.nd, q.shape, q.st);
    ct__cu_guard guard(dev, op);
    if (!guard.ok || ct__cu_bad_reset(op)) return -1;
    CT__CU_LAUNCH(ct__cu_blocks(q.n, CT__CU_THREADS, dev), CT__CU_THREADS, (q), ct__cu_index_check);
    int64_t pos = -1;
    if (ct__cu_launched(op) || ct__cu_bad_read(op, &pos)) return -1;
    if (pos < 0) return 0;
    if (ct__cu_peek(op, idx, ct__cu_doff_host(pos, q.nd, q.shape, q.st), NULL, bad)) return -1;
    return 1;
}

/* ---- along a dim ---- */
enum { CT__CU_ISELECT, CT__CU_IADD, CT__CU_ICOPY, CT__CU_IFILL };
typedef struct ct__cu_idxp {
    char *out;
    const char *x, *src, *idx;
    int32_t nd, dim, es, dt, mode, i32;
    int64_t n, size, ist;               /* iteration elements; out's (add) or x's (select) size along dim; index stride */
    int64_t sh[CT_MAX_DIMS];            /* iteration shape: the output's (select) or out's with dim -> len(index) */
    int64_t xst[CT_MAX_DIMS], ost[CT_MAX_DIMS], sst[CT_MAX_DIMS];   /* element strides */
    double alpha;                       /* index_add: floats */
    int64_t ialpha;                     /* integers */
    uint64_t bits;                      /* index_fill: the value's bits */
} ct__cu_idxp;
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_idx_kernel(const ct__cu_idxp p) {
    using namespace ct__cu_dev;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t r = i, xo = 0, oo = 0, so = 0, j = 0;
        for (int d = p.nd - 1; d >= 0; d--) {
            int64_t q = r % p.sh[d];
            r /= p.sh[d];
            so += q * p.sst[d];
            if (d == p.dim) j = q;
            else { xo += q * p.xst[d]; oo += q * p.ost[d]; }
        }
        const char *ie = p.idx + j * p.ist * (p.i32 ? 4 : 8);
        int64_t v = p.i32 ? (int64_t)*(const int32_t *)ie : *(const int64_t *)ie;
        if (v < 0) v += p.size;   /* (checked before: only index_fill has negative indices) */
        if (p.mode == CT__CU_ISELECT) {
            ct__cu_move(p.out + (oo + j * p.ost[p.dim]) * p.es, p.x + (xo + v * p.xst[p.dim]) * p.es, p.es);
            continue;
        }
        char *t = p.out + (oo + v * p.ost[p.dim]) * p.es;
        if (p.mode == CT__CU_ICOPY) ct__cu_move(t, p.src + so * p.es, p.es);
        else if (p.mode == CT__CU_IFILL) { uint64_t b = p.bits; ct__cu_move(t, (const char *)&b, p.es); }
        else {   /* out + alpha * src, in the CPU's types: alpha as the element's compute type */
            C s = ld<C>(p.src + so * p.es, p.dt), a;
            if (p.dt == CT_BOOL) a = (p.ialpha != 0 && s != 0) ? C(1) : C(0);
            else if (p.dt > CT_BFLOAT16) a = (C)CT__IMUL((int64_t)p.ialpha, (int64_t)s);   /* integers (the dtypes after the floats) */
            else if (p.dt == CT_FLOAT64) a = (C)(p.alpha * (double)s);
            else a = (C)((float)p.alpha * (float)s);
            atomic_add<C>(t, p.dt, a);
        }
    }
}
static int ct__cu_idx_run(const char *op, int dev, ct__cu_idxp *p) {
    if (p->n == 0) return 0;
    ct__cu_guard guard(dev, op);
    if (!guard.ok) return -1;
    unsigned blocks = ct__cu_blocks(p->n, CT__CU_THREADS, dev);
    if (p->mode != CT__CU_IADD || CT__ISINT(p->dt) || p->dt == CT_BOOL) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (*p), ct__cu_idx_kernel<int64_t>);
    else if (p->dt == CT_FLOAT64) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (*p), ct__cu_idx_kernel<double>);
    else CT__CU_LAUNCH(blocks, CT__CU_THREADS, (*p), ct__cu_idx_kernel<float>);
    return ct__cu_launched(op);
}
static int ct__cu_k_index_select(ct__call *c) {
    ct_tensor *out = c->out[0];
    ct_tensor *x = ct__cu_input("index_select", c->in[0], out->device, 0), *idx = x ? ct__cu_input("index_select", c->in[1], out->device, 0) : NULL;
    int rc = -1, dev = out->device.index;
    if (x && idx) {
        ct__cu_idxp p;
        memset(&p, 0, sizeof p);
        ct__geo gx = ct__geo_ne(x), go = ct__geo_ne(out);
        int64_t bad = 0;
        p.dim = ct__wrap_dim((int)c->a->i[0], x->ndim);
        p.size = gx.sh[p.dim];
        rc = ct__cu_index_bad("index_select", dev, idx, p.size, 0, &bad);
        if (rc == 1)
            rc = ct__failed(CT_ERR_INDEX, "index_select(): index out of range in self (index %lld, size %lld)", (long long)bad, (long long)p.size);
        if (!rc) {
            p.mode = CT__CU_ISELECT;
            p.nd = go.nd;
            p.n = ct__shape_numel(out->ndim, out->shape);
            p.dt = x->dtype;
            p.es = (int32_t)ct__dt[x->dtype].size;
            p.out = ct__ptr(out);
            p.x = ct__ptr(x);
            p.idx = ct__ptr(idx);
            p.i32 = idx->dtype == CT_INT32;
            p.ist = idx->ndim ? idx->strides[0] : 0;
            for (int d = 0; d < go.nd; d++) {
                p.sh[d] = go.sh[d];
                p.ost[d] = go.st[d];
                p.xst[d] = gx.st[d];
            }
            rc = ct__cu_idx_run("index_select", dev, &p);
        }
    }
    if (x) ct__decref(x);
    if (idx) ct__decref(idx);
    return rc;
}
static int ct__cu_k_index_add(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    ct_tensor *x = c->in[0], *out = c->out[0], *idx = NULL, *src = NULL;
    int fill = c->op == CT__OP_INDEX_FILL, rc = -1, dev = out->device.index;
    if (ct__cu_out_on_device(c, out)) return -1;
    ct__geo go = ct__geo_ne(out);
    int dim = ct__wrap_dim((int)c->a->i[0], x->ndim);
    int64_t size = go.sh[dim], bad = 0;
    if (!(idx = ct__cu_input(op, c->in[1], out->device, 0))) return -1;
    rc = ct__cu_index_bad(op, dev, idx, size, fill, &bad);
    if (rc == 1) {   /* before out is written, as the CPU path */
        if (c->op == CT__OP_INDEX_ADD)
            rc = ct__failed(CT_ERR_INDEX, "index_add_(): index out of range in self (index %lld, size %lld)", (long long)bad, (long long)size);
        else rc = ct__failed(CT_ERR_INDEX, "%s_(): index %lld is out of bounds for dimension %d with size %lld", op, (long long)bad, dim, (long long)size);
    }
    if (!rc && out != x) rc = ct__cu_copy_dev(op, out, x);
    if (!rc && !fill) {
        src = c->in[2];
        if (src->storage == out->storage) {   /* x.index_add_(d, i, x): read a copy */
            if ((src = ct__cu_empty_as(src, src->dtype, out->device)) && ct__cu_copy_dev(op, src, c->in[2])) { ct__decref(src); src = NULL; }
        } else {
            src = ct__cu_input(op, src, out->device, 0);
        }
        if (!src) rc = -1;
    }
    if (!rc) {
        ct__cu_idxp p;
        memset(&p, 0, sizeof p);
        int64_t n = ct__shape_numel(idx->ndim, idx->shape);
        p.mode = c->op == CT__OP_INDEX_ADD ? CT__CU_IADD : c->op == CT__OP_INDEX_COPY ? CT__CU_ICOPY : CT__CU_IFILL;
        p.nd = go.nd;
        p.dim = dim;
        p.size = size;
        p.dt = out->dtype;
        p.es = (int32_t)ct__dt[out->dtype].size;
        p.out = ct__ptr(out);
        p.idx = ct__ptr(idx);
        p.i32 = idx->dtype == CT_INT32;
        p.ist = idx->ndim ? idx->strides[0] : 0;
        for (int d = 0; d < go.nd; d++) {
            p.sh[d] = d == dim ? n : go.sh[d];
            p.ost[d] = go.st[d];
        }
        p.n = ct__shape_numel(go.nd, p.sh);
        if (src) {   /* src's dim runs with the index; its other dims align right with out's (the CPU path's view) */
            p.src = ct__ptr(src);
            if (src->ndim > 0) {
                int os_[CT_MAX_DIMS], no = 0, ssd[CT_MAX_DIMS], ns = 0;
                for (int d = 0; d < go.nd; d++) if (d != dim) os_[no++] = d;
                for (int d = 0; d < src->ndim; d++) if (d != dim) ssd[ns++] = d;
                p.sst[dim] = src->strides[dim];
                for (int k = 0; k < ns; k++) p.sst[os_[no - ns + k]] = src->shape[ssd[k]] == 1 ? 0 : src->strides[ssd[k]];
            }
        }
        p.alpha = c->op == CT__OP_INDEX_ADD ? c->a->s[0] : 1.0;
        p.ialpha = out->dtype == CT_BOOL ? (int64_t)(p.alpha != 0) : ct__f2i64(p.alpha);
        if (fill) {
            unsigned char b[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            ct__store_f64(b, out->dtype, c->a->s[0]);
            memcpy(&p.bits, b, 8);
        }
        if (ct__shape_numel(out->ndim, out->shape) > 0) rc = ct__cu_idx_run(op, dev, &p);
    }
    ct__decref(idx);
    if (src) ct__decref(src);
    return rc;
}

/* ---- advanced indexing ---- */
typedef struct ct__cu_advp {
    char *out;
    const char *x, *vals;                /* index: x; index_put: out is x's copy, vals the values */
    int32_t nd, nidx, es, dt, put, accumulate;
    int64_t n;
    int64_t sh[CT_MAX_DIMS];             /* the result's shape */
    int64_t xst[CT_MAX_DIMS];            /* per result dim: the stride of the plain dim of x it is (0 for index dims) */
    int64_t rst[CT_MAX_DIMS];            /* index: the output's strides; index_put: the values' (broadcast) */
    const int64_t *ip[CT_MAX_DIMS];      /* the index tensors, in the order of the dims they index */
    int64_t ist[CT_MAX_DIMS][CT_MAX_DIMS];   /* [k][result dim]: index k's stride (0 where it broadcasts) */
    int64_t isize[CT_MAX_DIMS], idst[CT_MAX_DIMS];   /* size and stride of the dim index k indexes */
} ct__cu_advp;
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_adv_kernel(const ct__cu_advp p) {
    using namespace ct__cu_dev;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t r = i, xo = 0, ro = 0, io[CT_MAX_DIMS];
        for (int k = 0; k < p.nidx; k++) io[k] = 0;
        for (int d = p.nd - 1; d >= 0; d--) {
            int64_t q = r % p.sh[d];
            r /= p.sh[d];
            xo += q * p.xst[d];
            ro += q * p.rst[d];
            for (int k = 0; k < p.nidx; k++) io[k] += q * p.ist[k][d];
        }
        for (int k = 0; k < p.nidx; k++) {
            int64_t v = p.ip[k][io[k]];
            xo += (v < 0 ? v + p.isize[k] : v) * p.idst[k];   /* (checked before) */
        }
        if (!p.put) ct__cu_move(p.out + ro * p.es, p.x + xo * p.es, p.es);
        else if (!p.accumulate) ct__cu_move(p.out + xo * p.es, p.vals + ro * p.es, p.es);
        else {
            C v = ld<C>(p.vals + ro * p.es, p.dt);
            atomic_add<C>(p.out + xo * p.es, p.dt, p.dt == CT_BOOL ? (v != 0 ? C(1) : C(0)) : v);   /* bool: or */
        }
    }
}
static int ct__cu_k_index(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    int put = c->op == CT__OP_INDEX_PUT, first = put ? 2 : 1, nidx = c->nin - first, rc = 0, dev = c->out[0]->device.index;
    uint32_t mask = (uint32_t)c->a->i[1];
    ct_tensor *x = c->in[0], *out = c->out[0], *vals = NULL, *idx[CT_MAX_DIMS];
    if (ct__cu_out_on_device(c, out)) return -1;
    ct_tensor *t = put ? out : x;   /* the tensor the offsets are of */
    ct__ixmap m;
    if (ct__index_map(op, t, mask, nidx, c->in + first, &m)) return -1;
    int nin = 0;
    for (; nin < nidx; nin++)
        if (!(idx[nin] = ct__cu_input(op, c->in[first + nin], out->device, 0))) { rc = -1; break; }
    ct__cu_advp p;
    memset(&p, 0, sizeof p);
    /* the indexed dims, in order; each index checked (none when the broadcast shape is empty, as the CPU path) */
    if (!rc && ct__shape_numel(m.bnd, m.bshape) > 0) {
        for (int d = 0, k = 0; d < t->ndim && k < nidx; d++) {
            if (!(mask & (1u << d))) continue;
            int64_t bad = 0;
            int r = ct__cu_index_bad(op, dev, idx[k], t->shape[d], 1, &bad);
            if (r == 1) r = ct__failed(CT_ERR_INDEX, "%s: index %lld is out of bounds for dimension %d with size %lld", op, (long long)bad, d, (long long)t->shape[d]);
            if (r) { rc = -1; break; }
            p.isize[k] = t->shape[d];
            p.idst[k] = t->strides[d];
            k++;
        }
    }
    if (!rc && put && out != x) rc = ct__cu_copy_dev(op, out, x);
    p.n = ct__shape_numel(m.nd, m.shape);
    if (!rc && put && p.n > 0) {
        vals = c->in[1];
        if (vals->storage == out->storage) {
            if ((vals = ct__cu_empty_as(vals, vals->dtype, out->device)) && ct__cu_copy_dev(op, vals, c->in[1])) { ct__decref(vals); vals = NULL; }
        } else {
            vals = ct__cu_input(op, vals, out->device, 0);
        }
        if (!vals) rc = -1;
    }
    if (!rc && p.n > 0) {
        p.out = ct__ptr(out);
        p.x = ct__ptr(x);
        p.vals = vals ? ct__ptr(vals) : NULL;
        p.nd = m.nd;
        p.nidx = nidx;
        p.es = (int32_t)ct__dt[out->dtype].size;
        p.dt = out->dtype;
        p.put = put;
        p.accumulate = put && (c->a->flags & 1);
        for (int d = 0; d < m.nd; d++) {
            p.sh[d] = m.shape[d];
            p.xst[d] = m.xdim[d] >= 0 ? t->strides[m.xdim[d]] : 0;
            if (!put) p.rst[d] = out->strides[d];
            else {
                int vd = d - (m.nd - vals->ndim);
                p.rst[d] = vd < 0 || vals->shape[vd] == 1 ? 0 : vals->strides[vd];
            }
            for (int k = 0; k < nidx; k++) {
                int b = m.bdim[d], kd = b < 0 ? -1 : b - (m.bnd - idx[k]->ndim);
                p.ist[k][d] = kd < 0 || idx[k]->shape[kd] == 1 ? 0 : idx[k]->strides[kd];
            }
        }
        for (int k = 0; k < nidx; k++) p.ip[k] = (const int64_t *)ct__ptr(idx[k]);
        ct__cu_guard guard(dev, op);
        if (!guard.ok) rc = -1;
        else {
            unsigned blocks = ct__cu_blocks(p.n, CT__CU_THREADS, dev);
            if (!p.accumulate || CT__ISINT(p.dt) || p.dt == CT_BOOL) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_adv_kernel<int64_t>);
            else if (p.dt == CT_FLOAT64) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_adv_kernel<double>);
            else CT__CU_LAUNCH(blocks, CT__CU_THREADS, (p), ct__cu_adv_kernel<float>);
            rc = ct__cu_launched(op);
        }
    }
    for (int k = 0; k < nin; k++) ct__decref(idx[k]);
    if (vals) ct__decref(vals);
    return rc;
}

/* ---- nonzero and masked_select: outputs whose length is the data's ----
   The elements (C order over the shape) are split in one contiguous chunk per
   block. A first kernel counts each chunk's selected elements; the host reads
   the counts back (the output's length is needed there anyway, as PyTorch's
   nonzero synchronizes), turns them into each chunk's first output slot, and
   allocates the output; a second kernel walks each chunk in steps of 256,
   numbering the selected elements by a block scan, so the output keeps the C
   order. The core's metas for these ops refuse device tensors (the CPU kernels
   count on the host); this header registers CUDA metas with the same checks. */
enum { CT__CU_SEL_COORDS, CT__CU_SEL_VALUES, CT__CU_SEL_SCATTER };   /* nonzero, masked_select, masked_scatter */
typedef struct ct__cu_selp {
    const char *m, *x;         /* the truth values (nonzero: x itself; masked_select: the mask); the values */
    char *out;
    const int64_t *base;       /* per block: its first output slot */
    int64_t *counts;           /* per block: selected elements */
    const char *src;           /* masked_scatter: the source, contiguous */
    int32_t mdt, mes, es, nd, mode;     /* what a selected element writes (CT__CU_SEL_*) */
    int64_t n, chunk;
    int64_t shape[CT_MAX_DIMS], mst[CT_MAX_DIMS], xst[CT_MAX_DIMS];   /* element strides over the shape (0: broadcast) */
} ct__cu_selp;
__device__ __forceinline__ bool ct__cu_sel_true(const ct__cu_selp &p, int64_t i) {
    return ct__cu_dev::ld<double>(p.m + ct__cu_doff(i, p.nd, p.shape, p.mst) * p.mes, p.mdt) != 0.0;   /* NaN counts as true */
}
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_sel_count(const ct__cu_selp p) {
    typedef ct__cu_acc<int64_t> A;
    __shared__ A sm[9];
    const int64_t b0 = (int64_t)blockIdx.x * p.chunk, b1 = b0 + p.chunk < p.n ? b0 + p.chunk : p.n;
    A a = {0, 0};
    for (int64_t i = b0 + threadIdx.x; i < b1; i += blockDim.x) a.v += ct__cu_sel_true(p, i);
    a = ct__cu_group_reduce<A, ct__cu_dev::r_sum>(a, CT__CU_THREADS, sm);
    if (threadIdx.x == 0) p.counts[blockIdx.x] = a.v;
}
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_sel_write(const ct__cu_selp p) {
    __shared__ int64_t sm[CT__CU_THREADS];
    const int t = (int)threadIdx.x;
    const int64_t b0 = (int64_t)blockIdx.x * p.chunk, b1 = b0 + p.chunk < p.n ? b0 + p.chunk : p.n;
    int64_t slot = p.base[blockIdx.x];
    for (int64_t s = b0; s < b1; s += CT__CU_THREADS) {   /* uniform in the block */
        const int64_t i = s + t;
        const int64_t f = i < b1 && ct__cu_sel_true(p, i) ? 1 : 0;
        int64_t a = f;
        sm[t] = a;
        __syncthreads();
        for (int off = 1; off < CT__CU_THREADS; off <<= 1) {   /* inclusive scan of the flags */
            if (t >= off) a += sm[t - off];
            __syncthreads();
            sm[t] = a;
            __syncthreads();
        }
        if (f) {
            const int64_t k = slot + a - 1;
            if (p.mode == CT__CU_SEL_VALUES) {
                ct__cu_move(p.out + k * p.es, p.x + ct__cu_doff(i, p.nd, p.shape, p.xst) * p.es, p.es);
            } else if (p.mode == CT__CU_SEL_SCATTER) {   /* out's element i (x: out) takes the next source element */
                ct__cu_move(p.out + ct__cu_doff(i, p.nd, p.shape, p.xst) * p.es, p.src + k * p.es, p.es);
            } else {
                int64_t r = i, *row = (int64_t *)p.out + k * p.nd;
                for (int d = p.nd - 1; d >= 0; d--) {
                    row[d] = r % p.shape[d];
                    r /= p.shape[d];
                }
            }
        }
        slot += sm[CT__CU_THREADS - 1];
        __syncthreads();   /* every thread has read sm before it is written again */
    }
}
/* the selection in two steps: ct__cu_sel_begin counts (one read back: *total),
   ct__cu_sel_end writes (when p->out is set) and frees the per-block buffer */
typedef struct ct__cu_selrun { int dev; unsigned blocks; ct_tensor *buf; } ct__cu_selrun;
static int ct__cu_sel_begin(const char *op, int dev, ct__cu_selp *p, ct__cu_selrun *r, int64_t *total) {
    r->dev = dev;
    r->buf = NULL;
    r->blocks = p->n > 0 ? ct__cu_blocks(p->n, CT__CU_THREADS, dev) : 1;
    p->chunk = p->n > 0 ? (p->n + r->blocks - 1) / r->blocks : 1;
    *total = 0;
    if (p->n == 0) return 0;
    int64_t nb = (int64_t)r->blocks, bytes = 2 * nb * (int64_t)sizeof(int64_t);
    int64_t *host = (int64_t *)malloc((size_t)bytes);
    if (!host) return ct__failed(CT_ERR_MEMORY, "%s: out of memory", op);
    if (!(r->buf = ct__alloc(CT_UINT8, 1, &bytes, NULL, ct_cuda(dev)))) {
        free(host);
        return -1;
    }
    p->counts = (int64_t *)ct__ptr(r->buf);
    p->base = p->counts + nb;
    ct__cu_guard guard(dev, op);
    int rc = guard.ok ? 0 : -1;
    if (!rc) {
        CT__CU_LAUNCH(r->blocks, CT__CU_THREADS, (*p), ct__cu_sel_count);
        rc = ct__cu_launched(op);
    }
    if (!rc) rc = ct__cu_memcpy(op, host, p->counts, (size_t)nb * sizeof(int64_t), cudaMemcpyDeviceToHost);
    for (int64_t b = 0; !rc && b < nb; b++) {   /* each block's first slot */
        host[nb + b] = *total;
        *total += host[b];
    }
    if (!rc) rc = ct__cu_memcpy(op, (void *)p->base, host + nb, (size_t)nb * sizeof(int64_t), cudaMemcpyHostToDevice);
    free(host);
    return rc;
}
static int ct__cu_sel_end(const char *op, ct__cu_selp *p, ct__cu_selrun *r, int rc) {
    if (!rc && p->out && r->buf) {
        ct__cu_guard guard(r->dev, op);
        if (!guard.ok) rc = -1;
        else {
            CT__CU_LAUNCH(r->blocks, CT__CU_THREADS, (*p), ct__cu_sel_write);
            rc = ct__cu_launched(op);
        }
    }
    if (r->buf) ct__decref(r->buf);   /* back to the cache: its next use is ordered after the kernel */
    return rc;
}
/* nonzero and masked_select: count, allocate output 0 ([count, nd] or [count]), write */
static int ct__cu_select(ct__call *c, const char *op, ct__cu_selp *p, ct_dtype odt) {
    ct__cu_selrun r;
    int64_t shape[2], total = 0;
    int rc = ct__cu_sel_begin(op, c->odev.index, p, &r, &total);
    shape[0] = total;
    shape[1] = p->nd;
    if (!rc) rc = ct__out_alloc(c, 0, odt, p->mode == CT__CU_SEL_VALUES ? 1 : 2, shape);
    if (!rc && total > 0 && (p->mode == CT__CU_SEL_VALUES || p->nd > 0)) p->out = ct__ptr(c->out[0]);
    return ct__cu_sel_end(op, p, &r, rc);
}
static int ct__cu_meta_nonzero(ct__call *c) {
    if (ct__ix_real("nonzero", c->in[0]->dtype)) return -1;
    c->nout = 1;
    c->oi[0].kind = CT__OUT_DEFERRED;
    return 0;
}
static int ct__cu_k_nonzero(ct__call *c) {
    ct_tensor *x = c->in[0];
    ct__cu_selp p;
    memset(&p, 0, sizeof p);
    p.m = ct__ptr(x);
    p.mdt = x->dtype;
    p.mes = (int32_t)ct__dt[x->dtype].size;
    p.n = ct__shape_numel(x->ndim, x->shape);
    ct__cu_shape_of(x, &p.nd, p.shape, p.mst);
    return ct__cu_select(c, "nonzero", &p, CT_INT64);
}
static int ct__cu_meta_masked_select(ct__call *c) {
    ct_tensor *x = c->in[0], *mask = c->in[1], *bin[2];
    int nd;
    int64_t shape[CT_MAX_DIMS] = {0};
    if (ct__ix_real("masked_select", x->dtype)) return -1;
    if (mask->dtype != CT_BOOL) return ct__failed(CT_ERR_DTYPE, "masked_select: expected BoolTensor or ByteTensor for mask");
    bin[0] = mask;
    bin[1] = x;
    if (ct__broadcast("masked_select", 2, bin, &nd, shape)) return -1;
    c->nout = 1;
    c->oi[0].kind = CT__OUT_DEFERRED;
    return 0;
}
static int ct__cu_k_masked_select(ct__call *c) {
    const char *op = "masked_select";
    ct_tensor *x = ct__cu_input(op, c->in[0], c->odev, 0), *mask = x ? ct__cu_input(op, c->in[1], c->odev, 0) : NULL, *bin[2];
    int rc = -1, nd = 0;
    int64_t shape[CT_MAX_DIMS] = {0};
    bin[0] = mask;
    bin[1] = x;
    if (mask && !ct__broadcast(op, 2, bin, &nd, shape)) {
        ct__cu_selp p;
        memset(&p, 0, sizeof p);
        p.m = ct__ptr(mask);
        p.mdt = mask->dtype;
        p.mes = 1;
        p.x = ct__ptr(x);
        p.es = (int32_t)ct__dt[x->dtype].size;
        p.mode = CT__CU_SEL_VALUES;
        p.nd = nd;
        p.n = ct__shape_numel(nd, shape);
        for (int d = 0; d < nd; d++) {   /* both right-aligned with the broadcast shape */
            int md = d - (nd - mask->ndim), xd = d - (nd - x->ndim);
            p.shape[d] = shape[d];
            p.mst[d] = md < 0 || mask->shape[md] == 1 ? 0 : mask->strides[md];
            p.xst[d] = xd < 0 || x->shape[xd] == 1 ? 0 : x->strides[xd];
        }
        rc = ct__cu_select(c, op, &p, x->dtype);
    }
    if (x) ct__decref(x);
    if (mask) ct__decref(mask);
    return rc;
}

/* masked_scatter: the core's checks and output (ctensor.h's meta less its CPU-only check) */
static int ct__cu_meta_masked_scatter(ct__call *c) { return ct__meta_masked_scatter_any(c); }
static int ct__cu_k_masked_scatter(ct__call *c) {
    const char *op = "masked_scatter";
    ct_tensor *x = c->in[0], *out = c->out[0], *mask = NULL, *src = NULL;
    int rc = -1;
    if (ct__cu_out_on_device(c, out)) return -1;
    ct__cu_selp p;
    ct__cu_selrun r;
    int64_t total = 0;
    memset(&p, 0, sizeof p);
    memset(&r, 0, sizeof r);
    if (!(mask = ct__cu_input(op, c->in[1], out->device, 0))) return -1;
    p.m = ct__ptr(mask);
    p.mdt = CT_BOOL;
    p.mes = 1;
    p.mode = CT__CU_SEL_SCATTER;
    p.es = (int32_t)ct__dt[out->dtype].size;
    p.nd = out->ndim;
    p.n = ct__shape_numel(out->ndim, out->shape);
    for (int d = 0; d < out->ndim; d++) {   /* the mask right-aligned with out's shape */
        int md = d - (out->ndim - mask->ndim);
        p.shape[d] = out->shape[d];
        p.mst[d] = md < 0 || mask->shape[md] == 1 ? 0 : mask->strides[md];
        p.xst[d] = out->strides[d];
    }
    rc = ct__cu_sel_begin(op, out->device.index, &p, &r, &total);
    if (!rc && total > ct_numel(c->in[2])) rc = ct__failed(CT_ERR_ARG, "masked_scatter: Number of elements of source < number of ones in mask");
    if (!rc && out != x) rc = ct__cu_copy_dev(op, out, x);
    if (!rc && total > 0) {
        src = c->in[2];
        if (src->storage == out->storage) {   /* x.masked_scatter_(m, x): read a copy */
            if ((src = ct__alloc(src->dtype, src->ndim, src->shape, NULL, out->device)) && ct__cu_copy_dev(op, src, c->in[2])) { ct__decref(src); src = NULL; }
        } else {
            src = ct__cu_input(op, src, out->device, 1);
        }
        if (!src) rc = -1;
        else {
            p.src = ct__ptr(src);
            p.out = ct__ptr(out);
        }
    }
    rc = ct__cu_sel_end(op, &p, &r, rc);
    ct__decref(mask);
    if (src) ct__decref(src);
    return rc;
}

/* this section's kernels, and ct_manual_seed's hook: ct__cu_register_all calls this */
static void ct__cu_rng_register(void) {
    static const struct { int op; ct_kernel_fn fn; } ks[] = {
        {CT__OP_UNIFORM_, ct__cu_k_random}, {CT__OP_NORMAL_, ct__cu_k_random}, {CT__OP_RANDOM_, ct__cu_k_random},
        {CT__OP_BERNOULLI_, ct__cu_k_random}, {CT__OP_BERNOULLI_TENSOR_, ct__cu_k_random}, {CT__OP_EXPONENTIAL_, ct__cu_k_random},
        {CT__OP_CUMSUM, ct__cu_k_scan}, {CT__OP_CUMPROD, ct__cu_k_scan}, {CT__OP_CUMMAX, ct__cu_k_scan}, {CT__OP_CUMMIN, ct__cu_k_scan},
        {CT__OP_VAR, ct__cu_k_var}, {CT__OP_STD, ct__cu_k_var}, {CT__OP_VAR_MEAN, ct__cu_k_var}, {CT__OP_STD_MEAN, ct__cu_k_var},
        {CT__OP_SORT, ct__cu_k_sort}, {CT__OP_TOPK, ct__cu_k_sort}, {CT__OP_KTHVALUE, ct__cu_k_sort},
        {CT__OP_MEDIAN_DIM, ct__cu_k_sort}, {CT__OP_MEDIAN, ct__cu_k_sort}, {CT__OP_MODE, ct__cu_k_mode},
        {CT__OP_INDEX_SELECT, ct__cu_k_index_select}, {CT__OP_INDEX_ADD, ct__cu_k_index_add}, {CT__OP_INDEX_COPY, ct__cu_k_index_add},
        {CT__OP_INDEX_FILL, ct__cu_k_index_add}, {CT__OP_INDEX, ct__cu_k_index}, {CT__OP_INDEX_PUT, ct__cu_k_index},
    };
    for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++) ct_register_kernel(ct__opdef_get(ks[k].op)->sname, CT_BACKEND_CUDA, ks[k].fn);
    ct_register_backend_op(ct__opdef_get(CT__OP_NONZERO)->sname, CT_BACKEND_CUDA, ct__cu_meta_nonzero, ct__cu_k_nonzero);
    ct_register_backend_op(ct__opdef_get(CT__OP_MASKED_SELECT)->sname, CT_BACKEND_CUDA, ct__cu_meta_masked_select, ct__cu_k_masked_select);
    ct_register_backend_op(ct__opdef_get(CT__OP_MASKED_SCATTER)->sname, CT_BACKEND_CUDA, ct__cu_meta_masked_scatter, ct__cu_k_masked_scatter);
    ct__manual_seed_hook = ct__cu_on_manual_seed;
}

/* ============================================================================
   Fused optimizer steps, scatter_reduce, randperm and multinomial
     _fused_sgd_, _fused_adam_, _fused_adamw_, _fused_rmsprop_, _fused_adagrad_
                  (ctensor_nn.h's ops, when it is included first): a thread per
                  element reads the param, its grad and the state tensors
                  through their strides and updates them in place with the CPU
                  loops' operations in the same order and precision: the
                  constants come from ctensor_nn.h's ct__fs_consts, fma where the
                  CPU kernel calls fma, and __fmul_rn where it keeps a product
                  rounded (nvcc would otherwise contract it into an fma), so a
                  step gives the CPU fused path's bits (IEEE division and sqrt,
                  nvcc's defaults). float32 and float64, as the CPU op; the
                  optimizers of ctensor_nn.h take them for device parameters
                  whenever this header registered them (ct__fs_ok).
     scatter_reduce.two (sum, prod, mean, amax, amin; include_self): a thread
                  per index element, as gather/scatter. The indices are checked
                  first (the lowest bad position is read back, the CPU's
                  message; nothing is written then); without include_self the
                  scattered positions are filled with the reduction's identity;
                  then each element is combined into its target atomically: sum
                  (and mean's sum) by the scatter_add atomics (integer sums are
                  exact, so deterministic; float sums come in any order),
                  prod/amax/amin by compare-and-swap loops on the 8-byte or
                  aligned 4-byte word holding the element, with the CPU's
                  expressions (a NaN wins amax/amin and stays; integers wrap;
                  bool is or/and). mean counts into an int64 buffer (atomic
                  adds), then divides (integers with floor, as the CPU path).
     randperm     Philox keys (64 bits of element i's block at the call's
                  offset) sorted with their positions by the sort section's
                  bitonic sort (ties by position): the positions are the
                  permutation. ct_randperm_on(dev, n, dtype, gen).
     multinomial  without replacement: the CPU path's method, key = p / q with
                  q = -log(1 - u) (u: 53 bits of element k's block, k the
                  C-order index over [rows][categories]; the division in float
                  for non-float64 p), then the sort section's topk of the keys;
                  with replacement: the row's cumulative sums (the scan
                  section's kernels, in float for non-float64 p, as the CPU's
                  cumulative sums), then per sample (r, s) a 53-bit u from the
                  block r * num_samples + s and a binary search of u in the
                  normalized sums (the last one taken as 1, as the CPU path).
                  Invalid weights are the CPU's errors: a flag (the lowest bad
                  position) read back once; its value tells the message.
   Each randperm / multinomial call takes one offset of the device generator
   (ct__cu_gen_next), as the other random kernels: same seed and calls, same
   numbers; not the CPU's numbers.
   ========================================================================== */
#ifdef CTENSOR_NN_IMPLEMENTATION_DONE
/* ---- fused optimizer steps ---- */
typedef struct ct__cu_fsp {
    char *t[5];                                  /* param, grad, then the state tensors in ct__fs_nin's order */
    int32_t nt, nd, kind;
    int64_t n, shape[CT_MAX_DIMS], st[5][CT_MAX_DIMS];   /* element strides */
    ct__fs_k k;                                  /* ctensor_nn.h's per-call constants */
} ct__cu_fsp;
namespace ct__cu_dev {
__device__ __forceinline__ float fs_fma(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double fs_fma(double a, double b, double c) { return fma(a, b, c); }
__device__ __forceinline__ float fs_mul(float a, float b) { return __fmul_rn(a, b); }   /* rounded: never contracted */
__device__ __forceinline__ double fs_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float fs_sqrt(float a) { return sqrtf(a); }
__device__ __forceinline__ double fs_sqrt(double a) { return sqrt(a); }
template <class T> __device__ __forceinline__ T fs_max(T x, T y) { return x != x ? x : (y != y ? y : (x > y ? x : y)); }   /* ct__maxf: NaN wins */
} /* namespace ct__cu_dev */
/* one element of each update: ctensor_nn.h's CT__FS_*_LOOP bodies, line for line */
template <class T>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_fs_kernel(const ct__cu_fsp q) {
    using namespace ct__cu_dev;
    const ct__fs_k &k = q.k;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < q.n; i += (int64_t)gridDim.x * blockDim.x) {
        T *E[5];
        for (int j = 0; j < 5; j++) E[j] = j < q.nt ? (T *)q.t[j] + ct__cu_doff(i, q.nd, q.shape, q.st[j]) : NULL;
        T *P = E[0], g = *E[1], pk = *P;
        if (k.maxim) g = -g;
        if (k.l2) g = fs_fma(pk, (T)k.wd, g);                         /* grad.add(param, alpha=weight_decay) */
        switch (q.kind) {
        case CT__OPT_SGD:
            if (k.has_mom) {                                          /* buf.mul_(momentum).add_(d_p, alpha=1 - dampening) */
                T b = k.first ? g : fs_fma(g, (T)k.omd, fs_mul(*E[2], (T)k.mom));
                *E[2] = b;
                g = k.nesterov ? fs_fma(b, (T)k.mom, g) : b;
            }
            *P = fs_fma(g, (T)k.nlr, pk);                             /* param.add_(d_p, alpha=-lr) */
            break;
        case CT__OPT_ADAM: case CT__OPT_ADAMW: {
            if (k.dec) pk = fs_mul(pk, (T)k.decay);                   /* AdamW: param.mul_(1 - lr * weight_decay) */
            T m = fs_fma(g, (T)k.omb1, fs_mul(*E[2], (T)k.b1));
            T v = fs_fma(fs_mul((T)k.omb2, g), g, fs_mul(*E[3], (T)k.b2));
            T den;
            if (k.ams) {
                T w = fs_max(*E[4], v);
                *E[4] = w;
                den = fs_sqrt(w);
            } else {
                den = fs_sqrt(v);
            }
            den = den / (T)k.bc2s + (T)k.eps;
            *P = pk + fs_mul((T)k.nss, m) / den;                      /* param.addcdiv_(exp_avg, denom, value=-step_size) */
            *E[2] = m;
            *E[3] = v;
            break;
        }
        case CT__OPT_RMSPROP: {
            T *B = E[3], *GA = E[k.has_mom ? 4 : 3], avg;
            T sq = fs_fma(fs_mul((T)k.oma, g), g, fs_mul(*E[2], (T)k.alpha));
            *E[2] = sq;
            if (k.centered) {
                T ga = fs_fma(g, (T)k.oma, fs_mul(*GA, (T)k.alpha));
                *GA = ga;
                avg = fs_sqrt(fs_fma(-ga, ga, sq));
            } else {
                avg = fs_sqrt(sq);
            }
            avg = avg + (T)k.eps;
            if (k.has_mom) {
                T b = fs_mul(*B, (T)k.mom) + g / avg;                 /* buf.mul_(momentum).addcdiv_(grad, avg) */
                *B = b;
                *P = fs_fma(b, (T)k.nlr, pk);
            } else {
                *P = pk + fs_mul((T)k.nlr, g) / avg;
            }
            break;
        }
        default: {   /* Adagrad */
            T sum = fs_fma(g, g, *E[2]);                              /* state_sum.addcmul_(grad, grad, value=1) */
            *E[2] = sum;
            T sd = fs_sqrt(sum) + (T)k.eps;
            *P = pk + fs_mul((T)k.nclr, g) / sd;                      /* param.addcdiv_(grad, std, value=-clr) */
            break;
        }
        }
    }
}
/* the CUDA kernel of the five fused ops (ctensor_nn.h's meta checked dtypes, shapes and overlaps) */
static int ct__cu_k_fused_step(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    ct_tensor *grad = NULL;
    int kind = ct__fs_kind(c->op), dev = ct__cu_call_device(c), rc = 0;
    for (int i = 0; i < c->nin; i++)
        if (i != 1 && ct__cu_out_on_device(c, c->in[i])) return -1;   /* every tensor but the grad is written */
    if (!(grad = ct__cu_input(op, c->in[1], ct_cuda(dev), 0))) return -1;
    ct__attrs a = *c->a;   /* as the CPU kernel: the declared flags and the kind */
    a.flags &= ct__fs_flag_mask[kind];
    a.mode = kind;
    ct__cu_fsp q;
    memset(&q, 0, sizeof q);
    ct__fs_consts(&a, &q.k);
    q.kind = kind;
    q.nt = c->nin;
    q.nd = c->in[0]->ndim;
    q.n = ct__shape_numel(q.nd, c->in[0]->shape);
    for (int i = 0; i < c->nin; i++) {
        const ct_tensor *t = i == 1 ? grad : c->in[i];
        q.t[i] = ct__ptr(t);
        for (int d = 0; d < q.nd; d++) q.st[i][d] = t->ndim == q.nd ? t->strides[d] : 0;
    }
    for (int d = 0; d < q.nd; d++) q.shape[d] = c->in[0]->shape[d];
    if (q.n > 0) {
        ct__cu_guard guard(dev, op);
        if (!guard.ok) rc = -1;
        else {
            unsigned blocks = ct__cu_blocks(q.n, CT__CU_THREADS, dev);
            if (c->in[0]->dtype == CT_FLOAT64) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (q), ct__cu_fs_kernel<double>);
            else CT__CU_LAUNCH(blocks, CT__CU_THREADS, (q), ct__cu_fs_kernel<float>);
            rc = ct__cu_launched(op);
        }
    }
    ct__decref(grad);
    if (!rc)
        for (int i = 2; i < c->nin; i++) CT__ATOMIC_INC(&c->in[i]->storage->version);   /* the dispatcher bumps in[0]'s */
    return rc;
}
#endif /* CTENSOR_NN_IMPLEMENTATION_DONE */

/* ---- scatter_reduce.two ---- */
enum { CT__CU_SR_CHECK, CT__CU_SR_FILL, CT__CU_SR_REDUCE };
typedef struct ct__cu_srp {
    ct__cu_ixp g;                   /* the index walk, as gather/scatter's (g.bits: the identity) */
    int32_t phase, red;             /* red: 0 sum, 1 prod, 2 mean, 3 amax, 4 amin (the CPU's mode) */
    unsigned long long *cnt;        /* mean: counts, dense over out's shape */
    int64_t cst[CT_MAX_DIMS];
} ct__cu_srp;
namespace ct__cu_dev {
/* the CPU loops' expressions (CT__SC_GEN): o the element, v the source */
template <class C> __device__ __forceinline__ C sr_comb(int red, C o, C v) {
    switch (red) {
    case 1: return mulw(o, v);
    case 3: return (isn(v) || v > o) ? v : o;
    case 4: return (isn(v) || v < o) ? v : o;
    default: return addw(o, v);
    }
}
/* *p = sr_comb(*p, v) atomically: a compare-and-swap on the 8-byte word, or on
   the aligned 32-bit word that holds a smaller element */
template <class C> __device__ void atomic_comb(char *p, int dt, int red, C v) {
    if (red == 0 || red == 2) { atomic_add<C>(p, dt, v); return; }
    const int es = ct__cu_esize(dt);
    if (es == 8) {
        unsigned long long *w = (unsigned long long *)p, old = *w, assumed, upd;
        do {
            assumed = old;
            C x = ld<C>((const char *)&assumed, dt);
            st<C>((char *)&upd, dt, sr_comb<C>(red, x, v));
            if (upd == assumed) return;   /* unchanged (a max already larger, ...) */
            old = atomicCAS(w, assumed, upd);
        } while (assumed != old);
        return;
    }
    uintptr_t a = (uintptr_t)p;
    unsigned *w = (unsigned *)(a & ~(uintptr_t)3), sh = (unsigned)(a & 3u) * 8u;
    unsigned mask = es == 4 ? 0xffffffffu : (es == 2 ? 0xffffu : 0xffu) << sh;
    unsigned old = *w, assumed;
    do {
        assumed = old;
        unsigned cur = (assumed & mask) >> sh, upd = 0;
        C x = ld<C>((const char *)&cur, dt);   /* little-endian: the element's bytes come first */
        st<C>((char *)&upd, dt, sr_comb<C>(red, x, v));
        unsigned nw = (assumed & ~mask) | ((upd << sh) & mask);
        if (nw == assumed) return;
        old = atomicCAS(w, assumed, nw);
    } while (assumed != old);
}
__device__ __forceinline__ int64_t floordiv(int64_t a, int64_t b) {   /* ct__floordiv64 (b > 0 here) */
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}
} /* namespace ct__cu_dev */
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_sr_kernel(const ct__cu_srp q) {
    using namespace ct__cu_dev;
    const ct__cu_ixp &p = q.g;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += (int64_t)gridDim.x * blockDim.x) {
        const ct__cu_ixo at = ct__cu_ix_at(p, i, q.cnt ? q.cst : NULL);
        const int64_t oo = at.oo, so = at.so, co = at.co, j = at.j;
        int64_t v = p.idx[at.io];
        if (q.phase == CT__CU_SR_CHECK) {
            if (v < 0 || v >= p.size) ct__cu_mark_bad(i);
            continue;
        }
        char *t = p.out + (oo + (v - j) * p.ost[p.dim]) * p.es;
        if (q.phase == CT__CU_SR_FILL) {
            uint64_t b = p.bits;
            ct__cu_move(t, (const char *)&b, p.es);
            continue;
        }
        atomic_comb<C>(t, p.dt, q.red, ld<C>(p.src + so * p.es, p.dt));
        if (q.cnt) atomicAdd(q.cnt + co + (v - j) * q.cst[p.dim], 1ull);
    }
}
/* mean: out /= max(count, 1), count = the scattered elements (+ 1 with include_self) */
typedef struct ct__cu_srdiv {
    char *out;
    const unsigned long long *cnt;
    int32_t nd, dt, incl;
    int64_t n, shape[CT_MAX_DIMS], st[CT_MAX_DIMS];
} ct__cu_srdiv;
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_sr_div(const ct__cu_srdiv q) {
    using namespace ct__cu_dev;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < q.n; i += (int64_t)gridDim.x * blockDim.x) {
        char *t = q.out + ct__cu_doff(i, q.nd, q.shape, q.st) * (int64_t)ct__cu_esize(q.dt);
        int64_t cn = (int64_t)q.cnt[i] + q.incl;
        if (cn == 0) cn = 1;
        C o = ld<C>(t, q.dt);
        if (q.dt == CT_FLOAT64 || q.dt == CT_FLOAT32 || q.dt == CT_FLOAT16 || q.dt == CT_BFLOAT16) st<C>(t, q.dt, o / (C)cn);
        else st<C>(t, q.dt, (C)floordiv(toi(o), cn));
    }
}
template <class C> static void ct__cu_sr_launch(int dev, const ct__cu_srp *q) {
    CT__CU_LAUNCH(ct__cu_blocks(q->g.n, CT__CU_THREADS, dev), CT__CU_THREADS, (*q), ct__cu_sr_kernel<C>);
}
static int ct__cu_k_scatter_reduce(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    ct_tensor *x = c->in[0], *out = c->out[0], *idx = NULL, *src = NULL, *cnt = NULL;
    int red = c->a->mode, incl = c->a->flags & 1, rc = -1;
    if (ct__cu_out_on_device(c, out)) return -1;
    if (out != x && ct__cu_copy_dev(op, out, x)) return -1;
    if (ct_numel(c->in[1]) == 0) return 0;
    if (!(idx = ct__cu_input(op, c->in[1], out->device, 0))) return -1;
    src = c->in[2];
    if (src->storage == out->storage) {   /* x.scatter_reduce_(d, i, x): read a copy */
        if ((src = ct__cu_empty_as(src, src->dtype, out->device)) && ct__cu_copy_dev(op, src, c->in[2])) { ct__decref(src); src = NULL; }
    } else {
        src = ct__cu_input(op, src, out->device, 0);
    }
    if (src) {
        int dev = out->device.index;
        ct__cu_srp q;
        memset(&q, 0, sizeof q);
        ct__cu_ix_geometry(&q.g, idx);
        ct__geo go = ct__geo_ne(out), gs = ct__geo_ne(src);
        q.g.dim = ct__wrap_dim((int)c->a->i[0], out->ndim);
        q.g.dt = out->dtype;
        q.g.es = (int32_t)ct__dt[out->dtype].size;
        q.g.size = go.sh[q.g.dim];
        q.g.out = ct__ptr(out);
        q.g.src = ct__ptr(src);
        for (int d = 0; d < q.g.nd; d++) {
            q.g.ost[d] = go.st[d];
            q.g.sst[d] = gs.st[d];
        }
        q.red = red;
        ct__cu_guard guard(dev, op);
        int64_t bad = -1, badv = 0;
        rc = guard.ok ? ct__cu_bad_reset(op) : -1;
        if (!rc) {   /* the indices first: nothing is written when one is out of range */
            q.phase = CT__CU_SR_CHECK;
            ct__cu_sr_launch<int64_t>(dev, &q);
            rc = ct__cu_launched(op);
        }
        if (!rc && !(rc = ct__cu_bad_read(op, &bad)) && bad >= 0 && !(rc = ct__cu_peek(op, idx, ct__cu_doff_host(bad, q.g.nd, q.g.ish, q.g.ist), NULL, &badv)))
            rc = ct__failed(CT_ERR_INDEX, "%s: index %lld is out of bounds for dimension %d with size %lld", op, (long long)badv, (int)q.g.dim,
                            (long long)q.g.size);
        if (!rc && !incl) {   /* the scattered positions start from the identity */
            unsigned char b[8];
            ct__reduce_identity(out->dtype, red, b);
            memcpy(&q.g.bits, b, 8);
            q.phase = CT__CU_SR_FILL;
            ct__cu_sr_launch<int64_t>(dev, &q);
            rc = ct__cu_launched(op);
        }
        if (!rc && red == 2) {   /* mean's counts, dense over out's shape */
            if (!(cnt = ct__alloc(CT_INT64, go.nd, go.sh, NULL, out->device))) rc = -1;
            else {
                cudaError_t e = cudaMemsetAsync(ct__ptr(cnt), 0, (size_t)ct_numel(cnt) * 8, ct__cu_cur_stream());
                if (e != cudaSuccess) rc = ct__cu_fail(op, e);
                q.cnt = (unsigned long long *)ct__ptr(cnt);
                for (int d = 0; d < go.nd; d++) q.cst[d] = cnt->strides[d];
            }
        }
        if (!rc) {
            q.phase = CT__CU_SR_REDUCE;
            if (out->dtype == CT_FLOAT64) ct__cu_sr_launch<double>(dev, &q);
            else if (CT__ISFLOAT(out->dtype)) ct__cu_sr_launch<float>(dev, &q);
            else ct__cu_sr_launch<int64_t>(dev, &q);
            rc = ct__cu_launched(op);
        }
        if (!rc && red == 2) {
            ct__cu_srdiv dq;
            memset(&dq, 0, sizeof dq);
            dq.out = ct__ptr(out);
            dq.cnt = q.cnt;
            dq.nd = go.nd;
            dq.dt = out->dtype;
            dq.incl = incl;
            dq.n = ct__shape_numel(go.nd, go.sh);
            for (int d = 0; d < go.nd; d++) { dq.shape[d] = go.sh[d]; dq.st[d] = go.st[d]; }
            unsigned blocks = ct__cu_blocks(dq.n, CT__CU_THREADS, dev);
            if (out->dtype == CT_FLOAT64) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (dq), ct__cu_sr_div<double>);
            else if (CT__ISFLOAT(out->dtype)) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (dq), ct__cu_sr_div<float>);
            else CT__CU_LAUNCH(blocks, CT__CU_THREADS, (dq), ct__cu_sr_div<int64_t>);
            rc = ct__cu_launched(op);
        }
    }
    if (cnt) ct__decref(cnt);   /* back to the cache: its next use is ordered after these kernels */
    ct__decref(idx);
    if (src) ct__decref(src);
    return rc;
}

/* ---- randperm and multinomial ---- */
typedef struct ct__cu_mnp {
    const char *p;                 /* multinomial: the weights [rows][ncat] through ps0, ps1 */
    char *w;                       /* keys (double) or the cumulative sums (float / double), dense */
    int32_t *nz;                   /* per row: a nonzero weight seen */
    int64_t *out;
    int32_t pdt, f32;
    int64_t rows, ncat, ns, ps0, ps1, n;
    uint64_t seed, offset;
} ct__cu_mnp;
namespace ct__cu_dev {
/* 64 bits of block i of the call, and a 53-bit uniform in [0, 1) from them */
__device__ __forceinline__ uint64_t mn_bits(const ct__cu_mnp &q, int64_t i) {
    uint32_t w[4] = {(uint32_t)i, (uint32_t)((uint64_t)i >> 32), (uint32_t)q.offset, (uint32_t)(q.offset >> 32)};
    ct__philox(w, (uint32_t)q.seed, (uint32_t)(q.seed >> 32));
    return ((uint64_t)w[1] << 32) | w[0];
}
__device__ __forceinline__ double mn_u53(const ct__cu_mnp &q, int64_t i) { return (double)(mn_bits(q, i) >> 11) * (1.0 / 9007199254740992.0); }
__device__ __forceinline__ double mn_weight(const ct__cu_mnp &q, int64_t r, int64_t j) {
    return ld<double>(q.p + (r * q.ps0 + j * q.ps1) * (int64_t)ct__cu_esize(q.pdt), q.pdt);
}
} /* namespace ct__cu_dev */
enum { CT__CU_MN_KEYS, CT__CU_MN_ROWS, CT__CU_MN_CHECK, CT__CU_MN_DRAW, CT__CU_PERM_KEYS };
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_mn_kernel(const ct__cu_mnp q, int phase) {
    using namespace ct__cu_dev;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < q.n; e += (int64_t)gridDim.x * blockDim.x) {
        if (phase == CT__CU_PERM_KEYS) {   /* randperm: a random key per position */
            ((int64_t *)q.w)[e] = (int64_t)mn_bits(q, e);
            continue;
        }
        if (phase == CT__CU_MN_ROWS) {   /* e a row: all its weights zero */
            if (!q.nz[e]) ct__cu_mark_bad(1);
            continue;
        }
        if (phase == CT__CU_MN_DRAW) {   /* e = r * ns + s: one sample */
            const int64_t r = e / q.ns, s = e % q.ns, last = q.ncat - 1;
            const double sum = q.f32 ? (double)((const float *)q.w)[r * q.ncat + last] : ((const double *)q.w)[r * q.ncat + last];
            if (!(sum > 0)) {   /* (also NaN and inf weights, marked at lower positions) */
                if (s == 0) ct__cu_mark_bad(r * q.ncat + last);
                continue;
            }
            const double u = mn_u53(q, e);
            int64_t lo = 0, hi = q.ncat;
            while (hi - lo > 0) {
                const int64_t mid = lo + (hi - lo) / 2;
                double cm = mid == last ? 1.0
                          : q.f32 ? (double)(((const float *)q.w)[r * q.ncat + mid] / (float)sum)
                                  : ((const double *)q.w)[r * q.ncat + mid] / sum;
                if (cm < u) lo = mid + 1;
                else hi = mid;
            }
            q.out[e] = lo;
            continue;
        }
        const int64_t r = e / q.ncat, j = e % q.ncat;
        const double v = mn_weight(q, r, j);
        if (phase == CT__CU_MN_CHECK) {   /* with replacement: the CPU's first bad entry */
            if (!(v >= 0) || !(fabs(v) < INFINITY)) ct__cu_mark_bad(e);
            continue;
        }
        /* without replacement: key = p / q, q ~ Exponential(1) */
        if (!(v < INFINITY && v >= 0)) ct__cu_mark_bad(0);
        if (v != 0) q.nz[r] = 1;
        const double x = -log(1.0 - mn_u53(q, e));
        ((double *)q.w)[e] = q.f32 ? (double)((float)v / (float)x) : v / x;
    }
}
static int ct__cu_mn_launch(const char *op, int dev, const ct__cu_mnp *q, int phase) {
    CT__CU_LAUNCH(ct__cu_blocks(q->n, CT__CU_THREADS, dev), CT__CU_THREADS, (*q, phase), ct__cu_mn_kernel);
    return ct__cu_launched(op);
}
/* rows of `len` dense elements (row stride `rs`) as the sort and scan sections see them */
static void ct__cu_dense_rows(ct__cu_rows *r, int64_t rows, int64_t rs) {
    memset(r, 0, sizeof *r);
    r->n = 1;
    r->shape[0] = rows;
    r->stride[0] = rs;
    r->kst = 1;
}
/* the first kout of each row of keys [O][K] (double or int64) in `desc` order: positions into idx [O][kout] */
static int ct__cu_sorted_positions(const char *op, int dev, ct_tensor *keys, int64_t O, int64_t K, int64_t kout, int desc, int64_t *idx) {
    int64_t nv = O * kout;
    ct_tensor *vals = ct__alloc(keys->dtype, 1, &nv, NULL, ct_cuda(dev));
    if (!vals) return -1;
    ct__cu_sortp p;
    memset(&p, 0, sizeof p);
    p.x = ct__ptr(keys);
    p.xdt = keys->dtype;
    p.v = ct__ptr(vals);
    p.vdt = keys->dtype;
    p.idx = idx;
    p.desc = desc;
    p.O = O;
    p.K = K;
    p.kout = kout;
    ct__cu_dense_rows(&p.xr, O, K);
    ct__cu_dense_rows(&p.vr, O, kout);
    ct__cu_dense_rows(&p.ir, O, kout);
    for (p.P = 1; p.P < p.K; p.P <<= 1) {}
    int rc = keys->dtype == CT_FLOAT64 ? ct__cu_sort_run<double>(op, dev, &p) : ct__cu_sort_run<int64_t>(op, dev, &p);
    ct__decref(vals);
    return rc;
}
static int ct__cu_gen_check(const ct__call *c, const char *op) {
    if (c->gen && c->gen != ct_default_generator())
        return ct__failed(CT_ERR_DEVICE, "%s: Expected a 'cuda' device type for generator but found 'cpu'", op);
    return 0;
}
static int ct__cu_k_randperm(ct__call *c) {
    const char *op = "randperm";
    ct_tensor *out = c->out[0], *keys = NULL, *pos = NULL;
    int64_t n = out->shape[0];
    int dev = out->device.index, rc = 0;
    if (ct__cu_gen_check(c, op)) return -1;
    if (n == 0) return 0;
    ct__cu_mnp q;
    memset(&q, 0, sizeof q);
    q.n = n;
    ct__cu_gen_next(dev, &q.seed, &q.offset);
    ct__cu_guard guard(dev, op);
    if (!guard.ok) return -1;
    int direct = out->dtype == CT_INT64 && ct__is_contig(out);
    if (!(keys = ct__alloc(CT_INT64, 1, &n, NULL, out->device)) || (!direct && !(pos = ct__alloc(CT_INT64, 1, &n, NULL, out->device)))) rc = -1;
    if (!rc) {
        q.w = ct__ptr(keys);
        rc = ct__cu_mn_launch(op, dev, &q, CT__CU_PERM_KEYS);
    }
    if (!rc) rc = ct__cu_sorted_positions(op, dev, keys, 1, n, n, 0, (int64_t *)ct__ptr(direct ? out : pos));
    if (!rc && !direct) rc = ct__cu_copy_dev(op, out, pos);
    if (keys) ct__decref(keys);
    if (pos) ct__decref(pos);
    return rc;
}
static int ct__cu_k_multinomial(ct__call *c) {
    const char *op = "multinomial";
    ct_tensor *p = c->in[0], *out = c->out[0], *w = NULL, *nz = NULL;
    int dev = ct__cu_call_device(c), repl = (c->a->flags & 1) != 0, rc = 0;
    if (ct__cu_gen_check(c, op) || ct__cu_out_on_device(c, out)) return -1;
    if (p->device.type != CT_CUDA) return ct__device_mismatch(ct__opdef_get(c->op), p->device, ct_cuda(dev));
    ct__cu_mnp q;
    memset(&q, 0, sizeof q);
    q.p = ct__ptr(p);
    q.pdt = p->dtype;
    q.f32 = p->dtype != CT_FLOAT64;   /* float16 / bfloat16 compute in float32, as the CPU path */
    q.ns = c->a->i[1];
    q.ncat = p->shape[p->ndim - 1];
    q.rows = p->ndim == 2 ? p->shape[0] : 1;
    q.ps0 = p->ndim == 2 ? p->strides[0] : 0;
    q.ps1 = p->strides[p->ndim - 1];
    q.out = (int64_t *)ct__ptr(out);
    int64_t total = q.rows * q.ncat, bad = -1;
    if (q.rows == 0) return 0;
    if (q.ncat == 0) return ct__failed(CT_ERR_ARG, "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
    ct__cu_gen_next(dev, &q.seed, &q.offset);
    ct__cu_guard guard(dev, op);
    if (!guard.ok || ct__cu_bad_reset(op)) return -1;
    if (!repl) {
        if (!(w = ct__alloc(CT_FLOAT64, 1, &total, NULL, ct_cuda(dev))) || !(nz = ct__alloc(CT_INT32, 1, &q.rows, NULL, ct_cuda(dev)))) rc = -1;
        else {
            cudaError_t e = cudaMemsetAsync(ct__ptr(nz), 0, (size_t)q.rows * 4, ct__cu_cur_stream());
            if (e != cudaSuccess) rc = ct__cu_fail(op, e);
        }
        if (!rc) {
            q.w = ct__ptr(w);
            q.nz = (int32_t *)ct__ptr(nz);
            q.n = total;
            rc = ct__cu_mn_launch(op, dev, &q, CT__CU_MN_KEYS);
        }
        if (!rc) {
            q.n = q.rows;
            rc = ct__cu_mn_launch(op, dev, &q, CT__CU_MN_ROWS);
        }
        if (!rc && !(rc = ct__cu_bad_read(op, &bad)) && bad >= 0)
            rc = bad == 0 ? ct__failed(CT_ERR_ARG, "multinomial: probability tensor contains either `inf`, `nan` or element < 0")
                          : ct__failed(CT_ERR_ARG, "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
        if (!rc) rc = ct__cu_sorted_positions(op, dev, w, q.rows, q.ncat, q.ns, 1, q.out);
    } else {
        if (!(w = ct__alloc(q.f32 ? CT_FLOAT32 : CT_FLOAT64, 1, &total, NULL, ct_cuda(dev)))) rc = -1;
        if (!rc) {
            q.w = ct__ptr(w);
            q.n = total;
            rc = ct__cu_mn_launch(op, dev, &q, CT__CU_MN_CHECK);
        }
        if (!rc) {   /* the rows' cumulative sums, by the scan section's kernels */
            ct__cu_scanp s;
            memset(&s, 0, sizeof s);
            s.x = q.p;
            s.xdt = q.pdt;
            s.y = q.w;
            s.ydt = w->dtype;
            s.kind = CT__CU_CUMSUM;
            s.rdt = -1;
            s.O = q.rows;
            s.K = q.ncat;
            ct__cu_dense_rows(&s.xr, q.rows, q.ps0);
            s.xr.kst = q.ps1;
            ct__cu_dense_rows(&s.yr, q.rows, q.ncat);
            if (q.f32 && q.ncat <= 32) CT__CU_LAUNCH(ct__cu_blocks(s.O, CT__CU_THREADS, dev), CT__CU_THREADS, (s), ct__cu_scan_rows<float>);
            else if (q.f32) CT__CU_LAUNCH(ct__cu_blocks(s.O, 1, dev), CT__CU_THREADS, (s), ct__cu_scan_block<float>);
            else if (q.ncat <= 32) CT__CU_LAUNCH(ct__cu_blocks(s.O, CT__CU_THREADS, dev), CT__CU_THREADS, (s), ct__cu_scan_rows<double>);
            else CT__CU_LAUNCH(ct__cu_blocks(s.O, 1, dev), CT__CU_THREADS, (s), ct__cu_scan_block<double>);
            rc = ct__cu_launched(op);
        }
        if (!rc) {
            q.n = q.rows * q.ns;
            rc = ct__cu_mn_launch(op, dev, &q, CT__CU_MN_DRAW);
        }
        double v = 0;
        if (!rc && !(rc = ct__cu_bad_read(op, &bad)) && bad >= 0 &&
            !(rc = ct__cu_peek(op, p, (bad / q.ncat) * q.ps0 + (bad % q.ncat) * q.ps1, &v, NULL))) {
            if (!(v >= 0)) rc = ct__failed(CT_ERR_ARG, "multinomial: invalid multinomial distribution (encountering probability entry < 0)");
            else if (!isfinite(v)) rc = ct__failed(CT_ERR_ARG, "multinomial: invalid multinomial distribution (encountering probability entry = infinity or NaN)");
            else rc = ct__failed(CT_ERR_ARG, "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
        }
    }
    if (w) ct__decref(w);
    if (nz) ct__decref(nz);
    return rc;
}

/* this section's kernels (from ct__cu_register_all) */
static void ct__cu_optim_register(void) {
#ifdef CTENSOR_NN_IMPLEMENTATION_DONE
    ct__fs_register_now();   /* the fused ops are a block registered at load: their ids first */
    for (int k = 0; k < 5; k++)
        if (ct__fs_ops[k] >= 0) ct_register_kernel(ct__opdef_get(ct__fs_ops[k])->sname, CT_BACKEND_CUDA, ct__cu_k_fused_step);
#endif
    ct_register_kernel(ct__opdef_get(CT__OP_SCATTER_REDUCE)->sname, CT_BACKEND_CUDA, ct__cu_k_scatter_reduce);
    ct_register_kernel(ct__opdef_get(CT__OP_RANDPERM)->sname, CT_BACKEND_CUDA, ct__cu_k_randperm);
    ct_register_kernel(ct__opdef_get(CT__OP_MULTINOMIAL)->sname, CT_BACKEND_CUDA, ct__cu_k_multinomial);
}

/* ============================================================================
   Linear algebra: cuSOLVER and cuBLAS for ctensor_linalg.h's ops (when
   ctensor_linalg.h is included before this header)
   The ops of ctensor_linalg.h's table with a kernel here: linalg_cholesky_ex
   (potrf; potrfBatched for batches), linalg_inv_ex (getrf + getrs on the
   identity), linalg_solve_ex (getrf + getrs), linalg_lu_factor_ex (getrf),
   linalg_lu_solve (getrs), linalg_det and linalg_slogdet (getrf and a kernel
   over the diagonals and pivots), linalg_eigh (syevd; syevjBatched for
   batches of n <= 32), linalg_qr (geqrf + orgqr), linalg_svd (gesvd;
   gesvdjBatched for batches of m, n <= 32), linalg_solve_triangular (cuBLAS
   trsm), cholesky_solve and cholesky_inverse (potrs),
   linalg_householder_product (orgqr), linalg_lstsq (driver gels; m >= n:
   geqrf + ormqr + trsm; m < n: geqrf of A^T + trsm + ormqr), linalg_eig
   (Xgeev, real inputs), linalg_vector_norm (the core norm's reduction
   kernel), and linalg_pinv, linalg_matrix_exp, linalg_cross and
   linalg_vander composed of device ops. Their
   metas are the CPU's, so shapes, dtypes, layouts and argument errors are too;
   the infos are cuSOLVER's devInfo written straight into the info tensors (the
   codes are LAPACK's, as the CPU's), and the errors of the checked functions
   (cholesky, inv, solve, lu_factor, eigh, svd) read the infos back and raise
   the CPU's messages. float32 computes in float32 and float64 in float64
   (the CPU path computes small matrices in double). A row-major matrix is its
   transpose in column-major order, so most ops hand cuSOLVER a row-major copy
   and use the transposed problem, as the CPU path does with LAPACK. Batches
   of square matrices up to 128 x 128 (CT__CU_LA_BATCHED_MAX) go through one
   call: potrfBatched (cholesky), cuBLAS's getrfBatched / getrsBatched (inv,
   solve, det, slogdet, lu_factor, lu_solve), and batches up to 32 x 32
   (CT__CU_LA_JACOBI_MAX) through the Jacobi solvers syevjBatched (eigh) and
   gesvdjBatched (svd: full U and V, cut to the reduced ones; eigen- and
   singular vectors then differ from syevd's / gesvd's by signs, as PyTorch's
   CUDA results differ from its CPU ones); other batches loop over the
   matrices, one cuSOLVER call each (eigh, qr, svd, solve_triangular).
   The autograd rules of these ops are ctensor ops, so gradients run on the
   device (eig's needs complex ops: not yet). ct::linalg_prod_others (a helper
   for complex products) has no CUDA kernel: complex tensors are CPU-only.
   Compiled warning-free by nvcc; run only on the emulator (tests/cuda/emu/
   cusolverDn.h), not yet on a GPU.
   ========================================================================== */
#ifdef CTENSOR_LINALG_IMPLEMENTATION_DONE
#include <cusolverDn.h>
static cusolverDnHandle_t ct__cu_sol[CTENSOR_CUDA_MAX_DEVICES];
static std::mutex ct__cu_sol_mutex;   /* one handle per device; calls are serialized */
/* the Jacobi solvers' settings (cuSOLVER's defaults: tolerance eps, 100 sweeps, sorted), one per device */
static syevjInfo_t ct__cu_syevj_info[CTENSOR_CUDA_MAX_DEVICES];
static gesvdjInfo_t ct__cu_gesvdj_info[CTENSOR_CUDA_MAX_DEVICES];
#ifndef CT__CU_LA_JACOBI_MAX
#  define CT__CU_LA_JACOBI_MAX 32   /* batches of matrices up to 32 x 32: syevjBatched / gesvdjBatched (cuSOLVER's limit) */
#endif
static const char *ct__cu_sol_msg(cusolverStatus_t s) {
    switch (s) {
    case CUSOLVER_STATUS_SUCCESS: return "success";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    default: return "cuSOLVER error";
    }
}
/* The overloads by element type (S: float, D: double). */
#define CT__CU_SOL_FNS(P, T)                                                                                                               \
    static cusolverStatus_t ct__cu_potrf_ws(cusolverDnHandle_t h, cublasFillMode_t u, int n, T *A, int lda, int *lw) {                   \
        return cusolverDn##P##potrf_bufferSize(h, u, n, A, lda, lw);                                                                       \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_potrf(cusolverDnHandle_t h, cublasFillMode_t u, int n, T *A, int lda, T *W, int lw, int *info) {      \
        return cusolverDn##P##potrf(h, u, n, A, lda, W, lw, info);                                                                         \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_potrf_batched(cusolverDnHandle_t h, cublasFillMode_t u, int n, T **A, int lda, int *info, int b) {    \
        return cusolverDn##P##potrfBatched(h, u, n, A, lda, info, b);                                                                      \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_getrf_ws(cusolverDnHandle_t h, int m, int n, T *A, int lda, int *lw) {                                \
        return cusolverDn##P##getrf_bufferSize(h, m, n, A, lda, lw);                                                                       \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_getrf(cusolverDnHandle_t h, int m, int n, T *A, int lda, T *W, int *ipiv, int *info) {                \
        return cusolverDn##P##getrf(h, m, n, A, lda, W, ipiv, info);                                                                       \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_getrs(cusolverDnHandle_t h, cublasOperation_t t, int n, int k, const T *A, int lda, const int *ipiv,  \
                                         T *B, int ldb, int *info) {                                                                       \
        return cusolverDn##P##getrs(h, t, n, k, A, lda, ipiv, B, ldb, info);                                                               \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_potrs(cusolverDnHandle_t h, cublasFillMode_t u, int n, int k, const T *A, int lda, T *B, int ldb,      \
                                         int *info) {                                                                                      \
        return cusolverDn##P##potrs(h, u, n, k, A, lda, B, ldb, info);                                                                     \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_ormqr_ws(cusolverDnHandle_t h, cublasSideMode_t sd, cublasOperation_t tr, int m, int n, int k,         \
                                            const T *A, int lda, const T *tau, const T *C, int ldc, int *lw) {                             \
        return cusolverDn##P##ormqr_bufferSize(h, sd, tr, m, n, k, A, lda, tau, C, ldc, lw);                                               \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_ormqr(cusolverDnHandle_t h, cublasSideMode_t sd, cublasOperation_t tr, int m, int n, int k,            \
                                         const T *A, int lda, const T *tau, T *C, int ldc, T *W, int lw, int *info) {                      \
        return cusolverDn##P##ormqr(h, sd, tr, m, n, k, A, lda, tau, C, ldc, W, lw, info);                                                 \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_syevd_ws(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, const T *A, int lda,   \
                                            const T *w, int *lw) {                                                                         \
        return cusolverDn##P##syevd_bufferSize(h, j, u, n, A, lda, w, lw);                                                                 \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_syevd(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, T *A, int lda, T *w,      \
                                         T *W, int lw, int *info) {                                                                        \
        return cusolverDn##P##syevd(h, j, u, n, A, lda, w, W, lw, info);                                                                   \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_geqrf_ws(cusolverDnHandle_t h, int m, int n, T *A, int lda, int *lw) {                                \
        return cusolverDn##P##geqrf_bufferSize(h, m, n, A, lda, lw);                                                                       \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_geqrf(cusolverDnHandle_t h, int m, int n, T *A, int lda, T *tau, T *W, int lw, int *info) {           \
        return cusolverDn##P##geqrf(h, m, n, A, lda, tau, W, lw, info);                                                                    \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_orgqr_ws(cusolverDnHandle_t h, int m, int n, int k, const T *A, int lda, const T *tau, int *lw) {     \
        return cusolverDn##P##orgqr_bufferSize(h, m, n, k, A, lda, tau, lw);                                                               \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_orgqr(cusolverDnHandle_t h, int m, int n, int k, T *A, int lda, const T *tau, T *W, int lw,           \
                                         int *info) {                                                                                      \
        return cusolverDn##P##orgqr(h, m, n, k, A, lda, tau, W, lw, info);                                                                 \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_gesvd_ws(cusolverDnHandle_t h, int m, int n, T *, int *lw) {                                          \
        return cusolverDn##P##gesvd_bufferSize(h, m, n, lw);                                                                               \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_gesvd(cusolverDnHandle_t h, signed char ju, signed char jv, int m, int n, T *A, int lda, T *S, T *U,  \
                                         int ldu, T *VT, int ldvt, T *W, int lw, int *info) {                                              \
        return cusolverDn##P##gesvd(h, ju, jv, m, n, A, lda, S, U, ldu, VT, ldvt, W, lw, NULL, info);                                      \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_syevjb_ws(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, const T *A, int lda,     \
                                             const T *w, int *lw, syevjInfo_t p, int b) {                                                   \
        return cusolverDn##P##syevjBatched_bufferSize(h, j, u, n, A, lda, w, lw, p, b);                                                    \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_syevjb(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, T *A, int lda, T *w,       \
                                          T *W, int lw, int *info, syevjInfo_t p, int b) {                                                  \
        return cusolverDn##P##syevjBatched(h, j, u, n, A, lda, w, W, lw, info, p, b);                                                      \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_gesvdjb_ws(cusolverDnHandle_t h, cusolverEigMode_t j, int m, int n, const T *A, int lda, const T *S,    \
                                              const T *U, int ldu, const T *V, int ldv, int *lw, gesvdjInfo_t p, int b) {                   \
        return cusolverDn##P##gesvdjBatched_bufferSize(h, j, m, n, A, lda, S, U, ldu, V, ldv, lw, p, b);                                   \
    }                                                                                                                                      \
    static cusolverStatus_t ct__cu_gesvdjb(cusolverDnHandle_t h, cusolverEigMode_t j, int m, int n, T *A, int lda, T *S, T *U, int ldu,    \
                                           T *V, int ldv, T *W, int lw, int *info, gesvdjInfo_t p, int b) {                                 \
        return cusolverDn##P##gesvdjBatched(h, j, m, n, A, lda, S, U, ldu, V, ldv, W, lw, info, p, b);                                     \
    }                                                                                                                                      \
    static cublasStatus_t ct__cu_getrf_batched(cublasHandle_t h, int n, T *const *A, int lda, int *piv, int *info, int b) {                 \
        return cublas##P##getrfBatched(h, n, A, lda, piv, info, b);                                                                        \
    }                                                                                                                                      \
    static cublasStatus_t ct__cu_getrs_batched(cublasHandle_t h, cublasOperation_t t, int n, int k, const T *const *A, int lda,          \
                                               const int *piv, T *const *B, int ldb, int *info, int b) {                                   \
        return cublas##P##getrsBatched(h, t, n, k, A, lda, piv, B, ldb, info, b);                                                          \
    }                                                                                                                                      \
    static cublasStatus_t ct__cu_trsm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t u, cublasOperation_t t,                \
                                      cublasDiagType_t d, int m, int n, const T *alpha, const T *A, int lda, T *B, int ldb) {              \
        return cublas##P##trsm(h, side, u, t, d, m, n, alpha, A, lda, B, ldb);                                                             \
    }                                                                                                                                      \
    static cublasStatus_t ct__cu_trsm_batched(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t u, cublasOperation_t t,        \
                                              cublasDiagType_t d, int m, int n, const T *alpha, const T *const *A, int lda, T *const *B,   \
                                              int ldb, int b) {                                                                            \
        return cublas##P##trsmBatched(h, side, u, t, d, m, n, alpha, A, lda, B, ldb, b);                                                   \
    }                                                                                                                                      \
    static cublasStatus_t ct__cu_geqrf_batched(cublasHandle_t h, int m, int n, T *const *A, int lda, T *const *tau, int *info, int b) {  \
        return cublas##P##geqrfBatched(h, m, n, A, lda, tau, info, b);                                                                     \
    }
CT__CU_SOL_FNS(S, float)
CT__CU_SOL_FNS(D, double)
#undef CT__CU_SOL_FNS

/* ---- small kernels: triangles and identities, determinants, finiteness ---- */
/* count contiguous row-major rows x cols matrices: mode 0 zeroes the entries
   with j - i outside [lo, hi]; mode 1 writes the identity */
template <typename T>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_la_band_kernel(T *a, int64_t count, int64_t rows, int64_t cols, int64_t lo, int64_t hi, int mode) {
    const int64_t mn = rows * cols, total = count * mn;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t e = i % mn, r = e / cols, c = e % cols;
        if (mode == 1) a[i] = r == c ? (T)1 : (T)0;
        else if (c - r < lo || c - r > hi) a[i] = (T)0;
    }
}
/* det (logmode 0) or sign and log|det| (1) of count n x n LU factors (getrf's,
   1-based pivots), computed in double as the CPU path */
template <typename T>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_la_det_kernel(const T *lu, const int *piv, int64_t count, int64_t n, T *o0, T *o1, int logmode) {
    for (int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; b < count; b += (int64_t)gridDim.x * blockDim.x) {
        double sign = 1.0, logabs = 0.0, det = 1.0;
        const T *w = lu + b * n * n;
        for (int64_t k = 0; k < n; k++) {
            double u = (double)w[k * n + k];
            if (piv[b * n + k] != k + 1) sign = -sign;
            det *= u;
            if (logmode) { if (u < 0) sign = -sign; logabs += log(fabs(u)); }
        }
        if (!logmode) {
            o0[b] = (T)(sign * det);
        } else {
            if (logabs == -INFINITY) sign = 0.0;
            o0[b] = (T)sign;
            o1[b] = (T)logabs;
        }
    }
}
/* *flag = 1 when an element of a[0..n) is not finite */
template <typename T>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_la_finite_kernel(const T *a, int64_t n, int *flag) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        if (!isfinite((double)a[i])) *flag = 1;
}

/* info[b] = 1 + the first k < n with a zero diagonal element a[b * bs + k * (ld + 1)] (0 when none) */
template <typename T>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_la_zdiag_kernel(const T *a, int64_t count, int64_t n, int64_t ld, int64_t bs, int *info) {
    for (int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; b < count; b += (int64_t)gridDim.x * blockDim.x) {
        int v = 0;
        for (int64_t k = 0; k < n && !v; k++)
            if (a[b * bs + k * (ld + 1)] == (T)0) v = (int)(k + 1);
        info[b] = v;
    }
}
/* r[b * k + j] = the sum of squares of x[b * m * k + j * m + i], n <= i < m (lstsq's residuals) */
template <typename T>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_la_resid_kernel(const T *x, int64_t count, int64_t m, int64_t n, int64_t k, T *r) {
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < count * k; e += (int64_t)gridDim.x * blockDim.x) {
        double acc = 0.0;
        for (int64_t i = n; i < m; i++) { double v = (double)x[e * m + i]; acc += v * v; }
        r[e] = (T)acc;
    }
}

/* Q's columns j < qc from geqrf's factors (orgqr for batches, after cuBLAS's
   geqrfBatched, which has no batched orgqr beside it): matrix b's factor
   column-major m x n (lda m) at a + b * bs, tau at tau + b * k, Q column-major
   m x qc at q + b * qc * m; one thread a column: Q e_j = H_0 ... H_{k-1} e_j,
   H_i = I - tau_i v_i v_i^T (v_i: 1 at i, the factor's column i below it),
   the reflectors i > j leave e_j as it is */
template <typename T>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_la_orgqr_kernel(const T *a, int64_t bs, const T *tau, T *q, int64_t count, int64_t m, int64_t qc,
                                                                         int64_t k) {
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < count * qc; e += (int64_t)gridDim.x * blockDim.x) {
        int64_t b = e / qc, j = e % qc;
        const T *f = a + b * bs, *t = tau + b * k;
        T *col = q + e * m;
        for (int64_t r = 0; r < m; r++) col[r] = r == j ? (T)1 : (T)0;
        for (int64_t i = (j < k - 1 ? j : k - 1); i >= 0; i--) {
            const T *v = f + i * m;
            T s = col[i];
            for (int64_t r = i + 1; r < m; r++) s += v[r] * col[r];
            s *= t[i];
            col[i] -= s;
            for (int64_t r = i + 1; r < m; r++) col[r] -= s * v[r];
        }
    }
}

/* ---- helpers ---- */
/* The batch of a call: shape bs (nb dims) and count. */
typedef struct ct__cu_lab { int nb; int64_t bs[CT_MAX_DIMS], count; } ct__cu_lab;
static void ct__cu_lab_of(ct__cu_lab *B, int nb, const int64_t *bs) {
    B->nb = nb;
    B->count = 1;
    for (int d = 0; d < nb; d++) { B->bs[d] = bs[d]; B->count *= bs[d]; }
}
/* A view of t (whose last tmd dims are not batch dims) broadcast to the batch B,
   with ne (1 or 2) trailing dims of sizes e0, e1 and strides s0, s1 */
static ct_tensor ct__cu_la_bview(const ct_tensor *t, const ct__cu_lab *B, int tmd, int ne, int64_t e0, int64_t e1, int64_t s0, int64_t s1) {
    int64_t sh[CT_MAX_DIMS], st[CT_MAX_DIMS];
    int tb = t->ndim - tmd;
    for (int d = 0; d < B->nb; d++) {
        int td = d - (B->nb - tb);
        sh[d] = B->bs[d];
        st[d] = td >= 0 && t->shape[td] != 1 ? t->strides[td] : 0;
    }
    sh[B->nb] = e0;
    st[B->nb] = s0;
    sh[B->nb + 1] = e1;
    st[B->nb + 1] = s1;
    return ct__ix_view(t, B->nb + ne, sh, st, t->offset);
}
/* A new contiguous device tensor: the batch B + (e0, e1) of dtype dt on dev (e1 < 0: one trailing dim) */
static ct_tensor *ct__cu_la_new(ct_dtype dt, const ct__cu_lab *B, int64_t e0, int64_t e1, ct_device dev) {
    int64_t sh[CT_MAX_DIMS];
    for (int d = 0; d < B->nb; d++) sh[d] = B->bs[d];
    sh[B->nb] = e0;
    if (e1 >= 0) sh[B->nb + 1] = e1;
    return ct__alloc(dt, B->nb + (e1 >= 0 ? 2 : 1), sh, NULL, dev);
}
/* A flat device buffer of n elements of dt (workspaces, pivots, infos) */
static ct_tensor *ct__cu_la_buf(ct_dtype dt, int64_t n, ct_device dev) {
    int64_t s = n > 0 ? n : 1;
    return ct__alloc(dt, 1, &s, NULL, dev);
}
static void ct__cu_la_free(ct_tensor *t) { if (t) ct__decref(t); }
template <typename T> static ct_dtype ct__cu_la_dt(void) { return sizeof(T) == 8 ? CT_FLOAT64 : CT_FLOAT32; }
template <typename T>
static int ct__cu_la_band(const char *op, int dev, T *a, int64_t count, int64_t rows, int64_t cols, int64_t lo, int64_t hi, int mode) {
    int64_t total = count * rows * cols;
    if (total == 0) return 0;
    CT__CU_LAUNCH(ct__cu_blocks(total, CT__CU_THREADS, dev), CT__CU_THREADS, (a, count, rows, cols, lo, hi, mode), ct__cu_la_band_kernel<T>);
    return ct__cu_launched(op);
}
/* reads count int32 infos back (waits for the current stream) */
static int32_t *ct__cu_la_infos(const char *op, const ct_tensor *info, int64_t count) {
    int32_t *h = (int32_t *)ct__la_scratch(sizeof(int32_t) * (size_t)(count > 0 ? count : 1));
    if (!h) return NULL;
    ct__cu_guard guard(info->device.index, op);   /* the current stream of the infos' device */
    if (!guard.ok || (count && ct__cu_memcpy(op, h, ct__ptr(info), sizeof(int32_t) * (size_t)count, cudaMemcpyDeviceToHost))) { CT_FREE(h); return NULL; }
    return h;
}
/* a cuSOLVER / cuBLAS failure, reported after the lock is released */
typedef struct ct__cu_solst { cusolverStatus_t s; cublasStatus_t bs; cudaError_t launch; int stage; const char *what; } ct__cu_solst;
static void ct__cu_solst_init(ct__cu_solst *st) {
    st->s = CUSOLVER_STATUS_SUCCESS;
    st->bs = CUBLAS_STATUS_SUCCESS;
    st->launch = cudaSuccess;
    st->stage = 0;
    st->what = "";
}
static int ct__cu_solst_report(const char *op, const ct__cu_solst *st) {
    if (st->s != CUSOLVER_STATUS_SUCCESS) return ct__failed(CT_ERR_DEVICE, "%s: cuSOLVER error: %s (%s)", op, ct__cu_sol_msg(st->s), st->what);
    if (st->bs != CUBLAS_STATUS_SUCCESS) return ct__failed(CT_ERR_DEVICE, "%s: cuBLAS error: %s (%s)", op, ct__cu_blas_msg(st->bs), st->what);
    if (st->launch != cudaSuccess) return ct__cu_fail(op, st->launch);
    return 0;
}
/* under ct__cu_sol_mutex, on device dev: its handle (made on first use), on the current stream */
static cusolverDnHandle_t ct__cu_sol_ready(int dev, ct__cu_solst *st) {
    if (!ct__cu_sol[dev] && (st->s = cusolverDnCreate(&ct__cu_sol[dev])) != CUSOLVER_STATUS_SUCCESS) {
        ct__cu_sol[dev] = NULL;
        st->what = "cusolverDnCreate";
        return NULL;
    }
    if ((st->s = cusolverDnSetStream(ct__cu_sol[dev], ct__cu_stream_of(dev))) != CUSOLVER_STATUS_SUCCESS) {
        st->what = "cusolverDnSetStream";
        return NULL;
    }
    return ct__cu_sol[dev];
}
#define CT__CU_SOL_CALL(st, name, call)                                                  \
    do {                                                                                 \
        if ((st).s == CUSOLVER_STATUS_SUCCESS && ((st).s = (call)) != CUSOLVER_STATUS_SUCCESS) (st).what = (name); \
    } while (0)
/* The frame every cuSOLVER call site shares: device dev current (its guard),
   ct__cu_sol_mutex held, the device's handle made and set to its current
   stream; body(h) runs only with a ready handle (else st holds the failure,
   reported by ct__cu_solst_report after the lock is released). -1 when the
   device cannot be used (the error set), else body's result (0 without a
   handle). */
template <typename F>
static int ct__cu_sol_run(int dev, const char *fn, ct__cu_solst *st, F &&body) {
    ct__cu_guard guard(dev, fn);
    if (!guard.ok) return -1;
    std::lock_guard<std::mutex> lock(ct__cu_sol_mutex);
    cusolverDnHandle_t h = ct__cu_sol_ready(dev, st);
    return h ? body(h) : 0;
}
/* A workspace of lw elements of dt on D after a successful size query (st):
   NULL when the query failed, or (*rc = -1, the error set) out of memory */
static ct_tensor *ct__cu_sol_ws(const ct__cu_solst *st, ct_dtype dt, int lw, ct_device D, int *rc) {
    if (st->s != CUSOLVER_STATUS_SUCCESS) return NULL;
    ct_tensor *w = ct__cu_la_buf(dt, lw, D);
    if (!w) *rc = -1;
    return w;
}
static int ct__cu_la_int_ok(const char *op, int64_t a, int64_t b) {
    if (a <= INT32_MAX && b <= INT32_MAX) return 1;
    ct__failed(CT_ERR_UNSUPPORTED, "%s: a matrix dimension larger than 2^31-1 (%lld, %lld) is not supported on CUDA", op, (long long)a, (long long)b);
    return 0;
}
/* A batch of device pointers base + b * stride (elements), b < count, on the device */
template <typename T>
static ct_tensor *ct__cu_la_ptrs(const char *op, T *base, int64_t stride, int64_t count, ct_device dev) {
    ct_tensor *d = ct__cu_la_buf(CT_INT64, count, dev);
    T **h = (T **)ct__la_scratch(sizeof(T *) * (size_t)(count > 0 ? count : 1));
    if (!d || !h) { ct__cu_la_free(d); CT_FREE(h); return NULL; }
    for (int64_t b = 0; b < count; b++) h[b] = base + b * stride;
    int rc;
    {
        ct__cu_guard guard(dev.index, op);
        rc = guard.ok ? ct__cu_memcpy(op, ct__ptr(d), h, sizeof(T *) * (size_t)count, cudaMemcpyHostToDevice) : -1;
    }
    CT_FREE(h);
    if (rc) { ct__decref(d); return NULL; }
    return d;
}

/* ---- cholesky: a row-major copy of A is A^T column-major, whose upper triangle
   is A's lower one: potrf(UPPER) leaves L row-major in place (potrf(LOWER) gives
   U for upper=True); the other triangle is zeroed ---- */
template <typename T>
static int ct__cu_la_cholesky(ct__call *c, const char *fn, int dev) {
    const ct_tensor *A = c->in[0];
    ct_tensor *L = c->out[0], *info = c->out[1];
    int upper = (c->a->flags & CT__LAF_UPPER) != 0, nd = A->ndim;
    int64_t n = A->shape[nd - 1];
    ct__cu_lab B;
    ct__cu_lab_of(&B, nd - 2, A->shape);
    if (!ct__cu_la_int_ok(fn, n, B.count)) return -1;
    if (B.count == 0) return 0;
    if (n == 0) return ct__cu_fill(fn, info, 0.0);
    if (ct__cu_copy_dev(fn, L, (ct_tensor *)A)) return -1;
    cublasFillMode_t fill = upper ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
    T *Lp = (T *)ct__ptr(L);
    int *ip = (int *)ct__ptr(info);
    ct_tensor *ws = NULL, *ptrs = NULL;
    ct__cu_solst st;
    ct__cu_solst_init(&st);
    int rc = 0;
    if (B.count > 1 && !(ptrs = ct__cu_la_ptrs<T>(fn, Lp, n * n, B.count, L->device))) return -1;
    {
        rc = ct__cu_sol_run(dev, fn, &st, [&](cusolverDnHandle_t h) -> int {
            if (ptrs) {
                CT__CU_SOL_CALL(st, "potrfBatched", ct__cu_potrf_batched(h, fill, (int)n, (T **)ct__ptr(ptrs), (int)n, ip, (int)B.count));
            } else {
                int lw = 0;
                CT__CU_SOL_CALL(st, "potrf_bufferSize", ct__cu_potrf_ws(h, fill, (int)n, Lp, (int)n, &lw));
                ws = ct__cu_sol_ws(&st, A->dtype, lw, L->device, &rc);
                if (ws) CT__CU_SOL_CALL(st, "potrf", ct__cu_potrf(h, fill, (int)n, Lp, (int)n, (T *)ct__ptr(ws), lw, ip));
            }
            return rc;
        });
    }
    ct__cu_la_free(ptrs);
    ct__cu_la_free(ws);
    if (rc || ct__cu_solst_report(fn, &st)) return -1;
    ct__cu_guard guard(dev, fn);
    if (!guard.ok) return -1;
    if (ct__cu_la_band<T>(fn, dev, Lp, B.count, n, n, upper ? 0 : -n, upper ? n : 0, 0)) return -1;
    if (c->a->flags & CT__LAF_CHECK) {
        int32_t *hi = ct__cu_la_infos(fn, info, B.count);
        if (!hi) return -1;
        int64_t bad = 0;
        int v = ct__la_first_bad(hi, B.count, &bad);
        CT_FREE(hi);
        if (v)
            return ct__failed(CT_ERR_NUMERIC, "%s: %sThe factorization could not be completed because the input is not positive-definite (the leading minor of order %d is not positive-definite).",
                              fn, ct__la_batch_prefix(nd > 2, bad).s, v);
    }
    return 0;
}

/* ---- LU-based ops: inv, solve, det, slogdet (a row-major copy W of A is A^T
   column-major: getrf factors A^T, getrs with CUBLAS_OP_T solves A X = B,
   det(A^T) = det(A)), lu_factor (A copied column-major into LU), lu_solve ---- */
#ifndef CT__CU_LA_BATCHED_MAX
#  define CT__CU_LA_BATCHED_MAX 128   /* batches of n x n up to this: cuBLAS's batched LU */
#endif
enum { CT__CU_LU_INV, CT__CU_LU_SOLVE, CT__CU_LU_DET, CT__CU_LU_SLOGDET, CT__CU_LU_FACTOR, CT__CU_LU_SOLVE_LU };
/* getrf on count matrices m x n (lda m) at a + b * m * n, pivots at piv + b * min(m, n), infos at info + b;
   under the lock */
template <typename T>
static void ct__cu_la_getrf_all(cusolverDnHandle_t h, ct__cu_solst *st, T *a, int64_t m, int64_t n, int64_t count, int *piv, int *info, ct_device dev,
                                int *oom) {
    int lw = 0;
    CT__CU_SOL_CALL(*st, "getrf_bufferSize", ct__cu_getrf_ws(h, (int)m, (int)n, a, (int)(m > 1 ? m : 1), &lw));
    if (st->s != CUSOLVER_STATUS_SUCCESS) return;
    ct_tensor *ws = ct__cu_la_buf(ct__cu_la_dt<T>(), lw, dev);
    if (!ws) { *oom = 1; return; }
    int64_t k = m < n ? m : n;
    for (int64_t b = 0; b < count && st->s == CUSOLVER_STATUS_SUCCESS; b++)
        CT__CU_SOL_CALL(*st, "getrf", ct__cu_getrf(h, (int)m, (int)n, a + b * m * n, (int)(m > 1 ? m : 1), (T *)ct__ptr(ws), piv + b * k, info + b));
    ct__decref(ws);
}
/* getrs on count systems (A at a + b * n * n, pivots at piv + b * n, B at x + b * n * k, ld n); under the lock */
template <typename T>
static void ct__cu_la_getrs_all(cusolverDnHandle_t h, ct__cu_solst *st, cublasOperation_t tr, const T *a, const int *piv, T *x, int64_t n, int64_t k,
                                int64_t count, int *sinfo) {
    int ld = (int)(n > 1 ? n : 1);
    for (int64_t b = 0; b < count && st->s == CUSOLVER_STATUS_SUCCESS; b++)
        CT__CU_SOL_CALL(*st, "getrs", ct__cu_getrs(h, tr, (int)n, (int)k, a + b * n * n, ld, piv + b * n, x + b * n * k, ld, sinfo));
}
template <typename T>
static int ct__cu_la_lu(ct__call *c, const char *fn, int dev, int kind) {
    const ct_tensor *A = c->in[0];
    ct_device D = c->out[0]->device;
    int nd = A->ndim, rc = 0, oom = 0;
    ct__cu_lab B;
    ct_tensor *W = NULL, *X = NULL, *piv = NULL, *info = NULL, *sinfo = NULL;
    int64_t m = A->shape[nd - 2], n = A->shape[nd - 1], k = 0;
    cublasOperation_t tr = CUBLAS_OP_N;
    T *a = NULL, *x = NULL;
    int *pp = NULL, *ip = NULL;
    /* the batch, the factor W (count matrices m x n, column-major) and the right-hand sides X (n x k column-major) */
    if (kind == CT__CU_LU_FACTOR) {
        ct__cu_lab_of(&B, nd - 2, A->shape);
        if (!ct__cu_la_int_ok(fn, m, n) || !ct__cu_la_int_ok(fn, B.count, 0)) return -1;
        if (B.count == 0) return 0;
        if (m == 0 || n == 0) return ct__cu_fill(fn, c->out[2], 0.0);
        W = ct__incref(c->out[0]);   /* column-major (the meta's layout): A copied in */
        if (ct__cu_copy_dev(fn, W, (ct_tensor *)A)) { ct__decref(W); return -1; }
        pp = (int *)ct__ptr(c->out[1]);
        ip = (int *)ct__ptr(c->out[2]);
    } else if (kind == CT__CU_LU_SOLVE_LU) {
        const ct_tensor *pv = c->in[1], *Bt = c->in[2];
        ct_tensor *Xo = c->out[0];
        int left = (c->a->flags & CT__LAF_LEFT) != 0, adj = (c->a->flags & CT__LAF_ADJOINT) != 0, xd = Xo->ndim, bd = Bt->ndim;
        ct__cu_lab_of(&B, xd - 2, Xo->shape);
        k = left ? Xo->shape[xd - 1] : Xo->shape[xd - 2];
        if (!ct__cu_la_int_ok(fn, n, k) || !ct__cu_la_int_ok(fn, B.count, 0)) return -1;
        if (B.count == 0 || n == 0 || k == 0) return 0;
        W = ct__cu_la_new(A->dtype, &B, n, n, D);
        piv = ct__cu_la_new(CT_INT32, &B, n, -1, D);
        X = left ? ct__cu_la_new(A->dtype, &B, k, n, D) : ct__cu_la_new(A->dtype, &B, k, n, D);
        if (!W || !piv || !X) rc = -1;
        if (!rc) {   /* LU column-major (its transpose row-major), the pivots, B column-major */
            ct_tensor v = ct__cu_la_bview(A, &B, 2, 2, n, n, A->strides[nd - 1], A->strides[nd - 2]);
            ct_tensor pvv = ct__cu_la_bview(pv, &B, 1, 1, n, 0, pv->strides[pv->ndim - 1], 0);
            ct_tensor bv = left ? ct__cu_la_bview(Bt, &B, 2, 2, k, n, Bt->strides[bd - 1], Bt->strides[bd - 2])
                                : ct__cu_la_bview(Bt, &B, 2, 2, k, n, Bt->strides[bd - 2], Bt->strides[bd - 1]);
            rc = ct__cu_copy_dev(fn, W, &v) || ct__cu_copy_dev(fn, piv, &pvv) || ct__cu_copy_dev(fn, X, &bv) ? -1 : 0;
        }
        tr = left ? (adj ? CUBLAS_OP_T : CUBLAS_OP_N) : (adj ? CUBLAS_OP_N : CUBLAS_OP_T);
        pp = piv ? (int *)ct__ptr(piv) : NULL;
    } else {
        if (kind == CT__CU_LU_SOLVE) {
            const ct_tensor *Bt = c->in[1];
            ct_tensor *Xo = c->out[0];
            int vec = ct__la_vector_rhs(A, Bt), bd = Bt->ndim;
            ct__cu_lab_of(&B, Xo->ndim - (vec ? 1 : 2), Xo->shape);
            k = vec ? 1 : Xo->shape[Xo->ndim - 1];
            if (!ct__cu_la_int_ok(fn, n, k) || !ct__cu_la_int_ok(fn, B.count, 0)) return -1;
            if (B.count == 0) return 0;
            if (n == 0) return ct__cu_fill(fn, c->out[1], 0.0);
            if (k > 0) {
                if (!(X = ct__cu_la_new(A->dtype, &B, k, n, D))) return -1;
                ct_tensor bv = vec ? ct__cu_la_bview(Bt, &B, 1, 2, 1, n, 0, Bt->strides[bd - 1])
                                   : ct__cu_la_bview(Bt, &B, 2, 2, k, n, Bt->strides[bd - 1], Bt->strides[bd - 2]);
                if (ct__cu_copy_dev(fn, X, &bv)) rc = -1;
            }
            tr = CUBLAS_OP_T;   /* W holds A^T */
        } else {
            ct__cu_lab_of(&B, nd - 2, A->shape);
            if (!ct__cu_la_int_ok(fn, n, n) || !ct__cu_la_int_ok(fn, B.count, 0)) return -1;
            if (B.count == 0) return 0;
            if (kind == CT__CU_LU_INV) {
                if (n == 0) return ct__cu_fill(fn, c->out[1], 0.0);
                k = n;
                X = ct__incref(c->out[0]);   /* contiguous: the identity, then A^{-T} column-major = A^{-1} row-major */
                ct__cu_guard guard(dev, fn);
                if (!guard.ok || ct__cu_la_band<T>(fn, dev, (T *)ct__ptr(X), B.count, n, n, 0, 0, 1)) rc = -1;
                tr = CUBLAS_OP_N;
            } else if (n == 0) {
                if (ct__cu_fill(fn, c->out[0], 1.0)) return -1;
                return kind == CT__CU_LU_SLOGDET ? ct__cu_fill(fn, c->out[1], 0.0) : 0;
            }
        }
        if (!rc && !(W = ct__cu_la_new(A->dtype, &B, n, n, D))) rc = -1;
        if (!rc) {   /* A (broadcast) row-major: A^T column-major */
            ct_tensor v = ct__cu_la_bview(A, &B, 2, 2, n, n, A->strides[nd - 2], A->strides[nd - 1]);
            rc = ct__cu_copy_dev(fn, W, &v);
        }
        m = n;
        if (!rc && !(piv = ct__cu_la_buf(CT_INT32, B.count * n, D))) rc = -1;
        pp = piv ? (int *)ct__ptr(piv) : NULL;
        if (kind == CT__CU_LU_DET || kind == CT__CU_LU_SLOGDET) {
            if (!rc && !(info = ct__cu_la_buf(CT_INT32, B.count, D))) rc = -1;
            ip = info ? (int *)ct__ptr(info) : NULL;
        } else {
            ip = (int *)ct__ptr(c->out[1]);
        }
    }
    if (!rc && !(sinfo = ct__cu_la_buf(CT_INT32, 1, D))) rc = -1;
    a = W ? (T *)ct__ptr(W) : NULL;
    x = X ? (T *)ct__ptr(X) : NULL;
    ct__cu_solst st;
    ct__cu_solst_init(&st);
    /* batches of small square matrices: cuBLAS's getrfBatched / getrsBatched (one call) */
    int batched = B.count > 1 && m == n && n <= CT__CU_LA_BATCHED_MAX;
    ct_tensor *pa = NULL, *px = NULL;
    if (!rc && batched && (!(pa = ct__cu_la_ptrs<T>(fn, a, m * n, B.count, D)) || (x && !(px = ct__cu_la_ptrs<T>(fn, x, n * k, B.count, D))))) rc = -1;
    if (!rc && batched) {
        ct__cu_guard guard(dev, fn);
        if (!guard.ok) rc = -1;
        else {
            std::lock_guard<std::mutex> lock(ct__cu_blas_mutex);
            int stage = 0, hinfo = 0;
            cublasStatus_t bs = ct__cu_blas_ready(dev, sizeof(T) == 8 ? CUDA_R_64F : CUDA_R_32F, &stage);
            if (bs != CUBLAS_STATUS_SUCCESS) st.what = stage == 1 ? "cublasCreate" : "cublas settings";
            if (bs == CUBLAS_STATUS_SUCCESS && kind != CT__CU_LU_SOLVE_LU &&
                (bs = ct__cu_getrf_batched(ct__cu_blas[dev], (int)n, (T *const *)ct__ptr(pa), (int)n, pp, ip, (int)B.count)) != CUBLAS_STATUS_SUCCESS)
                st.what = "getrfBatched";
            if (bs == CUBLAS_STATUS_SUCCESS && x &&
                (bs = ct__cu_getrs_batched(ct__cu_blas[dev], tr, (int)n, (int)k, (const T *const *)ct__ptr(pa), (int)n, pp, (T *const *)ct__ptr(px), (int)n,
                                           &hinfo, (int)B.count)) != CUBLAS_STATUS_SUCCESS)
                st.what = "getrsBatched";
            st.bs = bs;
        }
    }
    ct__cu_la_free(pa);
    ct__cu_la_free(px);
    if (!rc && !batched) {
        rc = ct__cu_sol_run(dev, fn, &st, [&](cusolverDnHandle_t h) -> int {
            if (kind != CT__CU_LU_SOLVE_LU) ct__cu_la_getrf_all<T>(h, &st, a, m, n, B.count, pp, ip, D, &oom);
            if (!oom && x) ct__cu_la_getrs_all<T>(h, &st, tr, a, pp, x, n, k, B.count, (int *)ct__ptr(sinfo));
            return rc;
        });
    }
    if (oom) rc = -1;
    if (!rc) rc = ct__cu_solst_report(fn, &st);
    if (!rc && (kind == CT__CU_LU_DET || kind == CT__CU_LU_SLOGDET)) {
        ct__cu_guard guard(dev, fn);
        if (!guard.ok) rc = -1;
        else {
            int lg = kind == CT__CU_LU_SLOGDET;
            CT__CU_LAUNCH(ct__cu_blocks(B.count, CT__CU_THREADS, dev), CT__CU_THREADS,
                          (a, pp, B.count, n, (T *)ct__ptr(c->out[0]), lg ? (T *)ct__ptr(c->out[1]) : (T *)NULL, lg), ct__cu_la_det_kernel<T>);
            rc = ct__cu_launched(fn);
        }
    }
    if (!rc && X && kind == CT__CU_LU_SOLVE) {   /* X (n x k column-major) into the output */
        ct_tensor *Xo = c->out[0];
        int xd = Xo->ndim, vec = ct__la_vector_rhs(A, c->in[1]);
        ct_tensor ov = vec ? ct__cu_la_bview(Xo, &B, 1, 2, 1, n, 0, Xo->strides[xd - 1])
                           : ct__cu_la_bview(Xo, &B, 2, 2, k, n, Xo->strides[xd - 1], Xo->strides[xd - 2]);
        rc = ct__cu_copy_dev(fn, &ov, X);
    } else if (!rc && X && kind == CT__CU_LU_SOLVE_LU) {
        ct_tensor *Xo = c->out[0];
        int xd = Xo->ndim, left = (c->a->flags & CT__LAF_LEFT) != 0;
        ct_tensor ov = left ? ct__cu_la_bview(Xo, &B, 2, 2, k, n, Xo->strides[xd - 1], Xo->strides[xd - 2])
                            : ct__cu_la_bview(Xo, &B, 2, 2, k, n, Xo->strides[xd - 2], Xo->strides[xd - 1]);
        rc = ct__cu_copy_dev(fn, &ov, X);
    }
    ct__cu_la_free(W);
    ct__cu_la_free(X);
    ct__cu_la_free(piv);
    ct__cu_la_free(info);
    ct__cu_la_free(sinfo);
    if (rc || !(c->a->flags & CT__LAF_CHECK) || kind == CT__CU_LU_DET || kind == CT__CU_LU_SLOGDET || kind == CT__CU_LU_SOLVE_LU) return rc;
    /* the checked functions: the CPU's messages */
    const ct_tensor *io = kind == CT__CU_LU_FACTOR ? c->out[2] : c->out[1];
    int32_t *hi = ct__cu_la_infos(fn, io, B.count);
    if (!hi) return -1;
    int64_t bad = 0;
    int v = ct__la_first_bad(hi, B.count, &bad);
    CT_FREE(hi);
    if (!v) return 0;
    if (kind == CT__CU_LU_INV)
        return ct__failed(CT_ERR_NUMERIC, "%s: %sThe diagonal element %d is zero, the inversion could not be completed because the input matrix is singular.",
                          fn, ct__la_batch_prefix(nd > 2, bad).s, v);
    if (kind == CT__CU_LU_SOLVE)
        return ct__failed(CT_ERR_NUMERIC, "torch.%s: %sThe solver failed because the input matrix is singular.", fn, ct__la_batch_prefix(B.nb > 0, bad).s);
    return ct__failed(CT_ERR_NUMERIC, "torch.linalg.lu_factor: %sU[%d,%d] is zero and using it on lu_solve would result in a division by zero. If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)",
                      ct__la_batch_prefix(nd > 2, bad).s, v - 1, v - 1);
}

/* ---- eigh: A copied column-major (into V's column-major memory when the
   eigenvectors are wanted), syevd on the triangle UPLO names ---- */
template <typename T>
static int ct__cu_la_eigh(ct__call *c, const char *fn, int dev) {
    const ct_tensor *A = c->in[0];
    ct_tensor *Wv = c->out[0], *V = c->out[1];
    int nd = A->ndim, wantv = (c->a->flags & CT__LAF_COMPUTE_V) != 0, up = (c->a->flags & CT__LAF_UPPER) != 0, rc = 0;
    int64_t n = A->shape[nd - 1];
    ct__cu_lab B;
    ct__cu_lab_of(&B, nd - 2, A->shape);
    if (!ct__cu_la_int_ok(fn, n, B.count)) return -1;
    if (B.count == 0 || n == 0) return 0;
    ct_device D = Wv->device;
    ct_tensor *M = wantv ? ct__incref(V) : ct__cu_la_new(A->dtype, &B, n, n, D), *info = ct__cu_la_buf(CT_INT32, B.count, D), *ws = NULL;
    if (!M || !info) rc = -1;
    if (!rc) {
        if (wantv) rc = ct__cu_copy_dev(fn, M, (ct_tensor *)A);   /* V's layout is column-major */
        else {
            ct_tensor v = ct__cu_la_bview(A, &B, 2, 2, n, n, A->strides[nd - 1], A->strides[nd - 2]);
            rc = ct__cu_copy_dev(fn, M, &v);
        }
    }
    cusolverEigMode_t job = wantv ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    cublasFillMode_t fill = up ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    ct__cu_solst st;
    ct__cu_solst_init(&st);
    if (!rc) {
        rc = ct__cu_sol_run(dev, fn, &st, [&](cusolverDnHandle_t h) -> int {
            T *m = (T *)ct__ptr(M), *w = (T *)ct__ptr(Wv);
            int lw = 0, jac = B.count > 1 && n <= CT__CU_LA_JACOBI_MAX && B.count <= INT32_MAX;
            if (jac && !ct__cu_syevj_info[dev]) CT__CU_SOL_CALL(st, "cusolverDnCreateSyevjInfo", cusolverDnCreateSyevjInfo(&ct__cu_syevj_info[dev]));
            syevjInfo_t jp = ct__cu_syevj_info[dev];
            if (jac) CT__CU_SOL_CALL(st, "syevjBatched_bufferSize", ct__cu_syevjb_ws(h, job, fill, (int)n, m, (int)n, w, &lw, jp, (int)B.count));
            else if (h) CT__CU_SOL_CALL(st, "syevd_bufferSize", ct__cu_syevd_ws(h, job, fill, (int)n, m, (int)n, w, &lw));
            ws = ct__cu_sol_ws(&st, A->dtype, lw, D, &rc);
            if (ws && jac)   /* the whole batch in one call */
                CT__CU_SOL_CALL(st, "syevjBatched", ct__cu_syevjb(h, job, fill, (int)n, m, (int)n, w, (T *)ct__ptr(ws), lw, (int *)ct__ptr(info), jp, (int)B.count));
            for (int64_t b = 0; ws && !jac && b < B.count && st.s == CUSOLVER_STATUS_SUCCESS; b++)
                CT__CU_SOL_CALL(st, "syevd", ct__cu_syevd(h, job, fill, (int)n, m + b * n * n, (int)n, w + b * n, (T *)ct__ptr(ws), lw, (int *)ct__ptr(info) + b));
            return rc;
        });
    }
    if (!rc) rc = ct__cu_solst_report(fn, &st);
    int32_t *hi = rc ? NULL : ct__cu_la_infos(fn, info, B.count);
    if (!rc && !hi) rc = -1;
    ct__cu_la_free(M);
    ct__cu_la_free(info);
    ct__cu_la_free(ws);
    if (rc) return rc;
    int64_t bad = 0;
    int v = ct__la_first_bad(hi, B.count, &bad);
    CT_FREE(hi);
    if (v)
        return ct__failed(CT_ERR_NUMERIC, "%s: %sThe algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated eigenvalues (error code: %d).",
                          fn, ct__la_batch_prefix(nd > 2, bad).s, v);
    return 0;
}

/* qr's R (rr x n, row-major out) from the factors in Wq (column-major m x n
   matrices cw * m apart): their upper triangle */
template <typename T>
static int ct__cu_qr_r(const char *fn, int dev, ct_tensor *Wq, ct_tensor *R, const ct__cu_lab *B, int64_t m, int64_t n, int64_t rr) {
    int64_t sh[CT_MAX_DIMS], stv[CT_MAX_DIMS];
    for (int d = 0; d < B->nb; d++) { sh[d] = B->bs[d]; stv[d] = Wq->strides[d]; }
    sh[B->nb] = rr;
    sh[B->nb + 1] = n;
    stv[B->nb] = 1;
    stv[B->nb + 1] = m;
    if (rr > m) return -1;   /* cannot happen: rr <= m */
    ct_tensor src = ct__ix_view(Wq, B->nb + 2, sh, stv, 0);
    if (ct__cu_copy_dev(fn, R, &src)) return -1;
    return ct__cu_la_band<T>(fn, dev, (T *)ct__ptr(R), B->count, rr, n, 0, n, 0);
}
/* ---- qr: A column-major in a buffer of max(n, Q's columns) columns, geqrf;
   R is its upper triangle (row-major out), Q is orgqr's (column-major out) ---- */
template <typename T>
static int ct__cu_la_qr(ct__call *c, const char *fn, int dev) {
    const ct_tensor *A = c->in[0];
    ct_tensor *Q = c->out[0], *R = c->out[1];
    int nd = A->ndim, mode = c->a->mode, rc = 0;
    int64_t m = A->shape[nd - 2], n = A->shape[nd - 1], k = m < n ? m : n;
    int64_t qc = mode == CT__LA_QR_COMPLETE ? m : k, rr = R->shape[R->ndim - 2], cw = n > qc ? n : qc;
    ct__cu_lab B;
    ct__cu_lab_of(&B, nd - 2, A->shape);
    if (!ct__cu_la_int_ok(fn, m, cw) || !ct__cu_la_int_ok(fn, B.count, 0)) return -1;
    if (B.count == 0) return 0;
    ct_device D = R->device;
    if (k == 0) {   /* R is zeros, Q the identity */
        if (ct__cu_fill(fn, R, 0.0)) return -1;
        if (mode == CT__LA_QR_R || m * qc == 0) return 0;
        ct__cu_guard guard(dev, fn);
        return guard.ok ? ct__cu_la_band<T>(fn, dev, (T *)ct__ptr(Q), B.count, qc, m, 0, 0, 1) : -1;
    }
    ct_tensor *Wq = ct__cu_la_new(A->dtype, &B, cw, m, D), *tau = ct__cu_la_buf(A->dtype, B.count * k, D), *info = ct__cu_la_buf(CT_INT32, 1, D), *ws = NULL;
    if (!Wq || !tau || !info) rc = -1;
    int64_t sh[CT_MAX_DIMS], stv[CT_MAX_DIMS];
    if (!rc) {
        for (int d = 0; d < B.nb; d++) { sh[d] = B.bs[d]; stv[d] = Wq->strides[d]; }
        sh[B.nb] = n;
        sh[B.nb + 1] = m;
        stv[B.nb] = m;
        stv[B.nb + 1] = 1;
        ct_tensor dst = ct__ix_view(Wq, B.nb + 2, sh, stv, 0);
        ct_tensor v = ct__cu_la_bview(A, &B, 2, 2, n, m, A->strides[nd - 1], A->strides[nd - 2]);
        rc = ct__cu_copy_dev(fn, &dst, &v);
    }
    ct__cu_solst st;
    ct__cu_solst_init(&st);
    /* batches of small matrices: cuBLAS's geqrfBatched (one call), Q by ct__cu_la_orgqr_kernel */
    int batched = B.count > 1 && m <= CT__CU_LA_BATCHED_MAX && n <= CT__CU_LA_BATCHED_MAX, factored = 0;
    ct_tensor *Qb = NULL;
    if (!rc && batched) {
        T *a = (T *)ct__ptr(Wq), *tp = (T *)ct__ptr(tau);
        ct_tensor *pa = ct__cu_la_ptrs<T>(fn, a, cw * m, B.count, D), *pt = pa ? ct__cu_la_ptrs<T>(fn, tp, k, B.count, D) : NULL;
        if (!pa || !pt) rc = -1;
        if (!rc && mode != CT__LA_QR_R && !(Qb = ct__cu_la_new(A->dtype, &B, qc, m, D))) rc = -1;
        if (!rc) {
            ct__cu_guard guard(dev, fn);
            if (!guard.ok) rc = -1;
            else {
                std::lock_guard<std::mutex> lock(ct__cu_blas_mutex);
                int stage = 0, hinfo = 0;
                cublasStatus_t bs = ct__cu_blas_ready(dev, sizeof(T) == 8 ? CUDA_R_64F : CUDA_R_32F, &stage);
                if (bs != CUBLAS_STATUS_SUCCESS) st.what = stage == 1 ? "cublasCreate" : "cublas settings";
                if (bs == CUBLAS_STATUS_SUCCESS &&
                    (bs = ct__cu_geqrf_batched(ct__cu_blas[dev], (int)m, (int)n, (T *const *)ct__ptr(pa), (int)m, (T *const *)ct__ptr(pt), &hinfo,
                                               (int)B.count)) != CUBLAS_STATUS_SUCCESS)
                    st.what = "geqrfBatched";
                if (bs == CUBLAS_STATUS_SUCCESS && hinfo != 0) {   /* an argument cuBLAS refused */
                    bs = CUBLAS_STATUS_INVALID_VALUE;
                    st.what = "geqrfBatched";
                }
                st.bs = bs;
                factored = bs == CUBLAS_STATUS_SUCCESS;
            }
        }
        ct__cu_la_free(pa);
        ct__cu_la_free(pt);
    }
    if (!rc && !batched) {
        rc = ct__cu_sol_run(dev, fn, &st, [&](cusolverDnHandle_t h) -> int {
            T *a = (T *)ct__ptr(Wq), *tp = (T *)ct__ptr(tau);
            int lw1 = 0, lw2 = 0;
            CT__CU_SOL_CALL(st, "geqrf_bufferSize", ct__cu_geqrf_ws(h, (int)m, (int)n, a, (int)m, &lw1));
            if (mode != CT__LA_QR_R) CT__CU_SOL_CALL(st, "orgqr_bufferSize", ct__cu_orgqr_ws(h, (int)m, (int)qc, (int)k, a, (int)m, tp, &lw2));
            int lw = lw1 > lw2 ? lw1 : lw2;
            ws = ct__cu_sol_ws(&st, A->dtype, lw, D, &rc);
            int *ip = (int *)ct__ptr(info);
            for (int64_t b = 0; ws && b < B.count && st.s == CUSOLVER_STATUS_SUCCESS; b++)
                CT__CU_SOL_CALL(st, "geqrf", ct__cu_geqrf(h, (int)m, (int)n, a + b * cw * m, (int)m, tp + b * k, (T *)ct__ptr(ws), lw, ip));
            factored = ws && st.s == CUSOLVER_STATUS_SUCCESS;
            if (factored && ct__cu_qr_r<T>(fn, dev, Wq, R, &B, m, n, rr)) rc = -1;   /* R before orgqr overwrites the factor */
            for (int64_t b = 0; !rc && factored && mode != CT__LA_QR_R && b < B.count && st.s == CUSOLVER_STATUS_SUCCESS; b++)
                CT__CU_SOL_CALL(st, "orgqr", ct__cu_orgqr(h, (int)m, (int)qc, (int)k, a + b * cw * m, (int)m, tp + b * k, (T *)ct__ptr(ws), lw, ip));
            return rc;
        });
    }
    if (!rc) rc = ct__cu_solst_report(fn, &st);
    if (!rc && batched && factored) {
        ct__cu_guard guard(dev, fn);
        if (!guard.ok) rc = -1;
        else if (ct__cu_qr_r<T>(fn, dev, Wq, R, &B, m, n, rr)) rc = -1;
        else if (Qb) {
            CT__CU_LAUNCH(ct__cu_blocks(B.count * qc, CT__CU_THREADS, dev), CT__CU_THREADS,
                          ((const T *)ct__ptr(Wq), cw * m, (const T *)ct__ptr(tau), (T *)ct__ptr(Qb), B.count, m, qc, k), ct__cu_la_orgqr_kernel<T>);
            rc = ct__cu_launched(fn);
        }
    }
    if (!rc && mode != CT__LA_QR_R) {   /* Q: the first qc columns, column-major (Wq's after orgqr, or Qb's) */
        for (int d = 0; d < B.nb; d++) sh[d] = B.bs[d];
        sh[B.nb] = m;
        sh[B.nb + 1] = qc;
        stv[B.nb] = 1;
        stv[B.nb + 1] = m;
        ct_tensor *qs = Qb ? Qb : Wq;
        for (int d = 0; d < B.nb; d++) stv[d] = qs->strides[d];
        ct_tensor src = ct__ix_view(qs, B.nb + 2, sh, stv, 0);
        rc = ct__cu_copy_dev(fn, Q, &src);
    }
    ct__cu_la_free(Qb);
    ct__cu_la_free(Wq);
    ct__cu_la_free(tau);
    ct__cu_la_free(info);
    ct__cu_la_free(ws);
    return rc;
}

/* ---- svd: gesvd takes m >= n only. A tall A is copied column-major:
   A = U S VT, U and VT column-major are transposed into the row-major outputs.
   A wide A's row-major copy is A^T column-major (n x m, n > m): A^T = U' S V'^T,
   so U = V' and Vh = U'^T, whose column-major buffers are U's and Vh's row-major
   memory. Non-finite inputs raise the CPU's error. ---- */
template <typename T>
static int ct__cu_la_svd(ct__call *c, const char *fn, int dev) {
    const ct_tensor *A = c->in[0];
    ct_tensor *U = c->out[0], *S = c->out[1], *Vh = c->out[2];
    int nd = A->ndim, full = (c->a->flags & CT__LAF_FULL) != 0, wantv = (c->a->flags & CT__LAF_COMPUTE_V) != 0, rc = 0;
    int64_t m = A->shape[nd - 2], n = A->shape[nd - 1], k = m < n ? m : n, uc = full ? m : k, vr = full ? n : k;
    int tall = m >= n;
    int64_t M = tall ? m : n, N = tall ? n : m;   /* gesvd's problem, M >= N */
    int64_t gu = full ? M : k, gv = full ? N : k;  /* its U: M x gu, its VT: gv x N */
    ct__cu_lab B;
    ct__cu_lab_of(&B, nd - 2, A->shape);
    if (!ct__cu_la_int_ok(fn, M, N) || !ct__cu_la_int_ok(fn, B.count, 0)) return -1;
    if (B.count == 0) return 0;
    ct_device D = S->device;
    if (k == 0) {   /* full: identities; else empty */
        ct__cu_guard guard(dev, fn);
        if (!guard.ok) return -1;
        if (wantv && uc && ct__cu_la_band<T>(fn, dev, (T *)ct__ptr(U), B.count, m, uc, 0, 0, 1)) return -1;
        if (wantv && vr && ct__cu_la_band<T>(fn, dev, (T *)ct__ptr(Vh), B.count, vr, n, 0, 0, 1)) return -1;
        return 0;
    }
    signed char job = wantv ? (full ? 'A' : 'S') : 'N';
    ct_tensor *Wa = ct__cu_la_new(A->dtype, &B, N, M, D), *Ub = NULL, *Vb = NULL, *info = ct__cu_la_buf(CT_INT32, B.count + 1, D), *ws = NULL;
    if (!Wa || !info) rc = -1;
    if (!rc && wantv && (!(Ub = ct__cu_la_new(A->dtype, &B, gu, M, D)) || !(Vb = ct__cu_la_new(A->dtype, &B, N, gv, D)))) rc = -1;
    /* batches of small matrices: gesvdjBatched (full U and V in buffers of their own) */
    int jac = B.count > 1 && M <= CT__CU_LA_JACOBI_MAX && B.count <= INT32_MAX;
    ct_tensor *Uf = NULL, *Vf = NULL;
    if (!rc && jac && wantv && (!(Uf = ct__cu_la_buf(A->dtype, B.count * M * M, D)) || !(Vf = ct__cu_la_buf(A->dtype, B.count * N * N, D)))) rc = -1;
    if (!rc) {
        ct_tensor v = tall ? ct__cu_la_bview(A, &B, 2, 2, n, m, A->strides[nd - 1], A->strides[nd - 2])
                           : ct__cu_la_bview(A, &B, 2, 2, m, n, A->strides[nd - 2], A->strides[nd - 1]);
        rc = ct__cu_copy_dev(fn, Wa, &v);
    }
    int *ip = info ? (int *)ct__ptr(info) : NULL;   /* ip[count]: the non-finite flag */
    if (!rc) {
        ct__cu_guard guard(dev, fn);
        if (!guard.ok || ct__cu_fill(fn, info, 0.0)) rc = -1;
        else {
            CT__CU_LAUNCH(ct__cu_blocks(B.count * m * n, CT__CU_THREADS, dev), CT__CU_THREADS, ((const T *)ct__ptr(Wa), B.count * m * n, ip + B.count),
                          ct__cu_la_finite_kernel<T>);
            rc = ct__cu_launched(fn);
        }
    }
    ct__cu_solst st;
    ct__cu_solst_init(&st);
    if (!rc) {
        rc = ct__cu_sol_run(dev, fn, &st, [&](cusolverDnHandle_t h) -> int {
            T *a = (T *)ct__ptr(Wa), *s = (T *)ct__ptr(S), *u = Ub ? (T *)ct__ptr(Ub) : NULL, *vt = Vb ? (T *)ct__ptr(Vb) : NULL;
            int lw = 0;
            if (jac) {   /* full U (M x M) and V (N x N) of every matrix, in one call */
                cusolverEigMode_t jz = wantv ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
                T *uf = Uf ? (T *)ct__ptr(Uf) : NULL, *vf = Vf ? (T *)ct__ptr(Vf) : NULL;
                if (!ct__cu_gesvdj_info[dev]) CT__CU_SOL_CALL(st, "cusolverDnCreateGesvdjInfo", cusolverDnCreateGesvdjInfo(&ct__cu_gesvdj_info[dev]));
                gesvdjInfo_t jp = ct__cu_gesvdj_info[dev];
                CT__CU_SOL_CALL(st, "gesvdjBatched_bufferSize", ct__cu_gesvdjb_ws(h, jz, (int)M, (int)N, a, (int)M, s, uf, (int)M, vf, (int)N, &lw, jp, (int)B.count));
                ws = ct__cu_sol_ws(&st, A->dtype, lw, D, &rc);
                if (ws)
                    CT__CU_SOL_CALL(st, "gesvdjBatched", ct__cu_gesvdjb(h, jz, (int)M, (int)N, a, (int)M, s, uf, (int)M, vf, (int)N, (T *)ct__ptr(ws), lw, ip, jp,
                                                                         (int)B.count));
            } else {
                CT__CU_SOL_CALL(st, "gesvd_bufferSize", ct__cu_gesvd_ws(h, (int)M, (int)N, a, &lw));
                ws = ct__cu_sol_ws(&st, A->dtype, lw, D, &rc);
            }
            for (int64_t b = 0; ws && !jac && b < B.count && st.s == CUSOLVER_STATUS_SUCCESS; b++)
                CT__CU_SOL_CALL(st, "gesvd", ct__cu_gesvd(h, job, job, (int)M, (int)N, a + b * M * N, (int)M, s + b * k, u ? u + b * M * gu : NULL, (int)M,
                                                          vt ? vt + b * gv * N : NULL, (int)(gv > 1 ? gv : 1), (T *)ct__ptr(ws), lw, ip + b));
            return rc;
        });
    }
    if (!rc) rc = ct__cu_solst_report(fn, &st);
    if (!rc && jac && wantv) {   /* gesvdjBatched's U and V as gesvd's: Ub = U's first gu columns, Vb (VT, N x N column-major) = V^T */
        int64_t su[3] = {B.count, gu, M}, tu[3] = {M * M, M, 1}, du[3] = {gu * M, M, 1};
        int64_t sv[3] = {B.count, N, N}, tv[3] = {N * N, 1, N}, dv[3] = {N * N, N, 1};
        ct_tensor us = ct__ix_view(Uf, 3, su, tu, 0), ud = ct__ix_view(Ub, 3, su, du, 0), vs = ct__ix_view(Vf, 3, sv, tv, 0), vd = ct__ix_view(Vb, 3, sv, dv, 0);
        rc = ct__cu_copy_dev(fn, &ud, &us) || ct__cu_copy_dev(fn, &vd, &vs) ? -1 : 0;
    }
    ct__cu_la_free(Uf);
    ct__cu_la_free(Vf);
    if (!rc && wantv) {
        if (tall) {   /* U (m x uc) = Ub column-major, Vh (vr x n) = Vb column-major */
            ct_tensor uv = ct__cu_la_bview(U, &B, 2, 2, uc, m, U->strides[nd - 1], U->strides[nd - 2]);
            ct_tensor vv = ct__cu_la_bview(Vh, &B, 2, 2, n, vr, Vh->strides[nd - 1], Vh->strides[nd - 2]);
            rc = ct__cu_copy_dev(fn, &uv, Ub) || ct__cu_copy_dev(fn, &vv, Vb) ? -1 : 0;
        } else {      /* U row-major = Vb's memory (m x m), Vh row-major = Ub's memory (vr x n) */
            rc = ct__cu_copy_dev(fn, U, Vb) || ct__cu_copy_dev(fn, Vh, Ub) ? -1 : 0;
        }
    }
    int32_t *hi = rc ? NULL : ct__cu_la_infos(fn, info, B.count + 1);
    if (!rc && !hi) rc = -1;
    ct__cu_la_free(Wa);
    ct__cu_la_free(Ub);
    ct__cu_la_free(Vb);
    ct__cu_la_free(info);
    ct__cu_la_free(ws);
    if (rc) return rc;
    int64_t bad = 0;
    int nonfinite = hi[B.count], v = ct__la_first_bad(hi, B.count, &bad);
    CT_FREE(hi);
    if (nonfinite)
        return ct__failed(CT_ERR_NUMERIC, "%s: The algorithm failed to converge because the input matrix contained non-finite values.", fn);
    if (v)
        return ct__failed(CT_ERR_NUMERIC, "%s: %sThe algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated singular values (error code: %d).",
                          fn, ct__la_batch_prefix(nd > 2, bad).s, v);
    return 0;
}

/* ---- solve_triangular: X row-major (r x k) is X^T column-major, A's row-major
   copy is A^T column-major: left (A X = B) is X^T A^T = B^T (trsm from the
   right), right (X A = B) is A^T X^T = B^T (from the left); the triangle flips ---- */
template <typename T>
static int ct__cu_la_solve_tri(ct__call *c, const char *fn, int dev) {
    const ct_tensor *A = c->in[0], *Bt = c->in[1];
    ct_tensor *X = c->out[0];
    int fl = c->a->flags, left = (fl & CT__LAF_LEFT) != 0, upper = (fl & CT__LAF_UPPER) != 0, unit = (fl & CT__LAF_UNIT) != 0, rc = 0;
    int xd = X->ndim, ad = A->ndim, bd = Bt->ndim;
    int64_t r = X->shape[xd - 2], k = X->shape[xd - 1], n = A->shape[ad - 1];
    ct__cu_lab B;
    ct__cu_lab_of(&B, xd - 2, X->shape);
    if (!ct__cu_la_int_ok(fn, r, k) || !ct__cu_la_int_ok(fn, n, B.count)) return -1;
    if (B.count == 0 || r == 0 || k == 0) return 0;
    ct_tensor bv = ct__cu_la_bview(Bt, &B, 2, 2, r, k, Bt->strides[bd - 2], Bt->strides[bd - 1]);
    if (ct__cu_copy_dev(fn, X, &bv)) return -1;
    if (n == 0) return 0;
    ct_tensor *W = ct__cu_la_new(A->dtype, &B, n, n, X->device);
    if (!W) return -1;
    ct_tensor av = ct__cu_la_bview(A, &B, 2, 2, n, n, A->strides[ad - 2], A->strides[ad - 1]);
    if (ct__cu_copy_dev(fn, W, &av)) { ct__decref(W); return -1; }
    cudaDataType_t ty = sizeof(T) == 8 ? CUDA_R_64F : CUDA_R_32F;   /* (the math mode's type) */
    int stage = 0;
    cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
    T *a = (T *)ct__ptr(W), *x = (T *)ct__ptr(X);
    /* batches of small triangles: cuBLAS's trsmBatched (one call) */
    ct_tensor *pa = NULL, *px = NULL;
    int batched = B.count > 1 && n <= CT__CU_LA_BATCHED_MAX;
    if (batched && (!(pa = ct__cu_la_ptrs<T>(fn, a, n * n, B.count, X->device)) || !(px = ct__cu_la_ptrs<T>(fn, x, r * k, B.count, X->device)))) rc = -1;
    if (!rc) {
        ct__cu_guard guard(dev, fn);
        if (!guard.ok) rc = -1;
        else {
            std::lock_guard<std::mutex> lock(ct__cu_blas_mutex);
            if ((s = ct__cu_blas_ready(dev, ty, &stage)) == CUBLAS_STATUS_SUCCESS) {
                const T one = (T)1;
                cublasSideMode_t side = left ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT;
                cublasFillMode_t fill = upper ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
                cublasDiagType_t diag = unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
                if (batched)
                    s = ct__cu_trsm_batched(ct__cu_blas[dev], side, fill, CUBLAS_OP_N, diag, (int)k, (int)r, &one, (const T *const *)ct__ptr(pa), (int)n,
                                            (T *const *)ct__ptr(px), (int)k, (int)B.count);
                for (int64_t b = 0; !batched && b < B.count && s == CUBLAS_STATUS_SUCCESS; b++)
                    s = ct__cu_trsm(ct__cu_blas[dev], side, fill, CUBLAS_OP_N, diag, (int)k, (int)r, &one, a + b * n * n, (int)n, x + b * r * k, (int)k);
                stage = 2;
            }
        }
    }
    ct__cu_la_free(pa);
    ct__cu_la_free(px);
    ct__decref(W);
    if (rc) return rc;
    if (stage == 1) return ct__failed(CT_ERR_DEVICE, "%s: cuBLAS error: %s (cublasCreate)", fn, ct__cu_blas_msg(s));
    if (s != CUBLAS_STATUS_SUCCESS) return ct__failed(CT_ERR_DEVICE, "%s: cuBLAS error: %s (%s)", fn, ct__cu_blas_msg(s), batched ? "trsmBatched" : "trsm");
    return 0;
}

/* ---- cholesky_solve and cholesky_inverse: potrs on L copied column-major
   (the fill names L's triangle as given), against B copied column-major, or
   against the identity (A^{-1} is symmetric, so its column-major result is the
   row-major output); cholesky_inverse raises the CPU's (potri's) error for a
   zero on L's diagonal ---- */
template <typename T>
static int ct__cu_la_chol_solve(ct__call *c, const char *fn, int dev, int inv) {
    const ct_tensor *L = c->in[inv ? 0 : 1], *Bt = inv ? NULL : c->in[0];
    ct_tensor *X = c->out[0];
    int upper = (c->a->flags & CT__LAF_UPPER) != 0, xd = X->ndim, ld = L->ndim, rc = 0;
    int64_t n = X->shape[xd - 2], k = X->shape[xd - 1];
    ct__cu_lab B;
    ct__cu_lab_of(&B, xd - 2, X->shape);
    if (!ct__cu_la_int_ok(fn, n, k) || !ct__cu_la_int_ok(fn, B.count, 0)) return -1;
    if (B.count == 0 || n == 0 || k == 0) return 0;
    ct_device D = X->device;
    ct_tensor *W = ct__cu_la_new(L->dtype, &B, n, n, D), *Xb = inv ? ct__incref(X) : ct__cu_la_new(L->dtype, &B, k, n, D);
    ct_tensor *info = ct__cu_la_buf(CT_INT32, inv ? B.count + 1 : 1, D);
    if (!W || !Xb || !info) rc = -1;
    if (!rc) {   /* W column-major = L; Xb column-major = B (or the identity) */
        ct_tensor lv = ct__cu_la_bview(L, &B, 2, 2, n, n, L->strides[ld - 1], L->strides[ld - 2]);
        rc = ct__cu_copy_dev(fn, W, &lv);
        if (!rc && !inv) {
            int bd = Bt->ndim;
            ct_tensor bv = ct__cu_la_bview(Bt, &B, 2, 2, k, n, Bt->strides[bd - 1], Bt->strides[bd - 2]);
            rc = ct__cu_copy_dev(fn, Xb, &bv);
        }
    }
    if (!rc) {
        ct__cu_guard guard(dev, fn);
        if (!guard.ok || (inv && ct__cu_la_band<T>(fn, dev, (T *)ct__ptr(Xb), B.count, n, n, 0, 0, 1))) rc = -1;
        if (!rc && inv) {
            CT__CU_LAUNCH(ct__cu_blocks(B.count, CT__CU_THREADS, dev), CT__CU_THREADS, ((const T *)ct__ptr(W), B.count, n, n, n * n, (int *)ct__ptr(info)),
                          ct__cu_la_zdiag_kernel<T>);
            rc = ct__cu_launched(fn);
        }
    }
    ct__cu_solst st;
    ct__cu_solst_init(&st);
    if (!rc) {
        rc = ct__cu_sol_run(dev, fn, &st, [&](cusolverDnHandle_t h) -> int {
            cublasFillMode_t fill = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
            T *a = (T *)ct__ptr(W), *x = (T *)ct__ptr(Xb);
            int *ip = (int *)ct__ptr(info) + (inv ? B.count : 0);   /* potrs's devInfo (parameter checks only), after the zero-diagonal flags */
            for (int64_t b = 0; b < B.count && st.s == CUSOLVER_STATUS_SUCCESS; b++)
                CT__CU_SOL_CALL(st, "potrs", ct__cu_potrs(h, fill, (int)n, (int)k, a + b * n * n, (int)n, x + b * n * k, (int)n, ip));
            return rc;
        });
    }
    if (!rc) rc = ct__cu_solst_report(fn, &st);
    if (!rc && !inv) {   /* Xb (n x k column-major) into the output */
        ct_tensor ov = ct__cu_la_bview(X, &B, 2, 2, k, n, X->strides[xd - 1], X->strides[xd - 2]);
        rc = ct__cu_copy_dev(fn, &ov, Xb);
    }
    int32_t *hi = !rc && inv ? ct__cu_la_infos(fn, info, B.count) : NULL;
    if (!rc && inv && !hi) rc = -1;
    ct__cu_la_free(W);
    ct__cu_la_free(Xb);
    ct__cu_la_free(info);
    if (rc || !inv) return rc;
    int64_t bad = 0;
    int v = ct__la_first_bad(hi, B.count, &bad);
    CT_FREE(hi);
    if (v)
        return ct__failed(CT_ERR_NUMERIC, "cholesky_inverse: %sThe diagonal element %d is zero, the inversion could not be completed because the input matrix is singular.",
                          ct__la_batch_prefix(ld > 2, bad).s, v);
    return 0;
}

/* ---- householder_product: A copied into Q's column-major memory, tau
   gathered contiguous, orgqr per matrix ---- */
template <typename T>
static int ct__cu_la_householder(ct__call *c, const char *fn, int dev) {
    const ct_tensor *A = c->in[0], *tau = c->in[1];
    ct_tensor *Q = c->out[0];
    int nd = A->ndim, rc = 0;
    int64_t m = A->shape[nd - 2], n = A->shape[nd - 1], k = tau->shape[tau->ndim - 1];
    ct__cu_lab B;
    ct__cu_lab_of(&B, nd - 2, A->shape);
    if (!ct__cu_la_int_ok(fn, m, n) || !ct__cu_la_int_ok(fn, B.count, 0)) return -1;
    if (B.count == 0 || m == 0 || n == 0) return 0;
    ct_device D = Q->device;
    if (ct__cu_copy_dev(fn, Q, (ct_tensor *)A)) return -1;   /* Q's layout is column-major */
    ct_tensor *tb = ct__cu_la_buf(A->dtype, B.count * k, D), *info = ct__cu_la_buf(CT_INT32, 1, D), *ws = NULL;
    if (!tb || !info) rc = -1;
    if (!rc && k > 0) {
        int64_t sh[CT_MAX_DIMS], stv[CT_MAX_DIMS];
        for (int d = 0; d < B.nb; d++) sh[d] = B.bs[d];
        sh[B.nb] = k;
        int64_t acc = k;
        for (int d = B.nb; d >= 0; d--) { stv[d] = d == B.nb ? 1 : acc; if (d < B.nb) acc *= B.bs[d]; }
        ct_tensor dst = ct__ix_view(tb, B.nb + 1, sh, stv, 0);
        rc = ct__cu_copy_dev(fn, &dst, (ct_tensor *)tau);
    }
    ct__cu_solst st;
    ct__cu_solst_init(&st);
    if (!rc) {
        rc = ct__cu_sol_run(dev, fn, &st, [&](cusolverDnHandle_t h) -> int {
            T *q = (T *)ct__ptr(Q), *tp = (T *)ct__ptr(tb);
            int lw = 0;
            CT__CU_SOL_CALL(st, "orgqr_bufferSize", ct__cu_orgqr_ws(h, (int)m, (int)n, (int)k, q, (int)m, tp, &lw));
            ws = ct__cu_sol_ws(&st, A->dtype, lw, D, &rc);
            for (int64_t b = 0; ws && b < B.count && st.s == CUSOLVER_STATUS_SUCCESS; b++)
                CT__CU_SOL_CALL(st, "orgqr", ct__cu_orgqr(h, (int)m, (int)n, (int)k, q + b * m * n, (int)m, tp + b * k, (T *)ct__ptr(ws), lw,
                                                          (int *)ct__ptr(info)));
            return rc;
        });
    }
    if (!rc) rc = ct__cu_solst_report(fn, &st);
    ct__cu_la_free(tb);
    ct__cu_la_free(info);
    ct__cu_la_free(ws);
    return rc;
}

/* ---- lstsq, driver gels, m < n (underdetermined): the minimum-norm solution
   through the QR factorization of A^T (as LAPACK's gels through the LQ of A):
   A's row-major copy is A^T column-major (n x m), geqrf gives A^T = Q R, so
   A = R^T Q^T; trsm solves R^T y = B (B in the first m rows of an n x k
   buffer whose other rows are zero), and ormqr makes X = Q [y; 0]. A zero on
   R's diagonal is the CPU's (gels's) rank error; there are no residuals. ---- */
template <typename T>
static int ct__cu_la_lstsq_wide(ct__call *c, const char *fn, int dev) {
    const ct_tensor *A = c->in[0], *Bt = c->in[1];
    ct_tensor *X = c->out[0];
    int nd = A->ndim, bd = Bt->ndim, vec = bd == nd - 1, rc = 0, xd = X->ndim;
    int64_t m = A->shape[nd - 2], n = A->shape[nd - 1], k = vec ? 1 : X->shape[xd - 1];
    ct__cu_lab B;
    ct__cu_lab_of(&B, xd - (vec ? 1 : 2), X->shape);
    if (!ct__cu_la_int_ok(fn, n, k) || !ct__cu_la_int_ok(fn, B.count, 0)) return -1;
    if (B.count == 0 || k == 0) return 0;
    if (m == 0) return ct__cu_fill(fn, X, 0.0);
    ct_device D = X->device;
    ct_tensor *W = ct__cu_la_new(A->dtype, &B, m, n, D), *Xb = ct__cu_la_new(A->dtype, &B, k, n, D);
    ct_tensor *tau = ct__cu_la_buf(A->dtype, B.count * m, D), *info = ct__cu_la_buf(CT_INT32, B.count + 1, D), *ws = NULL;
    if (!W || !Xb || !tau || !info) rc = -1;
    int64_t sh[CT_MAX_DIMS], stv[CT_MAX_DIMS];
    if (!rc) {   /* W: A row-major (A^T column-major); Xb: zeros, B in its first m rows (column-major) */
        ct_tensor av = ct__cu_la_bview(A, &B, 2, 2, m, n, A->strides[nd - 2], A->strides[nd - 1]);
        ct_tensor bv = vec ? ct__cu_la_bview(Bt, &B, 1, 2, 1, m, 0, Bt->strides[bd - 1])
                           : ct__cu_la_bview(Bt, &B, 2, 2, k, m, Bt->strides[bd - 1], Bt->strides[bd - 2]);
        for (int d = 0; d < B.nb; d++) { sh[d] = B.bs[d]; stv[d] = Xb->strides[d]; }
        sh[B.nb] = k;
        sh[B.nb + 1] = m;
        stv[B.nb] = n;
        stv[B.nb + 1] = 1;
        ct_tensor dst = ct__ix_view(Xb, B.nb + 2, sh, stv, 0);
        rc = ct__cu_copy_dev(fn, W, &av) || ct__cu_fill(fn, Xb, 0.0) || ct__cu_copy_dev(fn, &dst, &bv) ? -1 : 0;
    }
    ct__cu_solst st;
    ct__cu_solst_init(&st);
    int *ip = info ? (int *)ct__ptr(info) : NULL;   /* ip[0..count): R's zero diagonals; ip[count]: devInfo */
    T *a = W ? (T *)ct__ptr(W) : NULL, *x = Xb ? (T *)ct__ptr(Xb) : NULL, *tp = tau ? (T *)ct__ptr(tau) : NULL;
    int lw = 0;
    if (!rc) {
        rc = ct__cu_sol_run(dev, fn, &st, [&](cusolverDnHandle_t h) -> int {
            int lw1 = 0, lw2 = 0;
            CT__CU_SOL_CALL(st, "geqrf_bufferSize", ct__cu_geqrf_ws(h, (int)n, (int)m, a, (int)n, &lw1));
            CT__CU_SOL_CALL(st, "ormqr_bufferSize", ct__cu_ormqr_ws(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_N, (int)n, (int)k, (int)m, a, (int)n, tp, x, (int)n, &lw2));
            lw = lw1 > lw2 ? lw1 : lw2;
            ws = ct__cu_sol_ws(&st, A->dtype, lw, D, &rc);
            for (int64_t b = 0; ws && b < B.count && st.s == CUSOLVER_STATUS_SUCCESS; b++)
                CT__CU_SOL_CALL(st, "geqrf", ct__cu_geqrf(h, (int)n, (int)m, a + b * m * n, (int)n, tp + b * m, (T *)ct__ptr(ws), lw, ip + B.count));
            return rc;
        });
    }
    if (!rc) rc = ct__cu_solst_report(fn, &st);
    if (!rc) {   /* R's zero diagonals: the CPU's rank error */
        ct__cu_guard guard(dev, fn);
        if (!guard.ok) rc = -1;
        else {
            CT__CU_LAUNCH(ct__cu_blocks(B.count, CT__CU_THREADS, dev), CT__CU_THREADS, ((const T *)a, B.count, m, n, m * n, ip), ct__cu_la_zdiag_kernel<T>);
            rc = ct__cu_launched(fn);
        }
        int32_t *hi = rc ? NULL : ct__cu_la_infos(fn, info, B.count);
        if (!rc && !hi) rc = -1;
        int64_t bad = 0;
        int v = hi ? ct__la_first_bad(hi, B.count, &bad) : 0;
        CT_FREE(hi);
        if (v)
            rc = ct__failed(CT_ERR_NUMERIC, "torch.linalg.lstsq: %sThe least squares solution could not be computed because the input matrix does not have full rank (error code: %d).",
                            ct__la_batch_prefix(B.nb > 0, bad).s, v);
    }
    if (!rc) {   /* y = R^{-T} B (cuBLAS trsm) */
        cudaDataType_t ty = sizeof(T) == 8 ? CUDA_R_64F : CUDA_R_32F;
        int stage = 0;
        cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
        ct__cu_guard guard(dev, fn);
        if (!guard.ok) rc = -1;
        else {
            std::lock_guard<std::mutex> lock(ct__cu_blas_mutex);
            if ((s = ct__cu_blas_ready(dev, ty, &stage)) == CUBLAS_STATUS_SUCCESS) {
                const T one = (T)1;
                for (int64_t b = 0; b < B.count && s == CUBLAS_STATUS_SUCCESS; b++)
                    s = ct__cu_trsm(ct__cu_blas[dev], CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, (int)m, (int)k, &one,
                                    a + b * m * n, (int)n, x + b * n * k, (int)n);
                stage = 2;
            }
        }
        if (!rc && stage == 1) rc = ct__failed(CT_ERR_DEVICE, "%s: cuBLAS error: %s (cublasCreate)", fn, ct__cu_blas_msg(s));
        else if (!rc && s != CUBLAS_STATUS_SUCCESS) rc = ct__failed(CT_ERR_DEVICE, "%s: cuBLAS error: %s (trsm)", fn, ct__cu_blas_msg(s));
    }
    if (!rc) {   /* X = Q [y; 0] (ormqr) */
        rc = ct__cu_sol_run(dev, fn, &st, [&](cusolverDnHandle_t h) -> int {
            for (int64_t b = 0; b < B.count && st.s == CUSOLVER_STATUS_SUCCESS; b++)
                CT__CU_SOL_CALL(st, "ormqr", ct__cu_ormqr(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_N, (int)n, (int)k, (int)m, a + b * m * n, (int)n, tp + b * m,
                                                          x + b * n * k, (int)n, (T *)ct__ptr(ws), lw, ip + B.count));
            return rc;
        });
        if (!rc) rc = ct__cu_solst_report(fn, &st);
    }
    if (!rc) {   /* X: Xb (column-major n x k) */
        ct_tensor ov = vec ? ct__cu_la_bview(X, &B, 1, 2, 1, n, 0, X->strides[xd - 1])
                           : ct__cu_la_bview(X, &B, 2, 2, k, n, X->strides[xd - 1], X->strides[xd - 2]);
        rc = ct__cu_copy_dev(fn, &ov, Xb);
    }
    ct__cu_la_free(W);
    ct__cu_la_free(Xb);
    ct__cu_la_free(tau);
    ct__cu_la_free(info);
    ct__cu_la_free(ws);
    return rc;
}
/* ---- lstsq, driver gels, m >= n (PyTorch's CUDA default and only driver):
   A copied column-major, geqrf, ormqr applies Q^T to B (copied column-major,
   m x k), trsm solves R X = (Q^T B)[:n]; the residuals (m > n) are the sums of
   squares of the rest of Q^T B. A zero on R's diagonal is the CPU's (gels's)
   rank error ---- */
template <typename T>
static int ct__cu_la_lstsq(ct__call *c, const char *fn, int dev) {
    const ct_tensor *A = c->in[0], *Bt = c->in[1];
    ct_tensor *X = c->out[0], *Rs = c->out[1];
    int nd = A->ndim, bd = Bt->ndim, vec = bd == nd - 1, drv = c->a->mode, rc = 0, xd = X->ndim;
    int64_t m = A->shape[nd - 2], n = A->shape[nd - 1], k = vec ? 1 : X->shape[xd - 1];
    if (drv != 0)   /* CT__LA_GELS */
        return ct__failed(CT_ERR_UNSUPPORTED, "torch.linalg.lstsq: `driver` other than `gels` is not supported on CUDA");
    if (m < n) return ct__cu_la_lstsq_wide<T>(c, fn, dev);
    ct__cu_lab B;
    ct__cu_lab_of(&B, xd - (vec ? 1 : 2), X->shape);
    if (!ct__cu_la_int_ok(fn, m, k) || !ct__cu_la_int_ok(fn, B.count, 0)) return -1;
    if (B.count == 0 || k == 0) return 0;
    if (m == 0) return ct__cu_fill(fn, X, 0.0);
    ct_device D = X->device;
    ct_tensor *W = ct__cu_la_new(A->dtype, &B, n, m, D), *Xb = ct__cu_la_new(A->dtype, &B, k, m, D);
    ct_tensor *tau = ct__cu_la_buf(A->dtype, B.count * n, D), *info = ct__cu_la_buf(CT_INT32, B.count + 1, D), *ws = NULL;
    if (!W || !Xb || !tau || !info) rc = -1;
    if (!rc) {
        ct_tensor av = ct__cu_la_bview(A, &B, 2, 2, n, m, A->strides[nd - 1], A->strides[nd - 2]);
        ct_tensor bv = vec ? ct__cu_la_bview(Bt, &B, 1, 2, 1, m, 0, Bt->strides[bd - 1])
                           : ct__cu_la_bview(Bt, &B, 2, 2, k, m, Bt->strides[bd - 1], Bt->strides[bd - 2]);
        rc = ct__cu_copy_dev(fn, W, &av) || ct__cu_copy_dev(fn, Xb, &bv) ? -1 : 0;
    }
    ct__cu_solst st;
    ct__cu_solst_init(&st);
    int *ip = info ? (int *)ct__ptr(info) : NULL;   /* ip[0..count): R's zero diagonals; ip[count]: devInfo */
    if (!rc && n > 0) {
        rc = ct__cu_sol_run(dev, fn, &st, [&](cusolverDnHandle_t h) -> int {
            T *a = (T *)ct__ptr(W), *x = (T *)ct__ptr(Xb), *tp = (T *)ct__ptr(tau);
            int lw1 = 0, lw2 = 0;
            CT__CU_SOL_CALL(st, "geqrf_bufferSize", ct__cu_geqrf_ws(h, (int)m, (int)n, a, (int)m, &lw1));
            CT__CU_SOL_CALL(st, "ormqr_bufferSize", ct__cu_ormqr_ws(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, (int)m, (int)k, (int)n, a, (int)m, tp, x, (int)m, &lw2));
            int lw = lw1 > lw2 ? lw1 : lw2;
            ws = ct__cu_sol_ws(&st, A->dtype, lw, D, &rc);
            for (int64_t b = 0; ws && b < B.count && st.s == CUSOLVER_STATUS_SUCCESS; b++) {
                CT__CU_SOL_CALL(st, "geqrf", ct__cu_geqrf(h, (int)m, (int)n, a + b * m * n, (int)m, tp + b * n, (T *)ct__ptr(ws), lw, ip + B.count));
                CT__CU_SOL_CALL(st, "ormqr", ct__cu_ormqr(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, (int)m, (int)k, (int)n, a + b * m * n, (int)m, tp + b * n,
                                                          x + b * m * k, (int)m, (T *)ct__ptr(ws), lw, ip + B.count));
            }
            return rc;
        });
    }
    if (!rc) rc = ct__cu_solst_report(fn, &st);
    if (!rc && n > 0) {   /* R's zero diagonals, then trsm (cuBLAS) */
        ct__cu_guard guard(dev, fn);
        if (!guard.ok) rc = -1;
        else {
            CT__CU_LAUNCH(ct__cu_blocks(B.count, CT__CU_THREADS, dev), CT__CU_THREADS, ((const T *)ct__ptr(W), B.count, n, m, m * n, ip), ct__cu_la_zdiag_kernel<T>);
            rc = ct__cu_launched(fn);
        }
        int32_t *hi = rc ? NULL : ct__cu_la_infos(fn, info, B.count);
        if (!rc && !hi) rc = -1;
        int64_t bad = 0;
        int v = hi ? ct__la_first_bad(hi, B.count, &bad) : 0;
        CT_FREE(hi);
        if (v)
            rc = ct__failed(CT_ERR_NUMERIC, "torch.linalg.lstsq: %sThe least squares solution could not be computed because the input matrix does not have full rank (error code: %d).",
                            ct__la_batch_prefix(B.nb > 0, bad).s, v);
    }
    if (!rc && n > 0) {
        cudaDataType_t ty = sizeof(T) == 8 ? CUDA_R_64F : CUDA_R_32F;
        int stage = 0;
        cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
        ct__cu_guard guard(dev, fn);
        if (!guard.ok) rc = -1;
        else {
            std::lock_guard<std::mutex> lock(ct__cu_blas_mutex);
            if ((s = ct__cu_blas_ready(dev, ty, &stage)) == CUBLAS_STATUS_SUCCESS) {
                const T one = (T)1;
                T *a = (T *)ct__ptr(W), *x = (T *)ct__ptr(Xb);
                for (int64_t b = 0; b < B.count && s == CUBLAS_STATUS_SUCCESS; b++)
                    s = ct__cu_trsm(ct__cu_blas[dev], CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, (int)n, (int)k, &one,
                                    a + b * m * n, (int)m, x + b * m * k, (int)m);
                stage = 2;
            }
        }
        if (!rc && stage == 1) rc = ct__failed(CT_ERR_DEVICE, "%s: cuBLAS error: %s (cublasCreate)", fn, ct__cu_blas_msg(s));
        else if (!rc && s != CUBLAS_STATUS_SUCCESS) rc = ct__failed(CT_ERR_DEVICE, "%s: cuBLAS error: %s (trsm)", fn, ct__cu_blas_msg(s));
    }
    if (!rc && n > 0) {   /* X: the first n rows of Xb (column-major n x k) */
        int64_t sh[CT_MAX_DIMS], stv[CT_MAX_DIMS];
        for (int d = 0; d < B.nb; d++) { sh[d] = B.bs[d]; stv[d] = Xb->strides[d]; }
        sh[B.nb] = k;
        sh[B.nb + 1] = n;
        stv[B.nb] = m;
        stv[B.nb + 1] = 1;
        ct_tensor src = ct__ix_view(Xb, B.nb + 2, sh, stv, 0);
        ct_tensor ov = vec ? ct__cu_la_bview(X, &B, 1, 2, 1, n, 0, X->strides[xd - 1])
                           : ct__cu_la_bview(X, &B, 2, 2, k, n, X->strides[xd - 1], X->strides[xd - 2]);
        rc = ct__cu_copy_dev(fn, &ov, &src);
    }
    if (!rc && ct_numel(Rs) > 0) {   /* contiguous (batch, k) */
        ct__cu_guard guard(dev, fn);
        if (!guard.ok) rc = -1;
        else {
            CT__CU_LAUNCH(ct__cu_blocks(B.count * k, CT__CU_THREADS, dev), CT__CU_THREADS, ((const T *)ct__ptr(Xb), B.count, m, n, k, (T *)ct__ptr(Rs)),
                          ct__cu_la_resid_kernel<T>);
            rc = ct__cu_launched(fn);
        }
    }
    ct__cu_la_free(W);
    ct__cu_la_free(Xb);
    ct__cu_la_free(tau);
    ct__cu_la_free(info);
    ct__cu_la_free(ws);
    return rc;
}

/* ---- eig / eigvals (real input): cuSOLVER's Xgeev (64-bit API, CUDA 12.6+)
   on a column-major copy of each matrix, all-real types: W holds the real
   parts then the imaginary parts, VR the right eigenvectors in LAPACK's form
   (a complex pair j, j+1 as its real and imaginary columns); a kernel writes
   the complex outputs. Non-finite inputs are the CPU's error, checked first;
   devInfo is geev's (the CPU's message). Complex inputs have no kernel here
   (no complex kernels on the device yet), and eig's backward rule needs
   complex ops, so its gradient does not run on the device either. ---- */
static cusolverDnParams_t ct__cu_sol_params[CTENSOR_CUDA_MAX_DEVICES];
/* count x n (wr, wi) and count x n x n column-major VR into L (count x n complex)
   and V (count x n x n complex, row-major; NULL: none) */
template <typename T>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_la_eig_out_kernel(const T *w, const T *vr, int64_t count, int64_t n, T *L, T *V) {
    const int64_t nn = n * n, total = count * (V ? nn : n);
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        if (!V) {
            int64_t b = e / n, j = e % n;
            L[2 * e] = w[b * 2 * n + j];
            L[2 * e + 1] = w[b * 2 * n + n + j];
            continue;
        }
        int64_t b = e / nn, i = (e % nn) / n, j = e % n;
        const T *wb = w + b * 2 * n, *v = vr + b * nn;
        T wi = wb[n + j], re = v[i + j * n], im = (T)0;
        if (wi > (T)0 && j + 1 < n) im = v[i + (j + 1) * n];
        else if (wi < (T)0 && j > 0) { re = v[i + (j - 1) * n]; im = -v[i + j * n]; }
        V[2 * e] = re;
        V[2 * e + 1] = im;
        if (i == 0) { L[2 * (b * n + j)] = wb[j]; L[2 * (b * n + j) + 1] = wi; }
    }
}
template <typename T>
static int ct__cu_la_eig(ct__call *c, const char *fn, int dev) {
    const ct_tensor *A = c->in[0];
    ct_tensor *L = c->out[0], *V = c->out[1];
    int nd = A->ndim, wantv = (c->a->flags & CT__LAF_COMPUTE_V) != 0, rc = 0;
    int64_t n = A->shape[nd - 1], nn = n * n;
    if (A->dtype != CT_FLOAT32 && A->dtype != CT_FLOAT64)
        return ct__failed(CT_ERR_UNSUPPORTED, "%s: %s inputs are not supported on CUDA yet (complex tensors are CPU-only)", fn, CT__DTNAME(A->dtype));
    ct__cu_lab B;
    ct__cu_lab_of(&B, nd - 2, A->shape);
    if (!ct__cu_la_int_ok(fn, n, B.count)) return -1;
    if (B.count == 0 || n == 0) return 0;
    ct_device D = L->device;
    ct_tensor *Wa = ct__cu_la_new(A->dtype, &B, n, n, D), *wb = ct__cu_la_buf(A->dtype, B.count * 2 * n, D);
    ct_tensor *vb = wantv ? ct__cu_la_buf(A->dtype, B.count * nn, D) : NULL, *info = ct__cu_la_buf(CT_INT32, B.count + 1, D), *ws = NULL;
    if (!Wa || !wb || (wantv && !vb) || !info) rc = -1;
    if (!rc) {
        ct_tensor v = ct__cu_la_bview(A, &B, 2, 2, n, n, A->strides[nd - 1], A->strides[nd - 2]);
        rc = ct__cu_copy_dev(fn, Wa, &v);
    }
    int *ip = info ? (int *)ct__ptr(info) : NULL;   /* ip[count]: the non-finite flag */
    if (!rc) {
        ct__cu_guard guard(dev, fn);
        if (!guard.ok || ct__cu_fill(fn, info, 0.0)) rc = -1;
        else {
            CT__CU_LAUNCH(ct__cu_blocks(B.count * nn, CT__CU_THREADS, dev), CT__CU_THREADS, ((const T *)ct__ptr(Wa), B.count * nn, ip + B.count),
                          ct__cu_la_finite_kernel<T>);
            rc = ct__cu_launched(fn);
        }
    }
    int32_t *hf = rc ? NULL : ct__cu_la_infos(fn, info, B.count + 1);
    if (!rc && !hf) rc = -1;
    if (!rc && hf[B.count]) rc = ct__failed(CT_ERR_NUMERIC, "torch.linalg.eig: input tensor should not contain infs or NaNs.");
    CT_FREE(hf);
    ct__cu_solst st;
    ct__cu_solst_init(&st);
    void *hws = NULL;
    if (!rc) {
        rc = ct__cu_sol_run(dev, fn, &st, [&](cusolverDnHandle_t h) -> int {
            if (!ct__cu_sol_params[dev]) CT__CU_SOL_CALL(st, "cusolverDnCreateParams", cusolverDnCreateParams(&ct__cu_sol_params[dev]));
            cusolverDnParams_t prm = ct__cu_sol_params[dev];
            cudaDataType_t ty = sizeof(T) == 8 ? CUDA_R_64F : CUDA_R_32F;
            cusolverEigMode_t jv = wantv ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
            T *a = (T *)ct__ptr(Wa), *w = (T *)ct__ptr(wb), *vr = vb ? (T *)ct__ptr(vb) : NULL;
            size_t dsz = 0, hsz = 0;
            if (prm)
                CT__CU_SOL_CALL(st, "Xgeev_bufferSize", cusolverDnXgeev_bufferSize(h, prm, CUSOLVER_EIG_MODE_NOVECTOR, jv, n, ty, a, n, ty, w, ty, NULL, 1, ty, vr,
                                                                                   wantv ? n : 1, ty, &dsz, &hsz));
            if (prm && st.s == CUSOLVER_STATUS_SUCCESS) {
                ws = ct__cu_la_buf(CT_UINT8, (int64_t)dsz, D);
                hws = hsz ? CT_MALLOC(hsz) : NULL;
                if (!ws) rc = -1;
                else if (hsz && !hws) rc = ct__failed(CT_ERR_MEMORY, "%s: out of host memory (%zu bytes)", fn, hsz);
            }
            for (int64_t b = 0; !rc && ws && b < B.count && st.s == CUSOLVER_STATUS_SUCCESS; b++)
                CT__CU_SOL_CALL(st, "Xgeev", cusolverDnXgeev(h, prm, CUSOLVER_EIG_MODE_NOVECTOR, jv, n, ty, a + b * nn, n, ty, w + b * 2 * n, ty, NULL, 1, ty,
                                                             vr ? vr + b * nn : NULL, wantv ? n : 1, ty, ct__ptr(ws), dsz, hws, hsz, ip + b));
            return rc;
        });
    }
    if (!rc) rc = ct__cu_solst_report(fn, &st);
    int32_t *hi = rc ? NULL : ct__cu_la_infos(fn, info, B.count);
    if (!rc && !hi) rc = -1;
    if (!rc) {
        int64_t bad = 0;
        int v = ct__la_first_bad(hi, B.count, &bad);
        if (v)
            rc = ct__failed(CT_ERR_NUMERIC, "%s: %sThe algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated eigenvalues (error code: %d).",
                            fn, ct__la_batch_prefix(nd > 2, bad).s, v);
    }
    CT_FREE(hi);
    if (!rc) {
        ct__cu_guard guard(dev, fn);
        if (!guard.ok) rc = -1;
        else {
            int64_t total = B.count * (wantv ? nn : n);
            CT__CU_LAUNCH(ct__cu_blocks(total, CT__CU_THREADS, dev), CT__CU_THREADS,
                          ((const T *)ct__ptr(wb), vb ? (const T *)ct__ptr(vb) : (const T *)NULL, B.count, n, (T *)ct__ptr(L), wantv ? (T *)ct__ptr(V) : (T *)NULL),
                          ct__cu_la_eig_out_kernel<T>);
            rc = ct__cu_launched(fn);
        }
    }
    if (hws) {   /* the host workspace may be in use until the calls are done */
        ct__cu_guard guard(dev, fn);
        if (guard.ok && cudaStreamSynchronize(ct__cu_stream_of(dev)) != cudaSuccess && !rc) rc = ct__failed(CT_ERR_DEVICE, "%s: cudaStreamSynchronize failed", fn);
        CT_FREE(hws);
    }
    ct__cu_la_free(Wa);
    ct__cu_la_free(wb);
    ct__cu_la_free(vb);
    ct__cu_la_free(info);
    ct__cu_la_free(ws);
    return rc;
}

/* ---- ops composed of device ops: pinv (svd or eigh above, a tolerance, a
   product), matrix_exp (Pade with scaling and squaring: cuBLAS products and a
   getrf + getrs solve), cross (products of the components), vander (cumprod).
   The kernel runs ctensor ops on the operands' device with autograd off, in a
   scope of its own, and copies the result into the call's output; the op's
   autograd rule stays its own (pinv's and matrix_exp's are ctensor ops, so
   their gradients, and lstsq's through pinv, run on the device too). ---- */
static int ct__cu_la_into(ct_tensor *out, const ct_tensor *r) { return r && ct_copy_(out, r) ? 0 : -1; }
/* runs fn(c) with autograd off in a scope that frees what it made */
static int ct__cu_la_composed(ct__call *c, int (*fn)(ct__call *)) {
    int prev = ct_set_grad_enabled(0), tok = ct_scope_begin();
    int rc = fn(c);
    ct_scope_end(tok);
    ct_set_grad_enabled(prev);
    return rc;
}
/* pinv (PyTorch's linalg_pinv): V diag(1/s) U^T over the singular values above
   max(atol, rtol * s_max); hermitian: V diag(1/w) V^T over |w| above the
   tolerance (eigh of the lower triangle). The tolerances are the CPU's. */
static int ct__cu_la_pinv_body(ct__call *c) {
    const ct_tensor *A = c->in[0];
    ct_tensor *P = c->out[0];
    int nd = A->ndim, herm = (c->a->flags & CT__LAF_HERMITIAN) != 0;
    int64_t m = A->shape[nd - 2], n = A->shape[nd - 1], last = -1;
    if (ct_numel(P) == 0) return 0;
    if (m == 0 || n == 0) return ct__cu_fill("linalg.pinv", P, 0.0);
    double atol = c->a->s[0], rtol = c->a->s[1];
    if (isnan(rtol)) rtol = isnan(atol) || atol <= 0 ? ct__la_eps(A->dtype) * (double)(m > n ? m : n) : 0.0;
    if (isnan(atol)) atol = 0.0;
    ct_tensor *r = NULL;
    if (herm) {
        ct_linalg_eig_result e = ct_linalg_eigh(A, "L");
        ct_tensor *aw = e.eigenvalues ? ct_abs(e.eigenvalues) : NULL;
        ct_tensor *tol = ct_clamp(ct_mul_scalar(ct_amax(aw, 1, &last, 1), rtol), atol, NAN);
        ct_tensor *winv = ct_where_scalar(ct_gt(aw, tol), ct_reciprocal(e.eigenvalues), 0.0);
        r = ct_matmul(ct_mul(e.eigenvectors, ct_unsqueeze(winv, -2)), ct_mT(e.eigenvectors));
    } else {
        ct_linalg_svd_result s = ct_linalg_svd(A, 0);
        ct_tensor *tol = ct_clamp(ct_mul_scalar(ct_narrow(s.S, -1, 0, 1), rtol), atol, NAN);   /* s_max = s[0] */
        ct_tensor *sinv = ct_where_scalar(ct_gt(s.S, tol), ct_reciprocal(s.S), 0.0);
        r = ct_matmul(ct_mul(ct_mT(s.Vh), ct_unsqueeze(sinv, -2)), ct_mT(s.U));
    }
    if (!r && ct_last_error_code() == CT_ERR_NUMERIC)
        return ct__failed(CT_ERR_NUMERIC, "linalg.pinv: The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated singular values");
    return ct__cu_la_into(P, r);
}
/* exp of g matrices (g x n x n) that share a Pade degree and a number of squarings */
static ct_tensor *ct__cu_la_expm_group(ct_tensor *a, const double *bc, int deg, int sq) {
    int64_t n = a->shape[2];
    ct_tensor *I = ct_eye_on(a->device, n, n, a->dtype), *u, *v;
    a = ct_mul_scalar(a, ldexp(1.0, -sq));
    ct_tensor *a2 = ct_matmul(a, a);
    if (deg == 13) {
        ct_tensor *a4 = ct_matmul(a2, a2), *a6 = ct_matmul(a2, a4);
        ct_tensor *t = ct_add(ct_add(ct_mul_scalar(a6, bc[13]), ct_mul_scalar(a4, bc[11])), ct_mul_scalar(a2, bc[9]));
        u = ct_add(ct_add(ct_add(ct_matmul(a6, t), ct_mul_scalar(a6, bc[7])), ct_add(ct_mul_scalar(a4, bc[5]), ct_mul_scalar(a2, bc[3]))), ct_mul_scalar(I, bc[1]));
        u = ct_matmul(a, u);
        t = ct_add(ct_add(ct_mul_scalar(a6, bc[12]), ct_mul_scalar(a4, bc[10])), ct_mul_scalar(a2, bc[8]));
        v = ct_add(ct_add(ct_add(ct_matmul(a6, t), ct_mul_scalar(a6, bc[6])), ct_add(ct_mul_scalar(a4, bc[4]), ct_mul_scalar(a2, bc[2]))), ct_mul_scalar(I, bc[0]));
    } else {   /* u = a sum_j b_{2j+1} a2^j, v = sum_j b_{2j} a2^j */
        ct_tensor *pw = I;
        u = ct_zeros_like(a);
        v = ct_zeros_like(a);
        for (int j = 0; 2 * j <= deg; j++) {
            v = ct_add(v, ct_mul_scalar(pw, bc[2 * j]));
            u = ct_add(u, ct_mul_scalar(pw, bc[2 * j + 1]));
            if (2 * j + 2 <= deg) pw = ct_matmul(pw, a2);
        }
        u = ct_matmul(a, u);
    }
    ct_tensor *X = ct_linalg_solve_ex(ct_sub(v, u), ct_add(v, u), 1, 0, NULL);   /* (v - u) X = v + u; infos unchecked, as the CPU's */
    for (int s = 0; s < sq && X; s++) X = ct_matmul(X, X);
    return X;
}
/* matrix_exp: the CPU's plan (ct__la_expm_plan) from each matrix's 1-norm (read
   back), then one batched computation per group of matrices with the same plan */
static int ct__cu_la_matrix_exp_body(ct__call *c) {
    const ct_tensor *A = c->in[0];
    ct_tensor *Y = c->out[0];
    int nd = A->ndim;
    int64_t n = A->shape[nd - 1], count = n ? ct_numel(A) / (n * n) : 0, sh3[3] = {count, n, n}, m1 = -1;
    if (count == 0 || n == 0) return 0;
    ct_tensor *Af = ct_reshape_n(A, 3, sh3);
    ct_tensor *nh = ct_to_device(ct_to(ct_amax(ct_sum_dim(ct_abs(Af), -2, 0), 1, &m1, 0), CT_FLOAT64), ct_cpu());
    if (!nh) return -1;
    const double *norm = (const double *)ct_data_ptr(nh);
    int *key = (int *)ct__la_scratch(sizeof(int) * (size_t)count * 2);
    int64_t *idx = (int64_t *)ct__la_scratch(sizeof(int64_t) * (size_t)count);
    if (!key || !idx) { CT_FREE(key); CT_FREE(idx); return -1; }
    int rc = 0, ngroups = 0;
    for (int64_t b = 0; b < count; b++) {
        int deg = 0, sq = 0;
        ct__la_expm_plan(norm[b], &deg, &sq);
        key[b] = deg + 16 * sq;
        key[count + b] = 0;   /* done */
    }
    for (int64_t b = 0; b < count; b++) ngroups += b == 0 || key[b] != key[0];
    ct_tensor *R = ngroups == 1 ? NULL : ct_empty_like(Af);
    for (int64_t b0 = 0; b0 < count && !rc; b0++) {
        if (key[count + b0]) continue;
        int64_t g = 0;
        for (int64_t b = b0; b < count; b++)
            if (key[b] == key[b0]) { idx[g++] = b; key[count + b] = 1; }
        int deg = 0, sq = 0;
        const double *bc = ct__la_expm_plan(norm[b0], &deg, &sq);
        if (g == count) {
            rc = ct__cu_la_into(Y, ct_reshape_n(ct__cu_la_expm_group(Af, bc, deg, sq), nd, A->shape));
        } else {
            ct_tensor *ix = ct_from_data_on_n(A->device, idx, CT_INT64, 1, &g);
            rc = ct_index_copy_(R, 0, ix, ct__cu_la_expm_group(ct_index_select(Af, 0, ix), bc, deg, sq)) ? 0 : -1;
        }
    }
    if (!rc && R) rc = ct__cu_la_into(Y, ct_reshape_n(R, nd, A->shape));
    CT_FREE(key);
    CT_FREE(idx);
    return rc;
}
/* cross along dim: out_i = x_{i+1} y_{i+2} - x_{i+2} y_{i+1} (broadcasting) */
static int ct__cu_la_cross_body(ct__call *c) {
    const ct_tensor *x = c->in[0], *y = c->in[1];
    ct_tensor *o = c->out[0];
    int d = ct__wrap_dim((int)c->a->i[0], o->ndim);
    if (ct_numel(o) == 0) return 0;
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        ct_tensor *r = ct_sub(ct_mul(ct_narrow(x, d, j, 1), ct_narrow(y, d, k, 1)), ct_mul(ct_narrow(x, d, k, 1), ct_narrow(y, d, j, 1)));
        if (ct__cu_la_into(ct_narrow(o, d, i, 1), r)) return -1;
    }
    return 0;
}
/* vander: the running products 1, x, x^2, ... (cumprod of [1, x, ..., x]) in the output's dtype */
static int ct__cu_la_vander_body(ct__call *c) {
    const ct_tensor *x = c->in[0];
    ct_tensor *V = c->out[0];
    int nd = V->ndim;
    int64_t N = V->shape[nd - 1], sh[CT_MAX_DIMS];
    if (ct_numel(V) == 0) return 0;
    for (int d = 0; d < nd; d++) sh[d] = V->shape[d];
    sh[nd - 1] = N - 1;
    ct_tensor *xe = ct_expand_n(ct_unsqueeze(ct_to(x, V->dtype), -1), nd, sh);
    ct_tensor *parts[2] = {ct_ones_like(ct_narrow(V, -1, 0, 1)), xe};
    return ct__cu_la_into(V, ct_cumprod_dtype(ct_cat(2, parts, -1), -1, V->dtype));
}
/* one kernel for the ops of ctensor_linalg.h that run here: by op and dtype */
static int ct__cu_k_linalg(ct__call *c) {
    const char *fn = ct__la_fn(c);
    int dev = ct__cu_call_device(c), op = c->op - ct__la_base, d = c->in[0]->dtype == CT_FLOAT64;
    for (int i = 0; i < c->nin; i++)
        if (c->in[i]->device.type != CT_CUDA)
            return ct__failed(CT_ERR_DEVICE, "%s: Expected all tensors to be on the same device, but found at least two devices, cuda:%d and cpu!", fn, dev);
    switch (op) {
    case CT__LA_CHOLESKY: return d ? ct__cu_la_cholesky<double>(c, fn, dev) : ct__cu_la_cholesky<float>(c, fn, dev);
    case CT__LA_INV: return d ? ct__cu_la_lu<double>(c, fn, dev, CT__CU_LU_INV) : ct__cu_la_lu<float>(c, fn, dev, CT__CU_LU_INV);
    case CT__LA_SOLVE: return d ? ct__cu_la_lu<double>(c, fn, dev, CT__CU_LU_SOLVE) : ct__cu_la_lu<float>(c, fn, dev, CT__CU_LU_SOLVE);
    case CT__LA_DET: return d ? ct__cu_la_lu<double>(c, fn, dev, CT__CU_LU_DET) : ct__cu_la_lu<float>(c, fn, dev, CT__CU_LU_DET);
    case CT__LA_SLOGDET: return d ? ct__cu_la_lu<double>(c, fn, dev, CT__CU_LU_SLOGDET) : ct__cu_la_lu<float>(c, fn, dev, CT__CU_LU_SLOGDET);
    case CT__LA_LU_FACTOR: return d ? ct__cu_la_lu<double>(c, fn, dev, CT__CU_LU_FACTOR) : ct__cu_la_lu<float>(c, fn, dev, CT__CU_LU_FACTOR);
    case CT__LA_LU_SOLVE: return d ? ct__cu_la_lu<double>(c, fn, dev, CT__CU_LU_SOLVE_LU) : ct__cu_la_lu<float>(c, fn, dev, CT__CU_LU_SOLVE_LU);
    case CT__LA_EIGH: return d ? ct__cu_la_eigh<double>(c, fn, dev) : ct__cu_la_eigh<float>(c, fn, dev);
    case CT__LA_QR: return d ? ct__cu_la_qr<double>(c, fn, dev) : ct__cu_la_qr<float>(c, fn, dev);
    case CT__LA_SVD: return d ? ct__cu_la_svd<double>(c, fn, dev) : ct__cu_la_svd<float>(c, fn, dev);
    case CT__LA_SOLVE_TRI: return d ? ct__cu_la_solve_tri<double>(c, fn, dev) : ct__cu_la_solve_tri<float>(c, fn, dev);
    case CT__LA_CHOL_SOLVE: return d ? ct__cu_la_chol_solve<double>(c, fn, dev, 0) : ct__cu_la_chol_solve<float>(c, fn, dev, 0);
    case CT__LA_CHOL_INV: return d ? ct__cu_la_chol_solve<double>(c, fn, dev, 1) : ct__cu_la_chol_solve<float>(c, fn, dev, 1);
    case CT__LA_LSTSQ: return d ? ct__cu_la_lstsq<double>(c, fn, dev) : ct__cu_la_lstsq<float>(c, fn, dev);
    case CT__LA_HOUSEHOLDER: return d ? ct__cu_la_householder<double>(c, fn, dev) : ct__cu_la_householder<float>(c, fn, dev);
    case CT__LA_EIG: return d ? ct__cu_la_eig<double>(c, fn, dev) : ct__cu_la_eig<float>(c, fn, dev);
    case CT__LA_PINV: return ct__cu_la_composed(c, ct__cu_la_pinv_body);
    case CT__LA_MATRIX_EXP: return ct__cu_la_composed(c, ct__cu_la_matrix_exp_body);
    case CT__LA_CROSS: return ct__cu_la_composed(c, ct__cu_la_cross_body);
    case CT__LA_VANDER: return ct__cu_la_composed(c, ct__cu_la_vander_body);
    default: return ct__failed(CT_ERR_UNSUPPORTED, "%s: no CUDA kernel", fn);
    }
}
/* linalg.vector_norm: the core norm's reduction kernel (its keepdim does not
   change the output's memory) */
static int ct__cu_k_la_vector_norm(ct__call *c) {
    ct__call cc = *c;
    ct__attrs a = *c->a;
    a.flags = 0;
    cc.a = &a;
    cc.cdt = c->in[0]->dtype;
    return ct__cu_k_pnorm(&cc);
}
static const int ct__cu_la_ops[] = {CT__LA_CHOLESKY, CT__LA_INV, CT__LA_SOLVE, CT__LA_DET, CT__LA_SLOGDET, CT__LA_LU_FACTOR,
                                    CT__LA_LU_SOLVE, CT__LA_EIGH, CT__LA_QR, CT__LA_SVD, CT__LA_SOLVE_TRI, CT__LA_CHOL_SOLVE,
                                    CT__LA_CHOL_INV, CT__LA_HOUSEHOLDER, CT__LA_LSTSQ, CT__LA_EIG, CT__LA_PINV, CT__LA_MATRIX_EXP,
                                    CT__LA_CROSS, CT__LA_VANDER};
#endif /* CTENSOR_LINALG_IMPLEMENTATION_DONE */
/* this section's kernels (from ct__cu_register_all) */
static void ct__cu_la_register(void) {
#ifdef CTENSOR_LINALG_IMPLEMENTATION_DONE
    ct__la_register_now();   /* the linalg block first: its ids */
    if (ct__la_base < 0) return;
    for (size_t k = 0; k < sizeof ct__cu_la_ops / sizeof ct__cu_la_ops[0]; k++)
        ct_register_kernel(ct__opdef_get(ct__la_base + ct__cu_la_ops[k])->sname, CT_BACKEND_CUDA, ct__cu_k_linalg);
    ct_register_kernel(ct__opdef_get(ct__la_base + CT__LA_VECTOR_NORM)->sname, CT_BACKEND_CUDA, ct__cu_k_la_vector_norm);
#endif
}

/* ============================================================================
   Quantized inference: int8 Linear through cuBLASLt (ctensor_quant.h's ops,
   when it is included first)
   quantized::linear and quantized::linear_relu on the QuantizedCUDA backend:
   x quint8 (per tensor, contiguous) on a device, the packed weight on the same
   device (ct_cuda_q_linear_packed_to). The packed weight on the device holds
   the qint8 codes W row-major [Np, Kp] (Kp = K rounded up to 4, Np = N + 1
   rounded up to 4; zero padding) whose row N is all ones (over k < K): one
   cuBLASLt product then gives the activations' row sums beside the outputs.
   Per call: a kernel turns x's uint8 codes into int8 (code - 128, the rows
   padded to Kp with 0), cublasLtMatmul computes acc = A_s W^T in int32
   (CUDA_R_8I inputs, CUBLAS_COMPUTE_32I, scale CUDA_R_32I, "TN": the
   int8 layout cuBLASLt requires, leading dimensions Kp and Np multiples of 4),
   and a requantisation kernel forms, per output, the CPU path's epilogue:
       sum a w = acc + 128 colsum[n],  sum a = acc[., N] + 128 K,
       v = float(sum a w - a_zp colsum[n] - w_zp[n] sum a + K a_zp w_zp[n])
           * (a_scale w_scale[n]) + bias[n]
       y = clamp(rint(v / out_scale) + out_zp, relu ? out_zp : 0, 255)
   in the same float32 operations, one rounding each (__fmul_rn / __fadd_rn:
   no contraction into FMA), so the codes equal the CPU's (integers wrap in
   32 bits as there). Per-channel weights (axis 0) and weight zero points are
   supported. quantized::linear_dynamic (a float32 input: the CUDA backend's
   slot) quantizes x on the device: its range by two reduction kernels (NaNs
   skipped; a NaN first value kept, as the CPU's scan does), read back as two
   floats (one stream synchronisation: the parameters are the CPU's own choice,
   ct_q_choose_qparams, so scale, zero point and errors match), the codes by a
   kernel (the CPU's rounding), then the same GEMM and the same epilogue kernel
   writing float32 (no requantisation). (conv: below)
   Compiled by nvcc; run only on the emulator (tests/cuda/emu/cublasLt.h), not
   yet on a GPU. Link with -lcublasLt.
   ========================================================================== */
#ifdef CTENSOR_QUANT_IMPLEMENTATION_DONE
#include <cublasLt.h>
static cublasLtHandle_t ct__cu_lt[CTENSOR_CUDA_MAX_DEVICES];
static std::mutex ct__cu_lt_mutex;   /* one handle per device; calls are serialized */
#define CT__CU_Q_R4(v) (((v) + 3) / 4 * 4)
/* the grid of a grid-stride loop over n items */
static unsigned ct__cu_q_blocks(int64_t n) {
    int64_t b = (n + CT__CU_THREADS - 1) / CT__CU_THREADS;
    return (unsigned)(b < 1 ? 1 : b > 65535 ? 65535 : b);
}
/* The int8 GEMM of every int8 op here, through cuBLASLt: for g < G,
   acc_g^T (Np x M, ld Np, column-major) = W_g (Np x Kp: the transpose of the
   column-major Kp x Np) A_g^T (Kp x M), i.e. acc_g[m][n] = sum_k A_g[m][k]
   W_g[n][k] in int32 (CUDA_R_8I inputs, CUBLAS_COMPUTE_32I, scale CUDA_R_32I,
   "TN": the int8 layout cuBLASLt requires). W_g = W + g wstride, A_g = A + g
   astride, acc_g = acc + g cstride. cuBLASLt's int8 constraints are the
   callers' layout: Kp and Np (the leading dimensions) multiples of 4, every
   pointer 4-byte aligned (the strides keep that), 16-byte aligned where
   possible (the allocator's blocks; ct__cu_q_aligned below copies a packed
   weight that is not). *what names the failed call. */
static cublasStatus_t ct__cu_q_lt_gemm(int dev, int64_t G, const int8_t *W, int64_t wstride, const int8_t *A, int64_t astride, int32_t *acc,
                                       int64_t cstride, int64_t Kp, int64_t Np, int64_t M, const char **what) {
    std::lock_guard<std::mutex> lock(ct__cu_lt_mutex);
    cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
    cublasLtMatmulDesc_t desc = NULL;
    cublasLtMatrixLayout_t la = NULL, lb = NULL, lc = NULL;
    int32_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N, one = 1, zero = 0;
#define CT__CU_LT(call) do { if (s == CUBLAS_STATUS_SUCCESS && (s = (call)) != CUBLAS_STATUS_SUCCESS) *what = #call; } while (0)
    if (!ct__cu_lt[dev]) {
        CT__CU_LT(cublasLtCreate(&ct__cu_lt[dev]));
        if (s != CUBLAS_STATUS_SUCCESS) ct__cu_lt[dev] = NULL;
    }
    CT__CU_LT(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32I, CUDA_R_32I));
    CT__CU_LT(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CT__CU_LT(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    CT__CU_LT(cublasLtMatrixLayoutCreate(&la, CUDA_R_8I, (uint64_t)Kp, (uint64_t)Np, Kp));
    CT__CU_LT(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8I, (uint64_t)Kp, (uint64_t)M, Kp));
    CT__CU_LT(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32I, (uint64_t)Np, (uint64_t)M, Np));
    for (int64_t g = 0; g < G && s == CUBLAS_STATUS_SUCCESS; g++) {
        int32_t *accg = acc + g * cstride;
        CT__CU_LT(cublasLtMatmul(ct__cu_lt[dev], desc, &one, W + g * wstride, la, A + g * astride, lb, &zero, accg, lc, accg, lc, NULL, NULL, 0,
                                 ct__cu_cur_stream()));
    }
#undef CT__CU_LT
    if (lc) (void)cublasLtMatrixLayoutDestroy(lc);
    if (lb) (void)cublasLtMatrixLayoutDestroy(lb);
    if (la) (void)cublasLtMatrixLayoutDestroy(la);
    if (desc) (void)cublasLtMatmulDescDestroy(desc);
    return s;
}
/* A packed weight's bytes at a 16-byte aligned address: its own data when they
   are (a packed weight made by ct_cuda_q_*_packed_to always is), else a copy
   into a fresh allocator block (*tmp, released by the caller): the op's inputs
   are plain tensors, and a view of one at an odd offset must neither fault
   (the conv's doubles) nor be refused by cuBLASLt. NULL: error set. */
static const int8_t *ct__cu_q_aligned(const char *op, const ct_tensor *pk, ct_tensor **tmp) {
    *tmp = NULL;
    const int8_t *p = (const int8_t *)ct__ptr(pk);
    if ((uintptr_t)p % 16 == 0) return p;
    int64_t n = pk->shape[0];
    ct_tensor *t = ct__alloc(CT_INT8, 1, &n, NULL, pk->device);
    if (!t) return NULL;
    cudaError_t e = cudaMemcpyAsync(ct__ptr(t), p, (size_t)n, cudaMemcpyDeviceToDevice, ct__cu_cur_stream());
    if (e != cudaSuccess) {
        ct__decref(t);
        ct__cu_fail(op, e);
        return NULL;
    }
    *tmp = t;
    return (const int8_t *)ct__ptr(t);
}
/* a[m, k] = x[m, k] - 128 for k < K, 0 for K <= k < Kp: the quint8 codes as int8 */
__global__ void ct__cu_q_prep_kernel(const uint8_t *x, int8_t *a, int64_t M, int64_t K, int64_t Kp) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < M * Kp; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t m = i / Kp, k = i % Kp;
        a[i] = k < K ? (int8_t)((int)x[m * K + k] - 128) : (int8_t)0;
    }
}
/* a quint8 code as ct__qg_requant makes it (v / scale as v * inv, clamped,
   rounded half to even, the zero point added, clamped to [lo, 255]), one
   rounding an operation (no FMA contraction), as a float */
__device__ __forceinline__ float ct__cu_q_round(float v, float inv, float zp, float lo) {
    float t = __fmul_rn(v, inv);
    t = t > -1024.f ? t : -1024.f;   /* NaN gives -1024, so lo, as on the CPU */
    t = t < 1024.f ? t : 1024.f;
    t = __fadd_rn(rintf(t), zp);
    t = t > lo ? t : lo;
    return t < 255.f ? t : 255.f;
}
/* the CPU path's epilogue (ctensor_quant.h's ct__qg_run), one output a thread:
   v = float(sum a w - corrections) * (a_scale w_scale) + bias; yf (float32,
   quantized::linear_dynamic) gets v, else y (quint8) its requantised code */
__global__ void ct__cu_q_requant_kernel(const int32_t *acc, int64_t ldacc, uint8_t *y, float *yf, int64_t M, int64_t N, int64_t K,
                                        const int32_t *colsum, const float *wscale, const int32_t *wzp, int per_channel, const float *bias,
                                        float a_scale, int32_t a_zp, float inv, float ozp, float lo) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < M * N; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t m = i / N, n = i % N, ch = per_channel ? n : 0;
        uint32_t ar = (uint32_t)acc[m * ldacc + n] + 128u * (uint32_t)colsum[n];
        uint32_t rs = (uint32_t)acc[m * ldacc + N] + 128u * (uint32_t)K;
        uint32_t wz = (uint32_t)wzp[ch];
        uint32_t corr = (uint32_t)a_zp * (uint32_t)colsum[n] - (uint32_t)K * (uint32_t)a_zp * wz;
        float mult = __fmul_rn(a_scale, wscale[ch]);
        float v = __fadd_rn(__fmul_rn((float)(int32_t)(ar - corr - wz * rs), mult), bias[n]);
        if (yf) yf[i] = v;
        else y[i] = (uint8_t)(int32_t)ct__cu_q_round(v, inv, ozp, lo);
    }
}
/* ---- the dynamic Linear's activation (quantized::linear_dynamic) ----
   x's range: per block the minimum and maximum of its grid-stride share, NaNs
   skipped (part[2 b], part[2 b + 1]); one block folds the parts into r[0] and
   r[1], and r[2] = x[0] (the CPU's scan starts there: a NaN first value stays
   its minimum and maximum, an error of the choice of parameters) */
__device__ void ct__cu_qd_fold(float *smn, float *smx, float mn, float mx) {
    const int t = (int)threadIdx.x;
    smn[t] = mn;
    smx[t] = mx;
    __syncthreads();
    for (int h = CT__CU_THREADS / 2; h > 0; h >>= 1) {
        if (t < h) {
            smn[t] = smn[t + h] < smn[t] ? smn[t + h] : smn[t];
            smx[t] = smx[t + h] > smx[t] ? smx[t + h] : smx[t];
        }
        __syncthreads();
    }
}
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_qd_minmax_kernel(const float *x, int64_t n, float *part) {
    __shared__ float smn[CT__CU_THREADS], smx[CT__CU_THREADS];
    float mn = INFINITY, mx = -INFINITY;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        float v = x[i];
        mn = v < mn ? v : mn;   /* a NaN compares false: skipped */
        mx = v > mx ? v : mx;
    }
    ct__cu_qd_fold(smn, smx, mn, mx);
    if (threadIdx.x == 0) {
        part[2 * blockIdx.x] = smn[0];
        part[2 * blockIdx.x + 1] = smx[0];
    }
}
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_qd_range_kernel(const float *part, int64_t nb, const float *x, float *r) {
    __shared__ float smn[CT__CU_THREADS], smx[CT__CU_THREADS];
    float mn = INFINITY, mx = -INFINITY;
    for (int64_t b = threadIdx.x; b < nb; b += blockDim.x) {
        mn = part[2 * b] < mn ? part[2 * b] : mn;
        mx = part[2 * b + 1] > mx ? part[2 * b + 1] : mx;
    }
    ct__cu_qd_fold(smn, smx, mn, mx);
    if (threadIdx.x == 0) {
        r[0] = smn[0];
        r[1] = smx[0];
        r[2] = x[0];
    }
}
/* a[m, k] = x[m, k]'s quint8 code (1 / scale = inv, zero point zp) - 128 for
   k < K, 0 for K <= k < Kp */
__global__ void ct__cu_qd_quant_kernel(const float *x, int8_t *a, int64_t M, int64_t K, int64_t Kp, float inv, float zp) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < M * Kp; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t m = i / Kp, k = i % Kp;
        a[i] = k < K ? (int8_t)((int32_t)ct__cu_q_round(x[m * K + k], inv, zp, 0.f) - 128) : (int8_t)0;
    }
}
/* the dynamic parameters of x (n values, contiguous, on device dev): its range
   on the device, read back (12 bytes, one stream synchronisation), then the
   CPU path's own choice (ct_q_choose_qparams to quint8 [0, 255], reduce_range
   as asked), so the parameters and the errors (an infinite or NaN range) are
   the CPU's. Inside the op's device guard. */
static int ct__cu_qd_params(const char *op, ct_device dev, const float *x, int64_t n, int reduce_range, double *sc, int64_t *zp) {
    float r[3] = {0.f, 0.f, 0.f};   /* no values: the CPU's range [0, 0] */
    if (n > 0) {
        int64_t nb = (n + CT__CU_THREADS - 1) / CT__CU_THREADS, cap = 4 * (int64_t)ct__cu_sms(dev.index);
        nb = nb < cap ? nb : cap;
        int64_t len = 2 * nb + 3;
        ct_tensor *buf = ct__alloc(CT_FLOAT32, 1, &len, NULL, dev);
        if (!buf) return -1;
        float *bp = (float *)ct__ptr(buf);
        CT__CU_LAUNCH((unsigned)nb, CT__CU_THREADS, (x, n, bp), ct__cu_qd_minmax_kernel);
        int rc = ct__cu_launched(op);
        if (!rc) {
            CT__CU_LAUNCH(1, CT__CU_THREADS, (bp, nb, x, bp + 2 * nb), ct__cu_qd_range_kernel);
            rc = ct__cu_launched(op);
        }
        if (!rc) {
            cudaError_t e = cudaMemcpyAsync(r, bp + 2 * nb, sizeof r, cudaMemcpyDeviceToHost, ct__cu_cur_stream());
            if (e == cudaSuccess) e = cudaStreamSynchronize(ct__cu_cur_stream());
            if (e != cudaSuccess) rc = ct__cu_fail(op, e);
        }
        ct__decref(buf);
        if (rc) return -1;
        if (r[2] != r[2]) r[0] = r[1] = r[2];
    }
    if (ct_q_choose_qparams(r[0], r[1], 0, 255, 0, reduce_range, sc, zp)) {
        char why[256];   /* (the message is formatted into the buffer ct_last_error reads) */
        const char *e = ct_last_error();
        size_t n = strlen(e) < sizeof why - 1 ? strlen(e) : sizeof why - 1;
        memcpy(why, e, n);
        why[n] = 0;
        return ct__failed(CT_ERR_ARG, "%s: cannot quantize the input (%s)", op, why);
    }
    return 0;
}
/* inputs of the three Linear ops (x, packed, col_sums, scales, zero_points, bias0),
   their CPU table's, with the device's packed layout (ct_cuda_q_linear_packed_to) */
static int ct__cu_q_meta_linear(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    int dyn = c->op == CT__QOP(Q_LINEAR_DYNAMIC);
    const ct_tensor *x = c->in[0], *pk = c->in[1], *cs = c->in[2], *sc = c->in[3], *zp = c->in[4], *b = c->in[5];
    int64_t K = c->a->i[0];
    for (int i = 1; i < 6; i++)
        if (!ct_device_eq(c->in[i]->device, x->device)) {
            char bx[32], bw[32];
            return ct__failed(CT_ERR_DEVICE, "%s: the input (on %s) and the packed weight (on %s) must be on one device (move the weight with "
                              "ct_cuda_q_linear_packed_to)", op, ct_device_str(x->device, bx, sizeof bx), ct_device_str(c->in[i]->device, bw, sizeof bw));
        }
    if (cs->dtype != CT_INT32 || cs->ndim != 1 || pk->dtype != CT_INT8 || pk->ndim != 1 || K < 0 || !ct__is_contig(pk) || !ct__is_contig(cs) ||
        !ct__is_contig(sc) || !ct__is_contig(zp) || !ct__is_contig(b) || K > INT32_MAX || cs->shape[0] > INT32_MAX - 4)
        return ct__failed(CT_ERR_ARG, "%s: malformed packed weight on CUDA (make it with ct_cuda_q_linear_packed_to)", op);
    int64_t N = cs->shape[0];
    if (pk->shape[0] != CT__CU_Q_R4(N + 1) * CT__CU_Q_R4(K) || sc->dtype != CT_FLOAT32 || sc->ndim != 1 || (sc->shape[0] != 1 && sc->shape[0] != N) ||
        zp->dtype != CT_INT32 || zp->ndim != 1 || zp->shape[0] != sc->shape[0] || b->dtype != CT_FLOAT32 || b->ndim != 1 || b->shape[0] != N)
        return ct__failed(CT_ERR_ARG, "%s: malformed packed weight on CUDA (make it with ct_cuda_q_linear_packed_to)", op);
    if (ct__qg_check_input(op, c, dyn, K)) return -1;   /* ctensor_quant.h's checks of the input */
    if (!dyn && !ct__is_contig(x))   /* (a float input is made contiguous by the kernel) */
        return ct__failed(CT_ERR_UNSUPPORTED, "%s: the input must be contiguous on CUDA (got strides of a view)", op);
    int64_t M = 1;
    for (int d = 0; d + 1 < x->ndim; d++) M *= x->shape[d];
    if (M > INT32_MAX)
        return ct__failed(CT_ERR_UNSUPPORTED, "%s: more than 2^31-1 rows (%lld) are not supported on CUDA", op, (long long)M);
    int64_t shape[CT_MAX_DIMS];
    for (int d = 0; d + 1 < x->ndim; d++) shape[d] = x->shape[d];
    shape[x->ndim - 1] = N;
    ct__out_new(c, dyn ? CT_FLOAT32 : CT_QUINT8, x->ndim, shape);
    return 0;
}
/* The Linear ops' device work: x [M, K] (contiguous; float32 when dyn, else
   quint8), w = (packed, col_sums, scales, zero_points, bias0) on x's device,
   a: the op's attributes; y [M, N] (float32 when dyn, else quint8), or NULL to
   stop after the product. acc_keep (tests): when not NULL, the int32 product
   acc [M, Np] (acc[m][n] = sum_k (a[m][k] - 128) W[n][k], column N the
   activations' sums) comes back there, and the activation's parameters in
   xs / xzp. */
static int ct__cu_q_linear_run(const char *op, int dyn, int relu, const ct_tensor *x, ct_tensor *const *w, const ct__attrs *at, ct_tensor *y,
                               ct_tensor **acc_keep, double *xs, int64_t *xzp) {
    int64_t K = at->i[0], N = w[1]->shape[0], Kp = CT__CU_Q_R4(K), Np = CT__CU_Q_R4(N + 1), M = 1;
    for (int d = 0; d + 1 < x->ndim; d++) M *= x->shape[d];
    if (acc_keep) *acc_keep = NULL;
    if (M == 0 || N == 0) return 0;
    int dev = x->device.index, rc = 0;
    int64_t na = M * (Kp ? Kp : 1), nacc = M * Np;
    ct_tensor *a = ct__alloc(CT_INT8, 1, &na, NULL, x->device), *acc = a ? ct__alloc(CT_INT32, 1, &nacc, NULL, x->device) : NULL;
    if (!a || !acc) {
        if (a) ct__decref(a);
        return -1;
    }
    cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
    const char *what = NULL;
    double a_scale = dyn ? 0.0 : x->qparams->scale;
    int64_t a_zp = dyn ? 0 : x->qparams->zero_point;
    {
        ct__cu_guard guard(dev, op);
        if (!guard.ok) rc = -1;
        if (!rc && dyn) rc = ct__cu_qd_params(op, x->device, (const float *)ct__ptr(x), M * K, (at->flags & 1) != 0, &a_scale, &a_zp);
        if (!rc && Kp == 0) {   /* no products: the sums are 0 */
            cudaError_t e = cudaMemsetAsync(ct__ptr(acc), 0, (size_t)nacc * sizeof(int32_t), ct__cu_cur_stream());
            if (e != cudaSuccess) rc = ct__cu_fail(op, e);
        } else if (!rc) {
            if (dyn) {   /* the CPU's codes: x * (1 / scale) rounded, + zero point (ct__qg_requant with lo 0) */
                CT__CU_LAUNCH(ct__cu_q_blocks(M * Kp), CT__CU_THREADS, ((const float *)ct__ptr(x), (int8_t *)ct__ptr(a), M, K, Kp,
                                                                        1.0f / (float)a_scale, (float)a_zp), ct__cu_qd_quant_kernel);
            } else {
                CT__CU_LAUNCH(ct__cu_q_blocks(M * Kp), CT__CU_THREADS, ((const uint8_t *)ct__ptr(x), (int8_t *)ct__ptr(a), M, K, Kp), ct__cu_q_prep_kernel);
            }
            rc = ct__cu_launched(op);
        }
        if (!rc && Kp) {
            ct_tensor *wtmp = NULL;
            const int8_t *W = ct__cu_q_aligned(op, w[0], &wtmp);
            if (!W) rc = -1;
            else {
                s = ct__cu_q_lt_gemm(dev, 1, W, 0, (const int8_t *)ct__ptr(a), 0, (int32_t *)ct__ptr(acc), 0, Kp, Np, M, &what);
                if (s != CUBLAS_STATUS_SUCCESS) rc = -1;
            }
            if (wtmp) ct__decref(wtmp);
        }
        if (!rc && y) {
            CT__CU_LAUNCH(ct__cu_q_blocks(M * N), CT__CU_THREADS,
                          ((const int32_t *)ct__ptr(acc), Np, dyn ? (uint8_t *)NULL : (uint8_t *)ct__ptr(y), dyn ? (float *)ct__ptr(y) : (float *)NULL,
                           M, N, K, (const int32_t *)ct__ptr(w[1]), (const float *)ct__ptr(w[2]), (const int32_t *)ct__ptr(w[3]),
                           (int)(w[2]->shape[0] > 1), (const float *)ct__ptr(w[4]), (float)a_scale, (int32_t)a_zp,
                           dyn ? 0.f : 1.0f / (float)at->s[0], dyn ? 0.f : (float)at->i[1], relu ? (float)at->i[1] : 0.f),
                          ct__cu_q_requant_kernel);
            rc = ct__cu_launched(op);
        }
    }
    ct__decref(a);   /* the allocator keeps the blocks for the stream's later work */
    if (!rc && acc_keep) {
        *acc_keep = acc;
        if (xs) *xs = a_scale;
        if (xzp) *xzp = a_zp;
    } else {
        ct__decref(acc);
    }
    if (what) return ct__failed(CT_ERR_DEVICE, "%s: cuBLASLt error: %s (%s)", op, cublasGetStatusString(s), what);
    return rc;
}
static int ct__cu_q_k_linear(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    int dyn = c->op == CT__QOP(Q_LINEAR_DYNAMIC);
    ct_tensor *y = c->out[0];
    if (!dyn) {
        ct_qparams *qp = ct_qparams_per_tensor(c->a->s[0], c->a->i[1], CT_PER_TENSOR_AFFINE);
        if (!qp) return -1;
        ct_status qst = ct_set_qparams(y, qp);
        ct_qparams_release(qp);
        if (qst != CT_OK) return -1;
    }
    ct_tensor *x = dyn ? ct__contig_ref(c->in[0]) : ct__incref(c->in[0]);
    if (!x) return -1;
    int rc = ct__cu_q_linear_run(op, dyn, c->op == CT__QOP(Q_LINEAR_RELU), x, c->in + 1, c->a, y, NULL, NULL, NULL);
    ct__decref(x);
    return rc;
}
/* the arguments of ct_cuda_q_{linear,conv}_packed_to: a packed weight and a CUDA device */
static int ct__cu_packed_to_args(const char *fn, const void *w, ct_device dev) {
    ct_cuda_init();
    if (!w) return ct__failed(CT_ERR_ARG, "%s: the packed weight is NULL", fn);
    if (dev.type != CT_CUDA) {
        char b[32];
        return ct__failed(CT_ERR_DEVICE, "%s: expected a CUDA device, got %s", fn, ct_device_str(dev, b, sizeof b));
    }
    return 0;
}
CTENSOR_API ct_q_linear_packed *ct_cuda_q_linear_packed_to(const ct_q_linear_packed *w, ct_device dev) {
    const char *fn = "ct_cuda_q_linear_packed_to";
    if (ct__cu_packed_to_args(fn, w, dev)) return NULL;
    if (!w->weight || !w->col_sums || w->col_sums->device.type != CT_CPU)
        return (ct_q_linear_packed *)ct__fail(CT_ERR_ARG, "%s: expected a packed weight of ct_q_linear_prepack (on the CPU)", fn);
    int64_t N = w->N, K = w->K, Kp = CT__CU_Q_R4(K), Np = CT__CU_Q_R4(N + 1), len = Np * Kp;
    if (K > INT32_MAX || N > INT32_MAX - 4 || (double)Np * (double)Kp > 4e18)
        return (ct_q_linear_packed *)ct__fail(CT_ERR_UNSUPPORTED, "%s: a weight of %lld x %lld is too large for CUDA", fn, (long long)N, (long long)K);
    ct_q_linear_packed *d = CT__NEW_ZEROED(ct_q_linear_packed);
    if (!d) return (ct_q_linear_packed *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", fn);
    d->N = N;
    d->K = K;
    d->K4 = Kp / 4;
    d->np = Np / 4;
    int ok = 0, s = ct_scope_begin();
    {
        ct_tensor *codes = ct_contiguous(ct_int_repr(w->weight)), *h = ct_zeros_n(CT_INT8, 1, &len);
        if (codes && h) {
            const int8_t *src = (const int8_t *)ct__ptr(codes);
            int8_t *dst = (int8_t *)ct__ptr(h);
            for (int64_t n = 0; n < N; n++) memcpy(dst + n * Kp, src + n * K, (size_t)K);
            for (int64_t k = 0; k < K; k++) dst[N * Kp + k] = 1;   /* the row of ones: the activations' row sums */
            ct_tensor *pk = ct_to_device(h, dev), *cs = ct_to_device(w->col_sums, dev), *sc = ct_to_device(w->scales, dev);
            ct_tensor *zp = ct_to_device(w->zero_points, dev), *b0 = ct_to_device(w->bias0, dev);
            if (pk && cs && sc && zp && b0) {
                d->weight = ct_retain(w->weight);
                d->bias = w->bias ? ct_retain(w->bias) : NULL;
                d->packed = ct_retain(pk);
                d->col_sums = ct_retain(cs);
                d->scales = ct_retain(sc);
                d->zero_points = ct_retain(zp);
                d->bias0 = ct_retain(b0);
                ok = 1;
            }
        }
    }
    ct_scope_end(s);
    if (!ok) {
        CT_FREE(d);
        return NULL;
    }
    return d;
}
/* ---- quantized conv2d on the device (quantized::conv2d, conv2d_relu) ----
   im2col into int8 then the same cuBLASLt int8 GEMM as the Linear, one product
   per group, and a requantisation kernel. The device packed weight (made by
   ct_cuda_q_conv_packed_to from ct_q_conv2d_prepack's) holds:
     weight       the qint8 weight [O, Cg, kh, kw] (contiguous; its parameters
                  are the CPU weight's), an input of the op for its shape;
     bias         float32 [O] on the device, or NULL;
     weight_sums  int32 [O]: each output channel's sum of codes;
     packed       int8 bytes: per group g the codes W_g row-major [Np][Kp]
                  (K = Cg kh kw in the NCHW weight's (c, i, j) order, Kp = K
                  rounded up to 4, Np = Og + 1 rounded up to 4, zero padding),
                  row Og all ones over k < K (the GEMM then gives each pixel's
                  sum of codes beside its outputs); then, 8-byte aligned, the
                  weight scales (double [O]) and zero points (int32 [O]).
   Depthwise convs (Cg = Og = 1) skip the GEMM: a direct kernel sums
   (x - zx)(w - zw) over each output's taps (the same integer a below).
   Per call: A_g[m, k] = x's code at pixel m's tap k minus 128 (x's zero point
   off the edges, as the CPU's im2col; 0 for K <= k < Kp), acc_g = A_g W_g^T in
   int32 (cuBLASLt, "TN"), and per output the CPU path's integer
       a = sum x w - zx wsum[o] + zw[o] (K zx - sum x)   (int64, exact)
   with sum x w = acc + 128 wsum[o], sum x = acc[., Og] + 128 K; then
   v = float(a) * float(sx sw[o]) + bias[o], requantised as the CPU's
   (ct__qg_requant), one float32 rounding each: the codes equal the CPU's.
   x: quint8 per tensor, contiguous NCHW on the device; the output is quint8
   NCHW contiguous (the CPU's is channels-last: the same values). */
#define CT__CU_QC_R8(v) (((v) + 7) / 8 * 8)
static int64_t ct__cu_qc_wbytes(int64_t G, int64_t Og, int64_t K) { return G * CT__CU_Q_R4(Og + 1) * CT__CU_Q_R4(K); }
static int64_t ct__cu_qc_plen(int64_t G, int64_t Og, int64_t K) { return CT__CU_QC_R8(ct__cu_qc_wbytes(G, Og, K)) + 12 * G * Og; }
typedef struct ct__cu_qc_geom { int64_t N, C, H, W, O, Cg, Og, G, kh, kw, sh, sw, ph, pw, dh, dw, OH, OW, K, Kp, Np, M; } ct__cu_qc_geom;
/* a[g][m][k]: the im2col rows of group g as int8 (code - 128) */
__global__ void ct__cu_qc_im2col_kernel(const uint8_t *x, int8_t *a, ct__cu_qc_geom q, int32_t zx) {
    const int64_t per = q.M * q.Kp, total = q.G * per, khw = q.kh * q.kw;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t g = i / per, r = i % per, m = r / q.Kp, k = r % q.Kp;
        int v = 128;
        if (k < q.K) {
            int64_t c = k / khw, t = k % khw, ki = t / q.kw, kj = t % q.kw;
            int64_t n = m / (q.OH * q.OW), p = m % (q.OH * q.OW), oh = p / q.OW, ow = p % q.OW;
            int64_t ih = oh * q.sh - q.ph + ki * q.dh, iw = ow * q.sw - q.pw + kj * q.dw;
            v = ih >= 0 && ih < q.H && iw >= 0 && iw < q.W ? (int)x[((n * q.C + g * q.Cg + c) * q.H + ih) * q.W + iw] : (int)zx;
        }
        a[i] = (int8_t)(v - 128);
    }
}
/* one output code from a = sum (x - zx)(w - zw) over the channel's taps: the
   CPU's float32 epilogue (ct__qo_requant, ct__qg_requant), one rounding each */
__device__ __forceinline__ uint8_t ct__cu_qc_out(int64_t a, double sx, double sw, float bias, float inv, float ozp, float lo) {
    float mult = (float)(sx * sw);
    float v = __fadd_rn(__fmul_rn((float)a, mult), bias);
    float t = __fmul_rn(v, inv);
    t = t > -1024.f ? t : -1024.f;   /* NaN gives -1024, so lo, as on the CPU */
    t = t < 1024.f ? t : 1024.f;
    t = __fadd_rn(rintf(t), ozp);
    t = t > lo ? t : lo;
    t = t < 255.f ? t : 255.f;
    return (uint8_t)(int32_t)t;
}
/* y (NCHW) from acc[g][m][Np] */
__global__ void ct__cu_qc_requant_kernel(const int32_t *acc, uint8_t *y, ct__cu_qc_geom q, const int32_t *wsum, const double *wscale, const int32_t *wzp,
                                         int per_channel, const float *bias, double sx, int32_t zx, float inv, float ozp, float lo) {
    const int64_t total = q.N * q.O * q.OH * q.OW, hw = q.OH * q.OW;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t p = i % hw, o = (i / hw) % q.O, n = i / (hw * q.O), g = o / q.Og, j = o % q.Og, ch = per_channel ? o : 0;
        const int32_t *row = acc + (g * q.M + n * hw + p) * q.Np;
        int64_t sxw = (int64_t)row[j] + 128 * (int64_t)wsum[o], xs = (int64_t)row[q.Og] + 128 * q.K;
        int64_t a = sxw - (int64_t)zx * wsum[o] + (int64_t)wzp[ch] * (q.K * (int64_t)zx - xs);
        y[i] = ct__cu_qc_out(a, sx, wscale[ch], bias ? bias[o] : 0.0f, inv, ozp, lo);
    }
}
/* depthwise (Cg = Og = 1): a thread per output, a = sum over the kh kw taps of
   (x - zx)(w - zw) directly (x's zero point off the edges: those taps add 0);
   w: the packed weight's row 0 of each group */
__global__ void ct__cu_qc_dw_kernel(const uint8_t *x, const int8_t *pk, uint8_t *y, ct__cu_qc_geom q, const double *wscale, const int32_t *wzp,
                                    int per_channel, const float *bias, double sx, int32_t zx, float inv, float ozp, float lo) {
    const int64_t total = q.N * q.O * q.OH * q.OW, hw = q.OH * q.OW;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t p = i % hw, o = (i / hw) % q.O, n = i / (hw * q.O), oh = p / q.OW, ow = p % q.OW, ch = per_channel ? o : 0;
        const int8_t *w = pk + o * q.Np * q.Kp;
        const uint8_t *xc = x + (n * q.C + o) * q.H * q.W;
        int64_t a = 0, zw = wzp[ch];
        for (int64_t ki = 0; ki < q.kh; ki++) {
            int64_t ih = oh * q.sh - q.ph + ki * q.dh;
            if (ih < 0 || ih >= q.H) continue;
            for (int64_t kj = 0; kj < q.kw; kj++) {
                int64_t iw = ow * q.sw - q.pw + kj * q.dw;
                if (iw >= 0 && iw < q.W) a += ((int64_t)xc[ih * q.W + iw] - zx) * ((int64_t)w[ki * q.kw + kj] - zw);
            }
        }
        y[i] = ct__cu_qc_out(a, sx, wscale[ch], bias ? bias[o] : 0.0f, inv, ozp, lo);
    }
}
/* inputs (x, w[, bias], packed, weight_sums), all on one device */
static int ct__cu_qc_meta(ct__call *c) {
    const char *op = ct__opdef_get(c->op)->sname;
    const ct__attrs *a = c->a;
    if (c->nin < 4 || c->nin > 5)
        return ct__failed(CT_ERR_ARG, "%s: a device input takes a device packed weight (make it with ct_cuda_q_conv_packed_to)", op);
    const ct_tensor *x = c->in[0], *w = c->in[1], *b = c->nin == 5 ? c->in[2] : NULL, *pk = c->in[c->nin - 2], *ws = c->in[c->nin - 1];
    if (x->dtype != CT_QUINT8)
        return ct__failed(CT_ERR_DTYPE, "%s: expected a quint8 input (a quantized activation), got %s", op, CT__DTNAME(x->dtype));
    if (!x->qparams || x->qparams->nchannels)
        return ct__failed(CT_ERR_ARG, "%s: the input must be quantized per tensor on CUDA", op);
    if (w->dtype != CT_QINT8 || !w->qparams || w->ndim != 4 || (w->qparams->nchannels && w->qparams->nchannels != w->shape[0]))
        return ct__failed(CT_ERR_ARG, "%s: malformed packed weight on CUDA (make it with ct_cuda_q_conv_packed_to)", op);
    if (x->ndim != 4) return ct__failed(CT_ERR_SHAPE, "%s: expected a 4-D input (N, C, H, W), got %s", op, CT__SHAPE(x));
    int64_t O = w->shape[0], G = a->i[1];
    if (G <= 0 || O % G) return ct__failed(CT_ERR_ARG, "%s: the output channels (%lld) must be divisible by groups (%lld)", op, (long long)O, (long long)G);
    int64_t K = w->shape[1] * w->shape[2] * w->shape[3];
    if (pk->dtype != CT_INT8 || pk->ndim != 1 || !ct__is_contig(pk) || pk->shape[0] != ct__cu_qc_plen(G, O / G, K) || ws->dtype != CT_INT32 ||
        ws->ndim != 1 || ws->shape[0] != O || !ct__is_contig(ws) || (b && (b->dtype != CT_FLOAT32 || b->ndim != 1 || b->shape[0] != O || !ct__is_contig(b))) ||
        K > INT32_MAX)
        return ct__failed(CT_ERR_ARG, "%s: malformed packed weight on CUDA (make it with ct_cuda_q_conv_packed_to)", op);
    for (int q = 0; q < 2; q++)
        if (a->v[q] <= 0 || a->v[2 + q] < 0 || a->v[4 + q] <= 0)
            return ct__failed(CT_ERR_ARG, "%s: invalid geometry (stride %lld, padding %lld, dilation %lld)", op, (long long)a->v[q],
                              (long long)a->v[2 + q], (long long)a->v[4 + q]);
    if (x->shape[1] != w->shape[1] * G)
        return ct__failed(CT_ERR_SHAPE, "%s: Given groups=%lld, weight of size %s, expected input%s to have %lld channels, but got %lld channels instead",
                          op, (long long)G, CT__SHAPE(w), CT__SHAPE(x), (long long)(w->shape[1] * G), (long long)x->shape[1]);
    int64_t os[2];
    for (int q = 0; q < 2; q++) {
        os[q] = ct__pool_out(x->shape[2 + q], w->shape[2 + q], a->v[2 + q], a->v[q], a->v[4 + q], 0);
        if (os[q] < 1)
            return ct__failed(CT_ERR_SHAPE, "%s: the padded input %s is smaller than the dilated kernel %s (output size %lld)", op,
                              CT__SHAPE(x), CT__SHAPE(w), (long long)os[q]);
    }
    if (ct__q_check_params(op, a->s[0], a->i[0], CT_QUINT8, -1)) return -1;
    if (!ct__is_contig(x))
        return ct__failed(CT_ERR_UNSUPPORTED, "%s: the input must be contiguous (NCHW) on CUDA (got the strides of a view or channels-last)", op);
    if (x->shape[0] * os[0] * os[1] > INT32_MAX)
        return ct__failed(CT_ERR_UNSUPPORTED, "%s: more than 2^31-1 output pixels are not supported on CUDA", op);
    int64_t shape[4] = {x->shape[0], O, os[0], os[1]};
    ct__out_new(c, CT_QUINT8, 4, shape);
    return 0;
}
static int ct__cu_qc_k(ct__call *c) {
    const char *op = ct__opdef_get(c->op)->sname;
    const ct__attrs *at = c->a;
    const ct_tensor *x = c->in[0], *w = c->in[1], *b = c->nin == 5 ? c->in[2] : NULL, *pk = c->in[c->nin - 2], *ws = c->in[c->nin - 1];
    ct_tensor *y = c->out[0];
    ct_qparams *qp = ct_qparams_per_tensor(at->s[0], at->i[0], CT_PER_TENSOR_AFFINE);
    if (!qp) return -1;
    ct_status qst = ct_set_qparams(y, qp);
    ct_qparams_release(qp);
    if (qst != CT_OK) return -1;
    if (ct_numel(y) == 0) return 0;
    ct__cu_qc_geom q;
    q.N = x->shape[0]; q.C = x->shape[1]; q.H = x->shape[2]; q.W = x->shape[3];
    q.O = w->shape[0]; q.Cg = w->shape[1]; q.kh = w->shape[2]; q.kw = w->shape[3];
    q.G = at->i[1]; q.Og = q.O / q.G;
    q.sh = at->v[0]; q.sw = at->v[1]; q.ph = at->v[2]; q.pw = at->v[3]; q.dh = at->v[4]; q.dw = at->v[5];
    q.OH = y->shape[2]; q.OW = y->shape[3];
    q.K = q.Cg * q.kh * q.kw; q.Kp = CT__CU_Q_R4(q.K); q.Np = CT__CU_Q_R4(q.Og + 1); q.M = q.N * q.OH * q.OW;
    int dev = x->device.index, rc = 0;
    ct__cu_guard guard(dev, op);
    if (!guard.ok) return -1;
    ct_tensor *ptmp = NULL;   /* the packed bytes 16-byte aligned: its doubles and cuBLASLt's operand */
    const int8_t *pkp = ct__cu_q_aligned(op, pk, &ptmp);
    if (!pkp) return -1;
    const int64_t soff = CT__CU_QC_R8(ct__cu_qc_wbytes(q.G, q.Og, q.K));
    const ct_qparams *xq = x->qparams;
    const float *bp = b ? (const float *)ct__ptr(b) : (const float *)NULL;
    const double *wsc = (const double *)(const void *)(pkp + soff);
    const int32_t *wzp = (const int32_t *)(const void *)(pkp + soff + 8 * q.O);
    const int pc = w->qparams->nchannels != 0, relu = c->op == CT__QOP(QCONV2D_RELU);
    if (q.Cg == 1 && q.Og == 1) {   /* depthwise: the direct kernel (no G small products) */
        CT__CU_LAUNCH(ct__cu_q_blocks(ct_numel(y)), CT__CU_THREADS,
                      ((const uint8_t *)ct__ptr(x), pkp, (uint8_t *)ct__ptr(y), q, wsc, wzp, pc, bp, xq->scale, (int32_t)xq->zero_point,
                       1.0f / (float)at->s[0], (float)at->i[0], relu ? (float)at->i[0] : 0.f),
                      ct__cu_qc_dw_kernel);
        rc = ct__cu_launched(op);
        if (ptmp) ct__decref(ptmp);
        return rc;
    }
    int64_t na = q.G * q.M * (q.Kp ? q.Kp : 1), nacc = q.G * q.M * q.Np;
    ct_tensor *A = ct__alloc(CT_INT8, 1, &na, NULL, x->device), *acc = A ? ct__alloc(CT_INT32, 1, &nacc, NULL, x->device) : NULL;
    if (!A || !acc) {
        if (A) ct__decref(A);
        if (ptmp) ct__decref(ptmp);
        return -1;
    }
    cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
    const char *what = NULL;
    {
        if (q.Kp == 0) {   /* no taps: the sums are 0 */
            cudaError_t e = cudaMemsetAsync(ct__ptr(acc), 0, (size_t)nacc * sizeof(int32_t), ct__cu_cur_stream());
            if (e != cudaSuccess) rc = ct__cu_fail(op, e);
        } else if (!rc) {
            CT__CU_LAUNCH(ct__cu_q_blocks(q.G * q.M * q.Kp), CT__CU_THREADS, ((const uint8_t *)ct__ptr(x), (int8_t *)ct__ptr(A), q,
                                                                               (int32_t)x->qparams->zero_point), ct__cu_qc_im2col_kernel);
            rc = ct__cu_launched(op);
        }
        if (!rc && q.Kp) {   /* per group: acc_g = A_g W_g^T, as the Linear's */
            s = ct__cu_q_lt_gemm(dev, q.G, pkp, q.Np * q.Kp, (const int8_t *)ct__ptr(A), q.M * q.Kp, (int32_t *)ct__ptr(acc), q.M * q.Np, q.Kp, q.Np,
                                 q.M, &what);
            if (s != CUBLAS_STATUS_SUCCESS) rc = -1;
        }
        if (!rc) {
            CT__CU_LAUNCH(ct__cu_q_blocks(ct_numel(y)), CT__CU_THREADS,
                          ((const int32_t *)ct__ptr(acc), (uint8_t *)ct__ptr(y), q, (const int32_t *)ct__ptr(ws), wsc, wzp, pc, bp, xq->scale,
                           (int32_t)xq->zero_point, 1.0f / (float)at->s[0], (float)at->i[0], relu ? (float)at->i[0] : 0.f),
                          ct__cu_qc_requant_kernel);
            rc = ct__cu_launched(op);
        }
    }
    ct__decref(A);   /* the allocator keeps the blocks for the stream's later work */
    ct__decref(acc);
    if (ptmp) ct__decref(ptmp);
    if (what) return ct__failed(CT_ERR_DEVICE, "%s: cuBLASLt error: %s (%s)", op, cublasGetStatusString(s), what);
    return rc;
}
CTENSOR_API ct_q_conv_packed *ct_cuda_q_conv_packed_to(const ct_q_conv_packed *w, ct_device dev) {
    const char *fn = "ct_cuda_q_conv_packed_to";
    if (ct__cu_packed_to_args(fn, w, dev)) return NULL;
    const ct_tensor *wt = w->weight;
    if (!wt || wt->device.type != CT_CPU || wt->dtype != CT_QINT8 || !wt->qparams || wt->ndim != 4 || w->groups <= 0 || wt->shape[0] % w->groups ||
        (w->bias && (w->bias->device.type != CT_CPU || w->bias->dtype != CT_FLOAT32)))
        return (ct_q_conv_packed *)ct__fail(CT_ERR_ARG, "%s: expected a packed weight of ct_q_conv2d_prepack (on the CPU)", fn);
    const ct_qparams *wq = wt->qparams;
    int64_t O = wt->shape[0], G = w->groups, Og = O / G, K = wt->shape[1] * wt->shape[2] * wt->shape[3], Kp = CT__CU_Q_R4(K), Np = CT__CU_Q_R4(Og + 1);
    if (K > INT32_MAX || Og > INT32_MAX - 4 || (double)G * (double)Np * (double)Kp > 4e18)
        return (ct_q_conv_packed *)ct__fail(CT_ERR_UNSUPPORTED, "%s: a weight of shape %s is too large for CUDA", fn, CT__SHAPE(wt));
    ct_q_conv_packed *d = CT__NEW_ZEROED(ct_q_conv_packed);
    if (!d) return (ct_q_conv_packed *)ct__fail(CT_ERR_MEMORY, "%s: out of memory", fn);
    int64_t len = ct__cu_qc_plen(G, Og, K), soff = CT__CU_QC_R8(ct__cu_qc_wbytes(G, Og, K));
    int ok = 0, sc = ct_scope_begin();
    {
        ct_tensor *wc = ct_contiguous(wt), *codes = wc ? ct_contiguous(ct_int_repr(wc)) : NULL, *h = ct_zeros_n(CT_INT8, 1, &len);
        ct_tensor *hs = ct_zeros_n(CT_INT32, 1, &O);
        if (codes && h && hs) {
            const int8_t *src = (const int8_t *)ct__ptr(codes);
            int8_t *dst = (int8_t *)ct__ptr(h);
            int32_t *sums = (int32_t *)ct__ptr(hs);
            for (int64_t g = 0; g < G; g++) {
                int8_t *wg = dst + g * Np * Kp;
                for (int64_t j = 0; j < Og; j++) {
                    const int8_t *r = src + (g * Og + j) * K;
                    int32_t sm = 0;
                    for (int64_t k = 0; k < K; k++) sm += r[k];
                    memcpy(wg + j * Kp, r, (size_t)K);
                    sums[g * Og + j] = sm;
                }
                for (int64_t k = 0; k < K; k++) wg[Og * Kp + k] = 1;   /* the row of ones: the pixels' sums of codes */
            }
            for (int64_t o = 0; o < O; o++) {
                double sw = wq->nchannels ? wq->scales[o] : wq->scale;
                int32_t zw = (int32_t)(wq->nchannels ? wq->zero_points[o] : wq->zero_point);
                memcpy(dst + soff + 8 * o, &sw, sizeof sw);
                memcpy(dst + soff + 8 * O + 4 * o, &zw, sizeof zw);
            }
            ct_tensor *wd = ct_to_device(wc, dev), *pd = ct_to_device(h, dev), *sd = ct_to_device(hs, dev);
            ct_tensor *bd = w->bias ? ct_to_device(ct_contiguous(w->bias), dev) : NULL;
            if (wd && pd && sd && (!w->bias || bd)) {
                d->weight = ct_retain(wd);
                d->bias = bd ? ct_retain(bd) : NULL;
                d->packed = ct_retain(pd);
                d->weight_sums = ct_retain(sd);
                d->version = ct_version(wd);
                ok = 1;
            }
        }
    }
    ct_scope_end(sc);
    if (!ok) {
        CT_FREE(d);
        return NULL;
    }
    for (int q = 0; q < 2; q++) { d->stride[q] = w->stride[q]; d->padding[q] = w->padding[q]; d->dilation[q] = w->dilation[q]; }
    d->groups = G;
    return d;
}
/* aten::_to_copy of a quantized tensor between the host and a device (or two
   devices): the codes byte for byte (no dtype change), the parameters shared;
   contiguous sources only (a view is an error naming the op) */
static int ct__cu_q_meta_to(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    const ct_tensor *x = c->in[0];
    if (c->a->dtype != x->dtype)
        return ct__failed(CT_ERR_DTYPE, "%s: a quantized tensor (%s) moves between devices without a dtype change (got %s)", op, CT__DTNAME(x->dtype),
                          CT__DTNAME(c->a->dtype));
    if (!x->qparams) return ct__failed(CT_ERR_ARG, "%s: the quantized tensor has no parameters", op);
    if (!ct__is_contig(x)) return ct__failed(CT_ERR_UNSUPPORTED, "%s: a quantized tensor moves to or from CUDA only when contiguous", op);
    ct__out_new(c, x->dtype, x->ndim, x->shape);
    return 0;
}
static int ct__cu_q_k_to(ct__call *c) {
    const char *op = CT__CU_OPNAME(c);
    const ct_tensor *x = c->in[0];
    ct_tensor *y = c->out[0];
    if (ct_set_qparams(y, x->qparams) != CT_OK) return -1;
    size_t n = (size_t)ct_numel(x) * ct_dtype_size(x->dtype);
    if (!n) return 0;
    int dev = ct__cu_call_device(c), host = x->device.type == CT_CPU || y->device.type == CT_CPU;
    ct__cu_guard guard(dev, op);
    if (!guard.ok) return -1;
    cudaMemcpyKind k = x->device.type == CT_CPU ? cudaMemcpyHostToDevice : y->device.type == CT_CPU ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice;
    cudaError_t e = cudaMemcpyAsync(ct__ptr(y), ct__ptr(x), n, k, ct__cu_cur_stream());
    if (e == cudaSuccess && host) e = cudaStreamSynchronize(ct__cu_cur_stream());   /* the host side is usable on return */
    return e == cudaSuccess ? 0 : ct__cu_fail(op, e);
}
static void ct__cu_q_register(void) {
    ct_register_backend_op(ct__opdef_get(CT__OP_TO)->sname, CT_BACKEND_QUANTIZED_CUDA, ct__cu_q_meta_to, ct__cu_q_k_to);
    ct__q_register_now();
    if (ct__q_base < 0) return;
    static const int ops[] = {CT__Q_Q_LINEAR, CT__Q_Q_LINEAR_RELU};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        ct_register_backend_op(ct__q_defs[ops[k]].sname, CT_BACKEND_QUANTIZED_CUDA, ct__cu_q_meta_linear, ct__cu_q_k_linear);
    /* a float32 input: the CUDA backend's slot (the CPU table's op, the device's meta) */
    ct_register_backend_op(ct__q_defs[CT__Q_Q_LINEAR_DYNAMIC].sname, CT_BACKEND_CUDA, ct__cu_q_meta_linear, ct__cu_q_k_linear);
    static const int convs[] = {CT__Q_QCONV2D, CT__Q_QCONV2D_RELU};
    for (size_t k = 0; k < sizeof convs / sizeof convs[0]; k++)
        ct_register_backend_op(ct__q_defs[convs[k]].sname, CT_BACKEND_QUANTIZED_CUDA, ct__cu_qc_meta, ct__cu_qc_k);
}
#else
static void ct__cu_q_register(void) {}
#endif /* CTENSOR_QUANT_IMPLEMENTATION_DONE */

/* ============================================================================
   Transformer fastpath: fused attention (ctensor_nn.h's fused ops, when it is
   included first)
   ct::multi_head_self_attention_fwd and ct::transformer_encoder_layer_fwd on
   device tensors: the projections and feed-forward GEMMs through cuBLAS
   (ct_linear), LayerNorm, relu / gelu and the residual adds through their
   device kernels, and attention in one kernel, ct__cu_attn_kernel: a block of
   CT__CU_ATT_QT threads per (sequence, head, tile of CT__CU_ATT_QT queries),
   one thread per query row; keys and values come through shared memory in
   tiles of KT rows (their in_proj bias added there); scores, the tile's
   maximum and an online softmax (running maximum, running sum, the output
   rescaled per tile) stay in the thread; the key padding mask, the causal
   mask and a nested batch's sequence ends are applied in the tile, so no B x
   H x S x S matrix is formed. Q is scaled by 1/sqrt(head_dim) after its bias,
   as the CPU path does; a query with no key left gives NaN, as there. mask
   types: none, padding (a bool [B, S] mask on the device), nested (packed
   tokens, int64 offsets [B + 1] on the device, read back to check them as the
   CPU does); the KV-cache mode is not supported on CUDA (an error naming the
   op). A head dimension above CT__CU_ATT_HD runs the same math through
   device ops (scores, masks, softmax, a product: a [B, H, S, S] matrix).
   ctensor_nn.h's modules still send device inputs to the regular path (their
   fastpath check refuses devices); these kernels serve direct calls of the
   fused ops (ct_dispatch by name) until that check learns of them.
   Compiled by nvcc; run only on the emulator, not yet on a GPU.
   ========================================================================== */
#ifdef CTENSOR_NN_IMPLEMENTATION_DONE
#define CT__CU_ATT_QT 32    /* queries per block (one thread each) */
#define CT__CU_ATT_HD 128   /* largest head dimension of the kernel */
/* qkv [rows, 3E] (q | k | v, head h at columns h * hd), bias [3E] (NULL: none),
   out [rows, E]. Sequence b: rows off[b] .. off[b + 1] (nested) or b * S ..
   (b + 1) * S; kpm [B, S] (padded only; nonzero: a padding key). */
template <typename T, int KT>
__global__ void __launch_bounds__(CT__CU_ATT_QT) ct__cu_attn_kernel(const T *qkv, const T *bias, T *out, int64_t B, int64_t H, int64_t hd, int64_t S,
                                                                   const int64_t *off, const uint8_t *kpm, int causal, double scale) {
    __shared__ T ks[KT][CT__CU_ATT_HD], vs[KT][CT__CU_ATT_HD];
    __shared__ int skip[KT];
    const int64_t E = H * hd, ld = 3 * E, nqt = (S + CT__CU_ATT_QT - 1) / CT__CU_ATT_QT;
    const int64_t blk = blockIdx.x, qt = blk % nqt, h = (blk / nqt) % H, b = blk / (nqt * H);
    const int tid = (int)threadIdx.x;
    const int64_t row0 = off ? off[b] : b * S, L = off ? off[b + 1] - off[b] : S, i = qt * CT__CU_ATT_QT + tid;
    if (b >= B || qt * CT__CU_ATT_QT >= L) return;   /* the whole block: no query here */
    const bool active = i < L;
    T q[CT__CU_ATT_HD], o[CT__CU_ATT_HD], sc[KT];
    for (int64_t d = 0; d < hd; d++) {
        q[d] = active ? (qkv[(row0 + i) * ld + h * hd + d] + (bias ? bias[h * hd + d] : (T)0)) * (T)scale : (T)0;
        o[d] = (T)0;
    }
    T m = -(T)INFINITY, l = (T)0;
    int64_t last = qt * CT__CU_ATT_QT + CT__CU_ATT_QT;   /* causal: no key after the tile's last query */
    const int64_t nk = causal && last < L ? last : L;
    for (int64_t k0 = 0; k0 < nk; k0 += KT) {
        __syncthreads();   /* the previous tile is read */
        for (int64_t e = tid; e < (int64_t)KT * hd; e += CT__CU_ATT_QT) {
            int64_t j = e / hd, d = e % hd, key = k0 + j;
            if (key < nk) {
                const T *r = qkv + (row0 + key) * ld + h * hd + d;
                ks[j][d] = r[E] + (bias ? bias[E + h * hd + d] : (T)0);
                vs[j][d] = r[2 * E] + (bias ? bias[2 * E + h * hd + d] : (T)0);
            }
        }
        for (int64_t j = tid; j < KT; j += CT__CU_ATT_QT) skip[j] = k0 + j >= nk || (kpm && kpm[b * S + k0 + j]);
        __syncthreads();
        if (!active) continue;
        const int kn = (int)(nk - k0 < KT ? nk - k0 : KT);
        T mt = -(T)INFINITY;
        for (int j = 0; j < kn; j++) {
            if (skip[j] || (causal && k0 + j > i)) { sc[j] = -(T)INFINITY; continue; }
            T s = (T)0;
            for (int64_t d = 0; d < hd; d++) s += q[d] * ks[j][d];
            sc[j] = s;
            mt = s > mt ? s : mt;
        }
        if (mt == -(T)INFINITY) continue;   /* every key of the tile masked */
        T mn = mt > m ? mt : m, corr = exp(m - mn);
        l *= corr;
        for (int64_t d = 0; d < hd; d++) o[d] *= corr;
        for (int j = 0; j < kn; j++) {
            if (sc[j] == -(T)INFINITY) continue;
            T p = exp(sc[j] - mn);
            l += p;
            for (int64_t d = 0; d < hd; d++) o[d] += p * vs[j][d];
        }
        m = mn;
    }
    if (!active) return;
    T inv = l > (T)0 ? (T)1 / l : (T)NAN;
    for (int64_t d = 0; d < hd; d++) out[(row0 + i) * E + h * hd + d] = o[d] * inv;
}
/* attention of qkv [rows, 3E] into at [rows, E] (contiguous device tensors) */
static int ct__cu_attn(const char *op, const ct_tensor *qkv, const ct_tensor *bias, ct_tensor *at, int64_t B, int64_t H, int64_t S,
                       const ct_tensor *off, const ct_tensor *kpm, int causal) {
    int64_t E = at->shape[at->ndim - 1], hd = E / H, nqt = (S + CT__CU_ATT_QT - 1) / CT__CU_ATT_QT, blocks = B * H * nqt;
    if (blocks == 0) return 0;
    int dev = at->device.index;
    ct__cu_guard guard(dev, op);
    if (!guard.ok) return -1;
    double scale = 1.0 / sqrt((double)hd);
    const int64_t *op_ = off ? (const int64_t *)ct__ptr(off) : NULL;
    const uint8_t *kp = kpm ? (const uint8_t *)ct__ptr(kpm) : NULL;
    if (blocks > INT32_MAX) return ct__failed(CT_ERR_UNSUPPORTED, "%s: %lld attention blocks are too many for one CUDA grid", op, (long long)blocks);
    if (at->dtype == CT_FLOAT32) {
        CT__CU_LAUNCH((unsigned)blocks, CT__CU_ATT_QT, ((const float *)ct__ptr(qkv), bias ? (const float *)ct__ptr(bias) : (const float *)NULL, (float *)ct__ptr(at),
                                                       B, H, hd, S, op_, kp, causal, scale), ct__cu_attn_kernel<float, 32>);
    } else {
        CT__CU_LAUNCH((unsigned)blocks, CT__CU_ATT_QT, ((const double *)ct__ptr(qkv), bias ? (const double *)ct__ptr(bias) : (const double *)NULL,
                                                       (double *)ct__ptr(at), B, H, hd, S, op_, kp, causal, scale), ct__cu_attn_kernel<double, 16>);
    }
    return ct__cu_launched(op);
}
/* the same attention through device ops, for head dimensions above the kernel's
   (a [B, H, S, S] score matrix); padded batches only (nested ones are padded first) */
static ct_tensor *ct__cu_attn_ops(const ct_tensor *qkv, const ct_tensor *bias, int64_t B, int64_t H, int64_t S, const ct_tensor *kpm, int causal) {
    int64_t E = qkv->shape[qkv->ndim - 1] / 3, hd = E / H, sh5[5] = {B, S, 3, H, hd}, sh3[3] = {B, S, E};
    ct_tensor *x = ct_reshape_n(bias ? ct_add(qkv, bias) : qkv, 5, sh5);
    ct_tensor *q = ct_mul_scalar(ct_transpose(ct_select(x, 2, 0), 1, 2), 1.0 / sqrt((double)hd));
    ct_tensor *k = ct_transpose(ct_select(x, 2, 1), 1, 2), *v = ct_transpose(ct_select(x, 2, 2), 1, 2);
    ct_tensor *s = ct_matmul(q, ct_mT(k));   /* [B, H, S, S] */
    if (kpm) s = ct_masked_fill(s, ct_unsqueeze(ct_unsqueeze(kpm, 1), 1), -INFINITY);
    if (causal) s = ct_masked_fill(s, ct_gt_scalar(ct_triu(ct_ones_like(ct_select(ct_select(s, 0, 0), 0, 0)), 1), 0.5), -INFINITY);
    ct_tensor *p = ct_softmax(s, -1);
    return ct_reshape_n(ct_transpose(ct_matmul(p, v), 1, 2), 3, sh3);
}
/* attention rows at [rows, E] from x [rows, E]: the qkv GEMM (bias added in the kernel), the kernel */
static ct_tensor *ct__cu_tf_attend(const char *op, const ct_tensor *x, const ct_tensor *w, const ct_tensor *bias, int64_t B, int64_t H, int64_t S,
                                   const ct_tensor *off, const ct_tensor *kpm, int causal) {
    int64_t E = x->shape[x->ndim - 1];
    ct_tensor *qkv = ct_contiguous(ct_linear(x, w, NULL));
    if (!qkv) return NULL;
    if (E / H > CT__CU_ATT_HD && !off) {
        int64_t sh2[2] = {B * S, E};
        return ct_reshape_n(ct__cu_attn_ops(qkv, bias, B, H, S, kpm, causal), 2, sh2);
    }
    if (E / H > CT__CU_ATT_HD) {
        ct__failed(CT_ERR_UNSUPPORTED, "%s: a nested batch with head dimension %lld (above %d) is not supported on CUDA", op, (long long)(E / H), CT__CU_ATT_HD);
        return NULL;
    }
    int64_t sh[2] = {ct_numel(x) / E, E};
    ct_tensor *at = ct_empty_on_n(x->device, x->dtype, 2, sh);
    ct_tensor *bc = bias ? ct_contiguous(bias) : NULL;
    ct_tensor *kc = kpm ? ct_contiguous(kpm) : NULL;
    if (!at || (bias && !bc) || (kpm && !kc) || ct__cu_attn(op, qkv, bc, at, B, H, S, off, kc, causal)) return NULL;
    return at;
}
static int ct__cu_tf_into(ct_tensor *out, const ct_tensor *r) { return r && ct_copy_(out, r) ? 0 : -1; }
/* ---- the encoder layer's fused epilogues ----
   residual + LayerNorm: LN(x + r) in one pass over the rows (layer_norm's kernel
   reading r beside x), x + r also written to *sum when sum is not NULL (the
   norm_first layer keeps it); bias + activation: y = act(y + b) in place over
   the feed-forward GEMM's output [rows, F] (the GEMM runs without its bias).
   Inference only (the fused op's kernel runs without autograd); x, r, y
   contiguous [rows, E] of the layer's dtype, g, b, bias of that dtype on the
   same device. */
static ct_tensor *ct__cu_tf_add_ln(const char *op, const ct_tensor *x, const ct_tensor *r, const ct_tensor *g, const ct_tensor *b, double eps,
                                   ct_tensor **sum) {
    ct_tensor *xc = ct_contiguous(x), *rc_ = r ? ct_contiguous(r) : NULL, *gc = ct_contiguous(g), *bc = ct_contiguous(b);
    ct_tensor *y = xc ? ct_empty_on_n(x->device, x->dtype, x->ndim, x->shape) : NULL;
    ct_tensor *sm = sum && y ? ct_empty_on_n(x->device, x->dtype, x->ndim, x->shape) : NULL;
    if (!xc || (r && !rc_) || !gc || !bc || !y || (sum && !sm)) return NULL;
    ct__cu_nnp p;
    ct__cu_nnp_init(&p, x->dtype);
    p.N = x->shape[x->ndim - 1];
    p.M = p.N ? ct_numel(x) / p.N : 0;
    p.eps = eps;
    p.x = (const char *)ct__ptr(xc);
    p.res = rc_ ? (const char *)ct__ptr(rc_) : NULL;
    p.sum = sm ? (char *)ct__ptr(sm) : NULL;
    p.w = (const char *)ct__ptr(gc);
    p.b = (const char *)ct__ptr(bc);
    p.y = (char *)ct__ptr(y);
    p.lanes = p.N >= 1024 ? CT__CU_THREADS : 32;
    int rc = 0;
    if (p.M > 0) CT__CU_NN_RUN(rc, op, x->device.index, ct__cu_ln_fwd, ct__cu_blocks(p.M, CT__CU_THREADS / p.lanes, x->device.index), p);
    if (rc) return NULL;
    if (sum) *sum = sm;
    return y;
}
__device__ __forceinline__ float ct__cu_act(float v, int64_t a) { return a == 1 ? (v > 0.0f ? v : (v == v ? 0.0f : v)) : a == 2 ? ct__cu_dev::ct__geluf(v, 0) : v; }
__device__ __forceinline__ double ct__cu_act(double v, int64_t a) { return a == 1 ? (v > 0.0 ? v : (v == v ? 0.0 : v)) : a == 2 ? ct__cu_dev::ct__gelu(v, 0) : v; }
/* y[i][j] = act(y[i][j] + b[j]) over M rows of N; p.C: 1 relu, 2 gelu */
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_bias_act_kernel(const ct__cu_nnp p) {
    using namespace ct__cu_dev;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.M * p.N; i += (int64_t)gridDim.x * blockDim.x) {
        char *q = p.y + i * p.es;
        st<C>(q, p.dt, ct__cu_act(ld<C>(q, p.dt) + ld<C>(p.b + (i % p.N) * p.es, p.dt), p.C));
    }
}
/* the feed-forward's first layer: act(x w^T + bias), the GEMM without its bias, then
   one pass for the bias and the activation */
static ct_tensor *ct__cu_tf_linear_act(const char *op, const ct_tensor *x, const ct_tensor *w, const ct_tensor *bias, int gelu) {
    ct_tensor *h = ct_contiguous(ct_linear(x, w, NULL)), *bc = ct_contiguous(bias);
    if (!h || !bc) return NULL;
    ct__cu_nnp p;
    ct__cu_nnp_init(&p, h->dtype);
    p.N = h->shape[h->ndim - 1];
    p.M = p.N ? ct_numel(h) / p.N : 0;
    p.C = gelu ? 2 : 1;
    p.y = (char *)ct__ptr(h);
    p.b = (const char *)ct__ptr(bc);
    int rc = 0;
    if (p.M * p.N > 0) CT__CU_NN_RUN(rc, op, h->device.index, ct__cu_bias_act_kernel, ct__cu_blocks(p.M * p.N, CT__CU_THREADS, h->device.index), p);
    return rc ? NULL : h;
}
/* the fused ops' kernel: in a scope, autograd off (inference only) */
static int ct__cu_k_tf_body(ct__call *c) {
    const char *op = ct__opdef_get(c->op)->name;
    int mha = c->op == ct__nn_op_id(CT__NN_TF_MHA), mt = c->a->mode;
    ct_tensor *const *in = c->in;
    const ct_tensor *x = in[0];
    int64_t H = c->a->i[0], E = x->shape[x->ndim - 1], B, S;
    const ct_tensor *kpm = NULL, *off = NULL;
    if (!mha && mt == CT__TFM_CACHE)
        return ct__failed(CT_ERR_UNSUPPORTED, "%s: the KV-cache mode is not supported on CUDA yet", op);
    if (!mha && mt == CT__TFM_NESTED) {   /* the CPU's checks of the offsets (read back) */
        ct_tensor *oh = ct_to_device(in[13], ct_cpu());
        if (!oh) return -1;
        const int64_t *o = (const int64_t *)ct_data_ptr(oh);
        int64_t T = x->shape[0];
        B = in[13]->shape[0] - 1;
        S = 0;
        if (o[0] != 0 || o[B] != T)
            return ct__failed(CT_ERR_ARG, "%s: the offsets must run from 0 to the %lld packed tokens (got %lld .. %lld)", op, (long long)T, (long long)o[0], (long long)o[B]);
        for (int64_t b = 0; b < B; b++) {
            if (o[b + 1] < o[b])
                return ct__failed(CT_ERR_ARG, "%s: the offsets must not decrease (offsets[%lld] = %lld, offsets[%lld] = %lld)", op, (long long)b,
                                  (long long)o[b], (long long)(b + 1), (long long)o[b + 1]);
            S = o[b + 1] - o[b] > S ? o[b + 1] - o[b] : S;
        }
        off = ct_contiguous(in[13]);
    } else {
        B = x->shape[0];
        S = x->shape[1];
        if (mt == CT__TFM_PADDING) kpm = in[mha ? 5 : 13];
    }
    if (ct_numel(x) == 0) return 0;
    int64_t rows = ct_numel(x) / E, sh2[2] = {rows, E};
    ct_tensor *X = ct_reshape_n(x, 2, sh2);
    if (mha) {
        ct_tensor *at = ct__cu_tf_attend(op, X, in[1], in[2], B, H, S, NULL, kpm, (c->a->flags & 1) != 0);
        return ct__cu_tf_into(c->out[0], ct_reshape_n(ct_linear(at, in[3], in[4]), x->ndim, x->shape));
    }
    int gelu = (c->a->flags & 1) != 0, norm_first = (c->a->flags & 2) != 0;
    double eps1 = c->a->s[0], eps2 = c->a->s[1];
    ct_tensor *x1 = NULL, *y = NULL;
    /* the residual adds fused into the LayerNorms, the feed-forward's bias into its
       activation (ct__cu_tf_add_ln, ct__cu_tf_linear_act) */
    if (norm_first) {   /* x1 = X + SA(LN1(X)), y = x1 + FF(LN2(x1)) */
        ct_tensor *at = ct__cu_tf_attend(op, ct__cu_tf_add_ln(op, X, NULL, in[5], in[6], eps1, NULL), in[1], in[2], B, H, S, off, kpm, 0);
        ct_tensor *a = at ? ct_linear(at, in[3], in[4]) : NULL;
        ct_tensor *n2 = a ? ct__cu_tf_add_ln(op, X, a, in[7], in[8], eps2, &x1) : NULL;   /* LN2(X + a); x1 = X + a */
        ct_tensor *h = n2 ? ct__cu_tf_linear_act(op, n2, in[9], in[10], gelu) : NULL;
        y = h ? ct_add(x1, ct_linear(h, in[11], in[12])) : NULL;
    } else {            /* x1 = LN1(X + SA(X)), y = LN2(x1 + FF(x1)) */
        ct_tensor *at = ct__cu_tf_attend(op, X, in[1], in[2], B, H, S, off, kpm, 0);
        ct_tensor *a = at ? ct_linear(at, in[3], in[4]) : NULL;
        x1 = a ? ct__cu_tf_add_ln(op, X, a, in[5], in[6], eps1, NULL) : NULL;
        ct_tensor *h = x1 ? ct__cu_tf_linear_act(op, x1, in[9], in[10], gelu) : NULL;
        ct_tensor *f = h ? ct_linear(h, in[11], in[12]) : NULL;
        y = f ? ct__cu_tf_add_ln(op, x1, f, in[7], in[8], eps2, NULL) : NULL;
    }
    return ct__cu_tf_into(c->out[0], ct_reshape_n(y, x->ndim, x->shape));
}
static int ct__cu_k_tf(ct__call *c) {
    int prev = ct_set_grad_enabled(0), tok = ct_scope_begin();
    int rc = ct__cu_k_tf_body(c);
    ct_scope_end(tok);
    ct_set_grad_enabled(prev);
    return rc;
}
static void ct__cu_tf_register(void) {
    ct__nn_register_now();
    ct_register_kernel("ct::multi_head_self_attention_fwd", CT_BACKEND_CUDA, ct__cu_k_tf);
    ct_register_kernel("ct::transformer_encoder_layer_fwd", CT_BACKEND_CUDA, ct__cu_k_tf);
}
#else
static void ct__cu_tf_register(void) {}
#endif /* CTENSOR_NN_IMPLEMENTATION_DONE */

/* ============================================================================
   Registration and the public API
   The kernels go into the dispatcher's CUDA slots by the ops' stable names
   (ct_register_kernel), the allocator into ct_set_allocator(CT_CUDA): once, at
   program load (and from every public function here, in case the compiler
   offers no load-time hook). Views need nothing: their kernel only makes
   metadata and serves every backend.
   ========================================================================== */
typedef struct ct__cu_reg { int op; ct_kernel_fn fn; } ct__cu_reg;
static const ct__cu_reg ct__cu_kernels[] = {
    {CT__OP_TO, ct__cu_k_copy}, {CT__OP_CLONE, ct__cu_k_copy}, {CT__OP_COPY, ct__cu_k_copy_}, {CT__OP_FILL, ct__cu_k_fill},
    {CT__OP_FULL, ct__cu_k_full}, {CT__OP_ARANGE, ct__cu_k_factory}, {CT__OP_LINSPACE, ct__cu_k_factory}, {CT__OP_EYE, ct__cu_k_factory},
#define CT__CU_REG_U(E, ...) {CT__OP_##E, ct__cu_k_unary},
    CT__UNARY_LOOPS(CT__CU_REG_U) CT__UNARY_BOOL_LOOPS(CT__CU_REG_U)
#undef CT__CU_REG_U
#define CT__CU_REG_B(E, ...) {CT__OP_##E, ct__cu_k_binary},
    CT__BINARY_LOOPS(CT__CU_REG_B) CT__BINARY_BOOL_LOOPS(CT__CU_REG_B)
#undef CT__CU_REG_B
#define CT__CU_REG_T(E, ...) {CT__OP_##E, ct__cu_k_ternary},
    CT__TERNARY_LOOPS(CT__CU_REG_T)
#undef CT__CU_REG_T
    {CT__OP_WHERE, ct__cu_k_ternary}, {CT__OP_MASKED_FILL, ct__cu_k_ternary},
    {CT__OP_SUM, ct__cu_k_sum}, {CT__OP_MEAN, ct__cu_k_sum}, {CT__OP_NANSUM, ct__cu_k_sum}, {CT__OP_PROD, ct__cu_k_sum},
    {CT__OP_AMAX, ct__cu_k_minmax}, {CT__OP_AMIN, ct__cu_k_minmax}, {CT__OP_MAX, ct__cu_k_minmax}, {CT__OP_MIN, ct__cu_k_minmax},
    {CT__OP_MAX_DIM, ct__cu_k_minmax}, {CT__OP_MIN_DIM, ct__cu_k_minmax}, {CT__OP_ARGMAX, ct__cu_k_minmax}, {CT__OP_ARGMIN, ct__cu_k_minmax},
    {CT__OP_ALL, ct__cu_k_logic}, {CT__OP_ANY, ct__cu_k_logic}, {CT__OP_COUNT_NONZERO, ct__cu_k_logic},
    {CT__OP_NORM, ct__cu_k_pnorm}, {CT__OP_LOGSUMEXP, ct__cu_k_pnorm},
    {CT__OP_SOFTMAX, ct__cu_k_softmax}, {CT__OP_LOG_SOFTMAX, ct__cu_k_softmax},
    {CT__OP_SOFTMAX_BACKWARD, ct__cu_k_softmax_bw}, {CT__OP_LOG_SOFTMAX_BACKWARD, ct__cu_k_softmax_bw},
    {CT__OP_STRIDED_SCATTER, ct__cu_k_strided_scatter},
    {CT__OP_GATHER, ct__cu_k_gather}, {CT__OP_SCATTER, ct__cu_k_scatter}, {CT__OP_SCATTER_VALUE, ct__cu_k_scatter},
    {CT__OP_SCATTER_ADD, ct__cu_k_scatter},
    {CT__OP_MM, ct__cu_k_blas}, {CT__OP_BMM, ct__cu_k_blas}, {CT__OP_ADDMM, ct__cu_k_blas}, {CT__OP_BADDBMM, ct__cu_k_blas},
    {CT__OP_MV, ct__cu_k_blas}, {CT__OP_ADDMV, ct__cu_k_blas}, {CT__OP_DOT, ct__cu_k_blas}, {CT__OP_VDOT, ct__cu_k_blas},
};
static int ct__cu_once_state;
static void ct__cu_register_all(void) {
    for (size_t k = 0; k < sizeof ct__cu_kernels / sizeof ct__cu_kernels[0]; k++)
        ct_register_kernel(ct__opdef_get(ct__cu_kernels[k].op)->sname, CT_BACKEND_CUDA, ct__cu_kernels[k].fn);
    ct__cu_nn_register();
    ct__cu_conv_register();
    ct__cu_rng_register();
    ct__cu_shape_register();
    ct__cu_upsample_register();
    ct__cu_optim_register();
    ct__cu_la_register();
    ct__cu_tf_register();
    ct__cu_q_register();
    ct_allocator a;
    a.alloc = ct__cu_alloc;
    a.free = ct__cu_free;
    a.user_data = NULL;
    ct_set_allocator(CT_CUDA, &a);
}
static void ct__cu_register_now(void) { ct__once(&ct__cu_once_state, ct__cu_register_all); }
CT__AT_LOAD(ct__cu_register_now)
CTENSOR_API void ct_cuda_init(void) { ct__cu_register_now(); }

CTENSOR_API int ct_cuda_device_count(void) {
    ct__cu_register_now();
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {   /* no driver, no device: none, and no error */
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}
CTENSOR_API int ct_cuda_is_available(void) { return ct_cuda_device_count() > 0; }
CTENSOR_API ct_status ct_cuda_manual_seed(uint64_t seed) {
    ct__cu_register_now();
    int d = -1;
    cudaError_t e = cudaGetDevice(&d);
    if (e != cudaSuccess) { ct__cu_fail("manual_seed", e); return CT_ERR_DEVICE; }
    if (d < 0 || d >= CTENSOR_CUDA_MAX_DEVICES) { ct_set_error(CT_ERR_DEVICE, "manual_seed: invalid device index %d", d); return CT_ERR_DEVICE; }
    ct__cu_gen_seed(d, seed);
    return CT_OK;
}
CTENSOR_API void ct_cuda_manual_seed_all(uint64_t seed) {
    ct__cu_register_now();
    ct__cu_gen_seed(-1, seed);
}
CTENSOR_API int ct_cuda_current_device(void) {
    ct__cu_register_now();
    int d = -1;
    cudaError_t e = cudaGetDevice(&d);
    if (e != cudaSuccess) { ct__cu_fail("current_device", e); return -1; }
    return d;
}
CTENSOR_API ct_status ct_cuda_set_device(int index) {
    ct__cu_register_now();
    cudaError_t e = cudaSetDevice(index);
    if (e != cudaSuccess) { ct__cu_fail("set_device", e); return CT_ERR_DEVICE; }
    return CT_OK;
}
CTENSOR_API ct_status ct_cuda_synchronize(void) {
    ct__cu_register_now();
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { ct__cu_fail("synchronize", e); return CT_ERR_DEVICE; }
    return CT_OK;
}
CTENSOR_API const char *ct_cuda_device_name(int index, char *buf, size_t cap) {
    ct__cu_register_now();
    if (!buf || !cap) return "";
    buf[0] = 0;
    cudaDeviceProp prop;
    cudaError_t e = cudaGetDeviceProperties(&prop, index);
    if (e != cudaSuccess) { ct__cu_fail("device_name", e); return buf; }
    snprintf(buf, cap, "%s", prop.name);
    return buf;
}
static int ct__cu_dev_ok(const char *api, int index) {
    if (index >= 0 && index < CTENSOR_CUDA_MAX_DEVICES) return 1;
    ct_set_error(CT_ERR_DEVICE, "%s: invalid device index %d", api, index);
    return 0;
}
CTENSOR_API ct_status ct_cuda_memory_stats(int index, ct_cuda_mem_stats *out) {
    ct__cu_register_now();
    if (!out) { ct_set_error(CT_ERR_ARG, "memory_stats: out is NULL"); return CT_ERR_ARG; }
    memset(out, 0, sizeof *out);
    if (!ct__cu_dev_ok("memory_stats", index)) return CT_ERR_DEVICE;
    std::lock_guard<std::mutex> lock(ct__cu_mutex);
    *out = ct__cu_mem[index].st;
    return CT_OK;
}
static int64_t ct__cu_stat(int index, int which) {
    ct_cuda_mem_stats s;
    if (ct_cuda_memory_stats(index, &s)) return 0;
    return which == 0 ? s.allocated_bytes : which == 1 ? s.reserved_bytes : s.peak_allocated_bytes;
}
CTENSOR_API int64_t ct_cuda_memory_allocated(int index) { return ct__cu_stat(index, 0); }
CTENSOR_API int64_t ct_cuda_memory_reserved(int index) { return ct__cu_stat(index, 1); }
CTENSOR_API int64_t ct_cuda_max_memory_allocated(int index) { return ct__cu_stat(index, 2); }
CTENSOR_API void ct_cuda_reset_peak_memory_stats(int index) {
    ct__cu_register_now();
    if (!ct__cu_dev_ok("reset_peak_memory_stats", index)) return;
    std::lock_guard<std::mutex> lock(ct__cu_mutex);
    ct__cu_mem[index].st.peak_allocated_bytes = ct__cu_mem[index].st.allocated_bytes;
    ct__cu_mem[index].st.peak_reserved_bytes = ct__cu_mem[index].st.reserved_bytes;
}
static void ct__cu_host_release(void);
CTENSOR_API ct_status ct_cuda_empty_cache(void) {
    ct__cu_register_now();
    ct_status rc = CT_OK;
    for (int d = 0; d < CTENSOR_CUDA_MAX_DEVICES; d++) {
        int held;
        {
            std::lock_guard<std::mutex> lock(ct__cu_mutex);
            held = ct__cu_mem[d].st.segments > 0;
        }
        if (!held) continue;
        ct__cu_guard guard(d, "empty_cache");   /* (an error is reported outside the mutex) */
        if (!guard.ok) { rc = CT_ERR_DEVICE; continue; }
        std::lock_guard<std::mutex> lock(ct__cu_mutex);
        ct__cu_release_cached(d);
    }
    ct__cu_host_release();
    return rc;
}
CTENSOR_API void ct_cuda_set_allow_tf32(int allow) {
    ct__cu_register_now();
    CT__STORE(&ct__cu_tf32, allow != 0);
}
CTENSOR_API int ct_cuda_get_allow_tf32(void) { return CT__LOAD(&ct__cu_tf32); }
CTENSOR_API void ct_cuda_set_allow_fp16_reduced_precision_reduction(int allow) { CT__STORE(&ct__cu_fp16_rpr, allow != 0); }
CTENSOR_API int ct_cuda_get_allow_fp16_reduced_precision_reduction(void) { return CT__LOAD(&ct__cu_fp16_rpr); }
CTENSOR_API void ct_cuda_set_allow_bf16_reduced_precision_reduction(int allow) { CT__STORE(&ct__cu_bf16_rpr, allow != 0); }
CTENSOR_API int ct_cuda_get_allow_bf16_reduced_precision_reduction(void) { return CT__LOAD(&ct__cu_bf16_rpr); }

/* ---- streams and events ---- */
static int ct__cu_stream_ok(const char *api, const ct_cuda_stream *st) {
    if (st) return 1;
    ct_set_error(CT_ERR_NULL, "%s: stream is NULL", api);
    return 0;
}
CTENSOR_API ct_cuda_stream *ct_cuda_stream_new(int index) {
    ct__cu_register_now();
    if (!ct__cu_dev_ok("Stream", index)) return NULL;
    ct__cu_guard guard(index, "Stream");
    if (!guard.ok) return NULL;
    ct_cuda_stream *st = (ct_cuda_stream *)CT_MALLOC(sizeof(ct_cuda_stream));
    if (!st) { ct_set_error(CT_ERR_MEMORY, "Stream: out of memory"); return NULL; }
    cudaError_t e = cudaStreamCreateWithFlags(&st->s, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        CT_FREE(st);
        ct__cu_fail("Stream", e);
        return NULL;
    }
    st->device = index;
    return st;
}
CTENSOR_API void ct_cuda_stream_free(ct_cuda_stream *st) {
    if (!st || st == &ct__cu_default_streams[st->device]) return;   /* default streams are the library's */
    if (ct__cu_tls_stream[st->device] == st) ct__cu_tls_stream[st->device] = NULL;
    ct__cu_guard guard(st->device, "stream_free");
    /* its work is waited for, so blocks recorded on it (ct_cuda_record_stream) need
       no event on it when they are freed: it is struck from their lists */
    (void)cudaStreamSynchronize(st->s);
    {
        std::lock_guard<std::mutex> lock(ct__cu_mutex);
        for (size_t i = 0; i < ct__cu_live_cap; i++) {
            ct__cu_block *b = ct__cu_live[i];
            if (!b) continue;
            for (int k = 0; k < b->nuses; k++)
                if (b->uses[k] == st->s) b->uses[k--] = b->uses[--b->nuses];
        }
    }
    (void)cudaStreamDestroy(st->s);
    CT_FREE(st);
}
CTENSOR_API ct_cuda_stream *ct_cuda_default_stream(int index) {
    ct__cu_register_now();
    if (!ct__cu_dev_ok("default_stream", index)) return NULL;
    ct_cuda_stream *st = &ct__cu_default_streams[index];
    st->s = (cudaStream_t)0;
    st->device = index;
    return st;
}
CTENSOR_API ct_cuda_stream *ct_cuda_current_stream(int index) {
    ct__cu_register_now();
    if (!ct__cu_dev_ok("current_stream", index)) return NULL;
    return ct__cu_tls_stream[index] ? ct__cu_tls_stream[index] : ct_cuda_default_stream(index);
}
CTENSOR_API ct_cuda_stream *ct_cuda_set_stream(ct_cuda_stream *st) {
    ct__cu_register_now();
    if (!ct__cu_stream_ok("set_stream", st)) return NULL;
    if (!ct__cu_dev_ok("set_stream", st->device)) return NULL;
    ct_cuda_stream *prev = ct_cuda_current_stream(st->device);
    ct__cu_tls_stream[st->device] = st->s ? st : NULL;
    return prev;
}
CTENSOR_API int ct_cuda_stream_device(const ct_cuda_stream *st) { return st ? st->device : -1; }
CTENSOR_API ct_status ct_cuda_stream_synchronize(ct_cuda_stream *st) {
    if (!ct__cu_stream_ok("stream_synchronize", st)) return CT_ERR_NULL;
    ct__cu_guard guard(st->device, "stream_synchronize");
    if (!guard.ok) return CT_ERR_DEVICE;
    cudaError_t e = cudaStreamSynchronize(st->s);
    if (e != cudaSuccess) { ct__cu_fail("stream_synchronize", e); return CT_ERR_DEVICE; }
    return CT_OK;
}
CTENSOR_API int ct_cuda_stream_query(ct_cuda_stream *st) {
    if (!ct__cu_stream_ok("stream_query", st)) return -1;
    ct__cu_guard guard(st->device, "stream_query");
    if (!guard.ok) return -1;
    cudaError_t e = cudaStreamQuery(st->s);
    if (e == cudaSuccess) return 1;
    if (e == cudaErrorNotReady) { (void)cudaGetLastError(); return 0; }
    ct__cu_fail("stream_query", e);
    return -1;
}
static int ct__cu_event_ok(const char *api, const ct_cuda_event *ev) {
    if (ev) return 1;
    ct_set_error(CT_ERR_NULL, "%s: event is NULL", api);
    return 0;
}
CTENSOR_API ct_status ct_cuda_stream_wait_event(ct_cuda_stream *st, ct_cuda_event *ev) {
    if (!ct__cu_stream_ok("wait_event", st)) return CT_ERR_NULL;
    if (!ct__cu_event_ok("wait_event", ev)) return CT_ERR_NULL;
    if (!ev->recorded) return CT_OK;   /* nothing to wait for (as PyTorch) */
    ct__cu_guard guard(st->device, "wait_event");
    if (!guard.ok) return CT_ERR_DEVICE;
    cudaError_t e = cudaStreamWaitEvent(st->s, ev->e, 0);
    if (e != cudaSuccess) { ct__cu_fail("wait_event", e); return CT_ERR_DEVICE; }
    return CT_OK;
}
CTENSOR_API ct_status ct_cuda_stream_wait_stream(ct_cuda_stream *st, ct_cuda_stream *other) {
    if (!ct__cu_stream_ok("wait_stream", st) || !ct__cu_stream_ok("wait_stream", other)) return CT_ERR_NULL;
    ct_cuda_event *ev = ct_cuda_event_new(0);
    if (!ev) return ct_last_error_code();
    ct_status rc = ct_cuda_event_record(ev, other);
    if (rc == CT_OK) rc = ct_cuda_stream_wait_event(st, ev);
    ct_cuda_event_free(ev);   /* (a recorded event may be destroyed: the wait stays queued) */
    return rc;
}
CTENSOR_API ct_cuda_event *ct_cuda_event_new(int enable_timing) {
    ct__cu_register_now();
    ct_cuda_event *ev = (ct_cuda_event *)CT_MALLOC(sizeof(ct_cuda_event));
    if (!ev) { ct_set_error(CT_ERR_MEMORY, "Event: out of memory"); return NULL; }
    memset(ev, 0, sizeof *ev);
    ev->device = -1;   /* the CUDA event is made at the first record, on its stream's device */
    ev->timing = enable_timing != 0;
    return ev;
}
CTENSOR_API void ct_cuda_event_free(ct_cuda_event *ev) {
    if (!ev) return;
    if (ev->device >= 0) {
        ct__cu_guard guard(ev->device, "event_free");
        (void)cudaEventDestroy(ev->e);
    }
    CT_FREE(ev);
}
CTENSOR_API ct_status ct_cuda_event_record(ct_cuda_event *ev, ct_cuda_stream *st) {
    if (!ct__cu_event_ok("event_record", ev)) return CT_ERR_NULL;
    if (!st) {
        int d = ct_cuda_current_device();
        if (d < 0) return CT_ERR_DEVICE;
        st = ct_cuda_current_stream(d);
        if (!st) return ct_last_error_code();
    }
    if (ev->device >= 0 && ev->device != st->device) {
        ct_set_error(CT_ERR_DEVICE, "event_record: Event device cuda:%d does not match recording stream's device cuda:%d", ev->device, st->device);
        return CT_ERR_DEVICE;
    }
    ct__cu_guard guard(st->device, "event_record");
    if (!guard.ok) return CT_ERR_DEVICE;
    cudaError_t e = cudaSuccess;
    if (ev->device < 0) {
        e = cudaEventCreateWithFlags(&ev->e, ev->timing ? cudaEventDefault : cudaEventDisableTiming);
        if (e == cudaSuccess) ev->device = st->device;
    }
    if (e == cudaSuccess) e = cudaEventRecord(ev->e, st->s);
    if (e != cudaSuccess) { ct__cu_fail("event_record", e); return CT_ERR_DEVICE; }
    ev->recorded = 1;
    return CT_OK;
}
CTENSOR_API ct_status ct_cuda_event_synchronize(ct_cuda_event *ev) {
    if (!ct__cu_event_ok("event_synchronize", ev)) return CT_ERR_NULL;
    if (!ev->recorded) return CT_OK;
    cudaError_t e = cudaEventSynchronize(ev->e);
    if (e != cudaSuccess) { ct__cu_fail("event_synchronize", e); return CT_ERR_DEVICE; }
    return CT_OK;
}
CTENSOR_API int ct_cuda_event_query(ct_cuda_event *ev) {
    if (!ct__cu_event_ok("event_query", ev)) return -1;
    if (!ev->recorded) return 1;
    cudaError_t e = cudaEventQuery(ev->e);
    if (e == cudaSuccess) return 1;
    if (e == cudaErrorNotReady) { (void)cudaGetLastError(); return 0; }
    ct__cu_fail("event_query", e);
    return -1;
}
CTENSOR_API double ct_cuda_event_elapsed_ms(ct_cuda_event *a, ct_cuda_event *b) {
    if (!ct__cu_event_ok("elapsed_time", a) || !ct__cu_event_ok("elapsed_time", b)) return NAN;
    if (!a->recorded || !b->recorded) {
        ct_set_error(CT_ERR_STATE, "elapsed_time: Both events must be recorded before calculating elapsed time.");
        return NAN;
    }
    if (!a->timing || !b->timing) {
        ct_set_error(CT_ERR_STATE, "elapsed_time: Both events must be created with argument 'enable_timing=True'.");
        return NAN;
    }
    float ms = 0.0f;
    cudaError_t e = cudaEventElapsedTime(&ms, a->e, b->e);
    if (e != cudaSuccess) { ct__cu_fail("elapsed_time", e); return NAN; }
    return (double)ms;
}
CTENSOR_API ct_status ct_cuda_record_stream(const ct_tensor *t, ct_cuda_stream *st) {
    if (!t) { ct__null_arg("record_stream", 0); return CT_ERR_NULL; }
    if (!ct__cu_stream_ok("record_stream", st)) return CT_ERR_NULL;
    char a[24];
    if (t->device.type != CT_CUDA || !t->storage || t->storage->ct__free != ct__cu_free) {
        ct_set_error(CT_ERR_DEVICE, "record_stream: expected a tensor in memory of the CUDA caching allocator (got a tensor on %s)", ct_device_str(t->device, a, sizeof a));
        return CT_ERR_DEVICE;
    }
    if (t->device.index != st->device) {
        ct_set_error(CT_ERR_DEVICE, "record_stream: the stream is on cuda:%d, the tensor on %s", st->device, ct_device_str(t->device, a, sizeof a));
        return CT_ERR_DEVICE;
    }
    std::lock_guard<std::mutex> lock(ct__cu_mutex);
    ct__cu_block *b = ct__cu_live_find(t->storage->data);
    if (!b) { ct_set_error(CT_ERR_STATE, "record_stream: the tensor's memory is not a live block of the caching allocator"); return CT_ERR_STATE; }
    if (b->stream == st->s) return CT_OK;
    for (int i = 0; i < b->nuses; i++)
        if (b->uses[i] == st->s) return CT_OK;
    if (ct__grow((void **)&b->uses, &b->cap_uses, b->nuses + 1, sizeof(cudaStream_t))) {
        ct_set_error(CT_ERR_MEMORY, "record_stream: out of memory");
        return CT_ERR_MEMORY;
    }
    b->uses[b->nuses++] = st->s;
    return CT_OK;
}

/* ---- pinned host memory: blocks of a power-of-two size, cached; a block is
   handed out again when it is free and the copies queued from it are done ---- */
typedef struct ct__cu_hblock {
    char *ptr;
    size_t size;
    int in_use;
    cudaEvent_t *ev;   /* events after the copies queued from it */
    int *ev_dev, nev, cap_ev, cap_dev;
} ct__cu_hblock;
static ct__cu_hblock **ct__cu_hb;
static int ct__cu_nhb, ct__cu_cap_hb;
static std::mutex ct__cu_hmutex;
static void ct__cu_host_deleter(void *data, void *user) {
    (void)user;
    std::lock_guard<std::mutex> lock(ct__cu_hmutex);
    for (int i = 0; i < ct__cu_nhb; i++)
        if (ct__cu_hb[i]->ptr == data) { ct__cu_hb[i]->in_use = 0; return; }
}
static int ct__cu_is_pinned(const ct_tensor *t) { return t && t->storage && t->storage->deleter == ct__cu_host_deleter; }
/* under the hmutex: 1 when every copy queued from h is done (its events go) */
static int ct__cu_host_idle(ct__cu_hblock *h, int wait) {
    for (int k = 0; k < h->nev; k++) {
        cudaError_t e = wait ? cudaEventSynchronize(h->ev[k]) : cudaEventQuery(h->ev[k]);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            if (!wait) return 0;
        }
    }
    for (int k = 0; k < h->nev; k++) {
        int prev = -1;
        if (cudaGetDevice(&prev) == cudaSuccess && prev != h->ev_dev[k]) (void)cudaSetDevice(h->ev_dev[k]);
        (void)cudaEventDestroy(h->ev[k]);
        if (prev >= 0 && prev != h->ev_dev[k]) (void)cudaSetDevice(prev);
    }
    h->nev = 0;
    return 1;
}
static void *ct__cu_host_alloc(const char *api, size_t nbytes) {
    size_t size = 512;
    while (size < nbytes) size *= 2;
    {
        std::lock_guard<std::mutex> lock(ct__cu_hmutex);
        for (int i = 0; i < ct__cu_nhb; i++) {
            ct__cu_hblock *h = ct__cu_hb[i];
            if (!h->in_use && h->size == size && ct__cu_host_idle(h, 0)) {
                h->in_use = 1;
                return h->ptr;
            }
        }
    }
    void *p = NULL;
    cudaError_t e = cudaHostAlloc(&p, size, cudaHostAllocDefault);
    if (e != cudaSuccess) { ct__cu_fail(api, e); return NULL; }
    ct__cu_hblock *h = (ct__cu_hblock *)CT_MALLOC(sizeof(ct__cu_hblock));
    std::lock_guard<std::mutex> lock(ct__cu_hmutex);
    if (!h || ct__grow((void **)&ct__cu_hb, &ct__cu_cap_hb, ct__cu_nhb + 1, sizeof(ct__cu_hblock *))) {
        CT_FREE(h);
        (void)cudaFreeHost(p);
        ct_set_error(CT_ERR_MEMORY, "%s: out of memory", api);
        return NULL;
    }
    memset(h, 0, sizeof *h);
    h->ptr = (char *)p;
    h->size = size;
    h->in_use = 1;
    ct__cu_hb[ct__cu_nhb++] = h;
    return p;
}
/* an event on stream st (device dev, current) after a copy queued from the pinned block at base */
static int ct__cu_host_record(const void *base, int dev, cudaStream_t st) {
    std::lock_guard<std::mutex> lock(ct__cu_hmutex);
    for (int i = 0; i < ct__cu_nhb; i++) {
        ct__cu_hblock *h = ct__cu_hb[i];
        if (h->ptr != base) continue;
        if (ct__grow((void **)&h->ev, &h->cap_ev, h->nev + 1, sizeof(cudaEvent_t)) ||
            ct__grow((void **)&h->ev_dev, &h->cap_dev, h->nev + 1, sizeof(int)))
            return -1;
        cudaEvent_t ev;
        if (cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) != cudaSuccess) { (void)cudaGetLastError(); return -1; }
        if (cudaEventRecord(ev, st) != cudaSuccess) {
            (void)cudaGetLastError();
            (void)cudaEventDestroy(ev);
            return -1;
        }
        h->ev[h->nev] = ev;
        h->ev_dev[h->nev++] = dev;
        return 0;
    }
    return -1;
}
/* the free pinned blocks back to CUDA (from ct_cuda_empty_cache) */
static void ct__cu_host_release(void) {
    std::lock_guard<std::mutex> lock(ct__cu_hmutex);
    for (int i = ct__cu_nhb - 1; i >= 0; i--) {
        ct__cu_hblock *h = ct__cu_hb[i];
        if (h->in_use) continue;
        (void)ct__cu_host_idle(h, 1);
        (void)cudaFreeHost(h->ptr);
        CT_FREE(h->ev);
        CT_FREE(h->ev_dev);
        CT_FREE(h);
        ct__cu_hb[i] = ct__cu_hb[--ct__cu_nhb];
    }
}
CTENSOR_API int ct_cuda_is_pinned(const ct_tensor *t) { return ct__cu_is_pinned(t); }
CTENSOR_API ct_tensor *ct_cuda_pin_memory(const ct_tensor *t) {
    ct__cu_register_now();
    if (!t) { ct__null_arg("pin_memory", 0); return NULL; }
    if (t->device.type != CT_CPU) {
        char a[24];
        return ct__fail(CT_ERR_DEVICE, "pin_memory: cannot pin a tensor on %s: only dense CPU tensors can be pinned", ct_device_str(t->device, a, sizeof a));
    }
    if (ct__cu_is_pinned(t)) return ct_alias(t);
    int64_t n = ct__shape_numel(t->ndim, t->shape);
    void *p = ct__cu_host_alloc("pin_memory", (size_t)n * ct__dt[t->dtype].size);
    if (!p) return NULL;
    ct_tensor *r = ct_from_blob(p, t->dtype, t->ndim, t->shape, NULL, ct__cu_host_deleter, NULL);
    if (!r) { ct__cu_host_deleter(p, NULL); return NULL; }
    if (n && ct__copy_into(r, (ct_tensor *)t)) return NULL;   /* (r goes with its scope) */
    return r;
}

#ifdef __NVCC__
#  pragma nv_diag_default 550
#endif
#endif /* CTENSOR_CUDA_IMPLEMENTATION_DONE */
