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
 * In a child made by fork() (any fork that runs pthread_atfork handlers,
 * not _Fork or a raw clone) the call counts and reentrant_calls start at
 * zero: they are the child's own.  mmapped_chunks, heaps and arenas are
 * the heap's state, which the child inherits (as malloc_stats, mallinfo
 * and malloc_info report it, in glibc and here).
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
    unsigned long long reentrant_calls; /* calls made while their thread was
                                   * already inside chunkguard (a signal
                                   * handler's), served apart or reported     */
} cg_stats_t;

/*
 * cg_get_stats - read chunkguard's operation counters.
 * @out: filled in; must not be NULL.
 * Thread-safe; the counts of threads still running are read without
 * stopping them, so they may lag by the operations in flight.
 * Never allocates.  Called from inside chunkguard (a signal handler that
 * interrupted a malloc-family call, or a report callback) it fills in only
 * reentrant_calls and leaves the rest 0: the counts are read under
 * chunkguard's own locks, which the interrupted call may hold.
 * In a child made by fork() the counts start at 0, with one exception:
 * in fast mode, with neither stats_path nor suppressions set, a child that
 * a single-threaded process made with daemon() or forkpty() before it ever
 * called fork(), pthread_atfork() or started a thread also counts its
 * parent's calls (chunkguard registers its fork handlers with libc only
 * when something needs them: docs/design.md, "When they are registered").
 */
void cg_get_stats(cg_stats_t *out);

/*
 * cg_leak_check - look for leaked blocks now (debug mode only).
 * A conservative reachability scan: live blocks that no word of the
 * modules' global data, of the calling thread's live stack (from the
 * caller's stack pointer up) and registers, of the other threads' live
 * stacks and registers, or of a reachable block points into.  The other
 * threads are stopped for the scan (a real-time signal whose handler
 * waits; a system call it interrupts that is never restarted, such as
 * nanosleep, returns EINTR); one that blocks that signal is scanned
 * conservatively, or not at all, and the report says so
 * (docs/design.md, "Leak roots").  Each group of leaked blocks with one
 * allocation stack is reported on the log ("Direct leak of N byte(s) in K
 * object(s) allocated from:", or "Indirect leak" for blocks only leaked
 * blocks reach, and the stack); blocks reached from the roots are still
 * reachable, counted in the summary, not reported.
 * Returns the number of leaked blocks found (direct and indirect); 0 in
 * fast mode, which keeps no records.  Never allocates through malloc;
 * holds debug mode's shadow lock during the scan (other threads' calls
 * wait for it).  Thread-safe; a second check while one runs returns 0.
 * Each group also goes to report_path (JSON) and to the report callback,
 * kind "memory-leak" (docs/reports.md).
 * With CHUNKGUARD_OPTIONS=detect_leaks=1 the check runs at exit, and leaks
 * make the exit status 23 (or exitcode).  Called from inside chunkguard (a
 * signal handler that interrupted it, a report callback) it scans nothing
 * and returns 0; the call is counted in cg_get_stats' reentrant_calls.
 */
size_t cg_leak_check(void);

/* One report, as the callback receives it (valid during the call only). */
typedef struct cg_report {
    const char *kind;        /* the token: "double-free", "heap-buffer-overflow", ... */
    const void *address;     /* the address the report is about              */
    const char *text;        /* the whole text report, as written to the log */
    const char *json;        /* the same as one JSON object (docs/reports.md) */
    int pid;
    int thread;              /* chunkguard's thread number, -1 if not known  */
    int recoverable;         /* 1: the process may go on after the callback   */
} cg_report_t;

typedef void (*cg_report_callback_t)(const cg_report_t *report, void *arg);

