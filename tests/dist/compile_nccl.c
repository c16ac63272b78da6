/* Compile test (tests/compile/run.sh): ctensor_dist.h's NCCL backend in a file of its
   own (CTENSOR_DIST_NCCL_IMPLEMENTATION), against the CUDA toolkit's real nccl.h,
   cuda_runtime.h and Open MPI's mpi.h, built by gcc -std=c11 -pedantic and by nvcc,
   warning-free (compile only: there is no GPU to run it here; its code paths run in
   the suite on the CUDA emulator with NCCL emulated over MPI, tests/dist/run_nccl.sh). */
#define CTENSOR_DIST_NCCL_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"
#include "ctensor_cuda.h"
#include "ctensor_dist.h"

#ifdef __cplusplus
extern "C"
#endif
int compile_nccl_register(void);
int compile_nccl_register(void) { return ct_dist_nccl_register() == CT_OK; }
