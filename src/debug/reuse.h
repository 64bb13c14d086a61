/*
 * reuse.h — debug mode's per-thread caches of released chunks: a heap
 * chunk that has left the quarantine, its header, redzones and poison
 * checked, waits here with its shadow record still bound, and the next
 * allocation of its size class on the thread takes it back without the
 * core (no coalescing, no bin search, no splitting) and without a new
 * record or shadow-map store.
 *
 * Only blocks that left the quarantine come here, so a use after free is
 * found exactly as before: the block was poisoned for the whole
 * quarantine and checked on its way out.  While cached its record stays
 * marked freed (CG_SH_RELEASED) with its stacks, so a free of a cached
 * block is still a double free with both stacks (where a chunk back in
 * the core could only be reported by the core's checks, or not at all
 * once reused).
 *
 * Size classes of chunk sizes: one per 16 bytes below 1 KiB, then eight
 * per power of two below CG_REUSE_MAX_CHUNK.  Above 1 KiB debug mode asks
 * the core for its class's bound (cg_reuse_round: at most an eighth more
 * than the block needs, the surplus being trailing redzone), so the
 * chunks of a class serve each other's requests; a chunk goes in the
 * class of the largest bound at or below its size.  The design is ASan's
 * allocator's and scudo's (per-thread size-class caches, no merging),
 * measured first as the reuse-pool experiment (docs/performance.md).
 * A thread's cache holds up to an eighth of the quarantine budget
 * (8 MiB with the default 64 MiB; nothing with quarantine_mb=0): a
 * program that cycles through a few sizes (calloc-fixed: six, in runs of
 * 4096) finds its size's chunks still cached when its run comes round
 * again, where a cache of two batches (2 MiB) had given most of them
 * back to the core (docs/performance.md, "dbg20").
 *
 * Only its thread touches a cache (in its block, dthread.h); mallinfo
 * reads the byte count without a lock.
 */
#ifndef CG_REUSE_H
#define CG_REUSE_H

#include "shadow.h"

/* Chunks this big or more go to the core.  Below the smallest quarantine
 * batch limit (64 KiB, at quarantine_mb=1) with room to spare: a request
 * rounded up to its class must not cross it, or blocks that went to their
 * thread's batch would go to the FIFO at once, and the batch they pass
 * would keep its blocks longer (fuzz-replay-corrupt's late kinds, which
 * need a block out of the quarantine, were then never injected). */
#define CG_REUSE_MAX_CHUNK ((size_t)32 << 10)
#define CG_REUSE_CLASSES 100                    /* 60 exact (64 .. 1008), 5 x 8 above */

typedef struct cg_reuse {
    uint32_t head[CG_REUSE_CLASSES];    /* record ids, newest first (through next) */
    uint16_t n[CG_REUSE_CLASSES];       /* blocks per class                       */
    size_t bytes;                       /* chunk bytes held                       */
} cg_reuse_t;

/* Keep heap block r (checked, out of the quarantine) in the calling
 * thread's cache, within limit bytes per thread, its state RELEASED
 * (shadow.h): true when kept, false when the caller must give it back to
 * the core (a big block, a full class or cache, no thread block). */
bool cg_reuse_put(cg_shadow_t *r, size_t limit) CG_HIDDEN;

/* The chunk size to ask the core for, for a block of chunk size nb (a
 * multiple of 16, 64 or more): nb rounded up to its class's bound above
 * 1 KiB, so that chunks of one class serve each other's requests. */
size_t cg_reuse_round(size_t nb) CG_HIDDEN;

/* A cached block whose chunk has at least nb bytes (a chunk size: a
 * multiple of 16, 64 or more), taken out of the calling thread's cache,
 * its record still bound to its chunk and RELEASED; NULL when the class
 * is empty.  The caller rewrites the record. */
cg_shadow_t *cg_reuse_get(size_t nb) CG_HIDDEN;

/* Empty the calling thread's cache (its exit): the blocks as a chain of
 * record ids linked through next (0 at its end), for the caller to give
 * back to the core. */
uint32_t cg_reuse_drain(void) CG_HIDDEN;

/* Call fn(r, arg) on every block in the calling thread's cache, or with
 * all, in every thread's (only when no other thread runs: the caches
 * take no lock). */
void cg_reuse_each(void (*fn)(cg_shadow_t *r, void *arg), void *arg, bool all) CG_HIDDEN;

/* Chunk bytes held in all threads' caches (relaxed loads: a statistic). */
size_t cg_reuse_held(void) CG_HIDDEN;

#endif /* CG_REUSE_H */
