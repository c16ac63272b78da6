/* quantized conv2d, add, mul, relu, pooling, cat (helper C's tests) */
static void run_quant_qops_tests(void) {}
