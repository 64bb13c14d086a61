/*
 * fork.pml — the fork handlers: prepare takes glibc's stdio list lock and
 * then every chunkguard lock in the declared order, the parent releases
 * them, the child resets them, while other threads take those locks for
 * their own work, and two more use stdio as fflush(NULL) and getline do.
 *
 * C code modelled:
 *   src/entry/init.c   fork_prepare, fork_parent, fork_child (registered
 *                      with pthread_atfork in cg_init_slow)
 *   glibc 2.36 fork    posix/fork.c: the prepare handlers (ours runs last),
 *                      then the stdio list lock (_IO_list_lock, recursive:
 *                      no wait when this thread holds it), then clone;
 *                      the parent releases it before the parent handlers,
 *                      the child resets it and every FILE lock
 *   glibc stdio        fflush(NULL): the list lock, then each FILE's lock
 *                      inside it; getline: malloc/realloc inside its FILE's
 *                      lock
 *   src/arena_select.c cg_arenas_lock_all / cg_arenas_unlock_all: the
 *                      arena list lock, then every arena on the list in
 *                      index order; arena_create appends under the list lock
 *   src/quarantine.c, shadow.c, stackdepot.c, bigblock.c, report.c,
 *   symbolize.c, lockdep.c
 *                      the *_lock_all / *_unlock_all(child) pairs
 *   src/report/report.c cg_report_enter: a report takes the report lock,
 *                      possibly with any other chunkguard lock held (a heap
 *                      corruption found under an arena lock, a fault inside
 *                      chunkguard caught by fault.c); a fatal report ends
 *                      the process; the report itself takes no other lock
 *                      (the report callback must not allocate).  The fork
 *                      handlers do not take the report lock: the child
 *                      resets it, and each report writes its buffers from
 *                      the start, so nothing under it is "mid-update" for
 *                      a child (no dirty bit).
 * Other threads' work is abstracted to what matters here: which lock they
 * hold, that they leave its data half-updated while they hold it, and
 * whether they report while holding it.
 *
 * The declared order (prepare), the nesting order of the running code:
 * glibc's stdio list lock (stdio mallocs inside it), arena list, arenas by
 * index, big-block registry, shadow records, quarantine, guarded pages,
 * stack depot, the symbolizer's cache, the lock-order graph.  A report
 * reads the symbolizer's cache, and the lock-order graph's lock is taken
 * innermost, inside any other acquisition, so those two come last.
 *
 * Properties:
 *   P1 no deadlock between prepare, glibc's fork and the other threads
 *      (stdio's among them), nor in the child (invalid end states): the
 *      child can take every lock;
 *   P2 in the child no lock-protected data is half-updated (each lock's
 *      ghost `dirty` bit, copied at fork, is clear): every lock was held by
 *      the forking thread, between updates, when the process was copied;
 *   P3 mutual exclusion and releases only by the holder (cglock.pml);
 *   P4 in the parent, every lock is free again when all threads are done
 *      (unless a report ended the process).
 *
 * Bounds: the forking thread plus NWORKERS threads; NOPS (2) operations
 * per worker, each taking one lock (possibly reporting under it) or
 * creating arena 1; with STDIO (1, the default) a thread that flushes
 * every FILE under the list lock once and one that reallocs under its
 * FILE's lock once, and NWORKERS 1 (1 GiB holds no more), without it
 * NWORKERS 2 (models.list runs both); the forking thread forks once; 10
 * chunkguard locks (two arenas, arena 1 created at run time) and glibc's
 * two.
 *
 * Seeded bugs:
 *   -DSEEDED_BUG=1  the order before this model: prepare takes the report
 *                   lock, first.  A thread that finds heap corruption under
 *                   an arena lock waits for the report lock that prepare
 *                   holds, prepare waits for that arena lock: P1 fails;
 *   -DSEEDED_BUG=2  prepare forgets the big-block registry lock (the child
 *                   still resets it): P2 fails;
 *   -DSEEDED_BUG=3  prepare walks the arena list before taking the list
 *                   lock: an arena created meanwhile is not locked, P2 fails;
 *   -DSEEDED_BUG=4  the order before issue 13: prepare takes only our locks,
 *                   and glibc's fork then waits for the stdio list lock with
 *                   them held.  The getline thread holds its FILE's lock and
 *                   waits for an arena lock prepare holds, fflush holds the
 *                   list lock and waits for that FILE: P1 fails.
 */
