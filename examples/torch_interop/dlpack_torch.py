"""PyTorch and ctensor in one process, sharing tensors through DLPack (make dlpack-torch).

Loads build/lib/libdlpack_torch.so (examples/dlpack_torch.c on libctensor.so) with
ctypes. A torch tensor goes to C as the pointer inside torch.utils.dlpack.to_dlpack's
capsule, and the capsule is renamed "used_dltensor" (the DLPack protocol: the consumer,
C, now owns it and calls its deleter, even when it fails; the capsule must not). A tensor made
in C comes back as a capsule named "dltensor" that torch.utils.dlpack.from_dlpack
consumes. Checks values against PyTorch's and that no copy was made (same memory).
Prints "N passed, N failed"; skips (passing) when torch is missing.
    /usr/bin/python3 examples/torch_interop/dlpack_torch.py build/lib/libdlpack_torch.so
"""
import ctypes
import gc
import sys
import warnings

try:
    import torch
    import torch.utils.dlpack
except ImportError:
    print("dlpack_torch: skipped: this python has no torch")
    print("0 passed, 0 failed")
    sys.exit(0)

lib = ctypes.CDLL(sys.argv[1] if len(sys.argv) > 1 else "build/lib/libdlpack_torch.so")
lib.ex_scale_.argtypes = [ctypes.c_void_p, ctypes.c_double]
lib.ex_sum.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_double)]
lib.ex_matmul.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
lib.ex_matmul.restype = ctypes.c_void_p
lib.ex_arange_t.argtypes = [ctypes.c_int64, ctypes.c_int64]
lib.ex_arange_t.restype = ctypes.c_void_p
lib.ex_live_bytes.restype = ctypes.c_int64
lib.ex_last_error.restype = ctypes.c_char_p

api = ctypes.pythonapi
api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_GetPointer.restype = ctypes.c_void_p
api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, DESTRUCTOR]
api.PyCapsule_New.restype = ctypes.py_object


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor)))]


@DESTRUCTOR
def _capsule_destructor(capsule):
    # a "dltensor" capsule nobody consumed still owns its DLManagedTensor: free it
    cap = ctypes.cast(capsule, ctypes.py_object)
    if api.PyCapsule_IsValid(cap, b"dltensor"):
        m = ctypes.cast(api.PyCapsule_GetPointer(cap, b"dltensor"), ctypes.POINTER(DLManagedTensor))
        m.contents.deleter(m)


def to_c(t):
    """The DLManagedTensor pointer of t's capsule, handed over to C."""
    cap = torch.utils.dlpack.to_dlpack(t)
    ptr = api.PyCapsule_GetPointer(cap, b"dltensor")
    api.PyCapsule_SetName(cap, b"used_dltensor")
    return ptr


def from_c(ptr):
    assert ptr, lib.ex_last_error().decode()
    data = ctypes.cast(ptr, ctypes.POINTER(DLManagedTensor)).contents.dl_tensor.data
    return torch.utils.dlpack.from_dlpack(api.PyCapsule_New(ptr, b"dltensor", _capsule_destructor)), data


passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL", what, "|", lib.ex_last_error().decode())


# 1. torch -> C, in place: a strided view with an offset, scaled by ctensor
base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
view = base[:, 1:3]                   # shape (3, 2), strides (4, 1), offset 1
want = base.clone()
want[:, 1:3] *= 2.5
rc = lib.ex_scale_(to_c(view), 2.5)
check(rc == 0, "ex_scale_ returned 0")
check(torch.equal(base, want), "writes by C are seen by torch (zero copy, strides, offset)")

# 2. torch -> C for every dtype both know: the sum matches torch's
for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.int16,
           torch.int32, torch.int64, torch.uint8, torch.bool]:
    t = (torch.arange(-3, 9).reshape(3, 4) % 5 if dt != torch.bool else torch.arange(12).reshape(3, 4) % 3 == 0)
    t = t.to(dt).t()                  # transposed: non-contiguous
    out = ctypes.c_double()
    try:
        ptr = to_c(t)
    except RuntimeError as e:         # PyTorch 1.13 does not export bool ("Bool type is not supported by dlpack")
        print("note: torch %s cannot export %s: %s" % (torch.__version__, dt, e))
        continue
    rc = lib.ex_sum(ptr, ctypes.byref(out))
    check(rc == 0 and out.value == t.double().sum().item(), "sum of %s: %s vs %s" % (dt, out.value, t.double().sum().item()))

# 3. torch -> C -> torch: a @ b computed by ctensor, returned without a copy
torch.manual_seed(0)
a, b = torch.randn(5, 7), torch.randn(7, 3)
live0 = lib.ex_live_bytes()
y, data = from_c(lib.ex_matmul(to_c(a), to_c(b)))
check(y.shape == (5, 3) and torch.allclose(y, a @ b, rtol=1e-5, atol=1e-5), "ex_matmul equals a @ b")
check(y.data_ptr() == data, "the result is ctensor's memory (no copy)")
check(lib.ex_live_bytes() == live0 + 5 * 3 * 4, "ctensor holds the result's 60 bytes while torch uses it")
del y
gc.collect()
check(lib.ex_live_bytes() == live0, "torch's release ran ctensor's deleter (live bytes back to %d)" % live0)

# 4. C -> torch: a transposed view keeps its strides
y, data = from_c(lib.ex_arange_t(3, 4))
check(torch.equal(y, torch.arange(12, dtype=torch.float32).reshape(3, 4).t()), "arange(12).reshape(3, 4).t()")
check(y.stride() == (1, 4) and y.data_ptr() == data, "strides (1, 4), same memory")
y[0, 1] = 100.0                       # torch writes into ctensor's storage
check(ctypes.cast(data, ctypes.POINTER(ctypes.c_float))[4] == 100.0, "torch's write is in ctensor's memory")
del y

# 5. an unconsumed capsule frees its tensor itself; a tensor C refuses is freed by C
cap = api.PyCapsule_New(lib.ex_arange_t(2, 2), b"dltensor", _capsule_destructor)
del cap
gc.collect()
check(lib.ex_live_bytes() == live0, "an unconsumed capsule ran the deleter")
check(lib.ex_matmul(to_c(torch.ones(2, 3)), to_c(torch.ones(2, 3))) is None and
      b"mat1 and mat2 shapes cannot be multiplied" in lib.ex_last_error(), "a failed matmul: PyTorch's message")
with warnings.catch_warnings():      # "ComplexHalf support is experimental"
    warnings.simplefilter("ignore")
    g = torch.ones(3, dtype=torch.complex32) if hasattr(torch, "complex32") else None
if g is not None:
    try:
        ptr = to_c(g)
    except RuntimeError:              # this torch cannot export complex32
        ptr = None
    if ptr:
        out = ctypes.c_double()
        check(lib.ex_sum(ptr, ctypes.byref(out)) == -1 and b"unsupported DLPack dtype" in lib.ex_last_error(),
              "complex32 is refused with a message")

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
