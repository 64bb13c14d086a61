/*
 * debug.h — the instrumented mode (CHUNKGUARD_OPTIONS=mode=debug).
 *
 * Chosen once at start-up.  In debug mode no thread gets a tcache, so the
 * inline fast paths (alloc.h) always fall through to the slow paths, and
 * each slow path's first test after initialisation sends the call here:
 * fast mode pays nothing on its fast paths and one predictable branch on
 * its slow ones.
 *
 * A debug block, inside a chunk the core hands out (no tcache, no
 * fastbins: a freed chunk is always visibly free to the core):
 *
 *   | chunk header | leading redzone | user block (req bytes) | trailing redzone ... |
 *                  ^ chunk memory    ^ user pointer
 *
 * The leading redzone is 16 bytes (or the alignment, for memalign), the
 * trailing one at least `redzone` bytes, both filled with CG_DBG_REDZONE,
 * but for the leading one's first 4 bytes: the in-band hint, the block's
 * record id (shadow.h), which free reads beside the header.
 * The block's shadow record (shadow.h) keeps its requested size, state,
 * kind, stacks, threads and a copy of the chunk header.  free checks the
 * header against the copy and both redzones, poisons the block and puts it
 * in the quarantine (quarantine.h); when it leaves, the poison is checked.
 */
#ifndef CG_DEBUG_H
#define CG_DEBUG_H

#include "checks.h"
#include "mode.h"
#include "options.h"
#include "pattern.h"
#include "platform.h"
#include "shadow.h"

#define CG_DBG_LEAD     16      /* leading redzone bytes (unaligned requests) */
#define CG_DBG_REDZONE  0xfa    /* redzone fill                                */
#define CG_DBG_POISON   0xfd    /* freed-block fill, unless fill_free is set   */

/* How much of a leading redzone of lead bytes is filled with
 * CG_DBG_REDZONE and checked, from the user block down: all of it after
 * the hint, up to 256 bytes (a 1 MiB alignment does not cost a 1 MiB
 * fill).  The hint itself is checked against the block's record. */
CG_INLINE size_t cg_dbg_lead_checked(size_t lead)
{
    lead -= 4;                  /* CG_SHADOW_HINT_SZ */
    return lead < 256 ? lead : 256;
}

/*
 * The array cookie: the last CG_DBG_COOKIE_SZ bytes before a block that a
 * scalar operator new made (kind CG_KIND_NEW or CG_KIND_NEW_ALIGNED; of
 * its leading redzone, or front slack when guarded) read 0, not
 * CG_DBG_REDZONE.  A compiler's delete[] of such an object reads the
 * element count there: 0 runs no destructor (the fill's 0xfafa... ran
 * them for ever), and its operator delete[](p - 8) that follows is
 * reported as alloc-dealloc-mismatch (debugblock.h,
 * cg_dbg_report_not_start).  Every other kind keeps the fill there: a
 * zero written just before a block (s[-1] = 0, the common underwrite)
 * would not show against a zero cookie, and delete[] of a block from the
 * malloc family is rarer than that write.
 * cg_dbg_lead_fill fills the len bytes before the user pointer u so;
 * cg_dbg_lead_bad returns the first of them that is not so filled, or
 * NULL; cg_dbg_lead_byte is what the byte at q < u holds.  kind: the
 * record's (shadow.h).  Thread-safe; async-signal-safe.
 */
