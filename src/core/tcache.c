/*
 * tcache.c — creating and retiring thread caches, and the rare checks
 * behind the inline get/put of tcache.h.
 */
#include "alloc.h"
#include "fastbin.h"
#include "tcache.h"

#include <pthread.h>
#include <string.h>


uintptr_t cg_tcache_key;
uintptr_t cg_fastbin_secret;
uintptr_t cg_link_secret;

/* Live thread caches, for cg_get_stats; counts of exited threads are folded
 * into cg_exited_counts.  Both under cg_list_lock. */
static cg_tcache_t *live_head;
uint64_t cg_exited_counts[5] CG_FORK_DATA;

void cg_tcache_report_bad_link(const void *entry, const void *link, const cg_call_t *call)
{
    /* The address is the cached block whose link was overwritten (a write
     * after free, most likely), not the garbage it decodes to. */
    char detail[64];
    if (link == entry)
        cg_fail_TCACHE_SELF_LINK(call, entry);
    cg_fmt(detail, sizeof detail, "it demangles to %p", link);
    cg_fail_with(call, CG_CK_TCACHE_LINK, entry, detail);
}

void cg_tcache_double_free_check(cg_tcache_t *tc, size_t idx, cg_tentry_t *e,
                                 const cg_call_t *call)
{
    /* The bin holds at most tcache_count entries, so the walk is bounded
     * even if the list was corrupted into a cycle. */
    size_t n = 0;
    for (cg_tentry_t *t = tc->entries[idx]; t != NULL && n <= cg_mp.tcache_count; n++) {
        if (t == e)
            cg_fail_TCACHE_DOUBLE_FREE(call, e);
        cg_tentry_t *nx = cg_reveal(&t->next, t->next);
        if (CG_CHECK_ON(SAFE_LINK) && !cg_tcache_link_ok(t, nx))
            cg_tcache_report_bad_link(t, nx, call);
        t = nx;
    }
}

void cg_freed_key_check(cg_chunk_t *c, size_t size, cg_tcache_t *tc, const cg_call_t *call)
{
    void *mem = cg_chunk2mem(c);
    if (tc != NULL && size <= cg_mp.tcache_max_csize)
        cg_tcache_double_free_check(tc, cg_csize2tidx(size), mem, call);
    /* Any fastbin size M_MXFAST allows, whatever it is now: a chunk freed
     * under a larger limit is still in its fastbin.  At the bin's top it
     * is glibc's "fasttop" case, reported as glibc names it. */
    if (size <= CG_FASTBIN_MAX_CSIZE && cg_fastbin_marked(c)) {
        cg_chunk_t **fb = &cg_arena_of(c)->fastbins[cg_fastbin_index(size)];
        if (CG_CHECK_ON(FASTTOP) && __atomic_load_n(fb, __ATOMIC_RELAXED) == c)
            cg_fail_FASTTOP(call, mem);
        cg_fail_FASTBIN_DOUBLE_FREE(call, mem);
    }
}

CG_HOT_TEXT cg_tcache_t *cg_tcache_init(const cg_call_t *call)
{
    if (cg_self.state != CG_T_NEW)
        return cg_self.cache;
    /* Mark first: the allocation below and pthread_setspecific may call
     * back into malloc, which must not try to build a second tcache. */
    cg_self.state = CG_T_UNCACHED;
    cg_arena_t *av = cg_arena_for_thread(call);
    bool fresh;
    cg_tok_t av_tok = cg_lock_if_call(&av->lock, call);
    cg_chunk_t *c = cg_arena_malloc(av, cg_request2size(sizeof(cg_tcache_t)), call, &fresh, NULL);
    cg_unlock_if(&av->lock, av_tok);
    if (c == NULL) {
        cg_self.state = CG_T_NEW;
        return NULL;
    }
    cg_tcache_t *tc = cg_chunk2mem(c);
    memset(tc, 0, sizeof *tc);
    cg_tok_t list_tok = cg_lock_if_call(&cg_list_lock, call);
    tc->next_live = live_head;
    if (live_head != NULL)
        live_head->prev_live = tc;
    live_head = tc;
    cg_unlock_if(&cg_list_lock, list_tok);
    cg_self.cache = tc;            /* inside a slow path: tcache stays NULL */
    cg_self.state = CG_T_CACHED;
    return tc;
}

