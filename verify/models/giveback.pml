/*
 * giveback.pml — debug mode's give-back of a released block racing a
 * second free of the same pointer (issue 15, point 4).
 *
 * C code modelled (multi-threaded path):
 *   src/debug/debug.c   dbg_free, lookup (was block_to_release)  look the record up
 *                       (find_block: the map slot, then the record's
 *                       chunk); when none was found or the start check
 *                       fails (cg_shadow_user(r) != p: the record may have
 *                       been unbound since), wait_giving and look again,
 *                       then the start check again (state 0: a double
 *                       free; else cg_dbg_report_not_start)
 *                       cg_dbg_claim   CAS LIVE -> CLAIMED, then the
 *                       record must still be p's (else undo, report); a
 *                       CAS that finds p's record CLAIMED waits and tries
 *                       again; the failure's report describes the record
 *                       only if it is still p's
 *                       finish_free    QUARANTINED, into the quarantine,
 *                       whose put may release any block in it
 *                       give_back      giving = p, cg_shadow_delete,
 *                       cg_core_free, giving = NULL
 *                       wait_giving    every thread's giving, in turn,
 *                       until it is not p
 *   src/debug/shadow.c  cg_shadow_delete  map slot 0, then the record's
 *                       chunk NULL, then the record to a free list
 *                       new_heap       a record from a free list: fields
 *                       (state 0, its chunk), then the map slot; the
 *                       state LIVE last (dbg_alloc)
 *   the core            cg_core_free of a chunk in use frees it; of a
 *                       free chunk, its checks report a double free
 *                       (under the arena lock: one step here)
 * "mt" is true throughout (a process of one thread does not wait).  The
 * realloc path (dbg_realloc) shares lookup and the claim (claim_block);
 * malloc_usable_size (dbg_usable) shares lookup.
 * Each statement is one atomic step, as the C's loads, stores and CASes
 * are; the reports do not end the process (halt_on_error=0), so every
 * free's outcome is checked, and a run that halts at its first report is
 * a prefix of one of these.
 *
 * The program: block p (chunk P, record 1) is live; NFREERS threads
 * free p, a double (or triple) free.  With REUSE (the default) one more
 * thread mallocs a block q (chunk Q) — its record may be p's, recycled —
 * and frees it once.  Any thread's winning free may release any
 * quarantined block: the give-back runs on whichever thread's
 * quarantine put pushed the block out, or on none.
 *
 * Properties:
 *   P1 exactly one free of p wins: claims p's record or frees p's chunk
 *      in the core (a ghost count, checked at each win and at the end);
 *   P2 every other free of p reports a double free: never the start
 *      check's invalid free, never a second core free of the chunk; the
 *      give-back's core free always meets the chunk in use;
 *   P3 no use of an unbound record: a free that goes on with a record
 *      (finish_free, the give-back) or describes one in its report does
 *      so while the record is bound to its block;
 *   P4 the single free of q wins and reports nothing;
 *   P5 no deadlock: every waiter in wait_giving ends (spin's invalid end
 *      state check).
 *
 * Bounds: NFREERS (2) threads free p, plus the REUSE thread; 2 records
 * (p's, and one free); p's chunk is not reused (a double free after the
 * chunk went to a new block frees that block: no allocator can tell).
 *
 * Variants (make verify requires spin to reject the seeded bugs):
 *   -DSEEDED_BUG=1  the code before fbda25a: no giving, no wait (a free
 *                   that finds no record goes straight to the core, which
 *                   still holds the chunk in use: two frees win, P1/P2);
 *   -DSEEDED_BUG=2  give_back clears giving before the core's free (the
 *                   waiter looks again too early: P1/P2);
 *   -DSEEDED_BUG=3  give_back sets giving after the unbind (a free can
 *                   find no record and no one giving: P1/P2);
 *   -DSEEDED_BUG=4  give_back never clears giving (the waiter waits for
 *                   ever: P5, an invalid end state);
 *   -DSEEDED_BUG=5  block_to_release as fbda25a had it: a record found
 *                   is not looked up again when the start check fails
 *                   (p's record unbound under the free: invalid free, P2);
 *   -DSEEDED_BUG=6  cg_dbg_claim as fbda25a had it: no wait on a claimed
 *                   record (a stale free's claim of p's recycled record
 *                   makes q's one free a double free, P4);
 *   -DSEEDED_BUG=7  the claim's report describes the record whatever it
 *                   binds now, as fbda25a had it (P3);
 *   -DNO_BLOCK      the giver has no dthread block (an exited thread:
 *                   cg_dthread_peek NULL), so no giving: the gap
 *                   docs/design.md names; spin shows it (P1/P2).
 */
