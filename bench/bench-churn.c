/*
 * bench-churn.c — random churn over a working set (the shape of glibc's
 * bench-malloc-thread), on one thread or on two threads that hand blocks to
 * each other so that half the frees are cross-thread.
 *
 * usage: bench-churn {1t|2t-xfree|2t|4t} ITERS
 *   Each thread keeps WSET slots.  One iteration frees the block in a random
 *   slot and allocates a new one of a random size (bench_size_mixed: mostly
 *   small, up to 32 KiB), writing its first and last byte.
 *   1t:       one thread, ITERS iterations.
 *   2t-xfree: two threads, ITERS iterations each.  Every other new block is
 *             pushed onto a lock-free single-producer/single-consumer ring to
 *             the other thread, and the slot takes a block popped from the
 *             ring coming the other way; so a thread frees its own blocks and
 *             the other thread's alike.  Time is wall time from a barrier
 *             after both threads' warm-up to a barrier after both timed loops,
 *             times two (one thread's time per call, comparable to 1t).
 *   2t, 4t:   the work of 1t split: 2 or 4 threads with working sets of
 *             their own and no handoff, ITERS / N iterations each.  Time is
 *             wall time from barrier to barrier, not multiplied: ns per
 *             call is the wall time per call of all threads together, so a
 *             row at 1t's figure means the threads did not run side by side
 *             (on 2 cores the ideal is half of 1t's).
 * Request streams are precomputed per thread from fixed seeds, so every
 * allocator sees the same requests.  Output and exit status: see bench.h.
 */
#include "bench.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#define WSET 4096           /* live blocks per thread                        */
#define TABLE 65536         /* precomputed (slot, size) pairs, power of two  */
#define RING 1024           /* handoff ring capacity, power of two           */

/* A single-producer/single-consumer ring.  head and tail sit on their own
 * cache lines so the two threads do not false-share them. */
typedef struct ring {
    _Alignas(64) _Atomic uint64_t head;  /* next slot to pop (consumer)    */
    _Alignas(64) _Atomic uint64_t tail;  /* next slot to push (producer)   */
    _Alignas(64) void *slot[RING];       /* blocks in flight               */
} ring_t;

typedef struct worker {
    unsigned id;                /* 0 or 1; picks the seed                  */
    unsigned long warm_iters;   /* untimed iterations before the barrier  */
    unsigned long iters;        /* timed iterations                       */
    ring_t *out, *in;           /* NULL, NULL on one thread               */
    uint32_t *slot_of;          /* TABLE random slot indexes              */
    uint32_t *size_of;          /* TABLE random sizes                     */
    unsigned char **live;       /* WSET slots, NULL when empty            */
    uint64_t ops;               /* allocator calls in the timed loop      */
    uint64_t check;             /* sum of first bytes read before free    */
} worker_t;

static pthread_barrier_t start_bar, stop_bar;

/* ring_push - producer side; returns 0 when the ring is full. */
static inline int ring_push(ring_t *r, void *p)
{
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    if (t - atomic_load_explicit(&r->head, memory_order_acquire) == RING) return 0;
    r->slot[t & (RING - 1)] = p;
    /* release: the consumer must see the block's contents and the slot */
    atomic_store_explicit(&r->tail, t + 1, memory_order_release);
    return 1;
}

/* ring_pop - consumer side; returns NULL when the ring is empty. */
static inline void *ring_pop(ring_t *r)
{
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (h == atomic_load_explicit(&r->tail, memory_order_acquire)) return NULL;
    void *p = r->slot[h & (RING - 1)];
    atomic_store_explicit(&r->head, h + 1, memory_order_release);
    return p;
}

/* One iteration: replace the block in a random slot; @i indexes the
 * precomputed request stream. */
BENCH_BODY void churn_step(worker_t *w, unsigned long i)
{
    uint32_t j = w->slot_of[i & (TABLE - 1)];
    uint32_t sz = w->size_of[i & (TABLE - 1)];
    unsigned char *old = w->live[j];
    if (old) {
        w->check += old[0];
        free(old);
        w->ops++;
    }
    unsigned char *p = malloc(sz);
    if (!p) bench_die("malloc failed");
    w->ops++;
    p[0] = (unsigned char)i;
    p[sz - 1] = (unsigned char)j;
    BENCH_ESCAPE(p);
    /* Cross-thread: hand every other block to the peer and keep one of
     * the peer's instead (NULL if none has arrived yet). */
    if (w->out && (i & 1) && ring_push(w->out, p)) p = ring_pop(w->in);
    w->live[j] = p;
}

