#!/bin/sh
# Runs ctensor's benchmarks and their PyTorch twins on this machine, side by side.
#   sh bench/run.sh [NAME ...]     NAME: a bench/NAME.c (default: all of them)
# `make bench` builds the programs first and calls this (make bench BENCH="overhead").
# For each NAME it writes, under $BUILD/bench/:
#   NAME.ct.tsv     ctensor's lines       NAME.torch.tsv  PyTorch's lines
#   NAME.md         the markdown table (with the target lines)
# and prints the side-by-side table. A NAME_builtin program (the same source built
# without BLAS: make build/bench/NAME_builtin) is run too when it has been built, and
# so is NAME_fftw (bench/fft.c on ctensor_fft.h's CTENSOR_FFTW backend: make build/bench/fft_fftw).
# Environment:
#   CT_BENCH_SECONDS   seconds per case (default 0.5; 0.05 for a quick run)
#   CT_BENCH_FILTER    only cases whose name contains this (see bench/bench.h)
#   CT_BENCH_CLOCK     wall (default) or cpu: 1-thread cases on the thread's CPU time,
#                      for a machine that other work shares (see bench/bench.h)
#   CT_BENCH_PYTHON    the python with torch (default /usr/bin/python3)
#   CT_BENCH_NICE      run both sides at this nice level (e.g. -20, needs root), in a
#                      session of their own so that the kernel's autogroup scheduling
#                      applies it against other sessions' work too: on a shared machine
#                      the benchmark then gets the cores it asks for (what makes the
#                      2-thread cases measurable there); others' work waits meanwhile
#   CT_BENCH_ROUNDS    run ctensor and the twin alternately this many times and keep,
#                      per case, the round with the lowest median (default 1; use 2-3
#                      when other work shares the machine)
#   CT_BENCH_BUSY      1: a busy loop holds the last CPU while both sides run (each
#                      side at the same priority as the loop: CT_BENCH_NICE is ignored),
#                      to measure how the _t2 cases degrade when another process takes
#                      a core; the tables' note says so
#   BUILD              build folder (default build)
# The twin is skipped, with a note, when PyTorch cannot be imported. Exit status:
# non-zero when a ctensor program is missing or fails (a failing twin is reported).
B=${BUILD:-build}
OUT=$B/bench
PY=${CT_BENCH_PYTHON:-/usr/bin/python3}
HERE=$(dirname "$0")
mkdir -p "$OUT"

# per benchmark: the default thread count (empty: the program sets threads per case)
# and the targets checked under its table (compare.py --target 'GLOB>=RATIO')
threads_of() {
  case "$1" in
    overhead|autograd|linalg|optim|conv|norm|loss|modules|resample|profiler|memory_format) echo 1 ;;   # their twins run torch.set_num_threads(1)
    *) echo "" ;;   # train, models, ...: the program and its twin set threads per case
  esac
}
targets_of() {
  case "$1" in
    overhead) echo "add_4x4_f32>=30" ;;   # issue 10: a 4x4 add at most 1/30 of PyTorch eager (1/20 before)
    fft) echo "*>=1.0" ;;   # issue 18: torch.fft at least as fast as PyTorch's pocketfft
    autograd) echo "chain_125ops_4x4_f32_fwd_bwd>=20" ;;   # issue 10: the 125-op chain, forward + backward
    linalg) echo "announcement_prod_diag_cholesky_4x4>=10 *_n64>=0.95 *_n256>=0.95 *_n1024>=0.95 batched_*>=2" ;;   # issue 4
    conv) echo "conv2d_*>=1.0" ;;   # issue 10: conv2d fwd and fwd+bwd, NCHW and channels-last, >= 1.0x PyTorch
    train) echo "train_*>=1.5" ;;   # issue: a full training step (MLP SGD/Adam, CNN) 1.5x PyTorch's, at 1 and 2 threads
    models) echo "*>=1.2" ;;   # issue 10: ResNet-18 / MobileNetV3-Small eval and train step 1.2x PyTorch's, at 1 and 2 threads
    # issue 11: per padding level, activation and thread count, ctensor's fastest path 1.2x PyTorch's
    # fastest, and within 90 % of the GEMM-bound limit (gemm_bound time / fastest path time >= 0.9)
    transformer) echo "layer_*_{regular,fastpath,nested}>=1.2 layer_*_pad*_{regular,fastpath,nested}:gemm_bound_pad{2}>=0.9" ;;
    # issue 15: on a GPU, at least 0.9x PyTorch on every case, better on the allocator loop and small tensors
    cuda_ops) echo "*>=0.9 alloc_*>=1.0 small_*>=1.0" ;;
    # issue 12: the dynamic int8 Linear / MLP faster than PyTorch's best quantized engine; the
    # int8 Linear at batch 32 at least 2x ctensor's float32 Linear
    quant) echo "*_dyn_*>=1.0 convnet_static_*>=1.0 linear_dyn_1024_b32_t*:linear_f32_1024_b32_t{1}>=2 convnet_static_*:convnet_f32_{1}>=2" ;;
    # issue 12: int8 ResNet-18 / MobileNetV3-Small faster than PyTorch's best quantized engine and 2x ctensor's float model
    quant_models) echo "*_int8_1x3x224x224_t?>=1.0 resnet18_int8_*:resnet18_f32_{1}>=2 mobilenet_v3_small_int8_*:mobilenet_v3_small_f32_{1}>=2" ;;
    *) echo "" ;;
  esac
}

