/* test_cuda.c - ctensor_cuda.h against ctensor's own CPU path.
   Built by nvcc as CUDA (make cuda-test, or tests/cuda/gpu_check.sh):
       nvcc -O2 -x cu -DCTENSOR_CUDA -I. -Itests tests/cuda/test_cuda.c -o build/cuda/test_cuda -lcusolver -lcublas -lcublasLt -llapacke -lopenblas
   Every op runs on the GPU and on the CPU from the same inputs and the results
   (values; gradients for the differentiable ops) are compared: several dtypes,
   broadcasting, non-contiguous inputs. Also: the caching allocator (statistics,
   reuse without cudaMalloc, splitting and merging, empty_cache, the out-of-memory
   message), device errors, printing, and the acceptance test of this slice, an
   MLP training on the GPU step for step with the CPU run (test_mlp_step).
   Without a GPU every test is reported as skipped, with the reason, and the
   program exits 0: "0 passed, 0 failed". */
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"
#ifndef CT_TEST_NO_LINALG   /* (gpu_check.sh on a machine without LAPACKE) */
#include "ctensor_linalg.h"
#endif
#include "ctensor_quant.h"
#include "ctensor_cuda.h"
#ifdef CT_TEST_NCCL   /* ctensor_dist.h's NCCL group (the emulator build with Open MPI) */
#include "ctensor_dist.h"
#endif
#include "ct_test.h"
#ifdef CT_TEST_NCCL   /* its tests: mpirun -np 2 test_cuda_emu --nccl */
#include "../dist/test_dist_nccl.h"
#endif
#include <signal.h>
#if defined(__linux__) || defined(__APPLE__)
#  include <execinfo.h>
#  include <unistd.h>
#  define CT_T_BACKTRACE 1
#endif

static ct_device GPU;

/* ---- comparing a device tensor with a CPU tensor ---- */
/* 1 when d (on the GPU) has c's dtype and shape and its values are within
   atol + rtol * |expected| (NaN matches NaN); else 0 with the reason in msg */
static int same_on_host(const ct_tensor *d, const ct_tensor *c, double rtol, double atol, char *msg, size_t cap) {
    msg[0] = 0;
    if (!d || !c) { snprintf(msg, cap, "NULL result (%.200s)", ct_last_error()); return 0; }
    if (d->device.type != CT_CUDA) { snprintf(msg, cap, "result is not on the GPU"); return 0; }
    if (d->dtype != c->dtype) { snprintf(msg, cap, "dtype %s, expected %s", ct_dtype_name(d->dtype), ct_dtype_name(c->dtype)); return 0; }
    if (!ct_same_shape(d, c)) { snprintf(msg, cap, "shape mismatch (ndim %d vs %d)", d->ndim, c->ndim); return 0; }
    ct_tensor *h = ct_contiguous(ct_to(ct_to_device(d, ct_cpu()), CT_FLOAT64)), *e = ct_contiguous(ct_to(c, CT_FLOAT64));
    if (!h || !e) { snprintf(msg, cap, "copy to the host failed (%.200s)", ct_last_error()); return 0; }
    const double *hp = (const double *)ct_data_ptr(h), *ep = (const double *)ct_data_ptr(e);
    for (int64_t i = 0; i < ct_numel(c); i++) {
        double g = hp[i], x = ep[i];
        if ((isnan(g) && isnan(x)) || g == x || fabs(g - x) <= atol + rtol * fabs(x)) continue;
        snprintf(msg, cap, "element %lld: got %.10g, expected %.10g", (long long)i, g, x);
        return 0;
    }
    return 1;
}
#define CHECK_SAME(d, c, rtol, atol)                                                          \
    do {                                                                                      \
        char m_[320];                                                                         \
        int ok_ = same_on_host((d), (c), (rtol), (atol), m_, sizeof m_);                      \
        CT_T_REPORT(ok_, "%s vs %s: %s", #d, #c, m_);                                         \
    } while (0)
/* the same with a label (which op, which dtype) in the report */
#define CHECK_SAME_AT(label, d, c, rtol, atol)                                                \
    do {                                                                                      \
        char m_[320];                                                                         \
        int ok_ = same_on_host((d), (c), (rtol), (atol), m_, sizeof m_);                      \
        CT_T_REPORT(ok_, "%s: %s", (label), m_);                                              \
    } while (0)
static double rtol_of(ct_dtype dt) {
    switch (dt) {
    case CT_FLOAT64: return 1e-11;
    case CT_FLOAT32: return 2e-5;
    case CT_FLOAT16: return 4e-3;
    case CT_BFLOAT16: return 2e-2;
    default: return 0.0;
    }
}
static double atol_of(ct_dtype dt) {
    switch (dt) {
    case CT_FLOAT64: return 1e-12;
    case CT_FLOAT32: return 1e-6;
    case CT_FLOAT16: return 2e-3;
    case CT_BFLOAT16: return 2e-2;
    default: return 0.0;
    }
}
static ct_tensor *dev(const ct_tensor *t) { return ct_to_device(t, GPU); }
/* float data of a dtype: randn (domain 0), in (0.1, 2.1) (1), in (-0.9, 0.9) (2) */
static ct_tensor *data(ct_dtype dt, int domain, int ndim, const int64_t *shape) {
    ct_tensor *x = domain == 0 ? ct_mul_scalar(ct_randn_n(CT_FLOAT64, ndim, shape), 2.0)
                 : domain == 1 ? ct_add_scalar(ct_mul_scalar(ct_rand_n(CT_FLOAT64, ndim, shape), 2.0), 0.1)
                               : ct_mul_scalar(ct_sub_scalar(ct_rand_n(CT_FLOAT64, ndim, shape), 0.5), 1.8);
    return ct_to(x, dt);
}
static ct_tensor *idata(ct_dtype dt, int64_t lo, int64_t hi, int ndim, const int64_t *shape) {
    return ct_randint_n(lo, hi, dt, ndim, shape, NULL);
}
static const ct_dtype FLOATS[4] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16};

/* ============================================================================ */
TEST(test_device_basics) {
    char name[256];
    CHECK(ct_cuda_is_available());
    CHECK(ct_cuda_device_count() >= 1);
    CHECK(ct_cuda_set_device(0) == CT_OK);
    CHECK_EQ_INT(ct_cuda_current_device(), 0);
    CHECK(ct_cuda_synchronize() == CT_OK);
    CHECK(strlen(ct_cuda_device_name(0, name, sizeof name)) > 0);
    ct_status s = ct_cuda_set_device(ct_cuda_device_count());
    CHECK(s == CT_ERR_DEVICE && strstr(ct_last_error(), "invalid device ordinal"));
    ct_clear_error();
    CHECK_EQ_INT(ct_cuda_current_device(), 0);
    /* ct_cuda_init is harmless to call again */
    ct_cuda_init();
    CHECK(ct_get_device(dev(ct_ones(CT_FLOAT32, 2))).type == CT_CUDA);
}

/* copy_ between the host and the device (PyTorch's copy_ moves data across devices):
   both directions, broadcasting and a dtype change on the way, the gradient back on
   the source's device, and a host state dict loaded into a module on the device */
TEST(test_copy_across_devices) {
    double v[6] = {1, -2, 3.5, 4, 0.25, -6}, r[3] = {7, 8, 9};
    ct_tensor *h = ct_from_data(v, CT_FLOAT64, 2, 3), *row = ct_from_data(r, CT_FLOAT64, 3);
    ct_tensor *d = dev(ct_zeros(CT_FLOAT32, 2, 3));
    CHECK(ct_copy_(d, h) == d && ct_get_device(d).type == CT_CUDA);
    CHECK_SAME_AT("host -> device", d, ct_to(h, CT_FLOAT32), 0.0, 0.0);
    ct_tensor *back = ct_zeros(CT_FLOAT64, 2, 3);
    CHECK(ct_copy_(back, d) == back && ct_get_device(back).type == CT_CPU);
    CHECK_VALUES(back, v, 6, 0);
    CHECK(ct_copy_(d, row) == d);                         /* [3] broadcast into [2, 3] */
    double e[6] = {7, 8, 9, 7, 8, 9};
    CHECK_VALUES(ct_to_device(d, ct_cpu()), e, 6, 0);
    ct_tensor *hv = ct_zeros(CT_FLOAT64, 2, 3);
    CHECK(ct_copy_(ct_transpose(hv, 0, 1), dev(ct_t(h))) != NULL);   /* strided both sides */
    CHECK_VALUES(hv, v, 6, 0);
    /* autograd: d/dsrc sum(w * copy_(dst, src)) = w, on the source's device */
    ct_tensor *src = ct_requires_grad(ct_clone(h));
    ct_tensor *y = ct_copy_(dev(ct_zeros(CT_FLOAT64, 2, 3)), src);
    ct_tensor *w = ct_from_data(r, CT_FLOAT64, 3);
    CHECK(y && ct_backward(ct_sum(ct_mul(y, dev(w)))) == CT_OK);
    ct_tensor *g = ct_grad(src);
    CHECK(g && ct_get_device(g).type == CT_CPU);
    CHECK_VALUES(g, e, 6, 0);
    /* a host state dict into a module on the device */
    ct_manual_seed(3);
    ct_module *cpu = ct_nn_linear(3, 2), *gpu = ct_module_to(ct_nn_linear(3, 2), GPU);
    ct_state_dict sd;
    CHECK(ct_module_state_dict(cpu, &sd) == CT_OK);
    CHECK(ct_module_load_state_dict(gpu, &sd, 1) == CT_OK);
    ct_state_dict_free(&sd);
    ct_tensor *x = ct_randn(CT_FLOAT32, 4, 3);
    ct_tensor *yg = ct_forward(gpu, dev(x));
    CHECK(yg && ct_get_device(yg).type == CT_CUDA);
    CHECK_SAME_AT("linear after load", yg, ct_forward(cpu, x), 1e-6, 1e-6);
    ct_module_free(cpu);
    ct_module_free(gpu);
    /* other ops still refuse mixed devices */
    CHECK_ERR(ct_add(d, ct_zeros(CT_FLOAT32, 2, 3)), CT_ERR_DEVICE, "Expected all tensors to be on the same device");
}

static int blob_freed;
static void blob_free(void *p, void *u) { (void)u; cudaFree(p); blob_freed++; }
TEST(test_from_blob_on_device) {
    /* torch.from_blob(ptr, device='cuda'): device memory the caller owns, borrowed */
    float h[6] = {1, 2, 3, 4, 5, 6}, back[6] = {0};
    void *p = NULL;
    CHECK(cudaMalloc(&p, sizeof h) == cudaSuccess);
    CHECK(cudaMemcpy(p, h, sizeof h, cudaMemcpyHostToDevice) == cudaSuccess);
    blob_freed = 0;
    CT_SCOPE {
        ct_tensor *b = ct_from_blob_on(GPU, p, CT_FLOAT32, 2, CT__INTS(2, 3), NULL, blob_free, NULL);
        CHECK(b && ct_get_device(b).type == CT_CUDA && b->storage->data == p);
        ct_tensor *t = ct_to_device(ct_mul_scalar(ct_transpose(b, 0, 1), 2.0), ct_cpu());
        double e[] = {2, 8, 4, 10, 6, 12};
        CHECK_VALUES(t, e, 6, 0);
        ct_tensor *z = ct_to_device(b, ct_cpu());
        memcpy(back, z->storage->data, sizeof back);
        CHECK(back[5] == 6.0f);
    }
    CHECK_EQ_INT(blob_freed, 1);   /* the deleter ran when the last view went */
}

TEST(test_copy_roundtrip) {
    const ct_dtype all[10] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16, CT_INT64, CT_INT32, CT_INT16, CT_INT8, CT_UINT8, CT_BOOL};
    for (int i = 0; i < 10; i++) {
        ct_dtype dt = all[i];
        ct_tensor *x = CT__ISFLOAT(dt) ? data(dt, 0, CT_DIMS(3, 5)) : idata(dt, dt == CT_BOOL ? 0 : -50, dt == CT_BOOL ? 2 : 50, CT_DIMS(3, 5));
        if (dt == CT_UINT8) x = idata(dt, 0, 250, CT_DIMS(3, 5));
        ct_tensor *d = dev(x);
        CHECK_SAME_AT(ct_dtype_name(dt), d, x, 0.0, 0.0);
        /* every conversion, on the device, against the CPU's */
        for (int j = 0; j < 10; j++) {
            char label[64];
            snprintf(label, sizeof label, "%s -> %s", ct_dtype_name(dt), ct_dtype_name(all[j]));
            CHECK_SAME_AT(label, ct_to(d, all[j]), ct_to(x, all[j]), 0.0, 0.0);                         /* device to device */
            CHECK_SAME_AT(label, ct_to_device_dtype(x, GPU, all[j]), ct_to(x, all[j]), 0.0, 0.0);      /* host to device */
            ct_tensor *back = ct_to_device_dtype(d, ct_cpu(), all[j]);                                  /* device to host */
            CT_T_REPORT(back && back->device.type == CT_CPU && ct_equal(back, ct_to(x, all[j])), "%s (to the host)", label);
        }
    }
    /* special values survive the trip and the conversions */
    double sv[7] = {0.0, -0.0, 1e-30, 65504.0, 1e30, INFINITY, NAN};
    ct_tensor *s = ct_tensor_f64(sv, 7);
    for (int j = 0; j < 4; j++) CHECK_SAME_AT(ct_dtype_name(FLOATS[j]), ct_to(dev(s), FLOATS[j]), ct_to(s, FLOATS[j]), 0.0, 0.0);
    CHECK_SAME(ct_to(dev(s), CT_INT32), ct_to(s, CT_INT32), 0.0, 0.0);
    CHECK_SAME(ct_to(dev(s), CT_BOOL), ct_to(s, CT_BOOL), 0.0, 0.0);
    /* non-contiguous sources: transposed, stepped slice, expanded; each direction */
    ct_tensor *m = data(CT_FLOAT32, 0, CT_DIMS(6, 8));
    ct_tensor *views[3] = {ct_t(m), ct_slice(m, 1, 1, 8, 3), ct_expand(ct_slice(m, 0, 2, 3, 1), 4, 8)};
    for (int v = 0; v < 3; v++) {
        CHECK_SAME(dev(views[v]), views[v], 0.0, 0.0);                              /* host view to device */
        ct_tensor *dm = dev(m);
        ct_tensor *dv = v == 0 ? ct_t(dm) : v == 1 ? ct_slice(dm, 1, 1, 8, 3) : ct_expand(ct_slice(dm, 0, 2, 3, 1), 4, 8);
        CHECK(dv && dv->device.type == CT_CUDA);
        CHECK_SAME(ct_contiguous(dv), views[v], 0.0, 0.0);                          /* device view, made contiguous */
        CHECK_SAME(ct_clone(dv), views[v], 0.0, 0.0);
        CHECK_SAME(ct_to(dv, CT_FLOAT16), ct_to(views[v], CT_FLOAT16), 0.0, 0.0);
        CHECK(ct_equal(ct_to_device(dv, ct_cpu()), views[v]));                      /* device view to host */
    }
    /* a transposed output layout is kept (preserve_format) and read back right */
    ct_tensor *tt = ct_to(ct_t(dev(m)), CT_FLOAT64);
    CHECK(tt && tt->strides[0] == 1);
    CHECK(ct_equal(ct_to_device(tt, ct_cpu()), ct_to(ct_t(m), CT_FLOAT64)));
    /* copy_: device into device with broadcasting, a CPU scalar, a dtype change; into itself */
    ct_tensor *dst = ct_zeros_on(GPU, CT_FLOAT64, 4, 8), *cdst = ct_zeros(CT_FLOAT64, 4, 8);
    ct_tensor *row = data(CT_FLOAT32, 0, CT_DIMS(8));
    CHECK(ct_copy_(dst, dev(row)) && ct_copy_(cdst, row));
    CHECK_SAME(dst, cdst, 0.0, 0.0);
    CHECK(ct_copy_(dst, ct_scalar_tensor(2.5, CT_FLOAT32)) && ct_copy_(cdst, ct_scalar_tensor(2.5, CT_FLOAT32)));
    CHECK_SAME(dst, cdst, 0.0, 0.0);
    ct_tensor *sq = dev(m), *csq = ct_clone(m);
    CHECK(ct_copy_(ct_slice(sq, 0, 0, 3, 1), ct_slice(sq, 0, 3, 6, 1)) && ct_copy_(ct_slice(csq, 0, 0, 3, 1), ct_slice(csq, 0, 3, 6, 1)));
    CHECK_SAME(sq, csq, 0.0, 0.0);
    /* differentiable: the gradient of a copy to the GPU goes back to the host */
    ct_tensor *w = ct_requires_grad(ct_clone(m));
    ct_tensor *y = ct_sum(ct_mul(dev(w), dev(m)));
    CHECK(y && ct_backward(y) == CT_OK);
    CHECK(ct_grad(w) && ct_grad(w)->device.type == CT_CPU && ct_allclose(ct_grad(w), m, 0.0, 0.0) == 1);
    /* and a copy back to the host carries the gradient to the device tensor */
    ct_tensor *wd = ct_requires_grad(ct_detach(dev(m)));
    ct_tensor *z = ct_sum(ct_mul_scalar(ct_to_device(wd, ct_cpu()), 3.0));
    CHECK(z && ct_backward(z) == CT_OK);
    CHECK_SAME(ct_grad(wd), ct_full_like(m, 3.0), 0.0, 0.0);
    /* empty tensors */
    CHECK_SAME(dev(ct_zeros(CT_FLOAT32, 0, 3)), ct_zeros(CT_FLOAT32, 0, 3), 0.0, 0.0);
}

TEST(test_factories) {
    for (int i = 0; i < 4; i++) {
        ct_dtype dt = FLOATS[i];
        CHECK_SAME(ct_zeros_on(GPU, dt, 2, 3), ct_zeros(dt, 2, 3), 0.0, 0.0);
        CHECK_SAME(ct_ones_on(GPU, dt, 4), ct_ones(dt, 4), 0.0, 0.0);
        CHECK_SAME(ct_full_on(GPU, dt, 0.1, 3, 3), ct_full(dt, 0.1, 3, 3), 0.0, 0.0);
        CHECK_SAME(ct_arange_on(GPU, -1.5, 7.25, 0.35, dt), ct_arange(-1.5, 7.25, 0.35, dt), 0.0, 0.0);
        CHECK_SAME(ct_linspace_on(GPU, -3.0, 11.0, 17, dt), ct_linspace(-3.0, 11.0, 17, dt), 0.0, 0.0);
        CHECK_SAME(ct_eye_on(GPU, 3, 5, dt), ct_eye(3, 5, dt), 0.0, 0.0);
        CHECK_SAME(ct_scalar_tensor_on(GPU, 1.0 / 3.0, dt), ct_scalar_tensor(1.0 / 3.0, dt), 0.0, 0.0);
    }
    CHECK_SAME(ct_arange_on(GPU, 3, 100, 7, CT_INT64), ct_arange(3, 100, 7, CT_INT64), 0.0, 0.0);
    CHECK_SAME(ct_arange_on(GPU, 10, -5, -2.5, CT_INT32), ct_arange(10, -5, -2.5, CT_INT32), 0.0, 0.0);
    CHECK_SAME(ct_linspace_on(GPU, 0, 10, 7, CT_INT64), ct_linspace(0, 10, 7, CT_INT64), 0.0, 0.0);
    CHECK_SAME(ct_linspace_on(GPU, 2, 5, 1, CT_FLOAT32), ct_linspace(2, 5, 1, CT_FLOAT32), 0.0, 0.0);
    CHECK_SAME(ct_full_on(GPU, CT_UINT8, 255, 5), ct_full(CT_UINT8, 255, 5), 0.0, 0.0);
    CHECK_SAME(ct_full_on(GPU, CT_BOOL, 1, 5), ct_full(CT_BOOL, 1, 5), 0.0, 0.0);
    CHECK_SAME(ct_eye_on(GPU, 4, -1, CT_BOOL), ct_eye(4, -1, CT_BOOL), 0.0, 0.0);
    CHECK_SAME(ct_zeros_like(ct_ones_on(GPU, CT_INT16, 2, 2)), ct_zeros(CT_INT16, 2, 2), 0.0, 0.0);
    const double v123[3] = {1, 2, 3};
    CHECK_SAME(ct_from_data_on(GPU, v123, CT_FLOAT64, 3), ct_tensor_f64(v123, 3), 0.0, 0.0);
    /* fill_ and zero_ on a strided device view */
    ct_tensor *a = ct_zeros_on(GPU, CT_FLOAT32, 4, 6), *b = ct_zeros(CT_FLOAT32, 4, 6);
    CHECK(ct_fill_(ct_slice(ct_t(a), 0, 1, 6, 2), 7.0) && ct_fill_(ct_slice(ct_t(b), 0, 1, 6, 2), 7.0));
    CHECK_SAME(a, b, 0.0, 0.0);
    CHECK(ct_zero_(a));
    CHECK_SAME(a, ct_zeros(CT_FLOAT32, 4, 6), 0.0, 0.0);
}

TEST(test_printing) {
    const float v[3] = {1, 2, 3};
    const double vd[3] = {1, 2, 3};
    CHECK_REPR(dev(ct_tensor_f32(v, 3)), "tensor([1., 2., 3.], device='cuda:0')");
    CHECK_REPR(dev(ct_tensor_f64(vd, 3)), "tensor([1., 2., 3.], device='cuda:0', dtype=torch.float64)");
    CHECK_REPR(ct_requires_grad(dev(ct_tensor_f32(v, 3))), "tensor([1., 2., 3.], device='cuda:0', requires_grad=True)");
    CHECK_REPR(ct_zeros_on(GPU, CT_FLOAT32, 0, 3), "tensor([], device='cuda:0', size=(0, 3))");
    CHECK_REPR(ct_arange_on(GPU, 0, 4, 1, CT_INT64), "tensor([0, 1, 2, 3], device='cuda:0')");
    ct_tensor *g = ct_mul_scalar(ct_requires_grad(dev(ct_tensor_f32(v, 3))), 2.0);
    CHECK_REPR(g, "tensor([2., 4., 6.], device='cuda:0', grad_fn=<MulBackward0>)");
}

/* ---- elementwise ---- */
typedef ct_tensor *(*un_fn)(const ct_tensor *);
static ct_tensor *u_gelu(const ct_tensor *x) { return ct_gelu(x, "none"); }
static ct_tensor *u_gelu_tanh(const ct_tensor *x) { return ct_gelu(x, "tanh"); }
static ct_tensor *u_leaky_relu(const ct_tensor *x) { return ct_leaky_relu(x, 0.1); }
static ct_tensor *u_elu(const ct_tensor *x) { return ct_elu(x, 0.7); }
static ct_tensor *u_celu(const ct_tensor *x) { return ct_celu(x, 1.3); }
static ct_tensor *u_softplus(const ct_tensor *x) { return ct_softplus(x, 2.0, 3.0); }
static ct_tensor *u_hardtanh(const ct_tensor *x) { return ct_hardtanh(x, -0.5, 1.5); }
static ct_tensor *u_threshold(const ct_tensor *x) { return ct_threshold(x, 0.3, -2.0); }
static ct_tensor *u_clamp(const ct_tensor *x) { return ct_clamp(x, -1.0, 2.0); }
static ct_tensor *u_pow2(const ct_tensor *x) { return ct_pow_scalar(x, 2.0); }
static ct_tensor *u_pow_frac(const ct_tensor *x) { return ct_pow_scalar(x, 1.7); }
static ct_tensor *u_rpow(const ct_tensor *x) { return ct_rpow_scalar(1.5, x); }
static ct_tensor *u_round2(const ct_tensor *x) { return ct_round_decimals(x, 2); }
static ct_tensor *u_nan_to_num(const ct_tensor *x) { return ct_nan_to_num(x, 0.5, 100.0, -100.0); }
typedef struct { const char *name; un_fn fn; int domain, ints, grad; } unary_case;
static const unary_case UNARY[] = {
    {"neg", ct_neg, 0, 1, 1}, {"abs", ct_abs, 0, 1, 1}, {"sign", ct_sign, 0, 1, 1}, {"exp", ct_exp, 0, 0, 1}, {"exp2", ct_exp2, 0, 0, 1},
    {"expm1", ct_expm1, 0, 0, 1}, {"log", ct_log, 1, 0, 1}, {"log2", ct_log2, 1, 0, 1}, {"log10", ct_log10, 1, 0, 1},
    {"log1p", ct_log1p, 1, 0, 1}, {"sqrt", ct_sqrt, 1, 0, 1}, {"rsqrt", ct_rsqrt, 1, 0, 1}, {"reciprocal", ct_reciprocal, 1, 0, 1},
    {"square", ct_square, 0, 1, 1}, {"sin", ct_sin, 0, 0, 1}, {"cos", ct_cos, 0, 0, 1}, {"tan", ct_tan, 2, 0, 1}, {"asin", ct_asin, 2, 0, 1},
    {"acos", ct_acos, 2, 0, 1}, {"atan", ct_atan, 0, 0, 1}, {"sinh", ct_sinh, 0, 0, 1}, {"cosh", ct_cosh, 0, 0, 1}, {"tanh", ct_tanh, 0, 0, 1},
    {"sigmoid", ct_sigmoid, 0, 0, 1}, {"logsigmoid", ct_logsigmoid, 0, 0, 1}, {"relu", ct_relu, 0, 1, 1}, {"relu6", ct_relu6, 0, 1, 1},
    {"selu", ct_selu, 0, 0, 1}, {"silu", ct_silu, 0, 0, 1}, {"mish", ct_mish, 0, 0, 1}, {"hardsigmoid", ct_hardsigmoid, 0, 0, 1},
    {"hardswish", ct_hardswish, 0, 0, 1}, {"erf", ct_erf, 0, 0, 1}, {"erfc", ct_erfc, 0, 0, 1}, {"floor", ct_floor, 0, 1, 1},
    {"ceil", ct_ceil, 0, 1, 1}, {"round", ct_round, 0, 1, 1}, {"trunc", ct_trunc, 0, 1, 1}, {"frac", ct_frac, 0, 0, 1},
    {"gelu", u_gelu, 0, 0, 1}, {"gelu_tanh", u_gelu_tanh, 0, 0, 1}, {"leaky_relu", u_leaky_relu, 0, 0, 1}, {"elu", u_elu, 0, 0, 1},
    {"celu", u_celu, 0, 0, 1}, {"softplus", u_softplus, 0, 0, 1}, {"hardtanh", u_hardtanh, 0, 1, 1}, {"threshold", u_threshold, 0, 1, 1},
    {"clamp", u_clamp, 0, 1, 1}, {"pow2", u_pow2, 0, 1, 1}, {"pow_frac", u_pow_frac, 1, 0, 1}, {"rpow", u_rpow, 0, 0, 1},
    {"round_decimals", u_round2, 0, 0, 0}, {"nan_to_num", u_nan_to_num, 0, 1, 1}, {"bitwise_not", ct_bitwise_not, 0, 2, 0},
};
TEST(test_unary) {
    const int n = (int)(sizeof UNARY / sizeof UNARY[0]);
    for (int k = 0; k < n; k++) {
        const unary_case *u = &UNARY[k];
        char label[96];
        if (u->ints != 2) {
            for (int i = 0; i < 4; i++) {
                ct_dtype dt = FLOATS[i];
                ct_tensor *x = data(dt, u->domain, CT_DIMS(5, 67));   /* odd sizes: the vector kernel's tail */
                snprintf(label, sizeof label, "%s %s", u->name, ct_dtype_name(dt));
                CHECK_SAME_AT(label, u->fn(dev(x)), u->fn(x), rtol_of(dt), atol_of(dt));
                /* a non-contiguous input (the general kernel) */
                snprintf(label, sizeof label, "%s %s transposed", u->name, ct_dtype_name(dt));
                CHECK_SAME_AT(label, u->fn(ct_t(dev(x))), u->fn(ct_t(x)), rtol_of(dt), atol_of(dt));
            }
        }
        if (u->ints) {
            const ct_dtype ints[4] = {CT_INT64, CT_INT32, CT_INT16, CT_UINT8};
            for (int i = 0; i < 4; i++) {
                if (ints[i] == CT_UINT8 && u->fn == u_hardtanh) continue;   /* negative limits: refused for unsigned */
                ct_tensor *x = idata(ints[i], ints[i] == CT_UINT8 ? 0 : -9, 10, CT_DIMS(3, 7));
                snprintf(label, sizeof label, "%s %s", u->name, ct_dtype_name(ints[i]));
                CHECK_SAME_AT(label, u->fn(dev(x)), u->fn(x), 0.0, 0.0);
            }
        }
        /* gradients, float32 and float64, against the CPU's autograd */
        if (u->grad) {
            for (int i = 0; i < 2; i++) {
                ct_dtype dt = FLOATS[i];
                ct_tensor *x = data(dt, u->domain, CT_DIMS(4, 9)), *w = data(dt, 0, CT_DIMS(4, 9));
                ct_tensor *xc = ct_requires_grad(ct_clone(x)), *xg = ct_requires_grad(ct_detach(dev(x)));
                ct_tensor *yc = ct_sum(ct_mul(u->fn(xc), w)), *yg = ct_sum(ct_mul(u->fn(xg), dev(w)));
                int ok = yc && yg && ct_backward(yc) == CT_OK && ct_backward(yg) == CT_OK;
                snprintf(label, sizeof label, "%s grad %s", u->name, ct_dtype_name(dt));
                CT_T_REPORT(ok, "%s: backward failed: %s", label, ct_last_error());
                if (ok) CHECK_SAME_AT(label, ct_grad(xg), ct_grad(xc), rtol_of(dt) * 10, atol_of(dt) * 10);
            }
        }
    }
    /* predicates, over special values */
    double sv[8] = {1.5, -INFINITY, INFINITY, NAN, 0.0, -0.0, -3.0, 1e-40};
    un_fn preds[7] = {ct_isnan, ct_isinf, ct_isfinite, ct_isposinf, ct_isneginf, ct_signbit, ct_logical_not};
    for (int p = 0; p < 7; p++)
        for (int i = 0; i < 4; i++) {
            ct_tensor *x = ct_to(ct_tensor_f64(sv, 8), FLOATS[i]);
            CHECK_SAME(preds[p](dev(x)), preds[p](x), 0.0, 0.0);
        }
    ct_tensor *b = idata(CT_BOOL, 0, 2, CT_DIMS(9));
    CHECK_SAME(ct_bitwise_not(dev(b)), ct_bitwise_not(b), 0.0, 0.0);
    CHECK_SAME(ct_logical_not(dev(b)), ct_logical_not(b), 0.0, 0.0);
    ct_tensor *i8 = idata(CT_INT8, -100, 100, CT_DIMS(9));
    CHECK_SAME(ct_bitwise_not(dev(i8)), ct_bitwise_not(i8), 0.0, 0.0);
    /* in place, and an op the meta refuses (the same error on both) */
    ct_tensor *x = data(CT_FLOAT32, 0, CT_DIMS(10)), *xd = dev(x), *xc = ct_clone(x);
    CHECK(ct_relu_(xd) && ct_relu_(xc));
    CHECK_SAME(xd, xc, 0.0, 0.0);
    CHECK_ERR(ct_neg(dev(b)), CT_ERR_DTYPE, "Negation, the `-` operator, on a bool tensor is not supported");
}

