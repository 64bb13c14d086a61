/*
 * threads.c — debug mode's detections across threads, and the
 * quarantine's budget with per-thread batches (issue 15, points 3 and 4).
 *
 *   threads df-xthread     thread T1 frees a block, the main thread frees
 *                          it again: double-free, freed by thread T1
 *   threads uaf-xthread    T1 frees a block, the main thread writes into it
 *                          and then frees enough to push it out of the
 *                          quarantine: heap-use-after-free when it leaves
 *   threads uaf-exited     T1 frees a block and exits; the main thread
 *                          writes into it and returns from main: the block
 *                          (moved from T1's batch when T1 exited) is found
 *                          at exit
 *   threads uaf-live-thread  T1 frees a block and waits (alive, its batch
 *                          unflushed); the main thread writes into it and
 *                          returns from main: found at exit, in T1's batch
 *   threads df-cached-xthread  T1 frees a block, pushes it out of the
 *                          quarantine into its cache of released chunks
 *                          and waits (alive); the main thread frees it
 *                          again: double-free, freed by thread T1
 *   threads budget MB      8 threads free 1 GiB in all (blocks of 1-3 KiB)
 *                          while each watches what the quarantine holds
 *                          (cg_test_quarantine_usage of a test build): it
 *                          must never exceed MB MiB plus one batch per
 *                          thread (cg_test_quarantine_batch_limit), and
 *                          once they have exited, MB MiB plus the main
 *                          thread's batch; prints
 *                          "budget ok <max bytes> <bound>" and exits 0, or
 *                          says what was over and exits 1
 *   threads short N        N short threads, one after another, each
 *                          allocating and freeing a block: what a thread's
 *                          start and exit cost in system calls (the suite
 *                          counts them with strace)
 *   threads trim MB        one thread frees 256 MiB (blocks of 1-3 KiB,
 *                          each filled) through a quarantine of MB MiB; the
 *                          blocks that left it must have left a batch at a
 *                          time, their records unread by the trim (a test
 *                          build's cg_test_quarantine_trim_reads: at most
 *                          one read per 64 blocks that left), and what it
 *                          holds at the end must be within a batch of MB
 *                          MiB (cg_test_quarantine_usage); prints "trim ok
 *                          <reads> <blocks left> <held>" and exits 0, or
 *                          says what was wrong and exits 1
 *   threads race-free SIZE  (a test build) the main thread frees a block
 *                          of SIZE bytes; a hook (cg_test_set_hook,
 *                          CG_HOOK_DBG_GIVE_BACK) in its release, between
 *                          the record's unbind and the core's free, lets 3
 *                          threads free it again there and waits: each
 *                          must report a double free (SIGABRT at the
 *                          first); a free of theirs that returns (it won
 *                          too) prints "two frees won" and exits 1
 *   threads race-stale SIZE WHERE  (a test build) a thread frees a block
 *                          of SIZE bytes and is held (hooks) after its
 *                          lookup of the record (WHERE "looked") or just
 *                          before its claim ("claim") while the main
 *                          thread frees the block, which goes back to the
 *                          core at once (quarantine_mb=0); "recycled":
 *                          the main thread then mallocs a block q that
 *                          gets the freed record, lets the held free claim
 *                          q's record for a moment and frees q.  The held
 *                          free must report a double free of the block
 *                          (SIGABRT), after "q freed"; "fork": as
 *                          "recycled", and while q's record is claimed a
 *                          child frees q: it must end ("child ended
 *                          STATUS"), not wait for the thread it lacks
 *   threads race-stale SIZE WHERE OP  as above with the held call OP:
 *                          "realloc" (realloc(p, 2 * SIZE)) or "usable"
 *                          (malloc_usable_size(p), held after its lookup
 *                          in "looked" and "recycled" alike; "recycled"
 *                          prints "q 0x..." and lets it go once q is
 *                          made): the held call must report p freed
 *                          (SIGABRT), naming neither q nor a bogus region
 *   threads race-report WHERE  (a test build) T1 frees a pointer 8 bytes
 *                          into a live 100-byte block b; a hook
 *                          (CG_HOOK_DBG_REPORT) holds its report while it
 *                          reads b's record, and the main thread frees b
 *                          (back to the core at once, quarantine_mb=0:
 *                          the record unbound, WHERE "unbound") and then
 *                          mallocs 400 bytes, which gets the record
 *                          ("recycled").  The report (invalid-free, T1)
 *                          must describe b as it was or no block: never a
 *                          bogus region, never the 400-byte block
 * The double free and the write after free end the process with the
 * report (SIGABRT); the others exit 0.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <malloc.h>

static char *volatile shared;

static void *free_shared(void *arg)
{
    free(shared);
    return arg;
}

static pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t freed_cv = PTHREAD_COND_INITIALIZER;
static int freed_flag;

/* Free shared, say so, and wait for the process to end.  arg non-NULL:
 * then free 1.4 MB of blocks below a page made before (nothing is
 * allocated after shared's free), so that shared leaves the 1 MiB
 * quarantine into this thread's cache of released chunks. */
