#!/bin/sh
# The README's complete programs (```c blocks with a main) must build and run as
# C11 (gcc, clang) and C++17, and compile under nvcc, as the README promises.
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
for f in "$B"/example*.c; do
  [ -f "$f" ] || { echo "FAIL no complete example found in README.md"; fail=$((fail + 1)); break; }
  n=$(basename "$f" .c)
  for kind in gcc clang cxx nvcc; do
    case $kind in
      gcc)   cmd="$CC -std=c11 $W $f -o $B/$n.gcc $LIBS && $B/$n.gcc" ;;
      clang) command -v "$CLANG" >/dev/null 2>&1 || continue; cmd="$CLANG -std=c11 $W $f -o $B/$n.clang $LIBS && $B/$n.clang" ;;
      cxx)   cmd="$CXX -x c++ -std=c++17 -Wall -Wextra -Werror -I. $f -o $B/$n.cxx $LIBS && $B/$n.cxx" ;;
      nvcc)  NVCC=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null); [ -n "$NVCC" ] || continue
             cp "$f" "$B/$n.cu"; cmd="$NVCC -I. -Werror all-warnings -c $B/$n.cu -o $B/$n.o" ;;
    esac
    if out=$(sh -c "$cmd" 2>&1); then pass=$((pass + 1)); echo "ok   README $n ($kind)"
    else fail=$((fail + 1)); echo "FAIL README $n ($kind)"; printf '%s\n' "$out" | head -15; fi
  done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
