/*
 * pattern.h — fill and check debug mode's byte patterns (redzones, poison)
 * at memory speed.
 *
 * The poison check runs when a block leaves the quarantine, on memory that
 * has long left the caches, and reads every byte of the block: it has to
 * keep up with the memory, not add instructions per byte on top of it.  So
 * whole 128-byte strides are tested with vector loads (SSE2, or AVX2 where
 * the CPU has it, chosen once at start-up) and no branch inside a stride;
 * only the stride that differs is searched byte by byte.
 */
#ifndef CG_PATTERN_H
#define CG_PATTERN_H

#include "platform.h"

/*
 * cg_pattern_find_not - the first byte in [p, p + len) that is not b.
 * @p:   any address (no alignment needed); @len bytes of it are read
 * @len: bytes, may be 0
 * @b:   the pattern byte
 * Returns that byte's address, or NULL when every byte is b.  Reads
 * nothing outside [p, p + len).  Thread-safe; async-signal-safe.
 */
const unsigned char *cg_pattern_find_not(const unsigned char *p, size_t len,
                                         unsigned char b) CG_HIDDEN;

/* Pick the vector width for this CPU (cpuid).  Called once at start-up
 * in debug mode; until then (and without AVX2) the SSE2 loop runs. */
void cg_pattern_init(void) CG_HIDDEN;

#endif /* CG_PATTERN_H */
