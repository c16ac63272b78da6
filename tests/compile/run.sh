#!/bin/sh
# Compile tests: the headers as C11 (gcc, clang), C++17 (g++), under nvcc,
# two translation units, CTENSOR_STATIC and CTENSOR_NO_STDIO; each program runs.
B=${BUILD:-build}/compile
mkdir -p "$B"
CC=${CC:-gcc}; CXX=${CXX:-g++}; CLANG=${CLANG:-clang}
W="-Wall -Wextra -pedantic -Werror -I."
LA="-llapacke -lopenblas -lm"   # user.c includes ctensor_linalg.h
pass=0; fail=0
try() {  # name, command...
  name=$1; shift
  if out=$("$@" 2>&1); then pass=$((pass + 1)); echo "ok   $name"
  else fail=$((fail + 1)); echo "FAIL $name"; printf '%s\n' "$out" | head -20; fi
}
try "gcc -std=c11"        sh -c "$CC -std=c11 $W tests/compile/user.c -o $B/user_gcc $LA && $B/user_gcc"
if command -v "$CLANG" >/dev/null 2>&1; then
  try "clang -std=c11"    sh -c "$CLANG -std=c11 $W tests/compile/user.c -o $B/user_clang $LA && $B/user_clang"
else echo "skip clang (not installed)"; fi
# ctensor_dist.h with its MPI backend (Open MPI's mpicc flags) in the C++ build and the
# -O2 OpenMP build below (gcc and clang above build it without MPI: its single-process
# group); each build of every header is a minute of the suite, so one build checks two things
MPIF=""; MPIL=""; MPIN=""
if command -v mpicc >/dev/null 2>&1; then
  MPIF="$(mpicc -showme:compile) -DCTENSOR_MPI"; MPIL="$(mpicc -showme:link)"; MPIN=" -DCTENSOR_MPI"
else echo "skip ctensor_dist.h with MPI (no mpicc): the builds below leave it out"; fi
try "g++ -x c++ -std=c++17$MPIN" sh -c "$CXX -x c++ -std=c++17 $W $MPIF -c tests/compile/user.c -o $B/user_cxx.o && $CXX $B/user_cxx.o -o $B/user_cxx $LA $MPIL && $B/user_cxx"
# g++ -O2 with this machine's vector extensions (AVX-512 here): GCC's false
# "uninitialized" warnings inside <immintrin.h> stay silenced in the implementations
try "g++ -x c++ -std=c++17 -O2 -march=native" $CXX -x c++ -std=c++17 $W -O2 -march=native -c tests/compile/user.c -o $B/user_cxx_native.o
# ctensor_fft.h's FFTW backend (libfftw3-dev): tests/test_fft.c built with -DCTENSOR_FFTW
# (at -O0: about 5 s) and run, its PyTorch fixtures and every other check on FFTW's plans
if [ -f /usr/include/fftw3.h ]; then
  try "gcc -DCTENSOR_FFTW: test_fft on FFTW" sh -c "$CC -std=c11 $W -Itests -O0 -DCTENSOR_FFTW tests/test_fft.c -o $B/test_fft_fftw -lfftw3 -lfftw3f -lm -lpthread && $B/test_fft_fftw tests/fixtures/fft/fft.safetensors | tail -1 | grep -q ' 0 failed'"
