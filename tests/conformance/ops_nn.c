/* Conformance handlers: nn family. */
#include "conf.h"

const conf_op conf_ops_nn[] = {
    {0, 0, 0}};
