#!/usr/bin/env bash
# 55-debug.sh — the instrumented mode (mode=debug): one buggy program per
# error kind and variant (tests/debug/bugs.c), each asserting the token, the
# signal, the wording that locates the bug, and that the report's stacks name
# the functions that allocated, freed and misused the block.
set -u
R=$CG_ROOT; B=$CG_BUILD/debug; SO=$CG_SO
mkdir -p "$B"
make -s -C "$R" lib >/dev/null || { echo "FAIL debug-build: make lib"; exit 1; }
# -O1 keeps the helper functions as real frames; -fno-builtin keeps the
# buggy memory operations the compiler could prove wrong or drop.
gcc -O1 -g -pthread -fno-builtin -fno-omit-frame-pointer -Wall -Wno-free-nonheap-object \
    -Wno-use-after-free -o "$B/bugs" "$R/tests/debug/bugs.c" ||
    { echo "FAIL debug-build: bugs"; exit 1; }
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# guard_sample=0: these are debug mode's own detectors; its sampled guard
# slots (a random 1 in 256 blocks, by default) are 58-guard's
# symbolize=0: no test here reads file:line (26-symbolize does), and a
# symbolizer run per report would add about a minute
OPTS="symbolize=0:mode=debug:quarantine_mb=1:guard_sample=0"
run() {   # run ARGS...: sets out, err, rc
    out=$(timeout 60 env CHUNKGUARD_OPTIONS="$OPTS${EXTRA:+:$EXTRA}" LD_PRELOAD="$SO" "$B/bugs" "$@" 2>"$tmp/err"); rc=$?
    err=$(cat "$tmp/err")
}
# expect NAME TOKEN PATTERN... : SIGABRT, first line with TOKEN, every
# PATTERN (grep -E) somewhere in the report
expect() {
    local name=$1 token=$2; shift 2
    local first; first=$(head -1 <<<"$err")
    local missing=""
    for pat in "$@"; do grep -Eq -- "$pat" <<<"$err" || missing="$missing [$pat]"; done
    if [ "$rc" = 134 ] && [[ "$first" =~ ^==[0-9]+==ERROR:\ chunkguard:\ $token\ on\ address\ 0x[0-9a-f]+\ \[thread\ T[0-9]+\]$ ]] &&
       [ -z "$missing" ] && grep -q "^SUMMARY: chunkguard: $token" <<<"$err"; then pass "$name"
    else fail "$name" "rc=$rc missing:$missing report: $(head -c 700 <<<"$err")"; fi
}

run ok; if [ $rc = 0 ] && [ "$out" = ok ] && [ -z "$err" ]; then pass debug-clean
else fail debug-clean "rc=$rc out=$out err=$(head -c 300 <<<"$err")"; fi

for n in 1 16; do
    run overflow $n
    expect debug-overflow-$n heap-buffer-overflow "$n bytes past a 40-byte region" \
        'found 41' 'in free_here' 'previously allocated by thread T0' 'in alloc_here'
done
run overflow 4096
expect debug-overflow-4096 heap-buffer-overflow "past a 40-byte region" 'in alloc_here'
run overflow-next 4096
expect debug-overflow-4096-next heap-buffer-overflow "past a 40-byte region" 'in alloc_here'
# a block never freed: its redzones are checked at exit
run overflow-live 1
expect debug-overflow-live-at-exit heap-buffer-overflow "1 bytes past a 40-byte region" \
    'found at exit' 'previously allocated by thread T0' 'in alloc_here'
# ... also once the program's threads have ended (glibc never calls a
# process single-threaded again after its first thread)
run overflow-live-joined 1
expect debug-overflow-live-at-exit-after-threads heap-buffer-overflow \
    "1 bytes past a 40-byte region" 'found at exit' 'in alloc_here'
run underflow
expect debug-underflow heap-buffer-overflow "before a 40-byte region" 'in free_here' 'in alloc_here'
# a wild write into the top chunk's header, found when the top serves a
# request: the whole stack of that call, and the block just below the
# damage with its allocation stack (issue 13, point 12)
run top-wild
expect debug-top-wild heap-corruption "malloc\(\): the top chunk's size" '#0 0x[0-9a-f]+ in alloc_here' \
    '#1 0x[0-9a-f]+ in main' 'bytes past the end of a 40-byte region' 'previously allocated by thread T0 here'
run header
expect debug-header heap-corruption 'header was overwritten' '\[\+8\]' 'in alloc_here'

for s in 24 100 2000; do
    run uaf-write $s
    expect debug-uaf-write-$s heap-use-after-free "at offset 5 of a $s-byte block" \
        'freed by thread T0 here' 'in free_here' 'previously allocated by thread T0' 'in alloc_here'
done
# a block of a page or more is on pages of its own (guard_big=1, the
# default): the write after free faults at the write; with guard_big=0 it
# is poisoned and found when it leaves the quarantine, as the small ones
EXTRA=guard_big=0 run uaf-write 200000
expect debug-uaf-write-200000-guard-big-0 heap-use-after-free "at offset 5 of a 200000-byte block" \
    'freed by thread T0 here' 'in free_here' 'previously allocated by thread T0' 'in alloc_here'
run uaf-write 200000
if [ $rc = 134 ] && grep -Eq '^==[0-9]+==ERROR: chunkguard: heap-use-after-free on address 0x[0-9a-f]+ at pc 0x' <<<"$err" &&
   grep -Eq '^WRITE of size [0-9]+ at 0x' <<<"$err" && grep -q '5 bytes inside a 200000-byte freed region' <<<"$err" &&
   grep -q 'on guard pages of its own' <<<"$err" && grep -q 'in free_here' <<<"$err" &&
   grep -q 'in alloc_here' <<<"$err"; then pass debug-uaf-write-200000-faults-at-the-write
else fail debug-uaf-write-200000-faults-at-the-write "rc=$rc $(head -c 700 <<<"$err")"; fi
# poison_bytes: only the first bytes of a freed block are poisoned and
# checked; a write past them goes unseen (the documented price), and a
# double free is still exact with no poison at all.
EXTRA=poison_bytes=16 run uaf-write 2000 5
expect debug-poison-bytes-16-sees-offset-5 heap-use-after-free "at offset 5 of a 2000-byte block"
EXTRA=poison_bytes=16 run uaf-write 2000 100
if [ $rc = 0 ] && [ -z "$err" ]; then pass debug-poison-bytes-16-blind-past-16
else fail debug-poison-bytes-16-blind-past-16 "rc=$rc $(head -c 300 <<<"$err")"; fi
run uaf-write 2000 100
expect debug-poison-whole-block-sees-offset-100 heap-use-after-free "at offset 100 of a 2000-byte block"
EXTRA=poison_bytes=0 run double-free 100
expect debug-poison-bytes-0-double-free double-free 'already freed'

