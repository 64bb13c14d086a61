/*
 * fastpath.h — the inline tcache hits of malloc, calloc and free, which
 * entry/interpose.c inlines into the exported functions: no call, no lock,
 * no atomic.  Everything they do is here, apart from the chunk layout
 * (chunk.h) and the tcache's pop and push (tcache.h):
 *
 *   malloc/calloc  tc = cg_self.tcache (NULL: a slow path)
 *                  -> CG_FAST_ENTER, cg_tcache_hit -> a block, mark ended;
 *                     or NULL, mark still set, for the hand-off
 *   free           cg_heap_owns(mem) (heap.h: the heap map and the
 *                  chunk-start bitmap), CG_FAST_ENTER, cg_free_fast
 *
 * The hand-offs and slow paths are entry/api.c's.
 *
 * The re-entry mark (entry/reentry.h): a signal handler that calls malloc
 * or free while its thread runs one of these finds cg_self.tcache NULL and
 * takes the slow path, which serves it apart.  Two plain stores to an
 * initial-exec TLS word, no load, no compare, no atomic; compiler barriers
 * (signal fences) keep the tcache accesses between them.
 */
#ifndef CG_FASTPATH_H
#define CG_FASTPATH_H

#include "alloc.h"
#include "heap.h"
#include "tcache.h"
#include "thread.h"

/* Around an inline fast path that uses tc (= cg_self.tcache). */
#define CG_FAST_ENTER()                                                  \
    do {                                                                 \
        if (CG_SWITCH(CG_REENTRY_MARK)) {                                \
            cg_self.tcache = NULL;                                       \
            CG_SIGNAL_FENCE();                                           \
        }                                                                \
    } while (0)
#define CG_FAST_LEAVE(tc)                                                \
    do {                                                                 \
        if (CG_SWITCH(CG_REENTRY_MARK)) {                                \
            CG_SIGNAL_FENCE();                                           \
            cg_self.tcache = (tc);                                       \
        }                                                                \
    } while (0)

/* The inline paths' tcache hit, called with the mark set (CG_FAST_ENTER):
 * a chunk of bin idx, counted in *count, with the mark ended; or NULL when
 * the bin cannot serve it (empty, not an inline bin, a link the slow path
 * must check), the mark still set for the hand-off. */
CG_INLINE void *cg_tcache_hit(cg_tcache_t *tc, size_t idx, uint64_t *count)
{
    void *mem;
    if (CG_LIKELY(idx < cg_mp.tcache_fast_bins) &&
        CG_LIKELY((mem = cg_tcache_try_get(tc, idx)) != NULL)) {
        CG_COUNT(*count);
        CG_FAST_LEAVE(tc);
        return mem;
    }
    return NULL;
}

enum { CG_FREE_SLOW = 0, CG_FREE_DONE = 1, CG_FREE_BIN_FULL = 2 };

/* Fast free of a pointer cg_heap_owns() accepted.  CG_FREE_DONE: mem went
 * into the tcache.  CG_FREE_BIN_FULL: mem is a valid, in-use chunk of a
 * tcache size but its bin is full.  CG_FREE_SLOW: anything unusual (a size
 * that is not a tcache class, a next chunk that is no chunk or says mem is
 * free, a freed-entry key), for cg_free_owned, which repeats every test
 * with a report. */
CG_INLINE int cg_free_fast(cg_tcache_t *tc, void *mem)
{
    cg_chunk_t *c = cg_mem2chunk(mem);
    size_t raw = cg_head(c);
    size_t idx = (raw >> 4) - 2;
    if (idx >= cg_mp.tcache_fast_bins || (raw & (CG_IS_MMAPPED | (CG_ALIGN_MASK & ~CG_FLAG_BITS))))
        return CG_FREE_SLOW;
    size_t size = raw & ~CG_FLAG_BITS;
    cg_chunk_t *next = cg_at(c, size);
    cg_heap_t *h = cg_heap_base(mem);
    /* next's header is readable: c starts a chunk, so it lies below the
     * region's tail page, and size is at most a tcache class (heap.h). */
    static_assert((CG_TCACHE_BINS + 1) * CG_ALIGN + CG_HDR_SZ <= CG_HEAP_TAIL,
                  "a tcache-sized chunk's next header must fit in the tail page");
    if (!cg_start_test_index(h, cg_start_index(h, c) + (size >> 4)) || /* a chunk starts there */
        !cg_prev_inuse(next))                                       /* which says mem is in use */
        return CG_FREE_SLOW;
    if (((cg_tentry_t *)mem)->key == cg_tcache_key)
        return CG_FREE_SLOW;
    if (tc->counts[idx] >= cg_mp.tcache_count)
        return CG_FREE_BIN_FULL;
    cg_tcache_put(tc, idx, mem);
    CG_COUNT(tc->n_free);
    return CG_FREE_DONE;
}

#endif /* CG_FASTPATH_H */
