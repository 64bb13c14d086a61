/*
 * lock.h — chunkguard's own lock, cg_lock_t, and the token that pairs a
 * lock with its unlock.
 *
 * A futex lock (Drepper's three-state mutex: 0 free, 1 held, 2 held with
 * waiters) that knows its holder: the kernel thread id of the owner and
 * where the owner took it (a return address in fast mode, a stack-depot id
 * in debug mode).  Not recursive — a thread taking a lock it already holds
 * gets a `deadlock` report naming the lock and both acquisition sites, not
 * a hang; a wait longer than deadlock_timeout_ms gets `lock-wait-timeout`
 * with the holder (lock.c).  In debug mode every acquisition also feeds the
 * lock-order graph (lockdep.c).  Design: docs/design.md, "Locks".
 *
 * Single-threaded operations take no lock.  The decision is made once,
 * where the lock would be taken, and handed to the unlock as a token:
 *     cg_tok_t t = cg_lock_if(&av->lock, mt);
 *     ...
 *     cg_unlock_if(&av->lock, t);
 * so a lock elided while the process was single-threaded is never
 * "released" after the process gained a thread in between.  The token is
 * a struct so that passing the old bool to the unlock does not compile.
 *
 * Included by platform.h (at its end); nothing here allocates.
 */
#ifndef CG_LOCK_H
#define CG_LOCK_H

#include "call.h"
#include "config.h"
#include "thread.h"
#include "platform.h"

typedef struct cg_lock {
    uint32_t state;     /* 0 free, 1 held, 2 held and contended          */
    uint32_t owner;     /* kernel tid of the holder, 0 when free         */
    uintptr_t site;     /* where the holder took it (CG_SITE_* below)    */
    uint16_t node;      /* lock-order graph node, CG_LK_* (0: untracked) */
    uint32_t gen;       /* acquisitions so far: a waiter's deadlock clock
                         * restarts when it moves (lock.c)               */
} cg_lock_t;

/*
 * Lock-order graph nodes: one per lock instance.  The singletons are
 * listed in the order the fork handlers take them (docs/design.md, "Fork"),
 * but for the report lock, which they do not take;
 * arena i is node CG_LK_ARENA0 + i (arenas beyond CG_LK_MAX are not
 * tracked).  Within the arena class the declared order is by index.
 */
enum {
    CG_LK_NONE = 0,
    CG_LK_LIST,         /* arena list and free list (arena_select.c)     */
    CG_LK_ARENA0,       /* arenas, by index, nodes ARENA0..CG_LK_MAX-1    */
    CG_LK_MAX = 48,
    CG_LK_BIG = CG_LK_MAX, /* big-block registry (bigblock.c)            */
    CG_LK_SHADOW,       /* debug shadow records (shadow.c)               */
    CG_LK_DTHREADS,     /* debug per-thread blocks' registry (dthread.c) */
    CG_LK_DTHREAD,      /* a debug per-thread block (dthread.h); these two
                         * name their locks in reports, taken with
                         * cg_lock_raw: never in the lock-order graph    */
    CG_LK_QUARANTINE,   /* debug quarantine (quarantine.c)               */
    CG_LK_GUARD,        /* guard mode's ranges (guardpool.c)             */
    CG_LK_DEPOT,        /* stack depot (stackdepot.c)                    */
    CG_LK_SYMCACHE,     /* symbolizer's file cache (symbolize.c)         */
    CG_LK_REPORT,       /* one report at a time (report.c)               */
    CG_LK_NODES         /* <= 64: adjacency sets are uint64_t            */
};
static_assert(CG_LK_NODES <= 64, "lock-order graph nodes fit a 64-bit set");

#define CG_LOCK_INIT(node_) { 0, 0, 0, (node_), 0 }

/* A site word: a code address, or a stack-depot id with the top bit set. */
#define CG_SITE_STACK ((uintptr_t)1 << 63)

/* The token: what cg_lock_if did. */
typedef struct cg_tok {
    bool held;
} cg_tok_t;

/* How many times cg_lock_slow polls a held lock (with a CPU pause between
 * polls, roughly 4 µs in all) before it sleeps in the kernel.  Arena
 * critical sections last about 100 ns, far less than a futex sleep and
 * wake-up, so a short spin saves the two context switches that a contended
 * acquisition otherwise costs (measured on the two-thread bench row; see
 * docs/performance.md).  The idea is glibc's adaptive mutex
 * (PTHREAD_MUTEX_ADAPTIVE_NP), bounded by a constant here. */
#ifndef CG_LOCK_SPIN
#define CG_LOCK_SPIN 100
#endif

