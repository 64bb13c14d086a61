/*
 * guardpool.c — the guard region's ranges (see guardpool.h).
 */
#include "guardpool.h"

#include <string.h>
#include <sys/mman.h>

#include "bigblock.h"
#include "lock.h"
#include "vgclient.h"

#define EXACT 256                 /* free ranges of 2..EXACT pages: one list each */

/* A free range: sealed pages no record is bound to.  Descriptors live in
 * their own mapping (the ranges themselves are inaccessible), linked by
 * index; index 0 is "none". */
typedef struct range {
    char *lo;
    uint32_t pages;
    uint32_t next;
} range_t;

static cg_lock_t pool_lock = CG_LOCK_INIT(CG_LK_GUARD);
static char *region_lo, *bump, *region_hi;
static CG_BIG_BSS uint32_t lists[EXACT + 1];     /* [n]: ranges of n pages; [0]: larger */
static range_t *descs;
static uint32_t ndescs, cap_descs, free_descs;
static size_t live, live_limit;
static uint32_t q_head, q_tail;       /* retired records, oldest first     */
static size_t q_bytes;

/* Copies of the records of the last blocks whose ranges went back to the
 * free ranges (cg_gpool_give), so that a free of one after that is named
 * a double free, with its stacks, rather than a free of a pointer in no
 * block — as big blocks do (bigblock.c).  256 of 64 bytes (16 KiB, read
 * only on the error path); an entry is a copy, so a report reads it while
 * the record itself is reused. */
#define RECENT 256
static CG_BIG_BSS cg_shadow_t recent[RECENT];
static uint32_t recent_next;

bool cg_gpool_init(void)
{
    if (region_lo != NULL)
        return true;
    /* As much address space as the system lets us reserve, up to 1 TiB: it
     * costs neither memory nor commit charge, and a larger region delays
     * the reuse of sealed ranges beyond the quarantine's budget. */
    for (size_t bytes = (size_t)1 << 40; bytes >= (size_t)1 << 30; bytes >>= 2) {
        char *p = cg_os_reserve(bytes);
        if (p == NULL)
            continue;
        if (!cg_shadow_pages_init(p, bytes)) {
            cg_os_unmap(p, bytes);
            continue;
        }
        region_lo = bump = p + cg_pagesize;   /* the first page guards the first range */
        region_hi = p + bytes;
        live_limit = cg_os_max_map_count() / 4;
        return true;
    }
    return false;
}

static uint32_t desc_new(void)
{
    if (free_descs != 0) {
        uint32_t i = free_descs;
        free_descs = descs[i].next;
        return i;
    }
    if (ndescs + 1 >= cap_descs) {
        uint32_t ncap = cap_descs ? cap_descs * 2 : 4096;
        range_t *nd = cg_os_map_meta(ncap * sizeof *descs);   /* metadata body */
        if (nd == NULL)
            return 0;
        if (descs != NULL) {
            memcpy(nd, descs, cap_descs * sizeof *descs);
            cg_os_unmap_meta(descs, cap_descs * sizeof *descs);
        }
        descs = nd;
        cap_descs = ncap;
    }
    return ++ndescs;
}

/* Caller holds the lock.  A range that cannot get a descriptor (out of
 * memory) is lost to reuse: it stays sealed. */
static void put_free(char *lo, uint32_t pages)
{
    uint32_t i = desc_new();
    if (i == 0)
        return;
    uint32_t *list = &lists[pages <= EXACT ? pages : 0];
    descs[i] = (range_t){ lo, pages, *list };
    *list = i;
}

/* Take pages pages from the front of the free range at *link (unlinking
 * it), the rest back to the free ranges.  Caller holds the lock. */
static char *split(uint32_t *link, uint32_t pages)
{
    uint32_t i = *link;
    range_t d = descs[i];
    *link = d.next;
    descs[i].next = free_descs;
    free_descs = i;
    if (d.pages > pages)
        put_free(d.lo + (size_t)pages * cg_pagesize, d.pages - pages);
    return d.lo;
}

