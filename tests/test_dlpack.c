/* test_dlpack.c - DLPack import and export (ctensor.h's "Interop: DLPack"), as
   torch.utils.dlpack.to_dlpack / from_dlpack: the struct fields a consumer reads
   (dtype codes, shape, strides in elements, device, first-element pointer), zero
   copy both ways (writes on one side seen on the other), views with strides and
   offsets, byte_offset on import, the producer's deleter called exactly once
   (counted) and only when the last view is gone, an export outliving its tensor and
   its scope, the versioned struct's version and flags (a read-only import is copied),
   kDLCUDA tensors kept on their device, and bad inputs refused with the managed
   tensor left to the caller. examples/torch_interop/dlpack_torch.py checks the same
   structs against PyTorch itself. */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"

/* a producer of our own: a counted deleter over a caller's buffer */
static int n_deleted;
static void count_del(DLManagedTensor *m) { (void)m; n_deleted++; }
static void count_del_v(DLManagedTensorVersioned *m) { (void)m; n_deleted++; }
static DLManagedTensor make_managed(void *data, int ndim, int64_t *shape, int64_t *strides, uint8_t code, uint8_t bits) {
    DLManagedTensor m;
    memset(&m, 0, sizeof m);
    m.dl_tensor.data = data;
    m.dl_tensor.device.device_type = kDLCPU;
    m.dl_tensor.ndim = ndim;
    m.dl_tensor.dtype.code = code;
    m.dl_tensor.dtype.bits = bits;
    m.dl_tensor.dtype.lanes = 1;
    m.dl_tensor.shape = shape;
    m.dl_tensor.strides = strides;
    m.deleter = count_del;
    return m;
}

TEST(test_export_fields) {
    ct_tensor *x = ct_reshape(ct_arange(0, 6, 1, CT_FLOAT32), 2, 3);
    DLManagedTensor *m = ct_to_dlpack(x);
    CHECK(m != NULL);
    if (!m) return;
    const DLTensor *d = &m->dl_tensor;
    CHECK(d->data == ct_data_ptr(x));
    CHECK_EQ_INT(d->device.device_type, kDLCPU);
    CHECK_EQ_INT(d->device.device_id, 0);
    CHECK_EQ_INT(d->ndim, 2);
    CHECK_EQ_INT(d->dtype.code, kDLFloat);
    CHECK_EQ_INT(d->dtype.bits, 32);
    CHECK_EQ_INT(d->dtype.lanes, 1);
    CHECK_EQ_INT(d->shape[0], 2);
    CHECK_EQ_INT(d->shape[1], 3);
    CHECK_EQ_INT(d->strides[0], 3);
    CHECK_EQ_INT(d->strides[1], 1);
    CHECK_EQ_INT(d->byte_offset, 0);
    CHECK(m->manager_ctx != NULL);
    m->deleter(m);
}

TEST(test_roundtrip_zero_copy) {
    ct_tensor *x = ct_reshape(ct_arange(0, 12, 1, CT_FLOAT64), 3, 4);
    ct_tensor *y = ct_from_dlpack(ct_to_dlpack(x));
    CHECK(y && ct_equal(x, y) == 1);
    CHECK(y && ct_data_ptr(y) == ct_data_ptr(x));
    CHECK(y && ct_get_dtype(y) == CT_FLOAT64 && ct_size(y, 0) == 3 && ct_size(y, 1) == 4);
    if (!y) return;
    ct_fill_(ct_select(y, 0, 1), -1.0);    /* a write through the import is seen by the original */
    CHECK_CLOSE(ct_item(ct_select(ct_select(x, 0, 1), 0, 2)), -1.0, 0);
    ((double *)ct_data_ptr(x))[0] = 42;      /* and the other way round */
    CHECK_CLOSE(ct_item(ct_select(ct_select(y, 0, 0), 0, 0)), 42.0, 0);
}

