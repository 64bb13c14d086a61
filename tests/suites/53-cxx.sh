#!/usr/bin/env bash
# 53-cxx.sh — C++ programs: chunkguard's operator new and delete (every
# form libstdc++ exports; entry/interpose.c), their failure protocol
# (entry/cxx.c), the family checks of debug mode, and that none of it
# brings the C++ runtime into a C program.  Programs in tests/cxx/, built
# with g++ (gcc for the C ones), run preloaded (LD_PRELOAD=$CG_SO) and
# linked with libchunkguard.a ("static" in a test's name):
#   cxx-so-needs-no-cxx-runtime  readelf -d: libchunkguard.so needs neither
#                          libstdc++ nor libgcc_s; its references to the
#                          runtime (std::get_new_handler, the throw) are weak
#   cxx-so-exports-<n>     nm -D: it defines all 20 operator new/delete forms
#   cxx-c-program-*        a C program (plain.c) has neither library mapped
#   cxx-forms-*            every form used correctly (forms.cc), in each
#                          mode: no report, and chunkguard serves
#                          operator new, not libstdc++ (dladdr)
#   cxx-static-exports-new the static program exports chunkguard's forms, so
#                          libstdc++'s own calls of them reach chunkguard
#   cxx-handler-*          the new_handler loop, std::bad_alloc and the
#                          nothrow forms (handler.cc), each mode, both links
#   cxx-c-calls-new-*      a C program calling operator new by its mangled
#                          name, with no runtime to throw: the line, abort
#   cxx-mismatch-*         alloc_dealloc_mismatch=0 silences the family check
#                          (mismatch.cc); by default, and in guard mode, the
#                          first mismatch is reported; fast mode has no
#                          family check
#   cxx-typemismatch-*     new_delete_type_mismatch=0 silences the sized and
#                          aligned delete checks (typemismatch.cc), each mode
#   cxx-replaced-<what>-*  a program that replaces only some forms
#                          (replace.cc: the scalar ones, delete, the array
#                          ones, the aligned ones; "all": every one, none
#                          of ours is reached), both links, fast and
#                          debug mode: the others behave as libstdc++'s
#                          defaults (array -> scalar, nothrow -> throwing,
#                          sized -> unsized, through its replacements), and
#                          no false alloc-dealloc-mismatch
#   cxx-cookie-*          delete[] of one object plain new made, with a
#                          destructor (cookie.cc, -O0 and -O2), debug and
#                          guard mode, under a timeout: the cookie word
#                          reads 0 (no destructor runs, no hang) and the
#                          release is an alloc-dealloc-mismatch
#   cxx-frames-demangled   a program's own operator new/delete frames are
#                          named demangled in a report (ownnew.cc)
#   cxx-names-*            a namespaced member of a class template and a
#                          function template (nsdemangle.cc): demangled in
#                          the text, the JSON "function", the HASH line and
#                          the command's summary, SARIF, JUnit and HTML,
#                          with and without the
#                          symbolizer; the JSON "symbol" and the hash are
#                          the mangled name's, the same in both runs; a
#                          suppression matches either spelling
#   cxx-program-<name>     real C++ programs (apt-cache, gdb, cmake, when
#                          installed) in debug mode: the same output as
#                          without chunkguard, and no report
set -u
R=$CG_ROOT; B=$CG_BUILD/cxx; SO=$CG_SO; A=$CG_BUILD/libchunkguard.a
mkdir -p "$B"
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
make -s -C "$R" BUILD="$CG_BUILD" lib >/dev/null || { fail cxx-build "make lib"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

CXXFLAGS="-std=gnu++17 -O1 -g -fno-omit-frame-pointer -Wall -Wno-mismatched-new-delete"
build() {   # build OUT SRC [LIBS...]: g++ or gcc by SRC's suffix
  local out=$1 src=$2; shift 2
  case "$src" in
    *.cc) g++ $CXXFLAGS -o "$B/$out" "$R/tests/cxx/$src" "$@" -pthread -ldl ;;
    *.c) gcc -std=gnu11 -O1 -g -Wall -o "$B/$out" "$R/tests/cxx/$src" "$@" -pthread ;;
  esac 2>"$tmp/build.err" || { fail "cxx-build-$out" "$(head -c 400 "$tmp/build.err")"; return 1; }
}
ok=1
build forms forms.cc && build forms-static forms.cc "$A" && build handler handler.cc &&
  build handler-static handler.cc "$A" && build mismatch mismatch.cc && build ownnew ownnew.cc && build nsdemangle nsdemangle.cc && build typemismatch typemismatch.cc &&
  build plain plain.c && build cookie-O2 cookie.cc -O2 && build cookie-O0 cookie.cc -O0 && build plain-static plain.c "$A" && build cnew cnew.c || ok=0
