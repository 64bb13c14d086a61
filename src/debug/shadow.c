/*
 * shadow.c — debug-mode block records (see shadow.h).
 */
#include "shadow.h"

#include "testhooks.h"
#include "dthread.h"
#include "lock.h"

#include "bigblock.h"
#include "vgclient.h"

#define SLAB_SHIFT 12
#define SLAB_RECORDS ((uint32_t)1 << SLAB_SHIFT)        /* 4096 records, 256 KiB */
#define MAX_SLABS 16384                                  /* 64 Mi records */

static cg_lock_t shadow_lock = CG_LOCK_INIT(CG_LK_SHADOW);
static CG_BIG_BSS cg_shadow_t *slabs[MAX_SLABS];
static uint32_t nslabs;            /* slabs mapped                        */
static uint32_t bump;              /* records ever handed out (ids 1..)   */
static uint32_t free_head;         /* freed records, linked through next  */
static size_t nlive;               /* records out of the free list: in use,
                                    * or in a thread's cache (at most
                                    * CG_RCACHE_MAX each)                 */

/* Big blocks: chunk address -> record id, linear probing, power-of-two
 * capacity, in its own mapping; grown at 50 % load. */
typedef struct big_slot {
    const cg_chunk_t *chunk;
    uint32_t id;
} big_slot_t;
static big_slot_t *big_tab;
static size_t big_cap, big_used;

const char *cg_kind_name(int kind)
{
    static const char *const names[CG_KIND_NEW] = {
        [CG_KIND_MALLOC] = "malloc", [CG_KIND_CALLOC] = "calloc",
        [CG_KIND_REALLOC] = "realloc", [CG_KIND_MEMALIGN] = "memalign",
    };
    if (kind >= CG_KIND_NEW && kind < CG_KIND_COUNT)
        return cg_family_new_name(cg_kind_family(kind));
    return kind >= 0 && kind < CG_KIND_NEW ? names[kind] : "?";
}

/* Inline here; the other files' calls go to cg_shadow_at, which is on
 * the fork path (a fork child's splice and _exit checks call it). */
CG_INLINE cg_shadow_t *shadow_at(uint32_t id)
{
    uint32_t i = id - 1;
    return &slabs[i >> SLAB_SHIFT][i & (SLAB_RECORDS - 1)];
}

CG_FORK_PATH cg_shadow_t *cg_shadow_at(uint32_t id)
{
    return shadow_at(id);
}

static uint32_t *map_slot(const cg_chunk_t *c)
{
    cg_heap_t *h = cg_heap_base(c);
    uint32_t *map = (uint32_t *)((char *)h + CG_SHADOW_MAP_OFF);
    return &map[((uintptr_t)c - (uintptr_t)h) >> 6];
}

static size_t big_hash(const cg_chunk_t *c, size_t cap)
{
    return (size_t)(((uintptr_t)c >> 4) * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
}

static bool big_grow(void)
{
    size_t ncap = big_cap ? big_cap * 2 : 1024;
    big_slot_t *nt = cg_os_map_meta(ncap * sizeof *nt);
    if (nt == NULL)
        return false;
    for (size_t i = 0; i < big_cap; i++) {
        if (big_tab[i].chunk == NULL)
            continue;
        size_t j = big_hash(big_tab[i].chunk, ncap);
        while (nt[j].chunk != NULL)
            j = (j + 1) & (ncap - 1);
        nt[j] = big_tab[i];
    }
    if (big_tab != NULL)
        cg_os_unmap_meta(big_tab, big_cap * sizeof *big_tab);
    big_tab = nt;
    big_cap = ncap;
    return true;
}

static big_slot_t *big_find(const cg_chunk_t *c)
{
    if (big_cap == 0)
        return NULL;
    for (size_t j = big_hash(c, big_cap), n = 0; n < big_cap; j = (j + 1) & (big_cap - 1), n++) {
        if (big_tab[j].chunk == c)
            return &big_tab[j];
        if (big_tab[j].chunk == NULL)
            return NULL;
    }
    return NULL;
}

/* Remove a slot, shifting later members of its probe run back (no
 * tombstones, so lookups stay short). */
static void big_remove(big_slot_t *s)
{
    size_t i = (size_t)(s - big_tab);
    big_tab[i].chunk = NULL;
    for (size_t j = (i + 1) & (big_cap - 1); big_tab[j].chunk != NULL; j = (j + 1) & (big_cap - 1)) {
        size_t home = big_hash(big_tab[j].chunk, big_cap);
        /* move j back to i when its home is not in (i, j] */
        bool in_range = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!in_range) {
            big_tab[i] = big_tab[j];
            big_tab[j].chunk = NULL;
            i = j;
        }
    }
    big_used--;
}

