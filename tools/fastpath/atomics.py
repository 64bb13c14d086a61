"""atomics.py - count executions of atomic instructions of one shared object.

Usage:
  python3 atomics.py --so LIB.so --callgrind CALLGRIND_OUT
                     [--base 0xADDR] --expect none|some [--label TEXT]

--so         the shared object to inspect (e.g. build/libchunkguard.so)
--callgrind  a `valgrind --tool=callgrind --dump-instr=yes` output of a run
             that had LIB.so loaded
--base       the object's load address in that run (the driver prints it,
             from dladdr); one of the candidates for mapping callgrind's
             addresses to the file's, see below
--expect     none: success only if no atomic instruction of LIB.so ran;
             some: success only if at least one did (the control run that
             proves the measurement can see them)
--label      a word put in front of the result line (e.g. ST, MT)

Atomic means: every instruction with a LOCK prefix (byte 0xf0 among its
prefixes), and `xchg` with a memory operand, which the CPU locks even
without the prefix.  They are found with `objdump -d`.

Callgrind may print addresses inside a shared object either as the file's
own (link-time) addresses or as run-time ones; the difference is the load
bias.  It is taken from the calls into LIB.so (a calls= line gives the
address where a named function was entered; nm gives that function's
address in the file), with 0 and --base as fallbacks, and then verified:
every address that callgrind says ran inside LIB.so must, after the bias,
be the start of an instruction in objdump's listing.  A wrong bias or a
misread position fails that check instead of giving a silent zero.

Exit status: 0 when the expectation holds, 1 when it does not, 2 when the
measurement itself is not trustworthy (parse error, object absent from the
profile, addresses that are not instruction starts).
"""

import argparse
import os
import re
import subprocess
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import callgrind  # noqa: E402

# Legacy prefixes an x86-64 instruction may start with (before any REX).
LEGACY_PREFIXES = {0xf0, 0xf2, 0xf3, 0x2e, 0x36, 0x3e, 0x26, 0x64, 0x65, 0x66, 0x67}
INSN_RE = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*(?:\t(.*))?$")
FUNC_RE = re.compile(r"^([0-9a-f]+) <(.+)>:$")


class Insn:
    """One instruction from objdump: address, function, bytes, text."""

    def __init__(self, addr, func, raw, text):
        self.addr = addr
        self.func = func
        self.raw = raw
        self.text = text

    def is_atomic(self):
        """True for LOCK-prefixed instructions and xchg with memory."""
        for b in self.raw:
            if b == 0xf0:
                return True
            if b not in LEGACY_PREFIXES:
                break
        words = self.text.split()
        # objdump spells some prefixes as words ("lock", "data16", "cs").
        while words and words[0] in ("lock", "data16", "addr32", "cs", "ds", "es",
                                     "ss", "fs", "gs", "rex", "rex.W", "notrack"):
            if words[0] == "lock":
                return True
            words.pop(0)
        if words and words[0].startswith("xchg"):
            return "(" in " ".join(words[1:])  # AT&T memory operand
        return False


def disassemble(so):
    """Return the list of Insn of every executable section of `so`."""
    out = subprocess.run(["objdump", "-d", "-w", so], check=True,
                         capture_output=True, text=True).stdout
    insns = []
    func = "?"
    for line in out.splitlines():
        m = FUNC_RE.match(line)
        if m:
            func = m.group(2)
            continue
        m = INSN_RE.match(line)
        if not m or m.group(3) is None:
            continue  # headers, and continuation lines of long encodings
        raw = bytes(int(b, 16) for b in m.group(2).split())
        insns.append(Insn(int(m.group(1), 16), func, raw, m.group(3).strip()))
    return insns


def symbols(so):
    """Map function name -> set of file addresses, from nm (static + dynamic)."""
    table = {}
    for args in (["nm", "--defined-only", so], ["nm", "-D", "--defined-only", so]):
        res = subprocess.run(args, capture_output=True, text=True)
        for line in res.stdout.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TtWwi":
                name = parts[2].split("@")[0]
                table.setdefault(name, set()).add(int(parts[0], 16))
    return table


