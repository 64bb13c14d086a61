/*
 * sample.c — which blocks are guarded, over a mode's table: sampled ones in
 * any mode, debug mode's big ones, and every one in guard mode (see
 * sample.h).
 */
#include "sample.h"

#include <errno.h>
#include <string.h>

#include "fault.h"
#include "fmt.h"
#include "guard.h"
#include "guardpool.h"
#include "log.h"
#include "options.h"
#include "shadow.h"
#include "stack.h"

static cg_mode_t inner;            /* the mode's own table               */
static uint32_t interval;          /* guard_sample in effect (0: off)    */
static size_t big_min = SIZE_MAX;  /* blocks of this many bytes or more are
                                    * guarded: guard_big, at least a page
                                    * (debug mode), 0 (guard mode: all),
                                    * or none                           */
static uint64_t seed, draws;       /* the intervals' random stream       */

int cg_sample_interval(void)
{
    if (cg_opt.guard_sample >= 0)
        return cg_opt.mode == CG_OPT_MODE_GUARD ? 0 : cg_opt.guard_sample;
    return cg_opt.mode == CG_OPT_MODE_DEBUG ? 256 : 0;
}

/* The next interval, uniform in [1, 2 * interval - 1]: splitmix64 of a
 * per-process seed and a draw number (sebastiano vigna's mixer). */