typedef ct_tensor *(*bin_fn)(const ct_tensor *, const ct_tensor *);
static ct_tensor *b_add_alpha(const ct_tensor *a, const ct_tensor *b) { return ct_add_alpha(a, b, 2.0); }
static ct_tensor *b_sub_alpha(const ct_tensor *a, const ct_tensor *b) { return ct_sub_alpha(a, b, 0.5); }
static ct_tensor *b_div_trunc(const ct_tensor *a, const ct_tensor *b) { return ct_div_mode(a, b, "trunc"); }
static ct_tensor *b_div_floor(const ct_tensor *a, const ct_tensor *b) { return ct_div_mode(a, b, "floor"); }
typedef struct { const char *name; bin_fn fn; int ydomain, ints, grad; } binary_case;
static const binary_case BINARY[] = {
    {"add", ct_add, 0, 1, 1}, {"add_alpha", b_add_alpha, 0, 1, 1}, {"sub", ct_sub, 0, 1, 1}, {"sub_alpha", b_sub_alpha, 0, 0, 1},
    {"mul", ct_mul, 0, 1, 1}, {"div", ct_div, 1, 1, 1}, {"div_trunc", b_div_trunc, 1, 1, 0}, {"div_floor", b_div_floor, 1, 1, 0},
    {"remainder", ct_remainder, 1, 1, 1}, {"fmod", ct_fmod, 1, 1, 1}, {"pow", ct_pow, 1, 0, 1}, {"atan2", ct_atan2, 0, 0, 1},
    {"maximum", ct_maximum, 0, 1, 1}, {"minimum", ct_minimum, 0, 1, 1}, {"fmax", ct_fmax, 0, 1, 1}, {"fmin", ct_fmin, 0, 1, 1},
    {"hypot", ct_hypot, 0, 0, 1}, {"copysign", ct_copysign, 0, 0, 1}, {"xlogy", ct_xlogy, 1, 0, 1},
    {"eq", ct_eq, 0, 1, 0}, {"ne", ct_ne, 0, 1, 0}, {"lt", ct_lt, 0, 1, 0}, {"le", ct_le, 0, 1, 0}, {"gt", ct_gt, 0, 1, 0},
    {"ge", ct_ge, 0, 1, 0}, {"logical_and", ct_logical_and, 0, 1, 0}, {"logical_or", ct_logical_or, 0, 1, 0},
    {"logical_xor", ct_logical_xor, 0, 1, 0}, {"bitwise_and", ct_bitwise_and, 0, 2, 0}, {"bitwise_or", ct_bitwise_or, 0, 2, 0},
    {"bitwise_xor", ct_bitwise_xor, 0, 2, 0}, {"bitwise_left_shift", ct_bitwise_left_shift, 0, 2, 0},
    {"bitwise_right_shift", ct_bitwise_right_shift, 0, 2, 0},
};
TEST(test_binary) {
    const int n = (int)(sizeof BINARY / sizeof BINARY[0]);
    for (int k = 0; k < n; k++) {
        const binary_case *o = &BINARY[k];
        char label[96];
        if (o->ints != 2) {
            for (int i = 0; i < 4; i++) {
                ct_dtype dt = FLOATS[i];
                /* broadcasting: [4, 1, 67] with [3, 67]; and the contiguous fast path on [301] */
                ct_tensor *a = data(dt, o->ydomain == 1 && o->fn == ct_pow ? 1 : 0, CT_DIMS(4, 1, 67)), *b = data(dt, o->ydomain, CT_DIMS(3, 67));
                snprintf(label, sizeof label, "%s %s broadcast", o->name, ct_dtype_name(dt));
                CHECK_SAME_AT(label, o->fn(dev(a), dev(b)), o->fn(a, b), rtol_of(dt), atol_of(dt));
                ct_tensor *c = data(dt, o->fn == ct_pow ? 1 : 0, CT_DIMS(301)), *d = data(dt, o->ydomain, CT_DIMS(301));
                snprintf(label, sizeof label, "%s %s", o->name, ct_dtype_name(dt));
                CHECK_SAME_AT(label, o->fn(dev(c), dev(d)), o->fn(c, d), rtol_of(dt), atol_of(dt));
                /* with a scalar (a CPU 0-d tensor) on either side, and a 0-d device tensor */
                ct_tensor *s = ct_scalar_tensor(o->ydomain ? 1.75 : -0.625, CT_FLOAT64);
                snprintf(label, sizeof label, "%s %s scalar", o->name, ct_dtype_name(dt));
                CHECK_SAME_AT(label, o->fn(dev(c), s), o->fn(c, s), rtol_of(dt), atol_of(dt));
                CHECK_SAME_AT(label, o->fn(dev(s), dev(c)), o->fn(s, c), rtol_of(dt), atol_of(dt));
                /* non-contiguous operands */
                ct_tensor *e = data(dt, 0, CT_DIMS(67, 4)), *f = data(dt, o->ydomain, CT_DIMS(4, 67));
                if (o->fn == ct_pow) e = data(dt, 1, CT_DIMS(67, 4));
                snprintf(label, sizeof label, "%s %s transposed", o->name, ct_dtype_name(dt));
                CHECK_SAME_AT(label, o->fn(ct_t(dev(e)), dev(f)), o->fn(ct_t(e), f), rtol_of(dt), atol_of(dt));
            }
        }
        if (o->ints) {
            const ct_dtype ints[5] = {CT_INT64, CT_INT32, CT_INT16, CT_INT8, CT_UINT8};
            for (int i = 0; i < 5; i++) {
                int64_t lo = ints[i] == CT_UINT8 ? 0 : -20;
                ct_tensor *a = idata(ints[i], lo, 20, CT_DIMS(5, 1, 7)), *b = idata(ints[i], o->ydomain ? 1 : lo, 20, CT_DIMS(3, 7));
                if (o->fn == ct_bitwise_left_shift || o->fn == ct_bitwise_right_shift) b = idata(ints[i], 0, 6, CT_DIMS(3, 7));
                snprintf(label, sizeof label, "%s %s", o->name, ct_dtype_name(ints[i]));
                CHECK_SAME_AT(label, o->fn(dev(a), dev(b)), o->fn(a, b), 0.0, 0.0);
            }
            ct_tensor *p = idata(CT_BOOL, 0, 2, CT_DIMS(11)), *q = idata(CT_BOOL, 0, 2, CT_DIMS(11));
            if (o->fn != ct_sub && o->fn != b_div_trunc && o->fn != b_div_floor && o->fn != ct_remainder && o->fn != ct_fmod &&
                o->fn != ct_bitwise_left_shift && o->fn != ct_bitwise_right_shift && o->fn != ct_div) {
                snprintf(label, sizeof label, "%s bool", o->name);
                CHECK_SAME_AT(label, o->fn(dev(p), dev(q)), o->fn(p, q), 0.0, 0.0);
            }
        }
        if (o->grad) {
            for (int i = 0; i < 2; i++) {
                ct_dtype dt = FLOATS[i];
                ct_tensor *a = data(dt, o->fn == ct_pow ? 1 : 0, CT_DIMS(4, 1, 5)), *b = data(dt, o->ydomain, CT_DIMS(3, 5));
                ct_tensor *ac = ct_requires_grad(ct_clone(a)), *bc = ct_requires_grad(ct_clone(b));
                ct_tensor *ag = ct_requires_grad(ct_detach(dev(a))), *bg = ct_requires_grad(ct_detach(dev(b)));
                ct_tensor *w = data(dt, 0, CT_DIMS(4, 3, 5));
                ct_tensor *yc = ct_sum(ct_mul(o->fn(ac, bc), w)), *yg = ct_sum(ct_mul(o->fn(ag, bg), dev(w)));
                int ok = yc && yg && ct_backward(yc) == CT_OK && ct_backward(yg) == CT_OK;
                snprintf(label, sizeof label, "%s grad %s", o->name, ct_dtype_name(dt));
                CT_T_REPORT(ok, "%s: backward failed: %s", label, ct_last_error());
                if (!ok) continue;
                CHECK_SAME_AT(label, ct_grad(ag), ct_grad(ac), rtol_of(dt) * 10, atol_of(dt) * 10);   /* reduced over the broadcast dim */
                CHECK_SAME_AT(label, ct_grad(bg), ct_grad(bc), rtol_of(dt) * 10, atol_of(dt) * 10);
            }
        }
    }
    /* type promotion, as PyTorch's table */
    ct_tensor *i32 = idata(CT_INT32, -5, 5, CT_DIMS(6)), *f16 = data(CT_FLOAT16, 0, CT_DIMS(6)), *u8 = idata(CT_UINT8, 0, 200, CT_DIMS(6));
    ct_tensor *i8 = idata(CT_INT8, -100, 100, CT_DIMS(6)), *bl = idata(CT_BOOL, 0, 2, CT_DIMS(6)), *i64 = idata(CT_INT64, -9, 9, CT_DIMS(6));
    ct_tensor *f32 = data(CT_FLOAT32, 0, CT_DIMS(6)), *f64 = data(CT_FLOAT64, 0, CT_DIMS(6));
    CHECK_SAME(ct_add(dev(i32), dev(f16)), ct_add(i32, f16), 4e-3, 4e-3);
    CHECK_SAME(ct_add(dev(u8), dev(i8)), ct_add(u8, i8), 0.0, 0.0);
    CHECK_SAME(ct_mul(dev(bl), dev(i64)), ct_mul(bl, i64), 0.0, 0.0);
    CHECK_SAME(ct_sub(dev(f32), dev(f64)), ct_sub(f32, f64), 1e-12, 1e-12);
    CHECK_SAME(ct_mul_scalar(dev(i64), 2.5), ct_mul_scalar(i64, 2.5), 1e-6, 1e-6);
    CHECK_SAME(ct_div(dev(i32), dev(i64)), ct_div(i32, i64), 1e-6, 1e-6);
    CHECK_SAME(ct_add(dev(f16), dev(ct_scalar_tensor(1.0 / 3.0, CT_FLOAT64))), ct_add(f16, ct_scalar_tensor(1.0 / 3.0, CT_FLOAT64)), 0.0, 0.0);
    CHECK_SAME(ct_add_scalar(dev(i32), 3e9), ct_add_scalar(i32, 3e9), 0.0, 0.0);   /* wraps to int32, as the CPU */
    CHECK_SAME(ct_rsub_scalar(2.0, dev(u8)), ct_rsub_scalar(2.0, u8), 0.0, 0.0);
    /* in place: the result is cast to self's dtype */
    ct_tensor *x = ct_clone(f32), *xd = dev(f32);
    CHECK(ct_add_(xd, dev(f64)) && ct_add_(x, f64));
    CHECK_SAME(xd, x, 0.0, 0.0);
    CHECK(ct_mul_scalar_(xd, 0.5) && ct_mul_scalar_(x, 0.5));
    CHECK_SAME(xd, x, 0.0, 0.0);
    /* integer division by zero fails as on the CPU */
    ct_tensor *z = ct_zeros(CT_INT64, 6);
    CHECK_ERR(ct_div_mode(dev(i64), dev(z), "trunc"), CT_ERR_ARG, "ZeroDivisionError");
    CHECK_ERR(ct_remainder(dev(i32), dev(ct_zeros(CT_INT32, 6))), CT_ERR_ARG, "ZeroDivisionError");
    CHECK(ct_div_mode(dev(i64), dev(ct_ones(CT_INT64, 6)), "floor") != NULL);   /* the flag was reset */
    /* a large contiguous float32 add: vector path, many blocks */
    ct_tensor *big = data(CT_FLOAT32, 0, CT_DIMS(1 << 20)), *big2 = data(CT_FLOAT32, 0, CT_DIMS(1 << 20));
    CHECK_SAME(ct_add(dev(big), dev(big2)), ct_add(big, big2), 1e-6, 1e-6);
}

TEST(test_ternary) {
    for (int i = 0; i < 4; i++) {
        ct_dtype dt = FLOATS[i];
        double r = rtol_of(dt), a = atol_of(dt);
        ct_tensor *c = idata(CT_BOOL, 0, 2, CT_DIMS(3, 1, 5)), *x = data(dt, 0, CT_DIMS(4, 5)), *y = data(dt, 0, CT_DIMS(3, 4, 5));
        CHECK_SAME(ct_where(dev(c), dev(x), dev(y)), ct_where(c, x, y), r, a);
        CHECK_SAME(ct_where_scalar(dev(c), dev(x), -1.5), ct_where_scalar(c, x, -1.5), r, a);
        ct_tensor *u = idata(CT_UINT8, 0, 3, CT_DIMS(4, 5));
        CHECK_SAME(ct_where(dev(u), dev(x), dev(ct_t(ct_t(x)))), ct_where(u, x, x), r, a);
        CHECK_SAME(ct_masked_fill(dev(y), dev(c), 9.25), ct_masked_fill(y, c, 9.25), r, a);
        ct_tensor *v0 = ct_scalar_tensor(-4.0, dt);
        CHECK_SAME(ct_masked_fill_tensor(dev(y), dev(c), dev(v0)), ct_masked_fill_tensor(y, c, v0), r, a);
        ct_tensor *w = data(dt, 2, CT_DIMS(5));
        CHECK_SAME(ct_lerp(dev(x), dev(y), dev(w)), ct_lerp(x, y, w), r, a);
        CHECK_SAME(ct_lerp_scalar(dev(x), dev(y), 0.75), ct_lerp_scalar(x, y, 0.75), r, a);
        CHECK_SAME(ct_addcmul(dev(x), dev(y), dev(w), 0.5), ct_addcmul(x, y, w, 0.5), r, a);
        ct_tensor *pw = data(dt, 1, CT_DIMS(5));
        CHECK_SAME(ct_addcdiv(dev(x), dev(y), dev(pw), -2.0), ct_addcdiv(x, y, pw, -2.0), r, a);
        ct_tensor *lo = data(dt, 0, CT_DIMS(5)), *hi = ct_add_scalar(lo, 1.0);
        CHECK_SAME(ct_clamp_tensor(dev(y), dev(lo), dev(hi)), ct_clamp_tensor(y, lo, hi), r, a);
        CHECK_SAME(ct_clamp_tensor(dev(y), NULL, dev(hi)), ct_clamp_tensor(y, NULL, hi), r, a);
    }
    ct_tensor *ci = idata(CT_BOOL, 0, 2, CT_DIMS(7)), *xi = idata(CT_INT32, -9, 9, CT_DIMS(7)), *yi = idata(CT_INT64, -9, 9, CT_DIMS(7));
    CHECK_SAME(ct_where(dev(ci), dev(xi), dev(yi)), ct_where(ci, xi, yi), 0.0, 0.0);
    CHECK_SAME(ct_addcmul(dev(yi), dev(xi), dev(yi), 3.0), ct_addcmul(yi, xi, yi, 3.0), 0.0, 0.0);
    /* gradients through where, masked_fill and lerp */
    ct_tensor *c = idata(CT_BOOL, 0, 2, CT_DIMS(3, 4)), *x = data(CT_FLOAT64, 0, CT_DIMS(3, 4)), *y = data(CT_FLOAT64, 0, CT_DIMS(4));
    ct_tensor *xc = ct_requires_grad(ct_clone(x)), *yc = ct_requires_grad(ct_clone(y));
    ct_tensor *xg = ct_requires_grad(ct_detach(dev(x))), *yg = ct_requires_grad(ct_detach(dev(y)));
    ct_tensor *lc = ct_sum(ct_mul(ct_where(c, xc, yc), ct_lerp_scalar(xc, ct_masked_fill(xc, c, 2.0), 0.3)));
    ct_tensor *lg = ct_sum(ct_mul(ct_where(dev(c), xg, yg), ct_lerp_scalar(xg, ct_masked_fill(xg, dev(c), 2.0), 0.3)));
    CHECK(ct_backward(lc) == CT_OK && ct_backward(lg) == CT_OK);
    CHECK_SAME(ct_grad(xg), ct_grad(xc), 1e-11, 1e-12);
    CHECK_SAME(ct_grad(yg), ct_grad(yc), 1e-11, 1e-12);
}

/* ---- reductions ---- */
TEST(test_reductions) {
    const int64_t d0[1] = {0}, d1[1] = {1}, d02[2] = {0, 2}, dm1[1] = {-1};
    for (int i = 0; i < 4; i++) {
        ct_dtype dt = FLOATS[i];
        double r = rtol_of(dt) * 4, a = atol_of(dt) * 8;
        ct_tensor *x = data(dt, 0, CT_DIMS(6, 35, 9));
        ct_tensor *xd = dev(x);
        CHECK_SAME(ct_sum(xd), ct_sum(x), r, a * 10);
        CHECK_SAME(ct_sum_dims(xd, 1, d1, 0), ct_sum_dims(x, 1, d1, 0), r, a);
        CHECK_SAME(ct_sum_dims(xd, 2, d02, 1), ct_sum_dims(x, 2, d02, 1), r, a);
        CHECK_SAME(ct_mean_dims(xd, 1, dm1, 1), ct_mean_dims(x, 1, dm1, 1), r, a);
        CHECK_SAME(ct_mean(xd), ct_mean(x), r, a);
        CHECK_SAME(ct_prod_dim(ct_mul_scalar(xd, 0.5), 0, 0), ct_prod_dim(ct_mul_scalar(x, 0.5), 0, 0), r, a);
        CHECK_SAME(ct_amax(xd, 2, d02, 0), ct_amax(x, 2, d02, 0), 0.0, 0.0);
        CHECK_SAME(ct_amin(xd, 1, d0, 1), ct_amin(x, 1, d0, 1), 0.0, 0.0);
        CHECK_SAME(ct_max(xd), ct_max(x), 0.0, 0.0);
        CHECK_SAME(ct_min(xd), ct_min(x), 0.0, 0.0);
        CHECK_SAME(ct_argmax(xd), ct_argmax(x), 0.0, 0.0);
        CHECK_SAME(ct_argmin_dim(xd, 1, 0), ct_argmin_dim(x, 1, 0), 0.0, 0.0);
        for (int dim = 0; dim < 3; dim++) {
            ct_tensor *ic = NULL, *ig = NULL;
            ct_tensor *vc = ct_max_dim(x, dim, dim == 1, &ic), *vg = ct_max_dim(xd, dim, dim == 1, &ig);
            CHECK_SAME(vg, vc, 0.0, 0.0);
            CHECK_SAME(ig, ic, 0.0, 0.0);
            vc = ct_min_dim(ct_t(ct_select(x, 2, 0)), dim % 2, 0, &ic);   /* a transposed input */
            vg = ct_min_dim(ct_t(ct_select(xd, 2, 0)), dim % 2, 0, &ig);
            CHECK_SAME(vg, vc, 0.0, 0.0);
            CHECK_SAME(ig, ic, 0.0, 0.0);
        }
        /* sums of a transposed view (strided reduced dims) */
        CHECK_SAME(ct_sum_dims(ct_t(ct_select(xd, 2, 3)), 1, d0, 0), ct_sum_dims(ct_t(ct_select(x, 2, 3)), 1, d0, 0), r, a);
    }
    /* ties take the first index; a NaN wins with its first index */
    double tv[8] = {1, 5, 5, 2, NAN, 5, NAN, 0};
    ct_tensor *t = ct_tensor_f64(tv, 8);
    CHECK_SAME(ct_argmax(dev(ct_slice(t, 0, 0, 4, 1))), ct_argmax(ct_slice(t, 0, 0, 4, 1)), 0.0, 0.0);
    CHECK_SAME(ct_argmax(dev(t)), ct_argmax(t), 0.0, 0.0);
    CHECK_SAME(ct_amax(dev(t), 0, NULL, 0), ct_amax(t, 0, NULL, 0), 0.0, 0.0);
    CHECK_SAME(ct_nansum(dev(t), 0, NULL, 0), ct_nansum(t, 0, NULL, 0), 0.0, 0.0);
    /* integers and bool: int64 sums, dtype= */
    ct_tensor *xi = idata(CT_INT32, -100, 100, CT_DIMS(7, 13)), *xb = idata(CT_BOOL, 0, 2, CT_DIMS(7, 13));
    CHECK_SAME(ct_sum(dev(xi)), ct_sum(xi), 0.0, 0.0);
    CHECK_SAME(ct_sum_dims(dev(xb), 1, d1, 0), ct_sum_dims(xb, 1, d1, 0), 0.0, 0.0);
    CHECK_SAME(ct_prod_dim(dev(ct_remainder(xi, ct_scalar_tensor(3, CT_INT32))), 1, 0), ct_prod_dim(ct_remainder(xi, ct_scalar_tensor(3, CT_INT32)), 1, 0), 0.0, 0.0);
    CHECK_SAME(ct_max_dim(dev(xi), 0, 0, NULL), ct_max_dim(xi, 0, 0, NULL), 0.0, 0.0);
    CHECK_SAME(ct_argmax_dim(dev(xb), 1, 1), ct_argmax_dim(xb, 1, 1), 0.0, 0.0);
    ct_tensor *x32 = data(CT_FLOAT32, 0, CT_DIMS(5, 40));
    CHECK_SAME(ct_sum_dtype(dev(x32), 1, d1, 0, CT_FLOAT64), ct_sum_dtype(x32, 1, d1, 0, CT_FLOAT64), 1e-12, 1e-12);
    CHECK_SAME(ct_sum_dtype(dev(x32), 1, d1, 0, CT_FLOAT16), ct_sum_dtype(x32, 1, d1, 0, CT_FLOAT16), 4e-3, 2e-2);
    /* the kernel's shapes: a block per output (K >= 4096), split K (two passes),
       a thread per output over strided elements (sums over dim 0) */
    ct_tensor *big = data(CT_FLOAT64, 0, CT_DIMS(3, 20000));
    CHECK_SAME(ct_sum_dims(dev(big), 1, d1, 0), ct_sum_dims(big, 1, d1, 0), 1e-10, 1e-9);
    ct_tensor *huge = data(CT_FLOAT32, 0, CT_DIMS(1 << 22));
    CHECK_SAME(ct_sum(dev(huge)), ct_sum(huge), 1e-4, 0.5);
    CHECK_SAME(ct_amax(dev(huge), 0, NULL, 0), ct_amax(huge, 0, NULL, 0), 0.0, 0.0);
    CHECK_SAME(ct_argmin(dev(huge)), ct_argmin(huge), 0.0, 0.0);
    ct_tensor *tall = data(CT_FLOAT64, 0, CT_DIMS(5000, 300));
    CHECK_SAME(ct_sum_dims(dev(tall), 1, d0, 0), ct_sum_dims(tall, 1, d0, 0), 1e-10, 1e-9);
    CHECK_SAME(ct_max_dim(dev(tall), 0, 0, NULL), ct_max_dim(tall, 0, 0, NULL), 0.0, 0.0);
    ct_tensor *tall2 = data(CT_FLOAT64, 0, CT_DIMS(100000, 4));
    CHECK_SAME(ct_sum_dims(dev(tall2), 1, d0, 1), ct_sum_dims(tall2, 1, d0, 1), 1e-10, 1e-9);
    /* empty reductions */
    CHECK_SAME(ct_sum(dev(ct_zeros(CT_FLOAT32, 0, 4))), ct_sum(ct_zeros(CT_FLOAT32, 0, 4)), 0.0, 0.0);
    CHECK_SAME(ct_mean_dims(dev(ct_zeros(CT_FLOAT32, 0, 4)), 1, d0, 0), ct_mean_dims(ct_zeros(CT_FLOAT32, 0, 4), 1, d0, 0), 0.0, 0.0);
    CHECK_SAME(ct_prod(dev(ct_zeros(CT_INT64, 0))), ct_prod(ct_zeros(CT_INT64, 0)), 0.0, 0.0);
    /* gradients: sum, mean, amax, max over a dim, prod */
    ct_tensor *g = data(CT_FLOAT64, 0, CT_DIMS(4, 6));
    ct_tensor *gc = ct_requires_grad(ct_clone(g)), *gg = ct_requires_grad(ct_detach(dev(g)));
    ct_tensor *lc = ct_add(ct_add(ct_sum(ct_mul(ct_mean_dims(gc, 1, d0, 0), ct_amax(gc, 1, d0, 0))), ct_sum(ct_max_dim(gc, 1, 0, NULL))),
                           ct_prod(gc));
    ct_tensor *lg = ct_add(ct_add(ct_sum(ct_mul(ct_mean_dims(gg, 1, d0, 0), ct_amax(gg, 1, d0, 0))), ct_sum(ct_max_dim(gg, 1, 0, NULL))),
                           ct_prod(gg));
    CHECK(lc && lg && ct_backward(lc) == CT_OK && ct_backward(lg) == CT_OK);
    CHECK_SAME(ct_grad(gg), ct_grad(gc), 1e-10, 1e-12);
}

TEST(test_softmax) {
    for (int i = 0; i < 4; i++) {
        ct_dtype dt = FLOATS[i];
        double r = rtol_of(dt) * 4, a = atol_of(dt) * 4;
        ct_tensor *x = data(dt, 0, CT_DIMS(7, 33, 5));
        for (int dim = -1; dim < 3; dim++) {
            CHECK_SAME(ct_softmax(dev(x), dim), ct_softmax(x, dim), r, a);
            CHECK_SAME(ct_log_softmax(dev(x), dim), ct_log_softmax(x, dim), r, a * 4);
        }
        ct_tensor *wide = data(dt, 0, CT_DIMS(3, 1500));   /* a block per row */
        CHECK_SAME(ct_softmax(dev(wide), 1), ct_softmax(wide, 1), r, a);
        CHECK_SAME(ct_log_softmax(dev(wide), 1), ct_log_softmax(wide, 1), r, a * 4);
        CHECK_SAME(ct_softmax(ct_t(dev(wide)), 0), ct_softmax(ct_t(wide), 0), r, a);   /* a non-contiguous input */
    }
    double inf_row[4] = {-INFINITY, 0.0, 1.0, -INFINITY};
    ct_tensor *ir = ct_tensor_f32(inf_row, 4);
    CHECK_SAME(ct_softmax(dev(ir), 0), ct_softmax(ir, 0), 1e-6, 1e-7);
    CHECK_SAME(ct_log_softmax(dev(ir), 0), ct_log_softmax(ir, 0), 1e-6, 1e-6);
    /* gradients (the backward ops), rows and columns */
    for (int dim = 0; dim < 2; dim++) {
        ct_tensor *x = data(CT_FLOAT64, 0, CT_DIMS(6, 11)), *w = data(CT_FLOAT64, 0, CT_DIMS(6, 11));
        ct_tensor *xc = ct_requires_grad(ct_clone(x)), *xg = ct_requires_grad(ct_detach(dev(x)));
        ct_tensor *lc = ct_add(ct_sum(ct_mul(ct_softmax(xc, dim), w)), ct_sum(ct_mul(ct_log_softmax(xc, dim), w)));
        ct_tensor *lg = ct_add(ct_sum(ct_mul(ct_softmax(xg, dim), dev(w))), ct_sum(ct_mul(ct_log_softmax(xg, dim), dev(w))));
        CHECK(lc && lg && ct_backward(lc) == CT_OK && ct_backward(lg) == CT_OK);
        CHECK_SAME(ct_grad(xg), ct_grad(xc), 1e-10, 1e-12);
    }
}

