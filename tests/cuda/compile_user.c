/* Compile test (tests/compile/run.sh): a user's file with ctensor_cuda.h's
   implementation, built by nvcc as CUDA, warning-free under -Werror all-warnings,
   linked with a plain C file that uses the declarations (compile_decl.c, gcc):
   it calls a function of every header and runs with or without a GPU. */
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"
#include "ctensor_cuda.h"

#ifdef __cplusplus
extern "C"   /* nvcc compiles this file as C++; compile_decl.c is C */
#endif
int cuda_decl_device_count(void);   /* compile_decl.c, compiled as C11 */

int main(void) {
    int bad = 0, n = ct_cuda_device_count();
    ct_set_logger(NULL, NULL);
    bad |= n != cuda_decl_device_count();
    bad |= ct_cuda_is_available() != (n > 0);
    ct_cuda_mem_stats s;
    bad |= ct_cuda_memory_stats(0, &s) != CT_OK || s.reserved_bytes != 0;
    ct_cuda_set_allow_tf32(1);
    bad |= !ct_cuda_get_allow_tf32();
    ct_cuda_set_allow_tf32(0);
    CT_SCOPE {
        ct_tensor *x = ct_to_device(ct_ones(CT_FLOAT32, 4), ct_cuda(0));
        if (n > 0) {
            ct_tensor *y = ct_to_device(ct_mse_loss(x, ct_zeros_like(x), NULL), ct_cpu());   /* ctensor_nn.h */
            bad |= !y || ct_item(y) != 1.0;
        } else {
            bad |= x != NULL || ct_last_error_code() != CT_ERR_DEVICE;   /* no GPU: a clean error */
        }
    }
    ct_clear_error();
    bad |= ct_live_tensors() != 0;
    return bad;
}
