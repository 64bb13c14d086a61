/*
 * stackdepot.c — the deduplicated stack store (see stackdepot.h).
 *
 * Records live in 1 MiB chunks mapped on demand and never unmapped.  An id
 * names a record by position: (chunk index << 17 | offset / 8) + 1, so
 * looking a stack up by id is two loads, and id 0 is never a record.  A
 * record is {next id in its bucket, full hash, frame count, check word}
 * followed by the frames.  The hash table is an array of bucket heads (ids);
 * a new record is written completely, linked in front of its bucket's chain
 * and only then published by a release store of the bucket head, so a
 * reader that finds it by an acquire load sees it whole.  Records are
 * never modified after that, which is what lets readers go without a lock.
 */
#include "stackdepot.h"

#include "lock.h"

#include <string.h>

#include "stack.h"

#define CHUNK_SHIFT 20                          /* 1 MiB record chunks       */
#define CHUNK_SIZE ((size_t)1 << CHUNK_SHIFT)
#define OFF_BITS (CHUNK_SHIFT - 3)              /* offsets in 8-byte units   */
#define MAX_CHUNKS 4096u                        /* 4 GiB of records at most  */
#define TABLE_BITS 20                           /* 2^20 buckets              */
#define TABLE_SIZE ((size_t)1 << TABLE_BITS)
#define REC_MAGIC 0x5354434bu                   /* "STCK", xored with the id */
#define RECENT_BITS 12                          /* 4096 recently put stacks  */

typedef struct rec {
    uint32_t next;       /* id of the next record in this bucket, 0 at end */
    uint32_t hash;       /* hash of the frames                            */
    uint32_t n;          /* frames, 1..CG_STACK_MAX                       */
    uint32_t check;      /* REC_MAGIC ^ id: tells a record from garbage   */
    uintptr_t pcs[];     /* the frames, innermost first                   */
} rec_t;

static cg_lock_t depot_lock = CG_LOCK_INIT(CG_LK_DEPOT);   /* serialises inserters      */
static uint32_t *table;                       /* bucket heads; NULL at first */
static CG_BIG_BSS char *chunks[MAX_CHUNKS];   /* record chunks, published   */
static size_t nchunks;                        /* chunks mapped (under lock) */
static size_t cur_off = CHUNK_SIZE;           /* fill of the last chunk     */
static size_t cap_bytes = CG_STACKDEPOT_DEFAULT_CAP;
static cg_stackdepot_stats_t st;              /* counters (under lock)      */
/* Ids of recently put stacks, by a hash of their innermost frame: most puts
 * are of a stack put before (the same call site), and one probe here
 * answers them without hashing every frame or walking a chain.  Any id
 * found is a published record (only those are stored), compared whole
 * before use; a stale or racing entry only costs the slow lookup. */
static CG_BIG_BSS uint32_t recent[1u << RECENT_BITS];

static uint32_t hash_frames(const uintptr_t *pcs, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (size_t i = 0; i < n; i++) {
        h ^= pcs[i];
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 33;
    }
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
    return (uint32_t)(h ^ (h >> 32));
}

/* The record an id names, or NULL if the id names none. */
static const rec_t *rec_of(uint32_t id)
{
    if (id == 0)
        return NULL;
    uint32_t v = id - 1;
    size_t c = v >> OFF_BITS;
    size_t off = (size_t)(v & ((1u << OFF_BITS) - 1)) << 3;
    if (c >= MAX_CHUNKS || off + sizeof(rec_t) > CHUNK_SIZE)
        return NULL;
    const char *base = __atomic_load_n(&chunks[c], __ATOMIC_ACQUIRE);
    if (base == NULL)
        return NULL;
    const rec_t *r = (const rec_t *)(base + off);
    uint32_t n = __atomic_load_n(&r->n, __ATOMIC_RELAXED);
    if (__atomic_load_n(&r->check, __ATOMIC_RELAXED) != (REC_MAGIC ^ id) || n == 0 ||
        n > CG_STACK_MAX || off + sizeof(rec_t) + n * sizeof(uintptr_t) > CHUNK_SIZE)
        return NULL;
    return r;
}

static size_t recent_slot(const uintptr_t *pcs, size_t n)
{
    return (size_t)(((pcs[0] ^ n) * 0x9e3779b97f4a7c15ull) >> (64 - RECENT_BITS));
}

/* Does record r hold exactly these frames?  (A loop, not memcmp: most
 * stacks compared are a frame or a few.) */
