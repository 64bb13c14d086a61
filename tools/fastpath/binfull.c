/*
 * binfull.c — the instructions of a free whose tcache bin is full, for
 * tests/suites/50-fastpath.sh (fastpath-binfull-free-ir).
 *
 * usage: LD_PRELOAD=libchunkguard.so valgrind --tool=callgrind \
 *            --toggle-collect=free_batch binfull [ROUNDS]
 *   Each round allocates BATCH blocks of one fastbin size (24 bytes), then
 *   frees them in free_batch: the first 7 go to the tcache, the rest find
 *   its bin full and go to their fastbin (bench-lifo's pattern at a fast
 *   size); the next round's mallocs take them back.  Prints "frees=<n>"
 *   (the number of free calls free_batch made) and "checksum=<n>"; exit
 *   status 0, or 1 when a block's byte was lost.  The suite divides the
 *   Ir callgrind collected by frees=.
 */
#include <stdio.h>
#include <stdlib.h>

#define BATCH 64

/* The frees, the only function collected; not inlined, so that callgrind
 * can name it. */
__attribute__((noinline, noclone)) static void free_batch(unsigned char **p, int n)
{
    for (int i = n; i-- > 0;)
        free(p[i]);
    __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 2000;
    unsigned char *p[BATCH];
    unsigned long sum = 0;
    int bad = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < BATCH; i++) {
            p[i] = malloc(24);
            if (p[i] == NULL)
                return 1;
            p[i][23] = (unsigned char)(i + r);
        }
        for (int i = 0; i < BATCH; i++) {
            bad |= p[i][23] != (unsigned char)(i + r);
            sum += p[i][23];
        }
        free_batch(p, BATCH);
    }
    printf("frees=%lu\nchecksum=%lu\n", (unsigned long)rounds * BATCH, sum);
    return bad;
}
