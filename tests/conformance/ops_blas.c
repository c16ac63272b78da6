/* Conformance handlers: blas family (filled in by the blas section's work). */
#include "conf.h"

const conf_op conf_ops_blas[] = {
    {0, 0, 0}};
