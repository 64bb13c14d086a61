#!/usr/bin/env bash
# 58-guard.sh — guard mode (mode=guard): one bad access per case
# (tests/guard/faults.c), each asserting that it faults at the access and is
# reported with the token, READ or WRITE, the offset text, and an access
# stack that names the function that made the access.
set -u
R=$CG_ROOT; B=$CG_BUILD/guard; SO=$CG_SO
mkdir -p "$B"
make -s -C "$R" lib >/dev/null || { echo "FAIL guard-build: make lib"; exit 1; }
gcc -O1 -g -pthread -fno-builtin -fno-omit-frame-pointer -Wall -Wno-use-after-free \
    -Wno-array-bounds -Wno-stringop-overflow -o "$B/faults" "$R/tests/guard/faults.c" -ldl ||
    { echo "FAIL guard-build: faults"; exit 1; }
gcc -O1 -g -Wall -o "$B/sigchain" "$R/tests/guard/sigchain.c" ||
    { echo "FAIL guard-build: sigchain"; exit 1; }
gcc -O1 -g -Wall -o "$B/sigchain-linked" "$R/tests/guard/sigchain.c" "$CG_BUILD/libchunkguard.a" \
    -pthread -lunwind -ldl || { echo "FAIL guard-build: sigchain-linked"; exit 1; }
SMALLALT_CFLAGS="-O1 -g -pthread -fno-builtin -fno-omit-frame-pointer -Wall -Wno-use-after-free
    -Wno-array-bounds -Wno-infinite-recursion"
gcc $SMALLALT_CFLAGS -o "$B/smallalt" "$R/tests/guard/smallalt.c" ||
    { echo "FAIL guard-build: smallalt"; exit 1; }
gcc $SMALLALT_CFLAGS -o "$B/smallalt-linked" "$R/tests/guard/smallalt.c" \
    "$CG_BUILD/libchunkguard.a" -lunwind -ldl || { echo "FAIL guard-build: smallalt-linked"; exit 1; }
gcc -O1 -g -Wall -I"$R/src/debug" -I"$R/src/base" -I"$R/include" -o "$B/insn_test" \
    "$R/tests/guard/insn_test.c" "$R/src/debug/insn.c" -lcriterion ||
    { echo "FAIL guard-build: insn_test"; exit 1; }
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# symbolize=0: no test here reads file:line (26-symbolize does, for a
# fault too), and a symbolizer run per report would add about a minute
OPTS="symbolize=0:mode=guard"
run() {   # run ARGS...: sets out, err, rc
    out=$(timeout 60 env CHUNKGUARD_OPTIONS="$OPTS${EXTRA:+:$EXTRA}" LD_PRELOAD="$SO" \
          "$B/faults" "$@" 2>"$tmp/err"); rc=$?
    err=$(cat "$tmp/err")
}
# expect NAME TOKEN ACCESS PATTERN...: SIGABRT; the first line names TOKEN
# and the faulting pc; the second is "ACCESS ... at 0x... thread T<n>";
# every PATTERN (grep -E) is in the report; exactly one report
expect() {
    local name=$1 token=$2 access=$3; shift 3
    local first second missing=""
    first=$(head -1 <<<"$err"); second=$(sed -n 2p <<<"$err")
    for pat in "$@"; do grep -Eq -- "$pat" <<<"$err" || missing="$missing [$pat]"; done
    local nrep; nrep=$(grep -c 'ERROR: chunkguard' <<<"$err")
    if [ "$rc" = 134 ] && [[ "$first" =~ ^==[0-9]+==ERROR:\ chunkguard:\ $token\ on\ address\ 0x[0-9a-f]+\ at\ pc\ 0x[0-9a-f]+$ ]] &&
       [[ "$second" =~ ^$access\ .*at\ 0x[0-9a-f]+\ thread\ T[0-9]+$ ]] &&
       [ -z "$missing" ] && [ "$nrep" = 1 ] && grep -q "^SUMMARY: chunkguard: $token in " <<<"$err"; then
        pass "$name"
    else fail "$name" "rc=$rc reports=$nrep missing:$missing report: $(head -c 900 <<<"$err")"; fi
}
# expect_free NAME TOKEN PATTERN...: a report made at free or exit (the
# access did not fault: it stayed within the block's pages)
expect_free() {
    local name=$1 token=$2; shift 2
    local missing=""
    for pat in "$@"; do grep -Eq -- "$pat" <<<"$err" || missing="$missing [$pat]"; done
    if [ "$rc" = 134 ] && grep -Eq "^==[0-9]+==ERROR: chunkguard: $token on address" <<<"$err" &&
       [ -z "$missing" ]; then pass "$name"
    else fail "$name" "rc=$rc missing:$missing report: $(head -c 700 <<<"$err")"; fi
}

