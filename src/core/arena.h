/*
 * arena.h — arenas: bins, fastbins, top chunk, and the process-wide
 * parameters that mallopt changes.
 *
 * Bins follow glibc: bin 1 is the unsorted bin, bins 2..63 hold one small
 * size each (32..1008 bytes), bins 64..126 hold ranges of large sizes kept
 * sorted (largest first).  Fastbins are singly linked LIFO lists of chunks
 * of one size each (32..176 bytes) that stay "in use" to the rest of the
 * heap until malloc_consolidate merges them.
 *
 * Locking: the arena lock protects everything in cg_arena_t except the
 * fastbin heads, which free pushes without the lock (compare-and-swap) and
 * malloc pops only under the lock — with a single popper there is no ABA
 * (glibc's scheme).  A single-threaded operation takes no lock and uses
 * plain loads and stores; `call->mt` below is that decision, made once per
 * operation at the top (call: the call being served, base/call.h, which
 * every function that may report or take an arena lock is given).
 */
#ifndef CG_ARENA_H
#define CG_ARENA_H

#include "heap.h"
#include "lock.h"

typedef struct cg_arena {
    cg_lock_t lock;
    int index;                            /* 0 for the main arena             */
    int have_fastchunks;                  /* some fastbin may be non-empty    */
    cg_chunk_t *fastbins[CG_NFASTBINS];   /* heads, safe-linked chains        */
    cg_chunk_t *top;                      /* the top chunk                    */
    cg_chunk_t *last_remainder;           /* remainder of the last small split */
    cg_chunk_t *bins[CG_NBINS * 2 - 2];   /* fd/bk pairs; see cg_bin_at       */
    unsigned binmap[4];                   /* one bit per bin that may hold chunks */
    cg_heap_t *heap;                      /* the heap holding top (newest)    */
    uintptr_t link_lo;                    /* heap's first chunk address, and  */
    size_t link_span;                     /* the span where a chunk header is
                                           * readable (0: no heap); set by
                                           * cg_arena_set_heap               */
    struct cg_arena *next;                /* all arenas, by creation          */
    struct cg_arena *next_free;           /* arenas with no attached thread   */
    size_t attached_threads;              /* threads using this arena         */
    size_t system_mem;                    /* bytes of heap in use (committed) */
    size_t max_system_mem;                /* high-water mark of system_mem    */
} cg_arena_t;

/* Process-wide parameters (mallopt, tunables) and mmap statistics. */
typedef struct cg_params {
    size_t mmap_threshold;      /* requests at or above go to mmap           */
    size_t trim_threshold;      /* top above this is given back              */
    size_t top_pad;             /* extra bytes when growing or trimming top  */
    int    n_mmaps_max;         /* at most this many big blocks (M_MMAP_MAX) */
    int    no_dyn_threshold;    /* set once the user fixes a threshold       */
    size_t arena_max;           /* 0: 8 x cores                              */
    size_t max_fast;            /* largest fastbin chunk size (0: none)      */
    int    alloc_fill;          /* byte new blocks are filled with (-1: off) */
    int    free_fill;           /* byte freed blocks are filled with (-1: off) */
    size_t tcache_bins;         /* tcache bins in use (tcache_max)           */
    size_t tcache_fast_bins;    /* bins the inline fast paths serve: 0 while
                                 * M_PERTURB is set, so every block is filled */
    size_t tcache_count;        /* entries per tcache bin                    */
    size_t tcache_max_csize;    /* largest chunk size the tcache holds (0: none) */
    /* statistics, updated atomically */
    size_t n_mmaps, max_n_mmaps, mmapped_mem, max_mmapped_mem;
    size_t narenas;
} cg_params_t;

extern cg_params_t cg_mp CG_HIDDEN;
extern size_t cg_ncpus CG_HIDDEN;          /* CPUs, set at init (arena_max) */

/* Fork handlers (entry/init.c): every arena lock, in index order. */
void cg_arenas_lock_all(const cg_call_t *call) CG_HIDDEN;
void cg_arenas_unlock_all(bool child) CG_HIDDEN;
/* Make heap h the arena's first (or next) heap: its top chunk. */
bool cg_arena_setup_heap(cg_arena_t *av, cg_heap_t *h) CG_HIDDEN;
extern cg_arena_t cg_main_arena CG_HIDDEN;
extern cg_lock_t cg_list_lock CG_HIDDEN;   /* arena list and free list */

/* Size classes. */
CG_INLINE size_t cg_fastbin_index(size_t sz) { return (sz >> 4) - 2; }
CG_INLINE bool cg_in_smallbin_range(size_t sz) { return sz < CG_MIN_LARGE_SIZE; }
CG_INLINE size_t cg_smallbin_index(size_t sz) { return sz >> 4; }
/* glibc's largebin_index_64: 32 bins 64 apart, 16 bins 512 apart, 8 bins
 * 4096 apart, 4 bins 32768 apart, 2 bins 262144 apart, 1 bin the rest. */
