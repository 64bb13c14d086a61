#!/usr/bin/env bash
# 47-options.sh — CHUNKGUARD_OPTIONS, glibc's settings, and how a report ends.
#   options-doc-current  docs/options.md is what tools/gen-options-doc prints
#   options-help         help=1 lists every option of src/base/options.def
#   options-unknown      an unknown key: one warning naming it, program runs
#   options-bad-value    an out-of-range value: a warning, the default kept
#   options-no-equals    a pair without '=': a warning
#   options-verbosity    verbosity=1 prints the start-up line; 0 prints nothing
#   report-log-path      log_path=F.%p: the report lands in F.<pid>, not stderr
#   report-exitcode      exitcode=23 exits 23; abort_on_error=0 exits 1;
#                        abort_on_error=1 with exitcode still aborts
#   options-setuid       in a set-uid process log_path is ignored with a warning
#   fill-alloc / fill-free   the fill bytes reach new and freed blocks
#   tunables-*           GLIBC_TUNABLES / MALLOC_*_ reach the core
#   options-comma        ',' separates pairs as ':' does, mixed too
#   options-asan-separators  '\n', '\r', spaces and tabs separate pairs too,
#                        as ASan's flag parser; quotes keep them
#   options-quoted-path  log_path='...' holds ':' and ','; quotes not kept
#   options-log-path-unopenable  a log_path that cannot be opened, quoted
#                        or not: one warning naming it and the errno, then
#                        the report on stderr
#   options-blanks       blanks around keys and values are not part of them
#                        (' mode=debug , stack_depth=4 '); a quoted value
#                        keeps its own, blanks after its quote are dropped
#   options-bad-quote    an unterminated quote, text after a closing one:
#                        a warning each, the default kept
#   options-path-unopenable  report_path and stats_path that cannot be
#                        opened: one warning each (path, errno name), as
#                        log_path; the report still reaches stderr
#   options-long-path    path options hold up to 4095 bytes (PATH_MAX):
#                        a 300- and a 3900-byte report_path/log_path work;
#                        4096 bytes is a bad value, the default kept
#   stats-fork-one-file  stats_path without %p and a fork: both lines kept
#   stats-exit-kinds     exit, _exit, SIGKILL (stats_path with %p): every
#                        file's start line names its pid and program; exit
#                        lines but for the killed one
#   stats-exec-start     a program exec'd appends its own start line to
#                        the process's file, then its exit line
#   stats-fork-child     a forked child's stats_path line counts only the
#                        child's own operations; the parent's all of its
set -u
R=$CG_ROOT; B=$CG_BUILD/options; SO=$CG_SO
mkdir -p "$B"
make -s -C "$R" lib >/dev/null || { echo "FAIL options-build: make lib"; exit 1; }
# -fno-builtin: gcc would otherwise drop the unused malloc/free pairs
gcc -O1 -g -Wall -fno-builtin -Wno-use-after-free -o "$B/probe" "$R/tests/options/probe.c" || { echo "FAIL options-build: probe"; exit 1; }
gcc -O0 -Wall -o "$B/gen-options-doc" "$R/tools/gen-options-doc.c" ||
    { echo "FAIL options-build: gen-options-doc"; exit 1; }
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# run OPTIONS ARGS... : the probe under chunkguard; sets out, err, rc
run() {
    local opts=$1; shift
    out=$(timeout 20 env CHUNKGUARD_OPTIONS="$opts" LD_PRELOAD="$SO" "$B/probe" "$@" 2>"$tmp/err"); rc=$?
    err=$(cat "$tmp/err")
}

# options-doc-current
if "$B/gen-options-doc" | diff -u "$R/docs/options.md" - >"$tmp/diff"; then pass options-doc-current
else fail options-doc-current "docs/options.md is stale; run make docs/options.md: $(head -c 300 "$tmp/diff")"; fi

# options-help: every CG_OPTION name appears as "  name=" in the listing
names=$(grep -o '^CG_OPTION([a-z_]*' "$R/src/base/options.def" | sed 's/CG_OPTION(//')
run help=1 ok
missing=""
for n in $names; do grep -q "^  $n=" <<<"$err" || missing="$missing $n"; done
if [ $rc -eq 0 ] && [ "$out" = ok ] && [ -n "$names" ] && [ -z "$missing" ]; then pass options-help
else fail options-help "rc=$rc missing:$missing err=$(head -c 300 <<<"$err")"; fi

