#!/bin/sh
# Compile time of each header's implementation: gcc -O2 -c of a file that defines
# CTENSOR_IMPLEMENTATION and includes the headers up to that one; a header's time
# is the difference from the file without it (ctensor.h: its own file).
#   sh bench/compile_time.sh [extra flags]      (CC, BUILD from the environment)
# Prints "header  seconds (cpu)  file total"; CPU time (user + sys) of the compiler,
# so that other work on the machine changes it less than the wall time.
CC=${CC:-gcc}
D=${BUILD:-build}/compile_time
mkdir -p "$D"
prev=0; inc=""
for h in ctensor.h ctensor_nn.h ctensor_linalg.h ctensor_quant.h; do
  inc="$inc#include \"$h\"
"
  f=$D/$(basename $h .h).c
  printf '#define CTENSOR_IMPLEMENTATION\n%s' "$inc" > "$f"
  /usr/bin/time -o "$D/time.txt" -f '%U %S' $CC -std=c11 -O2 -I. "$@" -c "$f" -o "$D/x.o" || exit 1
  t=$(tail -1 "$D/time.txt" | awk '{ print $1 + $2 }')
  printf '%-18s %6.1f s   (file with it: %.1f s)\n' "$h" "$(echo "$t $prev" | awk '{ print $1 - $2 }')" "$t"
  prev=$t
done