[ $ok = 1 ] || exit 1

# run NAME OPTIONS BIN ARGS...: BIN under chunkguard with CHUNKGUARD_OPTIONS;
# a *-static binary has it linked in, any other gets LD_PRELOAD.  Sets out,
# err, rc.
run() {
  local opts=$1 bin=$2; shift 2
  local pre=$SO
  case "$bin" in *-static) pre= ;; esac
  out=$(timeout "${RUN_TIMEOUT:-120}" env CHUNKGUARD_OPTIONS="$opts" ${pre:+LD_PRELOAD=$pre} "$B/$bin" "$@" \
        2>"$tmp/err"); rc=$?
  err=$(cat "$tmp/err")
}
# clean NAME [BIN]: status 0, "ok" last, nothing on stderr; with BIN, a
# C++ program's "new_object=" line names chunkguard (BIN itself when it
# links libchunkguard.a), not libstdc++.
clean() {
  local want= got
  if [ -n "${2:-}" ]; then
    want=$(realpath "$SO"); case "$2" in *-static) want=$(realpath "$B/$2") ;; esac
    got=$(sed -n 's/^new_object=//p' <<<"$out")
    if [ -z "$got" ] || [ "$(realpath "$got")" != "$want" ]; then
      fail "$1" "operator new is ${got:-nobody}'s, not $want's"; return
    fi
  fi
  if [ "$rc" = 0 ] && [ "$(tail -n 1 <<<"$out")" = ok ] && [ -z "$err" ]; then pass "$1"
  else fail "$1" "rc=$rc out=$(tail -n 3 <<<"$out" | tr '\n' '|') err=$(head -c 500 <<<"$err")"; fi
}

