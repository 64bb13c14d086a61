/*
 * dthread.h — debug mode's per-thread block: what a thread keeps so that
 * its frees and allocations take no shared lock: its quarantine batch
 * (quarantine.h), its cache of free shadow records (shadow.h) and its
 * cache of released chunks (reuse.h).
 *
 * One block per thread that frees or allocates in debug mode, found from
 * cg_self.dbg (base/thread.h), made on first use from pages mapped for
 * them, and kept in a registry of every block ever made (for the walks:
 * the quarantine's at exit and in the heap verifier, fork's child).  When
 * its thread exits, the block is emptied (entry/init.c's thread exit,
 * through the mode table) and kept as a spare for a thread started later.
 * Only its thread writes its fields.
 */
#ifndef CG_DTHREAD_H
#define CG_DTHREAD_H

#include "lock.h"
#include "quarantine.h"
#include "reuse.h"
#include "shadow.h"

#define CG_DTHREAD_SITES 4      /* a power of two */

typedef struct cg_dthread {
    cg_lock_t lock;             /* the block's: its thread holds it while it
                                 * changes its batch or binds or unbinds a
                                 * heap chunk's record, the walkers (the heap
                                 * verifier, fork, exit's checks) to see both
                                 * settled; CG_LK_DTHREAD, taken with
                                 * cg_lock_raw (quarantine.c says why)     */
    cg_qbatch_t q;              /* quarantine.c: the thread's batch         */
    cg_rcache_t rc;             /* shadow.c: free records the thread keeps  */
    cg_reuse_t reuse;           /* reuse.c: chunks out of the quarantine     */
    /* debug.c, stack_depth=1: depot ids of the call sites this thread put
     * last (replaced round robin; id 0: empty).  A one-frame stack is
     * its call site alone and a depot id is never reused, so an entry
     * stays right for good (in a spare block and a fork child too). */
    uintptr_t site_pc[CG_DTHREAD_SITES];
    uint32_t site_id[CG_DTHREAD_SITES];
    uint32_t site_next;         /* the entry replaced next                  */
    /* debug.c, give_back: the user pointer of the block whose record this
     * thread has unbound and whose chunk it has not yet given back to the
     * core, or NULL; a free that finds no record for that pointer waits
     * for it (the free that won is still finishing: a double free). */
    const void *giving;
    struct cg_dthread *all;     /* every block ever made (registry)         */
    struct cg_dthread *spare;   /* the spare list: blocks of exited threads */
} cg_dthread_t;

/* The calling thread's block, made (or a spare one taken) on first use;
 * NULL once the thread has exited (cg_dthread_retire) or when no page can
 * be mapped: then the caller takes the shared way.  mt: take the registry
 * lock (the process is multi-threaded).  Not from a signal handler that
 * interrupted chunkguard (such calls are served apart, entry/reentry.h). */
cg_dthread_t *cg_dthread_self(bool mt) CG_HIDDEN;

/* The calling thread's block if it has one, else NULL (never makes one). */
cg_dthread_t *cg_dthread_peek(void) CG_HIDDEN;

/* The calling thread exits: its block (emptied by the caller) becomes a
 * spare, and cg_dthread_self answers NULL on this thread from now on. */
void cg_dthread_retire(bool mt) CG_HIDDEN;

/* The first block of the registry (then ->all): every block ever made,
 * newest first; a block made meanwhile is not seen.  Lock-free. */
cg_dthread_t *cg_dthread_first(void) CG_HIDDEN;

/* Fork handlers and the heap verifier: the registry lock (taken before
 * the blocks' locks, quarantine.c).  In a fork child, every block but the
 * calling thread's becomes a spare (the caller has emptied them). */
void cg_dthread_lock_all(const cg_call_t *call) CG_HIDDEN;
void cg_dthread_unlock_all(bool child) CG_HIDDEN;

#endif /* CG_DTHREAD_H */