#if defined(__x86_64__) || defined(__i386__)
#define CG_CPU_RELAX() __builtin_ia32_pause()
#else
#define CG_CPU_RELAX() __asm__ __volatile__("" ::: "memory")
#endif

/* The calling thread's kernel id (cached in cg_self; reset in a fork
 * child). */
uint32_t cg_lock_tid_slow(void) CG_HIDDEN;
CG_INLINE uint32_t cg_lock_me(void)
{
    uint32_t t = cg_self.ktid;
    return CG_LIKELY(t != 0) ? t : cg_lock_tid_slow();
}

/* Debug mode: acquisitions record a stack for their site and go through
 * the lock-order graph (debug/lockdep.c, through cg_lock_hooks). */
extern bool cg_lockdep_on CG_HIDDEN;

/* What a fatal lock report is about (cg_lock_hooks.report). */
typedef enum cg_lock_event {
    CG_LOCK_EV_DEADLOCK,        /* this thread re-takes a lock it holds   */
    CG_LOCK_EV_TIMEOUT,         /* a wait longer than deadlock_timeout_ms */
} cg_lock_event_t;

/*
 * The hook through which this layer reaches the layers above it
 * (docs/design.md, "Hooks"): set once by init (entry/init.c) while the
 * process is single-threaded, read without a lock afterwards.
 *   debug_lock      debug mode's cg_lock_at: a stack for the site, the
 *                   lock, the lock-order graph; called only while
 *                   cg_lockdep_on, which is set after it; call: the call
 *                   the lock is taken for, or NULL
 *   debug_acquired  the graph's note of a lock cg_trylock took
 *   report          the fatal report ev about lock l, taken (or waited for)
 *                   at site by this thread for call (NULL: for none; else
 *                   the report names its function and call site); detail:
 *                   its numbers and names
 *                   (the words are the catalogue's, report/checks.def);
 *                   holder and held_site describe the other acquisition,
 *                   titled held_title.  NULL before init: a plain message
 *                   and abort (lock.c)
 */
typedef struct cg_lock_hooks {
    void (*debug_lock)(struct cg_lock *l, uintptr_t site, const cg_call_t *call);
    void (*debug_acquired)(struct cg_lock *l);
    void (*report)(cg_lock_event_t ev, const struct cg_lock *l, uintptr_t site,
                   const cg_call_t *call, const char *detail, uint32_t holder, uintptr_t held_site,
                   const char *held_title) __attribute__((noreturn));
} cg_lock_hooks_t;
extern cg_lock_hooks_t cg_lock_hooks CG_HIDDEN;

void cg_lock_slow(cg_lock_t *l, uintptr_t site, const cg_call_t *call) CG_HIDDEN;
void cg_unlock_wake(cg_lock_t *l) CG_HIDDEN;
void cg_lock_assert_failed(const cg_lock_t *l, const char *what, const char *where)
    CG_COLD CG_HIDDEN __attribute__((noreturn));

/* The new holder (this thread, just now) notes itself: owner, site, and
 * one more acquisition.  Plain relaxed stores by the holder; waiters and
 * reports read them. */
CG_INLINE void cg_lock_taken(cg_lock_t *l, uintptr_t site)
{
    CG_STORE(l->owner, cg_lock_me());
    CG_STORE(l->site, site);
    CG_STORE(l->gen, CG_LOAD(l->gen) + 1);
}

/* Take l (always; for locks every operation takes).  site: where; call:
 * the call it is taken for (a report about the lock names it), or NULL.
 * Debug mode's bookkeeping (a stack for the site, the lock-order graph) is
 * out of line, behind one predictable branch. */