needed=$(readelf -d "$SO" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
strong=$(nm -D --undefined-only "$SO" | awk '$1 == "U" && $2 ~ /^_Z/ { print $2 }' | tr '\n' ' ')
if ! grep -Eq 'libstdc\+\+|libgcc_s' <<<"$needed" && [ -z "$strong" ]; then
  pass cxx-so-needs-no-cxx-runtime
else
  fail cxx-so-needs-no-cxx-runtime "NEEDED: $needed; strong C++ references: $strong"
fi
forms="_Znwm _Znam _ZnwmRKSt9nothrow_t _ZnamRKSt9nothrow_t _ZnwmSt11align_val_t
  _ZnamSt11align_val_t _ZnwmSt11align_val_tRKSt9nothrow_t _ZnamSt11align_val_tRKSt9nothrow_t
  _ZdlPv _ZdaPv _ZdlPvm _ZdaPvm _ZdlPvRKSt9nothrow_t _ZdaPvRKSt9nothrow_t _ZdlPvSt11align_val_t
  _ZdaPvSt11align_val_t _ZdlPvmSt11align_val_t _ZdaPvmSt11align_val_t
  _ZdlPvSt11align_val_tRKSt9nothrow_t _ZdaPvSt11align_val_tRKSt9nothrow_t"
missing=
defined=$(nm -D --defined-only "$SO" | awk '{ print $3 }')
for f in $forms; do grep -qxF "$f" <<<"$defined" || missing="$missing $f"; done
if [ -z "$missing" ]; then pass cxx-so-exports-20-forms
else fail cxx-so-exports-20-forms "missing:$missing"; fi

for bin in plain plain-static; do
  for mode in fast debug; do
    run "mode=$mode" $bin; clean "cxx-c-program-no-cxx-runtime-$bin-$mode"
  done
done
# the control: the same program does see libstdc++ when it is loaded
out=$(LD_PRELOAD=$(g++ -print-file-name=libstdc++.so.6) "$B/plain" 2>&1); rc=$?
if [ "$rc" = 1 ] && grep -q '^cxx-runtime-loaded .*libstdc++' <<<"$out"; then
  pass cxx-c-program-sees-a-loaded-runtime
else fail cxx-c-program-sees-a-loaded-runtime "rc=$rc out=$(head -c 300 <<<"$out")"; fi

for bin in forms forms-static; do
  for mode in fast debug guard; do
    run "mode=$mode" $bin; clean "cxx-forms-$bin-$mode" $bin
  done
done
run "mode=debug:guard_sample=1" forms; clean cxx-forms-debug-every-block-sampled forms
run "guard_sample=2" forms; clean cxx-forms-fast-sampled forms
exports=$(nm -D --defined-only "$B/forms-static" | awk '{ print $3 }')
if grep -qxF _Znwm <<<"$exports" && grep -qxF _ZdlPv <<<"$exports"; then
  pass cxx-static-exports-new
else
  fail cxx-static-exports-new "the program linked with libchunkguard.a does not export _Znwm/_ZdlPv"
fi

for bin in handler handler-static; do
  for mode in fast debug; do
    for t in none count throws; do
      run "mode=$mode" $bin $t; clean "cxx-handler-$t-$bin-$mode" $bin
    done
  done
  run "mode=fast" $bin retry; clean "cxx-handler-retry-$bin-fast" $bin
done

run "mode=fast" cnew
if [ "$rc" = 134 ] && grep -q 'operator new() of 4611686018427387904 bytes failed and no C++ runtime is loaded to throw std::bad_alloc: aborting' <<<"$err"; then
  pass cxx-c-calls-new-no-runtime
else fail cxx-c-calls-new-no-runtime "rc=$rc err=$(head -c 400 <<<"$err")"; fi

run "mode=debug:alloc_dealloc_mismatch=0" mismatch; clean cxx-mismatch-option-off
run "mode=guard:alloc_dealloc_mismatch=0" mismatch; clean cxx-mismatch-option-off-guard
run "mode=fast" mismatch; clean cxx-mismatch-fast-has-no-family-check
# new_delete_type_mismatch=0 silences the size and alignment checks of
# sized and aligned delete in every mode (typemismatch.cc); fast mode's
# check of the size class runs on the inline path's slow branch only
for mode in fast debug guard; do
  run "mode=$mode:new_delete_type_mismatch=0" typemismatch; clean "cxx-typemismatch-option-off-$mode"
  run "mode=$mode" typemismatch
  if [ "$rc" = 134 ] && grep -q 'ERROR: chunkguard: new-delete-type-mismatch on address' <<<"$err"; then
    pass "cxx-typemismatch-reported-$mode"
  else fail "cxx-typemismatch-reported-$mode" "rc=$rc err=$(head -c 500 <<<"$err")"; fi
done
for mode in debug guard; do
  run "mode=$mode" mismatch
  first=$(head -n 1 <<<"$err")
  if [ "$rc" = 134 ] &&
     [[ "$first" =~ ^==[0-9]+==ERROR:\ chunkguard:\ alloc-dealloc-mismatch\ on\ address\ 0x[0-9a-f]+\ \[thread\ T0\]$ ]] &&
     grep -qF 'operator delete(): the block is released by another family of functions than the one that allocated it: the block came from malloc(); operator delete() releases only what operator new() allocates' <<<"$err" &&
     grep -q 'from malloc()' <<<"$err" && grep -q 'in main ' <<<"$err" &&
     grep -q '^SUMMARY: chunkguard: alloc-dealloc-mismatch in operator delete()' <<<"$err"; then
    pass "cxx-mismatch-reported-$mode"
  else fail "cxx-mismatch-reported-$mode" "rc=$rc err=$(head -c 700 <<<"$err")"; fi
done

# A program replacing some forms: the others as libstdc++'s defaults.
for what in SCALAR DELETE ARRAY ALIGNED ALL; do
  w=$(tr A-Z a-z <<<"$what")
  build replace-$w replace.cc -DREPLACE_$what && build replace-$w-static replace.cc "$A" -DREPLACE_$what ||
    continue
  for bin in replace-$w replace-$w-static; do
    for mode in fast debug; do
      run "mode=$mode" $bin; clean "cxx-replaced-${bin#replace-}-$mode"
    done
  done
done

# delete[] of a plain new's object: the word before the block is the
# cookie the compiler reads; a hang (a redzone fill read as a count)
# meets the timeout
for opt in O0 O2; do
  for mode in debug guard; do
    RUN_TIMEOUT=20 run "mode=$mode:halt_on_error=0" cookie-$opt
    if [ "$rc" = 0 ] && grep -qx 'destructors=0' <<<"$out" && [ "$(tail -n 1 <<<"$out")" = ok ] &&
       grep -q 'ERROR: chunkguard: alloc-dealloc-mismatch' <<<"$err" && ! grep -q 'invalid-free' <<<"$err"; then
      pass "cxx-cookie-reads-0-$opt-$mode"
    else fail "cxx-cookie-reads-0-$opt-$mode" "rc=$rc out=$(head -c 200 <<<"$out") err=$(head -c 400 <<<"$err")"; fi
    RUN_TIMEOUT=20 run "mode=$mode" cookie-$opt
    if [ "$rc" = 134 ] &&
       grep -q '^==[0-9]*==ERROR: chunkguard: alloc-dealloc-mismatch on address' <<<"$err" &&
       grep -q 'operator delete\[\]' <<<"$err" && grep -q 'came from operator new()' <<<"$err" &&
       grep -q '8-byte region' <<<"$err" && ! grep -q 'invalid-free' <<<"$err"; then
      pass "cxx-cookie-mismatch-$opt-$mode"
    else fail "cxx-cookie-mismatch-$opt-$mode" "rc=$rc err=$(head -c 900 <<<"$err")"; fi
  done
done

run "mode=debug" ownnew
if [ "$rc" = 134 ] && grep -q 'ERROR: chunkguard: double-free' <<<"$err" &&
   grep -Eq '#0 0x[0-9a-f]+ in operator delete\(void\*, unsigned long\)( [^ ]+:[0-9]+)? \(.*ownnew\+0x' <<<"$err" &&
   grep -Eq '#0 0x[0-9a-f]+ in operator new\(unsigned long\)( [^ ]+:[0-9]+)? \(.*ownnew\+0x' <<<"$err" &&
   ! grep -q '_Znwm\|_ZdlPv' <<<"$err"; then
  pass cxx-frames-demangled
else fail cxx-frames-demangled "rc=$rc err=$(head -c 900 <<<"$err")"; fi

# C++ names demangled everywhere, hashed mangled (nsdemangle.cc).
DROP='app::box<int>::drop(int*)'; MAKE='int* app::make<int>(unsigned long)'
DROP_Z=_ZN3app3boxIiE4dropEPi
for sym in 0 1; do
  rm -rf "$tmp/rep$sym"; mkdir -p "$tmp/rep$sym"
  run "mode=debug:symbolize=$sym:report_path=$tmp/rep$sym/1.json" nsdemangle
  printf '%s\n' "$err" >"$tmp/err$sym"
  if grep -Fq "in $DROP " <<<"$err" && grep -Fq "in $MAKE " <<<"$err" &&
     grep "^HASH" <<<"$err" | grep -Fq "$DROP" && ! grep -q '_ZN3app' <<<"$err"; then
    pass "cxx-names-text-symbolize$sym"
  else fail "cxx-names-text-symbolize$sym" "$(grep -E '#|HASH' <<<"$err" | head -c 900)"; fi
  if python3 - "$tmp/rep$sym/1.json" "$DROP" "$DROP_Z" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).readline())