for s in 24 100 2000 200000; do
    run double-free $s
    expect debug-double-free-$s double-free 'already freed' 'freed by thread T0 here' \
        'in free_here' 'in alloc_here'
done
# Debug mode's record hint (the first 4 bytes of the leading redzone,
# shadow.h) is checked against the record: another block's hint or a wild
# one is an underflow of the block, reported as such, never a free of the
# other block or a crash.
for h in forged wild; do
    run hint-$h
    expect debug-hint-$h heap-buffer-overflow '16 bytes before a 40-byte region' \
        'record hint' 'in free_here' 'in alloc_here'
done
# A block that has left the quarantine waits, still poisoned and marked
# freed, in its thread's cache of released chunks (reuse.h) until reused:
# a second free of it is an exact double free with both stacks, and a
# write to it is found at exit.
run double-free-after-quarantine
expect debug-double-free-after-quarantine double-free 'already freed' 'freed by thread T0 here' \
    'in free_here' 'previously allocated by thread T0' 'in alloc_here'
run uaf-after-quarantine
expect debug-uaf-after-quarantine-at-exit heap-use-after-free 'at offset 5 of a 100-byte block' \
    'found at exit' 'freed by thread T0 here' 'in alloc_here'
# Whole stacks, not the call site alone: frame #1 of each stack is main's.
run double-free 24
expect debug-stacks-have-callers double-free '#0 0x[0-9a-f]+ in free_here' \
    '#1 0x[0-9a-f]+ in main' '#0 0x[0-9a-f]+ in alloc_here'
[ "$(grep -c '#1 0x[0-9a-f]* in main' <<<"$err")" -ge 3 ] ||
    fail debug-stacks-have-callers-all "fewer than 3 stacks reach main: $(head -c 700 <<<"$err")"
# ... and in a program that links libchunkguard.a (cg_default_options).
if gcc -O1 -g -fno-builtin -I"$R/include" -o "$B/static_stack" "$R/tests/debug/static_stack.c" \
       "$CG_BUILD/libchunkguard.a" -pthread 2>"$tmp/err"; then
    out=$(timeout 60 "$B/static_stack" 2>"$tmp/err"); rc=$?; err=$(cat "$tmp/err")
    firsts=$(grep -A1 -E '^(    free\(\)|freed by|previously allocated)' <<<"$err" | grep -E '^    #0 ')
    if [ $rc = 134 ] && grep -q 'ERROR: chunkguard: double-free' <<<"$err" &&
       [ "$(grep -c . <<<"$firsts")" = 3 ] && ! grep -qv -E 'in (free_here|alloc_here|main) ' <<<"$firsts"; then
        pass debug-static-link-stacks-start-at-program
    else fail debug-static-link-stacks-start-at-program "rc=$rc first frames: $firsts $(head -c 600 <<<"$err")"; fi
else fail debug-static-link-stacks-start-at-program "cannot build: $(head -c 300 "$tmp/err")"; fi
# A fault inside the fault handler (its heap's header made unreadable) in a
# program that links libchunkguard.a: one line and SIGABRT, not a recursion
# through the alternate stack into a segv report on its guard page.
if gcc -O1 -g -fno-builtin -I"$R/include" -o "$B/static_nested_fault" \
       "$R/tests/debug/static_nested_fault.c" "$CG_BUILD/libchunkguard.a" -pthread 2>"$tmp/err"; then
    out=$(timeout 60 "$B/static_nested_fault" 2>"$tmp/err"); rc=$?; err=$(cat "$tmp/err")
    if [ $rc = 134 ] && [ -z "$out" ] && ! grep -q 'ERROR: chunkguard' <<<"$err" &&
       grep -qE '^==[0-9]+==chunkguard: a fault on 0x[0-9a-f]+ at pc 0x[0-9a-f]+ while handling a fault' <<<"$err"; then
        pass debug-static-link-nested-fault
    else fail debug-static-link-nested-fault "rc=$rc out=$out $(head -c 400 <<<"$err")"; fi
else fail debug-static-link-nested-fault "cannot build: $(head -c 300 "$tmp/err")"; fi
# chunkguard's own frames are dropped whether or not it handles SIGSEGV.
EXTRA=handle_segv=0 run double-free 24
expect debug-stacks-start-at-program double-free '#0 0x[0-9a-f]+ in free_here' \
    '#1 0x[0-9a-f]+ in main' '#0 0x[0-9a-f]+ in alloc_here'
if grep -q 'libchunkguard' <<<"$err"; then
    fail debug-stacks-no-own-frames "a stack shows chunkguard's own frames: $(head -c 700 <<<"$err")"
fi
run interior
expect debug-interior-free invalid-free '8 bytes inside a 40-byte region' 'in alloc_here'
run stack
expect debug-stack-free invalid-free "on this thread's stack"
run global
expect debug-global-free invalid-free 'in the writable data of .*/bugs \(a global or static variable\)'
run garbage
expect debug-garbage-free invalid-free 'not in any mapping of the process'

run realloc-freed
expect debug-realloc-freed double-free 'realloc of a block that was already freed' 'in alloc_here'
run usable-freed
expect debug-usable-freed invalid-pointer 'was freed' 'in alloc_here'

run usable 37
if [ $rc = 0 ] && [ "$out" = 37 ] && [ -z "$err" ]; then pass debug-usable-size
else fail debug-usable-size "rc=$rc out=$out err=$(head -c 300 <<<"$err")"; fi

# stack_depth=1: the call site only, and still a report
EXTRA=stack_depth=1 run double-free 100
expect debug-stack-depth-1 double-free 'already freed' 'bugs\+0x'
# stack_depth=1 with more call sites than a thread's memo of them holds
# (debug.c, capture_site): each stack still names its own site
EXTRA=stack_depth=1 run double-free-sites
expect debug-stack-depth-1-sites double-free 'already freed' \
    '#0 0x[0-9a-f]+ in free_site2 ' '#0 0x[0-9a-f]+ in alloc_site5 '
