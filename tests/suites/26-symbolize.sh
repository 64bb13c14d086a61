#!/usr/bin/env bash
# 26-symbolize.sh — reports symbolized out of process (report/symbolize.c,
# cg_os_coproc_* in base/platform.c; docs/design.md, "Symbolizing"), with
# tests/symbolize/sym.c and sym.cc built -g -O1 and run preloaded:
#   sym-free-line            the first frame of an overflow found at free
#                            names the line of the call of free, not the
#                            next one (the call's address: return - 1)
#   sym-inlined-fault        a guard-page fault (reported from the signal
#                            handler) in an inlined function: the inlined
#                            frame, marked, then its caller at its line
#   sym-cxx-demangled        a C++ member function's frame, demangled
#   sym-fast-mode            the same in fast mode (its one frame, the call)
#   sym-quoted-path          a program in a directory named with a double
#                            quote, blank, backslash (then both quotes):
#                            file:line, and the JSON module exact
#   sym-long-path-N-*        a program and its shared library, built from
#                            sources in a directory of N names of 200
#                            bytes (3: ~620 bytes, past the 256 a module
#                            path had and the 480 of a report's names; 7:
#                            ~1420, past the 1024 of llvm-symbolizer's
#                            input line): text frames and JSON frames name
#                            the whole module and source paths with
#                            file:line, the JSON exe whole (-text, -json),
#                            in a leak report too (-leak), and
#                            stats_path's exe= is the whole path (-stats);
#                            a foreign free's "writable data of" message
#                            marks the module path it cuts with "..."
#                            (-describe)
#   sym-json-fields          JSON frames carry file, line and inlined
#   sym-leaks-one-run        a leak report of three groups: every group's
#                            frames symbolized by one run of the symbolizer,
#                            which never sees LD_PRELOAD
#   sym-addr2line            symbolizer_path=addr2line, and addr2line alone
#                            in $PATH: file:line and the inlined frame too
#   sym-off                  symbolize=0: today's module+offset frames
#   sym-missing              no symbolizer in $PATH: module+offset frames
#   sym-exec-fails           symbolizer_path not executable: the same
#   sym-fails                a symbolizer that exits at once: the same
#   sym-hangs                a symbolizer that hangs (and forks): the
#                            report is written, module+offset, within the
#                            deadline, and the symbolizer's processes are
#                            killed
#   sym-hangs-once           a symbolizer that never answers, 4 reports
#                            (halt_on_error=0): only the first waits for
#                            it, one note says the rest are not symbolized
#   sym-fails-once           one that cannot start: the same note, once;
#                            the note is a WARNING before the first
#                            report, naming the program and (a timeout)
#                            the deadline in ms
#   sym-timeout-said         the deadline said is the one used (half of
#                            deadlock_timeout_ms when shorter), for a
#                            leak report too
#   sym-fds-closed           stdin, stdout and stderr closed (report to
#                            log_path): still symbolized
#   sym-fork-child           a report in the child of a fork made while
#                            another thread allocates: still symbolized
#   sym-garbage-*            a symbolizer answering control bytes and a
#                            line number that is no number, binary, a
#                            100 kB line, or (addr2line's protocol) a bell
#                            in a name: module+offset frames, the report
#                            whole, no byte of the garbage in it
#   sym-fork-reports-*       8 forked children report at once onto one
#                            stderr (a pipe), in each mode: 8 whole
#                            reports, each one's lines contiguous
#   sym-exit-race-*          (tests/symbolize/race.c) a worker thread's
#                            report while main returns or calls exit, in
#                            every mode and with symbolize=0: the report
#                            whole (SUMMARY), the process aborted (134)
#   sym-sigchld-*            a program counting SIGCHLD and reaping with
#                            waitpid(-1) during 3 reports (halt_on_error=0),
#                            in each mode: sees none of the symbolizer's
#                            processes
#   sym-daemon-llvm|addr2line  a symbolizer (a script, symbolizer_path)
#                            that leaves a sleeping child holding its
#                            stdout, then answers as llvm-symbolizer or
#                            addr2line: the report symbolized in well
#                            under the 5 s deadline (answers counted, no
#                            wait for the EOF), the child killed
# With tests/stall/stall.c and tests/stall/fullpipe.py (a pipe full from
# the start; every run bounded, a hang is a FAIL):
#   stall-stderr-*           fd 2 a full pipe nobody reads, in each mode: a
#                            double free's report gives up after the
#                            write deadline and the process aborts (134),
#                            as with exitcode=9 it exits 9
#   stall-slow-reader        fd 2 full, read slowly (256 bytes / 20 ms,
#                            longer than the deadline in all): the report
#                            arrives whole
#   stall-fifo-*             log_path (a report; a leak report, 23),
#                            report_path (JSON), stats_path, a warning:
#                            each a FIFO full and never read; the process
#                            ends as it would, within the deadline
#   stall-warning            an option warning onto a full fd 2: the
#                            program runs on, exit 0
#   wait-stalled-*           a worker thread's fatal report stuck on a full
#                            fd 2 while main calls exit(7), each mode, with
#                            deadlock_timeout_ms=1000: main's wait gives up
#                            and the process aborts (134), not 7; also
#                            with main returning 7 or calling _exit(7)
#   wait-callback-hangs      fast mode, a report callback that never
#                            returns: the same, exitcode=9's status and a
#                            note that the report was not finished
#   sigexit-in-report-*      a SIGALRM handler calling exit(7) or _exit(7)
#                            in the middle of main's report (its
#                            symbolizer run), each mode: the report and
#                            its JSON written, the status the report's
#                            (134, exitcode=9's 9), not 7
#   sym-long-names-*         (tests/symbolize/longname.py) frames named by
#                            ~1550-byte C++ template names, 70 inlined in a
#                            frame, two such stacks (more than the 64 KiB a
#                            text report has): every line whole and at most
#                            1600 bytes, names cut with "...", the frames
#                            (and a frame's inlined lines) left out counted,
#                            SUMMARY the last line; the
#                            1550-byte symbol demangled (by the symbolizer:
#                            libiberty takes about 1 KiB), then cut; the
#                            JSON object whole; a leak report of the same
#                            stack keeps its HASH line (16 KiB buffer)
#   sym-frame-in-call        a return address's frame is shown at its
#                            call instruction: every frame of
#                            the program's own module in a free-time
#                            report (#0 included: free's caller) lies in a
#                            call instruction (objdump), and the JSON's pc
#                            and offset are the text's
#   sym-call-address-*       (tests/symbolize/calls.c) frames through
#                            e8 to a function and to free@plt, ff /2 through
#                            rax and (REX) r12, through 0x8(%rax) and
#                            through rip: each frame's offset (text and
#                            JSON) is the address objdump gives its call
#                            instruction, at the marked line; -fault, in
#                            guard mode: #0 is the faulting load itself
#                            (which follows a call: not taken for one),
#                            the rest calls; -nosym the same with
#                            symbolize=0
# Environment: CG_ROOT, CG_BUILD, CG_SO (tests/run-all.sh).
set -u
R=$CG_ROOT; B=$CG_BUILD/symbolize; SO=$CG_SO
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
mkdir -p "$B"
make -s -C "$R" BUILD="$CG_BUILD" lib >/dev/null || { fail sym-build "make lib"; exit 1; }
command -v llvm-symbolizer >/dev/null ||
  { fail sym-tool "llvm-symbolizer not installed (tools/deps.sh check installs llvm)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
gcc -std=gnu11 -g -O1 -pthread -o "$B/sym" "$R/tests/symbolize/sym.c" 2>"$tmp/b.err" &&
  g++ -g -O1 -o "$B/symxx" "$R/tests/symbolize/sym.cc" 2>>"$tmp/b.err" &&
  gcc -std=gnu11 -g -O1 -pthread -o "$B/race" "$R/tests/symbolize/race.c" 2>>"$tmp/b.err" ||
  { fail sym-build "$(head -c 400 "$tmp/b.err")"; exit 1; }
src=$R/tests/symbolize/sym.c
line() { grep -n "LINE-$1\b" "$2" | cut -d: -f1; }

# run OPTS BIN ARGS...: err (stderr), rc, secs (wall time); the program's
# PATH is $RUNPATH when set
run() {
  local opts=$1 bin=$2; shift 2
  local t0; t0=$(date +%s%N)
  err=$(timeout 60 env ${RUNPATH:+PATH="$RUNPATH"} CHUNKGUARD_OPTIONS="$opts" LD_PRELOAD="$SO" \
        "$bin" "$@" 2>&1 >/dev/null)
  rc=$?
  secs=$(( ($(date +%s%N) - t0) / 1000000000 ))
}
# sym-frame-in-call: frames of return addresses point into the call
run mode=debug:abort_on_error=0:report_path="$tmp/fc.json" "$B/sym" free
objdump -d --no-show-raw-insn "$B/sym" >"$tmp/fc.dis" 2>/dev/null
fc=$(python3 - "$tmp/fc.dis" "$tmp/fc.json" "$B/sym" "$err" <<'PY'
import json, re, sys
dis, js, mod, text = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
insns = []
for l in open(dis):
    m = re.match(r"\s*([0-9a-f]+):\s+(\S+)", l)
    if m:
        insns.append((int(m.group(1), 16), m.group(2)))
insns.sort()
def insn_at(off):
    for (a, mn), nxt in zip(insns, insns[1:] + [(1 << 64, "")]):
        if a <= off < nxt[0]:
            return mn
    return None
tframes = re.findall(r"#\d+ (0x[0-9a-f]+) .*\((\S+)\+(0x[0-9a-f]+)\)$", text, re.M)
r = json.loads(open(js).readline())
jframes = [(f["pc"], f["module"], f["offset"]) for k in ("where", "allocated")
           for f in r["stacks"][k]["frames"]]
bad = [f"{o}:{insn_at(int(o, 16))}" for _, m, o in tframes if m == mod and
       not (insn_at(int(o, 16)) or "").startswith("call")]
print("ok" if tframes and not bad and jframes == tframes[:len(jframes)] else
      f"not in a call: {bad}; json {jframes[:3]} text {tframes[:3]}")
PY
)
if [ "$fc" = ok ]; then pass sym-frame-in-call
else fail sym-frame-in-call "$fc"; fi

# sym-call-address-*: every frame at its call instruction's first byte
gcc -std=gnu11 -g -O1 -o "$B/calls" "$R/tests/symbolize/calls.c" 2>"$tmp/ca.err" ||
  fail sym-call-address "$(head -c 400 "$tmp/ca.err")"
objdump -d "$B/calls" >"$tmp/ca.dis" 2>/dev/null
call_address() {     # NAME ARG OPTS: check the report of "calls ARG"
  local name=$1 arg=$2 opts=$3
  rm -f "$tmp/ca.json"
  run "mode=$opts:abort_on_error=0:report_path=$tmp/ca.json" "$B/calls" $arg
  local v
  v=$(python3 - "$tmp/ca.dis" "$tmp/ca.json" "$B/calls" "$R/tests/symbolize/calls.c" "$arg" "$err" <<'PY'
import json, re, sys
dis, js, mod, src, arg, text = sys.argv[1:7]
insn = {}                                   # offset -> instruction text
for l in open(dis):
    m = re.match(r"\s*([0-9a-f]+):\t(?:[0-9a-f]{2} )+\s*\t(.*)$", l)
    if m:
        insn[int(m.group(1), 16)] = m.group(2).strip()
marks = {}
for n, l in enumerate(open(src), 1):
    m = re.search(r"/\* (CALL|FAULT)-(\w+) \*/", l)
    if m:
        marks[n] = m.group(2)
fr = []                                      # the first stack's frames: "where"
for f in re.findall(r"^    #(\d+) (0x[0-9a-f]+) (?:in (\S+) )?(?:\S+:(\d+) )?"
                    r"\((\S+)\+(0x[0-9a-f]+)\)$", text, re.M):
    if f[0] == "0" and fr:
        break
    fr.append(f)
mine = [f for f in fr if f[4] == mod]
fault = arg == "fault"
bad, seen = [], set()
for num, pc, fn, line, m, off in mine:
    o = int(off, 16)
    ins = insn.get(o)
    if fault and num == "0":
        if ins is None or ins.startswith("call") or (line and marks.get(int(line)) != "load"):
            bad.append(f"#0 {off} is not the faulting load: {ins} line {line}")
        continue
    if ins is None or not ins.startswith("call"):
        bad.append(f"#{num} {fn} {off}: not a call's first byte ({ins})")
        continue
    if line and int(line) not in marks:
        bad.append(f"#{num} {fn} line {line} is no marked call")
    for form, pat in (("plt", r"<free@plt>"), ("direct", r"^call\s+[0-9a-f]+ <(via|chain)"),
                      ("reg", r"^call\s+\*%rax$"), ("rex", r"^call\s+\*%r12$"),
                      ("base", r"^call\s+\*0x8\(%rax\)$"), ("rip", r"\(%rip\)")):
        if re.search(pat, ins):
            seen.add(form)
want = {"plt", "direct", "reg", "rex", "base", "rip"} - ({"plt"} if fault else set())
if want - seen:
    bad.append(f"no frame through {sorted(want - seen)}")
try:
    r = json.loads(open(js).readline())
    jf = [(f["pc"], f["offset"]) for f in r["stacks"]["where"]["frames"]]
    tf = [(f[1], f[5]) for f in fr][:len(jf)]
    if jf != tf:
        bad.append(f"json {jf[:4]} is not the text's {tf[:4]}")
except (OSError, ValueError, KeyError) as e:
    bad.append(f"json: {e}")
print("ok" if mine and not bad else "; ".join(bad)[:600] or "no frames")
PY
)
  if [ "$v" = ok ]; then pass "$name"; else fail "$name" "$v"; fi
}
call_address sym-call-address double debug
call_address sym-call-address-nosym double debug:symbolize=0
call_address sym-call-address-fault fault guard

# no file:line in any frame, and frames in module+offset form
plain_frames() {
  grep -Eq '^    #0 0x[0-9a-f]+ in overflow_then_free \(.*/sym\+0x[0-9a-f]+\)$' <<<"$err" &&
    ! grep -Eq '^    #[0-9]+ .*\.c:[0-9]+ ' <<<"$err"
}

# expect NAME PATTERN...: every PATTERN (grep -E) is a line of err
expect() {
  local name=$1 p; shift
  for p in "$@"; do
    grep -Eq "$p" <<<"$err" || { fail "$name" "no line '$p' (rc $rc), got: $(grep -m4 '#' <<<"$err")"; return; }
  done
  pass "$name"
}
F0='^    #0 0x[0-9a-f]+ in' F1='^    #1 0x[0-9a-f]+ in'   # frame lines, up to the function

run mode=debug "$B/sym" free
expect sym-free-line "$F0 overflow_then_free .*sym\.c:$(line free "$src") \(.*/sym\+0x[0-9a-f]+\)\$" \
  "$F1 main .*sym\.c:[0-9]+ " '^SUMMARY: chunkguard: heap-buffer-overflow'

run mode=guard:report_path="$tmp/w.json" "$B/sym" write
lp=$(line put "$src"); lw=$(line write_past "$src")
expect sym-inlined-fault "$F0 put .*sym\.c:$lp \(.*/sym\+0x[0-9a-f]+\) \(inlined\)\$" \
  "$F0 write_past .*sym\.c:$lw \(.*/sym\+0x[0-9a-f]+\)\$" 'at pc 0x' \
  "^SUMMARY: chunkguard: heap-buffer-overflow in put .*sym\.c:$lp\$"
if python3 - "$tmp/w.json" "$lp" "$lw" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).readline())
f = r["stacks"]["where"]["frames"][0]
assert f["function"] == "write_past" and f["file"].endswith("sym.c") and f["line"] == int(sys.argv[3]), f
inl = f["inlined"]
assert len(inl) == 1 and inl[0]["function"] == "put" and inl[0]["line"] == int(sys.argv[2]), inl
for s in r["stacks"].values():
    for g in s["frames"]:
        assert {"file", "line", "inlined"} <= set(g), g
        assert g["file"] is None or isinstance(g["file"], str)
        assert g["line"] is None or isinstance(g["line"], int)
        assert isinstance(g["inlined"], list)
