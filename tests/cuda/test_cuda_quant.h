/* tests/cuda/test_cuda_quant.h - part of tests/cuda/test_cuda.c (included by it):
   ctensor_quant.h's quantized::linear and linear_relu on the device (int8 GEMM
   through cuBLASLt, requantisation in a kernel) against the CPU path on the same
   quint8 inputs and packed weight: the output codes must be equal, as the device
   repeats the CPU's float32 epilogue operation for operation (see "Quantized
   inference" in ctensor_cuda.h). Per-tensor and per-channel weights, weight
   zero points, bias or none, relu, 2-D and 3-D inputs, K and N not multiples
   of 4 (the padding), K = 1; quantized tensors to and from the device; the
   errors (a CPU device, a CPU weight with a device input, a float input, a
   view). */

/* a qint8 weight [N, K]: per channel (scales in [0.004, 0.014)) when pc, else per
   tensor (scale 0.006); weight zero points when wzp */
static ct_tensor *q_weight(int64_t N, int64_t K, int pc, int wzp) {
    int64_t ws[2] = {N, K};
    ct_tensor *wf = ct_mul_scalar(ct_randn_n(CT_FLOAT32, 2, ws), 0.5);
    if (!pc) return ct_quantize_per_tensor(wf, 0.006, wzp ? 3 : 0, CT_QINT8);
    ct_tensor *sc = ct_add_scalar(ct_mul_scalar(ct_rand(CT_FLOAT64, N), 0.01), 0.004);
    ct_tensor *zp = wzp ? ct_randint(-5, 6, CT_INT64, N) : ct_zeros(CT_INT64, N);
    return ct_quantize_per_channel(wf, sc, zp, 0, CT_QINT8);
}
/* the packed weight on the CPU (*w) and moved to the device (*wd); -1 (a failed
   check, both freed) when either is missing */
static int q_pack_both(const ct_tensor *wq, const ct_tensor *b, ct_q_linear_packed **w, ct_q_linear_packed **wd) {
    *w = ct_q_linear_prepack(wq, b);
    *wd = *w ? ct_cuda_q_linear_packed_to(*w, ct_cuda(0)) : NULL;
    CHECK(*w && *wd);
    if (*w && *wd) return 0;
    ct_q_linear_packed_free(*w);
    ct_q_linear_packed_free(*wd);
    return -1;
}
/* one case: x [rows..., K] quint8, w [N, K] qint8 (per channel when pc), output
   parameters (os, oz); the CPU's and the device's codes compared */