# quarantine_mb=0: nothing is held; a late double free is still caught by
# the core (the chunk is visibly free)
EXTRA=quarantine_mb=0 run double-free 100
if [ $rc = 134 ] && grep -q 'ERROR: chunkguard: double-free' <<<"$err"; then pass debug-no-quarantine
else fail debug-no-quarantine "rc=$rc $(head -c 300 <<<"$err")"; fi

# leaks: a reachability scan, not "unfreed at exit"
EXTRA=detect_leaks=1 run leak
if [ $rc = 23 ] && [ "$out" = ok ] &&
   grep -q '^==[0-9]*==ERROR: chunkguard: detected memory leaks' <<<"$err" &&
   grep -q 'Direct leak of 300000 byte(s) in 1 object(s)' <<<"$err" &&
   [ "$(grep -c 'Direct leak of 100 byte(s) in 1 object(s)' <<<"$err")" = 2 ] &&
   grep -q 'in lose_here' <<<"$err" && grep -q 'in lose_big_here' <<<"$err" &&
   ! grep -Eq 'Direct leak of (64|777) byte' <<<"$err" &&
   grep -q 'SUMMARY: chunkguard: 300200 byte(s) leaked in 3 allocation(s)' <<<"$err"; then
    pass debug-leaks-reachability
else fail debug-leaks-reachability "rc=$rc out=$out err=$(head -c 600 <<<"$err")"; fi
# the same groups as JSON, one object each, for CI
EXTRA=detect_leaks=1:report_path=$tmp/leaks.json run leak
if [ $rc = 23 ] && python3 - "$tmp/leaks.json" <<'PY'
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
assert all(o["kind"] == "memory-leak" and o["function"] == "exit" for o in objs), objs
assert all(o["address"] is None and o["block"] is None for o in objs), objs
got = sorted((o["size"], o["objects"]) for o in objs)
assert got == [(100, 1), (100, 1), (300000, 1)], got
for o in objs:
    assert o["message"] == "Direct leak of %d byte(s) in %d object(s)" % (o["size"], o["objects"])
    fns = [f["function"] for f in o["stacks"]["allocated"]["frames"]]
    assert "lose_here" in fns or "lose_big_here" in fns, fns
PY
then pass debug-leaks-json
else fail debug-leaks-json "rc=$rc $(head -c 300 "$tmp/leaks.json" 2>&1)"; fi
run leak
if [ $rc = 0 ] && [ -z "$err" ]; then pass debug-leaks-off-by-default
else fail debug-leaks-off-by-default "rc=$rc err=$(head -c 300 <<<"$err")"; fi

# faults (both modes): inside chunkguard's code, on its guard page, and a
# fault that is not ours, which must die exactly as without chunkguard
# covers checks.def: FAULT_INSIDE FAULT_GUARD
# guard_sample=0: these programs find chunkguard's structures from a block's
# address (its heap's header), which a block sampled to a guard slot has not
for mode in fast debug; do
    OPTS="mode=$mode:quarantine_mb=0:guard_sample=0"
    run wild-meta
    f=$(head -1 <<<"$err")
    if [ $rc = 134 ] && [[ "$f" =~ ERROR:\ chunkguard:\ segv\ on\ address ]] &&
       grep -q 'SIGSEGV inside chunkguard at .*libchunkguard.so+0x' <<<"$err"; then pass fault-$mode-inside
    else fail fault-$mode-inside "rc=$rc $(head -c 400 <<<"$err")"; fi
    # the same through a non-canonical pointer: x86-64 raises a general-
    # protection fault (SIGSEGV) or, through the stack or frame pointer, a
    # stack-segment fault (SIGBUS), and neither names the address; the
    # report must say it is unknown, not claim 0x0
    if [ "$(uname -m)" = x86_64 ]; then
        run wild-meta-noncanon
        f=$(head -1 <<<"$err")
        if [ $rc = 134 ] && grep -q 'ERROR: chunkguard: segv on address <unknown>' <<<"$f" &&
           grep -Eq 'SIG(SEGV|BUS) inside chunkguard at .*libchunkguard.so\+0x' <<<"$err" &&
           grep -q 'touching an unknown address' <<<"$err" && grep -q 'non-canonical' <<<"$err" &&
           ! grep -Eq '0x0([^0-9a-fx]|$)' <<<"$err"; then pass fault-$mode-inside-noncanonical
        else fail fault-$mode-inside-noncanonical "rc=$rc $(head -c 500 <<<"$err")"; fi
    fi
    run guard
    if [ $rc = 134 ] && grep -q 'ERROR: chunkguard: segv on address' <<<"$err" &&
       grep -q 'in the guard page before the first block' <<<"$err"; then pass fault-$mode-guard
    else fail fault-$mode-guard "rc=$rc $(head -c 400 <<<"$err")"; fi
    # a fault that is not ours dies by its signal as without chunkguard; in
    # debug mode after one segv report saying what the address is (issue 12)
    run null
    if [ $mode = fast ]; then reported=0; else reported=1; fi
    if [ $rc = 139 ] && [ "$(grep -c 'ERROR: chunkguard: segv on address 0x0 at pc' <<<"$err")" = $reported ]
    then pass fault-$mode-not-ours
    else fail fault-$mode-not-ours "rc=$rc $(head -c 400 <<<"$err")"; fi
done
OPTS="mode=fast:handle_segv=0"
run guard
if [ $rc = 139 ] && ! grep -q chunkguard <<<"$err"; then pass fault-handle-segv-off
else fail fault-handle-segv-off "rc=$rc $(head -c 300 <<<"$err")"; fi

# halt_on_error=0: the report, then the program goes on; the bad block is
# never handed out again (a second bad free is reported too)
OPTS="mode=debug:quarantine_mb=1:halt_on_error=0"
run double-free 100
if [ $rc = 0 ] && [ "$out" = survived ] && grep -q 'ERROR: chunkguard: double-free' <<<"$err"; then
    pass debug-halt-on-error-0
else fail debug-halt-on-error-0 "rc=$rc out=$out $(head -c 300 <<<"$err")"; fi
run overflow 16
if [ $rc = 0 ] && [ "$out" = survived ] && grep -q 'ERROR: chunkguard: heap-buffer-overflow' <<<"$err"; then
    pass debug-halt-on-error-0-overflow
else fail debug-halt-on-error-0-overflow "rc=$rc out=$out $(head -c 300 <<<"$err")"; fi

