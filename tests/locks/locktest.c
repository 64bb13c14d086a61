/*
 * locktest.c — the lock tests of issue 4 (points 1-5), one program with a
 * subcommand per test, run under LD_PRELOAD by tests/suites/52-locks.sh.
 * The cg_test_* hooks exist only in test builds of the library
 * (CG_TEST_HOOKS=1); they are found with dlsym, so one binary serves every
 * build.  Exit status 0 and a last line "ok ..." mean the test passed;
 * the tests that expect a report end in chunkguard's abort instead.
 *
 *   token-race      a lock elided while single-threaded; a hook creates a
 *                   thread before the unlock, which must not unlock
 *   relock          re-take a held arena lock (deadlock report)
 *   order SAME|OPP  two threads take arenas 0 and 1, in the same or in
 *                   opposite orders (lock-order-inversion report for OPP)
 *   timeout         a thread holds arena 0 for 3 s while main waits for it
 *   chain           main waits for arena 0, whose holder sleeps waiting for
 *                   arena 1, whose holder runs (busy) for 1 s: no deadlock
 *   cycle           main holds arena 0 and waits for arena 1, a thread
 *                   holds arena 1 and waits for arena 0: a real deadlock
 *   relay SECS      main waits for arena 0, held for SECS by a thread that
 *                   takes and drops arena 1 over and over, which three
 *                   threads pass round (each holds it busy for a moment,
 *                   then sleeps): a chain that moves all the time, whose
 *                   links change while a waiter reads them: no deadlock
 *   held-assert     break a "caller holds the lock" contract
 *   signals N SECS  N threads (0: only main) malloc in a storm while a
 *                   profiling timer's handler mallocs; prints how many
 *                   calls were re-entrant and fails if none was
 *   forkstorm T F   T threads allocate while main forks F times; each child
 *                   mallocs, calls setenv and exits
 *   fork-report HOW a report made inside chunkguard's fork handlers, which
 *                   must name the program's call of fork (fork_here, or
 *                   handler_fork) as its first frame, not the handler:
 *                   relock   main holds arena 0 and forks (deadlock);
 *                   timeout  a thread holds arena 0 for 3 s, main forks
 *                            (lock-wait-timeout);
 *                   signal   as timeout, but main's fork is interrupted:
 *                            the program's prepare handler raises SIGUSR1,
 *                            whose handler forks (issue 13, point 2)
 *   unnoted [noted] a thread takes arena 0's lock word and stops before it
 *                   notes itself as the holder (as a signal handler that
 *                   never returns would leave it), or with "noted" takes
 *                   the lock whole, then sleeps for good waiting for
 *                   libc's lock of a FILE that main holds (flockfile);
 *                   main waits for arena 0 (lock-wait-timeout, naming no
 *                   holder or that thread)
 *   fork-inside     multi-threaded; main's free holds arena 0 when a hook
 *                   raises SIGUSR1, whose handler forks (issue 13): the
 *                   fork's prepare handler finds its thread inside
 *                   chunkguard and reports at once
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "chunkguard.h"

static void die(const char *what)
{
    fprintf(stderr, "locktest: %s\n", what);
    exit(2);
}

static void *sym(const char *name)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    if (p == NULL) {
        fprintf(stderr, "locktest: %s missing: not a test build (CG_TEST_HOOKS=1)\n", name);
        exit(3);
    }
    return p;
}

static int (*lock_arena)(int);
static int (*unlock_arena)(int);

static void need_hooks(void)
{
    lock_arena = (int (*)(int))sym("cg_test_lock_arena");
    unlock_arena = (int (*)(int))sym("cg_test_unlock_arena");
}

/* ---- token-race --------------------------------------------------------- */

static atomic_int spawned, main_done;
static pthread_t racer;

static void *racer_main(void *arg)
{
    (void)arg;
    while (!atomic_load(&main_done))   /* main's free must end first */
        usleep(100);
    /* Uses the main arena while the main thread is still "inside" its
     * single-threaded free: a stray unlock would release our lock. */
    for (int i = 0; i < 20000; i++) {
        void *p = malloc(3000 + (i % 7) * 16);
        memset(p, 1, 16);
        free(p);
    }
    return NULL;
}