/* Slabs come in groups of 2 MiB (8 slabs) at a 2 MiB boundary of the
 * metadata body, so that with huge pages on (heap.h, option huge_pages)
 * a group is collapsed into one huge page once its second slab is taken:
 * a fork then copies one page-table entry for the group's records, where
 * a full slab in 4 KiB pages is 64 (docs/performance.md, "fork13b"), for
 * at most 1.75 MiB more memory, and only in a program that has had 4096
 * records at once.  Without huge pages, or when the body has no aligned
 * room, a slab is a piece of the body of its own, as before.  Caller
 * holds the shadow lock. */
#define SLAB_BYTES (SLAB_RECORDS * sizeof(cg_shadow_t))
#define GROUP_SLABS ((uint32_t)(CG_HUGE_PAGE / SLAB_BYTES))
static char *group;                /* the group slabs are taken from, or NULL */
static uint32_t group_used;        /* its slabs taken                          */

static cg_shadow_t *slab_new(void)
{
    if (group != NULL && group_used < GROUP_SLABS) {
        cg_shadow_t *s = (cg_shadow_t *)(group + group_used++ * SLAB_BYTES);
        if (group_used == 2)
            (void)cg_os_collapse(group, CG_HUGE_PAGE);
        return s;
    }
    group = cg_heap_huge_on() ? cg_os_map_meta_aligned(CG_HUGE_PAGE, CG_HUGE_PAGE) : NULL;
    if (group == NULL)
        return cg_os_map_meta(SLAB_BYTES);
    group_used = 1;
    return (cg_shadow_t *)group;
}

static uint32_t record_alloc(void)
{
    if (free_head != 0) {
        uint32_t id = free_head;
        free_head = shadow_at(id)->next;
        return id;
    }
    if (bump == nslabs * SLAB_RECORDS) {
        if (nslabs == MAX_SLABS)
            return 0;
        cg_shadow_t *s = slab_new();
        if (s == NULL)
            return 0;
        slabs[nslabs] = s;
        __atomic_store_n(&nslabs, nslabs + 1, __ATOMIC_RELEASE);
    }
    return ++bump;
}

/* The shadow lock, taken for call when call->mt (never for NULL). */
CG_INLINE cg_tok_t shadow_lock_for(const cg_call_t *call)
{
    return call != NULL ? cg_lock_if_call(&shadow_lock, call) : (cg_tok_t){ false };
}

/* ---- guarded blocks: a record id per page of the guard region ---------- */

uintptr_t cg_shadow_pages_lo, cg_shadow_pages_hi;
static uint32_t *page_map;

bool cg_shadow_pages_init(const void *base, size_t bytes)
{
    size_t entries = bytes / cg_pagesize;
    page_map = cg_os_map_meta(entries * sizeof *page_map);   /* untouched: costs nothing */
    if (page_map == NULL)
        return false;
    cg_shadow_pages_lo = (uintptr_t)base;
    cg_shadow_pages_hi = (uintptr_t)base + bytes;
    return true;
}

static uint32_t *page_slot(const void *a)
{
    return &page_map[((uintptr_t)a - cg_shadow_pages_lo) / cg_pagesize];
}

cg_shadow_t *cg_shadow_new_pages(void *user, char *lo, uint32_t pages, const cg_call_t *call,
                                 uint32_t *idp)
{
    cg_tok_t shadow_tok = shadow_lock_for(call);
    uint32_t id = record_alloc();
    cg_shadow_t *r = NULL;
    if (id != 0) {
        r = shadow_at(id);
        *r = (cg_shadow_t){ .chunk = (cg_chunk_t *)((char *)user - CG_HDR_SZ), .id = id,
                            .guarded = 1, .pages = pages, .head = (size_t)lo,
                            .gen = (uint16_t)(r->gen + 1) };
        nlive++;
        uint32_t *slot = page_slot(lo);
        for (uint32_t i = 0; i < pages; i++)
            CG_STORE(slot[i], id);
    }
    cg_unlock_if(&shadow_lock, shadow_tok);
    *idp = id;
    return r;
}