TEST(test_every_dtype) {
    static const struct { ct_dtype dt; int code, bits; } rows[] = {
        {CT_FLOAT32, kDLFloat, 32}, {CT_FLOAT64, kDLFloat, 64}, {CT_FLOAT16, kDLFloat, 16}, {CT_BFLOAT16, kDLBfloat, 16},
        {CT_INT64, kDLInt, 64},     {CT_INT32, kDLInt, 32},     {CT_INT16, kDLInt, 16},     {CT_INT8, kDLInt, 8},
        {CT_UINT8, kDLUInt, 8},     {CT_BOOL, kDLBool, 8},      {CT_COMPLEX64, kDLComplex, 64}, {CT_COMPLEX128, kDLComplex, 128}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        static unsigned char bytes[6 * 16];   /* 6 elements of any dtype */
        for (int k = 0; k < (int)sizeof bytes; k++) bytes[k] = (unsigned char)(k % 2);   /* bool-safe */
        ct_tensor *x = ct_from_data(bytes, rows[i].dt, 3, 2);
        CHECK(x != NULL);
        DLManagedTensor *m = ct_to_dlpack(x);
        CHECK(m && m->dl_tensor.dtype.code == rows[i].code && m->dl_tensor.dtype.bits == rows[i].bits);
        ct_tensor *y = ct_from_dlpack(m);
        CHECK(y && ct_get_dtype(y) == rows[i].dt && ct_data_ptr(x) == ct_data_ptr(y) && ct_size(y, 0) == 3 &&
              ct_size(y, 1) == 2 && ct_stride(y, 0) == 2);
        if (y && !ct_dtype_is_complex(rows[i].dt)) CHECK(ct_equal(x, y) == 1);
        if (!y) printf("  dtype %s: %s\n", ct_dtype_name(rows[i].dt), ct_last_error());
    }
}

