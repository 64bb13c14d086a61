/*
 * alloc.h — the core's chunk source: a chunk from the tcache, an arena or
 * a big block; the validation of a pointer the program hands back; and
 * its release.  The pieces the slow paths inline (entry/api.c, fast.c)
 * are here, the rest in alloc.c.  No mode is asked about: fast mode's
 * table (fast.c) and debug mode's (debug/debug.c) are built on these.
 * call: the call being served (base/call.h): its mt says whether other
 * threads may run (the arena locks are taken), and a report names it; tc:
 * the tcache to use, or NULL (not always the call's: realloc's move and
 * debug mode's blocks never come from one).
 */
#ifndef CG_ALLOC_H
#define CG_ALLOC_H

#include <errno.h>
#include <string.h>

#include "arena.h"
#include "bigblock.h"
#include "fastbin.h"
#include "fastpath.h"
#include "checks.h"
#include "tcache.h"

/* Pop the head of bin idx (known non-empty).  Its next link is demangled and
 * checked (cg_tcache_link_ok) before it becomes the new head, so a
 * corrupted link is reported, never followed; and the bin's count must
 * say it holds a chunk, which bounds any loop the links were bent into. */
CG_INLINE void *cg_tcache_get(cg_tcache_t *tc, size_t idx, const cg_call_t *call)
{
    cg_tentry_t *e = tc->entries[idx];
    cg_tentry_t *n = (cg_tentry_t *)cg_reveal(&e->next, e->next);
    if (CG_CHECK_ON(SAFE_LINK)) {
        if (CG_UNLIKELY(tc->counts[idx] == 0))
            cg_fail_TCACHE_COUNT(call, e);
        if (CG_UNLIKELY(!cg_tcache_link_ok(e, n)))
            cg_tcache_report_bad_link(e, n, call);
    }
    return cg_tcache_pop(tc, idx, e, n);
}

static inline size_t cg_usable_of(cg_chunk_t *c)
{
    return cg_is_mmapped(c) ? cg_big_usable(c) : cg_heap_usable(c);
}

/* M_PERTURB or fill_alloc: fill a new block. */
static inline void cg_perturb_alloc(cg_chunk_t *c)
{
    if (CG_UNLIKELY(cg_mp.alloc_fill >= 0))
        memset(cg_chunk2mem(c), cg_mp.alloc_fill, cg_usable_of(c));
}

/* nb bytes (aligned to align when it is not 0) from arena av, under its
 * lock when call->mt (its site: the program's call site, cg_lock_if_op). */
CG_INLINE cg_chunk_t *cg_from_arena(cg_arena_t *av, size_t nb, size_t align,
                                    const cg_call_t *call, cg_tcache_t *tc, bool *fresh)
{
    cg_tok_t av_tok = cg_lock_if_op(&av->lock, call);
    cg_chunk_t *c = align ? cg_arena_memalign(av, align, nb, call)
                          : cg_arena_malloc(av, nb, call, fresh, tc);
    cg_unlock_if(&av->lock, av_tok);
    return c;
}

/* This thread's arena is out of memory: try one other, once, as glibc does. */
cg_chunk_t *cg_from_other_arena(cg_arena_t *failed, size_t nb, size_t align,
                                const cg_call_t *call, cg_tcache_t *tc, bool *fresh)
    CG_HIDDEN CG_NOINLINE;

CG_INLINE cg_chunk_t *cg_from_arenas(size_t nb, size_t align, const cg_call_t *call,
                                     cg_tcache_t *tc, bool *fresh)
{
    cg_arena_t *av = cg_arena_for_thread(call);
    cg_chunk_t *c = cg_from_arena(av, nb, align, call, tc, fresh);
    if (CG_UNLIKELY(c == NULL))
        c = cg_from_other_arena(av, nb, align, call, tc, fresh);
    return c;
}

/* A request at or above the mmap threshold about to get a big block:
 * consolidate the fastbins of the thread's arena first, as glibc's
 * _int_malloc does for every large request (a damaged fastbin is found
 * there, not left for later).  Takes the arena lock when call->mt and the
 * arena has fast chunks (alloc.c). */
void cg_consolidate_before_big(const cg_call_t *call) CG_HIDDEN CG_NOINLINE;

/* A chunk of at least nb bytes from the tcache, an arena, or a big block.
 * *fresh says its memory is known to read zero.  NULL with errno ENOMEM. */
