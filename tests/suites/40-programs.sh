#!/usr/bin/env bash
# 40-programs.sh — real programs under LD_PRELOAD=$CG_SO.
#
# Each workload of tests/programs/workloads.sh (python, gcc, git, perl,
# sqlite, sort, tarxz) runs on inputs from tests/programs/gen-inputs.py:
# plain, then with LD_PRELOAD=$CG_SO and CHUNKGUARD_OPTIONS=stats_path=...
# in fast mode, then the same in debug and in guard mode (tests
# program/<w>/debug/..., program/<w>/guard/...).
# Three tests per workload and mode:
#   program/<w>/output     both runs succeed and their stdout is identical
#   program/<w>/no-report  the preloaded run's stderr never says "chunkguard"
#   program/<w>/stats      chunkguard served the processes: the workload's
#                          main process and each program it is about (e.g.
#                          cc1, as, ld for gcc) left a stats file with
#                          mallocs>0, and every stats file says brk_heap=0
# Environment: CG_ROOT, CG_BUILD, CG_SO.  PROGRAMS="git sort" runs a subset;
# workloads run CG_PROGRAM_JOBS (2) at a time, their lines in order, each
# workload's as soon as it and those before it are done.
# Exits 1 when the library cannot be built or a needed tool is missing.
set -uo pipefail
progs=$CG_ROOT/tests/programs
# Each run gets this long before it is killed (seconds); a hang is a failure.
limit=${CG_PROGRAM_TIMEOUT:-240}

if ! make -s -C "$CG_ROOT" BUILD="$CG_BUILD" lib >/dev/null; then
  echo "FAIL programs-build: make lib failed"; exit 1
fi
[ -f "$CG_SO" ] || { echo "FAIL programs-build: $CG_SO does not exist"; exit 1; }
missing=
for t in /usr/bin/python3 gcc git perl sqlite3 sort xz tar sha256sum timeout; do
  command -v "$t" >/dev/null || missing="$missing $t"
done
[ -z "$missing" ] || { echo "FAIL programs-tools: missing$missing (tools/deps.sh check)"; exit 1; }

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
if ! /usr/bin/python3 "$progs/gen-inputs.py" "$work/in"; then
  echo "FAIL programs-inputs: gen-inputs.py failed"; exit 1
fi

# The programs each workload is about, as extended regexes on the basename
# of a stats file's exe= (Debian's names carry the target triplet:
# x86_64-linux-gnu-gcc-12, x86_64-linux-gnu-as, x86_64-linux-gnu-ld.bfd).
declare -A want=(
  [python]='^python3'
  [gcc]='gcc ^cc1$ (^|-)as$ ^collect2$ (^|-)ld(\.bfd|\.gold)?$ ^cgprog$'
  [git]='^git$'
  [perl]='^perl'
  [sqlite]='^sqlite3$'
  [sort]='^sort$'
  [tarxz]='^tar$ ^xz$ ^sha256sum$'
)

