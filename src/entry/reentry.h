/*
 * reentry.h — the per-thread "inside the allocator" mark, and what a call
 * that finds it set gets (reentry.c).
 *
 * A signal handler that calls malloc or free while its thread is inside
 * chunkguard would otherwise meet half-updated state: a tcache bin between
 * reading its head and writing it back, a bin half-unlinked on the
 * single-threaded path (no lock is taken there), or — multi-threaded — an
 * arena lock its own thread holds.  So every operation marks the thread:
 *
 *   - the inline fast paths (tcache hits) clear cg_self.tcache for the few
 *     instructions they run, and put it back: two plain stores to an
 *     initial-exec TLS word, no load, no compare, no atomic.  A call from a
 *     handler then finds no tcache and takes the slow path;
 *   - the slow paths set cg_self.inside and clear cg_self.tcache for their
 *     whole run (cg_inside_begin/end); the thread's tcache stays in
 *     cg_self.cache (base/thread.h has the state).
 *
 * A slow path that finds the thread inside (the byte set, or no tcache
 * while the thread has one) is a re-entrant call: it is counted, reported
 * in debug mode (`reentrant-call`), and served without touching anything
 * the interrupted call may be changing (reentry.c).  Compiler barriers
 * (signal fences) keep the tcache accesses between the stores; a handler
 * runs on the same thread, so nothing else is needed.
 */
#ifndef CG_REENTRY_H
#define CG_REENTRY_H

#include "thread.h"
#include "vgclient.h"

/* True when this thread is already inside chunkguard (a signal handler,
 * or code chunkguard itself calls, calling back in).  Not when the mark
 * was left by a report the thread jumped out of (cg_reentry_went_on). */
bool cg_reentry_went_on(void) CG_HIDDEN CG_COLD;
CG_INLINE bool cg_reentered(void)
{
    if (!CG_SWITCH(CG_REENTRY_MARK))
        return false;
    if (CG_LIKELY(!cg_self.inside && (cg_self.tcache != NULL || cg_self.state != CG_T_CACHED)))
        return false;
    return !cg_reentry_went_on();
}

extern size_t cg_reentry_pending CG_HIDDEN;   /* frees waiting (reentry.c) */
extern size_t cg_reentry_live CG_HIDDEN;      /* blocks served to handlers  */
void cg_reentry_drain(void) CG_HIDDEN;

/* Free what signal handlers left pending, if anything (a slow path, once
 * marked inside). */
CG_INLINE void cg_reentry_drain_pending(void)
{
    if (CG_UNLIKELY(CG_LOAD(cg_reentry_pending) != 0))
        cg_reentry_drain();
}

/* Start and end a slow path (the caller checked cg_reentered()).  While
 * inside, the thread's tcache is cg_self.cache only. */
CG_INLINE void cg_inside_begin(void)
{
    if (CG_SWITCH(CG_REENTRY_MARK)) {
        cg_self.inside = 1;
        cg_self.tcache = NULL;
    }
    CG_SIGNAL_FENCE();
    cg_reentry_drain_pending();
}

CG_INLINE void cg_inside_end(void)
{
    CG_SIGNAL_FENCE();
    cg_self.tcache = cg_self.cache;
    cg_self.inside = 0;
}

/* A whole slow path under the mark: returns the re-entrant answer when
 * the thread is already inside, else runs body.  Under valgrind's
 * memcheck it runs body quiet (memcheck reports nothing the thread does
 * meanwhile): chunkguard's own accesses to the memory it keeps from the
 * program (base/vgclient.h).  That body is a second copy, so that off
 * valgrind the path costs one predictable branch and no register more.
 * (The inline paths' hand-offs need no window: no thread has a tcache
 * under valgrind.) */