else echo "skip ctensor_fft.h with FFTW (no /usr/include/fftw3.h: apt-get install libfftw3-dev)"; fi
# CT_SCOPE's three forms: break/continue/return inside a scope (gcc cleanup, C++ guard,
# portable). The forms are macros in the user's file, so the four builds of scope.c
# link one implementation object (ctensor.h's alone, built by gcc)
try "two translation units" sh -c "$CC -std=c11 $W -c tests/compile/tu_a.c -o $B/tu_a.o && $CC -std=c11 $W -c tests/compile/tu_b.c -o $B/tu_b.o && $CC $B/tu_a.o $B/tu_b.o -o $B/tu -lm && $B/tu"
printf '#define CTENSOR_IMPLEMENTATION\n#include "ctensor.h"\n' > "$B/impl_core.c"
try "ctensor.h implementation object" $CC -std=c11 $W -c "$B/impl_core.c" -o "$B/impl_core.o"
SC="-DCT_SCOPE_SHARED_IMPL tests/compile/scope.c -x none $B/impl_core.o -lm"
try "CT_SCOPE gcc cleanup form"  sh -c "$CC -std=c11 $W $SC -o $B/scope_gcc && $B/scope_gcc"
try "CT_SCOPE C++ guard form"    sh -c "$CXX -x c++ -std=c++17 $W $SC -o $B/scope_cxx && $B/scope_cxx"
try "CT_SCOPE portable form (C)" sh -c "$CC -std=c11 $W -DCTENSOR_PORTABLE_SCOPE $SC -o $B/scope_portable && $B/scope_portable"
try "CT_SCOPE portable form (C++)" sh -c "$CXX -x c++ -std=c++17 $W -DCTENSOR_PORTABLE_SCOPE $SC -o $B/scope_portable_cxx && $B/scope_portable_cxx"
try "CTENSOR_STATIC"      sh -c "$CC -std=c11 $W -c tests/compile/static.c -o $B/static.o && $CC $B/static.o -o $B/static -lm && $B/static"
try "CTENSOR_NO_STDIO + allocator" sh -c "$CC -std=c11 $W tests/compile/nostdio.c -o $B/nostdio -lm && $B/nostdio"
try "gcc -O2 -fopenmp -DCTENSOR_OPENMP$MPIN" sh -c "$CC -std=c11 $W -O2 -fopenmp -DCTENSOR_OPENMP $MPIF tests/compile/user.c -o $B/user_omp $LA $MPIL && $B/user_omp"
# CTENSOR_NO_THREADS: no pthread symbol referenced, links without -lpthread; the default
# build references pthread_key_create (in libc from glibc 2.34; older: -lpthread)
try "CTENSOR_NO_THREADS, no -lpthread" sh -c "$CC -std=c11 $W -c tests/compile/nothreads.c -o $B/nothreads.o && ! nm -u $B/nothreads.o | grep -q pthread && $CC $B/nothreads.o -o $B/nothreads -lm && $B/nothreads"
try "threads: pthread_key_create used" sh -c "nm -u $B/static.o | grep -q pthread_key_create"
# the selective build: selected ops run (with autograd, and its error under
# CTENSOR_NO_AUTOGRAD), an op left out fails naming CTENSOR_OP_<NAME>; with gc-sections
# no kernel of an op left out is in the program
SEL="-ffunction-sections -fdata-sections -Wl,--gc-sections"
try "CTENSOR_SELECTED_OPS" sh -c "$CC -std=c11 $W $SEL tests/compile/selected.c -o $B/selected -lm && $B/selected && ! nm $B/selected | grep -qE 'ct__k_mm\$|ct__u_EXP_f32|ct__b_DIV_f32'"
try "CTENSOR_SELECTED_OPS + CTENSOR_NO_AUTOGRAD, g++" sh -c "$CXX -x c++ -std=c++17 $W -DCTENSOR_NO_AUTOGRAD tests/compile/selected.c -o $B/selected_cxx -lm && $B/selected_cxx"
# ctensor_jit.h's lite interpreter (CTENSOR_JIT_LITE) with a graph's op list and no
# autograd (the suite's jit_lite part builds and runs it with gcc)
JL='-DJIT_LITE_OPS=\"tests/compile/jit_lite_ops.h\"'   # quoted again for the sh -c below
if command -v "$CLANG" >/dev/null 2>&1; then
  try "CTENSOR_JIT_LITE + selected ops, clang" sh -c "$CLANG -std=c11 $W $JL -c examples/jit_lite.c -o $B/jit_lite_clang.o"