# options-unknown
run no_such_option=1 ok
if [ $rc -eq 0 ] && [ "$out" = ok ] && [ "$(grep -c WARNING <<<"$err")" = 1 ] &&
   grep -q "unknown option 'no_such_option'" <<<"$err"; then pass options-unknown
else fail options-unknown "rc=$rc err=$(head -c 300 <<<"$err")"; fi

# options-bad-value: verbosity=7 is out of range, so no start-up line either
run verbosity=7 ok
if [ $rc -eq 0 ] && grep -q "bad value in 'verbosity=7'" <<<"$err" &&
   ! grep -q 'fast mode' <<<"$err"; then pass options-bad-value
else fail options-bad-value "rc=$rc err=$(head -c 300 <<<"$err")"; fi

# options-no-equals
run "verbosity" ok
if [ $rc -eq 0 ] && grep -q "option without '=': 'verbosity'" <<<"$err"; then pass options-no-equals
else fail options-no-equals "rc=$rc err=$(head -c 300 <<<"$err")"; fi

# options-verbosity
run verbosity=1 ok; v1=$err
run verbosity=0 ok; v0=$err
if grep -q '^==[0-9]*==chunkguard: fast mode; tcache 64 bins x 7' <<<"$v1" && [ -z "$v0" ]; then
    pass options-verbosity
else fail options-verbosity "v1=$(head -c 200 <<<"$v1") v0=$(head -c 200 <<<"$v0")"; fi

# report-log-path
run "log_path=$tmp/log.%p" double-free
logs=("$tmp"/log.*)
if [ $rc -eq 134 ] && [ -z "$err" ] && [ -f "${logs[0]}" ] &&
   grep -q '^==[0-9]*==ERROR: chunkguard: double-free' "${logs[0]}" &&
   [ "${logs[0]}" = "$tmp/log.$(grep -o '^==[0-9]*' "${logs[0]}" | head -1 | tr -d =)" ]; then
    pass report-log-path
else fail report-log-path "rc=$rc err=$(head -c 200 <<<"$err") logs=${logs[*]}"; fi

# report-exitcode
run exitcode=23 double-free; a=$rc; ea=$err
run abort_on_error=0 double-free; b=$rc
run abort_on_error=1:exitcode=23 double-free; c=$rc
if [ $a = 23 ] && [ $b = 1 ] && [ $c = 134 ] && grep -q 'ERROR: chunkguard: double-free' <<<"$ea"; then
    pass report-exitcode
else fail report-exitcode "exitcode=23 -> $a, abort_on_error=0 -> $b, both -> $c"; fi

# options-setuid: a set-uid-root copy run by nobody is AT_SECURE
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
    sdir=$(mktemp -d /tmp/cg-suid.XXXXXX); chmod 755 "$sdir"
    # A set-uid program ignores a LD_PRELOAD path with a slash unless the
    # library is in a system directory and set-uid itself; link it in instead.
    gcc -O1 -fno-builtin -Wno-use-after-free -o "$sdir/probe-static" "$R/tests/options/probe.c" \
        "$CG_BUILD/libchunkguard.a" -pthread -lunwind &&
        chmod 4755 "$sdir/probe-static"
    out=$(CHUNKGUARD_OPTIONS="log_path=$sdir/leak.%p:verbosity=1" \
          setpriv --reuid=65534 --regid=65534 --clear-groups "$sdir/probe-static" double-free 2>"$tmp/err"); rc=$?
    err=$(cat "$tmp/err")
    if [ $rc -eq 134 ] && grep -q 'path option ignored in a set-uid process' <<<"$err" &&
       grep -q 'ERROR: chunkguard: double-free' <<<"$err" && ! ls "$sdir"/leak.* >/dev/null 2>&1 &&
       grep -q 'fast mode' <<<"$err"; then pass options-setuid
    else fail options-setuid "rc=$rc err=$(head -c 300 <<<"$err")"; fi
    rm -rf "$sdir"
else
    fail options-setuid "needs root and setpriv (util-linux)"
fi