TEST(test_gather_scatter) {
    ct_tensor *x = data(CT_FLOAT32, 0, CT_DIMS(4, 6));
    int64_t iv[8] = {0, 5, 2, 2, 1, 0, 3, 4};
    ct_tensor *idx = ct_reshape(ct_tensor_i64(iv, 8), 4, 2);
    CHECK_SAME(ct_gather(dev(x), 1, dev(idx)), ct_gather(x, 1, idx), 0.0, 0.0);
    int64_t iv0[6] = {3, 0, 1, 2, 2, 1};
    ct_tensor *idx0 = ct_reshape(ct_tensor_i64(iv0, 6), 2, 3);
    CHECK_SAME(ct_gather(dev(x), 0, dev(idx0)), ct_gather(x, 0, idx0), 0.0, 0.0);
    CHECK_SAME(ct_gather(ct_t(dev(x)), 1, dev(idx0)), ct_gather(ct_t(x), 1, idx0), 0.0, 0.0);   /* a strided source */
    /* scatter (src, value) and scatter_add with duplicate indices, several dtypes */
    const ct_dtype dts[6] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16, CT_INT64, CT_INT16};
    for (int i = 0; i < 6; i++) {
        ct_dtype dt = dts[i];
        ct_tensor *base = CT__ISFLOAT(dt) ? data(dt, 0, CT_DIMS(4, 6)) : idata(dt, -50, 50, CT_DIMS(4, 6));
        ct_tensor *src = CT__ISFLOAT(dt) ? data(dt, 0, CT_DIMS(4, 2)) : idata(dt, -50, 50, CT_DIMS(4, 2));
        CHECK_SAME_AT(ct_dtype_name(dt), ct_scatter_add(dev(base), 1, dev(idx), dev(src)), ct_scatter_add(base, 1, idx, src), rtol_of(dt), atol_of(dt));
        CHECK_SAME_AT(ct_dtype_name(dt), ct_scatter_value(dev(base), 1, dev(idx), -7.0), ct_scatter_value(base, 1, idx, -7.0), 0.0, 0.0);
        int64_t uv[8] = {0, 5, 2, 3, 1, 0, 3, 4};   /* no duplicates in a row: scatter's result is defined */
        ct_tensor *uidx = ct_reshape(ct_tensor_i64(uv, 8), 4, 2);
        CHECK_SAME_AT(ct_dtype_name(dt), ct_scatter(dev(base), 1, dev(uidx), dev(src)), ct_scatter(base, 1, uidx, src), 0.0, 0.0);
    }
    /* many duplicates: every add lands */
    ct_tensor *acc = ct_zeros_on(GPU, CT_FLOAT32, 3), *ones = ct_ones_on(GPU, CT_FLOAT32, 30000);
    ct_tensor *ix = ct_remainder(ct_arange_on(GPU, 0, 30000, 1, CT_INT64), ct_scalar_tensor(3, CT_INT64));
    ct_tensor *sum = ct_scatter_add(acc, 0, ix, ones);
    CHECK_SAME(sum, ct_full(CT_FLOAT32, 10000.0, 3), 0.0, 0.0);
    ct_tensor *accb = ct_zeros_on(GPU, CT_UINT8, 3), *onesb = ct_ones_on(GPU, CT_UINT8, 600);
    ct_tensor *ixb = ct_remainder(ct_arange_on(GPU, 0, 600, 1, CT_INT64), ct_scalar_tensor(3, CT_INT64));
    CHECK_SAME(ct_scatter_add(accb, 0, ixb, onesb), ct_full(CT_UINT8, 200.0, 3), 0.0, 0.0);   /* 8-bit adds through compare-and-swap */
    /* CPU 0-d tensors (they may join GPU tensors) as the index and the source: copied to the device */
    ct_tensor *v5 = data(CT_FLOAT32, 0, CT_DIMS(5)), *i0 = ct_scalar_tensor(3, CT_INT64), *s0 = ct_scalar_tensor(2.5, CT_FLOAT32);
    CHECK_SAME(ct_gather(dev(v5), 0, i0), ct_gather(v5, 0, i0), 0.0, 0.0);
    CHECK_SAME(ct_scatter_add(dev(v5), 0, i0, s0), ct_scatter_add(v5, 0, i0, s0), 1e-6, 1e-6);
    CHECK_SAME(ct_scatter(dev(v5), 0, i0, s0), ct_scatter(v5, 0, i0, s0), 0.0, 0.0);
    /* in place, and a bad index */
    ct_tensor *y = dev(x), *yc = ct_clone(x);
    CHECK(ct_scatter_add_(y, 1, dev(idx), dev(ct_ones(CT_FLOAT32, 4, 2))) && ct_scatter_add_(yc, 1, idx, ct_ones(CT_FLOAT32, 4, 2)));
    CHECK_SAME(y, yc, 0.0, 0.0);
    int64_t bad[2] = {1, 7};
    CHECK_ERR(ct_gather(dev(x), 1, dev(ct_reshape(ct_tensor_i64(bad, 2), 1, 2))), CT_ERR_INDEX, "gather: index 7 is out of bounds for dimension 1 with size 6");
    CHECK_ERR(ct_scatter_add(dev(x), 1, dev(ct_reshape(ct_tensor_i64(bad, 2), 1, 2)), dev(ct_ones(CT_FLOAT32, 1, 2))), CT_ERR_INDEX,
              "index 7 is out of bounds for dimension 1 with size 6");
    CHECK(ct_gather(dev(x), 1, dev(idx)) != NULL);   /* the error record was reset */
    /* the gradient of gather is a scatter_add on the device */
    ct_tensor *xc = ct_requires_grad(ct_clone(x)), *xg = ct_requires_grad(ct_detach(dev(x)));
    ct_tensor *lc = ct_sum(ct_mul(ct_gather(xc, 1, idx), ct_gather(xc, 1, idx)));
    ct_tensor *lg = ct_sum(ct_mul(ct_gather(xg, 1, dev(idx)), ct_gather(xg, 1, dev(idx))));
    CHECK(lc && lg && ct_backward(lc) == CT_OK && ct_backward(lg) == CT_OK);
    CHECK_SAME(ct_grad(xg), ct_grad(xc), 1e-6, 1e-6);
}

/* ---- random numbers, scans, var/std, sorting, indexing (the i15-rng section) ---- */
/* a device tensor's values on the host as float64 */
static ct_tensor *host64(const ct_tensor *d) { return ct_to(ct_to_device(d, ct_cpu()), CT_FLOAT64); }
static double hmean(const ct_tensor *d) { return ct_item(ct_mean(host64(d))); }
static double hvar(const ct_tensor *d) { return ct_item(ct_var(host64(d))); }
static double hmin(const ct_tensor *d) { return ct_item(ct_min(host64(d))); }
static double hmax(const ct_tensor *d) { return ct_item(ct_max(host64(d))); }
/* the device call fails with the CPU call's error (code and message) */
#define CHECK_SAME_ERR(dexpr, cexpr)                                                                              \
    do {                                                                                                          \
        char ce_[2048];                                                                                          \
        ct_clear_error();                                                                                         \
        ct_tensor *c_ = (cexpr);                                                                                  \
        ct_status cc_ = ct_last_error_code();                                                                     \
        snprintf(ce_, sizeof ce_, "%s", ct_last_error());                                                         \
        ct_clear_error();                                                                                         \
        ct_tensor *d_ = (dexpr);                                                                                  \
        CT_T_REPORT(!c_ && !d_ && cc_ != CT_OK && ct_last_error_code() == cc_ && strcmp(ct_last_error(), ce_) == 0, \
                    "%s: device error \"%s\", CPU error \"%s\"", #dexpr, ct_last_error(), ce_);                   \
        ct_clear_error();                                                                                         \
    } while (0)

TEST(test_random) {
    /* Philox4x32-10 against Random123's known answer (counter 0, key 0) */
    uint32_t w[4] = {0, 0, 0, 0};
    ct__cu_dev::ct__philox(w, 0, 0);
    CHECK(w[0] == 0x6627e8d5u && w[1] == 0xe169c58du && w[2] == 0xbc57ac4cu && w[3] == 0x9b00dbd8u);
    /* the counter layout: element i of a call is Philox((i, offset), seed), whatever the grid */
    ct_manual_seed(11);
    ct_tensor *u0 = ct_rand_on(GPU, CT_FLOAT32, 70000), *u1 = ct_rand_on(GPU, CT_FLOAT32, 70000);
    ct_tensor *h0 = ct_to_device(u0, ct_cpu()), *h1 = ct_to_device(u1, ct_cpu());
    const int64_t at[5] = {0, 1, 255, 256, 69999};
    for (int k = 0; h0 && h1 && k < 5; k++)
        for (uint32_t off = 0; off < 2; off++) {
            uint32_t c4[4] = {(uint32_t)at[k], 0, off, 0};
            ct__cu_dev::ct__philox(c4, 11, 0);
            float want = (float)(c4[0] >> 8) * (1.0f / 16777216.0f);
            CHECK(((const float *)ct_data_ptr(off ? h1 : h0))[at[k]] == want);
        }
    /* determinism under a seed, from ct_manual_seed and from ct_cuda_manual_seed_all; two calls differ */
    ct_manual_seed(7);
    ct_tensor *a = ct_rand_on(GPU, CT_FLOAT32, 1000), *a2 = ct_rand_on(GPU, CT_FLOAT32, 1000);
    ct_manual_seed(7);
    ct_tensor *b = ct_rand_on(GPU, CT_FLOAT32, 1000);
    CHECK(ct_equal(a, b) == 1);
    CHECK(ct_equal(a, a2) == 0);
    ct_cuda_manual_seed_all(7);
    CHECK(ct_equal(ct_rand_on(GPU, CT_FLOAT32, 1000), a) == 1);
    CHECK(ct_cuda_manual_seed(7) == CT_OK && ct_equal(ct_rand_on(GPU, CT_FLOAT32, 1000), a) == 1);
    ct_manual_seed(8);
    CHECK(ct_equal(ct_rand_on(GPU, CT_FLOAT32, 1000), a) == 0);
    /* values go by C-order position, whatever the strides: a transposed view gets a contiguous tensor's values */
    ct_manual_seed(9);
    ct_tensor *v = ct_t(ct_empty_on(GPU, CT_FLOAT64, 30, 40));
    CHECK(ct_normal_(v, 0.0, 1.0, NULL) == v);
    ct_manual_seed(9);
    ct_tensor *vc = ct_randn_on(GPU, CT_FLOAT64, 40, 30);
    CHECK(ct_equal(ct_contiguous(v), vc) == 1);
    /* moments on 1M samples (5 sigma or more) */
    const int64_t N = 1 << 20;
    for (int i = 0; i < 4; i++) {
        ct_dtype dt = FLOATS[i];
        double q = dt == CT_FLOAT32 || dt == CT_FLOAT64 ? 1.0 : 4.0;   /* half precision rounds the values */
        ct_tensor *u = ct_rand_on(GPU, dt, N), *n = ct_randn_on(GPU, dt, N);
        CHECK(u && n && u->dtype == dt && u->device.type == CT_CUDA);
        CHECK(hmin(u) >= 0.0 && hmax(u) <= 1.0 && (dt != CT_FLOAT32 && dt != CT_FLOAT64 ? 1 : hmax(u) < 1.0));
        CHECK_CLOSE(hmean(u), 0.5, 2e-3 * q);
        CHECK_CLOSE(hvar(u), 1.0 / 12.0, 1e-3 * q);
        CHECK_CLOSE(hmean(n), 0.0, 5e-3 * q);
        CHECK_CLOSE(hvar(n), 1.0, 1e-2 * q);
    }
    ct_tensor *nm = ct_normal_(ct_empty_on(GPU, CT_FLOAT32, N), 3.0, 2.0, NULL);
    CHECK_CLOSE(hmean(nm), 3.0, 1e-2);
    CHECK_CLOSE(sqrt(hvar(nm)), 2.0, 1e-2);
    ct_tensor *un = ct_uniform_(ct_empty_on(GPU, CT_FLOAT64, N), -2.0, 5.0, NULL);
    CHECK(hmin(un) >= -2.0 && hmax(un) < 5.0);
    CHECK_CLOSE(hmean(un), 1.5, 2e-2);
    ct_tensor *ex = ct_exponential_(ct_empty_on(GPU, CT_FLOAT32, N), 2.0, NULL);
    CHECK(hmin(ex) >= 0.0);
    CHECK_CLOSE(hmean(ex), 0.5, 5e-3);
    /* integers: randint_like (several dtypes), random_ over the dtype's range, a 64-bit range */
    const ct_dtype idt[4] = {CT_INT64, CT_INT32, CT_FLOAT32, CT_INT8};
    for (int i = 0; i < 4; i++) {
        ct_tensor *r = ct_randint_like(ct_empty_on(GPU, idt[i], N), 3, 10, NULL);
        CHECK(r && r->dtype == idt[i] && r->device.type == CT_CUDA);
        CHECK(hmin(r) == 3.0 && hmax(r) == 9.0);
        CHECK_CLOSE(hmean(r), 6.0, 2e-2);
    }
    ct_tensor *ru = ct_random_(ct_empty_on(GPU, CT_UINT8, N), NULL);
    CHECK(hmin(ru) == 0.0 && hmax(ru) == 255.0);
    CHECK_CLOSE(hmean(ru), 127.5, 0.5);
    ct_tensor *rb = ct_random_(ct_empty_on(GPU, CT_BOOL, N), NULL);
    CHECK_CLOSE(hmean(rb), 0.5, 3e-3);
    ct_tensor *rw = ct_random_range_(ct_empty_on(GPU, CT_INT64, N), 0, (int64_t)1 << 40, NULL);
    CHECK(hmin(rw) >= 0.0 && hmax(rw) < 1099511627776.0 && hmax(rw) > 1099511627776.0 * 0.99);
    CHECK_CLOSE(hmean(rw) / 1099511627776.0, 0.5, 3e-3);
    /* bernoulli: a scalar p, a tensor p (broadcast), dropout */
    ct_tensor *be = ct_bernoulli_scalar_(ct_empty_on(GPU, CT_FLOAT32, N), 0.3, NULL);
    CHECK(hmin(be) == 0.0 && hmax(be) == 1.0);
    CHECK_CLOSE(hmean(be), 0.3, 3e-3);
    double pv[2] = {0.2, 0.9};
    ct_tensor *pt = dev(ct_tensor_f64(pv, 2));
    for (int i = 0; i < 2; i++) {
        ct_tensor *bt = ct_bernoulli_(ct_empty_on(GPU, i ? CT_FLOAT16 : CT_INT32, N / 2, 2), ct_to(pt, i ? CT_FLOAT32 : CT_FLOAT64), NULL);
        CHECK(bt != NULL);
        if (!bt) continue;
        CHECK_CLOSE(hmean(ct_select(bt, 1, 0)), 0.2, 4e-3);
        CHECK_CLOSE(hmean(ct_select(bt, 1, 1)), 0.9, 4e-3);
    }
    CHECK_CLOSE(hmean(ct_bernoulli(ct_full_on(GPU, CT_FLOAT64, 0.7, N), NULL)), 0.7, 3e-3);
    ct_tensor *ones = ct_requires_grad(ct_ones_on(GPU, CT_FLOAT32, N));
    ct_tensor *y = ct_dropout(ones, 0.25, 1);
    CHECK(y && y->device.type == CT_CUDA);
    CHECK_CLOSE(hmean(ct_eq_scalar(y, 0.0)), 0.25, 3e-3);
    CHECK_CLOSE(hmax(y), 1.0 / 0.75, 1e-6);
    CHECK(ct_backward(ct_sum(y)) == CT_OK);
    CHECK(ct_equal(ct_grad(ones), ct_detach(y)) == 1);   /* d(x * mask / 0.75)/dx */
    /* bad inputs: named errors, nothing crashes */
    ct_generator g;
    ct_generator_init(&g, 1);
    CHECK_ERR(ct_uniform_(ct_empty_on(GPU, CT_FLOAT32, 4), 0.0, 1.0, &g), CT_ERR_DEVICE, "uniform_: Expected a 'cuda' device type for generator but found 'cpu'");
    CHECK_SAME_ERR(ct_uniform_(ct_empty_on(GPU, CT_INT64, 4), 0.0, 1.0, NULL), ct_uniform_(ct_empty(CT_INT64, 4), 0.0, 1.0, NULL));
    CHECK_SAME_ERR(ct_normal_(ct_empty_on(GPU, CT_INT32, 4), 0.0, 1.0, NULL), ct_normal_(ct_empty(CT_INT32, 4), 0.0, 1.0, NULL));
    double badp[3] = {0.5, 1.5, -1.0};
    CHECK_SAME_ERR(ct_bernoulli(dev(ct_tensor_f64(badp, 3)), NULL), ct_bernoulli(ct_tensor_f64(badp, 3), NULL));
    CHECK(ct_rand_on(GPU, CT_FLOAT32, 3) != NULL);   /* the bad-position record was reset */
    CHECK(ct_cuda_synchronize() == CT_OK);
}

TEST(test_scans) {
    for (int i = 0; i < 4; i++) {
        ct_dtype dt = FLOATS[i];
        double r = rtol_of(dt) * 4, a = atol_of(dt) * 8;
        ct_tensor *x = data(dt, 0, CT_DIMS(6, 35, 9)), *xp = data(dt, 2, CT_DIMS(6, 35, 9)), *xd = dev(x), *xpd = dev(xp);
        for (int dim = -1; dim < 3; dim++) {
            char label[64];
            snprintf(label, sizeof label, "%s dim %d", ct_dtype_name(dt), dim);
            CHECK_SAME_AT(label, ct_cumsum(xd, dim), ct_cumsum(x, dim), r, a * 4);
            CHECK_SAME_AT(label, ct_cumprod(xpd, dim), ct_cumprod(xp, dim), r, a);
            ct_tensor *ic = NULL, *ig = NULL;
            CHECK_SAME_AT(label, ct_cummax(xd, dim, &ig), ct_cummax(x, dim, &ic), 0.0, 0.0);
            CHECK_SAME_AT(label, ig, ic, 0.0, 0.0);
            CHECK_SAME_AT(label, ct_cummin(ct_t(ct_select(xd, 2, 1)), dim < 0 ? 0 : dim % 2, &ig), ct_cummin(ct_t(ct_select(x, 2, 1)), dim < 0 ? 0 : dim % 2, &ic), 0.0, 0.0);
            CHECK_SAME_AT(label, ig, ic, 0.0, 0.0);
        }
        /* long rows (a block per row, a partial last chunk), rows along dim 0 */
        ct_tensor *l = data(dt, 0, CT_DIMS(3, 1000)), *ld = dev(l);
        CHECK_SAME_AT(ct_dtype_name(dt), ct_cumsum(ld, 1), ct_cumsum(l, 1), r, a * 40);
        CHECK_SAME_AT(ct_dtype_name(dt), ct_cumsum(ct_t(ld), 0), ct_cumsum(ct_t(l), 0), r, a * 40);
        ct_tensor *ic = NULL, *ig = NULL;
        CHECK_SAME_AT(ct_dtype_name(dt), ct_cummax(ld, 1, &ig), ct_cummax(l, 1, &ic), 0.0, 0.0);
        CHECK_SAME_AT(ct_dtype_name(dt), ig, ic, 0.0, 0.0);
    }
    /* ties (the later index) and NaN (it wins and stays) */
    double tv[10] = {1, 3, 3, 2, NAN, 5, NAN, 0, 7, 7};
    ct_tensor *t = ct_tensor_f64(tv, 10), *ic = NULL, *ig = NULL;
    CHECK_SAME(ct_cummax(dev(t), 0, &ig), ct_cummax(t, 0, &ic), 0.0, 0.0);
    CHECK_SAME(ig, ic, 0.0, 0.0);
    CHECK_SAME(ct_cummin(dev(ct_slice(t, 0, 0, 4, 1)), 0, &ig), ct_cummin(ct_slice(t, 0, 0, 4, 1), 0, &ic), 0.0, 0.0);
    CHECK_SAME(ig, ic, 0.0, 0.0);
    ct_tensor *tl = ct_repeat(t, CT_DIMS(100));   /* the same in the block scan */
    CHECK_SAME(ct_cummax(dev(tl), 0, &ig), ct_cummax(tl, 0, &ic), 0.0, 0.0);
    CHECK_SAME(ig, ic, 0.0, 0.0);
    /* integers: int64 sums and products (wrapping), ties in cummax; dtype= */
    ct_tensor *xi = idata(CT_INT32, -3, 4, CT_DIMS(7, 300)), *xb = idata(CT_BOOL, 0, 2, CT_DIMS(7, 13));
    CHECK_SAME(ct_cumsum(dev(xi), 1), ct_cumsum(xi, 1), 0.0, 0.0);
    CHECK_SAME(ct_cumprod(dev(xi), 0), ct_cumprod(xi, 0), 0.0, 0.0);
    CHECK_SAME(ct_cumsum(dev(xb), 1), ct_cumsum(xb, 1), 0.0, 0.0);
    CHECK_SAME(ct_cummax(dev(xi), 1, &ig), ct_cummax(xi, 1, &ic), 0.0, 0.0);
    CHECK_SAME(ig, ic, 0.0, 0.0);
    ct_tensor *x32 = data(CT_FLOAT32, 0, CT_DIMS(5, 40));
    CHECK_SAME(ct_cumsum_dtype(dev(x32), 1, CT_FLOAT16), ct_cumsum_dtype(x32, 1, CT_FLOAT16), 4e-3, 2e-2);
    CHECK_SAME(ct_cumsum_dtype(dev(xi), 1, CT_FLOAT64), ct_cumsum_dtype(xi, 1, CT_FLOAT64), 0.0, 0.0);
    CHECK_SAME(ct_cumprod_dtype(dev(x32), 1, CT_FLOAT64), ct_cumprod_dtype(x32, 1, CT_FLOAT64), 1e-12, 1e-12);
    /* 0-d and empty */
    ct_tensor *s = ct_scalar_tensor(2.5, CT_FLOAT32);
    CHECK_SAME(ct_cumsum(dev(s), 0), ct_cumsum(s, 0), 0.0, 0.0);
    CHECK_SAME(ct_cumsum(dev(ct_zeros(CT_FLOAT32, 0, 3)), 0), ct_cumsum(ct_zeros(CT_FLOAT32, 0, 3), 0), 0.0, 0.0);
    /* gradients: cumsum (a reverse scan), cumprod, cummax (scatter_add) */
    ct_tensor *g = data(CT_FLOAT64, 2, CT_DIMS(4, 40)), *w = data(CT_FLOAT64, 0, CT_DIMS(4, 40));
    ct_tensor *gc = ct_requires_grad(ct_clone(g)), *gg = ct_requires_grad(ct_detach(dev(g)));
    ct_tensor *lc = ct_sum(ct_mul(ct_add(ct_add(ct_cumsum(gc, 1), ct_cumprod(gc, 1)), ct_cummax(gc, 0, NULL)), w));
    ct_tensor *lg = ct_sum(ct_mul(ct_add(ct_add(ct_cumsum(gg, 1), ct_cumprod(gg, 1)), ct_cummax(gg, 0, NULL)), dev(w)));
    CHECK(lc && lg && ct_backward(lc) == CT_OK && ct_backward(lg) == CT_OK);
    CHECK_SAME(ct_grad(gg), ct_grad(gc), 1e-10, 1e-12);
    /* bad inputs */
    CHECK_SAME_ERR(ct_cumsum(dev(x32), 2), ct_cumsum(x32, 2));
    CHECK_SAME_ERR(ct_cummax(dev(ct_ones(CT_FLOAT32, 3)), 1, NULL), ct_cummax(ct_ones(CT_FLOAT32, 3), 1, NULL));
}

TEST(test_var_std) {
    const int64_t d1[1] = {1}, d02[2] = {0, 2}, dm1[1] = {-1};
    for (int i = 0; i < 4; i++) {
        ct_dtype dt = FLOATS[i];
        double r = rtol_of(dt) * 4, a = atol_of(dt) * 8;
        ct_tensor *x = data(dt, 0, CT_DIMS(6, 35, 9)), *xd = dev(x), *mc = NULL, *mg = NULL;
        CHECK_SAME(ct_var(xd), ct_var(x), r, a);
        CHECK_SAME(ct_std(xd), ct_std(x), r, a);
        CHECK_SAME(ct_var_dims(xd, 1, d1, 0.0, 0), ct_var_dims(x, 1, d1, 0.0, 0), r, a);
        CHECK_SAME(ct_std_dims(xd, 2, d02, 2.5, 1), ct_std_dims(x, 2, d02, 2.5, 1), r, a);
        CHECK_SAME(ct_var_mean(xd, 1, dm1, 1.0, 1, &mg), ct_var_mean(x, 1, dm1, 1.0, 1, &mc), r, a);
        CHECK_SAME(mg, mc, r, a);
        CHECK_SAME(ct_std_mean(ct_t(ct_select(xd, 2, 4)), 1, d1, 1.0, 0, &mg), ct_std_mean(ct_t(ct_select(x, 2, 4)), 1, d1, 1.0, 0, &mc), r, a);
        CHECK_SAME(mg, mc, r, a);
        ct_tensor *big = data(dt, 0, CT_DIMS(3, 5000));   /* a block per output */
        CHECK_SAME(ct_var_dims(dev(big), 1, d1, 1.0, 0), ct_var_dims(big, 1, d1, 1.0, 0), r, a);
        CHECK_SAME(ct_std_dims(ct_t(dev(big)), 1, d1, 1.0, 0), ct_std_dims(ct_t(big), 1, d1, 1.0, 0), r, a);
    }
    /* one element with correction 1 (dof 0), an empty reduction, NaN */
    ct_tensor *one = data(CT_FLOAT32, 0, CT_DIMS(4, 1));
    CHECK_SAME(ct_var_dims(dev(one), 1, d1, 1.0, 0), ct_var_dims(one, 1, d1, 1.0, 0), 0.0, 0.0);
    CHECK_SAME(ct_var_dims(dev(ct_zeros(CT_FLOAT32, 3, 0)), 1, d1, 1.0, 0), ct_var_dims(ct_zeros(CT_FLOAT32, 3, 0), 1, d1, 1.0, 0), 0.0, 0.0);
    double nv[4] = {1, NAN, 2, 3};
    CHECK_SAME(ct_std(dev(ct_tensor_f64(nv, 4))), ct_std(ct_tensor_f64(nv, 4)), 0.0, 0.0);
    /* gradients of var and std */
    ct_tensor *g = data(CT_FLOAT64, 0, CT_DIMS(5, 7));
    ct_tensor *gc = ct_requires_grad(ct_clone(g)), *gg = ct_requires_grad(ct_detach(dev(g)));
    ct_tensor *lc = ct_add(ct_sum(ct_var_dims(gc, 1, d1, 1.0, 0)), ct_sum(ct_std_dims(gc, 1, d1, 0.0, 1)));
    ct_tensor *lg = ct_add(ct_sum(ct_var_dims(gg, 1, d1, 1.0, 0)), ct_sum(ct_std_dims(gg, 1, d1, 0.0, 1)));
    CHECK(lc && lg && ct_backward(lc) == CT_OK && ct_backward(lg) == CT_OK);
    CHECK_SAME(ct_grad(gg), ct_grad(gc), 1e-10, 1e-12);
    /* bad input: an integer tensor */
    ct_tensor *xi = idata(CT_INT64, 0, 5, CT_DIMS(4));
    CHECK_SAME_ERR(ct_var(dev(xi)), ct_var(xi));
}

TEST(test_sort_topk) {
    const ct_dtype dts[6] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16, CT_INT64, CT_INT32};
    for (int i = 0; i < 6; i++) {
        ct_dtype dt = dts[i];
        /* values with ties (rounded) and, for floats, NaNs */
        ct_tensor *x = CT__ISFLOAT(dt) ? ct_to(ct_round(ct_mul_scalar(data(CT_FLOAT64, 0, CT_DIMS(5, 37, 6)), 2.0)), dt) : idata(dt, -5, 5, CT_DIMS(5, 37, 6));
        if (CT__ISFLOAT(dt)) x = ct_where(ct_lt_scalar(ct_rand(CT_FLOAT64, 5, 37, 6), 0.05), ct_full(dt, NAN, 1), x);
        ct_tensor *xd = dev(x);
        for (int dim = -1; dim < 3; dim++)
            for (int desc = 0; desc < 2; desc++) {
                char label[80];
                snprintf(label, sizeof label, "%s dim %d desc %d", ct_dtype_name(dt), dim, desc);
                ct_tensor *ic = NULL, *ig = NULL;
                CHECK_SAME_AT(label, ct_sort(xd, dim, desc, &ig), ct_sort(x, dim, desc, &ic), 0.0, 0.0);
                CHECK_SAME_AT(label, ig, ic, 0.0, 0.0);
                CHECK_SAME_AT(label, ct_topk(xd, 4, dim, desc, 1, &ig), ct_topk(x, 4, dim, desc, 1, &ic), 0.0, 0.0);
                CHECK_SAME_AT(label, ig, ic, 0.0, 0.0);
            }
        CHECK_SAME_AT(ct_dtype_name(dt), ct_argsort(ct_t(ct_select(xd, 2, 3)), 0, 1), ct_argsort(ct_t(ct_select(x, 2, 3)), 0, 1), 0.0, 0.0);
        for (int keep = 0; keep < 2; keep++) {
            ct_tensor *ic = NULL, *ig = NULL;
            CHECK_SAME_AT(ct_dtype_name(dt), ct_kthvalue(xd, 3, 1, keep, &ig), ct_kthvalue(x, 3, 1, keep, &ic), 0.0, 0.0);
            CHECK_SAME_AT(ct_dtype_name(dt), ig, ic, 0.0, 0.0);
            for (int dim = 0; dim < 3; dim++) {   /* rows with and without NaN: the first NaN, else the lower median */
                CHECK_SAME_AT(ct_dtype_name(dt), ct_median_dim(xd, dim, keep, &ig), ct_median_dim(x, dim, keep, &ic), 0.0, 0.0);
                CHECK_SAME_AT(ct_dtype_name(dt), ig, ic, 0.0, 0.0);
            }
        }
        CHECK_SAME_AT(ct_dtype_name(dt), ct_median(xd), ct_median(x), 0.0, 0.0);
        CHECK_SAME_AT(ct_dtype_name(dt), ct_median(ct_select(ct_t(ct_select(xd, 1, 2)), 1, 0)), ct_median(ct_select(ct_t(ct_select(x, 1, 2)), 1, 0)), 0.0, 0.0);
    }
    /* long rows: the global-memory sort (a row of 5000 padded to 8192) */
    ct_tensor *l = ct_round(ct_mul_scalar(data(CT_FLOAT32, 0, CT_DIMS(3, 5000)), 20.0)), *ld = dev(l), *ic = NULL, *ig = NULL;
    CHECK_SAME(ct_sort(ld, 1, 0, &ig), ct_sort(l, 1, 0, &ic), 0.0, 0.0);
    CHECK_SAME(ig, ic, 0.0, 0.0);
    CHECK_SAME(ct_sort(ct_t(ld), 0, 1, &ig), ct_sort(ct_t(l), 0, 1, &ic), 0.0, 0.0);
    CHECK_SAME(ig, ic, 0.0, 0.0);
    CHECK_SAME(ct_topk(ld, 10, 1, 1, 1, &ig), ct_topk(l, 10, 1, 1, 1, &ic), 0.0, 0.0);
    CHECK_SAME(ig, ic, 0.0, 0.0);
    CHECK_SAME(ct_median_dim(ld, 1, 0, &ig), ct_median_dim(l, 1, 0, &ic), 0.0, 0.0);
    CHECK_SAME(ig, ic, 0.0, 0.0);
    CHECK_SAME(ct_median(ld), ct_median(l), 0.0, 0.0);
    CHECK_SAME(ct_median(dev(ct_zeros(CT_FLOAT32, 0))), ct_median(ct_zeros(CT_FLOAT32, 0)), 0.0, 0.0);
    /* k = 0, k = K, a 0-d tensor, an empty one */
    ct_tensor *x = data(CT_FLOAT32, 0, CT_DIMS(4, 6)), *xd = dev(x);
    CHECK_SAME(ct_topk(xd, 0, 1, 1, 1, NULL), ct_topk(x, 0, 1, 1, 1, NULL), 0.0, 0.0);
    CHECK_SAME(ct_topk(xd, 6, 1, 0, 1, &ig), ct_topk(x, 6, 1, 0, 1, &ic), 0.0, 0.0);
    CHECK_SAME(ig, ic, 0.0, 0.0);
    ct_tensor *s = ct_scalar_tensor(1.5, CT_FLOAT64);
    CHECK_SAME(ct_sort(dev(s), 0, 0, &ig), ct_sort(s, 0, 0, &ic), 0.0, 0.0);
    CHECK_SAME(ig, ic, 0.0, 0.0);
    CHECK_SAME(ct_sort(dev(ct_zeros(CT_FLOAT32, 0, 3)), 0, 0, NULL), ct_sort(ct_zeros(CT_FLOAT32, 0, 3), 0, 0, NULL), 0.0, 0.0);
    /* gradients: sort and topk scatter the gradient back to the indices (scatter_add on the device) */
    ct_tensor *g = data(CT_FLOAT64, 0, CT_DIMS(5, 9)), *w = data(CT_FLOAT64, 0, CT_DIMS(5, 9));
    ct_tensor *gc = ct_requires_grad(ct_clone(g)), *gg = ct_requires_grad(ct_detach(dev(g)));
    ct_tensor *lc = ct_add(ct_add(ct_sum(ct_mul(ct_sort(gc, 1, 1, NULL), w)), ct_sum(ct_topk(gc, 2, 0, 1, 1, NULL))),
                           ct_add(ct_sum(ct_median_dim(gc, 1, 0, NULL)), ct_median(gc)));
    ct_tensor *lg = ct_add(ct_add(ct_sum(ct_mul(ct_sort(gg, 1, 1, NULL), dev(w))), ct_sum(ct_topk(gg, 2, 0, 1, 1, NULL))),
                           ct_add(ct_sum(ct_median_dim(gg, 1, 0, NULL)), ct_median(gg)));
    CHECK(lc && lg && ct_backward(lc) == CT_OK && ct_backward(lg) == CT_OK);
    CHECK_SAME(ct_grad(gg), ct_grad(gc), 1e-12, 1e-12);
    /* bad inputs */
    CHECK_SAME_ERR(ct_topk(xd, 7, 1, 1, 1, NULL), ct_topk(x, 7, 1, 1, 1, NULL));
    CHECK_SAME_ERR(ct_sort(xd, 3, 0, NULL), ct_sort(x, 3, 0, NULL));
    CHECK_SAME_ERR(ct_kthvalue(xd, 0, 1, 0, NULL), ct_kthvalue(x, 0, 1, 0, NULL));
}

