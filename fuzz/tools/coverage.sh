#!/usr/bin/env bash
# coverage.sh FZDIR — `make fuzz-cov`: replay every corpus and regression
# input through the --coverage builds (FZDIR/cov/<harness>, whose
# libchunkguard.a is FZDIR/lib-cov), then print the line coverage of each
# src/*.c file and of src/ as a whole, from gcov.
set -eu
FZ=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
obj=$FZ/lib-cov/obj
find "$obj" -name '*.gcda' -delete
for h in ops-fast ops-debug ops-mt corrupt options; do
    dirs="$root/fuzz/corpus/$h"
    [ -d "$root/fuzz/regress/$h" ] && dirs="$dirs $root/fuzz/regress/$h"
    "$FZ/cov/$h" $dirs >/dev/null 2>&1 || { echo "fuzz-cov: $h failed on its corpus" >&2; exit 1; }
done
cd "$obj"
gcov -n -o . "$root"/src/*.c 2>/dev/null | awk -v root="$root/" '
    /^File / { f = $2; gsub(/\047/, "", f); sub(root, "", f) }
    /^Lines executed:/ && f ~ /^src\/.*\.c$/ {
        split($2, a, ":"); pct = a[2]; sub(/%/, "", pct); n = $4
        hit = pct * n / 100; H += hit; N += n
        printf "%-22s %6.2f%% of %5d lines\n", f, pct, n
        f = "" }
    END { printf "src/ line coverage: %.1f%% (%d of %d lines)\n", 100 * H / N, H + 0.5, N }'
