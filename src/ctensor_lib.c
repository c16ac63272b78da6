/* ctensor_lib.c - the one source file of libctensor.so / libctensor.a (make lib).
   It compiles the implementation of every CPU header once; a program that links
   the library includes the headers without CTENSOR_IMPLEMENTATION:
       cc app.c $(pkg-config --cflags --libs ctensor)
   CTENSOR_BUILD_SHARED with -fvisibility=hidden exports only what the headers
   declare with CTENSOR_API. CT_LIB_NO_LINALG leaves out ctensor_linalg.h (it needs
   LAPACKE), for systems without it. */
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"
#ifndef CT_LIB_NO_LINALG
#include "ctensor_linalg.h"
#endif
#include "ctensor_quant.h"
#include "ctensor_named.h"
#include "ctensor_special.h"
#include "ctensor_fft.h"
#include "ctensor_composite.h"
