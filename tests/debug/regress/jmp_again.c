/* Regression test from the break test of issue 14 (lost reports): a test
 * framework that catches SIGABRT, or a report callback, and siglongjmps
 * out of the report must still get a report for every later bug of the
 * same thread, and other threads' reports must not wait for it.
 *   jmp_again abort     three double frees, each caught (SIGABRT ->
 *                       siglongjmp), then a fourth one, also caught; prints
 *                       "recovered N" for each, "done" at the end
 *   jmp_again callback  the same, the report callback longjmps instead
 *   jmp_again thread    one caught in main, then a worker thread's double
 *                       free, caught in the worker: prints the time the
 *                       worker's report took (ms)
 *   jmp_again callback-thread  the same with the callback's longjmp
 *   jmp_again fault     four writes after free (guard mode: each a fault,
 *                       reported from the fault handler), each caught
 * Build -O0 -fno-builtin (the frees must stay), run preloaded. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "chunkguard.h"

static __thread sigjmp_buf *jbp;
static void on_abrt(int s) { (void)s; siglongjmp(*jbp, 1); }
static void on_report(const cg_report_t *r, void *a) { (void)r; (void)a; siglongjmp(*jbp, 1); }

static void df(size_t n)
{
    char *p = malloc(n);
    free(p);
    free(p);
}

static void write_after_free(size_t n)
{
    volatile char *p = malloc(n);
    free((void *)p);
    p[0] = 1;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void *worker(void *a)
{
    (void)a;
    sigjmp_buf jb;
    jbp = &jb;
    double t0 = now_ms();
    if (!sigsetjmp(jb, 1)) {
        df(24);
        fprintf(stderr, "worker free returned\n");
    } else {
        fprintf(stderr, "worker recovered after %d ms\n", (int)(now_ms() - t0));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "abort";
    sigjmp_buf jb;
    jbp = &jb;
    signal(SIGABRT, on_abrt);
    if (strstr(how, "callback") != NULL) {     /* the preloaded library's */
        void (*set)(cg_report_callback_t, void *) =
            (void (*)(cg_report_callback_t, void *))dlsym(RTLD_DEFAULT, "cg_set_report_callback");
        if (set == NULL)
            return 2;
        set(on_report, NULL);
    }
    int rounds = strstr(how, "thread") != NULL ? 1 : 4;
    for (volatile int i = 0; i < rounds; i++) {
        if (!sigsetjmp(jb, 1)) {
            if (strstr(how, "fault") != NULL)
                write_after_free(40 + (size_t)i * 100);
            else
                df(40 + (size_t)i * 100);
            fprintf(stderr, "free returned %d\n", i);
        } else {
            fprintf(stderr, "recovered %d\n", i);
        }
    }
    if (strstr(how, "thread") != NULL) {
        pthread_t t;
        pthread_create(&t, NULL, worker, NULL);
        pthread_join(t, NULL);
    }
    /* the thread's allocations still work after the jumps */
    for (int i = 0; i < 1000; i++)
        free(malloc((size_t)i));
    fprintf(stderr, "done\n");
    return 0;
}
