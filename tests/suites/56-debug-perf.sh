#!/usr/bin/env bash
# 56-debug-perf.sh — what debug mode's speed-ups must not cost in
# detection or in the truth of its reports:
#   debug-pattern-scan      the vector pattern scan (src/debug/pattern.c), which finds
#                           redzone overflows and writes after free, against a
#                           byte-by-byte reference at every length, alignment
#                           and offset; a build that skips the bytes after the
#                           last whole stride must fail it
#   debug-stack-memo-stale  a stack memo (src/debug/stackmemo.c) made for one caller
#                           is not used for another that reaches the same frame
#                           address (tests/debug/memo_test.c); a library built
#                           without the memo's stack-word check must fail it,
#                           also with every key in one set of the memo table
#                           (two keys of a loop sharing a set both keep their
#                           memo: a direct-mapped table lost both)
#   debug-fork-huge-pages   24 MiB of small blocks freed into the quarantine are
#                           resident in huge pages (huge_pages=1, when the kernel's
#                           THP setting allows them; a fork copies a page-table
#                           entry per resident page: issue 13, point 2), and in
#                           4 KiB pages with huge_pages=0; a write after free into
#                           a block of such a page is still found, at exit and in
#                           a forked child's _exit (tests/debug/fork_pages.c);
#                           -tail: at most 1.75 MiB of the chunk space is ever
#                           in 4 KiB pages (the top's range is collapsed early);
#                           -records: the blocks' records are in a huge page
#   fork-child-faults       a fork child that _exits at once (bench/forkcost.c
#                           churn: the fork storm's main loop, issue 13 point 2)
#                           takes at most 4 page faults more than under glibc,
#                           in debug and in fast mode: every page of ours the
#                           fork handlers and _exit write is a copied page, and
#                           every 64 KiB window of code or libc they run (the
#                           clock's read: libc, the vDSO and its data) a fault
#                           of its own (docs/performance.md, "storm20")
set -u
R=$CG_ROOT; B=$CG_BUILD/debug; SO=$CG_SO
mkdir -p "$B"
build() {   # build OUT EXTRA-FLAGS...
    local out=$1; shift
    gcc -std=gnu11 -O2 -g -Wall -Wextra -I"$R/src/debug" -I"$R/src/base" "$@" -o "$out" \
        "$R/tests/debug/pattern_test.c" "$R/src/debug/pattern.c"
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

# The stack memo, in a program without frame pointers and in one with
# them (whose %rbp slots the memo compares too).  -fno-ipa-icf keeps via_a
# and via_b two functions.
memo_run() {   # memo_run SO PROG [OPTS]: sets err, rc, alloc (the "previously allocated" stack)
    err=$(CHUNKGUARD_OPTIONS=mode=debug:stack_depth=16${3:+:$3} LD_PRELOAD="$1" timeout 60 \
          "$2" 2>&1 >/dev/null); rc=$?
    alloc=$(sed -n '/^previously allocated/,/^$/p' <<<"$err")
}
for fp in omit keep; do
    flag=-fomit-frame-pointer; [ $fp = keep ] && flag=-fno-omit-frame-pointer
    if ! gcc -O2 -g $flag -fno-ipa-icf -fno-inline -o "$B/memo_test_$fp" "$R/tests/debug/memo_test.c"; then
        echo "FAIL debug-stack-memo-stale-fp-$fp: cannot build"; continue
    fi
    memo_run "$SO" "$B/memo_test_$fp"
    if [ $rc = 134 ] && grep -q 'in via_b ' <<<"$alloc" && ! grep -q 'in via_a ' <<<"$alloc" &&
       grep -q 'in main ' <<<"$alloc"; then echo "PASS debug-stack-memo-stale-fp-$fp"
    else echo "FAIL debug-stack-memo-stale-fp-$fp: rc=$rc allocation stack: $(head -c 600 <<<"$alloc") $(head -c 300 <<<"$err")"; fi
done
# The mutant is caught only where the memo of via_a's allocation is used
# for via_b's.  The table is keyed by addresses (ASLR moves them every
# run) and guard_sample draws which blocks go to a guard slot (a per-process
# random seed; a sampled block's capture has keys of its own), so both are
# taken out of the draw: guard_sample=0, and with every key in one set
# ("set0", -DCG_STACK_MEMO_SET_BITS=0) the malloc's key and the free's
# share a set on every run.  The direct-mapped table before sets gave each
# key one entry: where the malloc's and the free's landed on one (1 run in
# 1000 at 1024 entries; every run at one entry) they evicted each other
# before either was filled, the memo was never used, and this test failed.
for kind in noverify set0; do
    MB=$CG_BUILD/memo-$kind
    defs=-DCG_STACK_MEMO_VERIFY=0; [ $kind = set0 ] && defs="$defs -DCG_STACK_MEMO_SET_BITS=0"
    name=debug-stack-memo-stale-mutant-caught; [ $kind = set0 ] && name=debug-stack-memo-one-set-mutant-caught
    # CG_REUSE: only the files the switch reaches are compiled (Makefile)
    if make -s -C "$R" BUILD="$MB" CG_DEFS="$defs" CG_REUSE="$CG_BUILD" \
            "$MB/libchunkguard.so" >/dev/null 2>&1; then
        memo_run "$MB/libchunkguard.so" "$B/memo_test_omit" guard_sample=0
        if [ $rc = 134 ] && grep -q 'in via_a ' <<<"$alloc"; then
            echo "PASS $name"
        else echo "FAIL $name: the unchecked memo gave: $(head -c 400 <<<"$alloc")"; fi
    else echo "FAIL $name: cannot build the mutant library"; fi
done

# The quarantine in huge pages.  Without THP ("never", or no THP at all)
# the first check says so and passes on the 4 KiB figures alone.
if gcc -O2 -g -o "$B/fork_pages" "$R/tests/debug/fork_pages.c"; then
    thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
    # guard_sample=0: a sampled block's freed pages fault at the write,
    # a right report but not the poison check at exit these tests are about
    fp() { CHUNKGUARD_OPTIONS=mode=debug:guard_sample=0${1:+:$1} LD_PRELOAD="$SO" timeout 120 "$B/fork_pages" $2 2>&1; }
    on=$(fp "" pages); off=$(fp huge_pages=0 pages)
    hon=$(sed -n 's/.*huge_kb=\([0-9]*\).*/\1/p' <<<"$on"); hoff=$(sed -n 's/.*huge_kb=\([0-9]*\).*/\1/p' <<<"$off")
    if [[ "$thp" != *"[always]"* && "$thp" != *"[madvise]"* ]]; then
        if [ "${hon:-x}" = 0 ]; then echo "PASS debug-fork-huge-pages (THP off here: '$thp')"
        else echo "FAIL debug-fork-huge-pages: THP off ('$thp'), yet: $on"; fi
    elif [ -n "$hon" ] && [ "$hon" -ge 16384 ]; then echo "PASS debug-fork-huge-pages ($on)"
    else echo "FAIL debug-fork-huge-pages: the quarantine is not in huge pages: $on"; fi
    # "always" gives the kernel's own huge pages to whole free ranges
    if [[ "$thp" == *"[always]"* ]] || [ "${hoff:-x}" = 0 ]; then echo "PASS debug-fork-huge-pages-off ($off)"
    else echo "FAIL debug-fork-huge-pages-off: huge_pages=0 still gave huge pages: $off"; fi
    # The range the top ends in: collapsed once the top comes within 512
    # KiB of its end (heap.h, CG_HUGE_REACH), so at most 1.5 MiB of the
    # chunk space is ever in 4 KiB pages; the library before that change
    # kept up to the whole 2 MiB range in them.
    tl=$(fp "" tail); t4=$(sed -n 's/.*max_4k_kb=\([0-9]*\).*/\1/p' <<<"$tl")
    if [[ "$thp" != *"[always]"* && "$thp" != *"[madvise]"* ]]; then
        echo "PASS debug-fork-huge-pages-tail (THP off here: '$thp')"
    elif [ -n "$t4" ] && [ "$t4" -le 1792 ]; then echo "PASS debug-fork-huge-pages-tail ($tl)"
    else echo "FAIL debug-fork-huge-pages-tail: more than 1.75 MiB of 4 KiB pages at the top: $tl"; fi
    # The blocks' records (12,000 of them, 64 bytes each) are in a huge
    # page too (shadow.c: slabs in 2 MiB groups, collapsed at the second)
    mh=$(sed -n 's/.*meta_huge_kb=\([0-9]*\).*/\1/p' <<<"$tl")
    if [[ "$thp" != *"[always]"* && "$thp" != *"[madvise]"* ]]; then
        echo "PASS debug-fork-huge-pages-records (THP off here: '$thp')"
    elif [ -n "$mh" ] && [ "$mh" -ge 2048 ]; then echo "PASS debug-fork-huge-pages-records ($tl)"
    else echo "FAIL debug-fork-huge-pages-records: the records are not in huge pages: $tl"; fi
    out=$(fp "" uaf-old); rc=$?
    if [ $rc = 134 ] && grep -q 'ERROR: chunkguard: heap-use-after-free' <<<"$out" &&
       grep -q 'at offset 3 of a 16-byte block (found at exit)' <<<"$out"; then
        echo "PASS debug-fork-huge-pages-uaf-at-exit"
    else echo "FAIL debug-fork-huge-pages-uaf-at-exit: rc=$rc $(head -c 400 <<<"$out")"; fi
    out=$(fp "" uaf-child); rc=$?
    if [ $rc = 0 ] && grep -q 'ERROR: chunkguard: heap-use-after-free' <<<"$out" &&
       grep -q 'at offset 7 of a 100-byte block' <<<"$out"; then
        echo "PASS debug-fork-huge-pages-uaf-in-child"
    else echo "FAIL debug-fork-huge-pages-uaf-in-child: rc=$rc $(head -c 400 <<<"$out")"; fi
else echo "FAIL debug-fork-huge-pages: cannot build"; fi

# fork-child-faults: minor faults a child, from getrusage (deterministic to
# about one fault: the stack's deepest page), against glibc's in the same
# program; the library before these changes gave +9 (fast) and +10 (debug)
if gcc -O1 -o "$B/forkcost" "$R/bench/forkcost.c"; then
    child_faults() {   # child_faults [OPTIONS]: the children's minor faults a fork
        if [ -z "${1:-}" ]; then "$B/forkcost" churn 0 200
        else CHUNKGUARD_OPTIONS=$1 LD_PRELOAD="$SO" "$B/forkcost" churn 0 200; fi |
            sed -n 's/.* child \([0-9.]*\)$/\1/p'
    }
    g=$(child_faults)
    for mode in fast debug; do
        c=$(child_faults mode=$mode)
        if [ -n "$g" ] && [ -n "$c" ] && awk -v c="$c" -v g="$g" 'BEGIN { exit !(c - g <= 4) }'; then
            echo "PASS fork-child-faults-$mode (child $c faults a fork, glibc $g)"
        else echo "FAIL fork-child-faults-$mode: child ${c:-?} faults a fork, glibc ${g:-?} (at most 4 more)"; fi
    done
else echo "FAIL fork-child-faults: cannot build bench/forkcost.c"; fi

# debug-guard-big-threshold: debug mode page-protects freed blocks
# (guard_big) only from the size where that costs less than the poison
# (docs/performance.md, "Where page protection pays": 128 KiB by default);
# a smaller block is a heap block, poisoned in the quarantine, unless
# guard_big asks for less (tests/debug/guard_big.c).  A library that still
# seals every block of a page or more (the 8 µs mmap + mprotect per block
# that made debug churn 4x ASan's) fails the first line.
if gcc -std=gnu11 -O2 -g -Wall -Wextra -o "$B/guard_big" "$R/tests/debug/guard_big.c"; then
    gb() {   # gb OPTIONS SIZE WANT
        local got
        got=$(CHUNKGUARD_OPTIONS=mode=debug:guard_sample=0$1 LD_PRELOAD="$SO" timeout 60 \
              "$B/guard_big" "$2" 2>&1)
        if [ "$got" = "$3" ]; then echo "PASS debug-guard-big-threshold-$2${1//[:=]/-} ($got)"
        else echo "FAIL debug-guard-big-threshold-$2${1//[:=]/-}: want $3, got: $(head -c 300 <<<"$got")"; fi
    }
    gb "" 5000 open
    gb "" 65536 open
    gb "" 131072 sealed
    gb "" 2097152 sealed
    gb :guard_big=1 5000 sealed           # 1: every block of a page or more, as before
    gb :guard_big=65536 65536 sealed
    gb :guard_big=65536 65535 open
    gb :guard_big=0 2097152 open          # off: an mmap'd debug block, poisoned
else echo "FAIL debug-guard-big-threshold: cannot build"; fi
