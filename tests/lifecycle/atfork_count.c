/*
 * atfork_count.c — counts the fork handlers registered with libc, and by
 * whom, for 45-lifecycle's fork-handlers-lazy.
 *
 * Built twice from this file: as a shared object (-DCOUNTER) preloaded
 * after chunkguard, it defines __register_atfork (what pthread_atfork
 * calls), notes whether the prepare handler lies in libchunkguard.so
 * (dladdr) and passes the call on to libc (RTLD_NEXT); as the program
 * (usage: atfork_count none|fork|atfork|thread), it allocates, does what
 * its argument says, and prints the registrations in order, e.g. "cg user"
 * ("-": none); for a fork then the child's "child ok" line and the
 * registrations again, after it.
 *   none    malloc and free only
 *   fork    fork once; the child allocates and exits 0
 *   atfork  pthread_atfork(its own handlers, prepare allocating), then fork:
 *           the child reports whether the program's prepare ran
 *   thread  a second thread that allocates, joined
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef COUNTER
static char seen[64];
static size_t nseen;

int __register_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void),
                      void *dso)
{
    static int (*next)(void (*)(void), void (*)(void), void (*)(void), void *);
    if (next == NULL)
        next = (int (*)(void (*)(void), void (*)(void), void (*)(void), void *))
                   dlsym(RTLD_NEXT, "__register_atfork");
    Dl_info info;
    const char *who = "user";
    if (prepare != NULL && dladdr((void *)prepare, &info) && info.dli_fname != NULL &&
        strstr(info.dli_fname, "libchunkguard") != NULL)
        who = "cg";
    size_t n = strlen(who);
    if (nseen + n + 2 < sizeof seen) {
        if (nseen > 0)
            seen[nseen++] = ' ';
        memcpy(seen + nseen, who, n);
        nseen += n;
        seen[nseen] = 0;
    }
    return next(prepare, parent, child, dso);
}

const char *atfork_seen(void)
{
    return nseen > 0 ? seen : "-";
}
#else
const char *atfork_seen(void);

static volatile int prepared;
static void *volatile sink;   /* keeps the compiler from eliding a malloc */

static void churn(size_t n)
{
    sink = malloc(n);
    free(sink);
}
static void prepare(void)
{
    churn(5000);              /* a program's prepare handler may allocate */
    prepared = sink != NULL;
}
static void *worker(void *arg)
{
    churn(100);
    return arg;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    void *keep = malloc(100);
    if (strcmp(argv[1], "atfork") == 0)
        pthread_atfork(prepare, NULL, NULL);
    if (strcmp(argv[1], "thread") == 0) {
        pthread_t t;
        if (pthread_create(&t, NULL, worker, NULL) != 0 || pthread_join(t, NULL) != 0)
            return 3;
    }
    printf("%s\n", atfork_seen());
    fflush(stdout);
    if (strcmp(argv[1], "fork") == 0 || strcmp(argv[1], "atfork") == 0) {
        pid_t c = fork();
        if (c == 0) {
            churn(200);
            printf("child ok%s\n", prepared ? " prepared" : "");
            fflush(stdout);
            _exit(0);
        }
        int st = 0;
        if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return 4;
        printf("%s\n", atfork_seen());
    }
    free(keep);
    return 0;
}
#endif
