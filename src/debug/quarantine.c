/*
 * quarantine.c — the FIFO of freed debug-mode blocks and the threads'
 * batches in front of it (see quarantine.h).
 *
 * Lock order: the registry's lock (dthread.c), then the threads' block
 * locks (dthread.h), then the FIFO's lock (q_lock), for the walkers and
 * fork, which take them all.  A thread freeing a block takes only its own
 * block's lock (uncontended: only walkers and fork ever take another
 * thread's) and holds it for a few stores: a full batch is taken out under
 * it, and spliced into the FIFO under q_lock after it is dropped (so the
 * blocks of a batch on its way are in neither for that moment, as blocks
 * on their way out of the FIFO are; the walks skip or miss them alike).
 * No block lock is held while another lock is taken but by the walkers,
 * so the order is a chain.  The block and registry locks are taken with
 * cg_lock_raw: a stack for their site and the lock-order graph
 * (lockdep.c) would cost every free more than the batch saves, and the
 * graph has nothing to learn from locks only this file and shadow.c nest.
 */
#include "quarantine.h"
#include "dthread.h"
#include "lock.h"

static cg_lock_t q_lock = CG_LOCK_INIT(CG_LK_QUARANTINE);
/* The FIFO's words and the fork's below are CG_FORK_DATA: every fork
 * child writes them (cg_quarantine_unlock_all's splice), and in .bss they
 * were a page of their own to copy. */
static uint32_t q_head CG_FORK_DATA, q_tail CG_FORK_DATA; /* oldest and newest record ids (0: empty) */
static size_t q_bytes CG_FORK_DATA, q_blocks CG_FORK_DATA;
static size_t q_big_bytes CG_FORK_DATA, q_big_blocks CG_FORK_DATA; /* of them, mmap'd big blocks */
size_t cg_quarantine_trim_reads;
static size_t q_puts CG_FORK_DATA;                      /* blocks ever put into the FIFO */
/* In a forked child: the newest record and the count of puts at the fork
 * (cg_quarantine_each_since_fork). */
static bool q_forked CG_FORK_DATA;
static uint32_t fork_tail CG_FORK_DATA;
static size_t fork_puts CG_FORK_DATA;

static size_t record_bytes(const cg_shadow_t *r)
{
    return r->head & ~(size_t)CG_FLAG_BITS;
}

/* Take a leaf lock (see the file comment) when mt. */
CG_INLINE cg_tok_t leaf_lock(cg_lock_t *l, bool mt)
{
    if (mt)
        cg_lock_raw(l, CG_RET_ADDR, NULL);
    return (cg_tok_t){ mt };
}

/* A chain of blocks taken out of a batch (or one block), on its way to
 * the FIFO, and once in it one of its segments. */
typedef struct chain {
    uint32_t head, tail;
    size_t bytes, blocks, big_bytes, big_blocks;
    bool merged;        /* a segment that other chains joined (below) */
} chain_t;

/* The FIFO's segments, oldest first, in a ring: the chains it took in (a
 * thread's batch, or one block), each with its counts, so that the trim
 * takes whole segments out without reading a record: the blocks leaving
 * have been out of the caches for the whole quarantine, and a walk of
 * their chain was one cache miss after another (every record's next).  A
 * chain that comes in while the ring is full joins the newest segment,
 * which is then "merged" and trimmed record by record, as a chain would
 * be.  A segment leaves whole (as ASan's quarantine recycles whole
 * batches), so the FIFO holds between its budget less one segment and the
 * budget.  Under q_lock. */
#define SEGS 2048
static chain_t segs[SEGS];
static uint32_t seg_first CG_FORK_DATA, seg_n CG_FORK_DATA;   /* a fork child appends (splice) */

static chain_t *seg_at(uint32_t k)
{
    return &segs[(seg_first + k) % SEGS];
}

/* The block that leaves next: its record is a cache miss.  Start that
 * load one put ahead, so that the miss overlaps the program's work.
 * Caller holds the lock. */
static void prefetch_next(void)
{
    if (q_head != 0)
        __builtin_prefetch(cg_shadow_at(q_head));
}

/* Append the chain head..tail (linked through next, tail's next 0) of
 * blocks records and bytes bytes (big_* of them big) to the FIFO, as a
 * segment of its own.  Caller holds q_lock. */
