#!/usr/bin/env bash
# demo.sh — what `make demo` shows: chunkguard's reports on two buggy
# examples, then a real program (python3) running clean under chunkguard,
# timed next to glibc, and last the buggy examples run as one job by
# `tools/chunkguard run`, whose HTML report (BUILD/demo/report.html) it
# names.
#
# Usage: tools/demo.sh [BUILD]
#   BUILD  build directory holding libchunkguard.so and examples/ (default:
#          build).  `make demo` builds both first.
# Environment: CG_DEMO_MB    JSON size of the python workload in MB (default 50)
#              CG_DEMO_RUNS timed runs of it under each malloc (default 2)
# Exit status: 0 when every step behaved as expected: each example died by
# SIGABRT after a report whose first line carries the token written in its
# "expect:" header comment; the workload printed the same line with and
# without chunkguard, exited 0, wrote no report, and chunkguard's statistics
# show it served the allocations.  1 otherwise (the demo still runs every
# step first), 2 on a usage error.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
SO=$(realpath -e "$BUILD/libchunkguard.so" 2>/dev/null) ||
  { echo "demo: no $BUILD/libchunkguard.so (run make lib)" >&2; exit 2; }
PY=/usr/bin/python3
MB=${CG_DEMO_MB:-50}
RUNS=${CG_DEMO_RUNS:-2}
TMP=$(mktemp -d) || exit 2
trap 'rm -rf "$TMP"' EXIT
ulimit -c 0 # the examples abort on purpose: no core files
problems=0
problem() { echo "demo: PROBLEM: $*"; problems=$((problems + 1)); }

# Bold section titles on a terminal, plain text in logs.
if [ -t 1 ]; then B=$'\e[1m'; N=$'\e[0m'; else B=; N=; fi
title() { printf '\n%s== %s%s\n' "$B" "$*" "$N"; }

for ex in double_free invalid_free; do
  src=$ROOT/examples/$ex.c
  bin=$BUILD/examples/$ex
  [ -x "$bin" ] || { problem "$bin is not built"; continue; }
  # The header comment says what must happen: "expect: <token> SIGABRT".
  token=$(sed -n 's/^ \* expect: \([a-z-]*\) SIGABRT$/\1/p' "$src")
  title "examples/$ex.c: $(sed -n '2s/^ \* [^ ]* — //p' "$src")"
  echo "\$ LD_PRELOAD=$SO $bin"
  # Braces with 2>/dev/null keep bash's own "Aborted" notice out of the way;
  # the program's stderr (the report) goes to a file and is shown in full.
  { LD_PRELOAD=$SO "$bin" >"$TMP/$ex.out" 2>"$TMP/$ex.err"; } 2>/dev/null
  rc=$?
  cat "$TMP/$ex.out"
  sed 's/^/  | /' "$TMP/$ex.err"
  if [ "$rc" -eq 134 ]; then
    echo "-> died by SIGABRT (exit status $rc = 128 + signal 6), as glibc would"
  elif [ "$rc" -gt 128 ]; then
    problem "$ex died by signal $((rc - 128)), not SIGABRT"
  else
    problem "$ex exited with status $rc instead of aborting"
  fi
  first=$(head -1 "$TMP/$ex.err")
  if [[ "$first" =~ ^==[0-9]+==ERROR:\ chunkguard:\ ${token}\ on\ address\ 0x[0-9a-f]+$ ]]; then
    echo "-> first report line names the bug: '$token'"
  else
    problem "$ex: expected a first report line with token '${token:-?}', got: ${first:-nothing}"
  fi
done

