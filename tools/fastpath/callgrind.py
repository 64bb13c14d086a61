"""callgrind.py - read a callgrind.out file into per-instruction counts.

Only the parts of the format that `valgrind --tool=callgrind
--dump-instr=yes` writes are handled (the format is described in
valgrind's docs, "Callgrind Format Specification"):

* name compression: `ob=(3) /path` defines id 3, a later `ob=(3)` reuses
  it.  Objects (ob, cob), files (fl, fi, fe, cfi, cfl) and functions
  (fn, cfn) each have one table shared by their spec lines.
* position compression: a subposition is absolute (`0x1a2b` or decimal),
  relative to the same subposition of the previous cost line (`+N`, `-N`),
  or the same again (`*`).
* `calls=<count> <target position>`: the target is compressed relative to
  the previous cost line too, but does not become the new "previous"; the
  next cost line is the call's inclusive cost at the call site. That line
  moves the previous position but is no execution of the instruction at it,
  so it is kept apart from the self counts.
* `cob=`/`cfi=`/`cfn=` name the target of the next call only.

Everything else (jump lines from --collect-jumps) is refused rather than
misread.  Run `python3 callgrind.py FILE` to print the per-object totals.
"""

import sys
from collections import defaultdict

SPEC_TABLE = {
    "ob": "ob", "cob": "ob",
    "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl", "cfl": "fl",
    "fn": "fn", "cfn": "fn",
}


class FormatError(Exception):
    """A line this reader does not understand; carries the line number."""


class Profile:
    """The result of parse().

    self_cost[(object, address)] -- executions (first event, normally Ir)
        of the instruction at `address`, summed over every context;
    calls -- list of (object, function, target address, count) for every
        calls= line: where the called function was entered;
    summary -- the `summary:`/`totals:` value of the first event, or None;
    self_total -- sum of self_cost (must equal summary for a sane parse).
    """

    def __init__(self):
        self.self_cost = defaultdict(int)
        self.calls = []
        self.summary = None
        self.self_total = 0
        self.event = None


def _name(table, value, lineno):
    """Resolve `(id) name`, `(id)` or a plain name against a table."""
    value = value.strip()
    # "(below main)" is a plain name: only "(digits)" is an id.
    close = value.find(")")
    if value.startswith("(") and close > 1 and value[1:close].isdigit():
        key = value[1:close]
        rest = value[close + 1:].strip()
        if rest:
            table[key] = rest
            return rest
        if key not in table:
            raise FormatError("line %d: name id (%s) used before defined" % (lineno, key))
        return table[key]
    return value


def _subpos(token, last, lineno):
    """Decode one subposition against the previous value `last`."""
    if token == "*":
        return last
    if token[0] in "+-":
        return last + int(token, 10)
    if token.startswith(("0x", "0X")):
        return int(token, 16)
    if token.isdigit():
        return int(token, 10)
    raise FormatError("line %d: bad position %r" % (lineno, token))


def parse(path):
    """Parse one callgrind output file; return a Profile.

    Raises FormatError on anything unexpected, including output written
    without --dump-instr=yes (no `instr` position).
    """
    prof = Profile()
    tables = {"ob": {}, "fl": {}, "fn": {}}
    positions = ["line"]
    instr_at = None
    ob = fn = None
    call_ob = call_fn = None
    pending_call = None  # (count, target address) until its cost line
    last = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            c = line[0]
            if c.isdigit() or c in "+-*":
                fields = line.split()
                if instr_at is None:
                    raise FormatError("no `instr` position: run callgrind with --dump-instr=yes")
                npos = len(positions)
                if len(fields) < npos:
                    raise FormatError("line %d: short cost line" % lineno)
                cur = [_subpos(fields[i], last[i], lineno) if last is not None
                       else _subpos(fields[i], 0, lineno) for i in range(npos)]
                costs = fields[npos:]
                first = int(costs[0]) if costs else 0
                if pending_call is not None:
                    count, target = pending_call
                    prof.calls.append((call_ob or ob, call_fn, target, count))
                    pending_call = None
                    call_ob = call_fn = None
                else:
                    prof.self_cost[(ob, cur[instr_at])] += first
                    prof.self_total += first
                last = cur
                continue
            key, sep, value = line.partition("=")
            if sep and key in SPEC_TABLE:
                name = _name(tables[SPEC_TABLE[key]], value, lineno)
                if key == "ob":
                    ob = name
                elif key == "fn":
                    fn = name
                elif key == "cob":
                    call_ob = name
                elif key == "cfn":
                    call_fn = name
                continue
            if sep and key == "calls":
                parts = value.split()
                if len(parts) < 1 + len(positions):
                    raise FormatError("line %d: bad calls line" % lineno)
                base = last[instr_at] if last is not None else 0
                target = _subpos(parts[1 + instr_at], base, lineno)
                pending_call = (int(parts[0]), target)
                continue
            if sep and key in ("jump", "jcnd"):
                raise FormatError("line %d: jump lines (--collect-jumps) are not supported" % lineno)
            hkey, hsep, hval = line.partition(":")
            if hsep:
                hkey = hkey.strip()
                hval = hval.strip()
                if hkey == "positions":
                    positions = hval.split()
                    instr_at = positions.index("instr") if "instr" in positions else None
                    last = None
                elif hkey == "events":
                    prof.event = hval.split()[0]
                elif hkey in ("summary", "totals"):
                    total = int(hval.split()[0])
                    if hkey == "summary" or prof.summary is None:
                        prof.summary = total
                continue
            raise FormatError("line %d: unknown line %r" % (lineno, line[:60]))
    if pending_call is not None:
        raise FormatError("calls= line without its cost line at end of file")
    return prof


def main(argv):
    """CLI: print per-object self totals of each file; exit 0, 2 on error."""
    if len(argv) < 2:
        print("usage: callgrind.py CALLGRIND_OUT...", file=sys.stderr)
        return 2
    for path in argv[1:]:
        try:
            prof = parse(path)
        except (OSError, FormatError) as e:
            print("callgrind.py: %s: %s" % (path, e), file=sys.stderr)
            return 2
        per_ob = defaultdict(int)
        for (ob, _addr), n in prof.self_cost.items():
            per_ob[ob] += n
        print("%s: %s summary=%s parsed=%d" % (path, prof.event, prof.summary, prof.self_total))
        for ob, n in sorted(per_ob.items(), key=lambda kv: -kv[1]):
            print("  %12d  %s" % (n, ob))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