# stat_field FILE KEY — print KEY's value from stats FILE's exit line (the
# line "pid=N exe=... mallocs=N ..." written at exit and _exit; the start
# lines, "start pid=N exe=PATH", one per program the process ran, come
# before it).
stat_field() {
  grep -m 1 '^pid=' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# check_stats W DIR MAINPID — judge the stats files of workload W in DIR.
# Prints nothing on success, else the problems on one line; status 0/1.
check_stats() {
  local w=$1 dir=$2 main=$3 f pid exe m brk re found problems= n=0
  for f in "$dir"/cg.*; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    # (stats_path with %p) a start line at start-up and for each program
    # exec'd, the exit line at exit and _exit: a file whose last line is
    # not an exit line is a process that never got there
    if ! tail -n 1 "$f" | grep -q '^pid='; then
      problems="$problems; $(basename "$f") ($(tail -n 1 "$f" | sed -n 's/^start pid=[0-9]* exe=//p')) has no exit line: that process did not reach exit or _exit (killed by a signal?)"
      continue
    fi
    pid=$(stat_field "$f" pid); brk=$(stat_field "$f" brk_heap)
    [ "$pid" = "${f##*/cg.}" ] || problems="$problems; $(basename "$f") says pid=$pid"
    [ "$brk" = 0 ] || problems="$problems; pid $pid ($(stat_field "$f" exe)) brk_heap=${brk:-missing}"
  done
  [ "$n" -gt 0 ] || { echo "no stats files at all (was the library loaded?)"; return 1; }
  if [ -z "$main" ] || [ ! -f "$dir/cg.$main" ]; then
    problems="$problems; no stats file for the main process (pid ${main:-unknown})"
  elif [ "$(stat_field "$dir/cg.$main" mallocs)" = 0 ]; then
    problems="$problems; the main process counted no mallocs"
  fi
  for re in ${want[$w]}; do
    found=
    for f in "$dir"/cg.*; do
      exe=$(stat_field "$f" exe); m=$(stat_field "$f" mallocs)
      if printf '%s\n' "${exe##*/}" | grep -Eq "$re" && [ "${m:-0}" -gt 0 ]; then
        found=1; break
      fi
    done
    [ -n "$found" ] || problems="$problems; no process matching /$re/ with mallocs>0"
  done
  [ -z "$problems" ] && return 0
  echo "${problems#; } ($n stats files)"; return 1
}

# workload W — W's plain run, then each mode's; its lines on stdout.
workload() {
  local w=$1 p c s t0 t1 t2 prc crc plain_s times mode modes name why
  p=$work/$w.plain
  mkdir -p "$p/scratch"
  t0=$(date +%s.%N)
  timeout -k 10 "$limit" bash "$progs/workloads.sh" "$w" "$work/in" "$p/scratch" \
    >"$p/out" 2>"$p/err"; prc=$?
  t1=$(date +%s.%N)
  plain_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  # Fast mode (the default), debug and guard mode: the same output, no report.
  # Guard mode costs two system calls per block (docs/performance.md): it
  # runs the four programs issue 12 names, not the string-heavy perl, sort
  # and tar loops, to keep make check short.
  modes="fast debug"; case $w in python|gcc|git|sqlite) modes="$modes guard" ;; esac
  for mode in $modes; do
  name=program/$w; [ "$mode" = fast ] || name=program/$w/$mode
  c=$work/$w.$mode s=$work/$w.$mode.stats
  mkdir -p "$c/scratch" "$s"
  t1=$(date +%s.%N)
  timeout -k 10 "$limit" env LD_PRELOAD="$CG_SO" \
    CHUNKGUARD_OPTIONS="mode=$mode:stats_path=$s/cg.%p" \
    bash "$progs/workloads.sh" "$w" "$work/in" "$c/scratch" >"$c/out" 2>"$c/err"; crc=$?
  t2=$(date +%s.%N)
  times=$(awk -v p="$plain_s" -v b="$t1" -v c="$t2" -v m="$mode" \
          'BEGIN { printf "plain %s s, chunkguard %s mode %.1f s", p, m, c - b }')

  if [ "$prc" -ne 0 ]; then
    echo "FAIL $name/output: the plain run failed (status $prc): $(head -c 300 "$p/err" | tr '\n' '|')"
  elif [ "$crc" -ne 0 ]; then
    echo "FAIL $name/output: the chunkguard run failed (status $crc$([ "$crc" -eq 124 ] && echo ', timed out'), plain 0): $(head -c 400 "$c/err" | tr '\n' '|')"
  elif ! cmp -s "$p/out" "$c/out"; then
    echo "FAIL $name/output: stdout differs from the plain run's:"
    diff "$p/out" "$c/out" | head -n 20
  else
    echo "PASS $name/output ($times)"
  fi

  # (guard mode may say, once, that it fell back to debug blocks: gcc's
  # live blocks reach the mapping limit; a notice, not a report)
  if grep -v 'guard mode has no room for more guarded blocks' "$c/err" | grep -q chunkguard; then
    echo "FAIL $name/no-report: $(grep -m 3 -A 3 chunkguard "$c/err" | tr '\n' '|')"
  else
    echo "PASS $name/no-report"
  fi

  if why=$(check_stats "$w" "$s" "$(cat "$c/scratch/main.pid" 2>/dev/null)"); then
    echo "PASS $name/stats"
  else
    echo "FAIL $name/stats: $why"
  fi
  done
}

# The workloads are independent (each in directories of its own, nothing
# timed against a bar): CG_PROGRAM_JOBS (2) at a time, one per core; the
# lines are printed in the workloads' order (tools/ordered-jobs.sh).
# The longest go first, so that the short ones fill the other core at
# the end rather than one long one running alone: sqlite's guard mode
# (2.3 million blocks, two system calls each) took 115 of the suite's
# 231 s in a fresh-clone run, and started fifth.
. "$CG_ROOT/tools/ordered-jobs.sh"
oj_init "${CG_PROGRAM_JOBS:-2}"
for w in ${PROGRAMS:-sqlite python gcc sort perl git tarxz}; do
  oj_run "$work/$w.res" workload "$w"
done
oj_wait
exit 0
