/*
 * churn.c — thousands of short threads must not grow the resident set
 * (issue 2, point 6: a thread's tcache goes back to its arena at exit).
 *
 * usage: churn [-n THREADS] [-w WARMUP] [-c CONCURRENT] [-m SLACK_KB]
 * Runs THREADS threads (default 5000), CONCURRENT at a time (default 4).
 * Each allocates and frees a few KB over 16 tcache sizes and a 5000-byte
 * block, leaving its tcache full when it exits.  VmRSS is read after
 * WARMUP threads (default 500) and at the end; exit status 0 when the end
 * value is at most SLACK_KB (default 4096) above the warm-up value, 1
 * otherwise, 2 on bad usage.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static void *short_life(void *arg)
{
    (void)arg;
    void *p[16][8];
    /* 16 sizes x 8 blocks: 7 of each stay in the tcache when freed. */
    for (int s = 0; s < 16; s++)
        for (int i = 0; i < 8; i++) {
            p[s][i] = T(malloc)((size_t)s * 64 + 16);
            if (p[s][i])
                memset(p[s][i], s, (size_t)s * 64 + 16);
        }
    void *big = T(malloc)(5000);
    if (big)
        memset(big, 1, 5000);
    for (int s = 0; s < 16; s++)
        for (int i = 0; i < 8; i++)
            T(free)(p[s][i]);
    T(free)(big);
    return NULL;
}

/* Runs @n threads, @conc at a time.  Returns 0, or 1 if one could not
 * be created. */
static int run_threads(long n, int conc)
{
    pthread_t t[64];
    for (long done = 0; done < n; done += conc) {
        int k = (int)(n - done < conc ? n - done : conc);
        for (int i = 0; i < k; i++)
            if (pthread_create(&t[i], NULL, short_life, NULL)) {
                fprintf(stderr, "churn: pthread_create failed\n");
                return 1;
            }
        for (int i = 0; i < k; i++)
            pthread_join(t[i], NULL);
    }
    return 0;
}

int main(int argc, char **argv)
{
    long total = 5000, warm = 500, slack = 4096;
    int conc = 4, c;
    while ((c = getopt(argc, argv, "n:w:c:m:")) != -1) {
        switch (c) {
        case 'n': total = atol(optarg); break;
        case 'w': warm = atol(optarg); break;
        case 'c': conc = atoi(optarg); break;
        case 'm': slack = atol(optarg); break;
        default:
            fprintf(stderr, "usage: %s [-n THREADS] [-w WARMUP] [-c CONCURRENT] [-m SLACK_KB]\n",
                    argv[0]);
            return 2;
        }
    }
    if (conc < 1 || conc > 64 || warm < 1 || total <= warm)
        return 2;
    if (run_threads(warm, conc))
        return 1;
    long rss_warm = ut_rss_kb();
    if (run_threads(total - warm, conc))
        return 1;
    long rss_end = ut_rss_kb();
    printf("churn: backend=%s threads=%ld rss after %ld: %ld KiB, after %ld: %ld KiB\n",
           UT_BACKEND, total, warm, rss_warm, total, rss_end);
    if (!ut_served_by_chunkguard((unsigned long long)total * 100))
        return 1;
    if (rss_warm < 0 || rss_end < 0 || rss_end > rss_warm + slack) {
        fprintf(stderr, "churn: FAIL: RSS grew by %ld KiB (allowed %ld)\n",
                rss_end - rss_warm, slack);
        return 1;
    }
    return 0;
}
