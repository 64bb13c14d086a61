/*
 * fastbin.h — fastbins: per-arena LIFO lists of small chunks (32..176
 * bytes) that stay "in use" to the rest of the heap until consolidated.
 *
 * One set of inline helpers serves the single-threaded and the
 * multi-threaded paths; the compiler specialises them on `call->mt`:
 *   - push (free) is lock-free: a compare-and-swap loop when mt, a plain
 *     store otherwise; it never takes the arena lock;
 *   - pop (malloc) runs only under the arena lock when mt, so there is a
 *     single popper at a time and no ABA: a chunk cannot be popped, reused
 *     and pushed back by another thread between our read of the head and
 *     our swap (glibc's scheme since 2.26).
 * Next pointers are safe-linked (chunk.h) and checked before they are
 * followed; a popped chunk's size must match its bin.
 */
#ifndef CG_FASTBIN_H
#define CG_FASTBIN_H

#include "arena.h"
#include "checks.h"
#include "tcache.h"

/*
 * A chunk in a fastbin stays "in use" to the rest of the heap: nothing in
 * its header says it is free.  Its memory says it, as a tcache entry's
 * does: words 1 and 2 of its user memory hold the tcache key (where a
 * tcache entry keeps it) and its fastbin mark, a second secret mixed with
 * the chunk's address.  (A 32-byte chunk has 24 usable bytes: its word 2
 * is the next chunk's prev_size, unused while this chunk counts as in
 * use.)  The key sends a second free of the chunk off free's inline path,
 * which tests that key already (fastpath.h, cg_free_fast: no instruction of
 * its own there); the mark then tells a chunk in a fastbin from one in a
 * tcache in O(1) (cg_freed_key_check, tcache.c).  Both are cleared when
 * the chunk leaves its fastbin (pop, consolidation), so that no block
 * handed out, nor any chunk its memory becomes part of, carries them.
 * glibc catches a fastbin double free only at the bin's top ("fasttop").
 */
extern uintptr_t cg_fastbin_secret CG_HIDDEN;
/* The largest fastbin chunk M_MXFAST can allow (176 bytes). */
#define CG_FASTBIN_MAX_CSIZE ((CG_MXFAST_MAX + CG_SIZE_SZ + CG_ALIGN_MASK) & ~(size_t)CG_ALIGN_MASK)
CG_INLINE uintptr_t cg_fastbin_mark(const cg_chunk_t *c)
{
    return cg_fastbin_secret ^ (uintptr_t)c;
}
/* Word i of c's user memory (0: the safe-linked next pointer). */
CG_INLINE uintptr_t *cg_fastbin_word(cg_chunk_t *c, size_t i)
{
    return (uintptr_t *)cg_chunk2mem(c) + i;
}
CG_INLINE void cg_fastbin_tag(cg_chunk_t *c)
{
    *cg_fastbin_word(c, 1) = cg_tcache_key;
    *cg_fastbin_word(c, 2) = cg_fastbin_mark(c);
}
CG_INLINE void cg_fastbin_untag(cg_chunk_t *c)
{
    *cg_fastbin_word(c, 1) = 0;
    *cg_fastbin_word(c, 2) = 0;
}
/* Does c carry the mark of a chunk in a fastbin?  (c's size is a fastbin
 * size, so word 2 is its memory.) */
CG_INLINE bool cg_fastbin_marked(cg_chunk_t *c)
{
    return *cg_fastbin_word(c, 2) == cg_fastbin_mark(c);
}

/* free: the chunk after c must have a plausible size, inside the heap
 * (glibc: "free(): invalid next size").  Needs c's own size checked.  The
 * size is compared with the room left, not added to next's address: a size
 * near 2^64 (the top's, in a "house of force") would wrap the sum below
 * the heap's end (found by fuzzing).  cg_next_size_bad is the test alone;
 * cg_check_next_size reports, for a caller that holds the arena's lock
 * (or is single-threaded): without it the test can fail on a sound heap
 * (cg_fast_free). */
