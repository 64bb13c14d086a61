/*
 * heap.h — mmap'd heaps, the heap map, and the chunk-start map.
 *
 * Every arena owns one or more heaps: regions of CG_HEAP_MAX (64 MiB) at a
 * 64 MiB-aligned address, so that `pointer -> heap` is a mask (glibc's
 * non-main arenas, here used for every arena; chunkguard never calls brk).
 * As glibc does for its non-main heaps, the region is reserved
 * inaccessible (PROT_NONE, no swap reserved) and made read-write only as
 * far as the heap is in use: h->size, the committed end, where the top
 * chunk ends.  The heap grows by mprotect and shrinks (trim) by mapping
 * PROT_NONE memory over what it gives back, so a write far past the last
 * block, or through a pointer into the unused part, faults (and the fault
 * handler reports it: debug/edge.c).  Nothing of the region past the
 * committed end may therefore be read: a link or pointer that is only
 * known to be "in a heap region" is tested against the heap's committed
 * end (cg_heap_readable, cg_heap_chunk_ok) before anything at it is read.
 *
 *   (guard page below the base, when the page was free: see heap.c)
 *   base (64 MiB aligned)
 *   | cg_heap_t (and, in an arena's first heap, the cg_arena_t) | one page  } read-
 *   | chunk-start bitmap: one bit per 16 bytes of the heap       | 512 KiB   } write
 *   | shadow map: a 32-bit record id per 64 bytes (debug mode)   | 4 MiB     }
 *   | guard (PROT_NONE: an underflow of the first block), to the | 1.5 MiB
 *   | next 2 MiB boundary (huge pages: cg_heap_use_huge_pages)   |
 *   | chunks ... top chunk                                       | read-write, to base + size
 *   | not in use (PROT_NONE until the top grows into it)         |
 *   | tail page: never used, so never accessible (CG_HEAP_TAIL)  | to base + 64 MiB
 *
 * The shadow map (shadow.h) is only touched in debug mode; in fast mode it
 * costs address space, not memory.
 *
 * Two out-of-band maps answer "is this ours?" before any chunk header is
 * read, so a foreign or garbage pointer can never make us fault:
 *   - cg_heapmap: one bit per 64 MiB of the 47-bit address space (256 KiB
 *     of .bss, touched only where heaps are) — set where a heap is mapped.
 *     A bit, not a byte: a 2 MiB map made the library's mapping 2 MiB or
 *     more, which Linux places on a 2 MiB boundary (for huge pages), and
 *     that pinned libc's offset to the one that costs the most RSS through
 *     fault-around (docs/performance.md);
 *   - the chunk-start bitmap of each heap: bit set at the start of every
 *     chunk — in use, free in a bin, in a tcache or fastbin, and the top
 *     chunk; clear everywhere else, inside chunks, at fenceposts and beyond
 *     top.  So "the chunk after this one" can be checked to really start a
 *     chunk, and a block's size field cannot silently lead into the middle
 *     of another.  Maintained only where chunk boundaries change (splits
 *     and merges), never on the tcache/fastbin paths.  A set bit is always
 *     below the committed end (the top chunk is the last chunk), so a
 *     chunk start's header can be read without a size test.
 */
#ifndef CG_HEAP_H
#define CG_HEAP_H

#include "chunk.h"

struct cg_arena;

typedef struct cg_heap {
    struct cg_arena *arena;   /* owning arena                                 */
    struct cg_heap  *prev;    /* the arena's previous heap (older), or NULL   */
    size_t size;              /* bytes from base committed (read-write) and in
                               * use: chunks end here, nothing above is
                               * accessible; changed by cg_heap_set_size only */
    size_t chunk_slots;       /* (size - CG_HEAP_DATA_OFF) / 16 - 1: how many
                               * 16-byte aligned places in the chunk space
                               * hold a whole readable cg_chunk_t (header and
                               * links), for cg_heap_chunk_ok                 */
    char  *data;              /* first chunk                                  */
    char  *clean_from;        /* memory from here to the region's end reads zero */
    cg_chunk_t *fence;        /* fencepost left when the arena moved on, or NULL */
    bool guard_below;         /* the page below base is our guard page        */
    size_t huge_end;          /* huge pages: the chunk space below this offset
                               * was collapsed (cg_heap_use_huge_pages)       */
    size_t meta_huge;         /* and so many 2 MiB ranges of the metadata      */
} cg_heap_t;

