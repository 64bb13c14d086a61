/*
 * guard.c — guard mode: guarded blocks, their table, and the reports of
 * faults on their pages (see guard.h).
 */
#include "guard.h"

#include <errno.h>
#include <string.h>

#include "debug.h"
#include "fmt.h"
#include "debugblock.h"
#include "fault.h"
#include "guardpool.h"
#include "heapcheck.h"
#include "log.h"
#include "options.h"
#include "pattern.h"
#include "shadow.h"
#include "stack.h"
#include "testhooks.h"
#include "vgclient.h"

/* ---- layout ----------------------------------------------------------- */

/* Where a block of n bytes, aligned to align, goes in a range: its pages
 * (the guard page included), its data pages and its user pointer, as
 * offsets from the range's start. */
typedef struct layout {
    uint32_t pages;
    size_t data_off, data_len, user_off;
} layout_t;

/* The start alignment: memalign's when it asks for more than 16 bytes,
 * else guard_align (a power of two, 1 to 16). */
static size_t start_align(size_t align)
{
    if (align > CG_ALIGN)
        return align;
    size_t a = (size_t)cg_opt.guard_align;
    while (a & (a - 1))
        a &= a - 1;
    return a;
}

static bool plan(size_t n, size_t align, layout_t *L)
{
    size_t P = cg_pagesize, a = start_align(align);
    /* overflow side: the block's end at most a - 1 bytes before the guard
     * page, so the data must hold n + a - 1; underflow side: the block
     * starts at the first data page, or the first multiple of a > P in it */
    size_t need = cg_opt.guard_underflow ? n + (a > P ? a - P : 0) : n + a - 1;
    if (need < n || need > CG_MAX_REQUEST)
        return false;
    size_t data_pages = need == 0 ? 1 : (need + P - 1) / P;
    if (data_pages >= UINT32_MAX / 2)
        return false;
    L->pages = (uint32_t)data_pages + 1;
    L->data_len = data_pages * P;
    if (cg_opt.guard_underflow) {
        L->data_off = P;
        L->user_off = P;    /* the range is page-aligned; a > P: aligned below */
    } else {
        L->data_off = 0;
        L->user_off = L->data_len - n;
    }
    return true;
}

/* The slack on either side of the block, filled at allocation and checked
 * at free: the 256 bytes (at most) before the user block — the nearest
 * underflows — hold the lead's pattern; the rest of the data before them
 * (*zero bytes from the first data page's start: an alignment's or a
 * short block's lead) stays as the kernel gave it, zero, and is checked
 * for zero; and [user + req, data end) holds the redzone byte. */
#define CG_FRONT_CHECKED 256
static void slack(const cg_shadow_t *r, unsigned char **lo, size_t *front, unsigned char **hi,
                  size_t *back, size_t *zero)
{
    size_t P = cg_pagesize;
    unsigned char *range = (unsigned char *)r->head;
    unsigned char *data = range + (cg_opt.guard_underflow ? P : 0);
    unsigned char *end = data + ((size_t)r->pages - 1) * P;
    unsigned char *u = cg_shadow_user(r);
    size_t f = (size_t)(u - data);
    *front = f < CG_FRONT_CHECKED ? f : CG_FRONT_CHECKED;
    *lo = u - *front;
    *zero = f - *front;
    *hi = u + r->req;
    *back = (size_t)(end - (u + r->req));
}

/* ---- allocation ------------------------------------------------------- */

/* Open the data pages of the taken range lo (layout L) and make the
 * block there: its record, slack, fill.  NULL (the range given back by
 * the caller) when the kernel or the record slabs refuse. */
