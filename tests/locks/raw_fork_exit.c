/*
 * raw_fork_exit.c — a child made by _Fork() (glibc 2.34+: fork without
 * the atfork handlers, async-signal-safe) in a process with threads ends
 * with _exit, as POSIX allows after such a fork.  Our fork handlers never
 * ran for it: a lock another thread held at the fork stays taken in the
 * child, with no thread to let it go, so chunkguard's _exit must not take
 * one (debug mode's quarantine check at _exit did, and the child waited
 * until the lock watchdog's report killed it).
 *
 *   raw_fork_exit FORKS [handler]
 *       two threads malloc and free without pause; main makes FORKS
 *       children with _Fork (from a SIGALRM handler every 20 ms with
 *       "handler"; the period is long enough for a debug-mode fork,
 *       whose page tables cost milliseconds), each child _exit(7)s at
 *       once.  Prints
 *       "ok forks=F bad=B" (F: at least FORKS) and exits 0 when every
 *       child exited 7.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

extern pid_t _Fork(void);

static volatile int stop, made, bad;

static void one_fork(void)
{
    pid_t p = _Fork();
    if (p == 0)
        _exit(7);
    if (p < 0) {
        bad++;
        return;
    }
    int st;
    while (waitpid(p, &st, 0) < 0)
        ;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 7)
        bad++;
    made++;
}

static void on_alarm(int sig)
{
    (void)sig;
    one_fork();
}

static void *churn(void *arg)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGALRM);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
    size_t i = (size_t)arg;
    while (!stop) {
        void *p = malloc(32 + (i++ & 511));
        free(p);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int forks = argc > 1 ? atoi(argv[1]) : 200;
    int from_handler = argc > 2 && !strcmp(argv[2], "handler");
    pthread_t t[2];
    for (size_t i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, churn, (void *)i);
    if (from_handler) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_alarm;
        sigaction(SIGALRM, &sa, NULL);
        struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
        setitimer(ITIMER_REAL, &it, NULL);
        for (size_t i = 0; made < forks; i++)
            free(malloc(64 + (i & 255)));
        struct itimerval off = { { 0, 0 }, { 0, 0 } };
        setitimer(ITIMER_REAL, &off, NULL);
    } else {
        while (made < forks)
            one_fork();
    }
    stop = 1;
    for (size_t i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("ok forks=%d bad=%d\n", made, bad);
    return bad != 0;
}
