/*
 * info.h — introspection behind mallinfo2, malloc_trim, malloc_stats,
 * malloc_info and cg_get_stats (contracts in entry/interpose.c).  Each
 * needs the core initialised (the caller's cg_ensure_init).
 */
#ifndef CG_INFO_H
#define CG_INFO_H

#include <malloc.h>
#include <stdio.h>

#include "chunkguard.h"
#include "platform.h"

struct mallinfo2 cg_mallinfo2_impl(void) CG_HIDDEN;
/* malloc_trim's body; caller: the program's call site, named (with the
 * operation) by a report the bins' checks make on the way. */
int cg_malloc_trim_impl(size_t pad, uintptr_t caller) CG_HIDDEN;
void cg_malloc_stats_impl(void) CG_HIDDEN;
int cg_malloc_info_impl(int options, FILE *fp) CG_HIDDEN;
void cg_get_stats_impl(cg_stats_t *out) CG_HIDDEN;

#endif /* CG_INFO_H */
