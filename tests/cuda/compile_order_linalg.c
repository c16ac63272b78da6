/* Compile test (tests/compile/run.sh): ctensor_linalg.h's implementation after
   ctensor_cuda.h's is an #error (ctensor_cuda.h registers the cuSOLVER kernels of
   ctensor_linalg.h's ops only when it comes after ctensor_linalg.h). */
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_cuda.h"
#include "ctensor_linalg.h"

int main(void) { return 0; }
