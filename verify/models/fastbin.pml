/*
 * fastbin.pml — one fastbin of one arena: the lock-free push of free()
 * racing the pop that malloc() does under the arena lock, and the
 * consolidation that empties the bin, from several threads at once.
 *
 * C code modelled (multi-threaded path, mt == true):
 *   src/fastbin.h  cg_fastbin_push   CAS loop, never takes the arena lock
 *                  cg_fastbin_pop    CAS loop, caller holds the arena lock
 *                  cg_fast_free      free of a fastbin-sized chunk
 *   src/arena.c    cg_arena_malloc   fastbin branch: a pop, then pops that
 *                                    refill the tcache, all under the lock
 *                  cg_arena_consolidate  xchg(bin, NULL) under the lock,
 *                                    then the taken list goes to the bins
 *   src/alloc.c    from_arena        cg_lock_if / cg_unlock_if around it
 * Safe-linking (cg_protect / cg_reveal) is a bijection on the stored link
 * and is left out; so are the corruption reports, which end the process.
 *
 * Why it is ABA-safe: only the lock holder removes chunks from the bin, so
 * between a pop's read of the head (v) and of v->fd and its CAS, v can
 * only be buried by pushes (CAS fails, retry) and never leave and come
 * back with another fd.  Pushes write only the fd of a chunk their thread
 * owns, which no other thread can reach until the CAS publishes it.
 *
 * Properties (assertions; and spin's invalid-end-state check, no deadlock):
 *   P1 a pop takes a chunk that is in the fastbin, and the head it leaves
 *      behind is in the fastbin too (no chunk handed out twice);
 *   P2 a push publishes a chunk its thread owns, never the chunk already
 *      on top (glibc's "double free or corruption (fasttop)");
 *   P3 consolidation sees only fastbin chunks, each once (no cycle);
 *   P4 when every thread is done, the list from the head holds exactly the
 *      chunks whose ghost state says "in the fastbin", each once (none lost,
 *      none duplicated);
 *   P5 mutual exclusion on the arena lock (cglock.pml).
 *
 * Bounds: NTHREADS threads (3), NCHUNKS chunks of the bin's size (3),
 * NOPS operations per thread (2; make verify also runs 2 threads x 4
 * operations): free one chunk it owns, malloc (pop plus at most one
 * tcache-refill pop, or a chunk from the other bins when the fastbin is
 * empty), or consolidate.  The weak CAS may fail spuriously.  At the start
 * the bin holds chunks 0 -> 1 and thread 1 owns chunk 2.  The arena lock
 * is cglock.pml's abstract lock (lockelision.pml checks the futex one).
 *
 * Seeded bugs (make verify requires spin to reject them):
 *   -DSEEDED_BUG=1  malloc pops without the arena lock: two concurrent
 *                   pops admit ABA (P1 fails);
 *   -DSEEDED_BUG=2  the push stores the head with a plain write instead of
 *                   the CAS: a racing push or pop is lost (P1 or P4 fails).
 */
#ifndef NTHREADS
#define NTHREADS 3
#endif
#ifndef NOPS
#define NOPS 2
#endif
#define NCHUNKS 3
#define NLOCKS  1
#define NPIDS   (NTHREADS + 1)
#define ARENA   0

#define NIL        255
#define IN_FASTBIN 0              /* ghost chunk states */
#define IN_BINS    1              /* consolidated into the other bins */
#define HELD(p)    (2 + (p))      /* owned by thread p (in use or in its tcache) */

#define CG_LOCK_ABSTRACT
#include "cglock.pml"

byte head = NIL;                  /* av->fastbins[idx] */
byte fd[NCHUNKS];                 /* chunk->fd, the link to the next chunk */
byte where[NCHUNKS];              /* ghost: IN_FASTBIN, IN_BINS or HELD(pid) */

/* cg_fastbin_push(av, c, size, mt = true) */
inline push(c)
{
    old = head;                   /* __atomic_load_n(fb, RELAXED) */
    do
    :: assert(old != c);          /* P2: CG_CHECK_FASTTOP never fires */
       fd[c] = old;               /* c->fd = cg_protect(&c->fd, old) */
#if SEEDED_BUG == 2
       atomic { head = c; assert(where[c] == HELD(_pid)); where[c] = IN_FASTBIN };
       break
#else
       atomic {                   /* compare_exchange_weak(fb, &old, c) */
           if
           :: head == old ->
               head = c;
               assert(where[c] == HELD(_pid));            /* P2 */
               where[c] = IN_FASTBIN;
               ok = true
           :: head == old -> ok = false                  /* spurious failure */
           :: head != old -> old = head; ok = false
           fi
       };
       if
       :: ok -> break
       :: else -> skip
       fi
#endif
    od;
    old = NIL; ok = false
}

