/*
 * alloc.c — malloc, free, calloc, realloc and the memalign family: request
 * checks, pointer validation, and the choice between tcache, arena and big
 * block.  Contracts follow glibc 2.36 (see each function in interpose.c).
 */
#include "alloc.h"

#include "fastbin.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "bigblock.h"
#include "debug.h"
#include "init.h"
#include "reentry.h"
#include "shadow.h"

enum { OP_MALLOC, OP_FREE, OP_CALLOC, OP_REALLOC, OP_MEMALIGN };

/* Debug mode: count the operation (no tcache holds the counters there). */
CG_INLINE void count_debug(int opidx, bool mt)
{
    CG_ADD_IF(&cg_exited_counts[opidx], 1, mt);
}

/* Start of every slow path: make sure we are initialised, note what is
 * being served (for reports), count it.  Returns this thread's tcache,
 * creating it on first use. */
CG_INLINE cg_tcache_t *enter(uintptr_t caller, const char *op, int opidx, bool mt)
{
    cg_self.caller = caller;
    cg_self.op = op;
    cg_tcache_t *tc = cg_self.held_tc;       /* inside: see reentry.h */
    if (tc == NULL && cg_self.tc_state == CG_TC_NONE)
        tc = cg_tcache_init();
    if (tc != NULL)
        CG_COUNT((&tc->n_malloc)[opidx]);
    else
        CG_ADD_IF(&cg_exited_counts[opidx], 1, mt);
    return tc;
}

static size_t usable_of(cg_chunk_t *c)
{
    return cg_is_mmapped(c) ? cg_big_usable(c) : cg_heap_usable(c);
}

/* M_PERTURB or fill_alloc: fill a new block. */
static inline void perturb_alloc(cg_chunk_t *c)
{
    if (CG_UNLIKELY(cg_mp.alloc_fill >= 0))
        memset(cg_chunk2mem(c), cg_mp.alloc_fill, usable_of(c));
}

/* nb bytes (aligned to align when it is not 0) from arena av, under its
 * lock when mt. */
CG_INLINE cg_chunk_t *from_arena(cg_arena_t *av, size_t nb, size_t align, bool mt,
                                 cg_tcache_t *tc, bool *fresh)
{
    cg_tok_t av_tok = cg_lock_if(&av->lock, mt);
    cg_chunk_t *c = align ? cg_arena_memalign(av, align, nb, mt)
                          : cg_arena_malloc(av, nb, mt, fresh, tc);
    cg_unlock_if(&av->lock, av_tok);
    return c;
}

/* This thread's arena is out of memory: try one other, once, as glibc does. */
static cg_chunk_t *from_other_arena(cg_arena_t *failed, size_t nb, size_t align, bool mt,
                                    cg_tcache_t *tc, bool *fresh) CG_NOINLINE;
static cg_chunk_t *from_other_arena(cg_arena_t *failed, size_t nb, size_t align, bool mt,
                                    cg_tcache_t *tc, bool *fresh)
{
    cg_arena_t *av = cg_arena_retry(failed, mt);
    return av ? from_arena(av, nb, align, mt, tc, fresh) : NULL;
}

CG_INLINE cg_chunk_t *from_arenas(size_t nb, size_t align, bool mt, cg_tcache_t *tc, bool *fresh)
{
    cg_arena_t *av = cg_arena_for_thread(mt);
    cg_chunk_t *c = from_arena(av, nb, align, mt, tc, fresh);
    if (CG_UNLIKELY(c == NULL))
        c = from_other_arena(av, nb, align, mt, tc, fresh);
    return c;
}

/* A chunk of at least nb bytes from the tcache, an arena, or a big block.
 * *fresh says its memory is known to read zero.  NULL with errno ENOMEM. */
CG_INLINE cg_chunk_t *alloc_chunk(size_t nb, bool mt, cg_tcache_t *tc, bool *fresh)
{
    *fresh = false;
    if (tc != NULL && nb <= cg_mp.tcache_max_csize) {
        size_t idx = cg_csize2tidx(nb);
        if (tc->entries[idx] != NULL)
            return cg_mem2chunk(cg_tcache_get(tc, idx));
    }
    cg_chunk_t *c = NULL;
    if (nb >= CG_LOAD(cg_mp.mmap_threshold) && (int)CG_LOAD(cg_mp.n_mmaps) < cg_mp.n_mmaps_max &&
        (c = cg_big_alloc(nb, 0, mt)) != NULL) {
        *fresh = true;
        return c;
    }
    c = from_arenas(nb, 0, mt, tc, fresh);
    if (c == NULL && (c = cg_big_alloc(nb, 0, mt)) != NULL)
        *fresh = true;
    if (c == NULL)
        errno = ENOMEM;
    return c;
}

