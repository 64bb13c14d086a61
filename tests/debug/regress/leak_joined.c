/* Regression test from the debug-mode break test of 2026-11-30 (docs: the issue 3 note). */
/* A legit program without leaks: threads that use TLS, joined before exit. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static __thread char tlsbuf[64];
static void *work(void *a) { tlsbuf[0] = 1; void *p = malloc(100); free(p); return a; }
int main(void) {
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    puts("done");
    return 0;
}
