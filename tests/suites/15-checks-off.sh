#!/usr/bin/env bash
# 15-checks-off.sh — no check is dead code.
#
# For every CG_CHECK_<NAME> switch the catalogue of checks names
# (src/report/checks.def, read from its table $CG_BUILD/checks.tsv), a library is built with
# that check compiled out ($CG_BUILD/off-<NAME>/libchunkguard.so, all built
# with make -j2).  The cases tagged check=CG_CHECK_<NAME> that pass against
# $CG_SO (all checks on) are its witnesses.  Test checks-off/<NAME> passes
# when there is at least one witness and every witness fails against the
# variant (another token, no report, another death): the check is live,
# without it the test fails.  Cases that fail even with every check on are
# named in the line (they are FAILs of 10-cases already).  A switch that no
# case is tagged with fails as checks-off/<NAME>: uncovered.
# Environment: CG_ROOT, CG_BUILD, CG_SO.  Exits 1 if nothing can be built.
set -uo pipefail
. "$CG_ROOT/tests/cases/lib.sh"

if ! make -s -j2 -C "$CG_ROOT" BUILD="$CG_BUILD" lib cgcases-bins >/dev/null; then
  echo "FAIL checks-off-build: make lib cgcases-bins failed"; exit 1
fi
switches=$(awk -F'\t' '$4 ~ /^CG_CHECK_/ { print substr($4, 10) }' "$(cgcase_table)" | sort -u)
[ -n "$switches" ] || { echo "FAIL checks-off-switches: no CG_CHECK_* in $(cgcase_table)"; exit 1; }
# One make run builds every variant, two at a time; -k so that one variant
# that does not build does not stop the others.  The old .so files go
# first: a failed build must not leave a stale variant to be tested.
for sw in $switches; do rm -f "$CG_BUILD/off-$sw/libchunkguard.so"; done
log=$(mktemp)
make -k -s -j2 -C "$CG_ROOT" BUILD="$CG_BUILD" CGCASES_OFF="$(echo $switches)" \
  cgcases-off-variants >"$log" 2>&1
spawn=$CG_BUILD/cases/spawn
work=$(mktemp -d); trap 'rm -rf "$work" "$log"' EXIT

# check_switch SW — test checks-off/SW; its line on stdout.
check_switch() {
  local sw=$1 off cases bad witnesses nonwitness src name bin note
  off=$CG_BUILD/off-$sw/libchunkguard.so
  if [ ! -f "$off" ]; then
    echo "FAIL checks-off/$sw: the variant with CG_CHECK_$sw=0 did not build:"
    { grep -E "off-$sw[/ ]" "$log" || tail -n 5 "$log"; } | head -n 5
    return
  fi
  cases=$(grep -l "^/\* expect: .* check=CG_CHECK_$sw[ ]" "$CG_ROOT"/tests/cases/*_*.c \
           "$CG_ROOT"/tests/cases/*_*.cc)
  if [ -z "$cases" ]; then
    echo "FAIL checks-off/$sw: uncovered, no case is tagged check=CG_CHECK_$sw"; return
  fi
  bad= witnesses= nonwitness=
  for src in $cases; do
    name=$(basename "$src"); name=${name%.*}; bin=$CG_BUILD/cases/$name
    # A case that fails even with every check on proves nothing here; it
    # is already a FAIL of 10-cases, so it is named but not counted twice.
    if ! cgcase_run "$spawn" "$bin" "$CG_SO" "$work/$sw.$name.on" "$src" ||
       ! cgcase_judge "$src" "$work/$sw.$name.on" >/dev/null; then
      nonwitness="$nonwitness $name"; continue
    fi
    witnesses="$witnesses $name"
    if ! cgcase_run "$spawn" "$bin" "$off" "$work/$sw.$name.off" "$src"; then
      bad="$name could not run against $off"; break
    fi
    if cgcase_judge "$src" "$work/$sw.$name.off" >/dev/null; then
      bad="$name still gets its report with CG_CHECK_$sw=0: the check is dead code or the case does not reach it"
      break
    fi
  done
  note=${nonwitness:+ (not witnesses, see 10-cases:$nonwitness)}
  if [ -n "$bad" ]; then
    echo "FAIL checks-off/$sw: $bad"
  elif [ -z "$witnesses" ]; then
    echo "FAIL checks-off/$sw: no case tagged with it passes with every check on$note"
  else
    echo "PASS checks-off/$sw:$witnesses$note"
  fi
}
# The switches are independent (each case's runs in directories of their
# own): two at a time, one per core, their lines in the switches' order
# (tools/ordered-jobs.sh).
. "$CG_ROOT/tools/ordered-jobs.sh"
oj_init 2
for sw in $switches; do oj_run "$work/$sw.line" check_switch "$sw"; done
oj_wait
exit 0
