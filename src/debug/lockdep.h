/*
 * lockdep.h — the lock-order graph (debug mode) and the reports about
 * chunkguard's own locks (lock.c, lockdep.c).
 */
#ifndef CG_LOCKDEP_H
#define CG_LOCKDEP_H

#include "lock.h"
#include "checks.h"

/* Install the lock's hooks (cg_lock_hooks: its reports, in every mode)
 * and, when debug, turn the lock-order graph and stack-id acquisition
 * sites on.  At initialisation, while single-threaded. */
void cg_lockdep_init(bool debug) CG_HIDDEN;
/* The graph's note of lock l, just taken for call (NULL: for none); an
 * inversion is reported naming the call. */
void cg_lockdep_acquire(cg_lock_t *l, const cg_call_t *call) CG_HIDDEN;

/* Fork: the graph's own lock, taken last in prepare; and the child's reset
 * of the calling thread's identity (its tid changed). */
void cg_lockdep_lock_all(void) CG_HIDDEN;
void cg_lockdep_unlock_all(bool child) CG_HIDDEN;

/* The frames of a site word: a stack id's frames, or the one address
 * (stored in one[0]).  Returns how many (0 for an unknown site).
 * cg_lock_site_here, for a site of the calling thread taken for call
 * (or NULL), adds the call's call site (one[1]) after a lone address. */
size_t cg_lock_site_stack(uintptr_t site, uintptr_t one[2], const uintptr_t **pcs) CG_HIDDEN;
size_t cg_lock_site_here(uintptr_t site, const cg_call_t *call, uintptr_t one[2],
                         const uintptr_t **pcs) CG_HIDDEN;

/* A fatal report of check id (LOCK_RELOCK, LOCK_TIMEOUT) about lock l:
 * taken (or waited for) at site by this thread for call (NULL: for none);
 * detail: the catalogue sentence's numbers and names; holder and held_site
 * describe the other acquisition, titled held_title ("The lock was first
 * taken by this thread"). */
_Noreturn void cg_lock_report(cg_check_t id, const cg_lock_t *l, uintptr_t site,
                              const cg_call_t *call, const char *detail, uint32_t holder,
                              uintptr_t held_site, const char *held_title) CG_COLD CG_HIDDEN;

/* The fatal report of a fork made while this thread is inside chunkguard
 * (LOCK_FORK_INSIDE: the fork's prepare handler, entry/init.c, found the
 * thread's own call interrupted, in a process with threads): call is the
 * program's fork, site where it was made.  Takes no lock of the
 * allocator's (the report lock only). */
_Noreturn void cg_lock_report_fork_inside(const cg_call_t *call, uintptr_t site)
    CG_COLD CG_HIDDEN;

#endif /* CG_LOCKDEP_H */
