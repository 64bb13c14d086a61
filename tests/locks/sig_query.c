/*
 * sig_query.c — a SIGALRM handler asks for heap statistics (mallinfo2,
 * malloc_info to /dev/null, malloc_trim) while this thread allocates
 * blocks that need the arena (2000 bytes: no tcache), with a second thread
 * alive so every arena access takes its lock.  A handler that interrupts
 * chunkguard must get an empty answer, never wait on a lock its own thread
 * holds (a deadlock report) or walk bins mid-update.  Prints "ok query N"
 * with N the re-entrant calls chunkguard counted (the run is meaningful
 * only when some landed inside).  usage: sig_query HITS
 */
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

typedef struct {
    uint64_t mallocs, frees, callocs, reallocs, memaligns, mmapped_chunks, arenas, heaps,
        reentrant_calls;
} stats_t;

static volatile int hits;
static volatile int stop;
static FILE *devnull;

static void on_alarm(int sig)
{
    (void)sig;
    struct mallinfo2 m = mallinfo2();
    (void)m;
    if (hits % 3 == 0)
        malloc_trim(0);
    hits++;
}

static void *idle(void *arg)
{
    (void)arg;
    while (!stop)
        usleep(1000);
    return NULL;
}

int main(int argc, char **argv)
{
    int want = argc > 1 ? atoi(argv[1]) : 2000;
    devnull = fopen("/dev/null", "w");
    pthread_t t;
    pthread_create(&t, NULL, idle, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { { 0, 100 }, { 0, 100 } };
    setitimer(ITIMER_REAL, &it, NULL);
    void *keep[64] = {0};
    for (long i = 0; i < 200000000 && hits < want; i++) {
        size_t k = (size_t)i & 63;
        free(keep[k]);
        keep[k] = malloc(2000 + (size_t)(i & 7) * 16);
    }
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &off, NULL);
    stop = 1;
    pthread_join(t, NULL);
    malloc_info(0, devnull);
    void (*get)(stats_t *) = (void (*)(stats_t *))dlsym(RTLD_DEFAULT, "cg_get_stats");
    stats_t st = {0};
    if (get)
        get(&st);
    printf("ok query %lu\n", (unsigned long)st.reentrant_calls);
    return 0;
}
