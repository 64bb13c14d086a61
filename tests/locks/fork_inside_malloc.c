/*
 * fork_inside_malloc.c — fork() from a signal handler that interrupted
 * malloc or free in a multi-threaded process (issue 13): the interrupted
 * call may hold one of the allocator's locks, which the fork's prepare
 * handler then waits for in the same thread.  glibc's own malloc hangs
 * here; a debugging allocator must not.
 *
 *   run THREADS SECS [stdio]
 *       THREADS workers malloc and free blocks of 16 B to 64 kB (tcache,
 *       bins and big blocks: every lock the slow paths take) while main
 *       sends a random worker SIGUSR1 every 20-220 us, for SECS seconds.
 *       The handler forks, the child _exits, the handler reaps it.  With
 *       "stdio" main also printf()s and fflush()es a line to a pipe that
 *       a reader thread drains (libc's stdio lock, which mallocs inside).
 *       Prints "ok run forks=F signals=S" and exits 0 when every fork and
 *       child succeeded; an allocator report ends it its own way.
 * A hang is the bug (the suite's timeout kills it: 124).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXT 8

static atomic_int stop;
static atomic_long forks, signals, failed;
static pthread_t workers[MAXT];
static FILE *out;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_usr1(int sig)
{
    (void)sig;
    int saved = errno;
    atomic_fetch_add(&signals, 1);
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    if (pid < 0) {
        atomic_fetch_add(&failed, 1);
    } else {
        int status;
        pid_t r;
        while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
            ;
        if (r != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            atomic_fetch_add(&failed, 1);
        atomic_fetch_add(&forks, 1);
    }
    errno = saved;
}

static void *work(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg * 2654435761u + 1;
    void *keep[64] = { 0 };
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        unsigned i = (seed = seed * 1103515245u + 12345u) >> 8;
        size_t slot = i % 64;
        /* mostly small blocks, some medium, a few big (mmapped) */
        size_t r = (seed >> 4) % 100;
        size_t n = r < 70 ? 16 + (i % 1024) : r < 97 ? 1024 + (i % 16384) : 65536 + (i % 200000);
        free(keep[slot]);
        keep[slot] = malloc(n);
        if (keep[slot] != NULL)
            memset(keep[slot], 1, n < 64 ? n : 64);
    }
    for (int k = 0; k < 64; k++)
        free(keep[k]);
    return NULL;
}

static int pipefd[2];

static void *drain(void *arg)
{
    (void)arg;
    char buf[4096];
    while (read(pipefd[0], buf, sizeof buf) > 0)
        ;
    return NULL;
}

static int run(int nthreads, double secs, int stdio)
{
    if (nthreads < 1 || nthreads > MAXT)
        return 2;
    setvbuf(stdout, NULL, _IONBF, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, NULL) != 0)
        return 2;
    /* main itself never takes the signal */
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_t reader;
    if (stdio) {
        if (pipe(pipefd) != 0 || (out = fdopen(pipefd[1], "w")) == NULL)
            return 2;
        if (pthread_create(&reader, NULL, drain, NULL) != 0)
            return 2;
    }
    for (int t = 0; t < nthreads; t++)
        if (pthread_create(&workers[t], NULL, work, (void *)(uintptr_t)(t + 1)) != 0)
            return 2;
    pthread_sigmask(SIG_BLOCK, &usr1, NULL);
    unsigned seed = (unsigned)getpid();
    double end = now_s() + secs;
    long lines = 0;
    while (now_s() < end) {
        seed = seed * 1103515245u + 12345u;
        pthread_kill(workers[(seed >> 16) % (unsigned)nthreads], SIGUSR1);
        if (stdio) {
            fprintf(out, "line %ld %s\n", lines++, "0123456789abcdef0123456789abcdef");
            if (lines % 8 == 0)
                fflush(out);
            printf("%s", "");
            fflush(NULL);
        }
        struct timespec ts = { 0, 20000 + (long)((seed >> 4) % 200000) };
        nanosleep(&ts, NULL);
    }
    atomic_store(&stop, 1);
    for (int t = 0; t < nthreads; t++)
        pthread_join(workers[t], NULL);
    if (stdio) {
        fclose(out);
        pthread_join(reader, NULL);
    }
    if (atomic_load(&failed)) {
        fprintf(stderr, "fork_inside_malloc: %ld forks or children failed\n",
                (long)atomic_load(&failed));
        return 1;
    }
    printf("ok run forks=%ld signals=%ld\n", (long)atomic_load(&forks),
           (long)atomic_load(&signals));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "run") == 0)
        return run(atoi(argv[2]), atof(argv[3]), argc > 4 && strcmp(argv[4], "stdio") == 0);
    fprintf(stderr, "usage: fork_inside_malloc run THREADS SECS [stdio]\n");
    return 2;
}
