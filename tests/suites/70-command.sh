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
#   html-dom              headless Chromium's DOM of the HTML report: the
#                         overflow's 4 wrong bytes 41, the use after free's
#                         58, leaks sorted by bytes, nothing external; a
#                         screenshot in build/command/report.png
#   symbolize             `symbolize` adds file:line to a text report, the
#                         same with llvm-symbolizer and with addr2line, and
#                         leaves one the library symbolized as it is
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
