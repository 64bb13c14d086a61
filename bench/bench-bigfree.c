/*
 * bench-bigfree.c — churn of blocks of one size, to find the size from which
 * debug mode's page-protected blocks (guard_big: a guard page after the
 * block, its pages sealed when freed) cost less than redzoned, poisoned
 * heap blocks (docs/performance.md, "Where page protection pays").
 *
 * usage: bench-bigfree SIZE ITERS [THREADS]
 *   Each of THREADS threads (1 to 4, default 1) keeps 64 slots; one
 *   iteration frees the block in a random slot and allocates a new one of
 *   SIZE bytes, writing its first and last byte (a program touches what it
 *   allocates; the pages between are left alone, as a poison fill would
 *   not leave them).  ITERS is split between the threads.  ns per call is
 *   the wall time of all threads' calls together (as churn-2t's).
 *   Output and exit status: see bench.h; the row is named bigfree-SIZE.
 */
#include "bench.h"

#include <pthread.h>
#include <stdbool.h>

#define SLOTS 64

typedef struct worker {
    unsigned long iters;        /* timed iterations                       */
    unsigned id;                /* seeds the slot stream                  */
    size_t size;                /* every block's size                     */
    unsigned char *live[SLOTS]; /* NULL when empty                        */
    uint64_t ops, check;        /* calls timed; sum of first bytes read   */
} worker_t;

static pthread_barrier_t start_bar, stop_bar;

BENCH_WRAPPER void run(worker_t *w, unsigned long n, bool timed)
{
    bench_rng_t rng = { 0x9E3779B97F4A7C15ull + w->id * 0x1000193ull + timed };
    for (unsigned long i = 0; i < n; i++) {
        uint32_t j = bench_rng_below(&rng, SLOTS);
        unsigned char *old = w->live[j];
        if (old) {
            w->check += old[0];
            free(old);
            w->ops += timed;
        }
        unsigned char *p = malloc(w->size);
        if (!p) bench_die("malloc failed");
        w->ops += timed;
        p[0] = (unsigned char)i;
        p[w->size - 1] = (unsigned char)j;
        BENCH_ESCAPE(p);
        w->live[j] = p;
    }
}

static void *thread_main(void *arg)
{
    worker_t *w = arg;
    run(w, 4 * SLOTS, false);
    pthread_barrier_wait(&start_bar);
    run(w, w->iters, true);
    pthread_barrier_wait(&stop_bar);
    return NULL;
}

int main(int argc, char **argv)
{
    unsigned long size, iters, threads = 1;
    char *end;
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: %s SIZE ITERS [THREADS]\n", argv[0]);
        return 2;
    }
    size = strtoul(argv[1], &end, 10);
    if (*end || size == 0 || !(iters = bench_parse_iters(argv[2])) ||
        (argc == 4 && ((threads = strtoul(argv[3], &end, 10)) < 1 || threads > 4 || *end))) {
        fprintf(stderr, "usage: %s SIZE ITERS [THREADS]\n", argv[0]);
        return 2;
    }
    static worker_t w[4];
    pthread_t tid[4];
    if (pthread_barrier_init(&start_bar, NULL, threads + 1) ||
        pthread_barrier_init(&stop_bar, NULL, threads + 1))
        bench_die("pthread_barrier_init failed");
    for (unsigned k = 0; k < threads; k++) {
        w[k] = (worker_t){ .iters = (iters + threads - 1) / threads, .id = k, .size = size };
        if (pthread_create(&tid[k], NULL, thread_main, &w[k])) bench_die("pthread_create failed");
    }
    pthread_barrier_wait(&start_bar);
    bench_time_t t0 = bench_now();
    pthread_barrier_wait(&stop_bar);
    bench_time_t t1 = bench_now();
    uint64_t ops = 0, check = 0;
    for (unsigned k = 0; k < threads; k++) {
        pthread_join(tid[k], NULL);
        ops += w[k].ops;
        check += w[k].check;
        for (unsigned j = 0; j < SLOTS; j++) free(w[k].live[j]);
    }
    char name[40];
    snprintf(name, sizeof name, "bigfree-%lu", size);
    bench_report(name, ops, 1, t0, t1, check);
    return 0;
}