CG_FORK_PATH static void fifo_append(uint32_t head, uint32_t tail, size_t blocks, size_t bytes,
                        size_t big_blocks, size_t big_bytes)
{
    if (q_tail != 0)
        cg_shadow_at(q_tail)->next = head;
    else
        q_head = head;
    q_tail = tail;
    q_puts += blocks;
    CG_STORE(q_bytes, q_bytes + bytes);
    CG_STORE(q_blocks, q_blocks + blocks);
    CG_STORE(q_big_bytes, q_big_bytes + big_bytes);
    CG_STORE(q_big_blocks, q_big_blocks + big_blocks);
    uint32_t k = seg_n < SEGS ? seg_n : seg_n - 1;   /* full: the newest takes it */
    chain_t *s = seg_at(k);
    if (k == seg_n) {
        *s = (chain_t){ head, tail, 0, 0, 0, 0, false };
        seg_n++;
    } else {
        s->tail = tail;
        s->merged = true;
    }
    s->bytes += bytes;
    s->blocks += blocks;
    s->big_bytes += big_bytes;
    s->big_blocks += big_blocks;
}

/* Count the blocks of chain s out of the FIFO.  Caller holds q_lock. */
static void count_out(const chain_t *s)
{
    CG_STORE(q_bytes, q_bytes - s->bytes);
    CG_STORE(q_blocks, q_blocks - s->blocks);
    CG_STORE(q_big_bytes, q_big_bytes - s->big_bytes);
    CG_STORE(q_big_blocks, q_big_blocks - s->big_blocks);
}

/* Take the oldest records of the merged front segment s out, one by one,
 * while the FIFO holds more than budget bytes (a walk of its chain);
 * returns the last one taken (0: none).  Caller holds q_lock. */
static uint32_t trim_merged(chain_t *s, size_t budget)
{
    uint32_t last = 0;
    while (q_bytes > budget && s->blocks > 0) {
        const cg_shadow_t *r = cg_shadow_at(s->head);
        if (CG_SWITCH(CG_TEST_HOOKS))
            CG_STORE(cg_quarantine_trim_reads, cg_quarantine_trim_reads + 1);
        size_t bytes = record_bytes(r);
        bool big = (r->head & CG_IS_MMAPPED) != 0;
        chain_t one = { 0, 0, bytes, 1, big ? bytes : 0, big, false };
        count_out(&one);
        s->bytes -= one.bytes;
        s->blocks--;
        s->big_bytes -= one.big_bytes;
        s->big_blocks -= one.big_blocks;
        last = s->head;
        s->head = r->next;
    }
    return last;
}

/* Take the oldest records out of the FIFO while it holds more than budget
 * bytes, whole segments at a time; returns them as a chain (linked
 * through next, 0 at its end; 0: none).  Caller holds q_lock. */
static uint32_t fifo_trim(size_t budget)
{
    uint32_t first = q_head, last = 0;
    while (q_bytes > budget && seg_n > 0) {
        chain_t *s = seg_at(0);
        if (segs[seg_first].merged) {
            uint32_t l = trim_merged(s, budget);
            last = l != 0 ? l : last;
            if (s->blocks > 0)
                break;         /* within the budget, inside the segment */
        } else {
            count_out(s);
            last = s->tail;
        }
        seg_first = (seg_first + 1) % SEGS;
        seg_n--;
    }
    if (last == 0)
        return 0;
    /* the chain taken ends at last; the FIFO goes on after it */
    q_head = seg_n > 0 ? seg_at(0)->head : 0;
    if (q_head == 0)
        q_tail = 0;
    cg_shadow_at(last)->next = 0;
    prefetch_next();
    return first;
}

/* Take batch b's blocks out (b is left empty).  Caller holds b's lock, or
 * is alone. */
CG_FORK_PATH static chain_t detach(cg_qbatch_t *b)
{
    chain_t ch = { b->head, b->tail, b->bytes, b->blocks, b->big_bytes, b->big_blocks, false };
    /* the batch's counts go first: a statistic read meanwhile (no lock)
     * may miss these blocks for a moment, never count them twice */
    CG_STORE(b->bytes, 0);
    CG_STORE(b->blocks, 0);
    CG_STORE(b->big_bytes, 0);
    CG_STORE(b->big_blocks, 0);
    b->head = b->tail = 0;
    for (int k = 0; k < CG_QUARANTINE_FAR; k++)
        b->recent[k] = 0;
    return ch;
}

/* The FIFO's side of a put: append the chain, trim.  Returns the chain to
 * release.  Called with no lock held (the quarantine lock's site may be a
 * stack capture, which must not wait for the loader's lock while holding
 * a lock a fork or a thread in dlopen waits for: lockdep.c). */