bool cg_shadow_snapshot(const cg_shadow_t *r, cg_shadow_t *out)
{
    /* a seqlock's reader: the writers (a block made, freed, reused) change
     * state, chunk or gen before the fields they rewrite */
    uint8_t st = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
    uint16_t gen = __atomic_load_n(&r->gen, __ATOMIC_ACQUIRE);
    cg_chunk_t *c = __atomic_load_n(&r->chunk, __ATOMIC_ACQUIRE);
    const uint64_t *from = (const uint64_t *)r;
    uint64_t *to = (uint64_t *)out;
    for (size_t i = 0; i < sizeof *r / sizeof *from; i++)
        to[i] = __atomic_load_n(&from[i], __ATOMIC_RELAXED);
    CG_TEST_HOOK(CG_HOOK_DBG_REPORT, (void *)r);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return st != 0 && c != NULL && __atomic_load_n(&r->state, __ATOMIC_RELAXED) == st &&
           __atomic_load_n(&r->gen, __ATOMIC_RELAXED) == gen &&
           __atomic_load_n(&r->chunk, __ATOMIC_RELAXED) == c;
}

void cg_shadow_delete_pages(cg_shadow_t *r, const cg_call_t *call)
{
    cg_tok_t shadow_tok = shadow_lock_for(call);
    uint32_t *slot = page_slot((const void *)r->head);
    for (uint32_t i = 0; i < r->pages; i++)
        CG_STORE(slot[i], 0);
    r->chunk = NULL;
    r->next = free_head;
    free_head = r->id;
    nlive--;
    cg_unlock_if(&shadow_lock, shadow_tok);
}

cg_shadow_t *cg_shadow_of_page(const void *a)
{
    if (!cg_shadow_in_pages(a))
        return NULL;
    uint32_t id = CG_LOAD(*page_slot(a));
    if (id == 0 || id > __atomic_load_n(&nslabs, __ATOMIC_ACQUIRE) * SLAB_RECORDS)
        return NULL;
    cg_shadow_t *r = shadow_at(id);
    return CG_LOAD(r->chunk) != NULL && r->guarded ? r : NULL;
}

/* ---- records ---------------------------------------------------------- */

/* Put record id back on the free list.  Caller holds the shadow lock. */
static void record_free(uint32_t id)
{
    shadow_at(id)->next = free_head;
    free_head = id;
    nlive--;
}

/* A record id for a heap chunk from the thread's cache, refilled with half
 * its size under the lock when empty; 0 when the slabs cannot grow.  With
 * no cache (an exited thread, no memory for one), one id under the lock. */
static uint32_t cached_alloc(const cg_call_t *call)
{
    cg_dthread_t *t = cg_dthread_self(call->mt);
    if (t != NULL && t->rc.n > 0)
        return t->rc.ids[--t->rc.n];
    uint32_t id;
    cg_tok_t shadow_tok = shadow_lock_for(call);
    if (t != NULL) {
        while (t->rc.n < CG_RCACHE_MAX / 2 && (id = record_alloc()) != 0) {
            t->rc.ids[t->rc.n++] = id;
            nlive++;
        }
        id = t->rc.n > 0 ? t->rc.ids[--t->rc.n] : 0;
    } else if ((id = record_alloc()) != 0) {
        nlive++;
    }
    cg_unlock_if(&shadow_lock, shadow_tok);
    return id;
}

/* Give a heap chunk's record id back: to the thread's cache, drained by
 * half under the lock when full. */
static void cached_free(uint32_t id, const cg_call_t *call)
{
    cg_dthread_t *t = cg_dthread_peek();
    if (t != NULL && t->rc.n < CG_RCACHE_MAX) {
        t->rc.ids[t->rc.n++] = id;
        return;
    }
    cg_tok_t shadow_tok = shadow_lock_for(call);
    record_free(id);
    while (t != NULL && t->rc.n > CG_RCACHE_MAX / 2)
        record_free(t->rc.ids[--t->rc.n]);
    cg_unlock_if(&shadow_lock, shadow_tok);
}

/* Return every id of cache rc to the free list.  Caller holds the lock. */
static void drain(cg_rcache_t *rc)
{
    while (rc->n > 0)
        record_free(rc->ids[--rc->n]);
}

void cg_shadow_thread_exit(const cg_call_t *call)
{
    cg_dthread_t *t = cg_dthread_peek();
    if (t == NULL || t->rc.n == 0)
        return;
    cg_tok_t shadow_tok = shadow_lock_for(call);
    drain(&t->rc);
    cg_unlock_if(&shadow_lock, shadow_tok);
}

/* The block lock of the calling thread's block t (dthread.h), taken when
 * mt (or nothing, for no block): held across a heap record's bind and
 * unbind so that the heap verifier, which holds every block's lock, sees
 * each record and its map slot settled. */
