#!/usr/bin/env python3
"""check-layers.py — src/ keeps one direction of dependency between its
folders.

src/LAYERS lists the folders top to bottom (entry, debug, core, report,
base).  A file may include headers of its own folder and of the folders
below it, and an object may use symbols defined by objects of its own
folder and below; anything else runs upward (or sideways) and is listed:

    upward include: src/core/tcache.c:7 includes src/entry/reentry.h (core -> entry)
    upward call:    src/core/tcache.c uses cg_verify_tick_slow of src/debug/heapcheck.c (core -> debug)

Where a lower layer must reach a higher one it goes through a hook that
the higher layer sets at init (docs/design.md, "Hooks"); a call through
such a pointer is no symbol reference, so it is not listed.

Usage: check-layers.py [--src DIR] [--objs DIR]
  --src   the source tree (default: src/ beside this script's folder)
  --objs  a folder of the objects built from it (Makefile: build/obj);
          without it only the includes are checked
Exit status 0 when nothing runs upward, 1 when something does, 2 on bad
usage.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layers as L  # noqa: E402


def include_violations(src, order):
    rank = {name: i for i, name in enumerate(order)}
    inc = os.path.join(os.path.dirname(os.path.abspath(src)), "include")
    bad = []
    for layer, path in L.source_files(src, order):
        for line, name in L.includes(path):
            target = L.resolve(name, path, src, order, [inc])
            if target is None:
                continue
            tl = L.layer_of(target, src, order)
            if tl is not None and rank[tl] < rank[layer]:
                bad.append("upward include: %s:%d includes %s (%s -> %s)"
                           % (path, line, target, layer, tl))
    return bad


def call_violations(src, objdir, order):
    rank = {name: i for i, name in enumerate(order)}
    objs = L.objects_by_layer(objdir, src, order)
    srcname = {}
    for layer, path in L.source_files(src, order):
        if path.endswith(".c"):
            srcname[os.path.splitext(os.path.basename(path))[0]] = path
    definer, uses = {}, {}
    for obj in objs:
        d, u = L.object_symbols(obj)
        uses[obj] = u
        for s in d:
            definer[s] = obj
    bad = []
    for obj, layer in objs.items():
        stem = os.path.splitext(os.path.basename(obj))[0]
        by_target = {}
        for s in sorted(uses[obj]):
            t = definer.get(s)
            if t is None or t == obj:
                continue
            if rank[objs[t]] < rank[layer]:
                by_target.setdefault(t, []).append(s)
        for t, syms in sorted(by_target.items()):
            tstem = os.path.splitext(os.path.basename(t))[0]
            bad.append("upward call: %s uses %s of %s (%s -> %s)"
                       % (srcname[stem], " ".join(syms), srcname[tstem], layer, objs[t]))
    return bad


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=os.path.join(here, "..", "src"))
    ap.add_argument("--objs")
    a = ap.parse_args()
    src = os.path.normpath(a.src)
    order = L.read_layers(src)
    bad = include_violations(src, order)
    if a.objs:
        bad += call_violations(src, a.objs, order)
    for b in bad:
        print(b)
    print("check-layers: %s: %d upward or sideways dependencies (order: %s)"
          % (src, len(bad), " > ".join(order)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
