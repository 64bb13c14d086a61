#!/usr/bin/env bash
# smoke.sh {replay|all} FZDIR — `make fuzz-smoke` (docs/fuzzing.md).
#   replay: every harness's seed corpus through FZDIR/replay/<harness>
#           (corrupt's and faults' summaries must show every kind injected
#           at least once, faults' every access form this CPU has and
#           every context used), then each regression input, fuzz/regress/<harness>/<name>,
#           in a process of its own: "PASS fuzz-regress-<harness>/<name>".
#   all:    replay, then each harness FUZZ_SMOKE_SECONDS (20) under
#           libFuzzer (FZDIR/lf) and under AFL++ (FZDIR/afl) side by side,
#           one harness after another; any crash fails.
# Prints "PASS fuzz-<what>" / "FAIL fuzz-<what>: why" lines; exit 1 on a FAIL.
set -u
mode=$1; FZ=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${FUZZ_SMOKE_SECONDS:-20}
names="ops-fast ops-debug ops-guard ops-mt corrupt faults options"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; bad=1; }

for h in $names; do
    if timeout 300 "$FZ/replay/$h" "$root/fuzz/corpus/$h" >"$tmp/out" 2>&1; then
        if [ "$h" = corrupt ] && ! grep -q '^corrupt: 0 kind(s) never injected' "$tmp/out"; then
            fail "fuzz-replay-$h" "some kind never injected: $(grep 'injected 0' "$tmp/out" | tr '\n' ' ')"
        elif [ "$h" = faults ] && ! grep -q '^faults: 0 kind(s) never injected' "$tmp/out"; then
            fail "fuzz-replay-$h" "some kind never injected: $(grep 'injected 0' "$tmp/out" | tr '\n' ' ')"
        elif [ "$h" = faults ] && ! grep -q '^faults: 0 form(s) or context(s) never used' "$tmp/out"; then
            fail "fuzz-replay-$h" "$(grep 'never used' "$tmp/out" | tr '\n' ' ')"
        else
            pass "fuzz-replay-$h"
        fi
    else
        fail "fuzz-replay-$h" "$(tail -c 600 "$tmp/out")"
    fi
    # A regression input reaches its bug through the heap layout of a fresh
    # process: after other inputs the same bytes may miss it (docs/fuzzing.md).
    for f in "$root/fuzz/regress/$h"/*; do
        [ -f "$f" ] || continue
        case $f in *.md) continue ;; esac
        r="fuzz-regress-$h/$(basename "$f")"
        if timeout 60 "$FZ/replay/$h" "$f" >"$tmp/out" 2>&1; then
            pass "$r"
        else
            fail "$r" "$(grep -m3 -E '^fuzz:|ERROR' "$tmp/out" | tr '\n' ' ')"
        fi
    done
done
[ "$mode" = replay ] && exit $bad

dict() { [ "$1" = options ] && echo "-dict=$root/fuzz/options.dict"; }
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
       AFL_FAST_CAL=1 AFL_NO_AFFINITY=1 AFL_SKIP_BIN_CHECK=0
# Each harness runs under libFuzzer and under AFL++ at the same time (one
# engine per core on a 2-core machine): half the wall time of one after the
# other, and the same fuzzing time for each.
for h in $names; do
    mkdir -p "$tmp/lf-$h" "$tmp/art-$h"
    # new inputs go to a scratch directory: the seed corpus stays as checked in
    timeout $((secs + 60)) "$FZ/lf/$h" -max_total_time="$secs" -timeout=20 \
        -artifact_prefix="$tmp/art-$h/" $(dict $h) "$tmp/lf-$h" "$root/fuzz/corpus/$h" \
        >"$tmp/lf-$h.log" 2>&1 &
    lf_pid=$!
    out="$tmp/afl-$h"
    timeout $((secs + 90)) afl-fuzz -V "$secs" -t 5000 -i "$root/fuzz/corpus/$h" -o "$out" \
        $( [ "$h" = options ] && echo "-x $root/fuzz/options.dict" ) -- "$FZ/afl/$h" \
        >"$tmp/afl-$h.log" 2>&1
    rc=$?
    wait "$lf_pid"; lf_rc=$?
    if [ $lf_rc -eq 0 ]; then
        pass "fuzz-libfuzzer-$h ($(grep -o 'Done [0-9]* runs' "$tmp/lf-$h.log" | tail -1))"
    else
        fail "fuzz-libfuzzer-$h" "$(grep -m3 -E 'fuzz:|ERROR|SUMMARY' "$tmp/lf-$h.log" | tr '\n' ' ') $(ls "$tmp/art-$h" | head -3)"
        # Keep what failed for replay-min.sh (the temporary directory goes).
        keep="$root/build/fuzz/lf-failed-$h"; rm -rf "$keep"; mkdir -p "$keep"
        cp -r "$tmp/art-$h/." "$tmp/lf-$h.log" "$keep/" 2>/dev/null
        echo "    kept in $keep: $(ls "$keep" | tr '\n' ' ')"
        tail -n 40 "$tmp/lf-$h.log" | sed 's/^/    | /'
    fi
    stats="$out/default/fuzzer_stats"
    crashes=$(ls "$out/default/crashes" 2>/dev/null | grep -vc README)
    if [ $rc -eq 0 ] && [ -f "$stats" ] && [ "$crashes" -eq 0 ]; then
        pass "fuzz-afl-$h ($(awk '/^execs_done/ {print $3}' "$stats") execs)"
    else
        fail "fuzz-afl-$h" "rc=$rc crashes=$crashes $(grep -m3 -E 'PROGRAM ABORT|ERROR|Location' "$tmp/afl-$h.log" | tr '\n' ' ')"
        [ "$crashes" -gt 0 ] && cp -r "$out/default/crashes" "$root/build/fuzz/afl-crashes-$h" 2>/dev/null
    fi
done
exit $bad
