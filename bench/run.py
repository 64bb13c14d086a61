#!/usr/bin/env python3
"""run.py -- run the bench/ programs under glibc and under preloaded allocators.

usage: run.py [--bin-dir DIR] [--cg PATH|none] [--peers SPEC] [--sampled N] [--rounds N]
              [--quick] [--clock wall|cpu] [--only NAME,...] [--no-callgrind]
              [--out FILE]

Every workload binary (built once, dynamically linked) runs under glibc's
malloc and under LD_PRELOAD of each other allocator: chunkguard (--cg) and
any peers (--peers / BENCH_PEERS "name=/path.so,...").

The glibc baseline runs with an empty shared object preloaded
(--baseline-preload, default <bin-dir>/bench-empty.so), so that it pays the
loader's cost of one preloaded object as every other column does: that cost,
150-190 kB of peak RSS, would otherwise count as the allocator's memory in
2 MB processes.  A second column, glibc-bare, runs glibc with nothing
preloaded, so the table still shows what preloading itself costs.
--baseline-preload none drops both: glibc runs bare, as the only baseline.
Runs are interleaved: each round runs every workload once per allocator, the
allocator order reversed every other round so drift over time falls on all
alike.  Per workload and allocator the table shows the median ns per
operation, instructions per operation from one callgrind run with fewer
iterations (only the timed loop is collected, see bench/bench.h), and the
mean peak RSS in kB.  The peak RSS of one run is the largest exact RSS
(/proc/PID/smaps_rollup) that bench-launch sampled every millisecond while
the program ran; the kernel's own peak (ru_maxrss, VmHWM) comes from
per-CPU counters that may each be 128 kB behind, too coarse for 2 MB
processes (bench-launch.c says more, and results.json keeps ru_maxrss too).
Where ASLR puts libc decides how many of libc's pages fault-around maps, so
one program's exact peak varies by up to ±150 kB from run to run under any
allocator: the mean over the rounds estimates what a process costs on
average, where a median would pick one placement.  Ratios are against glibc.  Rows where chunkguard's time or RSS ratio exceeds the bar
(1.10) are flagged; that is a result, not an error.

BENCH_CLOCK=cpu (or --clock cpu) times the ns/op columns by the process's CPU
time instead of wall time: steadier on a busy machine, blind to time spent
blocked on a lock.

--cg none runs the chunkguard columns with nothing preloaded: an A/A run
whose ratios show the noise floor of the machine.  BENCH_QUICK=1 (or --quick)
makes a short run (~30 s); BENCH_ROUNDS overrides the number of rounds.

Writes the table to stdout, the same table as Markdown to
<bin-dir>/results.md and every sample to <bin-dir>/results.json.

Exit status: 0 when every run worked (whatever the ratios), 1 when a run
failed (crash, non-zero exit, timeout, no result line, the preload did not
take effect, callgrind missing or collecting nothing), 2 on bad usage.
"""

import argparse
import json
import os
import platform
import re
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BAR = 1.10  # the project's bar for chunkguard/glibc, time and peak RSS
EMPTY_PRELOAD = "bench-empty.so"  # the baseline's loader-cost control
ASAN_SO = "/usr/lib/x86_64-linux-gnu/libasan.so.8"
DEBUG_DIV = 16           # --debug: timed iterations / 16 (debug allocators are 10-100x slower;
                         # --quick does not shorten them further, see below)
DEBUG_ROUNDS = 3
# Extra environment per allocator name (--debug sets these).
ALLOC_ENV = {}
# The bars: (allocator, against, limit, check RSS too).  --debug replaces it.
BARS = [("chunkguard", "glibc", BAR, True)]
# What --debug matched between chunkguard and ASan's allocator (table header).
MATCH_NOTE = ""
# chunkguard's debug-mode defaults that set ASan's fill (src/base/options.def):
# poison_bytes=-1 poisons the whole freed block, but blocks of guard_big
# (128 KiB) or more are page-protected instead, so the bytes poisoned are at
# most guard_big - 1; the poison byte is 0xfd; fill_alloc=-1 fills nothing at
# malloc (only the redzones are written, as ASan writes its shadow).
CG_GUARD_BIG = 131072
CG_POISON_BYTE = 0xfd
CG_MALLOC_FILL = 0

