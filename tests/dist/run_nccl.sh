#!/bin/sh
# ctensor_dist.h's NCCL group on the CUDA emulator: `mpirun -np 2 BINARY --nccl`, where
# BINARY is the emulator build of tests/cuda/test_cuda.c made with Open MPI (the
# Makefile's NCCL_EMU; NCCL emulated over MPI by tests/dist/emu/nccl.h). A few seconds.
# Usage: sh tests/dist/run_nccl.sh BINARY. Prints rank 0's "N passed, N failed".
BIN=$1
if ! command -v mpirun >/dev/null 2>&1 || [ ! -x "$BIN" ]; then
  echo "skip: Open MPI's mpirun or $BIN is missing"; echo "0 passed, 0 failed"; exit 0
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
# two emulated GPUs per process: rank r's group takes cuda:r (its node-local rank), so
# the tests can put parameters on the other one (the device-mismatch errors)
export CT_EMU_DEVICES=${CT_EMU_DEVICES:-2}
t0=$(date +%s)
out=$(timeout 120 mpirun --oversubscribe -np 2 "$BIN" --nccl 2>&1); rc=$?
last=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
if [ "$rc" != 0 ] || [ -z "$last" ]; then printf '%s\n' "$out" | grep -v '^ok ' | tail -n 40; fi
echo "NCCL group, emulated, 2 ranks: ${last:-no summary (exit $rc)} ($(( $(date +%s) - t0 ))s)"
[ -n "$last" ] || last="0 passed, 1 failed"
[ "$rc" = 0 ] || case "$last" in *" 0 failed") last="${last%% passed*} passed, 1 failed" ;; esac
echo "$last"
[ "$rc" = 0 ]
