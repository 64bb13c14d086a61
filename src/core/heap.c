/*
 * heap.c — creating, growing, shrinking and deleting heaps (see heap.h).
 */
#include "heap.h"

#include <errno.h>
#include <unistd.h>

#include "options.h"
#include "report.h"
#include "vgclient.h"

CG_BIG_BSS uint64_t cg_heapmap[CG_HEAP_MAP_WORDS];

/* Set or clear the heap map's bit for the heap at base.  Heaps of different
 * arenas share a word, so a multi-threaded process needs an atomic
 * read-modify-write; a single-threaded one must not execute one. */
CG_HOT_TEXT static void heapmap_mark(const void *base, bool on)
{
    size_t idx = (uintptr_t)base >> CG_HEAP_SHIFT;
    uint64_t *w = &cg_heapmap[idx >> 6], bit = (uint64_t)1 << (idx & 63);
    if (CG_SINGLE_THREAD_P)
        *w = on ? *w | bit : *w & ~bit;
    else if (on)
        __atomic_fetch_or(w, bit, __ATOMIC_RELEASE);
    else
        __atomic_fetch_and(w, ~bit, __ATOMIC_RELEASE);
}

static size_t page_up(size_t n) { return CG_PAGE_ROUND(n); }

static bool huge;          /* cg_heap_use_huge_pages: set once, at init */

void cg_heap_use_huge_pages(void) { huge = cg_os_thp_allowed(); }

bool cg_heap_huge_on(void) { return huge; }

/* The heap's committed end has moved up to end: collapse each 2 MiB
 * range of the chunk space that is read-write whole for the first time
 * (heap.h).  A range the heap gave back and grew into again stays as the
 * kernel left it (no collapse back and forth).  Caller holds the arena
 * lock. */
static void collapse_below(cg_heap_t *h, size_t end)
{
    size_t lo = h->huge_end, hi = end & ~(CG_HUGE_PAGE - 1);
    if (hi <= lo)
        return;
    h->huge_end = hi;
    (void)cg_os_collapse((char *)h + lo, hi - lo);
    /* The metadata's whole 2 MiB ranges (start bitmap, shadow map) too,
     * once the shadow map in use fills an eighth of one: 64 pages fewer
     * to copy at each fork, for at most 1.75 MiB more memory. */
    size_t first = CG_SHADOW_MAP_OFF + CG_HEAP_DATA_OFF / 16;   /* 4 bytes per 64 */
    size_t used = CG_SHADOW_MAP_OFF + end / 16;
    while (h->meta_huge < CG_HEAP_META_BYTES / CG_HUGE_PAGE) {
        size_t m = h->meta_huge * CG_HUGE_PAGE;
        if (used < (m > first ? m : first) + CG_HUGE_PAGE / 8)
            break;
        (void)cg_os_collapse((char *)h + m, CG_HUGE_PAGE);
        h->meta_huge++;
    }
}

CG_HOT_TEXT size_t cg_heap_grow_step(const cg_heap_t *h, size_t want)
{
    size_t end = h->size + want;
    size_t boundary = (end + CG_HUGE_PAGE - 1) & ~(CG_HUGE_PAGE - 1);
    if (!huge || end < want || boundary <= h->huge_end || boundary > CG_HEAP_USE_MAX ||
        boundary - end > CG_HUGE_REACH)
        return want;
    return boundary - h->size;
}

/* The page below a new heap's base becomes a guard page of ours when it is
 * free: the heap's metadata starts at the base, and a block mapped just
 * below it (a big block, which the kernel places top-down into the gap
 * under the heap) would otherwise overflow into the heap header.  The
 * tail page of a heap just below is inaccessible already.  True when the
 * page was mapped (the heap owns it). */
static bool map_guard_below(char *base)
{
    return !cg_in_heap(base - 1) && cg_os_map_guard_page(base - cg_pagesize);
}

CG_HOT_TEXT cg_heap_t *cg_heap_new(struct cg_arena *av, size_t min_data)
{
    if (min_data > CG_HEAP_USE_MAX - CG_HEAP_DATA_OFF)
        return NULL;
    size_t size = page_up(CG_HEAP_DATA_OFF + min_data);
    char *base = cg_os_reserve_aligned(CG_HEAP_MAX, CG_HEAP_MAX);
    if (base == NULL)
        return NULL;
    /* The hint goes on the whole chunk space while it is one mapping:
     * the mprotects that commit it later keep it. */
    if (huge)
        (void)cg_os_huge_pages(base + CG_HEAP_DATA_OFF, CG_HEAP_MAX - CG_HEAP_DATA_OFF);
    /* Read-write: the metadata below the guard, and the chunk space in
     * use.  The guard (the pages up to the first chunk) keeps an underflow
     * of the first chunk out of the metadata; it is inaccessible like the
     * unused part above the top,
     * since no link is followed into it without cg_heap_chunk_ok or
     * cg_heap_readable refusing it first. */
    if (!cg_os_commit(base, CG_HEAP_META_BYTES) ||
        !cg_os_commit(base + CG_HEAP_DATA_OFF, size - CG_HEAP_DATA_OFF)) {
        cg_os_unmap(base, CG_HEAP_MAX);
        errno = ENOMEM;
        return NULL;
    }
    /* Under valgrind all of it is ours until blocks are handed out
     * (vgclient.h); the header is written quietly. */
    cg_vg_noaccess(base, size);
    cg_heap_t *h = (cg_heap_t *)base;
    h->arena = av;
    h->prev = NULL;
    cg_heap_set_size(h, size);
    h->data = base + CG_HEAP_DATA_OFF;
    h->clean_from = h->data;
    h->fence = NULL;
    h->guard_below = map_guard_below(base);
    /* fresh memory: the hint alone gives whole ranges huge pages */
    h->meta_huge = 0;
    h->huge_end = CG_HEAP_DATA_OFF + ((size - CG_HEAP_DATA_OFF) & ~(CG_HUGE_PAGE - 1));
    heapmap_mark(base, true);
    if (CG_UNLIKELY(cg_opt.verbosity >= 2)) {
        char buf[160];
        size_t n = cg_fmt(buf, sizeof buf, "==%d==chunkguard: new heap at %p (%zu MiB of "
                          "address space)\n", (int)cg_os_getpid(), (void *)base,
                          (size_t)(CG_HEAP_MAX >> 20));
        cg_log_write(buf, n);
    }
    return h;
}

