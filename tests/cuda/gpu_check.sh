#!/bin/sh
# tests/cuda/gpu_check.sh - the CUDA checks for a machine with a GPU, from the
# repository root:
#     sh tests/cuda/gpu_check.sh          (OUT=dir keeps the logs there; BUDGET=seconds)
# 1. builds build/cuda/test_cuda with nvcc, once (-arch=sm_90: H100/H200, with PTX
#    that newer GPUs compile at load; ARCH=-arch=native or another to change it),
#    printing nvidia-smi while it builds;
# 2. runs it: stdout unbuffered, each test named before it runs, and a crash prints
#    the test and a stack (resolved with addr2line here); after a crash it runs
#    again without the tests that crashed (CT_CUDA_SKIP), time allowing;
# 3. compute-sanitizer memcheck on the whole program, with the time left;
# 4. racecheck (the tests whose kernels use shared memory and warp shuffles) only
#    when time is still left.
# The whole script stays within BUDGET seconds (default 240; the build, about 80 s
# on two cores here, took 120 s on the GPU machine before -O1 and --split-compile).
# Warnings do not stop it (no -Werror: the GPU machine's host gcc is not ours;
# make test-compile and make cuda-test keep -Werror on our machines); they are
# counted in the summary.
# Exit status 0 when the build succeeded, test_cuda passed, and no sanitizer run
# reported an error. A sanitizer run cut short by the budget with no error found
# so far is reported as INCOMPLETE and does not fail the script.
set -u
START=$(date +%s)
BUDGET=${BUDGET:-240}
ARCH=${ARCH:--arch=sm_90}
left() { echo $(( BUDGET - ($(date +%s) - START) )); }
min() { [ "$1" -lt "$2" ] && echo "$1" || echo "$2"; }
OUTD=${OUT:-build/cuda/gpu_check}
mkdir -p "$OUTD" build/cuda
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
BIN=build/cuda/test_cuda
SUMMARY="$OUTD/summary.txt"
: > "$SUMMARY"
status=0
note() { echo "$*" | tee -a "$SUMMARY"; }
# step NAME SECONDS LOG COMMAND...: output to LOG (its tail to the terminal);
# sets rc and took
step() {
  name=$1; secs=$2; log=$3; shift 3
  echo "== $name (limit ${secs}s, log $log)"
  start=$(date +%s)
  timeout -k 5 "$secs" "$@" > "$log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  tail -n 30 "$log"
}
# a crash's stack: backtrace_symbols_fd prints "bin(+0xOFFSET)"; name the frames
resolve_stack() {
  command -v addr2line >/dev/null 2>&1 || return 0
  offs=$(sed -n '/\*\*\* test_cuda: SIG/,$p' "$1" | grep -o "$BIN(+0x[0-9a-f]*)" | sed 's/.*(+\(0x[0-9a-f]*\))/\1/')
  [ -n "$offs" ] || return 0
  echo "== the crash's stack, resolved:" | tee -a "$SUMMARY"
  addr2line -f -C -p -e "$BIN" $offs 2>&1 | tee -a "$SUMMARY"
}
# did a sanitizer log report an error? its first line (also in a run cut short)
san_errors() {
  grep -iE '^========= +(Invalid|Program hit|Error|Race|Warning|Barrier|Uninitialized|Malloc|Misaligned|Out.of|Leaked|Target application)' "$1" |
    grep -v 'ERROR SUMMARY: 0 errors' | head -n 1
}
# sanitizer NAME SECONDS LOG ARGS... (SANENV: VAR=value for the program, or empty).
# --report-api-errors no: the tests make CUDA calls fail on purpose (cudaSetDevice
# of a device that does not exist, cudaMalloc beyond the GPU's memory); their
# results are checked by the tests themselves.
sanitizer() {
  sname=$1; ssecs=$2; slog=$3; shift 3
  step "$sname" "$ssecs" "$slog" env ${SANENV:-} "$SAN" --report-api-errors no --error-exitcode 3 --print-limit 30 "$@"
  first=$(san_errors "$slog")
  if [ $rc = 0 ]; then note "PASS $sname (${took}s)"
  elif [ $rc = 124 ] || [ $rc = 137 ]; then
    if [ -n "$first" ]; then note "FAIL $sname: cut at ${ssecs}s after reporting: $first (log: $slog)"; status=1
    else note "INCOMPLETE $sname: cut at ${ssecs}s, no error reported before that (log: $slog)"; fi
  elif [ -n "$first" ] || [ $rc = 3 ]; then note "FAIL $sname (exit $rc, ${took}s; log: $slog): ${first:-see the log}"; status=1
  else
    note "FAIL $sname: the program failed under the sanitizer (exit $rc, ${took}s), no sanitizer error reported (log: $slog)"; status=1
    grep '^FAIL ' "$slog" | head -n 10 | tee -a "$SUMMARY"
  fi
  grep -q '\*\*\* test_cuda: SIG' "$slog" && resolve_stack "$slog"
}

