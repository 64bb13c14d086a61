/*
 * api.h — the allocator under test, named once for every build of the tests.
 *
 * The same test sources are compiled three ways (see tests/tests.mk):
 *   (default)            standard names, linked against libchunkguard.so
 *                        placed before libc, so chunkguard serves them;
 *   CHUNKGUARD_PREFIXED  the cg_-named core (libchunkguard-cg's sources),
 *                        beside the sanitizer's own malloc (ASan/UBSan/TSan);
 *   UT_GLIBC             standard names, plain glibc: the reference run that
 *                        shows each expectation is glibc 2.36's behaviour;
 *   UT_MUTANT            glibc behind mutants.c, which breaks one contract
 *                        at a time (UT_MUTANT=<name> in the environment),
 *                        to show that the test of that contract fails.
 * Tests call T(malloc)(n) etc.; UT_* flags say what a build can offer.
 */
#ifndef UT_API_H
#define UT_API_H

#include <stddef.h>
#include <stdlib.h>
#include <malloc.h>

#if defined(CHUNKGUARD_PREFIXED)
#  include "chunkguard.h"
#  define T(name)            cg_##name
#  define UT_BACKEND         "cg"
#  define UT_HAVE_CG         1   /* cg_get_stats() counts our calls      */
#  define UT_HAVE_FREE_SIZED 1   /* free_sized/free_aligned_sized exist  */
#  define UT_HAVE_LIBC_ALIAS 0   /* __libc_malloc & co. are not ours     */
#elif defined(UT_MUTANT)
#  include "mutants.h"
#  define T(name)            mut_##name
#  define UT_BACKEND         "mutant"
#  define UT_HAVE_CG         0
#  define UT_HAVE_FREE_SIZED 0
#  define UT_HAVE_LIBC_ALIAS 0
#elif defined(UT_GLIBC)
#  define T(name)            name
#  define UT_BACKEND         "glibc"
#  define UT_HAVE_CG         0
#  define UT_HAVE_FREE_SIZED 0   /* glibc 2.36 lacks them (C23)          */
#  define UT_HAVE_LIBC_ALIAS 1
#else
#  include "chunkguard.h"
#  define T(name)            name
#  define UT_BACKEND         "so"
#  define UT_HAVE_CG         1
#  define UT_HAVE_FREE_SIZED 1
#  define UT_HAVE_LIBC_ALIAS 1
#endif

/* Sanitizer builds cannot shrink RLIMIT_AS (the shadow is terabytes). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#  define UT_SANITIZED 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#    define UT_SANITIZED 1
#  endif
#endif
#ifndef UT_SANITIZED
#  define UT_SANITIZED 0
#endif

#if !defined(CHUNKGUARD_PREFIXED)
/* C23 functions glibc 2.36's headers do not declare; chunkguard exports
 * them.  Declaring them again is harmless with newer headers. */
void free_sized(void *ptr, size_t size);
void free_aligned_sized(void *ptr, size_t alignment, size_t size);
#endif
#if UT_HAVE_LIBC_ALIAS
/* glibc's exported aliases (GLIBC_2.2.5), which no header declares. */
void *__libc_malloc(size_t size);
void  __libc_free(void *ptr);
void *__libc_calloc(size_t nmemb, size_t size);
void *__libc_realloc(void *ptr, size_t size);
void *__libc_memalign(size_t alignment, size_t size);
#endif

#endif /* UT_API_H */
