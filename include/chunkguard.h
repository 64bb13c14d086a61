/*
 * chunkguard.h — the public interface of chunkguard beyond the standard
 * malloc API.
 *
 * chunkguard is a drop-in malloc replacement (LD_PRELOAD=libchunkguard.so, or
 * link libchunkguard.a).  The standard functions (malloc, free, calloc,
 * realloc, memalign, posix_memalign, aligned_alloc, valloc, pvalloc,
 * reallocarray, malloc_usable_size, free_sized, free_aligned_sized, mallopt,
 * mallinfo2, malloc_trim, malloc_stats, malloc_info) are declared by
 * <stdlib.h> and <malloc.h>; this header adds what is chunkguard's own.
 *
 * Two builds share one core:
 *   - libchunkguard.so / libchunkguard.a export the standard names;
 *   - libchunkguard-cg.a (define CHUNKGUARD_PREFIXED before including this
 *     header) exports the same functions as cg_malloc, cg_free, ... and
 *     interposes nothing, so it can live beside glibc's malloc in one
 *     process (unit tests under ASan/UBSan/TSan, differential tests).
 */
#ifndef CHUNKGUARD_H
#define CHUNKGUARD_H

#include <stddef.h>
#include <stdio.h>
#include <malloc.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Operation counters, summed over every thread (live and exited).
 * Counts are of calls served by chunkguard, including those that fail.
 */
typedef struct cg_stats {
    unsigned long long mallocs;   /* malloc, __libc_malloc                     */
    unsigned long long frees;     /* free, free_sized, free_aligned_sized, non-NULL */
    unsigned long long callocs;   /* calloc, __libc_calloc                     */
    unsigned long long reallocs;  /* realloc, reallocarray, __libc_realloc     */
    unsigned long long memaligns; /* memalign family, valloc, pvalloc          */
    unsigned long long mmapped_chunks;   /* big blocks currently mmap'd        */
    unsigned long long heaps;     /* arena heaps currently mapped              */
    unsigned long long arenas;    /* arenas created                            */
} cg_stats_t;

/*
 * cg_get_stats - read chunkguard's operation counters.
 * @out: filled in; must not be NULL.
 * Thread-safe; the counts of threads still running are read without
 * stopping them, so they may lag by the operations in flight.
 * Never allocates; async-signal-safe except that it may race with a
 * thread starting or exiting (it then misses that thread's counts).
 */
void cg_get_stats(cg_stats_t *out);

#ifdef CHUNKGUARD_PREFIXED
/* The cg_-named core: same contracts as the standard functions. */
void  *cg_malloc(size_t size);
void   cg_free(void *ptr);
void  *cg_calloc(size_t nmemb, size_t size);
void  *cg_realloc(void *ptr, size_t size);
void  *cg_reallocarray(void *ptr, size_t nmemb, size_t size);
void  *cg_memalign(size_t alignment, size_t size);
int    cg_posix_memalign(void **memptr, size_t alignment, size_t size);
void  *cg_aligned_alloc(size_t alignment, size_t size);
void  *cg_valloc(size_t size);
void  *cg_pvalloc(size_t size);
size_t cg_malloc_usable_size(void *ptr);
void   cg_free_sized(void *ptr, size_t size);
void   cg_free_aligned_sized(void *ptr, size_t alignment, size_t size);
int    cg_mallopt(int param, int value);
struct mallinfo cg_mallinfo(void);
struct mallinfo2 cg_mallinfo2(void);
int    cg_malloc_trim(size_t pad);
void   cg_malloc_stats(void);
int    cg_malloc_info(int options, FILE *fp);
#endif

#ifdef __cplusplus
}
#endif
#endif /* CHUNKGUARD_H */