static void spawn_hook(int point, void *arg)
{
    (void)point;
    (void)arg;
    if (atomic_exchange(&spawned, 1) == 0 && pthread_create(&racer, NULL, racer_main, NULL) != 0)
        die("pthread_create");
}

static int token_race(void)
{
    void (*set_hook)(void (*)(int, void *)) =
        (void (*)(void (*)(int, void *)))sym("cg_test_set_hook");
    mallopt(M_ARENA_MAX, 1);     /* the new thread shares the main arena */
    void *big = malloc(5000);    /* above the tcache: freed through the arena */
    void *guard = malloc(64);    /* keeps it from merging into top */
    set_hook(spawn_hook);
    free(big);                   /* single-threaded: the lock is elided */
    set_hook(NULL);
    atomic_store(&main_done, 1);
    if (!atomic_load(&spawned))
        die("the hook did not run");
    for (int i = 0; i < 20000; i++) {
        void *p = malloc(3000 + (i % 5) * 16);
        memset(p, 2, 16);
        free(p);
    }
    pthread_join(racer, NULL);
    free(guard);
    printf("ok token-race: the elided lock was not released after the thread appeared\n");
    return 0;
}

/* ---- relock ------------------------------------------------------------- */

__attribute__((noinline)) static void relock_first(void)
{
    lock_arena(0);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void relock_second(void)
{
    lock_arena(0);
    __asm__ volatile("" ::: "memory");
}

static void *idle(void *arg)
{
    (void)arg;
    return NULL;
}

static int relock(void)
{
    need_hooks();
    pthread_t t;                 /* multi-threaded, as the lock's users are */
    pthread_create(&t, NULL, idle, NULL);
    pthread_join(t, NULL);
    relock_first();
    relock_second();             /* must report, not hang */
    printf("not reached\n");
    return 1;
}

/* ---- order -------------------------------------------------------------- */

typedef struct pair {
    int first, second;
} pair_t;

static void *take_two(void *arg)
{
    pair_t *p = arg;
    lock_arena(p->first);
    lock_arena(p->second);
    unlock_arena(p->second);
    unlock_arena(p->first);
    return NULL;
}

static void *make_arena(void *arg)
{
    (void)arg;
    free(malloc(100));           /* a new thread gets arena 1 */
    return NULL;
}

/* Hooks loaded and a second arena made (by a thread that exits). */
static void need_two_arenas(void)
{
    need_hooks();
    int (*arenas)(void) = (int (*)(void))sym("cg_test_arenas");
    pthread_t t;
    pthread_create(&t, NULL, make_arena, NULL);
    pthread_join(t, NULL);
    if (arenas() < 2)
        die("no second arena");
}

static int order(const char *how)
{
    need_two_arenas();
    pthread_t t;
    pair_t a = { 0, 1 }, b = { strcmp(how, "OPP") == 0 ? 1 : 0, strcmp(how, "OPP") == 0 ? 0 : 1 };
    /* One after the other: the graph finds the inversion without the two
     * threads ever deadlocking for real.  Twice, to see it reported once. */
    for (int round = 0; round < 2; round++) {
        pthread_create(&t, NULL, take_two, &a);
        pthread_join(t, NULL);
        pthread_create(&t, NULL, take_two, &b);
        pthread_join(t, NULL);
    }
    printf("ok order %s: both threads done\n", how);
    return 0;
}

/* ---- timeout ------------------------------------------------------------ */

static atomic_int holding;

__attribute__((noinline)) static void *hold_arena0(void *arg)
{
    (void)arg;
    lock_arena(0);
    atomic_store(&holding, 1);
    sleep(3);
    unlock_arena(0);
    return NULL;
}

static int timeout_test(void)
{
    need_hooks();
    free(malloc(5000));          /* single-threaded: main attaches to arena 0 */
    pthread_t t;
    pthread_create(&t, NULL, hold_arena0, NULL);
    while (!atomic_load(&holding))
        usleep(1000);
    void *p = malloc(5000);      /* the main thread's arena is arena 0 */
    free(p);
    pthread_join(t, NULL);
    printf("ok timeout: got the lock after its holder let go\n");
    return 0;
}

/* ---- chain -------------------------------------------------------------- */

static atomic_int chain_stage;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Holds arena 1 for a second without sleeping: it runs all the while. */
__attribute__((noinline)) static void *busy_arena1(void *arg)
{
    (void)arg;
    lock_arena(1);
    atomic_store(&chain_stage, 1);
    for (double end = now_s() + 1.0; now_s() < end;)
        ;
    unlock_arena(1);
    return NULL;
}

/* Takes arena 0, then sleeps waiting for arena 1 (declared order). */
__attribute__((noinline)) static void *middle_arena0(void *arg)
{
    (void)arg;
    while (atomic_load(&chain_stage) < 1)
        usleep(1000);
    lock_arena(0);
    atomic_store(&chain_stage, 2);
    lock_arena(1);
    unlock_arena(1);
    unlock_arena(0);
    return NULL;
}

static int chain_test(void)
{
    free(malloc(5000));          /* single-threaded: main attaches to arena 0 */
    need_two_arenas();
    pthread_t busy, middle;
    pthread_create(&busy, NULL, busy_arena1, NULL);
    pthread_create(&middle, NULL, middle_arena0, NULL);
    while (atomic_load(&chain_stage) < 2)
        usleep(1000);
    usleep(50000);               /* the middle thread is asleep on arena 1 now */
    double t0 = now_s();
    void *p = malloc(5000);      /* waits for arena 0 */
    free(p);
    double waited = now_s() - t0;
    pthread_join(busy, NULL);
    pthread_join(middle, NULL);
    if (waited < 0.5)
        die("main did not wait behind the chain (the test set-up is wrong)");
    printf("ok chain: waited %.2f s behind a running holder\n", waited);
    return 0;
}

/* A thread that takes arena 1, then (once main holds arena 0) arena 0. */
__attribute__((noinline)) static void *cycle_other(void *arg)
{
    (void)arg;
    lock_arena(1);
    atomic_store(&chain_stage, 1);
    while (atomic_load(&chain_stage) < 2)
        usleep(1000);
    lock_arena(0);
    return NULL;
}

static int cycle_test(void)
{
    need_two_arenas();
    pthread_t t;
    pthread_create(&t, NULL, cycle_other, NULL);
    while (atomic_load(&chain_stage) < 1)
        usleep(1000);
    lock_arena(0);
    atomic_store(&chain_stage, 2);
    usleep(20000);
    lock_arena(1);               /* never: the watchdog must report */
    printf("the deadlock went unnoticed\n");
    return 1;
}

/* ---- relay -------------------------------------------------------------- */

static atomic_int relay_stop;

static void spin_for(double secs)
{
    for (double end = now_s() + secs; now_s() < end;)
        ;
}

/* Holds arena 1 for 200 us of work, lets go and sleeps 300 us: the holder
 * a waiter reads may have let go and be asleep (in no lock of ours) by the
 * time the waiter asks the kernel how it is. */
__attribute__((noinline)) static void *relay_runner(void *arg)
{
    (void)arg;
    while (!atomic_load(&relay_stop)) {
        lock_arena(1);
        spin_for(0.0002);
        unlock_arena(1);
        usleep(300);
    }
    return NULL;
}

/* Holds arena 0 for secs, taking arena 1 (declared order) again and
 * again meanwhile: it waits for our lock or runs, never sleeps elsewhere. */
__attribute__((noinline)) static void *relay_middle(void *arg)
{
    double secs = *(const double *)arg;
    lock_arena(0);
    atomic_store(&chain_stage, 1);
    for (double end = now_s() + secs; now_s() < end;) {
        lock_arena(1);
        unlock_arena(1);
    }
    unlock_arena(0);
    return NULL;
}

static int relay_test(double secs)
{
    need_two_arenas();
    pthread_t run[3], middle;
    for (int i = 0; i < 3; i++)
        pthread_create(&run[i], NULL, relay_runner, NULL);
    pthread_create(&middle, NULL, relay_middle, &secs);
    while (atomic_load(&chain_stage) < 1)
        usleep(1000);
    double t0 = now_s();
    lock_arena(0);               /* waits for arena 0 (a malloc might pick another arena) */
    double waited = now_s() - t0;
    unlock_arena(0);
    atomic_store(&relay_stop, 1);
    for (int i = 0; i < 3; i++)
        pthread_join(run[i], NULL);
    pthread_join(middle, NULL);
    if (waited < secs / 2)
        die("main did not wait behind the relay (the test set-up is wrong)");
    printf("ok relay: waited %.2f s behind a moving chain\n", waited);
    return 0;
}

/* ---- held-assert -------------------------------------------------------- */

static int held_assert(void)
{
    int (*consolidate)(int) = (int (*)(int))sym("cg_test_consolidate_unlocked");
    pthread_t t;
    pthread_create(&t, NULL, idle, NULL);
    pthread_join(t, NULL);
    consolidate(0);
    printf("the contract break went unnoticed\n");
    return 1;
}

/* ---- signals ------------------------------------------------------------ */

static atomic_int stop;
static atomic_long handled;

static void on_prof(int sig)
{
    (void)sig;
    int saved = errno;
    char *p = malloc(40 + (size_t)(atomic_load(&handled) % 200));
    if (p != NULL) {
        p[0] = 'h';
        free(p);
    }
    void *q = calloc(3, 100);
    free(q);
    atomic_fetch_add(&handled, 1);
    errno = saved;
}

static void *storm(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    enum { SLOTS = 256 };
    unsigned char *slot[SLOTS] = { 0 };
    size_t len[SLOTS] = { 0 };
    while (!atomic_load(&stop)) {
        unsigned i = (seed = seed * 1103515245u + 12345u) >> 16 & (SLOTS - 1);
        if (slot[i] != NULL) {
            for (size_t k = 0; k < len[i]; k += 61)
                if (slot[i][k] != (unsigned char)(i + k))
                    die("a block's contents changed: silent corruption");
            if (seed & 0x100000) {
                size_t nl = 1 + (seed >> 8) % 3000;
                unsigned char *r = realloc(slot[i], nl);
                if (r == NULL)
                    die("realloc failed");
                slot[i] = r;
                for (size_t k = len[i]; k < nl; k += 61)
                    r[k] = (unsigned char)(i + k);
                len[i] = nl < len[i] ? nl : len[i];
                if (nl > len[i]) {
                    for (size_t k = 0; k < nl; k += 61)
                        r[k] = (unsigned char)(i + k);
                    len[i] = nl;
                }
            } else {
                free(slot[i]);
                slot[i] = NULL;
            }
        } else {
            size_t n = 1 + (seed >> 4) % ((seed & 0x10000) ? 200000 : 600);
            slot[i] = (seed & 0x20000) ? calloc(1, n) : malloc(n);
            if (slot[i] == NULL)
                die("malloc failed");
            len[i] = n;
            for (size_t k = 0; k < n; k += 61)
                slot[i][k] = (unsigned char)(i + k);
        }
    }
    for (unsigned i = 0; i < SLOTS; i++)
        free(slot[i]);
    return NULL;
}

static int signals(int nthreads, int secs)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_prof;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval it = { { 0, 200 }, { 0, 200 } };   /* every 200 µs of CPU */
    setitimer(ITIMER_PROF, &it, NULL);
    pthread_t t[16];
    if (nthreads > 16)
        nthreads = 16;
    for (int i = 0; i < nthreads; i++)
        pthread_create(&t[i], NULL, storm, (void *)(uintptr_t)(i + 7));
    pthread_t timer;
    struct timespec end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += secs;
    (void)timer;
    if (nthreads == 0) {
        /* single-threaded: the storm runs here, stopped by the clock */
        unsigned seed = 3;
        enum { SLOTS = 256 };
        void *slot[SLOTS] = { 0 };
        for (long n = 0;; n++) {
            if ((n & 1023) == 0) {
                struct timespec now;
                clock_gettime(CLOCK_MONOTONIC, &now);
                if (now.tv_sec > end.tv_sec ||
                    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
                    break;
            }
            unsigned i = (seed = seed * 1103515245u + 12345u) >> 16 & (SLOTS - 1);
            if (slot[i] != NULL) {
                if (*(unsigned *)slot[i] != i)
                    die("a block's contents changed: silent corruption");
                free(slot[i]);
                slot[i] = NULL;
            } else {
                size_t sz = 4 + (seed >> 4) % ((seed & 0x10000) ? 150000 : 700);
                slot[i] = malloc(sz);
                if (slot[i] == NULL)
                    die("malloc failed");
                *(unsigned *)slot[i] = i;
            }
        }
        for (unsigned i = 0; i < SLOTS; i++)
            free(slot[i]);
    } else {
        sleep((unsigned)secs);
        atomic_store(&stop, 1);
        for (int i = 0; i < nthreads; i++)
            pthread_join(t[i], NULL);
    }
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_PROF, &off, NULL);
    void (*stats)(cg_stats_t *) = (void (*)(cg_stats_t *))sym("cg_get_stats");
    cg_stats_t st;
    memset(&st, 0, sizeof st);
    stats(&st);
    printf("signals handled %ld, of them inside chunkguard (re-entrant calls) %llu\n",
           atomic_load(&handled), st.reentrant_calls);
    if (atomic_load(&handled) == 0)
        die("no signal was handled");
    if (st.reentrant_calls == 0)
        die("no signal landed inside chunkguard: the test proved nothing");
    /* the heap still works after it all */
    for (int i = 0; i < 1000; i++) {
        char *p = malloc(1 + i * 7);
        memset(p, 5, 1 + i * 7);
        free(p);
    }
    printf("ok signals threads=%d\n", nthreads);
    return 0;
}