fi
try "CTENSOR_JIT_LITE + selected ops, g++" sh -c "$CXX -x c++ -std=c++17 $W $JL -c examples/jit_lite.c -o $B/jit_lite_cxx.o"
# ctensor.h's DLPack structs beside a real dlpack.h (PyTorch's, DLPack 0.6), in either order
if [ -f /usr/include/ATen/dlpack.h ]; then
  try "dlpack.h before ctensor.h" sh -c "$CC -std=c11 $W -DDLPACK_FIRST -c tests/compile/dlpack_h.c -o $B/dlpack_first.o && $CXX -x c++ -std=c++17 $W -DDLPACK_FIRST -c tests/compile/dlpack_h.c -o $B/dlpack_first_cxx.o"
  try "dlpack.h after ctensor.h" sh -c "$CC -std=c11 $W -c tests/compile/dlpack_h.c -o $B/dlpack_last.o && $CXX -x c++ -std=c++17 $W -c tests/compile/dlpack_h.c -o $B/dlpack_last_cxx.o"
else echo "skip dlpack.h (no /usr/include/ATen/dlpack.h)"; fi
# builds that must fail, with the message that says why: try_fail name, expected text, command...
try_fail() {
  name=$1; want=$2; shift 2
  if out=$("$@" 2>&1); then fail=$((fail + 1)); echo "FAIL $name (built, expected an error)"
  elif printf '%s' "$out" | grep -qF -- "$want"; then pass=$((pass + 1)); echo "ok   $name"
  else fail=$((fail + 1)); echo "FAIL $name (failed without \"$want\")"; printf '%s\n' "$out" | head -20; fi
}
# (the refusal is an #error: preprocessing shows it, -E saves compiling the rest)
FM="must not be compiled with -ffast-math"
try_fail "-ffast-math refused"        "$FM" $CC -std=c11 $W -O2 -ffast-math -E tests/compile/static.c -o $B/fastmath.i
try_fail "-Ofast refused"            "$FM" $CC -std=c11 $W -Ofast -E tests/compile/static.c -o $B/ofast.i
try_fail "-ffinite-math-only refused" "$FM" $CXX -x c++ -std=c++17 $W -O2 -ffinite-math-only -E tests/compile/static.c -o $B/finite.i
try "-ffast-math in a user file"  sh -c "$CC -std=c11 $W -O2 -ffast-math -c tests/compile/tu_b.c -o $B/tu_b_fast.o && $CC $B/tu_a.o $B/tu_b_fast.o -o $B/tu_fast -lm && $B/tu_fast"
# CTENSOR_MAX_DIMS: tu_b.c built with 4 does not link to tu_a.o's implementation (the
# default, 8) and the error names ct_abi_max_dims_4; dims_a.c's implementation built
# with 4 links to dims_b.c (4) and runs
try_fail "CTENSOR_MAX_DIMS mismatch fails to link" "ct_abi_max_dims_4" sh -c "$CC -std=c11 $W -DCTENSOR_MAX_DIMS=4 -c tests/compile/tu_b.c -o $B/tu_b4.o && $CC $B/tu_a.o $B/tu_b4.o -o $B/dims_mismatch -lm"
try "CTENSOR_MAX_DIMS the same everywhere" sh -c "$CC -std=c11 $W -DCTENSOR_MAX_DIMS=4 tests/compile/dims_a.c tests/compile/dims_b.c -o $B/dims_same -lm && $B/dims_same"
try "CTENSOR_MAX_DIMS check in a C++ file" sh -c "$CXX -x c++ -std=c++17 $W -c tests/compile/tu_b.c -o $B/tu_b_cxx.o && nm $B/tu_b_cxx.o | grep -q ' U ct_abi_max_dims_8\$'"
NVCC=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
# ctensor_cuda.h: its declarations are C; without CTENSOR_CUDA, or its implementation
# outside nvcc, it is an #error saying what to do
try "ctensor_cuda.h declarations, gcc -std=c11" $CC -std=c11 $W -DCTENSOR_CUDA -c tests/cuda/compile_decl.c -o $B/cuda_decl.o
try "ctensor_cuda.h declarations, g++ -x c++" $CXX -x c++ -std=c++17 $W -DCTENSOR_CUDA -c tests/cuda/compile_decl.c -o $B/cuda_decl_cxx.o
try_fail "ctensor_cuda.h without CTENSOR_CUDA" "define CTENSOR_CUDA" $CC -std=c11 $W -c tests/cuda/compile_decl.c -o $B/cuda_nodef.o
try_fail "ctensor_cuda.h implementation outside nvcc" "must be compiled by nvcc as CUDA" $CC -std=c11 $W -DCTENSOR_CUDA -c tests/cuda/compile_user.c -o $B/cuda_gcc.o
if [ -n "$NVCC" ]; then
  try "nvcc (compile only)" sh -c "cp tests/compile/user.c $B/user_nvcc.cu && $NVCC -I. -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -c $B/user_nvcc.cu -o $B/user_nvcc.o"
  try "nvcc, a file without the implementation" sh -c "cp tests/compile/tu_b.c $B/tu_b_nvcc.cu && $NVCC -I. -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -c $B/tu_b_nvcc.cu -o $B/tu_b_nvcc.o"
  try_fail "nvcc, ctensor_nn.h after ctensor_cuda.h" "include ctensor_nn.h before ctensor_cuda.h" $NVCC -x cu -DCTENSOR_CUDA -I. -E tests/cuda/compile_order.c -o $B/cuda_order.i
  try_fail "nvcc, ctensor_linalg.h after ctensor_cuda.h" "include ctensor_linalg.h before ctensor_cuda.h" $NVCC -x cu -DCTENSOR_CUDA -I. -E tests/cuda/compile_order_linalg.c -o $B/cuda_order_la.i
  # (ctensor_linalg.h + ctensor_cuda.h under nvcc with -Werror all-warnings, linked to cuSOLVER:
  #  the Makefile's nvcc build of tests/cuda/test_cuda.c, which includes both)
  try_fail "nvcc --default-stream per-thread" "per-thread is not supported" $NVCC -x cu --default-stream per-thread -DCTENSOR_CUDA -I. -E tests/cuda/compile_user.c -o $B/cuda_pt.i
  try "nvcc ctensor_cuda.h, -Werror all-warnings, linked with a C file" sh -c "$NVCC -O2 -x cu -DCTENSOR_CUDA -I. -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -c tests/cuda/compile_user.c -o $B/cuda_user.o && $NVCC $B/cuda_user.o $B/cuda_decl.o -o $B/cuda_user -lcublas -lpthread && $B/cuda_user"
