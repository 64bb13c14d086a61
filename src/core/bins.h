/*
 * bins.h — the doubly linked bins' list operations, each with its link
 * checks, and the coalescing free of a chunk into an arena; inline, so
 * that arena.c (malloc, consolidation, trim) and free's hand-off from the
 * inline path (entry/api.c, cg_free_to_arena) run the same code, the
 * hand-off without a call into the arena: a free that misses the tcache
 * is served in the one frame the inline path calls.
 *
 * The algorithms are ptmalloc's (glibc malloc.c: unlink_chunk, the
 * coalescing of _int_free); the checks are glibc's where glibc has one
 * (the catalogue, src/report/checks.def, quotes its message) and ours
 * where glibc follows a link or a size without one: a link is tested to
 * be readable before it is followed, a size to stay inside its heap
 * before the chunk it leads to is read (bad input never makes us fault).
 *
 * Caller holds av's lock (or runs single-threaded), except where noted.
 */
#ifndef CG_BINS_H
#define CG_BINS_H

#include "arena.h"
#include "checks.h"
#include "fastbin.h"
#include "testhooks.h"

/* A list link we are about to follow must point at a bin header of this
 * arena or into the committed chunk space of one of our heaps: anything
 * else is corruption, reported before the link is dereferenced.  The
 * arena's current heap is one compare against the range its fields hold
 * (link_lo, link_span: cg_arena_set_heap), where most links point; a bin
 * header is one more; older heaps need the heap map and their size. */
CG_INLINE bool cg_bin_link_ok(const cg_arena_t *av, const void *x)
{
    if ((uintptr_t)x - av->link_lo < av->link_span)   /* the current heap */
        return true;
    if ((uintptr_t)x - (uintptr_t)av < sizeof *av)     /* a bin header of this arena */
        return true;
    return cg_heap_readable(x, sizeof(cg_chunk_t));
}

/* check: the report, which says where the link was met.  A bin header's
 * own fd and bk are read unchecked: they only ever take values that
 * passed this check (or the bin itself), and point at free chunks, which
 * lie below the top and so below the heap's committed end for as long as
 * they are binned (a trim gives back only the top's end). */
CG_INLINE void cg_bin_check_link(const cg_arena_t *av, const cg_chunk_t *x, cg_check_t check,
                                 const cg_call_t *call)
{
    if (CG_CHECK_ON(UNLINK) && CG_UNLIKELY(!cg_bin_link_ok(av, x)))
        cg_fail_with(call, check, x, NULL);
}

/* The same for a link that is often the bin header b the caller works on
 * (an empty or one-chunk bin): that one passes on one compare with b. */
CG_INLINE void cg_bin_check_link_or(const cg_arena_t *av, const cg_chunk_t *x,
                                    const cg_chunk_t *b, cg_check_t check, const cg_call_t *call)
{
    if (x != b)
        cg_bin_check_link(av, x, check, call);
}

/* A free chunk's size must be plausible, and lead to a header inside the
 * same heap's committed part, before the chunk after it is read.  p
 * passed a link check, so it lies below that end. */
CG_INLINE void cg_check_free_size_of(const cg_chunk_t *p, size_t sz, const cg_call_t *call)
{
    if (CG_CHECK_ON(UNLINK) &&
        CG_UNLIKELY(sz < CG_MINSIZE ||
                    sz > (size_t)(cg_heap_end(cg_heap_base(p)) - (const char *)p) - CG_HDR_SZ))
        cg_fail_FREE_CHUNK_SIZE(call, cg_chunk2mem((cg_chunk_t *)p));
}
CG_INLINE void cg_check_free_size(const cg_chunk_t *p, const cg_call_t *call)
{
    cg_check_free_size_of(p, cg_csize(p), call);
}

/* Take p, whose size and boundary tag the caller has checked, out of its
 * doubly linked bin, checking both neighbours first (once when they are
 * one: a bin holding p alone links p to its header both ways). */
CG_INLINE void cg_unlink_sized(cg_arena_t *av, cg_chunk_t *p, const cg_call_t *call)
{
    cg_chunk_t *fd = p->fd, *bk = p->bk;
    if (CG_CHECK_ON(UNLINK)) {
        cg_bin_check_link(av, fd, CG_CK_UNLINK_FD, call);
        cg_bin_check_link_or(av, bk, fd, CG_CK_UNLINK_BK, call);
        if (CG_UNLIKELY(fd->bk != p || bk->fd != p))
            cg_fail_UNLINK_NOT_BACK(call, cg_chunk2mem(p));
    }
    fd->bk = bk;
    bk->fd = fd;
    if (av->last_remainder == p)
        av->last_remainder = NULL;
}

/* Take p, of size sz (its header's, read once), out of its doubly linked
 * bin, checking its size, its boundary tag and both neighbours first. */
CG_INLINE void cg_unlink_chunk_of(cg_arena_t *av, cg_chunk_t *p, size_t sz, const cg_call_t *call)
{
    if (CG_CHECK_ON(UNLINK)) {
        cg_check_free_size_of(p, sz, call);
        if (CG_UNLIKELY(sz != cg_at(p, sz)->prev_size))
            cg_fail_UNLINK_PREV_SIZE(call, cg_chunk2mem(p));
    }
    cg_unlink_sized(av, p, call);
}
CG_INLINE void cg_unlink_chunk(cg_arena_t *av, cg_chunk_t *p, const cg_call_t *call)
{
    cg_unlink_chunk_of(av, p, cg_csize(p), call);
}