/* ---- forkstorm ---------------------------------------------------------- */

static void *alloc_loop(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    void *keep[64] = { 0 };
    for (unsigned long n = 1; !atomic_load(&stop); n++) {
        /* bursts, so that the forking thread gets a core on a loaded
         * machine too: forks still land in the middle of bursts */
        if ((n & 511) == 0)
            usleep(200);
        unsigned i = (seed = seed * 1103515245u + 12345u) >> 16 & 63;
        free(keep[i]);
        /* mostly arena sizes; one in 256 a big (mmap'd) block */
        keep[i] = malloc(1 + (seed >> 3) % ((seed & 0xff00) == 0x4200 ? 300000 : 2000));
    }
    for (int i = 0; i < 64; i++)
        free(keep[i]);
    return NULL;
}

static int forkstorm(int nthreads, int forks)
{
    pthread_t t[32];
    if (nthreads > 32)
        nthreads = 32;
    for (int i = 0; i < nthreads; i++)
        pthread_create(&t[i], NULL, alloc_loop, (void *)(uintptr_t)(i + 1));
    for (int f = 0; f < forks; f++) {
        pid_t pid = fork();
        if (pid < 0)
            die("fork failed");
        if (pid == 0) {
            char *p = malloc(100 + (size_t)f % 5000);
            if (p == NULL)
                _exit(10);
            memset(p, 7, 100);
            char val[32];
            snprintf(val, sizeof val, "%d", f);
            if (setenv("CG_LOCKTEST_FORK", val, 1) != 0)
                _exit(11);
            free(p);
            exit(0);
        }
        int status;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "locktest: child %d of fork %d failed (status 0x%x)\n", (int)pid, f,
                    status);
            exit(1);
        }
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);
    printf("ok forkstorm threads=%d forks=%d\n", nthreads, forks);
    return 0;
}