static void q_lin_case(int nd, const int64_t *xs, int64_t N, int pc, int wzp, int bias, int relu, double os, int64_t oz) {
    int64_t K = xs[nd - 1];
    ct_tensor *xq = ct_quantize_per_tensor(ct_mul_scalar(ct_randn_n(CT_FLOAT32, nd, xs), 2.0), 0.03, 117, CT_QUINT8);
    ct_tensor *wq = q_weight(N, K, pc, wzp);
    ct_tensor *b = bias ? ct_randn(CT_FLOAT32, N) : NULL;
    ct_q_linear_packed *w, *wd;
    if (q_pack_both(wq, b, &w, &wd)) return;
    CHECK_EQ_INT(ct_q_linear_packed_in_features(wd), K);
    CHECK_EQ_INT(ct_q_linear_packed_out_features(wd), N);
    ct_tensor *xd = ct_to_device(xq, ct_cuda(0));
    CHECK(xd && ct_get_device(xd).type == CT_CUDA && ct_q_scale(xd) == 0.03 && ct_q_zero_point(xd) == 117);
    ct_tensor *yc = relu ? ct_q_linear_relu(xq, w, os, oz) : ct_q_linear(xq, w, os, oz);
    ct_tensor *yd = relu ? ct_q_linear_relu(xd, wd, os, oz) : ct_q_linear(xd, wd, os, oz);
    CHECK(yc && yd);
    if (yc && yd) {
        CHECK(ct_get_device(yd).type == CT_CUDA && yd->dtype == CT_QUINT8);
        ct_tensor *yh = ct_to_device(yd, ct_cpu());
        CHECK(yh && ct_q_scale(yh) == os && ct_q_zero_point(yh) == oz);
        ct_tensor *d = ct_sub(ct_to(ct_int_repr(yh), CT_INT32), ct_to(ct_int_repr(yc), CT_INT32));
        CHECK_EQ_INT(ct_item_int(ct_count_nonzero(d, 0, NULL)), 0);
        if (relu) CHECK(ct_item_int(ct_amin(ct_to(ct_int_repr(yh), CT_INT32), 0, NULL, 0)) >= oz);
        /* the codes span the range (the case exercises the clamps) */
        CHECK(ct_item_int(ct_amax(ct_to(ct_int_repr(yc), CT_INT32), 0, NULL, 0)) > oz);
    }
    ct_q_linear_packed_free(w);
    ct_q_linear_packed_free(wd);
}
TEST(test_q_linear_cublaslt) {
    ct_manual_seed(71);
    const int64_t a[2] = {5, 37}, bsh[3] = {2, 3, 64}, c[2] = {1, 1}, d[2] = {9, 130};
    q_lin_case(2, a, 19, 0, 0, 1, 0, 0.05, 100);   /* per tensor, K and N not multiples of 4 */
    q_lin_case(3, bsh, 64, 1, 1, 0, 1, 0.04, 90);  /* per channel, weight zero points, no bias, relu */
    q_lin_case(2, c, 3, 0, 1, 1, 1, 0.02, 128);    /* K = 1 */
    q_lin_case(2, d, 33, 1, 0, 1, 0, 0.2, 0);      /* zero point 0: the low clamp */
    /* errors */
    ct_tensor *wq = ct_quantize_per_tensor(ct_randn(CT_FLOAT32, 4, 8), 0.01, 0, CT_QINT8);
    ct_q_linear_packed *w = ct_q_linear_prepack(wq, NULL);
    CHECK(w != NULL);
    CHECK(ct_cuda_q_linear_packed_to(w, ct_cpu()) == NULL);
    CHECK(strstr(ct_last_error(), "ct_cuda_q_linear_packed_to: expected a CUDA device, got cpu") != NULL);
    CHECK(ct_cuda_q_linear_packed_to(NULL, ct_cuda(0)) == NULL);
    CHECK(strstr(ct_last_error(), "the packed weight is NULL") != NULL);
    ct_q_linear_packed *wd = ct_cuda_q_linear_packed_to(w, ct_cuda(0));
    ct_tensor *xq = ct_quantize_per_tensor(ct_randn(CT_FLOAT32, 3, 8), 0.05, 10, CT_QUINT8);
    ct_tensor *xd = ct_to_device(xq, ct_cuda(0));
    CHECK(ct_q_linear(xd, w, 0.1, 0) == NULL);   /* device input, CPU weight */
    CHECK(ct_last_error()[0] != 0);
    CHECK(ct_q_linear(xq, wd, 0.1, 0) == NULL);  /* CPU input, device weight */
    CHECK(ct_q_linear(ct_to_device(ct_randn(CT_FLOAT32, 3, 8), ct_cuda(0)), wd, 0.1, 0) == NULL);
    CHECK(ct_q_linear(xd, wd, -1.0, 0) == NULL);
    CHECK(strstr(ct_last_error(), "quantized_linear") != NULL);
    ct_tensor *xt = ct_to_device(ct_quantize_per_tensor(ct_randn(CT_FLOAT32, 8, 3), 0.05, 10, CT_QUINT8), ct_cuda(0));
    CHECK(ct_q_linear(ct_transpose(xt, 0, 1), wd, 0.1, 0) == NULL);
    CHECK(strstr(ct_last_error(), "quantized_linear: the input must be contiguous on CUDA") != NULL);
    CHECK(ct_to_device(ct_transpose(xq, 0, 1), ct_cuda(0)) == NULL);
    CHECK(strstr(ct_last_error(), "only when contiguous") != NULL);
    ct_q_linear_packed_free(w);
    ct_q_linear_packed_free(wd);
}
#ifdef CT_EMU_CUBLASLT_H
/* the emulated cuBLASLt refuses what cuBLASLt refuses for int8 in the regular
   order (so that the kernel's call, which passes here, is a valid one there) */
