/*
 * stack.c — faults and reports at the edge of a thread's stack, for
 * tests/suites/58-edges.sh (issue 12's refinements: a stack overflow is
 * reported as such; a report on a thread with a small stack is written).
 *   stack overflow main        unbounded recursion on the main thread
 *   stack overflow thread [N]  the same on a thread (stack N bytes; default
 *                              glibc's), which called malloc first (so
 *                              chunkguard gave it its signal stack)
 *   stack overflow bare        the same on a thread that never calls malloc
 *                              nor anything else of chunkguard's (its signal
 *                              stack is the pthread_create hook's)
 *   stack overflow own-alt     the same on a thread that installs its own
 *                              sigaltstack first, then calls malloc: prints
 *                              "own altstack kept" when it is still the
 *                              thread's after the malloc
 *   stack threads N            N threads one after another, every other one
 *                              installing its own sigaltstack, each calling
 *                              malloc or not; prints "maps A B": the
 *                              mappings after half of them, and after all
 *                              (a signal stack left behind by an exited
 *                              thread shows as growth)
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
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* The thread's own alternate signal stack (64 KiB, mapped: never freed,
 * the thread's fault report runs on it); is it still the one installed? */
static void *own_alt(void)
{
    size_t size = 64 * 1024;
    void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        _exit(2);
    stack_t ss = { .ss_sp = m, .ss_size = size, .ss_flags = 0 };
    if (sigaltstack(&ss, NULL) != 0)
        _exit(2);
    return m;
}

static int alt_is(void *m)
{
    stack_t now;
    return sigaltstack(NULL, &now) == 0 && !(now.ss_flags & SS_DISABLE) && now.ss_sp == m;
}

static void *body(void *arg)
{
    (void)arg;
    if (!strcmp(kind, "overflow-bare"))
        return (void *)(intptr_t)recurse(0);     /* nothing of chunkguard's first */
    if (!strcmp(kind, "overflow-own-alt")) {
        void *m = own_alt();
        free(malloc(8));
        if (alt_is(m))
            say("own altstack kept\n");
        return (void *)(intptr_t)recurse(0);
    }
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

/* One short-lived thread of stack threads: i odd installs its own
 * signal stack (and unmaps it when done, leaving none), i % 4 >= 2 calls
 * malloc. */
static void *short_body(void *arg)
{
    intptr_t i = (intptr_t)arg;
    void *m = NULL;
    if (i & 1)
        m = own_alt();
    if (i & 2)
        free(malloc(16));
    if (m != NULL) {
        if (!alt_is(m))
            say("own altstack lost\n");
        stack_t off = { .ss_flags = SS_DISABLE };
        sigaltstack(&off, NULL);
        munmap(m, 64 * 1024);
    }
    return NULL;
}

static int count_maps(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    int n = 0, c;
    if (f == NULL)
        _exit(2);
    while ((c = getc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static int short_threads(int n)
{
    int first = 0;
    for (int i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, short_body, (void *)(intptr_t)i) != 0) {
            say("pthread_create failed\n");
            return 2;
        }
        pthread_join(t, NULL);
        if (i == n / 2 - 1)
            first = count_maps();      /* past what debug mode maps once */
    }
    printf("maps %d %d\n", first, count_maps());
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
    if (!strcmp(argv[1], "threads"))
        return short_threads((int)strtol(kind, NULL, 0));
    if (!strcmp(argv[1], "overflow") &&
        (!strcmp(kind, "thread") || !strcmp(kind, "bare") || !strcmp(kind, "own-alt"))) {
        kind = !strcmp(kind, "thread") ? "overflow-thread" : !strcmp(kind, "bare") ? "overflow-bare"
                                                                                    : "overflow-own-alt";
        on_thread(n);
    } else if (!strcmp(argv[1], "small")) {
        if (on_thread(n ? n : 16 * 1024) != 0)
            return 2;
    } else
        return 2;
    say("no report\n");
    return 0;
}
