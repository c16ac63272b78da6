/* tests/cuda/test_cuda_transformer.h - part of tests/cuda/test_cuda.c (included by it):
   ctensor_nn.h's fused transformer ops (ct::multi_head_self_attention_fwd,
   ct::transformer_encoder_layer_fwd) on device tensors, called through the op
   table (ct_dispatch), against the CPU's fused kernels on the same operands:
   no mask, a key padding mask (a sequence with every key padded: NaN rows),
   causal, post- and pre-norm layers, relu and gelu, a nested batch (packed
   tokens and offsets), a head dimension above the kernel's (the fallback
   through device ops), float32 and float64; the KV-cache mode's error. Tiny
   shapes: the emulator runs one fiber per query. */

/* operands of a layer (E = d_model, F = feed-forward), on the CPU */
static void tf_operands(ct_tensor **in, int64_t E, int64_t F, ct_dtype dt) {
    in[1] = ct_to(ct_mul_scalar(ct_randn(CT_FLOAT64, 3 * E, E), 0.3), dt);
    in[2] = ct_to(ct_mul_scalar(ct_randn(CT_FLOAT64, 3 * E), 0.2), dt);
    in[3] = ct_to(ct_mul_scalar(ct_randn(CT_FLOAT64, E, E), 0.3), dt);
    in[4] = ct_to(ct_mul_scalar(ct_randn(CT_FLOAT64, E), 0.2), dt);
    in[5] = ct_to(ct_add_scalar(ct_mul_scalar(ct_randn(CT_FLOAT64, E), 0.1), 1.0), dt);
    in[6] = ct_to(ct_mul_scalar(ct_randn(CT_FLOAT64, E), 0.1), dt);
    in[7] = ct_to(ct_add_scalar(ct_mul_scalar(ct_randn(CT_FLOAT64, E), 0.1), 1.0), dt);
    in[8] = ct_to(ct_mul_scalar(ct_randn(CT_FLOAT64, E), 0.1), dt);
    in[9] = ct_to(ct_mul_scalar(ct_randn(CT_FLOAT64, F, E), 0.3), dt);
    in[10] = ct_to(ct_mul_scalar(ct_randn(CT_FLOAT64, F), 0.2), dt);
    in[11] = ct_to(ct_mul_scalar(ct_randn(CT_FLOAT64, E, F), 0.3), dt);
    in[12] = ct_to(ct_mul_scalar(ct_randn(CT_FLOAT64, E), 0.2), dt);
}
/* the op on the CPU and on the device (every operand copied there): the outputs, or NULL */
static void tf_run(int op, int nin, ct_tensor *const *in, const ct_attrs *a, ct_tensor **yc, ct_tensor **yd) {
    ct_tensor *din[16], *out[1] = {NULL};
    *yc = ct_dispatch(op, nin, in, a, NULL, 0, out, 1) == 1 ? out[0] : NULL;
    for (int i = 0; i < nin; i++) din[i] = dev(in[i]);
    out[0] = NULL;
    *yd = ct_dispatch(op, nin, din, a, NULL, 0, out, 1) == 1 ? out[0] : NULL;
    if (!*yd) printf("  device: %s\n", ct_last_error());
}
TEST(test_fused_attention) {
    int op_layer = ct_op_find("ct::transformer_encoder_layer_fwd"), op_mha = ct_op_find("ct::multi_head_self_attention_fwd");
    CHECK(op_layer >= 0 && op_mha >= 0);
    if (op_layer < 0 || op_mha < 0) return;
    const int64_t E = 16, H = 4, F = 24, B = 3, S = 5;
    const uint8_t pad[15] = {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};   /* lengths 5, 2 and 0 (all keys padded: NaN) */
    ct_tensor *kpm = ct_from_data(pad, CT_BOOL, 3, 5);
    for (int di = 0; di < 2; di++) {
        ct_dtype dt = di ? CT_FLOAT64 : CT_FLOAT32;
        double rt = di ? 1e-10 : 1e-4, at = di ? 1e-11 : 1e-5;
        ct_tensor *in[15], *yc, *yd;
        in[0] = ct_to(ct_randn(CT_FLOAT64, B, S, E), dt);
        tf_operands(in, E, F, dt);
        char label[96];
        ct_attrs a;
        /* self-attention: no mask, padding, causal + padding (kpm in slot 5, norm1's weight's slot of the layer) */
        ct_tensor *n1w = in[5];
        for (int mode = 0; mode < 3; mode++) {
            memset(&a, 0, sizeof a);
            a.i[0] = H;
            a.mode = mode ? 1 : 0;
            a.flags = mode == 2;
            in[5] = kpm;
            tf_run(op_mha, mode ? 6 : 5, in, &a, &yc, &yd);
            snprintf(label, sizeof label, "mha %s mode %d", ct_dtype_name(dt), mode);
            CHECK(yc && yd && yd->device.type == CT_CUDA);
            CHECK_SAME_AT(label, yd, yc, rt, at);
        }
        in[5] = n1w;
        /* the layer: post-norm relu (no mask), pre-norm gelu (padding), nested */
        for (int mode = 0; mode < 3; mode++) {
            memset(&a, 0, sizeof a);
            a.i[0] = H;
            a.s[0] = 1e-5;
            a.s[1] = 1e-6;
            a.flags = mode == 1 ? 3 : mode == 2 ? 1 : 0;
            a.mode = mode;
            ct_tensor *x0 = in[0];
            if (mode == 1) in[13] = kpm;
            if (mode == 2) {
                in[0] = ct_to(ct_randn(CT_FLOAT64, 11, E), dt);
                static const int64_t offs[5] = {0, 5, 5, 7, 11};   /* an empty sequence too */
                in[13] = ct_tensor_i64(offs, 5);
            }
            tf_run(op_layer, mode ? 14 : 13, in, &a, &yc, &yd);
            snprintf(label, sizeof label, "encoder layer %s mode %d", ct_dtype_name(dt), mode);
            CHECK(yc && yd);
            CHECK_SAME_AT(label, yd, yc, rt * 10, at * 10);
            in[0] = x0;
        }
    }
    /* a head dimension above the kernel's: the fallback through device ops */
    {
        const int64_t E2 = 260, H2 = 2;
        ct_tensor *in[6], *yc, *yd;
        in[0] = ct_randn(CT_FLOAT64, 2, 3, E2);
        tf_operands(in, E2, 8, CT_FLOAT64);
        const uint8_t p2[6] = {0, 0, 1, 0, 0, 0};
        in[5] = ct_from_data(p2, CT_BOOL, 2, 3);
        ct_attrs a;
        memset(&a, 0, sizeof a);
        a.i[0] = H2;
        a.mode = 1;
        a.flags = 1;
        tf_run(op_mha, 6, in, &a, &yc, &yd);
        CHECK(yc && yd);
        CHECK_SAME_AT("mha head_dim 130", yd, yc, 1e-9, 1e-10);
    }
    /* the KV-cache mode: a clean error naming the op */
    ct_tensor *in[15], *out[1] = {NULL};
    in[0] = dev(ct_randn(CT_FLOAT32, 1, 2, E));
    tf_operands(in, E, F, CT_FLOAT32);
    for (int i = 1; i < 13; i++) in[i] = dev(in[i]);
    in[13] = dev(ct_zeros(CT_FLOAT32, 1, H, 4, E / H));
    in[14] = dev(ct_zeros(CT_FLOAT32, 1, H, 4, E / H));
    ct_attrs a;
    memset(&a, 0, sizeof a);
    a.i[0] = H;
    a.mode = 3;
    a.s[0] = a.s[1] = 1e-5;
    CHECK(ct_dispatch(op_layer, 15, in, &a, NULL, 0, out, 1) < 0 && ct_last_error_code() == CT_ERR_UNSUPPORTED &&
          strstr(ct_last_error(), "transformer_encoder_layer_fwd") && strstr(ct_last_error(), "KV-cache"));
    ct_clear_error();
    /* a nested batch's bad offsets: the CPU's message */
    ct_tensor *x11 = ct_randn(CT_FLOAT32, 11, E);
    in[0] = dev(x11);
    static const int64_t bad_offs[4] = {0, 7, 5, 11};
    in[13] = dev(ct_tensor_i64(bad_offs, 4));
    a.mode = 2;
    CHECK(ct_dispatch(op_layer, 14, in, &a, NULL, 0, out, 1) < 0 && strstr(ct_last_error(), "must not decrease") != NULL);
    ct_clear_error();
}