TEST(test_index_ops) {
    const ct_dtype dts[6] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16, CT_INT64, CT_INT16};
    int64_t iv[5] = {3, 0, 3, 5, 1}, uv[3] = {4, 0, 2}, nv[3] = {-1, 0, -6};
    ct_tensor *idx = ct_tensor_i64(iv, 5), *uidx = ct_tensor_i64(uv, 3), *nidx = ct_tensor_i64(nv, 3);
    for (int i = 0; i < 6; i++) {
        ct_dtype dt = dts[i];
        ct_tensor *x = CT__ISFLOAT(dt) ? data(dt, 0, CT_DIMS(6, 6, 4)) : idata(dt, -50, 50, CT_DIMS(6, 6, 4)), *xd = dev(x);
        for (int dim = 0; dim < 3; dim++) {
            char label[64];
            snprintf(label, sizeof label, "%s dim %d", ct_dtype_name(dt), dim);
            ct_tensor *ix = dim == 2 ? ct_remainder(idx, ct_scalar_tensor(4, CT_INT64)) : idx, *ux = dim == 2 ? ct_slice(uidx, 0, 1, 3, 1) : uidx;
            CHECK_SAME_AT(label, ct_index_select(xd, dim, dev(ix)), ct_index_select(x, dim, ix), 0.0, 0.0);
            CHECK_SAME_AT(label, ct_index_select(ct_transpose(xd, 0, 1), dim, dev(ct_to(ix, CT_INT32))), ct_index_select(ct_transpose(x, 0, 1), dim, ct_to(ix, CT_INT32)), 0.0, 0.0);
            int64_t ss[3] = {6, 6, 4};
            ss[dim] = ct_numel(ix);
            ct_tensor *src = CT__ISFLOAT(dt) ? data(dt, 0, 3, ss) : idata(dt, -50, 50, 3, ss);
            CHECK_SAME_AT(label, ct_index_add(xd, dim, dev(ix), dev(src), 2.0), ct_index_add(x, dim, ix, src, 2.0), rtol_of(dt) * 4, atol_of(dt) * 4);
            ss[dim] = ct_numel(ux);
            ct_tensor *usrc = CT__ISFLOAT(dt) ? data(dt, 0, 3, ss) : idata(dt, -50, 50, 3, ss);
            CHECK_SAME_AT(label, ct_index_copy(xd, dim, dev(ux), dev(usrc)), ct_index_copy(x, dim, ux, usrc), 0.0, 0.0);
            ct_tensor *nx = dim == 2 ? ct_slice(nidx, 0, 0, 2, 1) : nidx;
            CHECK_SAME_AT(label, ct_index_fill(xd, dim, dev(nx), -3.0), ct_index_fill(x, dim, nx, -3.0), 0.0, 0.0);
        }
        /* advanced indexing: two index tensors that broadcast, adjacent and not; index_put with and without accumulate */
        int64_t a0[4] = {0, 5, -1, 2}, a1[2] = {1, 3};
        ct_tensor *i0 = ct_reshape(ct_tensor_i64(a0, 4), 4, 1), *i1 = ct_tensor_i64(a1, 2);
        ct_tensor *lc[2] = {i0, i1}, *lg[2] = {dev(i0), dev(i1)};
        CHECK_SAME_AT(ct_dtype_name(dt), ct_index(xd, 2, lg), ct_index(x, 2, lc), 0.0, 0.0);
        ct_tensor *sc[3] = {CT_SLICE_ALL, i0, CT_SLICE_ALL}, *sg[3] = {CT_SLICE_ALL, dev(i0), CT_SLICE_ALL};
        CHECK_SAME_AT(ct_dtype_name(dt), ct_index(ct_t(ct_select(xd, 2, 1)), 2, sg), ct_index(ct_t(ct_select(x, 2, 1)), 2, sc), 0.0, 0.0);
        ct_tensor *nc[3] = {i0, CT_SLICE_ALL, i1}, *ng[3] = {dev(i0), CT_SLICE_ALL, dev(i1)};   /* not adjacent: the index dims go first */
        CHECK_SAME_AT(ct_dtype_name(dt), ct_index(xd, 3, ng), ct_index(x, 3, nc), 0.0, 0.0);
        ct_tensor *vals = CT__ISFLOAT(dt) ? data(dt, 0, CT_DIMS(4, 2, 4)) : idata(dt, -50, 50, CT_DIMS(4, 2, 4));
        int64_t d0[4] = {0, 5, 0, 5};   /* duplicates */
        ct_tensor *di = ct_reshape(ct_tensor_i64(d0, 4), 4, 1), *dc[2] = {di, i1}, *dg[2] = {dev(di), dev(i1)};
        CHECK_SAME_AT(ct_dtype_name(dt), ct_index_put(xd, 2, dg, dev(vals), 1), ct_index_put(x, 2, dc, vals, 1), rtol_of(dt) * 4, atol_of(dt) * 4);
        CHECK_SAME_AT(ct_dtype_name(dt), ct_index_put(xd, 2, lg, dev(vals), 0), ct_index_put(x, 2, lc, vals, 0), 0.0, 0.0);
        CHECK_SAME_AT(ct_dtype_name(dt), ct_index_put(xd, 2, lg, ct_scalar_tensor(7, dt), 0), ct_index_put(x, 2, lc, ct_scalar_tensor(7, dt), 0), 0.0, 0.0);
    }
    /* many duplicates: every add lands; in place */
    ct_tensor *acc = ct_zeros_on(GPU, CT_FLOAT32, 3), *many = ct_remainder(ct_arange_on(GPU, 0, 30000, 1, CT_INT64), ct_scalar_tensor(3, CT_INT64));
    CHECK(ct_index_add_(acc, 0, many, ct_ones_on(GPU, CT_FLOAT32, 30000), 1.0) == acc);
    CHECK_SAME(acc, ct_full(CT_FLOAT32, 10000.0, 3), 0.0, 0.0);
    ct_tensor *acc2 = ct_zeros_on(GPU, CT_INT64, 3), *l1[1] = {many};
    CHECK(ct_index_put_(acc2, 1, l1, ct_scalar_tensor(2, CT_INT64), 1) == acc2);
    CHECK_SAME(acc2, ct_full(CT_INT64, 20000.0, 3), 0.0, 0.0);
    /* gradients: index_select (index_add), index (index_put accumulate), index_put's values (index) */
    ct_tensor *g = data(CT_FLOAT64, 0, CT_DIMS(6, 5)), *w = data(CT_FLOAT64, 0, CT_DIMS(5, 5));
    ct_tensor *gc = ct_requires_grad(ct_clone(g)), *gg = ct_requires_grad(ct_detach(dev(g)));
    ct_tensor *ilc[1] = {idx}, *ilg[1] = {dev(idx)};
    ct_tensor *lc = ct_add(ct_sum(ct_mul(ct_index_select(gc, 0, idx), w)), ct_sum(ct_mul(ct_index(gc, 1, ilc), w)));
    ct_tensor *lg = ct_add(ct_sum(ct_mul(ct_index_select(gg, 0, dev(idx)), dev(w))), ct_sum(ct_mul(ct_index(gg, 1, ilg), dev(w))));
    CHECK(lc && lg && ct_backward(lc) == CT_OK && ct_backward(lg) == CT_OK);
    CHECK_SAME(ct_grad(gg), ct_grad(gc), 1e-12, 1e-12);
    ct_tensor *w3 = data(CT_FLOAT64, 0, CT_DIMS(3, 5)), *pl[1] = {uidx}, *pg[1] = {dev(uidx)};
    ct_tensor *vc = ct_requires_grad(ct_clone(w3)), *vg = ct_requires_grad(ct_detach(dev(w3)));
    lc = ct_sum(ct_mul(ct_index_put(ct_zeros(CT_FLOAT64, 6, 5), 1, pl, vc, 0), g));
    lg = ct_sum(ct_mul(ct_index_put(ct_zeros_on(GPU, CT_FLOAT64, 6, 5), 1, pg, vg, 0), dev(g)));
    CHECK(lc && lg && ct_backward(lc) == CT_OK && ct_backward(lg) == CT_OK);
    CHECK_SAME(ct_grad(vg), ct_grad(vc), 1e-12, 1e-12);
    /* gradients of index_add (self and a broadcast source) and index_copy (self: index_fill, source: index_select) */
    {
        ct_tensor *b = data(CT_FLOAT64, 0, CT_DIMS(6, 5)), *sa = data(CT_FLOAT64, 0, CT_DIMS(5, 1)), *sc3 = data(CT_FLOAT64, 0, CT_DIMS(3, 5));
        ct_tensor *bc = ct_requires_grad(ct_clone(b)), *bg = ct_requires_grad(ct_detach(dev(b)));
        ct_tensor *ac = ct_requires_grad(ct_clone(sa)), *ag = ct_requires_grad(ct_detach(dev(sa)));
        ct_tensor *cc = ct_requires_grad(ct_clone(sc3)), *cg = ct_requires_grad(ct_detach(dev(sc3)));
        ct_tensor *l1c = ct_sum(ct_mul(ct_add(ct_index_add(bc, 0, idx, ac, 1.5), ct_index_copy(bc, 0, uidx, cc)), g));
        ct_tensor *l1g = ct_sum(ct_mul(ct_add(ct_index_add(bg, 0, dev(idx), ag, 1.5), ct_index_copy(bg, 0, dev(uidx), cg)), dev(g)));
        CHECK(l1c && l1g && ct_backward(l1c) == CT_OK && ct_backward(l1g) == CT_OK);
        CHECK_SAME(ct_grad(bg), ct_grad(bc), 1e-12, 1e-12);
        CHECK_SAME(ct_grad(ag), ct_grad(ac), 1e-12, 1e-12);
        CHECK_SAME(ct_grad(cg), ct_grad(cc), 1e-12, 1e-12);
    }
    /* bad indices: the CPU's errors (the first bad index), nothing written */
    int64_t bv[4] = {1, 9, 2, -7};
    ct_tensor *bad = ct_tensor_i64(bv, 4), *x = data(CT_FLOAT32, 0, CT_DIMS(4, 6)), *xd = dev(x), *xc = ct_clone(xd);
    CHECK_SAME_ERR(ct_index_select(xd, 1, dev(bad)), ct_index_select(x, 1, bad));
    CHECK_SAME_ERR(ct_index_add_(xd, 1, dev(bad), dev(ct_ones(CT_FLOAT32, 4, 4)), 1.0), ct_index_add_(ct_clone(x), 1, bad, ct_ones(CT_FLOAT32, 4, 4), 1.0));
    CHECK_SAME_ERR(ct_index_copy(xd, 1, dev(bad), dev(ct_ones(CT_FLOAT32, 4, 4))), ct_index_copy(x, 1, bad, ct_ones(CT_FLOAT32, 4, 4)));
    CHECK_SAME_ERR(ct_index_fill(xd, 1, dev(ct_slice(bad, 0, 2, 4, 1)), 1.0), ct_index_fill(x, 1, ct_slice(bad, 0, 2, 4, 1), 1.0));
    ct_tensor *bl[2] = {CT_SLICE_ALL, bad}, *bg[2] = {CT_SLICE_ALL, dev(bad)};
    CHECK_SAME_ERR(ct_index(xd, 2, bg), ct_index(x, 2, bl));
    CHECK_SAME_ERR(ct_index_put_(xd, 2, bg, ct_scalar_tensor(1, CT_FLOAT32), 1), ct_index_put_(ct_clone(x), 2, bl, ct_scalar_tensor(1, CT_FLOAT32), 1));
    CHECK(ct_equal(xd, xc) == 1);
    CHECK(ct_index_select(xd, 1, dev(idx)) != NULL);   /* the record was reset */
}

TEST(test_nonzero_masked_select) {
    const ct_dtype dts[5] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_INT32, CT_BOOL};
    for (int i = 0; i < 5; i++) {
        ct_dtype dt = dts[i];
        ct_tensor *x = ct_to(ct_mul(idata(CT_INT64, -2, 3, CT_DIMS(7, 300, 3)), idata(CT_INT64, 0, 2, CT_DIMS(7, 300, 3))), dt);
        if (dt == CT_FLOAT32) x = ct_where(ct_lt_scalar(ct_rand(CT_FLOAT64, 7, 300, 3), 0.05), ct_full(dt, NAN, 1), x);   /* NaN counts as nonzero */
        ct_tensor *xd = dev(x);
        CHECK_SAME_AT(ct_dtype_name(dt), ct_nonzero(xd), ct_nonzero(x), 0.0, 0.0);
        CHECK_SAME_AT(ct_dtype_name(dt), ct_nonzero(ct_transpose(xd, 0, 2)), ct_nonzero(ct_transpose(x, 0, 2)), 0.0, 0.0);
        ct_tensor *m = ct_gt_scalar(ct_rand(CT_FLOAT64, 7, 300, 3), 0.5), *m1 = ct_gt_scalar(ct_rand(CT_FLOAT64, 300, 1), 0.3);
        CHECK_SAME_AT(ct_dtype_name(dt), ct_masked_select(xd, dev(m)), ct_masked_select(x, m), 0.0, 0.0);
        CHECK_SAME_AT(ct_dtype_name(dt), ct_masked_select(xd, dev(m1)), ct_masked_select(x, m1), 0.0, 0.0);   /* the mask broadcasts */
    }
    /* nothing selected, everything, a 0-d tensor, an empty one */
    ct_tensor *z = ct_zeros(CT_FLOAT32, 4, 5), *o = ct_ones(CT_INT64, 3, 2), *s = ct_scalar_tensor(2.0, CT_FLOAT32), *e = ct_zeros(CT_FLOAT32, 0, 3);
    CHECK_SAME(ct_nonzero(dev(z)), ct_nonzero(z), 0.0, 0.0);
    CHECK_SAME(ct_nonzero(dev(o)), ct_nonzero(o), 0.0, 0.0);
    CHECK_SAME(ct_nonzero(dev(s)), ct_nonzero(s), 0.0, 0.0);
    CHECK_SAME(ct_nonzero(dev(e)), ct_nonzero(e), 0.0, 0.0);
    CHECK_SAME(ct_masked_select(dev(o), dev(ct_gt_scalar(o, 5.0))), ct_masked_select(o, ct_gt_scalar(o, 5.0)), 0.0, 0.0);
    /* boolean-mask indexing goes through nonzero */
    ct_tensor *x = data(CT_FLOAT32, 0, CT_DIMS(6, 5)), *bm = ct_gt_scalar(ct_rand(CT_FLOAT64, 6), 0.4);
    ct_tensor *lc[1] = {bm}, *lg[1] = {dev(bm)};
    CHECK_SAME(ct_index(dev(x), 1, lg), ct_index(x, 1, lc), 0.0, 0.0);
    /* the gradient of masked_select (masked_scatter's CPU-only kernel is not needed: it is a where) */
    ct_tensor *g = data(CT_FLOAT64, 0, CT_DIMS(4, 6)), *mg = ct_gt_scalar(g, 0.0);
    ct_tensor *gc = ct_requires_grad(ct_clone(g)), *gg = ct_requires_grad(ct_detach(dev(g)));
    ct_tensor *lcs = ct_sum(ct_mul(ct_masked_select(gc, mg), ct_masked_select(gc, mg)));
    ct_tensor *lgs = ct_sum(ct_mul(ct_masked_select(gg, dev(mg)), ct_masked_select(gg, dev(mg))));
    CHECK(lcs && lgs && ct_backward(lcs) == CT_OK && ct_backward(lgs) == CT_OK);
    CHECK_SAME(ct_grad(gg), ct_grad(gc), 1e-12, 1e-12);
    /* masked_scatter (masked_select's backward): functional, in place with a broadcast mask, a non-contiguous source */
    ct_tensor *ms = data(CT_FLOAT32, 0, CT_DIMS(7, 300, 3)), *mk = ct_gt_scalar(ct_rand(CT_FLOAT64, 7, 300, 3), 0.5), *mb = ct_gt_scalar(ct_rand(CT_FLOAT64, 300, 1), 0.5);
    ct_tensor *sv = data(CT_FLOAT32, 0, CT_DIMS(3, 7 * 300));
    CHECK_SAME(ct_masked_scatter(dev(ms), dev(mk), dev(ct_t(sv))), ct_masked_scatter(ms, mk, ct_t(sv)), 0.0, 0.0);
    ct_tensor *msd = dev(ms), *msc = ct_clone(ms);
    CHECK(ct_masked_scatter_(msd, dev(mb), dev(sv)) == msd && ct_masked_scatter_(msc, mb, sv) == msc);
    CHECK_SAME(msd, msc, 0.0, 0.0);
    CHECK_SAME_ERR(ct_masked_scatter(dev(ms), dev(mk), dev(ct_ones(CT_FLOAT32, 5))), ct_masked_scatter(ms, mk, ct_ones(CT_FLOAT32, 5)));
    /* bad inputs: the CPU's errors */
    CHECK_SAME_ERR(ct_masked_select(dev(x), dev(ct_ones(CT_FLOAT32, 6, 5))), ct_masked_select(x, ct_ones(CT_FLOAT32, 6, 5)));
    CHECK_SAME_ERR(ct_masked_select(dev(x), dev(ct_gt_scalar(ct_ones(CT_FLOAT32, 4), 0.0))), ct_masked_select(x, ct_gt_scalar(ct_ones(CT_FLOAT32, 4), 0.0)));
}

TEST(test_matmul) {
    for (int i = 0; i < 4; i++) {
        ct_dtype dt = FLOATS[i];
        double r = dt == CT_FLOAT64 ? 1e-11 : dt == CT_FLOAT32 ? 1e-4 : dt == CT_FLOAT16 ? 1e-2 : 3e-2;
        double a = dt == CT_FLOAT64 ? 1e-11 : dt == CT_FLOAT32 ? 1e-4 : dt == CT_FLOAT16 ? 2e-2 : 1e-1;
        ct_tensor *A = data(dt, 0, CT_DIMS(37, 19)), *B = data(dt, 0, CT_DIMS(19, 23)), *Bt = data(dt, 0, CT_DIMS(23, 19));
        CHECK_SAME(ct_mm(dev(A), dev(B)), ct_mm(A, B), r, a);
        CHECK_SAME(ct_mm(dev(A), ct_t(dev(Bt))), ct_mm(A, ct_t(Bt)), r, a);                  /* transposed operand: no copy */
        CHECK_SAME(ct_mm(ct_t(dev(ct_t(A))), dev(B)), ct_mm(A, B), r, a);
        CHECK_SAME(ct_mm(ct_slice(dev(A), 1, 0, 19, 2), ct_slice(dev(B), 0, 0, 19, 2)),   /* strided both ways: copied */
                   ct_mm(ct_slice(A, 1, 0, 19, 2), ct_slice(B, 0, 0, 19, 2)), r, a);
        ct_tensor *bias = data(dt, 0, CT_DIMS(23));
        CHECK_SAME(ct_addmm(dev(bias), dev(A), dev(B), 0.5, 2.0), ct_addmm(bias, A, B, 0.5, 2.0), r, a);
        CHECK_SAME(ct_addmm(dev(bias), dev(A), dev(B), 0.0, 1.0), ct_addmm(bias, A, B, 0.0, 1.0), r, a);
        ct_tensor *P = data(dt, 0, CT_DIMS(5, 7, 9)), *Q = data(dt, 0, CT_DIMS(5, 9, 4)), *Q1 = data(dt, 0, CT_DIMS(1, 9, 4));
        CHECK_SAME(ct_bmm(dev(P), dev(Q)), ct_bmm(P, Q), r, a);
        CHECK_SAME(ct_bmm(dev(P), ct_expand(dev(Q1), 5, 9, 4)), ct_bmm(P, ct_expand(Q1, 5, 9, 4)), r, a);   /* batch stride 0 */
        CHECK_SAME(ct_bmm(ct_transpose(dev(ct_transpose(P, 1, 2)), 1, 2), dev(Q)), ct_bmm(P, Q), r, a);
        CHECK_SAME(ct_baddbmm(dev(ct_ones(dt, 7, 4)), dev(P), dev(Q), 1.5, -1.0), ct_baddbmm(ct_ones(dt, 7, 4), P, Q, 1.5, -1.0), r, a);
        ct_tensor *v = data(dt, 0, CT_DIMS(19)), *v2 = data(dt, 0, CT_DIMS(19));
        CHECK_SAME(ct_mv(dev(A), dev(v)), ct_mv(A, v), r, a);
        CHECK_SAME(ct_addmv(dev(ct_ones(dt, 37)), dev(A), dev(v), 2.0, 0.5), ct_addmv(ct_ones(dt, 37), A, v, 2.0, 0.5), r, a);
        CHECK_SAME(ct_dot(dev(v), dev(v2)), ct_dot(v, v2), r, a);
        ct_tensor *B9 = data(dt, 0, CT_DIMS(9, 23)), *W9 = data(dt, 0, CT_DIMS(23, 9));
        CHECK_SAME(ct_matmul(dev(P), dev(B9)), ct_matmul(P, B9), r, a);
        CHECK_SAME(ct_linear(dev(P), dev(W9), dev(bias)), ct_linear(P, W9, bias), r, a);
        /* empty inner dim: beta * input */
        CHECK_SAME(ct_addmm(dev(bias), dev(ct_zeros(dt, 37, 0)), dev(ct_zeros(dt, 0, 23)), 3.0, 1.0), ct_addmm(bias, ct_zeros(dt, 37, 0), ct_zeros(dt, 0, 23), 3.0, 1.0), r, a);
    }
    /* TF32: allowed, a float32 product still agrees to TF32's precision */
    CHECK_EQ_INT(ct_cuda_get_allow_tf32(), 0);
    ct_cuda_set_allow_tf32(1);
    CHECK_EQ_INT(ct_cuda_get_allow_tf32(), 1);
    ct_tensor *A = data(CT_FLOAT32, 0, CT_DIMS(64, 64)), *B = data(CT_FLOAT32, 0, CT_DIMS(64, 64));
    CHECK_SAME(ct_mm(dev(A), dev(B)), ct_mm(A, B), 2e-2, 5e-2);
    ct_cuda_set_allow_tf32(0);
    /* float16 / bfloat16: reduced-precision reductions allowed by default (as
       PyTorch's); disallowed, the products still agree */
    CHECK_EQ_INT(ct_cuda_get_allow_fp16_reduced_precision_reduction(), 1);
    CHECK_EQ_INT(ct_cuda_get_allow_bf16_reduced_precision_reduction(), 1);
    for (int h = 0; h < 2; h++) {
        ct_dtype hd = h ? CT_BFLOAT16 : CT_FLOAT16;
        ct_tensor *Ah = ct_to(A, hd), *Bh = ct_to(B, hd);
        if (h) ct_cuda_set_allow_bf16_reduced_precision_reduction(0);
        else ct_cuda_set_allow_fp16_reduced_precision_reduction(0);
        CHECK_SAME(ct_mm(dev(Ah), dev(Bh)), ct_mm(Ah, Bh), h ? 3e-2 : 1e-2, h ? 3e-1 : 5e-2);
#ifdef CT_EMU_CUDA_RUNTIME_H
        CHECK_EQ_INT(ct_emu::blas_math_mode(), CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);   /* it reached cuBLAS */
#endif
        ct_cuda_set_allow_fp16_reduced_precision_reduction(1);
        ct_cuda_set_allow_bf16_reduced_precision_reduction(1);
        CHECK(ct_mm(dev(Ah), dev(Bh)) != NULL);
#ifdef CT_EMU_CUDA_RUNTIME_H
        CHECK_EQ_INT(ct_emu::blas_math_mode(), CUBLAS_DEFAULT_MATH);
#endif
    }
    /* integer products fail as on PyTorch's GPU path */
    CHECK_ERR(ct_mm(dev(ct_ones(CT_INT64, 2, 2)), dev(ct_ones(CT_INT64, 2, 2))), CT_ERR_DTYPE, "\"addmm_cuda\" not implemented for 'Long'");
    /* gradients of matmul and linear */
    ct_tensor *x = data(CT_FLOAT64, 0, CT_DIMS(5, 8)), *w = data(CT_FLOAT64, 0, CT_DIMS(3, 8)), *b = data(CT_FLOAT64, 0, CT_DIMS(3));
    ct_tensor *xc = ct_requires_grad(ct_clone(x)), *wc = ct_requires_grad(ct_clone(w)), *bc = ct_requires_grad(ct_clone(b));
    ct_tensor *xg = ct_requires_grad(ct_detach(dev(x))), *wg = ct_requires_grad(ct_detach(dev(w))), *bg = ct_requires_grad(ct_detach(dev(b)));
    ct_tensor *lc = ct_sum(ct_tanh(ct_linear(ct_matmul(ct_t(ct_matmul(wc, ct_t(xc))), wc), wc, bc)));
    ct_tensor *lg = ct_sum(ct_tanh(ct_linear(ct_matmul(ct_t(ct_matmul(wg, ct_t(xg))), wg), wg, bg)));
    CHECK(lc && lg && ct_backward(lc) == CT_OK && ct_backward(lg) == CT_OK);
    CHECK_SAME(ct_grad(xg), ct_grad(xc), 1e-9, 1e-10);
    CHECK_SAME(ct_grad(wg), ct_grad(wc), 1e-9, 1e-10);
    CHECK_SAME(ct_grad(bg), ct_grad(bc), 1e-9, 1e-10);
}

