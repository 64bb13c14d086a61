#!/usr/bin/env bash
# 35-sanitizers.sh — the cg_-named core under sanitizers: the unit tests
# and the differential test under ASan+UBSan, the thread stress under
# TSan (clang).  Any sanitizer report aborts the run, so it fails.
# Prints PASS/FAIL lines; exit status 0 only when all passed.
# Environment: CG_ROOT, CG_BUILD (set by tests/run-all.sh); UT_SEED.
set -uo pipefail
. "$CG_ROOT/tests/unit/lib.sh"
rc=0
ut_need make clang timeout || exit 1
[ -f /usr/include/criterion/criterion.h ] ||
  { echo "FAIL tool-criterion: libcriterion-dev not installed"; exit 1; }

# Leak checking is off: the core's memory is its own mmap, invisible to
# LSan, and the framework's allocations are not what we test.
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=0:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:report_signal_unsafe=0

if ut_build asan ut-asan; then
  ut_criterion unit-asan 60 "$CG_BUILD/asan/unit" || rc=1
  # Scaled down: ASan makes every pattern check several times slower.
  ut_prog diff-asan-2e5 300 "$CG_BUILD/asan/diff" -n 200000 -s "${UT_SEED:-1}" || rc=1
else
  rc=1
fi
if ut_build tsan ut-tsan; then
  ut_prog tsan-threads-stress 300 "$CG_BUILD/tsan/stress" -t 4 -n 20000 || rc=1
else
  rc=1
fi
exit $rc
