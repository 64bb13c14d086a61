/*
 * arena.c — the locked heart of the allocator: bins, fastbins, splitting
 * and coalescing, the top chunk, growing and trimming heaps.
 *
 * The algorithms are ptmalloc's (glibc malloc.c, Wolfram Gloger after Doug
 * Lea): best-fit from size-segregated bins fed through an unsorted list,
 * boundary-tag coalescing, and a top chunk that grows and shrinks.  Each
 * integrity check sits where glibc has it and costs O(1); the glibc message
 * it corresponds to is quoted in the report (the catalogue of checks,
 * src/report/checks.def).
 *
 * Every function here runs with the arena's lock held (or single-threaded);
 * the exported ones that take the lock themselves read no header before
 * they have it.  Hence plain header loads (chunk.h, CG_HEADERS_LOCKED).
 */
#define CG_HEADERS_LOCKED 1
#include "arena.h"

#include <string.h>

#include "bins.h"
#include "checks.h"
#include "fastbin.h"
#include "fastpath.h"
#include "tcache.h"
#include "testhooks.h"

cg_params_t cg_mp = {
    .mmap_threshold = CG_MMAP_THRESHOLD_DEF,
    .trim_threshold = CG_TRIM_THRESHOLD_DEF,
    .top_pad = 128 * 1024,
    .n_mmaps_max = CG_MMAP_MAX_DEF,
    .max_fast = (CG_MXFAST_DEF + CG_SIZE_SZ) & ~(size_t)CG_ALIGN_MASK,  /* chunk 128 */
    .tcache_bins = CG_TCACHE_BINS,
    .tcache_fast_bins = CG_TCACHE_BINS,
    .tcache_count = CG_TCACHE_COUNT_DEF,
    .alloc_fill = -1,
    .free_fill = -1,
    .tcache_max_csize = CG_MINSIZE + (CG_TCACHE_BINS - 1) * CG_ALIGN,
};
cg_arena_t cg_main_arena;
cg_lock_t cg_list_lock = CG_LOCK_INIT(CG_LK_LIST);

/* ---- small helpers ---------------------------------------------------- */

static void mark_bin(cg_arena_t *av, size_t i) { av->binmap[i >> 5] |= 1u << (i & 31); }
static void unmark_bin(cg_arena_t *av, size_t i) { av->binmap[i >> 5] &= ~(1u << (i & 31)); }

/* A walk along a bin cannot take more steps than the arena has chunks:
 * more means its links form a cycle. */
CG_INLINE void check_walk(cg_arena_t *av, size_t steps, const cg_chunk_t *at,
                          const cg_call_t *call)
{
    if (CG_CHECK_ON(UNLINK) && CG_UNLIKELY(steps > av->system_mem / CG_MINSIZE))
        cg_fail_BIN_CYCLE(call, cg_chunk2mem((cg_chunk_t *)at));
}

/* Split chunk c (in use from now on, size `size`) so that it keeps nb bytes;
 * a remainder of at least MINSIZE goes to the unsorted bin. */
CG_HOT_TEXT static void split_in_use(cg_arena_t *av, cg_chunk_t *c, size_t size, size_t nb,
                                     bool small_req, const cg_call_t *call)
{
    size_t rsize = size - nb;
    if (rsize < CG_MINSIZE) {
        cg_set_inuse_at(c, size);
        return;
    }
    cg_chunk_t *r = cg_at(c, nb);
    cg_set_head_size(c, nb);
    cg_set_head(r, rsize | CG_PREV_INUSE);
    cg_set_foot(r, rsize);
    cg_start_set(r);
    cg_unsorted_insert(av, r, false, call);
    if (small_req)
        av->last_remainder = r;
}

