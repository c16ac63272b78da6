#!/bin/sh
# Runs every benchmark and its PyTorch twin on this machine, side by side.
# Results: build/bench/<name>.ct.tsv, build/bench/<name>.torch.tsv, and a table.
B=${BUILD:-build}
PY=/usr/bin/python3
for exe in $B/bench/*; do
  [ -x "$exe" ] || continue
  case "$exe" in *.tsv|*.md) continue;; esac
  name=$(basename "$exe")
  echo "== $name"
  "$exe" > $B/bench/$name.ct.tsv || exit 1
  base=${name%_builtin}
  if [ -f bench/torch/$base.py ] && $PY -c "import torch" 2>/dev/null; then
    $PY bench/torch/$base.py > $B/bench/$name.torch.tsv || exit 1
    $PY ../shared/tools/compare_bench.py $B/bench/$name.ct.tsv $B/bench/$name.torch.tsv 2>/dev/null \
      || python3 tools/compare_bench.py $B/bench/$name.ct.tsv $B/bench/$name.torch.tsv
  else
    cat $B/bench/$name.ct.tsv
  fi
done