static uint32_t put_fifo(const chain_t *ch, size_t budget, const cg_call_t *call)
{
    cg_tok_t q_tok = cg_lock_if_call(&q_lock, call);
    if (ch->head != 0)
        fifo_append(ch->head, ch->tail, ch->blocks, ch->bytes, ch->big_blocks, ch->big_bytes);
    uint32_t out = fifo_trim(budget);
    cg_unlock_if(&q_lock, q_tok);
    return out;
}

/* Move batch b's blocks to the end of the FIFO (b is left empty).  Caller
 * holds q_lock and b's lock (or is alone). */
static void splice(cg_qbatch_t *b)
{
    chain_t ch = detach(b);
    if (ch.head != 0)
        fifo_append(ch.head, ch.tail, ch.blocks, ch.bytes, ch.big_blocks, ch.big_bytes);
}

/* One block straight to the FIFO. */
static uint32_t put_one(uint32_t id, size_t budget, const cg_call_t *call)
{
    const cg_shadow_t *r = cg_shadow_at(id);
    bool big = (r->head & CG_IS_MMAPPED) != 0;
    size_t bytes = record_bytes(r);
    chain_t ch = { id, id, bytes, 1, big ? bytes : 0, big, false };
    return put_fifo(&ch, budget, call);
}

size_t cg_quarantine_batch_limit(size_t budget)
{
    size_t limit = budget / 16;
    return limit < CG_QUARANTINE_BATCH_BYTES ? limit : CG_QUARANTINE_BATCH_BYTES;
}

uint32_t cg_quarantine_put(uint32_t id, size_t budget, const cg_call_t *call)
{
    cg_shadow_t *r = cg_shadow_at(id);
    r->next = 0;
    r->far = 0;
    size_t bytes = record_bytes(r), limit = cg_quarantine_batch_limit(budget);
    cg_dthread_t *t = bytes < limit ? cg_dthread_self(call->mt) : NULL;
    if (t == NULL)
        return put_one(id, budget, call);
    cg_qbatch_t *b = &t->q;
    cg_tok_t b_tok = leaf_lock(&t->lock, call->mt);
    if (b->tail != 0)
        cg_shadow_at(b->tail)->next = id;
    else
        b->head = id;
    b->tail = id;
    /* the far link of the block freed FAR puts ago (warm: freed just now),
     * so that the release loads records FAR ahead, not one at a time */
    uint32_t *slot = &b->recent[b->blocks % CG_QUARANTINE_FAR];
    if (*slot != 0)
        cg_shadow_at(*slot)->far = id;
    *slot = id;
    CG_STORE(b->bytes, b->bytes + bytes);
    CG_STORE(b->blocks, b->blocks + 1);
    if (r->head & CG_IS_MMAPPED) {
        CG_STORE(b->big_bytes, b->big_bytes + bytes);
        CG_STORE(b->big_blocks, b->big_blocks + 1);
    }
    chain_t ch = { 0 };
    if (b->bytes >= limit || b->blocks >= CG_QUARANTINE_BATCH_BLOCKS)
        ch = detach(b);
    cg_unlock_if(&t->lock, b_tok);
    return ch.head != 0 ? put_fifo(&ch, budget, call) : 0;
}

uint32_t cg_quarantine_thread_exit(size_t budget, const cg_call_t *call)
{
    cg_dthread_t *t = cg_dthread_peek();
    if (t == NULL || t->q.head == 0)
        return 0;
    cg_tok_t b_tok = leaf_lock(&t->lock, call->mt);
    chain_t ch = detach(&t->q);
    cg_unlock_if(&t->lock, b_tok);
    return put_fifo(&ch, budget, call);
}

/* Call fn on every record of the chain from id, at most n of them. */
CG_FORK_PATH static void each_chain(uint32_t id, size_t n, void (*fn)(cg_shadow_t *r, void *arg), void *arg)
{
    for (size_t i = 0; id != 0 && i < n; id = cg_shadow_at(id)->next, i++)
        fn(cg_shadow_at(id), arg);
}

/* Call fn on the records of every batch, each under its lock (taken when
 * lock).  The registry only grows at its front: a batch made meanwhile is
 * not walked. */
CG_FORK_PATH static void each_batch(void (*fn)(cg_shadow_t *r, void *arg), void *arg, bool lock)
{
    for (cg_dthread_t *t = cg_dthread_first(); t != NULL; t = t->all) {
        cg_tok_t b_tok = leaf_lock(&t->lock, lock);
        each_chain(t->q.head, t->q.blocks, fn, arg);
        cg_unlock_if(&t->lock, b_tok);
    }
}

