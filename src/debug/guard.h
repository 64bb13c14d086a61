/*
 * guard.h — guarded blocks: a block on pages of its own (guardpool.h), so
 * that the bad access itself faults, at its instruction, and is reported
 * with its stack.  Guard mode (CHUNKGUARD_OPTIONS=mode=guard) is debug
 * mode with every block guarded; debug mode guards its big blocks, and any
 * mode a sample (sample.h decides which).
 *
 * A guarded block, with the guard page after it (the default):
 *
 *   | front slack (filled) | user block (req bytes) | < guard_align | guard page |
 *   ^ range start (page)   ^ user pointer                          ^ page
 *
 * The block ends at the guard page, up to guard_align - 1 bytes short of
 * it (guard_align=1: exactly at it); the slack after it and the 256 bytes
 * before it are filled with CG_DBG_REDZONE and checked at free and at exit
 * (the rest of the first page stays zero).  With
 * guard_underflow=1 the guard page comes first and the block starts right
 * after it.  Either way the range before (or after) ends in a guard page
 * or a sealed range, so an access on the other side faults too once it
 * passes the slack.  A freed block's range is sealed at once (a read or
 * write after free faults) and stays so within guard_quarantine_mb.
 *
 * Blocks guard mode cannot guard (the region full, or the live-block limit
 * from vm.max_map_count reached: guardpool.h) are debug-mode blocks, which
 * every report names as such; free, realloc and malloc_usable_size take
 * either kind.  Stacks, threads, leak check and describe are debug mode's:
 * a guarded block has a shadow record like any debug block.
 */
#ifndef CG_GUARD_H
#define CG_GUARD_H

#include "mode.h"

/*
 * Guarded blocks, for guard mode's table and for the sampler (sample.h),
 * which use them over other modes.  All take the call's context c.
 *   cg_guarded_alloc    n bytes aligned to align (<= 16: guard_align) on a
 *                       range of the region, kind CG_KIND_*; NULL when the
 *                       region or the live limit says no (the caller makes
 *                       another kind of block)
 *   cg_guarded_sample   the same in a guard slot (n up to a page less the
 *                       alignment, align up to a page); NULL when no slot
 *                       is free
 *   cg_guarded_free     p in the region (cg_shadow_in_pages): checks,
 *                       seals, reports a bad or second free
 *   cg_guarded_realloc  the same for realloc; the new block comes from
 *                       alloc(n, c); n == 0 frees
 *   cg_guarded_usable   malloc_usable_size (the requested size)
 *   cg_guarded_check_live  at exit, the slack of every live guarded block
 *                       (when one thread is left)
 */
void *cg_guarded_alloc(size_t n, size_t align, int kind, const cg_call_t *c) CG_HIDDEN;
void *cg_guarded_sample(size_t n, size_t align, int kind, const cg_call_t *c) CG_HIDDEN;
void  cg_guarded_free(void *p, size_t sized, size_t salign, const cg_call_t *c) CG_HIDDEN;
void *cg_guarded_realloc(void *p, size_t n, const cg_call_t *c,
                         void *(*alloc)(size_t n, const cg_call_t *c)) CG_HIDDEN;
size_t cg_guarded_usable(void *p, const cg_call_t *c) CG_HIDDEN;
void  cg_guarded_check_live(void) CG_HIDDEN;

/*
 * cg_guard_fault - a SIGSEGV/SIGBUS on address a in the guard region, at
 * the instruction pc, from the signal's ucontext; write (1), read (0) or
 * not known (-1).  Reports heap-use-after-free (a sealed freed block),
 * heap-buffer-overflow (a guard page beside a live block) or a wild
 * access (no block near), with the faulting instruction's stack, and ends
 * the process.  Returns only when a is not in the guard region.
 */
void cg_guard_fault(const void *a, uintptr_t pc, int write, void *ucontext) CG_HIDDEN;

/* The guarded block an address a in the guard region (cg_shadow_in_pages)
 * belongs with: the owner of a's range, or the block across a guard page
 * when that one is nearer, or the nearest within 1 MiB; NULL when none.
 * What cg_guard_fault blames and cg_describe names.  No lock. */
struct cg_shadow;
struct cg_shadow *cg_guard_nearest(const void *a) CG_HIDDEN;

#endif /* CG_GUARD_H */