/* A free range of at least pages pages: the exact list, then fresh
 * address space, then the first large enough of the larger ranges. */
static char *find(uint32_t pages)
{
    if (pages <= EXACT && lists[pages] != 0)
        return split(&lists[pages], pages);
    size_t bytes = (size_t)pages * cg_pagesize;
    if ((size_t)(region_hi - bump) >= bytes) {
        char *p = bump;
        bump += bytes;
        return p;
    }
    for (uint32_t *link = &lists[0]; *link != 0; link = &descs[*link].next)
        if (descs[*link].pages >= pages)
            return split(link, pages);
    for (uint32_t n = pages + 1; n <= EXACT; n++)
        if (lists[n] != 0)
            return split(&lists[n], pages);
    return NULL;
}

char *cg_gpool_take(uint32_t pages, bool mt)
{
    if (region_lo == NULL)
        return NULL;
    char *p = NULL;
    cg_tok_t tok = cg_lock_if(&pool_lock, mt);
    if (live < live_limit && (p = find(pages)) != NULL)
        live++;
    cg_unlock_if(&pool_lock, tok);
    if (p != NULL)
        cg_big_account((size_t)pages * cg_pagesize, 1, mt);
    return p;
}

bool cg_gpool_at_limit(void)
{
    return region_lo == NULL || CG_LOAD(live) >= live_limit ||
           (size_t)(region_hi - CG_LOAD(bump)) < ((size_t)1 << 20);
}

bool cg_gpool_open(char *p, size_t len)
{
    if (!cg_os_commit(p, len))
        return false;
    cg_vg_noaccess(p, len);    /* slack and redzone: the block is opened alone */
    return true;
}

void cg_gpool_untake(char *lo, uint32_t pages, bool mt)
{
    cg_os_seal(lo, (size_t)pages * cg_pagesize);
    cg_big_account((size_t)pages * cg_pagesize, -1, mt);
    cg_tok_t tok = cg_lock_if(&pool_lock, mt);
    live--;
    put_free(lo, pages);
    cg_unlock_if(&pool_lock, tok);
}

size_t cg_gpool_retire(cg_shadow_t *r, size_t budget, bool mt, uint32_t out[CG_GPOOL_BATCH])
{
    size_t bytes = (size_t)r->pages * cg_pagesize, n = 0;
    /* A range the kernel will not seal (its mapping limit) stays open: it
     * is kept out of reuse all the same, only its accesses go unseen. */
    cg_os_seal((void *)r->head, bytes);
    cg_big_account(bytes, -1, mt);
    cg_tok_t tok = cg_lock_if(&pool_lock, mt);
    live--;
    r->next = 0;
    if (q_tail != 0)
        cg_shadow_at(q_tail)->next = r->id;
    else
        q_head = r->id;
    q_tail = r->id;
    q_bytes += bytes;
    while (q_bytes > budget && q_head != 0 && n < CG_GPOOL_BATCH) {
        cg_shadow_t *old = cg_shadow_at(q_head);
        q_head = old->next;
        if (q_head == 0)
            q_tail = 0;
        q_bytes -= (size_t)old->pages * cg_pagesize;
        out[n++] = old->id;
    }
    cg_unlock_if(&pool_lock, tok);
    return n;
}

/* ---- guard slots ------------------------------------------------------ */

static char *slots_lo;
static uint32_t nslots, slots_used;   /* slots; how many were ever handed out */
static uint32_t *ring;                /* freed slots, oldest first: indices   */
static uint32_t ring_head, ring_n;

