/* ctensor.h's DLPack declarations beside a real dlpack.h (PyTorch's ATen/dlpack.h,
   DLPack 0.6: no versioned struct), included before (-DDLPACK_FIRST) or after
   ctensor.h: no redefinition either way, and the 1.0 parts are there. */
#ifdef DLPACK_FIRST
#include <ATen/dlpack.h>
#endif
#include "ctensor.h"
#ifndef DLPACK_FIRST
#include <ATen/dlpack.h>
#endif
int dlpack_h_uses(DLManagedTensorVersioned *v, DLManagedTensor *m);
int dlpack_h_uses(DLManagedTensorVersioned *v, DLManagedTensor *m) {
    return ct_from_dlpack_versioned(v) != NULL && ct_from_dlpack(m) != NULL && (DLPACK_FLAG_BITMASK_IS_COPIED & 2) &&
           kDLCUDA == 2;
}