/* ---- the caching allocator ---- */
/* a device tensor that only the caller's reference keeps alive: ct_release frees it */
static ct_tensor *owned(ct_dtype dt, int64_t n) {
    int tok = ct_scope_begin();
    ct_tensor *t = ct_empty_on(GPU, dt, n);
    if (t) ct_retain(t);
    ct_scope_end(tok);
    return t;
}
static ct_cuda_mem_stats stats(void) {
    ct_cuda_mem_stats s;
    ct_cuda_memory_stats(0, &s);
    return s;
}
TEST(test_allocator) {
    CHECK(ct_cuda_empty_cache() == CT_OK);
    ct_cuda_mem_stats s0 = stats();
    CHECK_EQ_INT(s0.allocated_bytes, 0);   /* every earlier test released its tensors */
    CHECK_EQ_INT(s0.reserved_bytes, 0);    /* and empty_cache returned the segments */
    /* a small block: 1000 floats round up to 4096 bytes, from a new 2 MiB segment */
    ct_tensor *a = owned(CT_FLOAT32, 1000);
    ct_cuda_mem_stats s1 = stats();
    CHECK_EQ_INT(s1.allocated_bytes, 4096);
    CHECK_EQ_INT(s1.requested_bytes, 4000);
    CHECK_EQ_INT(s1.reserved_bytes, 2 << 20);
    CHECK_EQ_INT(s1.num_cuda_mallocs - s0.num_cuda_mallocs, 1);
    CHECK_EQ_INT(s1.active_blocks, 1);
    /* a second block comes from the same segment (split), no cudaMalloc */
    ct_tensor *b = owned(CT_UINT8, 100);
    ct_cuda_mem_stats s2 = stats();
    CHECK_EQ_INT(s2.allocated_bytes, 4096 + 512);
    CHECK_EQ_INT(s2.num_cuda_mallocs, s1.num_cuda_mallocs);
    /* freed, then the same size again: reused without cudaMalloc */
    ct_release(a);
    ct_cuda_mem_stats s3 = stats();
    CHECK_EQ_INT(s3.allocated_bytes, 512);
    CHECK_EQ_INT(s3.reserved_bytes, 2 << 20);
    a = owned(CT_FLOAT32, 1000);
    ct_cuda_mem_stats s4 = stats();
    CHECK_EQ_INT(s4.num_cuda_mallocs, s1.num_cuda_mallocs);
    CHECK_EQ_INT(s4.allocated_bytes, 4096 + 512);
    ct_release(a);
    ct_release(b);
    CHECK_EQ_INT(stats().allocated_bytes, 0);
    CHECK_EQ_INT(stats().segments, 1);
    /* merging: two 768 KiB blocks and the rest of their segment merge back into
       2 MiB when freed, so a 1 MiB block fits without cudaMalloc (unmerged, none would) */
    CHECK(ct_cuda_empty_cache() == CT_OK);
    ct_cuda_mem_stats m0 = stats();
    CHECK_EQ_INT(m0.reserved_bytes, 0);
    ct_tensor *p = owned(CT_UINT8, 768 << 10), *q = owned(CT_UINT8, 768 << 10);
    CHECK_EQ_INT(stats().num_cuda_mallocs - m0.num_cuda_mallocs, 1);
    ct_release(p);
    ct_release(q);
    ct_tensor *r = owned(CT_UINT8, 1 << 20);
    CHECK_EQ_INT(stats().num_cuda_mallocs - m0.num_cuda_mallocs, 1);
    CHECK_EQ_INT(stats().reserved_bytes, 2 << 20);
    ct_release(r);
    /* the large pool: 3 MiB comes from a 20 MiB segment, 30 MiB from its own (rounded to 2 MiB) */
    ct_tensor *l1 = owned(CT_UINT8, 3 << 20);
    CHECK_EQ_INT(stats().reserved_bytes, (2 << 20) + (20 << 20));
    ct_tensor *l2 = owned(CT_UINT8, (30 << 20) + 5);
    CHECK_EQ_INT(stats().reserved_bytes, (2 << 20) + (20 << 20) + (32 << 20));
    ct_tensor *l3 = owned(CT_UINT8, 5 << 20);   /* the rest of the 20 MiB segment */
    CHECK_EQ_INT(stats().num_cuda_mallocs - m0.num_cuda_mallocs, 3);
    ct_cuda_mem_stats pk = stats();
    CHECK(pk.peak_allocated_bytes >= (int64_t)(38 << 20));
    ct_release(l1);
    ct_release(l2);
    ct_release(l3);
    ct_cuda_reset_peak_memory_stats(0);
    CHECK_EQ_INT(stats().peak_allocated_bytes, 0);
    CHECK_EQ_INT(ct_cuda_memory_allocated(0), 0);
    CHECK_EQ_INT(ct_cuda_memory_reserved(0), (2 << 20) + (20 << 20) + (32 << 20));
    /* empty_cache gives every free segment back */
    int64_t frees = stats().num_cuda_frees;
    CHECK(ct_cuda_empty_cache() == CT_OK);
    CHECK_EQ_INT(stats().reserved_bytes, 0);
    CHECK_EQ_INT(stats().num_cuda_frees - frees, 3);
    /* out of memory: the cache is released, cudaMalloc tried again, then PyTorch's message */
    ct_tensor *keep = owned(CT_FLOAT32, 1000);
    ct_release(owned(CT_UINT8, 3 << 20));   /* a free segment in the cache */
    ct_cuda_mem_stats o0 = stats();
    CHECK_ERR(ct_empty_on(GPU, CT_FLOAT32, (int64_t)1 << 40), CT_ERR_MEMORY, "CUDA out of memory. Tried to allocate 4096.00 GiB (GPU 0; ");
    CHECK_ERR(ct_empty_on(GPU, CT_FLOAT32, (int64_t)1 << 40), CT_ERR_MEMORY, "4.00 KiB already allocated");
    ct_cuda_mem_stats o1 = stats();
    CHECK_EQ_INT(o1.num_ooms - o0.num_ooms, 2);
    CHECK_EQ_INT(o1.num_alloc_retries - o0.num_alloc_retries, 2);
    CHECK(o1.reserved_bytes < o0.reserved_bytes);   /* the retry released the free cached segment */
    ct_release(keep);
    /* an op whose output cannot be allocated fails with the same message */
    CHECK_ERR(ct_to_device(ct_expand(ct_ones(CT_FLOAT32, 1), (int64_t)1 << 40), GPU), CT_ERR_MEMORY, "CUDA out of memory");
    CHECK(ct_cuda_memory_stats(-1, &o1) == CT_ERR_DEVICE);
    ct_clear_error();
}

TEST(test_device_errors) {
    ct_tensor *x = dev(ct_ones(CT_FLOAT32, 3)), *c = ct_ones(CT_FLOAT32, 3);
    CHECK_ERR(ct_add(x, c), CT_ERR_DEVICE, "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!");
    CHECK_ERR(ct_mm(ct_ones(CT_FLOAT32, 2, 3), dev(ct_ones(CT_FLOAT32, 3, 2))), CT_ERR_DEVICE, "cpu and cuda:0");
    CHECK(ct_add(x, ct_scalar_tensor(1.0, CT_FLOAT32)) != NULL);   /* a CPU 0-d tensor goes with any device */
    /* a CPU 0-d tensor may join GPU inputs, not take a GPU result in place; copy_ may */
    ct_tensor *h0 = ct_scalar_tensor(1.0, CT_FLOAT32), *g0 = dev(ct_scalar_tensor(2.5, CT_FLOAT32));
    CHECK_ERR(ct_add_(h0, g0), CT_ERR_DEVICE, "Expected all tensors to be on the same device");
    CHECK(ct_copy_(h0, g0) && ct_item(h0) == 2.5);
    /* an op without a CUDA kernel names itself (mode's kernel taken out for this) */
    CHECK(ct_register_kernel("aten::mode", CT_BACKEND_CUDA, NULL) == CT_OK);
    CHECK_ERR(ct_mode(x, 0, 0, NULL), CT_ERR_DEVICE, "mode: Could not run 'aten::mode' with arguments from the 'CUDA' backend.");
    CHECK(ct_register_kernel("aten::mode", CT_BACKEND_CUDA, ct__cu_k_mode) == CT_OK);
    CHECK(ct_mode(x, 0, 0, NULL) != NULL);
    /* a device that does not exist */
    CHECK_ERR(ct_to_device(c, ct_cuda(ct_cuda_device_count())), CT_ERR_DEVICE, "invalid device ordinal");
    CHECK_ERR(ct_zeros_on(ct_cuda(CTENSOR_CUDA_MAX_DEVICES + 1), CT_FLOAT32, 2), CT_ERR_DEVICE, "invalid device ordinal");
    CHECK_ERR(ct_zeros_on(ct_cuda(-1), CT_FLOAT32, 2), CT_ERR_DEVICE, "invalid device");
    /* item of a device tensor copies its element to the host (PyTorch's item() waits for the GPU too) */
    CHECK_EQ_INT(ct_item(ct_sum(x)), 3);
    CHECK_EQ_INT(ct_item_int(ct_sum(ct_to(x, CT_INT64))), 3);
    CHECK_EQ_INT(ct_item(ct_to_device(ct_sum(x), ct_cpu())), 3);
    CHECK_ERR(isnan(ct_item(x)) ? NULL : x, CT_ERR_ARG, "item: a Tensor with 3 elements cannot be converted to Scalar");
    CHECK(ct_cuda_synchronize() == CT_OK);   /* nothing left failing on the device */
}

/* ---- host code that reads tensor values reads device tensors only through an
   explicit copy (on a GPU a host dereference of device memory is a segfault; the
   emulator's guard makes it one there too) ---- */
static ct_tensor *gc_fn(ct_tensor *const *in, void *user) {
    (void)user;
    return ct_sum(ct_mul(ct_tanh(in[0]), ct_add(in[1], ct_t(in[0]))));
}
/* DLPack (ctensor.h): a device view leaves as kDLCUDA with its device pointer, and the
   import is a device tensor on the same memory that a device kernel writes through */
TEST(test_dlpack_device) {
    ct_tensor *x = data(CT_FLOAT32, 0, CT_DIMS(3, 4));
    ct_tensor *d = dev(x);
    ct_tensor *v = ct_slice(d, 1, 1, 4, 2);   /* strided, offset 1 */
    DLManagedTensor *m = ct_to_dlpack(v);
    CT_T_REPORT(m && m->dl_tensor.device.device_type == kDLCUDA && m->dl_tensor.device.device_id == GPU.index &&
                    m->dl_tensor.data == ct_data_ptr(v) && m->dl_tensor.strides[0] == 4 && m->dl_tensor.strides[1] == 2,
                "to_dlpack of a device view: %s", ct_last_error());
    ct_tensor *y = ct_from_dlpack(m);
    CT_T_REPORT(y && ct_device_eq(y->device, GPU) && ct_data_ptr(y) == ct_data_ptr(v), "from_dlpack: a device tensor");
    CT_T_REPORT(ct_mul_scalar_(y, 3.0) != NULL, "mul_ on the import: %s", ct_last_error());
    ct_tensor *want = ct_clone(x);
    ct_mul_scalar_(ct_slice(want, 1, 1, 4, 2), 3.0);
    CHECK_SAME(d, want, 0.0, 0.0);
}

TEST(test_host_reads) {
    ct_tensor *x = data(CT_FLOAT32, 0, CT_DIMS(4, 6)), *dx = dev(x);
    /* item, equal, allclose of device tensors: a copy of the values to the host */
    CHECK_CLOSE(ct_item(ct_sum(dx)), ct_item(ct_sum(x)), 1e-4);
    CHECK(ct_equal(dx, dev(x)) == 1 && ct_equal(dx, ct_add_scalar(dx, 1.0)) == 0);
    CHECK(ct_allclose(dx, ct_add_scalar(dx, 1e-7), 1e-5, 1e-6) == 1);
    /* internal copies of non-contiguous device tensors: contiguous, to, clone, autograd's accumulation */
    CHECK_SAME(ct_contiguous(ct_t(dx)), ct_contiguous(ct_t(x)), 0.0, 0.0);
    CHECK_SAME(ct_to(ct_t(dx), CT_FLOAT64), ct_to(ct_t(x), CT_FLOAT64), 0.0, 0.0);
    ct_tensor *w = ct_requires_grad(ct_detach(dx));
    CHECK(ct_backward(ct_sum(ct_mul(ct_t(w), ct_t(dx)))) == CT_OK);   /* a strided gradient lands in .grad */
    CHECK_SAME(ct_grad(w), x, 0.0, 0.0);
    CHECK(ct_backward(ct_sum(ct_mul(ct_t(w), ct_t(dx)))) == CT_OK);   /* and accumulates */
    CHECK_SAME(ct_grad(w), ct_mul_scalar(x, 2.0), 1e-6, 1e-6);
    /* saving a device tensor writes the values of a host copy */
    void *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    CHECK(ct_save_npy_mem(ct_t(dx), &a, &na) == CT_OK && ct_save_npy_mem(ct_t(x), &b, &nb) == CT_OK);
    CHECK(a && b && na == nb && memcmp(a, b, na) == 0);
    ct_free(a);
    ct_free(b);
    /* gradcheck perturbs device inputs element by element through copies */
    ct_tensor *in[2];
    in[0] = ct_requires_grad(dev(data(CT_FLOAT64, 2, CT_DIMS(3, 3))));
    in[1] = ct_requires_grad(dev(data(CT_FLOAT64, 0, CT_DIMS(3, 3))));
    ct_tensor *before = ct_to_device(in[0], ct_cpu());
    CT_T_REPORT(ct_gradcheck(gc_fn, NULL, 2, in, NULL) == 1, "gradcheck on the GPU: %s", ct_last_error());
    CHECK(ct_equal(ct_to_device(in[0], ct_cpu()), before) == 1);   /* the inputs are restored */
    /* root gradients: a CPU 0-d one moves to the root's device; a CPU tensor of a device root is an error */
    ct_tensor *v = ct_requires_grad(dev(data(CT_FLOAT32, 0, CT_DIMS(3)))), *go = ct_scalar_tensor(2.0, CT_FLOAT32);
    ct_tensor *r0 = ct_sum(ct_mul(v, v)), *r1 = ct_mul_scalar(v, 3.0);
    CHECK(ct_backward_ex(1, &r0, &go, NULL) == CT_OK && ct_grad(v) && ct_grad(v)->device.type == CT_CUDA);
    CHECK_SAME(ct_grad(v), ct_mul_scalar(ct_to_device(v, ct_cpu()), 4.0), 1e-6, 1e-6);
    ct_tensor *go3 = ct_ones(CT_FLOAT32, 3);
    CHECK_ERR(ct_backward_ex(1, &r1, &go3, NULL) == CT_OK, CT_ERR_DEVICE, "invalid gradient at index 0 - expected device cuda:0 but got cpu");
    /* F.scaled_dot_product_attention: the fused CPU kernel is not taken for device tensors; the op chain runs on the GPU */
    ct_tensor *q = data(CT_FLOAT32, 2, CT_DIMS(2, 5, 8)), *k = data(CT_FLOAT32, 2, CT_DIMS(2, 7, 8)), *vv = data(CT_FLOAT32, 2, CT_DIMS(2, 7, 8));
    CHECK_SAME(ct_scaled_dot_product_attention(dev(q), dev(k), dev(vv), NULL, 0.0, 0),
               ct_scaled_dot_product_attention(q, k, vv, NULL, 0.0, 0), 1e-5, 1e-6);
    CHECK_SAME(ct_scaled_dot_product_attention(dev(q), dev(k), dev(vv), NULL, 0.0, 1),   /* is_causal: the mask made on the device */
               ct_scaled_dot_product_attention(q, k, vv, NULL, 0.0, 1), 1e-5, 1e-6);
    /* helpers that read masks, offsets or lengths on the host: values through a copy, or a clear error */
    ct_tensor *m2 = dev(ct_full(CT_FLOAT32, 2.0, 4, 6));
    CHECK_ERR(ct_masked_scatter(dx, m2, dx), CT_ERR_ARG, "masked_scatter: Mask tensor can take 0 and 1 values only");
    ct_nested nt;
    CHECK(ct_nested_from_mask(dev(data(CT_FLOAT32, 0, CT_DIMS(2, 3, 4))), dev(ct_zeros(CT_BOOL, 2, 3)), &nt) == CT_OK && nt.values &&
          nt.values->device.type == CT_CUDA && nt.values->shape[0] == 6 && nt.lengths->device.type == CT_CPU);   /* the mask read on the host */
    ct_tensor *bag = ct_embedding_bag(dev(ct_arange(0, 4, 1, CT_INT64)), dev(ct_ones(CT_FLOAT32, 5, 3)), dev(ct_arange(0, 4, 2, CT_INT64)),
                                      "sum", NULL, 0);
    CT_T_REPORT(bag == NULL ? ct_last_error_code() != CT_OK : bag->device.type == CT_CUDA, "embedding_bag on the GPU: %s", ct_last_error());
    ct_clear_error();
}

/* ---- optimizer steps on device parameters (the op chains; the fused steps are
   CPU kernels) match the CPU's; gradient clipping refuses device gradients ---- */
TEST(test_optimizers) {
    const char *names[5] = {"SGD (nesterov)", "Adam (amsgrad, weight_decay)", "AdamW", "RMSprop (centered, momentum)", "Adagrad"};
    for (int kind = 0; kind < 5; kind++) {
        ct_tensor *w0 = ct_randn(CT_FLOAT32, 4, 3);
        ct_tensor *pc = ct_retain(ct_requires_grad(ct_clone(w0))), *pg = ct_retain(ct_requires_grad(ct_detach(dev(w0))));
        ct_optimizer *oc = NULL, *og = NULL;
        ct_sgd_options so;
        ct_adam_options ao;
        ct_adamw_options aw;
        ct_rmsprop_options ro;
        ct_adagrad_options ag;
        memset(&so, 0, sizeof so);
        memset(&ao, 0, sizeof ao);
        memset(&aw, 0, sizeof aw);
        memset(&ro, 0, sizeof ro);
        memset(&ag, 0, sizeof ag);
        so.lr = 0.1; so.momentum = 0.9; so.nesterov = 1;
        ao.lr = 0.01; ao.amsgrad = 1; ao.weight_decay = 0.01;
        aw.lr = 0.01;
        ro.lr = 0.01; ro.momentum = 0.5; ro.centered = 1;
        ag.lr = 0.1;
        switch (kind) {
        case 0: oc = ct_optim_sgd_params(1, &pc, &so); og = ct_optim_sgd_params(1, &pg, &so); break;
        case 1: oc = ct_optim_adam_params(1, &pc, &ao); og = ct_optim_adam_params(1, &pg, &ao); break;
        case 2: oc = ct_optim_adamw_params(1, &pc, &aw); og = ct_optim_adamw_params(1, &pg, &aw); break;
        case 3: oc = ct_optim_rmsprop_params(1, &pc, &ro); og = ct_optim_rmsprop_params(1, &pg, &ro); break;
        default: oc = ct_optim_adagrad_params(1, &pc, &ag); og = ct_optim_adagrad_params(1, &pg, &ag); break;
        }
        for (int step = 0; step < 3 && oc && og; step++) {
            CT_SCOPE {
                ct_zero_grad(oc);
                ct_zero_grad(og);
                CHECK(ct_backward(ct_sum(ct_mul(pc, ct_exp(pc)))) == CT_OK && ct_step(oc) == CT_OK);
                int ok = ct_backward(ct_sum(ct_mul(pg, ct_exp(pg)))) == CT_OK && ct_step(og) == CT_OK;
                CT_T_REPORT(ok, "%s, step %d on the GPU: %s", names[kind], step, ct_last_error());
            }
        }
        CHECK(oc && og);
        CHECK_SAME_AT(names[kind], pg, pc, 1e-5, 1e-6);
        if (kind == 0) {
            ct_tensor *ps[1];
            ps[0] = pg;
            ct_status st = ct_clip_grad_norm_ex(1, ps, 1.0, 2.0, 0, NULL);
            CHECK(st == CT_ERR_UNSUPPORTED && strstr(ct_last_error(), "gradients off the CPU"));
            ct_clear_error();
        }
        ct_optim_free(oc);
        ct_optim_free(og);
        ct_release(pc);
        ct_release(pg);
    }
}

/* ---- two devices (skipped with one): copies between them, ops on the second,
   the current device left alone, per-device memory statistics ---- */
TEST(test_two_devices) {
    ct_device g1 = ct_cuda(1);
    ct_tensor *x = data(CT_FLOAT32, 0, CT_DIMS(5, 7));
    ct_tensor *a = dev(x), *b = ct_to_device(a, g1);
    CHECK(b && b->device.type == CT_CUDA && b->device.index == 1);
    CHECK(b && ct_equal(ct_to_device(b, ct_cpu()), x));
    CHECK_SAME(ct_mul(b, ct_add_scalar(b, 1.0)), ct_mul(x, ct_add_scalar(x, 1.0)), 1e-6, 1e-6);
    CHECK_SAME(ct_mm(b, ct_t(b)), ct_mm(x, ct_t(x)), 1e-5, 1e-5);
    CHECK_SAME(ct_sum_dim(b, 1, 0), ct_sum_dim(x, 1, 0), 1e-6, 1e-6);
    CHECK_SAME(ct_to_device(ct_t(a), g1), ct_t(x), 0.0, 0.0);                              /* a strided source */
    CHECK_SAME(ct_to_device_dtype(a, g1, CT_FLOAT64), ct_to(x, CT_FLOAT64), 0.0, 0.0);     /* with a conversion */
    CHECK_SAME(ct_to_device(ct_to_device(ct_t(b), GPU), g1), ct_t(x), 0.0, 0.0);
    CHECK_ERR(ct_add(a, b), CT_ERR_DEVICE, "found at least two devices, cuda:0 and cuda:1!");
    CHECK_EQ_INT(ct_cuda_current_device(), 0);   /* ops on cuda:1 left the current device as it was */
    CHECK(ct_cuda_memory_allocated(1) > 0);
    ct_tensor *w = ct_requires_grad(ct_detach(b));
    ct_tensor *l = ct_sum(ct_mul(ct_to_device(w, GPU), a));   /* the gradient goes back to cuda:1 */
    CHECK(l && ct_backward(l) == CT_OK);
    CHECK(ct_grad(w) && ct_grad(w)->device.index == 1);
    CHECK_SAME(ct_grad(w), x, 0.0, 0.0);
}

/* ---- the acceptance test: an MLP training step on the GPU, as on the CPU ---- */
static int mlp_dev_ops, mlp_cpu_ops, mlp_ops_total, mlp_seen[1024], mlp_nseen;
static void mlp_listener(const ct_dispatch_event *e, void *user) {
    (void)user;
    if (e->phase != CT_DISPATCH_EXIT) return;
    int known = 0;
    for (int k = 0; k < mlp_nseen; k++) known |= mlp_seen[k] == e->op;
    if (!known && mlp_nseen < 1024) mlp_seen[mlp_nseen++] = e->op;
    int on_gpu = 0;
    for (int i = 0; i < e->nout; i++) on_gpu |= e->outputs[i] && e->outputs[i]->device.type == CT_CUDA;
    for (int i = 0; i < e->nin; i++) on_gpu |= e->inputs[i] && e->inputs[i]->device.type == CT_CUDA;
    mlp_ops_total++;
    if (on_gpu) mlp_dev_ops++;
    else if (e->nout > 0 && e->outputs[0] && e->outputs[0]->ndim > 0) mlp_cpu_ops++;   /* (CPU scalars are fine) */
}
TEST(test_mlp_step) {
    /* 2 layers (16 -> 32 -> 5), relu, cross_entropy, SGD with momentum and weight decay:
       4 steps on the GPU and on the CPU from the same initial weights */
    ct_manual_seed(7);
    ct_tensor *init[4] = {ct_mul_scalar(ct_randn(CT_FLOAT32, 32, 16), 0.25), ct_mul_scalar(ct_randn(CT_FLOAT32, 32), 0.1),
                          ct_mul_scalar(ct_randn(CT_FLOAT32, 5, 32), 0.25), ct_mul_scalar(ct_randn(CT_FLOAT32, 5), 0.1)};
    ct_tensor *X = ct_randn(CT_FLOAT32, 64, 16);
    ct_tensor *Y = ct_randint(0, 5, CT_INT64, 64);
    ct_tensor *pc[4], *pg[4];
    for (int k = 0; k < 4; k++) {
        pc[k] = ct_retain(ct_requires_grad(ct_clone(init[k])));
        pg[k] = ct_retain(ct_requires_grad(ct_detach(dev(init[k]))));
    }
    ct_sgd_options o;
    memset(&o, 0, sizeof o);
    o.lr = 0.1;
    o.momentum = 0.9;
    o.weight_decay = 1e-3;
    ct_optimizer *oc = ct_optim_sgd_params(4, pc, &o), *og = ct_optim_sgd_params(4, pg, &o);
    ct_tensor *Xg = ct_retain(dev(X)), *Yg = ct_retain(dev(Y));
    double first = 0.0, last = 0.0;
    for (int step = 0; step < 4; step++) {
        CT_SCOPE {
            ct_tensor *lc = ct_cross_entropy(ct_linear(ct_relu(ct_linear(X, pc[0], pc[1])), pc[2], pc[3]), Y, NULL);
            ct_zero_grad(oc);
            CHECK(lc && ct_backward(lc) == CT_OK && ct_step(oc) == CT_OK);
            int h = ct_add_dispatch_listener(mlp_listener, NULL, CT_LISTEN_NESTED);
            ct_tensor *lg = ct_cross_entropy(ct_linear(ct_relu(ct_linear(Xg, pg[0], pg[1])), pg[2], pg[3]), Yg, NULL);
            ct_zero_grad(og);
            int ok = lg && ct_backward(lg) == CT_OK && ct_step(og) == CT_OK;
            ct_remove_dispatch_listener(h);
            CT_T_REPORT(ok, "GPU step %d: %s", step, ct_last_error());
            CHECK(lg && lg->device.type == CT_CUDA);
            CHECK_SAME(lg, lc, 1e-5, 1e-6);
            for (int k = 0; k < 4; k++) CHECK(ct_grad(pg[k]) && ct_grad(pg[k])->device.type == CT_CUDA);
            if (lc && step == 0) first = ct_item(lc);
            if (lc) last = ct_item(lc);
        }
    }
    CHECK(last < first);   /* it learns */
    for (int k = 0; k < 4; k++) CHECK_SAME(pg[k], pc[k], 1e-4, 1e-5);
    CHECK(mlp_ops_total > 20);
    CHECK_EQ_INT(mlp_cpu_ops, 0);   /* every op of the GPU step ran on the GPU */
    printf("  the GPU step's ops:");
    for (int k = 0; k < mlp_nseen; k++) printf(" %s", ct_op_schema_name(mlp_seen[k]));
    printf("\n");
    ct_optim_free(oc);
    ct_optim_free(og);
    for (int k = 0; k < 4; k++) {
        ct_release(pc[k]);
        ct_release(pg[k]);
    }
    ct_release(Xg);
    ct_release(Yg);
}

/* ============================================================================
   ctensor_nn.h's normalization, embedding and loss kernels (and index_add)
   ========================================================================== */
/* runs op `name` through the dispatcher with attributes parsed from text; outputs into out */
static int run_op(const char *name, const char *attrs, int nin, ct_tensor *const *in, ct_tensor **out, int max_out) {
    int op = ct_op_find(name);
    ct_attrs a;
    if (op < 0 || ct_attrs_parse(op, attrs, &a) != CT_OK) return -1;
    return ct_dispatch(op, nin, in, &a, NULL, 0, out, max_out);
}
/* a leaf that requires grad: t itself (CPU) or its copy on the GPU */
static ct_tensor *leaf(const ct_tensor *t, int on_gpu) { return ct_requires_grad(ct_detach(on_gpu ? dev(t) : ct_clone(t))); }
/* the ops that ran with an output on the GPU (a listener) */
static int nn_seen[64], nn_nseen, nn_cpu_ops;
static void nn_listener(const ct_dispatch_event *e, void *user) {
    (void)user;
    if (e->phase != CT_DISPATCH_EXIT) return;
    int on_gpu = 0;
    for (int i = 0; i < e->nout; i++) on_gpu |= e->outputs[i] && e->outputs[i]->device.type == CT_CUDA;
    if (!on_gpu) {
        if (e->nout > 0 && e->outputs[0] && e->outputs[0]->ndim > 0) nn_cpu_ops++;
        return;
    }
    for (int k = 0; k < nn_nseen; k++)
        if (nn_seen[k] == e->op) return;
    if (nn_nseen < 64) nn_seen[nn_nseen++] = e->op;
}
static int nn_ran(const char *name) {
    for (int k = 0; k < nn_nseen; k++)
        if (!strcmp(ct_op_schema_name(nn_seen[k]), name)) return 1;
    return 0;
}
static void nn_watch_reset(void) { nn_nseen = 0; nn_cpu_ops = 0; }