# fill-alloc / fill-free (fill_free acts where M_PERTURB does: past the
# tcache, so the tcache is turned off for the free probe)
run fill_alloc=0xab alloc-byte 64; fa=$out
run fill_free=0x5c free-byte 200; ff1=$out
out=$(GLIBC_TUNABLES=glibc.malloc.tcache_count=0 CHUNKGUARD_OPTIONS=fill_free=0x5c LD_PRELOAD=$SO \
      "$B/probe" free-byte 200 2>&1); ff=$out
if [ "$fa" = 171 ]; then pass fill-alloc; else fail fill-alloc "byte=$fa, want 171"; fi
if [ "$ff" = 92 ] && [ "$ff1" = 17 ]; then pass fill-free
else fail fill-free "past the tcache: $ff (want 92); into the tcache: $ff1 (want 17, untouched)"; fi

# tunables-*: through the start-up line and through behaviour
hello() { env "$@" CHUNKGUARD_OPTIONS=verbosity=1 LD_PRELOAD=$SO "$B/probe" ok 2>&1 >/dev/null; }
h=$(hello GLIBC_TUNABLES=glibc.malloc.tcache_count=3:glibc.malloc.tcache_max=100:glibc.malloc.arena_max=2:glibc.malloc.mxfast=0)
if grep -q 'tcache 6 bins x 3, fastbin chunks <= 16 B,.* arena_max 2,' <<<"$h"; then pass tunables-glibc
else fail tunables-glibc "$h"; fi
h=$(hello GLIBC_TUNABLES=glibc.malloc.tcache_count=70000:glibc.malloc.tcache_max=5000:glibc.malloc.mxfast=200:glibc.other.x=1)
if grep -q 'tcache 64 bins x 7, fastbin chunks <= 128 B' <<<"$h"; then pass tunables-out-of-range
else fail tunables-out-of-range "$h"; fi
h=$(hello MALLOC_ARENA_MAX=3 MALLOC_MMAP_THRESHOLD_=65536)
h2=$(hello MALLOC_ARENA_MAX=3 GLIBC_TUNABLES=glibc.malloc.arena_max=5)
if grep -q 'mmap_threshold 65536, arena_max 3,' <<<"$h" && grep -q 'arena_max 5,' <<<"$h2"; then
    pass tunables-aliases
else fail tunables-aliases "$h / $h2"; fi
pa=$(MALLOC_PERTURB_=90 LD_PRELOAD=$SO "$B/probe" alloc-byte 64)
pb=$(MALLOC_PERTURB_=90 CHUNKGUARD_OPTIONS=fill_alloc=7 LD_PRELOAD=$SO "$B/probe" alloc-byte 64)
if [ "$pa" = 165 ] && [ "$pb" = 7 ]; then pass tunables-perturb
else fail tunables-perturb "MALLOC_PERTURB_=90 -> $pa (want 165); with fill_alloc=7 -> $pb"; fi

# options-comma: mode=debug,detect_leaks=1 as ASan takes it; ':' and ','
# mixed; the start-up line shows both took effect
run "verbosity=1,mode=debug,detect_leaks=1" ok; c1=$err
run "verbosity=1:mode=debug,detect_leaks=1:stack_depth=3" ok; c2=$err
if [ "$(grep -c WARNING <<<"$c1$c2")" = 0 ] &&
   grep -q 'chunkguard: debug mode; .*detect_leaks 1' <<<"$c1" &&
   grep -q 'chunkguard: debug mode; .*detect_leaks 1' <<<"$c2"; then pass options-comma
else fail options-comma "$(head -c 300 <<<"$c1") / $(head -c 300 <<<"$c2")"; fi

# options-asan-separators: as ASan's flag parser, '\n', '\r', spaces and
# tabs separate pairs too (each pair applied, no warning); a quoted value
# keeps them; a word without '=' between pairs is warned of, alone
nl=$'\n' cr=$'\r'
run "verbosity=1${nl}mode=debug${cr}detect_leaks=1 stack_depth=4	redzone=32" ok; a1=$err
run "verbosity=1 log_path='$tmp/sp ace:${nl}x.%p' abort_on_error=0" double-free; a2=$rc; a2e=$err
run "verbosity=1 stray mode=debug" ok; a3=$err
al=("$tmp/sp ace:${nl}x."*)
if [ "$(grep -c WARNING <<<"$a1")" = 0 ] &&
   grep -q 'chunkguard: debug mode; redzone 32 B, .*stack_depth 4, detect_leaks 1' <<<"$a1" &&
   [ "$a2" = 1 ] && [ -f "${al[0]}" ] && ! grep -q WARNING <<<"$a2e" &&
   [ "$(grep -c WARNING <<<"$a3")" = 1 ] && grep -q "WARNING: chunkguard: option without '=': 'stray'" <<<"$a3" &&
   grep -q 'chunkguard: debug mode' <<<"$a3"; then pass options-asan-separators