#define CG_HEAP_MAP_WORDS ((size_t)1 << (CG_VA_BITS - CG_HEAP_SHIFT - 6))
#define CG_START_MAP_BYTES  (CG_HEAP_MAX / CG_ALIGN / 8)     /* 512 KiB */
/* Offset of the start bitmap and of the first chunk from the heap base. */
#define CG_HEAP_HDR_BYTES   4096u
#define CG_SHADOW_MAP_BYTES (CG_HEAP_MAX / 64 * 4)             /* 4 MiB */
#define CG_SHADOW_MAP_OFF   (CG_HEAP_HDR_BYTES + CG_START_MAP_BYTES)
#define CG_HEAP_META_BYTES  (CG_SHADOW_MAP_OFF + CG_SHADOW_MAP_BYTES)
/* The chunk space starts at a 2 MiB boundary, so that all of it can be
 * in huge pages (cg_heap_use_huge_pages); the address space between the
 * metadata and it stays inaccessible, a guard 1.5 MiB deep. */
#define CG_HUGE_PAGE        ((size_t)2 << 20)
#define CG_HEAP_DATA_OFF \
    ((CG_HEAP_META_BYTES + 4096u + CG_HUGE_PAGE - 1) & ~(CG_HUGE_PAGE - 1))
/* The last page of a region is never committed, so it stays inaccessible
 * whatever the heap's size: a guard between a full heap's last block and
 * whatever lies above the region.  It also keeps every chunk start at
 * least a page from the region's end, so the start-bitmap index of any
 * chunk start plus a tcache-class size stays inside the bitmap (free's
 * fast path tests that bit without testing the offset: alloc.h,
 * cg_free_fast). */
#define CG_HEAP_TAIL        4096u
#define CG_HEAP_USE_MAX     (CG_HEAP_MAX - CG_HEAP_TAIL)
/* Two 16-byte fenceposts close a heap the arena has moved away from. */
#define CG_FENCE_BYTES      (2 * CG_HDR_SZ)

extern uint64_t cg_heapmap[CG_HEAP_MAP_WORDS] CG_HIDDEN;

CG_INLINE cg_heap_t *cg_heap_base(const void *p)
{
    return (cg_heap_t *)((uintptr_t)p & ~(uintptr_t)(CG_HEAP_MAX - 1));
}

/* Is p inside a heap of ours?  No memory of p's is read. */
CG_INLINE bool cg_in_heap(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    if ((a >> CG_VA_BITS) != 0)
        return false;
    size_t idx = a >> CG_HEAP_SHIFT;
    /* Relaxed: another arena may be setting its heap's bit in this word. */
    return (__atomic_load_n(&cg_heapmap[idx >> 6], __ATOMIC_RELAXED) >> (idx & 63)) & 1;
}

/* The start-map bit of the chunk at c: one per 16 bytes from the base. */
CG_INLINE size_t cg_start_index(const cg_heap_t *h, const void *c)
{
    return ((uintptr_t)c - (uintptr_t)h) >> 4;
}
CG_INLINE uint64_t *cg_start_word(cg_heap_t *h, const void *c, uint64_t *bit)
{
    size_t idx = cg_start_index(h, c);
    *bit = (uint64_t)1 << (idx & 63);
    return (uint64_t *)((char *)h + CG_HEAP_HDR_BYTES) + (idx >> 6);
}
/* Tested without the lock by free; set and cleared under the arena lock
 * (one heap belongs to one arena, so a bitmap word has one writer at a
 * time): relaxed loads and stores.  By index: bit idx of h's map (idx below
 * CG_HEAP_MAX / 16). */
