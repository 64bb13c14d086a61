#!/usr/bin/env bash
# 10-cases.sh — one buggy program per check (tests/cases/<kind>_<variant>.c).
#
# For each case two tests:
#   glibc/<name>  the case run on plain glibc (no preload, under setarch -R)
#                 trips the glibc check its "glibc:" header line names, so
#                 the case really is the bug it claims to be (cases whose
#                 header says "glibc: none" have no glibc test);
#   case/<name>   under LD_PRELOAD=$CG_SO it dies by the expected signal
#                 with the expected report (see tests/cases/lib.sh).
# Environment: CG_ROOT, CG_BUILD, CG_SO (set by tests/run-all.sh).
# Prints PASS/FAIL lines; exits 1 if the cases cannot be built.
set -uo pipefail
. "$CG_ROOT/tests/cases/lib.sh"

if ! make -s -j2 -C "$CG_ROOT" BUILD="$CG_BUILD" lib cgcases-bins >/dev/null; then
  echo "FAIL cases-build: make lib cgcases-bins failed"; exit 1
fi
command -v setarch >/dev/null || { echo "FAIL cases-tools: setarch (util-linux) missing"; exit 1; }
spawn=$CG_BUILD/cases/spawn
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

n=0
for src in "$CG_ROOT"/tests/cases/*_*.c "$CG_ROOT"/tests/cases/*_*.cc; do
  [ -f "$src" ] || continue
  name=$(basename "$src"); name=${name%.*}; n=$((n + 1))
  bin=$CG_BUILD/cases/$name
  if [ "$(cgcase_glibc "$src")" != none ]; then
    why=
    cgcase_run "$spawn" "$bin" "" "$work/$name.glibc" &&
      why=$(cgcase_judge_glibc "$src" "$work/$name.glibc") &&
      echo "PASS glibc/$name" || echo "FAIL glibc/$name: ${why:-could not run}"
  fi
  if [ ! -f "$CG_SO" ]; then
    echo "FAIL case/$name: $CG_SO does not exist"; continue
  fi
  why=
  cgcase_run "$spawn" "$bin" "$CG_SO" "$work/$name.cg" "$src" &&
    why=$(cgcase_judge "$src" "$work/$name.cg") &&
    echo "PASS case/$name" || echo "FAIL case/$name: ${why:-could not run}"
done
[ "$n" -gt 0 ] || { echo "FAIL cases-found: no tests/cases/*_*.c"; exit 1; }
exit 0