/* The modules take the fused kernel for device inputs too: a TransformerEncoderLayer
   (and MultiheadAttention's self-attention) moved to the device, in eval mode without
   grad, with and without a key padding mask, against the same module on the CPU;
   ct_transformer_fastpath_why_not says the fastpath was taken. A layer without biases
   gets its zero biases made on the device. */
TEST(test_fused_attention_modules) {
    const int64_t E = 16, H = 4, B = 2, S = 5;
    const uint8_t pad[10] = {0, 0, 0, 0, 0, 0, 0, 1, 1, 1};
    ct_transformer_layer_options o;
    memset(&o, 0, sizeof o);
    o.dim_feedforward = 24;
    o.dropout = CT_ZERO;
    o.batch_first = 1;
    ct_module *L = ct_module_eval(ct_nn_transformer_encoder_layer(E, H, &o));
    ct_mha_options mo;
    memset(&mo, 0, sizeof mo);
    mo.batch_first = 1;
    mo.no_bias = 1;
    ct_module *M = ct_module_eval(ct_nn_multihead_attention(E, H, &mo));
    ct_tensor *x = ct_randn(CT_FLOAT32, B, S, E), *kpm = ct_from_data(pad, CT_BOOL, 2, 5);
    int g = ct_set_grad_enabled(0);
    ct_tensor *yc[4], *yd[4];
    for (int k = 0; k < 2; k++) {
        yc[k] = ct_transformer_encoder_forward(L, x, NULL, k ? kpm : NULL);
        ct_mha_args a;
        memset(&a, 0, sizeof a);
        a.key_padding_mask = k ? kpm : NULL;
        yc[2 + k] = ct_mha_forward(M, x, x, x, &a, NULL);
    }
    CHECK(ct_module_to(L, GPU) != NULL && ct_module_to(M, GPU) != NULL);
    ct_tensor *xd = dev(x), *kd = dev(kpm);
    for (int k = 0; k < 2; k++) {
        yd[k] = ct_transformer_encoder_forward(L, xd, NULL, k ? kd : NULL);
        CT_T_REPORT(ct_transformer_fastpath_why_not()[0] == 0, "layer on the device, mask %d: %s", k, ct_transformer_fastpath_why_not());
        ct_mha_args a;
        memset(&a, 0, sizeof a);
        a.key_padding_mask = k ? kd : NULL;
        yd[2 + k] = ct_mha_forward(M, xd, xd, xd, &a, NULL);
        CT_T_REPORT(ct_transformer_fastpath_why_not()[0] == 0, "mha on the device, mask %d: %s", k, ct_transformer_fastpath_why_not());
    }
    for (int k = 0; k < 4; k++) {
        CHECK(yc[k] && yd[k] && yd[k]->device.type == CT_CUDA);
        if (yc[k] && yd[k]) CHECK_SAME_AT(k < 2 ? "encoder layer module" : "mha module", yd[k], yc[k], 1e-4, 1e-5);
    }
    ct_set_grad_enabled(g);
    ct_module_free(L);
    ct_module_free(M);
}

