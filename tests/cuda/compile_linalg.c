/* Compile test (tests/compile/run.sh): ctensor_linalg.h before ctensor_cuda.h in a
   user's file built by nvcc as CUDA, warning-free under -Werror all-warnings and
   linked with cuSOLVER (-lcusolver -lcublas -llapacke -lopenblas): cuSOLVER's
   kernels for the linalg ops are registered, and it runs with or without a GPU
   (a Cholesky factor on the device, or a clean device error without one). */
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_linalg.h"
#include "ctensor_cuda.h"

int main(void) {
    int bad = 0, n = ct_cuda_device_count();
    ct_set_logger(NULL, NULL);
    CT_SCOPE {
        ct_tensor *A = ct_add(ct_eye(4, 4, CT_FLOAT64), ct_ones(CT_FLOAT64, 4, 4));
        ct_tensor *d = ct_to_device(A, ct_cuda(0));
        if (n > 0) {
            ct_tensor *L = ct_to_device(ct_linalg_cholesky(d), ct_cpu());
            bad |= !L || ct_allclose(ct_matmul(L, ct_mT(L)), A, 1e-12, 1e-12) != 1;
        } else {
            bad |= d != NULL || ct_last_error_code() != CT_ERR_DEVICE;
        }
    }
    ct_clear_error();
    bad |= ct_live_tensors() != 0;
    return bad;
}