# the access sizes of the instruction forms reports decode
if "$B/insn_test" >"$tmp/insn" 2>&1; then pass guard-access-size-decoder
else fail guard-access-size-decoder "$(tail -c 600 "$tmp/insn")"; fi

run ok
if [ $rc = 0 ] && [ "$out" = ok ] && [ -z "$err" ]; then pass guard-clean
else fail guard-clean "rc=$rc out=$out err=$(head -c 300 <<<"$err")"; fi

# reads after free: small, large, big
for s in 40 5000 2097152; do
    run read-after-free $s 8
    expect guard-read-after-free-$s heap-use-after-free "READ of size 1" "#0 0x[0-9a-f]+ in read_here" \
        "8 bytes inside a $s-byte freed region" 'on guard pages of its own' \
        'freed by thread T0 here' 'in free_here' 'previously allocated by thread T0' 'in alloc_here'
done
# a write after free is caught at the write, not when the block is reused
run write-after-free-then-churn
expect guard-write-after-free-then-250k-allocs heap-use-after-free WRITE "in write_here" \
    '5 bytes inside a 40-byte freed region' 'in free_here' 'in alloc_here'
# one byte past odd sizes, exactly at the guard page with guard_align=1
for s in 1 13 41 4095; do
    EXTRA=guard_align=1 run read-past $s 0
    expect guard-align-1-read-1-past-$s heap-buffer-overflow READ "in read_here" \
        "0 bytes past the end of a $s-byte region" 'on its guard page' 'in alloc_here'
    EXTRA=guard_align=1 run write-past $s 0
    expect guard-align-1-write-1-past-$s heap-buffer-overflow WRITE "in write_here" \
        "0 bytes past the end of a $s-byte region"
done
# with the default alignment (16) a byte past an odd size is in the slack:
# found at free or exit, as an overwrite between the block and its guard page
run write-past 41 0
expect_free guard-align-16-write-1-past-41-found-at-exit heap-buffer-overflow \
    'between the block and its guard page' 'from offset 41 of a 41-byte region \(found at exit\)' \
    'in alloc_here'
run read-past 0 0
expect guard-read-past-malloc-0 heap-buffer-overflow READ "in read_here" \
    '0 bytes past the end of a 0-byte region'
# overflows by 64 bytes and by 1 MiB
run write-past 40 64
expect guard-overflow-64 heap-buffer-overflow WRITE "in write_here" \
    '64 bytes past the end of a 40-byte region'
run write-past 40 1048576
expect guard-overflow-1MiB heap-buffer-overflow WRITE "in write_here" \
    '1048576 bytes past the end of a 40-byte region'
# with the guard page before each block, an overflow of one block lands on
# the guard page of the next: it is still that block's overflow (nearest)
EXTRA=guard_underflow=1 run write-past-before-next 4096
expect guard-underflow-mode-overflow-blames-the-block heap-buffer-overflow WRITE "in write_here" \
    '0 bytes past the end of a 4096-byte region'
# underflows: with guard_underflow=1 at the access; else found at free
for b in 1 32; do
    EXTRA=guard_underflow=1 run underflow $b
    expect guard-underflow-$b heap-buffer-overflow WRITE "in write_here" \
        "$b bytes before a 40-byte region" 'before the block'
    run underflow $b
    expect_free guard-underflow-$b-default-found-at-free heap-buffer-overflow \
        "$b bytes before a 40-byte region \\(found at free\\)" 'in free_here' 'in alloc_here'
done
# an underflow further back on the block's first page than the 256 bytes
# of lead pattern: the rest of the page is checked for the zero it was
# given, and the lowest changed byte is named when one write is near and
# one far
for b in 257 4000; do
    run underflow $b
    expect_free guard-underflow-$b-far-found-at-free heap-buffer-overflow \
        "$b bytes before a 40-byte region \\(found at free\\)" 'in free_here' 'in alloc_here'