#ifndef STDIO
#define STDIO 1
#endif
#ifndef NWORKERS
#if STDIO
#define NWORKERS 1                 /* the stdio threads are two more */
#else
#define NWORKERS 2
#endif
#endif
#ifndef NOPS
#define NOPS 2
#endif

/* lock ids in the parent, in the declared order; the child's copies are
 * id + NL.  A report can start under the locks numbered below REPORT. */
#define LIST    0
#define ARENA0  1
#define ARENA1  2
#define BIG     3
#define SHADOW  4
#define QUAR    5
#define GUARD   6
#define DEPOT   7
#define REPORT  8
#define SYMB    9
#define LOCKDEP 10
/* glibc's stdio list lock, and one FILE's lock: */
#define IOLIST  11
#define FILELK  12
#define NL      13
#define NLOCKS (2 * NL)
#define NPIDS  (NWORKERS + 5)      /* init, forking thread, workers, the
                                    * two stdio threads, child */
#define CG_LOCK_ABSTRACT
/* a fatal report in the parent ends the parent's threads, not the child */
#define CG_HALTED (cg_halted && _pid != child_pid)

byte child_pid = 255;

#include "cglock.pml"

bool dirty[NL];                    /* ghost: data of lock l is mid-update */
bool child_dirty[NL];              /* the child's copy */
bool arena1;                       /* arena 1 is on the arena list */
bool child_arena1;
bool forked;

/* take lock l, update its data, maybe report (fatal), release */
inline work(l)
{
    cg_lock(l);
    dirty[l] = (l != REPORT);      /* a report's buffers: rewritten each time */
    if
    :: true -> skip
    :: l < REPORT ->               /* corruption or a fault found under lock l */
        cg_lock(REPORT);
        cg_halted = true;          /* the report ends the process */
        goto end_halted
    fi;
    dirty[l] = false;
    cg_unlock(l)
}

proctype worker()
{
    CG_LOCK_LOCALS;
    byte ops, l;
    do
    :: ops == NOPS || cg_halted -> break
    :: else ->
       ops++;
       if                          /* which lock this operation needs */
       :: l = QUAR
       :: l = GUARD                /* guarded pages' ranges and slots */
       :: l = SHADOW
       :: l = DEPOT
       :: l = ARENA0
       :: arena1 -> l = ARENA1
       :: l = BIG
       :: l = REPORT               /* a recoverable report (debug mode) */
       :: l = SYMB                 /* symbolizing a frame */
       :: l = LOCKDEP              /* recording a lock-order edge */
       :: l = LIST                 /* arena_create: append arena 1 */
       fi;
       if
       :: l == LIST ->
           cg_lock(LIST);
           dirty[LIST] = true;
           arena1 = true;
           dirty[LIST] = false;
           cg_unlock(LIST)
       :: else -> work(l)
       fi;
       l = 0
    od;
end_halted:
    skip
}

/* cg_arenas_lock_all: the list lock, then each arena on the list */
inline arenas_lock_all()
{
#if SEEDED_BUG == 3
    seen1 = arena1;                /* walks the list first */
    cg_lock(LIST);
#else
    cg_lock(LIST);
    seen1 = arena1;
#endif
    cg_lock(ARENA0);
    if
    :: seen1 -> cg_lock(ARENA1)
    :: else -> skip
    fi
}

inline fork_prepare()
{
#if SEEDED_BUG == 1
    cg_lock(REPORT);
#endif
#if SEEDED_BUG != 4
    cg_lock(IOLIST);
#endif
    arenas_lock_all();
#if SEEDED_BUG != 2
    cg_lock(BIG);
#endif
    cg_lock(SHADOW);
    cg_lock(QUAR);
    cg_lock(GUARD);
    cg_lock(DEPOT);
    cg_lock(SYMB);
    cg_lock(LOCKDEP)
}

