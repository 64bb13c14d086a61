/*
 * stackdepot.h — a deduplicated store of call stacks, each named by a
 * 32-bit id, for the shadow metadata (alloc and free stacks of every block).
 *
 * Stacks are stored once: equal stacks (same frames in the same order) get
 * the same id.  A stored stack never changes and is never freed.  Memory
 * comes from mmap only, in 1 MiB chunks mapped as needed, up to a cap in
 * bytes; past the cap new stacks are not stored (id 0, "no stack") while
 * stacks already stored keep being found.
 *
 * Memory per stored stack: 16 bytes of header plus 8 bytes per frame,
 * rounded to nothing (records are 8-byte aligned and packed): 48 bytes for
 * a 4-frame stack, 144 bytes for 16 frames, 528 bytes for 64 frames.  The
 * hash table is fixed: 2^20 four-byte bucket heads (4 MiB of address
 * space mapped MAP_NORESERVE; a page costs memory only once a stack hashes
 * into it), outside the cap.  tests/unit/stk_depot.c measures both
 * (depot::memory_per_stack prints them).
 *
 * Thread-safety: cg_stack_get and the lookup half of cg_stack_put take no
 * lock and no atomic read-modify-write (stacks are published with a
 * release store of their bucket head and never change afterwards).  Storing
 * a new stack takes the depot lock, a cg_lock_t, skipped while the process
 * is single-threaded.  The fork handlers must take it (cg_stackdepot_lock
 * in prepare, cg_stackdepot_unlock in parent and child) so that a child
 * never inherits it held.
 */
#ifndef CG_STACKDEPOT_H
#define CG_STACKDEPOT_H

#include "platform.h"
#include "call.h"

/* The default cap on stack storage, in bytes (records, not the table). */
#define CG_STACKDEPOT_DEFAULT_CAP ((size_t)64 << 20)

/*
 * cg_stack_put - store a stack, or find it if stored already.
 * @pcs: the frames, innermost first (as cg_stack_capture gives them)
 * @n:   number of frames; 0 gives id 0; more than CG_STACK_MAX (64) keeps
 *       the first 64
 * Returns the stack's id, never 0 for n > 0 unless the cap is reached or
 * mmap fails (then 0: "no stack").  The same frames always give the same
 * id.  Thread-safe; never calls malloc; may take the depot lock (never
 * while the caller holds it) and map a new chunk.  Not async-signal-safe.
 */
uint32_t cg_stack_put(const uintptr_t *pcs, size_t n) CG_HIDDEN;

/*
 * cg_stack_get - the frames of a stored stack.
 * @id:  an id returned by cg_stack_put (0 or an unknown id gives 0 frames)
 * @pcs: out: points at the stored frames (read-only, valid for the life of
 *       the process); set to NULL when 0 is returned
 * Returns the number of frames.  Lock-free, async-signal-safe; never calls
 * malloc.
 */
size_t cg_stack_get(uint32_t id, const uintptr_t **pcs) CG_HIDDEN;

/*
 * cg_stackdepot_set_cap - cap the bytes of stack records the depot may use
 * (CG_STACKDEPOT_DEFAULT_CAP until called).  Lowering it below what is
 * already used only stops new stacks from being stored.  At most 4 GiB is
 * addressable by ids; larger caps are clamped.  Thread-safe.
 */
void cg_stackdepot_set_cap(size_t bytes) CG_HIDDEN;

/* What the depot holds, for statistics and the tests. */
typedef struct cg_stackdepot_stats {
    size_t stacks;        /* distinct stacks stored                      */
    size_t frames;        /* frames in them                              */
    size_t used_bytes;    /* bytes of records (what the cap limits)      */
    size_t mapped_bytes;  /* bytes of record chunks mapped               */
    size_t table_bytes;   /* address space of the hash table             */
    size_t refused;       /* puts that returned 0 because of the cap/mmap */
} cg_stackdepot_stats_t;

/* Fill *st (a consistent snapshot under the depot lock).  Thread-safe. */
void cg_stackdepot_stats(cg_stackdepot_stats_t *st) CG_HIDDEN;

/* Fork handlers: take the depot lock before fork; release it in the parent
 * (child = false) or reset it in the child (child = true). */
void cg_stackdepot_lock(const cg_call_t *call) CG_HIDDEN;
void cg_stackdepot_unlock(bool child) CG_HIDDEN;

#endif /* CG_STACKDEPOT_H */
