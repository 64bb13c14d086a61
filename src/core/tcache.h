/*
 * tcache.h — the per-thread cache: 64 bins of singly linked, safe-linked
 * chunks, one size each (32..1040-byte chunks, requests up to 1032), at most
 * cg_mp.tcache_count (7) entries a bin.  No locks, no atomics: only the
 * owning thread touches its tcache.  Its pop and push, which the inline
 * paths use, are in fastpath.h; the checked pop of the slow paths is
 * cg_tcache_get (alloc.h).
 *
 * A freed entry's second word holds cg_tcache_key, a random per-process
 * value; finding it in a block being freed means "probably already in a
 * tcache" and sends free to the exact (slow) check — glibc's tcache double
 * free detection (2.29+).
 */
#ifndef CG_TCACHE_H
#define CG_TCACHE_H

#include "arena.h"
#include "checks.h"
#include "thread.h"

typedef struct cg_tentry {
    struct cg_tentry *next;     /* safe-linked (cg_protect)                   */
    uintptr_t key;              /* cg_tcache_key while in a tcache            */
} cg_tentry_t;

typedef struct cg_tcache {
    uint16_t counts[CG_TCACHE_BINS];        /* entries per bin                */
    cg_tentry_t *entries[CG_TCACHE_BINS];   /* bin heads (plain pointers)     */
    /* operation counters of this thread (cg_get_stats) */
    uint64_t n_malloc, n_free, n_calloc, n_realloc, n_memalign;
    struct cg_tcache *next_live, *prev_live;  /* live threads, under cg_list_lock */
} cg_tcache_t;

extern uintptr_t cg_tcache_key CG_HIDDEN;
/* Operation counts of exited threads and of calls served without a tcache,
 * indexed like the n_* fields above. */
extern uint64_t cg_exited_counts[5] CG_HIDDEN;

#define CG_TCACHE_MAX_REQ  ((CG_TCACHE_BINS - 1) * CG_ALIGN + CG_MINSIZE - CG_SIZE_SZ) /* 1032 */

/* Count an operation in the owner's counters: only the owner writes them,
 * cg_get_stats reads them from other threads (relaxed, no locked add). */
#define CG_COUNT(ctr) CG_STORE(ctr, CG_LOAD(ctr) + 1)

CG_INLINE size_t cg_csize2tidx(size_t csz) { return (csz - CG_MINSIZE) / CG_ALIGN; }
/* The chunk size of tcache bin idx (cg_csize2tidx's inverse). */
CG_INLINE size_t cg_tidx2csize(size_t idx) { return idx * CG_ALIGN + CG_MINSIZE; }

/* The report of a tcache link n that failed cg_tcache_link_ok: entry's
 * next pointer leads back to entry, or to no chunk of ours (tcache.c). */
void cg_tcache_report_bad_link(const void *entry, const void *link, const cg_call_t *call)
    CG_COLD CG_HIDDEN __attribute__((noreturn));

/* The full test of n, the demangled next link of entry e: NULL, or the
 * user pointer of a chunk of ours — aligned, in a heap's chunk area (not
 * its metadata or guard page, nor past its committed end), a chunk start
 * — other than e itself. */
CG_INLINE bool cg_tcache_link_ok(const cg_tentry_t *e, const cg_tentry_t *n)
{
    if (n == NULL)
        return true;
    if (n == e || !cg_aligned_ok(n) || !cg_heap_readable(n, sizeof *n))
        return false;
    return cg_start_test(cg_heap_base(n), (const char *)n - CG_HDR_SZ);
}

/* The exact check behind the key hint: is e already in bin idx?  Reports a
 * double free if so; returns normally if the key was a coincidence. */
void cg_tcache_double_free_check(cg_tcache_t *tc, size_t idx, cg_tentry_t *e,
                                 const cg_call_t *call) CG_HIDDEN;

/* The largest chunk that can carry the tcache key: a tcache entry's (a
 * fastbin chunk's, fastbin.h, is smaller). */
#define CG_KEYED_MAX_CSIZE (CG_MINSIZE + (CG_TCACHE_BINS - 1) * CG_ALIGN)

/* A heap chunk of size bytes being freed or resized (c, validated) has the
 * tcache key: is it in tc's bin of its size (tc may be NULL), or in a
 * fastbin (its fastbin mark, fastbin.h)?  Reports the double free if so;
 * returns when the key was a coincidence, or the chunk is in another
 * thread's tcache, which glibc does not find either. */
void cg_freed_key_check(cg_chunk_t *c, size_t size, cg_tcache_t *tc, const cg_call_t *call)
    CG_COLD CG_HIDDEN CG_NOINLINE;

/* Create this thread's tcache (its first slow-path call, inside: see
 * entry/reentry.h; call: that call, whose tc is still NULL); the existing
 * one, or NULL once it was shut down or when out of memory. */
cg_tcache_t *cg_tcache_init(const cg_call_t *call) CG_HIDDEN;
/* Give every cached chunk back to its arena and free the tcache (thread
 * exit, inside).  From here on the thread's frees go to the arenas. */
void cg_tcache_shutdown(void) CG_HIDDEN;
/* The operation counts of every tcache, live and gone (cg_get_stats). */
void cg_tcache_sum(uint64_t out[5], const cg_call_t *call) CG_HIDDEN;
/* After fork in the child: forget other threads' tcaches, and set every
 * operation count to zero (the child's counts are its own). */
void cg_tcache_after_fork_child(void) CG_HIDDEN;

#endif /* CG_TCACHE_H */
