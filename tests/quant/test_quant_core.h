/* quantized tensors: quantize / dequantize / int_repr / parameters */
TEST(test_quantize_basic) {
    float xs[] = {0.05f, 0.15f, 0.25f, -0.35f, 100.f, -100.f, 1.25f};
    ct_tensor *x = ct_from_data_n(xs, CT_FLOAT32, 1, (int64_t[]){7});
    ct_tensor *q = ct_quantize_per_tensor(x, 0.1, 3, CT_QINT8);
    CHECK_VALUES(ct_int_repr(q), ((double[]){3, 5, 5, -1, 127, -128, 15}), 7, 0);
    CHECK_CLOSE(ct_q_scale(q), 0.1, 0);
    CHECK_EQ_INT(ct_q_zero_point(q), 3);
    CHECK_EQ_INT(ct_get_dtype(ct_int_repr(q)), CT_INT8);
}
static void run_quant_core_tests(void) {
    RUN(test_quantize_basic);
}
