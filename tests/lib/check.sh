#!/bin/sh
# The library build (make lib / make install), as a user meets it: installs into a
# staging DESTDIR under $BUILD/lib/stage, builds tests/lib/app.c with the flags
# pkg-config gives for the staged ctensor.pc (PKG_CONFIG_SYSROOT_DIR points them into
# the staging tree), runs it against libctensor.so and against libctensor.a, and checks
# that libctensor.so exports only the public API: every dynamic symbol starts with
# ct_, and the ct__ ones are the macro helpers the headers declare with CTENSOR_API
# (CT_SCOPE's cleanup, the grad-mode blocks), and that no stack frame of the library
# is over 16 KB (its -fstack-usage file). Ends with "N passed, N failed".
B=${BUILD:-build}
CC=${CC:-gcc}
MAKE=${MAKE:-make}
S=$(pwd)/$B/lib/stage
pass=0; fail=0
ok()   { pass=$((pass + 1)); echo "ok   $1"; }
bad()  { fail=$((fail + 1)); echo "FAIL $1"; [ -n "$2" ] && printf '%s\n' "$2" | head -20; }
rm -rf "$S"
if out=$($MAKE --no-print-directory install BUILD="$B" PREFIX=/usr/local DESTDIR="$S" 2>&1); then ok "make install DESTDIR=$S"
else bad "make install" "$out"; echo "$pass passed, $fail failed"; exit 1; fi
for f in include/ctensor.h include/ctensor_nn.h include/ctensor_quant.h lib/libctensor.so lib/libctensor.so.0 lib/libctensor.a lib/pkgconfig/ctensor.pc; do
  [ -e "$S/usr/local/$f" ] || bad "installed $f"
done
# no stack frame over 16 KB (make lib compiles with -fstack-usage: ctensor.su)
SU="$B/lib/ctensor.su"
if [ -f "$SU" ]; then
  big=$(awk -F'\t' '$2 + 0 > 16384 { print "  " $1 ": " $2 " bytes" }' "$SU")
  max=$(awk -F'\t' '$2 + 0 > m { m = $2 + 0; f = $1 } END { print m " bytes (" f ")" }' "$SU")
  [ -z "$big" ] && ok "stack frames at most 16 KB (largest $max)" || bad "stack frames over 16 KB" "$big"
else bad "no $SU (make lib compiles with -fstack-usage)"; fi
export PKG_CONFIG_PATH="$S/usr/local/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$S"
want="0 4 40 48 2"
cflags=$(pkg-config --cflags ctensor) && libs=$(pkg-config --libs ctensor) || bad "pkg-config ctensor"
case "$cflags $libs" in *"$S/usr/local/include"*"-L$S/usr/local/lib"*"-lctensor"*) ok "pkg-config: $cflags $libs" ;; *) bad "pkg-config flags: $cflags $libs" ;; esac
if out=$($CC -std=c11 -Wall -Wextra -pedantic -Werror tests/lib/app.c $cflags $libs -o "$B/lib/app_shared" 2>&1) &&
   got=$(LD_LIBRARY_PATH="$S/usr/local/lib" "$B/lib/app_shared" 2>&1) && [ "$got" = "$want" ]; then ok "app on libctensor.so: $got"
else bad "app on libctensor.so (want $want)" "$out$got"; fi
LD_LIBRARY_PATH="$S/usr/local/lib" ldd "$B/lib/app_shared" 2>/dev/null | grep -q "libctensor.so.0 => $S" && ok "app loads libctensor.so.0 (soname)" || bad "app does not load libctensor.so.0"
slibs=$(pkg-config --static --libs-only-other --libs-only-L ctensor; pkg-config --static --libs-only-l ctensor | sed 's/-lctensor//')
if out=$($CC -std=c11 -Wall -Wextra -pedantic -Werror tests/lib/app.c $cflags "$S/usr/local/lib/libctensor.a" $slibs -o "$B/lib/app_static" 2>&1) &&
   got=$("$B/lib/app_static" 2>&1) && [ "$got" = "$want" ]; then ok "app on libctensor.a: $got"
else bad "app on libctensor.a (want $want)" "$out$got"; fi
# exports
syms=$(nm -D --defined-only "$S/usr/local/lib/libctensor.so" | awk '{print $NF}' | grep -vE '^(_init|_fini|_edata|_end|__bss_start)$' | sort)
n=$(printf '%s\n' "$syms" | grep -c .)
other=$(printf '%s\n' "$syms" | grep -v '^ct_')
[ -z "$other" ] && ok "$n exported symbols, all ct_" || bad "exported symbols outside ct_" "$other"
allowed=$(grep -ho 'CTENSOR_API [^(;=]*\bct__[a-z0-9_]*\s*(' ctensor*.h | sed -E 's/.*\b(ct__[a-z0-9_]*)\s*\(/\1/' | sort -u)
internal=$(printf '%s\n' "$syms" | grep '^ct__' | while read -r s; do printf '%s\n' "$allowed" | grep -qx "$s" || echo "$s"; done)
[ -z "$internal" ] && ok "no ct__ internals exported (only the macro helpers: $(printf '%s\n' "$syms" | grep -c '^ct__'))" || bad "ct__ internals exported" "$internal"
for s in ct_add ct_from_dlpack ct_nn_linear ct_abi_max_dims_8; do
  printf '%s\n' "$syms" | grep -qx "$s" || bad "$s is not exported"
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