TEST(test_emu_cublaslt_constraints) {
    int8_t *A = NULL, *B = NULL;
    int32_t *C = NULL;
    CHECK(cudaMalloc((void **)&A, 64) == cudaSuccess && cudaMalloc((void **)&B, 64) == cudaSuccess && cudaMalloc((void **)&C, 256) == cudaSuccess);
    cublasLtHandle_t h = NULL;
    cublasLtMatmulDesc_t d = NULL;
    cublasLtMatrixLayout_t la = NULL, lb = NULL, lc = NULL, lodd = NULL, lbad = NULL;
    CHECK(cublasLtCreate(&h) == CUBLAS_STATUS_SUCCESS && cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32I, CUDA_R_32I) == CUBLAS_STATUS_SUCCESS);
    CHECK(cublasLtMatrixLayoutCreate(&la, CUDA_R_8I, 4, 4, 4) == CUBLAS_STATUS_SUCCESS);   /* A: k x m, op T */
    CHECK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8I, 4, 4, 4) == CUBLAS_STATUS_SUCCESS);   /* B: k x n */
    CHECK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32I, 4, 4, 4) == CUBLAS_STATUS_SUCCESS);
    CHECK(cublasLtMatrixLayoutCreate(&lodd, CUDA_R_8I, 4, 4, 6) == CUBLAS_STATUS_SUCCESS); /* ld 6: not a multiple of 4 */
    CHECK(cublasLtMatrixLayoutCreate(&lbad, CUDA_R_8I, 4, 4, 2) == CUBLAS_STATUS_INVALID_VALUE && lbad == NULL);   /* ld < rows */
    int32_t one = 1, zero = 0, t = CUBLAS_OP_T, n = CUBLAS_OP_N;
    /* NN: not supported for int8 */
    CHECK(cublasLtMatmul(h, d, &one, A, la, B, lb, &zero, C, lc, C, lc, NULL, NULL, 0, 0) == CUBLAS_STATUS_NOT_SUPPORTED);
    CHECK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t) == CUBLAS_STATUS_SUCCESS);
    CHECK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n) == CUBLAS_STATUS_SUCCESS);
    CHECK(cublasLtMatmul(h, d, &one, A, la, B, lb, &zero, C, lc, C, lc, NULL, NULL, 0, 0) == CUBLAS_STATUS_SUCCESS);   /* TN */
    CHECK(cublasLtMatmul(h, d, &one, A, lodd, B, lb, &zero, C, lc, C, lc, NULL, NULL, 0, 0) == CUBLAS_STATUS_NOT_SUPPORTED);
    CHECK(cublasLtMatmul(h, d, &one, A + 1, la, B, lb, &zero, C, lc, C, lc, NULL, NULL, 0, 0) == CUBLAS_STATUS_NOT_SUPPORTED);   /* misaligned */
    CHECK(cublasLtMatmul(h, d, &one, A, la, B, lc, &zero, C, lc, C, lc, NULL, NULL, 0, 0) == CUBLAS_STATUS_NOT_SUPPORTED);      /* B not int8 */
    (void)cublasLtMatrixLayoutDestroy(lodd);
    (void)cublasLtMatrixLayoutDestroy(lc);
    (void)cublasLtMatrixLayoutDestroy(lb);
    (void)cublasLtMatrixLayoutDestroy(la);
    (void)cublasLtMatmulDescDestroy(d);
    (void)cublasLtDestroy(h);
    (void)cudaFree(A);
    (void)cudaFree(B);
    (void)cudaFree(C);
}
#endif

/* quantized conv2d / conv2d_relu on the device (im2col into int8, cuBLASLt per
   group, the requantisation kernel) against the CPU path on the same quint8
   input and packed weight: equal codes. x [N, C, H, W], w [O, C/groups, kh, kw]
   (per channel when pc, weight zero points when wzp), stride / padding /
   dilation per axis, groups (depthwise when groups = C = O: the direct kernel;
   the rest through im2col and cuBLASLt). */
