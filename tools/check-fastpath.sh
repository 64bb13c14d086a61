#!/usr/bin/env bash
# check-fastpath.sh — show that a single-threaded process running under
# chunkguard executes no atomic instruction inside the library and makes no
# futex call, and that the same measurement does see atomics once the
# process has a second thread (so a zero is a real zero).
#
# Usage: tools/check-fastpath.sh [--so LIB.so] [--out DIR]
#   --so   the preloaded library (default: $CG_SO, else build/libchunkguard.so)
#   --out  where the strace and callgrind outputs are kept
#          (default: <build>/fastpath/out-<basename of LIB.so>)
# Builds build/fastpath/driver (make target fastpath-driver), then:
#   (a) strace -f -e trace=futex of "driver st" under LD_PRELOAD: 0 calls;
#   (b) callgrind --dump-instr=yes of "driver st" under LD_PRELOAD: no atomic
#       instruction of LIB.so executed (tools/fastpath/atomics.py);
#   (c) the same for "driver mt" (one idle extra thread): some executed;
#   (d) (b) again with the sampler on (guard_sample=64): none executed.
# Prints a summary and, last, one line per check:
#   RESULT <st-futex|st-atomic|mt-atomic|st-sampled-atomic> <ok|FAIL> <count>
# Exit status: 0 all four hold, 1 one does not, 2 the measurement could not
# be made (missing tool, driver failed, profile not trustworthy).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${CG_BUILD:-$ROOT/build}
SO=${CG_SO:-$BUILD/libchunkguard.so}
OUT=
PY=/usr/bin/python3
while [ $# -gt 0 ]; do
  case "$1" in
    --so) SO=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "check-fastpath: unknown argument $1" >&2; exit 2 ;;
  esac
done

die() { echo "check-fastpath: $*" >&2; exit 2; }

for tool in gcc make strace valgrind objdump nm "$PY"; do
  command -v "$tool" >/dev/null || die "missing tool: $tool (tools/deps.sh check installs it)"
done
[ -f "$SO" ] || die "no library $SO (run make -s lib)"
SO=$(realpath "$SO")
OUT=${OUT:-$BUILD/fastpath/out-$(basename "$SO" .so)}
mkdir -p "$OUT" || die "cannot create $OUT"
make -s -C "$ROOT" BUILD="$BUILD" fastpath-driver >&2 || die "cannot build the driver"
DRIVER=$BUILD/fastpath/driver

# A plain run first: the driver must succeed, and must say that the malloc it
# calls lives in $SO, or every later zero would only prove the preload failed.
LD_PRELOAD=$SO "$DRIVER" st >"$OUT/plain.txt" 2>&1 || die "driver failed under $SO: $(tail -3 "$OUT/plain.txt")"
obj=$(sed -n 's/^cg_object=\([^ ]*\) .*/\1/p' "$OUT/plain.txt")
[ -n "$obj" ] && [ "$(realpath "$obj")" = "$SO" ] ||
  die "malloc is served by '$obj', not $SO: LD_PRELOAD did not take effect"
"$DRIVER" st >"$OUT/glibc.txt" 2>&1 || die "driver fails even under glibc"
[ "$(grep checksum= "$OUT/plain.txt")" = "$(grep checksum= "$OUT/glibc.txt")" ] ||
  die "driver output under $SO differs from glibc's"

echo "== (a) futex calls of the single-threaded driver (strace -f -e trace=futex)"
# Baseline under glibc, for the reader: a non-zero here would mean the driver
# itself (not the allocator) takes locks.
strace -f -e trace=futex -o "$OUT/strace.glibc" "$DRIVER" st >/dev/null || die "strace failed"
strace -f -e trace=futex -o "$OUT/strace.st" -E LD_PRELOAD="$SO" "$DRIVER" st >/dev/null ||
  die "strace of the driver failed"
futex_glibc=$(grep -c 'futex(' "$OUT/strace.glibc")
futex_st=$(grep -c 'futex(' "$OUT/strace.st")
echo "glibc: $futex_glibc futex calls;  $(basename "$SO"): $futex_st futex calls"
grep 'futex(' "$OUT/strace.st" | head -5

# run_callgrind MODE FILE [OPTIONS]: profile "driver MODE" with $SO
# preloaded (and CHUNKGUARD_OPTIONS=OPTIONS).  env(1) sets LD_PRELOAD inside
# valgrind, so valgrind's own launcher never loads $SO.
run_callgrind() {
  rm -f "$2"
  valgrind --tool=callgrind --dump-instr=yes --trace-children=yes \
      --callgrind-out-file="$2" /usr/bin/env LD_PRELOAD="$SO" CHUNKGUARD_OPTIONS="${3:-}" \
      "$DRIVER" "$1" \
      >"$2.stdout" 2>"$2.valgrind" || die "driver $1 failed under callgrind: $(tail -3 "$2.valgrind")"
  [ -s "$2" ] || die "callgrind wrote no $2"
}

# atomics MODE EXPECT LABEL: count atomic executions in the MODE profile.
atomics() {
  local base
  base=$(sed -n 's/.* cg_base=\(0x[0-9a-f]*\).*/\1/p' "$OUT/callgrind.$1.stdout")
  "$PY" "$ROOT/tools/fastpath/atomics.py" --so "$SO" --callgrind "$OUT/callgrind.$1" \
      ${base:+--base "$base"} --expect "$2" --label "$3" >"$OUT/atomics.$1.txt"
  local rc=$?
  cat "$OUT/atomics.$1.txt"
  [ "$rc" -le 1 ] || die "the $1 profile cannot be trusted (see above)"
  return "$rc"
}

echo "== (b) atomic instructions of $(basename "$SO") executed, single-threaded (callgrind)"
run_callgrind st "$OUT/callgrind.st"
atomics st none ST; st_rc=$?
echo "== (c) the same with one extra thread: the control, atomics must show up"
run_callgrind mt "$OUT/callgrind.mt"
atomics mt some MT; mt_rc=$?

echo "== (d) single-threaded with the sampler on (guard_sample=64): its count-down and"
echo "   its sampled blocks take no atomic instruction either"
run_callgrind st "$OUT/callgrind.sampled" guard_sample=64
atomics sampled none ST-sampled; sampled_rc=$?

count() { sed -n 's/.*, \([0-9]*\) executions in total.*/\1/p' "$OUT/atomics.$1.txt"; }
echo "== summary (outputs in $OUT)"
rc=0
if [ "$futex_st" -eq 0 ]; then echo "RESULT st-futex ok 0"; else echo "RESULT st-futex FAIL $futex_st"; rc=1; fi
if [ "$st_rc" -eq 0 ]; then echo "RESULT st-atomic ok $(count st)"; else echo "RESULT st-atomic FAIL $(count st)"; rc=1; fi
if [ "$mt_rc" -eq 0 ]; then echo "RESULT mt-atomic ok $(count mt)"; else echo "RESULT mt-atomic FAIL $(count mt)"; rc=1; fi
if [ "$sampled_rc" -eq 0 ]; then echo "RESULT st-sampled-atomic ok $(count sampled)"; else echo "RESULT st-sampled-atomic FAIL $(count sampled)"; rc=1; fi
exit $rc
