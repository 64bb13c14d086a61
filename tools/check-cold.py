#!/usr/bin/env python3
"""check-cold.py -- is the code that only debug mode and reports run kept out
of the library's hot .text (Makefile, COLD_OBJS)?

usage: check-cold.py --map LINK.map --src-dir DIR [--exempt 'a b'] [--also 'c d']

Reads the GNU ld link map of libchunkguard.so (ld -Map) and finds, for
every object that must be cold, the bytes of its code (input sections
.text and .text.*) that the link placed in any output section but
.cg_cold, the cold segment.  The objects that must be cold are one per C
file of --src-dir (src/debug: all of debug and guard mode) but the
--exempt ones, plus the --also ones (objects named by file, without .o).
Not counted: the code a cold object runs in every process, which its
CG_STARTUP functions (.text.cg_startup, base/platform.h) and its
constructors and destructors (.text.startup, .text.exit) hold on purpose,
and its part of the fork path (CG_FORK_PATH, .text.cg_fork), which the
link keeps together in .cg_fork so that a fork child touches one window
of the library's code.

Prints one line per object that has hot code (bytes and section), then
"RESULT cold-objs ok N" or "RESULT cold-objs FAIL <objects>".  Exit 0
when every such object is cold, 1 when one is not, 2 when the map cannot
be read or names none of the objects (so a zero is a real zero).
"""
import argparse
import os
import re
import sys

ALLOWED_HOT = (".text.cg_startup", ".text.startup", ".text.exit", ".text.cg_fork")
OUT_RE = re.compile(r"^(\.[^\s]+)")
IN_RE = re.compile(r"^ (\.[^\s]+)(?:\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+))?\s*$")
CONT_RE = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)\s*$")


def placements(path):
    """(output section, input section, size, object base name) of each
    input section the map lists with a size."""
    out, pending = None, None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = OUT_RE.match(line)
            if m:
                out, pending = m.group(1), None
                continue
            m = IN_RE.match(line)
            if m:
                if m.group(2) is None:          # a long name: the rest follows
                    pending = m.group(1)
                    continue
                pending = None
                yield out, m.group(1), int(m.group(3), 16), m.group(4)
                continue
            m = CONT_RE.match(line)
            if m and pending is not None:
                yield out, pending, int(m.group(2), 16), m.group(3)
            pending = None


def obj_name(path):
    base = os.path.basename(path)
    return base[:-2] if base.endswith(".o") else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--map", required=True)
    ap.add_argument("--src-dir", required=True)
    ap.add_argument("--exempt", default="")
    ap.add_argument("--also", default="")
    a = ap.parse_args()
    exempt = set(a.exempt.split())
    try:
        names = sorted(f[:-2] for f in os.listdir(a.src_dir) if f.endswith(".c"))
    except OSError as e:
        print("check-cold: %s" % e, file=sys.stderr)
        return 2
    want = (set(names) - exempt) | set(a.also.split())
    hot, seen = {}, set()
    try:
        for out, sec, size, obj in placements(a.map):
            name = obj_name(obj)
            if name not in want or not (sec == ".text" or sec.startswith(".text.")):
                continue
            seen.add(name)
            if out != ".cg_cold" and size > 0 and sec not in ALLOWED_HOT:
                hot.setdefault(name, []).append("%s %d bytes in %s" % (sec, size, out))
    except OSError as e:
        print("check-cold: %s" % e, file=sys.stderr)
        return 2
    if not seen:
        print("check-cold: the map places no code of %s" % " ".join(sorted(want)), file=sys.stderr)
        return 2
    for name in sorted(hot):
        print("hot: %s.o: %s" % (name, "; ".join(hot[name])))
    missing = want - seen
    if missing:
        print("check-cold: no code in the map for %s" % " ".join(sorted(missing)), file=sys.stderr)
    if hot:
        print("RESULT cold-objs FAIL %s" % " ".join(sorted(hot)))
        return 1
    print("RESULT cold-objs ok %d" % len(seen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
