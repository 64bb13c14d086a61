/*
 * sample.h — sampled guard slots (guard_sample=N, guard_slots=M), in any
 * mode: about one allocation in N of at most a page goes to a guard slot,
 * a page of its own against a guard page (guardpool.h), so that a read or
 * write after free or past its end faults at the access and is reported
 * with the block's stacks — for a sample of the program's allocations, at
 * almost no cost to the others.  GWP-ASan's design (Chrome, Android,
 * scudo, tcmalloc): a bounded pool of slots, a random interval between
 * samples (uniform in [1, 2N - 1]: mean N, so no allocation pattern of the
 * program aliases with it), and a freed slot kept inaccessible until it is
 * needed again, least recently freed first.
 *
 * The sampler wraps the mode's table (core/mode.h): its operations count
 * each allocation down on the thread's counter (cg_self.sample_left) and
 * serve the one that reaches zero from a slot; every other call, and a
 * due one that finds no free slot or is larger than a page, goes to the
 * mode's own operation.  free, realloc and malloc_usable_size of a
 * sampled block are recognised by address (the guard region).  Fast
 * mode's inline tcache hits count down the same counter
 * (core/fastpath.h): one decrement and one predictable branch.
 *
 * The same wrapper puts debug mode's big blocks (guard_big bytes or more,
 * 128 KiB by default, never less than a page) on guarded ranges
 * (guardpool.h): a guard page after each, and its pages sealed when it is
 * freed — cheaper than poisoning a block of that size (a mprotect, a mmap
 * and its first touches' page faults, about 8 µs, against a poison fill
 * and check that grow with the size: docs/performance.md), and it catches
 * reads after free too — held within
 * guard_quarantine_mb of address space.  And it is guard mode: debug
 * mode's table with every block guarded (guard.h); a block the region or
 * the mapping limit has no room for is a debug block.  realloc of a debug
 * block keeps it one.
 */
#ifndef CG_SAMPLE_H
#define CG_SAMPLE_H

#include "mode.h"

/* The sampling interval in effect (guard_sample, or its mode's default:
 * 256 in debug mode, 0 — off — in fast and guard mode). */
int cg_sample_interval(void) CG_HIDDEN;

/* With a sampling interval, in debug mode with guard_big, or in guard
 * mode (m: debug mode's table, renamed "guard"), wrap the mode table m
 * (cg_mode, just chosen) and, for sampling, make guard_slots slots.  Once, at init, single-
 * threaded.  Without a region for the slots, sampling stays off (a
 * warning says so). */
void cg_sample_install(cg_mode_t *m) CG_HIDDEN;

#endif /* CG_SAMPLE_H */
