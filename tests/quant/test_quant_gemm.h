/* int8 GEMM, quantized linear, dynamic linear (helper B's tests) */
static void run_quant_gemm_tests(void) {}