/* ---- fork-report ---------------------------------------------------------- */

__attribute__((noinline)) static pid_t fork_here(void)
{
    pid_t pid = fork();
    __asm__ volatile("" ::: "memory");
    return pid;
}

__attribute__((noinline)) static pid_t handler_fork(void)
{
    pid_t pid = fork();
    __asm__ volatile("" ::: "memory");
    return pid;
}

static volatile sig_atomic_t raise_once;

static void on_usr1_fork(int sig)
{
    (void)sig;
    if (handler_fork() == 0)
        _exit(0);
}

static void prepare_raise(void)
{
    if (raise_once) {
        raise_once = 0;
        raise(SIGUSR1);          /* delivered now: fork is interrupted */
    }
}

static int fork_report(const char *how)
{
    need_hooks();
    free(malloc(5000));          /* single-threaded: main attaches to arena 0 */
    pthread_t t;
    if (strcmp(how, "relock") == 0) {
        pthread_create(&t, NULL, idle, NULL);       /* multi-threaded */
        pthread_join(t, NULL);
        relock_first();
    } else {
        pthread_create(&t, NULL, hold_arena0, NULL);
        while (!atomic_load(&holding))
            usleep(1000);
        if (strcmp(how, "signal") == 0) {
            signal(SIGUSR1, on_usr1_fork);
            pthread_atfork(prepare_raise, NULL, NULL);
            raise_once = 1;
        }
    }
    if (fork_here() == 0)        /* must report, not go through */
        _exit(0);
    printf("not reached\n");
    return 1;
}