# name, binary, variant, timed iterations, callgrind iterations (full run,
# quick run).  Full-run counts make each glibc run last about 1.5 s on the
# reference machine (2 cores); callgrind counts make each callgrind run about
# 2-4 s (memset/memcpy-heavy rows are slow under callgrind, hence fewer).
# Every callgrind count covers whole cycles of its program's pattern (32
# batches for lifo, 6 x 4096 calls for calloc-fixed), so quick and full runs
# give the same Ir/op up to warm-up effects.
WORKLOADS = [
    ("lifo-fixed",     "bench-lifo",    "fixed",    60000,    (2016, 224)),
    ("lifo-random",    "bench-lifo",    "random",   60000,    (2016, 224)),
    ("churn-1t",       "bench-churn",   "1t",       18000000, (1000000, 100000)),
    ("churn-2t-xfree", "bench-churn",   "2t-xfree", 6000000,  (200000, 20000)),
    ("calloc-fixed",   "bench-calloc",  "fixed",    7500000,  (49152, 24576)),
    ("calloc-random",  "bench-calloc",  "random",   7500000,  (49152, 24576)),
    ("calloc-small-fixed",  "bench-calloc", "small-fixed",  7500000, (49152, 24576)),
    ("calloc-small-random", "bench-calloc", "small-random", 7500000, (49152, 24576)),
    ("realloc-grow",   "bench-realloc", "grow",     22000000, (150000, 15000)),
]
# --debug adds the thread-scaling rows: churn-1t's work split over 2 and 4
# threads (bench-churn.c), timed as the wall time per call of all threads
# together, so that a row at churn-1t's figure says the threads ran one at a
# time (issue 15's bar: at most 1.2 x churn-1t on 2 cores).
DEBUG_WORKLOADS = [
    ("churn-2t",       "bench-churn",   "2t",       18000000, (1000000, 100000)),
    ("churn-4t",       "bench-churn",   "4t",       18000000, (1000000, 100000)),
]
LAUNCHER = "bench-launch"  # reports the program's own peak RSS, see there
FULL_ROUNDS = 7
# The exact peak RSS of one program varies by up to +-150 kB with where ASLR
# puts libc (fault-around windows); 7 samples leave the mean of a 2 MB row
# uncertain by some 40 kB, so the allocators a bar compares get extra
# memory-only runs up to this many samples.
RSS_RUNS = 21
QUICK_ROUNDS = 3
QUICK_DIV = 8            # quick mode: timed iterations / 8
RUN_TIMEOUT = 120        # seconds for one timed run (a hang is a failure)
CALLGRIND_TIMEOUT = 600  # seconds for one callgrind run


class RunError(Exception):
    """A run that produced no usable result."""