# 1. build (nvidia-smi meanwhile)
# -O1 (host code) and --split-compile 0 (device code on every core): the build's
# time (here, two cores: host gcc 53 s at -O2, 37 s at -O1; cicc + ptxas 47 s, 33 s
# split) matters more than the CPU reference path's speed in these tests
FLAGS="-O1 --split-compile 0 -x cu -DCTENSOR_CUDA -I. -Itests -Xcompiler -Wall,-Wextra,-rdynamic -lineinfo"
echo "== build: $NVCC $FLAGS $ARCH tests/cuda/test_cuda.c (log $OUTD/build.log)"
bstart=$(date +%s)
rm -f $BIN   # never a stale binary
# ctensor_linalg.h's tests (cuSOLVER) need LAPACKE and OpenBLAS on the host too
# (the CPU reference path); without them the program is built without those tests
LALIBS="-lcusolver -llapacke -lopenblas"
if [ ! -e /usr/include/lapacke.h ] && [ ! -e /usr/local/include/lapacke.h ]; then
  FLAGS="$FLAGS -DCT_TEST_NO_LINALG"; LALIBS=""
  note "NOTE no lapacke.h: test_cuda is built without the linalg (cuSOLVER) tests (apt-get install liblapacke-dev libopenblas-dev)"
fi
timeout -k 5 "$(min 200 "$(left)")" "$NVCC" $FLAGS $ARCH tests/cuda/test_cuda.c -o $BIN $LALIBS -lcublas -lcublasLt -lpthread > "$OUTD/build.log" 2>&1 &
bpid=$!
echo "== nvidia-smi"
timeout 20 nvidia-smi 2>&1 | tee "$OUTD/nvidia-smi.txt"
"$NVCC" --version 2>&1 | tail -n 2 | tee "$OUTD/nvcc-version.txt"
wait $bpid
brc=$?
btook=$(( $(date +%s) - bstart ))
nwarn=$(grep -c 'warning' "$OUTD/build.log")
tail -n 20 "$OUTD/build.log"
if [ $brc != 0 ] || [ ! -x $BIN ]; then
  note "FAIL build (exit $brc, ${btook}s; log: $OUTD/build.log)"
  echo "== summary"; cat "$SUMMARY"; exit 1
fi
note "PASS build (${btook}s, $ARCH; $nwarn warning lines in $OUTD/build.log)"

# 2. the tests; after a crash, again without the tests that crashed (up to 3 times,
# time allowing), so that one run on the GPU reports on every test
SKIP=""
for try in 1 2 3 4; do
  log="$OUTD/test_cuda.log"; [ $try = 1 ] || log="$OUTD/test_cuda_$try.log"
  name="test_cuda"; [ -z "$SKIP" ] || name="test_cuda without$(echo "$SKIP" | tr ',' ' ')"
  step "$name" "$(min 90 "$(left)")" "$log" env CT_CUDA_SKIP="$SKIP" ./$BIN
  last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
  started=$(grep '^run ' "$log" | tail -n 1 | sed 's/^run  *//')
  if [ $rc = 0 ] && [ -n "$last" ]; then note "PASS $name (${took}s): $last"; break; fi
  status=1
  if [ $rc = 124 ] || [ $rc = 137 ]; then note "TIMEOUT $name after ${took}s; the last test started: ${started:-none}"
  else note "FAIL $name (exit $rc, ${took}s): ${last:-no summary line}; the last test started: ${started:-none}"; fi
  grep '^FAIL ' "$log" | head -n 20 | tee -a "$SUMMARY"
  grep -q '\*\*\* test_cuda: SIG' "$log" || break   # not a crash: the log has it all
  resolve_stack "$log"
  [ -n "$started" ] && [ "$(left)" -ge 40 ] || break
  SKIP="$SKIP,$started"
done

# 3, 4. the sanitizers with the time left
if [ ! -x "$SAN" ]; then
  note "SKIP compute-sanitizer: not found ($SAN)"
elif [ "$(left)" -lt 30 ]; then
  note "SKIP compute-sanitizer: $(left)s left of the budget"
else
  SANENV=${SKIP:+CT_CUDA_SKIP=$SKIP} sanitizer "memcheck (every test${SKIP:+ but$(echo "$SKIP" | tr ',' ' ')})" \
    "$(( $(left) - 5 ))" "$OUTD/memcheck.log" --tool memcheck ./$BIN
  if [ "$(left)" -ge 30 ]; then
    SANENV="CT_CUDA_TESTS=test_reductions,test_softmax,test_layer_norm,test_batch_norm,test_cross_entropy,test_scans,test_var_std,test_sort_topk,test_nonzero_masked_select,test_random,test_logic_reductions,test_norm_logsumexp,test_mode,test_shape_take_one_hot_repeat_interleave,test_fused_attention,test_q_linear_dynamic_cublaslt,test_fused_attention_nested${SKIP:+ CT_CUDA_SKIP=$SKIP}" \
      sanitizer "racecheck (reductions, softmax, norms, cross_entropy, scans, var/std, sort, compaction, random, norm/logsumexp/mode, one_hot, fused attention, the dynamic int8 range, nested rows)" "$(( $(left) - 3 ))" "$OUTD/racecheck.log" --tool racecheck ./$BIN
  else
    note "SKIP racecheck: $(left)s left of the budget"
  fi
fi
echo "== summary ($(( $(date +%s) - START ))s of ${BUDGET}s)"
cat "$SUMMARY"
exit $status