/* The report for a pointer to a block already freed: a double free when
 * it is freed (or reallocated) again, an invalid pointer when it is only
 * asked about (malloc_usable_size), as debug mode says too. */
static cg_error_t freed_kind(cg_error_t kind)
{
    return kind == CG_E_INVALID_POINTER ? kind : CG_E_DOUBLE_FREE;
}

/* kind: the report for a pointer that is no block (invalid-free, or
 * invalid-pointer from malloc_usable_size). */
static void report_bad_size(cg_chunk_t *c, cg_error_t kind) CG_COLD __attribute__((noreturn));
static void report_bad_size(cg_chunk_t *c, cg_error_t kind)
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

static void report_bad_next(cg_chunk_t *c) CG_COLD __attribute__((noreturn));
static void report_bad_next(cg_chunk_t *c)
{
    cg_report(CG_E_HEAP_CORRUPTION, cg_chunk2mem(c),
              "the block's size field does not match the heap's chunk boundaries: it "
              "leads into the middle of a chunk or swallows whole neighbours "
              "(overwritten, e.g. by an overflow of the block before it)",
              "free(): invalid size");
}

/* A heap chunk's size must be sane before we walk to its neighbour, and the
 * neighbour must really start a chunk (or be the fencepost closing an old
 * heap): an overflow that rewrites a size field so that it leads into the
 * middle of a chunk is caught here (release_heap adds the span scan). */
static inline void check_heap_size(cg_chunk_t *c, cg_error_t kind)
{
    cg_heap_t *h = cg_heap_base(c);
    size_t size = cg_csize(c);
    if (!CG_SWITCH(CG_CHECK_FREE_SIZE))
        return;
    if (CG_UNLIKELY(cg_is_mmapped(c) || size < CG_MINSIZE || (size & CG_ALIGN_MASK) ||
                    size > (size_t)(cg_heap_end(h) - (char *)c) - 2 * CG_HDR_SZ))
        report_bad_size(c, kind);
    cg_chunk_t *next = cg_at(c, size);
    if (CG_UNLIKELY(!cg_start_test(h, next) && next != CG_LOAD(h->fence)))
        report_bad_next(c);
}

/* A pointer into one of our heaps that is not a chunk start: say what it
 * points into, as precisely as the start bitmap allows. */
static void report_not_a_block(void *mem, cg_error_t kind, const char *glibc)
    CG_COLD __attribute__((noreturn));
static void report_not_a_block(void *mem, cg_error_t kind, const char *glibc)
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

/* Validate a pointer the program hands back, before reading anything at it:
 * it must be a chunk start in one of our heaps, or a registered big block.
 * Reports `kind` when it is not ours, heap-corruption when its header is
 * impossible.  *big tells which kind of chunk it is. */
