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
# Each suite's closing line gives its wall time and the CPU time (user +
# sys) of everything it ran: on a shared machine the CPU time is the
# steadier measure of what a suite costs.
# A suite's lines are shown as it prints them (through tee into the log
# the counting reads), not when it ends; PYTHONUNBUFFERED keeps a Python
# tool's lines coming one by one too when its output is a pipe.
set -uo pipefail
export PYTHONUNBUFFERED=1
export CG_ROOT=${CG_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
export CG_BUILD=${CG_BUILD:-$CG_ROOT/build}
export CG_SO=${CG_SO:-$CG_BUILD/libchunkguard.so}
pass=0; fail=0
# User + sys CPU time of the finished children so far, in centiseconds
# (bash's `times`, second line: "XmY.YYYs XmY.YYYs").
# Called in this shell, not a subshell, whose `times` would be its own.
cpu_cs() {
  times >"$log.t"
  tail -1 "$log.t" | awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); n += a[1] * 6000 + a[2] * 100 } printf "%d\n", n + 0.5 }' >"$log.cs"
}
log=$(mktemp); trap 'rm -f "$log" "$log.t" "$log.cs"' EXIT
for s in "$CG_ROOT"/tests/suites/*.sh; do
  name=$(basename "$s" .sh)
  [ -n "${SUITES:-}" ] && [[ "$name" != *${SUITES}* ]] && continue
  echo "== suite $name"
  start=$(date +%s); cpu_cs; cpu0=$(cat "$log.cs")
  bash "$s" 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
  cpu_cs; cpu=$(( $(cat "$log.cs") - cpu0 ))
  p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "FAIL $name: suite exited with status $rc"; f=1
  fi
  pass=$((pass + p)); fail=$((fail + f))
  echo "== suite $name: $p passed, $f failed ($(( $(date +%s) - start )) s, cpu $((cpu / 100)).$(printf %02d $((cpu % 100))) s)"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