CG_HOT_TEXT void cg_arena_consolidate(cg_arena_t *av, const cg_call_t *call)
{
    bool mt = call->mt;
    CG_HELD(&av->lock, mt);
    if (mt)
        __atomic_store_n(&av->have_fastchunks, 0, __ATOMIC_RELAXED);
    else
        av->have_fastchunks = 0;
    for (size_t i = 0; i < CG_NFASTBINS; i++) {
        cg_chunk_t *p;
        if (mt) {
            p = __atomic_exchange_n(&av->fastbins[i], NULL, __ATOMIC_ACQUIRE);
        } else {
            p = av->fastbins[i];
            av->fastbins[i] = NULL;
        }
        while (p != NULL) {
            cg_fastbin_check_link(av, p, CG_CK_FASTBIN_LINK_CONSOLIDATE, call);
            cg_fastbin_check_index(p, i, CG_CK_FASTBIN_INDEX_CONSOLIDATE, call);
            /* A fastbin chunk is in use to the rest of the heap; one that is
             * not was merged already: its bin has a cycle or a duplicate. */
            if (CG_CHECK_ON(UNLINK) && CG_UNLIKELY(!cg_inuse(p)))
                cg_fail_FASTBIN_TWICE(call, cg_chunk2mem(p));
            cg_chunk_t *n = cg_reveal(&p->fd, p->fd);
            /* its memory may end up inside another chunk, or be carved at
             * p again: no stale key and mark there (fastbin.h) */
            if (CG_CHECK_ON(TCACHE_DOUBLE_FREE))
                cg_fastbin_untag(p);
            cg_merge_and_bin(av, p, cg_csize(p), call);
            p = n;
        }
    }
}

/* ---- growing, closing and trimming heaps ------------------------------ */

/* The arena is moving its top to a new heap: close the old one with two
 * fenceposts (a 16-byte chunk marked in use and a zero-size end marker) and
 * bin what is left of the old top. */
static void close_heap(cg_arena_t *av, cg_heap_t *h, const cg_call_t *call)
{
    cg_chunk_t *top = av->top;
    size_t tsz = cg_csize(top), prevbit = cg_head(top) & CG_PREV_INUSE;
    /* The fenceposts are written at the heap's end: nothing here reads
     * zero for calloc any more, should this end become top again. */
    h->clean_from = cg_heap_end(h);
    if (tsz >= CG_MINSIZE + CG_FENCE_BYTES) {
        size_t rsz = tsz - CG_FENCE_BYTES;
        cg_chunk_t *f1 = cg_at(top, rsz);
        cg_set_head(f1, CG_HDR_SZ);            /* previous chunk (rest) is free */
        f1->prev_size = rsz;
        cg_set_head(cg_at(f1, CG_HDR_SZ), 0 | CG_PREV_INUSE);
        cg_set_head(top, rsz | prevbit);   /* top keeps its start bit: a chunk now */
        CG_STORE(h->fence, f1);
        av->top = NULL;
        cg_unsorted_insert(av, top, false, call);
    } else {
        cg_set_head(top, (tsz - CG_HDR_SZ) | prevbit);
        cg_set_head(cg_at(top, tsz - CG_HDR_SZ), 0 | CG_PREV_INUSE);
        cg_start_clear(top);               /* a fencepost, not a chunk */
        CG_STORE(h->fence, top);
        av->top = NULL;
    }
}

static void account_grow(cg_arena_t *av, size_t n)
{
    av->system_mem += n;
    if (av->system_mem > av->max_system_mem)
        av->max_system_mem = av->system_mem;
}

/* Make top at least nb + MINSIZE: grow the current heap, else start a new
 * heap.  False when the OS gives no more memory. */
static bool grow_top(cg_arena_t *av, size_t nb, const cg_call_t *call)
{
    cg_heap_t *h = av->heap;
    size_t tsz = cg_csize(av->top);
    size_t need = nb + CG_MINSIZE - tsz;
    size_t want = CG_PAGE_ROUND(need + cg_mp.top_pad);
    if (want < need)
        return false;
    want = cg_heap_grow_step(h, want);     /* to a huge page's end, when near it */
    if (cg_heap_grow(h, want) || (want = CG_PAGE_ROUND(need), cg_heap_grow(h, want))) {
        cg_arena_set_heap(av, h);         /* the link checks' span grows with it */
        cg_set_head_size(av->top, tsz + want);
        account_grow(av, want);
        return true;
    }
    cg_heap_t *nh = cg_heap_new(av, nb + CG_MINSIZE + cg_mp.top_pad);
    if (nh == NULL && (nh = cg_heap_new(av, nb + CG_MINSIZE)) == NULL)
        return false;
    nh->prev = h;
    close_heap(av, h, call);
    cg_arena_set_heap(av, nh);
    av->top = (cg_chunk_t *)nh->data;
    cg_set_head(av->top, (nh->size - CG_HEAP_DATA_OFF) | CG_PREV_INUSE);
    cg_start_set(av->top);
    account_grow(av, nh->size);
    return true;
}