else echo "skip nvcc (not installed)"; fi
# ctensor_dist.h's NCCL backend in a file of its own, against the toolkit's nccl.h and
# Open MPI's mpi.h: gcc -std=c11 -pedantic and nvcc, compile only (a few seconds; no GPU)
CUDAINC=$(dirname "$(dirname "${NVCC:-/usr/local/cuda/bin/nvcc}")")/include
if command -v mpicc >/dev/null 2>&1 && [ -f "$CUDAINC/nccl.h" ]; then
  try "ctensor_dist.h NCCL backend, gcc -std=c11" $CC -std=c11 $W -I"$CUDAINC" $(mpicc -showme:compile) -DCTENSOR_CUDA -c tests/dist/compile_nccl.c -o $B/nccl_gcc.o
  if [ -n "$NVCC" ]; then
    try "ctensor_dist.h NCCL backend, nvcc -Werror all-warnings" $NVCC -x cu -I. $(mpicc -showme:compile) -DCTENSOR_CUDA -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -c tests/dist/compile_nccl.c -o $B/nccl_nvcc.o
    # examples/fsdp_train.c as its header comment builds it for GPUs (CUDA header, NCCL
    # group, MPI), with -Werror, and linked (about 90 s: the whole CUDA implementation)
    try "examples/fsdp_train.c, nvcc with CUDA + NCCL + MPI, linked" sh -c "$NVCC -x cu -O2 -DCTENSOR_CUDA -DCTENSOR_NCCL -I. $(mpicc -showme:compile) -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -c examples/fsdp_train.c -o $B/fsdp_nvcc.o && $NVCC $B/fsdp_nvcc.o -o $B/fsdp_nvcc -lcublas -lnccl $(mpicc -showme:link)"
  fi
else echo "skip ctensor_dist.h's NCCL backend (no mpicc or no nccl.h in $CUDAINC)"; fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
