#!/bin/sh
# The README's complete programs (```c blocks with a main) must build and run as
# C11 (gcc, clang) and C++17, and compile under nvcc, as the README promises.
# gcc builds each one exactly as written (the implementation in the example's own
# file). clang and g++ compile the example's code (its CTENSOR_IMPLEMENTATION line
# dropped) and link it to one implementation object per compiler holding every
# header; nvcc compiles that code too. The implementation itself under clang, g++
# and nvcc with these warnings is tests/compile/run.sh's job (user.c includes every
# header), so it is not compiled again here for every example.
B=${BUILD:-build}/compile/readme
mkdir -p "$B"
CC=${CC:-gcc}; CXX=${CXX:-g++}; CLANG=${CLANG:-clang}
W="-Wall -Wextra -pedantic -Werror -I."
LIBS="-llapacke -lopenblas -lm"
awk -v dir="$B" '
  /^```c$/ { inb = 1; n++; body = ""; next }
  /^```/ && inb { inb = 0; if (body ~ /int main/) { f = dir "/example" n ".c"; printf "%s", body > f; close(f) } next }
  inb { body = body $0 "\n" }
' README.md
pass=0; fail=0
# the implementation objects for clang and g++ (every header, so any example links)
printf '#define CTENSOR_IMPLEMENTATION\n#include "ctensor.h"\n#include "ctensor_linalg.h"\n#include "ctensor_nn.h"\n#include "ctensor_quant.h"\n#include "ctensor_named.h"\n#include "ctensor_jit.h"\n#include "ctensor_dist.h"\n#include "ctensor_special.h"\n#include "ctensor_fft.h"\n#include "ctensor_composite.h"\n' > "$B/impl.c"
impl_clang=""; impl_cxx=""
if command -v "$CLANG" >/dev/null 2>&1; then
  if out=$($CLANG -std=c11 $W -c "$B/impl.c" -o "$B/impl_clang.o" 2>&1); then impl_clang=$B/impl_clang.o
  else fail=$((fail + 1)); echo "FAIL README implementation object (clang)"; printf '%s\n' "$out" | head -15; fi
fi
if out=$($CXX -x c++ -std=c++17 -Wall -Wextra -Werror -I. -c "$B/impl.c" -o "$B/impl_cxx.o" 2>&1); then impl_cxx=$B/impl_cxx.o
else fail=$((fail + 1)); echo "FAIL README implementation object (g++)"; printf '%s\n' "$out" | head -15; fi
for f in "$B"/example*.c; do
  [ -f "$f" ] || { echo "FAIL no complete example found in README.md"; fail=$((fail + 1)); break; }
  n=$(basename "$f" .c)
  grep -q '^#define CTENSOR_IMPLEMENTATION' "$f" || { fail=$((fail + 1)); echo "FAIL README $n: no CTENSOR_IMPLEMENTATION line"; continue; }
  sed '/^#define CTENSOR_IMPLEMENTATION/d' "$f" > "$B/${n}_code.c"; u=$B/${n}_code.c
  for kind in gcc clang cxx nvcc; do
    case $kind in
      gcc)   cmd="$CC -std=c11 $W $f -o $B/$n.gcc $LIBS && $B/$n.gcc" ;;
      clang) [ -n "$impl_clang" ] || continue; cmd="$CLANG -std=c11 $W $u $impl_clang -o $B/$n.clang $LIBS && $B/$n.clang" ;;
      cxx)   [ -n "$impl_cxx" ] || continue; cmd="$CXX -x c++ -std=c++17 -Wall -Wextra -Werror -I. $u -x none $impl_cxx -o $B/$n.cxx $LIBS && $B/$n.cxx" ;;
      nvcc)  NVCC=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null); [ -n "$NVCC" ] || continue
             cp "$u" "$B/$n.cu"; cmd="$NVCC -I. -Werror all-warnings -c $B/$n.cu -o $B/$n.o" ;;
    esac
    if out=$(sh -c "$cmd" 2>&1); then pass=$((pass + 1)); echo "ok   README $n ($kind)"
    else fail=$((fail + 1)); echo "FAIL README $n ($kind)"; printf '%s\n' "$out" | head -15; fi
  done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