else fail options-asan-separators "$(head -c 300 <<<"$a1") / rc=$a2 $(head -c 200 <<<"$a2e") / $(head -c 300 <<<"$a3")"; fi

# options-blanks: spaces and tabs around keys, values and separators are
# dropped (no warning, both options applied); inside quotes they are kept
run " verbosity=1 , mode=debug ,	detect_leaks = 1 , stack_depth=4 " ok; s1=$err
run "verbosity=1:log_path = '$tmp/s p.%p'  :abort_on_error=0" double-free; s2=$rc; s2e=$err
sl=("$tmp"/s\ p.*)
if [ "$(grep -c WARNING <<<"$s1")" = 0 ] &&
   grep -q 'chunkguard: debug mode; .*detect_leaks 1' <<<"$s1" &&
   grep -q 'stack_depth 4\b' <<<"$s1" && [ "$s2" = 1 ] && [ -f "${sl[0]}" ] &&
   ! grep -q WARNING "${sl[0]}"; then pass options-blanks
else fail options-blanks "$(head -c 300 <<<"$s1") / rc=$s2 $(head -c 200 <<<"$s2e") logs: $(ls "$tmp" | tr '\n' ' ')"; fi

# options-quoted-path: a path with ':' and ',' in quotes, either kind
run "log_path='$tmp/q:a,b.%p',abort_on_error=0" double-free; q1=$rc; qe=$err
run "log_path=\"$tmp/q2,b.%p\":abort_on_error=0" double-free; q2=$rc
ql=("$tmp"/q:a,b.*); ql2=("$tmp"/q2,b.*)
if [ $q1 = 1 ] && [ $q2 = 1 ] && [ -z "$qe" ] && [ -f "${ql[0]}" ] && [ -f "${ql2[0]}" ] &&
   grep -q 'ERROR: chunkguard: double-free' "${ql[0]}"; then pass options-quoted-path
else fail options-quoted-path "rc=$q1/$q2 err=$(head -c 200 <<<"$qe") logs: $(ls "$tmp" | tr '\n' ' ')"; fi

# options-bad-quote: unterminated (the rest is inside it), or text after
# the closing quote: a warning each; the options before still apply
run "verbosity=1,log_path='$tmp/never" ok; b1=$err
run "log_path='$tmp/x'y,verbosity=1" ok; b2=$err
if grep -q "WARNING: chunkguard: unterminated quote in 'log_path='" <<<"$b1" &&
   grep -q 'chunkguard: fast mode' <<<"$b1" &&
   grep -q "WARNING: chunkguard: bad value in 'log_path='$tmp/x'y'" <<<"$b2" &&
   grep -q 'chunkguard: fast mode' <<<"$b2" && ! ls "$tmp"/never "$tmp"/x* >/dev/null 2>&1; then
    pass options-bad-quote
else fail options-bad-quote "$(head -c 300 <<<"$b1") / $(head -c 300 <<<"$b2")"; fi