static void fold_counts(cg_tcache_t *tc)
{
    cg_exited_counts[0] += tc->n_malloc;
    cg_exited_counts[1] += tc->n_free;
    cg_exited_counts[2] += tc->n_calloc;
    cg_exited_counts[3] += tc->n_realloc;
    cg_exited_counts[4] += tc->n_memalign;
}

static void unlink_live(cg_tcache_t *tc)
{
    if (tc->prev_live != NULL)
        tc->prev_live->next_live = tc->next_live;
    else
        live_head = tc->next_live;
    if (tc->next_live != NULL)
        tc->next_live->prev_live = tc->prev_live;
}

CG_HOT_TEXT void cg_tcache_shutdown(void)
{
    cg_tcache_t *tc = cg_self.cache;
    if (tc == NULL)
        return;
    /* No program call: the thread's end (its key's destructor). */
    const cg_call_t call = cg_call_internal("pthread_exit");
    /* From here on this thread's frees go straight to the arenas. */
    cg_self.cache = NULL;
    cg_self.state = CG_T_UNCACHED;
    cg_tok_t list_tok = cg_lock_if_call(&cg_list_lock, &call);
    unlink_live(tc);
    fold_counts(tc);
    cg_unlock_if(&cg_list_lock, list_tok);
    for (size_t i = 0; i < CG_TCACHE_BINS; i++) {
        while (tc->entries[i] != NULL) {
            void *mem = cg_tcache_get(tc, i, &call);
            cg_chunk_t *c = cg_mem2chunk(mem);
            cg_arena_free(cg_arena_of(c), c, &call);
        }
    }
    cg_chunk_t *c = cg_mem2chunk(tc);
    cg_arena_free(cg_arena_of(c), c, &call);
    cg_arena_detach_thread();
}

CG_FORK_PATH void cg_tcache_after_fork_child(void)
{
    /* Only the forking thread survives; the other threads' caches stay
     * allocated (their chunks are lost to the child, as in glibc) but stop
     * being counted as live.  The operation counts start again at zero:
     * the child's cg_get_stats and stats_path line count its own calls
     * (docs/options.md, stats_path), not the parent's before the fork. */
    cg_tcache_t *self = cg_self.cache;
    for (cg_tcache_t *t = live_head, *n; t != NULL; t = n) {
        n = t->next_live;
        if (t != self)
            unlink_live(t);
    }
    for (int i = 0; i < 5; i++)
        cg_exited_counts[i] = 0;
    if (self != NULL)
        self->n_malloc = self->n_free = self->n_calloc = self->n_realloc = self->n_memalign = 0;
}

void cg_tcache_sum(uint64_t out[5], const cg_call_t *call)
{
    cg_tok_t list_tok = cg_lock_if_call(&cg_list_lock, call);
    for (int i = 0; i < 5; i++)
        out[i] = cg_exited_counts[i];
    for (cg_tcache_t *t = live_head; t != NULL; t = t->next_live) {
        out[0] += __atomic_load_n(&t->n_malloc, __ATOMIC_RELAXED);
        out[1] += __atomic_load_n(&t->n_free, __ATOMIC_RELAXED);
        out[2] += __atomic_load_n(&t->n_calloc, __ATOMIC_RELAXED);
        out[3] += __atomic_load_n(&t->n_realloc, __ATOMIC_RELAXED);
        out[4] += __atomic_load_n(&t->n_memalign, __ATOMIC_RELAXED);
    }
    cg_unlock_if(&cg_list_lock, list_tok);
}