# JSON reports (report_path), read back with a real parser
json=$tmp/reports.%p.json
OPTS="mode=debug:quarantine_mb=1:report_path=$json:halt_on_error=0"
run double-free 100
EXTRA= run overflow 16
if python3 - "$tmp" <<'PY'
import glob, json, sys
objs = []
for f in sorted(glob.glob(sys.argv[1] + "/reports.*.json")):
    for line in open(f):
        objs.append(json.loads(line))
kinds = sorted(o["kind"] for o in objs)
assert kinds == ["double-free", "heap-buffer-overflow"], kinds
for o in objs:
    for k in ("kind", "address", "size", "offset", "thread", "pid", "message", "stacks", "function"):
        assert k in o, (k, o)
    assert isinstance(o["pid"], int) and o["thread"] == 0 and o["size"] in (100, 40), o
    assert o["address"].startswith("0x"), o
    for name, st in o["stacks"].items():
        assert name in ("where", "freed", "allocated"), name
        for fr in st["frames"]:
            assert set(fr) == {"pc", "module", "offset", "function", "file", "line", "inlined", "symbol",
                               "code_size", "code_offset"}, fr
    funcs = lambda s: [f["function"] for f in o["stacks"][s]["frames"]]
    assert "alloc_here" in funcs("allocated"), o
    assert "free_here" in funcs("where"), o
df = [o for o in objs if o["kind"] == "double-free"][0]
assert df["offset"] == 0 and "free_here" in [f["function"] for f in df["stacks"]["freed"]["frames"]]
ov = [o for o in objs if o["kind"] == "heap-buffer-overflow"][0]
assert ov["offset"] == 40, ov
PY
then pass debug-json-reports; else fail debug-json-reports "python3 rejected $(cat "$tmp"/reports.*.json | head -c 400)"; fi

# the API: a report callback, cg_describe
gcc -O1 -g -I"$R/include" -fno-builtin -Wno-use-after-free -o "$B/api" "$R/tests/debug/api.c" -ldl
out=$(CHUNKGUARD_OPTIONS=mode=debug LD_PRELOAD=$SO "$B/api" callback 2>/dev/null); rc=$?
if [ $rc = 0 ] && [ "$out" = "reports=2 kinds=double-free+ heap-buffer-overflow+ " ]; then pass api-report-callback
else fail api-report-callback "rc=$rc out=$out"; fi
out=$(CHUNKGUARD_OPTIONS=mode=debug LD_PRELOAD=$SO "$B/api" describe 2>&1); rc=$?
if [ $rc = 0 ] && grep -q 'is 8 bytes inside a 40-byte region .*, live, from malloc()' <<<"$out" &&
   grep -q 'a 100-byte region .*, freed (in the quarantine), from malloc()' <<<"$out" &&
   grep -q 'freed by thread T0 here' <<<"$out" && grep -q 'in main' <<<"$out" &&
   grep -q 'is not in any chunkguard heap' <<<"$out"; then pass api-describe-debug
else fail api-describe-debug "rc=$rc $(head -c 400 <<<"$out")"; fi
out=$(LD_PRELOAD=$SO "$B/api" describe 2>&1); rc=$?
if [ $rc = 0 ] && grep -q '8 bytes into the memory of the in-use (or cached) chunk' <<<"$out"; then
    pass api-describe-fast
else fail api-describe-fast "rc=$rc $(head -c 300 <<<"$out")"; fi

# Regressions found by the break test (tests/debug/regress/*.c)
RG=$R/tests/debug/regress
for f in ovf_size2 uaf_exit big_df leak_joined forky sigabrt leak_race race_free jmp_again; do
    gcc -O0 -g -fno-builtin -pthread -Wno-use-after-free -Wno-free-nonheap-object \
        -I"$R/include" -o "$B/rg_$f" "$RG/$f.c" -ldl 2>/dev/null || fail regress-build "$f"
done
rg() {   # rg OPTIONS PROGRAM ARGS...: sets out, err, rc
    local o=$1; shift
    out=$(timeout 120 env CHUNKGUARD_OPTIONS="symbolize=0:$o" LD_PRELOAD="$SO" "$B/rg_$1" "${@:2}" 2>"$tmp/err"); rc=$?
    err=$(cat "$tmp/err")
}
rg mode=debug ovf_size2
if [ $rc = 134 ] && grep -Eq 'ERROR: chunkguard: (heap-corruption|heap-buffer-overflow)' <<<"$err"; then
    pass regress-overflow-into-free-size
else fail regress-overflow-into-free-size "rc=$rc $(head -c 300 <<<"$err")"; fi
rg mode=debug uaf_exit
if [ $rc = 134 ] && grep -q 'ERROR: chunkguard: heap-use-after-free' <<<"$err" &&
   grep -q 'found at exit' <<<"$err"; then pass regress-uaf-checked-at-exit
else fail regress-uaf-checked-at-exit "rc=$rc $(head -c 300 <<<"$err")"; fi
rg mode=debug:quarantine_mb=0 big_df
if [ $rc = 134 ] && grep -q 'ERROR: chunkguard: double-free' <<<"$err"; then pass regress-big-double-free
else fail regress-big-double-free "rc=$rc $(head -c 300 <<<"$err")"; fi
rg mode=debug:detect_leaks=1 leak_joined
if [ $rc = 0 ] && [ -z "$err" ]; then pass regress-no-leak-from-thread-tls
else fail regress-no-leak-from-thread-tls "rc=$rc $(head -c 300 <<<"$err")"; fi
rg mode=debug forky 60 0 1 0
if [ $rc = 0 ]; then pass regress-fork-with-dlopen-thread
else fail regress-fork-with-dlopen-thread "rc=$rc (124: hang) $(head -c 300 <<<"$err")"; fi
rg mode=debug sigabrt
if [ $rc = 0 ]; then pass regress-report-after-caught-sigabrt
else fail regress-report-after-caught-sigabrt "rc=$rc (124: hang)"; fi
# A SIGABRT handler or the report callback that siglongjmps out of the
# report (test frameworks; issue 14): every later bug of the thread is
# reported (4 reports, each recovered from), the thread allocates on, and
# another thread's report afterwards does not wait for the first one's
# end (it took 2 s; 10 s with the callback, whose jump left the report
# lock held).  Each mode; bounded at 30 s.
for m in fast debug guard; do
  for how in abort callback; do
    out=$(timeout 30 env CHUNKGUARD_OPTIONS="symbolize=0:mode=$m" LD_PRELOAD="$SO" \
          "$B/rg_jmp_again" $how 2>&1); rc=$?
    n=$(grep -c 'ERROR: chunkguard: double-free' <<<"$out")
    if [ $rc = 0 ] && [ "$n" = 4 ] && grep -q '^recovered 3$' <<<"$out" &&
       ! grep -q 'free returned' <<<"$out" && grep -q '^done$' <<<"$out"; then
      pass regress-jump-out-$how-$m
    else fail regress-jump-out-$how-$m "rc=$rc reports=$n $(grep -v '^ ' <<<"$out" | head -c 300)"; fi
    out=$(timeout 30 env CHUNKGUARD_OPTIONS="symbolize=0:mode=$m" LD_PRELOAD="$SO" \
          "$B/rg_jmp_again" $how-thread 2>&1); rc=$?
    ms=$(sed -n 's/^worker recovered after \([0-9]*\) ms$/\1/p' <<<"$out")
    if [ $rc = 0 ] && [ -n "$ms" ] && [ "$ms" -lt 1000 ] && grep -q '^done$' <<<"$out"; then
      pass regress-jump-out-other-thread-$how-$m
    else fail regress-jump-out-other-thread-$how-$m "rc=$rc worker ${ms:-?} ms $(grep -v '^ ' <<<"$out" | head -c 300)"; fi
  done