static void *place(char *lo, const layout_t *L, size_t n, size_t align, int kind, uint8_t how,
                   const cg_call_t *c)
{
    if (!cg_gpool_open(lo + L->data_off, L->data_len))
        return NULL;
    size_t a = start_align(align);
    uintptr_t u = (uintptr_t)lo + L->user_off;
    u = cg_opt.guard_underflow ? (u + a - 1) & ~(uintptr_t)(a - 1) : u & ~(uintptr_t)(a - 1);
    uint32_t stack = cg_dbg_capture(c);
    uint32_t id;
    cg_shadow_t *r = cg_shadow_new_pages((void *)u, lo, L->pages, c, &id);
    if (r == NULL)
        return NULL;
    r->guarded = how;
    r->req = n;
    r->alloc_stack = stack;
    r->alloc_tid = cg_dbg_tid(c->mt);
    r->kind = cg_kind_of_call(kind, c);
    r->align_shift = cg_align_shift(align);
    r->mode = cg_dbg_block_mode(c->caller);
    unsigned char *front_lo, *back_lo;
    size_t front, back, zero;
    slack(r, &front_lo, &front, &back_lo, &back, &zero);
    cg_dbg_lead_fill(r->kind, front_lo + front, front);   /* the zero cookie last (debug.h) */
    memset(back_lo, CG_DBG_REDZONE, back);
    /* The pages are new or were sealed (dropped): they read zero, so
     * calloc has nothing to clear. */
    if (cg_opt.fill_alloc >= 0 && kind != CG_KIND_CALLOC)
        memset((void *)u, cg_opt.fill_alloc, n);
    __atomic_store_n(&r->state, CG_SH_LIVE, __ATOMIC_RELEASE);
    cg_verify_tick(c);
    return cg_vg_new((void *)u, n, kind == CG_KIND_CALLOC);   /* vgclient.h */
}

void *cg_guarded_alloc(size_t n, size_t align, int kind, const cg_call_t *c)
{
    layout_t L;
    if (!plan(n, align, &L))
        return NULL;
    char *lo = cg_gpool_take(L.pages, c->mt);
    if (lo == NULL)
        return NULL;
    void *u = place(lo, &L, n, align, kind, CG_GUARDED_RANGE, c);
    if (u == NULL)
        cg_gpool_untake(lo, L.pages, c->mt);
    return u;
}

void *cg_guarded_sample(size_t n, size_t align, int kind, const cg_call_t *c)
{
    layout_t L;
    if (align > cg_pagesize || !plan(n, align, &L) || L.pages != 2)
        return NULL;                        /* more than a slot's one page */
    uint32_t old;
    char *lo = cg_gpool_slot_take(c->mt, &old);
    if (lo == NULL)
        return NULL;
    if (old != 0)          /* the block freed there last: its record goes now */
        cg_shadow_delete_pages(cg_shadow_at(old), c);
    void *u = place(lo, &L, n, align, kind, CG_GUARDED_SLOT, c);
    if (u == NULL)
        cg_gpool_slot_untake(lo, c->mt);
    return u;
}


/* ---- free ------------------------------------------------------------- */

/* The slack of a guarded block intact?  Reports heap-buffer-overflow (an
 * overflow within the slack, which the guard page could not see)
 * otherwise and returns false.  when: "at free", ... */
static bool check_slack(const cg_call_t *c, const cg_shadow_t *r, const char *when)
{
    unsigned char *front_lo, *back_lo;
    size_t front, back, zero;
    slack(r, &front_lo, &front, &back_lo, &back, &zero);
    const unsigned char *u = cg_shadow_user(r);
    const unsigned char *bad = cg_pattern_find_not_any(back_lo, back, CG_DBG_REDZONE);
    char msg[160];
    if (bad != NULL) {
        cg_fmt(msg, sizeof msg, "from offset %zu of a %zu-byte region (found %s)",
               (size_t)(bad - u), r->req, when);
        cg_dbg_report(c, CG_CK_GUARD_SLACK_AFTER, bad, msg, r);
        return false;
    }
    /* the front slack: the lowest changed byte is named, as debug mode
     * names it in its leading redzone (where a forward write began) */
    const unsigned char *q = cg_pattern_find_not_any(front_lo - zero, zero, 0);
    if (q == NULL)
        q = cg_dbg_lead_bad(r->kind, u, front);
    if (q == NULL)
        return true;
    cg_fmt(msg, sizeof msg, "%zu bytes before a %zu-byte region (found %s)",
           (size_t)(u - q), r->req, when);
    cg_dbg_report(c, CG_CK_GUARD_SLACK_BEFORE, q, msg, r);
    return false;
}