def parse_args(argv):
    """Parse the command line (argv without the program name)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bin-dir", default="build/bench",
                   help="where the bench-* binaries are; results go there too")
    p.add_argument("--cg", default="build/libchunkguard.so",
                   help="chunkguard .so to preload, or 'none' for an A/A run")
    p.add_argument("--baseline-preload", default=None,
                   help="empty .so preloaded under the glibc baseline "
                        "(default <bin-dir>/bench-empty.so), or 'none'")
    p.add_argument("--peers", default=os.environ.get("BENCH_PEERS", ""),
                   help="extra allocators: name=/path.so,...")
    p.add_argument("--rounds", type=int,
                   default=int(os.environ.get("BENCH_ROUNDS") or 0) or None)
    p.add_argument("--quick", action="store_true",
                   default=os.environ.get("BENCH_QUICK", "") not in ("", "0"))
    p.add_argument("--only", default="",
                   help="comma-separated workload names to run")
    p.add_argument("--clock", choices=("wall", "cpu"),
                   default=os.environ.get("BENCH_CLOCK") or "wall",
                   help="time the ns/op columns by wall time (default) or process CPU time")
    p.add_argument("--no-callgrind", action="store_true",
                   help="skip the instruction counts")
    p.add_argument("--rss-runs", type=int,
                   default=int(os.environ.get("BENCH_RSS_RUNS") or RSS_RUNS),
                   help="peak-RSS samples per row for the allocators in the bar, "
                        "the timed rounds included (extra runs measure memory only)")
    p.add_argument("--debug", action="store_true",
                   help="the debug-mode table: chunkguard mode=debug against AddressSanitizer's "
                        "allocator (libasan preloaded), stack depth 1 and 16, 64 MiB quarantine")
    p.add_argument("--sampled", type=int, default=int(os.environ.get("BENCH_SAMPLED") or 0),
                   help="also run chunkguard in fast mode with guard_sample=N (a column "
                        "cg-sampled-N: the sampler's cost on each row)")
    p.add_argument("--out", default=None,
                   help="Markdown output (default <bin-dir>/results.md)")
    return p.parse_args(argv)


def allocators(args):
    """The allocators to compare, baseline first: list of (name, so-or-None).

    Exits with status 2 when a given .so does not exist or a peer spec is
    malformed.
    """
    if args.debug:
        return debug_allocators(args)
    if args.baseline_preload == "none":
        result = [("glibc", None)]
    else:
        empty = args.baseline_preload or os.path.join(args.bin_dir, EMPTY_PRELOAD)
        result = [("glibc", os.path.abspath(empty)), ("glibc-bare", None)]
    if args.cg == "none":
        result.append(("chunkguard", None))
    else:
        result.append(("chunkguard", os.path.abspath(args.cg)))
    if args.sampled > 0 and args.cg != "none":
        name = "cg-sampled-%d" % args.sampled
        ALLOC_ENV[name] = {"CHUNKGUARD_OPTIONS": "guard_sample=%d" % args.sampled}
        result.append((name, os.path.abspath(args.cg)))
    for item in filter(None, (s.strip() for s in args.peers.split(","))):
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            usage_error("bad peer %r: want name=/path.so" % item)
        if name in (n for n, _ in result):
            usage_error("peer name %r used twice" % name)
        result.append((name, os.path.abspath(path)))
    for name, so in result:
        if so is not None and not os.path.isfile(so):
            usage_error("%s: %s does not exist" % (name, so))
    return result


def debug_allocators(args):
    """--debug: glibc, then chunkguard's debug mode and ASan's allocator with
    the same quarantine (64 MiB) and stack depth (1 and 16 frames), and debug
    mode at depth 1 without poison (poison_bytes=0), to show its cost."""
    cg = os.path.abspath(args.cg)
    empty = os.path.abspath(os.path.join(args.bin_dir, EMPTY_PRELOAD))
    for so in (cg, empty, ASAN_SO):
        if not os.path.isfile(so):
            usage_error("%s does not exist (make bench installs libasan8 and builds the rest)" % so)
    result = [("glibc", empty)]
    for depth in (1, 16):
        ALLOC_ENV["cg-debug-%d" % depth] = {
            "CHUNKGUARD_OPTIONS": "mode=debug:quarantine_mb=64:stack_depth=%d" % depth}
        ALLOC_ENV["asan-%d" % depth] = {
            "ASAN_OPTIONS": "quarantine_size_mb=64:malloc_context_size=%d:detect_leaks=0:"
                            "verify_asan_link_order=0:alloc_dealloc_mismatch=0:"
                            "max_free_fill_size=%d:free_fill_byte=%d:"
                            "max_malloc_fill_size=%d:malloc_fill_byte=%d"
                            % (depth, CG_GUARD_BIG - 1, CG_POISON_BYTE,
                               CG_MALLOC_FILL, CG_POISON_BYTE ^ 0xff)}
        result += [("cg-debug-%d" % depth, cg), ("asan-%d" % depth, ASAN_SO)]
    # What the poison costs: debug mode at depth 1 with no freed byte filled
    # or checked (poison_bytes=0; double frees stay exact).  Shown, not
    # judged: the bar is on the default configuration.
    ALLOC_ENV["cg-debug-1-p0"] = {
        "CHUNKGUARD_OPTIONS": "mode=debug:quarantine_mb=64:stack_depth=1:poison_bytes=0"}
    result.append(("cg-debug-1-p0", cg))
    BARS[:] = [("cg-debug-1", "asan-1", 1.0, False), ("cg-debug-16", "asan-16", 1.0, False)]
    global MATCH_NOTE
    MATCH_NOTE = ("ASan matched to debug mode's defaults: quarantine_size_mb=64, "
                  "malloc_context_size=stack_depth, max_free_fill_size=%d with "
                  "free_fill_byte=0x%x (chunkguard poisons whole freed blocks below "
                  "guard_big=%d), max_malloc_fill_size=%d (chunkguard fills nothing "
                  "at malloc: fill_alloc=-1; ASan's own default is 4096)"
                  % (CG_GUARD_BIG - 1, CG_POISON_BYTE, CG_GUARD_BIG, CG_MALLOC_FILL))
    return result


def usage_error(msg):
    """Print msg and exit with status 2."""
    print("bench: " + msg, file=sys.stderr)
    sys.exit(2)


def child_env(so, extra=None):
    """Environment for a child: ours, with LD_PRELOAD set to so or removed,
    plus the allocator's own settings (extra)."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if so is not None:
        env["LD_PRELOAD"] = so
    env.update(extra or {})
    return env


