/*
 * fork_signal.c — fork() from a signal handler in a single-threaded
 * process (issue 13, point 2).  fork is async-signal-safe in a
 * single-threaded glibc process; a handler's fork may interrupt the
 * program's own fork anywhere, also between the allocator's prepare and
 * parent handlers (a signal that arrives during the clone system call is
 * delivered as it returns, before the parent handlers run).
 *
 *   storm FORKS  a timer sends SIGUSR1 every 50 us (STORM_NS nanoseconds)
 *                while the main loop mallocs, forks FORKS times and frees;
 *                before each of main's forks it arms the handler, which
 *                then forks once (each child _exits), most often while
 *                main's fork runs.  Prints "ok storm forks=F
 *                handler_forks=H nested=N signals=S seconds=T", N the
 *                handler's forks made while main was inside fork() (the
 *                run proves something only when N > 0).  A shorter period
 *                starves the program of CPU under glibc alone on a small
 *                virtual machine (each delivery costs microseconds there).
 * Exit 0 when every fork and child succeeded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t in_fork, armed;
static volatile long handler_forks, nested, failed, signals;
static pid_t main_pid;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* fork, reap: 0 when the child exited 0 */
static int fork_reap(void)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        _exit(0);
    int status;
    pid_t r;
    while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    return r == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void on_usr1(int sig)
{
    (void)sig;
    int saved = errno;
    signals++;
    /* a child may get a signal sent while it was being forked: it _exits */
    if (armed && getpid() == main_pid) {
        armed = 0;
        if (in_fork)
            nested++;
        if (fork_reap() != 0)
            failed++;
        handler_forks++;
    }
    errno = saved;
}

static int storm(int forks)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, NULL) != 0)
        return 2;
    main_pid = getpid();
    timer_t timer;
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_SIGNAL;
    sev.sigev_signo = SIGUSR1;
    if (timer_create(CLOCK_MONOTONIC, &sev, &timer) != 0)
        return 2;
    long ns = getenv("STORM_NS") ? atol(getenv("STORM_NS")) : 50000;
    struct itimerspec it = { { 0, ns }, { 0, ns } };
    timer_settime(timer, 0, &it, NULL);
    double start = now_s();
    void *keep[16] = { 0 };
    for (int f = 0; f < forks; f++) {
        for (int i = 0; i < 16; i++) {        /* tcache sizes and bin sizes */
            free(keep[i]);
            keep[i] = malloc(16 + (size_t)(f * 37 + i * 301) % 4000);
            if (keep[i] == NULL)
                return 1;
        }
        armed = 1;
        in_fork = 1;
        int r = fork_reap();
        in_fork = 0;
        if (r != 0) {
            fprintf(stderr, "fork_signal: fork %d failed\n", f);
            return 1;
        }
    }
    struct itimerspec off = { { 0, 0 }, { 0, 0 } };
    timer_settime(timer, 0, &off, NULL);
    for (int i = 0; i < 16; i++)
        free(keep[i]);
    if (failed) {
        fprintf(stderr, "fork_signal: %ld of the handler's forks failed\n", (long)failed);
        return 1;
    }
    printf("ok storm forks=%d handler_forks=%ld nested=%ld signals=%ld seconds=%.3f\n", forks,
           (long)handler_forks, (long)nested, (long)signals, now_s() - start);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc >= 3 && strcmp(argv[1], "storm") == 0)
        return storm(atoi(argv[2]));
    fprintf(stderr, "usage: fork_signal storm FORKS\n");
    return 2;
}