/*
 * cg_set_report_callback - call cb(report, arg) after every report has been
 * written (to the log, and to report_path).  When cb returns and the error
 * is recoverable (debug mode's bad frees, overflows, uses after free), the
 * program goes on as with halt_on_error=0: the bad block is never reused.
 * Otherwise the process ends as the options say.  For tests and fuzz
 * harnesses, which count reports instead of dying (cb may also longjmp
 * out, but chunkguard's report lock then stays taken: no further report).
 * cb runs under chunkguard's report lock, possibly with an arena lock held
 * (fast mode's heap-corruption reports): it must not call malloc or free.
 * NULL removes the callback.  Thread-safe.
 */
void cg_set_report_callback(cg_report_callback_t cb, void *arg);

/*
 * cg_describe - what chunkguard knows of an address, in words, into buf
 * (cap bytes, always NUL-terminated; returns the length).  In debug mode:
 * the block it is in or next to (offset, size, state, how it was
 * allocated) and its allocation and free stacks.  In fast mode: whether it
 * is in one of chunkguard's heaps or big blocks, the chunk it is in and
 * whether that chunk is in use.  In every mode, for a guarded block (guard
 * mode, or one sampled into a guard slot) and the pages around it: the
 * block the address is in or next to as above, and whether the address is
 * on the block's guard page (before or after it) or on guard-region pages
 * no block has (a guard slot not in use), naming the nearest block within
 * 1 MiB — what a fault there would be blamed on.  Never allocates;
 * thread-safe, but a block
 * another thread frees meanwhile may be described in its old state.
 */
size_t cg_describe(const void *addr, char *buf, size_t cap);

/*
 * cg_verify_heap - check the whole heap now: every arena's heaps chunk by
 * chunk (sizes, alignment, the chunk-start map, PREV_INUSE against the
 * chunk before, no two free chunks side by side), every bin (each free
 * chunk in exactly one bin of its size class, fd/bk symmetric, large bins
 * sorted), every fastbin (from a snapshot of its head), the calling
 * thread's tcache (entries of the right size, counts), the top chunks and
 * fenceposts, the mmap'd blocks against their registry, and in debug mode
 * redzones, the poison of quarantined blocks and the shadow records.
 * Each inconsistency is reported on the log like any other error, first
 * line "==PID==ERROR: chunkguard: <token> on address 0x...", then
 * "heap check: <kind>: <details>" (docs/reports.md lists the kinds).
 * Returns 0 when the heap is consistent, else the number of problems found.
 * Without a report callback (cg_set_report_callback) the first report ends
 * the process as the options say; with one, or with halt_on_error=0 in
 * debug mode, every problem is reported and counted and the call returns.
 * Thread-safe: takes chunkguard's locks in their declared order and holds
 * them all for the walk, so other threads' allocations wait (O(heap) time).
 * Never crashes on a corrupted heap: every link is checked before it is
 * followed, every walk is bounded.  Never allocates through malloc.  Not
 * async-signal-safe: called from inside chunkguard (a signal handler that
 * interrupted it, a report callback) it checks nothing and returns
 * SIZE_MAX, counted in cg_get_stats' reentrant_calls.
 * CHUNKGUARD_OPTIONS=verify_interval=N runs it every N allocator
 * operations.
 */
size_t cg_verify_heap(void);

/*
 * cg_default_options - options built into a program that links
 * libchunkguard.a (or libchunkguard-cg.a): define this function, and the
 * string it returns ("key=value:key=value", as CHUNKGUARD_OPTIONS, ':' or ',') is
 * applied before CHUNKGUARD_OPTIONS, which can still override each key.
 * Called once, at chunkguard's initialisation, which may be the first
 * malloc of the process (inside the dynamic loader, before any
 * constructor): it must return a constant string and must not allocate,
 * take locks or depend on initialised state.  Fuzz harnesses and test
 * programs use it to fix mode=debug before the first allocation.  Not
 * honoured through LD_PRELOAD (the library's own default, NULL, binds
 * first); path options in it are trusted even in a set-uid process.
 */
const char *cg_default_options(void);

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