CG_INLINE bool cg_next_size_bad(cg_chunk_t *c, size_t size)
{
    cg_chunk_t *next = cg_at(c, size);
    size_t nhead = cg_head(next);       /* one load: relaxed loads are not merged */
    return CG_CHECK_ON(NEXT_SIZE) &&
           CG_UNLIKELY(nhead <= CG_HDR_SZ ||
                       (nhead & ~CG_FLAG_BITS) >
                           (size_t)(cg_heap_end(cg_heap_base(c)) - (char *)next));
}
CG_INLINE void cg_check_next_size(cg_chunk_t *c, size_t size, bool fast, const cg_call_t *call)
{
    if (cg_next_size_bad(c, size))
        cg_fail_with(call, fast ? CG_CK_NEXT_SIZE_FAST : CG_CK_NEXT_SIZE_NORMAL, cg_chunk2mem(c),
                     NULL);
}

/* Link c (tagged already) in front of *old, the head of fastbin fb: a
 * plain store when !mt; when mt a compare-and-swap, which fails (false)
 * when another push or a pop came first, and then leaves the new head in
 * *old, to be tested and linked again. */
CG_INLINE bool cg_fastbin_link(cg_chunk_t **fb, cg_chunk_t *c, cg_chunk_t **old, bool mt)
{
    c->fd = cg_protect(&c->fd, *old);
    if (!mt) {
        *fb = c;
        return true;
    }
    return __atomic_compare_exchange_n(fb, old, c, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/* After a push: av has fast chunks (consolidation's cue). */
CG_INLINE void cg_fastbin_note(cg_arena_t *av, bool mt)
{
    if (mt) {
        if (!__atomic_load_n(&av->have_fastchunks, __ATOMIC_RELAXED))
            __atomic_store_n(&av->have_fastchunks, 1, __ATOMIC_RELAXED);
    } else {
        av->have_fastchunks = 1;
    }
}

CG_INLINE void cg_fastbin_push(cg_arena_t *av, cg_chunk_t *c, size_t size, const cg_call_t *call)
{
    bool mt = call->mt;
    cg_chunk_t **fb = &av->fastbins[cg_fastbin_index(size)];
    cg_chunk_t *old = mt ? __atomic_load_n(fb, __ATOMIC_RELAXED) : *fb;
    if (CG_CHECK_ON(TCACHE_DOUBLE_FREE))
        cg_fastbin_tag(c);            /* before the swap publishes c */
    for (;;) {
        if (CG_CHECK_ON(FASTTOP) && CG_UNLIKELY(old == c))
            cg_fail_FASTTOP(call, cg_chunk2mem(c));
        if (cg_fastbin_link(fb, c, &old, mt))
            break;
    }
    cg_fastbin_note(av, mt);
}

/* A link read from a fastbin must be a chunk of ours, aligned and
 * readable (below its heap's committed end), before we follow it; check:
 * the report (malloc's or malloc_consolidate's).  Under av's lock. */
CG_INLINE void cg_fastbin_check_link(const cg_arena_t *av, const cg_chunk_t *v, cg_check_t check,
                                     const cg_call_t *call)
{
    if (CG_CHECK_ON(SAFE_LINK) && CG_UNLIKELY(!cg_aligned_ok(v) || !cg_arena_readable(av, v)))
        cg_fail_with(call, check, v, NULL);
}

/* A chunk taken from fastbin idx must have that bin's size class. */
CG_INLINE void cg_fastbin_check_index(const cg_chunk_t *v, size_t idx, cg_check_t check,
                                      const cg_call_t *call)
{
    if (CG_CHECK_ON(FASTBIN_INDEX) &&
        CG_UNLIKELY(cg_csize(v) < CG_MINSIZE || cg_fastbin_index(cg_csize(v)) != idx))
        cg_fail_with(call, check, cg_chunk2mem((cg_chunk_t *)v), NULL);
}

/* Pop under the arena lock (call->mt) or single-threaded; NULL when
 * empty.  The chunk keeps its key and mark (cg_fastbin_untag them). */
CG_INLINE cg_chunk_t *cg_fastbin_pop(cg_arena_t *av, size_t idx, const cg_call_t *call)
{
    bool mt = call->mt;
    CG_HELD(&av->lock, mt);
    cg_chunk_t **fb = &av->fastbins[idx];
    cg_chunk_t *v = mt ? __atomic_load_n(fb, __ATOMIC_ACQUIRE) : *fb;
    for (;;) {
        if (v == NULL)
            return NULL;
        cg_fastbin_check_link(av, v, CG_CK_FASTBIN_LINK, call);
        cg_chunk_t *n = cg_reveal(&v->fd, v->fd);
        if (CG_CHECK_ON(SAFE_LINK) && CG_UNLIKELY(n == v))
            cg_fail_FASTBIN_SELF_LINK(call, cg_chunk2mem((cg_chunk_t *)v));
        if (!mt) {
            *fb = n;
            break;
        }
        if (__atomic_compare_exchange_n(fb, &v, n, true, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
            break;
    }
    cg_fastbin_check_index(v, idx, CG_CK_FASTBIN_INDEX, call);
    return v;      /* still tagged: the caller checks and untags it */
}

CG_INLINE void cg_perturb_free(cg_chunk_t *c, size_t size)
{
    if (CG_UNLIKELY(cg_mp.free_fill >= 0))
        __builtin_memset(cg_chunk2mem(c), cg_mp.free_fill, size - CG_HDR_SZ);
}

/* Free a chunk of a fastbin size: next-size check, M_PERTURB fill, push.
 * No lock is held: when the next chunk is the top, another thread may be
 * trimming the heap under the lock, its end already lowered and the top's
 * size not yet (or growing it, the other way round), so a failed test is
 * made again under the lock before it is reported (glibc's _int_free does
 * the same for its fastbin case).  locked: the caller holds av's lock (or
 * call->mt is false), and a failed test is reported at once. */
CG_INLINE void cg_fast_free(cg_arena_t *av, cg_chunk_t *c, size_t size, bool locked,
                            const cg_call_t *call)
{
    if (cg_next_size_bad(c, size))
        cg_fast_free_recheck(av, c, size, locked, call);
    cg_perturb_free(c, size);
    cg_fastbin_push(av, c, size, call);
}

/* cg_fast_free of a single-threaded process when every one of its checks
 * passes and no M_PERTURB fill is asked for: true, c pushed.  False when
 * a check fails or a fill is due, with nothing done, for cg_fast_free
 * (which makes the same tests and reports).  Needs no call value: the
 * reporting branches are cg_fast_free's, so a caller that has none to
 * build yet (free's hand-off, entry/api.c) builds it only for them. */
CG_INLINE bool cg_fast_free_quick(cg_arena_t *av, cg_chunk_t *c, size_t size)
{
    cg_chunk_t **fb = &av->fastbins[cg_fastbin_index(size)];
    cg_chunk_t *old = *fb;
    if (cg_next_size_bad(c, size) || CG_UNLIKELY(cg_mp.free_fill >= 0) ||
        (CG_CHECK_ON(FASTTOP) && CG_UNLIKELY(old == c)))
        return false;
    if (CG_CHECK_ON(TCACHE_DOUBLE_FREE))
        cg_fastbin_tag(c);
    cg_fastbin_link(fb, c, &old, false);
    cg_fastbin_note(av, false);
    return true;
}

/* Free a heap chunk that is not going to the tcache: fast sizes are pushed
 * without the lock; the rest takes the arena lock when call->mt. */
CG_INLINE void cg_arena_free(cg_arena_t *av, cg_chunk_t *c, const cg_call_t *call)
{
    size_t size = cg_csize(c);
    if (size <= cg_mp.max_fast)
        cg_fast_free(av, c, size, false, call);
    else
        cg_arena_free_slow(av, c, call);
}

#endif /* CG_FASTBIN_H */