static cg_chunk_t *owned_chunk(void *mem, cg_error_t kind, const char *glibc, bool mt,
                               bool *big)
{
    cg_chunk_t *c = cg_mem2chunk(mem);
    if (cg_in_heap(mem)) {
        if (CG_SWITCH(CG_CHECK_OWNERSHIP) && CG_UNLIKELY(!cg_heap_owns(mem)))
            report_not_a_block(mem, kind, glibc);
        check_heap_size(c, kind);
        *big = false;
        return c;
    }
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

static void report_not_in_use(cg_chunk_t *c) CG_COLD __attribute__((noreturn));
static void report_not_in_use(cg_chunk_t *c)
{
    cg_report(CG_E_DOUBLE_FREE, cg_chunk2mem(c),
              "the chunk after this block says the block is already free",
              "double free or corruption (!prev)");
}

/* A heap chunk being freed or resized must be in use: not in this thread's
 * tcache (the key is only a hint; the walk is exact) and not free in a bin
 * (the next chunk's PREV_INUSE bit). */
static inline void check_in_use(cg_chunk_t *c, size_t size, cg_tcache_t *tc)
{
    if (CG_SWITCH(CG_CHECK_TCACHE_DOUBLE_FREE) && tc != NULL && size <= cg_mp.tcache_max_csize &&
        CG_UNLIKELY(((cg_tentry_t *)cg_chunk2mem(c))->key == cg_tcache_key))
        cg_tcache_double_free_check(tc, cg_csize2tidx(size), cg_chunk2mem(c));
    if (CG_SWITCH(CG_CHECK_NOT_INUSE) && CG_UNLIKELY(!cg_prev_inuse(cg_at(c, size))))
        report_not_in_use(c);
}

/* Give a validated heap chunk back: tcache if its bin has room, else the
 * fastbin or the arena. */
CG_INLINE void release_heap(cg_chunk_t *c, bool mt, cg_tcache_t *tc)
{
    size_t size = cg_csize(c);
    check_in_use(c, size, tc);
    /* No chunk may start inside the block being freed: a size field that an
     * overflow enlarged to swallow whole neighbours would otherwise hand
     * out memory overlapping them.  O(size / 1 KiB) word reads, on the
     * checked paths only (not the inline tcache path, not realloc in place),
     * so it stays small next to the cost of having used the block. */
    if (CG_SWITCH(CG_CHECK_FREE_SIZE) && CG_UNLIKELY(!cg_heap_span_clear(cg_heap_base(c), c, size)))
        report_bad_next(c);
    if (tc != NULL && size <= cg_mp.tcache_max_csize) {
        size_t idx = cg_csize2tidx(size);
        if (tc->counts[idx] < cg_mp.tcache_count) {
            cg_tcache_put(tc, idx, cg_chunk2mem(c));
            return;
        }
    }
    cg_arena_free(cg_arena_of(c), c, mt);
}

static void release(cg_chunk_t *c, bool big, bool mt, cg_tcache_t *tc)
{
    if (big)
        cg_big_free(c, mt);
    else
        release_heap(c, mt, tc);
}

/* malloc's contract for every entry that serves an unaligned request:
 * ENOMEM above PTRDIFF_MAX, M_PERTURB fill.  Inlined into malloc's slow
 * paths (a tcache miss runs it: one frame less saved 14 instructions a
 * miss); realloc and memalign call the out-of-line copy, malloc_mem. */
CG_INLINE void *malloc_mem_inline(size_t n, bool mt, cg_tcache_t *tc)
{
    if (CG_UNLIKELY(n > CG_MAX_REQUEST)) {
        errno = ENOMEM;
        return NULL;
    }
    bool fresh;
    cg_chunk_t *c = alloc_chunk(cg_request2size(n), mt, tc, &fresh);
    if (c == NULL)
        return NULL;
    perturb_alloc(c);
    return cg_chunk2mem(c);
}
static void *malloc_mem(size_t n, bool mt, cg_tcache_t *tc)
{
    return malloc_mem_inline(n, mt, tc);
}

CG_INLINE void *malloc_slow(size_t n, uintptr_t caller)
{
    cg_ensure_init();
    bool mt = !CG_SINGLE_THREAD_P;
    if (CG_UNLIKELY(cg_debug)) {
        count_debug(OP_MALLOC, mt);
        return cg_dbg_alloc(n, 0, CG_KIND_MALLOC, false, caller, "malloc");
    }
    cg_tcache_t *tc = enter(caller, "malloc", OP_MALLOC, mt);
    return malloc_mem_inline(n, mt, tc);
}

void *cg_malloc_slow(size_t n, uintptr_t caller)
{
    cg_ensure_init();
    CG_GUARDED(cg_reentry_alloc(n, 0, caller, "malloc"), malloc_slow(n, caller));
}

/* cg_malloc_handoff, cg_free_owned and cg_free_to_arena are entered from
 * the inline paths with the mark of their fast path still set (the tcache
 * hidden, so the thread is known not to be inside already): they only
 * note that a slow path runs, and end the mark. */
CG_INLINE void handoff_begin(cg_tcache_t *tc)
{
    cg_self.held_tc = tc;
    cg_self.inside = 1;
    CG_SIGNAL_FENCE();
}

/* The allocating hand-offs also free what signal handlers left pending
 * (the free ones need not: every slow allocation drains). */
CG_INLINE void handoff_begin_alloc(cg_tcache_t *tc)
{
    handoff_begin(tc);
    cg_reentry_drain_pending();
}

void *cg_malloc_handoff(size_t n, uintptr_t caller, cg_tcache_t *tc)
{
    handoff_begin_alloc(tc);
    void *p = malloc_slow(n, caller);
    cg_inside_end();
    return p;
}

/* A block served to a signal handler (reentry.c), now given back. */
CG_INLINE bool reentry_block(void *mem)
{
    return CG_UNLIKELY(CG_LOAD(cg_reentry_live) != 0) && cg_reentry_release(mem);
}

static void free_slow(void *mem, uintptr_t caller)
{
    if (reentry_block(mem))
        return;
    bool mt = !CG_SINGLE_THREAD_P;
    if (CG_UNLIKELY(cg_debug)) {
        count_debug(OP_FREE, mt);
        cg_dbg_free(mem, SIZE_MAX, 0, caller, "free");
        return;
    }
    cg_tcache_t *tc = enter(caller, "free", OP_FREE, mt);
    bool big;
    cg_chunk_t *c = owned_chunk(mem, CG_E_INVALID_FREE, "free(): invalid pointer", mt, &big);
    release(c, big, mt, tc);
}

void cg_free_slow(void *mem, uintptr_t caller)
{
    if (mem == NULL)
        return;
    cg_ensure_init();
    CG_GUARDED_VOID(cg_reentry_free(mem, caller, "free"), free_slow(mem, caller));
}

void cg_free_deferred(void *mem)
{
    free_slow(mem, 0);
}

/* None of the free paths changes errno: the OS calls they may make
 * (munmap, madvise, futex) preserve it in platform.c. */
/* The out-of-line frees called from the inline path, which has found the
 * thread's tcache and validated ownership: note the call, count it. */
CG_INLINE cg_chunk_t *free_enter(void *mem, cg_tcache_t *tc, uintptr_t caller)
{
    cg_self.caller = caller;
    cg_self.op = "free";
    CG_COUNT(tc->n_free);
    return cg_mem2chunk(mem);
}

void cg_free_owned(void *mem, cg_tcache_t *tc, uintptr_t caller)
{
    handoff_begin(tc);
    cg_chunk_t *c = free_enter(mem, tc, caller);
    check_heap_size(c, CG_E_INVALID_FREE);
    release_heap(c, !CG_SINGLE_THREAD_P, tc);
    cg_inside_end();
}

void cg_free_to_arena(void *mem, cg_tcache_t *tc, uintptr_t caller)
{
    handoff_begin(tc);
    cg_chunk_t *c = free_enter(mem, tc, caller);
    cg_arena_free(cg_arena_of(c), c, !CG_SINGLE_THREAD_P);
    cg_inside_end();
}

void cg_free_sized_impl(void *mem, size_t align, size_t n, uintptr_t caller, const char *op)
{
    if (mem == NULL || reentry_block(mem))
        return;
    cg_ensure_init();
    bool mt = !CG_SINGLE_THREAD_P;
    if (CG_UNLIKELY(cg_debug)) {
        count_debug(OP_FREE, mt);
        cg_dbg_free(mem, n, align, caller, op);
        return;
    }
    cg_tcache_t *tc = enter(caller, op, OP_FREE, mt);
    bool big;
    cg_chunk_t *c = owned_chunk(mem, CG_E_INVALID_FREE, "free(): invalid pointer", mt, &big);
    if (!big)
        check_in_use(c, cg_csize(c), tc);
    if (CG_SWITCH(CG_CHECK_SIZED_FREE) && CG_UNLIKELY(n > usable_of(c)))
        cg_report(CG_E_FREE_SIZE_MISMATCH, mem,
                  "sized free: the size given is larger than the block (C23 requires the size "
                  "that was requested)", NULL);
    if (CG_SWITCH(CG_CHECK_SIZED_FREE) && CG_UNLIKELY(align != 0 && ((uintptr_t)mem & (align - 1)) != 0))
        cg_report(CG_E_FREE_SIZE_MISMATCH, mem,
                  "sized free: the block is not aligned to the alignment given (C23 requires the "
                  "alignment it was allocated with)", NULL);
    release(c, big, mt, tc);
}

static void *calloc_slow(size_t nmemb, size_t size, uintptr_t caller)
{
    cg_ensure_init();
    bool mt = !CG_SINGLE_THREAD_P;
    size_t bytes;
    bool bad = __builtin_mul_overflow(nmemb, size, &bytes) || bytes > CG_MAX_REQUEST;
    if (CG_UNLIKELY(cg_debug)) {
        count_debug(OP_CALLOC, mt);
        if (bad) {
            errno = ENOMEM;
            return NULL;
        }
        return cg_dbg_alloc(bytes, 0, CG_KIND_CALLOC, true, caller, "calloc");
    }
    cg_tcache_t *tc = enter(caller, "calloc", OP_CALLOC, mt);
    if (CG_UNLIKELY(bad)) {
        errno = ENOMEM;
        return NULL;
    }
    bool fresh;
    cg_chunk_t *c = alloc_chunk(cg_request2size(bytes), mt, tc, &fresh);
    if (c == NULL)
        return NULL;
    /* Memory fresh from the OS (a new mmap, or top beyond anything ever
     * written) is already zero. */
    if (!fresh || cg_mp.alloc_fill >= 0 || cg_mp.free_fill >= 0)
        cg_clear(cg_chunk2mem(c), usable_of(c));
    return cg_chunk2mem(c);
}

/* A handler re-entering calloc: mmap'd pages read zero. */
static void *reentry_calloc(size_t nmemb, size_t size, uintptr_t caller)
{
    size_t bytes;
    if (__builtin_mul_overflow(nmemb, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return cg_reentry_alloc(bytes, 0, caller, "calloc");
}

void *cg_calloc_slow(size_t nmemb, size_t size, uintptr_t caller)
{
    cg_ensure_init();
    CG_GUARDED(reentry_calloc(nmemb, size, caller), calloc_slow(nmemb, size, caller));
}

void *cg_calloc_handoff(size_t nmemb, size_t size, uintptr_t caller, cg_tcache_t *tc)
{
    handoff_begin_alloc(tc);
    void *p = calloc_slow(nmemb, size, caller);
    cg_inside_end();
    return p;
}

/* realloc of a block a signal handler got (reentry.c): an ordinary block
 * now, the old one unmapped. */
static void *realloc_reentry_block(void *mem, size_t n, size_t old, uintptr_t caller)
{
    if (n == 0) {
        cg_reentry_release(mem);
        return NULL;
    }
    void *p = malloc_slow(n, caller);
    if (p != NULL) {
        memcpy(p, mem, old < n ? old : n);
        cg_reentry_release(mem);
    }
    return p;
}

void *cg_realloc_impl(void *mem, size_t n, uintptr_t caller)
{
    cg_ensure_init();
    size_t sig_size;
    if (CG_UNLIKELY(CG_LOAD(cg_reentry_live) != 0) && cg_reentry_owns(mem, &sig_size))
        return realloc_reentry_block(mem, n, sig_size, caller);
    bool mt = !CG_SINGLE_THREAD_P;
    if (CG_UNLIKELY(cg_debug)) {
        count_debug(OP_REALLOC, mt);
        if (n > CG_MAX_REQUEST) {
            errno = ENOMEM;
            return NULL;
        }
        return cg_dbg_realloc(mem, n, caller, "realloc");
    }
    cg_tcache_t *tc = enter(caller, "realloc", OP_REALLOC, mt);
    bool fresh;
    if (mem == NULL)
        return malloc_mem(n, mt, tc);
    bool big;
    cg_chunk_t *c = owned_chunk(mem, CG_E_INVALID_FREE, "realloc(): invalid pointer", mt, &big);
    if (!big)
        check_in_use(c, cg_csize(c), tc);
    if (n == 0) {                    /* glibc 2.36: free and return NULL */
        release(c, big, mt, tc);
        return NULL;
    }
    if (n > CG_MAX_REQUEST) {
        errno = ENOMEM;
        return NULL;
    }
    size_t nb = cg_request2size(n);
    if (big) {
        cg_chunk_t *nc = cg_big_resize(c, nb, mt);
        if (nc != NULL)
            return cg_chunk2mem(nc);
    } else if (cg_arena_resize(cg_arena_of(c), c, nb, mt)) {
        return mem;
    }
    size_t old = usable_of(c);
    /* Not from the tcache (as glibc's _int_realloc): a cached chunk sits
     * between live blocks and could not grow in place next time; the arena
     * prefers free space next to other free space and top. */
    cg_chunk_t *nc = alloc_chunk(nb, mt, NULL, &fresh);
    if (nc == NULL)
        return NULL;                 /* the old block stays as it was */
    memcpy(cg_chunk2mem(nc), mem, old < n ? old : n);
    release(c, big, mt, tc);
    return cg_chunk2mem(nc);
}

void *cg_reallocarray_impl(void *mem, size_t nmemb, size_t size, uintptr_t caller)
{
    size_t bytes;
    if (__builtin_mul_overflow(nmemb, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return cg_realloc_impl(mem, bytes, caller);
}

/* A chunk of at least nb bytes whose memory is aligned to align (a power
 * of two above 16), from a big block or an arena; NULL when out of memory. */
static cg_chunk_t *aligned_chunk(size_t nb, size_t align, bool mt)
{
    cg_chunk_t *c = NULL;
    if (nb + align >= CG_LOAD(cg_mp.mmap_threshold) && (int)CG_LOAD(cg_mp.n_mmaps) < cg_mp.n_mmaps_max)
        c = cg_big_alloc(nb, align, mt);
    bool fresh;                       /* unused: memalign promises no zeroing */
    if (c == NULL)
        c = from_arenas(nb, align, mt, NULL, &fresh);
    if (c == NULL)
        c = cg_big_alloc(nb, align, mt);
    return c;
}

void *cg_memalign_impl(size_t align, size_t n, uintptr_t caller, const char *op)
{
    cg_ensure_init();
    bool mt = !CG_SINGLE_THREAD_P;
    cg_tcache_t *tc = NULL;
    if (CG_UNLIKELY(cg_debug))
        count_debug(OP_MEMALIGN, mt);
    else
        tc = enter(caller, op, OP_MEMALIGN, mt);
    if (align > CG_ALIGN) {
        if (align > SIZE_MAX / 2 + 1) {             /* glibc: EINVAL above SIZE_MAX/2+1 */
            errno = EINVAL;
            return NULL;
        }
        if (align & (align - 1))                    /* glibc rounds up to a power of two */
            align = (size_t)1 << (64 - __builtin_clzl(align));
        if (align > CG_MAX_REQUEST || n > CG_MAX_REQUEST - align - CG_MINSIZE) {
            errno = ENOMEM;
            return NULL;
        }
    }
    if (CG_UNLIKELY(cg_debug))
        return cg_dbg_alloc(n, align > CG_ALIGN ? align : 0, CG_KIND_MEMALIGN, false, caller, op);
    if (align <= CG_ALIGN)
        return malloc_mem(n, mt, tc);
    cg_chunk_t *c = aligned_chunk(cg_request2size(n), align, mt);
    if (c == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    perturb_alloc(c);
    return cg_chunk2mem(c);
}

cg_chunk_t *cg_core_alloc(size_t nb, size_t align, bool mt)
{
    bool fresh;
    return align <= CG_ALIGN ? alloc_chunk(nb, mt, NULL, &fresh) : aligned_chunk(nb, align, mt);
}

void cg_core_free(void *mem, bool mt)
{
    bool big;
    cg_chunk_t *c = owned_chunk(mem, CG_E_INVALID_FREE, "free(): invalid pointer", mt, &big);
    release(c, big, mt, NULL);
}

int cg_posix_memalign_with(void **memptr, size_t align, size_t n, uintptr_t caller,
                           void *(*alloc)(size_t align, size_t n, uintptr_t caller, const char *op))
{
    if (align % sizeof(void *) != 0 || (align & (align - 1)) != 0 || align == 0)
        return EINVAL;
    int saved = errno;
    void *p = alloc(align, n, caller, "posix_memalign");
    errno = saved;
    if (p == NULL)
        return ENOMEM;
    *memptr = p;
    return 0;
}

void *cg_valloc_impl(size_t n, bool round_size, uintptr_t caller, const char *op)
{
    cg_ensure_init();
    if (round_size) {              /* pvalloc: a whole number of pages, at least one */
        size_t r = CG_PAGE_ROUND(n);
        if (r < n) {
            errno = ENOMEM;
            return NULL;
        }
        n = r ? r : cg_pagesize;
    }
    return cg_memalign_impl(cg_pagesize, n, caller, op);
}

size_t cg_usable_size_impl(void *mem, uintptr_t caller)
{
    size_t n;
    if (mem == NULL)
        return 0;
    if (CG_UNLIKELY(CG_LOAD(cg_reentry_live) != 0) && cg_reentry_owns(mem, &n))
        return n;
    cg_ensure_init();
    bool mt = !CG_SINGLE_THREAD_P;
    if (CG_UNLIKELY(cg_debug))
        return cg_dbg_usable(mem, caller);
    cg_self.caller = caller;
    cg_self.op = "malloc_usable_size";
    bool big;
    cg_chunk_t *c = owned_chunk(mem, CG_E_INVALID_POINTER, NULL, mt, &big);
    if (big)
        return cg_big_usable(c);
    return cg_inuse(c) ? cg_heap_usable(c) : 0;
}
