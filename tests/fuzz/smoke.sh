#!/bin/sh
# Fuzz smoke test (part of make test): builds every tests/fuzz/<name>.c as a
# libFuzzer target (clang, ASan+UBSan) and runs it briefly and deterministically
# over tests/fuzz/corpus/<name>. Longer runs: make fuzz FUZZ_SECONDS=600.
# The targets share one implementation object (tests/fuzz/shared/impl.c).
# tests/fuzz/<name>.flags holds a target's extra compiler flags (idx: zlib).
# Each target's line gives libFuzzer's final statistics (runs, coverage, corpus).
# Last line: "N passed, N failed" (a target that builds and runs clean passes).
B=${BUILD:-build}/fuzz
CLANG=${CLANG:-clang}
RUNS=${FUZZ_RUNS:-20000}
FLAGS="-std=c11 -g -O0 -I. -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
mkdir -p "$B"
if ! command -v "$CLANG" >/dev/null 2>&1; then
  echo "skip: $CLANG is not installed"; echo "0 passed, 0 failed"; exit 0
fi
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' > "$B/probe.c"
if ! "$CLANG" -fsanitize=fuzzer,address,undefined "$B/probe.c" -o "$B/probe" >/dev/null 2>&1; then
  echo "skip: $CLANG cannot link -fsanitize=fuzzer (Debian: apt-get install libclang-rt-14-dev)"
  echo "0 passed, 0 failed"; exit 0
fi
pass=0; fail=0
# the implementation is compiled once (tests/fuzz/shared/impl.c) and linked by every
# target, which then compiles only its own code (CT_FUZZ_SHARED_IMPL)
if ! "$CLANG" $(echo "$FLAGS" | sed 's/-fsanitize=fuzzer,/-fsanitize=fuzzer-no-link,/') -c tests/fuzz/shared/impl.c \
     -o "$B/impl.o" > "$B/impl.build.log" 2>&1; then
  echo "FAIL tests/fuzz/shared/impl.c (build)"; tail -20 "$B/impl.build.log"; echo "0 passed, 1 failed"; exit 1
fi
for src in tests/fuzz/*.c; do
  name=$(basename "$src" .c)
  extra=""; [ -f "tests/fuzz/$name.flags" ] && extra=$(cat "tests/fuzz/$name.flags")
  if ! "$CLANG" $FLAGS -DCT_FUZZ_SHARED_IMPL "$src" "$B/impl.o" -o "$B/$name" -lm -lz $extra > "$B/$name.build.log" 2>&1; then
    fail=$((fail + 1)); echo "FAIL $name (build)"; tail -20 "$B/$name.build.log"; continue
  fi
  rm -rf "$B/smoke_$name"; mkdir -p "$B/smoke_$name"
  dict=""; [ -f "tests/fuzz/$name.dict" ] && dict="-dict=tests/fuzz/$name.dict"
  # new inputs go to the first (scratch) folder; the seed corpus is read only
  if ASAN_OPTIONS=detect_leaks=1 "$B/$name" -runs="$RUNS" -seed=1 -max_len=4096 -timeout=20 -rss_limit_mb=2048 \
       -print_final_stats=1 $dict "$B/smoke_$name" "tests/fuzz/corpus/$name" > "$B/$name.smoke.log" 2>&1; then
    pass=$((pass + 1))
    sh tests/fuzz/stats.sh "$name" "$B/$name.smoke.log" |
      awk -F '\t' '{ printf "ok   %s (%s runs in %ss, coverage %s, corpus %s inputs)\n", $1, $2, $3, $5, $7 }'
  else
    fail=$((fail + 1)); echo "FAIL $name"; tail -40 "$B/$name.smoke.log"
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