PY
then pass sym-json-fields; else fail sym-json-fields "frames of $tmp/w.json lack file/line/inlined"; fi

run mode=debug "$B/symxx"
expect sym-cxx-demangled \
  "$F0 ns::Holder::drop\(int\) .*sym\.cc:$(line drop "$R/tests/symbolize/sym.cc") \("
run "" "$B/symxx"
expect sym-fast-mode 'ERROR: chunkguard: double-free' \
  "$F0 ns::Holder::drop\(int\) .*sym\.cc:$(line drop "$R/tests/symbolize/sym.cc") \("

# a symbolizer that counts its runs and what LD_PRELOAD it sees
cat >"$tmp/count" <<EOS
#!/bin/sh
echo "run LD_PRELOAD=\${LD_PRELOAD-}" >>"$tmp/runs"
exec "$(command -v llvm-symbolizer)" "\$@"
EOS
chmod +x "$tmp/count"
run mode=debug:detect_leaks=1:symbolizer_path="$tmp/count" "$B/sym" leak
runs=$(cat "$tmp/runs" 2>/dev/null)
ok=1
for f in leak_a leak_b leak_c; do
  grep -Eq "^    #0 0x[0-9a-f]+ in $f .*sym\.c:$(line $f "$src") " <<<"$err" || ok=0