/* Carve nb bytes off the front of top (which has room). */
CG_HOT_TEXT static cg_chunk_t *take_from_top(cg_arena_t *av, size_t nb, bool *fresh)
{
    cg_chunk_t *v = av->top;
    size_t size = cg_csize(v);
    cg_heap_t *h = av->heap;
    cg_chunk_t *r = cg_at(v, nb);
    cg_set_head(v, nb | (cg_head(v) & CG_PREV_INUSE));
    cg_set_head(r, (size - nb) | CG_PREV_INUSE);
    av->top = r;
    cg_start_set(r);                   /* v keeps the bit it had as top */
    if (fresh)
        *fresh = (char *)v + CG_HDR_SZ >= h->clean_from;
    if ((char *)r + CG_HDR_SZ > h->clean_from)
        h->clean_from = (char *)r + CG_HDR_SZ;
    return v;
}

CG_HOT_TEXT static void check_top(cg_arena_t *av, const cg_call_t *call)
{
    cg_chunk_t *t = av->top;
    if (CG_CHECK_ON(TOP_SIZE) &&
        CG_UNLIKELY((char *)t + cg_csize(t) != cg_heap_end(av->heap) ||
                    cg_csize(t) < CG_MINSIZE))
        cg_fail_TOP_SIZE(call, cg_chunk2mem(t));
}

/* If the arena's newest heap is entirely free, unmap it and make the end of
 * the previous heap the top again (glibc's heap_trim). */
static bool drop_empty_heap(cg_arena_t *av, const cg_call_t *call)
{
    cg_heap_t *h = av->heap;
    cg_chunk_t *top = av->top;
    if (h->prev == NULL || (char *)top != h->data)
        return false;
    cg_heap_t *ph = h->prev;
    cg_chunk_t *f1 = ph->fence, *nt = f1;
    if (!cg_prev_inuse(f1)) {
        cg_chunk_t *r = (cg_chunk_t *)((char *)f1 - f1->prev_size);
        cg_unlink_chunk(av, r, call);
        nt = r;                        /* keeps its start bit as the new top */
    }
    cg_start_set(nt);
    size_t nsize = (size_t)(cg_heap_end(ph) - (char *)nt);
    cg_set_head(nt, nsize | (cg_head(nt) & CG_PREV_INUSE));
    av->system_mem -= h->size;
    cg_heap_delete(h);
    CG_STORE(ph->fence, NULL);
    cg_arena_set_heap(av, ph);
    av->top = nt;
    return true;
}

CG_HOT_TEXT int cg_arena_trim(cg_arena_t *av, size_t pad, bool release_free, const cg_call_t *call)
{
    int released = 0;
    if (av->top == NULL)
        return 0;
    /* the top's size gives the pages to release: an overflow of the last
     * block may have rewritten it, and a size past the heap made the pages
     * sealed wrap round to the heap's own header (found by fuzzing) */
    check_top(av, call);
    while (cg_csize(av->top) >= CG_LOAD(cg_mp.trim_threshold) && drop_empty_heap(av, call))
        released = 1;
    cg_chunk_t *top = av->top;
    size_t tsz = cg_csize(top);
    cg_heap_t *h = av->heap;
    if (tsz > CG_MINSIZE + pad + cg_pagesize) {
        size_t extra = (tsz - CG_MINSIZE - pad) & ~(cg_pagesize - 1);
        /* the top chunk keeps at least MINSIZE, and stays page-aligned at its end */
        if (extra > 0 && extra <= h->size - (CG_HEAP_DATA_OFF + CG_MINSIZE)) {
            cg_heap_shrink(h, h->size - extra);
            cg_arena_set_heap(av, h);
            cg_set_head_size(top, tsz - extra);
            av->system_mem -= extra;
            released = 1;
        }
    }
    if (release_free) {
        for (size_t i = 1; i < CG_NBINS; i++) {
            cg_chunk_t *b = cg_bin_at(av, i);
            size_t steps = 0;
            for (cg_chunk_t *c = b->fd; c != b; c = c->fd) {
                /* the links and sizes were overwritten if the heap was:
                 * check before following or releasing (found by fuzzing) */
                cg_bin_check_link(av, c, CG_CK_TRIM_LINK, call);
                check_walk(av, ++steps, c, call);
                cg_check_free_size(c, call);
                if (CG_CHECK_ON(UNLINK) && CG_UNLIKELY(c->fd->bk != c))
                    cg_fail_TRIM_NOT_BACK(call, cg_chunk2mem(c));
                size_t sz = cg_csize(c);
                if (sz >= 2 * cg_pagesize) {
                    cg_heap_release_pages((char *)c + sizeof(cg_chunk_t), (char *)c + sz);
                    released = 1;
                }
            }
        }
    }
    return released;
}

