/* see dims_a.c */
#define CTENSOR_MAX_DIMS 4
#include "ctensor.h"
int dims_b_rank(void) { return CT_MAX_DIMS; }