def same_file(a, b):
    """True when paths a and b name the same file (callgrind prints realpaths)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def choose_bias(executed, calls, syms, starts, base):
    """Pick the load bias that puts every executed address on an instruction.

    executed: {runtime address: count}; calls: [(function, address)];
    syms: nm table; starts: set of instruction addresses; base: --base or
    None.  Returns (bias, how, misses) with misses the executed addresses
    that still are no instruction start (empty when trustworthy).
    """
    votes = Counter()
    for fn, target in calls:
        for value in syms.get(fn.split("'")[0], ()):
            votes[target - value] += 1
    candidates = [b for b, _ in votes.most_common(3)]
    how = {b: "from %d call entries matched to symbols" % votes[b] for b in candidates}
    for extra, why in ((0, "callgrind prints file addresses"), (base, "the driver's load address")):
        if extra is not None and extra not in how:
            candidates.append(extra)
            how[extra] = why
    best = None
    for bias in candidates:
        misses = [a for a in executed if a - bias not in starts]
        if best is None or len(misses) < len(best[2]):
            best = (bias, how[bias], misses)
        if not misses:
            break
    return best


def main(argv):
    """CLI entry; see the module docstring for arguments and exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--so", required=True)
    ap.add_argument("--callgrind", required=True)
    ap.add_argument("--base", type=lambda s: int(s, 0))
    ap.add_argument("--expect", choices=("none", "some"), required=True)
    ap.add_argument("--label", default="")
    args = ap.parse_args(argv)
    tag = (args.label + ": ") if args.label else ""

    insns = disassemble(args.so)
    starts = {i.addr for i in insns}
    atomics = [i for i in insns if i.is_atomic()]
    try:
        prof = callgrind.parse(args.callgrind)
    except (OSError, callgrind.FormatError) as e:
        print("%serror: %s" % (tag, e))
        return 2
    if prof.summary is not None and prof.summary != prof.self_total:
        print("%serror: parsed %d %s but the file's summary says %d"
              % (tag, prof.self_total, prof.event, prof.summary))
        return 2

    objects = {ob for ob, _ in prof.self_cost} | {c[0] for c in prof.calls}
    ours = {ob for ob in objects if ob and ob != "???" and same_file(ob, args.so)}
    if not ours:
        print("%serror: %s never ran in this profile (was it preloaded?)" % (tag, args.so))
        return 2
    executed = Counter()
    for (ob, addr), n in prof.self_cost.items():
        if ob in ours and n:
            executed[addr] += n
    calls = [(fn, target) for ob, fn, target, _ in prof.calls if ob in ours and fn]
    bias, how, misses = choose_bias(executed, calls, symbols(args.so), starts, args.base)
    total_ir = sum(executed.values())
    print("%s%s: %d instructions, %d atomic; %d distinct addresses ran, %d %s in it"
          % (tag, os.path.basename(args.so), len(insns), len(atomics),
             len(executed), total_ir, prof.event))
    print("%sload bias 0x%x (%s)" % (tag, bias, how))
    if misses:
        print("%serror: %d executed addresses are not instruction starts with any bias "
              "(e.g. 0x%x): the profile cannot be trusted" % (tag, len(misses), misses[0]))
        return 2

    hit = 0
    for i in atomics:
        n = executed.get(i.addr + bias, 0)
        hit += n
        print("%s  %10d x  0x%06x  %-28s %s" % (tag, n, i.addr, i.func[:28], i.text))
    ran = sum(1 for i in atomics if executed.get(i.addr + bias, 0))
    ok = (hit == 0) if args.expect == "none" else (hit > 0)
    print("%sresult: %d of %d atomic instructions executed, %d executions in total "
          "(expected %s): %s" % (tag, ran, len(atomics), hit, args.expect, "ok" if ok else "NOT OK"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
