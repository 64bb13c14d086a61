/*
 * contention.c — 8 threads malloc and free small blocks in one arena
 * (run with MALLOC_ARENA_MAX=1): pure contention, no thread holds the lock
 * for long.  With a small deadlock_timeout_ms, no lock-wait-timeout may be
 * reported: the lock changes hands all the time (break test, 2026-11-30:
 * the watchdog timed the whole wait, not one holder's hold).
 * usage: contention ITERATIONS_PER_THREAD
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long iters;

static void *work(void *arg)
{
    unsigned r = (unsigned)(long)arg;
    void *v[512] = { 0 };
    for (long k = 0; k < iters; k++) {
        r = r * 1103515245u + 12345u;
        unsigned i = (r >> 8) & 511;
        free(v[i]);
        v[i] = malloc((r >> 20) % 3000);
    }
    for (int i = 0; i < 512; i++)
        free(v[i]);
    return NULL;
}

int main(int argc, char **argv)
{
    iters = argc > 1 ? atol(argv[1]) : 300000;
    pthread_t t[8];
    for (long i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, work, (void *)(i + 1));
    for (int i = 0; i < 8; i++)
        pthread_join(t[i], NULL);
    puts("done");
    return 0;
}
