#!/usr/bin/env bash
# 58-edges.sh — the protected edges of chunkguard's memory (issue 12,
# point 5), in fast and debug mode (tests/edges/edges.c):
#   - the part of a heap above its top chunk is inaccessible: a write 1 MiB
#     past the last block faults and is reported as heap-buffer-overflow of
#     that block (debug mode: named from its shadow record, with its
#     allocation stack); 8 MiB past it, with no block within 1 MiB, as a
#     wild access;
#   - free, realloc and malloc_usable_size of a pointer into that part get
#     the usual invalid-pointer reports, not a crash;
#   - a heap that grows by 16 MiB and is trimmed gives the pages back
#     inaccessible, grows back over them with its contents and heap check
#     intact, and a write into a given-back page is reported;
#   - debug mode's metadata sits in one body between guard pages: a write
#     into the guard page before or after it is a wild access into
#     chunkguard's metadata, and one past a big block the kernel mapped
#     right below a metadata mapping is heap-buffer-overflow of that block;
#   - nothing accessible lies directly beside the heap or a big block (an
#     audit of /proc/self/maps), and the audit finds a seeded page of
#     metadata a test build maps right above the heap.
# Every test first checks that the memory it is about to touch is
# inaccessible (edges.c exits 2 otherwise), so a library without the
# protection fails each of them.
# covers checks.def: FAULT_OVERFLOW FAULT_WILD FAULT_STACK_OVERFLOW
set -u
R=$CG_ROOT; B=$CG_BUILD/edges; SO=$CG_SO
mkdir -p "$B"
make -s -C "$R" lib >/dev/null || { echo "FAIL edges-build: make lib"; exit 1; }
# -O1 keeps the helpers as real frames; -fno-builtin keeps the bad accesses.
gcc -O1 -g -fno-builtin -fno-omit-frame-pointer -Wall -o "$B/edges" "$R/tests/edges/edges.c" -ldl ||
    { echo "FAIL edges-build: edges"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
run() {   # run OPTS ARGS...: sets out, err, rc
    local opts=$1; shift
    out=$(timeout 60 env CHUNKGUARD_OPTIONS="$opts" LD_PRELOAD="$SO" "$B/edges" "$@" 2>"$tmp/err"); rc=$?
    err=$(cat "$tmp/err")
}
# expect NAME TOKEN SAID PATTERN...: SIGABRT, the report's first line with
# TOKEN (a fault's names the faulting pc too), stdout holding SAID (what
# edges.c checked before the access), and every PATTERN (grep -E) in the
# report
expect() {
    local name=$1 token=$2 said=$3; shift 3
    local first missing=""
    first=$(head -1 <<<"$err")
    grep -qF -- "$said" <<<"$out" || missing=" [stdout: $said]"
    for pat in "$@"; do grep -Eq -- "$pat" <<<"$err" || missing="$missing [$pat]"; done
    if [ "$rc" = 134 ] && [[ "$first" =~ ^==[0-9]+==ERROR:\ chunkguard:\ $token\ on\ address\ 0x[0-9a-f]+(\ at\ pc\ 0x[0-9a-f]+)?( \[thread\ T[0-9]+\])?$ ]] &&
       [ -z "$missing" ]; then echo "PASS $name"
    else echo "FAIL $name: rc=$rc missing:$missing out: $(tr '\n' '|' <<<"$out" | head -c 200) report: $(head -c 600 <<<"$err")"; fi
}

ABOVE="above the top: inaccessible"
# the faulting access, from the signal's context, and its stack's first frame
W1='WRITE of size 1 at 0x' AT='#0 0x[0-9a-f]+ in write_here'
# debug mode samples blocks into guard slots and guards its big blocks
# (issue 12's points 2 and 4): the blocks here are debug blocks
DBG="mode=debug:guard_sample=0:guard_big=0"
for mode in fast debug; do
    opts=; [ $mode = debug ] && opts="$DBG:quarantine_mb=1"
    run "$opts" overflow 1048576
    if [ $mode = fast ]; then
        expect edges-fast-overflow-1m heap-buffer-overflow "past the top: inaccessible" \
            'just past a block' '[0-9]+ bytes past the 104-byte block at 0x' \
            'in the unused part of a chunkguard heap, above its top chunk' "$W1" "$AT"
    else
        expect edges-debug-overflow-1m heap-buffer-overflow "past the top: inaccessible" \
            'just past a block' 'is [0-9]+ bytes past the end of a 100-byte region' \
            'previously allocated by thread T0' 'in alloc_here' "$W1" "$AT"
    fi
    run "$opts" overflow 8388608
    expect edges-$mode-overflow-8m segv "past the top: inaccessible" \
        "a wild access into chunkguard's metadata" 'in the unused part of a chunkguard heap' \
        "$W1" "$AT"
    run "$opts" free
    expect edges-$mode-free-above-top invalid-free "$ABOVE" \
        'free\(\): the pointer is inside a chunkguard heap but in no block'
    run "$opts" realloc
    expect edges-$mode-realloc-above-top invalid-free "$ABOVE" \
        'realloc\(\): the pointer is inside a chunkguard heap but in no block'
    run "$opts" usable
    if [ $mode = fast ]; then
        expect edges-fast-usable-above-top invalid-pointer "$ABOVE" \
            'malloc_usable_size\(\): the pointer is inside a chunkguard heap but in no block'
    else
        expect edges-debug-usable-above-top invalid-pointer "$ABOVE" \
            'malloc_usable_size\(\): the pointer is not a block of ours'
    fi
    # the quarantine would keep the freed blocks (and so the heap) in use
    run "${opts:+$DBG:quarantine_mb=0}" grow-trim
    expect edges-$mode-grow-trim segv "trimmed again: inaccessible" \
        "a wild access into chunkguard's metadata" 'in the unused part of a chunkguard heap' \
        "$W1" "$AT"
    grep -qF "grown back: readable, contents kept, heap check clean" <<<"$out" &&
        echo "PASS edges-$mode-grow-trim-grows-back" ||
        echo "FAIL edges-$mode-grow-trim-grows-back: out: $(tr '\n' '|' <<<"$out")"
done

# the metadata body (the shadow's records, the stack depot and memo, ...:
# one mapping between two guard pages, docs/proposals.md)
for w in before after; do
    run "$DBG:quarantine_mb=1" meta $w
    expect edges-debug-meta-body-guard-$w segv "guard page $w the metadata body" \
        "a wild access into chunkguard's metadata" "in the guard page $w one of chunkguard's metadata mappings" \
        "$W1" "$AT"
done
run "$DBG:quarantine_mb=1" big-below
expect edges-debug-big-block-below-guard heap-buffer-overflow "big block below a guard page" \
    "past the [0-9]+-byte mmap.d block at 0x" "in the guard page before one of chunkguard's metadata mappings" \
    'is [0-9]+ bytes past the end of a [0-9]+-byte region' 'in alloc_here' "$W1" "$AT"
# The layout rule itself (issue 12 point 5), read from /proc/self/maps:
# nothing accessible lies directly beside the heap or a big block, in
# fast and debug mode (default options: sampled slots, guarded big
# blocks).  Not with guard_big=0: an unguarded big block can then land
# beside any mapping, libunwind's own 256 KiB trace cache included.  The
# seeded bug: a test build maps a page of metadata right beside the heap
# (beside a big block when the heap's two sides are taken); the audit
# must name it.
TESTSO=$CG_BUILD/locks/test/libchunkguard.so
make -s -C "$R" BUILD="$CG_BUILD" locks-lib-test >/dev/null 2>&1 || echo "FAIL edges-build: locks-lib-test"
for opts in mode=fast mode=debug; do
    name=edges-audit-${opts#mode=}
    run "$opts" audit
    if [ $rc = 0 ] && grep -q '^audit: [0-9]* objects, 0 mappings beside them' <<<"$out"; then echo "PASS $name"
    else echo "FAIL $name: rc=$rc out: $(tr '\n' '|' <<<"$out" | head -c 400) $(head -c 300 <<<"$err")"; fi
    # Every page beside every object can be taken (mappings packed top
    # down: 2 runs in 300 in debug mode); the program then says
    # "missing: room" and exits 2, and a new run has a new layout.
    for try in 1 2 3; do
        out=$(timeout 60 env CHUNKGUARD_OPTIONS="$opts" LD_PRELOAD="$TESTSO" "$B/edges" audit seed 2>"$tmp/err"); rc=$?
        [ $rc = 2 ] && grep -q '^room for the seeded page' <<<"$out" || break
    done
    if [ $rc = 1 ] && grep -q '^seeded: ' <<<"$out" && grep -Eq '^beside (the heap|a big block) at .*: rw-p mapping' <<<"$out" &&
       grep -q '^audit: [0-9]* objects, 1 mappings beside them' <<<"$out"; then echo "PASS $name-finds-seeded-structure"
    else echo "FAIL $name-finds-seeded-structure: rc=$rc out: $(tr '\n' '|' <<<"$out" | head -c 400) $(head -c 300 "$tmp/err")"; fi
done
# Mappings (issue 13 point 2: a fork copies each; about 2 us of CPU a
# fork per mapping): debug mode adds at most 20 lines of /proc/self/maps
# to fast mode's after 1000 mallocs, and its forked child has as many.
# Where the 20 go: libunwind and liblzma, loaded when debug mode starts
# (11), the metadata body (its guard page, itself, and the inaccessible
# rest, which merges with the guard slots' reservation: 3), the main
# thread's signal stack and its guard page (2), and libunwind's own
# mmap'd caches (at most 4, fewer when they merge).  Before the body,
# every structure between guard pages of its own: 31 more than fast mode.
run "" maps; fast_maps=$(sed -n 's/^maps \([0-9]*\) child [0-9]*$/\1/p' <<<"$out")
run mode=debug maps; dbg_maps=$(sed -n 's/^maps \([0-9]*\) child [0-9]*$/\1/p' <<<"$out")
dbg_child=$(sed -n 's/^maps [0-9]* child \([0-9]*\)$/\1/p' <<<"$out")
if [ -n "$fast_maps" ] && [ -n "$dbg_maps" ] && [ "$dbg_maps" -le $((fast_maps + 20)) ] &&
   [ "$dbg_child" = "$dbg_maps" ]; then
    echo "PASS edges-debug-mappings-at-most-fast-plus-20 (fast $fast_maps, debug $dbg_maps, its child $dbg_child)"
else echo "FAIL edges-debug-mappings-at-most-fast-plus-20: fast $fast_maps, debug $dbg_maps, its child $dbg_child ($(head -c 300 <<<"$err"))"; fi
# A non-canonical pointer (x86-64: a general-protection fault, si_addr 0):
# the report must not claim address 0, nor guess the access kind.
gcc -O1 -g -fno-omit-frame-pointer -Wall -o "$B/noncanon" "$R/tests/edges/noncanon.c" ||
    echo "FAIL edges-build: noncanon"
if [ "$(uname -m)" = x86_64 ]; then
    for kind in read write; do
        out=$(timeout 60 env CHUNKGUARD_OPTIONS=mode=debug LD_PRELOAD="$SO" "$B/noncanon" $kind 2>"$tmp/err"); rc=$?
        err=$(cat "$tmp/err")
        if [ "$rc" = 139 ] && grep -q 'ERROR: chunkguard: segv on address <unknown>' <<<"$err" &&
           grep -q 'non-canonical' <<<"$err" && ! grep -q ' 0x0\b' <<<"$err" &&
           ! grep -Eq '^(READ|WRITE)' <<<"$err"; then
            echo "PASS edges-debug-noncanonical-$kind"
        else echo "FAIL edges-debug-noncanonical-$kind: rc=$rc report: $(head -c 600 <<<"$err")"; fi
    done
fi
# The stack's own edge (tests/edges/stack.c): unbounded recursion is a
# stack-overflow, not a wild access, on the main thread and on a thread
# (its guard page), in debug and guard mode, then the default action as
# for any fault of the program's own; and a report on a thread with a
# 16 KiB stack is written whole (its SUMMARY line), in every mode that
# reports it, whatever the thread's stack has left.
gcc -O1 -g -pthread -fno-builtin -fno-omit-frame-pointer -Wall -o "$B/stack" "$R/tests/edges/stack.c" ||
    echo "FAIL edges-build: stack"
srun() {   # srun OPTS ARGS...: sets out, err, rc
    local opts=$1; shift
    out=$(timeout 60 env CHUNKGUARD_OPTIONS="symbolize=0:$opts" LD_PRELOAD="$SO" "$B/stack" "$@" 2>"$tmp/err"); rc=$?
    err=$(cat "$tmp/err")
}
# sexpect NAME RC TOKEN FUNC PATTERN...: exit status RC, exactly one
# report, its first line TOKEN's, its stack naming FUNC, its SUMMARY line
# written, and every PATTERN (grep -E) in it
sexpect() {
    local name=$1 want=$2 token=$3 func=$4; shift 4
    local first missing="" nrep
    first=$(head -1 <<<"$err"); nrep=$(grep -c 'ERROR: chunkguard' <<<"$err")
    grep -Eq "#[0-9]+ 0x[0-9a-f]+ in $func" <<<"$err" || missing=" [in $func]"
    grep -q "^SUMMARY: chunkguard: $token in " <<<"$err" || missing="$missing [SUMMARY]"
    for pat in "$@"; do grep -Eq -- "$pat" <<<"$err" || missing="$missing [$pat]"; done
    if [ "$rc" = "$want" ] && [ "$nrep" = 1 ] &&
       [[ "$first" =~ ^==[0-9]+==ERROR:\ chunkguard:\ $token\ on\ address\ 0x[0-9a-f]+(\ at\ pc\ 0x[0-9a-f]+)?( \[thread\ T[0-9]+\])?$ ]] &&
       [ -z "$missing" ]; then echo "PASS $name"
    else echo "FAIL $name: rc=$rc reports=$nrep missing:$missing out: $(tr '\n' '|' <<<"$out" | head -c 200) report: $(head -c 700 <<<"$err")"; fi
}
SOVF='the program.s stack is exhausted'
for mode in debug guard; do
    opts=mode=$mode; [ $mode = debug ] && opts=$DBG
    srun "$opts" overflow main
    sexpect edges-$mode-stack-overflow-main 139 stack-overflow recurse "$SOVF" 'thread T0$' \
        '0x[0-9a-f]+ is (at|[0-9]+ bytes (below|above)) the stack pointer' 'in no mapping: below the end of the stack'
    srun "$opts" overflow thread
    sexpect edges-$mode-stack-overflow-thread 139 stack-overflow recurse "$SOVF" 'thread T1$' \
        '0x[0-9a-f]+ is (at|[0-9]+ bytes (below|above)) the stack pointer' \
        "in the guard region \\[0x[0-9a-f]+, 0x[0-9a-f]+\\) below this thread's stack"
    srun "$opts" small recursion
    sexpect edges-$mode-stack-overflow-16k-thread 139 stack-overflow recurse "$SOVF" 'thread T1$'
    # a thread that never calls chunkguard: its signal stack is the
    # pthread_create hook's (entry/interpose.c)
    srun "$opts" overflow bare
    sexpect edges-$mode-stack-overflow-bare-thread 139 stack-overflow recurse "$SOVF" \
        "in the guard region \\[0x[0-9a-f]+, 0x[0-9a-f]+\\) below this thread's stack"
    # a thread that installs its own signal stack keeps it (the report
    # runs on it)
    srun "$opts" overflow own-alt
    if grep -qx 'own altstack kept' <<<"$out"; then
        sexpect edges-$mode-stack-overflow-own-altstack 139 stack-overflow recurse "$SOVF"
    else echo "FAIL edges-$mode-stack-overflow-own-altstack: the thread's own sigaltstack was replaced: $(tr '\n' '|' <<<"$out")"; fi
done
# the hook's signal stacks go with their threads: no mapping is left by
# threads that exit, whether they called malloc, installed their own
# sigaltstack (ours then unused), both or neither; and fast mode, which
# reports no fault of the program's, runs its threads as without us
for mode in fast debug guard; do
    opts=mode=$mode; [ $mode = debug ] && opts=$DBG
    srun "$opts" threads 200
    read -r word a b <<<"$(tail -1 <<<"$out")"
    if [ "$rc" = 0 ] && [ "$word" = maps ] && [ "$b" -le "$a" ] && ! grep -q lost <<<"$out" &&
       [ -z "$err" ]; then echo "PASS edges-$mode-thread-altstacks-freed (mappings $a, then $b)"
    else echo "FAIL edges-$mode-thread-altstacks-freed: rc=$rc out: $(tr '\n' '|' <<<"$out") err: $(head -c 300 <<<"$err")"; fi
done
srun mode=fast overflow bare
if [ "$rc" = 139 ] && [ -z "$err" ]; then echo "PASS edges-fast-stack-overflow-bare-thread-unreported"
else echo "FAIL edges-fast-stack-overflow-bare-thread-unreported: rc=$rc report: $(head -c 300 <<<"$err")"; fi
rm -f "$tmp/s.json"
srun "$DBG:report_path=$tmp/s.json" overflow thread
if python3 -c '
import json, sys
r = json.loads(open(sys.argv[1]).readline())
assert r["kind"] == "stack-overflow", r["kind"]
assert r["access"]["kind"] == "WRITE", r["access"]
' "$tmp/s.json" 2>"$tmp/py"; then echo "PASS edges-debug-stack-overflow-json"
else echo "FAIL edges-debug-stack-overflow-json: $(cat "$tmp/py") $(head -c 400 "$tmp/s.json" 2>/dev/null)"; fi
# a wild write into a stack's guard page far below the stack pointer
# stays a wild access
srun "$DBG" small guard-wild 65536
sexpect edges-debug-stack-guard-page-wild 139 segv guard_wild_here 'not chunkguard.s'
# reports on a 16 KiB thread stack
for mode in fast debug guard; do
    opts=mode=$mode; [ $mode = debug ] && opts=$DBG
    srun "$opts" small double-free
    sexpect edges-$mode-16k-thread-double-free 134 double-free double_free_here
done
for mode in debug guard; do
    opts=mode=$mode; [ $mode = debug ] && opts=$DBG
    srun "$opts" small overflow
    sexpect edges-$mode-16k-thread-overflow 134 heap-buffer-overflow overflow_here
    for k in wild wild-malloc deep-wild; do
        srun "$opts" small $k
        sexpect edges-$mode-16k-thread-$k 139 segv wild_here 'not in any mapping'
    done
done
exit 0
