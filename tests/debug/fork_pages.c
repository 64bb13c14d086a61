/*
 * fork_pages.c — debug mode's quarantine in huge pages (issue 13, point 2:
 * a fork copies one page-table entry per resident 4 KiB page, and the
 * quarantine keeps freed blocks resident).
 *
 *   pages       frees 24 MiB of small blocks (16 to 4015 bytes: all in
 *               the heap, none big enough for pages of their own) into
 *               the quarantine, then prints "pages huge_kb=H rss_kb=R
 *               pte_kb=P": H the huge-page part of the resident memory of
 *               the mapping that holds the blocks (/proc/self/smaps), P
 *               the process's page tables (VmPTE).
 *   uaf-child   the same, then forks: the child frees a block, writes
 *               into it and _exits (debug mode checks the blocks a child
 *               freed at _exit: the report is the child's); the parent
 *               exits 0 when the child ended by SIGABRT, 1 otherwise.
 *   uaf-old     the same, then writes into the block freed first (it
 *               waits in the quarantine, in a range collapsed into a huge
 *               page) and returns: the check at exit reports it.
 *   tail        the same, reading the mapping's smaps after every 64 KiB
 *               freed; prints "tail max_4k_kb=M huge_kb=H": M the most
 *               of it seen resident in 4 KiB pages (Rss less
 *               AnonHugePages: the range the heap's top ends in, which a
 *               fork copies entry by entry), H the huge part at the end,
 *               and "meta_huge_kb=X": the huge pages of every mapping
 *               outside the heap's region (the debug records of the
 *               12,000 blocks: their slabs are collapsed).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* AnonHugePages, in kB, of every mapping outside the 64 MiB heap region
 * holding a (chunkguard's heaps are 64 MiB regions at a 64 MiB boundary):
 * the out-of-band metadata's huge pages. */
static long huge_elsewhere(const void *a)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (f == NULL)
        return -1;
    char line[512];
    int in = 0;
    long kb, sum = 0;
    unsigned long lo, hi, base = (unsigned long)a & ~((64ul << 20) - 1);
    while (fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = hi <= base || lo >= base + (64ul << 20);
            continue;
        }
        if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
            sum += kb;
    }
    fclose(f);
    return sum;
}

/* The smaps entry holding address a: its Rss and AnonHugePages, in kB. */
static int smaps_of(const void *a, long *rss, long *huge)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (f == NULL)
        return -1;
    char line[512];
    int in = 0, found = 0;
    unsigned long lo, hi, x = (unsigned long)a;
    while (fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = x >= lo && x < hi;
            continue;
        }
        if (in && sscanf(line, "Rss: %ld kB", rss) == 1)
            found |= 1;
        if (in && sscanf(line, "AnonHugePages: %ld kB", huge) == 1)
            found |= 2;
    }
    fclose(f);
    return found == 3 ? 0 : -1;
}

static long vm_pte_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmPTE: %ld kB", &kb) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "pages";
    int tail = strcmp(what, "tail") == 0;
    char *first = NULL;
    void *keep = malloc(64);                /* a live block among them */
    size_t freed = 0, seen = 0;
    long max_4k = 0, rss = 0, huge = 0;
    for (unsigned i = 0; freed < ((size_t)24 << 20); i++) {
        if (tail && freed - seen >= ((size_t)64 << 10)) {
            seen = freed;
            if (smaps_of(keep, &rss, &huge) != 0)
                return 2;
            if (rss - huge > max_4k)
                max_4k = rss - huge;
        }
        size_t n = 16 + (i * 2657u) % 4000;
        char *p = malloc(n);
        if (p == NULL)
            return 2;
        memset(p, 'x', n);
        if (first == NULL)
            first = p;
        free(p);
        freed += n;
    }
    if (strcmp(what, "uaf-old") == 0) {
        ((volatile char *)first)[3] = 'A';  /* found at exit */
        return 0;
    }
    if (strcmp(what, "uaf-child") == 0) {
        pid_t pid = fork();
        if (pid < 0)
            return 2;
        if (pid == 0) {
            char *p = malloc(100);
            free(p);
            ((volatile char *)p)[7] = 'B';  /* found at _exit, in the child */
            _exit(0);
        }
        int st;
        if (waitpid(pid, &st, 0) != pid)
            return 2;
        printf("child %s %d\n", WIFSIGNALED(st) ? "signal" : "exit",
               WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        free(keep);
        return WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT ? 0 : 1;
    }
    if (smaps_of(keep, &rss, &huge) != 0)
        return 2;
    if (tail) {
        printf("tail max_4k_kb=%ld huge_kb=%ld meta_huge_kb=%ld\n", max_4k, huge,
               huge_elsewhere(keep));
        free(keep);
        return 0;
    }
    printf("pages huge_kb=%ld rss_kb=%ld pte_kb=%ld\n", huge, rss, vm_pte_kb());
    free(keep);
    return 0;
}
