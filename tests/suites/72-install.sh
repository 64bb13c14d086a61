#!/usr/bin/env bash
# 72-install.sh — make install / make uninstall (pkg/install.mk) into a
# temporary DESTDIR, and programs built against what was installed.
#   install-run          make install DESTDIR=... PREFIX=/opt/chunkguard-test succeeds
#   install-files        exactly the expected files and symlinks, nothing else
#   install-symlinks     libchunkguard.so -> .so.0 -> .so.0.M.m, the real file
#   install-soname       readelf -d: SONAME libchunkguard.so.0, installed and in build/
#   install-pc           chunkguard.pc: the PREFIX in it (not DESTDIR), Libs.private
#   man-1-render         man -l renders chunkguard(1) without a warning
#   man-1-options        ... and names every option of src/base/options.def
#   man-3-render         man -l renders chunkguard(3) without a warning
#   man-3-exports        ... and names every symbol the installed .so exports
#   pc-shared            a program built with pkg-config --cflags --libs: NEEDED
#                        libchunkguard.so.0, run against the installed copy
#   pc-shared-report     ... its double free is reported by chunkguard
#   pc-static            -static with pkg-config --static: no libchunkguard.so needed
#   pc-static-debug      ... its double free reported in debug mode
#   pc-staticlib         libchunkguard.a (the pc's staticlib) with libc shared
#   preload-installed    LD_PRELOAD=<libdir>/libchunkguard.so into a plain program
#   command-help         (when tools/chunkguard exists) the installed command's
#                        --help names run, report, symbolize and each long
#                        option chunkguard(1)'s SYNOPSIS gives
#   uninstall            make uninstall leaves no file or symlink in DESTDIR
#   ldconfig-no-destdir  without DESTDIR, install and uninstall run LDCONFIG
#                        once each (and with DESTDIR, never)
#   install-space        a PREFIX with a space: the same files,
#                        nothing made elsewhere, pkg-config's flags build a
#                        program, the installed `chunkguard run` collects a
#                        report; uninstall removes the files and the
#                        directories it made, keeping one another file is in
set -u
R=$CG_ROOT; B=$CG_BUILD/install-test
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
say() { echo "   .. $*"; }

