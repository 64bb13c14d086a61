#!/usr/bin/env python3
"""programs.py -- whole programs under debug mode, timed against glibc.

usage: programs.py [--cg PATH] [--rounds N] [--only python,gcc,sqlite,git] [--out FILE]

Runs the real-program workloads of tests/programs/workloads.sh (the python3
JSON workload, a gcc build of a multi-file C program, sqlite3 with 100k
inserts and queries, git init/commit/log/repack/fsck) plainly under glibc
and under LD_PRELOAD chunkguard in debug mode with stack_depth=1 and
stack_depth=16 (quarantine_mb=64), in guard mode, and for scale in fast
mode.  Runs are interleaved round by round; each time is the median wall
time of the whole workload (every process it starts).  The outputs must
equal the plain run's, or the row fails.  A second table gives, per
configuration, the peak RSS of the workload's largest process (getrusage)
and the most mappings any of its processes had (/proc/PID/maps, sampled
every 20 ms): guard mode's price is in mappings.

Bars (issue 3): debug mode with stack_depth=1 at most 3.0 x glibc, with
stack_depth=16 at most 10 x glibc.  Exit status 0 when every run worked
(whatever the ratios), 1 when a run failed, 2 on bad usage.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PROGS = os.path.join(ROOT, "tests", "programs")
WORKLOADS = ["python", "gcc", "sqlite", "git"]
CONFIGS = [  # name, options (None: glibc, nothing preloaded), bar
    ("glibc", None, None),
    ("fast", "mode=fast", None),
    ("debug-1", "mode=debug:quarantine_mb=64:stack_depth=1", 3.0),
    ("debug-16", "mode=debug:quarantine_mb=64:stack_depth=16", 10.0),
    ("guard", "mode=guard", None),
]


def session_maps(sid):
    """Mappings of each process in session sid now: {pid: count}."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[3]) != sid:       # field 6 of stat: the session id
                continue
            with open("/proc/%s/maps" % d) as f:
                out[int(d)] = sum(1 for _ in f)
        except (OSError, IndexError, ValueError):
            continue
    return out


def run_once(workload, inputs, cg, options, tmp):
    """Run one workload; returns (seconds, stdout)."""
    scratch = tempfile.mkdtemp(dir=tmp)
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env.pop("CHUNKGUARD_OPTIONS", None)
    if options is not None:
        env["LD_PRELOAD"] = cg
        env["CHUNKGUARD_OPTIONS"] = options
    t0 = time.monotonic()
    with tempfile.TemporaryFile(mode="w+") as out, tempfile.TemporaryFile(mode="w+") as err:
        p = subprocess.Popen(["bash", os.path.join(PROGS, "workloads.sh"), workload, inputs,
                              scratch], env=env, stdout=out, stderr=err, text=True,
                             start_new_session=True)
        maps = 0
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid != 0:
                break
            maps = max([maps] + list(session_maps(p.pid).values()))
            if time.monotonic() - t0 > 1200:
                p.kill()
            time.sleep(0.02)
        t1 = time.monotonic()
        rc = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if rc != 0 or "chunkguard" in stderr:
        raise RuntimeError("%s (%s): status %d: %s" % (workload, options, rc,
                                                       stderr.strip()[-400:]))
    return t1 - t0, stdout, usage.ru_maxrss, maps


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cg", default=os.path.join(ROOT, "build", "libchunkguard.so"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench", "programs.md"))
    args = ap.parse_args(argv)
    workloads = [w for w in args.only.split(",") if w] or WORKLOADS
    if any(w not in WORKLOADS for w in workloads) or args.rounds < 1:
        print("programs: bad --only or --rounds", file=sys.stderr)
        return 2
    cg = os.path.abspath(args.cg)
    if not os.path.isfile(cg):
        print("programs: %s does not exist (make)" % cg, file=sys.stderr)
        return 2
    times = {(w, c[0]): [] for w in workloads for c in CONFIGS}
    rss = {(w, c[0]): 0 for w in workloads for c in CONFIGS}
    nmaps = {(w, c[0]): 0 for w in workloads for c in CONFIGS}
    failed = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="cg-progs-") as tmp:
        inputs = os.path.join(tmp, "in")
        subprocess.run([sys.executable, os.path.join(PROGS, "gen-inputs.py"), inputs], check=True)
        for rnd in range(args.rounds):
            print("programs: round %d/%d (%.0f s)" % (rnd + 1, args.rounds, time.monotonic() - started),
                  file=sys.stderr, flush=True)
            order = CONFIGS if rnd % 2 == 0 else list(reversed(CONFIGS))
            for w in workloads:
                want = None
                for name, options, _ in order:
                    try:
                        secs, out, kb, maps = run_once(w, inputs, cg, options, tmp)
                    except (RuntimeError, subprocess.TimeoutExpired) as e:
                        failed.append(str(e))
                        continue
                    if want is None:
                        want = out
                    elif out != want:
                        failed.append("%s under %s: output differs" % (w, name))
                        continue
                    times[(w, name)].append(secs)
                    rss[(w, name)] = max(rss[(w, name)], kb)
                    nmaps[(w, name)] = max(nmaps[(w, name)], maps)
    header = ["workload", "glibc s"]
    for name, _, bar in CONFIGS[1:]:
        header += ["%s s" % name, "%s/glibc" % name]
    header.append("bar")
    rows = []
    for w in workloads:
        med = {c[0]: statistics.median(times[(w, c[0])]) if times[(w, c[0])] else None
               for c in CONFIGS}
        cells = [w, "%.2f" % med["glibc"] if med["glibc"] else "-"]
        over = []
        for name, _, bar in CONFIGS[1:]:
            r = med[name] / med["glibc"] if med[name] and med["glibc"] else None
            cells += ["%.2f" % med[name] if med[name] else "-", "%.2f" % r if r else "-"]
            if bar is not None and (r is None or r > bar):
                over.append("%s>%.1f" % (name, bar))
        cells.append(" ".join(over) if over else "ok")
        rows.append(cells)
    intro = ("%d rounds, median wall seconds of the whole workload; chunkguard %s; "
             "load average %.1f; %.0f s" % (args.rounds, args.cg, os.getloadavg()[0],
                                          time.monotonic() - started))
    md = [intro, "", "| " + " | ".join(header) + " |",
          "|" + "|".join(["---"] + ["---:"] * (len(header) - 2) + [":---"]) + "|"]
    md += ["| " + " | ".join(r) + " |" for r in rows]
    header2 = ["workload"] + ["%s RSS kB" % c[0] for c in CONFIGS] + \
              ["%s maps" % c[0] for c in CONFIGS]
    md += ["", "Peak RSS of the largest process, most mappings of any process:", "",
           "| " + " | ".join(header2) + " |", "|" + "|".join(["---"] + ["---:"] * (len(header2) - 1)) + "|"]
    for w in workloads:
        md.append("| " + " | ".join([w] + ["%d" % rss[(w, c[0])] for c in CONFIGS] +
                                    ["%d" % nmaps[(w, c[0])] for c in CONFIGS]) + " |")
    text = "\n".join(md) + "\n"
    print(text)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("Command: `python3 bench/programs.py`  \n" + text)
    for f in failed:
        print("FAILED: " + f, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