#define CG_GUARDED(reentrant, body)                                      \
    do {                                                                 \
        if (CG_UNLIKELY(cg_reentered()))                                 \
            return (reentrant);                                          \
        if (CG_UNLIKELY(cg_vg_on)) {                                     \
            cg_vg_quiet_begin_slow();                                    \
            cg_inside_begin();                                           \
            __typeof__(body) quiet_r_ = (body);                          \
            cg_inside_end();                                             \
            cg_vg_quiet_end_slow();                                      \
            return quiet_r_;                                             \
        }                                                                \
        cg_inside_begin();                                               \
        __typeof__(body) guarded_r_ = (body);                            \
        cg_inside_end();                                                 \
        return guarded_r_;                                               \
    } while (0)
#define CG_GUARDED_VOID(reentrant, body)                                 \
    do {                                                                 \
        if (CG_UNLIKELY(cg_reentered())) {                               \
            reentrant;                                                   \
            return;                                                      \
        }                                                                \
        bool quiet_ = CG_UNLIKELY(cg_vg_on);                             \
        if (quiet_)                                                      \
            cg_vg_quiet_begin_slow();                                    \
        cg_inside_begin();                                               \
        body;                                                            \
        cg_inside_end();                                                 \
        if (quiet_)                                                      \
            cg_vg_quiet_end_slow();                                      \
    } while (0)

/*
 * The re-entrant calls (reentry.c).  All are async-signal-safe, take no
 * chunkguard lock and touch no arena, tcache or bin:
 *   - allocations get fresh zeroed pages of their own (mmap), recorded in a
 *     fixed lock-free table; align 0 means the default 16;
 *   - a free is deferred: the pointer waits in a lock-free table until the
 *     next slow path of any thread not inside (cg_inside_begin) frees it;
 *     a block from the table above is unmapped at once;
 *   - realloc copies into a fresh block and defers the free (one call,
 *     counted once);
 *   - usable_size answers for blocks it can size without a lock.
 * A call that cannot be served (a table full) is reported
 * (`reentrant-call`) and ends the process; in debug mode every re-entrant
 * call is reported (halt_on_error=0 goes on and serves it).  caller and op
 * name the call for the report.
 */
void  *cg_reentry_alloc(size_t n, size_t align, uintptr_t caller, const char *op) CG_HIDDEN;
void   cg_reentry_free(void *mem, uintptr_t caller, const char *op) CG_HIDDEN;
void  *cg_reentry_realloc(void *mem, size_t n, uintptr_t caller) CG_HIDDEN;
size_t cg_reentry_usable(void *mem, uintptr_t caller) CG_HIDDEN;
/* memalign, aligned_alloc and posix_memalign's allocation: the alignment
 * checked and rounded as from outside (EINVAL, ENOMEM). */
void  *cg_reentry_memalign(size_t align, size_t n, uintptr_t caller, const char *op) CG_HIDDEN;
/* valloc, and with round_size pvalloc (n rounded up to whole pages). */
void  *cg_reentry_valloc(size_t n, bool round_size, uintptr_t caller, const char *op) CG_HIDDEN;
/* An introspection call (mallinfo2, malloc_stats, cg_verify_heap, ...)
 * made while the thread is inside: counted, and reported in an
 * instrumented mode (once per call site; never from inside a report, a
 * report callback's call is only counted), as the other re-entrant calls;
 * the caller then returns its empty answer. */
void   cg_reentry_query(const char *op, uintptr_t caller) CG_HIDDEN;
/* Outside: a block served to a handler is given back (unmapped) and true
 * returned; false for any other pointer.  *usable, when not NULL, gets its
 * size instead and nothing is freed. */
bool   cg_reentry_owns(void *mem, size_t *usable) CG_HIDDEN;
bool   cg_reentry_release(void *mem) CG_HIDDEN;
/* Re-entrant calls seen so far (cg_get_stats). */
uint64_t cg_reentry_count(void) CG_HIDDEN;
/* After fork in the child: the count starts again at zero (the child's
 * cg_get_stats counts its own calls, as the operation counts do). */
void cg_reentry_after_fork_child(void) CG_HIDDEN;

#endif /* CG_REENTRY_H */
