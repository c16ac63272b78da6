/* Compile test (tests/compile/run.sh): ctensor_cuda.h's declarations are plain C
   (gcc -std=c11 -pedantic, g++), for the files of a program that nvcc does not
   build; without CTENSOR_CUDA the header is an #error that says what to do. */
#include "ctensor.h"
#include "ctensor_cuda.h"

int cuda_decl_device_count(void);
int cuda_decl_device_count(void) { return ct_cuda_device_count(); }