fr = [f for s in r["stacks"].values() if s for f in s["frames"]]
ok = any(f.get("function") == sys.argv[2] and f.get("symbol") == sys.argv[3] for f in fr)
ok &= not any((f.get("function") or "").startswith("_Z") for f in fr)
sys.exit(0 if ok else 1)
PY
  then pass "cxx-names-json-symbolize$sym"
  else fail "cxx-names-json-symbolize$sym" "$(head -c 900 "$tmp/rep$sym/1.json")"; fi
done
h0=$(grep -o 'HASH: chunkguard: [0-9a-f]*' "$tmp/err0"); h1=$(grep -o 'HASH: chunkguard: [0-9a-f]*' "$tmp/err1")
if [ -n "$h0" ] && [ "$h0" = "$h1" ]; then pass cxx-names-hash-stable
else fail cxx-names-hash-stable "'$h0' vs '$h1'"; fi
sum=$(python3 "$R/tools/chunkguard" report "$tmp/rep0" --sarif "$tmp/o.sarif" \
      --junit "$tmp/o.xml" --html "$tmp/o.html" 2>&1)
if grep -Fq "$DROP" <<<"$sum" && ! grep -q '_ZN3app' <<<"$sum"; then pass cxx-names-command
else fail cxx-names-command "$(head -c 900 <<<"$sum")"; fi
# SARIF and JUnit hold the name as is, HTML escaped (&lt;int&gt;)
for o in o.sarif o.xml o.html; do
  want=$DROP; case $o in *.html|*.xml) want='app::box&lt;int&gt;::drop(int*)' ;; esac
  if [ -s "$tmp/$o" ] && grep -Fq "$want" "$tmp/$o" && ! grep -q '_ZN3app' "$tmp/$o"
  then pass "cxx-names-command-${o#o.}"
  else fail "cxx-names-command-${o#o.}" "$(grep -o '.\{60\}drop.\{40\}' "$tmp/$o" | head -3)"; fi