done
if [ $ok = 1 ] && [ "$runs" = "run LD_PRELOAD=" ]; then
  pass sym-leaks-one-run
else
  fail sym-leaks-one-run "runs: '$(tr '\n' ' ' <<<"$runs")', frames: $(grep -m4 '#0' <<<"$err")"
fi

mkdir -p "$tmp/a2l"; ln -s "$(command -v addr2line)" "$tmp/a2l/addr2line"
for how in option path; do
  if [ $how = option ]; then
    run mode=guard:symbolizer_path="$(command -v addr2line)" "$B/sym" write
  else
    RUNPATH=$tmp/a2l run mode=guard "$B/sym" write
  fi
  expect sym-addr2line-$how "$F0 put .*sym\.c:$lp \(.*\) \(inlined\)\$" \
    "$F0 write_past .*sym\.c:$lw \("
done

run mode=debug:symbolize=0 "$B/sym" free
if plain_frames; then pass sym-off; else fail sym-off "got: $(grep -m3 '#' <<<"$err")"; fi

RUNPATH=/nonexistent run mode=debug "$B/sym" free
if plain_frames; then pass sym-missing; else fail sym-missing "got: $(grep -m3 '#' <<<"$err")"; fi

printf 'not a program\n' >"$tmp/noexec"
run mode=debug:symbolizer_path="$tmp/noexec" "$B/sym" free
if plain_frames; then pass sym-exec-fails; else fail sym-exec-fails "got: $(grep -m3 '#' <<<"$err")"; fi