static uint32_t next_interval(void)
{
    uint64_t z = seed + (CG_ADD_IF(&draws, 1, !CG_SINGLE_THREAD_P) + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    uint32_t span = 2 * interval - 1;
    return 1 + (uint32_t)(z % span);
}

/* Count this allocation down; true when it is the sampled one (the
 * counter then starts over).  The inline hits leave the counter at 0 for
 * the call they hand over to be the sampled one. */
static bool due(void)
{
    if (interval == 0)
        return false;
    uint32_t left = cg_self.sample_left;
    if (left != 0 && --left != 0) {
        cg_self.sample_left = left;
        return false;
    }
    cg_self.sample_left = next_interval();
    return true;
}

/* A guarded block for this allocation, or NULL: the big ones of debug
 * mode on a range of their own, the sampled ones in a guard slot. */
static bool warned;

/* The one place that says which kind of block a request of n bytes gets
 * by its size: a guarded range of its own (debug mode's big blocks,
 * guard_big bytes or more; every block in guard mode), or not.  malloc,
 * calloc, the aligned entries, C++'s new (through them) and realloc's new
 * block, whatever block it grows from, all ask it. */
static bool goes_big(size_t n)
{
    return n >= big_min;
}

static void *guarded(size_t n, size_t align, int kind, const cg_call_t *c)
{
    bool sampled = due();
    if (goes_big(n)) {
        void *p = cg_guarded_alloc(n, align, kind, c);
        if (p == NULL && big_min == 0 && cg_gpool_at_limit() &&
            !__atomic_exchange_n(&warned, true, __ATOMIC_RELAXED)) {
            /* guard mode stops guarding: say so, once */
            char msg[200];
            size_t k = cg_fmt(msg, sizeof msg, "==%d==chunkguard: guard mode has no room for "
                              "more guarded blocks (a quarter of vm.max_map_count live, or its "
                              "address space used): new blocks are debug-mode blocks\n",
                              cg_os_getpid());
            cg_log_write(msg, k);
        }
        return p;
    }
    return CG_UNLIKELY(sampled) ? cg_guarded_sample(n, align, kind, c) : NULL;
}

static void *s_malloc(size_t n, const cg_call_t *c)
{
    void *p = guarded(n, 0, CG_KIND_MALLOC, c);
    return p != NULL ? p : inner.malloc(n, c);
}

static void *s_calloc(size_t bytes, const cg_call_t *c)
{
    void *p = guarded(bytes, 0, CG_KIND_CALLOC, c);
    return p != NULL ? p : inner.calloc(bytes, c);
}

static void *s_memalign(size_t align, size_t n, const cg_call_t *c)
{
    void *p = guarded(n, align, CG_KIND_MEMALIGN, c);
    return p != NULL ? p : inner.memalign(align, n, c);
}

/* realloc's new block for a guarded one. */
static void *new_block(size_t n, const cg_call_t *c)
{
    void *p = guarded(n, 0, CG_KIND_REALLOC, c);
    return p != NULL ? p : inner.malloc(n, c);
}

static void s_free(void *p, size_t sized, size_t salign, const cg_call_t *c)
{
    if (cg_shadow_in_pages(p))
        cg_guarded_free(p, sized, salign, c);
    else
        inner.free(p, sized, salign, c);
}

/* realloc of a block of the mode's own (a debug-mode block, not guarded)
 * to a size that goes_big: the new block is a guarded one, as malloc's
 * would be; the old one's bytes are copied and it is freed by the mode.
 * A pointer that is not a live block's start, or a guarded block refused
 * (budget), goes to the mode's realloc, which reports the one and serves
 * the other as before. */
static void *unguarded_to_big(void *p, size_t n, const cg_call_t *c)
{
    const cg_shadow_t *r = cg_shadow_find(p, c);
    if (r == NULL || cg_shadow_user(r) != p ||
        __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != CG_SH_LIVE)
        return inner.realloc(p, n, c);
    size_t old = r->req;
    void *q = guarded(n, 0, CG_KIND_REALLOC, c);
    if (q == NULL)
        return inner.realloc(p, n, c);
    memcpy(q, p, old < n ? old : n);
    inner.free(p, SIZE_MAX, 0, c);        /* not a sized free */
    return q;
}

static void *s_realloc(void *p, size_t n, const cg_call_t *c)
{
    if (p == NULL && n <= CG_MAX_REQUEST)
        return new_block(n, c);
    if (p != NULL && cg_shadow_in_pages(p)) {
        if (n > CG_MAX_REQUEST) {
            errno = ENOMEM;
            return NULL;
        }
        return cg_guarded_realloc(p, n, c, new_block);
    }
    if (p != NULL && n <= CG_MAX_REQUEST && goes_big(n))
        return unguarded_to_big(p, n, c);
    return inner.realloc(p, n, c);
}

static size_t s_usable(void *p, const cg_call_t *c)
{
    return cg_shadow_in_pages(p) ? cg_guarded_usable(p, c) : inner.usable(p, c);
}

/* Sampled blocks record their stacks in every mode: the unwinder is
 * primed once the process is up (the mode's own start may do it too). */
static void s_start(void)
{
    if (inner.start != NULL)
        inner.start();
    if (cg_opt.stack_depth > 1)
        cg_stack_prime();
}

static void s_at_exit(void)
{
    cg_guarded_check_live();
    if (inner.at_exit != NULL)
        inner.at_exit();
}

static void s_thread_start(void)
{
    if (interval != 0)
        cg_self.sample_left = next_interval();
    if (inner.thread_start != NULL)
        inner.thread_start();
}

CG_HOT_TEXT void cg_sample_install(cg_mode_t *m)
{
    int n = cg_sample_interval();
    bool all = cg_opt.mode == CG_OPT_MODE_GUARD;
    bool big = cg_opt.mode == CG_OPT_MODE_DEBUG && cg_opt.guard_big > 0;
    if (n <= 0 && !big && !all)
        return;
    if (!cg_gpool_init() || (n > 0 && !cg_gpool_slots_init((uint32_t)cg_opt.guard_slots))) {
        char msg[160];
        size_t k = cg_fmt(msg, sizeof msg, "==%d==chunkguard: %s could not reserve its address "
                          "space: every block is a debug-mode block\n", cg_os_getpid(),
                          all ? "guard mode" : n > 0 ? "guard_sample" : "guard_big");
        cg_log_write(msg, k);
        return;
    }
    interval = n > 0 ? (uint32_t)n : 0;
    size_t big_from = (size_t)cg_opt.guard_big > cg_pagesize ? (size_t)cg_opt.guard_big : cg_pagesize;
    big_min = all ? 0 : big ? big_from : SIZE_MAX;
    if (all)
        m->name = "guard";
    seed = cg_os_random64();
    inner = *m;
    m->malloc = s_malloc;
    m->calloc = s_calloc;
    m->memalign = s_memalign;
    m->realloc = s_realloc;
    m->free = s_free;
    m->usable = s_usable;
    m->start = s_start;
    m->at_exit = s_at_exit;
    m->thread_start = s_thread_start;
    /* the first thread is already running */
    if (interval != 0)
        cg_self.sample_left = next_interval();
}