/* ---- unnoted, fork-inside ------------------------------------------------ */

static FILE *held_file;
static atomic_int unnoted_taken;

__attribute__((noinline)) static void *take_unnoted(void *arg)
{
    if (arg != NULL) {
        lock_arena(0);
    } else {
        int (*take)(int) = (int (*)(int))sym("cg_test_take_arena_unnoted");
        if (take(0) != 0)
            die("arena 0 was held");
    }
    atomic_store(&unnoted_taken, 1);
    flockfile(held_file);        /* main holds it: libc's lock, for good */
    return NULL;
}

static int unnoted(int noted)
{
    need_hooks();
    free(malloc(5000));          /* single-threaded: main attaches to arena 0 */
    held_file = tmpfile();
    if (held_file == NULL)
        die("tmpfile");
    flockfile(held_file);
    pthread_t t;
    pthread_create(&t, NULL, take_unnoted, noted ? (void *)1 : NULL);
    while (!atomic_load(&unnoted_taken))
        usleep(1000);
    void *p = malloc(5000);      /* must report, not hang */
    free(p);
    printf("not reached\n");
    return 1;
}

static volatile sig_atomic_t raise_in_free;

static void raise_hook(int point, void *arg)
{
    (void)arg;
    if (point == 1 && raise_in_free) {       /* CG_HOOK_ARENA_FREE_LOCKED */
        raise_in_free = 0;
        raise(SIGUSR1);
    }
}