CG_INLINE cg_chunk_t *cg_alloc_chunk(size_t nb, const cg_call_t *call, cg_tcache_t *tc,
                                     bool *fresh)
{
    *fresh = false;
    if (tc != NULL && nb <= cg_mp.tcache_max_csize) {
        size_t idx = cg_csize2tidx(nb);
        if (tc->entries[idx] != NULL)
            return cg_mem2chunk(cg_tcache_get(tc, idx, call));
    }
    cg_chunk_t *c = NULL;
    if (nb >= CG_LOAD(cg_mp.mmap_threshold) && (int)CG_LOAD(cg_mp.n_mmaps) < cg_mp.n_mmaps_max) {
        cg_consolidate_before_big(call);
        if ((c = cg_big_alloc(nb, 0, call)) != NULL) {
            *fresh = true;
            return c;
        }
    }
    c = cg_from_arenas(nb, 0, call, tc, fresh);
    if (c == NULL && (c = cg_big_alloc(nb, 0, call)) != NULL)
        *fresh = true;
    if (c == NULL)
        errno = ENOMEM;
    return c;
}

/* The report of the size check below (alloc.c).  use: how the program uses
 * the pointer (the report for one that is no block: invalid-free, or
 * invalid-pointer from malloc_usable_size). */
void cg_report_bad_size(cg_chunk_t *c, cg_use_t use, const cg_call_t *call)
    CG_COLD CG_HIDDEN __attribute__((noreturn));

/* A heap chunk's size must be sane before we walk to its neighbour, and the
 * neighbour must really start a chunk (or be the fencepost closing an old
 * heap): an overflow that rewrites a size field so that it leads into the
 * middle of a chunk is caught here (cg_release_heap adds the span scan). */
static inline void cg_check_heap_size(cg_chunk_t *c, cg_use_t use, const cg_call_t *call)
{
    cg_heap_t *h = cg_heap_base(c);
    size_t size = cg_csize(c);
    if (!CG_CHECK_ON(FREE_SIZE))
        return;
    if (CG_UNLIKELY(cg_is_mmapped(c) || size < CG_MINSIZE || (size & CG_ALIGN_MASK) ||
                    size > (size_t)(cg_heap_end(h) - (char *)c) - 2 * CG_HDR_SZ))
        cg_report_bad_size(c, use, call);
    cg_chunk_t *next = cg_at(c, size);
    if (CG_UNLIKELY(!cg_start_test(h, next) && next != CG_LOAD(h->fence)))
        cg_fail_BAD_NEXT(call, cg_chunk2mem(c));
}

/* The report of the in-use check below: the next chunk's PREV_INUSE bit
 * says c is free — a double free when c looks free (in a bin), heap
 * corruption of that chunk's header otherwise (alloc.c). */
void cg_report_not_in_use(cg_chunk_t *c, size_t size, const cg_call_t *call)
    CG_COLD CG_HIDDEN __attribute__((noreturn));

/* A heap chunk being freed or resized must be in use: not in this thread's
 * tcache nor in a fastbin (its key is the hint: tcache.c's
 * cg_freed_key_check is exact) and not free in a bin (the next chunk's
 * PREV_INUSE bit).  The largest tcache chunk bounds both keyed kinds (a
 * fastbin chunk is at most 176 bytes); the constant saves a load. */
static inline void cg_check_in_use(cg_chunk_t *c, size_t size, cg_tcache_t *tc,
                                   const cg_call_t *call)
{
    if (CG_CHECK_ON(TCACHE_DOUBLE_FREE) && size <= CG_KEYED_MAX_CSIZE &&
        CG_UNLIKELY(((cg_tentry_t *)cg_chunk2mem(c))->key == cg_tcache_key))
        cg_freed_key_check(c, size, tc, call);
    if (CG_CHECK_ON(NOT_INUSE) && CG_UNLIKELY(!cg_prev_inuse(cg_at(c, size))))
        cg_report_not_in_use(c, size, call);
}

/* Give a validated heap chunk back: tcache if its bin has room, else the
 * fastbin or the arena. */
CG_INLINE void cg_release_heap(cg_chunk_t *c, const cg_call_t *call, cg_tcache_t *tc)
{
    size_t size = cg_csize(c);
    cg_check_in_use(c, size, tc, call);
    /* No chunk may start inside the block being freed: a size field that an
     * overflow enlarged to swallow whole neighbours would otherwise hand
     * out memory overlapping them.  O(size / 1 KiB) word reads, on the
     * checked paths only (not the inline tcache path, not realloc in place),
     * so it stays small next to the cost of having used the block. */
    if (CG_CHECK_ON(FREE_SIZE) && CG_UNLIKELY(!cg_heap_span_clear(cg_heap_base(c), c, size)))
        cg_fail_BAD_NEXT(call, cg_chunk2mem(c));
    if (tc != NULL && size <= cg_mp.tcache_max_csize) {
        size_t idx = cg_csize2tidx(size);
        if (tc->counts[idx] < cg_mp.tcache_count) {
            cg_tcache_put(tc, idx, cg_chunk2mem(c));
            return;
        }
    }
    cg_arena_free(cg_arena_of(c), c, call);
}