printf '#!/bin/sh\nexit 3\n' >"$tmp/fails"; chmod +x "$tmp/fails"
run mode=debug:symbolizer_path="$tmp/fails" "$B/sym" free
if plain_frames; then pass sym-fails; else fail sym-fails "got: $(grep -m3 '#' <<<"$err")"; fi

# hangs, with a child of its own in its process group
mkdir -p "$tmp/hang"
cat >"$tmp/hang/llvm-symbolizer" <<EOS
#!/bin/sh
sleep 300 &
echo \$! >"$tmp/hang.pid"
wait
EOS
chmod +x "$tmp/hang/llvm-symbolizer"
RUNPATH=$tmp/hang:$PATH run mode=debug "$B/sym" free
hp=$(cat "$tmp/hang.pid" 2>/dev/null)
# alive: not gone and not a zombie (an orphan waits for init to reap it)
alive() { [ -n "$1" ] && [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat"; }
for _ in 1 2 3 4 5 6 7 8 9 10; do alive "$hp" || break; sleep 0.1; done
if plain_frames && grep -q '^SUMMARY: chunkguard: heap-buffer-overflow' <<<"$err" &&
   [ "$secs" -le 12 ] && [ -n "$hp" ] && ! alive "$hp"; then
  pass sym-hangs
else
  fail sym-hangs "after ${secs}s (rc $rc), symbolizer's child ${hp:-?} $(alive "$hp" && echo alive || echo gone); got: $(grep -m3 '#' <<<"$err")"
  [ -n "$hp" ] && kill "$hp" 2>/dev/null
fi
# a symbolizer that never answers, over 4 reports (halt_on_error=0): the
# first report waits out the deadline, the later ones skip the symbolizer
# (one note); they took the 5 s each.  A symbolizer that cannot start:
# the same note, once.
printf '#!/bin/sh\nexec sleep 1000\n' >"$tmp/sleeper"; chmod +x "$tmp/sleeper"
for v in hangs:"$tmp/sleeper" fails:"$tmp/noexec"; do
  n=sym-${v%%:*}-once t0=$(date +%s%N)
  timeout 60 env CHUNKGUARD_OPTIONS="mode=debug:halt_on_error=0:symbolizer_path=${v#*:}" \
    LD_PRELOAD="$SO" "$B/race" chld 4 >/dev/null 2>"$tmp/once.err"; rc=$?
  secs=$(( ($(date +%s%N) - t0) / 1000000000 ))
  reps=$(grep -c '^SUMMARY: chunkguard:' "$tmp/once.err")
  notes=$(grep -c 'WARNING: chunkguard: symbolization given up: the symbolizer .*; the reports that follow are not symbolized' "$tmp/once.err")
  # the note names the program, and a timeout its deadline; it comes
  # before the first report it is about
  case $v in
    hangs:*) said="the symbolizer ${v#*:} did not answer in time (5000 ms);" ;;
    *) said="the symbolizer ${v#*:} ended without an answer" ;;
  esac
  first=$(grep -n -m1 'ERROR: chunkguard:' "$tmp/once.err" | cut -d: -f1)
  at=$(grep -n -m1 'symbolization given up' "$tmp/once.err" | cut -d: -f1)
  if [ "$reps" -ge 4 ] && [ "$notes" = 1 ] && [ "$secs" -le 12 ] &&
     grep -qF "$said" "$tmp/once.err" && [ -n "$at" ] && [ "$at" -lt "${first:-0}" ]; then pass "$n"
  else fail "$n" "rc $rc, $reps report(s), $notes note(s), ${secs}s: $(grep -m1 'symboliz' "$tmp/once.err")"; fi
