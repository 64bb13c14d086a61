/*
 * chunk.h — the chunk layout (ptmalloc's boundary tags) and tiny helpers.
 *
 * A chunk starts 16 bytes before the pointer handed to the program:
 *
 *     chunk -> | prev_size | size|flags | user memory ...          |
 *                                       ^ mem = chunk + 16
 *
 * prev_size is meaningful only while the previous chunk is free; while it is
 * in use those 8 bytes belong to the previous chunk's user memory, so a heap
 * chunk of size S gives S - 8 usable bytes.  The low bits of size are flags:
 * PREV_INUSE (the chunk before this one is in use) and IS_MMAPPED (the chunk
 * is a big block with its own mapping).  Free chunks keep fd/bk list links
 * in their user memory.  Layout and rules follow glibc's malloc.c.
 */
#ifndef CG_CHUNK_H
#define CG_CHUNK_H

#include "config.h"
#include "platform.h"

typedef struct cg_chunk {
    size_t prev_size;            /* size of the previous chunk, if it is free */
    size_t size;                 /* this chunk's size | flags                 */
    struct cg_chunk *fd;         /* free chunks: next in bin                  */
    struct cg_chunk *bk;         /* free chunks: previous in bin              */
} cg_chunk_t;

#define CG_PREV_INUSE  ((size_t)1)
#define CG_IS_MMAPPED  ((size_t)2)
#define CG_FLAG_BITS   ((size_t)7)

CG_INLINE void *cg_chunk2mem(cg_chunk_t *c) { return (char *)c + CG_HDR_SZ; }
CG_INLINE cg_chunk_t *cg_mem2chunk(const void *m)
{
    return (cg_chunk_t *)((char *)m - CG_HDR_SZ);
}
/*
 * Header words are read without the arena lock on the free paths (the next
 * chunk's PREV_INUSE bit, a neighbour's size) while the lock holder may be
 * rewriting them.  Every access is therefore a relaxed atomic: a plain mov
 * on x86_64, but a well-defined program (and a clean ThreadSanitizer run).
 * Writers are serialised by the arena lock, so read-modify-write of a header
 * is a relaxed load then a relaxed store.  The flag a lock-free reader uses
 * (PREV_INUSE of the chunk after its own in-use chunk) is never changed by
 * anyone but the owner of that in-use chunk.
 */
#ifdef CG_HEADERS_LOCKED
/* A translation unit whose code runs only under the owning arena's lock (or
 * single-threaded) defines CG_HEADERS_LOCKED before its first include: its
 * header reads cannot race, because every header write happens under that
 * lock, so they are plain loads the compiler may merge.  (Relaxed atomic
 * loads may not be merged: each cg_csize would be a reload.) */
CG_INLINE size_t cg_head(const cg_chunk_t *c) { return c->size; }
#else
CG_INLINE size_t cg_head(const cg_chunk_t *c) { return __atomic_load_n(&c->size, __ATOMIC_RELAXED); }
#endif
CG_INLINE void cg_set_head(cg_chunk_t *c, size_t sz_flags)
{
    __atomic_store_n(&c->size, sz_flags, __ATOMIC_RELAXED);
}
CG_INLINE size_t cg_csize(const cg_chunk_t *c) { return cg_head(c) & ~CG_FLAG_BITS; }
/* c's size read outside its arena's lock, in a unit that defines
 * CG_HEADERS_LOCKED: always a relaxed atomic load, since another thread
 * freeing the chunk before c may be changing c's PREV_INUSE bit under the
 * lock meanwhile (the size bits are c's owner's alone). */