def wait_with_timeout(pid, timeout):
    """Reap pid, killing it after timeout seconds.

    Returns (status, rusage, timed_out).  Waits on a pidfd, so the harness
    does not wake up while a benchmark runs.
    """
    timed_out = False
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None
    if fd is not None:
        try:
            poller = select.poll()
            poller.register(fd, select.POLLIN)
            if not poller.poll(timeout * 1000):
                os.kill(pid, 9)
                timed_out = True
        finally:
            os.close(fd)
    else:
        deadline = time.monotonic() + timeout
        while os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                timed_out = True
                break
            time.sleep(0.05)
    _, status, rusage = os.wait4(pid, 0)
    return status, rusage, timed_out


def spawn(argv, env, timeout, tmpdir):
    """Run argv to completion; stdout and stderr go to files in tmpdir.

    Returns (exit code or -signal, stdout text, stderr text, peak RSS in kB,
    timed_out).
    """
    out_path = os.path.join(tmpdir, "stdout")
    err_path = os.path.join(tmpdir, "stderr")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, out_path, flags, 0o644),
        (os.POSIX_SPAWN_OPEN, 2, err_path, flags, 0o644),
    ]
    exe = shutil.which(argv[0]) if os.sep not in argv[0] else argv[0]
    if exe is None:
        raise RunError("%s not found" % argv[0])
    pid = os.posix_spawn(exe, argv, env, file_actions=actions)
    status, rusage, timed_out = wait_with_timeout(pid, timeout)
    with open(out_path, errors="replace") as f:
        out = f.read()
    with open(err_path, errors="replace") as f:
        err = f.read()
    return os.waitstatus_to_exitcode(status), out, err, rusage.ru_maxrss, timed_out


def parse_line(out, tag, ints=(), floats=()):
    """The key=value pairs of the single line starting with tag + ' ', or None.

    Keys in ints and floats must be present and are converted.
    """
    lines = [l for l in out.splitlines() if l.startswith(tag + " ")]
    if len(lines) != 1:
        return None
    pairs = dict(tok.partition("=")[::2] for tok in lines[0].split()[1:])
    try:
        for k in ints:
            pairs[k] = int(pairs[k])
        for k in floats:
            pairs[k] = float(pairs[k])
    except (KeyError, ValueError):
        return None
    return pairs


def parse_result(out):
    """The fields of a benchmark's BENCH line, or None."""
    return parse_line(out, "BENCH", ints=("ops", "ns", "cpu_ns", "hwm_kb"),
                      floats=("ns_per_op", "cpu_ns_per_op"))


def check_preload(res, so):
    """Raise RunError unless malloc came from so (or from libc when so is None
    or the baseline's empty object)."""
    got = res.get("malloc_from", "unknown")
    if so is None or os.path.basename(so) == EMPTY_PRELOAD:
        ok = os.path.basename(got).startswith("libc.so")
    else:
        ok = os.path.exists(got) and os.path.samefile(got, so)
    if not ok:
        raise RunError("malloc resolved to %s, expected %s" % (got, so or "libc"))


def describe_failure(code, err, timed_out, timeout):
    """One-line reason for a failed run plus the tail of its stderr."""
    if timed_out:
        why = "timed out after %d s" % timeout
    elif code < 0:
        why = "killed by signal %d" % -code
    else:
        why = "exit status %d" % code
    # valgrind's own banner lines ("==PID== ...") would crowd out the
    # program's; an allocator report ("==PID==ERROR: ...") has no space.
    lines = [l for l in err.strip().splitlines() if not re.match(r"==\d+==( |$)", l)]
    tail = "\n".join(lines[-5:])
    return why + ("\n    " + tail.replace("\n", "\n    ") if tail else "")


