/*
 * fork_dlopen.c LIB N: two threads load and unload LIB (dlopen, dlclose)
 * and walk the loaded modules (dl_iterate_phdr) in a loop, so the loader's
 * lock is often held by one of them; the main thread forks N children in
 * turn, each of which frees a block twice from child_bad_free.  The lock
 * a parent thread held at the fork is never released in the child: its
 * report must be written without taking it (no dlopen of the unwinder, no
 * module walk).  A child still alive after 10 s (alarm) is a hang.  Exits
 * with the last child's status (128 + signal), or the first that was not
 * SIGABRT's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *lib;
static volatile int go = 1;

static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info;
    (void)size;
    (void)data;
    return 0;
}

static void *loader(void *arg)
{
    while (go) {
        void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        if (h == NULL) {
            fprintf(stderr, "dlopen: %s\n", dlerror());
            exit(3);
        }
        dl_iterate_phdr(visit, NULL);
        dlclose(h);
    }
    return arg;
}

__attribute__((noinline)) static void child_bad_free(void)
{
    char *volatile p = malloc(64);
    free(p);
    free(p);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    lib = argv[1];
    int n = atoi(argv[2]);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, loader, NULL) != 0)
            return 2;
    int code = 0;
    for (int i = 0; i < n; i++) {
        usleep(200);
        pid_t c = fork();
        if (c < 0)
            return 2;
        if (c == 0) {
            alarm(10);
            child_bad_free();
            _exit(0);
        }
        int st;
        if (waitpid(c, &st, 0) != c)
            return 2;
        code = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
        if (code != 128 + SIGABRT) {
            printf("child %d of %d: status %d\n", i, n, code);
            break;
        }
    }
    go = 0;
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return code;
}
