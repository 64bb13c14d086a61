#!/usr/bin/env bash
# 59-leaks.sh — leak reports that can be trusted (issue 14, point 8;
# tests/leaks/*.c, mode=debug:detect_leaks=1):
#   - threads still running at exit are stopped and their stacks (from the
#     stack pointer up) and registers scanned: a block a live worker holds
#     in a register or a live local is not a leak, whether it blocks in a
#     syscall, spins, or churns through malloc and free; a worker that
#     blocks the signal is scanned conservatively, and the report says so;
#   - dead stack memory is not a root: a block whose address survives only
#     in frames that have returned is reported (exit() and return from main);
#   - a block reached from a global (or from a reachable block) is still
#     reachable: counted in the summary, never reported, no leak exit code;
#   - more leak groups than the report's limit (4096) from distinct
#     stacks: the groups past it are counted in one line and in the JSON's
#     not_shown field, not dropped silently (tests/leaks/many.c), and
#     `chunkguard run` counts them in its summary, JUnit, SARIF and HTML;
#     suppressions apply to them as to the groups shown;
#   - a forked child's check, cg_leak_check() while a worker runs, and fast
#     mode (no leak check) neither hang nor misreport;
#   - cg_leak_check() 200 times in a row while spinning workers hold blocks
#     on their stacks (tests/leaks/repeat.c): no check reports one (a
#     worker still leaving the last check's stop handler, every signal
#     blocked, was taken for one that blocks the signal, left unscanned).
set -u
R=$CG_ROOT; B=$CG_BUILD/leaks; SO=$CG_SO
mkdir -p "$B"
make -s -C "$R" lib >/dev/null || { echo "FAIL leaks-build: make lib"; exit 1; }
for f in threads dead global roots repeat many; do
    gcc -O1 -g -pthread -fno-builtin -fno-omit-frame-pointer -Wall -o "$B/$f" "$R/tests/leaks/$f.c" -ldl ||
        { echo "FAIL leaks-build: $f"; exit 1; }
