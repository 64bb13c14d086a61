#!/usr/bin/env bash
# 30-threads.sh — threads against libchunkguard.so: a 4-thread stress with
# cross-thread frees, fork while 8 threads allocate (under timeout, so a
# hang fails), and thread churn with a flat resident set; the stress and
# the fork test again in debug mode.
# Prints PASS/FAIL lines; exit status 0 only when all passed.
# Environment: CG_ROOT, CG_BUILD (set by tests/run-all.sh).
set -uo pipefail
. "$CG_ROOT/tests/unit/lib.sh"
rc=0
ut_need make gcc timeout || exit 1
ut_build so ut-so || exit 1
b=$CG_BUILD/unit/so
ut_prog threads-stress-4x-crossfree 300 "$b/stress" -t 4 -n 200000 || rc=1
ut_prog threads-fork-300-with-8-threads 180 "$b/forkthreads" -t 8 -f 300 || rc=1
# 5000 short threads; RSS at the end at most 4 MiB above RSS after 500.
ut_prog threads-churn-5000-rss-flat 180 "$b/churn" -n 5000 -w 500 -c 4 -m 4096 || rc=1
# The same in debug mode (shadow records, quarantine and their locks).
dbg="env CHUNKGUARD_OPTIONS=mode=debug"
ut_prog threads-debug-stress-4x-crossfree 300 $dbg "$b/stress" -t 4 -n 200000 || rc=1
ut_prog threads-debug-fork-300-with-8-threads 180 $dbg "$b/forkthreads" -t 8 -f 300 || rc=1
exit $rc