static void *free_shared_and_stay(void *arg)
{
    char *more[700];
    size_t n = arg != NULL ? 700 : 0;
    for (size_t i = 0; i < n; i++)
        if ((more[i] = malloc(2000)) == NULL)
            exit(4);
    free(shared);
    for (size_t i = 0; i < n; i++)
        free(more[i]);
    pthread_mutex_lock(&hold);
    freed_flag = 1;
    pthread_cond_signal(&freed_cv);
    pthread_mutex_unlock(&hold);
    for (;;)
        pause();
    return arg;
}

/* T1 frees shared (and exits). */
static void free_on_other_thread(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, free_shared, NULL) != 0 || pthread_join(t, NULL) != 0)
        exit(3);
}

/* Free many fresh blocks on this thread: past any budget the tests use. */
static void churn(size_t mb)
{
    for (size_t i = 0; i < mb * 1024; i++) {
        char *p = malloc(1000);
        if (p == NULL)
            exit(4);
        p[0] = 1;
        free(p);
    }
}

#define THREADS 8
#define TOTAL ((size_t)1 << 30)

static void (*usage_fn)(size_t *bytes, size_t *blocks);
static size_t bound;

typedef struct worker {
    pthread_t t;
    unsigned seed;
    size_t max;            /* the most the quarantine held, seen after a free */
} worker_t;

static void *budget_worker(void *arg)
{
    worker_t *w = arg;
    size_t freed = 0;
    while (freed < TOTAL / THREADS) {
        size_t n = 1000 + (size_t)(rand_r(&w->seed) % 2048);
        char *p = malloc(n);
        if (p == NULL)
            exit(4);
        memset(p, 0x5a, n);
        free(p);
        freed += n;
        size_t bytes, blocks;
        usage_fn(&bytes, &blocks);
        if (bytes > w->max)
            w->max = bytes;
    }
    return NULL;
}

static void *short_body(void *arg)
{
    char *p = malloc(100);
    if (p == NULL)
        exit(4);
    p[0] = 1;
    free(p);
    return arg;
}

/* threads short N (see the file comment). */
static int short_threads(int n)
{
    for (int i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, short_body, NULL) != 0 || pthread_join(t, NULL) != 0)
            return 3;
    }
    puts("short ok");
    return 0;
}

/* threads trim MB (see the file comment). */
static int trim(size_t mb)
{
    size_t (*reads_fn)(void) = (size_t (*)(void))dlsym(RTLD_DEFAULT,
                                                      "cg_test_quarantine_trim_reads");
    size_t (*limit_fn)(size_t) = (size_t (*)(size_t))dlsym(RTLD_DEFAULT,
                                                            "cg_test_quarantine_batch_limit");
    usage_fn = (void (*)(size_t *, size_t *))dlsym(RTLD_DEFAULT, "cg_test_quarantine_usage");
    if (reads_fn == NULL || limit_fn == NULL || usage_fn == NULL) {
        puts("no test build: cg_test_quarantine_trim_reads missing");
        return 1;
    }
    size_t budget_bytes = mb << 20, limit = limit_fn(budget_bytes);
    unsigned seed = 7;
    size_t freed = 0, blocks = 0;
    while (freed < (size_t)256 << 20) {
        size_t n = 1000 + (size_t)(rand_r(&seed) % 2048);
        char *p = malloc(n);
        if (p == NULL)
            exit(4);
        memset(p, 0x5a, n);
        free(p);
        freed += n;
        blocks++;
    }
    size_t held, nheld, reads = reads_fn();
    usage_fn(&held, &nheld);
    size_t left = blocks - nheld;
    /* held: between the budget less one batch (whole batches leave) and
     * the budget plus this thread's batch */
    if (reads > left / 64 || held + limit + 4096 < budget_bytes || held > budget_bytes + limit + 4096) {
        printf("trim wrong: %zu records read for %zu blocks that left; %zu bytes held "
               "(budget %zu, batch %zu)\n", reads, left, held, budget_bytes, limit);
        return 1;
    }
    printf("trim ok %zu %zu %zu\n", reads, left, held);
    return 0;
}

