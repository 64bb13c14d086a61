#!/usr/bin/env bash
# afl-parallel.sh BINARY SEEDS OUTDIR SECONDS JOBS — `make fuzz`: one AFL++
# main instance (-M) and JOBS-1 secondaries (-S) sharing OUTDIR for SECONDS,
# then a summary of execs, paths (corpus entries) and crashes per instance
# and in all.  Crashes stay in OUTDIR/<instance>/crashes; replay or
# minimize them with fuzz/tools/replay-min.sh.
set -u
bin=$1; seeds=$2; out=$3; secs=$4; jobs=$5
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1
dict=""
case "$bin" in */options) dict="-x $(dirname "$0")/../options.dict" ;; esac
mkdir -p "$out"
pids=()
for j in $(seq 0 $((jobs - 1))); do
    role="-S s$j"; [ "$j" = 0 ] && role="-M m0"
    afl-fuzz -V "$secs" -t 5000 $role -i "$seeds" -o "$out" $dict -- "$bin" \
        >"$out/log-$j.txt" 2>&1 &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
te=0; tp=0; tc=0
for s in "$out"/*/fuzzer_stats; do
    name=$(basename "$(dirname "$s")")
    e=$(awk '/^execs_done/ {print $3}' "$s"); p=$(awk '/^corpus_count/ {print $3}' "$s")
    c=$(awk '/^saved_crashes/ {print $3}' "$s")
    echo "fuzz: $name: $e execs, $p paths, $c crashes"
    te=$((te + e)); tp=$((tp + p)); tc=$((tc + c))
done
echo "fuzz: total: $te execs, $tp paths, $tc crashes ($out)"
[ "$tc" -eq 0 ]
