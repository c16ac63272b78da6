/* Conformance handlers: optim family. */
#include "conf.h"

const conf_op conf_ops_optim[] = {
    {0, 0, 0}};
