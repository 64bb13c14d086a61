#!/usr/bin/env bash
# 56-debug-pattern.sh — debug mode's vector pattern scan (src/pattern.c),
# which finds redzone overflows and writes after free: against a byte-by-byte
# reference at every length, alignment and offset; and the same test on a
# build that skips the bytes after the last whole stride, which must fail.
set -u
R=$CG_ROOT; B=$CG_BUILD/debug
mkdir -p "$B"
build() {   # build OUT EXTRA-FLAGS...
    local out=$1; shift
    gcc -std=gnu11 -O2 -g -Wall -Wextra -I"$R/src" "$@" -o "$out" \
        "$R/tests/debug/pattern_test.c" "$R/src/pattern.c"
}
if build "$B/pattern_test"; then
    out=$(timeout 120 "$B/pattern_test"); rc=$?
    if [ $rc = 0 ] && [[ "$out" == ok* ]]; then echo "PASS debug-pattern-scan ($out checks)"
    else echo "FAIL debug-pattern-scan: rc=$rc $(head -c 300 <<<"$out")"; fi
else echo "FAIL debug-pattern-scan: cannot build"; fi
if build "$B/pattern_test_notail" -DCG_PATTERN_CHECK_TAIL=0; then
    out=$(timeout 120 "$B/pattern_test_notail"); rc=$?
    if [ $rc != 0 ] && [[ "$out" == mismatch* ]]; then echo "PASS debug-pattern-scan-mutant-caught"
    else echo "FAIL debug-pattern-scan-mutant-caught: the tail-skipping build passed (rc=$rc)"; fi
else echo "FAIL debug-pattern-scan-mutant-caught: cannot build"; fi