/* cg_fastbin_pop(av, idx, mt = true): v = the chunk taken, or NIL */
inline pop(v)
{
    v = head;                     /* __atomic_load_n(fb, ACQUIRE) */
    do
    :: v == NIL -> break
    :: else ->
       n = fd[v];                 /* cg_reveal(&v->fd, v->fd) */
       atomic {                   /* compare_exchange_weak(fb, &v, n) */
           if
           :: head == v ->
               assert(where[v] == IN_FASTBIN);                 /* P1 */
               assert(n == NIL || where[n] == IN_FASTBIN);     /* P1 */
               head = n;
               where[v] = HELD(_pid);
               ok = true
           :: head == v -> ok = false                          /* spurious failure */
           :: head != v -> v = head; ok = false
           fi
       };
       if
       :: ok -> break
       :: else -> skip
       fi
    od;
    n = NIL; ok = false
}

#if SEEDED_BUG == 1
#define MALLOC_LOCK()   skip
#define MALLOC_UNLOCK() skip
#else
#define MALLOC_LOCK()   cg_lock(ARENA)
#define MALLOC_UNLOCK() cg_unlock(ARENA)
#endif

proctype thread()
{
    CG_LOCK_LOCALS;
    byte ops = 0, c, v, x, n = NIL, old = NIL;
    bool ok;
    do
    :: ops == NOPS -> break
    :: ops < NOPS ->
       ops++;
       if
       :: true ->   /* free(): tcache full, so cg_fast_free -> cg_fastbin_push */
          atomic {                          /* choose one chunk this thread owns */
              c = 0;
              do
              :: c < NCHUNKS && where[c] == HELD(_pid) -> break
              :: c < NCHUNKS -> c++
              :: c == NCHUNKS -> break
              od
          };
          if
          :: c < NCHUNKS -> push(c)
          :: else -> skip
          fi;
          c = 0
       :: true ->   /* malloc(): from_arena -> cg_arena_malloc, fastbin-sized request */
          MALLOC_LOCK();
          v = NIL;
          if
          :: head != NIL -> pop(v)          /* CG_LOAD(av->fastbins[idx]) != NULL */
          :: else -> skip
          fi;
          if
          :: v != NIL ->
              if                            /* refill the tcache: one more pop */
              :: head != NIL -> pop(x)
              :: true -> skip
              fi
          :: else ->                        /* the other bins (smallbin, unsorted) */
              atomic {
                  c = 0;
                  do
                  :: c < NCHUNKS && where[c] == IN_BINS -> where[c] = HELD(_pid); break
                  :: c < NCHUNKS -> c++
                  :: c == NCHUNKS -> break
                  od
              }
          fi;
          MALLOC_UNLOCK();
          v = NIL; x = NIL; c = 0
       :: true ->   /* cg_arena_consolidate, from malloc or free under the lock */
          cg_lock(ARENA);
          atomic { v = head; head = NIL };  /* __atomic_exchange_n(fb, NULL) */
          /* The list taken is this thread's alone: walk it in one step. */
          atomic {
              c = 0;
              do
              :: v == NIL -> break
              :: else ->
                 assert(where[v] == IN_FASTBIN && c < NCHUNKS);     /* P3 */
                 n = fd[v];
                 where[v] = IN_BINS;        /* merge_and_bin */
                 v = n;
                 c++
              od
          };
          cg_unlock(ARENA);
          v = NIL; n = NIL; c = 0
       fi
    od;
end_halted:
    skip
}

init {
    byte i, v, count, expect;
    byte seen[NCHUNKS];
    atomic {
        /* the fastbin holds chunks 0 -> 1; thread 1 owns chunk 2 */
        head = 0; fd[0] = 1; fd[1] = NIL; fd[2] = NIL;
        where[0] = IN_FASTBIN; where[1] = IN_FASTBIN; where[2] = HELD(1);
        i = 0;
        do
        :: i < NTHREADS -> run thread(); i++
        :: else -> break
        od
    };
    _nr_pr == 1;                  /* every thread has finished */
    /* P4: walk the bin; count its chunks and mark them */
    v = head;
    do
    :: v == NIL -> break
    :: else ->
       assert(count < NCHUNKS && !seen[v] && where[v] == IN_FASTBIN);
       seen[v] = true;
       count++;
       v = fd[v]
    od;
    i = 0;
    do
    :: i < NCHUNKS -> expect = expect + (where[i] == IN_FASTBIN -> 1 : 0); i++
    :: else -> break
    od;
    assert(count == expect);
    assert(cg_state[ARENA] == 0 && cg_owner[ARENA] == 0)
}
