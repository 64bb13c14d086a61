#!/usr/bin/env bash
# 62-valgrind.sh — chunkguard under valgrind's memcheck (issue 13, point
# 19): with the client requests of src/base/vgclient.c memcheck knows
# chunkguard's blocks, so it reports a read after free, past a block, of
# a chunk header and a branch on a byte never written, with its own
# stacks, in a program that links libchunkguard.a and in one that
# preloads libchunkguard.so, in fast, debug and guard mode; a clean
# program, and python3, get no error.
#
# tests/valgrind/vgprog.c runs every case in one process (valgrind is
# slow to start), each after a line "vgprog: case NAME" on stderr, which
# cuts memcheck's log into one part per case.  Each bad case's part must
# hold its error: the kind, the access's first frame (peek, peek8 or
# branch_on: the function that made it), memcheck's description of the
# address (which block, how far, alloc'd or free'd) and a stack for the
# block that reaches main.  The clean case's part holds no error, and the
# error count is exactly one per bad case: chunkguard's own accesses to
# the memory it keeps from the program are never reported.  vgprog first
# checks that chunkguard serves it (a valgrind that replaced chunkguard's
# malloc would find the same bugs).  The command lines are README's
# ("Under valgrind").  About 5 s a run on an idle machine, 20 s python3's.
set -u
R=$CG_ROOT; B=$CG_BUILD/valgrind; SO=$CG_SO
mkdir -p "$B"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
command -v valgrind >/dev/null || { echo "FAIL valgrind-tool: valgrind is not installed (make deps)"; exit 1; }
make -s -C "$R" lib >/dev/null || { echo "FAIL valgrind-build: make lib"; exit 1; }
# -O1 keeps peek and branch_on as functions; -fno-builtin keeps the bad
# accesses as written.
CF=(-std=gnu11 -O1 -g -fno-builtin -fno-omit-frame-pointer -Wall -I"$R/include")
gcc "${CF[@]}" -o "$B/vgprog-so" "$R/tests/valgrind/vgprog.c" ||
    { echo "FAIL valgrind-build: vgprog (preload)"; exit 1; }
gcc "${CF[@]}" -o "$B/vgprog-a" "$R/tests/valgrind/vgprog.c" "$CG_BUILD/libchunkguard.a" -pthread ||
    { echo "FAIL valgrind-build: vgprog (libchunkguard.a)"; exit 1; }

# The documented command lines (README.md, "Under valgrind").  By default
# valgrind replaces the malloc of every library and of the executable.
# Preloaded: somalloc=NONE keeps it from the library, which has a soname
# (env sets LD_PRELOAD for the program, not for valgrind's launcher).
# Linked in: a synonym that names no library keeps it from the executable.
VG=(valgrind --num-callers=40 --error-limit=no)
VG_SO=("${VG[@]}" --soname-synonyms=somalloc=NONE --trace-children=yes env LD_PRELOAD="$SO")
VG_A=("${VG[@]}" --soname-synonyms=somalloc=nouserintercepts)

# vg LINK OPTS CMD...: CMD under valgrind (LINK a or so), progress on
# stderr; sets out, log, rc
vg() {
    local link=$1 opts=$2; shift 2
    echo "  valgrind ($link${opts:+, $opts}): $(head -c 60 <<<"$*" | tr '\n' ' ')" >&2
    if [ "$link" = so ]; then
        out=$(timeout 600 env CHUNKGUARD_OPTIONS="$opts" "${VG_SO[@]}" "$@" 2>"$tmp/log"); rc=$?
    else
        out=$(timeout 600 env CHUNKGUARD_OPTIONS="$opts" "${VG_A[@]}" "$@" 2>"$tmp/log"); rc=$?
    fi
    log=$(cat "$tmp/log")
}
# part NAME: the log between "vgprog: case NAME" and the next such line
part() { awk -v c="vgprog: case $1" '$0 == c { on = 1; next } /^vgprog: (case|end)/ { on = 0 } on' <<<"$log"; }
summary() { grep -Eo 'ERROR SUMMARY: [0-9]+ errors from [0-9]+ contexts' <<<"$log"; }
show() { grep -E '^==[0-9]+== (  [A-Z]|[A-Z]|  +(at|by) )' <<<"$1" | head -${2:-12} | cut -c1-150 | tr '\n' '|'; }

