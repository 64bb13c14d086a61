/*
 * callsite.c — the call instruction a return address comes back to, on
 * x86_64, from the code bytes before it (symbolize.h, cg_call_site).
 *
 * A return address r follows a call.  The calls compilers emit are
 *   e8 rel32                 call to r + rel32 (5 bytes), and
 *   [prefix] [REX] ff /2     call through a register or a memory operand
 *                            (2 to 9 bytes: ModRM, SIB, disp8/disp32),
 * so the call begins 2 to 9 bytes before r.  The e8 form is taken when
 * byte r-5 is e8 and its target lies in executable code of the same
 * module (a direct call never leaves its module: calls elsewhere go
 * through the PLT, itself in the module); else the longest ff /2 that
 * decodes to end exactly at r (a REX or prefix byte before "ff modrm" is
 * the call's own more often than the end of the previous instruction);
 * else nothing is known and the answer is r - 1, a byte of whatever
 * came before r, as ASan shows every frame.  Bytes are read only inside
 * the readable, executable mapping that holds r - 1, never before its
 * start, and copied with cg_os_copy_readable (a mapping unmapped by
 * another thread meanwhile gives a short copy, never a fault).
 *
 * What is not exact: bytes before r that happen to decode as a call
 * ending at r (an ff /2 whose SIB byte is e8 with a small disp32 reads
 * as an e8 call; a displacement byte of 0x41..0x43 or 0x3e before
 * "ff modrm" reads as a prefix of the call).  The answer is then a byte
 * or two off, still within the bytes just before the return address.
 * Opcode facts: Intel SDM volume 2, the one-byte opcode map and the
 * ModRM/SIB tables (chapter 2).
 */
#include "symbolize.h"

#include "maps.h"

#include <errno.h>
#include <string.h>

#if defined(__x86_64__)
#define CALL_MAX 9          /* prefix, REX, ff, ModRM, SIB, disp32 */

/* A legacy prefix byte that can stand before an ff /2: the segment
 * overrides (a memory operand's), notrack (3e, CET), operand size (66). */
static bool legacy_prefix(unsigned char b, bool memory)
{
    if (b == 0x3e)
        return true;
    return memory && (b == 0x26 || b == 0x2e || b == 0x36 || b == 0x64 || b == 0x65 ||
                      b == 0x66);
}

/* p[0..n) is exactly one "[prefix] [REX] ff /2"? */
static bool is_ff2(const unsigned char *p, size_t n)
{
    size_t i = 0;
    bool pre = n > 0 && p[0] != 0xff && (p[0] & 0xf0) != 0x40;  /* a legacy prefix first */
    if (pre)
        i++;
    unsigned rex = 0;
    if (i < n && (p[i] & 0xf0) == 0x40)
        rex = p[i++];
    if (i + 2 > n || p[i] != 0xff)
        return false;
    unsigned m = p[i + 1];
    if (((m >> 3) & 7) != 2)
        return false;
    unsigned mod = m >> 6, rm = m & 7;
    size_t len = i + 2;
    bool sib = false;
    if (mod != 3 && rm == 4) {
        if (len >= n)
            return false;
        unsigned s = p[len++];
        sib = true;
        if (mod == 0 && (s & 7) == 5)
            len += 4;               /* no base: disp32 */
    } else if (mod == 0 && rm == 5) {
        len += 4;                   /* rip-relative */
    }
    if (mod == 1)
        len += 1;
    else if (mod == 2)
        len += 4;
    /* compilers set REX only for what it changes: B (the register or
     * base), X (a SIB index); never W or R, which a call ignores */
    if (rex != 0 && (rex & 0x0c || rex == 0x40 || (rex & 0x02 && !sib)))
        return false;
    if (pre && !legacy_prefix(p[0], mod != 3))
        return false;
    return len == n;
}

/* A direct call's target t: in executable code of the module the call is
 * in (the same file: device and inode; the same name for one of no file,
 * [vdso]), or, for anonymous code (JIT), in any executable mapping. */
static bool call_target_ok(uintptr_t t, const cg_mapping_t *from)
{
    cg_mapping_t m;
    if (!cg_find_mapping(t, &m) || m.perms[2] != 'x')
        return false;
    if (from->path[0] == 0)
        return true;
    if (from->inode != 0)
        return m.dev == from->dev && m.inode == from->inode;
    return m.inode == 0 && strcmp(from->path, m.path) == 0;
}

static uintptr_t decode(uintptr_t ret)
{
    cg_mapping_t m;
    if (ret < 2 || !cg_find_mapping(ret - 1, &m) || m.perms[0] != 'r' || m.perms[2] != 'x')
        return ret - 1;
    uintptr_t lo = ret - m.lo < CALL_MAX ? m.lo : ret - CALL_MAX;
    size_t avail = (size_t)(ret - lo);
    unsigned char code[CALL_MAX];
    if (avail < 2 || cg_os_copy_readable(code, (const void *)lo, avail) != avail)
        return ret - 1;
    if (avail >= 5 && code[avail - 5] == 0xe8) {
        const unsigned char *r = code + avail - 4;
        int32_t rel = (int32_t)((uint32_t)r[0] | (uint32_t)r[1] << 8 | (uint32_t)r[2] << 16 |
                                (uint32_t)r[3] << 24);
        if (call_target_ok(ret + (uintptr_t)(intptr_t)rel, &m))
            return ret - 5;
    }
    for (size_t len = avail; len >= 2; len--)
        if (is_ff2(code + avail - len, len))
            return ret - len;
    return ret - 1;
}
#endif

/* Answers kept while the calling thread holds a maps snapshot (a report:
 * each frame is looked up several times): one word an entry, written at
 * once, so that a report from a signal handler in the middle of a write
 * reads an old entry or a new one, never half of each.  The word: the
 * return address << 16 | the snapshot's id (12 bits) << 4 | the call's
 * distance before it (1..9). */
#define MEMO_N 256
static uint64_t memo[MEMO_N];

uintptr_t cg_call_site(uintptr_t ret)
{
    if (ret == 0)
        return 0;
    unsigned id = cg_maps_snapshot_id();
    bool keep = id != 0 && ret < (1ull << 47);
    uint64_t *slot = &memo[(ret * 0x9e3779b97f4a7c15ull) >> 56];
    uint64_t tag = (uint64_t)ret << 16 | (uint64_t)(id & 0xfff) << 4;
    if (keep) {
        uint64_t w = __atomic_load_n(slot, __ATOMIC_RELAXED);
        if ((w & ~0xfull) == tag)
            return ret - (w & 0xf);
    }
    int saved = errno;
#if defined(__x86_64__)
    uintptr_t call = decode(ret);
#else
    uintptr_t call = ret - 1;       /* no decoder for this architecture */
#endif
    errno = saved;
    if (keep)
        __atomic_store_n(slot, tag | (ret - call), __ATOMIC_RELAXED);
    return call;
}