static int budget(size_t mb)
{
    size_t (*limit_fn)(size_t) = (size_t (*)(size_t))dlsym(RTLD_DEFAULT,
                                                            "cg_test_quarantine_batch_limit");
    usage_fn = (void (*)(size_t *, size_t *))dlsym(RTLD_DEFAULT, "cg_test_quarantine_usage");
    if (usage_fn == NULL || limit_fn == NULL) {
        puts("no test build: cg_test_quarantine_usage missing");
        return 2;
    }
    size_t budget_bytes = mb << 20;
    /* A batch holds less than its limit between frees; the free that
     * fills it may take it past by one block (under 4 KiB here) before
     * it is spliced into the FIFO, which is trimmed to the budget in the
     * same step.  What another thread reads meanwhile is at most that. */
    size_t limit = limit_fn(budget_bytes);
    bound = budget_bytes + (THREADS + 1) * (limit + 4096);   /* the main thread's too */
    worker_t w[THREADS];
    for (unsigned i = 0; i < THREADS; i++) {
        w[i] = (worker_t){ .seed = 12345u + i };
        if (pthread_create(&w[i].t, NULL, budget_worker, &w[i]) != 0)
            return 3;
    }
    size_t max = 0;
    for (unsigned i = 0; i < THREADS; i++) {
        pthread_join(w[i].t, NULL);
        if (w[i].max > max)
            max = w[i].max;
    }
    size_t bytes, blocks;
    usage_fn(&bytes, &blocks);
    /* the workers' batches went to the FIFO when they exited: the FIFO is
     * within the budget, the main thread's batch within its limit */
    if (max > bound || bytes > budget_bytes + limit) {
        printf("budget over: max %zu bound %zu; after the threads' exits %zu (budget %zu)\n",
               max, bound, bytes, budget_bytes);
        return 1;
    }
    printf("budget ok %zu %zu\n", max, bound);
    return 0;
}

static void *volatile race_block;
static int in_gap;                    /* the main thread's free is in the gap */
static int returned;                  /* frees of race_block that returned    */

/* In the main thread's release of race_block, between its two steps: let
 * the other threads free it, and wait for a free of theirs to return (it
 * won too: the bug) or for their report to end the process. */
static void race_hook(int point, void *arg)
{
    if (point != 2 || arg != race_block)          /* CG_HOOK_DBG_GIVE_BACK */
        return;
    __atomic_store_n(&in_gap, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 300; i++) {               /* 0.3 s at most */
        if (__atomic_load_n(&returned, __ATOMIC_ACQUIRE) > 0) {
            static const char msg[] = "two frees won\n";
            (void)!write(1, msg, sizeof msg - 1);
            _exit(1);
        }
        usleep(1000);
    }
}

static void *race_go(void *arg)
{
    while (!__atomic_load_n(&in_gap, __ATOMIC_ACQUIRE))
        usleep(100);
    free(race_block);                 /* the double free, in the gap */
    __atomic_add_fetch(&returned, 1, __ATOMIC_RELEASE);
    return arg;
}

static int race_free(size_t n)
{
    void (*set_hook)(void (*)(int, void *)) =
        (void (*)(void (*)(int, void *)))dlsym(RTLD_DEFAULT, "cg_test_set_hook");
    if (set_hook == NULL) {
        puts("no test build: cg_test_set_hook missing");
        return 2;
    }
    race_block = malloc(n);
    if (race_block == NULL)
        return 4;
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        if (pthread_create(&t[i], NULL, race_go, NULL) != 0)
            return 3;
    set_hook(race_hook);
    free(race_block);                 /* the winner */
    if (!__atomic_load_n(&in_gap, __ATOMIC_ACQUIRE)) {
        puts("the release never reached the hook");
        return 1;
    }
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    puts("no report");
    return 1;
}

/* threads race-stale SIZE WHERE: a free that looked p's record up
 * before p's block went back to the core.  WHERE: "looked" (the hook just
 * after block_to_release's lookup), "claim" (just before cg_dbg_claim) or
 * "recycled" (before the claim, and the block's record then given to a
 * new block q, which the main thread frees while the stale free holds
 * q's record claimed for a moment). */
