/*
 * report_stuck.c — the watchdog's report about a holder that is itself
 * inside a report (issue 13, points 1 and 3).  Thread H takes arena 0's
 * lock (the test build's cg_test_lock_arena) and then frees a block twice;
 * its report's callback never returns, so H keeps the arena lock and the
 * report lock for good.  Main then waits for arena 0: after
 * deadlock_timeout_ms its lock-wait-timeout report about H must be
 * written, although the report lock is H's (the reporter must not wait for
 * a lock held by the thread it reports), and the process must end in
 * chunkguard's abort.  Prints "holder tid N" first.  Run on the test build (CG_TEST_HOOKS=1), with
 * deadlock_timeout_ms set.  Exit 1: main got the lock (not expected).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "chunkguard.h"

static atomic_int holder_in_callback;
static __thread int is_holder;

static void *sym(const char *name)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    if (p == NULL) {
        fprintf(stderr, "report_stuck: %s missing: not a test build\n", name);
        exit(3);
    }
    return p;
}

static void stuck_callback(const cg_report_t *report, void *arg)
{
    (void)report;
    (void)arg;
    if (!is_holder)
        return;                                /* main's report: let it end */
    atomic_store(&holder_in_callback, 1);
    for (;;)
        pause();                               /* H never leaves its report */
}

static int (*lock_arena)(int);

static void *holder(void *arg)
{
    (void)arg;
    char *volatile p = malloc(48);
    is_holder = 1;
    printf("holder tid %d\n", (int)gettid());
    lock_arena(0);
    free(p);
    free(p);                                   /* the report whose callback hangs */
    return NULL;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    lock_arena = (int (*)(int))sym("cg_test_lock_arena");
    void (*set_cb)(cg_report_callback_t, void *) =
        (void (*)(cg_report_callback_t, void *))sym("cg_set_report_callback");
    set_cb(stuck_callback, NULL);
    pthread_t h;
    pthread_create(&h, NULL, holder, NULL);
    while (!atomic_load(&holder_in_callback))
        usleep(1000);
    lock_arena(0);                             /* the watchdog reports H */
    printf("report_stuck: main took arena 0's lock\n");
    return 1;
}