TEST(test_layer_norm) {
    const ct_dtype dts[2] = {CT_FLOAT32, CT_FLOAT64};
    for (int di = 0; di < 2; di++) {
        ct_dtype dt = dts[di];
        double rt = dt == CT_FLOAT32 ? 1e-4 : 1e-10, at = dt == CT_FLOAT32 ? 1e-5 : 1e-11;
        /* rows of 40 (a warp a row), of 1500 (a block a row), two normalized dims, a transposed input,
           700 rows of 8 (the weight's gradient summed in row chunks) */
        for (int cs = 0; cs < 5; cs++) {
            char label[96];
            snprintf(label, sizeof label, "layer_norm %s case %d", ct_dtype_name(dt), cs);
            ct_tensor *x = cs == 0 ? data(dt, 0, CT_DIMS(6, 5, 40)) : cs == 1 ? data(dt, 0, CT_DIMS(3, 1500))
                         : cs == 2 ? data(dt, 0, CT_DIMS(4, 3, 10)) : cs == 3 ? ct_t(data(dt, 0, CT_DIMS(40, 6))) : data(dt, 0, CT_DIMS(700, 8));
            int64_t ns[2] = {x->shape[x->ndim - 2], x->shape[x->ndim - 1]};
            int k = cs == 2 ? 2 : 1;
            const int64_t *nsp = k == 2 ? ns : ns + 1;
            ct_tensor *w0 = data(dt, 0, k, nsp), *b0 = data(dt, 0, k, nsp), *R = data(dt, 0, x->ndim, x->shape);
            ct_tensor *y[2], *g[2][3];
            for (int s = 0; s < 2; s++) {
                ct_tensor *xl = s ? ct_requires_grad(ct_detach(ct_to_device(x, GPU))) : leaf(x, 0), *wl = leaf(w0, s), *bl = leaf(b0, s);
                if (s && cs == 3) xl = ct_requires_grad(ct_t(ct_detach(dev(ct_contiguous(ct_t(x))))));   /* non-contiguous on the GPU too */
                y[s] = ct_layer_norm(xl, k, nsp, wl, bl, 1e-5);
                CHECK(y[s] && ct_backward(ct_sum(ct_mul(y[s], s ? dev(R) : R))) == CT_OK);
                g[s][0] = ct_grad(xl);
                g[s][1] = ct_grad(wl);
                g[s][2] = ct_grad(bl);
            }
            CHECK_SAME_AT(label, y[1], y[0], rt, at);
            for (int j = 0; j < 3; j++) CHECK_SAME_AT(label, g[1][j], g[0][j], rt * 10, at * 10);
            /* the op's three outputs: y, mean, rstd */
            char attrs[96];
            if (k == 2) snprintf(attrs, sizeof attrs, "normalized_shape=[%lld, %lld], eps=1e-05", (long long)ns[0], (long long)ns[1]);
            else snprintf(attrs, sizeof attrs, "normalized_shape=[%lld], eps=1e-05", (long long)ns[1]);
            ct_tensor *in_c[3] = {x, w0, b0}, *in_g[3] = {dev(x), dev(w0), dev(b0)}, *oc[3], *og[3];
            CHECK(run_op("aten::native_layer_norm", attrs, 3, in_c, oc, 3) == 3);
            int n = run_op("aten::native_layer_norm", attrs, 3, in_g, og, 3);
            CT_T_REPORT(n == 3, "%s: native_layer_norm on the GPU: %s", label, ct_last_error());
            if (n == 3)
                for (int j = 0; j < 3; j++) CHECK_SAME_AT(label, og[j], oc[j], rt, at);
        }
    }
    /* double backward (create_graph: the composite formula with core ops) */
    ct_tensor *x2 = data(CT_FLOAT64, 0, CT_DIMS(4, 6)), *w2 = data(CT_FLOAT64, 0, CT_DIMS(6)), *x2l[2], *w2l[2];
    int64_t n6 = 6;
    for (int s = 0; s < 2; s++) {
        x2l[s] = leaf(x2, s);
        w2l[s] = leaf(w2, s);
        ct_tensor *y = ct_layer_norm(x2l[s], 1, &n6, w2l[s], NULL, 1e-5), *l = ct_sum(ct_mul(ct_mul(y, y), y)), *gx = NULL;
        ct_grad_options go;
        memset(&go, 0, sizeof go);
        go.create_graph = 1;
        CHECK(l && ct_autograd_grad(1, &l, NULL, 1, &x2l[s], &gx, &go) == CT_OK);
        CT_T_REPORT(gx && ct_backward(ct_sum(ct_mul(gx, gx))) == CT_OK, "layer_norm double backward (%s): %s", s ? "GPU" : "CPU", ct_last_error());
    }
    CHECK_SAME(ct_grad(x2l[1]), ct_grad(x2l[0]), 1e-9, 1e-10);
    CHECK_SAME(ct_grad(w2l[1]), ct_grad(w2l[0]), 1e-9, 1e-10);
    /* no weight or bias: the defaults are made on the input's device */
    ct_tensor *x = data(CT_FLOAT32, 0, CT_DIMS(5, 12));
    int64_t n12 = 12;
    CHECK_SAME(ct_layer_norm(dev(x), 1, &n12, NULL, NULL, 1e-5), ct_layer_norm(x, 1, &n12, NULL, NULL, 1e-5), 1e-4, 1e-5);
    /* group_norm: layer_norm over the groups, then the per-channel affine (core ops) */
    ct_tensor *gx = data(CT_FLOAT64, 0, CT_DIMS(4, 6, 5, 3)), *gw = data(CT_FLOAT64, 0, CT_DIMS(6)), *gb = data(CT_FLOAT64, 0, CT_DIMS(6));
    ct_tensor *gxl[2], *gwl[2], *gy[2];
    for (int s = 0; s < 2; s++) {
        gxl[s] = leaf(gx, s);
        gwl[s] = leaf(gw, s);
        gy[s] = ct_group_norm(gxl[s], 3, gwl[s], NULL, 1e-5);
        CHECK(gy[s] && ct_backward(ct_sum(ct_mul(gy[s], gy[s]))) == CT_OK);
    }
    CHECK_SAME(gy[1], gy[0], 1e-10, 1e-11);
    CHECK_SAME(ct_grad(gxl[1]), ct_grad(gxl[0]), 1e-9, 1e-10);
    CHECK_SAME(ct_grad(gwl[1]), ct_grad(gwl[0]), 1e-9, 1e-10);
    CHECK_SAME(ct_group_norm(dev(gx), 2, NULL, dev(gb), 1e-5), ct_group_norm(gx, 2, NULL, gb, 1e-5), 1e-10, 1e-11);
    /* the CPU kernel's errors, on the GPU too */
    CHECK_ERR(ct_layer_norm(dev(ct_to(x, CT_INT32)), 1, &n12, NULL, NULL, 1e-5), CT_ERR_DTYPE, "layer_norm: \"layer_norm\" not implemented for 'Int'");
    int64_t n7 = 7;
    CHECK_ERR(ct_layer_norm(dev(x), 1, &n7, NULL, NULL, 1e-5), CT_ERR_SHAPE, "layer_norm: Given normalized_shape=[7], expected input with shape [*, 7]");
    ct_tensor *bw_in[5] = {dev(ct_ones(CT_FLOAT32, 5, 11)), dev(x), dev(ct_ones(CT_FLOAT32, 12)), dev(ct_ones(CT_FLOAT32, 5)), dev(ct_ones(CT_FLOAT32, 5))}, *bo[3];
    CHECK_ERR(run_op("aten::native_layer_norm_backward", "", 5, bw_in, bo, 3) == 3, CT_ERR_SHAPE, "native_layer_norm_backward: grad_out");
    CHECK(ct_cuda_synchronize() == CT_OK);
}

TEST(test_batch_norm) {
    const ct_dtype dts[2] = {CT_FLOAT32, CT_FLOAT64};
    for (int di = 0; di < 2; di++) {
        ct_dtype dt = dts[di];
        double rt = dt == CT_FLOAT32 ? 1e-4 : 1e-10, at = dt == CT_FLOAT32 ? 1e-5 : 1e-11;
        /* NCHW, channels-last, 2-D, a permuted (non-dense-order) input */
        for (int cs = 0; cs < 4; cs++) {
            char label[96];
            snprintf(label, sizeof label, "batch_norm %s case %d", ct_dtype_name(dt), cs);
            ct_tensor *x = cs == 0 ? data(dt, 0, CT_DIMS(8, 4, 5, 3)) : cs == 1 ? ct_to_channels_last(data(dt, 0, CT_DIMS(6, 5, 4, 3)))
                         : cs == 2 ? data(dt, 0, CT_DIMS(16, 7)) : ct_permute(data(dt, 0, CT_DIMS(5, 3, 6)), 2, 0, 1);
            int64_t C = x->shape[1];
            ct_tensor *w0 = data(dt, 1, CT_DIMS(C)), *b0 = data(dt, 0, CT_DIMS(C)), *R = data(dt, 0, x->ndim, x->shape);
            ct_tensor *rm[2], *rv[2], *y[2], *xl[2], *wl[2], *bl[2], *ye[2];
            for (int s = 0; s < 2; s++) {
                rm[s] = s ? dev(ct_zeros(dt, C)) : ct_zeros(dt, C);
                rv[s] = s ? dev(ct_ones(dt, C)) : ct_ones(dt, C);
                xl[s] = s ? ct_requires_grad(ct_detach(ct_to_device(x, GPU))) : leaf(x, 0);
                if (s && cs == 1) xl[s] = ct_requires_grad(ct_detach(ct_to_channels_last(dev(x))));
                wl[s] = leaf(w0, s);
                bl[s] = leaf(b0, s);
                y[s] = ct_batch_norm(xl[s], rm[s], rv[s], wl[s], bl[s], 1, 0.1, 1e-5);
                CHECK(y[s] && ct_backward(ct_sum(ct_mul(y[s], s ? dev(R) : R))) == CT_OK);
                ye[s] = ct_batch_norm(s ? dev(x) : x, rm[s], rv[s], s ? dev(w0) : w0, NULL, 0, 0.1, 1e-5);   /* eval */
            }
            if (cs == 1) CHECK(y[1] && ct_is_channels_last(y[1]));
            CHECK_SAME_AT(label, y[1], y[0], rt, at);
            CHECK_SAME_AT(label, rm[1], rm[0], rt, at);
            CHECK_SAME_AT(label, rv[1], rv[0], rt, at);
            CHECK_SAME_AT(label, ct_grad(xl[1]), ct_grad(xl[0]), rt * 10, at * 10);
            CHECK_SAME_AT(label, ct_grad(wl[1]), ct_grad(wl[0]), rt * 10, at * 10);
            CHECK_SAME_AT(label, ct_grad(bl[1]), ct_grad(bl[0]), rt * 10, at * 10);
            CHECK_SAME_AT(label, ye[1], ye[0], rt, at);
            /* the op's four outputs: y, mean, invstd, the unbiased variance */
            ct_tensor *in_c[3] = {x, w0, b0}, *in_g[3] = {dev(x), dev(w0), dev(b0)}, *oc[4], *og[4];
            CHECK(run_op("aten::native_batch_norm", "eps=1e-05", 3, in_c, oc, 4) == 4);
            int n = run_op("aten::native_batch_norm", "eps=1e-05", 3, in_g, og, 4);
            CT_T_REPORT(n == 4, "%s: native_batch_norm on the GPU: %s", label, ct_last_error());
            if (n == 4)
                for (int j = 0; j < 4; j++) CHECK_SAME_AT(label, og[j], oc[j], rt, at);
        }
        /* eval mode's gradient (ct::batch_norm_eval, its backward with core ops) */
        ct_tensor *x = data(dt, 0, CT_DIMS(4, 3, 5)), *rmv = data(dt, 0, CT_DIMS(3)), *rvv = data(dt, 1, CT_DIMS(3)), *w0 = data(dt, 1, CT_DIMS(3));
        ct_tensor *xe[2], *we[2];
        for (int s = 0; s < 2; s++) {
            xe[s] = leaf(x, s);
            we[s] = leaf(w0, s);
            ct_tensor *ye = ct_batch_norm(xe[s], s ? dev(rmv) : rmv, s ? dev(rvv) : rvv, we[s], NULL, 0, 0.1, 1e-5);
            CHECK(ye && ct_backward(ct_sum(ct_mul(ye, ye))) == CT_OK);
        }
        CHECK_SAME(ct_grad(xe[1]), ct_grad(xe[0]), rt * 10, at * 10);
        CHECK_SAME(ct_grad(we[1]), ct_grad(we[0]), rt * 10, at * 10);
    }
    /* no weight or bias, no running statistics */
    ct_tensor *x = data(CT_FLOAT32, 0, CT_DIMS(6, 3, 4));
    CHECK_SAME(ct_batch_norm(dev(x), NULL, NULL, NULL, NULL, 1, 0.1, 1e-5), ct_batch_norm(x, NULL, NULL, NULL, NULL, 1, 0.1, 1e-5), 1e-4, 1e-5);
    /* errors: as the CPU's */
    CHECK_ERR(ct_batch_norm(dev(ct_ones(CT_FLOAT32, 1, 3)), NULL, NULL, NULL, NULL, 1, 0.1, 1e-5), CT_ERR_ARG, "Expected more than 1 value per channel when training");
    ct_tensor *bin[3] = {dev(x), dev(ct_ones(CT_FLOAT32, 4)), dev(ct_ones(CT_FLOAT32, 3))}, *bo[4];
    CHECK_ERR(run_op("aten::native_batch_norm", "eps=1e-05", 3, bin, bo, 4) == 4, CT_ERR_SHAPE, "batch_norm: weight should contain 3 elements not 4");
    CHECK_ERR(ct_batch_norm(dev(ct_ones(CT_INT64, 4, 3)), NULL, NULL, NULL, NULL, 1, 0.1, 1e-5), CT_ERR_DTYPE, "not implemented for 'Long'");
    CHECK(ct_cuda_synchronize() == CT_OK);
}

TEST(test_embedding) {
    for (int di = 0; di < 4; di++) {
        ct_dtype dt = FLOATS[di];
        for (int cs = 0; cs < 3; cs++) {   /* int64 indices; int32 and a padding index; a transposed weight and index */
            char label[96];
            snprintf(label, sizeof label, "embedding %s case %d", ct_dtype_name(dt), cs);
            ct_tensor *w0 = cs == 2 ? ct_t(data(dt, 0, CT_DIMS(7, 10))) : data(dt, 0, CT_DIMS(10, 7));
            ct_tensor *ix = idata(cs == 1 ? CT_INT32 : CT_INT64, 0, 10, CT_DIMS(5, 6));   /* duplicates: 30 draws of 10 */
            if (cs == 2) ix = ct_t(ix);
            int64_t pad = cs == 1 ? 2 : CT_NO_PADDING_IDX;
            ct_tensor *R = data(dt, 0, CT_DIMS(ix->shape[0], ix->shape[1], 7)), *wl[2], *y[2];
            for (int s = 0; s < 2; s++) {
                wl[s] = leaf(w0, s);
                if (s && cs == 2) wl[s] = ct_requires_grad(ct_t(ct_detach(dev(ct_contiguous(ct_t(w0))))));
                y[s] = ct_embedding(s ? dev(ix) : ix, wl[s], pad);
                CHECK(y[s] && ct_backward(ct_sum(ct_mul(y[s], s ? dev(R) : R))) == CT_OK);
            }
            CHECK_SAME_AT(label, y[1], y[0], 0.0, 0.0);
            CHECK_SAME_AT(label, ct_grad(wl[1]), ct_grad(wl[0]), rtol_of(dt), atol_of(dt) * 4);
        }
    }
    /* an index out of range: the CPU's error, nothing crashes */
    ct_tensor *w = dev(ct_ones(CT_FLOAT32, 10, 3));
    int64_t badv[3] = {1, 10, 3};
    ct_tensor *bad = ct_tensor_i64(badv, 3);
    CHECK_ERR(ct_embedding(bad, ct_ones(CT_FLOAT32, 10, 3), CT_NO_PADDING_IDX), CT_ERR_INDEX, "embedding: index out of range in self (index 10, num_embeddings 10)");
    CHECK_ERR(ct_embedding(dev(bad), w, CT_NO_PADDING_IDX), CT_ERR_INDEX, "embedding: index out of range in self (index 10, num_embeddings 10)");
    CHECK_ERR(ct_embedding(dev(ct_neg(ct_ones(CT_INT32, 2))), w, CT_NO_PADDING_IDX), CT_ERR_INDEX, "embedding: index out of range in self (index -1,");
    CHECK_ERR(ct_embedding(dev(ct_ones(CT_FLOAT32, 2)), w, CT_NO_PADDING_IDX), CT_ERR_DTYPE, "embedding: Expected tensor for argument #1 'indices'");
    CHECK(ct_embedding(dev(ct_zeros(CT_INT64, 0)), w, CT_NO_PADDING_IDX) != NULL);
    CHECK(ct_cuda_synchronize() == CT_OK);
}

TEST(test_index_add) {
    const ct_dtype dts[5] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16, CT_INT64};
    for (int di = 0; di < 5; di++) {
        ct_dtype dt = dts[di];
        int fl = CT__ISFLOAT(dt);
        for (int dim = 0; dim < 2; dim++) {
            char label[96];
            snprintf(label, sizeof label, "index_add %s dim %d", ct_dtype_name(dt), dim);
            ct_tensor *x = fl ? data(dt, 0, CT_DIMS(6, 5)) : idata(dt, -9, 9, CT_DIMS(6, 5));
            ct_tensor *ix = idata(CT_INT64, 0, dim ? 5 : 6, CT_DIMS(9));
            ct_tensor *src = dim ? (fl ? data(dt, 0, CT_DIMS(6, 9)) : idata(dt, -9, 9, CT_DIMS(6, 9))) : (fl ? ct_t(data(dt, 0, CT_DIMS(5, 9))) : idata(dt, -9, 9, CT_DIMS(9, 5)));
            double alpha = fl ? 0.5 : 2.0;
            CHECK_SAME_AT(label, ct_index_add(dev(x), dim, dev(ix), dev(src), alpha), ct_index_add(x, dim, ix, src, alpha), rtol_of(dt), atol_of(dt) * 4);
            ct_tensor *xd = dev(x);   /* in place, int32 indices */
            CHECK(ct_index_add_(xd, dim, dev(ct_to(ix, CT_INT32)), dev(src), alpha) == xd);
            CHECK_SAME_AT(label, xd, ct_index_add(x, dim, ix, src, alpha), rtol_of(dt), atol_of(dt) * 4);
        }
    }
    /* a source slice that broadcasts; an out-of-range index changes nothing */
    int64_t iv[3] = {0, 2, 2}, bv[3] = {0, 5, 1};
    ct_tensor *x = data(CT_FLOAT32, 0, CT_DIMS(4, 3)), *ix = ct_tensor_i64(iv, 3), *s = data(CT_FLOAT32, 0, CT_DIMS(3, 1));
    CHECK_SAME(ct_index_add(dev(x), 0, dev(ix), dev(s), 1.0), ct_index_add(x, 0, ix, s, 1.0), 1e-6, 1e-6);
    ct_tensor *xd = dev(x), *badix = ct_tensor_i64(bv, 3);
    CHECK_ERR(ct_index_add(x, 0, badix, s, 1.0), CT_ERR_INDEX, "index_add_(): index out of range in self (index 5, size 4)");
    CHECK_ERR(ct_index_add_(xd, 0, dev(badix), dev(s), 1.0), CT_ERR_INDEX, "index_add_(): index out of range in self (index 5, size 4)");
    CHECK_SAME(xd, x, 0.0, 0.0);
    CHECK(ct_cuda_synchronize() == CT_OK);
}

TEST(test_cross_entropy) {
    const ct_dtype dts[2] = {CT_FLOAT32, CT_FLOAT64};
    const char *reds[3] = {"none", "mean", "sum"};
    for (int di = 0; di < 2; di++) {
        ct_dtype dt = dts[di];
        double rt = dt == CT_FLOAT32 ? 1e-4 : 1e-10, at = dt == CT_FLOAT32 ? 1e-5 : 1e-11;
        /* 9 classes (a warp a row), 1500 (a block a row), transposed logits */
        for (int cs = 0; cs < 3; cs++) {
            int64_t N = 13, C = cs == 1 ? 1500 : 9;
            ct_tensor *x = cs == 2 ? ct_t(data(dt, 0, CT_DIMS(C, N))) : data(dt, 0, CT_DIMS(N, C));
            for (int r = 0; r < 3; r++) {
                for (int ig = 0; ig < 2; ig++) {   /* the default ignore_index, and 3 */
                    int64_t tv[13];
                    for (int i = 0; i < 13; i++) tv[i] = (i * 5 + cs + r) % C;
                    tv[2] = tv[7] = ig ? 3 : -100;   /* ignored rows */
                    ct_tensor *t = ct_tensor_i64(tv, 13);
                    char label[128];
                    snprintf(label, sizeof label, "cross_entropy %s C=%lld reduction=%s ignore_index %s", ct_dtype_name(dt), (long long)C, reds[r], ig ? "3" : "-100");
                    ct_cross_entropy_options o;
                    memset(&o, 0, sizeof o);
                    o.reduction = reds[r];
                    o.use_ignore_index = ig;
                    o.ignore_index = 3;
                    ct_tensor *xl[2], *l[2], *ar[2] = {ct_arange(0, N, 1, dt), dev(ct_arange(0, N, 1, dt))};
                    nn_watch_reset();
                    int h = 0;
                    for (int s = 0; s < 2; s++) {
                        xl[s] = leaf(x, s);
                        if (s) h = ct_add_dispatch_listener(nn_listener, NULL, CT_LISTEN_NESTED);
                        l[s] = ct_cross_entropy(xl[s], s ? dev(t) : t, &o);
                        ct_tensor *sc = r == 0 ? ct_sum(ct_mul(l[s], ar[s])) : l[s];
                        CHECK(sc && ct_backward(sc) == CT_OK);
                        if (s) ct_remove_dispatch_listener(h);
                    }
                    CHECK_SAME_AT(label, l[1], l[0], rt, at);
                    CHECK_SAME_AT(label, ct_grad(xl[1]), ct_grad(xl[0]), rt, at);
                    CT_T_REPORT(nn_ran("ct::cross_entropy_loss") && nn_ran("ct::cross_entropy_loss_backward") && nn_cpu_ops == 0,
                                "%s: the fused ops ran on the GPU", label);
                }
            }
        }
    }
    /* double backward through the fused backward (its own backward is written with core ops) */
    {
        ct_tensor *x2 = data(CT_FLOAT64, 0, CT_DIMS(5, 4)), *x2l[2];
        int64_t t2v[5] = {0, 3, -100, 1, 2};
        ct_tensor *t2 = ct_tensor_i64(t2v, 5);
        for (int s = 0; s < 2; s++) {
            x2l[s] = leaf(x2, s);
            ct_tensor *l = ct_cross_entropy(x2l[s], s ? dev(t2) : t2, NULL), *gx = NULL;
            ct_grad_options go;
            memset(&go, 0, sizeof go);
            go.create_graph = 1;
            CHECK(l && ct_autograd_grad(1, &l, NULL, 1, &x2l[s], &gx, &go) == CT_OK);
            CT_T_REPORT(gx && ct_backward(ct_sum(ct_mul(gx, gx))) == CT_OK, "cross_entropy double backward (%s): %s", s ? "GPU" : "CPU", ct_last_error());
        }
        CHECK_SAME(ct_grad(x2l[1]), ct_grad(x2l[0]), 1e-9, 1e-10);
    }
    /* every row ignored: the mean is NaN, its gradient 0 */
    ct_tensor *x = data(CT_FLOAT32, 0, CT_DIMS(3, 4)), *ti = ct_full(CT_INT64, -100, 3);
    CHECK_SAME(ct_cross_entropy(dev(x), dev(ti), NULL), ct_cross_entropy(x, ti, NULL), 0.0, 0.0);
    /* the composite paths on the GPU: class probabilities, label smoothing */
    ct_tensor *xs = data(CT_FLOAT32, 0, CT_DIMS(5, 6)), *pr = ct_softmax(data(CT_FLOAT32, 0, CT_DIMS(5, 6)), 1), *tt = idata(CT_INT64, 0, 6, CT_DIMS(5));
    ct_cross_entropy_options o;
    memset(&o, 0, sizeof o);
    o.label_smoothing = 0.2;
    CHECK_SAME(ct_cross_entropy(dev(xs), dev(pr), &o), ct_cross_entropy(xs, pr, &o), 1e-5, 1e-6);
    CHECK_SAME(ct_cross_entropy(dev(xs), dev(tt), &o), ct_cross_entropy(xs, tt, &o), 1e-5, 1e-6);
    /* a class weight takes the op chain (as on the CPU), which needs index_select: a
       result on the GPU equal to the CPU's, or a clean error naming the op */
    ct_tensor *cw = data(CT_FLOAT32, 1, CT_DIMS(6));
    o.label_smoothing = 0.0;
    o.weight = cw;
    ct_tensor *lw = ct_cross_entropy(xs, tt, &o);
    o.weight = dev(cw);
    ct_tensor *lwg = ct_cross_entropy(dev(xs), dev(tt), &o);
    if (lwg) CHECK_SAME(lwg, lw, 1e-5, 1e-6);
    else CHECK(strstr(ct_last_error(), "index_select: Could not run 'aten::index_select' with arguments from the 'CUDA' backend") != NULL);
    ct_clear_error();
    /* a target out of range: the CPU's error, nothing crashes */
    int64_t tbv[5] = {0, 6, 1, 2, 3}, tnv[5] = {0, 1, -3, 2, 3};
    ct_tensor *tb = ct_tensor_i64(tbv, 5);
    CHECK_ERR(ct_cross_entropy(xs, tb, NULL), CT_ERR_INDEX, "cross_entropy: Target 6 is out of bounds.");
    CHECK_ERR(ct_cross_entropy(dev(xs), dev(tb), NULL), CT_ERR_INDEX, "cross_entropy: Target 6 is out of bounds.");
    ct_tensor *tn = ct_tensor_i64(tnv, 5);
    CHECK_ERR(ct_cross_entropy(dev(xs), dev(tn), NULL), CT_ERR_INDEX, "cross_entropy: Target -3 is out of bounds.");
    ct_tensor *cin[2] = {dev(xs), dev(ct_zeros(CT_INT64, 4))}, *co[1];
    CHECK_ERR(run_op("ct::cross_entropy_loss", "reduction='mean', ignore_index=-100", 2, cin, co, 1) == 1, CT_ERR_ARG, "cross_entropy_loss: fused path needs");
    CHECK(ct_cuda_synchronize() == CT_OK);
}

TEST(test_pointwise_losses) {
    const ct_dtype dts[2] = {CT_FLOAT32, CT_FLOAT64};
    const char *reds[3] = {"none", "mean", "sum"};
    for (int di = 0; di < 2; di++) {
        ct_dtype dt = dts[di];
        double rt = dt == CT_FLOAT32 ? 1e-4 : 1e-10, at = dt == CT_FLOAT32 ? 1e-5 : 1e-11;
        for (int bce = 0; bce < 2; bce++)
            for (int r = 0; r < 3; r++)
                for (int cs = 0; cs < 2; cs++) {   /* contiguous (long: many blocks' partial sums); transposed */
                    char label[128];
                    snprintf(label, sizeof label, "%s %s reduction=%s case %d", bce ? "bce_with_logits" : "mse_loss", ct_dtype_name(dt), reds[r], cs);
                    ct_tensor *x = cs ? ct_t(data(dt, 0, CT_DIMS(33, 7))) : data(dt, 0, CT_DIMS(3, 40000));
                    ct_tensor *y = bce ? ct_to(ct_rand_n(dt, x->ndim, x->shape), dt) : data(dt, 0, x->ndim, x->shape);
                    ct_tensor *xl[2], *yl[2], *l[2];
                    nn_watch_reset();
                    int h = 0;
                    for (int s = 0; s < 2; s++) {
                        xl[s] = leaf(x, s);
                        yl[s] = leaf(y, s);
                        if (s) h = ct_add_dispatch_listener(nn_listener, NULL, CT_LISTEN_NESTED);
                        l[s] = bce ? ct_binary_cross_entropy_with_logits(xl[s], yl[s], NULL, NULL, reds[r]) : ct_mse_loss(xl[s], yl[s], reds[r]);
                        ct_tensor *sc = r == 0 ? ct_sum(ct_mul(l[s], l[s])) : l[s];
                        CHECK(sc && ct_backward(sc) == CT_OK);
                        if (s) ct_remove_dispatch_listener(h);
                    }
                    CHECK_SAME_AT(label, l[1], l[0], cs ? rt : rt * 10, at);
                    CHECK_SAME_AT(label, ct_grad(xl[1]), ct_grad(xl[0]), rt, at);
                    CHECK_SAME_AT(label, ct_grad(yl[1]), ct_grad(yl[0]), rt, at);
                    const char *fw = bce ? "aten::binary_cross_entropy_with_logits" : "aten::mse_loss";
                    const char *bw = bce ? "ct::binary_cross_entropy_with_logits_backward" : "aten::mse_loss_backward";
                    CT_T_REPORT(nn_ran(fw) && nn_ran(bw) && nn_cpu_ops == 0, "%s: the fused ops ran on the GPU", label);
                }
    }
    /* float16: the op chain (the fused ops are float32/float64, as on the CPU) */
    ct_tensor *h = data(CT_FLOAT16, 0, CT_DIMS(4, 9)), *hy = data(CT_FLOAT16, 0, CT_DIMS(4, 9));
    CHECK_SAME(ct_mse_loss(dev(h), dev(hy), "mean"), ct_mse_loss(h, hy, "mean"), 4e-3, 4e-3);
    /* large logits: no overflow */
    double bigv[5] = {-800.0, -30.0, 0.0, 30.0, 800.0}, byv[5] = {0.0, 1.0, 0.5, 0.0, 1.0};
    ct_tensor *big = ct_tensor_f64(bigv, 5), *by = ct_tensor_f64(byv, 5);
    CHECK_SAME(ct_binary_cross_entropy_with_logits(dev(big), dev(by), NULL, NULL, "none"), ct_binary_cross_entropy_with_logits(big, by, NULL, NULL, "none"), 1e-12, 1e-12);
    /* errors */
    ct_tensor *pin[2] = {dev(ct_ones(CT_FLOAT32, 3)), dev(ct_ones(CT_FLOAT32, 4))}, *po[1];
    CHECK_ERR(run_op("aten::mse_loss", "reduction='mean'", 2, pin, po, 1) == 1, CT_ERR_ARG, "mse_loss: fused path needs equal shapes");
    ct_tensor *gin[3] = {dev(ct_ones(CT_FLOAT32, 2)), dev(ct_ones(CT_FLOAT32, 3)), dev(ct_ones(CT_FLOAT32, 3))};
    CHECK_ERR(run_op("aten::mse_loss_backward", "reduction='mean'", 3, gin, po, 1) == 1, CT_ERR_SHAPE, "mse_loss_backward: grad");
    CHECK(ct_cuda_synchronize() == CT_OK);
}