typedef struct q_conv_cfg {
    int64_t N, C, H, W, O, kh, kw, sh, sw, ph, pw, dh, dw, groups;
    int pc, wzp, bias, relu;
    double os;
    int64_t oz;
} q_conv_cfg;
static void q_conv_case(const q_conv_cfg *g) {
    int64_t xs[4] = {g->N, g->C, g->H, g->W}, ws[4] = {g->O, g->C / g->groups, g->kh, g->kw};
    ct_tensor *xq = ct_quantize_per_tensor(ct_mul_scalar(ct_randn_n(CT_FLOAT32, 4, xs), 2.0), 0.03, 117, CT_QUINT8);
    ct_tensor *wf = ct_mul_scalar(ct_randn_n(CT_FLOAT32, 4, ws), 0.5), *wq;
    if (g->pc) {
        ct_tensor *sc = ct_add_scalar(ct_mul_scalar(ct_rand(CT_FLOAT64, g->O), 0.01), 0.004);
        ct_tensor *zp = g->wzp ? ct_randint(-5, 6, CT_INT64, g->O) : ct_zeros(CT_INT64, g->O);
        wq = ct_quantize_per_channel(wf, sc, zp, 0, CT_QINT8);
    } else {
        wq = ct_quantize_per_tensor(wf, 0.006, g->wzp ? 3 : 0, CT_QINT8);
    }
    ct_tensor *b = g->bias ? ct_randn(CT_FLOAT32, g->O) : NULL;
    ct_conv_options o;
    memset(&o, 0, sizeof o);
    o.stride_hw[0] = g->sh; o.stride_hw[1] = g->sw;
    o.padding_hw[0] = g->ph; o.padding_hw[1] = g->pw;
    o.dilation_hw[0] = g->dh; o.dilation_hw[1] = g->dw;
    o.groups = g->groups;
    ct_q_conv_packed *w = ct_q_conv2d_prepack(wq, b, &o);
    ct_q_conv_packed *wd = w ? ct_cuda_q_conv_packed_to(w, ct_cuda(0)) : NULL;
    CHECK(w && wd);
    if (!w || !wd) {
        if (!wd) fprintf(stderr, "  q_conv_case: %s\n", ct_last_error());
        ct_q_conv_packed_free(w);
        ct_q_conv_packed_free(wd);
        return;
    }
    /* the device weight is the CPU's (codes and parameters) */
    CHECK(ct_get_device(wd->weight).type == CT_CUDA && wd->weight->dtype == CT_QINT8);
    ct_tensor *wback = ct_to_device(wd->weight, ct_cpu());
    CHECK(wback && ct_item_int(ct_count_nonzero(ct_sub(ct_to(ct_int_repr(wback), CT_INT32), ct_to(ct_int_repr(wq), CT_INT32)), 0, NULL)) == 0);
    ct_tensor *xd = ct_to_device(xq, ct_cuda(0));
    ct_tensor *yc = g->relu ? ct_q_conv2d_relu(xq, w, g->os, g->oz) : ct_q_conv2d(xq, w, g->os, g->oz);
    ct_tensor *yd = g->relu ? ct_q_conv2d_relu(xd, wd, g->os, g->oz) : ct_q_conv2d(xd, wd, g->os, g->oz);
    CHECK(yc && yd);
    if (!yd) fprintf(stderr, "  q_conv_case: %s\n", ct_last_error());
    if (yc && yd) {
        CHECK(ct_get_device(yd).type == CT_CUDA && yd->dtype == CT_QUINT8 && ct_same_shape(yd, yc));
        ct_tensor *yh = ct_to_device(yd, ct_cpu());
        CHECK(yh && ct_q_scale(yh) == g->os && ct_q_zero_point(yh) == g->oz);
        ct_tensor *d = ct_sub(ct_to(ct_int_repr(yh), CT_INT32), ct_to(ct_int_repr(yc), CT_INT32));
        int64_t nz = ct_item_int(ct_count_nonzero(d, 0, NULL));
        CHECK_EQ_INT(nz, 0);
        if (g->relu) CHECK(ct_item_int(ct_amin(ct_to(ct_int_repr(yh), CT_INT32), 0, NULL, 0)) >= g->oz);
        /* the codes span the range (the case exercises the clamps) */
        CHECK(ct_item_int(ct_amax(ct_to(ct_int_repr(yc), CT_INT32), 0, NULL, 0)) > g->oz);
    }
    ct_q_conv_packed_free(w);
    ct_q_conv_packed_free(wd);
}
TEST(test_q_conv_cublaslt) {
    ct_manual_seed(73);
    /*                 N  C  H  W   O kh kw sh sw ph pw dh dw  G  pc wzp bias relu  os    oz */
    q_conv_cfg cs[] = {{2, 3, 9, 8, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0.05, 100},   /* the stem shape: K = 27, O not a multiple of 4 */
                       {1, 8, 7, 7, 8, 3, 2, 2, 1, 0, 2, 1, 2, 2, 1, 1, 0, 1, 0.04, 90},   /* groups, stride, dilation, per channel + zero points, relu */
                       {2, 6, 6, 5, 6, 3, 3, 1, 2, 2, 1, 2, 1, 6, 1, 0, 1, 0, 0.03, 128},  /* depthwise, padding past the dilated kernel's reach */
                       {1, 16, 4, 4, 12, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0.2, 0},   /* 1x1, weight zero point, the low clamp at 0 */
                       {3, 4, 5, 6, 7, 2, 3, 3, 2, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0.1, 64},
                       {2, 5, 7, 6, 5, 3, 2, 2, 1, 1, 1, 1, 2, 5, 1, 1, 0, 1, 0.05, 60},  /* depthwise (the direct kernel): per channel + zero points, relu */
                       {1, 3, 5, 5, 6, 3, 3, 1, 1, 1, 1, 1, 1, 3, 0, 0, 1, 0, 0.05, 100}}; /* channel multiplier 2 (Cg = 1, Og = 2: the GEMM) */
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) q_conv_case(&cs[i]);
    /* a conv chain on the device: the output feeds the next conv without leaving it */
    ct_tensor *wq = ct_quantize_per_tensor(ct_mul_scalar(ct_randn(CT_FLOAT32, 4, 4, 3, 3), 0.3), 0.005, 0, CT_QINT8);
    ct_conv_options o;
    memset(&o, 0, sizeof o);
    o.padding = 1;
    ct_q_conv_packed *w = ct_q_conv2d_prepack(wq, NULL, &o), *wd = w ? ct_cuda_q_conv_packed_to(w, ct_cuda(0)) : NULL;
    CHECK(w && wd);
    ct_tensor *xq = ct_quantize_per_tensor(ct_randn(CT_FLOAT32, 1, 4, 6, 6), 0.04, 120, CT_QUINT8), *xd = ct_to_device(xq, ct_cuda(0));
    ct_tensor *yc = ct_q_conv2d(ct_q_conv2d_relu(xq, w, 0.05, 30), w, 0.07, 125);
    ct_tensor *yd = ct_q_conv2d(ct_q_conv2d_relu(xd, wd, 0.05, 30), wd, 0.07, 125);
    CHECK(yc && yd);
    if (yc && yd)
        CHECK_EQ_INT(ct_item_int(ct_count_nonzero(ct_sub(ct_to(ct_int_repr(ct_to_device(yd, ct_cpu())), CT_INT32), ct_to(ct_int_repr(yc), CT_INT32)), 0, NULL)), 0);
    /* errors */
    CHECK(ct_cuda_q_conv_packed_to(w, ct_cpu()) == NULL);
    CHECK(strstr(ct_last_error(), "ct_cuda_q_conv_packed_to: expected a CUDA device, got cpu") != NULL);
    CHECK(ct_cuda_q_conv_packed_to(NULL, ct_cuda(0)) == NULL);
    CHECK(strstr(ct_last_error(), "ct_cuda_q_conv_packed_to: the packed weight is NULL") != NULL);
    CHECK(ct_q_conv2d(xd, w, 0.1, 0) == NULL);   /* device input, CPU weight: the dispatcher's device error */
    CHECK(ct_last_error_code() == CT_ERR_DEVICE);
    CHECK(ct_q_conv2d(xq, wd, 0.1, 0) == NULL);  /* CPU input, device weight */
    CHECK(ct_last_error_code() == CT_ERR_DEVICE);
    CHECK(ct_q_conv2d(ct_to_device(ct_randn(CT_FLOAT32, 1, 4, 6, 6), ct_cuda(0)), wd, 0.1, 0) == NULL);   /* a float input */
    CHECK(ct_last_error()[0] != 0);
    CHECK(ct_q_conv2d(xd, wd, -1.0, 0) == NULL);
    CHECK(strstr(ct_last_error(), "quantized::conv2d") != NULL);
    ct_tensor *x3 = ct_to_device(ct_quantize_per_tensor(ct_randn(CT_FLOAT32, 1, 3, 6, 6), 0.04, 120, CT_QUINT8), ct_cuda(0));
    CHECK(ct_q_conv2d(x3, wd, 0.1, 0) == NULL);
    CHECK(strstr(ct_last_error(), "quantized::conv2d: Given groups=1, weight of size [4, 4, 3, 3], expected input[1, 3, 6, 6] to have 4 channels, but got 3 channels instead") != NULL);
    ct_tensor *xs = ct_to_device(ct_quantize_per_tensor(ct_randn(CT_FLOAT32, 1, 4, 1, 1), 0.04, 120, CT_QUINT8), ct_cuda(0));
    CHECK(ct_q_conv2d_relu(xs, wd, 0.1, 0) != NULL);   /* padding 1: a 1x1 output */
    o.padding = 0;
    ct_q_conv_packed *w0 = ct_q_conv2d_prepack(wq, NULL, &o), *wd0 = w0 ? ct_cuda_q_conv_packed_to(w0, ct_cuda(0)) : NULL;
    CHECK(wd0 && ct_q_conv2d(xs, wd0, 0.1, 0) == NULL);
    CHECK(strstr(ct_last_error(), "quantized::conv2d: the padded input [1, 4, 1, 1] is smaller than the dilated kernel") != NULL);
    ct_tensor *xt = ct_to_device(ct_quantize_per_tensor(ct_randn(CT_FLOAT32, 1, 4, 6, 6), 0.04, 120, CT_QUINT8), ct_cuda(0));
    CHECK(ct_q_conv2d(ct_transpose(xt, 2, 3), wd, 0.1, 0) == NULL);
    CHECK(strstr(ct_last_error(), "quantized::conv2d: the input must be contiguous (NCHW) on CUDA") != NULL);
    /* a CPU-style packing with a device weight: refused, naming the maker */
    ct_q_conv_packed bad = *wd;
    bad.packed = NULL;
    bad.weight_sums = NULL;
    CHECK(ct_q_conv2d(xd, &bad, 0.1, 0) == NULL);
    CHECK(strstr(ct_last_error(), "make it with ct_cuda_q_conv_packed_to") != NULL);
    ct_q_conv_packed_free(w0);
    ct_q_conv_packed_free(wd0);
    ct_q_conv_packed_free(w);
    ct_q_conv_packed_free(wd);
}