CG_INLINE void cg_lock_raw(cg_lock_t *l, uintptr_t site, const cg_call_t *call)
{
    uint32_t zero = 0;
    if (!__atomic_compare_exchange_n(&l->state, &zero, 1, false,
                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        cg_lock_slow(l, site, call);
    cg_lock_taken(l, site);
}

CG_INLINE void cg_lock_at(cg_lock_t *l, uintptr_t site, const cg_call_t *call)
{
    if (CG_UNLIKELY(cg_lockdep_on))
        cg_lock_hooks.debug_lock(l, site, call);
    else
        cg_lock_raw(l, site, call);
}

CG_INLINE void cg_unlock(cg_lock_t *l)
{
    if (CG_SWITCH(CG_LOCK_ASSERTS) && CG_UNLIKELY(CG_LOAD(l->owner) != cg_lock_me()))
        cg_lock_assert_failed(l, "unlock of a lock this thread does not hold", __func__);
    CG_STORE(l->owner, 0);
    if (CG_UNLIKELY(cg_lockdep_on))
        cg_self.lk_held &= ~((uint64_t)1 << l->node);
    if (__atomic_exchange_n(&l->state, 0, __ATOMIC_RELEASE) == 2)
        cg_unlock_wake(l);
}

#define cg_lock(l) cg_lock_at((l), CG_RET_ADDR, NULL)
/* Take l (always) on behalf of *call (NULL: none): its site is the call's
 * call site when it has one, so that a report about the lock (this
 * thread's deadlock or wait, another thread's wait behind it) names the
 * program's frame, not the chunkguard function that took it (the fork
 * handlers: entry/init.c). */
#define cg_lock_for(l, call) \
    cg_lock_at((l), (call) != NULL && (call)->caller ? (call)->caller : CG_RET_ADDR, (call))

/* Take l if it is free; never waits.  True when taken. */
CG_INLINE bool cg_trylock(cg_lock_t *l)
{
    uint32_t zero = 0;
    if (!__atomic_compare_exchange_n(&l->state, &zero, 1, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
        return false;
    cg_lock_taken(l, CG_RET_ADDR);
    if (CG_UNLIKELY(cg_lockdep_on))
        cg_lock_hooks.debug_acquired(l);
    return true;
}

/* Reset after fork in the child: the holder thread does not exist there. */
CG_INLINE void cg_lock_reinit(cg_lock_t *l)
{
    l->state = 0;
    l->owner = 0;
    cg_self.lk_held &= ~((uint64_t)1 << l->node);
}

/* Fork: after the fork handlers held l across fork(), the parent releases
 * it, the child (where its holder may not exist) resets it. */
CG_INLINE void cg_lock_after_fork(cg_lock_t *l, bool child)
{
    if (child)
        cg_lock_reinit(l);
    else
        cg_unlock(l);
}

/* Lock taken only when the operation decided it runs multi-threaded;
 * the token says whether it was.  cg_lock_if: for no call in particular
 * (a report about the lock names none). */
#define cg_lock_if(l, mt) cg_lock_if_at((l), (mt), CG_RET_ADDR, NULL)
/* For the API call *call (taken when call->mt): a report about the lock
 * (deadlock, lock-wait-timeout, lock-order-inversion) names the call's
 * function and adds its call site under the site of the lock. */
#define cg_lock_if_call(l, call) cg_lock_if_at((l), (call)->mt, CG_RET_ADDR, (call))
/* The same, for a lock whose holder is best described by the program's
 * call (an arena's, from a slow path): its site is the call's call site,
 * so that a report about the lock names the program's frame rather than
 * the chunkguard function that took it. */
#define cg_lock_if_op(l, call) \
    cg_lock_if_at((l), (call)->mt, (call)->mt && (call)->caller ? (call)->caller : CG_RET_ADDR, \
                  (call))
CG_INLINE cg_tok_t cg_lock_if_at(cg_lock_t *l, bool mt, uintptr_t site, const cg_call_t *call)
{
    if (mt)
        cg_lock_at(l, site, call);
    return (cg_tok_t){ mt };
}

#if CG_SWITCH(CG_MUTANT_UNLOCK_REDECIDES)
/* Mutant (tests/suites/52-locks.sh): the unlock asks "multi-threaded?"
 * again instead of using the token — the bug the token exists to prevent. */
extern char __libc_single_threaded;
#define cg_unlock_if(l, tok) ((void)(tok), cg_unlock_if_tok((l), (cg_tok_t){ !__libc_single_threaded }))
#else
#define cg_unlock_if(l, tok) cg_unlock_if_tok((l), (tok))
#endif
CG_INLINE void cg_unlock_if_tok(cg_lock_t *l, cg_tok_t tok)
{
    if (tok.held)
        cg_unlock(l);
}

/*
 * CG_HELD(l, mt) - the "caller holds l (when mt)" contract, checked against
 * real ownership in builds with CG_LOCK_ASSERTS=1 (the test builds); no
 * code at all in the shipped library.
 */
#define CG_HELD(l, mt)                                                         \
    do {                                                                       \
        if (CG_SWITCH(CG_LOCK_ASSERTS) && (mt) &&                              \
            CG_UNLIKELY(CG_LOAD((l)->owner) != cg_lock_me()))                  \
            cg_lock_assert_failed((l), "the caller must hold this lock", __func__); \
    } while (0)

/* The lock's name for reports: "arena 3", "big-block registry", ... */
size_t cg_lock_name(const cg_lock_t *l, char *buf, size_t cap) CG_HIDDEN;

#endif /* CG_LOCK_H */