done
# The same for guard mode's fault reports (written from the fault
# handler): each later fault reported, not "a fault while handling a fault".
out=$(timeout 30 env CHUNKGUARD_OPTIONS="symbolize=0:mode=guard" LD_PRELOAD="$SO" \
      "$B/rg_jmp_again" fault 2>&1); rc=$?
n=$(grep -c 'ERROR: chunkguard: heap-use-after-free' <<<"$out")
if [ $rc = 0 ] && [ "$n" = 4 ] && grep -q '^recovered 3$' <<<"$out" && grep -q '^done$' <<<"$out"; then
  pass regress-jump-out-fault-guard
else fail regress-jump-out-fault-guard "rc=$rc reports=$n $(grep -v '^ ' <<<"$out" | head -c 300)"; fi
# Threads still running at exit are stopped for the leak scan, and their
# stacks and registers scanned (issue 14, point 8): a block a running
# thread holds only in a register or on its stack, between its malloc and
# its store into g[] or between the exchange and its free, is no leak.
# Any report, a crash or a hang fails the run.  (Before the threads were
# stopped up to two such blocks were reported, and accepted here as the
# documented limit.)
bad=0
for i in 1 2 3 4 5; do
    # guard_sample=0: a sampled block freed under the scan is sealed, so
    # what only it pointed to looks leaked too (debug blocks stay readable)
    rg mode=debug:detect_leaks=1:quarantine_mb=0:guard_sample=0 leak_race 15000
    if [ $rc = 0 ] && ! grep -q chunkguard <<<"$err"; then continue; fi
    bad=$((bad + 1))
done
if [ $bad = 0 ]; then pass regress-leak-scan-with-threads-alive
else fail regress-leak-scan-with-threads-alive "$bad of 5 runs failed: rc=$rc $(head -c 300 <<<"$err")"; fi
# Before the fix about 1 run in 5 of the big size died of SIGSEGV, unreported
# (stack_depth=1 keeps the frees close together; the odds of 20 clean runs
# with the bug back are about 1 in 60).
bad=0
for i in $(seq 24); do
    n=300000; [ $i -gt 20 ] && n=100
    rg mode=debug:quarantine_mb=0:stack_depth=1 race_free $n
    { [ $rc = 134 ] && grep -q 'ERROR: chunkguard: double-free' <<<"$err"; } || bad=$((bad + 1))
done
if [ $bad = 0 ]; then pass regress-racing-frees-one-wins
else fail regress-racing-frees-one-wins "$bad of 12 runs failed: rc=$rc $(head -c 300 <<<"$err")"; fi

# Reports in hostile states (issue 13, points 13, 14, 16; tests/debug/hostile/).
H=$R/tests/debug/hostile
for f in misaligned small_altstack thread_first_free exec_block; do
    gcc -O1 -g -pthread -fno-builtin -fno-omit-frame-pointer -Wno-free-nonheap-object \
        -Wno-use-after-free -Wno-array-bounds -Wno-stringop-overflow \
        -o "$B/h_$f" "$H/$f.c" || fail hostile-build "$f"
done
hrun() {   # hrun OPTIONS PROGRAM ARGS...: sets out, err, rc
    local o=$1; shift
    out=$(timeout 60 env CHUNKGUARD_OPTIONS="symbolize=0:$o" LD_PRELOAD="$SO" "$B/h_$1" "${@:2}" 2>"$tmp/err"); rc=$?
    err=$(cat "$tmp/err")
}
# A report made with the stack pointer 8 bytes off (a hijacked return into
# a function that calls exit): the report is written whole, the process
# ends as the report says (before the fix: SIGSEGV in dl_iterate_phdr's
# movaps, no report).  The program's own line proves %rsp was misaligned.
# hostile_whole NAME RC TOKEN PATTERN...: exit status RC, one report of
# TOKEN with its SUMMARY line, every PATTERN in it, %rsp was off by 8
hostile_whole() {
    local name=$1 want=$2 token=$3; shift 3
    local missing=""
    for pat in "$@"; do grep -Eq -- "$pat" <<<"$err" || missing="$missing [$pat]"; done
    if [ "$rc" = "$want" ] && grep -q '^landed: rsp % 16 = 8$' <<<"$err" &&
       [ "$(grep -c "ERROR: chunkguard: $token" <<<"$err")" = 1 ] && [ -z "$missing" ]; then
        pass "$name"
    else fail "$name" "rc=$rc missing:$missing $(head -c 600 <<<"$err")"; fi
}
hrun mode=debug:guard_sample=0 misaligned exit-overflow
hostile_whole hostile-misaligned-exit-report 134 heap-buffer-overflow 'found at exit' \
    'in main' '^SUMMARY: chunkguard: heap-buffer-overflow'
hrun mode=debug:guard_sample=0:detect_leaks=1 misaligned exit-leak
hostile_whole hostile-misaligned-exit-leak 23 'detected memory leaks' \
    'Direct leak of 40 byte\(s\) in 1 object' 'in main'