/* quantized::linear_dynamic on the device (the activation's range and codes on
   the device, cuBLASLt's int8 GEMM, dequantisation + bias in a kernel) against
   the CPU path on the same float input and packed weight: the activation's
   parameters equal, the int32 products bit for bit (ct__cu_q_linear_run keeps
   them: acc[m][n] + 128 colsum[n] is the CPU's u8 x s8 sum, column N + 128 K
   the row's sum of codes), the float outputs within 1e-6 relative. x [rows...,
   K], w [N, K] qint8 (per channel when pc, weight zero points when wzp). */
static void q_dyn_case(int nd, const int64_t *xs, int64_t N, int pc, int wzp, int bias, int rr) {
    int64_t K = xs[nd - 1], M = ct_numel(ct_empty_n(CT_FLOAT32, nd, xs)) / (K ? K : 1);
    ct_tensor *x = ct_add_scalar(ct_mul_scalar(ct_randn_n(CT_FLOAT32, nd, xs), 2.0), 0.3);
    ct_tensor *wq = q_weight(N, K, pc, wzp);
    ct_q_linear_packed *w, *wd;
    if (q_pack_both(wq, bias ? ct_randn(CT_FLOAT32, N) : NULL, &w, &wd)) return;
    ct_tensor *xd = dev(x);
    ct_tensor *yc = ct_q_linear_dynamic(x, w, rr), *yd = ct_q_linear_dynamic(xd, wd, rr);
    CHECK(yc && yd);
    if (!yd) printf("  q_dyn_case: %s\n", ct_last_error());
    if (yc && yd) {
        CHECK(ct_get_device(yd).type == CT_CUDA && yd->dtype == CT_FLOAT32 && ct_same_shape(yc, yd));
        ct_tensor *yh = ct_to_device(yd, ct_cpu());
        CHECK(ct_allclose(yh, yc, 1e-6, 1e-6) == 1);
        double md = ct_item(ct_amax(ct_abs(ct_sub(yh, yc)), 0, NULL, 0));
        if (md > 0) printf("  q_dyn_case: max |device - cpu| = %g\n", md);
    }
    /* the products: the CPU's activation codes (its choice of parameters), then its u8 x s8 GEMM */
    ct_tensor *xq = ct_quantize_per_tensor_dynamic(x, CT_QUINT8, rr);
    ct_tensor *acc = NULL;
    double sc = 0;
    int64_t zp = -1;
    ct_attrs at;
    memset(&at, 0, sizeof at);
    at.i[0] = K;
    at.flags = rr ? 1 : 0;
    ct_tensor *wv[5] = {wd->packed, wd->col_sums, wd->scales, wd->zero_points, wd->bias0};
    CHECK(xq && ct__cu_q_linear_run("test", 1, 0, xd, wv, &at, NULL, &acc, &sc, &zp) == 0 && acc);
    if (xq && acc) {
        CHECK(sc == ct_q_scale(xq) && zp == ct_q_zero_point(xq));
        int64_t Np = (N + 1 + 3) / 4 * 4;
        ct_tensor *ah = ct_to_device(acc, ct_cpu()), *codes = ct_contiguous(ct_int_repr(xq)), *ref = ct_zeros(CT_INT32, M, N);
        CHECK(ct_q_gemm_u8s8s32(M, (const uint8_t *)ct_data_ptr(codes), K, w, (int32_t *)ct_data_ptr(ref), N) == 0);
        const int32_t *A = (const int32_t *)ct_data_ptr(ah), *R = (const int32_t *)ct_data_ptr(ref), *cs = (const int32_t *)ct_data_ptr(w->col_sums);
        const uint8_t *cp = (const uint8_t *)ct_data_ptr(codes);
        int64_t bad = 0;
        for (int64_t m = 0; m < M; m++) {
            uint32_t rs = 0;
            for (int64_t k = 0; k < K; k++) rs += cp[m * K + k];
            bad += (uint32_t)A[m * Np + N] + 128u * (uint32_t)K != rs;
            for (int64_t n = 0; n < N; n++) bad += (uint32_t)A[m * Np + n] + 128u * (uint32_t)cs[n] != (uint32_t)R[m * N + n];
        }
        CHECK_EQ_INT(bad, 0);
        ct__decref(acc);
    }
    ct_q_linear_packed_free(w);
    ct_q_linear_packed_free(wd);
}
TEST(test_q_linear_dynamic_cublaslt) {
    ct_manual_seed(79);
    const int64_t a[2] = {5, 37}, b3[3] = {2, 3, 64}, c[2] = {1, 1}, d[2] = {9, 130}, e[2] = {4, 8};
    q_dyn_case(2, a, 19, 0, 0, 1, 1);    /* per tensor, K and N not multiples of 4, reduce_range (PyTorch's x86 default) */
    q_dyn_case(3, b3, 64, 1, 1, 0, 0);   /* per channel, weight zero points, no bias, the full range */
    q_dyn_case(2, c, 3, 0, 1, 1, 1);     /* K = 1, one row */
    q_dyn_case(2, d, 33, 1, 0, 1, 0);
    q_dyn_case(2, e, 4, 0, 0, 0, 1);
    /* a non-contiguous input (a view: made contiguous on the device) and an empty batch */
    ct_tensor *wq = ct_quantize_per_tensor(ct_randn(CT_FLOAT32, 6, 8), 0.01, 0, CT_QINT8);
    ct_q_linear_packed *w = ct_q_linear_prepack(wq, ct_randn(CT_FLOAT32, 6));
    ct_q_linear_packed *wd = ct_cuda_q_linear_packed_to(w, ct_cuda(0));
    CHECK(w && wd);
    ct_tensor *xt = ct_randn(CT_FLOAT32, 8, 5), *yc = ct_q_linear_dynamic(ct_transpose(xt, 0, 1), w, 1);
    ct_tensor *yd = ct_q_linear_dynamic(ct_transpose(dev(xt), 0, 1), wd, 1);
    CHECK(yc && yd && ct_allclose(ct_to_device(yd, ct_cpu()), yc, 1e-6, 1e-6) == 1);
    ct_tensor *y0 = ct_q_linear_dynamic(dev(ct_zeros(CT_FLOAT32, 0, 8)), wd, 1);
    CHECK(y0 && y0->ndim == 2 && y0->shape[0] == 0 && y0->shape[1] == 6);
    /* a packed weight whose bytes are not 16-byte aligned (a view at offset 1): copied to an aligned block, same result */
    ct_tensor *x = ct_randn(CT_FLOAT32, 3, 8);
    ct_tensor *ycx = ct_q_linear_dynamic(x, w, 1);
    ct_q_linear_packed odd = *wd;
    ct_tensor *parts[2] = {ct_zeros_on(ct_cuda(0), CT_INT8, 1), wd->packed};
    ct_tensor *pk1 = ct_cat(2, parts, 0);
    odd.packed = ct_narrow(pk1, 0, 1, wd->packed->shape[0]);
    CHECK(((uintptr_t)ct_data_ptr(odd.packed)) % 4 != 0);
    ct_tensor *yodd = ct_q_linear_dynamic(dev(x), &odd, 1);
    CHECK(yodd && ct_allclose(ct_to_device(yodd, ct_cpu()), ycx, 1e-6, 1e-6) == 1);
    /* errors: the CPU's messages */
    ct_tensor *xinf = ct_clone(x);
    ((float *)ct_data_ptr(xinf))[4] = INFINITY;
    CHECK(ct_q_linear_dynamic(xinf, w, 1) == NULL);
    char cpu_msg[2048];
    memcpy(cpu_msg, ct_last_error(), strlen(ct_last_error()) + 1 < sizeof cpu_msg ? strlen(ct_last_error()) + 1 : sizeof cpu_msg);
    cpu_msg[sizeof cpu_msg - 1] = 0;
    CHECK_ERR(ct_q_linear_dynamic(dev(xinf), wd, 1), CT_ERR_ARG, "quantized_linear_dynamic: cannot quantize the input (choose_qparams: min (-");
    CHECK(ct_q_linear_dynamic(dev(xinf), wd, 1) == NULL && strstr(ct_last_error(), ") must be <= max (inf), both finite)"));
    CT_T_REPORT(strcmp(ct_last_error(), cpu_msg) == 0, "the device's message [%s] differs from the CPU's [%s]", ct_last_error(), cpu_msg);
    ct_tensor *xnan = ct_clone(x);   /* a NaN first value: the CPU's scan keeps it, an error */
    ((float *)ct_data_ptr(xnan))[0] = NAN;
    CHECK(ct_q_linear_dynamic(xnan, w, 1) == NULL);
    CHECK_ERR(ct_q_linear_dynamic(dev(xnan), wd, 1), CT_ERR_ARG, "cannot quantize the input");
    ct_tensor *xnan2 = ct_clone(x);  /* a NaN later: skipped by the range, code 0, as on the CPU */
    ((float *)ct_data_ptr(xnan2))[5] = NAN;
    ct_tensor *yn = ct_q_linear_dynamic(xnan2, w, 1), *ynd = ct_q_linear_dynamic(dev(xnan2), wd, 1);
    CHECK(yn && ynd && ct_allclose(ct_to_device(ynd, ct_cpu()), yn, 1e-6, 1e-6) == 1);
    CHECK_ERR(ct_q_linear_dynamic(dev(ct_randn(CT_FLOAT64, 3, 8)), wd, 1), CT_ERR_DTYPE,
              "quantized_linear_dynamic: the input must be float32 (dynamic quantization), got Double");
    CHECK_ERR(ct_q_linear_dynamic(dev(ct_randn(CT_FLOAT32, 3, 7)), wd, 1), CT_ERR_SHAPE,
              "quantized_linear_dynamic: the input's last dimension must be in_features = 8, got shape [3, 7]");
    CHECK_ERR(ct_q_linear_dynamic(dev(x), w, 1), CT_ERR_DEVICE, "");   /* device input, CPU weight */
    CHECK_ERR(ct_q_linear_dynamic(x, wd, 1), CT_ERR_DEVICE, "");       /* CPU input, device weight */
    ct_q_linear_packed bad = *wd;   /* the CPU's packing of the weight's bytes with device tensors: refused */
    bad.packed = dev(w->packed);
    CHECK_ERR(ct_q_linear_dynamic(dev(x), &bad, 1), CT_ERR_ARG, "make it with ct_cuda_q_linear_packed_to");
    ct_q_linear_packed_free(w);
    ct_q_linear_packed_free(wd);
}