bool cg_gpool_slots_init(uint32_t n)
{
    if (n == 0 || (size_t)n * 2 > UINT32_MAX)
        return false;
    ring = cg_os_map_meta((size_t)n * sizeof *ring);
    if (ring == NULL)
        return false;
    cg_tok_t tok = cg_lock_if(&pool_lock, false);
    char *p = find(n * 2);
    cg_unlock_if(&pool_lock, tok);
    if (p == NULL)
        return false;
    slots_lo = p;
    nslots = n;
    return true;
}

char *cg_gpool_slot_take(bool mt, uint32_t *old)
{
    char *lo = NULL;
    *old = 0;
    cg_tok_t tok = cg_lock_if(&pool_lock, mt);
    if (slots_used < nslots) {
        lo = slots_lo + (size_t)slots_used++ * 2 * cg_pagesize;
    } else if (ring_n > 0) {
        lo = slots_lo + (size_t)ring[ring_head] * 2 * cg_pagesize;
        ring_head = (ring_head + 1) % nslots;
        ring_n--;
        cg_shadow_t *r = cg_shadow_of_page(lo);
        *old = r != NULL ? r->id : 0;
    }
    cg_unlock_if(&pool_lock, tok);
    if (lo != NULL)
        cg_big_account(2 * cg_pagesize, 1, mt);
    return lo;
}

/* Caller holds the lock. */
static void ring_put(const char *lo)
{
    ring[(ring_head + ring_n++) % nslots] = (uint32_t)((size_t)(lo - slots_lo) / (2 * cg_pagesize));
}

void cg_gpool_slot_untake(char *lo, bool mt)
{
    cg_os_seal(lo, 2 * cg_pagesize);
    cg_big_account(2 * cg_pagesize, -1, mt);
    cg_tok_t tok = cg_lock_if(&pool_lock, mt);
    ring_put(lo);
    cg_unlock_if(&pool_lock, tok);
}

void cg_gpool_slot_retire(cg_shadow_t *r, bool ok, bool mt)
{
    char *lo = (char *)r->head;
    cg_os_seal(lo, 2 * cg_pagesize);
    cg_big_account(2 * cg_pagesize, -1, mt);
    if (!ok)
        return;
    cg_tok_t tok = cg_lock_if(&pool_lock, mt);
    ring_put(lo);
    cg_unlock_if(&pool_lock, tok);
}

void cg_gpool_give(const cg_shadow_t *was, bool mt)
{
    cg_tok_t tok = cg_lock_if(&pool_lock, mt);
    put_free((char *)was->head, was->pages);
    recent[recent_next++ % RECENT] = *was;
    cg_unlock_if(&pool_lock, tok);
}

bool cg_gpool_recent(const void *p, bool mt, cg_shadow_t *out)
{
    bool found = false;
    cg_tok_t tok = cg_lock_if(&pool_lock, mt);
    /* newest first: a range given back twice names its last block */
    for (uint32_t i = 1; i <= RECENT && !found; i++) {
        const cg_shadow_t *e = &recent[(recent_next - i) % RECENT];
        if ((found = e->chunk != NULL && cg_shadow_user(e) == p))
            *out = *e;
    }
    cg_unlock_if(&pool_lock, tok);
    return found;
}

void cg_gpool_each_retired(void (*fn)(cg_shadow_t *r))
{
    cg_tok_t tok = cg_lock_if(&pool_lock, !CG_SINGLE_THREAD_P);
    for (uint32_t id = q_head; id != 0; id = cg_shadow_at(id)->next)
        fn(cg_shadow_at(id));
    cg_unlock_if(&pool_lock, tok);
}

void cg_gpool_usage(size_t *nlive, size_t *limit, size_t *retired)
{
    *nlive = CG_LOAD(live);
    *limit = live_limit;
    *retired = CG_LOAD(q_bytes);
}

CG_FORK_PATH void cg_gpool_lock_all(const cg_call_t *call) { cg_lock_for(&pool_lock, call); }

CG_FORK_PATH void cg_gpool_unlock_all(bool child)
{
    cg_lock_after_fork(&pool_lock, child);
}
