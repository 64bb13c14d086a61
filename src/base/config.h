/*
 * config.h — compile-time switches and constants.
 *
 * Every switch below is always defined to 0 or 1 and used in plain `if` on the
 * constant (so both sides stay type-checked).  The CG_CHECK_* switches
 * (src/report/checks.def) exist so that each integrity check can be
 * compiled out and its test shown to fail without it
 * (tests/suites/15-checks-off.sh); shipped builds keep all on.
 */
#ifndef CG_CONFIG_H
#define CG_CONFIG_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#define CG_SWITCH(name) (name + 0)

/* The integrity checks' switches, CG_CHECK_<NAME> (make
 * CG_DEFS=-DCG_CHECK_FASTTOP=0 compiles one out), come from the catalogue
 * of checks, src/report/checks.def, with the checks they cover; code tests
 * them with CG_CHECK_ON(NAME) (src/report/checks.h). */

/* calloc clears blocks of up to 128 bytes with a few overlapping 16-byte
 * stores (1) or always with memset (0).  A tuning switch, not a check:
 * docs/performance.md records the measurement behind the default. */
#ifndef CG_CLEAR_SMALL_INLINE
#define CG_CLEAR_SMALL_INLINE 1
#endif

/* Test builds (tests/locks, the sanitizer cores) turn these on; the shipped
 * library has them off.  CG_LOCK_ASSERTS: every "caller holds the lock"
 * contract (CG_HELD) and every unlock is checked against the lock's real
 * owner.  CG_TEST_HOOKS: the cg_test_* entry points and hook calls
 * (src/testhooks.c) exist. */
#ifndef CG_LOCK_ASSERTS
#define CG_LOCK_ASSERTS 0
#endif
#ifndef CG_TEST_HOOKS
#define CG_TEST_HOOKS 0
#endif

/* The per-thread "inside the allocator" mark (reentry.h).  Only a mutant
 * for the signal test (tests/suites/52-locks.sh) turns it off. */
#ifndef CG_REENTRY_MARK
#define CG_REENTRY_MARK 1
#endif

/* Geometry (x86_64). */
#define CG_SIZE_SZ        8u
#define CG_ALIGN          16u
#define CG_ALIGN_MASK     (CG_ALIGN - 1)
#define CG_MINSIZE        32u            /* smallest chunk                    */
#define CG_HDR_SZ         16u            /* chunk header: prev_size + size    */
#define CG_HEAP_SHIFT     26             /* heaps are 64 MiB, 64 MiB aligned  */
#define CG_HEAP_MAX       ((size_t)1 << CG_HEAP_SHIFT)
#define CG_VA_BITS        47             /* user address space on x86_64      */

#define CG_TCACHE_BINS        64
#define CG_TCACHE_COUNT_DEF   7
#define CG_TCACHE_COUNT_MAX   65535
#define CG_NFASTBINS          10         /* chunk sizes 32..176               */
#define CG_MXFAST_DEF         128        /* bytes of request, as glibc's 64*8/4 */
#define CG_MXFAST_MAX         160        /* glibc's 80*8/4                    */
#define CG_NBINS              128
#define CG_NSMALLBINS         64
#define CG_MIN_LARGE_SIZE     1024u      /* chunk sizes below are small-bin   */

#define CG_MMAP_THRESHOLD_DEF   (128u * 1024)
#define CG_MMAP_THRESHOLD_MAX   (32u * 1024 * 1024)   /* glibc: HEAP_MAX/2 */
#define CG_TRIM_THRESHOLD_DEF   (128u * 1024)
#define CG_MMAP_MAX_DEF         65536
#define CG_CONSOLIDATE_THRESHOLD (64u * 1024)        /* glibc FASTBIN_CONSOLIDATION_THRESHOLD */

static_assert(CG_MINSIZE == 2 * CG_HDR_SZ, "minimum chunk holds fd and bk");
static_assert((CG_MXFAST_MAX + CG_SIZE_SZ + CG_ALIGN_MASK) / 16 - 2 < CG_NFASTBINS,
              "fastbins cover M_MXFAST's maximum");

/* chunkguard itself built with a sanitizer (the test builds of
 * tests/suites/35-sanitizers.sh): libc's wrappers stay in use, which the
 * sanitizer's runtime intercepts, and chunkguard interposes no libc
 * function that the runtime intercepts too (sigaction, signal). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define CG_SANITIZER_BUILD 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CG_SANITIZER_BUILD 1
#endif

#endif /* CG_CONFIG_H */