TEST(test_pixel_shuffle) {
    const ct_dtype dts[3] = {CT_FLOAT32, CT_FLOAT16, CT_INT64};
    for (int di = 0; di < 3; di++) {
        ct_dtype dt = dts[di];
        for (int cs = 0; cs < 3; cs++) {   /* 4-D, 5-D (two batch dims), channels-last */
            ct_tensor *x = cs == 1 ? ct_arange(0, 2 * 3 * 8 * 3 * 2, 1, dt) : ct_arange(0, 2 * 8 * 3 * 4, 1, dt);
            x = cs == 1 ? ct_reshape(x, 2, 3, 8, 3, 2) : ct_reshape(x, 2, 8, 3, 4);
            if (cs == 2) x = ct_to_channels_last(x);
            ct_tensor *dx = cs == 2 ? ct_to_channels_last(dev(ct_contiguous(x))) : dev(x);
            CHECK_SAME_AT(ct_dtype_name(dt), ct_pixel_shuffle(dx, 2), ct_pixel_shuffle(x, 2), 0.0, 0.0);
            CHECK_SAME_AT(ct_dtype_name(dt), ct_pixel_unshuffle(ct_pixel_shuffle(dx, 2), 2), x, 0.0, 0.0);
            ct_tensor *u = ct_transpose(ct_reshape(ct_arange(0, 2 * 3 * 4 * 6, 1, dt), 2, 3, 6, 4), 2, 3);   /* non-contiguous [2, 3, 4, 6] */
            CHECK_SAME_AT(ct_dtype_name(dt), ct_pixel_unshuffle(dev(u), 2), ct_pixel_unshuffle(u, 2), 0.0, 0.0);
        }
    }
    /* the gradient: the other op */
    ct_tensor *x = data(CT_FLOAT32, 0, CT_DIMS(2, 9, 2, 3)), *R = data(CT_FLOAT32, 0, CT_DIMS(2, 1, 6, 9)), *xl[2];
    for (int s = 0; s < 2; s++) {
        xl[s] = leaf(x, s);
        CHECK(ct_backward(ct_sum(ct_mul(ct_pixel_shuffle(xl[s], 3), s ? dev(R) : R))) == CT_OK);
    }
    CHECK_SAME(ct_grad(xl[1]), ct_grad(xl[0]), 0.0, 0.0);
    CHECK_ERR(ct_pixel_shuffle(dev(ct_ones(CT_FLOAT32, 1, 3, 2, 2)), 2), CT_ERR_SHAPE, "pixel_shuffle expects its input's 'channel' dimension to be divisible");
    CHECK(ct_cuda_synchronize() == CT_OK);
}

/* ---- a small model trains on the GPU step for step with the CPU: LayerNorm, Linear,
   cross_entropy, SGD; every op of the GPU step runs on the GPU ---- */
TEST(test_ln_model_step) {
    ct_manual_seed(11);
    ct_tensor *init[4] = {ct_add_scalar(ct_mul_scalar(ct_randn(CT_FLOAT32, 16), 0.1), 1.0), ct_mul_scalar(ct_randn(CT_FLOAT32, 16), 0.1),
                          ct_mul_scalar(ct_randn(CT_FLOAT32, 6, 16), 0.25), ct_mul_scalar(ct_randn(CT_FLOAT32, 6), 0.1)};
    ct_tensor *X = ct_mul_scalar(ct_randn(CT_FLOAT32, 48, 16), 3.0), *Y = ct_randint(0, 6, CT_INT64, 48);
    ct_tensor *pc[4], *pg[4];
    for (int k = 0; k < 4; k++) {
        pc[k] = ct_retain(ct_requires_grad(ct_clone(init[k])));
        pg[k] = ct_retain(ct_requires_grad(ct_detach(dev(init[k]))));
    }
    ct_sgd_options o;
    memset(&o, 0, sizeof o);
    o.lr = 0.2;
    o.momentum = 0.9;
    ct_optimizer *oc = ct_optim_sgd_params(4, pc, &o), *og = ct_optim_sgd_params(4, pg, &o);
    ct_tensor *Xg = ct_retain(dev(X)), *Yg = ct_retain(dev(Y));
    int64_t n16 = 16;
    double first = 0.0, last = 0.0;
    nn_watch_reset();
    for (int step = 0; step < 5; step++) {
        CT_SCOPE {
            ct_tensor *lc = ct_cross_entropy(ct_linear(ct_layer_norm(X, 1, &n16, pc[0], pc[1], 1e-5), pc[2], pc[3]), Y, NULL);
            ct_zero_grad(oc);
            CHECK(lc && ct_backward(lc) == CT_OK && ct_step(oc) == CT_OK);
            int h = ct_add_dispatch_listener(nn_listener, NULL, CT_LISTEN_NESTED);
            ct_tensor *lg = ct_cross_entropy(ct_linear(ct_layer_norm(Xg, 1, &n16, pg[0], pg[1], 1e-5), pg[2], pg[3]), Yg, NULL);
            ct_zero_grad(og);
            int ok = lg && ct_backward(lg) == CT_OK && ct_step(og) == CT_OK;
            ct_remove_dispatch_listener(h);
            CT_T_REPORT(ok, "GPU step %d: %s", step, ct_last_error());
            CHECK_SAME(lg, lc, 1e-5, 1e-6);
            for (int k = 0; k < 4; k++) CHECK_SAME(ct_grad(pg[k]), ct_grad(pc[k]), 1e-4, 1e-5);
            if (lc && step == 0) first = ct_item(lc);
            if (lc) last = ct_item(lc);
        }
    }
    CHECK(last < first);
    for (int k = 0; k < 4; k++) CHECK_SAME(pg[k], pc[k], 1e-4, 1e-5);
    CHECK(nn_ran("aten::native_layer_norm") && nn_ran("aten::native_layer_norm_backward"));
    CHECK(nn_ran("ct::cross_entropy_loss") && nn_ran("ct::cross_entropy_loss_backward"));
    CHECK_EQ_INT(nn_cpu_ops, 0);
    ct_optim_free(oc);
    ct_optim_free(og);
    for (int k = 0; k < 4; k++) {
        ct_release(pc[k]);
        ct_release(pg[k]);
    }
    ct_release(Xg);
    ct_release(Yg);
}

/* ---- convolution and pooling (ctensor_nn.h's ops) ---- */
/* x in a layout: 0 contiguous, 1 channels-last, 2 a transposed view (H and W swapped back) */
static ct_tensor *in_layout(ct_tensor *x, int layout) {
    if (layout == 1) return ct_to_channels_last(x);
    if (layout == 2) return ct_transpose(ct_contiguous(ct_transpose(x, 2, 3)), 2, 3);
    return x;
}
typedef struct { int64_t N, C, H, W, O, kh, kw, s, p, d, g; int bias; } conv_case;
static const conv_case CONV_CASES[] = {
    {2, 3, 9, 8, 4, 3, 3, 1, 1, 1, 1, 1},   /* 3x3, padding 1, bias */
    {3, 4, 11, 10, 6, 3, 2, 2, 1, 1, 2, 0}, /* stride 2, groups 2, no bias */
    {1, 3, 10, 9, 5, 3, 3, 1, 2, 2, 1, 1},  /* dilation 2, padding 2, batch 1 */
    {3, 6, 7, 8, 6, 3, 3, 1, 1, 1, 6, 1},   /* depthwise */
    {2, 5, 6, 7, 3, 1, 1, 1, 0, 1, 1, 1},   /* 1x1 */
    {3, 4, 8, 8, 8, 2, 3, 2, 0, 1, 4, 0},   /* groups 4, 2 outputs each, stride 2 */
    {2, 4, 5, 6, 6, 1, 1, 1, 0, 1, 2, 1},   /* 1x1, groups 2 (X read as the columns, no im2col) */
    {3, 4, 7, 6, 5, 1, 1, 2, 0, 1, 1, 0},   /* 1x1, stride 2 (im2col) */
};
/* conv2d of one case on the GPU and on the CPU, values and the three gradients of
   sum(y * r) (r random), x in a layout */
static void conv_check(const conv_case *k, ct_dtype dt, int layout) {
    char label[160];
    snprintf(label, sizeof label, "conv2d %s N%lld C%lld O%lld k%lldx%lld s%lld p%lld d%lld g%lld%s layout %d", ct_dtype_name(dt),
             (long long)k->N, (long long)k->C, (long long)k->O, (long long)k->kh, (long long)k->kw, (long long)k->s, (long long)k->p,
             (long long)k->d, (long long)k->g, k->bias ? " bias" : "", layout);
    ct_conv_options o;
    memset(&o, 0, sizeof o);
    o.stride = k->s; o.padding = k->p; o.dilation = k->d; o.groups = k->g;
    ct_tensor *x = data(dt, 0, CT_DIMS(k->N, k->C, k->H, k->W)), *w = data(dt, 0, CT_DIMS(k->O, k->C / k->g, k->kh, k->kw));
    ct_tensor *b = k->bias ? data(dt, 0, CT_DIMS(k->O)) : NULL;
    ct_tensor *xc = ct_requires_grad(ct_clone(x)), *wc = ct_requires_grad(ct_clone(w)), *bc = b ? ct_requires_grad(ct_clone(b)) : NULL;
    ct_tensor *xg = ct_requires_grad(ct_detach(dev(x))), *wg = ct_requires_grad(ct_detach(dev(w))), *bg = b ? ct_requires_grad(ct_detach(dev(b))) : NULL;
    ct_tensor *yc = ct_conv2d(in_layout(xc, layout), wc, bc, &o), *yg = ct_conv2d(in_layout(xg, layout), wg, bg, &o);
    double r = dt == CT_FLOAT64 ? 1e-10 : 1e-4, a = dt == CT_FLOAT64 ? 1e-10 : 1e-4;
    CHECK_SAME_AT(label, yg, yc, r, a);
    CT_T_REPORT(yg && yc && ct_is_channels_last(yg) == ct_is_channels_last(yc) && ct_is_contiguous(yg) == ct_is_contiguous(yc),
                "%s: the output's layout differs from the CPU's", label);
    if (!yc || !yg) return;
    ct_tensor *rr = data(dt, 0, 4, yc->shape);
    ct_tensor *lc = ct_sum(ct_mul(yc, rr)), *lg = ct_sum(ct_mul(yg, dev(rr)));
    CHECK(lc && lg && ct_backward(lc) == CT_OK && ct_backward(lg) == CT_OK);
    CHECK_SAME_AT(label, ct_grad(xg), ct_grad(xc), r, a);
    CHECK_SAME_AT(label, ct_grad(wg), ct_grad(wc), r, a);
    if (b) CHECK_SAME_AT(label, ct_grad(bg), ct_grad(bc), r, a);
}
/* conv2d through the dispatcher (float16 and bfloat16 run on the device only):
   values and gradients against the CPU's float32 on the same (rounded) inputs */
static ct_tensor *conv_dispatch(ct_tensor *x, ct_tensor *w, ct_tensor *b, int64_t s, int64_t p, int64_t d, int64_t g) {
    int op = ct_op_find("aten::conv2d");
    ct_attrs at;
    ct_attrs_defaults(op, &at);
    at.v[0] = at.v[1] = s; at.v[2] = at.v[3] = p; at.v[4] = at.v[5] = d; at.i[0] = g;
    ct_tensor *in[3] = {x, w, b}, *out = NULL;
    return ct_dispatch(op, b ? 3 : 2, in, &at, NULL, 0, &out, 1) == 1 ? out : NULL;
}
static void conv_half_check(const conv_case *k, ct_dtype dt, int layout) {
    char label[128];
    snprintf(label, sizeof label, "conv2d %s C%lld O%lld k%lld s%lld g%lld layout %d", ct_dtype_name(dt), (long long)k->C, (long long)k->O,
             (long long)k->kh, (long long)k->s, (long long)k->g, layout);
    ct_tensor *x = data(dt, 0, CT_DIMS(k->N, k->C, k->H, k->W)), *w = data(dt, 0, CT_DIMS(k->O, k->C / k->g, k->kh, k->kw));
    ct_tensor *b = k->bias ? data(dt, 0, CT_DIMS(k->O)) : NULL;
    ct_tensor *xc = ct_requires_grad(ct_to(x, CT_FLOAT32)), *wc = ct_requires_grad(ct_to(w, CT_FLOAT32));
    ct_tensor *bc = b ? ct_requires_grad(ct_to(b, CT_FLOAT32)) : NULL;
    ct_tensor *xg = ct_requires_grad(ct_detach(dev(x))), *wg = ct_requires_grad(ct_detach(dev(w))), *bg = b ? ct_requires_grad(ct_detach(dev(b))) : NULL;
    ct_tensor *yc = conv_dispatch(in_layout(xc, layout), wc, bc, k->s, k->p, k->d, k->g);
    ct_tensor *yg = conv_dispatch(in_layout(xg, layout), wg, bg, k->s, k->p, k->d, k->g);
    double r = dt == CT_FLOAT16 ? 1e-2 : 5e-2, a = dt == CT_FLOAT16 ? 2e-2 : 2e-1;
    CHECK_SAME_AT(label, yg, yc ? ct_to(yc, dt) : NULL, r, a);
    if (!yc || !yg) return;
    ct_tensor *rr = data(dt, 2, 4, yc->shape);
    ct_tensor *lc = ct_sum(ct_mul(yc, ct_to(rr, CT_FLOAT32))), *lg = ct_sum(ct_mul(yg, dev(rr)));
    CHECK(lc && lg && ct_backward(lc) == CT_OK && ct_backward(lg) == CT_OK);
    CHECK_SAME_AT(label, ct_grad(xg), ct_to(ct_grad(xc), dt), r, a);
    CHECK_SAME_AT(label, ct_grad(wg), ct_to(ct_grad(wc), dt), r, a * 4);
    if (b) CHECK_SAME_AT(label, ct_grad(bg), ct_to(ct_grad(bc), dt), r, a * 4);
}
TEST(test_conv) {
    const int ncases = (int)(sizeof CONV_CASES / sizeof CONV_CASES[0]);
    for (int i = 0; i < ncases; i++)
        for (int layout = 0; layout < 3; layout++) {
            conv_check(&CONV_CASES[i], CT_FLOAT32, layout);
            if (layout == 0 || i == 1) conv_check(&CONV_CASES[i], CT_FLOAT64, layout);
        }
    for (int i = 0; i < ncases; i += 1)
        for (int h = 2; h < 4; h++) conv_half_check(&CONV_CASES[i], FLOATS[h], i % 2);
    /* the batch in chunks: one sample per chunk, and chunks of a few samples (the last one short) */
    const int64_t ws[2] = {1, 20000};
    for (int q = 0; q < 2; q++) {
        ct__cu_conv_ws = ws[q];
        for (int i = 0; i < ncases; i++) {
            conv_check(&CONV_CASES[i], CT_FLOAT32, i % 2);
            conv_half_check(&CONV_CASES[i], CT_FLOAT16, 0);
        }
    }
    ct__cu_conv_ws = CT__CU_CONV_WS;
    /* TF32 allowed: float32 still agrees to TF32's precision */
    ct_cuda_set_allow_tf32(1);
    {
        ct_tensor *x = data(CT_FLOAT32, 0, CT_DIMS(2, 8, 9, 9)), *w = data(CT_FLOAT32, 0, CT_DIMS(4, 8, 3, 3));
        CHECK_SAME(ct_conv2d(dev(x), dev(w), NULL, NULL), ct_conv2d(x, w, NULL, NULL), 2e-2, 1e-1);
    }
    ct_cuda_set_allow_tf32(0);
    /* conv_transpose2d (its own forward: col = W^T x, col2im, bias), output_padding, groups */
    {
        ct_conv_options o;
        memset(&o, 0, sizeof o);
        o.stride = 2; o.padding = 1; o.output_padding = 1; o.groups = 2;
        ct_tensor *x = data(CT_FLOAT64, 0, CT_DIMS(2, 4, 5, 6)), *w = data(CT_FLOAT64, 0, CT_DIMS(4, 3, 3, 3)), *b = data(CT_FLOAT64, 0, CT_DIMS(6));
        ct_tensor *xc = ct_requires_grad(ct_clone(x)), *wc = ct_requires_grad(ct_clone(w)), *bc = ct_requires_grad(ct_clone(b));
        ct_tensor *xg = ct_requires_grad(ct_detach(dev(x))), *wg = ct_requires_grad(ct_detach(dev(w))), *bg = ct_requires_grad(ct_detach(dev(b)));
        ct_tensor *yc = ct_conv_transpose2d(xc, wc, bc, &o), *yg = ct_conv_transpose2d(xg, wg, bg, &o);
        CHECK_SAME(yg, yc, 1e-10, 1e-10);
        ct_tensor *lc = ct_sum(ct_mul(yc, yc)), *lg = ct_sum(ct_mul(yg, yg));
        CHECK(lc && lg && ct_backward(lc) == CT_OK && ct_backward(lg) == CT_OK);
        CHECK_SAME(ct_grad(xg), ct_grad(xc), 1e-10, 1e-10);
        CHECK_SAME(ct_grad(wg), ct_grad(wc), 1e-10, 1e-10);
        CHECK_SAME(ct_grad(bg), ct_grad(bc), 1e-10, 1e-10);
    }
    /* double backward: the gradient of a gradient norm takes all three ops */
    {
        ct_tensor *x = data(CT_FLOAT64, 0, CT_DIMS(2, 3, 6, 6)), *w = data(CT_FLOAT64, 0, CT_DIMS(4, 3, 3, 3));
        ct_tensor *xc = ct_requires_grad(ct_clone(x)), *wc = ct_requires_grad(ct_clone(w));
        ct_tensor *xg = ct_requires_grad(ct_detach(dev(x))), *wg = ct_requires_grad(ct_detach(dev(w)));
        ct_conv_options o;
        memset(&o, 0, sizeof o);
        o.stride = 2; o.padding = 1;
        ct_tensor *ic[2] = {xc, wc}, *ig[2] = {xg, wg}, *gc[2] = {NULL, NULL}, *gg[2] = {NULL, NULL};
        ct_tensor *lc = ct_sum(ct_tanh(ct_conv2d(xc, wc, NULL, &o))), *lg = ct_sum(ct_tanh(ct_conv2d(xg, wg, NULL, &o)));
        ct_grad_options go;
        memset(&go, 0, sizeof go);
        go.create_graph = 1;
        CHECK(ct_autograd_grad(1, &lc, NULL, 2, ic, gc, &go) == CT_OK && ct_autograd_grad(1, &lg, NULL, 2, ig, gg, &go) == CT_OK);
        if (gc[0] && gg[0]) {
            ct_tensor *mc = ct_add(ct_sum(ct_mul(gc[0], gc[0])), ct_sum(ct_mul(gc[1], gc[1])));
            ct_tensor *mg = ct_add(ct_sum(ct_mul(gg[0], gg[0])), ct_sum(ct_mul(gg[1], gg[1])));
            CHECK(mc && mg && ct_backward(mc) == CT_OK && ct_backward(mg) == CT_OK);
            CHECK_SAME(ct_grad(xg), ct_grad(xc), 1e-9, 1e-10);
            CHECK_SAME(ct_grad(wg), ct_grad(wc), 1e-9, 1e-10);
        }
    }
    /* a bigger channels-last case (several blocks per kernel) and an empty batch */
    {
        ct_tensor *x = data(CT_FLOAT32, 0, CT_DIMS(2, 16, 20, 20)), *w = data(CT_FLOAT32, 0, CT_DIMS(24, 16, 3, 3)), *b = data(CT_FLOAT32, 0, CT_DIMS(24));
        ct_conv_options o;
        memset(&o, 0, sizeof o);
        o.padding = 1;
        CHECK_SAME(ct_conv2d(ct_to_channels_last(dev(x)), dev(w), dev(b), &o), ct_conv2d(ct_to_channels_last(x), w, b, &o), 1e-4, 1e-4);
        ct_tensor *e = ct_zeros(CT_FLOAT32, 0, 16, 20, 20);
        CHECK_SAME(ct_conv2d(dev(e), dev(w), dev(b), &o), ct_conv2d(e, w, b, &o), 0.0, 0.0);
        CHECK_SAME(ct_conv2d(dev(e), dev(w), NULL, &o), ct_conv2d(e, w, NULL, &o), 0.0, 0.0);
        /* no input channels in a group (C = 0): the output is the bias */
        ct_tensor *x0 = ct_zeros(CT_FLOAT32, 2, 0, 5, 5), *w0 = ct_zeros(CT_FLOAT32, 3, 0, 3, 3), *b0 = data(CT_FLOAT32, 0, CT_DIMS(3));
        ct_tensor *y0 = ct_conv2d(x0, w0, b0, NULL);
        if (y0) CHECK_SAME(ct_conv2d(dev(x0), dev(w0), dev(b0), NULL), y0, 0.0, 0.0);
        else ct_clear_error();
        /* the weight gradient of an empty batch: zeros */
        ct_tensor *wg = ct_requires_grad(ct_detach(dev(w))), *wc = ct_requires_grad(ct_clone(w));
        ct_tensor *lg = ct_sum(ct_conv2d(dev(e), wg, NULL, &o)), *lc = ct_sum(ct_conv2d(e, wc, NULL, &o));
        CHECK(lg && lc && ct_backward(lg) == CT_OK && ct_backward(lc) == CT_OK);
        if (ct_grad(wc)) CHECK_SAME(ct_grad(wg), ct_grad(wc), 0.0, 0.0);
    }
    /* bad inputs: the op's own messages, nothing crashes */
    ct_tensor *x = dev(data(CT_FLOAT32, 0, CT_DIMS(2, 3, 5, 5)));
    CHECK_ERR(ct_conv2d(x, dev(data(CT_FLOAT32, 0, CT_DIMS(4, 2, 3, 3))), NULL, NULL), CT_ERR_SHAPE, "expected input[2, 3, 5, 5] to have 2 channels");
    CHECK_ERR(ct_conv2d(x, dev(data(CT_FLOAT32, 0, CT_DIMS(4, 3, 7, 7))), NULL, NULL), CT_ERR_SHAPE, "Kernel size can't be greater than actual input size");
    CHECK_ERR(conv_dispatch(ct_to(x, CT_FLOAT16), dev(data(CT_FLOAT32, 0, CT_DIMS(4, 3, 3, 3))), NULL, 1, 0, 1, 1), CT_ERR_DTYPE,
              "conv2d: expected scalar type Half but found Float");
    CHECK_ERR(conv_dispatch(ct_to(x, CT_INT64), dev(ct_ones(CT_INT64, 4, 3, 3, 3)), NULL, 1, 0, 1, 1), CT_ERR_DTYPE, "conv2d: not implemented for 'Long'");
    CHECK(ct_cuda_synchronize() == CT_OK);
}

/* pooling: each op on the GPU and the CPU, values (and max_pool2d's indices) and the gradient of sum(y * r) */
static void pool_check(const char *label, int kind, ct_dtype dt, int layout, int64_t N, int64_t C, int64_t H, int64_t W, int64_t k, const ct_pool_options *o,
                       int64_t oh, int64_t ow) {
    ct_dtype cdt = dt == CT_FLOAT64 ? CT_FLOAT64 : CT_FLOAT32;   /* the CPU computes halves in float32 */
    ct_tensor *x = data(dt, 0, CT_DIMS(N, C, H, W));
    ct_tensor *xc = ct_requires_grad(ct_to(x, cdt)), *xg = ct_requires_grad(ct_detach(dev(x)));
    ct_tensor *ic = NULL, *ig = NULL, *yc, *yg;
    if (kind == 0) {
        yc = ct_max_pool2d_with_indices(in_layout(xc, layout), k, o, &ic);
        yg = ct_max_pool2d_with_indices(in_layout(xg, layout), k, o, &ig);
    } else if (kind == 1) {
        yc = ct_avg_pool2d(in_layout(xc, layout), k, o);
        yg = ct_avg_pool2d(in_layout(xg, layout), k, o);
    } else {
        yc = ct_adaptive_avg_pool2d(in_layout(xc, layout), oh, ow);
        yg = ct_adaptive_avg_pool2d(in_layout(xg, layout), oh, ow);
    }
    double r = rtol_of(dt) * 2, a = atol_of(dt) * 2;
    CHECK_SAME_AT(label, yg, yc ? ct_to(yc, dt) : NULL, r, a);
    if (kind == 0) CHECK_SAME_AT(label, ig, ic, 0.0, 0.0);
    CT_T_REPORT(yg && yc && ct_is_channels_last(yg) == ct_is_channels_last(yc) && ct_is_contiguous(yg) == ct_is_contiguous(yc),
                "%s: the output's layout differs from the CPU's", label);
    if (!yc || !yg) return;
    ct_tensor *rr = data(dt, 0, 4, yc->shape);
    ct_tensor *lc = ct_sum(ct_mul(yc, ct_to(rr, cdt))), *lg = ct_sum(ct_mul(yg, dev(rr)));
    CHECK(lc && lg && ct_backward(lc) == CT_OK && ct_backward(lg) == CT_OK);
    CHECK_SAME_AT(label, ct_grad(xg), ct_grad(xc) ? ct_to(ct_grad(xc), dt) : NULL, r, a);
}
TEST(test_pool) {
    for (int i = 0; i < 4; i++) {
        ct_dtype dt = FLOATS[i];
        for (int layout = 0; layout < 3; layout++) {
            if (i >= 2 && layout == 2) continue;
            char label[128];
            ct_pool_options o;
            /* max: 3x3 stride 2 padding 1; 2x2; dilation 2 with ceil_mode; 3x2 stride (1, 2) */
            memset(&o, 0, sizeof o);
            o.stride = 2; o.padding = 1;
            snprintf(label, sizeof label, "max_pool2d k3 s2 p1 %s layout %d", ct_dtype_name(dt), layout);
            pool_check(label, 0, dt, layout, 2, 3, 9, 10, 3, &o, 0, 0);
            snprintf(label, sizeof label, "max_pool2d k2 %s layout %d", ct_dtype_name(dt), layout);
            pool_check(label, 0, dt, layout, 3, 4, 8, 7, 2, NULL, 0, 0);
            memset(&o, 0, sizeof o);
            o.stride = 2; o.dilation = 2; o.ceil_mode = 1; o.padding = 1;
            snprintf(label, sizeof label, "max_pool2d k3 d2 ceil %s layout %d", ct_dtype_name(dt), layout);
            pool_check(label, 0, dt, layout, 2, 3, 12, 11, 3, &o, 0, 0);
            memset(&o, 0, sizeof o);
            o.kernel_size_hw[0] = 3; o.kernel_size_hw[1] = 2; o.stride_hw[0] = 1; o.stride_hw[1] = 2;
            snprintf(label, sizeof label, "max_pool2d k3x2 s1x2 %s layout %d", ct_dtype_name(dt), layout);
            pool_check(label, 0, dt, layout, 1, 2, 6, 9, 0, &o, 0, 0);
            /* avg: padding with and without count_include_pad, ceil_mode, divisor_override */
            memset(&o, 0, sizeof o);
            o.stride = 2; o.padding = 1;
            snprintf(label, sizeof label, "avg_pool2d k3 s2 p1 %s layout %d", ct_dtype_name(dt), layout);
            pool_check(label, 1, dt, layout, 2, 3, 9, 10, 3, &o, 0, 0);
            o.count_exclude_pad = 1; o.ceil_mode = 1;
            snprintf(label, sizeof label, "avg_pool2d k3 s2 p1 ceil exclude_pad %s layout %d", ct_dtype_name(dt), layout);
            pool_check(label, 1, dt, layout, 2, 3, 10, 9, 3, &o, 0, 0);
            memset(&o, 0, sizeof o);
            o.divisor_override = 5;
            snprintf(label, sizeof label, "avg_pool2d k2 divisor 5 %s layout %d", ct_dtype_name(dt), layout);
            pool_check(label, 1, dt, layout, 3, 2, 7, 8, 2, &o, 0, 0);
            /* adaptive: shrinking (overlapping windows) and growing */
            snprintf(label, sizeof label, "adaptive_avg_pool2d 3x4 %s layout %d", ct_dtype_name(dt), layout);
            pool_check(label, 2, dt, layout, 2, 3, 7, 10, 0, NULL, 3, 4);
            snprintf(label, sizeof label, "adaptive_avg_pool2d 6x5 %s layout %d", ct_dtype_name(dt), layout);
            pool_check(label, 2, dt, layout, 2, 3, 4, 4, 0, NULL, 6, 5);
        }
    }
    /* NaN wins in max_pool2d; -inf inputs */
    double v[8] = {1.0, NAN, 3.0, 2.0, -INFINITY, -INFINITY, 0.5, NAN};
    ct_tensor *xn = ct_reshape(ct_tensor_f64(v, 8), 1, 1, 2, 4), *in_c = NULL, *in_g = NULL;
    CHECK_SAME(ct_max_pool2d_with_indices(dev(xn), 2, NULL, &in_g), ct_max_pool2d_with_indices(xn, 2, NULL, &in_c), 0.0, 0.0);
    CHECK_SAME(in_g, in_c, 0.0, 0.0);
    /* a bigger channels-last max pool (several blocks) */
    ct_tensor *big = data(CT_FLOAT32, 0, CT_DIMS(2, 16, 24, 24));
    CHECK_SAME(ct_max_pool2d(ct_to_channels_last(dev(big)), 3, NULL), ct_max_pool2d(ct_to_channels_last(big), 3, NULL), 0.0, 0.0);
    /* bad inputs */
    ct_tensor *x = dev(data(CT_FLOAT32, 0, CT_DIMS(1, 2, 3, 3)));
    CHECK_ERR(ct_max_pool2d(ct_to(x, CT_INT64), 2, NULL), CT_ERR_DTYPE, "max_pool2d: \"max_pool2d\" not implemented for 'Long'");
    CHECK_ERR(ct_avg_pool2d(x, 5, NULL), CT_ERR_SHAPE, "avg_pool2d: Given input size: (2x3x3). Calculated output size: (2x0x0). Output size is too small");
    ct_pool_options po;
    memset(&po, 0, sizeof po);
    po.padding = 2;
    CHECK_ERR(ct_max_pool2d(x, 3, &po), CT_ERR_ARG, "pad should be at most half of kernel size");
    CHECK_ERR(ct_adaptive_avg_pool2d(x, -1, 2), CT_ERR_ARG, "output_size must be non-negative");
    CHECK(ct_cuda_synchronize() == CT_OK);
}

