"""test_fastpath.py - unit tests of callgrind.py and atomics.py.

Run: /usr/bin/python3 -m unittest discover -s tools/fastpath -p 'test_*.py'
Exit status 0 when every test passes.  The inputs are small hand-written
callgrind files and objdump lines whose right answers are worked out in the
comments, so each rule of the format has a case that breaks if it is
misread.
"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import atomics  # noqa: E402
import callgrind  # noqa: E402

# Two objects; lib.so's malloc at 0x1000 calls libc's helper.  Positions are
# "instr line".  Worked out by hand:
#   0x1000 x5, 0x1004 x5 (+4), 0x1004 again x1 later (*) -> 6,
#   call site 0x1008 (+4): the calls= target is +0x40 from 0x1004, i.e.
#   0x1044 in libc, and the "* 0 500" cost line after it is inclusive cost
#   at 0x1008 (not an execution); then "+2" is 0x100a (relative to 0x1008,
#   the call's cost line moved the position), executed 5 times.
#   fn=(2) reuses the compressed name "free"; the jump to an absolute
#   0x2000 with "-3" line.  Object (1) is reused by id after cob=(2).
#   summary = 5+5+1+5+1+2+6+1 = 26 self executions; the 500 is not one.
SAMPLE = """# callgrind format
version: 1
positions: instr line
events: Ir
summary: 26

ob=(1) /x/lib.so
fl=(1) a.c
fn=(1) malloc
0x1000 10 5
+4 +1 5
+4 * 1
cob=(2) /x/libc.so
cfi=(2) b.c
cfn=(3) helper
calls=5 -4 7
* 0 500
+2 12 5
-6 * 1

fn=(2) free
0x2000 -3 2
ob=(2)
fn=(3)
0x1044 7 6
ob=(1)
fn=(2)
* * 1
"""


def write(text):
    """Write `text` to a temporary file and return its path."""
    fd, path = tempfile.mkstemp(suffix=".callgrind")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return path


class CallgrindTest(unittest.TestCase):
    def setUp(self):
        self.path = write(SAMPLE)
        self.prof = callgrind.parse(self.path)

    def tearDown(self):
        os.unlink(self.path)

    def test_relative_positions_and_star(self):
        c = self.prof.self_cost
        self.assertEqual(c[("/x/lib.so", 0x1000)], 5)
        # "+4 * 1" is 0x1008; "-6" from 0x100a is 0x1004.
        self.assertEqual(c[("/x/lib.so", 0x1004)], 5 + 1)
        self.assertEqual(c[("/x/lib.so", 0x100a)], 5)

    def test_call_cost_is_not_an_execution(self):
        # 0x1008 ran once ("+4 * 1"); the 500 after calls= is inclusive.
        self.assertEqual(self.prof.self_cost[("/x/lib.so", 0x1008)], 1)
        self.assertEqual(self.prof.self_total, 26)
        self.assertEqual(self.prof.summary, 26)

    def test_call_target_relative_and_object(self):
        # target "-4" is relative to the last cost line (0x1008) -> 0x1004
        self.assertEqual(self.prof.calls, [("/x/libc.so", "helper", 0x1004, 5)])

    def test_compressed_names_reused(self):
        c = self.prof.self_cost
        self.assertEqual(c[("/x/libc.so", 0x1044)], 6)
        # "ob=(1)" switches back; "* * 1" repeats 0x1044 in lib.so.
        self.assertEqual(c[("/x/lib.so", 0x1044)], 1)
        self.assertEqual(c[("/x/lib.so", 0x2000)], 2)

    def test_plain_name_in_parentheses(self):
        path = write("positions: instr\nevents: Ir\nob=(1) /a\nfn=(below main)\n0x10 3\n")
        try:
            prof = callgrind.parse(path)
        finally:
            os.unlink(path)
        self.assertEqual(prof.self_cost[("/a", 0x10)], 3)

    def test_refuses_line_only_profiles(self):
        path = write("positions: line\nevents: Ir\nob=/a\nfn=f\n10 3\n")
        try:
            with self.assertRaises(callgrind.FormatError):
                callgrind.parse(path)
        finally:
            os.unlink(path)

    def test_refuses_jumps(self):
        path = write("positions: instr\nevents: Ir\nob=/a\nfn=f\n0x10 1\njump=1 0x20\n0x10\n")
        try:
            with self.assertRaises(callgrind.FormatError):
                callgrind.parse(path)
        finally:
            os.unlink(path)


def insn(line):
    """Parse one objdump -d -w line into an Insn (function name 'f')."""
    m = atomics.INSN_RE.match(line)
    raw = bytes(int(b, 16) for b in m.group(2).split())
    return atomics.Insn(int(m.group(1), 16), "f", raw, m.group(3))


class AtomicTest(unittest.TestCase):
    def test_lock_prefix(self):
        self.assertTrue(insn("    1170:\tf0 48 83 05 bf 2e 00 00 01 \tlock addq $0x1,0x2ebf(%rip)").is_atomic())
        self.assertTrue(insn("  20:\tf0 0f b1 0a          \tlock cmpxchg %ecx,(%rdx)").is_atomic())

    def test_lock_after_other_prefix_bytes(self):
        # 66 f0 ...: operand-size prefix first, then LOCK.
        self.assertTrue(insn("  30:\t66 f0 0f b1 0a       \tlock cmpxchg %cx,(%rdx)").is_atomic())

    def test_xchg_memory_is_atomic_register_is_not(self):
        self.assertTrue(insn("  40:\t87 07                \txchg   %eax,(%rdi)").is_atomic())
        self.assertTrue(insn("  42:\t48 87 05 00 00 00 00 \txchg   %rax,0x0(%rip)").is_atomic())
        self.assertFalse(insn("  50:\t66 90                \txchg   %ax,%ax").is_atomic())
        self.assertFalse(insn("  52:\t48 87 d0             \txchg   %rdx,%rax").is_atomic())

    def test_ordinary_instructions(self):
        self.assertFalse(insn("  60:\t48 83 05 bf 2e 00 00 01 \taddq   $0x1,0x2ebf(%rip)").is_atomic())
        self.assertFalse(insn("  68:\tf3 0f 1e fa          \tendbr64").is_atomic())
        # 0xf0 as an operand byte is no prefix.
        self.assertFalse(insn("  70:\t48 83 e0 f0          \tand    $0xfffffffffffffff0,%rax").is_atomic())

    def test_bias_is_checked_against_instruction_starts(self):
        starts = {0x1000, 0x1004, 0x1008}
        base = 0x7f0000000000
        executed = {base + 0x1000: 3, base + 0x1008: 1}
        syms = {"malloc": {0x1000}}
        bias, _how, misses = atomics.choose_bias(executed, [("malloc", base + 0x1000)],
                                                 syms, starts, None)
        self.assertEqual((bias, misses), (base, []))
        # Without any symbol match the driver's base is tried too.
        bias, _how, misses = atomics.choose_bias(executed, [], {}, starts, base)
        self.assertEqual((bias, misses), (base, []))
        # No bias makes 0x1002 an instruction start: reported, not hidden.
        _bias, _how, misses = atomics.choose_bias({0x1002: 1}, [], {}, starts, None)
        self.assertEqual(misses, [0x1002])


if __name__ == "__main__":
    unittest.main()