CG_INLINE size_t cg_csize_unlocked(const cg_chunk_t *c)
{
    return __atomic_load_n(&c->size, __ATOMIC_RELAXED) & ~CG_FLAG_BITS;
}
CG_INLINE bool cg_prev_inuse(const cg_chunk_t *c) { return cg_head(c) & CG_PREV_INUSE; }
CG_INLINE bool cg_is_mmapped(const cg_chunk_t *c) { return cg_head(c) & CG_IS_MMAPPED; }
CG_INLINE cg_chunk_t *cg_at(const void *c, size_t off)
{
    return (cg_chunk_t *)((char *)c + off);
}
CG_INLINE cg_chunk_t *cg_next(const cg_chunk_t *c) { return cg_at(c, cg_csize(c)); }
/* In use = the next chunk's PREV_INUSE bit. */
CG_INLINE bool cg_inuse(const cg_chunk_t *c) { return cg_prev_inuse(cg_next(c)); }
CG_INLINE void cg_set_inuse_at(cg_chunk_t *c, size_t off)
{
    cg_chunk_t *n = cg_at(c, off);
    cg_set_head(n, cg_head(n) | CG_PREV_INUSE);
}
CG_INLINE void cg_clear_inuse_at(cg_chunk_t *c, size_t off)
{
    cg_chunk_t *n = cg_at(c, off);
    cg_set_head(n, cg_head(n) & ~CG_PREV_INUSE);
}
/* Keep the flags, change the size. */
CG_INLINE void cg_set_head_size(cg_chunk_t *c, size_t sz)
{
    cg_set_head(c, (cg_head(c) & CG_FLAG_BITS) | sz);
}
CG_INLINE void cg_set_foot(cg_chunk_t *c, size_t sz) { cg_at(c, sz)->prev_size = sz; }

/* Request to chunk size: add the size word, round up to 16, at least
 * MINSIZE.  Callers have already rejected requests above PTRDIFF_MAX. */
CG_INLINE size_t cg_request2size(size_t req)
{
    size_t sz = (req + CG_SIZE_SZ + CG_ALIGN_MASK) & ~(size_t)CG_ALIGN_MASK;
    return sz < CG_MINSIZE ? CG_MINSIZE : sz;
}
/* The largest request we accept: PTRDIFF_MAX less room for rounding and the
 * header, so that every size computation below cannot overflow. */
#define CG_MAX_REQUEST ((size_t)PTRDIFF_MAX - 2 * CG_MINSIZE)

CG_INLINE bool cg_aligned_ok(const void *p) { return ((uintptr_t)p & CG_ALIGN_MASK) == 0; }

/* Usable bytes of an in-use chunk (not mmapped). */
CG_INLINE size_t cg_heap_usable(const cg_chunk_t *c) { return cg_csize(c) - CG_SIZE_SZ; }

/* Could in-use heap chunk c (not mmapped) have been handed out for a
 * request of n bytes?  Its size is n's chunk size, or 16 more: the core
 * never splits off a remainder smaller than MINSIZE (glibc's rule: every
 * split in arena.c, the aligned chunk's tail, realloc in place), so a
 * request's chunk is smaller than its chunk size plus MINSIZE.  For a
 * sized delete's check in fast mode, which knows only the chunk. */
CG_INLINE bool cg_heap_chunk_fits(const cg_chunk_t *c, size_t n)
{
    return n <= CG_MAX_REQUEST && cg_csize(c) - cg_request2size(n) < CG_MINSIZE;
}

/*
 * Safe-linking of singly linked free lists (tcache, fastbins): a next
 * pointer is stored XORed with the address of the slot that holds it shifted
 * right by 12 (the page-number bits ASLR randomises), and with a per-process
 * secret.  A stray write or a leaked heap pointer no longer gives a usable
 * link.  glibc 2.32's PROTECT_PTR scheme (Check Point Research, 2020), plus
 * the secret.
 */
extern uintptr_t cg_link_secret CG_HIDDEN;
CG_INLINE void *cg_protect(void *slot, const void *ptr)
{
    return (void *)((((uintptr_t)slot) >> 12) ^ (uintptr_t)ptr ^ cg_link_secret);
}
CG_INLINE void *cg_reveal(void *slot, const void *stored)
{
    return cg_protect(slot, stored);
}

#endif /* CG_CHUNK_H */
