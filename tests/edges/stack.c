/*
 * stack.c — faults and reports at the edge of a thread's stack, for
 * tests/suites/58-edges.sh (issue 12's refinements: a stack overflow is
 * reported as such; a report on a thread with a small stack is written).
 *   stack overflow main        unbounded recursion on the main thread
 *   stack overflow thread [N]  the same on a thread (stack N bytes; default
 *                              glibc's), which called malloc first (so
 *                              chunkguard gave it its signal stack)
 *   stack small KIND [N]       on a thread with an N-byte stack (default
 *                              16 KiB): KIND is
 *                                double-free  free a block twice
 *                                overflow     write past a block, then free it
 *                                wild         write through a wild pointer
 *                                             (the thread never called malloc)
 *                                wild-malloc  the same after a malloc
 *                                deep-wild    the same after a malloc, with
 *                                             most of the stack in use
 *                                recursion    unbounded recursion
 *                                guard-wild   write into the guard page
 *                                             below the thread's stack from
 *                                             a shallow frame (a wild write,
 *                                             far below the stack pointer)
 * Every bad act is in a function of its own (never inlined), so the test
 * can check that the report names it.  Prints "start KIND" first; exits 0
 * (printing "no report") if the program survives.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static void *volatile sink;
static const char *kind;

static volatile int forever = 1;      /* unknown to the compiler */

/* A frame of 256 bytes a call, never a tail call: the stack runs out. */
NOINLINE static int recurse(int n)
{
    volatile char buf[256];
    buf[0] = (char)n;
    if (!forever)
        return 0;
    return recurse(n + 1) + buf[0];
}

NOINLINE static void double_free_here(void)
{
    char *p = malloc(24);
    sink = p;
    free(p);
    free(p);
}

NOINLINE static void overflow_here(void)
{
    char *p = malloc(40);
    sink = p;
    p[41] = 1;
    free(p);
}

NOINLINE static void wild_here(void)
{
    *(volatile int *)(uintptr_t)16 = 1;
}

NOINLINE static void guard_wild_here(void)
{
    pthread_attr_t a;
    void *lo;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &a) != 0 || pthread_attr_getstack(&a, &lo, &size) != 0)
        _exit(2);
    *(volatile char *)((char *)lo - 64) = 1;
}

/* Most of a small stack in use (the frame takes about 10 KiB), then the
 * wild write: the handler runs on what is left, or on its own stack. */
NOINLINE static void deep_wild(void)
{
    volatile char pad[10 * 1024];
    pad[0] = 1;
    pad[sizeof pad - 1] = 1;
    wild_here();
}

static void say(const char *s)
{
    if (write(1, s, strlen(s)) < 0)
        _exit(3);
}

static void *body(void *arg)
{
    (void)arg;
    if (strcmp(kind, "wild") != 0)
        free(malloc(8));                /* chunkguard knows this thread */
    if (!strcmp(kind, "double-free"))
        double_free_here();
    else if (!strcmp(kind, "overflow"))
        overflow_here();
    else if (!strcmp(kind, "wild") || !strcmp(kind, "wild-malloc"))
        wild_here();
    else if (!strcmp(kind, "guard-wild"))
        guard_wild_here();
    else if (!strcmp(kind, "deep-wild"))
        deep_wild();
    else if (!strcmp(kind, "recursion") || !strcmp(kind, "overflow-thread"))
        return (void *)(intptr_t)recurse(0);
    return NULL;
}

static int on_thread(size_t stack)
{
    pthread_attr_t at;
    pthread_t t;
    pthread_attr_init(&at);
    if (stack != 0 && pthread_attr_setstacksize(&at, stack) != 0) {
        say("setstacksize failed\n");
        return 2;
    }
    if (pthread_create(&t, &at, body, NULL) != 0) {
        say("pthread_create failed\n");
        return 2;
    }
    pthread_join(t, NULL);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    free(malloc(8));                    /* chunkguard is in charge */
    kind = argv[2];
    size_t n = argc > 3 ? strtoul(argv[3], NULL, 0) : 0;
    say("start ");
    say(argv[1]);
    say(" ");
    say(kind);
    say("\n");
    if (!strcmp(argv[1], "overflow") && !strcmp(kind, "main"))
        return recurse(0);
    if (!strcmp(argv[1], "overflow") && !strcmp(kind, "thread")) {
        kind = "overflow-thread";
        on_thread(n);
    } else if (!strcmp(argv[1], "small")) {
        if (on_thread(n ? n : 16 * 1024) != 0)
            return 2;
    } else
        return 2;
    say("no report\n");
    return 0;
}
