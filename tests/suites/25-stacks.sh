#!/usr/bin/env bash
# 25-stacks.sh — stack capture through libunwind, the stack depot and the
# symbolizer (src/debug/stack.c, stackdepot.c, symbolize.c; tests/unit/stk_*.c):
#   stacks/<suite>::<test>       the Criterion tests, against libchunkguard-cg.a
#   mutant-<m>-caught-by-<test>  stack.c built without one safeguard fails the
#                                test of that safeguard (and passes without it)
#   stacks-asan/<suite>::<test>  the same tests on the ASan+UBSan core
#   stacks-tsan-threads          threads capturing and storing at once, TSan
# Prints PASS/FAIL lines; exit status 0 only when all passed.
# Environment: CG_ROOT, CG_BUILD (set by tests/run-all.sh).
set -uo pipefail
. "$CG_ROOT/tests/unit/lib.sh"
rc=0
ut_need make gcc clang strip timeout || exit 1
[ -f /usr/include/criterion/criterion.h ] ||
  { echo "FAIL tool-criterion: libcriterion-dev not installed"; exit 1; }
[ -f /usr/include/x86_64-linux-gnu/libunwind.h ] ||
  { echo "FAIL tool-libunwind: libunwind-dev not installed (tools/deps.sh check installs it)"; exit 1; }

# mutant | the Criterion test (suite/test) that must catch it
pairs='
nofdguard   capture/fd_reuse_never_touched
nofdguard   capture/priming_guards_libunwind_and_opens_no_descriptor
noerrno     capture/errno_preserved
globalcache capture/loader_lock_holder_and_waiter_both_finish
'

if ut_build stacks stk-unit; then
  ut_criterion stacks 60 "$CG_BUILD/stacks/unit" || rc=1
  while read -r m t; do
    [ -z "$m" ] && continue
    name="mutant-$m-caught-by-${t//\//::}"
    timeout -k 5 60 "$CG_BUILD/stacks/unit" --filter "$t" -j1 >/dev/null 2>&1
    if [ $? -ne 0 ]; then
      echo "FAIL $name: fails even without the mutant"; rc=1; continue
    fi
    if timeout -k 5 60 "$CG_BUILD/stacks/unit-$m" --filter "$t" -j1 >/dev/null 2>&1; then
      echo "FAIL $name: test passed with the safeguard compiled out"; rc=1
    else
      echo "PASS $name"
    fi
  done <<<"$pairs"
else
  rc=1
fi

export ASAN_OPTIONS=abort_on_error=1:detect_leaks=0:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:report_signal_unsafe=0
if ut_build stacks-asan stk-asan; then
  ut_criterion stacks-asan 120 "$CG_BUILD/asan/stacks" || rc=1
else
  rc=1
fi
if ut_build stacks-tsan stk-tsan; then
  ut_prog stacks-tsan-threads 300 "$CG_BUILD/tsan/stk_threads" -t 4 -n 20000 || rc=1
else
  rc=1
fi
exit $rc
