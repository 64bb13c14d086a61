/*
 * config.h — compile-time switches and constants.
 *
 * Every switch is always defined to 0 or 1 and used in plain `if` on the
 * constant (so both sides stay type-checked).  The CG_CHECK_* switches exist
 * so that each integrity check can be compiled out and its test shown to
 * fail without it (tests/suites/checks-off.sh); shipped builds keep all on.
 */
#ifndef CG_CONFIG_H
#define CG_CONFIG_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#define CG_SWITCH(name) (name + 0)

/* tcache: freed entry carries the per-process key; a free that finds the key
 * walks the bin (glibc: "free(): double free detected in tcache 2"). */
#ifndef CG_CHECK_TCACHE_DOUBLE_FREE
#define CG_CHECK_TCACHE_DOUBLE_FREE 1
#endif
/* fastbin: the chunk being freed is already the bin's top entry
 * (glibc: "double free or corruption (fasttop)"). */
#ifndef CG_CHECK_FASTTOP
#define CG_CHECK_FASTTOP 1
#endif
/* fastbin: a chunk popped from bin i must have a size of class i
 * (glibc: "malloc(): memory corruption (fast)"). */
#ifndef CG_CHECK_FASTBIN_INDEX
#define CG_CHECK_FASTBIN_INDEX 1
#endif
/* free: the chunk size is a multiple of 16, at least MINSIZE, and the chunk
 * lies inside its heap (glibc: "free(): invalid size", "free(): invalid
 * pointer"). */
#ifndef CG_CHECK_FREE_SIZE
#define CG_CHECK_FREE_SIZE 1
#endif
/* free: the next chunk's size is sane (glibc: "free(): invalid next size
 * (fast)" / "(normal)"). */
#ifndef CG_CHECK_NEXT_SIZE
#define CG_CHECK_NEXT_SIZE 1
#endif
/* free of a non-fast chunk whose next chunk says it is already free
 * (glibc: "double free or corruption (!prev)"). */
#ifndef CG_CHECK_NOT_INUSE
#define CG_CHECK_NOT_INUSE 1
#endif
/* unlink: P->fd->bk == P and P->bk->fd == P, and the size/prev_size pair
 * agree (glibc: "corrupted double-linked list", "corrupted size vs.
 * prev_size"). */
#ifndef CG_CHECK_UNLINK
#define CG_CHECK_UNLINK 1
#endif
/* top chunk: its size cannot exceed the heap it lives in
 * (glibc: "malloc(): corrupted top size"). */
#ifndef CG_CHECK_TOP_SIZE
#define CG_CHECK_TOP_SIZE 1
#endif
/* safe-linking: tcache and fastbin next pointers are stored mangled and must
 * demangle to a 16-byte-aligned address inside our heaps before they are
 * followed (glibc: "malloc(): unaligned tcache chunk detected",
 * "malloc(): unaligned fastbin chunk detected"). */
#ifndef CG_CHECK_SAFE_LINK
#define CG_CHECK_SAFE_LINK 1
#endif
/* ownership: a pointer handed to free/realloc/malloc_usable_size must be the
 * start of one of our chunks, decided from the heap map and the chunk-start
 * map before any header is read (glibc has no equivalent; its nearest is
 * "free(): invalid pointer"). */
#ifndef CG_CHECK_OWNERSHIP
#define CG_CHECK_OWNERSHIP 1
#endif

/* free_sized / free_aligned_sized: the size given fits the block and the
 * block has the alignment given (C23 makes a mismatch undefined; glibc has
 * no check). */
#ifndef CG_CHECK_SIZED_FREE
#define CG_CHECK_SIZED_FREE 1
#endif

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

#endif /* CG_CONFIG_H */