/* Extend the in-use part by diff bytes (page multiple): the pages become
 * read-write (one mprotect; glibc's grow_heap).  Fails when the heap is
 * full or the kernel refuses. */
CG_HOT_TEXT bool cg_heap_grow(cg_heap_t *h, size_t diff)
{
    size_t want = h->size + diff;
    if (want > CG_HEAP_USE_MAX || want < h->size)
        return false;
    if (!cg_os_commit((char *)h + h->size, diff))
        return false;
    cg_vg_noaccess((char *)h + h->size, diff);   /* memcheck: mprotect opened it */
    cg_heap_set_size(h, want);
    if (huge)
        collapse_below(h, want);
    return true;
}

/* Give back the pages from new_size to the in-use end: they read zero when
 * the heap grows into them again (calloc may skip clearing them), and are
 * inaccessible until then (glibc's shrink_heap).  The size goes down
 * first, so a concurrent lock-free reader that tests against it never
 * reads a page being protected.  Should the kernel refuse (the mapping
 * count limit), the pages are still given back and stay accessible. */
CG_HOT_TEXT void cg_heap_shrink(cg_heap_t *h, size_t new_size)
{
    char *from = (char *)h + new_size;
    size_t len = h->size - new_size;
    cg_heap_set_size(h, new_size);
    if (!cg_os_seal(from, len))
        cg_os_decommit(from, len);
    else if (huge)
        (void)cg_os_huge_pages(from, len);   /* the new mapping lost the hint */
    if (h->clean_from > from)
        h->clean_from = from;
}

void cg_heap_delete(cg_heap_t *h)
{
    bool below = h->guard_below;
    heapmap_mark(h, false);
    cg_os_unmap(h, CG_HEAP_MAX);
    if (below)
        cg_os_unmap_guard_page((char *)h - cg_pagesize);
}

CG_HOT_TEXT bool cg_heap_span_clear(cg_heap_t *h, const void *c, size_t size)
{
    const uint64_t *map = (const uint64_t *)((char *)h + CG_HEAP_HDR_BYTES);
    size_t lo = (((uintptr_t)c - (uintptr_t)h) >> 4) + 1;   /* first bit inside */
    size_t hi = lo - 1 + (size >> 4);                        /* one past the last */
    if (lo >= hi)
        return true;
    /* Whole words: the first masked from lo on, the last up to hi - 1, the
     * ones between compared to 0 (one test per 64 granules, not a shift and
     * a length per word). */
    size_t w = lo >> 6, wl = (hi - 1) >> 6;
    uint64_t first = ~(uint64_t)0 << (lo & 63);
    uint64_t last = ~(uint64_t)0 >> (63 - ((hi - 1) & 63));
    if (w == wl)
        return (CG_LOAD(map[w]) & first & last) == 0;
    if (CG_LOAD(map[w]) & first)
        return false;
    while (++w < wl)
        if (CG_LOAD(map[w]))
            return false;
    return (CG_LOAD(map[wl]) & last) == 0;
}

cg_chunk_t *cg_heap_find_chunk(cg_heap_t *h, const void *a)
{
    const uint64_t *map = (const uint64_t *)((char *)h + CG_HEAP_HDR_BYTES);
    size_t i = ((uintptr_t)a - (uintptr_t)h) >> 4;
    size_t first = CG_HEAP_DATA_OFF >> 4;
    if (i < first || i >= (CG_HEAP_MAX >> 4))
        return NULL;
    size_t w = i >> 6;
    uint64_t bits = CG_LOAD(map[w]) & (~(uint64_t)0 >> (63 - (i & 63)));
    while (bits == 0) {
        if (w <= first >> 6)
            return NULL;
        bits = CG_LOAD(map[--w]);
    }
    size_t j = w * 64 + 63 - (size_t)__builtin_clzll(bits);
    return j < first ? NULL : (cg_chunk_t *)((char *)h + (j << 4));
}

cg_chunk_t *cg_heap_last_block(cg_heap_t *h)
{
    const char *end = cg_heap_end(h);
    cg_chunk_t *c = cg_heap_find_chunk(h, end - 1);
    /* Free chunks are never neighbours, so the top (or a binned rest of an
     * old top) and one free chunk before it are all that is skipped; the
     * bound only guards against a corrupted heap. */
    for (int i = 0; c != NULL && i < 3; i++) {
        size_t size = cg_csize(c);
        const char *next = (const char *)c + size;
        if (size >= CG_MINSIZE && next > (const char *)c && next + CG_HDR_SZ <= end &&
            cg_prev_inuse((const cg_chunk_t *)next))
            return c;
        c = cg_heap_find_chunk(h, (const char *)c - 1);
    }
    return NULL;
}

/* Return the whole pages strictly inside [from, to) to the OS. */
void cg_heap_release_pages(char *from, char *to)
{
    uintptr_t a = CG_PAGE_ROUND((uintptr_t)from);
    uintptr_t b = (uintptr_t)to & ~(cg_pagesize - 1);
    if (b > a)
        cg_os_decommit((void *)a, b - a);
}