/* Put a free chunk (head and foot already set) at the front of the
 * unsorted bin.  from_free: free's insert (glibc names the two apart). */
CG_INLINE void cg_unsorted_insert(cg_arena_t *av, cg_chunk_t *c, bool from_free,
                                  const cg_call_t *call)
{
    cg_chunk_t *b = cg_bin_at(av, CG_UNSORTED);
    cg_chunk_t *f = b->fd;
    cg_bin_check_link_or(av, f, b,
                         from_free ? CG_CK_UNSORTED_FIRST_FREE : CG_CK_UNSORTED_FIRST_MALLOC, call);
    if (CG_CHECK_ON(UNLINK) && CG_UNLIKELY(f->bk != b))
        cg_fail_with(call, from_free ? CG_CK_UNSORTED_BACK_FREE : CG_CK_UNSORTED_BACK_MALLOC,
                     cg_chunk2mem(f), NULL);
    c->fd = f;
    c->bk = b;
    b->fd = c;
    f->bk = c;
}

/* Merge free chunk c of `size` with free neighbours and put the result in
 * the unsorted bin or into top.  Returns the merged size.  Caller has
 * validated c and its next chunk. */
CG_INLINE size_t cg_merge_and_bin(cg_arena_t *av, cg_chunk_t *c, size_t size,
                                  const cg_call_t *call)
{
    cg_chunk_t *next = cg_at(c, size);
    /* next's size is read after the backward merge (which writes no size
     * field of next): loaded up front, it held a register across that
     * merge's checks and cost a callee-saved register's save and restore
     * on every call (docs/performance.md, "The call as a value"). */
    if (!cg_prev_inuse(c)) {
        size_t ps = c->prev_size;
        cg_chunk_t *p = (cg_chunk_t *)((char *)c - ps);
        cg_heap_t *h = cg_heap_base(c);
        /* p must lie between the heap's first chunk and c, and be a chunk
         * (its start bit) before its header is read. */
        if (CG_CHECK_ON(UNLINK) &&
            CG_UNLIKELY(ps < CG_MINSIZE || (ps & CG_ALIGN_MASK) ||
                        ps > (size_t)((char *)c - h->data) ||
                        !cg_start_test(h, p) || cg_csize(p) != ps))
            cg_fail_CONSOLIDATE_PREV_SIZE(call, cg_chunk2mem(c));
        cg_unlink_sized(av, p, call);   /* its size is c's prev_size: checked just above */
        cg_start_clear(c);
        c = p;
        size += ps;
    }
    size_t nsize = cg_csize(next);
    if (next != av->top) {
        if (!cg_inuse(next)) {
            cg_unlink_chunk_of(av, next, nsize, call);
            cg_start_clear(next);
            size += nsize;
        } else {
            cg_clear_inuse_at(next, 0);
        }
        cg_set_head(c, size | CG_PREV_INUSE);
        cg_set_foot(c, size);
        cg_unsorted_insert(av, c, true, call);
    } else {
        size += nsize;
        cg_set_head(c, size | CG_PREV_INUSE);
        cg_start_clear(next);          /* c, already marked, is the top now */
        av->top = c;
    }
    return size;
}

/* A free that merged a chunk of CG_CONSOLIDATE_THRESHOLD or more: the
 * fastbins are consolidated and the top trimmed, as glibc's _int_free
 * does (arena.c; rare, out of line). */
void cg_arena_free_big_merge(cg_arena_t *av, const cg_call_t *call) CG_HIDDEN CG_NOINLINE;

/* The binning free of c (size, above the fastbin sizes): glibc's checks
 * (a free of the top, the next chunk's size), M_PERTURB's fill, the
 * merge.  glibc's "double free or corruption (!prev)" check ran on the
 * public path (alloc.h, cg_check_in_use, or the inline path's
 * cg_free_fast); internal callers free chunks they own. */
CG_INLINE void cg_free_binned(cg_arena_t *av, cg_chunk_t *c, size_t size, const cg_call_t *call)
{
    CG_HELD(&av->lock, call->mt);
    if (CG_UNLIKELY(c == av->top))
        cg_fail_FREE_OF_TOP(call, cg_chunk2mem(c));
    cg_check_next_size(c, size, false, call);
    cg_perturb_free(c, size);
    if (CG_UNLIKELY(cg_merge_and_bin(av, c, size, call) >= CG_CONSOLIDATE_THRESHOLD))
        cg_arena_free_big_merge(av, call);
}

/* Free a heap chunk that is going to no tcache, whole: a fast size is
 * pushed to its fastbin without the lock; any other is binned under av's
 * lock when call->mt.  c's size is read before the lock is taken: the
 * caller owns c (it passed free's checks), so nothing else changes its
 * size, but a thread freeing the chunk before c may change its PREV_INUSE
 * bit meanwhile, so the read is atomic (cg_csize_unlocked). */
CG_INLINE void cg_arena_free_whole(cg_arena_t *av, cg_chunk_t *c, const cg_call_t *call)
{
    size_t size = cg_csize_unlocked(c);
    if (size <= cg_mp.max_fast) {
        cg_fast_free(av, c, size, false, call);
        return;
    }
    cg_tok_t av_tok = cg_lock_if_op(&av->lock, call);
    CG_TEST_HOOK(CG_HOOK_ARENA_FREE_LOCKED, av);
    cg_free_binned(av, c, size, call);
    cg_unlock_if(&av->lock, av_tok);
}

#endif /* CG_BINS_H */
