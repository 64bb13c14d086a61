/*
 * holder_site.c — a thread stops for good inside chunkguard, holding the
 * arena lock: its SIGUSR1 handler never returns, and the signal is sent
 * while it loops on malloc and free of blocks no tcache holds.  main then
 * allocates from the same arena (MALLOC_ARENA_MAX=1) and must get a
 * lock-wait-timeout report whose "The holder took the lock here" frame is
 * the program's call site in worker_loop, not a chunkguard function.  The
 * signal may land outside chunkguard (the worker then sleeps holding
 * nothing): main gives up after 3 s and prints "no landing" (exit 0), and
 * the test runs it again.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void stop_here(int sig)
{
    (void)sig;
    for (;;)
        pause();
}

static __attribute__((noinline)) void worker_loop(void)
{
    for (;;) {
        void *p[50];
        for (int i = 0; i < 50; i++)
            p[i] = malloc((size_t)i * 300 + 2000);
        for (int i = 0; i < 50; i++)
            free(p[i]);
    }
}

static void *worker(void *arg)
{
    (void)arg;
    worker_loop();
    return NULL;
}

int main(void)
{
    signal(SIGUSR1, stop_here);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    usleep(50000);
    pthread_kill(t, SIGUSR1);
    usleep(10000);
    time_t end = time(NULL) + 3;
    while (time(NULL) < end) {
        void *p[50];
        for (int j = 0; j < 50; j++)
            p[j] = malloc((size_t)j * 300 + 2000);
        for (int j = 0; j < 50; j++)
            free(p[j]);
    }
    printf("no landing\n");
    fflush(stdout);            /* _exit does not flush, and stdout is a pipe */
    _exit(0);
}