TEST(test_views_strides_offsets) {
    ct_tensor *x = ct_reshape(ct_arange(0, 24, 1, CT_FLOAT32), 2, 3, 4);
    ct_tensor *v = ct_slice(ct_permute(x, 2, 0, 1), 0, 1, 4, 2);   /* shape 2x2x3, offset 1 */
    DLManagedTensor *m = ct_to_dlpack(v);
    CHECK(m != NULL);
    if (!m) return;
    CHECK(m->dl_tensor.data == (float *)ct_data_ptr(x) + 1);       /* the first element, byte_offset 0 */
    CHECK_EQ_INT(m->dl_tensor.byte_offset, 0);
    CHECK_EQ_INT(m->dl_tensor.strides[0], 2);
    CHECK_EQ_INT(m->dl_tensor.strides[1], 12);
    CHECK_EQ_INT(m->dl_tensor.strides[2], 4);
    ct_tensor *y = ct_from_dlpack(m);
    CHECK(y && ct_equal(v, y) == 1 && !ct_is_contiguous(y) && ct_stride(y, 1) == 12);
    CHECK(y && ct_data_ptr(y) == ct_data_ptr(v));

    /* import: byte_offset and NULL strides (compact row-major) */
    static float buf[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    int64_t shape[2] = {2, 3};
    DLManagedTensor h = make_managed(buf, 2, shape, NULL, kDLFloat, 32);
    h.dl_tensor.byte_offset = 2 * sizeof(float);
    n_deleted = 0;
    int tok = ct_scope_begin();
    ct_tensor *z = ct_from_dlpack(&h);
    static const double want[6] = {2, 3, 4, 5, 6, 7};
    CHECK_VALUES(z, want, 6, 0);
    CHECK(z && ct_data_ptr(z) == &buf[2] && ct_is_contiguous(z));
    ct_scope_end(tok);
    CHECK_EQ_INT(n_deleted, 1);
}

TEST(test_deleter_once_after_last_view) {
    static int32_t buf[12];
    for (int i = 0; i < 12; i++) buf[i] = i;
    int64_t shape[2] = {4, 3}, strides[2] = {1, 4};   /* a Fortran-order producer */
    DLManagedTensor h = make_managed(buf, 2, shape, strides, kDLInt, 32);
    n_deleted = 0;
    ct_tensor *keep = NULL;
    int tok = ct_scope_begin();
    ct_tensor *x = ct_from_dlpack(&h);
    CHECK(x != NULL);
    CHECK_CLOSE(ct_item(ct_select(ct_select(x, 0, 1), 0, 2)), 9, 0);   /* buf[1 + 2*4] */
    keep = ct_retain(ct_narrow(x, 0, 1, 2));                             /* a view outlives the scope */
    ct_scope_end(tok);
    CHECK_EQ_INT(n_deleted, 0);
    tok = ct_scope_begin();
    CHECK_CLOSE(ct_item(ct_select(ct_select(keep, 0, 0), 0, 0)), 1, 0);
    ct_scope_end(tok);
    CHECK_EQ_INT(n_deleted, 0);
    ct_release(keep);
    CHECK_EQ_INT(n_deleted, 1);
}

TEST(test_export_outlives_tensor) {
    int64_t tensors0 = ct_live_tensors(), bytes0 = ct_live_bytes();
    DLManagedTensor *m;
    DLManagedTensorVersioned *v;
    int tok = ct_scope_begin();
    ct_tensor *x = ct_full(CT_FLOAT32, 7.0, 1000);
    m = ct_to_dlpack(x);
    v = ct_to_dlpack_versioned(x, 0);
    ct_scope_end(tok);
    CHECK(m && v);
    if (!m || !v) return;
    CHECK_EQ_INT(ct_live_tensors(), tensors0);                /* the tensor is gone, the memory is not */
    CHECK(ct_live_bytes() >= bytes0 + 4000);
    CHECK_CLOSE(((float *)m->dl_tensor.data)[999], 7.0, 0); /* ASan: still allocated */
    m->deleter(m);
    CHECK_CLOSE(((float *)v->dl_tensor.data)[0], 7.0, 0);
    v->deleter(v);
    CHECK_EQ_INT(ct_live_bytes(), bytes0);
}

TEST(test_versioned) {
    ct_tensor *x = ct_reshape(ct_arange(0, 6, 1, CT_INT64), 2, 3);
    DLManagedTensorVersioned *v = ct_to_dlpack_versioned(x, DLPACK_FLAG_BITMASK_IS_COPIED);
    CHECK(v != NULL);
    if (!v) return;
    CHECK_EQ_INT(v->version.major, 1);
    CHECK_EQ_INT(v->version.minor, 0);
    CHECK_EQ_INT(v->flags, DLPACK_FLAG_BITMASK_IS_COPIED);
    CHECK(v->dl_tensor.data == ct_data_ptr(x) && v->dl_tensor.dtype.code == kDLInt && v->dl_tensor.dtype.bits == 64);
    ct_tensor *y = ct_from_dlpack_versioned(v);
    CHECK(y && ct_equal(x, y) == 1 && ct_data_ptr(y) == ct_data_ptr(x));

    /* read-only: imported as a copy, and the producer's deleter runs at once */
    static double buf[3] = {1.5, 2.5, 3.5};
    int64_t shape[1] = {3};
    DLManagedTensorVersioned r;
    memset(&r, 0, sizeof r);
    r.version.major = 1;
    r.version.minor = 3;   /* a newer minor version is compatible */
    r.deleter = count_del_v;
    r.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
    r.dl_tensor.data = buf;
    r.dl_tensor.device.device_type = kDLCPU;
    r.dl_tensor.ndim = 1;
    r.dl_tensor.dtype.code = kDLFloat;
    r.dl_tensor.dtype.bits = 64;
    r.dl_tensor.dtype.lanes = 1;
    r.dl_tensor.shape = shape;
    n_deleted = 0;
    ct_tensor *z = ct_from_dlpack_versioned(&r);
    CHECK_EQ_INT(n_deleted, 1);
    CHECK_VALUES(z, buf, 3, 0);
    CHECK(z && ct_data_ptr(z) != (void *)buf);
    DLManagedTensorVersioned *ro = ct_to_dlpack_versioned(x, DLPACK_FLAG_BITMASK_READ_ONLY);
    CHECK(ro && ro->flags == DLPACK_FLAG_BITMASK_READ_ONLY && ro->dl_tensor.data == ct_data_ptr(x));
    if (ro) ro->deleter(ro);
}

TEST(test_cuda_device_and_empty) {
    /* a kDLCUDA tensor stays on its device (its memory is never touched here) */
    static float fake[4];
    int64_t shape[1] = {4};
    DLManagedTensor h = make_managed(fake, 1, shape, NULL, kDLFloat, 32);
    h.dl_tensor.device.device_type = kDLCUDA;
    h.dl_tensor.device.device_id = 1;
    n_deleted = 0;
    int tok = ct_scope_begin();
    ct_tensor *x = ct_from_dlpack(&h);
    CHECK(x && x->device.type == CT_CUDA && x->device.index == 1);
    DLManagedTensor *back = ct_to_dlpack(x);
    CHECK(back && back->dl_tensor.device.device_type == kDLCUDA && back->dl_tensor.device.device_id == 1 &&
          back->dl_tensor.data == (void *)fake);
    if (back) back->deleter(back);
    ct_scope_end(tok);
    CHECK_EQ_INT(n_deleted, 1);

    /* no elements: a NULL data pointer is allowed */
    int64_t eshape[2] = {0, 3};
    DLManagedTensor e = make_managed(NULL, 2, eshape, NULL, kDLFloat, 32);
    n_deleted = 0;
    tok = ct_scope_begin();
    ct_tensor *y = ct_from_dlpack(&e);
    CHECK(y && ct_numel(y) == 0 && ct_size(y, 1) == 3);
    ct_scope_end(tok);
    CHECK_EQ_INT(n_deleted, 1);
    /* kDLCUDAHost (pinned host memory) is a CPU tensor */
    static int8_t pinned[2] = {3, -4};
    int64_t pshape[1] = {2};
    DLManagedTensor p = make_managed(pinned, 1, pshape, NULL, kDLInt, 8);
    p.dl_tensor.device.device_type = kDLCUDAHost;
    n_deleted = 0;
    tok = ct_scope_begin();
    ct_tensor *z = ct_from_dlpack(&p);
    static const double pwant[2] = {3, -4};
    CHECK(z && z->device.type == CT_CPU && ct_get_dtype(z) == CT_INT8);
    CHECK_VALUES(z, pwant, 2, 0);
    ct_scope_end(tok);
    CHECK_EQ_INT(n_deleted, 1);
}

TEST(test_errors) {
    static float buf[16];
    int64_t shape[2] = {2, 3}, strides[2] = {3, 1};
    DLManagedTensor h;
    n_deleted = 0;
    CHECK_ERR(ct_to_dlpack(NULL), CT_ERR_NULL, "to_dlpack");
    CHECK_ERR(ct_to_dlpack_versioned(NULL, 0), CT_ERR_NULL, "to_dlpack_versioned");
    CHECK_ERR(ct_from_dlpack(NULL), CT_ERR_ARG, "from_dlpack: the managed tensor is NULL");
    CHECK_ERR(ct_from_dlpack_versioned(NULL), CT_ERR_ARG, "from_dlpack_versioned: the managed tensor is NULL");
    ct_tensor *g = ct_requires_grad(ct_ones(CT_FLOAT32, 2));
    CHECK_ERR(ct_to_dlpack(g), CT_ERR_AUTOGRAD, "Can't export tensors that require gradient, use tensor.detach()");
    CHECK_ERR(ct_to_dlpack(ct_mul_scalar(g, 2)), CT_ERR_AUTOGRAD, "require gradient");
    CHECK_ERR(ct_to_dlpack_versioned(ct_ones(CT_FLOAT32, 2), 4), CT_ERR_ARG, "to_dlpack_versioned: unknown flags 0x4");

    h = make_managed(buf, 2, shape, strides, kDLFloat, 32);
    h.dl_tensor.dtype.lanes = 4;
    CHECK_ERR(ct_from_dlpack(&h), CT_ERR_DTYPE, "from_dlpack: vector dtypes are not supported (lanes 4)");
    h = make_managed(buf, 2, shape, strides, kDLFloat, 24);
    CHECK_ERR(ct_from_dlpack(&h), CT_ERR_DTYPE, "from_dlpack: unsupported DLPack dtype (code 2, bits 24)");
    h = make_managed(buf, 2, shape, strides, kDLOpaqueHandle, 64);
    CHECK_ERR(ct_from_dlpack(&h), CT_ERR_DTYPE, "unsupported DLPack dtype (code 3, bits 64)");
    h = make_managed(buf, 2, shape, strides, 255, 0);   /* the table's "no code" mark is no dtype */
    CHECK_ERR(ct_from_dlpack(&h), CT_ERR_DTYPE, "unsupported DLPack dtype (code 255, bits 0)");
    h = make_managed(buf, 2, shape, strides, kDLFloat, 32);
    h.dl_tensor.device.device_type = kDLOpenCL;
    CHECK_ERR(ct_from_dlpack(&h), CT_ERR_DEVICE, "from_dlpack: unsupported device type 4");
    h.dl_tensor.device.device_type = kDLCUDA;
    h.dl_tensor.device.device_id = -1;
    CHECK_ERR(ct_from_dlpack(&h), CT_ERR_DEVICE, "invalid CUDA device id -1");
    int64_t neg[2] = {2, -3};
    h = make_managed(buf, 2, neg, strides, kDLFloat, 32);
    CHECK_ERR(ct_from_dlpack(&h), CT_ERR_ARG, "negative dimension -3");
    h = make_managed(buf, 9, shape, strides, kDLFloat, 32);
    CHECK_ERR(ct_from_dlpack(&h), CT_ERR_ARG, "number of dimensions 9 exceeds the maximum of 8");
    h = make_managed(buf, 2, NULL, strides, kDLFloat, 32);
    CHECK_ERR(ct_from_dlpack(&h), CT_ERR_ARG, "shape pointer is NULL");
    int64_t big[2] = {(int64_t)1 << 40, (int64_t)1 << 40};
    h = make_managed(buf, 2, big, NULL, kDLFloat, 32);
    CHECK_ERR(ct_from_dlpack(&h), CT_ERR_MEMORY, "is too large");
    int64_t nstr[2] = {3, -1}, hstr[2] = {INT64_MAX / 2, 1};
    h = make_managed(buf, 2, shape, nstr, kDLFloat, 32);
    CHECK_ERR(ct_from_dlpack(&h), CT_ERR_UNSUPPORTED, "negative strides are not supported (stride -1 in dim 1)");
    h = make_managed(buf, 2, shape, hstr, kDLFloat, 32);
    CHECK_ERR(ct_from_dlpack(&h), CT_ERR_ARG, "overflow the addressable range");
    h = make_managed(NULL, 2, shape, strides, kDLFloat, 32);
    CHECK_ERR(ct_from_dlpack(&h), CT_ERR_ARG, "from_dlpack: data pointer is NULL");
    h = make_managed(buf, 2, shape, strides, kDLFloat, 32);
    h.dl_tensor.byte_offset = 2;
    CHECK_ERR(ct_from_dlpack(&h), CT_ERR_ARG, "byte_offset 2 is not a multiple of the element size 4");

    DLManagedTensorVersioned v;
    memset(&v, 0, sizeof v);
    v.version.major = 2;
    v.deleter = count_del_v;
    v.dl_tensor = make_managed(buf, 2, shape, strides, kDLFloat, 32).dl_tensor;
    CHECK_ERR(ct_from_dlpack_versioned(&v), CT_ERR_UNSUPPORTED, "DLPack version 2.0 is not supported");
    v.version.major = 1;
    v.dl_tensor.dtype.lanes = 2;
    CHECK_ERR(ct_from_dlpack_versioned(&v), CT_ERR_DTYPE, "from_dlpack_versioned: vector dtypes");
    /* a failed import leaves the managed tensor to the caller: no deleter ran */
    CHECK_EQ_INT(n_deleted, 0);
}

int main(void) {
    ct_t_init();
    RUN(test_export_fields);
    RUN(test_roundtrip_zero_copy);
    RUN(test_every_dtype);
    RUN(test_views_strides_offsets);
    RUN(test_deleter_once_after_last_view);
    RUN(test_export_outlives_tensor);
    RUN(test_versioned);
    RUN(test_cuda_device_and_empty);
    RUN(test_errors);
    return ct_t_summary();
}