/* ---- malloc ----------------------------------------------------------- */

static void check_unsorted_victim(cg_arena_t *av, cg_chunk_t *v, cg_chunk_t *ub,
                                  const cg_call_t *call)
{
    cg_bin_check_link(av, v, CG_CK_UNSORTED_LINK, call);
    size_t size = cg_csize(v);
    cg_heap_t *h = cg_heap_base(v);
    if (CG_CHECK_ON(UNLINK)) {
        /* the size against the room left: v + size wraps for one near 2^64 */
        if (CG_UNLIKELY(size < CG_MINSIZE ||
                        size > (size_t)(cg_heap_end(h) - (char *)v) - CG_HDR_SZ))
            cg_fail_UNSORTED_SIZE(call, cg_chunk2mem(v));
        cg_chunk_t *next = cg_at(v, size);
        if (CG_UNLIKELY(next->prev_size != size))
            cg_fail_UNSORTED_NEXT_PREV_SIZE(call, cg_chunk2mem(v));
        cg_bin_check_link_or(av, v->bk, ub, CG_CK_UNSORTED_BK, call);
        if (CG_UNLIKELY(v->bk->fd != v || v->fd != ub))
            cg_fail_UNSORTED_LINKS(call, cg_chunk2mem(v));
        if (CG_UNLIKELY(cg_prev_inuse(next)))
            cg_fail_UNSORTED_IN_USE(call, cg_chunk2mem(v));
    }
}

/* File a chunk taken off the unsorted list into its small or large bin
 * (large bins sorted by size, largest first). */
static void place_in_bin(cg_arena_t *av, cg_chunk_t *v, size_t size, const cg_call_t *call)
{
    size_t idx = cg_bin_index(size);
    cg_chunk_t *bin = cg_bin_at(av, idx), *fwd, *bck;
    if (cg_in_smallbin_range(size) || bin->fd == bin || size <= cg_csize(bin->bk)) {
        if (cg_in_smallbin_range(size)) {
            bck = bin;
            fwd = bin->fd;
        } else {   /* empty bin, or smallest so far: append */
            fwd = bin;
            bck = bin->bk;
        }
    } else {
        fwd = bin->fd;
        size_t steps = 0;
        while (cg_csize(fwd) > size) {
            cg_bin_check_link(av, fwd->fd, CG_CK_LARGEBIN_NEXTSIZE, call);
            check_walk(av, ++steps, fwd, call);
            fwd = fwd->fd;
        }
        bck = fwd->bk;
        cg_bin_check_link(av, bck, CG_CK_LARGEBIN_BK, call);
    }
    if (CG_CHECK_ON(UNLINK) && CG_UNLIKELY(bck->fd != fwd || fwd->bk != bck))
        cg_fail_LARGEBIN_PLACE(call, cg_chunk2mem(v));
    mark_bin(av, idx);
    v->bk = bck;
    v->fd = fwd;
    fwd->bk = v;
    bck->fd = v;
}

/* Take the last (oldest) chunk of a small bin, or NULL if it is empty. */
CG_INLINE cg_chunk_t *smallbin_take(cg_arena_t *av, cg_chunk_t *bin, size_t nb,
                                    const cg_call_t *call)
{
    cg_chunk_t *v = bin->bk;
    if (v == bin)
        return NULL;
    cg_bin_check_link(av, v, CG_CK_SMALLBIN_LINK, call);
    cg_bin_check_link_or(av, v->bk, bin, CG_CK_SMALLBIN_LINK, call);
    cg_chunk_t *bck = v->bk;
    if (CG_CHECK_ON(UNLINK) && CG_UNLIKELY(bck->fd != v))
        cg_fail_SMALLBIN_NOT_BACK(call, cg_chunk2mem(v));
    /* Its size must be the bin's before it is handed out and its next
     * chunk's header written (an overflow into a free chunk's size field
     * would otherwise send the caller past the heap). */
    if (CG_CHECK_ON(UNLINK) && CG_UNLIKELY(cg_csize(v) != nb))
        cg_fail_SMALLBIN_SIZE(call, cg_chunk2mem(v));
    cg_set_inuse_at(v, nb);
    bin->bk = bck;
    bck->fd = bin;
    return v;
}

