/*
 * params.c — the core's tunable parameters (params.h): mallopt's M_*
 * settings, glibc's tunables and the fill bytes, all in cg_mp (arena.h).
 */
#include "params.h"

#include <malloc.h>

#include "arena.h"
#include "tcache.h"

/* The inline tcache paths skip block filling, so they serve no bin while
 * any fill is on; the slow paths fill and still use the tcache. */
static void update_fast_bins(void)
{
    bool fill = cg_mp.alloc_fill >= 0 || cg_mp.free_fill >= 0;
    cg_mp.tcache_fast_bins = fill ? 0 : cg_mp.tcache_bins;
}

void cg_param_set_fill(int alloc_fill, int free_fill)
{
    cg_mp.alloc_fill = alloc_fill;
    cg_mp.free_fill = free_fill;
    update_fast_bins();
}

bool cg_param_set_tcache_count(unsigned long n)
{
    if (n > CG_TCACHE_COUNT_MAX)
        return false;
    cg_mp.tcache_count = n;
    return true;
}

bool cg_param_set_tcache_max(unsigned long bytes)
{
    if (bytes > CG_TCACHE_MAX_REQ)
        return false;
    cg_mp.tcache_bins = cg_csize2tidx(cg_request2size(bytes)) + 1;
    cg_mp.tcache_max_csize = CG_MINSIZE + (cg_mp.tcache_bins - 1) * CG_ALIGN;
    update_fast_bins();
    return true;
}

int cg_param_set(int param, long value, const cg_call_t *call)
{
    switch (param) {
    case M_MXFAST:
        if (value < 0 || value > (long)CG_MXFAST_MAX)
            return 0;
        /* Empty the fastbins first: chunks filed under the old limit must
         * not be stranded above the new one. */
        for (cg_arena_t *av = &cg_main_arena; av != NULL; av = cg_arena_next(av)) {
            cg_tok_t av_tok = cg_lock_if_call(&av->lock, call);
            cg_arena_consolidate(av, call);
            cg_unlock_if(&av->lock, av_tok);
        }
        cg_mp.max_fast = value == 0 ? CG_MINSIZE / 2
                                    : (((size_t)value + CG_SIZE_SZ) & ~(size_t)CG_ALIGN_MASK);
        return 1;
    case M_TRIM_THRESHOLD:
        CG_STORE(cg_mp.trim_threshold, (size_t)(long)value);
        CG_STORE(cg_mp.no_dyn_threshold, 1);
        return 1;
    case M_TOP_PAD:
        cg_mp.top_pad = (size_t)(long)value;
        CG_STORE(cg_mp.no_dyn_threshold, 1);
        return 1;
    case M_MMAP_THRESHOLD:
        /* glibc 2.36 takes any value; above a heap's capacity requests
         * simply keep coming from the heaps or, failing that, mmap. */
        CG_STORE(cg_mp.mmap_threshold, (size_t)(long)value);
        CG_STORE(cg_mp.no_dyn_threshold, 1);
        return 1;
    case M_MMAP_MAX:
        cg_mp.n_mmaps_max = value;
        CG_STORE(cg_mp.no_dyn_threshold, 1);
        return 1;
    case M_CHECK_ACTION:
        return 1;
    case M_PERTURB:
        /* glibc: new blocks get the byte's complement, freed ones the byte;
         * 0 turns both off. */
        if ((value & 0xff) != 0)
            cg_param_set_fill((int)((value & 0xff) ^ 0xff), (int)(value & 0xff));
        else
            cg_param_set_fill(-1, -1);
        return 1;
    case M_ARENA_TEST:
        /* Accepted as glibc does; the arena limit here is arena_max (or
         * 8 x CPUs) from the first thread on, with no trial phase. */
        return 1;
    case M_ARENA_MAX:
        if (value > 0)
            cg_mp.arena_max = (size_t)value;
        return 1;
    default:
        return 1;                 /* glibc ignores parameters it does not know */
    }
}
