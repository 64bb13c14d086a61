/*
 * info.h — introspection behind mallinfo2, malloc_trim, malloc_stats,
 * malloc_info and cg_get_stats (contracts in entry/interpose.c).  Each
 * needs the core initialised (the caller's cg_ensure_init).
 */
#ifndef CG_INFO_H
#define CG_INFO_H

#include <malloc.h>
#include <stdio.h>

#include "call.h"
#include "chunkguard.h"
#include "platform.h"

/* call: the API call served (base/call.h), named by a report the bins'
 * checks (malloc_trim) or a lock make on the way. */
struct mallinfo2 cg_mallinfo2_impl(const cg_call_t *call) CG_HIDDEN;
int cg_malloc_trim_impl(size_t pad, const cg_call_t *call) CG_HIDDEN;
void cg_malloc_stats_impl(const cg_call_t *call) CG_HIDDEN;
int cg_malloc_info_impl(int options, FILE *fp, const cg_call_t *call) CG_HIDDEN;
void cg_get_stats_impl(cg_stats_t *out, const cg_call_t *call) CG_HIDDEN;

#endif /* CG_INFO_H */