for mode in debug fast; do
    hrun mode=$mode:guard_sample=0 misaligned free
    hostile_whole hostile-misaligned-$mode-double-free 134 double-free 'in landed' \
        '^SUMMARY: chunkguard: double-free'
done
# A report begun in a signal handler with little of its alternate stack
# left (8 KiB, a guard page below): written whole, on a stack of its own
# (before the fix: the report ran off the stack into the guard page, and
# the process died of SIGSEGV mid-report).
for mode in debug fast; do
    hrun mode=$mode:guard_sample=0 small_altstack 8192
    if [ $rc = 134 ] && [ "$(grep -c 'ERROR: chunkguard: double-free' <<<"$err")" = 1 ] &&
       grep -q '^SUMMARY: chunkguard: double-free' <<<"$err" &&
       { [ $mode = fast ] || grep -q 'in on_usr1' <<<"$err"; }; then
        pass hostile-small-altstack-$mode
    else fail hostile-small-altstack-$mode "rc=$rc $(head -c 600 <<<"$err")"; fi
done
# A new thread's first call is a bad free: its report's unwind is the
# thread's first, whose TLS block the loader mallocs (__tls_get_addr) on
# chunkguard's behalf: served, never a reentrant-call report.
for k in interior:invalid-free double:double-free stack:invalid-free; do
    hrun mode=debug:guard_sample=0 thread_first_free ${k%%:*}
    if [ $rc = 134 ] && [ "$(grep -c 'ERROR: chunkguard' <<<"$err")" = 1 ] &&
       grep -q "ERROR: chunkguard: ${k#*:} on address 0x[0-9a-f]* \[thread T1\]" <<<"$err" &&
       grep -q 'in bad_free' <<<"$err"; then pass hostile-thread-first-free-${k%%:*}
    else fail hostile-thread-first-free-${k%%:*} "rc=$rc $(head -c 600 <<<"$err")"; fi
done
# ... and with halt_on_error=0 the thread's one report, then the program
# goes on
hrun mode=debug:guard_sample=0:halt_on_error=0 thread_first_free interior
if [ $rc = 0 ] && [ "$out" = survived ] && [ "$(grep -c 'ERROR: chunkguard' <<<"$err")" = 1 ] &&
   grep -q 'ERROR: chunkguard: invalid-free' <<<"$err"; then pass hostile-thread-first-free-recover
else fail hostile-thread-first-free-recover "rc=$rc out=$out $(head -c 600 <<<"$err")"; fi
# A SIGSEGV at a pc inside a live block the program made executable (and
# read-only) with mprotect, storing into itself: a segv report on the block
# for every size — heap blocks (FAULT_HEAP) and big blocks (FAULT_BIG, or
# in debug mode a guarded block's GUARD_FAULT_LIVE) alike.  Before the fix
# a big block's fault was passed on unreported (fast mode) or reported as
# a wild pointer / an overflow past the block (debug mode).
# covers checks.def: FAULT_HEAP
hexec() {   # hexec NAME OPTIONS RC PATTERN... -- ARGS...
    local name=$1 o=$2 want=$3; shift 3
    local pats=()
    while [ "$1" != -- ]; do pats+=("$1"); shift; done; shift
    hrun "$o" exec_block "$@"
    local addr missing=""
    addr=$(sed -n 's/^cg-expect-addr=//p' <<<"$out")
    for pat in "${pats[@]}"; do grep -Eq -- "$pat" <<<"$err" || missing="$missing [$pat]"; done
    if [ "$rc" = "$want" ] && [ -n "$addr" ] && [ "$(grep -c 'ERROR: chunkguard' <<<"$err")" = 1 ] &&
       grep -q "ERROR: chunkguard: segv on address $addr" <<<"$err" && [ -z "$missing" ] &&
       ! grep -q 'inside chunkguard' <<<"$err"; then pass "$name"
    else fail "$name" "rc=$rc addr=$addr missing:$missing $(head -c 700 <<<"$err")"; fi
}
for size in 4096 65536 1048576; do
    what='chunkguard heap region'; [ $size = 1048576 ] && what="live mmap'd block"
    hexec hostile-exec-fast-$size mode=fast 134 "$what" -- $size
    [ $size = 4096 ] && size=12288       # a fetch from the block's second page
    hexec hostile-exec-fast-$size-fetch mode=fast 134 "$what" 'an instruction fetch' -- $size fetch
done
hexec hostile-exec-debug-big mode=debug:guard_sample=0 134 'inside the live block' \
    'a 1048576-byte region' -- 1048576
hexec hostile-exec-debug-big-fetch mode=debug:guard_sample=0 134 '^EXECUTE at 0x' \
    'inside the live block' -- 1048576 fetch
hexec hostile-exec-debug-big-unguarded mode=debug:guard_sample=0:guard_big=0 134 \
    "live mmap'd block" 'a 1048576-byte region' -- 1048576
# A call through a NULL function pointer: the fault is the fetch at pc 0;
# debug mode's one report says so without reading the instruction there
# (it faulted again inside the handler: "SIGSEGV inside chunkguard").
hexec hostile-exec-debug-null-call mode=debug:guard_sample=0 139 '^EXECUTE at 0x0 ' \
    'a NULL or wild' -- 0 null

# Threads and the quarantine's per-thread batches (issue 15, points 3 and
# 4; tests/debug/threads.c): a double free across threads, a write after
# free on another thread than the free's (found when the block leaves),
# a block freed by a thread that exited and by one still alive (found at
# exit, from the shared FIFO and from the live thread's batch), stay exact.
gcc -O1 -g -pthread -fno-builtin -Wall -Wno-use-after-free -o "$B/threads" \
    "$R/tests/debug/threads.c" -ldl || fail threads-build threads.c
TOPTS="mode=debug:quarantine_mb=1:guard_sample=0"   # OPTS is halt_on_error=0's by now
trun() {   # trun OPTIONS LIBRARY ARGS...: sets out, err, rc
    local o=$1 so=$2; shift 2
    out=$(timeout 300 env CHUNKGUARD_OPTIONS="$o" LD_PRELOAD="$so" "$B/threads" "$@" 2>"$tmp/err"); rc=$?
    err=$(cat "$tmp/err")
}
trun "$TOPTS" "$SO" df-xthread
expect threads-double-free-across-threads double-free 'freed by thread T1 here' \
    'previously allocated by thread T0'