CG_INLINE size_t cg_largebin_index(size_t sz)
{
    if ((sz >> 6) <= 48) return 48 + (sz >> 6);
    if ((sz >> 9) <= 20) return 91 + (sz >> 9);
    if ((sz >> 12) <= 10) return 110 + (sz >> 12);
    if ((sz >> 15) <= 4) return 119 + (sz >> 15);
    if ((sz >> 18) <= 2) return 124 + (sz >> 18);
    return 126;
}
CG_INLINE size_t cg_bin_index(size_t sz)
{
    return cg_in_smallbin_range(sz) ? cg_smallbin_index(sz) : cg_largebin_index(sz);
}
/* Bin i's header is a fake chunk whose fd/bk overlay bins[2i-2..2i-1]. */
CG_INLINE cg_chunk_t *cg_bin_at(cg_arena_t *av, size_t i)
{
    return (cg_chunk_t *)((char *)&av->bins[(i - 1) * 2] - offsetof(cg_chunk_t, fd));
}
#define CG_UNSORTED 1

/* Arena operations.  Unless noted, the caller holds av->lock when
 * call->mt. */
void cg_arena_init(cg_arena_t *av, int index) CG_HIDDEN;
/* A chunk of at least nb bytes (in use), or NULL when out of memory.  When
 * tc is given, further chunks of the same size found in a fastbin or small
 * bin are moved into it (glibc's tcache stashing), so the next mallocs of
 * that size are tcache hits.  *fresh: the memory is known to read zero. */
struct cg_tcache;
cg_chunk_t *cg_arena_malloc(cg_arena_t *av, size_t nb, const cg_call_t *call, bool *fresh,
                            struct cg_tcache *tc) CG_HIDDEN;
cg_chunk_t *cg_arena_memalign(cg_arena_t *av, size_t align, size_t nb, const cg_call_t *call)
    CG_HIDDEN;
/* Free a non-fast chunk, taking the arena lock when call->mt.  Out of line
 * so that the inline free paths (cg_arena_free in fastbin.h) stay small. */
void cg_arena_free_slow(cg_arena_t *av, cg_chunk_t *c, const cg_call_t *call)
    CG_HIDDEN CG_NOINLINE;
/* cg_fast_free's next-size test failed: unless locked, test again under
 * av's lock (when call->mt), and report NEXT_SIZE_FAST if it still fails. */
void cg_fast_free_recheck(cg_arena_t *av, cg_chunk_t *c, size_t size, bool locked,
                          const cg_call_t *call) CG_HIDDEN CG_COLD;
/* Free with the lock already held (or single-threaded); any size. */
void cg_arena_free_locked(cg_arena_t *av, cg_chunk_t *c, const cg_call_t *call) CG_HIDDEN;
/* Try to resize an in-use chunk in place to nb; true on success. */
bool cg_arena_resize(cg_arena_t *av, cg_chunk_t *c, size_t nb, const cg_call_t *call) CG_HIDDEN;
void cg_arena_consolidate(cg_arena_t *av, const cg_call_t *call) CG_HIDDEN;
int  cg_arena_trim(cg_arena_t *av, size_t pad, bool release_free, const cg_call_t *call)
    CG_HIDDEN;

/* Arena selection (arena_select.c). */
cg_arena_t *cg_arena_pick(const cg_call_t *call) CG_HIDDEN;
cg_arena_t *cg_arena_retry(cg_arena_t *failed, const cg_call_t *call) CG_HIDDEN;
void cg_arena_detach_thread(void) CG_HIDDEN;

CG_INLINE cg_arena_t *cg_arena_of(const cg_chunk_t *c) { return cg_heap_base(c)->arena; }

/* Make h the arena's current heap (the one holding top).  Also sets the
 * range that link checks accept without a heap-map lookup: every address
 * in h where a chunk header (fd/bk included) can be read, up to its
 * committed end — so it is set again whenever that heap grows or shrinks. */
CG_INLINE void cg_arena_set_heap(cg_arena_t *av, cg_heap_t *h)
{
    av->heap = h;
    av->link_lo = (uintptr_t)h + CG_HEAP_DATA_OFF;
    av->link_span = h->size - CG_HEAP_DATA_OFF - sizeof(cg_chunk_t) + 1;
}

/* Can a chunk header with its links be read at x?  In the arena's current
 * heap below its committed end: two compares against the arena's own
 * fields (most links point there); elsewhere cg_heap_readable decides,
 * which loads the other heap's size.  Caller holds av's lock (or runs
 * single-threaded): the span changes with the heap's size under it. */
CG_INLINE bool cg_arena_readable(const cg_arena_t *av, const void *x)
{
    return (uintptr_t)x - av->link_lo < av->link_span || cg_heap_readable(x, sizeof(cg_chunk_t));
}

/* Walk all arenas without the list lock: arenas are only ever appended,
 * published with a release store. */
CG_INLINE cg_arena_t *cg_arena_next(const cg_arena_t *av)
{
    return __atomic_load_n(&av->next, __ATOMIC_ACQUIRE);
}

/* The calling thread's arena; picks one on the thread's first use. */
#include "thread.h"
CG_INLINE cg_arena_t *cg_arena_for_thread(const cg_call_t *call)
{
    cg_arena_t *av = cg_self.arena;
    return CG_LIKELY(av != NULL) ? av : cg_arena_pick(call);
}

#endif /* CG_ARENA_H */