def timed_run(launcher, binary, variant, iters, so, tmpdir, extra=None):
    """One timed run: returns (wall ns per op, CPU ns per op, exact peak RSS kB,
    ru_maxrss kB, ops).

    The exact peak is the largest RSS bench-launch read from the program's
    smaps_rollup, sampled every millisecond.  ru_maxrss is the kernel's peak
    as the launcher got it from wait4; it must agree with the VmHWM the
    program printed (within 5% + 256 kB): a larger figure would mean it
    includes an image from before exec.
    """
    argv = [launcher, "-s", "1", so or "-", binary, variant, str(iters)]
    code, out, err, _, timed_out = spawn(argv, child_env(None, extra), RUN_TIMEOUT, tmpdir)
    res = parse_result(out)
    ru = parse_line(out, "RUSAGE", ints=("maxrss_kb", "exact_peak_kb", "samples"))
    if code != 0 or timed_out or res is None or ru is None:
        if code == 0 and not timed_out:
            raise RunError("no BENCH/RUSAGE line in output: %r" % out[:300])
        raise RunError(describe_failure(code, err, timed_out, RUN_TIMEOUT))
    check_preload(res, so)
    rss, hwm = ru["maxrss_kb"], res["hwm_kb"]
    if hwm <= 0 or abs(rss - hwm) > 0.05 * hwm + 256:
        raise RunError("peak RSS from wait4 (%d kB) disagrees with VmHWM (%d kB)" % (rss, hwm))
    if ru["samples"] < 1 or ru["exact_peak_kb"] <= 0:
        raise RunError("bench-launch took no RSS sample of the program")
    return res["ns_per_op"], res["cpu_ns_per_op"], ru["exact_peak_kb"], rss, res["ops"]


def callgrind_run(binary, variant, iters, so, tmpdir, extra=None):
    """One callgrind run: returns instructions per operation of the timed loop.
    extra: the allocator's own settings (ALLOC_ENV), as for the timed runs."""
    out_file = os.path.join(tmpdir, "callgrind.out")
    argv = ["valgrind", "--tool=callgrind", "--toggle-collect=timed_*",
            "--dump-instr=no", "--callgrind-out-file=" + out_file,
            binary, variant, str(iters)]
    code, out, err, _, timed_out = spawn(argv, child_env(so, extra), CALLGRIND_TIMEOUT, tmpdir)
    res = parse_result(out)
    if code != 0 or timed_out or res is None:
        raise RunError("callgrind: " + describe_failure(code, err, timed_out, CALLGRIND_TIMEOUT))
    check_preload(res, so)
    total = None
    with open(out_file) as f:
        for line in f:
            if line.startswith("totals:") or (total is None and line.startswith("summary:")):
                total = int(line.split()[1])
    if not total:
        raise RunError("callgrind collected no instructions (no timed_* function?)")
    return total / res["ops"]


def ratio(a, b):
    """a/b, or None when either is missing."""
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt(v, digits):
    """Format a number for the table; '-' when missing."""
    if v is None:
        return "-"
    if digits == 0:
        return "%d" % round(v)
    return "%.*f" % (digits, v)


def build_table(rows, allocs, have_callgrind):
    """Header and rows of strings for the result table, plus the flagged rows."""
    base = allocs[0][0]
    header = ["workload", "ops"]
    header += ["%s ns/op" % base]
    for name, _ in allocs[1:]:
        header += ["%s ns/op" % name, "%s/%s" % (name, base)]
    if have_callgrind:
        header += ["%s Ir/op" % base]
        for name, _ in allocs[1:]:
            header += ["%s Ir/op" % name, "Ir %s/%s" % (name, base)]
    header += ["%s RSS kB" % base]
    for name, _ in allocs[1:]:
        header += ["%s RSS kB" % name, "RSS %s/%s" % (name, base)]
    header += ["bar"]

    body, flagged = [], []
    for row in rows:
        r = row["results"]
        t = {n: (statistics.median(r[n]["ns"]) if r[n]["ns"] else None) for n, _ in allocs}
        m = {n: (statistics.mean(r[n]["rss"]) if r[n]["rss"] else None) for n, _ in allocs}
        ir = {n: r[n]["ir"] for n, _ in allocs}
        cells = [row["name"], str(row["ops"] or "-"), fmt(t[base], 1)]
        for name, _ in allocs[1:]:
            cells += [fmt(t[name], 1), fmt(ratio(t[name], t[base]), 2)]
        if have_callgrind:
            cells += [fmt(ir[base], 1)]
            for name, _ in allocs[1:]:
                cells += [fmt(ir[name], 1), fmt(ratio(ir[name], ir[base]), 2)]
        cells += [fmt(m[base], 0)]
        for name, _ in allocs[1:]:
            cells += [fmt(m[name], 0), fmt(ratio(m[name], m[base]), 2)]
        over = []
        if row["failed"]:
            over.append("FAILED")
        for name, against, limit, rss in BARS:
            tr, mr = ratio(t[name], t[against]), ratio(m[name], m[against])
            if tr is not None and tr > limit:
                over.append("%s time>%.2f x %s" % (name, limit, against) if len(BARS) > 1
                            else "time>%.2f" % limit)
            if rss and mr is not None and mr > limit:
                over.append("rss>%.2f" % limit)
        cells.append(" ".join(over) if over else "ok")
        if over:
            flagged.append(row["name"])
        body.append(cells)
    return header, body, flagged