# prio CMD...: runs CMD at CT_BENCH_NICE (see above), or as it is
prio() {
  if [ -z "${CT_BENCH_NICE:-}" ]; then "$@"; return; fi
  if command -v setsid >/dev/null 2>&1 && [ -w /proc/self/autogroup ]; then
    setsid -w sh -c 'echo "$0" > /proc/$$/autogroup 2>/dev/null; exec nice -n "$0" "$@"' "$CT_BENCH_NICE" "$@"
  else
    nice -n "$CT_BENCH_NICE" "$@"
  fi
}

if [ $# -gt 0 ]; then names=$*; else
  names=$(for f in "$HERE"/*.c; do [ -f "$f" ] && basename "$f" .c; done)
fi

torch_ok=0
if command -v "$PY" >/dev/null 2>&1 && "$PY" -c "import torch" >/dev/null 2>&1; then
  torch_ok=1
  torch_version=$("$PY" -c "import torch; print(torch.__version__)" 2>/dev/null)
fi
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')
machine="$(nproc 2>/dev/null) cpus, ${cpu:-unknown cpu}"
echo "# machine: $machine; load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
if [ $torch_ok = 1 ]; then echo "# PyTorch $torch_version ($PY)"
else echo "# PyTorch not importable with $PY: twins skipped, ctensor numbers only"; fi
echo "# seconds per case: ${CT_BENCH_SECONDS:-0.5}, rounds: ${CT_BENCH_ROUNDS:-1}, clock: ${CT_BENCH_CLOCK:-wall}${CT_BENCH_NICE:+, nice: $CT_BENCH_NICE}${CT_BENCH_FILTER:+, filter: $CT_BENCH_FILTER}"
busy=$(awk -v n="$(nproc 2>/dev/null || echo 1)" '{ print ($1 > n / 2) ? 1 : 0 }' /proc/loadavg 2>/dev/null)
if [ "$busy" = 1 ]; then
  echo "# note: other work is running (load average $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cpus)"
  if [ -z "${CT_BENCH_NICE:-}" ]; then
    echo "#   wall-clock times will be noisy, multi-threaded ones most: consider CT_BENCH_NICE=-20"
    echo "#   (as root) or CT_BENCH_CLOCK=cpu"
  fi
fi

# CT_BENCH_BUSY=1: a spinning process pinned to the last CPU for the whole run
busy_pid=
if [ "${CT_BENCH_BUSY:-0}" = 1 ]; then
  CT_BENCH_NICE=
  last=$(( $(nproc 2>/dev/null || echo 1) - 1 ))
  if command -v taskset >/dev/null 2>&1; then taskset -c "$last" sh -c 'while :; do :; done' &
  else sh -c 'while :; do :; done' & fi
  busy_pid=$!
  trap 'kill $busy_pid 2>/dev/null' EXIT INT TERM
  echo "# a busy loop holds cpu $last during the run (CT_BENCH_BUSY=1)"
fi

rounds=${CT_BENCH_ROUNDS:-1}
case "$rounds" in ''|*[!0-9]*|0) rounds=1 ;; esac
status=0
for name in $names; do
  base=$name
  th=$(threads_of "$base")
  tg=$(targets_of "$base")
  set --
  for t in $tg; do set -- "$@" --target "$t"; done
  ran=0
  for exe in "$OUT/$name" "$OUT/${name}_builtin" "$OUT/${name}_fftw"; do
    [ -x "$exe" ] || continue
    ran=1
    load0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
    prog=$(basename "$exe")
    echo
    echo "== $prog"
    ct="$OUT/$prog.ct.tsv"; pt="$OUT/$base.torch.tsv"
    # the twin runs with NAME (the _builtin program is compared with the same one)
    twin=0
    if [ "$exe" = "$OUT/$name" ]; then
      rm -f "$pt"
      if [ $torch_ok = 1 ] && [ -f "$HERE/torch/$base.py" ]; then twin=1
      elif [ $torch_ok = 1 ]; then echo "(no twin bench/torch/$base.py)"; fi
    fi
    r=1; ctruns=""; ptruns=""; failed=0
    while [ $r -le $rounds ]; do
      [ $rounds -gt 1 ] && echo "(round $r of $rounds)"
      if ! prio env ${th:+CT_BENCH_THREADS=${CT_BENCH_THREADS:-$th}} ${th:+OPENBLAS_NUM_THREADS=$th} "$exe" > "$ct.$r"; then
        echo "$prog: FAILED (exit status $?); its output so far:"; cat "$ct.$r"; failed=1; break
      fi
      ctruns="$ctruns $ct.$r"
      if [ $twin = 1 ]; then
        if prio env ${th:+CT_BENCH_THREADS=${CT_BENCH_THREADS:-$th}} ${th:+OMP_NUM_THREADS=$th} "$PY" "$HERE/torch/$base.py" > "$pt.$r"; then
          ptruns="$ptruns $pt.$r"
        else
          echo "$base: the PyTorch twin failed (round $r)"; rm -f "$pt.$r"
        fi
      fi
      r=$((r + 1))
    done
    if [ $failed = 1 ]; then status=1; rm -f $ctruns; continue; fi
    "$PY" "$HERE/compare.py" --best $ctruns > "$ct" 2>/dev/null || python3 "$HERE/compare.py" --best $ctruns > "$ct"
    rm -f $ctruns
    if [ -n "$ptruns" ]; then
      "$PY" "$HERE/compare.py" --best $ptruns > "$pt"; rm -f $ptruns
    elif [ $twin = 1 ]; then echo "$base: ctensor numbers only"; fi
    grep -h '^# .*FAILED' "$ct"
    [ -f "$pt" ] || pt=-
    note="$(date -u '+%Y-%m-%d %H:%M UTC'); $machine; load average before/after: $load0 / $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)${CT_BENCH_NICE:+; run at nice $CT_BENCH_NICE}${busy_pid:+; beside a busy loop pinned to one cpu (CT_BENCH_BUSY=1)}"
    "$PY" "$HERE/compare.py" "$ct" "$pt" "$@" 2>/dev/null || python3 "$HERE/compare.py" "$ct" "$pt" "$@"
    { "$PY" "$HERE/compare.py" "$ct" "$pt" --markdown --title "$prog" --note "$note" "$@" 2>/dev/null \
        || python3 "$HERE/compare.py" "$ct" "$pt" --markdown --title "$prog" --note "$note" "$@"; } > "$OUT/$prog.md"
  done
  if [ $ran = 0 ]; then
    echo; echo "== $name: $OUT/$name is not built (make bench builds it)"; status=1
  fi
done
echo
echo "tables: $OUT/*.md"
exit $status
