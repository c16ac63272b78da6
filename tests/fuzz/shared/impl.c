/* The implementation every fuzz target links (tests/fuzz/smoke.sh, make fuzz): built
   once with the targets' sanitizers and coverage (-fsanitize=fuzzer-no-link), so the
   seven targets compile only their own code. The targets define CT_FUZZ_SHARED_IMPL;
   each still builds alone as a single file without it (see its header comment).
   CTENSOR_ZLIB: the idx target's gzip path (tests/fuzz/idx.flags; every target links -lz). */
#define CTENSOR_IMPLEMENTATION
#define CTENSOR_ZLIB 1
#include "ctensor.h"
#include "ctensor_nn.h"
#include "ctensor_quant.h"
#include "ctensor_jit.h"