inline fork_parent()
{
    cg_unlock(LOCKDEP);
    cg_unlock(SYMB);
    cg_unlock(DEPOT);
    cg_unlock(GUARD);
    cg_unlock(QUAR);
    cg_unlock(SHADOW);
#if SEEDED_BUG != 2
    cg_unlock(BIG);
#endif
    if
    :: seen1 -> cg_unlock(ARENA1)
    :: else -> skip
    fi;
    cg_unlock(ARENA0);
    cg_unlock(LIST);
#if SEEDED_BUG == 1
    cg_unlock(REPORT);
#endif
#if SEEDED_BUG != 4
    cg_unlock(IOLIST)
#else
    skip
#endif
}

/* glibc's fork after the prepare handlers: the stdio list lock, which is
 * recursive (a thread that holds it takes it again without waiting);
 * released before the parent handlers run */
inline libc_fork_lock()
{
    if
    :: cg_owner[IOLIST] == _pid + 1 -> libc_took = false
    :: else -> cg_lock(IOLIST); libc_took = true
    fi
}

inline libc_fork_unlock()
{
    if
    :: libc_took -> cg_unlock(IOLIST)
    :: else -> skip
    fi
}

/* fflush(NULL): the list lock, then each FILE's lock inside it */
proctype flusher()
{
    CG_LOCK_LOCALS;
    cg_lock(IOLIST);
    cg_lock(FILELK);
    cg_unlock(FILELK);
    cg_unlock(IOLIST);
end_halted:
    skip
}

/* getline: realloc (an arena, possibly a report) inside its FILE's lock */
proctype reader()
{
    CG_LOCK_LOCALS;
    cg_lock(FILELK);
    work(ARENA0);
    cg_unlock(FILELK);
end_halted:
    skip
}

/* fork(): the child is a copy of memory with only the forking thread */
inline do_fork()
{
    atomic {
        i = 0;
        do
        :: i < NL ->
            cg_state[NL + i] = cg_state[i];
            cg_owner[NL + i] = cg_owner[i];
            child_dirty[i] = dirty[i];
            i++
        :: else -> break
        od;
        child_arena1 = arena1;
        forked = true;
        child_pid = run child();
        i = 0
    }
}

proctype forker()
{
    CG_LOCK_LOCALS;
    byte i;
    bool seen1, libc_took;
    fork_prepare();
    libc_fork_lock();
    do_fork();
    libc_fork_unlock();
    fork_parent();
end_halted:
    skip
}

/* The child: fork_child, then it takes every lock itself.  It shares no
 * memory with the parent's threads any more, so it runs as one atomic
 * sequence (it still blocks, and spin reports it, if a lock stays held). */
proctype child()
{
    CG_LOCK_LOCALS;
    byte i;
    atomic {
        /* fork_child: cg_*_unlock_all(true) — cg_lock_reinit on each lock,
         * the report lock's too; glibc's child resets the stdio list lock
         * and every FILE lock */
        i = 0;
        do
        :: i < NL -> cg_state[NL + i] = 0; cg_owner[NL + i] = 0; i++
        :: else -> break
        od;
        /* P2: nothing the locks protect was mid-update when memory was copied */
        i = 0;
        do
        :: i < NL -> assert(!child_dirty[i]); i++
        :: else -> break
        od;
        /* the child mallocs, frees, reports: it needs every lock */
        i = 0;
        do
        :: i < NL ->
            if
            :: i != ARENA1 || child_arena1 -> cg_lock(NL + i); cg_unlock(NL + i)
            :: else -> skip
            fi;
            i++
        :: else -> break
        od
    };
end_halted:
    skip
}

init {
    byte i;
    atomic {
        run forker();
#if STDIO
        run flusher();
        run reader();
#endif
        do
        :: i < NWORKERS -> run worker(); i++
        :: else -> break
        od
    };
    _nr_pr == 1;
    /* P4 */
    i = 0;
    do
    :: i < NL -> assert(cg_halted || cg_state[i] == 0); i++
    :: else -> break
    od
}
