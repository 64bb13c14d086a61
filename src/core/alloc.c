/*
 * alloc.c — the core's chunk source and pointer validation (alloc.h): the
 * out-of-line pieces, and the reports of the checks made on a pointer the
 * program hands back.
 */
#include "alloc.h"

#include <stdint.h>

#include "mode.h"

cg_chunk_t *cg_from_other_arena(cg_arena_t *failed, size_t nb, size_t align,
                                const cg_call_t *call, cg_tcache_t *tc, bool *fresh)
{
    cg_arena_t *av = cg_arena_retry(failed, call);
    return av ? cg_from_arena(av, nb, align, call, tc, fresh) : NULL;
}

CG_HOT_TEXT void *cg_malloc_mem(size_t n, const cg_call_t *call)
{
    return cg_malloc_mem_inline(n, call);
}

CG_HOT_TEXT void cg_consolidate_before_big(const cg_call_t *call)
{
    /* The thread's arena, without attaching one: a thread that has none
     * has freed nothing into one it uses (the main arena while
     * single-threaded). */
    cg_arena_t *av = cg_self.arena != NULL ? cg_self.arena : &cg_main_arena;
    if (!CG_LOAD(av->have_fastchunks))
        return;
    cg_tok_t av_tok = cg_lock_if_op(&av->lock, call);
    if (av->top != NULL && CG_LOAD(av->have_fastchunks))
        cg_arena_consolidate(av, call);
    cg_unlock_if(&av->lock, av_tok);
}

/* Could x be a free-list link of av: a bin header in av, or a readable
 * chunk address in one of our heaps? */
static bool link_readable(const cg_arena_t *av, const cg_chunk_t *x)
{
    return (uintptr_t)x - (uintptr_t)av < sizeof *av || cg_heap_contains(x);
}

void cg_report_not_in_use(cg_chunk_t *c, size_t size, const cg_call_t *call)
{
    char detail[224];
    void *mem = cg_chunk2mem(c);
    cg_heap_t *h = cg_heap_base(c);
    /* next starts a chunk or is the fencepost closing an old heap: the
     * size check passed (cg_check_heap_size) */
    cg_chunk_t *next = cg_at(c, size);
    size_t head = cg_head(next), nsize = head & ~CG_FLAG_BITS;
    char *end = cg_heap_end(h), *nend = (char *)next + nsize;
    cg_fmt(detail, sizeof detail, "the chunk after it, at %p, has the size|flags word 0x%x (the "
           "8 bytes at %p)", (void *)next, head, (void *)&next->size);
    /* A size no chunk after c can have: below the minimum, not a multiple
     * of 16, mmapped, or not ending where a chunk starts or the heap ends.
     * (The fencepost, whose sizes are our own, is judged by its links.) */
    if (next != CG_LOAD(h->fence) &&
        ((head & CG_IS_MMAPPED) || nsize < CG_MINSIZE || (nsize & CG_ALIGN_MASK) ||
         nsize > (size_t)(end - (char *)next) ||
         (nend != end && !cg_start_test(h, nend) && (cg_chunk_t *)nend != CG_LOAD(h->fence))))
        cg_fail_with(call, CG_CK_NOT_IN_USE_NEXT_SIZE, mem, detail);
    /* A block freed before sits in a bin: its links lead to neighbours
     * (or the bin) that point back at it, and the next chunk's prev_size
     * is its size.  Read without the arena lock, each link tested before
     * it is followed: this is the report. */
    cg_arena_t *av = cg_arena_of(c);
    cg_chunk_t *fd = c->fd, *bk = c->bk;
    if (next->prev_size == size && link_readable(av, fd) && link_readable(av, bk) &&
        fd->bk == c && bk->fd == c)
        cg_fail_NOT_IN_USE(call, mem);
    cg_fail_with(call, CG_CK_NOT_IN_USE_FLAG, mem, detail);
}

void cg_report_bad_size(cg_chunk_t *c, cg_use_t use, const cg_call_t *call)
{
    /* A "chunk" whose size reaches exactly the heap's end is the top chunk:
     * the free space a block turns into once freed and merged. */
    cg_heap_t *h = cg_heap_base(c);
    if ((char *)c + cg_csize(c) == cg_heap_end(h)) {
        /* ...had a block ever started here.  While the heap's clean mark
         * is not past top's header, top was never carved at this address;
         * and where the mode puts a leading redzone before a block, a
         * chunk's first byte of data is never a block's pointer. */
        if (cg_mode.block_lead == 0 && (char *)c + CG_HDR_SZ < CG_LOAD(h->clean_from))
            cg_fail_with(call, CG_CK_FOR_USE(TOP_START, use), cg_chunk2mem(c), NULL);
        char detail[224];
        if (cg_mode.block_lead != 0)
            cg_fmt(detail, sizeof detail, "it is the start of the top chunk at %p (%zu bytes); "
                   "a %s-mode block's pointer is at least %zu bytes further into its chunk "
                   "(after its leading redzone)", (void *)c, cg_csize(c), cg_mode.name,
                   cg_mode.block_lead);
        else
            cg_fmt(detail, sizeof detail, "it is the start of the top chunk at %p (%zu bytes), "
                   "which no block has reached yet", (void *)c, cg_csize(c));
        cg_fail_with(call, CG_CK_FOR_USE(TOP_START_NO_BLOCK, use), cg_chunk2mem(c), detail);
    }
    cg_fail_BAD_SIZE(call, cg_chunk2mem(c));
}

/* Did a block start at mem once, and was it freed and merged into the
 * free chunk that ends at pend (mem 16-byte aligned, inside it)?  Memory
 * no chunk has reached yet (from the heap's clean mark up) never held a
 * block; elsewhere the stale header such a block leaves must still be
 * there: a size a chunk can have, ending inside that free chunk.  (Where
 * the memory held a block's data, that data can look like a header: then
 * this says yes.) */