done
run underflow-two 4000
expect_free guard-underflow-far-and-near-names-lowest heap-buffer-overflow \
    "4000 bytes before a 40-byte region \\(found at free\\)" 'in free_here'
# an underflow of several bytes, found at free: guard and debug mode name
# the same byte, the lowest changed (where a forward write began)
for m in guard debug; do
    EXTRA=mode=$m run underflow-span 12
    expect_free underflow-span-$m-names-lowest heap-buffer-overflow \
        "12 bytes before a 40-byte region \\(found at free" 'in free_here' 'in alloc_here'
done
run write-freed-big
expect guard-write-freed-big heap-use-after-free WRITE "in write_here" \
    '3145728 bytes inside a 4194304-byte freed region'
# debug mode: a block of guard_big bytes or more (128 KiB by default) is on
# guarded pages too
OPTS=mode=debug:guard_sample=0
run read-after-free 2097152 8
expect debug-big-read-after-free heap-use-after-free "READ of size 1" 'in read_here' \
    '8 bytes inside a 2097152-byte freed region' 'in free_here' 'in alloc_here'
run write-freed-big
expect debug-big-write-after-free heap-use-after-free WRITE "in write_here" \
    '3145728 bytes inside a 4194304-byte freed region'
run write-past 200000 64
expect debug-big-overflow-64 heap-buffer-overflow WRITE "in write_here" \
    '64 bytes past the end of a 200000-byte region'
# every entry that makes a block: guard_big decides for all of them alike
# (malloc, calloc, the aligned ones, realloc's new block, from NULL, from
# a small block or from one below guard_big, and C++'s new); with
# guard_align=1 a read 1 byte past faults
for e in malloc calloc memalign posix_memalign aligned_alloc realloc-null realloc-small \
         realloc-big-to-big new; do
    case $e in *align*) n=131136 ;; *) n=131073 ;; esac
    EXTRA=guard_align=1 run read-past-via $e $n
    expect debug-big-read-past-via-$e heap-buffer-overflow "READ of size 1" "in read_here" \
        "0 bytes past the end of a $n-byte region" 'on guard pages of its own'
done
# 5000 bytes is below the default threshold (where sealing costs more than
# the poison: docs/performance.md); guard_big=1 guards it from a page, as
# guard_big did before it took a size
EXTRA=guard_big=1 run write-past 5000 64
expect debug-big-overflow-64-guard-big-1 heap-buffer-overflow WRITE "in write_here" \
    '64 bytes past the end of a 5000-byte region'
OPTS=mode=guard
# the standard library as the accessing function
run memcpy-past
expect guard-memcpy-past heap-buffer-overflow "WRITE of size (16|32|64)" "in copy_here" \
    'past the end of a 40-byte region'
run memset-freed
expect guard-memset-freed heap-use-after-free WRITE "in set_here" '100-byte freed region'
# faults on a misaligned and on a smashed stack (the handler has its own)
run misaligned-stack
expect guard-misaligned-stack heap-use-after-free READ 'in main' '40-byte freed region'
run smashed-stack
expect guard-smashed-stack heap-use-after-free READ '#0 0x[0-9a-f]+ in main' '40-byte freed region'
run in-signal-handler
expect guard-fault-in-signal-handler heap-use-after-free READ 'in read_here' 'in on_usr1' \
    '40-byte freed region'
# threads faulting at once: one report, not interleaved
run threads 4
expect guard-threads-fault-at-once heap-use-after-free READ 'in read_here' 'in racer'
# the quarantine of sealed ranges: 10000 frees (80 MiB of ranges) after a
# block's, it still faults and names the block; with guard_quarantine_mb=1
# its range has been reused by then (the budget holds): the read lands on
# some later block of the churn, allocated and freed in main, not on ours
run read-after-churn 10000
expect guard-read-after-10000-frees heap-use-after-free READ 'in read_here' '40-byte freed region' \
    'in free_here' 'in alloc_here'
EXTRA=guard_quarantine_mb=1 run read-after-churn 10000
if [ $rc = 134 ] && ! grep -q 'in free_here' <<<"$err" && ! grep -q 'in alloc_here' <<<"$err"; then
    pass guard-quarantine-budget-reuses-oldest
