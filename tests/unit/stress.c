/*
 * stress.c — threads allocating, handing blocks to each other and freeing
 * blocks another thread allocated (issue 2, point 8: 4-thread stress with
 * cross-thread frees).
 *
 * usage: stress [-t THREADS] [-n OPS_PER_THREAD] [-s SEED]
 * Each thread allocates blocks (malloc, calloc, memalign; 0..20 KB, some
 * over the mmap threshold), fills them with a pattern of (thread, number),
 * and either keeps them or pushes them onto a shared queue; threads pop
 * blocks from the queue, check the pattern, sometimes realloc them (a
 * block of another arena) and free them.  Exit status 0 when every block
 * arrived intact, 1 on the first corrupted block, 2 on bad usage.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

struct item {
    unsigned char *p;  /* the block                           */
    size_t size;       /* bytes requested                     */
    uint64_t tag;      /* thread << 40 | sequence: the pattern */
};

/* The hand-over queue: a bounded ring under a mutex (which also gives the
 * sanitizers the happens-before edge between filling and checking). */
enum { QCAP = 4096 };
static struct item queue[QCAP];
static size_t qhead, qlen;
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;

static long ops_per_thread = 200000;
static uint64_t seed = 1;

static int push(struct item it)
{
    int ok = 0;
    pthread_mutex_lock(&qlock);
    if (qlen < QCAP) {
        queue[(qhead + qlen++) % QCAP] = it;
        ok = 1;
    }
    pthread_mutex_unlock(&qlock);
    return ok;
}

static int pop(struct item *it)
{
    int ok = 0;
    pthread_mutex_lock(&qlock);
    if (qlen) {
        *it = queue[qhead];
        qhead = (qhead + 1) % QCAP;
        qlen--;
        ok = 1;
    }
    pthread_mutex_unlock(&qlock);
    return ok;
}

/* Checks @it's pattern (byte-wise ut_check: sizes here are small), then
 * frees it, sometimes after a realloc by this thread. */
static void consume(struct item *it, uint64_t *rng)
{
    size_t bad = ut_check(it->p, it->size, it->tag);
    if (bad != (size_t)-1) {
        fprintf(stderr, "stress: FAIL: block %p (%zu bytes, thread %u seq %llu) corrupted at %zu\n",
                (void *)it->p, it->size, (unsigned)(it->tag >> 40),
                (unsigned long long)(it->tag & ((1ull << 40) - 1)), bad);
        exit(1);
    }
    *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
    if ((*rng >> 33) % 4 == 0) {
        size_t n = (size_t)(*rng >> 40) % 3000 + 1;
        unsigned char *q = T(realloc)(it->p, n);
        if (!q) {
            fprintf(stderr, "stress: FAIL: realloc(%zu) failed\n", n);
            exit(1);
        }
        size_t keep = n < it->size ? n : it->size;
        if (ut_check(q, keep, it->tag) != (size_t)-1) {
            fprintf(stderr, "stress: FAIL: cross-thread realloc lost the prefix\n");
            exit(1);
        }
        it->p = q;
    }
    T(free)(it->p);
}

static void *worker(void *arg)
{
    unsigned id = (unsigned)(uintptr_t)arg;
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull ^ (id + 1) * 0xBF58476D1CE4E5B9ull;
    enum { KEEP = 64 };
    struct item mine[KEEP] = {{0}};
    for (long k = 0; k < ops_per_thread; k++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t r = rng >> 24;
        struct item it;
        it.size = (r % 100 < 97) ? (size_t)(r >> 8) % 1100 : (size_t)(r >> 8) % 200000;
        it.tag = (uint64_t)id << 40 | (uint64_t)k;
        switch (r % 5) {
        case 0: it.p = T(calloc)(1, it.size); break;
        case 1: it.p = T(memalign)(64, it.size); break;
        default: it.p = T(malloc)(it.size); break;
        }
        if (!it.p) {
            fprintf(stderr, "stress: FAIL: allocation of %zu failed\n", it.size);
            exit(1);
        }
        ut_fill(it.p, it.size, it.tag);
        if (r % 3) {
            /* Hand it to whichever thread pops it next. */
            if (!push(it))
                consume(&it, &rng);
        } else {
            /* Keep it a while, freeing the slot's previous block here. */
            struct item *slot = &mine[(r >> 20) % KEEP];
            if (slot->p)
                consume(slot, &rng);
            *slot = it;
        }
        struct item got;
        if ((r >> 4) % 3 && pop(&got))
            consume(&got, &rng);
    }
    for (int i = 0; i < KEEP; i++)
        if (mine[i].p)
            consume(&mine[i], &rng);
    return NULL;
}

int main(int argc, char **argv)
{
    int nthreads = 4, c;
    while ((c = getopt(argc, argv, "t:n:s:")) != -1) {
        switch (c) {
        case 't': nthreads = atoi(optarg); break;
        case 'n': ops_per_thread = atol(optarg); break;
        case 's': seed = strtoull(optarg, NULL, 0); break;
        default:
            fprintf(stderr, "usage: %s [-t THREADS] [-n OPS_PER_THREAD] [-s SEED]\n", argv[0]);
            return 2;
        }
    }
    if (nthreads < 1 || nthreads > 64)
        return 2;
    printf("stress: backend=%s threads=%d ops=%ld seed=%llu\n", UT_BACKEND, nthreads,
           ops_per_thread, (unsigned long long)seed);
    fflush(stdout);
    pthread_t t[64];
    for (int i = 0; i < nthreads; i++)
        if (pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i)) {
            fprintf(stderr, "stress: FAIL: pthread_create\n");
            return 1;
        }
    for (int i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);
    /* What is left in the queue was allocated by threads now gone. */
    struct item it;
    uint64_t rng = seed;
    size_t left = 0;
    while (pop(&it))
        consume(&it, &rng), left++;
    if (!ut_served_by_chunkguard((unsigned long long)(nthreads * ops_per_thread / 4)))
        return 1;
    printf("stress: ok (%zu blocks outlived their threads)\n", left);
    return 0;
}
