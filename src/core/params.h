/*
 * params.h — the core's tunable parameters: mallopt's, glibc's tunables
 * (tunables.c) and the fill bytes (params.c).
 */
#ifndef CG_PARAMS_H
#define CG_PARAMS_H

#include "call.h"
#include "platform.h"

/*
 * cg_param_set - set mallopt parameter `param` (glibc's M_* numbers) to
 * value, with mallopt's contract: 1 on success, 0 when the value is
 * rejected; unknown parameters are accepted and ignored, as glibc does.
 * The caller has initialised the core; call: the call served (when
 * call->mt, other threads may exist: the arena locks are then taken where
 * bins are touched).  Used by mallopt and by the environment settings at
 * start-up (tunables.c).
 */
int cg_param_set(int param, long value, const cg_call_t *call) CG_HIDDEN;

/*
 * Settings glibc offers only as tunables (glibc.malloc.tcache_count and
 * tcache_max); false, changing nothing, for a value above glibc's limit
 * (65535 entries; 1032 bytes of request).  Start-up only: the inline paths
 * read these without synchronisation.
 */
bool cg_param_set_tcache_count(unsigned long n) CG_HIDDEN;
bool cg_param_set_tcache_max(unsigned long bytes) CG_HIDDEN;

/*
 * cg_param_set_fill - bytes to fill new blocks (alloc_fill; not calloc's)
 * and blocks freed past the tcache (free_fill) with; -1 turns a fill off.
 * M_PERTURB and the fill_alloc/fill_free options end here.
 */
void cg_param_set_fill(int alloc_fill, int free_fill) CG_HIDDEN;

#endif /* CG_PARAMS_H */
