/*
 * quarantine.h — debug mode's quarantine: freed blocks wait here, poisoned,
 * before their memory goes back to the heap, so that a use after free
 * writes into poison (found when the block leaves) and a second free finds
 * the block still marked freed (an exact double free).
 *
 * One global FIFO of shadow records with a byte budget (quarantine_mb),
 * linked through the records' `next` field, under its own lock.  Blocks
 * leave oldest first, as soon as the total exceeds the budget; the caller
 * checks and releases them after the lock is dropped, so the O(size) poison
 * check never runs under a lock.  ASan's quarantine is the model (a global
 * FIFO with a byte budget); its per-thread batches are not needed at the
 * lock's measured cost (docs/performance.md).
 */
#ifndef CG_QUARANTINE_H
#define CG_QUARANTINE_H

#include "shadow.h"

#define CG_QUARANTINE_BATCH 16

/*
 * cg_quarantine_put - append record id to the FIFO (counting its chunk's
 * size, from the record's copy of the header), then
 * take out the oldest records while the FIFO holds more than budget bytes,
 * at most CG_QUARANTINE_BATCH of them, into out[]; returns how many.  With
 * a budget of 0 the record just put comes straight back out.  Thread-safe
 * (the quarantine lock, taken for call, when call->mt).
 */
size_t cg_quarantine_put(uint32_t id, size_t budget, const cg_call_t *call,
                         uint32_t out[CG_QUARANTINE_BATCH]) CG_HIDDEN;

/* Call fn(r, arg) on every record in the quarantine, oldest first, under
 * the quarantine lock (fn must not free). */
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

/* Bytes and blocks now held. */
void cg_quarantine_usage(size_t *bytes, size_t *blocks) CG_HIDDEN;

/* Chunk bytes now held in heap chunks, and bytes and blocks in mmap'd big
 * blocks (what mallinfo moves from "in use" to free).  No lock; the
 * counts may be a moment old. */
void cg_quarantine_held(size_t *heap_bytes, size_t *big_bytes, size_t *big_blocks) CG_HIDDEN;

/* Fork handlers (taken before the shadow and arena locks). */
void cg_quarantine_lock_all(void) CG_HIDDEN;
void cg_quarantine_unlock_all(bool child) CG_HIDDEN;

#endif /* CG_QUARANTINE_H */
