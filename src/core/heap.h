/*
 * heap.h — mmap'd heaps, the heap map, and the chunk-start map.
 *
 * Every arena owns one or more heaps: regions of CG_HEAP_MAX (64 MiB)
 * mapped read-write (MAP_NORESERVE: a page costs nothing until touched) at
 * a 64 MiB-aligned address, so that `pointer -> heap` is a mask (glibc's
 * non-main arenas, here used for every arena; chunkguard never calls brk).
 * Because the whole region is readable, checking that a link points inside
 * a heap region is enough to know it can be read: no heap-size load.
 *
 *   base (64 MiB aligned)
 *   | cg_heap_t (and, in an arena's first heap, the cg_arena_t) | one page
 *   | chunk-start bitmap: one bit per 16 bytes of the heap       | 512 KiB
 *   | shadow map: a 32-bit record id per 64 bytes (debug mode)   | 4 MiB
 *   | guard page (read-only: writes fault, reads see zeros)      |
 *   | chunks ... top chunk | not yet used (reads zero) ...       |
 *   | tail page: never used, so any chunk of a tcache size that  | to base+64 MiB
 *   | starts in the heap ends inside the region (CG_HEAP_TAIL)   |
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
 *     and merges), never on the tcache/fastbin paths.
 */
#ifndef CG_HEAP_H
#define CG_HEAP_H

#include "chunk.h"

struct cg_arena;

typedef struct cg_heap {
    struct cg_arena *arena;   /* owning arena                                 */
    struct cg_heap  *prev;    /* the arena's previous heap (older), or NULL   */
    size_t size;              /* bytes from base now in use: chunks end here  */
    char  *data;              /* first chunk                                  */
    char  *clean_from;        /* memory from here to the region's end reads zero */
    cg_chunk_t *fence;        /* fencepost left when the arena moved on, or NULL */
} cg_heap_t;

#define CG_HEAP_MAP_WORDS ((size_t)1 << (CG_VA_BITS - CG_HEAP_SHIFT - 6))
#define CG_START_MAP_BYTES  (CG_HEAP_MAX / CG_ALIGN / 8)     /* 512 KiB */
/* Offset of the start bitmap and of the first chunk from the heap base. */
#define CG_HEAP_HDR_BYTES   4096u
#define CG_SHADOW_MAP_BYTES (CG_HEAP_MAX / 64 * 4)             /* 4 MiB */
#define CG_SHADOW_MAP_OFF   (CG_HEAP_HDR_BYTES + CG_START_MAP_BYTES)
#define CG_HEAP_DATA_OFF    (CG_SHADOW_MAP_OFF + CG_SHADOW_MAP_BYTES + 4096u)
/* The last page of a region holds no chunk: a chunk that starts in the
 * heap (its start bit set) and claims any size up to the largest tcache
 * class has its next header inside the region, so free's fast path may
 * read it without testing the offset (alloc.h, cg_free_fast). */
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

/* Can len bytes at x be read without faulting: inside a heap region, past
 * its metadata and guard page?  (Not: is it a chunk.) */
CG_INLINE bool cg_heap_readable(const void *x, size_t len)
{
    return cg_in_heap(x) &&
           cg_heap_offset(x) - CG_HEAP_DATA_OFF <= CG_HEAP_MAX - CG_HEAP_DATA_OFF - len;
}

/* The in-use end; read without the lock on free paths (relaxed). */
CG_INLINE char *cg_heap_end(const cg_heap_t *h) { return (char *)h + CG_LOAD(h->size); }

/* Could x be a chunk of ours: aligned, and its header and links readable?
 * Used on list links before they are followed. */
CG_INLINE bool cg_heap_contains(const void *x)
{
    return cg_aligned_ok(x) && cg_heap_readable(x, sizeof(cg_chunk_t));
}

/* Heap lifecycle; callers hold the owning arena's lock (or run single-
 * threaded).  cg_heap_new returns a heap with at least min_data bytes of
 * chunk space in use, or NULL with errno ENOMEM. */
cg_heap_t *cg_heap_new(struct cg_arena *av, size_t min_data) CG_HIDDEN;
bool cg_heap_grow(cg_heap_t *h, size_t diff) CG_HIDDEN;
void cg_heap_shrink(cg_heap_t *h, size_t new_size) CG_HIDDEN;
void cg_heap_delete(cg_heap_t *h) CG_HIDDEN;
void cg_heap_release_pages(char *from, char *to) CG_HIDDEN;
/* Does no chunk start strictly inside [c, c + size)?  A size field that
 * an overflow enlarged to swallow whole neighbours would still lead to a
 * chunk start; this catches it.  O(size / 1024) word reads. */
bool cg_heap_span_clear(cg_heap_t *h, const void *c, size_t size) CG_HIDDEN;

/* The chunk whose start is the last one at or before address a in heap h
 * (a backward scan of the start bitmap), or NULL if none.  The chunk may
 * end before a.  Reads only our metadata; for reports, not hot paths. */
cg_chunk_t *cg_heap_find_chunk(cg_heap_t *h, const void *a) CG_HIDDEN;

#endif /* CG_HEAP_H */
