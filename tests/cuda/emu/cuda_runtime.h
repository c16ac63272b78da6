/* tests/cuda/emu/cuda_runtime.h - the part of the CUDA runtime that
   ctensor_cuda.h uses, emulated on the host, so that its kernels and host code
   run on a machine without a GPU (make cuda-test builds and runs it):
       g++ -std=c++17 -x c++ -D__CUDACC__ -DCTENSOR_CUDA -Itests/cuda/emu -I. -Itests \
           tests/cuda/test_cuda.c -o build/cuda/test_cuda_emu
   This is a test of the logic (indexing, strides, dtype conversions, reduction
   and softmax groups, the allocator, cuBLAS argument mapping, error paths), NOT
   of a GPU: there is no memory model, no data race, no timing. Kernels run
   block after block; the threads of a block are fibers that switch only at
   __syncthreads and warp shuffles, which are emulated as barriers of the block
   and of the warp. On x86-64 a fiber switch is a few instructions (ct_emu_switch
   below: the callee-saved registers and the stack pointer); elsewhere, or with
   -DCT_EMU_UCONTEXT, it is ucontext's swapcontext, which also saves the signal
   mask with a system call per switch (that alone was half the run's time).
   Device memory is GUARDED, as a GPU's is from the host: cudaMalloc returns
   page-aligned mmap'd memory that stays PROT_NONE except while an emulated
   kernel runs, a cudaMemcpy moves data, or the emulated cuBLAS gemm runs. So
   host code that dereferences a device pointer (a CPU loop over a device
   tensor: the crash "dereferencing Unified Memory from the host" on a real
   GPU) dies here with SIGSEGV at the offending line (run it under gdb).
   CT_EMU_GUARD=0 turns the guard off (device memory then stays readable).
   Allocations are registered, so cudaMemcpy also checks that each side of a
   copy is the kind its direction says (a host pointer given as device memory
   aborts the test). CT_EMU_DEVICES (default 1) sets the device count,
   CT_EMU_SMS (default 4) the multiprocessor count that sizes the grids. */
#ifndef CT_EMU_CUDA_RUNTIME_H
#define CT_EMU_CUDA_RUNTIME_H
#include <sys/mman.h>
#include <ucontext.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <functional>
#include <map>
#include <time.h>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static   /* blocks run one after another: a static is per-block memory */

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct ct_emu_uint3 { unsigned x, y, z; };
inline ct_emu_uint3 threadIdx, blockIdx, blockDim, gridDim;

/* ---- fibers: the threads of one block ---- */
#if defined(__x86_64__) && !defined(CT_EMU_UCONTEXT)
#define CT_EMU_ASM_SWITCH 1
/* ct_emu_switch(&save, to): pushes the System V callee-saved registers, stores the
   stack pointer in save, takes `to` as the stack pointer, pops that side's registers
   and returns into it. The floating-point control words are not switched: no kernel
   changes them. (weak: the header may be included by more than one file) */
extern "C" void ct_emu_switch(void **save, void *to);
__asm__(".text\n"
        ".weak ct_emu_switch\n"
        ".type ct_emu_switch, @function\n"
        "ct_emu_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size ct_emu_switch, .-ct_emu_switch\n");
