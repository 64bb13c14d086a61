/*
 * info.h — tuning and introspection behind mallopt, mallinfo2, malloc_trim,
 * malloc_stats, malloc_info and cg_get_stats (contracts in interpose.c).
 */
#ifndef CG_INFO_H
#define CG_INFO_H

#include <malloc.h>
#include <stdio.h>

#include "chunkguard.h"
#include "platform.h"

int cg_mallopt_impl(int param, int value) CG_HIDDEN;
struct mallinfo2 cg_mallinfo2_impl(void) CG_HIDDEN;
int cg_malloc_trim_impl(size_t pad) CG_HIDDEN;
void cg_malloc_stats_impl(void) CG_HIDDEN;
int cg_malloc_info_impl(int options, FILE *fp) CG_HIDDEN;
void cg_get_stats_impl(cg_stats_t *out) CG_HIDDEN;

#endif /* CG_INFO_H */