done
# sym-timeout-said: the deadline the note gives is the one used: half of
# deadlock_timeout_ms when that is shorter than 5 s; one leak report (its
# groups' batch) says it too
printf '#include <stdlib.h>\nvoid *p;\nint main(void){ p = malloc(7); p = 0; return 0; }\n' >"$tmp/lk.c"
gcc -g -O0 -o "$B/lk" "$tmp/lk.c"
t0=$(date +%s%N)
timeout 60 env CHUNKGUARD_OPTIONS="mode=debug:detect_leaks=1:deadlock_timeout_ms=2000:symbolizer_path=$tmp/sleeper" \
  LD_PRELOAD="$SO" "$B/lk" >/dev/null 2>"$tmp/lk.err"; lrc=$?
secs=$(( ($(date +%s%N) - t0) / 1000000000 ))
if [ "$secs" -le 8 ] && [ "$lrc" = 23 ] &&
   [ "$(grep -c "symbolization given up: the symbolizer $tmp/sleeper did not answer in time (1000 ms)" "$tmp/lk.err")" = 1 ] &&
   grep -q '^Direct leak of 7 byte' "$tmp/lk.err"; then pass sym-timeout-said
else fail sym-timeout-said "rc $lrc, ${secs}s: $(grep -m2 'symboliz\|leak of' "$tmp/lk.err")"; fi

( timeout 60 env CHUNKGUARD_OPTIONS=mode=debug:log_path="$tmp/closed.log" LD_PRELOAD="$SO" \
  "$B/sym" free <&- >&- 2>&-; true ) 2>/dev/null
l=$(line free "$src")
if grep -Eq "^    #0 0x[0-9a-f]+ in overflow_then_free .*sym\.c:$l \(" "$tmp/closed.log" 2>/dev/null; then
  pass sym-fds-closed
else
  fail sym-fds-closed "log: $(grep -m3 '#' "$tmp/closed.log" 2>&1)"
fi
run mode=debug "$B/sym" fork
expect sym-fork-child 'ERROR: chunkguard: double-free' \
  "$F0 free_twice .*sym\.c:$(line free_twice "$src") \("