#endif
namespace ct_emu {
enum { READY, WAIT_BLOCK, WAIT_WARP, DONE };
#ifdef CT_EMU_ASM_SWITCH
struct fiber { void *sp; int state; };
inline void *main_sp;
#else
struct fiber { ucontext_t ctx; int state; };
inline ucontext_t main_ctx;
#endif
inline std::vector<fiber> fibers;
inline std::vector<char> stacks;
inline const size_t stack_size = 128 << 10;
inline int current = -1, nthreads = 0;
inline const std::function<void()> *body;
inline unsigned long long slots[1024];   /* warp shuffles */
inline long launches;

#ifdef CT_EMU_ASM_SWITCH
/* a fiber's first switch returns here, on its own stack; it never returns */
inline void fiber_entry() {
    (*body)();
    fibers[(size_t)current].state = DONE;
    void *dead;
    ct_emu_switch(&dead, main_sp);
    abort();
}
/* a new fiber's stack: six zero registers, then fiber_entry as the return address,
   then a zero return address for fiber_entry itself (so it starts, as any function
   does, with the stack pointer 8 past a multiple of 16) */
inline void fiber_init(fiber &fb, char *stack, size_t size) {
    uintptr_t top = ((uintptr_t)(stack + size)) & ~(uintptr_t)15;
    void **sp = (void **)top;
    *--sp = NULL;
    *--sp = (void *)&fiber_entry;
    for (int k = 0; k < 6; k++) *--sp = NULL;
    fb.sp = sp;
}
inline void yield(int state) {
    fibers[(size_t)current].state = state;
    ct_emu_switch(&fibers[(size_t)current].sp, main_sp);
}
#else
inline void trampoline(int t) {
    (*body)();
    fibers[(size_t)t].state = DONE;   /* uc_link resumes the scheduler */
}
inline void yield(int state) {
    fibers[(size_t)current].state = state;
    swapcontext(&fibers[(size_t)current].ctx, &main_ctx);
}
#endif
/* device memory is readable for the life of an `opened` (nested ones count) */
struct opened {
    opened();
    ~opened();
    opened(const opened &) = delete;
    opened &operator=(const opened &) = delete;
};
inline void run_grid(dim3 grid, dim3 block, std::function<void()> f) {
    int n = (int)(block.x * block.y * block.z);
    if (n < 1 || n > 1024 || grid.x < 1 || grid.y < 1 || grid.z < 1) {
        fprintf(stderr, "cuda emulator: invalid launch configuration (%u, %u, %u) x %d\n", grid.x, grid.y, grid.z, n);
        abort();
    }
    launches++;
    gridDim = {grid.x, grid.y, grid.z};
    blockDim = {block.x, block.y, block.z};
    body = &f;
    nthreads = n;
    if ((int)fibers.size() < n) {
        fibers.resize((size_t)n);
        stacks.resize((size_t)n * stack_size);
    }
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                blockIdx = {bx, by, bz};
                for (int t = 0; t < n; t++) {
                    fiber &fb = fibers[(size_t)t];
#ifdef CT_EMU_ASM_SWITCH
                    fiber_init(fb, &stacks[(size_t)t * stack_size], stack_size);
#else
                    getcontext(&fb.ctx);
                    fb.ctx.uc_stack.ss_sp = &stacks[(size_t)t * stack_size];
                    fb.ctx.uc_stack.ss_size = stack_size;
                    fb.ctx.uc_link = &main_ctx;
                    makecontext(&fb.ctx, (void (*)())trampoline, 1, t);
#endif
                    fb.state = READY;
                }
                for (;;) {
                    for (int t = 0; t < n; t++) {
                        if (fibers[(size_t)t].state != READY) continue;
                        current = t;
                        threadIdx = {(unsigned)t % block.x, ((unsigned)t / block.x) % block.y, (unsigned)t / (block.x * block.y)};
#ifdef CT_EMU_ASM_SWITCH
                        ct_emu_switch(&main_sp, fibers[(size_t)t].sp);
#else
                        swapcontext(&main_ctx, &fibers[(size_t)t].ctx);
#endif
                    }
                    current = -1;
                    int alive = 0, released = 0;
                    for (int t = 0; t < n; t++) alive += fibers[(size_t)t].state != DONE;
                    if (!alive) break;
                    for (int w = 0; w < n; w += 32) {   /* a warp whose live lanes all wait at a shuffle */
                        int waiting = 0, live = 0;
                        for (int t = w; t < w + 32 && t < n; t++) {
                            live += fibers[(size_t)t].state != DONE;
                            waiting += fibers[(size_t)t].state == WAIT_WARP;
                        }
                        if (waiting && waiting == live) {
                            for (int t = w; t < w + 32 && t < n; t++)
                                if (fibers[(size_t)t].state == WAIT_WARP) fibers[(size_t)t].state = READY;
                            released = 1;
                        }
                    }
                    if (!released) {   /* the block barrier, when every live thread waits at it */
                        int waiting = 0;
                        for (int t = 0; t < n; t++) waiting += fibers[(size_t)t].state == WAIT_BLOCK;
                        if (waiting == alive) {
                            for (int t = 0; t < n; t++)
                                if (fibers[(size_t)t].state == WAIT_BLOCK) fibers[(size_t)t].state = READY;
                            released = 1;
                        }
                    }
                    if (!released) {
                        fprintf(stderr, "cuda emulator: deadlock in a block (threads wait at different barriers)\n");
                        abort();
                    }
                }
            }
}
inline void launch(dim3 grid, dim3 block, std::function<void()> f) {
    opened open_;   /* (not in run_grid: an object with a destructor beside swapcontext trips -Wclobbered) */
    run_grid(grid, block, std::move(f));
}
}  // namespace ct_emu
#define CT__CU_LAUNCH(grid, block, args, ...) ct_emu::launch(dim3(grid), dim3(block), [&]() { __VA_ARGS__ args; })