done
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
OPTS="mode=debug:detect_leaks=1:guard_sample=0"
run() {   # run OPTS PROGRAM ARGS...: sets out, err, rc, secs
    local opts=$1 start; shift
    start=$(date +%s%N)
    out=$(timeout 60 env CHUNKGUARD_OPTIONS="$opts" LD_PRELOAD="$SO" "$B/$@" 2>"$tmp/err"); rc=$?
    secs=$(( ($(date +%s%N) - start) / 1000000000 ))
    err=$(cat "$tmp/err")
}
# leaks_are SIZE...: the report's leak groups are exactly these sizes (one
# object each), as the sorted list of "Direct leak of N byte(s)" lines
leaks_are() {
    local got want
    got=$(sed -n 's/^Direct leak of \([0-9]*\) byte(s) in 1 object(s).*/\1/p' <<<"$err" | sort -n | tr '\n' ' ')
    want=$(printf '%s\n' "$@" | sort -n | tr '\n' ' ')
    [ "$got" = "$want" ] && [ "$(grep -c '^Direct leak of' <<<"$err")" = $# ]
}

# 1. threads running at exit
for m in reg stack spin; do
    run "$OPTS" threads $m
    if [ $rc = 23 ] && leaks_are 77 && [ "$secs" -lt 10 ] &&
       grep -q '^SUMMARY: chunkguard: 77 byte(s) leaked in 1 allocation(s)' <<<"$err" &&
       grep -q ' 1 other thread(s) stopped' <<<"$err"; then pass leaks-thread-$m
    else fail leaks-thread-$m "rc=$rc ${secs}s $(head -c 800 <<<"$err")"; fi
done
bad=0
for i in 1 2 3 4 5; do
    run "$OPTS:quarantine_mb=0" threads churn
    { [ $rc = 23 ] && leaks_are 77 && [ "$secs" -lt 10 ]; } || { bad=$((bad + 1)); why="rc=$rc ${secs}s $(head -c 800 <<<"$err")"; }
done
if [ $bad = 0 ]; then pass leaks-thread-churn
else fail leaks-thread-churn "$bad of 5 runs: $why"; fi
# the same in guard mode (guarded blocks, read by copy)
bad=0
for i in 1 2 3; do
    run mode=guard:detect_leaks=1 threads churn
    { [ $rc = 23 ] && leaks_are 77 && [ "$secs" -lt 10 ]; } || { bad=$((bad + 1)); why="rc=$rc ${secs}s $(head -c 800 <<<"$err")"; }
done
if [ $bad = 0 ]; then pass leaks-thread-churn-guard
else fail leaks-thread-churn-guard "$bad of 3 runs: $why"; fi
run "$OPTS" threads masked
if [ $rc = 23 ] && leaks_are 77 && [ "$secs" -lt 10 ] &&
   grep -Eq 'thread [0-9]+ blocks the signal .*: its whole stack mapping was scanned' <<<"$err"; then
    pass leaks-thread-masked-conservative
else fail leaks-thread-masked-conservative "rc=$rc ${secs}s $(head -c 800 <<<"$err")"; fi
# a masked thread that spins has no stack pointer to find: not scanned,
# and the report says so (its block may then be reported)
run "$OPTS" threads masked-spin
if [ $rc = 23 ] && [ "$secs" -lt 10 ] && grep -q 'Direct leak of 77 byte(s)' <<<"$err" &&
   grep -Eq 'thread [0-9]+ blocks the signal .*: its stack was not scanned' <<<"$err"; then
    pass leaks-thread-masked-spin-said
else fail leaks-thread-masked-spin-said "rc=$rc ${secs}s $(head -c 800 <<<"$err")"; fi

# main calls pthread_exit and its worker exits the process: the exiting
# thread's live stack is still found (/proc/self/maps is empty then)
run "$OPTS" threads leader-exit
if [ $rc = 23 ] && leaks_are 77 && [ "$secs" -lt 10 ]; then pass leaks-thread-leader-exited
else fail leaks-thread-leader-exited "rc=$rc ${secs}s $(head -c 800 <<<"$err")"; fi
# a worker holding the main arena's lock (a test build's cg_test_lock_arena)
# when main exits: the check takes no arena lock
if make -s -C "$R" locks-lib-test >/dev/null 2>&1; then
    start=$(date +%s)
    out=$(timeout 60 env CHUNKGUARD_OPTIONS="$OPTS" LD_PRELOAD="$CG_BUILD/locks/test/libchunkguard.so" \
          "$B/threads" arena-lock 2>"$tmp/err"); rc=$?
    secs=$(( $(date +%s) - start )); err=$(cat "$tmp/err")
    if [ $rc = 23 ] && leaks_are 77 && [ "$secs" -lt 10 ] &&
       grep -q ' 1 other thread(s) stopped' <<<"$err"; then pass leaks-thread-holds-arena-lock
    else fail leaks-thread-holds-arena-lock "rc=$rc (124: hang) ${secs}s $(head -c 800 <<<"$err")"; fi
else fail leaks-thread-holds-arena-lock "make locks-lib-test"; fi

# 2. dead stack memory
for how in 0 1; do
    run "$OPTS" dead $how
    n=$(sed -n 's/^stale copies: //p' <<<"$out")
    if [ "${n:-0}" -gt 0 ] && [ $rc = 23 ] && leaks_are 4321; then pass leaks-dead-stack-$how
    else fail leaks-dead-stack-$how "rc=$rc out=$out $(head -c 600 <<<"$err")"; fi
done

# 3. still reachable
run "$OPTS" global held
if [ $rc = 0 ] && [ "$out" = ok ] && [ -z "$err" ]; then pass leaks-global-not-reported
else fail leaks-global-not-reported "rc=$rc out=$out $(head -c 600 <<<"$err")"; fi
# (libc's own blocks, such as stdout's buffer, are still reachable too)
reach_ok() {   # the "still reachable" figures hold at least 6000 bytes in 3 blocks
    local l b k
    l=$(grep -Eo '[0-9]+ byte\(s\) in [0-9]+ block\(s\) still reachable' <<<"$err" | head -1)
    b=${l%% *}; k=$(sed 's/.* in \([0-9]*\) block.*/\1/' <<<"$l")
    [ -n "$l" ] && [ "$b" -ge 6000 ] && [ "$k" -ge 3 ]
}
run "$OPTS:verbosity=1" global held
if [ $rc = 0 ] && reach_ok && ! grep -q 'detected memory leaks' <<<"$err"; then
    pass leaks-global-counted-verbose
else fail leaks-global-counted-verbose "rc=$rc $(head -c 600 <<<"$err")"; fi
run "$OPTS" global mixed
if [ $rc = 23 ] && reach_ok && grep -q '^Direct leak of 50 byte(s) in 1 object(s)' <<<"$err" &&
   grep -q '^Indirect leak of 60 byte(s) in 1 object(s)' <<<"$err" &&
   ! grep -Eq 'leak of (1000|2000|3000) byte' <<<"$err" &&
   grep -q '^SUMMARY: chunkguard: 110 byte(s) leaked in 2 allocation(s)' <<<"$err"; then
    pass leaks-global-mixed
else fail leaks-global-mixed "rc=$rc $(head -c 800 <<<"$err")"; fi

# 4. a forked child, the API with a worker running, fast mode
# (the child has only the thread that forked: the block the parent's
# worker holds on its stack, a stack no thread runs on in the child, is
# a leak there, as LeakSanitizer's; the parent's own check finds none)
run "$OPTS" threads fork
if [ $rc = 23 ] && grep -q '^child 23$' <<<"$out" && leaks_are 77 222 && [ "$secs" -lt 10 ] &&
   [ "$(grep -c 'detected memory leaks' <<<"$err")" = 1 ]; then
    pass leaks-fork-child
else fail leaks-fork-child "rc=$rc out=$out ${secs}s $(head -c 600 <<<"$err")"; fi
run mode=debug:guard_sample=0 threads api
if [ $rc = 0 ] && [ "$out" = "leaked 1, worker runs" ] && leaks_are 77; then pass leaks-api-thread-resumes
else fail leaks-api-thread-resumes "rc=$rc out=$out $(head -c 600 <<<"$err")"; fi
bad=0; why=
for t in 3 3 3 8 8; do
    run mode=debug:guard_sample=0 repeat 200 $t
    { [ $rc = 0 ] && [ "$out" = "checks 200, leaked 0" ] && ! grep -q 'leak of' <<<"$err"; } ||
        { bad=$((bad + 1)); why="$t threads: rc=$rc out=$out $(grep -c 'blocks the signal' <<<"$err") 'blocks the signal' notes; $(head -c 400 <<<"$err")"; }
done
if [ $bad = 0 ]; then pass leaks-repeat-no-false-leak
else fail leaks-repeat-no-false-leak "$bad of 5 runs: $why"; fi
for m in stack spin churn masked; do
    run mode=fast:detect_leaks=1 threads $m
    # (the one line fast mode says about detect_leaks, and nothing else)
    if [ $rc = 0 ] && [ "$(grep -vc 'WARNING: chunkguard: detect_leaks and halt_on_error act in debug and guard mode only' <<<"$err")" = 0 ] &&
       [ "$secs" -lt 10 ]; then pass leaks-fast-$m
    else fail leaks-fast-$m "rc=$rc ${secs}s $(head -c 300 <<<"$err")"; fi
done

# the warning is for a value fast mode cannot honour, not for its own way
warn='WARNING: chunkguard: detect_leaks and halt_on_error act in debug and guard mode only'
for o in halt_on_error=0 halt_on_error=1 detect_leaks=0; do
    run mode=fast:$o threads stack
    if [ $o = halt_on_error=0 ]; then want=1; else want=0; fi
    if [ $rc = 0 ] && [ "$(grep -c "$warn" <<<"$err")" = $want ]; then pass leaks-fast-warn-$o
    else fail leaks-fast-warn-$o "rc=$rc want $want warnings: $(head -c 300 <<<"$err")"; fi
done

# 5. roots the process makes hard to read (tests/leaks/roots.c)
# main's pthread_exit leaves a zombie leader: globals are still read
run "$OPTS:verbosity=1" roots leader-global
if [ $rc = 0 ] && ! grep -q 'detected memory leaks' <<<"$err" &&
   grep -Eq 'no leaks; [0-9]+ byte\(s\) in [0-9]+ block\(s\) still reachable' <<<"$err"; then
    pass leaks-leader-exit-globals
else fail leaks-leader-exit-globals "rc=$rc $(head -c 800 <<<"$err")"; fi
# the stop signal is the check's only while it runs: after cg_leak_check()
# the program resets every real-time signal (the exit check must not die
# of one: rc 192 was SIGRTMAX), or installs its own handlers (which must
# never run on a signal the program did not send; the exit check then has
# no free signal, and says that, not that the thread blocks one)
run "$OPTS" roots rt-reset
if [ $rc = 0 ] && [ "$out" = "leaked 0" ] && [ -z "$err" ]; then pass leaks-stop-signal-reset
else fail leaks-stop-signal-reset "rc=$rc out=$out $(head -c 600 <<<"$err")"; fi
run "$OPTS:verbosity=1" roots rt-own
if [ $rc = 0 ] && [ "$out" = "leaked 0" ] &&
   grep -Eq '^\(thread [0-9]+ was not stopped: every real-time signal has a handler of the program' <<<"$err" &&
   ! grep -q 'blocks the signal' <<<"$err"; then pass leaks-stop-signal-program-owns
else fail leaks-stop-signal-program-owns "rc=$rc out=$out $(head -c 600 <<<"$err")"; fi
# process_vm_readv refused by a seccomp filter: the roots are read another
# way (a pipe; then /proc/thread-self/mem) and still reachable blocks stay
# so; with no way left, the check says so and reports no leak
for how in seccomp seccomp-pipe; do
    run "$OPTS:verbosity=1" roots $how
    if [ $rc = 0 ] && ! grep -q 'detected memory leaks' <<<"$err" &&
       grep -q 'no leaks; 3000 byte(s) in 2 block(s) still reachable' <<<"$err"; then pass leaks-$how-roots-read
    else fail leaks-$how-roots-read "rc=$rc $(head -c 600 <<<"$err")"; fi
    run "$OPTS" roots $how-leak
    if [ $rc = 23 ] && leaks_are 50 && grep -q '^(3000 byte(s) in 2 block(s) still reachable' <<<"$err"; then
        pass leaks-$how-leak-found
    else fail leaks-$how-leak-found "rc=$rc $(head -c 600 <<<"$err")"; fi
done
run "$OPTS" roots seccomp-none
if [ $rc = 0 ] && ! grep -q 'detected memory leaks' <<<"$err" &&
   grep -q 'WARNING: chunkguard: leak check (exit) not done: its roots could not be read' <<<"$err"; then
    pass leaks-seccomp-none-said
else fail leaks-seccomp-none-said "rc=$rc $(head -c 600 <<<"$err")"; fi

# 6. more leak groups than the report shows (tests/leaks/many.c: 5000
# blocks, each from a stack of its own): 4096 groups, then one line that
# counts the rest; shown + not shown = the SUMMARY; the JSON says it too
run "$OPTS:stack_depth=32:report_path=$tmp/many.json" many 5000
shown=$(grep -c '^Direct leak of' <<<"$err")
sb=$(sed -n 's/^Direct leak of \([0-9]*\) byte(s) in \([0-9]*\) object(s).*/\1 \2/p' <<<"$err" |
     awk '{ b += $1; o += $2 } END { print b + 0, o + 0 }')
line=$(grep -E '^\.\.\. [0-9]+ more leak groups \([0-9]+ bytes in [0-9]+ allocations\) not shown \(the report.s limit of 4096 groups\)$' <<<"$err")
read -r ng nb nk <<<"$(sed -E 's/^\.\.\. ([0-9]+) more leak groups \(([0-9]+) bytes in ([0-9]+) allocations.*/\1 \2 \3/' <<<"$line")"
read -r tb tk <<<"$(sed -n 's/^SUMMARY: chunkguard: \([0-9]*\) byte(s) leaked in \([0-9]*\) allocation(s).*/\1 \2/p' <<<"$err")"
read -r sbb sbo <<<"$sb"
js=$(python3 -c '
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ns = {json.dumps(r.get("not_shown"), sort_keys=True) for r in rs}
print(len(rs), *ns)' "$tmp/many.json" 2>&1)
want_js="4096 {\"groups\": ${ng:-x}, \"limit\": 4096, \"objects\": ${nk:-x}, \"size\": ${nb:-x}}"
if [ $rc = 23 ] && [ "$shown" = 4096 ] && [ -n "$line" ] && [ "${ng:-0}" -ge 800 ] &&
   [ $((sbb + nb)) = "$tb" ] && [ $((sbo + nk)) = "$tk" ] && [ "$js" = "$want_js" ]; then
    pass "leaks-groups-past-limit-counted ($ng more groups, $nk allocations)"
else fail leaks-groups-past-limit-counted "rc=$rc shown=$shown line='$line' shown=$sb summary=$tb/$tk json=$(head -c 300 <<<"$js")"; fi

# 6a. suppressions reach the groups past the limit too: leak:leaf (every
# group) leaves no leak and exit status 0; leak:^b$ (every group but the
# one whose stack has no b) leaves that one, 16 bytes, and no "not
# shown" line (the groups past the limit were never matched: 904 of them
# stayed leaks, status 23)
printf 'leak:leaf\n' >"$tmp/s-all.txt"; printf 'leak:^b$\n' >"$tmp/s-b.txt"
run "$OPTS:stack_depth=32:suppressions=$tmp/s-all.txt" many 5000; rca=$rc; erra=$err
run "$OPTS:stack_depth=32:suppressions=$tmp/s-b.txt" many 5000
if [ $rca = 0 ] && ! grep -q 'detected memory leaks' <<<"$erra" && [ $rc = 23 ] && leaks_are 16 &&
   ! grep -q 'more leak groups' <<<"$err" &&
   grep -q '^SUMMARY: chunkguard: 16 byte(s) leaked in 1 allocation(s)' <<<"$err" &&
   grep -q '^Suppressed: [0-9]* byte(s) in 4999 allocation(s)' <<<"$err"; then
    pass leaks-suppressed-past-limit
else fail leaks-suppressed-past-limit "all: rc=$rca $(grep -m2 'more leak\|SUMMARY' <<<"$erra"); b: rc=$rc $(grep -m3 'more leak\|SUMMARY\|Suppressed' <<<"$err")"; fi

# 6b. the same run through `chunkguard run` (tools/chunkguard): the groups
# past the limit are counted in its summary (per process and in all), as a
# JUnit failure of the process, as a SARIF result and run property, and in
# the HTML page; the JUnit counts add up (tests/command/check.py).  CG_CMD
# names another copy of the command (the old one, to see this fail).
CMD=${CG_CMD:-$R/tools/chunkguard}
CHUNKGUARD_LIB=$SO timeout 120 "$CMD" run --mode debug --options "detect_leaks=1:guard_sample=0:stack_depth=32" \
    --report-dir "$tmp/mrun" --junit "$tmp/m.xml" --sarif "$tmp/m.sarif" --html "$tmp/m.html" \
    -- "$B/many" 5000 >/dev/null 2>"$tmp/mrun.err"; rc=$?
got=$(python3 - "$tmp/m.xml" "$tmp/m.sarif" "$tmp/m.html" "$R/tests/command/check.py" <<'PYEOF' 2>&1
import json, re, subprocess, sys, xml.etree.ElementTree as ET
x, sa, h, check = sys.argv[1:5]
bad = []
if subprocess.run([sys.executable, check, "junit", x]).returncode != 0:
    bad.append("JUnit counts do not add up")
root = ET.parse(x).getroot()
fails = root.findall(".//testcase/failure")
hid = [f for f in fails if "not shown" in (f.get("message") or "")]
if len(fails) != 4097 or len(hid) != 1:
    bad.append(f"JUnit {len(fails)} failures, {len(hid)} for the groups not shown (want 4097, 1)")
m = re.match(r"^(\d+) more leak group", hid[0].get("message") if hid else "")
props = json.load(open(sa))["runs"][0].get("properties", {}).get("chunkguardLeakGroupsNotShown") or {}
if not m or props.get("groups") != int(m.group(1)) or props.get("processes") != 1:
    bad.append(f"SARIF property {props}, JUnit {hid[0].get('message') if hid else None}")
if 'class=not-shown' not in open(h).read():
    bad.append("HTML does not show them")
print(" ".join(bad) if bad else (m.group(1) if m else "?"))
PYEOF
)
sline=$(grep -E '^  [0-9]+ more leak group\(s\) \([0-9]+ bytes in [0-9]+ allocation\(s\)\) not shown .*in 1 process' "$tmp/mrun.err")
if [ $rc = 23 ] && [[ "$got" =~ ^[0-9]+$ ]] && [ "$got" = "$ng" ] && [ -n "$sline" ] &&
   grep -q "^  [0-9]* more leak group(s) ($nb bytes in $nk allocation(s))" <<<"$sline"; then
    pass "leaks-not-shown-command ($got groups in the summary, JUnit, SARIF, HTML)"
else fail leaks-not-shown-command "rc=$rc checks: $got; summary: $(grep -m2 'not shown\|report(s)' "$tmp/mrun.err" | head -c 300)"; fi

# 7. a leak report reads the maps once, not once a frame, and opens each
# module file once (base/maps.h snapshot): 2000 groups of ~15 frames each
# once opened /proc/thread-self/maps 24,000 times
if command -v strace >/dev/null; then
    timeout 120 strace -f -o "$tmp/st" -e trace=openat,open env CHUNKGUARD_OPTIONS="$OPTS:stack_depth=32" \
        LD_PRELOAD="$SO" "$B/many" 2000 >/dev/null 2>"$tmp/err"; rc=$?
    nmaps=$(grep -c '/proc/[a-z-]*/maps' "$tmp/st")
    nexe=$(grep -c "\"$B/many\"" "$tmp/st")
    if [ $rc = 23 ] && [ "$(grep -c '^Direct leak of' "$tmp/err")" = 2000 ] &&
       grep -q ' in step .*many.c:' "$tmp/err" && [ "$nmaps" -le 10 ] && [ "$nexe" -le 10 ]; then
        pass "leaks-maps-read-once (maps opened $nmaps times, the executable $nexe, for 2000 groups)"
    else fail leaks-maps-read-once "rc=$rc maps opened $nmaps times, executable $nexe $(head -c 300 "$tmp/err")"; fi
else echo "SKIP leaks-maps-read-once: no strace"; fi