#define CG_DBG_COOKIE_SZ 8
CG_INLINE bool cg_dbg_has_cookie(uint8_t kind)
{
    return kind == CG_KIND_NEW || kind == CG_KIND_NEW_ALIGNED;
}
CG_INLINE size_t cg_dbg_cookie_len(uint8_t kind, size_t len)
{
    if (!cg_dbg_has_cookie(kind))
        return 0;
    return len < CG_DBG_COOKIE_SZ ? len : CG_DBG_COOKIE_SZ;
}
CG_INLINE void cg_dbg_lead_fill(uint8_t kind, unsigned char *u, size_t len)
{
    size_t z = cg_dbg_cookie_len(kind, len);
    cg_pattern_fill_small(u - len, len - z, CG_DBG_REDZONE);
    memset(u - z, 0, z);
}
CG_INLINE const unsigned char *cg_dbg_lead_bad(uint8_t kind, const unsigned char *u, size_t len)
{
    size_t z = cg_dbg_cookie_len(kind, len);
    const unsigned char *bad = cg_pattern_find_not(u - len, len - z, CG_DBG_REDZONE);
    return bad != NULL || z == 0 ? bad : cg_pattern_find_not_any(u - z, z, 0);
}
CG_INLINE unsigned char cg_dbg_lead_byte(uint8_t kind, const unsigned char *u,
                                         const unsigned char *q)
{
    return cg_dbg_has_cookie(kind) && u - q <= CG_DBG_COOKIE_SZ ? 0 : CG_DBG_REDZONE;
}

/* The byte freed blocks are filled with: fill_free's, else CG_DBG_POISON. */
CG_INLINE unsigned char cg_dbg_poison_byte(void)
{
    return cg_opt.fill_free >= 0 ? (unsigned char)cg_opt.fill_free : CG_DBG_POISON;
}

/* How many bytes at the start of a freed block of req bytes are poisoned
 * (and checked): poison_bytes of them, or all (-1). */
CG_INLINE size_t cg_dbg_poison_len(size_t req)
{
    return cg_opt.poison_bytes < 0 || req < (size_t)cg_opt.poison_bytes
               ? req : (size_t)cg_opt.poison_bytes;
}

/* Debug mode's table (core/mode.h).  Its start loads and primes the
 * unwinder once the process is fully started: the first malloc may come
 * from inside the dynamic loader, where loading libunwind (dlopen) is not
 * safe, and blocks allocated before it record their call site only.  Its
 * at_exit checks the quarantined blocks and, when one thread is left,
 * the live ones, then runs the leak check (detect_leaks=1). */
extern const cg_mode_t cg_mode_debug CG_HIDDEN;

/* Called by init after the options are parsed: with mode=debug, debug
 * mode's set-up (fastbins off, the loader's code found for the unwinder)
 * before its table is chosen. */
void cg_debug_init(void) CG_HIDDEN;


struct cg_chunk;

/* The access that faulted, from the page-fault error code (fault.c):
 * the "write" argument of the fault reports below, of cg_guard_fault and
 * cg_describe_edge_fault.  FETCH: the instruction fetch itself faulted (a
 * jump or call to memory that is not executable), so the bytes at pc are
 * not an instruction that ran. */
enum { CG_ACCESS_UNKNOWN = -1, CG_ACCESS_READ = 0, CG_ACCESS_WRITE = 1, CG_ACCESS_FETCH = 2 };

/* A fault on address a in one of our heaps, or in the mapping of the live
 * big block big (NULL: none): report check id (a FAULT_* entry of
 * checks.def) with detail and the block the shadow says a is in, if any
 * (returns when it knows nothing); call: the fault handler's. */
void cg_dbg_report_fault(const cg_call_t *call, cg_check_t id, const void *a,
                         const struct cg_chunk *big, const char *detail) CG_HIDDEN;

/* A fault of the program's own code on address a, in none of our memory
 * (a NULL or wild pointer), at pc (write: a CG_ACCESS_* value; uc: the
 * signal's context): one segv report with the faulting stack and
 * what a is, then return, so that the caller lets the default action end
 * the process. */
void cg_dbg_report_wild(const void *a, uintptr_t pc, int write, void *uc, bool no_addr) CG_COLD CG_HIDDEN;

/* The same for a fault the handler found to be a stack overflow (fault.c:
 * at the stack pointer, below the stack): one stack-overflow report, with
 * detail (where a is: its distance from the stack pointer and the region
 * it is in), then return for the default action.  Async-signal-safe. */
void cg_dbg_report_stack_overflow(const void *a, uintptr_t pc, int write, void *uc,
                                  const char *detail) CG_COLD CG_HIDDEN;

#endif /* CG_DEBUG_H */