inline void __syncthreads() { ct_emu::yield(ct_emu::WAIT_BLOCK); }
template <class T> inline T ct_emu_shfl(T v, int src_lane) {
    int t = ct_emu::current, base = t & ~31;
    memcpy(&ct_emu::slots[t], &v, sizeof(T));
    ct_emu::yield(ct_emu::WAIT_WARP);
    T r = v;
    if (src_lane >= 0 && src_lane < 32 && base + src_lane < ct_emu::nthreads) memcpy(&r, &ct_emu::slots[base + src_lane], sizeof(T));
    ct_emu::yield(ct_emu::WAIT_WARP);   /* every lane has read before the slots are written again */
    return r;
}
template <class T> inline T __shfl_down_sync(unsigned, T v, int delta) {
    int lane = ct_emu::current & 31;
    return ct_emu_shfl(v, lane + delta < 32 ? lane + delta : lane);
}
template <class T> inline T __shfl_sync(unsigned, T v, int src) { return ct_emu_shfl(v, src); }

/* ---- atomics: fibers switch only at barriers, so plain updates are atomic ---- */
inline float atomicAdd(float *p, float v) { float o = *p; *p = o + v; return o; }
inline double atomicAdd(double *p, double v) { double o = *p; *p = o + v; return o; }
inline unsigned atomicAdd(unsigned *p, unsigned v) { unsigned o = *p; *p = o + v; return o; }
inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) { unsigned long long o = *p; *p = o + v; return o; }
inline unsigned atomicCAS(unsigned *p, unsigned cmp, unsigned v) { unsigned o = *p; if (o == cmp) *p = v; return o; }
inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long cmp, unsigned long long v) {
    unsigned long long o = *p;
    if (o == cmp) *p = v;
    return o;
}
inline unsigned long long atomicMin(unsigned long long *p, unsigned long long v) { unsigned long long o = *p; if (v < o) *p = v; return o; }
/* ---- intrinsics ---- */
inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
inline double __longlong_as_double(long long u) { double f; memcpy(&f, &u, 8); return f; }
inline long long __double_as_longlong(double f) { long long u; memcpy(&u, &f, 8); return u; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline float __fmul_rn(float a, float b) { return a * b; }

/* ---- the runtime API ---- */
enum cudaError {
    cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2, cudaErrorNoDevice = 100, cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400, cudaErrorNotReady = 600
};
typedef enum cudaError cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3 };
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16 };
struct cudaDeviceProp { char name[256]; };
typedef void *cudaStream_t;
namespace ct_emu {
inline cudaError_t last_error = cudaSuccess;
inline int cur_device = 0;
inline size_t used = 0;
inline const size_t total = (size_t)8 << 30, cap = (size_t)4 << 30;   /* a cudaMalloc over 4 GiB fails */
inline std::map<const char *, size_t> allocs;                         /* device memory: start -> size */
inline int devices() {
    const char *e = getenv("CT_EMU_DEVICES");
    return e ? atoi(e) : 1;
}
inline cudaError_t fail(cudaError_t e) { last_error = e; return e; }
/* is [p, p + n) inside one device allocation? */
inline bool on_device(const void *p, size_t n) {
    auto it = allocs.upper_bound((const char *)p);
    if (it == allocs.begin()) return false;
    --it;
    return (const char *)p >= it->first && (const char *)p + n <= it->first + it->second;
}
/* the guard: device allocations are whole pages, PROT_NONE unless open */
inline const size_t page = 4096;
inline size_t pages(size_t n) { return n ? (n + page - 1) / page * page : page; }
inline int open_depth = 0;
/* rounded bytes of fresh read-write pages, or NULL. From 2 MiB on (the caching
   allocator's segments) they are 2 MiB aligned and asked to be transparent huge
   pages: the guard's mprotect of a populated 20 MiB segment, on every launch and
   copy, then changes 10 page-table entries instead of 5,120 (most of the run's
   time went there). Without THP (or where the kernel says no) it works as before. */
inline void *map_pages(size_t rounded) {
    const size_t huge = (size_t)2 << 20;
    if (rounded < huge) {
        void *m = mmap(NULL, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return m == MAP_FAILED ? NULL : m;
    }
    size_t span = rounded + huge;
    char *raw = (char *)mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == (char *)MAP_FAILED) return NULL;
    char *al = (char *)(((uintptr_t)raw + huge - 1) & ~(uintptr_t)(huge - 1));
    if (al > raw) munmap(raw, (size_t)(al - raw));
    if (raw + span > al + rounded) munmap(al + rounded, (size_t)(raw + span - (al + rounded)));
#ifdef MADV_HUGEPAGE
    (void)madvise(al, rounded, MADV_HUGEPAGE);
#endif
    return al;
}
inline int guard_on() {
    static const int on = !getenv("CT_EMU_GUARD") || strcmp(getenv("CT_EMU_GUARD"), "0") != 0;
    return on;
}
inline void protect(const void *p, size_t n, bool readable) {
    if (mprotect((void *)p, pages(n), readable ? PROT_READ | PROT_WRITE : PROT_NONE) != 0) {
        perror("cuda emulator: mprotect");
        abort();
    }
}
inline void set_all(bool readable) {
    if (guard_on())
        for (auto &a : allocs) protect(a.first, a.second, readable);
}
inline opened::opened() { if (open_depth++ == 0) set_all(true); }
inline opened::~opened() { if (--open_depth == 0) set_all(false); }
inline void check_side(const void *p, size_t n, bool dev, const char *what) {
    if (n && on_device(p, n) != dev) {
        fprintf(stderr, "cuda emulator: %s: %p (%zu bytes) is %s memory, expected %s memory\n", what, p, n, dev ? "host" : "device",
                dev ? "device" : "host");
        abort();
    }
}
}  // namespace ct_emu
inline const char *cudaGetErrorString(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    default: return "unknown error";
    }
}
inline cudaError_t cudaGetLastError() { cudaError_t e = ct_emu::last_error; ct_emu::last_error = cudaSuccess; return e; }
inline cudaError_t cudaGetDeviceCount(int *n) {
    *n = ct_emu::devices();
    return *n > 0 ? cudaSuccess : ct_emu::fail(cudaErrorNoDevice);
}
inline cudaError_t cudaGetDevice(int *d) {
    if (ct_emu::devices() <= 0) return ct_emu::fail(cudaErrorNoDevice);
    *d = ct_emu::cur_device;
    return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int d) {
    if (d < 0 || d >= ct_emu::devices()) return ct_emu::fail(cudaErrorInvalidDevice);
    ct_emu::cur_device = d;
    return cudaSuccess;
}
/* multiprocessors: 4, or CT_EMU_SMS (132 gives an H100's grids: more blocks, other reduction splits) */
inline cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr, int) {
    const char *e = getenv("CT_EMU_SMS");
    *v = e && atoi(e) > 0 ? atoi(e) : 4;
    return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d) {
    if (d < 0 || d >= ct_emu::devices()) return ct_emu::fail(cudaErrorInvalidDevice);
    snprintf(p->name, sizeof p->name, "ctensor CUDA emulator (host)");
    return cudaSuccess;
}
inline cudaError_t cudaMalloc(void **p, size_t n) {
    if (n > ct_emu::cap || ct_emu::used + n > ct_emu::total) return ct_emu::fail(cudaErrorMemoryAllocation);
    size_t rounded = ct_emu::pages(n);
    void *m = ct_emu::map_pages(rounded);
    if (!m) return ct_emu::fail(cudaErrorMemoryAllocation);
    memset(m, 0xcd, rounded);   /* uninitialized memory is not zero */
    if (ct_emu::guard_on() && ct_emu::open_depth == 0) ct_emu::protect(m, n, false);
    *p = m;
    ct_emu::allocs[(const char *)*p] = n;
    ct_emu::used += n;
    return cudaSuccess;
}
inline cudaError_t cudaFree(void *p) {
    auto it = ct_emu::allocs.find((const char *)p);
    if (it == ct_emu::allocs.end()) {
        fprintf(stderr, "cuda emulator: cudaFree of %p, not a cudaMalloc'd pointer\n", p);
        abort();
    }
    ct_emu::used -= it->second;
    size_t rounded = ct_emu::pages(it->second);
    ct_emu::allocs.erase(it);
    munmap(p, rounded);
    return cudaSuccess;
}
inline cudaError_t cudaMemGetInfo(size_t *f, size_t *t) {
    *t = ct_emu::total;
    *f = ct_emu::total - ct_emu::used;
    return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind k) {
    ct_emu::check_side(d, n, k == cudaMemcpyHostToDevice || k == cudaMemcpyDeviceToDevice, "cudaMemcpy destination");
    ct_emu::check_side(s, n, k == cudaMemcpyDeviceToHost || k == cudaMemcpyDeviceToDevice, "cudaMemcpy source");
    ct_emu::opened open_;
    memmove(d, s, n);
    return cudaSuccess;
}
inline cudaError_t cudaMemset(void *d, int v, size_t n) {
    ct_emu::check_side(d, n, true, "cudaMemset destination");
    ct_emu::opened open_;
    memset(d, v, n);
    return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t) { return cudaMemset(d, v, n); }
inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k, cudaStream_t) { return cudaMemcpy(d, s, n, k); }
inline cudaError_t cudaMemcpyPeer(void *d, int dd, const void *s, int sd, size_t n) {
    if (dd < 0 || dd >= ct_emu::devices() || sd < 0 || sd >= ct_emu::devices()) return ct_emu::fail(cudaErrorInvalidDevice);
    return cudaMemcpy(d, s, n, cudaMemcpyDeviceToDevice);
}
template <class T> inline cudaError_t cudaMemcpyToSymbol(T &sym, const void *src, size_t n) { memcpy((void *)&sym, src, n); return cudaSuccess; }
template <class T> inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &sym, size_t n) { memcpy(dst, (const void *)&sym, n); return cudaSuccess; }
template <class T> inline cudaError_t cudaMemcpyToSymbolAsync(T &sym, const void *src, size_t n, size_t off, cudaMemcpyKind, cudaStream_t) {
    memcpy((char *)&sym + off, src, n);
    return cudaSuccess;
}
template <class T> inline cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &sym, size_t n, size_t off, cudaMemcpyKind, cudaStream_t) {
    memcpy(dst, (const char *)&sym + off, n);
    return cudaSuccess;
}
inline cudaError_t cudaMemcpyPeerAsync(void *d, int dd, const void *s, int sd, size_t n, cudaStream_t) { return cudaMemcpyPeer(d, dd, s, sd, n); }