# Tools the test needs (Debian 12, as root, as tools/deps.sh does).
need=()
command -v man >/dev/null || need+=(man-db)
command -v pkg-config >/dev/null || need+=(pkgconf)
command -v readelf >/dev/null || need+=(binutils)
if [ ${#need[@]} -gt 0 ]; then
  say "installing ${need[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null 2>&1 ||
    { fail install-deps "apt-get install ${need[*]}"; exit 1; }
fi

rm -rf "$B"; mkdir -p "$B"
D=$B/destdir; P=/opt/chunkguard-test
root=$D$P; lib=$root/lib
trap 'rm -rf "$B"' EXIT
mk=(make -s --no-print-directory -C "$R" BUILD="$CG_BUILD" DESTDIR="$D" PREFIX="$P")

say "make install DESTDIR=$D PREFIX=$P"
if "${mk[@]}" install >"$B/install.log" 2>&1; then pass install-run
else fail install-run "$(tail -5 "$B/install.log")"; exit 1; fi

ver=$(make -s --no-print-directory -C "$R" -f - print-version <<'MK' 2>/dev/null
include Makefile
print-version: ; @echo $(CG_VERSION)
MK
)
[ -n "$ver" ] || { fail install-version "no CG_VERSION from the Makefile"; ver=unknown; }
want=$(printf '%s\n' "$P/include/chunkguard.h" "$P/lib/libchunkguard.a" "$P/lib/libchunkguard.so" \
       "$P/lib/libchunkguard.so.0" "$P/lib/libchunkguard.so.$ver" "$P/lib/pkgconfig/chunkguard.pc" \
       "$P/share/man/man1/chunkguard.1" "$P/share/man/man3/chunkguard.3")
if [ -e "$R/tools/chunkguard" ]; then want=$(printf '%s\n%s\n' "$want" "$P/bin/chunkguard")
else say "tools/chunkguard not in this tree: the command is not expected"; fi
want=$(sort <<<"$want")
got=$(cd "$D" && find . \( -type f -o -type l \) | sed 's|^\.||' | sort)
if [ "$got" = "$want" ]; then pass "install-files ($(wc -l <<<"$got") files)"
else fail install-files "$(diff <(echo "$want") <(echo "$got") | tr '\n' ' ')"; fi

if [ "$(readlink "$lib/libchunkguard.so")" = libchunkguard.so.0 ] &&
   [ "$(readlink "$lib/libchunkguard.so.0")" = "libchunkguard.so.$ver" ] &&
   [ -f "$lib/libchunkguard.so.$ver" ] && [ ! -L "$lib/libchunkguard.so.$ver" ] &&
   cmp -s "$lib/libchunkguard.so.$ver" "$CG_BUILD/libchunkguard.so"; then pass install-symlinks
else fail install-symlinks "$(ls -l "$lib" | tr '\n' ' ')"; fi

soname() { readelf -dW "$1" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p'; }
s1=$(soname "$lib/libchunkguard.so.$ver"); s2=$(soname "$CG_BUILD/libchunkguard.so")
if [ "$s1" = libchunkguard.so.0 ] && [ "$s2" = libchunkguard.so.0 ] &&
   [ "$(readlink "$CG_BUILD/libchunkguard.so.0")" = libchunkguard.so ]; then pass "install-soname ($s1)"
else fail install-soname "installed '$s1', build '$s2', build/libchunkguard.so.0 -> '$(readlink "$CG_BUILD/libchunkguard.so.0")'"; fi

pc=$lib/pkgconfig/chunkguard.pc
if grep -qx "prefix=$P" "$pc" && ! grep -q "$D" "$pc" && grep -q '^Libs.private: .*-pthread' "$pc" &&
   grep -qx "Version: $ver" "$pc"; then pass install-pc
else fail install-pc "$(grep -v '^#' "$pc" | tr '\n' ' ')"; fi

# The man pages, rendered as man(1) would show them; warnings are failures.
render() { MANWIDTH=100 man --warnings -l "$1" 2>"$2" | col -b; }
for n in 1 3; do
  page=$root/share/man/man$n/chunkguard.$n
  render "$page" "$B/man$n.err" >"$B/man$n.txt"
  if [ -s "$B/man$n.txt" ] && grep -q "^CHUNKGUARD($n)" "$B/man$n.txt" && [ ! -s "$B/man$n.err" ]; then
    pass "man-$n-render ($(wc -l <"$B/man$n.txt") lines)"
  else fail "man-$n-render" "$(head -c 300 "$B/man$n.err")"; fi
done
opts=$(sed -n 's/^CG_OPTION(\([a-z_0-9]*\),.*/\1/p' "$R/src/base/options.def")
# An entry's tag: the name at the start of an indented line of OPTIONS.
sed -n '/^OPTIONS/,/^EXIT STATUS/p' "$B/man1.txt" >"$B/man1.opts"
missing=$(for o in $opts; do grep -qE "^       $o( |\$)" "$B/man1.opts" || echo "$o"; done)
if [ -n "$opts" ] && [ -z "$missing" ]; then pass "man-1-options ($(wc -w <<<"$opts") options)"
else fail man-1-options "not in chunkguard(1)'s OPTIONS: $(echo $missing)"; fi
exports=$(nm -D --defined-only "$lib/libchunkguard.so.$ver" | awk '{print $3}' | sed 's/@.*//' | sort -u)
missing=$(for e in $exports; do grep -qw -- "$e" "$B/man3.txt" || echo "$e"; done)
if [ -n "$exports" ] && [ -z "$missing" ]; then pass "man-3-exports ($(wc -w <<<"$exports") symbols)"
else fail man-3-exports "not in chunkguard(3): $(echo $missing)"; fi

# Programs built against the installed tree.  PKG_CONFIG_SYSROOT_DIR is
# pkg-config's way to use a staged (DESTDIR) tree: -I and -L get $D in front.
export PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_LIBDIR=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D
cflags=$(pkg-config --cflags chunkguard); libs=$(pkg-config --libs chunkguard)
slibs=$(pkg-config --static --libs chunkguard)
say "pkg-config: cflags '$cflags' libs '$libs' static '$slibs'"
app=$R/tests/install/app.c
check_app() {  # name out rc
  if [ "$3" -eq 0 ] && [[ "$2" =~ ^chunkguard\ mallocs=[1-9][0-9]*\ frees=[1-9][0-9]*\ verify=0$ ]]; then return 0; fi
  return 1
}
check_df() {  # err rc
  [ "$2" -eq 134 ] && grep -q '^==[0-9]*==ERROR: chunkguard: double-free on address 0x' "$1"
}

# shellcheck disable=SC2086
if gcc -O1 -Wall -o "$B/app-shared" "$app" $cflags $libs 2>"$B/cc.err"; then
  needed=$(readelf -dW "$B/app-shared" | sed -n 's/.*(NEEDED).*\[\(libchunkguard[^]]*\)\].*/\1/p')
  resolved=$(LD_LIBRARY_PATH=$lib ldd "$B/app-shared" | awk '$1=="libchunkguard.so.0"{print $3}')
  out=$(LD_LIBRARY_PATH=$lib "$B/app-shared" 2>&1); rc=$?
  if [ "$needed" = libchunkguard.so.0 ] && [ "$resolved" = "$lib/libchunkguard.so.0" ] && check_app x "$out" $rc
  then pass pc-shared
  else fail pc-shared "NEEDED '$needed', resolved to '$resolved', rc=$rc out='$out'"; fi
  LD_LIBRARY_PATH=$lib "$B/app-shared" double >/dev/null 2>"$B/df.err"; rc=$?
  if check_df "$B/df.err" $rc; then pass pc-shared-report
  else fail pc-shared-report "rc=$rc err=$(head -c 300 "$B/df.err")"; fi
else fail pc-shared "gcc $cflags $libs: $(head -c 300 "$B/cc.err")"; fail pc-shared-report "not built"; fi

# -static: every library static, chunkguard's from libchunkguard.a (the .so
# beside it cannot be used), with Libs.private's flags.
# shellcheck disable=SC2086
if gcc -static -O1 -Wall -o "$B/app-static" "$app" $cflags $slibs 2>"$B/cc.err"; then
  dyn=$(readelf -dW "$B/app-static" 2>/dev/null | grep -c NEEDED)
  out=$("$B/app-static" 2>&1); rc=$?
  if [ "$dyn" -eq 0 ] && check_app x "$out" $rc; then pass pc-static
  else fail pc-static "NEEDED entries: $dyn; rc=$rc out='$out'"; fi
  CHUNKGUARD_OPTIONS=mode=debug timeout 20 "$B/app-static" double >/dev/null 2>"$B/df.err"; rc=$?
  if check_df "$B/df.err" $rc; then pass pc-static-debug
  else fail pc-static-debug "rc=$rc err=$(head -c 400 "$B/df.err")"; fi
else fail pc-static "gcc -static $cflags $slibs: $(head -c 300 "$B/cc.err")"; fail pc-static-debug "not built"; fi

# libc shared, chunkguard linked in from the archive the pc names.
a=$D$(pkg-config --variable=staticlib chunkguard | sed "s|^$D||")
# shellcheck disable=SC2086
if [ -f "$a" ] && gcc -O1 -Wall -o "$B/app-a" "$app" $cflags "$a" -pthread -ldl 2>"$B/cc.err"; then
  needed=$(readelf -dW "$B/app-a" | grep -c 'NEEDED.*libchunkguard')
  out=$("$B/app-a" 2>&1); rc=$?
  CHUNKGUARD_OPTIONS=mode=debug "$B/app-a" double >/dev/null 2>"$B/df.err"; rc2=$?
  if [ "$needed" -eq 0 ] && check_app x "$out" $rc && check_df "$B/df.err" $rc2 &&
     grep -q 'freed by thread' "$B/df.err"; then pass pc-staticlib
  else fail pc-staticlib "NEEDED libchunkguard: $needed; rc=$rc out='$out'; debug rc=$rc2 $(head -c 300 "$B/df.err")"; fi
else fail pc-staticlib "staticlib '$a': $(head -c 300 "$B/cc.err")"; fi
unset PKG_CONFIG_PATH PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR

# The installed library preloaded into a program built without it.
gcc -O0 -fno-builtin -o "$B/plain" "$R/tests/install/plain.c"
out=$(LD_PRELOAD=$lib/libchunkguard.so CHUNKGUARD_OPTIONS=verbosity=1 "$B/plain" 2>"$B/pre.err"); rc=$?
LD_PRELOAD=$lib/libchunkguard.so "$B/plain" double >/dev/null 2>"$B/df.err"; rc2=$?
if [ $rc -eq 0 ] && [ "$out" = ok ] && grep -q chunkguard "$B/pre.err" && check_df "$B/df.err" $rc2 &&
   grep -q "libchunkguard.so.$ver" <(LD_PRELOAD=$lib/libchunkguard.so cat /proc/self/maps); then
  pass preload-installed
else fail preload-installed "rc=$rc out='$out' err=$(head -c 200 "$B/pre.err"); double rc=$rc2"; fi

# The command, as installed: its usage agrees with its man page.
if [ -e "$R/tools/chunkguard" ]; then
  help=$("$root/bin/chunkguard" --help 2>&1; "$root/bin/chunkguard" run --help 2>&1)
  longs=$(sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' "$B/man1.txt" | grep -o -- '--[a-z][a-z-]*' | sort -u)
  missing=$(for w in run report symbolize $longs; do grep -q -- "$w" <<<"$help" || echo "$w"; done)
  if [ -n "$longs" ] && [ -z "$missing" ]; then pass command-help
  else fail command-help "chunkguard(1) names what --help does not: $(echo $missing)"; fi
else say "command-help skipped: no tools/chunkguard"; fi

say "make uninstall DESTDIR=$D PREFIX=$P"
if "${mk[@]}" uninstall >"$B/uninstall.log" 2>&1; then
  left=$(cd "$D" && find . \( -type f -o -type l \) | sed 's|^\.||')
  if [ -z "$left" ]; then pass uninstall
  else fail uninstall "left behind: $(echo $left)"; fi
else fail uninstall "$(tail -5 "$B/uninstall.log")"; fi

# Straight into a prefix (no DESTDIR): the loader's cache is refreshed by
# LDCONFIG, here a stand-in that records its calls.  The DESTDIR runs above
# and a DESTDIR install must not call it.
rec=$B/ldconfig-calls; printf '#!/bin/sh\necho called >>%s\n' "$rec" >"$B/ldconfig"; chmod +x "$B/ldconfig"
mk2=(make -s --no-print-directory -C "$R" BUILD="$CG_BUILD" PREFIX="$B/prefix" LDCONFIG="$B/ldconfig")
"${mk2[@]}" install >"$B/install2.log" 2>&1; rc=$?
n1=$(wc -l <"$rec" 2>/dev/null || echo 0)
"${mk2[@]}" uninstall >>"$B/install2.log" 2>&1; rc2=$?
n2=$(wc -l <"$rec" 2>/dev/null || echo 0)
"${mk2[@]}" DESTDIR="$B/stage2" install >>"$B/install2.log" 2>&1; rc3=$?
n3=$(wc -l <"$rec" 2>/dev/null || echo 0)
left=$(find "$B/prefix" \( -type f -o -type l \) 2>/dev/null)
if [ $rc -eq 0 ] && [ $rc2 -eq 0 ] && [ $rc3 -eq 0 ] && [ "$n1" -eq 1 ] && [ "$n2" -eq 2 ] &&
   [ "$n3" -eq 2 ] && [ -z "$left" ]; then pass ldconfig-no-destdir
else fail ldconfig-no-destdir "rc $rc/$rc2/$rc3, calls after install $n1, uninstall $n2, DESTDIR install $n3; left: $(echo $left)"; fi

# A PREFIX with a space in it: every path quoted.
SD="$B/stage3"; SP="/opt/pre fix"; sroot=$SD$SP
mk3=(make -s --no-print-directory -C "$R" BUILD="$CG_BUILD" DESTDIR="$SD" PREFIX="$SP" LDCONFIG=:)
bad=""
before=$(cd "$R" && ls -a | sort)
"${mk3[@]}" install >"$B/install3.log" 2>&1 || bad="$bad install failed: $(tail -3 "$B/install3.log" | tr '\n' ' ');"
[ "$(cd "$R" && ls -a | sort)" = "$before" ] || bad="$bad install made $(comm -13 <(echo "$before") <(cd "$R" && ls -a | sort) | tr '\n' ' ') in the tree;"
[ -e "$SD/opt/pre" ] && bad="$bad install made $SD/opt/pre;"
got3=$(cd "$SD" && find . \( -type f -o -type l \) | sed 's|^\.||' | sort)
[ "$got3" = "$(sed "s|^$P|$SP|" <<<"$want")" ] || bad="$bad files: $(diff <(sed "s|^$P|$SP|" <<<"$want") <(echo "$got3") | tr '\n' ' ');"
if [ -z "$bad" ]; then
  export PKG_CONFIG_PATH="$sroot/lib/pkgconfig" PKG_CONFIG_LIBDIR="$sroot/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$SD"
  # pkg-config's output is shell words (its spaces escaped): eval splits them
  eval "sflags=($(pkg-config --cflags --libs chunkguard))"
  unset PKG_CONFIG_PATH PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR
  if gcc -O1 -o "$B/app-space" "$app" "${sflags[@]}" 2>"$B/cc3.err"; then
    out=$(LD_LIBRARY_PATH="$sroot/lib" "$B/app-space" 2>&1); rc=$?
    check_app x "$out" $rc || bad="$bad the program built against it: rc=$rc '$out';"
  else bad="$bad gcc ${sflags[*]}: $(head -c 200 "$B/cc3.err");"; fi
fi
# the installed command preloads the library from the spaced prefix (ld.so
# splits LD_PRELOAD at blanks: a link without one) and collects the report
if [ -z "$bad" ]; then
  printf '#include <stdlib.h>\nint main(void) { char *volatile p = malloc(8); free(p); free(p); return 0; }\n' >"$B/df.c"
  gcc -O0 -fno-builtin -o "$B/df" "$B/df.c" 2>/dev/null || bad="$bad cannot build df;"
  out=$("$sroot/bin/chunkguard" run --report-dir "$B/rd-space" -- "$B/df" 2>&1); rc=$?
  [ $rc -eq 23 ] && ls "$B/rd-space"/*.json >/dev/null 2>&1 ||
    bad="$bad the installed run collected no report: rc=$rc $(tail -2 <<<"$out" | tr '\n' ' ');"
fi
echo keep >"$sroot/lib/other-package.so"
"${mk3[@]}" uninstall >>"$B/install3.log" 2>&1 || bad="$bad uninstall failed;"
left=$(cd "$SD" && find . -mindepth 1 | sed 's|^\.||' | sort)
wantleft=$(printf '%s\n' /opt "$SP" "$SP/lib" "$SP/lib/other-package.so")
[ "$left" = "$wantleft" ] || bad="$bad after uninstall: $(echo $left) (want $(echo $wantleft));"
[ -z "$bad" ] && pass install-space || fail install-space "$bad"
