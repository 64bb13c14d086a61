#!/usr/bin/env bash
# smoke.sh {replay|all|ci} FZDIR — `make fuzz-replay`, `make fuzz-smoke`
# and `make fuzz-ci` (docs/fuzzing.md).
#   replay: every harness's seed corpus through FZDIR/replay/<harness>
#           (corrupt's and faults' summaries must show every kind injected
#           at least once, faults' every access form this CPU has and
#           every context used), then each regression input, fuzz/regress/<harness>/<name>,
#           in a process of its own: "PASS fuzz-regress-<harness>/<name>".
#   all:    replay, then each harness FUZZ_SMOKE_SECONDS (20) under
#           libFuzzer (FZDIR/lf) and under AFL++ (FZDIR/afl): an
#           open-ended, time-bounded campaign, new work every run.
#   ci:     replay, then each harness under both engines for a fixed number
#           of executions (the table below, times FUZZ_CI_SCALE, default
#           1) from a fixed seed (FUZZ_CI_SEED, default 1): afl-fuzz -s -E,
#           libFuzzer -seed -runs, from the checked-in corpus: as much
#           work, from the same start, every run whatever the machine's
#           load (tests/suites/65-fuzz.sh; how far the inputs are the same:
#           docs/fuzzing.md, "Local runs").
# Runs go FUZZ_JOBS (2) at a time, one engine per core; each harness's
# lines are printed in a fixed order, each run's as soon as it and the runs
# before it are done (tools/ordered-jobs.sh).  Any crash fails.
# Prints "PASS fuzz-<what>" / "FAIL fuzz-<what>: why" lines; exit 1 on a FAIL.
set -u
mode=$1; FZ=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${FUZZ_SMOKE_SECONDS:-20}
seed=${FUZZ_CI_SEED:-1}
scale=${FUZZ_CI_SCALE:-1}
jobs=${FUZZ_JOBS:-2}
names="ops-fast ops-debug ops-guard ops-mt corrupt faults options"
# ci: executions per harness, AFL++ (calibration of the seeds included)
# and libFuzzer (its first pass over the seeds included: the ops harnesses
# run each input's bad calls in children of their own, a few ms each, so
# libFuzzer's count is little more than the seeds).  About 10 s each on
# an idle 2-core machine (docs/fuzzing.md, "Local runs").
declare -A afl_execs=( [ops-fast]=8000 [ops-debug]=3000 [ops-guard]=4000
                       [ops-mt]=1500 [corrupt]=2000 [faults]=8000 [options]=20000 )
declare -A lf_runs=( [ops-fast]=400 [ops-debug]=400 [ops-guard]=300
                     [ops-mt]=150 [corrupt]=300 [faults]=700 [options]=20000 )
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; bad=1; }

. "$root/tools/ordered-jobs.sh"