else fail guard-quarantine-budget-reuses-oldest "rc=$rc $(head -c 600 <<<"$err")"; fi
# A late double free: the block's range already went back to the pool
# (guard_quarantine_mb=0: at once; =1: pushed out by 200 frees of 3-page
# blocks, which never take its 2-page range).  A ring of recently given
# back ranges names it a double free with its stacks, not an invalid free
# "in no block"; realloc and malloc_usable_size alike.
for v in "0 0" "1 200"; do
  set -- $v
  for op in free realloc usable; do
    tok=double-free; [ $op = usable ] && tok=invalid-pointer
    EXTRA=guard_quarantine_mb=$1 run df-late $2 $op
    expect_free guard-late-$op-freed-mb$1 $tok 'freed by thread T0 here' 'in free_here' \
        'in alloc_here' '40-byte freed region'
    if grep -q 'in no block' <<<"$err"; then fail guard-late-$op-freed-mb$1-not-no-block "said no block"
    else pass guard-late-$op-freed-mb$1-not-no-block; fi
  done
done
# more live blocks than a quarter of vm.max_map_count: the last ones are
# debug blocks (a redzone, found at free), and the report says so
lim=$(cat /proc/sys/vm/max_map_count)
EXTRA=guard_align=1 run many-live $((lim / 4 + 100))
expect_free guard-fallback-to-debug-blocks heap-buffer-overflow '1 bytes past a 40-byte region' \
    'a debug-mode block \(guard mode had no pages left for it\)' 'in free_here' \
    'guard mode has no room for more guarded blocks'
[ "$(grep -c 'no room for more guarded blocks' <<<"$err")" = 1 ] ||
    fail guard-fallback-warned-once "$(grep -c 'no room for more' <<<"$err") warnings"
# one impossible request (malloc(SIZE_MAX)) is ENOMEM, not "no room": no
# notice, and the next block is still guarded
run huge
if ! grep -q 'no room for more guarded blocks' <<<"$err" && [ $rc = 134 ] &&
   grep -q '64 bytes past the end of a 16-byte region' <<<"$err"; then pass guard-huge-request-no-notice
else fail guard-huge-request-no-notice "rc=$rc $(head -c 300 <<<"$err")"; fi
# no address space for the region (RLIMIT_AS): a warning, and debug blocks
out=$(prlimit --as=$((768 << 20)) env CHUNKGUARD_OPTIONS=mode=guard LD_PRELOAD="$SO" "$B/faults" ok 2>"$tmp/err"); rc=$?
if [ $rc = 0 ] && [ "$out" = ok ] && grep -q 'guard mode could not reserve its address space' "$tmp/err"; then
    pass guard-no-address-space-debug-blocks
else fail guard-no-address-space-debug-blocks "rc=$rc out=$out $(head -c 300 "$tmp/err")"; fi
# the leak check sees guarded blocks: the unreachable one is reported, the
# one a global points to is not (it is counted still reachable)
OPTS=mode=guard:detect_leaks=1 run leak
if [ $rc = 23 ] && grep -q 'Direct leak of 100 byte(s) in 1 object(s)' <<<"$err" &&
   ! grep -q 'leak of 200 byte' <<<"$err" && grep -q 'in alloc_here' <<<"$err" &&
   grep -Eq '^\([0-9]+ byte\(s\) in [0-9]+ block\(s\) still reachable' <<<"$err"; then pass guard-leak-check
else fail guard-leak-check "rc=$rc $(head -c 500 <<<"$err")"; fi
OPTS=mode=guard
# JSON: the access
rm -f "$tmp/r.json"
EXTRA="report_path=$tmp/r.json" run read-after-free 40 8
if python3 -c '
import json, sys
r = json.loads(open(sys.argv[1]).readline())
a = r["access"]
assert r["kind"] == "heap-use-after-free", r["kind"]
assert a["kind"] == "READ" and a["address"] == r["address"], a
assert r["block"]["guarded"] is True and r["block"]["state"] == "freed", r["block"]
assert r["offset"] == 8, r["offset"]
' "$tmp/r.json" 2>"$tmp/py"; then pass guard-json-access
else fail guard-json-access "$(cat "$tmp/py") $(head -c 400 "$tmp/r.json" 2>/dev/null)"; fi
# every thread gets its own signal stack, and gives it back when it ends
for m in debug guard; do
    OPTS=mode=$m run thread-churn 2000
    if [ $rc = 0 ] && [ -n "$out" ] && [ "$out" -lt 300 ] && [ -z "$err" ]; then
        pass $m-thread-signal-stacks-given-back
    else fail $m-thread-signal-stacks-given-back "rc=$rc mappings=$out $(head -c 300 <<<"$err")"; fi
