/*
 * testhooks.h — points where a test build (CG_TEST_HOOKS=1, config.h)
 * calls the test's hook, and the cg_test_* entry points (testhooks.c).
 * The shipped library has neither: CG_TEST_HOOK compiles to nothing.
 */
#ifndef CG_TESTHOOKS_H
#define CG_TESTHOOKS_H

#include "config.h"
#include "platform.h"

enum {
    /* cg_arena_free_whole (core/bins.h), between its cg_lock_if and
     * cg_unlock_if: every free that bins a chunk under the lock; arg is
     * the arena.  A hook that creates a thread here tests the token. */
    CG_HOOK_ARENA_FREE_LOCKED = 1,
    /* give_back (debug/debug.c), between the two steps that return a
     * released block: its record's unbind and the core's free of its
     * chunk; arg is the block's user pointer.  A hook that sleeps here lets a racing
     * free of the same pointer fall into the gap (threads.c, race-free). */
    CG_HOOK_DBG_GIVE_BACK = 2,
    /* lookup (debug/debug.c: free, realloc, malloc_usable_size), just
     * after its first lookup of the record; arg is the pointer given.
     * And in cg_dbg_claim (free, realloc) on entry and just after a CAS
     * that claimed a record.  A hook that holds a free here lets the
     * block go back to the core (and its record to a new block) under it
     * (threads.c, race-stale).  Guard mode's free, realloc and usable size
     * (debug/guard.c) have them too: after block_to_release's page
     * lookup, in the claim (its range back to the pool, guard_quarantine_mb=0). */
    CG_HOOK_DBG_LOOKED_UP = 3,
    CG_HOOK_DBG_CLAIM = 4,
    CG_HOOK_DBG_CLAIMED = 5,
    /* A report of a block (debug/debug.c, dbg_report_body) while it reads
     * the block's record (cg_shadow_snapshot, between its copy and its
     * check); arg is the record.  A hook that holds it lets the
     * block be freed and its record reused mid-report (threads.c,
     * race-report). */
    CG_HOOK_DBG_REPORT = 6,
};

extern void (*cg_test_hook_fn)(int point, void *arg) CG_HIDDEN;

#define CG_TEST_HOOK(point, arg)                                         \
    do {                                                                 \
        if (CG_SWITCH(CG_TEST_HOOKS) && CG_UNLIKELY(cg_test_hook_fn != NULL)) \
            cg_test_hook_fn((point), (arg));                             \
    } while (0)

#endif /* CG_TESTHOOKS_H */
