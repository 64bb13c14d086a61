/* Regression test from the debug-mode break test of 2026-11-30 (docs: the issue 3 note). */
/* fork while other threads allocate (and optionally dlopen/dlclose);
 * the child allocates, frees, optionally commits a bug, then exits. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile int stop;
static void *spin(void *arg) {
    unsigned s = (unsigned)(long)arg;
    void *keep[32] = {0};
    while (!stop) {
        s = s * 1103515245 + 12345;
        int i = (s >> 8) % 32;
        free(keep[i]);
        keep[i] = malloc((s >> 16) % 3 == 0 ? 150000 : (s >> 4) % 3000);
    }
    for (int i = 0; i < 32; i++) free(keep[i]);
    return NULL;
}
static void *dl(void *arg) {
    (void)arg;
    while (!stop) {
        void *h = dlopen((rand() & 1) ? "libm.so.6" : "libz.so.1", RTLD_NOW | RTLD_LOCAL);
        if (h) dlclose(h);
    }
    return NULL;
}
int main(int argc, char **argv) {
    int nforks = argc > 1 ? atoi(argv[1]) : 50;
    int bug = argc > 2 ? atoi(argv[2]) : 0;
    int use_dl = argc > 3 ? atoi(argv[3]) : 1;
    pthread_t t[4];
    for (int i = 0; i < 3; i++) pthread_create(&t[i], NULL, spin, (void *)(long)(i + 7));
    if (use_dl) pthread_create(&t[3], NULL, dl, NULL);
    int bad = 0;
    for (int f = 0; f < nforks; f++) {
        pid_t pid = fork();
        if (pid == 0) {
            for (int i = 0; i < 200; i++) { char *p = malloc(i * 13 + 1); p[0] = 1; free(p); }
            if (bug == 1) { char *p = malloc(10); free(p); free(p); }
            if (bug == 2) { char *p = malloc(10); p[10] = 1; free(p); }
            if (argc > 4 && atoi(argv[4])) { void *h = dlopen("libm.so.6", RTLD_NOW); if (h) dlclose(h); }
            _exit(0);
        }
        int st;
        alarm(20);
        waitpid(pid, &st, 0);
        alarm(0);
        int want = bug ? (WIFSIGNALED(st) && WTERMSIG(st) == 6) : (WIFEXITED(st) && WEXITSTATUS(st) == 0);
        if (!want) { bad++; fprintf(stderr, "fork %d: child status %#x\n", f, st); }
    }
    stop = 1;
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
    if (use_dl) pthread_join(t[3], NULL);
    printf("forks=%d bad=%d\n", nforks, bad);
    return bad != 0;
}
