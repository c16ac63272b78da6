/* The matrix-product value tests again, on the portable GEMM: the plain C
   micro-kernel (CTENSOR_NO_SIMD) and never CBLAS, so that the optimized build
   (-fopenmp -DCTENSOR_BLAS) also runs the built-in kernels, threaded, under the ops. */
#define CTENSOR_NO_SIMD
#undef CTENSOR_BLAS
#define CTENSOR_IMPLEMENTATION
#include "ct_test.h"
#define CT_TEST_BLAS_NO_MAIN
#define CT_TEST_BLAS_VALUES_ONLY
#include "test_blas.c"

int main(void) {
    ct_t_init();
    RUN(test_gemm_shapes);
    RUN(test_gemv_dot_kernels);
    RUN(test_mm_values);
    RUN(test_bmm_values);
    RUN(test_addmm_values);
    RUN(test_baddbmm_values);
    RUN(test_mv_addmv_values);
    RUN(test_dot_outer_values);
    RUN(test_linear_values);
    RUN(test_tensordot_values);
    RUN(test_matmul_rules);
    RUN(test_einsum_values);
    RUN(test_einsum_errors);
    return ct_t_summary();
}
