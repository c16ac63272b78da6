#!/bin/sh
# The multi-process tests of ctensor_dist.h: tests/dist/test_dist_mpi.c under Open MPI's
# mpirun on loopback (a few seconds). Usage: sh tests/dist/run.sh BINARY [label]
# Sums rank 0's "N passed, N failed" lines; a run that prints none, or that does not
# end within its time limit (a hang), fails.
BIN=$1
pass=0; fail=0
if ! command -v mpirun >/dev/null 2>&1 || [ ! -x "$BIN" ]; then
  echo "skip: Open MPI's mpirun or $BIN is missing (make deps installs libopenmpi-dev openmpi-bin)"
  echo "0 passed, 0 failed"; exit 0
fi
# CI runs as root, which Open MPI refuses unless told; more ranks than cores need
# --oversubscribe; loopback only (no network interfaces probed).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
# components stay loaded to the end, so that LeakSanitizer can name them
export OMPI_MCA_mca_base_component_disable_dlclose=1
# LeakSanitizer: Open MPI's own allocations live until exit (tests/dist/lsan.supp); its
# libraries have no frame pointers, so the slow unwinder names them
export LSAN_OPTIONS="suppressions=$(dirname "$0")/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
run() {  # name, mpirun arguments...
  name=$1; shift
  t0=$(date +%s)
  case "$name" in *crash*) lim=60 ;; *) lim=120 ;; esac
  out=$(timeout $lim mpirun --oversubscribe "$@" 2>&1); rc=$?
  secs=$(( $(date +%s) - t0 ))
  last=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
  p=$(printf '%s' "$last" | sed -E 's/^([0-9]+) passed.*/\1/'); f=$(printf '%s' "$last" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
  [ -n "$p" ] || { p=0; f=1; }
  # a hang fails, except mpirun's own teardown after a rank was killed (--enable-recovery):
  # there rank 0 has already printed its whole result
  if [ "$rc" = 124 ]; then case "$name" in *crash*) [ -n "$last" ] || f=$((f + 1)) ;; *) f=$((f + 1)) ;; esac; fi
  case "$name" in *crash*) ;; *) [ "$rc" != 0 ] && [ "$f" = 0 ] && f=1 ;; esac   # mpirun reports the crash itself
  if [ "$f" != 0 ]; then printf '%s\n' "$out" | grep -v '^ok ' | tail -n 40; fi
  echo "$name: ${last:-no summary (exit $rc)} (${secs}s)"
  pass=$((pass + p)); fail=$((fail + f))
}
run "collectives, 2 ranks" -np 2 "$BIN" collectives
run "collectives, 4 ranks" -np 4 "$BIN" collectives
run "DDP, ZeRO-1, FSDP vs one process, 2 ranks" -np 2 "$BIN" train
run "DDP, ZeRO-1, FSDP vs one process, 3 ranks (padded shards)" -np 3 "$BIN" train
ck=$(mktemp -d)
run "FSDP checkpoints: train and save; examples/fsdp_train.c (minGPT), tiny; 2 ranks" -np 2 "$BIN" ckpt_save "$ck"
run "FSDP checkpoints: a new job resumes, 2 ranks" -np 2 "$BIN" ckpt_resume "$ck"
rm -rf "$ck"
run "a rank leaves early, 2 ranks" -np 2 "$BIN" exit
run "a rank crashes (--enable-recovery), 2 ranks" --enable-recovery -np 2 "$BIN" crash
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
