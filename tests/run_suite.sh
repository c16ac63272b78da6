#!/bin/sh
# Runs every part of the test suite and sums the "N passed, N failed" lines.
# Each part prints its own failures, then one line: its name, its summary and the
# seconds it ran (where the suite's time goes); the last line is the total.
B=${BUILD:-build}
total_pass=0; total_fail=0; broken=""
run_part() {  # name, command...
  name=$1; shift
  t0=$(date +%s)
  out=$("$@" 2>&1); rc=$?
  secs=$(( $(date +%s) - t0 ))
  [ -n "$part_secs" ] && secs=$part_secs
  last=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
  p=$(printf '%s' "$last" | sed -E 's/^([0-9]+) passed.*/\1/'); f=$(printf '%s' "$last" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
  [ -n "$p" ] || { p=0; f=1; }
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
  if [ "$f" != 0 ] || [ "$rc" != 0 ]; then
    printf '%s\n' "$out" | grep -vE '^(ok|PASS) ' | tail -n 60
    broken="$broken $name"
  fi
  printf '%-34s %-36s %4ds\n' "$name" "${last:-no summary line (exit $rc)}" "$secs"
}
# Parts that only compile and run programs (no shared state with the others) start in
# the background at once and run beside the rest: the suite is otherwise one process
# at a time on a 2-core machine. collect_bg waits and reports them like run_part.
part_secs=""; nbg=0
run_bg() {  # name, command...
  nbg=$((nbg + 1)); f=$B/suite_part_$nbg
  mkdir -p "$B"; printf '%s\n' "$1" > "$f.name"; shift
  rm -f "$f.out" "$f.rc"
  ( t0=$(date +%s); "$@" > "$f.out" 2>&1; echo "$? $(( $(date +%s) - t0 ))" > "$f.rc" ) &
}
collect_bg() {
  wait
  i=1
  while [ "$i" -le "$nbg" ]; do
    f=$B/suite_part_$i; rc=1; secs=0
    [ -f "$f.rc" ] && read -r rc secs < "$f.rc"
    part_secs=$secs
    run_part "$(cat "$f.name")" sh -c 'cat "$1"; exit "$2"' sh "$f.out" "$rc"
    part_secs=""
    i=$((i + 1))
  done
}
finish() {
  [ -n "$broken" ] && echo "failing parts:$broken"
  echo "$total_pass passed, $total_fail failed"
  [ "$total_fail" = 0 ]
}
# aarch64: the tests in A64_TESTS, cross-built in $B/aarch64, run under qemu-aarch64
# (the Makefile's aarch64 block: make test-aarch64 runs them all with A64_ONLY=1,
# make test a subset; A64_SKIP says why they cannot run here)
run_aarch64() {
  if [ -n "$A64_SKIP" ]; then echo "$A64_SKIP"; return; fi
  for t in ${A64_TESTS:-}; do run_part "$t (aarch64 qemu)" ${A64_QEMU:-qemu-aarch64} "$B/aarch64/$t"; done
}
if [ -n "${A64_ONLY:-}" ]; then run_aarch64; finish; exit; fi
# compile tests, README examples and the fuzz smoke runs (compile-bound) and
# ctensor_cuda.h's tests (the Makefile's CUDA block sets CUDA_TESTS: the nvcc build
# skips, passing, without a GPU; the emulated build runs the kernels on the host, the
# longest part) in the background
for t in ${CUDA_TESTS:-}; do run_bg "$t" ./$B/cuda/$t; done
run_bg "compile tests" sh tests/compile/run.sh
run_bg "README examples" sh tests/compile/readme.sh
if [ -d tests/fuzz ] && command -v "${CLANG:-clang}" >/dev/null 2>&1; then
  run_bg "fuzz smoke" sh tests/fuzz/smoke.sh
fi
# the plain -O1 -g build: PLAIN_TESTS (the Makefile: the tests linked to tests/ct_impl.c)
for t in ${PLAIN_TESTS-$TESTS}; do run_part "$t" ./$B/tests/$t; done
# the lite JIT interpreter (examples/jit_lite.c with the MLP's selective build, the
# Makefile's jit_lite block) against the full interpreter's output
if [ -x "$B/jit_lite/jit_lite" ]; then
  run_part "jit_lite (selective build)" ./$B/jit_lite/jit_lite $B/jit_lite/mlp.ctjit $B/jit_lite/x.npy $B/jit_lite/y.npy
fi
# allocator calls per graph run after the first (tests/jit_lite/allocs.c)
if [ -x "$B/jit_lite/allocs" ]; then run_part "jit allocations per run" ./$B/jit_lite/allocs; fi
for t in $TESTS; do run_part "$t (opt+blas+omp)" ./$B/opt/$t; done
for t in $TESTS; do run_part "$t (asan+ubsan)" env ASAN_OPTIONS=detect_leaks=1 ./$B/asan/$t; done
for t in $TSAN_TESTS; do run_part "$t (tsan)" env TSAN_OPTIONS=halt_on_error=1 ./$B/tsan/$t; done
run_part "conformance" ./$B/tests/conformance tests/fixtures
# ctensor_dist.h on Open MPI: mpirun -np 2 and 4 on loopback (tests/dist/run.sh); the
# Makefile's DIST_BINS (empty without mpicc: the part says it skipped)
if [ -n "${DIST_BINS:-}" ]; then
  for b in $DIST_BINS; do
    case "$b" in */asan/*) k="asan+ubsan" ;; *) k="plain" ;; esac
    run_part "dist, mpirun ($k)" sh tests/dist/run.sh "$b"
  done
else run_part "dist, mpirun" sh tests/dist/run.sh /nonexistent; fi
# ctensor_dist.h's NCCL group on the CUDA emulator (NCCL emulated over MPI): the
# emulator build's --nccl mode under mpirun -np 2 (the Makefile's NCCL_EMU_BIN)
if [ -n "${NCCL_EMU_BIN:-}" ]; then run_part "dist, NCCL group on the CUDA emulator" sh tests/dist/run_nccl.sh "$NCCL_EMU_BIN"; fi
# Replay (tests/ct_replay.h): every op call run again from its declared attributes
# alone must give the same bits. The conformance cases cover most ops (backward
# ops too); these unit tests add in-place views and double backward (autograd),
# in-place indexing and data-dependent shapes (index), the norms' backward ops,
# the fused optimizer steps, the transformer fastpath's fused ops (the KV-cache form
# writes the same positions again), random fills and the schema API.
run_part "conformance (replay)" env CT_TEST_REPLAY=1 ./$B/tests/conformance tests/fixtures
for t in ${REPLAY_TESTS:-test_autograd test_index test_nn_norm test_nn_transformer test_optim test_random test_schema}; do
  # the plain build where there is one, else the optimized one
  case " ${PLAIN_TESTS-$TESTS} " in *" $t "*) bin=./$B/tests/$t ;; *) bin=./$B/opt/$t ;; esac
  case " $TESTS " in *" $t "*) run_part "$t (replay)" env CT_TEST_REPLAY=1 $bin ;; esac
done
run_part "conformance (asan+ubsan)" env ASAN_OPTIONS=detect_leaks=1 ./$B/asan/conformance tests/fixtures
# Huge sizes (tests/ct_huge.h): the first calls of every op each program makes run
# again, in a forked child under ASan+UBSan, with every int attribute, float
# attribute and input size pushed near int64's limits; each must fail cleanly or
# succeed in bounds (about 1 minute in all).
run_part "conformance (huge, asan+ubsan)" env CT_TEST_HUGE=1 ./$B/asan/conformance tests/fixtures
for t in $TESTS; do
  case "$t" in test_threads|test_nn_pool_property) continue ;; esac
  run_part "$t (huge, asan+ubsan)" env CT_TEST_HUGE=1 ./$B/asan/$t
done
# make lib: a staged make install, a program built with pkg-config's flags against the
# shared and the static library, and the exported symbols (tests/lib/check.sh)
run_part "make lib (install, pkg-config)" sh tests/lib/check.sh
# DLPack with PyTorch in one process (make dlpack-torch); passes, skipping, without torch
run_part "DLPack with PyTorch" sh -c "if command -v ${TORCH_PY:-/usr/bin/python3} >/dev/null; then ${TORCH_PY:-/usr/bin/python3} examples/torch_interop/dlpack_torch.py $B/lib/libdlpack_torch.so; else echo 'no python: skipped'; echo '0 passed, 0 failed'; fi"
run_aarch64
# The API reference (make docs): docs/reference/ up to date, every public function with
# a description and a PyTorch counterpart; the counterparts imported when torch is there
run_part "API reference (docs/reference)" sh -c "py=\$(command -v ${DOCS_PY:-python3} || command -v /usr/bin/python3); if [ -n \"\$py\" ]; then TORCH_PY=${TORCH_PY:-/usr/bin/python3} \$py tools/gen_docs.py --check; else echo 'no python3: skipped'; echo '0 passed, 0 failed'; fi"
collect_bg
finish
