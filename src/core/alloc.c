/*
 * alloc.c — the core's chunk source and pointer validation (alloc.h): the
 * out-of-line pieces, and the reports of the checks made on a pointer the
 * program hands back.
 */
#include "alloc.h"

#include <stdint.h>

cg_chunk_t *cg_from_other_arena(cg_arena_t *failed, size_t nb, size_t align, bool mt,
                                cg_tcache_t *tc, bool *fresh)
{
    cg_arena_t *av = cg_arena_retry(failed, mt);
    return av ? cg_from_arena(av, nb, align, mt, tc, fresh) : NULL;
}

void *cg_malloc_mem(size_t n, bool mt, cg_tcache_t *tc)
{
    return cg_malloc_mem_inline(n, mt, tc);
}

/* The report for a pointer to a block already freed: a double free when
 * it is freed (or reallocated) again, an invalid pointer when it is only
 * asked about (malloc_usable_size), as debug mode says too. */
static cg_error_t freed_kind(cg_error_t kind)
{
    return kind == CG_E_INVALID_POINTER ? kind : CG_E_DOUBLE_FREE;
}

void cg_report_bad_size(cg_chunk_t *c, cg_error_t kind)
{
    /* A "chunk" whose size reaches exactly the heap's end is the top chunk:
     * the free space a block turns into once freed and merged. */
    if ((char *)c + cg_csize(c) == cg_heap_end(cg_heap_base(c)))
        cg_report(freed_kind(kind), cg_chunk2mem(c),
                  "the pointer is the start of the top chunk (free space): the "
                  "block was already freed and merged into it (free-size check)",
                  kind == CG_E_INVALID_POINTER ? NULL : "double free or corruption (top)");
    cg_report(CG_E_HEAP_CORRUPTION, cg_chunk2mem(c),
              "the block's size field is impossible (overwritten?): it is below "
              "the minimum, not a multiple of 16, flagged as mmapped, or runs past "
              "its heap",
              "free(): invalid size");
}

void cg_report_bad_next(cg_chunk_t *c)
{
    cg_report(CG_E_HEAP_CORRUPTION, cg_chunk2mem(c),
              "the block's size field does not match the heap's chunk boundaries: it "
              "leads into the middle of a chunk or swallows whole neighbours "
              "(overwritten, e.g. by an overflow of the block before it)",
              "free(): invalid size");
}

/* A pointer into one of our heaps that is not a chunk start: say what it
 * points into, as precisely as the start bitmap allows. */
void cg_report_not_a_block(void *mem, cg_error_t kind, const char *glibc)
{
    char msg[256];
    cg_heap_t *h = cg_heap_base(mem);
    cg_chunk_t *p = cg_heap_find_chunk(h, (char *)mem - 1);
    size_t psize = p ? cg_csize(p) : 0;
    char *pend = p ? (char *)p + psize : NULL;
    if (p == NULL || (char *)mem >= pend || pend > cg_heap_end(h)) {
        cg_report(kind, mem, "the pointer is inside a chunkguard heap but in no "
                  "block (heap metadata or unused space)", glibc);
    } else if (pend == cg_heap_end(h) || !cg_prev_inuse((cg_chunk_t *)pend)) {
        /* free space: the top chunk, or a free chunk in a bin */
        if (cg_aligned_ok(mem))
            cg_report(freed_kind(kind), mem, "the pointer lies inside free memory: "
                      "most likely a block freed before and merged with its free "
                      "neighbours", pend == cg_heap_end(h) ? "double free or corruption (top)"
                                                           : glibc);
        cg_report(kind, mem, "the pointer is not 16-byte aligned and lies inside free "
                  "memory", glibc);
    } else {
        size_t off = (size_t)((char *)mem - (char *)cg_chunk2mem(p));
        size_t usable = psize - CG_SIZE_SZ;
        if ((char *)mem < (char *)cg_chunk2mem(p))
            cg_fmt(msg, sizeof msg, "the pointer is %zu bytes before a %zu-byte block "
                   "at %p (inside its header)", (size_t)((char *)cg_chunk2mem(p) - (char *)mem),
                   usable, cg_chunk2mem(p));
        else
            cg_fmt(msg, sizeof msg, "the pointer is %zu bytes inside a %zu-byte block "
                   "at %p, not its start%s", off, usable, cg_chunk2mem(p),
                   cg_aligned_ok(mem) ? "" : " (and not 16-byte aligned)");
        cg_report(kind, mem, msg, glibc);
    }
}

cg_chunk_t *cg_owned_big(void *mem, cg_error_t kind, const char *glibc, bool mt, bool *big)
{
    cg_chunk_t *c = cg_mem2chunk(mem);
    bool header_ok = true;
    if (cg_aligned_ok(mem) && cg_big_owns(c, mt, &header_ok)) {
        if (CG_SWITCH(CG_CHECK_FREE_SIZE) && CG_UNLIKELY(!header_ok))
            cg_report(CG_E_HEAP_CORRUPTION, mem,
                      "the header of an mmap'd block disagrees with its mapping "
                      "(overwritten?)", "munmap_chunk(): invalid pointer");
        *big = true;
        return c;
    }
    if (CG_SWITCH(CG_CHECK_OWNERSHIP) && cg_aligned_ok(mem) && cg_big_recently_freed(c, mt))
        cg_report(freed_kind(kind), mem, "the block was an mmap'd big block that has "
                  "already been freed (unmapped; ownership check)",
                  kind == CG_E_INVALID_POINTER ? glibc : "munmap_chunk(): invalid pointer");
    if (CG_SWITCH(CG_CHECK_OWNERSHIP))
        cg_report(kind, mem, "the pointer was not returned by chunkguard: it is in "
                  "none of our heaps and does not start a live big block of ours (stack, "
                  "global, another mapping, garbage, a pointer inside a big block, or a big "
                  "block already freed)", glibc);
    *big = cg_is_mmapped(c);   /* check compiled out: trust the header, as glibc does */
    return c;
}

void cg_report_not_in_use(cg_chunk_t *c)
{
    cg_report(CG_E_DOUBLE_FREE, cg_chunk2mem(c),
              "the chunk after this block says the block is already free",
              "double free or corruption (!prev)");
}

cg_chunk_t *cg_aligned_chunk(size_t nb, size_t align, bool mt)
{
    cg_chunk_t *c = NULL;
    if (nb + align >= CG_LOAD(cg_mp.mmap_threshold) && (int)CG_LOAD(cg_mp.n_mmaps) < cg_mp.n_mmaps_max)
        c = cg_big_alloc(nb, align, mt);
    bool fresh;                       /* unused: memalign promises no zeroing */
    if (c == NULL)
        c = cg_from_arenas(nb, align, mt, NULL, &fresh);
    if (c == NULL)
        c = cg_big_alloc(nb, align, mt);
    return c;
}

cg_chunk_t *cg_core_alloc(size_t nb, size_t align, bool mt)
{
    bool fresh;
    return align <= CG_ALIGN ? cg_alloc_chunk(nb, mt, NULL, &fresh) : cg_aligned_chunk(nb, align, mt);
}

void cg_core_free(void *mem, bool mt)
{
    bool big;
    cg_chunk_t *c = cg_owned_chunk(mem, CG_E_INVALID_FREE, "free(): invalid pointer", mt, &big);
    cg_release(c, big, mt, NULL);
}
