/*
 * sig_realloc.c — a SIGALRM handler reallocs a block main allocated, while
 * main runs malloc and free: some of the handler's calls interrupt
 * chunkguard.  In debug mode with halt_on_error=0 they must be reported
 * (once per call site) and served, contents kept.  Break test, 2026-11-30:
 * debug mode could not read a debug block's size there and ended the
 * process.  usage: sig_realloc HITS
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static char *volatile blk;
static volatile int hits;

static void on_alarm(int sig)
{
    (void)sig;
    char *p = realloc(blk, 32 + (hits & 1) * 16);
    if (p == NULL || strcmp(p, "hello") != 0)
        abort();
    blk = p;
    hits++;
}

int main(int argc, char **argv)
{
    int want = argc > 1 ? atoi(argv[1]) : 500;
    blk = malloc(32);
    strcpy(blk, "hello");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { { 0, 200 }, { 0, 200 } };
    setitimer(ITIMER_REAL, &it, NULL);
    for (long i = 0; i < 50000000 && hits < want; i++)
        free(malloc(100));
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &off, NULL);
    printf("ok %s\n", blk);
    return 0;
}
