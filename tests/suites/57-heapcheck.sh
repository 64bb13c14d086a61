#!/usr/bin/env bash
# 57-heapcheck.sh — the heap verifier, cg_verify_heap(), and verify_interval.
#
#   clean-*            a clean heap verifies with 0 problems after varied
#                      workloads (every size range, several heaps, threads
#                      verifying while others allocate, a fork child), in fast
#                      mode, debug mode and under verify_interval
#   heapcheck/<case>   one corruption per kind; the verifier must name the
#                      kind, and the same test must fail with that kind's check
#                      turned off (tests/heapcheck/hc_corrupt.c)
#   random-corruption  random words over headers, links, the arena and the
#                      tcache: the verifier always returns (no fault, no hang)
#   verify-interval    verify_interval=N finds a corruption no operation
#                      touches; without it the same program runs to its end
#   interval-python3   a real program under verify_interval: same output, no
#                      report
# Environment: CG_ROOT, CG_BUILD (tests/run-all.sh).
set -uo pipefail
cd "$CG_ROOT" || exit 1
out=$CG_BUILD/heapcheck
if ! make -s -j2 BUILD="$CG_BUILD" hc-bins >/dev/null; then
  echo "FAIL heapcheck-build: make hc-bins failed"; exit 1
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

clean() {   # clean <name> <timeout> <CHUNKGUARD_OPTIONS> <ops>
  local name=$1 t=$2 opts=$3 ops=$4
  CHUNKGUARD_OPTIONS=$opts timeout "$t" "$out/hc_clean" "$ops" >"$tmp/$name" 2>&1
  local rc=$?
  if [ $rc -eq 0 ] && grep -q '^hc_clean: all clean$' "$tmp/$name"; then
    echo "PASS heapcheck/$name: $(grep -c '^ok ' "$tmp/$name") verified phases, 0 problems"
  else
    echo "FAIL heapcheck/$name: status $rc: $(grep -m3 -E 'FAIL|ERROR|heap check' "$tmp/$name" | tr '\n' ' ')"
  fi
}
clean clean-fast 120 "" 20000
clean clean-debug 180 "mode=debug:stack_depth=4:quarantine_mb=8" 5000
clean clean-interval 180 "verify_interval=400" 5000
clean clean-debug-interval 300 "mode=debug:stack_depth=1:quarantine_mb=2:verify_interval=1500" 2000

timeout 300 "$out/hc_corrupt"
timeout 300 "$out/hc_corrupt" --fuzz 600 "${HC_SEED:-1}"
GLIBC_TUNABLES=glibc.malloc.tcache_count=0 timeout 300 "$out/hc_corrupt" --fuzz 300 "${HC_SEED:-1}" |
  sed 's|random-corruption|random-corruption-no-tcache|'
CHUNKGUARD_OPTIONS=mode=debug:stack_depth=1:quarantine_mb=1:guard_sample=0 timeout 300 "$out/hc_corrupt" --fuzz 200 \
  "${HC_SEED:-1}" | sed 's|random-corruption|random-corruption-debug|'

# verify_interval: on, the loop is stopped by the verifier's report; off,
# the corruption goes unseen and the program ends normally.
# (in a child shell, whose "Aborted" notice goes to the file too)
CHUNKGUARD_OPTIONS=verify_interval=100 bash -c 'timeout 60 "$1" 1000; exit $?' _ "$out/hc_interval" >"$tmp/on" 2>&1
on=$?
timeout 60 "$out/hc_interval" 1000 >"$tmp/off" 2>&1; off=$?
if [ $on -eq 134 ] && grep -q 'ERROR: chunkguard: heap-corruption on address 0x' "$tmp/on" &&
   grep -q 'malloc(): heap check: bk does not point back' "$tmp/on" &&
   [ $off -eq 0 ] && ! grep -q ERROR "$tmp/off"; then
  echo "PASS heapcheck/verify-interval: found with verify_interval=100, unseen without"
else
  echo "FAIL heapcheck/verify-interval: on: status $on, off: status $off: $(head -c 300 "$tmp/on")"
fi

# A real program, verified every 2000 operations.
if command -v python3 >/dev/null; then
  prog='import json; d={str(i): [i]*(i%50) for i in range(20000)}; s=json.dumps(d); print(len(s), len(json.loads(s)))'
  want=$(python3 -c "$prog")
  got=$(LD_PRELOAD=$CG_SO CHUNKGUARD_OPTIONS=verify_interval=2000 timeout 300 python3 -c "$prog" 2>"$tmp/py")
  if [ "$got" = "$want" ] && [ ! -s "$tmp/py" ]; then
    echo "PASS heapcheck/interval-python3: same output, no report"
  else
    echo "FAIL heapcheck/interval-python3: got '$got' want '$want': $(head -c 300 "$tmp/py")"
  fi
fi
exit 0
