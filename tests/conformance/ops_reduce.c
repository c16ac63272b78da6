/* Conformance handlers: reduce family (filled in by the reduce section's work). */
#include "conf.h"

const conf_op conf_ops_reduce[] = {
    {0, 0, 0}};
