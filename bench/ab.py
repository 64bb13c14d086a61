#!/usr/bin/env python3
"""ab.py -- interleaved A/B runs of one bench program under several chunkguard
libraries, for comparing builds of one mode on a busy machine.

usage: ab.py NAME=LIB[,NAME=LIB...] VARIANT[,VARIANT...] ITERS ROUNDS [PROGRAM]

Runs PROGRAM (default build/bench/bench-churn) VARIANT ITERS under
LD_PRELOAD of every LIB, ROUNDS times, the library order reversed every
other round so that drift in the machine's load falls on all alike, with
CHUNKGUARD_OPTIONS from $OPTS (default mode=debug:quarantine_mb=64:
stack_depth=1).  Prints a Markdown table of the median wall and CPU ns per
call (the program's BENCH line, bench.h) per variant and library, and the
load average at the end.  Exit status 1 when a run printed no BENCH line.
"""
import os
import re
import statistics
import subprocess
import sys


def main(argv):
    if len(argv) not in (4, 5):
        sys.exit(__doc__)
    libs = [l.split("=", 1) for l in argv[0].split(",")]
    variants = argv[1].split(",")
    iters, rounds = argv[2], int(argv[3])
    prog = argv[4] if len(argv) == 5 else "build/bench/bench-churn"
    opts = os.environ.get("OPTS", "mode=debug:quarantine_mb=64:stack_depth=1")
    res = {}
    for r in range(rounds):
        order = libs if r % 2 == 0 else libs[::-1]
        for v in variants:
            for name, path in order:
                env = dict(os.environ, CHUNKGUARD_OPTIONS=opts, LD_PRELOAD=path)
                out = subprocess.run([prog, v, iters], env=env, capture_output=True,
                                     text=True).stdout
                m = re.search(r"ns_per_op=([\d.]+) cpu_ns=\d+ cpu_ns_per_op=([\d.]+)", out)
                if m is None:
                    print("no result: %s %s under %s" % (prog, v, path), file=sys.stderr)
                    return 1
                res.setdefault((v, name), []).append((float(m.group(1)), float(m.group(2))))
    print("load average at the end: %.1f %.1f %.1f" % os.getloadavg())
    print("| variant | library | wall ns/call (median) | CPU ns/call (median) | runs |")
    print("|---|---|---|---|---|")
    for v in variants:
        for name, _ in libs:
            xs = res[(v, name)]
            print("| %s | %s | %.0f | %.0f | %d |" % (v, name, statistics.median(x[0] for x in xs),
                                                   statistics.median(x[1] for x in xs), len(xs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