# replay_one H — H's seed corpus, then its regression inputs one process
# each; its lines on stdout.
replay_one() {
    local h=$1 out=$tmp/rout-$1 f r
    if timeout 300 "$FZ/replay/$h" "$root/fuzz/corpus/$h" >"$out" 2>&1; then
        if [ "$h" = corrupt ] && ! grep -q '^corrupt: 0 kind(s) never injected' "$out"; then
            fail "fuzz-replay-$h" "some kind never injected: $(grep 'injected 0' "$out" | tr '\n' ' ')"
        elif [ "$h" = faults ] && ! grep -q '^faults: 0 kind(s) never injected' "$out"; then
            fail "fuzz-replay-$h" "some kind never injected: $(grep 'injected 0' "$out" | tr '\n' ' ')"
        elif [ "$h" = faults ] && ! grep -q '^faults: 0 form(s) or context(s) never used' "$out"; then
            fail "fuzz-replay-$h" "$(grep 'never used' "$out" | tr '\n' ' ')"
        else
            pass "fuzz-replay-$h"
        fi
    else
        fail "fuzz-replay-$h" "$(tail -c 600 "$out")"
    fi
    # A regression input reaches its bug through the heap layout of a fresh
    # process: after other inputs the same bytes may miss it (docs/fuzzing.md).
    for f in "$root/fuzz/regress/$h"/*; do
        [ -f "$f" ] || continue
        case $f in *.md) continue ;; esac
        r="fuzz-regress-$h/$(basename "$f")"
        if timeout 60 "$FZ/replay/$h" "$f" >"$out" 2>&1; then
            pass "$r"
        else
            fail "$r" "$(grep -m3 -E '^fuzz:|ERROR' "$out" | tr '\n' ' ')"
        fi
    done
}
oj_init "$jobs"
for h in $names; do oj_run "$tmp/replay-$h" replay_one "$h"; done
oj_wait
grep -q '^FAIL ' "$tmp"/replay-* && bad=1
[ "$mode" = replay ] && exit $bad

dict() { [ "$1" = options ] && echo "-dict=$root/fuzz/options.dict"; }
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
       AFL_FAST_CAL=1 AFL_NO_AFFINITY=1 AFL_SKIP_BIN_CHECK=0

# lf_one H — H under libFuzzer; its line on stdout.  New inputs go to a
# scratch directory: the seed corpus stays as checked in.
lf_one() {
    local h=$1 bound lim rc keep
    mkdir -p "$tmp/lf-$h" "$tmp/art-$h"
    if [ "$mode" = ci ]; then
        bound="-seed=$seed -runs=$(( ${lf_runs[$h]} * scale ))" lim=900
    else
        bound="-max_total_time=$secs" lim=$((secs + 60))
    fi
    timeout "$lim" "$FZ/lf/$h" $bound -timeout=20 \
        -artifact_prefix="$tmp/art-$h/" $(dict "$h") "$tmp/lf-$h" "$root/fuzz/corpus/$h" \
        >"$tmp/lf-$h.log" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
        pass "fuzz-libfuzzer-$h ($(grep -o 'Done [0-9]* runs' "$tmp/lf-$h.log" | tail -1)$(
            [ "$mode" = ci ] && grep -o 'DONE *cov: [0-9]* ft: [0-9]* corp: [0-9]*' "$tmp/lf-$h.log" |
                tail -1 | tr -s ' ' | sed 's/^DONE/;/'))"
    else
        fail "fuzz-libfuzzer-$h" "rc=$rc $(grep -m3 -E 'fuzz:|ERROR|SUMMARY' "$tmp/lf-$h.log" | tr '\n' ' ') $(ls "$tmp/art-$h" | head -3)"
        # Keep what failed for replay-min.sh (the temporary directory goes).
        keep="$root/build/fuzz/lf-failed-$h"; rm -rf "$keep"; mkdir -p "$keep"
        cp -r "$tmp/art-$h/." "$tmp/lf-$h.log" "$keep/" 2>/dev/null
        echo "    kept in $keep: $(ls "$keep" | tr '\n' ' ')"
        tail -n 40 "$tmp/lf-$h.log" | sed 's/^/    | /'
    fi
}

# queue_digest DIR — one hash of the inputs AFL++ kept and how it made them
# (the names without their time: field): two ci runs of the options
# harness give the same one; the ops harnesses' queues differ run to run
# (their coverage follows heap addresses and random secrets: docs/fuzzing.md).
queue_digest() {
    (cd "$1" && for f in id:*; do
        printf '%s %s\n' "$(echo "$f" | sed 's/,time:[0-9]*//')" "$(md5sum <"$f" | cut -c1-32)"
    done) | md5sum | cut -c1-12
}

# afl_one H — H under AFL++; its line on stdout.
afl_one() {
    local h=$1 out=$tmp/afl-$1 bound lim rc stats crashes
    if [ "$mode" = ci ]; then
        bound="-s $seed -E $(( ${afl_execs[$h]} * scale ))" lim=900
    else
        bound="-V $secs" lim=$((secs + 90))
    fi
    timeout "$lim" afl-fuzz $bound -t 5000 -i "$root/fuzz/corpus/$h" -o "$out" \
        $( [ "$h" = options ] && echo "-x $root/fuzz/options.dict" ) -- "$FZ/afl/$h" \
        >"$tmp/afl-$h.log" 2>&1
    rc=$?
    stats="$out/default/fuzzer_stats"
    crashes=$(ls "$out/default/crashes" 2>/dev/null | grep -vc README)
    if [ $rc -eq 0 ] && [ -f "$stats" ] && [ "$crashes" -eq 0 ]; then
        pass "fuzz-afl-$h ($(awk '/^execs_done/ {print $3}' "$stats") execs, $(awk '/^corpus_count/ {print $3}' "$stats") paths$(
            [ "$mode" = ci ] && echo ", queue $(queue_digest "$out/default/queue")"))"
    else
        fail "fuzz-afl-$h" "rc=$rc crashes=$crashes $(grep -m3 -E 'PROGRAM ABORT|ERROR|Location' "$tmp/afl-$h.log" | tr '\n' ' ')"
        if [ "$crashes" -gt 0 ]; then
            rm -rf "$root/build/fuzz/afl-crashes-$h"
            cp -r "$out/default/crashes" "$root/build/fuzz/afl-crashes-$h" 2>/dev/null &&
                echo "    kept in $root/build/fuzz/afl-crashes-$h"
        fi
    fi
}

# One engine per core: with two jobs a harness runs under libFuzzer and
# under AFL++ at the same time, as many seconds each in the timed mode.
oj_init "$jobs"
for h in $names; do
    oj_run "$tmp/lf-$h.res" lf_one "$h"
    oj_run "$tmp/afl-$h.res" afl_one "$h"
done
oj_wait
grep -q '^FAIL ' "$tmp"/*.res && bad=1
exit $bad
