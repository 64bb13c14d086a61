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
 * Prints "KIND N fork_cpu_us U".  Standalone, under any malloc:
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

static double cpu_seconds(void)
{
    struct rusage s, c;
    getrusage(RUSAGE_SELF, &s);
    getrusage(RUSAGE_CHILDREN, &c);
    return (double)(s.ru_utime.tv_sec + s.ru_stime.tv_sec + c.ru_utime.tv_sec + c.ru_stime.tv_sec) +
           (double)(s.ru_utime.tv_usec + s.ru_stime.tv_usec + c.ru_utime.tv_usec + c.ru_stime.tv_usec) / 1e6;
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
        fprintf(stderr, "usage: forkcost none|vmas|dense|sparse|gib|mallocs N [FORKS]\n");
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
    } else if (strcmp(kind, "none") != 0) {
        fprintf(stderr, "forkcost: unknown kind %s\n", kind);
        return 64;
    }
    double t0 = cpu_seconds();
    for (long i = 0; i < forks; i++) {
        pid_t k = fork();
        if (k == 0)
            _exit(0);
        if (k < 0) {
            perror("fork");
            return 2;
        }
        waitpid(k, NULL, 0);
    }
    printf("%s %ld fork_cpu_us %.1f\n", kind, n, (cpu_seconds() - t0) / (double)forks * 1e6);
    return 0;
}
