#!/usr/bin/env python3
"""forkstorm.py - fork() from signal handlers, chunkguard against glibc.

Issue 13's bar for the fork protocol: a program whose main loop mallocs
and forks while a timer's handler forks too (tests/locks/fork_signal.c,
"storm") finishes in debug mode within 2 x glibc's time.  Interleaved
rounds (glibc, then each configuration, then glibc again ...), the median
of each, wall time as the program measures it, and CPU time (user +
system, the program and its children, from getrusage): on a machine
others load, wall time mostly measures the wait for a CPU.
Configurations: fast, debug, debug with 4 KiB pages (huge_pages=0: a
fork copies a page-table entry per resident 4 KiB page, and the
quarantine keeps freed blocks resident), debug with quarantine_mb=0 (the
difference between these debug rows is the quarantine's cost, not the
protocol's) and guard.

    python3 bench/forkstorm.py [--cg build/libchunkguard.so] [--rounds 5]
                               [--forks 400] [--out FILE.md]
                               [--also NAME=OTHER.so ...]
    python3 bench/forkstorm.py --check DIR [--cg SO] [--bin PROG]

--also adds a debug-mode row (default options) for another build of the
library, in the same interleaved rounds: a before/after comparison.

Exit status 0 when debug mode is within the bar, 1 when not, 2 on a run
that failed.

--check DIR is tests/suites/52-locks.sh's test of the same storm (this
file is the one place that says which program, configurations and fork
count it is): one run of each configuration, each chunkguard one with
report_path=DIR/fork-signal-NAME.json, which must stay empty; every run
must exit 0 and have nested some forks.  Prints one line per
configuration, "storm NAME ok seconds=S" or "storm NAME FAIL why", and
exits 0 when all are ok, 1 when not.  The time is not judged there.
Standard library only.
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = [("glibc", None), ("fast", "mode=fast"), ("debug", "mode=debug"),
           ("debug-4k", "mode=debug:huge_pages=0"), ("debug-q0", "mode=debug:quarantine_mb=0"), ("guard", "mode=guard")]
BAR = 2.0


FORKS = 400
SOURCE = os.path.join(ROOT, "tests", "locks", "fork_signal.c")


def build(prog):
    """Compile the storm's program (tests/locks/fork_signal.c) to prog."""
    os.makedirs(os.path.dirname(prog) or ".", exist_ok=True)
    subprocess.run(["gcc", "-O1", "-g", "-o", prog, SOURCE], check=True)


def run_one(prog, so, opts, forks, timeout=300):
    """One storm: (seconds, nested forks, CPU seconds).  RuntimeError when
    it fails."""
    if isinstance(opts, tuple):          # (library, options) of an --also row
        so, opts = opts
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if opts is not None:
        env["LD_PRELOAD"] = so
        env["CHUNKGUARD_OPTIONS"] = opts
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([prog, "storm", str(forks)], env=env, capture_output=True,
                       text=True, timeout=timeout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    m = re.search(r"nested=(\d+).*seconds=([0-9.]+)", p.stdout)
    if p.returncode != 0 or m is None:
        raise RuntimeError("exit %d: %s %s" % (p.returncode, p.stdout[-300:], p.stderr[-300:]))
    return float(m.group(2)), int(m.group(1)), cpu


def check(prog, so, outdir):
    """--check: each configuration once, judged (see the module's text)."""
    bad = 0
    for name, opts in CONFIGS:
        report = os.path.join(outdir, "fork-signal-%s.json" % name)
        if os.path.exists(report):
            os.unlink(report)
        full = None if opts is None else opts + ":report_path=" + report
        try:
            s, nested, _ = run_one(prog, so, full, FORKS, timeout=120)
            if nested == 0:
                raise RuntimeError("no fork was nested: the run proved nothing")
            if os.path.exists(report) and os.path.getsize(report) > 0:
                with open(report) as f:
                    raise RuntimeError("a report: " + f.read(200))
            print("storm %s ok seconds=%.3f nested=%d" % (name, s, nested), flush=True)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            print("storm %s FAIL %s" % (name, " ".join(str(e).split())[:300]), flush=True)
            bad += 1
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cg", default=os.path.join(ROOT, "build", "libchunkguard.so"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--forks", type=int, default=FORKS)
    ap.add_argument("--out", default="")
    ap.add_argument("--check", metavar="DIR", default="")
    ap.add_argument("--also", action="append", default=[], metavar="NAME=SO")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bench", "fork_signal"))
    a = ap.parse_args()
    prog = a.bin
    try:
        build(prog)
    except (OSError, subprocess.CalledProcessError) as e:
        print("forkstorm: cannot build %s: %s" % (SOURCE, e), file=sys.stderr)
        return 2
    if a.check:
        return check(prog, a.cg, a.check)
    for spec in a.also:
        name, so = spec.split("=", 1)
        CONFIGS.append(("debug@" + name, (os.path.abspath(so), "mode=debug")))
    secs = {name: [] for name, _ in CONFIGS}
    cpus = {name: [] for name, _ in CONFIGS}
    nested = {name: 0 for name, _ in CONFIGS}
    for r in range(a.rounds):
        print("forkstorm: round %d/%d" % (r + 1, a.rounds), file=sys.stderr, flush=True)
        for name, opts in CONFIGS:
            try:
                s, n, c = run_one(prog, a.cg, opts, a.forks)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                print("forkstorm: %s failed: %s" % (name, e), file=sys.stderr)
                return 2
            secs[name].append(s)
            cpus[name].append(c)
            nested[name] += n
    load = os.getloadavg()[0]
    g = statistics.median(secs["glibc"])
    gc = statistics.median(cpus["glibc"])
    lines = ["fork storm (%d forks from main, one from a signal handler each), median of %d "
             "interleaved rounds, wall s; load average %.1f" % (a.forks, a.rounds, load), "",
             "| run | median s | /glibc | min s | max s | CPU median s | CPU /glibc | nested forks (all rounds) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, _ in CONFIGS:
        m = statistics.median(secs[name])
        c = statistics.median(cpus[name])
        lines.append("| %s | %.3f | %.2f | %.3f | %.3f | %.3f | %.2f | %d |" % (
            name, m, m / g, min(secs[name]), max(secs[name]), c, c / gc, nested[name]))
    ratio = statistics.median(secs["debug"]) / g
    ok = ratio <= BAR
    cratio = statistics.median(cpus["debug"]) / gc
    lines += ["", "bar: debug mode (default options) <= %.1f x glibc: %.2f (CPU time %.2f), %s" % (
        BAR, ratio, cratio, "ok" if ok else "over the bar")]
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
