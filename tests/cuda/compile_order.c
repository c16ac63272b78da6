/* Compile test (tests/compile/run.sh): ctensor_nn.h's implementation after
   ctensor_cuda.h's is an #error (ctensor_cuda.h registers the CUDA kernels of
   ctensor_nn.h's ops only when it comes after ctensor_nn.h). */
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_cuda.h"
#include "ctensor_nn.h"

int main(void) { return 0; }
