/*
 * alloc.h — the malloc-family logic behind the exported names: the inline
 * fast paths (tcache hits, no function call) and the out-of-line slow paths.
 */
#ifndef CG_ALLOC_H
#define CG_ALLOC_H

#include <string.h>

#include "reentry.h"
#include "tcache.h"

/* Slow paths; `caller` is the program's return address, for reports.
 * Contracts are those of the standard functions (glibc 2.36). */
void  *cg_malloc_slow(size_t n, uintptr_t caller) CG_HIDDEN CG_NOINLINE;
/* malloc's slow path for a thread whose tcache (tc) missed: called with the
 * inline path's re-entry mark set (CG_FAST_ENTER), and ends it. */
void  *cg_malloc_handoff(size_t n, uintptr_t caller, cg_tcache_t *tc) CG_HIDDEN CG_NOINLINE;
void   cg_free_slow(void *mem, uintptr_t caller) CG_HIDDEN CG_NOINLINE;
void  *cg_calloc_slow(size_t nmemb, size_t size, uintptr_t caller) CG_HIDDEN CG_NOINLINE;
/* calloc's slow path for a thread whose tcache (tc) missed, entered like
 * cg_malloc_handoff. */
void  *cg_calloc_handoff(size_t nmemb, size_t size, uintptr_t caller, cg_tcache_t *tc)
    CG_HIDDEN CG_NOINLINE;
void  *cg_realloc_impl(void *mem, size_t n, uintptr_t caller) CG_HIDDEN;
void  *cg_reallocarray_impl(void *mem, size_t nmemb, size_t size, uintptr_t caller) CG_HIDDEN;
void  *cg_memalign_impl(size_t align, size_t n, uintptr_t caller, const char *op) CG_HIDDEN;
/* posix_memalign's contract around alloc (cg_memalign_impl, or the
 * re-entrant cg_reentry_memalign): EINVAL for a bad alignment, ENOMEM,
 * errno kept. */
int    cg_posix_memalign_with(void **memptr, size_t align, size_t n, uintptr_t caller,
                              void *(*alloc)(size_t align, size_t n, uintptr_t caller,
                                             const char *op)) CG_HIDDEN;
void  *cg_valloc_impl(size_t n, bool round_size, uintptr_t caller, const char *op) CG_HIDDEN;
size_t cg_usable_size_impl(void *mem, uintptr_t caller) CG_HIDDEN;
void   cg_free_sized_impl(void *mem, size_t align, size_t n, uintptr_t caller, const char *op) CG_HIDDEN;

/* The core beneath debug mode (debug.c): a chunk of at least nb bytes
 * whose memory is aligned to align (<= 16: the normal 16), never from a
 * tcache, not filled; NULL when out of memory (errno not set).  And the
 * checked free of the block at mem, never into a tcache; a pointer that is
 * not a live block of ours is reported as free would. */
cg_chunk_t *cg_core_alloc(size_t nb, size_t align, bool mt) CG_HIDDEN;
void   cg_core_free(void *mem, bool mt) CG_HIDDEN;

/* A free a signal handler made while its thread was inside (reentry.c),
 * done now: free's checks and release, without the mark (the caller is
 * inside already). */
void   cg_free_deferred(void *mem) CG_HIDDEN;

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

/* Free of a pointer cg_heap_owns() accepted, by a thread with a tcache,
 * when the inline path could not take it: size checks, in-use checks,
 * then tcache, fastbin or arena.  Both below are called with the inline
 * path's re-entry mark set (CG_FAST_ENTER) and end it. */
void   cg_free_owned(void *mem, cg_tcache_t *tc, uintptr_t caller) CG_HIDDEN CG_NOINLINE;

/* A tcache-sized chunk that passed every check of cg_free_fast but whose
 * tcache bin is full: straight to its fastbin or arena. */
void   cg_free_to_arena(void *mem, cg_tcache_t *tc, uintptr_t caller) CG_HIDDEN CG_NOINLINE;

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

#endif /* CG_ALLOC_H */