/* ---- a small CNN trains on the GPU step for step with the CPU ---- */
TEST(test_cnn_step) {
    /* conv 1 -> 4 (3x3, padding 1, bias), relu, max_pool 2, conv 4 -> 6 (3x3, stride 2),
       relu, flatten, linear -> 5, cross_entropy; SGD with momentum; 3 steps */
    ct_manual_seed(11);
    ct_tensor *init[6] = {ct_mul_scalar(ct_randn(CT_FLOAT32, 4, 1, 3, 3), 0.3), ct_mul_scalar(ct_randn(CT_FLOAT32, 4), 0.1),
                          ct_mul_scalar(ct_randn(CT_FLOAT32, 6, 4, 3, 3), 0.2), ct_mul_scalar(ct_randn(CT_FLOAT32, 6), 0.1),
                          ct_mul_scalar(ct_randn(CT_FLOAT32, 5, 6 * 2 * 2), 0.2), ct_mul_scalar(ct_randn(CT_FLOAT32, 5), 0.1)};
    ct_tensor *X = ct_randn(CT_FLOAT32, 8, 1, 10, 10);
    ct_tensor *Y = ct_randint(0, 5, CT_INT64, 8);
    ct_tensor *pc[6], *pg[6];
    for (int k = 0; k < 6; k++) {
        pc[k] = ct_retain(ct_requires_grad(ct_clone(init[k])));
        pg[k] = ct_retain(ct_requires_grad(ct_detach(dev(init[k]))));
    }
    ct_sgd_options o;
    memset(&o, 0, sizeof o);
    o.lr = 0.05;
    o.momentum = 0.9;
    ct_optimizer *oc = ct_optim_sgd_params(6, pc, &o), *og = ct_optim_sgd_params(6, pg, &o);
    ct_tensor *Xg = ct_retain(dev(X)), *Yg = ct_retain(dev(Y));
    ct_conv_options c1, c2;
    memset(&c1, 0, sizeof c1);
    memset(&c2, 0, sizeof c2);
    c1.padding = 1;
    c2.stride = 2;
    double first = 0.0, last = 0.0;
    mlp_dev_ops = mlp_cpu_ops = mlp_ops_total = mlp_nseen = 0;
    for (int step = 0; step < 3; step++) {
        CT_SCOPE {
            ct_tensor **p = pc, *x = X, *y = Y;
            ct_tensor *loss[2] = {NULL, NULL};
            for (int side = 0; side < 2; side++) {
                if (side) { p = pg; x = Xg; y = Yg; }
                int h = side ? ct_add_dispatch_listener(mlp_listener, NULL, CT_LISTEN_NESTED) : -1;
                ct_tensor *a = ct_max_pool2d(ct_relu(ct_conv2d(x, p[0], p[1], &c1)), 2, NULL);
                a = ct_flatten(ct_relu(ct_conv2d(a, p[2], p[3], &c2)), 1, -1);
                ct_tensor *l = ct_cross_entropy(ct_linear(a, p[4], p[5]), y, NULL);
                ct_zero_grad(side ? og : oc);
                int ok = l && ct_backward(l) == CT_OK && ct_step(side ? og : oc) == CT_OK;
                if (side) ct_remove_dispatch_listener(h);
                CT_T_REPORT(ok, "%s step %d: %s", side ? "GPU" : "CPU", step, ct_last_error());
                loss[side] = l;
            }
            CHECK(loss[1] && loss[1]->device.type == CT_CUDA);
            CHECK_SAME(loss[1], loss[0], 1e-5, 1e-6);
            for (int k = 0; k < 6; k++) CHECK(ct_grad(pg[k]) && ct_grad(pg[k])->device.type == CT_CUDA);
            if (loss[0] && step == 0) first = ct_item(loss[0]);
            if (loss[0]) last = ct_item(loss[0]);
        }
    }
    CHECK(last < first);   /* it learns */
    for (int k = 0; k < 6; k++) CHECK_SAME(pg[k], pc[k], 1e-4, 1e-5);
    CHECK(mlp_ops_total > 20);
    CHECK_EQ_INT(mlp_cpu_ops, 0);   /* every op of the GPU step ran on the GPU */
    printf("  the GPU step's ops:");
    for (int k = 0; k < mlp_nseen; k++) printf(" %s", ct_op_schema_name(mlp_seen[k]));
    printf("\n");
    ct_optim_free(oc);
    ct_optim_free(og);
    for (int k = 0; k < 6; k++) {
        ct_release(pc[k]);
        ct_release(pg[k]);
    }
    ct_release(Xg);
    ct_release(Yg);
}

/* ============================================================================ */
typedef struct { const char *name; void (*fn)(void); } test_case;
/* float16 / bfloat16 convolutions through ct_conv2d (its front takes them on a GPU) */
TEST(test_conv_half) {
    ct_tensor *x = data(CT_FLOAT32, 2, CT_DIMS(2, 3, 9, 9)), *w = data(CT_FLOAT32, 2, CT_DIMS(4, 3, 3, 3)), *b = data(CT_FLOAT32, 2, CT_DIMS(4));
    ct_conv_options o;
    memset(&o, 0, sizeof o);
    o.padding = 1;
    o.stride = 2;
    const ct_dtype halves[2] = {CT_FLOAT16, CT_BFLOAT16};
    for (int k = 0; k < 2; k++) {
        ct_dtype dt = halves[k];
        /* the reference: the same rounded inputs, in float32 on the CPU, rounded at the end */
        ct_tensor *ref = ct_to(ct_conv2d(ct_to(ct_to(x, dt), CT_FLOAT32), ct_to(ct_to(w, dt), CT_FLOAT32), ct_to(ct_to(b, dt), CT_FLOAT32), &o), dt);
        ct_tensor *y = ct_conv2d(ct_to_device_dtype(x, GPU, dt), ct_to_device_dtype(w, GPU, dt), ct_to_device_dtype(b, GPU, dt), &o);
        CHECK_SAME_AT(ct_dtype_name(dt), y, ref, dt == CT_FLOAT16 ? 4e-3 : 2e-2, dt == CT_FLOAT16 ? 4e-3 : 2e-2);
        ct_tensor *yc = ct_conv2d(ct_to_channels_last(ct_to_device_dtype(x, GPU, dt)), ct_to_device_dtype(w, GPU, dt), NULL, &o);
        CHECK(yc && yc->dtype == dt);
    }
    /* on the CPU it stays an error naming the dtypes that run */
    CHECK_ERR(ct_conv2d(ct_to(x, CT_FLOAT16), ct_to(w, CT_FLOAT16), NULL, &o), CT_ERR_DTYPE,
              "conv2d: not implemented for 'Half' (ctensor convolutions run in float32 and float64; float16 and bfloat16 on a GPU)");
}

/* backward through views of a device leaf: slices, a transposed slice, as_strided,
   select (their gradients are as_strided_scatter on the device) */
TEST(test_view_grads) {
    ct_tensor *x = data(CT_FLOAT32, 0, CT_DIMS(6, 8));
    const int64_t sh[2] = {3, 4}, st[2] = {8, 2}, st0[2] = {0, 1};
    for (int k = 0; k < 5; k++) {
        ct_tensor *xc = ct_requires_grad(ct_clone(x)), *xg = ct_requires_grad(ct_detach(dev(x)));
        ct_tensor *v[2];
        for (int side = 0; side < 2; side++) {
            ct_tensor *t = side ? xg : xc;
            v[side] = k == 0 ? ct_slice(t, 1, 2, 7, 2)
                    : k == 1 ? ct_t(ct_slice(t, 0, 1, 5, 1))
                    : k == 2 ? ct_as_strided(t, 2, sh, st, 1)
                    : k == 3 ? ct_select(t, 0, 4)
                             : ct_narrow(ct_unsqueeze(t, 0), 2, 3, 4);
            CHECK(ct_backward(ct_sum(ct_mul(ct_exp(ct_mul_scalar(v[side], 0.3)), v[side]))) == CT_OK);
        }
        char label[32];
        snprintf(label, sizeof label, "view %d", k);
        CHECK_SAME_AT(label, ct_grad(xg), ct_grad(xc), 1e-5, 1e-6);
    }
    /* an overlapping as_strided view: its gradient is refused on the device, cleanly */
    ct_tensor *xg = ct_requires_grad(ct_detach(dev(x)));
    ct_tensor *ov = ct_as_strided(xg, 2, sh, st0, 0);
    CHECK_ERR(ct_backward(ct_sum(ov)) == CT_OK ? ov : NULL, CT_ERR_UNSUPPORTED,
              "as_strided_scatter: a view whose elements overlap (size [3, 4], stride [0, 1]) is not supported on CUDA");
}

/* ---- streams and events ---- */
#include <pthread.h>
static void *other_thread_stream(void *arg) {
    /* a thread of its own starts on the default stream, whatever the other thread set */
    *(int *)arg = ct_cuda_current_stream(0) == ct_cuda_default_stream(0);
    return NULL;
}
TEST(test_streams) {
    ct_cuda_stream *def = ct_cuda_default_stream(0);
    CHECK(def && ct_cuda_current_stream(0) == def && ct_cuda_stream_device(def) == 0);
    ct_cuda_stream *s1 = ct_cuda_stream_new(0), *s2 = ct_cuda_stream_new(0);
    CHECK(s1 && s2 && s1 != s2 && ct_cuda_stream_device(s1) == 0);
    /* ops on a side stream: the same values as on the CPU */
    ct_tensor *x = data(CT_FLOAT32, 0, CT_DIMS(64, 48)), *w = data(CT_FLOAT32, 0, CT_DIMS(48, 32));
    CHECK(ct_cuda_set_stream(s1) == def && ct_cuda_current_stream(0) == s1);
    int same = 0;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, other_thread_stream, &same) == 0 && pthread_join(th, NULL) == 0);
    CHECK(same);
    ct_tensor *dx = dev(x), *dw = dev(w);
    ct_tensor *y = ct_relu(ct_mm(dx, dw)), *ys = ct_sum_dim(ct_softmax(y, 1), 0, 0);
    CHECK_SAME(y, ct_relu(ct_mm(x, w)), 1e-4, 1e-5);
    CHECK(ct_cuda_stream_synchronize(s1) == CT_OK && ct_cuda_stream_query(s1) == 1);
    /* s2 waits for s1's work (an event), then uses its result */
    ct_cuda_event *ev = ct_cuda_event_new(0);
    CHECK(ct_cuda_event_record(ev, NULL) == CT_OK);   /* NULL: the current stream, s1 */
    CHECK(ct_cuda_stream_wait_event(s2, ev) == CT_OK);
    CHECK(ct_cuda_set_stream(s2) == s1);
    ct_tensor *z = ct_mul_scalar(ys, 2.0);
    CHECK(ct_cuda_record_stream(ys, s2) == CT_OK);   /* ys was made on s1, is read on s2 */
    CHECK(ct_cuda_stream_wait_stream(def, s2) == CT_OK);
    CHECK(ct_cuda_set_stream(def) == s2);
    CHECK_SAME(z, ct_mul_scalar(ct_sum_dim(ct_softmax(ct_relu(ct_mm(x, w)), 1), 0, 0), 2.0), 1e-4, 1e-5);
    CHECK(ct_cuda_event_synchronize(ev) == CT_OK && ct_cuda_event_query(ev) == 1);
    /* autograd with the forward on s1 and the backward on s2 (after a wait) */
    ct_tensor *wl = ct_requires_grad(ct_detach(dw)), *wc = ct_requires_grad(ct_clone(w));
    ct_cuda_set_stream(s1);
    ct_tensor *loss = ct_sum(ct_tanh(ct_mul_scalar(ct_mm(dx, wl), 0.02)));   /* (scaled: tanh not saturated) */
    ct_cuda_stream_wait_stream(s2, s1);
    ct_cuda_set_stream(s2);
    CHECK(ct_backward(loss) == CT_OK);
    ct_cuda_set_stream(def);
    ct_cuda_stream_wait_stream(def, s2);
    CHECK(ct_backward(ct_sum(ct_tanh(ct_mul_scalar(ct_mm(x, wc), 0.02)))) == CT_OK);
    CHECK_SAME(ct_grad(wl), ct_grad(wc), 1e-4, 1e-5);
    /* timing events */
    ct_cuda_event *t0 = ct_cuda_event_new(1), *t1 = ct_cuda_event_new(1), *nt = ct_cuda_event_new(0);
    CHECK(ct_cuda_event_record(t0, s1) == CT_OK);
    ct_cuda_set_stream(s1);
    ct_tensor *big = ct_exp(dev(data(CT_FLOAT32, 0, CT_DIMS(256, 256))));
    ct_cuda_set_stream(def);
    CHECK(big != NULL);
    CHECK(ct_cuda_event_record(t1, s1) == CT_OK && ct_cuda_event_synchronize(t1) == CT_OK);
    double ms = ct_cuda_event_elapsed_ms(t0, t1);
    CHECK(ms >= 0.0);
    CHECK(ct_cuda_record_stream(big, s1) == CT_OK);   /* on its own stream: nothing to record */
    /* errors */
    CHECK_ERR(isnan(ct_cuda_event_elapsed_ms(t0, nt)) ? NULL : t0, CT_ERR_STATE, "elapsed_time: Both events must be recorded before calculating elapsed time.");
    CHECK(ct_cuda_event_record(nt, s1) == CT_OK && ct_cuda_event_synchronize(nt) == CT_OK);
    CHECK_ERR(isnan(ct_cuda_event_elapsed_ms(t0, nt)) ? NULL : t0, CT_ERR_STATE, "elapsed_time: Both events must be created with argument 'enable_timing=True'.");
    CHECK_ERR(ct_cuda_event_record(NULL, s1) == CT_OK ? t0 : NULL, CT_ERR_NULL, "event_record: event is NULL");
    CHECK_ERR(ct_cuda_set_stream(NULL), CT_ERR_NULL, "set_stream: stream is NULL");
    CHECK_ERR(ct_cuda_stream_new(-1), CT_ERR_DEVICE, "Stream: invalid device index -1");
    CHECK_ERR(ct_cuda_record_stream(x, s1) == CT_OK ? x : NULL, CT_ERR_DEVICE, "record_stream: expected a tensor in memory of the CUDA caching allocator (got a tensor on cpu)");
    if (ct_cuda_device_count() > 1) {
        ct_cuda_stream *o = ct_cuda_stream_new(1);
        CHECK_ERR(ct_cuda_event_record(t0, o) == CT_OK ? t0 : NULL, CT_ERR_DEVICE, "event_record: Event device cuda:0 does not match recording stream's device cuda:1");
        CHECK_ERR(ct_cuda_record_stream(big, o) == CT_OK ? t0 : NULL, CT_ERR_DEVICE, "record_stream: the stream is on cuda:1, the tensor on cuda:0");
        ct_cuda_stream_free(o);
    }
    CHECK(ct_cuda_current_stream(0) == def);
    CHECK(ct_cuda_synchronize() == CT_OK);
    ct_cuda_event_free(ev);
    ct_cuda_event_free(t0);
    ct_cuda_event_free(t1);
    ct_cuda_event_free(nt);
    ct_cuda_set_stream(s1);
    ct_cuda_stream_free(s1);   /* current: this thread goes back to the default stream */
    CHECK(ct_cuda_current_stream(0) == def);
    ct_cuda_stream_free(s2);
    ct_cuda_stream_free(def);   /* the library's: nothing happens */
    CHECK(ct_cuda_default_stream(0) == def);
}
/* the allocator keeps each stream's blocks for that stream; a block recorded on
   another stream waits for it when freed */
TEST(test_stream_allocator) {
    CHECK(ct_cuda_synchronize() == CT_OK && ct_cuda_empty_cache() == CT_OK);
    ct_cuda_stream *def = ct_cuda_default_stream(0), *s1 = ct_cuda_stream_new(0);
    ct_tensor *a = owned(CT_FLOAT32, 1000);
    void *pa = ct_data_ptr(a);
    ct_release(a);
    ct_cuda_set_stream(s1);   /* another stream: not the block the default stream freed */
    ct_cuda_mem_stats m0 = stats();
    ct_tensor *b = owned(CT_FLOAT32, 1000);
    CHECK(ct_data_ptr(b) != pa);
    CHECK_EQ_INT(stats().num_cuda_mallocs - m0.num_cuda_mallocs, 1);   /* a segment of its own */
    ct_release(b);
    ct_tensor *b2 = owned(CT_FLOAT32, 1000);   /* s1's freed block again */
    CHECK_EQ_INT(stats().num_cuda_mallocs - m0.num_cuda_mallocs, 1);
    ct_cuda_set_stream(def);
    ct_tensor *a2 = owned(CT_FLOAT32, 1000);   /* the default stream's block again */
    CHECK(ct_data_ptr(a2) == pa);
    /* a2 used on s1 too: freed, it waits for s1's work, then returns to the default stream's pool */
    CHECK(ct_cuda_record_stream(a2, s1) == CT_OK);
    CHECK(ct_cuda_record_stream(a2, s1) == CT_OK);   /* twice is once */
    ct_release(a2);
    CHECK_EQ_INT(stats().allocated_bytes, 4096);   /* (b2's) counted as freed at once, as PyTorch does */
    CHECK(ct_cuda_stream_synchronize(s1) == CT_OK);
    ct_tensor *a3 = owned(CT_FLOAT32, 1000);
    CHECK(ct_data_ptr(a3) == pa);
    ct_release(a3);
    ct_release(b2);
    /* held back at empty_cache: waited for, then released */
    ct_tensor *c = owned(CT_FLOAT32, 1 << 20);
    CHECK(ct_cuda_record_stream(c, s1) == CT_OK);
    ct_release(c);
    CHECK(ct_cuda_empty_cache() == CT_OK);
    CHECK_EQ_INT(stats().reserved_bytes, 0);
    CHECK_EQ_INT(stats().allocated_bytes, 0);
    ct_cuda_stream_free(s1);
}
/* ---- pinned memory and non-blocking copies ---- */
TEST(test_pinned) {
    ct_tensor *x = data(CT_FLOAT32, 0, CT_DIMS(33, 17));
    CHECK(!ct_cuda_is_pinned(x));
    ct_tensor *p = ct_cuda_pin_memory(x);
    CHECK(p && ct_cuda_is_pinned(p) && p->device.type == CT_CPU && ct_equal(p, x));
    CHECK(ct_cuda_pin_memory(p) == p || ct_data_ptr(ct_cuda_pin_memory(p)) == ct_data_ptr(p));   /* pinned already: itself */
    ct_tensor *pt = ct_cuda_pin_memory(ct_t(x));   /* a transposed source: a dense pinned copy */
    CHECK(pt && ct_is_contiguous(pt) && ct_equal(pt, ct_t(x)));
    ct_cuda_stream *s1 = ct_cuda_stream_new(0), *def = ct_cuda_set_stream(s1);
    ct_tensor *d = ct_to_device_nonblocking(p, GPU);   /* queued on s1 */
    ct_tensor *e = ct_mul_scalar(d, 3.0);
    ct_cuda_set_stream(def);
    CHECK(ct_cuda_stream_synchronize(s1) == CT_OK);
    CHECK_SAME(d, x, 0.0, 0.0);
    CHECK_SAME(e, ct_mul_scalar(x, 3.0), 0.0, 0.0);
    /* non_blocking from pageable memory, with a dtype: as ct_to_device */
    CHECK_SAME(ct_to_device_nonblocking(x, GPU), x, 0.0, 0.0);
    CHECK(ct_to_device_nonblocking(d, GPU) != NULL && ct_to_device_nonblocking(d, ct_cpu()) && ct_equal(ct_to_device_nonblocking(d, ct_cpu()), x));
    /* differentiable: the gradient comes back to the host */
    ct_tensor *xl = ct_requires_grad(ct_clone(p));
    CHECK(ct_backward(ct_sum(ct_mul_scalar(ct_to_device_nonblocking(xl, GPU), 2.0))) == CT_OK);
    CHECK(ct_grad(xl) && ct_grad(xl)->device.type == CT_CPU && ct_equal(ct_grad(xl), ct_full_like(x, 2.0)));
    CHECK_ERR(ct_cuda_pin_memory(d), CT_ERR_DEVICE, "pin_memory: cannot pin a tensor on cuda:0: only dense CPU tensors can be pinned");
    CHECK_ERR(ct_cuda_pin_memory(NULL), CT_ERR_NULL, "pin_memory");
    ct_cuda_stream_free(s1);
}
TEST(test_pinned_reuse) {
    int tok = ct_scope_begin();
    ct_tensor *p = ct_cuda_pin_memory(ct_ones(CT_FLOAT32, 1000));
    void *pp = ct_data_ptr(p);
    ct_tensor *d = ct_to_device_nonblocking(p, GPU);
    CHECK(d != NULL);
    ct_scope_end(tok);   /* p is freed; its block waits for the copy */
    CHECK(ct_cuda_synchronize() == CT_OK);
    tok = ct_scope_begin();
    ct_tensor *q = ct_cuda_pin_memory(ct_zeros(CT_FLOAT32, 900));   /* the same size class: the same block */
    CHECK(q && ct_data_ptr(q) == pp);
    ct_scope_end(tok);
    CHECK(ct_cuda_empty_cache() == CT_OK);   /* free pinned blocks go back to CUDA */
}

#include "test_cuda_reduce.h"
#include "test_cuda_nn2.h"
#include "test_cuda_shape.h"
#include "test_cuda_upsample.h"
#include "test_cuda_optim.h"
#include "test_cuda_transformer.h"
#include "test_cuda_quant.h"
#ifndef CT_TEST_NO_LINALG
#include "test_cuda_linalg.h"
#endif
static const test_case TESTS[] = {
    {"test_device_basics", test_device_basics}, {"test_from_blob_on_device", test_from_blob_on_device}, {"test_copy_across_devices", test_copy_across_devices}, {"test_copy_roundtrip", test_copy_roundtrip}, {"test_factories", test_factories},
    {"test_printing", test_printing}, {"test_unary", test_unary}, {"test_binary", test_binary}, {"test_ternary", test_ternary},
    {"test_reductions", test_reductions}, {"test_softmax", test_softmax}, {"test_gather_scatter", test_gather_scatter},
    {"test_random", test_random}, {"test_scans", test_scans}, {"test_var_std", test_var_std}, {"test_sort_topk", test_sort_topk},
    {"test_index_ops", test_index_ops}, {"test_nonzero_masked_select", test_nonzero_masked_select},
    {"test_matmul", test_matmul}, {"test_device_errors", test_device_errors}, {"test_host_reads", test_host_reads}, {"test_dlpack_device", test_dlpack_device},
    {"test_optimizers", test_optimizers}, {"test_two_devices", test_two_devices},
    {"test_mlp_step", test_mlp_step}, {"test_layer_norm", test_layer_norm}, {"test_batch_norm", test_batch_norm},
    {"test_embedding", test_embedding}, {"test_index_add", test_index_add}, {"test_cross_entropy", test_cross_entropy},
    {"test_pointwise_losses", test_pointwise_losses}, {"test_pixel_shuffle", test_pixel_shuffle}, {"test_ln_model_step", test_ln_model_step},
    {"test_conv", test_conv}, {"test_pool", test_pool}, {"test_cnn_step", test_cnn_step}, {"test_conv_half", test_conv_half}, {"test_view_grads", test_view_grads},
    {"test_allocator", test_allocator},
    {"test_streams", test_streams}, {"test_stream_allocator", test_stream_allocator}, {"test_pinned", test_pinned},
    {"test_pinned_reuse", test_pinned_reuse},
    {"test_logic_reductions", test_logic_reductions}, {"test_norm_logsumexp", test_norm_logsumexp}, {"test_mode", test_mode},
    {"test_norm_half", test_norm_half}, {"test_embedding_bag", test_embedding_bag},
    {"test_shape_gather_ops", test_shape_gather_ops}, {"test_shape_cat_stack", test_shape_cat_stack},
    {"test_shape_take_one_hot_repeat_interleave", test_shape_take_one_hot_repeat_interleave}, {"test_shape_grads", test_shape_grads},
    {"test_upsample", test_upsample}, {"test_grid_sample", test_grid_sample},
    {"test_fused_optim", test_fused_optim}, {"test_scatter_reduce", test_scatter_reduce}, {"test_randperm", test_randperm},
    {"test_multinomial", test_multinomial}, {"test_kernel_coverage", test_kernel_coverage},
    {"test_fused_attention", test_fused_attention}, {"test_fused_attention_modules", test_fused_attention_modules},
    {"test_fused_attention_nested", test_fused_attention_nested},
    {"test_q_linear_cublaslt", test_q_linear_cublaslt}, {"test_q_conv_cublaslt", test_q_conv_cublaslt},
    {"test_q_linear_dynamic_cublaslt", test_q_linear_dynamic_cublaslt},
    {"test_conv2d_relu", test_conv2d_relu},
#ifdef CT_EMU_CUBLASLT_H
    {"test_emu_cublaslt_constraints", test_emu_cublaslt_constraints},
#endif
#ifndef CT_TEST_NO_LINALG
    {"test_la_cholesky", test_la_cholesky}, {"test_la_lu_family", test_la_lu_family}, {"test_la_decompositions", test_la_decompositions},
    {"test_la_grads", test_la_grads}, {"test_la_errors", test_la_errors}, {"test_la_composites", test_la_composites},
    {"test_la_chol_solve_hh", test_la_chol_solve_hh}, {"test_la_lstsq", test_la_lstsq},
    {"test_la_pinv_expm_cross_vander", test_la_pinv_expm_cross_vander}, {"test_la_eig", test_la_eig}, {"test_la_eigh_svd_paths", test_la_eigh_svd_paths},
    {"test_la_batched_qr_trsm", test_la_batched_qr_trsm},
#endif
};
/* CT_CUDA_TESTS=name,name runs only those tests (tests/cuda/gpu_check.sh: racecheck);
   CT_CUDA_SKIP=name,name leaves those out (gpu_check.sh: the tests that crashed) */
static int listed(const char *var, const char *name) {
    const char *sel = getenv(var);
    if (!sel || !*sel) return -1;
    size_t n = strlen(name);
    for (const char *p = sel; (p = strstr(p, name)) != NULL; p += n)
        if ((p == sel || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return 1;
    return 0;
}
static int selected(const char *name) { return listed("CT_CUDA_TESTS", name) != 0 && listed("CT_CUDA_SKIP", name) != 1; }

/* A crash (a host dereference of device memory is a SIGSEGV; with the emulator's
   guard too) names the test and prints the stack, then dies of the same signal:
   on a GPU machine the run's last lines say where (gpu_check.sh links with
   -rdynamic so that the frames have names). Only async-signal-safe calls. */
static void crash_write(const char *s) {
#ifdef CT_T_BACKTRACE
    ssize_t r = write(2, s, strlen(s));
    (void)r;
#else
    fputs(s, stderr);
#endif
}
static void on_crash(int sig) {
    crash_write("\n*** test_cuda: ");
    crash_write(sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE" : sig == SIGILL ? "SIGILL" : "SIGABRT");
    crash_write(" in ");
    crash_write(ct_t_current && *ct_t_current ? ct_t_current : "(no test)");
    crash_write("; stack:\n");
#ifdef CT_T_BACKTRACE
    void *frames[64];
    int n = backtrace(frames, 64);
    backtrace_symbols_fd(frames, n, 2);
#endif
    signal(sig, SIG_DFL);
    raise(sig);
}
static void install_crash_handler(void) {
    const int sigs[5] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#ifdef CT_T_BACKTRACE
    void *warm[1];
    (void)backtrace(warm, 1);   /* loads libgcc now, not inside the handler */
#endif
    for (int k = 0; k < 5; k++) signal(sigs[k], on_crash);
}

int main(int argc, char **argv) {
#ifdef CT_TEST_NCCL
    if (argc > 1 && !strcmp(argv[1], "--nccl")) return nccl_main();
#endif
    (void)argc;
    (void)argv;
    const int ntests = (int)(sizeof TESTS / sizeof TESTS[0]);
    setvbuf(stdout, NULL, _IONBF, 0);   /* nothing lost when a test crashes */
    ct_t_init();
    install_crash_handler();
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n <= 0) {
        const char *why = e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA-capable device is detected";
        for (int k = 0; k < ntests; k++) printf("skip %s: no CUDA device (%s)\n", TESTS[k].name, why);
        /* the API agrees, without an error */
        if (ct_cuda_device_count() != 0 || ct_cuda_is_available() || ct_last_error_code() != CT_OK) {
            printf("FAIL ct_cuda_device_count() should be 0 without a device, without an error (%s)\n", ct_last_error());
            ct_t_fail++;
        }
        printf("SKIP test_cuda: all %d tests skipped: no CUDA device (%s)\n", ntests, why);
        return ct_t_summary();
    }
    char name[256];
    printf("CUDA device 0: %s (%d device%s)\n", ct_cuda_device_name(0, name, sizeof name), n, n > 1 ? "s" : "");
    GPU = ct_cuda(0);
    int64_t live0 = ct_live_tensors();
    for (int k = 0; k < ntests; k++) {
        if (!selected(TESTS[k].name)) {
            printf("skip %s: not in CT_CUDA_TESTS, or in CT_CUDA_SKIP\n", TESTS[k].name);
            continue;
        }
        if (TESTS[k].fn == test_two_devices && n < 2) {
            printf("skip %s: needs two CUDA devices (%d found)\n", TESTS[k].name, n);
            continue;
        }
        int before = ct_t_fail;
        printf("run  %s\n", TESTS[k].name);
        ct_manual_seed(1234 + (uint64_t)k);
        ct_t_current = TESTS[k].name;
        int tok = ct_scope_begin();
        TESTS[k].fn();
        ct_scope_end(tok);
        ct_clear_error();
        ct_t_current = TESTS[k].name;
        CT_T_REPORT(ct_live_tensors() == live0, "tensors left alive after the test: %lld (started with %lld)", (long long)ct_live_tensors(),
                    (long long)live0);
        printf("%s %s\n", ct_t_fail == before ? "ok  " : "FAIL", TESTS[k].name);
    }
    CHECK(ct_cuda_synchronize() == CT_OK);
    for (int d = 0; d < n && d < 2; d++) CHECK_EQ_INT(ct_cuda_memory_allocated(d), 0);   /* nothing left on the devices */
    return ct_t_summary();
}
