#!/usr/bin/env python3
"""mkseeds.py — write the checked-in seed corpora (fuzz/corpus/<harness>/)
and the hand-built regression inputs (fuzz/regress/<harness>/).

Deterministic: run it again and the files come out the same.  The byte
layout is fuzz/model.c's (op, slot, arguments) and fuzz/corrupt.c's inject
op (15, slot, kind, sel, a, b, bytes...).  The corrupt seeds inject every
kind at least once; `make fuzz-smoke` checks that from the replay summary.
"""
import os
import random
import struct
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'corpus')

MALLOC, CALLOC, REALLOC, FREE, TUNE, INJECT = 0, 1, 2, 7, 13, 15


def malloc(slot, n, seed=1):
    # size class 3 (large: 1024 + u32) or 0 (tcache: u16 % 1033)
    if n >= 1024:
        return bytes([MALLOC, slot, 3]) + struct.pack('<I', n - 1024) + bytes([0, seed])
    return bytes([MALLOC, slot, 0]) + struct.pack('<H', n) + bytes([0, seed])


def free(slot):
    return bytes([FREE, slot])


def inject(kind, sel=0, a=0, b=0, extra=b''):
    return bytes([INJECT, 0, kind, sel, a, b]) + extra


def write(harness, name, data):
    d = os.path.join(root, harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def ops_seeds(harness, rng):
    # one stream per opcode, biased towards it, and some mixed ones
    for op in range(15):
        data = bytearray()
        for _ in range(60):
            data += bytes([op if rng.random() < 0.5 else rng.randrange(15), rng.randrange(256)])
            data += bytes(rng.randrange(256) for _ in range(6))
        write(harness, 'op%02d' % op, bytes(data))
    for k in range(4):
        write(harness, 'mixed%d' % k, bytes(rng.randrange(256) for _ in range(1500)))
    # every size range, allocated then freed
    data = b''.join(malloc(i, n) for i, n in enumerate([0, 24, 100, 500, 1000, 4000, 70000,
                                                         200000, 900000]))
    data += b''.join(free(i) for i in range(9))
    write(harness, 'ranges', data)


def tune(slot, case, v=0, extra=b''):
    # fuzz/tune.c: (13, slot, case, v: u16, case's own bytes)
    return bytes([TUNE, slot, case]) + struct.pack('<H', v) + extra


def size16(n):
    # fz_draw_size's tcache range: class 0, u16 % 1033
    return bytes([0]) + struct.pack('<H', n)


def subrun_seeds():
    # FZ_OP_TUNE's sub-run (fuzz/subrun.c): case 13 with v's top bits 11,
    # then the options byte (mode + 3*symbolizer + 12*suppressions +
    # 48*report_path + 96*stats_path), the leaked blocks (2 + n % 3), the
    # threads, the flags (1: one masks every signal, 2: cg_leak_check, 4: a
    # double free) and a u16 per block; ahead of it a block allocated and
    # after it freed, so the model's own ops go on around it
    combos = [  # (mode, symbolizer, suppressions, json, stats, leaks, threads, flags)
        (0, 1, 0, 1, 0, 2, 3, 7), (0, 2, 2, 0, 1, 1, 2, 5), (0, 3, 1, 1, 0, 0, 1, 2),
        (0, 0, 3, 0, 1, 0, 0, 6), (1, 1, 2, 1, 1, 2, 3, 7), (1, 0, 1, 0, 0, 1, 2, 1),
        (1, 2, 3, 1, 0, 0, 1, 4), (2, 1, 2, 0, 1, 1, 2, 3), (2, 0, 0, 1, 0, 0, 0, 0),
        (0, 1, 1, 0, 1, 2, 3, 3),
    ]
    for k, (mode, sym, supp, js, st, nl, nt, fl) in enumerate(combos):
        o = mode + 3 * sym + 12 * supp + 48 * js + 96 * st
        script = bytes([o, nl, nt, fl]) + b''.join(struct.pack('<H', 77 * k + 13 * j)
                                                    for j in range(4))
        write('ops-debug', 'subrun-%d' % k,
              malloc(1, 300) + tune(0, 13, 0xc000 + k, script) + free(1))
    # the variants (the flags byte's bits 3-5): 1 a report callback that
    # calls exit() in the double free's report, 2 a SIGUSR1 handler that
    # calls exit() while the report waits for its symbolizer (a script that
    # sends the signal), 3 a SIGABRT handler that siglongjmps out of two
    # fatal reports, 4 a callback that siglongjmps out of one, 5 leaks from
    # 4400 call sites, past the leak report's 4096 groups, 6 report_path
    # and stats_path in a directory that does not exist; in debug and
    # guard mode, with and without suppressions and report_path
    variants = [  # (mode, symbolizer, suppressions, json, stats, leaks, threads, flags, variant)
        (0, 0, 0, 1, 1, 1, 1, 2, 1), (1, 2, 2, 0, 0, 0, 2, 1, 1),
        (0, 0, 2, 1, 0, 0, 0, 0, 2), (1, 0, 0, 0, 1, 1, 1, 2, 2),
        (0, 1, 0, 1, 0, 2, 1, 2, 3), (1, 0, 2, 0, 1, 0, 0, 0, 3),
        (0, 0, 2, 0, 1, 1, 2, 1, 4), (1, 1, 0, 1, 0, 0, 0, 2, 4),
        (0, 0, 0, 1, 0, 0, 0, 0, 5), (1, 0, 2, 0, 0, 1, 0, 0, 5),
        (0, 0, 0, 1, 1, 1, 0, 2, 6), (1, 3, 2, 1, 0, 0, 1, 0, 6),
    ]
    for k, (mode, sym, supp, js, st, nl, nt, fl, var) in enumerate(variants):
        o = mode + 3 * sym + 12 * supp + 48 * js + 96 * st
        script = bytes([o, nl, nt, fl | var << 3]) + b''.join(
            struct.pack('<H', 91 * k + 17 * j) for j in range(4))
        write('ops-debug', 'subrun-v%d-%d' % (var, k),
              malloc(1, 300) + tune(0, 13, 0xc000 + k, script) + free(1))


def tune_ops(threads):
    # every FZ_OP_TUNE case over a few live blocks of each range, op by op
    ops = [malloc(i, n) for i, n in enumerate([24, 500, 3000, 70000, 300000])]
    ops.append(free(1))
    ops += [tune(case % 5, case, 1000 + case) for case in range(11)]
    for slot, cap, k in [(0, 255, 3), (2, 255, 2999), (3, 255, 0), (4, 255, 17), (1, 255, 0),
                         (0, 9, 0)]:
        ops.append(tune(slot, 11, 0, bytes([cap]) + struct.pack('<H', k)))   # cg_describe
    ops += [tune(0, 12, 7 + v) for v in range(3)]                           # M_ARENA_*
    if threads:
        for fill in (0x11, 0x22):
            ops.append(tune(5, 13, 0, bytes([fill]) + b''.join(size16(n) for n in (40, 600, 24, 100))))
    else:
        ops += [tune(6, 13, 0, struct.pack('<H', n)) for n in (299, 4000)]    # cg_leak_check
    ops += [free(i) for i in range(7)]
    return ops


def mt_phases(ops):
    # ops_mt.c: each phase is one length byte per worker (3), then the
    # slices (< 64 bytes, whole ops); the same ops for all three workers
    out, piece = b'', b''
    for op in ops + [None]:
        if op is None or len(piece) + len(op) > 63:
            out += bytes([len(piece)] * 3) + piece * 3
            piece = b''
        if op is not None:
            piece += op
    return out


def heap_growth():
    # fast mode: mmap threshold up to 2 MiB (M_MMAP_THRESHOLD = v * 32),
    # then 80 blocks of ~1 MiB from the heap: the main arena outgrows its
    # 64 MiB heap into a second one, and freeing them shrinks it back
    data = tune(0, 3, 65535)
    for i in range(80):
        data += bytes([MALLOC, i, 4]) + struct.pack('<I', 880 * 1024) + bytes([0, 1])
    data += tune(0, 5, 0)                                # malloc_trim(0) while grown
    data += b''.join(free(i) for i in range(80))
    data += tune(0, 5, 0)
    return data


def bad_call_seeds():
    # ops-fast's inject op (fuzz/ops.c): (15, slot, kind, sel, off: u16), one
    # bad call in a child: free-interior, free-in-header, free-foreign,
    # double-free, realloc-interior, usable-interior; over blocks of the
    # tcache, small, large and mmap ranges
    base = b''.join(malloc(i, n) for i, n in enumerate([40, 100, 3000, 70000, 300000]))
    names = ['free-interior', 'free-in-header', 'free-foreign', 'double-free',
             'realloc-interior', 'usable-interior']
    for k, name in enumerate(names):
        for sel in range(5):
            if (k + sel) % 2 and k != 3:
                continue
            data = base + bytes([INJECT, 0, k, sel]) + struct.pack('<H', 17 + sel)
            write('ops-fast', 'bad-%s-%d' % (name, sel), data + b''.join(free(i) for i in range(5)))


def tune_seeds():
    write('ops-fast', 'tune', b''.join(tune_ops(False)))
    write('ops-fast', 'heap-growth', heap_growth())
    write('ops-debug', 'tune', b''.join(tune_ops(False)))
    subrun_seeds()
    write('ops-mt', 'tune', mt_phases(tune_ops(True)))


def corrupt_seeds():
    base = b''.join(malloc(i, n) for i, n in enumerate([40, 100, 3000, 200, 24])) + free(4)
    # kinds in fuzz/corrupt.c's order
    kinds = ['overflow', 'underflow', 'header', 'size', 'double-free', 'uaf-write',
             'next-ptr', 'interior-free', 'foreign-free', 'overflow-far', 'prev-inuse']
    for k, name in enumerate(kinds):
        extra = bytes(range(1, 97))             # bytes written by the bug
        for sel in (0, 1, 3):
            write('corrupt', '%s-%d' % (name, sel), base + inject(k, sel, 5 + sel, 7, extra)
                  + free(0) + free(1) + free(2) + free(3))
    # late kinds: slot 9's block is freed, then 1.25 MiB pushes it out of
    # the 1 MiB quarantine; the double-free / uaf-write aims at it (sel 20)
    late = malloc(9, 100) + free(9)
    late += b''.join(malloc(10 + i, 64000) + free(10 + i) for i in range(20))
    write('corrupt', 'late-double-free', late + inject(4, 20, 0, 0, bytes(8)))
    write('corrupt', 'late-uaf', late + inject(5, 20, 0, 9, bytes(range(1, 9))))
    write('corrupt', 'clean', base + free(0))
    # overflow-1mib, underflow-pages (kinds 13, 14): a byte 1 MiB past a
    # live block, or in the first unreadable page below it (a * 16 bytes
    # below that page's end), written only where nothing readable is
    for sel in (0, 2, 3):
        write('corrupt', 'overflow-1mib-%d' % sel, base + inject(13, sel, 0, 0, bytes([0x41]))
              + free(0) + free(1) + free(2) + free(3))
    for a in (0, 1, 255):
        write('corrupt', 'underflow-pages-%d' % a, base + inject(14, 0, a, 0, bytes([0x41]))
              + free(0) + free(1) + free(2) + free(3))
    # late-link (kind 15): the regression inputs' stream, with no walk after
    write('corrupt', 'late-link', bad_link_stream() + free(40) + free(8))


def bad_link_stream():
    # fuzz/regress/corrupt/*-follows-bad-link (docs/fuzzing.md, "Regression
    # inputs"): a late use-after-free byte lands in a bin link, then
    # malloc_trim or mallinfo2 walks that bin.  Block A (40000 bytes: a
    # chunk above debug mode's cache of released chunks, so it goes back
    # to the core when it leaves the quarantine; a live 100-byte block
    # after it keeps it from merging forward) is freed, and 17 frees of
    # 64000-byte blocks through one slot push it out of the 1 MiB
    # quarantine; a 39800-byte malloc is carved from A, whose ~200-byte
    # remainder goes to the unsorted bin; the late-link (kind 15, sel 17:
    # A, the oldest freed block) writes 0x80 over the second byte (a = 1)
    # of the fd of the free chunk the harness finds in A's memory (where
    # the remainder is comes from the library's layout, not from here).
    data = malloc(9, 40000) + malloc(8, 100) + free(9)
    data += b''.join(malloc(10, 64000) for _ in range(17)) + free(10)
    data += malloc(40, 39800)
    return data + inject(15, 17, 1, 0, bytes([0x80]) + bytes(7))


def regress_inputs():
    d = os.path.join(root, '..', 'regress', 'corrupt')
    os.makedirs(d, exist_ok=True)
    for name, case in (('trim-follows-bad-link', 5), ('mallinfo-follows-bad-link', 6)):
        with open(os.path.join(d, name), 'wb') as f:
            f.write(bad_link_stream() + tune(0, case, 0))


def options_seeds():
    seeds = ['mode=debug', 'mode=fast:redzone=64:quarantine_mb=0', 'redzone=0x100',
             'stack_depth=-1:verbosity=3', 'log_path=/tmp/cg.%p:report_path=x%p%p',
             'halt_on_error=0:abort_on_error=0:exitcode=23', 'fill_alloc=0xff:fill_free=-1',
             'help=1', 'detect_leaks=1::mode=debug=x:=1:novalue', 'quarantine_mb=65536:'
             'redzone=000000000000000000016', 'handle_segv=0:stats_path=' + 'a' * 300,
             'mode=guard:guard_align=1:guard_underflow=1:guard_sample=100:guard_slots=8:'
             'guard_big=0:guard_quarantine_mb=2',
             # ',' as a separator too; quoted values holding ':' and ','
             'mode=debug,detect_leaks=1,stack_depth=4:verbosity=1',
             'log_path=\'/tmp/a:b,c.%p\',report_path="x,y":exitcode=3',
             "log_path='unterminated,mode=debug",
             "stats_path='a'b,mode=guard,,redzone=32,'=1,novalue,"]
    for i, s in enumerate(seeds):
        write('options', 'opt%02d' % i, bytes([40 + 13 * i]) + s.encode())
    # glibc's variables after a newline (src/tunables.c): every tunable,
    # in range, out of range, hex, malformed, and aliases masked or not
    tunables = [
        'GLIBC_TUNABLES=glibc.malloc.mmap_threshold=0x20000:glibc.malloc.trim_threshold=4096:'
        'glibc.malloc.top_pad=0X1f:glibc.malloc.mmap_max=2147483648:glibc.malloc.arena_max=0:'
        'glibc.malloc.perturb=255:glibc.malloc.mxfast=161:glibc.malloc.tcache_count=65535:'
        'glibc.malloc.tcache_max=1033\nMALLOC_PERTURB_=7\nMALLOC_ARENA_MAX=4',
        'GLIBC_TUNABLES=glibc.malloc.tcache_max=0x408::glibc.rtld.nns=2:glibc.malloc.mxfast=:'
        'glibc.malloc.bogus=1:glibc.malloc.perturb=0x:glibc.malloc=3\nMALLOC_MMAP_MAX_=17\n'
        'MALLOC_TOP_PAD_=18446744073709551616\nMALLOC_TRIM_THRESHOLD_=0xffffffffffffffff\n'
        'MALLOC_MMAP_THRESHOLD_=12x\nNOT_MALLOC=1\nMALLOC_PERTURB_',
        'GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.tcache_count=9:'
        'glibc.malloc.mmap_max=-1\nMALLOC_ARENA_MAX=1\nMALLOC_PERTURB_=256',
    ]
    for i, t in enumerate(tunables):
        write('options', 'tun%02d' % i, bytes([64]) + b'verbosity=1\n' + t.encode())


def faults_seeds():
    # fuzz/faults.c: (15, slot, kind, sel, off: u16), one fault per input,
    # in its order: read-after-free, write-after-free, read-past-64,
    # write-past-64, write-past-1mib, wild-read; over blocks of every size range
    base = b''.join(malloc(i, n) for i, n in enumerate([40, 100, 3000, 200, 24, 70000, 0]))
    base += free(4)
    kinds = ['read-after-free', 'write-after-free', 'read-past-64', 'write-past-64',
             'write-past-1mib', 'wild-read']
    for k, name in enumerate(kinds):
        for sel in (0, 2, 5):
            write('faults', '%s-%d' % (name, sel), base + inject(k, sel, 7 + sel, 0)
                  + b''.join(free(i) for i in range(7)))
    write('faults', 'clean', base + free(0))


def access_forms():
    # the names of fuzz/access.c's fz_forms[], in their order
    src = open(os.path.join(root, '..', 'access.c')).read()
    table = src[src.index('const fz_form_t fz_forms[] = {'):]
    table = table[:table.index('};')]
    import re
    return re.findall(r'(?:F\(|\{ ")(\w+)', table)


def faults_form_seeds():
    # fuzz/faults.c with a kind byte >= 6: (15, slot, kind + 6, sel, off: u16,
    # form, context + 6 * skew).  Every form once, the kinds freed, past-64
    # and wild in turn (the 1 MiB write may land in live data, which counts
    # no form), the contexts in turn: direct, signal-handler,
    # handler-on-altstack, misaligned-stack, smashed-stack, second-thread
    base = b''.join(malloc(i, n) for i, n in enumerate([40, 100, 3000, 200, 24, 70000, 0]))
    base += free(4)
    kinds = [0, 3, 5, 1, 2]          # read/write after free, past-64, wild
    for f, name in enumerate(access_forms()):
        kind = kinds[f % len(kinds)]
        ctx = f % 6 + 6 * (f % 15)
        data = base + bytes([INJECT, 0, kind + 6, f % 3 * 2, 7 + f % 200, f % 3, f, ctx])
        data += b''.join(free(i) for i in range(7))
        write('faults', 'form-%03d-%s' % (f, name), data)
        if name in ('movsldup_load', 'vmovq_f3_load'):       # the decoder's bugs it found
            regress('faults', 'access-size-' + name.replace('_', '-'), data)


def handler_ops(nodefer):
    # fuzz/tune.c case 9 with v % 5 == 2 (bit 8: SA_NODEFER): the model's
    # ops from a SIGPIPE handler inside malloc_stats, then the blocks the
    # handler got used from outside
    ops = [malloc(i, n) for i, n in enumerate([24, 500, 3000, 70000, 300000, 100])]
    script = [
        malloc(10, 100),
        bytes([CALLOC, 11, 3, 0]) + struct.pack('<H', 40) + bytes([0, 5]),
        bytes([REALLOC, 0, 0]) + struct.pack('<H', 200),          # a heap block grows
        bytes([REALLOC, 10, 0]) + struct.pack('<H', 50),          # the handler's own
        bytes([4, 12, 13, 0]) + struct.pack('<H', 100) + bytes([0, 7]),   # memalign 8 KiB
        bytes([5, 14, 5, 0]) + struct.pack('<H', 64) + bytes([0, 9]),     # posix_memalign 32
        bytes([6, 15, 12, 0]) + struct.pack('<H', 10) + bytes([0, 3]),    # aligned_alloc 4 KiB
        bytes([12, 17, 0]) + struct.pack('<H', 100) + bytes([1, 4]),      # pvalloc(100)
        free(1),
        bytes([8, 2, 1]),                                          # free_sized
        bytes([9, 3]), bytes([9, 4]),                              # malloc_usable_size
    ]
    v = 257 if nodefer else 2
    ops.append(tune(0, 9, v, bytes([len(script) - 1]) + b''.join(script)))
    ops += [bytes([REALLOC, 12, 0]) + struct.pack('<H', 300), bytes([9, 14]), bytes([8, 11, 1]),
            bytes([8, 15, 2]), bytes([REALLOC, 17, 0]) + struct.pack('<H', 0)]
    ops += [free(i) for i in range(18)]
    return b''.join(ops)


def handler_script(script, after=b''):
    # tune case 9, v = 2: the script's ops from the handler
    ops = [malloc(i, n) for i, n in enumerate([24, 500, 3000])]
    ops.append(tune(0, 9, 2, bytes([len(script) - 1]) + b''.join(script)))
    return b''.join(ops) + after + b''.join(free(i) for i in range(8))


def handler_seeds():
    for h in ('ops-fast', 'ops-debug', 'ops-guard', 'faults'):
        write(h, 'from-handler', handler_ops(False))
    for h in ('ops-debug', 'ops-guard'):
        write(h, 'from-handler-in-report', handler_ops(True))
    # memalign's alignment from a handler: 0x5001 rounded up to 0x8000
    # (draw_align's byte 200..239 takes a u16), and aligned_alloc of one
    # above SIZE_MAX/2 + 1 (byte 241): EINVAL
    align = [bytes([4, 5, 210]) + struct.pack("<H", 0x5001) + bytes([0]) + struct.pack('<H', 64)
             + bytes([0, 7]),
             bytes([6, 6, 241, 0]) + struct.pack('<H', 10) + bytes([0, 3])]
    # two reallocs of heap blocks: two calls, however much each allocates
    # and frees
    grow = [bytes([REALLOC, 0, 0]) + struct.pack('<H', 100),
            bytes([REALLOC, 1, 0]) + struct.pack('<H', 900)]
    for h in ('ops-fast', 'ops-debug'):
        write(h, 'from-handler-align', handler_script(align))
        write(h, 'from-handler-realloc', handler_script(grow))
    # the regression inputs of the bugs these found (docs/fuzzing.md)
    regress('ops-fast', 'handler-pvalloc-whole-pages', handler_ops(False))
    regress('ops-debug', 'handler-call-inside-report', handler_ops(True))
    regress('ops-fast', 'handler-aligned-alloc-einval', handler_script(align))
    regress('ops-fast', 'handler-realloc-counted-once', handler_script(grow))


# fuzz/signals.c, from tune.c case 10 with v's top bits 10: (13, slot, 10,
# v, steps - 1, then (sel, hsel, extra) a step).  sel: signal sel % 6
# (SEGV, BUS, USR1, USR2, URG, WINCH), form sel // 6 % 7 (0 sigaction, 1
# signal, 2 bsd_signal, 3 sysv_signal, 4 __sysv_signal, 5 a call that must
# fail, 6 a query and raise); hsel % 4: SIG_DFL, SIG_IGN, a handler, a
# siginfo handler; extra: sigaction's flags (1 RESETHAND, 2 NODEFER, 4
# RESTART, 8 a second signal in the mask, 16 SIGKILL in it, 32 SA_SIGINFO
# with any handler), 64 raise after the step.
def sig_op(steps):
    assert 1 <= len(steps) <= 8
    return tune(0, 10, 0x8000) + bytes([len(steps) - 1]) + b''.join(bytes(t) for t in steps)


def sig_step(sig, form, hsel, extra=0):
    return (form * 6 + sig, hsel, extra)


def signal_seeds():
    base = malloc(0, 100) + malloc(1, 5000)
    seeds = {}
    # every form on every signal, each raised: handlers, ignored, default
    for sig in range(6):
        steps = [sig_step(sig, 0, 2, 64 | 8), sig_step(sig, 0, 3, 64 | 1 | 2),
                 sig_step(sig, 6, 0), sig_step(sig, 1, 2, 64), sig_step(sig, 2, 1, 64),
                 sig_step(sig, 3, 2, 64), sig_step(sig, 4, 2, 64 | 16),
                 sig_step(sig, 6, 0)]
        seeds['signals-%d' % sig] = sig_op(steps)
        # SIG_DFL and SIG_IGN with SA_SIGINFO, raised (the default in a child)
        seeds['signals-siginfo-%d' % sig] = sig_op(
            [sig_step(sig, 0, 1, 32 | 64), sig_step(sig, 0, 0, 32 | 64 | 4),
             sig_step(sig, 0, 3, 64 | 1 | 16), sig_step(sig, 6, 0)])
    # the calls that must fail
    seeds['signals-einval'] = sig_op([sig_step(k % 6, 5, 0, e) for k, e in
                                      enumerate([0, 1, 2, 3, 4, 8, 8 | 16 | 32, 8 | 16 | 1])])
    seeds['mallinfo'] = tune(0, 6, 0x8000) + malloc(2, 300000) + tune(0, 6, 0x8123)
    for harness in ('ops-fast', 'ops-debug', 'ops-guard'):
        for name, data in seeds.items():
            write(harness, name, base + data + free(0) + free(1))
    # the regression inputs of the bugs these found (docs/fuzzing.md)
    regress('ops-debug', 'signals-siginfo-sig-ign', sig_op([sig_step(0, 0, 1, 32 | 64)]))
    regress('ops-debug', 'signals-resethand-keeps-flags', sig_op([sig_step(1, 0, 2, 1 | 64)]))


def cxx_new(slot, n, arr=False, al_log=None, seed=3):
    # fuzz/model.c's FZ_OP_CXX: (0xf0, slot, sel, [log2 align], size, free sel, seed)
    sel = (1 if arr else 0) | (2 if al_log is not None else 0)
    b = bytes([0xf0, slot, sel]) + (bytes([al_log]) if al_log is not None else b'')
    return b + size16(n) + bytes([0, seed])


def debug_bad_call_seeds():
    # ops-debug's and ops-guard's inject op (fuzz/ops.c, dbg_bad_call; only
    # the op byte 0x0f itself): (15, slot, kind, sel, off: u16), one bad
    # call in a child over blocks of malloc, new, new[], aligned new and
    # aligned new[]; kinds 0..9 (report-lock-wait, 9, in ops-debug only)
    base = (malloc(0, 100) + malloc(1, 5000) + cxx_new(2, 40) + cxx_new(3, 200, arr=True) +
            cxx_new(4, 64, al_log=6) + cxx_new(5, 48, arr=True, al_log=7) + malloc(6, 70000))
    names = ['sized-free-size', 'sized-free-align', 'delete-size', 'delete-align',
             'usable-freed', 'realloc-freed', 'usable-foreign', 'usable-interior', 'cookie',
             'report-lock-wait']
    end = b''.join(free(i) for i in range(7))
    for harness in ('ops-debug', 'ops-guard'):
        for kind, name in enumerate(names):
            if harness == 'ops-guard' and name == 'report-lock-wait':
                continue
            for off in (0, 1, 2):
                data = base + bytes([INJECT, 0, kind, off % 2 * 3]) + struct.pack('<H', off) + end
                write(harness, 'bad-%s-%d' % (name, off), data)
    # ops-fast's sized releases (kind bytes 0xe0..0xe3): over malloc, new and
    # new[] blocks of the tcache, small and mmap ranges
    fbase = (malloc(0, 100) + malloc(1, 5000) + cxx_new(2, 40) + cxx_new(3, 2000, arr=True) +
             malloc(4, 300000))
    fnames = ['sized-free-size', 'sized-free-align', 'delete-size', 'delete-align']
    for k, name in enumerate(fnames):
        for sel in (0, 3, 4):
            write('ops-fast', 'bad-%s-%d' % (name, sel),
                  fbase + bytes([INJECT, 0, 0xe0 + k, sel]) + struct.pack('<H', sel * 7) +
                  b''.join(free(i) for i in range(5)))
    # ops-fast's lock-wait (a kind byte of 0xf0 and up): the 5000-byte block
    base = malloc(0, 100) + malloc(1, 5000) + malloc(2, 70000)
    for off in (0, 2):
        write('ops-fast', 'bad-lock-wait-%d' % off,
              base + bytes([INJECT, 0, 0xf0, 0]) + struct.pack('<H', off) + free(0) + free(1) +
              free(2))


def regress(harness, name, data):
    d = os.path.join(root, '..', 'regress', harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def main():
    rng = random.Random(5)
    ops_seeds('ops-fast', rng)
    ops_seeds('ops-debug', rng)
    ops_seeds('ops-mt', rng)
    corrupt_seeds()
    options_seeds()
    tune_seeds()
    regress_inputs()
    # added later: after the others, so their bytes stay as they were
    ops_seeds('ops-guard', rng)
    write('ops-guard', 'tune', b''.join(tune_ops(False)))
    faults_seeds()
    faults_form_seeds()
    handler_seeds()
    bad_call_seeds()
    signal_seeds()
    debug_bad_call_seeds()
    return 0


if __name__ == '__main__':
    sys.exit(main())