/* The guarded block p is, or NULL after the right report; use: free,
 * realloc or malloc_usable_size. */
static cg_shadow_t *block_to_release(const cg_call_t *c, void *p, cg_use_t use)
{
    cg_shadow_t *r = cg_shadow_of_page(p);
    CG_TEST_HOOK(CG_HOOK_DBG_LOOKED_UP, p);
    /* A record not p's (any more: p's block may have been freed by
     * another thread and its range given back to the pool since the
     * lookup, the record unbound or bound to a new block): look again, as
     * debug mode's lookup does.  No wait for the give-back is
     * needed here: a free that finds no record reports and frees nothing,
     * and a range's record is unbound before the range goes back. */
    if (r != NULL && cg_shadow_user(r) != p)
        r = cg_shadow_of_page(p);
    cg_check_t freed = use == CG_USE_FREE      ? CG_CK_GUARD_DOUBLE_FREE
                       : use == CG_USE_REALLOC ? CG_CK_GUARD_REALLOC_FREED
                                               : CG_CK_GUARD_USABLE_FREED;
    if (r == NULL) {
        /* a block whose range went back to the pool lately: freed, its
         * stacks from the copy the pool keeps */
        cg_shadow_t was;
        bool recent = cg_gpool_recent(p, c->mt, &was);
        cg_dbg_report(c, recent ? freed : CG_CK_FOR_USE(GUARD_NO_BLOCK, use), p, NULL,
                      recent ? &was : NULL);
        return NULL;
    }
    if (cg_shadow_user(r) != p) {
        cg_dbg_report_not_p(c, use, p, r, freed);
        return NULL;
    }
    return r;
}

/* The rest of a free, on a claimed guarded block: checks, free stack,
 * sealed pages, the FIFO; the oldest sealed blocks' ranges go back. */
static void finish_free(const cg_call_t *c, cg_shadow_t *r, void *p, size_t sized,
                        size_t salign)
{
    bool mt = c->mt;
    cg_vg_gone(p);
    bool ok = cg_dbg_release_ok(c, r, p, sized, salign) && check_slack(c, r, "at free");
    r->free_stack = cg_dbg_capture(c);
    r->free_tid = cg_dbg_tid(mt);
    __atomic_store_n(&r->state, CG_SH_QUARANTINED, __ATOMIC_RELEASE);
    if (r->guarded == CG_GUARDED_SLOT) {
        /* sealed until its slot is needed again (never, when it is bad) */
        cg_gpool_slot_retire(r, ok, mt);
        return;
    }
    uint32_t out[CG_GPOOL_BATCH];
    /* A bad block (halt_on_error=0) is sealed but never leaves: its
     * budget is nothing, its range is never reused. */
    size_t k = cg_gpool_retire(r, ok ? (size_t)cg_opt.guard_quarantine_mb << 20 : SIZE_MAX, mt, out);
    for (size_t i = 0; i < k; i++) {
        cg_shadow_t *old = cg_shadow_at(out[i]);
        cg_shadow_t was = *old;     /* out of the FIFO: no one writes it */
        cg_shadow_delete_pages(old, c);
        cg_gpool_give(&was, mt);
    }
}

void cg_guarded_free(void *p, size_t sized, size_t salign, const cg_call_t *c)
{
    cg_verify_tick(c);
    cg_shadow_t *r = block_to_release(c, p, CG_USE_FREE);
    if (r == NULL || !cg_dbg_claim(c, r, p, CG_CK_GUARD_DOUBLE_FREE))
        return;
    finish_free(c, r, p, sized, salign);
}

