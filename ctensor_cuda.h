/* ctensor_cuda.h - ctensor on NVIDIA GPUs: devices, a caching allocator, CUDA
   kernels for the core ops, cuBLAS matrix products.        v0.1 (2026-11-27)

   STATUS
     The first vertical slice of issue 15. It compiles warning-free under nvcc
     (CUDA 13.0, -Werror all-warnings); its test program passes on a host
     emulation of the CUDA runtime (tests/cuda/emu: the kernels' logic, run on
     the CPU, with device memory unreadable by host code as on a GPU) and skips
     cleanly without a GPU. On a GPU (NVIDIA H200, driver 580, CUDA 13.0,
     2026-11-27) tests/cuda/gpu_check.sh passed: 2463 checks, compute-sanitizer
     memcheck 0 errors, racecheck (reductions, softmax) 0 hazards. No GPU
     benchmarks have been taken yet.

   HOW TO USE
     One file of the program, compiled by nvcc as CUDA, holds the implementations:
         #define CTENSOR_IMPLEMENTATION
         #include "ctensor.h"
         #include "ctensor_nn.h"        (optional; any companion headers)
         #include "ctensor_cuda.h"
     and the program builds with one line:
         nvcc -O2 -x cu -DCTENSOR_CUDA main.c -lcublas
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
       along a dim), argmax/argmin (a dim or all); softmax, log_softmax and their
       backward ops
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
       kthvalue, median (a dim or all) along any dim, any length (a bitonic
       sort in shared memory up to 2048 elements a row, in global memory beyond)
     - index_select, index_add, index_copy, index_fill, advanced indexing
       (index, index_put with accumulate; boolean masks through nonzero);
       index errors are the CPU's (the first bad index is read back);
       nonzero, masked_select, masked_scatter (their lengths are read back)
     - mm, bmm, addmm, baddbmm, mv, addmv, dot through cuBLAS (float32, float64,
       float16, bfloat16), TF32 behind ct_cuda_set_allow_tf32
     - autograd: the backward rules of these ops run unchanged on device tensors,
       so an MLP (linear, relu, cross_entropy, SGD from ctensor_nn.h) trains on
       the GPU (tests/cuda/test_cuda.c, test_mlp_step)
     Every other op on a GPU tensor fails cleanly naming the op:
       "conv2d: Could not run 'aten::conv2d' with arguments from the 'CUDA' backend."
     Not yet (issue 15's later parts): streams and events, pinned memory and
     asynchronous host copies, the nn kernels (conv, pooling, norms,
     embedding, fused losses and optimizers take the op chain or fail),
     mode, randperm/multinomial, take, repeat_interleave, one_hot,
     scatter_reduce, cuSOLVER.

   SYNCHRONISATION
     Every kernel and copy runs on the device's legacy default stream, in the
     order the ops were called; the host does not wait for kernels. These wait
     for the GPU: copies to the host (ct_to_device(t, ct_cpu()), printing),
     ct_cuda_synchronize, ct_cuda_empty_cache, and the few ops whose errors are
     data-dependent (gather/scatter and index_* index bounds, index/index_put,
     bernoulli_'s tensor p, integer division by zero) and those whose output
     length is (nonzero, masked_select, masked_scatter's count): they read one
     flag (or the counts) back, as PyTorch's CPU kernels report these errors. A
     kernel fault (an illegal address) surfaces at the next call that waits,
     as a CT_ERR_DEVICE error naming that call. Host threads may share a device
     (their work is serialized on its stream); build with nvcc's default, the
     legacy default stream: --default-stream per-thread is not supported yet.

   MEMORY
     Device memory comes from a caching allocator modelled on PyTorch's: sizes
     round up to 512 bytes; blocks up to 1 MiB come from 2 MiB segments (the
     small pool), larger ones from segments of 20 MiB (requests under 10 MiB) or
     the size rounded up to 2 MiB (the large pool); a block larger than asked
     is split, freed blocks merge with free neighbours of their segment, and a
     freed block is reused without cudaMalloc. One pool per device; reuse is
     safe because all work is on one stream (per-stream pools come with
     streams). When cudaMalloc fails, the cache is released (cudaFree of
     wholly free segments) and the call is retried once; then the error is
     "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.11 GiB total
     capacity; 1.50 GiB already allocated; 77.02 GiB free; 1.52 GiB reserved in
     total by ctensor)". ct_cuda_memory_stats reports what it holds.

   CONFIGURATION
     CTENSOR_CUDA             required: without it this header is an #error
     CTENSOR_CUDA_MAX_DEVICES devices the allocator keeps state for (default 64)

   CONTENTS (search for the banner titles)
     Declarations: devices; memory; matmul math mode; random numbers
     Implementation: Includes and checks; Errors and device guards; The caching
     allocator; Device arithmetic (dtypes, half precision, the core's expression
     helpers); Elementwise kernels; Copies and factories; Reductions; Softmax;
     Gather and scatter; Matrix products (cuBLAS); Random numbers on the
     device; Scans, variance and sorting along dims; Indexing along a dim,
     advanced indexing, nonzero and masked_select; Registration and the
     public API

   REVISIONS
     0.1 (2026-11-27)  first slice: devices, caching allocator, copies,
                       elementwise, reductions, softmax, gather/scatter, cuBLAS,
                       autograd on device (an MLP trains); tests pass on an H200
                       under memcheck and racecheck.
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
   Matrix products: math mode (torch.backends.cuda.matmul.allow_tf32)
   ========================================================================== */
