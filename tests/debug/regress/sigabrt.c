/* Regression test from the debug-mode break test of 2026-11-30 (docs: the issue 3 note). */
/* A test harness that catches SIGABRT with siglongjmp (per-thread jump
 * buffers) and expects every bug to be reported.  Thread A commits a
 * double free (caught), then thread B commits one.  Neither report, nor
 * main's exit, waits for the end of a report whose thread went on. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static __thread sigjmp_buf *jbp;
static volatile int caught;
static void on_abrt(int s) { (void)s; caught++; siglongjmp(*jbp, 1); }
static void *bug(void *a) {
    (void)a;
    sigjmp_buf jb;
    jbp = &jb;
    if (sigsetjmp(jb, 1) == 0) { char *p = malloc(8); free(p); free(p); }
    return NULL;
}
int main(void) {
    signal(SIGABRT, on_abrt);
    alarm(2);   /* each thread that went on once cost a 2 s wait */
    for (int i = 0; i < 2; i++) {
        pthread_t th;
        pthread_create(&th, NULL, bug, NULL);
        pthread_join(th, NULL);
        printf("after thread %d: caught %d\n", i, caught); fflush(stdout);
    }
    return 0;
}