CG_INLINE bool cg_start_test_index(cg_heap_t *h, size_t idx)
{
    const uint64_t *w = (const uint64_t *)((char *)h + CG_HEAP_HDR_BYTES) + (idx >> 6);
    return (CG_LOAD(*w) >> (idx & 63)) & 1;
}
CG_INLINE bool cg_start_test(cg_heap_t *h, const void *c)
{
    return cg_start_test_index(h, cg_start_index(h, c));
}
CG_INLINE void cg_start_set(const void *c)
{
    uint64_t bit, *w = cg_start_word(cg_heap_base(c), c, &bit);
    CG_STORE(*w, CG_LOAD(*w) | bit);
}
CG_INLINE void cg_start_clear(const void *c)
{
    uint64_t bit, *w = cg_start_word(cg_heap_base(c), c, &bit);
    CG_STORE(*w, CG_LOAD(*w) & ~bit);
}

CG_INLINE size_t cg_heap_offset(const void *p)
{
    return (uintptr_t)p & (CG_HEAP_MAX - 1);
}

/* Can len bytes (at most a chunk header with its links) at x be read
 * without faulting: inside a heap region, past its metadata and guard
 * page, and below the heap's committed end?  (Not: is it a chunk.)  One
 * load of the heap's size, from its header page. */
CG_INLINE bool cg_heap_readable(const void *x, size_t len)
{
    if (!cg_in_heap(x))
        return false;
    size_t off = cg_heap_offset(x);
    return off >= CG_HEAP_DATA_OFF && off + len <= CG_LOAD(cg_heap_base(x)->size);
}

/* The in-use end; read without the lock on free paths (relaxed). */
CG_INLINE char *cg_heap_end(const cg_heap_t *h) { return (char *)h + CG_LOAD(h->size); }

/* Could x be a chunk of ours: aligned, and its header and links readable?
 * Used on list links before they are followed. */
CG_INLINE bool cg_heap_contains(const void *x)
{
    return cg_aligned_ok(x) && cg_heap_readable(x, sizeof(cg_chunk_t));
}

/* Is c a 16-byte aligned address in heap h's chunk space where a whole
 * cg_chunk_t can be read (below the committed end)?  h must be a mapped
 * heap; c may be anything — an address in another heap or none is
 * refused.  One subtraction, one rotation (a misaligned c's low bits
 * become high ones), one compare against h->chunk_slots: the inline
 * tcache pop's test of a link (fastpath.h). */
CG_INLINE bool cg_heap_chunk_ok(const cg_heap_t *h, const void *c)
{
    uintptr_t t = (uintptr_t)c - (uintptr_t)h - CG_HEAP_DATA_OFF;
    return cg_below_relaxed((t >> 4) | (t << 60), &h->chunk_slots);
}

/* Set the committed end (the caller has made [base, size) accessible, or
 * is about to protect what lies above it): size and chunk_slots. */
CG_INLINE void cg_heap_set_size(cg_heap_t *h, size_t size)
{
    CG_STORE(h->size, size);
    CG_STORE(h->chunk_slots, (size - CG_HEAP_DATA_OFF) / CG_ALIGN - 1);
}

/* Heap lifecycle; callers hold the owning arena's lock (or run single-
 * threaded).  cg_heap_new returns a heap with at least min_data bytes of
 * chunk space in use (committed), or NULL with errno ENOMEM.
 * cg_heap_grow commits diff more bytes (a page multiple) above the
 * in-use end: false when the region is full or the kernel refuses.
 * cg_heap_shrink gives the pages from new_size (a page multiple) to the
 * in-use end back to the OS and makes them inaccessible again.
 * cg_heap_delete unmaps the heap (and its guard page below). */
cg_heap_t *cg_heap_new(struct cg_arena *av, size_t min_data) CG_HIDDEN;
bool cg_heap_grow(cg_heap_t *h, size_t diff) CG_HIDDEN;
void cg_heap_shrink(cg_heap_t *h, size_t new_size) CG_HIDDEN;
void cg_heap_delete(cg_heap_t *h) CG_HIDDEN;
void cg_heap_release_pages(char *from, char *to) CG_HIDDEN;

