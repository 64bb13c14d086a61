/*
 * guardpool.h — pages of their own for guarded blocks (guard mode): one
 * reserved region of address space, handed out in ranges of whole pages,
 * each range one block's data pages and its guard page.
 *
 * The region is reserved inaccessible (PROT_NONE, no memory, no commit
 * charge); a block's data pages are opened read-write when it is
 * allocated, and its whole range is sealed again when it is freed
 * (inaccessible, its memory given back: cg_os_seal).  Sealed ranges of
 * freed blocks are held in a FIFO, out of reuse, until they hold more than
 * guard_quarantine_mb of address space; the oldest then go to the free
 * ranges, by page count, for reuse.  So every block has an inaccessible
 * page on both sides (its own guard page, and the previous range's guard
 * page or a sealed range), and a freed block faults on any access for as
 * long as the budget holds — Electric Fence's layout, with GWP-ASan's
 * bounded reuse of freed slots, over any number of blocks.
 *
 * Limits: each live block splits the region's mapping in two (its open
 * data pages and the sealed rest), and the kernel caps a process's
 * mappings (vm.max_map_count, 65530 by default): at most a quarter of that
 * cap is used by live guarded blocks, leaving the rest to the program.
 * When that many are live, or the region is full, cg_gpool_take says no
 * and the caller makes a debug-mode block instead.
 *
 * Thread-safe: one lock (CG_LK_GUARD), never held across a system call;
 * the free-range descriptors live in their own mapping.
 */
#ifndef CG_GUARDPOOL_H
#define CG_GUARDPOOL_H

#include "shadow.h"

#define CG_GPOOL_BATCH 16

/* Reserve the region and its page map (shadow.h); again: nothing.  At
 * init, while single-threaded.  False when no region could be reserved (a tight
 * RLIMIT_AS): then cg_gpool_take always says no. */
bool cg_gpool_init(void) CG_HIDDEN;

/*
 * cg_gpool_take - a sealed range of pages pages (>= 2: data and guard),
 * page-aligned, counted as live; NULL when the region is full or the live
 * limit is reached.  The caller opens the data pages (cg_gpool_open) and
 * binds a record to the range (cg_shadow_new_pages).
 */
char *cg_gpool_take(uint32_t pages, bool mt) CG_HIDDEN;

/* Is the pool out of room for blocks of ordinary size: the live limit
 * reached, or its fresh address space nearly used?  (A take that fails
 * for one huge request says nothing about the others.) */
bool cg_gpool_at_limit(void) CG_HIDDEN;

/* Open len bytes at p (pages of a taken range) read-write; false when the
 * kernel refuses (its mapping limit): give the range back. */
bool cg_gpool_open(char *p, size_t len) CG_HIDDEN;

/* A taken range that got no block after all (open failed, no record):
 * back to the free ranges, no longer live. */
void cg_gpool_untake(char *lo, uint32_t pages, bool mt) CG_HIDDEN;

/*
 * cg_gpool_retire - seal the range of the freed guarded block r (head,
 * pages) and append r to the FIFO; then take out the oldest records while
 * the FIFO holds more than budget bytes, at most CG_GPOOL_BATCH, into
 * out[] (returns how many).  The caller deletes their records
 * (cg_shadow_delete_pages) and then gives their ranges back
 * (cg_gpool_give).  Thread-safe.
 */
size_t cg_gpool_retire(cg_shadow_t *r, size_t budget, bool mt, uint32_t out[CG_GPOOL_BATCH])
    CG_HIDDEN;

/* A range a record left (sealed, no record bound) back for reuse: was is
 * a copy of that record, taken before it was deleted (its head and pages
 * are the range), and is remembered among the last 256 given
 * back for cg_gpool_recent. */
void cg_gpool_give(const cg_shadow_t *was, bool mt) CG_HIDDEN;

/*
 * cg_gpool_recent - was p the user pointer of a block whose range went
 * back to the free ranges lately (one of the last 256)?  Then true, and
 * *out a copy of its record as it was (freed: its stacks).  The newest
 * such block when there are several.  Thread-safe (the pool's lock, held
 * for the copy only: a report is made after it returns).
 */
bool cg_gpool_recent(const void *p, bool mt, cg_shadow_t *out) CG_HIDDEN;

/*
 * Guard slots (the sampler, sample.h): a fixed pool of n ranges of two
 * pages (a data page and its guard page), GWP-ASan's layout.
 *   cg_gpool_slots_init  make n slots in the region; false when it cannot
 *   cg_gpool_slot_take   a sealed slot: one never used, else the one freed
 *                        longest ago; *old: the record still bound to it
 *                        (its freed block: the caller deletes it), or 0;
 *                        NULL when every slot is live
 *   cg_gpool_slot_untake a taken slot that got no block: free again
 *   cg_gpool_slot_retire seal the freed block r's slot and queue it for
 *                        reuse (ok) or keep it sealed for good (!ok: a bad
 *                        block, halt_on_error=0)
 * Thread-safe (the pool's lock).
 */
bool cg_gpool_slots_init(uint32_t n) CG_HIDDEN;
char *cg_gpool_slot_take(bool mt, uint32_t *old) CG_HIDDEN;
void cg_gpool_slot_untake(char *lo, bool mt) CG_HIDDEN;
void cg_gpool_slot_retire(cg_shadow_t *r, bool ok, bool mt) CG_HIDDEN;

/* Call fn on every record in the FIFO, oldest first, under the lock. */
void cg_gpool_each_retired(void (*fn)(cg_shadow_t *r)) CG_HIDDEN;

/* Statistics: live ranges, their limit, retired bytes of address space. */
void cg_gpool_usage(size_t *live, size_t *limit, size_t *retired_bytes) CG_HIDDEN;

/* Fork handlers. */
void cg_gpool_lock_all(const cg_call_t *call) CG_HIDDEN;
void cg_gpool_unlock_all(bool child) CG_HIDDEN;

#endif /* CG_GUARDPOOL_H */
