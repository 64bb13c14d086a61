/*
 * stk_threads.c — many threads capturing and storing stacks at once, with
 * the depot's lock-free lookups racing its inserts; built under TSan by
 * tests/tests.mk (ut-stacks-tsan) so that any data race is reported.
 * Every thread stores the same set of stacks (its own captures and
 * synthetic ones) and checks each id gives its frames back; at the end all
 * threads must agree on every id.  Exits 0 when all is consistent.
 * Usage: stk_threads [-t THREADS] [-n STACKS]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stack.h"
#include "stackdepot.h"

#define MAXT 16
static int nthreads = 4, nstacks = 20000;
static uint32_t *ids[MAXT];
static int failures;

static void make_stack(uintptr_t *pcs, size_t n, uint64_t k)
{
    uint64_t x = k * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x >> 31;
        x *= 0xBF58476D1CE4E5B9ull;
        pcs[i] = (uintptr_t)(x >> 16);
    }
}

__attribute__((noinline)) static size_t capture_here(uintptr_t *pcs, int depth)
{
    size_t n = depth ? capture_here(pcs, depth - 1) : cg_stack_capture(pcs, 16, 0);
    __asm__ volatile("" ::: "memory");
    return n;
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    uintptr_t pcs[CG_STACK_MAX];
    for (int i = 0; i < nstacks; i++) {
        int k = (t & 1) ? nstacks - 1 - i : (i * 13 + t * 7) % nstacks;
        size_t n = 1 + (size_t)k % 32;
        make_stack(pcs, n, (uint64_t)k);
        uint32_t id = cg_stack_put(pcs, n);
        const uintptr_t *got;
        if (id == 0 || cg_stack_get(id, &got) != n || memcmp(got, pcs, n * sizeof *pcs) != 0)
            __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
        ids[t][k] = id;
        if (i % 64 == 0) {   /* real captures; frame 0 only while another thread primes */
            size_t m = capture_here(pcs, i % 7);
            uint32_t cid = cg_stack_put(pcs, m);
            if (m < 1 || cid == 0 || cg_stack_put(pcs, m) != cid)
                __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int c;
    while ((c = getopt(argc, argv, "t:n:")) != -1) {
        if (c == 't')
            nthreads = atoi(optarg);
        else if (c == 'n')
            nstacks = atoi(optarg);
    }
    if (nthreads < 1 || nthreads > MAXT || nstacks < 1)
        return 2;
    pthread_t th[MAXT];
    for (int t = 0; t < nthreads; t++) {
        ids[t] = calloc((size_t)nstacks, sizeof *ids[t]);
        if (ids[t] == NULL)
            return 2;
    }
    /* No priming: the first captures race to prime the unwinder. */
    for (int t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    int disagree = 0;
    for (int k = 0; k < nstacks; k++)
        for (int t = 1; t < nthreads; t++)
            disagree += ids[t][k] != ids[0][k];
    cg_stackdepot_stats_t st;
    cg_stackdepot_stats(&st);
    printf("stk_threads: %d threads, %d stacks each: %zu stored, %zu bytes; %d failures, "
           "%d disagreements; mode %d\n",
           nthreads, nstacks, st.stacks, st.used_bytes, failures, disagree, (int)cg_stack_mode());
    if (failures || disagree || cg_stack_mode() != CG_STACK_LIBUNWIND) {
        printf("FAIL\n");
        return 1;
    }
    return 0;
}