H='==[0-9]+== '
frames="(${H}   by [^\n]*\n)*"        # the rest of a stack
# first FUNCTION: the access's stack starts in FUNCTION (vgprog.c)
first() { echo "${H}   at 0x[0-9A-F]+: $1 \\(vgprog\\.c:[0-9]+\\)\n$frames"; }
to_main="(${H}   (at|by) [^\n]*\n)*${H}   by 0x[0-9A-F]+: main \\(vgprog\\.c:[0-9]+\\)"
blk() { echo "${H} Address 0x[0-9a-f]+ is $1 (recently re-allocated )?block of size $2 $3\n$to_main"; }
read_of() { echo "${H}Invalid read of size $1\n$(first "$2")"; }

# check TEST CASE PATTERN...: CASE's part of the log matches every
# PATTERN (grep -Pz: \n is a line break)
check() {
    local t=$1 c=$2; shift 2
    local p missing=""
    p=$(part "$c")
    for pat in "$@"; do grep -Pzq -- "$pat" <<<"$p" || missing="$missing [$pat]"; done
    if [ -z "$missing" ]; then echo "PASS $t"
    else echo "FAIL $t: missing$missing in: $(show "$p" 20)"; fi
}
# bad_cases PREFIX MODE: every bad case's error, the clean case clean,
# and the error count
bad_cases() {
    local t=$1 mode=$2 n=10
    if ! grep -qx "served by chunkguard" <<<"$out" || [ "$rc" != 0 ] ||
       ! grep -q '^vgprog: end' <<<"$log"; then
        echo "FAIL $t: rc=$rc out: $(head -c 200 <<<"$out") log: $(show "$log" 30)"
        return
    fi
    check "$t-uaf" uaf "$(read_of 1 peek)$(blk '8 bytes inside a' 40 "free'd")"
    check "$t-overflow" overflow "$(read_of 1 peek)$(blk '0 bytes after a' 56 "alloc'd")"
    check "$t-slack" slack "$(read_of 1 peek)$(blk '0 bytes after a' 20 "alloc'd")"
    # memcheck names the nearest described block: in fast mode the one
    # before, whose end is 8 bytes away (the header is no block's)
    if [ "$mode" = fast ]; then
        check "$t-header" header "$(read_of 8 peek8)${H} Address 0x[0-9a-f]+ is [0-9]+ bytes after a (recently re-allocated )?block of size 20 alloc'd"
    else
        check "$t-redzone" header "$(read_of 8 peek8)$(blk '8 bytes before a' 72 "alloc'd")"
    fi
    check "$t-uninit" uninit "${H}Conditional jump or move depends on uninitialised value\\(s\\)\n$(first branch_on)"
    check "$t-realloc-old" realloc-old "$(read_of 1 peek)$(blk '20 bytes inside a' 88 "free'd")"
    local how="in place"; [ "$mode" = fast ] || how="by a move"
    check "$t-shrunk" shrunk "vgprog: shrunk $how\n$(read_of 1 peek)$(blk '10 bytes after a' 900 "alloc'd")"
    check "$t-aligned" aligned "$(read_of 1 peek)$(blk '0 bytes after a' 500 "alloc'd")"
    check "$t-big" big "$(read_of 1 peek)$(blk '0 bytes after a' 300,000 "alloc'd")"
    check "$t-calloc-uaf" calloc-uaf "$(read_of 1 peek)$(blk '135 bytes inside a' 136 "free'd")"
    local p; p=$(part clean)
    if grep -qx 'clean: ok' <<<"$out" && ! grep -Eq "^${H}[A-Z]" <<<"$p"; then echo "PASS $t-clean"
    else echo "FAIL $t-clean: out: $(tail -1 <<<"$out") errors: $(show "$p" 20)"; fi
    if [ "$(summary)" = "ERROR SUMMARY: $n errors from $n contexts" ]; then echo "PASS $t-count"
    else echo "FAIL $t-count: $(summary) (expected $n: one per bad case)"; fi
}