title "a real program: python3 examples/workload.py ($MB MB JSON round trip, dicts, strings)"
# now_ns: wall clock in nanoseconds.
now_ns() { date +%s%N; }
# Runs alternate glibc / chunkguard and the fastest of each is kept, which
# damps the noise of a shared machine; only the first run's output is shown.
best_glibc=; best_cg=; rc_glibc=0; rc_cg=0
mkdir -p "$TMP/stats"
for run in $(seq 1 "$RUNS"); do
  [ "$run" -eq 1 ] && echo "\$ $PY examples/workload.py $MB                 # glibc malloc"
  t0=$(now_ns)
  "$PY" "$ROOT/examples/workload.py" "$MB" >"$TMP/glibc.out" 2>"$TMP/glibc.err" || rc_glibc=$?
  t1=$(now_ns)
  [ "$run" -eq 1 ] && cat "$TMP/glibc.out" "$TMP/glibc.err"
  rm -f "$TMP"/stats/*
  if [ "$run" -eq 1 ]; then
    echo "\$ CHUNKGUARD_OPTIONS=stats_path=$TMP/stats/cg.%p LD_PRELOAD=$SO \\"
    echo "    $PY examples/workload.py $MB"
  fi
  t2=$(now_ns)
  CHUNKGUARD_OPTIONS=stats_path=$TMP/stats/cg.%p LD_PRELOAD=$SO \
    "$PY" "$ROOT/examples/workload.py" "$MB" >"$TMP/cg.out" 2>"$TMP/cg.err" || rc_cg=$?
  t3=$(now_ns)
  [ "$run" -eq 1 ] && cat "$TMP/cg.out" "$TMP/cg.err"
  g=$(( (t1 - t0) / 1000000 )); c=$(( (t3 - t2) / 1000000 ))
  [ -z "$best_glibc" ] || [ "$g" -lt "$best_glibc" ] && best_glibc=$g
  [ -z "$best_cg" ] || [ "$c" -lt "$best_cg" ] && best_cg=$c
  # Every run must agree, not just the one shown.
  [ "$run" -eq 1 ] && cp "$TMP/cg.out" "$TMP/cg.first"
  cmp -s "$TMP/cg.out" "$TMP/cg.first" || problem "run $run: chunkguard's output changed between runs"
  [ -s "$TMP/cg.err" ] && cp "$TMP/cg.err" "$TMP/cg.err.any"
done
[ -f "$TMP/cg.err.any" ] && cp "$TMP/cg.err.any" "$TMP/cg.err"

[ "$rc_glibc" -eq 0 ] || problem "the workload failed under glibc (exit $rc_glibc)"
[ "$rc_cg" -eq 0 ] || problem "the workload failed under chunkguard (exit $rc_cg)"
if [ -s "$TMP/cg.out" ] && cmp -s "$TMP/glibc.out" "$TMP/cg.out"; then
  echo "-> same output as under glibc"
else
  problem "the workload's output under chunkguard differs from glibc's"
fi
if [ -s "$TMP/cg.err" ]; then
  problem "chunkguard printed something (a report?) during a clean run"
else
  echo "-> no report"
fi

# Exactly one process ran under chunkguard, so one statistics file.
# (its exit line: the file's start line, "start pid=N exe=PATH", has no counts)
stats=$(grep -h '^pid=' "$TMP"/stats/cg.* 2>/dev/null | head -1)
echo "chunkguard stats: ${stats:-<none>}"
# stat_of KEY: the value of KEY=... in the stats line.
stat_of() { sed -n "s/.*\(^\| \)$1=\([^ ]*\).*/\2/p" <<<"$stats"; }
mallocs=$(stat_of mallocs); frees=$(stat_of frees); brk=$(stat_of brk_heap)
if [ -z "$stats" ]; then
  problem "no statistics file: chunkguard did not serve this process"
elif ! [[ "$mallocs" =~ ^[0-9]+$ && "$frees" =~ ^[0-9]+$ ]] || [ "$mallocs" -lt 10000 ] || [ "$frees" -lt 10000 ]; then
  problem "statistics show too few operations (mallocs=$mallocs frees=$frees) for this workload"
elif [ "$brk" != 0 ]; then
  problem "a [heap] (brk) mapping exists: something allocated outside chunkguard"
else
  echo "-> chunkguard served $mallocs mallocs and $frees frees; no brk heap exists"
fi

title "wall time (fastest of $RUNS alternating runs each)"
printf '  %-12s %8s ms\n' glibc "$best_glibc" chunkguard "$best_cg"
[ "$best_glibc" -gt 0 ] &&
  awk -v g="$best_glibc" -v c="$best_cg" 'BEGIN { printf "  ratio chunkguard/glibc: %.2f\n", c / g }'

title "the buggy examples as a CI job would run them: chunkguard run, debug mode, an HTML report"
# All three examples in one job, each a child of sh; debug mode also sees
# heap_overflow's one byte past its block.  The report directory and the
# page are kept in BUILD/demo (the rest of TMP is removed).
DEMO=$(realpath -m "$BUILD/demo")
rm -rf "$DEMO/reports"; mkdir -p "$DEMO"
job="'$BUILD/examples/double_free'; '$BUILD/examples/invalid_free'; '$BUILD/examples/heap_overflow'; true"
echo "\$ tools/chunkguard run --mode debug --report-dir $DEMO/reports --html $DEMO/report.html \\"
echo "    -- sh -c \"double_free; invalid_free; heap_overflow\""
{ CHUNKGUARD_LIB=$SO "$ROOT/tools/chunkguard" run --mode debug --report-dir "$DEMO/reports" \
    --srcroot "$ROOT" --title "chunkguard demo: the buggy examples" --html "$DEMO/report.html" \
    -- sh -c "$job" >"$TMP/job.out" 2>"$TMP/job.err"; } 2>/dev/null
rc=$?
sed -n '/^chunkguard: /,$p' "$TMP/job.err"
if [ "$rc" -ne 23 ]; then
  problem "chunkguard run exited with status $rc, not 23 (reports were made)"
elif [ ! -s "$DEMO/report.html" ]; then
  problem "no HTML report was written"
else
  echo "-> exit status 23: the job made reports"
  echo "HTML report: $DEMO/report.html"
fi

echo
if [ "$problems" -eq 0 ]; then
  echo "demo: all steps behaved as expected"
else
  echo "demo: $problems step(s) did not behave as expected"
  exit 1
fi
