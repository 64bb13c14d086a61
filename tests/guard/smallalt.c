/* A fault taken on a small alternate signal stack of the program's own:
 * the program installs its own sigaltstack (on the main thread or on a
 * thread it makes), of ROOM bytes with an inaccessible page below it, then
 * does one bad thing.  chunkguard's handler runs on that stack; the report
 * must be the one made without it, and a fault that is not chunkguard's
 * still reaches the program's own handler, on the program's stack.
 *   smallalt ROOM WHERE KIND
 *   ROOM   bytes of alternate stack: a number, sigstksz (SIGSTKSZ as this
 *          libc has it) or min (sysconf(_SC_MINSIGSTKSZ), what the kernel
 *          needs for a signal frame, or MINSIGSTKSZ), belowmin (that
 *          less 256 bytes: the kernel's frame may still fit, chunkguard's
 *          handler's frames no longer do)
 *   WHERE  main | thread
 *   KIND   uaf           read a freed 40-byte block
 *          past          read 4096 bytes past a 40-byte block
 *          overflow      unbounded recursion (the thread's stack overflows)
 *          wild          read address 16
 *          handler-wild  the same with a SIGSEGV handler of the program's
 *                        (SA_ONSTACK) installed first: it prints whether it
 *                        runs on the program's alternate stack, and exits 42
 *          handler-wild-exit  the same, the handler ending with exit(42)
 *                        (chunkguard's checks at exit run in it), not _exit
 *          handler-uaf   uaf with that handler installed (the fault is
 *                        chunkguard's: reported, the handler never runs)
 *          signal-df     a SIGUSR1 handler of the program's (SA_ONSTACK,
 *                        so on that stack) frees again a 40-byte block
 *                        freed before (df_here): the report is made there
 * Prints "room N" first.  Every bad act is in a function of its own. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t room;
static const char *kind;
static char *alt_lo;
static volatile int sink;
static bool handler_exits;      /* exit(42), not _exit(42), in on_segv */

static void own_altstack(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, page + room, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || mprotect(m, page, PROT_NONE) != 0)
        exit(2);
    stack_t ss = { .ss_sp = m + page, .ss_size = room, .ss_flags = 0 };
    if (sigaltstack(&ss, NULL) != 0) {
        perror("sigaltstack");
        exit(2);
    }
    alt_lo = m + page;
}

static void on_segv(int sig)
{
    (void)sig;
    char here;
    stack_t ss;
    bool on = sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK) &&
              &here >= alt_lo && &here < alt_lo + room;
    static const char yes[] = "program handler on its own altstack\n";
    static const char no[] = "program handler elsewhere\n";
    if (on)
        write(1, yes, sizeof yes - 1);
    else
        write(1, no, sizeof no - 1);
    if (handler_exits)
        exit(42);
    _exit(42);
}

__attribute__((noinline)) static void uaf_here(void)
{
    char *p = malloc(40);
    free(p);
    sink = p[3];
}

__attribute__((noinline)) static void past_here(void)
{
    char *p = malloc(40);
    sink = p[4096];
}

__attribute__((noinline)) static int recurse(int n)
{
    volatile char buf[512];
    buf[0] = (char)n;
    return recurse(n + 1) + buf[0];
}

static char *volatile df_block;

__attribute__((noinline)) static void df_here(void)
{
    free(df_block);
}

static void on_usr1(int sig)
{
    (void)sig;
    df_here();
}

__attribute__((noinline)) static void wild_here(void)
{
    sink = *(volatile char *)16;
}

static void act(void)
{
    own_altstack();
    if (!strncmp(kind, "handler-", 8)) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_segv;
        sa.sa_flags = SA_ONSTACK;
        sigaction(SIGSEGV, &sa, NULL);
    }
    const char *k = !strncmp(kind, "handler-", 8) ? kind + 8 : kind;
    if (!strcmp(k, "wild-exit")) {
        handler_exits = true;
        k = "wild";
    }
    if (!strcmp(k, "uaf"))
        uaf_here();
    else if (!strcmp(k, "past"))
        past_here();
    else if (!strcmp(k, "overflow"))
        sink = recurse(0);
    else if (!strcmp(k, "wild"))
        wild_here();
    else if (!strcmp(k, "signal-df")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_usr1;
        sa.sa_flags = SA_ONSTACK;
        sigaction(SIGUSR1, &sa, NULL);
        df_block = malloc(40);
        free(df_block);           /* (free bound: the handler's call needs no lookup) */
        raise(SIGUSR1);
    }
    else
        exit(2);
}

static void *thread_main(void *arg)
{
    (void)arg;
    act();
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    if (!strcmp(argv[1], "sigstksz"))
        room = SIGSTKSZ;
    else if (!strcmp(argv[1], "min")) {
        long m = sysconf(_SC_MINSIGSTKSZ);
        room = m > 0 ? (size_t)m : MINSIGSTKSZ;
    } else if (!strcmp(argv[1], "belowmin")) {
        long m = sysconf(_SC_MINSIGSTKSZ);
        room = (m > 0 ? (size_t)m : MINSIGSTKSZ) - 256;
    } else
        room = strtoul(argv[1], NULL, 0);
    kind = argv[3];
    printf("room %zu\n", room);
    fflush(stdout);
    if (!strcmp(argv[2], "thread")) {
        pthread_t t;
        if (pthread_create(&t, NULL, thread_main, NULL) != 0)
            return 2;
        pthread_join(t, NULL);
    } else
        act();
    puts("survived");
    return 0;
}
