/*
 * forkcost.c — what a fork costs for each kind of memory a process holds
 * (docs/performance.md, "Mappings and fork cost of debug mode"): CPU time
 * (user + system, this process and its children, getrusage) of FORKS forks
 * of a child that _exits at once, one at a time, after making N of one
 * kind:
 *   none     nothing (the baseline)
 *   vmas     N separate 4 KiB read-write mappings, each touched, with an
 *            inaccessible page after it (2 lines of /proc/self/maps each)
 *   dense    N resident pages side by side in one mapping
 *   sparse   one resident page in each of N 2 MiB ranges of one mapping
 *            (a page-table page each)
 *   gib      one resident page in each of N 1 GiB ranges of one large
 *            inaccessible reservation, each opened, touched and closed
 *            again (mprotect): a page-table page and a page-middle
 *            directory each
 *   mallocs  N mallocs and frees of 64 + i bytes (i < N): what the
 *            allocator keeps resident and mapped, with LD_PRELOAD
 *   churn    before each fork, the fork storm's main loop
 *            (tests/locks/fork_signal.c): 16 frees and mallocs of 16 to
 *            4015 bytes; N is ignored.  Debug mode's quarantine makes the
 *            heap grow all run long, as in the storm, without its signals
 * Prints "KIND N fork_cpu_us U parent_cpu_us P child_cpu_us C minflt
 * parent F child G": CPU time and minor page faults a fork, of this
 * process and of its children (getrusage).  Standalone, under any malloc:
 *     gcc -O1 -o forkcost bench/forkcost.c && ./forkcost sparse 64 2000
 *     LD_PRELOAD=build/libchunkguard.so CHUNKGUARD_OPTIONS=mode=debug \
 *         ./forkcost mallocs 1000 2000
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* CPU seconds (user + system) and minor faults of who (RUSAGE_SELF or
 * RUSAGE_CHILDREN). */
static double cpu_of(int who, long *minflt)
{
    struct rusage u;
    getrusage(who, &u);
    *minflt = u.ru_minflt;
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

static char *map(size_t len, int prot)
{
    char *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    return p;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: forkcost none|vmas|dense|sparse|gib|mallocs|churn N [FORKS]\n");
        return 64;
    }
    const char *kind = argv[1];
    long n = atol(argv[2]), forks = argc > 3 ? atol(argv[3]) : 2000;
    if (strcmp(kind, "vmas") == 0) {
        for (long i = 0; i < n; i++) {
            char *p = map(8192, PROT_READ | PROT_WRITE);
            mprotect(p + 4096, 4096, PROT_NONE);
            p[0] = 1;
        }
    } else if (strcmp(kind, "dense") == 0 || strcmp(kind, "sparse") == 0) {
        size_t step = kind[0] == 'd' ? 4096 : (size_t)2 << 20;
        char *p = map((size_t)n * step + 4096, PROT_READ | PROT_WRITE);
        for (long i = 0; i < n; i++)
            p[(size_t)i * step] = 1;
    } else if (strcmp(kind, "gib") == 0) {
        char *p = map((size_t)(n + 1) << 30, PROT_NONE);
        for (long i = 0; i < n; i++) {
            char *q = p + ((size_t)i << 30);
            mprotect(q, 4096, PROT_READ | PROT_WRITE);
            q[0] = 1;
            mprotect(q, 4096, PROT_NONE);
        }
    } else if (strcmp(kind, "mallocs") == 0) {
        for (long i = 0; i < n; i++)
            free(malloc(64 + (size_t)i));
    } else if (strcmp(kind, "none") != 0 && strcmp(kind, "churn") != 0) {
        fprintf(stderr, "forkcost: unknown kind %s\n", kind);
        return 64;
    }
    int churn = strcmp(kind, "churn") == 0;
    void *keep[16] = { 0 };
    long pf0, cf0, pf1, cf1;
    double p0 = cpu_of(RUSAGE_SELF, &pf0), c0 = cpu_of(RUSAGE_CHILDREN, &cf0);
    for (long i = 0; i < forks; i++) {
        for (int j = 0; churn && j < 16; j++) {   /* fork_signal.c's sizes */
            free(keep[j]);
            keep[j] = malloc(16 + (size_t)(i * 37 + j * 301) % 4000);
        }
        pid_t k = fork();
        if (k == 0)
            _exit(0);
        if (k < 0) {
            perror("fork");
            return 2;
        }
        waitpid(k, NULL, 0);
    }
    double p = cpu_of(RUSAGE_SELF, &pf1) - p0, c = cpu_of(RUSAGE_CHILDREN, &cf1) - c0;
    printf("%s %ld fork_cpu_us %.1f parent_cpu_us %.1f child_cpu_us %.1f minflt parent %.1f "
           "child %.1f\n", kind, n, (p + c) / (double)forks * 1e6, p / (double)forks * 1e6,
           c / (double)forks * 1e6, (double)(pf1 - pf0) / (double)forks,
           (double)(cf1 - cf0) / (double)forks);
    return 0;
}