/* A chunk moving from a fastbin into the tcache (x, still tagged) that
 * is the one just handed out (v), or one already moved into the tcache
 * (it has the tcache key but lost its fastbin mark when it was moved),
 * was freed twice into the fastbin with another free between ("fastbin
 * dup", which the fasttop check cannot see; glibc hands it out twice).
 * Free itself catches such a second free by the chunk's key and mark
 * (fastbin.h); this finds the dup whose key and mark a write after free
 * had wiped in between. */
CG_INLINE void check_stash_dup(cg_tcache_t *tc, size_t ti, const cg_chunk_t *v, cg_chunk_t *x,
                               const cg_call_t *call)
{
    if (!CG_CHECK_ON(TCACHE_DOUBLE_FREE))
        return;
    if (CG_UNLIKELY(x == v))
        cg_fail_FASTBIN_DUP(call, cg_chunk2mem(x));
    cg_tentry_t *e = (cg_tentry_t *)cg_chunk2mem(x);
    if (CG_UNLIKELY(e->key == cg_tcache_key && !cg_fastbin_marked(x)))
        cg_tcache_double_free_check(tc, ti, e, call);   /* reports if in this bin */
}

CG_HOT_TEXT cg_chunk_t *cg_arena_malloc(cg_arena_t *av, size_t nb, const cg_call_t *call,
                                        bool *fresh, cg_tcache_t *tc)
{
    CG_HELD(&av->lock, call->mt);
    cg_chunk_t *v;
    *fresh = false;
    if (CG_UNLIKELY(av->top == NULL)) {         /* the main arena's first heap failed */
        cg_heap_t *h = cg_heap_new(av, nb + CG_MINSIZE + cg_mp.top_pad);
        if (h == NULL)
            return NULL;
        cg_arena_setup_heap(av, h);
    }
    if (nb <= cg_mp.max_fast) {
        size_t idx = cg_fastbin_index(nb);
        if (CG_LOAD(av->fastbins[idx]) != NULL && (v = cg_fastbin_pop(av, idx, call)) != NULL) {
            if (tc != NULL) {
                size_t ti = cg_csize2tidx(nb);
                cg_chunk_t *x;
                while (tc->counts[ti] < cg_mp.tcache_count && CG_LOAD(av->fastbins[idx]) != NULL &&
                       (x = cg_fastbin_pop(av, idx, call)) != NULL) {
                    check_stash_dup(tc, ti, v, x, call);
                    if (CG_CHECK_ON(TCACHE_DOUBLE_FREE))
                        cg_fastbin_untag(x);
                    cg_tcache_put(tc, ti, cg_chunk2mem(x));
                }
            }
            if (CG_CHECK_ON(TCACHE_DOUBLE_FREE))
                cg_fastbin_untag(v);
            return v;
        }
    }
    bool small = cg_in_smallbin_range(nb);
    if (small) {
        cg_chunk_t *bin = cg_bin_at(av, cg_smallbin_index(nb));
        if ((v = smallbin_take(av, bin, nb, call)) != NULL) {
            if (tc != NULL && nb <= cg_mp.tcache_max_csize) {
                size_t ti = cg_csize2tidx(nb);
                cg_chunk_t *x;
                while (tc->counts[ti] < cg_mp.tcache_count &&
                       (x = smallbin_take(av, bin, nb, call)) != NULL)
                    cg_tcache_put(tc, ti, cg_chunk2mem(x));
            }
            return v;
        }
    } else if (CG_LOAD(av->have_fastchunks)) {
        cg_arena_consolidate(av, call);
    }

    for (;;) {
        cg_chunk_t *ub = cg_bin_at(av, CG_UNSORTED);
        int iters = 0;
        while ((v = ub->bk) != ub) {
            check_unsorted_victim(av, v, ub, call);
            size_t size = cg_csize(v);
            cg_chunk_t *bck = v->bk;
            if (small && bck == ub && v == av->last_remainder && size > nb + CG_MINSIZE) {
                cg_chunk_t *r = cg_at(v, nb);
                size_t rsize = size - nb;
                ub->bk = ub->fd = r;
                r->fd = r->bk = ub;
                av->last_remainder = r;
                cg_set_head(v, nb | CG_PREV_INUSE);
                cg_set_head(r, rsize | CG_PREV_INUSE);
                cg_set_foot(r, rsize);
                cg_start_set(r);
                return v;
            }
            ub->bk = bck;
            bck->fd = ub;
            if (av->last_remainder == v)
                av->last_remainder = NULL;
            if (size == nb) {
                cg_set_inuse_at(v, size);
                return v;
            }
            place_in_bin(av, v, size, call);
            if (++iters >= 10000)
                break;
        }

        if (!small) {
            cg_chunk_t *bin = cg_bin_at(av, cg_largebin_index(nb));
            if (bin->fd != bin && cg_csize(bin->fd) >= nb) {
                v = bin->bk;
                size_t steps = 0;
                while (cg_csize(v) < nb) {
                    check_walk(av, ++steps, v, call);
                    v = v->bk;
                    cg_bin_check_link(av, v, CG_CK_LARGEBIN_TAKE, call);
                    if (CG_CHECK_ON(UNLINK) && CG_UNLIKELY(v == bin))
                        cg_fail_LARGEBIN_SHORT(call, cg_chunk2mem(bin->fd));
                }
                size_t size = cg_csize(v);
                cg_unlink_chunk(av, v, call);
                split_in_use(av, v, size, nb, false, call);
                return v;
            }
        }

        /* The next non-empty bin up: any chunk there is big enough. */
        for (size_t idx = cg_bin_index(nb) + 1; idx < CG_NBINS; idx++) {
            unsigned word = av->binmap[idx >> 5] >> (idx & 31);
            if (word == 0) {            /* skip to the next map word */
                idx = (idx | 31);
                continue;
            }
            idx += (size_t)__builtin_ctz(word);
            if (idx >= CG_NBINS)
                break;
            cg_chunk_t *bin = cg_bin_at(av, idx);
            v = bin->bk;
            if (v == bin) {
                unmark_bin(av, idx);
                continue;
            }
            size_t size = cg_csize(v);
            cg_unlink_chunk(av, v, call);
            split_in_use(av, v, size, nb, small, call);
            return v;
        }

        check_top(av, call);
        if (cg_csize(av->top) >= nb + CG_MINSIZE)
            return take_from_top(av, nb, fresh);
        if (CG_LOAD(av->have_fastchunks)) {
            cg_arena_consolidate(av, call);
            continue;
        }
        if (!grow_top(av, nb, call))
            return NULL;
        return take_from_top(av, nb, fresh);
    }
}