def text_table(header, body):
    """The table as aligned plain text."""
    widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header))]
    def line(cells):
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths)))
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in body])


def markdown_table(header, body):
    """The table as GitHub Markdown."""
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join(["---"] + ["---:"] * (len(header) - 2) + [":---"]) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in body]
    return "\n".join(out)


def machine_line():
    """Short description of the machine and toolchain the numbers come from."""
    libc = platform.libc_ver()
    try:
        gcc = subprocess.run(["gcc", "-dumpfullversion"], capture_output=True,
                             text=True).stdout.strip()
    except OSError:
        gcc = "?"
    return "%s, %d CPUs, Linux %s, %s %s, gcc %s" % (
        platform.machine(), os.cpu_count() or 0, platform.release(),
        libc[0], libc[1], gcc)


def main(argv):
    """Entry point; returns the exit status."""
    args = parse_args(argv)
    allocs = allocators(args)
    rounds = args.rounds or (QUICK_ROUNDS if args.quick else
                             DEBUG_ROUNDS if args.debug else FULL_ROUNDS)
    if rounds < 1:
        usage_error("--rounds must be at least 1")
    only = set(filter(None, args.only.split(",")))
    table = WORKLOADS + (DEBUG_WORKLOADS if args.debug else [])
    unknown = only - {w[0] for w in table}
    if unknown:
        usage_error("unknown workload(s): " + ", ".join(sorted(unknown)))
    workloads = [w for w in table if not only or w[0] in only]
    launcher = os.path.abspath(os.path.join(args.bin_dir, LAUNCHER))
    for binary in [LAUNCHER] + [w[1] for w in workloads]:
        path = os.path.join(args.bin_dir, binary)
        if not os.access(path, os.X_OK):
            usage_error("%s is missing: run make bench" % path)
    have_callgrind = not args.no_callgrind and not args.debug  # valgrind cannot host ASan
    failures = []
    if have_callgrind and shutil.which("valgrind") is None:
        failures.append("valgrind is not installed (tools/deps.sh bench installs it)")
        have_callgrind = False

    rows = []
    for name, binary, variant, iters, cg_iters in workloads:
        cg_iters = cg_iters[1] if args.quick else cg_iters[0]
        # A debug-mode row is measured once the quarantine is full (its
        # blocks then leave as fast as they come, and every free pays for
        # a release): a quick run keeps the full run's iterations (churn-1t
        # and calloc-random free about 1 GB in them, 15 times the 64 MiB
        # budget) and only runs fewer rounds.  Divided by 8 too, those rows
        # spent half their timed loop filling the quarantine and timed a
        # cheaper allocator than a program running for a while meets.
        if args.quick and not args.debug:
            iters = max(1, iters // QUICK_DIV)
        if args.debug:
            iters = max(1, iters // DEBUG_DIV)
        rows.append({"name": name, "binary": os.path.abspath(os.path.join(args.bin_dir, binary)),
                     "variant": variant, "iters": iters, "cg_iters": cg_iters,
                     "ops": None, "failed": False,
                     "results": {n: {"ns": [], "wall_ns": [], "cpu_ns": [], "rss": [],
                                     "maxrss": [], "ir": None}
                                 for n, _ in allocs}})

    load_before = os.getloadavg()[0]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="cg-bench-") as tmpdir:
        def measure(row, name, so, timed):
            """One run of row under allocator name; its samples into row
            (all of them, or with timed=False the peak RSS only)."""
            try:
                ns, cpu, rss, maxrss, ops = timed_run(launcher, row["binary"], row["variant"],
                                                      row["iters"], so, tmpdir,
                                                      ALLOC_ENV.get(name))
            except RunError as e:
                row["failed"] = True
                failures.append("%s under %s%s: %s" % (row["name"], name,
                                                       "" if timed else " (RSS run)", e))
                return
            res = row["results"][name]
            res["rss"].append(rss)
            res["maxrss"].append(maxrss)
            if timed:
                row["ops"] = ops
                res["ns"].append(cpu if args.clock == "cpu" else ns)
                res["wall_ns"].append(ns)
                res["cpu_ns"].append(cpu)

        for rnd in range(rounds):
            print("bench: round %d/%d (%.0f s)" % (rnd + 1, rounds, time.monotonic() - started),
                  file=sys.stderr, flush=True)
            order = allocs if rnd % 2 == 0 else list(reversed(allocs))
            for row in rows:
                for name, so in order:
                    measure(row, name, so, True)
        barred = sorted({n for b in BARS if b[3] for n in b[:2]})
        extra = max(0, args.rss_runs - rounds) if barred else 0
        if extra:
            print("bench: %d more runs for peak RSS of %s (%.0f s)"
                  % (extra, ", ".join(barred), time.monotonic() - started),
                  file=sys.stderr, flush=True)
        for k in range(extra):
            for row in rows:
                for name, so in (allocs if k % 2 == 0 else list(reversed(allocs))):
                    if name in barred:
                        measure(row, name, so, False)
        if have_callgrind:
            print("bench: callgrind (%.0f s)" % (time.monotonic() - started),
                  file=sys.stderr, flush=True)
            for row in rows:
                for name, so in allocs:
                    try:
                        row["results"][name]["ir"] = callgrind_run(
                            row["binary"], row["variant"], row["cg_iters"], so, tmpdir,
                            ALLOC_ENV.get(name))
                    except RunError as e:
                        row["failed"] = True
                        failures.append("%s under %s (callgrind): %s" % (row["name"], name, e))
    elapsed = time.monotonic() - started
    load = max(load_before, os.getloadavg()[0])

    header, body, flagged = build_table(rows, allocs, have_callgrind)
    mode = "quick" if args.quick else "full"
    cg_note = "nothing preloaded (A/A run)" if args.cg == "none" else args.cg
    intro = ("%d rounds (%s), median %s ns per allocator call; chunkguard: %s; %s; "
             "load average %.1f; %.0f s"
             % (rounds, mode, args.clock, cg_note, machine_line(), load, elapsed))
    if MATCH_NOTE:
        intro += "\n\n" + MATCH_NOTE
    print(intro)
    # Our own runs keep one or two CPUs busy; more than that is someone else's.
    if load > (os.cpu_count() or 1) + 0.5:
        warn = ("warning: the machine was busy (load average %.1f on %d CPUs): wall times "
                "are unreliable; compare Ir/op, or use BENCH_CLOCK=cpu"
                % (load, os.cpu_count() or 1))
        print(warn)
        intro += "\n\n" + warn
    print(text_table(header, body))
    bars = "; ".join("%s/%s <= %.2f%s" % (n, a, l, " (time and RSS)" if r else " (time)")
                     for n, a, l, r in BARS)
    if flagged:
        print("over the bar (%s) or failed: %s" % (bars, ", ".join(flagged)))
    else:
        print("every row within the bar (%s)" % bars)

    out = args.out or os.path.join(args.bin_dir, "results-debug.md" if args.debug else "results.md")
    with open(out, "w") as f:
        f.write("Command: `%s%s%s`  \n" % ("python3 bench/run.py --debug" if args.debug else "make bench",
                                          " BENCH_QUICK=1" if args.quick else "",
                                          " BENCH_CLOCK=cpu" if args.clock == "cpu" else ""))
        f.write(intro + "\n\n")
        f.write(markdown_table(header, body) + "\n")
        if flagged:
            f.write("\nOver the bar (%s) or failed: %s\n" % (bars, ", ".join(flagged)))
    with open(os.path.splitext(out)[0] + ".json", "w") as f:
        json.dump({"rounds": rounds, "mode": mode, "clock": args.clock,
                   "load_average": load, "machine": machine_line(),
                   "allocators": [{"name": n, "preload": so} for n, so in allocs],
                   "rows": rows, "failures": failures}, f, indent=1)
    print("bench: wrote %s" % out, file=sys.stderr)

    for msg in failures:
        print("bench: FAILED " + msg, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
