/*
 * bigblock.h — big blocks: chunks with a mapping of their own (IS_MMAPPED),
 * for requests at or above the mmap threshold.
 *
 * A big block's chunk header sits at the start of the user pointer's page
 * run, or further in when an alignment was asked for: prev_size holds the
 * offset from the mapping's start to the chunk, size the rest of the
 * mapping.  Usable bytes: size - 16.
 *
 * Every big block is also entered in a registry (an open-addressing hash
 * table keyed by chunk address, in its own mapping) so that free can decide
 * "is this one of our big blocks?" without reading anything at the pointer.
 * call: the call served (base/call.h); the registry's lock is taken for it
 * when call->mt.
 */
#ifndef CG_BIGBLOCK_H
#define CG_BIGBLOCK_H

#include "call.h"
#include "chunk.h"

cg_chunk_t *cg_big_alloc(size_t nb, size_t align, const cg_call_t *call) CG_HIDDEN;
/* Is c the chunk of a live big block?  Also checks the header against the
 * registry; *header_ok is false when the header was overwritten. */
bool cg_big_owns(const cg_chunk_t *c, const cg_call_t *call, bool *header_ok) CG_HIDDEN;
void cg_big_free(cg_chunk_t *c, const cg_call_t *call) CG_HIDDEN;
/* Resize with mremap; NULL if it cannot (caller copies). */
cg_chunk_t *cg_big_resize(cg_chunk_t *c, size_t nb, const cg_call_t *call) CG_HIDDEN;
CG_INLINE size_t cg_big_usable(const cg_chunk_t *c) { return cg_csize(c) - CG_HDR_SZ; }
/* Could live big block c have been mapped for a request of n bytes?  Its
 * mapping is n's chunk size and a size word rounded up to whole pages
 * when no alignment moved the chunk in (prev_size 0: cg_big_alloc and
 * cg_big_resize); with one, n is at most its usable bytes.  The big-block
 * counterpart of cg_heap_chunk_fits. */
CG_INLINE bool cg_big_fits(const cg_chunk_t *c, size_t n)
{
    if (n > cg_big_usable(c))
        return false;
    return c->prev_size != 0 || CG_PAGE_ROUND(cg_request2size(n) + CG_SIZE_SZ) == cg_csize(c);
}
/* Was c one of the last 1024 big blocks freed (bigblock.c, RECENT)?
 * Only consulted when a pointer is about to be reported as not ours. */
bool cg_big_recently_freed(const cg_chunk_t *c, const cg_call_t *call) CG_HIDDEN;
/* Call fn(c, maplen, arg) for every registered big block (c: its chunk,
 * maplen: the length of its whole mapping).  The caller holds the registry
 * lock (cg_big_lock_all); fn must not allocate or free.  For the heap
 * verifier. */
void cg_big_each_locked(void (*fn)(const cg_chunk_t *c, size_t maplen, void *arg),
                        void *arg) CG_HIDDEN;
/* The live big block whose mapping ends at or below address a and nearest
 * to it, at most max bytes below; NULL when there is none.  *end: the end
 * of its mapping.  For the report of a fault past a block
 * (debug/describe.c), O(registry capacity). */
const cg_chunk_t *cg_big_below(uintptr_t a, size_t max, const cg_call_t *call, uintptr_t *end)
    CG_HIDDEN;
/* The live big block whose mapping holds address a, or NULL; *start,
 * *end: its mapping.  Reads the registry, never the block's pages (the
 * program may have made them unreadable): for the fault handler, which
 * counts a fault on a live big block as one on chunkguard's memory.
 * O(registry capacity). */
const cg_chunk_t *cg_big_holding(uintptr_t a, const cg_call_t *call, uintptr_t *start,
                                 uintptr_t *end) CG_HIDDEN;
void cg_big_lock_all(const cg_call_t *call) CG_HIDDEN;
void cg_big_unlock_all(bool child) CG_HIDDEN;

/* Count len bytes of mmap'd memory in (sign > 0) or out (sign < 0) of the
 * statistics mallinfo2, malloc_stats and malloc_info give (hblks, hblkhd
 * and their maxima): every big block's mapping, and guard mode's ranges
 * (debug/guardpool.c).  Thread-safe (atomic adds when mt). */
void cg_big_account(size_t len, int sign, bool mt) CG_HIDDEN;

#endif /* CG_BIGBLOCK_H */