# ... also once the block has left the quarantine into T1's cache of
# released chunks (reuse.h), T1 still alive
trun "$TOPTS" "$SO" df-cached-xthread
expect threads-double-free-across-threads-cached double-free 'freed by thread T1 here' \
    'previously allocated by thread T0'
trun "$TOPTS" "$SO" uaf-xthread
expect threads-write-after-free-other-thread heap-use-after-free 'at offset 7 of a 48-byte block \(found when it left\)' \
    'freed by thread T1 here'
trun "$TOPTS" "$SO" uaf-exited
expect threads-write-after-free-exited-thread heap-use-after-free 'at offset 9 of a 48-byte block \(found at exit\)' \
    'freed by thread T1 here'
trun "$TOPTS" "$SO" uaf-live-thread
expect threads-write-after-free-in-live-threads-batch heap-use-after-free \
    'at offset 5 of a 48-byte block \(found at exit\)' 'freed by thread T1 here'
# The budget: 8 threads freeing 1 GiB never hold more than quarantine_mb
# plus one batch per thread (a test build's cg_test_quarantine_usage).
# With the FIFO trimmed by at most 16 blocks per batch (the old per-put
# bound) it held the whole GiB.
if make -s -C "$R" BUILD="$CG_BUILD" locks-lib-test >/dev/null 2>&1; then
    trun mode=debug:quarantine_mb=16:guard_sample=0:stack_depth=1 "$CG_BUILD/locks/test/libchunkguard.so" budget 16
    if [ $rc = 0 ] && grep -q '^budget ok' <<<"$out"; then pass threads-quarantine-budget-8-threads
    else fail threads-quarantine-budget-8-threads "rc=$rc $out $(head -c 300 <<<"$err")"; fi
else fail threads-quarantine-budget-8-threads "make locks-lib-test failed"; fi
# A short thread's start and exit (issue 15, point 5): its signal stack
# comes from the ones threads that exited left (no mmap, mprotect or munmap
# each), and is installed and taken down in at most 3 sigaltstack calls.
# The calls of 240 threads one after another less those of 40 (which made
# every arena a thread may be given), counted by
# strace (stack_depth=1: libunwind maps and unmaps a trace cache of its own
# on each thread that unwinds).
if command -v strace >/dev/null; then
    st_calls() {   # st_calls N: sets maps, alt (calls of a run of N threads), rc
        timeout 120 strace -f -c -o "$tmp/st" -e trace=mmap,munmap,mprotect,sigaltstack \
            env CHUNKGUARD_OPTIONS="$TOPTS:stack_depth=1" LD_PRELOAD="$SO" "$B/threads" short $1 \
            >/dev/null 2>&1; rc=$?
        maps=$(awk '$NF ~ /^(mmap|munmap|mprotect)$/ { n += $4 } END { print n + 0 }' "$tmp/st")
        alt=$(awk '$NF == "sigaltstack" { n += $4 } END { print n + 0 }' "$tmp/st")
    }
    st_calls 40; maps1=$maps alt1=$alt rc1=$rc
    st_calls 240
    dmaps=$((maps - maps1)) dalt=$((alt - alt1))
    if [ $rc1 = 0 ] && [ $rc = 0 ] && [ $dmaps -le 20 ] && [ $dalt -le 600 ]; then
        pass threads-short-thread-syscalls
    else fail threads-short-thread-syscalls "rc=$rc1/$rc: 200 threads more made $dmaps more mmap+munmap+mprotect and $dalt more sigaltstack calls"; fi
else echo "SKIP threads-short-thread-syscalls: no strace"; fi
# The FIFO is trimmed a batch at a time (quarantine.c's segments), without
# reading the records of the blocks that leave (each was a cache miss, one
# after another: a chain), and still holds its budget to within a batch.
if [ -f "$CG_BUILD/locks/test/libchunkguard.so" ]; then
    trun mode=debug:quarantine_mb=16:guard_sample=0:stack_depth=1 "$CG_BUILD/locks/test/libchunkguard.so" trim 16
    if [ $rc = 0 ] && grep -q '^trim ok' <<<"$out"; then pass threads-quarantine-trim-by-batch
    else fail threads-quarantine-trim-by-batch "rc=$rc $out $(head -c 300 <<<"$err")"; fi
else fail threads-quarantine-trim-by-batch "make locks-lib-test failed"; fi
# A free racing the release of its block (issue 15, point 4): a test
# build's hook holds the winner's release between the record's unbind and
# the core's free while 3 threads free the block again.  Each must report
# a double free; before the fix a loser found no record and went to the
# core, which still held the chunk in use (invalid-free, or a second free).
if [ -f "$CG_BUILD/locks/test/libchunkguard.so" ]; then
    trun mode=debug:quarantine_mb=0:guard_sample=0:stack_depth=1 "$CG_BUILD/locks/test/libchunkguard.so" race-free 100
    if [ $rc = 134 ] && grep -q 'ERROR: chunkguard: double-free' <<<"$err" &&
       ! grep -q 'two frees won' <<<"$out"; then pass threads-free-racing-release-double-free
    else fail threads-free-racing-release-double-free "rc=$rc $out $(head -c 300 <<<"$err")"; fi
else fail threads-free-racing-release-double-free "no test build"; fi
# A free that looked its record up before the block went back to the core
# (issue 15, point 4; verify/models/giveback.pml found these): held just
# after the lookup, it said invalid-free of a "freed region [0x20, ...)"
# (the record unbound under it); held just before its claim, double-free
# but of that bogus region; with the record recycled for a block q, its
# claim of q's record made q's one free a double free.  Each must be
# p's double free, naming no block but p's, and q's free must pass.
# "fork": a child forked while q's record is claimed frees q; it must end
# (a claim waits only while another thread may release it), not hang.
for w in looked claim recycled fork; do
  if [ -f "$CG_BUILD/locks/test/libchunkguard.so" ]; then
    trun mode=debug:quarantine_mb=0:guard_sample=0:stack_depth=1 "$CG_BUILD/locks/test/libchunkguard.so" race-stale 100 $w
    if [ $rc = 134 ] && grep -q 'ERROR: chunkguard: double-free .*\[thread T1\]' <<<"$err" &&
       ! grep -q 'region \[0x[0-9a-f]\{1,4\},' <<<"$err" &&
       { [ $w != recycled ] || grep -q '^q freed' <<<"$out"; } &&
       { [ $w != fork ] || grep -q '^child ended' <<<"$out"; }; then pass threads-stale-free-$w-double-free
    else fail threads-stale-free-$w-double-free "rc=$rc $out $(head -c 400 <<<"$err")"; fi
  else fail threads-stale-free-$w-double-free "no test build"; fi