/* Nested (packed) batches made and unmade on the device (ct_cuda_nested_from_mask,
   ct_cuda_nested_to_padded: the rows kernel, the prefix sum of the lengths, the
   gather and the scatter) against ctensor_nn.h's CPU packing: values, lengths,
   offsets; float32, float64 and int8 rows (8-, 4- and 1-byte words); more rows
   than the scan's block (B = 300, the carry between chunks); an empty and a full
   row; the errors (a mask that is not left-aligned: the CPU's message; devices,
   shapes, dtypes; lengths that do not add up). Then an encoder on nested rows on
   the device, the way ctensor_nn.h's TransformerEncoder would run it with a
   device packer (pack, the fused layers in nested mode with device offsets,
   unpad), against the same module's nested path on the CPU. */
static ct_tensor *nest_kpm(int64_t B, int64_t S, const int64_t *len) {
    ct_tensor *m = ct_zeros(CT_BOOL, B, S);
    uint8_t *p = (uint8_t *)ct_data_ptr(m);
    for (int64_t b = 0; b < B; b++)
        for (int64_t s = 0; s < S; s++) p[b * S + s] = s >= len[b];
    return m;
}
static void nest_case(ct_dtype dt, int64_t B, int64_t S, int64_t D, const int64_t *len) {
    ct_tensor *x = ct_to(ct_mul_scalar(ct_randn(CT_FLOAT64, B, S, D), 20.0), dt), *kpm = nest_kpm(B, S, len);
    ct_nested nc, nd;
    ct_tensor *off = NULL;
    CHECK(ct_nested_from_mask(x, kpm, &nc) == CT_OK);
    ct_status st = ct_cuda_nested_from_mask(dev(x), dev(kpm), &nd, &off);
    CHECK(st == CT_OK && nd.values && nd.lengths && off);
    if (st != CT_OK) {
        printf("  nest_case: %s\n", ct_last_error());
        return;
    }
    char label[64];
    snprintf(label, sizeof label, "nested values %s B %lld", ct_dtype_name(dt), (long long)B);
    CHECK(nd.values->device.type == CT_CUDA && nd.lengths->device.type == CT_CUDA && off->device.type == CT_CUDA && nd.max_len == S);
    CHECK(ct_same_shape(nd.values, nc.values));
    CHECK_SAME_AT(label, nd.values, nc.values, 0.0, 0.0);
    CHECK_SAME_AT("nested lengths", nd.lengths, nc.lengths, 0.0, 0.0);
    ct_tensor *oh = ct_to_device(off, ct_cpu());
    int64_t t = 0, bad = 0;
    for (int64_t b = 0; b <= B; b++) {
        bad += ((const int64_t *)ct_data_ptr(oh))[b] != t;
        if (b < B) t += len[b];
    }
    CHECK_EQ_INT(bad, 0);
    /* back to padded: zeros, and another padding value */
    for (int k = 0; k < 2; k++) {
        double v = k ? -1.5 : 0.0;
        ct_tensor *pc = ct_nested_to_padded(&nc, v), *pd = ct_cuda_nested_to_padded(&nd, v);
        CHECK(pc && pd && pd->device.type == CT_CUDA);
        if (pc && pd) CHECK_SAME_AT("nested to padded", pd, pc, 0.0, 0.0);
    }
}
TEST(test_nested_device) {
    ct_manual_seed(83);
    const int64_t l4[4] = {6, 3, 0, 1};
    nest_case(CT_FLOAT32, 4, 6, 16, l4);
    nest_case(CT_FLOAT64, 4, 6, 3, l4);
    nest_case(CT_INT8, 4, 6, 3, l4);   /* 3-byte rows: the byte kernel */
    int64_t l300[300];
    for (int b = 0; b < 300; b++) l300[b] = (b * 7 + 3) % 4;   /* 0 .. 3 of 3: full rows too */
    for (int b = 0; b < 300; b++) l300[b] = l300[b] > 3 ? 3 : l300[b];
    nest_case(CT_FLOAT32, 300, 3, 2, l300);
    /* errors */
    const uint8_t gap[8] = {0, 0, 0, 0, 0, 1, 0, 1};   /* row 1: a real token at 2 after padding at 1 */
    ct_tensor *x = ct_randn(CT_FLOAT32, 2, 4, 3), *km = ct_from_data(gap, CT_BOOL, 2, 4);
    ct_nested nc, nd;
    ct_tensor *off = NULL;
    CHECK(ct_nested_from_mask(x, km, &nc) != CT_OK);
    char cpu_msg[2048];
    snprintf(cpu_msg, sizeof cpu_msg, "%s", strchr(ct_last_error(), ':'));
    CHECK(ct_cuda_nested_from_mask(dev(x), dev(km), &nd, &off) == CT_ERR_ARG && strstr(ct_last_error(), cpu_msg) != NULL && !nd.values && !off);
    CHECK(strstr(ct_last_error(), "(row 1 has a real token at position 2 after padding at 1)") != NULL);
    ct_tensor *kok = nest_kpm(2, 4, l4);
    CHECK_ERR(ct_cuda_nested_from_mask(dev(x), kok, &nd, &off) == CT_OK, CT_ERR_DEVICE, "must be on one CUDA device");
    CHECK_ERR(ct_cuda_nested_from_mask(x, kok, &nd, &off) == CT_OK, CT_ERR_DEVICE, "(got cpu and cpu)");
    CHECK_ERR(ct_cuda_nested_from_mask(dev(x), dev(ct_to(kok, CT_INT64)), &nd, &off) == CT_OK, CT_ERR_DTYPE, "the key padding mask must be bool");
    CHECK_ERR(ct_cuda_nested_from_mask(dev(x), dev(nest_kpm(2, 3, l4)), &nd, &off) == CT_OK, CT_ERR_SHAPE, "the key padding mask must be [2, 4]");
    CHECK_ERR(ct_cuda_nested_from_mask(dev(x), dev(kok), NULL, &off) == CT_OK, CT_ERR_NULL, "out is NULL");
    CHECK(ct_cuda_nested_from_mask(dev(x), dev(kok), &nd, &off) == CT_OK);
    static const int64_t l41[2] = {4, 1}, l52[2] = {5, 2}, l43[2] = {4, 3};
    ct_nested bad = nd;
    bad.lengths = dev(ct_tensor_i64(l41, 2));   /* 5 tokens, values has 4 + 3 = 7 */
    CHECK_ERR(ct_cuda_nested_to_padded(&bad, 0.0), CT_ERR_SHAPE, "the lengths add up to 5 tokens but values has 7 rows");
    bad.lengths = dev(ct_tensor_i64(l52, 2));
    CHECK_ERR(ct_cuda_nested_to_padded(&bad, 0.0), CT_ERR_ARG, "sequence 0 has length 5, outside [0, max_len = 4]");
    bad.lengths = ct_tensor_i64(l43, 2);
    CHECK_ERR(ct_cuda_nested_to_padded(&bad, 0.0), CT_ERR_DEVICE, "values and lengths must be on one CUDA device");
    CHECK_ERR(ct_cuda_nested_to_padded(NULL, 0.0), CT_ERR_NULL, "the nested batch is NULL");

    /* an encoder (2 post-norm layers, a final norm) on nested rows on the device */
    const int64_t E = 16, H = 4, B = 3, S = 5, lens[3] = {5, 2, 3};
    ct_transformer_layer_options o;
    memset(&o, 0, sizeof o);
    o.dim_feedforward = 24;
    o.dropout = CT_ZERO;
    o.batch_first = 1;
    ct_module *enc = ct_module_eval(ct_nn_transformer_encoder(ct_nn_transformer_encoder_layer(E, H, &o), 2, ct_nn_layer_norm(1, &E)));
    ct_tensor *src = ct_randn(CT_FLOAT32, B, S, E), *kpm = nest_kpm(B, S, lens);
    int g = ct_set_grad_enabled(0);
    ct_tensor *yc = ct_transformer_encoder_forward(enc, src, NULL, kpm);   /* the CPU's nested path */
    CT_T_REPORT(ct_transformer_fastpath_why_not()[0] == 0, "the CPU encoder took the nested fastpath: %s", ct_transformer_fastpath_why_not());
    CHECK(ct_module_to(enc, GPU) != NULL);
    ct_tensor *yd = NULL;
    CHECK(ct_cuda_nested_from_mask(dev(src), dev(kpm), &nd, &off) == CT_OK);
    if (nd.values) {
        ct_tensor *v = ct__enc_stack_fast(enc, 2, nd.values, CT__TFM_NESTED, off, NULL);
        if (v) v = ct_forward(ct__mchild(enc, "norm"), v);
        yd = v ? ct__cu_nest_unpad("test", v, off, S, 0.0) : NULL;
    }
    CHECK(yc && yd && yd->device.type == CT_CUDA);
    if (yc && yd) CHECK_SAME_AT("encoder on nested rows", yd, yc, 1e-4, 1e-5);
    ct_set_grad_enabled(g);
    ct_module_free(enc);
}