done
OPTS=mode=guard
# a wild pointer in the program's code: one segv report saying what the
# address is, then the default action (SIGSEGV); not in fast mode, not with
# handle_segv=0
for m in debug guard; do
    OPTS=mode=$m run null
    if [ $rc = 139 ] && [ "$(grep -c 'ERROR: chunkguard' <<<"$err")" = 1 ] &&
       grep -Eq '^==[0-9]+==ERROR: chunkguard: segv on address 0x10 at pc 0x' <<<"$err" &&
       grep -q 'no block of chunkguard.s (a NULL or wild pointer): it is not in any mapping' <<<"$err" && grep -q 'in read_here' <<<"$err" &&
       grep -q '^SUMMARY: chunkguard: segv in read_here' <<<"$err"; then pass $m-wild-pointer-segv-report
    else fail $m-wild-pointer-segv-report "rc=$rc $(head -c 500 <<<"$err")"; fi
done
for o in mode=fast mode=debug:handle_segv=0; do
    OPTS=$o run null
    if [ $rc = 139 ] && [ -z "$err" ]; then pass "wild-pointer-untouched-${o//[:=]/-}"
    else fail "wild-pointer-untouched-${o//[:=]/-}" "rc=$rc $(head -c 300 <<<"$err")"; fi
done
OPTS=mode=guard
# sampled guard slots (guard_sample=100): the rate over 200000 allocations
# is 1 in 100 within 10 % (the interval is uniform in [1, 199]: the count's
# standard deviation is about 26 of 2000), in fast and in debug mode; a
# sampled block read after free is reported at the read, with its stacks
for m in fast debug; do
    OPTS="mode=$m:guard_sample=100:guard_slots=256" run sample-rate 200000
    if [ $rc = 0 ] && [ -z "$err" ] && [ "$out" -ge 1800 ] && [ "$out" -le 2200 ]; then
        pass "$m-sample-rate-1-in-100 ($out of 200000)"
    else fail $m-sample-rate-1-in-100 "rc=$rc sampled=$out $(head -c 300 <<<"$err")"; fi
    OPTS="mode=$m:guard_sample=50" run sampled-uaf
    first=$(head -1 <<<"$err")
    if [ $rc = 134 ] && [[ "$first" =~ ERROR:\ chunkguard:\ heap-use-after-free\ on\ address\ 0x[0-9a-f]+\ at\ pc ]] &&
       grep -q 'in read_here' <<<"$err" && grep -q 'in a guard slot (sampled)' <<<"$err" &&
       grep -q 'in free_here' <<<"$err" && grep -q 'in alloc_here' <<<"$err"; then pass $m-sampled-read-after-free
    else fail $m-sampled-read-after-free "rc=$rc $(head -c 600 <<<"$err")"; fi
done
# aligned allocations are sampled too
for m in fast debug; do
    OPTS="mode=$m:guard_sample=20" run sampled-aligned-uaf
    if [ $rc = 134 ] && grep -q 'heap-use-after-free on address' <<<"$err" &&
       grep -q 'in a guard slot (sampled)' <<<"$err" && grep -q 'from memalign()' <<<"$err"; then
        pass $m-sampled-aligned-read-after-free
    else fail $m-sampled-aligned-read-after-free "rc=$rc $(head -c 400 <<<"$err")"; fi