/* The block of a chunk of nb bytes (cg_request2size of a request that
 * passed the ENOMEM test), M_PERTURB filled, from the call's tcache:
 * cg_malloc_mem_inline's part after the test, for a caller that has the
 * chunk size already (the malloc hand-off, entry/api.c). */
CG_INLINE void *cg_malloc_chunk_mem(size_t nb, const cg_call_t *call)
{
    bool fresh;
    cg_chunk_t *c = cg_alloc_chunk(nb, call, call->tc, &fresh);
    if (c == NULL)
        return NULL;
    cg_perturb_alloc(c);
    return cg_chunk2mem(c);
}

/* malloc's contract for every entry that serves an unaligned request:
 * ENOMEM above PTRDIFF_MAX, M_PERTURB fill; from the call's tcache.
 * Inlined into malloc's slow paths, which every tcache miss runs (no frame
 * of its own: see docs/performance.md, "Winning back the fast paths'
 * instructions"); the others call the out-of-line copy, cg_malloc_mem. */
CG_INLINE void *cg_malloc_mem_inline(size_t n, const cg_call_t *call)
{
    if (CG_UNLIKELY(n > CG_MAX_REQUEST)) {
        errno = ENOMEM;
        return NULL;
    }
    return cg_malloc_chunk_mem(cg_request2size(n), call);
}
void *cg_malloc_mem(size_t n, const cg_call_t *call) CG_HIDDEN;

/* calloc's: bytes (at most CG_MAX_REQUEST) zeroed, from the call's tcache.
 * Memory fresh from the OS (a new mmap, or top beyond anything ever
 * written) is already zero. */
CG_INLINE void *cg_calloc_mem_inline(size_t bytes, const cg_call_t *call)
{
    bool fresh;
    cg_chunk_t *c = cg_alloc_chunk(cg_request2size(bytes), call, call->tc, &fresh);
    if (c == NULL)
        return NULL;
    if (!fresh || cg_mp.alloc_fill >= 0 || cg_mp.free_fill >= 0)
        cg_clear(cg_chunk2mem(c), cg_usable_of(c));
    return cg_chunk2mem(c);
}

/* A pointer into one of our heaps that is no chunk start: reported as the
 * use's check, saying what it points into (alloc.c). */
void cg_report_not_a_block(void *mem, cg_use_t use, const cg_call_t *call)
    CG_COLD CG_HIDDEN __attribute__((noreturn));
/* cg_owned_chunk's part for a pointer outside every heap (alloc.c). */
cg_chunk_t *cg_owned_big(void *mem, cg_use_t use, const cg_call_t *call, bool *big)
    CG_HIDDEN;

/* Validate a pointer the program hands back, before reading anything at it:
 * it must be a chunk start in one of our heaps, or a registered big block.
 * Reports the use's ownership check (checks.def) when it is not ours,
 * heap-corruption when its header is impossible.  *big tells which kind of
 * chunk it is. */
CG_INLINE cg_chunk_t *cg_owned_chunk(void *mem, cg_use_t use, const cg_call_t *call, bool *big)
{
    cg_chunk_t *c = cg_mem2chunk(mem);
    if (CG_LIKELY(cg_in_heap(mem))) {
        if (CG_CHECK_ON(OWNERSHIP) && CG_UNLIKELY(!cg_heap_owns(mem)))
            cg_report_not_a_block(mem, use, call);
        cg_check_heap_size(c, use, call);
        *big = false;
        return c;
    }
    return cg_owned_big(mem, use, call, big);
}

/* Give a validated chunk back (a big block is unmapped). */
CG_INLINE void cg_release(cg_chunk_t *c, bool big, const cg_call_t *call, cg_tcache_t *tc)
{
    if (big)
        cg_big_free(c, call);
    else
        cg_release_heap(c, call, tc);
}

/* A chunk of at least nb bytes whose memory is aligned to align (a power
 * of two above 16), from a big block or an arena; NULL when out of memory. */
cg_chunk_t *cg_aligned_chunk(size_t nb, size_t align, const cg_call_t *call) CG_HIDDEN;

/* The core beneath debug mode (debug/debug.c): a chunk of at least nb bytes
 * whose memory is aligned to align (<= 16: the normal 16), never from a
 * tcache, not filled; NULL when out of memory (errno not set).  And the
 * checked free of the block at mem, never into a tcache; a pointer that is
 * not a live block of ours is reported as free would. */
cg_chunk_t *cg_core_alloc(size_t nb, size_t align, const cg_call_t *call) CG_HIDDEN;
void   cg_core_free(void *mem, const cg_call_t *call) CG_HIDDEN;

#endif /* CG_ALLOC_H */
