#!/bin/sh
# tests/cuda/gpu_check.sh - the CUDA checks for a machine with a GPU, from the
# repository root:
#     sh tests/cuda/gpu_check.sh            (OUT=dir keeps the logs there)
# 1. nvidia-smi;  2. builds build/cuda/test_cuda with nvcc for the GPU present
# (-arch=native, else sm_90; no OpenBLAS needed);  3. runs it;  4. runs it under
# compute-sanitizer memcheck (every test) and racecheck (the tests whose kernels
# use shared memory and warp shuffles: reductions, softmax). Each step has a
# time limit; the whole script takes about 3 minutes. The last lines summarize.
# Exit status: 0 when every step that ran passed.
set -u
START=$(date +%s)
BUDGET=${BUDGET:-225}   # seconds for the whole script; the sanitizer runs get what is left
left() { echo $(( BUDGET - ($(date +%s) - START) )); }
min() { [ "$1" -lt "$2" ] && echo "$1" || echo "$2"; }
OUTD=${OUT:-build/cuda/gpu_check}
mkdir -p "$OUTD" build/cuda
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SUMMARY="$OUTD/summary.txt"
: > "$SUMMARY"
status=0
note() { echo "$*" | tee -a "$SUMMARY"; }
# step name, seconds, log file, command...: the command's output goes to the log
# and its last lines to the terminal; its verdict to the summary
step() {
  name=$1; secs=$2; log=$3; shift 3
  echo "== $name (limit ${secs}s, log $log)"
  start=$(date +%s)
  timeout "$secs" "$@" > "$log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  tail -n 25 "$log"
  if [ $rc = 0 ]; then note "PASS $name (${took}s)"
  elif [ $rc = 124 ]; then note "TIMEOUT $name after ${secs}s (log: $log)"; status=1
  else note "FAIL $name (exit $rc, ${took}s; log: $log)"; status=1; fi
  return $rc
}

echo "== nvidia-smi"
nvidia-smi 2>&1 | tee "$OUTD/nvidia-smi.txt"
"$NVCC" --version | tail -n 2 | tee "$OUTD/nvcc-version.txt"

BIN=build/cuda/test_cuda
FLAGS="-O2 -x cu -DCTENSOR_CUDA -I. -Itests -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -lineinfo"
if ! step "build (nvcc -arch=native)" 150 "$OUTD/build.log" "$NVCC" $FLAGS -arch=native tests/cuda/test_cuda.c -o $BIN -lcublas -lpthread; then
  step "build (nvcc -arch=sm_90)" 150 "$OUTD/build_sm90.log" "$NVCC" $FLAGS -arch=sm_90 tests/cuda/test_cuda.c -o $BIN -lcublas -lpthread || {
    note "no binary: stopping"; cat "$SUMMARY"; exit 1; }
fi
step "test_cuda" "$(min 60 "$(left)")" "$OUTD/test_cuda.log" ./$BIN
if [ ! -x "$SAN" ]; then
  note "SKIP compute-sanitizer: not found ($SAN)"
elif [ "$(left)" -lt 30 ]; then
  note "SKIP compute-sanitizer: out of time (the build took long)"
else
  step "memcheck (every test)" "$(min 110 $(( $(left) - 25 )))" "$OUTD/memcheck.log" \
    "$SAN" --tool memcheck --error-exitcode 3 ./$BIN
  if [ "$(left)" -ge 15 ]; then
    step "racecheck (reductions, softmax, gather/scatter)" "$(min 90 "$(left)")" "$OUTD/racecheck.log" \
      env CT_CUDA_TESTS=test_reductions,test_softmax,test_gather_scatter "$SAN" --tool racecheck --error-exitcode 3 ./$BIN
  else
    note "SKIP racecheck: out of time"
  fi
fi
echo "== summary"
cat "$SUMMARY"
exit $status
