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

#include <emmintrin.h>
#include <string.h>

#include "platform.h"

/*
 * cg_pattern_find_not - the first byte in [p, p + len) that is not b.
 * @p:   any address (no alignment needed); @len bytes of it are read
 * @len: bytes, may be 0
 * @b:   the pattern byte
 * Returns that byte's address, or NULL when every byte is b.  Reads
 * nothing outside [p, p + len).  Thread-safe; async-signal-safe.
 */
const unsigned char *cg_pattern_find_not_any(const unsigned char *p, size_t len,
                                             unsigned char b) CG_HIDDEN;

/* The first byte of the 16 at p that is not the pattern pat, or NULL. */
CG_INLINE const unsigned char *cg_pattern_find_not16(const unsigned char *p, __m128i pat)
{
    unsigned eq = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), pat));
    return eq == 0xffff ? NULL : p + __builtin_ctz(~eq);
}

/* cg_pattern_find_not_any, with redzone sizes (16 to 32 bytes: two
 * overlapping 16-byte compares) inline. */
CG_INLINE const unsigned char *cg_pattern_find_not(const unsigned char *p, size_t len,
                                                   unsigned char b)
{
    if (len < 16 || len > 32)
        return cg_pattern_find_not_any(p, len, b);
    __m128i pat = _mm_set1_epi8((char)b);
    const unsigned char *bad = cg_pattern_find_not16(p, pat);
    return bad != NULL ? bad : cg_pattern_find_not16(p + len - 16, pat);
}

/* memset, with redzone sizes (16 to 64 bytes: overlapping 16-byte
 * stores) inline.  p: any address; len: bytes. */
CG_INLINE void cg_pattern_fill_small(unsigned char *p, size_t len, unsigned char b)
{
    if (len < 16 || len > 64) {
        memset(p, b, len);
        return;
    }
    __m128i v = _mm_set1_epi8((char)b);
    _mm_storeu_si128((__m128i *)p, v);
    _mm_storeu_si128((__m128i *)(p + len - 16), v);
    if (len > 32) {
        _mm_storeu_si128((__m128i *)(p + 16), v);
        _mm_storeu_si128((__m128i *)(p + len - 32), v);
    }
}

/* Pick the vector width for this CPU (cpuid).  Called once at start-up
 * in debug mode; until then (and without AVX2) the SSE2 loop runs. */
void cg_pattern_init(void) CG_HIDDEN;

#endif /* CG_PATTERN_H */
