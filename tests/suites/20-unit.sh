#!/usr/bin/env bash
# 20-unit.sh — API contract unit tests (Criterion) and the randomized
# differential test, against libchunkguard.so (standard names), plus the
# same unit tests on plain glibc as the reference for every expectation,
# and mutants of glibc showing that each test catches the defect it targets.
# Prints PASS/FAIL lines; exit status 0 only when all passed.
# Environment: CG_ROOT, CG_BUILD (set by tests/run-all.sh);
# UT_DIFF_OPS (default 1000000) and UT_SEED (default 1) for the
# differential test.
set -uo pipefail
. "$CG_ROOT/tests/unit/lib.sh"
rc=0
ut_need make gcc timeout || exit 1
[ -f /usr/include/criterion/criterion.h ] ||
  { echo "FAIL tool-criterion: libcriterion-dev not installed"; exit 1; }

# The reference: the expectations hold on glibc 2.36 itself.  Then the
# mutants: glibc with one contract broken at a time, which the test of that
# contract must catch (shows no test here passes vacuously).
if ut_build mutant ut-mutant; then
  bash "$CG_ROOT/tests/unit/mutants.sh" "$CG_BUILD" || rc=1
else
  rc=1
fi
if ut_build glibc ut-glibc; then
  ut_criterion unit-glibc 30 "$CG_BUILD/unit/glibc/unit" || rc=1
else
  rc=1
fi

if ut_build so ut-so; then
  ut_criterion unit-so 30 "$CG_BUILD/unit/so/unit" || rc=1
  ut_prog diff-so-1e6 300 "$CG_BUILD/unit/so/diff" -n "${UT_DIFF_OPS:-1000000}" \
    -s "${UT_SEED:-1}" || rc=1
else
  rc=1
fi
exit $rc