done
# The same race for realloc and malloc_usable_size (issue 15, point 4):
# the call looked p's record up, then p was freed by the main thread and
# went back to the core at once ("looked"; "claim": realloc held before
# its claim; "recycled": p's record then bound to a new block q).  Each
# must report p freed (realloc: double-free; malloc_usable_size:
# invalid-pointer, the block freed or no block of ours) in T1, naming no
# bogus region ([0x20, ...) of an unbound record) and not q's block, and
# malloc_usable_size must not return q's size.
stale_other() {   # stale_other MODE-OPTIONS TESTPREFIX OP WHERE [TOKEN-ERE]
  local o=$1 name=$2-$3-$4 op=$3 w=$4 tok=${5:-}
  if [ ! -f "$CG_BUILD/locks/test/libchunkguard.so" ]; then fail "$name" "no test build"; return; fi
  trun "$o" "$CG_BUILD/locks/test/libchunkguard.so" race-stale 100 "$w" "$op"
  [ -n "$tok" ] || { tok=double-free; [ "$op" = usable ] && tok=invalid-pointer; }
  local q; q=$(sed -n 's/^q \(0x[0-9a-f]*\)$/\1/p' <<<"$out")
  if [ $rc = 134 ] && grep -Eq "ERROR: chunkguard: $tok .*\[thread T1\]" <<<"$err" &&
     [ "$(grep -c 'ERROR: chunkguard:' <<<"$err")" = 1 ] &&
     ! grep -q 'region \[0x[0-9a-f]\{1,4\},' <<<"$err" &&
     ! grep -q '400-byte' <<<"$err" && { [ -z "$q" ] || ! grep -q "$q" <<<"$err"; } &&
     ! grep -q '^usable returned' <<<"$out"; then pass "$name"
  else fail "$name" "rc=$rc $out $(head -c 500 <<<"$err")"; fi
}
for w in looked claim recycled; do
  stale_other mode=debug:quarantine_mb=0:guard_sample=0:stack_depth=1 threads-stale realloc $w
done
for w in looked recycled; do
  stale_other mode=debug:quarantine_mb=0:guard_sample=0:stack_depth=1 threads-stale usable $w
done
# A report reading a record freed mid-report (issue 15, point 4): T1's
# report of an interior free of block b is held (a test build's hook)
# while it reads b's record; the main thread frees b (the record unbound)
# and, "recycled", mallocs 400 bytes that get the record.  The report
# reads a consistent snapshot: b as it was, or no block, never a bogus
# region [0x20, ...) nor the 400-byte block.
for w in unbound recycled; do
  if [ -f "$CG_BUILD/locks/test/libchunkguard.so" ]; then
    trun mode=debug:quarantine_mb=0:guard_sample=0:stack_depth=1 "$CG_BUILD/locks/test/libchunkguard.so" race-report $w
    if [ $rc = 134 ] && grep -q 'ERROR: chunkguard: invalid-free .*\[thread T1\]' <<<"$err" &&
       ! grep -q 'region \[0x[0-9a-f]\{1,4\},' <<<"$err" && ! grep -q '400-byte' <<<"$err"; then
      pass threads-report-record-freed-mid-report-$w
    else fail threads-report-record-freed-mid-report-$w "rc=$rc $out $(head -c 500 <<<"$err")"; fi
  else fail threads-report-record-freed-mid-report-$w "no test build"; fi
done
# The same stale frees in guard mode (debug/guard.c: guarded blocks on
# pages of their own; guard_quarantine_mb=0: a freed block's range goes
# back to the pool at once, its record unbound, then reused for q).  Held
# just after the lookup, the free said invalid-free of a "freed region
# [0x10, 0x74)" (the unbound record's start check); now it looks again and
# says what a second free says by then.  Held before the claim, and with
# the record recycled for q, the claim shared with debug mode
# (cg_dbg_claim) already answered right: those two passed before the
# guard fix too and stay as guards (they fail on a copy with the claim
# before 2b27251: bogus region; q's one free a double free).  Each must
# be the stale free's one report (T1): double-free (the range gone back,
# and guard mode still remembers the block: its last 256 given back), or
# invalid-free of a pointer in no block (once it has forgotten), naming no
# bogus region; q's free must pass.
for w in looked claim recycled fork; do
  if [ -f "$CG_BUILD/locks/test/libchunkguard.so" ]; then
    trun mode=guard:guard_quarantine_mb=0:stack_depth=1 "$CG_BUILD/locks/test/libchunkguard.so" race-stale 100 $w
    errs=$(grep -c 'ERROR: chunkguard:' <<<"$err")
    if [ $rc = 134 ] &&
       grep -Eq 'ERROR: chunkguard: (double-free|invalid-free) .*\[thread T1\]' <<<"$err" &&
       { grep -q 'ERROR: chunkguard: double-free .*\[thread T1\]' <<<"$err" ||
         grep -q 'in guarded pages but in no block' <<<"$err"; } &&
       ! grep -q 'region \[0x[0-9a-f]\{1,4\},' <<<"$err" &&
       { [ $w = fork ] || [ "$errs" = 1 ]; } &&
       { [ $w != recycled ] || grep -q '^q freed' <<<"$out"; } &&
       { [ $w != fork ] || grep -q '^child ended' <<<"$out"; }; then pass threads-stale-guarded-free-$w
    else fail threads-stale-guarded-free-$w "rc=$rc $out $(head -c 400 <<<"$err")"; fi
  else fail threads-stale-guarded-free-$w "no test build"; fi
done
# ... and in guard mode (its realloc of a range gone back: double-free, or
# invalid-free of a pointer in no block, as a single thread's; no
# "recycled" for malloc_usable_size: q's block takes p's very range at
# once, guard_quarantine_mb=0, and p inside it is what the call says)
for w in looked claim recycled; do
  stale_other mode=guard:guard_quarantine_mb=0:stack_depth=1 threads-stale-guarded realloc $w \
      '(double-free|invalid-free)'
done
stale_other mode=guard:guard_quarantine_mb=0:stack_depth=1 threads-stale-guarded usable looked
