/*
 * quarantine.h — debug mode's quarantine: freed blocks wait here, poisoned,
 * before their memory goes back to the heap, so that a use after free
 * writes into poison (found when the block leaves) and a second free finds
 * the block still marked freed (an exact double free).
 *
 * One global FIFO of shadow records with a byte budget (quarantine_mb),
 * linked through the records' `next` field, under its own lock.  Blocks
 * leave oldest first, as soon as the total exceeds the budget, a whole
 * batch (the FIFO's segment) at a time, so the FIFO keeps between the
 * budget less one batch and the budget; the caller
 * checks and releases them after the lock is dropped, so the O(size) poison
 * check never runs under a lock.  In front of the FIFO each thread keeps a
 * batch of the blocks it freed last (at most cg_quarantine_batch_limit
 * bytes and CG_QUARANTINE_BATCH_BLOCKS blocks), moved to the FIFO in one
 * splice when full and when the thread exits: a free takes only its own
 * thread's batch lock, the shared lock once per batch.  So the quarantine
 * holds at most quarantine_mb plus one batch per thread.  The design is
 * ASan's (a global FIFO with a byte budget, fed by per-thread caches of
 * 1 MiB in bulk); docs/performance.md has what it saves.
 */
#ifndef CG_QUARANTINE_H
#define CG_QUARANTINE_H

#include "shadow.h"

/* A thread's batch: at most this many bytes (or budget / 16, when less)
 * and blocks. */
#define CG_QUARANTINE_BATCH_BYTES ((size_t)1 << 20)
#define CG_QUARANTINE_BATCH_BLOCKS 1024

/* A thread's batch (in its block, dthread.h): blocks it freed, oldest
 * first, not yet in the FIFO.  Written by its thread only, under its
 * block's lock; walkers read it under that lock. */
#define CG_QUARANTINE_FAR 8
typedef struct cg_qbatch {
    uint32_t head, tail;        /* oldest and newest record ids (0: empty)  */
    size_t bytes, blocks;       /* chunk bytes and blocks held              */
    size_t big_bytes, big_blocks;   /* of them, mmap'd big blocks           */
    /* the last CG_QUARANTINE_FAR records put, by blocks % FAR: each gets
     * its far link (shadow.h) when the block FAR puts after it comes */
    uint32_t recent[CG_QUARANTINE_FAR];
} cg_qbatch_t;

/* The most bytes one thread's batch holds with a budget of budget bytes:
 * min(budget / 16, CG_QUARANTINE_BATCH_BYTES).  A block of this size or
 * more goes to the FIFO at once (so with a budget of 0, every block). */
size_t cg_quarantine_batch_limit(size_t budget) CG_HIDDEN;

/*
 * cg_quarantine_put - put record id (a block the calling thread just
 * freed) in the quarantine: in the thread's batch, which goes to the FIFO
 * when full, or in the FIFO directly (a block of the batch limit or more);
 * the FIFO's size counts each chunk's size, from the record's copy of the
 * header.  Then the oldest records leave the FIFO, whole segments at a
 * time, while it holds more than budget bytes.  Returns them as a chain linked through their `next`
 * fields (0 at its end), for the caller to check and release; 0 when none
 * left.  With a budget of 0 the record just put comes straight back out.
 * Thread-safe (the thread's batch lock and the quarantine lock, taken for
 * call, when call->mt); never from a signal handler that interrupted
 * chunkguard (such frees are deferred, entry/reentry.h).
 */
uint32_t cg_quarantine_put(uint32_t id, size_t budget, const cg_call_t *call) CG_HIDDEN;

/* The calling thread exits: its batch goes to the FIFO (returns the chain
 * that leaves, as cg_quarantine_put).  (What it frees once its block is
 * retired, dthread.h, goes there directly.) */
uint32_t cg_quarantine_thread_exit(size_t budget, const cg_call_t *call) CG_HIDDEN;

/* Call fn(r, arg) on every record in the quarantine: each thread's batch
 * under its lock, then the FIFO, oldest first, under the quarantine lock
 * (fn must not free). */
void cg_quarantine_each(void (*fn)(cg_shadow_t *r, void *arg), void *arg) CG_HIDDEN;

/* In a forked child, call fn(r, arg) on the records the child itself put
 * in the quarantine since the latest fork, oldest first, under the
 * quarantine lock, and return true: O(those), whatever the quarantine
 * holds.  In a process that has not forked, cg_quarantine_each and false. */
bool cg_quarantine_each_since_fork(void (*fn)(cg_shadow_t *r, void *arg), void *arg) CG_HIDDEN;

/* Call fn(r, arg) on every record in the quarantine, oldest first, while
 * the caller holds the quarantine lock (cg_quarantine_lock_all); at most
 * as many steps as blocks are counted.  For the heap verifier. */
void cg_quarantine_each_locked(void (*fn)(cg_shadow_t *r, void *arg), void *arg) CG_HIDDEN;

/* Test builds (CG_TEST_HOOKS): how many records the FIFO's trim has read
 * (cg_test_quarantine_trim_reads); 0 in the shipped library. */
extern size_t cg_quarantine_trim_reads CG_HIDDEN;

/* Bytes and blocks now held, the batches' included. */
void cg_quarantine_usage(size_t *bytes, size_t *blocks) CG_HIDDEN;

/* Chunk bytes now held in heap chunks, and bytes and blocks in mmap'd big
 * blocks (what mallinfo moves from "in use" to free), the batches'
 * included.  No lock; the counts may be a moment old. */
void cg_quarantine_held(size_t *heap_bytes, size_t *big_bytes, size_t *big_blocks) CG_HIDDEN;

/* Fork handlers and the heap verifier: every batch's lock, then the
 * quarantine lock (taken after the shadow and arena locks).  In a fork
 * child the unlock moves every batch to the FIFO: their threads are gone. */
void cg_quarantine_lock_all(const cg_call_t *call) CG_HIDDEN;
void cg_quarantine_unlock_all(bool child) CG_HIDDEN;

#endif /* CG_QUARANTINE_H */