CG_INLINE cg_tok_t block_lock(cg_dthread_t *t, bool mt)
{
    if (t == NULL || !mt)
        return (cg_tok_t){ false };
    cg_lock_raw(&t->lock, CG_RET_ADDR, NULL);
    return (cg_tok_t){ true };
}

/* A heap chunk's record: from the thread's cache, bound by the thread's
 * own store into the shadow map (the chunk is the thread's: no other
 * binds or unbinds that slot meanwhile) under its block's lock.  No shared
 * lock on a cache hit. */
static cg_shadow_t *new_heap(cg_chunk_t *c, const cg_call_t *call, uint32_t *idp)
{
    uint32_t id = cached_alloc(call);
    *idp = id;
    if (id == 0)
        return NULL;
    cg_dthread_t *t = cg_dthread_peek();
    cg_tok_t t_tok = block_lock(t, call->mt);
    /* no block (an exited thread): the shadow lock, as before there were
     * blocks */
    cg_tok_t shadow_tok = t == NULL ? shadow_lock_for(call) : (cg_tok_t){ false };
    cg_shadow_t *r = shadow_at(id);
    *r = (cg_shadow_t){ .chunk = c, .id = id, .gen = (uint16_t)(r->gen + 1) };
    CG_STORE(*map_slot(c), id);
    cg_unlock_if(&shadow_lock, shadow_tok);
    if (t != NULL)
        cg_unlock_if(&t->lock, t_tok);
    return r;
}

cg_shadow_t *cg_shadow_new(cg_chunk_t *c, bool big, const cg_call_t *call, uint32_t *idp)
{
    if (!big)
        return new_heap(c, call, idp);
    cg_tok_t shadow_tok = shadow_lock_for(call);
    uint32_t id = record_alloc();
    if (id != 0 && big_used * 2 >= big_cap && !big_grow()) {
        shadow_at(id)->next = free_head;
        free_head = id;
        id = 0;
    }
    cg_shadow_t *r = NULL;
    if (id != 0) {
        r = shadow_at(id);
        *r = (cg_shadow_t){ .chunk = c, .id = id, .gen = (uint16_t)(r->gen + 1) };
        nlive++;
        size_t j = big_hash(c, big_cap);
        while (big_tab[j].chunk != NULL)
            j = (j + 1) & (big_cap - 1);
        big_tab[j] = (big_slot_t){ c, id };
        big_used++;
    }
    cg_unlock_if(&shadow_lock, shadow_tok);
    *idp = id;
    return r;
}

void cg_shadow_delete(cg_shadow_t *r, bool big, const cg_call_t *call)
{
    if (!big) {
        /* the thread releasing the chunk owns its map slot (new_heap) */
        cg_dthread_t *t = cg_dthread_peek();
        cg_tok_t t_tok = block_lock(t, call->mt);
        cg_tok_t shadow_tok = t == NULL ? shadow_lock_for(call) : (cg_tok_t){ false };
        uint32_t *slot = map_slot(r->chunk);
        uint32_t id = CG_LOAD(*slot);
        CG_STORE(*slot, 0);
        bool mine = id != 0 && shadow_at(id) == r;
        if (mine)
            CG_STORE(r->chunk, NULL);
        cg_unlock_if(&shadow_lock, shadow_tok);
        if (t != NULL)
            cg_unlock_if(&t->lock, t_tok);
        if (mine)
            cached_free(id, call);
        return;
    }
    cg_tok_t shadow_tok = shadow_lock_for(call);
    big_slot_t *s = big_find(r->chunk);
    if (s != NULL) {
        uint32_t id = s->id;
        big_remove(s);
        if (shadow_at(id) == r) {
            r->chunk = NULL;
            record_free(id);
        }
    }
    cg_unlock_if(&shadow_lock, shadow_tok);
}

cg_shadow_t *cg_shadow_of(const cg_chunk_t *c, bool big, const cg_call_t *call)
{
    uint32_t id;
    if (big) {
        cg_tok_t shadow_tok = shadow_lock_for(call);
        big_slot_t *s = big_find(c);
        id = s ? s->id : 0;
        cg_unlock_if(&shadow_lock, shadow_tok);
    } else {
        id = CG_LOAD(*map_slot(c));
    }
    if (id == 0 || id > __atomic_load_n(&nslabs, __ATOMIC_ACQUIRE) * SLAB_RECORDS)
        return NULL;
    cg_shadow_t *r = shadow_at(id);
    return r->chunk == c ? r : NULL;
}