static bool held_a_block(const cg_heap_t *h, const void *mem, const char *pend)
{
    /* the chunk such a block had: its memory is the mode's lead before mem */
    const char *c = (const char *)mem - cg_mode.block_lead - CG_HDR_SZ;
    if ((const char *)mem > CG_LOAD(h->clean_from) || c < h->data)
        return false;
    size_t head = ((const cg_chunk_t *)c)->size, size = head & ~CG_FLAG_BITS;
    return !(head & CG_IS_MMAPPED) && size >= CG_MINSIZE && !(size & CG_ALIGN_MASK) &&
           size <= (size_t)(pend - c);
}

/* A pointer into one of our heaps that is not a chunk start: say what it
 * points into, as precisely as the start bitmap allows. */
void cg_report_not_a_block(void *mem, cg_use_t use, const cg_call_t *call)
{
    char detail[160];
    cg_heap_t *h = cg_heap_base(mem);
    cg_chunk_t *p = cg_heap_find_chunk(h, (char *)mem - 1);
    size_t psize = p ? cg_csize(p) : 0;
    char *pend = p ? (char *)p + psize : NULL;
    if (p == NULL || (char *)mem >= pend || pend > cg_heap_end(h)) {
        cg_fail_with(call, CG_CK_FOR_USE(NO_BLOCK, use), mem, NULL);
    } else if (pend == cg_heap_end(h) || !cg_prev_inuse((cg_chunk_t *)pend)) {
        /* free space: the top chunk, or a free chunk in a bin */
        bool top = pend == cg_heap_end(h);
        if (!cg_aligned_ok(mem))
            cg_fail_with(call, CG_CK_FOR_USE(MISALIGNED_FREE_MEMORY, use), mem, NULL);
        if (held_a_block(h, mem, pend))
            cg_fail_with(call, top ? CG_CK_FOR_USE(FREED_TOP, use) : CG_CK_FOR_USE(FREED_BIN, use),
                         mem, NULL);
        cg_fmt(detail, sizeof detail, "it is %zu bytes into %s at %p (%zu bytes)",
               (size_t)((char *)mem - (char *)p), top ? "the top chunk" : "a free chunk",
               (void *)p, psize);
        cg_fail_with(call, CG_CK_FOR_USE(IN_FREE_SPACE, use), mem, detail);
    } else {
        size_t off = (size_t)((char *)mem - (char *)cg_chunk2mem(p));
        size_t usable = psize - CG_SIZE_SZ;
        if ((char *)mem < (char *)cg_chunk2mem(p)) {
            cg_fmt(detail, sizeof detail, "it is %zu bytes before a %zu-byte block at %p",
                   (size_t)((char *)cg_chunk2mem(p) - (char *)mem), usable, cg_chunk2mem(p));
            cg_fail_with(call, CG_CK_FOR_USE(IN_HEADER, use), mem, detail);
        }
        cg_fmt(detail, sizeof detail, "it is %zu bytes inside a %zu-byte block at %p%s",
               off, usable, cg_chunk2mem(p),
               cg_aligned_ok(mem) ? "" : " (and not 16-byte aligned)");
        cg_fail_with(call, CG_CK_FOR_USE(INTERIOR, use), mem, detail);
    }
}

CG_HOT_TEXT cg_chunk_t *cg_owned_big(void *mem, cg_use_t use, const cg_call_t *call, bool *big)
{
    cg_chunk_t *c = cg_mem2chunk(mem);
    bool header_ok = true;
    if (cg_aligned_ok(mem) && cg_big_owns(c, call, &header_ok)) {
        if (CG_CHECK_ON(FREE_SIZE) && CG_UNLIKELY(!header_ok))
            cg_fail_BIG_HEADER(call, mem);
        *big = true;
        return c;
    }
    if (CG_CHECK_ON(OWNERSHIP) && cg_aligned_ok(mem) && cg_big_recently_freed(c, call))
        cg_fail_with(call, CG_CK_FOR_USE(BIG_FREED, use), mem, NULL);
    if (CG_CHECK_ON(OWNERSHIP))
        cg_fail_with(call, CG_CK_FOR_USE(NOT_OURS, use), mem, NULL);
    *big = cg_is_mmapped(c);   /* check compiled out: trust the header, as glibc does */
    return c;
}

cg_chunk_t *cg_aligned_chunk(size_t nb, size_t align, const cg_call_t *call)
{
    cg_chunk_t *c = NULL;
    if (nb + align >= CG_LOAD(cg_mp.mmap_threshold) && (int)CG_LOAD(cg_mp.n_mmaps) < cg_mp.n_mmaps_max) {
        cg_consolidate_before_big(call);    /* glibc's _int_memalign asks for a large chunk */
        c = cg_big_alloc(nb, align, call);
    }
    bool fresh;                       /* unused: memalign promises no zeroing */
    if (c == NULL)
        c = cg_from_arenas(nb, align, call, NULL, &fresh);
    if (c == NULL)
        c = cg_big_alloc(nb, align, call);
    return c;
}

cg_chunk_t *cg_core_alloc(size_t nb, size_t align, const cg_call_t *call)
{
    bool fresh;
    return align <= CG_ALIGN ? cg_alloc_chunk(nb, call, NULL, &fresh)
                             : cg_aligned_chunk(nb, align, call);
}

void cg_core_free(void *mem, const cg_call_t *call)
{
    bool big;
    cg_chunk_t *c = cg_owned_chunk(mem, CG_USE_FREE, call, &big);
    cg_release(c, big, call, NULL);
}