for how in exit exitcall; do
  for o in mode=fast mode=debug mode=guard mode=debug:symbolize=0; do
    n=sym-exit-race-$how-${o//[=:]/-}
    run "$o" "$B/race" $how
    if [ $rc = 134 ] && grep -q '^SUMMARY: chunkguard: double-free' <<<"$err"; then pass "$n"
    else fail "$n" "rc $rc, $(wc -l <<<"$err") line(s): $(head -c 300 <<<"$err")"; fi
  done
done

for o in mode=fast mode=debug mode=guard; do
  n=sym-sigchld-${o#mode=}
  out=$(timeout 60 env CHUNKGUARD_OPTIONS="$o:halt_on_error=0" LD_PRELOAD="$SO" \
        "$B/race" chld 3 2>"$tmp/chld.err")
  rc=$?
  reps=$(grep -c '^SUMMARY: chunkguard:' "$tmp/chld.err")
  syms=$(grep -Ec '^    #0 0x[0-9a-f]+ in [^ ]+ [^ ]+:[0-9]+ \(' "$tmp/chld.err")
  if [ "$out" = "sigchld 0 reaped 0" ] && [ "$reps" -ge 1 ] && [ "$syms" -ge "$reps" ]; then pass "$n"
  else fail "$n" "rc $rc, '$out', $reps report(s), $syms symbolized"; fi
done

# symbolizers that answer garbage: each reads its input, then prints
mkdir -p "$tmp/g"
printf '#!/bin/sh\ncat >/dev/null\nwhile :; do printf "\\033[31mEVIL\\033[0m\\n/src/x.c:1:2\\n\\nEVIL2\\n/src/x.c:l1:c2\\n\\n"; done | head -c 2000\n' >"$tmp/g/ctl"
printf '#!/bin/sh\ncat >/dev/null\nhead -c 20000 /dev/urandom | tr "\\\\000-\\\\011" "\\\\n"\n' >"$tmp/g/binary"
printf '#!/bin/sh\ncat >/dev/null\nhead -c 100000 /dev/zero | tr "\\\\000" E; printf "\\n/src/x.c:1:2\\n\\n"\n' >"$tmp/g/huge"
printf '#!/bin/sh\ncat >/dev/null\nfor i in 1 2 3 4 5 6 7 8; do printf "0x10\\nBELL\\007\\n/src/x.c:3\\n"; done\n' >"$tmp/g/addr2line"
chmod +x "$tmp/g/"*
for g in ctl binary huge addr2line; do
  run mode=debug:symbolizer_path="$tmp/g/$g" "$B/sym" free
  if plain_frames && grep -q '^SUMMARY: chunkguard: heap-buffer-overflow' <<<"$err" &&
     ! LC_ALL=C grep -q '[^[:print:][:space:]]' <<<"$err" && ! grep -q 'EVIL\|BELL\|EEEE' <<<"$err"; then
    pass sym-garbage-$g
  else
    fail sym-garbage-$g "rc $rc, got: $(grep -m3 '#' <<<"$err" | LC_ALL=C cut -c1-160 | cat -v)"
  fi
done

cat >"$tmp/contig.py" <<'PY'
import re, sys
# each report runs from its ERROR line to its SUMMARY line, holding no
# line of another and no line outside one
n = int(sys.argv[1]); cur = None; whole = 0; bad = []
for i, l in enumerate(sys.stdin.read().splitlines()):
    m = re.match(r'^==(\d+)==ERROR: chunkguard:', l)
    if m:
        if cur is not None:
            bad.append("line %d: report of %s inside that of %s" % (i, m.group(1), cur))
        cur = m.group(1)
    elif l.startswith('SUMMARY: chunkguard:'):
        if cur is None:
            bad.append("line %d: SUMMARY outside a report" % i)
        else:
            whole += 1
        cur = None
    elif cur is None and l.strip():
        bad.append("line %d outside a report: %s" % (i, l[:60]))
if whole != n:
    bad.append("%d whole reports, not %d" % (whole, n))
print("ok" if not bad else "; ".join(bad[:3]))
PY
for m in fast debug guard; do
  err=$(timeout 60 env CHUNKGUARD_OPTIONS=mode=$m LD_PRELOAD="$SO" "$B/race" fork 8 2>&1 >/dev/null)
  res=$(python3 "$tmp/contig.py" 8 <<<"$err" 2>&1)
  if [ "$res" = ok ]; then pass sym-fork-reports-$m; else fail sym-fork-reports-$m "$res"; fi
done
# a symbolizer that leaves a child holding its stdout open, then answers
for how in llvm addr2line; do
  mkdir -p "$tmp/d-$how"
  tool=llvm-symbolizer; [ $how = addr2line ] && tool=addr2line
  cat >"$tmp/d-$how/$tool" <<EOS
#!/bin/sh
sleep 300 &
echo \$! >"$tmp/d-$how.pid"
exec $(command -v $tool) "\$@"
EOS
  chmod +x "$tmp/d-$how/$tool"
  run mode=debug:symbolizer_path="$tmp/d-$how/$tool" "$B/sym" free
  dp=$(cat "$tmp/d-$how.pid" 2>/dev/null)
  for _ in 1 2 3 4 5 6 7 8 9 10; do alive "$dp" || break; sleep 0.1; done
  if grep -Eq "$F0 overflow_then_free .*sym\.c:$(line free "$src") \(" <<<"$err" &&
     [ "$secs" -lt 3 ] && ! alive "$dp"; then
    pass sym-daemon-$how
  else
    fail sym-daemon-$how "${secs}s (want < 3), child ${dp:-?} $(alive "$dp" && echo alive || echo gone), rc $rc: $(grep -m2 '#' <<<"$err")"
    [ -n "$dp" ] && kill "$dp" 2>/dev/null
  fi
done

# reports onto a log nobody reads (tests/stall)
gcc -std=gnu11 -g -O1 -pthread -I"$R/include" -o "$B/stall" "$R/tests/stall/stall.c" -ldl \
  2>"$tmp/b.err" || { fail stall-build "$(head -c 400 "$tmp/b.err")"; exit 1; }
FP="python3 $R/tests/stall/fullpipe.py"
# stall NAME WANT HOW OPTS ARGS...: the status under fullpipe.py is WANT,
# within 12 s (the 3 s write deadline, twice, and room for a loaded machine).
# Each case mostly waits out the write deadline, so they run at once in the
# background (@FIFO@ in HOW and OPTS names a FIFO of the case's own) and
# stall_results prints their lines in order.
stall_names=()
stall() {
  local name=$1 want=$2 how=${3//@FIFO@/$tmp/fifo.$1} opts=${4//@FIFO@/$tmp/fifo.$1}; shift 4
  stall_names+=("$name")
  (
    out=$($FP "$how" 20 -- env CHUNKGUARD_OPTIONS="$opts" LD_PRELOAD="$SO" "$B/stall" "$@" 2>&1)
    read -r _ r _ s <<<"$(head -1 <<<"$out")"
    if [ "$r" = "$want" ] && [ "${s%.*}" -lt 12 ]; then pass "$name"
    else fail "$name" "status $r in ${s}s (want $want): $(head -c 300 <<<"$out")"; fi
  ) >"$tmp/stall.$name" 2>&1 &
}
stall_results() {
  wait
  local n; for n in "${stall_names[@]}"; do cat "$tmp/stall.$n"; done
  stall_names=()
}
for m in fast debug guard; do
  stall stall-stderr-$m 134 stderr mode=$m df
  stall stall-stderr-exitcode-$m 9 stderr mode=$m:exitcode=9 df
done
stall stall-fifo-log 134 fifo:@FIFO@ mode=debug:log_path=@FIFO@ df
stall stall-fifo-leaks 23 fifo:@FIFO@ mode=debug:detect_leaks=1:log_path=@FIFO@ leak
stall stall-fifo-json 134 fifo:@FIFO@ mode=debug:report_path=@FIFO@ df
stall stall-fifo-stats 0 fifo:@FIFO@ stats_path=@FIFO@ quiet
stall stall-fifo-warning 0 fifo:@FIFO@ log_path=@FIFO@:no_such_option=1 quiet
stall stall-warning 0 stderr no_such_option=1 quiet
out=$($FP slow 60 -- env CHUNKGUARD_OPTIONS=mode=debug LD_PRELOAD="$SO" "$B/stall" df 2>&1)
if grep -q '^rc 134 ' <<<"$out" && grep -q '^==[0-9]*==ERROR: chunkguard: double-free' <<<"$out" &&
   grep -q '^SUMMARY: chunkguard: double-free' <<<"$out"; then pass stall-slow-reader
else fail stall-slow-reader "$(head -1 <<<"$out"), $(grep -c . <<<"$out") line(s): $(sed -n 2,4p <<<"$out")"; fi

for m in fast debug guard; do
  stall wait-stalled-$m 134 stderr mode=$m:deadlock_timeout_ms=1000 thread 7
done
for how in return _exit; do
  stall wait-stalled-$how 134 stderr deadlock_timeout_ms=1000 thread 7 $how
done
stall_results
err=$(timeout 30 env CHUNKGUARD_OPTIONS=deadlock_timeout_ms=1000:exitcode=9 LD_PRELOAD="$SO" \
      "$B/stall" cbhang 7 2>&1 >/dev/null)
rc=$?
if [ $rc = 9 ] && grep -q '^==[0-9]*==chunkguard: the report of thread tid [0-9]* was not finished' <<<"$err"
then pass wait-callback-hangs
else fail wait-callback-hangs "rc $rc (want 9): $(tail -c 300 <<<"$err")"; fi
# a SIGALRM handler that calls exit(7) or _exit(7) 300 ms into main's own
# report (the symbolizer never answers: the handler lands in its run),
# each mode: the report is written (frames from the symbol tables), its
# JSON too, and the process ends as the report would (134; exitcode=9:
# 9), not 7.  Before, nothing was written and the status was 7.
for m in fast debug guard; do
  for how in exit _exit; do
    for o in "" :exitcode=9; do
      n=sigexit-in-report-$m-$how${o:+-exitcode}; want=134; [ -n "$o" ] && want=9
      rm -f "$tmp/se.json"
      err=$(timeout 30 env CHUNKGUARD_OPTIONS="mode=$m$o:report_path=$tmp/se.json:symbolizer_path=$tmp/sleeper" \
            LD_PRELOAD="$SO" "$B/stall" sigexit 7 300 $how 2>&1 >/dev/null); rc=$?
      if [ $rc = $want ] && grep -q '^==[0-9]*==ERROR: chunkguard: double-free' <<<"$err" &&
         grep -q '^SUMMARY: chunkguard: double-free' <<<"$err" &&
         python3 -c 'import json, sys; assert json.loads(open(sys.argv[1]).readline())["kind"] == "double-free"' "$tmp/se.json" 2>/dev/null
      then pass "$n"
      else fail "$n" "rc $rc (want $want), json $(wc -c <"$tmp/se.json" 2>/dev/null || echo none): $(head -c 200 <<<"$err")"; fi
    done
  done
done
# long names: every line whole and bounded, SUMMARY kept, dropped frames said
python3 "$R/tests/symbolize/longname.py" 70 >"$tmp/longname.cc" &&
  g++ -g -O1 -o "$B/longname" "$tmp/longname.cc" 2>"$tmp/b.err" ||
  fail sym-long-names-build "$(head -c 400 "$tmp/b.err")"
run mode=debug:report_path="$tmp/long.json" "$B/longname"
printf '%s\n' "$err" >"$tmp/long.txt"
bad=$(awk 'length > 1600 || !/^(==[0-9]+==ERROR|    |0x[0-9a-f]+ is |previously allocated|HASH: |SUMMARY: )/ {
             print NR ": " substr($0, 1, 80); exit }' "$tmp/long.txt")
if [ -z "$bad" ] && [ "$rc" = 134 ] && grep -q '^SUMMARY: chunkguard: heap-buffer-overflow in free()$' <<<"$(tail -n1 "$tmp/long.txt")"; then
  pass sym-long-names-lines
else
  fail sym-long-names-lines "rc $rc, bad line: ${bad:-none}; last: $(tail -n1 "$tmp/long.txt" | cut -c1-80)"
fi
if grep -Eq '^    \.\.\. ([0-9]+ more lines of #[0-9]+ and )?[0-9]+ more frames not shown \(the report.s size limit\)$' "$tmp/long.txt" &&
   grep -Eq "$F1 char\* very_long_function_name_x+.*\.\.\. .*longname\.cc:[0-9]+ \(.*\) \(inlined\)\$" "$tmp/long.txt"; then
  pass sym-long-names-cut
else
  fail sym-long-names-cut "no '... more frames not shown' line or no cut inlined name: $(grep -m2 '#1' "$tmp/long.txt" | cut -c1-100)"
fi
if grep -Eq "$F0 char\* very_long_function_name_x+.*\.\.\. .*longname\.cc:[0-9]+ " "$tmp/long.txt"; then
  pass sym-long-names-demangled
else
  fail sym-long-names-demangled "frame #0: $(grep -m1 '#0' "$tmp/long.txt" | cut -c1-100)"
fi
if python3 -c 'import json, sys; json.loads(open(sys.argv[1]).readline())' "$tmp/long.json" 2>"$tmp/j.err"; then
  pass sym-long-names-json
else
  fail sym-long-names-json "$(tail -n1 "$tmp/j.err")"
fi
run mode=debug:detect_leaks=1 "$B/longname" leak
if [ "$rc" = 23 ] && ! awk 'length > 1600 { bad = 1 } END { exit !bad }' <<<"$err" &&
   grep -Eq '^HASH: chunkguard: [0-9a-f]+ of memory-leak in ' <<<"$err" &&
   grep -Eq '^    \.\.\. [0-9]+ more lines of #1 and [0-9]+ more frames not shown' <<<"$err" &&
   grep -q '^SUMMARY: chunkguard: 24 byte(s) leaked in 1 allocation(s)' <<<"$err"; then
  pass sym-long-names-leak
else
  fail sym-long-names-leak "rc $rc: $(grep -E '^(HASH|SUMMARY|    \.\.\.)' <<<"$err" | cut -c1-100)"
fi
# sym-quoted-path: a program in a directory whose name holds a double quote
# (and a blank, a backslash; then a single quote too): its frames get
# file:line, and the JSON names the module exactly
for qd in 'q"d ir\x' "q'd\"ir"; do
  mkdir -p "$tmp/$qd" && cp "$B/sym" "$tmp/$qd/sym"
  run mode=debug:report_path="$tmp/q.json" "$tmp/$qd/sym" free
  qok=$(python3 - "$tmp/q.json" "$tmp/$qd/sym" <<'PY'
import json, sys
try:
    r = json.loads(open(sys.argv[1]).readline())
    f = r["stacks"][next(iter(r["stacks"]))]["frames"][0]
    print("ok" if f["module"] == sys.argv[2] and f.get("line") else f"frame {f}")
except Exception as e:
    print(f"json: {e}")
PY
)
  rm -f "$tmp/q.json"
  if grep -Eq "$F0 overflow_then_free .*sym\.c:$(line free "$src") " <<<"$err" && [ "$qok" = ok ]; then
    pass "sym-quoted-path ($qd)"
  else
    fail "sym-quoted-path ($qd)" "json: $qok; text: $(grep -m1 '#0' <<<"$err")"
  fi
done
# sym-long-path: modules and sources in a directory of ~620 bytes (past
# the 480 of %N; a CODE line for llvm-symbolizer) and of ~1420 (past the
# 1024 bytes llvm-symbolizer reads of an input line: a run with --obj=),
# each name 200 bytes (NAME_MAX is 255): a library frame and the program's
for nseg in 3 7; do
ld=$tmp/long$nseg; for i in $(seq $nseg); do ld=$ld/$(printf "d$i%.0s" $(seq 100)); done
mkdir -p "$ld"
cat >"$ld/lp.c" <<'EOF'
#include <stdlib.h>
volatile int lp_sink;
__attribute__((noinline)) void lp_overflow_free(char *p, int n)
{
    p[n] = 1;
    free(p);                                    /* LINE-lpfree */
    lp_sink = 1;
}
__attribute__((noinline)) void *lp_leak(void) { return malloc(13); }   /* LINE-lpleak */
char lp_global[64];
EOF
cat >"$ld/lpmain.c" <<'EOF'
#include <stdlib.h>
#include <string.h>
void lp_overflow_free(char *p, int n);
void *lp_leak(void);
void *volatile lp_keep;
extern char lp_global[64];
int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "global") == 0) {
        free(lp_global + 16);                    /* a library's global */
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "leak") == 0) {
        lp_keep = lp_leak();                     /* LINE-mainleak */
        lp_keep = 0;
        return 0;
    }
    lp_overflow_free(malloc(10), 10 + argc - 1); /* LINE-mainfree */
    return 0;
}
EOF
if (cd "$ld" && gcc -g -O1 -fPIC -shared -o liblp.so lp.c &&
    gcc -g -O1 -o lpmain lpmain.c -L. -llp -Wl,-rpath,"$ld") 2>"$tmp/b.err"; then
  lso=$ld/liblp.so lexe=$ld/lpmain
  rm -f "$tmp/lp.json"
  run mode=debug:report_path="$tmp/lp.json" "$lexe"
  # the text: #0 in the library, #1 in main, each with its whole paths
  if grep -Fq " in lp_overflow_free $ld/lp.c:$(line lpfree "$ld/lp.c") ($lso+0x" <<<"$err" &&
     grep -Fq " in main $ld/lpmain.c:$(line mainfree "$ld/lpmain.c") ($lexe+0x" <<<"$err"; then
    pass sym-long-path-$nseg-text
  else
    fail sym-long-path-$nseg-text "rc $rc (${#ld}-byte dir): $(grep -m2 -E '#[01] ' <<<"$err" | cut -c1-200)"
  fi
  jok=$(python3 - "$tmp/lp.json" "$lso" "$ld/lp.c" "$(line lpfree "$ld/lp.c")" \
                  "$lexe" "$ld/lpmain.c" "$(line mainfree "$ld/lpmain.c")" <<'PY'
import json, sys
try:
    r = json.loads(open(sys.argv[1]).readline())
    fr = r["stacks"][next(iter(r["stacks"]))]["frames"]
    want = [tuple(sys.argv[2:5]), tuple(sys.argv[5:8])]
    got = [(f["module"], f["file"], str(f["line"])) for f in fr[:2]]
    if r["exe"] != sys.argv[5]:
        print(f"exe {len(r['exe'])} bytes, {r['exe'][-12:]}")
    else:
      print("ok" if got == want else
            f"frames {[(len(m), m[-12:], f and len(f), f and f[-12:], l) for m, f, l in got]}")
except Exception as e:
    print(f"json: {e!r}")
PY
)
  if [ "$jok" = ok ]; then pass sym-long-path-$nseg-json; else fail sym-long-path-$nseg-json "$jok"; fi
  run mode=debug:detect_leaks=1 "$lexe" leak
  if [ "$rc" = 23 ] &&
     grep -Fq " in lp_leak $ld/lp.c:$(line lpleak "$ld/lp.c") ($lso+0x" <<<"$err" &&
     grep -Fq " in main $ld/lpmain.c:$(line mainleak "$ld/lpmain.c") ($lexe+0x" <<<"$err"; then
    pass sym-long-path-$nseg-leak
  else
    fail sym-long-path-$nseg-leak "rc $rc: $(grep -m3 -E '#[0-2] ' <<<"$err" | cut -c1-200)"
  fi
  # a pointer into the library's data: the message names the module, its
  # first 252 bytes and "..." (a message line of 512 bytes), not cut silently
  run mode=debug "$lexe" global
  if grep -Fq "it is in the writable data of ${lso:0:252}... (a global" <<<"$err"; then
    pass sym-long-path-$nseg-describe
  else
    fail sym-long-path-$nseg-describe "rc $rc: $(grep -m1 -o 'it is in .*' <<<"$err" | cut -c1-60)...$(grep -m1 -o 'it is in .*' <<<"$err" | tail -c 60)"
  fi
  rm -f "$tmp/lp.stats"
  run mode=fast:stats_path="$tmp/lp.stats" "$lexe" leak
  if grep -Fq " exe=$lexe mallocs=" "$tmp/lp.stats" 2>/dev/null; then
    pass sym-long-path-$nseg-stats
  else
    fail sym-long-path-$nseg-stats "rc $rc: $(cut -c1-120 "$tmp/lp.stats" 2>&1)"
  fi
else
  fail sym-long-path-$nseg-build "$(head -c 400 "$tmp/b.err")"
fi
done
exit 0
