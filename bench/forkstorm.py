#!/usr/bin/env python3
"""forkstorm.py - fork() from signal handlers, chunkguard against glibc.

Issue 13's bar for the fork protocol: a program whose main loop mallocs
and forks while a timer's handler forks too (tests/locks/fork_signal.c,
"storm") finishes in debug mode within 2 x glibc's time.  Interleaved
rounds (glibc, then each configuration, then glibc again ...), the median
of each, wall time as the program measures it.  Configurations: fast,
debug, debug with quarantine_mb=0 (a fork copies the page tables of every
resident page, and the quarantine keeps freed blocks resident: the
difference between the two debug rows is that cost, not the protocol's)
and guard.

    python3 bench/forkstorm.py [--cg build/libchunkguard.so] [--rounds 5]
                               [--forks 400] [--out FILE.md]
    python3 bench/forkstorm.py --check DIR [--cg SO] [--bin PROG]

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
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = [("glibc", None), ("fast", "mode=fast"), ("debug", "mode=debug"),
           ("debug-q0", "mode=debug:quarantine_mb=0"), ("guard", "mode=guard")]
BAR = 2.0


FORKS = 400
SOURCE = os.path.join(ROOT, "tests", "locks", "fork_signal.c")


def build(prog):
    """Compile the storm's program (tests/locks/fork_signal.c) to prog."""
    os.makedirs(os.path.dirname(prog) or ".", exist_ok=True)
    subprocess.run(["gcc", "-O1", "-g", "-o", prog, SOURCE], check=True)


def run_one(prog, so, opts, forks, timeout=300):
    """One storm: (seconds, nested forks).  RuntimeError when it fails."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if opts is not None:
        env["LD_PRELOAD"] = so
        env["CHUNKGUARD_OPTIONS"] = opts
    p = subprocess.run([prog, "storm", str(forks)], env=env, capture_output=True,
                       text=True, timeout=timeout)
    m = re.search(r"nested=(\d+).*seconds=([0-9.]+)", p.stdout)
    if p.returncode != 0 or m is None:
        raise RuntimeError("exit %d: %s %s" % (p.returncode, p.stdout[-300:], p.stderr[-300:]))
    return float(m.group(2)), int(m.group(1))


def check(prog, so, outdir):
    """--check: each configuration once, judged (see the module's text)."""
    bad = 0
    for name, opts in CONFIGS:
        report = os.path.join(outdir, "fork-signal-%s.json" % name)
        if os.path.exists(report):
            os.unlink(report)
        full = None if opts is None else opts + ":report_path=" + report
        try:
            s, nested = run_one(prog, so, full, FORKS, timeout=120)
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
    secs = {name: [] for name, _ in CONFIGS}
    nested = {name: 0 for name, _ in CONFIGS}
    for r in range(a.rounds):
        print("forkstorm: round %d/%d" % (r + 1, a.rounds), file=sys.stderr, flush=True)
        for name, opts in CONFIGS:
            try:
                s, n = run_one(prog, a.cg, opts, a.forks)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                print("forkstorm: %s failed: %s" % (name, e), file=sys.stderr)
                return 2
            secs[name].append(s)
            nested[name] += n
    load = os.getloadavg()[0]
    g = statistics.median(secs["glibc"])
    lines = ["fork storm (%d forks from main, one from a signal handler each), median of %d "
             "interleaved rounds, wall s; load average %.1f" % (a.forks, a.rounds, load), "",
             "| run | median s | /glibc | min s | max s | nested forks (all rounds) |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, _ in CONFIGS:
        m = statistics.median(secs[name])
        lines.append("| %s | %.3f | %.2f | %.3f | %.3f | %d |" % (
            name, m, m / g, min(secs[name]), max(secs[name]), nested[name]))
    ratio = statistics.median(secs["debug"]) / g
    ok = ratio <= BAR
    lines += ["", "bar: debug mode (default options) <= %.1f x glibc: %.2f, %s" % (
        BAR, ratio, "ok" if ok else "over the bar")]
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
