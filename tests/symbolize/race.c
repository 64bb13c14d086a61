/*
 * race.c — reports racing the program, for tests/suites/26-symbolize.sh
 * (built -g -O1 -pthread); the argument picks the race:
 *   exit     a worker thread makes a double free while main returns
 *            (5 ms after the worker reaches its second free, while the
 *            report waits for its symbolizer): the report must come out
 *            whole and decide the exit status
 *   exitcall the same, main calling exit(0) instead of returning
 *   chld N   SIGCHLD handler counting, a thread reaping with waitpid(-1)
 *            in a loop, then N overflows found at free (halt_on_error=0
 *            lets the program go on; a fatal one's SIGABRT is caught):
 *            prints "sigchld S reaped R"; the symbolizer's processes must
 *            show in neither
 *   fork N   N forked children report a double free each, at once, onto
 *            the shared stderr
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

volatile int sink;
static volatile sig_atomic_t chld_signals;
static volatile int reaped, stop;
static volatile int at_second_free;

__attribute__((noinline)) static void free_twice(char *p)
{
    free(p);
    at_second_free = 1;
    free(p);
    sink = 1;
}

__attribute__((noinline)) static void overflow_then_free(char *p, int n)
{
    p[n] = 1;
    free(p);
    sink = 2;
}

static void *worker(void *arg)
{
    (void)arg;
    free_twice(malloc(24));
    return NULL;
}

static void on_chld(int sig)
{
    (void)sig;
    chld_signals++;
}

/* A fatal report (fast mode) ends in abort: the counts from here. */
static void on_abrt(int sig)
{
    (void)sig;
    usleep(200000);
    stop = 1;
    printf("sigchld %d reaped %d\n", (int)chld_signals, reaped);
    fflush(stdout);
    _exit(134);
}

static void *reaper(void *arg)
{
    (void)arg;
    while (!stop) {
        int st;
        if (waitpid(-1, &st, WNOHANG) > 0)
            reaped++;
        usleep(200);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    int n = argc > 2 ? atoi(argv[2]) : 1;
    if (strcmp(what, "exit") == 0 || strcmp(what, "exitcall") == 0) {
        pthread_t t;
        pthread_create(&t, NULL, worker, NULL);
        /* Exit only once the worker is at its second free: under load a
         * fixed 5 ms could pass before the worker ran at all, and then
         * there is no report to wait for (glibc's exit would not wait
         * either).  The 5 ms after it let the report begin. */
        while (!at_second_free)
            usleep(100);
        usleep(5000);
        if (what[4] == 'c')
            exit(0);
        return 0;
    }
    if (strcmp(what, "chld") == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_chld;
        sigaction(SIGCHLD, &sa, NULL);
        sa.sa_handler = on_abrt;
        sigaction(SIGABRT, &sa, NULL);
        pthread_t t;
        pthread_create(&t, NULL, reaper, NULL);
        for (int i = 0; i < n; i++)
            overflow_then_free(malloc(40), 40);
        usleep(200000);
        stop = 1;
        pthread_join(t, NULL);
        printf("sigchld %d reaped %d\n", (int)chld_signals, reaped);
        return 0;
    }
    if (strcmp(what, "fork") == 0) {
        int fds[2];
        if (pipe(fds) != 0)
            return 2;
        for (int i = 0; i < n; i++)
            if (fork() == 0) {
                char c;
                close(fds[1]);
                while (read(fds[0], &c, 1) < 0 && errno == EINTR)
                    ;
                free_twice(malloc(24));
                _exit(0);
            }
        close(fds[0]);
        close(fds[1]);          /* every child starts at once */
        while (wait(NULL) > 0)
            ;
        return 0;
    }
    fprintf(stderr, "usage: race exit|exitcall|chld N|fork N\n");
    return 2;
}