/* ---- streams and events: work runs when it is queued, so a stream is always
   done and an event has always happened; the objects are checked (a stream or
   event used after its destruction, or on another device, aborts the test) ---- */
enum { cudaStreamDefault = 0, cudaStreamNonBlocking = 1 };
enum { cudaEventDefault = 0, cudaEventBlockingSync = 1, cudaEventDisableTiming = 2 };
enum { cudaHostAllocDefault = 0 };
struct CUevent_st { int device, timing, recorded; double ms; };
typedef CUevent_st *cudaEvent_t;
namespace ct_emu {
struct stream_rec { int device; };
inline std::map<const void *, stream_rec> streams;   /* live streams (the default stream, 0, is not listed) */
inline std::map<const void *, size_t> host_allocs;   /* pinned host memory */
inline long events_live;
inline int stream_device(cudaStream_t s, const char *what) {
    if (!s) return cur_device;
    auto it = streams.find(s);
    if (it == streams.end()) {
        fprintf(stderr, "cuda emulator: %s: %p is not a live stream\n", what, s);
        abort();
    }
    return it->second.device;
}
inline double now_ms() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
}  // namespace ct_emu
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned) {
    char *h = (char *)malloc(1);
    *s = h;
    ct_emu::streams[h] = ct_emu::stream_rec{ct_emu::cur_device};
    return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
    (void)ct_emu::stream_device(s, "cudaStreamDestroy");
    ct_emu::streams.erase(s);
    free(s);
    return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t s) { (void)ct_emu::stream_device(s, "cudaStreamSynchronize"); return cudaSuccess; }
