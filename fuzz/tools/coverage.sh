#!/usr/bin/env bash
# coverage.sh FZDIR — `make fuzz-cov`: replay every corpus and regression
# input through the --coverage builds (FZDIR/cov/<harness>, whose
# libchunkguard.a is FZDIR/lib-cov), then print the line coverage of each
# src/*.c file and of src/ as a whole, from gcov.
#
# The options harness runs second copies of src/options.c and
# src/tunables.c (FZDIR/cov/*-under-test.o, globals renamed: fuzz.mk); a
# line of those files counts as executed when the live library's copy or
# the harness's copy ran it (a per-line union of the two gcov listings;
# the denominator is the file's executable lines, once).
set -eu
FZ=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
obj=$FZ/lib-cov/obj
find "$obj" "$FZ/cov" -name '*.gcda' -delete
for h in ops-fast ops-debug ops-guard ops-mt corrupt faults options; do
    dirs="$root/fuzz/corpus/$h"
    [ -d "$root/fuzz/regress/$h" ] && dirs="$dirs $root/fuzz/regress/$h"
    "$FZ/cov/$h" $dirs >/dev/null 2>&1 || { echo "fuzz-cov: $h failed on its corpus" >&2; exit 1; }
done
cd "$root"
{
    for f in src/*/*.c; do
        gcov -t -o "$obj" "$f" 2>/dev/null || true
        u=$FZ/cov/$(basename "$f" .c)-under-test.o
        [ -f "$u" ] && { gcov -t -o "$u" "$f" 2>/dev/null || true; }
    done
} | awk '
    # gcov -t listings: "count:line:source"; count "-" is no code, "#####"
    # or "=====" never ran, digits (maybe with "*") ran.
    /^ *-: *0:Source:/ { split($0, a, "Source:"); f = a[2]; next }
    f !~ /^src\/.*\.c$/ { next }
    {
        c = $0; sub(/:.*/, "", c); gsub(/ /, "", c)
        l = $0; sub(/^[^:]*: */, "", l); sub(/:.*/, "", l)
        if (c == "-" || l == 0) next
        k = f SUBSEP l
        if (!(k in ex)) { ex[k] = 1; lines[f]++ }
        if (c ~ /^[0-9]/ && !(k in hit)) { hit[k] = 1; got[f]++ }
    }
    END {
        for (f in lines) {
            H += got[f]; N += lines[f]
            printf "%-22s %6.2f%% of %5d lines\n", f, 100 * got[f] / lines[f], lines[f] | "sort"
        }
        close("sort")
        printf "src/ line coverage: %.1f%% (%d of %d lines)\n", 100 * H / N, H, N
    }'
