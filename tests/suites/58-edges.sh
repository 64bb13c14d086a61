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
#   - debug mode's metadata mappings sit between guard pages: a write into
#     the guard page after a shadow record slab or a stack depot chunk is a
#     wild access into chunkguard's metadata, and one past a big block the
#     kernel mapped right below a metadata mapping is heap-buffer-overflow
#     of that block.
# Every test first checks that the memory it is about to touch is
# inaccessible (edges.c exits 2 otherwise), so a library without the
# protection fails each of them.
# covers checks.def: FAULT_OVERFLOW FAULT_WILD
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

run "$DBG:quarantine_mb=1" meta 262144
expect edges-debug-shadow-slab-guard segv "guard page after a metadata mapping" \
    "a wild access into chunkguard's metadata" "in the guard page after one of chunkguard's metadata mappings" \
    "$W1" "$AT"
run "$DBG:quarantine_mb=1" meta 1048576
expect edges-debug-stack-depot-guard segv "guard page after a metadata mapping" \
    "a wild access into chunkguard's metadata" "in the guard page after one of chunkguard's metadata mappings" \
    "$W1" "$AT"
run "$DBG:quarantine_mb=1" big-below
expect edges-debug-big-block-below-guard heap-buffer-overflow "big block below a guard page" \
    'past the 200000-byte mmap.d block at 0x' "in the guard page before one of chunkguard's metadata mappings" \
    'is [0-9]+ bytes past the end of a 200000-byte region' 'in alloc_here' "$W1" "$AT"
exit 0
