/* dlpack_torch.c - tensors shared with PyTorch in one process through DLPack.
   make dlpack-torch builds this file as a shared library on libctensor.so (make lib):
       cc -std=c11 -I. -O1 -fPIC -shared -DDLPACK_TORCH_LIB examples/dlpack_torch.c -o build/lib/libdlpack_torch.so \
          -Lbuild/lib -lctensor -Wl,-rpath,'$ORIGIN'
   and runs examples/torch_interop/dlpack_torch.py, which loads it with ctypes and hands
   it torch tensors as torch.utils.dlpack.to_dlpack(t) capsules and takes its results
   back with torch.utils.dlpack.from_dlpack: no copy either way. Built as a program
   (make examples), main() runs the same exchange with ctensor on both sides.
   The Python side of each call:
       t = torch.arange(12.).reshape(3, 4)[:, 1:3]   # a strided view with an offset
       lib.ex_scale_(capsule_pointer(t), 2.0)        # t *= 2, done by ctensor in place
       y = torch.utils.dlpack.from_dlpack(capsule(lib.ex_matmul(a, b)))   # a @ b */
#ifndef DLPACK_TORCH_LIB
#define CTENSOR_IMPLEMENTATION   /* the program: the implementation in this file */
#endif
#include "ctensor.h"
#include <stdio.h>

/* The functions below take ownership of the tensors they are given, as
   torch.utils.dlpack.from_dlpack does, even when they fail (ct_from_dlpack leaves a
   tensor it refuses to its caller: here that is us, so we call its deleter). */
static ct_tensor *take(DLManagedTensor *m) {
    ct_tensor *x = ct_from_dlpack(m);
    if (!x && m && m->deleter) m->deleter(m);
    return x;
}

/* x *= s in place on the caller's memory; 0, or -1 */
int ex_scale_(DLManagedTensor *m, double s) {
    int rc = -1;
    CT_SCOPE {
        if (ct_mul_scalar_(take(m), s)) rc = 0;
    }
    return rc;
}

/* the sum of a tensor of any dtype, as a double (torch.sum(t).item()) */
int ex_sum(DLManagedTensor *m, double *out) {
    int rc = -1;
    CT_SCOPE {
        ct_tensor *s = ct_sum(ct_to(take(m), CT_FLOAT64));
        if (s) { *out = ct_item(s); rc = 0; }
    }
    return rc;
}

/* a @ b, computed by ctensor on PyTorch's memory; the result is a new tensor that
   PyTorch takes without a copy (NULL on error) */
DLManagedTensor *ex_matmul(DLManagedTensor *a, DLManagedTensor *b) {
    DLManagedTensor *out = NULL;
    CT_SCOPE {
        ct_tensor *x = take(a), *y = take(b);
        out = ct_to_dlpack(ct_matmul(x, y));
    }
    return out;
}

/* a tensor made by ctensor: arange(rows * cols).reshape(rows, cols).t() (a
   transposed view: strides (1, cols)) */
DLManagedTensor *ex_arange_t(int64_t rows, int64_t cols) {
    DLManagedTensor *out = NULL;
    CT_SCOPE {
        out = ct_to_dlpack(ct_t(ct_reshape(ct_arange(0, (double)(rows * cols), 1, CT_FLOAT32), rows, cols)));
    }
    return out;
}

int64_t ex_live_bytes(void) { return ct_live_bytes(); }
const char *ex_last_error(void) { return ct_last_error(); }

#ifdef CTENSOR_IMPLEMENTATION
int main(void) {
    int ok = 1;
    CT_SCOPE {
        ct_tensor *a = ct_reshape(ct_arange(0, 6, 1, CT_FLOAT32), 2, 3);
        ok &= ex_scale_(ct_to_dlpack(ct_slice(a, 1, 1, 3, 1)), 10.0) == 0;   /* a[:, 1:] *= 10 */
        ct_print(a);   /* tensor([[ 0., 10., 20.], [ 3., 40., 50.]]) */
        ct_tensor *c = ct_from_dlpack(ex_matmul(ct_to_dlpack(a), ct_to_dlpack(ct_t(a))));
        ok &= c != NULL;
        ct_print(c);   /* tensor([[ 500., 1400.], [1400., 4109.]]) */
        ct_tensor *t = ct_from_dlpack(ex_arange_t(2, 3));
        ct_print(t);   /* tensor([[0., 3.], [1., 4.], [2., 5.]]) */
        ok &= t && ct_stride(t, 0) == 1;
    }
    if (!ok) fprintf(stderr, "%s\n", ct_last_error());
    return ok ? 0 : 1;
}
#endif
