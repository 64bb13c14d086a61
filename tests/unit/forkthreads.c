/*
 * forkthreads.c — fork while other threads allocate (issue 2, point 6:
 * fork in a multithreaded process never hangs).
 *
 * usage: forkthreads [-t THREADS] [-f FORKS]
 * THREADS threads (default 8) allocate and free continuously while the
 * main thread forks FORKS times (default 300).  Each child allocates
 * (small, large, mmapped), calls setenv (which allocates inside libc),
 * checks what it wrote and _exit()s with 0.  A child that deadlocks on an
 * allocator lock taken by a thread that does not exist in the child hangs
 * the parent's waitpid: run this under timeout(1).  Exit status 0 when
 * every child exited 0, 1 otherwise, 2 on bad usage.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

static atomic_int stop;

/* Allocation traffic on every path that takes an arena lock. */
static void *churn(void *arg)
{
    uint64_t r = (uintptr_t)arg * 0x9E3779B97F4A7C15ull + 1;
    void *keep[32] = {0};
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        size_t i = (r >> 33) % 32;
        size_t n = (r >> 40) % 100 < 95 ? (r >> 20) % 2000 : (r >> 20) % 300000;
        T(free)(keep[i]);
        keep[i] = (r & 1) ? T(malloc)(n) : T(calloc)(1, n);
        if (keep[i])
            memset(keep[i], 0x5A, n < 64 ? n : 64);
    }
    for (int i = 0; i < 32; i++)
        T(free)(keep[i]);
    return NULL;
}

/* The child: runs on whatever state fork left the allocator in. */
static int child(int k)
{
    for (int round = 0; round < 4; round++) {
        size_t sizes[] = {24, 1000, 50000, 400000};
        unsigned char *p = T(malloc)(sizes[round]);
        if (!p)
            return 3;
        ut_fill(p, sizes[round], (uint64_t)k);
        if (ut_check(p, sizes[round], (uint64_t)k) != (size_t)-1)
            return 4;
        T(free)(p);
    }
    char val[32];
    snprintf(val, sizeof val, "child-%d", k);
    if (setenv("CG_FORK_TEST", val, 1) || strcmp(getenv("CG_FORK_TEST"), val))
        return 5;
    return 0;
}

int main(int argc, char **argv)
{
    int nthreads = 8, nforks = 300, c;
    while ((c = getopt(argc, argv, "t:f:")) != -1) {
        switch (c) {
        case 't': nthreads = atoi(optarg); break;
        case 'f': nforks = atoi(optarg); break;
        default:
            fprintf(stderr, "usage: %s [-t THREADS] [-f FORKS]\n", argv[0]);
            return 2;
        }
    }
    if (nthreads < 0 || nthreads > 64)
        return 2;
    pthread_t t[64];
    for (int i = 0; i < nthreads; i++)
        if (pthread_create(&t[i], NULL, churn, (void *)(uintptr_t)(i + 1)))
            return 1;
    int bad = 0;
    for (int k = 0; k < nforks; k++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("forkthreads: fork");
            bad++;
            break;
        }
        if (pid == 0)
            _exit(child(k));
        int st;
        if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
            fprintf(stderr, "forkthreads: FAIL: child %d: %s %d\n", k,
                    WIFSIGNALED(st) ? "signal" : "exit status",
                    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            bad++;
        }
        /* The parent's heap keeps working after each fork too. */
        void *p = T(malloc)(100);
        T(free)(p);
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);
    printf("forkthreads: backend=%s threads=%d forks=%d failed=%d\n", UT_BACKEND, nthreads,
           nforks, bad);
    if (!ut_served_by_chunkguard((unsigned long long)nforks))
        bad++;
    return bad ? 1 : 0;
}