static void *volatile stale_p, *volatile stale_q;
static pthread_t stale_thread;
static int stale_point;               /* the hook point the thread stops at */
static size_t stale_n;                /* the block's size                  */
static int stale_in, stale_go;        /* the thread is held; let it go     */
static int stale_hold_ms = 1000;      /* held that long at most            */

/* Hold the stale thread at stale_point (point 5, CG_HOOK_DBG_CLAIMED, in
 * "recycled" too) until the main thread is done, stale_hold_ms at most
 * (past the fork child's 3 s in "fork"). */
static void stale_hook(int point, void *arg)
{
    if (!pthread_equal(pthread_self(), stale_thread) || arg != stale_p)
        return;
    if (point != stale_point && !(point == 5 && stale_q != NULL))
        return;
    int in = __atomic_add_fetch(&stale_in, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < stale_hold_ms && __atomic_load_n(&stale_go, __ATOMIC_ACQUIRE) < in; i++)
        usleep(1000);
}

static int stale_op;                  /* 0 free, 1 realloc, 2 malloc_usable_size */

static void *stale_free(void *arg)
{
    if (stale_op == 1) {
        (void)!realloc(stale_p, 2 * stale_n);
    } else if (stale_op == 2) {
        char msg[64];
        int k = snprintf(msg, sizeof msg, "usable returned %zu\n", malloc_usable_size(stale_p));
        (void)!write(1, msg, (size_t)k);
        return arg;
    } else {
        free(stale_p);                /* the double free, looked up early */
    }
    static const char msg[] = "the stale free returned\n";
    (void)!write(1, msg, sizeof msg - 1);
    return arg;
}

static void wait_in(int n)
{
    for (int i = 0; i < 2000 && __atomic_load_n(&stale_in, __ATOMIC_ACQUIRE) < n; i++)
        usleep(500);
}

static int race_stale(size_t n, const char *where, const char *op)
{
    void (*set_hook)(void (*)(int, void *)) =
        (void (*)(void (*)(int, void *)))dlsym(RTLD_DEFAULT, "cg_test_set_hook");
    if (set_hook == NULL) {
        puts("no test build: cg_test_set_hook missing");
        return 2;
    }
    bool forked = strcmp(where, "fork") == 0;
    bool recycled = forked || strcmp(where, "recycled") == 0;
    if (forked)
        stale_hold_ms = 5000;
    stale_op = strcmp(op, "realloc") == 0 ? 1 : strcmp(op, "usable") == 0 ? 2 : 0;
    stale_n = n;
    /* CG_HOOK_DBG_LOOKED_UP, _CLAIM (malloc_usable_size claims nothing) */
    stale_point = strcmp(where, "looked") == 0 || stale_op == 2 ? 3 : 4;
    stale_p = malloc(n);
    if (stale_p == NULL)
        return 4;
    set_hook(stale_hook);
    if (pthread_create(&stale_thread, NULL, stale_free, NULL) != 0)
        return 3;
    wait_in(1);
    if (__atomic_load_n(&stale_in, __ATOMIC_ACQUIRE) < 1) {
        puts("the stale free never reached the hook");
        return 1;
    }
    free(stale_p);                    /* the winner: back to the core at once */
    if (stale_op == 2) {
        if (recycled) {
            stale_q = malloc(4 * n);  /* p's record recycled for q */
            printf("q %p\n", stale_q);
            fflush(stdout);
        }
        __atomic_store_n(&stale_go, 2, __ATOMIC_RELEASE);
        pthread_join(stale_thread, NULL);
        puts("no report");
        return 1;
    }
    if (recycled) {
        stale_q = malloc(4 * n);      /* another chunk, p's record recycled */
        __atomic_store_n(&stale_go, 1, __ATOMIC_RELEASE);
        wait_in(2);                   /* the stale free holds q's record */
        if (forked) {
            /* a child forked now has q's record claimed by a thread it
             * does not have: its free of q must end, not wait for ever */
            fflush(stdout);
            pid_t pid = fork();
            if (pid == 0) {
                free(stale_q);
                _exit(0);
            }
            int st = 0, i = 0;
            while (waitpid(pid, &st, WNOHANG) == 0 && i++ < 300)
                usleep(10000);            /* 3 s at most */
            if (i > 300) {
                kill(pid, SIGKILL);
                waitpid(pid, &st, 0);
                puts("the child's free hung");
            } else {
                printf("child ended %d\n", WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st));
            }
            fflush(stdout);
        }
        free(stale_q);                /* q's only free */
        puts("q freed");
        fflush(stdout);
    }
    __atomic_store_n(&stale_go, 2, __ATOMIC_RELEASE);
    pthread_join(stale_thread, NULL);
    puts("no report");
    return 1;
}

