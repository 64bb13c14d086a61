/*
 * fastpath.h — the inline tcache hits of malloc, calloc and free, which
 * entry/interpose.c inlines into the exported functions: no call, no lock,
 * no atomic.  Everything they do is here, top to bottom, apart from the
 * chunk and heap layout (chunk.h, heap.h) and the tcache's fields
 * (tcache.h):
 *
 *   malloc/calloc  tc = cg_self.tcache (NULL: a slow path), a tcache size
 *                  -> CG_FAST_ENTER, CG_SAMPLE_TURN (the sampler's count-
 *                     down: at 0, the sampled hand-off), cg_tcache_hit
 *                     (cg_tcache_try_get, the pop) -> a block, mark ended;
 *                     or NULL, mark still set, for the hand-off
 *   free           tc, cg_heap_owns(mem) (the heap map and the chunk-start
 *                  bitmap), CG_FAST_ENTER, cg_free_fast (cg_tcache_put,
 *                  the push) -> done, mark ended; or the hand-off
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

#include <string.h>

#include "checks.h"
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

/* The sampler's count-down (debug/sample.h), one decrement of a TLS word
 * and one predictable branch per inline malloc and calloc: true for the
 * allocation that takes it to 0, which the sampled hand-off serves
 * (entry/api.c).  With sampling off the word just wraps, once per 2^32
 * allocations. */
#define CG_SAMPLE_TURN() CG_UNLIKELY(--cg_self.sample_left == 0)

/* Unlink the head e of bin idx, whose demangled next link n was checked. */
CG_INLINE void *cg_tcache_pop(cg_tcache_t *tc, size_t idx, cg_tentry_t *e, cg_tentry_t *n)
{
    tc->entries[idx] = n;
    tc->counts[idx]--;
    e->key = 0;
    return e;
}

/* The inline paths' pop: the head of bin idx, or NULL when the bin is empty
 * or anything needs a closer look.  The head e is a chunk of ours (it
 * passed free's checks, or the test below when it was a link), so a link
 * that is NULL, or a 16-byte aligned place in e's own heap where a chunk
 * header can be read (cg_heap_chunk_ok: past the metadata and guard page,
 * below the committed end — one load of the heap's size from e's heap
 * header) and not e itself, is taken.  Any other link (another heap's
 * chunk, the inaccessible part of a heap, or corruption), and a bin whose
 * count is 0 (glibc tests it too), are left to the slow path, whose
 * cg_tcache_get tests them in full and reports what is bad: so the hit
 * path makes no call at all.  A link taken here is read on the next pop
 * only, which therefore never faults; one that is no chunk start (a
 * corrupted link to free memory or a block's middle) is reported one pop
 * later, when its own link fails — it is never handed out unless its
 * link decodes to a good one, which needs the secret. */
CG_INLINE void *cg_tcache_try_get(cg_tcache_t *tc, size_t idx)
{
    cg_tentry_t *e = tc->entries[idx];
    if (e == NULL)
        return NULL;
    cg_tentry_t *n = (cg_tentry_t *)cg_reveal(&e->next, e->next);
    if (CG_CHECK_ON(SAFE_LINK)) {
        if (n != NULL &&
            CG_UNLIKELY(!cg_heap_chunk_ok(cg_heap_base(e), cg_mem2chunk(n)) || n == e))
            return NULL;
        /* Tested last, when the link's temporaries are dead: tested first,
         * the count took one register more than the caller-saved ones and
         * every call saved and restored a callee-saved register. */
        if (CG_UNLIKELY(tc->counts[idx] == 0))
            return NULL;
    }
    return cg_tcache_pop(tc, idx, e, n);
}

CG_INLINE void cg_tcache_put(cg_tcache_t *tc, size_t idx, void *mem)
{
    cg_tentry_t *e = (cg_tentry_t *)mem;
    e->key = cg_tcache_key;
    e->next = (cg_tentry_t *)cg_protect(&e->next, tc->entries[idx]);
    tc->entries[idx] = e;
    tc->counts[idx]++;
}

