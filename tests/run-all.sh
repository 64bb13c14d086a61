#!/usr/bin/env bash
# run-all.sh — run every test suite and print one summary line.
#
# Each tests/suites/NN-name.sh is run in order with CG_ROOT (checkout),
# CG_BUILD (build dir) and CG_SO (the preload library) set.  A suite prints
# one line per test: "PASS <name>" or "FAIL <name>: <why>"; anything else it
# prints is shown as is.  A suite that exits non-zero without printing a FAIL
# line counts as one failure of its own, so a crashing suite cannot pass.
# The last line is "N passed, N failed"; the exit status is 0 only when
# N failed is 0.  SUITES="pattern" runs only matching suites.
set -uo pipefail
export CG_ROOT=${CG_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
export CG_BUILD=${CG_BUILD:-$CG_ROOT/build}
export CG_SO=${CG_SO:-$CG_BUILD/libchunkguard.so}
pass=0; fail=0
log=$(mktemp); trap 'rm -f "$log"' EXIT
for s in "$CG_ROOT"/tests/suites/*.sh; do
  name=$(basename "$s" .sh)
  [ -n "${SUITES:-}" ] && [[ "$name" != *${SUITES}* ]] && continue
  echo "== suite $name"
  start=$(date +%s)
  bash "$s" >"$log" 2>&1; rc=$?
  cat "$log"
  p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "FAIL $name: suite exited with status $rc"; f=1
  fi
  pass=$((pass + p)); fail=$((fail + f))
  echo "== suite $name: $p passed, $f failed ($(( $(date +%s) - start )) s)"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
