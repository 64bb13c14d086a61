#!/usr/bin/env bash
# recipes.sh LIB OUTDIR — the recipes of docs/fuzzing.md ("Your own
# program") run to their crash: examples/fuzz_example.c (debug mode, set
# by its cg_default_options) linked with LIB (a libchunkguard.a), fuzzed
# by libFuzzer and by AFL++ until the first crash.  Each engine must keep
# the crashing input (libFuzzer writes it from its deadly-signal handler,
# after chunkguard's report: that handler allocates, on a thread still
# inside the free that reported), and the kept input must give the report
# again when replayed.  The libFuzzer binary must also start without the
# sanitizer runtime's warning that it could not find the real sigaction.
# The seed has a 14-byte value: one inserted byte reaches the 15-byte
# value the example mishandles, so both engines crash within seconds; a
# fixed seed (afl-fuzz -s 1, libFuzzer -seed=1) makes them take the same
# steps to it every run (the time limits only stop a broken build).
# Prints "PASS fuzz-recipe-<what>" / "FAIL fuzz-recipe-<what>: why".
set -u
lib=$1; out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$out"; mkdir -p "$out/seeds"
printf 'a=b;key=0123456789abcd' >"$out/seeds/seed"
pass() { echo "PASS fuzz-recipe-$1"; }
fail() { echo "FAIL fuzz-recipe-$1: $2"; }
report='ERROR: chunkguard: heap-buffer-overflow'

# replayed NAME BIN INPUT — the kept input, run alone, gives the report
replayed() {
    ( timeout 60 "$2" "$3" >"$out/$1-replay.log" 2>&1; exit $? ) 2>/dev/null
    grep -q "$report" "$out/$1-replay.log"
}

# ---- libFuzzer: the command lines of docs/fuzzing.md
if ! clang -g -O1 -fsanitize=fuzzer "$root/examples/fuzz_example.c" "$lib" -pthread \
        -o "$out/lf-example" >"$out/lf-build.log" 2>&1; then
    fail libfuzzer-build "$(tail -c 300 "$out/lf-build.log")"
else
    mkdir -p "$out/lf-corpus" "$out/lf-art"
    cp "$out/seeds/seed" "$out/lf-corpus/"
    ( timeout 180 "$out/lf-example" -seed=1 -max_total_time=120 -rss_limit_mb=0 \
        -artifact_prefix="$out/lf-art/" "$out/lf-corpus" >"$out/lf.log" 2>&1; exit $? ) 2>/dev/null
    rc=$?
    art=$(ls "$out/lf-art" 2>/dev/null | grep '^crash-' | head -1)
    if [ -n "$art" ] && grep -q "$report" "$out/lf.log" && ! grep -q 'reentrant-call' "$out/lf.log" &&
       replayed lf "$out/lf-example" "$out/lf-art/$art"; then
        pass "libfuzzer-keeps-crash ($art)"
    else
        fail libfuzzer-keeps-crash "rc=$rc, artifact '${art:-none}': $(grep -m4 -E 'ERROR|reentrant|deadly|artifact|Test unit' "$out/lf.log" | tr '\n' '|')"
    fi
    if grep -q 'sigaction' "$out/lf.log"; then
        fail libfuzzer-no-sigaction-warning "$(grep -m1 sigaction "$out/lf.log")"
    else
        pass libfuzzer-no-sigaction-warning
    fi
fi

# ---- AFL++: afl-clang-fast, and a main that runs __AFL_LOOP (fuzz/driver.c)
if ! afl-clang-fast -g -O1 "$root/examples/fuzz_example.c" "$root/fuzz/driver.c" "$lib" -pthread \
        -o "$out/afl-example" >"$out/afl-build.log" 2>&1; then
    fail afl-build "$(tail -c 300 "$out/afl-build.log")"
else
    AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 AFL_FAST_CAL=1 \
    AFL_NO_AFFINITY=1 AFL_BENCH_UNTIL_CRASH=1 \
        timeout 200 afl-fuzz -s 1 -V 150 -t 5000 -i "$out/seeds" -o "$out/afl" -- "$out/afl-example" \
        >"$out/afl.log" 2>&1
    rc=$?
    crash=$(ls "$out/afl/default/crashes" 2>/dev/null | grep '^id:' | head -1)
    if [ -n "$crash" ] && replayed afl "$out/afl-example" "$out/afl/default/crashes/$crash"; then
        pass "afl-keeps-crash"
    else
        fail afl-keeps-crash "rc=$rc, crash '${crash:-none}': $(grep -m3 -E 'PROGRAM ABORT|ERROR|Location' "$out/afl.log" | tr '\n' '|') $(tail -c 200 "$out/afl-replay.log" 2>/dev/null)"
    fi
fi
exit 0
