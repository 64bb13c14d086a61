/*
 * mutants.h — glibc's allocator with one contract broken on purpose,
 * chosen at run time by UT_MUTANT=<name> (see mutants.c for the list).
 * Used only to prove the tests can fail; never linked into a real build.
 */
#ifndef UT_MUTANTS_H
#define UT_MUTANTS_H

#include <stddef.h>
#include <stdio.h>
#include <malloc.h>

void  *mut_malloc(size_t size);
void   mut_free(void *ptr);
void  *mut_calloc(size_t nmemb, size_t size);
void  *mut_realloc(void *ptr, size_t size);
void  *mut_reallocarray(void *ptr, size_t nmemb, size_t size);
void  *mut_memalign(size_t alignment, size_t size);
int    mut_posix_memalign(void **memptr, size_t alignment, size_t size);
void  *mut_aligned_alloc(size_t alignment, size_t size);
void  *mut_valloc(size_t size);
void  *mut_pvalloc(size_t size);
size_t mut_malloc_usable_size(void *ptr);
int    mut_mallopt(int param, int value);
struct mallinfo2 mut_mallinfo2(void);
int    mut_malloc_trim(size_t pad);
void   mut_malloc_stats(void);
int    mut_malloc_info(int options, FILE *fp);

#endif /* UT_MUTANTS_H */