done
for pat in "$DROP" "$DROP_Z"; do
  printf 'double-free:%s\n' "$pat" >"$tmp/supp"
  run "mode=debug:symbolize=0:suppressions=$tmp/supp" nsdemangle
  if [ "$rc" = 0 ] && ! grep -q 'ERROR: chunkguard' <<<"$err"; then pass "cxx-names-suppress-${pat:0:3}"
  else fail "cxx-names-suppress-${pat:0:3}" "rc=$rc $(head -c 600 <<<"$err")"; fi
done

# Real C++ programs, debug mode: same output, no report.
real() {   # real NAME CMD...
  local name=$1; shift
  command -v "$1" >/dev/null || return 0
  local want got
  want=$(timeout 120 "$@" 2>&1); local wrc=$?
  got=$(timeout 300 env CHUNKGUARD_OPTIONS=mode=debug LD_PRELOAD="$SO" "$@" 2>&1); local grc=$?
  if [ "$wrc" = "$grc" ] && [ "$want" = "$got" ]; then pass "cxx-program-$name"
  else fail "cxx-program-$name" "status $grc (plain $wrc); $(diff <(echo "$want") <(echo "$got") | head -c 600)"; fi
}
real apt-cache apt-cache showpkg libc6
real gdb gdb -nx -batch -ex 'print 6*7' -ex 'info functions ^main$' "$B/forms"
printf 'set(L a b c)\nlist(REVERSE L)\nstring(JOIN "," S ${L})\nmessage(STATUS "${S}")\n' >"$tmp/t.cmake"
real cmake cmake -P "$tmp/t.cmake"
exit 0
