/*
 * sym.c — a program for tests/suites/26-symbolize.sh, built with -g -O1:
 * each argument picks one bug, at a line the suite finds by its marker
 * comment ("LINE-<name>").
 *   free   an overflow found when the block is freed (debug mode): the
 *          report's first frame is the call of free, whose return
 *          address is on the next line (a volatile store)
 *   write  a write past the block through an inlined function (guard
 *          mode: a fault, the report made in the signal handler)
 *   leak   three blocks leaked from three call sites (detect_leaks=1)
 *   fork   a double free in the child of a fork made while another
 *          thread runs (and holds a lock of libc's: it is in a sleep)
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

volatile int sink;

static inline __attribute__((always_inline)) void put(char *p, int i)
{
    p[i] = 1;                                   /* LINE-put */
}

__attribute__((noinline)) void write_past(char *p, int n)
{
    put(p, n);                                  /* LINE-write_past */
    sink = 2;
}

__attribute__((noinline)) void overflow_then_free(char *p, int n)
{
    p[n] = 1;
    free(p);                                    /* LINE-free */
    sink = 1;
}

__attribute__((noinline)) void *leak_a(void) { return malloc(11); }   /* LINE-leak_a */
__attribute__((noinline)) void *leak_b(void) { return malloc(22); }   /* LINE-leak_b */
__attribute__((noinline)) void *leak_c(void) { return malloc(33); }   /* LINE-leak_c */

void *volatile keep;

__attribute__((noinline)) void free_twice(char *p)
{
    free(p);
    free(p);                                    /* LINE-free_twice */
    sink = 3;
}

static void *spin(void *arg)
{
    (void)arg;
    for (;;) {
        free(malloc(64));
        usleep(100);
    }
    return NULL;
}

/* The child's report, then its status as the parent's exit status. */
static int fork_child_report(void)
{
    pthread_t t;
    pthread_create(&t, NULL, spin, NULL);
    usleep(10000);
    pid_t pid = fork();
    if (pid == 0) {
        free_twice(malloc(24));
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "free") == 0)
        overflow_then_free(malloc(10), 10 + argc - 2);
    else if (strcmp(what, "write") == 0)
        write_past(malloc(16), 4096 + argc);
    else if (strcmp(what, "leak") == 0) {
        keep = leak_a();
        keep = leak_b();
        keep = leak_c();
        keep = NULL;
    } else if (strcmp(what, "fork") == 0)
        return fork_child_report();
    return 0;
}