cg_shadow_t *cg_shadow_of_hint(const cg_chunk_t *c)
{
    if (!cg_heap_chunk_ok(cg_heap_base(c), c))
        return NULL;
    uint32_t id = CG_LOAD(*cg_shadow_hint(c));
    if (id == 0 || id > __atomic_load_n(&nslabs, __ATOMIC_ACQUIRE) * SLAB_RECORDS)
        return NULL;
    cg_shadow_t *r = shadow_at(id);
    return CG_LOAD(r->chunk) == c && !r->guarded ? r : NULL;
}

cg_shadow_t *cg_shadow_find(const void *a, const cg_call_t *call)
{
    if (cg_shadow_in_pages(a))
        return cg_shadow_of_page(a);
    if (cg_in_heap(a)) {
        cg_heap_t *h = cg_heap_base(a);
        cg_chunk_t *c = cg_heap_find_chunk(h, a);
        return c != NULL ? cg_shadow_of(c, false, call) : NULL;
    }
    cg_shadow_t *found = NULL;
    cg_tok_t shadow_tok = shadow_lock_for(call);
    for (size_t j = 0; j < big_cap && found == NULL; j++) {
        const cg_chunk_t *c = big_tab[j].chunk;
        if (c != NULL && (const char *)a >= (const char *)c &&
            (const char *)a < (const char *)c + cg_csize(c))
            found = shadow_at(big_tab[j].id);
    }
    cg_unlock_if(&shadow_lock, shadow_tok);
    return found;
}

void cg_shadow_each(void (*fn)(cg_shadow_t *r, void *arg), void *arg)
{
    uint32_t n = CG_LOAD(bump);
    for (uint32_t id = 1; id <= n; id++) {
        cg_shadow_t *r = shadow_at(id);
        if (CG_LOAD(r->chunk) != NULL)
            fn(r, arg);
    }
}

cg_shadow_t *cg_shadow_find_near(const void *a, size_t max_back)
{
    if (cg_shadow_in_pages(a)) {
        /* a guarded block's range is pages: only an address in the block
         * itself (or just past its end) points to it */
        cg_shadow_t *r = cg_shadow_of_page(a);
        const char *u = r != NULL ? cg_shadow_user(r) : NULL;
        return r != NULL && (const char *)a >= u && (const char *)a <= u + r->req ? r : NULL;
    }
    if (!cg_in_heap(a)) {
        /* big blocks: exact start first, then a walk of the table */
        if (big_cap == 0)
            return NULL;
        for (size_t j = 0; j < big_cap; j++) {
            const cg_chunk_t *c = big_tab[j].chunk;
            if (c != NULL && (const char *)a >= (const char *)c &&
                (const char *)a < (const char *)c + cg_csize(c))
                return shadow_at(big_tab[j].id);
        }
        return NULL;
    }
    cg_heap_t *h = cg_heap_base(a);
    const uint64_t *map = (const uint64_t *)((char *)h + CG_HEAP_HDR_BYTES);
    size_t i = ((uintptr_t)a - (uintptr_t)h) >> 4;
    size_t first = CG_HEAP_DATA_OFF >> 4;
    if (i < first || i >= (CG_HEAP_MAX >> 4))
        return NULL;
    size_t w = i >> 6, words = max_back / (64 * 16) + 1;
    uint64_t bits = CG_LOAD(map[w]) & (~(uint64_t)0 >> (63 - (i & 63)));
    while (bits == 0) {
        if (w <= first >> 6 || words-- == 0)
            return NULL;
        bits = CG_LOAD(map[--w]);
    }
    size_t j = w * 64 + 63 - (size_t)__builtin_clzll(bits);
    if (j < first)
        return NULL;
    return cg_shadow_of((cg_chunk_t *)((char *)h + (j << 4)), false, false);
}

void cg_shadow_usage(size_t *records, size_t *bytes)
{
    *records = CG_LOAD(nlive);
    *bytes = (size_t)CG_LOAD(nslabs) * SLAB_RECORDS * sizeof(cg_shadow_t) +
             big_cap * sizeof(big_slot_t);
}

CG_FORK_PATH void cg_shadow_lock_all(const cg_call_t *call) { cg_lock_for(&shadow_lock, call); }

CG_FORK_PATH void cg_shadow_unlock_all(bool child)
{
    if (child) {               /* single-threaded: the others' caches */
        cg_dthread_t *self = cg_dthread_peek();
        for (cg_dthread_t *t = cg_dthread_first(); t != NULL; t = t->all)
            if (t != self)
                drain(&t->rc);
    }
    cg_lock_after_fork(&shadow_lock, child);
}
