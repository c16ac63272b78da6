/* CTENSOR_MAX_DIMS mismatch (tests/compile/run.sh): the implementation is built with
   the default (8), dims_b.c with 4; linking the two must fail and name
   ct_abi_max_dims_4. Built alone with its own implementation, dims_b.c links. */
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
int dims_b_rank(void);
int main(void) { return dims_b_rank() == 4 ? 0 : 1; }
