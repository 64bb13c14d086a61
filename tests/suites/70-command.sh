#!/usr/bin/env bash
# 70-command.sh — the chunkguard command (tools/chunkguard, issue 14 points
# 2-4), on tests/command/buggy.c run in debug mode:
#   command-help          --help of the command and of each subcommand
#   command-run-status    a clean command's own status (0, 3), no report
#   command-run-children  reports of forked and exec'd children, one file
#                         per pid, the summary naming kinds and processes;
#                         exit status 23, or exitcode from --options
#   command-report        `report DIR` summarizes a collected DIR the same way
#   sarif-valid           the SARIF log passes the official 2.1.0 schema
#                         (tests/command/sarif-2.1.0.json, Debian's
#                         python3-jsonschema); a broken copy is rejected
#   sarif-content         one result per unique report, ruleId = token, the
#                         top frame's file:line relative to --srcroot, stacks
#                         as codeFlows
#   sarif-fingerprint     partialFingerprints equal across two runs (ASLR)
#   junit                 a test case per process, a failure per report, read
#                         by a JUnit structure check that rejects a broken copy
#   junit-ends            children that end by exit, _exit and SIGKILL each
#                         get a test case (the library's stats file is made
#                         at start-up and written at _exit too); the killed
#                         one's says it has no exit record; all four are
#                         named by their program (the stats file's start
#                         line's exe)
#   junit-ends-fast-segv  fast mode, a child killed by a wild pointer's
#                         SIGSEGV (no report): its test case, the summary,
#                         the SARIF run's chunkguardProcesses and the HTML
#                         process table name it by its program
#   junit-ends-blank-path the same from a program whose path holds a
#                         blank: named by the whole path
#   html-dom              headless Chromium's DOM of the HTML report: the
#                         overflow's 4 wrong bytes 41, the use after free's
#                         58, leaks sorted by bytes, nothing external; a
#                         screenshot in build/command/report.png
#   symbolize             `symbolize` adds file:line to a text report, the
#                         same with llvm-symbolizer and with addr2line, and
#                         leaves one the library symbolized as it is
#   symbolize-asan-layout ASan's frames (two blanks before the module) symbolized
#   symbolize-call-lines  (tests/symbolize/calls.c, whose calls mostly
#                         follow an instruction of another line) `symbolize`
#                         of a symbolize=0 text report and `report --sarif`
#                         of its JSON give each frame the line the library
#                         itself gives it: the call's (a frame's address is
#                         the call's first byte, looked up as it is)
#   symbolize-timeout     a symbolizer that never answers: symbolize and
#                         report end within seconds, one warning naming the
#                         tool and the timeout, frames module+offset
#   dedup-hash-aslr       the JSON "hash" (and the text's HASH line) equal
#                         across two runs whose addresses differ
#   dedup-hash-rebuild    equal after a rebuild that moves every function
#   dedup-hash-differs    another token on the same stack, other stacks:
#                         other hashes
#   dedup-command-agrees  the command's fallback hash is the library's;
#                         SARIF's fingerprints are the library's hashes
#   dedup-hash-no-libc-offset  a frame with no symbol below a named one
#                         (libc's start code under main) is not hashed
#   dedup-hash-nosym      frames with no symbol (a stripped program) enter
#                         by module+offset: two bugs, two hashes
#   dedup-hash-stripped-rebuild  two stripped builds, every function moved:
#                         the same hash (frames with no symbol by their
#                         function's size and offset in it, .eh_frame),
#                         no libc offset in it; the command agrees
#   dedup-hash-deleted    a program deleted while it runs: its module's
#                         " (deleted)" is not hashed
#   dedup-hash-soversion  libx.so.1.0.0 and libx.so.1.0.1, the same code:
#                         the same hash
#   dedup-hash-modes      fast mode's report has debug mode's whole stack
#                         (captured at report time): the same frames and
#                         the same hash; the command agrees
#   fast-stack-no-unwinder  fast mode with a libunwind.so.8 that has no
#                         unwinder in it: the report still comes, frame #0
#                         alone (today's report)
#   supp-tokens           the command's report kinds are errors.def's
#   supp-function         suppressions=FILE: by a function; not printed, no
#                         halt, counted at exit and in the stats line
#   supp-fork             a forked child's count starts at zero
#   supp-module           by module basename (anchored) and path
#   supp-file             by the source file the symbolizer gives
#   supp-wildcard         * and the ^ $ anchors; a report found at exit by
#                         its allocation stack
#   supp-inlined          by an inlined function's name, in process and in
#                         `report --suppressions`; not with symbolize=0
#   supp-token-mismatch   the frame matches, the kind does not: reported
#   supp-bad-file         an unreadable file, bad lines: one-line warnings
#   supp-many-rules       rules past the 256th: one warning with their count
#   supp-leak             leak groups by allocation stack, bytes counted;
#                         all suppressed: exit status unchanged
#   supp-fatal            a report that ends the process is printed, with a
#                         note
#   supp-modes            one program, one suppressions file, debug and fast
#                         mode, a rule on frame #0 and one on a caller: what
#                         each prints, notes, credits and exits with is the
#                         table docs/reports.md gives; `report` agrees
#   supp-command          report/run --suppressions, the library's option
#                         through run: summary, SARIF, JUnit, HTML count them
#   run-daemon            a job whose process daemon()s and ends at once,
#                         its daemon reporting a double free 1 s later: run
#                         waits for the daemon (its stats file's start line,
#                         no exit line, the pid alive), and its report is in
#                         the summary and the JUnit file; status 23
#   run-ends-in-libc      processes that end inside libc, past the exported
#                         _exit: daemon()'s parent, quick_exit, posix_spawn's
#                         child when the exec fails: each that has a stats
#                         file has its exit line, none is said to have no
#                         exit record; the statuses are the job's (0, 3, 0)
#   run-daemon-timeout    a daemon still running after --wait-descendants 1:
#                         run ends within seconds, its summary names the
#                         daemon as still running, so do its test case,
#                         the SARIF run's chunkguardProcesses ("end") and
#                         the HTML process table; none says "no exit record"
#   run-daemon-pid-reuse  a stats file with no exit line whose pid is now an
#                         unrelated process (started later, not the job's
#                         environment): run does not wait for it
#   run-wait-bad          --wait-descendants -1 or x: a usage error (2)
#   command-thread-exe-*  a report made on a thread other than main's
#                         (tests/stall/stall.c), each mode: the JSON's
#                         "exe" is the program, and the summary and the
#                         JUnit test case name the process by it, not by
#                         libc (the outermost frame of a thread's stack)
set -u
R=$CG_ROOT; B=$CG_BUILD/command; SO=$CG_SO
CG="$R/tools/chunkguard"
PY=/usr/bin/python3             # Debian's, with Debian's python3-jsonschema
mkdir -p "$B"
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
echo "command: installing what the suite needs (once: python3-jsonschema, chromium)"
"$R/tools/deps.sh" command || { echo "FAIL command-deps: tools/deps.sh command"; exit 1; }
make -s -C "$R" lib >/dev/null || { echo "FAIL command-build: make lib"; exit 1; }
gcc -O0 -g -Wall -fno-builtin -o "$B/buggy" "$R/tests/command/buggy.c" ||
    { echo "FAIL command-build: buggy"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export CHUNKGUARD_LIB=$SO
OPTS=halt_on_error=0:detect_leaks=1

# command-help
bad=""
for sub in "" run report symbolize; do
    out=$("$CG" $sub --help 2>&1) || bad="$bad '$sub --help' failed;"
    grep -qi "usage" <<<"$out" || bad="$bad '$sub --help' prints no usage;"
done
grep -q -- "--report-dir" <<<"$("$CG" run --help)" || bad="$bad run --help lacks --report-dir;"
grep -q -- "--wait-descendants" <<<"$("$CG" run --help)" || bad="$bad run --help lacks --wait-descendants;"
[ -z "$bad" ] && pass command-help || fail command-help "$bad"

# command-run-status
"$CG" run --mode debug --report-dir "$tmp/clean" -- "$B/buggy" ok 2>"$tmp/clean.err"; rc0=$?
"$CG" run --mode debug --report-dir "$tmp/clean3" -- sh -c "'$B/buggy' ok; exit 3" 2>/dev/null; rc3=$?
if [ "$rc0" -eq 0 ] && [ "$rc3" -eq 3 ] && grep -q "no reports" "$tmp/clean.err" &&
   ! ls "$tmp/clean"/*.json >/dev/null 2>&1; then pass command-run-status
else fail command-run-status "statuses $rc0 and $rc3 (want 0, 3); $(tail -2 "$tmp/clean.err")"; fi

# command-run-children: sh forks and execs buggy three times; one buggy forks
# and execs itself again
echo "command: running the buggy programs under chunkguard run"
job="'$B/buggy' overflow; '$B/buggy' leak; '$B/buggy' uaf; '$B/buggy' fork; true"
"$CG" run --mode debug --options "$OPTS" --report-dir "$tmp/d1" --srcroot "$R" \
    --sarif "$tmp/out.sarif" --junit "$tmp/out.xml" --html "$B/report.html" \
    -- sh -c "$job" 2>"$tmp/run.err" >/dev/null; rc=$?
summary=$(sed -n '/^chunkguard: [0-9]* report/,$p' "$tmp/run.err")
nfiles=$(ls "$tmp/d1"/*.json 2>/dev/null | wc -l)
bad=""
[ "$rc" -eq 23 ] || bad="$bad exit status $rc, not 23;"
[ "$nfiles" -eq 4 ] || bad="$bad $nfiles report files, not 4 (overflow, leak, uaf, fork's child);"
for k in heap-buffer-overflow memory-leak heap-use-after-free; do
    grep -q "by kind:.*$k" <<<"$summary" || bad="$bad summary lacks $k;"
done
grep -q "heap-buffer-overflow 2" <<<"$summary" || bad="$bad two overflows not counted;"
grep -q "6 report(s), 5 unique" <<<"$summary" || bad="$bad not '6 report(s), 5 unique';"
for f in "$tmp/d1"/*.json; do
    pid=$(basename "$f" .json)
    grep -q "pid $pid " <<<"$summary" || bad="$bad summary does not name pid $pid;"
done
[ "$(wc -l <<<"$summary")" -le 25 ] || bad="$bad summary longer than a screen;"
"$CG" run --mode debug --options "$OPTS:exitcode=42" --report-dir "$tmp/d42" -- "$B/buggy" overflow 2>/dev/null
rc42=$?
[ "$rc42" -eq 42 ] || bad="$bad exitcode=42 gave $rc42;"
[ -z "$bad" ] && pass command-run-children || fail command-run-children "$bad $(head -c 600 <<<"$summary")"

# command-report
"$CG" report "$tmp/d1" --junit "$tmp/again.xml" 2>"$tmp/report.err"; rc=$?
again=$(sed -n '/^chunkguard: [0-9]* report/,$p' "$tmp/report.err")
if [ "$rc" -eq 23 ] && [ "$again" = "$(grep -v 'written to' <<<"$summary")" ] ||
   [ "$rc" -eq 23 ] && diff <(grep -v 'written to' <<<"$again") <(grep -v 'written to' <<<"$summary") >/dev/null
then pass command-report
else fail command-report "status $rc; $(diff <(echo "$again") <(echo "$summary") | head -c 400)"; fi

# sarif-valid (and the validator is able to say no)
SCHEMA=$R/tests/command/sarif-2.1.0.json
"$PY" - "$tmp/out.sarif" "$tmp/broken.sarif" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["version"] = "2.0.0"                       # not an allowed version
d["runs"][0]["results"][0].pop("message")    # a result must have a message
json.dump(d, open(sys.argv[2], "w"))
EOF
"$PY" "$R/tests/command/check.py" sarif "$tmp/out.sarif" "$SCHEMA" 2>"$tmp/v.err"; v1=$?
"$PY" "$R/tests/command/check.py" sarif "$tmp/broken.sarif" "$SCHEMA" 2>/dev/null; v2=$?
if [ "$v1" -eq 0 ] && [ "$v2" -eq 1 ]; then pass sarif-valid
else fail sarif-valid "valid log: status $v1 ($(head -c 300 "$tmp/v.err")); broken log: status $v2 (want 1)"; fi

# sarif-content
"$PY" - "$tmp/out.sarif" >"$tmp/sc.out" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
run = d["runs"][0]
res = run["results"]
bad = []
if len(res) != 5:
    bad.append(f"{len(res)} results, not 5 unique")
ids = sorted(r["ruleId"] for r in res)
if ids != ["heap-buffer-overflow", "heap-use-after-free"] + ["memory-leak"] * 3:
    bad.append(f"ruleIds {ids}")
ovf = [r for r in res if r["ruleId"] == "heap-buffer-overflow"]
if ovf:
    r = ovf[0]
    pl = r["locations"][0].get("physicalLocation", {})
    uri = pl.get("artifactLocation", {})
    if uri.get("uri") != "tests/command/buggy.c" or uri.get("uriBaseId") != "SRCROOT":
        bad.append(f"overflow's location {uri}")
    if pl.get("region", {}).get("startLine") != 23:
        bad.append(f"overflow's line {pl.get('region')}, not 23 (free(p))")
    if r.get("occurrenceCount") != 2:
        bad.append("overflow occurrenceCount not 2")
    flows = r.get("codeFlows", [{}])[0].get("threadFlows", [])
    if [f["message"]["text"] for f in flows] != ["where", "allocated"]:
        bad.append(f"overflow's codeFlows {[f.get('message') for f in flows]}")
    if not r.get("partialFingerprints"):
        bad.append("no partialFingerprints")
if not run.get("originalUriBaseIds", {}).get("SRCROOT"):
    bad.append("no SRCROOT base")
print("; ".join(bad))
sys.exit(1 if bad else 0)
EOF
[ $? -eq 0 ] && pass sarif-content || fail sarif-content "$(cat "$tmp/sc.out")"

# sarif-fingerprint: a second run, other addresses (ASLR), same fingerprints
"$CG" run --mode debug --options "$OPTS" --report-dir "$tmp/d2" --sarif "$tmp/out2.sarif" \
    -- sh -c "$job" >/dev/null 2>&1
fp() { "$PY" -c 'import json,sys; print(sorted((r["ruleId"], r["partialFingerprints"]["chunkguardStack/v1"]) for r in json.load(open(sys.argv[1]))["runs"][0]["results"]))' "$1"; }
a1=$(grep -ho '"address":"0x[0-9a-f]*"' "$tmp/d1"/*.json | sort | head -1)
a2=$(grep -ho '"address":"0x[0-9a-f]*"' "$tmp/d2"/*.json | sort | head -1)
f1=$(fp "$tmp/out.sarif"); f2=$(fp "$tmp/out2.sarif")
if [ -n "$f1" ] && [ "$f1" = "$f2" ] && [ "$a1" != "$a2" ]; then pass sarif-fingerprint
else fail sarif-fingerprint "run 1 $f1 ($a1), run 2 $f2 ($a2)"; fi

# junit
"$PY" - "$tmp/out.xml" "$tmp/broken.xml" <<'EOF'
import sys, xml.etree.ElementTree as ET
t = ET.parse(sys.argv[1])
s = t.getroot().find("testsuite")
case = s.find("testcase")
ET.SubElement(case, "failure", type="x", message="extra")   # counts no longer add up
t.write(sys.argv[2])
EOF
"$PY" "$R/tests/command/check.py" junit "$tmp/out.xml" 2>"$tmp/j.err"; j1=$?
"$PY" "$R/tests/command/check.py" junit "$tmp/broken.xml" 2>/dev/null; j2=$?
cases=$(grep -c '<testcase ' "$tmp/out.xml"); fails=$(grep -c '<failure ' "$tmp/out.xml")
nproc=$(ls "$tmp/d1" | sed 's/\..*//' | sort -u | wc -l)
if [ "$j1" -eq 0 ] && [ "$j2" -eq 1 ] && [ "$cases" -eq "$nproc" ] && [ "$fails" -eq 6 ]; then pass junit
else fail junit "check $j1 ($(head -c 200 "$tmp/j.err")), broken $j2 (want 1), $cases cases for $nproc processes, $fails failures (want 6)"; fi

# junit-ends: a job whose children end by exit(0), _exit(0) and SIGKILL
# (tests/options/probe.c fork-ends): a test case for each of the four
# processes, read by the JUnit check; the killed one says it has no exit
# record, the others do not; every one is named by its program (the stats
# file's start line, written at start-up, names the killed one too); the
# _exit child's stats file has its exit line
gcc -O1 -g -Wall -fno-builtin -Wno-use-after-free -o "$B/probe" "$R/tests/options/probe.c" ||
    fail junit-ends "cannot build probe"
# je_cases XML: (test cases, said no exit record, named by the program)
je_cases() {
    "$PY" - "$1" <<'PYEOF' 2>&1
import sys, xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().findall(".//testcase")
said = [c for c in cases if "no exit record" in (c.findtext("system-out") or "")]
named = [c for c in cases if c.get("name", "").endswith("/probe")]
print(len(cases), len(said), len(named))
PYEOF
}
"$CG" run --mode debug --report-dir "$tmp/je" --junit "$tmp/je.xml" -- "$B/probe" fork-ends \
    >/dev/null 2>"$tmp/je.err"; rc=$?
got=$(je_cases "$tmp/je.xml")
lines=$(cat "$tmp/je"/*.stats 2>/dev/null | grep -c '^pid=')
"$PY" "$R/tests/command/check.py" junit "$tmp/je.xml" 2>"$tmp/je.chk"; jc=$?
if [ "$rc" = 0 ] && [ "$got" = "4 1 4" ] && [ "$jc" = 0 ] && [ "$lines" = 3 ]; then pass junit-ends
else fail junit-ends "status $rc, (test cases, said no exit record, named by the program) = ($got), want (4 1 4); $lines stats exit lines, want 3; check $jc $(head -c 200 "$tmp/je.chk")"; fi

# junit-ends-fast-segv: fast mode, a child that stores through a wild
# pointer (probe fork-wild) dies of SIGSEGV with no report: its test case
# says it has no exit record and is named by its program, as its parent's;
# the summary, the SARIF run's chunkguardProcesses (the log still passes
# the 2.1.0 schema) and the HTML report's process table name it too
"$CG" run --mode fast --report-dir "$tmp/jw" --junit "$tmp/jw.xml" --sarif "$tmp/jw.sarif" \
    --html "$tmp/jw.html" -- "$B/probe" fork-wild >/dev/null 2>"$tmp/jw.err"; rc=$?
got=$(je_cases "$tmp/jw.xml")
kid=$(cd "$tmp/jw" && for f in *.stats; do grep -q '^pid=' "$f" || echo "${f%.stats}"; done)
"$PY" "$R/tests/command/check.py" junit "$tmp/jw.xml" 2>"$tmp/jw.chk"; jc=$?
"$PY" "$R/tests/command/check.py" sarif "$tmp/jw.sarif" "$SCHEMA" 2>>"$tmp/jw.chk"; sc=$?
sp=$("$PY" -c 'import json, sys
ps = json.load(open(sys.argv[1]))["runs"][0]["properties"]["chunkguardProcesses"]
print(" ".join("%s:%s:%s" % (p["pid"], p["program"], p["exitRecord"]) for p in ps))' "$tmp/jw.sarif" 2>&1)
if [ "$rc" = 0 ] && [ "$got" = "2 1 2" ] && [ "$jc" = 0 ] && [ "$sc" = 0 ] && [ -n "$kid" ] &&
   grep -q "pid $kid $B/probe: no exit record" "$tmp/jw.err" &&
   grep -Eq "(^| )$kid:$B/probe:False( |\$)" <<<"$sp" &&
   grep -Fq "<tr><td>$kid</td><td>$B/probe</td><td>0</td><td>no exit record" "$tmp/jw.html"
then pass junit-ends-fast-segv
else fail junit-ends-fast-segv "status $rc, (test cases, said no exit record, named by the program) = ($got), want (2 1 2); child '$kid'; check junit $jc sarif $sc $(head -c 200 "$tmp/jw.chk"); SARIF processes: $sp; summary: $(head -c 300 "$tmp/jw.err" | tr '\n' '|')"; fi

# junit-ends-blank-path: the same job from a program whose path holds a
# blank: both test cases are named by the whole path (the start line's exe
# is the rest of its line; the exit line's is what comes before mallocs=)
mkdir -p "$tmp/a b"; cp "$B/probe" "$tmp/a b/probe"
"$CG" run --mode fast --report-dir "$tmp/jb" --junit "$tmp/jb.xml" -- "$tmp/a b/probe" fork-wild \
    >/dev/null 2>"$tmp/jb.err"; rc=$?
got=$("$PY" - "$tmp/jb.xml" "$tmp/a b/probe" <<'PYEOF' 2>&1
import re, sys, xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().findall(".//testcase")
print(len(cases), sum(1 for c in cases if re.fullmatch(r"pid \d+ " + re.escape(sys.argv[2]), c.get("name", ""))))
PYEOF
)
if [ "$rc" = 0 ] && [ "$got" = "2 2" ]; then pass junit-ends-blank-path
else fail junit-ends-blank-path "status $rc, (test cases, named by the whole path) = ($got), want (2 2): $(grep -o 'name="pid[^"]*"' "$tmp/jb.xml" | tr '\n' ' ')"; fi

# run-daemon: the job's process daemon()s (the daemon is in a session of
# its own, reparented away from run) and ends; the daemon double-frees 1 s
# later: its report is in the summary and the JUnit file
t0=$(date +%s.%N)
"$CG" run --mode debug --options halt_on_error=0 --report-dir "$tmp/dm" --junit "$tmp/dm.xml" \
    -- "$B/buggy" daemon >/dev/null 2>"$tmp/dm.err"; rc=$?
took=$(echo "$(date +%s.%N) - $t0" | bc)
got=$("$PY" - "$tmp/dm.xml" <<'PYEOF' 2>&1
import sys, xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().findall(".//testcase")
print(len(cases), sum(1 for c in cases for f in c.findall("failure") if f.get("type") == "double-free"))
PYEOF
)
"$PY" "$R/tests/command/check.py" junit "$tmp/dm.xml" 2>"$tmp/dm.chk"; jc=$?
if [ "$rc" = 23 ] && [ "$got" = "2 1" ] && [ "$jc" = 0 ] && grep -q "double-free 1" "$tmp/dm.err" &&
   ! grep -q "still running when" "$tmp/dm.err" && [ "$(echo "$took < 8" | bc)" = 1 ]
then pass run-daemon
else fail run-daemon "status $rc (want 23), (test cases, double-free failures) = ($got), want (2 1); check $jc; ${took}s; summary: $(head -c 400 "$tmp/dm.err" | tr '\n' '|')"; fi

# run-ends-in-libc: glibc's daemon() ends its parent, quick_exit the
# process, by libc's own _exit, which the exported one does not see; a
# posix_spawn child whose exec fails ends so too (before any start line)
bad=""
nexit() { cat "$1"/*.stats 2>/dev/null | grep -c '^pid='; }
nstats() { ls "$1"/*.stats 2>/dev/null | wc -l; }
[ "$(nexit "$tmp/dm")" = 2 ] && [ "$(nstats "$tmp/dm")" = 2 ] ||
    bad="$bad daemon: $(nexit "$tmp/dm") exit lines in $(nstats "$tmp/dm") stats files, want 2 in 2;"
grep -q "no exit record" "$tmp/dm.err" "$tmp/dm.xml" && bad="$bad daemon: 'no exit record' said;"
for w in quick:3 spawnbad:0; do
    "$CG" run --mode debug --report-dir "$tmp/el-${w%:*}" --junit "$tmp/el-${w%:*}.xml" \
        -- "$B/buggy" "${w%:*}" >/dev/null 2>"$tmp/el-${w%:*}.err"; rc=$?
    [ "$rc" = "${w#*:}" ] || bad="$bad ${w%:*}: status $rc, want ${w#*:};"
    [ "$(nexit "$tmp/el-${w%:*}")" = 1 ] && [ "$(nstats "$tmp/el-${w%:*}")" = 1 ] ||
        bad="$bad ${w%:*}: $(nexit "$tmp/el-${w%:*}") exit lines in $(nstats "$tmp/el-${w%:*}") stats files, want 1 in 1;"
    grep -q "no exit record" "$tmp/el-${w%:*}.err" "$tmp/el-${w%:*}.xml" &&
        bad="$bad ${w%:*}: 'no exit record' said;"
done
[ -z "$bad" ] && pass run-ends-in-libc || fail run-ends-in-libc "$bad $(head -c 300 "$tmp/dm.err" | tr '\n' '|')"

# run-daemon-timeout: a daemon that outlives --wait-descendants 1 does not
# hang run; the summary and its test case say it was still running
t0=$(date +%s.%N)
"$CG" run --mode debug --options halt_on_error=0 --wait-descendants 1 --report-dir "$tmp/dl" \
    --junit "$tmp/dl.xml" --sarif "$tmp/dl.sarif" --html "$tmp/dl.html" \
    -- "$B/buggy" daemonlong >/dev/null 2>"$tmp/dl.err"; rc=$?
took=$(echo "$(date +%s.%N) - $t0" | bc)
kid=$(cd "$tmp/dl" && for f in *.stats; do grep -q '^pid=' "$f" || echo "${f%.stats}"; done)
[ -n "$kid" ] && kill "$kid" 2>/dev/null
sp=$("$PY" -c 'import json, sys
ps = json.load(open(sys.argv[1]))["runs"][0]["properties"]["chunkguardProcesses"]
print(" ".join("%s:%s:%s" % (p["pid"], p["exitRecord"], p.get("end")) for p in ps if str(p["pid"]) == sys.argv[2]))' \
    "$tmp/dl.sarif" "$kid" 2>&1)
"$PY" "$R/tests/command/check.py" sarif "$tmp/dl.sarif" "$SCHEMA" 2>/dev/null; sc=$?
if [ "$rc" = 0 ] && [ -n "$kid" ] && [ "$(echo "$took < 6" | bc)" = 1 ] &&
   grep -q "pid $kid $B/buggy: still running" "$tmp/dl.err" &&
   grep -q "still running" <<<"$(grep -A3 "name=\"pid $kid " "$tmp/dl.xml")" &&
   [ "$sp" = "$kid:False:still running when the reports were collected" ] && [ "$sc" = 0 ] &&
   grep -Fq "<tr><td>$kid</td><td>$B/buggy</td><td>0</td><td>still running" "$tmp/dl.html" &&
   ! grep -q "no exit record" "$tmp/dl.err" "$tmp/dl.xml" "$tmp/dl.sarif" "$tmp/dl.html"
then pass run-daemon-timeout
else fail run-daemon-timeout "status $rc (want 0), daemon '$kid', ${took}s (want < 6); SARIF: '$sp' (schema $sc); HTML: $(grep -o "<tr><td>$kid</td>[^/]*/[^<]*<td>[^<]*</td><td>[^<]*" "$tmp/dl.html"); 'no exit record' in: $(grep -l "no exit record" "$tmp/dl.err" "$tmp/dl.xml" "$tmp/dl.sarif" "$tmp/dl.html" | tr '\n' ' '); summary: $(head -c 400 "$tmp/dl.err" | tr '\n' '|')"; fi

# run-daemon-pid-reuse: DIR holds a stats file with no exit line for a pid
# that is now an unrelated process (not the job's environment, started
# after the file was written): run does not wait for it (default 10 s)
mkdir -p "$tmp/dr"
sleep 30 & other=$!
echo "start pid=$other exe=/usr/bin/gone" >"$tmp/dr/$other.stats"
touch -d '1 hour ago' "$tmp/dr/$other.stats"
t0=$(date +%s.%N)
"$CG" run --report-dir "$tmp/dr" -- true >/dev/null 2>"$tmp/dr.err"; rc=$?
took=$(echo "$(date +%s.%N) - $t0" | bc)
kill "$other" 2>/dev/null; wait "$other" 2>/dev/null
if [ "$rc" = 0 ] && [ "$(echo "$took < 5" | bc)" = 1 ] && ! grep -q "still running\|waiting" "$tmp/dr.err"
then pass run-daemon-pid-reuse
else fail run-daemon-pid-reuse "status $rc, ${took}s (want < 5): $(head -c 300 "$tmp/dr.err" | tr '\n' '|')"; fi

# run-wait-bad
bad=""
for v in -1 x; do
    "$CG" run --wait-descendants "$v" -- true >/dev/null 2>&1; rc=$?
    [ "$rc" = 2 ] || bad="$bad --wait-descendants $v: status $rc;"
done
[ -z "$bad" ] && pass run-wait-bad || fail run-wait-bad "$bad"

# html-dom: headless Chromium renders the page; the DOM it built is checked
echo "command: rendering the HTML report in headless Chromium"
CHROME=(chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run
        --user-data-dir="$tmp/chrome")
timeout 60 "${CHROME[@]}" --dump-dom "file://$B/report.html" >"$tmp/dom.html" 2>/dev/null
timeout 60 "${CHROME[@]}" --window-size=1200,1600 --screenshot="$B/report.png" \
    "file://$B/report.html" >/dev/null 2>&1
# a clean run's page: the same check must find no wrong byte there
"$CG" report "$tmp/clean" --html "$tmp/clean.html" 2>/dev/null
timeout 60 "${CHROME[@]}" --dump-dom "file://$tmp/clean.html" >"$tmp/cdom.html" 2>/dev/null
dom=$("$PY" "$R/tests/command/check.py" dom "$tmp/dom.html" 2>&1); d1=$?
cdom=$("$PY" "$R/tests/command/check.py" dom "$tmp/cdom.html" 2>&1)
bad=""
[ "$d1" -eq 0 ] || bad="$bad $dom;"
grep -qx "heap-buffer-overflow wrong=41414141" <<<"$dom" || bad="$bad overflow's wrong bytes not 41414141;"
grep -qx "heap-use-after-free wrong=58" <<<"$dom" || bad="$bad use after free's wrong byte not 58;"
grep -qx "leaks 300 200 100" <<<"$dom" || bad="$bad leak table not 300 200 100;"
grep -q "wrong=." <<<"$cdom" && bad="$bad a clean run's page has wrong bytes;"
[ -s "$B/report.png" ] || bad="$bad no screenshot;"
[ -z "$bad" ] && pass html-dom || fail html-dom "$bad $(head -c 300 <<<"$dom")"

# symbolize: a text report from a run without the command, as a library
# that does not symbolize writes it (symbolize=0); and one the library
# symbolized itself, which the command leaves as it is
{ CHUNKGUARD_OPTIONS=mode=debug:symbolize=0 LD_PRELOAD=$SO "$B/buggy" overflow 2>"$tmp/text.txt" >/dev/null; } 2>/dev/null
{ CHUNKGUARD_OPTIONS=mode=debug LD_PRELOAD=$SO "$B/buggy" overflow 2>"$tmp/text1.txt" >/dev/null; } 2>/dev/null
"$CG" symbolize <"$tmp/text1.txt" >"$tmp/sym1.txt"
"$CG" symbolize <"$tmp/text.txt" >"$tmp/sym.txt"
CHUNKGUARD_SYMBOLIZER=addr2line "$CG" symbolize <"$tmp/text.txt" >"$tmp/sym2.txt"
# the program's own frames agree (libc's lack debug info: each tool guesses)
if cmp -s <(grep buggy.c "$tmp/sym.txt") <(grep buggy.c "$tmp/sym2.txt") && grep -q "#0 0x[0-9a-f]* in overflow .*buggy.c:23 (.*buggy+0x" "$tmp/sym.txt" &&
   grep -q "#1 0x[0-9a-f]* in main .*buggy.c:[0-9]* " "$tmp/sym.txt" &&
   ! grep -q "buggy.c" "$tmp/text.txt" &&
   [ "$(grep -vc '^ *#' "$tmp/sym.txt")" -eq "$(grep -vc '^ *#' "$tmp/text.txt")" ] &&
   grep -q "#0 0x[0-9a-f]* in overflow .*buggy.c:23 (.*buggy+0x" "$tmp/text1.txt" &&
   cmp -s "$tmp/text1.txt" "$tmp/sym1.txt"
then pass symbolize
else fail symbolize "$(grep -m3 '#' "$tmp/sym.txt"); addr2line's: $(diff <(grep buggy.c "$tmp/sym.txt") <(grep buggy.c "$tmp/sym2.txt") | head -c 300)"; fi

# symbolize-asan-layout: ASan's unsymbolized frames have two blanks before
# "(module+0x...)"; they are symbolized as chunkguard's one-blank frames are
sed 's/^\( *#[0-9]* 0x[0-9a-f]*\)\( in [^ ]*\)\{0,1\} (/\1  (/' "$tmp/text.txt" >"$tmp/text2sp.txt"
"$CG" symbolize <"$tmp/text2sp.txt" >"$tmp/sym2sp.txt"
if grep -q '^ *#0 0x[0-9a-f]*  (' "$tmp/text2sp.txt" && ! grep -q '^ *#[0-9].* in overflow' "$tmp/text2sp.txt" &&
   grep -q "#0 0x[0-9a-f]* in overflow .*buggy.c:23 (.*buggy+0x" "$tmp/sym2sp.txt"
then pass symbolize-asan-layout
else fail symbolize-asan-layout "$(grep -m2 '#' "$tmp/sym2sp.txt")"; fi

# symbolize-call-lines: the command looks a frame up where the library does
gcc -std=gnu11 -g -O1 -o "$B/calls" "$R/tests/symbolize/calls.c" ||
    echo "FAIL symbolize-call-lines: build calls.c"
{ CHUNKGUARD_OPTIONS=mode=debug LD_PRELOAD=$SO "$B/calls" 2>"$tmp/cl1.txt" >/dev/null; } 2>/dev/null
mkdir -p "$tmp/cld"
{ CHUNKGUARD_OPTIONS=mode=debug:symbolize=0:report_path="$tmp/cld/%p.json" LD_PRELOAD=$SO \
      "$B/calls" 2>"$tmp/cl0.txt" >/dev/null; } 2>/dev/null
"$CG" symbolize <"$tmp/cl0.txt" >"$tmp/cls.txt"
"$CG" report "$tmp/cld" --srcroot "$R" --sarif "$tmp/cl.sarif" >/dev/null 2>&1
cl=$("$PY" - "$tmp/cl1.txt" "$tmp/cls.txt" "$tmp/cl.sarif" <<'PY'
import json, re, sys
def lines(path):                  # "#N fn calls.c:L" of the program's frames
    return [m.group(1) for m in re.finditer(r"#\d+ 0x[0-9a-f]+ (in \w+ \S*calls\.c:\d+)",
                                            open(path).read())]
lib, cmd = lines(sys.argv[1]), lines(sys.argv[2])
bad = []
if len(lib) < 8 or lib != cmd:
    bad.append(f"symbolize: {[a for a, b in zip(cmd, lib) if a != b][:3] or cmd[:3]}, "
               f"the library: {[b for a, b in zip(cmd, lib) if a != b][:3] or lib[:3]}")
try:
    res = json.load(open(sys.argv[3]))["runs"][0]["results"]
    flow = res[0]["codeFlows"][0]["threadFlows"][0]["locations"]     # "where"
    got = [l["location"]["physicalLocation"]["region"]["startLine"] for l in flow
           if "calls.c" in l["location"].get("physicalLocation", {})
                                        .get("artifactLocation", {}).get("uri", "")]
    want = [int(x.rsplit(":", 1)[1]) for x in lib[:len(got)]]
    if not got or got != want:
        bad.append(f"sarif's lines {got}, the library's {want}")
except (OSError, ValueError, KeyError, IndexError) as e:
    bad.append(f"sarif: {e!r}")
print("; ".join(bad) or "ok")
PY
)
if [ "$cl" = ok ]; then pass symbolize-call-lines; else fail symbolize-call-lines "$cl"; fi
# symbolize-timeout: an llvm-symbolizer in $PATH that never answers (and
# leaves a child holding its output), CHUNKGUARD_SYMBOLIZER_TIMEOUT=1:
# `symbolize` and `report` end in a few seconds with one warning naming
# the tool and the timeout; the frames stay module+offset, the lines the
# input's
mkdir -p "$tmp/hangbin"
printf '#!/bin/sh\nsleep 300 &\nexec sleep 300\n' >"$tmp/hangbin/llvm-symbolizer"
chmod +x "$tmp/hangbin/llvm-symbolizer"
t0=$(date +%s)
PATH="$tmp/hangbin:$PATH" CHUNKGUARD_SYMBOLIZER_TIMEOUT=1 timeout 60 "$CG" symbolize \
    <"$tmp/text.txt" >"$tmp/symto.txt" 2>"$tmp/symto.err"; src=$?
PATH="$tmp/hangbin:$PATH" CHUNKGUARD_SYMBOLIZER_TIMEOUT=1 timeout 60 "$CG" report "$tmp/d1" \
    >/dev/null 2>"$tmp/repto.err"; rrc=$?
secs=$(( $(date +%s) - t0 ))
want="warning: symbolization given up: $tmp/hangbin/llvm-symbolizer did not answer within 1 s"
if [ "$src" = 0 ] && [ "$rrc" = 23 ] && [ "$secs" -le 10 ] && cmp -s "$tmp/text.txt" "$tmp/symto.txt" &&
   [ "$(grep -cF "$want" "$tmp/symto.err")" = 1 ] && [ "$(grep -cF "$want" "$tmp/repto.err")" = 1 ]; then
    pass symbolize-timeout
else fail symbolize-timeout "status $src/$rrc after ${secs}s; $(cat "$tmp/symto.err" "$tmp/repto.err" | grep -v '^ ' | head -c 300)"; fi

# ---- dedup hash and suppressions (issue 14 point 5) ----------------------
# The library's JSON "hash" and text HASH line (src/report/dedup.h); the
# command's fallback hash agrees with it; suppressions=FILE in process, and
# --suppressions in the command.
LIBRUN() {    # LIBRUN OPTS OUTPREFIX ARGS...: buggy under the library
    local opts=$1 out=$2; shift 2
    CHUNKGUARD_OPTIONS="mode=debug:guard_sample=0:$opts" LD_PRELOAD=$SO "$@" \
        >"$out.out" 2>"$out.err"
}
jhash() {     # jhash FILE KIND: the hashes of FILE's reports of KIND, one a line
    "$PY" -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["kind"] == sys.argv[2] and r.get("hash"): print(r["hash"])' "$1" "$2" 2>/dev/null
}
joff() {      # joff FILE: the offset of the first report's top frame
    "$PY" -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["stacks"]["where"]["frames"][0]["offset"])' "$1" 2>/dev/null
}

# dedup-hash-aslr: two runs, addresses moved by ASLR, hash the same; the
# text's HASH line gives it too
rm -f "$tmp/h1.json" "$tmp/h2.json"
LIBRUN "halt_on_error=0:report_path=$tmp/h1.json" "$tmp/h1" "$B/buggy" overflow
LIBRUN "halt_on_error=0:report_path=$tmp/h2.json" "$tmp/h2" "$B/buggy" overflow
h1=$(jhash "$tmp/h1.json" heap-buffer-overflow); h2=$(jhash "$tmp/h2.json" heap-buffer-overflow)
a1=$(grep -o '"address":"0x[0-9a-f]*"' "$tmp/h1.json" | head -1)
a2=$(grep -o '"address":"0x[0-9a-f]*"' "$tmp/h2.json" | head -1)
t1=$(sed -n 's/^HASH: chunkguard: \([0-9a-f]\{16\}\) of heap-buffer-overflow in overflow < main.*/\1/p' "$tmp/h1.err")
if [[ "$h1" =~ ^[0-9a-f]{16}$ ]] && [ "$h1" = "$h2" ] && [ "$a1" != "$a2" ] && [ "$t1" = "$h1" ]
then pass dedup-hash-aslr
else fail dedup-hash-aslr "hashes '$h1' and '$h2' (addresses $a1, $a2); text HASH '$t1'"; fi

# dedup-hash-rebuild: buggy linked after an unrelated function (the same
# name, in another directory): every offset moves, the hash does not
cat >"$tmp/extra.c" <<'XEOF'
/* an unrelated function, linked before buggy.c's: its code moves */
int unrelated_extra(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * x; return s; }
XEOF
mkdir -p "$B/rebuilt"
gcc -O0 -g -Wall -fno-builtin -o "$B/rebuilt/buggy" "$tmp/extra.c" "$R/tests/command/buggy.c" ||
    fail dedup-hash-rebuild "cannot build rebuilt/buggy"
rm -f "$tmp/h3.json"
LIBRUN "halt_on_error=0:report_path=$tmp/h3.json" "$tmp/h3" "$B/rebuilt/buggy" overflow
h3=$(jhash "$tmp/h3.json" heap-buffer-overflow); o1=$(joff "$tmp/h1.json"); o3=$(joff "$tmp/h3.json")
if [ -n "$h3" ] && [ "$h3" = "$h1" ] && [ -n "$o1" ] && [ "$o1" != "$o3" ]; then pass dedup-hash-rebuild
else fail dedup-hash-rebuild "hash '$h3' after the rebuild, '$h1' before (offsets $o3, $o1)"; fi

# dedup-hash-differs: the same stack with another token, other stacks
rm -f "$tmp/h4.json" "$tmp/h5.json" "$tmp/h6.json"
LIBRUN "halt_on_error=0:report_path=$tmp/h4.json" "$tmp/h4" "$B/buggy" dfree
LIBRUN "halt_on_error=0:report_path=$tmp/h5.json" "$tmp/h5" "$B/buggy" ovf2
LIBRUN "halt_on_error=0:detect_leaks=1:report_path=$tmp/h6.json" "$tmp/h6" "$B/buggy" leak
hd=$(jhash "$tmp/h4.json" double-free); ho=$(jhash "$tmp/h5.json" heap-buffer-overflow)
hl=$(jhash "$tmp/h6.json" memory-leak | sort -u | wc -l)
grep -q "^HASH: chunkguard: $hd of double-free in bad_block < main" "$tmp/h4.err" &&
    grep -q "^HASH: chunkguard: $ho of heap-buffer-overflow in bad_block < main" "$tmp/h5.err"; same=$?
if [ -n "$hd" ] && [ -n "$ho" ] && [ "$hd" != "$ho" ] && [ "$ho" != "$h1" ] && [ "$same" -eq 0 ] &&
   [ "$hl" -eq 3 ] && [ "$(grep -c '^HASH: chunkguard: [0-9a-f]* of memory-leak in lose_' "$tmp/h6.err")" -eq 3 ]
then pass dedup-hash-differs
else fail dedup-hash-differs "double-free $hd, overflow in bad_block $ho, in overflow $h1 (same frames: $same); $hl distinct leak hashes, not 3"; fi

# dedup-command-agrees: the command's own hash (for JSON without one) is the
# library's, for every report of the first run; SARIF's fingerprints are it
"$PY" - "$CG" "$tmp/out.sarif" "$tmp/d1"/*.json >"$tmp/agree.out" 2>&1 <<'PYEOF'
import importlib.machinery, importlib.util, json, sys
loader = importlib.machinery.SourceFileLoader("cgtool", sys.argv[1])
spec = importlib.util.spec_from_loader("cgtool", loader)
cg = importlib.util.module_from_spec(spec); loader.exec_module(cg)
bad, lib = [], set()
for path in sys.argv[3:]:
    for line in open(path):
        r = json.loads(line)
        h = r.pop("hash", None)
        lib.add(h)
        if not h or cg.report_hash(r) != h:
            bad.append(f"{r['kind']}: library {h}, command {cg.report_hash(r)}")
fps = {x["partialFingerprints"]["chunkguardStack/v1"]
       for x in json.load(open(sys.argv[2]))["runs"][0]["results"]}
if fps != lib:
    bad.append(f"SARIF fingerprints {sorted(fps)} are not the library's hashes {sorted(lib)}")
print("; ".join(bad) or f"{len(lib)} hashes agree")
sys.exit(1 if bad else 0)
PYEOF
[ $? -eq 0 ] && pass dedup-command-agrees || fail dedup-command-agrees "$(cat "$tmp/agree.out")"

# Frames with no symbol (issue 14 point 5, as a break tester found): a
# stripped program's, or a deleted one's ("prog (deleted)"), enter the
# hash by module basename and offset instead of being skipped; a shared
# library's file version (libx.so.1.0.0, libx.so.1.0.1) does not; the
# command's fallback hash is the library's for all of them.
NS="$R/tests/command/nosym.c"
mkdir -p "$B/ns-strip" "$B/ns-del" "$B/libx1" "$B/libx2"
gcc -O0 -g -Wall -Wno-use-after-free -o "$B/ns-del/nosym" "$NS" &&
    gcc -O0 -g -Wall -Wno-use-after-free -s -o "$B/ns-strip/nosym" "$NS" ||
    fail dedup-hash-nosym "cannot build nosym"
lib_and_cmd_hash() {  # FILE KIND: "LIBRARY-HASH COMMAND-FALLBACK-HASH" of its first report of KIND
    "$PY" - "$CG" "$1" "$2" <<'PYEOF' 2>/dev/null
import importlib.machinery, importlib.util, json, sys
loader = importlib.machinery.SourceFileLoader("cgtool", sys.argv[1])
spec = importlib.util.spec_from_loader("cgtool", loader)
cg = importlib.util.module_from_spec(spec); loader.exec_module(cg)
for line in open(sys.argv[2]):
    r = json.loads(line)
    if r["kind"] == sys.argv[3]:
        h = r.pop("hash", None)
        print(h, cg.report_hash(r))
        break
PYEOF
}
rm -f "$tmp"/ns*.json
LIBRUN "halt_on_error=0:report_path=$tmp/ns1.json" "$tmp/ns1" "$B/ns-strip/nosym" one
LIBRUN "halt_on_error=0:report_path=$tmp/ns2.json" "$tmp/ns2" "$B/ns-strip/nosym" two
LIBRUN "halt_on_error=0:report_path=$tmp/ns3.json" "$tmp/ns3" "$B/ns-del/nosym" unlink one
read -r n1 c1 <<<"$(lib_and_cmd_hash "$tmp/ns1.json" double-free)"
read -r n2 c2 <<<"$(lib_and_cmd_hash "$tmp/ns2.json" double-free)"
read -r n3 c3 <<<"$(lib_and_cmd_hash "$tmp/ns3.json" double-free)"
# dedup-hash-nosym: two different double frees of a stripped program hash
# differently, and the HASH line names their frames by module+offset
if [ -n "$n1" ] && [ -n "$n2" ] && [ "$n1" != "$n2" ] && [ "$c1" = "$n1" ] && [ "$c2" = "$n2" ] &&
   grep -q "^HASH: chunkguard: $n1 of double-free in (nosym+0x[0-9a-f]*) < (nosym+0x" "$tmp/ns1.err"
then pass dedup-hash-nosym
else fail dedup-hash-nosym "stripped one: $n1 (command $c1), two: $n2 (command $c2); $(grep HASH "$tmp/ns1.err")"; fi
# dedup-hash-deleted: the program deleted while it runs hashes as the
# stripped copy of it does (its symbols cannot be read either; the
# " (deleted)" of its module is not hashed)
if grep -q "nosym (deleted)+0x" "$tmp/ns3.err" && [ -n "$n3" ] && [ "$n3" = "$n1" ] && [ "$c3" = "$n3" ]
then pass dedup-hash-deleted
else fail dedup-hash-deleted "deleted: $n3 (command $c3), stripped: $n1; $(grep -m1 '#0' "$tmp/ns3.err")"; fi

# dedup-hash-stripped-rebuild: two stripped builds of nosym.c, the second
# with an unrelated function linked before it (every function moves): the
# double free hashes the same in both (frames with no symbol enter by
# their function's size and offset in it, from .eh_frame, not by module
# offset), libc's unnamed start-up code below main is not in it, and the
# command's fallback agrees; "one" and "two" still differ
mkdir -p "$B/ns-strip2"
printf 'int unrelated_extra(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * x; return s; }\n' >"$tmp/nsx.c"
gcc -O0 -g -Wall -Wno-use-after-free -s -o "$B/ns-strip2/nosym" "$tmp/nsx.c" "$NS" ||
    fail dedup-hash-stripped-rebuild "cannot build"
rm -f "$tmp"/ns4.json "$tmp"/ns5.json
LIBRUN "halt_on_error=0:report_path=$tmp/ns4.json" "$tmp/ns4" "$B/ns-strip2/nosym" one
LIBRUN "halt_on_error=0:report_path=$tmp/ns5.json" "$tmp/ns5" "$B/ns-strip2/nosym" two
read -r n4 c4 <<<"$(lib_and_cmd_hash "$tmp/ns4.json" double-free)"
read -r n5 c5 <<<"$(lib_and_cmd_hash "$tmp/ns5.json" double-free)"
o1=$(joff "$tmp/ns1.json"); o4=$(joff "$tmp/ns4.json")
if [ -n "$n4" ] && [ "$n4" = "$n1" ] && [ "$c4" = "$n4" ] && [ -n "$n5" ] && [ "$n5" = "$n2" ] &&
   [ "$c5" = "$n5" ] && [ "$n4" != "$n5" ] && [ -n "$o1" ] && [ "$o1" != "$o4" ] &&
   ! grep '^HASH:' "$tmp/ns4.err" | grep -q 'libc[.a-z0-9]*+0x'
then pass dedup-hash-stripped-rebuild
else fail dedup-hash-stripped-rebuild "one: $n1 then $n4 (command $c4), two: $n2 then $n5 (command $c5), offsets $o1 $o4; $(grep '^HASH' "$tmp/ns1.err" "$tmp/ns4.err")"; fi

# dedup-hash-no-libc-offset: in a program with symbols, a frame with no
# symbol below a named one (libc's __libc_start_call_main under main) is
# skipped, not hashed by its offset, which every libc update would move
rm -f "$tmp"/nl.json
mkdir -p "$B/ns-sym"
gcc -O0 -g -Wall -Wno-use-after-free -o "$B/ns-sym/nosym" "$NS" || fail dedup-hash-no-libc-offset "cannot build"
LIBRUN "halt_on_error=0:report_path=$tmp/nl.json" "$tmp/nl" "$B/ns-sym/nosym" one
read -r l1 lc1 <<<"$(lib_and_cmd_hash "$tmp/nl.json" double-free)"
if grep -q "^HASH: chunkguard: $l1 of double-free in free_twice < main" "$tmp/nl.err" &&
   ! grep "^HASH:" "$tmp/nl.err" | grep -q '+0x' && [ -n "$l1" ] && [ "$lc1" = "$l1" ]
then pass dedup-hash-no-libc-offset
else fail dedup-hash-no-libc-offset "library $l1, command $lc1: $(grep '^HASH' "$tmp/nl.err")"; fi

# dedup-hash-soversion: two builds of one shared library, the same code,
# file versions libx.so.1.0.0 and libx.so.1.0.1 (SONAME libx.so.1): the
# double free in it hashes the same
printf '#include <stdlib.h>\nvoid x_drop(char *p);\nvoid x_drop(char *p) { free(p); free(p); }\n' >"$tmp/libx.c"
printf 'void x_drop(char *p);\n#include <stdlib.h>\nint main(void) { x_drop(malloc(24)); return 0; }\n' >"$tmp/xmain.c"
for v in 1 2; do
    gcc -O0 -g -fPIC -shared -Wno-use-after-free -Wl,-soname,libx.so.1 \
        -o "$B/libx$v/libx.so.1.0.$((v - 1))" "$tmp/libx.c" &&
        ln -sf "libx.so.1.0.$((v - 1))" "$B/libx$v/libx.so.1" || fail dedup-hash-soversion "cannot build libx $v"
done
gcc -O0 -g -o "$B/xmain" "$tmp/xmain.c" "$B/libx1/libx.so.1.0.0" || fail dedup-hash-soversion "cannot build xmain"
rm -f "$tmp"/sx*.json
LIBRUN "halt_on_error=0:report_path=$tmp/sx1.json" "$tmp/sx1" env LD_LIBRARY_PATH="$B/libx1" "$B/xmain"
LIBRUN "halt_on_error=0:report_path=$tmp/sx2.json" "$tmp/sx2" env LD_LIBRARY_PATH="$B/libx2" "$B/xmain"
read -r x1 xc1 <<<"$(lib_and_cmd_hash "$tmp/sx1.json" double-free)"
read -r x2 xc2 <<<"$(lib_and_cmd_hash "$tmp/sx2.json" double-free)"
if grep -q "in x_drop .*libx1/libx.so.1.0.0+0x" "$tmp/sx1.err" && grep -q "libx2/libx.so.1.0.1+0x" "$tmp/sx2.err" &&
   [ -n "$x1" ] && [ "$x1" = "$x2" ] && [ "$xc1" = "$x1" ] && [ "$xc2" = "$x2" ]
then pass dedup-hash-soversion
else fail dedup-hash-soversion "libx.so.1.0.0: $x1 (command $xc1), libx.so.1.0.1: $x2 (command $xc2); $(grep -m1 '#0' "$tmp/sx1.err")"; fi

# dedup-hash-modes: the same double free in fast and in debug mode: fast
# mode captures the stack when it reports (docs/reports.md, "Dedup hash"),
# so both have the same frames (by module offset) and the same hash, and
# the command computes that hash from either JSON
rm -f "$tmp"/mf.json "$tmp"/md.json
gcc -O0 -g -Wall -Wno-use-after-free -o "$B/ns-del/nosym" "$NS"    # deleted above
CHUNKGUARD_OPTIONS="mode=fast:report_path=$tmp/mf.json" LD_PRELOAD=$SO "$B/ns-del/nosym" one \
    >/dev/null 2>"$tmp/mf.err"
LIBRUN "halt_on_error=0:report_path=$tmp/md.json" "$tmp/md" "$B/ns-del/nosym" one
"$PY" - "$CG" "$tmp/mf.json" "$tmp/md.json" >"$tmp/modes.out" 2>&1 <<'PYEOF'
import importlib.machinery, importlib.util, json, sys
loader = importlib.machinery.SourceFileLoader("cgtool", sys.argv[1])
spec = importlib.util.spec_from_loader("cgtool", loader)
cg = importlib.util.module_from_spec(spec); loader.exec_module(cg)
fast = json.loads(open(sys.argv[2]).readline())
debug = json.loads(open(sys.argv[3]).readline())
ff, df = fast["stacks"]["where"]["frames"], debug["stacks"]["where"]["frames"]
fo, do = [f["offset"] for f in ff], [f["offset"] for f in df]
ok = (len(ff) >= 3 and fo == do and fast["hash"] == debug["hash"] and
      cg.report_hash(dict(fast, hash=None)) == fast["hash"])
print("ok" if ok else f"fast {fast['hash']} {fo}, debug {debug['hash']} {do}")
sys.exit(0 if ok else 1)
PYEOF
[ $? -eq 0 ] && pass dedup-hash-modes || fail dedup-hash-modes "$(head -c 400 "$tmp/modes.out")"

# fast-stack-no-unwinder: a libunwind.so.8 with no unwinder in it found
# first (LD_LIBRARY_PATH): fast mode's report is still made, with frame #0
# alone, the program's call site
mkdir -p "$tmp/nounw"
echo 'int cg_not_an_unwinder;' | gcc -shared -fPIC -x c - -Wl,-soname,libunwind.so.8 \
    -o "$tmp/nounw/libunwind.so.8"
rm -f "$tmp/mn.json"
CHUNKGUARD_OPTIONS="mode=fast:report_path=$tmp/mn.json" LD_LIBRARY_PATH="$tmp/nounw" \
    LD_PRELOAD=$SO "$B/ns-del/nosym" one >/dev/null 2>"$tmp/mn.err"
nf=$("$PY" -c 'import json,sys; print(len(json.loads(open(sys.argv[1]).readline())["stacks"]["where"]["frames"]))' \
     "$tmp/mn.json" 2>/dev/null)
fo0=$("$PY" -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["stacks"]["where"]["frames"][0]["offset"])' \
      "$tmp/mf.json" 2>/dev/null)
mo0=$("$PY" -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["stacks"]["where"]["frames"][0]["offset"])' \
      "$tmp/mn.json" 2>/dev/null)
if grep -q "ERROR: chunkguard: double-free" "$tmp/mn.err" && [ "$nf" = 1 ] && [ -n "$fo0" ] && [ "$fo0" = "$mo0" ]
then pass fast-stack-no-unwinder
else fail fast-stack-no-unwinder "frames $nf, #0 $mo0 (with the unwinder $fo0); $(head -c 300 "$tmp/mn.err" | tr '\n' '|')"; fi

# supp-tokens: the command knows the library's report kinds (errors.def)
lib_tokens=$(sed -n 's/^CG_ERROR([A-Z_]*, *"\([a-z-]*\)")$/\1/p' "$R/src/report/errors.def" | sort | tr '\n' ' ')
cmd_tokens=$("$PY" -c 'import importlib.machinery as m, importlib.util as u, sys
l = m.SourceFileLoader("cgtool", sys.argv[1]); s = u.spec_from_loader("cgtool", l)
c = u.module_from_spec(s); l.exec_module(c); print(" ".join(sorted(c.TOKENS)) + " ")' "$CG")
if [ -n "$lib_tokens" ] && [ "$lib_tokens" = "$cmd_tokens" ]; then pass supp-tokens
else fail supp-tokens "errors.def has '$lib_tokens', tools/chunkguard's TOKENS '$cmd_tokens'"; fi

# supp-function: a double free suppressed by a function of its stack is not
# printed, does not halt the process (halt_on_error=1) and is counted at exit
printf '# a comment, then a blank line\n\ndouble-free:bad_block\n' >"$tmp/s-fn.txt"
rm -f "$tmp/sf.json"
LIBRUN "suppressions=$tmp/s-fn.txt:report_path=$tmp/sf.json:stats_path=$tmp/sf.stats" "$tmp/sf" "$B/buggy" dfree; rc=$?
if [ "$rc" -eq 0 ] && ! grep -q "ERROR:" "$tmp/sf.err" && [ ! -s "$tmp/sf.json" ] &&
   grep -q "^==[0-9]*==chunkguard: 1 report(s) suppressed (suppressions=$tmp/s-fn.txt):" "$tmp/sf.err" &&
   grep -q "^    1 double-free:bad_block$" "$tmp/sf.err" && grep -q " suppressed=1$" "$tmp/sf.stats" &&
   [ "$(grep -c . "$tmp/sf.err")" -eq 2 ]
then pass supp-function
else fail supp-function "status $rc (want 0); stderr: $(head -c 300 "$tmp/sf.err" | tr '\n' '|'); stats: $(cat "$tmp/sf.stats" 2>/dev/null)"; fi

# supp-fork: a forked child's count starts at zero (the parent's stays the
# parent's: the command adds up the stats files)
mkdir -p "$tmp/sfk"
LIBRUN "suppressions=$tmp/s-fn.txt:stats_path=$tmp/sfk/%p.stats" "$tmp/sfk" "$B/buggy" dfree forkonly
counts=$(sed -n 's/.* suppressed=\([0-9]*\)$/\1/p' "$tmp/sfk"/*.stats | sort | tr '\n' ' ')
if [ "$counts" = "0 1 " ]; then pass supp-fork
else fail supp-fork "the stats files' counts are '$counts', not '0 1' (child, parent)"; fi

# supp-module: by the module's basename (anchored: not a part of the path)
# and by its whole path; a pattern naming neither suppresses nothing
supp_one() {  # supp_one RULE ARG: the number of ERROR lines left (1 report made)
    printf '%s\n' "$1" >"$tmp/s1.txt"
    LIBRUN "halt_on_error=0:suppressions=$tmp/s1.txt" "$tmp/s1" "$B/buggy" "$2"
    grep -c "ERROR: chunkguard: " "$tmp/s1.err"
}
m1=$(supp_one 'heap-buffer-overflow:^buggy$' overflow)
m2=$(supp_one "heap-buffer-overflow:^$B/buggy\$" overflow)
m3=$(supp_one 'heap-buffer-overflow:^command/buggy$' overflow)
if [ "$m1" = 0 ] && [ "$m2" = 0 ] && [ "$m3" = 1 ]; then pass supp-module
else fail supp-module "reports left: $m1 by basename, $m2 by path, $m3 by neither (want 0 0 1)"; fi

# supp-file: by the frame's source file, which only the symbolizer gives
# (the pattern matches no function or module): suppressed with it, not
# with symbolize=0
f1=$(supp_one 'heap-buffer-overflow:buggy.c' overflow)
printf '%s\n' 'heap-buffer-overflow:buggy.c' >"$tmp/sf.txt"
LIBRUN "halt_on_error=0:symbolize=0:suppressions=$tmp/sf.txt" "$tmp/sf" "$B/buggy" overflow
f2=$(grep -c "ERROR: chunkguard: " "$tmp/sf.err")
if [ "$f1" = 0 ] && [ "$f2" = 1 ]; then pass supp-file
else fail supp-file "reports left: $f1 symbolized, $f2 with symbolize=0 (want 0 1)"; fi

# supp-wildcard: * inside and around a pattern; anchors
w1=$(supp_one 'heap-buffer-overflow:ov*flow' overflow)
w2=$(supp_one '*:^over*w$' overflow)
w3=$(supp_one 'heap-buffer-overflow:^verflow' overflow)
w4=$(supp_one 'heap-use-after-free:use_*_free' uaf)
if [ "$w1" = 0 ] && [ "$w2" = 0 ] && [ "$w3" = 1 ] && [ "$w4" = 0 ]; then pass supp-wildcard
else fail supp-wildcard "reports left: $w1 (ov*flow), $w2 (*:^over*w\$), $w3 (^verflow), $w4 (use_*_free, uaf found at exit) (want 0 0 1 0)"; fi

# supp-inlined: a pattern matches the inlined functions of a frame too (as
# LSan's), in process and in `chunkguard report`: drop, always inlined
# into main, frees the block whose second free is reported (#0 "in drop
# df.c:3 (inlined)"); not with symbolize=0 (no inlined names then)
printf '#include <stdlib.h>\nstatic inline __attribute__((always_inline)) void drop(char *p) {\n    free(p);\n}\nint main(void) { char *p = malloc(16); drop(p); drop(p); return 0; }\n' >"$tmp/df.c"
gcc -O0 -g -Wno-use-after-free -o "$B/df" "$tmp/df.c" || fail supp-inlined "cannot build df"
printf 'double-free:drop\n' >"$tmp/s-inl.txt"
LIBRUN "halt_on_error=0" "$tmp/si0" "$B/df"
LIBRUN "halt_on_error=0:suppressions=$tmp/s-inl.txt" "$tmp/si1" "$B/df"
LIBRUN "halt_on_error=0:symbolize=0:suppressions=$tmp/s-inl.txt" "$tmp/si2" "$B/df"
rm -rf "$tmp/dinl"
"$CG" run --mode debug --options halt_on_error=0 --report-dir "$tmp/dinl" -- "$B/df" >/dev/null 2>&1
"$CG" report "$tmp/dinl" --suppressions "$tmp/s-inl.txt" 2>"$tmp/si3.err" >/dev/null
i0=$(grep -c "in drop .*df.c:3 (.*df+0x[0-9a-f]*) (inlined)$" "$tmp/si0.err"); i1=$(grep -c "ERROR: chunkguard: " "$tmp/si1.err")
i2=$(grep -c "ERROR: chunkguard: " "$tmp/si2.err")
if [ "$i0" -ge 1 ] && [ "$i1" = 0 ] && [ "$i2" = 1 ] && grep -q "^  1 report(s) suppressed (.*1 by double-free:drop" "$tmp/si3.err"
then pass supp-inlined
else fail supp-inlined "inlined drop shown $i0 time(s); reports left: $i1 in process (want 0), $i2 with symbolize=0 (want 1); report: $(head -c 300 "$tmp/si3.err" | tr '\n' '|')"; fi

# supp-token-mismatch: the function matches, the kind does not
k1=$(supp_one 'double-free:overflow' overflow)
k2=$(supp_one 'heap-buffer-overflow:bad_block' dfree)
if [ "$k1" = 1 ] && [ "$k2" = 1 ] && ! grep -q "suppressed" "$tmp/s1.err"; then pass supp-token-mismatch
else fail supp-token-mismatch "reports left: $k1, $k2 (want 1 1)"; fi

# supp-bad-file: an unreadable file and bad lines are one-line warnings;
# the good lines still apply
LIBRUN "suppressions=$tmp/no-such-file" "$tmp/sb1" "$B/buggy" ok; rb1=$?
printf 'no colon here\nnot-a-kind:overflow\nleak:\nheap-buffer-overflow:overflow\n' >"$tmp/s-bad.txt"
LIBRUN "halt_on_error=0:suppressions=$tmp/s-bad.txt" "$tmp/sb2" "$B/buggy" overflow; rb2=$?
nw=$(grep -c "^==[0-9]*==WARNING: chunkguard: suppressions $tmp/s-bad.txt:[123]: .*; line ignored$" "$tmp/sb2.err")
# a FIFO with no writer: refused at once, never waited on at start-up
rm -f "$tmp/s-fifo"; mkfifo "$tmp/s-fifo"
# (timeout outside the preload: a timeout run under chunkguard would hang too)
CHUNKGUARD_OPTIONS="mode=debug:suppressions=$tmp/s-fifo" timeout 10 env LD_PRELOAD=$SO \
    "$B/buggy" ok >"$tmp/sb3.out" 2>"$tmp/sb3.err"; rb3=$?
if [ "$rb1" -eq 0 ] && [ "$(wc -l <"$tmp/sb1.err")" -eq 1 ] &&
   grep -q "^==[0-9]*==WARNING: chunkguard: suppressions $tmp/no-such-file: cannot be read" "$tmp/sb1.err" &&
   [ "$rb2" -eq 0 ] && [ "$nw" -eq 3 ] && ! grep -q "ERROR:" "$tmp/sb2.err" &&
   [ "$rb3" -eq 0 ] && grep -q "suppressions $tmp/s-fifo: cannot be read" "$tmp/sb3.err"
then pass supp-bad-file
else fail supp-bad-file "fifo: status $rb3 (124: it hung); missing file: status $rb1, $(head -c 200 "$tmp/sb1.err"); bad lines: status $rb2, $nw warnings (want 3): $(head -c 400 "$tmp/sb2.err" | tr '\n' '|')"; fi

# supp-many-rules: 300 rules, 44 past the 256 kept: one warning with the
# count and the first line dropped, not one a line; the kept rules apply
{ for i in $(seq 1 255); do echo "double-free:no_such_fn_$i"; done
  echo "heap-buffer-overflow:overflow"
  for i in $(seq 1 44); do echo "double-free:never_kept_$i"; done; } >"$tmp/s-many.txt"
LIBRUN "halt_on_error=0:suppressions=$tmp/s-many.txt" "$tmp/sm" "$B/buggy" overflow; rsm=$?
nsm=$(grep -c "WARNING: chunkguard: suppressions" "$tmp/sm.err")
if [ "$rsm" -eq 0 ] && [ "$nsm" -eq 1 ] && ! grep -q "ERROR:" "$tmp/sm.err" &&
   grep -q "^==[0-9]*==WARNING: chunkguard: suppressions $tmp/s-many.txt: 44 rule(s) past the first 256 ignored (from line 257 on)$" "$tmp/sm.err"
then pass supp-many-rules
else fail supp-many-rules "status $rsm, $nsm warning(s) (want 1): $(head -c 300 "$tmp/sm.err" | tr '\n' '|')"; fi

# supp-leak: leak groups suppressed per allocation stack, their bytes and
# blocks counted; all suppressed: no leak report, exit status unchanged
printf 'leak:lose_200\n' >"$tmp/s-l1.txt"
rm -f "$tmp/sl1.json"
LIBRUN "detect_leaks=1:suppressions=$tmp/s-l1.txt:report_path=$tmp/sl1.json" "$tmp/sl1" "$B/buggy" leak; rl1=$?
printf 'leak:^lose_*0$\n' >"$tmp/s-l2.txt"
LIBRUN "detect_leaks=1:suppressions=$tmp/s-l2.txt:stats_path=$tmp/sl2.stats" "$tmp/sl2" "$B/buggy" leak; rl2=$?
bad=""
[ "$rl1" -eq 23 ] || bad="$bad some leaks left: status $rl1, not 23;"
grep -q " in lose_200 " "$tmp/sl1.err" && bad="$bad lose_200 still printed;"
[ "$(grep -c '"kind":"memory-leak"' "$tmp/sl1.json")" -eq 2 ] || bad="$bad not 2 leak objects in JSON;"
grep -q "^SUMMARY: chunkguard: 400 byte(s) leaked in 2 allocation(s)" "$tmp/sl1.err" || bad="$bad summary not 400 in 2;"
grep -q "^Suppressed: 200 byte(s) in 1 allocation(s)" "$tmp/sl1.err" || bad="$bad no suppressed bytes line;"
grep -q "^    1 leak:lose_200: 200 byte(s) in 1 allocation(s)$" "$tmp/sl1.err" || bad="$bad no used-suppressions line;"
[ "$rl2" -eq 0 ] || bad="$bad all suppressed: status $rl2, not 0;"
grep -q "detected memory leaks" "$tmp/sl2.err" && bad="$bad all suppressed, still a leak report;"
grep -q "^    3 leak:^lose_\*0\$: 600 byte(s) in 3 allocation(s)$" "$tmp/sl2.err" || bad="$bad no 600-byte count;"
grep -q " suppressed=3$" "$tmp/sl2.stats" || bad="$bad stats not suppressed=3;"
[ -z "$bad" ] && pass supp-leak || fail supp-leak "$bad $(head -c 300 "$tmp/sl1.err" | tr '\n' '|')"

# supp-fatal: a report that ends the process (fast mode's) is printed even
# when a suppression matches, and says so
printf 'double-free:bad_block\n' >"$tmp/s-ft.txt"
{ CHUNKGUARD_OPTIONS="suppressions=$tmp/s-ft.txt" LD_PRELOAD=$SO "$B/buggy" dfree >/dev/null 2>"$tmp/sft.err"; } 2>/dev/null; rf=$?
if [ "$rf" -eq 134 ] && grep -q "ERROR: chunkguard: double-free" "$tmp/sft.err" &&
   grep -q "^NOTE: chunkguard: a suppression matches this report, but it ends the process" "$tmp/sft.err"
then pass supp-fatal
else fail supp-fatal "status $rf (want 134, SIGABRT); $(head -c 300 "$tmp/sft.err" | tr '\n' '|')"; fi

# supp-modes: the same program (a double free in bad_block, called from
# main) and the same suppressions file in debug and in fast mode, by its
# frame #0 (bad_block) and by a caller (main): (printed, NOTE line, credit
# line, exit status) measured, and equal to the table docs/reports.md gives
# ("Fast mode and debug mode"); `report --suppressions` of fast mode's JSON
# agrees with fast mode (it has the whole stack, captured at report time)
measured=""
for m in debug fast; do
    for r in bad_block main; do
        printf 'double-free:%s\n' "$r" >"$tmp/s-md.txt"
        rm -rf "$tmp/smd"; mkdir -p "$tmp/smd"
        { CHUNKGUARD_OPTIONS="mode=$m:guard_sample=0:suppressions=$tmp/s-md.txt:report_path=$tmp/smd/%p.json" \
          LD_PRELOAD=$SO "$B/buggy" dfree >/dev/null 2>"$tmp/smd.err"; } 2>/dev/null; rc=$?
        yn() { [ "$1" -gt 0 ] && echo yes || echo no; }
        printed=$(yn "$(grep -c "ERROR: chunkguard: double-free" "$tmp/smd.err")")
        note=$(yn "$(grep -c "^NOTE: chunkguard: a suppression matches this report" "$tmp/smd.err")")
        credit=$(yn "$(grep -c "report(s) suppressed (suppressions=" "$tmp/smd.err")")
        left=$("$CG" report "$tmp/smd" --suppressions "$tmp/s-md.txt" 2>&1 | grep -c "^chunkguard: [1-9][0-9]* report")
        measured="$measured| $m | $r | $printed | $note | $credit | $rc | $(yn "$left") |"$'\n'
    done
done
documented=$(grep -E '^\| (debug|fast) \| (bad_block|main) \|' "$R/docs/reports.md" | tr -s ' ')
if [ "$(tr -s ' ' <<<"${measured%$'\n'}")" = "$documented" ]; then pass supp-modes
else fail supp-modes "measured: $(tr '\n' ' ' <<<"$measured"); docs/reports.md: $(tr '\n' ' ' <<<"$documented")"; fi

# supp-command: `report --suppressions` leaves the suppressed reports out of
# the summary, SARIF, JUnit and HTML and says how many; `run --suppressions`
# hands the file to the processes, whose counts it reads back
printf 'leak:lose_100\nheap-use-after-free:use_after_free\n' >"$tmp/s-cmd.txt"
"$CG" report "$tmp/d1" --suppressions "$tmp/s-cmd.txt" --sarif "$tmp/sc.sarif" \
    --junit "$tmp/sc.xml" --html "$tmp/sc.html" 2>"$tmp/sc.err"; rc=$?
"$CG" run --mode debug --options "$OPTS" --suppressions "$tmp/s-cmd.txt" --report-dir "$tmp/d3" \
    -- sh -c "'$B/buggy' leak; '$B/buggy' uaf" 2>"$tmp/sr.err" >/dev/null; rr=$?
"$CG" run --mode debug --options "$OPTS:suppressions=$tmp/s-l2.txt" --report-dir "$tmp/d4" \
    -- "$B/buggy" leak 2>"$tmp/sr2.err" >/dev/null; rr2=$?
bad=""
[ "$rc" -eq 23 ] || bad="$bad report status $rc;"
grep -q "^chunkguard: 4 report(s), 3 unique" "$tmp/sc.err" || bad="$bad summary not 4 reports, 3 unique;"
sline=$(grep "^  2 report(s) suppressed (" "$tmp/sc.err")
grep -qF "1 by leak:lose_100" <<<"$sline" && grep -qF "1 by heap-use-after-free:use_after_free" <<<"$sline" ||
    bad="$bad summary does not count 2 suppressed, by rule;"
grep -v "suppressed" "$tmp/sc.err" | grep -q "use_after_free\|lose_100" && bad="$bad a suppressed report in the summary;"
"$PY" - "$tmp/sc.sarif" "$tmp/sc.xml" "$tmp/sc.html" >"$tmp/scc.out" 2>&1 <<'PYEOF'
import json, sys, xml.etree.ElementTree as ET
bad = []
run = json.load(open(sys.argv[1]))["runs"][0]
ids = sorted(r["ruleId"] for r in run["results"])
if ids != ["heap-buffer-overflow", "memory-leak", "memory-leak"]:
    bad.append(f"SARIF results {ids}")
if run.get("properties", {}).get("chunkguardSuppressedReports") != 2:
    bad.append(f"SARIF properties {run.get('properties')}")
suite = ET.parse(sys.argv[2]).getroot().find("testsuite")
if suite.get("failures") != "4":
    bad.append(f"JUnit failures {suite.get('failures')}")
props = {p.get("name"): p.get("value") for p in suite.iter("property")}
if props.get("chunkguard.suppressed") != "2":
    bad.append(f"JUnit properties {props}")
page = open(sys.argv[3]).read()
if "<span class=suppressed>2</span> report(s) suppressed" not in page or "use_after_free" in page:
    bad.append("HTML does not say 2 suppressed, or lists one")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PYEOF
[ $? -eq 0 ] || bad="$bad $(cat "$tmp/scc.out");"
"$PY" "$R/tests/command/check.py" sarif "$tmp/sc.sarif" "$SCHEMA" 2>/dev/null || bad="$bad SARIF invalid;"
"$PY" "$R/tests/command/check.py" junit "$tmp/sc.xml" 2>/dev/null || bad="$bad JUnit invalid;"
[ "$rr" -eq 23 ] || bad="$bad run status $rr;"
grep -qF "  2 report(s) suppressed (2 by the processes)" "$tmp/sr.err" || bad="$bad run does not count the processes' 2;"
grep -q "ERROR: chunkguard: heap-use-after-free" "$tmp/sr.err" && bad="$bad run: the use after free printed;"
[ "$rr2" -eq 0 ] || bad="$bad run with the option, all leaks suppressed: status $rr2;"
grep -qF "  3 report(s) suppressed (3 by the processes)" "$tmp/sr2.err" || bad="$bad run with the option: not 3 suppressed;"
[ -z "$bad" ] && pass supp-command || fail supp-command "$bad $(grep -A12 '^chunkguard: ' "$tmp/sc.err" | head -c 500)"

# command-thread-exe-*: a worker thread's double free
gcc -std=gnu11 -O1 -g -pthread -I"$R/include" -o "$B/stall" "$R/tests/stall/stall.c" -ldl ||
    { echo "FAIL command-build: stall"; exit 1; }
for m in fast debug guard; do
    rm -rf "$tmp/te"
    timeout 60 "$CG" run --mode $m --report-dir "$tmp/te" --junit "$tmp/te.xml" -- \
        "$B/stall" thread 0 2>"$tmp/te.err" >/dev/null
    bad=""
    f=$(ls "$tmp/te"/*.json 2>/dev/null | head -1)
    [ -n "$f" ] && "$PY" -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline()); assert r["exe"] == sys.argv[2], r.get("exe")' \
        "$f" "$B/stall" 2>/dev/null || bad="$bad JSON exe is not $B/stall;"
    grep -Eq "^    pid [0-9]+ $B/stall: 1 report" "$tmp/te.err" || bad="$bad summary does not name $B/stall;"
    grep -q "libc" <<<"$(sed -n '/processes:/,$p' "$tmp/te.err")" && bad="$bad summary names libc;"
    grep -q "name=\"pid [0-9]* $B/stall\"" "$tmp/te.xml" 2>/dev/null || bad="$bad JUnit case not named by the program;"
    [ -z "$bad" ] && pass command-thread-exe-$m ||
        fail command-thread-exe-$m "$bad $(sed -n '/processes:/,$p' "$tmp/te.err" | head -c 300)"
done
# ---- what a break tester found (the command's edges) ----------------------
#   run-report-dir-bad    --report-dir unwritable (as nobody), an existing
#                         file, or too long for the library's path options:
#                         exit 2, one line, the command not run; the longest
#                         accepted directory gets its reports
#   run-signal            SIGTERM/SIGINT/SIGHUP to `run`: forwarded to the
#                         job's process group, which is gone afterwards; the
#                         summary and files written; status the report
#                         status (23) or 128+N
#   uri-encoded           SARIF and HTML URIs in a directory "sp ace#1%20&<'"
#                         parse back (urllib) to the right files; attributes
#                         escaped
#   relative-paths        glibc's ./csu/../sysdeps paths: normalised, not
#                         under SRCROOT (no uriBaseId, no HTML link) unless
#                         the file is there; outside absolute ones file URIs
#   symbolize-idempotent  symbolize twice == once (inlined frames too)
#   report-bad-types      wrongly typed JSON fields: a warning per record
#                         (file:line), the others reported, no traceback
#   broken-pipe           symbolize | head -1, report | head -1: no traceback
#   run-options-blanks    --options with blanks between pairs (the library
#                         takes them): passed on intact, exitcode=42 seen
#   run-terminal          on a terminal (a pty): the job reads it (it has
#                         the terminal's process group), and Ctrl-C there
#                         ends the job, then run: status 130, no traceback
bt=$(mktemp -d); chmod 1777 "$bt"; trap 'rm -rf "$tmp" "$bt"' EXIT

# run-report-dir-bad
mkdir -p "$bt/ro"; touch "$bt/afile"
limit=$(sed -n 's/^#define CG_OPT_PATH_MAX \([0-9]*\).*/\1/p' "$R/src/base/options.h")
# the file must also fit the kernel's PATH_MAX once %p is a 7-digit pid
[ -n "$limit" ] && [ "$limit" -gt 4091 ] && limit=4091
long=$("$PY" -c 'import sys; l=int(sys.argv[2]) - 1 - len("/%p.stats"); p=sys.argv[1]
while len(p) < l: p += "/" + "d" * min(100, max(1, l - len(p) - 1))
print(p)' "$bt/long" "$limit")
bad=""
for d in "nobody:$bt/ro" "nobody:$bt/ro/sub" "root:$bt/afile" "root:$bt/afile/sub" "root:${long}x"; do
    who=${d%%:*}; dir=${d#*:}; rm -f "$bt/ran"
    if [ "$who" = nobody ]; then
        runuser -u nobody -- env CHUNKGUARD_LIB="$SO" "$PY" "$CG" run --report-dir "$dir" -- \
            sh -c "touch '$bt/ran'" >/dev/null 2>"$bt/rd.err"; rc=$?
    else
        "$CG" run --report-dir "$dir" -- sh -c "touch '$bt/ran'" >/dev/null 2>"$bt/rd.err"; rc=$?
    fi
    [ "$rc" -eq 2 ] || bad="$bad $who ${dir:0:60}: status $rc;"
    [ "$(wc -l <"$bt/rd.err")" -eq 1 ] || bad="$bad $who ${dir:0:60}: $(wc -l <"$bt/rd.err") lines ($(head -c 200 "$bt/rd.err"));"
    [ -e "$bt/ran" ] && bad="$bad $who ${dir:0:60}: the command ran;"
done
"$CG" run --mode debug --options halt_on_error=0 --report-dir "$long" -- "$B/buggy" overflow >/dev/null 2>"$bt/rd.err"; rc=$?
[ "$rc" -eq 23 ] && ls "$long"/*.json >/dev/null 2>&1 || bad="$bad the longest directory (${#long} bytes): status $rc, $(ls "$long" 2>&1 | head -c 100);"
[ -z "$bad" ] && pass run-report-dir-bad || fail run-report-dir-bad "$bad"

# run-signal: the job makes a report, then waits; the signal comes after
cat >"$bt/sig.py" <<'PYEOF'
import os, signal, subprocess, sys, time
cg, buggy, d, sig, work = sys.argv[1:6]
ignore = "trap '' TERM INT HUP; " if sys.argv[6:] == ["ignore"] else ""
signal.signal(signal.SIGINT, signal.default_int_handler)   # the job gets SIG_DFL
for s in (signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_DFL)
job = f"{ignore}'{buggy}' {work}; echo $$ >'{d}.pid'; exec sleep 60"
p = subprocess.Popen([cg, "run", "--mode", "debug", "--options", "halt_on_error=0",
                      "--report-dir", d, "--junit", d + ".xml", "--sarif", d + ".sarif",
                      "--", "sh", "-c", job], stdout=subprocess.DEVNULL,
                     stderr=open(d + ".err", "w"))
end = time.time() + 20
while not os.path.exists(d + ".pid") or not open(d + ".pid").read().strip():
    if time.time() > end:
        break
    time.sleep(0.05)
time.sleep(0.2)
p.send_signal(getattr(signal, sig))
try:
    rc = p.wait(timeout=30)
except subprocess.TimeoutExpired:
    p.kill(); rc = "hang"
child = int(open(d + ".pid").read())
time.sleep(0.2)
try:
    os.kill(child, 0); alive = "alive"
except ProcessLookupError:
    alive = "gone"
print(rc, alive)
PYEOF
bad=""
# SIGTERM-ignored: a job that ignores the signal is killed STOP_GRACE (10 s)
# after it (the command once waited for such a job for ever)
for c in "SIGTERM overflow 23" "SIGINT ok 130" "SIGHUP ok 129" "SIGTERM ok 143 ignore"; do
    set -- $c; n=sig-$1${4:+-$4}
    got=$("$PY" "$bt/sig.py" "$CG" "$B/buggy" "$bt/$n" "$1" "$2" ${4:-} 2>&1)
    [ "$got" = "$3 gone" ] || bad="$bad $n: status and job '$got', want '$3 gone';"
    grep -q "Traceback" "$bt/$n.err" && bad="$bad $n: a traceback;"
    grep -q "^chunkguard: .*report" "$bt/$n.err" || bad="$bad $n: no summary;"
    [ -s "$bt/$n.xml" ] && [ -s "$bt/$n.sarif" ] || bad="$bad $n: no JUnit/SARIF;"
done
grep -q "heap-buffer-overflow 1" "$bt/sig-SIGTERM.err" || bad="$bad SIGTERM: the report before it not summarized;"
[ -z "$bad" ] && pass run-signal || fail run-signal "$bad $(head -c 300 "$bt/sig-SIGTERM.err")"

# uri-encoded
sd="$bt/sp ace#1%20&<'"; mkdir -p "$sd"; cp "$R/tests/command/buggy.c" "$sd/"
( cd "$sd" && gcc -O0 -g -fno-builtin -o buggy buggy.c )
( cd "$sd" && "$CG" run --mode debug --options "$OPTS" --report-dir "$sd/rep" --srcroot "$sd" \
    --sarif "$bt/u.sarif" --html "$bt/u.html" --title "t\"<'&" -- ./buggy overflow >/dev/null 2>&1 )
"$PY" - "$bt/u.sarif" "$bt/u.html" "$sd" >"$bt/u.out" 2>&1 <<'PYEOF'
import html.parser, json, os, sys, urllib.parse as up
sarif, page, sd = sys.argv[1:4]
bad = []
def path_of(uri):
    u = up.urlsplit(uri)
    if u.scheme != "file" or u.query or u.fragment:
        bad.append(f"{uri!r}: scheme/query/fragment {u}")
    return up.unquote(u.path)
run = json.load(open(sarif))["runs"][0]
base = run["originalUriBaseIds"]["SRCROOT"]["uri"]
if path_of(base) != sd + "/":
    bad.append(f"SRCROOT {base!r} is not {sd + '/'!r}")
ovf = [r for r in run["results"] if r["ruleId"] == "heap-buffer-overflow"]
al = ovf[0]["locations"][0]["physicalLocation"]["artifactLocation"] if ovf else {}
if al.get("uriBaseId") != "SRCROOT" or path_of(up.urljoin(base, al.get("uri", ""))) != sd + "/buggy.c":
    bad.append(f"overflow's artifact {al}")
class P(html.parser.HTMLParser):
    hrefs, title, intitle = [], "", False
    def handle_starttag(self, tag, attrs):
        self.intitle = tag == "title"
        self.hrefs += [v for k, v in attrs if k == "href"]
    def handle_data(self, data):
        if self.intitle: self.title += data
p = P(); p.feed(open(page).read())
if p.title != "t\"<'&":
    bad.append(f"title {p.title!r}")
mine = [h for h in p.hrefs if path_of(h).startswith(sd)]
if not mine or any(path_of(h) != sd + "/buggy.c" for h in mine):
    bad.append(f"HTML links {p.hrefs}")
print("; ".join(bad)); sys.exit(1 if bad else 0)
PYEOF
[ $? -eq 0 ] && pass uri-encoded || fail uri-encoded "$(head -c 600 "$bt/u.out")"

# relative-paths: a hand-made report: glibc's relative paths, one of ours
# relative, one absolute outside the source root
mkdir -p "$bt/rel"
"$PY" - "$bt/rel/7.json" <<'PYEOF'
import json, sys
fr = lambda fn, f, l: {"function": fn, "module": "/nonexistent/m.so", "offset": "0x10", "file": f, "line": l}
r = {"kind": "heap-buffer-overflow", "pid": 7, "function": "free", "address": "0x10",
     "message": "m", "stacks": {"where": {"frames": [
         fr("ours", "tests/command/buggy.c", 23),
         fr("__libc_start_call_main", "./csu/../sysdeps/nptl/libc_start_call_main.h", 58),
         fr("__libc_start_main", "./csu/../csu/libc-start.c", 360),
         fr("hdr", "/usr/include/stdio.h", 1)]}}}
open(sys.argv[1], "w").write(json.dumps(r) + "\n")
PYEOF
( cd "$bt" && "$CG" report "$bt/rel" --srcroot "$R" --sarif "$bt/rel.sarif" --html "$bt/rel.html" >/dev/null 2>&1 )
"$PY" - "$bt/rel.sarif" "$bt/rel.html" "$R" >"$bt/rel.out" 2>&1 <<'PYEOF'
import json, re, sys
sarif, page, root = sys.argv[1:4]
bad = []
run = json.load(open(sarif))["runs"][0]
locs = [l["location"]["physicalLocation"]["artifactLocation"]
        for l in run["results"][0]["codeFlows"][0]["threadFlows"][0]["locations"]]
want = [{"uri": "tests/command/buggy.c", "uriBaseId": "SRCROOT"},
        {"uri": "sysdeps/nptl/libc_start_call_main.h"}, {"uri": "csu/libc-start.c"},
        {"uri": "file:///usr/include/stdio.h"}]
if locs != want:
    bad.append(f"artifacts {locs}")
hrefs = re.findall(r'href="([^"]*)"', open(page).read())
if sorted(hrefs) != sorted([f"file://{root}/tests/command/buggy.c", "file:///usr/include/stdio.h"]):
    bad.append(f"HTML links {hrefs}")
print("; ".join(bad)); sys.exit(1 if bad else 0)
PYEOF
r1=$?
"$PY" "$R/tests/command/check.py" sarif "$bt/rel.sarif" "$SCHEMA" >/dev/null 2>&1 || { r1=1; echo "SARIF invalid" >>"$bt/rel.out"; }
[ $r1 -eq 0 ] && pass relative-paths || fail relative-paths "$(head -c 600 "$bt/rel.out")"

# symbolize-idempotent: a program whose report has inlined frames
cat >"$bt/inl.c" <<'CEOF'
#include <stdlib.h>
#include <string.h>
char *volatile keep;
static inline __attribute__((always_inline)) void spill(char *p, size_t n) { keep = p; memset(keep, 'A', n + 4); free(keep); keep = 0; }
__attribute__((noinline)) void work(size_t n) { char *p = malloc(n); spill(p, n); }
int main(int argc, char **argv) { (void)argv; work(16 + argc); return 0; }
CEOF
gcc -O2 -g -fno-builtin -o "$bt/inl" "$bt/inl.c"
{ CHUNKGUARD_OPTIONS=mode=debug:symbolize=0 LD_PRELOAD=$SO "$bt/inl" 2>"$bt/inl.txt" >/dev/null; } 2>/dev/null
"$CG" symbolize <"$bt/inl.txt" >"$bt/inl1.txt"
"$CG" symbolize <"$bt/inl1.txt" >"$bt/inl2.txt"
if grep -q "(inlined)" "$bt/inl1.txt" && cmp -s "$bt/inl1.txt" "$bt/inl2.txt"; then pass symbolize-idempotent
else fail symbolize-idempotent "inlined lines $(grep -c '(inlined)' "$bt/inl1.txt") then $(grep -c '(inlined)' "$bt/inl2.txt"); $(diff "$bt/inl1.txt" "$bt/inl2.txt" | head -c 300)"; fi

# report-bad-types
mkdir -p "$bt/types"
cat >"$bt/types/9.json" <<'JEOF'
{"kind": 5}
{"kind": "heap-buffer-overflow", "pid": "abc"}
{"kind": "memory-leak", "stacks": [1]}
{"kind": "memory-leak", "stacks": {"allocated": {"frames": [{"offset": 5, "module": 3}]}}}
{"kind": "memory-leak", "size": "big", "stacks": {}}
{"kind": "heap-buffer-overflow", "block": {"address": "0x10"}, "size": 4, "memory": {"address": 7}}
[1, 2]
{"kind": "memory-leak", "size": 8, "objects": 1, "message": "ok", "stacks": {"allocated": {"frames": [{"function": "f", "module": "/nonexistent/m", "offset": "0x10"}]}}}
JEOF
"$CG" report "$bt/types" --sarif "$bt/t.sarif" --junit "$bt/t.xml" --html "$bt/t.html" >/dev/null 2>"$bt/t.err"; rc=$?
bad=""
[ "$rc" -eq 23 ] || bad="$bad status $rc;"
grep -q Traceback "$bt/t.err" && bad="$bad a traceback;"
for n in 1 2 3 4 5 6 7; do
    [ "$(grep -c "$bt/types/9.json:$n:" "$bt/t.err")" -eq 1 ] || bad="$bad no one warning for line $n;"
done
grep -q "8:" <<<"$(grep "9.json:" "$bt/t.err")" && bad="$bad the good record warned about;"
grep -q "^chunkguard: 1 report(s)" "$bt/t.err" || bad="$bad not 1 report;"
[ -z "$bad" ] && pass report-bad-types || fail report-bad-types "$bad $(head -c 500 "$bt/t.err")"

# broken-pipe
for i in $(seq 300); do cat "$tmp/text.txt"; done >"$bt/big.txt"
"$CG" symbolize <"$bt/big.txt" 2>"$bt/bp1.err" | head -1 >/dev/null
"$CG" report "$bt/types" 2>&1 >/dev/null | head -1 >/dev/null
( "$CG" report "$tmp/d1" 2>&1 | head -1 >/dev/null ) 2>"$bt/bp2.err"
if ! grep -qE "Traceback|Error|Exception" "$bt/bp1.err" "$bt/bp2.err"; then pass broken-pipe
else fail broken-pipe "$(head -c 400 "$bt/bp1.err" "$bt/bp2.err")"; fi
# run-options-blanks
"$CG" run --mode debug --options "halt_on_error=0 exitcode=42,detect_leaks=0" --report-dir "$bt/blank" \
    -- "$B/buggy" overflow >/dev/null 2>"$bt/blank.err"; rc=$?
if [ "$rc" -eq 42 ] && ! grep -q WARNING "$bt/blank.err" && grep -q "heap-buffer-overflow 1" "$bt/blank.err"
then pass run-options-blanks
else fail run-options-blanks "status $rc (want 42); $(grep -m2 'WARNING\|by kind' "$bt/blank.err")"; fi

# run-terminal
cat >"$bt/onpty.py" <<'PYEOF'
import os, pty, signal, sys, time, select
cg = sys.argv[1]
def session(job, send, wait_for):
    pid, fd = pty.fork()
    if pid == 0:
        # a terminal user's job takes Ctrl-C: a suite started in the
        # background of a shell without job control inherits SIGINT ignored
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.execv(cg, [cg, "run", "--report-dir", sys.argv[2] + str(time.time()), "--", "sh", "-c", job])
    out = b""; end = time.time() + 15; sent = False
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try: d = os.read(fd, 4096)
            except OSError: break
            if not d: break
            out += d
        if not sent and wait_for in out:
            os.write(fd, send); sent = True
        p, st = os.waitpid(pid, os.WNOHANG)
        if p:
            return os.waitstatus_to_exitcode(st), out
    end = time.time() + 15
    while time.time() < end:
        p, st = os.waitpid(pid, os.WNOHANG)
        if p:
            return os.waitstatus_to_exitcode(st), out
        time.sleep(0.05)
    os.kill(pid, 9); os.waitpid(pid, 0)
    return "hang", out
rc, out = session("echo ready; read x; echo got=$x", b"hi\n", b"ready")
ok1 = rc == 0 and b"got=hi" in out
rc2, out2 = session("echo ready; exec sleep 30", b"\x03", b"ready")
ok2 = rc2 == 130
print("read", rc, ok1, "ctrl-c", rc2, ok2)
sys.exit(0 if ok1 and ok2 else 1)
PYEOF
got=$("$PY" "$bt/onpty.py" "$CG" "$bt/ptyrep" 2>&1)
[ "$got" = "read 0 True ctrl-c 130 True" ] && pass run-terminal || fail run-terminal "$(tr "\n" " " <<<"$got" | tail -c 600)"
exit 0