/* float32 matrix products may use TF32 tensor cores (10-bit mantissa inputs, float
   accumulation) when allowed. Off by default, as PyTorch's default since 1.12. */
CTENSOR_API void ct_cuda_set_allow_tf32(int allow);
CTENSOR_API int ct_cuda_get_allow_tf32(void);

/* ============================================================================
   Random numbers: the device generators (torch.cuda.manual_seed)
   ========================================================================== */
/* Seeds the generator of the current device (ct_cuda_manual_seed) or of every
   device (_all). ct_manual_seed seeds them all too, as torch.manual_seed does. */
CTENSOR_API ct_status ct_cuda_manual_seed(uint64_t seed);
CTENSOR_API void ct_cuda_manual_seed_all(uint64_t seed);

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
   kernel<<<grid, block>>>(args...) on the default stream. The kernel comes last
   so that its template arguments may hold commas. tests/cuda/emu defines it
   first, to run the kernels on the host (a test of the logic, not of a GPU). */
#ifndef CT__CU_LAUNCH
#  define CT__CU_LAUNCH(grid, block, args, ...) __VA_ARGS__<<<(grid), (block)>>> args
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
   The caching allocator (PyTorch: c10/cuda/CUDACachingAllocator.cpp)
   Sizes round up to 512 bytes. Requests up to 1 MiB are served from the small
   pool, whose segments are 2 MiB; larger ones from the large pool, whose
   segments are 20 MiB for requests under 10 MiB and the request rounded up to
   2 MiB otherwise. A free block is found best-fit (smallest that fits, lowest
   address among equals); a larger one is split when the rest is worth keeping
   (512 bytes in the small pool, over 1 MiB in the large); a freed block merges
   with free neighbours of its segment. Segments go back to CUDA only in
   ct_cuda_empty_cache and when cudaMalloc fails (then the call is retried once).
   One mutex guards everything; all kernels run on one stream per device, so a
   block freed by one op can be handed to the next without an event.
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
    int device, pool, allocated;
    struct ct__cu_block *prev, *next; /* address neighbours in the same segment */
} ct__cu_block;
/* a pool's free blocks, sorted by (size, address) */
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
/* (size, address) order */
static int ct__cu_before(const ct__cu_block *a, size_t size, const char *ptr) {
    return a->size < size || (a->size == size && (uintptr_t)a->ptr < (uintptr_t)ptr);
}
static int ct__cu_pool_lower(const ct__cu_pool *p, size_t size, const char *ptr) {
    int lo = 0, hi = p->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (ct__cu_before(p->v[mid], size, ptr)) lo = mid + 1;
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
    int k = ct__cu_pool_lower(p, b->size, b->ptr);
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
    int k = ct__cu_pool_lower(p, b->size, b->ptr);
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

/* Returns the wholly free segments of device dev to CUDA (caller holds the mutex
   and has made dev current). cudaFree waits for the device. */
static void ct__cu_release_cached(int dev) {
    ct__cu_devmem *m = &ct__cu_mem[dev];
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
static ct__cu_block *ct__cu_take(int dev, size_t size, size_t nbytes, ct_status *code, char *msg, size_t cap) {
    int pool = size <= CT__CU_SMALL_SIZE ? 0 : 1;
    ct__cu_devmem *m = &ct__cu_mem[dev];
    ct__cu_pool *p = &m->pools[pool];
    ct__cu_block *b = NULL;
    int k = ct__cu_pool_lower(p, size, NULL);
    *code = CT_ERR_MEMORY;
    if (k < p->n) {   /* the smallest cached block that fits: no cudaMalloc */
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
        b = ct__cu_take(dev, ct__cu_round_size(nbytes), nbytes, &code, msg, sizeof msg);
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
    ct__cu_pool *p = &m->pools[b->pool];
    m->st.allocated_bytes -= (int64_t)b->size;
    m->st.requested_bytes -= (int64_t)b->requested;
    m->st.active_blocks--;
    m->st.num_frees++;
    b->allocated = 0;
    b->requested = 0;
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
            ct__store_f64(tmp, cdt, ct__load_f64(p, x->dtype));   /* f64 -> f16 goes through float, as ct__d2h */
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
    cudaError_t e = cudaMemcpyToSymbol(ct__cu_dev::ct__kerr_tls, &zero, sizeof zero);
    return e == cudaSuccess ? 0 : ct__cu_fail(op, e);
}
static int ct__cu_kerr_check(const char *op) {
    int flag = 0;
    cudaError_t e = cudaMemcpyFromSymbol(&flag, ct__cu_dev::ct__kerr_tls, sizeof flag);   /* waits for the kernel */
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
     host -> device          one cudaMemcpy from the source when it already has
                             the output's dtype and layout, else from a host
                             staging copy made by the CPU path (ct__copy_into)
     device -> host          one cudaMemcpy (it waits for the device) from the
                             source, or from a device copy in the output's layout
     device -> other device  the same through cudaMemcpyPeer
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
        cudaError_t e = cudaMemcpyAsync(ct__ptr(dst), ct__ptr(src), (size_t)n * ct__dt[dst->dtype].size, cudaMemcpyDeviceToDevice, 0);
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
static int ct__cu_memcpy(const char *op, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind) {
    if (!bytes) return 0;
    cudaError_t e = cudaMemcpy(dst, src, bytes, kind);
    return e == cudaSuccess ? 0 : ct__cu_fail(op, e);
}
/* out = x, out a new dense tensor (the meta's layout) on any device, x anywhere
   with out's shape: the body of aten::_to_copy and clone */
static int ct__cu_copy_new(const char *op, ct_tensor *out, ct_tensor *x) {
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
        if (ct__cu_same_layout(out, x)) return ct__cu_memcpy(op, ct__ptr(out), ct__ptr(x), bytes, cudaMemcpyHostToDevice);
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
static int ct__cu_k_copy(ct__call *c) { return ct__cu_copy_new(CT__CU_OPNAME(c), c->out[0], c->in[0]); }
/* aten::copy_(self, src), self[...] = src[...] converting and broadcasting. From the
   dispatcher: self a CPU 0-d tensor and src a one-element GPU tensor (to the host),
   or src on self's device or a CPU 0-d tensor. From ctensor.h's internal copies
   (ct__copy_into: autograd's accumulation, conversions, contiguous copies), any
   devices: a source elsewhere comes over first. src may share memory with self
   (then through a copy). */
static int ct__cu_k_copy_(ct__call *c) {
    ct_tensor *x = c->in[0], *src = c->in[1];
    if (x->device.type == CT_CUDA && !ct_device_eq(src->device, x->device) && !(src->device.type == CT_CPU && src->ndim == 0)) {
        ct_tensor *t = ct__alloc(src->dtype, src->ndim, src->shape, NULL, x->device);
        if (!t) return -1;
        int rc = ct__cu_copy_new("copy_", t, src);
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
   Reductions (sum, mean, nansum, prod, amax, amin, max, min, argmax, argmin)
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
    double scale;                 /* mean: 1 / K */
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
/* lanes per output and K splits for p's shape; then the kernels for compute type cdt */
template <class R>
static int ct__cu_reduce(const char *op, int dev, ct__cu_redp *p, ct_dtype cdt) {
    if (p->O == 0) return 0;
    int64_t kin = p->nk ? p->kstride[p->nk - 1] : 1, oin = p->no ? p->ostride[p->no - 1] : 0;
    int sms = ct__cu_sms(dev);
    if (p->K <= 1 || (kin != 1 && oin == 1 && p->O >= 256) || (p->K < 32 && p->O >= 1024)) p->lanes = 1;
    else p->lanes = p->K >= 4096 ? CT__CU_THREADS : 32;
    int64_t bx = (p->O + CT__CU_THREADS / p->lanes - 1) / (CT__CU_THREADS / p->lanes);
    p->splits = 1;
    p->chunk = p->K > 0 ? p->K : 1;
    if (bx < 2 * sms && p->K >= 8192) {
        int64_t s = (2 * sms + bx - 1) / bx, by_k = p->K / 4096;
        if (s > by_k) s = by_k;
        if (s > 1024) s = 1024;
        if (s > 1) {
            p->chunk = (p->K + s - 1) / s;
            p->splits = (int32_t)((p->K + p->chunk - 1) / p->chunk);
        }
    }
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
struct ct__cu_op_max {
    template <class C> static __device__ __forceinline__ C comb(C a, C b) { return a != a ? a : (b != b ? b : (a > b ? a : b)); }
};
struct ct__cu_op_sum {
    template <class C> static __device__ __forceinline__ C comb(C a, C b) { return a + b; }
};
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
template <class C>
__global__ void __launch_bounds__(CT__CU_THREADS) ct__cu_ix_kernel(const ct__cu_ixp p) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t r = i, io = 0, xo = 0, oo = 0, so = 0, j = 0;
        for (int d = p.nd - 1; d >= 0; d--) {
            int64_t q = r % p.ish[d];
            r /= p.ish[d];
            io += q * p.ist[d];
            xo += q * p.xst[d];
            oo += q * p.ost[d];
            so += q * p.sst[d];
            if (d == p.dim) j = q;
        }
        int64_t v = p.idx[io];
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
    cudaError_t e = cudaMemcpyToSymbol(ct__cu_dev::ct__ix_bad, rec, sizeof rec);
    if (e != cudaSuccess) return ct__cu_fail(op, e);
    unsigned blocks = ct__cu_blocks(p->n, CT__CU_THREADS, dev);
    if (p->mode != CT__CU_SCATTER_ADD || CT__ISINT(p->dt) || p->dt == CT_BOOL) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (*p), ct__cu_ix_kernel<int64_t>);
    else if (p->dt == CT_FLOAT64) CT__CU_LAUNCH(blocks, CT__CU_THREADS, (*p), ct__cu_ix_kernel<double>);
    else CT__CU_LAUNCH(blocks, CT__CU_THREADS, (*p), ct__cu_ix_kernel<float>);
    if (ct__cu_launched(op)) return -1;
    e = cudaMemcpyFromSymbol(rec, ct__cu_dev::ct__ix_bad, sizeof rec);   /* waits for the kernel */
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
    if (c->op == CT__OP_SCATTER_REDUCE) return ct__no_kernel(ct__opdef_get(c->op), CT_BACKEND_CUDA);
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

static const char *ct__cu_blas_msg(cublasStatus_t s) { return cublasGetStatusString(s); }
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
            if (!ct__cu_blas[dev] && (s = cublasCreate(&ct__cu_blas[dev])) != CUBLAS_STATUS_SUCCESS) {
                ct__cu_blas[dev] = NULL;
                stage = 1;
            } else {
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
    cudaError_t e = cudaMemcpyToSymbol(ct__cu_dev::ct__cu_bad_pos, &none, sizeof none);
    return e == cudaSuccess ? 0 : ct__cu_fail(op, e);
}
static int ct__cu_bad_read(const char *op, int64_t *pos) {
    unsigned long long v = 0;
    cudaError_t e = cudaMemcpyFromSymbol(&v, ct__cu_dev::ct__cu_bad_pos, sizeof v);   /* waits for the kernels */
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
   Scans, variance and sorting along dims (cumsum, cumprod, cummax, cummin;
   var, std, var_mean, std_mean; sort, argsort, topk, kthvalue, median)
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

/* masked_scatter: the core's meta (ctensor.h, ct__meta_masked_scatter) less its
   CPU-only check, with its messages */
static int ct__cu_meta_masked_scatter(ct__call *c) {
    ct_tensor *x = c->in[0], *mask = c->in[1], *src = c->in[2], *bin[2];
    int nd;
    int64_t shape[CT_MAX_DIMS] = {0};
    if (ct__ix_real("masked_scatter", x->dtype)) return -1;
    if (mask->dtype != CT_BOOL) return ct__failed(CT_ERR_DTYPE, "masked_scatter_: only supports boolean masks, but got mask with dtype %s", ct_dtype_name(mask->dtype));
    if (src->dtype != x->dtype)
        return ct__failed(CT_ERR_DTYPE, "masked_scatter: expected self and source to have same dtypes but got %s and %s", CT__DTNAME(x->dtype), CT__DTNAME(src->dtype));
    if (c->inplace) {   /* the mask expands to self's shape */
        if (mask->ndim > x->ndim)
            return ct__failed(CT_ERR_SHAPE, "masked_scatter_: expand(%s, size=%s): the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)",
                              CT__SHAPE(mask), CT__SHAPE(x), x->ndim, mask->ndim);
        for (int d = 0; d < mask->ndim; d++) {
            int xd = d + x->ndim - mask->ndim;
            if (mask->shape[d] != 1 && mask->shape[d] != x->shape[xd])
                return ct__failed(CT_ERR_SHAPE, "masked_scatter_: The expanded size of the tensor (%lld) must match the existing size (%lld) at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s",
                                  (long long)x->shape[xd], (long long)mask->shape[d], xd, CT__SHAPE(x), CT__SHAPE(mask));
        }
        ct__ix_out_self(c);
        return 0;
    }
    bin[0] = mask;
    bin[1] = x;
    if (ct__broadcast("masked_scatter", 2, bin, &nd, shape)) return -1;
    ct__out_new(c, x->dtype, nd, shape);
    return 0;
}
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
        {CT__OP_MEDIAN_DIM, ct__cu_k_sort}, {CT__OP_MEDIAN, ct__cu_k_sort},
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
    {CT__OP_SOFTMAX, ct__cu_k_softmax}, {CT__OP_LOG_SOFTMAX, ct__cu_k_softmax},
    {CT__OP_SOFTMAX_BACKWARD, ct__cu_k_softmax_bw}, {CT__OP_LOG_SOFTMAX_BACKWARD, ct__cu_k_softmax_bw},
    {CT__OP_GATHER, ct__cu_k_gather}, {CT__OP_SCATTER, ct__cu_k_scatter}, {CT__OP_SCATTER_VALUE, ct__cu_k_scatter},
    {CT__OP_SCATTER_ADD, ct__cu_k_scatter},
    {CT__OP_MM, ct__cu_k_blas}, {CT__OP_BMM, ct__cu_k_blas}, {CT__OP_ADDMM, ct__cu_k_blas}, {CT__OP_BADDBMM, ct__cu_k_blas},
    {CT__OP_MV, ct__cu_k_blas}, {CT__OP_ADDMV, ct__cu_k_blas}, {CT__OP_DOT, ct__cu_k_blas}, {CT__OP_VDOT, ct__cu_k_blas},
};
static int ct__cu_once_state;
static void ct__cu_register_all(void) {
    for (size_t k = 0; k < sizeof ct__cu_kernels / sizeof ct__cu_kernels[0]; k++)
        ct_register_kernel(ct__opdef_get(ct__cu_kernels[k].op)->sname, CT_BACKEND_CUDA, ct__cu_kernels[k].fn);
    ct__cu_rng_register();
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
    return rc;
}
CTENSOR_API void ct_cuda_set_allow_tf32(int allow) {
    ct__cu_register_now();
    CT__STORE(&ct__cu_tf32, allow != 0);
}
CTENSOR_API int ct_cuda_get_allow_tf32(void) { return CT__LOAD(&ct__cu_tf32); }

#ifdef __NVCC__
#  pragma nv_diag_default 550
#endif
#endif /* CTENSOR_CUDA_IMPLEMENTATION_DONE */