BENCH_WRAPPER void warmup_churn(worker_t *w)
{
    for (unsigned long i = 0; i < w->warm_iters; i++) churn_step(w, i);
}

BENCH_WRAPPER void timed_churn(worker_t *w)
{
    for (unsigned long i = 0; i < w->iters; i++) churn_step(w, w->warm_iters + i);
}

/* worker_init - fill the thread's request stream from its own seed. */
static void worker_init(worker_t *w, unsigned id, unsigned long iters)
{
    bench_rng_t rng = { 0x243F6A8885A308D3ull + 0x1000193ull * id };
    w->id = id;
    w->iters = iters;
    /* enough warm-up to fill every slot a few times over */
    w->warm_iters = 4ul * WSET;
    w->slot_of = bench_xmalloc(TABLE * sizeof *w->slot_of);
    w->size_of = bench_xmalloc(TABLE * sizeof *w->size_of);
    w->live = calloc(WSET, sizeof *w->live);
    if (!w->live) bench_die("out of memory in setup");
    for (unsigned k = 0; k < TABLE; k++) {
        w->slot_of[k] = bench_rng_below(&rng, WSET);
        w->size_of[k] = bench_size_mixed(&rng);
    }
}

/* worker_drain - free what the thread still holds (untimed). */
static void worker_drain(worker_t *w)
{
    for (unsigned k = 0; k < WSET; k++) free(w->live[k]);
    free(w->live);
    free(w->slot_of);
    free(w->size_of);
}

static void *thread_main(void *arg)
{
    worker_t *w = arg;
    warmup_churn(w);
    w->ops = 0;
    pthread_barrier_wait(&start_bar);
    timed_churn(w);
    pthread_barrier_wait(&stop_bar);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *variants = "1t|2t-xfree|2t|4t";
    unsigned long iters;
    unsigned threads;
    bool xfree = false;
    if (argc != 3 || !(iters = bench_parse_iters(argv[2]))) bench_usage(argv[0], variants);
    if (!strcmp(argv[1], "1t")) threads = 1;
    else if (!strcmp(argv[1], "2t-xfree")) threads = 2, xfree = true;
    else if (!strcmp(argv[1], "2t")) threads = 2;
    else if (!strcmp(argv[1], "4t")) threads = 4;
    else bench_usage(argv[0], variants);

    static worker_t w[4];
    bench_time_t t0, t1;
    if (threads == 1) {
        worker_init(&w[0], 0, iters);
        warmup_churn(&w[0]);
        w[0].ops = 0;
        t0 = bench_now();
        timed_churn(&w[0]);
        t1 = bench_now();
        worker_drain(&w[0]);
        bench_report("churn-1t", w[0].ops, 1, t0, t1, w[0].check);
        return 0;
    }

    static ring_t ab, ba;
    pthread_t tid[4];
    for (unsigned k = 0; k < threads; k++)
        worker_init(&w[k], k, xfree ? iters : (iters + threads - 1) / threads);
    if (xfree) {
        w[0].out = &ab; w[0].in = &ba;
        w[1].out = &ba; w[1].in = &ab;
    }
    if (pthread_barrier_init(&start_bar, NULL, threads + 1) ||
        pthread_barrier_init(&stop_bar, NULL, threads + 1))
        bench_die("pthread_barrier_init failed");
    for (unsigned k = 0; k < threads; k++)
        if (pthread_create(&tid[k], NULL, thread_main, &w[k])) bench_die("pthread_create failed");
    pthread_barrier_wait(&start_bar);
    t0 = bench_now();
    pthread_barrier_wait(&stop_bar);
    t1 = bench_now();
    for (unsigned k = 0; k < threads; k++) pthread_join(tid[k], NULL);
    /* Blocks still in flight belong to nobody's slots: free them too. */
    for (void *p; (p = ring_pop(&ab)) != NULL;) free(p);
    for (void *p; (p = ring_pop(&ba)) != NULL;) free(p);
    uint64_t ops = 0, check = 0;
    for (unsigned k = 0; k < threads; k++) {
        ops += w[k].ops;
        check += w[k].check;
        worker_drain(&w[k]);
    }
    char name[32];
    snprintf(name, sizeof name, "churn-%s", argv[1]);
    /* xfree: one thread's time per call (each ran ITERS); split: all
     * threads' calls together (they shared ITERS) */
    bench_report(name, ops, xfree ? 2 : 1, t0, t1, check);
    return 0;
}
