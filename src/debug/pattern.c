/*
 * pattern.c — vector scans for debug mode's byte patterns (see pattern.h).
 */
#include "pattern.h"

#include <cpuid.h>
#include <immintrin.h>
#include <string.h>

#define STRIDE 128

/* Always 1.  tests/suites/56-debug-pattern.sh builds its test with 0 (the
 * bytes after the last whole stride go unchecked) to show the test fails. */
#ifndef CG_PATTERN_CHECK_TAIL
#define CG_PATTERN_CHECK_TAIL 1
#endif

/* The first byte of [p, p + len) that is not b, byte by byte (the tail,
 * and the one stride found to differ). */
static const unsigned char *bytewise(const unsigned char *p, size_t len, unsigned char b)
{
    for (size_t i = 0; i < len; i++)
        if (p[i] != b)
            return p + i;
    return NULL;
}

/* The first byte of [p, p + len) (16 <= len) that is not pat: 16-byte
 * compares, the last one overlapping the one before (whose bytes are known
 * good), so no byte tail. */
static const unsigned char *first_bad16(const unsigned char *p, size_t len, __m128i pat)
{
    for (size_t i = 0;; i += 16) {
        if (i + 16 > len)
            i = len - 16;
        unsigned eq = (unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i)), pat));
        if (eq != 0xffff)
            return p + i + __builtin_ctz(~eq);
        if (i + 16 == len)
            return NULL;
    }
}

/* Fewer than a stride (or the one stride found to differ): below 16 bytes
 * 8-byte words; else every 16-byte lane (the last overlapping) xor the
 * pattern, or'ed together and tested once, and only a block that differs
 * is searched lane by lane (first_bad16) to name its first bad byte. */
static const unsigned char *find_not_short(const unsigned char *p, size_t len, unsigned char b)
{
    if (len < 16) {
        uint64_t pat = 0x0101010101010101ull * b;
        size_t i = 0;
        for (; i + 8 <= len; i += 8) {
            uint64_t w;
            __builtin_memcpy(&w, p + i, 8);
            if (w != pat)
                break;
        }
        return bytewise(p + i, len - i, b);
    }
    __m128i pat = _mm_set1_epi8((char)b);
    __m128i acc = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(p + len - 16)), pat);
    for (size_t i = 0; i + 16 < len; i += 16)
        acc = _mm_or_si128(acc, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(p + i)), pat));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(acc, _mm_setzero_si128())) == 0xffff)
        return NULL;
    return first_bad16(p, len, pat);
}

/* Does the 128-byte stride at p hold only the pattern pat?  SSE2: the
 * eight 16-byte lanes xor the pattern, or'ed together, compared with 0. */
static inline bool stride_ok_sse2(const unsigned char *p, __m128i pat)
{
    __m128i acc = _mm_setzero_si128();
    for (int k = 0; k < STRIDE / 16; k++)
        acc = _mm_or_si128(acc, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(p + 16 * k)), pat));
    return _mm_movemask_epi8(_mm_cmpeq_epi8(acc, _mm_setzero_si128())) == 0xffff;
}

/* The bytes [p + i, p + len) after the whole strides of a block of at
 * least a stride: the last stride of the block tested whole (its bytes
 * before p + i are known good, so the first bad byte it finds is the
 * block's), not a short scan of the rest. */
static const unsigned char *tail_sse2(const unsigned char *p, size_t i, size_t len,
                                      __m128i pat, unsigned char b)
{
    if (i == len)
        return NULL;
    const unsigned char *last = p + len - STRIDE;
    return stride_ok_sse2(last, pat) ? NULL : find_not_short(last, STRIDE, b);
}

static const unsigned char *find_not_sse2(const unsigned char *p, size_t len, unsigned char b)
{
    __m128i pat = _mm_set1_epi8((char)b);
    size_t i = 0;
    for (; i + STRIDE <= len; i += STRIDE)
        if (!stride_ok_sse2(p + i, pat))
            return find_not_short(p + i, STRIDE, b);
    return CG_PATTERN_CHECK_TAIL ? tail_sse2(p, i, len, pat, b) : NULL;
}

/* stride_ok_sse2 with four 32-byte lanes and one vptest. */
__attribute__((target("avx2")))
static inline bool stride_ok_avx2(const unsigned char *p, __m256i pat)
{
    __m256i acc = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)p), pat);
    for (int k = 1; k < STRIDE / 32; k++)
        acc = _mm256_or_si256(acc, _mm256_xor_si256(
                                       _mm256_loadu_si256((const __m256i *)(p + 32 * k)), pat));
    return _mm256_testz_si256(acc, acc);
}

__attribute__((target("avx2")))
static const unsigned char *find_not_avx2(const unsigned char *p, size_t len, unsigned char b)
{
    __m256i pat = _mm256_set1_epi8((char)b);
    size_t i = 0;
    for (; i + STRIDE <= len; i += STRIDE)
        if (!stride_ok_avx2(p + i, pat))
            return find_not_short(p + i, STRIDE, b);
    if (!CG_PATTERN_CHECK_TAIL || i == len)
        return NULL;
    /* The rest as in tail_sse2: the block's last stride, tested whole. */
    const unsigned char *last = p + len - STRIDE;
    return stride_ok_avx2(last, pat) ? NULL : find_not_short(last, STRIDE, b);
}

static bool use_avx2;   /* set once at start-up, read-only after */

/* AVX2 usable: the CPU has it (CPUID leaf 7, EBX bit 5) and the OS saves
 * the YMM registers (OSXSAVE, and XCR0's SSE and AVX state bits), as the
 * Intel SDM's "Detection of Intel AVX2" says.  Asked with CPUID directly:
 * __builtin_cpu_supports links libgcc's CPU model object, whose
 * constructor and 4.5 kB of code run in every process (perf11). */
static bool cpu_avx2(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX))
        return false;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    if ((lo & 6) != 6)
        return false;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX2) != 0;
}

void cg_pattern_init(void)
{
    use_avx2 = cpu_avx2();
}

const unsigned char *cg_pattern_find_not_any(const unsigned char *p, size_t len, unsigned char b)
{
    if (len < STRIDE)
        return find_not_short(p, len, b);
    return use_avx2 ? find_not_avx2(p, len, b) : find_not_sse2(p, len, b);
}