echo "vgprog and python3 under valgrind (each run 5-20 s)" >&2
for link in a so; do
    vg $link "" "$B/vgprog-$link" all
    bad_cases "vg-$link-fast" fast
    vg $link "mode=debug:guard_sample=0:guard_big=0" "$B/vgprog-$link" all
    bad_cases "vg-$link-debug" debug
done
# Guard mode: every block a guarded one, ending at a guard page.  Clean,
# no error; a read after free faults on the sealed pages, and memcheck
# reports the read before chunkguard's report ends the process.
vg so mode=guard "$B/vgprog-so" clean
if [ "$rc" = 0 ] && grep -qx 'clean: ok' <<<"$out" &&
   [ "$(summary)" = "ERROR SUMMARY: 0 errors from 0 contexts" ]; then echo "PASS vg-so-guard-clean"
else echo "FAIL vg-so-guard-clean: rc=$rc out: $(tail -1 <<<"$out") $(summary) log: $(show "$log" 20)"; fi
vg so mode=guard "$B/vgprog-so" uaf
if [ "$rc" = 134 ] && grep -q 'ERROR: chunkguard: heap-use-after-free' <<<"$log"; then
    check vg-so-guard-uaf uaf "$(read_of 1 peek)$(blk '8 bytes inside a' 40 "free'd")"
else echo "FAIL vg-so-guard-uaf: rc=$rc (expected chunkguard's report, SIGABRT) log: $(show "$log" 20)"; fi
# A report that ends the process (its SIGABRT handler runs the program's
# code), or whose callback jumps out, leaves memcheck's error reporting
# on: chunkguard turns it off while it reads the program's memory, and
# the handler's or the jumped-to code's read after free must still be
# memcheck's error.
for link in a so; do
    vg $link "" "$B/vgprog-$link" abort-then-uaf
    if [ "$rc" = 7 ] && grep -q 'ERROR: chunkguard: double-free' <<<"$log"; then
        check vg-$link-abort-then-uaf abort-then-uaf "$(read_of 1 peek)"
    else echo "FAIL vg-$link-abort-then-uaf: rc=$rc (expected chunkguard's report, then the handler's exit 7) log: $(show "$log" 20)"; fi
    vg $link "" "$B/vgprog-$link" jump-then-uaf
    if [ "$rc" = 0 ] && grep -q 'ERROR: chunkguard: double-free' <<<"$log"; then
        check vg-$link-jump-then-uaf jump-then-uaf "$(read_of 1 peek)"
    else echo "FAIL vg-$link-jump-then-uaf: rc=$rc (expected chunkguard's report, exit 0) log: $(show "$log" 20)"; fi
done

# python3, preloaded (Debian's: /usr/bin's, not a wrapper script, which
# valgrind would run too): start-up, imports, a dict, json, a sort; in
# fast and debug mode.  Short: python3 runs about 50 times slower here.
PY='import json, re
d = {str(i): [i] * (i % 7) for i in range(3000)}
s = json.dumps(d)
assert json.loads(s) == d
l = sorted(re.findall(r"[0-9]+", s), key=len)
print("python ok", len(l))'
# The statistics file says chunkguard served python3's allocations.
for mode in fast debug; do
    opts=stats_path=$tmp/stats-$mode; [ $mode = debug ] && opts="$opts:mode=debug"
    vg so "$opts" /usr/bin/python3 -c "$PY"
    mallocs=$(sed -n 's/.* mallocs=\([0-9]*\) .*/\1/p' "$tmp/stats-$mode" 2>/dev/null)
    if [ "$rc" = 0 ] && grep -q '^python ok' <<<"$out" && [ "${mallocs:-0}" -ge 10000 ] &&
       [ "$(summary)" = "ERROR SUMMARY: 0 errors from 0 contexts" ]; then echo "PASS vg-python3-$mode"
    else echo "FAIL vg-python3-$mode: rc=$rc out: $out mallocs served: ${mallocs:-none} $(summary) log: $(show "$log" 30)"; fi
done
exit 0
