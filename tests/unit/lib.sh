# lib.sh — shell helpers for the unit, thread and sanitizer suites
# (tests/suites/20-unit.sh, 30-threads.sh, 35-sanitizers.sh).  Sourced, not
# run.  Every helper prints "PASS <name>" or "FAIL <name>: <why>" lines in
# the format tests/run-all.sh counts, and returns 0 only if all passed.

UT_LOGDIR=$(mktemp -d /tmp/cg-ut.XXXXXX)
trap 'rm -rf "$UT_LOGDIR"' EXIT

# ut_need TOOL... — FAIL (and return 1) for each tool not on PATH: a suite
# must never skip silently because something is missing.
ut_need() {
  local t rc=0
  for t in "$@"; do
    if ! command -v "$t" >/dev/null 2>&1; then
      echo "FAIL tool-$t: $t not installed (tools/deps.sh check installs it)"; rc=1
    fi
  done
  return $rc
}

# ut_build LABEL TARGET... — build make targets into $CG_BUILD, two jobs at
# a time (the machine's two cores); on failure print one FAIL line with
# the tail of the build log and return 1.
ut_build() {
  local label=$1; shift
  local log=$UT_LOGDIR/build-$label.log
  if make -s -j2 -C "$CG_ROOT" BUILD="$CG_BUILD" "$@" >"$log" 2>&1; then
    return 0
  fi
  echo "FAIL build-$label: make $* failed"
  tail -n 25 "$log" | sed 's/^/    /'
  return 1
}

# ut_criterion LABEL TIMEOUT_S BINARY — run every test of a Criterion
# binary, each in its own run under timeout(1) (Criterion's own --timeout
# does not fire in 2.4.1 here), and print PASS/FAIL lines named
# LABEL/<suite>::<test>.  A skipped test is a FAIL (nothing may skip
# silently); so is a test that hangs past TIMEOUT_S seconds, and a binary
# that lists no tests.  A failing test's output is shown, indented.
ut_criterion() {
  local label=$1 limit=$2 bin=$3
  local tests t tap out rc bad=0
  tests=$("$bin" --list 2>&1 | awk '/^[A-Za-z0-9_]+: [0-9]+ test/ { s = $1; sub(/:$/, "", s); next }
                                    /(├|└)── / { print s "/" $NF }')
  if [ -z "$tests" ]; then
    echo "FAIL $label: $bin lists no tests"; return 1
  fi
  for t in $tests; do
    tap=$UT_LOGDIR/$label.tap; out=$UT_LOGDIR/$label.out
    rm -f "$tap"
    timeout -k 5 "$limit" "$bin" --filter "$t" -j1 --tap="$tap" --color=never -S >"$out" 2>&1
    rc=$?
    local name="$label/${t/\//::}"
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
      echo "FAIL $name: hung, killed after ${limit}s"; bad=1; continue
    fi
    awk -v name="$name" -v tname="${t/\//::}" -v rc="$rc" '
      /^ok - / && $3 != tname { next }
      /^not ok - / && $4 != tname { mine = 0; next }
      /^ok - / { seen = 1
        if ($0 ~ /# SKIP/) { r = $0; sub(/.*# SKIP */, "", r); print "FAIL " name ": skipped: " r; bad = 1; told = 1 }
        else print "PASS " name
        next }
      /^not ok - / { seen = 1; bad = 1; mine = 1; r = $0; sub(/^not ok - [^ ]+ */, "", r); sub(/^\([0-9.]+s\) *$/, "", r); why = r; next }
      mine && /Assertion failed|^      / { m = $0; sub(/^ +/, "", m); if (m != "" && m !~ /^\|/) why = why (why != "" ? "; " : "") m }
      END {
        if (!seen) { print "FAIL " name ": no result (exit status " rc ")"; exit 1 }
        if (bad && !told) print "FAIL " name (why != "" ? ": " why : "")
        exit bad
      }' "$tap" 2>/dev/null
    if [ $? -ne 0 ]; then
      bad=1
      grep -v -e '^\[====\] Synthesis' -e '^\[SKIP\]' "$out" | sed 's/^/    /' | tail -n 30
    fi
  done
  return $bad
}

# ut_prog NAME TIMEOUT_S CMD... — run a self-checking program; PASS when it
# exits 0 within TIMEOUT_S seconds.  Its output is shown either way (it
# names the seed and the measurements), indented.
ut_prog() {
  local name=$1 limit=$2; shift 2
  local out=$UT_LOGDIR/$name.out rc
  timeout -k 10 "$limit" "$@" >"$out" 2>&1
  rc=$?
  sed 's/^/    /' "$out" | tail -n 40
  case $rc in
    0)   echo "PASS $name" ;;
    124|137) echo "FAIL $name: timed out after ${limit}s (hang?)" ;;
    *)   if [ "$rc" -gt 128 ]; then echo "FAIL $name: killed by signal $((rc - 128))"
         else echo "FAIL $name: exit status $rc: $(grep -m1 -E 'FAIL|ERROR' "$out" || tail -n1 "$out")"; fi ;;
  esac
  [ "$rc" -eq 0 ]
}
