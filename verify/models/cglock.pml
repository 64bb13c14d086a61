/*
 * cglock.pml — chunkguard's cg_lock_t (src/platform.h cg_lock, cg_unlock,
 * cg_lock_if, cg_unlock_if, cg_lock_reinit; src/platform.c cg_lock_slow,
 * cg_unlock_wake) for the models in this directory.  Included, not run.
 *
 * The C lock is Drepper's three-state futex mutex ("Futexes are tricky",
 * mutex 2): state 0 free, 1 held, 2 held and maybe contended.
 *   lock:   CAS 0->1; else spin a bounded number of CAS 0->1 tries; else
 *           loop { if xchg(state, 2) == 0 return; futex_wait(state, 2) }
 *   unlock: if xchg(state, 0) == 2 futex_wake(1)
 * The bounded spin is one more CAS try here: spinning N times or once
 * reaches the same states.  FUTEX_WAIT sleeps only if the word still holds
 * 2 (checked atomically with going to sleep); FUTEX_WAKE wakes one sleeper
 * of that word, any one.
 *
 * Ghost state (not in the C; it states the properties):
 *   cg_owner[l]  the pid+1 of the thread that holds lock l, 0 if none.
 *     Acquiring asserts it was 0 (mutual exclusion) and releasing asserts
 *     the releaser is the owner (no thread releases a lock it does not
 *     hold, e.g. one whose acquisition it elided).
 *   cg_sleep[p]  l+1 while process p sleeps in FUTEX_WAIT on lock l.
 *   cg_halted    the process has ended (_exit after a fatal report): every
 *     thread of it stops where it is.  A thread that waits for a lock or a
 *     wake-up leaves for its label `end_halted` instead.  Without a report
 *     nobody sets it, so a thread stuck on a lock is an invalid end state:
 *     spin's deadlock check.
 *
 * A model defines NLOCKS and NPIDS (processes, init counted) before
 * including this file, and declares CG_LOCK_LOCALS in every proctype that
 * takes a lock; that proctype needs a label `end_halted:`.
 */
#ifndef CGLOCK_PML
#define CGLOCK_PML

byte cg_state[NLOCKS];      /* cg_lock_t.state: 0 free, 1 held, 2 contended */
byte cg_owner[NLOCKS];      /* ghost: holder's pid+1, 0 when free           */
byte cg_sleep[NPIDS];       /* ghost: lock+1 this process sleeps on, or 0   */
bool cg_halted;             /* ghost: the process has exited                */

#define CG_LOCK_LOCALS  byte lk_old; byte lk_i; bool lk_woke

/* Whether this thread's process has exited; a model with two processes
 * (fork.pml) redefines it so that one process's exit stops only its own
 * threads. */
#ifndef CG_HALTED
#define CG_HALTED cg_halted
#endif

/* Ownership, checked at the instant the lock word changes hands. */
inline cg_take(l)
{
    assert(cg_owner[l] == 0);
    cg_owner[l] = _pid + 1
}

#ifdef CG_LOCK_ABSTRACT
/* The same lock as one indivisible test-and-set that blocks while the lock
 * is held: the states of the futex protocol are left out (lockelision.pml
 * checks them), which keeps the models that use many locks small. */
inline cg_lock(l)
{
    atomic {
        (cg_state[l] == 0 || CG_HALTED);
        if
        :: CG_HALTED -> goto end_halted
        :: else -> cg_state[l] = 1; cg_take(l)
        fi
    }
}

inline cg_unlock(l)
{
    atomic {
        assert(cg_owner[l] == _pid + 1);
        cg_owner[l] = 0;
        cg_state[l] = 0
    }
}
#else
inline cg_lock(l)
{
    /* fast path, and the bounded spin of cg_lock_slow: CAS 0 -> 1 */
    atomic {
        if
        :: cg_state[l] == 0 -> cg_state[l] = 1; cg_take(l); lk_old = 0
        :: else -> lk_old = 1
        fi
    };
    if
    :: lk_old == 0 -> skip
    :: else ->
        do
        :: atomic {             /* xchg(state, 2) */
               lk_old = cg_state[l];
               cg_state[l] = 2;
               if
               :: lk_old == 0 -> cg_take(l)
               :: else -> skip
               fi
           };
           if
           :: lk_old == 0 -> break
           :: else ->
               atomic {         /* futex_wait(&state, 2) */
                   if
                   :: cg_state[l] == 2 -> cg_sleep[_pid] = l + 1
                   :: else -> skip
                   fi
               };
               /* woken by cg_unlock_wake, or the process exited */
               (cg_sleep[_pid] == 0 || CG_HALTED);
               if
               :: CG_HALTED -> goto end_halted
               :: else -> skip
               fi
           fi
        od
    fi
}

inline cg_unlock(l)
{
    atomic {
        assert(cg_owner[l] == _pid + 1);
        cg_owner[l] = 0;
        lk_old = cg_state[l];
        cg_state[l] = 0
    };
#ifdef CG_LOCK_SEEDED_NOWAKE
    lk_old = 0;                 /* seeded bug (lockelision.pml): no futex_wake */
#endif
    if
    :: lk_old == 2 ->
        atomic {                /* futex_wake(&state, 1): any one sleeper */
            lk_woke = false;
            lk_i = 0;
            do
            :: lk_i < NPIDS && cg_sleep[lk_i] == l + 1 && !lk_woke ->
                cg_sleep[lk_i] = 0; lk_woke = true; lk_i++
            :: lk_i < NPIDS -> lk_i++
            :: lk_i == NPIDS -> break
            od;
            /* the scan may have passed every sleeper: wake the first one */
            lk_i = 0;
            do
            :: lk_woke || lk_i == NPIDS -> break
            :: else ->
                if
                :: cg_sleep[lk_i] == l + 1 -> cg_sleep[lk_i] = 0; lk_woke = true
                :: else -> skip
                fi;
                lk_i++
            od;
            lk_woke = false;
            lk_i = 0
        }
    :: else -> skip
    fi;
    lk_old = 0
}
#endif /* CG_LOCK_ABSTRACT */

/* The single-threaded path elides the lock; the unlock is given the same
 * decision (mt) that the lock was given. */
inline cg_lock_if(l, mt)
{
    if
    :: mt -> cg_lock(l)
    :: else -> skip
    fi
}

inline cg_unlock_if(l, mt)
{
    if
    :: mt -> cg_unlock(l)
    :: else -> skip
    fi
}

#endif /* CGLOCK_PML */
