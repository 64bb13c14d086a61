/*
 * alloc.h — the malloc-family logic behind the exported names: the inline
 * fast paths (tcache hits, no function call) and the out-of-line slow paths.
 */
#ifndef CG_ALLOC_H
#define CG_ALLOC_H

#include "tcache.h"

/* Slow paths; `caller` is the program's return address, for reports.
 * Contracts are those of the standard functions (glibc 2.36). */
void  *cg_malloc_slow(size_t n, uintptr_t caller) CG_HIDDEN CG_NOINLINE;
void   cg_free_slow(void *mem, uintptr_t caller) CG_HIDDEN CG_NOINLINE;
void  *cg_calloc_slow(size_t nmemb, size_t size, uintptr_t caller) CG_HIDDEN CG_NOINLINE;
void  *cg_realloc_impl(void *mem, size_t n, uintptr_t caller) CG_HIDDEN;
void  *cg_reallocarray_impl(void *mem, size_t nmemb, size_t size, uintptr_t caller) CG_HIDDEN;
void  *cg_memalign_impl(size_t align, size_t n, uintptr_t caller, const char *op) CG_HIDDEN;
int    cg_posix_memalign_impl(void **memptr, size_t align, size_t n, uintptr_t caller) CG_HIDDEN;
void  *cg_valloc_impl(size_t n, bool round_size, uintptr_t caller, const char *op) CG_HIDDEN;
size_t cg_usable_size_impl(void *mem, uintptr_t caller) CG_HIDDEN;
void   cg_free_sized_impl(void *mem, size_t align, size_t n, uintptr_t caller, const char *op) CG_HIDDEN;

/* Fast malloc: a tcache hit, or the slow path. */
CG_INLINE void *cg_malloc_fast(size_t n, uintptr_t caller)
{
    cg_tcache_t *tc = cg_self.tcache;
    if (CG_LIKELY(tc != NULL && n <= CG_TCACHE_MAX_REQ)) {
        size_t idx = cg_csize2tidx(cg_request2size(n));
        if (CG_LIKELY(idx < cg_mp.tcache_fast_bins && tc->entries[idx] != NULL)) {
            tc->n_malloc++;
            return cg_tcache_get(tc, idx);
        }
    }
    return cg_malloc_slow(n, caller);
}

/* Fast free: true when mem went into the tcache.  Every test here is one the
 * slow path repeats with a report; anything unusual (not ours, a size that
 * is not a tcache class, a next chunk saying mem is free, a freed-entry key)
 * simply falls through to it. */
CG_INLINE bool cg_free_fast(cg_tcache_t *tc, void *mem)
{
    if (!cg_heap_owns(mem))
        return false;
    cg_chunk_t *c = cg_mem2chunk(mem);
    size_t raw = c->size;
    size_t idx = (raw >> 4) - 2;
    if (idx >= cg_mp.tcache_fast_bins || (raw & CG_IS_MMAPPED) ||
        tc->counts[idx] >= cg_mp.tcache_count)
        return false;
    cg_chunk_t *next = cg_at(c, raw & ~CG_FLAG_BITS);
    if ((char *)next + CG_HDR_SZ > cg_heap_end(cg_heap_base(mem)) || !cg_prev_inuse(next))
        return false;
    if (((cg_tentry_t *)mem)->key == cg_tcache_key)
        return false;
    cg_tcache_put(tc, idx, mem);
    tc->n_free++;
    return true;
}

#endif /* CG_ALLOC_H */