#ifndef NFREERS
#define NFREERS 2
#endif
#ifndef REUSE
#define REUSE 1
#endif
#ifndef SEEDED_BUG
#define SEEDED_BUG 0
#endif
#define NT      (NFREERS + REUSE)  /* threads */
#define P       1                  /* p's chunk */
#define Q       2                  /* q's chunk */
#define NCHUNKS 3                  /* 0: none */
#define NREC    3                  /* records 1 and 2; 0: none */

/* cg_shadow_t.state */
#define LIVE        1
#define QUARANTINED 2
#define CLAIMED     3

bool inuse[NCHUNKS];      /* the core: chunk in use                        */
byte slot[NCHUNKS];       /* the shadow map: chunk -> record id, 0 none     */
byte rchunk[NREC];        /* cg_shadow_t.chunk, 0 NULL                     */
byte rstate[NREC];        /* cg_shadow_t.state                             */
bool rfree[NREC];         /* the record is on a free list                  */
byte giving[NT];          /* cg_dthread_t.giving: a chunk, 0 NULL          */
bool quar[NREC];          /* the record's block is in the quarantine       */
byte wins[NCHUNKS];       /* ghost: frees of the chunk's block that won    */
byte doubles[NCHUNKS];    /* ghost: double-free reports for it             */
byte done;                /* ghost: threads finished                       */

/* a double-free report; rd: the record it describes, or 0 (P3, checked
 * at the instant the report takes the record) */
inline report_double(c, rd)
{
    assert(rd == 0 || rchunk[rd] == c);                      /* P3 */
    doubles[c]++
}

inline win(c)
{
    wins[c]++;
    assert(wins[c] == 1)                                     /* P1 */
}

/* find_block: the map slot, then the record must name the chunk */
inline find_block(c, r)
{
    r = slot[c];
    if
    :: r != 0 && rchunk[r] == c -> skip
    :: else -> r = 0
    fi
}

/* wait_giving: true (waited) when some thread was giving c back */
inline wait_giving(c, waited)
{
    waited = false;
#if SEEDED_BUG != 1
    i = 0;
    do
    :: i < NT ->
        if
        :: giving[i] == c -> waited = true; (giving[i] != c)
        :: else -> skip
        fi;
        i++
    :: else -> break
    od
#endif
}

/* give_back: unbind the record, then the core's free of its chunk */
inline give_back(r)
{
    gc = rchunk[r];
    assert(gc != 0);                                         /* P3 */
#if SEEDED_BUG != 1 && SEEDED_BUG != 3 && !defined(NO_BLOCK)
    giving[me] = gc;
#endif
    slot[gc] = 0;                 /* cg_shadow_delete */
    rchunk[r] = 0;
    rfree[r] = true;
#if SEEDED_BUG == 3
    giving[me] = gc;
#endif
#if SEEDED_BUG == 2
    giving[me] = 0;
#endif
    assert(inuse[gc]);            /* P2: the chunk is still ours to give */
    inuse[gc] = false;            /* cg_core_free */
#if SEEDED_BUG != 4
    giving[me] = 0;
#endif
    gc = 0
}

/* a quarantine put: it may push out any quarantined block (or none) */
inline release_some()
{
    if                            /* under the quarantine's lock */
    :: atomic { quar[1] -> quar[1] = false }; give_back(1)
    :: atomic { quar[2] -> quar[2] = false }; give_back(2)
    :: true -> skip
    fi
}

/* the free goes on with record r, p's at the start check (cg_dbg_claim,
 * then finish_free) */
