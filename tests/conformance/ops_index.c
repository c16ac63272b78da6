/* Conformance handlers: index family (filled in by the index section's work). */
#include "conf.h"

const conf_op conf_ops_index[] = {
    {0, 0, 0}};