void *cg_guarded_realloc(void *p, size_t n, const cg_call_t *c,
                         void *(*alloc)(size_t n, const cg_call_t *c))
{
    cg_verify_tick(c);
    cg_shadow_t *r = block_to_release(c, p, CG_USE_REALLOC);
    if (r == NULL || !cg_dbg_claim(c, r, p, CG_CK_GUARD_REALLOC_FREED))
        return NULL;
    if (n == 0) {
        finish_free(c, r, p, SIZE_MAX, 0);
        return NULL;
    }
    void *q = alloc(n, c);
    if (q == NULL) {
        __atomic_store_n(&r->state, CG_SH_LIVE, __ATOMIC_RELEASE);   /* unchanged */
        return NULL;
    }
    memcpy(q, p, r->req < n ? r->req : n);
    finish_free(c, r, p, SIZE_MAX, 0);
    return q;
}

size_t cg_guarded_usable(void *p, const cg_call_t *c)
{
    cg_shadow_t *r = block_to_release(c, p, CG_USE_USABLE);
    return r != NULL ? cg_dbg_usable_of(c, r, p, CG_CK_GUARD_USABLE_FREED) : 0;
}

/* ---- exit ------------------------------------------------------------- */

/* arg: the call (the exit's). */
static void check_live(cg_shadow_t *r, void *arg)
{
    if (r->guarded && __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == CG_SH_LIVE)
        (void)check_slack(arg, r, "at exit");
}

void cg_guarded_check_live(void)
{
    cg_call_t call = cg_call_internal("exit");
    if (CG_SINGLE_THREAD_P || cg_os_nthreads() == 1) {
        cg_os_flush_stdio();
        cg_shadow_each(check_live, &call);
    }
}

/* ---- faults ----------------------------------------------------------- */

/* The guarded block nearest to a within 1 MiB (a's own range first, then
 * the nearest range below — an overflow runs upward — or above). */
/* Bytes from a to r's block (0 inside it). */
static size_t distance(const void *a, const cg_shadow_t *r)
{
    const char *u = cg_shadow_user(r), *p = a;
    return p < u ? (size_t)(u - p) : p >= u + r->req ? (size_t)(p - u - r->req) + 1 : 0;
}

cg_shadow_t *cg_guard_nearest(const void *a)
{
    cg_shadow_t *r = cg_shadow_of_page(a);
    /* A guard page lies between two ranges: the block it guards (its own
     * range's) and the block just across it, whichever ends or starts
     * nearer a is the one the access went astray from (an overflow of the
     * block below, first, at equal distance). */
    if (r != NULL) {
        cg_shadow_t *below = cg_shadow_of_page((const char *)a - cg_pagesize);
        cg_shadow_t *above = cg_shadow_of_page((const char *)a + cg_pagesize);
        if (below != NULL && below != r && distance(a, below) <= distance(a, r))
            r = below;
        if (above != NULL && above != r && distance(a, above) < distance(a, r))
            r = above;
        return r;
    }
    for (size_t k = 1; r == NULL && k <= (1u << 20) / cg_pagesize; k++) {
        const char *below = (const char *)a - k * cg_pagesize;
        const char *above = (const char *)a + k * cg_pagesize;
        if ((r = cg_shadow_of_page(below)) == NULL)
            r = cg_shadow_of_page(above);
    }
    return r;
}

void cg_guard_fault(const void *a, uintptr_t pc, int write, void *uc)
{
    if (!cg_shadow_in_pages(a))
        return;
    cg_call_t call = cg_call_internal("a memory access");
    call.caller = pc;
    cg_access_t acc = cg_dbg_access(pc, write, uc, false);
    cg_shadow_t *r = cg_guard_nearest(a);
    cg_check_t id = r == NULL ? CG_CK_GUARD_FAULT_WILD
                    : !cg_shadow_seen_live(__atomic_load_n(&r->state, __ATOMIC_ACQUIRE))
                        ? CG_CK_GUARD_FAULT_FREED
                    : (const char *)a < (const char *)cg_shadow_user(r) ? CG_CK_GUARD_FAULT_BEFORE
                    : (const char *)a < (const char *)cg_shadow_user(r) + r->req
                        ? CG_CK_GUARD_FAULT_LIVE        /* the program protected its pages */
                        : CG_CK_GUARD_FAULT_PAST;
    cg_dbg_report_at(&call, id, a, NULL, r, NULL, 0, &acc);
}