/*
 * Is mem the user pointer of a chunk in one of our heaps?  16-byte aligned,
 * in a mapped heap, and marked in the chunk-start map (bits are set only at
 * chunk starts, never in the metadata pages nor beyond the top).  The top
 * chunk passes too: callers reject it by its size.  Reads only our own
 * metadata.  Does not say whether the chunk is in use.
 */
CG_INLINE bool cg_heap_owns(const void *mem)
{
    /* No offset test needed: the bitmap's bits for the header, bitmap and
     * guard pages, and beyond the top, are never set. */
    if (!cg_aligned_ok(mem) || !cg_in_heap(mem))
        return false;
    return cg_start_test(cg_heap_base(mem), (const char *)mem - CG_HDR_SZ);
}

/*
 * Zero n bytes at a 16-byte aligned p, n >= 24 (the smallest usable size).
 * Up to 128 bytes: a few unconditional 16-byte stores that may overlap,
 * chosen by two predictable compares, instead of a size-indexed loop or a
 * call; above that, memset.  The split point and the method were measured
 * with fixed and random sizes (docs/performance.md, "calloc"); the idea is
 * from the 2024 glibc calloc discussion (background.md).
 */
typedef char cg_v16 __attribute__((vector_size(16), aligned(1)));
CG_INLINE void cg_clear(void *p, size_t n)
{
    char *b = p;
    const cg_v16 z = {0};
    if (!CG_SWITCH(CG_CLEAR_SMALL_INLINE)) {
        memset(p, 0, n);
    } else if (n <= 32) {
        *(cg_v16 *)b = z;
        *(cg_v16 *)(b + n - 16) = z;
    } else if (n <= 64) {
        *(cg_v16 *)b = z;
        *(cg_v16 *)(b + 16) = z;
        *(cg_v16 *)(b + n - 32) = z;
        *(cg_v16 *)(b + n - 16) = z;
    } else if (n <= 128) {
        for (int i = 0; i < 4; i++) {
            *(cg_v16 *)(b + 16 * i) = z;
            *(cg_v16 *)(b + n - 16 * (i + 1)) = z;
        }
    } else {
        memset(p, 0, n);
    }
}

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

enum { CG_FREE_SLOW = 0, CG_FREE_DONE = 1, CG_FREE_BIN_FULL = 2, CG_FREE_FAST_FULL = 3 };

/* Fast free of a pointer cg_heap_owns() accepted.  CG_FREE_DONE: mem went
 * into the tcache.  CG_FREE_BIN_FULL: mem is a valid, in-use chunk of a
 * tcache size but its bin is full; CG_FREE_FAST_FULL: the same for a
 * chunk of a fastbin size (at most M_MXFAST's).  CG_FREE_SLOW: anything unusual (a size
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
    /* next's start bit is in the bitmap: c starts a chunk, so it lies
     * below the region's tail page, and size is at most a tcache class
     * (heap.h); next's header is read only when that bit says a chunk
     * starts there, so below the committed end. */
    static_assert((CG_TCACHE_BINS + 1) * CG_ALIGN + CG_HDR_SZ <= CG_HEAP_TAIL,
                  "a tcache-sized chunk's next header must fit in the tail page");
    if (!cg_start_test_index(h, cg_start_index(h, c) + (size >> 4)) || /* a chunk starts there */
        !cg_prev_inuse(next))                                       /* which says mem is in use */
        return CG_FREE_SLOW;
    if (((cg_tentry_t *)mem)->key == cg_tcache_key)
        return CG_FREE_SLOW;
    if (tc->counts[idx] >= cg_mp.tcache_count)
        return size <= cg_mp.max_fast ? CG_FREE_FAST_FULL : CG_FREE_BIN_FULL;
    cg_tcache_put(tc, idx, mem);
    CG_COUNT(tc->n_free);
    return CG_FREE_DONE;
}

#endif /* CG_FASTPATH_H */