inline cudaError_t cudaStreamQuery(cudaStream_t s) { (void)ct_emu::stream_device(s, "cudaStreamQuery"); return cudaSuccess; }
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags) {
    *e = new CUevent_st{ct_emu::cur_device, !(flags & cudaEventDisableTiming), 0, 0.0};
    ct_emu::events_live++;
    return cudaSuccess;
}
inline cudaError_t cudaEventCreate(cudaEvent_t *e) { return cudaEventCreateWithFlags(e, cudaEventDefault); }
inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
    delete e;
    ct_emu::events_live--;
    return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
    int d = ct_emu::stream_device(s, "cudaEventRecord");
    if (d != e->device || d != ct_emu::cur_device) {   /* CUDA: the event's, the stream's and the current device must agree */
        fprintf(stderr, "cuda emulator: cudaEventRecord: event of device %d, stream of device %d, current device %d\n", e->device, d,
                ct_emu::cur_device);
        abort();
    }
    e->recorded = 1;
    e->ms = ct_emu::now_ms();
    return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventQuery(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t, unsigned) { (void)ct_emu::stream_device(s, "cudaStreamWaitEvent"); return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
    if (!a->timing || !b->timing || !a->recorded || !b->recorded) return ct_emu::fail(cudaErrorInvalidResourceHandle);
    *ms = (float)(b->ms - a->ms);
    return cudaSuccess;
}
inline cudaError_t cudaHostAlloc(void **p, size_t n, unsigned) {
    *p = malloc(n ? n : 1);
    if (!*p) return ct_emu::fail(cudaErrorMemoryAllocation);
    ct_emu::host_allocs[*p] = n;
    return cudaSuccess;
}
inline cudaError_t cudaFreeHost(void *p) {
    if (!ct_emu::host_allocs.erase(p)) {
        fprintf(stderr, "cuda emulator: cudaFreeHost of %p, not a cudaHostAlloc'd pointer\n", p);
        abort();
    }
    free(p);
    return cudaSuccess;
}
#endif