done
# cg_describe on and around a guarded block (guard mode's, or a sampled
# guard slot's): the block's own pages, its guard page (after it; before
# it with guard_underflow=1), the sealed pages once freed, and pages of the
# guard region no block uses (a free slot) are each named, never "not in
# any chunkguard heap"
for o in mode=guard mode=guard:guard_underflow=1 mode=fast:guard_sample=16 mode=debug:guard_sample=16; do
    OPTS=$o run describe
    line() { grep "^$1: " <<<"$out"; }
    bad=""
    [[ "$(line inside)" == *"10 bytes inside a 100-byte region"*", live,"* ]] || bad="$bad inside"
    [[ "$(line freed-inside)" == *"10 bytes inside a 100-byte region"*"freed (its pages sealed)"* ]] || bad="$bad freed-inside"
    if [[ $o == *underflow* ]]; then
        [[ "$(line slack-before)" == *"8 bytes before a 100-byte region"*"on the guard page before the block"* ]] ||
            bad="$bad slack-before"
    else
        for l in guard-page guard-page-end freed-page; do
            [[ "$(line $l)" == *"bytes past the end of a 100-byte region"*"on the guard page after the block"* ]] || bad="$bad $l"
        done
        [[ "$(line slack-after)" == *"0 bytes past the end of a 100-byte region"* &&
           "$(line slack-after)" != *"on the guard page"* ]] || bad="$bad slack-after"
    fi
    grep -q "not in any chunkguard" <<<"$out" && bad="$bad not-in-any-heap"
    [ "$(grep -c '^[a-z-]*: 0x' <<<"$out")" = 9 ] || bad="$bad lines"
    if [ $rc = 0 ] && [ -z "$bad" ]; then pass "describe-guarded-${o//[:=]/-}"
    else fail "describe-guarded-${o//[:=]/-}" "rc=$rc wrong:$bad $(head -c 1500 <<<"$out$err")"; fi
done
OPTS="mode=fast" run sample-rate 20000
if [ $rc = 0 ] && [ "$out" = 0 ]; then pass fast-mode-samples-nothing-by-default
else fail fast-mode-samples-nothing-by-default "rc=$rc sampled=$out"; fi
OPTS="mode=debug" run sample-rate 100000
if [ $rc = 0 ] && [ "$out" -ge 300 ] && [ "$out" -le 500 ]; then pass "debug-mode-samples-1-in-256-by-default ($out of 100000)"
else fail debug-mode-samples-1-in-256-by-default "rc=$rc sampled=$out $(head -c 300 <<<"$err")"; fi
OPTS=mode=guard
# the program's own SIGSEGV handler gets its fault untouched
run own-handler
if [ $rc = 42 ] && ! grep -q chunkguard <<<"$err"; then pass guard-program-handler-untouched
else fail guard-program-handler-untouched "rc=$rc $(head -c 300 <<<"$err")"; fi