/*
 * Transparent huge pages for the chunk space (debug mode, option
 * huge_pages).  A fork copies one page-table entry per resident 4 KiB
 * page, and the child's exit drops each again; debug mode's quarantine
 * keeps up to quarantine_mb of freed blocks resident, so a fork with a
 * full quarantine copied 16384 entries (docs/performance.md, "Fork").
 * In 2 MiB pages the same memory is 32 entries.  The kernel gives a huge
 * page only to a fault in a 2 MiB-aligned range that lies whole in one
 * read-write mapping, and the heap grows a little at a time (the memory
 * above the top stays inaccessible, so a wild access there faults): the
 * range the top ends in is always partly inaccessible and gets 4 KiB
 * pages.  So each time the committed end passes a 2 MiB boundary for the
 * first time, the range below it, read-write now, is collapsed into one
 * huge page (madvise MADV_COLLAPSE: the kernel copies its pages; a page
 * never touched becomes resident, zero).  All but the top's range of a
 * heap is then in huge pages.  The metadata's two whole 2 MiB ranges
 * (start bitmap and shadow map) are collapsed in turn once the shadow map
 * in use fills an eighth of the range (a chunk space of 4 MiB for the
 * first, 22 MiB for the second).
 * cg_heap_use_huge_pages - turn them on for heaps made from now on, when
 *     the kernel's THP setting is "always" or "madvise" (an administrator's
 *     "never" is kept); call at initialisation, before the first heap
 *     (single-threaded).
 */
void cg_heap_use_huge_pages(void) CG_HIDDEN;
/* Are they on (cg_heap_use_huge_pages ran and the kernel allows them)?
 * Debug mode's record slabs follow the same setting (shadow.c). */
bool cg_heap_huge_on(void) CG_HIDDEN;

/*
 * The range the top ends in is 4 KiB pages until the committed end
 * reaches its boundary, and a fork copies each of them (in a program
 * whose quarantine makes the heap grow, half a range on average: 256
 * entries a fork, the most a debug-mode fork copied; docs/performance.md,
 * "fork13b").  So once the committed end would come within
 * CG_HUGE_REACH of the boundary, the heap grows to the boundary at once
 * and the range is collapsed: the top chunk is then up to CG_HUGE_REACH
 * larger than the arena asked for, and nothing above the top chunk is
 * accessible still.  CG_HUGE_REACH plus the arena's top pad (128 KiB by
 * default) stays under 1 MiB, so a write 1 MiB past the last block still
 * faults (58-edges).
 * cg_heap_grow_step - the bytes to commit when the arena wants want more
 *     (a page multiple) of heap h: want itself, or more, up to h's next
 *     2 MiB boundary, when huge pages are on, the boundary is within
 *     CG_HUGE_REACH of the new end, inside the region, and above the part
 *     already collapsed once (a range given back and grown into again
 *     stays as the kernel left it).  Caller holds the arena lock.
 */
#define CG_HUGE_REACH ((size_t)512 << 10)
size_t cg_heap_grow_step(const cg_heap_t *h, size_t want) CG_HIDDEN;

/* Does no chunk start strictly inside [c, c + size)?  A size field that
 * an overflow enlarged to swallow whole neighbours would still lead to a
 * chunk start; this catches it.  O(size / 1024) word reads. */
bool cg_heap_span_clear(cg_heap_t *h, const void *c, size_t size) CG_HIDDEN;

/* The chunk whose start is the last one at or before address a in heap h
 * (a backward scan of the start bitmap), or NULL if none.  The chunk may
 * end before a.  Reads only our metadata; for reports, not hot paths. */
cg_chunk_t *cg_heap_find_chunk(cg_heap_t *h, const void *a) CG_HIDDEN;

/* The in-use chunk with the highest address in heap h — the block just
 * below its top (or below the fencepost of an older heap) — or NULL when
 * the heap holds none.  Reads only the headers of chunk starts, each
 * tested against the committed end; for reports of an access past the
 * heap's used part (debug/describe.c), not for hot paths. */
cg_chunk_t *cg_heap_last_block(cg_heap_t *h) CG_HIDDEN;

#endif /* CG_HEAP_H */