# options-log-path-unopenable: a log_path that cannot be opened (its
# directory missing, or a directory itself), quoted or not: the report
# goes to stderr after one warning line naming the path and the errno
run "log_path='$tmp/no dir/q.%p',abort_on_error=0" double-free; u1=$rc; ue1=$err
run "log_path=$tmp/nodir/u.%p:abort_on_error=0" double-free; u2=$rc; ue2=$err
run "log_path=$tmp:abort_on_error=0" double-free; u3=$rc; ue3=$err
if [ "$u1" = 1 ] && [ "$u2" = 1 ] && [ "$u3" = 1 ] &&
   [ "$(grep -c "WARNING: chunkguard: cannot open log_path '$tmp/no dir/q\.[0-9]*': ENOENT (errno 2); writing to stderr" <<<"$ue1")" = 1 ] &&
   grep -q "WARNING: chunkguard: cannot open log_path '$tmp/nodir/u\.[0-9]*': ENOENT (errno 2)" <<<"$ue2" &&
   grep -q "WARNING: chunkguard: cannot open log_path '$tmp': EISDIR (errno 21)" <<<"$ue3" &&
   grep -q 'ERROR: chunkguard: double-free' <<<"$ue1" && grep -q 'ERROR: chunkguard: double-free' <<<"$ue2" &&
   grep -q 'ERROR: chunkguard: double-free' <<<"$ue3"; then pass options-log-path-unopenable
else fail options-log-path-unopenable "rc=$u1/$u2/$u3 $(head -c 200 <<<"$ue1") / $(head -c 200 <<<"$ue3")"; fi

# options-path-unopenable: report_path and stats_path in a missing
# directory, or naming a directory: one warning each, naming the option,
# the path and the errno (the same function as log_path's), not one a write
run "report_path=$tmp/nodir/r.%p:abort_on_error=0" double-free; pu=$rc; pue=$err
run "stats_path=$tmp" ok; pu2=$rc; pue="$pue
$err"
if [ "$pu" = 1 ] && [ "$pu2" = 0 ] &&
   [ "$(grep -c "WARNING: chunkguard: cannot open report_path '$tmp/nodir/r\.[0-9]*': ENOENT (errno 2)" <<<"$pue")" = 1 ] &&
   [ "$(grep -c "WARNING: chunkguard: cannot open stats_path '$tmp': EISDIR (errno 21)" <<<"$pue")" = 1 ] &&
   grep -q 'ERROR: chunkguard: double-free' <<<"$pue"; then pass options-path-unopenable
else fail options-path-unopenable "rc=$pu/$pu2 $(grep WARNING <<<"$pue" | head -c 400)"; fi