/* An aligned chunk: over-allocate, skip to the first aligned spot that
 * leaves a leading piece of at least MINSIZE, give both ends back. */
cg_chunk_t *cg_arena_memalign(cg_arena_t *av, size_t align, size_t nb, const cg_call_t *call)
{
    CG_HELD(&av->lock, call->mt);
    bool fresh;
    size_t want = nb + align + CG_MINSIZE;
    if (want < nb)
        return NULL;
    cg_chunk_t *c = cg_arena_malloc(av, want, call, &fresh, NULL);
    if (c == NULL)
        return NULL;
    uintptr_t mem = (uintptr_t)cg_chunk2mem(c);
    if (mem % align != 0) {
        uintptr_t amem = (mem + align - 1) & ~(uintptr_t)(align - 1);
        if (amem - mem < CG_MINSIZE)
            amem += align;
        cg_chunk_t *nc = cg_mem2chunk((void *)amem);
        size_t lead = (size_t)((char *)nc - (char *)c);
        size_t rest = cg_csize(c) - lead;
        cg_set_head(nc, rest | CG_PREV_INUSE);
        cg_start_set(nc);
        cg_set_head_size(c, lead);
        cg_arena_free_locked(av, c, call);
        c = nc;
    }
    size_t size = cg_csize(c);
    if (size >= nb + CG_MINSIZE) {
        cg_chunk_t *r = cg_at(c, nb);
        cg_set_head_size(c, nb);
        cg_set_head(r, (size - nb) | CG_PREV_INUSE);
        cg_start_set(r);
        cg_arena_free_locked(av, r, call);
    }
    return c;
}

/* ---- free (bins.h has the binning free itself) --------------------------- */