static bool same_frames(const rec_t *r, const uintptr_t *pcs, size_t n)
{
    if (r->n != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (r->pcs[i] != pcs[i])
            return false;
    return true;
}

/* The id in `recent` for exactly these frames, or 0. */
static uint32_t recent_find(size_t slot, const uintptr_t *pcs, size_t n)
{
    uint32_t id = __atomic_load_n(&recent[slot], __ATOMIC_ACQUIRE);
    const rec_t *r = rec_of(id);
    return r != NULL && same_frames(r, pcs, n) ? id : 0;
}

/* Walk a bucket's chain for the stack.  Lock-free: see the file comment. */
static uint32_t find(const uint32_t *tab, uint32_t h, const uintptr_t *pcs, size_t n)
{
    uint32_t id = __atomic_load_n(&tab[h & (TABLE_SIZE - 1)], __ATOMIC_ACQUIRE);
    /* A chain cannot be longer than the number of records; the bound only
     * guards against a corrupted table. */
    for (size_t steps = 0; id != 0 && steps < ((size_t)MAX_CHUNKS << OFF_BITS); steps++) {
        const rec_t *r = rec_of(id);
        if (r == NULL)
            return 0;
        if (r->hash == h && same_frames(r, pcs, n))
            return id;
        id = r->next;
    }
    return 0;
}

/* Append a record; caller holds the lock (or is single-threaded).  Returns
 * its id, or 0 when over the cap or out of memory. */
static uint32_t insert(uint32_t *tab, uint32_t h, const uintptr_t *pcs, size_t n)
{
    size_t size = sizeof(rec_t) + n * sizeof(uintptr_t);
    if (st.used_bytes + size > CG_LOAD(cap_bytes))
        return 0;
    if (cur_off + size > CHUNK_SIZE) {
        if (nchunks >= MAX_CHUNKS)
            return 0;
        char *c = cg_os_map_meta(CHUNK_SIZE);
        if (c == NULL)
            return 0;
        __atomic_store_n(&chunks[nchunks], c, __ATOMIC_RELEASE);
        nchunks++;
        cur_off = 0;
        st.mapped_bytes += CHUNK_SIZE;
    }
    size_t c = nchunks - 1;
    uint32_t id = (uint32_t)(((c << OFF_BITS) | (cur_off >> 3)) + 1);
    rec_t *r = (rec_t *)(chunks[c] + cur_off);
    cur_off += size;
    uint32_t *head = &tab[h & (TABLE_SIZE - 1)];
    r->next = *head;
    r->hash = h;
    memcpy(r->pcs, pcs, n * sizeof *pcs);
    __atomic_store_n(&r->n, (uint32_t)n, __ATOMIC_RELAXED);
    __atomic_store_n(&r->check, REC_MAGIC ^ id, __ATOMIC_RELAXED);
    __atomic_store_n(head, id, __ATOMIC_RELEASE);    /* publish */
    st.stacks++;
    st.frames += n;
    st.used_bytes += size;
    return id;
}

/* A stack `recent` does not know: the table, then a new record under the
 * lock.  Out of line, so that the common put stays a small leaf. */
static CG_NOINLINE uint32_t put_slow(const uintptr_t *pcs, size_t n, size_t slot)
{
    uint32_t id;
    uint32_t h = hash_frames(pcs, n);
    uint32_t *tab = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
    if (tab != NULL) {
        id = find(tab, h, pcs, n);
        if (id != 0) {
            __atomic_store_n(&recent[slot], id, __ATOMIC_RELEASE);
            return id;
        }
    }
    bool mt = !CG_SINGLE_THREAD_P;
    cg_tok_t depot_tok = cg_lock_if(&depot_lock, mt);
    tab = table;
    if (tab == NULL) {
        tab = cg_os_map_meta(TABLE_SIZE * sizeof(uint32_t));
        if (tab != NULL) {
            __atomic_store_n(&table, tab, __ATOMIC_RELEASE);
            st.table_bytes = TABLE_SIZE * sizeof(uint32_t);
        }
    }
    id = 0;
    if (tab != NULL) {
        id = find(tab, h, pcs, n);          /* stored meanwhile by another thread? */
        if (id == 0)
            id = insert(tab, h, pcs, n);
    }
    if (id == 0)
        st.refused++;
    else
        __atomic_store_n(&recent[slot], id, __ATOMIC_RELEASE);
    cg_unlock_if(&depot_lock, depot_tok);
    return id;
}

uint32_t cg_stack_put(const uintptr_t *pcs, size_t n)
{
    if (n == 0 || pcs == NULL)
        return 0;
    if (n > CG_STACK_MAX)
        n = CG_STACK_MAX;
    size_t slot = recent_slot(pcs, n);
    uint32_t id = recent_find(slot, pcs, n);
    return id != 0 ? id : put_slow(pcs, n, slot);
}

size_t cg_stack_get(uint32_t id, const uintptr_t **pcs)
{
    const rec_t *r = rec_of(id);
    if (pcs != NULL)
        *pcs = r != NULL ? r->pcs : NULL;
    return r != NULL ? r->n : 0;
}

void cg_stackdepot_set_cap(size_t bytes)
{
    size_t max = (size_t)MAX_CHUNKS * CHUNK_SIZE;
    CG_STORE(cap_bytes, bytes < max ? bytes : max);
}

void cg_stackdepot_stats(cg_stackdepot_stats_t *out)
{
    cg_lock(&depot_lock);
    *out = st;
    cg_unlock(&depot_lock);
}

CG_FORK_PATH void cg_stackdepot_lock(const cg_call_t *call)
{
    cg_lock_for(&depot_lock, call);
}

CG_FORK_PATH void cg_stackdepot_unlock(bool child)
{
    cg_lock_after_fork(&depot_lock, child);
}
