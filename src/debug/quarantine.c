/*
 * quarantine.c — the FIFO of freed debug-mode blocks (see quarantine.h).
 */
#include "quarantine.h"
#include "lock.h"

static cg_lock_t q_lock = CG_LOCK_INIT(CG_LK_QUARANTINE);
static uint32_t q_head, q_tail;      /* oldest and newest record ids (0: empty) */
static size_t q_bytes, q_blocks;
static size_t q_big_bytes, q_big_blocks;   /* of them, mmap'd big blocks */
static size_t q_puts;                      /* blocks ever put              */
/* In a forked child: the newest record and the count of puts at the fork
 * (cg_quarantine_each_since_fork). */
static bool q_forked;
static uint32_t fork_tail;
static size_t fork_puts;

static size_t record_bytes(const cg_shadow_t *r)
{
    return r->head & ~(size_t)CG_FLAG_BITS;
}

/* Count r in (sign 1) or out (-1) of the quarantine.  Caller holds the lock. */
static void count(const cg_shadow_t *r, int sign)
{
    size_t bytes = record_bytes(r), one = sign > 0 ? 1 : (size_t)-1;
    CG_STORE(q_bytes, q_bytes + (sign > 0 ? bytes : -bytes));
    CG_STORE(q_blocks, q_blocks + one);
    if (r->head & CG_IS_MMAPPED) {
        CG_STORE(q_big_bytes, q_big_bytes + (sign > 0 ? bytes : -bytes));
        CG_STORE(q_big_blocks, q_big_blocks + one);
    }
}

/* The blocks that leave next have been out of the caches for the whole
 * quarantine: their record, header, redzones and first poison bytes are
 * cache misses when they leave.  Start those loads one put ahead (the
 * oldest block's memory; the record of the one after it, whose chunk
 * address the next put needs), so that the misses overlap the program's
 * work instead of stalling the release.  Caller holds the lock. */
static void prefetch_next(void)
{
    if (q_head == 0)
        return;
    const cg_shadow_t *r = cg_shadow_at(q_head);
    const char *c = (const char *)r->chunk;
    size_t size = record_bytes(r);
    __builtin_prefetch(c);
    __builtin_prefetch(c + 64);
    __builtin_prefetch(c + size - 8);          /* the trailing redzone's end */
    if (r->next != 0)
        __builtin_prefetch(cg_shadow_at(r->next));
}

size_t cg_quarantine_put(uint32_t id, size_t budget, const cg_call_t *call,
                         uint32_t out[CG_QUARANTINE_BATCH])
{
    size_t n = 0;
    cg_tok_t q_tok = cg_lock_if_call(&q_lock, call);
    cg_shadow_at(id)->next = 0;
    if (q_tail != 0)
        cg_shadow_at(q_tail)->next = id;
    else
        q_head = id;
    q_tail = id;
    q_puts++;
    count(cg_shadow_at(id), 1);
    while (q_bytes > budget && q_head != 0 && n < CG_QUARANTINE_BATCH) {
        uint32_t old = q_head;
        cg_shadow_t *r = cg_shadow_at(old);
        q_head = r->next;
        if (q_head == 0)
            q_tail = 0;
        count(r, -1);
        out[n++] = old;
    }
    prefetch_next();
    cg_unlock_if(&q_lock, q_tok);
    return n;
}

void cg_quarantine_each(void (*fn)(cg_shadow_t *r, void *arg), void *arg)
{
    bool mt = !CG_SINGLE_THREAD_P;
    cg_tok_t q_tok = cg_lock_if(&q_lock, mt);
    for (uint32_t id = q_head; id != 0; id = cg_shadow_at(id)->next)
        fn(cg_shadow_at(id), arg);
    cg_unlock_if(&q_lock, q_tok);
}

bool cg_quarantine_each_since_fork(void (*fn)(cg_shadow_t *r, void *arg), void *arg)
{
    if (!q_forked) {
        cg_quarantine_each(fn, arg);
        return false;
    }
    bool mt = !CG_SINGLE_THREAD_P;
    cg_tok_t q_tok = cg_lock_if(&q_lock, mt);
    /* The FIFO holds the last q_blocks puts: the fork's newest record is
     * still in it, and the child's own follow it, unless the child put as
     * many as the FIFO holds (then every record is the child's). */
    size_t n = q_puts - fork_puts;
    uint32_t id = n >= q_blocks || fork_tail == 0 ? q_head
                  : n == 0 ? 0 : cg_shadow_at(fork_tail)->next;
    for (size_t i = 0; id != 0 && i < n; id = cg_shadow_at(id)->next, i++)
        fn(cg_shadow_at(id), arg);
    cg_unlock_if(&q_lock, q_tok);
    return true;
}

void cg_quarantine_each_locked(void (*fn)(cg_shadow_t *r, void *arg), void *arg)
{
    size_t n = 0;
    for (uint32_t id = q_head; id != 0 && n < q_blocks; id = cg_shadow_at(id)->next, n++)
        fn(cg_shadow_at(id), arg);
}

void cg_quarantine_usage(size_t *bytes, size_t *blocks)
{
    *bytes = CG_LOAD(q_bytes);
    *blocks = CG_LOAD(q_blocks);
}

void cg_quarantine_held(size_t *heap_bytes, size_t *big_bytes, size_t *big_blocks)
{
    /* Relaxed loads of counters another thread may be changing: a
     * statistic, never a lock (mallinfo may run in any state). */
    size_t all = CG_LOAD(q_bytes), big = CG_LOAD(q_big_bytes);
    *heap_bytes = all >= big ? all - big : 0;
    *big_bytes = big;
    *big_blocks = CG_LOAD(q_big_blocks);
}

void cg_quarantine_lock_all(void) { cg_lock(&q_lock); }

void cg_quarantine_unlock_all(bool child)
{
    if (child) {               /* single-threaded, the lock still held */
        q_forked = true;
        fork_tail = q_tail;
        fork_puts = q_puts;
    }
    cg_lock_after_fork(&q_lock, child);
}
