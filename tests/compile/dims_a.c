/* CTENSOR_MAX_DIMS (tests/compile/run.sh): this implementation built with
   -DCTENSOR_MAX_DIMS=4 links to dims_b.c (4) and runs; the mismatch case (an
   implementation built with the default, 8) is tu_a.c against tu_b.c built with 4. */
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
int dims_b_rank(void);
int main(void) { return dims_b_rank() == 4 ? 0 : 1; }
