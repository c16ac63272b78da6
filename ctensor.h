/* ctensor.h - PyTorch's core as a header-only C library.        v0.3 (2026-12-06)

   HOW TO USE
     In exactly one C or C++ file:
         #define CTENSOR_IMPLEMENTATION
         #include "ctensor.h"
     Everywhere else just #include "ctensor.h".
     Companion headers (ctensor_linalg.h, ...) are included after this one.

   THE FEEL
       CT_SCOPE {                                    // released at the end of the block
           ct_tensor *x = ct_randn(CT_FLOAT32, 3, 4);
           ct_tensor *y = ct_relu(ct_add(ct_matmul(x, ct_t(x)), ct_ones(CT_FLOAT32, 3)));
           if (y) ct_print(y);                       // one NULL check for the chain
           else   fprintf(stderr, "%s\n", ct_last_error());
       }

   CONFIGURATION (define before including, in the implementation file)
     CTENSOR_IMPLEMENTATION   emit the implementation in this translation unit
     CTENSOR_STATIC           make every function static (private to one file)
     CTENSOR_API              decoration of public functions (default: extern)
     CTENSOR_BUILD_SHARED     building a shared library with -fvisibility=hidden: the
                              public API gets default visibility (make lib does this)
     CT_MALLOC/CT_REALLOC/CT_FREE  allocator overrides; give all three or none
     CT_ASSERT(x)             internal invariant check (default: assert)
     CTENSOR_NO_STDIO         no stdio: no default error logger, no ct_print, no file io
     CTENSOR_BLAS             use CBLAS (e.g. OpenBLAS: -lopenblas) for GEMM
     CTENSOR_THREADS          parallel kernels for large tensors on ctensor's thread pool
                              (pthreads; ct_set_num_threads). A kernel never waits for a
                              worker that has not started, so a core taken by another
                              process costs at most the 1-thread time, not a stall
     CTENSOR_OPENMP           CTENSOR_THREADS with the thread count from OpenMP (-fopenmp):
                              omp_get_max_threads(), so OMP_NUM_THREADS and
                              omp_set_num_threads apply; no kernel opens an OpenMP region
     CTENSOR_MAX_DIMS         maximum rank (default 8); it changes ct_tensor, so it must be
                              the same in every file of a program (checked when linking)
     CTENSOR_DEBUG            extra checks: scope misuse is reported with file:line
     (not -ffast-math)        the implementation refuses to build under -ffast-math,
                              -Ofast or -ffinite-math-only (#error): they break NaN/inf
                              handling and sums; compile that one file without them
     CTENSOR_NO_THREADS       no pthread use at all: no thread-exit cleanup (call
                              ct_thread_cleanup before a thread ends), no data-loader
                              prefetch thread. Otherwise, on unix, pthreads are used: in
                              libc from glibc 2.34 on; older systems link -lpthread
     CTENSOR_PORTABLE_SCOPE   CT_SCOPE and the grad-mode blocks in their portable form
                              (plain loops: return and goto do not close them) on every
                              compiler; the form non-gcc C compilers get anyway. For tests
     CTENSOR_BLOCK_CACHE_MB   per-thread cache of freed large blocks, in MiB (default 256;
                              0 turns it off): big results reuse memory instead of
                              page-faulting fresh pages on every op
     CTENSOR_NO_CACHES        keep nothing freed for reuse (blocks, tensor headers,
                              autograd nodes): a use after free reaches the sanitizer.
                              Defined by itself under AddressSanitizer
     CTENSOR_SELECTED_OPS     the selective build, for small static programs: only the
                              ops named by CTENSOR_OP_<NAME> 1 (NAME as in the op lists,
                              "Op lists" below: CTENSOR_OP_ADDMM, CTENSOR_OP_RELU, ...;
                              companion headers' rows too) keep their meta, kernel,
                              loops and backward; calling another op fails with "op X
                              was not selected in this build (CTENSOR_SELECTED_OPS)".
                              With -Os -ffunction-sections -fdata-sections
                              -Wl,--gc-sections the rest is dropped (make footprint,
                              examples/mlp_tiny.c). Unused static functions are not
                              warned about in that file
     CTENSOR_NO_AUTOGRAD      no backward rules linked: backward() on a graph fails
                              with an error naming the op (forward ops are unchanged)

   OWNERSHIP IN ONE PARAGRAPH
     Every function that returns a tensor returns a new reference owned by the
     current scope (CT_SCOPE or ct_scope_begin/ct_scope_end). Leaving the scope
     releases everything made in it, except tensors passed to ct_keep (moved to the
     enclosing scope) and tensors someone retained (ct_retain ... ct_release,
     module parameters, autograd's saved tensors). Outside any scope, results go to
     the thread's root scope, which lives as long as the thread.

   ERRORS IN ONE PARAGRAPH
     Nothing aborts on bad input. A failing call returns NULL (or a non-zero
     ct_status) and records a code and a PyTorch-style message naming the op and
     the values: ct_last_error(), ct_last_error_code(). Every op given a NULL input
     returns NULL and keeps the first message, so a chain is checked once.

   CONTENTS (search for the banner titles)
     Declarations
       Configuration and portability; dtypes and devices; Errors; Tensors (and
       quantization parameters); Memory: scopes, references, counters, allocators;
       Shapes in call sites; Creation; Views (and complex tensors: view_as_real,
       complex, polar, conj); Elementwise (the unary op table);
       Reductions; Indexing and joining; Matrix products; Random numbers;
       Autograd; Ops from outside (schemas, typed attributes, the dispatch hook,
       kernels per backend); Serialization (.npy, safetensors); Interop: DLPack;
       Printing
     Implementation
       Thread state; Errors; dtype traits; Half precision; Storage and tensor
       allocation; Scopes; Tensor queries; The spine (the op table, attribute
       schemas, registration, kernels per backend); Autograd graph; The
       dispatcher (output shape checks, the dispatch hook, ct_dispatch); In-place
       ops on views; The autograd engine; The elementwise iterator; The
       thread pool; Elementwise inner loops; Elementwise ops; Creation and
       conversion; Views; Reductions; Indexing and joining; Matrix products
       and GEMM; Random numbers; Backward rules; Autograd API and gradcheck;
       Serialization (.npy, safetensors); Interop: DLPack; Printing
     Companions: ctensor_nn.h (modules and training), ctensor_linalg.h
     (torch.linalg); docs/SPINE.md and docs/CONTRIBUTING.md for contributors.

   REVISIONS
     0.3 (2026-12-06)  complex64 and complex128: creation, conversion, printing, I/O,
                       views, arithmetic and math, sum/mean, matmul, autograd with
                       PyTorch's conjugate Wirtinger convention, gradcheck.
     0.2 (2026-11-24)  spine v2: stable op names and typed attribute schemas, the
                       dispatch hook, kernel slots per backend, devices with an
                       index, owned qparams, output shape checks; nn, optim and
                       data moved to ctensor_nn.h.
     0.1 (2026-11-22)  first release: tensors, views, dispatcher, scopes, elementwise,
                       reductions, indexing, matmul, random, autograd, io, printing.
*/
#ifndef CTENSOR_H_INCLUDED
#define CTENSOR_H_INCLUDED
/* CTENSOR_NO_CACHES (configuration list above) is on by itself under AddressSanitizer */
#if !defined(CTENSOR_NO_CACHES) && defined(__SANITIZE_ADDRESS__)
#  define CTENSOR_NO_CACHES 1
#endif
#if !defined(CTENSOR_NO_CACHES) && defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define CTENSOR_NO_CACHES 1
#  endif
#endif

#include <stddef.h>
#include <stdint.h>

/* ============================================================================
   Configuration and portability
   ========================================================================== */
#ifndef CTENSOR_API
#  ifdef CTENSOR_STATIC
#    if defined(__GNUC__) || defined(__clang__)
#      define CTENSOR_API static __attribute__((unused))
#    else
#      define CTENSOR_API static
#    endif
#  elif defined(CTENSOR_BUILD_SHARED) && (defined(__GNUC__) || defined(__clang__))
#    define CTENSOR_API extern __attribute__((visibility("default")))   /* with -fvisibility=hidden */
#  else
#    define CTENSOR_API extern
#  endif
#endif

#ifndef CTENSOR_MAX_DIMS
#  define CTENSOR_MAX_DIMS 8
#endif
#define CT_MAX_DIMS CTENSOR_MAX_DIMS

#if defined(__cplusplus)
#  define CT_RESTRICT __restrict
#  define CT_STATIC_ASSERT(c, msg) static_assert(c, msg)
#  define CT_NORETURN [[noreturn]]
#elif defined(_MSC_VER)
#  define CT_RESTRICT __restrict
#  define CT_STATIC_ASSERT(c, msg) typedef char ct__static_assert_##__LINE__[(c) ? 1 : -1]
#  define CT_NORETURN __declspec(noreturn)
#else
#  define CT_RESTRICT restrict
#  define CT_STATIC_ASSERT(c, msg) _Static_assert(c, msg)
#  define CT_NORETURN _Noreturn
#endif

#if defined(__cplusplus)
#  define CT_THREAD_LOCAL thread_local
#elif defined(_MSC_VER)
#  define CT_THREAD_LOCAL __declspec(thread)
#else
#  define CT_THREAD_LOCAL _Thread_local
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* CTENSOR_MAX_DIMS sizes the arrays inside ct_tensor, so every translation unit of a
   program must see the same value (a plain integer literal). A mismatch is caught when
   linking: the implementation defines ct_abi_max_dims_<N> for its N, and every other
   file that includes this header references the symbol for its own N, so linking
   files built with 8 against an implementation built with 4 fails with
   "undefined reference to `ct_abi_max_dims_8'". (gcc, clang and MSVC; not needed
   under CTENSOR_STATIC, where one file holds everything.) */
#define CT__ABI_CAT2(a, b) a##b
#define CT__ABI_CAT(a, b) CT__ABI_CAT2(a, b)
#define CT__ABI_STR2(x) #x
#define CT__ABI_STR(x) CT__ABI_STR2(x)
#define CT__ABI_MAX_DIMS CT__ABI_CAT(ct_abi_max_dims_, CTENSOR_MAX_DIMS)
#if !defined(CTENSOR_STATIC)
CTENSOR_API const int CT__ABI_MAX_DIMS;
#  if !defined(CTENSOR_IMPLEMENTATION)
#    if defined(_MSC_VER) && !defined(__clang__)
#      if defined(_M_IX86)
#        pragma comment(linker, "/include:_" CT__ABI_STR(CT__ABI_MAX_DIMS))
#      else
#        pragma comment(linker, "/include:" CT__ABI_STR(CT__ABI_MAX_DIMS))
#      endif
#    elif defined(__GNUC__) || defined(__clang__)
static const int *const ct__abi_max_dims_ref __attribute__((used)) = &CT__ABI_MAX_DIMS;
#    endif
#  endif
#endif

/* ============================================================================
   dtypes and devices
   The enum is append-only with explicit numbers; ct_dtype_name() and the traits
   table in the implementation are the single source of truth for dtype facts.
   ========================================================================== */
typedef enum ct_dtype {
    CT_FLOAT32 = 0,
    CT_FLOAT64 = 1,
    CT_FLOAT16 = 2,
    CT_BFLOAT16 = 3,
    CT_INT64 = 4,
    CT_INT32 = 5,
    CT_INT16 = 6,
    CT_INT8 = 7,
    CT_UINT8 = 8,
    CT_BOOL = 9,
    CT_QINT8 = 10,      /* reserved for ctensor_quant.h */
    CT_QUINT8 = 11,     /* reserved for ctensor_quant.h */
    CT_QINT32 = 12,     /* reserved for ctensor_quant.h */
    CT_COMPLEX64 = 13,  /* reserved for ctensor_linalg.h */
    CT_COMPLEX128 = 14, /* reserved for ctensor_linalg.h */
    CT_NUM_DTYPES = 15
} ct_dtype;

/* A device is a type and an index, as torch.device("cuda:1"). ct_cpu() and
   ct_cuda(i) make them; ct_device_eq compares; ct_device_str prints "cuda:1". */
typedef enum ct_device_type {
    CT_CPU = 0,
    CT_CUDA = 1,
    CT_NUM_DEVICE_TYPES = 2
} ct_device_type;
typedef struct ct_device {
    ct_device_type type;
    int32_t index;          /* 0 for the CPU */
} ct_device;
static inline ct_device ct_device_of(ct_device_type type, int index) {
    ct_device d;
    d.type = type;
    d.index = index;
    return d;
}
static inline ct_device ct_cpu(void) { return ct_device_of(CT_CPU, 0); }
static inline ct_device ct_cuda(int index) { return ct_device_of(CT_CUDA, index); }
static inline int ct_device_eq(ct_device a, ct_device b) { return a.type == b.type && a.index == b.index; }
/* "cpu", "cuda:1" into buf (16 bytes are enough); returns buf */
CTENSOR_API const char *ct_device_str(ct_device d, char *buf, size_t cap);
/* "cpu", "cuda", "cuda:1" -> device; 0, or -1 with an error for anything else */
CTENSOR_API int ct_device_parse(const char *s, ct_device *out);

CTENSOR_API const char *ct_dtype_name(ct_dtype dt);     /* "float32" */
CTENSOR_API size_t ct_dtype_size(ct_dtype dt);          /* bytes per element */
CTENSOR_API int ct_dtype_is_floating(ct_dtype dt);      /* f16, bf16, f32, f64 */
CTENSOR_API int ct_dtype_is_integral(ct_dtype dt);      /* ints, not bool */
CTENSOR_API int ct_dtype_is_complex(ct_dtype dt);
/* torch.promote_types: the dtype of a binary op between tensors of these dtypes. */
CTENSOR_API ct_dtype ct_promote_types(ct_dtype a, ct_dtype b);
CTENSOR_API void ct_set_default_dtype(ct_dtype dt);      /* float32 or float64 */
CTENSOR_API ct_dtype ct_get_default_dtype(void);

/* ============================================================================
   Errors
   One X-macro gives the codes and their short descriptions.
   ========================================================================== */
#define CT_ERRORS(X) \
    X(CT_OK, 0, "no error") \
    X(CT_ERR_NULL, 1, "a NULL tensor was passed (an earlier call failed)") \
    X(CT_ERR_SHAPE, 2, "shapes do not match") \
    X(CT_ERR_DTYPE, 3, "dtype not supported or not matching") \
    X(CT_ERR_ARG, 4, "invalid argument") \
    X(CT_ERR_INDEX, 5, "index out of range") \
    X(CT_ERR_MEMORY, 6, "out of memory") \
    X(CT_ERR_IO, 7, "file could not be read or written") \
    X(CT_ERR_FORMAT, 8, "malformed file contents") \
    X(CT_ERR_AUTOGRAD, 9, "autograd error") \
    X(CT_ERR_NUMERIC, 10, "numerical failure (singular, not definite, no convergence)") \
    X(CT_ERR_DEVICE, 11, "device mismatch or unavailable") \
    X(CT_ERR_UNSUPPORTED, 12, "operation not supported for these inputs") \
    X(CT_ERR_STATE, 13, "invalid state")

typedef enum ct_status {
#define CT__ERR_ENUM(name, num, desc) name = num,
    CT_ERRORS(CT__ERR_ENUM)
#undef CT__ERR_ENUM
    CT_NUM_ERRORS
} ct_status;

CTENSOR_API const char *ct_last_error(void);      /* message; "" when no error */
CTENSOR_API ct_status ct_last_error_code(void);   /* CT_OK when no error */
CTENSOR_API void ct_clear_error(void);
CTENSOR_API const char *ct_status_name(ct_status s);  /* "CT_ERR_SHAPE" */
/* Where error messages go as they happen. Default: stderr (none under
   CTENSOR_NO_STDIO). Pass NULL to silence. Called on the failing thread. */
typedef void (*ct_log_fn)(ct_status code, const char *message, void *user_data);
CTENSOR_API void ct_set_logger(ct_log_fn fn, void *user_data);
/* For library extensions (companion headers): record an error, printf-style. */
CTENSOR_API void ct_set_error(ct_status code, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ============================================================================
   Tensors
   A tensor is a view of a ref-counted storage. Fields are readable; change
   them only through the API. Strides are in elements, shape[0] is outermost.
   ========================================================================== */
typedef struct ct_storage {
    int32_t refcount;
    uint32_t version;       /* bumped by every in-place op on this storage */
    ct_device device;
    uint32_t flags;
    int64_t nbytes;
    void *data;
    void (*deleter)(void *data, void *user_data);  /* borrowed memory (from_blob) */
    void *deleter_user_data;
    void *ct__block;        /* private: the allocation that holds this storage */
    int32_t ct__size_class; /* private: cache class of the block, -1 when uncached */
    int64_t ct__cap;        /* private: usable bytes of the block */
    void (*ct__free)(void *ptr, ct_device dev, void *user_data);   /* private: device allocator's free */
    void *ct__free_user;    /* private */
} ct_storage;

typedef struct ct__node ct__node;
typedef struct ct__hook ct__hook;

typedef struct ct_tensor {
    ct_storage *storage;
    int64_t offset;                   /* in elements */
    int64_t shape[CT_MAX_DIMS];
    int64_t strides[CT_MAX_DIMS];     /* in elements */
    int32_t ndim;
    ct_dtype dtype;
    ct_device device;
    uint32_t flags;                   /* CT__F_* in the implementation */
    int32_t refcount;
    int32_t scope_slot;               /* position in the owning scope, -1 when none */
    /* autograd */
    ct__node *grad_fn;                /* producing node (NULL for leaves) */
    int32_t out_nr;                   /* which output of grad_fn */
    uint32_t view_version;            /* views: storage version when grad_fn was last set */
    ct__node *grad_acc;               /* AccumulateGrad node of a leaf (weak) */
    struct ct_tensor *grad;           /* .grad */
    struct ct_tensor *base;           /* base of a view (for in-place on views) */
    ct__hook *hooks;
    struct ct_qparams *qparams;       /* quantized tensors: shared with views (ctensor_quant.h) */
    const char **names;               /* named dims (ctensor_named.h): ndim interned names, NULL entries
                                         unnamed; NULL for an unnamed tensor. Read with ct_dim_name. */
} ct_tensor;

CTENSOR_API int ct_ndim(const ct_tensor *t);
CTENSOR_API int64_t ct_size(const ct_tensor *t, int dim);     /* negative dims count from the end */
CTENSOR_API int64_t ct_stride(const ct_tensor *t, int dim);
CTENSOR_API int64_t ct_numel(const ct_tensor *t);
CTENSOR_API ct_dtype ct_get_dtype(const ct_tensor *t);
CTENSOR_API int ct_is_contiguous(const ct_tensor *t);
CTENSOR_API int ct_is_channels_last(const ct_tensor *t);      /* 4-D NHWC strides */
CTENSOR_API void *ct_data_ptr(const ct_tensor *t);            /* first element (device memory for a device tensor) */
CTENSOR_API double ct_item(const ct_tensor *t);               /* one-element tensor -> double; NAN + error otherwise */
CTENSOR_API int64_t ct_item_int(const ct_tensor *t);          /* (a device tensor's element is copied to the host) */
CTENSOR_API int ct_same_shape(const ct_tensor *a, const ct_tensor *b);
CTENSOR_API uint32_t ct_version(const ct_tensor *t);          /* storage version counter */

/* Quantization parameters of a quantized tensor (qint8, quint8, qint32; the
   kernels and workflows are ctensor_quant.h's): per tensor (scale, zero_point)
   or per channel (scales[], zero_points[] along `axis`). Owned and
   reference-counted: a tensor and all its views share one ct_qparams, freed
   with the last reference. The enum values are PyTorch's torch.qscheme order. */
typedef enum ct_qscheme {
    CT_PER_TENSOR_AFFINE = 0,
    CT_PER_CHANNEL_AFFINE = 1,
    CT_PER_TENSOR_SYMMETRIC = 2,
    CT_PER_CHANNEL_SYMMETRIC = 3,
    CT_PER_CHANNEL_AFFINE_FLOAT_QPARAMS = 4
} ct_qscheme;
typedef struct ct_qparams {
    int32_t refcount;                 /* private: use ct_qparams_retain / ct_qparams_release */
    ct_qscheme qscheme;
    double scale;                     /* per tensor */
    int64_t zero_point;
    int64_t axis;                     /* per channel */
    int64_t nchannels;
    double *scales;                   /* [nchannels] (owned) */
    int64_t *zero_points;             /* [nchannels] (owned) */
} ct_qparams;
/* New parameters with one reference (the caller's). NULL with an error on bad input. */
CTENSOR_API ct_qparams *ct_qparams_per_tensor(double scale, int64_t zero_point, ct_qscheme qscheme);
CTENSOR_API ct_qparams *ct_qparams_per_channel(int64_t nchannels, const double *scales, const int64_t *zero_points,
                                               int64_t axis, ct_qscheme qscheme);
CTENSOR_API ct_qparams *ct_qparams_retain(ct_qparams *q);       /* +1; returns q */
CTENSOR_API void ct_qparams_release(ct_qparams *q);             /* -1; frees at 0; NULL is fine */
/* Gives a quantized tensor its parameters (the tensor takes its own reference;
   views made afterwards share them). Per-channel parameters must have one entry
   per index of t's `axis`. */
CTENSOR_API ct_status ct_set_qparams(ct_tensor *t, ct_qparams *q);
CTENSOR_API const ct_qparams *ct_get_qparams(const ct_tensor *t);   /* borrowed; NULL when none */

/* ============================================================================
   Memory: scopes, references, counters, allocators
   ========================================================================== */
CTENSOR_API int ct_scope_begin_at(const char *file, int line);  /* returns a scope token */
CTENSOR_API void ct_scope_end(int token);     /* also closes inner scopes left open */
#define ct_scope_begin() ct_scope_begin_at(__FILE__, __LINE__)
CTENSOR_API ct_tensor *ct_keep(ct_tensor *t);     /* move t to the enclosing scope */
CTENSOR_API ct_tensor *ct_retain(ct_tensor *t);   /* +1 reference (outlives scopes) */
CTENSOR_API void ct_release(ct_tensor *t);        /* -1 reference; balances ct_retain */
CTENSOR_API int ct_scope_depth(void);
CTENSOR_API int64_t ct_live_tensors(void);        /* tensor headers alive, all threads */
CTENSOR_API int64_t ct_live_bytes(void);          /* storage bytes ctensor allocated and holds */
/* Returns the calling thread's cached blocks to the system allocator. A thread that
   exits does this itself (with pthreads, unless CTENSOR_NO_THREADS) and also releases
   what its root scope holds; without pthreads call it before a thread ends. */
CTENSOR_API void ct_thread_cleanup(void);
/* Threads for parallel kernels (CTENSOR_THREADS or CTENSOR_OPENMP builds; 1 otherwise):
   n >= 1 sets the count, n <= 0 returns to the default (CT_NUM_THREADS or
   OMP_NUM_THREADS, else the online CPUs; under CTENSOR_OPENMP omp_get_max_threads()).
   Kernels run on one pool of n - 1 worker threads beside the calling thread, and a
   kernel never waits for a worker that has not started (see "the thread pool").
   With n > 1 and OpenBLAS as the CBLAS, ctensor sets OpenBLAS to one thread (its
   fork-join threads stall beside a busy core) and splits large products itself. */
CTENSOR_API void ct_set_num_threads(int n);
CTENSOR_API int ct_get_num_threads(void);
/* Frees a buffer ctensor made and handed over: the *data of ct_save_npy_mem,
   ct_save_safetensors_mem, ct_module_save_safetensors_mem. NULL is fine. It frees
   with the allocator the implementation was built with (CT_FREE there), which the
   caller's file may not know. */
CTENSOR_API void ct_free(void *p);

/* CT_SCOPE { ... } releases what the block made when the block is left.
   It comes in three forms, picked at compile time:
     C++ (any compiler)        a guard object's destructor closes the scope
     C with gcc or clang       a variable with __attribute__((cleanup)) closes it
     other C compilers (MSVC's C, ...), or any compiler given -DCTENSOR_PORTABLE_SCOPE:
                               two nested one-shot `for` loops; the outer loop's
                               increment closes the scope
   What leaving the block does, by form:
     falling off the end       closes the scope                 (all three forms)
     break, continue           leave the scope and close it; they never reach a loop
                               around the CT_SCOPE (all three forms)
     return, goto out of it    close it in the C++ and gcc/clang forms; in the
                               portable form they leave it open: its tensors live on
                               until an enclosing scope ends (ct_scope_end closes every
                               inner scope left open, and CTENSOR_DEBUG names it on
                               stderr) or, with no enclosing scope, in the thread's
                               root scope until the thread ends
     longjmp, exit             close nothing, in any form
   To leave a loop around a CT_SCOPE, set a flag in the block and test it after. */
#define CT__CAT2(a, b) a##b
#define CT__CAT(a, b) CT__CAT2(a, b)
#if defined(CTENSOR_PORTABLE_SCOPE) || !(defined(__cplusplus) || defined(__GNUC__) || defined(__clang__))
#  define CT_SCOPE \
    for (int CT__CAT(ct__sg_, __LINE__) = ct_scope_begin_at(__FILE__, __LINE__), CT__CAT(ct__once_, __LINE__) = 1; \
         CT__CAT(ct__once_, __LINE__); CT__CAT(ct__once_, __LINE__) = 0, ct_scope_end(CT__CAT(ct__sg_, __LINE__))) \
        for (int CT__CAT(ct__in_, __LINE__) = 1; CT__CAT(ct__in_, __LINE__); CT__CAT(ct__in_, __LINE__) = 0)
#elif defined(__cplusplus)
}  /* extern "C" */
struct ct__scope_guard {
    int token, once;
    ct__scope_guard(const char *f, int l) : token(ct_scope_begin_at(f, l)), once(1) {}
    ~ct__scope_guard() { ct_scope_end(token); }
};
#  define CT_SCOPE for (ct__scope_guard CT__CAT(ct__sg_, __LINE__)(__FILE__, __LINE__); CT__CAT(ct__sg_, __LINE__).once; CT__CAT(ct__sg_, __LINE__).once = 0)
extern "C" {
#else
CTENSOR_API void ct__scope_cleanup(int *token);
#  define CT_SCOPE for (int CT__CAT(ct__sg_, __LINE__) __attribute__((cleanup(ct__scope_cleanup), unused)) = ct_scope_begin_at(__FILE__, __LINE__), CT__CAT(ct__once_, __LINE__) = 1; CT__CAT(ct__once_, __LINE__); CT__CAT(ct__once_, __LINE__) = 0)
#endif

/* Allocator for device memory. The CPU default uses CT_MALLOC/CT_FREE. */
typedef struct ct_allocator {
    void *(*alloc)(size_t nbytes, ct_device dev, void *user_data);
    void (*free)(void *ptr, ct_device dev, void *user_data);
    void *user_data;
} ct_allocator;
/* One allocator per device type (it receives the device, index included).
   NULL restores the default. */
CTENSOR_API ct_status ct_set_allocator(ct_device_type type, const ct_allocator *a);

/* ============================================================================
   Shapes in call sites: ct_zeros(CT_FLOAT32, 3, 4) passes a shape list.
   Every such macro has an array form with an _n suffix: ct_zeros_n(dt, ndim, shape).
   ========================================================================== */
#define CT__NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, N, ...) N
#define CT__NARGS(...) CT__NARGS_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
typedef struct ct_ints { int64_t v[16]; } ct_ints;
#ifdef __cplusplus
#  define CT__INTS(...) (ct_ints{{__VA_ARGS__}}.v)
#else
#  define CT__INTS(...) ((ct_ints){{__VA_ARGS__}}.v)
#endif
/* CT_DIMS(a, b, c) expands to `3, <pointer to {a, b, c}>` for any _n function. */
#define CT_DIMS(...) CT__NARGS(__VA_ARGS__), CT__INTS(__VA_ARGS__)

/* ============================================================================
   Creation
   ========================================================================== */
CTENSOR_API ct_tensor *ct_empty_n(ct_dtype dt, int ndim, const int64_t *shape);
CTENSOR_API ct_tensor *ct_zeros_n(ct_dtype dt, int ndim, const int64_t *shape);
CTENSOR_API ct_tensor *ct_ones_n(ct_dtype dt, int ndim, const int64_t *shape);
CTENSOR_API ct_tensor *ct_full_n(ct_dtype dt, int ndim, const int64_t *shape, double value);
#define ct_empty(dt, ...) ct_empty_n(dt, CT_DIMS(__VA_ARGS__))
#define ct_zeros(dt, ...) ct_zeros_n(dt, CT_DIMS(__VA_ARGS__))
#define ct_ones(dt, ...) ct_ones_n(dt, CT_DIMS(__VA_ARGS__))
#define ct_full(dt, value, ...) ct_full_n(dt, CT_DIMS(__VA_ARGS__), value)
CTENSOR_API ct_tensor *ct_scalar_tensor(double value, ct_dtype dt);   /* 0-d tensor */
CTENSOR_API ct_tensor *ct_arange(double start, double end, double step, ct_dtype dt);
CTENSOR_API ct_tensor *ct_linspace(double start, double end, int64_t steps, ct_dtype dt);
CTENSOR_API ct_tensor *ct_eye(int64_t n, int64_t m, ct_dtype dt);     /* m < 0: square */
/* The same factories on a device (PyTorch's device= argument); the forms above
   make CPU tensors, and the *_like forms follow their input's device. A GPU
   needs ctensor_cuda.h (its allocator and kernels). */
CTENSOR_API ct_tensor *ct_empty_on_n(ct_device dev, ct_dtype dt, int ndim, const int64_t *shape);
CTENSOR_API ct_tensor *ct_zeros_on_n(ct_device dev, ct_dtype dt, int ndim, const int64_t *shape);
CTENSOR_API ct_tensor *ct_ones_on_n(ct_device dev, ct_dtype dt, int ndim, const int64_t *shape);
CTENSOR_API ct_tensor *ct_full_on_n(ct_device dev, ct_dtype dt, int ndim, const int64_t *shape, double value);
#define ct_empty_on(dev, dt, ...) ct_empty_on_n(dev, dt, CT_DIMS(__VA_ARGS__))
#define ct_zeros_on(dev, dt, ...) ct_zeros_on_n(dev, dt, CT_DIMS(__VA_ARGS__))
#define ct_ones_on(dev, dt, ...) ct_ones_on_n(dev, dt, CT_DIMS(__VA_ARGS__))
#define ct_full_on(dev, dt, value, ...) ct_full_on_n(dev, dt, CT_DIMS(__VA_ARGS__), value)
CTENSOR_API ct_tensor *ct_scalar_tensor_on(ct_device dev, double value, ct_dtype dt);
CTENSOR_API ct_tensor *ct_arange_on(ct_device dev, double start, double end, double step, ct_dtype dt);
CTENSOR_API ct_tensor *ct_linspace_on(ct_device dev, double start, double end, int64_t steps, ct_dtype dt);
CTENSOR_API ct_tensor *ct_eye_on(ct_device dev, int64_t n, int64_t m, ct_dtype dt);
CTENSOR_API ct_tensor *ct_from_data_on_n(ct_device dev, const void *data, ct_dtype dt, int ndim, const int64_t *shape);
#define ct_from_data_on(dev, data, dt, ...) ct_from_data_on_n(dev, data, dt, CT_DIMS(__VA_ARGS__))
/* Copies `data` (numel elements of dtype dt, C order). */
CTENSOR_API ct_tensor *ct_from_data_n(const void *data, ct_dtype dt, int ndim, const int64_t *shape);
#define ct_from_data(data, dt, ...) ct_from_data_n(data, dt, CT_DIMS(__VA_ARGS__))
#define ct_tensor_f32(data, ...) ct_from_data_n(data, CT_FLOAT32, CT_DIMS(__VA_ARGS__))
#define ct_tensor_f64(data, ...) ct_from_data_n(data, CT_FLOAT64, CT_DIMS(__VA_ARGS__))
#define ct_tensor_i64(data, ...) ct_from_data_n(data, CT_INT64, CT_DIMS(__VA_ARGS__))
#define ct_tensor_i32(data, ...) ct_from_data_n(data, CT_INT32, CT_DIMS(__VA_ARGS__))
#define ct_tensor_u8(data, ...) ct_from_data_n(data, CT_UINT8, CT_DIMS(__VA_ARGS__))
#define ct_tensor_bool(data, ...) ct_from_data_n(data, CT_BOOL, CT_DIMS(__VA_ARGS__))
/* Borrows `data` (no copy). strides may be NULL (C order). deleter(data, user)
   runs when the last view is gone; it may be NULL. */
CTENSOR_API ct_tensor *ct_from_blob(void *data, ct_dtype dt, int ndim, const int64_t *shape,
                                    const int64_t *strides, void (*deleter)(void *, void *), void *user_data);
CTENSOR_API ct_tensor *ct_empty_like(const ct_tensor *t);
CTENSOR_API ct_tensor *ct_zeros_like(const ct_tensor *t);
CTENSOR_API ct_tensor *ct_ones_like(const ct_tensor *t);
CTENSOR_API ct_tensor *ct_full_like(const ct_tensor *t, double value);
CTENSOR_API ct_tensor *ct_clone(const ct_tensor *t);
CTENSOR_API ct_tensor *ct_contiguous(const ct_tensor *t);
CTENSOR_API ct_tensor *ct_to(const ct_tensor *t, ct_dtype dt);          /* dtype conversion */
/* Tensor.to(device): a copy on `device` (differentiable: the gradient goes back to
   t's device); t itself (a new reference, as PyTorch returns self) when it is
   already there. The CPU kernel copies between CPU tensors; copies that involve a
   GPU are the CUDA backend's (ctensor_cuda.h). ct_to_device_dtype does both. */
CTENSOR_API ct_tensor *ct_to_device(const ct_tensor *t, ct_device device);
CTENSOR_API ct_tensor *ct_to_device_dtype(const ct_tensor *t, ct_device device, ct_dtype dt);
/* Tensor.to(device, non_blocking=True): the same copy, allowed to return before
   it is done. ctensor_cuda.h then queues a copy from pinned host memory
   (ct_cuda_pin_memory) to the GPU on the current stream without waiting; the
   source must not be changed until the stream passes that point (an event, or
   ct_cuda_stream_synchronize). Every other copy is as ct_to_device's. */
CTENSOR_API ct_tensor *ct_to_device_nonblocking(const ct_tensor *t, ct_device device);
CTENSOR_API ct_device ct_get_device(const ct_tensor *t);                /* ct_cpu() for NULL */
CTENSOR_API ct_tensor *ct_to_channels_last(const ct_tensor *t);         /* 4-D NHWC memory format */
/* Memory formats (torch.memory_format; the values are the memory_format attribute of
   clone and to). Channels-last is NHWC order for 4-D tensors, channels-last-3d NDHWC
   for 5-D; conv, pooling, batch norm and elementwise ops keep a channels-last input's
   format (elementwise: the layout PyTorch's TensorIterator picks from the operands). */
typedef enum ct_memory_format {
    CT_PRESERVE_FORMAT = 0,     /* torch.preserve_format */
    CT_CHANNELS_LAST = 1,       /* torch.channels_last */
    CT_CONTIGUOUS_FORMAT = 2,   /* torch.contiguous_format */
    CT_CHANNELS_LAST_3D = 3     /* torch.channels_last_3d */
} ct_memory_format;
/* x.contiguous(memory_format=fmt): t itself (a new reference) when it already is
   contiguous in fmt, else a copy in that format (differentiable) */
CTENSOR_API ct_tensor *ct_contiguous_format(const ct_tensor *t, ct_memory_format fmt);
/* x.is_contiguous(memory_format=fmt): dense in fmt's dim order (size-1 dims free);
   preserve_format asks for plain contiguity, as PyTorch's does */
CTENSOR_API int ct_is_contiguous_format(const ct_tensor *t, ct_memory_format fmt);
/* x.suggest_memory_format(): CT_CHANNELS_LAST (CT_CHANNELS_LAST_3D) when a 4-D (5-D)
   tensor's strides order its dims as NHWC (NDHWC), else CT_CONTIGUOUS_FORMAT; the
   format conv and pooling compute in. Ambiguous shapes (N,C,1,1) follow the strides */
CTENSOR_API ct_memory_format ct_suggest_memory_format(const ct_tensor *t);

/* ============================================================================
   Views (share storage, no copy)
   ========================================================================== */
CTENSOR_API ct_tensor *ct_view_n(const ct_tensor *t, int ndim, const int64_t *shape);
CTENSOR_API ct_tensor *ct_reshape_n(const ct_tensor *t, int ndim, const int64_t *shape);
CTENSOR_API ct_tensor *ct_permute_n(const ct_tensor *t, int ndim, const int64_t *dims);
CTENSOR_API ct_tensor *ct_expand_n(const ct_tensor *t, int ndim, const int64_t *shape);
#define ct_view(t, ...) ct_view_n(t, CT_DIMS(__VA_ARGS__))
#define ct_reshape(t, ...) ct_reshape_n(t, CT_DIMS(__VA_ARGS__))
#define ct_permute(t, ...) ct_permute_n(t, CT_DIMS(__VA_ARGS__))
#define ct_expand(t, ...) ct_expand_n(t, CT_DIMS(__VA_ARGS__))
#define ct_broadcast_to_n ct_expand_n
#define ct_broadcast_to(t, ...) ct_expand_n(t, CT_DIMS(__VA_ARGS__))
CTENSOR_API ct_tensor *ct_expand_as(const ct_tensor *t, const ct_tensor *other);
CTENSOR_API ct_tensor *ct_view_as(const ct_tensor *t, const ct_tensor *other);
CTENSOR_API ct_tensor *ct_reshape_as(const ct_tensor *t, const ct_tensor *other);
CTENSOR_API ct_tensor *ct_transpose(const ct_tensor *t, int dim0, int dim1);
CTENSOR_API ct_tensor *ct_t(const ct_tensor *t);                        /* <= 2-D transpose */
CTENSOR_API ct_tensor *ct_mT(const ct_tensor *t);                       /* swap last two dims */
/* t[start:end:step] along dim; end is clamped like Python; step must be > 0. */
CTENSOR_API ct_tensor *ct_slice(const ct_tensor *t, int dim, int64_t start, int64_t end, int64_t step);
CTENSOR_API ct_tensor *ct_narrow(const ct_tensor *t, int dim, int64_t start, int64_t length);
CTENSOR_API ct_tensor *ct_select(const ct_tensor *t, int dim, int64_t index);
CTENSOR_API ct_tensor *ct_squeeze(const ct_tensor *t);                  /* all size-1 dims */
CTENSOR_API ct_tensor *ct_squeeze_dim(const ct_tensor *t, int dim);
CTENSOR_API ct_tensor *ct_unsqueeze(const ct_tensor *t, int dim);
CTENSOR_API ct_tensor *ct_flatten(const ct_tensor *t, int start_dim, int end_dim);
CTENSOR_API ct_tensor *ct_unflatten_n(const ct_tensor *t, int dim, int ndim, const int64_t *sizes);
#define ct_unflatten(t, dim, ...) ct_unflatten_n(t, dim, CT_DIMS(__VA_ARGS__))
CTENSOR_API ct_tensor *ct_diagonal(const ct_tensor *t, int64_t offset, int dim1, int dim2);
CTENSOR_API ct_tensor *ct_as_strided(const ct_tensor *t, int ndim, const int64_t *shape,
                                     const int64_t *strides, int64_t storage_offset);
CTENSOR_API ct_tensor *ct_alias(const ct_tensor *t);                    /* a new view of the whole tensor */
/* Complex tensors (complex64, complex128: interleaved re, im, as C99 float _Complex).
   The core creates, converts, prints, saves and views them, and runs add, sub, mul,
   div, neg, sum, mean and these, with autograd (PyTorch's conjugate Wirtinger
   convention: a real loss's gradient is dL/dre + i dL/dim). Other ops say
   "not implemented for 'ComplexFloat'". */
CTENSOR_API ct_tensor *ct_view_as_real(const ct_tensor *t);     /* complex [...] -> real [..., 2] view */
CTENSOR_API ct_tensor *ct_view_as_complex(const ct_tensor *t);  /* real [..., 2] (last stride 1) -> complex view */
CTENSOR_API ct_tensor *ct_real(const ct_tensor *t);             /* view of the real parts (t itself if real) */
CTENSOR_API ct_tensor *ct_imag(const ct_tensor *t);             /* view of the imaginary parts */
CTENSOR_API ct_tensor *ct_complex(const ct_tensor *re, const ct_tensor *im);      /* torch.complex */
CTENSOR_API ct_tensor *ct_polar(const ct_tensor *abs, const ct_tensor *angle);    /* abs * (cos + i sin) */
CTENSOR_API ct_tensor *ct_conj(const ct_tensor *t);             /* a conjugated copy (a view of t if real) */
CTENSOR_API ct_tensor *ct_conj_physical(const ct_tensor *t);    /* the same; PyTorch's name for the copy */
CTENSOR_API ct_tensor *ct_full_complex_n(ct_dtype dt, int ndim, const int64_t *shape, double re, double im);  /* filled with re + im i */
#define ct_full_complex(dt, re, im, ...) ct_full_complex_n(dt, CT_DIMS(__VA_ARGS__), re, im)

/* ============================================================================
   Elementwise (broadcasting, PyTorch type promotion)
   Scalars: a double that holds an integral value acts like Python's `2`
   (keeps integer dtypes), otherwise like `2.5` (promotes integers to float).
   ========================================================================== */
/* The plain unary ops, one row each: everything about the op is here.
     OP_(ARG_, name, ENUM, "stable name", "BackwardNode", flags, save,
         int?, bool?, float expr, double expr, integer expr,
         backward prologue, backward expression)
   From a row come the public function ct_<name>(x), its op-table row, its
   loops for every dtype (x is the input element; int?/bool? say whether
   integer/bool inputs run the integer expression), and its backward rule
   (g is the output gradient; CT__BW_X / CT__BW_Y fetch the saved input X /
   output Y; CT__GRAD_ZERO: a zero gradient; CT__GRAD_NONE: not
   differentiable). Adding a unary op is adding a row (docs/CONTRIBUTING.md).
   Ops with arguments (leaky_relu, clamp, ...) are declared one by one below. */
#define CT__UNARY_OPS_TABLE(OP_, ARG_) \
    OP_(ARG_, neg, NEG, "aten::neg", "NegBackward0", CT__OPF_NO_BOOL, CT__SAVE_NONE, Y, N, \
      -x, -x, CT__ISUB(0, x), \
      , ct_neg(g)) \
    OP_(ARG_, abs, ABS, "aten::abs", "AbsBackward0", CT__OPF_NO_BOOL, CT__SAVE_IN(0), Y, N, \
      fabsf(x), fabs(x), ct__iabs(x), \
      CT__BW_X, ct_mul(g, ct_dtype_is_complex(X->dtype) ? ct_sgn(X) : ct_sign(X))) \
    OP_(ARG_, sign, SIGN, "aten::sign", "SignBackward0", 0, CT__SAVE_NONE, Y, Y, \
      (float)((0.0f < x) - (x < 0.0f)), (double)((0.0 < x) - (x < 0.0)), (int64_t)((0 < x) - (x < 0)), \
      , CT__GRAD_ZERO) \
    OP_(ARG_, sgn, SGN, "aten::sgn", "SgnBackward0", 0, CT__SAVE_IN(0) | CT__SAVE_OUT(0), Y, Y, \
      (float)((0.0f < x) - (x < 0.0f)), (double)((0.0 < x) - (x < 0.0)), (int64_t)((0 < x) - (x < 0)), \
      CT__BW_X CT__BW_Y, ct__sgn_bw(g, X, Y)) \
    OP_(ARG_, angle, ANGLE, "aten::angle", "AngleBackward0", CT__OPF_FLOAT, CT__SAVE_IN(0), N, N, \
      isnan(x) ? x : x < 0 ? 3.14159265358979323846f : 0.0f, isnan(x) ? x : x < 0 ? 3.14159265358979323846 : 0.0, 0, \
      CT__BW_X, ct__angle_bw(g, X)) \
    OP_(ARG_, exp, EXP, "aten::exp", "ExpBackward0", CT__OPF_FLOAT, CT__SAVE_OUT(0), N, N, \
      ct__expf(x), exp(x), 0, \
      CT__BW_Y, ct_mul(g, Y)) \
    OP_(ARG_, exp2, EXP2, "aten::exp2", "Exp2Backward0", CT__OPF_FLOAT, CT__SAVE_OUT(0), N, N, \
      exp2f(x), exp2(x), 0, \
      CT__BW_Y, ct_mul(g, ct_mul_scalar(Y, CT__LN2))) \
    OP_(ARG_, expm1, EXPM1, "aten::expm1", "Expm1Backward0", CT__OPF_FLOAT, CT__SAVE_OUT(0), N, N, \
      expm1f(x), expm1(x), 0, \
      CT__BW_Y, ct_mul(g, ct_add_scalar(Y, 1.0))) \
    OP_(ARG_, log, LOG, "aten::log", "LogBackward0", CT__OPF_FLOAT, CT__SAVE_IN(0), N, N, \
      logf(x), log(x), 0, \
      CT__BW_X, ct_div(g, X)) \
    OP_(ARG_, log2, LOG2, "aten::log2", "Log2Backward0", CT__OPF_FLOAT, CT__SAVE_IN(0), N, N, \
      log2f(x), log2(x), 0, \
      CT__BW_X, ct_div(g, ct_mul_scalar(X, CT__LN2))) \
    OP_(ARG_, log10, LOG10, "aten::log10", "Log10Backward0", CT__OPF_FLOAT, CT__SAVE_IN(0), N, N, \
      log10f(x), log10(x), 0, \
      CT__BW_X, ct_div(g, ct_mul_scalar(X, CT__LN10))) \
    OP_(ARG_, log1p, LOG1P, "aten::log1p", "Log1PBackward0", CT__OPF_FLOAT, CT__SAVE_IN(0), N, N, \
      log1pf(x), log1p(x), 0, \
      CT__BW_X, ct_div(g, ct_add_scalar(X, 1.0))) \
    OP_(ARG_, sqrt, SQRT, "aten::sqrt", "SqrtBackward0", CT__OPF_FLOAT, CT__SAVE_OUT(0), N, N, \
      sqrtf(x), sqrt(x), 0, \
      CT__BW_Y, ct_div(g, ct_mul_scalar(Y, 2.0))) \
    OP_(ARG_, rsqrt, RSQRT, "aten::rsqrt", "RsqrtBackward0", CT__OPF_FLOAT, CT__SAVE_OUT(0), N, N, \
      1.0f / sqrtf(x), 1.0 / sqrt(x), 0, \
      CT__BW_Y, ct_mul(g, ct_mul_scalar(ct_pow_scalar(Y, 3.0), -0.5))) \
    OP_(ARG_, reciprocal, RECIPROCAL, "aten::reciprocal", "ReciprocalBackward0", CT__OPF_FLOAT, CT__SAVE_OUT(0), N, N, \
      1.0f / x, 1.0 / x, 0, \
      CT__BW_Y, ct_mul(g, ct_neg(ct_mul(Y, Y)))) \
    OP_(ARG_, square, SQUARE, "aten::square", "PowBackward0", 0, CT__SAVE_IN(0), Y, N, \
      x * x, x * x, CT__IMUL(x, x), \
      CT__BW_X, ct_mul(g, ct_mul_scalar(X, 2.0))) \
    OP_(ARG_, sin, SIN, "aten::sin", "SinBackward0", CT__OPF_FLOAT, CT__SAVE_IN(0), N, N, \
      sinf(x), sin(x), 0, \
      CT__BW_X, ct_mul(g, ct_cos(X))) \
    OP_(ARG_, cos, COS, "aten::cos", "CosBackward0", CT__OPF_FLOAT, CT__SAVE_IN(0), N, N, \
      cosf(x), cos(x), 0, \
      CT__BW_X, ct_mul(g, ct_neg(ct_sin(X)))) \
    OP_(ARG_, tan, TAN, "aten::tan", "TanBackward0", CT__OPF_FLOAT, CT__SAVE_OUT(0), N, N, \
      tanf(x), tan(x), 0, \
      CT__BW_Y, ct_mul(g, ct_add_scalar(ct_mul(Y, Y), 1.0))) \
    OP_(ARG_, asin, ASIN, "aten::asin", "AsinBackward0", CT__OPF_FLOAT, CT__SAVE_IN(0), N, N, \
      asinf(x), asin(x), 0, \
      CT__BW_X, ct_div(g, ct_sqrt(ct_rsub_scalar(1.0, ct_mul(X, X))))) \
    OP_(ARG_, acos, ACOS, "aten::acos", "AcosBackward0", CT__OPF_FLOAT, CT__SAVE_IN(0), N, N, \
      acosf(x), acos(x), 0, \
      CT__BW_X, ct_neg(ct_div(g, ct_sqrt(ct_rsub_scalar(1.0, ct_mul(X, X)))))) \
    OP_(ARG_, atan, ATAN, "aten::atan", "AtanBackward0", CT__OPF_FLOAT, CT__SAVE_IN(0), N, N, \
      atanf(x), atan(x), 0, \
      CT__BW_X, ct_div(g, ct_add_scalar(ct_mul(X, X), 1.0))) \
    OP_(ARG_, sinh, SINH, "aten::sinh", "SinhBackward0", CT__OPF_FLOAT, CT__SAVE_IN(0), N, N, \
      sinhf(x), sinh(x), 0, \
      CT__BW_X, ct_mul(g, ct_cosh(X))) \
    OP_(ARG_, cosh, COSH, "aten::cosh", "CoshBackward0", CT__OPF_FLOAT, CT__SAVE_IN(0), N, N, \
      coshf(x), cosh(x), 0, \
      CT__BW_X, ct_mul(g, ct_sinh(X))) \
    OP_(ARG_, tanh, TANH, "aten::tanh", "TanhBackward0", CT__OPF_FLOAT, CT__SAVE_OUT(0), N, N, \
      ct__tanhf(x), tanh(x), 0, \
      CT__BW_Y, ct_mul(g, ct_rsub_scalar(1.0, ct_mul(Y, Y)))) \
    OP_(ARG_, sigmoid, SIGMOID, "aten::sigmoid", "SigmoidBackward0", CT__OPF_FLOAT, CT__SAVE_OUT(0), N, N, \
      ct__sigmoidf(x), ct__sigmoid(x), 0, \
      CT__BW_Y, ct_mul(g, ct_mul(Y, ct_rsub_scalar(1.0, Y)))) \
    OP_(ARG_, logsigmoid, LOGSIGMOID, "aten::log_sigmoid", "LogSigmoidBackward0", CT__OPF_NO_INT | CT__OPF_NO_BOOL, CT__SAVE_IN(0), N, N, \
      fminf(x, 0.0f) - log1pf(expf(-fabsf(x))), fmin(x, 0.0) - log1p(exp(-fabs(x))), 0, \
      CT__BW_X, ct_mul(g, ct_sigmoid(ct_neg(X)))) \
    OP_(ARG_, relu, RELU, "aten::relu", "ReluBackward0", CT__OPF_NO_BOOL, CT__SAVE_OUT(0), Y, N, \
      x < 0.0f ? 0.0f : x, x < 0.0 ? 0.0 : x, x < 0 ? 0 : x, \
      CT__BW_Y, ct_where_scalar(ct_gt_scalar(Y, 0.0), g, 0.0)) \
    OP_(ARG_, relu6, RELU6, "aten::relu6", "HardtanhBackward0", CT__OPF_NO_BOOL, CT__SAVE_IN(0), Y, N, \
      ct__clampf(x, 0.0f, 6.0f), ct__clampd(x, 0.0, 6.0), ct__clampi(x, 0, 6), \
      CT__BW_X, ct_where_scalar(ct_logical_and(ct_gt_scalar(X, 0.0), ct_lt_scalar(X, 6.0)), g, 0.0)) \
    OP_(ARG_, selu, SELU, "aten::selu", "EluBackward0", CT__OPF_NO_INT | CT__OPF_NO_BOOL, CT__SAVE_IN(0), N, N, \
      (float)CT__SELU_SCALE * (x > 0.0f ? x : (float)CT__SELU_ALPHA * expm1f(x)), CT__SELU_SCALE * (x > 0.0 ? x : CT__SELU_ALPHA * expm1(x)), 0, \
      CT__BW_X, ct_where(ct_gt_scalar(X, 0.0), ct_mul_scalar(g, CT__SELU_SCALE), ct_mul(g, ct_mul_scalar(ct_exp(X), CT__SELU_SCALE * CT__SELU_ALPHA)))) \
    OP_(ARG_, silu, SILU, "aten::silu", "SiluBackward0", CT__OPF_NO_INT | CT__OPF_NO_BOOL, CT__SAVE_IN(0), N, N, \
      x / (1.0f + ct__expf(-x)), x / (1.0 + exp(-x)), 0, \
      CT__BW_X ct_tensor *s = ct_sigmoid(X);, ct_mul(g, ct_mul(s, ct_add_scalar(ct_mul(X, ct_rsub_scalar(1.0, s)), 1.0)))) \
    OP_(ARG_, mish, MISH, "aten::mish", "MishBackward0", CT__OPF_NO_INT | CT__OPF_NO_BOOL, CT__SAVE_IN(0), N, N, \
      x * tanhf(log1pf(expf(x))), x * tanh(log1p(exp(x))), 0, \
      CT__BW_X ct_tensor *s = ct_sigmoid(X); ct_tensor *tsp = ct_tanh(ct_softplus(X, 1.0, 20.0));, ct_mul(g, ct_add(tsp, ct_mul(ct_mul(X, s), ct_rsub_scalar(1.0, ct_mul(tsp, tsp)))))) \
    OP_(ARG_, hardsigmoid, HARDSIGMOID, "aten::hardsigmoid", "HardsigmoidBackward0", CT__OPF_NO_INT | CT__OPF_NO_BOOL, CT__SAVE_IN(0), N, N, \
      ct__clampf(x + 3.0f, 0.0f, 6.0f) / 6.0f, ct__clampd(x + 3.0, 0.0, 6.0) / 6.0, 0, \
      CT__BW_X, ct_where_scalar(ct_logical_and(ct_gt_scalar(X, -3.0), ct_lt_scalar(X, 3.0)), ct_mul_scalar(g, (double)(1.0f / 6.0f)), 0.0)) \
    OP_(ARG_, hardswish, HARDSWISH, "aten::hardswish", "HardswishBackward0", CT__OPF_NO_INT | CT__OPF_NO_BOOL, CT__SAVE_IN(0), N, N, \
      x * ct__clampf(x + 3.0f, 0.0f, 6.0f) / 6.0f, x * ct__clampd(x + 3.0, 0.0, 6.0) / 6.0, 0, \
      CT__BW_X ct_tensor *mid = ct_mul(g, ct_add_scalar(ct_mul_scalar(X, 1.0 / 3.0), 0.5));, ct_where(ct_lt_scalar(X, -3.0), ct_zeros_like(g), ct_where(ct_le_scalar(X, 3.0), mid, g))) \
    OP_(ARG_, erf, ERF, "aten::erf", "ErfBackward0", CT__OPF_FLOAT, CT__SAVE_IN(0), N, N, \
      ct__erff(x), erf(x), 0, \
      CT__BW_X, ct_mul(g, ct_mul_scalar(ct_exp(ct_neg(ct_mul(X, X))), 1.1283791670955126))) \
    OP_(ARG_, erfc, ERFC, "aten::erfc", "ErfcBackward0", CT__OPF_FLOAT, CT__SAVE_IN(0), N, N, \
      ct__erfcf(x), erfc(x), 0, \
      CT__BW_X, ct_mul(g, ct_mul_scalar(ct_exp(ct_neg(ct_mul(X, X))), -1.1283791670955126))) \
    OP_(ARG_, floor, FLOOR, "aten::floor", "FloorBackward0", CT__OPF_NO_BOOL, CT__SAVE_NONE, Y, N, \
      floorf(x), floor(x), x, \
      , CT__GRAD_ZERO) \
    OP_(ARG_, ceil, CEIL, "aten::ceil", "CeilBackward0", CT__OPF_NO_BOOL, CT__SAVE_NONE, Y, N, \
      ceilf(x), ceil(x), x, \
      , CT__GRAD_ZERO) \
    OP_(ARG_, round, ROUND, "aten::round", "RoundBackward0", CT__OPF_NO_BOOL, CT__SAVE_NONE, Y, N, \
      nearbyintf(x), nearbyint(x), x, \
      , CT__GRAD_ZERO) \
    OP_(ARG_, trunc, TRUNC, "aten::trunc", "TruncBackward0", CT__OPF_NO_BOOL, CT__SAVE_NONE, Y, N, \
      truncf(x), trunc(x), x, \
      , CT__GRAD_ZERO) \
    OP_(ARG_, frac, FRAC, "aten::frac", "FracBackward0", CT__OPF_NO_INT | CT__OPF_NO_BOOL, CT__SAVE_NONE, N, N, \
      x - truncf(x), x - trunc(x), 0, \
      , g) \
    OP_(ARG_, bitwise_not, BITWISE_NOT, "aten::bitwise_not", "", CT__OPF_NONDIFF | CT__OPF_INT_ONLY, CT__SAVE_NONE, Y, Y, \
      x, x, ~x, \
      , CT__GRAD_NONE)

/* Unary predicates (bool outputs, not differentiable):
     OP_(ARG_, name, ENUM, "stable name", flags, float expr, double expr, integer expr) */
#define CT__UNARY_PREDICATES_TABLE(OP_, ARG_) \
    OP_(ARG_, isnan, ISNAN, "aten::isnan", CT__OPF_NONDIFF | CT__OPF_OUT_BOOL, x != x, x != x, 0) \
    OP_(ARG_, isinf, ISINF, "aten::isinf", CT__OPF_NONDIFF | CT__OPF_OUT_BOOL, fabsf(x) == INFINITY, fabs(x) == INFINITY, 0) \
    OP_(ARG_, isfinite, ISFINITE, "aten::isfinite", CT__OPF_NONDIFF | CT__OPF_OUT_BOOL, fabsf(x) < INFINITY, fabs(x) < INFINITY, 1) \
    OP_(ARG_, isposinf, ISPOSINF, "aten::isposinf", CT__OPF_NONDIFF | CT__OPF_OUT_BOOL, x == INFINITY, x == INFINITY, 0) \
    OP_(ARG_, isneginf, ISNEGINF, "aten::isneginf", CT__OPF_NONDIFF | CT__OPF_OUT_BOOL, x == -INFINITY, x == -INFINITY, 0) \
    OP_(ARG_, signbit, SIGNBIT, "aten::signbit", CT__OPF_NONDIFF | CT__OPF_OUT_BOOL, signbit(x) != 0, signbit(x) != 0, x < 0) \
    OP_(ARG_, logical_not, LOGICAL_NOT, "aten::logical_not", CT__OPF_NONDIFF | CT__OPF_OUT_BOOL | CT__OPF_LOGICAL, x == 0, x == 0, x == 0)
#define CT__UNARY_DECL_M(ARG_, name, ...) CTENSOR_API ct_tensor *ct_##name(const ct_tensor *x);
CT__UNARY_OPS_TABLE(CT__UNARY_DECL_M, ~)
CT__UNARY_PREDICATES_TABLE(CT__UNARY_DECL_M, ~)
CTENSOR_API ct_tensor *ct_leaky_relu(const ct_tensor *x, double negative_slope);   /* 0.01 */
CTENSOR_API ct_tensor *ct_elu(const ct_tensor *x, double alpha);                   /* 1.0 */
CTENSOR_API ct_tensor *ct_celu(const ct_tensor *x, double alpha);
CTENSOR_API ct_tensor *ct_gelu(const ct_tensor *x, const char *approximate);       /* "none" or "tanh" */
CTENSOR_API ct_tensor *ct_softplus(const ct_tensor *x, double beta, double threshold);  /* 1, 20 */
CTENSOR_API ct_tensor *ct_hardtanh(const ct_tensor *x, double min_val, double max_val); /* -1, 1 */
CTENSOR_API ct_tensor *ct_threshold(const ct_tensor *x, double threshold, double value);
/* nan_to_num: pass NAN for posinf/neginf to mean "the dtype's largest/smallest finite". */
CTENSOR_API ct_tensor *ct_nan_to_num(const ct_tensor *x, double nan, double posinf, double neginf);
CTENSOR_API ct_tensor *ct_round_decimals(const ct_tensor *x, int decimals);
CTENSOR_API ct_tensor *ct_pow_scalar(const ct_tensor *x, double exponent);
CTENSOR_API ct_tensor *ct_rpow_scalar(double base, const ct_tensor *x);           /* base ** x */

#define CT__BINARY_PUBLIC(X) \
    X(mul) X(div) X(floor_divide) X(remainder) X(fmod) X(pow) X(atan2) X(maximum) \
    X(minimum) X(hypot) X(eq) X(ne) X(lt) X(le) X(gt) X(ge) X(logical_and) \
    X(logical_or) X(logical_xor) X(bitwise_and) X(bitwise_or) X(bitwise_xor) \
    X(bitwise_left_shift) X(bitwise_right_shift) X(fmax) X(fmin) X(copysign) X(xlogy)
#define CT__BINARY_DECL(name) \
    CTENSOR_API ct_tensor *ct_##name(const ct_tensor *a, const ct_tensor *b); \
    CTENSOR_API ct_tensor *ct_##name##_scalar(const ct_tensor *a, double b);
CT__BINARY_PUBLIC(CT__BINARY_DECL)
CTENSOR_API ct_tensor *ct_add(const ct_tensor *a, const ct_tensor *b);
CTENSOR_API ct_tensor *ct_sub(const ct_tensor *a, const ct_tensor *b);
CTENSOR_API ct_tensor *ct_add_alpha(const ct_tensor *a, const ct_tensor *b, double alpha);  /* a + alpha*b */
CTENSOR_API ct_tensor *ct_sub_alpha(const ct_tensor *a, const ct_tensor *b, double alpha);
CTENSOR_API ct_tensor *ct_add_scalar(const ct_tensor *a, double b);
CTENSOR_API ct_tensor *ct_sub_scalar(const ct_tensor *a, double b);
CTENSOR_API ct_tensor *ct_rsub_scalar(double a, const ct_tensor *b);     /* a - b */
CTENSOR_API ct_tensor *ct_rdiv_scalar(double a, const ct_tensor *b);     /* a / b */
/* rounding_mode: NULL (true division), "trunc" or "floor" */
CTENSOR_API ct_tensor *ct_div_mode(const ct_tensor *a, const ct_tensor *b, const char *rounding_mode);
CTENSOR_API ct_tensor *ct_where(const ct_tensor *cond, const ct_tensor *a, const ct_tensor *b);
CTENSOR_API ct_tensor *ct_where_scalar(const ct_tensor *cond, const ct_tensor *a, double b);
CTENSOR_API ct_tensor *ct_clamp(const ct_tensor *x, double min, double max);      /* NAN = no bound */
CTENSOR_API ct_tensor *ct_clamp_tensor(const ct_tensor *x, const ct_tensor *min, const ct_tensor *max); /* NULL = no bound */
CTENSOR_API ct_tensor *ct_masked_fill(const ct_tensor *x, const ct_tensor *mask, double value);
CTENSOR_API ct_tensor *ct_masked_fill_tensor(const ct_tensor *x, const ct_tensor *mask, const ct_tensor *value);
CTENSOR_API ct_tensor *ct_lerp(const ct_tensor *start, const ct_tensor *end, const ct_tensor *weight);
CTENSOR_API ct_tensor *ct_lerp_scalar(const ct_tensor *start, const ct_tensor *end, double weight);
CTENSOR_API ct_tensor *ct_addcmul(const ct_tensor *x, const ct_tensor *t1, const ct_tensor *t2, double value);
CTENSOR_API ct_tensor *ct_addcdiv(const ct_tensor *x, const ct_tensor *t1, const ct_tensor *t2, double value);
CTENSOR_API ct_tensor *ct_isclose(const ct_tensor *a, const ct_tensor *b, double rtol, double atol, int equal_nan);
CTENSOR_API int ct_allclose(const ct_tensor *a, const ct_tensor *b, double rtol, double atol);  /* 1, 0, or -1 on error */
CTENSOR_API int ct_equal(const ct_tensor *a, const ct_tensor *b);                               /* torch.equal */

/* In-place variants: modify `x` (returned), bump its version counter. */
CTENSOR_API ct_tensor *ct_add_(ct_tensor *x, const ct_tensor *other);
CTENSOR_API ct_tensor *ct_add_alpha_(ct_tensor *x, const ct_tensor *other, double alpha);
CTENSOR_API ct_tensor *ct_sub_(ct_tensor *x, const ct_tensor *other);
CTENSOR_API ct_tensor *ct_mul_(ct_tensor *x, const ct_tensor *other);
CTENSOR_API ct_tensor *ct_div_(ct_tensor *x, const ct_tensor *other);
CTENSOR_API ct_tensor *ct_add_scalar_(ct_tensor *x, double v);
CTENSOR_API ct_tensor *ct_mul_scalar_(ct_tensor *x, double v);
CTENSOR_API ct_tensor *ct_fill_(ct_tensor *x, double v);
CTENSOR_API ct_tensor *ct_zero_(ct_tensor *x);
CTENSOR_API ct_tensor *ct_copy_(ct_tensor *dst, const ct_tensor *src);   /* broadcasting, converting */
CTENSOR_API ct_tensor *ct_clamp_(ct_tensor *x, double min, double max);
CTENSOR_API ct_tensor *ct_relu_(ct_tensor *x);
CTENSOR_API ct_tensor *ct_masked_fill_(ct_tensor *x, const ct_tensor *mask, double value);
CTENSOR_API ct_tensor *ct_addcmul_(ct_tensor *x, const ct_tensor *t1, const ct_tensor *t2, double value);
CTENSOR_API ct_tensor *ct_addcdiv_(ct_tensor *x, const ct_tensor *t1, const ct_tensor *t2, double value);
CTENSOR_API ct_tensor *ct_lerp_scalar_(ct_tensor *x, const ct_tensor *end, double weight);
/* Generic in-place form of any unary op by name is not provided: use ct_copy_(x, ct_op(x)). */

/* ============================================================================
   Reductions. dims lists: ndims == 0 means "all dims" where PyTorch allows it.
   ========================================================================== */
CTENSOR_API ct_tensor *ct_sum(const ct_tensor *x);
CTENSOR_API ct_tensor *ct_sum_dim(const ct_tensor *x, int dim, int keepdim);
CTENSOR_API ct_tensor *ct_sum_dims(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim);
CTENSOR_API ct_tensor *ct_sum_to_size_n(const ct_tensor *x, int ndim, const int64_t *shape);  /* Tensor.sum_to_size */
CTENSOR_API ct_tensor *ct_mean(const ct_tensor *x);
CTENSOR_API ct_tensor *ct_mean_dim(const ct_tensor *x, int dim, int keepdim);
CTENSOR_API ct_tensor *ct_mean_dims(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim);

/* ----------------------------------------------------------------------------
   Reductions, scans and sorting (continued): prod, var/std, max/min, arg*,
   logsumexp, all/any, norm, softmax, cumulative ops, sort/topk/median...
   -------------------------------------------------------------------------- */
/* [section: reduce-api] */
/* Conventions, all PyTorch's: `dims` lists may hold negative dims and must not
   repeat one; ndims == 0 reduces every dim. Outputs that PyTorch returns as a
   (values, indices) pair return the values and store the int64 indices in
   *indices when indices is not NULL (both belong to the current scope). NaN
   propagates through max/min/amax/amin/median and sorts as the largest value;
   ties in max/min/argmax/argmin pick the first index, as on PyTorch's CPU. */

/* sum / mean / prod / nansum with PyTorch's dtype= (input cast first, output dtype). */
CTENSOR_API ct_tensor *ct_sum_dtype(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim, ct_dtype dtype);
CTENSOR_API ct_tensor *ct_mean_dtype(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim, ct_dtype dtype);
/* torch.prod: integer and bool inputs give int64; the product of nothing is 1. */
CTENSOR_API ct_tensor *ct_prod(const ct_tensor *x);
CTENSOR_API ct_tensor *ct_prod_dim(const ct_tensor *x, int dim, int keepdim);
CTENSOR_API ct_tensor *ct_prod_dtype(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim, ct_dtype dtype);
/* torch.nansum / torch.nanmean: NaN counts as zero / is left out of the count. */
CTENSOR_API ct_tensor *ct_nansum(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim);
CTENSOR_API ct_tensor *ct_nanmean(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim);
CTENSOR_API ct_tensor *ct_nansum_dtype(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim, ct_dtype dtype);

/* torch.var / torch.std; correction = 1 is PyTorch's default (unbiased), 0 the
   population variance. Floating inputs only. */
CTENSOR_API ct_tensor *ct_var(const ct_tensor *x);
CTENSOR_API ct_tensor *ct_var_dims(const ct_tensor *x, int ndims, const int64_t *dims, double correction, int keepdim);
CTENSOR_API ct_tensor *ct_std(const ct_tensor *x);
CTENSOR_API ct_tensor *ct_std_dims(const ct_tensor *x, int ndims, const int64_t *dims, double correction, int keepdim);
/* torch.var_mean / torch.std_mean: returns the var (std); *mean gets the mean (may be NULL). */
CTENSOR_API ct_tensor *ct_var_mean(const ct_tensor *x, int ndims, const int64_t *dims, double correction, int keepdim, ct_tensor **mean);
CTENSOR_API ct_tensor *ct_std_mean(const ct_tensor *x, int ndims, const int64_t *dims, double correction, int keepdim, ct_tensor **mean);

/* torch.max(x) / torch.min(x): 0-d result; an empty input is an error. */
CTENSOR_API ct_tensor *ct_max(const ct_tensor *x);
CTENSOR_API ct_tensor *ct_min(const ct_tensor *x);
/* torch.max(x, dim, keepdim): values, and the index of the first maximum. */
CTENSOR_API ct_tensor *ct_max_dim(const ct_tensor *x, int dim, int keepdim, ct_tensor **indices);
CTENSOR_API ct_tensor *ct_min_dim(const ct_tensor *x, int dim, int keepdim, ct_tensor **indices);
CTENSOR_API ct_tensor *ct_amax(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim);
CTENSOR_API ct_tensor *ct_amin(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim);
/* torch.argmax(x): index into the flattened input; _dim: along dim. int64. */
CTENSOR_API ct_tensor *ct_argmax(const ct_tensor *x);
CTENSOR_API ct_tensor *ct_argmax_dim(const ct_tensor *x, int dim, int keepdim);
CTENSOR_API ct_tensor *ct_argmin(const ct_tensor *x);
CTENSOR_API ct_tensor *ct_argmin_dim(const ct_tensor *x, int dim, int keepdim);
/* torch.logsumexp, numerically stable; integer inputs give the default float dtype. */
CTENSOR_API ct_tensor *ct_logsumexp(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim);

/* torch.all / torch.any: any dtype in, bool out (uint8 in, uint8 out, as PyTorch). */
CTENSOR_API ct_tensor *ct_all(const ct_tensor *x);
CTENSOR_API ct_tensor *ct_all_dim(const ct_tensor *x, int dim, int keepdim);
CTENSOR_API ct_tensor *ct_any(const ct_tensor *x);
CTENSOR_API ct_tensor *ct_any_dim(const ct_tensor *x, int dim, int keepdim);
CTENSOR_API ct_tensor *ct_count_nonzero(const ct_tensor *x, int ndims, const int64_t *dims);   /* int64 */

/* torch.norm(x, p, dim, keepdim) for vectors: p = 2 (Euclidean), 1, INFINITY,
   -INFINITY, 0 (count of non-zeros) or any real p. Floating inputs only. */
CTENSOR_API ct_tensor *ct_norm(const ct_tensor *x, double p, int ndims, const int64_t *dims, int keepdim);

/* torch.softmax / torch.log_softmax along dim: fused and numerically stable;
   float16 / bfloat16 compute in float. _dtype casts the input first (dtype=). */
CTENSOR_API ct_tensor *ct_softmax(const ct_tensor *x, int dim);
CTENSOR_API ct_tensor *ct_log_softmax(const ct_tensor *x, int dim);
CTENSOR_API ct_tensor *ct_softmax_dtype(const ct_tensor *x, int dim, ct_dtype dtype);
CTENSOR_API ct_tensor *ct_log_softmax_dtype(const ct_tensor *x, int dim, ct_dtype dtype);

/* Scans along dim. cumsum/cumprod of integers and bool give int64 (or dtype). */
CTENSOR_API ct_tensor *ct_cumsum(const ct_tensor *x, int dim);
CTENSOR_API ct_tensor *ct_cumprod(const ct_tensor *x, int dim);
CTENSOR_API ct_tensor *ct_cumsum_dtype(const ct_tensor *x, int dim, ct_dtype dtype);
CTENSOR_API ct_tensor *ct_cumprod_dtype(const ct_tensor *x, int dim, ct_dtype dtype);
/* torch.cummax / cummin: running values and the index where each was found
   (the latest index among equal values, as PyTorch). */
CTENSOR_API ct_tensor *ct_cummax(const ct_tensor *x, int dim, ct_tensor **indices);
CTENSOR_API ct_tensor *ct_cummin(const ct_tensor *x, int dim, ct_tensor **indices);

/* torch.sort(stable=True): equal values keep their order; NaN sorts last
   (first when descending). argsort returns the indices only. */
CTENSOR_API ct_tensor *ct_sort(const ct_tensor *x, int dim, int descending, ct_tensor **indices);
CTENSOR_API ct_tensor *ct_argsort(const ct_tensor *x, int dim, int descending);
/* torch.topk: the k largest (or smallest) along dim; among equal values the
   lower index comes first. Results are sorted whatever `sorted` says. */
CTENSOR_API ct_tensor *ct_topk(const ct_tensor *x, int64_t k, int dim, int largest, int sorted, ct_tensor **indices);
/* torch.kthvalue: the k-th smallest (k from 1) along dim. */
CTENSOR_API ct_tensor *ct_kthvalue(const ct_tensor *x, int64_t k, int dim, int keepdim, ct_tensor **indices);
/* torch.median: the lower median (NaN if the input holds a NaN); 0-d for ct_median. */
CTENSOR_API ct_tensor *ct_median(const ct_tensor *x);
CTENSOR_API ct_tensor *ct_median_dim(const ct_tensor *x, int dim, int keepdim, ct_tensor **indices);
/* torch.mode: the most frequent value along dim (the smallest of equally
   frequent ones) and the last index where it occurs. */
CTENSOR_API ct_tensor *ct_mode(const ct_tensor *x, int dim, int keepdim, ct_tensor **indices);

/* ============================================================================
   Indexing and joining: gather/scatter, index_*, masked_*, cat/stack/split,
   flip/roll/repeat, tril/triu, diag, one_hot, pad
   ========================================================================== */
/* [section: index-api] */
/* Dimension arguments that PyTorch allows to be None (repeat_interleave) take CT_DIM_NONE. */
#define CT_DIM_NONE (-2147483647 - 1)
/* What ct_dim_of (ctensor_named.h) returns for a name the tensor lacks: an op given it
   fails keeping ct_dim_of's message ("Name 'X' not found in Tensor['N', 'C']."). */
#define CT_DIM_NOT_FOUND (-2147483647)
/* torch.index_select: int32 or int64 index (a vector or a scalar). */
CTENSOR_API ct_tensor *ct_index_select(const ct_tensor *x, int dim, const ct_tensor *index);
/* torch.gather / scatter family (int64 index with x's number of dims) */
CTENSOR_API ct_tensor *ct_gather(const ct_tensor *x, int dim, const ct_tensor *index);
CTENSOR_API ct_tensor *ct_scatter(const ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src);
CTENSOR_API ct_tensor *ct_scatter_value(const ct_tensor *x, int dim, const ct_tensor *index, double value);
CTENSOR_API ct_tensor *ct_scatter_add(const ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src);
/* reduce: "sum", "prod", "mean", "amax" or "amin" */
CTENSOR_API ct_tensor *ct_scatter_reduce(const ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src,
                                         const char *reduce, int include_self);
/* index_add: x[..., index[i], ...] += alpha * src[..., i, ...] (the source slice broadcasts) */
CTENSOR_API ct_tensor *ct_index_add(const ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src, double alpha);
CTENSOR_API ct_tensor *ct_index_copy(const ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src);
CTENSOR_API ct_tensor *ct_index_fill(const ct_tensor *x, int dim, const ct_tensor *index, double value);
/* Advanced indexing, x[indices] and x[indices] = values (Tensor.index_put). indices[k]
   indexes dim k (a bool/uint8 mask covers as many dims as it has); CT_SLICE_ALL
   entries are full slices (`:`, Python's None in the index list). Index tensors are
   int64, bool or uint8, as in PyTorch 1.13. A NULL entry is an error (a failed call). */
#define CT_SLICE_ALL ((ct_tensor *)(uintptr_t)1)
CTENSOR_API ct_tensor *ct_index(const ct_tensor *x, int n, ct_tensor *const *indices);
CTENSOR_API ct_tensor *ct_index_put(const ct_tensor *x, int n, ct_tensor *const *indices, const ct_tensor *values, int accumulate);
CTENSOR_API ct_tensor *ct_masked_select(const ct_tensor *x, const ct_tensor *mask);
CTENSOR_API ct_tensor *ct_masked_scatter(const ct_tensor *x, const ct_tensor *mask, const ct_tensor *source);
CTENSOR_API ct_tensor *ct_nonzero(const ct_tensor *x);                          /* int64 [count, ndim] */
/* nonzero(as_tuple=True): one int64 vector per dim (a 0-d input counts as 1-d). Returns the
   number of tensors, writing at most max_out of them; -1 on error. */
CTENSOR_API int ct_nonzero_tuple(const ct_tensor *x, ct_tensor **out, int max_out);
CTENSOR_API ct_tensor *ct_take(const ct_tensor *x, const ct_tensor *index);     /* int64 index into x.flatten() */
/* Joining: lists of tensors as (n, ts). dtypes promote as in PyTorch. */
CTENSOR_API ct_tensor *ct_cat(int n, ct_tensor *const *ts, int dim);
CTENSOR_API ct_tensor *ct_stack(int n, ct_tensor *const *ts, int dim);
/* Splitting into views: each returns the number of pieces and writes at most max_out of
   them into out (out may be NULL with max_out 0 to ask for the count); -1 on error. */
CTENSOR_API int ct_split(const ct_tensor *x, int64_t split_size, int dim, ct_tensor **out, int max_out);
CTENSOR_API int ct_split_sizes(const ct_tensor *x, int nsizes, const int64_t *sizes, int dim, ct_tensor **out, int max_out);
CTENSOR_API int ct_chunk(const ct_tensor *x, int chunks, int dim, ct_tensor **out, int max_out);
CTENSOR_API int ct_unbind(const ct_tensor *x, int dim, ct_tensor **out, int max_out);
/* Reordering and repeating */
CTENSOR_API ct_tensor *ct_flip(const ct_tensor *x, int ndims, const int64_t *dims);
/* ndims == 0: roll the flattened tensor (then nshifts must be 1) */
CTENSOR_API ct_tensor *ct_roll(const ct_tensor *x, int nshifts, const int64_t *shifts, int ndims, const int64_t *dims);
CTENSOR_API ct_tensor *ct_repeat(const ct_tensor *x, int n, const int64_t *repeats);  /* Tensor.repeat */
CTENSOR_API ct_tensor *ct_tile(const ct_tensor *x, int n, const int64_t *reps);
CTENSOR_API ct_tensor *ct_repeat_interleave(const ct_tensor *x, int64_t repeats, int dim);   /* dim may be CT_DIM_NONE */
CTENSOR_API ct_tensor *ct_repeat_interleave_tensor(const ct_tensor *x, const ct_tensor *repeats, int dim);
CTENSOR_API ct_tensor *ct_repeat_interleave_index(const ct_tensor *repeats);                /* torch.repeat_interleave(repeats) */
/* Triangles and diagonals */
CTENSOR_API ct_tensor *ct_tril(const ct_tensor *x, int64_t diagonal);
CTENSOR_API ct_tensor *ct_triu(const ct_tensor *x, int64_t diagonal);
CTENSOR_API ct_tensor *ct_diag(const ct_tensor *x, int64_t diagonal);           /* 1-D -> matrix, 2-D -> vector */
CTENSOR_API ct_tensor *ct_diag_embed(const ct_tensor *x, int64_t offset, int dim1, int dim2);  /* 0, -2, -1 */
/* F.one_hot: int64 input; num_classes -1 infers max + 1 */
CTENSOR_API ct_tensor *ct_one_hot(const ct_tensor *x, int64_t num_classes);
/* F.pad: pads lists (left, right) pairs starting from the last dim; mode "constant"
   (NULL too), "reflect", "replicate" or "circular"; value only for "constant". */
CTENSOR_API ct_tensor *ct_pad(const ct_tensor *x, int npad, const int64_t *pads, const char *mode, double value);
/* In-place forms: modify x (returned) and bump its version counter. */
CTENSOR_API ct_tensor *ct_scatter_(ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src);
CTENSOR_API ct_tensor *ct_scatter_value_(ct_tensor *x, int dim, const ct_tensor *index, double value);
CTENSOR_API ct_tensor *ct_scatter_add_(ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src);
CTENSOR_API ct_tensor *ct_scatter_reduce_(ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src,
                                          const char *reduce, int include_self);
CTENSOR_API ct_tensor *ct_index_add_(ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src, double alpha);
CTENSOR_API ct_tensor *ct_index_copy_(ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src);
CTENSOR_API ct_tensor *ct_index_fill_(ct_tensor *x, int dim, const ct_tensor *index, double value);
CTENSOR_API ct_tensor *ct_index_put_(ct_tensor *x, int n, ct_tensor *const *indices, const ct_tensor *values, int accumulate);
CTENSOR_API ct_tensor *ct_masked_scatter_(ct_tensor *x, const ct_tensor *mask, const ct_tensor *source);

/* ============================================================================
   Matrix products (PyTorch's 1-D / 2-D / batched broadcasting rules)
   ========================================================================== */
CTENSOR_API ct_tensor *ct_matmul(const ct_tensor *a, const ct_tensor *b);
CTENSOR_API ct_tensor *ct_mm(const ct_tensor *a, const ct_tensor *b);
CTENSOR_API ct_tensor *ct_bmm(const ct_tensor *a, const ct_tensor *b);

/* Matrix products (continued): bmm, addmm, baddbmm, addmv, dot, vdot, outer,
   einsum, linear, tensordot */
/* [section: blas-api] */
/* beta * input + alpha * (mat1 @ mat2); input broadcasts to the result */
CTENSOR_API ct_tensor *ct_addmm(const ct_tensor *input, const ct_tensor *mat1, const ct_tensor *mat2, double beta, double alpha);
/* beta * input + alpha * bmm(batch1, batch2) */
CTENSOR_API ct_tensor *ct_baddbmm(const ct_tensor *input, const ct_tensor *batch1, const ct_tensor *batch2, double beta, double alpha);
/* beta * input + alpha * (mat @ vec) */
CTENSOR_API ct_tensor *ct_addmv(const ct_tensor *input, const ct_tensor *mat, const ct_tensor *vec, double beta, double alpha);
CTENSOR_API ct_tensor *ct_mv(const ct_tensor *mat, const ct_tensor *vec);
CTENSOR_API ct_tensor *ct_dot(const ct_tensor *a, const ct_tensor *b);           /* 1-D . 1-D -> 0-d */
CTENSOR_API ct_tensor *ct_vdot(const ct_tensor *a, const ct_tensor *b);          /* conj(a) . b; real: dot */
CTENSOR_API ct_tensor *ct_outer(const ct_tensor *a, const ct_tensor *b);         /* a[i] * b[j] */
/* torch.nn.functional.linear: x @ weight^T + bias over any leading dims; bias may be NULL */
CTENSOR_API ct_tensor *ct_linear(const ct_tensor *x, const ct_tensor *weight, const ct_tensor *bias);
/* torch.tensordot(a, b, dims=(dims_a, dims_b)) and dims=n (last n of a with first n of b) */
CTENSOR_API ct_tensor *ct_tensordot(const ct_tensor *a, const ct_tensor *b, int ndims_a, const int64_t *dims_a,
                                    int ndims_b, const int64_t *dims_b);
CTENSOR_API ct_tensor *ct_tensordot_int(const ct_tensor *a, const ct_tensor *b, int64_t dims);
/* torch.einsum("ij,jk->ik", a, b): operands[n]; implicit and explicit output, repeated
   subscripts (diagonals), "..." broadcasting, any number of operands */
CTENSOR_API ct_tensor *ct_einsum(const char *equation, int n, ct_tensor *const *operands);

/* ============================================================================
   Random numbers. One default generator per process (ct_manual_seed), or
   explicit generators. Same seed, same numbers, run to run.
   ========================================================================== */
/* PyTorch's CPU generator: a 32-bit Mersenne Twister (mt19937). With the same
   seed, ct_rand / ct_randn / ct_randint / ct_randperm / bernoulli produce the
   same numbers as torch.rand / randn / randint / randperm / bernoulli_ on CPU. */
typedef struct ct_generator {
    uint32_t mt[624];
    int32_t mti;
    uint64_t seed;
    double next_double_normal;
    int32_t has_next_double_normal;
    int32_t lock;
} ct_generator;
CTENSOR_API void ct_manual_seed(uint64_t seed);
CTENSOR_API ct_generator *ct_default_generator(void);
CTENSOR_API void ct_generator_init(ct_generator *g, uint64_t seed);
CTENSOR_API uint32_t ct_generator_random(ct_generator *g);     /* next 32 bits; NULL = default */
CTENSOR_API uint64_t ct_generator_random64(ct_generator *g);
CTENSOR_API uint64_t ct_initial_seed(void);
CTENSOR_API ct_tensor *ct_rand_n(ct_dtype dt, int ndim, const int64_t *shape);
CTENSOR_API ct_tensor *ct_randn_n(ct_dtype dt, int ndim, const int64_t *shape);
CTENSOR_API ct_tensor *ct_rand_on_n(ct_device dev, ct_dtype dt, int ndim, const int64_t *shape);
CTENSOR_API ct_tensor *ct_randn_on_n(ct_device dev, ct_dtype dt, int ndim, const int64_t *shape);
#define ct_rand_on(dev, dt, ...) ct_rand_on_n(dev, dt, CT_DIMS(__VA_ARGS__))
#define ct_randn_on(dev, dt, ...) ct_randn_on_n(dev, dt, CT_DIMS(__VA_ARGS__))
#define ct_rand(dt, ...) ct_rand_n(dt, CT_DIMS(__VA_ARGS__))
#define ct_randn(dt, ...) ct_randn_n(dt, CT_DIMS(__VA_ARGS__))
/* In-place fills; g NULL = the default generator. */
CTENSOR_API ct_tensor *ct_uniform_(ct_tensor *x, double from, double to, ct_generator *g);
CTENSOR_API ct_tensor *ct_normal_(ct_tensor *x, double mean, double std, ct_generator *g);
/* [section: random-api] */
/* More of torch's random functions, on the same generator and with PyTorch
   1.13's CPU algorithms (aten/src/ATen/native/cpu/DistributionTemplates.h,
   core/DistributionsHelper.h, core/TransformationHelper.h): with the same seed
   they give PyTorch's numbers. In-place fills visit elements in memory order,
   as TensorIterator does. g NULL = the default generator. Not differentiable. */
/* torch.randint(low, high, size, dtype=dt): integers uniform in [low, high) */
CTENSOR_API ct_tensor *ct_randint_n(int64_t low, int64_t high, ct_dtype dt, int ndim, const int64_t *shape, ct_generator *g);
#define ct_randint(low, high, dt, ...) ct_randint_n(low, high, dt, CT_DIMS(__VA_ARGS__), NULL)
CTENSOR_API ct_tensor *ct_randint_like(const ct_tensor *x, int64_t low, int64_t high, ct_generator *g);
CTENSOR_API ct_tensor *ct_rand_like(const ct_tensor *x, ct_generator *g);
CTENSOR_API ct_tensor *ct_randn_like(const ct_tensor *x, ct_generator *g);
/* Tensor.random_(): integers over the dtype's range ([0, 2^mantissa] for floats) */
CTENSOR_API ct_tensor *ct_random_(ct_tensor *x, ct_generator *g);
/* Tensor.random_(from, to): integers in [from, to) */
CTENSOR_API ct_tensor *ct_random_range_(ct_tensor *x, int64_t from, int64_t to, ct_generator *g);
/* torch.bernoulli(p): 0/1 draws with probabilities p (a float tensor), dtype of p */
CTENSOR_API ct_tensor *ct_bernoulli(const ct_tensor *p, ct_generator *g);
/* torch.bernoulli(x, p): like x, each element 1 with probability p */
CTENSOR_API ct_tensor *ct_bernoulli_p(const ct_tensor *x, double p, ct_generator *g);
CTENSOR_API ct_tensor *ct_bernoulli_(ct_tensor *x, const ct_tensor *p, ct_generator *g);     /* p broadcasts to x */
CTENSOR_API ct_tensor *ct_bernoulli_scalar_(ct_tensor *x, double p, ct_generator *g);
CTENSOR_API ct_tensor *ct_exponential_(ct_tensor *x, double lambd, ct_generator *g);          /* lambd 1.0 */
/* torch.randperm(n, dtype=dt) */
CTENSOR_API ct_tensor *ct_randperm(int64_t n, ct_dtype dt, ct_generator *g);
CTENSOR_API ct_tensor *ct_randperm_on(ct_device dev, int64_t n, ct_dtype dt, ct_generator *g);   /* torch.randperm(n, device=dev) */
/* torch.multinomial(probs, num_samples, replacement): probs 1-D or 2-D (rows),
   non-negative, not normalized; int64 indices. Bit-exact with PyTorch for
   float32/float64 probs (float16/bfloat16 are computed in float32), except the
   order among equal scores without replacement (zero probabilities drawn when
   num_samples exceeds the non-zero count): here ties keep index order, while
   PyTorch's order comes from std::nth_element. */
CTENSOR_API ct_tensor *ct_multinomial(const ct_tensor *probs, int64_t num_samples, int replacement, ct_generator *g);
/* torch.normal with tensor arguments (broadcast); the result does not require grad */
CTENSOR_API ct_tensor *ct_normal_tensor(const ct_tensor *mean, const ct_tensor *std, ct_generator *g);
CTENSOR_API ct_tensor *ct_normal_tensor_scalar(const ct_tensor *mean, double std, ct_generator *g);
CTENSOR_API ct_tensor *ct_normal_scalar_tensor(double mean, const ct_tensor *std, ct_generator *g);

/* ============================================================================
   Autograd
   ========================================================================== */
CTENSOR_API ct_tensor *ct_requires_grad(ct_tensor *t);              /* requires_grad_(True), returns t */
CTENSOR_API ct_tensor *ct_set_requires_grad(ct_tensor *t, int requires_grad);
CTENSOR_API int ct_get_requires_grad(const ct_tensor *t);
CTENSOR_API int ct_is_leaf(const ct_tensor *t);
CTENSOR_API ct_tensor *ct_grad(const ct_tensor *t);                 /* borrowed .grad or NULL */
/* t.grad = grad (NULL clears). Like PyTorch, the grad must match t's dtype, device and
   shape; on a mismatch t.grad is left as it was and an error is returned. */
CTENSOR_API ct_status ct_set_grad(ct_tensor *t, ct_tensor *grad);
/* x.detach_(): makes t a leaf that does not require grad. A view cannot be detached in
   place (its base keeps its history): use ct_detach. */
CTENSOR_API ct_tensor *ct_detach(const ct_tensor *t);
CTENSOR_API ct_tensor *ct_detach_(ct_tensor *t);
CTENSOR_API ct_tensor *ct_retain_grad(ct_tensor *t);
/* ct_backward(root): root.backward(); a scalar root only (else see ct_backward_ex). */
CTENSOR_API ct_status ct_backward(ct_tensor *root);
typedef struct ct_backward_options {
    int retain_graph;           /* keep saved tensors for another backward */
    int create_graph;           /* record the backward pass (higher-order gradients) */
    int ninputs;                /* accumulate only into these leaves (inputs=) */
    ct_tensor *const *inputs;
} ct_backward_options;
CTENSOR_API ct_status ct_backward_ex(int nroots, ct_tensor *const *roots, ct_tensor *const *grad_outputs,
                                     const ct_backward_options *opt);
typedef struct ct_grad_options {
    int retain_graph;           /* default: same as create_graph */
    int create_graph;
    int allow_unused;           /* an input the outputs do not depend on gets NULL */
    int materialize_grads;      /* ... or zeros, when allow_unused */
} ct_grad_options;
/* torch.autograd.grad: fills grads[ninputs] (new tensors in the current scope). */
CTENSOR_API ct_status ct_autograd_grad(int noutputs, ct_tensor *const *outputs, ct_tensor *const *grad_outputs,
                                       int ninputs, ct_tensor *const *inputs, ct_tensor **grads,
                                       const ct_grad_options *opt);

/* Grad modes (thread-local). set_grad_enabled returns the previous mode. */
CTENSOR_API int ct_is_grad_enabled(void);
CTENSOR_API int ct_set_grad_enabled(int enabled);
CTENSOR_API int ct_is_inference_mode_enabled(void);
CTENSOR_API int ct_set_inference_mode(int enabled);
/* CT_NO_GRAD { ... } / CT_ENABLE_GRAD { ... } / CT_INFERENCE_MODE { ... }: the mode
   holds inside the block and the previous one comes back when the block is left
   (made like CT_SCOPE, in the same three forms: break and continue leave the block
   and restore the mode in all three; return and goto restore it in the C++ and
   gcc/clang forms only: in the portable form they leave the mode set). */
CTENSOR_API void ct__restore_grad_mode(int *prev);
CTENSOR_API void ct__restore_inference_mode(int *prev);
#if defined(CTENSOR_PORTABLE_SCOPE) || !(defined(__cplusplus) || defined(__GNUC__) || defined(__clang__))
#  define CT__MODE_BLOCK(setfn, restorefn, val, n) \
    for (int CT__CAT(ct__m_, n) = setfn(val), CT__CAT(ct__mo_, n) = 1; CT__CAT(ct__mo_, n); \
         CT__CAT(ct__mo_, n) = 0, restorefn(&CT__CAT(ct__m_, n))) \
        for (int CT__CAT(ct__mi_, n) = 1; CT__CAT(ct__mi_, n); CT__CAT(ct__mi_, n) = 0)
#elif defined(__cplusplus)
}  /* extern "C" */
struct ct__mode_guard {
    int prev, once;
    void (*restore)(int *);
    ct__mode_guard(int p, void (*r)(int *)) : prev(p), once(1), restore(r) {}
    ~ct__mode_guard() { restore(&prev); }
};
#  define CT__MODE_BLOCK(setfn, restorefn, val, n) for (ct__mode_guard CT__CAT(ct__m_, n)(setfn(val), restorefn); CT__CAT(ct__m_, n).once; CT__CAT(ct__m_, n).once = 0)
extern "C" {
#else
#  define CT__MODE_BLOCK(setfn, restorefn, val, n) for (int CT__CAT(ct__m_, n) __attribute__((cleanup(restorefn), unused)) = setfn(val), CT__CAT(ct__mo_, n) = 1; CT__CAT(ct__mo_, n); CT__CAT(ct__mo_, n) = 0)
#endif
#define CT_NO_GRAD CT__MODE_BLOCK(ct_set_grad_enabled, ct__restore_grad_mode, 0, __LINE__)
#define CT_ENABLE_GRAD CT__MODE_BLOCK(ct_set_grad_enabled, ct__restore_grad_mode, 1, __LINE__)
#define CT_INFERENCE_MODE CT__MODE_BLOCK(ct_set_inference_mode, ct__restore_inference_mode, 1, __LINE__)

/* Diagnostics: how many backward nodes (incl. AccumulateGrad) this thread has run. */
CTENSOR_API int64_t ct_autograd_nodes_run(void);
/* Graph inspection: grad_fn name ("MulBackward0") and its next functions. */
CTENSOR_API const char *ct_grad_fn_name(const ct_tensor *t);        /* NULL for leaves */
CTENSOR_API int ct_node_num_next(const ct__node *n);
CTENSOR_API const ct__node *ct_node_next(const ct__node *n, int i, int *input_nr);  /* NULL if that input needs no grad */
CTENSOR_API const char *ct_node_name(const ct__node *n);
CTENSOR_API const ct__node *ct_grad_fn(const ct_tensor *t);
/* Hooks: called with the gradient flowing into t; return a replacement tensor or
   NULL to keep it. Returns a handle for ct_remove_hook. */
typedef ct_tensor *(*ct_hook_fn)(ct_tensor *grad, void *user_data);
CTENSOR_API int ct_register_hook(ct_tensor *t, ct_hook_fn fn, void *user_data);
CTENSOR_API void ct_remove_hook(ct_tensor *t, int handle);

/* gradcheck: compares the analytic vector-Jacobian products of fn with
   central finite differences in float64. Inputs must be float64 or complex128
   (those that require grad are checked); as PyTorch's, a complex input has its
   real and imaginary parts perturbed and a complex output is checked part by
   part. Returns 1 when all match; otherwise 0 and the worst element is
   described by ct_last_error(). */
typedef ct_tensor *(*ct_grad_fn_t)(ct_tensor *const *inputs, void *user_data);
typedef struct ct_gradcheck_options { double eps, atol, rtol; } ct_gradcheck_options;   /* 0: 1e-6, 1e-5, 1e-3 */
CTENSOR_API int ct_gradcheck(ct_grad_fn_t fn, void *user_data, int ninputs, ct_tensor *const *inputs,
                             const ct_gradcheck_options *opt);
CTENSOR_API int ct_gradgradcheck(ct_grad_fn_t fn, void *user_data, int ninputs, ct_tensor *const *inputs,
                                 const ct_gradcheck_options *opt);


/* ============================================================================
   Ops from outside: schemas, typed attributes, the dispatch hook, kernels per
   backend (for tracers, profilers, tools and companion headers)
   Every op call goes through one dispatcher. Each op has a stable schema name
   ("aten::add.Tensor"; "ct::div_trunc" for ops of our own), a short name used
   in messages ("add"), and typed attributes declared in its row. Op ids are
   small integers that may differ between builds (companion headers register
   their ops at run time); names never change. See docs/SPINE.md.
   ========================================================================== */
/* The attribute values of one op call. Which fields an op uses, under which
   names and types, is its schema (ct_op_attr); the others stay zero. Compare,
   hash, print and parse them with the ct_attrs_* functions (never memcmp). */
typedef struct ct_attrs {
    double s[8];                   /* float slots */
    int64_t i[4];                  /* int slots */
    int64_t v[3 * CT_MAX_DIMS];    /* int list slots; v[0..nv) for a variable list */
    int32_t nv;
    int32_t flags;                 /* bool slots (one bit each) and presence bits of optionals */
    int32_t mode;                  /* an enum slot */
    ct_dtype dtype;
    ct_device device;
} ct_attrs;

typedef enum ct_attr_type {
    CT_ATTR_INT = 0,       /* int64 */
    CT_ATTR_FLOAT = 1,     /* double */
    CT_ATTR_BOOL = 2,
    CT_ATTR_DTYPE = 3,
    CT_ATTR_DEVICE = 4,
    CT_ATTR_INT_LIST = 5,
    CT_ATTR_FLOAT_LIST = 6,
    CT_ATTR_ENUM = 7       /* one of a few names (a string argument in PyTorch) */
} ct_attr_type;
typedef struct ct_attr_info {
    char name[32];
    ct_attr_type type;
    int optional;          /* may be None */
    int count;             /* lists: the fixed length, or -1 when variable; scalars: 1 */
    char values[1024];     /* enums: the names, '|'-separated ("none|mean|sum") */
} ct_attr_info;
/* One attribute's value, for ct_attrs_get / ct_attrs_set. */
typedef struct ct_attr_value {
    ct_attr_type type;
    int is_none;           /* an optional that is None */
    int count;             /* lists: number of entries */
    int64_t i;             /* INT, BOOL (0/1), ENUM (index into the names) */
    double f;              /* FLOAT */
    ct_dtype dtype;
    ct_device device;
    int64_t ints[3 * CT_MAX_DIMS];
    double floats[8];
} ct_attr_value;

/* op flags, as ct_op_flags reports them */
#define CT_OP_INPLACE        0x0002u   /* writes into input 0 */
#define CT_OP_VIEW           0x0004u   /* outputs are views of input 0 */
#define CT_OP_NONDIFF        0x0001u   /* outputs never require grad */
#define CT_OP_DATA_SHAPE     0x0400u   /* output shape depends on input values (nonzero, ...) */
#define CT_OP_RANDOM         0x0800u   /* draws from a generator */
#define CT_OP_DEVICE_ATTR    0x1000u   /* the device attribute chooses the output device */

CTENSOR_API int ct_num_ops(void);                          /* built-in and registered so far */
/* Id of an op by stable name ("aten::add.Tensor") or short name ("add": the first
   op with that name); -1 (no error recorded) when unknown. Registers the ops of
   the companion headers compiled in, first. */
CTENSOR_API int ct_op_find(const char *name);
CTENSOR_API const char *ct_op_schema_name(int op);          /* "aten::add.Tensor"; "?" for a bad id */
CTENSOR_API const char *ct_op_name(int op);                 /* "add" */
CTENSOR_API const char *ct_op_backward_name(int op);        /* "AddBackward0"; "" when not differentiable */
CTENSOR_API int ct_op_num_inputs(int op);                   /* -1: variadic */
CTENSOR_API int ct_op_num_outputs(int op);
CTENSOR_API unsigned ct_op_flags(int op);                   /* CT_OP_* */
CTENSOR_API int ct_op_num_attrs(int op);                    /* -1 for a bad id */
CTENSOR_API ct_status ct_op_attr(int op, int k, ct_attr_info *info);
/* The schema in one line: "aten::sum.dim_IntList(Tensor, *, int[] dim, bool keepdim, dtype? dtype) -> Tensor" */
CTENSOR_API size_t ct_op_schema(int op, char *buf, size_t cap);

CTENSOR_API void ct_attrs_init(ct_attrs *a);                /* all zero */
/* Every attribute of op at PyTorch's default (alpha=1 for add, correction=1 for
   var, ...; zero or None where PyTorch's default is). */
CTENSOR_API ct_status ct_attrs_defaults(int op, ct_attrs *a);
/* Equality and a hash over the op's declared attributes only (for CSE). */
CTENSOR_API int ct_attrs_equal(int op, const ct_attrs *a, const ct_attrs *b);
CTENSOR_API uint64_t ct_attrs_hash(int op, const ct_attrs *a);
/* "dim=[1], keepdim=False, dtype=None": the text form graph dumps print and
   files store; ct_attrs_parse reads it back exactly (floats round-trip). Returns
   the length (like snprintf). */
CTENSOR_API size_t ct_attrs_repr(int op, const ct_attrs *a, char *buf, size_t cap);
CTENSOR_API ct_status ct_attrs_parse(int op, const char *text, ct_attrs *a);
CTENSOR_API ct_status ct_attrs_get(int op, const ct_attrs *a, const char *name, ct_attr_value *out);
CTENSOR_API ct_status ct_attrs_set(int op, ct_attrs *a, const char *name, const ct_attr_value *value);

/* Runs op `op` on nin inputs with attributes a (NULL: PyTorch's defaults) through the
   dispatcher, exactly as the public functions do (checks, autograd, listeners).
   g: the generator of a random op (NULL: the default). inplace: write the result
   into in[0] (the _ form of an elementwise op, as ct_add_); ops that are in
   place by nature (CT_OP_INPLACE) always are. Writes up to max_out outputs (new
   references in the current scope; an in-place result is in[0] itself) and
   returns the op's output count, or -1 with the error set. */
CTENSOR_API int ct_dispatch(int op, int nin, ct_tensor *const *in, const ct_attrs *a, ct_generator *g, int inplace,
                            ct_tensor **out, int max_out);

/* The dispatch hook: listeners see every op call of their thread. */
typedef enum ct_dispatch_phase {
    CT_DISPATCH_ENTER = 0,   /* before the op runs (listeners that asked CT_LISTEN_ENTER) */
    CT_DISPATCH_EXIT = 1,    /* after it ran: outputs are set */
    CT_DISPATCH_FAIL = 2     /* it failed after ENTER was sent: ct_last_error() says why */
} ct_dispatch_phase;
typedef struct ct_dispatch_event {
    ct_dispatch_phase phase;
    int op;                            /* id: ct_op_schema_name(op) is its stable name */
    int nin, nout;
    ct_tensor *const *inputs;
    ct_tensor *const *outputs;         /* EXIT only (an in-place op's output 0 is inputs[0]) */
    const ct_attrs *attrs;
    ct_generator *generator;           /* random ops: the generator they draw from (never NULL) */
    int depth;                         /* 0: called from user code or a backward rule; > 0: inside another op's kernel */
    int grad_enabled;                  /* grad mode of the caller */
    int inplace;                       /* the call writes into inputs[0] (an in-place op or the _ form of one) */
} ct_dispatch_event;
typedef void (*ct_dispatch_listener_fn)(const ct_dispatch_event *e, void *user_data);
#define CT_LISTEN_ENTER  1u   /* also call before each op (profilers) */
#define CT_LISTEN_NESTED 2u   /* also see ops run inside other ops' kernels (depth > 0) */
/* Adds a listener on the calling thread; returns a handle > 0, or -1 with an error.
   A listener may call ctensor ops: they run unobserved. Cost when a thread has no
   listener: one predictable branch per op. */
CTENSOR_API int ct_add_dispatch_listener(ct_dispatch_listener_fn fn, void *user_data, unsigned flags);
CTENSOR_API ct_status ct_remove_dispatch_listener(int handle);

/* Kernels per backend. The backend of a call comes from its inputs' device type
   (or, for CT_OP_DEVICE_ATTR ops, the device attribute when it is not the CPU)
   and from their dtypes (a quantized input selects the Quantized backend of the
   device). Lookup: the kernel registered for that backend; for the CPU, the op's
   own kernel when none was registered; for views (CT_OP_VIEW: they only make new
   metadata), the op's own kernel on any backend. There is no silent fallback to another
   backend: a missing kernel is an error naming the op and the backend, as
   PyTorch's "Could not run 'aten::add.Tensor' with arguments from the 'QuantizedCPU'
   backend". Slots 4..7 are free for further backends. */
typedef enum ct_backend {
    CT_BACKEND_CPU = 0,
    CT_BACKEND_CUDA = 1,
    CT_BACKEND_QUANTIZED_CPU = 2,
    CT_BACKEND_QUANTIZED_CUDA = 3,
    CT_NUM_BACKENDS = 8
} ct_backend;
CTENSOR_API const char *ct_backend_name(ct_backend b);     /* "CPU", "QuantizedCPU", ... */
/* A kernel: the dispatcher has checked the inputs, run the meta function and
   allocated the outputs; the kernel fills them and returns 0, or -1 with the
   error set. Its argument is ctensor's internal call record (struct ct__call,
   visible to companion headers compiled with the implementation). */
typedef struct ct__call ct_op_call;
typedef int (*ct_kernel_fn)(ct_op_call *c);
/* Registers fn for op `name` (stable or short name) on backend b, replacing any
   earlier one; fn NULL removes it. */
CTENSOR_API ct_status ct_register_kernel(const char *name, ct_backend b, ct_kernel_fn fn);
/* A backend whose dtype rules differ from the CPU's (the quantized ones) also
   brings its own meta function (output shapes and dtypes; pure: metadata only),
   used instead of the op's for that backend. meta NULL: the op's own. Metas use
   the call record's internals, so they live in a companion header. */
typedef int (*ct_meta_fn)(ct_op_call *c);
CTENSOR_API ct_status ct_register_backend_op(const char *name, ct_backend b, ct_meta_fn meta, ct_kernel_fn fn);
/* What a kernel outside the implementation's translation unit may read of its call:
   the inputs, the outputs the dispatcher allocated (shape, dtype and device are set;
   fill their data), the attributes, the generator of a random op (NULL: default). */
CTENSOR_API int ct_op_call_op(const ct_op_call *c);
CTENSOR_API int ct_op_call_num_inputs(const ct_op_call *c);
CTENSOR_API ct_tensor *ct_op_call_input(const ct_op_call *c, int i);
CTENSOR_API int ct_op_call_num_outputs(const ct_op_call *c);
CTENSOR_API ct_tensor *ct_op_call_output(const ct_op_call *c, int j);
CTENSOR_API const ct_attrs *ct_op_call_attrs(const ct_op_call *c);
CTENSOR_API ct_generator *ct_op_call_generator(const ct_op_call *c);

/* ============================================================================
   Serialization: .npy (NumPy) and safetensors
   Loaders validate every length and offset before use: a corrupt file gives
   CT_ERR_FORMAT (or CT_ERR_IO) and a message naming the file, never a crash.
   ========================================================================== */
/* .npy versions 1.0, 2.0 and 3.0; little- or big-endian; fortran_order arrays
   load as a transposed view. name is used in messages (may be NULL). */
CTENSOR_API ct_tensor *ct_load_npy_mem(const void *data, size_t len, const char *name);
CTENSOR_API ct_status ct_save_npy_mem(const ct_tensor *t, void **data, size_t *len);  /* free *data with ct_free */
#ifndef CTENSOR_NO_STDIO
CTENSOR_API ct_tensor *ct_load_npy(const char *path);
CTENSOR_API ct_status ct_save_npy(const char *path, const ct_tensor *t);              /* writes version 1.0 */
#endif

/* safetensors */
/* [section: safetensors-api] */
/* safetensors (Hugging Face's format, as safetensors.torch reads and writes it):
   8-byte little-endian header length N, N bytes of JSON
   {"__metadata__": {"k": "v"}, "name": {"dtype": "F32", "shape": [2, 3],
   "data_offsets": [begin, end]}, ...}, then the data buffer, which the tensors
   must cover exactly. dtypes: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL, and
   C64 (complex64 as safetensors 0.7 stores it: F32 pairs, real part first) and
   C128 (complex128 by the same rule: ctensor's own; other readers reject it, so
   to share one save ct_view_as_real(t), an F64 [..., 2]).
   A loaded file is an opaque handle; ct_safetensors_get returns a tensor (in the
   current scope) that views the handle's buffer without a copy when the data is
   aligned: the buffer is reference-counted, so tensors stay valid after
   ct_safetensors_free. Two gets of one name share memory (ct_clone for a copy).
   Every length, offset, shape and string is validated before use; a bad file
   gives NULL with CT_ERR_FORMAT and a message naming the file. */
typedef struct ct_safetensors ct_safetensors;
CTENSOR_API ct_safetensors *ct_safetensors_load_mem(const void *data, size_t len, const char *name);  /* copies data */
CTENSOR_API void ct_safetensors_free(ct_safetensors *st);                        /* NULL is fine */
CTENSOR_API int ct_safetensors_count(const ct_safetensors *st);                  /* tensors; -1 for NULL */
CTENSOR_API const char *ct_safetensors_name(const ct_safetensors *st, int i);    /* sorted by name; NULL if out of range */
/* dtype and shape of tensor i without materializing it; returns 0, or -1 with an error */
CTENSOR_API int ct_safetensors_info(const ct_safetensors *st, int i, ct_dtype *dtype, int *ndim, int64_t *shape);
CTENSOR_API ct_tensor *ct_safetensors_get(ct_safetensors *st, const char *name);
CTENSOR_API int ct_safetensors_metadata_count(const ct_safetensors *st);
CTENSOR_API const char *ct_safetensors_metadata_key(const ct_safetensors *st, int i);  /* sorted */
CTENSOR_API const char *ct_safetensors_metadata(const ct_safetensors *st, const char *key);  /* NULL if absent */
/* Writes n named tensors (any layout; CPU) and nmeta metadata pairs, as
   safetensors' reference writer does: tensors ordered by dtype alignment then
   name, header padded with spaces to a multiple of 8. Free *data with ct_free. */
CTENSOR_API ct_status ct_save_safetensors_mem(int n, const char *const *names, const ct_tensor *const *tensors,
                                              int nmeta, const char *const *meta_keys, const char *const *meta_values,
                                              void **data, size_t *len);
#ifndef CTENSOR_NO_STDIO
CTENSOR_API ct_safetensors *ct_safetensors_load(const char *path);
CTENSOR_API ct_status ct_save_safetensors_n(const char *path, int n, const char *const *names, const ct_tensor *const *tensors,
                                            int nmeta, const char *const *meta_keys, const char *const *meta_values);
#endif

/* ============================================================================
   Interop: DLPack (PyTorch's torch.utils.dlpack.to_dlpack / from_dlpack)
   The DLPack 1.0 structs, declared here with dlpack.h's layout and names (Debian's
   dlpack headers predate 1.0). Including dlpack.h before ctensor.h is fine: its
   definitions are used (a pre-1.0 dlpack.h gets only the versioned parts added);
   after ctensor.h, its include guard makes it a no-op.
   Both directions are zero copy. ct_to_dlpack* hold a reference to the storage
   until the consumer calls the deleter (once, on any thread); the data pointer is
   the first element and byte_offset 0, as PyTorch exports (PyTorch 1.13's
   from_dlpack ignores byte_offset). ct_from_dlpack* return a tensor on the foreign
   memory (byte_offset honoured) whose last release calls the producer's deleter
   once; on failure they return NULL and leave the managed tensor to the caller
   (who still owns it and calls its deleter). A read-only import is copied and its
   deleter called at once (ctensor tensors are writable). Devices: kDLCPU,
   kDLCUDAHost (as CPU) and kDLCUDA (a CUDA tensor). Dtypes: every ct_dtype but
   the quantized ones. Tensors that require grad are refused, as PyTorch does.
   ========================================================================== */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0
typedef enum { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLOpenCL = 4, kDLVulkan = 7, kDLMetal = 8, kDLVPI = 9,
               kDLROCM = 10, kDLROCMHost = 11, kDLExtDev = 12, kDLCUDAManaged = 13, kDLOneAPI = 14, kDLWebGPU = 15,
               kDLHexagon = 16 } DLDeviceType;
typedef struct { DLDeviceType device_type; int32_t device_id; } DLDevice;
typedef enum { kDLInt = 0U, kDLUInt = 1U, kDLFloat = 2U, kDLOpaqueHandle = 3U, kDLBfloat = 4U, kDLComplex = 5U,
               kDLBool = 6U } DLDataTypeCode;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;       /* in elements; NULL: compact row-major */
    uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
#endif
#ifndef DLPACK_FLAG_BITMASK_READ_ONLY   /* ours, or a pre-1.0 dlpack.h: add the 1.0 parts */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
typedef struct { uint32_t major; uint32_t minor; } DLPackVersion;
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;         /* DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED */
    DLTensor dl_tensor;
} DLManagedTensorVersioned;
#endif
/* torch.utils.dlpack.to_dlpack(t): a new DLManagedTensor sharing t's memory. */
CTENSOR_API DLManagedTensor *ct_to_dlpack(const ct_tensor *t);
/* the DLPack 1.0 struct (version 1.0); flags: DLPACK_FLAG_BITMASK_READ_ONLY and/or
   _IS_COPIED, passed on to the consumer */
CTENSOR_API DLManagedTensorVersioned *ct_to_dlpack_versioned(const ct_tensor *t, uint64_t flags);
/* torch.utils.dlpack.from_dlpack(capsule): takes ownership of m when it succeeds. */
CTENSOR_API ct_tensor *ct_from_dlpack(DLManagedTensor *m);
CTENSOR_API ct_tensor *ct_from_dlpack_versioned(DLManagedTensorVersioned *m);

/* ============================================================================
   Printing
   ========================================================================== */
#ifndef CTENSOR_NO_STDIO
#include <stdio.h>
CTENSOR_API void ct_print(const ct_tensor *t);                   /* like print(t) */
CTENSOR_API void ct_fprint(FILE *f, const ct_tensor *t);
#endif
/* Writes PyTorch's repr of t into buf (always NUL-terminated); returns the full length. */
CTENSOR_API size_t ct_repr(const ct_tensor *t, char *buf, size_t cap);
typedef struct ct_print_options { int precision, threshold, edgeitems, linewidth, sci_mode; } ct_print_options;
CTENSOR_API void ct_set_printoptions(const ct_print_options *opt);   /* 0 fields keep defaults 4, 1000, 3, 80, -1 */

#ifdef __cplusplus
}  /* extern "C" */
#endif
#endif /* CTENSOR_H_INCLUDED */

/* ############################################################################
   IMPLEMENTATION
   ############################################################################ */
#ifdef CTENSOR_IMPLEMENTATION
#ifndef CTENSOR_IMPLEMENTATION_DONE
#define CTENSOR_IMPLEMENTATION_DONE
/* -ffast-math (and -ffinite-math-only, -Ofast) let the compiler assume no NaN or inf
   exists and reassociate sums: exp, the reductions and the NaN/inf checks then give
   wrong results silently (ct_exp summed over 16 values gave 59.625 for 60.823, and 84
   tests of the suite failed). The rest of a program may use them; the file that
   defines CTENSOR_IMPLEMENTATION may not. */
#if defined(__FAST_MATH__) || (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__)
#  error "ctensor.h: the implementation must not be compiled with -ffast-math, -Ofast or -ffinite-math-only (they break NaN/inf handling and exp/sum results). Compile the file that defines CTENSOR_IMPLEMENTATION without them (add -fno-fast-math after them, or give that file its own flags); other files may keep them."
#endif
#ifdef __NVCC__
/* The kernel-generating macros declare every operand and mark it (void) when a
   dtype's expression does not use it; nvcc's front end still reports those as
   "set but never used" (#550). Off for ctensor's implementation only. */
#  pragma nv_diag_suppress 550
#endif

#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <float.h>
/* complex math: C99 <complex.h> in C, <complex> in C++ (the same libm functions) */
#ifdef __cplusplus
#  include <complex>
typedef std::complex<float> ct__zf;
typedef std::complex<double> ct__zd;
#  define CT__ZC(fn, z) CT__ZCPP_##fn(z)
#  define CT__ZCPP_cexp std::exp
#  define CT__ZCPP_clog std::log
#  define CT__ZCPP_csqrt std::sqrt
#  define CT__ZCPP_csin std::sin
#  define CT__ZCPP_ccos std::cos
#  define CT__ZCPP_ctan std::tan
#  define CT__ZCPP_casin std::asin
#  define CT__ZCPP_cacos std::acos
#  define CT__ZCPP_catan std::atan
#  define CT__ZCPP_csinh std::sinh
#  define CT__ZCPP_ccosh std::cosh
#  define CT__ZCPP_ctanh std::tanh
#  define CT__ZCPP_cabs std::abs
#  define CT__ZCPP_carg std::arg
#else
#  include <complex.h>
typedef float _Complex ct__zf;
typedef double _Complex ct__zd;
#  define CT__ZC(fn, z) _Generic((z), ct__zf: fn##f, default: fn)(z)
#endif
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>   /* snprintf for messages; CTENSOR_NO_STDIO removes FILE use only */
#ifdef CTENSOR_OPENMP
#include <omp.h>
#endif
#ifdef CTENSOR_BLAS
#include <cblas.h>
#endif

#if defined(CT_MALLOC) && defined(CT_REALLOC) && defined(CT_FREE)
#elif !defined(CT_MALLOC) && !defined(CT_REALLOC) && !defined(CT_FREE)
#  define CT_MALLOC(sz) malloc(sz)
#  define CT_REALLOC(p, sz) realloc(p, sz)
#  define CT_FREE(p) free(p)
#else
#  error "ctensor.h: define all of CT_MALLOC, CT_REALLOC and CT_FREE, or none of them"
#endif

#ifndef CT_ASSERT
#  include <assert.h>
#  define CT_ASSERT(x) assert(x)
#endif

#ifdef CTENSOR_STATIC
#  define CT__PRIVATE static
#else
#  define CT__PRIVATE static
#endif

#ifndef CTENSOR_STATIC
/* the link-time check of CTENSOR_MAX_DIMS (see CT__ABI_MAX_DIMS in the declarations) */
const int CT__ABI_MAX_DIMS = CTENSOR_MAX_DIMS;
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define CT__LIKELY(x) __builtin_expect(!!(x), 1)
#  define CT__UNLIKELY(x) __builtin_expect(!!(x), 0)
#  define CT__INLINE static inline __attribute__((always_inline))
#  define CT__NOINLINE __attribute__((noinline))
#  define CT__ATOMIC_INC(p) __atomic_add_fetch((p), 1, __ATOMIC_RELAXED)
#  define CT__ATOMIC_DEC(p) __atomic_sub_fetch((p), 1, __ATOMIC_ACQ_REL)
#  define CT__LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#  define CT__STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#  define CT__LOAD_ACQUIRE(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#  define CT__STORE_RELEASE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#  define CT__CAS(p, expected, desired) __atomic_compare_exchange_n((p), (expected), (desired), 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
#  define CT__UNUSED __attribute__((unused))
#else
#  define CT__LIKELY(x) (x)
#  define CT__UNLIKELY(x) (x)
#  define CT__INLINE static inline
#  define CT__NOINLINE
#  define CT__ATOMIC_INC(p) (++*(p))
#  define CT__ATOMIC_DEC(p) (--*(p))
#  define CT__LOAD(p) (*(p))
#  define CT__STORE(p, v) (*(p) = (v))
#  define CT__LOAD_ACQUIRE(p) (*(p))
#  define CT__STORE_RELEASE(p, v) (*(p) = (v))
#  define CT__CAS(p, expected, desired) (*(p) == *(expected) ? (*(p) = (desired), 1) : (*(expected) = *(p), 0))
#  define CT__UNUSED
#endif
/* a small pure helper that ctensor_cuda.h's kernels call too (nvcc: on both sides) */
#if defined(__CUDACC__) && defined(__host__) && defined(__device__)
#  define CT__HOSTDEV __host__ __device__
#else
#  define CT__HOSTDEV
#endif

#if defined(__GNUC__) && !defined(__clang__) && !defined(__cplusplus)
#  define CT__IVDEP _Pragma("GCC ivdep")
#else
#  define CT__IVDEP
#endif

#define CT__MIN(a, b) ((a) < (b) ? (a) : (b))
#define CT__MAX(a, b) ((a) > (b) ? (a) : (b))

/* Internal allocation helpers: typed, and NULL-safe for zero sizes. */
#define CT__NEW_ARRAY(T, n) ((T *)CT_MALLOC(sizeof(T) * (size_t)((n) > 0 ? (n) : 1)))
#define CT__NEW_ZEROED(T) ((T *)ct__calloc1(sizeof(T)))
static void *ct__calloc1(size_t sz) {
    void *p = CT_MALLOC(sz);
    if (p) memset(p, 0, sz);
    return p;
}

/* Tensor flags */
#define CT__F_REQUIRES_GRAD   0x0001u
#define CT__F_RETAINS_GRAD    0x0002u
#define CT__F_KEEP            0x0004u   /* ct_keep was called inside the current scope */
#define CT__F_WRAPPED_NUMBER  0x0008u   /* a scalar argument: promotes by category only */
#define CT__F_INFERENCE       0x0010u   /* made in inference mode */
#define CT__F_WEAK_GRAD_FN    0x0020u   /* grad_fn is not owned (a saved output) */
#define CT__F_IS_VIEW         0x0040u   /* shares storage with `base` */
#define CT__F_SCALAR_INT      0x0080u   /* wrapped number came from an integral value */
#define CT__F_CONTIG          0x0100u   /* C-contiguous (set when the geometry is made; it never changes) */

/* ============================================================================
   Thread state: errors, modes, scopes, caches, counters
   ========================================================================== */
#define CT__NUM_CLASSES 12            /* cached data blocks of 64 B << c, c < 12 (up to 128 KiB) */
#define CT__CACHE_BYTES_PER_CLASS (1 << 20)  /* keep up to ~1 MiB of free blocks per class */
#ifndef CTENSOR_BLOCK_CACHE_MB
#define CTENSOR_BLOCK_CACHE_MB 256
#endif
#define CT__BIG_CACHE_SLOTS 8
#define CT__PAIR_CLASSES 4            /* a header with its own block of class c < 4 is cached as one */
#ifdef CTENSOR_NO_CACHES
#  undef CTENSOR_BLOCK_CACHE_MB
#  define CTENSOR_BLOCK_CACHE_MB 0
#  define CT__CACHE_PER_CLASS(c) 0
#  define CT__TENSOR_CACHE 0
#  define CT__PAIR_LIMIT(c) 0
#else
#  define CT__CACHE_PER_CLASS(c) ((CT__CACHE_BYTES_PER_CLASS >> 6 >> (c)) < 8 ? 8 : (CT__CACHE_BYTES_PER_CLASS >> 6 >> (c)))
#  define CT__TENSOR_CACHE 4096
#  define CT__PAIR_LIMIT(c) (1024 >> (c))
#endif

typedef struct ct__frame { int start; int line; const char *file; } ct__frame;

#define CT__MAX_LISTENERS 8
typedef struct ct__listener {
    ct_dispatch_listener_fn fn;
    void *user;
    unsigned flags;
    int handle;
} ct__listener;

typedef struct ct__tls {
    ct_status err_code;
    char err_msg[2048];
    int grad_enabled;
    int inference_mode;
    int dispatch_depth;              /* > 0 while a kernel runs: nested ops are not recorded */
    /* scopes */
    ct_tensor **items;
    int nitems, cap_items;
    ct__frame *frames;
    int nframes, cap_frames;
    /* caches */
    ct_tensor *free_tensors;         /* linked through ->grad */
    int nfree_tensors;
    struct ct__node *free_nodes;     /* small autograd nodes, linked through ->free_next */
    int nfree_nodes;
    void *free_blocks[CT__NUM_CLASSES];
    void *big_blocks[CT__BIG_CACHE_SLOTS];   /* freed large storages (beyond the classes) */
    uint64_t big_stamp[CT__BIG_CACHE_SLOTS], big_clock;   /* when each was cached: the oldest goes first */
    int64_t big_bytes;
    int nfree_blocks[CT__NUM_CLASSES];
    ct_tensor *free_pairs[CT__PAIR_CLASSES];   /* headers still holding their storage, through ->grad */
    int nfree_pairs[CT__PAIR_CLASSES];
    /* counters (written by this thread only, read by all) */
    int64_t live_tensors;
    int64_t live_bytes;
    /* autograd */
    uint64_t seq_counter;
    int64_t nodes_run;               /* backward nodes executed by this thread (diagnostics) */
    /* dispatch listeners (tracers, profilers): ct_add_dispatch_listener */
    ct__listener listeners[CT__MAX_LISTENERS];
    int nlisteners;
    int listen_pause;                /* > 0 while listeners run */
    int names_off;                   /* > 0: ops ignore dim names (backward passes, ctensor_named.h) */
    /* life cycle */
    int fallback;                    /* the thread's state could not be allocated (see ct__tls_create) */
    int dead;                        /* its thread has exited; the next new thread reuses it */
    struct ct__tls *next;
} ct__tls;

static CT_THREAD_LOCAL ct__tls *ct__tls_cur;
/* Every thread state ever made, live or dead (never freed: a dead one keeps its share
   of the live counters, which other threads' frees may have moved, and is reused). */
static ct__tls *ct__tls_all;
static int ct__tls_lock;
/* ct__tls_all is read and written only through CT__LOAD_ACQUIRE/CT__STORE_RELEASE, even
   under the lock: gcc's interprocedural analysis knew that no function between two
   critical sections writes this static, and reused the head read in the first one for
   the insert in the second, so two threads starting at once lost one state (found as
   an intermittent LeakSanitizer report in test_threads). The lock functions are inline
   too, so that their atomics are seen where they are used. */

CT__INLINE void ct__spin_lock(int *l) {
    int expected = 0;
    while (!CT__CAS(l, &expected, 1)) expected = 0;
}
CT__INLINE void ct__spin_unlock(int *l) {
#if defined(__GNUC__) || defined(__clang__)
    __atomic_store_n(l, 0, __ATOMIC_RELEASE);
#else
    *l = 0;
#endif
}

/* Thread exit. With pthreads (unless CTENSOR_NO_THREADS) a key destructor releases what
   the thread's root scope still holds, returns its caches (up to
   CTENSOR_BLOCK_CACHE_MB of large blocks) to the allocator and marks its state for
   reuse; for the thread that calls exit() an atexit handler returns the caches (the
   root scope is left alone there: static destructors may still use it). Pthreads live in
   libc from glibc 2.34 on; older systems link with -lpthread (or -pthread). */
#if !defined(CTENSOR_NO_THREADS) && (defined(__unix__) || defined(__APPLE__))
#  include <pthread.h>
#  define CT__HAVE_PTHREADS 1
#endif
static void ct__tls_free_caches(ct__tls *t);
static CT__UNUSED void ct__tls_exit(ct__tls *t);
#ifdef CT__HAVE_PTHREADS
static pthread_key_t ct__tls_key;
static pthread_once_t ct__tls_key_once = PTHREAD_ONCE_INIT;
static int ct__tls_key_ok;
static void ct__tls_key_dtor(void *p) { ct__tls_exit((ct__tls *)p); }
#endif
static void ct__tls_atexit(void) {
    ct__tls *t = ct__tls_cur;
    if (t) ct__tls_free_caches(t);
}
static void ct__tls_init_once(void) {
#ifdef CT__HAVE_PTHREADS
    ct__tls_key_ok = pthread_key_create(&ct__tls_key, ct__tls_key_dtor) == 0;
#endif
    atexit(ct__tls_atexit);
}
/* When not even the thread state can be allocated, the thread gets this one (its own,
   not counted): every call that makes a tensor then fails with CT_ERR_MEMORY. */
static CT_THREAD_LOCAL ct__tls ct__tls_fallback;

static CT__NOINLINE ct__tls *ct__tls_create(void) {
#ifdef CT__HAVE_PTHREADS
    pthread_once(&ct__tls_key_once, ct__tls_init_once);
#else
    static int once;   /* no threads: the first caller is the only one */
    if (!once) { once = 1; ct__tls_init_once(); }
#endif
    ct__tls *t;
    ct__spin_lock(&ct__tls_lock);   /* others walk the list (and read the counters) under it */
    for (t = CT__LOAD_ACQUIRE(&ct__tls_all); t && !t->dead; t = t->next) {}
    if (t) {
        /* a dead thread's state: fresh, but keeping its counters and its place in the list */
        ct__tls keep = *t;
        memset(t, 0, sizeof *t);
        t->live_tensors = keep.live_tensors;
        t->live_bytes = keep.live_bytes;
        t->seq_counter = keep.seq_counter;
        t->next = keep.next;
    }
    ct__spin_unlock(&ct__tls_lock);
    if (!t) {
        t = CT__NEW_ZEROED(ct__tls);
        if (t) {
            ct__spin_lock(&ct__tls_lock);
            t->next = CT__LOAD_ACQUIRE(&ct__tls_all);
            CT__STORE_RELEASE(&ct__tls_all, t);
            ct__spin_unlock(&ct__tls_lock);
        } else {
            t = &ct__tls_fallback;
            t->fallback = 1;
            t->nfree_tensors = CT__TENSOR_CACHE;   /* never caches: every new tensor takes the failing path */
            for (int c = 0; c < CT__PAIR_CLASSES; c++) t->nfree_pairs[c] = CT__PAIR_LIMIT(c);
        }
    }
    t->grad_enabled = 1;
    ct__tls_cur = t;
#ifdef CT__HAVE_PTHREADS
    if (ct__tls_key_ok) pthread_setspecific(ct__tls_key, t);
#endif
    if (t->fallback)
        ct_set_error(CT_ERR_MEMORY, "out of memory: this thread's ctensor state (%u bytes) could not be allocated",
                     (unsigned)sizeof(ct__tls));
    return t;
}
CT__INLINE ct__tls *ct__tls_get(void) {
    ct__tls *t = ct__tls_cur;
    return CT__LIKELY(t != NULL) ? t : ct__tls_create();
}

/* ============================================================================
   Errors
   ========================================================================== */
static ct_log_fn ct__logger_fn;
static void *ct__logger_user;
static int ct__logger_set;

static const char *const ct__status_names[] = {
#define CT__ERR_NAME(name, num, desc) #name,
    CT_ERRORS(CT__ERR_NAME)
#undef CT__ERR_NAME
};
CT_STATIC_ASSERT(sizeof(ct__status_names) / sizeof(ct__status_names[0]) == CT_NUM_ERRORS,
                 "error name table must match CT_ERRORS");

CTENSOR_API const char *ct_status_name(ct_status s) {
    return (s >= 0 && s < CT_NUM_ERRORS) ? ct__status_names[s] : "CT_ERR_UNKNOWN";
}
CTENSOR_API const char *ct_last_error(void) { return ct__tls_get()->err_msg; }
CTENSOR_API ct_status ct_last_error_code(void) { return ct__tls_get()->err_code; }
CTENSOR_API void ct_clear_error(void) {
    ct__tls *t = ct__tls_get();
    t->err_code = CT_OK;
    t->err_msg[0] = 0;
}
CTENSOR_API void ct_set_logger(ct_log_fn fn, void *user_data) {
    ct__logger_fn = fn;
    ct__logger_user = user_data;
    ct__logger_set = 1;
}
static void ct__verror(ct_status code, const char *fmt, va_list ap) {
    ct__tls *t = ct__tls_get();
    t->err_code = code;
    vsnprintf(t->err_msg, sizeof t->err_msg, fmt, ap);
    if (ct__logger_set) {
        if (ct__logger_fn) ct__logger_fn(code, t->err_msg, ct__logger_user);
    } else {
#ifndef CTENSOR_NO_STDIO
        fprintf(stderr, "ctensor: %s\n", t->err_msg);
#endif
    }
}
CTENSOR_API void ct_set_error(ct_status code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ct__verror(code, fmt, ap);
    va_end(ap);
}
/* ct__fail: set an error and return NULL, for `return ct__fail(...)` in ops. */
#if defined(__GNUC__) || defined(__clang__)
static ct_tensor *ct__fail(ct_status code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ct__failed(ct_status code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
static ct_tensor *ct__fail(ct_status code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ct__verror(code, fmt, ap);
    va_end(ap);
    return NULL;
}
static int ct__failed(ct_status code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ct__verror(code, fmt, ap);
    va_end(ap);
    return -1;
}
/* A NULL argument: keep an earlier error if there is one (the chain rule). */
static CT__NOINLINE void ct__null_arg(const char *op, int index) {
    ct__tls *t = ct__tls_get();
    if (t->err_code == CT_OK)
        ct_set_error(CT_ERR_NULL, "%s: argument %d is NULL (no earlier error was recorded)", op, index);
}

/* Shape formatting for messages: "[2, 3]" and "2x3". */
typedef struct ct__shapestr { char s[200]; } ct__shapestr;
static ct__shapestr ct__fmt_shape(int ndim, const int64_t *shape) {
    ct__shapestr r;
    size_t n = 0;
    r.s[n++] = '[';
    for (int i = 0; i < ndim && n < sizeof r.s - 32; i++)
        n += (size_t)snprintf(r.s + n, sizeof r.s - n, i ? ", %lld" : "%lld", (long long)shape[i]);
    r.s[n++] = ']';
    r.s[n] = 0;
    return r;
}
#define CT__SHAPE(t) (ct__fmt_shape((t)->ndim, (t)->shape).s)
/* A value for messages as Python prints a float: nan (never "-nan"), inf, -inf, else %g. */
typedef struct ct__numstr { char s[32]; } ct__numstr;
static ct__numstr ct__fmt_double(double v) {
    ct__numstr r;
    if (isnan(v)) snprintf(r.s, sizeof r.s, "nan");
    else if (isinf(v)) snprintf(r.s, sizeof r.s, v > 0 ? "inf" : "-inf");
    else snprintf(r.s, sizeof r.s, "%g", v);
    return r;
}

/* A bounded string builder: counts the full length, writes what fits. */
typedef struct ct__sbuf { char *buf; size_t cap, len; } ct__sbuf;
static void ct__sput(ct__sbuf *b, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (b->len + 1 < b->cap) b->buf[b->len] = s[i];
        b->len++;
    }
    if (b->cap) b->buf[b->len < b->cap ? b->len : b->cap - 1] = 0;
}
static void ct__sputs(ct__sbuf *b, const char *s) { ct__sput(b, s, strlen(s)); }
static void ct__spad(ct__sbuf *b, int n) { for (int i = 0; i < n; i++) ct__sput(b, " ", 1); }

/* ============================================================================
   dtype traits: the single source of truth for dtype facts
   ========================================================================== */
enum { CT__KIND_BOOL, CT__KIND_INT, CT__KIND_FLOAT, CT__KIND_COMPLEX, CT__KIND_QUANT };
typedef struct ct__dtype_traits {
    const char *name;        /* "float32" */
    const char *torch_name;  /* "torch.float32" */
    const char *scalar_name; /* PyTorch's ScalarType name in messages: "Float" */
    const char *npy;         /* numpy descr, "" if none */
    const char *st;          /* safetensors dtype, "" if none */
    uint8_t size;
    uint8_t kind;
    uint8_t is_signed;
    const char *cpp_name;    /* PyTorch's C++ scalar type in conversion messages: "int8_t" */
} ct__dtype_traits;

static const ct__dtype_traits ct__dt[CT_NUM_DTYPES] = {
    {"float32", "torch.float32", "Float", "<f4", "F32", 4, CT__KIND_FLOAT, 1, "float"},
    {"float64", "torch.float64", "Double", "<f8", "F64", 8, CT__KIND_FLOAT, 1, "double"},
    {"float16", "torch.float16", "Half", "<f2", "F16", 2, CT__KIND_FLOAT, 1, "at::Half"},
    {"bfloat16", "torch.bfloat16", "BFloat16", "", "BF16", 2, CT__KIND_FLOAT, 1, "at::BFloat16"},
    {"int64", "torch.int64", "Long", "<i8", "I64", 8, CT__KIND_INT, 1, "int64_t"},
    {"int32", "torch.int32", "Int", "<i4", "I32", 4, CT__KIND_INT, 1, "int"},
    {"int16", "torch.int16", "Short", "<i2", "I16", 2, CT__KIND_INT, 1, "int16_t"},
    {"int8", "torch.int8", "Char", "|i1", "I8", 1, CT__KIND_INT, 1, "int8_t"},
    {"uint8", "torch.uint8", "Byte", "|u1", "U8", 1, CT__KIND_INT, 0, "uint8_t"},
    {"bool", "torch.bool", "Bool", "|b1", "BOOL", 1, CT__KIND_BOOL, 0, "bool"},
    {"qint8", "torch.qint8", "QInt8", "", "", 1, CT__KIND_QUANT, 1, "c10::qint8"},
    {"quint8", "torch.quint8", "QUInt8", "", "", 1, CT__KIND_QUANT, 0, "c10::quint8"},
    {"qint32", "torch.qint32", "QInt32", "", "", 4, CT__KIND_QUANT, 1, "c10::qint32"},
    {"complex64", "torch.complex64", "ComplexFloat", "<c8", "C64", 8, CT__KIND_COMPLEX, 1, "c10::complex<float>"},
    {"complex128", "torch.complex128", "ComplexDouble", "<c16", "C128", 16, CT__KIND_COMPLEX, 1, "c10::complex<double>"},
};
CT_STATIC_ASSERT(sizeof(ct__dt) / sizeof(ct__dt[0]) == CT_NUM_DTYPES, "dtype traits must cover every dtype");

CT__INLINE int ct__dt_ok(ct_dtype dt) { return (int)dt >= 0 && dt < CT_NUM_DTYPES; }
CTENSOR_API const char *ct_dtype_name(ct_dtype dt) { return ct__dt_ok(dt) ? ct__dt[dt].name : "invalid"; }
CTENSOR_API size_t ct_dtype_size(ct_dtype dt) { return ct__dt_ok(dt) ? ct__dt[dt].size : 0; }
CTENSOR_API int ct_dtype_is_floating(ct_dtype dt) { return ct__dt_ok(dt) && ct__dt[dt].kind == CT__KIND_FLOAT; }
CTENSOR_API int ct_dtype_is_integral(ct_dtype dt) { return ct__dt_ok(dt) && ct__dt[dt].kind == CT__KIND_INT; }
CTENSOR_API int ct_dtype_is_complex(ct_dtype dt) { return ct__dt_ok(dt) && ct__dt[dt].kind == CT__KIND_COMPLEX; }
#define CT__ISFLOAT(dt) (ct__dt[dt].kind == CT__KIND_FLOAT)
#define CT__DT_QUANT(dt) ((unsigned)((dt) - CT_QINT8) <= (unsigned)(CT_QINT32 - CT_QINT8))
#define CT__ISINT(dt) (ct__dt[dt].kind == CT__KIND_INT)
#define CT__ISBOOL(dt) ((dt) == CT_BOOL)
#define CT__ISCOMPLEX(dt) (ct__dt[dt].kind == CT__KIND_COMPLEX)
#define CT__ISQUANT(dt) (ct__dt[dt].kind == CT__KIND_QUANT)
/* bool, integral or floating: the dtypes the core's CPU kernels are generated for
   (not complex, not quantized; both belong to companion headers). Checks range too. */
#define CT__ISREAL(dt) (ct__dt_ok(dt) && ct__dt[dt].kind <= CT__KIND_FLOAT)
#define CT__DTNAME(dt) (ct__dt_ok(dt) ? ct__dt[dt].scalar_name : "invalid")

static ct_dtype ct__default_dtype = CT_FLOAT32;
CTENSOR_API void ct_set_default_dtype(ct_dtype dt) {
    if (dt == CT_FLOAT32 || dt == CT_FLOAT64) ct__default_dtype = dt;
    else ct_set_error(CT_ERR_DTYPE, "set_default_dtype: only floating point types are supported as the default type (got %s)", ct_dtype_name(dt));
}
CTENSOR_API ct_dtype ct_get_default_dtype(void) { return ct__default_dtype; }

/* torch.promote_types, PyTorch's table (c10/core/ScalarType.cpp), written as rules. */
static int ct__int_rank(ct_dtype d) {
    switch (d) {
    case CT_BOOL: return 0;
    case CT_UINT8: return 1;
    case CT_INT8: return 1;
    case CT_INT16: return 2;
    case CT_INT32: return 3;
    case CT_INT64: return 4;
    default: return -1;
    }
}
CTENSOR_API ct_dtype ct_promote_types(ct_dtype a, ct_dtype b) {
    if (a == b) return a;
    if (a == CT_BOOL) return b;
    if (b == CT_BOOL) return a;
    int ka = ct__dt[a].kind, kb = ct__dt[b].kind;
    if (ka == CT__KIND_QUANT || kb == CT__KIND_QUANT) return CT_NUM_DTYPES;  /* not promotable */
    if (ka == CT__KIND_COMPLEX || kb == CT__KIND_COMPLEX) {
        if (a == CT_COMPLEX128 || b == CT_COMPLEX128 || a == CT_FLOAT64 || b == CT_FLOAT64) return CT_COMPLEX128;
        return CT_COMPLEX64;
    }
    if (ka == CT__KIND_FLOAT && kb == CT__KIND_FLOAT) {
        if (a == CT_FLOAT64 || b == CT_FLOAT64) return CT_FLOAT64;
        return CT_FLOAT32;  /* f16 with bf16 or f32; bf16 with f32 */
    }
    if (ka == CT__KIND_FLOAT) return a;
    if (kb == CT__KIND_FLOAT) return b;
    /* both integral */
    if (a == CT_UINT8 || b == CT_UINT8) {
        ct_dtype o = a == CT_UINT8 ? b : a;
        return o == CT_INT8 ? CT_INT16 : o;
    }
    return ct__int_rank(a) > ct__int_rank(b) ? a : b;
}
/* torch.can_cast(from, to): no float->int, no int->bool, no complex->real. */
static int ct__can_cast(ct_dtype from, ct_dtype to) {
    int kf = ct__dt[from].kind, kt = ct__dt[to].kind;
    if (kf == CT__KIND_COMPLEX && kt != CT__KIND_COMPLEX) return 0;
    if (kf == CT__KIND_FLOAT && (kt == CT__KIND_INT || kt == CT__KIND_BOOL)) return 0;
    if (kf != CT__KIND_BOOL && kt == CT__KIND_BOOL) return 0;
    return 1;
}

/* Checks of a creation function's arguments, in the words of the function the user
   called (`zeros: ...`, not the op it runs on) and with the offending value. */
static int ct__check_dtype_arg(const char *api, ct_dtype dt) {
    if (!ct__dt_ok(dt)) return ct__failed(CT_ERR_DTYPE, "%s: invalid dtype %d (not a ct_dtype value)", api, (int)dt);
    if (!CT__ISREAL(dt)) return ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s'", api, ct__dt[dt].scalar_name);
    return 0;
}
/* PyTorch's checked scalar conversion (c10::overflows, as torch.full and fill_ apply
   it): NaN and infinities do not fit an integral dtype, a finite value must lie in the
   type's range (an integral value may wrap into uint8, as PyTorch lets -1 become 255);
   floating dtypes take inf and NaN but not finite values past their largest; bool
   takes anything. */
static int ct__value_fits(ct_dtype dt, double v) {
    switch (dt) {
    case CT_FLOAT32: return !isfinite(v) || fabs(v) <= FLT_MAX;
    case CT_FLOAT16: return !isfinite(v) || fabs(v) <= 65504.0;
    case CT_BFLOAT16: return !isfinite(v) || fabs(v) <= 3.3895313892515355e38;
    case CT_UINT8: return v <= 255.0 && (v >= 0.0 || (v >= -255.0 && v == floor(v)));
    case CT_INT8: return v >= -128.0 && v <= 127.0;
    case CT_INT16: return v >= -32768.0 && v <= 32767.0;
    case CT_INT32: return v >= -2147483648.0 && v <= 2147483647.0;
    case CT_INT64: return v >= -9223372036854775808.0 && v < 9223372036854775808.0;
    default: return 1;
    }
}
static int ct__check_value_arg(const char *api, ct_dtype dt, double v) {
    if (ct__value_fits(dt, v)) return 0;
    return ct__failed(CT_ERR_ARG, "%s: value cannot be converted to type %s without overflow (value=%s)", api,
                      ct__dt[dt].cpp_name, ct__fmt_double(v).s);
}

/* ============================================================================
   Half precision: IEEE binary16 and bfloat16 <-> float, round to nearest even
   ========================================================================== */
CT__INLINE uint32_t ct__f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
CT__INLINE float ct__u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

CT__INLINE float ct__h2f(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ffu;
    if (exp == 0x1f) return ct__u2f(sign | 0x7f800000u | (man << 13));
    if (exp == 0) {
        if (man == 0) return ct__u2f(sign);
        float f = (float)man * 5.9604644775390625e-8f;  /* 2^-24 */
        return sign ? -f : f;
    }
    return ct__u2f(sign | ((exp + 112) << 23) | (man << 13));
}
CT__INLINE uint16_t ct__f2h(float f) {
    uint32_t x = ct__f2u(f), sign = (x >> 16) & 0x8000u;
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0));
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);  /* rounds to inf */
    if (ax < 0x38800000u) {                                   /* subnormal half or zero */
        float v = ct__u2f(ax) + 0.5f;                         /* exact RNE via float add */
        return (uint16_t)(sign | (ct__f2u(v) - 0x3f000000u));
    }
    uint32_t mant_odd = (ax >> 13) & 1u;
    ax += 0xc8000fffu + mant_odd;  /* rebias exponent (-112 << 23) and round */
    return (uint16_t)(sign | (ax >> 13));
}
CT__INLINE float ct__bf2f(uint16_t b) { return ct__u2f((uint32_t)b << 16); }
CT__INLINE uint16_t ct__f2bf(float f) {
    uint32_t u = ct__f2u(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);  /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* Read / write one element of any real dtype as double (slow path helpers). */
static double ct__load_f64(const void *p, ct_dtype dt) {
    switch (dt) {
    case CT_FLOAT32: return *(const float *)p;
    case CT_FLOAT64: return *(const double *)p;
    case CT_FLOAT16: return ct__h2f(*(const uint16_t *)p);
    case CT_BFLOAT16: return ct__bf2f(*(const uint16_t *)p);
    case CT_INT64: return (double)*(const int64_t *)p;
    case CT_INT32: return *(const int32_t *)p;
    case CT_INT16: return *(const int16_t *)p;
    case CT_INT8: return *(const int8_t *)p;
    case CT_UINT8: case CT_QUINT8: return *(const uint8_t *)p;
    case CT_QINT8: return *(const int8_t *)p;
    case CT_QINT32: return *(const int32_t *)p;
    case CT_BOOL: return *(const uint8_t *)p ? 1.0 : 0.0;
    case CT_COMPLEX64: return *(const float *)p;    /* the real part, as PyTorch's cast */
    case CT_COMPLEX128: return *(const double *)p;
    default: return 0.0;
    }
}
static int64_t ct__load_i64(const void *p, ct_dtype dt) {
    switch (dt) {
    case CT_INT64: return *(const int64_t *)p;
    case CT_INT32: return *(const int32_t *)p;
    case CT_INT16: return *(const int16_t *)p;
    case CT_INT8: return *(const int8_t *)p;
    case CT_UINT8: return *(const uint8_t *)p;
    case CT_BOOL: return *(const uint8_t *)p != 0;
    default: return (int64_t)ct__load_f64(p, dt);
    }
}
/* Float to integer conversion as C++ static_cast would do it for in-range values;
   out-of-range and NaN give the wrapped 64-bit value (defined here, unlike C). */
CT__INLINE int64_t ct__f2i64(double v) {
    if (v != v) return INT64_MIN;
    if (v >= 9.2233720368547758e18) return INT64_MIN;
    if (v < -9.2233720368547758e18) return INT64_MIN;
    return (int64_t)v;
}
static void ct__store_f64(void *p, ct_dtype dt, double v) {
    switch (dt) {
    case CT_FLOAT32: *(float *)p = (float)v; break;
    case CT_FLOAT64: *(double *)p = v; break;
    case CT_FLOAT16: *(uint16_t *)p = ct__f2h((float)v); break;
    case CT_BFLOAT16: *(uint16_t *)p = ct__f2bf((float)v); break;
    case CT_INT64: *(int64_t *)p = ct__f2i64(v); break;
    case CT_INT32: *(int32_t *)p = (int32_t)ct__f2i64(v); break;
    case CT_INT16: *(int16_t *)p = (int16_t)ct__f2i64(v); break;
    case CT_INT8: case CT_QINT8: *(int8_t *)p = (int8_t)ct__f2i64(v); break;
    case CT_UINT8: case CT_QUINT8: *(uint8_t *)p = (uint8_t)ct__f2i64(v); break;
    case CT_QINT32: *(int32_t *)p = (int32_t)ct__f2i64(v); break;
    case CT_BOOL: *(uint8_t *)p = v != 0.0; break;
    case CT_COMPLEX64: ((float *)p)[0] = (float)v; ((float *)p)[1] = 0.0f; break;
    case CT_COMPLEX128: ((double *)p)[0] = v; ((double *)p)[1] = 0.0; break;
    default: break;
    }
}
/* one element of any non-quantized dtype as (re, im), and back (complex dtypes keep
   both parts; a real dtype reads im 0 and stores the real part) */
static void ct__cx_load(const void *p, ct_dtype dt, double *re, double *im) {
    if (dt == CT_COMPLEX64) { *re = ((const float *)p)[0]; *im = ((const float *)p)[1]; }
    else if (dt == CT_COMPLEX128) { *re = ((const double *)p)[0]; *im = ((const double *)p)[1]; }
    else { *re = ct__load_f64(p, dt); *im = 0.0; }
}
static void ct__cx_store(void *p, ct_dtype dt, double re, double im) {
    if (dt == CT_COMPLEX64) { ((float *)p)[0] = (float)re; ((float *)p)[1] = (float)im; }
    else if (dt == CT_COMPLEX128) { ((double *)p)[0] = re; ((double *)p)[1] = im; }
    else ct__store_f64(p, dt, re);
}
static void ct__store_i64(void *p, ct_dtype dt, int64_t v) {
    switch (dt) {
    case CT_INT64: *(int64_t *)p = v; break;
    case CT_INT32: *(int32_t *)p = (int32_t)v; break;
    case CT_INT16: *(int16_t *)p = (int16_t)v; break;
    case CT_INT8: *(int8_t *)p = (int8_t)v; break;
    case CT_UINT8: *(uint8_t *)p = (uint8_t)v; break;
    case CT_BOOL: *(uint8_t *)p = v != 0; break;
    default: ct__store_f64(p, dt, (double)v); break;
    }
}

/* ============================================================================
   Storage and tensor allocation
   Data blocks are 64-byte aligned. The CPU default keeps per-thread caches of
   small blocks and of tensor headers, so a small op costs no malloc.
   Block layout: [raw malloc ... | ct_storage | pad | data (64-aligned) ]
   ========================================================================== */
#define CT__ALIGN 64
static ct_allocator ct__allocators[CT_NUM_DEVICE_TYPES];
static int ct__allocator_set[CT_NUM_DEVICE_TYPES];
static const ct_device ct__cpu_dev = {CT_CPU, 0};

CTENSOR_API ct_status ct_set_allocator(ct_device_type type, const ct_allocator *a) {
    if ((int)type < 0 || type >= CT_NUM_DEVICE_TYPES) {
        ct_set_error(CT_ERR_DEVICE, "set_allocator: invalid device type %d", (int)type);
        return CT_ERR_DEVICE;
    }
    if (a && !a->alloc) {
        ct_set_error(CT_ERR_ARG, "set_allocator: the allocator has no alloc function");
        return CT_ERR_ARG;
    }
    if (a) { ct__allocators[type] = *a; ct__allocator_set[type] = 1; }
    else { memset(&ct__allocators[type], 0, sizeof(ct_allocator)); ct__allocator_set[type] = 0; }
    return CT_OK;
}
CTENSOR_API const char *ct_device_str(ct_device d, char *buf, size_t cap) {
    if (!buf || !cap) return "";
    if (d.type == CT_CPU) snprintf(buf, cap, "cpu");
    else if (d.type == CT_CUDA) snprintf(buf, cap, "cuda:%d", (int)d.index);
    else snprintf(buf, cap, "device%d:%d", (int)d.type, (int)d.index);
    return buf;
}
CTENSOR_API int ct_device_parse(const char *s, ct_device *out) {
    ct_device d = ct__cpu_dev;
    const char *rest = NULL;
    if (!s || !out) { ct_set_error(CT_ERR_ARG, "device: NULL argument"); return -1; }
    if (!strcmp(s, "cpu")) { *out = d; return 0; }
    if (!strncmp(s, "cuda", 4)) { d.type = CT_CUDA; rest = s + 4; }
    if (rest && !*rest) { *out = d; return 0; }
    if (rest && *rest == ':' && rest[1] >= '0' && rest[1] <= '9') {
        char *end;
        long v = strtol(rest + 1, &end, 10);
        if (!*end && v < 65536) { d.index = (int32_t)v; *out = d; return 0; }
    }
    ct_set_error(CT_ERR_ARG, "Expected one of cpu, cuda device type at start of device string: %.100s", s);
    return -1;
}

#define CT__HDR_SLOT 128    /* room for ct_storage right before the aligned data */
#define CT__HDR_BYTES (CT__HDR_SLOT + CT__ALIGN)
CT_STATIC_ASSERT(sizeof(ct_storage) <= CT__HDR_SLOT, "storage header must fit its slot");

CT__INLINE int ct__size_class(int64_t nbytes) {
    int c = 0;
    int64_t cap = 64;
    while (cap < nbytes) { cap <<= 1; c++; }
    return c < CT__NUM_CLASSES ? c : -1;
}

static ct_storage *ct__block_alloc(int64_t nbytes, int cls) {
    /* one malloc holds the header and the data; aligned by hand (CT_MALLOC may not align) */
    size_t data_bytes = cls >= 0 ? ((size_t)64 << cls) : (size_t)(nbytes > 0 ? nbytes : 1);
    void *raw = CT_MALLOC(data_bytes + CT__HDR_BYTES + CT__ALIGN);
    if (!raw) return NULL;
    uintptr_t d = ((uintptr_t)raw + CT__HDR_SLOT + CT__ALIGN - 1) & ~(uintptr_t)(CT__ALIGN - 1);
    ct_storage *s = (ct_storage *)(d - CT__HDR_SLOT);
    s->ct__block = raw;
    s->data = (void *)d;
    s->ct__size_class = cls;
    return s;
}

/* New storage for nbytes on dev. Contents uninitialized. */
static ct_storage *ct__storage_new(int64_t nbytes, ct_device dev) {
    ct__tls *t = ct__tls_get();
    ct_storage *s;
    if (nbytes < 0 || (uint64_t)nbytes > ((uint64_t)1 << 48)) {
        ct_set_error(CT_ERR_MEMORY, "allocation of %lld bytes is not possible", (long long)nbytes);
        return NULL;
    }
    if (dev.type == CT_CPU && !ct__allocator_set[CT_CPU]) {
        int cls = ct__size_class(nbytes);
        s = NULL;
        if (cls < 0 && t->big_bytes > 0) {
            /* a cached large block that fits without wasting more than half of it */
            int best = -1;
            for (int k = 0; k < CT__BIG_CACHE_SLOTS; k++) {
                ct_storage *b = (ct_storage *)t->big_blocks[k];
                if (b && b->ct__cap >= nbytes && b->ct__cap / 2 <= nbytes &&
                    (best < 0 || b->ct__cap < ((ct_storage *)t->big_blocks[best])->ct__cap))
                    best = k;
            }
            if (best >= 0) {
                s = (ct_storage *)t->big_blocks[best];
                t->big_blocks[best] = NULL;
                t->big_bytes -= s->ct__cap;
            }
        }
        if (s) {
        } else if (cls >= 0 && t->free_blocks[cls]) {
            s = (ct_storage *)t->free_blocks[cls];
            t->free_blocks[cls] = s->deleter_user_data;
            t->nfree_blocks[cls]--;
        } else {
            s = ct__block_alloc(nbytes, cls);
            if (!s) {
                ct_set_error(CT_ERR_MEMORY, "out of memory: tried to allocate %lld bytes", (long long)nbytes);
                return NULL;
            }
            s->ct__cap = cls >= 0 ? ((int64_t)64 << cls) : nbytes;
        }
    } else {
        const ct_allocator *a = &ct__allocators[dev.type];
        char dn[24];
        if (!ct__allocator_set[dev.type] || !a->alloc) {
            ct_set_error(CT_ERR_DEVICE, "no allocator for device %s (is ctensor_cuda.h initialized?)", ct_device_str(dev, dn, sizeof dn));
            return NULL;
        }
        s = (ct_storage *)CT_MALLOC(sizeof(ct_storage));
        if (!s) { ct_set_error(CT_ERR_MEMORY, "out of memory"); return NULL; }
        /* a device allocator that fails may say why itself (ctensor_cuda.h: "CUDA out of
           memory. Tried to allocate ..."); its message is kept. The error state before
           the call comes back when the allocation succeeds. */
        ct_status before = t->err_code;
        t->err_code = CT_OK;
        s->data = a->alloc((size_t)(nbytes > 0 ? nbytes : 1), dev, a->user_data);
        if (!s->data) {
            CT_FREE(s);
            if (t->err_code == CT_OK)
                ct_set_error(CT_ERR_MEMORY, "out of memory: tried to allocate %lld bytes on device %s", (long long)nbytes, ct_device_str(dev, dn, sizeof dn));
            return NULL;
        }
        if (t->err_code == CT_OK) t->err_code = before;
        s->ct__block = NULL;
        s->ct__size_class = -2;  /* device allocator: freed by the allocator that made it */
        s->ct__free = a->free;
        s->ct__free_user = a->user_data;
    }
    s->refcount = 1;
    s->version = 0;
    s->device = dev;
    s->flags = 0;
    s->nbytes = nbytes;
    s->deleter = NULL;
    s->deleter_user_data = NULL;
    CT__STORE(&t->live_bytes, CT__LOAD(&t->live_bytes) + nbytes);
    return s;
}

static ct_storage *ct__storage_borrow(void *data, int64_t nbytes, ct_device dev,
                                      void (*deleter)(void *, void *), void *user) {
    ct_storage *s = (ct_storage *)CT_MALLOC(sizeof(ct_storage));
    if (!s) { ct_set_error(CT_ERR_MEMORY, "out of memory"); return NULL; }
    s->refcount = 1;
    s->version = 0;
    s->device = dev;
    s->flags = 0;
    s->nbytes = nbytes;
    s->data = data;
    s->deleter = deleter;
    s->deleter_user_data = user;
    s->ct__block = NULL;
    s->ct__size_class = -3;  /* borrowed */
    return s;
}

static void ct__storage_free(ct_storage *s) {
    ct__tls *t = ct__tls_get();
    int cls = s->ct__size_class;
    if (cls == -3) {
        if (s->deleter) s->deleter(s->data, s->deleter_user_data);
        CT_FREE(s);
        return;
    }
    CT__STORE(&t->live_bytes, CT__LOAD(&t->live_bytes) - s->nbytes);
    if (cls == -2) {
        if (s->ct__free) s->ct__free(s->data, s->device, s->ct__free_user);
        CT_FREE(s);
        return;
    }
    if (cls >= 0 && t->nfree_blocks[cls] < CT__CACHE_PER_CLASS(cls)) {
        s->deleter_user_data = t->free_blocks[cls];   /* free-list link */
        t->free_blocks[cls] = s;
        t->nfree_blocks[cls]++;
        return;
    }
    if (cls == -1 && s->ct__cap <= (int64_t)CTENSOR_BLOCK_CACHE_MB << 20) {
        /* keep it for the next large result: evict the oldest blocks over the budget */
        int slot = -1;
        for (int k = 0; k < CT__BIG_CACHE_SLOTS; k++)   /* a free slot, else the oldest block's */
            if (slot < 0 || (t->big_blocks[slot] && (!t->big_blocks[k] || t->big_stamp[k] < t->big_stamp[slot]))) slot = k;
        while (t->big_bytes + s->ct__cap > ((int64_t)CTENSOR_BLOCK_CACHE_MB << 20) || t->big_blocks[slot]) {
            int victim = t->big_blocks[slot] ? slot : -1;
            for (int k = 0; k < CT__BIG_CACHE_SLOTS; k++)
                if (t->big_blocks[k] && (victim < 0 || t->big_stamp[k] < t->big_stamp[victim])) victim = k;
            if (victim < 0) break;
            ct_storage *v = (ct_storage *)t->big_blocks[victim];
            t->big_blocks[victim] = NULL;
            t->big_bytes -= v->ct__cap;
            CT_FREE(v->ct__block);
        }
        if (t->big_bytes + s->ct__cap <= ((int64_t)CTENSOR_BLOCK_CACHE_MB << 20)) {
            t->big_blocks[slot] = s;
            t->big_stamp[slot] = ++t->big_clock;
            t->big_bytes += s->ct__cap;
            return;
        }
    }
    CT_FREE(s->ct__block);
}

CT__INLINE void ct__storage_incref(ct_storage *s) { CT__ATOMIC_INC(&s->refcount); }
CT__INLINE void ct__storage_decref(ct_storage *s) {
    if (CT__LOAD(&s->refcount) == 1 || CT__ATOMIC_DEC(&s->refcount) == 0) ct__storage_free(s);
}

CT__INLINE ct_tensor *ct__header_init(ct_tensor *x, ct__tls *t);
/* A tensor header, not yet in any scope, refcount 1. Shape/strides unset. */
static ct_tensor *ct__header_new(void) {
    ct__tls *t = ct__tls_get();
    ct_tensor *x = t->free_tensors;
    if (x) {
        t->free_tensors = x->grad;
        t->nfree_tensors--;
    } else {
        if (CT__UNLIKELY(t->fallback)) {  /* no thread state: the error says so already */
            if (t->err_code == CT_OK)
                ct_set_error(CT_ERR_MEMORY, "out of memory: this thread's ctensor state could not be allocated");
            return NULL;
        }
        x = (ct_tensor *)CT_MALLOC(sizeof(ct_tensor));
        if (!x) { ct_set_error(CT_ERR_MEMORY, "out of memory (tensor header)"); return NULL; }
    }
    x->storage = NULL;
    return ct__header_init(x, t);
}
CT__INLINE ct_tensor *ct__header_init(ct_tensor *x, ct__tls *t) {
    x->offset = 0;
    x->ndim = 0;
    x->dtype = CT_FLOAT32;
    x->device = ct__cpu_dev;
    x->flags = t->inference_mode ? CT__F_INFERENCE : 0;
    x->refcount = 1;
    x->scope_slot = -1;
    x->grad_fn = NULL;
    x->out_nr = 0;
    x->view_version = 0;
    x->grad_acc = NULL;
    x->grad = NULL;
    x->base = NULL;
    x->hooks = NULL;
    x->qparams = NULL;
    x->names = NULL;
    CT__STORE(&t->live_tensors, CT__LOAD(&t->live_tensors) + 1);
    return x;
}

static void ct__tensor_destroy(ct_tensor *x);  /* autograd part, below */

static void ct__header_free(ct_tensor *x) {
    ct__tls *t = ct__tls_get();
    CT__STORE(&t->live_tensors, CT__LOAD(&t->live_tensors) - 1);
    if (t->nfree_tensors < CT__TENSOR_CACHE) {
        x->grad = t->free_tensors;
        t->free_tensors = x;
        t->nfree_tensors++;
    } else {
        CT_FREE(x);
    }
}

CT__INLINE void ct__decref(ct_tensor *x) {
    if (CT__LOAD(&x->refcount) == 1 || CT__ATOMIC_DEC(&x->refcount) == 0) ct__tensor_destroy(x);
}
CT__INLINE ct_tensor *ct__incref(ct_tensor *x) {
    CT__ATOMIC_INC(&x->refcount);
    return x;
}

CT__INLINE void ct__contig_strides(int ndim, const int64_t *shape, int64_t *strides) {
    int64_t s = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        strides[i] = s;
        s *= shape[i] > 1 ? shape[i] : 1;
    }
}
/* Size arithmetic in metas that cannot overflow (user values may be near 2^63):
   results saturate at INT64_MAX / INT64_MIN, which the dispatcher's output-shape
   check then refuses with a clear message. */
static CT__UNUSED int64_t ct__sat_add(int64_t a, int64_t b) {
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
    return a + b;
}
static CT__UNUSED int64_t ct__sat_sub(int64_t a, int64_t b) {
    if (b < 0 && a > INT64_MAX + b) return INT64_MAX;
    if (b > 0 && a < INT64_MIN + b) return INT64_MIN;
    return a - b;
}
static CT__UNUSED int64_t ct__sat_mul(int64_t a, int64_t b) {
    int neg = (a < 0) != (b < 0);
#if defined(__GNUC__) || defined(__clang__)
    int64_t r;   /* no division: numel runs on every op */
    if (!__builtin_mul_overflow(a, b, &r)) return r;
    return neg ? INT64_MIN : INT64_MAX;
#else
    uint64_t ua = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a, ub = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
    if (ua && ub > (uint64_t)INT64_MAX / ua) return neg ? INT64_MIN : INT64_MAX;
    return neg ? -(int64_t)(ua * ub) : (int64_t)(ua * ub);
#endif
}
/* saturates at INT64_MAX (a broadcast of two huge views can exceed int64) */
static int64_t ct__shape_numel(int ndim, const int64_t *shape) {
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n = ct__sat_mul(n, shape[i]);
    return n;
}
/* Checks a user shape: rank limit, no negative sizes, no overflow. */
static int ct__check_shape(const char *op, int ndim, const int64_t *shape) {
    if (ndim < 0 || ndim > CT_MAX_DIMS)
        return ct__failed(CT_ERR_ARG, "%s: number of dimensions %d exceeds the maximum of %d", op, ndim, CT_MAX_DIMS);
    if (ndim > 0 && !shape) return ct__failed(CT_ERR_ARG, "%s: shape pointer is NULL", op);
    uint64_t n = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0)
            return ct__failed(CT_ERR_ARG, "%s: Trying to create tensor with negative dimension %lld: %s", op,
                              (long long)shape[i], ct__fmt_shape(ndim, shape).s);
        if (shape[i] && n > ((uint64_t)1 << 46) / (uint64_t)shape[i])
            return ct__failed(CT_ERR_MEMORY, "%s: shape %s is too large", op, ct__fmt_shape(ndim, shape).s);
        n *= (uint64_t)(shape[i] ? shape[i] : 1);
    }
    return 0;
}

/* A fresh tensor with its own storage (uninitialized), not registered in a scope.
   strides NULL: contiguous; otherwise a dense permutation (caller guarantees). */
/* A cached header with its block of class c (see ct__tensor_destroy), both made afresh. */
CT__INLINE ct_tensor *ct__pair_pop(ct__tls *t, int c, int64_t nbytes, ct_device dev) {
    ct_tensor *x = t->free_pairs[c];
    t->free_pairs[c] = x->grad;
    t->nfree_pairs[c]--;
    ct__header_init(x, t);
    ct_storage *s = x->storage;
    s->refcount = 1;
    s->version = 0;
    s->device = dev;
    s->flags = 0;
    s->nbytes = nbytes;
    CT__STORE(&t->live_bytes, CT__LOAD(&t->live_bytes) + nbytes);
    return x;
}
/* shape and contiguous strides (ct__contig_strides) in one pass */
CT__INLINE void ct__contig_geometry(ct_tensor *x, ct_dtype dt, int ndim, const int64_t *shape, ct_device dev) {
    int64_t st = 1;
    x->ndim = ndim;
    for (int i = ndim - 1; i >= 0; i--) {
        int64_t sz = shape[i];
        x->shape[i] = sz;
        x->strides[i] = st;
        st *= sz > 1 ? sz : 1;
    }
    x->flags |= CT__F_CONTIG;
    x->dtype = dt;
    x->device = dev;
}
static ct_tensor *ct__alloc(ct_dtype dt, int ndim, const int64_t *shape, const int64_t *strides, ct_device dev) {
    /* saturating: a kernel's temporary shaped like a huge (expanded) input is
       refused by ct__storage_new as too large, never given a wrapped size */
    ct__tls *t = ct__tls_get();
    int64_t n = 1, nbytes;
    ct_tensor *x;
    for (int i = 0; i < ndim; i++) n = ct__sat_mul(n, shape[i]);
    nbytes = ct__sat_mul(n, (int64_t)ct__dt[dt].size);
    int c = (uint64_t)nbytes <= ((uint64_t)64 << (CT__PAIR_CLASSES - 1)) ? ct__size_class(nbytes) : 0;
    if ((uint64_t)nbytes <= ((uint64_t)64 << (CT__PAIR_CLASSES - 1)) && dev.type == CT_CPU && !ct__allocator_set[CT_CPU] &&
        t->free_pairs[c]) {
        x = ct__pair_pop(t, c, nbytes, dev);
    } else {
        x = ct__header_new();   /* first: without a thread state, its error is the one to report */
        if (!x) return NULL;
        x->storage = ct__storage_new(nbytes, dev);
        if (!x->storage) { ct__header_free(x); return NULL; }
    }
    if (!strides) {
        ct__contig_geometry(x, dt, ndim, shape, dev);
        return x;
    }
    x->ndim = ndim;
    for (int i = 0; i < ndim; i++) x->shape[i] = shape[i];
    memcpy(x->strides, strides, sizeof(int64_t) * (size_t)ndim);
    x->dtype = dt;
    x->device = dev;
    return x;
}

static int ct__is_contig(const ct_tensor *t);
/* A new header viewing src's storage with the given geometry. */
static ct_tensor *ct__view_header(const ct_tensor *src, int ndim, const int64_t *shape, const int64_t *strides, int64_t offset) {
    ct_tensor *x = ct__header_new();
    if (!x) return NULL;
    x->ndim = ndim;
    if (ndim) {
        memcpy(x->shape, shape, sizeof(int64_t) * (size_t)ndim);
        memcpy(x->strides, strides, sizeof(int64_t) * (size_t)ndim);
    }
    x->offset = offset;
    x->dtype = src->dtype;
    x->device = src->device;
    x->storage = src->storage;
    x->qparams = src->qparams ? ct_qparams_retain(src->qparams) : NULL;
    ct__storage_incref(src->storage);
    if (ct__is_contig(x)) x->flags |= CT__F_CONTIG;
    return x;
}

/* ============================================================================
   Scopes
   Every op result is appended to the thread's item list; a frame remembers
   where its scope started. Leaving a frame releases its items, except those
   marked kept, which move down to the enclosing frame.
   ========================================================================== */
static int ct__grow(void **arr, int *cap, int need, size_t elem) {
    if (need <= *cap) return 0;
    int nc = *cap ? *cap * 2 : 256;
    while (nc < need) nc *= 2;
    void *p = CT_REALLOC(*arr, (size_t)nc * elem);
    if (!p) return -1;
    *arr = p;
    *cap = nc;
    return 0;
}

static CT__NOINLINE int ct__scope_grow(ct__tls *t) {
    return ct__grow((void **)&t->items, &t->cap_items, t->nitems + 1, sizeof(ct_tensor *));
}

/* Registers a new tensor (refcount 1) in the current scope; returns it. */
CT__INLINE ct_tensor *ct__own(ct_tensor *x) {
    ct__tls *t = ct__tls_get();
    if (CT__UNLIKELY(t->nitems >= t->cap_items) && ct__scope_grow(t)) {
        ct_set_error(CT_ERR_MEMORY, "out of memory (scope list)");
        ct__decref(x);
        return NULL;
    }
    x->scope_slot = t->nitems;
    t->items[t->nitems++] = x;
    return x;
}

CTENSOR_API int ct_scope_begin_at(const char *file, int line) {
    ct__tls *t = ct__tls_get();
    if (ct__grow((void **)&t->frames, &t->cap_frames, t->nframes + 1, sizeof(ct__frame))) {
        ct_set_error(CT_ERR_MEMORY, "out of memory (scope stack)");
        return t->nframes;  /* ending this token closes nothing extra */
    }
    ct__frame *f = &t->frames[t->nframes];
    f->start = t->nitems;
    f->file = file;
    f->line = line;
    return t->nframes++;
}

CTENSOR_API void ct_scope_end(int token) {
    ct__tls *t = ct__tls_get();
    if (token < 0 || token >= t->nframes) return;  /* already closed by an outer scope */
#ifdef CTENSOR_DEBUG
    for (int k = t->nframes - 1; k > token; k--) {
#ifndef CTENSOR_NO_STDIO
        fprintf(stderr, "ctensor: scope opened at %s:%d was left without closing; closed by the scope of %s:%d\n",
                t->frames[k].file ? t->frames[k].file : "?", t->frames[k].line,
                t->frames[token].file ? t->frames[token].file : "?", t->frames[token].line);
#endif
    }
#endif
    int start = t->frames[token].start, end = t->nitems, w = start;
    t->nframes = token;
    /* Releasing may run destructors that create nothing; items appended during
       release (none expected) would land after `end`. */
    for (int i = start; i < end; i++) {
        ct_tensor *x = t->items[i];
        if (!x) continue;
        if (x->flags & CT__F_KEEP) {
            x->flags &= ~CT__F_KEEP;
            x->scope_slot = w;
            t->items[w++] = x;
        } else {
            x->scope_slot = -1;
            ct__decref(x);
        }
    }
    t->nitems = w;
}
CTENSOR_API void ct__scope_cleanup(int *token) { ct_scope_end(*token); }
CTENSOR_API int ct_scope_depth(void) { return ct__tls_get()->nframes; }

CTENSOR_API ct_tensor *ct_keep(ct_tensor *x) {
    if (!x) return NULL;
    ct__tls *t = ct__tls_get();
    if (t->nframes > 0 && x->scope_slot >= t->frames[t->nframes - 1].start && x->scope_slot < t->nitems &&
        t->items[x->scope_slot] == x)
        x->flags |= CT__F_KEEP;
    return x;
}
CTENSOR_API ct_tensor *ct_retain(ct_tensor *x) {
    if (x) ct__incref(x);
    return x;
}
CTENSOR_API void ct_release(ct_tensor *x) {
    if (!x) return;
    /* A tensor still listed in a scope keeps that reference: releasing the last
       one here would leave a dangling entry, so it is cleared from the list. */
    if (CT__LOAD(&x->refcount) == 1 && x->scope_slot >= 0) {
        ct__tls *t = ct__tls_get();
        if (x->scope_slot < t->nitems && t->items[x->scope_slot] == x) t->items[x->scope_slot] = NULL;
        x->scope_slot = -1;
    }
    ct__decref(x);
}

CTENSOR_API int64_t ct_live_tensors(void) {
    int64_t n = 0;
    ct__tls_get();
    ct__spin_lock(&ct__tls_lock);
    for (ct__tls *t = CT__LOAD_ACQUIRE(&ct__tls_all); t; t = t->next) n += CT__LOAD(&t->live_tensors);
    ct__spin_unlock(&ct__tls_lock);
    return n;
}
CTENSOR_API int64_t ct_live_bytes(void) {
    int64_t n = 0;
    ct__tls_get();
    ct__spin_lock(&ct__tls_lock);
    for (ct__tls *t = CT__LOAD_ACQUIRE(&ct__tls_all); t; t = t->next) n += CT__LOAD(&t->live_bytes);
    ct__spin_unlock(&ct__tls_lock);
    return n;
}
static void ct__free_node_cache(ct__tls *t);
static void ct__tls_free_caches(ct__tls *t) {
    while (t->free_tensors) {
        ct_tensor *x = t->free_tensors;
        t->free_tensors = x->grad;
        CT_FREE(x);
    }
    t->nfree_tensors = t->fallback ? CT__TENSOR_CACHE : 0;   /* a fallback state never caches headers */
    for (int c = 0; c < CT__PAIR_CLASSES; c++) {
        while (t->free_pairs[c]) {
            ct_tensor *x = t->free_pairs[c];
            t->free_pairs[c] = x->grad;
            CT_FREE(x->storage->ct__block);
            CT_FREE(x);
        }
        t->nfree_pairs[c] = t->fallback ? CT__PAIR_LIMIT(c) : 0;
    }
    ct__free_node_cache(t);
    for (int k = 0; k < CT__BIG_CACHE_SLOTS; k++)
        if (t->big_blocks[k]) {
            CT_FREE(((ct_storage *)t->big_blocks[k])->ct__block);
            t->big_blocks[k] = NULL;
        }
    t->big_bytes = 0;
    for (int c = 0; c < CT__NUM_CLASSES; c++) {
        while (t->free_blocks[c]) {
            ct_storage *s = (ct_storage *)t->free_blocks[c];
            t->free_blocks[c] = s->deleter_user_data;
            CT_FREE(s->ct__block);
        }
        t->nfree_blocks[c] = 0;
    }
    if (t->nframes == 0 && t->nitems == 0) {
        CT_FREE(t->items); t->items = NULL; t->cap_items = 0;
        CT_FREE(t->frames); t->frames = NULL; t->cap_frames = 0;
    }
}
CTENSOR_API void ct_thread_cleanup(void) { ct__tls_free_caches(ct__tls_get()); }
CTENSOR_API void ct_free(void *p) { CT_FREE(p); }
/* The thread is exiting (the pthread key destructor; ct__tls_cur is still t): release
   every scope it left open and its root scope, return its caches, free its state's
   arrays and leave the state to the next new thread. */
static CT__UNUSED void ct__tls_exit(ct__tls *t) {
    if (!t) return;
    while (t->nitems > 0) {
        ct_tensor *x = t->items[--t->nitems];
        if (x) {
            x->scope_slot = -1;
            ct__decref(x);
        }
    }
    t->nframes = 0;
    ct__tls_free_caches(t);
    if (!t->fallback) {
        ct__spin_lock(&ct__tls_lock);
        t->dead = 1;
        ct__spin_unlock(&ct__tls_lock);
    }
    ct__tls_cur = NULL;
}

/* ============================================================================
   Tensor queries
   ========================================================================== */
CT__INLINE int ct__wrap_dim(int dim, int ndim) { return dim < 0 ? dim + (ndim > 0 ? ndim : 1) : dim; }
/* Checks and wraps a dim; on error sets PyTorch's message and returns -1. */
/* dim: an int64 (attributes are), so that 2^32 is out of range, not dim 0 */
static int ct__dim(const char *op, int64_t dim, int ndim) {
    int lo = ndim > 0 ? -ndim : -1, hi = ndim > 0 ? ndim - 1 : 0;
    if (dim < lo || dim > hi) {
        /* ct_dim_of (ctensor_named.h) found no such name: keep its message */
        if (dim == CT_DIM_NOT_FOUND && ct__tls_get()->err_code != CT_OK) return -1;
        ct_set_error(CT_ERR_INDEX, "%s: Dimension out of range (expected to be in range of [%d, %d], but got %lld)", op, lo, hi, (long long)dim);
        return -1;
    }
    return (int)(dim < 0 ? dim + (ndim > 0 ? ndim : 1) : dim);
}

CTENSOR_API int ct_ndim(const ct_tensor *t) { return t ? t->ndim : -1; }
CTENSOR_API int64_t ct_size(const ct_tensor *t, int dim) {
    if (!t) return -1;
    int d = ct__dim("size", dim, t->ndim);
    if (d < 0) return -1;
    return t->ndim ? t->shape[d] : 1;
}
CTENSOR_API int64_t ct_stride(const ct_tensor *t, int dim) {
    if (!t) return -1;
    int d = ct__dim("stride", dim, t->ndim);
    if (d < 0) return -1;
    return t->ndim ? t->strides[d] : 1;
}
CTENSOR_API int64_t ct_numel(const ct_tensor *t) { return t ? ct__shape_numel(t->ndim, t->shape) : -1; }
CTENSOR_API ct_dtype ct_get_dtype(const ct_tensor *t) { return t ? t->dtype : CT_NUM_DTYPES; }
static int ct__is_contig(const ct_tensor *t) {
    int64_t s = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        if (t->shape[i] == 1) continue;
        if (t->shape[i] == 0) return 1;
        if (t->strides[i] != s) return 0;
        s *= t->shape[i];
    }
    return 1;
}
CTENSOR_API int ct_is_contiguous(const ct_tensor *t) { return t ? ct__is_contig(t) : 0; }
CTENSOR_API int ct_is_channels_last(const ct_tensor *t) {
    if (!t || t->ndim != 4) return 0;
    /* NHWC strides: C fastest, then W, H, N (size-1 dims are free) */
    const int order[4] = {1, 3, 2, 0};
    int64_t s = 1;
    for (int k = 0; k < 4; k++) {
        int d = order[k];
        if (t->shape[d] == 1) continue;
        if (t->strides[d] != s) return 0;
        s *= t->shape[d];
    }
    return 1;
}
CT__INLINE char *ct__ptr(const ct_tensor *t) {
    return (char *)t->storage->data + t->offset * (int64_t)ct__dt[t->dtype].size;
}
CTENSOR_API void *ct_data_ptr(const ct_tensor *t) { return t ? (void *)ct__ptr(t) : NULL; }
CTENSOR_API int ct_same_shape(const ct_tensor *a, const ct_tensor *b) {
    if (!a || !b || a->ndim != b->ndim) return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i]) return 0;
    return 1;
}
CTENSOR_API uint32_t ct_version(const ct_tensor *t) { return t ? CT__LOAD(&t->storage->version) : 0; }

/* ---- quantization parameters (owned, reference-counted, shared by views) ---- */
static int ct__qscheme_ok(ct_qscheme q, int per_channel) {
    if (per_channel) return q == CT_PER_CHANNEL_AFFINE || q == CT_PER_CHANNEL_SYMMETRIC || q == CT_PER_CHANNEL_AFFINE_FLOAT_QPARAMS;
    return q == CT_PER_TENSOR_AFFINE || q == CT_PER_TENSOR_SYMMETRIC;
}
CTENSOR_API ct_qparams *ct_qparams_per_tensor(double scale, int64_t zero_point, ct_qscheme qscheme) {
    if (!ct__qscheme_ok(qscheme, 0))
        return (ct_qparams *)ct__fail(CT_ERR_ARG, "qparams_per_tensor: qscheme %d is not a per-tensor scheme", (int)qscheme);
    if (!(scale > 0) || !isfinite(scale))
        return (ct_qparams *)ct__fail(CT_ERR_ARG, "qparams_per_tensor: scale must be a positive finite number, got %g", scale);
    ct_qparams *q = CT__NEW_ZEROED(ct_qparams);
    if (!q) return (ct_qparams *)ct__fail(CT_ERR_MEMORY, "qparams_per_tensor: out of memory");
    q->refcount = 1;
    q->qscheme = qscheme;
    q->scale = scale;
    q->zero_point = zero_point;
    return q;
}
CTENSOR_API ct_qparams *ct_qparams_per_channel(int64_t nchannels, const double *scales, const int64_t *zero_points,
                                               int64_t axis, ct_qscheme qscheme) {
    if (!ct__qscheme_ok(qscheme, 1))
        return (ct_qparams *)ct__fail(CT_ERR_ARG, "qparams_per_channel: qscheme %d is not a per-channel scheme", (int)qscheme);
    if (nchannels < 1 || nchannels > ((int64_t)1 << 40) || !scales || !zero_points || axis < 0 || axis >= CT_MAX_DIMS)
        return (ct_qparams *)ct__fail(CT_ERR_ARG, "qparams_per_channel: bad arguments (nchannels %lld, axis %lld)",
                                      (long long)nchannels, (long long)axis);
    for (int64_t k = 0; k < nchannels; k++)
        if (!(scales[k] > 0) || !isfinite(scales[k]))
            return (ct_qparams *)ct__fail(CT_ERR_ARG, "qparams_per_channel: scale %lld must be a positive finite number, got %g",
                                          (long long)k, scales[k]);
    ct_qparams *q = CT__NEW_ZEROED(ct_qparams);
    double *sc = CT__NEW_ARRAY(double, nchannels);
    int64_t *zp = CT__NEW_ARRAY(int64_t, nchannels);
    if (!q || !sc || !zp) {
        CT_FREE(q); CT_FREE(sc); CT_FREE(zp);
        return (ct_qparams *)ct__fail(CT_ERR_MEMORY, "qparams_per_channel: out of memory");
    }
    memcpy(sc, scales, sizeof(double) * (size_t)nchannels);
    memcpy(zp, zero_points, sizeof(int64_t) * (size_t)nchannels);
    q->refcount = 1;
    q->qscheme = qscheme;
    q->axis = axis;
    q->nchannels = nchannels;
    q->scales = sc;
    q->zero_points = zp;
    return q;
}
CTENSOR_API ct_qparams *ct_qparams_retain(ct_qparams *q) {
    if (q) CT__ATOMIC_INC(&q->refcount);
    return q;
}
CTENSOR_API void ct_qparams_release(ct_qparams *q) {
    if (!q || CT__ATOMIC_DEC(&q->refcount) != 0) return;
    CT_FREE(q->scales);
    CT_FREE(q->zero_points);
    CT_FREE(q);
}
CTENSOR_API ct_status ct_set_qparams(ct_tensor *t, ct_qparams *q) {
    if (!t) { ct__null_arg("set_qparams", 0); return CT_ERR_NULL; }
    if (q && !CT__DT_QUANT(t->dtype)) {
        ct_set_error(CT_ERR_DTYPE, "set_qparams: tensor of dtype %s is not quantized (qint8, quint8, qint32)", ct_dtype_name(t->dtype));
        return CT_ERR_DTYPE;
    }
    if (q && q->nchannels && (q->axis >= t->ndim || t->shape[q->axis] != q->nchannels)) {
        ct_set_error(CT_ERR_SHAPE, "set_qparams: %lld per-channel parameters along axis %lld do not fit a tensor of shape %s",
                     (long long)q->nchannels, (long long)q->axis, CT__SHAPE(t));
        return CT_ERR_SHAPE;
    }
    ct_qparams *old = t->qparams;
    t->qparams = ct_qparams_retain(q);
    ct_qparams_release(old);
    return CT_OK;
}
CTENSOR_API const ct_qparams *ct_get_qparams(const ct_tensor *t) { return t ? t->qparams : NULL; }
/* ct_item's one element as bits in buf: a device tensor's comes to the host
   first through its backend's copy (PyTorch's item() waits for the GPU too). */
static ct_tensor *ct__host_copy(const ct_tensor *x, ct_dtype dt);
static int ct__item_bits(const ct_tensor *t, unsigned char *buf) {
    if (!t) {
        ct__null_arg("item", 0);
        return -1;
    }
    if (ct_numel(t) != 1)
        return ct__failed(CT_ERR_ARG, "item: a Tensor with %lld elements cannot be converted to Scalar", (long long)ct_numel(t));
    if (t->device.type == CT_CPU) {
        memcpy(buf, ct__ptr(t), ct__dt[t->dtype].size);
        return 0;
    }
    ct_tensor *h = ct__host_copy(t, t->dtype);
    if (!h) return -1;
    memcpy(buf, ct__ptr(h), ct__dt[t->dtype].size);
    ct__decref(h);
    return 0;
}
CTENSOR_API double ct_item(const ct_tensor *t) {
    unsigned char b[16];
    return ct__item_bits(t, b) ? NAN : ct__load_f64(b, t->dtype);
}
CTENSOR_API int64_t ct_item_int(const ct_tensor *t) {
    unsigned char b[16];
    return ct__item_bits(t, b) ? 0 : ct__load_i64(b, t->dtype);
}

/* ============================================================================
   The spine: op calls, the op table, the dispatcher
   Every tensor operation is one entry of CT__OPS (an X-macro list):
     X(ENUM, "aten::stable.name", "name", "BackwardNodeName", nin, nout, flags,
       "attribute schema", meta, kernel, backward, save)
   The stable name is PyTorch's overload name (ct:: for our own ops) and never
   changes; "name" is what messages print. nin < 0: variadic. The attribute
   schema types every ct_attrs slot the op reads (grammar above ct__attrdesc).
   meta checks the inputs and describes the outputs from metadata only; kernel
   computes them; backward maps output gradients to input gradients with ctensor
   ops (so create_graph works). save says what autograd keeps: bit i for input i,
   CT__SAVE_OUT(j) for output j. docs/SPINE.md is the guide.
   ========================================================================== */
typedef ct_attrs ct__attrs;         /* the public struct: typed by each op's schema */

/* NEW: allocated by the dispatcher from the meta's shape. VIEW: a view of input
   `src`. INPLACE: input `src` itself. DEFERRED: ops flagged CT__OPF_DATA_SHAPE
   only: the meta cannot know the shape (it never reads data), so the kernel
   allocates the output with ct__out_alloc once it has counted. */
enum { CT__OUT_NEW = 0, CT__OUT_VIEW = 1, CT__OUT_INPLACE = 2, CT__OUT_DEFERRED = 3 };
typedef struct ct__outinfo {
    int32_t kind;                  /* CT__OUT_* */
    int32_t src;                   /* input index for VIEW / INPLACE */
    ct_dtype dtype;
    int32_t ndim;
    int32_t has_strides;           /* NEW: allocate with `strides` (a dense permutation) */
    int64_t offset;                /* VIEW: storage offset in elements */
    int64_t shape[CT_MAX_DIMS];
    int64_t strides[CT_MAX_DIMS];
} ct__outinfo;

#define CT__MAX_OUT 4
typedef struct ct__call {
    int op;
    int nin;
    ct_tensor *const *in;
    const ct__attrs *a;
    ct_generator *gen;             /* random ops: the generator (NULL: the default); not an attribute */
    ct_device odev;                /* where NEW outputs are allocated (set by the dispatcher) */
    int nout;
    ct_tensor *out[CT__MAX_OUT];
    ct__outinfo oi[CT__MAX_OUT];
    ct_dtype cdt;                  /* compute dtype chosen by meta */
    ct_tensor *self_before;        /* in-place ops: input 0 as it was, when autograd must save it */
    int inplace;                   /* set by callers of elementwise ops: write into input 0 */
    int fast;                      /* set by elementwise metas: contiguous operands of one shape */
    void (*fast_fn)(char **, const int64_t *, int64_t, const ct__attrs *);   /* fast: the loop */
    int64_t fast_n;                /* fast: the number of elements */
    uint32_t pre_version[8];       /* in-place calls: input versions before the write */
} ct__call;

typedef int (*ct__meta_fn)(ct__call *c);
typedef int (*ct__kernel_fn)(ct__call *c);
typedef int (*ct__backward_fn)(ct__node *n, ct_tensor *const *gout, ct_tensor **gin);
/* Inner loop of an elementwise kernel: p[0] output, p[1..] inputs; s: byte strides. */
typedef void (*ct__loop_fn)(char **p, const int64_t *s, int64_t n, const ct__attrs *a);

/* op flags */
#define CT__OPF_NONDIFF      0x0001u  /* outputs never require grad */
#define CT__OPF_INPLACE      0x0002u  /* output 0 is input 0, modified */
#define CT__OPF_VIEW         0x0004u  /* outputs are views of input 0 */
#define CT__OPF_FLOAT        0x0010u  /* elementwise: int/bool inputs compute in the default float dtype */
#define CT__OPF_OUT_BOOL     0x0020u  /* elementwise: output dtype is bool */
#define CT__OPF_NO_BOOL      0x0040u  /* elementwise: bool input is an error */
#define CT__OPF_NO_INT       0x0080u  /* elementwise: integer input is an error */
#define CT__OPF_INT_ONLY     0x0100u  /* elementwise: float input is an error */
#define CT__OPF_LOGICAL      0x0200u  /* elementwise: inputs read as truth values */
#define CT__OPF_DATA_SHAPE   0x0400u  /* output shape depends on input values (a tracer warns) */
#define CT__OPF_RANDOM       0x0800u  /* draws from the call's generator */
#define CT__OPF_DEVICE_ATTR  0x1000u  /* attrs.device is the output device (factories, to) */

#define CT__SAVE_NONE 0u
#define CT__SAVE_IN(i) (1u << (i))
#define CT__SAVE_ALL_IN 0xffffu
#define CT__SAVE_OUT(j) (1u << (16 + (j)))
/* with CT__SAVE_IN: those inputs are kept for their geometry only (sizes, strides,
   offset: PyTorch's TensorGeometry), as detached aliases read with
   ct__saved_peek: no history, hence no reference cycle through a view's base */
#define CT__SAVE_GEOMETRY 0x80000000u

/* ---- the selective build (CTENSOR_SELECTED_OPS, CTENSOR_NO_AUTOGRAD) ----
   CT__SEL(E) is 1 when op E is in this build: always, or with CTENSOR_SELECTED_OPS
   when CTENSOR_OP_<E> is defined as 1 (the probe: CT__SELP_1 adds an argument, so
   the second one is 1; anything else leaves 0 second). CT__SEL_OR(E, f, g) is f
   for a selected op, else g; CT__WHEN_SEL(E)(tokens) keeps the tokens only then.
   An op left out keeps its row (ids, names, schemas stay), with the stubs below. */
#define CT__SELP_1 ~, 1
#define CT__SEL2_(a, b, ...) b
#define CT__SEL2(...) CT__SEL2_(__VA_ARGS__)
#ifdef CTENSOR_SELECTED_OPS
#  if defined(CTENSOR_OP_BITWISE_NOT) && !defined(CTENSOR_OP_LOGICAL_NOT)
#    define CTENSOR_OP_LOGICAL_NOT 1   /* ~ on bool tensors runs logical_not's loop */
#  endif
#  define CT__SEL(E) CT__SEL2(CT__CAT(CT__SELP_, CTENSOR_OP_##E), 0, ~)
#  if defined(__GNUC__) || defined(__clang__)
#    pragma GCC diagnostic ignored "-Wunused-function"
#  endif
#else
#  define CT__SEL(E) 1
#endif
#define CT__SEL_OR(E, f, g) CT__CAT(CT__SELOR_, CT__SEL(E))(f, g)
#define CT__SELOR_1(f, g) f
#define CT__SELOR_0(f, g) g
#define CT__WHEN_SEL(E) CT__CAT(CT__WHEN_, CT__SEL(E))
#define CT__WHEN_1(...) __VA_ARGS__
#define CT__WHEN_0(...)
#ifdef CTENSOR_NO_AUTOGRAD
#  define CT__BW_OR(E, bw) ct__bw_unselected
#  if defined(__GNUC__) || defined(__clang__)
#    pragma GCC diagnostic ignored "-Wunused-function"   /* the backward rules nothing refers to */
#  endif
#else
#  define CT__BW_OR(E, bw) CT__SEL_OR(E, bw, ct__bw_unselected)
#endif
static int ct__op_unselected(int op);
static CT__UNUSED int ct__meta_unselected(ct__call *c) { return ct__op_unselected(c->op); }
static CT__UNUSED int ct__k_unselected(ct__call *c) { return ct__op_unselected(c->op); }
static CT__UNUSED int ct__bw_unselected(ct__node *n, ct_tensor *const *gout, ct_tensor **gin);

/* ----------------------------------------------------------------------------
   Op lists, one per family. Each family section below defines its functions.
   -------------------------------------------------------------------------- */
/* creation and conversion */
#define CT__OPS_CREATE(X) \
    X(FILL, "aten::fill_.Scalar", "fill_", "FillBackward0", 1, 1, CT__OPF_INPLACE, "float value=s0", ct__meta_inplace_self, ct__k_fill, ct__bw_fill, CT__SAVE_NONE) \
    X(COPY, "aten::copy_", "copy_", "CopyBackwards", 2, 1, CT__OPF_INPLACE, "", ct__meta_copy, ct__k_copy, ct__bw_copy, CT__SAVE_NONE) \
    X(TO, "aten::_to_copy", "to", "ToCopyBackward0", 1, 1, CT__OPF_DEVICE_ATTR, "dtype dtype=dt, device device=dev, enum(preserve_format|channels_last|contiguous_format|channels_last_3d) memory_format=mode, bool non_blocking=f0", ct__meta_to, ct__k_to, ct__bw_to, CT__SAVE_NONE) \
    X(CLONE, "aten::clone", "clone", "CloneBackward0", 1, 1, 0, "enum(preserve_format|channels_last|contiguous_format|channels_last_3d) memory_format=mode", ct__meta_clone, ct__k_to, ct__bw_identity, CT__SAVE_NONE) \
    X(ARANGE, "aten::arange.start_step", "arange", "", 0, 1, CT__OPF_NONDIFF | CT__OPF_DEVICE_ATTR, "float start=s0, float end=s1, float step=s2, dtype dtype=dt, device device=dev", ct__meta_factory, ct__k_arange, ct__bw_none, CT__SAVE_NONE) \
    X(LINSPACE, "aten::linspace", "linspace", "", 0, 1, CT__OPF_NONDIFF | CT__OPF_DEVICE_ATTR, "float start=s0, float end=s1, int steps=i0, dtype dtype=dt, device device=dev", ct__meta_factory, ct__k_linspace, ct__bw_none, CT__SAVE_NONE) \
    X(EYE, "aten::eye.m", "eye", "", 0, 1, CT__OPF_NONDIFF | CT__OPF_DEVICE_ATTR, "int n=i0, int m=i1, dtype dtype=dt, device device=dev", ct__meta_factory, ct__k_eye, ct__bw_none, CT__SAVE_NONE) \
    X(FULL, "aten::full", "full", "", 0, 1, CT__OPF_NONDIFF | CT__OPF_DEVICE_ATTR, "int[] size=v, float fill_value=s0, dtype dtype=dt, device device=dev", ct__meta_factory, ct__k_full, ct__bw_none, CT__SAVE_NONE) \
    X(CONJ, "aten::conj_physical", "conj_physical", "ConjPhysicalBackward0", 1, 1, 0, "", ct__meta_unary, ct__k_unary, ct__bw_conj, CT__SAVE_NONE) \
    X(COMPLEX, "aten::complex", "complex", "ComplexBackward0", 2, 1, 0, "", ct__meta_complex, ct__k_complex, ct__bw_complex, CT__SAVE_NONE) \
    X(POLAR, "aten::polar", "polar", "PolarBackward0", 2, 1, 0, "", ct__meta_complex, ct__k_complex, ct__bw_polar, CT__SAVE_IN(0) | CT__SAVE_IN(1))

/* views: outputs share storage with input 0 */
#define CT__OPS_VIEW(X) \
    X(AS_STRIDED, "aten::as_strided", "as_strided", "AsStridedBackward0", 1, 1, CT__OPF_VIEW, "int[] size=v, int[] stride=v#1, int storage_offset=i0", ct__meta_as_strided, ct__k_view, ct__bw_as_strided, CT__SAVE_IN(0) | CT__SAVE_GEOMETRY) \
    X(VIEW, "aten::view", "view", "ViewBackward0", 1, 1, CT__OPF_VIEW, "int[] size=v", ct__meta_view, ct__k_view, ct__bw_view, CT__SAVE_NONE) \
    X(PERMUTE, "aten::permute", "permute", "PermuteBackward0", 1, 1, CT__OPF_VIEW, "int[] dims=v", ct__meta_permute, ct__k_view, ct__bw_permute, CT__SAVE_NONE) \
    X(EXPAND, "aten::expand", "expand", "ExpandBackward0", 1, 1, CT__OPF_VIEW, "int[] size=v", ct__meta_expand, ct__k_view, ct__bw_expand, CT__SAVE_NONE) \
    X(SLICE, "aten::slice.Tensor", "slice", "SliceBackward0", 1, 1, CT__OPF_VIEW, "int dim=i0, int start=i1, int end=i2, int step=i3", ct__meta_slice, ct__k_view, ct__bw_slice, CT__SAVE_NONE) \
    X(SELECT, "aten::select.int", "select", "SelectBackward0", 1, 1, CT__OPF_VIEW, "int dim=i0, int index=i1", ct__meta_select, ct__k_view, ct__bw_select, CT__SAVE_NONE) \
    X(DIAGONAL, "aten::diagonal", "diagonal", "DiagonalBackward0", 1, 1, CT__OPF_VIEW, "int offset=i0, int dim1=i1, int dim2=i2", ct__meta_diagonal, ct__k_view, ct__bw_diagonal, CT__SAVE_NONE) \
    X(ALIAS, "aten::alias", "alias", "AliasBackward0", 1, 1, CT__OPF_VIEW, "", ct__meta_alias, ct__k_view, ct__bw_identity, CT__SAVE_NONE) \
    X(VIEW_AS_REAL, "aten::view_as_real", "view_as_real", "ViewAsRealBackward0", 1, 1, CT__OPF_VIEW, "", ct__meta_cxview, ct__k_cxview, ct__bw_cxview, CT__SAVE_NONE) \
    X(VIEW_AS_COMPLEX, "aten::view_as_complex", "view_as_complex", "ViewAsComplexBackward0", 1, 1, CT__OPF_VIEW, "", ct__meta_cxview, ct__k_cxview, ct__bw_cxview, CT__SAVE_NONE) \
    X(REAL, "aten::real", "real", "RealBackward0", 1, 1, CT__OPF_VIEW, "", ct__meta_cxview, ct__k_cxview, ct__bw_cxview, CT__SAVE_NONE) \
    X(IMAG, "aten::imag", "imag", "ImagBackward0", 1, 1, CT__OPF_VIEW, "", ct__meta_cxview, ct__k_cxview, ct__bw_cxview, CT__SAVE_NONE) \
    X(STRIDED_SCATTER, "aten::as_strided_scatter", "as_strided_scatter", "AsStridedScatterBackward0", 2, 1, 0, "int[] size=v, int[] stride=v#1, int storage_offset=i0", ct__meta_strided_scatter, ct__k_strided_scatter, ct__bw_strided_scatter, CT__SAVE_NONE)

/* elementwise unary: loops in CT__UNARY_LOOPS (same ENUM names) */
/* rows of the unary tables (CT__UNARY_OPS_TABLE in the declarations) */
#define CT__UROW(X, name, E, sn, bw, fl, sv, ...) \
    X(E, sn, #name, bw, 1, 1, fl, "", ct__meta_unary, ct__k_unary, ct__bw_##name, sv)
#define CT__UPROW(X, name, E, sn, fl, ...) X(E, sn, #name, "", 1, 1, fl, "", ct__meta_unary, ct__k_unary, ct__bw_none, CT__SAVE_NONE)
#define CT__OPS_UNARY(X) \
    CT__UNARY_OPS_TABLE(CT__UROW, X) CT__UNARY_PREDICATES_TABLE(CT__UPROW, X) \
    X(LEAKY_RELU, "aten::leaky_relu", "leaky_relu", "LeakyReluBackward0", 1, 1, CT__OPF_NO_INT | CT__OPF_NO_BOOL, "float negative_slope=s0:0.01", ct__meta_unary, ct__k_unary, ct__bw_leaky_relu, CT__SAVE_IN(0)) \
    X(ELU, "aten::elu", "elu", "EluBackward0", 1, 1, CT__OPF_NO_INT | CT__OPF_NO_BOOL, "float alpha=s0:1, float scale=s1:1, float input_scale=s2:1", ct__meta_unary, ct__k_unary, ct__bw_elu, CT__SAVE_IN(0)) \
    X(CELU, "aten::celu", "celu", "CeluBackward0", 1, 1, CT__OPF_NO_INT | CT__OPF_NO_BOOL, "float alpha=s0:1", ct__meta_unary, ct__k_unary, ct__bw_celu, CT__SAVE_IN(0)) \
    X(GELU, "aten::gelu", "gelu", "GeluBackward0", 1, 1, CT__OPF_NO_INT | CT__OPF_NO_BOOL, "enum(none|tanh) approximate=mode", ct__meta_unary, ct__k_unary, ct__bw_gelu, CT__SAVE_IN(0)) \
    X(SOFTPLUS, "aten::softplus", "softplus", "SoftplusBackward0", 1, 1, CT__OPF_NO_INT | CT__OPF_NO_BOOL, "float beta=s0:1, float threshold=s1:20", ct__meta_unary, ct__k_unary, ct__bw_softplus, CT__SAVE_IN(0)) \
    X(HARDTANH, "aten::hardtanh", "hardtanh", "HardtanhBackward0", 1, 1, CT__OPF_NO_BOOL, "float min_val=s0:-1, float max_val=s1:1", ct__meta_unary, ct__k_unary, ct__bw_hardtanh, CT__SAVE_IN(0)) \
    X(THRESHOLD, "aten::threshold", "threshold", "ThresholdBackward0", 1, 1, CT__OPF_NO_BOOL, "float threshold=s0, float value=s1", ct__meta_unary, ct__k_unary, ct__bw_threshold, CT__SAVE_IN(0)) \
    X(NAN_TO_NUM, "aten::nan_to_num", "nan_to_num", "NanToNumBackward0", 1, 1, 0, "float nan=s0, float posinf=s1, float neginf=s2", ct__meta_unary, ct__k_unary, ct__bw_nan_to_num, CT__SAVE_IN(0)) \
    X(CLAMP, "aten::clamp", "clamp", "ClampBackward1", 1, 1, CT__OPF_NO_BOOL, "float min=s0, float max=s1", ct__meta_unary, ct__k_unary, ct__bw_clamp, CT__SAVE_IN(0)) \
    X(POW_SCALAR, "aten::pow.Tensor_Scalar", "pow", "PowBackward0", 1, 1, CT__OPF_NO_BOOL, "float exponent=s0", ct__meta_unary, ct__k_unary, ct__bw_pow_scalar, CT__SAVE_IN(0)) \
    X(RPOW_SCALAR, "aten::pow.Scalar", "pow", "PowBackward2", 1, 1, CT__OPF_NO_BOOL, "float self=s0", ct__meta_unary, ct__k_unary, ct__bw_rpow_scalar, CT__SAVE_OUT(0)) \
    X(ROUND_DECIMALS, "aten::round.decimals", "round", "RoundBackward1", 1, 1, CT__OPF_NO_INT | CT__OPF_NO_BOOL, "int decimals=i0", ct__meta_unary, ct__k_unary, ct__bw_zeros, CT__SAVE_NONE)

/* elementwise binary with broadcasting: loops in CT__BINARY_LOOPS */
#define CT__OPS_BINARY(X) \
    X(ADD, "aten::add.Tensor", "add", "AddBackward0", 2, 1, 0, "float alpha=s0:1", ct__meta_binary, ct__k_binary, ct__bw_add, CT__SAVE_NONE) \
    X(SUB, "aten::sub.Tensor", "sub", "SubBackward0", 2, 1, CT__OPF_NO_BOOL, "float alpha=s0:1", ct__meta_binary, ct__k_binary, ct__bw_sub, CT__SAVE_NONE) \
    X(MUL, "aten::mul.Tensor", "mul", "MulBackward0", 2, 1, 0, "", ct__meta_binary, ct__k_binary, ct__bw_mul, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(DIV, "aten::div.Tensor", "div", "DivBackward0", 2, 1, CT__OPF_FLOAT, "", ct__meta_binary, ct__k_binary, ct__bw_div, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(DIV_TRUNC, "ct::div_trunc", "div", "DivBackward2", 2, 1, CT__OPF_NO_BOOL, "", ct__meta_binary, ct__k_binary, ct__bw_zeros2, CT__SAVE_NONE) \
    X(DIV_FLOOR, "aten::floor_divide", "floor_divide", "DivBackward2", 2, 1, CT__OPF_NO_BOOL, "", ct__meta_binary, ct__k_binary, ct__bw_zeros2, CT__SAVE_NONE) \
    X(REMAINDER, "aten::remainder.Tensor", "remainder", "RemainderBackward0", 2, 1, CT__OPF_NO_BOOL, "", ct__meta_binary, ct__k_binary, ct__bw_remainder, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(FMOD, "aten::fmod.Tensor", "fmod", "FmodBackward0", 2, 1, CT__OPF_NO_BOOL, "", ct__meta_binary, ct__k_binary, ct__bw_fmod, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(POW, "aten::pow.Tensor_Tensor", "pow", "PowBackward1", 2, 1, CT__OPF_NO_BOOL, "", ct__meta_binary, ct__k_binary, ct__bw_pow, CT__SAVE_IN(0) | CT__SAVE_IN(1) | CT__SAVE_OUT(0)) \
    X(ATAN2, "aten::atan2", "atan2", "Atan2Backward0", 2, 1, CT__OPF_FLOAT, "", ct__meta_binary, ct__k_binary, ct__bw_atan2, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(MAXIMUM, "aten::maximum", "maximum", "MaximumBackward0", 2, 1, 0, "", ct__meta_binary, ct__k_binary, ct__bw_maximum, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(MINIMUM, "aten::minimum", "minimum", "MinimumBackward0", 2, 1, 0, "", ct__meta_binary, ct__k_binary, ct__bw_minimum, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(FMAX, "aten::fmax", "fmax", "FmaxBackward0", 2, 1, 0, "", ct__meta_binary, ct__k_binary, ct__bw_fmax, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(FMIN, "aten::fmin", "fmin", "FminBackward0", 2, 1, 0, "", ct__meta_binary, ct__k_binary, ct__bw_fmin, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(HYPOT, "aten::hypot", "hypot", "HypotBackward0", 2, 1, CT__OPF_NO_INT | CT__OPF_NO_BOOL, "", ct__meta_binary, ct__k_binary, ct__bw_hypot, CT__SAVE_IN(0) | CT__SAVE_IN(1) | CT__SAVE_OUT(0)) \
    X(COPYSIGN, "aten::copysign.Tensor", "copysign", "CopysignBackward0", 2, 1, CT__OPF_FLOAT, "", ct__meta_binary, ct__k_binary, ct__bw_copysign, CT__SAVE_IN(0) | CT__SAVE_OUT(0)) \
    X(XLOGY, "aten::xlogy.Tensor", "xlogy", "XlogyBackward0", 2, 1, CT__OPF_FLOAT, "", ct__meta_binary, ct__k_binary, ct__bw_xlogy, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(EQ, "aten::eq.Tensor", "eq", "", 2, 1, CT__OPF_NONDIFF | CT__OPF_OUT_BOOL, "", ct__meta_binary, ct__k_binary, ct__bw_none, CT__SAVE_NONE) \
    X(NE, "aten::ne.Tensor", "ne", "", 2, 1, CT__OPF_NONDIFF | CT__OPF_OUT_BOOL, "", ct__meta_binary, ct__k_binary, ct__bw_none, CT__SAVE_NONE) \
    X(LT, "aten::lt.Tensor", "lt", "", 2, 1, CT__OPF_NONDIFF | CT__OPF_OUT_BOOL, "", ct__meta_binary, ct__k_binary, ct__bw_none, CT__SAVE_NONE) \
    X(LE, "aten::le.Tensor", "le", "", 2, 1, CT__OPF_NONDIFF | CT__OPF_OUT_BOOL, "", ct__meta_binary, ct__k_binary, ct__bw_none, CT__SAVE_NONE) \
    X(GT, "aten::gt.Tensor", "gt", "", 2, 1, CT__OPF_NONDIFF | CT__OPF_OUT_BOOL, "", ct__meta_binary, ct__k_binary, ct__bw_none, CT__SAVE_NONE) \
    X(GE, "aten::ge.Tensor", "ge", "", 2, 1, CT__OPF_NONDIFF | CT__OPF_OUT_BOOL, "", ct__meta_binary, ct__k_binary, ct__bw_none, CT__SAVE_NONE) \
    X(LOGICAL_AND, "aten::logical_and", "logical_and", "", 2, 1, CT__OPF_NONDIFF | CT__OPF_OUT_BOOL | CT__OPF_LOGICAL, "", ct__meta_binary, ct__k_binary, ct__bw_none, CT__SAVE_NONE) \
    X(LOGICAL_OR, "aten::logical_or", "logical_or", "", 2, 1, CT__OPF_NONDIFF | CT__OPF_OUT_BOOL | CT__OPF_LOGICAL, "", ct__meta_binary, ct__k_binary, ct__bw_none, CT__SAVE_NONE) \
    X(LOGICAL_XOR, "aten::logical_xor", "logical_xor", "", 2, 1, CT__OPF_NONDIFF | CT__OPF_OUT_BOOL | CT__OPF_LOGICAL, "", ct__meta_binary, ct__k_binary, ct__bw_none, CT__SAVE_NONE) \
    X(BITWISE_AND, "aten::bitwise_and.Tensor", "bitwise_and", "", 2, 1, CT__OPF_NONDIFF | CT__OPF_INT_ONLY, "", ct__meta_binary, ct__k_binary, ct__bw_none, CT__SAVE_NONE) \
    X(BITWISE_OR, "aten::bitwise_or.Tensor", "bitwise_or", "", 2, 1, CT__OPF_NONDIFF | CT__OPF_INT_ONLY, "", ct__meta_binary, ct__k_binary, ct__bw_none, CT__SAVE_NONE) \
    X(BITWISE_XOR, "aten::bitwise_xor.Tensor", "bitwise_xor", "", 2, 1, CT__OPF_NONDIFF | CT__OPF_INT_ONLY, "", ct__meta_binary, ct__k_binary, ct__bw_none, CT__SAVE_NONE) \
    X(LSHIFT, "aten::bitwise_left_shift.Tensor", "bitwise_left_shift", "", 2, 1, CT__OPF_NONDIFF | CT__OPF_INT_ONLY | CT__OPF_NO_BOOL, "", ct__meta_binary, ct__k_binary, ct__bw_none, CT__SAVE_NONE) \
    X(RSHIFT, "aten::bitwise_right_shift.Tensor", "bitwise_right_shift", "", 2, 1, CT__OPF_NONDIFF | CT__OPF_INT_ONLY | CT__OPF_NO_BOOL, "", ct__meta_binary, ct__k_binary, ct__bw_none, CT__SAVE_NONE)

/* elementwise with three or more inputs */
#define CT__OPS_TERNARY(X) \
    X(WHERE, "aten::where.self", "where", "WhereBackward0", 3, 1, 0, "", ct__meta_where, ct__k_ternary, ct__bw_where, CT__SAVE_IN(0)) \
    X(LERP, "aten::lerp.Tensor", "lerp", "LerpBackward1", 3, 1, CT__OPF_NO_INT | CT__OPF_NO_BOOL, "", ct__meta_ternary, ct__k_ternary, ct__bw_lerp, CT__SAVE_ALL_IN) \
    X(ADDCMUL, "aten::addcmul", "addcmul", "AddcmulBackward0", 3, 1, CT__OPF_NO_BOOL, "float value=s0:1", ct__meta_ternary, ct__k_ternary, ct__bw_addcmul, CT__SAVE_IN(1) | CT__SAVE_IN(2)) \
    X(ADDCDIV, "aten::addcdiv", "addcdiv", "AddcdivBackward0", 3, 1, CT__OPF_NO_BOOL, "float value=s0:1", ct__meta_ternary, ct__k_ternary, ct__bw_addcdiv, CT__SAVE_IN(1) | CT__SAVE_IN(2)) \
    X(CLAMP_T, "aten::clamp.Tensor", "clamp", "ClampBackward0", 3, 1, CT__OPF_NO_BOOL, "", ct__meta_ternary, ct__k_ternary, ct__bw_clamp_t, CT__SAVE_ALL_IN) \
    X(MASKED_FILL, "aten::masked_fill.Tensor", "masked_fill", "MaskedFillBackward0", 3, 1, 0, "", ct__meta_masked_fill, ct__k_ternary, ct__bw_masked_fill, CT__SAVE_IN(1))

/* reductions */
#define CT__OPS_REDUCE(X) \
    X(SUM, "aten::sum.dim_IntList", "sum", "SumBackward1", 1, 1, 0, "int[] dim=v, bool keepdim=f0, dtype? dtype=dt?f1", ct__meta_reduce, ct__k_sum, ct__bw_sum, CT__SAVE_NONE) \
    X(MEAN, "aten::mean.dim", "mean", "MeanBackward1", 1, 1, 0, "int[] dim=v, bool keepdim=f0, dtype? dtype=dt?f1", ct__meta_reduce, ct__k_sum, ct__bw_mean, CT__SAVE_NONE) \
    X(NANSUM, "aten::nansum", "nansum", "NansumBackward0", 1, 1, 0, "int[] dim=v, bool keepdim=f0, dtype? dtype=dt?f1", ct__meta_reduce, ct__k_sum, ct__bw_nansum, CT__SAVE_IN(0)) \
    X(PROD, "aten::prod.dim_int", "prod", "ProdBackward1", 1, 1, 0, "int[] dim=v, bool keepdim=f0, dtype? dtype=dt?f1", ct__meta_reduce, ct__k_sum, ct__bw_prod, CT__SAVE_IN(0) | CT__SAVE_OUT(0)) \
    X(VAR, "aten::var.correction", "var", "VarBackward0", 1, 1, 0, "int[] dim=v, float correction=s0:1, bool keepdim=f0", ct__meta_var, ct__k_var, ct__bw_var, CT__SAVE_IN(0)) \
    X(STD, "aten::std.correction", "std", "StdBackward0", 1, 1, 0, "int[] dim=v, float correction=s0:1, bool keepdim=f0", ct__meta_var, ct__k_var, ct__bw_var, CT__SAVE_IN(0) | CT__SAVE_OUT(0)) \
    X(VAR_MEAN, "aten::var_mean.correction", "var_mean", "VarMeanBackward0", 1, 2, 0, "int[] dim=v, float correction=s0:1, bool keepdim=f0", ct__meta_var, ct__k_var, ct__bw_var, CT__SAVE_IN(0)) \
    X(STD_MEAN, "aten::std_mean.correction", "std_mean", "StdMeanBackward0", 1, 2, 0, "int[] dim=v, float correction=s0:1, bool keepdim=f0", ct__meta_var, ct__k_var, ct__bw_var, CT__SAVE_IN(0) | CT__SAVE_OUT(0)) \
    X(AMAX, "aten::amax", "amax", "AmaxBackward0", 1, 1, 0, "int[] dim=v, bool keepdim=f0", ct__meta_minmax, ct__k_minmax, ct__bw_amax, CT__SAVE_IN(0) | CT__SAVE_OUT(0)) \
    X(AMIN, "aten::amin", "amin", "AminBackward0", 1, 1, 0, "int[] dim=v, bool keepdim=f0", ct__meta_minmax, ct__k_minmax, ct__bw_amax, CT__SAVE_IN(0) | CT__SAVE_OUT(0)) \
    X(MAX, "aten::max", "max", "MaxBackward1", 1, 1, 0, "", ct__meta_minmax, ct__k_minmax, ct__bw_evenly, CT__SAVE_IN(0) | CT__SAVE_OUT(0)) \
    X(MIN, "aten::min", "min", "MinBackward1", 1, 1, 0, "", ct__meta_minmax, ct__k_minmax, ct__bw_evenly, CT__SAVE_IN(0) | CT__SAVE_OUT(0)) \
    X(MAX_DIM, "aten::max.dim", "max", "MaxBackward0", 1, 2, 0, "int dim=i0, bool keepdim=f0", ct__meta_minmax, ct__k_minmax, ct__bw_valsel, CT__SAVE_OUT(1)) \
    X(MIN_DIM, "aten::min.dim", "min", "MinBackward0", 1, 2, 0, "int dim=i0, bool keepdim=f0", ct__meta_minmax, ct__k_minmax, ct__bw_valsel, CT__SAVE_OUT(1)) \
    X(ARGMAX, "aten::argmax", "argmax", "", 1, 1, CT__OPF_NONDIFF, "int? dim=i0?f4, bool keepdim=f0", ct__meta_minmax, ct__k_minmax, ct__bw_none, CT__SAVE_NONE) \
    X(ARGMIN, "aten::argmin", "argmin", "", 1, 1, CT__OPF_NONDIFF, "int? dim=i0?f4, bool keepdim=f0", ct__meta_minmax, ct__k_minmax, ct__bw_none, CT__SAVE_NONE) \
    X(LOGSUMEXP, "aten::logsumexp", "logsumexp", "LogsumexpBackward0", 1, 1, 0, "int[] dim=v, bool keepdim=f0", ct__meta_lse, ct__k_lse, ct__bw_lse, CT__SAVE_IN(0) | CT__SAVE_OUT(0)) \
    X(ALL, "aten::all.dim", "all", "", 1, 1, CT__OPF_NONDIFF, "int? dim=i0?f4, bool keepdim=f0", ct__meta_logic, ct__k_logic, ct__bw_none, CT__SAVE_NONE) \
    X(ANY, "aten::any.dim", "any", "", 1, 1, CT__OPF_NONDIFF, "int? dim=i0?f4, bool keepdim=f0", ct__meta_logic, ct__k_logic, ct__bw_none, CT__SAVE_NONE) \
    X(COUNT_NONZERO, "aten::count_nonzero.dim_IntList", "count_nonzero", "", 1, 1, CT__OPF_NONDIFF, "int[] dim=v", ct__meta_logic, ct__k_logic, ct__bw_none, CT__SAVE_NONE) \
    X(NORM, "aten::norm.ScalarOpt_dim", "norm", "NormBackward1", 1, 1, 0, "float p=s0:2, int[] dim=v, bool keepdim=f0", ct__meta_norm, ct__k_norm, ct__bw_norm, CT__SAVE_IN(0) | CT__SAVE_OUT(0)) \
    X(SOFTMAX, "aten::_softmax", "softmax", "SoftmaxBackward0", 1, 1, 0, "int dim=i0", ct__meta_softmax, ct__k_softmax, ct__bw_softmax, CT__SAVE_OUT(0)) \
    X(LOG_SOFTMAX, "aten::_log_softmax", "log_softmax", "LogSoftmaxBackward0", 1, 1, 0, "int dim=i0", ct__meta_softmax, ct__k_softmax, ct__bw_softmax, CT__SAVE_OUT(0)) \
    X(SOFTMAX_BACKWARD, "aten::_softmax_backward_data", "_softmax_backward_data", "SoftmaxBackwardDataBackward0", 2, 1, 0, "int dim=i0", ct__meta_softmax_bw, ct__k_softmax_bw, ct__bw_softmax_bw, CT__SAVE_ALL_IN) \
    X(LOG_SOFTMAX_BACKWARD, "aten::_log_softmax_backward_data", "_log_softmax_backward_data", "LogSoftmaxBackwardDataBackward0", 2, 1, 0, "int dim=i0", ct__meta_softmax_bw, ct__k_softmax_bw, ct__bw_softmax_bw, CT__SAVE_ALL_IN) \
    X(CUMSUM, "aten::cumsum", "cumsum", "CumsumBackward0", 1, 1, 0, "int dim=i0, dtype? dtype=dt?f1, bool reverse=f3", ct__meta_scan, ct__k_scan, ct__bw_cumsum, CT__SAVE_NONE) \
    X(CUMPROD, "aten::cumprod", "cumprod", "CumprodBackward0", 1, 1, 0, "int dim=i0, dtype? dtype=dt?f1", ct__meta_scan, ct__k_scan, ct__bw_cumprod, CT__SAVE_IN(0) | CT__SAVE_OUT(0)) \
    X(CUMMAX, "aten::cummax", "cummax", "CummaxBackward0", 1, 2, 0, "int dim=i0", ct__meta_scan, ct__k_scan, ct__bw_cumext, CT__SAVE_OUT(1)) \
    X(CUMMIN, "aten::cummin", "cummin", "CumminBackward0", 1, 2, 0, "int dim=i0", ct__meta_scan, ct__k_scan, ct__bw_cumext, CT__SAVE_OUT(1)) \
    X(SORT, "aten::sort.stable", "sort", "SortBackward0", 1, 2, 0, "int dim=i0, bool descending=f2", ct__meta_sort, ct__k_sort, ct__bw_valsel, CT__SAVE_OUT(1)) \
    X(TOPK, "aten::topk", "topk", "TopkBackward0", 1, 2, 0, "int k=i1, int dim=i0, bool largest=f2", ct__meta_sort, ct__k_sort, ct__bw_valsel, CT__SAVE_OUT(1)) \
    X(KTHVALUE, "aten::kthvalue", "kthvalue", "KthvalueBackward0", 1, 2, 0, "int k=i1, int dim=i0, bool keepdim=f0", ct__meta_sort, ct__k_sort, ct__bw_valsel, CT__SAVE_OUT(1)) \
    X(MEDIAN_DIM, "aten::median.dim", "median", "MedianBackward1", 1, 2, 0, "int dim=i0, bool keepdim=f0", ct__meta_sort, ct__k_sort, ct__bw_valsel, CT__SAVE_OUT(1)) \
    X(MODE, "aten::mode", "mode", "ModeBackward0", 1, 2, 0, "int dim=i0, bool keepdim=f0", ct__meta_sort, ct__k_sort, ct__bw_valsel, CT__SAVE_OUT(1)) \
    X(MEDIAN, "aten::median", "median", "MedianBackward0", 1, 1, 0, "", ct__meta_sort, ct__k_sort, ct__bw_evenly, CT__SAVE_IN(0) | CT__SAVE_OUT(0))

/* indexing and joining */
#define CT__OPS_INDEX(X) \
    X(INDEX_SELECT, "aten::index_select", "index_select", "IndexSelectBackward0", 2, 1, 0, "int dim=i0", ct__meta_index_select, ct__k_index_select, ct__bw_index_select, CT__SAVE_IN(1)) \
    X(GATHER, "aten::gather", "gather", "GatherBackward0", 2, 1, 0, "int dim=i0", ct__meta_gather, ct__k_gather, ct__bw_gather, CT__SAVE_IN(1)) \
    X(SCATTER, "aten::scatter.src", "scatter", "ScatterBackward0", 3, 1, 0, "int dim=i0", ct__meta_scatter, ct__k_scatter, ct__bw_scatter, CT__SAVE_IN(1)) \
    X(SCATTER_VALUE, "aten::scatter.value", "scatter", "ScatterBackward1", 2, 1, 0, "int dim=i0, float value=s0", ct__meta_scatter, ct__k_scatter, ct__bw_scatter, CT__SAVE_IN(1)) \
    X(SCATTER_ADD, "aten::scatter_add", "scatter_add", "ScatterAddBackward0", 3, 1, 0, "int dim=i0", ct__meta_scatter, ct__k_scatter, ct__bw_scatter_add, CT__SAVE_IN(1)) \
    X(SCATTER_REDUCE, "aten::scatter_reduce.two", "scatter_reduce", "ScatterReduceBackward0", 3, 1, 0, "int dim=i0, enum(sum|prod|mean|amax|amin) reduce=mode, bool include_self=f0", ct__meta_scatter, ct__k_scatter, ct__bw_scatter_reduce, \
      CT__SAVE_IN(0) | CT__SAVE_IN(1) | CT__SAVE_IN(2) | CT__SAVE_OUT(0)) \
    X(INDEX_ADD, "aten::index_add", "index_add", "IndexAddBackward0", 3, 1, 0, "int dim=i0, float alpha=s0:1", ct__meta_index_add, ct__k_index_add, ct__bw_index_add, CT__SAVE_IN(1)) \
    X(INDEX_COPY, "aten::index_copy", "index_copy", "IndexCopyBackward0", 3, 1, 0, "int dim=i0", ct__meta_index_add, ct__k_index_add, ct__bw_index_copy, CT__SAVE_IN(1)) \
    X(INDEX_FILL, "aten::index_fill.int_Scalar", "index_fill", "IndexFillBackward0", 2, 1, 0, "int dim=i0, float value=s0", ct__meta_index_add, ct__k_index_add, ct__bw_index_fill, CT__SAVE_IN(1)) \
    X(INDEX, "aten::index.Tensor", "index", "IndexBackward0", -1, 1, 0, "int indexed_dims=i1", ct__meta_index, ct__k_index, ct__bw_index, 0xfffeu) \
    X(INDEX_PUT, "aten::index_put", "index_put", "IndexPutBackward0", -1, 1, 0, "int indexed_dims=i1, bool accumulate=f0", ct__meta_index, ct__k_index_put, ct__bw_index_put, 0xfffcu) \
    X(MASKED_SELECT, "aten::masked_select", "masked_select", "MaskedSelectBackward0", 2, 1, CT__OPF_DATA_SHAPE, "", ct__meta_masked_select, ct__k_masked_select, ct__bw_masked_select, CT__SAVE_IN(1)) \
    X(MASKED_SCATTER, "aten::masked_scatter", "masked_scatter", "MaskedScatterBackward0", 3, 1, 0, "", ct__meta_masked_scatter, ct__k_masked_scatter, ct__bw_masked_scatter, CT__SAVE_IN(1)) \
    X(NONZERO, "aten::nonzero", "nonzero", "", 1, 1, CT__OPF_NONDIFF | CT__OPF_DATA_SHAPE, "", ct__meta_nonzero, ct__k_nonzero, ct__bw_none, CT__SAVE_NONE) \
    X(TAKE, "aten::take", "take", "TakeBackward0", 2, 1, 0, "", ct__meta_take, ct__k_take, ct__bw_take, CT__SAVE_IN(1)) \
    X(CAT, "aten::cat", "cat", "CatBackward0", -1, 1, 0, "int dim=i0", ct__meta_cat, ct__k_cat, ct__bw_cat, CT__SAVE_NONE) \
    X(STACK, "aten::stack", "stack", "StackBackward0", -1, 1, 0, "int dim=i0", ct__meta_cat, ct__k_cat, ct__bw_stack, CT__SAVE_NONE) \
    X(FLIP, "aten::flip", "flip", "FlipBackward0", 1, 1, 0, "int[] dims=v", ct__meta_flip, ct__k_flip, ct__bw_flip, CT__SAVE_NONE) \
    X(ROLL, "aten::roll", "roll", "RollBackward0", 1, 1, 0, "int[] shifts=v, int[] dims=v#1", ct__meta_roll, ct__k_roll, ct__bw_roll, CT__SAVE_NONE) \
    X(REPEAT, "aten::repeat", "repeat", "RepeatBackward0", 1, 1, 0, "int[] repeats=v", ct__meta_repeat, ct__k_repeat, ct__bw_repeat, CT__SAVE_NONE) \
    X(REPEAT_INTERLEAVE, "aten::repeat_interleave.self_int", "repeat_interleave", "", 1, 1, CT__OPF_NONDIFF | CT__OPF_DATA_SHAPE, "", ct__meta_repeat_interleave, ct__k_repeat_interleave, ct__bw_none, CT__SAVE_NONE) \
    X(TRIL, "aten::tril", "tril", "TrilBackward0", 1, 1, 0, "int diagonal=i0", ct__meta_tri, ct__k_tri, ct__bw_tri, CT__SAVE_NONE) \
    X(TRIU, "aten::triu", "triu", "TriuBackward0", 1, 1, 0, "int diagonal=i0", ct__meta_tri, ct__k_tri, ct__bw_tri, CT__SAVE_NONE) \
    X(DIAG_EMBED, "aten::diag_embed", "diag_embed", "DiagEmbedBackward0", 1, 1, 0, "int offset=i0, int dim1=i1, int dim2=i2", ct__meta_diag_embed, ct__k_diag_embed, ct__bw_diag_embed, CT__SAVE_NONE) \
    X(ONE_HOT, "aten::one_hot", "one_hot", "", 1, 1, CT__OPF_NONDIFF | CT__OPF_DATA_SHAPE, "int num_classes=i0", ct__meta_one_hot, ct__k_one_hot, ct__bw_none, CT__SAVE_NONE) \
    X(CONSTANT_PAD, "aten::constant_pad_nd", "constant_pad_nd", "ConstantPadNdBackward0", 1, 1, 0, "int[] pad=v, float value=s0", ct__meta_pad, ct__k_pad, ct__bw_constant_pad, CT__SAVE_NONE) \
    X(REFLECTION_PAD, "ct::reflection_pad", "reflection_pad", "ReflectionPadBackward0", 1, 1, 0, "int[] pad=v", ct__meta_pad, ct__k_pad, ct__bw_pad, CT__SAVE_NONE) \
    X(REPLICATION_PAD, "ct::replication_pad", "replication_pad", "ReplicationPadBackward0", 1, 1, 0, "int[] pad=v", ct__meta_pad, ct__k_pad, ct__bw_pad, CT__SAVE_NONE) \
    X(CIRCULAR_PAD, "ct::circular_pad", "circular_pad", "CircularPadBackward0", 1, 1, 0, "int[] pad=v", ct__meta_pad, ct__k_pad, ct__bw_pad, CT__SAVE_NONE) \
    X(PAD_BACKWARD, "ct::pad_backward", "pad_backward", "PadBackwardBackward0", 1, 1, 0, "int[] pad=v, enum(reflect|replicate|circular) mode=mode", ct__meta_pad_backward, ct__k_pad_backward, ct__bw_pad_backward, CT__SAVE_NONE)

/* matrix products */
#define CT__OPS_BLAS(X) \
    X(MM, "aten::mm", "mm", "MmBackward0", 2, 1, 0, "", ct__meta_mm, ct__k_mm, ct__bw_mm, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(BMM, "aten::bmm", "bmm", "BmmBackward0", 2, 1, 0, "", ct__meta_bmm, ct__k_bmm, ct__bw_bmm, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(ADDMM, "aten::addmm", "addmm", "AddmmBackward0", 3, 1, 0, "float beta=s0:1, float alpha=s1:1", ct__meta_addmm, ct__k_addmm, ct__bw_addmm, CT__SAVE_IN(1) | CT__SAVE_IN(2)) \
    X(BADDBMM, "aten::baddbmm", "baddbmm", "BaddbmmBackward0", 3, 1, 0, "float beta=s0:1, float alpha=s1:1", ct__meta_baddbmm, ct__k_baddbmm, ct__bw_baddbmm, CT__SAVE_IN(1) | CT__SAVE_IN(2)) \
    X(ADDMV, "aten::addmv", "addmv", "AddmvBackward0", 3, 1, 0, "float beta=s0:1, float alpha=s1:1", ct__meta_addmv, ct__k_addmv, ct__bw_addmv, CT__SAVE_IN(1) | CT__SAVE_IN(2)) \
    X(MV, "aten::mv", "mv", "MvBackward0", 2, 1, 0, "", ct__meta_mv, ct__k_mv, ct__bw_mv, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(DOT, "aten::dot", "dot", "DotBackward0", 2, 1, 0, "", ct__meta_dot, ct__k_dot, ct__bw_dot, CT__SAVE_IN(0) | CT__SAVE_IN(1)) \
    X(VDOT, "aten::vdot", "vdot", "VdotBackward0", 2, 1, 0, "", ct__meta_dot, ct__k_dot, ct__bw_dot, CT__SAVE_IN(0) | CT__SAVE_IN(1))

/* random fills (in place, not differentiable) */
#define CT__OPS_RANDOM(X) \
    X(UNIFORM_, "aten::uniform_", "uniform_", "", 1, 1, CT__OPF_INPLACE | CT__OPF_NONDIFF | CT__OPF_RANDOM, "float from=s0, float to=s1:1", ct__meta_inplace_self, ct__k_uniform, ct__bw_none, CT__SAVE_NONE) \
    X(NORMAL_, "aten::normal_", "normal_", "", 1, 1, CT__OPF_INPLACE | CT__OPF_NONDIFF | CT__OPF_RANDOM, "float mean=s0, float std=s1:1", ct__meta_inplace_self, ct__k_normal, ct__bw_none, CT__SAVE_NONE) \
    X(RANDOM_, "aten::random_.from", "random_", "", 1, 1, CT__OPF_INPLACE | CT__OPF_NONDIFF | CT__OPF_RANDOM, "int? from=i0?f0, int to=i1", ct__meta_random, ct__k_random, ct__bw_none, CT__SAVE_NONE) \
    X(BERNOULLI_, "aten::bernoulli_.float", "bernoulli_", "", 1, 1, CT__OPF_INPLACE | CT__OPF_NONDIFF | CT__OPF_RANDOM, "float p=s0:0.5", ct__meta_inplace_self, ct__k_bernoulli, ct__bw_none, CT__SAVE_NONE) \
    X(BERNOULLI_TENSOR_, "aten::bernoulli_.Tensor", "bernoulli_", "", 2, 1, CT__OPF_INPLACE | CT__OPF_NONDIFF | CT__OPF_RANDOM, "", ct__meta_inplace_self, ct__k_bernoulli_tensor, ct__bw_none, CT__SAVE_NONE) \
    X(EXPONENTIAL_, "aten::exponential_", "exponential_", "", 1, 1, CT__OPF_INPLACE | CT__OPF_NONDIFF | CT__OPF_RANDOM, "float lambd=s0:1", ct__meta_inplace_self, ct__k_exponential, ct__bw_none, CT__SAVE_NONE) \
    X(RANDPERM, "aten::randperm", "randperm", "", 0, 1, CT__OPF_NONDIFF | CT__OPF_RANDOM | CT__OPF_DEVICE_ATTR, "int n=i0, dtype dtype=dt, device device=dev", ct__meta_factory, ct__k_randperm, ct__bw_none, CT__SAVE_NONE) \
    X(MULTINOMIAL, "aten::multinomial", "multinomial", "", 1, 1, CT__OPF_NONDIFF | CT__OPF_RANDOM, "int num_samples=i1, bool replacement=f0", ct__meta_multinomial, ct__k_multinomial, ct__bw_none, CT__SAVE_NONE)

#define CT__OPS(X) \
    CT__OPS_CREATE(X) \
    CT__OPS_VIEW(X) \
    CT__OPS_UNARY(X) \
    CT__OPS_BINARY(X) \
    CT__OPS_TERNARY(X) \
    CT__OPS_REDUCE(X) \
    CT__OPS_INDEX(X) \
    CT__OPS_BLAS(X) \
    CT__OPS_RANDOM(X)

enum {
#define CT__X_ENUM(E, sname, name, bw, nin, nout, flags, attrs, meta, kernel, backward, save) CT__OP_##E,
    CT__OPS(CT__X_ENUM)
#undef CT__X_ENUM
    CT__NUM_OPS
};

/* Prototypes of every function the table names (repeats are harmless). Kept
   defined, as CT__X_DEF below: companion headers expand their row lists with them
   (CT__OP_BLOCK). */
#define CT__X_PROTO(E, sname, name, bw, nin, nout, flags, attrs, meta, kernel, backward, save) \
    static int meta(ct__call *c); \
    static int kernel(ct__call *c); \
    static int backward(ct__node *n, ct_tensor *const *gout, ct_tensor **gin);
CT__OPS(CT__X_PROTO)

typedef struct ct__opdef {
    const char *sname;             /* the stable schema name: "aten::add.Tensor", "ct::div_trunc" */
    const char *name;              /* the short name used in messages: "add" */
    const char *bw_name;
    int16_t nin, nout;
    uint32_t flags;
    const char *attrs;             /* the typed attribute schema (see ct__attr_parse) */
    ct__meta_fn meta;
    ct__kernel_fn kernel;
    ct__backward_fn backward;
    uint32_t save;
} ct__opdef;

static const ct__opdef ct__ops[CT__NUM_OPS] = {
#define CT__X_DEF(E, sname, name, bw, nin, nout, flags, attrs, meta, kernel, backward, save) \
    {sname, name, bw, nin, nout, flags, attrs, CT__SEL_OR(E, meta, ct__meta_unselected), \
     CT__SEL_OR(E, kernel, ct__k_unselected), CT__BW_OR(E, backward), save},
    CT__OPS(CT__X_DEF)
};

/* Ops registered at run time: companion headers (ctensor_nn.h, ctensor_linalg.h,
   ...) add their ops to the same table, by name. Their implementation is compiled
   in the translation unit of ctensor.h's (it uses these internals). They register
   when the program loads where the compiler offers a way (gcc/clang
   constructors, C++ static initialisation: CT__AT_LOAD), and in any case once,
   lazily, before their first op runs. Ids therefore depend on the build; names
   never do. */
#define CT__MAX_EXT_OPS 1024
static const ct__opdef *ct__ext_ops[CT__MAX_EXT_OPS];
static int ct__n_ext_ops;
static int ct__ext_lock;
/* The definition of any op id, built in or registered. */
CT__INLINE const ct__opdef *ct__opdef_get(int op) {
    return op < CT__NUM_OPS ? &ct__ops[op] : ct__ext_ops[op - CT__NUM_OPS];
}
#if defined(__cplusplus)
#  define CT__AT_LOAD(fn) static struct fn##_at_load_t { fn##_at_load_t() { fn(); } } fn##_at_load;
#elif defined(__GNUC__) || defined(__clang__)
#  define CT__AT_LOAD(fn) __attribute__((constructor)) static void fn##_at_load(void) { fn(); }
#else
#  define CT__AT_LOAD(fn)
#endif
CTENSOR_API int ct_num_ops(void) { return CT__NUM_OPS + CT__LOAD_ACQUIRE(&ct__n_ext_ops); }
CT__INLINE int ct__op_valid(int op) { return op >= 0 && op < ct_num_ops(); }

/* the stubs of ops a selective build left out (CTENSOR_SELECTED_OPS), and of
   backward rules with CTENSOR_NO_AUTOGRAD */
#ifdef CTENSOR_SELECTED_OPS
static const char *const ct__op_enames[CT__NUM_OPS] = {
#define CT__X_ENAME(E, ...) #E,
    CT__OPS(CT__X_ENAME)
#undef CT__X_ENAME
};
#endif
static CT__NOINLINE int ct__op_unselected(int op) {
    const ct__opdef *d = ct__opdef_get(op);
#ifdef CTENSOR_SELECTED_OPS
    if (op < CT__NUM_OPS)
        return ct__failed(CT_ERR_UNSUPPORTED, "%s: op %s was not selected in this build (CTENSOR_SELECTED_OPS): define CTENSOR_OP_%s 1",
                          d->name, d->sname, ct__op_enames[op]);
#endif
    return ct__failed(CT_ERR_UNSUPPORTED, "%s: op %s was not selected in this build (CTENSOR_SELECTED_OPS)", d->name, d->sname);
}

/* ---- typed attribute schemas ----------------------------------------------
   A row's attribute schema lists `TYPE NAME=SLOT` entries, comma-separated.
     TYPE  int | float | bool | dtype | device | int[] | int[N] | float[N] |
           enum(a|b|c), followed by `?` for an optional (None-able) attribute
     SLOT  i0..i3 (int64), s0..s7 (double), f0..f31 (a bit of flags), mode,
           dt (dtype), dev (device), v (the variable list v[0..nv)), v#K (K = 1
           or 2: a further variable list of the same length, v[K*nv..(K+1)*nv):
           as_strided's stride beside its size), vK (the fixed list
           v[K..K+N), or one int at v[K])
   An optional's presence is a flags bit written after its slot (`?f5`); a
   float optional without one is None when NaN. A default other than zero (or
   None) follows a colon: `float alpha=s0:1`. Example:
     "int[] dim=v, bool keepdim=f0, dtype? dtype=dt?f1"
   The schema is the whole truth about an op's attributes: equality, hashing,
   printing and parsing read only declared slots, and a replay test re-runs
   recorded calls from them alone. */
typedef struct ct__attrdesc {
    char name[32];
    ct_attr_type type;
    int optional;
    int count;                 /* 1, N, or -1 (variable list) */
    char slot;                 /* 'i' 's' 'f' 'm' (mode) 'd' (dtype) 'D' (device) 'v' */
    int idx;                   /* slot index (bit for 'f') */
    int flag;                  /* presence bit of an optional, -1 when none */
    int seg;                   /* variable lists: 0 for v, K for v#K */
    const char *vals;          /* enum names inside the schema string */
    int vals_len;
    const char *def;           /* the default's text (`:1`), NULL when the default is zero / None */
    int def_len;
} ct__attrdesc;

static int ct__attr_bad(const char *schema, const char *why) {
    ct_set_error(CT_ERR_STATE, "attribute schema \"%.200s\": %s", schema, why);
    return -1;
}
static int ct__attr_uint(const char **pp) {
    const char *p = *pp;
    int v = 0, n = 0;
    while (*p >= '0' && *p <= '9' && n < 4) { v = v * 10 + (*p++ - '0'); n++; }
    if (!n) return -1;
    *pp = p;
    return v;
}
/* Parses the next entry of `schema` at *pp into d: 1, 0 at the end, -1 (error set) when malformed. */
static int ct__attr_next(const char *schema, const char **pp, ct__attrdesc *d) {
    const char *p = *pp;
    while (*p == ' ' || *p == ',') p++;
    if (!*p) { *pp = p; return 0; }
    memset(d, 0, sizeof *d);
    d->count = 1;
    d->flag = -1;
    if (!strncmp(p, "int", 3) && p[3] != '[') { d->type = CT_ATTR_INT; p += 3; }
    else if (!strncmp(p, "int[", 4) || !strncmp(p, "float[", 6)) {
        d->type = p[0] == 'i' ? CT_ATTR_INT_LIST : CT_ATTR_FLOAT_LIST;
        p += d->type == CT_ATTR_INT_LIST ? 4 : 6;
        if (*p == ']') { if (d->type != CT_ATTR_INT_LIST) return ct__attr_bad(schema, "float lists need a length"); d->count = -1; }
        else if ((d->count = ct__attr_uint(&p)) < 1) return ct__attr_bad(schema, "bad list length");
        if (*p++ != ']') return ct__attr_bad(schema, "expected ']'");
    } else if (!strncmp(p, "float", 5)) { d->type = CT_ATTR_FLOAT; p += 5; }
    else if (!strncmp(p, "bool", 4)) { d->type = CT_ATTR_BOOL; p += 4; }
    else if (!strncmp(p, "dtype", 5)) { d->type = CT_ATTR_DTYPE; p += 5; }
    else if (!strncmp(p, "device", 6)) { d->type = CT_ATTR_DEVICE; p += 6; }
    else if (!strncmp(p, "enum(", 5)) {
        d->type = CT_ATTR_ENUM;
        p += 5;
        d->vals = p;
        while (*p && *p != ')') p++;
        if (*p != ')' || p == d->vals) return ct__attr_bad(schema, "expected enum(name|name...)");
        d->vals_len = (int)(p - d->vals);
        p++;
    } else return ct__attr_bad(schema, "unknown type");
    if (*p == '?') { d->optional = 1; p++; }
    if (*p++ != ' ') return ct__attr_bad(schema, "expected a space after the type");
    int n = 0;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_') {
        if (n >= (int)sizeof d->name - 1) return ct__attr_bad(schema, "name too long");
        d->name[n++] = *p++;
    }
    if (!n || *p++ != '=') return ct__attr_bad(schema, "expected name=slot");
    if (*p == 'i' || *p == 's' || *p == 'f' || (*p == 'v' && p[1] >= '0' && p[1] <= '9')) {
        d->slot = *p++;
        if ((d->idx = ct__attr_uint(&p)) < 0) return ct__attr_bad(schema, "bad slot index");
    } else if (!strncmp(p, "mode", 4)) { d->slot = 'm'; p += 4; }
    else if (!strncmp(p, "dev", 3)) { d->slot = 'D'; p += 3; }
    else if (!strncmp(p, "dt", 2)) { d->slot = 'd'; p += 2; }
    else if (*p == 'v') {
        d->slot = 'v';
        d->idx = -1;
        if (*++p == '#' && ((d->seg = (p++, ct__attr_uint(&p))) < 1 || d->seg > 2))
            return ct__attr_bad(schema, "a further variable list is v#1 or v#2");
    } else return ct__attr_bad(schema, "unknown slot");
    if (*p == '?') {
        if (p[1] != 'f') return ct__attr_bad(schema, "a presence flag is written ?fK");
        p += 2;
        if ((d->flag = ct__attr_uint(&p)) < 0 || d->flag > 31) return ct__attr_bad(schema, "bad presence flag");
        if (!d->optional) return ct__attr_bad(schema, "a presence flag on a non-optional attribute");
    }
    if (*p == ':') {   /* PyTorch's default when it is not zero: `float alpha=s0:1` */
        d->def = ++p;
        while (*p && *p != ',') p++;
        d->def_len = (int)(p - d->def);
        if (!d->def_len) return ct__attr_bad(schema, "an empty default");
    }
    if (*p && *p != ',') return ct__attr_bad(schema, "expected ',' between attributes");
    /* type / slot agreement */
    int ok;
    switch (d->type) {
    case CT_ATTR_INT: ok = d->slot == 'i' ? d->idx < 4 : d->slot == 'm' || (d->slot == 'v' && d->idx >= 0 && d->idx < 3 * CT_MAX_DIMS); break;
    case CT_ATTR_ENUM: ok = d->slot == 'm' || (d->slot == 'i' && d->idx < 4); break;
    case CT_ATTR_FLOAT: ok = d->slot == 's' && d->idx < 8; break;
    case CT_ATTR_BOOL: ok = d->slot == 'f' && d->idx < 32; break;
    case CT_ATTR_DTYPE: ok = d->slot == 'd'; break;
    case CT_ATTR_DEVICE: ok = d->slot == 'D'; break;
    case CT_ATTR_INT_LIST:
        ok = d->slot == 'v' && (d->count < 0 ? d->idx < 0 : d->idx >= 0 && d->idx + d->count <= 3 * CT_MAX_DIMS);
        break;
    default: ok = d->slot == 's' && d->idx + d->count <= 8; break;
    }
    if (!ok) return ct__attr_bad(schema, "the slot does not hold that type");
    if (d->optional && d->flag < 0 && d->type != CT_ATTR_FLOAT) return ct__attr_bad(schema, "an optional needs a presence flag (?fK) unless it is a float");
    *pp = p;
    return 1;
}
/* Number of attributes of a schema string, -1 (error set) when malformed. */
static int ct__attr_count(const char *schema) {
    const char *p = schema;
    ct__attrdesc d;
    int n = 0, r;
    while ((r = ct__attr_next(schema, &p, &d)) > 0) n++;
    return r < 0 ? -1 : n;
}
/* The descriptor of attribute `name` (or of index k when name is NULL): 0, or -1. */
static int ct__attr_find(const char *schema, const char *name, int k, ct__attrdesc *d) {
    const char *p = schema;
    int i = 0, r;
    while ((r = ct__attr_next(schema, &p, d)) > 0) {
        if (name ? !strcmp(d->name, name) : i == k) return 0;
        i++;
    }
    return -1;
}

/* Registers the n ops of `defs` (a static table: it must outlive the program)
   under consecutive ids and returns the first, or -1 with the error set: the
   table is full, an attribute schema is malformed, or a stable name is taken. */
static CT__UNUSED int ct__register_ops(const ct__opdef *defs, int n) {
    int id = -1;
    for (int k = 0; k < n; k++)
        if (ct__attr_count(defs[k].attrs) < 0) return -1;
    ct__spin_lock(&ct__ext_lock);
    int total = CT__NUM_OPS + ct__n_ext_ops, clash = -1;
    for (int k = 0; k < n && clash < 0; k++) {
        for (int op = 0; op < total && clash < 0; op++)
            if (!strcmp(ct__opdef_get(op)->sname, defs[k].sname)) clash = k;
        for (int q = 0; q < k && clash < 0; q++)
            if (!strcmp(defs[q].sname, defs[k].sname)) clash = k;
    }
    if (clash < 0 && ct__n_ext_ops + n <= CT__MAX_EXT_OPS) {
        for (int k = 0; k < n; k++) ct__ext_ops[ct__n_ext_ops + k] = &defs[k];
        id = total;
        CT__STORE_RELEASE(&ct__n_ext_ops, ct__n_ext_ops + n);
    }
    ct__spin_unlock(&ct__ext_lock);
    if (clash >= 0) ct_set_error(CT_ERR_STATE, "register_op: an op named '%s' is already registered", defs[clash].sname);
    else if (id < 0) ct_set_error(CT_ERR_STATE, "register_op: the op table is full (%d extension ops)", CT__MAX_EXT_OPS);
    return id;
}

CT__INLINE void ct__attrs_init(ct__attrs *a) { memset(a, 0, sizeof *a); }
CTENSOR_API void ct_attrs_init(ct_attrs *a) { if (a) ct__attrs_init(a); }

/* Runs init() exactly once across threads (companion headers register with it).
   Acquire/release: a thread that sees "done" also sees what init() wrote. */
static CT__UNUSED void ct__once(int *state, void (*init)(void)) {
    if (CT__LOAD_ACQUIRE(state) == 2) return;
    int expected = 0;
    if (CT__CAS(state, &expected, 1)) {
        init();
        CT__STORE_RELEASE(state, 2);
        return;
    }
    while (CT__LOAD_ACQUIRE(state) != 2) { /* another thread is registering */ }
}

/* A companion header's block of ops. With its row list CT__P_OPS (rows as in
   CT__OPS) and an enum of local ids CT__P_<E> made from it, the header writes
     CT__P_OPS(CT__X_PROTO)
     static const ct__opdef ct__p_defs[CT__P_NUM_OPS] = { CT__P_OPS(CT__X_DEF) };
     CT__OP_BLOCK(p, ct__p_defs, CT__P_NUM_OPS, then)
   which defines ct__p_base (the id of its first op; -1 until registered or when
   registration failed) and ct__p_register_now() (registers the block once, at
   program load where the compiler allows and in any case before first use:
   call it first in every public function; its op ids are ct__p_base + local).
   `then`: statements run once the block is registered (kernels for other
   backends: ct_register_kernel, ct_register_backend_op), or nothing. */
#define CT__OP_BLOCK(p, defs, n, then) \
    static int ct__##p##_base = -1; \
    static int ct__##p##_once_state; \
    static void ct__##p##_register_all(void) { \
        ct__##p##_base = ct__register_ops(defs, n); \
        if (ct__##p##_base >= 0) { then } \
    } \
    static void ct__##p##_register_now(void) { ct__once(&ct__##p##_once_state, ct__##p##_register_all); } \
    CT__AT_LOAD(ct__##p##_register_now)

/* Shared read-only attributes for ops called without arguments (and add/sub with alpha 1). */
static const ct__attrs ct__attrs_alpha1 = {{1.0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0}, {0}, 0, 0, 0, CT_FLOAT32, {CT_CPU, 0}};
static const ct__attrs ct__attrs_none = {{0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0}, {0}, 0, 0, 0, CT_FLOAT32, {CT_CPU, 0}};

/* ---- kernels per backend ---- */
static ct__kernel_fn ct__kernels[CT_NUM_BACKENDS][CT__NUM_OPS + CT__MAX_EXT_OPS];
static int ct__cpu_kernels_set;   /* a CPU kernel was registered: the dispatcher reads ct__kernels[CPU] */
static ct__meta_fn ct__metas[CT_NUM_BACKENDS][CT__NUM_OPS + CT__MAX_EXT_OPS];   /* NULL: the row's meta */
CTENSOR_API const char *ct_backend_name(ct_backend b) {
    static const char *const names[CT_NUM_BACKENDS] = {"CPU", "CUDA", "QuantizedCPU", "QuantizedCUDA",
                                                        "Backend4", "Backend5", "Backend6", "Backend7"};
    return (int)b >= 0 && b < CT_NUM_BACKENDS ? names[b] : "?";
}

/* ---- op information ---- */
CTENSOR_API int ct_op_find(const char *name) {
    if (!name) return -1;
    int n = ct_num_ops();
    for (int op = 0; op < n; op++)
        if (!strcmp(ct__opdef_get(op)->sname, name)) return op;
    for (int op = 0; op < n; op++)
        if (!strcmp(ct__opdef_get(op)->name, name)) return op;
    return -1;
}
CTENSOR_API const char *ct_op_schema_name(int op) { return ct__op_valid(op) ? ct__opdef_get(op)->sname : "?"; }
CTENSOR_API const char *ct_op_name(int op) { return ct__op_valid(op) ? ct__opdef_get(op)->name : "?"; }
CTENSOR_API const char *ct_op_backward_name(int op) { return ct__op_valid(op) ? ct__opdef_get(op)->bw_name : "?"; }
CTENSOR_API int ct_op_num_inputs(int op) { return ct__op_valid(op) ? ct__opdef_get(op)->nin : -1; }
CTENSOR_API int ct_op_num_outputs(int op) { return ct__op_valid(op) ? ct__opdef_get(op)->nout : -1; }
CTENSOR_API unsigned ct_op_flags(int op) { return ct__op_valid(op) ? ct__opdef_get(op)->flags : 0u; }
static int ct__bad_op(const char *fn, int op) {
    ct_set_error(CT_ERR_ARG, "%s: no op with id %d (there are %d)", fn, op, ct_num_ops());
    return -1;
}
CTENSOR_API int ct_op_num_attrs(int op) {
    if (!ct__op_valid(op)) return ct__bad_op("op_num_attrs", op);
    return ct__attr_count(ct__opdef_get(op)->attrs);
}
static void ct__attr_info_of(const ct__attrdesc *d, ct_attr_info *info) {
    memset(info, 0, sizeof *info);
    memcpy(info->name, d->name, sizeof info->name);
    info->type = d->type;
    info->optional = d->optional;
    info->count = d->count;
    if (d->vals) {
        int n = d->vals_len < (int)sizeof info->values - 1 ? d->vals_len : (int)sizeof info->values - 1;
        memcpy(info->values, d->vals, (size_t)n);
    }
}
CTENSOR_API ct_status ct_op_attr(int op, int k, ct_attr_info *info) {
    ct__attrdesc d;
    if (!ct__op_valid(op)) { ct__bad_op("op_attr", op); return CT_ERR_ARG; }
    if (!info || ct__attr_find(ct__opdef_get(op)->attrs, NULL, k, &d)) {
        ct_set_error(CT_ERR_ARG, "op_attr: %s has no attribute %d", ct__opdef_get(op)->sname, k);
        return CT_ERR_ARG;
    }
    ct__attr_info_of(&d, info);
    return CT_OK;
}

/* ---- attribute values: read and write one declared attribute ---- */
static int ct__attr_present(const ct__attrdesc *d, const ct__attrs *a) {
    if (!d->optional) return 1;
    if (d->flag >= 0) return (a->flags >> d->flag) & 1;
    return !(a->s[d->idx] != a->s[d->idx]);   /* a float optional: NaN is None */
}
/* one NaN per sign: payload bits carry no meaning in an attribute */
static double ct__canon_nan(double x) { return x != x ? (signbit(x) ? -NAN : NAN) : x; }
static void ct__attr_read(const ct__attrdesc *d, const ct__attrs *a, ct_attr_value *v) {
    memset(v, 0, sizeof *v);
    v->type = d->type;
    v->count = d->count;
    if (!ct__attr_present(d, a)) { v->is_none = 1; if (d->type == CT_ATTR_FLOAT) v->f = NAN; return; }
    switch (d->type) {
    case CT_ATTR_INT: case CT_ATTR_ENUM:
        v->i = d->slot == 'i' ? a->i[d->idx] : d->slot == 'm' ? a->mode : a->v[d->idx];
        break;
    case CT_ATTR_FLOAT: v->f = ct__canon_nan(a->s[d->idx]); break;
    case CT_ATTR_BOOL: v->i = (a->flags >> d->idx) & 1; break;
    case CT_ATTR_DTYPE: v->dtype = a->dtype; break;
    case CT_ATTR_DEVICE: v->device = a->device; break;
    case CT_ATTR_INT_LIST: {
        int n = d->count < 0 ? a->nv : d->count, o = d->idx < 0 ? d->seg * (n > 0 ? n : 0) : d->idx;
        if (n < 0) n = 0;
        if (n > 3 * CT_MAX_DIMS - o) n = 3 * CT_MAX_DIMS - o;
        v->count = n;
        for (int k = 0; k < n; k++) v->ints[k] = a->v[o + k];
        break;
    }
    default:
        for (int k = 0; k < d->count; k++) v->floats[k] = ct__canon_nan(a->s[d->idx + k]);
        break;
    }
}
/* the number of names of an enum attribute */
static int ct__attr_nnames(const ct__attrdesc *d) {
    int n = 1;
    for (int k = 0; k < d->vals_len; k++) n += d->vals[k] == '|';
    return n;
}
/* An enum attribute's value must index its names; else an error naming the op,
   the attribute, the names and the value. */
static int ct__enum_check(const char *fn, int op, const ct__attrdesc *d, int64_t v) {
    int n = ct__attr_nnames(d);
    if (v >= 0 && v < n) return 0;
    return ct__failed(CT_ERR_ARG, "%s: %s's attribute '%s' is one of (%.*s): an index in [0, %d), got %lld", fn, ct__opdef_get(op)->sname,
                      d->name, d->vals_len, d->vals, n, (long long)v);
}
/* Checks that the enum, dtype, device and list-length slots of `a` hold values
   the op's schema allows (what ct_dispatch gets from a caller may be anything);
   on a bad one sets an error naming the op, the attribute and the value. */
static int ct__attrs_check(const char *fn, int op, const ct__attrs *a) {
    const ct__opdef *od = ct__opdef_get(op);
    const char *p = od->attrs;
    ct__attrdesc d;
    if (a->nv < 0 || a->nv > 3 * CT_MAX_DIMS)
        return ct__failed(CT_ERR_ARG, "%s: %s: a list length of %d (at most %d)", fn, od->sname, (int)a->nv, 3 * CT_MAX_DIMS);
    while (p && ct__attr_next(od->attrs, &p, &d) > 0) {
        if (d.optional && d.flag >= 0 && !(a->flags & (1 << d.flag))) continue;   /* None */
        if (d.type == CT_ATTR_ENUM) {
            if (ct__enum_check(fn, op, &d, d.slot == 'm' ? a->mode : a->i[d.idx])) return -1;
        } else if (d.type == CT_ATTR_DTYPE) {
            if ((int)a->dtype < 0 || (int)a->dtype >= CT_NUM_DTYPES)
                return ct__failed(CT_ERR_DTYPE, "%s: %s's attribute '%s': %d is not a dtype", fn, od->sname, d.name, (int)a->dtype);
        } else if (d.type == CT_ATTR_DEVICE) {
            if ((int)a->device.type < 0 || (int)a->device.type >= CT_NUM_DEVICE_TYPES || a->device.index < -1)
                return ct__failed(CT_ERR_DEVICE, "%s: %s's attribute '%s': device type %d, index %d is not a device", fn, od->sname, d.name,
                                  (int)a->device.type, (int)a->device.index);
        }
    }
    return 0;
}
static int ct__attr_write(const ct__attrdesc *d, ct__attrs *a, const ct_attr_value *v) {
    if (d->optional && d->flag >= 0) {
        if (v->is_none) a->flags &= ~(int32_t)(1u << d->flag);
        else a->flags |= (int32_t)(1u << d->flag);
    }
    if (v->is_none) {
        if (!d->optional) return -1;
        if (d->type == CT_ATTR_FLOAT && d->flag < 0) { a->s[d->idx] = NAN; return 0; }
        ct_attr_value z;
        memset(&z, 0, sizeof z);
        z.type = d->type;
        z.count = d->count < 0 ? 0 : d->count;
        return ct__attr_write(d, a, &z) ? -1 : (a->flags &= d->flag >= 0 ? ~(int32_t)(1u << d->flag) : ~0, 0);
    }
    switch (d->type) {
    case CT_ATTR_INT: case CT_ATTR_ENUM:
        if (d->slot == 'i') a->i[d->idx] = v->i;
        else if (d->slot == 'm') a->mode = (int32_t)v->i;
        else a->v[d->idx] = v->i;
        break;
    case CT_ATTR_FLOAT: a->s[d->idx] = v->f; break;
    case CT_ATTR_BOOL:
        if (v->i) a->flags |= (int32_t)(1u << d->idx);
        else a->flags &= ~(int32_t)(1u << d->idx);
        break;
    case CT_ATTR_DTYPE: a->dtype = v->dtype; break;
    case CT_ATTR_DEVICE: a->device = v->device; break;
    case CT_ATTR_INT_LIST:
        if (d->count < 0) {
            /* v sets the length; v#K lists are written after it, with that length */
            if (v->count < 0 || (d->seg + 1) * v->count > 3 * CT_MAX_DIMS || (d->seg && v->count != a->nv)) return -1;
            a->nv = v->count;
            for (int k = 0; k < v->count; k++) a->v[d->seg * v->count + k] = v->ints[k];
        } else {
            if (v->count != d->count) return -1;
            for (int k = 0; k < d->count; k++) a->v[d->idx + k] = v->ints[k];
        }
        break;
    default:
        if (v->count != d->count) return -1;
        for (int k = 0; k < d->count; k++) a->s[d->idx + k] = v->floats[k];
        break;
    }
    return 0;
}
CTENSOR_API ct_status ct_attrs_get(int op, const ct_attrs *a, const char *name, ct_attr_value *out) {
    ct__attrdesc d;
    if (!ct__op_valid(op)) { ct__bad_op("attrs_get", op); return CT_ERR_ARG; }
    if (!a || !name || !out || ct__attr_find(ct__opdef_get(op)->attrs, name, 0, &d)) {
        ct_set_error(CT_ERR_ARG, "attrs_get: %s has no attribute '%s'", ct__opdef_get(op)->sname, name ? name : "(null)");
        return CT_ERR_ARG;
    }
    ct__attr_read(&d, a, out);
    return CT_OK;
}
CTENSOR_API ct_status ct_attrs_set(int op, ct_attrs *a, const char *name, const ct_attr_value *value) {
    ct__attrdesc d;
    if (!ct__op_valid(op)) { ct__bad_op("attrs_set", op); return CT_ERR_ARG; }
    if (!a || !name || !value || ct__attr_find(ct__opdef_get(op)->attrs, name, 0, &d)) {
        ct_set_error(CT_ERR_ARG, "attrs_set: %s has no attribute '%s'", ct__opdef_get(op)->sname, name ? name : "(null)");
        return CT_ERR_ARG;
    }
    if (d.type == CT_ATTR_ENUM && !value->is_none && ct__enum_check("attrs_set", op, &d, value->i)) return CT_ERR_ARG;
    if (value->type != d.type || ct__attr_write(&d, a, value)) {
        ct_set_error(CT_ERR_ARG, "attrs_set: value of the wrong type, length or None-ness for %s's attribute '%s'",
                     ct__opdef_get(op)->sname, name);
        return CT_ERR_ARG;
    }
    return CT_OK;
}

/* ---- equality and hashing over the declared attributes (canonical values) ---- */
static uint64_t ct__fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = (const unsigned char *)p;
    for (size_t k = 0; k < n; k++) { h ^= b[k]; h *= 1099511628211ull; }
    return h;
}
static uint64_t ct__attr_value_hash(uint64_t h, const ct_attr_value *v) {
    h = ct__fnv(h, &v->is_none, sizeof v->is_none);
    if (v->is_none) return h;
    switch (v->type) {
    case CT_ATTR_FLOAT: return ct__fnv(h, &v->f, sizeof v->f);
    case CT_ATTR_DTYPE: { int32_t x = (int32_t)v->dtype; return ct__fnv(h, &x, sizeof x); }
    case CT_ATTR_DEVICE: { int32_t x[2]; x[0] = (int32_t)v->device.type; x[1] = v->device.index; return ct__fnv(h, x, sizeof x); }
    case CT_ATTR_INT_LIST: h = ct__fnv(h, &v->count, sizeof v->count); return ct__fnv(h, v->ints, sizeof(int64_t) * (size_t)v->count);
    case CT_ATTR_FLOAT_LIST: return ct__fnv(h, v->floats, sizeof(double) * (size_t)v->count);
    default: return ct__fnv(h, &v->i, sizeof v->i);
    }
}
CTENSOR_API uint64_t ct_attrs_hash(int op, const ct_attrs *a) {
    uint64_t h = 14695981039346656037ull;
    if (!ct__op_valid(op) || !a) return h;
    const char *schema = ct__opdef_get(op)->attrs, *p = schema;
    ct__attrdesc d;
    ct_attr_value v;
    h = ct__fnv(h, &op, sizeof op);
    while (ct__attr_next(schema, &p, &d) > 0) {
        ct__attr_read(&d, a, &v);
        h = ct__attr_value_hash(h, &v);
    }
    return h;
}
CTENSOR_API int ct_attrs_equal(int op, const ct_attrs *a, const ct_attrs *b) {
    if (!ct__op_valid(op) || !a || !b) return 0;
    const char *schema = ct__opdef_get(op)->attrs, *p = schema;
    ct__attrdesc d;
    ct_attr_value x, y;
    while (ct__attr_next(schema, &p, &d) > 0) {
        ct__attr_read(&d, a, &x);
        ct__attr_read(&d, b, &y);
        if (ct__attr_value_hash(0, &x) != ct__attr_value_hash(0, &y)) return 0;   /* FNV of equal bytes */
        if (x.is_none != y.is_none || x.i != y.i || memcmp(&x.f, &y.f, sizeof x.f) || x.dtype != y.dtype ||
            !ct_device_eq(x.device, y.device) || x.count != y.count ||
            memcmp(x.ints, y.ints, sizeof x.ints) || memcmp(x.floats, y.floats, sizeof x.floats))
            return 0;
    }
    return 1;
}

/* ---- text form: name=value pairs that print and parse back exactly ---- */
typedef struct ct__sb { char *buf; size_t cap, len; } ct__sb;
static void ct__sb_put(ct__sb *b, const char *fmt, ...) {
    va_list ap;
    char *dst = b->len < b->cap ? b->buf + b->len : NULL;
    size_t room = b->len < b->cap ? b->cap - b->len : 0;
    va_start(ap, fmt);
    int n = vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0) b->len += (size_t)n;
}
/* the shortest "%.*g" that reads back to the same double */
static void ct__sb_double(ct__sb *b, double x) {
    if (x != x) { ct__sb_put(b, signbit(x) ? "-nan" : "nan"); return; }
    if (x == HUGE_VAL || x == -HUGE_VAL) { ct__sb_put(b, x > 0 ? "inf" : "-inf"); return; }
    char t[40];
    int plain = fabs(x) >= 1e-4 && fabs(x) < 1e16;   /* print 20. rather than 2e+01 */
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(t, sizeof t, "%.*g", prec, x);
        if (strtod(t, NULL) == x && (!plain || !strchr(t, 'e') || prec == 17)) break;
    }
    if (!strchr(t, '.') && !strchr(t, 'e') && !strchr(t, 'n')) strcat(t, ".");
    ct__sb_put(b, "%s", t);
}
static void ct__sb_value(ct__sb *b, const ct__attrdesc *d, const ct_attr_value *v) {
    char dn[24];
    if (v->is_none) { ct__sb_put(b, "None"); return; }
    switch (v->type) {
    case CT_ATTR_INT: ct__sb_put(b, "%lld", (long long)v->i); break;
    case CT_ATTR_FLOAT: ct__sb_double(b, v->f); break;
    case CT_ATTR_BOOL: ct__sb_put(b, v->i ? "True" : "False"); break;
    case CT_ATTR_DTYPE: ct__sb_put(b, "%s", ct_dtype_name(v->dtype)); break;
    case CT_ATTR_DEVICE: ct__sb_put(b, "%s", ct_device_str(v->device, dn, sizeof dn)); break;
    case CT_ATTR_ENUM: {
        const char *p = d->vals, *end = d->vals + d->vals_len;
        int64_t k = 0;
        while (p < end && k < v->i) { if (*p++ == '|') k++; }
        if (v->i < 0 || p >= end) { ct__sb_put(b, "%lld", (long long)v->i); break; }
        const char *q = p;
        while (q < end && *q != '|') q++;
        ct__sb_put(b, "'%.*s'", (int)(q - p), p);
        break;
    }
    case CT_ATTR_INT_LIST:
        ct__sb_put(b, "[");
        for (int k = 0; k < v->count; k++) ct__sb_put(b, k ? ", %lld" : "%lld", (long long)v->ints[k]);
        ct__sb_put(b, "]");
        break;
    default:
        ct__sb_put(b, "[");
        for (int k = 0; k < v->count; k++) { if (k) ct__sb_put(b, ", "); ct__sb_double(b, v->floats[k]); }
        ct__sb_put(b, "]");
        break;
    }
}
CTENSOR_API size_t ct_attrs_repr(int op, const ct_attrs *a, char *buf, size_t cap) {
    ct__sb b;
    b.buf = buf; b.cap = buf ? cap : 0; b.len = 0;
    if (b.cap) buf[0] = 0;
    if (!ct__op_valid(op) || !a) return 0;
    const char *schema = ct__opdef_get(op)->attrs, *p = schema;
    ct__attrdesc d;
    ct_attr_value v;
    int k = 0;
    while (ct__attr_next(schema, &p, &d) > 0) {
        ct__attr_read(&d, a, &v);
        ct__sb_put(&b, k++ ? ", %s=" : "%s=", d.name);
        ct__sb_value(&b, &d, &v);
    }
    if (b.cap && b.len >= b.cap) buf[b.cap - 1] = 0;
    return b.len;
}
CTENSOR_API size_t ct_op_schema(int op, char *buf, size_t cap) {
    static const char *const tn[] = {"int", "float", "bool", "dtype", "device", "int[]", "float[]", "str"};
    ct__sb b;
    b.buf = buf; b.cap = buf ? cap : 0; b.len = 0;
    if (b.cap) buf[0] = 0;
    if (!ct__op_valid(op)) return 0;
    const ct__opdef *od = ct__opdef_get(op);
    const char *p = od->attrs;
    ct__attrdesc d;
    ct__sb_put(&b, "%s(", od->sname);
    int k = 0;
    if (od->nin < 0) ct__sb_put(&b, "Tensor[]"), k++;
    for (int i = 0; i < od->nin; i++) ct__sb_put(&b, k++ ? ", Tensor" : "Tensor");
    int star = 0;
    while (ct__attr_next(od->attrs, &p, &d) > 0) {
        if (!star) { ct__sb_put(&b, k++ ? ", *" : "*"); star = 1; }
        if (d.type == CT_ATTR_INT_LIST && d.count > 0) ct__sb_put(&b, ", int[%d]", d.count);
        else if (d.type == CT_ATTR_FLOAT_LIST) ct__sb_put(&b, ", float[%d]", d.count);
        else ct__sb_put(&b, ", %s", tn[d.type]);
        ct__sb_put(&b, "%s %s", d.optional ? "?" : "", d.name);
    }
    ct__sb_put(&b, ") -> ");
    if (od->nout != 1) ct__sb_put(&b, "(");
    for (int j = 0; j < od->nout; j++) ct__sb_put(&b, j ? ", Tensor" : "Tensor");
    if (od->nout != 1) ct__sb_put(&b, ")");
    if (b.cap && b.len >= b.cap) buf[b.cap - 1] = 0;
    return b.len;
}

static const char *ct__skip_ws(const char *p) { while (*p == ' ' || *p == '\t' || *p == '\n') p++; return p; }
static int ct__parse_double(const char **pp, double *out) {
    const char *p = ct__skip_ws(*pp);
    if (!strncmp(p, "nan", 3)) { *out = NAN; *pp = p + 3; return 0; }
    if (!strncmp(p, "-nan", 4)) { *out = -NAN; *pp = p + 4; return 0; }
    if (!strncmp(p, "inf", 3)) { *out = HUGE_VAL; *pp = p + 3; return 0; }
    if (!strncmp(p, "-inf", 4)) { *out = -HUGE_VAL; *pp = p + 4; return 0; }
    char *end;
    *out = strtod(p, &end);
    if (end == p) return -1;
    *pp = end;
    return 0;
}
static int ct__parse_int(const char **pp, int64_t *out) {
    const char *p = ct__skip_ws(*pp);
    char *end;
    long long v = strtoll(p, &end, 10);
    if (end == p) return -1;
    *out = (int64_t)v;
    *pp = end;
    return 0;
}
/* one value of type d at *pp into v: 0, or -1 when it does not parse */
static int ct__parse_value(const ct__attrdesc *d, const char **pp, ct_attr_value *v) {
    const char *p = ct__skip_ws(*pp);
    memset(v, 0, sizeof *v);
    v->type = d->type;
    v->count = d->count < 0 ? 0 : d->count;
    if (!strncmp(p, "None", 4)) { v->is_none = 1; *pp = p + 4; return d->optional ? 0 : -1; }
    switch (d->type) {
    case CT_ATTR_INT: if (ct__parse_int(&p, &v->i)) return -1; break;
    case CT_ATTR_FLOAT: if (ct__parse_double(&p, &v->f)) return -1; break;
    case CT_ATTR_BOOL:
        if (!strncmp(p, "True", 4)) { v->i = 1; p += 4; }
        else if (!strncmp(p, "False", 5)) { v->i = 0; p += 5; }
        else return -1;
        break;
    case CT_ATTR_DTYPE: {
        int k;
        for (k = 0; k < CT_NUM_DTYPES; k++) {
            const char *nm = ct_dtype_name((ct_dtype)k);
            size_t n = strlen(nm);
            if (!strncmp(p, nm, n) && !((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= '0' && p[n] <= '9'))) { p += n; break; }
        }
        if (k == CT_NUM_DTYPES) return -1;
        v->dtype = (ct_dtype)k;
        break;
    }
    case CT_ATTR_DEVICE: {
        char t[24];
        int n = 0;
        while (n < 23 && ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == ':')) t[n++] = *p++;
        t[n] = 0;
        if (ct_device_parse(t, &v->device)) { ct_clear_error(); return -1; }
        break;
    }
    case CT_ATTR_ENUM: {
        if (*p != '\'') { if (ct__parse_int(&p, &v->i)) return -1; break; }
        const char *q = ++p;
        while (*q && *q != '\'') q++;
        if (*q != '\'') return -1;
        size_t n = (size_t)(q - p);
        const char *s = d->vals, *end = d->vals + d->vals_len;
        int64_t k = 0;
        for (;;) {
            const char *e = s;
            while (e < end && *e != '|') e++;
            if ((size_t)(e - s) == n && !strncmp(s, p, n)) break;
            if (e >= end) return -1;
            s = e + 1;
            k++;
        }
        v->i = k;
        p = q + 1;
        break;
    }
    default: {
        if (*p++ != '[') return -1;
        int n = 0, maxn = d->type == CT_ATTR_INT_LIST ? 3 * CT_MAX_DIMS : 8;
        p = ct__skip_ws(p);
        while (*p != ']') {
            if (n >= maxn) return -1;
            if (d->type == CT_ATTR_INT_LIST ? ct__parse_int(&p, &v->ints[n]) : ct__parse_double(&p, &v->floats[n])) return -1;
            n++;
            p = ct__skip_ws(p);
            if (*p == ',') p = ct__skip_ws(p + 1);
            else if (*p != ']') return -1;
        }
        p++;
        if (d->count >= 0 && n != d->count) return -1;
        v->count = n;
        break;
    }
    }
    *pp = p;
    return 0;
}
CTENSOR_API ct_status ct_attrs_defaults(int op, ct_attrs *a) {
    if (!ct__op_valid(op)) { ct__bad_op("attrs_defaults", op); return CT_ERR_ARG; }
    if (!a) { ct_set_error(CT_ERR_ARG, "attrs_defaults: NULL argument"); return CT_ERR_ARG; }
    const char *schema = ct__opdef_get(op)->attrs, *p = schema;
    ct__attrdesc d;
    ct_attr_value v;
    int r;
    ct__attrs_init(a);
    while ((r = ct__attr_next(schema, &p, &d)) > 0) {
        if (d.optional && d.type == CT_ATTR_FLOAT && d.flag < 0) a->s[d.idx] = NAN;   /* None */
        if (!d.def) continue;
        char t[48];
        const char *q = t;
        int n = d.def_len < 47 ? d.def_len : 47;
        memcpy(t, d.def, (size_t)n);
        t[n] = 0;
        if (ct__parse_value(&d, &q, &v) || *q || ct__attr_write(&d, a, &v)) {
            ct_set_error(CT_ERR_STATE, "attrs_defaults: %s: bad default \"%s\" for '%s'", ct__opdef_get(op)->sname, t, d.name);
            return CT_ERR_STATE;
        }
    }
    return r < 0 ? CT_ERR_STATE : CT_OK;
}
CTENSOR_API ct_status ct_attrs_parse(int op, const char *text, ct_attrs *a) {
    if (!ct__op_valid(op)) { ct__bad_op("attrs_parse", op); return CT_ERR_ARG; }
    if (!text || !a) { ct_set_error(CT_ERR_ARG, "attrs_parse: NULL argument"); return CT_ERR_ARG; }
    const char *schema = ct__opdef_get(op)->attrs, *p = ct__skip_ws(text);
    ct__attrs out;
    ct__attrdesc d;
    ct_attr_value v;
    /* absent attributes take their defaults */
    if (ct_attrs_defaults(op, &out)) return CT_ERR_STATE;
    while (*p) {
        char name[32];
        int n = 0;
        while (n < 31 && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')) name[n++] = *p++;
        name[n] = 0;
        p = ct__skip_ws(p);
        if (!n || *p != '=') {
            ct_set_error(CT_ERR_FORMAT, "attrs_parse: %s: expected name=value at \"%.40s\"", ct__opdef_get(op)->sname, p);
            return CT_ERR_FORMAT;
        }
        p++;
        if (ct__attr_find(schema, name, 0, &d)) {
            ct_set_error(CT_ERR_FORMAT, "attrs_parse: %s has no attribute '%s'", ct__opdef_get(op)->sname, name);
            return CT_ERR_FORMAT;
        }
        if (ct__parse_value(&d, &p, &v) || ct__attr_write(&d, &out, &v)) {
            ct_set_error(CT_ERR_FORMAT, "attrs_parse: %s: bad value for '%s' at \"%.40s\"", ct__opdef_get(op)->sname, name, p);
            return CT_ERR_FORMAT;
        }
        p = ct__skip_ws(p);
        if (*p == ',') p = ct__skip_ws(p + 1);
        else if (*p) {
            ct_set_error(CT_ERR_FORMAT, "attrs_parse: %s: expected ',' at \"%.40s\"", ct__opdef_get(op)->sname, p);
            return CT_ERR_FORMAT;
        }
    }
    *a = out;
    return CT_OK;
}

CTENSOR_API int ct_op_call_op(const ct_op_call *c) { return c->op; }
CTENSOR_API int ct_op_call_num_inputs(const ct_op_call *c) { return c->nin; }
CTENSOR_API ct_tensor *ct_op_call_input(const ct_op_call *c, int i) { return i >= 0 && i < c->nin ? c->in[i] : NULL; }
CTENSOR_API int ct_op_call_num_outputs(const ct_op_call *c) { return c->nout; }
CTENSOR_API ct_tensor *ct_op_call_output(const ct_op_call *c, int j) { return j >= 0 && j < c->nout ? c->out[j] : NULL; }
CTENSOR_API const ct_attrs *ct_op_call_attrs(const ct_op_call *c) { return c->a; }
CTENSOR_API ct_generator *ct_op_call_generator(const ct_op_call *c) { return c->gen; }

/* ---- companion headers register kernels by name ---- */
CTENSOR_API ct_status ct_register_backend_op(const char *name, ct_backend b, ct_meta_fn meta, ct_kernel_fn fn) {
    int op = ct_op_find(name);
    if (op < 0) { ct_set_error(CT_ERR_ARG, "register_kernel: no op named '%s'", name ? name : "(null)"); return CT_ERR_ARG; }
    if ((int)b < 0 || b >= CT_NUM_BACKENDS) { ct_set_error(CT_ERR_ARG, "register_kernel: invalid backend %d", (int)b); return CT_ERR_ARG; }
    CT__STORE_RELEASE(&ct__metas[b][op], meta);
    CT__STORE_RELEASE(&ct__kernels[b][op], fn);
    if (b == CT_BACKEND_CPU) CT__STORE_RELEASE(&ct__cpu_kernels_set, 1);
    return CT_OK;
}
CTENSOR_API ct_status ct_register_kernel(const char *name, ct_backend b, ct_kernel_fn fn) {
    return ct_register_backend_op(name, b, NULL, fn);
}

/* ============================================================================
   Autograd graph: nodes, edges, saved tensors
   (PyTorch: torch/csrc/autograd/function.h, saved_variable.h)
   ========================================================================== */
typedef struct ct__edge { ct__node *fn; int32_t input_nr; } ct__edge;
/* cl: the tensor's suggest_memory_format was channels-last (a backward rule that saves no
   input still gives its gradient in the input's memory format) */
typedef struct ct__tmeta { int32_t ndim; ct_dtype dtype; ct_device device; int32_t cl; int64_t shape[CT_MAX_DIMS]; } ct__tmeta;
typedef struct ct__saved { ct_tensor *t; uint32_t version; int32_t which; /* input i, or -1-j for output j */ } ct__saved;

struct ct__hook {
    ct_hook_fn fn;
    void *user;
    int id;
    int out_nr;
    ct_tensor *retain;          /* retain_grad target (weak), fn unused */
    struct ct__hook *next;
};

enum { CT__NODE_ACC = -1, CT__NODE_CUSTOM = -2, CT__NODE_COPYSLICES = -3 };

struct ct__node {
    int32_t refcount;
    int32_t op;                 /* op id, or CT__NODE_* */
    int32_t nin, nout, nsaved;
    int32_t released;           /* saved tensors were freed by a backward pass */
    int32_t topo;               /* longest distance to a leaf */
    uint64_t seq;               /* creation order; AccumulateGrad is UINT64_MAX */
    ct__edge *next;             /* [nin] */
    ct__tmeta *in_meta;         /* [nin] */
    ct__tmeta *out_meta;        /* [nout] */
    ct__saved *saved;           /* [nsaved] */
    ct__attrs attrs;
    ct_tensor *leaf;            /* AccumulateGrad: its variable (owned) */
    ct__hook *pre_hooks;        /* hooks on the gradients of this node's outputs */
    void *ctx;                  /* custom nodes: user data */
    void (*ctx_free)(void *);
    ct__backward_fn custom_bw;
    const char *custom_name;
    struct ct__node *free_next; /* deferred destruction list; the thread's node cache */
    int32_t pooled;             /* allocated at CT__NODE_SMALL bytes: goes back to a node cache */
};
/* the backward stub of the selective build (the rows' CT__BW_OR) */
static CT__UNUSED int ct__bw_unselected(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    (void)gout; (void)gin;
    const ct__opdef *d = ct__opdef_get(n->op);
#ifdef CTENSOR_NO_AUTOGRAD
    return ct__failed(CT_ERR_AUTOGRAD, "%s: the derivative of %s is not in this build (CTENSOR_NO_AUTOGRAD)", d->name, d->sname);
#else
    return ct__failed(CT_ERR_AUTOGRAD, "%s: the derivative of %s is not in this build (CTENSOR_SELECTED_OPS)", d->name, d->sname);
#endif
}

static void ct__node_decref(ct__node *n);

/* Nodes up to 2 inputs, 1 output and 3 saved tensors share one size and are
   reused from a per-thread cache of up to CT__NODE_CACHE. */
#define CT__NODE_SMALL (sizeof(ct__node) + 2 * sizeof(ct__edge) + 3 * sizeof(ct__tmeta) + 3 * sizeof(ct__saved))
#ifdef CTENSOR_NO_CACHES
#  define CT__NODE_CACHE 0
#else
#  define CT__NODE_CACHE 4096
#endif
static void ct__free_node_cache(ct__tls *t) {
    while (t->free_nodes) {
        ct__node *n = t->free_nodes;
        t->free_nodes = n->free_next;
        CT_FREE(n);
    }
    t->nfree_nodes = 0;
}
/* a: the attributes to keep (NULL: zeros) */
static ct__node *ct__node_new(int op, int nin, int nout, int nsaved, const ct__attrs *a) {
    size_t sz = sizeof(ct__node) + sizeof(ct__edge) * (size_t)nin + sizeof(ct__tmeta) * (size_t)(nin + nout) +
                sizeof(ct__saved) * (size_t)nsaved;
    ct__node *n;
    int pooled = sz <= CT__NODE_SMALL;
    ct__tls *t = ct__tls_get();
    if (pooled && t->free_nodes) {
        n = t->free_nodes;
        t->free_nodes = n->free_next;
        t->nfree_nodes--;
    } else {
        n = (ct__node *)CT_MALLOC(pooled ? CT__NODE_SMALL : sz);
        if (!n) { ct_set_error(CT_ERR_MEMORY, "out of memory (autograd node)"); return NULL; }
    }
    /* zeroed around the attributes block, which is copied or zeroed once */
    memset(n, 0, offsetof(ct__node, attrs));
    memset((char *)n + offsetof(ct__node, attrs) + sizeof(ct__attrs), 0,
           sizeof(ct__node) - offsetof(ct__node, attrs) - sizeof(ct__attrs));
    if (a) n->attrs = *a;
    else memset(&n->attrs, 0, sizeof(ct__attrs));
    n->pooled = pooled;
    n->op = op;
    n->nin = nin;
    n->nout = nout;
    n->nsaved = nsaved;
    n->next = (ct__edge *)(n + 1);
    n->in_meta = (ct__tmeta *)(n->next + nin);
    n->out_meta = n->in_meta + nin;
    n->saved = (ct__saved *)(n->out_meta + nout);
    memset(n->next, 0, sizeof(ct__edge) * (size_t)nin);
    memset(n->saved, 0, sizeof(ct__saved) * (size_t)nsaved);
    return n;
}

CT__INLINE void ct__tmeta_of(ct__tmeta *m, const ct_tensor *t) {
    m->ndim = t->ndim;
    m->dtype = t->dtype;
    m->device = t->device;
    m->cl = t->ndim == 4 && ct_suggest_memory_format(t) == CT_CHANNELS_LAST;
    for (int i = 0; i < t->ndim; i++) m->shape[i] = t->shape[i];
}

static void ct__node_release_saved(ct__node *n) {
    for (int k = 0; k < n->nsaved; k++) {
        if (n->saved[k].t) { ct__decref(n->saved[k].t); n->saved[k].t = NULL; }
    }
    n->released = 1;
}

/* Node destruction is iterative: freeing a long chain must not recurse deeply. */
static CT_THREAD_LOCAL ct__node *ct__dead_nodes;
static CT_THREAD_LOCAL int ct__draining;

static void ct__node_destroy_now(ct__node *n) {
    for (int i = 0; i < n->nin; i++)
        if (n->next[i].fn) ct__node_decref(n->next[i].fn);
    for (int k = 0; k < n->nsaved; k++)
        if (n->saved[k].t) ct__decref(n->saved[k].t);
    ct__hook *h = n->pre_hooks;
    while (h) {
        ct__hook *nx = h->next;
        if (h->retain) h->retain->flags &= ~CT__F_RETAINS_GRAD;
        CT_FREE(h);
        h = nx;
    }
    if (n->ctx_free) n->ctx_free(n->ctx);
    if (n->leaf) {
        n->leaf->grad_acc = NULL;
        ct__decref(n->leaf);
    }
    ct__tls *t = ct__tls_get();
    if (n->pooled && t->nfree_nodes < CT__NODE_CACHE && !t->fallback && !t->dead) {
        n->free_next = t->free_nodes;
        t->free_nodes = n;
        t->nfree_nodes++;
        return;
    }
    CT_FREE(n);
}
static void ct__node_decref(ct__node *n) {
    if (!(CT__LOAD(&n->refcount) == 1 || CT__ATOMIC_DEC(&n->refcount) == 0)) return;
    if (CT__LOAD(&n->refcount) == 1) CT__STORE(&n->refcount, 0);
    n->free_next = ct__dead_nodes;
    ct__dead_nodes = n;
    if (ct__draining) return;
    ct__draining = 1;
    while (ct__dead_nodes) {
        ct__node *d = ct__dead_nodes;
        ct__dead_nodes = d->free_next;
        ct__node_destroy_now(d);
    }
    ct__draining = 0;
}
CT__INLINE ct__node *ct__node_incref(ct__node *n) {
    CT__ATOMIC_INC(&n->refcount);
    return n;
}

static void ct__remove_retain_hook(ct_tensor *x) {
    if (!x->grad_fn) return;
    ct__hook **pp = &x->grad_fn->pre_hooks;
    while (*pp) {
        if ((*pp)->retain == x) {
            ct__hook *h = *pp;
            *pp = h->next;
            CT_FREE(h);
        } else {
            pp = &(*pp)->next;
        }
    }
}

static void ct__tensor_destroy(ct_tensor *x) {
    if ((uintptr_t)x->qparams | (uintptr_t)x->grad_fn | (uintptr_t)x->grad | (uintptr_t)x->base | (uintptr_t)x->hooks |
        (uintptr_t)x->names) {
        if (x->qparams) { ct_qparams_release(x->qparams); x->qparams = NULL; }
        if (x->names) { CT_FREE((void *)x->names); x->names = NULL; }
        if (x->flags & CT__F_RETAINS_GRAD) ct__remove_retain_hook(x);
        if (x->grad_fn && !(x->flags & CT__F_WEAK_GRAD_FN)) ct__node_decref(x->grad_fn);
        if (x->grad) ct__decref(x->grad);
        if (x->base) ct__decref(x->base);
        ct__hook *h = x->hooks;
        while (h) {
            ct__hook *nx = h->next;
            CT_FREE(h);
            h = nx;
        }
    }
    ct_storage *s = x->storage;
    if (s && (uint32_t)s->ct__size_class < CT__PAIR_CLASSES && CT__LOAD(&s->refcount) == 1) {
        /* the sole owner of a small cached-class block: header and block cached as one
           (ct__alloc makes both afresh) */
        ct__tls *t = ct__tls_get();
        int c = s->ct__size_class;
        if (t->nfree_pairs[c] < CT__PAIR_LIMIT(c)) {
            CT__STORE(&t->live_tensors, CT__LOAD(&t->live_tensors) - 1);
            CT__STORE(&t->live_bytes, CT__LOAD(&t->live_bytes) - s->nbytes);
            x->grad = t->free_pairs[c];
            t->free_pairs[c] = x;
            t->nfree_pairs[c]++;
            return;
        }
    }
    if (s) ct__storage_decref(s);
    ct__header_free(x);
}

/* The AccumulateGrad node of a leaf (created on first use; the leaf holds it weakly). */
static ct__node *ct__grad_accumulator(ct_tensor *leaf) {
    if (leaf->grad_acc) return leaf->grad_acc;
    ct__node *n = ct__node_new(CT__NODE_ACC, 0, 1, 0, NULL);
    if (!n) return NULL;
    n->seq = UINT64_MAX;
    n->topo = 0;
    n->leaf = ct__incref(leaf);
    ct__tmeta_of(&n->out_meta[0], leaf);
    leaf->grad_acc = n;
    return n;
}

static int ct__regen_view_grad_fn(ct_tensor *v);
/* The edge autograd follows from a tensor that requires grad. A view whose
   storage was written in place since its history was recorded gets a fresh
   history from its base first (PyTorch regenerates view grad_fns the same way). */
static int ct__edge_of(ct_tensor *t, ct__edge *e) {
    if ((t->flags & CT__F_IS_VIEW) && t->base && (t->base->flags & CT__F_REQUIRES_GRAD) &&
        t->view_version != CT__LOAD(&t->storage->version) && ct__regen_view_grad_fn(t))
        return -1;
    if (t->grad_fn) {
        e->fn = t->grad_fn;
        e->input_nr = t->out_nr;
    } else {
        e->fn = ct__grad_accumulator(t);
        e->input_nr = 0;
        if (!e->fn) return -1;
    }
    return 0;
}

static const char *ct__node_name(const ct__node *n) {
    if (n->op == CT__NODE_ACC) return "AccumulateGrad";
    if (n->op == CT__NODE_COPYSLICES) return "CopySlices";
    if (n->op == CT__NODE_CUSTOM) return n->custom_name ? n->custom_name : "CustomBackward";
    if (n->custom_name) return n->custom_name;
    return ct__opdef_get(n->op)->bw_name;
}

/* Saved tensor access with PyTorch's two checks. */
static ct_tensor *ct__saved_get(ct__node *n, int which) {
    for (int k = 0; k < n->nsaved; k++) {
        ct__saved *s = &n->saved[k];
        if (s->which != which) continue;
        if (!s->t) {
            ct_set_error(CT_ERR_AUTOGRAD,
                         "Trying to backward through the graph a second time (or directly access saved tensors after they "
                         "have already been freed). Saved intermediate values of the graph are freed when you call "
                         ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                         "graph a second time or if you need to access saved tensors after calling backward.");
            return NULL;
        }
        uint32_t v = CT__LOAD(&s->t->storage->version);
        if (v != s->version) {
            static const char *const tnames[CT_NUM_DTYPES] = {
                "torch.FloatTensor", "torch.DoubleTensor", "torch.HalfTensor", "torch.BFloat16Tensor",
                "torch.LongTensor", "torch.IntTensor", "torch.ShortTensor", "torch.CharTensor",
                "torch.ByteTensor", "torch.BoolTensor", "torch.QInt8Tensor", "torch.QUInt8Tensor",
                "torch.QInt32Tensor", "torch.ComplexFloatTensor", "torch.ComplexDoubleTensor"};
            char who[160] = "";
            if (which < 0) snprintf(who, sizeof who, ", which is output %d of %s,", -1 - which, ct__node_name(n));
            else if (n->in_meta && n->next[which].fn && n->next[which].fn->op != CT__NODE_ACC)
                snprintf(who, sizeof who, ", which is output %d of %s,", n->next[which].input_nr, ct__node_name(n->next[which].fn));
            ct_set_error(CT_ERR_AUTOGRAD,
                         "one of the variables needed for gradient computation has been modified by an inplace "
                         "operation: [%s %s]%s is at version %u; expected version %u instead. Hint: the backtrace "
                         "further above shows the operation that failed to compute its gradient. The variable in "
                         "question was changed in there or anywhere later. Good luck!",
                         tnames[s->t->dtype], CT__SHAPE(s->t), who, v, s->version);
            return NULL;
        }
        return s->t;
    }
    ct_set_error(CT_ERR_AUTOGRAD, "%s: internal error: tensor %d was not saved", ct__node_name(n), which);
    return NULL;
}
#define CT__SV_IN(n, i) ct__saved_get(n, i)
/* a saved input's layout only (no checks, NULL when not saved or freed) */
static const ct_tensor *ct__saved_peek(const ct__node *n, int which) {
    for (int k = 0; k < n->nsaved; k++)
        if (n->saved[k].which == which) return n->saved[k].t;
    return NULL;
}
#define CT__SV_OUT(n, j) ct__saved_get(n, -1 - (j))

/* ============================================================================
   The dispatcher: the one door every op goes through (DESIGN.md section 3)
   ========================================================================== */
static int ct__record(ct__call *c, const ct__opdef *d, ct__tls *t);
static ct_tensor *ct__clone_detached(const ct_tensor *x);
static int ct__copyslices(ct_tensor *view, ct__node *fn);

/* ---- named dims: the dispatcher's side (the rules live in ctensor_named.h) ----
   ct__names_used turns on when a tensor first gets names; until then the checks
   below cost one predictable branch. The rule computes every output's names
   from the inputs' (or fails with PyTorch's message) before anything is
   allocated or written; the dispatcher attaches them once the kernel has run.
   Only top-level calls (dispatch depth 0) are named: a composite kernel's
   inner ops are not. ct__names_comp serves public functions that are several
   ops (squeeze, flatten, matmul, linear): their names are not those of parts. */
static int ct__names_used;
typedef int (*ct__names_rule_fn)(ct__call *c, const char *on[CT__MAX_OUT][CT_MAX_DIMS]);
static ct__names_rule_fn ct__names_rule;
enum { CT__NC_SQUEEZE, CT__NC_SQUEEZE_DIM, CT__NC_UNSQUEEZE, CT__NC_FLATTEN, CT__NC_MATMUL, CT__NC_LINEAR };
typedef ct_tensor *(*ct__names_comp_fn)(int kind, const ct_tensor *a, const ct_tensor *b, const ct_tensor *c, int64_t i0,
                                        int64_t i1);
static ct__names_comp_fn ct__names_comp;
#define CT__NAMED(x) (CT__UNLIKELY(CT__LOAD_ACQUIRE(&ct__names_used)) && (x) && (x)->names && ct__names_comp && !ct__tls_get()->names_off)
/* sets x's names to n[0..ndim) (NULL: unnamed) */
static int ct__names_set(ct_tensor *x, const char *const *n) {
    int any = 0;
    for (int d = 0; n && d < x->ndim; d++) any |= n[d] != NULL;
    if (!any) {
        if (x->names) CT_FREE((void *)x->names);
        x->names = NULL;
        return 0;
    }
    if (!x->names) {
        x->names = (const char **)CT_MALLOC(sizeof(char *) * CT_MAX_DIMS);
        if (!x->names) return ct__failed(CT_ERR_MEMORY, "out of memory (dim names)");
    }
    for (int d = 0; d < x->ndim; d++) x->names[d] = n[d];
    return 0;
}
static CT__NOINLINE int ct__any_named(const ct__call *c) {
    for (int i = 0; i < c->nin; i++)
        if (c->in[i] && c->in[i]->names) return 1;
    return 0;
}
static CT__NOINLINE int ct__names_attach(ct__call *c, int mask, const char *on[CT__MAX_OUT][CT_MAX_DIMS]) {
    for (int j = 0; j < c->nout && j < CT__MAX_OUT; j++)
        if (ct__names_set(c->out[j], (mask >> j) & 1 ? on[j] : NULL)) return -1;
    return 0;
}

static CT__NOINLINE int ct__dispatch_fail_null(ct__call *c) {
    for (int i = 0; i < c->nin; i++)
        if (!c->in[i]) { ct__null_arg(ct__opdef_get(c->op)->name, i); break; }
    return -1;
}

static int ct__check_inplace(ct__call *c, const ct__opdef *d, ct__tls *t) {
    ct_tensor *x = c->in[0];
    if (t->grad_enabled && !t->inference_mode) {
        if ((x->flags & CT__F_REQUIRES_GRAD) && !x->grad_fn && !(x->flags & CT__F_IS_VIEW))
            return ct__failed(CT_ERR_AUTOGRAD, "%s: a leaf Variable that requires grad is being used in an in-place operation.", d->name);
        if ((x->flags & CT__F_IS_VIEW) && x->base && (x->base->flags & CT__F_REQUIRES_GRAD) && !x->base->grad_fn)
            return ct__failed(CT_ERR_AUTOGRAD, "%s: a view of a leaf Variable that requires grad is being used in an in-place operation.", d->name);
    }
    if ((x->flags & CT__F_INFERENCE) && !t->inference_mode)
        return ct__failed(CT_ERR_AUTOGRAD, "%s: Inplace update to inference tensor outside InferenceMode is not allowed."
                          "You can make a clone to get a normal tensor before doing inplace update.", d->name);
    /* PyTorch refuses in-place writes whose elements overlap (expanded tensors). */
    for (int i = 0; i < x->ndim; i++)
        if (x->strides[i] == 0 && x->shape[i] > 1)
            return ct__failed(CT_ERR_ARG, "%s: unsupported operation: more than one element of the written-to tensor refers "
                              "to a single memory location. Please clone() the tensor before performing the operation.", d->name);
    return 0;
}

/* Every output shape an op computes passes here before anything is allocated or
   viewed: ranks in range, no negative size, numel and bytes without int64
   overflow. Metas cannot forget it (DESIGN.md: invariants live in the door). */
static CT__NOINLINE int ct__out_shape_bad(const ct__opdef *d, const ct__outinfo *o) {
    if (o->ndim < 0 || o->ndim > CT_MAX_DIMS)
        return ct__failed(CT_ERR_ARG, "%s: the result would have %d dimensions (the maximum is %d)", d->name, (int)o->ndim, CT_MAX_DIMS);
    uint64_t n = 1;
    int zero = 0;
    for (int i = 0; i < o->ndim; i++) {
        if (o->shape[i] < 0)
            return ct__failed(CT_ERR_ARG, "%s: Trying to create tensor with negative dimension %lld: %s", d->name,
                              (long long)o->shape[i], ct__fmt_shape(o->ndim, o->shape).s);
        if (o->shape[i] == 0) zero = 1;
        else if (n > (uint64_t)INT64_MAX / (uint64_t)o->shape[i])
            return ct__failed(CT_ERR_MEMORY, "%s: numel: integer multiplication overflow (result shape %s)", d->name,
                              ct__fmt_shape(o->ndim, o->shape).s);
        else n *= (uint64_t)o->shape[i];
    }
    /* new storage: the product of the non-zero sizes must be allocatable */
    if (o->kind == CT__OUT_NEW && !zero && n > ((uint64_t)1 << 46) / (uint64_t)ct__dt[o->dtype].size)
        return ct__failed(CT_ERR_MEMORY, "%s: the result shape %s is too large (%llu elements of %s)", d->name,
                          ct__fmt_shape(o->ndim, o->shape).s, (unsigned long long)n, CT__DTNAME(o->dtype));
    return 0;
}
CT__INLINE int ct__out_shape_ok(const ct__outinfo *o) {
    /* the common case, without a division: small ranks and sizes below 2^21 */
    if ((unsigned)o->ndim > 3u) return 0;
    for (int i = 0; i < o->ndim; i++)
        if ((uint64_t)o->shape[i] >= ((uint64_t)1 << 21)) return 0;
    return 1;
}

static CT__NOINLINE int ct__device_mismatch(const ct__opdef *d, ct_device a, ct_device b) {
    char x[24], y[24];
    return ct__failed(CT_ERR_DEVICE, "%s: Expected all tensors to be on the same device, but found at least two devices, %s and %s!",
                      d->name, ct_device_str(a, x, sizeof x), ct_device_str(b, y, sizeof y));
}
static CT__NOINLINE int ct__no_kernel(const ct__opdef *d, int backend) {
    return ct__failed(backend == CT_BACKEND_CPU ? CT_ERR_UNSUPPORTED
                      : backend == CT_BACKEND_QUANTIZED_CPU || backend == CT_BACKEND_QUANTIZED_CUDA ? CT_ERR_DTYPE : CT_ERR_DEVICE,
                      "%s: Could not run '%s' with arguments from the '%s' backend.%s", d->name, d->sname,
                      ct_backend_name((ct_backend)backend),
                      backend == CT_BACKEND_CUDA || backend == CT_BACKEND_QUANTIZED_CUDA
                          ? " (CUDA kernels come from ctensor_cuda.h, built with CTENSOR_CUDA)"
                          : backend == CT_BACKEND_QUANTIZED_CPU ? " (quantized kernels come from ctensor_quant.h)" : "");
}

/* For kernels of CT__OPF_DATA_SHAPE ops: allocates DEFERRED output j once its
   shape is known (the same overflow checks as every other output). 0 or -1. */
static CT__UNUSED int ct__out_alloc(ct__call *c, int j, ct_dtype dt, int ndim, const int64_t *shape) {
    ct__outinfo *o = &c->oi[j];
    CT_ASSERT(o->kind == CT__OUT_DEFERRED && !c->out[j]);
    o->dtype = dt;
    o->ndim = ndim;
    o->has_strides = 0;
    for (int d = 0; d < ndim; d++) o->shape[d] = shape[d];
    o->kind = CT__OUT_NEW;
    int bad = !ct__out_shape_ok(o) && ct__out_shape_bad(ct__opdef_get(c->op), o);
    o->kind = CT__OUT_DEFERRED;
    if (bad) return -1;
    c->out[j] = ct__alloc(dt, ndim, shape, NULL, c->odev);
    return c->out[j] ? 0 : -1;
}

/* Runs c->op. Returns the number of outputs (c->out[]) or -1 with the error set.
   NEW and VIEW outputs are owned by the current scope; an INPLACE output is the input. */
CT__INLINE int ct__dispatch_run(ct__call *c, ct__tls *t) {
    const ct__opdef *d = ct__opdef_get(c->op);
    int nin = c->nin, quant = 0, same = 1;
    if (nin && CT__UNLIKELY(!c->in[0])) return ct__dispatch_fail_null(c);
    /* the device of the call: its inputs' (0-d CPU tensors go with any device, as in PyTorch) */
    ct_device dev = nin ? c->in[0]->device : ct__cpu_dev;
    for (int i = 0; i < nin; i++) {
        const ct_tensor *x = c->in[i];
        if (CT__UNLIKELY(!x)) return ct__dispatch_fail_null(c);
        quant |= CT__DT_QUANT(x->dtype);
        same &= ct_device_eq(x->device, dev);
    }
    if (CT__UNLIKELY(!same)) quant = 0;   /* mixed devices: the rules below */
    for (int i = 0; !same && i < nin; i++) {
        const ct_tensor *x = c->in[i];
        quant |= CT__DT_QUANT(x->dtype);
        if (CT__UNLIKELY(!ct_device_eq(x->device, dev))) {
            if (x->ndim == 0 && x->device.type == CT_CPU) continue;
            if (dev.type == CT_CPU && c->in[0]->ndim == 0) { dev = x->device; i = -1; quant = 0; continue; }
            return ct__device_mismatch(d, dev, x->device);
        }
    }
    /* outputs go to the device attribute of ops that choose one (factories, to) */
    ct_device odev = (d->flags & CT__OPF_DEVICE_ATTR) ? c->a->device : dev;
    ct_device kdev = odev.type != CT_CPU ? odev : dev;
    int backend = (kdev.type == CT_CPU ? CT_BACKEND_CPU : CT_BACKEND_CUDA) + (quant ? 2 : 0);
    ct__kernel_fn k = backend == CT_BACKEND_CPU && !CT__LOAD_ACQUIRE(&ct__cpu_kernels_set) ? NULL : ct__kernels[backend][c->op];
    /* the row's kernel serves the CPU; a view's (metadata only) serves every backend */
    if (!k && (backend == CT_BACKEND_CPU || (d->flags & CT__OPF_VIEW))) k = d->kernel;
    if (CT__UNLIKELY(!k)) return ct__no_kernel(d, backend);
    c->nout = d->nout;
    c->fast = 0;
    int inplace = (d->flags & CT__OPF_INPLACE) || c->inplace;
    if (inplace && ct__check_inplace(c, d, t)) return -1;
    ct__meta_fn meta = backend == CT_BACKEND_CPU ? NULL : ct__metas[backend][c->op];
    if ((meta ? meta : d->meta)(c)) return -1;
    if (inplace)
        for (int i = 0; i < nin && i < 8; i++) c->pre_version[i] = CT__LOAD(&c->in[i]->storage->version);
    int nout = c->nout;
    for (int j = 0; j < nout; j++)
        if (c->oi[j].kind < CT__OUT_INPLACE && CT__UNLIKELY(!ct__out_shape_ok(&c->oi[j])) && ct__out_shape_bad(d, &c->oi[j]))
            return -1;
    c->odev = odev;
    int nmask = 0;
    const char *onames[CT__MAX_OUT][CT_MAX_DIMS];
    if (CT__UNLIKELY(CT__LOAD_ACQUIRE(&ct__names_used)) && ct__names_rule && t->dispatch_depth == 0 && !t->names_off) {
        int any = 0;
        for (int i = 0; i < nin; i++) any |= c->in[i]->names != NULL;
        if (any && (nmask = ct__names_rule(c, onames)) < 0) return -1;
    }
    for (int j = 0; j < nout; j++) {
        ct__outinfo *o = &c->oi[j];
        ct_tensor *x;
        if (o->kind == CT__OUT_DEFERRED) {
            c->out[j] = NULL;
            continue;
        } else if (o->kind == CT__OUT_NEW) {
            x = ct__alloc(o->dtype, o->ndim, o->shape, o->has_strides ? o->strides : NULL, odev);
        } else if (o->kind == CT__OUT_VIEW) {
            const ct_tensor *src = c->in[o->src];
            x = ct__view_header(src, o->ndim, o->shape, o->strides, o->offset);
            if (x) {
                x->flags |= CT__F_IS_VIEW;
                x->base = ct__incref(src->base ? src->base : (ct_tensor *)src);
            }
        } else {
            x = c->in[o->src];
        }
        if (!x) {
            for (int q = 0; q < j; q++)
                if (c->oi[q].kind != CT__OUT_INPLACE && c->out[q]) ct__decref(c->out[q]);
            return -1;
        }
        c->out[j] = x;
    }
    int saved_grad = t->grad_enabled;
    c->self_before = NULL;
    if (inplace && (d->save & 1u) && saved_grad && !t->inference_mode && t->dispatch_depth == 0 &&
        !(d->flags & CT__OPF_NONDIFF)) {
        int any = 0;
        for (int i = 0; i < nin; i++) any |= (c->in[i]->flags & CT__F_REQUIRES_GRAD) != 0;
        /* PyTorch saves self.clone(), recorded, so double backward reaches self's history */
        if (any) {
            c->self_before = ct_clone(c->in[0]);
            if (!c->self_before) return -1;
            ct__incref(c->self_before);
        }
    }
    t->grad_enabled = 0;
    t->dispatch_depth++;
    int rc = k(c);
    t->dispatch_depth--;
    t->grad_enabled = saved_grad;
    if (CT__UNLIKELY(rc)) {
        for (int j = 0; j < nout; j++)
            if (c->oi[j].kind != CT__OUT_INPLACE && c->out[j]) ct__decref(c->out[j]);
        if (c->self_before) ct__decref(c->self_before);
        return -1;
    }
    for (int j = 0; j < nout; j++)
        CT_ASSERT(c->out[j] != NULL);   /* a DEFERRED output the kernel did not allocate: a bug */
    if (inplace) {
        if (!t->inference_mode || !(c->in[0]->flags & CT__F_INFERENCE)) CT__ATOMIC_INC(&c->in[0]->storage->version);
    }
    if (saved_grad && !t->inference_mode && t->dispatch_depth == 0) {
        int rrc = ct__record(c, d, t);
        if (c->self_before) ct__decref(c->self_before);
        if (rrc) {
            for (int j = 0; j < nout; j++)
                if (c->oi[j].kind != CT__OUT_INPLACE) ct__decref(c->out[j]);
            return -1;
        }
    }
    if (CT__UNLIKELY(nmask) && ct__names_attach(c, nmask, onames)) {
        for (int j = 0; j < nout; j++)
            if (c->oi[j].kind != CT__OUT_INPLACE) ct__decref(c->out[j]);
        return -1;
    }
    for (int j = 0; j < nout; j++) {
        if (c->oi[j].kind != CT__OUT_INPLACE && !ct__own(c->out[j])) {
            for (int q = j + 1; q < nout; q++)
                if (c->oi[q].kind != CT__OUT_INPLACE) ct__decref(c->out[q]);
            return -1;
        }
    }
    return nout;
}

/* ---- the dispatch hook ----------------------------------------------------
   Listeners are per thread. ct__dispatch tests one counter; only a thread with
   listeners takes ct__dispatch_listened, which tells them about the call. While
   listeners run, the thread's calls are not observed (listeners may use ops). */
static int ct__listener_handles;
static void ct__notify(ct__tls *t, const ct_dispatch_event *e, unsigned need, unsigned skip) {
    ct__listener copy[CT__MAX_LISTENERS];
    int n = t->nlisteners;
    memcpy(copy, t->listeners, sizeof(ct__listener) * (size_t)n);
    t->listen_pause++;
    for (int k = 0; k < n; k++) {
        if ((copy[k].flags & need) != need || (copy[k].flags & skip)) continue;
        if (e->depth > 0 && !(copy[k].flags & CT_LISTEN_NESTED)) continue;
        copy[k].fn(e, copy[k].user);
    }
    t->listen_pause--;
}
static CT__NOINLINE int ct__dispatch_listened(ct__call *c, ct__tls *t) {
    if (t->listen_pause) return ct__dispatch_run(c, t);
    const ct__opdef *d = ct__opdef_get(c->op);
    ct_dispatch_event e;
    e.phase = CT_DISPATCH_ENTER;
    e.op = c->op;
    e.nin = c->nin;
    e.nout = 0;
    e.inputs = c->in;
    e.outputs = NULL;
    e.attrs = c->a;
    e.generator = (d->flags & CT__OPF_RANDOM) ? (c->gen ? c->gen : ct_default_generator()) : NULL;
    e.depth = t->dispatch_depth;
    e.grad_enabled = t->grad_enabled;
    e.inplace = (d->flags & CT__OPF_INPLACE) || c->inplace;
    unsigned any_enter = 0;
    for (int k = 0; k < t->nlisteners; k++) any_enter |= t->listeners[k].flags & CT_LISTEN_ENTER;
    if (any_enter) ct__notify(t, &e, CT_LISTEN_ENTER, 0);
    int rc = ct__dispatch_run(c, t);
    if (rc >= 0) {
        e.phase = CT_DISPATCH_EXIT;
        e.nout = c->nout;
        e.outputs = c->out;
        ct__notify(t, &e, 0, 0);
    } else if (any_enter) {
        e.phase = CT_DISPATCH_FAIL;
        ct__notify(t, &e, CT_LISTEN_ENTER, 0);
    }
    return rc;
}
static int ct__meta_unary(ct__call *c);
static int ct__meta_binary(ct__call *c);
static int ct__ew_lane(ct__call *c, ct__tls *t, const ct__opdef *d);
static CT__NOINLINE int ct__dispatch_general(ct__call *c, ct__tls *t) { return ct__dispatch_run(c, t); }
static int ct__dispatch(ct__call *c) {
    ct__tls *t = ct__tls_get();
    if (CT__UNLIKELY(t->nlisteners)) return ct__dispatch_listened(c, t);
    const ct__opdef *d = ct__opdef_get(c->op);
    if ((d->meta == ct__meta_binary || d->meta == ct__meta_unary) && !c->inplace && c->nin == d->nin &&
        (!CT__LOAD_ACQUIRE(&ct__names_used) || !ct__any_named(c))) {
        int n = ct__ew_lane(c, t, d);
        if (n != -2) return n;
    }
    return ct__dispatch_general(c, t);
}
CTENSOR_API int ct_add_dispatch_listener(ct_dispatch_listener_fn fn, void *user_data, unsigned flags) {
    ct__tls *t = ct__tls_get();
    if (!fn) { ct_set_error(CT_ERR_ARG, "add_dispatch_listener: fn is NULL"); return -1; }
    if (flags & ~(CT_LISTEN_ENTER | CT_LISTEN_NESTED)) {
        ct_set_error(CT_ERR_ARG, "add_dispatch_listener: unknown flags 0x%x", flags);
        return -1;
    }
    if (t->nlisteners >= CT__MAX_LISTENERS) {
        ct_set_error(CT_ERR_STATE, "add_dispatch_listener: this thread already has %d listeners", CT__MAX_LISTENERS);
        return -1;
    }
    ct__listener *l = &t->listeners[t->nlisteners];
    l->fn = fn;
    l->user = user_data;
    l->flags = flags;
    l->handle = CT__ATOMIC_INC(&ct__listener_handles);
    t->nlisteners++;
    return l->handle;
}
CTENSOR_API ct_status ct_remove_dispatch_listener(int handle) {
    ct__tls *t = ct__tls_get();
    for (int k = 0; k < t->nlisteners; k++) {
        if (t->listeners[k].handle != handle) continue;
        memmove(&t->listeners[k], &t->listeners[k + 1], sizeof(ct__listener) * (size_t)(t->nlisteners - k - 1));
        t->nlisteners--;
        return CT_OK;
    }
    ct_set_error(CT_ERR_ARG, "remove_dispatch_listener: no listener %d on this thread", handle);
    return CT_ERR_ARG;
}

/* A call record for op with inputs and attributes (no generator, not in place). */
CT__INLINE void ct__call_init(ct__call *c, int op, int nin, ct_tensor *const *in, const ct__attrs *a) {
    c->op = op;
    c->nin = nin;
    c->in = in;
    c->a = a;
    c->gen = NULL;
    c->inplace = 0;
}
/* Several outputs: writes them to out[] and returns the count, or -1. */
static CT__UNUSED int ct__calln(int op, int nin, ct_tensor *const *in, const ct__attrs *a, ct_tensor **out) {
    ct__call c;
    ct__call_init(&c, op, nin, in, a);
    int n = ct__dispatch(&c);
    for (int j = 0; j < n; j++) out[j] = c.out[j];
    return n;
}
/* One-output convenience: returns the output or NULL. */
static ct_tensor *ct__call1(int op, int nin, ct_tensor *const *in, const ct__attrs *a) {
    ct__call c;
    ct__call_init(&c, op, nin, in, a);
    return ct__dispatch(&c) < 0 ? NULL : c.out[0];
}
/* In-place form of an elementwise op: writes into in[0] and returns it. */
static ct_tensor *ct__call1_(int op, int nin, ct_tensor *const *in, const ct__attrs *a) {
    ct__call c;
    ct__call_init(&c, op, nin, in, a);
    c.inplace = 1;
    return ct__dispatch(&c) < 0 ? NULL : c.out[0];
}
/* A random op: its generator travels in the call (not in the attributes). */
static ct_tensor *ct__call1_gen(int op, int nin, ct_tensor *const *in, const ct__attrs *a, ct_generator *g) {
    ct__call c;
    ct__call_init(&c, op, nin, in, a);
    c.gen = g;
    return ct__dispatch(&c) < 0 ? NULL : c.out[0];
}
CTENSOR_API int ct_dispatch(int op, int nin, ct_tensor *const *in, const ct_attrs *a, ct_generator *g, int inplace,
                            ct_tensor **out, int max_out) {
    if (!ct__op_valid(op)) return ct__bad_op("dispatch", op);
    const ct__opdef *d = ct__opdef_get(op);
    if ((d->nin >= 0 && nin != d->nin) || nin < 0 || nin > 64 || (nin && !in))
        return ct__failed(CT_ERR_ARG, "dispatch: %s takes %d inputs, got %d", d->sname, (int)d->nin, nin);
    ct__call c;
    ct__attrs def;
    if (!a) {
        if (ct_attrs_defaults(op, &def)) return -1;
        a = &def;
    } else if (ct__attrs_check("dispatch", op, a)) {
        return -1;
    }
    ct__call_init(&c, op, nin, in, a);
    c.gen = g;
    c.inplace = inplace != 0;
    int n = ct__dispatch(&c);
    if (n < 0) return -1;
    for (int j = 0; j < n && j < max_out; j++) if (out) out[j] = c.out[j];
    return n;
}
static ct_tensor *ct__op1(int op, const ct_tensor *x, const ct__attrs *a) {
    ct_tensor *in[1];
    in[0] = (ct_tensor *)x;
    return ct__call1(op, 1, in, a);
}
static ct_tensor *ct__op2(int op, const ct_tensor *x, const ct_tensor *y, const ct__attrs *a) {
    ct_tensor *in[2];
    in[0] = (ct_tensor *)x;
    in[1] = (ct_tensor *)y;
    return ct__call1(op, 2, in, a);
}
static ct_tensor *ct__op3(int op, const ct_tensor *x, const ct_tensor *y, const ct_tensor *z, const ct__attrs *a) {
    ct_tensor *in[3];
    in[0] = (ct_tensor *)x;
    in[1] = (ct_tensor *)y;
    in[2] = (ct_tensor *)z;
    return ct__call1(op, 3, in, a);
}
static ct_tensor *ct__opg1(int op, const ct_tensor *x, const ct__attrs *a, ct_generator *g) {
    ct_tensor *in[1];
    in[0] = (ct_tensor *)x;
    return ct__call1_gen(op, 1, in, a, g);
}
static ct_tensor *ct__opg2(int op, const ct_tensor *x, const ct_tensor *y, const ct__attrs *a, ct_generator *g) {
    ct_tensor *in[2];
    in[0] = (ct_tensor *)x;
    in[1] = (ct_tensor *)y;
    return ct__call1_gen(op, 2, in, a, g);
}
static ct__attrs ct__attrs_s(double s0) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.s[0] = s0;
    return a;
}

/* Records the autograd node of a finished call (DESIGN.md 3, step 5). */
static int ct__record(ct__call *c, const ct__opdef *d, ct__tls *t) {
    int nin = c->nin, nout = c->nout, any = 0;
    for (int i = 0; i < nin; i++)
        if (c->in[i]->flags & CT__F_REQUIRES_GRAD) { any = 1; break; }
    if (!any) return 0;
    if (d->flags & CT__OPF_NONDIFF) {
        if ((d->flags & CT__OPF_INPLACE) && (c->in[0]->flags & CT__F_IS_VIEW) && c->in[0]->base &&
            (c->in[0]->base->flags & CT__F_REQUIRES_GRAD))
            return ct__copyslices(c->in[0], NULL);   /* overwritten region: zero gradient */
        if (d->flags & CT__OPF_INPLACE) {
            /* a non-differentiable in-place write (random fill) cuts the history */
            ct_tensor *x = c->in[0];
            if (x->grad_fn && !(x->flags & CT__F_WEAK_GRAD_FN)) ct__node_decref(x->grad_fn);
            x->grad_fn = NULL;
            x->flags &= ~CT__F_REQUIRES_GRAD;
        }
        return 0;
    }
    uint32_t save = d->save;
    int nsaved = 0;
    for (int i = 0; i < nin; i++)
        if (save == CT__SAVE_ALL_IN || (i < 16 && (save & (1u << i)))) nsaved++;
    for (int j = 0; j < nout; j++)
        if (save != CT__SAVE_ALL_IN && (save & CT__SAVE_OUT(j))) nsaved++;
    for (int i = 0; i < nin; i++)
        if ((c->in[i]->flags & CT__F_INFERENCE) && (save == CT__SAVE_ALL_IN || (i < 16 && (save & (1u << i))) || (c->in[i]->flags & CT__F_REQUIRES_GRAD)))
            return ct__failed(CT_ERR_AUTOGRAD, "%s: Inference tensors cannot be saved for backward. To work around you can make a clone to get a normal tensor and use it in autograd.", d->name);
    ct__node *n = ct__node_new(c->op, nin, nout, nsaved, c->a);
    if (!n) return -1;
    n->seq = t->seq_counter++;
    int topo = 0;
    for (int i = 0; i < nin; i++) {
        ct_tensor *x = c->in[i];
        ct__tmeta_of(&n->in_meta[i], x);
        if ((x->flags & CT__F_REQUIRES_GRAD) && (CT__ISFLOAT(x->dtype) || ct_dtype_is_complex(x->dtype))) {
            if (ct__edge_of(x, &n->next[i])) { ct__node_destroy_now(n); return -1; }
            ct__node_incref(n->next[i].fn);
            if (n->next[i].fn->topo + 1 > topo) topo = n->next[i].fn->topo + 1;
        }
    }
    n->topo = topo;
    int k = 0;
    for (int i = 0; i < nin; i++) {
        if (save == CT__SAVE_ALL_IN || (i < 16 && (save & (1u << i)))) {
            ct_tensor *sv = (i == 0 && c->self_before) ? c->self_before : c->in[i];
            if (save & CT__SAVE_GEOMETRY) {
                if (!(n->saved[k].t = ct__view_header(sv, sv->ndim, sv->shape, sv->strides, sv->offset))) { ct__node_destroy_now(n); return -1; }
            } else if (c->nout >= 1 && c->oi[0].kind == CT__OUT_INPLACE && sv == c->out[0]) {
                /* the in-place output saved as an input (z.mul_(z)): its grad_fn becomes this
                   node, so owning it would make a cycle that is never freed. A plain alias
                   (no history) will do: the op bumps its version, so using it in backward
                   reports the in-place modification, as PyTorch does. */
                if (!(n->saved[k].t = ct__view_header(sv, sv->ndim, sv->shape, sv->strides, sv->offset))) { ct__node_destroy_now(n); return -1; }
            } else {
                n->saved[k].t = ct__incref(sv);
            }
            n->saved[k].version = (sv != c->self_before && ((d->flags & CT__OPF_INPLACE) || c->inplace) && i < 8)
                                      ? c->pre_version[i] : CT__LOAD(&sv->storage->version);
            n->saved[k].which = i;
            k++;
        }
    }
    for (int j = 0; j < nout; j++) {
        ct__tmeta_of(&n->out_meta[j], c->out[j]);
        if (save != CT__SAVE_ALL_IN && (save & CT__SAVE_OUT(j))) {
            /* an output is saved as an alias whose grad_fn is this node, not owned:
               owning it would make a cycle (PyTorch's SavedVariable does the same) */
            ct_tensor *o = c->out[j];
            ct_tensor *al = ct__view_header(o, o->ndim, o->shape, o->strides, o->offset);
            if (!al) { ct__node_destroy_now(n); return -1; }
            al->grad_fn = n;
            al->out_nr = j;
            al->flags |= CT__F_WEAK_GRAD_FN | (CT__ISFLOAT(o->dtype) || CT__ISCOMPLEX(o->dtype) ? CT__F_REQUIRES_GRAD : 0);
            n->saved[k].t = al;
            n->saved[k].version = CT__LOAD(&o->storage->version);
            n->saved[k].which = -1 - j;
            k++;
        }
    }
    int inplace_view = c->nout >= 1 && c->oi[0].kind == CT__OUT_INPLACE && (c->out[0]->flags & CT__F_IS_VIEW) &&
                       c->out[0]->base && (CT__ISFLOAT(c->out[0]->dtype) || ct_dtype_is_complex(c->out[0]->dtype));
    if (inplace_view) {
        /* the base's history gets a CopySlices node wrapping this op; the view's
           history becomes an as_strided view of the base */
        int rc = ct__copyslices(c->out[0], n);
        if (n->refcount == 0) ct__node_destroy_now(n);
        return rc;
    }
    for (int j = 0; j < nout; j++) {
        ct_tensor *o = c->out[j];
        if (!(CT__ISFLOAT(o->dtype) || ct_dtype_is_complex(o->dtype))) continue;
        if (o->flags & CT__F_IS_VIEW) o->view_version = CT__LOAD(&o->storage->version);
        if (c->oi[j].kind == CT__OUT_INPLACE) {
            /* rebase history: the edge above already holds the old grad_fn */
            if (o->flags & CT__F_RETAINS_GRAD) ct__remove_retain_hook(o);
            if (o->grad_fn && !(o->flags & CT__F_WEAK_GRAD_FN)) ct__node_decref(o->grad_fn);
            if (o->flags & CT__F_RETAINS_GRAD) {
                /* move retain_grad to the new node */
                ct__hook *h = (ct__hook *)CT_MALLOC(sizeof(ct__hook));
                if (h) {
                    memset(h, 0, sizeof *h);
                    h->retain = o;
                    h->next = n->pre_hooks;
                    n->pre_hooks = h;
                }
            }
        }
        o->grad_fn = ct__node_incref(n);
        o->out_nr = j;
        o->flags |= CT__F_REQUIRES_GRAD;
        o->flags &= ~CT__F_WEAK_GRAD_FN;
    }
    if (n->refcount == 0) ct__node_destroy_now(n);  /* no differentiable output */
    return 0;
}

/* ============================================================================
   In-place ops on views (PyTorch's CopySlices)
   `v = b[0]; v.mul_(2)`: b's history becomes CopySlices(MulBackward): its
   backward takes b's gradient, runs MulBackward on the slice the view covers,
   writes the result back into that slice and passes the rest through.
   Geometry is kept relative to the base's logical (contiguous) layout.
   ========================================================================== */
static ct_tensor *ct__strided_scatter(const ct_tensor *g, int ndim, const int64_t *shape, int vndim, const int64_t *vshape,
                                      const int64_t *vstrides, int64_t voffset);
static int ct__is_dense(const ct_tensor *x);
/* Does node n need the gradient of its input i? */
#define CT__NEEDS(n, i) ((n)->next[i].fn != NULL)

/* Storage geometry of `view` expressed in the logical layout of its dense base. */
static int ct__logical_geometry(const ct_tensor *base, const ct_tensor *view, int64_t *lst, int64_t *loff) {
    int order[CT_MAX_DIMS], n = 0;
    int64_t cs[CT_MAX_DIMS];
    if (!ct__is_dense(base))
        return ct__failed(CT_ERR_AUTOGRAD, "an in-place operation on a view of a tensor whose memory is not dense (%s, strides not a permutation of contiguous ones) cannot be differentiated; clone() the base first", CT__SHAPE(base));
    ct__contig_strides(base->ndim, base->shape, cs);
    for (int d = 0; d < base->ndim; d++)
        if (base->shape[d] > 1) order[n++] = d;
    for (int i = 1; i < n; i++) {  /* by storage stride, largest first */
        int p = order[i], j = i - 1;
        while (j >= 0 && base->strides[order[j]] < base->strides[p]) { order[j + 1] = order[j]; j--; }
        order[j + 1] = p;
    }
#define CT__DECOMPOSE(value, out) \
    do { \
        int64_t r_ = (value), o_ = 0; \
        for (int k_ = 0; k_ < n; k_++) { \
            int64_t q_ = r_ / base->strides[order[k_]]; \
            r_ -= q_ * base->strides[order[k_]]; \
            o_ += q_ * cs[order[k_]]; \
        } \
        (out) = o_; \
    } while (0)
    CT__DECOMPOSE(view->offset - base->offset, *loff);
    for (int k = 0; k < view->ndim; k++) {
        if (view->shape[k] <= 1) lst[k] = 0;
        else CT__DECOMPOSE(view->strides[k], lst[k]);
    }
#undef CT__DECOMPOSE
    return 0;
}

/* Gives view v a fresh history: an as_strided view of its base's current history. */
static int ct__regen_view_grad_fn(ct_tensor *v) {
    ct_tensor *base = v->base;
    int s = ct_scope_begin();
    int prev = ct_set_grad_enabled(1);
    ct_tensor *tmp = ct_as_strided(base, v->ndim, v->shape, v->strides, v->offset);
    ct_set_grad_enabled(prev);
    if (!tmp) { ct_scope_end(s); return -1; }
    if (v->flags & CT__F_RETAINS_GRAD) ct__remove_retain_hook(v);
    if (v->grad_fn && !(v->flags & CT__F_WEAK_GRAD_FN)) ct__node_decref(v->grad_fn);
    v->grad_fn = tmp->grad_fn ? ct__node_incref(tmp->grad_fn) : NULL;
    v->out_nr = 0;
    v->flags &= ~CT__F_WEAK_GRAD_FN;
    if (v->grad_fn) v->flags |= CT__F_REQUIRES_GRAD;
    if ((v->flags & CT__F_RETAINS_GRAD) && v->grad_fn) {
        ct__hook *h = (ct__hook *)CT_MALLOC(sizeof(ct__hook));
        if (h) {
            memset(h, 0, sizeof *h);
            h->retain = v;
            h->next = v->grad_fn->pre_hooks;
            v->grad_fn->pre_hooks = h;
        }
    }
    v->view_version = CT__LOAD(&v->storage->version);
    ct_scope_end(s);
    return 0;
}

static ct_tensor *ct__validate_grad(ct__node *n, int i, ct_tensor *g);
static void ct__node_decref_void(void *p) { ct__node_decref((ct__node *)p); }
static int ct__bw_copyslices(ct__node *cs, ct_tensor *const *gout, ct_tensor **gin);

/* fn: the node of the in-place op on `view` (NULL: a non-differentiable write,
   whose region gets a zero gradient). */
static int ct__copyslices(ct_tensor *view, ct__node *fn) {
    ct_tensor *base = view->base;
    int64_t lst[CT_MAX_DIMS], loff = 0;
    if (ct__logical_geometry(base, view, lst, &loff)) return -1;
    int nin = fn ? fn->nin : 1;
    ct__node *cs = ct__node_new(CT__NODE_COPYSLICES, nin, 1, 0, NULL);
    if (!cs) return -1;
    cs->seq = ct__tls_get()->seq_counter++;
    cs->custom_bw = ct__bw_copyslices;
    if (fn) {
        cs->ctx = ct__node_incref(fn);
        cs->ctx_free = ct__node_decref_void;
    }
    int topo = 0;
    ct__tmeta_of(&cs->in_meta[0], base);
    if (base->flags & CT__F_REQUIRES_GRAD) {
        if (ct__edge_of(base, &cs->next[0])) { ct__node_destroy_now(cs); return -1; }
        ct__node_incref(cs->next[0].fn);
        topo = cs->next[0].fn->topo + 1;
    }
    for (int i = 1; i < nin; i++) {
        cs->next[i] = fn->next[i];
        cs->in_meta[i] = fn->in_meta[i];
        if (cs->next[i].fn) {
            ct__node_incref(cs->next[i].fn);
            if (cs->next[i].fn->topo + 1 > topo) topo = cs->next[i].fn->topo + 1;
        }
    }
    cs->topo = topo;
    ct__tmeta_of(&cs->out_meta[0], base);
    cs->attrs.i[0] = view->ndim;
    cs->attrs.i[1] = loff;
    for (int k = 0; k < view->ndim; k++) { cs->attrs.v[k] = view->shape[k]; cs->attrs.v[CT_MAX_DIMS + k] = lst[k]; }
    /* install on the base (rebasing its history) */
    if (base->flags & CT__F_RETAINS_GRAD) ct__remove_retain_hook(base);
    if (base->grad_fn && !(base->flags & CT__F_WEAK_GRAD_FN)) ct__node_decref(base->grad_fn);
    base->grad_fn = ct__node_incref(cs);
    base->out_nr = 0;
    base->flags = (base->flags | CT__F_REQUIRES_GRAD) & ~CT__F_WEAK_GRAD_FN;
    if (base->flags & CT__F_RETAINS_GRAD) {
        ct__hook *h = (ct__hook *)CT_MALLOC(sizeof(ct__hook));
        if (h) {
            memset(h, 0, sizeof *h);
            h->retain = base;
            h->next = cs->pre_hooks;
            cs->pre_hooks = h;
        }
    }
    return ct__regen_view_grad_fn(view);
}

static int ct__bw_copyslices(ct__node *cs, ct_tensor *const *gout, ct_tensor **gin) {
    ct__node *fn = (ct__node *)cs->ctx;
    const ct__attrs *a = &cs->attrs;
    ct__tmeta *bm = &cs->in_meta[0];
    int vnd = (int)a->i[0];
    ct_tensor *gc = ct_contiguous(gout[0]);
    if (!gc) return -1;
    ct_tensor *gslice = ct_as_strided(gc, vnd, a->v, a->v + CT_MAX_DIMS, gc->offset + a->i[1]);
    if (!gslice) return -1;
    ct_tensor *res0 = NULL;
    if (fn) {
        ct_tensor *fgin_small[8], **fgin = fn->nin <= 8 ? fgin_small : CT__NEW_ARRAY(ct_tensor *, fn->nin);
        if (!fgin) return ct__failed(CT_ERR_MEMORY, "autograd: out of memory");
        for (int i = 0; i < fn->nin; i++) fgin[i] = NULL;
        ct__backward_fn bw = fn->custom_bw ? fn->custom_bw : ct__opdef_get(fn->op)->backward;
        int rc = bw(fn, &gslice, fgin);
        for (int i = 0; i < fn->nin && !rc; i++) {
            if (!fgin[i] || (i > 0 && !CT__NEEDS(cs, i))) { fgin[i] = NULL; continue; }
            fgin[i] = ct__validate_grad(fn, i, fgin[i]);
            if (!fgin[i]) rc = -1;
        }
        if (!rc) {
            res0 = fgin[0];
            for (int i = 1; i < cs->nin; i++) gin[i] = fgin[i];
        }
        if (fgin != fgin_small) CT_FREE(fgin);
        if (rc) return -1;
    }
    if (CT__NEEDS(cs, 0)) {
        ct_tensor *delta = res0 ? ct_sub(res0, gslice) : ct_neg(gslice);
        ct_tensor *sc = ct__strided_scatter(delta, bm->ndim, bm->shape, vnd, a->v, a->v + CT_MAX_DIMS, a->i[1]);
        if (!(gin[0] = ct_add(gc, sc))) return -1;
    }
    return 0;
}

/* ============================================================================
   The autograd engine (PyTorch: torch/csrc/autograd/engine.cpp)
   Dependencies are counted over the part of the graph that must run; nodes run
   from a ready queue, highest sequence number first; gradients that reach a
   node from several edges are summed in its input buffer before it runs.
   ========================================================================== */
typedef struct ct__ginfo {
    ct__node *node;
    int32_t deps;
    int32_t needed;             /* must execute */
    int32_t visited;
    int32_t state;              /* DFS: 0 new, 1 on stack, 2 done */
    ct_tensor **buf;            /* [nout] gradient sums, owned */
    int32_t *capture;           /* [nout] index into the captures, -1 when none */
    ct_tensor *buf1;            /* buf and capture of a node with one output */
    int32_t capture1;
} ct__ginfo;

typedef struct ct__gtask {
    ct__ginfo *info;
    int ninfo, capinfo;
    int *table;                 /* open addressing: node -> info index + 1 */
    int tcap;
    int *heap;                  /* ready queue of info indices */
    int nheap, capheap;
    int create_graph, keep_graph, accumulate;
} ct__gtask;

static uint64_t ct__ptr_hash(const void *p) {
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}
static int ct__gtask_find(ct__gtask *g, const ct__node *n) {
    if (!g->tcap) return -1;
    uint64_t h = ct__ptr_hash(n) & (uint64_t)(g->tcap - 1);
    while (g->table[h]) {
        if (g->info[g->table[h] - 1].node == n) return g->table[h] - 1;
        h = (h + 1) & (uint64_t)(g->tcap - 1);
    }
    return -1;
}
static int ct__gtask_add(ct__gtask *g, ct__node *n) {
    int idx = ct__gtask_find(g, n);
    if (idx >= 0) return idx;
    if ((g->ninfo + 1) * 2 > g->tcap) {
        int nc = g->tcap ? g->tcap * 2 : 64;
        int *nt = (int *)CT_MALLOC(sizeof(int) * (size_t)nc);
        if (!nt) return -1;
        memset(nt, 0, sizeof(int) * (size_t)nc);
        for (int i = 0; i < g->ninfo; i++) {
            uint64_t h = ct__ptr_hash(g->info[i].node) & (uint64_t)(nc - 1);
            while (nt[h]) h = (h + 1) & (uint64_t)(nc - 1);
            nt[h] = i + 1;
        }
        CT_FREE(g->table);
        g->table = nt;
        g->tcap = nc;
    }
    ct__ginfo *old = g->info;
    if (ct__grow((void **)&g->info, &g->capinfo, g->ninfo + 1, sizeof(ct__ginfo))) return -1;
    if (g->info != old)   /* moved: the inline buffers moved with it */
        for (int i = 0; i < g->ninfo; i++)
            if (g->info[i].node->nout <= 1) { g->info[i].buf = &g->info[i].buf1; g->info[i].capture = &g->info[i].capture1; }
    ct__ginfo *in = &g->info[g->ninfo];
    memset(in, 0, sizeof *in);
    in->node = n;
    if (n->nout <= 1) {
        in->buf = &in->buf1;
        in->capture = &in->capture1;
    } else {
        in->buf = (ct_tensor **)CT_MALLOC(sizeof(ct_tensor *) * (size_t)n->nout);
        in->capture = (int32_t *)CT_MALLOC(sizeof(int32_t) * (size_t)n->nout);
        if (!in->buf || !in->capture) { CT_FREE(in->buf); CT_FREE(in->capture); return -1; }
    }
    for (int j = 0; j < n->nout; j++) { in->buf[j] = NULL; in->capture[j] = -1; }
    uint64_t h = ct__ptr_hash(n) & (uint64_t)(g->tcap - 1);
    while (g->table[h]) h = (h + 1) & (uint64_t)(g->tcap - 1);
    g->table[h] = ++g->ninfo;
    return g->ninfo - 1;
}
static void ct__gtask_free(ct__gtask *g) {
    for (int i = 0; i < g->ninfo; i++) {
        ct__node *n = g->info[i].node;
        for (int j = 0; j < n->nout; j++)
            if (g->info[i].buf[j]) ct__decref(g->info[i].buf[j]);
        if (n->nout > 1) {
            CT_FREE(g->info[i].buf);
            CT_FREE(g->info[i].capture);
        }
        /* an AccumulateGrad made here for a leaf no graph node leads to (a root that is a
           leaf, an unused input): no edge owns it, and it holds its leaf, so the two
           would never be freed */
        if (n->op == CT__NODE_ACC && CT__LOAD(&n->refcount) == 0) ct__node_destroy_now(n);
    }
    CT_FREE(g->info);
    CT_FREE(g->table);
    CT_FREE(g->heap);
}
/* ready queue: max-heap on sequence number */
static int ct__heap_less(ct__gtask *g, int a, int b) { return g->info[a].node->seq < g->info[b].node->seq; }
static int ct__heap_push(ct__gtask *g, int idx) {
    if (ct__grow((void **)&g->heap, &g->capheap, g->nheap + 1, sizeof(int))) return -1;
    int i = g->nheap++;
    g->heap[i] = idx;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!ct__heap_less(g, g->heap[p], g->heap[i])) break;
        int tmp = g->heap[p]; g->heap[p] = g->heap[i]; g->heap[i] = tmp;
        i = p;
    }
    return 0;
}
static int ct__heap_pop(ct__gtask *g) {
    int top = g->heap[0];
    g->heap[0] = g->heap[--g->nheap];
    int i = 0;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < g->nheap && ct__heap_less(g, g->heap[m], g->heap[l])) m = l;
        if (r < g->nheap && ct__heap_less(g, g->heap[m], g->heap[r])) m = r;
        if (m == i) break;
        int tmp = g->heap[m]; g->heap[m] = g->heap[i]; g->heap[i] = tmp;
        i = m;
    }
    return top;
}

/* Gradient checks PyTorch's validate_outputs does: shape (sum to the input's
   shape when it broadcast), dtype (cast to the input's). Returns a new tensor
   in the current scope (or g itself). */
static ct_tensor *ct__validate_grad(ct__node *n, int i, ct_tensor *g) {
    const ct__tmeta *m = &n->in_meta[i];
    int same = g->ndim == m->ndim;
    for (int d = 0; same && d < m->ndim; d++) same = g->shape[d] == m->shape[d];
    if (!same) {
        /* expandable from the input's shape? */
        int ok = g->ndim >= m->ndim;
        for (int d = 0; ok && d < m->ndim; d++) {
            int64_t gs = g->shape[g->ndim - m->ndim + d];
            ok = m->shape[d] == gs || m->shape[d] == 1;
        }
        if (!ok)
            return ct__fail(CT_ERR_AUTOGRAD, "Function %s returned an invalid gradient at index %d - got %s but expected shape compatible with %s",
                            ct__node_name(n), i, CT__SHAPE(g), ct__fmt_shape(m->ndim, m->shape).s);
        g = ct_sum_to_size_n(g, m->ndim, m->shape);
        if (!g) return NULL;
    }
    if (g->dtype != m->dtype) g = ct_to(g, m->dtype);
    /* PyTorch's validate_outputs: a 0-d gradient moves to the input's device; any
       other on the wrong device is an error (a kernel would read the wrong memory) */
    if (g && !ct_device_eq(g->device, m->device)) {
        char a[24], b[24];
        if (g->ndim != 0)
            return ct__fail(CT_ERR_DEVICE, "Function %s returned an invalid gradient at index %d - expected device %s but got %s",
                            ct__node_name(n), i, ct_device_str(m->device, a, sizeof a), ct_device_str(g->device, b, sizeof b));
        g = ct_to_device(g, m->device);
    }
    return g;
}

static ct_tensor *ct__sum_grads(ct__gtask *g, ct_tensor *a, ct_tensor *b) {
    /* a and b are owned references; returns an owned reference */
    int s = ct_scope_begin();
    int prev = ct_set_grad_enabled(g->create_graph);
    ct_tensor *r = ct_add(a, b);
    ct_set_grad_enabled(prev);
    if (r) ct__incref(r);
    ct_scope_end(s);
    ct__decref(a);
    ct__decref(b);
    return r;
}

static int ct__run_hooks(ct__hook *h, int out_nr, ct_tensor **slot) {
    for (; h; h = h->next) {
        if (h->out_nr != out_nr || !*slot) continue;
        if (h->retain) {
            ct_tensor *x = h->retain, *gcur = *slot;
            /* retain_grad: .grad = grad (cloned), or accumulated */
            int s = ct_scope_begin();
            ct_tensor *ng = x->grad ? ct_add(x->grad, gcur) : ct__clone_detached(gcur);
            if (!ng) { ct_scope_end(s); return -1; }
            if (!x->grad) { ng = ct__own(ng); if (!ng) { ct_scope_end(s); return -1; } }
            ct__incref(ng);
            ct_scope_end(s);
            if (x->grad) ct__decref(x->grad);
            x->grad = ng;
            continue;
        }
        int s = ct_scope_begin();
        ct_tensor *r = h->fn(*slot, h->user);
        if (r && r != *slot) {
            ct__incref(r);
            ct__decref(*slot);
            *slot = r;
        }
        ct_scope_end(s);
        if (!r && ct_last_error_code() != CT_OK && ct_last_error_code() != CT_ERR_NULL) { /* hook reported an error */ }
    }
    return 0;
}

/* PyTorch's layout contract for .grad (utils::obeys_layout_contract): a dense leaf's
   gradient has the leaf's strides (size-1 dims aside), another leaf's is contiguous;
   a gradient that does not is copied into that layout (a channels-last leaf gets a
   channels-last .grad, a contiguous weight a contiguous one, whatever the op gave) */
static int ct__grad_layout_ok(const ct_tensor *g, const ct_tensor *v) {
    if (g->ndim != v->ndim || !ct__is_dense(v)) return ct__is_contig(g);
    for (int d = 0; d < g->ndim; d++)
        if (g->shape[d] != 1 ? g->strides[d] != v->strides[d] : g->strides[d] == 0) return 0;
    return 1;
}
static int ct__copy_into(ct_tensor *dst, const ct_tensor *src);
static ct_tensor *ct__grad_in_layout(const ct_tensor *g, const ct_tensor *v) {
    int like = g->ndim == v->ndim && ct__is_dense(v);
    ct_tensor *y = ct__alloc(g->dtype, g->ndim, g->shape, like ? v->strides : NULL, g->device);
    if (y && ct__copy_into(y, g)) { ct__decref(y); return NULL; }
    return y;
}
/* AccumulateGrad: leaf.grad = g, or leaf.grad += g (PyTorch: accumulate_grad.h). */
static int ct__accumulate(ct__gtask *g, ct__node *n, ct_tensor *grad) {
    ct_tensor *leaf = n->leaf;
    if (!leaf) return 0;
    if (leaf->hooks && ct__run_hooks(leaf->hooks, 0, &grad)) return -1;
    int s = ct_scope_begin();
    ct_tensor *ng;
    if (!leaf->grad) {
        /* steal when nobody else can see it, else clone */
        int fits = ct__grad_layout_ok(grad, leaf);
        if (!g->create_graph && fits && CT__LOAD(&grad->refcount) == 1 && CT__LOAD(&grad->storage->refcount) == 1 && !grad->grad_fn) {
            ng = ct__incref(grad);
        } else if (g->create_graph) {
            ng = CT__LOAD(&grad->refcount) == 1 ? ct__incref(grad) : ct_clone(grad);
            if (ng && ng != grad) ct__incref(ng);
        } else {
            ng = ct__grad_in_layout(grad, leaf);
        }
        if (!ng) { ct_scope_end(s); return -1; }
        leaf->grad = ng;
    } else if (g->create_graph || leaf->grad->grad_fn) {
        ng = ct_add(leaf->grad, grad);
        if (!ng) { ct_scope_end(s); return -1; }
        ct__incref(ng);
        ct__decref(leaf->grad);
        leaf->grad = ng;
    } else {
        int prev = ct_set_grad_enabled(0);
        ct_tensor *r = ct_add_(leaf->grad, grad);
        ct_set_grad_enabled(prev);
        if (!r) { ct_scope_end(s); return -1; }
    }
    ct_scope_end(s);
    return 0;
}

/* Marks which nodes must run (those that lead to a target) and counts
   dependencies among them. Iterative DFS; pruned by topological number. */
static int ct__gtask_prepare(ct__gtask *g, int nroots, int *root_idx, int filtered, int min_topo) {
    int *stack = NULL, nst = 0, cst = 0;
    int rc = 0;
    for (int r = 0; r < nroots && !rc; r++) {
        int ri = root_idx[r];
        if (g->info[ri].state) continue;
        if (ct__grow((void **)&stack, &cst, nst + 1, sizeof(int))) { rc = -1; break; }
        stack[nst++] = ri;
        g->info[ri].state = 1;
        while (nst && !rc) {
            int cur = stack[nst - 1];
            ct__node *n = g->info[cur].node;
            /* find the next unvisited child */
            int pushed = 0;
            for (int e = g->info[cur].visited; e < n->nin; e++) {
                ct__node *ch = n->next[e].fn;
                g->info[cur].visited = e + 1;
                if (!ch) continue;
                if (filtered && ch->topo < min_topo) continue;  /* cannot lead to a target */
                int ci = ct__gtask_add(g, ch);
                if (ci < 0) { rc = -1; break; }
                if (g->info[ci].state == 0) {
                    if (ct__grow((void **)&stack, &cst, nst + 1, sizeof(int))) { rc = -1; break; }
                    g->info[ci].state = 1;
                    stack[nst++] = ci;
                    pushed = 1;
                    break;
                }
            }
            if (pushed || rc) continue;
            /* all children done: needed if any child is needed or captured */
            if (filtered) {
                for (int e = 0; e < n->nin && !g->info[cur].needed; e++) {
                    ct__node *ch = n->next[e].fn;
                    if (!ch) continue;
                    int ci = ct__gtask_find(g, ch);
                    if (ci < 0) continue;
                    if (g->info[ci].needed || g->info[ci].capture[n->next[e].input_nr] >= 0) g->info[cur].needed = 1;
                }
            }
            g->info[cur].state = 2;
            nst--;
        }
    }
    CT_FREE(stack);
    if (rc) { ct_set_error(CT_ERR_MEMORY, "autograd: out of memory"); return -1; }
    for (int i = 0; i < g->ninfo; i++) {
        if (!filtered) g->info[i].needed = 1;
    }
    for (int i = 0; i < g->ninfo; i++) {
        if (!g->info[i].needed) continue;
        ct__node *n = g->info[i].node;
        for (int e = 0; e < n->nin; e++) {
            if (!n->next[e].fn) continue;
            int ci = ct__gtask_find(g, n->next[e].fn);
            if (ci >= 0) g->info[ci].deps++;
        }
    }
    return 0;
}

/* Runs the graph. capture_nodes/slots: where to capture gradients (autograd.grad,
   or non-leaf inputs of backward(inputs=)); captured[k] gets owned references. */
static int ct__engine(int nroots, ct_tensor *const *roots, ct_tensor *const *grad_outputs, int keep_graph,
                      int create_graph, int accumulate, int ntargets, ct_tensor *const *targets,
                      ct_tensor **captured, const char *api) {
    ct__gtask g;
    int min_topo = INT_MAX;
    ct__tls_get()->names_off++;   /* gradients are unnamed, as PyTorch's */
    memset(&g, 0, sizeof g);
    g.create_graph = create_graph;
    g.keep_graph = keep_graph;
    g.accumulate = accumulate;
    int rc = -1;
    int *root_idx = CT__NEW_ARRAY(int, nroots);
    int *root_slot = CT__NEW_ARRAY(int, nroots);
    /* the nodes of the roots and targets, held for the run: a leaf's AccumulateGrad
       made here for a target the graph does not reach is held by nothing else, and
       is freed (releasing the leaf) when the run lets it go */
    ct__node **held = CT__NEW_ARRAY(ct__node *, nroots + ntargets + 1);
    int nheld = 0;
    if (!root_idx || !root_slot || !held) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", api); goto done; }
    for (int k = 0; k < ntargets; k++) captured[k] = NULL;
    /* roots */
    for (int r = 0; r < nroots; r++) {
        ct_tensor *x = roots[r];
        if (!x) { ct__null_arg(api, r); goto done; }
        if (!(x->flags & CT__F_REQUIRES_GRAD)) {
            ct_set_error(CT_ERR_AUTOGRAD, "%s: element %d of tensors does not require grad and does not have a grad_fn", api, r);
            goto done;
        }
        ct__edge e;
        if (ct__edge_of(x, &e)) goto done;
        held[nheld++] = ct__node_incref(e.fn);
        int idx = ct__gtask_add(&g, e.fn);
        if (idx < 0) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", api); goto done; }
        root_idx[r] = idx;
        root_slot[r] = e.input_nr;
    }
    /* targets */
    for (int k = 0; k < ntargets; k++) {
        ct_tensor *x = targets[k];
        if (!x) { ct__null_arg(api, nroots + k); goto done; }
        if (!(x->flags & CT__F_REQUIRES_GRAD)) {
            ct_set_error(CT_ERR_AUTOGRAD, "%s: One of the differentiated Tensors does not require grad", api);
            goto done;
        }
        ct__edge e;
        if (ct__edge_of(x, &e)) goto done;
        held[nheld++] = ct__node_incref(e.fn);
        int idx = ct__gtask_add(&g, e.fn);
        if (idx < 0) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", api); goto done; }
        if (accumulate && e.fn->op == CT__NODE_ACC) g.info[idx].needed = 1;   /* backward(inputs=[leaf]) */
        else g.info[idx].capture[e.input_nr] = k;
        if (e.fn->topo < min_topo) min_topo = e.fn->topo;
    }
    if (ct__gtask_prepare(&g, nroots, root_idx, ntargets > 0, ntargets > 0 ? min_topo : 0)) goto done;
    /* seed the root gradients */
    for (int r = 0; r < nroots; r++) {
        ct_tensor *x = roots[r], *go = grad_outputs ? grad_outputs[r] : NULL;
        if (go) {
            if (!ct_same_shape(go, x)) {
                ct_set_error(CT_ERR_SHAPE, "%s: Mismatch in shape: grad_output[%d] has a shape of torch.Size(%s) and output[%d] has a shape of torch.Size(%s).",
                             api, r, CT__SHAPE(go), r, CT__SHAPE(x));
                goto done;
            }
            if (!ct_device_eq(go->device, x->device)) {   /* as the gradients of nodes (ct__validate_grad) */
                char a[24], b[24];
                if (go->ndim != 0) {
                    ct_set_error(CT_ERR_DEVICE, "%s: invalid gradient at index %d - expected device %s but got %s", api, r,
                                 ct_device_str(x->device, a, sizeof a), ct_device_str(go->device, b, sizeof b));
                    goto done;
                }
                int s = ct_scope_begin();
                go = ct_to_device(go, x->device);
                if (go) ct__incref(go);
                ct_scope_end(s);
                if (!go) goto done;
            } else {
                ct__incref(go);
            }
        } else {
            if (ct_numel(x) != 1) {
                ct_set_error(CT_ERR_AUTOGRAD, "%s: grad can be implicitly created only for scalar outputs", api);
                goto done;
            }
            int s = ct_scope_begin();
            go = ct_ones_like(x);
            if (go) ct__incref(go);
            ct_scope_end(s);
            if (!go) goto done;
        }
        ct_tensor **slot = &g.info[root_idx[r]].buf[root_slot[r]];
        *slot = *slot ? ct__sum_grads(&g, *slot, go) : go;
        if (!*slot) goto done;
    }
    for (int r = 0; r < nroots; r++) {
        ct__ginfo *in = &g.info[root_idx[r]];
        if (in->deps == 0 && in->state != 3) {
            in->state = 3;  /* queued */
            if (ct__heap_push(&g, root_idx[r])) goto done;
        }
    }
    /* run */
    while (g.nheap) {
        int cur = ct__heap_pop(&g);
        ct__ginfo *in = &g.info[cur];
        ct__node *n = in->node;
        /* tensor hooks registered on this node's outputs, then captures */
        if (n->pre_hooks)
            for (int j = 0; j < n->nout; j++)
                if (in->buf[j] && ct__run_hooks(n->pre_hooks, j, &in->buf[j])) goto done;
        for (int j = 0; j < n->nout; j++) {
            int k = in->capture[j];
            if (k >= 0 && in->buf[j]) {
                if (accumulate) {
                    /* backward(inputs=[non-leaf]): accumulate into its .grad */
                    ct_tensor *x = targets[k];
                    int s = ct_scope_begin();
                    ct_tensor *ng = x->grad ? ct_add(x->grad, in->buf[j]) : ct__clone_detached(in->buf[j]);
                    if (ng && !x->grad) ng = ct__own(ng);
                    if (ng) ct__incref(ng);
                    ct_scope_end(s);
                    if (!ng) goto done;
                    if (x->grad) ct__decref(x->grad);
                    x->grad = ng;
                } else {
                    captured[k] = ct__incref(in->buf[j]);
                }
            }
        }
        if (in->needed) {
            if (n->op == CT__NODE_ACC) {
                if (in->buf[0] && ct__accumulate(&g, n, in->buf[0])) goto done;
                ct__tls_get()->nodes_run++;
            } else {
                int any = 0;
                for (int j = 0; j < n->nout; j++) any |= in->buf[j] != NULL;
                ct_tensor *gin_small[8];
                ct_tensor **gin = n->nin <= 8 ? gin_small : CT__NEW_ARRAY(ct_tensor *, n->nin);
                if (!gin) { ct_set_error(CT_ERR_MEMORY, "autograd: out of memory"); goto done; }
                for (int i = 0; i < n->nin; i++) gin[i] = NULL;
                ct__node *wrapped = n->op == CT__NODE_COPYSLICES ? (ct__node *)n->ctx : NULL;
                if (any) {
                    if ((n->released && n->nsaved > 0) || (wrapped && wrapped->released && wrapped->nsaved > 0)) {
                        ct_set_error(CT_ERR_AUTOGRAD,
                                     "Trying to backward through the graph a second time (or directly access saved tensors after they have "
                                     "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
                                     "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
                                     "if you need to access saved tensors after calling backward.");
                        if (gin != gin_small) CT_FREE(gin);
                        goto done;
                    }
                    int s = ct_scope_begin();
                    int prev = ct_set_grad_enabled(create_graph);
                    /* missing output gradients of multi-output nodes are zeros */
                    for (int j = 0; j < n->nout; j++) {
                        if (!in->buf[j]) {
                            ct__tmeta *m = &n->out_meta[j];
                            if (!CT__ISFLOAT(m->dtype) && !CT__ISCOMPLEX(m->dtype)) continue;
                            ct_tensor *z = ct_zeros_on_n(m->device, m->dtype, m->ndim, m->shape);
                            if (!z) break;
                            in->buf[j] = ct__incref(z);
                        }
                    }
                    ct__backward_fn bw = n->custom_bw ? n->custom_bw : (n->op >= 0 ? ct__opdef_get(n->op)->backward : NULL);
                    int brc = bw ? bw(n, in->buf, gin) : ct__failed(CT_ERR_AUTOGRAD, "the derivative for '%s' is not implemented", ct__node_name(n));
                    for (int i = 0; i < n->nin && !brc; i++) {
                        if (!gin[i] || !n->next[i].fn) { gin[i] = NULL; continue; }
                        ct_tensor *v = ct__validate_grad(n, i, gin[i]);
                        if (!v) { brc = -1; break; }
                        gin[i] = v;
                    }
                    ct_set_grad_enabled(prev);
                    for (int i = 0; i < n->nin; i++) {
                        if (brc) gin[i] = NULL;
                        else if (gin[i]) ct__incref(gin[i]);
                    }
                    ct_scope_end(s);
                    if (brc) {
                        if (gin != gin_small) CT_FREE(gin);
                        goto done;
                    }
                    if (!keep_graph) {
                        ct__node_release_saved(n);
                        if (wrapped) ct__node_release_saved(wrapped);
                    }
                    ct__tls_get()->nodes_run++;
                }
                /* hand gradients to the next nodes */
                for (int i = 0; i < n->nin; i++) {
                    ct__node *nx = n->next[i].fn;
                    if (!nx) continue;
                    int ci = ct__gtask_find(&g, nx);
                    if (ci < 0) { if (gin[i]) ct__decref(gin[i]); continue; }
                    ct__ginfo *cin = &g.info[ci];
                    if (gin[i]) {
                        ct_tensor **slot = &cin->buf[n->next[i].input_nr];
                        *slot = *slot ? ct__sum_grads(&g, *slot, gin[i]) : gin[i];
                        if (!*slot) { if (gin != gin_small) CT_FREE(gin); goto done; }
                    }
                    if (--cin->deps == 0 && cin->state != 3) {
                        cin->state = 3;
                        if (ct__heap_push(&g, ci)) { if (gin != gin_small) CT_FREE(gin); goto done; }
                    }
                }
                if (gin != gin_small) CT_FREE(gin);
            }
        } else {
            /* a node that only captures: its children get nothing from it */
        }
        for (int j = 0; j < n->nout; j++)
            if (in->buf[j]) { ct__decref(in->buf[j]); in->buf[j] = NULL; }
    }
    rc = 0;
done:
    if (rc) {
        for (int k = 0; k < ntargets; k++)
            if (captured[k]) { ct__decref(captured[k]); captured[k] = NULL; }
    }
    ct__gtask_free(&g);
    for (int k = 0; k < nheld; k++) ct__node_decref(held[k]);
    CT_FREE(held);
    CT_FREE(root_idx);
    CT_FREE(root_slot);
    ct__tls_get()->names_off--;
    return rc;
}

CTENSOR_API int64_t ct_autograd_nodes_run(void) { return ct__tls_get()->nodes_run; }
CTENSOR_API ct_status ct_backward(ct_tensor *root) {
    return ct_backward_ex(1, &root, NULL, NULL);
}
CTENSOR_API ct_status ct_backward_ex(int nroots, ct_tensor *const *roots, ct_tensor *const *grad_outputs,
                                     const ct_backward_options *opt) {
    ct_backward_options o;
    memset(&o, 0, sizeof o);
    if (opt) o = *opt;
    if (nroots <= 0 || !roots) {
        ct_set_error(CT_ERR_ARG, "backward: no tensors given");
        return CT_ERR_ARG;
    }
    if (o.ninputs > 0 && !o.inputs) {
        ct_set_error(CT_ERR_ARG, "backward: inputs is NULL but ninputs is %d", o.ninputs);
        return CT_ERR_ARG;
    }
    ct_tensor **cap = o.ninputs > 0 ? CT__NEW_ARRAY(ct_tensor *, o.ninputs) : NULL;
    if (o.ninputs > 0 && !cap) { ct_set_error(CT_ERR_MEMORY, "backward: out of memory"); return CT_ERR_MEMORY; }
    int rc = ct__engine(nroots, roots, grad_outputs, o.retain_graph || o.create_graph, o.create_graph, 1,
                        o.ninputs, o.inputs, cap, "backward");
    CT_FREE(cap);
    return rc ? ct_last_error_code() : CT_OK;
}
CTENSOR_API ct_status ct_autograd_grad(int noutputs, ct_tensor *const *outputs, ct_tensor *const *grad_outputs,
                                       int ninputs, ct_tensor *const *inputs, ct_tensor **grads,
                                       const ct_grad_options *opt) {
    ct_grad_options o;
    memset(&o, 0, sizeof o);
    if (opt) o = *opt;
    if (noutputs <= 0 || !outputs || ninputs <= 0 || !inputs || !grads) {
        ct_set_error(CT_ERR_ARG, "autograd.grad: outputs, inputs and grads must be given");
        return CT_ERR_ARG;
    }
    int rc = ct__engine(noutputs, outputs, grad_outputs, o.retain_graph || o.create_graph, o.create_graph, 0,
                        ninputs, inputs, grads, "autograd.grad");
    if (rc) return ct_last_error_code();
    for (int k = 0; k < ninputs; k++) {
        if (!grads[k]) {
            if (!o.allow_unused) {
                ct_set_error(CT_ERR_AUTOGRAD, "autograd.grad: One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.");
                for (int q = 0; q < ninputs; q++) grads[q] = NULL;
                return CT_ERR_AUTOGRAD;
            }
            if (o.materialize_grads) grads[k] = ct_zeros_like(inputs[k]);
            continue;
        }
        /* hand ownership to the caller's scope; a grad without graph is detached */
        ct_tensor *gk = grads[k];
        if (!o.create_graph && gk->grad_fn) {
            grads[k] = ct_detach(gk);
            ct__decref(gk);
        } else if (gk->scope_slot < 0) {
            grads[k] = ct__own(gk);          /* the capture's reference moves to the scope */
        } else {
            ct__decref(gk);                  /* already listed (a caller's tensor passed through) */
        }
    }
    return CT_OK;
}

/* ============================================================================
   The elementwise iterator (PyTorch: TensorIterator)
   Broadcasts operands to one shape, orders dimensions by the output's memory
   order, drops size-1 dims and coalesces contiguous ones, then calls a kernel's
   inner loop once per innermost row; large iterations are split over threads.
   ========================================================================== */
#define CT__ITER_MAXOP 5
#define CT__GRAIN 32768
/* Data-dependent kernel errors (integer division by zero) are flagged in a
   thread-local variable that the kernel driver checks after the loops; the
   parallel driver folds its worker threads' flags into the caller's. */
static CT_THREAD_LOCAL int ct__kerr_tls;

/* ============================================================================
   The thread pool
   ========================================================================== */
/* ---- every parallel kernel runs here ----
   One pool for the whole library (CTENSOR_THREADS, or CTENSOR_OPENMP which implies
   it): nthreads - 1 worker threads, made on first use. ct__par_for(n, grain, fn, ctx)
   cuts [0, n) into chunks of at least `grain` items (a few per thread) and the calling
   thread and the workers claim chunks one at a time from a shared counter. The
   caller waits only for chunks that were claimed: a worker that the OS has not run
   yet (another process holds its core) finds nothing left when it wakes and goes back
   to sleep, so a busy core costs at most the caller doing all the work itself, never
   a wait for a thread that has not started (the failure of a fork-join team barrier:
   8 ms stalls per region beside a busy core). Idle workers spin about 50 us (back-to-back
   kernels then start at once), then sleep on a condition variable.
   Nested calls (from inside a chunk), calls from a second user thread while the pool
   is busy, 1 thread, and small n run fn(ctx, 0, n) inline on the caller.
   Kernel error flags (ct__kerr_tls) raised in a chunk reach the caller's flag. */
#if (defined(CTENSOR_OPENMP) || defined(CTENSOR_THREADS)) && defined(CT__HAVE_PTHREADS)
#  define CT__TPOOL 1
#endif
typedef void (*ct__par_fn)(void *ctx, int64_t lo, int64_t hi);
static CT__UNUSED CT_THREAD_LOCAL int ct__par_depth;   /* > 0 inside a chunk: nested calls run inline */
static int ct__nthreads_set;                /* ct_set_num_threads; 0: the default */

#ifdef CT__TPOOL
#include <time.h>
#include <sched.h>
#include <unistd.h>
#define CT__TPOOL_MAX 256
typedef struct ct__tpool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int made;                 /* workers started */
    int sleepers;             /* workers in pthread_cond_wait */
    int busy;                 /* a caller holds the pool (others run inline) */
    int want;                 /* workers taking part in the current job */
    uint32_t gen;             /* job generation: a worker waits for it to change */
    /* the current job: written by the caller before gen changes, stable until done */
    ct__par_fn fn;
    void *ctx;
    int64_t n, chunk, nchunks;
    uint64_t claim;           /* (gen << 32) | next chunk: claimed by CAS */
    int64_t done;             /* chunks finished */
    int waiting;              /* the caller sleeps on done_cv until done == nchunks */
    pthread_cond_t done_cv;
    int kerr;                 /* kernel error flags of the chunks */
} ct__tpool;
static ct__tpool ct__the_tpool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0, NULL, NULL, 0, 0, 0, 0, 0, 0, PTHREAD_COND_INITIALIZER, 0};

static double ct__tpool_now(void) {   /* C11's clock (CLOCK_MONOTONIC needs POSIX feature macros) */
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static inline void ct__cpu_relax(void) {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
    __builtin_ia32_pause();
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}
/* Claims and runs chunks of job generation g until none is left. */
static void ct__tpool_work(ct__tpool *p, uint32_t g) {
    for (;;) {
        uint64_t c = __atomic_load_n(&p->claim, __ATOMIC_ACQUIRE);
        if ((uint32_t)(c >> 32) != g) return;
        int64_t idx = (int64_t)(uint32_t)c;
        if (idx >= __atomic_load_n(&p->nchunks, __ATOMIC_RELAXED)) return;
        if (!__atomic_compare_exchange_n(&p->claim, &c, c + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) continue;
        /* claimed: job g cannot end before this chunk is done, so its fields hold */
        int64_t lo = idx * p->chunk, hi = lo + p->chunk < p->n ? lo + p->chunk : p->n;
        int mine = ct__kerr_tls;
        ct__kerr_tls = 0;
        ct__par_depth++;
        p->fn(p->ctx, lo, hi);
        ct__par_depth--;
        if (ct__kerr_tls) __atomic_fetch_or(&p->kerr, ct__kerr_tls, __ATOMIC_RELAXED);
        ct__kerr_tls = mine;
        /* (seq_cst with the caller's waiting/done pair: one of the two sees the other) */
        if (__atomic_add_fetch(&p->done, 1, __ATOMIC_SEQ_CST) == __atomic_load_n(&p->nchunks, __ATOMIC_RELAXED) && __atomic_load_n(&p->waiting, __ATOMIC_SEQ_CST)) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_broadcast(&p->done_cv);
            pthread_mutex_unlock(&p->mu);
        }
    }
}
static void *ct__tpool_main(void *arg) {
    ct__tpool *p = &ct__the_tpool;
    int id = (int)(intptr_t)arg;
    uint32_t seen = __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE);
    for (;;) {
        /* spin a little (the next kernel usually follows at once), then sleep */
        uint32_t g = __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE);
        if (g == seen) {
            double t0 = ct__tpool_now();
            for (int i = 1; (g = __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE)) == seen; i++) {
                ct__cpu_relax();
                if ((i & 255) == 0 && ct__tpool_now() - t0 > 50e-6) break;
            }
        }
        if (g == seen) {
            pthread_mutex_lock(&p->mu);
            p->sleepers++;
            while ((g = __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE)) == seen) pthread_cond_wait(&p->cv, &p->mu);
            p->sleepers--;
            pthread_mutex_unlock(&p->mu);
        }
        seen = g;
        if (id < __atomic_load_n(&p->want, __ATOMIC_ACQUIRE)) ct__tpool_work(p, g);
    }
    return NULL;
}
static void ct__tpool_atfork_child(void) {
    /* the child has no workers: start over (the caller's job, if any, ended in the parent) */
    ct__tpool *p = &ct__the_tpool;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    p->waiting = 0;
    p->made = p->sleepers = p->busy = p->want = 0;
}
static int ct__tpool_default_threads(void) {
#ifdef CTENSOR_OPENMP
    return omp_get_max_threads();   /* OMP_NUM_THREADS and omp_set_num_threads still count */
#else
    static int n;   /* read once (racing first callers compute the same value) */
    int v = __atomic_load_n(&n, __ATOMIC_RELAXED);
    if (!v) {
        const char *e = getenv("CT_NUM_THREADS");
        if (!e || atoi(e) < 1) e = getenv("OMP_NUM_THREADS");
        long m = e ? atol(e) : 0;
        if (m < 1) m = sysconf(_SC_NPROCESSORS_ONLN);
        v = m < 1 ? 1 : m > CT__TPOOL_MAX ? CT__TPOOL_MAX : (int)m;
        __atomic_store_n(&n, v, __ATOMIC_RELAXED);
    }
    return v;
#endif
}
static int ct__par_nthreads(void) {
    int n = __atomic_load_n(&ct__nthreads_set, __ATOMIC_RELAXED);
    if (n < 1) n = ct__tpool_default_threads();
    return n < 1 ? 1 : n > CT__TPOOL_MAX ? CT__TPOOL_MAX : n;
}
/* Starts workers up to nw (under p->mu). Returns how many there are. */
static int ct__tpool_grow(ct__tpool *p, int nw) {
    static int atfork_done;
    if (!atfork_done) { atfork_done = 1; pthread_atfork(NULL, NULL, ct__tpool_atfork_child); }
    while (p->made < nw) {
        pthread_t th;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        int rc = pthread_create(&th, &at, ct__tpool_main, (void *)(intptr_t)p->made);
        pthread_attr_destroy(&at);
        if (rc != 0) break;   /* no more threads: run with those there are */
        p->made++;
    }
    return p->made;
}
#endif

/* The threads a kernel may plan for (e.g. how finely to split a reduction). */
static int ct__par_threads(void) {
#ifdef CT__TPOOL
#  ifdef CTENSOR_OPENMP
    if (omp_in_parallel()) return 1;   /* inside an OpenMP region of the user's (or ctensor_nn.h's) */
#  endif
    return ct__par_depth ? 1 : ct__par_nthreads();
#else
    return 1;
#endif
}
/* Runs fn over [0, n) in chunks of at least grain items, on the pool when there is
   enough work (n >= 2 grain) and more than one thread; else inline. */
static void ct__par_for(int64_t n, int64_t grain, ct__par_fn fn, void *ctx) {
    if (n <= 0) return;
#ifdef CT__TPOOL
    if (grain < 1) grain = 1;
    int nt = ct__par_threads();
    if (nt > 1 && n >= 2 * grain) {
        ct__tpool *p = &ct__the_tpool;
        int expected = 0;
        if (__atomic_compare_exchange_n(&p->busy, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            if (p->made < nt - 1) {
                pthread_mutex_lock(&p->mu);
                ct__tpool_grow(p, nt - 1);
                pthread_mutex_unlock(&p->mu);
            }
            int nw = p->made < nt - 1 ? p->made : nt - 1;
            if (nw > 0) {
                /* about 4 chunks per thread (the last ones even out), none under grain */
                int64_t nchunks = (int64_t)(nw + 1) * 4, maxc = n / grain;
                if (nchunks > maxc) nchunks = maxc;
                if (nchunks > ((int64_t)1 << 30)) nchunks = (int64_t)1 << 30;
                int64_t chunk = (n + nchunks - 1) / nchunks;
                nchunks = (n + chunk - 1) / chunk;
                uint32_t g = p->gen + 1;
                /* the previous job's counter closed (again; see below) before the fields change:
                   the exchange's acquire keeps the writes after it */
                (void)__atomic_exchange_n(&p->claim, ((uint64_t)(g - 1) << 32) | 0xFFFFFFFFu, __ATOMIC_ACQ_REL);
                p->fn = fn;
                p->ctx = ctx;
                p->n = n;
                p->chunk = chunk;
                __atomic_store_n(&p->nchunks, nchunks, __ATOMIC_RELAXED);
                __atomic_store_n(&p->done, 0, __ATOMIC_RELAXED);
                __atomic_store_n(&p->kerr, 0, __ATOMIC_RELAXED);
                __atomic_store_n(&p->want, nw, __ATOMIC_RELAXED);
                __atomic_store_n(&p->claim, (uint64_t)g << 32, __ATOMIC_RELEASE);
                __atomic_store_n(&p->gen, g, __ATOMIC_RELEASE);
                /* under the lock: a worker checks gen under it before it sleeps */
                pthread_mutex_lock(&p->mu);
                if (p->sleepers > 0) pthread_cond_broadcast(&p->cv);
                pthread_mutex_unlock(&p->mu);
                ct__tpool_work(p, g);
                /* wait for the chunks the workers claimed: they are running (spin),
                   or their thread was preempted (yield, then sleep until the last one) */
                for (int i = 0; __atomic_load_n(&p->done, __ATOMIC_ACQUIRE) < nchunks; i++) {
                    if (i < 2000) ct__cpu_relax();
                    else if (i < 2100) sched_yield();
                    else {
                        pthread_mutex_lock(&p->mu);
                        __atomic_store_n(&p->waiting, 1, __ATOMIC_SEQ_CST);
                        while (__atomic_load_n(&p->done, __ATOMIC_SEQ_CST) < nchunks) pthread_cond_wait(&p->done_cv, &p->mu);
                        __atomic_store_n(&p->waiting, 0, __ATOMIC_RELAXED);
                        pthread_mutex_unlock(&p->mu);
                        break;
                    }
                }
                /* close the counter before the next job rewrites the fields: a worker that
                   read it before the last claim and runs late must fail its CAS, not claim
                   "chunk nchunks" against the next job's nchunks, fn and ctx (it then ran a
                   stale chunk on freed memory while done counted it for the next job) */
                __atomic_store_n(&p->claim, ((uint64_t)g << 32) | 0xFFFFFFFFu, __ATOMIC_SEQ_CST);
                ct__kerr_tls |= __atomic_load_n(&p->kerr, __ATOMIC_RELAXED);
                __atomic_store_n(&p->busy, 0, __ATOMIC_RELEASE);
                return;
            }
            __atomic_store_n(&p->busy, 0, __ATOMIC_RELEASE);
        }
    }
#else
    (void)grain;
#endif
    fn(ctx, 0, n);
}
CTENSOR_API void ct_set_num_threads(int n) {
    __atomic_store_n(&ct__nthreads_set, n > 0 ? n : 0, __ATOMIC_RELAXED);
#ifdef CTENSOR_OPENMP
    if (n > 0) omp_set_num_threads(n);   /* the user's OpenMP code sees the same count */
#endif
}
CTENSOR_API int ct_get_num_threads(void) {
#ifdef CT__TPOOL
    return ct__par_nthreads();
#else
    return 1;
#endif
}

typedef struct ct__iter {
    int nop, ndim;
    int64_t numel;
    int64_t shape[CT_MAX_DIMS];                   /* innermost first */
    int64_t st[CT_MAX_DIMS][CT__ITER_MAXOP];      /* byte strides [dim][operand] */
    char *base[CT__ITER_MAXOP];
} ct__iter;

/* ops[0] is the output (already shaped `ndim/shape`); inputs broadcast to it.
   Dimensions are ordered innermost-first by the strides of operand `key`. */
static void ct__iter_init_key(ct__iter *it, int nop, ct_tensor *const *ops, int ndim, const int64_t *shape, int key) {
    int64_t st[CT_MAX_DIMS][CT__ITER_MAXOP];
    int64_t sh[CT_MAX_DIMS];
    int perm[CT_MAX_DIMS];
    it->nop = nop;
    it->numel = ct__shape_numel(ndim, shape);
    for (int k = 0; k < nop; k++) it->base[k] = ct__ptr(ops[k]);
    for (int d = 0; d < ndim; d++) {
        sh[d] = shape[d];
        for (int k = 0; k < nop; k++) {
            const ct_tensor *x = ops[k];
            int xd = d - (ndim - x->ndim);
            int64_t es = (int64_t)ct__dt[x->dtype].size;
            st[d][k] = (xd < 0 || x->shape[xd] == 1) ? 0 : x->strides[xd] * es;
        }
    }
    /* order dims innermost-first by the output's strides (stable insertion sort,
       ties keep C order); the output decides, as it was laid out for speed */
    int n = 0;
    for (int d = ndim - 1; d >= 0; d--) perm[n++] = d;
    for (int i = 1; i < n; i++) {
        int p = perm[i], j = i - 1;
        int64_t sp = st[p][key] < 0 ? -st[p][key] : st[p][key];
        while (j >= 0) {
            int q = perm[j];
            int64_t sq = st[q][key] < 0 ? -st[q][key] : st[q][key];
            if (sq <= sp || sp == 0) break;
            perm[j + 1] = q;
            j--;
        }
        perm[j + 1] = p;
    }
    /* drop size-1 dims, coalesce */
    int m = 0;
    for (int i = 0; i < n; i++) {
        int d = perm[i];
        if (sh[d] == 1) continue;
        if (m > 0) {
            int ok = 1;
            for (int k = 0; k < nop && ok; k++) ok = st[d][k] == it->st[m - 1][k] * it->shape[m - 1];
            if (ok) { it->shape[m - 1] *= sh[d]; continue; }
        }
        it->shape[m] = sh[d];
        for (int k = 0; k < nop; k++) it->st[m][k] = st[d][k];
        m++;
    }
    if (m == 0) {  /* a single element (or scalar) */
        it->shape[0] = 1;
        for (int k = 0; k < nop; k++) it->st[0][k] = 0;
        m = 1;
    }
    it->ndim = m;
}
static void ct__iter_init(ct__iter *it, int nop, ct_tensor *const *ops, int ndim, const int64_t *shape) {
    ct__iter_init_key(it, nop, ops, ndim, shape, 0);
}

static void ct__iter_range(const ct__iter *it, ct__loop_fn fn, const ct__attrs *a, int64_t begin, int64_t end) {
    char *p[CT__ITER_MAXOP];
    int nop = it->nop;
    if (it->ndim == 1) {
        for (int k = 0; k < nop; k++) p[k] = it->base[k] + begin * it->st[0][k];
        fn(p, it->st[0], end - begin, a);
        return;
    }
    int64_t idx[CT_MAX_DIMS], rem = begin;
    for (int d = 0; d < it->ndim; d++) { idx[d] = rem % it->shape[d]; rem /= it->shape[d]; }
    while (begin < end) {
        for (int k = 0; k < nop; k++) {
            char *q = it->base[k];
            for (int d = 0; d < it->ndim; d++) q += idx[d] * it->st[d][k];
            p[k] = q;
        }
        int64_t nrow = it->shape[0] - idx[0];
        if (nrow > end - begin) nrow = end - begin;
        fn(p, it->st[0], nrow, a);
        begin += nrow;
        idx[0] += nrow;
        for (int d = 0; d < it->ndim - 1 && idx[d] >= it->shape[d]; d++) { idx[d] = 0; idx[d + 1]++; }
    }
}

/* the pool's view of an iteration: chunks of 64 elements (aligned rows for the vector loops) */
typedef struct ct__iter_job { const ct__iter *it; ct__loop_fn fn; const ct__attrs *a; } ct__iter_job;
static void ct__iter_chunk(void *c, int64_t lo, int64_t hi) {
    const ct__iter_job *j = (const ct__iter_job *)c;
    int64_t e = hi * 64 < j->it->numel ? hi * 64 : j->it->numel;
    ct__iter_range(j->it, j->fn, j->a, lo * 64, e);
}
/* Runs an iteration; threads split it when work (elements touched, default numel) is
   at least 2 CT__GRAIN. */
static void ct__iter_run_work(const ct__iter *it, ct__loop_fn fn, const ct__attrs *a, int64_t work) {
    if (it->numel == 0) return;
    if (work >= 2 * CT__GRAIN && it->numel > 1 && ct__par_threads() > 1) {
        ct__iter_job j = {it, fn, a};
        int64_t units = (it->numel + 63) / 64;
        /* a chunk touches at least CT__GRAIN elements' worth of work */
        int64_t grain = (int64_t)((double)units * CT__GRAIN / (double)work) + 1;
        ct__par_for(units, grain, ct__iter_chunk, &j);
        return;
    }
    ct__iter_range(it, fn, a, 0, it->numel);
}
static void ct__iter_run(const ct__iter *it, ct__loop_fn fn, const ct__attrs *a) {
    ct__iter_run_work(it, fn, a, it->numel);
}

/* dense in the dim order ord (outermost first), size-1 dims free (c10's
   compute_channels_last_contiguous_2d / _3d) */
static int ct__dense_in_order(const ct_tensor *t, const int *ord) {
    int64_t s = 1;
    for (int k = t->ndim - 1; k >= 0; k--) {
        int d = ord[k];
        if (t->shape[d] == 1) continue;
        if (t->strides[d] != s) return 0;
        s = ct__sat_mul(s, t->shape[d]);
    }
    return 1;
}
static const int ct__cl_ord[2][5] = {{0, 2, 3, 1, 0}, {0, 2, 3, 4, 1}};
static int ct__fmt_ok(const char *op, const ct_tensor *t, ct_memory_format fmt) {
    if ((unsigned)fmt > (unsigned)CT_CHANNELS_LAST_3D)
        return ct__failed(CT_ERR_ARG, "%s: invalid memory format %d", op, (int)fmt);
    if (t && fmt == CT_CHANNELS_LAST && t->ndim != 4)
        return ct__failed(CT_ERR_ARG, "%s: required rank 4 tensor to use channels_last format (got rank %d)", op, t->ndim);
    if (t && fmt == CT_CHANNELS_LAST_3D && t->ndim != 5)
        return ct__failed(CT_ERR_ARG, "%s: required rank 5 tensor to use channels_last_3d format (got rank %d)", op, t->ndim);
    return 0;
}
/* Output strides for an elementwise result (ct__layout_like, below): channels-last
   and transposed inputs give outputs in their layout, as PyTorch does. */
static int ct__is_dense(const ct_tensor *x) {
    /* non-overlapping and dense: strides are a permutation of contiguous ones */
    int idx[CT_MAX_DIMS], n = 0;
    for (int d = 0; d < x->ndim; d++) {
        if (x->shape[d] == 1) continue;
        if (x->strides[d] <= 0) return 0;
        idx[n++] = d;
    }
    for (int i = 1; i < n; i++) {
        int p = idx[i], j = i - 1;
        while (j >= 0 && x->strides[idx[j]] > x->strides[p]) { idx[j + 1] = idx[j]; j--; }
        idx[j + 1] = p;
    }
    int64_t s = 1;
    for (int i = 0; i < n; i++) {
        if (x->strides[idx[i]] != s) return 0;
        s *= x->shape[idx[i]];
    }
    return 1;
}
/* x's stride along output dim d once broadcast to the output's shape (0 where it is) */
static int64_t ct__bstride(const ct_tensor *x, const ct__outinfo *o, int d) {
    int xd = d - (o->ndim - x->ndim);
    if (xd < 0 || (x->shape[xd] == 1 && o->shape[d] != 1)) return 0;
    return x->strides[xd];
}
/* PyTorch's TensorIterator (compute_fast_setup_type, reorder_dimensions): operands all
   of the output's shape give a contiguous output when all are contiguous, channels-last
   when all are, their strides when all are dense with the same strides; otherwise the
   dims are ordered by the first operand whose broadcast strides order them (a broadcast
   or equal stride defers to the next operand), and the output is dense in that order */
static void ct__layout_like(ct__outinfo *o, int nin, ct_tensor *const *in) {
    int nd = o->ndim, same = nin > 0, c = 1, cl = nd == 4, dense = 1;
    o->has_strides = 0;
    if (nd < 2) return;
    for (int i = 0; i < nin && same; i++) {
        const ct_tensor *x = in[i];
        same = x->ndim == nd && !(x->flags & CT__F_WRAPPED_NUMBER);
        for (int d = 0; d < nd && same; d++) same = x->shape[d] == o->shape[d];
        c = c && ct__is_contig(x);
        cl = cl && same && ct__dense_in_order(x, ct__cl_ord[0]);
        dense = dense && same && ct__is_dense(x);
        for (int d = 0; d < nd && dense && i; d++) dense = x->strides[d] == in[0]->strides[d];
    }
    if (same && c) return;
    int perm[CT_MAX_DIMS];   /* perm[0]: the fastest dim */
    for (int k = 0; k < nd; k++) perm[k] = nd - 1 - k;
    if (same && (cl || dense)) {
        if (dense && !cl) {
            for (int d = 0; d < nd; d++) o->strides[d] = in[nin - 1]->strides[d];
            o->has_strides = 1;
            return;
        }
        for (int k = 0; k < 4; k++) perm[k] = ct__cl_ord[0][3 - k];
    } else {
        for (int k = 1; k < nd; k++) {   /* insertion sort, ambiguous pairs left in place */
            for (int k0 = k - 1, k1 = k; k0 >= 0; k0--) {
                int d0 = perm[k0], d1 = perm[k1], cmp = 0;
                for (int i = 0; i < nin && !cmp; i++) {
                    int64_t s0 = ct__bstride(in[i], o, d0), s1 = ct__bstride(in[i], o, d1);
                    if (s0 == 0 || s1 == 0) continue;
                    cmp = s0 < s1 ? -1 : s0 > s1 || o->shape[d0] > o->shape[d1];
                }
                if (cmp < 0) break;
                if (cmp > 0) { perm[k0] = d1; perm[k1] = d0; k1 = k0; }
            }
        }
        int inverted = 1;
        for (int k = 0; k < nd; k++) inverted &= perm[k] == nd - 1 - k;
        if (inverted) return;
    }
    int64_t s = 1;
    for (int k = 0; k < nd; k++) {
        o->strides[perm[k]] = s;
        s = ct__sat_mul(s, o->shape[perm[k]] > 1 ? o->shape[perm[k]] : 1);
    }
    o->has_strides = 1;
}

/* Broadcast shapes (PyTorch's error wording). */
static int ct__broadcast(const char *op, int n, ct_tensor *const *in, int *ndim, int64_t *shape) {
    int nd = 0;
    for (int i = 0; i < n; i++) if (in[i]->ndim > nd) nd = in[i]->ndim;
    for (int d = 0; d < nd; d++) {
        int64_t s = 1;
        int from = -1;
        for (int i = 0; i < n; i++) {
            int xd = d - (nd - in[i]->ndim);
            if (xd < 0) continue;
            int64_t v = in[i]->shape[xd];
            if (v == 1) continue;
            if (s == 1) { s = v; from = i; }
            else if (v != s) {
                return ct__failed(CT_ERR_SHAPE, "%s: The size of tensor %c (%lld) must match the size of tensor %c (%lld) at non-singleton dimension %d",
                                  op, 'a' + from, (long long)s, 'a' + i, (long long)v, d);
            }
        }
        /* a size-0 dim broadcasts with 1 to 0 */
        if (s == 1) {
            for (int i = 0; i < n; i++) {
                int xd = d - (nd - in[i]->ndim);
                if (xd >= 0 && in[i]->shape[xd] == 0) s = 0;
            }
        }
        shape[d] = s;
    }
    *ndim = nd;
    return 0;
}

/* PyTorch's result_type: dimensioned tensors beat zero-dim tensors, which beat
   wrapped scalars, but only when they are of a higher category. */
static int ct__cat_of(ct_dtype d) {
    switch (ct__dt[d].kind) {
    case CT__KIND_BOOL: return 0;
    case CT__KIND_INT: return 1;
    case CT__KIND_FLOAT: return 2;
    default: return 3;
    }
}
static ct_dtype ct__combine_cat(ct_dtype higher, ct_dtype lower) {
    if (higher == CT_NUM_DTYPES) return lower;
    if (lower == CT_NUM_DTYPES) return higher;
    if (ct__cat_of(higher) >= ct__cat_of(lower)) return higher;
    return ct_promote_types(higher, lower);
}
static ct_dtype ct__result_type(int n, ct_tensor *const *in) {
    ct_dtype dimr = CT_NUM_DTYPES, zeror = CT_NUM_DTYPES, wrapr = CT_NUM_DTYPES;
    for (int i = 0; i < n; i++) {
        const ct_tensor *x = in[i];
        ct_dtype *r;
        ct_dtype cur = x->dtype;
        if (x->flags & CT__F_WRAPPED_NUMBER) {
            r = &wrapr;
            /* a Python float scalar counts as the default dtype, an int as int64 */
            if (CT__ISFLOAT(cur)) cur = ct__default_dtype;
            else if (CT__ISINT(cur)) cur = CT_INT64;
        } else if (x->ndim == 0) {
            r = &zeror;
        } else {
            r = &dimr;
        }
        *r = *r == CT_NUM_DTYPES ? cur : ct_promote_types(*r, cur);
    }
    return ct__combine_cat(dimr, ct__combine_cat(zeror, wrapr));
}

/* A wrapped number (PyTorch's Python scalar): a 0-d tensor that promotes by category.
   After the call it is released with ct__unwrap, which clears the mark: autograd
   may have saved it, and in a backward formula it is an ordinary 0-d tensor. */
static ct_tensor *ct__wrap(double v, ct_dtype like) {
    ct_dtype dt;
    int integral = v == floor(v) && fabs(v) < 9.2e18;
    if (integral && !CT__ISFLOAT(like) && !ct_dtype_is_complex(like)) dt = like == CT_BOOL ? CT_INT64 : like;
    else dt = CT__ISFLOAT(like) ? like : CT_FLOAT64;
    ct_tensor *x = ct__alloc(dt, 0, NULL, NULL, ct__cpu_dev);
    if (!x) return NULL;
    ct__store_f64(ct__ptr(x), dt, v);
    x->flags |= CT__F_WRAPPED_NUMBER | (integral ? CT__F_SCALAR_INT : 0);
    return x;
}
static void ct__unwrap(ct_tensor *w) {
    if (!w) return;
    w->flags &= ~(CT__F_WRAPPED_NUMBER | CT__F_SCALAR_INT);
    ct__decref(w);
}

/* ============================================================================
   Elementwise inner loops, generated from one expression per op for the compute
   types only: float32, float64, int64 and bool. float16 and bfloat16 compute in
   float32, the narrower integers in int64 with wrap-around (as C++ does in PyTorch,
   without UB): ct__ew_loop runs the compute type's loop for them behind the adapter
   below, which converts. Expressions see `x` (and `y`, `z`), and the op's arguments
   a0..a3 (scalars), i0 (integer) and mo (mode).
   A generated loop has bodies for dense rows only (and, binary ones, a broadcast
   scalar operand); a row with other strides goes through the adapter too. One body
   per loop and four compute types instead of ten dtypes keeps the compile time of
   ctensor.h down (it was 40% of it), and the adapter's chunks are in cache.
   ========================================================================== */
#define CT__ID(v) (v)
#define CT__C_I(T) (T)   /* a cast as a conversion: CT__C_I(int32_t)(v) */
#define CT__TOB(v) ((uint8_t)((v) != 0))
#define CT__LDB(v) ((int64_t)((v) != 0))
#define CT__IW(v) ((int64_t)(uint64_t)(v))                       /* wrap to int64 */
#define CT__IADD(x, y) CT__IW((uint64_t)(x) + (uint64_t)(y))
#define CT__ISUB(x, y) CT__IW((uint64_t)(x) - (uint64_t)(y))
#define CT__IMUL(x, y) CT__IW((uint64_t)(x) * (uint64_t)(y))
#define CT__LOOP_ARGS \
    const double a0 = a->s[0], a1 = a->s[1], a2 = a->s[2], a3 = a->s[3]; \
    const int64_t i0 = a->i[0]; \
    const int32_t mo = a->mode; \
    (void)a0; (void)a1; (void)a2; (void)a3; (void)i0; (void)mo;

/* ---- the adapter ----
   Runs a loop written for dense rows of compute types over any row: the row is cut
   into chunks of CT__EWB elements; each input is read into a dense buffer of its
   compute type (float16/bfloat16 widened to float32, the narrower integers to
   int64, otherwise gathered), the loop runs on the buffers, and the output chunk is
   written back (narrowed, strided). An operand already dense and of its compute
   type is used where it is. Operand 0 is the output; an input is read whole before
   the chunk's output is written, so in-place calls see what a plain loop sees. */
#define CT__EWB 256
typedef struct ct__ewsig {
    uint8_t nop;
    uint8_t st[4];   /* storage dtype of each operand */
    uint8_t ct[4];   /* compute dtype the loop reads/writes (st when no conversion) */
} ct__ewsig;
/* The conversion loops: dense rows in functions with restrict parameters and a full
   chunk at its constant count, so that -O2's cheap vectorizer takes them; strided
   rows as they are. */
#define CT__EW_CONVFN(fname, TO, TI, CONV) \
    static void fname(TO *CT_RESTRICT o, const TI *CT_RESTRICT in, int64_t m) { \
        if (m == CT__EWB) for (int64_t k = 0; k < CT__EWB; k++) o[k] = CONV(in[k]); \
        else for (int64_t k = 0; k < m; k++) o[k] = CONV(in[k]); \
    }
CT__EW_CONVFN(ct__ewc_1, uint8_t, uint8_t, CT__ID)
CT__EW_CONVFN(ct__ewc_2, uint16_t, uint16_t, CT__ID)
CT__EW_CONVFN(ct__ewc_4, uint32_t, uint32_t, CT__ID)
CT__EW_CONVFN(ct__ewc_8, uint64_t, uint64_t, CT__ID)
CT__EW_CONVFN(ct__ewc_h2f, float, uint16_t, ct__h2f)
CT__EW_CONVFN(ct__ewc_bf2f, float, uint16_t, ct__bf2f)
CT__EW_CONVFN(ct__ewc_f2h, uint16_t, float, ct__f2h)
CT__EW_CONVFN(ct__ewc_f2bf, uint16_t, float, ct__f2bf)
CT__EW_CONVFN(ct__ewc_i32w, int64_t, int32_t, CT__C_I(int64_t))
CT__EW_CONVFN(ct__ewc_i16w, int64_t, int16_t, CT__C_I(int64_t))
CT__EW_CONVFN(ct__ewc_i8w, int64_t, int8_t, CT__C_I(int64_t))
CT__EW_CONVFN(ct__ewc_u8w, int64_t, uint8_t, CT__C_I(int64_t))
CT__EW_CONVFN(ct__ewc_i32n, int32_t, int64_t, CT__C_I(int32_t))
CT__EW_CONVFN(ct__ewc_i16n, int16_t, int64_t, CT__C_I(int16_t))
CT__EW_CONVFN(ct__ewc_i8n, int8_t, int64_t, CT__C_I(int8_t))
CT__EW_CONVFN(ct__ewc_u8n, uint8_t, int64_t, CT__C_I(uint8_t))
#define CT__EW_CONV(FN, TO, TI, CONV) \
    do { \
        if (dense) FN((TO *)dst, (const TI *)src, m); \
        else if (load) for (k = 0; k < m; k++) ((TO *)dst)[k] = CONV(*(const TI *)(src + k * st)); \
        else for (k = 0; k < m; k++) *(TO *)(dst + k * st) = CONV(((const TI *)src)[k]); \
    } while (0)
/* load: a chunk of storage dtype sd at stride st into a dense buffer of compute dtype
   cd; else store: a dense buffer of cd into storage sd at stride st */
static void ct__ew_conv(int load, char *dst, const char *src, int sd, int cd, int64_t st, int64_t m) {
    int64_t k;
    const int dense = st == (int64_t)ct__dt[sd].size;
    if (sd == cd) {
        switch (ct__dt[sd].size) {
        case 1: CT__EW_CONV(ct__ewc_1, uint8_t, uint8_t, CT__ID); break;
        case 2: CT__EW_CONV(ct__ewc_2, uint16_t, uint16_t, CT__ID); break;
        case 4: CT__EW_CONV(ct__ewc_4, uint32_t, uint32_t, CT__ID); break;
        default: CT__EW_CONV(ct__ewc_8, uint64_t, uint64_t, CT__ID); break;
        }
    } else if (load) {
        switch (sd) {
        case CT_FLOAT16: CT__EW_CONV(ct__ewc_h2f, float, uint16_t, ct__h2f); break;
        case CT_BFLOAT16: CT__EW_CONV(ct__ewc_bf2f, float, uint16_t, ct__bf2f); break;
        case CT_INT32: CT__EW_CONV(ct__ewc_i32w, int64_t, int32_t, CT__C_I(int64_t)); break;
        case CT_INT16: CT__EW_CONV(ct__ewc_i16w, int64_t, int16_t, CT__C_I(int64_t)); break;
        case CT_INT8: CT__EW_CONV(ct__ewc_i8w, int64_t, int8_t, CT__C_I(int64_t)); break;
        default: CT__EW_CONV(ct__ewc_u8w, int64_t, uint8_t, CT__C_I(int64_t)); break;
        }
    } else {
        switch (sd) {
        case CT_FLOAT16: CT__EW_CONV(ct__ewc_f2h, uint16_t, float, ct__f2h); break;
        case CT_BFLOAT16: CT__EW_CONV(ct__ewc_f2bf, uint16_t, float, ct__f2bf); break;
        case CT_INT32: CT__EW_CONV(ct__ewc_i32n, int32_t, int64_t, CT__C_I(int32_t)); break;
        case CT_INT16: CT__EW_CONV(ct__ewc_i16n, int16_t, int64_t, CT__C_I(int16_t)); break;
        case CT_INT8: CT__EW_CONV(ct__ewc_i8n, int8_t, int64_t, CT__C_I(int8_t)); break;
        default: CT__EW_CONV(ct__ewc_u8n, uint8_t, int64_t, CT__C_I(uint8_t)); break;
        }
    }
}
static CT__NOINLINE void ct__ew_adapt(char **p, const int64_t *s, int64_t n, const ct__attrs *a, ct__loop_fn fn, const ct__ewsig *g) {
    int64_t buf[4][CT__EWB];   /* 8 KB */
    char *q[4];
    int64_t qs[4];
    int direct[4];   /* dense and of its compute type: used where it is */
    for (int j = 0; j < g->nop; j++) {
        qs[j] = (int64_t)ct__dt[g->ct[j]].size;
        direct[j] = g->st[j] == g->ct[j] && s[j] == qs[j];
        q[j] = (char *)buf[j];
    }
    for (int64_t k0 = 0; k0 < n; k0 += CT__EWB) {
        int64_t m = n - k0 < CT__EWB ? n - k0 : CT__EWB;
        for (int j = 0; j < g->nop; j++) {
            char *at = p[j] + k0 * s[j];
            if (direct[j]) q[j] = at;
            else if (j > 0) ct__ew_conv(1, q[j], at, g->st[j], g->ct[j], s[j], m);
        }
        fn(q, qs, m, a);
        if (!direct[0]) ct__ew_conv(0, p[0] + k0 * s[0], q[0], g->st[0], g->ct[0], s[0], m);
    }
}
/* A loop's own rows with strides it has no body for: gathered into dense chunks.
   sz: each operand's element size. */
static CT__NOINLINE void ct__ew_strided(char **p, const int64_t *s, int64_t n, const ct__attrs *a, ct__loop_fn fn, int nop,
                                        int sz0, int sz1, int sz2, int sz3) {
    static const uint8_t by_size[9] = {0, CT_UINT8, CT_INT16, 0, CT_INT32, 0, 0, 0, CT_INT64};
    ct__ewsig g;
    g.nop = (uint8_t)nop;
    g.st[0] = g.ct[0] = by_size[sz0];
    g.st[1] = g.ct[1] = by_size[sz1];
    g.st[2] = g.ct[2] = by_size[sz2];
    g.st[3] = g.ct[3] = by_size[sz3];
    ct__ew_adapt(p, s, n, a, fn, &g);
}
/* the compute type of a storage dtype */
CT__INLINE ct_dtype ct__ew_ctype(ct_dtype dt) {
    return dt == CT_FLOAT16 || dt == CT_BFLOAT16 ? CT_FLOAT32 : CT__ISINT(dt) ? CT_INT64 : dt;
}
/* The loop of a generated table for dtype dt: the table's own, or its compute type's
   behind the adapter, set up in *r (then *ap points into *r). NULL: neither exists.
   nop: operands with the output; obool: the output is bool; cond: operand 1 is a bool
   condition (where). */
typedef struct ct__ewroute {
    ct__attrs a;   /* first: the loop's attrs pointer is the route's */
    ct__loop_fn fn;
    ct__ewsig g;
} ct__ewroute;
static void ct__ew_routed(char **p, const int64_t *s, int64_t n, const ct__attrs *a) {
    const ct__ewroute *r = (const ct__ewroute *)(const void *)a;
    ct__ew_adapt(p, s, n, &r->a, r->fn, &r->g);
}
static ct__loop_fn ct__ew_loop(const ct__loop_fn *tab, ct_dtype dt, int nop, int obool, int cond, ct__ewroute *r, const ct__attrs **ap) {
    if (!tab || (unsigned)dt >= 10) return NULL;
    if (tab[dt]) return tab[dt];
    ct_dtype cd = ct__ew_ctype(dt);
    if (cd == dt || !tab[cd]) return NULL;
    r->a = **ap;
    r->fn = tab[cd];
    r->g.nop = (uint8_t)nop;
    for (int j = 0; j < nop; j++) {
        int isbool = (j == 0 && obool) || (j == 1 && cond);
        r->g.st[j] = (uint8_t)(isbool ? CT_BOOL : dt);
        r->g.ct[j] = (uint8_t)(isbool ? CT_BOOL : cd);
    }
    *ap = &r->a;
    return ct__ew_routed;
}

/* unary: out T, in T */
#define CT__ULOOP(fname, T, C, LD, ST, EXPR) \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) { \
        CT__LOOP_ARGS \
        if (CT__UNLIKELY(s[0] != (int64_t)sizeof(T) || s[1] != (int64_t)sizeof(T))) { \
            ct__ew_strided(p, s, n, a, fname, 2, (int)sizeof(T), (int)sizeof(T), 0, 0); \
            return; \
        } \
        T *o = (T *)p[0]; \
        const T *in = (const T *)p[1]; \
        for (int64_t k = 0; k < n; k++) { C x = LD(in[k]); (void)x; o[k] = ST(EXPR); } \
    }
/* unary with bool output */
#define CT__ULOOPB(fname, T, C, LD, EXPR) \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) { \
        CT__LOOP_ARGS \
        if (CT__UNLIKELY(s[0] != 1 || s[1] != (int64_t)sizeof(T))) { \
            ct__ew_strided(p, s, n, a, fname, 2, 1, (int)sizeof(T), 0, 0); \
            return; \
        } \
        uint8_t *o = (uint8_t *)p[0]; \
        const T *in = (const T *)p[1]; \
        for (int64_t k = 0; k < n; k++) { C x = LD(in[k]); (void)x; o[k] = (uint8_t)((EXPR) ? 1 : 0); } \
    }
/* binary: out O, in T, T (dense rows, or the second input a broadcast scalar) */
#define CT__BLOOP(fname, T, O, C, LD, ST, EXPR) \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) { \
        CT__LOOP_ARGS \
        const int64_t es = (int64_t)sizeof(T), eo = (int64_t)sizeof(O); \
        O *o = (O *)p[0]; \
        const T *xs = (const T *)p[1], *ys = (const T *)p[2]; \
        if (s[0] == eo && s[1] == es && s[2] == es) { \
            for (int64_t k = 0; k < n; k++) { C x = LD(xs[k]), y = LD(ys[k]); (void)x; (void)y; o[k] = ST(EXPR); } \
        } else if (s[0] == eo && s[1] == es && s[2] == 0) { \
            const C y = LD(ys[0]); \
            for (int64_t k = 0; k < n; k++) { C x = LD(xs[k]); (void)x; (void)y; o[k] = ST(EXPR); } \
        } else {   /* a scalar first operand (2 - t) too: its chunk is filled */ \
            ct__ew_strided(p, s, n, a, fname, 3, (int)sizeof(O), (int)sizeof(T), (int)sizeof(T), 0); \
        } \
    }

/* compute-type families: (suffix, storage type, compute type, load, store); the tables
   hold NULL for the dtypes computed in another type (ct__ew_loop) */
#define CT__GEN_FLOAT(M, E, FX, DX) \
    M(E##_f32, float, float, CT__ID, CT__ID, FX) \
    M(E##_f64, double, double, CT__ID, CT__ID, DX)
#define CT__GEN_INT_Y(M, E, IX) M(E##_i64, int64_t, int64_t, CT__ID, CT__ID, IX)
#define CT__GEN_INT_N(M, E, IX)
#define CT__GEN_BOOL_Y(M, E, IX) M(E##_b8, uint8_t, int64_t, CT__LDB, CT__TOB, IX)
#define CT__GEN_BOOL_N(M, E, IX)
#define CT__TAB_INT_Y(P, E) P##E##_i64, NULL, NULL, NULL, NULL
#define CT__TAB_INT_N(P, E) NULL, NULL, NULL, NULL, NULL
#define CT__TAB_BOOL_Y(P, E) P##E##_b8
#define CT__TAB_BOOL_N(P, E) NULL
#define CT__TAB_FLOAT(P, E) P##E##_f32, P##E##_f64, NULL, NULL

/* ---- vectorizable float math ----
   libm's expf/tanhf/erff are scalar calls the compiler cannot vectorize. These
   are branch-free (selects only) so loops over them vectorize; errors are within
   2 ulp of the correctly rounded result over the float range (tests compare with
   PyTorch at rtol 1e-5). Special values: NaN propagates, exp overflows to inf and
   underflows to 0 (inputs below -87.3 give 0 instead of a subnormal). */
CT__INLINE float ct__bits2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
/* a * b + c in one rounding where fmaf is fast (ISO C modes do not contract a * b + c) */
#ifdef FP_FAST_FMAF
#define CT__FMAF(a, b, c) fmaf(a, b, c)
#else
#define CT__FMAF(a, b, c) ((a) * (b) + (c))
#endif
CT__INLINE float ct__expf(float x) {
    /* clamped to the range where the result is a normal float or overflows;
       the scale 2^n is applied as two factors so n up to 128 is exact */
    const float log2e = 1.44269504088896341f, ln2_hi = 0.693359375f, ln2_lo = -2.12194440e-4f;
    float xc = x < -87.33654f ? -87.33654f : (x > 88.72283f ? 88.72283f : x);
    float t = CT__FMAF(xc, log2e, 12582912.0f);            /* round to nearest integer */
    float n = t - 12582912.0f;
    uint32_t ti;
    memcpy(&ti, &t, 4);
    float r = CT__FMAF(n, -ln2_lo, CT__FMAF(n, -ln2_hi, xc));
    float p = 1.9875691500e-4f;
    p = CT__FMAF(p, r, 1.3981999507e-3f);
    p = CT__FMAF(p, r, 8.3334519073e-3f);
    p = CT__FMAF(p, r, 4.1665795894e-2f);
    p = CT__FMAF(p, r, 1.6666665459e-1f);
    p = CT__FMAF(p, r, 5.0000001201e-1f);
    p = CT__FMAF(p, r * r, r) + 1.0f;
    int32_t ni = (int32_t)(ti - 0x4b400000u), n1 = ni >> 1, n2 = ni - n1;
    float y = p * ct__bits2f((uint32_t)(n1 + 127) << 23) * ct__bits2f((uint32_t)(n2 + 127) << 23);
    y = x > 88.72283f ? INFINITY : y;
    y = x < -87.33654f ? 0.0f : y;
    return x != x ? x : y;
}
/* tanh: odd polynomial near 0, 1 - 2 / (exp(2|x|) + 1) elsewhere */
CT__INLINE float ct__tanhf(float x) {
    float a = fabsf(x);
    float z = x * x;
    float p = -5.70498872745e-3f;
    p = p * z + 2.06390887954e-2f;
    p = p * z - 5.37397155531e-2f;
    p = p * z + 1.33314422036e-1f;
    p = p * z - 3.33332819422e-1f;
    float small = x + x * z * p;
    float e = ct__expf(2.0f * a);
    float big = 1.0f - 2.0f / (e + 1.0f);
    big = copysignf(big, x);
    return a < 0.625f ? small : big;
}
CT__INLINE float ct__sigmoidf_v(float x) { return 1.0f / (1.0f + ct__expf(-x)); }
/* Numerical Recipes' erfcc (a Chebyshev fit): erfc(z) ~ t exp(-z^2 + P(t)) with
   t = 1 / (1 + z/2), for z >= 0. P's coefficients, highest first; the scalar and the
   vector forms both evaluate it from this one list (Horner: p = p t + c). */
#define CT__ERFC_P_FIRST 0.17087277f
#define CT__ERFC_P_REST(X) X(-0.82215223f) X(1.48851587f) X(-1.13520398f) X(0.27886807f) X(-0.18628806f) \
    X(0.09678418f) X(0.37409196f) X(1.00002368f) X(-1.26551223f)
CT__INLINE float ct__erfc_p(float t) {
    float p = CT__ERFC_P_FIRST;
#define CT__ERFC_STEP(c) p = p * t + (c);
    CT__ERFC_P_REST(CT__ERFC_STEP)
#undef CT__ERFC_STEP
    return p;
}
/* erfc with relative error below 1.2e-7 everywhere */
CT__INLINE float ct__erfcf(float x) {
    float z = fabsf(x);
    float t = 1.0f / (1.0f + 0.5f * z);
    float p = ct__erfc_p(t);
    /* exp(-z*z + p) with z*z split exactly (zh has 12 significant bits, so zh*zh is exact):
       a single float argument near -80 would lose ~30 ulp to rounding */
    uint32_t zb;
    memcpy(&zb, &z, 4);
    float zh = ct__bits2f(zb & 0xfffff000u), zl = z - zh;
    float ans = t * ct__expf(-zh * zh) * ct__expf(p - (2.0f * zh + zl) * zl);
    return x >= 0.0f ? ans : 2.0f - ans;
}
/* The same fit with one exp: accurate to ~1e-7 relative where erfc(z) > 1e-6,
   which is all gelu needs (its tail is 0.5 x erfc(|x|/sqrt 2), below 1e-6 |x|). */
CT__INLINE float ct__erfcf_gelu(float x) {
    float z = fabsf(x);
    float t = 1.0f / (1.0f + 0.5f * z);
    float p = ct__erfc_p(t);
    float ans = t * ct__expf(-z * z + p);
    return x >= 0.0f ? ans : 2.0f - ans;
}
/* Exact gelu x Phi(x) for x >= -5.5 without division or cancellation: h = Phi(-|x|) =
   2^Q(min(|x|, 5.5)), Q a degree-10 minimax fit of log2 Phi(-u) on [0, 5.5] (error 2e-7, Q(0) = -1),
   2^f on [-1/2, 1/2] a degree-6 one; Phi = h for x < 0, else 1 - h (h(5.5) < 2^-25: 1 - h
   rounds to 1 beyond). Below -5.5 and NaN: the erfc form. The scalar and vector forms
   share the coefficients (highest first) and the operations, so they agree bit for bit.
   Max rel error against double over every float (the erfc form before: 5.5e-7, 6.2e-7, 1.4e-6,
   1.9e-6, 2.5e-6): 3.5e-7 on [-1, inf), 5.4e-7 on [-2, -1), 9.3e-7 on [-3, -2), 1.2e-6
   on [-4, -3), 2.4e-6 on [-5.5, -4); below, the erfc form: 1.9e-5; NaN, +-inf, -0 as
   PyTorch (nan, inf, nan, -0). tests/test_core.c checks a sweep. */
#define CT__GELU_Q_FIRST -1.82422593e-08f
#define CT__GELU_Q_REST(X) X(5.75387958e-07f) X(-7.78754747e-06f) X(5.7027748e-05f) X(-0.000209316146f) \
    X(-0.000153908521f) X(0.00714589376f) X(-0.052583538f) X(-0.45917207f) X(-1.15110981f) X(-1.0f)
#define CT__EXP2_P_FIRST 0.000153458081f
#define CT__EXP2_P_REST(X) X(0.00133999321f) X(0.00961848907f) X(0.0555032864f) X(0.240226462f) X(0.693147182f) X(1.0f)
CT__INLINE float ct__gelu_exactf(float x) {
    if (!(x >= -5.5f)) return 0.5f * x * ct__erfcf_gelu(-x * 0.7071067811865476f);
    float u = fminf(fabsf(x), 5.5f), q = CT__GELU_Q_FIRST;
#define CT__GELU_STEP(c) q = CT__FMAF(q, u, c);
    CT__GELU_Q_REST(CT__GELU_STEP)
#undef CT__GELU_STEP
    float t = q + 12582912.0f, f = q - (t - 12582912.0f), p = CT__EXP2_P_FIRST;   /* 2^q = 2^n 2^f, n = round(q) */
#define CT__EXP2_STEP(c) p = CT__FMAF(p, f, c);
    CT__EXP2_P_REST(CT__EXP2_STEP)
#undef CT__EXP2_STEP
    uint32_t tb;
    memcpy(&tb, &t, 4);
    float h = p * ct__bits2f((tb - 0x4b400000u + 127u) << 23);
    return x * (x < 0.0f ? h : 1.0f - h);
}
/* tanh gelu 0.5 x (1 + tanh(y)) = x / (1 + exp(-2y)): no cancellation for x < 0. Max rel
   error over every float: 1.4e-7 on [0, inf), 8.2e-7 on [-3, 0), 2.1e-6 on [-5.5, -3), 1.3e-5
   below (1 + tanh before: 1.3e-5 at -3, 100% below -4.5) */
CT__INLINE float ct__gelu_tanhf(float x) {
    return x / (1.0f + ct__expf(x * CT__FMAF(x * x, -0.0713548162726f, -1.5957691216057308f)));
}
/* erf: Taylor series near 0 (no cancellation), 1 - erfc elsewhere */
CT__INLINE float ct__erff(float x) {
    float z = x * x;
    float s = -1.0f / 1320.0f;
    s = s * z + 1.0f / 216.0f;
    s = s * z - 1.0f / 42.0f;
    s = s * z + 1.0f / 10.0f;
    s = s * z - 1.0f / 3.0f;
    s = s * z + 1.0f;
    float small = 1.1283791670955126f * x * s;
    float big = 1.0f - ct__erfcf(x);
    return fabsf(x) < 0.5f ? small : big;
}

/* The same algorithms on 8 floats at a time with GCC/clang vector extensions
   (gcc does not vectorize the scalar forms reliably). Other compilers, and
   nvcc's front end, use the scalar forms. CTENSOR_NO_SIMD turns them off. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__) && !defined(CTENSOR_NO_SIMD)
#define CT__HAVE_VEC 1
#if defined(__AVX512F__)
#define CT__VL 16    /* lanes: 512-bit vectors with AVX-512, 256-bit with AVX, 128-bit otherwise */
#elif defined(__AVX__)
#define CT__VL 8
#else
#define CT__VL 4
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#elif defined(__aarch64__) && defined(FP_FAST_FMAF)
#include <arm_neon.h>
#endif
typedef float ct__vf __attribute__((vector_size(CT__VL * 4)));
typedef int32_t ct__vi __attribute__((vector_size(CT__VL * 4)));
CT__INLINE ct__vf ct__vsplat(float c) {
    ct__vf v;
    for (int i = 0; i < CT__VL; i++) v[i] = c;
    return v;
}
CT__INLINE ct__vi ct__isplat(int32_t c) {
    ct__vi v;
    for (int i = 0; i < CT__VL; i++) v[i] = c;
    return v;
}
#define CT__VSPLAT(c) ct__vsplat(c)
#define CT__ISPLAT(c) ct__isplat(c)
/* m ? a : b for a lane mask m (all bits set or clear) */
CT__INLINE ct__vf ct__vsel(ct__vi m, ct__vf a, ct__vf b) { return (ct__vf)((m & (ct__vi)a) | (~m & (ct__vi)b)); }
CT__INLINE ct__vf ct__vabs(ct__vf x) { return (ct__vf)((ct__vi)x & CT__ISPLAT(0x7fffffff)); }
/* a * b + c in one rounding where the target has FMA (ISO C modes do not contract a * b + c) */
CT__INLINE ct__vf ct__vfma(ct__vf a, ct__vf b, ct__vf c) {
#if defined(__AVX512F__)
    return (ct__vf)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif defined(__AVX__) && defined(__FMA__)
    return (ct__vf)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#elif defined(__aarch64__) && defined(FP_FAST_FMAF)   /* fused, as the scalar CT__FMAF is there */
    return (ct__vf)vfmaq_f32((float32x4_t)c, (float32x4_t)a, (float32x4_t)b);
#else
    return a * b + c;
#endif
}
/* whether any lane of a mask is set */
CT__INLINE int ct__vany(ct__vi m) {
#if defined(__AVX512F__)
    return _mm512_test_epi32_mask((__m512i)m, (__m512i)m) != 0;
#elif defined(__AVX__)
    return _mm256_movemask_ps((__m256)m) != 0;
#elif defined(__SSE__)
    return _mm_movemask_ps((__m128)m) != 0;
#else
    int r = 0;
    for (int i = 0; i < CT__VL; i++) r |= m[i] != 0;
    return r;
#endif
}
CT__INLINE ct__vf ct__v_exp(ct__vf x) {
    const ct__vf lo = CT__VSPLAT(-87.33654f), hi = CT__VSPLAT(88.72283f);
    ct__vi below = x < lo, above = x > hi, nan = x != x;
    ct__vf xc = ct__vsel(below, lo, ct__vsel(above, hi, x));
    ct__vf t = ct__vfma(xc, CT__VSPLAT(1.44269504088896341f), CT__VSPLAT(12582912.0f));
    ct__vf n = t - CT__VSPLAT(12582912.0f);
    ct__vf r = ct__vfma(n, CT__VSPLAT(2.12194440e-4f), ct__vfma(n, CT__VSPLAT(-0.693359375f), xc));
    ct__vf p = CT__VSPLAT(1.9875691500e-4f);
    p = ct__vfma(p, r, CT__VSPLAT(1.3981999507e-3f));
    p = ct__vfma(p, r, CT__VSPLAT(8.3334519073e-3f));
    p = ct__vfma(p, r, CT__VSPLAT(4.1665795894e-2f));
    p = ct__vfma(p, r, CT__VSPLAT(1.6666665459e-1f));
    p = ct__vfma(p, r, CT__VSPLAT(5.0000001201e-1f));
    p = ct__vfma(p, r * r, r) + CT__VSPLAT(1.0f);
#if defined(__AVX512F__)
    ct__vf y = (ct__vf)_mm512_maskz_scalef_ps((__mmask16)0xffff, (__m512)p, (__m512)n);   /* p 2^n, one rounding, as below */
#else
    ct__vi ni = (ct__vi)t - CT__ISPLAT(0x4b400000), n1 = ni >> 1, n2 = ni - n1;
    ct__vf y = p * (ct__vf)((n1 + CT__ISPLAT(127)) << 23) * (ct__vf)((n2 + CT__ISPLAT(127)) << 23);
#endif
    y = ct__vsel(above, CT__VSPLAT(INFINITY), y);
    y = ct__vsel(below, CT__VSPLAT(0.0f), y);
    return ct__vsel(nan, x, y);
}
CT__INLINE ct__vf ct__v_tanh(ct__vf x) {
    ct__vf a = ct__vabs(x), z = x * x;
    ct__vf p = CT__VSPLAT(-5.70498872745e-3f);
    p = p * z + CT__VSPLAT(2.06390887954e-2f);
    p = p * z - CT__VSPLAT(5.37397155531e-2f);
    p = p * z + CT__VSPLAT(1.33314422036e-1f);
    p = p * z - CT__VSPLAT(3.33332819422e-1f);
    ct__vf small = x + x * z * p;
    ct__vf e = ct__v_exp(CT__VSPLAT(2.0f) * a);
    ct__vf big = CT__VSPLAT(1.0f) - CT__VSPLAT(2.0f) / (e + CT__VSPLAT(1.0f));
    big = (ct__vf)(((ct__vi)big & CT__ISPLAT(0x7fffffff)) | ((ct__vi)x & CT__ISPLAT((int32_t)0x80000000)));
    return ct__vsel(a < CT__VSPLAT(0.625f), small, big);
}
CT__INLINE ct__vf ct__v_sigmoid(ct__vf x) { return CT__VSPLAT(1.0f) / (CT__VSPLAT(1.0f) + ct__v_exp(-x)); }
CT__INLINE ct__vf ct__v_erfc_p(ct__vf t) {   /* ct__erfc_p, lane by lane */
    ct__vf p = CT__VSPLAT(CT__ERFC_P_FIRST);
#define CT__ERFC_STEP(c) p = p * t + CT__VSPLAT(c);
    CT__ERFC_P_REST(CT__ERFC_STEP)
#undef CT__ERFC_STEP
    return p;
}
CT__INLINE ct__vf ct__v_erfc(ct__vf x) {
    ct__vf z = ct__vabs(x);
    ct__vf t = CT__VSPLAT(1.0f) / (CT__VSPLAT(1.0f) + CT__VSPLAT(0.5f) * z);
    ct__vf p = ct__v_erfc_p(t);
    ct__vf zh = (ct__vf)((ct__vi)z & CT__ISPLAT((int32_t)0xfffff000)), zl = z - zh;
    ct__vf ans = t * ct__v_exp(-zh * zh) * ct__v_exp(p - (CT__VSPLAT(2.0f) * zh + zl) * zl);
    return ct__vsel(x >= CT__VSPLAT(0.0f), ans, CT__VSPLAT(2.0f) - ans);
}
CT__INLINE ct__vf ct__v_erf(ct__vf x) {
    ct__vf z = x * x;
    ct__vf s = CT__VSPLAT(-1.0f / 1320.0f);
    s = s * z + CT__VSPLAT(1.0f / 216.0f);
    s = s * z - CT__VSPLAT(1.0f / 42.0f);
    s = s * z + CT__VSPLAT(1.0f / 10.0f);
    s = s * z - CT__VSPLAT(1.0f / 3.0f);
    s = s * z + CT__VSPLAT(1.0f);
    ct__vf small = CT__VSPLAT(1.1283791670955126f) * x * s;
    ct__vf big = CT__VSPLAT(1.0f) - ct__v_erfc(x);
    return ct__vsel(ct__vabs(x) < CT__VSPLAT(0.5f), small, big);
}
CT__INLINE ct__vf ct__v_erfc_gelu(ct__vf x) {
    ct__vf z = ct__vabs(x);
    ct__vf t = CT__VSPLAT(1.0f) / (CT__VSPLAT(1.0f) + CT__VSPLAT(0.5f) * z);
    ct__vf p = ct__v_erfc_p(t);
    ct__vf ans = t * ct__v_exp(-z * z + p);
    return ct__vsel(x >= CT__VSPLAT(0.0f), ans, CT__VSPLAT(2.0f) - ans);
}
/* the erfc form, out of line so that the compiler keeps it off the common path */
static __attribute__((noinline)) ct__vf ct__v_gelu_tail(ct__vf x) {
    return CT__VSPLAT(0.5f) * x * ct__v_erfc_gelu(-x * CT__VSPLAT(0.7071067811865476f));
}
CT__INLINE ct__vf ct__v_gelu(ct__vf x) {   /* ct__gelu_exactf, lane by lane */
    ct__vi fast = x >= CT__VSPLAT(-5.5f);
    ct__vf slow = CT__VSPLAT(0.0f), u = ct__vabs(x), q = CT__VSPLAT(CT__GELU_Q_FIRST);
    u = ct__vsel(u < CT__VSPLAT(5.5f), u, CT__VSPLAT(5.5f));
#define CT__GELU_STEP(c) q = ct__vfma(q, u, CT__VSPLAT(c));
    CT__GELU_Q_REST(CT__GELU_STEP)
#undef CT__GELU_STEP
    ct__vf t = q + CT__VSPLAT(12582912.0f), f = q - (t - CT__VSPLAT(12582912.0f)), p = CT__VSPLAT(CT__EXP2_P_FIRST);
#define CT__EXP2_STEP(c) p = ct__vfma(p, f, CT__VSPLAT(c));
    CT__EXP2_P_REST(CT__EXP2_STEP)
#undef CT__EXP2_STEP
    ct__vf h = p * (ct__vf)(((ct__vi)t + CT__ISPLAT(127 - 0x4b400000)) << 23);
    if (ct__vany(~fast)) slow = ct__v_gelu_tail(x);
    return ct__vsel(fast, x * ct__vsel(x < CT__VSPLAT(0.0f), h, CT__VSPLAT(1.0f) - h), slow);
}
CT__INLINE ct__vf ct__v_gelu_tanh(ct__vf x) {   /* ct__gelu_tanhf */
    ct__vf y = x * ct__vfma(x * x, CT__VSPLAT(-0.0713548162726f), CT__VSPLAT(-1.5957691216057308f));
    return x / (CT__VSPLAT(1.0f) + ct__v_exp(y));
}
CT__INLINE ct__vf ct__v_silu(ct__vf x) { return x / (CT__VSPLAT(1.0f) + ct__v_exp(-x)); }
/* contiguous float32 loop: CT__VL lanes at a time, the tail through a padded vector */
#define CT__UVLOOP(fname, VEXPR) \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) { \
        CT__LOOP_ARGS \
        if (s[0] != 4 || s[1] != 4) { \
            ct__ew_strided(p, s, n, a, fname, 2, 4, 4, 0, 0); \
            return; \
        } \
        float *o = (float *)p[0]; \
        const float *in = (const float *)p[1]; \
        int64_t k = 0; \
        for (; k + CT__VL <= n; k += CT__VL) { \
            ct__vf v, r; \
            memcpy(&v, in + k, sizeof v); \
            r = VEXPR; \
            memcpy(o + k, &r, sizeof r); \
        } \
        if (k < n) { \
            ct__vf v = CT__VSPLAT(0.0f), r; \
            memcpy(&v, in + k, sizeof(float) * (size_t)(n - k)); \
            r = VEXPR; \
            memcpy(o + k, &r, sizeof(float) * (size_t)(n - k)); \
        } \
    }
CT__UVLOOP(ct__uv_exp, ct__v_exp(v))
CT__UVLOOP(ct__uv_tanh, ct__v_tanh(v))
CT__UVLOOP(ct__uv_sigmoid, ct__v_sigmoid(v))
CT__UVLOOP(ct__uv_erf, ct__v_erf(v))
CT__UVLOOP(ct__uv_erfc, ct__v_erfc(v))
CT__UVLOOP(ct__uv_silu, ct__v_silu(v))
CT__UVLOOP(ct__uv_gelu, mo ? ct__v_gelu_tanh(v) : ct__v_gelu(v))
#endif

/* ---- math helpers used by the expressions ---- */
#define CT__SELU_ALPHA 1.6732632423543772848170429916717
#define CT__SELU_SCALE 1.0507009873554804934193349852946
CT__INLINE float ct__sigmoidf(float x) { return ct__sigmoidf_v(x); }
CT__INLINE double ct__sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
CT__INLINE float ct__geluf(float x, int tanh_mode) { return tanh_mode ? ct__gelu_tanhf(x) : ct__gelu_exactf(x); }
CT__INLINE double ct__gelu(double x, int tanh_mode) {
    if (tanh_mode) return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    return 0.5 * x * (1.0 + erf(x * 0.7071067811865476));
}
CT__INLINE float ct__softplusf(float x, float beta, float th) { return x * beta > th ? x : log1pf(expf(x * beta)) / beta; }
CT__INLINE double ct__softplus(double x, double beta, double th) { return x * beta > th ? x : log1p(exp(x * beta)) / beta; }
CT__INLINE float ct__clampf(float x, float lo, float hi) { float r = x < lo ? lo : x; return r > hi ? hi : r; }
CT__INLINE double ct__clampd(double x, double lo, double hi) { double r = x < lo ? lo : x; return r > hi ? hi : r; }
CT__INLINE int64_t ct__clampi(int64_t x, int64_t lo, int64_t hi) { int64_t r = x < lo ? lo : x; return r > hi ? hi : r; }
CT__INLINE int64_t ct__d2i_sat(double v) { return v >= 9.2e18 ? INT64_MAX : v <= -9.2e18 ? INT64_MIN : (int64_t)v; }
CT__INLINE float ct__powf_s(float x, double e) {
    if (e == 2.0) return x * x;
    if (e == 0.5) return sqrtf(x);
    if (e == 1.0) return x;
    if (e == 3.0) return x * x * x;
    if (e == -1.0) return 1.0f / x;
    if (e == -2.0) return 1.0f / (x * x);
    if (e == -0.5) return 1.0f / sqrtf(x);
    return powf(x, (float)e);
}
CT__INLINE double ct__pow_s(double x, double e) {
    if (e == 2.0) return x * x;
    if (e == 0.5) return sqrt(x);
    if (e == 1.0) return x;
    if (e == 3.0) return x * x * x;
    if (e == -1.0) return 1.0 / x;
    return pow(x, e);
}
CT__INLINE int64_t ct__ipow(int64_t b, int64_t e) {
    uint64_t r = 1, base = (uint64_t)b;
    if (e < 0) return 0;  /* rejected earlier */
    while (e) {
        if (e & 1) r *= base;
        base *= base;
        e >>= 1;
    }
    return (int64_t)r;
}
CT__INLINE double ct__round_dec(double x, int64_t d) {
    if (d >= 0) { double m = pow(10.0, (double)d); return nearbyint(x * m) / m; }
    double m = pow(10.0, -(double)d);
    return nearbyint(x / m) * m;
}
CT__INLINE float ct__round_decf(float x, int64_t d) {
    if (d >= 0) { float m = (float)pow(10.0, (double)d); return nearbyintf(x * m) / m; }
    float m = (float)pow(10.0, -(double)d);
    return nearbyintf(x / m) * m;
}
CT__INLINE float ct__nan2numf(float x, double nanv, double pinf, double ninf) {
    return x != x ? (float)nanv : (x == INFINITY ? (float)pinf : (x == -INFINITY ? (float)ninf : x));
}
CT__INLINE double ct__nan2num(double x, double nanv, double pinf, double ninf) {
    return x != x ? nanv : (x == INFINITY ? pinf : (x == -INFINITY ? ninf : x));
}
CT__INLINE int64_t ct__iabs(int64_t x) { return x < 0 ? CT__ISUB(0, x) : x; }

/* ---- unary ops: U(ENUM, int?, bool?, float expr, double expr, int expr) ---- */
#define CT__ULOOP_ROW(U, name, E, sn, bw, fl, sv, IOK, BOK, FX, DX, IX, ...) U(E, IOK, BOK, FX, DX, IX)
#define CT__UNARY_LOOPS(U) \
    CT__UNARY_OPS_TABLE(CT__ULOOP_ROW, U) \
    U(LEAKY_RELU, N, N, x > 0.0f ? x : x * (float)a0, x > 0.0 ? x : x * a0, 0) \
    U(ELU, N, N, x > 0.0f ? (float)a1 * x : (float)(a1 * a0) * expm1f(x * (float)a2), \
      x > 0.0 ? a1 * x : a1 * a0 * expm1(x * a2), 0) \
    U(CELU, N, N, x > 0.0f ? x : (float)a0 * (expf(x * (float)(1.0 / a0)) - 1.0f), \
      x > 0.0 ? x : a0 * (exp(x * (1.0 / a0)) - 1.0), 0) \
    U(GELU, N, N, ct__geluf(x, mo), ct__gelu(x, mo), 0) \
    U(SOFTPLUS, N, N, ct__softplusf(x, (float)a0, (float)a1), ct__softplus(x, a0, a1), 0) \
    U(HARDTANH, Y, N, ct__clampf(x, (float)a0, (float)a1), ct__clampd(x, a0, a1), \
      ct__clampi(x, ct__d2i_sat(a0), ct__d2i_sat(a1))) \
    U(THRESHOLD, Y, N, x > (float)a0 ? x : (float)a1, x > a0 ? x : a1, (double)x > a0 ? x : ct__d2i_sat(a1)) \
    U(NAN_TO_NUM, Y, Y, ct__nan2numf(x, a0, a1, a2), ct__nan2num(x, a0, a1, a2), x) \
    U(CLAMP, Y, N, ct__clampf(x, (float)a0, (float)a1), ct__clampd(x, a0, a1), \
      ct__clampi(x, ct__d2i_sat(a0), ct__d2i_sat(a1))) \
    U(POW_SCALAR, Y, N, ct__powf_s(x, a0), ct__pow_s(x, a0), ct__ipow(x, (int64_t)a0)) \
    U(RPOW_SCALAR, Y, N, powf((float)a0, x), pow(a0, x), ct__ipow((int64_t)a0, x)) \
    U(ROUND_DECIMALS, N, N, ct__round_decf(x, i0), ct__round_dec(x, i0), 0)

/* bool-output unary ops: UB(ENUM, float expr, double expr, int expr) */
#define CT__UBLOOP_ROW(UB, name, E, sn, fl, FX, DX, IX) UB(E, FX, DX, IX)
#define CT__UNARY_BOOL_LOOPS(UB) CT__UNARY_PREDICATES_TABLE(CT__UBLOOP_ROW, UB)

#define CT__ULOOP_M(suffix, T, C, LD, ST, EXPR) CT__ULOOP(ct__u_##suffix, T, C, LD, ST, EXPR)
#define CT__U_GEN(E, ...) CT__WHEN_SEL(E)(CT__U_GEN_(E, __VA_ARGS__))
#define CT__U_GEN_(E, I, B, FX, DX, IX) \
    CT__GEN_FLOAT(CT__ULOOP_M, E, FX, DX) \
    CT__GEN_INT_##I(CT__ULOOP_M, E, IX) \
    CT__GEN_BOOL_##B(CT__ULOOP_M, E, IX) \
    static const ct__loop_fn ct__u_##E##_tab[10] = {CT__TAB_FLOAT(ct__u_, E), CT__TAB_INT_##I(ct__u_, E), CT__TAB_BOOL_##B(ct__u_, E)};
CT__UNARY_LOOPS(CT__U_GEN)

#define CT__ULOOPB_M(suffix, T, C, LD, ST, EXPR) CT__ULOOPB(ct__ub_##suffix, T, C, LD, EXPR)
#define CT__UB_GEN(E, ...) CT__WHEN_SEL(E)(CT__UB_GEN_(E, __VA_ARGS__))
#define CT__UB_GEN_(E, FX, DX, IX) \
    CT__GEN_FLOAT(CT__ULOOPB_M, E, FX, DX) \
    CT__GEN_INT_Y(CT__ULOOPB_M, E, IX) \
    CT__GEN_BOOL_Y(CT__ULOOPB_M, E, IX) \
    static const ct__loop_fn ct__ub_##E##_tab[10] = {CT__TAB_FLOAT(ct__ub_, E), CT__TAB_INT_Y(ct__ub_, E), CT__TAB_BOOL_Y(ct__ub_, E)};
CT__UNARY_BOOL_LOOPS(CT__UB_GEN)

/* float32 loops written with vector extensions, where they exist */
static ct__loop_fn ct__unary_vec_f32(int op) {
#ifdef CT__HAVE_VEC
    switch (op) {
    CT__WHEN_SEL(EXP)(case CT__OP_EXP: return ct__uv_exp;)
    CT__WHEN_SEL(TANH)(case CT__OP_TANH: return ct__uv_tanh;)
    CT__WHEN_SEL(SIGMOID)(case CT__OP_SIGMOID: return ct__uv_sigmoid;)
    CT__WHEN_SEL(ERF)(case CT__OP_ERF: return ct__uv_erf;)
    CT__WHEN_SEL(ERFC)(case CT__OP_ERFC: return ct__uv_erfc;)
    CT__WHEN_SEL(SILU)(case CT__OP_SILU: return ct__uv_silu;)
    CT__WHEN_SEL(GELU)(case CT__OP_GELU: return ct__uv_gelu;)
    default: break;
    }
#endif
    (void)op;
    return NULL;
}
static const ct__loop_fn *ct__unary_table(int op) {
    switch (op) {
#define CT__U_CASE(E, ...) CT__WHEN_SEL(E)(case CT__OP_##E: return ct__u_##E##_tab;)
        CT__UNARY_LOOPS(CT__U_CASE)
#undef CT__U_CASE
#define CT__UB_CASE(E, ...) CT__WHEN_SEL(E)(case CT__OP_##E: return ct__ub_##E##_tab;)
        CT__UNARY_BOOL_LOOPS(CT__UB_CASE)
#undef CT__UB_CASE
    default: return NULL;
    }
}

/* ---- binary ops: B(ENUM, int?, bool?, float expr, double expr, int expr) ---- */
CT__INLINE float ct__floordivf(float a, float b) {
    if (b == 0.0f) return a / b;
    float mod = fmodf(a, b), div = (a - mod) / b;
    if (mod != 0.0f && ((b < 0.0f) != (mod < 0.0f))) div -= 1.0f;
    float fl;
    if (div != 0.0f) { fl = floorf(div); if (div - fl > 0.5f) fl += 1.0f; }
    else fl = copysignf(0.0f, a / b);
    return fl;
}
CT__INLINE double ct__floordiv(double a, double b) {
    if (b == 0.0) return a / b;
    double mod = fmod(a, b), div = (a - mod) / b;
    if (mod != 0.0 && ((b < 0.0) != (mod < 0.0))) div -= 1.0;
    double fl;
    if (div != 0.0) { fl = floor(div); if (div - fl > 0.5) fl += 1.0; }
    else fl = copysign(0.0, a / b);
    return fl;
}
CT__INLINE float ct__remf(float a, float b) { float m = fmodf(a, b); if (m != 0.0f && ((b < 0.0f) != (m < 0.0f))) m += b; return m; }
CT__INLINE double ct__rem(double a, double b) { double m = fmod(a, b); if (m != 0.0 && ((b < 0.0) != (m < 0.0))) m += b; return m; }
/* integer division family; y == 0 reports ZeroDivisionError through *kerr */
CT__INLINE int64_t ct__idiv_trunc(int64_t x, int64_t y, int *err) {
    if (y == 0) { *err = 1; return 0; }
    if (y == -1) return CT__ISUB(0, x);
    return x / y;
}
CT__INLINE int64_t ct__idiv_floor(int64_t x, int64_t y, int *err) {
    if (y == 0) { *err = 1; return 0; }
    if (y == -1) return CT__ISUB(0, x);
    int64_t q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) q--;
    return q;
}
CT__INLINE int64_t ct__irem(int64_t x, int64_t y, int *err) {
    if (y == 0) { *err = 1; return 0; }
    if (y == -1) return 0;
    int64_t r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
}
CT__INLINE int64_t ct__ifmod(int64_t x, int64_t y, int *err) {
    if (y == 0) { *err = 1; return 0; }
    if (y == -1) return 0;
    return x % y;
}
/* integer pow with a tensor exponent: negative exponents give 0 except for
   bases 1 and -1 (PyTorch's powi) */
CT__INLINE int64_t ct__ipow_t(int64_t x, int64_t y, int *err) {
    (void)err;
    if (y < 0) {
        if (x == 1) return 1;
        if (x == -1) return (y & 1) ? -1 : 1;
        return 0;
    }
    return ct__ipow(x, y);
}
CT__INLINE float ct__maxf(float x, float y) { return x != x ? x : (y != y ? y : (x > y ? x : y)); }
CT__INLINE float ct__minf(float x, float y) { return x != x ? x : (y != y ? y : (x < y ? x : y)); }
CT__INLINE double ct__maxd(double x, double y) { return x != x ? x : (y != y ? y : (x > y ? x : y)); }
CT__INLINE double ct__mind(double x, double y) { return x != x ? x : (y != y ? y : (x < y ? x : y)); }
CT__INLINE float ct__xlogyf(float x, float y) { return y != y ? y : (x == 0.0f ? 0.0f : x * logf(y)); }
CT__INLINE double ct__xlogy(double x, double y) { return y != y ? y : (x == 0.0 ? 0.0 : x * log(y)); }
CT__INLINE int64_t ct__ishl(int64_t x, int64_t y) { return (y < 0 || y >= 64) ? 0 : CT__IW((uint64_t)x << y); }
CT__INLINE int64_t ct__ishr(int64_t x, int64_t y) { return (y < 0 || y >= 64) ? (x < 0 ? -1 : 0) : (x >> y); }

#define CT__KERR (&ct__kerr_tls)

#define CT__BINARY_LOOPS(B) \
    B(ADD, Y, Y, x + (float)a0 * y, x + a0 * y, CT__IADD(x, CT__IMUL((int64_t)a0, y))) \
    B(SUB, Y, N, x - (float)a0 * y, x - a0 * y, CT__ISUB(x, CT__IMUL((int64_t)a0, y))) \
    B(MUL, Y, Y, x * y, x * y, CT__IMUL(x, y)) \
    B(DIV, N, N, x / y, x / y, 0) \
    B(DIV_TRUNC, Y, N, truncf(x / y), trunc(x / y), ct__idiv_trunc(x, y, CT__KERR)) \
    B(DIV_FLOOR, Y, N, ct__floordivf(x, y), ct__floordiv(x, y), ct__idiv_floor(x, y, CT__KERR)) \
    B(REMAINDER, Y, N, ct__remf(x, y), ct__rem(x, y), ct__irem(x, y, CT__KERR)) \
    B(FMOD, Y, N, fmodf(x, y), fmod(x, y), ct__ifmod(x, y, CT__KERR)) \
    B(POW, Y, N, powf(x, y), pow(x, y), ct__ipow_t(x, y, CT__KERR)) \
    B(ATAN2, N, N, atan2f(x, y), atan2(x, y), 0) \
    B(MAXIMUM, Y, Y, ct__maxf(x, y), ct__maxd(x, y), (x > y ? x : y)) \
    B(MINIMUM, Y, Y, ct__minf(x, y), ct__mind(x, y), (x < y ? x : y)) \
    B(FMAX, Y, Y, fmaxf(x, y), fmax(x, y), (x > y ? x : y)) \
    B(FMIN, Y, Y, fminf(x, y), fmin(x, y), (x < y ? x : y)) \
    B(HYPOT, N, N, hypotf(x, y), hypot(x, y), 0) \
    B(COPYSIGN, N, N, copysignf(x, y), copysign(x, y), 0) \
    B(XLOGY, N, N, ct__xlogyf(x, y), ct__xlogy(x, y), 0) \
    B(BITWISE_AND, Y, Y, x, x, x & y) \
    B(BITWISE_OR, Y, Y, x, x, x | y) \
    B(BITWISE_XOR, Y, Y, x, x, x ^ y) \
    B(LSHIFT, Y, N, x, x, ct__ishl(x, y)) \
    B(RSHIFT, Y, N, x, x, ct__ishr(x, y))

/* bool-output binary ops: every dtype */
#define CT__BINARY_BOOL_LOOPS(BB) \
    BB(EQ, x == y) \
    BB(NE, x != y) \
    BB(LT, x < y) \
    BB(LE, x <= y) \
    BB(GT, x > y) \
    BB(GE, x >= y) \
    BB(LOGICAL_AND, (x != 0) && (y != 0)) \
    BB(LOGICAL_OR, (x != 0) || (y != 0)) \
    BB(LOGICAL_XOR, (x != 0) != (y != 0))

#define CT__BLOOP_M(suffix, T, C, LD, ST, EXPR) CT__BLOOP(ct__b_##suffix, T, T, C, LD, ST, EXPR)
#define CT__B_GEN(E, ...) CT__WHEN_SEL(E)(CT__B_GEN_(E, __VA_ARGS__))
#define CT__B_GEN_(E, I, Bo, FX, DX, IX) \
    CT__GEN_FLOAT(CT__BLOOP_M, E, FX, DX) \
    CT__GEN_INT_##I(CT__BLOOP_M, E, IX) \
    CT__GEN_BOOL_##Bo(CT__BLOOP_M, E, IX) \
    static const ct__loop_fn ct__b_##E##_tab[10] = {CT__TAB_FLOAT(ct__b_, E), CT__TAB_INT_##I(ct__b_, E), CT__TAB_BOOL_##Bo(ct__b_, E)};
CT__BINARY_LOOPS(CT__B_GEN)

#define CT__BBLOOP_M(suffix, T, C, LD, ST, EXPR) CT__BLOOP(ct__bb_##suffix, T, uint8_t, C, LD, CT__TOB, EXPR)
#define CT__BB_GEN(E, ...) CT__WHEN_SEL(E)(CT__BB_GEN_(E, __VA_ARGS__))
#define CT__BB_GEN_(E, X) \
    CT__GEN_FLOAT(CT__BBLOOP_M, E, X, X) \
    CT__GEN_INT_Y(CT__BBLOOP_M, E, X) \
    CT__GEN_BOOL_Y(CT__BBLOOP_M, E, X) \
    static const ct__loop_fn ct__bb_##E##_tab[10] = {CT__TAB_FLOAT(ct__bb_, E), CT__TAB_INT_Y(ct__bb_, E), CT__TAB_BOOL_Y(ct__bb_, E)};
CT__BINARY_BOOL_LOOPS(CT__BB_GEN)

static const ct__loop_fn *ct__binary_table(int op) {
    switch (op) {
#define CT__B_CASE(E, ...) CT__WHEN_SEL(E)(case CT__OP_##E: return ct__b_##E##_tab;)
        CT__BINARY_LOOPS(CT__B_CASE)
#undef CT__B_CASE
#define CT__BB_CASE(E, ...) CT__WHEN_SEL(E)(case CT__OP_##E: return ct__bb_##E##_tab;)
        CT__BINARY_BOOL_LOOPS(CT__BB_CASE)
#undef CT__BB_CASE
    default: return NULL;
    }
}

/* ---- casting copy: a loop per pair of compute types and per hot pair (ct__cast_loop
   routes the rest); a dtype to itself is a copy by element size (bits kept: NaN
   payloads, -0.0), strided rows included (contiguous() of a transposed tensor); the
   other loops have dense bodies only ---- */
#define CT__CLOOP(fname, TO, TI, CONV) \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) { \
        if (CT__UNLIKELY(s[0] != (int64_t)sizeof(TO) || s[1] != (int64_t)sizeof(TI))) { \
            ct__ew_strided(p, s, n, a, fname, 2, (int)sizeof(TO), (int)sizeof(TI), 0, 0); \
            return; \
        } \
        TO *o = (TO *)p[0]; \
        const TI *in = (const TI *)p[1]; \
        for (int64_t k = 0; k < n; k++) o[k] = CONV(in[k]); \
    }
#define CT__COPYLOOP(fname, T) \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) { \
        (void)a; \
        if (s[0] == (int64_t)sizeof(T) && s[1] == (int64_t)sizeof(T)) { \
            memmove(p[0], p[1], (size_t)n * sizeof(T)); \
        } else { \
            for (int64_t k = 0; k < n; k++) *(T *)(p[0] + k * s[0]) = *(const T *)(p[1] + k * s[1]); \
        } \
    }
CT__COPYLOOP(ct__copy_1, uint8_t)
CT__COPYLOOP(ct__copy_2, uint16_t)
CT__COPYLOOP(ct__copy_4, uint32_t)
CT__COPYLOOP(ct__copy_8, uint64_t)
/* conversions through float/double/int64, as C++ static_cast would go (defined for out-of-range) */
#define CT__TOF32(v) ((float)(v))
#define CT__TOF64(v) ((double)(v))
CT__INLINE uint8_t ct__f2b(double v) { return v != 0.0; }
#define CT__TO_F32_FROM_H(v) ct__h2f(v)
#define CT__TO_F32_FROM_BF(v) ct__bf2f(v)
#define CT__I64_FROM_F(v) ct__f2i64(v)
#define CT__I32_FROM_F(v) ((int32_t)ct__f2i64(v))
#define CT__U8_FROM_F(v) ((uint8_t)ct__f2i64(v))
CT__CLOOP(ct__c_f32_f64, float, double, CT__TOF32)
CT__CLOOP(ct__c_f32_f16, float, uint16_t, CT__TO_F32_FROM_H)
CT__CLOOP(ct__c_f32_bf16, float, uint16_t, CT__TO_F32_FROM_BF)
CT__CLOOP(ct__c_f32_i64, float, int64_t, CT__TOF32)
CT__CLOOP(ct__c_f32_i32, float, int32_t, CT__TOF32)
CT__CLOOP(ct__c_f32_u8, float, uint8_t, CT__TOF32)
CT__CLOOP(ct__c_f32_b8, float, uint8_t, CT__TOF32)
CT__CLOOP(ct__c_f64_f32, double, float, CT__TOF64)
CT__CLOOP(ct__c_f64_i64, double, int64_t, CT__TOF64)
CT__CLOOP(ct__c_f64_b8, double, uint8_t, CT__TOF64)
CT__CLOOP(ct__c_f16_f32, uint16_t, float, ct__f2h)
CT__CLOOP(ct__c_bf16_f32, uint16_t, float, ct__f2bf)
CT__CLOOP(ct__c_i64_f32, int64_t, float, CT__I64_FROM_F)
CT__CLOOP(ct__c_i64_f64, int64_t, double, CT__I64_FROM_F)
CT__CLOOP(ct__c_i64_i32, int64_t, int32_t, CT__C_I(int64_t))
CT__CLOOP(ct__c_i64_b8, int64_t, uint8_t, CT__C_I(int64_t))
CT__CLOOP(ct__c_i32_f32, int32_t, float, CT__I32_FROM_F)
CT__CLOOP(ct__c_i32_i64, int32_t, int64_t, CT__C_I(int32_t))
CT__CLOOP(ct__c_u8_f32, uint8_t, float, CT__U8_FROM_F)
CT__CLOOP(ct__c_b8_f32, uint8_t, float, ct__f2b)
CT__CLOOP(ct__c_b8_f64, uint8_t, double, ct__f2b)
CT__CLOOP(ct__c_b8_i64, uint8_t, int64_t, CT__TOB)
CT__CLOOP(ct__c_b8_b8, uint8_t, uint8_t, CT__TOB)
static const ct__loop_fn ct__cast_tab[10][10] = {
    {ct__copy_4, ct__c_f32_f64, ct__c_f32_f16, ct__c_f32_bf16, ct__c_f32_i64, ct__c_f32_i32, NULL, NULL, ct__c_f32_u8, ct__c_f32_b8},
    {ct__c_f64_f32, ct__copy_8, NULL, NULL, ct__c_f64_i64, NULL, NULL, NULL, NULL, ct__c_f64_b8},
    {ct__c_f16_f32, NULL, ct__copy_2, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {ct__c_bf16_f32, NULL, NULL, ct__copy_2, NULL, NULL, NULL, NULL, NULL, NULL},
    {ct__c_i64_f32, ct__c_i64_f64, NULL, NULL, ct__copy_8, ct__c_i64_i32, NULL, NULL, NULL, ct__c_i64_b8},
    {ct__c_i32_f32, NULL, NULL, NULL, ct__c_i32_i64, ct__copy_4, NULL, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL, ct__copy_2, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL, ct__copy_1, NULL, NULL},
    {ct__c_u8_f32, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ct__copy_1, NULL},
    {ct__c_b8_f32, ct__c_b8_f64, NULL, NULL, ct__c_b8_i64, NULL, NULL, NULL, NULL, ct__c_b8_b8}};

/* ---- complex loops (interleaved re, im; c10::complex's formulas) ---- */
static void ct__cx_cast(char **p, const int64_t *s, int64_t n, const ct__attrs *a) {
    double re, im;
    for (int64_t k = 0; k < n; k++) {
        ct__cx_load(p[1] + k * s[1], (ct_dtype)a->i[1], &re, &im);
        ct__cx_store(p[0] + k * s[0], (ct_dtype)a->i[0], re, im);
    }
}
/* x / y as PyTorch 1.13 divides (c10::complex and its vectorized kernel alike):
   ((ac + bd) + (bc - ad) i) / (c^2 + d^2), so x / 0 is nan + nan i. */
/* one loop per op (the compiler vectorizes the contiguous ones); y may be a
   broadcast scalar (stride 0) */
#define CT__CXBIN_LOOP(T, EXPR)                                                                  \
    do {                                                                                         \
        if (s[0] == 2 * (int64_t)sizeof(T) && s[1] == s[0] && s[2] == s[0]) {                     \
            T *o = (T *)p[0];                                                                    \
            const T *x = (const T *)p[1], *y = (const T *)p[2];                                  \
            for (int64_t k = 0; k < n; k++) {                                                    \
                T xr = x[2 * k], xi = x[2 * k + 1], yr = y[2 * k], yi = y[2 * k + 1], r0, r1;    \
                EXPR;                                                                            \
                o[2 * k] = r0;                                                                   \
                o[2 * k + 1] = r1;                                                               \
            }                                                                                    \
        } else if (s[0] == 2 * (int64_t)sizeof(T) && s[1] == s[0] && s[2] == 0) {                \
            T *o = (T *)p[0];                                                                    \
            const T *x = (const T *)p[1], yr = ((const T *)p[2])[0], yi = ((const T *)p[2])[1];  \
            for (int64_t k = 0; k < n; k++) {                                                    \
                T xr = x[2 * k], xi = x[2 * k + 1], r0, r1;                                      \
                EXPR;                                                                            \
                o[2 * k] = r0;                                                                   \
                o[2 * k + 1] = r1;                                                               \
            }                                                                                    \
        } else {                                                                                 \
            for (int64_t k = 0; k < n; k++) {                                                    \
                T *o = (T *)(p[0] + k * s[0]);                                                   \
                const T *x = (const T *)(p[1] + k * s[1]), *y = (const T *)(p[2] + k * s[2]);    \
                T xr = x[0], xi = x[1], yr = y[0], yi = y[1], r0, r1;                            \
                EXPR;                                                                            \
                o[0] = r0;                                                                       \
                o[1] = r1;                                                                       \
            }                                                                                    \
        }                                                                                        \
    } while (0)
/* complex64 mul and div of contiguous operands, 4 elements per AVX step, with
   the scalar loop's operations in its order (the same bits: no FMA) */
#if defined(__AVX__) && defined(CT__HAVE_VEC) && (defined(__x86_64__) || defined(__i386__))
#define CT__CX_AVX 1
static int64_t ct__cx_muldiv_avx(int div, const float *x, const float *y, float *o, int64_t n) {
    int64_t k = 0;
    for (; k + 4 <= n; k += 4) {
        __m256 a = _mm256_loadu_ps(x + 2 * k), b = _mm256_loadu_ps(y + 2 * k);
        __m256 br = _mm256_moveldup_ps(b), bi = _mm256_movehdup_ps(b), as = _mm256_shuffle_ps(a, a, 0xB1);
        __m256 t1 = _mm256_mul_ps(a, br), t2 = _mm256_mul_ps(as, bi);   /* (ar br, ai br), (ai bi, ar bi) */
        if (!div) {
            _mm256_storeu_ps(o + 2 * k, _mm256_addsub_ps(t1, t2));      /* (ar br - ai bi, ai br + ar bi) */
        } else {
            __m256 bb = _mm256_mul_ps(b, b), q = _mm256_add_ps(bb, _mm256_shuffle_ps(bb, bb, 0xB1));
            __m256 num = _mm256_addsub_ps(t1, _mm256_sub_ps(_mm256_setzero_ps(), t2));   /* (ar br + ai bi, ai br - ar bi) */
            _mm256_storeu_ps(o + 2 * k, _mm256_div_ps(num, q));
        }
    }
    return k;
}
#endif
#define CT__CXBIN(fname, T)                                                                      \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) {               \
        int op = (int)a->i[3];                                                                   \
        T al = (T)a->s[0];                                                                       \
        CT__CX_AVX_TRY(T)                                                                        \
        if (op == CT__OP_ADD) CT__CXBIN_LOOP(T, (r0 = xr + al * yr, r1 = xi + al * yi));         \
        else if (op == CT__OP_SUB) CT__CXBIN_LOOP(T, (r0 = xr - al * yr, r1 = xi - al * yi));    \
        else if (op == CT__OP_MUL) CT__CXBIN_LOOP(T, (r0 = xr * yr - xi * yi, r1 = xr * yi + xi * yr)); \
        else CT__CXBIN_LOOP(T, (r0 = (xr * yr + xi * yi) / (yr * yr + yi * yi), r1 = (xi * yr - xr * yi) / (yr * yr + yi * yi))); \
    }
#ifdef CT__CX_AVX
#define CT__CX_AVX_TRY(T)                                                                       \
        char *q_[3];   /* the rest after the vector steps (lives as long as p points at it) */ \
        if (sizeof(T) == 4 && (op == CT__OP_MUL || op == CT__OP_DIV) && s[0] == 8 && s[1] == 8 && s[2] == 8) { \
            int64_t done_ = ct__cx_muldiv_avx(op == CT__OP_DIV, (const float *)p[1], (const float *)p[2], (float *)p[0], n); \
            for (int j_ = 0; j_ < 3; j_++) q_[j_] = p[j_] + done_ * 8;                          \
            p = q_;                                                                             \
            n -= done_;                                                                         \
        }
#else
#define CT__CX_AVX_TRY(T)
#endif
CT__CXBIN(ct__cx_bin_c64, float)
CT__CXBIN(ct__cx_bin_c128, double)
#define CT__CXUN(fname, T) \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) { \
        int conj = a->i[3] == CT__OP_CONJ; \
        for (int64_t k = 0; k < n; k++) { \
            T *o = (T *)(p[0] + k * s[0]); \
            const T *x = (const T *)(p[1] + k * s[1]); \
            T xr = x[0], xi = x[1]; \
            o[0] = conj ? xr : -xr; \
            o[1] = -xi; \
        } \
    }
CT__CXUN(ct__cx_un_c64, float)
CT__CXUN(ct__cx_un_c128, double)
/* complex unary math in the element type (std::complex / C99 functions, as
   PyTorch's CPU kernels map them); abs and angle store (value, 0) */
/* the ops PyTorch 1.13 computes with its own formulas (so inf/nan come out as its
   do): square and integral powers by the schoolbook product, reciprocal as
   conj(z) / |z|^2, rsqrt as reciprocal(sqrt), sigmoid as reciprocal(1 + e^-z) with
   e^(a+bi) = e^a (cos b + i sin b), sgn as z / sqrt(a^2 + b^2) (0 where that is 0) */
#define CT__CX_PT(fname, T, Z, SQRT, EXP, COS, SIN)                                              \
    static void fname(int op, T e, const char *px, T *o) {                                     \
        T x[2], v[2];                                                                          \
        memcpy(x, px, sizeof x);                                                               \
        if (op == CT__OP_SGN) {                                                                \
            T m = SQRT(x[0] * x[0] + x[1] * x[1]);                                             \
            v[0] = m == 0 ? 0 : x[0] / m;                                                      \
            v[1] = m == 0 ? 0 : x[1] / m;                                                      \
        } else if (op == CT__OP_SQUARE || (op == CT__OP_POW_SCALAR && (e == 2 || e == 3))) {   \
            v[0] = x[0] * x[0] - x[1] * x[1];                                                  \
            v[1] = x[0] * x[1] + x[1] * x[0];                                                  \
            if (op == CT__OP_POW_SCALAR && e == 3) {                                           \
                T r0 = v[0] * x[0] - v[1] * x[1];                                              \
                v[1] = v[0] * x[1] + v[1] * x[0];                                              \
                v[0] = r0;                                                                     \
            }                                                                                  \
        } else if (op == CT__OP_POW_SCALAR && e != -1) {                                       \
            Z z, w;                                                                            \
            memcpy(&z, x, sizeof z);                                                           \
            w = e == 0.5 ? CT__ZC(csqrt, z) : ct__cpow_##T(z, e);                              \
            memcpy(v, &w, sizeof v);                                                           \
        } else {                                                                               \
            if (op == CT__OP_RSQRT) {                                                          \
                Z z, w;                                                                        \
                memcpy(&z, x, sizeof z);                                                       \
                w = CT__ZC(csqrt, z);                                                          \
                memcpy(x, &w, sizeof x);                                                       \
            } else if (op == CT__OP_SIGMOID) {                                                 \
                T m = EXP(-x[0]);                                                              \
                T b = -x[1];                                                                   \
                x[0] = 1 + m * COS(b);                                                         \
                x[1] = m * SIN(b);                                                             \
            }                                                                                  \
            T q = x[0] * x[0] + x[1] * x[1];                                                   \
            v[0] = x[0] / q;                                                                   \
            v[1] = -x[1] / q;                                                                  \
        }                                                                                      \
        memcpy(o, v, sizeof v);                                                                \
    }
#ifdef __cplusplus
static ct__zf ct__cpow_float(ct__zf z, float e) { return std::pow(z, ct__zf(e, 0.0f)); }
static ct__zd ct__cpow_double(ct__zd z, double e) { return std::pow(z, ct__zd(e, 0.0)); }
#else
static ct__zf ct__cpow_float(ct__zf z, float e) { return cpowf(z, e); }
static ct__zd ct__cpow_double(ct__zd z, double e) { return cpow(z, e); }
#endif
CT__CX_PT(ct__cx_pt_float, float, ct__zf, sqrtf, expf, cosf, sinf)
CT__CX_PT(ct__cx_pt_double, double, ct__zd, sqrt, exp, cos, sin)
#define CT__CXMATH(fname, T, Z)                                                                 \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) {               \
        int op = (int)a->i[3];                                                                 \
        for (int64_t k = 0; k < n; k++) {                                                      \
            T *o = (T *)(p[0] + k * s[0]), v[2];                                              \
            Z z, r;                                                                            \
            memcpy(&z, p[1] + k * s[1], sizeof z);                                             \
            switch (op) {                                                                      \
            case CT__OP_EXP: r = CT__ZC(cexp, z); break;                                       \
            case CT__OP_LOG: r = CT__ZC(clog, z); break;                                       \
            case CT__OP_LOG2: r = CT__ZC(clog, z) / (T)0.693147180559945309417232121458176568; break; \
            case CT__OP_LOG10: r = CT__ZC(clog, z) / (T)2.30258509299404568401799145468436421; break; \
            case CT__OP_SQRT: r = CT__ZC(csqrt, z); break;                                     \
            case CT__OP_SIN: r = CT__ZC(csin, z); break;                                       \
            case CT__OP_COS: r = CT__ZC(ccos, z); break;                                       \
            case CT__OP_TAN: r = CT__ZC(ctan, z); break;                                       \
            case CT__OP_ASIN: r = CT__ZC(casin, z); break;                                     \
            case CT__OP_ACOS: r = CT__ZC(cacos, z); break;                                     \
            case CT__OP_ATAN: r = CT__ZC(catan, z); break;                                     \
            case CT__OP_SINH: r = CT__ZC(csinh, z); break;                                     \
            case CT__OP_COSH: r = CT__ZC(ccosh, z); break;                                     \
            case CT__OP_TANH: r = CT__ZC(ctanh, z); break;                                     \
            case CT__OP_SQUARE: case CT__OP_POW_SCALAR: case CT__OP_SIGMOID: case CT__OP_RSQRT:   \
            case CT__OP_RECIPROCAL: case CT__OP_SGN: ct__cx_pt_##T(op, (T)a->s[0], p[1] + k * s[1], o); continue; \
            case CT__OP_ABS: v[0] = CT__ZC(cabs, z); v[1] = 0; memcpy(o, v, sizeof v); continue; \
            case CT__OP_ANGLE: v[0] = CT__ZC(carg, z); v[1] = 0; memcpy(o, v, sizeof v); continue; \
            default: r = z; break;                                                             \
            }                                                                                  \
            memcpy(o, &r, sizeof r);                                                           \
        }                                                                                      \
    }
CT__CXMATH(ct__cx_math_c64, float, ct__zf)
CT__CXMATH(ct__cx_math_c128, double, ct__zd)
/* the complex elementwise ops of the core (others come from companion headers) */
static int ct__cx_op(int op) {
    switch (op) {
    case CT__OP_ADD: case CT__OP_SUB: case CT__OP_MUL: case CT__OP_DIV: case CT__OP_NEG: case CT__OP_CONJ:
    case CT__OP_EXP: case CT__OP_LOG: case CT__OP_LOG2: case CT__OP_LOG10: case CT__OP_SQRT: case CT__OP_RSQRT:
    case CT__OP_SIN: case CT__OP_COS: case CT__OP_TAN: case CT__OP_ASIN: case CT__OP_ACOS: case CT__OP_ATAN:
    case CT__OP_SINH: case CT__OP_COSH: case CT__OP_TANH: case CT__OP_SIGMOID: case CT__OP_SQUARE:
    case CT__OP_ABS: case CT__OP_ANGLE: case CT__OP_SGN: case CT__OP_RECIPROCAL: case CT__OP_POW_SCALAR:
    case CT__OP_EQ: case CT__OP_NE: case CT__OP_ISNAN: case CT__OP_ISINF: case CT__OP_ISFINITE: return 1;
    default: return 0;
    }
}

/* The loop of a cast: the table's own (every pair of float32, float64, int64 and
   bool, the hot pairs, a dtype to itself), else through the compute types: the
   adapter widens the source (float16/bfloat16 to float32, integers to int64), the
   compute types' loop converts, and the adapter narrows into the destination. Each
   step is the one the direct conversion makes, so the bits are the same. */
static ct__loop_fn ct__cast_loop(ct_dtype dst, ct_dtype src, ct__ewroute *r, const ct__attrs **ap) {
    ct__loop_fn f = ct__cast_tab[dst][src];
    if (f) return f;
    ct_dtype cd = ct__ew_ctype(dst), cs = ct__ew_ctype(src);
    r->a = **ap;
    r->fn = ct__cast_tab[cd][cs];
    r->g.nop = 2;
    r->g.st[0] = (uint8_t)dst;
    r->g.st[1] = (uint8_t)src;
    r->g.ct[0] = (uint8_t)cd;
    r->g.ct[1] = (uint8_t)cs;
    *ap = &r->a;
    return ct__ew_routed;
}

/* A copy with a device tensor on either side runs on that backend's aten::copy_
   kernel (ctensor_cuda.h registers it): the CPU loop would read device memory
   from the host. No dispatcher: no autograd, listeners or version bump, as for
   the CPU loop. Without such a kernel it is the dispatcher's error, never a crash. */
static CT__NOINLINE int ct__copy_into_backend(ct_tensor *dst, const ct_tensor *src) {
    const int backend = CT_BACKEND_CUDA;   /* the one device type besides the CPU */
    ct__kernel_fn k = ct__kernels[backend][CT__OP_COPY];
    if (!k) return ct__no_kernel(&ct__ops[CT__OP_COPY], backend);
    ct_tensor *in[2];
    in[0] = dst;
    in[1] = (ct_tensor *)src;
    ct__call c;
    ct__call_init(&c, CT__OP_COPY, 2, in, &ct__attrs_none);
    c.odev = dst->device;
    c.nout = 1;
    c.out[0] = dst;
    c.cdt = dst->dtype;
    c.fast = 0;
    c.self_before = NULL;
    ct__tls *t = ct__tls_get();
    int saved_grad = t->grad_enabled;
    t->grad_enabled = 0;
    t->dispatch_depth++;
    int rc = k(&c);
    t->dispatch_depth--;
    t->grad_enabled = saved_grad;
    return rc;
}
/* dst[...] = src[...] with conversion and broadcasting (no dispatch, no autograd).
   The helpers built on it (ct__convert, ct__clone_detached, ct__contig_ref) serve
   every device through it. */
static int ct__copy_into(ct_tensor *dst, const ct_tensor *src) {
    if (CT__ISQUANT(dst->dtype) || CT__ISQUANT(src->dtype))
        return ct__failed(CT_ERR_DTYPE, "copy_: dtype %s to %s is not supported here", ct_dtype_name(src->dtype), ct_dtype_name(dst->dtype));
    if (CT__UNLIKELY(dst->device.type != CT_CPU || src->device.type != CT_CPU)) return ct__copy_into_backend(dst, src);
    ct_tensor *ops[2];
    ops[0] = dst;
    ops[1] = (ct_tensor *)src;
    ct__iter it;
    ct__iter_init(&it, 2, ops, dst->ndim, dst->shape);
    ct__attrs a;
    ct__attrs_init(&a);
    ct__ewroute r;
    const ct__attrs *ap = &a;
    ct__loop_fn fn;
    if (CT__ISCOMPLEX(dst->dtype) || CT__ISCOMPLEX(src->dtype)) {   /* complex on a side: through (re, im) */
        a.i[0] = dst->dtype;
        a.i[1] = src->dtype;
        fn = ct__cx_cast;
    } else {
        fn = ct__cast_loop(dst->dtype, src->dtype, &r, &ap);   /* sets ap */
    }
    ct__iter_run(&it, fn, ap);
    return 0;
}
/* A new contiguous (or `like`-layout) copy of x in dtype dt, outside autograd and scopes. */
static ct_tensor *ct__convert(const ct_tensor *x, ct_dtype dt) {
    ct__outinfo o;
    o.ndim = x->ndim;
    for (int d = 0; d < x->ndim; d++) o.shape[d] = x->shape[d];
    ct_tensor *in[1];
    in[0] = (ct_tensor *)x;
    ct__layout_like(&o, 1, in);
    ct_tensor *y = ct__alloc(dt, x->ndim, x->shape, o.has_strides ? o.strides : NULL, x->device);
    if (!y) return NULL;
    if (ct__copy_into(y, x)) { ct__decref(y); return NULL; }
    return y;
}
static ct_tensor *ct__clone_detached(const ct_tensor *x) { return ct__convert(x, x->dtype); }
/* Contiguous data of x: x itself (incref) when it already is, else a copy. */
static ct_tensor *ct__contig_ref(const ct_tensor *x) {
    if (ct__is_contig(x)) return ct__incref((ct_tensor *)x);
    ct_tensor *y = ct__alloc(x->dtype, x->ndim, x->shape, NULL, x->device);
    if (!y) return NULL;
    if (ct__copy_into(y, x)) { ct__decref(y); return NULL; }
    return y;
}
/* For host code that reads x's values (item, saving, gradcheck): a new contiguous
   CPU tensor of dtype dt with them, a device tensor's copied by its backend. */
static ct_tensor *ct__host_copy(const ct_tensor *x, ct_dtype dt) {
    ct_tensor *y = ct__alloc(dt, x->ndim, x->shape, NULL, ct__cpu_dev);
    if (!y) return NULL;
    if (ct__copy_into(y, x)) { ct__decref(y); return NULL; }
    return y;
}
/* Contiguous data of x on the host: x itself when it is a contiguous CPU tensor. */
static ct_tensor *ct__host_ref(const ct_tensor *x) {
    return x->device.type == CT_CPU ? ct__contig_ref(x) : ct__host_copy(x, x->dtype);
}

/* ============================================================================
   Elementwise ops: metas, kernels, public functions
   ========================================================================== */
static const char *ct__bool_msg(int op) {
    switch (op) {
    case CT__OP_NEG: return "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.";
    case CT__OP_SUB: return "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.";
    case CT__OP_RELU: return "Boolean inputs not supported for relu";
    case CT__OP_HARDTANH: case CT__OP_RELU6: return "Bool inputs not supported for hardtanh";
    default: return NULL;
    }
}
/* dtype rules shared by the elementwise metas: returns the compute dtype or NUM on error */
static ct_dtype ct__ew_dtype(int op, ct_dtype cdt, int *out_bool) {
    const ct__opdef *d = &ct__ops[op];
    if (ct__dt_ok(cdt) && CT__ISCOMPLEX(cdt) && ct__cx_op(op)) return *out_bool = (d->flags & CT__OPF_OUT_BOOL) != 0, cdt;
    if (!CT__ISREAL(cdt))
        return (ct_set_error(CT_ERR_DTYPE, "%s: not implemented for '%s'", d->name, CT__DTNAME(cdt)), CT_NUM_DTYPES);
    if (cdt == CT_BOOL && (d->flags & CT__OPF_NO_BOOL)) {
        const char *m = ct__bool_msg(op);
        if (m) ct_set_error(CT_ERR_DTYPE, "%s: %s", d->name, m);
        else ct_set_error(CT_ERR_DTYPE, "%s: not implemented for 'Bool'", d->name);
        return CT_NUM_DTYPES;
    }
    if ((CT__ISINT(cdt) || cdt == CT_BOOL) && (d->flags & CT__OPF_NO_INT))
        return (ct_set_error(CT_ERR_DTYPE, "%s: not implemented for '%s'", d->name, CT__DTNAME(cdt)), CT_NUM_DTYPES);
    if (CT__ISFLOAT(cdt) && (d->flags & CT__OPF_INT_ONLY))
        return (ct_set_error(CT_ERR_DTYPE, "%s: not implemented for '%s'", d->name, CT__DTNAME(cdt)), CT_NUM_DTYPES);
    if ((d->flags & CT__OPF_FLOAT) && !CT__ISFLOAT(cdt)) cdt = ct__default_dtype;
    *out_bool = (d->flags & CT__OPF_OUT_BOOL) != 0;
    return cdt;
}
/* The one output of a meta: a new contiguous tensor of dtype dt and the given shape.
   Every meta with such an output describes it through this helper. */
static ct__outinfo *ct__out_new(ct__call *c, ct_dtype dt, int ndim, const int64_t *shape) {
    ct__outinfo *o = &c->oi[0];
    c->nout = 1;
    o->kind = CT__OUT_NEW;
    o->dtype = dt;
    o->ndim = ndim;
    o->has_strides = 0;
    for (int d = 0; d < ndim; d++) o->shape[d] = shape[d];
    return o;
}
/* Output description for an elementwise call (shape already in o). */
static int ct__ew_out(ct__call *c, ct_dtype odt, int ndim, const int64_t *shape) {
    ct__outinfo *o = &c->oi[0];
    c->nout = 1;
    if (c->inplace) {
        ct_tensor *x = c->in[0];
        int same = x->ndim == ndim;
        for (int d = 0; same && d < ndim; d++) same = x->shape[d] == shape[d];
        if (!same)
            return ct__failed(CT_ERR_SHAPE, "%s_: output with shape %s doesn't match the broadcast shape %s", ct__ops[c->op].name,
                              CT__SHAPE(x), ct__fmt_shape(ndim, shape).s);
        if (!ct__can_cast(odt, x->dtype))
            return ct__failed(CT_ERR_DTYPE, "%s_: result type %s can't be cast to the desired output type %s", ct__ops[c->op].name,
                              CT__DTNAME(odt), CT__DTNAME(x->dtype));
        o->kind = CT__OUT_INPLACE;
        o->src = 0;
        return 0;
    }
    o->kind = CT__OUT_NEW;
    o->dtype = odt;
    o->ndim = ndim;
    for (int d = 0; d < ndim; d++) o->shape[d] = shape[d];
    ct__layout_like(o, c->nin, c->in);
    return 0;
}

static int ct__scalar_is_int(double v) { return v == floor(v) && fabs(v) < 9.2e18; }

/* The common case, decided before the general rules: operands contiguous,
   of one dtype the op computes in directly, no promotion, not in place.
   Then the output is contiguous and the kernel calls its loop once. */
static const ct__loop_fn *ct__unary_table(int op);
static const ct__loop_fn *ct__binary_table(int op);
CT__INLINE int ct__ew_fast_dtype(uint32_t flags, ct_dtype dt) {
    int k = ct__dt[dt].kind;   /* dt is a tensor's: in range */
    if (k > CT__KIND_FLOAT) return 0;   /* complex, quantized: not CT__ISREAL */
    if (k == CT__KIND_FLOAT) return !(flags & CT__OPF_INT_ONLY);
    if (flags & (CT__OPF_FLOAT | CT__OPF_NO_INT)) return 0;
    if (dt == CT_BOOL && (flags & CT__OPF_NO_BOOL)) return 0;
    return 1;
}
static int ct__ew_fast_out(ct__call *c, const ct_tensor *x, ct_dtype cdt, ct__loop_fn fn) {
    ct__outinfo *o = &c->oi[0];
    c->nout = 1;
    c->cdt = cdt;
    c->fast = 1;
    c->fast_fn = fn;
    o->kind = CT__OUT_NEW;
    o->dtype = (ct__ops[c->op].flags & CT__OPF_OUT_BOOL) ? CT_BOOL : cdt;
    o->ndim = x->ndim;
    o->has_strides = 0;
    int64_t n = 1;   /* x is contiguous: its numel fits */
    for (int d = 0; d < x->ndim; d++) { o->shape[d] = x->shape[d]; n *= x->shape[d]; }
    c->fast_n = n;
    return 0;
}

/* The metas' fast branches (also the dispatcher's lane, ct__ew_lane): 1 when taken. */
CT__INLINE int ct__meta_unary_fast(ct__call *c) {
    const ct_tensor *x = c->in[0];
    ct_dtype cdt = x->dtype;
    if (!c->inplace && CT__ISFLOAT(cdt) && (x->flags & CT__F_CONTIG) && c->op != CT__OP_BITWISE_NOT) {
        const ct__loop_fn *tab = ct__unary_table(c->op);
        ct__loop_fn vec = cdt == CT_FLOAT32 ? ct__unary_vec_f32(c->op) : NULL;
        if (tab && tab[cdt] && ct__ew_fast_dtype(ct__opdef_get(c->op)->flags, cdt))
            return !ct__ew_fast_out(c, x, cdt, vec ? vec : tab[cdt]);
    }
    return 0;
}
CT__INLINE int ct__meta_binary_fast(ct__call *c) {
    const ct_tensor *x = c->in[0], *y = c->in[1];
    if (c->inplace || x->dtype != y->dtype) return 0;
    if (x->ndim == 0 && y->ndim > 0) { const ct_tensor *s = x; x = y; y = s; }   /* 2 - t: shaped like t */
    if ((x->flags & (CT__F_WRAPPED_NUMBER | CT__F_CONTIG)) == CT__F_CONTIG &&
        (y->ndim == 0 || ((y->flags & CT__F_CONTIG) && ct_same_shape(x, y))) && (x->ndim > 0 || y->ndim == 0) &&
        ct__ew_fast_dtype(ct__opdef_get(c->op)->flags, x->dtype)) {
        const ct__loop_fn *tab = ct__binary_table(c->op);
        if (tab && tab[x->dtype]) return !ct__ew_fast_out(c, x, x->dtype, tab[x->dtype]);
    }
    return 0;
}
static int ct__meta_unary(ct__call *c) {
    ct_tensor *x = c->in[0];
    int ob = 0;
    ct_dtype cdt = x->dtype;
    if (ct__meta_unary_fast(c)) return 0;
    /* ops with scalar arguments promote like `x op scalar` */
    if (!CT__ISFLOAT(cdt) && CT__ISREAL(cdt)) {
        const ct__attrs *a = c->a;
        int promote = 0;
        switch (c->op) {
        case CT__OP_POW_SCALAR:
            if (!ct__scalar_is_int(a->s[0])) promote = 1;
            else if (a->s[0] < 0 && cdt != CT_BOOL)
                return ct__failed(CT_ERR_ARG, "pow: Integers to negative integer powers are not allowed.");
            break;
        case CT__OP_RPOW_SCALAR: promote = !ct__scalar_is_int(a->s[0]); break;
        case CT__OP_CLAMP:
            promote = (!isnan(a->s[0]) && !isinf(a->s[0]) && !ct__scalar_is_int(a->s[0])) ||
                      (!isnan(a->s[1]) && !isinf(a->s[1]) && !ct__scalar_is_int(a->s[1]));
            break;
        default: break;
        }
        if (promote) cdt = ct__default_dtype;
    }
    if (c->op == CT__OP_HARDTANH && cdt == CT_UINT8 && (c->a->s[0] < 0 || c->a->s[1] < 0))
        return ct__failed(CT_ERR_ARG, "hardtanh: cannot do hardtanh on an unsigned type with negative limits");
    if (c->op == CT__OP_RPOW_SCALAR && !CT__ISFLOAT(cdt) && c->a->s[0] != floor(c->a->s[0])) cdt = ct__default_dtype;
    if (c->op == CT__OP_SQUARE && cdt == CT_BOOL) cdt = CT_INT64;   /* square is pow(x, 2): bool promotes to int64 */
    cdt = ct__ew_dtype(c->op, cdt, &ob);
    if (cdt == CT_NUM_DTYPES) return -1;
    if (ob) cdt = x->dtype;  /* bool-output ops read the input as it is */
    c->cdt = cdt;
    if (CT__ISCOMPLEX(cdt) && (c->op == CT__OP_ABS || c->op == CT__OP_ANGLE))   /* complex -> its real dtype */
        return ct__ew_out(c, cdt == CT_COMPLEX64 ? CT_FLOAT32 : CT_FLOAT64, x->ndim, x->shape);
    return ct__ew_out(c, ob ? CT_BOOL : cdt, x->ndim, x->shape);
}

/* PyTorch's alpha_check (add, sub and their in-place and scalar forms): a fractional
   alpha cannot scale an integral or bool result. Every alpha-taking entry point reaches
   it through this meta, so none can forget it. */
static int ct__alpha_check(const ct__call *c) {
    double alpha = c->a->s[0];
    if (alpha == 1.0 || ct__scalar_is_int(alpha)) return 0;
    ct_dtype cdt = c->in[0]->dtype == c->in[1]->dtype ? c->in[0]->dtype : ct__result_type(2, c->in);
    if (cdt == CT_NUM_DTYPES || CT__ISFLOAT(cdt) || CT__ISCOMPLEX(cdt)) return 0;
    return ct__failed(CT_ERR_ARG, "%s%s: For integral input tensors, argument alpha must not be a floating point number (alpha=%s, %s).",
                      ct__ops[c->op].name, c->inplace ? "_" : "", ct__fmt_double(alpha).s, CT__DTNAME(cdt));
}

static int ct__meta_binary(ct__call *c) {
    int ndim, ob = 0;
    int64_t shape[CT_MAX_DIMS];
    const ct_tensor *x = c->in[0], *y = c->in[1];
    ct_dtype cdt;
    if ((c->op == CT__OP_ADD || c->op == CT__OP_SUB) && ct__alpha_check(c)) return -1;
    if (ct__meta_binary_fast(c)) return 0;
    if (x->dtype == y->dtype && !((x->flags | y->flags) & CT__F_WRAPPED_NUMBER) && ct_same_shape(x, y)) {
        /* same shape, same dtype */
        ndim = x->ndim;
        for (int d = 0; d < ndim; d++) shape[d] = x->shape[d];
        cdt = x->dtype;
    } else {
        if (ct__broadcast(ct__ops[c->op].name, 2, c->in, &ndim, shape)) return -1;
        cdt = ct__result_type(2, c->in);
    }
    if (cdt == CT_NUM_DTYPES)
        return ct__failed(CT_ERR_DTYPE, "%s: cannot promote %s and %s", ct__ops[c->op].name, CT__DTNAME(c->in[0]->dtype), CT__DTNAME(c->in[1]->dtype));
    if (c->op == CT__OP_SUB && x->dtype == CT_BOOL && y->dtype == CT_BOOL)
        return ct__failed(CT_ERR_DTYPE, "sub: Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.");
    if (c->op == CT__OP_SUB && (c->in[0]->dtype == CT_BOOL || c->in[1]->dtype == CT_BOOL))
        return ct__failed(CT_ERR_DTYPE, "sub: %s", ct__bool_msg(CT__OP_SUB));
    cdt = ct__ew_dtype(c->op, cdt, &ob);
    if (cdt == CT_NUM_DTYPES) return -1;
    c->cdt = cdt;
    return ct__ew_out(c, ob ? CT_BOOL : cdt, ndim, shape);
}

/* Runs a loop over out + inputs, converting inputs to `cdt` when needed and
   writing through a temporary when the output's dtype differs (in-place). */
static int ct__ew_run(ct__call *c, ct__loop_fn fn, const ct__attrs *a, int nin, ct_tensor *const *ins, const ct_dtype *want) {
    ct_tensor *ops[CT__ITER_MAXOP], *tmp[CT__ITER_MAXOP];
    int ntmp = 0, rc = 0, kerr, fast;
    ct_tensor *out = c->out[0], *dst;
    ct_dtype odt;
    int64_t n, st[CT__ITER_MAXOP];
    for (int i = 0; i < nin; i++) {
        ct_tensor *x = ins[i];
        if (x->dtype != want[i]) {
            x = ct__convert(x, want[i]);
            if (!x) { rc = -1; goto done; }
            tmp[ntmp++] = x;
        }
        ops[1 + i] = x;
    }
    dst = out;
    odt = (ct__ops[c->op].flags & CT__OPF_OUT_BOOL) ? CT_BOOL : c->cdt;
    if (out->dtype != odt) {
        dst = ct__alloc(odt, out->ndim, out->shape, NULL, out->device);
        if (!dst) { rc = -1; goto done; }
        tmp[ntmp++] = dst;
    }
    ops[0] = dst;
    ct__kerr_tls = 0;
    /* fast path: everything contiguous with one shape (or a wrapped scalar) */
    fast = ct__is_contig(dst);
    n = ct__shape_numel(dst->ndim, dst->shape);
    st[0] = (int64_t)ct__dt[dst->dtype].size;
    for (int i = 0; fast && i < nin; i++) {
        ct_tensor *x = ops[1 + i];
        if (x->ndim == 0) { st[1 + i] = 0; continue; }
        fast = ct__is_contig(x) && ct_same_shape(x, dst);
        st[1 + i] = (int64_t)ct__dt[x->dtype].size;
    }
    if (fast && n < 2 * CT__GRAIN) {
        char *p[CT__ITER_MAXOP];
        for (int k = 0; k <= nin; k++) p[k] = ct__ptr(ops[k]);
        if (n) fn(p, st, n, a);
    } else {
        ct__iter it;
        ct__iter_init(&it, nin + 1, ops, dst->ndim, dst->shape);
        ct__iter_run(&it, fn, a);
    }
    kerr = ct__kerr_tls;
    if (kerr) {
        rc = kerr == 2 ? ct__failed(CT_ERR_ARG, "%s: Integers to negative integer powers are not allowed.", ct__ops[c->op].name)
                       : ct__failed(CT_ERR_ARG, "%s: ZeroDivisionError", ct__ops[c->op].name);
        goto done;
    }
    if (dst != out) rc = ct__copy_into(out, dst);
done:
    for (int i = 0; i < ntmp; i++) ct__decref(tmp[i]);
    return rc;
}

/* Fast branch of the elementwise kernels (see ct__ew_fast_out). */
static CT__NOINLINE int ct__kerr_fail(const ct__call *c) {
    return ct__kerr_tls == 2 ? ct__failed(CT_ERR_ARG, "%s: Integers to negative integer powers are not allowed.", ct__ops[c->op].name)
                             : ct__failed(CT_ERR_ARG, "%s: ZeroDivisionError", ct__ops[c->op].name);
}
CT__INLINE int ct__ew_fast_body(ct__call *c, ct__loop_fn fn, int nin) {
    ct_tensor *out = c->out[0];
    int64_t n = c->fast_n, st[CT__ITER_MAXOP];
    int64_t es = (int64_t)ct__dt[c->cdt].size;   /* fast calls: every input is of dtype cdt */
    char *p[CT__ITER_MAXOP];
    st[0] = out->dtype == c->cdt ? es : (int64_t)ct__dt[out->dtype].size;
    p[0] = ct__ptr(out);
    for (int i = 0; i < nin; i++) {
        st[1 + i] = c->in[i]->ndim == 0 && out->ndim > 0 ? 0 : es;
        p[1 + i] = (char *)c->in[i]->storage->data + c->in[i]->offset * es;
    }
    ct__kerr_tls = 0;
    if (n < 2 * CT__GRAIN) {
        if (n) fn(p, st, n, c->a);
    } else {
        ct_tensor *ops[CT__ITER_MAXOP];
        ops[0] = out;
        for (int i = 0; i < nin; i++) ops[1 + i] = c->in[i];
        ct__iter it;
        ct__iter_init(&it, nin + 1, ops, out->ndim, out->shape);
        ct__iter_run(&it, fn, c->a);
    }
    return CT__UNLIKELY(ct__kerr_tls) ? ct__kerr_fail(c) : 0;
}
/* the kernels' call (inlined in them, it slowed the general path of in-place calls) */
static int ct__ew_fast_run(ct__call *c, ct__loop_fn fn, int nin) { return ct__ew_fast_body(c, fn, nin); }
/* |z| and arg z into a real output: complex64 through double (no overflow, no
   underflow, and a loop the compiler vectorizes), complex128 with hypot where the
   squares would leave the double range */
#define CT__CXABS(fname, T, DIRECT)                                                              \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) {               \
        int angle = a->i[3] == CT__OP_ANGLE;                                                   \
        if (!angle && s[0] == (int64_t)sizeof(T) && s[1] == 2 * (int64_t)sizeof(T)) {            \
            T *o = (T *)p[0];                                                                  \
            const T *x = (const T *)p[1];                                                      \
            for (int64_t k = 0; k < n; k++) o[k] = DIRECT(x[2 * k], x[2 * k + 1]);             \
            return;                                                                            \
        }                                                                                      \
        for (int64_t k = 0; k < n; k++) {                                                      \
            const T *x = (const T *)(p[1] + k * s[1]);                                         \
            *(T *)(p[0] + k * s[0]) = angle ? (T)atan2((double)x[1], (double)x[0]) : DIRECT(x[0], x[1]); \
        }                                                                                      \
    }
CT__INLINE float ct__abs_c64(float re, float im) { return (float)sqrt((double)re * re + (double)im * im); }
CT__INLINE double ct__abs_c128(double re, double im) {
    double m = fabs(re) > fabs(im) ? fabs(re) : fabs(im);
    return m > 1e-150 && m < 1e150 ? sqrt(re * re + im * im) : hypot(re, im);
}
CT__CXABS(ct__cx_abs_c64, float, ct__abs_c64)
CT__CXABS(ct__cx_abs_c128, double, ct__abs_c128)
/* eq, ne (both parts), isnan, isinf (either part), isfinite (both parts) into bool */
#define CT__CXPRED(fname, T)                                                                     \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) {               \
        int op = (int)a->i[3];                                                                 \
        for (int64_t k = 0; k < n; k++) {                                                      \
            const T *x = (const T *)(p[1] + k * s[1]);                                         \
            uint8_t r;                                                                         \
            if (op == CT__OP_EQ || op == CT__OP_NE) {                                          \
                const T *y = (const T *)(p[2] + k * s[2]);                                     \
                r = (uint8_t)((x[0] == y[0] && x[1] == y[1]) == (op == CT__OP_EQ));            \
            } else if (op == CT__OP_ISNAN) {                                                   \
                r = x[0] != x[0] || x[1] != x[1];                                              \
            } else if (op == CT__OP_ISINF) {                                                   \
                r = fabs((double)x[0]) == INFINITY || fabs((double)x[1]) == INFINITY;          \
            } else {                                                                           \
                r = fabs((double)x[0]) < INFINITY && fabs((double)x[1]) < INFINITY;            \
            }                                                                                  \
            *(uint8_t *)(p[0] + k * s[0]) = r;                                                 \
        }                                                                                      \
    }
CT__CXPRED(ct__cx_pred_c64, float)
CT__CXPRED(ct__cx_pred_c128, double)
/* complex calls of the ops ct__cx_op names: the op rides in attribute slot i[3] */
static CT__NOINLINE int ct__k_cx(ct__call *c, int nin) {
    if (ct__ops[c->op].flags & CT__OPF_OUT_BOOL) {
        ct__attrs a = *c->a;
        a.i[3] = c->op;
        ct_dtype want[2];
        want[0] = want[1] = c->cdt;
        return ct__ew_run(c, c->cdt == CT_COMPLEX64 ? ct__cx_pred_c64 : ct__cx_pred_c128, &a, nin, c->in, want);
    }
    if (c->op == CT__OP_ABS || c->op == CT__OP_ANGLE) {   /* straight into the real output */
        ct_tensor *ops[2];
        ops[0] = c->out[0];
        ops[1] = c->in[0];
        ct__attrs a;
        ct__attrs_init(&a);
        a.i[3] = c->op;
        ct__iter it;
        ct__iter_init(&it, 2, ops, ops[0]->ndim, ops[0]->shape);
        ct__iter_run(&it, c->cdt == CT_COMPLEX64 ? ct__cx_abs_c64 : ct__cx_abs_c128, &a);
        return 0;
    }
    ct__attrs a = *c->a;
    a.i[3] = c->op;
    ct_dtype want[2];
    want[0] = want[1] = c->cdt;
    int simple = c->op == CT__OP_NEG || c->op == CT__OP_CONJ;
    ct__loop_fn fn = nin == 2 ? (c->cdt == CT_COMPLEX64 ? ct__cx_bin_c64 : ct__cx_bin_c128)
                     : simple ? (c->cdt == CT_COMPLEX64 ? ct__cx_un_c64 : ct__cx_un_c128)
                              : (c->cdt == CT_COMPLEX64 ? ct__cx_math_c64 : ct__cx_math_c128);
    return ct__ew_run(c, fn, &a, nin, c->in, want);
}
static int ct__k_unary(ct__call *c) {
    if (c->fast) return ct__ew_fast_run(c, c->fast_fn, 1);
    if (CT__ISCOMPLEX(c->cdt)) return ct__k_cx(c, 1);
    ct__loop_fn vec = c->cdt == CT_FLOAT32 ? ct__unary_vec_f32(c->op) : NULL;
    ct__ewroute r;
    const ct__attrs *a = c->a;
    int obool = (ct__ops[c->op].flags & CT__OPF_OUT_BOOL) != 0;
    ct__loop_fn fn = vec ? vec : ct__ew_loop(ct__unary_table(c->op), c->cdt, 2, obool, 0, &r, &a);
    CT__WHEN_SEL(BITWISE_NOT)(if (c->op == CT__OP_BITWISE_NOT && c->cdt == CT_BOOL) fn = ct__ub_LOGICAL_NOT_tab[CT_BOOL];)  /* ~True == False */
    if (!fn) return ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s'", ct__ops[c->op].name, CT__DTNAME(c->cdt));
    ct_dtype want = c->cdt;
    return ct__ew_run(c, fn, a, 1, c->in, &want);
}
static int ct__k_binary(ct__call *c) {
    if (c->fast) return ct__ew_fast_run(c, c->fast_fn, 2);
    if (CT__ISCOMPLEX(c->cdt)) return ct__k_cx(c, 2);
    ct__ewroute r;
    const ct__attrs *a = c->a;
    int obool = (ct__ops[c->op].flags & CT__OPF_OUT_BOOL) != 0;
    ct__loop_fn fn = ct__ew_loop(ct__binary_table(c->op), c->cdt, 3, obool, 0, &r, &a);
    if (!fn) return ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s'", ct__ops[c->op].name, CT__DTNAME(c->cdt));
    ct_dtype want[2];
    want[0] = want[1] = c->cdt;
    return ct__ew_run(c, fn, a, 2, c->in, want);
}

/* The dispatcher's lane for calls the metas above send down their fast branch
   (CPU, the built-in kernel, not in place, alpha 1): ct__dispatch_run's steps for
   them, in its order, without its general loops. -2: not such a call, nothing done. */
static int ct__ew_lane(ct__call *c, ct__tls *t, const ct__opdef *d) {
    ct_tensor *x = c->in[0], *y = c->nin == 2 ? c->in[1] : x;
    if (!x || !y || !ct_device_eq(x->device, ct__cpu_dev) || !ct_device_eq(y->device, ct__cpu_dev) ||
        (CT__LOAD_ACQUIRE(&ct__cpu_kernels_set) && ct__kernels[CT_BACKEND_CPU][c->op]))
        return -2;
    c->fast = 0;
    if (d->meta == ct__meta_binary) {
        if (((c->op == CT__OP_ADD || c->op == CT__OP_SUB) && c->a->s[0] != 1.0) || !ct__meta_binary_fast(c)) return -2;
    } else if (!ct__meta_unary_fast(c)) {
        return -2;
    }
    ct__outinfo *o = &c->oi[0];
    if (CT__UNLIKELY(!ct__out_shape_ok(o)) && ct__out_shape_bad(d, o)) return -1;
    c->odev = ct__cpu_dev;
    /* ct__alloc's steps; the size is known to fit */
    int64_t nbytes = c->fast_n * (int64_t)ct__dt[o->dtype].size;
    int pc = nbytes <= ((int64_t)64 << (CT__PAIR_CLASSES - 1)) ? ct__size_class(nbytes) : 0;
    ct_tensor *out;
    if (nbytes <= ((int64_t)64 << (CT__PAIR_CLASSES - 1)) && !ct__allocator_set[CT_CPU] && t->free_pairs[pc]) {
        out = ct__pair_pop(t, pc, nbytes, ct__cpu_dev);
        ct__contig_geometry(out, o->dtype, o->ndim, o->shape, ct__cpu_dev);
    } else if (!(out = ct__alloc(o->dtype, o->ndim, o->shape, NULL, ct__cpu_dev))) {
        return -1;
    }
    c->out[0] = out;
    c->self_before = NULL;
    int saved_grad = t->grad_enabled;
    t->grad_enabled = 0;
    t->dispatch_depth++;
    int rc = d->kernel == ct__k_binary ? ct__ew_fast_body(c, c->fast_fn, 2)
           : d->kernel == ct__k_unary ? ct__ew_fast_body(c, c->fast_fn, 1) : d->kernel(c);
    t->dispatch_depth--;
    t->grad_enabled = saved_grad;
    if (CT__UNLIKELY(rc) || (saved_grad && !t->inference_mode && t->dispatch_depth == 0 &&
                             ((x->flags | y->flags) & CT__F_REQUIRES_GRAD) && ct__record(c, d, t))) {
        ct__decref(out);
        return -1;
    }
    return ct__own(out) ? 1 : -1;
}

/* ---- ternary: where, lerp, addcmul, addcdiv, clamp(tensor bounds), masked_fill ---- */
#define CT__TLOOP(fname, T, C, LD, ST, EXPR) \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) { \
        CT__LOOP_ARGS \
        const int64_t es = (int64_t)sizeof(T); \
        if (CT__UNLIKELY(s[0] != es || s[1] != es || s[2] != es || s[3] != es)) { \
            ct__ew_strided(p, s, n, a, fname, 4, (int)es, (int)es, (int)es, (int)es); \
            return; \
        } \
        T *o = (T *)p[0]; \
        const T *xs = (const T *)p[1], *ys = (const T *)p[2], *zs = (const T *)p[3]; \
        for (int64_t k = 0; k < n; k++) { \
            C x = LD(xs[k]), y = LD(ys[k]), z = LD(zs[k]); \
            (void)x; (void)y; (void)z; \
            o[k] = ST(EXPR); \
        } \
    }
/* where-style: p[1] is a bool condition; a select moves bits, so one loop per
   element size serves every dtype */
#define CT__WLOOP(fname, T) \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) { \
        (void)a; \
        if (s[0] == (int64_t)sizeof(T) && s[1] == 1 && s[2] == (int64_t)sizeof(T) && \
            (s[3] == 0 || s[3] == (int64_t)sizeof(T))) { \
            /* dense rows (relu's backward: where(y > 0, g, 0)): a select that vectorizes */ \
            T *CT_RESTRICT o = (T *)p[0]; \
            const uint8_t *CT_RESTRICT m = (const uint8_t *)p[1]; \
            const T *CT_RESTRICT x = (const T *)p[2], *CT_RESTRICT y = (const T *)p[3]; \
            if (s[3] == 0) { \
                const T z = *y; \
                for (int64_t k = 0; k < n; k++) o[k] = m[k] ? x[k] : z; \
            } else { \
                for (int64_t k = 0; k < n; k++) o[k] = m[k] ? x[k] : y[k]; \
            } \
            return; \
        } \
        for (int64_t k = 0; k < n; k++) \
            *(T *)(p[0] + k * s[0]) = *(const uint8_t *)(p[1] + k * s[1]) ? *(const T *)(p[2] + k * s[2]) \
                                                                          : *(const T *)(p[3] + k * s[3]); \
    }
CT__INLINE float ct__lerpf(float s, float e, float w) { return fabsf(w) < 0.5f ? s + w * (e - s) : e - (e - s) * (1.0f - w); }
CT__INLINE double ct__lerp(double s, double e, double w) { return fabs(w) < 0.5 ? s + w * (e - s) : e - (e - s) * (1.0 - w); }
CT__INLINE float ct__clamptf(float x, float lo, float hi) { return x != x ? x : fminf(fmaxf(x, lo), hi); }
CT__INLINE double ct__clamptd(double x, double lo, double hi) { return x != x ? x : fmin(fmax(x, lo), hi); }
#define CT__TERNARY_LOOPS(TL) \
    TL(LERP, N, N, ct__lerpf(x, y, z), ct__lerp(x, y, z), 0) \
    TL(ADDCMUL, Y, N, x + (float)a0 * y * z, x + a0 * y * z, CT__IADD(x, CT__IMUL(CT__IMUL((int64_t)a0, y), z))) \
    TL(ADDCDIV, N, N, x + (float)a0 * y / z, x + a0 * y / z, 0) \
    TL(CLAMP_T, Y, N, ct__clamptf(x, y, z), ct__clamptd(x, y, z), (x < y ? y : x) > z ? z : (x < y ? y : x))
#define CT__TLOOP_M(suffix, T, C, LD, ST, EXPR) CT__TLOOP(ct__t_##suffix, T, C, LD, ST, EXPR)
#define CT__T_GEN(E, I, Bo, FX, DX, IX) \
    CT__GEN_FLOAT(CT__TLOOP_M, E, FX, DX) \
    CT__GEN_INT_##I(CT__TLOOP_M, E, IX) \
    static const ct__loop_fn ct__t_##E##_tab[10] = {CT__TAB_FLOAT(ct__t_, E), CT__TAB_INT_##I(ct__t_, E), NULL};
CT__TERNARY_LOOPS(CT__T_GEN)
CT__WLOOP(ct__w_WHERE_1, uint8_t)
CT__WLOOP(ct__w_WHERE_2, uint16_t)
CT__WLOOP(ct__w_WHERE_4, uint32_t)
CT__WLOOP(ct__w_WHERE_8, uint64_t)
static const ct__loop_fn ct__w_WHERE_tab[10] = {ct__w_WHERE_4, ct__w_WHERE_8, ct__w_WHERE_2, ct__w_WHERE_2, ct__w_WHERE_8,
                                                ct__w_WHERE_4, ct__w_WHERE_2, ct__w_WHERE_1, ct__w_WHERE_1, ct__w_WHERE_1};

static int ct__meta_ternary(ct__call *c) {
    int ndim, ob = 0;
    int64_t shape[CT_MAX_DIMS];
    const char *name = ct__ops[c->op].name;
    if (ct__broadcast(name, 3, c->in, &ndim, shape)) return -1;
    ct_dtype cdt;
    if (c->op == CT__OP_LERP) {
        /* lerp wants one floating dtype for start and end (weight may be a scalar) */
        cdt = c->in[0]->dtype;
        if (c->in[1]->dtype != cdt)
            return ct__failed(CT_ERR_DTYPE, "lerp: expected dtype %s for `end` but got dtype %s", ct_dtype_name(cdt), ct_dtype_name(c->in[1]->dtype));
        if (c->in[2]->dtype != cdt && !(c->in[2]->flags & CT__F_WRAPPED_NUMBER))
            return ct__failed(CT_ERR_DTYPE, "lerp: expected dtype %s for `weight` but got dtype %s", ct_dtype_name(cdt), ct_dtype_name(c->in[2]->dtype));
    } else {
        cdt = ct__result_type(3, c->in);
    }
    if (c->op == CT__OP_ADDCDIV && (CT__ISINT(c->in[1]->dtype) || c->in[1]->dtype == CT_BOOL) &&
        (CT__ISINT(c->in[2]->dtype) || c->in[2]->dtype == CT_BOOL))
        return ct__failed(CT_ERR_DTYPE, "addcdiv: Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes.");
    cdt = ct__ew_dtype(c->op, cdt, &ob);
    if (cdt == CT_NUM_DTYPES) return -1;
    if (c->op == CT__OP_ADDCDIV && !CT__ISFLOAT(cdt)) cdt = ct__default_dtype;
    c->cdt = cdt;
    return ct__ew_out(c, cdt, ndim, shape);
}
static int ct__meta_where(ct__call *c) {
    int ndim;
    int64_t shape[CT_MAX_DIMS];
    if (c->in[0]->dtype != CT_BOOL && c->in[0]->dtype != CT_UINT8)
        return ct__failed(CT_ERR_DTYPE, "where: expected condition to be a boolean tensor, but got a tensor with dtype %s", CT__DTNAME(c->in[0]->dtype));
    if (ct__broadcast("where", 3, c->in, &ndim, shape)) return -1;
    ct_dtype cdt = ct__result_type(2, c->in + 1);
    if (!CT__ISREAL(cdt)) return ct__failed(CT_ERR_DTYPE, "where: not implemented for '%s'", CT__DTNAME(cdt));
    c->cdt = cdt;
    return ct__ew_out(c, cdt, ndim, shape);
}
static int ct__meta_masked_fill(ct__call *c) {
    /* inputs: x, mask, value (0-d) */
    ct_tensor *x = c->in[0], *mask = c->in[1], *v = c->in[2];
    int ndim;
    int64_t shape[CT_MAX_DIMS];
    if (mask->dtype != CT_BOOL)
        return ct__failed(CT_ERR_DTYPE, "masked_fill_: only supports boolean masks, but got mask with dtype %s", ct_dtype_name(mask->dtype));
    if (v->ndim != 0)
        return ct__failed(CT_ERR_ARG, "masked_fill_: only supports a 0-dimensional value tensor, but got tensor with %d dimension(s).", v->ndim);
    if (!CT__ISREAL(x->dtype)) return ct__failed(CT_ERR_DTYPE, "masked_fill: not implemented for '%s'", CT__DTNAME(x->dtype));
    if (ct__broadcast("masked_fill", 2, c->in, &ndim, shape)) return -1;
    c->cdt = x->dtype;
    return ct__ew_out(c, x->dtype, ndim, shape);
}
static int ct__k_ternary(ct__call *c) {
    ct_dtype want[3];
    ct_tensor *ins[3];
    ct__loop_fn fn = NULL;
    ct__ewroute r;
    const ct__attrs *a = c->a;
    switch (c->op) {
    case CT__OP_WHERE:
        fn = ct__w_WHERE_tab[c->cdt];
        want[0] = CT_BOOL; want[1] = want[2] = c->cdt;
        ins[0] = c->in[0]; ins[1] = c->in[1]; ins[2] = c->in[2];
        break;
    case CT__OP_MASKED_FILL:
        fn = ct__w_WHERE_tab[c->cdt];
        want[0] = CT_BOOL; want[1] = want[2] = c->cdt;
        ins[0] = c->in[1]; ins[1] = c->in[2]; ins[2] = c->in[0];
        break;
    default: {
        const ct__loop_fn *tab = c->op == CT__OP_LERP ? ct__t_LERP_tab : c->op == CT__OP_ADDCMUL ? ct__t_ADDCMUL_tab
                                 : c->op == CT__OP_ADDCDIV ? ct__t_ADDCDIV_tab : ct__t_CLAMP_T_tab;
        fn = ct__ew_loop(tab, c->cdt, 4, 0, 0, &r, &a);
        want[0] = want[1] = want[2] = c->cdt;
        ins[0] = c->in[0]; ins[1] = c->in[1]; ins[2] = c->in[2];
    }
    }
    if (!fn) return ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s'", ct__ops[c->op].name, CT__DTNAME(c->cdt));
    return ct__ew_run(c, fn, a, 3, ins, want);
}

/* ---- public elementwise functions ---- */
/* the public functions of the unary tables */
#define CT__UNARY_DEF(ARG_, name, E, ...) \
    CTENSOR_API ct_tensor *ct_##name(const ct_tensor *x) { return ct__op1(CT__OP_##E, x, &ct__attrs_none); }
CT__UNARY_OPS_TABLE(CT__UNARY_DEF, ~)
CT__UNARY_PREDICATES_TABLE(CT__UNARY_DEF, ~)

CTENSOR_API ct_tensor *ct_leaky_relu(const ct_tensor *x, double negative_slope) {
    ct__attrs a = ct__attrs_s(negative_slope);
    return ct__op1(CT__OP_LEAKY_RELU, x, &a);
}
CTENSOR_API ct_tensor *ct_elu(const ct_tensor *x, double alpha) {
    ct__attrs a = ct__attrs_s(alpha);
    a.s[1] = 1.0;  /* scale */
    a.s[2] = 1.0;  /* input_scale */
    return ct__op1(CT__OP_ELU, x, &a);
}
CTENSOR_API ct_tensor *ct_celu(const ct_tensor *x, double alpha) {
    if (alpha == 0.0) return ct__fail(CT_ERR_ARG, "celu: ZeroDivisionError (alpha must not be 0)");
    ct__attrs a = ct__attrs_s(alpha);
    return ct__op1(CT__OP_CELU, x, &a);
}
CTENSOR_API ct_tensor *ct_gelu(const ct_tensor *x, const char *approximate) {
    ct__attrs a;
    ct__attrs_init(&a);
    if (!approximate || !strcmp(approximate, "none")) a.mode = 0;
    else if (!strcmp(approximate, "tanh")) a.mode = 1;
    else return ct__fail(CT_ERR_ARG, "gelu: approximate argument must be either none or tanh (got '%s')", approximate);
    return ct__op1(CT__OP_GELU, x, &a);
}
CTENSOR_API ct_tensor *ct_softplus(const ct_tensor *x, double beta, double threshold) {
    ct__attrs a = ct__attrs_s(beta);
    a.s[1] = threshold;
    return ct__op1(CT__OP_SOFTPLUS, x, &a);
}
CTENSOR_API ct_tensor *ct_hardtanh(const ct_tensor *x, double min_val, double max_val) {
    if (min_val > max_val)
        return ct__fail(CT_ERR_ARG, "hardtanh: max_val (%s) must be greater than or equal to min_val (%s)", ct__fmt_double(max_val).s,
                        ct__fmt_double(min_val).s);
    ct__attrs a = ct__attrs_s(min_val);
    a.s[1] = max_val;
    return ct__op1(CT__OP_HARDTANH, x, &a);
}
CTENSOR_API ct_tensor *ct_threshold(const ct_tensor *x, double threshold, double value) {
    ct__attrs a = ct__attrs_s(threshold);
    a.s[1] = value;
    return ct__op1(CT__OP_THRESHOLD, x, &a);
}
static void ct__finite_range(ct_dtype dt, double *lo, double *hi) {
    switch (dt) {
    case CT_FLOAT16: *hi = 65504.0; break;
    case CT_BFLOAT16: *hi = 3.3895313892515355e38; break;
    case CT_FLOAT32: *hi = FLT_MAX; break;
    default: *hi = DBL_MAX; break;
    }
    *lo = -*hi;
}
CTENSOR_API ct_tensor *ct_nan_to_num(const ct_tensor *x, double nan, double posinf, double neginf) {
    if (!x) return ct__op1(CT__OP_NAN_TO_NUM, x, NULL);
    double lo, hi;
    ct__finite_range(x->dtype, &lo, &hi);
    ct__attrs a = ct__attrs_s(isnan(nan) ? 0.0 : nan);
    a.s[1] = isnan(posinf) ? hi : posinf;
    a.s[2] = isnan(neginf) ? lo : neginf;
    return ct__op1(CT__OP_NAN_TO_NUM, x, &a);
}
CTENSOR_API ct_tensor *ct_round_decimals(const ct_tensor *x, int decimals) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = decimals;
    if (decimals == 0) return ct_round(x);
    return ct__op1(CT__OP_ROUND_DECIMALS, x, &a);
}
CTENSOR_API ct_tensor *ct_pow_scalar(const ct_tensor *x, double exponent) {
    ct__attrs a = ct__attrs_s(exponent);
    return ct__op1(CT__OP_POW_SCALAR, x, &a);
}
CTENSOR_API ct_tensor *ct_rpow_scalar(double base, const ct_tensor *x) {
    ct__attrs a = ct__attrs_s(base);
    return ct__op1(CT__OP_RPOW_SCALAR, x, &a);
}
CTENSOR_API ct_tensor *ct_clamp(const ct_tensor *x, double min, double max) {
    if (isnan(min) && isnan(max)) return ct__fail(CT_ERR_ARG, "clamp: At least one of 'min' or 'max' must not be None");
    ct__attrs a = ct__attrs_s(isnan(min) ? -INFINITY : min);
    a.s[1] = isnan(max) ? INFINITY : max;
    return ct__op1(CT__OP_CLAMP, x, &a);
}
CTENSOR_API ct_tensor *ct_clamp_(ct_tensor *x, double min, double max) {
    if (isnan(min) && isnan(max)) return ct__fail(CT_ERR_ARG, "clamp_: At least one of 'min' or 'max' must not be None");
    ct__attrs a = ct__attrs_s(isnan(min) ? -INFINITY : min);
    a.s[1] = isnan(max) ? INFINITY : max;
    ct_tensor *in[1];
    in[0] = x;
    return ct__call1_(CT__OP_CLAMP, 1, in, &a);
}
CTENSOR_API ct_tensor *ct_relu_(ct_tensor *x) {
    ct__attrs a;
    ct__attrs_init(&a);
    ct_tensor *in[1];
    in[0] = x;
    return ct__call1_(CT__OP_RELU, 1, in, &a);
}

/* binary: tensor-tensor and tensor-scalar forms */
static ct_tensor *ct__binary_scalar(int op, const ct_tensor *x, double v, const ct__attrs *a, int reverse, int inplace) {
    if (!x) { ct__null_arg(ct__ops[op].name, 0); return NULL; }
    ct_tensor *w = ct__wrap(v, x->dtype);
    if (!w) return NULL;
    ct_tensor *in[2];
    in[0] = reverse ? w : (ct_tensor *)x;
    in[1] = reverse ? (ct_tensor *)x : w;
    ct_tensor *r = inplace ? ct__call1_(op, 2, in, a) : ct__call1(op, 2, in, a);
    ct__unwrap(w);
    return r;
}
#define CT__BINARY_DEF(name, OP) \
    CTENSOR_API ct_tensor *ct_##name(const ct_tensor *x, const ct_tensor *y) { \
        return ct__op2(CT__OP_##OP, x, y, &ct__attrs_none); \
    } \
    CTENSOR_API ct_tensor *ct_##name##_scalar(const ct_tensor *x, double y) { \
        return ct__binary_scalar(CT__OP_##OP, x, y, &ct__attrs_none, 0, 0); \
    }
CT__BINARY_DEF(mul, MUL) CT__BINARY_DEF(div, DIV) CT__BINARY_DEF(floor_divide, DIV_FLOOR)
CT__BINARY_DEF(remainder, REMAINDER) CT__BINARY_DEF(fmod, FMOD) CT__BINARY_DEF(atan2, ATAN2)
CT__BINARY_DEF(maximum, MAXIMUM) CT__BINARY_DEF(minimum, MINIMUM) CT__BINARY_DEF(hypot, HYPOT)
CT__BINARY_DEF(eq, EQ) CT__BINARY_DEF(ne, NE) CT__BINARY_DEF(lt, LT) CT__BINARY_DEF(le, LE) CT__BINARY_DEF(gt, GT)
CT__BINARY_DEF(ge, GE) CT__BINARY_DEF(logical_and, LOGICAL_AND) CT__BINARY_DEF(logical_or, LOGICAL_OR)
CT__BINARY_DEF(logical_xor, LOGICAL_XOR) CT__BINARY_DEF(bitwise_and, BITWISE_AND) CT__BINARY_DEF(bitwise_or, BITWISE_OR)
CT__BINARY_DEF(bitwise_xor, BITWISE_XOR) CT__BINARY_DEF(bitwise_left_shift, LSHIFT)
CT__BINARY_DEF(bitwise_right_shift, RSHIFT) CT__BINARY_DEF(fmax, FMAX) CT__BINARY_DEF(fmin, FMIN)
CT__BINARY_DEF(copysign, COPYSIGN) CT__BINARY_DEF(xlogy, XLOGY)

/* pow: tensor ** scalar has its own op (PyTorch's pow(Tensor, Scalar)) */
CTENSOR_API ct_tensor *ct_pow(const ct_tensor *x, const ct_tensor *y) {
    ct__attrs a;
    ct__attrs_init(&a);
    return ct__op2(CT__OP_POW, x, y, &a);
}
CTENSOR_API ct_tensor *ct_add_alpha(const ct_tensor *x, const ct_tensor *y, double alpha) {
    ct__attrs a = ct__attrs_s(alpha);
    return ct__op2(CT__OP_ADD, x, y, &a);
}
CTENSOR_API ct_tensor *ct_sub_alpha(const ct_tensor *x, const ct_tensor *y, double alpha) {
    ct__attrs a = ct__attrs_s(alpha);
    return ct__op2(CT__OP_SUB, x, y, &a);
}
CTENSOR_API ct_tensor *ct_add(const ct_tensor *x, const ct_tensor *y) { return ct__op2(CT__OP_ADD, x, y, &ct__attrs_alpha1); }
CTENSOR_API ct_tensor *ct_sub(const ct_tensor *x, const ct_tensor *y) { return ct__op2(CT__OP_SUB, x, y, &ct__attrs_alpha1); }
CTENSOR_API ct_tensor *ct_add_scalar(const ct_tensor *x, double v) {
    ct__attrs a = ct__attrs_s(1.0);
    return ct__binary_scalar(CT__OP_ADD, x, v, &a, 0, 0);
}
CTENSOR_API ct_tensor *ct_sub_scalar(const ct_tensor *x, double v) {
    ct__attrs a = ct__attrs_s(1.0);
    return ct__binary_scalar(CT__OP_SUB, x, v, &a, 0, 0);
}
CTENSOR_API ct_tensor *ct_rsub_scalar(double v, const ct_tensor *x) {
    ct__attrs a = ct__attrs_s(1.0);
    return ct__binary_scalar(CT__OP_SUB, x, v, &a, 1, 0);
}
CTENSOR_API ct_tensor *ct_rdiv_scalar(double v, const ct_tensor *x) {
    ct__attrs a;
    ct__attrs_init(&a);
    return ct__binary_scalar(CT__OP_DIV, x, v, &a, 1, 0);
}
CTENSOR_API ct_tensor *ct_div_mode(const ct_tensor *x, const ct_tensor *y, const char *mode) {
    ct__attrs a;
    ct__attrs_init(&a);
    if (!mode) return ct__op2(CT__OP_DIV, x, y, &a);
    if (!strcmp(mode, "trunc")) return ct__op2(CT__OP_DIV_TRUNC, x, y, &a);
    if (!strcmp(mode, "floor")) return ct__op2(CT__OP_DIV_FLOOR, x, y, &a);
    return ct__fail(CT_ERR_ARG, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '%s'", mode);
}
CTENSOR_API ct_tensor *ct_add_(ct_tensor *x, const ct_tensor *y) { return ct_add_alpha_(x, y, 1.0); }
CTENSOR_API ct_tensor *ct_add_alpha_(ct_tensor *x, const ct_tensor *y, double alpha) {
    ct__attrs a = ct__attrs_s(alpha);
    ct_tensor *in[2];
    in[0] = x;
    in[1] = (ct_tensor *)y;
    return ct__call1_(CT__OP_ADD, 2, in, &a);
}
CTENSOR_API ct_tensor *ct_sub_(ct_tensor *x, const ct_tensor *y) {
    ct__attrs a = ct__attrs_s(1.0);
    ct_tensor *in[2];
    in[0] = x;
    in[1] = (ct_tensor *)y;
    return ct__call1_(CT__OP_SUB, 2, in, &a);
}
CTENSOR_API ct_tensor *ct_mul_(ct_tensor *x, const ct_tensor *y) {
    ct__attrs a;
    ct__attrs_init(&a);
    ct_tensor *in[2];
    in[0] = x;
    in[1] = (ct_tensor *)y;
    return ct__call1_(CT__OP_MUL, 2, in, &a);
}
CTENSOR_API ct_tensor *ct_div_(ct_tensor *x, const ct_tensor *y) {
    ct__attrs a;
    ct__attrs_init(&a);
    ct_tensor *in[2];
    in[0] = x;
    in[1] = (ct_tensor *)y;
    return ct__call1_(CT__OP_DIV, 2, in, &a);
}
CTENSOR_API ct_tensor *ct_add_scalar_(ct_tensor *x, double v) {
    ct__attrs a = ct__attrs_s(1.0);
    return ct__binary_scalar(CT__OP_ADD, x, v, &a, 0, 1);
}
CTENSOR_API ct_tensor *ct_mul_scalar_(ct_tensor *x, double v) {
    ct__attrs a;
    ct__attrs_init(&a);
    return ct__binary_scalar(CT__OP_MUL, x, v, &a, 0, 1);
}

/* ternary public functions */
CTENSOR_API ct_tensor *ct_where(const ct_tensor *cond, const ct_tensor *x, const ct_tensor *y) {
    ct__attrs a;
    ct__attrs_init(&a);
    return ct__op3(CT__OP_WHERE, cond, x, y, &a);
}
CTENSOR_API ct_tensor *ct_where_scalar(const ct_tensor *cond, const ct_tensor *x, double y) {
    if (!x) return ct_where(cond, x, NULL);
    ct_tensor *w = ct__wrap(y, x->dtype);
    if (!w) return NULL;
    ct_tensor *r = ct_where(cond, x, w);
    ct__unwrap(w);
    return r;
}
CTENSOR_API ct_tensor *ct_clamp_tensor(const ct_tensor *x, const ct_tensor *min, const ct_tensor *max) {
    if (!x) { ct__null_arg("clamp", 0); return NULL; }
    if (!min && !max) return ct__fail(CT_ERR_ARG, "clamp: At least one of 'min' or 'max' must not be None");
    ct_tensor *lo = (ct_tensor *)min, *hi = (ct_tensor *)max, *tl = NULL, *th = NULL;
    ct_dtype dt = min ? min->dtype : max->dtype;
    if (!lo) lo = tl = ct__wrap(CT__ISFLOAT(dt) ? -INFINITY : -9.2e18, dt);
    if (!hi) hi = th = ct__wrap(CT__ISFLOAT(dt) ? INFINITY : 9.2e18, dt);
    ct__attrs a;
    ct__attrs_init(&a);
    ct_tensor *r = (lo && hi) ? ct__op3(CT__OP_CLAMP_T, x, lo, hi, &a) : NULL;
    ct__unwrap(tl);
    ct__unwrap(th);
    return r;
}
CTENSOR_API ct_tensor *ct_masked_fill_tensor(const ct_tensor *x, const ct_tensor *mask, const ct_tensor *value) {
    ct__attrs a;
    ct__attrs_init(&a);
    return ct__op3(CT__OP_MASKED_FILL, x, mask, value, &a);
}
CTENSOR_API ct_tensor *ct_masked_fill(const ct_tensor *x, const ct_tensor *mask, double value) {
    if (!x) return ct_masked_fill_tensor(x, mask, NULL);
    if (CT__ISREAL(x->dtype) && ct__check_value_arg("masked_fill", x->dtype, value)) return NULL;
    ct_tensor *w = ct__wrap(value, x->dtype);
    if (!w) return NULL;
    ct_tensor *r = ct_masked_fill_tensor(x, mask, w);
    ct__unwrap(w);
    return r;
}
CTENSOR_API ct_tensor *ct_masked_fill_(ct_tensor *x, const ct_tensor *mask, double value) {
    if (!x) return ct_masked_fill_tensor(x, mask, NULL);
    if (CT__ISREAL(x->dtype) && ct__check_value_arg("masked_fill_", x->dtype, value)) return NULL;
    ct_tensor *w = ct__wrap(value, x->dtype);
    if (!w) return NULL;
    ct__attrs a;
    ct__attrs_init(&a);
    ct_tensor *in[3];
    in[0] = x;
    in[1] = (ct_tensor *)mask;
    in[2] = w;
    ct_tensor *r = ct__call1_(CT__OP_MASKED_FILL, 3, in, &a);
    ct__unwrap(w);
    return r;
}
CTENSOR_API ct_tensor *ct_lerp(const ct_tensor *s, const ct_tensor *e, const ct_tensor *w) {
    ct__attrs a;
    ct__attrs_init(&a);
    return ct__op3(CT__OP_LERP, s, e, w, &a);
}
static ct_tensor *ct__lerp_scalar(ct_tensor *s, const ct_tensor *e, double weight, int inplace) {
    if (!s) return ct_lerp(s, e, NULL);
    ct_tensor *w = ct__wrap(weight, s->dtype);
    if (!w) return NULL;
    ct__attrs a;
    ct__attrs_init(&a);
    ct_tensor *in[3];
    in[0] = s;
    in[1] = (ct_tensor *)e;
    in[2] = w;
    ct_tensor *r = inplace ? ct__call1_(CT__OP_LERP, 3, in, &a) : ct__call1(CT__OP_LERP, 3, in, &a);
    ct__unwrap(w);
    return r;
}
CTENSOR_API ct_tensor *ct_lerp_scalar(const ct_tensor *s, const ct_tensor *e, double weight) {
    return ct__lerp_scalar((ct_tensor *)s, e, weight, 0);
}
CTENSOR_API ct_tensor *ct_lerp_scalar_(ct_tensor *s, const ct_tensor *e, double weight) { return ct__lerp_scalar(s, e, weight, 1); }
CTENSOR_API ct_tensor *ct_addcmul(const ct_tensor *x, const ct_tensor *t1, const ct_tensor *t2, double value) {
    ct__attrs a = ct__attrs_s(value);
    return ct__op3(CT__OP_ADDCMUL, x, t1, t2, &a);
}
CTENSOR_API ct_tensor *ct_addcdiv(const ct_tensor *x, const ct_tensor *t1, const ct_tensor *t2, double value) {
    ct__attrs a = ct__attrs_s(value);
    return ct__op3(CT__OP_ADDCDIV, x, t1, t2, &a);
}
CTENSOR_API ct_tensor *ct_addcmul_(ct_tensor *x, const ct_tensor *t1, const ct_tensor *t2, double value) {
    ct__attrs a = ct__attrs_s(value);
    ct_tensor *in[3];
    in[0] = x; in[1] = (ct_tensor *)t1; in[2] = (ct_tensor *)t2;
    return ct__call1_(CT__OP_ADDCMUL, 3, in, &a);
}
CTENSOR_API ct_tensor *ct_addcdiv_(ct_tensor *x, const ct_tensor *t1, const ct_tensor *t2, double value) {
    ct__attrs a = ct__attrs_s(value);
    ct_tensor *in[3];
    in[0] = x; in[1] = (ct_tensor *)t1; in[2] = (ct_tensor *)t2;
    return ct__call1_(CT__OP_ADDCDIV, 3, in, &a);
}
CTENSOR_API ct_tensor *ct_isclose(const ct_tensor *x, const ct_tensor *y, double rtol, double atol, int equal_nan) {
    /* |x - y| <= atol + rtol * |y|, plus exact equality (infinities), plus NaN == NaN if asked */
    if (!x || !y) { ct__null_arg("isclose", x ? 1 : 0); return NULL; }
    if (x->dtype != y->dtype)
        return ct__fail(CT_ERR_DTYPE, "isclose: %s did not match %s", ct_dtype_name(x->dtype), ct_dtype_name(y->dtype));
    int s = ct_scope_begin();
    ct_tensor *r = ct_eq(x, y);
    if (CT__ISFLOAT(x->dtype)) {
        ct_tensor *diff = ct_abs(ct_sub(x, y));
        ct_tensor *tol = ct_add_scalar(ct_mul_scalar(ct_abs(y), rtol), atol);
        r = ct_logical_or(r, ct_logical_and(ct_isfinite(diff), ct_le(diff, tol)));
        if (equal_nan) r = ct_logical_or(r, ct_logical_and(ct_isnan(x), ct_isnan(y)));
    }
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

/* ============================================================================
   Creation and conversion
   ========================================================================== */
static int ct__meta_inplace_self(ct__call *c) {
    c->nout = 1;
    c->oi[0].kind = CT__OUT_INPLACE;
    c->oi[0].src = 0;
    c->cdt = c->in[0]->dtype;
    return 0;
}
static void ct__fill_raw(ct_tensor *x, double v) {
    /* write one converted element, then replicate it */
    int64_t n = ct__shape_numel(x->ndim, x->shape);
    if (n == 0) return;
    size_t es = ct__dt[x->dtype].size;
    unsigned char one[16];
    ct__store_f64(one, x->dtype, v);
    if (ct__is_contig(x)) {
        char *p = ct__ptr(x);
        int zero = 1;
        for (size_t b = 0; b < es; b++) zero &= one[b] == 0;
        if (zero) { memset(p, 0, (size_t)n * es); return; }
        switch (es) {
        case 1: memset(p, one[0], (size_t)n); return;
        case 2: { uint16_t w; memcpy(&w, one, 2); for (int64_t k = 0; k < n; k++) ((uint16_t *)p)[k] = w; return; }
        case 4: { uint32_t w; memcpy(&w, one, 4); for (int64_t k = 0; k < n; k++) ((uint32_t *)p)[k] = w; return; }
        case 16: for (int64_t k = 0; k < n; k++) memcpy(p + 16 * k, one, 16); return;
        default: { uint64_t w; memcpy(&w, one, 8); for (int64_t k = 0; k < n; k++) ((uint64_t *)p)[k] = w; return; }
        }
    }
    /* strided: copy from a broadcast 0-d source */
    ct_tensor src;
    ct_storage st;
    memset(&src, 0, sizeof src);
    memset(&st, 0, sizeof st);
    st.data = one;
    src.storage = &st;
    src.dtype = x->dtype;
    ct__copy_into(x, &src);
}
static int ct__k_fill(ct__call *c) {
    if (!CT__ISREAL(c->in[0]->dtype) && !ct_dtype_is_complex(c->in[0]->dtype)) return ct__failed(CT_ERR_DTYPE, "fill_: not implemented for '%s'", CT__DTNAME(c->in[0]->dtype));
    ct__fill_raw(c->in[0], c->a->s[0]);
    return 0;
}
static int ct__meta_copy(ct__call *c) {
    ct_tensor *x = c->in[0], *src = c->in[1];
    int ndim;
    int64_t shape[CT_MAX_DIMS];
    if (ct__broadcast("copy_", 2, c->in, &ndim, shape)) return -1;
    if (!ct_same_shape(x, src) && (ndim != x->ndim || ct__shape_numel(ndim, shape) != ct_numel(x)))
        return ct__failed(CT_ERR_SHAPE, "copy_: output with shape %s doesn't match the broadcast shape %s", CT__SHAPE(x), ct__fmt_shape(ndim, shape).s);
    for (int d = 0; d < ndim; d++)
        if (shape[d] != x->shape[d])
            return ct__failed(CT_ERR_SHAPE, "copy_: output with shape %s doesn't match the broadcast shape %s", CT__SHAPE(x), ct__fmt_shape(ndim, shape).s);
    return ct__meta_inplace_self(c);
}
static int ct__k_copy(ct__call *c) {
    ct_tensor *x = c->in[0], *src = c->in[1];
    /* src may share memory with x: copy through a temporary when it does */
    if (src->storage == x->storage) {
        ct_tensor *t = ct__clone_detached(src);
        if (!t) return -1;
        int rc = ct__copy_into(x, t);
        ct__decref(t);
        return rc;
    }
    return ct__copy_into(x, src);
}
/* to (dtype from the attributes) and clone (the input's dtype); memory_format
   in a->mode: a ct_memory_format */
static int ct__meta_copy_as(ct__call *c, ct_dtype dt) {
    ct_tensor *x = c->in[0];
    ct__outinfo *o = &c->oi[0];
    if (!ct__dt_ok(dt) || CT__ISQUANT(dt) || CT__ISQUANT(x->dtype))
        return ct__failed(CT_ERR_DTYPE, "to: conversion from %s to %s is not supported", ct_dtype_name(x->dtype), ct_dtype_name(dt));
    if (ct__fmt_ok(ct__ops[c->op].name, x, (ct_memory_format)c->a->mode)) return -1;
    c->nout = 1;
    o->kind = CT__OUT_NEW;
    o->dtype = dt;
    o->ndim = x->ndim;
    for (int d = 0; d < x->ndim; d++) o->shape[d] = x->shape[d];
    if (c->a->mode == 1 || c->a->mode == 3) {  /* channels-last (3d) */
        int64_t s = 1;
        const int *ord = ct__cl_ord[c->a->mode == 3];
        for (int k = x->ndim - 1; k >= 0; k--) { o->strides[ord[k]] = s; s *= x->shape[ord[k]] > 1 ? x->shape[ord[k]] : 1; }
        o->has_strides = 1;
    } else if (c->a->mode == 2) {  /* contiguous */
        o->has_strides = 0;
    } else if (ct__is_dense(x)) {   /* empty_like's preserve_format: a dense input's strides */
        for (int d = 0; d < x->ndim; d++) o->strides[d] = x->strides[d];
        o->has_strides = 1;
    } else {
        ct__layout_like(o, 1, c->in);
    }
    return 0;
}
static int ct__meta_to(ct__call *c) { return ct__meta_copy_as(c, c->a->dtype); }
static int ct__meta_clone(ct__call *c) { return ct__meta_copy_as(c, c->in[0]->dtype); }
static int ct__k_to(ct__call *c) { return ct__copy_into(c->out[0], c->in[0]); }

/* factories: the output shape from the attributes (full: size; arange: start,
   end, step; linspace: steps; eye: n, m; randperm: n), dtype in a->dtype */
static int ct__meta_factory(ct__call *c) {
    const ct__attrs *a = c->a;
    ct__outinfo *o = &c->oi[0];
    const char *name = ct__ops[c->op].name;
    if (!CT__ISREAL(a->dtype) && !(ct__dt_ok(a->dtype) && CT__ISCOMPLEX(a->dtype) && (c->op == CT__OP_FULL || c->op == CT__OP_EYE)))
        return ct__failed(CT_ERR_DTYPE, "%s: dtype %s is not supported", name, ct_dtype_name(a->dtype));
    c->nout = 1;
    o->kind = CT__OUT_NEW;
    o->dtype = a->dtype;
    o->has_strides = 0;
    switch (c->op) {
    case CT__OP_ARANGE: {
        double start = a->s[0], end = a->s[1], step = a->s[2];
        if (!(step > 0 || step < 0)) return ct__failed(CT_ERR_ARG, "arange: step must be nonzero (step=%s)", ct__fmt_double(step).s);
        if (!isfinite(start) || !isfinite(end))
            return ct__failed(CT_ERR_ARG, "arange: unsupported range: %s -> %s", ct__fmt_double(start).s, ct__fmt_double(end).s);
        /* PyTorch (RangeFactories.cpp) converts start, end and step to the dtype's accumulate
           type first: integral dtypes truncate them, so a step of 0.5 is 0; the size comes
           from the converted values in int64 arithmetic for int64, from the given values
           for the other integral dtypes. The kernel truncates the same way. */
        double xs = start, xe = end, xst = step, n;
        int integral = CT__ISINT(a->dtype);
        if (integral) {
            if (fabs(start) >= 9.2e18 || fabs(end) >= 9.2e18 || fabs(step) >= 9.2e18)
                return ct__failed(CT_ERR_ARG, "arange: value cannot be converted to type int64_t without overflow (%g, %g, %g)", start, end, step);
            xs = trunc(start);
            xe = trunc(end);
            xst = trunc(step);
            if (xst == 0.0) return ct__failed(CT_ERR_ARG, "arange: step must be nonzero (step=%g truncates to 0 for %s)", step, ct_dtype_name(a->dtype));
        }
        if ((xst > 0 && xe < xs) || (xst < 0 && xe > xs))
            return ct__failed(CT_ERR_ARG, "arange: upper bound and larger bound inconsistent with step sign (start=%g, end=%g, step=%g)",
                              start, end, step);
        if (integral && a->dtype == CT_INT64) {
            int64_t i0 = (int64_t)xs, i1 = (int64_t)xe, st = (int64_t)xst, sgn = st > 0 ? 1 : -1;
            n = (double)((i1 - i0 + st - sgn) / st);
        } else {
            n = ceil((end - start) / step);
        }
        if (n > 4.0e15) return ct__failed(CT_ERR_ARG, "arange: invalid size, possible overflow?");
        o->ndim = 1;
        o->shape[0] = (int64_t)n;
        return 0;
    }
    case CT__OP_LINSPACE:
        if (a->i[0] < 0) return ct__failed(CT_ERR_ARG, "linspace: number of steps must be non-negative (got %lld)", (long long)a->i[0]);
        o->ndim = 1;
        o->shape[0] = a->i[0];
        return 0;
    case CT__OP_EYE:
        if (a->i[0] < 0) return ct__failed(CT_ERR_ARG, "eye: n must be greater or equal to 0, got %lld", (long long)a->i[0]);
        if (a->i[1] < 0) return ct__failed(CT_ERR_ARG, "eye: m must be greater or equal to 0, got %lld", (long long)a->i[1]);
        o->ndim = 2;
        o->shape[0] = a->i[0];
        o->shape[1] = a->i[1];
        return 0;
    case CT__OP_RANDPERM:
        if (ct__check_shape(name, 1, &a->i[0])) return -1;
        o->ndim = 1;
        o->shape[0] = a->i[0];
        return 0;
    default:
        if (ct__check_shape(name, a->nv, a->v) || ct__check_value_arg(name, a->dtype, a->s[0])) return -1;
        o->ndim = a->nv;
        for (int d = 0; d < a->nv; d++) o->shape[d] = a->v[d];
        return 0;
    }
}
static int ct__k_full(ct__call *c) { ct__fill_raw(c->out[0], c->a->s[0]); return 0; }
static int ct__k_arange(ct__call *c) {
    ct_tensor *x = c->out[0];
    int64_t n = x->shape[0];
    char *p = ct__ptr(x);
    size_t es = ct__dt[x->dtype].size;
    double start = c->a->s[0], step = c->a->s[2];
    if (CT__ISINT(x->dtype)) { start = trunc(start); step = trunc(step); }   /* as the meta's size */
    if (CT__ISINT(x->dtype) && ct__scalar_is_int(start) && ct__scalar_is_int(step)) {
        int64_t s0 = (int64_t)start, st = (int64_t)step;
        for (int64_t i = 0; i < n; i++) ct__store_i64(p + (size_t)i * es, x->dtype, CT__IADD(s0, CT__IMUL(st, i)));
    } else {
        for (int64_t i = 0; i < n; i++) ct__store_f64(p + (size_t)i * es, x->dtype, start + step * (double)i);
    }
    return 0;
}
static int ct__k_linspace(ct__call *c) {
    ct_tensor *x = c->out[0];
    int64_t n = x->shape[0];
    char *p = ct__ptr(x);
    size_t es = ct__dt[x->dtype].size;
    double start = c->a->s[0], end = c->a->s[1];
    if (n == 1) { ct__store_f64(p, x->dtype, start); return 0; }
    double step = (end - start) / (double)(n - 1);
    int64_t half = n / 2;
    for (int64_t i = 0; i < n; i++) {
        double v = i < half ? start + step * (double)i : end - step * (double)(n - 1 - i);
        if (CT__ISINT(x->dtype)) v = trunc(v);
        ct__store_f64(p + (size_t)i * es, x->dtype, v);
    }
    return 0;
}
static int ct__k_eye(ct__call *c) {
    ct_tensor *x = c->out[0];
    ct__fill_raw(x, 0.0);
    int64_t n = x->shape[0], m = x->shape[1], k = n < m ? n : m;
    size_t es = ct__dt[x->dtype].size;
    for (int64_t i = 0; i < k; i++) ct__store_f64(ct__ptr(x) + (size_t)(i * m + i) * es, x->dtype, 1.0);
    return 0;
}
/* A factory op under the name of the function the user called (errors name it),
   on `dev`: the dtype and, for full, the value are checked here; the shape and
   the rest by the meta. */
static int ct__check_device_arg(const char *api, ct_device dev) {
    if ((int)dev.type < 0 || dev.type >= CT_NUM_DEVICE_TYPES || dev.index < 0 || (dev.type == CT_CPU && dev.index))
        return ct__failed(CT_ERR_DEVICE, "%s: invalid device (type %d, index %d)", api, (int)dev.type, (int)dev.index);
    return 0;
}
static ct_tensor *ct__factory(const char *api, int op, ct_device dev, ct_dtype dt, ct__attrs *a) {
    int cx = ct__dt_ok(dt) && CT__ISCOMPLEX(dt) && (op == CT__OP_FULL || op == CT__OP_EYE);   /* complex: fill, eye */
    if ((!cx && ct__check_dtype_arg(api, dt)) || ct__check_device_arg(api, dev)) return NULL;
    if (op == CT__OP_FULL && (ct__check_shape(api, a->nv, a->v) || ct__check_value_arg(api, dt, a->s[0]))) return NULL;
    a->dtype = dt;
    a->device = dev;
    return ct__call1(op, 0, NULL, a);
}
/* empty under the name of the function the user called (every dtype, complex too) */
static ct_tensor *ct__empty_on(const char *api, ct_device dev, ct_dtype dt, int ndim, const int64_t *shape) {
    if (!ct__dt_ok(dt)) return ct__fail(CT_ERR_DTYPE, "%s: invalid dtype %d (not a ct_dtype value)", api, (int)dt);
    if (ct__check_shape(api, ndim, shape) || ct__check_device_arg(api, dev)) return NULL;
    ct_tensor *x = ct__alloc(dt, ndim, shape, NULL, dev);
    return x ? ct__own(x) : NULL;
}
static ct_tensor *ct__empty_api(const char *api, ct_dtype dt, int ndim, const int64_t *shape) {
    return ct__empty_on(api, ct__cpu_dev, dt, ndim, shape);
}
CTENSOR_API ct_tensor *ct_empty_n(ct_dtype dt, int ndim, const int64_t *shape) { return ct__empty_api("empty", dt, ndim, shape); }
CTENSOR_API ct_tensor *ct_empty_on_n(ct_device dev, ct_dtype dt, int ndim, const int64_t *shape) { return ct__empty_on("empty", dev, dt, ndim, shape); }
CTENSOR_API ct_tensor *ct_full_n(ct_dtype dt, int ndim, const int64_t *shape, double value) {
    return ct_full_on_n(ct__cpu_dev, dt, ndim, shape, value);
}
static ct_tensor *ct__full_api(const char *api, ct_device dev, ct_dtype dt, int ndim, const int64_t *shape, double value) {
    ct__attrs a;
    ct__attrs_init(&a);
    if (ndim < 0 || ndim > CT_MAX_DIMS)
        return ct__fail(CT_ERR_ARG, "%s: number of dimensions %d exceeds the maximum of %d", api, ndim, CT_MAX_DIMS);
    if (ndim > 0 && !shape) return ct__fail(CT_ERR_ARG, "%s: shape pointer is NULL", api);
    a.nv = ndim;
    for (int d = 0; d < ndim; d++) a.v[d] = shape[d];
    a.s[0] = value;
    return ct__factory(api, CT__OP_FULL, dev, dt, &a);
}
CTENSOR_API ct_tensor *ct_full_on_n(ct_device dev, ct_dtype dt, int ndim, const int64_t *shape, double value) {
    return ct__full_api("full", dev, dt, ndim, shape, value);
}
CTENSOR_API ct_tensor *ct_zeros_n(ct_dtype dt, int ndim, const int64_t *shape) { return ct__full_api("zeros", ct__cpu_dev, dt, ndim, shape, 0.0); }
CTENSOR_API ct_tensor *ct_ones_n(ct_dtype dt, int ndim, const int64_t *shape) { return ct__full_api("ones", ct__cpu_dev, dt, ndim, shape, 1.0); }
CTENSOR_API ct_tensor *ct_zeros_on_n(ct_device dev, ct_dtype dt, int ndim, const int64_t *shape) { return ct__full_api("zeros", dev, dt, ndim, shape, 0.0); }
CTENSOR_API ct_tensor *ct_ones_on_n(ct_device dev, ct_dtype dt, int ndim, const int64_t *shape) { return ct__full_api("ones", dev, dt, ndim, shape, 1.0); }
CTENSOR_API ct_tensor *ct_scalar_tensor(double value, ct_dtype dt) { return ct__full_api("scalar_tensor", ct__cpu_dev, dt, 0, NULL, value); }
CTENSOR_API ct_tensor *ct_scalar_tensor_on(ct_device dev, double value, ct_dtype dt) { return ct__full_api("scalar_tensor", dev, dt, 0, NULL, value); }
CTENSOR_API ct_tensor *ct_arange(double start, double end, double step, ct_dtype dt) {
    return ct_arange_on(ct__cpu_dev, start, end, step, dt);
}
CTENSOR_API ct_tensor *ct_arange_on(ct_device dev, double start, double end, double step, ct_dtype dt) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.s[0] = start;
    a.s[1] = end;
    a.s[2] = step;
    return ct__factory("arange", CT__OP_ARANGE, dev, dt, &a);
}
CTENSOR_API ct_tensor *ct_linspace(double start, double end, int64_t steps, ct_dtype dt) {
    return ct_linspace_on(ct__cpu_dev, start, end, steps, dt);
}
CTENSOR_API ct_tensor *ct_linspace_on(ct_device dev, double start, double end, int64_t steps, ct_dtype dt) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.s[0] = start;
    a.s[1] = end;
    a.i[0] = steps;
    return ct__factory("linspace", CT__OP_LINSPACE, dev, dt, &a);
}
CTENSOR_API ct_tensor *ct_eye(int64_t n, int64_t m, ct_dtype dt) { return ct_eye_on(ct__cpu_dev, n, m, dt); }
CTENSOR_API ct_tensor *ct_eye_on(ct_device dev, int64_t n, int64_t m, ct_dtype dt) {
    ct__attrs a;
    ct__attrs_init(&a);
    if (n < 0) return ct__fail(CT_ERR_ARG, "eye: n must be greater or equal to 0, got %lld", (long long)n);
    a.i[0] = n;
    a.i[1] = m < 0 ? n : m;
    return ct__factory("eye", CT__OP_EYE, dev, dt, &a);
}
CTENSOR_API ct_tensor *ct_from_data_n(const void *data, ct_dtype dt, int ndim, const int64_t *shape) {
    if (!data) return ct__fail(CT_ERR_ARG, "from_data: data pointer is NULL");
    ct_tensor *x = ct__empty_api("from_data", dt, ndim, shape);
    if (!x) return NULL;
    memcpy(ct__ptr(x), data, (size_t)(ct_numel(x) * (int64_t)ct__dt[dt].size));
    return x;
}
CTENSOR_API ct_tensor *ct_from_data_on_n(ct_device dev, const void *data, ct_dtype dt, int ndim, const int64_t *shape) {
    if (ct__check_device_arg("from_data", dev)) return NULL;
    ct_tensor *x = ct_from_data_n(data, dt, ndim, shape);
    return dev.type == CT_CPU ? x : ct_to_device(x, dev);   /* host memory first, then one copy */
}
CTENSOR_API ct_tensor *ct_from_blob(void *data, ct_dtype dt, int ndim, const int64_t *shape, const int64_t *strides,
                                    void (*deleter)(void *, void *), void *user_data) {
    if (!data) return ct__fail(CT_ERR_ARG, "from_blob: data pointer is NULL");
    if ((int)dt < 0 || dt >= CT_NUM_DTYPES) return ct__fail(CT_ERR_DTYPE, "from_blob: invalid dtype %d", (int)dt);
    if (ct__check_shape("from_blob", ndim, shape)) return NULL;
    int64_t extent = 1;
    for (int d = 0; d < ndim; d++) {
        if (strides && strides[d] < 0) return ct__fail(CT_ERR_ARG, "from_blob: negative strides are not supported");
        if (shape[d] == 0) { extent = 0; break; }
        extent += (shape[d] - 1) * (strides ? strides[d] : 1);
    }
    if (!strides) extent = ct__shape_numel(ndim, shape);
    ct_tensor *x = ct__header_new();
    if (!x) return NULL;
    x->storage = ct__storage_borrow(data, extent * (int64_t)ct__dt[dt].size, ct__cpu_dev, deleter, user_data);
    if (!x->storage) { ct__header_free(x); return NULL; }
    x->dtype = dt;
    x->ndim = ndim;
    for (int d = 0; d < ndim; d++) x->shape[d] = shape[d];
    if (strides) memcpy(x->strides, strides, sizeof(int64_t) * (size_t)ndim);
    else ct__contig_strides(ndim, shape, x->strides);
    if (ct__is_contig(x)) x->flags |= CT__F_CONTIG;
    return ct__own(x);
}
CTENSOR_API ct_tensor *ct_empty_like(const ct_tensor *t) {
    if (!t) { ct__null_arg("empty_like", 0); return NULL; }
    return ct__empty_on("empty_like", t->device, t->dtype, t->ndim, t->shape);
}
static ct_tensor *ct__full_like(const char *api, const ct_tensor *t, double v) {
    if (!t) { ct__null_arg(api, 0); return NULL; }
    return ct__full_api(api, t->device, t->dtype, t->ndim, t->shape, v);
}
CTENSOR_API ct_tensor *ct_zeros_like(const ct_tensor *t) { return ct__full_like("zeros_like", t, 0.0); }
CTENSOR_API ct_tensor *ct_ones_like(const ct_tensor *t) { return ct__full_like("ones_like", t, 1.0); }
CTENSOR_API ct_tensor *ct_full_like(const ct_tensor *t, double v) { return ct__full_like("full_like", t, v); }
CTENSOR_API ct_tensor *ct_clone(const ct_tensor *t) {
    ct__attrs a;
    ct__attrs_init(&a);
    return ct__op1(CT__OP_CLONE, t, &a);
}
/* a device ct_to_device can name: a known type, index >= 0, cpu only as index 0 */
static int ct__device_valid(ct_device device) {
    return !((int)device.type < 0 || device.type >= CT_NUM_DEVICE_TYPES || device.index < 0 || (device.type == CT_CPU && device.index));
}
static ct_tensor *ct__to(const ct_tensor *t, ct_dtype dt, ct_device dev) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.dtype = dt;
    a.device = dev;
    return ct__op1(CT__OP_TO, t, &a);
}
CTENSOR_API ct_tensor *ct_to(const ct_tensor *t, ct_dtype dt) { return ct__to(t, dt, t ? t->device : ct__cpu_dev); }
CTENSOR_API ct_tensor *ct_to_device_dtype(const ct_tensor *t, ct_device device, ct_dtype dt) {
    if (!ct__device_valid(device))
        return ct__fail(CT_ERR_DEVICE, "to: invalid device (type %d, index %d)", (int)device.type, (int)device.index);
    if (t && ct_device_eq(t->device, device) && t->dtype == dt) return ct_alias(t);
    return ct__to(t, dt, device);
}
CTENSOR_API ct_tensor *ct_to_device(const ct_tensor *t, ct_device device) {
    return ct_to_device_dtype(t, device, t ? t->dtype : CT_FLOAT32);
}
CTENSOR_API ct_tensor *ct_to_device_nonblocking(const ct_tensor *t, ct_device device) {
    if (!ct__device_valid(device))
        return ct__fail(CT_ERR_DEVICE, "to: invalid device (type %d, index %d)", (int)device.type, (int)device.index);
    if (t && ct_device_eq(t->device, device)) return ct_alias(t);
    ct__attrs a;
    ct__attrs_init(&a);
    a.dtype = t ? t->dtype : CT_FLOAT32;
    a.device = device;
    a.flags |= 1;   /* non_blocking */
    return ct__op1(CT__OP_TO, t, &a);
}
CTENSOR_API ct_device ct_get_device(const ct_tensor *t) { return t ? t->device : ct__cpu_dev; }
CTENSOR_API ct_tensor *ct_contiguous(const ct_tensor *t) {
    if (t && ct__is_contig(t)) return ct_alias(t);
    ct__attrs a;
    ct__attrs_init(&a);
    a.mode = 2;
    return ct__op1(CT__OP_CLONE, t, &a);
}
CTENSOR_API ct_tensor *ct_to_channels_last(const ct_tensor *t) {
    if (t && t->ndim != 4)
        return ct__fail(CT_ERR_ARG, "to_channels_last: required rank 4 tensor to use channels_last format (got rank %d)", t->ndim);
    ct__attrs a;
    ct__attrs_init(&a);
    a.mode = 1;
    return ct__op1(CT__OP_CLONE, t, &a);
}
CTENSOR_API int ct_is_contiguous_format(const ct_tensor *t, ct_memory_format fmt) {
    if ((unsigned)fmt > (unsigned)CT_CHANNELS_LAST_3D) return ct__fmt_ok("is_contiguous", t, fmt), 0;
    if (!t) return 0;
    if (fmt == CT_CHANNELS_LAST || fmt == CT_CHANNELS_LAST_3D)
        return t->ndim == (fmt == CT_CHANNELS_LAST ? 4 : 5) && ct__dense_in_order(t, ct__cl_ord[fmt == CT_CHANNELS_LAST_3D]);
    return ct__is_contig(t);
}
CTENSOR_API ct_memory_format ct_suggest_memory_format(const ct_tensor *t) {
    if (!t) { ct__null_arg("suggest_memory_format", 0); return CT_CONTIGUOUS_FORMAT; }
    if (t->ndim != 4 && t->ndim != 5) return CT_CONTIGUOUS_FORMAT;
    /* c10's is_channels_last_strides_2d / _3d: strides that do not decrease from C
       outwards in (N)(D)HWC order; a zero C stride or an N stride equal to C's
       (N,1,1,1 shapes) stays contiguous */
    const int *ord = ct__cl_ord[t->ndim == 5];
    int64_t min = 0;
    if (t->strides[1] == 0) return CT_CONTIGUOUS_FORMAT;
    for (int k = t->ndim - 1; k >= 0; k--) {
        int d = ord[k];
        if (t->shape[d] == 0 || t->strides[d] < min) return CT_CONTIGUOUS_FORMAT;
        if (d == 0 && min == t->strides[1]) return CT_CONTIGUOUS_FORMAT;
        min = t->strides[d];
        if (t->shape[d] > 1) min = ct__sat_mul(min, t->shape[d]);
    }
    return t->ndim == 4 ? CT_CHANNELS_LAST : CT_CHANNELS_LAST_3D;
}
CTENSOR_API ct_tensor *ct_contiguous_format(const ct_tensor *t, ct_memory_format fmt) {
    if (ct__fmt_ok("contiguous", t, fmt)) return NULL;
    if (!t) { ct__null_arg("contiguous", 0); return NULL; }
    if (ct_is_contiguous_format(t, fmt)) return ct_alias(t);
    if (fmt == CT_PRESERVE_FORMAT)
        return ct__fail(CT_ERR_ARG, "contiguous: preserve memory format is unsupported by the contiguous operator");
    ct__attrs a;
    ct__attrs_init(&a);
    a.mode = (int)fmt;
    return ct__op1(CT__OP_CLONE, t, &a);
}
CTENSOR_API ct_tensor *ct_fill_(ct_tensor *x, double v) {
    if (x && CT__ISREAL(x->dtype) && ct__check_value_arg("fill_", x->dtype, v)) return NULL;
    ct__attrs a = ct__attrs_s(v);
    return ct__op1(CT__OP_FILL, x, &a);
}
CTENSOR_API ct_tensor *ct_zero_(ct_tensor *x) { return ct_fill_(x, 0.0); }
CTENSOR_API ct_tensor *ct_copy_(ct_tensor *dst, const ct_tensor *src) {
    ct__attrs a;
    ct__attrs_init(&a);
    return ct__op2(CT__OP_COPY, dst, src, &a);
}

/* ============================================================================
   Views
   Every view op computes a new geometry over input 0's storage.
   ========================================================================== */
static int ct__k_view(ct__call *c) { (void)c; return 0; }
static void ct__out_view(ct__call *c, int ndim, const int64_t *shape, const int64_t *strides, int64_t offset) {
    ct__outinfo *o = &c->oi[0];
    c->nout = 1;
    o->kind = CT__OUT_VIEW;
    o->src = 0;
    o->ndim = ndim;
    o->offset = offset;
    o->dtype = c->in[0]->dtype;
    for (int d = 0; d < ndim; d++) { o->shape[d] = shape[d]; o->strides[d] = strides[d]; }
}
/* Resolves one -1 in a requested shape (PyTorch's infer_size). */
static int ct__infer_size(const char *op, int ndim, const int64_t *req, int64_t numel, int64_t *out) {
    int infer = -1;
    int64_t prod = 1;
    if (ndim > CT_MAX_DIMS) return ct__failed(CT_ERR_ARG, "%s: number of dimensions %d exceeds the maximum of %d", op, ndim, CT_MAX_DIMS);
    for (int d = 0; d < ndim; d++) {
        if (req[d] == -1) {
            if (infer >= 0) return ct__failed(CT_ERR_ARG, "%s: only one dimension can be inferred", op);
            infer = d;
        } else if (req[d] < 0) {
            return ct__failed(CT_ERR_ARG, "%s: invalid shape dimension %lld", op, (long long)req[d]);
        } else {
            prod = ct__sat_mul(prod, req[d]);   /* [2^40, 2^40] saturates: never equal to a numel */
        }
        out[d] = req[d];
    }
    if (infer >= 0) {
        if (prod == 0 || numel % prod != 0)
            return ct__failed(CT_ERR_SHAPE, "%s: shape '%s' is invalid for input of size %lld", op, ct__fmt_shape(ndim, req).s, (long long)numel);
        out[infer] = numel / prod;
    } else if (prod != numel) {
        return ct__failed(CT_ERR_SHAPE, "%s: shape '%s' is invalid for input of size %lld", op, ct__fmt_shape(ndim, req).s, (long long)numel);
    }
    return 0;
}
/* Strides for viewing (oldshape, oldstrides) as newshape without a copy, or -1
   (PyTorch's computeStride). */
static int ct__view_strides(int on, const int64_t *os, const int64_t *ost, int nn, const int64_t *ns, int64_t *nst) {
    if (ct__shape_numel(on, os) == 0 || on == 0) {
        for (int d = 0; d < nn; d++) nst[d] = 1;
        if (on != 0) ct__contig_strides(nn, ns, nst);
        return 0;
    }
    int view_d = nn - 1;
    int64_t chunk_base_stride = on ? ost[on - 1] : 1;
    int64_t tensor_numel = 1, view_numel = 1;
    for (int tensor_d = on - 1; tensor_d >= 0; tensor_d--) {
        tensor_numel *= os[tensor_d];
        if (tensor_d == 0 || (os[tensor_d - 1] != 1 && ost[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
            while (view_d >= 0 && (view_numel < tensor_numel || ns[view_d] == 1)) {
                nst[view_d] = view_numel * chunk_base_stride;
                view_numel *= ns[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel) return -1;
            if (tensor_d > 0) {
                chunk_base_stride = ost[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if (view_d != -1) return -1;
    return 0;
}
static int ct__meta_view(ct__call *c) {
    ct_tensor *x = c->in[0];
    int64_t shape[CT_MAX_DIMS], st[CT_MAX_DIMS];
    if (ct__infer_size("view", c->a->nv, c->a->v, ct_numel(x), shape)) return -1;
    if (ct__view_strides(x->ndim, x->shape, x->strides, c->a->nv, shape, st))
        return ct__failed(CT_ERR_SHAPE, "view: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
    ct__out_view(c, c->a->nv, shape, st, x->offset);
    return 0;
}
static int ct__meta_alias(ct__call *c) {
    ct_tensor *x = c->in[0];
    ct__out_view(c, x->ndim, x->shape, x->strides, x->offset);
    return 0;
}
/* view_as_real, view_as_complex, real, imag: views that change the dtype between a
   complex dtype and its real one (a complex element is two real ones, re then im) */
static ct_dtype ct__cx_part(ct_dtype dt) { return dt == CT_COMPLEX64 ? CT_FLOAT32 : CT_FLOAT64; }
static int ct__meta_cxview(ct__call *c) {
    ct_tensor *x = c->in[0];
    int64_t sh[CT_MAX_DIMS], st[CT_MAX_DIMS];
    int nd = x->ndim, cx = ct__dt_ok(x->dtype) && CT__ISCOMPLEX(x->dtype);
    if (c->op == CT__OP_VIEW_AS_COMPLEX) {
        if (x->dtype != CT_FLOAT32 && x->dtype != CT_FLOAT64)
            return ct__failed(CT_ERR_DTYPE, "view_as_complex: view_as_complex is only supported for float and double tensors, but got a tensor of scalar type: %s", CT__DTNAME(x->dtype));
        if (nd == 0 || x->shape[nd - 1] != 2)
            return ct__failed(CT_ERR_SHAPE, "view_as_complex: Tensor must have a last dimension of size 2 (got shape %s)", CT__SHAPE(x));
        if (x->strides[nd - 1] != 1) return ct__failed(CT_ERR_SHAPE, "view_as_complex: Tensor must have a last dimension with stride 1");
        for (int d = 0; d < nd - 1; d++)
            if (x->strides[d] % 2) return ct__failed(CT_ERR_SHAPE, "view_as_complex: Tensor must have a stride divisible by 2 for all but last dimension");
        if (x->offset % 2) return ct__failed(CT_ERR_SHAPE, "view_as_complex: Tensor must have a storage_offset divisible by 2");
        for (int d = 0; d < nd - 1; d++) { sh[d] = x->shape[d]; st[d] = x->strides[d] / 2; }
        ct__out_view(c, nd - 1, sh, st, x->offset / 2);
        c->oi[0].dtype = x->dtype == CT_FLOAT32 ? CT_COMPLEX64 : CT_COMPLEX128;
        return 0;
    }
    if (!cx && c->op == CT__OP_REAL) return ct__meta_alias(c);   /* real of a real tensor: itself */
    if (!cx) {
        if (c->op == CT__OP_IMAG) return ct__failed(CT_ERR_DTYPE, "imag: imag is not implemented for tensors with non-complex dtypes.");
        return ct__failed(CT_ERR_DTYPE, "view_as_real: view_as_real is only supported for complex tensors (got %s)", CT__DTNAME(x->dtype));
    }
    for (int d = 0; d < nd; d++) { sh[d] = x->shape[d]; st[d] = x->strides[d] * 2; }
    if (c->op == CT__OP_VIEW_AS_REAL) {
        if (nd == CT_MAX_DIMS) return ct__failed(CT_ERR_SHAPE, "view_as_real: a tensor of %d dims has no room for one more (CTENSOR_MAX_DIMS)", nd);
        sh[nd] = 2;
        st[nd++] = 1;
    }
    ct__out_view(c, nd, sh, st, x->offset * 2 + (c->op == CT__OP_IMAG));
    c->oi[0].dtype = ct__cx_part(x->dtype);
    return 0;
}
static int ct__k_cxview(ct__call *c) { c->out[0]->dtype = c->oi[0].dtype; return 0; }
/* complex(real, imag) and polar(abs, angle): float inputs of one dtype, broadcast */
static int ct__meta_complex(ct__call *c) {
    const ct_tensor *x = c->in[0], *y = c->in[1];
    const char *nm = ct__ops[c->op].name;
    int ndim;
    int64_t shape[CT_MAX_DIMS];
    if (x->dtype != CT_FLOAT32 && x->dtype != CT_FLOAT64)
        return ct__failed(CT_ERR_DTYPE, "%s: Expected both inputs to be Float or Double tensors but got %s and %s", nm, CT__DTNAME(x->dtype), CT__DTNAME(y->dtype));
    if (x->dtype != y->dtype)
        return ct__failed(CT_ERR_DTYPE, "%s: Expected object of scalar type %s but got scalar type %s for second argument", nm, CT__DTNAME(x->dtype), CT__DTNAME(y->dtype));
    if (ct__broadcast(nm, 2, c->in, &ndim, shape)) return -1;
    c->cdt = x->dtype == CT_FLOAT32 ? CT_COMPLEX64 : CT_COMPLEX128;
    ct__out_new(c, c->cdt, ndim, shape);
    return 0;
}
#define CT__CXMAKE(fname, T, COS, SIN) \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) { \
        int polar = a->i[3] == CT__OP_POLAR; \
        for (int64_t k = 0; k < n; k++) { \
            T *o = (T *)(p[0] + k * s[0]); \
            T u = *(const T *)(p[1] + k * s[1]), v = *(const T *)(p[2] + k * s[2]); \
            o[0] = polar ? u * COS(v) : u; \
            o[1] = polar ? u * SIN(v) : v; \
        } \
    }
CT__CXMAKE(ct__cx_make_f32, float, cosf, sinf)
CT__CXMAKE(ct__cx_make_f64, double, cos, sin)
static int ct__k_complex(ct__call *c) {
    ct_tensor *ops[3];
    ops[0] = c->out[0];
    ops[1] = c->in[0];
    ops[2] = c->in[1];
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[3] = c->op;
    ct__iter it;
    ct__iter_init(&it, 3, ops, ops[0]->ndim, ops[0]->shape);
    ct__iter_run(&it, c->in[0]->dtype == CT_FLOAT32 ? ct__cx_make_f32 : ct__cx_make_f64, &a);
    return 0;
}
static int ct__meta_permute(ct__call *c) {
    ct_tensor *x = c->in[0];
    const ct__attrs *a = c->a;
    int64_t shape[CT_MAX_DIMS], st[CT_MAX_DIMS];
    int seen[CT_MAX_DIMS] = {0};
    if (a->nv != x->ndim)
        return ct__failed(CT_ERR_ARG, "permute: number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = %d is not equal to len(dims) = %d", x->ndim, a->nv);
    for (int d = 0; d < a->nv; d++) {
        int p = ct__dim("permute", a->v[d], x->ndim);
        if (p < 0) return -1;
        if (seen[p]) return ct__failed(CT_ERR_ARG, "permute: duplicate dims are not allowed.");
        seen[p] = 1;
        shape[d] = x->shape[p];
        st[d] = x->strides[p];
    }
    ct__out_view(c, x->ndim, shape, st, x->offset);
    return 0;
}
static int ct__meta_expand(ct__call *c) {
    ct_tensor *x = c->in[0];
    const ct__attrs *a = c->a;
    int n = a->nv;
    int64_t shape[CT_MAX_DIMS], st[CT_MAX_DIMS];
    if (n > CT_MAX_DIMS) return ct__failed(CT_ERR_ARG, "expand: number of dimensions %d exceeds the maximum of %d", n, CT_MAX_DIMS);
    if (n < x->ndim)
        return ct__failed(CT_ERR_ARG, "expand(%s, size=%s): the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)",
                          CT__SHAPE(x), ct__fmt_shape(n, a->v).s, n, x->ndim);
    for (int d = n - 1; d >= 0; d--) {
        int xd = d - (n - x->ndim);
        int64_t want = a->v[d];
        if (xd < 0) {
            if (want < 0) return ct__failed(CT_ERR_ARG, "expand: The expanded size of the tensor (%lld) isn't allowed in a leading, non-existing dimension %d", (long long)want, d);
            shape[d] = want;
            st[d] = 0;
        } else {
            int64_t have = x->shape[xd];
            if (want == -1) want = have;
            if (have == want) { shape[d] = have; st[d] = x->strides[xd]; }
            else if (have == 1 && want >= 0) { shape[d] = want; st[d] = 0; }
            else
                return ct__failed(CT_ERR_SHAPE, "expand: The expanded size of the tensor (%lld) must match the existing size (%lld) at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s",
                                  (long long)want, (long long)have, d, ct__fmt_shape(n, a->v).s, CT__SHAPE(x));
        }
    }
    ct__out_view(c, n, shape, st, x->offset);
    return 0;
}
/* slice: i[0] dim, i[1] start, i[2] end, i[3] step (Python semantics, step > 0).
   Start and end clamped into [0, size], end >= start (meta and backward). */
static void ct__slice_bounds(int64_t size, int64_t *start, int64_t *end) {
    int64_t b = *start, e = *end;
    if (b < 0) b += size;
    if (e < 0) e += size;
    if (b < 0) b = 0;
    else if (b > size) b = size;
    if (e < b) e = b;
    else if (e > size) e = size;
    *start = b;
    *end = e;
}
static int ct__meta_slice(ct__call *c) {
    ct_tensor *x = c->in[0];
    const ct__attrs *a = c->a;
    if (x->ndim == 0) return ct__failed(CT_ERR_INDEX, "slice() cannot be applied to a 0-dim tensor.");
    int dim = ct__dim("slice", a->i[0], x->ndim);
    if (dim < 0) return -1;
    int64_t step = a->i[3];
    if (step <= 0) return ct__failed(CT_ERR_ARG, "slice: slice step must be positive (got %lld)", (long long)step);
    int64_t start = a->i[1], end = a->i[2];
    ct__slice_bounds(x->shape[dim], &start, &end);
    int64_t shape[CT_MAX_DIMS], st[CT_MAX_DIMS];
    for (int d = 0; d < x->ndim; d++) { shape[d] = x->shape[d]; st[d] = x->strides[d]; }
    /* (end - start + step - 1) / step without overflow for a step near 2^63 */
    shape[dim] = end > start ? (end - start - 1) / step + 1 : 0;
    /* a stride for 2+ elements fits (the input spans them); one element keeps its own */
    st[dim] = shape[dim] > 1 ? x->strides[dim] * step : x->strides[dim];
    ct__out_view(c, x->ndim, shape, st, start < x->shape[dim] ? x->offset + start * x->strides[dim] : x->offset);
    return 0;
}
static int ct__meta_select(ct__call *c) {
    ct_tensor *x = c->in[0];
    if (x->ndim == 0) return ct__failed(CT_ERR_INDEX, "select() cannot be applied to a 0-dim tensor.");
    int dim = ct__dim("select", c->a->i[0], x->ndim);
    if (dim < 0) return -1;
    int64_t idx = c->a->i[1], size = x->shape[dim];
    if (idx < -size || idx >= size)
        return ct__failed(CT_ERR_INDEX, "select(): index %lld out of range for tensor of size %s at dimension %d", (long long)idx, CT__SHAPE(x), dim);
    if (idx < 0) idx += size;
    int64_t shape[CT_MAX_DIMS], st[CT_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < x->ndim; d++)
        if (d != dim) { shape[n] = x->shape[d]; st[n] = x->strides[d]; n++; }
    ct__out_view(c, n, shape, st, x->offset + idx * x->strides[dim]);
    return 0;
}
/* diagonal: i[0] offset, i[1] dim1, i[2] dim2; the diagonal becomes the last dim */
static int ct__meta_diagonal(ct__call *c) {
    ct_tensor *x = c->in[0];
    if (x->ndim < 2) return ct__failed(CT_ERR_ARG, "diagonal: input must have at least 2 dimensions (got %d)", x->ndim);
    int d1 = ct__dim("diagonal", c->a->i[1], x->ndim), d2;
    if (d1 < 0) return -1;
    d2 = ct__dim("diagonal", c->a->i[2], x->ndim);
    if (d2 < 0) return -1;
    if (d1 == d2) return ct__failed(CT_ERR_ARG, "diagonal dimensions cannot be identical %d, %d", (int)c->a->i[1], (int)c->a->i[2]);
    int64_t off = c->a->i[0], len, start = x->offset;
    /* the start only for a non-empty diagonal: then |off| is within the input */
    len = off >= 0 ? CT__MIN(x->shape[d1], x->shape[d2] - off) : CT__MIN(x->shape[d1] + off, x->shape[d2]);
    if (len <= 0) len = 0;
    else if (off >= 0) start += off * x->strides[d2];
    else start -= off * x->strides[d1];
    int64_t shape[CT_MAX_DIMS], st[CT_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < x->ndim; d++)
        if (d != d1 && d != d2) { shape[n] = x->shape[d]; st[n] = x->strides[d]; n++; }
    shape[n] = len;
    st[n] = x->strides[d1] + x->strides[d2];
    ct__out_view(c, n + 1, shape, st, start);
    return 0;
}
/* as_strided: v[0..nv) size, v[nv..2nv) stride, i[0] storage offset */
static int ct__meta_as_strided(ct__call *c) {
    ct_tensor *x = c->in[0];
    const ct__attrs *a = c->a;
    int n = a->nv;
    if (n > CT_MAX_DIMS) return ct__failed(CT_ERR_ARG, "as_strided: number of dimensions %d exceeds the maximum of %d", n, CT_MAX_DIMS);
    if (a->i[0] < 0) return ct__failed(CT_ERR_ARG, "as_strided: Tensor: invalid storage offset %lld", (long long)a->i[0]);
    /* the bytes the view reaches, saturating: sizes and strides near 2^62 must not
       wrap around to a small number that passes the bounds check */
    int64_t need = ct__sat_add(a->i[0], 1), es = (int64_t)ct__dt[x->dtype].size;
    int empty = 0;
    for (int d = 0; d < n; d++) {
        if (a->v[d] < 0) return ct__failed(CT_ERR_ARG, "as_strided: negative size %lld", (long long)a->v[d]);
        if (a->v[n + d] < 0) return ct__failed(CT_ERR_ARG, "as_strided: negative strides are not supported");
        if (a->v[d] == 0) empty = 1;
        else need = ct__sat_add(need, ct__sat_mul(a->v[d] - 1, a->v[n + d]));
    }
    need = ct__sat_mul(need, es);
    if (!empty && need == INT64_MAX)
        return ct__failed(CT_ERR_ARG, "as_strided: Storage size calculation overflowed with sizes=%s and strides=%s",
                          ct__fmt_shape(n, a->v).s, ct__fmt_shape(n, a->v + n).s);
    if (!empty && need > x->storage->nbytes)
        return ct__failed(CT_ERR_ARG, "as_strided: setStorage: sizes %s, strides %s, storage offset %lld, and itemsize %lld requiring a storage size of %lld are out of bounds for storage of size %lld",
                          ct__fmt_shape(n, a->v).s, ct__fmt_shape(n, a->v + n).s, (long long)a->i[0], (long long)es,
                          (long long)need, (long long)x->storage->nbytes);
    ct__out_view(c, n, a->v, a->v + n, a->i[0]);
    return 0;
}
/* as_strided_scatter (accumulating): out = self (in[0], dense) with src (in[1])
   added at the view v[0..nv) size, v[nv..2nv) stride, i[0] offset, taken
   relative to a contiguous tensor of self's shape */
static int ct__meta_strided_scatter(ct__call *c) {
    const ct__attrs *a = c->a;
    ct__outinfo *o = &c->oi[0];
    ct_tensor *base = c->in[0], *g = c->in[1];
    if (g->ndim != a->nv) return ct__failed(CT_ERR_SHAPE, "as_strided_scatter: source rank %d does not match view rank %d", g->ndim, (int)a->nv);
    for (int d = 0; d < g->ndim; d++)
        if (g->shape[d] != a->v[d])
            return ct__failed(CT_ERR_SHAPE, "as_strided_scatter: source shape %s does not match the view shape %s", CT__SHAPE(g),
                              ct__fmt_shape(a->nv, a->v).s);
    int64_t need = a->i[0], numel = ct__shape_numel(base->ndim, base->shape);
    int empty = 0;
    for (int d = 0; d < a->nv; d++) {
        if (a->v[a->nv + d] < 0) return ct__failed(CT_ERR_ARG, "as_strided_scatter: negative strides are not supported");
        if (a->v[d] == 0) empty = 1;
        else need = ct__sat_add(need, ct__sat_mul(a->v[d] - 1, a->v[a->nv + d]));   /* saturating, as as_strided */
    }
    if (!empty && (a->i[0] < 0 || need >= numel))
        return ct__failed(CT_ERR_ARG, "as_strided_scatter: the view (size %s, stride %s, storage offset %lld) does not fit in the input's %lld elements",
                          ct__fmt_shape(a->nv, a->v).s, ct__fmt_shape(a->nv, a->v + a->nv).s, (long long)a->i[0], (long long)numel);
    c->nout = 1;
    o->kind = CT__OUT_NEW;
    o->dtype = g->dtype;
    o->ndim = base->ndim;
    o->has_strides = 0;
    for (int d = 0; d < o->ndim; d++) o->shape[d] = base->shape[d];
    c->cdt = g->dtype;
    return 0;
}
static int ct__k_strided_scatter(ct__call *c) {
    const ct__attrs *a = c->a;
    ct_tensor *out = c->out[0], *base = c->in[0], *g = c->in[1];
    /* self is usually a stride-0 zero (the gradient helper below) */
    int zero = ct__shape_numel(base->ndim, base->shape) > 0 && base->dtype < 10;
    for (int d = 0; d < base->ndim; d++) zero &= base->strides[d] == 0 || base->shape[d] == 1;
    zero = zero && ct__load_f64(ct__ptr(base), base->dtype) == 0.0;
    if (zero) ct__fill_raw(out, 0.0);
    else if (ct__copy_into(out, base)) return -1;
    /* add g into the view of out (overlapping positions accumulate) */
    ct_tensor *view = ct__view_header(out, a->nv, a->v, a->v + a->nv, a->i[0]);
    if (!view) return -1;
    int overlap = 0;
    for (int d = 0; d < view->ndim; d++) overlap |= view->strides[d] == 0 && view->shape[d] > 1;
    int rc = 0;
    if (!overlap && ct__is_dense(view) && zero) {
        rc = ct__copy_into(view, g);
    } else {
        /* element by element accumulation (rare: overlapping as_strided) */
        int64_t n = ct__shape_numel(g->ndim, g->shape), idx[CT_MAX_DIMS] = {0};
        ct_tensor *gc = ct__convert(g, CT_FLOAT64);
        if (gc && !ct__is_contig(gc)) { ct_tensor *t = ct__contig_ref(gc); ct__decref(gc); gc = t; }  /* read in logical order */
        if (!gc) { ct__decref(view); return -1; }
        size_t es = ct__dt[out->dtype].size;
        const double *gd = (const double *)ct__ptr(gc);
        for (int64_t k = 0; k < n; k++) {
            int64_t off = view->offset;
            for (int d = 0; d < view->ndim; d++) off += idx[d] * view->strides[d];
            char *p = (char *)out->storage->data + off * (int64_t)es;
            ct__store_f64(p, out->dtype, ct__load_f64(p, out->dtype) + gd[k]);
            for (int d = view->ndim - 1; d >= 0; d--) { if (++idx[d] < view->shape[d]) break; idx[d] = 0; }
        }
        ct__decref(gc);
    }
    ct__decref(view);
    return rc;
}

/* public view functions */
CTENSOR_API ct_tensor *ct_view_n(const ct_tensor *t, int ndim, const int64_t *shape) {
    ct__attrs a;
    ct__attrs_init(&a);
    if (ndim < 0 || ndim > CT_MAX_DIMS) return ct__fail(CT_ERR_ARG, "view: number of dimensions %d exceeds the maximum of %d", ndim, CT_MAX_DIMS);
    a.nv = ndim;
    for (int d = 0; d < ndim; d++) a.v[d] = shape[d];
    return ct__op1(CT__OP_VIEW, t, &a);
}
CTENSOR_API ct_tensor *ct_reshape_n(const ct_tensor *t, int ndim, const int64_t *shape) {
    if (!t) return ct_view_n(t, ndim, shape);
    int64_t s2[CT_MAX_DIMS] = {0}, st[CT_MAX_DIMS];
    if (ndim < 0 || ndim > CT_MAX_DIMS) return ct__fail(CT_ERR_ARG, "reshape: number of dimensions %d exceeds the maximum of %d", ndim, CT_MAX_DIMS);
    if (ct__infer_size("reshape", ndim, shape, ct_numel(t), s2)) return NULL;
    if (ct__view_strides(t->ndim, t->shape, t->strides, ndim, s2, st) == 0) return ct_view_n(t, ndim, s2);
    ct_tensor *c = ct_contiguous(t);   /* PyTorch: reshape copies only when a view is impossible */
    return ct_view_n(c, ndim, s2);
}
CTENSOR_API ct_tensor *ct_view_as(const ct_tensor *t, const ct_tensor *o) {
    if (!o) { ct__null_arg("view_as", 1); return NULL; }
    return ct_view_n(t, o->ndim, o->shape);
}
CTENSOR_API ct_tensor *ct_reshape_as(const ct_tensor *t, const ct_tensor *o) {
    if (!o) { ct__null_arg("reshape_as", 1); return NULL; }
    return ct_reshape_n(t, o->ndim, o->shape);
}
CTENSOR_API ct_tensor *ct_permute_n(const ct_tensor *t, int ndim, const int64_t *dims) {
    ct__attrs a;
    ct__attrs_init(&a);
    if (ndim < 0 || ndim > CT_MAX_DIMS) return ct__fail(CT_ERR_ARG, "permute: number of dimensions %d exceeds the maximum of %d", ndim, CT_MAX_DIMS);
    a.nv = ndim;
    for (int d = 0; d < ndim; d++) a.v[d] = dims[d];
    return ct__op1(CT__OP_PERMUTE, t, &a);
}
CTENSOR_API ct_tensor *ct_expand_n(const ct_tensor *t, int ndim, const int64_t *shape) {
    ct__attrs a;
    ct__attrs_init(&a);
    if (ndim < 0 || ndim > CT_MAX_DIMS) return ct__fail(CT_ERR_ARG, "expand: number of dimensions %d exceeds the maximum of %d", ndim, CT_MAX_DIMS);
    a.nv = ndim;
    for (int d = 0; d < ndim; d++) a.v[d] = shape[d];
    return ct__op1(CT__OP_EXPAND, t, &a);
}
CTENSOR_API ct_tensor *ct_expand_as(const ct_tensor *t, const ct_tensor *o) {
    if (!o) { ct__null_arg("expand_as", 1); return NULL; }
    return ct_expand_n(t, o->ndim, o->shape);
}
CTENSOR_API ct_tensor *ct_transpose(const ct_tensor *t, int d0, int d1) {
    if (!t) { ct__null_arg("transpose", 0); return NULL; }
    int a0 = ct__dim("transpose", d0, t->ndim), a1;
    if (a0 < 0) return NULL;
    a1 = ct__dim("transpose", d1, t->ndim);
    if (a1 < 0) return NULL;
    if (t->ndim == 0) return ct_alias(t);
    int64_t perm[CT_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) perm[d] = d;
    perm[a0] = a1;
    perm[a1] = a0;
    return ct_permute_n(t, t->ndim, perm);
}
CTENSOR_API ct_tensor *ct_t(const ct_tensor *t) {
    if (!t) { ct__null_arg("t", 0); return NULL; }
    if (t->ndim > 2) return ct__fail(CT_ERR_ARG, "t() expects a tensor with <= 2 dimensions, but self is %dD", t->ndim);
    if (t->ndim < 2) return ct_alias(t);
    return ct_transpose(t, 0, 1);
}
CTENSOR_API ct_tensor *ct_mT(const ct_tensor *t) {
    if (t && t->ndim < 2) return ct__fail(CT_ERR_ARG, "tensor.mT is only supported on matrices or batches of matrices. Got %d-D tensor.", t->ndim);
    return ct_transpose(t, -2, -1);
}
CTENSOR_API ct_tensor *ct_slice(const ct_tensor *t, int dim, int64_t start, int64_t end, int64_t step) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = dim;
    a.i[1] = start;
    a.i[2] = end;
    a.i[3] = step;
    return ct__op1(CT__OP_SLICE, t, &a);
}
CTENSOR_API ct_tensor *ct_narrow(const ct_tensor *t, int dim, int64_t start, int64_t length) {
    if (!t) { ct__null_arg("narrow", 0); return NULL; }
    if (t->ndim == 0) return ct__fail(CT_ERR_ARG, "narrow() cannot be applied to a 0-dim tensor.");
    int d = ct__dim("narrow", dim, t->ndim);
    if (d < 0) return NULL;
    int64_t size = t->shape[d];
    if (start < -size || start > size)
        return ct__fail(CT_ERR_INDEX, "narrow: start (%lld) out of range (expected to be in range of [%lld, %lld])", (long long)start, (long long)-size, (long long)size);
    if (start < 0) start += size;
    if (length < 0 || start + length > size)
        return ct__fail(CT_ERR_INDEX, "narrow: start (%lld) + length (%lld) exceeds dimension size (%lld).", (long long)start, (long long)length, (long long)size);
    return ct_slice(t, d, start, start + length, 1);
}
CTENSOR_API ct_tensor *ct_select(const ct_tensor *t, int dim, int64_t index) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = dim;
    a.i[1] = index;
    return ct__op1(CT__OP_SELECT, t, &a);
}
CTENSOR_API ct_tensor *ct_squeeze(const ct_tensor *t) {
    if (!t) { ct__null_arg("squeeze", 0); return NULL; }
    if (CT__NAMED(t)) return ct__names_comp(CT__NC_SQUEEZE, t, NULL, NULL, 0, 0);
    int64_t shape[CT_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < t->ndim; d++)
        if (t->shape[d] != 1) shape[n++] = t->shape[d];
    return ct_view_n(t, n, shape);
}
CTENSOR_API ct_tensor *ct_squeeze_dim(const ct_tensor *t, int dim) {
    if (!t) { ct__null_arg("squeeze", 0); return NULL; }
    if (CT__NAMED(t)) return ct__names_comp(CT__NC_SQUEEZE_DIM, t, NULL, NULL, dim, 0);
    int d = ct__dim("squeeze", dim, t->ndim);
    if (d < 0) return NULL;
    if (t->ndim == 0 || t->shape[d] != 1) return ct_alias(t);
    int64_t shape[CT_MAX_DIMS];
    int n = 0;
    for (int k = 0; k < t->ndim; k++)
        if (k != d) shape[n++] = t->shape[k];
    return ct_view_n(t, n, shape);
}
CTENSOR_API ct_tensor *ct_unsqueeze(const ct_tensor *t, int dim) {
    if (!t) { ct__null_arg("unsqueeze", 0); return NULL; }
    if (CT__NAMED(t)) return ct__names_comp(CT__NC_UNSQUEEZE, t, NULL, NULL, dim, 0);
    int d = ct__dim("unsqueeze", dim, t->ndim + 1);
    if (d < 0) return NULL;
    if (t->ndim >= CT_MAX_DIMS) return ct__fail(CT_ERR_ARG, "unsqueeze: the result would have more than %d dimensions", CT_MAX_DIMS);
    int64_t shape[CT_MAX_DIMS];
    int n = 0;
    for (int k = 0; k <= t->ndim; k++) {
        if (k == d) shape[n++] = 1;
        if (k < t->ndim) shape[n++] = t->shape[k];
    }
    return ct_view_n(t, n, shape);
}
CTENSOR_API ct_tensor *ct_flatten(const ct_tensor *t, int start_dim, int end_dim) {
    if (!t) { ct__null_arg("flatten", 0); return NULL; }
    if (CT__NAMED(t)) return ct__names_comp(CT__NC_FLATTEN, t, NULL, NULL, start_dim, end_dim);
    if (t->ndim == 0) return ct_reshape(t, 1);
    int s = ct__dim("flatten", start_dim, t->ndim), e;
    if (s < 0) return NULL;
    e = ct__dim("flatten", end_dim, t->ndim);
    if (e < 0) return NULL;
    if (s > e) return ct__fail(CT_ERR_ARG, "flatten() has invalid args: start_dim cannot come after end_dim");
    int64_t shape[CT_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < s; d++) shape[n++] = t->shape[d];
    int64_t p = 1;
    for (int d = s; d <= e; d++) p *= t->shape[d];
    shape[n++] = p;
    for (int d = e + 1; d < t->ndim; d++) shape[n++] = t->shape[d];
    return ct_reshape_n(t, n, shape);
}
CTENSOR_API ct_tensor *ct_unflatten_n(const ct_tensor *t, int dim, int nsizes, const int64_t *sizes) {
    if (!t) { ct__null_arg("unflatten", 0); return NULL; }
    if (CT__NAMED(t))
        return ct__fail(CT_ERR_ARG, "unflatten: input is a named tensor but no names were given for unflattened sizes "
                        "(ct_unflatten_names takes them)");
    int d = ct__dim("unflatten", dim, t->ndim);
    if (d < 0) return NULL;
    if (nsizes <= 0) return ct__fail(CT_ERR_ARG, "unflatten: sizes must be non-empty");
    if (t->ndim - 1 + nsizes > CT_MAX_DIMS) return ct__fail(CT_ERR_ARG, "unflatten: the result would have more than %d dimensions", CT_MAX_DIMS);
    int64_t inner[CT_MAX_DIMS];
    if (ct__infer_size("unflatten", nsizes, sizes, t->ndim ? t->shape[d] : 1, inner)) {
        ct_set_error(CT_ERR_SHAPE, "unflatten: Provided sizes %s don't multiply up to the size of dim %d (%lld) in the input tensor",
                     ct__fmt_shape(nsizes, sizes).s, dim, (long long)(t->ndim ? t->shape[d] : 1));
        return NULL;
    }
    int64_t shape[CT_MAX_DIMS];
    int n = 0;
    for (int k = 0; k < d; k++) shape[n++] = t->shape[k];
    for (int k = 0; k < nsizes; k++) shape[n++] = inner[k];
    for (int k = d + 1; k < t->ndim; k++) shape[n++] = t->shape[k];
    return ct_view_n(t, n, shape);
}
CTENSOR_API ct_tensor *ct_diagonal(const ct_tensor *t, int64_t offset, int dim1, int dim2) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = offset;
    a.i[1] = dim1;
    a.i[2] = dim2;
    return ct__op1(CT__OP_DIAGONAL, t, &a);
}
CTENSOR_API ct_tensor *ct_as_strided(const ct_tensor *t, int ndim, const int64_t *shape, const int64_t *strides, int64_t storage_offset) {
    ct__attrs a;
    ct__attrs_init(&a);
    if (ndim < 0 || ndim > CT_MAX_DIMS) return ct__fail(CT_ERR_ARG, "as_strided: number of dimensions %d exceeds the maximum of %d", ndim, CT_MAX_DIMS);
    a.nv = ndim;
    for (int d = 0; d < ndim; d++) { a.v[d] = shape[d]; a.v[ndim + d] = strides[d]; }
    a.i[0] = storage_offset;
    return ct__op1(CT__OP_AS_STRIDED, t, &a);
}
CTENSOR_API ct_tensor *ct_alias(const ct_tensor *t) {
    ct__attrs a;
    ct__attrs_init(&a);
    return ct__op1(CT__OP_ALIAS, t, &a);
}
CTENSOR_API ct_tensor *ct_view_as_real(const ct_tensor *t) { return ct__op1(CT__OP_VIEW_AS_REAL, t, &ct__attrs_none); }
CTENSOR_API ct_tensor *ct_view_as_complex(const ct_tensor *t) { return ct__op1(CT__OP_VIEW_AS_COMPLEX, t, &ct__attrs_none); }
CTENSOR_API ct_tensor *ct_real(const ct_tensor *t) { return ct__op1(CT__OP_REAL, t, &ct__attrs_none); }
CTENSOR_API ct_tensor *ct_imag(const ct_tensor *t) { return ct__op1(CT__OP_IMAG, t, &ct__attrs_none); }
CTENSOR_API ct_tensor *ct_complex(const ct_tensor *re, const ct_tensor *im) { return ct__op2(CT__OP_COMPLEX, re, im, &ct__attrs_none); }
CTENSOR_API ct_tensor *ct_polar(const ct_tensor *abs, const ct_tensor *angle) { return ct__op2(CT__OP_POLAR, abs, angle, &ct__attrs_none); }
CTENSOR_API ct_tensor *ct_conj_physical(const ct_tensor *t) {
    if (t && !CT__ISCOMPLEX(t->dtype)) return ct_clone(t);
    return ct__op1(CT__OP_CONJ, t, &ct__attrs_none);
}
CTENSOR_API ct_tensor *ct_conj(const ct_tensor *t) {
    if (t && !CT__ISCOMPLEX(t->dtype)) return ct_alias(t);
    return ct__op1(CT__OP_CONJ, t, &ct__attrs_none);
}
CTENSOR_API ct_tensor *ct_full_complex_n(ct_dtype dt, int ndim, const int64_t *shape, double re, double im) {
    if (ct__dt_ok(dt) && !CT__ISCOMPLEX(dt))
        return ct__fail(CT_ERR_DTYPE, "full_complex: dtype must be complex64 or complex128 (got %s)", ct_dtype_name(dt));
    ct_tensor *x = ct__full_api("full", ct__cpu_dev, dt, ndim, shape, re);
    if (x && im != 0.0) {
        int64_t n = ct_numel(x);
        for (int64_t k = 0; k < n; k++) ct__cx_store(ct__ptr(x) + k * (int64_t)ct__dt[dt].size, dt, re, im);
    }
    return x;
}
/* gradient helper: zeros of `shape` with g added at a view given relative to a
   contiguous tensor of that shape (vshape is g's shape) */
static ct_tensor *ct__strided_scatter(const ct_tensor *g, int ndim, const int64_t *shape, int vndim, const int64_t *vshape,
                                      const int64_t *vstrides, int64_t voffset) {
    ct__attrs a;
    ct__attrs_init(&a);
    if (!g) return NULL;
    a.nv = vndim;
    a.i[0] = voffset;
    for (int d = 0; d < vndim; d++) { a.v[d] = vshape[d]; a.v[vndim + d] = vstrides[d]; }
    ct_tensor *in[2];
    /* no memory: a stride-0 zero (on g's device: a GPU's backend adds g into it there) */
    in[0] = ct_expand_n(g->device.type == CT_CPU ? ct_scalar_tensor(0.0, g->dtype) : ct_scalar_tensor_on(g->device, 0.0, g->dtype), ndim, shape);
    in[1] = (ct_tensor *)g;
    return in[0] ? ct__call1(CT__OP_STRIDED_SCATTER, 2, in, &a) : NULL;
}

/* ============================================================================
   Reductions
   attrs: v[0..nv) dims (nv == 0: all), flags bit 0 keepdim, bit 1 dtype given;
   ops along one dim keep it in i[0] (i[1]: k).
   Every kernel of the family sees its input as [O][K][NI] (ct__rl_make below):
   K elements reduce into each output, contiguous when the input's memory order
   allows it (no copy), else copied with the reduced dims last. Inner loops then
   either fold a row into one output (NI == 1, horizontal) or add rows into a
   row of outputs (vertical); large inputs split rows or columns over threads.
   ========================================================================== */
#define CT__RF_KEEPDIM 1
#define CT__RF_DTYPE 2
#define CT__RF_DESC 4       /* sort: descending; topk: largest */
#define CT__RF_REVERSE 8    /* scans: from the end (the backward of cumsum) */
#define CT__RF_HASDIM 16    /* argmax, argmin, all, any: the dim in i[0] is given (else all dims) */
/* The dims of a reduction as a list in v[0..nv): ops along one dim (max.dim,
   argmax, all, ...) keep it in i[0]; *tmp receives their list. */
static const ct__attrs *ct__rdims(int op, const ct__attrs *a, ct__attrs *tmp) {
    int one = op == CT__OP_MAX_DIM || op == CT__OP_MIN_DIM;
    if (!one && op != CT__OP_ARGMAX && op != CT__OP_ARGMIN && op != CT__OP_ALL && op != CT__OP_ANY) return a;
    *tmp = *a;
    tmp->nv = one || (a->flags & CT__RF_HASDIM) ? 1 : 0;
    tmp->v[0] = a->i[0];
    return tmp;
}
/* Parses a dims list into a mask; sets the reduced output shape. */
static int ct__reduce_shape(const char *op, const ct_tensor *x, const ct__attrs *a, uint32_t *mask, ct__outinfo *o) {
    *mask = 0;
    if (a->nv == 0) *mask = (1u << x->ndim) - 1u;
    for (int k = 0; k < a->nv; k++) {
        int d = ct__dim(op, a->v[k], x->ndim);
        if (d < 0) return -1;
        if (x->ndim == 0) continue;
        if (*mask & (1u << d)) return ct__failed(CT_ERR_ARG, "%s: dim %d appears multiple times in the list of dims", op, d);
        *mask |= 1u << d;
    }
    int keep = (a->flags & CT__RF_KEEPDIM) != 0, n = 0;
    for (int d = 0; d < x->ndim; d++) {
        if (*mask & (1u << d)) { if (keep) o->shape[n++] = 1; }
        else o->shape[n++] = x->shape[d];
    }
    o->ndim = n;
    o->kind = CT__OUT_NEW;
    o->has_strides = 0;
    return 0;
}
/* sum, mean, nansum, prod: output dtype as PyTorch (integers sum to int64). */
static int ct__meta_reduce(ct__call *c) {
    ct_tensor *x = c->in[0];
    const char *name = ct__ops[c->op].name;
    uint32_t mask;
    ct__outinfo *o = &c->oi[0];
    c->nout = 1;
    if (CT__ISCOMPLEX(x->dtype) && (c->op == CT__OP_SUM || c->op == CT__OP_MEAN) &&
        (!(c->a->flags & CT__RF_DTYPE) || c->a->dtype == x->dtype)) {   /* complex sum, mean: over the parts */
        if (ct__reduce_shape(name, x, c->a, &mask, o)) return -1;
        o->dtype = c->cdt = x->dtype;
        return 0;
    }
    if (!CT__ISREAL(x->dtype)) return ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s'", name, CT__DTNAME(x->dtype));
    if ((c->a->flags & CT__RF_DTYPE) && !ct__dt_ok(c->a->dtype))
        return ct__failed(CT_ERR_DTYPE, "%s: invalid dtype %d", name, (int)c->a->dtype);
    if (ct__reduce_shape(name, x, c->a, &mask, o)) return -1;
    ct_dtype odt;
    if (c->a->flags & CT__RF_DTYPE) odt = c->a->dtype;
    else if ((c->op == CT__OP_SUM || c->op == CT__OP_NANSUM || c->op == CT__OP_PROD) && !CT__ISFLOAT(x->dtype)) odt = CT_INT64;
    else odt = x->dtype;
    if (!CT__ISREAL(odt)) return ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s'", name, CT__DTNAME(odt));
    if (c->op == CT__OP_MEAN && !CT__ISFLOAT(odt))
        return ct__failed(CT_ERR_DTYPE, "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: %s", CT__DTNAME(odt));
    o->dtype = odt;
    /* accumulate in float for half types, in double for prod, in the output dtype otherwise */
    if (c->op == CT__OP_PROD) c->cdt = CT__ISFLOAT(odt) ? CT_FLOAT64 : CT_INT64;
    else c->cdt = (odt == CT_FLOAT16 || odt == CT_BFLOAT16) ? CT_FLOAT32 : CT__ISFLOAT(odt) ? odt : CT_INT64;
    return 0;
}

/* ---- threads: large kernels split their outer loop (never small tensors) ----
   A reduction loop's body is a function of a block range [lo, hi) with the loop's
   variables in a small struct (the _cN/_bN pairs below); ct__rrun runs it on the pool
   when ct__par (ct__rpar: enough work, more than one thread, not nested), else inline. */
static int ct__rpar(int64_t work) { return work >= 2 * CT__GRAIN && ct__par_threads() > 1; }
static int ct__rthreads(void) { return ct__par_threads(); }
static CT__UNUSED void ct__rrun(int64_t n, int par, ct__par_fn fn, void *ctx) {
    if (par) ct__par_for(n, 1, fn, ctx);
    else if (n > 0) fn(ctx, 0, n);
}

/* ---- layouts: an input seen as [O][K][NI], K the elements reduced into one output ----
   Kernels of this family read the input through this view and write contiguous
   outputs (output (o, i) at o * NI + i), so each inner loop is a plain row
   (NI == 1, horizontal) or a strip of rows (NI > 1, vertical). */
#define CT__RL_ROWS 1     /* NI must be 1: each output's elements are adjacent */
#define CT__RL_CONTIG 2   /* the input must be contiguous as it is (outputs keep its shape) */
#define CT__RL_ANYORDER 4 /* the op does not care in which order the K elements come */
typedef struct ct__rl { ct_tensor *t; int64_t O, K, NI; } ct__rl;

/* A stack header viewing x with the kept dims first and the dims in mask last
   (each group in its order). It is never registered or released. */
static void ct__rl_permuted(ct_tensor *v, const ct_tensor *x, uint32_t mask) {
    memcpy(v, x, sizeof *v);
    int n = 0;
    for (uint32_t pass = 0; pass < 2; pass++)
        for (int d = 0; d < x->ndim; d++)
            if (((mask >> d) & 1u) == pass) { v->shape[n] = x->shape[d]; v->strides[n] = x->strides[d]; n++; }
}
/* No copy when x already has the dtype and is dense with the reduced dims adjacent
   in memory, kept and reduced dims each in their logical order (contiguous
   tensors, transposed matrices); otherwise a copy with the reduced dims last. */
static int ct__rl_make(ct__rl *r, const ct_tensor *x, uint32_t mask, ct_dtype dt, int flags) {
    int nd = x->ndim, q[CT_MAX_DIMS], m = 0;
    int64_t kept = 1, K = 1, numel = ct__shape_numel(nd, x->shape);
    for (int d = 0; d < nd; d++) {
        if ((mask >> d) & 1u) K *= x->shape[d];
        else kept *= x->shape[d];
    }
    r->K = K;
    if (x->dtype == dt && numel > 0) {
        for (int d = 0; d < nd; d++)
            if (x->shape[d] != 1) q[m++] = d;
        for (int i = 1; i < m; i++) {  /* memory order, outermost first */
            int p = q[i], j = i - 1;
            while (j >= 0 && x->strides[q[j]] < x->strides[p]) { q[j + 1] = q[j]; j--; }
            q[j + 1] = p;
        }
        int ok = 1, state = 0, lastk = -1, lastr = -1;
        int64_t s = 1, O = 1, NI = 1;
        for (int j = m - 1; j >= 0 && ok; j--) { ok = x->strides[q[j]] == s; s *= x->shape[q[j]]; }
        for (int j = 0; j < m && ok; j++) {
            int d = q[j];
            if ((flags & CT__RL_CONTIG) && j > 0 && d < q[j - 1]) ok = 0;
            if ((mask >> d) & 1u) {
                if (state == 2 || (d < lastr && !(flags & CT__RL_ANYORDER))) ok = 0;
                state = 1;
                lastr = d;
            } else {
                if (state == 1) state = 2;
                if (d < lastk) ok = 0;
                lastk = d;
                if (state == 0) O *= x->shape[d];
                else NI *= x->shape[d];
            }
        }
        if (ok && (flags & CT__RL_ROWS) && NI != 1) ok = 0;
        if (ok) {
            r->t = ct__incref((ct_tensor *)x);
            r->O = O;
            r->NI = NI;
            return 0;
        }
    }
    ct_tensor v;
    if (flags & CT__RL_CONTIG) {
        /* a contiguous copy in the logical order (mask is one dim here) */
        int64_t O = 1, NI = 1;
        int seen = 0;
        memcpy(&v, x, sizeof v);
        for (int d = 0; d < nd; d++) {
            if ((mask >> d) & 1u) seen = 1;
            else if (seen) NI *= x->shape[d];
            else O *= x->shape[d];
        }
        r->O = O;
        r->NI = NI;
    } else {
        ct__rl_permuted(&v, x, mask);
        r->O = kept;
        r->NI = 1;
    }
    ct_tensor *y = ct__alloc(dt, nd, v.shape, NULL, x->device);
    if (!y) return -1;
    if (numel && ct__copy_into(y, &v)) { ct__decref(y); return -1; }
    r->t = y;
    return 0;
}
#define CT__RL_P(r, T) ((const T *)ct__ptr((r)->t))
/* Generic kernels walk columns in blocks: one running value per column, rows
   read CT__RBLK elements at a time (whole cache lines when reducing a non-last dim). */
#define CT__RBLK 256
/* The buffer a kernel writes an output into: the output itself when it has the
   compute dtype (outputs are allocated contiguous), else a temporary. */
static ct_tensor *ct__rl_obuf(ct_tensor *out, ct_dtype dt) {
    if (out->dtype == dt) return ct__incref(out);
    return ct__alloc(dt, out->ndim, out->shape, NULL, out->device);
}
static int ct__rl_odone(ct_tensor *out, ct_tensor *buf, int rc) {
    if (!buf) return -1;
    if (!rc && buf != out) rc = ct__copy_into(out, buf);
    ct__decref(buf);
    return rc;
}
/* Exact working dtype of kernels that compare or move elements. */
static ct_dtype ct__rvdt(ct_dtype d) { return d == CT_FLOAT64 ? CT_FLOAT64 : CT__ISFLOAT(d) ? CT_FLOAT32 : CT_INT64; }

/* ---- SIMD: GCC/clang vector extensions with a plain C fallback ----
   512-bit vectors (4 registers' worth where AVX-512 is off); they never cross a
   function boundary (that would change the ABI between builds with and without
   AVX-512). CTENSOR_NO_SIMD turns them off, as for the elementwise kernels. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__) && !defined(CTENSOR_NO_SIMD)
#  define CT__VEC 1
typedef float ct__v16f __attribute__((vector_size(64)));
typedef int32_t ct__v16i __attribute__((vector_size(64)));
typedef double ct__v8d __attribute__((vector_size(64)));
typedef int64_t ct__v8l __attribute__((vector_size(64)));
#  define CT__VLD(V, p) (memcpy(&(V), (p), 64))
#  define CT__VST(p, V) (memcpy((p), &(V), 64))
/* lane select: m is a comparison result (all ones where true) */
#  define CT__VSELF(m, a, b) ((ct__v16f)(((ct__v16i)(a) & (m)) | ((ct__v16i)(b) & ~(m))))
#  define CT__VSELD(m, a, b) ((ct__v8d)(((ct__v8l)(a) & (m)) | ((ct__v8l)(b) & ~(m))))
#else
#  define CT__VEC 0
#endif

/* ---- sums: blocks of lane-parallel float sums, blocks added in double ----
   (at least as accurate as PyTorch's cascade sum). NAN_ skips NaN (nansum). */
#define CT__HSUM_BLOCK 8192
#if CT__VEC
#define CT__HSUM_DEF(fname, T, VT, VI, VL, NAN_) \
    static double fname(const T *x, int64_t n) { \
        double total = 0.0; \
        int64_t k = 0; \
        while (k < n) { \
            int64_t e = k + CT__HSUM_BLOCK < n ? k + CT__HSUM_BLOCK : n; \
            VT a0, a1, a2, a3, v0, v1, v2, v3; \
            memset(&a0, 0, 64); a1 = a0; a2 = a0; a3 = a0; \
            for (; k + 4 * VL <= e; k += 4 * VL) { \
                CT__VLD(v0, x + k); CT__VLD(v1, x + k + VL); CT__VLD(v2, x + k + 2 * VL); CT__VLD(v3, x + k + 3 * VL); \
                if (NAN_) { \
                    v0 = (VT)((VI)v0 & (VI)(v0 == v0)); v1 = (VT)((VI)v1 & (VI)(v1 == v1)); \
                    v2 = (VT)((VI)v2 & (VI)(v2 == v2)); v3 = (VT)((VI)v3 & (VI)(v3 == v3)); \
                } \
                a0 += v0; a1 += v1; a2 += v2; a3 += v3; \
            } \
            a0 = (a0 + a1) + (a2 + a3); \
            T lanes[VL], t = 0; \
            CT__VST(lanes, a0); \
            for (; k < e; k++) t += (NAN_ && x[k] != x[k]) ? (T)0 : x[k]; \
            for (int w = VL / 2; w >= 1; w /= 2) \
                for (int l = 0; l < w; l++) lanes[l] += lanes[l + w]; \
            total += (double)lanes[0] + (double)t; \
        } \
        return total; \
    }
CT__HSUM_DEF(ct__hsum_f32, float, ct__v16f, ct__v16i, 16, 0)
CT__HSUM_DEF(ct__hsum_f64, double, ct__v8d, ct__v8l, 8, 0)
CT__HSUM_DEF(ct__hsumnan_f32, float, ct__v16f, ct__v16i, 16, 1)
CT__HSUM_DEF(ct__hsumnan_f64, double, ct__v8d, ct__v8l, 8, 1)
#else
#define CT__HSUM_DEF(fname, T, NAN_) \
    static double fname(const T *x, int64_t n) { \
        double total = 0.0; \
        int64_t k = 0; \
        while (k < n) { \
            int64_t e = k + CT__HSUM_BLOCK < n ? k + CT__HSUM_BLOCK : n; \
            T r[8] = {0, 0, 0, 0, 0, 0, 0, 0}, t = 0; \
            for (; k + 8 <= e; k += 8) \
                for (int l = 0; l < 8; l++) r[l] += (NAN_ && x[k + l] != x[k + l]) ? (T)0 : x[k + l]; \
            for (; k < e; k++) t += (NAN_ && x[k] != x[k]) ? (T)0 : x[k]; \
            total += (double)(((r[0] + r[4]) + (r[1] + r[5])) + ((r[2] + r[6]) + (r[3] + r[7]))) + (double)t; \
        } \
        return total; \
    }
CT__HSUM_DEF(ct__hsum_f32, float, 0)
CT__HSUM_DEF(ct__hsum_f64, double, 0)
CT__HSUM_DEF(ct__hsumnan_f32, float, 1)
CT__HSUM_DEF(ct__hsumnan_f64, double, 1)
#endif

/* acc[0..n) += x[0..n) (NaN as zero with skip) */
#define CT__VADD_DEF(fname, T, VT, VI, VL, NAN_) \
    static void fname(T *CT_RESTRICT acc, const T *CT_RESTRICT x, int64_t n) { \
        int64_t b = 0; \
        CT__VADD_BODY(T, VT, VI, VL, NAN_) \
        for (; b < n; b++) acc[b] += (NAN_ && x[b] != x[b]) ? (T)0 : x[b]; \
    }
#if CT__VEC
#define CT__VADD_BODY(T, VT, VI, VL, NAN_) \
    for (; b + VL <= n; b += VL) { \
        VT va, vx; \
        CT__VLD(va, acc + b); CT__VLD(vx, x + b); \
        if (NAN_) vx = (VT)((VI)vx & (VI)(vx == vx)); \
        va += vx; \
        CT__VST(acc + b, va); \
    }
CT__VADD_DEF(ct__vadd_f64, double, ct__v8d, ct__v8l, 8, 0)
CT__VADD_DEF(ct__vaddnan_f64, double, ct__v8d, ct__v8l, 8, 1)
#else
#define CT__VADD_BODY(T, VT, VI, VL, NAN_)
CT__VADD_DEF(ct__vadd_f64, double, 0, 0, 8, 0)
CT__VADD_DEF(ct__vaddnan_f64, double, 0, 0, 8, 1)
#endif

/* tot[0..n) += x[0..n) in double (NaN as zero with skip): vertical float sums */
#if CT__VEC
typedef float ct__v8f __attribute__((vector_size(32)));
typedef int32_t ct__v8i __attribute__((vector_size(32)));
#endif
#define CT__VACCD_DEF(fname, NAN_) \
    static void fname(double *CT_RESTRICT tot, const float *CT_RESTRICT x, int64_t n) { \
        int64_t b = 0; \
        CT__VACCD_BODY(NAN_) \
        for (; b < n; b++) tot[b] += (NAN_ && x[b] != x[b]) ? 0.0 : (double)x[b]; \
    }
#if CT__VEC
#define CT__VACCD_BODY(NAN_) \
    for (; b + 16 <= n; b += 16) { \
        ct__v8f h0, h1; \
        ct__v8d t0, t1, d0, d1; \
        memcpy(&h0, x + b, 32); memcpy(&h1, x + b + 8, 32); \
        if (NAN_) { h0 = (ct__v8f)((ct__v8i)h0 & (ct__v8i)(h0 == h0)); h1 = (ct__v8f)((ct__v8i)h1 & (ct__v8i)(h1 == h1)); } \
        d0 = __builtin_convertvector(h0, ct__v8d); d1 = __builtin_convertvector(h1, ct__v8d); \
        CT__VLD(t0, tot + b); CT__VLD(t1, tot + b + 8); \
        t0 += d0; t1 += d1; \
        CT__VST(tot + b, t0); CT__VST(tot + b + 8, t1); \
    }
#else
#define CT__VACCD_BODY(NAN_)
#endif
CT__VACCD_DEF(ct__vaccd_f32, 0)
CT__VACCD_DEF(ct__vaccdnan_f32, 1)
#define ct__vaccd_f64 ct__vadd_f64
#define ct__vaccdnan_f64 ct__vaddnan_f64

/* Float sums over a layout: out[o * NI + i] = scale * sum_k x[o][k][i].
   Horizontal rows use ct__hsum; vertical strips add rows into a double strip
   (when there are fewer strips than threads, the rows are split instead). */
#define CT__VSUM_STRIP 4096   /* columns per strip: rows are read in runs of whole pages */
#define CT__VSUM_SMALL 1024   /* strips up to this wide sum into a stack array (8 KB) */
#define CT__FSUM_DEF(fname, T, HSUM, VACC) \
typedef struct { const T * x; T * out; int64_t O; int64_t K; int64_t NI; double scale; double * part; int64_t chunk; const T * xr; } fname##_c1; \
static void fname##_b1(void *c_, int64_t lo_, int64_t hi_) { \
    const fname##_c1 *q_ = (const fname##_c1 *)c_; \
    const T * x = q_->x; (void)x; \
    T * out = q_->out; (void)out; \
    int64_t O = q_->O; (void)O; \
    int64_t K = q_->K; (void)K; \
    int64_t NI = q_->NI; (void)NI; \
    double scale = q_->scale; (void)scale; \
    double * part = q_->part; (void)part; \
    int64_t chunk = q_->chunk; (void)chunk; \
    const T * xr = q_->xr; (void)xr; \
    for (int p = (int)lo_; p < hi_; p++) { \
                        int64_t b = (int64_t)p * chunk, e = b + chunk < K ? b + chunk : K; \
                        part[p] = b < e ? HSUM(xr + b, e - b) : 0.0; \
                    } \
} \
typedef struct { const T * x; T * out; int64_t O; int64_t K; int64_t NI; double scale; } fname##_c2; \
static void fname##_b2(void *c_, int64_t lo_, int64_t hi_) { \
    const fname##_c2 *q_ = (const fname##_c2 *)c_; \
    const T * x = q_->x; (void)x; \
    T * out = q_->out; (void)out; \
    int64_t O = q_->O; (void)O; \
    int64_t K = q_->K; (void)K; \
    int64_t NI = q_->NI; (void)NI; \
    double scale = q_->scale; (void)scale; \
    for (int64_t o = (int64_t)lo_; o < hi_; o++) out[o] = (T)(HSUM(x + o * K, K) * scale); \
} \
typedef struct { const T * x; T * out; int64_t O; int64_t K; int64_t NI; double scale; double * parts; int64_t W; int64_t chunk; int64_t w; const T * xp; } fname##_c3; \
static void fname##_b3(void *c_, int64_t lo_, int64_t hi_) { \
    const fname##_c3 *q_ = (const fname##_c3 *)c_; \
    const T * x = q_->x; (void)x; \
    T * out = q_->out; (void)out; \
    int64_t O = q_->O; (void)O; \
    int64_t K = q_->K; (void)K; \
    int64_t NI = q_->NI; (void)NI; \
    double scale = q_->scale; (void)scale; \
    double * parts = q_->parts; (void)parts; \
    int64_t W = q_->W; (void)W; \
    int64_t chunk = q_->chunk; (void)chunk; \
    int64_t w = q_->w; (void)w; \
    const T * xp = q_->xp; (void)xp; \
    for (int p = (int)lo_; p < hi_; p++) { \
                    double *tot = parts + (int64_t)p * W; \
                    int64_t k1 = (p + 1) * chunk < K ? (p + 1) * chunk : K; \
                    for (int64_t b = 0; b < w; b++) tot[b] = 0.0; \
                    for (int64_t k = (int64_t)p * chunk; k < k1; k++) VACC(tot, xp + k * NI, w); \
                } \
} \
typedef struct { const T * x; T * out; int64_t O; int64_t K; int64_t NI; double scale; int64_t W; int64_t nstrip; } fname##_c4; \
static void fname##_b4(void *c_, int64_t lo_, int64_t hi_) { \
    const fname##_c4 *q_ = (const fname##_c4 *)c_; \
    const T * x = q_->x; (void)x; \
    T * out = q_->out; (void)out; \
    int64_t O = q_->O; (void)O; \
    int64_t K = q_->K; (void)K; \
    int64_t NI = q_->NI; (void)NI; \
    double scale = q_->scale; (void)scale; \
    int64_t W = q_->W; (void)W; \
    int64_t nstrip = q_->nstrip; (void)nstrip; \
    /* a strip's sums: on the stack when narrow, else on the heap (a 4096-double \
       array was a 32 KB frame); without memory, in parts of the small buffer */ \
    double tsmall[CT__VSUM_SMALL], *tbig = W > CT__VSUM_SMALL ? CT__NEW_ARRAY(double, W) : NULL; \
    double *CT_RESTRICT tot = tbig ? tbig : tsmall; \
    int64_t cap = tbig ? W : CT__VSUM_SMALL; \
    for (int64_t t = (int64_t)lo_; t < hi_; t++) { \
            int64_t o = t / nstrip, i0 = (t % nstrip) * W, w = NI - i0 < W ? NI - i0 : W; \
            for (int64_t c0 = 0; c0 < w; c0 += cap) { \
                int64_t wc = w - c0 < cap ? w - c0 : cap; \
                for (int64_t b = 0; b < wc; b++) tot[b] = 0.0; \
                const T *xp = x + o * K * NI + i0 + c0; \
                for (int64_t k = 0; k < K; k++) VACC(tot, xp + k * NI, wc); \
                for (int64_t b = 0; b < wc; b++) out[o * NI + i0 + c0 + b] = (T)(tot[b] * scale); \
            } \
        } \
    if (tbig) CT_FREE(tbig); \
} \
    static void fname(const T *x, T *out, int64_t O, int64_t K, int64_t NI, double scale) { \
        if (NI == 1) { \
            int nt = ct__rthreads(); \
            if (O < 2 * nt && ct__rpar(K)) { \
                /* few long rows: split each row over the threads */ \
                for (int64_t o = 0; o < O; o++) { \
                    double part[256]; \
                    int np = nt < 256 ? nt : 256; \
                    int64_t chunk = (K + np - 1) / np; \
                    chunk = (chunk + 63) & ~(int64_t)63; \
                    const T *xr = x + o * K; \
                    int ct__par = 1; \
                    (void)ct__par; \
                    fname##_c1 q1_ = {x, out, O, K, NI, scale, part, chunk, xr}; ct__rrun(np, ct__par, fname##_b1, &q1_); \
                    double t = 0.0; \
                    for (int p = 0; p < np; p++) t += part[p]; \
                    out[o] = (T)(t * scale); \
                } \
                return; \
            } \
            int ct__par = ct__rpar(O * K); \
            (void)ct__par; \
            fname##_c2 q2_ = {x, out, O, K, NI, scale}; ct__rrun(O, ct__par, fname##_b2, &q2_); \
            return; \
        } \
        int64_t W = NI < CT__VSUM_STRIP ? NI : CT__VSUM_STRIP, nstrip = (NI + W - 1) / W; \
        int nt = ct__rthreads(), par = ct__rpar(O * K * NI); \
        double *parts = par && O * nstrip < nt && K >= 4 * nt ? CT__NEW_ARRAY(double, (int64_t)nt * W) : NULL; \
        if (parts) { \
            /* few strips: the rows are split over the threads, one double row each */ \
            for (int64_t t = 0; t < O * nstrip; t++) { \
                int64_t o = t / nstrip, i0 = (t % nstrip) * W, w = NI - i0 < W ? NI - i0 : W; \
                int64_t chunk = (K + nt - 1) / nt; \
                const T *xp = x + o * K * NI + i0; \
                int ct__par = 1; \
                (void)ct__par; \
                fname##_c3 q3_ = {x, out, O, K, NI, scale, parts, W, chunk, w, xp}; ct__rrun(nt, ct__par, fname##_b3, &q3_); \
                for (int64_t b = 0; b < w; b++) { \
                    double sum = 0.0; \
                    for (int p = 0; p < nt; p++) sum += parts[(int64_t)p * W + b]; \
                    out[o * NI + i0 + b] = (T)(sum * scale); \
                } \
            } \
            CT_FREE(parts); \
            return; \
        } \
        int ct__par = par && O * nstrip > 1; \
        (void)ct__par; \
        fname##_c4 q4_ = {x, out, O, K, NI, scale, W, nstrip}; ct__rrun(O * nstrip, ct__par, fname##_b4, &q4_); \
    }
CT__FSUM_DEF(ct__fsum_f32, float, ct__hsum_f32, ct__vaccd_f32)
CT__FSUM_DEF(ct__fsum_f64, double, ct__hsum_f64, ct__vaccd_f64)
CT__FSUM_DEF(ct__fsumnan_f32, float, ct__hsumnan_f32, ct__vaccdnan_f32)
CT__FSUM_DEF(ct__fsumnan_f64, double, ct__hsumnan_f64, ct__vaccdnan_f64)

/* integer sums and products wrap like PyTorch's int64 arithmetic (no UB) */
typedef struct { const int64_t * x; int64_t * out; int64_t O; int64_t K; int64_t NI; int prod; int64_t nblk; } ct__isum_c1;
static void ct__isum_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__isum_c1 *q_ = (const ct__isum_c1 *)c_;
    const int64_t * x = q_->x; (void)x;
    int64_t * out = q_->out; (void)out;
    int64_t O = q_->O; (void)O;
    int64_t K = q_->K; (void)K;
    int64_t NI = q_->NI; (void)NI;
    int prod = q_->prod; (void)prod;
    int64_t nblk = q_->nblk; (void)nblk;
    for (int64_t t = (int64_t)lo_; t < hi_; t++) {
        int64_t o = t / nblk, i0 = (t % nblk) * CT__RBLK;
        int nb = (int)(NI - i0 < CT__RBLK ? NI - i0 : CT__RBLK);
        uint64_t acc[CT__RBLK];
        const int64_t *xp = x + o * K * NI + i0;
        for (int b = 0; b < nb; b++) acc[b] = prod ? 1u : 0u;
        for (int64_t k = 0; k < K; k++, xp += NI) {
            if (prod) for (int b = 0; b < nb; b++) acc[b] *= (uint64_t)xp[b];
            else for (int b = 0; b < nb; b++) acc[b] += (uint64_t)xp[b];
        }
        for (int b = 0; b < nb; b++) out[o * NI + i0 + b] = CT__IW(acc[b]);
    }
}
static void ct__isum(const int64_t *x, int64_t *out, int64_t O, int64_t K, int64_t NI, int prod) {
    int64_t nblk = (NI + CT__RBLK - 1) / CT__RBLK;
    int ct__par = ct__rpar(O * K * NI) && O * nblk > 1;
    (void)ct__par;
    ct__isum_c1 q1_ = {x, out, O, K, NI, prod, nblk}; ct__rrun(O * nblk, ct__par, ct__isum_b1, &q1_);
}
/* float products in double */
typedef struct { const double * x; double * out; int64_t O; int64_t K; int64_t NI; int64_t nblk; } ct__fprod_c1;
static void ct__fprod_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__fprod_c1 *q_ = (const ct__fprod_c1 *)c_;
    const double * x = q_->x; (void)x;
    double * out = q_->out; (void)out;
    int64_t O = q_->O; (void)O;
    int64_t K = q_->K; (void)K;
    int64_t NI = q_->NI; (void)NI;
    int64_t nblk = q_->nblk; (void)nblk;
    for (int64_t t = (int64_t)lo_; t < hi_; t++) {
        int64_t o = t / nblk, i0 = (t % nblk) * CT__RBLK;
        int nb = (int)(NI - i0 < CT__RBLK ? NI - i0 : CT__RBLK);
        double acc[CT__RBLK];
        const double *xp = x + o * K * NI + i0;
        for (int b = 0; b < nb; b++) acc[b] = 1.0;
        for (int64_t k = 0; k < K; k++, xp += NI)
            for (int b = 0; b < nb; b++) acc[b] *= xp[b];
        for (int b = 0; b < nb; b++) out[o * NI + i0 + b] = acc[b];
    }
}
static void ct__fprod(const double *x, double *out, int64_t O, int64_t K, int64_t NI) {
    int64_t nblk = (NI + CT__RBLK - 1) / CT__RBLK;
    int ct__par = ct__rpar(O * K * NI) && O * nblk > 1;
    (void)ct__par;
    ct__fprod_c1 q1_ = {x, out, O, K, NI, nblk}; ct__rrun(O * nblk, ct__par, ct__fprod_b1, &q1_);
}

/* sum, mean, nansum, prod */
/* a header viewing complex x as real [..., 2] (no dispatch, no autograd) */
static ct_tensor *ct__cx_parts(const ct_tensor *x) {
    int64_t sh[CT_MAX_DIMS + 1], st[CT_MAX_DIMS + 1];
    for (int d = 0; d < x->ndim; d++) { sh[d] = x->shape[d]; st[d] = x->strides[d] * 2; }
    sh[x->ndim] = 2;
    st[x->ndim] = 1;
    ct_tensor *v = ct__view_header(x, x->ndim + 1, sh, st, x->offset * 2);
    if (v) v->dtype = x->dtype == CT_COMPLEX64 ? CT_FLOAT32 : CT_FLOAT64;
    return v;
}
static int ct__k_sum(ct__call *c);
/* complex sum and mean: the real kernel over [..., 2] views, the last dim kept */
static CT__NOINLINE int ct__k_sum_cx(ct__call *c, uint32_t mask) {
    const ct_tensor *x = c->in[0];
    if (x->ndim >= CT_MAX_DIMS) return ct__failed(CT_ERR_SHAPE, "%s: complex input of %d dims (CTENSOR_MAX_DIMS)", ct__ops[c->op].name, x->ndim);
    if (!mask) return ct__copy_into(c->out[0], x);
    ct_tensor *in[1], *xo = ct__cx_parts(c->out[0]);
    in[0] = ct__cx_parts(x);
    ct__attrs a = *c->a;
    a.nv = 0;
    for (int d = 0; d < x->ndim; d++)
        if (mask & (1u << d)) a.v[a.nv++] = d;
    ct__call c2;
    ct__call_init(&c2, c->op, 1, in, &a);
    c2.out[0] = xo;
    c2.cdt = xo ? xo->dtype : CT_FLOAT32;
    int rc = in[0] && xo ? ct__k_sum(&c2) : -1;
    if (in[0]) ct__decref(in[0]);
    if (xo) ct__decref(xo);
    return rc;
}
static int ct__k_sum(ct__call *c) {
    ct_tensor *x = c->in[0], *out = c->out[0];
    ct_dtype adt = c->cdt;
    uint32_t mask = 0;
    ct__outinfo tmp;
    int op = c->op, rc = 0;
    if (ct__reduce_shape(ct__ops[op].name, x, c->a, &mask, &tmp)) return -1;
    if (CT__ISCOMPLEX(adt)) {
        if (mask == (1u << x->ndim) - 1u && ct__is_contig(x) && x->ndim > 0) {   /* everything, contiguous: one pass */
            int64_t n = ct_numel(x);
            double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};   /* 4 complex lanes, in double */
            if (adt == CT_COMPLEX64) {
                const float *v = (const float *)ct__ptr(x);
                int64_t k = 0;
                for (; k + 4 <= n; k += 4)
                    for (int l = 0; l < 8; l++) acc[l] += v[2 * k + l];
                for (; k < n; k++) { acc[0] += v[2 * k]; acc[1] += v[2 * k + 1]; }
            } else {
                const double *v = (const double *)ct__ptr(x);
                int64_t k = 0;
                for (; k + 4 <= n; k += 4)
                    for (int l = 0; l < 8; l++) acc[l] += v[2 * k + l];
                for (; k < n; k++) { acc[0] += v[2 * k]; acc[1] += v[2 * k + 1]; }
            }
            double re = (acc[0] + acc[2]) + (acc[4] + acc[6]), im = (acc[1] + acc[3]) + (acc[5] + acc[7]);
            if (op == CT__OP_MEAN) { re /= (double)n; im /= (double)n; }
            ct__cx_store(ct__ptr(out), adt, re, im);
            return 0;
        }
        return ct__k_sum_cx(c, mask);
    }
    /* dtype=: PyTorch casts the input to dtype first */
    ct_tensor *xc = (ct_tensor *)x;
    if ((c->a->flags & CT__RF_DTYPE) && x->dtype != c->a->dtype && c->a->dtype != adt && !(xc = ct__convert(x, c->a->dtype))) return -1;
    ct__rl r;
    if (ct__rl_make(&r, xc, mask, adt, CT__RL_ANYORDER)) { if (xc != x) ct__decref(xc); return -1; }
    if (xc != x) ct__decref(xc);
    ct_tensor *buf = ct__rl_obuf(out, adt);
    if (buf) {
        int nanskip = op == CT__OP_NANSUM && CT__ISFLOAT(x->dtype);
        double scale = op == CT__OP_MEAN ? 1.0 / (double)r.K : 1.0;
        if (adt == CT_FLOAT32) (nanskip ? ct__fsumnan_f32 : ct__fsum_f32)(CT__RL_P(&r, float), (float *)ct__ptr(buf), r.O, r.K, r.NI, scale);
        else if (adt == CT_FLOAT64) {
            if (op == CT__OP_PROD) ct__fprod(CT__RL_P(&r, double), (double *)ct__ptr(buf), r.O, r.K, r.NI);
            else (nanskip ? ct__fsumnan_f64 : ct__fsum_f64)(CT__RL_P(&r, double), (double *)ct__ptr(buf), r.O, r.K, r.NI, scale);
        } else if (adt == CT_INT64) ct__isum(CT__RL_P(&r, int64_t), (int64_t *)ct__ptr(buf), r.O, r.K, r.NI, op == CT__OP_PROD);
        else rc = ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s'", ct__ops[op].name, CT__DTNAME(adt));
    }
    rc = ct__rl_odone(out, buf, rc);
    ct__decref(r.t);
    return rc;
}

static ct_tensor *ct__reduce_call(int op, const ct_tensor *x, int ndims, const int64_t *dims, int keepdim, int has_dtype, ct_dtype dt) {
    ct__attrs a;
    ct__attrs_init(&a);
    if (ndims < 0 || ndims > CT_MAX_DIMS) return ct__fail(CT_ERR_ARG, "%s: too many dims (%d)", ct__ops[op].name, ndims);
    if (ndims > 0 && !dims) return ct__fail(CT_ERR_ARG, "%s: dims pointer is NULL", ct__ops[op].name);
    a.nv = ndims;
    for (int k = 0; k < ndims; k++) a.v[k] = dims[k];
    a.flags = (keepdim ? CT__RF_KEEPDIM : 0) | (has_dtype ? CT__RF_DTYPE : 0);
    a.dtype = dt;
    return ct__op1(op, x, &a);
}
CTENSOR_API ct_tensor *ct_sum(const ct_tensor *x) { return ct__reduce_call(CT__OP_SUM, x, 0, NULL, 0, 0, CT_FLOAT32); }
CTENSOR_API ct_tensor *ct_sum_dim(const ct_tensor *x, int dim, int keepdim) {
    int64_t d = dim;
    return ct__reduce_call(CT__OP_SUM, x, 1, &d, keepdim, 0, CT_FLOAT32);
}
CTENSOR_API ct_tensor *ct_sum_dims(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim) {
    if (ndims == 0 && x) {  /* an empty dim list sums nothing for keepdim semantics: PyTorch sums all */
        return ct__reduce_call(CT__OP_SUM, x, 0, NULL, keepdim, 0, CT_FLOAT32);
    }
    return ct__reduce_call(CT__OP_SUM, x, ndims, dims, keepdim, 0, CT_FLOAT32);
}
CTENSOR_API ct_tensor *ct_mean(const ct_tensor *x) { return ct__reduce_call(CT__OP_MEAN, x, 0, NULL, 0, 0, CT_FLOAT32); }
CTENSOR_API ct_tensor *ct_mean_dim(const ct_tensor *x, int dim, int keepdim) {
    int64_t d = dim;
    return ct__reduce_call(CT__OP_MEAN, x, 1, &d, keepdim, 0, CT_FLOAT32);
}
CTENSOR_API ct_tensor *ct_mean_dims(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim) {
    return ct__reduce_call(CT__OP_MEAN, x, ndims, dims, keepdim, 0, CT_FLOAT32);
}
CTENSOR_API ct_tensor *ct_sum_to_size_n(const ct_tensor *x, int ndim, const int64_t *shape) {
    if (!x) { ct__null_arg("sum_to_size", 0); return NULL; }
    if (ndim > x->ndim) goto bad;
    {
        int64_t dims[CT_MAX_DIMS];
        int nd = 0, lead = x->ndim - ndim;
        for (int d = 0; d < x->ndim; d++) {
            if (d < lead) { dims[nd++] = d; continue; }
            int64_t want = shape[d - lead];
            if (want == x->shape[d]) continue;
            if (want != 1) goto bad;
            dims[nd++] = d;
        }
        if (nd == 0) return ct_alias(x);
        ct_tensor *s = ct__reduce_call(CT__OP_SUM, x, nd, dims, 1, 0, CT_FLOAT32);
        return ct_view_n(s, ndim, shape);
    }
bad:
    return ct__fail(CT_ERR_SHAPE, "sum_to_size: size {%s} is not expandable to size {%s}.", ct__fmt_shape(ndim, shape).s, CT__SHAPE(x));
}

CTENSOR_API int ct_allclose(const ct_tensor *a, const ct_tensor *b, double rtol, double atol) {
    int s = ct_scope_begin();
    ct_tensor *c = ct_isclose(a, b, rtol, atol, 0);
    int r = -1;
    if (c) {
        ct_tensor *bad = ct_sum(ct_logical_not(c));
        if (bad) r = ct_item_int(bad) == 0;
    }
    ct_scope_end(s);
    return r;
}
CTENSOR_API int ct_equal(const ct_tensor *a, const ct_tensor *b) {
    if (!a || !b) { ct__null_arg("equal", a ? 1 : 0); return -1; }
    if (!ct_same_shape(a, b)) return 0;
    int s = ct_scope_begin();
    ct_tensor *bad = ct_sum(ct_ne(a, b));
    int r = bad ? ct_item_int(bad) == 0 : -1;
    ct_scope_end(s);
    return r;
}

/* ============================================================================
   Reductions (continued)
   ========================================================================== */
/* [section: reduce-impl] */
/* ---- shared helpers ---- */
#define CT__RNAN_f32(v) ((v) != (v))
#define CT__RNAN_f64(v) ((v) != (v))
#define CT__RNAN_i64(v) ((void)(v), 0)
/* one-input calls with up to two outputs; *second gets output 1 */
static ct_tensor *ct__rcall(int op, const ct_tensor *x, const ct__attrs *a, ct_tensor **second) {
    ct__call c;
    ct_tensor *in[1];
    in[0] = (ct_tensor *)x;
    ct__call_init(&c, op, 1, in, a);
    if (ct__dispatch(&c) < 0) {
        if (second) *second = NULL;
        return NULL;
    }
    if (second) *second = c.nout > 1 ? c.out[1] : NULL;
    return c.out[0];
}
/* attrs of a reduction over a dims list */
static int ct__rattrs(ct__attrs *a, const char *op, int ndims, const int64_t *dims, int keepdim) {
    ct__attrs_init(a);
    if (ndims < 0 || ndims > CT_MAX_DIMS) return ct__failed(CT_ERR_ARG, "%s: too many dims (%d)", op, ndims);
    if (ndims > 0 && !dims) return ct__failed(CT_ERR_ARG, "%s: dims pointer is NULL", op);
    a->nv = ndims;
    for (int k = 0; k < ndims; k++) a->v[k] = dims[k];
    a->flags = keepdim ? CT__RF_KEEPDIM : 0;
    return 0;
}
/* attrs of an op along one dim (i[0]; ct__rdims makes it a list) */
static ct__attrs ct__rattrs_dim(int dim, int keepdim) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = dim;
    a.flags = CT__RF_HASDIM | (keepdim ? CT__RF_KEEPDIM : 0);
    return a;
}
/* reduced-dims mask of a recorded node (nv == 0: all dims) */
static uint32_t ct__rmask_of(const ct__attrs *a, int ndim) {
    uint32_t m = 0;
    if (ndim == 0) return 0;
    if (a->nv == 0) return (1u << ndim) - 1u;
    for (int k = 0; k < a->nv; k++) m |= 1u << ct__wrap_dim((int)a->v[k], ndim);
    return m;
}
static int ct__rmask_dims(uint32_t mask, int ndim, int64_t *dims) {
    int n = 0;
    for (int d = 0; d < ndim; d++)
        if ((mask >> d) & 1u) dims[n++] = d;
    return n;
}
/* A reduced result seen with size-1 dims where it was reduced (keepdim shape). */
static ct_tensor *ct__rrestore(ct_tensor *g, uint32_t mask, const ct__tmeta *m, int keepdim) {
    if (!g || keepdim || m->ndim == 0) return g;
    int64_t shape[CT_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < m->ndim; d++) shape[d] = ((mask >> d) & 1u) ? 1 : g->shape[k++];
    return ct_reshape_n(g, m->ndim, shape);
}
static int64_t ct__rcount(uint32_t mask, const ct__tmeta *m) {
    int64_t n = 1;
    for (int d = 0; d < m->ndim; d++)
        if ((mask >> d) & 1u) n *= m->shape[d];
    return n;
}
#define CT__RNEEDS(n, i) ((n)->next[i].fn != NULL)

/* ---- sum / mean / prod / nansum: public functions (kernel in "Reductions") ---- */
CTENSOR_API ct_tensor *ct_sum_dtype(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim, ct_dtype dtype) {
    return ct__reduce_call(CT__OP_SUM, x, ndims, dims, keepdim, 1, dtype);
}
CTENSOR_API ct_tensor *ct_mean_dtype(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim, ct_dtype dtype) {
    return ct__reduce_call(CT__OP_MEAN, x, ndims, dims, keepdim, 1, dtype);
}
CTENSOR_API ct_tensor *ct_prod(const ct_tensor *x) { return ct__reduce_call(CT__OP_PROD, x, 0, NULL, 0, 0, CT_FLOAT32); }
CTENSOR_API ct_tensor *ct_prod_dim(const ct_tensor *x, int dim, int keepdim) {
    int64_t d = dim;
    return ct__reduce_call(CT__OP_PROD, x, 1, &d, keepdim, 0, CT_FLOAT32);
}
CTENSOR_API ct_tensor *ct_prod_dtype(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim, ct_dtype dtype) {
    return ct__reduce_call(CT__OP_PROD, x, ndims, dims, keepdim, 1, dtype);
}
CTENSOR_API ct_tensor *ct_nansum(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim) {
    return ct__reduce_call(CT__OP_NANSUM, x, ndims, dims, keepdim, 0, CT_FLOAT32);
}
CTENSOR_API ct_tensor *ct_nansum_dtype(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim, ct_dtype dtype) {
    return ct__reduce_call(CT__OP_NANSUM, x, ndims, dims, keepdim, 1, dtype);
}
/* PyTorch's nanmean is composite: nansum / count of non-NaN */
CTENSOR_API ct_tensor *ct_nanmean(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim) {
    if (!x) { ct__null_arg("nanmean", 0); return NULL; }
    if (!CT__ISFLOAT(x->dtype))
        return ct__fail(CT_ERR_DTYPE, "nanmean(): expected input to have floating point dtype but got %s", CT__DTNAME(x->dtype));
    ct_tensor *cnt = ct_sum_dims(ct_logical_not(ct_isnan(x)), ndims, dims, keepdim);
    return ct_div(ct_nansum(x, ndims, dims, keepdim), cnt);
}

/* ---- var / std (two passes, double accumulation, PyTorch's max(0, N - correction)) ---- */
static int ct__meta_var(ct__call *c) {
    ct_tensor *x = c->in[0];
    const char *name = ct__ops[c->op].name;
    uint32_t mask;
    if (!CT__ISFLOAT(x->dtype)) return ct__failed(CT_ERR_DTYPE, "%s: std and var only support floating point and complex dtypes", name);
    if (ct__reduce_shape(name, x, c->a, &mask, &c->oi[0])) return -1;
    c->oi[0].dtype = x->dtype;
    c->nout = (c->op == CT__OP_VAR_MEAN || c->op == CT__OP_STD_MEAN) ? 2 : 1;
    if (c->nout == 2) c->oi[1] = c->oi[0];
    c->cdt = x->dtype == CT_FLOAT64 ? CT_FLOAT64 : CT_FLOAT32;
    return 0;
}
#define CT__VAR_DEF(S, T) \
typedef struct { const T * x; T * vout; T * mout; int64_t O; int64_t K; int64_t NI; double corr; int sq; int64_t nblk; double dof; } ct__var_##S##_c1; \
static void ct__var_##S##_b1(void *c_, int64_t lo_, int64_t hi_) { \
    const ct__var_##S##_c1 *q_ = (const ct__var_##S##_c1 *)c_; \
    const T * x = q_->x; (void)x; \
    T * vout = q_->vout; (void)vout; \
    T * mout = q_->mout; (void)mout; \
    int64_t O = q_->O; (void)O; \
    int64_t K = q_->K; (void)K; \
    int64_t NI = q_->NI; (void)NI; \
    double corr = q_->corr; (void)corr; \
    int sq = q_->sq; (void)sq; \
    int64_t nblk = q_->nblk; (void)nblk; \
    double dof = q_->dof; (void)dof; \
    for (int64_t t = (int64_t)lo_; t < hi_; t++) { \
            int64_t o = t / nblk, i0 = (t % nblk) * CT__RBLK; \
            int nb = (int)(NI - i0 < CT__RBLK ? NI - i0 : CT__RBLK); \
            double mean[CT__RBLK], m2[CT__RBLK]; \
            const T *xp = x + o * K * NI + i0; \
            for (int b = 0; b < nb; b++) { mean[b] = 0.0; m2[b] = 0.0; } \
            for (int64_t k = 0; k < K; k++) \
                for (int b = 0; b < nb; b++) mean[b] += (double)xp[k * NI + b]; \
            for (int b = 0; b < nb; b++) mean[b] /= (double)K; \
            for (int64_t k = 0; k < K; k++) \
                for (int b = 0; b < nb; b++) { double d = (double)xp[k * NI + b] - mean[b]; m2[b] += d * d; } \
            for (int b = 0; b < nb; b++) { \
                double v = m2[b] / dof; \
                vout[o * NI + i0 + b] = (T)(sq ? sqrt(v) : v); \
                if (mout) mout[o * NI + i0 + b] = (T)mean[b]; \
            } \
        } \
} \
    static void ct__var_##S(const T *x, T *vout, T *mout, int64_t O, int64_t K, int64_t NI, double corr, int sq) { \
        int64_t nblk = (NI + CT__RBLK - 1) / CT__RBLK; \
        int ct__par = ct__rpar(O * K * NI) && O * nblk > 1; \
        double dof = (double)K - corr; \
        if (dof < 0) dof = 0; \
        (void)ct__par; \
        ct__var_##S##_c1 q1_ = {x, vout, mout, O, K, NI, corr, sq, nblk, dof}; ct__rrun(O * nblk, ct__par, ct__var_##S##_b1, &q1_); \
    }
CT__VAR_DEF(f32, float)
CT__VAR_DEF(f64, double)
static int ct__k_var(ct__call *c) {
    ct_tensor *x = c->in[0];
    uint32_t mask;
    ct__outinfo tmp;
    ct_dtype dt = c->cdt;
    int rc = 0, sq = c->op == CT__OP_STD || c->op == CT__OP_STD_MEAN;
    if (ct__reduce_shape(ct__ops[c->op].name, x, c->a, &mask, &tmp)) return -1;
    ct__rl r;
    if (ct__rl_make(&r, x, mask, dt, CT__RL_ANYORDER)) return -1;
    ct_tensor *vb = ct__rl_obuf(c->out[0], dt), *mb = c->nout == 2 ? ct__rl_obuf(c->out[1], dt) : NULL;
    if (!vb || (c->nout == 2 && !mb)) rc = -1;
    else if (dt == CT_FLOAT32)
        ct__var_f32(CT__RL_P(&r, float), (float *)ct__ptr(vb), mb ? (float *)ct__ptr(mb) : NULL, r.O, r.K, r.NI, c->a->s[0], sq);
    else
        ct__var_f64(CT__RL_P(&r, double), (double *)ct__ptr(vb), mb ? (double *)ct__ptr(mb) : NULL, r.O, r.K, r.NI, c->a->s[0], sq);
    rc = vb ? ct__rl_odone(c->out[0], vb, rc) : -1;
    if (c->nout == 2) rc = mb ? ct__rl_odone(c->out[1], mb, rc) : -1;
    ct__decref(r.t);
    return rc;
}
static ct_tensor *ct__var_call(int op, const ct_tensor *x, int ndims, const int64_t *dims, double correction, int keepdim, ct_tensor **mean) {
    ct__attrs a;
    if (ct__rattrs(&a, ct__ops[op].name, ndims, dims, keepdim)) { if (mean) *mean = NULL; return NULL; }
    a.s[0] = correction;
    return ct__rcall(op, x, &a, mean);
}
CTENSOR_API ct_tensor *ct_var(const ct_tensor *x) { return ct__var_call(CT__OP_VAR, x, 0, NULL, 1.0, 0, NULL); }
CTENSOR_API ct_tensor *ct_std(const ct_tensor *x) { return ct__var_call(CT__OP_STD, x, 0, NULL, 1.0, 0, NULL); }
CTENSOR_API ct_tensor *ct_var_dims(const ct_tensor *x, int ndims, const int64_t *dims, double correction, int keepdim) {
    return ct__var_call(CT__OP_VAR, x, ndims, dims, correction, keepdim, NULL);
}
CTENSOR_API ct_tensor *ct_std_dims(const ct_tensor *x, int ndims, const int64_t *dims, double correction, int keepdim) {
    return ct__var_call(CT__OP_STD, x, ndims, dims, correction, keepdim, NULL);
}
CTENSOR_API ct_tensor *ct_var_mean(const ct_tensor *x, int ndims, const int64_t *dims, double correction, int keepdim, ct_tensor **mean) {
    return ct__var_call(CT__OP_VAR_MEAN, x, ndims, dims, correction, keepdim, mean);
}
CTENSOR_API ct_tensor *ct_std_mean(const ct_tensor *x, int ndims, const int64_t *dims, double correction, int keepdim, ct_tensor **mean) {
    return ct__var_call(CT__OP_STD_MEAN, x, ndims, dims, correction, keepdim, mean);
}

/* ---- max / min / amax / amin / argmax / argmin ---- */
static int ct__meta_minmax(ct__call *c) {
    ct_tensor *x = c->in[0];
    int op = c->op;
    const char *name = ct__ops[op].name;
    uint32_t mask;
    ct__outinfo *o = &c->oi[0];
    ct__attrs tmp;
    const ct__attrs *a = ct__rdims(op, c->a, &tmp);
    if (!CT__ISREAL(x->dtype)) return ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s'", name, CT__DTNAME(x->dtype));
    if (ct__reduce_shape(name, x, a, &mask, o)) return -1;
    int isarg = op == CT__OP_ARGMAX || op == CT__OP_ARGMIN;
    if (ct__shape_numel(x->ndim, x->shape) == 0) {
        if (a->nv == 0) {
            if (isarg) return ct__failed(CT_ERR_INDEX, "%s(): Expected reduction dim to be specified for input.numel() == 0.", name);
            return ct__failed(CT_ERR_ARG, "%s(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.", name);
        }
        for (int d = 0; d < x->ndim; d++)
            if (((mask >> d) & 1u) && x->shape[d] == 0)
                return ct__failed(CT_ERR_INDEX, "%s(): Expected reduction dim %d to have non-zero size.", name, d);
    }
    o->dtype = isarg ? CT_INT64 : x->dtype;
    c->nout = 1;
    if (op == CT__OP_MAX_DIM || op == CT__OP_MIN_DIM) {
        c->nout = 2;
        c->oi[1] = *o;
        c->oi[1].dtype = CT_INT64;
    }
    c->cdt = ct__rvdt(x->dtype);
    return 0;
}
/* values and first index of the max (min); a NaN wins and stays */
#define CT__MINMAX_DEF(S, T) \
typedef struct { const T * x; T * vout; int64_t * iout; int64_t O; int64_t K; int64_t NI; int ismax; int64_t nblk; } ct__minmax_##S##_c1; \
static void ct__minmax_##S##_b1(void *c_, int64_t lo_, int64_t hi_) { \
    const ct__minmax_##S##_c1 *q_ = (const ct__minmax_##S##_c1 *)c_; \
    const T * x = q_->x; (void)x; \
    T * vout = q_->vout; (void)vout; \
    int64_t * iout = q_->iout; (void)iout; \
    int64_t O = q_->O; (void)O; \
    int64_t K = q_->K; (void)K; \
    int64_t NI = q_->NI; (void)NI; \
    int ismax = q_->ismax; (void)ismax; \
    int64_t nblk = q_->nblk; (void)nblk; \
    for (int64_t t = (int64_t)lo_; t < hi_; t++) { \
            int64_t o = t / nblk, i0 = (t % nblk) * CT__RBLK; \
            int nb = (int)(NI - i0 < CT__RBLK ? NI - i0 : CT__RBLK); \
            T best[CT__RBLK]; \
            int64_t bi[CT__RBLK]; \
            const T *xp = x + o * K * NI + i0; \
            for (int b = 0; b < nb; b++) { best[b] = xp[b]; bi[b] = 0; } \
            for (int64_t k = 1; k < K; k++) { \
                xp += NI; \
                for (int b = 0; b < nb; b++) { \
                    T v = xp[b]; \
                    if (!CT__RNAN_##S(best[b]) && (CT__RNAN_##S(v) || (ismax ? v > best[b] : v < best[b]))) { \
                        best[b] = v; \
                        bi[b] = k; \
                    } \
                } \
            } \
            for (int b = 0; b < nb; b++) { \
                vout[o * NI + i0 + b] = best[b]; \
                if (iout) iout[o * NI + i0 + b] = bi[b]; \
            } \
        } \
} \
    static void ct__minmax_##S(const T *x, T *vout, int64_t *iout, int64_t O, int64_t K, int64_t NI, int ismax) { \
        int64_t nblk = (NI + CT__RBLK - 1) / CT__RBLK; \
        int ct__par = ct__rpar(O * K * NI) && O * nblk > 1; \
        (void)ct__par; \
        ct__minmax_##S##_c1 q1_ = {x, vout, iout, O, K, NI, ismax, nblk}; ct__rrun(O * nblk, ct__par, ct__minmax_##S##_b1, &q1_); \
    }
CT__MINMAX_DEF(f32, float)
CT__MINMAX_DEF(f64, double)
CT__MINMAX_DEF(i64, int64_t)
/* value-only max/min of float32/float64 (amax, amin, max(), min()): vectorized;
   a NaN lane stays NaN */
#define CT__EXT_COMBINE(m, v, OP) do { if ((m) == (m) && ((v) != (v) || (v) OP (m))) (m) = (v); } while (0)
#if CT__VEC
#define CT__EXT_VSTEP(VT, VI, SEL, a, v, OP) ((a) = SEL((VI)((v) OP (a)) | (VI)((v) != (v)), (v), (a)))
#define CT__EXT_HBODY(T, VT, VI, VL, SEL, OP) \
    if (n >= 2 * VL) { \
        VT a, v; \
        CT__VLD(a, x); \
        for (k = VL; k + VL <= n; k += VL) { CT__VLD(v, x + k); CT__EXT_VSTEP(VT, VI, SEL, a, v, OP); } \
        T l[VL]; \
        CT__VST(l, a); \
        m = l[0]; \
        for (int i = 1; i < VL; i++) CT__EXT_COMBINE(m, l[i], OP); \
    }
#define CT__EXT_VBODY(VT, VI, VL, SEL, OP) \
    for (; b + VL <= n; b += VL) { \
        VT a, v; \
        CT__VLD(a, acc + b); \
        CT__VLD(v, x + b); \
        CT__EXT_VSTEP(VT, VI, SEL, a, v, OP); \
        CT__VST(acc + b, a); \
    }
#else
#define CT__EXT_HBODY(T, VT, VI, VL, SEL, OP)
#define CT__EXT_VBODY(VT, VI, VL, SEL, OP)
#endif
#define CT__EXT_DEF(NAME, T, VT, VI, VL, SEL, OP) \
    static T ct__h##NAME(const T *x, int64_t n) { \
        T m = x[0]; \
        int64_t k = 1; \
        CT__EXT_HBODY(T, VT, VI, VL, SEL, OP) \
        for (; k < n; k++) CT__EXT_COMBINE(m, x[k], OP); \
        return m; \
    } \
    static void ct__v##NAME(T *CT_RESTRICT acc, const T *CT_RESTRICT x, int64_t n) { \
        int64_t b = 0; \
        CT__EXT_VBODY(VT, VI, VL, SEL, OP) \
        for (; b < n; b++) CT__EXT_COMBINE(acc[b], x[b], OP); \
    } \
typedef struct { const T * x; T * out; int64_t O; int64_t K; int64_t NI; T * part; int64_t chunk; const T * xr; } ct__f##NAME##_c1; \
static void ct__f##NAME##_b1(void *c_, int64_t lo_, int64_t hi_) { \
    const ct__f##NAME##_c1 *q_ = (const ct__f##NAME##_c1 *)c_; \
    const T * x = q_->x; (void)x; \
    T * out = q_->out; (void)out; \
    int64_t O = q_->O; (void)O; \
    int64_t K = q_->K; (void)K; \
    int64_t NI = q_->NI; (void)NI; \
    T * part = q_->part; (void)part; \
    int64_t chunk = q_->chunk; (void)chunk; \
    const T * xr = q_->xr; (void)xr; \
    for (int p = (int)lo_; p < hi_; p++) { \
                    int64_t b = (int64_t)p * chunk, e = b + chunk < K ? b + chunk : K; \
                    part[p] = ct__h##NAME(xr + (b < e ? b : 0), b < e ? e - b : 1); \
                } \
} \
typedef struct { const T * x; T * out; int64_t O; int64_t K; int64_t NI; } ct__f##NAME##_c2; \
static void ct__f##NAME##_b2(void *c_, int64_t lo_, int64_t hi_) { \
    const ct__f##NAME##_c2 *q_ = (const ct__f##NAME##_c2 *)c_; \
    const T * x = q_->x; (void)x; \
    T * out = q_->out; (void)out; \
    int64_t O = q_->O; (void)O; \
    int64_t K = q_->K; (void)K; \
    int64_t NI = q_->NI; (void)NI; \
    for (int64_t o = (int64_t)lo_; o < hi_; o++) out[o] = ct__h##NAME(x + o * K, K); \
} \
typedef struct { const T * x; T * out; int64_t O; int64_t K; int64_t NI; int64_t W; int64_t nstrip; } ct__f##NAME##_c3; \
static void ct__f##NAME##_b3(void *c_, int64_t lo_, int64_t hi_) { \
    const ct__f##NAME##_c3 *q_ = (const ct__f##NAME##_c3 *)c_; \
    const T * x = q_->x; (void)x; \
    T * out = q_->out; (void)out; \
    int64_t O = q_->O; (void)O; \
    int64_t K = q_->K; (void)K; \
    int64_t NI = q_->NI; (void)NI; \
    int64_t W = q_->W; (void)W; \
    int64_t nstrip = q_->nstrip; (void)nstrip; \
    for (int64_t t = (int64_t)lo_; t < hi_; t++) { \
            int64_t o = t / nstrip, i0 = (t % nstrip) * W, w = NI - i0 < W ? NI - i0 : W; \
            const T *xp = x + o * K * NI + i0; \
            T *acc = out + o * NI + i0; \
            memcpy(acc, xp, sizeof(T) * (size_t)w); \
            for (int64_t k = 1; k < K; k++) ct__v##NAME(acc, xp + k * NI, w); \
        } \
} \
    static void ct__f##NAME(const T *x, T *out, int64_t O, int64_t K, int64_t NI) { \
        int nt = ct__rthreads(); \
        if (NI == 1 && O < nt && ct__rpar(K)) { \
            for (int64_t o = 0; o < O; o++) { \
                T part[256]; \
                int np = nt < 256 ? nt : 256; \
                int64_t chunk = (K + np - 1) / np; \
                const T *xr = x + o * K; \
                int ct__par = 1; \
                (void)ct__par; \
                ct__f##NAME##_c1 q1_ = {x, out, O, K, NI, part, chunk, xr}; ct__rrun(np, ct__par, ct__f##NAME##_b1, &q1_); \
                T m = part[0]; \
                for (int p = 1; p < np; p++) CT__EXT_COMBINE(m, part[p], OP); \
                out[o] = m; \
            } \
            return; \
        } \
        if (NI == 1) { \
            int ct__par = ct__rpar(O * K) && O > 1; \
            (void)ct__par; \
            ct__f##NAME##_c2 q2_ = {x, out, O, K, NI}; ct__rrun(O, ct__par, ct__f##NAME##_b2, &q2_); \
            return; \
        } \
        int64_t W = NI < CT__VSUM_STRIP ? NI : CT__VSUM_STRIP, nstrip = (NI + W - 1) / W; \
        int ct__par = ct__rpar(O * K * NI) && O * nstrip > 1; \
        (void)ct__par; \
        ct__f##NAME##_c3 q3_ = {x, out, O, K, NI, W, nstrip}; ct__rrun(O * nstrip, ct__par, ct__f##NAME##_b3, &q3_); \
    }
CT__EXT_DEF(max_f32, float, ct__v16f, ct__v16i, 16, CT__VSELF, >)
CT__EXT_DEF(min_f32, float, ct__v16f, ct__v16i, 16, CT__VSELF, <)
CT__EXT_DEF(max_f64, double, ct__v8d, ct__v8l, 8, CT__VSELD, >)
CT__EXT_DEF(min_f64, double, ct__v8d, ct__v8l, 8, CT__VSELD, <)
static int ct__k_minmax(ct__call *c) {
    ct_tensor *x = c->in[0];
    int op = c->op, rc = 0;
    uint32_t mask;
    ct__outinfo tmp;
    ct__attrs da;
    if (ct__reduce_shape(ct__ops[op].name, x, ct__rdims(op, c->a, &da), &mask, &tmp)) return -1;
    int ismax = op == CT__OP_AMAX || op == CT__OP_MAX || op == CT__OP_MAX_DIM || op == CT__OP_ARGMAX;
    int isarg = op == CT__OP_ARGMAX || op == CT__OP_ARGMIN, withidx = isarg || op == CT__OP_MAX_DIM || op == CT__OP_MIN_DIM;
    ct_dtype dt = c->cdt;
    ct__rl r;
    if (ct__rl_make(&r, x, mask, dt, withidx ? 0 : CT__RL_ANYORDER)) return -1;
    ct_tensor *vout = isarg ? ct__alloc(dt, tmp.ndim, tmp.shape, NULL, x->device) : ct__rl_obuf(c->out[0], dt);
    int64_t *ip = withidx ? (int64_t *)ct__ptr(c->out[isarg ? 0 : 1]) : NULL;
    if (!vout) { ct__decref(r.t); return -1; }
    void *vp = ct__ptr(vout);
    if (!withidx && r.K > 0 && dt == CT_FLOAT32) (ismax ? ct__fmax_f32 : ct__fmin_f32)(CT__RL_P(&r, float), (float *)vp, r.O, r.K, r.NI);
    else if (!withidx && r.K > 0 && dt == CT_FLOAT64) (ismax ? ct__fmax_f64 : ct__fmin_f64)(CT__RL_P(&r, double), (double *)vp, r.O, r.K, r.NI);
    else if (dt == CT_FLOAT32) ct__minmax_f32(CT__RL_P(&r, float), (float *)vp, ip, r.O, r.K, r.NI, ismax);
    else if (dt == CT_FLOAT64) ct__minmax_f64(CT__RL_P(&r, double), (double *)vp, ip, r.O, r.K, r.NI, ismax);
    else ct__minmax_i64(CT__RL_P(&r, int64_t), (int64_t *)vp, ip, r.O, r.K, r.NI, ismax);
    if (isarg) ct__decref(vout);
    else rc = ct__rl_odone(c->out[0], vout, rc);
    ct__decref(r.t);
    return rc;
}
static ct_tensor *ct__minmax_call(int op, const ct_tensor *x, int ndims, const int64_t *dims, int keepdim) {
    ct__attrs a;
    if (ct__rattrs(&a, ct__ops[op].name, ndims, dims, keepdim)) return NULL;
    return ct__rcall(op, x, &a, NULL);
}
CTENSOR_API ct_tensor *ct_max(const ct_tensor *x) { return ct__minmax_call(CT__OP_MAX, x, 0, NULL, 0); }
CTENSOR_API ct_tensor *ct_min(const ct_tensor *x) { return ct__minmax_call(CT__OP_MIN, x, 0, NULL, 0); }
CTENSOR_API ct_tensor *ct_amax(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim) { return ct__minmax_call(CT__OP_AMAX, x, ndims, dims, keepdim); }
CTENSOR_API ct_tensor *ct_amin(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim) { return ct__minmax_call(CT__OP_AMIN, x, ndims, dims, keepdim); }
CTENSOR_API ct_tensor *ct_argmax(const ct_tensor *x) { return ct__minmax_call(CT__OP_ARGMAX, x, 0, NULL, 0); }
CTENSOR_API ct_tensor *ct_argmin(const ct_tensor *x) { return ct__minmax_call(CT__OP_ARGMIN, x, 0, NULL, 0); }
CTENSOR_API ct_tensor *ct_argmax_dim(const ct_tensor *x, int dim, int keepdim) {
    ct__attrs a = ct__rattrs_dim(dim, keepdim);
    return ct__rcall(CT__OP_ARGMAX, x, &a, NULL);
}
CTENSOR_API ct_tensor *ct_argmin_dim(const ct_tensor *x, int dim, int keepdim) {
    ct__attrs a = ct__rattrs_dim(dim, keepdim);
    return ct__rcall(CT__OP_ARGMIN, x, &a, NULL);
}
CTENSOR_API ct_tensor *ct_max_dim(const ct_tensor *x, int dim, int keepdim, ct_tensor **indices) {
    ct__attrs a = ct__rattrs_dim(dim, keepdim);
    return ct__rcall(CT__OP_MAX_DIM, x, &a, indices);
}
CTENSOR_API ct_tensor *ct_min_dim(const ct_tensor *x, int dim, int keepdim, ct_tensor **indices) {
    ct__attrs a = ct__rattrs_dim(dim, keepdim);
    return ct__rcall(CT__OP_MIN_DIM, x, &a, indices);
}

/* ---- logsumexp: max + log(sum(exp(x - max))), the max taken as 0 when infinite ---- */
static int ct__meta_lse(ct__call *c) {
    ct_tensor *x = c->in[0];
    uint32_t mask;
    if (!CT__ISREAL(x->dtype)) return ct__failed(CT_ERR_DTYPE, "logsumexp: not implemented for '%s'", CT__DTNAME(x->dtype));
    if (ct__reduce_shape("logsumexp", x, c->a, &mask, &c->oi[0])) return -1;
    c->oi[0].dtype = CT__ISFLOAT(x->dtype) ? x->dtype : ct__default_dtype;
    c->cdt = c->oi[0].dtype == CT_FLOAT64 ? CT_FLOAT64 : CT_FLOAT32;
    c->nout = 1;
    return 0;
}
#define CT__LSE_DEF(S, T) \
typedef struct { const T * x; T * out; int64_t O; int64_t K; int64_t NI; int64_t nblk; } ct__lse_##S##_c1; \
static void ct__lse_##S##_b1(void *c_, int64_t lo_, int64_t hi_) { \
    const ct__lse_##S##_c1 *q_ = (const ct__lse_##S##_c1 *)c_; \
    const T * x = q_->x; (void)x; \
    T * out = q_->out; (void)out; \
    int64_t O = q_->O; (void)O; \
    int64_t K = q_->K; (void)K; \
    int64_t NI = q_->NI; (void)NI; \
    int64_t nblk = q_->nblk; (void)nblk; \
    for (int64_t t = (int64_t)lo_; t < hi_; t++) { \
            int64_t o = t / nblk, i0 = (t % nblk) * CT__RBLK; \
            int nb = (int)(NI - i0 < CT__RBLK ? NI - i0 : CT__RBLK); \
            double m[CT__RBLK], s[CT__RBLK]; \
            const T *xp = x + o * K * NI + i0; \
            for (int b = 0; b < nb; b++) { m[b] = -INFINITY; s[b] = 0.0; } \
            for (int64_t k = 0; k < K; k++) \
                for (int b = 0; b < nb; b++) { \
                    double v = (double)xp[k * NI + b]; \
                    if (m[b] == m[b] && (v != v || v > m[b])) m[b] = v; \
                } \
            for (int b = 0; b < nb; b++) if (isinf(m[b])) m[b] = 0.0; \
            for (int64_t k = 0; k < K; k++) \
                for (int b = 0; b < nb; b++) s[b] += exp((double)xp[k * NI + b] - m[b]); \
            for (int b = 0; b < nb; b++) out[o * NI + i0 + b] = (T)(log(s[b]) + m[b]); \
        } \
} \
    static void ct__lse_##S(const T *x, T *out, int64_t O, int64_t K, int64_t NI) { \
        int64_t nblk = (NI + CT__RBLK - 1) / CT__RBLK; \
        int ct__par = ct__rpar(O * K * NI) && O * nblk > 1; \
        (void)ct__par; \
        ct__lse_##S##_c1 q1_ = {x, out, O, K, NI, nblk}; ct__rrun(O * nblk, ct__par, ct__lse_##S##_b1, &q1_); \
    }
CT__LSE_DEF(f32, float)
CT__LSE_DEF(f64, double)
static int ct__k_lse(ct__call *c) {
    ct_tensor *x = c->in[0];
    uint32_t mask;
    ct__outinfo tmp;
    ct_dtype dt = c->cdt;
    if (ct__reduce_shape("logsumexp", x, c->a, &mask, &tmp)) return -1;
    ct__rl r;
    if (ct__rl_make(&r, x, mask, dt, CT__RL_ANYORDER)) return -1;
    ct_tensor *b = ct__rl_obuf(c->out[0], dt);
    if (b) {
        if (dt == CT_FLOAT32) ct__lse_f32(CT__RL_P(&r, float), (float *)ct__ptr(b), r.O, r.K, r.NI);
        else ct__lse_f64(CT__RL_P(&r, double), (double *)ct__ptr(b), r.O, r.K, r.NI);
    }
    int rc = ct__rl_odone(c->out[0], b, 0);
    ct__decref(r.t);
    return rc;
}
CTENSOR_API ct_tensor *ct_logsumexp(const ct_tensor *x, int ndims, const int64_t *dims, int keepdim) {
    ct__attrs a;
    if (ct__rattrs(&a, "logsumexp", ndims, dims, keepdim)) return NULL;
    return ct__rcall(CT__OP_LOGSUMEXP, x, &a, NULL);
}

/* ---- all / any / count_nonzero: the input read as truth values ---- */
static int ct__meta_logic(ct__call *c) {
    ct_tensor *x = c->in[0];
    const char *name = ct__ops[c->op].name;
    uint32_t mask;
    ct__attrs tmp;
    if (!CT__ISREAL(x->dtype)) return ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s'", name, CT__DTNAME(x->dtype));
    if (ct__reduce_shape(name, x, ct__rdims(c->op, c->a, &tmp), &mask, &c->oi[0])) return -1;
    if (c->op == CT__OP_COUNT_NONZERO) c->oi[0].dtype = CT_INT64;
    else c->oi[0].dtype = x->dtype == CT_UINT8 ? CT_UINT8 : CT_BOOL;  /* PyTorch keeps uint8 */
    c->nout = 1;
    c->cdt = CT_BOOL;
    return 0;
}
typedef struct { const uint8_t * p; int64_t O; int64_t K; int64_t NI; int64_t nblk; char * out; int op; } ct__k_logic_c1;
static void ct__k_logic_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__k_logic_c1 *q_ = (const ct__k_logic_c1 *)c_;
    const uint8_t * p = q_->p; (void)p;
    int64_t O = q_->O; (void)O;
    int64_t K = q_->K; (void)K;
    int64_t NI = q_->NI; (void)NI;
    int64_t nblk = q_->nblk; (void)nblk;
    char * out = q_->out; (void)out;
    int op = q_->op; (void)op;
    for (int64_t t = (int64_t)lo_; t < hi_; t++) {
        int64_t o = t / nblk, i0 = (t % nblk) * CT__RBLK;
        int nb = (int)(NI - i0 < CT__RBLK ? NI - i0 : CT__RBLK);
        int64_t n[CT__RBLK];
        const uint8_t *xp = p + o * K * NI + i0;
        for (int b = 0; b < nb; b++) n[b] = 0;
        for (int64_t k = 0; k < K; k++, xp += NI)
            for (int b = 0; b < nb; b++) n[b] += xp[b] != 0;
        for (int b = 0; b < nb; b++) {
            int64_t q = o * NI + i0 + b;
            if (op == CT__OP_COUNT_NONZERO) ((int64_t *)out)[q] = n[b];
            else ((uint8_t *)out)[q] = (uint8_t)(op == CT__OP_ALL ? n[b] == K : n[b] > 0);
        }
    }
}
static int ct__k_logic(ct__call *c) {
    ct_tensor *x = c->in[0];
    uint32_t mask;
    ct__outinfo tmp;
    int op = c->op;
    ct__attrs da;
    if (ct__reduce_shape(ct__ops[op].name, x, ct__rdims(op, c->a, &da), &mask, &tmp)) return -1;
    ct__rl r;
    if (ct__rl_make(&r, x, mask, CT_BOOL, CT__RL_ANYORDER)) return -1;
    const uint8_t *p = CT__RL_P(&r, uint8_t);
    int64_t O = r.O, K = r.K, NI = r.NI, nblk = (NI + CT__RBLK - 1) / CT__RBLK;
    char *out = ct__ptr(c->out[0]);
    int ct__par = ct__rpar(O * K * NI) && O * nblk > 1;
    (void)ct__par;
    ct__k_logic_c1 q1_ = {p, O, K, NI, nblk, out, op}; ct__rrun(O * nblk, ct__par, ct__k_logic_b1, &q1_);
    ct__decref(r.t);
    return 0;
}
CTENSOR_API ct_tensor *ct_all(const ct_tensor *x) { return ct__minmax_call(CT__OP_ALL, x, 0, NULL, 0); }
CTENSOR_API ct_tensor *ct_any(const ct_tensor *x) { return ct__minmax_call(CT__OP_ANY, x, 0, NULL, 0); }
CTENSOR_API ct_tensor *ct_all_dim(const ct_tensor *x, int dim, int keepdim) {
    ct__attrs a = ct__rattrs_dim(dim, keepdim);
    return ct__rcall(CT__OP_ALL, x, &a, NULL);
}
CTENSOR_API ct_tensor *ct_any_dim(const ct_tensor *x, int dim, int keepdim) {
    ct__attrs a = ct__rattrs_dim(dim, keepdim);
    return ct__rcall(CT__OP_ANY, x, &a, NULL);
}
CTENSOR_API ct_tensor *ct_count_nonzero(const ct_tensor *x, int ndims, const int64_t *dims) {
    return ct__minmax_call(CT__OP_COUNT_NONZERO, x, ndims, dims, 0);
}

/* ---- norm: PyTorch's (legacy) torch.norm of vectors; the norm of nothing is 0 ---- */
static int ct__meta_norm(ct__call *c) {
    ct_tensor *x = c->in[0];
    uint32_t mask;
    if (!CT__ISFLOAT(x->dtype))
        return ct__failed(CT_ERR_DTYPE, "norm(): input dtype should be either floating point or complex. Got %s instead.", CT__DTNAME(x->dtype));
    if (ct__reduce_shape("norm", x, c->a, &mask, &c->oi[0])) return -1;
    c->oi[0].dtype = x->dtype;
    c->cdt = x->dtype == CT_FLOAT64 ? CT_FLOAT64 : CT_FLOAT32;
    c->nout = 1;
    return 0;
}
#define CT__NORM_DEF(S, T) \
typedef struct { const T * x; T * out; int64_t O; int64_t K; int64_t NI; double p; int64_t nblk; int mode; } ct__norm_##S##_c1; \
static void ct__norm_##S##_b1(void *c_, int64_t lo_, int64_t hi_) { \
    const ct__norm_##S##_c1 *q_ = (const ct__norm_##S##_c1 *)c_; \
    const T * x = q_->x; (void)x; \
    T * out = q_->out; (void)out; \
    int64_t O = q_->O; (void)O; \
    int64_t K = q_->K; (void)K; \
    int64_t NI = q_->NI; (void)NI; \
    double p = q_->p; (void)p; \
    int64_t nblk = q_->nblk; (void)nblk; \
    int mode = q_->mode; (void)mode; \
    for (int64_t t = (int64_t)lo_; t < hi_; t++) { \
            int64_t o = t / nblk, i0 = (t % nblk) * CT__RBLK; \
            int nb = (int)(NI - i0 < CT__RBLK ? NI - i0 : CT__RBLK); \
            double acc[CT__RBLK]; \
            const T *xp = x + o * K * NI + i0; \
            for (int b = 0; b < nb; b++) acc[b] = mode == 2 ? INFINITY : 0.0; \
            for (int64_t k = 0; k < K; k++) \
                for (int b = 0; b < nb; b++) { \
                    double v = (double)xp[k * NI + b], av = fabs(v); \
                    switch (mode) { \
                    case 0: acc[b] += v != 0; break; \
                    case 1: if (acc[b] == acc[b] && (av != av || av > acc[b])) acc[b] = av; break; \
                    case 2: if (acc[b] == acc[b] && (av != av || av < acc[b])) acc[b] = av; break; \
                    case 3: acc[b] += av; break; \
                    case 4: acc[b] += v * v; break; \
                    default: acc[b] += pow(av, p); break; \
                    } \
                } \
            for (int b = 0; b < nb; b++) { \
                double r = acc[b]; \
                if (K == 0) r = 0.0; \
                else if (mode == 4) r = sqrt(r); \
                else if (mode == 5) r = pow(r, 1.0 / p); \
                out[o * NI + i0 + b] = (T)r; \
            } \
        } \
} \
    static void ct__norm_##S(const T *x, T *out, int64_t O, int64_t K, int64_t NI, double p) { \
        int64_t nblk = (NI + CT__RBLK - 1) / CT__RBLK; \
        int mode = p == 0 ? 0 : p == INFINITY ? 1 : p == -INFINITY ? 2 : p == 1 ? 3 : p == 2 ? 4 : 5;\
        int ct__par = ct__rpar(O * K * NI) && O * nblk > 1; \
        (void)ct__par; \
        ct__norm_##S##_c1 q1_ = {x, out, O, K, NI, p, nblk, mode}; ct__rrun(O * nblk, ct__par, ct__norm_##S##_b1, &q1_); \
    }
CT__NORM_DEF(f32, float)
CT__NORM_DEF(f64, double)
static int ct__k_norm(ct__call *c) {
    ct_tensor *x = c->in[0];
    uint32_t mask;
    ct__outinfo tmp;
    ct_dtype dt = c->cdt;
    if (ct__reduce_shape("norm", x, c->a, &mask, &tmp)) return -1;
    ct__rl r;
    if (ct__rl_make(&r, x, mask, dt, CT__RL_ANYORDER)) return -1;
    ct_tensor *b = ct__rl_obuf(c->out[0], dt);
    if (b) {
        if (dt == CT_FLOAT32) ct__norm_f32(CT__RL_P(&r, float), (float *)ct__ptr(b), r.O, r.K, r.NI, c->a->s[0]);
        else ct__norm_f64(CT__RL_P(&r, double), (double *)ct__ptr(b), r.O, r.K, r.NI, c->a->s[0]);
    }
    int rc = ct__rl_odone(c->out[0], b, 0);
    ct__decref(r.t);
    return rc;
}
CTENSOR_API ct_tensor *ct_norm(const ct_tensor *x, double p, int ndims, const int64_t *dims, int keepdim) {
    ct__attrs a;
    if (ct__rattrs(&a, "norm", ndims, dims, keepdim)) return NULL;
    if (p != p) return ct__fail(CT_ERR_ARG, "norm: p must not be NaN");
    a.s[0] = p;
    return ct__rcall(CT__OP_NORM, x, &a, NULL);
}
/* ---- softmax / log_softmax (PyTorch: aten/src/ATen/native/cpu/SoftMaxKernel.cpp) ----
   Rows along the last dim run max, exp-and-sum and scale as three streaming
   passes over the row; other dims run the same passes over strips of columns.
   float32 uses a vectorized exp (Cephes expf: reduction by ln 2, a degree-6
   polynomial, 2^n applied as two factors so that denormal results are right). */
static float ct__expf_c(float x) {
    if (x != x) return x;
    if (x < -104.0f) x = -104.0f;
    if (x > 89.0f) x = 89.0f;
    float t = x * 1.44269504088896341f + 12582912.0f, n = t - 12582912.0f;
    uint32_t tb;
    memcpy(&tb, &t, 4);
    int32_t ni = (int32_t)(tb - 0x4B400000u), h = (ni - (ni & 1)) / 2;
    float r = x - n * 0.693359375f;
    r = r + n * 2.12194440e-4f;
    float p = 1.9875691500E-4f * r + 1.3981999507E-3f;
    p = p * r + 8.3334519073E-3f;
    p = p * r + 4.1665795894E-2f;
    p = p * r + 1.6666665459E-1f;
    p = p * r + 5.0000001201E-1f;
    p = p * (r * r) + r + 1.0f;
    uint32_t b1 = (uint32_t)(h + 127) << 23, b2 = (uint32_t)(ni - h + 127) << 23;
    float s1, s2;
    memcpy(&s1, &b1, 4);
    memcpy(&s2, &b2, 4);
    return (p * s1) * s2;
}
#if CT__VEC
typedef uint32_t ct__v16u __attribute__((vector_size(64)));
#define CT__VEXP16(y, x0) \
    do { \
        ct__v16f x_ = (x0), z_, t_, n_, r_, p_, s1_, s2_; \
        memset(&z_, 0, sizeof z_); \
        x_ = CT__VSELF((ct__v16i)(x_ < -104.0f), z_ - 104.0f, x_); \
        x_ = CT__VSELF((ct__v16i)(x_ > 89.0f), z_ + 89.0f, x_); \
        t_ = x_ * 1.44269504088896341f + 12582912.0f; \
        n_ = t_ - 12582912.0f; \
        ct__v16i ni_ = (ct__v16i)((ct__v16u)t_ - 0x4B400000u), h_ = ni_ >> 1; \
        r_ = x_ - n_ * 0.693359375f; \
        r_ = r_ + n_ * 2.12194440e-4f; \
        p_ = r_ * 1.9875691500E-4f + 1.3981999507E-3f; \
        p_ = p_ * r_ + 8.3334519073E-3f; \
        p_ = p_ * r_ + 4.1665795894E-2f; \
        p_ = p_ * r_ + 1.6666665459E-1f; \
        p_ = p_ * r_ + 5.0000001201E-1f; \
        p_ = p_ * (r_ * r_) + r_ + 1.0f; \
        s1_ = (ct__v16f)(((ct__v16u)h_ + 127u) << 23); \
        s2_ = (ct__v16f)(((ct__v16u)(ni_ - h_) + 127u) << 23); \
        (y) = (p_ * s1_) * s2_; \
    } while (0)
#endif
/* max of a row, NaN if the row holds one */
static float ct__rowmax_f32(const float *x, int64_t n) {
    float m = -INFINITY;
    int64_t k = 0;
#if CT__VEC
    if (n >= 16) {
        ct__v16f a, v;
        CT__VLD(a, x);
        for (k = 16; k + 16 <= n; k += 16) {
            CT__VLD(v, x + k);
            a = CT__VSELF((ct__v16i)(v > a) | (ct__v16i)(v != v), v, a);
        }
        float l[16];
        CT__VST(l, a);
        for (int i = 0; i < 16; i++)
            if (m == m && (l[i] != l[i] || l[i] > m)) m = l[i];
    }
#endif
    for (; k < n; k++)
        if (m == m && (x[k] != x[k] || x[k] > m)) m = x[k];
    return m;
}
/* y = exp(x - m) (y may be NULL); returns the sum */
static double ct__expsum_f32(float *y, const float *x, float m, int64_t n) {
    double total = 0.0;
    int64_t k = 0;
#if CT__VEC
    while (k + 16 <= n) {
        int64_t e = k + CT__HSUM_BLOCK < n ? k + CT__HSUM_BLOCK : n;
        ct__v16f acc, v, ev;
        memset(&acc, 0, sizeof acc);
        for (; k + 16 <= e; k += 16) {
            CT__VLD(v, x + k);
            CT__VEXP16(ev, v - m);
            if (y) CT__VST(y + k, ev);
            acc += ev;
        }
        float l[16];
        CT__VST(l, acc);
        for (int w = 8; w >= 1; w /= 2)
            for (int i = 0; i < w; i++) l[i] += l[i + w];
        total += (double)l[0];
    }
#endif
    float t = 0.0f;
    for (; k < n; k++) {
        float e = ct__expf_c(x[k] - m);
        if (y) y[k] = e;
        t += e;
    }
    return total + (double)t;
}
static void ct__scale_f32(float *y, float s, int64_t n) {
    int64_t k = 0;
#if CT__VEC
    for (; k + 16 <= n; k += 16) {
        ct__v16f v;
        CT__VLD(v, y + k);
        v *= s;
        CT__VST(y + k, v);
    }
#endif
    for (; k < n; k++) y[k] *= s;
}
static void ct__sub_f32(float *y, const float *x, float s, int64_t n) {
    int64_t k = 0;
#if CT__VEC
    for (; k + 16 <= n; k += 16) {
        ct__v16f v;
        CT__VLD(v, x + k);
        v -= s;
        CT__VST(y + k, v);
    }
#endif
    for (; k < n; k++) y[k] = x[k] - s;
}
typedef struct { const float * x; float * y; int64_t O; int64_t K; int logsm; } ct__softmax_rows_f32_c1;
static void ct__softmax_rows_f32_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__softmax_rows_f32_c1 *q_ = (const ct__softmax_rows_f32_c1 *)c_;
    const float * x = q_->x; (void)x;
    float * y = q_->y; (void)y;
    int64_t O = q_->O; (void)O;
    int64_t K = q_->K; (void)K;
    int logsm = q_->logsm; (void)logsm;
    for (int64_t o = (int64_t)lo_; o < hi_; o++) {
        const float *xr = x + o * K;
        float *yr = y + o * K;
        float m = ct__rowmax_f32(xr, K);
        if (logsm) {
            double s = ct__expsum_f32(NULL, xr, m, K);
            ct__sub_f32(yr, xr, m + (float)log(s), K);
        } else {
            double s = ct__expsum_f32(yr, xr, m, K);
            ct__scale_f32(yr, (float)(1.0 / s), K);
        }
    }
}
static void ct__softmax_rows_f32(const float *x, float *y, int64_t O, int64_t K, int logsm) {
    int ct__par = ct__rpar(O * K) && O > 1;
    (void)ct__par;
    ct__softmax_rows_f32_c1 q1_ = {x, y, O, K, logsm}; ct__rrun(O, ct__par, ct__softmax_rows_f32_b1, &q1_);
}
/* strips of columns: dim not last (x as [O][K][NI]) */
#define CT__SMX_STRIP 256
typedef struct { const float * x; float * y; int64_t O; int64_t K; int64_t NI; int logsm; int64_t W; int64_t nstrip; } ct__softmax_cols_f32_c1;
static void ct__softmax_cols_f32_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__softmax_cols_f32_c1 *q_ = (const ct__softmax_cols_f32_c1 *)c_;
    const float * x = q_->x; (void)x;
    float * y = q_->y; (void)y;
    int64_t O = q_->O; (void)O;
    int64_t K = q_->K; (void)K;
    int64_t NI = q_->NI; (void)NI;
    int logsm = q_->logsm; (void)logsm;
    int64_t W = q_->W; (void)W;
    int64_t nstrip = q_->nstrip; (void)nstrip;
    for (int64_t t = (int64_t)lo_; t < hi_; t++) {
        int64_t o = t / nstrip, i0 = (t % nstrip) * W;
        int64_t w = NI - i0 < W ? NI - i0 : W, b;
        float m[CT__SMX_STRIP], s[CT__SMX_STRIP];
        const float *xp = x + o * K * NI + i0;
        float *yp = y + o * K * NI + i0;
        for (b = 0; b < w; b++) { m[b] = -INFINITY; s[b] = 0.0f; }
        for (int64_t k = 0; k < K; k++)
            for (b = 0; b < w; b++) {
                float v = xp[k * NI + b];
                if (m[b] == m[b] && (v != v || v > m[b])) m[b] = v;
            }
        for (int64_t k = 0; k < K; k++) {
            const float *xr = xp + k * NI;
            float *yr = yp + k * NI;
            b = 0;
#if CT__VEC
            for (; b + 16 <= w; b += 16) {
                ct__v16f v, mv, ev, sv;
                CT__VLD(v, xr + b);
                CT__VLD(mv, m + b);
                CT__VLD(sv, s + b);
                CT__VEXP16(ev, v - mv);
                sv += ev;
                CT__VST(s + b, sv);
                if (!logsm) CT__VST(yr + b, ev);
            }
#endif
            for (; b < w; b++) {
                float e = ct__expf_c(xr[b] - m[b]);
                s[b] += e;
                if (!logsm) yr[b] = e;
            }
        }
        for (b = 0; b < w; b++) s[b] = logsm ? m[b] + logf(s[b]) : 1.0f / s[b];
        for (int64_t k = 0; k < K; k++)
            for (b = 0; b < w; b++) yp[k * NI + b] = logsm ? xp[k * NI + b] - s[b] : yp[k * NI + b] * s[b];
    }
}
static void ct__softmax_cols_f32(const float *x, float *y, int64_t O, int64_t K, int64_t NI, int logsm) {
    int64_t W = CT__SMX_STRIP, nt = ct__rthreads();
    if (O < nt && ct__rpar(O * K * NI)) {  /* narrower strips, so that every thread has one */
        int64_t per = ((NI + nt - 1) / nt + 15) & ~(int64_t)15;
        if (per < W) W = per;
    }
    int64_t nstrip = (NI + W - 1) / W;
    int ct__par = ct__rpar(O * K * NI) && O * nstrip > 1;
    (void)ct__par;
    ct__softmax_cols_f32_c1 q1_ = {x, y, O, K, NI, logsm, W, nstrip}; ct__rrun(O * nstrip, ct__par, ct__softmax_cols_f32_b1, &q1_);
}
/* float64: the same passes, columns in blocks of 16 */
typedef struct { const double * x; double * y; int64_t O; int64_t K; int64_t NI; int logsm; int64_t nblk; } ct__softmax_f64_c1;
static void ct__softmax_f64_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__softmax_f64_c1 *q_ = (const ct__softmax_f64_c1 *)c_;
    const double * x = q_->x; (void)x;
    double * y = q_->y; (void)y;
    int64_t O = q_->O; (void)O;
    int64_t K = q_->K; (void)K;
    int64_t NI = q_->NI; (void)NI;
    int logsm = q_->logsm; (void)logsm;
    int64_t nblk = q_->nblk; (void)nblk;
    for (int64_t t = (int64_t)lo_; t < hi_; t++) {
        int64_t o = t / nblk, i0 = (t % nblk) * CT__RBLK;
        int nb = (int)(NI - i0 < CT__RBLK ? NI - i0 : CT__RBLK), b;
        double m[CT__RBLK], s[CT__RBLK];
        const double *xp = x + o * K * NI + i0;
        double *yp = y + o * K * NI + i0;
        for (b = 0; b < nb; b++) { m[b] = -INFINITY; s[b] = 0.0; }
        for (int64_t k = 0; k < K; k++)
            for (b = 0; b < nb; b++) {
                double v = xp[k * NI + b];
                if (m[b] == m[b] && (v != v || v > m[b])) m[b] = v;
            }
        for (int64_t k = 0; k < K; k++)
            for (b = 0; b < nb; b++) {
                double e = exp(xp[k * NI + b] - m[b]);
                s[b] += e;
                if (!logsm) yp[k * NI + b] = e;
            }
        for (b = 0; b < nb; b++) s[b] = logsm ? m[b] + log(s[b]) : 1.0 / s[b];
        for (int64_t k = 0; k < K; k++)
            for (b = 0; b < nb; b++) yp[k * NI + b] = logsm ? xp[k * NI + b] - s[b] : yp[k * NI + b] * s[b];
    }
}
static void ct__softmax_f64(const double *x, double *y, int64_t O, int64_t K, int64_t NI, int logsm) {
    int64_t nblk = (NI + CT__RBLK - 1) / CT__RBLK;
    int ct__par = ct__rpar(O * K * NI) && O * nblk > 1;
    (void)ct__par;
    ct__softmax_f64_c1 q1_ = {x, y, O, K, NI, logsm, nblk}; ct__rrun(O * nblk, ct__par, ct__softmax_f64_b1, &q1_);
}
static int ct__meta_softmax(ct__call *c) {
    ct_tensor *x = c->in[0];
    const char *name = ct__ops[c->op].name;
    if (ct__dim(name, c->a->i[0], x->ndim) < 0) return -1;
    if (!CT__ISFLOAT(x->dtype)) return ct__failed(CT_ERR_DTYPE, "%s: \"softmax_kernel_impl\" not implemented for '%s'", name, CT__DTNAME(x->dtype));
    ct__out_new(c, x->dtype, x->ndim, x->shape);
    c->cdt = x->dtype == CT_FLOAT64 ? CT_FLOAT64 : CT_FLOAT32;
    return 0;
}
static uint32_t ct__rdim_mask(const ct_tensor *x, int64_t dim) { return x->ndim ? 1u << ct__wrap_dim((int)dim, x->ndim) : 0u; }
static int ct__k_softmax(ct__call *c) {
    ct_tensor *x = c->in[0];
    ct_dtype dt = c->cdt;
    int logsm = c->op == CT__OP_LOG_SOFTMAX;
    ct__rl r;
    if (ct__rl_make(&r, x, ct__rdim_mask(x, c->a->i[0]), dt, CT__RL_CONTIG)) return -1;
    ct_tensor *b = ct__rl_obuf(c->out[0], dt);
    if (b) {
        if (dt == CT_FLOAT64) ct__softmax_f64(CT__RL_P(&r, double), (double *)ct__ptr(b), r.O, r.K, r.NI, logsm);
        else if (r.NI == 1) ct__softmax_rows_f32(CT__RL_P(&r, float), (float *)ct__ptr(b), r.O, r.K, logsm);
        else ct__softmax_cols_f32(CT__RL_P(&r, float), (float *)ct__ptr(b), r.O, r.K, r.NI, logsm);
    }
    int rc = ct__rl_odone(c->out[0], b, 0);
    ct__decref(r.t);
    return rc;
}
static ct_tensor *ct__softmax_call(int op, const ct_tensor *x, int dim) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = dim;
    return ct__rcall(op, x, &a, NULL);
}
CTENSOR_API ct_tensor *ct_softmax(const ct_tensor *x, int dim) { return ct__softmax_call(CT__OP_SOFTMAX, x, dim); }
CTENSOR_API ct_tensor *ct_log_softmax(const ct_tensor *x, int dim) { return ct__softmax_call(CT__OP_LOG_SOFTMAX, x, dim); }
CTENSOR_API ct_tensor *ct_softmax_dtype(const ct_tensor *x, int dim, ct_dtype dtype) {
    return ct__softmax_call(CT__OP_SOFTMAX, x && x->dtype != dtype ? ct_to(x, dtype) : x, dim);
}
CTENSOR_API ct_tensor *ct_log_softmax_dtype(const ct_tensor *x, int dim, ct_dtype dtype) {
    return ct__softmax_call(CT__OP_LOG_SOFTMAX, x && x->dtype != dtype ? ct_to(x, dtype) : x, dim);
}

/* _softmax_backward_data(grad, output): output * (grad - sum(grad * output));
   _log_softmax_backward_data(grad, output): grad - exp(output) * sum(grad). */
static int ct__meta_softmax_bw(ct__call *c) {
    ct_tensor *g = c->in[0], *y = c->in[1];
    const char *name = ct__ops[c->op].name;
    if (!ct_same_shape(g, y)) return ct__failed(CT_ERR_SHAPE, "%s: grad_output %s and output %s must have the same shape", name, CT__SHAPE(g), CT__SHAPE(y));
    if (!CT__ISFLOAT(g->dtype) || !CT__ISFLOAT(y->dtype)) return ct__failed(CT_ERR_DTYPE, "%s: expected floating point tensors", name);
    if (ct__dim(name, c->a->i[0], y->ndim) < 0) return -1;
    ct__out_new(c, y->dtype, y->ndim, y->shape);
    c->cdt = y->dtype == CT_FLOAT64 ? CT_FLOAT64 : CT_FLOAT32;
    return 0;
}
#define CT__SMXBW_DEF(S, T) \
typedef struct { const T * g; const T * y; T * out; int64_t O; int64_t K; int64_t NI; int logsm; int64_t nblk; } ct__smxbw_##S##_c1; \
static void ct__smxbw_##S##_b1(void *c_, int64_t lo_, int64_t hi_) { \
    const ct__smxbw_##S##_c1 *q_ = (const ct__smxbw_##S##_c1 *)c_; \
    const T * g = q_->g; (void)g; \
    const T * y = q_->y; (void)y; \
    T * out = q_->out; (void)out; \
    int64_t O = q_->O; (void)O; \
    int64_t K = q_->K; (void)K; \
    int64_t NI = q_->NI; (void)NI; \
    int logsm = q_->logsm; (void)logsm; \
    int64_t nblk = q_->nblk; (void)nblk; \
    for (int64_t t = (int64_t)lo_; t < hi_; t++) { \
            int64_t o = t / nblk, i0 = (t % nblk) * CT__RBLK, base = o * K * NI + i0; \
            int nb = (int)(NI - i0 < CT__RBLK ? NI - i0 : CT__RBLK), b; \
            double s[CT__RBLK]; \
            for (b = 0; b < nb; b++) s[b] = 0.0; \
            for (int64_t k = 0; k < K; k++) \
                for (b = 0; b < nb; b++) { \
                    int64_t q = base + k * NI + b; \
                    s[b] += logsm ? (double)g[q] : (double)g[q] * (double)y[q]; \
                } \
            for (int64_t k = 0; k < K; k++) \
                for (b = 0; b < nb; b++) { \
                    int64_t q = base + k * NI + b; \
                    out[q] = logsm ? (T)((double)g[q] - exp((double)y[q]) * s[b]) : (T)((double)y[q] * ((double)g[q] - s[b])); \
                } \
        } \
} \
    static void ct__smxbw_##S(const T *g, const T *y, T *out, int64_t O, int64_t K, int64_t NI, int logsm) { \
        int64_t nblk = (NI + CT__RBLK - 1) / CT__RBLK; \
        int ct__par = ct__rpar(O * K * NI) && O * nblk > 1; \
        (void)ct__par; \
        ct__smxbw_##S##_c1 q1_ = {g, y, out, O, K, NI, logsm, nblk}; ct__rrun(O * nblk, ct__par, ct__smxbw_##S##_b1, &q1_); \
    }
CT__SMXBW_DEF(f32, float)
CT__SMXBW_DEF(f64, double)
static int ct__k_softmax_bw(ct__call *c) {
    ct_tensor *g = c->in[0], *y = c->in[1];
    ct_dtype dt = c->cdt;
    uint32_t mask = ct__rdim_mask(y, c->a->i[0]);
    int logsm = c->op == CT__OP_LOG_SOFTMAX_BACKWARD, rc = -1;
    ct__rl rg, ry;
    if (ct__rl_make(&rg, g, mask, dt, CT__RL_CONTIG)) return -1;
    if (ct__rl_make(&ry, y, mask, dt, CT__RL_CONTIG)) { ct__decref(rg.t); return -1; }
    ct_tensor *b = ct__rl_obuf(c->out[0], dt);
    if (b) {
        if (dt == CT_FLOAT32) ct__smxbw_f32(CT__RL_P(&rg, float), CT__RL_P(&ry, float), (float *)ct__ptr(b), ry.O, ry.K, ry.NI, logsm);
        else ct__smxbw_f64(CT__RL_P(&rg, double), CT__RL_P(&ry, double), (double *)ct__ptr(b), ry.O, ry.K, ry.NI, logsm);
        rc = 0;
    }
    rc = ct__rl_odone(c->out[0], b, rc);
    ct__decref(rg.t);
    ct__decref(ry.t);
    return rc;
}
static ct_tensor *ct__softmax_bw_call(int op, const ct_tensor *g, const ct_tensor *y, int64_t dim) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = dim;
    return ct__op2(op, g, y, &a);
}

/* ---- scans: cumsum, cumprod (double / int64 accumulation, as PyTorch's acc_type),
   cummax, cummin (PyTorch's rule: x >= running max takes over; a NaN always does) ---- */
static int ct__meta_scan(ct__call *c) {
    ct_tensor *x = c->in[0];
    int op = c->op;
    const char *name = ct__ops[op].name;
    if (!CT__ISREAL(x->dtype)) return ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s'", name, CT__DTNAME(x->dtype));
    if (ct__dim(name, c->a->i[0], x->ndim) < 0) return -1;
    ct__outinfo *o = &c->oi[0];
    o->kind = CT__OUT_NEW;
    o->has_strides = 0;
    o->ndim = x->ndim;
    for (int d = 0; d < x->ndim; d++) o->shape[d] = x->shape[d];
    c->nout = 1;
    if (op == CT__OP_CUMMAX || op == CT__OP_CUMMIN) {
        o->dtype = x->dtype;
        c->nout = 2;
        c->oi[1] = *o;
        c->oi[1].dtype = CT_INT64;
        c->cdt = ct__rvdt(x->dtype);
        return 0;
    }
    if (c->a->flags & CT__RF_DTYPE) {
        if (!CT__ISREAL(c->a->dtype)) return ct__failed(CT_ERR_DTYPE, "%s: invalid dtype", name);
        o->dtype = c->a->dtype;
    } else {
        o->dtype = CT__ISFLOAT(x->dtype) ? x->dtype : CT_INT64;
    }
    c->cdt = o->dtype == CT_FLOAT64 ? CT_FLOAT64 : CT__ISFLOAT(o->dtype) ? CT_FLOAT32 : CT_INT64;
    return 0;
}
#define CT__SCAN_DEF(S, T, A, OUTV) \
typedef struct { const T * x; T * y; int64_t * yi; int64_t O; int64_t K; int64_t NI; int kind; int rev; int64_t nblk; } ct__scan_##S##_c1; \
static void ct__scan_##S##_b1(void *c_, int64_t lo_, int64_t hi_) { \
    const ct__scan_##S##_c1 *q_ = (const ct__scan_##S##_c1 *)c_; \
    const T * x = q_->x; (void)x; \
    T * y = q_->y; (void)y; \
    int64_t * yi = q_->yi; (void)yi; \
    int64_t O = q_->O; (void)O; \
    int64_t K = q_->K; (void)K; \
    int64_t NI = q_->NI; (void)NI; \
    int kind = q_->kind; (void)kind; \
    int rev = q_->rev; (void)rev; \
    int64_t nblk = q_->nblk; (void)nblk; \
    for (int64_t t = (int64_t)lo_; t < hi_; t++) { \
            int64_t o = t / nblk, i0 = (t % nblk) * CT__RBLK, base = o * K * NI + i0; \
            int nb = (int)(NI - i0 < CT__RBLK ? NI - i0 : CT__RBLK), b; \
            A acc[CT__RBLK]; \
            T best[CT__RBLK]; \
            int64_t bi[CT__RBLK]; \
            for (b = 0; b < nb; b++) { acc[b] = (A)(kind == 1 ? 1 : 0); best[b] = 0; bi[b] = 0; } \
            for (int64_t kk = 0; kk < K; kk++) { \
                int64_t k = rev ? K - 1 - kk : kk; \
                const T *xp = x + base + k * NI; \
                T *yp = y + base + k * NI; \
                if (kind == 0) for (b = 0; b < nb; b++) { acc[b] += (A)xp[b]; yp[b] = OUTV(acc[b]); } \
                else if (kind == 1) for (b = 0; b < nb; b++) { acc[b] *= (A)xp[b]; yp[b] = OUTV(acc[b]); } \
                else { \
                    int64_t *ip = yi + base + k * NI; \
                    for (b = 0; b < nb; b++) { \
                        T v = xp[b]; \
                        if (kk == 0 || CT__RNAN_##S(v) || \
                            (!CT__RNAN_##S(best[b]) && (kind == 2 ? v >= best[b] : v <= best[b]))) { best[b] = v; bi[b] = k; } \
                        yp[b] = best[b]; \
                        ip[b] = bi[b]; \
                    } \
                } \
            } \
        } \
} \
    static void ct__scan_##S(const T *x, T *y, int64_t *yi, int64_t O, int64_t K, int64_t NI, int kind, int rev) { \
        int64_t nblk = (NI + CT__RBLK - 1) / CT__RBLK; \
        int ct__par = ct__rpar(O * K * NI) && O * nblk > 1; \
        (void)ct__par; \
        ct__scan_##S##_c1 q1_ = {x, y, yi, O, K, NI, kind, rev, nblk}; ct__rrun(O * nblk, ct__par, ct__scan_##S##_b1, &q1_); \
    }
#define CT__SCAN_OUTF(v) (v)
CT__SCAN_DEF(f32, float, double, (float)CT__SCAN_OUTF)
CT__SCAN_DEF(f64, double, double, CT__SCAN_OUTF)
CT__SCAN_DEF(i64, int64_t, uint64_t, CT__IW)
static int ct__k_scan(ct__call *c) {
    ct_tensor *x = c->in[0];
    int op = c->op, rc = 0;
    ct_dtype dt = c->cdt;
    int kind = op == CT__OP_CUMSUM ? 0 : op == CT__OP_CUMPROD ? 1 : op == CT__OP_CUMMAX ? 2 : 3;
    ct_tensor *xc = (ct_tensor *)x;
    int hasdt = kind < 2 && (c->a->flags & CT__RF_DTYPE);
    if (hasdt && x->dtype != c->a->dtype && c->a->dtype != dt && !(xc = ct__convert(x, c->a->dtype))) return -1;
    ct__rl r;
    rc = ct__rl_make(&r, xc, ct__rdim_mask(xc, c->a->i[0]), dt, CT__RL_CONTIG);
    if (xc != x) ct__decref(xc);
    if (rc) return -1;
    ct_tensor *b = ct__rl_obuf(c->out[0], dt);
    int64_t *ip = kind >= 2 ? (int64_t *)ct__ptr(c->out[1]) : NULL;
    int rev = kind == 0 && (c->a->flags & CT__RF_REVERSE) != 0;
    if (b) {
        if (dt == CT_FLOAT32) ct__scan_f32(CT__RL_P(&r, float), (float *)ct__ptr(b), ip, r.O, r.K, r.NI, kind, rev);
        else if (dt == CT_FLOAT64) ct__scan_f64(CT__RL_P(&r, double), (double *)ct__ptr(b), ip, r.O, r.K, r.NI, kind, rev);
        else ct__scan_i64(CT__RL_P(&r, int64_t), (int64_t *)ct__ptr(b), ip, r.O, r.K, r.NI, kind, rev);
    }
    rc = ct__rl_odone(c->out[0], b, 0);
    ct__decref(r.t);
    return rc;
}
static ct_tensor *ct__scan_call(int op, const ct_tensor *x, int64_t dim, int has_dtype, ct_dtype dtype, int reverse, ct_tensor **indices) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = dim;
    a.flags = (has_dtype ? CT__RF_DTYPE : 0) | (reverse ? CT__RF_REVERSE : 0);
    a.dtype = dtype;
    return ct__rcall(op, x, &a, indices);
}
CTENSOR_API ct_tensor *ct_cumsum(const ct_tensor *x, int dim) { return ct__scan_call(CT__OP_CUMSUM, x, dim, 0, CT_FLOAT32, 0, NULL); }
CTENSOR_API ct_tensor *ct_cumprod(const ct_tensor *x, int dim) { return ct__scan_call(CT__OP_CUMPROD, x, dim, 0, CT_FLOAT32, 0, NULL); }
CTENSOR_API ct_tensor *ct_cumsum_dtype(const ct_tensor *x, int dim, ct_dtype dtype) { return ct__scan_call(CT__OP_CUMSUM, x, dim, 1, dtype, 0, NULL); }
CTENSOR_API ct_tensor *ct_cumprod_dtype(const ct_tensor *x, int dim, ct_dtype dtype) { return ct__scan_call(CT__OP_CUMPROD, x, dim, 1, dtype, 0, NULL); }
CTENSOR_API ct_tensor *ct_cummax(const ct_tensor *x, int dim, ct_tensor **indices) { return ct__scan_call(CT__OP_CUMMAX, x, dim, 0, CT_FLOAT32, 0, indices); }
CTENSOR_API ct_tensor *ct_cummin(const ct_tensor *x, int dim, ct_tensor **indices) { return ct__scan_call(CT__OP_CUMMIN, x, dim, 0, CT_FLOAT32, 0, indices); }
/* ---- sort, topk, kthvalue, median, mode: rows of the input with dim moved last ----
   Elements are ordered by value (NaN the largest), equal values by index, which
   makes every result deterministic: sort is stable; topk, kthvalue and median
   pick the lower index first among equal values; median along a dim gives the
   first NaN when the row holds one; mode gives the smallest most frequent value
   and its last index. Sorts are merge sorts of index arrays (insertion-sorted
   runs of 16); kthvalue, median and topk select in O(n) first (introselect). */
#define CT__SORT_DEF(S, T) \
    CT__INLINE int ct__before_##S(T a, T b, int desc) { \
        return desc ? ((CT__RNAN_##S(a) && !CT__RNAN_##S(b)) || a > b) \
                    : ((!CT__RNAN_##S(a) && CT__RNAN_##S(b)) || a < b); \
    } \
    CT__INLINE int ct__tbefore_##S(const T *v, int64_t a, int64_t b, int desc) { \
        return ct__before_##S(v[a], v[b], desc) || (!ct__before_##S(v[b], v[a], desc) && a < b); \
    } \
    static void ct__isort_##S(const T *v, int64_t *idx, int64_t *tmp, int64_t n, int desc) { \
        for (int64_t s = 0; s < n; s += 16) { \
            int64_t e = s + 16 < n ? s + 16 : n; \
            for (int64_t i = s + 1; i < e; i++) { \
                int64_t cur = idx[i], j = i - 1; \
                while (j >= s && ct__tbefore_##S(v, cur, idx[j], desc)) { idx[j + 1] = idx[j]; j--; } \
                idx[j + 1] = cur; \
            } \
        } \
        int64_t *src = idx, *dst = tmp; \
        for (int64_t w = 16; w < n; w *= 2) { \
            for (int64_t s = 0; s < n; s += 2 * w) { \
                int64_t m = s + w < n ? s + w : n, e = s + 2 * w < n ? s + 2 * w : n, i = s, j = m, k = s; \
                while (i < m && j < e) dst[k++] = ct__tbefore_##S(v, src[j], src[i], desc) ? src[j++] : src[i++]; \
                while (i < m) dst[k++] = src[i++]; \
                while (j < e) dst[k++] = src[j++]; \
            } \
            int64_t *sw = src; src = dst; dst = sw; \
        } \
        if (src != idx) memcpy(idx, src, sizeof(int64_t) * (size_t)n); \
    } \
    /* idx[kth] becomes the kth in order, with the ones before it in front */ \
    static void ct__select_##S(const T *v, int64_t *idx, int64_t *tmp, int64_t n, int64_t kth, int desc) { \
        int64_t lo = 0, hi = n - 1; \
        int depth = 0; \
        while (hi > lo) { \
            if (hi - lo < 32 || ++depth > 128) { ct__isort_##S(v, idx + lo, tmp, hi - lo + 1, desc); return; } \
            int64_t mid = lo + (hi - lo) / 2, t, i = lo, j = hi; \
            if (ct__tbefore_##S(v, idx[mid], idx[lo], desc)) { t = idx[mid]; idx[mid] = idx[lo]; idx[lo] = t; } \
            if (ct__tbefore_##S(v, idx[hi], idx[lo], desc)) { t = idx[hi]; idx[hi] = idx[lo]; idx[lo] = t; } \
            if (ct__tbefore_##S(v, idx[hi], idx[mid], desc)) { t = idx[hi]; idx[hi] = idx[mid]; idx[mid] = t; } \
            int64_t p = idx[mid]; \
            while (i <= j) { \
                while (ct__tbefore_##S(v, idx[i], p, desc)) i++; \
                while (ct__tbefore_##S(v, p, idx[j], desc)) j--; \
                if (i <= j) { t = idx[i]; idx[i] = idx[j]; idx[j] = t; i++; j--; } \
            } \
            if (kth <= j) hi = j; \
            else if (kth >= i) lo = i; \
            else return; \
        } \
    } \
    /* rows [r0, r1) of [M][K] -> values/indices [M][kout]; k: topk's k or kthvalue's k-1 */ \
    static void ct__sortrows_##S(const T *x, T *vo, int64_t *io, int64_t r0, int64_t r1, int64_t K, int op, int64_t k, \
                                  int desc, int64_t *scratch) { \
        int64_t *idx = scratch, *tmp = scratch + K; \
        for (int64_t row = r0; row < r1; row++) { \
            const T *v = x + row * K; \
            for (int64_t i = 0; i < K; i++) idx[i] = i; \
            if (op == CT__OP_MEDIAN_DIM || op == CT__OP_MEDIAN) { \
                int64_t nan_at = -1; \
                for (int64_t i = 0; i < K && nan_at < 0; i++) if (CT__RNAN_##S(v[i])) nan_at = i; \
                if (nan_at >= 0) { vo[row] = v[nan_at]; io[row] = nan_at; continue; } \
            } \
            if (op == CT__OP_SORT) { \
                ct__isort_##S(v, idx, tmp, K, desc); \
                for (int64_t i = 0; i < K; i++) { vo[row * K + i] = v[idx[i]]; io[row * K + i] = idx[i]; } \
            } else if (op == CT__OP_TOPK) { \
                if (k > 0 && k < K) ct__select_##S(v, idx, tmp, K, k - 1, desc); \
                ct__isort_##S(v, idx, tmp, k, desc); \
                for (int64_t i = 0; i < k; i++) { vo[row * k + i] = v[idx[i]]; io[row * k + i] = idx[i]; } \
            } else if (op == CT__OP_MODE) { \
                int64_t best = 0, bestn = 0, run = 0; \
                ct__isort_##S(v, idx, tmp, K, 0); \
                for (int64_t i = 0; i < K; i++) { \
                    run++; \
                    if (i == K - 1 || v[idx[i]] != v[idx[i + 1]]) { \
                        if (run > bestn) { bestn = run; best = i; } \
                        run = 0; \
                    } \
                } \
                vo[row] = v[idx[best]]; \
                io[row] = idx[best]; \
            } else { \
                int64_t at = op == CT__OP_KTHVALUE ? k : (K - 1) / 2; \
                ct__select_##S(v, idx, tmp, K, at, 0); \
                vo[row] = v[idx[at]]; \
                io[row] = idx[at]; \
            } \
        } \
    }
CT__SORT_DEF(f32, float)
CT__SORT_DEF(f64, double)
CT__SORT_DEF(i64, int64_t)

static int ct__meta_sort(ct__call *c) {
    ct_tensor *x = c->in[0];
    int op = c->op;
    const char *name = ct__ops[op].name;
    ct__outinfo *o = &c->oi[0];
    if (!CT__ISREAL(x->dtype)) return ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s'", name, CT__DTNAME(x->dtype));
    o->kind = CT__OUT_NEW;
    o->has_strides = 0;
    o->dtype = x->dtype;
    c->cdt = ct__rvdt(x->dtype);
    if (op == CT__OP_MEDIAN) {  /* all elements, 0-d result */
        o->ndim = 0;
        c->nout = 1;
        if (!CT__ISFLOAT(x->dtype) && ct__shape_numel(x->ndim, x->shape) == 0)
            return ct__failed(CT_ERR_INDEX, "median(): input tensor must not be empty when it is not of a floating point type");
        return 0;
    }
    int d = ct__dim(name, c->a->i[0], x->ndim);
    if (d < 0) return -1;
    int64_t size = x->ndim ? x->shape[d] : 1, k = c->a->i[1];
    o->ndim = x->ndim;
    for (int q = 0; q < x->ndim; q++) o->shape[q] = x->shape[q];
    if (op == CT__OP_TOPK) {
        if (k < 0 || k > size) return ct__failed(CT_ERR_ARG, "topk: selected index k out of range");
        if (x->ndim) o->shape[d] = k;
    } else if (op != CT__OP_SORT) {
        if (size == 0) return ct__failed(CT_ERR_INDEX, "%s(): Expected reduction dim %d to have non-zero size.", name, d);
        if (op == CT__OP_KTHVALUE && (k < 1 || k > size))
            return ct__failed(CT_ERR_ARG, "kthvalue(): selected number k out of range for dimension %d", d);
        uint32_t mask;
        ct__attrs a = *c->a;
        a.nv = 1;
        a.v[0] = d;
        if (ct__reduce_shape(name, x, &a, &mask, o)) return -1;
        o->dtype = x->dtype;
    }
    c->nout = 2;
    c->oi[1] = *o;
    c->oi[1].dtype = CT_INT64;
    return 0;
}
typedef struct { int64_t chunk; int64_t M; int64_t K; int64_t * scratch; ct_dtype dt; const void * xp; void * vp; int64_t * ip; int op; int64_t k; int desc; } ct__k_sort_c1;
static void ct__k_sort_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__k_sort_c1 *q_ = (const ct__k_sort_c1 *)c_;
    int64_t chunk = q_->chunk; (void)chunk;
    int64_t M = q_->M; (void)M;
    int64_t K = q_->K; (void)K;
    int64_t * scratch = q_->scratch; (void)scratch;
    ct_dtype dt = q_->dt; (void)dt;
    const void * xp = q_->xp; (void)xp;
    void * vp = q_->vp; (void)vp;
    int64_t * ip = q_->ip; (void)ip;
    int op = q_->op; (void)op;
    int64_t k = q_->k; (void)k;
    int desc = q_->desc; (void)desc;
    for (int p = (int)lo_; p < hi_; p++) {
                int64_t r0 = p * chunk, r1 = r0 + chunk < M ? r0 + chunk : M, *sc = scratch + 2 * K * p;
                if (r0 >= r1) continue;
                if (dt == CT_FLOAT32) ct__sortrows_f32((const float *)xp, (float *)vp, ip, r0, r1, K, op, k, desc, sc);
                else if (dt == CT_FLOAT64) ct__sortrows_f64((const double *)xp, (double *)vp, ip, r0, r1, K, op, k, desc, sc);
                else ct__sortrows_i64((const int64_t *)xp, (int64_t *)vp, ip, r0, r1, K, op, k, desc, sc);
            }
}
static int ct__k_sort(ct__call *c) {
    ct_tensor *x = c->in[0];
    int op = c->op, rc = 0;
    ct_dtype dt = c->cdt;
    int full = op == CT__OP_MEDIAN;
    int dim = full || x->ndim == 0 ? 0 : ct__wrap_dim((int)c->a->i[0], x->ndim);
    uint32_t mask = full ? (x->ndim ? (1u << x->ndim) - 1u : 0u) : ct__rdim_mask(x, dim);
    int desc = (c->a->flags & CT__RF_DESC) != 0;
    int64_t k = op == CT__OP_TOPK || op == CT__OP_KTHVALUE ? c->a->i[1] : 0;
    if (op == CT__OP_KTHVALUE) { k = k - 1; desc = 0; }
    else if (op != CT__OP_SORT && op != CT__OP_TOPK) desc = 0;
    ct__rl r;
    if (ct__rl_make(&r, x, mask, dt, CT__RL_ROWS)) return -1;
    int64_t M = r.O, K = r.K, kout = op == CT__OP_SORT ? K : op == CT__OP_TOPK ? k : 1;
    /* row results go to [M][kout] buffers, which are the outputs themselves when
       kout == 1 or dim is last (the outputs are contiguous) */
    ct_tensor vperm, iperm;
    ct_tensor *vout = c->out[0], *iout = full ? NULL : c->out[1];
    int direct = kout == 1 || x->ndim == 0 || dim == x->ndim - 1;
    ct_tensor *vb = direct ? ct__rl_obuf(vout, dt) : NULL, *ib = direct ? (iout ? ct__incref(iout) : NULL) : NULL;
    if (!direct) {
        ct__rl_permuted(&vperm, vout, mask);
        ct__rl_permuted(&iperm, iout, mask);
        vb = ct__alloc(dt, vperm.ndim, vperm.shape, NULL, x->device);
        ib = ct__alloc(CT_INT64, iperm.ndim, iperm.shape, NULL, x->device);
    }
    int64_t one_idx = 0;
    /* rows split over the threads, each with its own scratch */
    int np = ct__rpar(M * K) && M > 1 ? ct__rthreads() : 1;
    if (np > M) np = (int)M;
    int64_t *scratch = CT__NEW_ARRAY(int64_t, 2 * K * np);
    if (!vb || (!ib && iout) || !scratch) {
        rc = ct__failed(CT_ERR_MEMORY, "%s: out of memory", ct__ops[op].name);
    } else if (M > 0 && (K > 0 || op == CT__OP_MEDIAN)) {
        int64_t *ip = ib ? (int64_t *)ct__ptr(ib) : &one_idx, chunk = (M + np - 1) / np;
        const void *xp = ct__ptr(r.t);
        void *vp = ct__ptr(vb);
        if (K == 0) ct__store_f64(vp, dt, NAN);  /* median of nothing */
        else {
            int ct__par = np > 1;
            (void)ct__par;
            ct__k_sort_c1 q1_ = {chunk, M, K, scratch, dt, xp, vp, ip, op, k, desc}; ct__rrun(np, ct__par, ct__k_sort_b1, &q1_);
        }
    }
    CT_FREE(scratch);
    if (direct) {
        rc = vb ? ct__rl_odone(vout, vb, rc) : -1;
        if (ib) ct__decref(ib);
    } else {
        if (!rc) rc = ct__copy_into(&vperm, vb);
        if (!rc) rc = ct__copy_into(&iperm, ib);
        if (vb) ct__decref(vb);
        if (ib) ct__decref(ib);
    }
    ct__decref(r.t);
    return rc;
}
static ct_tensor *ct__sort_call(int op, const ct_tensor *x, int dim, int64_t k, int flags, ct_tensor **indices) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = dim;
    a.i[1] = k;
    a.flags = flags;
    return ct__rcall(op, x, &a, indices);
}
CTENSOR_API ct_tensor *ct_sort(const ct_tensor *x, int dim, int descending, ct_tensor **indices) {
    return ct__sort_call(CT__OP_SORT, x, dim, 0, descending ? CT__RF_DESC : 0, indices);
}
CTENSOR_API ct_tensor *ct_argsort(const ct_tensor *x, int dim, int descending) {
    ct_tensor *idx = NULL;
    return ct__sort_call(CT__OP_SORT, x, dim, 0, descending ? CT__RF_DESC : 0, &idx) ? idx : NULL;
}
CTENSOR_API ct_tensor *ct_topk(const ct_tensor *x, int64_t k, int dim, int largest, int sorted, ct_tensor **indices) {
    (void)sorted;  /* always sorted: a valid order for sorted=False too */
    return ct__sort_call(CT__OP_TOPK, x, dim, k, largest ? CT__RF_DESC : 0, indices);
}
CTENSOR_API ct_tensor *ct_kthvalue(const ct_tensor *x, int64_t k, int dim, int keepdim, ct_tensor **indices) {
    return ct__sort_call(CT__OP_KTHVALUE, x, dim, k, keepdim ? CT__RF_KEEPDIM : 0, indices);
}
CTENSOR_API ct_tensor *ct_median(const ct_tensor *x) { return ct__sort_call(CT__OP_MEDIAN, x, 0, 0, 0, NULL); }
CTENSOR_API ct_tensor *ct_median_dim(const ct_tensor *x, int dim, int keepdim, ct_tensor **indices) {
    return ct__sort_call(CT__OP_MEDIAN_DIM, x, dim, 0, keepdim ? CT__RF_KEEPDIM : 0, indices);
}
CTENSOR_API ct_tensor *ct_mode(const ct_tensor *x, int dim, int keepdim, ct_tensor **indices) {
    return ct__sort_call(CT__OP_MODE, x, dim, 0, keepdim ? CT__RF_KEEPDIM : 0, indices);
}

/* ---- the backward of every op that selects elements by index (PyTorch's
   value_selecting_reduction_backward, cummaxmin_backward): zeros(shape).scatter_add(
   dim, index, grad), through the indexing section's public ops, so double backward
   works and there is one gather/scatter_add implementation ---- */
static ct_tensor *ct__scatter_add_into_zeros(const ct_tensor *src, int dim, const ct_tensor *idx, int ndim, const int64_t *shape) {
    if (!src) return NULL;
    return ct_scatter_add(ct_zeros_on_n(src->device, src->dtype, ndim, shape), dim, idx, src);
}
/* ---- backward rules of this family (PyTorch: tools/autograd/derivatives.yaml,
   torch/csrc/autograd/FunctionsManual.cpp), written with ctensor ops ---- */
static int ct__bw_nansum(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct__tmeta *m = &n->in_meta[0];
    ct_tensor *X = CT__SV_IN(n, 0);
    if (!X) return -1;
    uint32_t mask = ct__rmask_of(&n->attrs, m->ndim);
    ct_tensor *g = ct_expand_n(ct__rrestore(gout[0], mask, m, n->attrs.flags & CT__RF_KEEPDIM), m->ndim, m->shape);
    gin[0] = ct_mul(g, ct_logical_not(ct_isnan(X)));
    return gin[0] ? 0 : -1;
}
/* prod_{i != k} x_i for every k of the last dim: a row with x_k replaced by 1,
   one row per k (O(n^2), differentiable to any order) */
static ct_tensor *ct__prod_others(ct_tensor *X) {
    int64_t nl = X->ndim ? X->shape[X->ndim - 1] : 1;
    ct_tensor *noteye = ct_logical_not(ct_to_device(ct_eye(nl, nl, CT_BOOL), X->device));
    return ct_prod_dim(ct_where_scalar(noteye, ct_unsqueeze(X, -2), 1.0), -1, 0);
}
/* PyTorch's prod_backward: grad * result / input without zeros; with zeros, the
   product of the other elements (exactly differentiable when create_graph). */
static int ct__bw_prod(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct__tmeta *m = &n->in_meta[0];
    ct_tensor *X = CT__SV_IN(n, 0), *Y = CT__SV_OUT(n, 0);
    if (!X || !Y) return -1;
    if (m->ndim == 0) { gin[0] = gout[0]; return 0; }
    uint32_t mask = ct__rmask_of(&n->attrs, m->ndim);
    int keep = n->attrs.flags & CT__RF_KEEPDIM;
    int64_t dims[CT_MAX_DIMS];
    int nd = ct__rmask_dims(mask, m->ndim, dims);
    ct_tensor *g = ct__rrestore(gout[0], mask, m, keep), *y = ct__rrestore(Y, mask, m, keep);
    ct_tensor *zero = ct_eq_scalar(X, 0.0), *nz = ct_sum(zero);
    if (!nz) return -1;
    if (ct_item_int(nz) == 0) {
        gin[0] = ct_mul(g, ct_div(y, X));
    } else if (ct_is_grad_enabled()) {
        /* create_graph: the O(n^2) product of the others, reduced dims flattened last */
        int64_t perm[CT_MAX_DIMS], inv[CT_MAX_DIMS], fshape[CT_MAX_DIMS], pshape[CT_MAX_DIMS];
        int np = 0, nk = 0;
        for (int d = 0; d < m->ndim; d++) if (!((mask >> d) & 1u)) perm[np++] = d;
        nk = np;
        for (int d = 0; d < m->ndim; d++) if ((mask >> d) & 1u) perm[np++] = d;
        for (int q = 0; q < m->ndim; q++) { inv[perm[q]] = q; pshape[q] = m->shape[perm[q]]; }
        for (int q = 0; q < nk; q++) fshape[q] = pshape[q];
        fshape[nk] = -1;
        ct_tensor *o = ct__prod_others(ct_reshape_n(ct_permute_n(X, m->ndim, perm), nk + 1, fshape));
        o = ct_permute_n(ct_reshape_n(o, m->ndim, pshape), m->ndim, inv);
        gin[0] = ct_mul(g, o);
    } else {
        /* zero count and product of the non-zeros per slice */
        ct_tensor *cnt = ct_sum_dims(zero, nd, dims, 1);
        ct_tensor *nonzero = ct_where_scalar(ct_logical_not(zero), X, 1.0);
        ct_tensor *pnz = ct_prod_dtype(nonzero, nd, dims, 1, X->dtype);
        ct_tensor *one_zero = ct_where_scalar(ct_logical_and(zero, ct_eq_scalar(cnt, 1.0)), ct_mul(g, pnz), 0.0);
        gin[0] = ct_where(ct_eq_scalar(cnt, 0.0), ct_mul(g, ct_div(y, X)), one_zero);
    }
    return gin[0] ? 0 : -1;
}
/* var_backward: (2 / (N - correction)) * grad * (x - mean); std: grad / (2 std) first.
   var_mean / std_mean add the mean's gradient. */
static int ct__bw_var(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct__tmeta *m = &n->in_meta[0];
    ct_tensor *X = CT__SV_IN(n, 0);
    if (!X) return -1;
    int op = n->op, keep = n->attrs.flags & CT__RF_KEEPDIM;
    uint32_t mask = ct__rmask_of(&n->attrs, m->ndim);
    int64_t dims[CT_MAX_DIMS];
    int nd = ct__rmask_dims(mask, m->ndim, dims);
    int64_t cnt = ct__rcount(mask, m);
    ct_tensor *g = gout[0];
    if (op == CT__OP_STD || op == CT__OP_STD_MEAN) {
        ct_tensor *Y = CT__SV_OUT(n, 0);
        if (!Y) return -1;
        g = ct_masked_fill(ct_div(g, ct_mul_scalar(Y, 2.0)), ct_eq_scalar(Y, 0.0), 0.0);
    }
    g = ct__rrestore(g, mask, m, keep);
    ct_tensor *centered = ct_sub(X, nd ? ct_mean_dims(X, nd, dims, 1) : ct_mean(X));
    ct_tensor *r = ct_mul(ct_mul_scalar(g, 2.0 / ((double)cnt - n->attrs.s[0])), centered);
    if (n->nout == 2 && gout[1])
        r = ct_add(r, ct_div_scalar(ct_expand_n(ct__rrestore(gout[1], mask, m, keep), m->ndim, m->shape), (double)cnt));
    gin[0] = r;
    return r ? 0 : -1;
}
/* amax/amin: the gradient split evenly among the elements equal to the result
   (PyTorch's scale_grad_by_count) */
static int ct__bw_amax(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct__tmeta *m = &n->in_meta[0];
    ct_tensor *X = CT__SV_IN(n, 0), *Y = CT__SV_OUT(n, 0);
    if (!X || !Y) return -1;
    int keep = n->attrs.flags & CT__RF_KEEPDIM;
    uint32_t mask = ct__rmask_of(&n->attrs, m->ndim);
    int64_t dims[CT_MAX_DIMS];
    int nd = ct__rmask_dims(mask, m->ndim, dims);
    ct_tensor *eq = ct_eq(ct__rrestore(Y, mask, m, keep), X);
    ct_tensor *cnt = nd ? ct_sum_dims(eq, nd, dims, 1) : ct_sum(eq);
    gin[0] = ct_mul(ct_div(ct__rrestore(gout[0], mask, m, keep), cnt), eq);
    return gin[0] ? 0 : -1;
}
/* max(), min(), median(): PyTorch's evenly_distribute_backward */
static int ct__bw_evenly(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *X = CT__SV_IN(n, 0), *Y = CT__SV_OUT(n, 0);
    if (!X || !Y) return -1;
    double y = ct_item(Y);
    ct_tensor *mask = y != y ? ct_isnan(X) : ct_eq(X, Y);
    gin[0] = ct_mul(ct_div(gout[0], ct_sum(mask)), mask);
    return gin[0] ? 0 : -1;
}
/* ops that select one element per output: the gradient goes to the saved index */
static int ct__bw_valsel(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct__tmeta *m = &n->in_meta[0];
    ct_tensor *idx = CT__SV_OUT(n, 1), *g = gout[0];
    if (!idx) return -1;
    if (m->ndim == 0) {
        gin[0] = ct_reshape_n(ct_contiguous(g), 0, NULL);
        return gin[0] ? 0 : -1;
    }
    int d = ct__wrap_dim((int)n->attrs.i[0], m->ndim);
    int keep = n->op == CT__OP_SORT || n->op == CT__OP_TOPK || (n->attrs.flags & CT__RF_KEEPDIM);
    if (!keep) {
        g = ct_unsqueeze(g, d);
        idx = ct_unsqueeze(idx, d);
    }
    gin[0] = ct__scatter_add_into_zeros(g, d, idx, m->ndim, m->shape);
    return gin[0] ? 0 : -1;
}
/* logsumexp_backward: grad * exp(x - result) */
static int ct__bw_lse(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct__tmeta *m = &n->in_meta[0];
    ct_tensor *X = CT__SV_IN(n, 0), *Y = CT__SV_OUT(n, 0);
    if (!X || !Y) return -1;
    int keep = n->attrs.flags & CT__RF_KEEPDIM;
    uint32_t mask = ct__rmask_of(&n->attrs, m->ndim);
    gin[0] = ct_mul(ct__rrestore(gout[0], mask, m, keep), ct_exp(ct_sub(X, ct__rrestore(Y, mask, m, keep))));
    return gin[0] ? 0 : -1;
}
/* PyTorch's norm_backward (1.13), by p: the gradient of y = ||x||_p over dims[nd]
   (nd == 0: all of them), with g and y already shaped to broadcast against x (as with
   keepdim). Written in ops, so double backward works. Shared by norm and
   ctensor_linalg.h's linalg.vector_norm. */
static CT__UNUSED ct_tensor *ct__norm_backward(ct_tensor *g, ct_tensor *x, ct_tensor *y, double p, int nd, const int64_t *dims) {
    if (p == 0.0) return ct_zeros_like(x);
    if (p == 1.0) return ct_mul(ct_sign(x), g);
    if (p == 2.0) return ct_mul(g, ct_masked_fill(ct_div(x, y), ct_eq_scalar(y, 0.0), 0.0));
    if (isinf(p)) {
        ct_tensor *ax = ct_abs(x);
        ct_tensor *sel = ct_logical_or(ct_eq(ax, y), ct_isnan(ax));
        ct_tensor *cnt = nd ? ct_sum_dims(sel, nd, dims, 1) : ct_sum(sel);
        return ct_mul(ct_sign(x), ct_mul(ct_div(g, cnt), sel));
    }
    if (p < 1.0) {
        ct_tensor *scaled = ct_mul(ct_sign(x), ct_masked_fill(ct_pow_scalar(ct_abs(x), p - 1.0), ct_eq_scalar(x, 0.0), 0.0));
        return ct_mul(ct_mul(scaled, g), ct_pow_scalar(y, 1.0 - p));
    }
    ct_tensor *scaled = p < 2.0 ? ct_mul(ct_sign(x), ct_pow_scalar(ct_abs(x), p - 1.0)) : ct_mul(x, ct_pow_scalar(ct_abs(x), p - 2.0));
    ct_tensor *sv = ct_masked_fill(ct_div(g, ct_pow_scalar(y, p - 1.0)), ct_eq_scalar(y, 0.0), 0.0);
    return ct_mul(scaled, sv);
}
static int ct__bw_norm(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct__tmeta *m = &n->in_meta[0];
    ct_tensor *X = CT__SV_IN(n, 0), *Y = CT__SV_OUT(n, 0);
    if (!X || !Y) return -1;
    int keep = n->attrs.flags & CT__RF_KEEPDIM;
    uint32_t mask = ct__rmask_of(&n->attrs, m->ndim);
    int64_t dims[CT_MAX_DIMS];
    int nd = ct__rmask_dims(mask, m->ndim, dims);
    gin[0] = ct__norm_backward(ct__rrestore(gout[0], mask, m, keep), X, ct__rrestore(Y, mask, m, keep), n->attrs.s[0], nd, dims);
    return gin[0] ? 0 : -1;
}
static int ct__bw_softmax(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *Y = CT__SV_OUT(n, 0);
    if (!Y) return -1;
    int op = n->op == CT__OP_SOFTMAX ? CT__OP_SOFTMAX_BACKWARD : CT__OP_LOG_SOFTMAX_BACKWARD;
    gin[0] = ct__softmax_bw_call(op, gout[0], Y, n->attrs.i[0]);
    return gin[0] ? 0 : -1;
}
/* the backward ops' own backward (PyTorch's softmax_double_backward and the
   _log_softmax_backward_data entries of derivatives.yaml) */
static int ct__bw_softmax_bw(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *go = CT__SV_IN(n, 0), *y = CT__SV_IN(n, 1), *gg = gout[0];
    if (!go || !y) return -1;
    int dim = (int)n->attrs.i[0];
    if (n->op == CT__OP_SOFTMAX_BACKWARD) {
        if (CT__RNEEDS(n, 0) && !(gin[0] = ct__softmax_bw_call(CT__OP_SOFTMAX_BACKWARD, gg, y, dim))) return -1;
        if (CT__RNEEDS(n, 1)) {
            ct_tensor *a = ct_mul(go, gg);
            ct_tensor *b = ct_mul(ct_sum_dim(ct_mul(y, go), dim, 1), gg);
            ct_tensor *c = ct_mul(go, ct_sum_dim(ct_mul(y, gg), dim, 1));
            if (!(gin[1] = ct_sub(ct_sub(a, b), c))) return -1;
        }
    } else {
        ct_tensor *ey = ct_exp(y);
        if (CT__RNEEDS(n, 0) && !(gin[0] = ct_sub(gg, ct_sum_dim(ct_mul(gg, ey), dim, 1)))) return -1;
        if (CT__RNEEDS(n, 1) && !(gin[1] = ct_neg(ct_mul(ct_mul(gg, ey), ct_sum_dim(go, dim, 1))))) return -1;
    }
    return 0;
}
/* cumsum_backward: the cumsum of the gradient from the other end */
static int ct__bw_cumsum(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    int rev = (n->attrs.flags & CT__RF_REVERSE) != 0;
    ct_tensor *g = gout[0]->dtype != n->in_meta[0].dtype ? ct_to(gout[0], n->in_meta[0].dtype) : gout[0];  /* dtype=: as PyTorch */
    gin[0] = ct__scan_call(CT__OP_CUMSUM, g, n->attrs.i[0], 0, CT_FLOAT32, !rev, NULL);
    return gin[0] ? 0 : -1;
}
/* cumprod_backward: sum_{j >= k} grad_j * output_j / x_k without zeros; with
   zeros as PyTorch: an O(n) formula, or O(n^2) and exact to any order under
   create_graph. Reverse scans are internal (no recorded reverse cumprod). */
static int ct__bw_cumprod(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct__tmeta *m = &n->in_meta[0];
    ct_tensor *X = CT__SV_IN(n, 0), *Y = CT__SV_OUT(n, 0), *g = gout[0];
    if (!X || !Y) return -1;
    if (g->dtype != m->dtype && !(g = ct_to(g, m->dtype))) return -1;  /* dtype=: as PyTorch */
    int d = m->ndim ? ct__wrap_dim((int)n->attrs.i[0], m->ndim) : 0;
    if (m->ndim == 0 || m->shape[d] <= 1) { gin[0] = g; return 0; }
    ct_tensor *zero = ct_eq_scalar(X, 0.0), *nz = ct_sum(zero);
    if (!nz) return -1;
    if (ct_item_int(nz) == 0) {
        gin[0] = ct_div(ct__scan_call(CT__OP_CUMSUM, ct_mul(Y, g), d, 0, CT_FLOAT32, 1, NULL), X);
    } else if (ct_is_grad_enabled()) {
        int64_t nl = m->shape[d];
        ct_tensor *Xt = ct_transpose(X, d, -1), *Gt = ct_transpose(g, d, -1);
        ct_tensor *noteye = ct_logical_not(ct_eye(nl, nl, CT_BOOL));
        ct_tensor *C = ct_cumprod(ct_where_scalar(noteye, ct_unsqueeze(Xt, -2), 1.0), -1);   /* [..., k, j] */
        ct_tensor *ar = ct_arange(0, (double)nl, 1, CT_INT64);
        ct_tensor *upper = ct_ge(ct_reshape(ar, 1, nl), ct_reshape(ar, nl, 1));                /* j >= k */
        ct_tensor *s = ct_sum_dim(ct_mul(ct_mul(C, ct_unsqueeze(Gt, -2)), upper), -1, 0);
        gin[0] = ct_transpose(s, d, -1);
    } else {
        ct_tensor *cz = ct_cumsum(zero, d);
        ct_tensor *before = ct_eq_scalar(cz, 0.0), *first = ct_logical_and(zero, ct_eq_scalar(cz, 1.0));
        ct_tensor *part1 = ct_div(ct__scan_call(CT__OP_CUMSUM, ct_mul(Y, g), d, 0, CT_FLOAT32, 1, NULL), ct_where_scalar(before, X, 1.0));
        ct_tensor *y1 = ct_cumprod(ct_where_scalar(ct_logical_not(first), X, 1.0), d);
        ct_tensor *part2 = ct__scan_call(CT__OP_CUMSUM, ct_mul(g, y1), d, 0, CT_FLOAT32, 1, NULL);
        gin[0] = ct_where(before, part1, ct_where_scalar(first, part2, 0.0));
    }
    return gin[0] ? 0 : -1;
}
static int ct__bw_cumext(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct__tmeta *m = &n->in_meta[0];
    ct_tensor *idx = CT__SV_OUT(n, 1);
    if (!idx) return -1;
    if (m->ndim == 0) { gin[0] = gout[0]; return 0; }
    gin[0] = ct__scatter_add_into_zeros(gout[0], ct__wrap_dim((int)n->attrs.i[0], m->ndim), idx, m->ndim, m->shape);
    return gin[0] ? 0 : -1;
}

/* ============================================================================
   Indexing and joining
   ========================================================================== */
/* [section: index-impl] */
/* ---- shared helpers -------------------------------------------------------
   Index kernels are written for element sizes (1, 2, 4, 8 bytes) where they only
   move data, and per dtype where they compute (add, multiply, max, min). */
#define CT__IX_NEEDS(n, i) ((n)->next[i].fn != NULL)
/* Vectorize an inner loop whose iterations are independent (OpenMP SIMD: active with
   gcc -fopenmp or -fopenmp-simd, where gcc -O2's cost model alone would not vectorize;
   clang vectorizes these at -O2 by itself, and warns when a hinted loop cannot be). */
#if defined(_OPENMP) && defined(__GNUC__) && !defined(__clang__)
#  define CT__IX_SIMD _Pragma("omp simd")
#else
#  define CT__IX_SIMD
#endif

/* A data-dependent index error found inside a loop. The loop's parameter block
   is the first member of a ct__ixargs, so a loop reaches the error record from it. */
typedef struct ct__ixerr { int flag; int64_t bad; } ct__ixerr;
typedef struct ct__ixargs { ct__attrs a; ct__ixerr *err; } ct__ixargs;
static int ct__ix_err_lock;   /* the first bad index wins, whichever pool thread finds it */
static void ct__ix_bad(const ct__attrs *a, int64_t ix) {
    ct__ixerr *e = ((const ct__ixargs *)(const void *)a)->err;
    ct__spin_lock(&ct__ix_err_lock);
    if (!e->flag) { e->flag = 1; e->bad = ix; }
    ct__spin_unlock(&ct__ix_err_lock);
}
CT__INLINE int64_t ct__ixld(const char *p, int i32) { return i32 ? (int64_t)*(const int32_t *)p : *(const int64_t *)p; }
static int ct__ix_real(const char *op, ct_dtype dt) {
    if (!CT__ISREAL(dt)) return ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s'", op, CT__DTNAME(dt));
    return 0;
}
/* output of an op that updates a copy of input 0 (or input 0 itself when in place) */
static void ct__ix_out_self(ct__call *c) {
    if (c->inplace) {
        c->nout = 1;
        c->oi[0].kind = CT__OUT_INPLACE;
        c->oi[0].src = 0;
    } else {
        ct__out_new(c, c->in[0]->dtype, c->in[0]->ndim, c->in[0]->shape);
    }
}
/* A header-only view for kernels (no references taken; never released). */
static ct_tensor ct__ix_view(const ct_tensor *x, int ndim, const int64_t *shape, const int64_t *strides, int64_t offset) {
    ct_tensor v = *x;
    v.flags &= ~CT__F_CONTIG;
    v.ndim = ndim;
    for (int d = 0; d < ndim; d++) { v.shape[d] = shape[d]; v.strides[d] = strides[d]; }
    v.offset = offset;
    return v;
}
/* Geometry where a 0-d tensor counts as [1] (PyTorch's ensure_nonempty_dim/size). */
typedef struct ct__geo { int nd; int64_t sh[CT_MAX_DIMS], st[CT_MAX_DIMS]; } ct__geo;
static ct__geo ct__geo_ne(const ct_tensor *t) {
    ct__geo g;
    g.nd = t->ndim ? t->ndim : 1;
    g.sh[0] = 1;
    g.st[0] = 1;
    for (int d = 0; d < t->ndim; d++) { g.sh[d] = t->shape[d]; g.st[d] = t->strides[d]; }
    return g;
}
/* Space-separated sizes, as PyTorch prints a std::vector in some messages. */
static ct__shapestr ct__fmt_sizes_sp(int n, const int64_t *s) {
    ct__shapestr r;
    size_t k = 0;
    r.s[0] = 0;
    for (int i = 0; i < n && k < sizeof r.s - 32; i++) k += (size_t)snprintf(r.s + k, sizeof r.s - k, i ? " %lld" : "%lld", (long long)s[i]);
    return r;
}
/* Runs an iterator; threads split it only when the work (elements touched) is large. */
static void ct__ix_run(const ct__iter *it, ct__loop_fn fn, const ct__attrs *a, int64_t work) {
    ct__iter_run_work(it, fn, a, work);
}
/* dst = src for one shape: a memcpy when both are contiguous and of one dtype */
static void ct__ix_memcpy(char *dst, const char *src, size_t bytes);
static int ct__ix_copy(ct_tensor *dst, const ct_tensor *src) {
    if (dst->dtype == src->dtype && ct_same_shape(dst, src) && ct__is_contig(dst) && ct__is_contig(src)) {
        ct__ix_memcpy(ct__ptr(dst), ct__ptr(src), (size_t)ct__shape_numel(dst->ndim, dst->shape) * ct__dt[dst->dtype].size);
        return 0;
    }
    return ct__copy_into(dst, src);
}
/* memcpy that splits large copies over threads */
typedef struct ct__memcpy_job { char *dst; const char *src; size_t bytes; } ct__memcpy_job;
static void ct__memcpy_chunk(void *c, int64_t lo, int64_t hi) {   /* units of 4 KiB */
    const ct__memcpy_job *j = (const ct__memcpy_job *)c;
    size_t b = (size_t)lo << 12, e = CT__MIN((size_t)hi << 12, j->bytes);
    memcpy(j->dst + b, j->src + b, e - b);
}
static void ct__ix_memcpy(char *dst, const char *src, size_t bytes) {
    if (bytes >= ((size_t)1 << 20) && ct__par_threads() > 1) {
        ct__memcpy_job j = {dst, src, bytes};
        ct__par_for((int64_t)((bytes + 4095) >> 12), 128, ct__memcpy_chunk, &j);   /* >= 512 KiB a chunk */
        return;
    }
    memcpy(dst, src, bytes);
}
/* n copies of the element `one` (es bytes) */
static void ct__ix_fill(char *dst, const unsigned char *one, int64_t n, size_t es) {
#define CT__FILL_ROW(T) \
    { \
        T v, *d = (T *)dst; \
        memcpy(&v, one, sizeof(T)); \
        for (int64_t k = 0; k < n; k++) d[k] = v; \
    }
    switch (es) {
    case 1: memset(dst, one[0], (size_t)(n > 0 ? n : 0)); break;
    case 2: CT__FILL_ROW(uint16_t) break;
    case 4: CT__FILL_ROW(uint32_t) break;
    default: CT__FILL_ROW(uint64_t) break;
    }
#undef CT__FILL_ROW
}
CT__INLINE void ct__elcp(char *d, const char *s, size_t es) {
    switch (es) {
    case 1: *(uint8_t *)d = *(const uint8_t *)s; break;
    case 2: *(uint16_t *)d = *(const uint16_t *)s; break;
    case 4: *(uint32_t *)d = *(const uint32_t *)s; break;
    default: *(uint64_t *)d = *(const uint64_t *)s; break;
    }
}
/* Walks a broadcast shape in C order (PyTorch's order for masked_select, nonzero...):
   the caller loops over the last dim, ct__cw_next steps the others. */
typedef struct ct__cw {
    int nd, nop;
    int64_t shape[CT_MAX_DIMS], idx[CT_MAX_DIMS], st[CT_MAX_DIMS][4];
    char *p[4];
} ct__cw;
static void ct__cw_init(ct__cw *w, int nop, ct_tensor *const *ops, int nd, const int64_t *shape) {
    w->nd = nd;
    w->nop = nop;
    for (int d = 0; d < nd; d++) { w->shape[d] = shape[d]; w->idx[d] = 0; }
    for (int k = 0; k < nop; k++) {
        const ct_tensor *x = ops[k];
        int64_t es = (int64_t)ct__dt[x->dtype].size;
        w->p[k] = ct__ptr(x);
        for (int d = 0; d < nd; d++) {
            int xd = d - (nd - x->ndim);
            w->st[d][k] = (xd < 0 || x->shape[xd] == 1) ? 0 : x->strides[xd] * es;
        }
    }
}
static int ct__cw_next(ct__cw *w) {
    for (int d = w->nd - 2; d >= 0; d--) {
        for (int k = 0; k < w->nop; k++) w->p[k] += w->st[d][k];
        if (++w->idx[d] < w->shape[d]) return 1;
        for (int k = 0; k < w->nop; k++) w->p[k] -= w->st[d][k] * w->shape[d];
        w->idx[d] = 0;
    }
    return 0;
}
#define CT__CW_INNER(w) ((w)->nd ? (w)->shape[(w)->nd - 1] : 1)
#define CT__CW_ST(w, k) ((w)->nd ? (w)->st[(w)->nd - 1][k] : 0)

/* Broadcast shape of two shapes (already known to be compatible). */
static int ct__bshape2(int na, const int64_t *a, int nb, const int64_t *b, int64_t *out) {
    int n = na > nb ? na : nb;
    for (int d = 0; d < n; d++) {
        int ia = d - (n - na), ib = d - (n - nb);
        int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
        out[d] = sa == 1 ? sb : sa;
    }
    return n;
}
/* Number of true elements of a bool mask broadcast to (nd, shape). */
static int64_t ct__mask_count(const ct_tensor *mask, int nd, const int64_t *shape) {
    if (ct__shape_numel(nd, shape) == 0 || ct__shape_numel(mask->ndim, mask->shape) == 0) return 0;
    int64_t rep = 1, cnt = 0;
    for (int d = 0; d < nd; d++) {
        int md = d - (nd - mask->ndim);
        if (md < 0 || mask->shape[md] == 1) rep = ct__sat_mul(rep, shape[d]);
    }
    ct__cw w;
    ct_tensor *ops[1];
    ops[0] = (ct_tensor *)mask;
    ct__cw_init(&w, 1, ops, mask->ndim, mask->shape);
    int64_t inner = CT__CW_INNER(&w), s0 = CT__CW_ST(&w, 0);
    do {
        const uint8_t *p = (const uint8_t *)w.p[0];
        for (int64_t j = 0; j < inner; j++) cnt += p[j * s0] != 0;
    } while (ct__cw_next(&w));
    return ct__sat_mul(cnt, rep);   /* saturated: the output's shape check refuses it */
}

/* ---- gather-style loops: out[k] = x[k + index[k] * stride] ------------------
   p[0] out, p[1] x (stride 0 along the indexed dim), p[2] index; a->v: 0 byte
   stride of the indexed dim, 1 its size, 2 wrap negative indices, 3 int32 index. */
#define CT__GATHER_LOOP(fname, T) \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) { \
        const int64_t xs = a->v[0], size = a->v[1], s0 = s[0], s1 = s[1], s2 = s[2]; \
        const int wrap = (int)a->v[2], i32 = (int)a->v[3]; \
        char *const o = p[0]; \
        const char *const x = p[1], *const ip = p[2]; \
        if (!i32) {  /* int64 indices (negative ones wrap for take) */ \
            const int64_t add = wrap ? size : 0; \
            if (s0 == (int64_t)sizeof(T) && s1 == 0 && s2 == 8 && xs == (int64_t)sizeof(T)) { \
                T *CT_RESTRICT ov = (T *)o; \
                const T *CT_RESTRICT xv = (const T *)x; \
                const int64_t *CT_RESTRICT iv = (const int64_t *)ip; \
                int64_t nbad = 0; \
                /* check the row first, then gather it without branches */ \
                CT__IX_SIMD \
                for (int64_t k = 0; k < n; k++) { \
                    int64_t raw = iv[k], ix = raw < 0 ? raw + add : raw; \
                    nbad += (uint64_t)ix >= (uint64_t)size; \
                } \
                if (CT__UNLIKELY(nbad)) { \
                    for (int64_t k = 0; k < n; k++) { \
                        int64_t raw = iv[k], ix = raw < 0 ? raw + add : raw; \
                        if ((uint64_t)ix >= (uint64_t)size) { ct__ix_bad(a, raw); return; } \
                    } \
                } \
                CT__IX_SIMD \
                for (int64_t k = 0; k < n; k++) { \
                    int64_t raw = iv[k]; \
                    ov[k] = xv[raw < 0 ? raw + add : raw]; \
                } \
                return; \
            } \
            for (int64_t k = 0; k < n; k++) { \
                int64_t raw = *(const int64_t *)(ip + k * s2), ix = raw < 0 ? raw + add : raw; \
                if (CT__UNLIKELY((uint64_t)ix >= (uint64_t)size)) { ct__ix_bad(a, raw); return; } \
                *(T *)(o + k * s0) = *(const T *)(x + k * s1 + ix * xs); \
            } \
            return; \
        } \
        for (int64_t k = 0; k < n; k++) { \
            int64_t raw = ct__ixld(ip + k * s2, i32), ix = raw < 0 && wrap ? raw + size : raw; \
            if (CT__UNLIKELY(ix < 0 || ix >= size)) { ct__ix_bad(a, raw); return; } \
            *(T *)(o + k * s0) = *(const T *)(x + k * s1 + ix * xs); \
        } \
    }
CT__GATHER_LOOP(ct__gather_1, uint8_t)
CT__GATHER_LOOP(ct__gather_2, uint16_t)
CT__GATHER_LOOP(ct__gather_4, uint32_t)
CT__GATHER_LOOP(ct__gather_8, uint64_t)
/* offset loops (advanced indexing): p[2] holds element offsets already checked */
#define CT__OFFGET_LOOP(fname, T) \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) { \
        (void)a; \
        if (s[2] == 0 && s[0] == (int64_t)sizeof(T) && s[1] == (int64_t)sizeof(T)) { \
            memcpy(p[0], (const T *)p[1] + *(const int64_t *)p[2], (size_t)n * sizeof(T)); \
            return; \
        } \
        for (int64_t k = 0; k < n; k++) \
            *(T *)(p[0] + k * s[0]) = ((const T *)(p[1] + k * s[1]))[*(const int64_t *)(p[2] + k * s[2])]; \
    }
#define CT__OFFSET_LOOP(fname, T) \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) { \
        (void)a; \
        if (s[2] == 0 && s[0] == (int64_t)sizeof(T) && s[1] == (int64_t)sizeof(T)) { \
            memcpy((T *)p[0] + *(const int64_t *)p[2], p[1], (size_t)n * sizeof(T)); \
            return; \
        } \
        for (int64_t k = 0; k < n; k++) \
            ((T *)(p[0] + k * s[0]))[*(const int64_t *)(p[2] + k * s[2])] = *(const T *)(p[1] + k * s[1]); \
    }
CT__OFFGET_LOOP(ct__offget_1, uint8_t)
CT__OFFGET_LOOP(ct__offget_2, uint16_t)
CT__OFFGET_LOOP(ct__offget_4, uint32_t)
CT__OFFGET_LOOP(ct__offget_8, uint64_t)
CT__OFFSET_LOOP(ct__offset_1, uint8_t)
CT__OFFSET_LOOP(ct__offset_2, uint16_t)
CT__OFFSET_LOOP(ct__offset_4, uint32_t)
CT__OFFSET_LOOP(ct__offset_8, uint64_t)
static ct__loop_fn ct__by_size(size_t es, ct__loop_fn f1, ct__loop_fn f2, ct__loop_fn f4, ct__loop_fn f8) {
    return es == 1 ? f1 : es == 2 ? f2 : es == 4 ? f4 : f8;
}

/* ---- scatter-style loops ------------------------------------------------------
   The scattered dim is walked inside the loop: p[0] out, p[1] index, p[2] source,
   each at the start of a row of the other dims. a->v: 0 count along the dim, 1 index
   byte stride, 2 source byte stride, 3 out byte stride, 4 out size along the dim,
   5 wrap negative indices, 6 int32 index, 7 bits of a fill value; a->s[1] alpha.
   A row's writes stay in that row's output elements, so rows may run on several
   threads (as PyTorch's cpu_scatter_gather_base_kernel does). */
#define CT__SC_BODY(T, C, LD, ST, NEEDV, EXPR) \
    { \
        int64_t raw = ct__ixld(p1 + k * s1 + j * is, i32), ix = raw < 0 && wrap ? raw + size : raw; \
        if (CT__UNLIKELY(ix < 0 || ix >= size)) { ct__ix_bad(a, raw); return; } \
        T *q = (T *)(p0 + k * s0 + ix * os); \
        C o = LD(*q), v = NEEDV ? LD(*(const T *)(p2 + k * s2 + j * ss)) : (C)0; \
        (void)o; (void)v; \
        *q = ST(EXPR); \
    }
#define CT__SC_BODY64(T, C, LD, ST, NEEDV, EXPR) \
    { \
        int64_t ix = *(const int64_t *)(p1 + k * s1 + j * is); \
        if (CT__UNLIKELY((uint64_t)ix >= (uint64_t)size)) { ct__ix_bad(a, ix); return; } \
        T *q = (T *)(p0 + k * s0 + ix * os); \
        C o = LD(*q), v = NEEDV ? LD(*(const T *)(p2 + k * s2 + j * ss)) : (C)0; \
        (void)o; (void)v; \
        *q = ST(EXPR); \
    }
/* the loops' parameters, unpacked (see above) */
#define CT__SC_PARAMS(T, C, AL) \
    const int64_t m = a->v[0], is = a->v[1], ss = a->v[2], os = a->v[3], size = a->v[4]; \
    const int wrap = (int)a->v[5], i32 = (int)a->v[6]; \
    const int64_t s0 = s[0], s1 = s[1], s2 = s[2]; \
    char *const p0 = p[0]; \
    const char *const p1 = p[1], *const p2 = p[2]; \
    const C al = AL(a->s[1]); \
    T fv; \
    memcpy(&fv, &a->v[7], sizeof(T)); \
    (void)al; (void)fv;
#define CT__SC_LOOP(fname, T, C, LD, ST, AL, NEEDV, EXPR) \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) { \
        CT__SC_PARAMS(T, C, AL) \
        const int64_t es_ = (int64_t)sizeof(T); \
        if (n > 1 && s1 == 0 && s0 == es_ && (!NEEDV || s2 == es_)) { \
            /* one index per contiguous row (index_add / index_copy / index_fill) */ \
            for (int64_t j = 0; j < m; j++) { \
                int64_t raw = ct__ixld(p1 + j * is, i32), ix = raw < 0 && wrap ? raw + size : raw; \
                if (CT__UNLIKELY(ix < 0 || ix >= size)) { ct__ix_bad(a, raw); return; } \
                T *CT_RESTRICT qr = (T *)(p0 + ix * os); \
                const T *CT_RESTRICT sr = (const T *)(p2 + j * ss); \
                (void)sr; \
                CT__IX_SIMD \
                for (int64_t k = 0; k < n; k++) { \
                    C o = LD(qr[k]), v = NEEDV ? LD(sr[k]) : (C)0; \
                    (void)o; (void)v; \
                    qr[k] = ST(EXPR); \
                } \
            } \
            return; \
        } \
        if (n > 1 && (s0 < 0 ? -s0 : s0) < (os < 0 ? -os : os)) { \
            if (!wrap && !i32) { \
                for (int64_t j = 0; j < m; j++) \
                    for (int64_t k = 0; k < n; k++) CT__SC_BODY64(T, C, LD, ST, NEEDV, EXPR) \
            } else { \
                for (int64_t j = 0; j < m; j++) \
                    for (int64_t k = 0; k < n; k++) CT__SC_BODY(T, C, LD, ST, NEEDV, EXPR) \
            } \
        } else { \
            if (!wrap && !i32) { \
                for (int64_t k = 0; k < n; k++) \
                    for (int64_t j = 0; j < m; j++) CT__SC_BODY64(T, C, LD, ST, NEEDV, EXPR) \
            } else { \
                for (int64_t k = 0; k < n; k++) \
                    for (int64_t j = 0; j < m; j++) CT__SC_BODY(T, C, LD, ST, NEEDV, EXPR) \
            } \
        } \
    }
/* the same loop with one body, for the dtypes scatter rarely meets (every row in one
   order; rows of different k never share an output element, so the order between
   them changes nothing) */
#define CT__SC_LOOP1(fname, T, C, LD, ST, AL, NEEDV, EXPR) \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) { \
        CT__SC_PARAMS(T, C, AL) \
        for (int64_t j = 0; j < m; j++) \
            for (int64_t k = 0; k < n; k++) CT__SC_BODY(T, C, LD, ST, NEEDV, EXPR) \
    }
#define CT__SC_AL0(x) 0
#define CT__SC_ALF(x) ((float)(x))
#define CT__SC_ALD(x) (x)
#define CT__SC_ALI(x) ct__f2i64(x)
#define CT__SC_ALB(x) ((int64_t)((x) != 0))
CT__SC_LOOP1(ct__sc_set_1, uint8_t, uint8_t, CT__ID, CT__ID, CT__SC_AL0, 1, v)
CT__SC_LOOP1(ct__sc_set_2, uint16_t, uint16_t, CT__ID, CT__ID, CT__SC_AL0, 1, v)
CT__SC_LOOP(ct__sc_set_4, uint32_t, uint32_t, CT__ID, CT__ID, CT__SC_AL0, 1, v)
CT__SC_LOOP(ct__sc_set_8, uint64_t, uint64_t, CT__ID, CT__ID, CT__SC_AL0, 1, v)
CT__SC_LOOP1(ct__sc_fill_1, uint8_t, uint8_t, CT__ID, CT__ID, CT__SC_AL0, 0, fv)
CT__SC_LOOP1(ct__sc_fill_2, uint16_t, uint16_t, CT__ID, CT__ID, CT__SC_AL0, 0, fv)
CT__SC_LOOP(ct__sc_fill_4, uint32_t, uint32_t, CT__ID, CT__ID, CT__SC_AL0, 0, fv)
CT__SC_LOOP(ct__sc_fill_8, uint64_t, uint64_t, CT__ID, CT__ID, CT__SC_AL0, 0, fv)
/* reductions: one expression per dtype family (floats, ints with wrap-around, bool) */
#define CT__SC_GEN(OPN, FX, IX, BX) \
    CT__SC_LOOP(ct__sc_##OPN##_f32, float, float, CT__ID, CT__ID, CT__SC_ALF, 1, FX) \
    CT__SC_LOOP(ct__sc_##OPN##_f64, double, double, CT__ID, CT__ID, CT__SC_ALD, 1, FX) \
    CT__SC_LOOP1(ct__sc_##OPN##_f16, uint16_t, float, ct__h2f, ct__f2h, CT__SC_ALF, 1, FX) \
    CT__SC_LOOP1(ct__sc_##OPN##_bf16, uint16_t, float, ct__bf2f, ct__f2bf, CT__SC_ALF, 1, FX) \
    CT__SC_LOOP(ct__sc_##OPN##_i64, int64_t, int64_t, CT__ID, CT__ID, CT__SC_ALI, 1, IX) \
    CT__SC_LOOP1(ct__sc_##OPN##_i32, int32_t, int64_t, CT__ID, CT__ID, CT__SC_ALI, 1, IX) \
    CT__SC_LOOP1(ct__sc_##OPN##_i16, int16_t, int64_t, CT__ID, CT__ID, CT__SC_ALI, 1, IX) \
    CT__SC_LOOP1(ct__sc_##OPN##_i8, int8_t, int64_t, CT__ID, CT__ID, CT__SC_ALI, 1, IX) \
    CT__SC_LOOP1(ct__sc_##OPN##_u8, uint8_t, int64_t, CT__ID, CT__ID, CT__SC_ALI, 1, IX) \
    CT__SC_LOOP1(ct__sc_##OPN##_b8, uint8_t, int64_t, CT__LDB, CT__TOB, CT__SC_ALB, 1, BX)
CT__SC_GEN(add, o + al * v, CT__IADD(o, CT__IMUL(al, v)), (o || (al && v)))
CT__SC_GEN(mul, o * v, CT__IMUL(o, v), (o && v))
CT__SC_GEN(max, ((v != v || v > o) ? v : o), (v > o ? v : o), (o || v))
CT__SC_GEN(min, ((v != v || v < o) ? v : o), (v < o ? v : o), (o && v))
#define CT__SC_TAB(OPN) {ct__sc_##OPN##_f32, ct__sc_##OPN##_f64, ct__sc_##OPN##_f16, ct__sc_##OPN##_bf16, ct__sc_##OPN##_i64, \
                         ct__sc_##OPN##_i32, ct__sc_##OPN##_i16, ct__sc_##OPN##_i8, ct__sc_##OPN##_u8, ct__sc_##OPN##_b8}
static const ct__loop_fn ct__sc_tab[4][10] = {CT__SC_TAB(add), CT__SC_TAB(mul), CT__SC_TAB(max), CT__SC_TAB(min)};
enum { CT__SC_SET = -2, CT__SC_FILL = -1, CT__SC_ADD = 0, CT__SC_MUL = 1, CT__SC_MAX = 2, CT__SC_MIN = 3 };

/* Scatter driver: for every position `pos` of the iteration shape (idxv's shape,
   which includes `dim`): out[pos with dim = index[pos]] op= src[pos]. idxv and srcv
   are views of that shape (srcv NULL for fills); out keeps its own geometry (a 0-d
   out counts as [1]). */
static int ct__sc_run(ct_tensor *out, int dim, const ct_tensor *idxv, const ct_tensor *srcv, int op, double alpha,
                      const void *fill, int wrap, ct__ixerr *e) {
    int nd = idxv->ndim;
    ct__geo go = ct__geo_ne(out);
    int64_t sq[CT_MAX_DIMS], ost[CT_MAX_DIMS];
    size_t es = ct__dt[out->dtype].size;
    for (int d = 0; d < nd; d++) { sq[d] = idxv->shape[d]; ost[d] = d == dim ? 0 : go.st[d]; }
    sq[dim] = 1;
    if (ct__shape_numel(nd, idxv->shape) == 0) return 0;
    ct_tensor ov = ct__ix_view(out, nd, sq, ost, out->offset);
    ct_tensor iv = ct__ix_view(idxv, nd, sq, idxv->strides, idxv->offset);
    ct_tensor sv = srcv ? ct__ix_view(srcv, nd, sq, srcv->strides, srcv->offset) : iv;
    ct_tensor *ops[3];
    ops[0] = &ov;
    ops[1] = &iv;
    ops[2] = &sv;
    ct__iter it;
    ct__iter_init(&it, 3, ops, nd, sq);
    ct__ixargs xa;
    ct__attrs_init(&xa.a);
    xa.a.v[0] = idxv->shape[dim];
    xa.a.v[1] = idxv->strides[dim] * (int64_t)ct__dt[idxv->dtype].size;
    xa.a.v[2] = srcv ? srcv->strides[dim] * (int64_t)ct__dt[srcv->dtype].size : 0;
    xa.a.v[3] = go.st[dim] * (int64_t)es;
    xa.a.v[4] = go.sh[dim];
    xa.a.v[5] = wrap;
    xa.a.v[6] = idxv->dtype == CT_INT32;
    xa.a.v[7] = 0;
    if (fill) memcpy(&xa.a.v[7], fill, es);
    xa.a.s[1] = alpha;
    xa.err = e;
    ct__loop_fn fn;
    if (op == CT__SC_SET) fn = ct__by_size(es, ct__sc_set_1, ct__sc_set_2, ct__sc_set_4, ct__sc_set_8);
    else if (op == CT__SC_FILL) fn = ct__by_size(es, ct__sc_fill_1, ct__sc_fill_2, ct__sc_fill_4, ct__sc_fill_8);
    else fn = ct__sc_tab[op][out->dtype];
    ct__ix_run(&it, fn, &xa.a, ct__shape_numel(nd, idxv->shape));
    return e->flag ? -1 : 0;
}
/* Checks every value of a vector index against [-size, size) (negative allowed when
   `wrap`) or [0, size); returns -1 with the bad value in e. */
static int ct__ix_check_vec(const ct_tensor *idx, int64_t size, int wrap, ct__ixerr *e) {
    int64_t n = ct__shape_numel(idx->ndim, idx->shape);
    int64_t st = idx->ndim ? idx->strides[0] : 0, es = (int64_t)ct__dt[idx->dtype].size;
    const char *p = ct__ptr(idx);
    int i32 = idx->dtype == CT_INT32;
    for (int64_t k = 0; k < n; k++) {
        int64_t v = ct__ixld(p + k * st * es, i32), w = v < 0 && wrap ? v + size : v;
        if (w < 0 || w >= size) { e->flag = 1; e->bad = v; return -1; }
    }
    return 0;
}

/* ---- index_select ------------------------------------------------------------
   PyTorch: index_select_out_cpu_. out = x with dim replaced by the index's length. */
static int ct__meta_index_select(ct__call *c) {
    ct_tensor *x = c->in[0], *idx = c->in[1];
    if (ct__ix_real("index_select", x->dtype)) return -1;
    if (idx->ndim > 1) return ct__failed(CT_ERR_INDEX, "index_select(): Index is supposed to be a vector");
    if (idx->dtype != CT_INT64 && idx->dtype != CT_INT32)
        return ct__failed(CT_ERR_DTYPE, "index_select(): Expected dtype int32 or int64 for index");
    int dim = ct__dim("index_select", c->a->i[0], x->ndim);
    if (dim < 0) return -1;
    int64_t n = ct_numel(idx);
    if (x->ndim > 0 && x->shape[dim] == 0 && n > 0)
        return ct__failed(CT_ERR_INDEX, "index_select(): self indexing axis dim should be positive");
    int64_t shape[CT_MAX_DIMS] = {0};
    for (int d = 0; d < x->ndim; d++) shape[d] = x->shape[d];
    if (x->ndim) shape[dim] = n;
    ct__out_new(c, x->dtype, x->ndim, shape);
    return 0;
}
typedef struct { int64_t n; uint32_t * os; const uint32_t * xs; int64_t size; const int64_t * iv; } ct__k_index_select_c1;
static void ct__k_index_select_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__k_index_select_c1 *q_ = (const ct__k_index_select_c1 *)c_;
    int64_t n = q_->n; (void)n;
    uint32_t * os = q_->os; (void)os;
    const uint32_t * xs = q_->xs; (void)xs;
    int64_t size = q_->size; (void)size;
    const int64_t * iv = q_->iv; (void)iv;
    for (int64_t o = (int64_t)lo_; o < hi_; o++) {
                for (int64_t j = 0; j < n; j++) os[o * n + j] = xs[o * size + iv[j]];
            }
}
typedef struct { int64_t n; const char * xp; int64_t size; const int64_t * iv; size_t bytes; char * op; size_t es; } ct__k_index_select_c2;
static void ct__k_index_select_b2(void *c_, int64_t lo_, int64_t hi_) {
    const ct__k_index_select_c2 *q_ = (const ct__k_index_select_c2 *)c_;
    int64_t n = q_->n; (void)n;
    const char * xp = q_->xp; (void)xp;
    int64_t size = q_->size; (void)size;
    const int64_t * iv = q_->iv; (void)iv;
    size_t bytes = q_->bytes; (void)bytes;
    char * op = q_->op; (void)op;
    size_t es = q_->es; (void)es;
    for (int64_t r = (int64_t)lo_; r < hi_; r++) {
                int64_t o = r / n, j = r - o * n;
                const char *src = xp + (size_t)(o * size + iv[j]) * bytes;
                char *dst = op + (size_t)r * bytes;
                if (bytes == es) ct__elcp(dst, src, es);
                else memcpy(dst, src, bytes);
            }
}
static int ct__k_index_select(ct__call *c) {
    ct_tensor *x = c->in[0], *idx = c->in[1], *out = c->out[0];
    int dim = ct__wrap_dim((int)c->a->i[0], x->ndim);
    ct__geo gx = ct__geo_ne(x);
    int64_t n = ct_numel(idx), size = gx.sh[dim];
    ct__ixerr e = {0, 0};
    if (ct__ix_check_vec(idx, size, 0, &e))
        return ct__failed(CT_ERR_INDEX, "index_select(): index out of range in self (index %lld, size %lld)", (long long)e.bad, (long long)size);
    if (ct_numel(out) == 0) return 0;
    size_t es = ct__dt[x->dtype].size;
    if (x->ndim == 0) { memcpy(ct__ptr(out), ct__ptr(x), es); return 0; }
    if (ct__is_contig(x)) {
        /* rows of the inner dims are contiguous: copy them whole */
        int64_t outer = 1, inner = 1;
        for (int d = 0; d < dim; d++) outer *= x->shape[d];
        for (int d = dim + 1; d < x->ndim; d++) inner *= x->shape[d];
        ct_tensor *ix = idx->dtype == CT_INT64 && ct__is_contig(idx) ? ct__incref(idx) : ct__convert(idx, CT_INT64);
        if (!ix) return -1;
        const int64_t *iv = (const int64_t *)ct__ptr(ix);
        const char *xp = ct__ptr(x);
        char *op = ct__ptr(out);
        int64_t rows = outer * n;
        size_t bytes = (size_t)inner * es;
        if (inner == 1 && es == 4) {
            const uint32_t *xs = (const uint32_t *)xp;
            uint32_t *os = (uint32_t *)op;
    int ct__par = (rows >= 4 * CT__GRAIN) && ct__par_threads() > 1;
            ct__k_index_select_c1 q1_ = {n, os, xs, size, iv}; ct__rrun(outer, ct__par, ct__k_index_select_b1, &q1_);
        } else {
    int ct__par = ((int64_t)bytes * rows >= ((int64_t)1 << 20)) && ct__par_threads() > 1;
            ct__k_index_select_c2 q2_ = {n, xp, size, iv, bytes, op, es}; ct__rrun(rows, ct__par, ct__k_index_select_b2, &q2_);
        }
        ct__decref(ix);
        return 0;
    }
    /* strided input: gather element by element through the iterator */
    {
        int64_t xst[CT_MAX_DIMS], ist[CT_MAX_DIMS];
        for (int d = 0; d < x->ndim; d++) { xst[d] = d == dim ? 0 : x->strides[d]; ist[d] = 0; }
        ist[dim] = idx->ndim ? idx->strides[0] : 0;
        ct_tensor xv = ct__ix_view(x, x->ndim, out->shape, xst, x->offset);
        ct_tensor iv = ct__ix_view(idx, x->ndim, out->shape, ist, idx->offset);
        ct_tensor *ops[3];
        ops[0] = out;
        ops[1] = &xv;
        ops[2] = &iv;
        ct__iter it;
        ct__iter_init(&it, 3, ops, out->ndim, out->shape);
        ct__ixargs xa;
        ct__attrs_init(&xa.a);
        xa.a.v[0] = x->strides[dim] * (int64_t)es;
        xa.a.v[1] = size;
        xa.a.v[2] = 0;
        xa.a.v[3] = idx->dtype == CT_INT32;
        xa.err = &e;
        ct__ix_run(&it, ct__by_size(es, ct__gather_1, ct__gather_2, ct__gather_4, ct__gather_8), &xa.a, it.numel);
    }
    return 0;
}

/* ---- gather / scatter family (PyTorch: ScatterGatherChecks.h) ------------------
   0-d tensors act as [1]. The index may be smaller than self (and src) in every dim. */
static int ct__meta_gather(ct__call *c) {
    ct_tensor *x = c->in[0], *idx = c->in[1];
    if (ct__ix_real("gather", x->dtype)) return -1;
    int dim = ct__dim("gather", c->a->i[0], x->ndim);
    if (dim < 0) return -1;
    if (idx->dtype != CT_INT64) return ct__failed(CT_ERR_DTYPE, "gather(): Expected dtype int64 for index");
    ct__geo gx = ct__geo_ne(x), gi = ct__geo_ne(idx);
    if (gx.nd != gi.nd) return ct__failed(CT_ERR_SHAPE, "gather: Index tensor must have the same number of dimensions as input tensor");
    for (int d = 0; d < gx.nd; d++)
        if (d != dim && gi.sh[d] > gx.sh[d])
            return ct__failed(CT_ERR_SHAPE, "gather: Size does not match at dimension %d expected index %s to be smaller than self %s apart from dimension %d",
                              d, CT__SHAPE(idx), CT__SHAPE(x), dim);
    ct__out_new(c, x->dtype, idx->ndim, idx->shape);
    return 0;
}
static int ct__k_gather(ct__call *c) {
    ct_tensor *x = c->in[0], *idx = c->in[1], *out = c->out[0];
    int dim = ct__wrap_dim((int)c->a->i[0], x->ndim);
    if (ct_numel(out) == 0) return 0;
    ct__geo gx = ct__geo_ne(x), gi = ct__geo_ne(idx), gout = ct__geo_ne(out);
    int64_t xst[CT_MAX_DIMS];
    size_t es = ct__dt[x->dtype].size;
    for (int d = 0; d < gi.nd; d++) xst[d] = d == dim ? 0 : gx.st[d];
    ct_tensor xv = ct__ix_view(x, gi.nd, gi.sh, xst, x->offset);
    ct_tensor iv = ct__ix_view(idx, gi.nd, gi.sh, gi.st, idx->offset);
    ct_tensor ov = ct__ix_view(out, gi.nd, gi.sh, gout.st, out->offset);
    ct_tensor *ops[3];
    ops[0] = &ov;
    ops[1] = &xv;
    ops[2] = &iv;
    ct__iter it;
    ct__iter_init(&it, 3, ops, gi.nd, gi.sh);
    ct__ixargs xa;
    ct__attrs_init(&xa.a);
    ct__ixerr e = {0, 0};
    xa.a.v[0] = gx.st[dim] * (int64_t)es;
    xa.a.v[1] = gx.sh[dim];
    xa.a.v[2] = 0;
    xa.a.v[3] = 0;
    xa.err = &e;
    ct__ix_run(&it, ct__by_size(es, ct__gather_1, ct__gather_2, ct__gather_4, ct__gather_8), &xa.a, it.numel);
    if (e.flag)
        return ct__failed(CT_ERR_INDEX, "gather: index %lld is out of bounds for dimension %d with size %lld", (long long)e.bad, dim, (long long)gx.sh[dim]);
    return 0;
}

/* scatter (src or value), scatter_add, scatter_reduce: a->i[0] dim, a->s[0] value,
   a->mode the reduction (0 sum, 1 prod, 2 mean, 3 amax, 4 amin), a->flags bit 0 include_self */
static const char *const ct__reduce_names[5] = {"sum", "prod", "mean", "amax", "amin"};
static int ct__meta_scatter(ct__call *c) {
    const char *name = ct__ops[c->op].name;
    ct_tensor *x = c->in[0], *idx = c->in[1], *src = c->nin > 2 ? c->in[2] : NULL;
    if (ct__ix_real(name, x->dtype)) return -1;
    int dim = ct__dim(name, c->a->i[0], x->ndim);
    if (dim < 0) return -1;
    if (idx->dtype != CT_INT64) return ct__failed(CT_ERR_DTYPE, "scatter(): Expected dtype int64 for index");
    if (src && src->dtype != x->dtype) return ct__failed(CT_ERR_DTYPE, "scatter(): Expected self.dtype to be equal to src.dtype");
    if (c->op == CT__OP_SCATTER_REDUCE && (c->a->mode < 0 || c->a->mode > 4))
        return ct__failed(CT_ERR_ARG, "scatter_reduce: reduce argument must be either sum, prod, mean, amax or amin, got %d", (int)c->a->mode);
    if (c->op == CT__OP_SCATTER_REDUCE && c->a->mode == 2 && x->dtype == CT_BOOL)
        return ct__failed(CT_ERR_DTYPE, "scatter_reduce: \"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'");
    ct__geo gx = ct__geo_ne(x), gi = ct__geo_ne(idx), gs = src ? ct__geo_ne(src) : gi;
    if (gi.nd != gx.nd) return ct__failed(CT_ERR_SHAPE, "%s: Index tensor must have the same number of dimensions as self tensor", name);
    if (src && gs.nd != gi.nd) return ct__failed(CT_ERR_SHAPE, "%s: Index tensor must have the same number of dimensions as src tensor", name);
    if (ct_numel(idx) > 0)
        for (int d = 0; d < gx.nd; d++) {
            if ((d != dim && gi.sh[d] > gx.sh[d]) || (src && gi.sh[d] > gs.sh[d])) {
                if (src)
                    return ct__failed(CT_ERR_SHAPE, "%s: Expected index %s to be smaller than self %s apart from dimension %d and to be smaller size than src %s",
                                      name, CT__SHAPE(idx), CT__SHAPE(x), dim, CT__SHAPE(src));
                return ct__failed(CT_ERR_SHAPE, "%s: Expected index %s to be smaller than self %s apart from dimension %d", name, CT__SHAPE(idx),
                                  CT__SHAPE(x), dim);
            }
        }
    ct__ix_out_self(c);
    return 0;
}
/* identity of a reduction in dtype dt, as bits (sum/mean 0, prod 1, amax lowest, amin highest) */
static void ct__reduce_identity(ct_dtype dt, int mode, unsigned char *bits) {
    memset(bits, 0, 8);
    if (mode == 0 || mode == 2) return;
    if (mode == 1) { ct__store_f64(bits, dt, 1.0); return; }
    int hi = mode == 4;
    if (CT__ISFLOAT(dt)) { ct__store_f64(bits, dt, hi ? INFINITY : -INFINITY); return; }
    switch (dt) {
    case CT_INT64: ct__store_i64(bits, dt, hi ? INT64_MAX : INT64_MIN); break;
    case CT_INT32: ct__store_i64(bits, dt, hi ? INT32_MAX : INT32_MIN); break;
    case CT_INT16: ct__store_i64(bits, dt, hi ? INT16_MAX : INT16_MIN); break;
    case CT_INT8: ct__store_i64(bits, dt, hi ? INT8_MAX : INT8_MIN); break;
    case CT_UINT8: ct__store_i64(bits, dt, hi ? 255 : 0); break;
    default: ct__store_i64(bits, dt, hi ? 1 : 0); break;
    }
}
/* out /= count (count 0 -> 1); integers divide with floor, as PyTorch's mean does */
#define CT__DIVCNT_LOOP(fname, T, C, LD, ST, EXPR) \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) { \
        (void)a; \
        for (int64_t k = 0; k < n; k++) { \
            T *q = (T *)(p[0] + k * s[0]); \
            int64_t cn = *(const int64_t *)(p[1] + k * s[1]); \
            C o = LD(*q); \
            if (cn == 0) cn = 1; \
            *q = ST(EXPR); \
        } \
    }
CT__INLINE int64_t ct__floordiv64(int64_t a, int64_t b) {
    if (b == -1) return CT__IW(0u - (uint64_t)a);
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}
CT__DIVCNT_LOOP(ct__divcnt_f32, float, float, CT__ID, CT__ID, o / (float)cn)
CT__DIVCNT_LOOP(ct__divcnt_f64, double, double, CT__ID, CT__ID, o / (double)cn)
CT__DIVCNT_LOOP(ct__divcnt_f16, uint16_t, float, ct__h2f, ct__f2h, o / (float)cn)
CT__DIVCNT_LOOP(ct__divcnt_bf16, uint16_t, float, ct__bf2f, ct__f2bf, o / (float)cn)
CT__DIVCNT_LOOP(ct__divcnt_i64, int64_t, int64_t, CT__ID, CT__ID, ct__floordiv64(o, cn))
CT__DIVCNT_LOOP(ct__divcnt_i32, int32_t, int64_t, CT__ID, CT__ID, ct__floordiv64(o, cn))
CT__DIVCNT_LOOP(ct__divcnt_i16, int16_t, int64_t, CT__ID, CT__ID, ct__floordiv64(o, cn))
CT__DIVCNT_LOOP(ct__divcnt_i8, int8_t, int64_t, CT__ID, CT__ID, ct__floordiv64(o, cn))
CT__DIVCNT_LOOP(ct__divcnt_u8, uint8_t, int64_t, CT__ID, CT__ID, ct__floordiv64(o, cn))
static const ct__loop_fn ct__divcnt_tab[9] = {ct__divcnt_f32, ct__divcnt_f64, ct__divcnt_f16, ct__divcnt_bf16, ct__divcnt_i64,
                                              ct__divcnt_i32, ct__divcnt_i16, ct__divcnt_i8, ct__divcnt_u8};
static int ct__k_scatter(ct__call *c) {
    ct_tensor *x = c->in[0], *idx = c->in[1], *src = c->nin > 2 ? c->in[2] : NULL, *out = c->out[0], *tmp = NULL;
    int dim = ct__wrap_dim((int)c->a->i[0], x->ndim), rc = 0;
    ct__ixerr e = {0, 0};
    if (out != x && ct__ix_copy(out, x)) return -1;
    if (ct_numel(idx) == 0) return 0;
    if (src && src->storage == out->storage) {   /* x.scatter_(d, i, x): read a copy */
        if (!(tmp = ct__clone_detached(src))) return -1;
        src = tmp;
    }
    ct__geo gi = ct__geo_ne(idx), gs = src ? ct__geo_ne(src) : gi;
    ct_tensor iv = ct__ix_view(idx, gi.nd, gi.sh, gi.st, idx->offset);
    ct_tensor sv = src ? ct__ix_view(src, gi.nd, gi.sh, gs.st, src->offset) : iv;
    const ct_tensor *svp = src ? &sv : NULL;
    unsigned char bits[8];
    switch (c->op) {
    case CT__OP_SCATTER: rc = ct__sc_run(out, dim, &iv, svp, CT__SC_SET, 1.0, NULL, 0, &e); break;
    case CT__OP_SCATTER_VALUE:
        memset(bits, 0, sizeof bits);
        ct__store_f64(bits, out->dtype, c->a->s[0]);
        rc = ct__sc_run(out, dim, &iv, NULL, CT__SC_FILL, 1.0, bits, 0, &e);
        break;
    case CT__OP_SCATTER_ADD: rc = ct__sc_run(out, dim, &iv, svp, CT__SC_ADD, 1.0, NULL, 0, &e); break;
    default: {
        /* scatter_reduce (PyTorch: scatter_reduce_two_cpu) */
        static const int ops[5] = {CT__SC_ADD, CT__SC_MUL, CT__SC_ADD, CT__SC_MAX, CT__SC_MIN};
        int mode = c->a->mode, include_self = c->a->flags & 1;
        if (!include_self) {
            ct__reduce_identity(out->dtype, mode, bits);
            rc = ct__sc_run(out, dim, &iv, NULL, CT__SC_FILL, 1.0, bits, 0, &e);
        }
        if (!rc) rc = ct__sc_run(out, dim, &iv, svp, ops[mode], 1.0, NULL, 0, &e);
        if (!rc && mode == 2) {
            ct_tensor *cnt = ct__alloc(CT_INT64, out->ndim, out->shape, NULL, out->device);
            if (!cnt) { rc = -1; break; }
            ct__fill_raw(cnt, include_self ? 1.0 : 0.0);
            int64_t one = 1, zst[CT_MAX_DIMS];
            ct_storage ost;
            memset(&ost, 0, sizeof ost);
            ost.data = &one;
            for (int d = 0; d < gi.nd; d++) zst[d] = 0;
            ct_tensor onev = ct__ix_view(cnt, gi.nd, gi.sh, zst, 0);
            onev.storage = &ost;
            rc = ct__sc_run(cnt, dim, &iv, &onev, CT__SC_ADD, 1.0, NULL, 0, &e);
            if (!rc) {
                ct_tensor *ops2[2];
                ops2[0] = out;
                ops2[1] = cnt;
                ct__iter it;
                ct__iter_init(&it, 2, ops2, out->ndim, out->shape);
                ct__attrs a;
                ct__attrs_init(&a);
                ct__iter_run(&it, ct__divcnt_tab[out->dtype], &a);
            }
            ct__decref(cnt);
        }
    }
    }
    if (tmp) ct__decref(tmp);
    if (rc && e.flag)
        return ct__failed(CT_ERR_INDEX, "%s: index %lld is out of bounds for dimension %d with size %lld", ct__ops[c->op].name,
                          (long long)e.bad, dim, (long long)ct__geo_ne(out).sh[dim]);
    return rc;
}

/* ---- index_add / index_copy / index_fill -----------------------------------------
   x[..., index[j], ...] (op)= src[..., j, ...] along dim; a->i[0] dim, a->s[0] alpha
   (index_add) or value (index_fill). index_add's source slice broadcasts to self's
   slice (PyTorch adds slice by slice with add_). */
static int ct__slice_dims(const ct_tensor *t, int dim, int64_t *out) {
    int n = 0;
    for (int d = 0; d < t->ndim; d++)
        if (d != dim) out[n++] = t->shape[d];
    return n;
}
static int ct__meta_index_add(ct__call *c) {
    ct_tensor *x = c->in[0], *idx = c->in[1], *src = c->op != CT__OP_INDEX_FILL ? c->in[2] : NULL;
    const char *name = ct__ops[c->op].name;
    if (ct__ix_real(name, x->dtype)) return -1;
    int dim = ct__dim(name, c->a->i[0], x->ndim);
    if (dim < 0) return -1;
    int64_t n = ct_numel(idx), xs[CT_MAX_DIMS] = {0}, ss[CT_MAX_DIMS] = {0};   /* zeroed: the GPU machine's host gcc under nvcc -O2 reports them maybe uninitialized */
    if (c->op == CT__OP_INDEX_ADD) {
        if (idx->ndim > 1)
            return ct__failed(CT_ERR_INDEX, "index_add_(): Index is supposed to be a vector, but got dim: %d with type: %s and size: %s", idx->ndim,
                              CT__DTNAME(idx->dtype), CT__SHAPE(idx));
        if (idx->dtype != CT_INT64 && idx->dtype != CT_INT32)
            return ct__failed(CT_ERR_DTYPE, "index_add_(): Expected dtype int32/int64 for index but got: %s", CT__DTNAME(idx->dtype));
        if (src->dtype != x->dtype)
            return ct__failed(CT_ERR_DTYPE, "index_add_(): self (%s) and source (%s) must have the same scalar type", CT__DTNAME(x->dtype), CT__DTNAME(src->dtype));
        if (!(dim == 0 || dim < src->ndim))
            return ct__failed(CT_ERR_INDEX, "index_add_(): Indexing dim %d is out of bounds of the source tensor with dim %d", dim, src->ndim);
        int64_t sn = src->ndim == 0 ? 1 : src->shape[dim];
        if (n != sn)
            return ct__failed(CT_ERR_SHAPE, "index_add_(): Number of indices (%lld) should be equal to source.size(dim): (%lld), for dim: %d", (long long)n,
                              (long long)sn, dim);
        int nx = x->ndim ? ct__slice_dims(x, dim, xs) : 0, ns = src->ndim ? ct__slice_dims(src, dim, ss) : 0;
        if (ns > nx) {
            int64_t b[CT_MAX_DIMS];
            int nb = ct__bshape2(nx, xs, ns, ss, b);
            return ct__failed(CT_ERR_SHAPE, "index_add_(): output with shape %s doesn't match the broadcast shape %s", ct__fmt_shape(nx, xs).s,
                              ct__fmt_shape(nb, b).s);
        }
        for (int d = 0; d < ns; d++) {
            int64_t a = xs[nx - ns + d], b = ss[d];
            if (a != b && b != 1) {
                if (a == 1)
                    return ct__failed(CT_ERR_SHAPE, "index_add_(): output with shape %s doesn't match the broadcast shape", ct__fmt_shape(nx, xs).s);
                return ct__failed(CT_ERR_SHAPE, "index_add_(): The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d",
                                  (long long)a, (long long)b, nx - ns + d);
            }
        }
    } else if (c->op == CT__OP_INDEX_COPY) {
        if (idx->ndim >= 2) return ct__failed(CT_ERR_INDEX, "index_copy_(): Index should have dimension 1 or 0 (got %d)", idx->ndim);
        if (src->ndim == 0 && n != 1)
            return ct__failed(CT_ERR_INDEX, "index_copy_(): When source is scalar, index should have one element (got %lld)", (long long)n);
        if (src->ndim != x->ndim && src->ndim != 0 && x->ndim != 0)
            return ct__failed(CT_ERR_INDEX, "index_copy_(): When source and destination are not scalars, their dimensionality must match. Source dimensionality (%d), destination dimensionality (%d)",
                              src->ndim, x->ndim);
        if (idx->dtype != CT_INT64) return ct__failed(CT_ERR_DTYPE, "index_copy_(): Expected a long tensor for index, but got %s", CT__DTNAME(idx->dtype));
        if (src->dtype != x->dtype)
            return ct__failed(CT_ERR_DTYPE, "index_copy_(): self and source expected to have the same dtype, but got (self) %s and (source) %s",
                              CT__DTNAME(x->dtype), CT__DTNAME(src->dtype));
        int nx = x->ndim ? ct__slice_dims(x, dim, xs) : 0, ns = src->ndim ? ct__slice_dims(src, dim, ss) : 0, same = nx == ns;
        for (int d = 0; same && d < nx; d++) same = xs[d] == ss[d];
        if (!same)
            return ct__failed(CT_ERR_SHAPE, "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: %s at dimension %d and source slice shape: %s at dimension 0.",
                              ct__fmt_sizes_sp(nx, xs).s, dim, ct__fmt_sizes_sp(ns, ss).s);
        if (src->ndim != 0 && n != src->shape[dim])
            return ct__failed(CT_ERR_INDEX, "index_copy_(): Number of indices (%lld) should be equal to source.size(dim) (%lld)", (long long)n,
                              (long long)src->shape[dim]);
    } else {
        if (idx->dtype != CT_INT64) return ct__failed(CT_ERR_INDEX, "index_fill_(): Expected dtype int64 for index.");
        if (idx->ndim > 1) return ct__failed(CT_ERR_SHAPE, "index_fill_(): Index has to be a vector/scalar");
    }
    ct__ix_out_self(c);
    return 0;
}
static int ct__k_index_add(ct__call *c) {
    ct_tensor *x = c->in[0], *idx = c->in[1], *src = c->op != CT__OP_INDEX_FILL ? c->in[2] : NULL, *out = c->out[0], *tmp = NULL;
    int dim = ct__wrap_dim((int)c->a->i[0], x->ndim), rc;
    ct__ixerr e = {0, 0};
    ct__geo go = ct__geo_ne(out);
    int64_t n = ct_numel(idx), size = go.sh[dim];
    if (out != x && ct__ix_copy(out, x)) return -1;
    if (ct__ix_check_vec(idx, size, c->op == CT__OP_INDEX_FILL, &e)) {
        if (c->op == CT__OP_INDEX_ADD)
            return ct__failed(CT_ERR_INDEX, "index_add_(): index out of range in self (index %lld, size %lld)", (long long)e.bad, (long long)size);
        return ct__failed(CT_ERR_INDEX, "%s_(): index %lld is out of bounds for dimension %d with size %lld", ct__ops[c->op].name,
                          (long long)e.bad, dim, (long long)size);
    }
    if (n == 0 || ct_numel(out) == 0) return 0;
    if (src && src->storage == out->storage) {
        if (!(tmp = ct__clone_detached(src))) return -1;
        src = tmp;
    }
    /* iteration shape: out's with dim -> n; the index runs along dim only */
    int64_t ish[CT_MAX_DIMS], ist[CT_MAX_DIMS], sst[CT_MAX_DIMS];
    for (int d = 0; d < go.nd; d++) { ish[d] = go.sh[d]; ist[d] = 0; sst[d] = 0; }
    ish[dim] = n;
    ist[dim] = idx->ndim ? idx->strides[0] : 0;
    ct_tensor iv = ct__ix_view(idx, go.nd, ish, ist, idx->offset);
    ct_tensor sv;
    if (src) {
        /* source dim `dim` runs with the index; its other dims align right with out's */
        if (src->ndim > 0) {
            int os_[CT_MAX_DIMS], no = 0, ssd[CT_MAX_DIMS], ns = 0;
            for (int d = 0; d < go.nd; d++) if (d != dim) os_[no++] = d;
            for (int d = 0; d < src->ndim; d++) if (d != dim) ssd[ns++] = d;
            sst[dim] = src->strides[dim];
            for (int k = 0; k < ns; k++) {
                int sd = ssd[k], od = os_[no - ns + k];
                sst[od] = src->shape[sd] == 1 ? 0 : src->strides[sd];
            }
        }
        sv = ct__ix_view(src, go.nd, ish, sst, src->offset);
    }
    if (c->op == CT__OP_INDEX_ADD) {
        rc = ct__sc_run(out, dim, &iv, &sv, CT__SC_ADD, c->a->s[0], NULL, 0, &e);
    } else if (c->op == CT__OP_INDEX_COPY) {
        rc = ct__sc_run(out, dim, &iv, &sv, CT__SC_SET, 1.0, NULL, 0, &e);
    } else {
        unsigned char bits[8];
        memset(bits, 0, sizeof bits);
        ct__store_f64(bits, out->dtype, c->a->s[0]);
        rc = ct__sc_run(out, dim, &iv, NULL, CT__SC_FILL, 1.0, bits, 1, &e);
    }
    if (tmp) ct__decref(tmp);
    return rc;
}

/* ---- take: x.flatten()[index] (negative indices count from the end) ---- */
static int ct__meta_take(ct__call *c) {
    ct_tensor *x = c->in[0], *idx = c->in[1];
    if (ct__ix_real("take", x->dtype)) return -1;
    if (idx->dtype != CT_INT64) return ct__failed(CT_ERR_DTYPE, "take(): Expected a long tensor for index, but got %s", CT__DTNAME(idx->dtype));
    if (ct_numel(x) == 0 && ct_numel(idx) > 0) return ct__failed(CT_ERR_INDEX, "take(): tried to take from an empty tensor");
    ct__out_new(c, x->dtype, idx->ndim, idx->shape);
    return 0;
}
static int ct__k_take(ct__call *c) {
    ct_tensor *x = c->in[0], *idx = c->in[1], *out = c->out[0];
    if (ct_numel(out) == 0) return 0;
    ct_tensor *xc = ct__contig_ref(x);
    if (!xc) return -1;
    int64_t zst[CT_MAX_DIMS], numel = ct_numel(x);
    size_t es = ct__dt[x->dtype].size;
    for (int d = 0; d < CT_MAX_DIMS; d++) zst[d] = 0;
    ct_tensor xv = ct__ix_view(xc, idx->ndim, idx->shape, zst, xc->offset);
    ct_tensor *ops[3];
    ops[0] = out;
    ops[1] = &xv;
    ops[2] = idx;
    ct__iter it;
    ct__iter_init(&it, 3, ops, idx->ndim, idx->shape);
    ct__ixargs xa;
    ct__attrs_init(&xa.a);
    ct__ixerr e = {0, 0};
    xa.a.v[0] = (int64_t)es;
    xa.a.v[1] = numel;
    xa.a.v[2] = 1;
    xa.a.v[3] = 0;
    xa.err = &e;
    ct__ix_run(&it, ct__by_size(es, ct__gather_1, ct__gather_2, ct__gather_4, ct__gather_8), &xa.a, it.numel);
    ct__decref(xc);
    if (e.flag)
        return ct__failed(CT_ERR_INDEX, "take(): out of range: tried to access index %lld on a tensor of %lld elements.", (long long)e.bad, (long long)numel);
    return 0;
}

/* ---- advanced indexing: index (x[indices]) and index_put ---------------------------
   Inputs: x, [values,] then one int64 tensor per indexed dim; a->i[1] is the mask of
   indexed dims (bit d: dim d has an index tensor, PyTorch's Tensor?[] indices with
   None elsewhere), flags bit 0 accumulate. The index tensors broadcast together; their
   shape replaces the indexed dims in place when those are adjacent, else goes first
   (NumPy / PyTorch rules). Kernels turn the indices into element offsets once. */
typedef struct ct__ixmap {
    int nd, bnd;
    int64_t shape[CT_MAX_DIMS], bshape[CT_MAX_DIMS];
    int xdim[CT_MAX_DIMS], bdim[CT_MAX_DIMS];   /* per result dim: source dim of x or of the index shape, else -1 */
} ct__ixmap;
static int ct__index_map(const char *op, const ct_tensor *x, uint32_t mask, int nidx, ct_tensor *const *idx, ct__ixmap *m) {
    /* broadcast the index shapes */
    int bnd = 0;
    for (int k = 0; k < nidx; k++) if (idx[k]->ndim > bnd) bnd = idx[k]->ndim;
    for (int d = 0; d < bnd; d++) {
        int64_t s = 1;
        for (int k = 0; k < nidx; k++) {
            int kd = d - (bnd - idx[k]->ndim);
            if (kd < 0 || idx[k]->shape[kd] == 1) continue;
            if (s != 1 && idx[k]->shape[kd] != s) {
                char buf[600];
                size_t n = 0;
                buf[0] = 0;
                for (int q = 0; q < nidx && n < sizeof buf - 220; q++)
                    n += (size_t)snprintf(buf + n, sizeof buf - n, q ? ", %s" : "%s", CT__SHAPE(idx[q]));
                return ct__failed(CT_ERR_INDEX, "%s: shape mismatch: indexing tensors could not be broadcast together with shapes %s", op, buf);
            }
            s = idx[k]->shape[kd];
        }
        if (s == 1)
            for (int k = 0; k < nidx; k++) {
                int kd = d - (bnd - idx[k]->ndim);
                if (kd >= 0 && idx[k]->shape[kd] == 0) s = 0;
            }
        m->bshape[d] = s;
    }
    m->bnd = bnd;
    int first = -1, last = -1, adjacent = 1, nkept = 0;
    for (int d = 0; d < x->ndim; d++)
        if (mask & (1u << d)) { if (first < 0) first = d; last = d; }
        else nkept++;
    for (int d = first; d <= last; d++) adjacent &= (mask >> d) & 1u;
    if (nkept + bnd > CT_MAX_DIMS)
        return ct__failed(CT_ERR_ARG, "%s: the result would have %d dimensions (the maximum is %d)", op, nkept + bnd, CT_MAX_DIMS);
    int n = 0;
    if (!adjacent) {
        for (int b = 0; b < bnd; b++) { m->shape[n] = m->bshape[b]; m->xdim[n] = -1; m->bdim[n++] = b; }
        for (int d = 0; d < x->ndim; d++)
            if (!(mask & (1u << d))) { m->shape[n] = x->shape[d]; m->xdim[n] = d; m->bdim[n++] = -1; }
    } else {
        for (int d = 0; d < x->ndim; d++) {
            if (d == first)
                for (int b = 0; b < bnd; b++) { m->shape[n] = m->bshape[b]; m->xdim[n] = -1; m->bdim[n++] = b; }
            if (!(mask & (1u << d))) { m->shape[n] = x->shape[d]; m->xdim[n] = d; m->bdim[n++] = -1; }
        }
    }
    m->nd = n;
    return 0;
}
/* Element offsets (over t's strides) of every position of the broadcast index shape. */
static ct_tensor *ct__index_offsets(const ct_tensor *t, uint32_t mask, int nidx, ct_tensor *const *idx, const ct__ixmap *m,
                                    ct__ixerr *e, int *bad_dim) {
    ct_tensor *off = ct__alloc(CT_INT64, m->bnd, m->bshape, NULL, ct__cpu_dev);
    if (!off) return NULL;
    int64_t total = ct__shape_numel(m->bnd, m->bshape);
    memset(ct__ptr(off), 0, sizeof(int64_t) * (size_t)total);
    if (total == 0) return off;
    int k = 0;
    for (int d = 0; d < t->ndim && k < nidx; d++) {
        if (!(mask & (1u << d))) continue;
        ct_tensor *ops[2];
        ops[0] = off;
        ops[1] = idx[k++];
        ct__cw w;
        ct__cw_init(&w, 2, ops, m->bnd, m->bshape);
        int64_t inner = CT__CW_INNER(&w), s0 = CT__CW_ST(&w, 0), s1 = CT__CW_ST(&w, 1), size = t->shape[d], st = t->strides[d];
        do {
            for (int64_t j = 0; j < inner; j++) {
                int64_t v = *(const int64_t *)(w.p[1] + j * s1), ix = v < 0 ? v + size : v;
                if (ix < 0 || ix >= size) {
                    e->flag = 1;
                    e->bad = v;
                    *bad_dim = d;
                    ct__decref(off);
                    return NULL;
                }
                *(int64_t *)(w.p[0] + j * s0) += ix * st;
            }
        } while (ct__cw_next(&w));
    }
    return off;
}
static int ct__meta_index(ct__call *c) {
    int put = c->op == CT__OP_INDEX_PUT, first = put ? 2 : 1, nidx = c->nin - first;
    const char *name = ct__ops[c->op].name;
    ct_tensor *x = c->in[0], *values = put ? c->in[1] : NULL;
    uint32_t mask = (uint32_t)c->a->i[1];
    int bits = 0;
    if (ct__ix_real(name, x->dtype)) return -1;
    for (int d = 0; d < CT_MAX_DIMS; d++) bits += (mask >> d) & 1u;
    if (nidx <= 0 || bits != nidx || (x->ndim < 32 && (mask >> x->ndim) != 0))
        return ct__failed(CT_ERR_ARG, "%s: the index list does not match the %d index tensors given", name, nidx);
    for (int k = 0; k < nidx; k++)
        if (c->in[first + k]->dtype != CT_INT64)
            return ct__failed(CT_ERR_INDEX, "%s: tensors used as indices must be long, byte or bool tensors", name);
    ct__ixmap m;
    if (ct__index_map(name, x, mask, nidx, c->in + first, &m)) return -1;
    if (!put) {
        ct__out_new(c, x->dtype, m.nd, m.shape);
        return 0;
    }
    if (values->dtype != x->dtype)
        return ct__failed(CT_ERR_DTYPE, "Index put requires the source and destination dtypes match, got %s for the destination and %s for the source.",
                          CT__DTNAME(x->dtype), CT__DTNAME(values->dtype));
    int ok = values->ndim <= m.nd;
    for (int d = 0; ok && d < values->ndim; d++) {
        int64_t v = values->shape[d], r = m.shape[m.nd - values->ndim + d];
        ok = v == r || v == 1;
    }
    if (!ok)
        return ct__failed(CT_ERR_SHAPE, "index_put: shape mismatch: value tensor of shape %s cannot be broadcast to indexing result of shape %s",
                          CT__SHAPE(values), ct__fmt_shape(m.nd, m.shape).s);
    ct__ix_out_self(c);
    return 0;
}
/* views of t and of the offsets laid out over the result shape */
static void ct__index_views(const ct_tensor *t, const ct_tensor *off, const ct__ixmap *m, ct_tensor *tv, ct_tensor *ov) {
    int64_t ts[CT_MAX_DIMS], os[CT_MAX_DIMS];
    for (int d = 0; d < m->nd; d++) {
        ts[d] = m->xdim[d] >= 0 ? t->strides[m->xdim[d]] : 0;
        os[d] = m->bdim[d] >= 0 ? off->strides[m->bdim[d]] : 0;
    }
    *tv = ct__ix_view(t, m->nd, m->shape, ts, t->offset);
    *ov = ct__ix_view(off, m->nd, m->shape, os, off->offset);
}
static int ct__index_oob(const char *op, const ct_tensor *t, const ct__ixerr *e, int d) {
    return ct__failed(CT_ERR_INDEX, "%s: index %lld is out of bounds for dimension %d with size %lld", op, (long long)e->bad, d, (long long)t->shape[d]);
}
static int ct__k_index(ct__call *c) {
    ct_tensor *x = c->in[0], *out = c->out[0];
    int nidx = c->nin - 1, bad = 0;
    uint32_t mask = (uint32_t)c->a->i[1];
    ct__ixmap m;
    ct__ixerr e = {0, 0};
    if (ct__index_map("index", x, mask, nidx, c->in + 1, &m)) return -1;
    ct_tensor *off = ct__index_offsets(x, mask, nidx, c->in + 1, &m, &e, &bad);
    if (!off) return e.flag ? ct__index_oob("index", x, &e, bad) : -1;
    if (ct_numel(out) > 0) {
        ct_tensor xv, ov;
        ct__index_views(x, off, &m, &xv, &ov);
        ct_tensor *ops[3];
        ops[0] = out;
        ops[1] = &xv;
        ops[2] = &ov;
        ct__iter it;
        ct__iter_init(&it, 3, ops, m.nd, m.shape);
        ct__attrs a;
        ct__attrs_init(&a);
        size_t es = ct__dt[x->dtype].size;
        ct__ix_run(&it, ct__by_size(es, ct__offget_1, ct__offget_2, ct__offget_4, ct__offget_8), &a, it.numel);
    }
    ct__decref(off);
    return 0;
}
/* accumulate: out[off] += v, per dtype (serial: offsets may repeat) */
#define CT__OFFADD_LOOP(fname, T, C, LD, ST, EXPR) \
    static void fname(char **p, const int64_t *s, int64_t n, const ct__attrs *a) { \
        (void)a; \
        if (s[2] == 0 && s[0] == (int64_t)sizeof(T) && s[1] == (int64_t)sizeof(T)) { \
            T *CT_RESTRICT q = (T *)p[0] + *(const int64_t *)p[2]; \
            const T *CT_RESTRICT vp = (const T *)p[1]; \
            CT__IX_SIMD \
            for (int64_t k = 0; k < n; k++) { C o = LD(q[k]), v = LD(vp[k]); q[k] = ST(EXPR); } \
            return; \
        } \
        char *const p0 = p[0]; \
        const char *const p1 = p[1], *const p2 = p[2]; \
        const int64_t s0 = s[0], s1 = s[1], s2 = s[2]; \
        for (int64_t k = 0; k < n; k++) { \
            T *q = (T *)(p0 + k * s0) + *(const int64_t *)(p2 + k * s2); \
            C o = LD(*q), v = LD(*(const T *)(p1 + k * s1)); \
            *q = ST(EXPR); \
        } \
    }
CT__OFFADD_LOOP(ct__offadd_f32, float, float, CT__ID, CT__ID, o + v)
CT__OFFADD_LOOP(ct__offadd_f64, double, double, CT__ID, CT__ID, o + v)
CT__OFFADD_LOOP(ct__offadd_f16, uint16_t, float, ct__h2f, ct__f2h, o + v)
CT__OFFADD_LOOP(ct__offadd_bf16, uint16_t, float, ct__bf2f, ct__f2bf, o + v)
CT__OFFADD_LOOP(ct__offadd_i64, int64_t, int64_t, CT__ID, CT__ID, CT__IADD(o, v))
CT__OFFADD_LOOP(ct__offadd_i32, int32_t, int64_t, CT__ID, CT__ID, CT__IADD(o, v))
CT__OFFADD_LOOP(ct__offadd_i16, int16_t, int64_t, CT__ID, CT__ID, CT__IADD(o, v))
CT__OFFADD_LOOP(ct__offadd_i8, int8_t, int64_t, CT__ID, CT__ID, CT__IADD(o, v))
CT__OFFADD_LOOP(ct__offadd_u8, uint8_t, int64_t, CT__ID, CT__ID, CT__IADD(o, v))
CT__OFFADD_LOOP(ct__offadd_b8, uint8_t, int64_t, CT__LDB, CT__TOB, (o || v))
static const ct__loop_fn ct__offadd_tab[10] = {ct__offadd_f32, ct__offadd_f64, ct__offadd_f16, ct__offadd_bf16, ct__offadd_i64,
                                               ct__offadd_i32, ct__offadd_i16, ct__offadd_i8, ct__offadd_u8, ct__offadd_b8};
static int ct__k_index_put(ct__call *c) {
    ct_tensor *x = c->in[0], *values = c->in[1], *out = c->out[0], *tmp = NULL;
    int nidx = c->nin - 2, bad = 0, accumulate = c->a->flags & 1;
    uint32_t mask = (uint32_t)c->a->i[1];
    ct__ixmap m;
    ct__ixerr e = {0, 0};
    if (out != x && ct__ix_copy(out, x)) return -1;
    if (ct__index_map("index_put", out, mask, nidx, c->in + 2, &m)) return -1;
    ct_tensor *off = ct__index_offsets(out, mask, nidx, c->in + 2, &m, &e, &bad);
    if (!off) return e.flag ? ct__index_oob("index_put", out, &e, bad) : -1;
    if (ct__shape_numel(m.nd, m.shape) > 0) {
        if (values->storage == out->storage) {
            if (!(tmp = ct__clone_detached(values))) { ct__decref(off); return -1; }
            values = tmp;
        }
        ct_tensor ov, fv;
        ct__index_views(out, off, &m, &ov, &fv);
        int64_t vs[CT_MAX_DIMS];
        for (int d = 0; d < m.nd; d++) {
            int vd = d - (m.nd - values->ndim);
            vs[d] = vd < 0 || values->shape[vd] == 1 ? 0 : values->strides[vd];
        }
        ct_tensor vv = ct__ix_view(values, m.nd, m.shape, vs, values->offset);
        ct_tensor *ops[3];
        ops[0] = &ov;
        ops[1] = &vv;
        ops[2] = &fv;
        ct__iter it;
        ct__iter_init(&it, 3, ops, m.nd, m.shape);
        ct__attrs a;
        ct__attrs_init(&a);
        size_t es = ct__dt[out->dtype].size;
        if (accumulate) ct__iter_range(&it, ct__offadd_tab[out->dtype], &a, 0, it.numel);
        else ct__ix_run(&it, ct__by_size(es, ct__offset_1, ct__offset_2, ct__offset_4, ct__offset_8), &a, it.numel);
    }
    if (tmp) ct__decref(tmp);
    ct__decref(off);
    return 0;
}

/* ---- masked_select / masked_scatter / nonzero (C order, PyTorch's order) ---- */
static int ct__ix_cpu(const char *op, const ct_tensor *x) {
    if (x->device.type != CT_CPU) return ct__failed(CT_ERR_DEVICE, "%s: data-dependent output shapes are computed on the CPU only", op);
    return 0;
}
static int ct__meta_masked_select(ct__call *c) {
    ct_tensor *x = c->in[0], *mask = c->in[1], *bin[2];
    int nd;
    int64_t shape[CT_MAX_DIMS] = {0};
    if (ct__ix_real("masked_select", x->dtype) || ct__ix_cpu("masked_select", x)) return -1;
    if (mask->dtype != CT_BOOL) return ct__failed(CT_ERR_DTYPE, "masked_select: expected BoolTensor or ByteTensor for mask");
    bin[0] = mask;
    bin[1] = x;
    if (ct__broadcast("masked_select", 2, bin, &nd, shape)) return -1;
    c->nout = 1;
    c->oi[0].kind = CT__OUT_DEFERRED;   /* its length is the mask's count: the kernel allocates it */
    return 0;
}
static int ct__k_masked_select(ct__call *c) {
    ct_tensor *x = c->in[0], *mask = c->in[1], *out, *ops[2];
    int nd;
    int64_t shape[CT_MAX_DIMS] = {0};
    ops[0] = mask;
    ops[1] = x;
    if (ct__broadcast("masked_select", 2, ops, &nd, shape)) return -1;
    int64_t total = ct__mask_count(mask, nd, shape);
    if (ct__out_alloc(c, 0, x->dtype, 1, &total)) return -1;
    out = c->out[0];
    if (total == 0) return 0;
    ct__cw w;
    ct__cw_init(&w, 2, ops, nd, shape);
    size_t es = ct__dt[x->dtype].size;
    int64_t inner = CT__CW_INNER(&w), sm = CT__CW_ST(&w, 0), sx = CT__CW_ST(&w, 1);
    char *o = ct__ptr(out);
    int64_t cnt = ct_numel(out), k = 0;
    /* branch-free: write every element at the next slot, advance the slot when selected */
#define CT__MSEL_ROW(T) \
    { \
        T *ov = (T *)o; \
        for (int64_t j = 0; j < inner; j++) { \
            T v = *(const T *)(xp + j * sx); \
            if (CT__LIKELY(k < cnt)) ov[k] = v; \
            k += mp[j * sm] != 0; \
        } \
    }
    do {
        const uint8_t *mp = (const uint8_t *)w.p[0];
        const char *xp = w.p[1];
        switch (es) {
        case 1: CT__MSEL_ROW(uint8_t) break;
        case 2: CT__MSEL_ROW(uint16_t) break;
        case 4: CT__MSEL_ROW(uint32_t) break;
        default: CT__MSEL_ROW(uint64_t) break;
        }
    } while (ct__cw_next(&w));
#undef CT__MSEL_ROW
    return 0;
}
/* the checks and output of masked_scatter on any device (a backend's meta may use it) */
static int ct__meta_masked_scatter_any(ct__call *c) {
    ct_tensor *x = c->in[0], *mask = c->in[1], *src = c->in[2], *bin[2];
    int nd;
    int64_t shape[CT_MAX_DIMS] = {0};
    if (ct__ix_real("masked_scatter", x->dtype)) return -1;
    if (mask->dtype != CT_BOOL) return ct__failed(CT_ERR_DTYPE, "masked_scatter_: only supports boolean masks, but got mask with dtype %s", ct_dtype_name(mask->dtype));
    if (src->dtype != x->dtype)
        return ct__failed(CT_ERR_DTYPE, "masked_scatter: expected self and source to have same dtypes but got %s and %s", CT__DTNAME(x->dtype), CT__DTNAME(src->dtype));
    if (c->inplace) {
        /* the mask expands to self's shape (PyTorch's expand_inplace) */
        if (mask->ndim > x->ndim)
            return ct__failed(CT_ERR_SHAPE, "masked_scatter_: expand(%s, size=%s): the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)",
                              CT__SHAPE(mask), CT__SHAPE(x), x->ndim, mask->ndim);
        for (int d = 0; d < mask->ndim; d++) {
            int xd = d + x->ndim - mask->ndim;
            if (mask->shape[d] != 1 && mask->shape[d] != x->shape[xd])
                return ct__failed(CT_ERR_SHAPE, "masked_scatter_: The expanded size of the tensor (%lld) must match the existing size (%lld) at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s",
                                  (long long)x->shape[xd], (long long)mask->shape[d], xd, CT__SHAPE(x), CT__SHAPE(mask));
        }
        nd = x->ndim;
        for (int d = 0; d < nd; d++) shape[d] = x->shape[d];
    } else {
        bin[0] = mask;
        bin[1] = x;
        if (ct__broadcast("masked_scatter", 2, bin, &nd, shape)) return -1;
    }
    if (c->inplace) ct__ix_out_self(c);
    else ct__out_new(c, x->dtype, nd, shape);
    return 0;
}
static int ct__meta_masked_scatter(ct__call *c) {
    if (ct__ix_real("masked_scatter", c->in[0]->dtype) || ct__ix_cpu("masked_scatter", c->in[0])) return -1;
    return ct__meta_masked_scatter_any(c);
}
static int ct__k_masked_scatter(ct__call *c) {
    ct_tensor *x = c->in[0], *mask = c->in[1], *src = c->in[2], *out = c->out[0], *ops[2];
    if (ct__mask_count(mask, out->ndim, out->shape) > ct_numel(src))
        return ct__failed(CT_ERR_ARG, "masked_scatter: Number of elements of source < number of ones in mask");
    if (out != x && ct__ix_copy(out, x)) return -1;
    if (ct_numel(out) == 0) return 0;
    ct_tensor *sc = src->storage == out->storage ? ct__clone_detached(src) : ct__contig_ref(src);
    if (!sc) return -1;
    ops[0] = out;
    ops[1] = mask;
    ct__cw w;
    ct__cw_init(&w, 2, ops, out->ndim, out->shape);
    size_t es = ct__dt[out->dtype].size;
    int64_t inner = CT__CW_INNER(&w), so = CT__CW_ST(&w, 0), sm = CT__CW_ST(&w, 1);
    const char *s = ct__ptr(sc);
    do {
        char *op = w.p[0];
        const char *mp = w.p[1];
        for (int64_t j = 0; j < inner; j++)
            if (mp[j * sm]) { ct__elcp(op + j * so, s, es); s += es; }
    } while (ct__cw_next(&w));
    ct__decref(sc);
    return 0;
}
/* truth values of x as a contiguous bool tensor (NaN counts as true) */
static ct_tensor *ct__truth(const ct_tensor *x) {
    if (x->dtype == CT_BOOL) return ct__contig_ref(x);
    ct_tensor *t = ct__alloc(CT_BOOL, x->ndim, x->shape, NULL, x->device);
    if (t && ct__copy_into(t, x)) { ct__decref(t); return NULL; }
    return t;
}
static int ct__meta_nonzero(ct__call *c) {
    ct_tensor *x = c->in[0];
    if (ct__ix_real("nonzero", x->dtype) || ct__ix_cpu("nonzero", x)) return -1;
    c->nout = 1;
    c->oi[0].kind = CT__OUT_DEFERRED;   /* [count, ndim]: the kernel counts, then allocates */
    return 0;
}
static int ct__k_nonzero(ct__call *c) {
    ct_tensor *x = c->in[0], *out;
    ct_tensor *t = ct__truth(x);
    if (!t) return -1;
    int nd = x->ndim;
    int64_t n = ct_numel(t), idx[CT_MAX_DIMS] = {0}, inner = nd ? x->shape[nd - 1] : 1, shape[2];
    const uint8_t *p = (const uint8_t *)ct__ptr(t);
    shape[0] = 0;
    shape[1] = nd;
    for (int64_t i = 0; i < n; i++) shape[0] += p[i];
    if (ct__out_alloc(c, 0, CT_INT64, 2, shape)) { ct__decref(t); return -1; }
    out = c->out[0];
    if (shape[0] == 0 && nd > 0) { ct__decref(t); return 0; }
    int64_t *o = (int64_t *)ct__ptr(out), cnt = out->shape[0], k = 0;
    for (int64_t base = 0; base < n; base += inner) {
        if (nd == 0) { k += p[base] != 0; continue; }
        /* branch-free: write the coordinates at the next row, advance it when nonzero */
        for (int64_t j = 0; j < inner; j++) {
            if (CT__LIKELY(k < cnt)) {
                int64_t *row = o + k * nd;
                for (int d = 0; d < nd - 1; d++) row[d] = idx[d];
                row[nd - 1] = j;
            }
            k += p[base + j] != 0;
        }
        for (int d = nd - 2; d >= 0; d--) { if (++idx[d] < x->shape[d]) break; idx[d] = 0; }
    }
    ct__decref(t);
    return 0;
}

/* ---- cat / stack -----------------------------------------------------------------
   PyTorch: cat_out_cpu. 1-D empty tensors ([0]) are skipped (legacy behaviour);
   dtypes promote over all inputs; the output is contiguous. a->i[0] dim. */
CT__INLINE int ct__cat_skip(const ct_tensor *t) { return t->ndim == 1 && t->shape[0] == 0; }
static int ct__meta_cat(ct__call *c) {
    int n = c->nin, stack = c->op == CT__OP_STACK;
    const char *name = stack ? "stack" : "cat";
    if (n <= 0) return ct__failed(CT_ERR_ARG, stack ? "stack expects a non-empty TensorList" : "torch.cat(): expected a non-empty list of Tensors");
    ct_dtype dt = c->in[0]->dtype;
    for (int i = 0; i < n; i++) {
        ct_dtype di = c->in[i]->dtype;
        if (CT__ISREAL(di)) dt = ct_promote_types(dt, di);
        if (!CT__ISREAL(di) || !CT__ISREAL(dt)) return ct__failed(CT_ERR_DTYPE, "%s: not implemented for '%s'", name, CT__DTNAME(di));
    }
    int64_t shape[CT_MAX_DIMS] = {0};
    int nd, dim;
    if (stack) {
        const ct_tensor *t0 = c->in[0];
        for (int i = 1; i < n; i++)
            if (!ct_same_shape(t0, c->in[i]))
                return ct__failed(CT_ERR_SHAPE, "stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %d", CT__SHAPE(t0),
                                  CT__SHAPE(c->in[i]), i);
        dim = ct__dim("stack", c->a->i[0], t0->ndim + 1);
        if (dim < 0) return -1;
        if (t0->ndim + 1 > CT_MAX_DIMS) return ct__failed(CT_ERR_ARG, "stack: the result would have more than %d dimensions", CT_MAX_DIMS);
        nd = t0->ndim + 1;
        for (int d = 0, k = 0; d < nd; d++) shape[d] = d == dim ? n : t0->shape[k++];
    } else {
        const ct_tensor *ref = NULL;
        int refi = 0;
        for (int i = 0; i < n; i++)
            if (c->in[i]->ndim == 0) return ct__failed(CT_ERR_SHAPE, "cat: zero-dimensional tensor (at position %d) cannot be concatenated", i);
        for (int i = 0; i < n && !ref; i++)
            if (!ct__cat_skip(c->in[i])) { ref = c->in[i]; refi = i; }
        if (!ref) {
            /* only legacy empty tensors: an empty vector */
            shape[0] = 0;
            ct__out_new(c, dt, 1, shape);
            return 0;
        }
        dim = ct__dim("cat", c->a->i[0], ref->ndim);
        if (dim < 0) return -1;
        nd = ref->ndim;
        int64_t total = 0;
        for (int i = 0; i < n; i++) {
            const ct_tensor *t = c->in[i];
            if (ct__cat_skip(t)) continue;
            if (t->ndim != nd) return ct__failed(CT_ERR_SHAPE, "cat: Tensors must have same number of dimensions: got %d and %d", nd, t->ndim);
            for (int d = 0; d < nd; d++)
                if (d != dim && t->shape[d] != ref->shape[d])
                    return ct__failed(CT_ERR_SHAPE, "cat: Sizes of tensors must match except in dimension %d. Expected size %lld but got size %lld for tensor number %d in the list.",
                                      dim, (long long)ref->shape[d], (long long)t->shape[d], i);
            total += t->shape[dim];
        }
        (void)refi;
        for (int d = 0; d < nd; d++) shape[d] = ref->shape[d];
        shape[dim] = total;
    }
    ct__out_new(c, dt, nd, shape);
    return 0;
}
typedef struct { int n; ct__call * c; int stack; int dim; int64_t inner; size_t es; char * op; int64_t total; } ct__k_cat_c1;
static void ct__k_cat_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__k_cat_c1 *q_ = (const ct__k_cat_c1 *)c_;
    int n = q_->n; (void)n;
    ct__call * c = q_->c; (void)c;
    int stack = q_->stack; (void)stack;
    int dim = q_->dim; (void)dim;
    int64_t inner = q_->inner; (void)inner;
    size_t es = q_->es; (void)es;
    char * op = q_->op; (void)op;
    int64_t total = q_->total; (void)total;
    for (int64_t o = (int64_t)lo_; o < hi_; o++) {
            int64_t off = 0;
            for (int i = 0; i < n; i++) {
                const ct_tensor *t = c->in[i];
                if (!stack && ct__cat_skip(t)) continue;
                int64_t sz = stack ? 1 : t->shape[dim];
                size_t blk = (size_t)(sz * inner) * es;
                if (blk) memcpy(op + (size_t)((o * total + off) * inner) * es, ct__ptr(t) + (size_t)o * blk, blk);
                off += sz;
            }
        }
}
static int ct__k_cat(ct__call *c) {
    ct_tensor *out = c->out[0];
    int n = c->nin, stack = c->op == CT__OP_STACK, nd = out->ndim, dim = ct__wrap_dim((int)c->a->i[0], nd), fast = 1;
    if (ct_numel(out) == 0) return 0;
    size_t es = ct__dt[out->dtype].size;
    int64_t outer = 1, inner = 1, total = out->shape[dim];
    for (int d = 0; d < dim; d++) outer *= out->shape[d];
    for (int d = dim + 1; d < nd; d++) inner *= out->shape[d];
    for (int i = 0; i < n && fast; i++) {
        const ct_tensor *t = c->in[i];
        fast = ct_numel(t) == 0 || (t->dtype == out->dtype && ct__is_contig(t));
    }
    char *op = ct__ptr(out);
    if (fast && outer == 1) {
        int64_t off = 0;
        for (int i = 0; i < n; i++) {
            const ct_tensor *t = c->in[i];
            int64_t sz = stack ? 1 : (ct__cat_skip(t) && nd != 1 ? 0 : t->shape[dim]);
            if (ct_numel(t)) ct__ix_memcpy(op + (size_t)(off * inner) * es, ct__ptr(t), (size_t)(sz * inner) * es);
            off += sz;
        }
        return 0;
    }
    if (fast) {
        /* per outer index, one block per input */
        int64_t bytes_total = outer * total * inner * (int64_t)es;
        (void)bytes_total;
    int ct__par = (bytes_total >= ((int64_t)1 << 20) && outer > 1) && ct__par_threads() > 1;
        ct__k_cat_c1 q1_ = {n, c, stack, dim, inner, es, op, total}; ct__rrun(outer, ct__par, ct__k_cat_b1, &q1_);
        return 0;
    }
    /* general: copy (and convert) each input into its slice of the output */
    int64_t off = 0;
    for (int i = 0; i < n; i++) {
        const ct_tensor *t = c->in[i];
        if (!stack && ct__cat_skip(t) && nd != 1) continue;
        int64_t sz = stack ? 1 : t->shape[dim], sh[CT_MAX_DIMS], st[CT_MAX_DIMS];
        for (int d = 0; d < nd; d++) { sh[d] = out->shape[d]; }
        sh[dim] = sz;
        ct_tensor ov = ct__ix_view(out, nd, sh, out->strides, out->offset + off * out->strides[dim]);
        ct_tensor tv = *t;
        if (stack) {
            for (int d = 0, k = 0; d < nd; d++) st[d] = d == dim ? 0 : t->strides[k++];
            tv = ct__ix_view(t, nd, sh, st, t->offset);
        }
        if (ct__shape_numel(nd, sh) && ct__copy_into(&ov, &tv)) return -1;
        off += sz;
    }
    return 0;
}

/* ---- flip: a view with negated strides, copied out (a->v: dims, a->nv) ---- */
static int ct__meta_flip(ct__call *c) {
    ct_tensor *x = c->in[0];
    const ct__attrs *a = c->a;
    uint32_t seen = 0;
    if (ct__ix_real("flip", x->dtype)) return -1;
    for (int k = 0; k < a->nv; k++) {
        int d = ct__dim("flip", a->v[k], x->ndim);
        if (d < 0) return -1;
        if (seen & (1u << d)) return ct__failed(CT_ERR_ARG, "flip: dim %d appears multiple times in the list of dims", d);
        seen |= 1u << d;
    }
    ct__out_new(c, x->dtype, x->ndim, x->shape);
    return 0;
}
typedef struct { int nd; ct_tensor * x; uint32_t mask; const char * xp; size_t es; char * op; int64_t inner; int rev; } ct__k_flip_c1;
static void ct__k_flip_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__k_flip_c1 *q_ = (const ct__k_flip_c1 *)c_;
    int nd = q_->nd; (void)nd;
    ct_tensor * x = q_->x; (void)x;
    uint32_t mask = q_->mask; (void)mask;
    const char * xp = q_->xp; (void)xp;
    size_t es = q_->es; (void)es;
    char * op = q_->op; (void)op;
    int64_t inner = q_->inner; (void)inner;
    int rev = q_->rev; (void)rev;
    for (int64_t r = (int64_t)lo_; r < hi_; r++) {
            int64_t rem = r, src = 0;
            for (int d = nd - 2; d >= 0; d--) {
                int64_t i = rem % x->shape[d];
                rem /= x->shape[d];
                if (mask & (1u << d)) i = x->shape[d] - 1 - i;
                src += i * x->strides[d];
            }
            const char *s = xp + (size_t)src * es;
            char *dst = op + (size_t)(r * inner) * es;
            if (!rev) { memcpy(dst, s, (size_t)inner * es); continue; }
#define CT__REV_ROW(T) \
    { \
        const T *CT_RESTRICT sv = (const T *)s + (inner - 1); \
        T *CT_RESTRICT dv = (T *)dst; \
        CT__IX_SIMD \
        for (int64_t k = 0; k < inner; k++) dv[k] = sv[-k]; \
    }
            switch (es) {
            case 1: CT__REV_ROW(uint8_t) break;
            case 2: CT__REV_ROW(uint16_t) break;
            case 4: CT__REV_ROW(uint32_t) break;
            default: CT__REV_ROW(uint64_t) break;
            }
#undef CT__REV_ROW
        }
}
static int ct__k_flip(ct__call *c) {
    ct_tensor *x = c->in[0], *out = c->out[0];
    int64_t st[CT_MAX_DIMS], off = x->offset;
    int nd = x->ndim;
    if (ct_numel(out) == 0) return 0;
    if (nd >= 1 && x->shape[nd - 1] >= 16 && ct__is_contig(x)) {
        /* contiguous rows: copy each row from its mirrored source row, reversed when the
           last dim flips */
        uint32_t mask = 0;
        for (int k = 0; k < c->a->nv; k++) mask |= 1u << ct__wrap_dim((int)c->a->v[k], nd);
        int64_t inner = x->shape[nd - 1], rows = ct_numel(x) / inner;
        size_t es = ct__dt[x->dtype].size;
        int rev = (mask >> (nd - 1)) & 1u;
        const char *xp = ct__ptr(x);
        char *op = ct__ptr(out);
    int ct__par = (rows * inner >= 4 * CT__GRAIN) && ct__par_threads() > 1;
        ct__k_flip_c1 q1_ = {nd, x, mask, xp, es, op, inner, rev}; ct__rrun(rows, ct__par, ct__k_flip_b1, &q1_);
        return 0;
    }
    for (int d = 0; d < x->ndim; d++) st[d] = x->strides[d];
    for (int k = 0; k < c->a->nv; k++) {
        int d = ct__wrap_dim((int)c->a->v[k], nd);
        if (d >= x->ndim) continue;   /* a 0-d tensor: nothing to flip */
        off += (x->shape[d] - 1) * st[d];
        st[d] = -st[d];
    }
    ct_tensor v = ct__ix_view(x, x->ndim, x->shape, st, off);
    return ct__copy_into(out, &v);
}

/* ---- roll: shifts v[0..nv), dims v[nv..2nv) ---- */
static int ct__meta_roll(ct__call *c) {
    ct_tensor *x = c->in[0];
    const ct__attrs *a = c->a;
    if (ct__ix_real("roll", x->dtype)) return -1;
    if (x->ndim == 0 && a->nv > 0) return ct__failed(CT_ERR_INDEX, "roll: Dimension specified as %d but tensor has no dimensions", (int)a->v[a->nv]);
    for (int k = 0; k < a->nv; k++)
        if (ct__dim("roll", a->v[a->nv + k], x->ndim) < 0) return -1;
    ct__out_new(c, x->dtype, x->ndim, x->shape);
    return 0;
}
static int ct__k_roll(ct__call *c) {
    ct_tensor *x = c->in[0], *out = c->out[0];
    const ct__attrs *a = c->a;
    int64_t sh[CT_MAX_DIMS] = {0};
    int dims[CT_MAX_DIMS], nr = 0, nd = x->ndim;
    if (ct_numel(out) == 0) return 0;
    for (int k = 0; k < a->nv; k++) sh[ct__wrap_dim((int)a->v[a->nv + k], nd)] += a->v[k];
    for (int d = 0; d < nd; d++) {
        int64_t s = x->shape[d];
        sh[d] = ((sh[d] % s) + s) % s;
        if (sh[d]) dims[nr++] = d;
    }
    if (nr == 0) return ct__copy_into(out, x);
    /* 2^nr blocks: along each rolled dim, src [0, n-s) -> dst [s, n) and src [n-s, n) -> dst [0, s) */
    for (int b = 0; b < (1 << nr); b++) {
        int64_t ssh[CT_MAX_DIMS], soff = x->offset, doff = out->offset;
        for (int d = 0; d < nd; d++) ssh[d] = x->shape[d];
        for (int k = 0; k < nr; k++) {
            int d = dims[k];
            int64_t n = x->shape[d], s = sh[d];
            if (b & (1 << k)) { ssh[d] = s; soff += (n - s) * x->strides[d]; }
            else { ssh[d] = n - s; doff += s * out->strides[d]; }
        }
        ct_tensor sv = ct__ix_view(x, nd, ssh, x->strides, soff);
        ct_tensor dv = ct__ix_view(out, nd, ssh, out->strides, doff);
        if (ct__copy_into(&dv, &sv)) return -1;
    }
    return 0;
}

/* ---- repeat (Tensor.repeat): a->v repeats, a->nv their count ---- */
static int ct__meta_repeat(ct__call *c) {
    ct_tensor *x = c->in[0];
    const ct__attrs *a = c->a;
    int n = a->nv;
    int64_t shape[CT_MAX_DIMS] = {0};
    if (ct__ix_real("repeat", x->dtype)) return -1;
    if (n < x->ndim)
        return ct__failed(CT_ERR_ARG, "repeat: Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
    if (n > CT_MAX_DIMS) return ct__failed(CT_ERR_ARG, "repeat: the result would have more than %d dimensions", CT_MAX_DIMS);
    for (int d = 0; d < n; d++) {
        int xd = d - (n - x->ndim);
        shape[d] = ct__sat_mul(xd >= 0 ? x->shape[xd] : 1, a->v[d]);
    }
    if (ct__check_shape("repeat", n, shape)) return -1;
    ct__out_new(c, x->dtype, n, shape);
    return 0;
}
/* Fills the block of dim d: the first repetition from src, the others by copying it. */
static void ct__repeat_fill(char *dst, const char *src, int d, int last, const int64_t *xs, const int64_t *rep, const int64_t *ob,
                            const int64_t *ib) {
    /* ob[d] / ib[d]: bytes of one index step along d in out / in x */
    if (d == last) {
        size_t blk = (size_t)(xs[d] * ib[d]);
        memcpy(dst, src, blk);
        for (int64_t r = 1; r < rep[d]; r++) memcpy(dst + (size_t)r * blk, dst, blk);
        return;
    }
    for (int64_t i = 0; i < xs[d]; i++) ct__repeat_fill(dst + i * ob[d], src + i * ib[d], d + 1, last, xs, rep, ob, ib);
    size_t blk = (size_t)(xs[d] * ob[d]);
    for (int64_t r = 1; r < rep[d]; r++) memcpy(dst + (size_t)r * blk, dst, blk);
}
typedef struct { int last; int64_t * xs; int64_t * rep; char * dst; int64_t * ob; const char * src; int64_t * ib; } ct__k_repeat_c1;
static void ct__k_repeat_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__k_repeat_c1 *q_ = (const ct__k_repeat_c1 *)c_;
    int last = q_->last; (void)last;
    int64_t * xs = q_->xs; (void)xs;
    int64_t * rep = q_->rep; (void)rep;
    char * dst = q_->dst; (void)dst;
    int64_t * ob = q_->ob; (void)ob;
    const char * src = q_->src; (void)src;
    int64_t * ib = q_->ib; (void)ib;
    for (int64_t i = (int64_t)lo_; i < hi_; i++) { ct__repeat_fill(dst + i * ob[0], src + i * ib[0], 1, last, xs, rep, ob, ib); }
}
static int ct__k_repeat(ct__call *c) {
    ct_tensor *x = c->in[0], *out = c->out[0];
    const ct__attrs *a = c->a;
    int n = a->nv, last = -1;
    int64_t xs[CT_MAX_DIMS], rep[CT_MAX_DIMS], ob[CT_MAX_DIMS], ib[CT_MAX_DIMS];
    size_t es = ct__dt[x->dtype].size;
    if (ct_numel(out) == 0) return 0;
    ct_tensor *xc = ct__contig_ref(x);
    if (!xc) return -1;
    for (int d = 0; d < n; d++) {
        int xd = d - (n - x->ndim);
        xs[d] = xd >= 0 ? x->shape[xd] : 1;
        rep[d] = a->v[d];
        if (rep[d] > 1) last = d;
    }
    if (last < 0) last = n - 1;
    if (n == 0) {
        memcpy(ct__ptr(out), ct__ptr(xc), es);
    } else {
        int64_t so = (int64_t)es, si = (int64_t)es;
        for (int d = n - 1; d >= 0; d--) { ob[d] = so; ib[d] = si; so *= xs[d] * rep[d]; si *= xs[d]; }
        char *dst = ct__ptr(out);
        const char *src = ct__ptr(xc);
        /* split the outermost dim's first repetition over threads when large */
        int ct__par = last > 0 && xs[0] > 1 && ct_numel(out) * (int64_t)es >= ((int64_t)1 << 21) && ct__par_threads() > 1;
        if (ct__par) {
            ct__k_repeat_c1 q1_ = {last, xs, rep, dst, ob, src, ib}; ct__rrun(xs[0], ct__par, ct__k_repeat_b1, &q1_);
            size_t blk = (size_t)(xs[0] * ob[0]);
            for (int64_t r = 1; r < rep[0]; r++) ct__ix_memcpy(dst + (size_t)r * blk, dst, blk);
        } else {
            ct__repeat_fill(dst, src, 0, last, xs, rep, ob, ib);
        }
    }
    ct__decref(xc);
    return 0;
}

/* ---- repeat_interleave(repeats): the index vector [0]*r0 + [1]*r1 + ... ---- */
/* the checks and output of repeat_interleave on any device (a backend's meta may use it) */
static int ct__meta_repeat_interleave_any(ct__call *c) {
    ct_tensor *r = c->in[0];
    if (r->ndim != 1) return ct__failed(CT_ERR_ARG, "repeat_interleave only accept 1D vector as repeat");
    if (r->dtype != CT_INT64 && r->dtype != CT_INT32)
        return ct__failed(CT_ERR_DTYPE, "repeat_interleave: \"repeat_interleave_cpu\" not implemented for '%s'", CT__DTNAME(r->dtype));
    c->nout = 1;
    c->oi[0].kind = CT__OUT_DEFERRED;   /* its length is the sum of the repeats */
    return 0;
}
static int ct__meta_repeat_interleave(ct__call *c) {
    ct_tensor *r = c->in[0];
    if (r->ndim == 1 && (r->dtype == CT_INT64 || r->dtype == CT_INT32) && ct__ix_cpu("repeat_interleave", r)) return -1;
    return ct__meta_repeat_interleave_any(c);
}
static int ct__k_repeat_interleave(ct__call *c) {
    ct_tensor *r = c->in[0];
    int64_t total = 0, n = r->shape[0], es = (int64_t)ct__dt[r->dtype].size, w = 0;
    const char *p = ct__ptr(r);
    for (int64_t k = 0; k < n; k++) {
        int64_t v = ct__ixld(p + k * r->strides[0] * es, r->dtype == CT_INT32);
        if (v < 0) return ct__failed(CT_ERR_ARG, "repeat_interleave: repeats can not be negative");
        if (v > INT64_MAX - total) return ct__failed(CT_ERR_MEMORY, "repeat_interleave: the sum of the repeats overflows int64");
        total += v;
    }
    if (ct__out_alloc(c, 0, r->dtype, 1, &total)) return -1;
    char *o = ct__ptr(c->out[0]);
    for (int64_t k = 0; k < n; k++) {
        int64_t v = ct__ixld(p + k * r->strides[0] * es, r->dtype == CT_INT32);
        for (int64_t j = 0; j < v; j++, w++) ct__store_i64(o + w * es, r->dtype, k);
    }
    return 0;
}

/* ---- tril / triu on the last two dims (a->i[0] diagonal) ---- */
static int ct__meta_tri(ct__call *c) {
    ct_tensor *x = c->in[0];
    const char *name = ct__ops[c->op].name;
    if (ct__ix_real(name, x->dtype)) return -1;
    if (x->ndim == 0) return ct__failed(CT_ERR_INDEX, "%s: Dimension specified as -2 but tensor has no dimensions", name);
    if (x->ndim < 2) return ct__dim(name, -2, x->ndim) < 0 ? -1 : ct__failed(CT_ERR_ARG, "%s: input tensor must have at least 2 dimensions", name);
    ct__out_new(c, x->dtype, x->ndim, x->shape);
    return 0;
}
typedef struct { int64_t R; ct_tensor * x; int64_t n; int64_t C; ct_tensor * out; int lower; int64_t k; size_t es; int contig; const char * xp; char * op; } ct__k_tri_c1;
static void ct__k_tri_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__k_tri_c1 *q_ = (const ct__k_tri_c1 *)c_;
    int64_t R = q_->R; (void)R;
    ct_tensor * x = q_->x; (void)x;
    int64_t n = q_->n; (void)n;
    int64_t C = q_->C; (void)C;
    ct_tensor * out = q_->out; (void)out;
    int lower = q_->lower; (void)lower;
    int64_t k = q_->k; (void)k;
    size_t es = q_->es; (void)es;
    int contig = q_->contig; (void)contig;
    const char * xp = q_->xp; (void)xp;
    char * op = q_->op; (void)op;
    for (int64_t r = (int64_t)lo_; r < hi_; r++) {
        int64_t i = r % R, lo, hi;    /* keep the columns from lo up to hi */
        if (lower) { lo = 0; hi = i + k + 1; }
        else { lo = i + k; hi = C; }
        lo = lo < 0 ? 0 : lo > C ? C : lo;
        hi = hi < lo ? lo : hi > C ? C : hi;
        char *dr = op + (size_t)(r * C) * es;
        if (contig) memcpy(dr + lo * (int64_t)es, xp + (size_t)(r * C + lo) * es, (size_t)(hi - lo) * es);
        memset(dr, 0, (size_t)lo * es);
        memset(dr + hi * (int64_t)es, 0, (size_t)(C - hi) * es);
    }
}
static int ct__k_tri(ct__call *c) {
    ct_tensor *x = c->in[0], *out = c->out[0];
    int lower = c->op == CT__OP_TRIL, nd = x->ndim;
    int64_t k = c->a->i[0], R = x->shape[nd - 2], C = x->shape[nd - 1], n = ct_numel(out);
    if (n == 0) return 0;
    k = k < -R ? -R : k > C ? C : k;   /* the same rows and columns kept, and i + k + 1 cannot overflow */
    size_t es = ct__dt[x->dtype].size;
    int64_t rows = n / C;
    int contig = ct__is_contig(x);
    if (!contig && ct__copy_into(out, x)) return -1;
    const char *xp = ct__ptr(x);
    char *op = ct__ptr(out);
    int ct__par = (n * (int64_t)es >= ((int64_t)1 << 20)) && ct__par_threads() > 1;
    ct__k_tri_c1 q1_ = {R, x, n, C, out, lower, k, es, contig, xp, op}; ct__rrun(rows, ct__par, ct__k_tri_b1, &q1_);
    return 0;
}

/* ---- diag_embed: a->i[0] offset, i[1] dim1, i[2] dim2 ---- */
static int ct__meta_diag_embed(ct__call *c) {
    ct_tensor *x = c->in[0];
    const ct__attrs *a = c->a;
    if (ct__ix_real("diag_embed", x->dtype)) return -1;
    int nd = x->ndim + 1;
    if (x->ndim == 0) return ct__failed(CT_ERR_ARG, "diag_embed: the input must have at least 1 dimension, got a 0-d tensor");
    if (nd > CT_MAX_DIMS) return ct__failed(CT_ERR_ARG, "diag_embed: the result would have more than %d dimensions", CT_MAX_DIMS);
    int d1 = ct__dim("diag_embed", a->i[1], nd), d2;
    if (d1 < 0) return -1;
    d2 = ct__dim("diag_embed", a->i[2], nd);
    if (d2 < 0) return -1;
    if (d1 == d2) return ct__failed(CT_ERR_ARG, "diag_embed: diagonal dimensions cannot be identical %d, %d", (int)a->i[1], (int)a->i[2]);
    int64_t off = a->i[0], len = off < 0 ? ct__sat_sub(x->shape[x->ndim - 1], off) : ct__sat_add(x->shape[x->ndim - 1], off), shape[CT_MAX_DIMS];
    for (int d = 0, k = 0; d < nd; d++) shape[d] = (d == d1 || d == d2) ? len : x->shape[k++];
    ct__out_new(c, x->dtype, nd, shape);
    return 0;
}
static int ct__k_diag_embed(ct__call *c) {
    ct_tensor *x = c->in[0], *out = c->out[0];
    int nd = out->ndim, d1 = ct__wrap_dim((int)c->a->i[1], nd), d2 = ct__wrap_dim((int)c->a->i[2], nd), k = 0;
    int64_t off = c->a->i[0], n = ct_numel(out), sh[CT_MAX_DIMS], st[CT_MAX_DIMS], start;
    if (n == 0) return 0;
    memset(ct__ptr(out), 0, (size_t)n * ct__dt[out->dtype].size);
    for (int d = 0; d < nd; d++)
        if (d != d1 && d != d2) { sh[k] = out->shape[d]; st[k] = out->strides[d]; k++; }
    sh[k] = x->shape[x->ndim - 1];
    st[k] = out->strides[d1] + out->strides[d2];
    start = off >= 0 ? off * out->strides[d2] : -off * out->strides[d1];
    ct_tensor v = ct__ix_view(out, k + 1, sh, st, out->offset + start);
    return ct__copy_into(&v, x);
}

/* ---- one_hot: a->i[0] num_classes; -1: one more than the largest class, which
   only the kernel can see (the output is then DEFERRED) ---- */
/* the checks and output of one_hot on any device (a backend's meta may use it) */
static int ct__meta_one_hot_any(ct__call *c) {
    ct_tensor *x = c->in[0];
    int64_t nc = c->a->i[0], shape[CT_MAX_DIMS];
    if (x->dtype != CT_INT64) return ct__failed(CT_ERR_DTYPE, "one_hot: one_hot is only applicable to index tensor.");
    if (x->ndim + 1 > CT_MAX_DIMS) return ct__failed(CT_ERR_ARG, "one_hot: the result would have more than %d dimensions", CT_MAX_DIMS);
    if (nc == -1) {
        if (ct_numel(x) == 0) return ct__failed(CT_ERR_ARG, "one_hot: Can not infer total number of classes from empty tensor.");
        c->nout = 1;
        c->oi[0].kind = CT__OUT_DEFERRED;
        return 0;
    }
    if (nc < 0) return ct__failed(CT_ERR_ARG, "one_hot: Class values must be smaller than num_classes.");
    for (int d = 0; d < x->ndim; d++) shape[d] = x->shape[d];
    shape[x->ndim] = nc;
    ct__out_new(c, CT_INT64, x->ndim + 1, shape);
    return 0;
}
static int ct__meta_one_hot(ct__call *c) {
    if (c->in[0]->dtype == CT_INT64 && ct__ix_cpu("one_hot", c->in[0])) return -1;
    return ct__meta_one_hot_any(c);
}
static int ct__k_one_hot(ct__call *c) {
    ct_tensor *x = c->in[0];
    int64_t n = ct_numel(x), nc = c->a->i[0], lo = INT64_MAX, hi = INT64_MIN, shape[CT_MAX_DIMS];
    ct_tensor *xc = ct__contig_ref(x);
    if (!xc) return -1;
    const int64_t *p = (const int64_t *)ct__ptr(xc);
    for (int64_t i = 0; i < n; i++) { lo = p[i] < lo ? p[i] : lo; hi = p[i] > hi ? p[i] : hi; }
    int rc = 0;
    if (n > 0 && lo < 0) rc = ct__failed(CT_ERR_ARG, "one_hot: Class values must be non-negative.");
    else if (nc == -1) {
        for (int d = 0; d < x->ndim; d++) shape[d] = x->shape[d];
        shape[x->ndim] = nc = ct__sat_add(hi, 1);   /* INT64_MAX + 1 saturates: the output's size check refuses it */
        rc = ct__out_alloc(c, 0, CT_INT64, x->ndim + 1, shape);
    } else if (n > 0 && hi >= nc) rc = ct__failed(CT_ERR_ARG, "one_hot: Class values must be smaller than num_classes.");
    if (!rc && ct_numel(c->out[0]) > 0) {
        int64_t *o = (int64_t *)ct__ptr(c->out[0]);
        memset(o, 0, sizeof(int64_t) * (size_t)(n * nc));
        for (int64_t i = 0; i < n; i++) o[i * nc + p[i]] = 1;
    }
    ct__decref(xc);
    return rc;
}

/* ---- pad (F.pad): a->v[0..nv) pads, last dim first; a->s[0] value (constant).
   Reflect / replicate / circular pad the last nv/2 dims of a (batch,) channel, spatial
   tensor through index maps; their backward adds the gradient back through the same
   maps (pad_backward: the same pads, a->mode 0 reflect 1 replicate 2 circular; the
   input's shape is the gradient's less the pads). */
static int ct__pad_mode(int op) { return op == CT__OP_REFLECTION_PAD ? 0 : op == CT__OP_REPLICATION_PAD ? 1 : 2; }
static const char *const ct__pad_mode_names[3] = {"reflect", "replicate", "circular"};
static int ct__meta_pad(ct__call *c) {
    ct_tensor *x = c->in[0];
    const ct__attrs *a = c->a;
    int k = a->nv / 2, nd = x->ndim;
    int64_t shape[CT_MAX_DIMS] = {0};
    const char *name = ct__ops[c->op].name;
    if (ct__ix_real("pad", x->dtype)) return -1;
    if (a->nv % 2) return ct__failed(CT_ERR_ARG, "pad: Padding length must be divisible by 2");
    if (k > nd) return ct__failed(CT_ERR_ARG, "pad: Padding length too large");
    if (c->op != CT__OP_CONSTANT_PAD && (k < 1 || k > 3 || (nd != k + 1 && nd != k + 2)))
        return ct__failed(CT_ERR_UNSUPPORTED, "pad: Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
    for (int d = 0; d < nd; d++) shape[d] = x->shape[d];
    if (c->op == CT__OP_CONSTANT_PAD) {
        for (int j = 0; j < k; j++) {
            int d = nd - 1 - j;
            int64_t l = a->v[2 * j], r = a->v[2 * j + 1], cur = x->shape[d];
            /* negative pads narrow the input first (PyTorch's constant_pad_nd) */
            if (l < 0) {
                if (cur + l < 0)
                    return ct__failed(CT_ERR_ARG, "constant_pad_nd: start (%llu) + length (%lld) exceeds dimension size (%lld).",
                                      (unsigned long long)0 - (unsigned long long)l, (long long)(cur + l), (long long)cur);
                cur += l;
            }
            if (r < 0) {
                if (cur + r < 0)
                    return ct__failed(CT_ERR_ARG, "constant_pad_nd: start (0) + length (%lld) exceeds dimension size (%lld).", (long long)(cur + r), (long long)cur);
                cur += r;
            }
            shape[d] = ct__sat_add(ct__sat_add(cur, l > 0 ? l : 0), r > 0 ? r : 0);
        }
        ct__out_new(c, x->dtype, nd, shape);
        return 0;
    }
    int mode = ct__pad_mode(c->op);
    if (mode == 2) {
        if (nd != k + 2) return ct__failed(CT_ERR_ARG, "pad: Invalid padding size, expected %d but got %d", 2 * (nd - 2), a->nv);
        for (int j = 0; j < k; j++) {
            int d = nd - 1 - j;
            int64_t l = a->v[2 * j], r = a->v[2 * j + 1], s = x->shape[d];
            if (l > s || r > s) return ct__failed(CT_ERR_ARG, "pad: Padding value causes wrapping around more than once.");
            shape[d] = ct__sat_add(ct__sat_add(s, l), r);
            if (shape[d] <= 0 && (l < 0 || r < 0)) return ct__failed(CT_ERR_ARG, "pad: Negative padding value is resulting in an empty dimension");
        }
        ct__out_new(c, x->dtype, nd, shape);
        return 0;
    }
    if (x->dtype != CT_FLOAT32 && x->dtype != CT_FLOAT64)
        return ct__failed(CT_ERR_DTYPE, mode == 0 ? "%s: \"reflection_pad%dd\" not implemented for '%s'" : "%s: \"replication_pad%dd_cpu\" not implemented for '%s'",
                          name, k, CT__DTNAME(x->dtype));
    for (int d = nd == k + 2 ? 1 : 0; d < nd; d++)
        if (x->shape[d] == 0)
            return ct__failed(CT_ERR_SHAPE, "%s: Expected %dD or %dD (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: %s",
                              name, k + 1, k + 2, CT__SHAPE(x));
    for (int j = 0; j < k; j++) {
        int d = nd - 1 - j;
        int64_t l = a->v[2 * j], r = a->v[2 * j + 1], s = x->shape[d];
        static const char axis[3] = {'W', 'H', 'D'};
        if (mode == 0 && (l >= s || r >= s))
            return ct__failed(CT_ERR_ARG, "%s: Argument #%d: Padding size should be less than the corresponding input dimension, but got: padding (%lld, %lld) at dimension %d of input %s",
                              name, 4 + 2 * j, (long long)l, (long long)r, d, CT__SHAPE(x));
        shape[d] = ct__sat_add(ct__sat_add(s, l), r);
        if (shape[d] < 1)
            return ct__failed(CT_ERR_ARG, "%s: input (%c: %lld) is too small. Calculated output %c: %lld", name, axis[j], (long long)s, axis[j], (long long)shape[d]);
    }
    ct__out_new(c, x->dtype, nd, shape);
    return 0;
}
/* source index of output position o along a padded dim of size s with pads l, r.
   circular wraps around the input as cropped by negative pads (PyTorch's
   _pad_circular fills the borders from the already copied middle). */
CT__INLINE CT__HOSTDEV int64_t ct__pad_src(int mode, int64_t o, int64_t l, int64_t r, int64_t s) {
    int64_t i = o - l;
    if (mode == 0) {
        if (i < 0) i = -i;
        if (i >= s) i = 2 * (s - 1) - i;
        return i;
    }
    if (mode == 1) return i < 0 ? 0 : i >= s ? s - 1 : i;
    if (mode == 3) return i >= 0 && i < s ? i : -1;   /* constant: -1 is padding */
    int64_t lo = l < 0 ? -l : 0, m = s - lo - (r < 0 ? -r : 0);
    i = o - (l > 0 ? l : 0);
    return lo + ((i % m) + m) % m;
}
/* geometry shared by the pad kernel and its backward: k padded dims (outermost first),
   input sizes in[], output sizes on[], maps[j][o] -> input index, batch = leading dims */
typedef struct ct__padgeo { int k; int64_t batch, in[3], on[3], l[3], inplane, outplane; int64_t *map[3]; int64_t *buf; } ct__padgeo;
static int ct__padgeo_init(ct__padgeo *g, int mode, int nd, const int64_t *xshape, const int64_t *pads, int npad) {
    g->k = npad / 2;
    g->batch = 1;
    for (int d = 0; d < nd - g->k; d++) g->batch *= xshape[d];
    int64_t tot = 0;
    g->inplane = g->outplane = 1;
    for (int j = 0; j < g->k; j++) {
        int p = g->k - 1 - j, d = nd - 1 - j;   /* p: position outermost-first */
        g->in[p] = xshape[d];
        g->l[p] = pads[2 * j];
        g->on[p] = xshape[d] + pads[2 * j] + pads[2 * j + 1];
        tot += g->on[p];
    }
    for (int p = 0; p < g->k; p++) { g->inplane *= g->in[p]; g->outplane *= g->on[p]; }
    g->buf = CT__NEW_ARRAY(int64_t, tot);
    if (!g->buf) return ct__failed(CT_ERR_MEMORY, "pad: out of memory");
    int64_t *q = g->buf;
    for (int p = 0; p < g->k; p++) {
        g->map[p] = q;
        for (int64_t o = 0; o < g->on[p]; o++) q[o] = ct__pad_src(mode, o, g->l[p], g->on[p] - g->in[p] - g->l[p], g->in[p]);
        q += g->on[p];
    }
    return 0;
}
/* input element offset (in elements, within one batch plane) of the output row r
   (r runs over the outer padded dims; the last padded dim is the row) */
CT__INLINE int64_t ct__padgeo_row(const ct__padgeo *g, int64_t r) {
    int64_t off = 0, mul = g->in[g->k - 1];
    for (int p = g->k - 2; p >= 0; p--) {
        int64_t o = r % g->on[p], i;
        r /= g->on[p];
        if ((i = g->map[p][o]) < 0) return -1;   /* a padding row (constant mode) */
        off += i * mul;
        mul *= g->in[p];
    }
    return off;
}
typedef struct { int64_t rpp; ct__padgeo g; char * op; int64_t W; size_t es; const unsigned char * one; int64_t L; const char * xp; int64_t IW; } ct__k_pad_c1;
static void ct__k_pad_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__k_pad_c1 *q_ = (const ct__k_pad_c1 *)c_;
    int64_t rpp = q_->rpp; (void)rpp;
    ct__padgeo g = q_->g; (void)g;
    char * op = q_->op; (void)op;
    int64_t W = q_->W; (void)W;
    size_t es = q_->es; (void)es;
    const unsigned char * one = q_->one; (void)one;
    int64_t L = q_->L; (void)L;
    const char * xp = q_->xp; (void)xp;
    int64_t IW = q_->IW; (void)IW;
    for (int64_t r = (int64_t)lo_; r < hi_; r++) {
            int64_t b = r / rpp, src = ct__padgeo_row(&g, r - b * rpp);
            char *dst = op + (size_t)(r * W) * es;
            if (src < 0) { ct__ix_fill(dst, one, W, es); continue; }
            ct__ix_fill(dst, one, L, es);
            memcpy(dst + L * (int64_t)es, xp + (size_t)(b * g.inplane + src) * es, (size_t)IW * es);
            ct__ix_fill(dst + (L + IW) * (int64_t)es, one, W - L - IW, es);
        }
}
typedef struct { int64_t rows_per_plane; const char * xp; ct__padgeo g; size_t es; char * op; int64_t W; int mid; int64_t L; int64_t IW; const int64_t * mw; } ct__k_pad_c2;
static void ct__k_pad_b2(void *c_, int64_t lo_, int64_t hi_) {
    const ct__k_pad_c2 *q_ = (const ct__k_pad_c2 *)c_;
    int64_t rows_per_plane = q_->rows_per_plane; (void)rows_per_plane;
    const char * xp = q_->xp; (void)xp;
    ct__padgeo g = q_->g; (void)g;
    size_t es = q_->es; (void)es;
    char * op = q_->op; (void)op;
    int64_t W = q_->W; (void)W;
    int mid = q_->mid; (void)mid;
    int64_t L = q_->L; (void)L;
    int64_t IW = q_->IW; (void)IW;
    const int64_t * mw = q_->mw; (void)mw;
    for (int64_t r = (int64_t)lo_; r < hi_; r++) {
        int64_t b = r / rows_per_plane, rr = r - b * rows_per_plane;
        const char *src = xp + (size_t)(b * g.inplane + ct__padgeo_row(&g, rr)) * es;
        char *dst = op + (size_t)(r * W) * es;
        if (mid) {
            memcpy(dst + L * (int64_t)es, src, (size_t)IW * es);
            for (int64_t w = 0; w < L; w++) ct__elcp(dst + w * (int64_t)es, src + mw[w] * (int64_t)es, es);
            for (int64_t w = L + IW; w < W; w++) ct__elcp(dst + w * (int64_t)es, src + mw[w] * (int64_t)es, es);
        } else {
            for (int64_t w = 0; w < W; w++) ct__elcp(dst + w * (int64_t)es, src + mw[w] * (int64_t)es, es);
        }
    }
}
static int ct__k_pad(ct__call *c) {
    ct_tensor *x = c->in[0], *out = c->out[0];
    const ct__attrs *a = c->a;
    int nd = x->ndim, k = a->nv / 2;
    if (ct_numel(out) == 0) return 0;
    int nonneg = k > 0;
    for (int j = 0; j < a->nv; j++) nonneg &= a->v[j] >= 0;
    if (c->op == CT__OP_CONSTANT_PAD && nonneg && ct_numel(x) > 0) {
        /* rows of the output: padding rows are filled, others are fill + copy + fill */
        ct__padgeo g;
        if (ct__padgeo_init(&g, 3, nd, x->shape, a->v, a->nv)) return -1;
        ct_tensor *xc = ct__contig_ref(x);
        if (!xc) { CT_FREE(g.buf); return -1; }
        size_t es = ct__dt[x->dtype].size;
        unsigned char one[16];
        memset(one, 0, sizeof one);
        ct__store_f64(one, x->dtype, a->s[0]);
        const char *xp = ct__ptr(xc);
        char *op = ct__ptr(out);
        int64_t W = g.on[k - 1], IW = g.in[k - 1], L = g.l[k - 1], rpp = g.outplane / W, rows = g.batch * rpp;
    int ct__par = (ct_numel(out) >= 4 * CT__GRAIN) && ct__par_threads() > 1;
        ct__k_pad_c1 q1_ = {rpp, g, op, W, es, one, L, xp, IW}; ct__rrun(rows, ct__par, ct__k_pad_b1, &q1_);
        ct__decref(xc);
        CT_FREE(g.buf);
        return 0;
    }
    if (c->op == CT__OP_CONSTANT_PAD) {
        int64_t ssh[CT_MAX_DIMS], soff = x->offset, doff = out->offset;
        ct__fill_raw(out, a->s[0]);
        for (int d = 0; d < nd; d++) ssh[d] = x->shape[d];
        for (int j = 0; j < k; j++) {
            int d = nd - 1 - j;
            int64_t l = a->v[2 * j], r = a->v[2 * j + 1];
            if (l < 0) { soff -= l * x->strides[d]; ssh[d] += l; }
            else doff += l * out->strides[d];
            if (r < 0) ssh[d] += r;
        }
        if (ct__shape_numel(nd, ssh) == 0) return 0;
        ct_tensor sv = ct__ix_view(x, nd, ssh, x->strides, soff);
        ct_tensor dv = ct__ix_view(out, nd, ssh, out->strides, doff);
        return ct__copy_into(&dv, &sv);
    }
    int mode = ct__pad_mode(c->op);
    ct__padgeo g;
    if (ct__padgeo_init(&g, mode, nd, x->shape, a->v, a->nv)) return -1;
    ct_tensor *xc = ct__contig_ref(x);
    if (!xc) { CT_FREE(g.buf); return -1; }
    size_t es = ct__dt[x->dtype].size;
    const char *xp = ct__ptr(xc);
    char *op = ct__ptr(out);
    int64_t W = g.on[k - 1], IW = g.in[k - 1], L = g.l[k - 1], rows = g.batch * (g.outplane / W);
    int64_t rows_per_plane = g.outplane / W;
    const int64_t *mw = g.map[k - 1];
    int mid = L >= 0 && W - L - IW >= 0;   /* the input row lands whole in the middle */
    int ct__par = (ct_numel(out) >= 4 * CT__GRAIN) && ct__par_threads() > 1;
    ct__k_pad_c2 q2_ = {rows_per_plane, xp, g, es, op, W, mid, L, IW, mw}; ct__rrun(rows, ct__par, ct__k_pad_b2, &q2_);
    ct__decref(xc);
    CT_FREE(g.buf);
    return 0;
}
static int ct__meta_pad_backward(ct__call *c) {
    ct_tensor *g = c->in[0];
    const ct__attrs *a = c->a;
    int64_t shape[CT_MAX_DIMS];
    if (!CT__ISFLOAT(g->dtype)) return ct__failed(CT_ERR_DTYPE, "pad_backward: not implemented for '%s'", CT__DTNAME(g->dtype));
    if (a->mode < 0 || a->mode > 2) return ct__failed(CT_ERR_ARG, "pad_backward: mode %d is not reflect (0), replicate (1) or circular (2)", (int)a->mode);
    if (a->nv % 2 || a->nv / 2 < 1 || a->nv / 2 > g->ndim) return ct__failed(CT_ERR_ARG, "pad_backward: %d pads for a %d-D gradient", (int)a->nv, g->ndim);
    for (int d = 0; d < g->ndim; d++) shape[d] = g->shape[d];
    for (int j = 0; j < a->nv / 2; j++) {
        int d = g->ndim - 1 - j;
        shape[d] = ct__sat_sub(shape[d], ct__sat_add(a->v[2 * j], a->v[2 * j + 1]));
        if (shape[d] < 1) return ct__failed(CT_ERR_ARG, "pad_backward: pads (%lld, %lld) leave no input at dimension %d", (long long)a->v[2 * j], (long long)a->v[2 * j + 1], d);
    }
    ct__out_new(c, g->dtype, g->ndim, shape);
    return 0;
}
typedef struct { int64_t rows_per_plane; char * xp; ct__padgeo g; size_t es; const char * gp; int64_t W; ct_dtype dt; const int64_t * mw; } ct__k_pad_backward_c1;
static void ct__k_pad_backward_b1(void *c_, int64_t lo_, int64_t hi_) {
    const ct__k_pad_backward_c1 *q_ = (const ct__k_pad_backward_c1 *)c_;
    int64_t rows_per_plane = q_->rows_per_plane; (void)rows_per_plane;
    char * xp = q_->xp; (void)xp;
    ct__padgeo g = q_->g; (void)g;
    size_t es = q_->es; (void)es;
    const char * gp = q_->gp; (void)gp;
    int64_t W = q_->W; (void)W;
    ct_dtype dt = q_->dt; (void)dt;
    const int64_t * mw = q_->mw; (void)mw;
    for (int64_t b = (int64_t)lo_; b < hi_; b++) {
        for (int64_t rr = 0; rr < rows_per_plane; rr++) {
            char *dst = xp + (size_t)(b * g.inplane + ct__padgeo_row(&g, rr)) * es;
            const char *src = gp + (size_t)((b * rows_per_plane + rr) * W) * es;
            if (dt == CT_FLOAT32) {
                for (int64_t w = 0; w < W; w++) ((float *)dst)[mw[w]] += ((const float *)src)[w];
            } else if (dt == CT_FLOAT64) {
                for (int64_t w = 0; w < W; w++) ((double *)dst)[mw[w]] += ((const double *)src)[w];
            } else {
                for (int64_t w = 0; w < W; w++) {
                    char *q = dst + mw[w] * (int64_t)es;
                    ct__store_f64(q, dt, ct__load_f64(q, dt) + ct__load_f64(src + w * (int64_t)es, dt));
                }
            }
        }
    }
}
static int ct__k_pad_backward(ct__call *c) {
    ct_tensor *gy = c->in[0], *gx = c->out[0];
    const ct__attrs *a = c->a;
    int nd = gx->ndim, k = a->nv / 2;
    int64_t n = ct_numel(gx);
    if (n == 0) return 0;
    memset(ct__ptr(gx), 0, (size_t)n * ct__dt[gx->dtype].size);
    if (ct_numel(gy) == 0) return 0;
    ct__padgeo g;
    if (ct__padgeo_init(&g, a->mode, nd, gx->shape, a->v, a->nv)) return -1;
    ct_tensor *gc = ct__contig_ref(gy);
    if (!gc) { CT_FREE(g.buf); return -1; }
    ct_dtype dt = gx->dtype;
    size_t es = ct__dt[dt].size;
    const char *gp = ct__ptr(gc);
    char *xp = ct__ptr(gx);
    int64_t W = g.on[k - 1], rows_per_plane = g.outplane / W;
    const int64_t *mw = g.map[k - 1];
    /* batches are independent: split them over threads */
    int ct__par = (ct_numel(gy) >= 4 * CT__GRAIN && g.batch > 1) && ct__par_threads() > 1;
    ct__k_pad_backward_c1 q1_ = {rows_per_plane, xp, g, es, gp, W, dt, mw}; ct__rrun(g.batch, ct__par, ct__k_pad_backward_b1, &q1_);
    ct__decref(gc);
    CT_FREE(g.buf);
    return 0;
}

/* ---- backward rules (PyTorch: derivatives.yaml), written with ctensor ops ---- */
#define CT__IX_BW_IDX ct_tensor *Ix = CT__SV_IN(n, 1); if (!Ix) return -1;
static int ct__bw_index_select(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__IX_BW_IDX
    ct__tmeta *m = &n->in_meta[0];
    if (CT__IX_NEEDS(n, 0) && !(gin[0] = ct_index_add(ct_zeros_on_n(gout[0]->device, gout[0]->dtype, m->ndim, m->shape), (int)n->attrs.i[0], Ix, gout[0], 1.0)))
        return -1;
    return 0;
}
static int ct__bw_gather(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__IX_BW_IDX
    ct__tmeta *m = &n->in_meta[0];
    if (CT__IX_NEEDS(n, 0) && !(gin[0] = ct_scatter_add(ct_zeros_on_n(gout[0]->device, gout[0]->dtype, m->ndim, m->shape), (int)n->attrs.i[0], Ix, gout[0])))
        return -1;
    return 0;
}
static int ct__bw_scatter(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__IX_BW_IDX
    int dim = (int)n->attrs.i[0];
    if (CT__IX_NEEDS(n, 0) && !(gin[0] = ct_scatter_value(gout[0], dim, Ix, 0.0))) return -1;
    if (n->nin > 2 && CT__IX_NEEDS(n, 2) && !(gin[2] = ct_gather(gout[0], dim, Ix))) return -1;
    return 0;
}
static int ct__bw_scatter_add(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__IX_BW_IDX
    if (CT__IX_NEEDS(n, 0)) gin[0] = gout[0];
    if (CT__IX_NEEDS(n, 2) && !(gin[2] = ct_gather(gout[0], (int)n->attrs.i[0], Ix))) return -1;
    return 0;
}
/* PyTorch: scatter_reduce_backward (FunctionsManual.cpp) */
static int ct__bw_scatter_reduce(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *S = CT__SV_IN(n, 0), *Ix = CT__SV_IN(n, 1), *Src = CT__SV_IN(n, 2), *R = CT__SV_OUT(n, 0), *g = gout[0];
    if (!S || !Ix || !Src || !R) return -1;
    int dim = (int)n->attrs.i[0], mode = n->attrs.mode, include_self = n->attrs.flags & 1;
    ct_dtype dt = g->dtype;
    ct_tensor *gs = NULL, *gsrc = NULL;
    if (mode == 0) {
        gs = g;
        gsrc = ct_gather(g, dim, Ix);
    } else if (mode == 1) {
        ct_tensor *ms = ct_masked_fill(S, ct_eq_scalar(S, 0.0), 1.0);
        gs = ct_div(ct_mul(g, ct_scatter_reduce(ms, dim, Ix, Src, "prod", include_self)), ms);
        ct_tensor *src_zero = ct_eq_scalar(Src, 0.0);
        ct_tensor *nz = ct_gather(ct_scatter_add(ct_zeros_like(S), dim, Ix, ct_to(src_zero, dt)), dim, Ix);
        ct_tensor *single = ct_logical_and(src_zero, ct_eq_scalar(nz, 1.0));
        ct_tensor *msr = ct_scatter_reduce(S, dim, Ix, ct_masked_fill(Src, single, 1.0), "prod", include_self);
        gsrc = ct_where(single, ct_gather(ct_mul(g, msr), dim, Ix), ct_div(ct_gather(ct_mul(g, R), dim, Ix), ct_masked_fill(Src, src_zero, 1.0)));
    } else if (mode == 2) {
        ct_tensor *N = include_self ? ct_ones_like(g) : ct_zeros_like(g);
        N = ct_scatter_add(N, dim, Ix, ct_ones_like(Src));
        N = ct_masked_fill(N, ct_eq_scalar(N, 0.0), 1.0);
        gs = ct_div(g, N);
        gsrc = ct_div(ct_gather(g, dim, Ix), ct_gather(N, dim, Ix));
    } else {
        /* amax / amin: ties share the gradient evenly */
        ct_tensor *value = ct_gather(R, dim, Ix);
        ct_tensor *self_is = ct_eq(S, R), *src_is = ct_eq(Src, value);
        ct_tensor *cnt = ct_scatter_add(ct_to(self_is, dt), dim, Ix, ct_to(src_is, dt));
        ct_tensor *gd = ct_div(g, cnt);
        gs = ct_mul(ct_to(self_is, dt), gd);
        gsrc = ct_mul(ct_to(src_is, dt), ct_gather(gd, dim, Ix));
    }
    if (gs && !include_self) gs = ct_scatter_value(gs, dim, Ix, 0.0);
    if (!gs || !gsrc) return -1;
    if (CT__IX_NEEDS(n, 0)) gin[0] = gs;
    if (CT__IX_NEEDS(n, 2)) gin[2] = gsrc;
    return 0;
}
/* index_add's source gradient: index_select of the gradient, summed over the dims
   where the source slice was broadcast (PyTorch would fail there) */
static ct_tensor *ct__index_add_src_grad(ct_tensor *g, int dim, const ct_tensor *Ix, const ct__tmeta *sm) {
    ct_tensor *gs = ct_index_select(g, dim, Ix);
    if (!gs) return NULL;
    int same = gs->ndim == sm->ndim;
    for (int d = 0; same && d < sm->ndim; d++) same = gs->shape[d] == sm->shape[d];
    if (same) return gs;
    if (sm->ndim == 0) return ct_sum(gs);
    if (gs->ndim == 0) return ct_reshape_n(gs, sm->ndim, sm->shape);
    /* move dim to the front, sum the slice down to the source slice, move it back */
    int nd = gs->ndim, ns = sm->ndim;
    int64_t perm[CT_MAX_DIMS], tshape[CT_MAX_DIMS], sshape[CT_MAX_DIMS], inv[CT_MAX_DIMS];
    int k = 0;
    perm[k++] = dim;
    for (int d = 0; d < nd; d++) if (d != dim) perm[k++] = d;
    gs = ct_permute_n(gs, nd, perm);
    tshape[0] = sm->shape[dim];
    for (int d = 1; d < nd; d++) tshape[d] = 1;
    for (int d = 0, q = 0; d < ns; d++)
        if (d != dim) { tshape[nd - (ns - 1) + q] = sm->shape[d]; q++; }
    gs = ct_sum_to_size_n(gs, nd, tshape);
    sshape[0] = sm->shape[dim];
    for (int d = 0, q = 1; d < ns; d++) if (d != dim) sshape[q++] = sm->shape[d];
    gs = ct_reshape_n(gs, ns, sshape);
    for (int d = 0; d < ns; d++) inv[d] = d == dim ? 0 : (d < dim ? d + 1 : d);
    return ct_permute_n(gs, ns, inv);
}
static int ct__bw_index_add(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__IX_BW_IDX
    double alpha = n->attrs.s[0];
    if (CT__IX_NEEDS(n, 0)) gin[0] = gout[0];
    if (CT__IX_NEEDS(n, 2)) {
        ct_tensor *gs = ct__index_add_src_grad(gout[0], (int)n->attrs.i[0], Ix, &n->in_meta[2]);
        if (gs && alpha != 1.0) gs = ct_mul_scalar(gs, alpha);
        if (!(gin[2] = gs)) return -1;
    }
    return 0;
}
static int ct__bw_index_copy(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__IX_BW_IDX
    int dim = (int)n->attrs.i[0];
    if (CT__IX_NEEDS(n, 0) && !(gin[0] = ct_index_fill(gout[0], dim, Ix, 0.0))) return -1;
    if (CT__IX_NEEDS(n, 2) && !(gin[2] = ct_index_select(gout[0], dim, Ix))) return -1;
    return 0;
}
static int ct__bw_index_fill(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__IX_BW_IDX
    if (CT__IX_NEEDS(n, 0) && !(gin[0] = ct_index_fill(gout[0], (int)n->attrs.i[0], Ix, 0.0))) return -1;
    return 0;
}
/* the index list of an index / index_put node (CT_SLICE_ALL for dims not indexed) */
static int ct__bw_index_list(ct__node *n, int first, ct_tensor **list) {
    uint32_t mask = (uint32_t)n->attrs.i[1];
    int k = first, len = 0;
    for (int d = 0; d < CT_MAX_DIMS; d++) {
        list[d] = CT_SLICE_ALL;
        if (mask & (1u << d)) {
            if (!(list[d] = CT__SV_IN(n, k++))) return -1;
            len = d + 1;
        }
    }
    return len;
}
static int ct__bw_index(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *list[CT_MAX_DIMS];
    int len = ct__bw_index_list(n, 1, list);
    if (len < 0) return -1;
    ct__tmeta *m = &n->in_meta[0];
    if (CT__IX_NEEDS(n, 0) && !(gin[0] = ct_index_put(ct_zeros_on_n(gout[0]->device, gout[0]->dtype, m->ndim, m->shape), len, list, gout[0], 1))) return -1;
    return 0;
}
static int ct__bw_index_put(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *list[CT_MAX_DIMS];
    int len = ct__bw_index_list(n, 2, list);
    if (len < 0) return -1;
    if (CT__IX_NEEDS(n, 0)) {
        gin[0] = (n->attrs.flags & 1) ? gout[0] : ct_index_put(gout[0], len, list, ct_scalar_tensor(0.0, gout[0]->dtype), 0);
        if (!gin[0]) return -1;
    }
    if (CT__IX_NEEDS(n, 1) && !(gin[1] = ct_index(gout[0], len, list))) return -1;
    return 0;
}
static int ct__bw_masked_select(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *M = CT__SV_IN(n, 1);
    if (!M) return -1;
    int64_t shape[CT_MAX_DIMS] = {0};
    int nd = ct__bshape2(n->in_meta[0].ndim, n->in_meta[0].shape, n->in_meta[1].ndim, n->in_meta[1].shape, shape);
    if (CT__IX_NEEDS(n, 0) && !(gin[0] = ct_masked_scatter(ct_zeros_on_n(gout[0]->device, gout[0]->dtype, nd, shape), M, gout[0]))) return -1;
    return 0;
}
static int ct__bw_masked_scatter(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *M = CT__SV_IN(n, 1);
    if (!M) return -1;
    if (CT__IX_NEEDS(n, 0) && !(gin[0] = ct_masked_fill(gout[0], M, 0.0))) return -1;
    if (CT__IX_NEEDS(n, 2)) {
        const ct__tmeta *sm = &n->in_meta[2];
        ct_tensor *sel = ct_masked_select(gout[0], M);
        if (!sel) return -1;
        int64_t diff = ct__shape_numel(sm->ndim, sm->shape) - ct_numel(sel), pads[2];
        pads[0] = 0;
        pads[1] = diff;
        if (diff > 0) sel = ct_pad(sel, 2, pads, "constant", 0.0);
        if (!(gin[2] = ct_reshape_n(sel, sm->ndim, sm->shape))) return -1;
    }
    return 0;
}
static int ct__bw_take(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__IX_BW_IDX
    ct__tmeta *m = &n->in_meta[0];
    if (CT__IX_NEEDS(n, 0)) {
        int64_t numel = ct__shape_numel(m->ndim, m->shape);
        ct_tensor *flat = ct_reshape(Ix, -1);
        ct_tensor *r = ct_index_put(ct_zeros_on_n(gout[0]->device, gout[0]->dtype, 1, &numel), 1, &flat, ct_reshape(gout[0], -1), 1);
        if (!(gin[0] = ct_reshape_n(r, m->ndim, m->shape))) return -1;
    }
    return 0;
}
static int ct__bw_cat(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    int dim = ct__wrap_dim((int)n->attrs.i[0], gout[0]->ndim);
    int64_t off = 0;
    for (int i = 0; i < n->nin; i++) {
        const ct__tmeta *m = &n->in_meta[i];
        if (m->ndim == 1 && m->shape[0] == 0 && gout[0]->ndim != 1) {   /* a skipped legacy empty input */
            if (CT__IX_NEEDS(n, i) && !(gin[i] = ct_zeros_on_n(m->device, m->dtype, 1, m->shape))) return -1;
            continue;
        }
        int64_t sz = m->shape[dim];
        if (CT__IX_NEEDS(n, i) && !(gin[i] = ct_narrow(gout[0], dim, off, sz))) return -1;
        off += sz;
    }
    return 0;
}
static int ct__bw_stack(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    for (int i = 0; i < n->nin; i++)
        if (CT__IX_NEEDS(n, i) && !(gin[i] = ct_select(gout[0], (int)n->attrs.i[0], i))) return -1;
    return 0;
}
static int ct__bw_flip(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    gin[0] = ct_flip(gout[0], n->attrs.nv, n->attrs.v);
    return gin[0] ? 0 : -1;
}
static int ct__bw_roll(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    int64_t neg[CT_MAX_DIMS];
    for (int k = 0; k < n->attrs.nv; k++) neg[k] = -n->attrs.v[k];
    gin[0] = ct_roll(gout[0], n->attrs.nv, neg, n->attrs.nv, n->attrs.v + n->attrs.nv);
    return gin[0] ? 0 : -1;
}
static int ct__bw_repeat(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    /* sum over the repetitions one dim at a time: view it as [prefix, r, size, suffix] */
    const ct__tmeta *m = &n->in_meta[0];
    int nr = n->attrs.nv;
    int64_t cur[CT_MAX_DIMS], xs[CT_MAX_DIMS];
    ct_tensor *g = gout[0];
    for (int d = 0; d < nr; d++) {
        int xd = d - (nr - m->ndim);
        xs[d] = xd >= 0 ? m->shape[xd] : 1;
        cur[d] = g->shape[d];
    }
    for (int d = 0; d < nr && g; d++) {
        int64_t r = n->attrs.v[d], v4[4];
        if (r == 1) continue;
        v4[0] = 1;
        v4[3] = 1;
        for (int e = 0; e < d; e++) v4[0] *= cur[e];
        for (int e = d + 1; e < nr; e++) v4[3] *= cur[e];
        v4[1] = r;
        v4[2] = xs[d];
        g = ct_sum_dim(ct_reshape_n(g, 4, v4), 1, 0);
        cur[d] = xs[d];
        g = ct_reshape_n(g, nr, cur);
    }
    gin[0] = ct_reshape_n(g, m->ndim, m->shape);
    return gin[0] ? 0 : -1;
}
static int ct__bw_tri(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    gin[0] = n->op == CT__OP_TRIL ? ct_tril(gout[0], n->attrs.i[0]) : ct_triu(gout[0], n->attrs.i[0]);
    return gin[0] ? 0 : -1;
}
static int ct__bw_diag_embed(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    gin[0] = ct_diagonal(gout[0], n->attrs.i[0], (int)n->attrs.i[1], (int)n->attrs.i[2]);
    return gin[0] ? 0 : -1;
}
static int ct__bw_constant_pad(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    int64_t neg[2 * CT_MAX_DIMS];
    for (int k = 0; k < n->attrs.nv; k++) neg[k] = -n->attrs.v[k];
    gin[0] = ct_pad(gout[0], n->attrs.nv, neg, "constant", 0.0);
    return gin[0] ? 0 : -1;
}
static int ct__bw_pad(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.nv = n->attrs.nv;
    for (int k = 0; k < a.nv; k++) a.v[k] = n->attrs.v[k];
    a.mode = ct__pad_mode(n->op);
    gin[0] = ct__op1(CT__OP_PAD_BACKWARD, gout[0], &a);
    return gin[0] ? 0 : -1;
}
static int ct__bw_pad_backward(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    gin[0] = ct_pad(gout[0], n->attrs.nv, n->attrs.v, ct__pad_mode_names[n->attrs.mode], 0.0);
    return gin[0] ? 0 : -1;
}

/* ---- public functions ---- */
static ct_tensor *ct__ix_op(int op, int inplace, int nin, const ct_tensor *x, int dim, const ct_tensor *idx, const ct_tensor *src, double s0) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = dim;
    a.s[0] = s0;
    ct_tensor *in[3];
    in[0] = (ct_tensor *)x;
    in[1] = (ct_tensor *)idx;
    in[2] = (ct_tensor *)src;
    return inplace ? ct__call1_(op, nin, in, &a) : ct__call1(op, nin, in, &a);
}
/* Complex inputs of the data-movement ops (flip, roll, index_select, repeat, cat,
   stack) run on their view_as_real, whose last dim holds the parts: dims are made
   non-negative first, and the result is viewed back (autograd follows the views). */
static int ct__cx_dims(const char *op, const ct_tensor *x, int n, const int64_t *dims, int64_t *out) {
    if (!x || !ct_dtype_is_complex(x->dtype) || n > CT_MAX_DIMS) return 0;
    for (int k = 0; k < n; k++)
        if ((out[k] = ct__dim(op, dims[k], x->ndim)) < 0) return -1;
    return 1;
}
CTENSOR_API ct_tensor *ct_index_select(const ct_tensor *x, int dim, const ct_tensor *index) {
    int64_t d = dim;
    int cx = ct__cx_dims("index_select", x, 1, &d, &d);
    if (cx) return cx < 0 ? NULL : ct_view_as_complex(ct_index_select(ct_view_as_real(x), (int)d, index));
    return ct__ix_op(CT__OP_INDEX_SELECT, 0, 2, x, dim, index, NULL, 0.0);
}
CTENSOR_API ct_tensor *ct_gather(const ct_tensor *x, int dim, const ct_tensor *index) {
    return ct__ix_op(CT__OP_GATHER, 0, 2, x, dim, index, NULL, 0.0);
}
CTENSOR_API ct_tensor *ct_scatter(const ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src) {
    return ct__ix_op(CT__OP_SCATTER, 0, 3, x, dim, index, src, 0.0);
}
CTENSOR_API ct_tensor *ct_scatter_(ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src) {
    return ct__ix_op(CT__OP_SCATTER, 1, 3, x, dim, index, src, 0.0);
}
CTENSOR_API ct_tensor *ct_scatter_value(const ct_tensor *x, int dim, const ct_tensor *index, double value) {
    if (x && CT__ISREAL(x->dtype) && ct__check_value_arg("scatter", x->dtype, value)) return NULL;
    return ct__ix_op(CT__OP_SCATTER_VALUE, 0, 2, x, dim, index, NULL, value);
}
CTENSOR_API ct_tensor *ct_scatter_value_(ct_tensor *x, int dim, const ct_tensor *index, double value) {
    if (x && CT__ISREAL(x->dtype) && ct__check_value_arg("scatter_", x->dtype, value)) return NULL;
    return ct__ix_op(CT__OP_SCATTER_VALUE, 1, 2, x, dim, index, NULL, value);
}
CTENSOR_API ct_tensor *ct_scatter_add(const ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src) {
    return ct__ix_op(CT__OP_SCATTER_ADD, 0, 3, x, dim, index, src, 0.0);
}
CTENSOR_API ct_tensor *ct_scatter_add_(ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src) {
    return ct__ix_op(CT__OP_SCATTER_ADD, 1, 3, x, dim, index, src, 0.0);
}
static ct_tensor *ct__scatter_reduce(ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src, const char *reduce,
                                     int include_self, int inplace) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.mode = -1;
    for (int k = 0; k < 5 && reduce; k++)
        if (!strcmp(reduce, ct__reduce_names[k])) a.mode = k;
    if (a.mode < 0)
        return ct__fail(CT_ERR_ARG, "scatter_reduce(): reduce argument must be either sum, prod, mean, amax or amin, got %s", reduce ? reduce : "NULL");
    a.i[0] = dim;
    a.flags = include_self ? 1 : 0;
    ct_tensor *in[3];
    in[0] = x;
    in[1] = (ct_tensor *)index;
    in[2] = (ct_tensor *)src;
    return inplace ? ct__call1_(CT__OP_SCATTER_REDUCE, 3, in, &a) : ct__call1(CT__OP_SCATTER_REDUCE, 3, in, &a);
}
CTENSOR_API ct_tensor *ct_scatter_reduce(const ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src, const char *reduce, int include_self) {
    return ct__scatter_reduce((ct_tensor *)x, dim, index, src, reduce, include_self, 0);
}
CTENSOR_API ct_tensor *ct_scatter_reduce_(ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src, const char *reduce, int include_self) {
    return ct__scatter_reduce(x, dim, index, src, reduce, include_self, 1);
}
CTENSOR_API ct_tensor *ct_index_add(const ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src, double alpha) {
    return ct__ix_op(CT__OP_INDEX_ADD, 0, 3, x, dim, index, src, alpha);
}
CTENSOR_API ct_tensor *ct_index_add_(ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src, double alpha) {
    return ct__ix_op(CT__OP_INDEX_ADD, 1, 3, x, dim, index, src, alpha);
}
CTENSOR_API ct_tensor *ct_index_copy(const ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src) {
    return ct__ix_op(CT__OP_INDEX_COPY, 0, 3, x, dim, index, src, 0.0);
}
CTENSOR_API ct_tensor *ct_index_copy_(ct_tensor *x, int dim, const ct_tensor *index, const ct_tensor *src) {
    return ct__ix_op(CT__OP_INDEX_COPY, 1, 3, x, dim, index, src, 0.0);
}
CTENSOR_API ct_tensor *ct_index_fill(const ct_tensor *x, int dim, const ct_tensor *index, double value) {
    if (x && CT__ISREAL(x->dtype) && ct__check_value_arg("index_fill", x->dtype, value)) return NULL;
    return ct__ix_op(CT__OP_INDEX_FILL, 0, 2, x, dim, index, NULL, value);
}
CTENSOR_API ct_tensor *ct_index_fill_(ct_tensor *x, int dim, const ct_tensor *index, double value) {
    if (x && CT__ISREAL(x->dtype) && ct__check_value_arg("index_fill_", x->dtype, value)) return NULL;
    return ct__ix_op(CT__OP_INDEX_FILL, 1, 2, x, dim, index, NULL, value);
}
CTENSOR_API ct_tensor *ct_take(const ct_tensor *x, const ct_tensor *index) {
    return ct__ix_op(CT__OP_TAKE, 0, 2, x, 0, index, NULL, 0.0);
}

/* Expands an index list (CT_SLICE_ALL = `:`, bool/uint8 masks -> their nonzero
   columns) into int64 tensors, one per indexed dim, and the mask of indexed dims.
   Returns the number of index tensors, or -1. */
static int ct__index_prep(const char *op, const ct_tensor *x, int n, ct_tensor *const *indices, ct_tensor **out, uint32_t *mask) {
    int consumed = 0, dim = 0, k = 0;
    *mask = 0;
    if (n <= 0 || !indices) return ct__failed(CT_ERR_ARG, "%s: at least one index must be given", op);
    for (int i = 0; i < n; i++) {
        const ct_tensor *t = indices[i];
        if (!t) { ct__null_arg(op, i + 1); return -1; }
        consumed += (t != CT_SLICE_ALL && (t->dtype == CT_BOOL || t->dtype == CT_UINT8)) ? t->ndim : 1;
    }
    if (consumed > x->ndim) return ct__failed(CT_ERR_INDEX, "%s: too many indices for tensor of dimension %d (got %d)", op, x->ndim, consumed);
    for (int i = 0; i < n; i++) {
        ct_tensor *t = indices[i];
        if (t == CT_SLICE_ALL) { dim++; continue; }
        if (t->dtype == CT_BOOL || t->dtype == CT_UINT8) {
            if (t->ndim == 0) return ct__failed(CT_ERR_UNSUPPORTED, "%s: 0-dimensional boolean indices are not supported", op);
            for (int j = 0; j < t->ndim; j++)
                if (t->shape[j] != x->shape[dim + j])
                    return ct__failed(CT_ERR_INDEX, "%s: The shape of the mask %s at index %d does not match the shape of the indexed tensor %s at index %d", op,
                                      CT__SHAPE(t), j, CT__SHAPE(x), dim + j);
            ct_tensor *nz = ct_nonzero(t);
            if (!nz) return -1;
            for (int j = 0; j < t->ndim; j++) {
                if (!(out[k++] = ct_select(nz, 1, j))) return -1;
                *mask |= 1u << (dim + j);
            }
            dim += t->ndim;
        } else if (t->dtype == CT_INT64) {
            out[k++] = t;
            *mask |= 1u << dim;
            dim++;
        } else {
            return ct__failed(CT_ERR_INDEX, "%s: tensors used as indices must be long, byte or bool tensors", op);
        }
    }
    if (k == 0) return ct__failed(CT_ERR_ARG, "%s: at least one index must be a tensor (got only full slices)", op);
    return k;
}
static ct_tensor *ct__index_call(ct_tensor *x, int n, ct_tensor *const *indices, const ct_tensor *values, int accumulate, int put, int inplace) {
    const char *op = put ? "index_put" : "index";
    if (!x) { ct__null_arg(op, 0); return NULL; }
    ct_tensor *in[2 + CT_MAX_DIMS];
    uint32_t mask;
    int first = put ? 2 : 1, s = ct_scope_begin();
    int k = ct__index_prep(op, x, n, indices, in + first, &mask);
    ct_tensor *r = NULL;
    if (k > 0) {
        ct__attrs a;
        ct__attrs_init(&a);
        a.i[1] = (int64_t)mask;
        a.flags = accumulate ? 1 : 0;
        in[0] = x;
        if (put) in[1] = (ct_tensor *)values;
        r = inplace ? ct__call1_(put ? CT__OP_INDEX_PUT : CT__OP_INDEX, first + k, in, &a)
                    : ct__call1(put ? CT__OP_INDEX_PUT : CT__OP_INDEX, first + k, in, &a);
    }
    if (r && !inplace) ct_keep(r);
    ct_scope_end(s);
    return r;
}
CTENSOR_API ct_tensor *ct_index(const ct_tensor *x, int n, ct_tensor *const *indices) {
    return ct__index_call((ct_tensor *)x, n, indices, NULL, 0, 0, 0);
}
CTENSOR_API ct_tensor *ct_index_put(const ct_tensor *x, int n, ct_tensor *const *indices, const ct_tensor *values, int accumulate) {
    return ct__index_call((ct_tensor *)x, n, indices, values, accumulate, 1, 0);
}
CTENSOR_API ct_tensor *ct_index_put_(ct_tensor *x, int n, ct_tensor *const *indices, const ct_tensor *values, int accumulate) {
    return ct__index_call(x, n, indices, values, accumulate, 1, 1);
}
CTENSOR_API ct_tensor *ct_masked_select(const ct_tensor *x, const ct_tensor *mask) {
    ct__attrs a;
    ct__attrs_init(&a);
    if (mask && mask->dtype == CT_UINT8) mask = ct_to(mask, CT_BOOL);   /* deprecated in PyTorch, still accepted */
    return ct__op2(CT__OP_MASKED_SELECT, x, mask, &a);
}
/* masked_scatter's mask as bool: uint8 converts; other dtypes must hold only 0 and 1 */
static ct_tensor *ct__mask01(const ct_tensor *mask) {
    if (!mask || mask->dtype == CT_BOOL) return (ct_tensor *)mask;
    if (mask->dtype != CT_UINT8 && CT__ISREAL(mask->dtype)) {
        ct_tensor *m = ct__host_copy(mask, CT_FLOAT64);
        if (!m) return NULL;
        const double *p = (const double *)ct__ptr(m);
        int64_t n = ct_numel(m), bad = 0;
        for (int64_t i = 0; i < n && !bad; i++) bad = p[i] != 0.0 && p[i] != 1.0;
        ct__decref(m);
        if (bad) return ct__fail(CT_ERR_ARG, "masked_scatter: Mask tensor can take 0 and 1 values only");
    }
    return ct_to(mask, CT_BOOL);
}
CTENSOR_API ct_tensor *ct_masked_scatter(const ct_tensor *x, const ct_tensor *mask, const ct_tensor *source) {
    ct__attrs a;
    ct__attrs_init(&a);
    if (mask && !(mask = ct__mask01(mask))) return NULL;
    return ct__op3(CT__OP_MASKED_SCATTER, x, mask, source, &a);
}
CTENSOR_API ct_tensor *ct_masked_scatter_(ct_tensor *x, const ct_tensor *mask, const ct_tensor *source) {
    ct__attrs a;
    ct__attrs_init(&a);
    if (mask && !(mask = ct__mask01(mask))) return NULL;
    ct_tensor *in[3];
    in[0] = x;
    in[1] = (ct_tensor *)mask;
    in[2] = (ct_tensor *)source;
    return ct__call1_(CT__OP_MASKED_SCATTER, 3, in, &a);
}
CTENSOR_API ct_tensor *ct_nonzero(const ct_tensor *x) {
    ct__attrs a;
    ct__attrs_init(&a);
    return ct__op1(CT__OP_NONZERO, x, &a);
}
CTENSOR_API int ct_nonzero_tuple(const ct_tensor *x, ct_tensor **out, int max_out) {
    if (!x) { ct__null_arg("nonzero", 0); return -1; }
    const ct_tensor *x1 = x->ndim == 0 ? ct_reshape(x, 1) : x;
    ct_tensor *nz = ct_nonzero(x1);
    if (!nz) return -1;
    for (int j = 0; j < x1->ndim && j < max_out; j++)
        if (!(out[j] = ct_select(nz, 1, j))) return -1;
    return x1->ndim;
}
/* cat/stack with a complex input: every input in the common complex dtype, as parts */
static ct_tensor *ct__cx_join(int n, ct_tensor *const *ts, int dim, int stack) {
    ct_dtype dt = CT_NUM_DTYPES;
    int any = 0;
    for (int i = 0; i < n; i++) {
        if (!ts[i] || CT__ISQUANT(ts[i]->dtype)) return NULL;
        any |= CT__ISCOMPLEX(ts[i]->dtype);
        dt = i ? ct_promote_types(dt, ts[i]->dtype) : ts[i]->dtype;
    }
    int64_t d = dim, nd = ts[0]->ndim + stack;
    if (!any || n > 256 || d < -nd || d >= nd) return NULL;
    if (d < 0) d += nd;
    ct_tensor *parts[256];
    for (int i = 0; i < n; i++)
        if (!(parts[i] = ct_view_as_real(ct_to(ts[i], dt)))) return NULL;
    ct_tensor *r = stack ? ct_stack(n, parts, (int)d) : ct_cat(n, parts, (int)d);
    return r ? ct_view_as_complex(r) : NULL;
}
CTENSOR_API ct_tensor *ct_cat(int n, ct_tensor *const *ts, int dim) {
    ct__attrs a;
    ct__attrs_init(&a);
    if (n <= 0 || !ts) return ct__fail(CT_ERR_ARG, "torch.cat(): expected a non-empty list of Tensors");
    for (int i = 0; i < n; i++)
        if (ts[i] && CT__ISCOMPLEX(ts[i]->dtype)) {
            ct_tensor *r = ct__cx_join(n, ts, dim, 0);
            if (r) return r;
            break;
        }
    a.i[0] = dim;
    return ct__call1(CT__OP_CAT, n, ts, &a);
}
CTENSOR_API ct_tensor *ct_stack(int n, ct_tensor *const *ts, int dim) {
    ct__attrs a;
    ct__attrs_init(&a);
    if (n <= 0 || !ts) return ct__fail(CT_ERR_ARG, "stack expects a non-empty TensorList");
    for (int i = 0; i < n; i++)
        if (ts[i] && CT__ISCOMPLEX(ts[i]->dtype)) {
            ct_tensor *r = ct__cx_join(n, ts, dim, 1);
            if (r) return r;
            break;
        }
    a.i[0] = dim;
    return ct__call1(CT__OP_STACK, n, ts, &a);
}
/* the pieces of a split as narrow views: sizes[i] along dim */
static int ct__split_views(const ct_tensor *x, int d, int64_t count, const int64_t *sizes, int64_t fixed, ct_tensor **out, int max_out) {
    if (count > INT_MAX) { ct_set_error(CT_ERR_ARG, "split: too many pieces (%lld)", (long long)count); return -1; }
    int64_t off = 0, size = x->shape[d];
    for (int64_t i = 0; i < count; i++) {
        int64_t len = sizes ? sizes[i] : CT__MIN(fixed, size - off);
        if (i < max_out && out && !(out[i] = ct_narrow(x, d, off, len))) return -1;
        off += len;
    }
    return (int)count;
}
CTENSOR_API int ct_split(const ct_tensor *x, int64_t split_size, int dim, ct_tensor **out, int max_out) {
    if (!x) { ct__null_arg("split", 0); return -1; }
    if (x->ndim == 0) { ct_set_error(CT_ERR_ARG, "split expects at least a 1-dimensional tensor"); return -1; }
    int d = ct__dim("split", dim, x->ndim);
    if (d < 0) return -1;
    int64_t size = x->shape[d], num = 1;
    if (split_size < 0) { ct_set_error(CT_ERR_ARG, "split expects split_size be non-negative, but got split_size=%lld", (long long)split_size); return -1; }
    if (split_size == 0 && size != 0) {
        ct_set_error(CT_ERR_ARG, "split_size can only be 0 if dimension size is 0, but got dimension size of %lld", (long long)size);
        return -1;
    }
    if (split_size != 0) num = CT__MAX((size + split_size - 1) / split_size, 1);
    return ct__split_views(x, d, num, NULL, split_size, out, max_out);
}
CTENSOR_API int ct_split_sizes(const ct_tensor *x, int nsizes, const int64_t *sizes, int dim, ct_tensor **out, int max_out) {
    if (!x) { ct__null_arg("split_with_sizes", 0); return -1; }
    if (x->ndim == 0) { ct_set_error(CT_ERR_ARG, "split expects at least a 1-dimensional tensor"); return -1; }
    if (nsizes < 0 || (nsizes > 0 && !sizes)) { ct_set_error(CT_ERR_ARG, "split_with_sizes: sizes must be given"); return -1; }
    int d = ct__dim("split_with_sizes", dim, x->ndim);
    if (d < 0) return -1;
    int64_t sum = 0;
    for (int i = 0; i < nsizes; i++) {
        if (sizes[i] < 0) {
            ct_set_error(CT_ERR_ARG, "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=%s", ct__fmt_shape(nsizes, sizes).s);
            return -1;
        }
        sum += sizes[i];
    }
    if (sum != x->shape[d]) {
        ct_set_error(CT_ERR_ARG, "split_with_sizes expects split_sizes to sum exactly to %lld (input tensor's size at dimension %d), but got split_sizes=%s",
                     (long long)x->shape[d], d, ct__fmt_shape(nsizes, sizes).s);
        return -1;
    }
    return ct__split_views(x, d, nsizes, sizes, 0, out, max_out);
}
CTENSOR_API int ct_chunk(const ct_tensor *x, int chunks, int dim, ct_tensor **out, int max_out) {
    if (!x) { ct__null_arg("chunk", 0); return -1; }
    if (x->ndim == 0) { ct_set_error(CT_ERR_ARG, "chunk expects at least a 1-dimensional tensor"); return -1; }
    if (chunks <= 0) { ct_set_error(CT_ERR_ARG, "chunk expects `chunks` to be greater than 0, got: %d", chunks); return -1; }
    int d = ct__dim("chunk", dim, x->ndim);
    if (d < 0) return -1;
    int64_t size = x->shape[d], split = (size + chunks - 1) / chunks;
    if (split == 0 && size == 0) {
        int64_t zero = 0;
        for (int i = 0; i < chunks && i < max_out && out; i++)
            if (!(out[i] = ct_narrow(x, d, 0, zero))) return -1;
        return chunks;
    }
    return ct_split(x, split, d, out, max_out);
}
CTENSOR_API int ct_unbind(const ct_tensor *x, int dim, ct_tensor **out, int max_out) {
    if (!x) { ct__null_arg("unbind", 0); return -1; }
    if (x->ndim == 0) { ct_set_error(CT_ERR_INDEX, "unbind: Dimension specified as %d but tensor has no dimensions", dim); return -1; }
    int d = ct__dim("unbind", dim, x->ndim);
    if (d < 0) return -1;
    int64_t n = x->shape[d];
    if (n > INT_MAX) { ct_set_error(CT_ERR_ARG, "unbind: too many pieces (%lld)", (long long)n); return -1; }
    for (int64_t i = 0; i < n && i < max_out && out; i++)
        if (!(out[i] = ct_select(x, d, i))) return -1;
    return (int)n;
}
CTENSOR_API ct_tensor *ct_flip(const ct_tensor *x, int ndims, const int64_t *dims) {
    ct__attrs a;
    ct__attrs_init(&a);
    if (ndims < 0 || ndims > CT_MAX_DIMS || (ndims > 0 && !dims))
        return ct__fail(CT_ERR_ARG, "flip: expected at most %d dims (got %d)", CT_MAX_DIMS, ndims);
    int64_t cd[CT_MAX_DIMS];
    int cx = ct__cx_dims("flip", x, ndims, dims, cd);
    if (cx) return cx < 0 ? NULL : ct_view_as_complex(ct_flip(ct_view_as_real(x), ndims, cd));
    a.nv = ndims;
    for (int k = 0; k < ndims; k++) a.v[k] = dims[k];
    return ct__op1(CT__OP_FLIP, x, &a);
}
CTENSOR_API ct_tensor *ct_roll(const ct_tensor *x, int nshifts, const int64_t *shifts, int ndims, const int64_t *dims) {
    ct__attrs a;
    ct__attrs_init(&a);
    if (!x) return ct__op1(CT__OP_ROLL, x, &a);
    if (nshifts < 0 || ndims < 0 || (nshifts > 0 && !shifts) || (ndims > 0 && !dims))
        return ct__fail(CT_ERR_ARG, "roll: shifts and dims must be given");
    if (ndims == 0) {
        if (nshifts != 1) return ct__fail(CT_ERR_ARG, "roll: shifts and dimensions must align. shifts: %d, dims:%d", nshifts, ndims);
        int64_t zero = 0;
        ct_tensor *r = ct_roll(ct_reshape(x, -1), 1, shifts, 1, &zero);
        return ct_view_n(r, x->ndim, x->shape);
    }
    if (nshifts != ndims) return ct__fail(CT_ERR_ARG, "roll: shifts and dimensions must align. shifts: %d, dims:%d", nshifts, ndims);
    if (ndims > CT_MAX_DIMS) return ct__fail(CT_ERR_ARG, "roll: expected at most %d dims (got %d)", CT_MAX_DIMS, ndims);
    int64_t cd[CT_MAX_DIMS];
    int cx = ct__cx_dims("roll", x, ndims, dims, cd);
    if (cx) return cx < 0 ? NULL : ct_view_as_complex(ct_roll(ct_view_as_real(x), nshifts, shifts, ndims, cd));
    a.nv = ndims;
    for (int k = 0; k < ndims; k++) { a.v[k] = shifts[k]; a.v[ndims + k] = dims[k]; }
    return ct__op1(CT__OP_ROLL, x, &a);
}
CTENSOR_API ct_tensor *ct_repeat(const ct_tensor *x, int n, const int64_t *repeats) {
    ct__attrs a;
    ct__attrs_init(&a);
    if (n < 0 || n > CT_MAX_DIMS || (n > 0 && !repeats)) return ct__fail(CT_ERR_ARG, "repeat: expected at most %d repeats (got %d)", CT_MAX_DIMS, n);
    if (x && ct_dtype_is_complex(x->dtype) && n >= x->ndim && n < CT_MAX_DIMS) {
        int64_t r2[CT_MAX_DIMS];
        for (int k = 0; k < n; k++) r2[k] = repeats[k];
        r2[n] = 1;
        return ct_view_as_complex(ct_repeat(ct_view_as_real(x), n + 1, r2));
    }
    a.nv = n;
    for (int k = 0; k < n; k++) a.v[k] = repeats[k];
    return ct__op1(CT__OP_REPEAT, x, &a);
}
CTENSOR_API ct_tensor *ct_tile(const ct_tensor *x, int n, const int64_t *reps) {
    if (!x) { ct__null_arg("tile", 0); return NULL; }
    if (n < 0 || n > CT_MAX_DIMS || (n > 0 && !reps)) return ct__fail(CT_ERR_ARG, "tile: expected at most %d reps (got %d)", CT_MAX_DIMS, n);
    int64_t r[CT_MAX_DIMS];
    int m = n > x->ndim ? n : x->ndim;
    for (int k = 0; k < m; k++) r[k] = k < m - n ? 1 : reps[k - (m - n)];
    return ct_repeat(x, m, r);
}
CTENSOR_API ct_tensor *ct_repeat_interleave_index(const ct_tensor *repeats) {
    ct__attrs a;
    ct__attrs_init(&a);
    return ct__op1(CT__OP_REPEAT_INTERLEAVE, repeats, &a);
}
static const ct_tensor *ct__ri_input(const ct_tensor *x, int *dim) {
    if (*dim == CT_DIM_NONE) { *dim = 0; return ct_reshape(x, -1); }
    int d = ct__dim("repeat_interleave", *dim, x->ndim);
    if (d < 0) return NULL;
    *dim = d;
    return x;
}
CTENSOR_API ct_tensor *ct_repeat_interleave(const ct_tensor *x, int64_t repeats, int dim) {
    if (!x) { ct__null_arg("repeat_interleave", 0); return NULL; }
    if (repeats < 0) return ct__fail(CT_ERR_ARG, "repeat_interleave: repeats can not be negative");
    const ct_tensor *xin = ct__ri_input(x, &dim);
    if (!xin) return NULL;
    int64_t size = xin->ndim ? xin->shape[dim] : 1, total = ct__sat_mul(size, repeats);
    ct_tensor *idx = ct_empty_n(CT_INT64, 1, &total);
    if (!idx) return NULL;
    int64_t *p = (int64_t *)ct__ptr(idx);
    for (int64_t i = 0; i < total; i++) p[i] = i / repeats;
    return ct_index_select(xin, dim, ct_to_device(idx, x->device));
}
CTENSOR_API ct_tensor *ct_repeat_interleave_tensor(const ct_tensor *x, const ct_tensor *repeats, int dim) {
    if (!x || !repeats) { ct__null_arg("repeat_interleave", x ? 1 : 0); return NULL; }
    if (repeats->dtype != CT_INT64 && repeats->dtype != CT_INT32)
        return ct__fail(CT_ERR_DTYPE, "repeat_interleave: \"repeat_interleave_cpu\" not implemented for '%s'", CT__DTNAME(repeats->dtype));
    if (repeats->ndim > 1) return ct__fail(CT_ERR_ARG, "repeat_interleave: repeats must be 0-dim or 1-dim tensor");
    const ct_tensor *xin = ct__ri_input(x, &dim);
    if (!xin) return NULL;
    int64_t size = xin->ndim ? xin->shape[dim] : 1;
    const ct_tensor *r = repeats;
    if (ct_numel(repeats) == 1) r = ct_expand(ct_reshape(repeats, 1), size);
    if (!r) return NULL;
    if (r->shape[0] != size) return ct__fail(CT_ERR_ARG, "repeat_interleave: repeats must have the same size as input along dim");
    return ct_index_select(xin, dim, ct_repeat_interleave_index(r));
}
static ct_tensor *ct__tri(int op, const ct_tensor *x, int64_t diagonal) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = diagonal;
    return ct__op1(op, x, &a);
}
CTENSOR_API ct_tensor *ct_tril(const ct_tensor *x, int64_t diagonal) { return ct__tri(CT__OP_TRIL, x, diagonal); }
CTENSOR_API ct_tensor *ct_triu(const ct_tensor *x, int64_t diagonal) { return ct__tri(CT__OP_TRIU, x, diagonal); }
CTENSOR_API ct_tensor *ct_diag_embed(const ct_tensor *x, int64_t offset, int dim1, int dim2) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = offset;
    a.i[1] = dim1;
    a.i[2] = dim2;
    return ct__op1(CT__OP_DIAG_EMBED, x, &a);
}
CTENSOR_API ct_tensor *ct_diag(const ct_tensor *x, int64_t diagonal) {
    if (!x) { ct__null_arg("diag", 0); return NULL; }
    if (x->ndim == 1) return ct_diag_embed(x, diagonal, 0, 1);
    if (x->ndim == 2) return ct_clone(ct_diagonal(x, diagonal, 0, 1));
    return ct__fail(CT_ERR_ARG, "diag: matrix or a vector expected");
}
CTENSOR_API ct_tensor *ct_one_hot(const ct_tensor *x, int64_t num_classes) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = num_classes;
    return ct__op1(CT__OP_ONE_HOT, x, &a);
}
CTENSOR_API ct_tensor *ct_pad(const ct_tensor *x, int npad, const int64_t *pads, const char *mode, double value) {
    ct__attrs a;
    ct__attrs_init(&a);
    if (!x) return ct__op1(CT__OP_CONSTANT_PAD, x, &a);
    if (npad < 0 || (npad > 0 && !pads) || npad % 2) return ct__fail(CT_ERR_ARG, "pad: Padding length must be divisible by 2");
    if (npad / 2 > x->ndim) return ct__fail(CT_ERR_ARG, "pad: Padding length too large");
    int op;
    if (!mode || !strcmp(mode, "constant")) op = CT__OP_CONSTANT_PAD;
    else if (!strcmp(mode, "reflect")) op = CT__OP_REFLECTION_PAD;
    else if (!strcmp(mode, "replicate")) op = CT__OP_REPLICATION_PAD;
    else if (!strcmp(mode, "circular")) op = CT__OP_CIRCULAR_PAD;
    else return ct__fail(CT_ERR_UNSUPPORTED, "pad: Unrecognised padding mode %s", mode);
    if (op != CT__OP_CONSTANT_PAD) {
        int k = npad / 2;
        if (value != 0.0) return ct__fail(CT_ERR_ARG, "pad: Padding mode \"%s\" doesn't take in value argument", mode);
        if (k < 1 || k > 3 || (x->ndim != k + 1 && x->ndim != k + 2))
            return ct__fail(CT_ERR_UNSUPPORTED, "pad: Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
    }
    a.nv = npad;
    for (int k = 0; k < npad; k++) a.v[k] = pads[k];
    a.s[0] = value;
    return ct__op1(op, x, &a);
}

/* ============================================================================
   Matrix products (core kernels; the GEMM section has the fast paths)
   ========================================================================== */
/* ---- GEMM engine -----------------------------------------------------------
   C[M,N] = alpha * A[M,K] @ B[K,N] + beta * C. A and B take any strides in
   elements (a transposed operand is the same data with its strides swapped, so
   transposes cost nothing); C is row-major with leading dimension ldc. beta == 0
   never reads C (addmm(beta=0) ignores NaN in its input, as in PyTorch).

   Built-in path (the default; always compiled, also used as the fallback of the
   CBLAS path): BLIS-style blocking. For each KC x NC panel of B (packed into
   NR-wide slivers) and each MC x KC block of A (packed into MR-tall slivers), a
   register-blocked MR x NR micro-kernel accumulates one tile of C. The
   micro-kernel uses GCC/clang vector extensions sized to the target's widest
   vectors (AVX-512: 12 x 32 floats, 12 x 16 doubles; AVX/SSE/NEON: 6 x 2
   vectors); elsewhere (MSVC, CTENSOR_NO_SIMD) a plain C kernel. With
   the pool (CTENSOR_THREADS/CTENSOR_OPENMP), C is split into two blocks per thread
   once the product is large enough to pay for the threads (small products stay
   serial); blocks are claimed, so a thread that starts late takes fewer.
   With CTENSOR_BLAS, float32/float64 go to cblas_sgemm/dgemm, passing transpose
   flags and leading dimensions so transposed or row-strided operands need no
   copy; only operands that no BLAS layout describes are copied.
   Config: define CTENSOR_NO_SIMD to force the plain C micro-kernel.
   -------------------------------------------------------------------------- */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(CTENSOR_NO_SIMD)
#  define CT__GEMM_SIMD 1
#  if defined(__AVX512F__)
#    define CT__VBYTES 64
#  elif defined(__AVX__)
#    define CT__VBYTES 32
#  else
#    define CT__VBYTES 16
#  endif
#  if defined(__AVX512F__) || defined(__aarch64__)
#    define CT__GEMM_MR 12      /* 32 vector registers: 24 accumulators */
#  else
#    define CT__GEMM_MR 6       /* 16 vector registers: 12 accumulators */
#  endif
typedef float ct__vf32 __attribute__((vector_size(CT__VBYTES)));
typedef double ct__vf64 __attribute__((vector_size(CT__VBYTES)));
#  define CT__GEMM_NR_F32 (2 * CT__VBYTES / 4)
#  define CT__GEMM_NR_F64 (2 * CT__VBYTES / 8)
/* ISO C modes turn off FMA contraction in GCC; the micro-kernel wants it. clang
   splits 512-bit vectors in two (it prefers 256-bit ones) unless told otherwise. */
#  if defined(__GNUC__) && !defined(__clang__)
#    define CT__GEMM_FPC __attribute__((optimize("fp-contract=fast")))
#  elif defined(__clang__) && CT__VBYTES == 64
#    define CT__GEMM_FPC __attribute__((min_vector_width(512)))
#  else
#    define CT__GEMM_FPC
#  endif
#else
#  define CT__GEMM_MR 4
#  define CT__GEMM_NR_F32 8
#  define CT__GEMM_NR_F64 8
#endif
/* Cache blocking: KC x NR of B stays in L1 while MC x KC of A streams from L2. */
#ifndef CT__GEMM_KC
#  define CT__GEMM_KC 256
#endif
#ifndef CT__GEMM_MC
#  define CT__GEMM_MC (CT__GEMM_MR * 16)
#endif
#ifndef CT__GEMM_NC
#  define CT__GEMM_NC 2048
#endif
/* products below this many multiply-adds skip packing; above CT__GEMM_PAR they use threads */
#define CT__GEMM_SMALL 4096
#define CT__GEMM_PAR ((int64_t)1 << 21)

#ifdef CT__GEMM_SIMD
/* micro-kernel rows, unrolled by the preprocessor */
#  define CT__GEMM_R6(X) X(0) X(1) X(2) X(3) X(4) X(5)
#  if CT__GEMM_MR == 12
#    define CT__GEMM_ROWS(X) CT__GEMM_R6(X) X(6) X(7) X(8) X(9) X(10) X(11)
#  else
#    define CT__GEMM_ROWS(X) CT__GEMM_R6(X)
#  endif
#  define CT__UK_DECL(i) __typeof__(vz) c##i##_0 = vz, c##i##_1 = vz;
#  define CT__UK_FMA(i) av = a[i]; c##i##_0 += b0 * av; c##i##_1 += b1 * av;
#  define CT__UK_STORE(i) \
    { \
        char *cr_ = (char *)(c + (i) * ldc); \
        __typeof__(vz) x0_ = c##i##_0 * alpha, x1_ = c##i##_1 * alpha; \
        if (beta != 0) { \
            __typeof__(vz) y0_, y1_; \
            memcpy(&y0_, cr_, sizeof y0_); \
            memcpy(&y1_, cr_ + sizeof y0_, sizeof y1_); \
            x0_ += y0_ * beta; \
            x1_ += y1_ * beta; \
        } \
        memcpy(cr_, &x0_, sizeof x0_); \
        memcpy(cr_ + sizeof x0_, &x1_, sizeof x1_); \
    }
/* c[MR x NR] = alpha * a-sliver @ b-sliver + beta * c; a: [kc][MR], b: [kc][NR = 2 vectors] */
#  define CT__GEMM_UKR(SUF, T, V) \
    static CT__GEMM_FPC void ct__gemm_ukr_##SUF(int64_t kc, const T *CT_RESTRICT a, const T *CT_RESTRICT b, \
                                                T *CT_RESTRICT c, int64_t ldc, T alpha, T beta) { \
        V vz = {0}; \
        CT__GEMM_ROWS(CT__UK_DECL) \
        for (int64_t k = 0; k < kc; k++) { \
            V b0, b1; \
            T av; \
            memcpy(&b0, b, sizeof b0); \
            memcpy(&b1, b + sizeof(V) / sizeof(T), sizeof b1); \
            CT__GEMM_ROWS(CT__UK_FMA) \
            a += CT__GEMM_MR; \
            b += 2 * sizeof(V) / sizeof(T); \
        } \
        CT__GEMM_ROWS(CT__UK_STORE) \
    }
CT__GEMM_UKR(f32, float, ct__vf32)
CT__GEMM_UKR(f64, double, ct__vf64)
#else
/* plain C: the compiler may vectorize the NR loop */
#  define CT__GEMM_UKR(SUF, T, NR) \
    static void ct__gemm_ukr_##SUF(int64_t kc, const T *CT_RESTRICT a, const T *CT_RESTRICT b, \
                                   T *CT_RESTRICT c, int64_t ldc, T alpha, T beta) { \
        T acc[CT__GEMM_MR][NR]; \
        memset(acc, 0, sizeof acc); \
        for (int64_t k = 0; k < kc; k++, a += CT__GEMM_MR, b += NR) \
            for (int i = 0; i < CT__GEMM_MR; i++) \
                for (int j = 0; j < NR; j++) acc[i][j] += a[i] * b[j]; \
        for (int i = 0; i < CT__GEMM_MR; i++) \
            for (int j = 0; j < NR; j++) \
                c[i * ldc + j] = beta != 0 ? alpha * acc[i][j] + beta * c[i * ldc + j] : alpha * acc[i][j]; \
    }
CT__GEMM_UKR(f32, float, CT__GEMM_NR_F32)
CT__GEMM_UKR(f64, double, CT__GEMM_NR_F64)
#endif

/* Packing, the blocked loops on one block of C, and the small-product loop. */
#define CT__GEMM_DRIVER(SUF, T, NR) \
    /* A block (mc x kc) -> MR-row slivers laid out [sliver][k][r], zero-padded */ \
    static void ct__gemm_pack_a_##SUF(int64_t mc, int64_t kc, const T *A, int64_t rsa, int64_t csa, T *CT_RESTRICT p) { \
        const int64_t MR = CT__GEMM_MR; \
        for (int64_t i0 = 0; i0 < mc; i0 += MR, p += MR * kc) { \
            int64_t mr = CT__MIN(MR, mc - i0); \
            const T *a = A + i0 * rsa; \
            if (mr == MR && csa == 1) { \
                for (int64_t r = 0; r < MR; r++) \
                    for (int64_t k = 0; k < kc; k++) p[k * MR + r] = a[r * rsa + k]; \
            } else if (mr == MR && rsa == 1) { \
                for (int64_t k = 0; k < kc; k++) \
                    for (int64_t r = 0; r < MR; r++) p[k * MR + r] = a[k * csa + r]; \
            } else { \
                for (int64_t k = 0; k < kc; k++) \
                    for (int64_t r = 0; r < MR; r++) p[k * MR + r] = r < mr ? a[r * rsa + k * csa] : (T)0; \
            } \
        } \
    } \
    /* B panel (kc x nc) -> NR-column slivers laid out [sliver][k][j], zero-padded */ \
    static void ct__gemm_pack_b_##SUF(int64_t kc, int64_t nc, const T *B, int64_t rsb, int64_t csb, T *CT_RESTRICT p) { \
        for (int64_t j0 = 0; j0 < nc; j0 += NR, p += NR * kc) { \
            int64_t nr = CT__MIN(NR, nc - j0); \
            const T *b = B + j0 * csb; \
            if (nr == NR && csb == 1) { \
                for (int64_t k = 0; k < kc; k++) memcpy(p + k * NR, b + k * rsb, sizeof(T) * NR); \
            } else if (nr == NR && rsb == 1) { \
                for (int64_t j = 0; j < NR; j++) \
                    for (int64_t k = 0; k < kc; k++) p[k * NR + j] = b[j * csb + k]; \
            } else { \
                for (int64_t k = 0; k < kc; k++) \
                    for (int64_t j = 0; j < NR; j++) p[k * NR + j] = j < nr ? b[k * rsb + j * csb] : (T)0; \
            } \
        } \
    } \
    /* the blocked loops over one M x N block of C, with packing buffers pa, pb */ \
    static void ct__gemm_blocked_##SUF(int64_t M, int64_t N, int64_t K, T alpha, const T *A, int64_t rsa, \
                                       int64_t csa, const T *B, int64_t rsb, int64_t csb, T beta, T *C, \
                                       int64_t ldc, T *pa, T *pb) { \
        const int64_t MR = CT__GEMM_MR; \
        T tile[CT__GEMM_MR * NR]; \
        for (int64_t jc = 0; jc < N; jc += CT__GEMM_NC) { \
            int64_t nc = CT__MIN(CT__GEMM_NC, N - jc); \
            for (int64_t pc = 0; pc < K; pc += CT__GEMM_KC) { \
                int64_t kc = CT__MIN(CT__GEMM_KC, K - pc); \
                T bet = pc == 0 ? beta : (T)1; \
                ct__gemm_pack_b_##SUF(kc, nc, B + pc * rsb + jc * csb, rsb, csb, pb); \
                for (int64_t ic = 0; ic < M; ic += CT__GEMM_MC) { \
                    int64_t mc = CT__MIN(CT__GEMM_MC, M - ic); \
                    ct__gemm_pack_a_##SUF(mc, kc, A + ic * rsa + pc * csa, rsa, csa, pa); \
                    for (int64_t jr = 0; jr < nc; jr += NR) { \
                        int64_t nr = CT__MIN(NR, nc - jr); \
                        const T *bp = pb + jr * kc; \
                        for (int64_t ir = 0; ir < mc; ir += MR) { \
                            int64_t mr = CT__MIN(MR, mc - ir); \
                            T *c = C + (ic + ir) * ldc + jc + jr; \
                            if (mr == MR && nr == NR) { \
                                ct__gemm_ukr_##SUF(kc, pa + ir * kc, bp, c, ldc, alpha, bet); \
                            } else { \
                                ct__gemm_ukr_##SUF(kc, pa + ir * kc, bp, tile, NR, alpha, (T)0); \
                                for (int64_t i = 0; i < mr; i++) \
                                    for (int64_t j = 0; j < nr; j++) \
                                        c[i * ldc + j] = bet != 0 ? tile[i * NR + j] + bet * c[i * ldc + j] \
                                                                  : tile[i * NR + j]; \
                            } \
                        } \
                    } \
                } \
            } \
        } \
    } \
    /* one block of C with its own packing buffers; plain loops when they cannot be had */ \
    static void ct__gemm_part_##SUF(const ct__gemm_job *j, int64_t m0, int64_t m1, int64_t n0, int64_t n1) { \
        const T *A = (const T *)j->A + m0 * j->rsa; \
        const T *B = (const T *)j->B + n0 * j->csb; \
        T *C = (T *)j->C + m0 * j->ldc + n0; \
        int64_t M = m1 - m0, N = n1 - n0, K = j->K; \
        if (M <= 0 || N <= 0) return; \
        int64_t kc = CT__MIN(CT__GEMM_KC, K); \
        int64_t na = CT__MIN(CT__GEMM_MC, (M + CT__GEMM_MR - 1) / CT__GEMM_MR * CT__GEMM_MR) * kc; \
        int64_t nb = CT__MIN(CT__GEMM_NC, (N + NR - 1) / NR * NR) * kc; \
        /* from the thread's block cache: a repeated product allocates nothing */ \
        ct_storage *st_ = ct__storage_new((int64_t)(sizeof(T) * (size_t)(na + nb) + 128), ct__cpu_dev); \
        char *raw = st_ ? (char *)st_->data : NULL; \
        if (!raw) { \
            ct__gemm_small_##SUF(M, N, K, (T)j->alpha, A, j->rsa, j->csa, B, j->rsb, j->csb, (T)j->beta, C, j->ldc); \
            return; \
        } \
        T *pa = (T *)(((uintptr_t)raw + 63) & ~(uintptr_t)63); \
        T *pb = (T *)(((uintptr_t)(pa + na) + 63) & ~(uintptr_t)63); \
        ct__gemm_blocked_##SUF(M, N, K, (T)j->alpha, A, j->rsa, j->csa, B, j->rsb, j->csb, (T)j->beta, C, j->ldc, pa, pb); \
        ct__storage_decref(st_); \
    } \
    /* C = alpha A B + beta C with the built-in kernels (serial or OpenMP) */ \
    static void ct__gemm_builtin_##SUF(int64_t M, int64_t N, int64_t K, T alpha, const T *A, int64_t rsa, \
                                       int64_t csa, const T *B, int64_t rsb, int64_t csb, T beta, T *C, \
                                       int64_t ldc) { \
        if (M <= 0 || N <= 0) return; \
        if (K <= 0 || alpha == 0) { \
            for (int64_t i = 0; i < M; i++) \
                for (int64_t jj = 0; jj < N; jj++) C[i * ldc + jj] = beta != 0 ? beta * C[i * ldc + jj] : (T)0; \
            return; \
        } \
        if (M * N * K <= CT__GEMM_SMALL) { \
            ct__gemm_small_##SUF(M, N, K, alpha, A, rsa, csa, B, rsb, csb, beta, C, ldc); \
            return; \
        } \
        ct__gemm_job job; \
        job.M = M; job.N = N; job.K = K; \
        job.alpha = alpha; job.beta = beta; \
        job.A = A; job.rsa = rsa; job.csa = csa; \
        job.B = B; job.rsb = rsb; job.csb = csb; \
        job.C = C; job.ldc = ldc; \
        ct__gemm_threads(&job, ct__gemm_part_##SUF, NR); \
    }

/* the plain triple loop: tiny products, and the fallback when no buffer can be had */
#define CT__GEMM_SMALL_DEF(SUF, T) \
    static void ct__gemm_small_##SUF(int64_t M, int64_t N, int64_t K, T alpha, const T *A, int64_t rsa, \
                                     int64_t csa, const T *B, int64_t rsb, int64_t csb, T beta, T *C, int64_t ldc) { \
        for (int64_t i = 0; i < M; i++) \
            for (int64_t j = 0; j < N; j++) { \
                T acc = 0; \
                for (int64_t k = 0; k < K; k++) acc += A[i * rsa + k * csa] * B[k * rsb + j * csb]; \
                C[i * ldc + j] = beta != 0 ? alpha * acc + beta * C[i * ldc + j] : alpha * acc; \
            } \
    }

typedef struct ct__gemm_job {
    int64_t M, N, K;
    double alpha, beta;
    const void *A;
    int64_t rsa, csa;
    const void *B;
    int64_t rsb, csb;
    void *C;
    int64_t ldc;
} ct__gemm_job;
typedef void (*ct__gemm_part_fn)(const ct__gemm_job *j, int64_t m0, int64_t m1, int64_t n0, int64_t n1);

/* Splits C into a tm x tn grid of blocks for the pool, a few per thread, choosing the
   grid that packs the least (blocks as square as possible): every block packs its own
   A and B panels, and more blocks than threads let a thread that starts late (its
   core busy) take fewer of them. */
typedef struct ct__gemm_grid { const ct__gemm_job *j; ct__gemm_part_fn part; int tm; int64_t mstep, nstep; } ct__gemm_grid;
static void ct__gemm_block(void *c, int64_t lo, int64_t hi) {
    const ct__gemm_grid *g = (const ct__gemm_grid *)c;
    for (int64_t id = lo; id < hi; id++) {
        int64_t m0 = (id % g->tm) * g->mstep, n0 = (id / g->tm) * g->nstep;
        if (m0 < g->j->M && n0 < g->j->N)
            g->part(g->j, m0, CT__MIN(g->j->M, m0 + g->mstep), n0, CT__MIN(g->j->N, n0 + g->nstep));
    }
}
static void ct__gemm_threads(const ct__gemm_job *j, ct__gemm_part_fn part, int64_t nr) {
    int nt = j->M * j->N * j->K >= CT__GEMM_PAR ? ct__par_threads() : 1;
    int nb = nt > 1 ? 2 * nt : 1;   /* blocks */
    /* at least two micro-tile rows and columns of work per block */
    int64_t tiles = (j->M + CT__GEMM_MR - 1) / CT__GEMM_MR * ((j->N + nr - 1) / nr);
    while (nb > 1 && tiles < 4 * (int64_t)nb) nb--;
    if (nb <= 1) {
        part(j, 0, j->M, 0, j->N);
        return;
    }
    int tm = 1;
    double best = -1;
    for (int t = 1; t <= nb; t++) {
        if (nb % t) continue;
        double cost = (double)j->M / t + (double)j->N / (nb / t);
        if (best < 0 || cost < best) { best = cost; tm = t; }
    }
    int tn = nb / tm;
    ct__gemm_grid g;
    g.j = j;
    g.part = part;
    g.tm = tm;
    g.mstep = ((j->M + tm - 1) / tm + CT__GEMM_MR - 1) / CT__GEMM_MR * CT__GEMM_MR;
    g.nstep = ((j->N + tn - 1) / tn + nr - 1) / nr * nr;
    ct__par_for(nb, 1, ct__gemm_block, &g);
}

CT__GEMM_SMALL_DEF(f32, float)
CT__GEMM_SMALL_DEF(f64, double)
CT__GEMM_DRIVER(f32, float, CT__GEMM_NR_F32)
CT__GEMM_DRIVER(f64, double, CT__GEMM_NR_F64)

/* int64 (all integer dtypes compute here): wrapping arithmetic, i-k-j order */
typedef struct ct__gemm_i64_job {
    int64_t N, K, alpha, beta, rsa, csa, rsb, csb, ldc;
    const int64_t *A, *B;
    int64_t *C;
} ct__gemm_i64_job;
static void ct__gemm_i64_rows(void *c, int64_t lo, int64_t hi) {
    const ct__gemm_i64_job *g = (const ct__gemm_i64_job *)c;
    int64_t N = g->N, K = g->K;
    for (int64_t i = lo; i < hi; i++) {
        uint64_t *cr = (uint64_t *)(g->C + i * g->ldc);
        for (int64_t j = 0; j < N; j++) cr[j] = g->beta != 0 ? (uint64_t)g->beta * cr[j] : 0;
        for (int64_t k = 0; k < K; k++) {
            uint64_t av = (uint64_t)g->alpha * (uint64_t)g->A[i * g->rsa + k * g->csa];
            const int64_t *b = g->B + k * g->rsb;
            if (g->csb == 1)
                for (int64_t j = 0; j < N; j++) cr[j] += av * (uint64_t)b[j];
            else
                for (int64_t j = 0; j < N; j++) cr[j] += av * (uint64_t)b[j * g->csb];
        }
    }
}
static void ct__gemm_i64(int64_t M, int64_t N, int64_t K, int64_t alpha, const int64_t *A, int64_t rsa, int64_t csa,
                         const int64_t *B, int64_t rsb, int64_t csb, int64_t beta, int64_t *C, int64_t ldc) {
    ct__gemm_i64_job g = {N, K, alpha, beta, rsa, csa, rsb, csb, ldc, A, B, C};
    int64_t per_row = N * K > 0 ? N * K : 1;
    ct__par_for(M, M * per_row >= CT__GEMM_PAR ? (CT__GEMM_PAR / 8 + per_row - 1) / per_row : M, ct__gemm_i64_rows, &g);
}

#ifdef CTENSOR_BLAS
/* How CBLAS (row-major) can read a rows x cols operand with strides (rs, cs):
   1 = as is (lda = rs), 2 = transposed (lda = cs), 0 = it cannot. */
static int ct__blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int64_t *ld) {
    if (rows <= 1) rs = CT__MAX(cols, 1);   /* a stride over one index is never used */
    if (cols <= 1) cs = 1;
    if (cs == 1 && rs >= CT__MAX(cols, 1) && rs <= INT_MAX) { *ld = rs; return 1; }
    if (rows <= 1) rs = 1;
    if (cols <= 1) cs = CT__MAX(rows, 1);
    if (rs == 1 && cs >= CT__MAX(rows, 1) && cs <= INT_MAX) { *ld = cs; return 2; }
    return 0;
}
/* One cblas call when the sizes fit in int; operands no layout describes are
   copied to row-major first. Returns 0 when the caller must use the built-in path. */
/* OpenBLAS's own threads meet in a fork-join barrier that waits for a thread the OS
   has not run (a core busy with other work: a 2-thread step took 30-100 ms instead of
   2 ms). When the library is OpenBLAS (found through weak symbols: any other CBLAS is
   left as it is) and the pool has more than one thread, OpenBLAS runs on one thread and
   a large product is split into blocks of C on the pool, each a 1-thread BLAS call. */
#if defined(CT__TPOOL) && (defined(__GNUC__) || defined(__clang__)) && defined(__ELF__)
extern void openblas_set_num_threads(int) __attribute__((weak));
extern int openblas_get_num_threads(void) __attribute__((weak));
#  define CT__BLAS_SPLIT 1
#endif
typedef struct ct__blas_grid {
    int ta, tb, tm;           /* A / B transposed (stored K x M / N x K), grid rows */
    int64_t M, N, K, lda, ldb, ldc, mstep, nstep;
    double alpha, beta;
    const void *A, *B;
    void *C;
} ct__blas_grid;
/* 0: call the BLAS once; else the number of blocks (and g's grid is set) */
static int ct__blas_plan(ct__blas_grid *g) {
#ifdef CT__BLAS_SPLIT
    if (!openblas_set_num_threads || !openblas_get_num_threads) return 0;
    int nt = g->M * g->N * g->K >= CT__GEMM_PAR ? ct__par_threads() : 1;
    if (openblas_get_num_threads() != 1) openblas_set_num_threads(1);
    if (nt <= 1) return 0;
    int nb = 2 * nt;
    while (nb > 1 && (g->M / 16) * (g->N / 16) < nb) nb--;   /* blocks of at least 16 x 16 */
    if (nb <= 1) return 0;
    int tm = 1;
    double best = -1;
    for (int t = 1; t <= nb; t++) {
        if (nb % t) continue;
        double cost = (double)g->M / t + (double)g->N / (nb / t);
        if (best < 0 || cost < best) { best = cost; tm = t; }
    }
    g->tm = tm;
    g->mstep = ((g->M + tm - 1) / tm + 7) / 8 * 8;
    g->nstep = ((g->N + nb / tm - 1) / (nb / tm) + 15) / 16 * 16;
    return nb;
#else
    (void)g;
    return 0;
#endif
}
#define CT__GEMM_BLAS(SUF, T, CBLAS_FN) \
    /* blocks [lo, hi) of the grid; lo == -1: the whole product */ \
    static void ct__gemm_blas_blk_##SUF(void *c, int64_t lo, int64_t hi) { \
        const ct__blas_grid *g = (const ct__blas_grid *)c; \
        for (int64_t id = lo; id < hi || lo < 0; id++) { \
            int64_t m0 = 0, n0 = 0, m1 = g->M, n1 = g->N; \
            if (lo >= 0) { \
                m0 = (id % g->tm) * g->mstep, n0 = (id / g->tm) * g->nstep; \
                m1 = CT__MIN(g->M, m0 + g->mstep), n1 = CT__MIN(g->N, n0 + g->nstep); \
                if (m0 >= m1 || n0 >= n1) continue; \
            } \
            const T *a = (const T *)g->A + (g->ta ? m0 : m0 * g->lda); \
            const T *b = (const T *)g->B + (g->tb ? n0 * g->ldb : n0); \
            CBLAS_FN(CblasRowMajor, g->ta ? CblasTrans : CblasNoTrans, g->tb ? CblasTrans : CblasNoTrans, (int)(m1 - m0), \
                     (int)(n1 - n0), (int)g->K, (T)g->alpha, a, (int)g->lda, b, (int)g->ldb, (T)g->beta, \
                     (T *)g->C + m0 * g->ldc + n0, (int)g->ldc); \
            if (lo < 0) break; \
        } \
    } \
    static int ct__gemm_blas_##SUF(int64_t M, int64_t N, int64_t K, T alpha, const T *A, int64_t rsa, int64_t csa, \
                                   const T *B, int64_t rsb, int64_t csb, T beta, T *C, int64_t ldc) { \
        if (M > INT_MAX || N > INT_MAX || K > INT_MAX || ldc > INT_MAX) return 0; \
        int64_t lda = 0, ldb = 0; \
        int la = ct__blas_layout(M, K, rsa, csa, &lda), lb = ct__blas_layout(K, N, rsb, csb, &ldb); \
        T *tmp = NULL; \
        if (!la || !lb) { \
            tmp = (T *)CT_MALLOC(sizeof(T) * (size_t)((la ? 0 : M * K) + (lb ? 0 : K * N) + 1)); \
            if (!tmp) return 0; \
            T *q = tmp; \
            if (!la) { \
                for (int64_t i = 0; i < M; i++) \
                    for (int64_t k = 0; k < K; k++) q[i * K + k] = A[i * rsa + k * csa]; \
                A = q; q += M * K; la = 1; lda = K; \
            } \
            if (!lb) { \
                for (int64_t k = 0; k < K; k++) \
                    for (int64_t j = 0; j < N; j++) q[k * N + j] = B[k * rsb + j * csb]; \
                B = q; lb = 1; ldb = N; \
            } \
        } \
        ct__blas_grid g = {la != 1, lb != 1, 1, M, N, K, lda, ldb, ldc, 0, 0, (double)alpha, (double)beta, A, B, C}; \
        int nb = ct__blas_plan(&g); \
        if (nb) ct__par_for(nb, 1, ct__gemm_blas_blk_##SUF, &g); \
        else ct__gemm_blas_blk_##SUF(&g, -1, 0); \
        CT_FREE(tmp); \
        return 1; \
    }
CT__GEMM_BLAS(f32, float, cblas_sgemm)
CT__GEMM_BLAS(f64, double, cblas_dgemm)
#endif

/* The entry points the ops use. */
#define CT__GEMM_ENTRY(SUF, T) \
    static void ct__gemm_##SUF(int64_t M, int64_t N, int64_t K, T alpha, const T *A, int64_t rsa, int64_t csa, \
                               const T *B, int64_t rsb, int64_t csb, T beta, T *C, int64_t ldc) { \
        if (M <= 0 || N <= 0) return; \
        CT__GEMM_TRY_BLAS(SUF) \
        ct__gemm_builtin_##SUF(M, N, K, alpha, A, rsa, csa, B, rsb, csb, beta, C, ldc); \
    }
#ifdef CTENSOR_BLAS
/* Which GEMM is faster here. The built-in kernel is compiled for the build's vectors;
   OpenBLAS picks its kernels at run time by CPU model, and 0.3.21 (Debian 12) runs
   AVX2 kernels on CPUs it does not know (AMD Zen 4/5): 126 GFLOP/s against the
   built-in AVX-512 kernel's 225 on one core here. So in an AVX-512 build the built-in
   GEMM is used unless OpenBLAS reports an AVX-512 core (SkylakeX, Cooperlake,
   SapphireRapids) or the product is too narrow for the built-in 12 x 32 (f32) tile:
   fewer than 32 columns or 12 rows (a late ResNet layer at 64x64 has 4 output pixels:
   the BLAS wastes less there). Other CBLAS libraries are trusted.
   CTENSOR_PREFER_BLAS_GEMM always uses the BLAS. */
#if defined(__AVX512F__) && !defined(CTENSOR_PREFER_BLAS_GEMM) && !defined(CTENSOR_NO_SIMD) && \
    (defined(__GNUC__) || defined(__clang__)) && defined(__ELF__)
extern char *openblas_get_corename(void) __attribute__((weak));
static int ct__blas_gemm_ok(int64_t M, int64_t N) {
    if (M < 12 || N < 32) return 1;
    static int ok = -1;
    int v = __atomic_load_n(&ok, __ATOMIC_RELAXED);
    if (v < 0) {
        const char *c = openblas_get_corename ? openblas_get_corename() : NULL;
        v = !c || strstr(c, "SkylakeX") || strstr(c, "Cooperlake") || strstr(c, "SapphireRapids") ? 1 : 0;
        __atomic_store_n(&ok, v, __ATOMIC_RELAXED);
    }
    return v;
}
#else
static int ct__blas_gemm_ok(int64_t M, int64_t N) { (void)M; (void)N; return 1; }
#endif
#  define CT__GEMM_TRY_BLAS(SUF) \
    if (K > 0 && alpha != 0 && M * N * K > CT__GEMM_SMALL && ct__blas_gemm_ok(M, N) && \
        ct__gemm_blas_##SUF(M, N, K, alpha, A, rsa, csa, B, rsb, csb, beta, C, ldc)) return;
#else
#  define CT__GEMM_TRY_BLAS(SUF)
#endif
CT__GEMM_ENTRY(f32, float)
CT__GEMM_ENTRY(f64, double)

/* ---- products on tensors ---- */
/* f16/bf16 multiply in float32, integers in int64 (wrapping), as PyTorch's CPU kernels do */
static ct_dtype ct__mm_compute_dtype(ct_dtype dt) {
    if (dt == CT_FLOAT16 || dt == CT_BFLOAT16) return CT_FLOAT32;
    if (CT__ISINT(dt)) return CT_INT64;
    return dt;
}
/* PyTorch's integer ops read Scalar alpha/beta as integers (truncation) */
static int64_t ct__scalar_i64(double v) { return ct__f2i64(v); }
/* complex GEMM, C = alpha A B + beta C (alpha, beta real; strides in complex
   elements): cblas_cgemm/zgemm with CTENSOR_BLAS when the layouts allow, else a
   row-at-a-time kernel (C's rows stay in cache; B is read by rows) */
#define CT__GEMM_CX(fname, T)                                                                    \
    static void fname(int64_t M, int64_t N, int64_t K, T al, const T *A, int64_t rsa, int64_t csa, \
                      const T *B, int64_t rsb, int64_t csb, T be, T *C, int64_t ldc) {             \
        for (int64_t i = 0; i < M; i++) {                                                        \
            T *c = C + 2 * i * ldc;                                                              \
            for (int64_t j = 0; j < 2 * N; j++) c[j] = be == 0 ? (T)0 : be * c[j];               \
            for (int64_t k = 0; k < K; k++) {                                                    \
                const T *a = A + 2 * (i * rsa + k * csa), *b = B + 2 * k * rsb;                 \
                T ar = al * a[0], ai = al * a[1];                                                \
                if (csb == 1)                                                                    \
                    for (int64_t j = 0; j < N; j++) {                                            \
                        T br = b[2 * j], bi = b[2 * j + 1];                                      \
                        c[2 * j] += ar * br - ai * bi;                                           \
                        c[2 * j + 1] += ar * bi + ai * br;                                       \
                    }                                                                            \
                else                                                                             \
                    for (int64_t j = 0; j < N; j++) {                                            \
                        T br = b[2 * j * csb], bi = b[2 * j * csb + 1];                          \
                        c[2 * j] += ar * br - ai * bi;                                           \
                        c[2 * j + 1] += ar * bi + ai * br;                                       \
                    }                                                                            \
            }                                                                                    \
        }                                                                                        \
    }
CT__GEMM_CX(ct__gemm_c64, float)
CT__GEMM_CX(ct__gemm_c128, double)
static void ct__gemm_cx(ct_dtype cd, int64_t M, int64_t N, int64_t K, double alpha, const char *A, int64_t rsa, int64_t csa,
                        const char *B, int64_t rsb, int64_t csb, double beta, char *C, int64_t ldc) {
#ifdef CTENSOR_BLAS
    int64_t lda = 0, ldb = 0;
    int la = ct__blas_layout(M, K, rsa, csa, &lda), lb = ct__blas_layout(K, N, rsb, csb, &ldb);
    if (la && lb && M <= INT_MAX && N <= INT_MAX && K <= INT_MAX && ldc <= INT_MAX && K > 0) {
        CBLAS_TRANSPOSE ta = la != 1 ? CblasTrans : CblasNoTrans, tb = lb != 1 ? CblasTrans : CblasNoTrans;
        if (cd == CT_COMPLEX64) {
            float a2[2] = {(float)alpha, 0}, b2[2] = {(float)beta, 0};
            cblas_cgemm(CblasRowMajor, ta, tb, (int)M, (int)N, (int)K, a2, A, (int)lda, B, (int)ldb, b2, C, (int)ldc);
        } else {
            double a2[2] = {alpha, 0}, b2[2] = {beta, 0};
            cblas_zgemm(CblasRowMajor, ta, tb, (int)M, (int)N, (int)K, a2, A, (int)lda, B, (int)ldb, b2, C, (int)ldc);
        }
        return;
    }
#endif
    if (cd == CT_COMPLEX64)
        ct__gemm_c64(M, N, K, (float)alpha, (const float *)A, rsa, csa, (const float *)B, rsb, csb, (float)beta, (float *)C, ldc);
    else
        ct__gemm_c128(M, N, K, alpha, (const double *)A, rsa, csa, (const double *)B, rsb, csb, beta, (double *)C, ldc);
}
/* One product C = alpha A B + beta C in compute dtype cd (f32, f64, i64, complex). */
static void ct__gemm_cd(ct_dtype cd, int64_t M, int64_t N, int64_t K, double alpha, const char *A, int64_t rsa, int64_t csa,
                        const char *B, int64_t rsb, int64_t csb, double beta, char *C, int64_t ldc) {
    if (CT__ISCOMPLEX(cd))
        ct__gemm_cx(cd, M, N, K, alpha, A, rsa, csa, B, rsb, csb, beta, C, ldc);
    else if (cd == CT_FLOAT32)
        ct__gemm_f32(M, N, K, (float)alpha, (const float *)A, rsa, csa, (const float *)B, rsb, csb, (float)beta, (float *)C, ldc);
    else if (cd == CT_FLOAT64)
        ct__gemm_f64(M, N, K, alpha, (const double *)A, rsa, csa, (const double *)B, rsb, csb, beta, (double *)C, ldc);
    else
        ct__gemm_i64(M, N, K, ct__scalar_i64(alpha), (const int64_t *)A, rsa, csa, (const int64_t *)B, rsb, csb,
                     ct__scalar_i64(beta), (int64_t *)C, ldc);
}
/* out[(batch,) M, N] = alpha * a @ b + beta * bias (bias broadcast to out; NULL or
   beta == 0: not read). a and b are 2-D (or 3-D with out 3-D) of any strides: the
   GEMM reads them in place unless they need a dtype conversion. */
typedef struct ct__bmm_job {
    ct_dtype cd;
    int64_t M, N, K;
    double alpha, beta;
    const char *ap, *bp;
    char *op;
    int64_t sab, sbb, rsa, csa, rsb, csb;
    size_t es;
} ct__bmm_job;
static void ct__bmm_chunk(void *c, int64_t lo, int64_t hi) {
    const ct__bmm_job *j = (const ct__bmm_job *)c;
    for (int64_t i = lo; i < hi; i++)
        ct__gemm_cd(j->cd, j->M, j->N, j->K, j->alpha, j->ap + (size_t)(i * j->sab) * j->es, j->rsa, j->csa,
                    j->bp + (size_t)(i * j->sbb) * j->es, j->rsb, j->csb, j->beta, j->op + (size_t)(i * j->M * j->N) * j->es, j->N);
}
static int ct__mm_into(ct_tensor *out, const ct_tensor *bias, double beta, const ct_tensor *a, const ct_tensor *b,
                       double alpha, ct_dtype cd) {
    int bt = out->ndim == 3;
    int64_t batch = bt ? out->shape[0] : 1, M = out->shape[bt], N = out->shape[bt + 1], K = a->shape[bt + 1];
    ct_tensor *ac = NULL, *bc = NULL, *oc = out;
    int rc = -1;
    if (!(ac = a->dtype == cd ? ct__incref((ct_tensor *)a) : ct__convert(a, cd))) goto done;
    if (!(bc = b->dtype == cd ? ct__incref((ct_tensor *)b) : ct__convert(b, cd))) goto done;
    if ((out->dtype != cd || !ct__is_contig(out)) && !(oc = ct__alloc(cd, out->ndim, out->shape, NULL, out->device))) goto done;
    if (bias && beta != 0) {
        if (ct__copy_into(oc, bias)) goto done;
    } else {
        beta = 0;
    }
    if (batch > 0 && M > 0 && N > 0) {
        size_t es = ct__dt[cd].size;
        const char *ap = ct__ptr(ac), *bp = ct__ptr(bc);
        char *op = ct__ptr(oc);
        int64_t sab = bt ? ac->strides[0] : 0, sbb = bt ? bc->strides[0] : 0;
        int64_t rsa = ac->strides[bt], csa = ac->strides[bt + 1], rsb = bc->strides[bt], csb = bc->strides[bt + 1];
        /* many small products: whole products per chunk (a large one threads inside) */
        int par = batch > 1 && M * N * K < CT__GEMM_PAR && batch * M * N * K >= CT__GEMM_PAR;
#ifdef CTENSOR_BLAS
        if (cd != CT_INT64 && M * N * K > CT__GEMM_SMALL) par = 0;   /* those go to the BLAS, which threads itself */
#endif
        ct__bmm_job j = {cd, M, N, K, alpha, beta, ap, bp, op, sab, sbb, rsa, csa, rsb, csb, es};
        ct__par_for(batch, par ? (CT__GEMM_PAR / 4 + M * N * K - 1) / (M * N * K) : batch, ct__bmm_chunk, &j);
    }
    rc = oc != out ? ct__copy_into(out, oc) : 0;
done:
    if (ac) ct__decref(ac);
    if (bc) ct__decref(bc);
    if (oc && oc != out) ct__decref(oc);
    return rc;
}
static int ct__mm_dtype_ok(const char *op, ct_dtype dt) {
    if (dt == CT_BOOL || !(CT__ISFLOAT(dt) || CT__ISINT(dt) || CT__ISCOMPLEX(dt)))
        return ct__failed(CT_ERR_DTYPE, "%s: \"%s\" not implemented for '%s'", op, op, CT__DTNAME(dt));
    return 0;
}
/* matrix products: a new output, computed in the dtype the GEMM kernels take */
static void ct__meta_out(ct__call *c, ct_dtype dt, int ndim, const int64_t *shape) {
    ct__out_new(c, dt, ndim, shape);
    c->cdt = ct__mm_compute_dtype(dt);
}
static int ct__meta_mm(ct__call *c) {
    ct_tensor *a = c->in[0], *b = c->in[1];
    if (a->ndim != 2) return ct__failed(CT_ERR_SHAPE, "mm: self must be a matrix (got a %dD tensor)", a->ndim);
    if (b->ndim != 2) return ct__failed(CT_ERR_SHAPE, "mm: mat2 must be a matrix (got a %dD tensor)", b->ndim);
    if (a->shape[1] != b->shape[0])
        return ct__failed(CT_ERR_SHAPE, "mm: mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)", (long long)a->shape[0],
                          (long long)a->shape[1], (long long)b->shape[0], (long long)b->shape[1]);
    if (a->dtype != b->dtype)
        return ct__failed(CT_ERR_DTYPE, "mm: expected scalar type %s but found %s", CT__DTNAME(a->dtype), CT__DTNAME(b->dtype));
    if (ct__mm_dtype_ok("mm", a->dtype)) return -1;
    int64_t shape[2];
    shape[0] = a->shape[0];
    shape[1] = b->shape[1];
    ct__meta_out(c, a->dtype, 2, shape);
    return 0;
}
static int ct__meta_bmm(ct__call *c) {
    ct_tensor *a = c->in[0], *b = c->in[1];
    if (a->ndim != 3) return ct__failed(CT_ERR_SHAPE, "bmm: batch1 must be a 3D tensor (got %dD)", a->ndim);
    if (b->ndim != 3) return ct__failed(CT_ERR_SHAPE, "bmm: batch2 must be a 3D tensor (got %dD)", b->ndim);
    if (a->shape[0] != b->shape[0] || a->shape[2] != b->shape[1])
        return ct__failed(CT_ERR_SHAPE, "bmm: Expected size for first two dimensions of batch2 tensor to be: [%lld, %lld] but got: [%lld, %lld].",
                          (long long)a->shape[0], (long long)a->shape[2], (long long)b->shape[0], (long long)b->shape[1]);
    if (a->dtype != b->dtype)
        return ct__failed(CT_ERR_DTYPE, "bmm: expected scalar type %s but found %s", CT__DTNAME(a->dtype), CT__DTNAME(b->dtype));
    if (ct__mm_dtype_ok("bmm", a->dtype)) return -1;
    int64_t shape[3];
    shape[0] = a->shape[0];
    shape[1] = a->shape[1];
    shape[2] = b->shape[2];
    ct__meta_out(c, a->dtype, 3, shape);
    return 0;
}
static int ct__k_mm(ct__call *c) {
    ct_tensor *a = c->in[0], *b = c->in[1], *o = c->out[0];
    ct_dtype cd = c->cdt;
    if (a->dtype == cd && b->dtype == cd && o->dtype == cd && ct__is_contig(o)) {   /* no temporaries: call the GEMM */
        if (o->shape[0] > 0 && o->shape[1] > 0)
            ct__gemm_cd(cd, o->shape[0], o->shape[1], a->shape[1], 1.0, ct__ptr(a), a->strides[0], a->strides[1], ct__ptr(b),
                        b->strides[0], b->strides[1], 0.0, ct__ptr(o), o->shape[1]);
        return 0;
    }
    return ct__mm_into(o, NULL, 0.0, a, b, 1.0, cd);
}
static int ct__k_bmm(ct__call *c) { return ct__mm_into(c->out[0], NULL, 0.0, c->in[0], c->in[1], 1.0, c->cdt); }
CTENSOR_API ct_tensor *ct_mm(const ct_tensor *a, const ct_tensor *b) {
    ct__attrs at;
    ct__attrs_init(&at);
    return ct__op2(CT__OP_MM, a, b, &at);
}
CTENSOR_API ct_tensor *ct_bmm(const ct_tensor *a, const ct_tensor *b) {
    ct__attrs at;
    ct__attrs_init(&at);
    return ct__op2(CT__OP_BMM, a, b, &at);
}
/* torch.matmul (aten/src/ATen/native/LinearAlgebra.cpp, _matmul_impl of 1.13), composite:
   1-D @ 1-D is dot, 2-D @ 1-D mv, 1-D @ 2-D and 2-D @ 2-D mm; a >= 3-D operand
   against a 1-D or 2-D one is folded into one mm/mv (the 2-D @ >= 3-D case through
   the transpose); otherwise batch dims broadcast and the product is one bmm. */
static int ct__matmul_should_fold(const ct_tensor *t1, int dim2) {
    if (t1->ndim >= 3 && (dim2 == 1 || dim2 == 2)) {
        /* [b, n, m] with the last two dims transposed: bmm reads it in place, folding would copy */
        if (t1->ndim == 3 && dim2 == 2 && t1->strides[2] != 1 && t1->strides[0] == t1->shape[1] * t1->shape[2]) return 0;
        return 1;
    }
    return 0;
}
CTENSOR_API ct_tensor *ct_matmul(const ct_tensor *a, const ct_tensor *b) {
    if (!a || !b) { ct__null_arg("matmul", a ? 1 : 0); return NULL; }
    if (CT__NAMED(a) || CT__NAMED(b)) return ct__names_comp(CT__NC_MATMUL, a, b, NULL, 0, 0);
    int da = a->ndim, db = b->ndim;
    if (da == 0 || db == 0)
        return ct__fail(CT_ERR_ARG, "matmul: both arguments to matmul need to be at least 1D, but they are %dD and %dD", da, db);
    if (CT__ISCOMPLEX(a->dtype) || CT__ISCOMPLEX(b->dtype)) {   /* complex: dot and mv as products of matrices */
        if (da == 1 && db == 1) return ct_reshape_n(ct_mm(ct_unsqueeze(a, 0), ct_unsqueeze(b, 1)), 0, NULL);
        if (da == 2 && db == 1) return ct_squeeze_dim(ct_mm(a, ct_unsqueeze(b, 1)), 1);
    }
    if (da == 1 && db == 1) return ct_dot(a, b);
    if (da == 2 && db == 1) return ct_mv(a, b);
    if (da == 1 && db == 2) return ct_squeeze_dim(ct_mm(ct_unsqueeze(a, 0), b), 0);
    if (da == 2 && db == 2) return ct_mm(a, b);
    if (ct__matmul_should_fold(a, db) || ct__matmul_should_fold(b, da)) {
        int transpose = db > da;
        const ct_tensor *t1 = transpose ? ct_mT(b) : a;
        const ct_tensor *t2 = !transpose ? b : da == 2 ? ct_t(a) : a;
        if (!t1 || !t2) return NULL;
        int n1 = t1->ndim;
        int64_t oshape[CT_MAX_DIMS], rows = 1;
        for (int d = 0; d < n1 - 1; d++) { oshape[d] = t1->shape[d]; rows *= t1->shape[d]; }
        ct_tensor *t1f = ct_reshape(t1, rows, t1->shape[n1 - 1]);
        if (t2->ndim == 2) {
            oshape[n1 - 1] = t2->shape[1];
            ct_tensor *r = ct_view_n(ct_mm(t1f, t2), n1, oshape);
            return transpose ? ct_contiguous(ct_mT(r)) : r;
        }
        return ct_view_n(ct_mv(t1f, t2), n1 - 1, oshape);
    }
    /* both >= 3-D (or the transposed 3-D case): broadcast the batch dims, one bmm */
    int64_t n = da > 1 ? a->shape[da - 2] : 1, m1 = a->shape[da - 1];
    int64_t m2 = db > 1 ? b->shape[db - 2] : b->shape[0], p = db > 1 ? b->shape[db - 1] : 1;
    int na = CT__MAX(da - 2, 0), nb = CT__MAX(db - 2, 0), nbatch = CT__MAX(na, nb);
    int64_t bshape[CT_MAX_DIMS + 2], batch = 1;
    for (int d = 0; d < nbatch; d++) {
        int ia = d - (nbatch - na), ib = d - (nbatch - nb);
        int64_t sa = ia >= 0 ? a->shape[ia] : 1, sb = ib >= 0 ? b->shape[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return ct__fail(CT_ERR_SHAPE, "matmul: The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d",
                            (long long)sa, (long long)sb, d);
        bshape[d] = sa == 1 ? sb : sa;
        batch *= bshape[d];
    }
    int64_t ea[CT_MAX_DIMS + 2], eb[CT_MAX_DIMS + 2];
    for (int d = 0; d < nbatch; d++) ea[d] = eb[d] = bshape[d];
    ea[nbatch] = n;
    ea[nbatch + 1] = m1;
    eb[nbatch] = m2;
    eb[nbatch + 1] = p;
    const ct_tensor *B = db == 1 ? ct_unsqueeze(b, -1) : b;
    ct_tensor *A3 = ct_reshape(ct_expand_n(a, nbatch + 2, ea), batch, n, m1);
    ct_tensor *B3 = ct_reshape(ct_expand_n(B, nbatch + 2, eb), batch, m2, p);
    ct_tensor *r = ct_bmm(A3, B3);
    if (!r) return NULL;
    int64_t oshape[CT_MAX_DIMS + 2];
    int no = 0;
    for (int d = 0; d < nbatch; d++) oshape[no++] = bshape[d];
    if (da > 1) oshape[no++] = n;
    if (db > 1) oshape[no++] = p;
    return ct_view_n(r, no, oshape);
}

/* ============================================================================
   GEMM and matrix products (continued)
   ========================================================================== */
/* [section: blas-impl] */

/* ---- matrix-vector and vector-vector kernels ---- */
/* y[M] = alpha * A[M,K] @ x + beta * y (y contiguous; beta == 0 never reads y) */
typedef struct ct__gemv_job {
    int64_t K, rsa, csa, incx;
    const void *A, *x;
    void *y;
    double alpha, beta;
} ct__gemv_job;
#define CT__GEMV_DEF(SUF, T) \
    static void ct__gemv_rows_##SUF(void *c, int64_t lo, int64_t hi) { \
        const ct__gemv_job *j = (const ct__gemv_job *)c; \
        const T *A = (const T *)j->A, *x = (const T *)j->x; \
        T *y = (T *)j->y, alpha = (T)j->alpha, beta = (T)j->beta; \
        int64_t K = j->K, rsa = j->rsa, csa = j->csa, incx = j->incx; \
        for (int64_t i = lo; i < hi; i++) { \
            const T *a = A + i * rsa; \
            T s0 = 0, s1 = 0, s2 = 0, s3 = 0; \
            int64_t k = 0; \
            for (; k + 4 <= K; k += 4) { \
                s0 += a[k * csa] * x[k * incx]; \
                s1 += a[(k + 1) * csa] * x[(k + 1) * incx]; \
                s2 += a[(k + 2) * csa] * x[(k + 2) * incx]; \
                s3 += a[(k + 3) * csa] * x[(k + 3) * incx]; \
            } \
            for (; k < K; k++) s0 += a[k * csa] * x[k * incx]; \
            T acc = (s0 + s1) + (s2 + s3); \
            y[i] = beta != 0 ? alpha * acc + beta * y[i] : alpha * acc; \
        } \
    } \
    static void ct__gemv_builtin_##SUF(int64_t M, int64_t K, T alpha, const T *A, int64_t rsa, int64_t csa, \
                                       const T *x, int64_t incx, T beta, T *y) { \
        if (csa == 1 || rsa != 1) { \
            ct__gemv_job j = {K, rsa, csa, incx, A, x, y, (double)alpha, (double)beta}; \
            /* rows in chunks of >= 2^17 multiply-adds, from 2^18 and 64 rows on */ \
            int64_t grain = M * K >= ((int64_t)1 << 18) && M >= 64 ? CT__MAX(((int64_t)1 << 17) / CT__MAX(K, 1), 32) : M; \
            ct__par_for(M, grain, ct__gemv_rows_##SUF, &j); \
        } else { \
            /* columns are contiguous: accumulate column by column */ \
            for (int64_t i = 0; i < M; i++) y[i] = beta != 0 ? beta * y[i] : (T)0; \
            for (int64_t k = 0; k < K; k++) { \
                T t = alpha * x[k * incx]; \
                const T *a = A + k * csa; \
                for (int64_t i = 0; i < M; i++) y[i] += t * a[i]; \
            } \
        } \
    } \
    static T ct__dot_##SUF(int64_t n, const T *x, int64_t incx, const T *y, int64_t incy) { \
        T s0 = 0, s1 = 0, s2 = 0, s3 = 0; \
        int64_t k = 0; \
        for (; k + 4 <= n; k += 4) { \
            s0 += x[k * incx] * y[k * incy]; \
            s1 += x[(k + 1) * incx] * y[(k + 1) * incy]; \
            s2 += x[(k + 2) * incx] * y[(k + 2) * incy]; \
            s3 += x[(k + 3) * incx] * y[(k + 3) * incy]; \
        } \
        for (; k < n; k++) s0 += x[k * incx] * y[k * incy]; \
        return (s0 + s1) + (s2 + s3); \
    }
CT__GEMV_DEF(f32, float)
CT__GEMV_DEF(f64, double)

#ifdef CTENSOR_BLAS
#  define CT__GEMV_BLAS(SUF, T, GEMV, DOT) \
    static int ct__gemv_blas_##SUF(int64_t M, int64_t K, T alpha, const T *A, int64_t rsa, int64_t csa, \
                                   const T *x, int64_t incx, T beta, T *y) { \
        int64_t ld = 0; \
        int l = ct__blas_layout(M, K, rsa, csa, &ld); \
        if (!l || M > INT_MAX || K > INT_MAX || incx <= 0 || incx > INT_MAX || M * K < 4096) return 0; \
        if (beta == 0) memset(y, 0, sizeof(T) * (size_t)M); \
        if (l == 1) GEMV(CblasRowMajor, CblasNoTrans, (int)M, (int)K, alpha, A, (int)ld, x, (int)incx, beta, y, 1); \
        else GEMV(CblasRowMajor, CblasTrans, (int)K, (int)M, alpha, A, (int)ld, x, (int)incx, beta, y, 1); \
        return 1; \
    } \
    static int ct__dot_blas_##SUF(int64_t n, const T *x, int64_t incx, const T *y, int64_t incy, T *r) { \
        if (n > INT_MAX || incx <= 0 || incy <= 0 || incx > INT_MAX || incy > INT_MAX || n < 64) return 0; \
        *r = DOT((int)n, x, (int)incx, y, (int)incy); \
        return 1; \
    }
CT__GEMV_BLAS(f32, float, cblas_sgemv, cblas_sdot)
CT__GEMV_BLAS(f64, double, cblas_dgemv, cblas_ddot)
#  define CT__GEMV_TRY_BLAS(SUF) if (ct__gemv_blas_##SUF(M, K, alpha, A, rsa, csa, x, incx, beta, y)) return;
#  define CT__DOT_TRY_BLAS(SUF, T) { T r_; if (ct__dot_blas_##SUF(n, x, incx, y, incy, &r_)) return r_; }
#else
#  define CT__GEMV_TRY_BLAS(SUF)
#  define CT__DOT_TRY_BLAS(SUF, T)
#endif
#define CT__GEMV_ENTRY(SUF, T) \
    static void ct__gemv_##SUF(int64_t M, int64_t K, T alpha, const T *A, int64_t rsa, int64_t csa, const T *x, \
                               int64_t incx, T beta, T *y) { \
        CT__GEMV_TRY_BLAS(SUF) \
        ct__gemv_builtin_##SUF(M, K, alpha, A, rsa, csa, x, incx, beta, y); \
    } \
    static T ct__vdot_##SUF(int64_t n, const T *x, int64_t incx, const T *y, int64_t incy) { \
        CT__DOT_TRY_BLAS(SUF, T) \
        return ct__dot_##SUF(n, x, incx, y, incy); \
    }
CT__GEMV_ENTRY(f32, float)
CT__GEMV_ENTRY(f64, double)

/* out[M] = alpha * mat @ vec + beta * bias (bias broadcast; not read when beta == 0) */
static int ct__mv_into(ct_tensor *out, const ct_tensor *bias, double beta, const ct_tensor *mat, const ct_tensor *vec,
                       double alpha, ct_dtype cd) {
    int64_t M = mat->shape[0], K = mat->shape[1];
    ct_tensor *ac = NULL, *xc = NULL, *oc = out;
    int rc = -1;
    if (!(ac = mat->dtype == cd ? ct__incref((ct_tensor *)mat) : ct__convert(mat, cd))) goto done;
    if (!(xc = vec->dtype == cd ? ct__incref((ct_tensor *)vec) : ct__convert(vec, cd))) goto done;
    if ((out->dtype != cd || !ct__is_contig(out)) && !(oc = ct__alloc(cd, 1, out->shape, NULL, out->device))) goto done;
    if (bias && beta != 0) {
        if (ct__copy_into(oc, bias)) goto done;
    } else {
        beta = 0;
    }
    if (M > 0) {
        const char *ap = ct__ptr(ac), *xp = ct__ptr(xc);
        char *yp = ct__ptr(oc);
        int64_t rsa = ac->strides[0], csa = ac->strides[1], incx = xc->strides[0];
        if (cd == CT_FLOAT32)
            ct__gemv_f32(M, K, (float)alpha, (const float *)ap, rsa, csa, (const float *)xp, incx, (float)beta, (float *)yp);
        else if (cd == CT_FLOAT64)
            ct__gemv_f64(M, K, alpha, (const double *)ap, rsa, csa, (const double *)xp, incx, beta, (double *)yp);
        else   /* integers: the GEMM with one column */
            ct__gemm_i64(M, 1, K, ct__scalar_i64(alpha), (const int64_t *)ap, rsa, csa, (const int64_t *)xp, incx, 1,
                         ct__scalar_i64(beta), (int64_t *)yp, 1);
    }
    rc = oc != out ? ct__copy_into(out, oc) : 0;
done:
    if (ac) ct__decref(ac);
    if (xc) ct__decref(xc);
    if (oc && oc != out) ct__decref(oc);
    return rc;
}

/* ---- checks shared by the product ops ---- */
/* PyTorch expands the bias of addmm/baddbmm to the result: the same messages */
static int ct__check_expand(const char *op, const ct_tensor *x, int n, const int64_t *shape) {
    if (x->ndim > n)
        return ct__failed(CT_ERR_ARG, "%s: expand(torch.%sTensor{%s}, size=%s): the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)",
                          op, CT__DTNAME(x->dtype), CT__SHAPE(x), ct__fmt_shape(n, shape).s, n, x->ndim);
    for (int d = n - 1; d >= 0; d--) {
        int xd = d - (n - x->ndim);
        if (xd < 0) continue;
        if (x->shape[xd] != shape[d] && x->shape[xd] != 1)
            return ct__failed(CT_ERR_SHAPE, "%s: The expanded size of the tensor (%lld) must match the existing size (%lld) at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s",
                              op, (long long)shape[d], (long long)x->shape[xd], d, ct__fmt_shape(n, shape).s, CT__SHAPE(x));
    }
    return 0;
}
static int ct__check_kernel_dtype(const char *op, const char *kernel, ct_dtype dt) {
    if (dt == CT_BOOL || !(CT__ISFLOAT(dt) || CT__ISINT(dt)))
        return ct__failed(CT_ERR_DTYPE, "%s: \"%s\" not implemented for '%s'", op, kernel, CT__DTNAME(dt));
    return 0;
}

/* ---- addmm: beta * input + alpha * (mat1 @ mat2); attrs s[0] beta, s[1] alpha ---- */
static int ct__meta_addmm(ct__call *c) {
    ct_tensor *x = c->in[0], *a = c->in[1], *b = c->in[2];
    if (a->ndim != 2) return ct__failed(CT_ERR_SHAPE, "addmm: mat1 must be a matrix, got %d-D tensor", a->ndim);
    if (b->ndim != 2) return ct__failed(CT_ERR_SHAPE, "addmm: mat2 must be a matrix, got %d-D tensor", b->ndim);
    if (x->dtype != b->dtype) return ct__failed(CT_ERR_DTYPE, "addmm: self and mat2 must have the same dtype");
    if (a->dtype != b->dtype) return ct__failed(CT_ERR_DTYPE, "addmm: mat1 and mat2 must have the same dtype");
    if (a->shape[1] != b->shape[0])
        return ct__failed(CT_ERR_SHAPE, "addmm: mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)", (long long)a->shape[0],
                          (long long)a->shape[1], (long long)b->shape[0], (long long)b->shape[1]);
    if (ct__check_kernel_dtype("addmm", "addmm_impl_cpu_", a->dtype)) return -1;
    int64_t shape[2];
    shape[0] = a->shape[0];
    shape[1] = b->shape[1];
    if (ct__check_expand("addmm", x, 2, shape)) return -1;
    ct__meta_out(c, a->dtype, 2, shape);
    return 0;
}
static int ct__k_addmm(ct__call *c) { return ct__mm_into(c->out[0], c->in[0], c->a->s[0], c->in[1], c->in[2], c->a->s[1], c->cdt); }

/* ---- baddbmm: beta * input + alpha * bmm(batch1, batch2); input may have another dtype ---- */
static int ct__meta_baddbmm(ct__call *c) {
    ct_tensor *x = c->in[0], *a = c->in[1], *b = c->in[2];
    int64_t shape[3];
    if (a->ndim >= 2 && b->ndim >= 3) {  /* PyTorch expands the input before it checks the batches */
        shape[0] = a->shape[0];
        shape[1] = a->shape[1];
        shape[2] = b->shape[2];
        if (ct__check_expand("baddbmm", x, 3, shape)) return -1;
    }
    if (a->ndim != 3) return ct__failed(CT_ERR_SHAPE, "baddbmm: batch1 must be a 3D tensor");
    if (b->ndim != 3) return ct__failed(CT_ERR_SHAPE, "baddbmm: batch2 must be a 3D tensor");
    if (a->shape[0] != b->shape[0] || a->shape[2] != b->shape[1])
        return ct__failed(CT_ERR_SHAPE, "baddbmm: Expected size for first two dimensions of batch2 tensor to be: [%lld, %lld] but got: [%lld, %lld].",
                          (long long)a->shape[0], (long long)a->shape[2], (long long)b->shape[0], (long long)b->shape[1]);
    if (a->dtype != b->dtype)
        return ct__failed(CT_ERR_DTYPE, "baddbmm: expected scalar type %s but found %s", CT__DTNAME(a->dtype), CT__DTNAME(b->dtype));
    if (ct__check_kernel_dtype("baddbmm", "baddbmm", a->dtype)) return -1;
    if (!(CT__ISFLOAT(x->dtype) || CT__ISINT(x->dtype) || x->dtype == CT_BOOL))
        return ct__failed(CT_ERR_DTYPE, "baddbmm: input of dtype %s is not supported", ct_dtype_name(x->dtype));
    ct__meta_out(c, a->dtype, 3, shape);
    return 0;
}
static int ct__k_baddbmm(ct__call *c) {
    return ct__mm_into(c->out[0], c->in[0], c->a->s[0], c->in[1], c->in[2], c->a->s[1], c->cdt);
}

/* ---- addmv / mv ---- */
static int ct__meta_addmv(ct__call *c) {
    ct_tensor *x = c->in[0], *m = c->in[1], *v = c->in[2];
    if (!(m->ndim == 2 && v->ndim == 1 && x->ndim <= 1))
        return ct__failed(CT_ERR_SHAPE, "addmv: vector + matrix @ vector expected, got %d, %d, %d", x->ndim, m->ndim, v->ndim);
    int64_t xn = ct_numel(x);
    if (!(m->shape[1] == v->shape[0] && (m->shape[0] == xn || xn == 1)))
        return ct__failed(CT_ERR_SHAPE, "addmv: size mismatch, got %lld, %lldx%lld,%lld", (long long)(x->ndim ? x->shape[0] : 1),
                          (long long)m->shape[0], (long long)m->shape[1], (long long)v->shape[0]);
    if (m->dtype != v->dtype)
        return ct__failed(CT_ERR_DTYPE, "addmv: expected scalar type %s but found %s", CT__DTNAME(m->dtype), CT__DTNAME(v->dtype));
    if (ct__check_kernel_dtype("addmv", "addmv_impl_cpu", m->dtype)) return -1;
    if (!(CT__ISFLOAT(x->dtype) || CT__ISINT(x->dtype) || x->dtype == CT_BOOL))
        return ct__failed(CT_ERR_DTYPE, "addmv: input of dtype %s is not supported", ct_dtype_name(x->dtype));
    ct__meta_out(c, m->dtype, 1, m->shape);
    return 0;
}
static int ct__k_addmv(ct__call *c) { return ct__mv_into(c->out[0], c->in[0], c->a->s[0], c->in[1], c->in[2], c->a->s[1], c->cdt); }
static int ct__meta_mv(ct__call *c) {
    ct_tensor *m = c->in[0], *v = c->in[1];
    if (!(m->ndim == 2 && v->ndim == 1))
        return ct__failed(CT_ERR_SHAPE, "mv: vector + matrix @ vector expected, got 1, %d, %d", m->ndim, v->ndim);
    if (m->shape[1] != v->shape[0])
        return ct__failed(CT_ERR_SHAPE, "mv: size mismatch, got %lld, %lldx%lld,%lld", (long long)m->shape[0], (long long)m->shape[0],
                          (long long)m->shape[1], (long long)v->shape[0]);
    if (m->dtype != v->dtype)
        return ct__failed(CT_ERR_DTYPE, "mv: expected scalar type %s but found %s", CT__DTNAME(m->dtype), CT__DTNAME(v->dtype));
    if (ct__check_kernel_dtype("mv", "addmv_impl_cpu", m->dtype)) return -1;
    ct__meta_out(c, m->dtype, 1, m->shape);
    return 0;
}
static int ct__k_mv(ct__call *c) { return ct__mv_into(c->out[0], NULL, 0.0, c->in[0], c->in[1], 1.0, c->cdt); }

/* ---- dot / vdot (real dtypes: vdot is dot) ---- */
static int ct__meta_dot(ct__call *c) {
    ct_tensor *a = c->in[0], *b = c->in[1];
    const char *op = ct__ops[c->op].name;
    if (a->ndim != 1 || b->ndim != 1)
        return ct__failed(CT_ERR_SHAPE, "%s: 1D tensors expected, but got %dD and %dD tensors", op, a->ndim, b->ndim);
    if (a->dtype != b->dtype)
        return ct__failed(CT_ERR_DTYPE, "%s: expected both vectors to have same dtype, but found %s and %s", op, CT__DTNAME(a->dtype),
                          CT__DTNAME(b->dtype));
    if (a->shape[0] != b->shape[0])
        return ct__failed(CT_ERR_SHAPE, "%s: inconsistent tensor size, expected tensor [%lld] and src [%lld] to have the same number of elements, but got %lld and %lld elements respectively",
                          op, (long long)a->shape[0], (long long)b->shape[0], (long long)a->shape[0], (long long)b->shape[0]);
    if (ct__check_kernel_dtype(op, op, a->dtype)) return -1;
    ct__meta_out(c, a->dtype, 0, NULL);
    return 0;
}
static int ct__k_dot(ct__call *c) {
    ct_dtype cd = c->cdt;
    ct_tensor *a = c->in[0], *b = c->in[1], *ac = NULL, *bc = NULL;
    int rc = -1;
    if (!(ac = a->dtype == cd ? ct__incref(a) : ct__convert(a, cd))) goto done;
    if (!(bc = b->dtype == cd ? ct__incref(b) : ct__convert(b, cd))) goto done;
    {
        int64_t n = a->shape[0], sa = ac->strides[0], sb = bc->strides[0];
        const char *ap = ct__ptr(ac), *bp = ct__ptr(bc);
        char *o = ct__ptr(c->out[0]);
        if (cd == CT_FLOAT32) {
            ct__store_f64(o, c->out[0]->dtype, ct__vdot_f32(n, (const float *)ap, sa, (const float *)bp, sb));
        } else if (cd == CT_FLOAT64) {
            ct__store_f64(o, c->out[0]->dtype, ct__vdot_f64(n, (const double *)ap, sa, (const double *)bp, sb));
        } else {
            uint64_t acc = 0;
            const int64_t *x = (const int64_t *)ap, *y = (const int64_t *)bp;
            for (int64_t k = 0; k < n; k++) acc += (uint64_t)x[k * sa] * (uint64_t)y[k * sb];
            ct__store_i64(o, c->out[0]->dtype, CT__IW(acc));
        }
    }
    rc = 0;
done:
    if (ac) ct__decref(ac);
    if (bc) ct__decref(bc);
    return rc;
}

/* ---- backward rules (derivatives.yaml: addmm, baddbmm, addmv, mv, dot, vdot) ---- */
#define CT__BLAS_NEEDS(n, i) ((n)->next[i].fn != NULL)
static ct_tensor *ct__times(ct_tensor *t, double s) { return s == 1.0 ? t : ct_mul_scalar(t, s); }
/* l @ r, laid out like `like` (PyTorch's mm_mat1/mat2_backward): for a transposed
   input (x @ w.t()) the product is made as (r^T l^T)^T, so that the gradient that
   reaches w through t() is contiguous and .grad takes it without a copy. */
static ct_tensor *ct__mm_like(const ct_tensor *like, ct_tensor *l, ct_tensor *r) {
    if (like && like->ndim == 2 && like->shape[0] > 1 && like->shape[1] > 1 && like->strides[0] == 1 &&
        like->strides[1] >= like->shape[0])
        return ct_t(ct_mm(ct_t(r), ct_t(l)));
    return ct_mm(l, r);
}
static int ct__bw_addmm(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    double beta = n->attrs.s[0], alpha = n->attrs.s[1];
    ct_tensor *g = gout[0];
    if (CT__BLAS_NEEDS(n, 0) && !(gin[0] = ct__times(g, beta))) return -1;
    if (CT__BLAS_NEEDS(n, 1)) {
        ct_tensor *B = CT__SV_IN(n, 2);
        if (!B || !(gin[1] = ct__times(ct__mm_like(ct__saved_peek(n, 1), g, ct_t(B)), alpha))) return -1;
    }
    if (CT__BLAS_NEEDS(n, 2)) {
        ct_tensor *A = CT__SV_IN(n, 1), *B = CT__SV_IN(n, 2);
        if (!A || !B || !(gin[2] = ct__times(ct__mm_like(B, ct_t(A), g), alpha))) return -1;
    }
    return 0;
}
static int ct__bw_baddbmm(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    double beta = n->attrs.s[0], alpha = n->attrs.s[1];
    ct_tensor *g = gout[0];
    if (CT__BLAS_NEEDS(n, 0) && !(gin[0] = ct__times(g, beta))) return -1;
    if (CT__BLAS_NEEDS(n, 1)) {
        ct_tensor *B = CT__SV_IN(n, 2);
        if (!B || !(gin[1] = ct__times(ct_bmm(g, ct_mT(B)), alpha))) return -1;
    }
    if (CT__BLAS_NEEDS(n, 2)) {
        ct_tensor *A = CT__SV_IN(n, 1);
        if (!A || !(gin[2] = ct__times(ct_bmm(ct_mT(A), g), alpha))) return -1;
    }
    return 0;
}
static int ct__bw_addmv(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    double beta = n->attrs.s[0], alpha = n->attrs.s[1];
    ct_tensor *g = gout[0];
    if (CT__BLAS_NEEDS(n, 0) && !(gin[0] = ct__times(g, beta))) return -1;
    if (CT__BLAS_NEEDS(n, 1)) {
        ct_tensor *v = CT__SV_IN(n, 2);
        if (!v || !(gin[1] = ct__times(ct_outer(g, v), alpha))) return -1;
    }
    if (CT__BLAS_NEEDS(n, 2)) {
        ct_tensor *m = CT__SV_IN(n, 1);
        if (!m || !(gin[2] = ct__times(ct_mv(ct_t(m), g), alpha))) return -1;
    }
    return 0;
}
static int ct__bw_mv(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *A = CT__SV_IN(n, 0), *B = CT__SV_IN(n, 1);
    if (!A || !B) return -1;
    if (CT__BLAS_NEEDS(n, 0) && !(gin[0] = ct_outer(gout[0], B))) return -1;
    if (CT__BLAS_NEEDS(n, 1) && !(gin[1] = ct_mv(ct_t(A), gout[0]))) return -1;
    return 0;
}
static int ct__bw_dot(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *A = CT__SV_IN(n, 0), *B = CT__SV_IN(n, 1);
    if (!A || !B) return -1;
    if (CT__BLAS_NEEDS(n, 0) && !(gin[0] = ct_mul(gout[0], B))) return -1;
    if (CT__BLAS_NEEDS(n, 1) && !(gin[1] = ct_mul(gout[0], A))) return -1;
    return 0;
}

/* ---- public functions ---- */
static ct_tensor *ct__op3_ba(int op, const ct_tensor *x, const ct_tensor *a, const ct_tensor *b, double beta, double alpha) {
    ct__attrs at;
    ct__attrs_init(&at);
    at.s[0] = beta;
    at.s[1] = alpha;
    return ct__op3(op, x, a, b, &at);
}
CTENSOR_API ct_tensor *ct_addmm(const ct_tensor *input, const ct_tensor *mat1, const ct_tensor *mat2, double beta, double alpha) {
    return ct__op3_ba(CT__OP_ADDMM, input, mat1, mat2, beta, alpha);
}
CTENSOR_API ct_tensor *ct_baddbmm(const ct_tensor *input, const ct_tensor *batch1, const ct_tensor *batch2, double beta, double alpha) {
    return ct__op3_ba(CT__OP_BADDBMM, input, batch1, batch2, beta, alpha);
}
CTENSOR_API ct_tensor *ct_addmv(const ct_tensor *input, const ct_tensor *mat, const ct_tensor *vec, double beta, double alpha) {
    return ct__op3_ba(CT__OP_ADDMV, input, mat, vec, beta, alpha);
}
CTENSOR_API ct_tensor *ct_mv(const ct_tensor *mat, const ct_tensor *vec) {
    ct__attrs at;
    ct__attrs_init(&at);
    return ct__op2(CT__OP_MV, mat, vec, &at);
}
CTENSOR_API ct_tensor *ct_dot(const ct_tensor *a, const ct_tensor *b) {
    ct__attrs at;
    ct__attrs_init(&at);
    return ct__op2(CT__OP_DOT, a, b, &at);
}
CTENSOR_API ct_tensor *ct_vdot(const ct_tensor *a, const ct_tensor *b) {
    ct__attrs at;
    ct__attrs_init(&at);
    return ct__op2(CT__OP_VDOT, a, b, &at);
}
/* torch.outer: self.reshape({n, 1}) * vec2 (so it promotes dtypes as mul does) */
CTENSOR_API ct_tensor *ct_outer(const ct_tensor *a, const ct_tensor *b) {
    if (!a || !b) { ct__null_arg("outer", a ? 1 : 0); return NULL; }
    if (a->ndim != 1) return ct__fail(CT_ERR_SHAPE, "outer: Expected 1-D argument self, but got %d-D", a->ndim);
    if (b->ndim != 1) return ct__fail(CT_ERR_SHAPE, "outer: Expected 1-D argument vec2, but got %d-D", b->ndim);
    return ct_mul(ct_reshape(a, a->shape[0], 1), b);
}
/* torch.nn.functional.linear: x @ weight^T + bias over any leading dims. A bias is
   fused into the GEMM (addmm) as PyTorch does for 2-D and contiguous 3-D inputs;
   more leading dims are flattened the same way when the bias is a vector. */
CTENSOR_API ct_tensor *ct_linear(const ct_tensor *x, const ct_tensor *weight, const ct_tensor *bias) {
    if (!x || !weight) { ct__null_arg("linear", x ? 1 : 0); return NULL; }
    if (CT__NAMED(x) || CT__NAMED(weight) || CT__NAMED(bias)) return ct__names_comp(CT__NC_LINEAR, x, weight, bias, 0, 0);
    if (x->ndim == 2 && bias) return ct_addmm(bias, x, ct_t(weight), 1.0, 1.0);
    if (bias && x->ndim >= 3 && ((bias->ndim == 1 && weight->ndim == 2) || (x->ndim == 3 && ct__is_contig(x)))) {
        int64_t shape[CT_MAX_DIMS], rows = 1, k = x->shape[x->ndim - 1];
        for (int d = 0; d < x->ndim - 1; d++) { shape[d] = x->shape[d]; rows *= x->shape[d]; }
        shape[x->ndim - 1] = weight->shape[0];
        ct_tensor *r = ct_addmm(bias, ct_reshape(x, rows, k), ct_t(weight), 1.0, 1.0);
        return ct_view_n(r, x->ndim, shape);
    }
    ct_tensor *out = ct_matmul(x, ct_t(weight));
    return bias ? ct_add(out, bias) : out;
}

/* torch.tensordot (aten/src/ATen/native/Linear.cpp): permute, fold, one mm.
   Contracted dims of size 1 on one side broadcast (the other side is summed). */
CTENSOR_API ct_tensor *ct_tensordot(const ct_tensor *a, const ct_tensor *b, int ndims_a, const int64_t *dims_a, int ndims_b,
                                    const int64_t *dims_b) {
    if (!a || !b) { ct__null_arg("tensordot", a ? 1 : 0); return NULL; }
    if (ndims_a != ndims_b) return ct__fail(CT_ERR_ARG, "tensordot: both dimension lists should have same length");
    if (ndims_a < 0 || (ndims_a > 0 && (!dims_a || !dims_b)))
        return ct__fail(CT_ERR_ARG, "tensordot: invalid dimension lists (%d entries)", ndims_a);
    int nd = ndims_a;
    if (nd > 0 && (a->ndim == 0 || b->ndim == 0))
        return ct__fail(CT_ERR_INDEX, "tensordot: dimension specified as %lld but tensor has no dimensions", (long long)(a->ndim == 0 ? dims_a[0] : dims_b[0]));
    ct_tensor *t1 = (ct_tensor *)a, *t2 = (ct_tensor *)b;
    int64_t csize = 1;
    uint32_t c1 = 0, c2 = 0;
    int w1[CT_MAX_DIMS], w2[CT_MAX_DIMS];
    for (int i = 0; i < nd; i++) {
        int d1 = ct__dim("tensordot", dims_a[i], a->ndim), d2 = ct__dim("tensordot", dims_b[i], b->ndim);
        if (d1 < 0 || d2 < 0) return NULL;
        if (i >= CT_MAX_DIMS) break;   /* more dims than a tensor has: a duplicate, reported below */
        int64_t s1 = a->shape[d1], s2 = b->shape[d2];
        if (s2 == 1) {
            t1 = ct_sum_dim(t1, d1, 1);
        } else if (s1 == 1) {
            t2 = ct_sum_dim(t2, d2, 1);
        } else if (s1 != s2) {
            return ct__fail(CT_ERR_SHAPE, "tensordot: contracted dimensions need to match, but first has size %lld in dim %lld and second has size %lld in dim %lld",
                            (long long)s1, (long long)dims_a[i], (long long)s2, (long long)dims_b[i]);
        } else {
            csize *= s1;
        }
        w1[i] = d1;
        w2[i] = d2;
    }
    for (int i = 0; i < nd; i++) {
        if (i >= CT_MAX_DIMS) return ct__fail(CT_ERR_ARG, "tensordot: dim %d appears multiple times in the list of dims", ct__wrap_dim((int)dims_a[i], a->ndim));
        if (c1 & (1u << w1[i])) return ct__fail(CT_ERR_ARG, "tensordot: dim %d appears multiple times in the list of dims", w1[i]);
        c1 |= 1u << w1[i];
        if (c2 & (1u << w2[i])) return ct__fail(CT_ERR_ARG, "tensordot: dim %d appears multiple times in the list of dims", w2[i]);
        c2 |= 1u << w2[i];
    }
    if (!t1 || !t2) return NULL;
    int64_t p1[CT_MAX_DIMS], p2[CT_MAX_DIMS], rs[2 * CT_MAX_DIMS], size1 = 1, size2 = 1;
    int n1 = 0, n2 = 0, nr = 0;
    for (int d = 0; d < a->ndim; d++)
        if (!(c1 & (1u << d))) { p1[n1++] = d; size1 *= t1->shape[d]; rs[nr++] = t1->shape[d]; }
    for (int i = 0; i < nd; i++) p1[n1++] = w1[i];
    for (int i = 0; i < nd; i++) p2[n2++] = w2[i];
    for (int d = 0; d < b->ndim; d++)
        if (!(c2 & (1u << d))) { p2[n2++] = d; size2 *= t2->shape[d]; rs[nr++] = t2->shape[d]; }
    if (nr > CT_MAX_DIMS)
        return ct__fail(CT_ERR_ARG, "tensordot: the result would have %d dimensions, more than the maximum of %d", nr, CT_MAX_DIMS);
    ct_tensor *m1 = ct_reshape(ct_permute_n(t1, n1, p1), size1, csize);
    ct_tensor *m2 = ct_reshape(ct_permute_n(t2, n2, p2), csize, size2);
    return ct_reshape_n(ct_mm(m1, m2), nr, rs);
}
/* torch.tensordot(a, b, dims=n): the last n dims of a with the first n of b */
CTENSOR_API ct_tensor *ct_tensordot_int(const ct_tensor *a, const ct_tensor *b, int64_t dims) {
    if (!a || !b) { ct__null_arg("tensordot", a ? 1 : 0); return NULL; }
    if (dims < 0) return ct__fail(CT_ERR_ARG, "tensordot: tensordot expects dims >= 0, but got dims=%lld", (long long)dims);
    if (dims > CT_MAX_DIMS) {
        (void)ct__dim("tensordot", -dims, a->ndim);
        return NULL;
    }
    int64_t da[CT_MAX_DIMS], db[CT_MAX_DIMS];
    for (int64_t i = 0; i < dims; i++) { da[i] = i - dims; db[i] = i; }
    return ct_tensordot(a, b, (int)dims, da, (int)dims, db);
}

/* ---- einsum -------------------------------------------------------------------
   torch.einsum with PyTorch's parser, checks and messages (aten Linear.cpp).
   Subscripts 'A'-'Z' are labels 0-25, 'a'-'z' 26-51; the dims an ellipsis covers
   get labels 52.. (right-aligned). Each operand is reduced to distinct labels
   (diagonal for a repeated subscript, size-1 dims dropped since they broadcast,
   labels no other operand or the output uses summed out); then the operands are
   contracted left to right, each pair with one bmm (batch = labels both share
   and still need, rows/cols = labels only one has, summed = shared labels needed
   nowhere else), a mul when nothing is summed, a dot when everything is. Every
   step is a differentiable ctensor op, so autograd (and create_graph) follow. */
#define CT__EIN_ELL 255
#define CT__EIN_NL (52 + CT_MAX_DIMS)
typedef struct ct__ein_op {
    int nraw;                          /* subscripts as written (ellipsis = CT__EIN_ELL) */
    uint8_t raw[CT_MAX_DIMS + 2];
    int n;                             /* labels of the reduced operand, one per dim */
    int lab[CT_MAX_DIMS];
    ct_tensor *t;
} ct__ein_op;
static int ct__ein_label(int ch) {
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    return -1;
}
static char ct__ein_char(int l) { return (char)(l < 26 ? 'A' + l : 'a' + (l - 26)); }
/* Moves dims of t (labels lab[0..n)) into the order `want` (labels), returning the permuted view. */
static ct_tensor *ct__ein_permute(ct_tensor *t, int n, const int *lab, int nw, const int *want) {
    int64_t p[CT_MAX_DIMS];
    for (int k = 0; k < nw; k++)
        for (int d = 0; d < n; d++)
            if (lab[d] == want[k]) p[k] = d;
    return ct_permute_n(t, nw, p);
}
static int64_t ct__ein_size(const ct_tensor *t, int n, const int *lab, int l) {
    for (int d = 0; d < n; d++)
        if (lab[d] == l) return t->shape[d];
    return 1;
}
/* contracts result (labels rl) with operand o; `later`: labels still needed afterwards */
static ct_tensor *ct__ein_pair(ct_tensor *r, int *nrl, int *rl, ct__ein_op *o, uint64_t later) {
    int lro[CT_MAX_DIMS], lo[CT_MAX_DIMS], ro[CT_MAX_DIMS], sm[CT_MAX_DIMS], nlro = 0, nlo = 0, nro = 0, nsm = 0;
    uint64_t om = 0, rm = 0;
    for (int d = 0; d < o->n; d++) om |= (uint64_t)1 << o->lab[d];
    for (int d = 0; d < *nrl; d++) rm |= (uint64_t)1 << rl[d];
    for (int d = 0; d < *nrl; d++) {
        uint64_t bit = (uint64_t)1 << rl[d];
        if (!(om & bit)) lo[nlo++] = rl[d];
        else if (later & bit) lro[nlro++] = rl[d];
        else sm[nsm++] = rl[d];
    }
    for (int d = 0; d < o->n; d++)
        if (!(rm & ((uint64_t)1 << o->lab[d]))) ro[nro++] = o->lab[d];
    int outl[3 * CT_MAX_DIMS], no = 0;
    for (int k = 0; k < nlro; k++) outl[no++] = lro[k];
    for (int k = 0; k < nlo; k++) outl[no++] = lo[k];
    for (int k = 0; k < nro; k++) outl[no++] = ro[k];
    if (no > CT_MAX_DIMS)
        return ct__fail(CT_ERR_ARG, "einsum(): an intermediate result would have %d dimensions, more than the maximum of %d", no, CT_MAX_DIMS);
    ct_tensor *res;
    if (nsm == 0) {
        /* nothing summed: a broadcasting product (PyTorch: result.mul(operand)) */
        int wr[CT_MAX_DIMS], wo[CT_MAX_DIMS], nwr = 0, nwo = 0;
        int64_t sr[CT_MAX_DIMS], so[CT_MAX_DIMS];
        for (int k = 0; k < nlro; k++) { wr[nwr++] = lro[k]; wo[nwo++] = lro[k]; }
        for (int k = 0; k < nlo; k++) wr[nwr++] = lo[k];
        for (int k = 0; k < nro; k++) wo[nwo++] = ro[k];
        for (int k = 0; k < no; k++) {
            sr[k] = k < nlro + nlo ? ct__ein_size(r, *nrl, rl, outl[k]) : 1;
            so[k] = (k < nlro || k >= nlro + nlo) ? ct__ein_size(o->t, o->n, o->lab, outl[k]) : 1;
        }
        ct_tensor *a = ct_reshape_n(ct__ein_permute(r, *nrl, rl, nwr, wr), no, sr);
        ct_tensor *b = ct_reshape_n(ct__ein_permute(o->t, o->n, o->lab, nwo, wo), no, so);
        res = ct_mul(a, b);
    } else if (no == 0) {
        /* everything summed (PyTorch: result.flatten().dot(operand.flatten())) */
        ct_tensor *a = ct_reshape(ct__ein_permute(r, *nrl, rl, nsm, sm), -1);
        ct_tensor *b = ct_reshape(ct__ein_permute(o->t, o->n, o->lab, nsm, sm), -1);
        res = ct_dot(a, b);
    } else {
        int wl[CT_MAX_DIMS], wr2[CT_MAX_DIMS], nwl = 0, nwr2 = 0;
        int64_t bs = 1, ms = 1, ks = 1, ns = 1, osh[CT_MAX_DIMS];
        for (int k = 0; k < nlro; k++) { wl[nwl++] = lro[k]; wr2[nwr2++] = lro[k]; bs *= ct__ein_size(r, *nrl, rl, lro[k]); }
        for (int k = 0; k < nlo; k++) { wl[nwl++] = lo[k]; ms *= ct__ein_size(r, *nrl, rl, lo[k]); }
        for (int k = 0; k < nsm; k++) { wl[nwl++] = sm[k]; wr2[nwr2++] = sm[k]; ks *= ct__ein_size(r, *nrl, rl, sm[k]); }
        for (int k = 0; k < nro; k++) { wr2[nwr2++] = ro[k]; ns *= ct__ein_size(o->t, o->n, o->lab, ro[k]); }
        for (int k = 0; k < no; k++)
            osh[k] = k < nlro + nlo ? ct__ein_size(r, *nrl, rl, outl[k]) : ct__ein_size(o->t, o->n, o->lab, outl[k]);
        ct_tensor *a = ct_reshape(ct__ein_permute(r, *nrl, rl, nwl, wl), bs, ms, ks);
        ct_tensor *b = ct_reshape(ct__ein_permute(o->t, o->n, o->lab, nwr2, wr2), bs, ks, ns);
        res = ct_reshape_n(ct_bmm(a, b), no, osh);
    }
    *nrl = no;
    for (int k = 0; k < no; k++) rl[k] = outl[k];
    return res;
}
static ct_tensor *ct__einsum_impl(const char *equation, int n, ct_tensor *const *operands, ct__ein_op *ops) {
    const char *arrow = strstr(equation, "->");
    size_t lhs = arrow ? (size_t)(arrow - equation) : strlen(equation);
    int cur = 0, found_ell = 0;
    int64_t count[52];
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < lhs; i++) {
        int ch = (unsigned char)equation[i];
        if (ch == ' ') continue;
        if (ch == '.') {
            if (found_ell) {
                return ct__fail(CT_ERR_ARG, "einsum(): found '.' for operand %d for which an ellipsis was already found", cur);
            }
            if (!(i + 2 < lhs && equation[i + 1] == '.' && equation[i + 2] == '.')) {
                return ct__fail(CT_ERR_ARG, "einsum(): found '.' for operand %d that is not part of any ellipsis", cur);
            }
            i += 2;
            found_ell = 1;
            if (ops[cur].nraw < CT_MAX_DIMS + 2) ops[cur].raw[ops[cur].nraw] = CT__EIN_ELL;
            ops[cur].nraw++;
        } else if (ch == ',') {
            if (++cur >= n) {
                return ct__fail(CT_ERR_ARG, "einsum(): fewer operands were provided than specified in the equation");
            }
            found_ell = 0;
        } else {
            int l = ct__ein_label(ch);
            if (l < 0) {
                return ct__fail(CT_ERR_ARG, "einsum(): invalid subscript given at index %d in the equation string, subscripts must be in [a-zA-Z]", (int)i);
            }
            if (ops[cur].nraw < CT_MAX_DIMS + 2) ops[cur].raw[ops[cur].nraw] = (uint8_t)l;
            ops[cur].nraw++;
        }
    }
    if (cur != n - 1) {
        return ct__fail(CT_ERR_ARG, "einsum(): more operands were provided than specified in the equation");
    }
    /* subscript counts, the number of dims the ellipsis covers */
    int ell_dims = 0;
    for (int i = 0; i < n; i++) {
        int nd = operands[i]->ndim, nl = 0, has_ell = 0;
        int stored = CT__MIN(ops[i].nraw, CT_MAX_DIMS + 2);
        for (int k = 0; k < stored; k++) {
            if (ops[i].raw[k] == CT__EIN_ELL) has_ell = 1;
            else count[ops[i].raw[k]]++;
        }
        nl = ops[i].nraw - has_ell;
        if (has_ell ? nl > nd : nl != nd) {
            return ct__fail(CT_ERR_SHAPE, "einsum(): the number of subscripts in the equation (%d) %s the number of dimensions (%d) for operand %d%s", nl,
                         has_ell ? "is more than" : "does not match", nd, i, has_ell ? "" : " and no ellipsis was given");
        }
        if (has_ell && nd - nl > ell_dims) ell_dims = nd - nl;
    }
    /* output labels */
    int out[CT__EIN_NL], nout = 0, out_ell = 0;
    uint64_t outmask = 0;
    if (!arrow) {
        for (int j = 0; j < ell_dims; j++) out[nout++] = 52 + j;
        for (int l = 0; l < 52; l++)
            if (count[l] == 1) out[nout++] = l;
        out_ell = 1;
    } else {
        const char *rhs = arrow + 2;
        size_t rn = strlen(rhs);
        for (size_t i = 0; i < rn; i++) {
            int ch = (unsigned char)rhs[i];
            if (ch == ' ') continue;
            if (ch == '.') {
                if (out_ell) {
                    return ct__fail(CT_ERR_ARG, "einsum(): found '.' for output but an ellipsis (...) was already found");
                }
                if (!(i + 2 < rn && rhs[i + 1] == '.' && rhs[i + 2] == '.')) {
                    return ct__fail(CT_ERR_ARG, "einsum(): found '.' for output that is not part of any ellipsis (...)");
                }
                i += 2;
                out_ell = 1;
                for (int j = 0; j < ell_dims; j++) out[nout++] = 52 + j;
                continue;
            }
            int l = ct__ein_label(ch);
            if (l < 0) {
                return ct__fail(CT_ERR_ARG, "einsum(): invalid subscript given at index %d in the equation string, subscripts must be in [a-zA-Z]",
                             (int)(lhs + 2 + i));
            }
            if (count[l] == 0 || (outmask & ((uint64_t)1 << l))) {
                return ct__fail(CT_ERR_ARG, "einsum(): output subscript %c %s", ch,
                             count[l] ? "appears more than once in the output" : "does not appear in the equation for any input operand");
            }
            outmask |= (uint64_t)1 << l;
            out[nout++] = l;
        }
    }
    for (int k = 0; k < nout; k++) outmask |= (uint64_t)1 << out[k];
    if (nout > CT_MAX_DIMS) {
        return ct__fail(CT_ERR_ARG, "einsum(): the output would have %d dimensions, more than the maximum of %d", nout, CT_MAX_DIMS);
    }
    /* sizes (broadcasting size-1 dims), diagonals, dropping size-1 dims */
    int64_t lsize[CT__EIN_NL];
    for (int l = 0; l < CT__EIN_NL; l++) lsize[l] = 1;
    for (int i = 0; i < n; i++) {
        ct__ein_op *o = &ops[i];
        ct_tensor *t = operands[i];
        int dim = 0;
        o->n = 0;
        for (int k = 0; k < o->nraw; k++) {
            int s = o->raw[k];
            if (s == CT__EIN_ELL) {
                int nd = operands[i]->ndim - (o->nraw - 1);
                for (int j = ell_dims - nd; j < ell_dims; j++, dim++) {
                    int64_t sz = t->shape[dim];
                    if (sz != 1) {
                        if (lsize[52 + j] != 1 && lsize[52 + j] != sz) {
                            return ct__fail(CT_ERR_SHAPE, "einsum(): dimension %d covered by ellipsis in operand %d has size %lld which does not broadcast with previously seen ellipsis with size %lld for the respective dimension",
                                         dim, i, (long long)sz, (long long)lsize[52 + j]);
                        }
                        lsize[52 + j] = sz;
                    }
                    o->lab[o->n++] = 52 + j;
                }
                continue;
            }
            int prev = -1;
            for (int d = 0; d < o->n; d++)
                if (o->lab[d] == s) prev = d;
            if (prev < 0) {
                int64_t sz = t->shape[dim];
                if (sz != 1) {
                    if (lsize[s] != 1 && lsize[s] != sz) {
                        return ct__fail(CT_ERR_SHAPE, "einsum(): subscript %c has size %lld for operand %d which does not broadcast with previously seen size %lld",
                                     ct__ein_char(s), (long long)sz, i, (long long)lsize[s]);
                    }
                    lsize[s] = sz;
                }
                o->lab[o->n++] = s;
                dim++;
            } else {
                if (t->shape[dim] != t->shape[prev]) {
                    return ct__fail(CT_ERR_SHAPE, "einsum(): subscript %c is repeated for operand %d but the sizes don't match, %lld != %lld",
                                 ct__ein_char(s), i, (long long)t->shape[dim], (long long)t->shape[prev]);
                }
                /* the diagonal replaces both dims, placed where the first one was */
                ct_tensor *dg = ct_diagonal(t, 0, prev, dim);
                if (!dg) return NULL;
                int64_t p[CT_MAX_DIMS];
                int q = 0;
                for (int d = 0; d < dg->ndim - 1; d++) {
                    if (q == prev) p[q++] = dg->ndim - 1;
                    p[q++] = d;
                }
                if (q == prev) p[q++] = dg->ndim - 1;
                t = ct_permute_n(dg, q, p);
                if (!t) return NULL;
            }
        }
        /* size-1 dims broadcast: drop them (a needed output dim of size 1 is restored at the end) */
        for (int d = o->n - 1; d >= 0; d--) {
            if (t->shape[d] != 1) continue;
            t = ct_squeeze_dim(t, d);
            if (!t) return NULL;
            for (int e = d; e + 1 < o->n; e++) o->lab[e] = o->lab[e + 1];
            o->n--;
        }
        o->t = t;
    }
    /* labels an operand alone uses (and the output does not) are summed right away */
    for (int i = 0; i < n; i++) {
        ct__ein_op *o = &ops[i];
        uint64_t others = outmask;
        for (int j = 0; j < n; j++)
            if (j != i)
                for (int d = 0; d < ops[j].n; d++) others |= (uint64_t)1 << ops[j].lab[d];
        int64_t sd[CT_MAX_DIMS];
        int nsd = 0, keep = 0;
        for (int d = 0; d < o->n; d++) {
            if (others & ((uint64_t)1 << o->lab[d])) o->lab[keep++] = o->lab[d];
            else sd[nsd++] = d;
        }
        if (nsd) {
            o->t = ct_sum_dims(o->t, nsd, sd, 0);
            o->n = keep;
            if (!o->t) return NULL;
        }
    }
    {
        ct_tensor *r = ops[0].t;
        int rl[CT_MAX_DIMS], nrl = ops[0].n;
        for (int d = 0; d < nrl; d++) rl[d] = ops[0].lab[d];
        for (int i = 1; i < n; i++) {
            uint64_t later = outmask;
            for (int j = i + 1; j < n; j++)
                for (int d = 0; d < ops[j].n; d++) later |= (uint64_t)1 << ops[j].lab[d];
            r = ct__ein_pair(r, &nrl, rl, &ops[i], later);
            if (!r) return NULL;
        }
        /* into the output order; output dims every operand had as size 1 come back */
        int have[CT_MAX_DIMS], nh = 0;
        int64_t osh[CT_MAX_DIMS];
        for (int k = 0; k < nout; k++) {
            osh[k] = 1;
            for (int d = 0; d < nrl; d++)
                if (rl[d] == out[k]) { have[nh++] = out[k]; osh[k] = r->shape[d]; }
        }
        return ct_reshape_n(ct__ein_permute(r, nrl, rl, nh, have), nout, osh);
    }
}
CTENSOR_API ct_tensor *ct_einsum(const char *equation, int n, ct_tensor *const *operands) {
    if (!equation) return ct__fail(CT_ERR_ARG, "einsum(): the equation is NULL");
    if (n <= 0 || !operands)
        return ct__fail(CT_ERR_ARG, "einsum(): must specify the equation string and at least one operand, or at least one operand and its subscripts list");
    for (int i = 0; i < n; i++)
        if (!operands[i]) { ct__null_arg("einsum", i); return NULL; }
    ct__ein_op *ops = CT__NEW_ARRAY(ct__ein_op, n);
    if (!ops) return ct__fail(CT_ERR_MEMORY, "einsum(): out of memory");
    memset(ops, 0, sizeof(ct__ein_op) * (size_t)n);
    ct_tensor *result = ct__einsum_impl(equation, n, operands, ops);
    CT_FREE(ops);
    return result;
}

/* ============================================================================
   Random numbers: PyTorch's CPU generator and transformations
   (at::mt19937, uniform_real_distribution, normal_fill; see aten/src/ATen/core)
   ========================================================================== */
static ct_generator ct__default_gen;
static int ct__default_gen_state;   /* ct__once: 0 none, 1 being made, 2 ready */

/* seeds g's state (not its lock) */
static void ct__generator_seed(ct_generator *g, uint64_t seed) {
    g->seed = seed;
    g->mt[0] = (uint32_t)(seed & 0xffffffffu);
    for (int j = 1; j < 624; j++) g->mt[j] = 1812433253u * (g->mt[j - 1] ^ (g->mt[j - 1] >> 30)) + (uint32_t)j;
    g->mti = 624;
    g->has_next_double_normal = 0;
    g->next_double_normal = 0.0;
}
CTENSOR_API void ct_generator_init(ct_generator *g, uint64_t seed) {
    ct__generator_seed(g, seed);
    g->lock = 0;
}
static void ct__default_gen_init(void) { ct_generator_init(&ct__default_gen, 67280421310721ULL); }  /* PyTorch's default seed */
/* The default generator is made on first use, once, whichever threads ask at once. */
static ct_generator *ct__gen(ct_generator *g) {
    if (g) return g;
    if (CT__UNLIKELY(CT__LOAD_ACQUIRE(&ct__default_gen_state) != 2)) ct__once(&ct__default_gen_state, ct__default_gen_init);
    return &ct__default_gen;
}
CTENSOR_API ct_generator *ct_default_generator(void) { return ct__gen(NULL); }
/* A backend with generators of its own (ctensor_cuda.h's device generators) sets
   this at load, so that ct_manual_seed seeds them too, as torch.manual_seed does. */
static void (*ct__manual_seed_hook)(uint64_t seed);
/* Reseeding takes the generator's lock, so it cannot tear a draw running in another thread. */
CTENSOR_API void ct_manual_seed(uint64_t seed) {
    ct_generator *g = ct__gen(NULL);
    ct__spin_lock(&g->lock);
    ct__generator_seed(g, seed);
    ct__spin_unlock(&g->lock);
    if (ct__manual_seed_hook) ct__manual_seed_hook(seed);
}
CTENSOR_API uint64_t ct_initial_seed(void) { return ct__gen(NULL)->seed; }
/* mt19937's twist in three runs, so no index wraps (no modulo per word) */
static void ct__mt_twist(ct_generator *g) {
    uint32_t *mt = g->mt;
    int k = 0;
    for (; k < 624 - 397; k++) {
        uint32_t y = (mt[k] & 0x80000000u) | (mt[k + 1] & 0x7fffffffu);
        mt[k] = mt[k + 397] ^ (y >> 1) ^ ((0u - (y & 1u)) & 0x9908b0dfu);
    }
    for (; k < 623; k++) {
        uint32_t y = (mt[k] & 0x80000000u) | (mt[k + 1] & 0x7fffffffu);
        mt[k] = mt[k + 397 - 624] ^ (y >> 1) ^ ((0u - (y & 1u)) & 0x9908b0dfu);
    }
    uint32_t y = (mt[623] & 0x80000000u) | (mt[0] & 0x7fffffffu);
    mt[623] = mt[396] ^ (y >> 1) ^ ((0u - (y & 1u)) & 0x9908b0dfu);
    g->mti = 0;
}
static uint32_t ct__mt_next(ct_generator *g) {
    if (g->mti >= 624) ct__mt_twist(g);
    uint32_t y = g->mt[g->mti++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}
/* n tempered words at once (the same stream as n ct__mt_next calls): the tempering
   runs over a whole run of the state, a loop the compiler vectorizes. */
static void ct__mt_block(ct_generator *g, uint32_t *CT_RESTRICT dst, int64_t n) {
    while (n > 0) {
        if (g->mti >= 624) ct__mt_twist(g);
        int64_t m = 624 - g->mti;
        if (m > n) m = n;
        const uint32_t *CT_RESTRICT src = g->mt + g->mti;
        for (int64_t k = 0; k < m; k++) {
            uint32_t y = src[k];
            y ^= y >> 11;
            y ^= (y << 7) & 0x9d2c5680u;
            y ^= (y << 15) & 0xefc60000u;
            y ^= y >> 18;
            dst[k] = y;
        }
        g->mti += (int32_t)m;
        dst += m;
        n -= m;
    }
}
/* n uniforms in [0, 1) as float (24 random bits each, PyTorch's float draw) */
static void ct__uniform01_block_f32(ct_generator *g, float *CT_RESTRICT d, int64_t n, double from, double to) {
    uint32_t buf[256];
    for (int64_t k0 = 0; k0 < n; k0 += 256) {
        int64_t m = n - k0 < 256 ? n - k0 : 256;
        ct__mt_block(g, buf, m);
        for (int64_t k = 0; k < m; k++)
            d[k0 + k] = (float)((double)(buf[k] & ((1u << 24) - 1)) * (1.0 / 16777216.0) * (to - from) + from);
    }
}
CTENSOR_API uint32_t ct_generator_random(ct_generator *g) { return ct__mt_next(ct__gen(g)); }
CTENSOR_API uint64_t ct_generator_random64(ct_generator *g) {
    g = ct__gen(g);
    uint32_t hi = ct__mt_next(g), lo = ct__mt_next(g);
    return ((uint64_t)hi << 32) | lo;
}
/* uniform [0, 1) with the mantissa width of the dtype, as PyTorch draws it */
CT__INLINE double ct__uniform01(ct_generator *g, int dbl) {
    if (dbl) {
        uint32_t hi = ct__mt_next(g), lo = ct__mt_next(g);
        uint64_t v = ((uint64_t)hi << 32) | lo;
        return (double)(v & ((1ULL << 53) - 1)) * (1.0 / 9007199254740992.0);
    }
    return (double)(ct__mt_next(g) & ((1u << 24) - 1)) * (1.0 / 16777216.0);
}
/* Visits the elements of x (and of y, same shape, or NULL) in the order of
   PyTorch's TensorIterator for an output: dims sorted by x's strides, the
   largest outermost, size-1 dims dropped; offsets are in elements. */
typedef struct ct__miter {
    int nd;
    int64_t shape[CT_MAX_DIMS], sx[CT_MAX_DIMS], sy[CT_MAX_DIMS], idx[CT_MAX_DIMS];
    int64_t ox, oy;
} ct__miter;
static void ct__miter_init(ct__miter *it, const ct_tensor *x, const ct_tensor *y) {
    int dims[CT_MAX_DIMS], nd = 0;
    for (int d = 0; d < x->ndim; d++)
        if (x->shape[d] != 1) dims[nd++] = d;
    for (int i = 1; i < nd; i++) {  /* stable: ties keep their order */
        int v = dims[i], j = i;
        while (j > 0 && x->strides[dims[j - 1]] < x->strides[v]) { dims[j] = dims[j - 1]; j--; }
        dims[j] = v;
    }
    it->nd = nd;
    for (int k = 0; k < nd; k++) {
        it->shape[k] = x->shape[dims[k]];
        it->sx[k] = x->strides[dims[k]];
        it->sy[k] = y ? y->strides[dims[k]] : 0;
        it->idx[k] = 0;
    }
    it->ox = x->offset;
    it->oy = y ? y->offset : 0;
}
CT__INLINE void ct__miter_next(ct__miter *it) {
    for (int k = it->nd - 1; k >= 0; k--) {
        it->ox += it->sx[k];
        it->oy += it->sy[k];
        if (++it->idx[k] < it->shape[k]) return;
        it->ox -= it->sx[k] * it->shape[k];
        it->oy -= it->sy[k] * it->shape[k];
        it->idx[k] = 0;
    }
}
/* attrs: s[0] from/mean, s[1] to/std; ptr to generator in i[0] (0 = default) */
static int ct__k_uniform(ct__call *c) {
    ct_tensor *x = c->in[0];
    if (!CT__ISFLOAT(x->dtype)) return ct__failed(CT_ERR_DTYPE, "uniform_: not implemented for '%s'", CT__DTNAME(x->dtype));
    ct_generator *g = ct__gen(c->gen);
    double from = c->a->s[0], to = c->a->s[1];
    int dbl = x->dtype == CT_FLOAT64;
    /* PyTorch casts the bounds to the tensor's scalar type first (then computes in double) */
    if (x->dtype == CT_FLOAT32) { from = (double)(float)from; to = (double)(float)to; }
    int64_t n = ct_numel(x);
    size_t es = ct__dt[x->dtype].size;
    ct__miter it;
    ct__spin_lock(&g->lock);
    if (ct__is_contig(x) && (x->dtype == CT_FLOAT32 || x->dtype == CT_FLOAT64)) {
        /* memory order is TensorIterator's order here: the same draws, no iterator */
        if (dbl) {
            double *d = (double *)ct__ptr(x);
            for (int64_t k = 0; k < n; k++) d[k] = ct__uniform01(g, 1) * (to - from) + from;
        } else {
            ct__uniform01_block_f32(g, (float *)ct__ptr(x), n, from, to);
        }
        ct__spin_unlock(&g->lock);
        return 0;
    }
    ct__miter_init(&it, x, NULL);
    for (int64_t k = 0; k < n; k++, ct__miter_next(&it)) {
        double u = ct__uniform01(g, dbl);
        ct__store_f64((char *)x->storage->data + (size_t)it.ox * es, x->dtype, u * (to - from) + from);
    }
    ct__spin_unlock(&g->lock);
    return 0;
}
static void ct__normal_fill16(double *data, double mean, double std) {
    for (int j = 0; j < 8; j++) {
        double u1 = 1.0 - data[j], u2 = data[j + 8];
        double radius = sqrt(-2.0 * log(u1)), theta = 2.0 * 3.14159265358979323846 * u2;
        data[j] = radius * cos(theta) * std + mean;
        data[j + 8] = radius * sin(theta) * std + mean;
    }
}
static void ct__normal_fill16f(float *data, float mean, float std) {
    for (int j = 0; j < 8; j++) {
        float u1 = 1.0f - data[j], u2 = data[j + 8];
        float radius = sqrtf(-2.0f * logf(u1)), theta = 2.0f * 3.14159265358979323846f * u2;
        data[j] = radius * cosf(theta) * std + mean;
        data[j + 8] = radius * sinf(theta) * std + mean;
    }
}
static int ct__k_normal(ct__call *c) {
    ct_tensor *x = c->in[0];
    if (!CT__ISFLOAT(x->dtype)) return ct__failed(CT_ERR_DTYPE, "normal_: not implemented for '%s'", CT__DTNAME(x->dtype));
    ct_generator *g = ct__gen(c->gen);
    double mean = c->a->s[0], std = c->a->s[1];
    int64_t n = ct_numel(x);
    int rc = 0;
    ct__spin_lock(&g->lock);
    if (n >= 16 && ct__is_contig(x) && (x->dtype == CT_FLOAT32 || x->dtype == CT_FLOAT64)) {
        /* PyTorch's normal_fill: uniforms first, then Box-Muller in blocks of 16 */
        if (x->dtype == CT_FLOAT32) {
            float *d = (float *)ct__ptr(x);
            ct__uniform01_block_f32(g, d, n, 0.0, 1.0);
            for (int64_t k = 0; k + 16 <= n; k += 16) ct__normal_fill16f(d + k, (float)mean, (float)std);
            if (n % 16) {
                d += n - 16;
                ct__uniform01_block_f32(g, d, 16, 0.0, 1.0);
                ct__normal_fill16f(d, (float)mean, (float)std);
            }
        } else {
            double *d = (double *)ct__ptr(x);
            for (int64_t k = 0; k < n; k++) d[k] = ct__uniform01(g, 1);
            for (int64_t k = 0; k + 16 <= n; k += 16) ct__normal_fill16(d + k, mean, std);
            if (n % 16) {
                d += n - 16;
                for (int k = 0; k < 16; k++) d[k] = ct__uniform01(g, 1);
                ct__normal_fill16(d, mean, std);
            }
        }
    } else {
        /* element by element: normal_distribution<double> (Box-Muller, caching the second value) */
        size_t es = ct__dt[x->dtype].size;
        ct__miter it;
        ct__miter_init(&it, x, NULL);
        for (int64_t k = 0; k < n; k++, ct__miter_next(&it)) {
            double v;
            if (g->has_next_double_normal) {
                v = g->next_double_normal;
                g->has_next_double_normal = 0;
            } else {
                double u1 = ct__uniform01(g, 1), u2 = ct__uniform01(g, 1);
                double r = sqrt(-2.0 * log1p(-u2)), theta = 2.0 * 3.14159265358979323846 * u1;
                g->next_double_normal = r * sin(theta);
                g->has_next_double_normal = 1;
                v = r * cos(theta);
            }
            ct__store_f64((char *)x->storage->data + (size_t)it.ox * es, x->dtype, v * std + mean);
        }
    }
    ct__spin_unlock(&g->lock);
    return rc;
}
CTENSOR_API ct_tensor *ct_uniform_(ct_tensor *x, double from, double to, ct_generator *g) {
    if (!(from <= to))
        return ct__fail(CT_ERR_ARG, "uniform_ expects to return a [from, to) range, but found from=%s > to=%s", ct__fmt_double(from).s,
                        ct__fmt_double(to).s);
    ct__attrs a = ct__attrs_s(from);
    a.s[1] = to;
    return ct__opg1(CT__OP_UNIFORM_, x, &a, g);
}
CTENSOR_API ct_tensor *ct_normal_(ct_tensor *x, double mean, double std, ct_generator *g) {
    if (!(std >= 0)) return ct__fail(CT_ERR_ARG, "normal expects std >= 0.0, but found std %s", ct__fmt_double(std).s);
    ct__attrs a = ct__attrs_s(mean);
    a.s[1] = std;
    return ct__opg1(CT__OP_NORMAL_, x, &a, g);
}
CTENSOR_API ct_tensor *ct_rand_on_n(ct_device dev, ct_dtype dt, int ndim, const int64_t *shape) {
    if (ct__check_dtype_arg("rand", dt)) return NULL;
    if (!ct_dtype_is_floating(dt)) return ct__fail(CT_ERR_DTYPE, "rand: not implemented for '%s'", CT__DTNAME(dt));
    return ct_uniform_(ct__empty_on("rand", dev, dt, ndim, shape), 0.0, 1.0, NULL);
}
CTENSOR_API ct_tensor *ct_randn_on_n(ct_device dev, ct_dtype dt, int ndim, const int64_t *shape) {
    if (ct__check_dtype_arg("randn", dt)) return NULL;
    if (!ct_dtype_is_floating(dt)) return ct__fail(CT_ERR_DTYPE, "randn: not implemented for '%s'", CT__DTNAME(dt));
    return ct_normal_(ct__empty_on("randn", dev, dt, ndim, shape), 0.0, 1.0, NULL);
}
CTENSOR_API ct_tensor *ct_rand_n(ct_dtype dt, int ndim, const int64_t *shape) { return ct_rand_on_n(ct__cpu_dev, dt, ndim, shape); }
CTENSOR_API ct_tensor *ct_randn_n(ct_dtype dt, int ndim, const int64_t *shape) { return ct_randn_on_n(ct__cpu_dev, dt, ndim, shape); }
/* [section: random-impl] */
/* ---- random extras: randint / random_, bernoulli, exponential, randperm,
   multinomial, normal with tensor arguments ---- */

#define CT__ELEM(t, off) ((char *)(t)->storage->data + (size_t)(off) * ct__dt[(t)->dtype].size)
#define CT__GEN(c) ct__gen((c)->gen)

/* static_cast<T>(int64): floats round once from the integer */
static void ct__store_int_as(void *p, ct_dtype dt, int64_t v) {
    switch (dt) {
    case CT_FLOAT32: *(float *)p = (float)v; break;
    case CT_FLOAT64: *(double *)p = (double)v; break;
    case CT_FLOAT16: *(uint16_t *)p = ct__f2h((float)v); break;
    case CT_BFLOAT16: *(uint16_t *)p = ct__f2bf((float)v); break;
    default: ct__store_i64(p, dt, v); break;
    }
}
/* attrs: flags bit 0 clear: the dtype's full range (uniform_int); set:
   [i[0], i[1]) (uniform_int_from_to) */
static int ct__meta_random(ct__call *c) {
    if ((c->a->flags & 1) && c->a->i[0] >= c->a->i[1])
        return ct__failed(CT_ERR_ARG, "random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld", (long long)c->a->i[0],
                          (long long)c->a->i[1]);
    return ct__meta_inplace_self(c);
}
static int ct__k_random(ct__call *c) {
    ct_tensor *x = c->in[0];
    ct_dtype dt = x->dtype;
    if (!CT__ISREAL(dt))
        return ct__failed(CT_ERR_DTYPE, "\"random_kernel_cpu\" not implemented for '%s'", CT__DTNAME(dt));
    ct_generator *g = CT__GEN(c);
    int64_t n = ct_numel(x);
    ct__miter it;
    ct__miter_init(&it, x, NULL);
    ct__spin_lock(&g->lock);
    if (c->a->flags & 1) {
        int64_t from = c->a->i[0];
        uint64_t range = (uint64_t)c->a->i[1] - (uint64_t)from;
        int wide = (dt == CT_INT64 || dt == CT_FLOAT64 || dt == CT_FLOAT32 || dt == CT_BFLOAT16) && range >= ((uint64_t)1 << 32);
        for (int64_t k = 0; k < n; k++, ct__miter_next(&it)) {
            uint64_t r = wide ? ct_generator_random64(g) : ct__mt_next(g);
            ct__store_int_as(CT__ELEM(x, it.ox), dt, (int64_t)(r % range + (uint64_t)from));
        }
    } else {
        for (int64_t k = 0; k < n; k++, ct__miter_next(&it)) {
            char *p = CT__ELEM(x, it.ox);
            switch (dt) {
            case CT_BOOL: *(uint8_t *)p = (uint8_t)(ct__mt_next(g) & 1u); break;
            case CT_INT64: *(int64_t *)p = (int64_t)(ct_generator_random64(g) % ((uint64_t)INT64_MAX + 1)); break;
            case CT_FLOAT64: *(double *)p = (double)(ct_generator_random64(g) % (((uint64_t)1 << 53) + 1)); break;
            case CT_FLOAT32: *(float *)p = (float)(ct__mt_next(g) % ((1u << 24) + 1)); break;
            case CT_FLOAT16: *(uint16_t *)p = ct__f2h((float)(ct__mt_next(g) % ((1u << 11) + 1))); break;
            case CT_BFLOAT16: *(uint16_t *)p = ct__f2bf((float)(ct__mt_next(g) % ((1u << 8) + 1))); break;
            case CT_INT32: *(int32_t *)p = (int32_t)(ct__mt_next(g) % ((uint32_t)INT32_MAX + 1)); break;
            case CT_INT16: *(int16_t *)p = (int16_t)(ct__mt_next(g) % 32768u); break;
            case CT_INT8: *(int8_t *)p = (int8_t)(ct__mt_next(g) % 128u); break;
            default: *(uint8_t *)p = (uint8_t)(ct__mt_next(g) % 256u); break;
            }
        }
    }
    ct__spin_unlock(&g->lock);
    return 0;
}
/* bernoulli_(p): u ~ U[0, 1) from 53 bits, element = u < p; s[0] = p */
static int ct__k_bernoulli(ct__call *c) {
    ct_tensor *x = c->in[0];
    if (!CT__ISREAL(x->dtype))
        return ct__failed(CT_ERR_DTYPE, "\"bernoulli_scalar_cpu_\" not implemented for '%s'", CT__DTNAME(x->dtype));
    ct_generator *g = CT__GEN(c);
    double p = c->a->s[0];
    int64_t n = ct_numel(x);
    ct__miter it;
    ct__miter_init(&it, x, NULL);
    ct__spin_lock(&g->lock);
    for (int64_t k = 0; k < n; k++, ct__miter_next(&it))
        ct__store_f64(CT__ELEM(x, it.ox), x->dtype, ct__uniform01(g, 1) < p ? 1.0 : 0.0);
    ct__spin_unlock(&g->lock);
    return 0;
}
/* bernoulli_(p tensor, expanded to x): float64 p draws 53-bit doubles, other p
   draw 24-bit floats compared in float (bernoulli_distribution<float>) */
static int ct__k_bernoulli_tensor(ct__call *c) {
    ct_tensor *x = c->in[0], *pt = c->in[1];
    if (!CT__ISREAL(x->dtype))
        return ct__failed(CT_ERR_DTYPE, "\"bernoulli_tensor_cpu_self_\" not implemented for '%s'", CT__DTNAME(x->dtype));
    if (!CT__ISFLOAT(pt->dtype))
        return ct__failed(CT_ERR_DTYPE, "\"bernoulli_tensor_cpu_p_\" not implemented for '%s'", CT__DTNAME(pt->dtype));
    ct_generator *g = CT__GEN(c);
    int64_t n = ct_numel(x);
    ct__miter it;
    ct__miter_init(&it, x, pt);
    for (int64_t k = 0; k < n; k++, ct__miter_next(&it)) {
        double p = ct__load_f64(CT__ELEM(pt, it.oy), pt->dtype);
        if (!(p >= 0 && p <= 1)) return ct__failed(CT_ERR_ARG, "bernoulli_: Expected p_in >= 0 && p_in <= 1 to be true, but got false (p=%s)", ct__fmt_double(p).s);
    }
    int dbl = pt->dtype == CT_FLOAT64;
    ct__miter_init(&it, x, pt);
    ct__spin_lock(&g->lock);
    for (int64_t k = 0; k < n; k++, ct__miter_next(&it)) {
        double p = ct__load_f64(CT__ELEM(pt, it.oy), pt->dtype);
        int hit = dbl ? ct__uniform01(g, 1) < p : (float)ct__uniform01(g, 0) < (float)p;
        ct__store_f64(CT__ELEM(x, it.ox), x->dtype, hit ? 1.0 : 0.0);
    }
    ct__spin_unlock(&g->lock);
    return 0;
}
/* exponential_(lambd): -1/lambd * log(1 - u), computed in double; s[0] = lambd */
static int ct__k_exponential(ct__call *c) {
    ct_tensor *x = c->in[0];
    if (!CT__ISFLOAT(x->dtype)) return ct__failed(CT_ERR_DTYPE, "\"exponential_cpu\" not implemented for '%s'", CT__DTNAME(x->dtype));
    ct_generator *g = CT__GEN(c);
    double lambd = c->a->s[0];
    int64_t n = ct_numel(x);
    ct__miter it;
    ct__miter_init(&it, x, NULL);
    ct__spin_lock(&g->lock);
    for (int64_t k = 0; k < n; k++, ct__miter_next(&it))
        ct__store_f64(CT__ELEM(x, it.ox), x->dtype, -1.0 / lambd * log(1.0 - ct__uniform01(g, 1)));
    ct__spin_unlock(&g->lock);
    return 0;
}
/* randperm_cpu: the identity, then swap i with i + random() % (n - i) */
static int ct__k_randperm(ct__call *c) {
    ct_tensor *x = c->out[0];
    int64_t n = x->shape[0];
    ct_generator *g = CT__GEN(c);
    int64_t *r = CT__NEW_ARRAY(int64_t, n);
    if (!r) return ct__failed(CT_ERR_MEMORY, "randperm: out of memory");
    for (int64_t i = 0; i < n; i++) r[i] = i;
    ct__spin_lock(&g->lock);
    for (int64_t i = 0; i < n - 1; i++) {
        int64_t z = (int64_t)((uint64_t)ct__mt_next(g) % (uint64_t)(n - i));
        int64_t t = r[i];
        r[i] = r[z + i];
        r[z + i] = t;
    }
    ct__spin_unlock(&g->lock);
    size_t es = ct__dt[x->dtype].size;
    for (int64_t i = 0; i < n; i++) ct__store_int_as(ct__ptr(x) + (size_t)i * es, x->dtype, r[i]);
    CT_FREE(r);
    return 0;
}

/* multinomial: i[0] generator, i[1] num_samples, flags replacement */
static int ct__meta_multinomial(ct__call *c) {
    const ct_tensor *p = c->in[0];
    int64_t ns = c->a->i[1];
    if (!CT__ISFLOAT(p->dtype))
        return ct__failed(CT_ERR_DTYPE, "multinomial only supports floating-point dtypes for input, got: %s", CT__DTNAME(p->dtype));
    if (p->ndim != 1 && p->ndim != 2) return ct__failed(CT_ERR_ARG, "multinomial: prob_dist must be 1 or 2 dim");
    int64_t ncat = p->shape[p->ndim - 1];
    if (ncat > ((int64_t)1 << 24)) return ct__failed(CT_ERR_ARG, "multinomial: number of categories cannot exceed 2^24");
    if (ns <= 0) return ct__failed(CT_ERR_ARG, "multinomial: cannot sample n_sample <= 0 samples");
    if (!(c->a->flags & 1) && ns > ncat)
        return ct__failed(CT_ERR_ARG, "multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    int64_t shape[2];
    shape[0] = p->shape[0];
    shape[p->ndim - 1] = ns;
    ct__out_new(c, CT_INT64, p->ndim, shape);
    return 0;
}
/* NaN counts as the largest value, as in PyTorch's topk / argmax */
CT__INLINE int ct__gt_nan(double a, double b) { return (a != a && b == b) || a > b; }
static int ct__k_multinomial(ct__call *c) {
    const ct_tensor *p = c->in[0];
    ct_tensor *out = c->out[0];
    ct_generator *g = CT__GEN(c);
    int64_t ns = c->a->i[1], ncat = p->shape[p->ndim - 1], rows = p->ndim == 2 ? p->shape[0] : 1;
    int64_t ps0 = p->ndim == 2 ? p->strides[0] : 0, ps1 = p->strides[p->ndim - 1];
    int f32 = p->dtype != CT_FLOAT64;  /* float16 / bfloat16 compute in float32 */
    int64_t *o = (int64_t *)ct__ptr(out);
    int64_t total = rows * ncat;
    double *v = CT__NEW_ARRAY(double, total);
    if (!v) return ct__failed(CT_ERR_MEMORY, "multinomial: out of memory");
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < ncat; j++) v[r * ncat + j] = ct__load_f64(CT__ELEM(p, p->offset + r * ps0 + j * ps1), p->dtype);
    int rc = 0;
    if (!(c->a->flags & 1)) {
        /* PyTorch's path without replacement: argmax / topk of p / q with q ~ Exponential(1)
           drawn like empty_like(p).exponential_() */
        for (int64_t k = 0; k < total; k++)
            if (!(v[k] < INFINITY && v[k] >= 0)) { rc = ct__failed(CT_ERR_ARG, "multinomial: probability tensor contains either `inf`, `nan` or element < 0"); goto done; }
        for (int64_t r = 0; r < rows; r++) {
            int any = 0;
            for (int64_t j = 0; j < ncat; j++) any |= v[r * ncat + j] != 0;
            if (!any) { rc = ct__failed(CT_ERR_ARG, "multinomial: invalid multinomial distribution (sum of probabilities <= 0)"); goto done; }
        }
        {
            /* q in the layout empty_like(p) has: p's strides when p is dense, else contiguous */
            int dense = ct__is_dense(p);
            /* a dense column-major (transposed) p is filled column by column */
            int colmajor = dense && p->ndim == 2 && rows > 1 && ncat > 1 && p->strides[0] < ps1;
            int64_t r = 0, j = 0;
            ct__spin_lock(&g->lock);
            for (int64_t k = 0; k < total; k++) {
                double q = -1.0 / 1.0 * log(1.0 - ct__uniform01(g, 1));
                int64_t at = r * ncat + j;
                if (f32) v[at] = (double)((float)v[at] / (float)q);
                else v[at] = v[at] / q;
                if (colmajor) { if (++r == rows) { r = 0; j++; } }
                else if (++j == ncat) { j = 0; r++; }
            }
            ct__spin_unlock(&g->lock);
        }
        int64_t *order = CT__NEW_ARRAY(int64_t, ncat);
        if (!order) { rc = ct__failed(CT_ERR_MEMORY, "multinomial: out of memory"); goto done; }
        for (int64_t r = 0; r < rows; r++) {
            const double *w = v + r * ncat;
            /* the ns largest, in descending order; ties keep index order */
            int64_t m = 0;
            for (int64_t j = 0; j < ncat; j++) {
                int64_t pos = m < ns ? m : ns;
                while (pos > 0 && ct__gt_nan(w[j], w[order[pos - 1]])) pos--;
                if (pos >= ns) continue;
                int64_t last = m < ns ? m : ns - 1;
                for (int64_t q = last; q > pos; q--) order[q] = order[q - 1];
                order[pos] = j;
                if (m < ns) m++;
            }
            for (int64_t s = 0; s < ns; s++) o[r * ns + s] = order[s];
        }
        CT_FREE(order);
    } else {
        /* multinomial_with_replacement: normalized cumulative sums in the
           input's precision, binary search of a 53-bit uniform */
        double *cum = CT__NEW_ARRAY(double, ncat);
        if (!cum) { rc = ct__failed(CT_ERR_MEMORY, "multinomial: out of memory"); goto done; }
        ct__spin_lock(&g->lock);
        for (int64_t r = 0; r < rows && !rc; r++) {
            double sum = 0;
            float sumf = 0;
            for (int64_t j = 0; j < ncat; j++) {
                double val = v[r * ncat + j];
                if (!(val >= 0)) { rc = ct__failed(CT_ERR_ARG, "multinomial: invalid multinomial distribution (encountering probability entry < 0)"); break; }
                if (!isfinite(val)) { rc = ct__failed(CT_ERR_ARG, "multinomial: invalid multinomial distribution (encountering probability entry = infinity or NaN)"); break; }
                if (f32) { sumf += (float)val; cum[j] = sumf; }
                else { sum += val; cum[j] = sum; }
            }
            if (rc) break;
            if (f32) sum = sumf;
            if (!(sum > 0)) { rc = ct__failed(CT_ERR_ARG, "multinomial: invalid multinomial distribution (sum of probabilities <= 0)"); break; }
            for (int64_t j = 0; j < ncat; j++) cum[j] = f32 ? (double)((float)cum[j] / sumf) : cum[j] / sum;
            for (int64_t s = 0; s < ns; s++) {
                double u = ct__uniform01(g, 1);
                int64_t lo = 0, hi = ncat;
                cum[ncat - 1] = 1;
                while (hi - lo > 0) {
                    int64_t mid = lo + (hi - lo) / 2;
                    if (cum[mid] < u) lo = mid + 1;
                    else hi = mid;
                }
                o[r * ns + s] = lo;
            }
        }
        ct__spin_unlock(&g->lock);
        CT_FREE(cum);
    }
done:
    CT_FREE(v);
    return rc;
}

/* empty_like(x) with PyTorch's preserve_format: a dense non-contiguous x (a
   transposed tensor) lends its stride order, so fills follow the same memory order */
static ct_tensor *ct__empty_like_layout(const ct_tensor *x) {
    if (!x) { ct__null_arg("empty_like", 0); return NULL; }
    ct__outinfo o;
    o.ndim = x->ndim;
    for (int d = 0; d < x->ndim; d++) o.shape[d] = x->shape[d];
    ct_tensor *in[1];
    in[0] = (ct_tensor *)x;
    ct__layout_like(&o, 1, in);
    ct_tensor *y = ct__alloc(x->dtype, x->ndim, x->shape, o.has_strides ? o.strides : NULL, x->device);   /* x's device: rand_like of a GPU tensor is on the GPU */
    return y ? ct__own(y) : NULL;
}
/* static_cast<int64_t>(static_cast<T>(v)) for a floating dtype T */
static int64_t ct__round_via_dtype(int64_t v, ct_dtype dt) {
    switch (dt) {
    case CT_FLOAT64: return ct__f2i64((double)v);
    case CT_FLOAT16: return ct__f2i64(ct__h2f(ct__f2h((float)v)));
    case CT_BFLOAT16: return ct__f2i64(ct__bf2f(ct__f2bf((float)v)));
    default: return ct__f2i64((float)v);
    }
}
/* PyTorch's check_from_to_in_range for integral dtypes: from and to - 1 must be values of the dtype */
static int ct__random_bounds(ct_dtype dt, int64_t from, int64_t to) {
    int64_t lo, hi;
    const char *cname;
    switch (dt) {
    case CT_BOOL: lo = 0; hi = 1; cname = "bool"; break;
    case CT_UINT8: lo = 0; hi = 255; cname = "unsigned char"; break;
    case CT_INT8: lo = -128; hi = 127; cname = "signed char"; break;
    case CT_INT16: lo = -32768; hi = 32767; cname = "short"; break;
    case CT_INT32: lo = INT32_MIN; hi = INT32_MAX; cname = "int"; break;
    case CT_FLOAT16: lo = -65504; hi = 65504; cname = "c10::Half"; break;   /* other floats hold every int64 bound */
    default: return 0;
    }
    if (from < lo || from > hi) return ct__failed(CT_ERR_ARG, "random_: from is out of bounds for %s", cname);
    if (to - 1 < lo || to - 1 > hi) return ct__failed(CT_ERR_ARG, "random_: to - 1 is out of bounds for %s", cname);
    return 0;
}
CTENSOR_API ct_tensor *ct_random_(ct_tensor *x, ct_generator *g) {
    ct__attrs a;
    ct__attrs_init(&a);
    return ct__opg1(CT__OP_RANDOM_, x, &a, g);
}
CTENSOR_API ct_tensor *ct_random_range_(ct_tensor *x, int64_t from, int64_t to, ct_generator *g) {
    if (!x) { ct__null_arg("random_", 0); return NULL; }
    if (from >= to)
        return ct__fail(CT_ERR_ARG, "random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld", (long long)from, (long long)to);
    if (CT__ISFLOAT(x->dtype)) {
        /* update_from / update_to: bounds the dtype cannot hold exactly move inwards */
        int digits = x->dtype == CT_FLOAT64 ? 53 : x->dtype == CT_FLOAT32 ? 24 : x->dtype == CT_FLOAT16 ? 11 : 8;
        int64_t f1 = ct__round_via_dtype(from + 1, x->dtype), t1 = ct__round_via_dtype(to - 1, x->dtype);
        if (f1 < from) {
            int64_t v = from + 1 < 0 ? -(from + 1) : from + 1;
            int n = 0;
            while (v >>= 1) ++n;
            from = f1 + ((int64_t)1 << (n - digits + 1));
        }
        if (t1 >= to) {
            int64_t v = to - 1 < 0 ? -(to - 1) : to - 1;
            int n = 0;
            while (v >>= 1) ++n;
            to = t1 - ((int64_t)1 << (n - digits + 1));
        }
        if (from >= to)
            return ct__fail(CT_ERR_ARG, "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got from=%lld >= to=%lld",
                            (long long)from, (long long)to);
    }
    if (ct__random_bounds(x->dtype, from, to)) return NULL;
    ct__attrs a;
    ct__attrs_init(&a);
    a.flags = 1;
    a.i[0] = from;
    a.i[1] = to;
    return ct__opg1(CT__OP_RANDOM_, x, &a, g);
}
CTENSOR_API ct_tensor *ct_randint_n(int64_t low, int64_t high, ct_dtype dt, int ndim, const int64_t *shape, ct_generator *g) {
    if (ct__check_dtype_arg("randint", dt)) return NULL;
    if (low >= high)
        return ct__fail(CT_ERR_ARG, "randint: random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld", (long long)low, (long long)high);
    return ct_random_range_(ct__empty_api("randint", dt, ndim, shape), low, high, g);
}
CTENSOR_API ct_tensor *ct_randint_like(const ct_tensor *x, int64_t low, int64_t high, ct_generator *g) {
    return ct_random_range_(ct__empty_like_layout(x), low, high, g);
}
CTENSOR_API ct_tensor *ct_rand_like(const ct_tensor *x, ct_generator *g) { return ct_uniform_(ct__empty_like_layout(x), 0.0, 1.0, g); }
CTENSOR_API ct_tensor *ct_randn_like(const ct_tensor *x, ct_generator *g) { return ct_normal_(ct__empty_like_layout(x), 0.0, 1.0, g); }
CTENSOR_API ct_tensor *ct_bernoulli_scalar_(ct_tensor *x, double p, ct_generator *g) {
    if (!(p >= 0 && p <= 1)) return ct__fail(CT_ERR_ARG, "bernoulli_ expects p to be in [0, 1], but got p=%s", ct__fmt_double(p).s);
    ct__attrs a;
    ct__attrs_init(&a);
    a.s[0] = p;
    return ct__opg1(CT__OP_BERNOULLI_, x, &a, g);
}
CTENSOR_API ct_tensor *ct_bernoulli_(ct_tensor *x, const ct_tensor *p, ct_generator *g) {
    if (!x || !p) { ct__null_arg("bernoulli_", x ? 1 : 0); return NULL; }
    ct_tensor *pe = ct_expand_n(p, x->ndim, x->shape);
    if (!pe) return NULL;
    ct__attrs a;
    ct__attrs_init(&a);
    return ct__opg2(CT__OP_BERNOULLI_TENSOR_, x, pe, &a, g);
}
CTENSOR_API ct_tensor *ct_bernoulli(const ct_tensor *p, ct_generator *g) {
    if (p && !CT__ISFLOAT(p->dtype))
        return ct__fail(CT_ERR_DTYPE, "\"bernoulli_tensor_cpu_p_\" not implemented for '%s'", CT__DTNAME(p->dtype));
    return ct_bernoulli_(ct_empty_like(p), p, g);  /* LEGACY_CONTIGUOUS_MEMORY_FORMAT */
}
CTENSOR_API ct_tensor *ct_bernoulli_p(const ct_tensor *x, double p, ct_generator *g) {
    return ct_bernoulli_scalar_(ct_empty_like(x), p, g);  /* LEGACY_CONTIGUOUS_MEMORY_FORMAT */
}
CTENSOR_API ct_tensor *ct_exponential_(ct_tensor *x, double lambd, ct_generator *g) {
    if (!(lambd >= 0)) return ct__fail(CT_ERR_ARG, "exponential_ expects lambda >= 0.0, but found lambda=%s", ct__fmt_double(lambd).s);
    ct__attrs a;
    ct__attrs_init(&a);
    a.s[0] = lambd;
    return ct__opg1(CT__OP_EXPONENTIAL_, x, &a, g);
}
CTENSOR_API ct_tensor *ct_randperm(int64_t n, ct_dtype dt, ct_generator *g) { return ct_randperm_on(ct__cpu_dev, n, dt, g); }
CTENSOR_API ct_tensor *ct_randperm_on(ct_device dev, int64_t n, ct_dtype dt, ct_generator *g) {
    if (ct__check_dtype_arg("randperm", dt) || ct__check_device_arg("randperm", dev)) return NULL;
    if (dt == CT_BOOL) return ct__fail(CT_ERR_DTYPE, "randperm: \"randperm\" not implemented for 'Bool'");
    if (ct__check_shape("randperm", 1, &n)) return NULL;
    if (CT__ISFLOAT(dt)) {
        int digits = dt == CT_FLOAT64 ? 53 : dt == CT_FLOAT32 ? 24 : dt == CT_FLOAT16 ? 11 : 8;
        if (n > ((int64_t)1 << digits) + 1)
            return ct__fail(CT_ERR_ARG, "randperm: n cannot be greater than 2^%d+1 for %s type.", digits, ct__dt[dt].scalar_name);
    } else if (n > 0) {
        int64_t hi = dt == CT_UINT8 ? 255 : dt == CT_INT8 ? 127 : dt == CT_INT16 ? 32767 : dt == CT_INT32 ? INT32_MAX : INT64_MAX;
        const char *tn = dt == CT_UINT8 ? "uint8_t" : dt == CT_INT8 ? "int8_t" : dt == CT_INT16 ? "int16_t" : "int32_t";
        if (n - 1 > hi) return ct__fail(CT_ERR_ARG, "randperm: value cannot be converted to type %s without overflow", tn);
    }
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[0] = n;
    a.dtype = dt;
    a.device = dev;
    return ct__call1_gen(CT__OP_RANDPERM, 0, NULL, &a, g);
}
CTENSOR_API ct_tensor *ct_multinomial(const ct_tensor *probs, int64_t num_samples, int replacement, ct_generator *g) {
    ct__attrs a;
    ct__attrs_init(&a);
    a.i[1] = num_samples;
    a.flags = replacement ? 1 : 0;
    return ct__opg1(CT__OP_MULTINOMIAL, probs, &a, g);
}
/* torch.normal(Tensor mean, Tensor std) (normal_out_impl): the output (shape of
   the broadcast, dtype of mean) is filled with normal_(0, 1), then
   output.mul_(std).add_(mean); the other forms likewise */
static ct_tensor *ct__normal_t(const ct_tensor *mean, double mean_s, const ct_tensor *std, double std_s, ct_generator *g) {
    const char *op = "normal";
    const ct_tensor *ref = mean ? mean : std;
    if (std) {
        if (!CT__ISFLOAT(std->dtype) && std->dtype != CT_BOOL && !CT__ISINT(std->dtype))
            return ct__fail(CT_ERR_DTYPE, "normal expects std to be a real tensor");
        ct_tensor *neg = ct_lt_scalar(std, 0.0);
        if (!neg) return NULL;
        int any = ct_item(ct_sum(neg)) != 0;
        if (any) return ct__fail(CT_ERR_ARG, "normal expects all elements of std >= 0.0");
    } else if (!(std_s >= 0)) {
        return ct__fail(CT_ERR_ARG, "normal expects std >= 0.0, but found std %s", ct__fmt_double(std_s).s);
    }
    int nd = ref->ndim;
    int64_t shape[CT_MAX_DIMS];
    for (int d = 0; d < nd; d++) shape[d] = ref->shape[d];
    if (mean && std) {
        ct_tensor *in[2];
        in[0] = (ct_tensor *)mean;
        in[1] = (ct_tensor *)std;
        if (ct__broadcast(op, 2, in, &nd, shape)) return NULL;
    }
    ct_tensor *out = ct_empty_n(ref->dtype, nd, shape);
    int prev = ct_set_grad_enabled(0);
    if (mean && std) out = ct_add_(ct_mul_(ct_normal_(out, 0.0, 1.0, g), std), mean);
    else if (mean) out = ct_add_(ct_normal_(out, 0.0, std_s, g), mean);
    else out = ct_add_scalar_(ct_mul_(ct_normal_(out, 0.0, 1.0, g), std), mean_s);
    ct_set_grad_enabled(prev);
    return out;
}
CTENSOR_API ct_tensor *ct_normal_tensor(const ct_tensor *mean, const ct_tensor *std, ct_generator *g) {
    if (!mean || !std) { ct__null_arg("normal", mean ? 1 : 0); return NULL; }
    return ct__normal_t(mean, 0, std, 0, g);
}
CTENSOR_API ct_tensor *ct_normal_tensor_scalar(const ct_tensor *mean, double std, ct_generator *g) {
    if (!mean) { ct__null_arg("normal", 0); return NULL; }
    return ct__normal_t(mean, 0, NULL, std, g);
}
CTENSOR_API ct_tensor *ct_normal_scalar_tensor(double mean, const ct_tensor *std, ct_generator *g) {
    if (!std) { ct__null_arg("normal", 1); return NULL; }
    return ct__normal_t(NULL, mean, std, 0, g);
}

/* ============================================================================
   Backward rules (PyTorch: tools/autograd/derivatives.yaml), written with
   ctensor ops so that create_graph records them. gout[j]: gradient of output
   j; fill gin[i] for inputs with n->next[i].fn != NULL (others are ignored).
   Shapes of broadcast inputs are reduced by the engine.
   A gradient a rule makes from nothing (zeros) goes on the device of the input
   it is for (ct_zeros_on_n with in_meta's or gout's device), so rules run
   unchanged on GPU tensors (ctensor_cuda.h).
   ========================================================================== */
#define CT__BW_X ct_tensor *X = CT__SV_IN(n, 0); if (!X) return -1;
#define CT__BW_Y ct_tensor *Y = CT__SV_OUT(n, 0); if (!Y) return -1;
#define CT__BW_RET(expr) do { gin[0] = (expr); return gin[0] ? 0 : -1; } while (0)
/* conj(t) for complex t, t itself otherwise (PyTorch's formulas conjugate; free for real) */
static ct_tensor *ct__cj(ct_tensor *t) { return t && CT__ISCOMPLEX(t->dtype) ? ct_conj_physical(t) : t; }
#define CT__BW1(name, PRE, EXPR) \
    static int ct__bw_##name(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) { \
        ct_tensor *g = gout[0]; \
        (void)n; \
        PRE \
        CT__BW_RET(EXPR); \
    }
/* 1 / |x| (1 / |x|^2 with sq), 0 where x is 0 */
static ct_tensor *ct__inv_abs(ct_tensor *X, int sq) {
    ct_tensor *a = ct_abs(X);
    if (sq) a = ct_mul(a, a);
    return ct_where(ct_logical_not(a), ct_zeros_like(a), ct_reciprocal(a));
}
/* PyTorch's sgn_backward (complex): g/|x| - re(g/|x| conj(sgn)) sgn, 0 at x = 0 */
static ct_tensor *ct__sgn_bw(ct_tensor *g, ct_tensor *X, ct_tensor *Y) {
    if (!ct_dtype_is_complex(X->dtype)) return ct_zeros_like(g);
    ct_tensor *h = ct_mul(g, ct__inv_abs(X, 0));
    return ct_sub(h, ct_mul(ct_real(ct_mul(h, ct_conj_physical(Y))), Y));
}
/* PyTorch's angle_backward: g i x / |x|^2 (0 at x = 0); zeros for real x */
static ct_tensor *ct__angle_bw(ct_tensor *g, ct_tensor *X) {
    if (!ct_dtype_is_complex(X->dtype)) return ct_zeros_like(X);
    ct_tensor *w = ct_mul(ct_mul(g, X), ct__inv_abs(X, 1));
    return ct_complex(ct_neg(ct_imag(w)), ct_real(w));
}
static int ct__bw_none(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    (void)gout; (void)gin;
    return ct__failed(CT_ERR_AUTOGRAD, "the derivative for '%s' is not implemented: it is not differentiable", ct__opdef_get(n->op)->name);
}
static int ct__bw_identity(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) { (void)n; gin[0] = gout[0]; return 0; }
static int ct__bw_to(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    gin[0] = ct__to(gout[0], n->in_meta[0].dtype, n->in_meta[0].device);
    return gin[0] ? 0 : -1;
}
static int ct__bw_zeros(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct__tmeta *m = &n->in_meta[0];
    (void)gout;
    gin[0] = ct_zeros_on_n(m->device, m->dtype, m->ndim, m->shape);
    return gin[0] ? 0 : -1;
}
static int ct__bw_zeros2(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    (void)gout;
    for (int i = 0; i < 2; i++)
        if (CT__NEEDS(n, i) && !(gin[i] = ct_zeros_on_n(n->in_meta[i].device, n->in_meta[i].dtype, n->in_meta[i].ndim, n->in_meta[i].shape))) return -1;
    return 0;
}
static int ct__bw_fill(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) { return ct__bw_zeros(n, gout, gin); }
static int ct__bw_copy(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    if (CT__NEEDS(n, 0) && !(gin[0] = ct_zeros_like(gout[0]))) return -1;
    if (CT__NEEDS(n, 1)) gin[1] = gout[0];
    return 0;
}

/* ---- unary ---- */
#define CT__LN2 0.69314718055994530942
#define CT__LN10 2.30258509299404568402
/* a zero gradient shaped like the input; no gradient (not differentiable) */
#define CT__GRAD_ZERO ct_zeros_on_n(n->in_meta[0].device, n->in_meta[0].dtype, n->in_meta[0].ndim, n->in_meta[0].shape)
#define CT__GRAD_NONE (ct__bw_none(n, gout, gin), (ct_tensor *)NULL)
static int ct__bw_none(ct__node *n, ct_tensor *const *gout, ct_tensor **gin);
/* the backward rules of the unary table. A holomorphic op's rule g * f'(x) serves
   complex inputs as conj(conj(g) f'(x)) = g conj(f'(x)), PyTorch's convention;
   abs, sgn and angle (not holomorphic) write theirs out. */
#define CT__UNARY_BW(ARG_, name, E, sn, bw, fl, sv, IOK, BOK, FX, DX, IX, PRE, EXPR) \
    static CT__UNUSED int ct__bw_##name(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) { \
        ct_tensor *g = gout[0]; \
        int cz_ = n->in_meta && CT__ISCOMPLEX(n->in_meta[0].dtype) && n->op != CT__OP_ABS && n->op != CT__OP_SGN && n->op != CT__OP_ANGLE; \
        (void)g; \
        if (cz_ && !(g = ct_conj_physical(g))) return -1; \
        PRE \
        gin[0] = (EXPR); \
        if (cz_ && gin[0]) gin[0] = ct_conj_physical(gin[0]); \
        return gin[0] ? 0 : -1; \
    }
CT__UNARY_OPS_TABLE(CT__UNARY_BW, ~)
CT__BW1(hardtanh, CT__BW_X, ct_where_scalar(ct_logical_and(ct_gt_scalar(X, n->attrs.s[0]), ct_lt_scalar(X, n->attrs.s[1])), g, 0.0))
CT__BW1(threshold, CT__BW_X, ct_where_scalar(ct_gt_scalar(X, n->attrs.s[0]), g, 0.0))
CT__BW1(nan_to_num, CT__BW_X, ct_where_scalar(ct_isfinite(X), g, 0.0))
CT__BW1(clamp, CT__BW_X, ct_where_scalar(ct_logical_and(ct_ge_scalar(X, n->attrs.s[0]), ct_le_scalar(X, n->attrs.s[1])), g, 0.0))
CT__BW1(leaky_relu, CT__BW_X, ct_where(ct_gt_scalar(X, 0.0), g, ct_mul_scalar(g, n->attrs.s[0])))
CT__BW1(elu, CT__BW_X, ct_where(ct_gt_scalar(X, 0.0), ct_mul_scalar(g, n->attrs.s[1]),
                                ct_mul(g, ct_mul_scalar(ct_exp(ct_mul_scalar(X, n->attrs.s[2])), n->attrs.s[2] * n->attrs.s[0] * n->attrs.s[1]))))
/* PyTorch's celu derivative uses input_scale = 1.0 / float(alpha) (derivatives.yaml); so do we */
CT__BW1(celu, CT__BW_X, ct_where(ct_gt_scalar(X, 0.0), g, ct_mul(g, ct_mul_scalar(ct_exp(ct_mul_scalar(X, 1.0 / (double)(float)n->attrs.s[0])),
                                                                              n->attrs.s[0] * (1.0 / (double)(float)n->attrs.s[0])))))
/* PyTorch's kernel uses the float constant 1.0f / 6.0f for every dtype */
static int ct__bw_gelu(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__BW_X
    ct_tensor *g = gout[0];
    if (n->attrs.mode == 0) {
        ct_tensor *cdf = ct_mul_scalar(ct_add_scalar(ct_erf(ct_mul_scalar(X, 0.7071067811865476)), 1.0), 0.5);
        ct_tensor *pdf = ct_mul_scalar(ct_exp(ct_mul_scalar(ct_mul(X, X), -0.5)), 0.3989422804014327);
        CT__BW_RET(ct_mul(g, ct_add(cdf, ct_mul(X, pdf))));
    }
    const double kBeta = 0.7978845608028654, kKappa = 0.044715;
    ct_tensor *xsq = ct_mul(X, X);
    ct_tensor *inner = ct_mul_scalar(ct_add(X, ct_mul_scalar(ct_mul(xsq, X), kKappa)), kBeta);
    ct_tensor *th = ct_tanh(inner);
    ct_tensor *left_d = ct_mul_scalar(ct_add_scalar(th, 1.0), 0.5);
    ct_tensor *right_d = ct_mul(ct_mul(ct_mul_scalar(X, 0.5), ct_rsub_scalar(1.0, ct_mul(th, th))),
                                ct_mul_scalar(ct_add_scalar(ct_mul_scalar(xsq, 3.0 * kKappa), 1.0), kBeta));
    CT__BW_RET(ct_mul(g, ct_add(left_d, right_d)));
}
static int ct__bw_softplus(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__BW_X
    double beta = n->attrs.s[0], th = n->attrs.s[1];
    ct_tensor *xb = ct_mul_scalar(X, beta);
    ct_tensor *z = ct_exp(xb);
    CT__BW_RET(ct_where(ct_gt_scalar(xb, th), gout[0], ct_mul(gout[0], ct_div(z, ct_add_scalar(z, 1.0)))));
}
static int ct__bw_pow_scalar(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__BW_X
    double e = n->attrs.s[0];
    if (e == 0.0) CT__BW_RET(ct_zeros_like(gout[0]));
    CT__BW_RET(ct_mul(gout[0], ct__cj(ct_mul_scalar(ct_pow_scalar(X, e - 1.0), e))));
}
static int ct__bw_rpow_scalar(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__BW_Y
    double b = n->attrs.s[0];
    if (b == 0.0) {
        /* d/dx 0**x: 0 where x >= 0 (PyTorch masks it), else y*log(0) */
        CT__BW_RET(ct_mul(gout[0], ct_zeros_like(Y)));
    }
    CT__BW_RET(ct_mul(gout[0], ct_mul_scalar(Y, log(b))));
}

/* ---- binary ---- */
static int ct__bw_add(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    double alpha = n->attrs.s[0];
    if (CT__NEEDS(n, 0)) gin[0] = gout[0];
    if (CT__NEEDS(n, 1) && !(gin[1] = alpha == 1.0 ? gout[0] : ct_mul_scalar(gout[0], alpha))) return -1;
    return 0;
}
static int ct__bw_sub(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    double alpha = n->attrs.s[0];
    if (CT__NEEDS(n, 0)) gin[0] = gout[0];
    if (CT__NEEDS(n, 1) && !(gin[1] = alpha == 1.0 ? ct_neg(gout[0]) : ct_mul_scalar(gout[0], -alpha))) return -1;
    return 0;
}
#define CT__BW2_AB ct_tensor *A = CT__SV_IN(n, 0), *B = CT__SV_IN(n, 1); if (!A || !B) return -1;
static int ct__bw_mul(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__BW2_AB
    if (CT__NEEDS(n, 0) && !(gin[0] = ct_mul(gout[0], ct__cj(B)))) return -1;
    if (CT__NEEDS(n, 1) && !(gin[1] = ct_mul(gout[0], ct__cj(A)))) return -1;
    return 0;
}
static int ct__bw_div(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__BW2_AB
    if (CT__NEEDS(n, 0) && !(gin[0] = ct_div(gout[0], ct__cj(B)))) return -1;
    if (CT__NEEDS(n, 1) && !(gin[1] = ct_neg(ct_div(ct_mul(gout[0], ct__cj(A)), ct__cj(ct_mul(B, B)))))) return -1;
    return 0;
}
static int ct__bw_conj(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) { (void)n; CT__BW_RET(ct_conj_physical(gout[0])); }
static int ct__bw_cxview(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *g = gout[0];
    const ct__tmeta *m = &n->in_meta[0];
    if (n->op == CT__OP_VIEW_AS_REAL) CT__BW_RET(ct_view_as_complex(ct_contiguous(g)));
    if (n->op == CT__OP_VIEW_AS_COMPLEX) CT__BW_RET(ct_view_as_real(g));
    if (!CT__ISCOMPLEX(m->dtype)) CT__BW_RET(g);   /* real() of a real tensor */
    ct_tensor *z = ct_zeros_like(g);
    CT__BW_RET(n->op == CT__OP_REAL ? ct_complex(g, z) : ct_complex(z, g));
}
static int ct__bw_complex(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    if (CT__NEEDS(n, 0) && !(gin[0] = ct_real(gout[0]))) return -1;
    if (CT__NEEDS(n, 1) && !(gin[1] = ct_imag(gout[0]))) return -1;
    return 0;
}
/* PyTorch's polar_backward: abs gets re(conj(g) sgn(z)), angle re(conj(g) i z) */
static int ct__bw_polar(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__BW2_AB
    ct_tensor *gr = ct_real(gout[0]), *gi = ct_imag(gout[0]), *c = ct_cos(B), *s = ct_sin(B);
    if (CT__NEEDS(n, 0) && !(gin[0] = ct_add(ct_mul(gr, c), ct_mul(gi, s)))) return -1;
    if (CT__NEEDS(n, 1) && !(gin[1] = ct_mul(A, ct_sub(ct_mul(gi, c), ct_mul(gr, s))))) return -1;
    return 0;
}
static int ct__bw_remainder(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__BW2_AB
    if (CT__NEEDS(n, 0)) gin[0] = gout[0];
    if (CT__NEEDS(n, 1) && !(gin[1] = ct_neg(ct_mul(gout[0], ct_div_mode(A, B, "floor"))))) return -1;
    return 0;
}
static int ct__bw_fmod(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__BW2_AB
    if (CT__NEEDS(n, 0)) gin[0] = gout[0];
    if (CT__NEEDS(n, 1) && !(gin[1] = ct_neg(ct_mul(gout[0], ct_div_mode(A, B, "trunc"))))) return -1;
    return 0;
}
static int ct__bw_pow(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__BW2_AB
    ct_tensor *g = gout[0];
    if (CT__NEEDS(n, 0)) {
        ct_tensor *d = ct_mul(g, ct_mul(B, ct_pow(A, ct_sub_scalar(B, 1.0))));
        if (!(gin[0] = ct_where(ct_eq_scalar(B, 0.0), ct_zeros_like(d), d))) return -1;
    }
    if (CT__NEEDS(n, 1)) {
        ct_tensor *Y = CT__SV_OUT(n, 0);
        if (!Y) return -1;
        ct_tensor *d = ct_mul(g, ct_mul(Y, ct_log(A)));
        ct_tensor *cond = ct_logical_and(ct_eq_scalar(A, 0.0), ct_ge_scalar(B, 0.0));
        if (!(gin[1] = ct_where(cond, ct_zeros_like(d), d))) return -1;
    }
    return 0;
}
static int ct__bw_atan2(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__BW2_AB
    ct_tensor *den = ct_add(ct_mul(A, A), ct_mul(B, B));
    if (CT__NEEDS(n, 0) && !(gin[0] = ct_mul(gout[0], ct_div(B, den)))) return -1;
    if (CT__NEEDS(n, 1) && !(gin[1] = ct_mul(gout[0], ct_div(ct_neg(A), den)))) return -1;
    return 0;
}
/* maximum / minimum: ties split the gradient in half (PyTorch's convention) */
static int ct__bw_maxmin(ct__node *n, ct_tensor *const *gout, ct_tensor **gin, int is_max) {
    CT__BW2_AB
    ct_tensor *g = gout[0];
    ct_tensor *half = ct_where(ct_eq(A, B), ct_mul_scalar(g, 0.5), g);
    if (CT__NEEDS(n, 0) && !(gin[0] = ct_masked_fill(half, is_max ? ct_lt(A, B) : ct_gt(A, B), 0.0))) return -1;
    if (CT__NEEDS(n, 1) && !(gin[1] = ct_masked_fill(half, is_max ? ct_gt(A, B) : ct_lt(A, B), 0.0))) return -1;
    return 0;
}
static int ct__bw_maximum(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) { return ct__bw_maxmin(n, gout, gin, 1); }
static int ct__bw_minimum(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) { return ct__bw_maxmin(n, gout, gin, 0); }
static int ct__bw_fmaxmin(ct__node *n, ct_tensor *const *gout, ct_tensor **gin, int is_max) {
    CT__BW2_AB
    ct_tensor *g = gout[0];
    ct_tensor *pick_a = ct_logical_or(is_max ? ct_ge(A, B) : ct_le(A, B), ct_isnan(B));
    if (CT__NEEDS(n, 0) && !(gin[0] = ct_masked_fill(g, ct_logical_not(pick_a), 0.0))) return -1;
    if (CT__NEEDS(n, 1) && !(gin[1] = ct_masked_fill(g, pick_a, 0.0))) return -1;
    return 0;
}
static int ct__bw_fmax(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) { return ct__bw_fmaxmin(n, gout, gin, 1); }
static int ct__bw_fmin(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) { return ct__bw_fmaxmin(n, gout, gin, 0); }
static int ct__bw_hypot(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__BW2_AB
    ct_tensor *Y = CT__SV_OUT(n, 0);
    if (!Y) return -1;
    if (CT__NEEDS(n, 0) && !(gin[0] = ct_mul(gout[0], ct_div(A, Y)))) return -1;
    if (CT__NEEDS(n, 1) && !(gin[1] = ct_mul(gout[0], ct_div(B, Y)))) return -1;
    return 0;
}
static int ct__bw_copysign(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    if (CT__NEEDS(n, 0)) {
        ct_tensor *A = CT__SV_IN(n, 0), *Y = CT__SV_OUT(n, 0);
        if (!A || !Y) return -1;
        ct_tensor *ratio = ct_masked_fill(ct_div(Y, A), ct_eq_scalar(A, 0.0), 0.0);
        if (!(gin[0] = ct_mul(gout[0], ratio))) return -1;
    }
    if (CT__NEEDS(n, 1) && !(gin[1] = ct_zeros_on_n(n->in_meta[1].device, n->in_meta[1].dtype, n->in_meta[1].ndim, n->in_meta[1].shape))) return -1;
    return 0;
}
static int ct__bw_xlogy(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__BW2_AB
    if (CT__NEEDS(n, 0) && !(gin[0] = ct_mul(gout[0], ct_xlogy(ct_to(ct_ne_scalar(A, 0.0), gout[0]->dtype), B)))) return -1;
    if (CT__NEEDS(n, 1) && !(gin[1] = ct_mul(gout[0], ct_div(A, B)))) return -1;
    return 0;
}

/* ---- ternary ---- */
static int ct__bw_where(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *C = CT__SV_IN(n, 0);
    if (!C) return -1;
    if (CT__NEEDS(n, 1) && !(gin[1] = ct_where_scalar(C, gout[0], 0.0))) return -1;
    if (CT__NEEDS(n, 2) && !(gin[2] = ct_where(C, ct_zeros_like(gout[0]), gout[0]))) return -1;
    return 0;
}
static int ct__bw_lerp(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *S = CT__SV_IN(n, 0), *E = CT__SV_IN(n, 1), *W = CT__SV_IN(n, 2);
    if (!S || !E || !W) return -1;
    ct_tensor *g = gout[0];
    if (CT__NEEDS(n, 0) && !(gin[0] = ct_mul(g, ct_rsub_scalar(1.0, W)))) return -1;
    if (CT__NEEDS(n, 1) && !(gin[1] = ct_mul(g, W))) return -1;
    if (CT__NEEDS(n, 2) && !(gin[2] = ct_mul(g, ct_sub(E, S)))) return -1;
    return 0;
}
static int ct__bw_addcmul(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *T1 = CT__SV_IN(n, 1), *T2 = CT__SV_IN(n, 2);
    if (!T1 || !T2) return -1;
    double v = n->attrs.s[0];
    if (CT__NEEDS(n, 0)) gin[0] = gout[0];
    if (CT__NEEDS(n, 1) && !(gin[1] = ct_mul(gout[0], ct_mul_scalar(T2, v)))) return -1;
    if (CT__NEEDS(n, 2) && !(gin[2] = ct_mul(gout[0], ct_mul_scalar(T1, v)))) return -1;
    return 0;
}
static int ct__bw_addcdiv(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *T1 = CT__SV_IN(n, 1), *T2 = CT__SV_IN(n, 2);
    if (!T1 || !T2) return -1;
    double v = n->attrs.s[0];
    if (CT__NEEDS(n, 0)) gin[0] = gout[0];
    if (CT__NEEDS(n, 1) && !(gin[1] = ct_mul_scalar(ct_div(gout[0], T2), v))) return -1;
    if (CT__NEEDS(n, 2) && !(gin[2] = ct_mul_scalar(ct_div(ct_mul(gout[0], T1), ct_mul(T2, T2)), -v))) return -1;
    return 0;
}
static int ct__bw_clamp_t(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *X = CT__SV_IN(n, 0), *L = CT__SV_IN(n, 1), *H = CT__SV_IN(n, 2);
    if (!X || !L || !H) return -1;
    ct_tensor *g = gout[0];
    if (CT__NEEDS(n, 0) && !(gin[0] = ct_where_scalar(ct_logical_and(ct_ge(X, L), ct_le(X, H)), g, 0.0))) return -1;
    if (CT__NEEDS(n, 1) && !(gin[1] = ct_where_scalar(ct_logical_and(ct_lt(X, L), ct_lt(L, H)), g, 0.0))) return -1;
    if (CT__NEEDS(n, 2) && !(gin[2] = ct_where_scalar(ct_logical_or(ct_gt(X, H), ct_lt(H, L)), g, 0.0))) return -1;
    return 0;
}
static int ct__bw_masked_fill(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct_tensor *M = CT__SV_IN(n, 1);
    if (!M) return -1;
    if (CT__NEEDS(n, 0) && !(gin[0] = ct_masked_fill(gout[0], M, 0.0))) return -1;
    if (CT__NEEDS(n, 2) && !(gin[2] = ct_sum(ct_where_scalar(M, gout[0], 0.0)))) return -1;
    return 0;
}

/* ---- views ---- */
static int ct__bw_view(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__BW_RET(ct_reshape_n(gout[0], n->in_meta[0].ndim, n->in_meta[0].shape));
}
static int ct__bw_permute(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    int64_t inv[CT_MAX_DIMS];
    int nd = n->attrs.nv;
    for (int d = 0; d < nd; d++) inv[ct__wrap_dim((int)n->attrs.v[d], nd)] = d;
    CT__BW_RET(ct_permute_n(gout[0], nd, inv));
}
static int ct__bw_expand(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__BW_RET(ct_sum_to_size_n(gout[0], n->in_meta[0].ndim, n->in_meta[0].shape));
}
/* view backward through a scatter into zeros of the input's shape; geometry is
   relative to a contiguous tensor of that shape */
static int ct__bw_slice(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct__tmeta *m = &n->in_meta[0];
    int64_t cs[CT_MAX_DIMS], vs[CT_MAX_DIMS], vsh[CT_MAX_DIMS];
    int dim = ct__wrap_dim((int)n->attrs.i[0], m->ndim);
    int64_t start = n->attrs.i[1], end = n->attrs.i[2], step = n->attrs.i[3];
    ct__slice_bounds(m->shape[dim], &start, &end);
    ct__contig_strides(m->ndim, m->shape, cs);
    for (int d = 0; d < m->ndim; d++) { vs[d] = cs[d]; vsh[d] = gout[0]->shape[d]; }
    vs[dim] = cs[dim] * step;
    CT__BW_RET(ct__strided_scatter(gout[0], m->ndim, m->shape, m->ndim, vsh, vs, start * cs[dim]));
}
static int ct__bw_select(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct__tmeta *m = &n->in_meta[0];
    int64_t cs[CT_MAX_DIMS], vs[CT_MAX_DIMS], vsh[CT_MAX_DIMS];
    int dim = ct__wrap_dim((int)n->attrs.i[0], m->ndim), k = 0;
    int64_t idx = n->attrs.i[1] < 0 ? n->attrs.i[1] + m->shape[dim] : n->attrs.i[1];
    ct__contig_strides(m->ndim, m->shape, cs);
    for (int d = 0; d < m->ndim; d++)
        if (d != dim) { vs[k] = cs[d]; vsh[k] = m->shape[d]; k++; }
    CT__BW_RET(ct__strided_scatter(gout[0], m->ndim, m->shape, k, vsh, vs, idx * cs[dim]));
}
static int ct__bw_diagonal(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    ct__tmeta *m = &n->in_meta[0];
    int64_t cs[CT_MAX_DIMS], vs[CT_MAX_DIMS], vsh[CT_MAX_DIMS];
    int d1 = ct__wrap_dim((int)n->attrs.i[1], m->ndim), d2 = ct__wrap_dim((int)n->attrs.i[2], m->ndim), k = 0;
    int64_t off = n->attrs.i[0], start = 0;
    ct__contig_strides(m->ndim, m->shape, cs);
    for (int d = 0; d < m->ndim; d++)
        if (d != d1 && d != d2) { vs[k] = cs[d]; vsh[k] = m->shape[d]; k++; }
    vsh[k] = gout[0]->shape[k];
    vs[k] = cs[d1] + cs[d2];
    if (vsh[k] > 0) start = off >= 0 ? off * cs[d2] : -off * cs[d1];
    CT__BW_RET(ct__strided_scatter(gout[0], m->ndim, m->shape, k + 1, vsh, vs, start));
}
static int ct__bw_as_strided(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    /* geometry is over the input's storage: scatter into a buffer spanning the
       storage the input covers, then read the input's geometry back out of it */
    ct__tmeta *m = &n->in_meta[0];
    const ct__attrs *a = &n->attrs;
    const ct_tensor *x = ct__saved_peek(n, 0);   /* its geometry only (CT__SAVE_GEOMETRY) */
    if (!x) { (void)ct__saved_get(n, 0); return -1; }   /* freed: the error says why */
    int64_t in_off = x->offset, in_st[CT_MAX_DIMS];
    for (int d = 0; d < m->ndim; d++) in_st[d] = x->strides[d];
    int64_t lo = in_off, hi = in_off;
    for (int d = 0; d < m->ndim; d++) if (m->shape[d] > 0) hi += (m->shape[d] - 1) * in_st[d];
    int64_t vhi = a->i[0];
    for (int d = 0; d < a->nv; d++) if (a->v[d] > 0) vhi += (a->v[d] - 1) * a->v[a->nv + d];
    if (a->i[0] < lo) lo = a->i[0];
    if (vhi > hi) hi = vhi;
    int64_t len = hi - lo + 1;
    ct_tensor *buf = ct__strided_scatter(gout[0], 1, &len, a->nv, a->v, a->v + a->nv, a->i[0] - lo);
    if (!buf) return -1;
    CT__BW_RET(ct_as_strided(ct_contiguous(buf), m->ndim, m->shape, in_st, in_off - lo + ct_contiguous(buf)->offset));
}
static int ct__bw_strided_scatter(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    const ct__attrs *a = &n->attrs;
    if (CT__NEEDS(n, 0)) gin[0] = gout[0];
    if (CT__NEEDS(n, 1)) {
        ct_tensor *gc = ct_contiguous(gout[0]);
        if (!gc || !(gin[1] = ct_as_strided(gc, a->nv, a->v, a->v + a->nv, a->i[0] + gc->offset))) return -1;
    }
    return 0;
}

/* ---- reductions ---- */
static int ct__bw_sum_mean(ct__node *n, ct_tensor *const *gout, ct_tensor **gin, int mean) {
    ct__tmeta *m = &n->in_meta[0];
    const ct__attrs *a = &n->attrs;
    uint32_t mask = 0;
    if (a->nv == 0) mask = (1u << m->ndim) - 1u;
    for (int k = 0; k < a->nv; k++) mask |= 1u << ct__wrap_dim((int)a->v[k], m->ndim);
    ct_tensor *g = gout[0];
    if (!(a->flags & CT__RF_KEEPDIM)) {
        int64_t shape[CT_MAX_DIMS];
        int k = 0;
        for (int d = 0; d < m->ndim; d++) shape[d] = (mask & (1u << d)) ? 1 : g->shape[k++];
        g = ct_reshape_n(g, m->ndim, shape);
    }
    g = ct_expand_n(g, m->ndim, m->shape);
    if (mean) {
        int64_t cnt = 1;
        for (int d = 0; d < m->ndim; d++) if (mask & (1u << d)) cnt *= m->shape[d];
        g = ct_div_scalar(g, (double)cnt);
    }
    CT__BW_RET(g);
}
static int ct__bw_sum(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) { return ct__bw_sum_mean(n, gout, gin, 0); }
static int ct__bw_mean(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) { return ct__bw_sum_mean(n, gout, gin, 1); }

/* ---- matrix products ---- */
static int ct__bw_mm(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__BW2_AB
    if (CT__NEEDS(n, 0) && !(gin[0] = ct__mm_like(A, gout[0], ct__cj(ct_t(B))))) return -1;
    if (CT__NEEDS(n, 1) && !(gin[1] = ct__mm_like(B, ct__cj(ct_t(A)), gout[0]))) return -1;
    return 0;
}
static int ct__bw_bmm(ct__node *n, ct_tensor *const *gout, ct_tensor **gin) {
    CT__BW2_AB
    if (CT__NEEDS(n, 0) && !(gin[0] = ct_bmm(gout[0], ct__cj(ct_mT(B))))) return -1;
    if (CT__NEEDS(n, 1) && !(gin[1] = ct_bmm(ct__cj(ct_mT(A)), gout[0]))) return -1;
    return 0;
}

/* ============================================================================
   Autograd: tensor-level API, modes, graph inspection, hooks, gradcheck
   ========================================================================== */
CTENSOR_API ct_tensor *ct_set_requires_grad(ct_tensor *t, int rg) {
    if (!t) { ct__null_arg("requires_grad_", 0); return NULL; }
    if (t->grad_fn && !rg)
        return ct__fail(CT_ERR_AUTOGRAD, "requires_grad_: you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
    if (rg && !(CT__ISFLOAT(t->dtype) || ct_dtype_is_complex(t->dtype)))
        return ct__fail(CT_ERR_AUTOGRAD, "requires_grad_: only Tensors of floating point and complex dtype can require gradients (got %s)", ct_dtype_name(t->dtype));
    if (rg && (t->flags & CT__F_INFERENCE) && !ct__tls_get()->inference_mode)
        return ct__fail(CT_ERR_AUTOGRAD, "requires_grad_: Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
    if (rg) t->flags |= CT__F_REQUIRES_GRAD;
    else t->flags &= ~CT__F_REQUIRES_GRAD;
    return t;
}
CTENSOR_API ct_tensor *ct_requires_grad(ct_tensor *t) { return ct_set_requires_grad(t, 1); }
CTENSOR_API int ct_get_requires_grad(const ct_tensor *t) { return t && (t->flags & CT__F_REQUIRES_GRAD) != 0; }
CTENSOR_API int ct_is_leaf(const ct_tensor *t) { return t && t->grad_fn == NULL; }
CTENSOR_API ct_tensor *ct_grad(const ct_tensor *t) { return t ? t->grad : NULL; }
CTENSOR_API ct_status ct_set_grad(ct_tensor *t, ct_tensor *g) {
    if (!t) { ct__null_arg("set_grad", 0); return ct_last_error_code(); }
    if (g == t) return (ct_set_error(CT_ERR_AUTOGRAD, "set_grad: can't assign Variable as its own grad"), CT_ERR_AUTOGRAD);
    if (g && g->dtype != t->dtype)
        return (ct_set_error(CT_ERR_DTYPE, "set_grad: assigned grad has data of a different type (grad is %s, tensor is %s)",
                             ct_dtype_name(g->dtype), ct_dtype_name(t->dtype)), CT_ERR_DTYPE);
    if (g && !ct_device_eq(g->device, t->device)) {
        char a[24], b[24];
        return (ct_set_error(CT_ERR_DEVICE, "set_grad: assigned grad has data located on a different device (grad is on %s, tensor is on %s)",
                             ct_device_str(g->device, a, sizeof a), ct_device_str(t->device, b, sizeof b)), CT_ERR_DEVICE);
    }
    if (g && !ct_same_shape(t, g))
        return (ct_set_error(CT_ERR_SHAPE, "set_grad: assigned grad has data of a different size (grad is %s, tensor is %s)",
                             CT__SHAPE(g), CT__SHAPE(t)), CT_ERR_SHAPE);
    if (g) ct__incref(g);
    if (t->grad) ct__decref(t->grad);
    t->grad = g;
    return CT_OK;
}
CTENSOR_API ct_tensor *ct_detach(const ct_tensor *t) {
    if (!t) { ct__null_arg("detach", 0); return NULL; }
    ct_tensor *x = ct__view_header(t, t->ndim, t->shape, t->strides, t->offset);
    if (!x) return NULL;
    x->flags |= t->flags & CT__F_INFERENCE;
    if (t->names && ct__names_set(x, t->names)) { ct__decref(x); return NULL; }   /* detach keeps names */
    return ct__own(x);
}
CTENSOR_API ct_tensor *ct_detach_(ct_tensor *t) {
    if (!t) { ct__null_arg("detach_", 0); return NULL; }
    if (t->flags & CT__F_IS_VIEW)
        return ct__fail(CT_ERR_AUTOGRAD, "detach_: Can't detach views in-place. Use detach() instead.");
    if (t->flags & CT__F_RETAINS_GRAD) ct__remove_retain_hook(t);
    if (t->grad_fn && !(t->flags & CT__F_WEAK_GRAD_FN)) ct__node_decref(t->grad_fn);
    t->grad_fn = NULL;
    t->flags &= ~(CT__F_REQUIRES_GRAD | CT__F_WEAK_GRAD_FN | CT__F_RETAINS_GRAD);
    return t;
}
CTENSOR_API ct_tensor *ct_retain_grad(ct_tensor *t) {
    if (!t) { ct__null_arg("retain_grad", 0); return NULL; }
    if (!(t->flags & CT__F_REQUIRES_GRAD)) return ct__fail(CT_ERR_AUTOGRAD, "retain_grad: can't retain_grad on Tensor that has requires_grad=False");
    if (!t->grad_fn || (t->flags & CT__F_RETAINS_GRAD)) return t;  /* leaves keep .grad anyway */
    ct__hook *h = (ct__hook *)CT_MALLOC(sizeof(ct__hook));
    if (!h) return ct__fail(CT_ERR_MEMORY, "retain_grad: out of memory");
    memset(h, 0, sizeof *h);
    h->retain = t;
    h->out_nr = t->out_nr;
    h->next = t->grad_fn->pre_hooks;
    t->grad_fn->pre_hooks = h;
    t->flags |= CT__F_RETAINS_GRAD;
    return t;
}
CTENSOR_API int ct_is_grad_enabled(void) { return ct__tls_get()->grad_enabled; }
CTENSOR_API int ct_set_grad_enabled(int enabled) {
    ct__tls *t = ct__tls_get();
    int prev = t->grad_enabled;
    t->grad_enabled = enabled != 0;
    return prev;
}
CTENSOR_API void ct__restore_grad_mode(int *prev) { ct_set_grad_enabled(*prev); }
CTENSOR_API void ct__restore_inference_mode(int *prev) { ct_set_inference_mode(*prev); }
CTENSOR_API int ct_is_inference_mode_enabled(void) { return ct__tls_get()->inference_mode; }
CTENSOR_API int ct_set_inference_mode(int enabled) {
    ct__tls *t = ct__tls_get();
    int prev = t->inference_mode;
    t->inference_mode = enabled != 0;
    return prev;
}
CTENSOR_API const char *ct_grad_fn_name(const ct_tensor *t) { return t && t->grad_fn ? ct__node_name(t->grad_fn) : NULL; }
CTENSOR_API const ct__node *ct_grad_fn(const ct_tensor *t) { return t ? t->grad_fn : NULL; }
CTENSOR_API int ct_node_num_next(const ct__node *n) { return n ? n->nin : 0; }
CTENSOR_API const ct__node *ct_node_next(const ct__node *n, int i, int *input_nr) {
    if (!n || i < 0 || i >= n->nin) return NULL;
    if (input_nr) *input_nr = n->next[i].input_nr;
    return n->next[i].fn;
}
CTENSOR_API const char *ct_node_name(const ct__node *n) { return n ? ct__node_name(n) : NULL; }
static int ct__hook_ids;
CTENSOR_API int ct_register_hook(ct_tensor *t, ct_hook_fn fn, void *user_data) {
    if (!t || !fn) { ct_set_error(CT_ERR_ARG, "register_hook: tensor and function must not be NULL"); return -1; }
    if (!(t->flags & CT__F_REQUIRES_GRAD)) {
        ct_set_error(CT_ERR_AUTOGRAD, "register_hook: cannot register a hook on a tensor that doesn't require gradient");
        return -1;
    }
    ct__hook *h = (ct__hook *)CT_MALLOC(sizeof(ct__hook));
    if (!h) { ct_set_error(CT_ERR_MEMORY, "register_hook: out of memory"); return -1; }
    memset(h, 0, sizeof *h);
    h->fn = fn;
    h->user = user_data;
    h->id = ++ct__hook_ids;
    if (t->grad_fn) {
        h->out_nr = t->out_nr;
        /* append: hooks run in registration order */
        ct__hook **pp = &t->grad_fn->pre_hooks;
        while (*pp) pp = &(*pp)->next;
        *pp = h;
    } else {
        ct__hook **pp = &t->hooks;
        while (*pp) pp = &(*pp)->next;
        *pp = h;
    }
    return h->id;
}
CTENSOR_API void ct_remove_hook(ct_tensor *t, int handle) {
    if (!t) return;
    ct__hook **lists[2];
    lists[0] = &t->hooks;
    lists[1] = t->grad_fn ? &t->grad_fn->pre_hooks : NULL;
    for (int l = 0; l < 2; l++) {
        if (!lists[l]) continue;
        for (ct__hook **pp = lists[l]; *pp; pp = &(*pp)->next)
            if ((*pp)->id == handle && !(*pp)->retain) {
                ct__hook *h = *pp;
                *pp = h->next;
                CT_FREE(h);
                return;
            }
    }
}

/* gradcheck: central differences vs. vector-Jacobian products, both in float64 */
/* element k (C order) of a float64 tensor: *get = it, then it = *set when set; a
   device tensor's element goes through its backend's copy (no version bump, as
   the direct write on the CPU) */
static int ct__gc_elem(ct_tensor *t, int64_t k, double *get, const double *set) {
    int64_t off = t->offset, rem = k;
    for (int d = t->ndim - 1; d >= 0; d--) {
        off += (rem % t->shape[d]) * t->strides[d];
        rem /= t->shape[d];
    }
    if (t->device.type == CT_CPU) {
        double *p = (double *)t->storage->data + off;
        if (get) *get = *p;
        if (set) *p = *set;
        return 0;
    }
    ct_tensor *e = ct__view_header(t, 0, NULL, NULL, off), *h = e ? ct__alloc(CT_FLOAT64, 0, NULL, NULL, ct__cpu_dev) : NULL;
    int rc = h ? 0 : -1;
    if (!rc && get && !(rc = ct__copy_into(h, e))) *get = *(const double *)ct__ptr(h);
    if (!rc && set) {
        *(double *)ct__ptr(h) = *set;
        rc = ct__copy_into(e, h);
    }
    if (h) ct__decref(h);
    if (e) ct__decref(e);
    return rc;
}
static int ct__flat_f64(const ct_tensor *t, double *out) {
    int64_t n = ct_numel(t);
    ct_tensor *c = ct__host_copy(t, CT_FLOAT64);   /* C order */
    if (!c) return -1;
    memcpy(out, ct__ptr(c), sizeof(double) * (size_t)n);
    ct__decref(c);
    return 0;
}
static int ct__gradcheck_impl(ct_grad_fn_t fn, void *user, int nin, ct_tensor *const *inputs, const ct_gradcheck_options *opt,
                              const char *api) {
    double eps = opt && opt->eps > 0 ? opt->eps : 1e-6, atol = opt && opt->atol > 0 ? opt->atol : 1e-5,
           rtol = opt && opt->rtol > 0 ? opt->rtol : 1e-3;
    int ok = 0, s = ct_scope_begin();
    double *num = NULL, *ana = NULL, *fp = NULL, *fm = NULL;
    ct_tensor **req = CT__NEW_ARRAY(ct_tensor *, nin);
    int nreq = 0;
    if (!req) goto done;
    for (int i = 0; i < nin; i++) {
        ct_tensor *x = inputs[i];
        if (!x) { ct__null_arg(api, i); goto done; }
        if (!(x->flags & CT__F_REQUIRES_GRAD)) continue;
        if (x->dtype != CT_FLOAT64) {
            ct_set_error(CT_ERR_DTYPE, "%s: input %d requires grad but is %s; gradcheck needs float64 inputs", api, i, ct_dtype_name(x->dtype));
            goto done;
        }
        for (int d = 0; d < x->ndim; d++)
            if (x->strides[d] == 0 && x->shape[d] > 1) {
                ct_set_error(CT_ERR_ARG, "%s: input %d has overlapping memory (an expanded tensor); expand inside the function instead", api, i);
                goto done;
            }
        req[nreq++] = x;
    }
    if (!nreq) { ct_set_error(CT_ERR_ARG, "%s: no input requires grad", api); goto done; }
    {
        ct_tensor *y = fn(inputs, user);
        if (!y) goto done;
        if (CT__ISCOMPLEX(y->dtype)) { ok = -2; goto done; }   /* the caller reruns it on the parts */
        if (!CT__ISFLOAT(y->dtype)) { ct_set_error(CT_ERR_DTYPE, "%s: the function output must be floating point", api); goto done; }
        int constant = !(y->flags & CT__F_REQUIRES_GRAD);   /* no graph: the analytic Jacobian is zero */
        int64_t m = ct_numel(y), ntot = 0;
        for (int r = 0; r < nreq; r++) ntot += ct_numel(req[r]);
        num = CT__NEW_ARRAY(double, m * ntot);
        ana = CT__NEW_ARRAY(double, m * ntot);
        fp = CT__NEW_ARRAY(double, m);
        fm = CT__NEW_ARRAY(double, m);
        if (!num || !ana || !fp || !fm) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", api); goto done; }
        /* numerical Jacobian, column by column */
        int64_t col = 0;
        for (int r = 0; r < nreq; r++) {
            int64_t nx = ct_numel(req[r]);
            for (int64_t j = 0; j < nx; j++, col++) {
                double orig = 0, plus, minus;
                if (ct__gc_elem(req[r], j, &orig, NULL)) goto done;
                plus = orig + eps;
                minus = orig - eps;
                int s2 = ct_scope_begin();
                int pg = ct_set_grad_enabled(0);
                int e1 = ct__gc_elem(req[r], j, NULL, &plus);
                ct_tensor *y1 = e1 ? NULL : fn(inputs, user);
                e1 = e1 || !y1 || ct__flat_f64(y1, fp);
                int e2 = e1 || ct__gc_elem(req[r], j, NULL, &minus);
                ct_tensor *y2 = e2 ? NULL : fn(inputs, user);
                e2 = e2 || !y2 || ct__flat_f64(y2, fm);
                int e3 = ct__gc_elem(req[r], j, NULL, &orig);
                ct_set_grad_enabled(pg);
                ct_scope_end(s2);
                if (e1 || e2 || e3) goto done;
                for (int64_t k = 0; k < m; k++) num[k * ntot + col] = (fp[k] - fm[k]) / (2.0 * eps);
            }
        }
        /* analytic Jacobian, row by row (one-hot output gradients) */
        if (constant) memset(ana, 0, sizeof(double) * (size_t)(m * ntot));
        for (int64_t k = 0; k < m && !constant; k++) {
            int s2 = ct_scope_begin();
            ct_tensor *go = ct_zeros_n(y->dtype, y->ndim, y->shape);   /* contiguous: element k is the k-th output */
            ct_tensor **g = CT__NEW_ARRAY(ct_tensor *, nreq);
            if (go) ct__store_f64(ct__ptr(go) + k * (int64_t)ct__dt[go->dtype].size, go->dtype, 1.0);
            if (go) go = ct_to_device(go, y->device);   /* the output's device */
            if (!go || !g) { CT_FREE(g); ct_scope_end(s2); goto done; }
            ct_grad_options o;
            memset(&o, 0, sizeof o);
            o.retain_graph = 1;
            o.allow_unused = 1;
            if (ct_autograd_grad(1, &y, &go, nreq, req, g, &o) != CT_OK) { CT_FREE(g); ct_scope_end(s2); goto done; }
            int64_t c2 = 0;
            for (int r = 0; r < nreq; r++) {
                int64_t nx = ct_numel(req[r]);
                if (g[r]) {
                    if (!ct_same_shape(g[r], req[r])) {
                        ct_set_error(CT_ERR_AUTOGRAD, "%s: gradient of input has shape %s, expected %s", api, CT__SHAPE(g[r]), CT__SHAPE(req[r]));
                        CT_FREE(g);
                        ct_scope_end(s2);
                        goto done;
                    }
                    if (ct__flat_f64(g[r], ana + k * ntot + c2)) { CT_FREE(g); ct_scope_end(s2); goto done; }
                } else {
                    for (int64_t j = 0; j < nx; j++) ana[k * ntot + c2 + j] = 0.0;
                }
                c2 += nx;
            }
            CT_FREE(g);
            ct_scope_end(s2);
        }
        /* compare */
        double worst = -1.0;
        int64_t wk = 0, wc = 0;
        for (int64_t k = 0; k < m; k++)
            for (int64_t j = 0; j < ntot; j++) {
                double a = ana[k * ntot + j], nv = num[k * ntot + j], err = fabs(a - nv) - (atol + rtol * fabs(nv));
                if (isnan(a) != isnan(nv)) err = INFINITY;
                if (err > worst) { worst = err; wk = k; wc = j; }
            }
        if (worst > 0) {
            int r = 0;
            int64_t j = wc;
            while (r < nreq - 1 && j >= ct_numel(req[r])) { j -= ct_numel(req[r]); r++; }
            ct_set_error(CT_ERR_AUTOGRAD, "%s: Jacobian mismatch for output 0 with respect to input %d (element %lld of the input, element %lld of the output): numerical %.10g, analytical %.10g (atol %g, rtol %g)",
                         api, r, (long long)j, (long long)wk, num[wk * ntot + wc], ana[wk * ntot + wc], atol, rtol);
            goto done;
        }
        ok = 1;
    }
done:
    CT_FREE(num);
    CT_FREE(ana);
    CT_FREE(fp);
    CT_FREE(fm);
    CT_FREE(req);
    ct_scope_end(s);
    return ok;
}
/* Complex inputs and outputs, as PyTorch's gradcheck takes them: the check runs on
   the real function of the real parts that view_as_real gives (each complex input
   becomes a float64 [..., 2] leaf; a complex output is compared part by part), so
   the real and the imaginary part of every element are perturbed. */
#define CT__CXGC_MAX 64
typedef struct ct__cxgc { ct_grad_fn_t fn; void *user; int nin; unsigned char cx[CT__CXGC_MAX]; } ct__cxgc;
static ct_tensor *ct__cxgc_fn(ct_tensor *const *in, void *user) {
    const ct__cxgc *c = (const ct__cxgc *)user;
    ct_tensor *args[CT__CXGC_MAX];
    for (int i = 0; i < c->nin; i++)
        if (!(args[i] = c->cx[i] ? ct_view_as_complex(in[i]) : in[i])) return NULL;
    ct_tensor *y = c->fn(args, c->user);
    return y && CT__ISCOMPLEX(y->dtype) ? ct_view_as_real(y) : y;
}
/* 1: run on real parts (ctx and real set), 0: no complex input (and not forced:
   the output is complex), -1: error */
static int ct__cxgc_setup(const char *api, ct_grad_fn_t fn, void *user, int nin, ct_tensor *const *inputs, ct__cxgc *c,
                          ct_tensor **real, int force) {
    int any = force;
    for (int i = 0; i < nin; i++) {
        if (!inputs[i]) { ct__null_arg(api, i); return -1; }
        any |= CT__ISCOMPLEX(inputs[i]->dtype);
    }
    if (!any) return 0;
    if (nin > CT__CXGC_MAX) return ct__failed(CT_ERR_ARG, "%s: at most %d inputs with complex tensors", api, CT__CXGC_MAX);
    c->fn = fn;
    c->user = user;
    c->nin = nin;
    for (int i = 0; i < nin; i++) {
        ct_tensor *x = inputs[i];
        c->cx[i] = (unsigned char)CT__ISCOMPLEX(x->dtype);
        if (c->cx[i] && (x->flags & CT__F_REQUIRES_GRAD) && x->dtype != CT_COMPLEX128)
            return ct__failed(CT_ERR_DTYPE, "%s: input %d requires grad but is %s; gradcheck needs float64 or complex128 inputs", api, i,
                              ct_dtype_name(x->dtype));
        real[i] = x;
        if (c->cx[i]) {
            real[i] = ct_clone(ct_view_as_real(ct_detach(x)));
            if (!real[i]) return -1;
            if (x->flags & CT__F_REQUIRES_GRAD) ct_requires_grad(real[i]);
        }
    }
    return 1;
}
CTENSOR_API int ct_gradcheck(ct_grad_fn_t fn, void *user_data, int ninputs, ct_tensor *const *inputs, const ct_gradcheck_options *opt) {
    if (!fn || ninputs <= 0 || !inputs) { ct_set_error(CT_ERR_ARG, "gradcheck: function and inputs must be given"); return 0; }
    ct__cxgc c;
    ct_tensor *real[CT__CXGC_MAX];
    int s = ct_scope_begin(), cx = ct__cxgc_setup("gradcheck", fn, user_data, ninputs, inputs, &c, real, 0);
    int ok = cx < 0 ? 0 : cx ? ct__gradcheck_impl(ct__cxgc_fn, &c, ninputs, real, opt, "gradcheck")
                             : ct__gradcheck_impl(fn, user_data, ninputs, inputs, opt, "gradcheck");
    if (ok == -2)   /* real inputs, a complex output: checked part by part */
        ok = ct__cxgc_setup("gradcheck", fn, user_data, ninputs, inputs, &c, real, 1) > 0 &&
             ct__gradcheck_impl(ct__cxgc_fn, &c, ninputs, real, opt, "gradcheck") == 1;
    ct_scope_end(s);
    return ok;
}
/* gradgradcheck: gradcheck of x -> concat(d<fn(x), v>/dx) for a fixed random v */
typedef struct ct__gg_ctx { ct_grad_fn_t fn; void *user; int nin; ct_tensor *v; } ct__gg_ctx;
static ct_tensor *ct__gg_fn_impl(ct_tensor *const *inputs, ct__gg_ctx *c);
static ct_tensor *ct__gg_fn(ct_tensor *const *inputs, void *user) {
    /* the inner gradient needs autograd even when the caller evaluates with grad off */
    int prev = ct_set_grad_enabled(1);
    ct_tensor *r = ct__gg_fn_impl(inputs, (ct__gg_ctx *)user);
    ct_set_grad_enabled(prev);
    return r;
}
static ct_tensor *ct__gg_fn_impl(ct_tensor *const *inputs, ct__gg_ctx *c) {
    ct_tensor *y = c->fn(inputs, c->user);
    if (!y) return NULL;
    ct_tensor *req[64] = {0};
    int nreq = 0;
    for (int i = 0; i < c->nin && nreq < 64; i++)
        if (inputs[i]->flags & CT__F_REQUIRES_GRAD) req[nreq++] = inputs[i];
    ct_tensor *g[64] = {0};
    ct_grad_options o;
    memset(&o, 0, sizeof o);
    o.create_graph = 1;
    o.allow_unused = 1;
    o.materialize_grads = 1;
    ct_tensor *v = c->v;
    if (ct_autograd_grad(1, &y, &v, nreq, req, g, &o) != CT_OK) return NULL;
    /* flatten and concatenate the gradients (scatter each into its slice) */
    int64_t total = 0;
    for (int r = 0; r < nreq; r++) total += ct_numel(req[r]);
    ct_tensor *out = NULL;
    int64_t off = 0;
    for (int r = 0; r < nreq; r++) {
        int64_t nr = ct_numel(req[r]), one = 1;
        ct_tensor *piece = ct__strided_scatter(ct_reshape(g[r], -1), 1, &total, 1, &nr, &one, off);
        out = out ? ct_add(out, piece) : piece;
        off += nr;
    }
    return out;
}
CTENSOR_API int ct_gradgradcheck(ct_grad_fn_t fn, void *user_data, int ninputs, ct_tensor *const *inputs, const ct_gradcheck_options *opt) {
    if (!fn || ninputs <= 0 || !inputs) { ct_set_error(CT_ERR_ARG, "gradgradcheck: function and inputs must be given"); return 0; }
    int s = ct_scope_begin();
    int ok = 0;
    ct__cxgc cc;
    ct_tensor *real[CT__CXGC_MAX];
    int cx = ct__cxgc_setup("gradgradcheck", fn, user_data, ninputs, inputs, &cc, real, 0);
    ct_tensor *y = cx ? NULL : fn(inputs, user_data);
    if (y && CT__ISCOMPLEX(y->dtype)) cx = ct__cxgc_setup("gradgradcheck", fn, user_data, ninputs, inputs, &cc, real, 1);
    if (cx) {   /* complex: the real function of the parts (or an error) */
        ok = cx > 0 && ct_gradgradcheck(ct__cxgc_fn, &cc, ninputs, real, opt) == 1;
        ct_scope_end(s);
        return ok;
    }
    if (y) {
        ct_generator g;
        ct_generator_init(&g, 12345);
        ct_tensor *v = ct_empty_n(y->dtype, y->ndim, y->shape);
        if (v && ct_normal_(v, 0.0, 1.0, &g) && (v = ct_to_device(v, y->device)) != NULL) {   /* drawn on the CPU, used on y's device */
            ct__gg_ctx c;
            c.fn = fn;
            c.user = user_data;
            c.nin = ninputs;
            c.v = v;
            ok = ct__gradcheck_impl(ct__gg_fn, &c, ninputs, inputs, opt, "gradgradcheck") == 1;
        }
    }
    ct_scope_end(s);
    return ok;
}


/* ============================================================================
   Serialization: .npy
   Format: "\x93NUMPY", major, minor, header length (2 bytes for 1.x, 4 for
   2.x/3.x), a Python dict literal {'descr', 'fortran_order', 'shape'}, data.
   ========================================================================== */
static int ct__host_le(void) {
    uint16_t x = 1;
    unsigned char c;
    memcpy(&c, &x, 1);
    return c == 1;
}
/* descr "<f4": byte order, kind, size. Returns 0 and the dtype, or -1. */
static int ct__npy_descr(const char *d, size_t n, ct_dtype *dt, int *swap) {
    if (n < 3 || n > 4) return -1;
    char order = d[0], kind = d[1];
    if (order != '<' && order != '>' && order != '|' && order != '=') return -1;
    long sz = 0;
    for (size_t i = 2; i < n; i++) {
        if (d[i] < '0' || d[i] > '9') return -1;
        sz = sz * 10 + (d[i] - '0');
    }
    if (kind == 'f') *dt = sz == 4 ? CT_FLOAT32 : sz == 8 ? CT_FLOAT64 : sz == 2 ? CT_FLOAT16 : CT_NUM_DTYPES;
    else if (kind == 'i') *dt = sz == 8 ? CT_INT64 : sz == 4 ? CT_INT32 : sz == 2 ? CT_INT16 : sz == 1 ? CT_INT8 : CT_NUM_DTYPES;
    else if (kind == 'u') *dt = sz == 1 ? CT_UINT8 : CT_NUM_DTYPES;
    else if (kind == 'b') *dt = sz == 1 ? CT_BOOL : CT_NUM_DTYPES;
    else if (kind == 'c') *dt = sz == 8 ? CT_COMPLEX64 : sz == 16 ? CT_COMPLEX128 : CT_NUM_DTYPES;
    else return -1;
    if (*dt == CT_NUM_DTYPES) return -1;
    *swap = ct__dt[*dt].size > 1 && ((order == '>' && ct__host_le()) || (order == '<' && !ct__host_le()));
    return 0;
}
/* The header is a Python dict literal, as numpy writes and ast.literal_eval
   reads it: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
   Exactly these three keys, in any order; strings in single or double quotes;
   shape a tuple of non-negative integers (a trailing comma; Python 2's 'L'). */
typedef struct ct__npyp { const char *p, *end; } ct__npyp;
static void ct__npy_ws(ct__npyp *q) {
    while (q->p < q->end && (*q->p == ' ' || *q->p == '\t' || *q->p == '\n' || *q->p == '\r')) q->p++;
}
static int ct__npy_str(ct__npyp *q, const char **s, size_t *n) {
    if (q->p >= q->end || (*q->p != '\'' && *q->p != '"')) return -1;
    char quote = *q->p++;
    const char *b = q->p;
    while (q->p < q->end && *q->p != quote) {
        if (*q->p == '\\' || *q->p == '\n') return -1;
        q->p++;
    }
    if (q->p >= q->end) return -1;
    *s = b;
    *n = (size_t)(q->p - b);
    q->p++;
    return 0;
}
CTENSOR_API ct_tensor *ct_load_npy_mem(const void *data, size_t len, const char *name) {
    const unsigned char *p = (const unsigned char *)data;
    if (!name) name = "<memory>";
    if (!p) return ct__fail(CT_ERR_ARG, "load_npy: data is NULL (%s)", name);
    if (len < 10 || memcmp(p, "\x93NUMPY", 6) != 0) return ct__fail(CT_ERR_FORMAT, "load_npy: not a .npy file (bad magic) (%s)", name);
    int major = p[6], minor = p[7];
    size_t hlen, hoff;
    if (major == 1 && minor == 0) { hlen = (size_t)p[8] | ((size_t)p[9] << 8); hoff = 10; }
    else if ((major == 2 || major == 3) && minor == 0) {
        if (len < 12) return ct__fail(CT_ERR_FORMAT, "load_npy: truncated header (%s)", name);
        hlen = (size_t)p[8] | ((size_t)p[9] << 8) | ((size_t)p[10] << 16) | ((size_t)p[11] << 24);
        hoff = 12;
    } else return ct__fail(CT_ERR_FORMAT, "load_npy: unsupported format version %d.%d (%s)", major, minor, name);
    if (hlen > len - hoff) return ct__fail(CT_ERR_FORMAT, "load_npy: header length %zu exceeds file size %zu (%s)", hlen, len, name);
    ct__npyp q;
    q.p = (const char *)p + hoff;
    q.end = q.p + hlen;
    ct_dtype dt = CT_NUM_DTYPES;
    int swap = 0, fortran = 0, seen = 0, nd = 0;
    int64_t shape[CT_MAX_DIMS];
    ct__npy_ws(&q);
    if (q.p >= q.end || *q.p != '{') return ct__fail(CT_ERR_FORMAT, "load_npy: header is not a dict (%s)", name);
    q.p++;
    for (;;) {
        const char *k;
        size_t kn;
        ct__npy_ws(&q);
        if (q.p < q.end && *q.p == '}') break;
        if (ct__npy_str(&q, &k, &kn)) return ct__fail(CT_ERR_FORMAT, "load_npy: malformed header: expected a quoted key (%s)", name);
        int which = (kn == 5 && !memcmp(k, "descr", 5)) ? 1 : (kn == 13 && !memcmp(k, "fortran_order", 13)) ? 2 : (kn == 5 && !memcmp(k, "shape", 5)) ? 4 : 0;
        if (!which) return ct__fail(CT_ERR_FORMAT, "load_npy: unexpected key '%.*s' in the header (%s)", (int)(kn < 40 ? kn : 40), k, name);
        if (seen & which) return ct__fail(CT_ERR_FORMAT, "load_npy: duplicate key '%.*s' in the header (%s)", (int)kn, k, name);
        seen |= which;
        ct__npy_ws(&q);
        if (q.p >= q.end || *q.p != ':') return ct__fail(CT_ERR_FORMAT, "load_npy: malformed header: expected ':' (%s)", name);
        q.p++;
        ct__npy_ws(&q);
        if (which == 1) {
            const char *d;
            size_t dn;
            if (ct__npy_str(&q, &d, &dn)) return ct__fail(CT_ERR_FORMAT, "load_npy: header has no 'descr' string (object and structured arrays are not supported) (%s)", name);
            if (ct__npy_descr(d, dn, &dt, &swap))
                return ct__fail(CT_ERR_FORMAT, "load_npy: unsupported dtype '%.*s' (object and structured arrays are not supported) (%s)", (int)(dn < 40 ? dn : 40), d, name);
        } else if (which == 2) {
            size_t rem = (size_t)(q.end - q.p);
            if (rem >= 4 && !memcmp(q.p, "True", 4)) { fortran = 1; q.p += 4; }
            else if (rem >= 5 && !memcmp(q.p, "False", 5)) { fortran = 0; q.p += 5; }
            else return ct__fail(CT_ERR_FORMAT, "load_npy: bad 'fortran_order' value (%s)", name);
        } else {
            if (q.p >= q.end || *q.p != '(') return ct__fail(CT_ERR_FORMAT, "load_npy: header has no 'shape' tuple (%s)", name);
            q.p++;
            int comma = 1;
            for (;;) {
                ct__npy_ws(&q);
                if (q.p >= q.end) return ct__fail(CT_ERR_FORMAT, "load_npy: unterminated 'shape' (%s)", name);
                if (*q.p == ')') { q.p++; break; }
                if (!comma || *q.p < '0' || *q.p > '9') return ct__fail(CT_ERR_FORMAT, "load_npy: bad character in 'shape' (%s)", name);
                uint64_t v = 0;
                while (q.p < q.end && *q.p >= '0' && *q.p <= '9') {
                    v = v * 10 + (uint64_t)(*q.p - '0');
                    if (v > ((uint64_t)1 << 46)) return ct__fail(CT_ERR_FORMAT, "load_npy: dimension too large in 'shape' (%s)", name);
                    q.p++;
                }
                if (q.p < q.end && *q.p == 'L') q.p++;
                if (nd >= CT_MAX_DIMS) return ct__fail(CT_ERR_FORMAT, "load_npy: more than %d dimensions (%s)", CT_MAX_DIMS, name);
                shape[nd++] = (int64_t)v;
                ct__npy_ws(&q);
                comma = q.p < q.end && *q.p == ',';
                if (comma) q.p++;
            }
            /* (3) is the integer 3 in Python, not a tuple */
            if (nd == 1 && !comma) return ct__fail(CT_ERR_FORMAT, "load_npy: 'shape' is not a tuple (%s)", name);
        }
        ct__npy_ws(&q);
        if (q.p < q.end && *q.p == ',') { q.p++; continue; }
        if (q.p < q.end && *q.p == '}') break;
        return ct__fail(CT_ERR_FORMAT, "load_npy: malformed header: expected ',' or '}' (%s)", name);
    }
    q.p++;
    ct__npy_ws(&q);
    if (q.p != q.end) return ct__fail(CT_ERR_FORMAT, "load_npy: unexpected data after the header dict (%s)", name);
    if (seen != 7)
        return ct__fail(CT_ERR_FORMAT, "load_npy: header has no '%s' (%s)", !(seen & 1) ? "descr" : !(seen & 2) ? "fortran_order" : "shape", name);
    {
        uint64_t nz = 1;  /* the product of the non-zero dims must fit (ct__check_shape's bound) */
        for (int d = 0; d < nd; d++) {
            if (!shape[d]) continue;
            if (nz > ((uint64_t)1 << 46) / (uint64_t)shape[d])
                return ct__fail(CT_ERR_FORMAT, "load_npy: shape %s is too large (%s)", ct__fmt_shape(nd, shape).s, name);
            nz *= (uint64_t)shape[d];
        }
    }
    int64_t numel = ct__shape_numel(nd, shape);
    size_t es = ct__dt[dt].size, doff = hoff + hlen;
    if ((uint64_t)numel > (uint64_t)(len - doff) / es)
        return ct__fail(CT_ERR_FORMAT, "load_npy: data of %lld elements of %zu bytes exceeds the %zu bytes left in the file (%s)",
                        (long long)numel, es, len - doff, name);
    int64_t fshape[CT_MAX_DIMS] = {0};
    for (int d = 0; d < nd; d++) fshape[d] = fortran ? shape[nd - 1 - d] : shape[d];
    ct_tensor *x = ct__alloc(dt, nd, fshape, NULL, ct__cpu_dev);
    if (!x) return NULL;
    unsigned char *dst = (unsigned char *)ct__ptr(x);
    if (numel) memcpy(dst, p + doff, (size_t)numel * es);
    if (swap) {
        /* complex numbers swap each of their two parts */
        size_t w = ct_dtype_is_complex(dt) ? es / 2 : es;
        for (size_t k = 0; k < (size_t)numel * es; k += w)
            for (size_t b = 0; b < w / 2; b++) {
                unsigned char tb = dst[k + b];
                dst[k + b] = dst[k + w - 1 - b];
                dst[k + w - 1 - b] = tb;
            }
    }
    if (dt == CT_BOOL)
        for (int64_t k = 0; k < numel; k++) dst[k] = dst[k] != 0;
    if (!ct__own(x)) return NULL;
    if (fortran && nd > 1) {
        int64_t perm[CT_MAX_DIMS];
        for (int d = 0; d < nd; d++) perm[d] = nd - 1 - d;
        return ct_permute_n(x, nd, perm);
    }
    return x;
}
CTENSOR_API ct_status ct_save_npy_mem(const ct_tensor *t, void **data, size_t *len) {
    if (!data || !len) { ct_set_error(CT_ERR_ARG, "save_npy: output pointers are NULL"); return CT_ERR_ARG; }
    *data = NULL;
    *len = 0;
    if (!t) { ct__null_arg("save_npy", 0); return ct_last_error_code(); }
    if (!ct__dt[t->dtype].npy[0]) {
        ct_set_error(CT_ERR_DTYPE, "save_npy: dtype %s has no .npy equivalent", ct_dtype_name(t->dtype));
        return CT_ERR_DTYPE;
    }
    char hdr[512];
    int n = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (", ct__dt[t->dtype].npy);
    for (int d = 0; d < t->ndim; d++) n += snprintf(hdr + n, sizeof hdr - (size_t)n, "%lld,%s", (long long)t->shape[d], (t->ndim > 1 && d < t->ndim - 1) ? " " : "");
    if (t->ndim > 1) n--;  /* drop the trailing comma of multi-dim tuples: (2, 3) */
    n += snprintf(hdr + n, sizeof hdr - (size_t)n, "), }");
    size_t total_hdr = 10 + (size_t)n + 1;
    size_t pad = (64 - total_hdr % 64) % 64;
    size_t hl = (size_t)n + pad + 1;
    int64_t numel = ct_numel(t);
    size_t es = ct__dt[t->dtype].size;
    size_t sz = 10 + hl + (size_t)numel * es;
    unsigned char *buf = (unsigned char *)CT_MALLOC(sz);
    if (!buf) { ct_set_error(CT_ERR_MEMORY, "save_npy: out of memory"); return CT_ERR_MEMORY; }
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)(hl & 0xff);
    buf[9] = (unsigned char)(hl >> 8);
    memcpy(buf + 10, hdr, (size_t)n);
    memset(buf + 10 + n, ' ', pad);
    buf[10 + hl - 1] = '\n';
    ct_tensor *c = ct__host_ref(t);
    if (!c) { CT_FREE(buf); return ct_last_error_code(); }
    memcpy(buf + 10 + hl, ct__ptr(c), (size_t)numel * es);
    ct__decref(c);
    *data = buf;
    *len = sz;
    return CT_OK;
}
#ifndef CTENSOR_NO_STDIO
/* Reads a whole file; *len gets its size. Returns CT_MALLOC'd memory or NULL. */
static void *ct__read_file(const char *path, size_t *len, const char *api) {
    FILE *f = fopen(path, "rb");
    if (!f) { ct_set_error(CT_ERR_IO, "%s: cannot open '%s'", api, path); return NULL; }
    if (fseek(f, 0, SEEK_END) != 0) { fclose(f); ct_set_error(CT_ERR_IO, "%s: cannot seek '%s'", api, path); return NULL; }
    long sz = ftell(f);
    if (sz < 0) { fclose(f); ct_set_error(CT_ERR_IO, "%s: cannot size '%s'", api, path); return NULL; }
    rewind(f);
    void *buf = CT_MALLOC((size_t)sz + 1);
    if (!buf) { fclose(f); ct_set_error(CT_ERR_MEMORY, "%s: out of memory reading '%s'", api, path); return NULL; }
    if (sz && fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
        fclose(f);
        CT_FREE(buf);
        ct_set_error(CT_ERR_IO, "%s: short read on '%s'", api, path);
        return NULL;
    }
    fclose(f);
    *len = (size_t)sz;
    return buf;
}
static ct_status ct__write_file(const char *path, const void *data, size_t len, const char *api) {
    FILE *f = fopen(path, "wb");
    if (!f) { ct_set_error(CT_ERR_IO, "%s: cannot create '%s'", api, path); return CT_ERR_IO; }
    size_t w = len ? fwrite(data, 1, len, f) : 0;
    int rc = fclose(f);
    if (w != len || rc != 0) { ct_set_error(CT_ERR_IO, "%s: write failed on '%s'", api, path); return CT_ERR_IO; }
    return CT_OK;
}
CTENSOR_API ct_tensor *ct_load_npy(const char *path) {
    if (!path) return ct__fail(CT_ERR_ARG, "load_npy: path is NULL");
    size_t len;
    void *buf = ct__read_file(path, &len, "load_npy");
    if (!buf) return NULL;
    ct_tensor *t = ct_load_npy_mem(buf, len, path);
    CT_FREE(buf);
    return t;
}
CTENSOR_API ct_status ct_save_npy(const char *path, const ct_tensor *t) {
    if (!path) { ct_set_error(CT_ERR_ARG, "save_npy: path is NULL"); return CT_ERR_ARG; }
    void *buf;
    size_t len;
    ct_status st = ct_save_npy_mem(t, &buf, &len);
    if (st != CT_OK) return st;
    st = ct__write_file(path, buf, len, "save_npy");
    CT_FREE(buf);
    return st;
}
#endif

/* ============================================================================
   Serialization: safetensors
   ========================================================================== */
/* [section: safetensors-impl] */
/* safetensors (github.com/huggingface/safetensors, docs "format"): the loader
   follows the reference reader's checks (header length within the file and
   below 100 MB, header starts with '{', tensors sorted by offsets cover the data
   buffer exactly, byte size = numel * itemsize, no overflow) and adds strict
   JSON (UTF-8, no duplicate keys, no unknown keys). The writer produces the
   reference writer's bytes: compact JSON, __metadata__ first, then tensors in
   data order (dtype alignment descending, then name), spaces to a multiple of 8. */
#define CT__ST_MAX_HEADER 100000000ull

/* the file's data buffer, shared by the handle and every tensor that views it */
typedef struct ct__stbuf { int32_t refcount; void *raw; } ct__stbuf;
static void ct__stbuf_decref(ct__stbuf *b) {
    if (CT__LOAD(&b->refcount) == 1 || CT__ATOMIC_DEC(&b->refcount) == 0) {
        CT_FREE(b->raw);
        CT_FREE(b);
    }
}
static void ct__stbuf_deleter(void *data, void *user) { (void)data; ct__stbuf_decref((ct__stbuf *)user); }

/* valid safetensors dtypes ctensor has no tensor type for: files holding them
   load, and getting such a tensor is a dtype error */
static const char *const ct__st_other_names[] = {"U16", "U32", "U64", "F8_E5M2", "F8_E4M3"};
static const uint8_t ct__st_other_sizes[] = {2, 4, 8, 1, 1};
#define CT__ST_NOTHER ((int)(sizeof ct__st_other_sizes / sizeof ct__st_other_sizes[0]))

typedef struct ct__st_entry {
    char *name;
    int dtype;                 /* a ct_dtype, or -1 - k for ct__st_other_names[k] */
    int ndim;
    int64_t shape[CT_MAX_DIMS];
    uint64_t begin, end;
} ct__st_entry;

struct ct_safetensors {
    ct__stbuf *buf;
    const unsigned char *data;  /* the data buffer, 64-byte aligned */
    uint64_t data_len;
    char *file;                 /* name for messages */
    int n, cap;
    ct__st_entry *t;            /* sorted by name */
    int nmeta, cap_meta;
    char **mkeys, **mvals;      /* sorted by key */
};

static const char *ct__st_dtype_str(int dt) {
    return dt >= 0 ? ct__dt[dt].st : ct__st_other_names[-1 - dt];
}
static size_t ct__st_dtype_size(int dt) { return dt >= 0 ? ct__dt[dt].size : ct__st_other_sizes[-1 - dt]; }
static int ct__st_dtype_parse(const char *s) {
    for (int d = 0; d < CT_NUM_DTYPES; d++)
        if (ct__dt[d].st[0] && !strcmp(ct__dt[d].st, s)) return d;
    for (int k = 0; k < CT__ST_NOTHER; k++)
        if (!strcmp(ct__st_other_names[k], s)) return -1 - k;
    return INT_MIN;
}
static uint64_t ct__le64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
/* Length of the UTF-8 sequence at s (1-4), or 0 when it is not valid UTF-8
   (overlong forms, surrogates and code points above U+10FFFF are invalid). */
static int ct__utf8_seq(const unsigned char *s, const unsigned char *end) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    int n;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf) { n = 2; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { n = 3; cp = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 4; cp = c & 0x07; }
    else return 0;
    if (end - s < n) return 0;
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff))) return 0;
    return n;
}
static int ct__utf8_valid(const char *s) {
    const unsigned char *p = (const unsigned char *)s, *e = p + strlen(s);
    while (p < e) {
        int k = ct__utf8_seq(p, e);
        if (!k) return 0;
        p += k;
    }
    return 1;
}

/* ---- a small strict JSON reader for the header (RFC 8259 syntax) ---- */
typedef struct ct__jp {
    const unsigned char *p, *end, *begin;
    const char *file;
} ct__jp;
static int ct__jp_fail(ct__jp *j, const char *what) {
    return ct__failed(CT_ERR_FORMAT, "safetensors: malformed JSON header at byte %zu: %s (%s)", (size_t)(j->p - j->begin), what, j->file);
}
static void ct__jp_ws(ct__jp *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}
static int ct__jp_expect(ct__jp *j, char c, const char *what) {
    ct__jp_ws(j);
    if (j->p >= j->end || *j->p != (unsigned char)c) return ct__jp_fail(j, what);
    j->p++;
    ct__jp_ws(j);
    return 0;
}
static int ct__jp_hex4(const unsigned char *s, uint32_t *v) {
    *v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned c = s[i], d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return -1;
        *v = (*v << 4) | d;
    }
    return 0;
}
/* A JSON string -> CT_MALLOC'd NUL-terminated UTF-8 (a NUL character is refused). */
static int ct__jp_string(ct__jp *j, char **out) {
    *out = NULL;
    if (j->p >= j->end || *j->p != '"') return ct__jp_fail(j, "expected a string");
    const unsigned char *s = j->p + 1, *q = s;
    while (q < j->end && *q != '"') q += (*q == '\\' && q + 1 < j->end) ? 2 : 1;
    if (q >= j->end) return ct__jp_fail(j, "unterminated string");
    char *o = (char *)CT_MALLOC((size_t)(q - s) + 1);
    if (!o) return ct__failed(CT_ERR_MEMORY, "safetensors: out of memory reading the header (%s)", j->file);
    size_t n = 0;
    j->p = s;
    while (j->p < q) {
        unsigned c = *j->p;
        if (c < 0x20) { CT_FREE(o); return ct__jp_fail(j, "control character in a string"); }
        if (c == '\\') {
            unsigned e = j->p[1];
            const char *simple = "\"\\/bfnrt", *rep = "\"\\/\b\f\n\r\t";
            const char *hit = e ? strchr(simple, (int)e) : NULL;
            if (hit) { o[n++] = rep[hit - simple]; j->p += 2; continue; }
            if (e != 'u') { CT_FREE(o); return ct__jp_fail(j, "invalid escape in a string"); }
            uint32_t cp, lo;
            if (q - j->p < 6 || ct__jp_hex4(j->p + 2, &cp)) { CT_FREE(o); return ct__jp_fail(j, "invalid \\u escape"); }
            j->p += 6;
            if (cp >= 0xdc00 && cp <= 0xdfff) { CT_FREE(o); return ct__jp_fail(j, "unpaired surrogate in a \\u escape"); }
            if (cp >= 0xd800 && cp <= 0xdbff) {
                if (q - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u' || ct__jp_hex4(j->p + 2, &lo) || lo < 0xdc00 || lo > 0xdfff) {
                    CT_FREE(o);
                    return ct__jp_fail(j, "unpaired surrogate in a \\u escape");
                }
                j->p += 6;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            if (cp == 0) { CT_FREE(o); return ct__jp_fail(j, "NUL character in a string"); }
            if (cp < 0x80) o[n++] = (char)cp;
            else if (cp < 0x800) { o[n++] = (char)(0xc0 | (cp >> 6)); o[n++] = (char)(0x80 | (cp & 0x3f)); }
            else if (cp < 0x10000) {
                o[n++] = (char)(0xe0 | (cp >> 12)); o[n++] = (char)(0x80 | ((cp >> 6) & 0x3f)); o[n++] = (char)(0x80 | (cp & 0x3f));
            } else {
                o[n++] = (char)(0xf0 | (cp >> 18)); o[n++] = (char)(0x80 | ((cp >> 12) & 0x3f));
                o[n++] = (char)(0x80 | ((cp >> 6) & 0x3f)); o[n++] = (char)(0x80 | (cp & 0x3f));
            }
            continue;
        }
        int k = ct__utf8_seq(j->p, q);
        if (!k) { CT_FREE(o); return ct__jp_fail(j, "invalid UTF-8 in a string"); }
        memcpy(o + n, j->p, (size_t)k);
        n += (size_t)k;
        j->p += k;
    }
    o[n] = 0;
    j->p = q + 1;
    *out = o;
    return 0;
}
/* A non-negative JSON integer (no fraction, no exponent). */
static int ct__jp_uint(ct__jp *j, uint64_t *v, const char *what) {
    char msg[512];
    *v = 0;
    if (j->p < j->end && *j->p == '-') {
        snprintf(msg, sizeof msg, "%s must not be negative", what);
        return ct__jp_fail(j, msg);
    }
    if (j->p >= j->end || *j->p < '0' || *j->p > '9') {
        snprintf(msg, sizeof msg, "%s must be a non-negative integer", what);
        return ct__jp_fail(j, msg);
    }
    if (*j->p == '0' && j->p + 1 < j->end && j->p[1] >= '0' && j->p[1] <= '9') return ct__jp_fail(j, "number with a leading zero");
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
        uint64_t d = (uint64_t)(*j->p - '0');
        if (*v > (UINT64_MAX - d) / 10) {
            snprintf(msg, sizeof msg, "%s does not fit in 64 bits", what);
            return ct__jp_fail(j, msg);
        }
        *v = *v * 10 + d;
        j->p++;
    }
    if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E')) {
        snprintf(msg, sizeof msg, "%s must be an integer", what);
        return ct__jp_fail(j, msg);
    }
    return 0;
}

static void ct__st_destroy(ct_safetensors *st) {
    if (!st) return;
    for (int i = 0; i < st->n; i++) CT_FREE(st->t[i].name);
    for (int i = 0; i < st->nmeta; i++) { CT_FREE(st->mkeys[i]); CT_FREE(st->mvals[i]); }
    CT_FREE(st->t);
    CT_FREE(st->mkeys);
    CT_FREE(st->mvals);
    CT_FREE(st->file);
    if (st->buf) ct__stbuf_decref(st->buf);
    CT_FREE(st);
}
CTENSOR_API void ct_safetensors_free(ct_safetensors *st) { ct__st_destroy(st); }

static int ct__st_meta_object(ct_safetensors *st, ct__jp *j) {
    if (j->p >= j->end || *j->p != '{') return ct__jp_fail(j, "__metadata__ must be an object of strings");
    if (ct__jp_expect(j, '{', "expected '{'")) return -1;
    if (j->p < j->end && *j->p == '}') { j->p++; return 0; }
    for (;;) {
        char *k, *v;
        if (ct__jp_string(j, &k)) return -1;
        if (ct__jp_expect(j, ':', "expected ':' after a key")) { CT_FREE(k); return -1; }
        if (j->p >= j->end || *j->p != '"') {
            int rc = ct__failed(CT_ERR_FORMAT, "safetensors: __metadata__ value of '%.200s' is not a string (metadata maps strings to strings) (%s)", k, j->file);
            CT_FREE(k);
            return rc;
        }
        if (ct__jp_string(j, &v)) { CT_FREE(k); return -1; }
        if (st->nmeta == st->cap_meta) {
            int nc = st->cap_meta ? st->cap_meta * 2 : 8;
            char **nk = (char **)CT_REALLOC(st->mkeys, sizeof(char *) * (size_t)nc);
            if (nk) st->mkeys = nk;
            char **nv = nk ? (char **)CT_REALLOC(st->mvals, sizeof(char *) * (size_t)nc) : NULL;
            if (nv) st->mvals = nv;
            if (!nk || !nv) {
                CT_FREE(k); CT_FREE(v);
                return ct__failed(CT_ERR_MEMORY, "safetensors: out of memory reading the header (%s)", j->file);
            }
            st->cap_meta = nc;
        }
        st->mkeys[st->nmeta] = k;
        st->mvals[st->nmeta++] = v;
        ct__jp_ws(j);
        if (j->p < j->end && *j->p == ',') { j->p++; ct__jp_ws(j); continue; }
        if (j->p < j->end && *j->p == '}') { j->p++; return 0; }
        return ct__jp_fail(j, "expected ',' or '}' in __metadata__");
    }
}
/* {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]} for tensor e->name */
static int ct__st_tensor_object(ct__jp *j, ct__st_entry *e) {
    char msg[400];
    int seen = 0;
    if (j->p >= j->end || *j->p != '{') {
        snprintf(msg, sizeof msg, "the entry of tensor '%.200s' must be an object", e->name);
        return ct__jp_fail(j, msg);
    }
    if (ct__jp_expect(j, '{', "expected '{'")) return -1;
    if (j->p < j->end && *j->p == '}') j->p++;
    else for (;;) {
        char *k;
        if (ct__jp_string(j, &k)) return -1;
        int which = !strcmp(k, "dtype") ? 1 : !strcmp(k, "shape") ? 2 : !strcmp(k, "data_offsets") ? 4 : 0;
        if (!which || (seen & which)) {
            snprintf(msg, sizeof msg, "%s key '%.60s' in the entry of tensor '%.200s'", which ? "duplicate" : "unknown", k, e->name);
            CT_FREE(k);
            return ct__jp_fail(j, msg);
        }
        CT_FREE(k);
        seen |= which;
        if (ct__jp_expect(j, ':', "expected ':' after a key")) return -1;
        if (which == 1) {
            char *d;
            if (j->p >= j->end || *j->p != '"') {
                snprintf(msg, sizeof msg, "dtype of tensor '%.200s' must be a string", e->name);
                return ct__jp_fail(j, msg);
            }
            if (ct__jp_string(j, &d)) return -1;
            e->dtype = ct__st_dtype_parse(d);
            if (e->dtype == INT_MIN) {
                int rc = ct__failed(CT_ERR_FORMAT, "safetensors: unknown dtype '%.40s' of tensor '%.200s' (%s)", d, e->name, j->file);
                CT_FREE(d);
                return rc;
            }
            CT_FREE(d);
        } else {
            int is_shape = which == 2, cnt = 0;
            uint64_t off[2] = {0, 0};
            snprintf(msg, sizeof msg, "%s of tensor '%.200s' must be a list of integers", is_shape ? "shape" : "data_offsets", e->name);
            if (j->p >= j->end || *j->p != '[') return ct__jp_fail(j, msg);
            if (ct__jp_expect(j, '[', msg)) return -1;
            if (j->p < j->end && *j->p == ']') j->p++;
            else for (;;) {
                uint64_t v;
                snprintf(msg, sizeof msg, "%s of tensor '%.200s'", is_shape ? "a dimension in the shape" : "data_offsets", e->name);
                if (ct__jp_uint(j, &v, msg)) return -1;
                if (is_shape) {
                    if (cnt >= CT_MAX_DIMS)
                        return ct__failed(CT_ERR_FORMAT, "safetensors: tensor '%.200s' has more than %d dimensions (%s)", e->name, CT_MAX_DIMS, j->file);
                    if (v > ((uint64_t)1 << 62))
                        return ct__failed(CT_ERR_FORMAT, "safetensors: dimension %llu of tensor '%.200s' is too large (%s)", (unsigned long long)v, e->name, j->file);
                    e->shape[cnt] = (int64_t)v;
                } else if (cnt < 2) {
                    off[cnt] = v;
                }
                cnt++;
                ct__jp_ws(j);
                if (j->p < j->end && *j->p == ',') { j->p++; ct__jp_ws(j); continue; }
                if (j->p < j->end && *j->p == ']') { j->p++; break; }
                return ct__jp_fail(j, "expected ',' or ']' in a list");
            }
            if (is_shape) e->ndim = cnt;
            else {
                if (cnt != 2)
                    return ct__failed(CT_ERR_FORMAT, "safetensors: data_offsets of tensor '%.200s' must be [begin, end] (got %d numbers) (%s)", e->name, cnt, j->file);
                e->begin = off[0];
                e->end = off[1];
            }
        }
        ct__jp_ws(j);
        if (j->p < j->end && *j->p == ',') { j->p++; ct__jp_ws(j); continue; }
        if (j->p < j->end && *j->p == '}') { j->p++; break; }
        return ct__jp_fail(j, "expected ',' or '}' in a tensor entry");
    }
    if (seen != 7)
        return ct__failed(CT_ERR_FORMAT, "safetensors: the entry of tensor '%.200s' has no '%s' (%s)", e->name,
                          !(seen & 1) ? "dtype" : !(seen & 2) ? "shape" : "data_offsets", j->file);
    return 0;
}

static int ct__st_cmp_entry_name(const void *a, const void *b) {
    return strcmp(((const ct__st_entry *)a)->name, ((const ct__st_entry *)b)->name);
}
typedef struct ct__st_span { uint64_t begin, end; int idx; } ct__st_span;
static int ct__st_cmp_span(const void *a, const void *b) {
    const ct__st_span *x = (const ct__st_span *)a, *y = (const ct__st_span *)b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return x->idx - y->idx;
}
typedef struct ct__st_kv { char *k, *v; } ct__st_kv;
static int ct__st_cmp_kv(const void *a, const void *b) { return strcmp(((const ct__st_kv *)a)->k, ((const ct__st_kv *)b)->k); }

/* Parses and validates the header; the handle already owns its data buffer. */
static int ct__st_parse(ct_safetensors *st, const unsigned char *h, uint64_t hlen) {
    ct__jp j;
    j.p = j.begin = h;
    j.end = h + hlen;
    j.file = st->file;
    int seen_meta = 0;
    if (hlen == 0 || h[0] != '{') return ct__jp_fail(&j, "the header must start with '{'");
    if (ct__jp_expect(&j, '{', "expected '{'")) return -1;
    if (j.p < j.end && *j.p == '}') j.p++;
    else for (;;) {
        char *key;
        if (ct__jp_string(&j, &key)) return -1;
        if (ct__jp_expect(&j, ':', "expected ':' after a key")) { CT_FREE(key); return -1; }
        if (!strcmp(key, "__metadata__")) {
            CT_FREE(key);
            if (seen_meta) return ct__jp_fail(&j, "duplicate key '__metadata__'");
            seen_meta = 1;
            if (ct__st_meta_object(st, &j)) return -1;
        } else {
            if (st->n == st->cap) {
                int nc = st->cap ? st->cap * 2 : 16;
                ct__st_entry *nt = (ct__st_entry *)CT_REALLOC(st->t, sizeof(ct__st_entry) * (size_t)nc);
                if (!nt) { CT_FREE(key); return ct__failed(CT_ERR_MEMORY, "safetensors: out of memory reading the header (%s)", st->file); }
                st->t = nt;
                st->cap = nc;
            }
            ct__st_entry *e = &st->t[st->n++];
            memset(e, 0, sizeof *e);
            e->name = key;
            if (ct__st_tensor_object(&j, e)) return -1;
        }
        ct__jp_ws(&j);
        if (j.p < j.end && *j.p == ',') { j.p++; ct__jp_ws(&j); continue; }
        if (j.p < j.end && *j.p == '}') { j.p++; break; }
        return ct__jp_fail(&j, "expected ',' or '}' after an entry");
    }
    ct__jp_ws(&j);
    if (j.p != j.end) return ct__jp_fail(&j, "unexpected data after the header object");

    /* names and metadata keys: sorted, unique */
    if (st->n > 1) qsort(st->t, (size_t)st->n, sizeof(ct__st_entry), ct__st_cmp_entry_name);
    for (int i = 1; i < st->n; i++)
        if (!strcmp(st->t[i].name, st->t[i - 1].name))
            return ct__failed(CT_ERR_FORMAT, "safetensors: duplicate tensor name '%.200s' (%s)", st->t[i].name, st->file);
    if (st->nmeta > 1) {
        ct__st_kv *kv = CT__NEW_ARRAY(ct__st_kv, st->nmeta);
        if (!kv) return ct__failed(CT_ERR_MEMORY, "safetensors: out of memory (%s)", st->file);
        for (int i = 0; i < st->nmeta; i++) { kv[i].k = st->mkeys[i]; kv[i].v = st->mvals[i]; }
        qsort(kv, (size_t)st->nmeta, sizeof(ct__st_kv), ct__st_cmp_kv);
        for (int i = 0; i < st->nmeta; i++) { st->mkeys[i] = kv[i].k; st->mvals[i] = kv[i].v; }
        CT_FREE(kv);
        for (int i = 1; i < st->nmeta; i++)
            if (!strcmp(st->mkeys[i], st->mkeys[i - 1]))
                return ct__failed(CT_ERR_FORMAT, "safetensors: duplicate __metadata__ key '%.200s' (%s)", st->mkeys[i], st->file);
    }
    /* each tensor: byte size from dtype and shape (no overflow) equals its span, inside the buffer */
    for (int i = 0; i < st->n; i++) {
        ct__st_entry *e = &st->t[i];
        /* numel * itemsize without overflow; like ct__check_shape, the product of
           the non-zero dims is bounded (2^46), so even an empty tensor's shape fits */
        uint64_t numel = 1, nz = 1, es = ct__st_dtype_size(e->dtype), nbytes;
        int over = 0;
        for (int d = 0; d < e->ndim; d++) {
            uint64_t s = (uint64_t)e->shape[d];
            if (!s) { numel = 0; continue; }
            if (nz > (((uint64_t)1 << 46)) / s) { over = 1; break; }
            nz *= s;
            numel *= s;
        }
        nbytes = numel * es;
        if (over)
            return ct__failed(CT_ERR_FORMAT, "safetensors: tensor '%.200s' of shape %s and dtype %s is too large (its size overflows) (%s)",
                              e->name, ct__fmt_shape(e->ndim, e->shape).s, ct__st_dtype_str(e->dtype), st->file);
        if (e->end < e->begin)
            return ct__failed(CT_ERR_FORMAT, "safetensors: tensor '%.200s' has data_offsets [%llu, %llu] that end before they begin (%s)",
                              e->name, (unsigned long long)e->begin, (unsigned long long)e->end, st->file);
        if (e->end - e->begin != nbytes)
            return ct__failed(CT_ERR_FORMAT, "safetensors: tensor '%.200s' of shape %s and dtype %s needs %llu bytes but its data_offsets [%llu, %llu] span %llu (%s)",
                              e->name, ct__fmt_shape(e->ndim, e->shape).s, ct__st_dtype_str(e->dtype), (unsigned long long)nbytes,
                              (unsigned long long)e->begin, (unsigned long long)e->end, (unsigned long long)(e->end - e->begin), st->file);
        if (e->end > st->data_len)
            return ct__failed(CT_ERR_FORMAT, "safetensors: tensor '%.200s' has data_offsets [%llu, %llu] outside the data buffer of %llu bytes (%s)",
                              e->name, (unsigned long long)e->begin, (unsigned long long)e->end, (unsigned long long)st->data_len, st->file);
    }
    /* together, in offset order, the tensors tile the buffer: no overlap, no gap, nothing after */
    uint64_t pos = 0;
    if (st->n) {
        ct__st_span *sp = CT__NEW_ARRAY(ct__st_span, st->n);
        if (!sp) return ct__failed(CT_ERR_MEMORY, "safetensors: out of memory (%s)", st->file);
        for (int i = 0; i < st->n; i++) { sp[i].begin = st->t[i].begin; sp[i].end = st->t[i].end; sp[i].idx = i; }
        qsort(sp, (size_t)st->n, sizeof(ct__st_span), ct__st_cmp_span);
        for (int i = 0; i < st->n; i++) {
            const ct__st_entry *e = &st->t[sp[i].idx];
            if (sp[i].begin < pos) {
                const ct__st_entry *prev = &st->t[sp[i - 1].idx];
                int rc = ct__failed(CT_ERR_FORMAT, "safetensors: tensors '%.200s' [%llu, %llu] and '%.200s' [%llu, %llu] overlap (%s)",
                                    prev->name, (unsigned long long)prev->begin, (unsigned long long)prev->end, e->name,
                                    (unsigned long long)e->begin, (unsigned long long)e->end, st->file);
                CT_FREE(sp);
                return rc;
            }
            if (sp[i].begin > pos) {
                int rc = ct__failed(CT_ERR_FORMAT, "safetensors: bytes [%llu, %llu) of the data buffer belong to no tensor (a gap before '%.200s') (%s)",
                                    (unsigned long long)pos, (unsigned long long)sp[i].begin, e->name, st->file);
                CT_FREE(sp);
                return rc;
            }
            pos = sp[i].end;
        }
        CT_FREE(sp);
    }
    if (pos != st->data_len)
        return ct__failed(CT_ERR_FORMAT, "safetensors: the data buffer has %llu bytes but the tensors cover %llu (%s)",
                          (unsigned long long)st->data_len, (unsigned long long)pos, st->file);
    return 0;
}

/* A handle with a 64-byte aligned buffer of data_len bytes (contents unset). */
static ct_safetensors *ct__st_new(const char *file, uint64_t data_len) {
    ct_safetensors *st = CT__NEW_ZEROED(ct_safetensors);
    if (!st) { ct_set_error(CT_ERR_MEMORY, "safetensors: out of memory (%s)", file); return NULL; }
    size_t fl = strlen(file);
    st->file = (char *)CT_MALLOC(fl + 1);
    st->buf = CT__NEW_ZEROED(ct__stbuf);
    if (st->buf) st->buf->refcount = 1;
    if (st->file) memcpy(st->file, file, fl + 1);
    if (st->buf && data_len < (uint64_t)SIZE_MAX - 128) st->buf->raw = CT_MALLOC((size_t)data_len + 64);
    if (!st->file || !st->buf || !st->buf->raw) {
        ct_set_error(CT_ERR_MEMORY, "safetensors: out of memory for %llu bytes of data (%s)", (unsigned long long)data_len, file);
        if (st->buf && !st->buf->raw) { CT_FREE(st->buf); st->buf = NULL; }
        ct__st_destroy(st);
        return NULL;
    }
    st->data = (const unsigned char *)(((uintptr_t)st->buf->raw + 63) & ~(uintptr_t)63);
    st->data_len = data_len;
    return st;
}
/* the 8-byte prefix: header length N, checked against the file size */
static int ct__st_prefix(const unsigned char *p, uint64_t len, const char *file, uint64_t *hlen) {
    if (len < 8)
        return ct__failed(CT_ERR_FORMAT, "safetensors: file of %llu bytes is too small to hold the 8-byte header length (%s)", (unsigned long long)len, file);
    *hlen = ct__le64(p);
    if (*hlen > len - 8)
        return ct__failed(CT_ERR_FORMAT, "safetensors: header length %llu exceeds file size %llu (%s)", (unsigned long long)*hlen, (unsigned long long)len, file);
    if (*hlen > CT__ST_MAX_HEADER)
        return ct__failed(CT_ERR_FORMAT, "safetensors: header length %llu is larger than the %llu bytes safetensors allows (%s)",
                          (unsigned long long)*hlen, CT__ST_MAX_HEADER, file);
    return 0;
}
CTENSOR_API ct_safetensors *ct_safetensors_load_mem(const void *data, size_t len, const char *name) {
    const unsigned char *p = (const unsigned char *)data;
    uint64_t hlen = 0;
    if (!name) name = "<memory>";
    if (!p) { ct_set_error(CT_ERR_ARG, "safetensors: data is NULL (%s)", name); return NULL; }
    if (ct__st_prefix(p, len, name, &hlen)) return NULL;
    ct_safetensors *st = ct__st_new(name, len - 8 - hlen);
    if (!st) return NULL;
    if (st->data_len) memcpy((void *)st->data, p + 8 + hlen, (size_t)st->data_len);
    if (ct__st_parse(st, p + 8, hlen)) { ct__st_destroy(st); return NULL; }
    return st;
}
CTENSOR_API int ct_safetensors_count(const ct_safetensors *st) { return st ? st->n : -1; }
CTENSOR_API const char *ct_safetensors_name(const ct_safetensors *st, int i) {
    return st && i >= 0 && i < st->n ? st->t[i].name : NULL;
}
CTENSOR_API int ct_safetensors_metadata_count(const ct_safetensors *st) { return st ? st->nmeta : -1; }
CTENSOR_API const char *ct_safetensors_metadata_key(const ct_safetensors *st, int i) {
    return st && i >= 0 && i < st->nmeta ? st->mkeys[i] : NULL;
}
CTENSOR_API const char *ct_safetensors_metadata(const ct_safetensors *st, const char *key) {
    if (!st || !key) return NULL;
    int lo = 0, hi = st->nmeta - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(st->mkeys[mid], key);
        if (!c) return st->mvals[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
    }
    return NULL;
}
CTENSOR_API int ct_safetensors_info(const ct_safetensors *st, int i, ct_dtype *dtype, int *ndim, int64_t *shape) {
    if (!st) return ct__failed(CT_ERR_ARG, "safetensors_info: handle is NULL");
    if (i < 0 || i >= st->n)
        return ct__failed(CT_ERR_INDEX, "safetensors_info: index %d is out of range for %d tensors (%s)", i, st->n, st->file);
    const ct__st_entry *e = &st->t[i];
    if (dtype) *dtype = e->dtype >= 0 ? (ct_dtype)e->dtype : CT_NUM_DTYPES;
    if (ndim) *ndim = e->ndim;
    if (shape)
        for (int d = 0; d < e->ndim; d++) shape[d] = e->shape[d];
    return 0;
}
CTENSOR_API ct_tensor *ct_safetensors_get(ct_safetensors *st, const char *name) {
    if (!st) return ct__fail(CT_ERR_ARG, "safetensors_get: handle is NULL");
    if (!name) return ct__fail(CT_ERR_ARG, "safetensors_get: name is NULL (%s)", st->file);
    int lo = 0, hi = st->n - 1, at = -1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(st->t[mid].name, name);
        if (!c) { at = mid; break; }
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
    }
    if (at < 0) return ct__fail(CT_ERR_ARG, "safetensors_get: no tensor named '%.200s' (%s)", name, st->file);
    const ct__st_entry *e = &st->t[at];
    if (e->dtype < 0)
        return ct__fail(CT_ERR_DTYPE, "safetensors_get: tensor '%.200s' has dtype %s, which ctensor does not support (%s)",
                        name, ct__st_dtype_str(e->dtype), st->file);
    ct_dtype dt = (ct_dtype)e->dtype;
    size_t es = ct__dt[dt].size, nbytes = (size_t)(e->end - e->begin);
    const unsigned char *src = st->data + e->begin;
    int copy = ((uintptr_t)src % es) != 0 || (es > 1 && !ct__host_le());
    if (dt == CT_BOOL)
        for (size_t k = 0; k < nbytes && !copy; k++) copy = src[k] > 1;
    ct_tensor *x;
    if (copy) {
        x = ct__alloc(dt, e->ndim, e->shape, NULL, ct__cpu_dev);
        if (!x) return NULL;
        unsigned char *dst = (unsigned char *)ct__ptr(x);
        if (nbytes) memcpy(dst, src, nbytes);
        if (es > 1 && !ct__host_le())
            for (size_t k = 0; k < nbytes; k += es)
                for (size_t b = 0; b < es / 2; b++) {
                    unsigned char tb = dst[k + b];
                    dst[k + b] = dst[k + es - 1 - b];
                    dst[k + es - 1 - b] = tb;
                }
        if (dt == CT_BOOL)
            for (size_t k = 0; k < nbytes; k++) dst[k] = dst[k] != 0;
    } else {
        x = ct__header_new();
        if (!x) return NULL;
        CT__ATOMIC_INC(&st->buf->refcount);
        x->storage = ct__storage_borrow((void *)src, (int64_t)nbytes, ct__cpu_dev, ct__stbuf_deleter, st->buf);
        if (!x->storage) { ct__stbuf_decref(st->buf); ct__header_free(x); return NULL; }
        x->dtype = dt;
        x->ndim = e->ndim;
        for (int d = 0; d < e->ndim; d++) x->shape[d] = e->shape[d];
        ct__contig_strides(e->ndim, e->shape, x->strides);
    }
    return ct__own(x);
}

/* ---- writer ---- */
typedef struct ct__dstr { char *p; size_t len, cap; int oom; } ct__dstr;
static void ct__dput(ct__dstr *d, const char *s, size_t n) {
    if (d->oom) return;
    if (d->len + n + 1 > d->cap) {
        size_t nc = d->cap ? d->cap * 2 : 256;
        while (nc < d->len + n + 1) nc *= 2;
        char *q = (char *)CT_REALLOC(d->p, nc);
        if (!q) { d->oom = 1; return; }
        d->p = q;
        d->cap = nc;
    }
    memcpy(d->p + d->len, s, n);
    d->len += n;
    d->p[d->len] = 0;
}
static void ct__dputs(ct__dstr *d, const char *s) { ct__dput(d, s, strlen(s)); }
/* a JSON string as serde_json and Python's json write it (non-ASCII kept) */
static void ct__dput_jstr(ct__dstr *d, const char *s) {
    ct__dput(d, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        switch (*p) {
        case '"': ct__dput(d, "\\\"", 2); break;
        case '\\': ct__dput(d, "\\\\", 2); break;
        case '\b': ct__dput(d, "\\b", 2); break;
        case '\f': ct__dput(d, "\\f", 2); break;
        case '\n': ct__dput(d, "\\n", 2); break;
        case '\r': ct__dput(d, "\\r", 2); break;
        case '\t': ct__dput(d, "\\t", 2); break;
        default:
            if (*p < 0x20) { snprintf(esc, sizeof esc, "\\u%04x", *p); ct__dput(d, esc, 6); }
            else ct__dput(d, (const char *)p, 1);
        }
    }
    ct__dput(d, "\"", 1);
}
/* the reference writer's data order: dtype alignment descending (its Dtype
   enum order, reversed), then name */
static int ct__st_rank(ct_dtype dt) {
    switch (dt) {
    case CT_BOOL: return 0;
    case CT_UINT8: return 1;
    case CT_INT8: return 2;
    case CT_INT16: return 5;
    case CT_FLOAT16: return 7;
    case CT_BFLOAT16: return 8;
    case CT_INT32: return 9;
    case CT_FLOAT32: return 11;
    case CT_FLOAT64: return 12;
    case CT_INT64: return 13;
    default: return 20;
    }
}
typedef struct ct__st_wt { const char *name; const ct_tensor *t; int rank; } ct__st_wt;
static int ct__st_cmp_wt(const void *a, const void *b) {
    const ct__st_wt *x = (const ct__st_wt *)a, *y = (const ct__st_wt *)b;
    if (x->rank != y->rank) return y->rank - x->rank;
    return strcmp(x->name, y->name);
}
static int ct__st_cmp_wt_name(const void *a, const void *b) {
    return strcmp(((const ct__st_wt *)a)->name, ((const ct__st_wt *)b)->name);
}
typedef struct ct__st_ckv { const char *k, *v; } ct__st_ckv;
static int ct__st_cmp_ckv(const void *a, const void *b) { return strcmp(((const ct__st_ckv *)a)->k, ((const ct__st_ckv *)b)->k); }

CTENSOR_API ct_status ct_save_safetensors_mem(int n, const char *const *names, const ct_tensor *const *tensors,
                                              int nmeta, const char *const *meta_keys, const char *const *meta_values,
                                              void **data, size_t *len) {
    const char *api = "save_safetensors";
    if (!data || !len) { ct_set_error(CT_ERR_ARG, "%s: output pointers are NULL", api); return CT_ERR_ARG; }
    *data = NULL;
    *len = 0;
    if (n < 0 || nmeta < 0) { ct_set_error(CT_ERR_ARG, "%s: negative count (%d tensors, %d metadata pairs)", api, n, nmeta); return CT_ERR_ARG; }
    if ((n > 0 && (!names || !tensors)) || (nmeta > 0 && (!meta_keys || !meta_values))) {
        ct_set_error(CT_ERR_ARG, "%s: a names, tensors or metadata array is NULL", api);
        return CT_ERR_ARG;
    }
    for (int i = 0; i < n; i++) {
        if (!tensors[i]) { ct__null_arg(api, i); return ct_last_error_code(); }
        if (!names[i]) { ct_set_error(CT_ERR_ARG, "%s: name %d is NULL", api, i); return CT_ERR_ARG; }
        if (!ct__utf8_valid(names[i])) { ct_set_error(CT_ERR_ARG, "%s: name %d is not valid UTF-8", api, i); return CT_ERR_ARG; }
        if (!strcmp(names[i], "__metadata__")) { ct_set_error(CT_ERR_ARG, "%s: the name '__metadata__' is reserved for metadata", api); return CT_ERR_ARG; }
        const ct_tensor *t = tensors[i];
        if (t->device.type != CT_CPU) { ct_set_error(CT_ERR_DEVICE, "%s: tensor '%.200s' is not on the CPU", api, names[i]); return CT_ERR_DEVICE; }
        if (!ct__dt_ok(t->dtype) || !ct__dt[t->dtype].st[0]) {
            ct_set_error(CT_ERR_DTYPE, "%s: tensor '%.200s' has dtype %s, which safetensors cannot store", api, names[i], ct_dtype_name(t->dtype));
            return CT_ERR_DTYPE;
        }
    }
    for (int i = 0; i < nmeta; i++) {
        if (!meta_keys[i] || !meta_values[i]) { ct_set_error(CT_ERR_ARG, "%s: metadata pair %d has a NULL key or value", api, i); return CT_ERR_ARG; }
        if (!ct__utf8_valid(meta_keys[i]) || !ct__utf8_valid(meta_values[i])) {
            ct_set_error(CT_ERR_ARG, "%s: metadata pair %d is not valid UTF-8", api, i);
            return CT_ERR_ARG;
        }
    }
    ct__st_wt *w = CT__NEW_ARRAY(ct__st_wt, n);
    ct__st_ckv *kv = CT__NEW_ARRAY(ct__st_ckv, nmeta);
    ct__dstr h;
    memset(&h, 0, sizeof h);
    ct_status rc = CT_OK;
    unsigned char *buf = NULL;
    if (!w || !kv) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", api); rc = CT_ERR_MEMORY; goto done; }
    for (int i = 0; i < n; i++) { w[i].name = names[i]; w[i].t = tensors[i]; w[i].rank = ct__st_rank(tensors[i]->dtype); }
    for (int i = 0; i < nmeta; i++) { kv[i].k = meta_keys[i]; kv[i].v = meta_values[i]; }
    if (n > 1) qsort(w, (size_t)n, sizeof(ct__st_wt), ct__st_cmp_wt_name);
    for (int i = 1; i < n; i++)
        if (!strcmp(w[i].name, w[i - 1].name)) { ct_set_error(CT_ERR_ARG, "%s: duplicate tensor name '%.200s'", api, w[i].name); rc = CT_ERR_ARG; goto done; }
    if (nmeta > 1) qsort(kv, (size_t)nmeta, sizeof(ct__st_ckv), ct__st_cmp_ckv);
    for (int i = 1; i < nmeta; i++)
        if (!strcmp(kv[i].k, kv[i - 1].k)) { ct_set_error(CT_ERR_ARG, "%s: duplicate metadata key '%.200s'", api, kv[i].k); rc = CT_ERR_ARG; goto done; }
    if (n > 1) qsort(w, (size_t)n, sizeof(ct__st_wt), ct__st_cmp_wt);
    {
        char num[64];
        uint64_t off = 0;
        ct__dputs(&h, "{");
        if (nmeta > 0) {
            ct__dputs(&h, "\"__metadata__\":{");
            for (int i = 0; i < nmeta; i++) {
                if (i) ct__dputs(&h, ",");
                ct__dput_jstr(&h, kv[i].k);
                ct__dputs(&h, ":");
                ct__dput_jstr(&h, kv[i].v);
            }
            ct__dputs(&h, "}");
        }
        for (int i = 0; i < n; i++) {
            const ct_tensor *t = w[i].t;
            uint64_t nb = (uint64_t)ct_numel(t) * ct__dt[t->dtype].size;
            if (i || nmeta > 0) ct__dputs(&h, ",");
            ct__dput_jstr(&h, w[i].name);
            ct__dputs(&h, ":{\"dtype\":\"");
            ct__dputs(&h, ct__dt[t->dtype].st);
            ct__dputs(&h, "\",\"shape\":[");
            for (int d = 0; d < t->ndim; d++) {
                snprintf(num, sizeof num, d ? ",%lld" : "%lld", (long long)t->shape[d]);
                ct__dputs(&h, num);
            }
            snprintf(num, sizeof num, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)off, (unsigned long long)(off + nb));
            ct__dputs(&h, num);
            off += nb;
        }
        ct__dputs(&h, "}");
        while (h.len % 8) ct__dputs(&h, " ");
        if (h.oom) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", api); rc = CT_ERR_MEMORY; goto done; }
        size_t total = 8 + h.len + (size_t)off;
        buf = (unsigned char *)CT_MALLOC(total ? total : 1);
        if (!buf) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory for %zu bytes", api, total); rc = CT_ERR_MEMORY; goto done; }
        for (int b = 0; b < 8; b++) buf[b] = (unsigned char)(((uint64_t)h.len >> (8 * b)) & 0xff);
        memcpy(buf + 8, h.p, h.len);
        unsigned char *q = buf + 8 + h.len;
        for (int i = 0; i < n; i++) {
            const ct_tensor *t = w[i].t;
            size_t es = ct__dt[t->dtype].size, nb = (size_t)ct_numel(t) * es;
            if (!nb) continue;
            ct_tensor *c = ct__host_ref(t);
            if (!c) { rc = ct_last_error_code(); goto done; }
            memcpy(q, ct__ptr(c), nb);
            ct__decref(c);
            if (es > 1 && !ct__host_le()) {
                if (CT__ISCOMPLEX(t->dtype)) es /= 2;   /* each part on its own */
                for (size_t k = 0; k < nb; k += es)
                    for (size_t b = 0; b < es / 2; b++) {
                        unsigned char tb = q[k + b];
                        q[k + b] = q[k + es - 1 - b];
                        q[k + es - 1 - b] = tb;
                    }
            }
            q += nb;
        }
        *data = buf;
        *len = total;
        buf = NULL;
    }
done:
    CT_FREE(buf);
    CT_FREE(h.p);
    CT_FREE(w);
    CT_FREE(kv);
    return rc;
}

#ifndef CTENSOR_NO_STDIO
CTENSOR_API ct_safetensors *ct_safetensors_load(const char *path) {
    if (!path) { ct_set_error(CT_ERR_ARG, "safetensors_load: path is NULL"); return NULL; }
    FILE *f = fopen(path, "rb");
    if (!f) { ct_set_error(CT_ERR_IO, "safetensors_load: cannot open '%s'", path); return NULL; }
    unsigned char pre[8];
    ct_safetensors *st = NULL;
    unsigned char *hdr = NULL;
    uint64_t hlen = 0;
    long sz = -1;
    if (fseek(f, 0, SEEK_END) == 0) sz = ftell(f);
    if (sz < 0 || fseek(f, 0, SEEK_SET) != 0) { ct_set_error(CT_ERR_IO, "safetensors_load: cannot size '%s'", path); goto fail; }
    if ((uint64_t)sz >= 8 && fread(pre, 1, 8, f) != 8) { ct_set_error(CT_ERR_IO, "safetensors_load: short read on '%s'", path); goto fail; }
    if (ct__st_prefix(pre, (uint64_t)sz, path, &hlen)) goto fail;
    hdr = (unsigned char *)CT_MALLOC((size_t)hlen + 1);
    if (!hdr) { ct_set_error(CT_ERR_MEMORY, "safetensors_load: out of memory for the header of '%s'", path); goto fail; }
    st = ct__st_new(path, (uint64_t)sz - 8 - hlen);
    if (!st) goto fail;
    if ((hlen && fread(hdr, 1, (size_t)hlen, f) != (size_t)hlen) ||
        (st->data_len && fread((void *)st->data, 1, (size_t)st->data_len, f) != (size_t)st->data_len)) {
        ct_set_error(CT_ERR_IO, "safetensors_load: short read on '%s'", path);
        goto fail;
    }
    fclose(f);
    f = NULL;
    if (ct__st_parse(st, hdr, hlen)) goto fail;
    CT_FREE(hdr);
    return st;
fail:
    if (f) fclose(f);
    CT_FREE(hdr);
    ct__st_destroy(st);
    return NULL;
}
CTENSOR_API ct_status ct_save_safetensors_n(const char *path, int n, const char *const *names, const ct_tensor *const *tensors,
                                            int nmeta, const char *const *meta_keys, const char *const *meta_values) {
    if (!path) { ct_set_error(CT_ERR_ARG, "save_safetensors: path is NULL"); return CT_ERR_ARG; }
    void *buf;
    size_t len;
    ct_status st = ct_save_safetensors_mem(n, names, tensors, nmeta, meta_keys, meta_values, &buf, &len);
    if (st != CT_OK) return st;
    st = ct__write_file(path, buf, len, "save_safetensors");
    CT_FREE(buf);
    return st;
}
#endif

/* ============================================================================
   Interop: DLPack
   ========================================================================== */
/* (code, bits) of each ct_dtype (DLDataTypeCode values); code 255: none (quantized) */
static const uint8_t ct__dl_code[CT_NUM_DTYPES][2] = {
    {2, 32}, {2, 64}, {2, 16}, {4, 16}, {0, 64}, {0, 32}, {0, 16}, {0, 8}, {1, 8}, {6, 8},
    {255, 0}, {255, 0}, {255, 0}, {5, 64}, {5, 128}};
/* what an exported tensor owns: its storage reference and its shape and strides */
typedef struct ct__dl_ctx {
    DLManagedTensor legacy;
    DLManagedTensorVersioned versioned;
    ct_storage *storage;
    int64_t shape[CT_MAX_DIMS], strides[CT_MAX_DIMS];
} ct__dl_ctx;
static void ct__dl_ctx_free(void *p) {
    ct__dl_ctx *c = (ct__dl_ctx *)p;
    if (c->storage) ct__storage_decref(c->storage);
    CT_FREE(c);
}
static void ct__dl_del(DLManagedTensor *m) { if (m) ct__dl_ctx_free(m->manager_ctx); }
static void ct__dl_del_v(DLManagedTensorVersioned *m) { if (m) ct__dl_ctx_free(m->manager_ctx); }

static ct__dl_ctx *ct__dl_export(const char *api, const ct_tensor *t) {
    if (!t) { ct__null_arg(api, 0); return NULL; }
    ct__dl_ctx *c = NULL;
    if (ct__dl_code[t->dtype][0] == 255)
        ct__failed(CT_ERR_DTYPE, "%s: dtype %s has no DLPack type code", api, ct__dt[t->dtype].name);
    else if ((t->flags & CT__F_REQUIRES_GRAD) || t->grad_fn)
        ct__failed(CT_ERR_AUTOGRAD, "%s: Can't export tensors that require gradient, use tensor.detach()", api);
    else if (!(c = (ct__dl_ctx *)CT_MALLOC(sizeof(ct__dl_ctx))))
        ct__failed(CT_ERR_MEMORY, "%s: out of memory", api);
    if (!c) return NULL;
    memset(c, 0, sizeof *c);
    DLTensor *d = &c->legacy.dl_tensor;
    d->data = t->storage->data ? (char *)t->storage->data + t->offset * (int64_t)ct__dt[t->dtype].size : NULL;
    d->device.device_type = t->device.type == CT_CUDA ? (DLDeviceType)2 : (DLDeviceType)1;
    d->device.device_id = t->device.index;
    d->ndim = t->ndim;
    d->dtype.code = ct__dl_code[t->dtype][0];
    d->dtype.bits = ct__dl_code[t->dtype][1];
    d->dtype.lanes = 1;
    memcpy(c->shape, t->shape, sizeof c->shape);
    memcpy(c->strides, t->strides, sizeof c->strides);
    d->shape = c->shape;
    d->strides = c->strides;
    d->byte_offset = 0;
    c->versioned.dl_tensor = *d;
    c->legacy.manager_ctx = c->versioned.manager_ctx = c;
    c->storage = t->storage;
    ct__storage_incref(t->storage);
    return c;
}
CTENSOR_API DLManagedTensor *ct_to_dlpack(const ct_tensor *t) {
    ct__dl_ctx *c = ct__dl_export("to_dlpack", t);
    if (!c) return NULL;
    c->legacy.deleter = ct__dl_del;
    return &c->legacy;
}
CTENSOR_API DLManagedTensorVersioned *ct_to_dlpack_versioned(const ct_tensor *t, uint64_t flags) {
    const uint64_t known = DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED;
    if (flags & ~known) {
        ct__failed(CT_ERR_ARG, "to_dlpack_versioned: unknown flags 0x%llx (known: 0x%llx)", (unsigned long long)flags,
                   (unsigned long long)known);
        return NULL;
    }
    ct__dl_ctx *c = ct__dl_export("to_dlpack_versioned", t);
    if (!c) return NULL;
    c->versioned.version.major = 1;
    c->versioned.version.minor = 0;
    c->versioned.flags = flags;
    c->versioned.deleter = ct__dl_del_v;
    return &c->versioned;
}

static void ct__dl_release(void *data, void *m) {
    (void)data;
    DLManagedTensor *x = (DLManagedTensor *)m;
    if (x->deleter) x->deleter(x);
}
static void ct__dl_release_v(void *data, void *m) {
    (void)data;
    DLManagedTensorVersioned *x = (DLManagedTensorVersioned *)m;
    if (x->deleter) x->deleter(x);
}
/* Checks d and wraps its memory; NULL with an error (nothing released) on bad input. */
static ct_tensor *ct__dl_import(const char *api, const DLTensor *d, void (*release)(void *, void *), void *m) {
    static char empty;   /* data of a tensor with no elements, which producers may give as NULL */
    const DLDataType t = d->dtype;
    int dt = 0;
    while (dt < CT_NUM_DTYPES && (ct__dl_code[dt][0] == 255 || ct__dl_code[dt][0] != t.code ||
                                  ct__dl_code[dt][1] != t.bits))
        dt++;
    if (t.lanes != 1) return ct__fail(CT_ERR_DTYPE, "%s: vector dtypes are not supported (lanes %d)", api, (int)t.lanes);
    if (dt == CT_NUM_DTYPES)
        return ct__fail(CT_ERR_DTYPE, "%s: unsupported DLPack dtype (code %d, bits %d)", api, (int)t.code, (int)t.bits);
    int dev = (int)d->device.device_type;
    if (dev != 1 && dev != 2 && dev != 3)
        return ct__fail(CT_ERR_DEVICE, "%s: unsupported device type %d (kDLCPU, kDLCUDA and kDLCUDAHost are)", api, dev);
    if (dev == 2 && d->device.device_id < 0)
        return ct__fail(CT_ERR_DEVICE, "%s: invalid CUDA device id %d", api, (int)d->device.device_id);
    if (ct__check_shape(api, d->ndim, d->shape)) return NULL;
    int64_t esz = (int64_t)ct__dt[dt].size, numel = ct__shape_numel(d->ndim, d->shape), reach = 1;
    for (int i = 0; d->strides && numel && i < d->ndim; i++) {
        int64_t s = d->strides[i], n = d->shape[i] - 1;
        if (s < 0)
            return ct__fail(CT_ERR_UNSUPPORTED, "%s: negative strides are not supported (stride %lld in dim %d)", api,
                            (long long)s, i);
        if (n && s > ((INT64_MAX >> 4) - reach) / n)
            return ct__fail(CT_ERR_ARG, "%s: strides %s overflow the addressable range", api,
                            ct__fmt_shape(d->ndim, d->strides).s);
        reach += n * s;
    }
    if (!d->data && numel) return ct__fail(CT_ERR_ARG, "%s: data pointer is NULL", api);
    if (d->byte_offset > (uint64_t)INT64_MAX || d->byte_offset % (uint64_t)esz)
        return ct__fail(CT_ERR_ARG, "%s: byte_offset %llu is not a multiple of the element size %lld", api,
                        (unsigned long long)d->byte_offset, (long long)esz);
    char *p = d->data ? (char *)d->data + d->byte_offset : &empty;
    ct_tensor *x = ct_from_blob(p, (ct_dtype)dt, d->ndim, d->shape, numel ? d->strides : NULL, release, m);
    if (x && dev == 2) x->device = x->storage->device = ct_cuda(d->device.device_id);
    return x;
}
CTENSOR_API ct_tensor *ct_from_dlpack(DLManagedTensor *m) {
    if (!m) return ct__fail(CT_ERR_ARG, "from_dlpack: the managed tensor is NULL");
    return ct__dl_import("from_dlpack", &m->dl_tensor, ct__dl_release, m);
}
CTENSOR_API ct_tensor *ct_from_dlpack_versioned(DLManagedTensorVersioned *m) {
    if (!m) return ct__fail(CT_ERR_ARG, "from_dlpack_versioned: the managed tensor is NULL");
    if (m->version.major != 1)
        return ct__fail(CT_ERR_UNSUPPORTED, "from_dlpack_versioned: DLPack version %u.%u is not supported (1.x is)",
                        (unsigned)m->version.major, (unsigned)m->version.minor);
    ct_tensor *x = ct__dl_import("from_dlpack_versioned", &m->dl_tensor, ct__dl_release_v, m);
    if (x && (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY)) {   /* copy it: ours are writable; the deleter runs now */
        ct_tensor *y = ct_clone(x);
        if (!y) { x->storage->deleter = NULL; ct_release(x); return NULL; }   /* still the caller's */
        ct_release(x);
        return y;
    }
    return x;
}

/* ============================================================================
   Printing (PyTorch's torch/_tensor_str.py: the same formatter rules)
   ========================================================================== */
static ct_print_options ct__popt = {4, 1000, 3, 80, -1};
CTENSOR_API void ct_set_printoptions(const ct_print_options *o) {
    ct_print_options d = {4, 1000, 3, 80, -1};
    if (!o) { ct__popt = d; return; }
    ct__popt.precision = o->precision > 0 ? o->precision : d.precision;
    ct__popt.threshold = o->threshold > 0 ? o->threshold : d.threshold;
    ct__popt.edgeitems = o->edgeitems > 0 ? o->edgeitems : d.edgeitems;
    ct__popt.linewidth = o->linewidth > 0 ? o->linewidth : d.linewidth;
    ct__popt.sci_mode = o->sci_mode;
}
typedef struct ct__fmt { int floating, is_bool, int_mode, sci_mode, width; } ct__fmt;
static int ct__fmt_value(const ct__fmt *f, double v, char *out, size_t cap) {
    int n;
    int prec = ct__popt.precision;
    if (f->is_bool) n = snprintf(out, cap, "%s", v != 0 ? "True" : "False");
    else if (!f->floating) n = snprintf(out, cap, "%lld", (long long)v);
    else if (isnan(v)) n = snprintf(out, cap, "nan");   /* never "-nan": Python prints every NaN as nan */
    else if (f->sci_mode) n = snprintf(out, cap, "%.*e", prec, v);
    else if (f->int_mode) n = snprintf(out, cap, (isinf(v) || isnan(v)) ? "%.0f" : "%.0f.", v);
    else n = snprintf(out, cap, "%.*f", prec, v);
    return n;
}
/* values shown when summarizing (get_summarized_data), in order */
static void ct__collect(const ct_tensor *t, int dim, int64_t off, int summarize, double *vals, int64_t *nv) {
    int ei = ct__popt.edgeitems;
    if (t->ndim == 0) { vals[(*nv)++] = ct__load_f64((char *)t->storage->data + off * (int64_t)ct__dt[t->dtype].size, t->dtype); return; }
    int64_t n = t->shape[dim];
    for (int64_t i = 0; i < n; i++) {
        if (summarize && n > 2 * ei && i == ei) i = n - ei;
        int64_t o = off + i * t->strides[dim];
        if (dim == t->ndim - 1)
            vals[(*nv)++] = ct__load_f64((char *)t->storage->data + o * (int64_t)ct__dt[t->dtype].size, t->dtype);
        else
            ct__collect(t, dim + 1, o, summarize, vals, nv);
    }
}
/* PyTorch's _Formatter over the values of real tensor v (summarized as printed) */
static void ct__fmt_of(const ct_tensor *v, int summarize, ct__fmt *f) {
    f->floating = CT__ISFLOAT(v->dtype);
    f->is_bool = v->dtype == CT_BOOL;
    f->int_mode = 1;
    f->sci_mode = 0;
    f->width = 1;
    double *vals = CT__NEW_ARRAY(double, ct_numel(v) ? ct_numel(v) : 1);
    int64_t nv = 0;
    if (vals) ct__collect(v, 0, v->offset, summarize, vals, &nv);
    char tmp[64];
    if (!f->floating) {
        for (int64_t i = 0; i < nv; i++) { int l = ct__fmt_value(f, vals[i], tmp, sizeof tmp); if (l > f->width) f->width = l; }
    } else {
        double mn = INFINITY, mx = 0;
        int64_t cnt = 0;
        for (int64_t i = 0; i < nv; i++) {
            double v = vals[i];
            if (!isfinite(v) || v == 0) continue;
            double a = fabs(v);
            if (a < mn) mn = a;
            if (a > mx) mx = a;
            if (v != ceil(v)) f->int_mode = 0;
            cnt++;
        }
        if (cnt) {
            if (f->int_mode) f->sci_mode = mx / mn > 1000.0 || mx > 1e8;
            else f->sci_mode = mx / mn > 1000.0 || mx > 1e8 || mn < 1e-4;
            for (int64_t i = 0; i < nv; i++) {
                double v = vals[i];
                if (!isfinite(v) || v == 0) continue;
                int l;
                if (f->sci_mode) l = snprintf(tmp, sizeof tmp, "%.*e", ct__popt.precision, v);
                else if (f->int_mode) l = snprintf(tmp, sizeof tmp, "%.0f", v) + 1;
                else l = snprintf(tmp, sizeof tmp, "%.*f", ct__popt.precision, v);
                if (l > f->width) f->width = l;
            }
        }
        if (ct__popt.sci_mode >= 0) f->sci_mode = ct__popt.sci_mode;
    }
    CT_FREE(vals);
}
/* one complex element as PyTorch: re padded, then im with its sign, then j */
static void ct__fmt_cx(ct__sbuf *b, const ct__fmt *f, const ct__fmt *f2, const char *p, ct_dtype dt) {
    char tmp[64], t2[72];
    double re, im;
    ct__cx_load(p, dt, &re, &im);
    int len = ct__fmt_value(f, re, tmp, sizeof tmp);
    ct__spad(b, f->width - len);
    ct__sputs(b, tmp);
    len = ct__fmt_value(f2, im, tmp, sizeof tmp);
    if (tmp[0] != '-' && tmp[0] != '+') ct__sputs(b, "+");
    snprintf(t2, sizeof t2, "%sj", tmp);
    ct__sputs(b, t2);
}
static void ct__print_rec(ct__sbuf *b, const ct_tensor *t, int dim, int64_t off, int indent, int summarize, const ct__fmt *f,
                          const ct__fmt *f2) {
    char tmp[64];
    int ei = ct__popt.edgeitems;
    size_t es = ct__dt[t->dtype].size;
    int64_t n = t->shape[dim];
    ct__sputs(b, "[");
    if (dim == t->ndim - 1) {
        int elen = f->width + 2 + (f2 ? f2->width + 1 : 0);
        int per_line = (ct__popt.linewidth - indent) / elen;
        if (per_line < 1) per_line = 1;
        int col = 0;
        for (int64_t i = 0; i < n; i++) {
            if (col > 0) {
                if (col % per_line == 0) { ct__sputs(b, ",\n"); ct__spad(b, indent + 1); }
                else ct__sputs(b, ", ");
            }
            if (summarize && n > 2 * ei && i == ei) {
                ct__sputs(b, " ...");
                col++;
                i = n - ei - 1;
                continue;
            }
            const char *ep = (char *)t->storage->data + (off + i * t->strides[dim]) * (int64_t)es;
            col++;
            if (f2) { ct__fmt_cx(b, f, f2, ep, t->dtype); continue; }
            col--;
            double v = ct__load_f64(ep, t->dtype);
            int len = ct__fmt_value(f, v, tmp, sizeof tmp);
            ct__spad(b, f->width - len);
            ct__sputs(b, tmp);
            col++;
        }
    } else {
        int nl = t->ndim - 1 - dim;
        for (int64_t i = 0; i < n; i++) {
            if (i > 0) {
                ct__sputs(b, ",");
                for (int k = 0; k < nl; k++) ct__sputs(b, "\n");
                ct__spad(b, indent + 1);
            }
            if (summarize && n > 2 * ei && i == ei) {
                ct__sputs(b, "...");
                i = n - ei - 1;
                continue;
            }
            ct__print_rec(b, t, dim + 1, off + i * t->strides[dim], indent + 1, summarize, f, f2);
        }
    }
    ct__sputs(b, "]");
}
/* A quantized tensor's values as PyTorch prints them: a float32 tensor (current
   scope) of (code - zero_point) * scale, per channel in double. */
static ct_tensor *ct__repr_dequant(const ct_tensor *q) {
    ct_tensor *c = ct__contig_ref(q), *y = c ? ct__alloc(CT_FLOAT32, q->ndim, q->shape, NULL, q->device) : NULL;
    if (y) {
        const ct_qparams *p = q->qparams;
        int64_t n = ct_numel(q), inner = 1;
        for (int d = (int)p->axis + 1; p->nchannels && d < q->ndim; d++) inner *= q->shape[d];
        for (int64_t e = 0; e < n; e++) {
            double code = ct__load_f64(ct__ptr(c) + e * (int64_t)ct__dt[q->dtype].size, q->dtype);
            int64_t ch = p->nchannels ? (e / (inner ? inner : 1)) % p->nchannels : 0;
            ((float *)ct__ptr(y))[e] = p->nchannels ? (float)((code - (double)p->zero_points[ch]) * p->scales[ch])
                                                    : (float)(code - (double)p->zero_point) * (float)p->scale;
        }
    }
    ct__decref(c);
    return y ? ct__own(y) : NULL;
}
/* quantization_scheme=torch.per_tensor_affine, scale=0.1, zero_point=3 (per channel:
   the scales and zero points as tensors, and the axis); returns the new count */
static int ct__repr_qparams(const ct_qparams *p, char (*suffix)[200], int nsuf) {
    ct__sb b;
    static const char *const schemes[5] = {"per_tensor_affine", "per_channel_affine", "per_tensor_symmetric",
                                           "per_channel_symmetric", "per_channel_affine_float_qparams"};
    snprintf(suffix[nsuf++], 200, "quantization_scheme=torch.%s", (unsigned)p->qscheme < 5u ? schemes[p->qscheme] : "?");
    if (!p->nchannels) {
        char t[64];
        b.buf = t;
        b.cap = sizeof t;
        b.len = 0;
        t[0] = 0;
        ct__sb_double(&b, p->scale);
        if (b.len && t[b.len - 1] == '.') t[b.len - 1] = 0;   /* Python prints 1.0 as 1.0 and 0.1 as 0.1 */
        snprintf(suffix[nsuf++], 200, "scale=%s%s", t, strchr(t, '.') || strchr(t, 'e') ? "" : ".0");
        snprintf(suffix[nsuf++], 200, "zero_point=%lld", (long long)p->zero_point);
        return nsuf;
    }
    int tok = ct_scope_begin();
    char r[180];   /* longer lists are cut (the suffix holds 200 characters) */
    ct_repr(ct_from_data_n(p->scales, CT_FLOAT64, 1, &p->nchannels), r, sizeof r);
    snprintf(suffix[nsuf++], 200, "scale=%s", r);
    ct_repr(ct_from_data_n(p->zero_points, CT_INT64, 1, &p->nchannels), r, sizeof r);
    snprintf(suffix[nsuf++], 200, "zero_point=%s", r);
    ct_scope_end(tok);
    snprintf(suffix[nsuf++], 200, "axis=%lld", (long long)p->axis);
    return nsuf;
}
CTENSOR_API size_t ct_repr(const ct_tensor *t, char *buf, size_t cap) {
    ct__sbuf b;
    b.buf = buf;
    b.cap = cap;
    b.len = 0;
    if (cap) buf[0] = 0;
    if (!t) { ct__sputs(&b, "NULL"); return b.len; }
    /* A device tensor prints the values of a host copy, made through the dispatcher
       (so by the device's backend, ctensor_cuda.h), with PyTorch's device='cuda:0'. */
    const ct_tensor *v = t;
    int vscope = -1;
    char devsuf[40] = "";
    if (CT__ISREAL(t->dtype) && t->device.type != CT_CPU) {
        char dn[24];
        vscope = ct_scope_begin();
        v = ct_to_device(ct_detach(t), ct__cpu_dev);
        snprintf(devsuf, sizeof devsuf, "device='%s'", ct_device_str(t->device, dn, sizeof dn));
    }
    /* A quantized tensor prints its dequantized values and its parameters, as PyTorch. */
    int quant = CT__DT_QUANT(t->dtype) && t->qparams && t->device.type == CT_CPU;
    if (quant) {
        vscope = ct_scope_begin();
        v = ct__repr_dequant(t);
    }
    if (!v || !(CT__ISREAL(t->dtype) || CT__ISCOMPLEX(t->dtype) || quant) || v->device.type != CT_CPU) {
        char tmp[300], dn[24];
        snprintf(tmp, sizeof tmp, "tensor(<%s %s on %s>)", ct_dtype_name(t->dtype), CT__SHAPE(t), ct_device_str(t->device, dn, sizeof dn));
        ct__sputs(&b, tmp);
        if (vscope >= 0) ct_scope_end(vscope);
        return b.len;
    }
    const int indent = 7;
    int64_t numel = ct_numel(t);
    char suffix[9][200];
    int nsuf = 0;
    int default_dt = t->dtype == ct__default_dtype || t->dtype == CT_INT64 || t->dtype == CT_BOOL ||
                     t->dtype == (ct__default_dtype == CT_FLOAT64 ? CT_COMPLEX128 : CT_COMPLEX64);
    if (quant) {   /* size=(..) first, whatever the shape */
        char *sz = suffix[nsuf++];
        size_t k = (size_t)snprintf(sz, 200, "size=(");
        for (int d = 0; d < t->ndim && k < 200; d++) k += (size_t)snprintf(sz + k, 200 - k, d ? ", %lld" : "%lld", (long long)t->shape[d]);
        if (k < 200) snprintf(sz + k, 200 - k, t->ndim == 1 ? ",)" : ")");
        default_dt = 0;
    }
    ct__sputs(&b, "tensor(");
    size_t line_start = 0;
    if (devsuf[0]) snprintf(suffix[nsuf++], sizeof suffix[0], "%s", devsuf);
    if (numel == 0) {
        if (t->ndim != 1 && !quant) {
            char sz[160];
            size_t k = 0;
            k += (size_t)snprintf(sz + k, sizeof sz - k, "size=(");
            for (int d = 0; d < t->ndim; d++) k += (size_t)snprintf(sz + k, sizeof sz - k, d ? ", %lld" : "%lld", (long long)t->shape[d]);
            snprintf(sz + k, sizeof sz - k, t->ndim == 1 ? ",)" : ")");
            snprintf(suffix[nsuf++], sizeof suffix[0], "%s", sz);
        }
        if (t->dtype != ct__default_dtype) snprintf(suffix[nsuf++], sizeof suffix[0], "dtype=%s", ct__dt[t->dtype].torch_name);
        ct__sputs(&b, "[]");
    } else {
        if (!default_dt) snprintf(suffix[nsuf++], sizeof suffix[0], "dtype=%s", ct__dt[t->dtype].torch_name);
        int summarize = numel > ct__popt.threshold;
        ct__fmt f, f2;
        const ct__fmt *pf2 = NULL;
        if (CT__ISCOMPLEX(v->dtype)) {   /* a formatter for the real parts and one for the imaginary parts */
            int64_t st[CT_MAX_DIMS];
            for (int d = 0; d < v->ndim; d++) st[d] = v->strides[d] * 2;
            ct_tensor *re = ct__view_header(v, v->ndim, v->shape, st, v->offset * 2), *ip = ct__view_header(v, v->ndim, v->shape, st, v->offset * 2 + 1);
            if (re && ip) {
                re->dtype = ip->dtype = ct__cx_part(v->dtype);
                ct__fmt_of(re, summarize, &f);
                ct__fmt_of(ip, summarize, &f2);
                pf2 = &f2;
            } else {
                ct__fmt_of(v, summarize, &f);
            }
            if (re) ct__decref(re);
            if (ip) ct__decref(ip);
        } else {
            ct__fmt_of(v, summarize, &f);
        }
        char tmp[64];
        if (t->ndim == 0 && pf2) {
            ct__fmt_cx(&b, &f, pf2, ct__ptr(v), v->dtype);
        } else if (t->ndim == 0) {
            int l = ct__fmt_value(&f, ct__load_f64(ct__ptr(v), v->dtype), tmp, sizeof tmp);
            ct__spad(&b, f.width - l);
            ct__sputs(&b, tmp);
        } else {
            ct__print_rec(&b, v, 0, v->offset, indent, summarize, &f, pf2);
        }
    }
    if (quant) nsuf = ct__repr_qparams(t->qparams, suffix, nsuf);
    if (t->names) {   /* names=('N', None): PyTorch's suffix */
        size_t o = 0, cap_s = sizeof suffix[0];
        o += (size_t)snprintf(suffix[nsuf], cap_s, "names=(");
        for (int d = 0; d < t->ndim && o < cap_s; d++)
            o += (size_t)snprintf(suffix[nsuf] + o, cap_s - o, t->names[d] ? "%s'%s'%s" : "%sNone%.0s%s", d ? ", " : "",
                                  t->names[d] ? t->names[d] : "", t->ndim == 1 ? "," : "");
        if (o < cap_s) snprintf(suffix[nsuf] + o, cap_s - o, ")");
        nsuf++;
    }
    if (t->grad_fn) snprintf(suffix[nsuf++], sizeof suffix[0], "grad_fn=<%s>", ct__node_name(t->grad_fn));
    else if (t->flags & CT__F_REQUIRES_GRAD) snprintf(suffix[nsuf++], sizeof suffix[0], "requires_grad=True");
    /* suffixes go on the last line when they fit in the line width */
    size_t last_nl = 0;
    int have_nl = 0;
    if (cap) {
        size_t lim = b.len < cap ? b.len : cap - 1;
        for (size_t i = 0; i < lim; i++) if (buf[i] == '\n') { last_nl = i; have_nl = 1; }
    }
    (void)line_start;
    /* PyTorch: len - rfind("\\n") + 1, so a one-line printout counts len + 2 */
    int64_t last_len = have_nl ? (int64_t)(b.len - last_nl) + 1 : (int64_t)b.len + 2;
    for (int k = 0; k < nsuf; k++) {
        int64_t sl = (int64_t)strlen(suffix[k]);
        if (last_len + sl + 2 > ct__popt.linewidth) {
            ct__sputs(&b, ",\n");
            ct__spad(&b, indent);
            ct__sputs(&b, suffix[k]);
            last_len = indent + sl;
        } else {
            ct__sputs(&b, ", ");
            ct__sputs(&b, suffix[k]);
            last_len += sl + 2;
        }
    }
    ct__sputs(&b, ")");
    if (vscope >= 0) ct_scope_end(vscope);
    return b.len;
}
#ifndef CTENSOR_NO_STDIO
CTENSOR_API void ct_fprint(FILE *fp, const ct_tensor *t) {
    char small[4096];
    size_t n = ct_repr(t, small, sizeof small);
    if (n < sizeof small) { fprintf(fp, "%s\n", small); return; }
    char *big = (char *)CT_MALLOC(n + 1);
    if (!big) { fprintf(fp, "%s...\n", small); return; }
    ct_repr(t, big, n + 1);
    fprintf(fp, "%s\n", big);
    CT_FREE(big);
}
CTENSOR_API void ct_print(const ct_tensor *t) { ct_fprint(stdout, t); }
#endif

#ifdef __NVCC__
#  pragma nv_diag_default 550
#endif
#endif /* CTENSOR_IMPLEMENTATION_DONE */
#endif /* CTENSOR_IMPLEMENTATION */