# options-long-path: a deep directory (300 and 3900 bytes of path) still
# receives report_path's JSON and log_path's text; 4096 bytes (PATH_MAX
# with its NUL) is too long: a warning, the default kept
deep() {   # deep N: a directory under $tmp whose path is about N bytes
    local d=$tmp/long
    while [ ${#d} -lt $(($1 - 60)) ]; do d=$d/dddddddddddddddddddddddddddddddddddddddd; done
    mkdir -p "$d" && echo "$d"
}
lp_ok=1; lp_msg=
for n in 300 3900; do
    d=$(deep $n)
    run "report_path=$d/r.json:log_path=$d/l.txt:abort_on_error=0" double-free
    if [ "$rc" != 1 ] || ! grep -q '"kind":"double-free"' "$d/r.json" 2>/dev/null ||
       ! grep -q 'ERROR: chunkguard: double-free' "$d/l.txt" 2>/dev/null || grep -q WARNING <<<"$err"; then
        lp_ok=0; lp_msg="$lp_msg n=$n(${#d}) rc=$rc $(head -c 200 <<<"$err")"
    fi
done
long=$tmp/$(head -c 4100 /dev/zero | tr '\0' x)
run "report_path=$long:abort_on_error=0" double-free
if [ $lp_ok = 1 ] && grep -q "bad value in 'report_path=" <<<"$err" &&
   grep -q 'ERROR: chunkguard: double-free' <<<"$err"; then pass options-long-path
else fail options-long-path "$lp_msg / 4100: $(head -c 200 <<<"$err")"; fi

# stats-fork-child: the parent makes 1000 malloc/free pairs, its child 10
mkdir -p "$tmp/st"
run "stats_path=$tmp/st/cg.%p" fork-counts 1000 10; frc=$rc
sf=("$tmp"/st/cg.*)
field() { tr ' ' '\n' <"$1" | sed -n "s/^$2=//p"; }
pm=; cm=; cf=
for f in "${sf[@]}"; do
    [ -f "$f" ] || continue
    m=$(field "$f" mallocs)
    if [ "${m:-0}" -ge 1000 ] && [ -z "$pm" ]; then pm=$m; else cm=$m; cf=$(field "$f" frees); fi
done
if [ $frc = 0 ] && [ ${#sf[@]} = 2 ] && [ -n "$pm" ] && [ -n "$cm" ] &&
   [ "$cm" -ge 10 ] && [ "$cm" -lt 100 ] && [ "$cf" -ge 10 ] && [ "$cf" -lt 100 ]; then
    pass "stats-fork-child (parent mallocs=$pm, child mallocs=$cm frees=$cf)"
else fail stats-fork-child "rc=$frc files: $(cat "${sf[@]}" 2>/dev/null | cut -c1-120 | tr '\n' '|')"; fi

# stats-fork-one-file: stats_path without %p, the same fork: the child's
# line and the parent's are both in the file (appended: the parent, which
# exits last, overwrote the child's line)
rm -f "$tmp/one.stats"
run "stats_path=$tmp/one.stats" fork-counts 1000 10; frc=$rc
ms=$(sed -n 's/^pid=[0-9]* .* mallocs=\([0-9]*\) .*/\1/p' "$tmp/one.stats" 2>/dev/null | sort -n | tr '\n' ' ')
read -r cm pm rest <<<"$ms"
if [ $frc = 0 ] && [ "$(grep -c '^pid=' "$tmp/one.stats")" = 2 ] && [ -z "$rest" ] &&
   [ "${cm:-0}" -ge 10 ] && [ "${cm:-0}" -lt 100 ] && [ "${pm:-0}" -ge 1000 ]; then
    pass "stats-fork-one-file (child mallocs=$cm, parent mallocs=$pm)"
else fail stats-fork-one-file "rc=$frc mallocs: $ms; file: $(cut -c1-100 "$tmp/one.stats" 2>/dev/null | tr '\n' '|')"; fi
# stats-exit-kinds: with %p, children that end by exit, _exit and SIGKILL:
# every file starts with its start line naming its pid and program
# (written at start-up); the first two children have their exit line
# after it, the killed one none, the parent its exit line
rm -rf "$tmp/sk"; mkdir -p "$tmp/sk"
run "stats_path=$tmp/sk/cg.%p" fork-ends; frc=$rc
nf=$(ls "$tmp/sk" | wc -l); nl=$(cat "$tmp/sk"/cg.* 2>/dev/null | grep -c '^pid=')
ns=0; nx=0
for f in "$tmp"/sk/cg.*; do
    [ "$(head -n 1 "$f")" = "start pid=${f##*/cg.} exe=$B/probe" ] && ns=$((ns + 1))
    [ "$(wc -l <"$f")" = 1 ] && nx=$((nx + 1))
done
if [ $frc = 0 ] && [ "$nf" = 4 ] && [ "$nl" = 3 ] && [ "$ns" = 4 ] && [ "$nx" = 1 ]; then
    pass stats-exit-kinds
else fail stats-exit-kinds "rc=$frc $nf files (want 4), $nl exit lines (want 3), $ns start lines naming the pid and $B/probe (want 4), $nx with the start line alone (want 1): $(head -n 1 "$tmp"/sk/cg.* 2>/dev/null | tr '\n' '|' | cut -c1-300)"; fi

# stats-exec-start: sh exec's the probe: the process's file has sh's start
# line, then the probe's, then the probe's exit line
rm -rf "$tmp/se"; mkdir -p "$tmp/se"
out=$(timeout 20 env CHUNKGUARD_OPTIONS="stats_path=$tmp/se/cg.%p" LD_PRELOAD="$SO" \
      /bin/sh -c "exec '$B/probe' ok" 2>"$tmp/err"); rc=$?
sh_exe=$(readlink -f /bin/sh)
se=$(cat "$tmp"/se/cg.* 2>/dev/null | sed 's/ mallocs=.*//')
pid=$(ls "$tmp/se" | sed 's/^cg\.//')
want="start pid=$pid exe=$sh_exe
start pid=$pid exe=$B/probe
pid=$pid exe=$B/probe"
if [ $rc = 0 ] && [ "$out" = ok ] && [ "$(ls "$tmp/se" | wc -l)" = 1 ] && [ "$se" = "$want" ]; then
    pass stats-exec-start
else fail stats-exec-start "rc=$rc out '$out'; file (cut at mallocs=): $(tr '\n' '|' <<<"$se"), want $(tr '\n' '|' <<<"$want")"; fi