# the program's handlers (tests/guard/sigchain.c): one installed after
# chunkguard's, with sigaction or signal, sits behind it: a bad access to a
# block is still reported at the access; the program's own faults reach its
# handler; it sees its own handler when it asks; raise(SIGSEGV) ends the
# process (or is ignored) as without chunkguard.  Preloaded and linked in.
sig() {   # sig BINARY OPTS CASE: sets out, err, rc
    out=$(timeout 60 env CHUNKGUARD_OPTIONS="symbolize=0:$2" ${3:+LD_PRELOAD="$SO"} "$B/$1" "$4" 2>"$tmp/err"); rc=$?
    err=$(cat "$tmp/err")
}
for how in preload linked; do
    bin=sigchain; [ $how = linked ] && bin=sigchain-linked
    pre=1; [ $how = linked ] && pre=
    for api in sigaction signal; do
        for o in mode=guard mode=debug:guard_sample=1; do
            m=${o%%:*}; m=${m#mode=}
            sig $bin $o "$pre" $api-then-uaf
            if [ $rc = 134 ] && grep -Eq '^==[0-9]+==ERROR: chunkguard: heap-use-after-free on address' <<<"$err" &&
               grep -q 'in read_here' <<<"$err"; then pass "$how-$api-handler-keeps-guard-fault-$m"
            else fail "$how-$api-handler-keeps-guard-fault-$m" "rc=$rc $(head -c 300 <<<"$err")"; fi
        done
    done
    for o in mode=fast mode=debug mode=guard; do
        sig $bin $o "$pre" sigaction-null; a=$rc; e1=$err
        sig $bin $o "$pre" signal-null; b=$rc; e2=$err
        sig $bin $o "$pre" reraise-null; c=$rc; e3=$err
        if [ $a = 42 ] && [ $b = 44 ] && [ $c = 139 ] && [ "$out" = "program handler ran" ] &&
           [ -z "$e1$e2$e3" ]; then pass "$how-program-fault-to-its-handler-${o#mode=}"
        else fail "$how-program-fault-to-its-handler-${o#mode=}" "rc=$a/$b/$c out=$out $(head -c 300 <<<"$e1$e2$e3")"; fi
        sig $bin $o "$pre" query
        if [ $rc = 0 ] && [ "$out" = ok ]; then pass "$how-program-sees-its-handler-${o#mode=}"
        else fail "$how-program-sees-its-handler-${o#mode=}" "rc=$rc $out"; fi
        sig $bin $o "$pre" raise; a=$rc; sig $bin $o "$pre" raise-bus; b=$rc
        sig $bin $o "$pre" raise-ignored; c=$rc; co=$out
        sig $bin $o "$pre" resethand; d=$rc
        if [ $a = 139 ] && [ $b = 135 ] && [ $c = 0 ] && [ "$co" = survived ] && [ $d = 139 ] &&
           [ "$out" = "handler ran once" ]; then pass "$how-raised-segv-as-without-chunkguard-${o#mode=}"
        else fail "$how-raised-segv-as-without-chunkguard-${o#mode=}" "raise=$a raise-bus=$b ignored=$c/$co resethand=$d/$out"; fi
        # found by fuzz/signals.c (docs/fuzzing.md, signals-* regression inputs)
        sig $bin $o "$pre" siginfo-ignored; a=$rc; ao=$out
        sig $bin $o "$pre" resethand-as-kernel; b=$rc
        if [ $a = 0 ] && [ "$ao" = survived ] && [ $b = 0 ] && [ "$out" = survived ]; then
            pass "$how-disposition-as-the-kernel-reads-it-${o#mode=}"
        else fail "$how-disposition-as-the-kernel-reads-it-${o#mode=}" "siginfo-ignored=$a/$ao resethand-as-kernel=$b/$out"; fi
    done
done

# A fault on the program's own small alternate signal stack
# (tests/guard/smallalt.c: 8 KiB, SIGSTKSZ or the kernel's minimum, a
# guard page below it, on the main thread or a thread): chunkguard's
# handler runs there, and deciding and reporting need more than it has;
# the report is the one made without that stack (before the fix: "a fault
# ... while handling a fault (its metadata is unreadable)" and SIGABRT for
# a stack overflow, a wild read, and a fault of the program's own on a
# thread with its handler, which then never ran; with the kernel's
# minimum, a hang).  A fault that is not
# ours still reaches the program's handler, on the program's stack.
# salt NAME RC TOKEN FUNC: exit status RC, one report, its first line
# TOKEN's, its stack naming FUNC, its SUMMARY line
salt() {
    local name=$1 want=$2 token=$3 func=$4
    local nrep; nrep=$(grep -c 'ERROR: chunkguard' <<<"$err")
    if [ "$rc" = "$want" ] && [ "$nrep" = 1 ] &&
       grep -Eq "^==[0-9]+==ERROR: chunkguard: $token on address 0x[0-9a-f]+" <<<"$err" &&
       grep -Eq "#[0-9]+ 0x[0-9a-f]+ in $func" <<<"$err" &&
       grep -q "^SUMMARY: chunkguard: $token in $func" <<<"$err" && ! grep -q 'while handling' <<<"$err"
    then pass "$name"
    else fail "$name" "rc=$rc reports=$nrep out: $(tr '\n' '|' <<<"$out") report: $(head -c 600 <<<"$err")"; fi
}
for how in preload linked; do
    bin=smallalt; [ $how = linked ] && bin=smallalt-linked
    pre=1; [ $how = linked ] && pre=
    for o in mode=guard mode=debug:guard_sample=1; do
        m=${o%%:*}; m=${m#mode=}; n=$how-small-altstack-$m
        sa() { out=$(timeout 60 env CHUNKGUARD_OPTIONS="symbolize=0:$o" ${pre:+LD_PRELOAD="$SO"} \
                     "$B/$bin" "$@" 2>"$tmp/err"); rc=$?; err=$(cat "$tmp/err"); }
        sa 8192 main uaf;          salt $n-main-uaf 134 heap-use-after-free uaf_here
        sa sigstksz thread past;   salt $n-thread-past 134 heap-buffer-overflow past_here
        sa min main past;          salt $n-min-main-past 134 heap-buffer-overflow past_here
        sa 8192 main overflow;     salt $n-main-stack-overflow 139 stack-overflow recurse
        sa 8192 thread overflow;   salt $n-thread-stack-overflow 139 stack-overflow recurse
        sa min thread wild;        salt $n-min-thread-wild 139 segv wild_here
        sa min main handler-uaf;   salt $n-min-main-handler-uaf 134 heap-use-after-free uaf_here
        # the handler ends the process with _exit or exit: chunkguard's
        # checks at exit run on that stack too (before the fix: SIGSEGV
        # in them, on a thread)
        for w in main thread; do for e in "" -exit; do
            sa 8192 $w handler-wild$e
            if [ $rc = 42 ] && grep -qx 'program handler on its own altstack' <<<"$out" && [ -z "$err" ]
            then pass $n-$w-program-handler-chained$e
            else fail $n-$w-program-handler-chained$e "rc=$rc out: $(tr '\n' '|' <<<"$out") err: $(head -c 400 <<<"$err")"; fi
        done; done
    done
done

# A fast-mode (and debug-mode) report made in a signal handler that runs
# on the program's own small alternate stack (SA_ONSTACK; the kernel's
# minimum, 4096, 5120 and 8192 bytes; smallalt signal-df): the report
# checks the room before it builds its frames, and moves to a stack mapped
# for it, so the whole double-free report is written with its stack, rc
# 134 (before, fast mode: 4096 bytes a SIGSEGV loop at 100% CPU, 5120 the
# report lost to "a fault ... while handling a fault").
for how in preload linked; do
    bin=smallalt; [ $how = linked ] && bin=smallalt-linked
    pre=1; [ $how = linked ] && pre=
    for o in mode=fast mode=debug; do
        # (the kernel's minimum is its signal frame's size: what it leaves
        # the handler, a few hundred bytes, is less than a free and the
        # report's room test take in either mode, and varies with the
        # build's frame sizes; it is tried below as belowmin's defined end)
        sizes="4096 5120 8192"
        for sz in $sizes; do
            out=$(timeout -s KILL 30 env CHUNKGUARD_OPTIONS="symbolize=1:$o" ${pre:+LD_PRELOAD="$SO"} \
                  "$B/$bin" $sz main signal-df 2>"$tmp/err"); rc=$?; err=$(cat "$tmp/err")
            n=$how-small-altstack-${o#mode=}-signal-df-$sz
            nrep=$(grep -c 'ERROR: chunkguard' <<<"$err")
            if [ "$rc" = 134 ] && [ "$nrep" = 1 ] &&
               grep -Eq "^==[0-9]+==ERROR: chunkguard: double-free on address 0x[0-9a-f]+" <<<"$err" &&
               grep -Eq "#0 0x[0-9a-f]+ in df_here" <<<"$err" && grep -Eq "#1 0x[0-9a-f]+ in on_usr1" <<<"$err" &&
               grep -q "^SUMMARY: chunkguard: double-free" <<<"$err" && ! grep -q 'while handling' <<<"$err"
            then pass "$n"
            else fail "$n" "rc=$rc (137: hung) reports=$nrep report: $(head -c 600 <<<"$err")"; fi
        done
        # 256 bytes less than the kernel's minimum: no room for the report,
        # but a defined end — SIGSEGV, with a line saying why (before: the
        # handler's own frames faulted, the fault was delivered over them at
        # the stack's top again, for ever at 100% CPU)
        out=$(timeout -s KILL 30 env CHUNKGUARD_OPTIONS="$o" ${pre:+LD_PRELOAD="$SO"} \
              "$B/$bin" belowmin main signal-df 2>"$tmp/err"); rc=$?; err=$(cat "$tmp/err")
        n=$how-small-altstack-${o#mode=}-signal-df-belowmin-ends
        if [ "$rc" = 139 ] && grep -q '^==chunkguard: a fault, and the alternate signal stack has no room left' <<<"$err"
        then pass "$n"
        else fail "$n" "rc=$rc (137: hung) $(head -c 300 <<<"$err")"; fi
    done
done
