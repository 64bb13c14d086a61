/*
 * bigblock.c — mmap'd big blocks and their registry (see bigblock.h).
 */
#include "bigblock.h"

#include "arena.h"
#include "vgclient.h"

typedef struct reg_entry {
    uintptr_t chunk;    /* 0: empty                                       */
    uintptr_t map;      /* the whole mapping's start (the chunk's header
                         * has it too, but the program can make a
                         * block's pages unreadable, and the fault paths
                         * must not read them)                            */
    size_t maplen;      /* length of the whole mapping                    */
} reg_entry_t;

static cg_lock_t reg_lock = CG_LOCK_INIT(CG_LK_BIG);

/* The last big blocks freed, so that a second free of one can be named a
 * double free rather than a free of a pointer we never saw.  1024 of them
 * (8 KiB, searched only on the error path): in debug mode a big block is
 * unmapped when it leaves the quarantine, and a program's second free
 * often comes hundreds of big frees later (64 was too few). */
#define RECENT 1024
static CG_BIG_BSS uintptr_t recent[RECENT];
static unsigned recent_next;
static reg_entry_t *reg_tab;      /* capacity entries, power of two */
static size_t reg_cap, reg_used;

static size_t slot_of(uintptr_t chunk, size_t cap)
{
    /* Fibonacci hashing of the page number. */
    return (size_t)(((chunk >> 4) * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

CG_HOT_TEXT static reg_entry_t *reg_find(uintptr_t chunk)
{
    if (reg_cap == 0)
        return NULL;
    for (size_t i = slot_of(chunk, reg_cap);; i = (i + 1) & (reg_cap - 1)) {
        if (reg_tab[i].chunk == chunk)
            return &reg_tab[i];
        if (reg_tab[i].chunk == 0)
            return NULL;
    }
}

static void reg_put(reg_entry_t *tab, size_t cap, reg_entry_t e)
{
    size_t i = slot_of(e.chunk, cap);
    while (tab[i].chunk != 0)
        i = (i + 1) & (cap - 1);
    tab[i] = e;
}

/* Keep the load below 1/2; the table lives in its own mapping. */
CG_HOT_TEXT static bool reg_reserve(void)
{
    if ((reg_used + 1) * 2 <= reg_cap)
        return true;
    size_t ncap = reg_cap ? reg_cap * 2 : 1024;
    reg_entry_t *nt = cg_os_map_guarded(ncap * sizeof *nt);
    if (nt == NULL)
        return false;
    for (size_t i = 0; i < reg_cap; i++)
        if (reg_tab[i].chunk != 0)
            reg_put(nt, ncap, reg_tab[i]);
    if (reg_tab != NULL)
        cg_os_unmap_guarded(reg_tab, reg_cap * sizeof *reg_tab);
    reg_tab = nt;
    reg_cap = ncap;
    return true;
}

/* Linear-probing deletion by backward shift: no tombstones. */
CG_HOT_TEXT static void reg_remove(reg_entry_t *e)
{
    size_t i = (size_t)(e - reg_tab);
    for (size_t j = (i + 1) & (reg_cap - 1); reg_tab[j].chunk != 0; j = (j + 1) & (reg_cap - 1)) {
        size_t home = slot_of(reg_tab[j].chunk, reg_cap);
        /* move j into the hole at i unless its home lies cyclically in (i, j] */
        if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
            reg_tab[i] = reg_tab[j];
            i = j;
        }
    }
    reg_tab[i].chunk = 0;
    reg_used--;
}

/* Statistics for mallinfo2/malloc_stats; the maxima are advisory (racy). */
CG_HOT_TEXT void cg_big_account(size_t len, int sign, bool mt)
{
    if (sign > 0) {
        size_t n = CG_ADD_IF(&cg_mp.n_mmaps, 1, mt);
        size_t m = CG_ADD_IF(&cg_mp.mmapped_mem, len, mt);
        if (n > CG_LOAD(cg_mp.max_n_mmaps))
            CG_STORE(cg_mp.max_n_mmaps, n);
        if (m > CG_LOAD(cg_mp.max_mmapped_mem))
            CG_STORE(cg_mp.max_mmapped_mem, m);
    } else {
        CG_ADD_IF(&cg_mp.n_mmaps, (size_t)-1, mt);
        CG_ADD_IF(&cg_mp.mmapped_mem, (size_t)0 - len, mt);
    }
}

CG_HOT_TEXT cg_chunk_t *cg_big_alloc(size_t nb, size_t align, const cg_call_t *call)
{
    size_t extra = align > CG_ALIGN ? align : 0;
    size_t len = CG_PAGE_ROUND(nb + CG_SIZE_SZ + extra);
    if (len < nb)
        return NULL;
    char *raw = cg_os_map(len);
    if (raw == NULL)
        return NULL;
    cg_vg_noaccess(raw, len);      /* header and slack: ours (vgclient.h) */
    uintptr_t mem = (uintptr_t)raw + CG_HDR_SZ;
    if (extra)
        mem = (mem + align - 1) & ~(uintptr_t)(align - 1);
    cg_chunk_t *c = cg_mem2chunk((void *)mem);
    size_t off = (size_t)((char *)c - raw);
    c->prev_size = off;
    cg_set_head(c, (len - off) | CG_IS_MMAPPED);

    cg_tok_t reg_tok = cg_lock_if_call(&reg_lock, call);
    bool ok = reg_reserve();
    if (ok) {
        reg_put(reg_tab, reg_cap, (reg_entry_t){ (uintptr_t)c, (uintptr_t)raw, len });
        reg_used++;
    }
    cg_unlock_if(&reg_lock, reg_tok);
    if (!ok) {
        cg_os_unmap(raw, len);
        return NULL;
    }
    cg_big_account(len, 1, call->mt);
    return c;
}

CG_HOT_TEXT bool cg_big_owns(const cg_chunk_t *c, const cg_call_t *call, bool *header_ok)
{
    if ((uintptr_t)c < 4096)      /* 0 marks an empty registry slot */
        return false;
    cg_tok_t reg_tok = cg_lock_if_call(&reg_lock, call);
    reg_entry_t *e = reg_find((uintptr_t)c);
    size_t maplen = e ? e->maplen : 0;
    cg_unlock_if(&reg_lock, reg_tok);
    if (e == NULL)
        return false;
    *header_ok = cg_is_mmapped(c) && c->prev_size < maplen &&
                 cg_csize(c) + c->prev_size == maplen;
    return true;
}

CG_HOT_TEXT void cg_big_free(cg_chunk_t *c, const cg_call_t *call)
{
    size_t off = c->prev_size, len = off + cg_csize(c);
    cg_tok_t reg_tok = cg_lock_if_call(&reg_lock, call);
    reg_entry_t *e = reg_find((uintptr_t)c);
    if (e != NULL)
        reg_remove(e);
    recent[recent_next++ % RECENT] = (uintptr_t)c;
    cg_unlock_if(&reg_lock, reg_tok);
    /* glibc's dynamic threshold: a freed big block shows the program uses
     * blocks of this size repeatedly, so serve them from the heap from now
     * on; the trim threshold follows at twice the mmap threshold. */
    size_t sz = cg_csize(c);
    if (!CG_LOAD(cg_mp.no_dyn_threshold) && sz > CG_LOAD(cg_mp.mmap_threshold) &&
        sz <= CG_MMAP_THRESHOLD_MAX) {
        CG_STORE(cg_mp.mmap_threshold, sz);
        CG_STORE(cg_mp.trim_threshold, 2 * sz);
    }
    cg_os_unmap((char *)c - off, len);
    cg_big_account(len, -1, call->mt);
}

cg_chunk_t *cg_big_resize(cg_chunk_t *c, size_t nb, const cg_call_t *call)
{
    size_t off = c->prev_size, oldlen = off + cg_csize(c);
    if (off != 0)               /* aligned blocks keep their alignment by copy */
        return NULL;
    size_t newlen = CG_PAGE_ROUND(nb + CG_SIZE_SZ);
    if (newlen < nb)
        return NULL;
    if (newlen == oldlen)
        return c;
    /* Under valgrind the block is copied instead: memcheck would carry
     * the bytes' state to a moved mapping, but a block can only be
     * described anew as all undefined (vgclient.h). */
    if (cg_vg_on)
        return NULL;
    cg_tok_t reg_tok = cg_lock_if_call(&reg_lock, call);
    bool ok = reg_reserve();
    cg_chunk_t *nc = NULL;
    if (ok) {
        void *p = cg_os_remap(c, oldlen, newlen);
        if (p != NULL) {
            nc = p;
            cg_set_head(nc, newlen | CG_IS_MMAPPED);
            reg_entry_t *e = reg_find((uintptr_t)c);
            if (e != NULL)
                reg_remove(e);
            reg_put(reg_tab, reg_cap, (reg_entry_t){ (uintptr_t)nc, (uintptr_t)nc, newlen });
            reg_used++;
        }
    }
    cg_unlock_if(&reg_lock, reg_tok);
    if (nc != NULL)
        CG_ADD_IF(&cg_mp.mmapped_mem, newlen - oldlen, call->mt);
    return nc;
}

bool cg_big_recently_freed(const cg_chunk_t *c, const cg_call_t *call)
{
    if ((uintptr_t)c < 4096)      /* the ring starts out as zeros */
        return false;
    bool found = false;
    cg_tok_t reg_tok = cg_lock_if_call(&reg_lock, call);
    for (unsigned i = 0; i < RECENT && !found; i++)
        found = recent[i] == (uintptr_t)c;
    cg_unlock_if(&reg_lock, reg_tok);
    return found;
}

void cg_big_each_locked(void (*fn)(const cg_chunk_t *c, size_t maplen, void *arg), void *arg)
{
    for (size_t i = 0; i < reg_cap; i++)
        if (reg_tab[i].chunk != 0)
            fn((const cg_chunk_t *)reg_tab[i].chunk, reg_tab[i].maplen, arg);
}

/* The registry's walk for the fault paths: the live big block whose
 * mapping holds a, or (holding false) the one whose mapping ends at or
 * below a and nearest to it, at most max bytes below.  *start, *end: its
 * mapping.  Reads the registry only, never a block's pages. */
static const cg_chunk_t *walk_near(uintptr_t a, size_t max, bool holding, const cg_call_t *call,
                                   uintptr_t *start, uintptr_t *end)
{
    const reg_entry_t *best = NULL;
    cg_tok_t reg_tok = cg_lock_if_call(&reg_lock, call);
    for (size_t i = 0; i < reg_cap; i++) {
        const reg_entry_t *r = &reg_tab[i];
        uintptr_t e = r->map + r->maplen;
        if (r->chunk == 0)
            continue;
        if (holding ? a >= r->map && a < e
                    : e <= a && a - e <= max && (best == NULL || e > best->map + best->maplen))
            best = r;
        if (holding && best != NULL)
            break;
    }
    const cg_chunk_t *c = best != NULL ? (const cg_chunk_t *)best->chunk : NULL;
    *start = best != NULL ? best->map : 0;
    *end = best != NULL ? best->map + best->maplen : 0;
    cg_unlock_if(&reg_lock, reg_tok);
    return c;
}

const cg_chunk_t *cg_big_below(uintptr_t a, size_t max, const cg_call_t *call, uintptr_t *end)
{
    uintptr_t start;
    return walk_near(a, max, false, call, &start, end);
}

const cg_chunk_t *cg_big_holding(uintptr_t a, const cg_call_t *call, uintptr_t *start,
                                 uintptr_t *end)
{
    return walk_near(a, 0, true, call, start, end);
}

CG_FORK_PATH void cg_big_lock_all(const cg_call_t *call) { cg_lock_for(&reg_lock, call); }
CG_FORK_PATH void cg_big_unlock_all(bool child)
{
    cg_lock_after_fork(&reg_lock, child);
}