CG_HOT_TEXT void cg_arena_free_big_merge(cg_arena_t *av, const cg_call_t *call)
{
    if (CG_LOAD(av->have_fastchunks))
        cg_arena_consolidate(av, call);
    if (cg_csize(av->top) >= CG_LOAD(cg_mp.trim_threshold))
        cg_arena_trim(av, cg_mp.top_pad, false, call);
}

CG_HOT_TEXT void cg_arena_free_locked(cg_arena_t *av, cg_chunk_t *c, const cg_call_t *call)
{
    CG_HELD(&av->lock, call->mt);
    size_t size = cg_csize(c);
    if (size <= cg_mp.max_fast)
        cg_fast_free(av, c, size, true, call);
    else
        cg_free_binned(av, c, size, call);
}

CG_HOT_TEXT void cg_arena_free_slow(cg_arena_t *av, cg_chunk_t *c, const cg_call_t *call)
{
    cg_arena_free_whole(av, c, call);
}

/* A trim lowers the heap's end before it lowers the top's size, and a
 * growth the other way round, both under av's lock: a free's test of the
 * next chunk without the lock, when that chunk is the top, can see one
 * change and not the other (contract.c's free-beside-trim: a false
 * "invalid next size (fast)" in every run of 20,000 frees). */
void cg_fast_free_recheck(cg_arena_t *av, cg_chunk_t *c, size_t size, bool locked,
                          const cg_call_t *call)
{
    bool bad = true;
    if (!locked && call->mt) {
        cg_tok_t av_tok = cg_lock_if_op(&av->lock, call);
        bad = cg_next_size_bad(c, size);
        cg_unlock_if(&av->lock, av_tok);
    }
    if (bad)
        cg_fail_with(call, CG_CK_NEXT_SIZE_FAST, cg_chunk2mem(c), NULL);
}

/* ---- realloc in place ------------------------------------------------- */

CG_HOT_TEXT bool cg_arena_resize(cg_arena_t *av, cg_chunk_t *c, size_t nb, const cg_call_t *call)
{
    bool ok = true;
    cg_tok_t av_tok = cg_lock_if_op(&av->lock, call);
    size_t size = cg_csize(c);
    cg_chunk_t *next = cg_at(c, size);
    /* glibc: "realloc(): invalid next size" — before next's size is used */
    cg_check_next_size(c, size, false, call);
    if (size < nb) {
        if (next == av->top)
            check_top(av, call);        /* its size is the room to grow into */
        if (next == av->top && cg_csize(next) + size >= nb + CG_MINSIZE) {
            size_t total = cg_csize(next) + size;
            cg_heap_t *h = av->heap;
            cg_set_head_size(c, nb);
            cg_chunk_t *nt = cg_at(c, nb);
            cg_set_head(nt, (total - nb) | CG_PREV_INUSE);
            cg_start_clear(next);
            cg_start_set(nt);
            av->top = nt;
            if ((char *)nt + CG_HDR_SZ > h->clean_from)
                h->clean_from = (char *)nt + CG_HDR_SZ;
            size = nb;
        } else if (next != av->top && !cg_inuse(next) && size + cg_csize(next) >= nb) {
            cg_unlink_chunk(av, next, call);
            cg_start_clear(next);
            size += cg_csize(next);
            cg_set_head_size(c, size);
            cg_set_inuse_at(c, size);
        } else {
            ok = false;
        }
    }
    if (ok && size >= nb + CG_MINSIZE) {
        cg_chunk_t *r = cg_at(c, nb);
        cg_set_head_size(c, nb);
        cg_set_head(r, (size - nb) | CG_PREV_INUSE);
        cg_start_set(r);
        cg_arena_free_locked(av, r, call);
    }
    cg_unlock_if(&av->lock, av_tok);
    return ok;
}

/* ---- setup ------------------------------------------------------------ */

CG_HOT_TEXT void cg_arena_init(cg_arena_t *av, int index)
{
    for (size_t i = 1; i < CG_NBINS; i++) {
        cg_chunk_t *b = cg_bin_at(av, i);
        b->fd = b->bk = b;
    }
    av->index = index;
    /* The lock-order graph knows the first arenas one by one (lock.h). */
    av->lock.node = index < CG_LK_MAX - CG_LK_ARENA0 ? (uint16_t)(CG_LK_ARENA0 + index) : CG_LK_NONE;
}
