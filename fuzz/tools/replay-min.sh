#!/usr/bin/env bash
# replay-min.sh HARNESS INPUT [NAME] — replay a crashing input through the
# plain build (build/fuzz/replay/HARNESS: the report and the harness's
# "fuzz:" line), minimize it with libFuzzer (-minimize_crash, 60 s), and
# keep the result as fuzz/regress/HARNESS/NAME, which `make fuzz-smoke`
# replays from then on.  Build first: make fuzz-build.  FZ=DIR: the
# harnesses of another build (an unfixed tree's, docs/fuzzing.md).
set -u
h=$1; in=$2; name=${3:-$(basename "$in")}
root=$(cd "$(dirname "$0")/../.." && pwd)
FZ=${FZ:-$root/build/fuzz}
echo "== replay ($FZ/replay/$h)"
"$FZ/replay/$h" "$in"; echo "exit status $?"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "== minimize ($FZ/lf/$h)"
"$FZ/lf/$h" -minimize_crash=1 -max_total_time=60 -exact_artifact_path="$tmp/min" "$in" \
    >"$tmp/log" 2>&1
[ -s "$tmp/min" ] || cp "$in" "$tmp/min"
mkdir -p "$root/fuzz/regress/$h"
cp "$tmp/min" "$root/fuzz/regress/$h/$name"
echo "kept $(wc -c <"$tmp/min") bytes as fuzz/regress/$h/$name"