inline claim_and_finish(c)
{
    do
    :: atomic {                   /* CAS LIVE -> CLAIMED; st: what it saw */
           if
           :: rstate[r] == LIVE -> rstate[r] = CLAIMED; ok = true
           :: else -> st = rstate[r]
           fi
       };
       if
       :: ok -> break
#if SEEDED_BUG != 6
       :: !ok && st == CLAIMED && rchunk[r] == c ->
           (rstate[r] != CLAIMED) /* p's, claimed: wait, try again */
#endif
       :: else -> break
       fi
    od;
    if
    :: ok && rchunk[r] == c ->    /* finish_free */
        win(c);
        assert(rchunk[r] == c && rstate[r] == CLAIMED);      /* P3 */
        rstate[r] = QUARANTINED;
        quar[r] = true;
        release_some()
    :: ok && rchunk[r] != c ->    /* not p's: undo */
        rstate[r] = LIVE;
        report_double(c, 0)
    :: !ok ->                     /* the record, if still p's */
        atomic {
            if
#if SEEDED_BUG == 7
            :: true -> report_double(c, r)   /* fbda25a: whatever it binds */
#else
            :: rchunk[r] == c -> report_double(c, r)
            :: else -> report_double(c, 0)
#endif
            fi
        }
    fi
}

/* the start check failed: a record being made (state 0) for a new block
 * in p's chunk means p's block is gone; any other is cg_dbg_report_not_start,
 * an invalid free (P2) */
inline not_start(c)
{
    if
    :: rstate[r] == 0 -> report_double(c, 0)
    :: else -> assert(false)                                 /* P2 */
    fi
}

/* dbg_free of chunk c's block: block_to_release, then the claim */
inline dbg_free(c)
{
    find_block(c, r);
    if
#if SEEDED_BUG == 5
    :: r != 0 ->                  /* fbda25a: no second look for a record */
        if
        :: rchunk[r] == c -> claim_and_finish(c)
        :: else -> not_start(c)
        fi
#else
    :: r != 0 && rchunk[r] == c -> claim_and_finish(c)   /* the start check */
#endif
    :: else ->                    /* no record, or one not (any more) p's */
        wait_giving(c, waited);
        if
        :: waited || r != 0 -> find_block(c, r)
        :: else -> skip
        fi;
        if
        :: r == 0 ->              /* the core judges the chunk */
            atomic {
                if
                :: inuse[c] -> inuse[c] = false; win(c)
                :: else -> report_double(c, 0)
                fi
            }
        :: r != 0 && rchunk[r] != c -> not_start(c)   /* the start check again */
        :: else -> claim_and_finish(c)
        fi
    fi;
    r = 0; ok = false; waited = false; st = 0
}

proctype freer(byte me)
{
    byte r, i, gc, st;
    bool ok, waited;
    dbg_free(P);
    release_some();               /* a later free of another block */
    done++
}

#if REUSE
proctype reuser(byte me)
{
    byte r, i, gc, st, nr;
    bool ok, waited;
    inuse[Q] = true;              /* the core's chunk for q */
    atomic {                      /* cached_alloc: any free record */
        if
        :: rfree[1] -> nr = 1
        :: rfree[2] -> nr = 2
        fi;
        rfree[nr] = false
    };
    rstate[nr] = 0;               /* new_heap: *r = { chunk, id } */
    rchunk[nr] = Q;
    slot[Q] = nr;
    rstate[nr] = LIVE;            /* dbg_alloc, last */
    nr = 0;
    dbg_free(Q);
    release_some();
    done++
}
#endif

init {
    byte t;
    atomic {
        inuse[P] = true;          /* p: chunk P, record 1, live */
        slot[P] = 1;
        rchunk[1] = P;
        rstate[1] = LIVE;
        rfree[2] = true;
        do
        :: t < NFREERS -> run freer(t); t++
        :: else -> break
        od;
#if REUSE
        run reuser(t)
#endif
    };
    done == NT;
    assert(wins[P] == 1 && doubles[P] == NFREERS - 1);     /* P1, P2 */
#if REUSE
    assert(wins[Q] == 1 && doubles[Q] == 0)                 /* P4 */
#endif
}
