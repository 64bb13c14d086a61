/*
 * repeat.c — leak checks in quick succession while other threads hold
 * blocks (tests/suites/59-leaks.sh, leaks-repeat-*).
 *
 *   repeat N T   T workers each allocate a block, keep the only pointer to
 *                it in a live local of their own stack and spin (no system
 *                call); main calls cg_leak_check() N times in a row and
 *                prints "checks N, leaked L" with L the sum of what the
 *                checks returned: 0, since every block is reachable from
 *                a running thread.  A worker still leaving one check's
 *                stop (its signal handler, every signal blocked) when the
 *                next begins must not be taken for one that blocks the
 *                signal and left unscanned.
 *
 * Run with LD_PRELOAD=libchunkguard.so and mode=debug.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static int ready, done;
static unsigned long spins;

/* Running user code when the check's stop signal comes, but yielding now
 * and then: eight threads that only spin starve the checking thread on a
 * loaded 2-core machine (a 60 s timeout of 200 checks), and the check's
 * correctness does not need them to hold the CPU. */
NOINLINE static void spin_until_done(void)
{
    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE))
        if ((__atomic_add_fetch(&spins, 1, __ATOMIC_RELAXED) & 1023) == 0)
            sched_yield();
}

static void *worker(void *arg)
{
    char *volatile p = malloc(1000 + (size_t)arg);
    __atomic_add_fetch(&ready, 1, __ATOMIC_SEQ_CST);
    spin_until_done();
    free(p);
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200, t = argc > 2 ? atoi(argv[2]) : 3;
    size_t (*check)(void) = (size_t (*)(void))dlsym(RTLD_DEFAULT, "cg_leak_check");
    pthread_t th[64];
    if (check == NULL || t < 1 || t > 64)
        return 2;
    for (long i = 0; i < t; i++)
        if (pthread_create(&th[i], NULL, worker, (void *)i) != 0)
            return 3;
    while (__atomic_load_n(&ready, __ATOMIC_SEQ_CST) < t)
        ;
    size_t leaked = 0;
    for (int i = 0; i < n; i++)
        leaked += check();
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < t; i++)
        pthread_join(th[i], NULL);
    printf("checks %d, leaked %zu\n", n, leaked);
    return 0;
}