static int fork_inside(void)
{
    need_hooks();
    void (*set_hook)(void (*)(int, void *)) =
        (void (*)(void (*)(int, void *)))sym("cg_test_set_hook");
    pthread_t t;                 /* multi-threaded: the free takes its lock */
    pthread_create(&t, NULL, idle, NULL);
    pthread_join(t, NULL);
    signal(SIGUSR1, on_usr1_fork);
    void *keep = malloc(5000), *p = malloc(5000);   /* beyond the tcache's sizes */
    set_hook(raise_hook);
    raise_in_free = 1;
    free(p);                     /* must report, not hang or deadlock */
    set_hook(NULL);
    free(keep);
    printf("not reached\n");
    return 1;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc < 2)
        die("usage: locktest TEST [ARGS]");
    const char *t = argv[1];
    if (strcmp(t, "token-race") == 0)
        return token_race();
    if (strcmp(t, "relock") == 0)
        return relock();
    if (strcmp(t, "order") == 0 && argc > 2)
        return order(argv[2]);
    if (strcmp(t, "timeout") == 0)
        return timeout_test();
    if (strcmp(t, "chain") == 0)
        return chain_test();
    if (strcmp(t, "cycle") == 0)
        return cycle_test();
    if (strcmp(t, "relay") == 0 && argc > 2)
        return relay_test(atof(argv[2]));
    if (strcmp(t, "held-assert") == 0)
        return held_assert();
    if (strcmp(t, "signals") == 0 && argc > 3)
        return signals(atoi(argv[2]), atoi(argv[3]));
    if (strcmp(t, "forkstorm") == 0 && argc > 3)
        return forkstorm(atoi(argv[2]), atoi(argv[3]));
    if (strcmp(t, "fork-report") == 0 && argc > 2)
        return fork_report(argv[2]);
    if (strcmp(t, "unnoted") == 0)
        return unnoted(argc > 2 && strcmp(argv[2], "noted") == 0);
    if (strcmp(t, "fork-inside") == 0)
        return fork_inside();
    die("unknown test");
    return 2;
}
