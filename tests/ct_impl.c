/* The implementation of ctensor.h (with ctensor_nn.h, ctensor_named.h,
   ctensor_quant.h, ctensor_special.h, ctensor_fft.h, ctensor_composite.h, ctensor_jit.h and ctensor_dist.h without MPI), compiled once per build kind and linked into
   the unit tests that use only the public API (they are built with
   -DCT_TEST_SHARED_IMPL and do not define CTENSOR_IMPLEMENTATION themselves).
   Tests that reach into internals (ct__...) or set implementation macros keep
   their own copy. This is also a standing two-translation-unit link test. */
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"
#include "ctensor_named.h"
#include "ctensor_quant.h"
#include "ctensor_jit.h"
#include "ctensor_dist.h"
#include "ctensor_special.h"
#include "ctensor_fft.h"
#include "ctensor_composite.h"