void cg_quarantine_each(void (*fn)(cg_shadow_t *r, void *arg), void *arg)
{
    bool mt = !CG_SINGLE_THREAD_P;
    each_batch(fn, arg, mt);
    cg_tok_t q_tok = cg_lock_if(&q_lock, mt);
    for (uint32_t id = q_head; id != 0; id = cg_shadow_at(id)->next)
        fn(cg_shadow_at(id), arg);
    cg_unlock_if(&q_lock, q_tok);
}

CG_FORK_PATH bool cg_quarantine_each_since_fork(void (*fn)(cg_shadow_t *r, void *arg), void *arg)
{
    if (!q_forked) {
        cg_quarantine_each(fn, arg);
        return false;
    }
    bool mt = !CG_SINGLE_THREAD_P;
    /* The child's batches hold only its own frees: the fork moved every
     * batch into the FIFO (cg_quarantine_unlock_all). */
    each_batch(fn, arg, mt);
    cg_tok_t q_tok = cg_lock_if(&q_lock, mt);
    /* The FIFO holds the last q_blocks puts: the fork's newest record is
     * still in it, and the child's own follow it, unless the child put as
     * many as the FIFO holds (then every record is the child's). */
    size_t n = q_puts - fork_puts;
    uint32_t id = n >= q_blocks || fork_tail == 0 ? q_head
                  : n == 0 ? 0 : cg_shadow_at(fork_tail)->next;
    each_chain(id, n, fn, arg);
    cg_unlock_if(&q_lock, q_tok);
    return true;
}

void cg_quarantine_each_locked(void (*fn)(cg_shadow_t *r, void *arg), void *arg)
{
    each_batch(fn, arg, false);
    each_chain(q_head, q_blocks, fn, arg);
}

/* The batches' bytes, blocks, big bytes and big blocks, summed from the
 * registry (relaxed loads: a statistic; a shared counter written on every
 * free is what the batches exist to avoid). */
static void batches_held(size_t *bytes, size_t *blocks, size_t *big_bytes, size_t *big_blocks)
{
    *bytes = *blocks = *big_bytes = *big_blocks = 0;
    for (cg_dthread_t *t = cg_dthread_first(); t != NULL; t = t->all) {
        const cg_qbatch_t *b = &t->q;
        *bytes += CG_LOAD(b->bytes);
        *blocks += CG_LOAD(b->blocks);
        *big_bytes += CG_LOAD(b->big_bytes);
        *big_blocks += CG_LOAD(b->big_blocks);
    }
}

void cg_quarantine_usage(size_t *bytes, size_t *blocks)
{
    size_t bb, bn, gb, gn;
    batches_held(&bb, &bn, &gb, &gn);
    *bytes = CG_LOAD(q_bytes) + bb;
    *blocks = CG_LOAD(q_blocks) + bn;
}

void cg_quarantine_held(size_t *heap_bytes, size_t *big_bytes, size_t *big_blocks)
{
    /* Relaxed loads of counters another thread may be changing: a
     * statistic, never a lock (mallinfo may run in any state). */
    size_t bb, bn, gb, gn;
    batches_held(&bb, &bn, &gb, &gn);
    size_t all = CG_LOAD(q_bytes) + bb, big = CG_LOAD(q_big_bytes) + gb;
    *heap_bytes = all >= big ? all - big : 0;
    *big_bytes = big;
    *big_blocks = CG_LOAD(q_big_blocks) + gn;
}

CG_FORK_PATH void cg_quarantine_lock_all(const cg_call_t *call)
{
    cg_dthread_lock_all(call);
    uintptr_t site = call != NULL && call->caller ? call->caller : CG_RET_ADDR;
    for (cg_dthread_t *t = cg_dthread_first(); t != NULL; t = t->all)
        cg_lock_raw(&t->lock, site, call);
    cg_lock_for(&q_lock, call);
}

CG_FORK_PATH void cg_quarantine_unlock_all(bool child)
{
    if (child) {               /* single-threaded, every lock still held */
        /* The other threads are gone with their batches' owners: every
         * batch goes to the FIFO (this thread's too, so that what it
         * frees from now on is what "since the fork" walks). */
        for (cg_dthread_t *t = cg_dthread_first(); t != NULL; t = t->all) {
            splice(&t->q);
            cg_lock_reinit(&t->lock);
        }
        q_forked = true;
        fork_tail = q_tail;
        fork_puts = q_puts;
    } else {
        for (cg_dthread_t *t = cg_dthread_first(); t != NULL; t = t->all)
            cg_unlock(&t->lock);
    }
    cg_lock_after_fork(&q_lock, child);
    cg_dthread_unlock_all(child);
}