/* threads race-report WHERE (see the top) */
static void *volatile rep_p;
static pthread_t rep_thread;
static int rep_in, rep_go;

static void report_hook(int point, void *arg)
{
    (void)arg;                                    /* the record */
    if (point != 6 || !pthread_equal(pthread_self(), rep_thread))   /* CG_HOOK_DBG_REPORT */
        return;
    __atomic_store_n(&rep_in, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 2000 && !__atomic_load_n(&rep_go, __ATOMIC_ACQUIRE); i++)
        usleep(1000);
}

static void *report_free(void *arg)
{
    rep_thread = pthread_self();      /* before the hook can run in this thread */
    free(rep_p);                      /* the interior pointer: invalid-free */
    return arg;
}

static int race_report(const char *where)
{
    void (*set_hook)(void (*)(int, void *)) =
        (void (*)(void (*)(int, void *)))dlsym(RTLD_DEFAULT, "cg_test_set_hook");
    if (set_hook == NULL) {
        puts("no test build: cg_test_set_hook missing");
        return 2;
    }
    char *b = malloc(100);
    if (b == NULL)
        return 4;
    rep_p = b + 8;
    set_hook(report_hook);
    pthread_t t;
    if (pthread_create(&t, NULL, report_free, NULL) != 0)
        return 3;
    for (int i = 0; i < 2000 && !__atomic_load_n(&rep_in, __ATOMIC_ACQUIRE); i++)
        usleep(500);
    if (!__atomic_load_n(&rep_in, __ATOMIC_ACQUIRE)) {
        puts("the report never reached the hook");
        return 1;
    }
    free(b);                          /* b's record unbound under the report */
    if (strcmp(where, "recycled") == 0) {
        char *c = malloc(400);        /* ... and bound to c */
        printf("c %p\n", (void *)c);
    }
    fflush(stdout);
    __atomic_store_n(&rep_go, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    puts("no report");
    return 1;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "df-xthread") == 0) {
        shared = malloc(48);
        free_on_other_thread();
        free(shared);                 /* the double free */
        return 0;
    }
    if (strcmp(what, "uaf-xthread") == 0) {
        shared = malloc(48);
        free_on_other_thread();
        shared[7] = 'x';              /* the write after free */
        churn(64);
        return 0;
    }
    if (strcmp(what, "uaf-exited") == 0) {
        shared = malloc(48);
        free_on_other_thread();
        shared[9] = 'x';
        return 0;
    }
    bool cached = strcmp(what, "df-cached-xthread") == 0;
    if (strcmp(what, "uaf-live-thread") == 0 || cached) {
        shared = malloc(48);
        pthread_t t;
        if (pthread_create(&t, NULL, free_shared_and_stay, cached ? &t : NULL) != 0)
            return 3;
        pthread_mutex_lock(&hold);
        while (!freed_flag)
            pthread_cond_wait(&freed_cv, &hold);
        pthread_mutex_unlock(&hold);
        if (cached)
            free(shared);             /* the double free */
        else
            shared[5] = 'x';
        return 0;                     /* exit() checks the quarantine */
    }
    if (strcmp(what, "race-stale") == 0 && argc > 3)
        return race_stale((size_t)strtoul(argv[2], NULL, 10), argv[3], argc > 4 ? argv[4] : "free");
    if (strcmp(what, "race-report") == 0 && argc > 2)
        return race_report(argv[2]);
    if (strcmp(what, "race-free") == 0 && argc > 2)
        return race_free((size_t)strtoul(argv[2], NULL, 10));
    if (strcmp(what, "budget") == 0 && argc > 2)
        return budget((size_t)strtoul(argv[2], NULL, 10));
    if (strcmp(what, "short") == 0 && argc > 2)
        return short_threads((int)strtol(argv[2], NULL, 10));
    if (strcmp(what, "trim") == 0 && argc > 2)
        return trim((size_t)strtoul(argv[2], NULL, 10));
    fprintf(stderr, "usage: threads {df-xthread|uaf-xthread|uaf-exited|budget MB}\n");
    return 2;
}
