/* Regression test from the debug-mode break test (race_df, 2026-11-30).
 * Four threads free the same block at once, with no quarantine: exactly
 * one free may win; the others are double frees and must be reported.
 * The bug: the winner set the block's record back to "live" while it
 * checked the block, so a second thread could claim it too, and one of
 * them poisoned memory the other had already unmapped (a bare SIGSEGV
 * inside chunkguard).  usage: race_free SIZE */
#include <pthread.h>
#include <stdlib.h>
static pthread_barrier_t bar;
static void *volatile shared;
static void *go(void *a)
{
    (void)a;
    pthread_barrier_wait(&bar);
    free(shared);              /* bug: four frees of one block */
    return NULL;
}
int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], 0, 0) : 300000;
    for (int round = 0; round < 200; round++) {
        void *junk[16];        /* neighbours, as in the program that found it */
        for (int i = 0; i < 16; i++) junk[i] = malloc(n);
        shared = malloc(n);
        for (int i = 0; i < 16; i += 2) free(junk[i]);
        pthread_barrier_init(&bar, NULL, 4);
        pthread_t t[4];
        for (long i = 0; i < 4; i++) pthread_create(&t[i], NULL, go, NULL);
        for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
        pthread_barrier_destroy(&bar);
        for (int i = 1; i < 16; i += 2) free(junk[i]);
    }
    return 0;
}
