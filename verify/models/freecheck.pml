/*
 * freecheck.pml — the free path's consistency check, reached with and
 * without the arena lock, and the report it may end in.
 *
 * glibc once deadlocked here: _int_free's "invalid next size (fast)" check
 * could give a false alarm when system_mem changed under it, so it re-ran
 * the check after taking the arena lock — and some callers reached it with
 * that lock already held.  A non-recursive lock taken twice by one thread
 * hangs it for good.
 *
 * C code modelled (multi-threaded path):
 *   src/fastbin.h  cg_arena_free    fast sizes: cg_fast_free, no lock
 *                                   (have_lock false); others:
 *   src/arena.c    cg_arena_free_slow  cg_lock_if, cg_arena_free_locked,
 *                                   cg_unlock_if
 *                  cg_arena_free_locked  caller holds the lock (have_lock
 *                                   true); a fast-sized remainder still
 *                                   goes through cg_fast_free
 *                  cg_arena_memalign, cg_arena_resize  free the pieces they
 *                                   split off with cg_arena_free_locked
 *                                   under the lock their caller
 *                                   (alloc.c from_arena) or they took
 *   src/fastbin.h  cg_check_next_size  the check: the next chunk's size
 *                                   against the heap's end, which is fixed
 *                                   while the chunk lives, so it needs no
 *                                   lock and never re-runs
 *   src/report.c   cg_report, cg_report_enter  a failed check reports
 *                                   under the report lock and ends the
 *                                   process; the report never allocates
 * "mt" is true throughout; lockelision.pml covers the elided lock.
 *
 * Check variants (one source, a -D macro each):
 *   default           chunkguard as built: the check takes no lock;
 *   -DGLIBC_FIXED     glibc's later logic: on a suspicious first result,
 *                     re-check under the arena lock only when the caller
 *                     does not hold it (have_lock false);
 *   -DSEEDED_BUG=1    the pre-fix logic: re-check under the arena lock
 *                     whatever the caller holds — spin must find the
 *                     self-deadlock;
 *   -DSEEDED_BUG=2    chunkguard's check, but the report allocates (takes
 *                     the arena lock to format its text) — spin must find
 *                     the same self-deadlock on the report path.
 *
 * Properties:
 *   P1 no deadlock: no thread waits for ever on a lock (invalid end state);
 *   P2 the have_lock argument of every check matches real ownership of the
 *      arena lock (assertion; issue 4 point 1 asks the C for the same);
 *   P3 mutual exclusion on the bins (in_bins <= 1) and on the arena and
 *      report locks (cglock.pml);
 *   P4 no nested report (cg_report_enter's in_report guard holds);
 *   P5 at the end, unless a report ended the process, both locks are free.
 *
 * Bounds: NTHREADS (3) threads, NOPS (3) operations each, every check may
 * find corruption (then the process ends) or pass, every glibc first
 * result may be suspicious or not.
 */
#ifndef NTHREADS
#define NTHREADS 3
#endif
#ifndef NOPS
#define NOPS 3
#endif
#define NLOCKS 2
#define NPIDS  (NTHREADS + 1)
#define ARENA  0
#define REPORT 1
#define CG_LOCK_ABSTRACT

#include "cglock.pml"

byte in_bins;                     /* ghost: threads changing the bins */
bool in_report[NPIDS];            /* cg_self.in_report */

/* cg_report: cg_report_enter, the text, cg_report_exit (the process ends) */
inline report()
{
    assert(!in_report[_pid]);                            /* P4 */
    in_report[_pid] = true;
    cg_lock(REPORT);
#if SEEDED_BUG == 2
    cg_lock(ARENA);               /* seeded: formatting the report allocates */
    cg_unlock(ARENA);
#endif
    cg_halted = true;             /* _exit / abort: every thread stops */
    goto end_halted
}

/* one evaluation of the check: the sizes agree, or corruption: report */
inline judge()
{
    if
    :: true -> skip
    :: true -> report()
    fi
}

/* the next-size check; have_lock: the caller holds the arena lock */
inline check_next_size(have_lock)
{
    assert(have_lock == (cg_owner[ARENA] == _pid + 1));  /* P2 */
#if SEEDED_BUG == 1 || defined(GLIBC_FIXED)
    if
    :: true -> skip                                       /* plainly fine */
    :: true ->                                            /* suspicious: re-check */
#if SEEDED_BUG == 1
        cg_lock(ARENA);                                   /* held or not */
        judge();
        cg_unlock(ARENA)
#else
        if
        :: !have_lock -> cg_lock(ARENA); judge(); cg_unlock(ARENA)
        :: else -> judge()
        fi
#endif
    fi
#else
    judge()                                               /* no lock, no re-run */
#endif
}

/* cg_fast_free: check, then the lock-free push (fastbin.pml) */
inline fast_free(have_lock)
{
    check_next_size(have_lock);
    skip                          /* cg_fastbin_push */
}

/* cg_arena_free_locked: caller holds the arena lock */
inline free_locked()
{
    if
    :: true -> fast_free(true)                            /* a fast-sized chunk */
    :: true ->
        check_next_size(true);
        in_bins++;                                        /* merge_and_bin */
        assert(in_bins == 1);                             /* P3 */
        in_bins--
    fi
}

proctype thread()
{
    CG_LOCK_LOCALS;
    byte ops;
    do
    :: ops == NOPS || cg_halted -> break
    :: else ->
       ops++;
       if
       :: true ->                 /* free(): a fast size, no lock */
           fast_free(false)
       :: true ->                 /* free(): cg_arena_free_slow */
           cg_lock(ARENA);
           free_locked();
           cg_unlock(ARENA)
       :: true ->                 /* memalign or realloc in place: split, free the rest */
           cg_lock(ARENA);
           in_bins++;
           assert(in_bins == 1);                         /* P3 */
           in_bins--;
           free_locked();
           cg_unlock(ARENA)
       fi
    od;
end_halted:
    skip
}

init {
    byte i;
    atomic {
        do
        :: i < NTHREADS -> run thread(); i++
        :: else -> break
        od
    };
    _nr_pr == 1;
    assert(cg_halted || (cg_state[ARENA] == 0 && cg_state[REPORT] == 0))   /* P5 */
}
