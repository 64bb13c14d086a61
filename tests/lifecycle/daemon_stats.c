/*
 * daemon_stats.c — a single-threaded program that allocates 100 times,
 * becomes a daemon (glibc's daemon() forks with its internal __fork, not
 * through the fork() chunkguard exports) and allocates 3 times in the
 * child.  45-lifecycle's fork-handlers-daemon-stats reads the child's
 * stats_path line: its counts must be the child's own, not 103.
 */
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
    for (int i = 0; i < 100; i++) {
        void *volatile p = malloc(32);
        free(p);
    }
    if (daemon(1, 1) != 0)
        return 1;
    for (int i = 0; i < 3; i++) {
        void *volatile p = malloc(32);
        free(p);
    }
    return 0;
}
