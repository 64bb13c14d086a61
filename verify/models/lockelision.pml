/*
 * lockelision.pml — the single-threaded fast path's lock elision across the
 * switch to multi-threaded, on the real three-state futex lock.
 *
 * C code modelled:
 *   src/platform.h  cg_lock_if / cg_unlock_if (and cg_lock, cg_unlock,
 *                   src/platform.c cg_lock_slow, cg_unlock_wake: cglock.pml)
 *   src/alloc.c     cg_malloc_slow, cg_free_slow, ...: `bool mt =
 *                   !CG_SINGLE_THREAD_P` read once at the top of the
 *                   operation and passed down; from_arena takes and drops
 *                   the arena lock with that same mt
 *   src/arena.c     cg_arena_free_slow, cg_arena_resize: the same pairing
 *   src/arena_select.c cg_arena_detach_thread: the same pairing
 * glibc keeps __libc_single_threaded true until the first pthread_create,
 * which clears it before the new thread runs, and never sets it again in
 * that process.  Only a thread can create a thread, so while the process
 * is single-threaded the new thread is created by the one thread there is:
 * between its operations, or from inside one (a call-out, a signal
 * handler).  The model lets the main thread create a thread at each of
 * those points: before an operation's decision, between the decision and
 * the lock, and inside the critical section.
 *
 * The pairing is "the unlock uses the decision the lock made": the mt
 * value is captured once and both cg_lock_if and cg_unlock_if get it, so
 * they agree even when the process gains a thread in between.  (A lock
 * token that records whether the lock was taken says the same thing.)
 *
 * Properties:
 *   P1 no thread releases a lock it does not hold (cglock.pml, cg_unlock's
 *      owner assertion) — in particular not a lock its operation elided;
 *   P2 mutual exclusion of the threads that took the lock (cglock.pml's
 *      owner assertion on acquisition, and in_locked <= 1 on the data);
 *   P3 an elided critical section overlaps another thread's critical
 *      section only if that thread was created during the elided
 *      operation itself: a thread created between operations always sees
 *      the main thread's elided sections finished;
 *   P4 no deadlock and no lost futex wake-up (invalid end states), and at
 *      the end the lock is free with nobody asleep on it.
 * P3's exception is real: a thread created from inside an operation (by a
 * signal handler, say) may race the rest of that operation, whose lock
 * was elided.  chunkguard's critical sections create no thread; the
 * signal-handler case is issue 4's re-entry detection, not this model.
 *
 * Bounds: the main thread and up to NWORKERS (2) threads it creates;
 * NOPS (2) operations each.
 *
 * Seeded bugs:
 *   -DSEEDED_BUG=1  the unlock asks "single-threaded?" again
 *                   (cg_unlock_if(l, !CG_SINGLE_THREAD_P)) instead of
 *                   using the captured mt: P1 fails;
 *   -DSEEDED_BUG=2  cg_unlock never calls futex_wake (the xchg result is
 *                   ignored): a contended waiter sleeps for ever, P4 fails.
 */
#ifndef NWORKERS
#define NWORKERS 2
#endif
#ifndef NOPS
#define NOPS 2
#endif
#define NLOCKS 1
#define NPIDS  (NWORKERS + 2)      /* init (idle), main, workers */
#define ARENA  0
#if SEEDED_BUG == 2
#define CG_LOCK_SEEDED_NOWAKE
#endif

#include "cglock.pml"

bool single = true;                /* __libc_single_threaded */
byte nworkers;
byte in_locked;                    /* ghost: threads inside a locked section */
bool in_elided;                    /* ghost: main is inside an elided section */
bool op_created;                   /* ghost: main created a thread during its current operation */
bool in_op;                        /* ghost: main is between an operation's decision and its end */

proctype worker()
{
    CG_LOCK_LOCALS;
    byte ops;
    bool mt;
    do
    :: ops == NOPS -> break
    :: else ->
       ops++;
       mt = !single;
       cg_lock_if(ARENA, mt);
       atomic {
           assert(mt);                                  /* single is never set again */
           in_locked++;
           assert(in_locked == 1);                      /* P2 */
           assert(!in_elided || op_created)             /* P3 */
       };
       in_locked--;
       cg_unlock_if(ARENA, mt);
       mt = false
    od;
end_halted:
    skip
}

/* pthread_create from the main thread: glibc clears the flag first. */
inline maybe_create()
{
    if
    :: atomic {
           nworkers < NWORKERS ->
           single = false;
           nworkers++;
           op_created = op_created || in_op;
           run worker()
       }
    :: true -> skip
    fi
}

proctype main_thread()
{
    CG_LOCK_LOCALS;
    byte ops;
    bool mt;
    do
    :: ops == NOPS -> break
    :: else ->
       ops++;
       maybe_create();                                  /* between operations */
       atomic { mt = !single; in_op = true; op_created = false };
       maybe_create();                                  /* after the decision */
       cg_lock_if(ARENA, mt);
       atomic {
           if
           :: mt ->
               in_locked++;
               assert(in_locked == 1)                   /* P2 */
           :: else ->
               in_elided = true;
               assert(in_locked == 0 || op_created)     /* P3 */
           fi
       };
       maybe_create();                                  /* inside the section */
       atomic {
           if
           :: mt -> in_locked--
           :: else -> in_elided = false
           fi
       };
#if SEEDED_BUG == 1
       cg_unlock_if(ARENA, !single);
#else
       cg_unlock_if(ARENA, mt);
#endif
       atomic { in_op = false; op_created = false; mt = false }
    od;
    maybe_create();
end_halted:
    skip
}

init {
    byte i;
    run main_thread();
    _nr_pr == 1;                                        /* everyone finished */
    assert(cg_state[ARENA] == 0 && cg_owner[ARENA] == 0);   /* P4 */
    do
    :: i < NPIDS -> assert(cg_sleep[i] == 0); i++
    :: else -> break
    od
}
