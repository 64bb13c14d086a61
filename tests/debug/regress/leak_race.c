/* Regression test from the debug-mode break test of 2026-11-30 (docs: the issue 3 note). */
/* A legit program: threads keep replacing big blocks referenced from a
 * global array; main exits while they run.  detect_leaks=1. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static void *volatile g[64];
static void *spin(void *arg) {
    unsigned s = (unsigned)(long)arg;
    for (;;) {
        s = s * 1103515245 + 12345;
        int i = (s >> 8) % 64;
        size_t n = 300000 + (s >> 12) % 2000000;
        void *p = malloc(n);
        if (p) memset(p, 0, 64);
        void *old = __atomic_exchange_n(&g[i], p, __ATOMIC_ACQ_REL);
        free(old);
    }
    return NULL;
}
int main(int argc, char **argv) {
    pthread_t t;
    for (int i = 0; i < 2; i++) pthread_create(&t, NULL, spin, (void *)(long)(i + 1));
    usleep(argc > 1 ? atoi(argv[1]) : 50000);
    exit(0);
}
