/*
 * coldpages.c — does this process map any page of libchunkguard.so's cold
 * segments?
 *
 * usage: [COLDPAGES_WORKLOAD=lifo] LD_PRELOAD=libchunkguard.so coldpages
 *   Runs a workload, then finds the library that serves malloc (dladdr),
 *   reads its section headers from the file, and counts through
 *   /proc/self/pagemap how many pages of each of these ranges are mapped in
 *   this process:
 *     cold    .cg_cold: code and constants of debug mode, reports and
 *             malloc_info (Makefile COLD_OBJS);
 *     unwind  .eh_frame_hdr and .eh_frame;
 *     warm    .cg_warm: the code of the hot objects that not every process
 *             runs (all but the functions marked CG_HOT_TEXT, platform.h);
 *     hot     .text: the control, which must have pages mapped.
 *   The workload: by default a mixed one (malloc, calloc, realloc,
 *   posix_memalign and free over tcache, fastbin, small, large and mmap'd
 *   sizes); with COLDPAGES_WORKLOAD=lifo only malloc and free of 1-1024
 *   bytes in batches freed last-first (bench-lifo's pattern), which must
 *   not map a page of warm either.
 *   Prints "PAGES <range> <mapped> <total>" for each, then one line
 *   "RESULT <cold-pages|warm-pages> ok|FAIL <why>": ok when cold and unwind
 *   (and for lifo, warm) have none mapped and hot has some.
 *   Exit status: 0 when ok, 1 when not (also: lifo and no .cg_warm section),
 *   2 when it cannot tell (no libchunkguard.so preloaded, no .cg_cold
 *   section, pagemap unreadable).
 *
 * Built with -shared -DCOLDPAGES_AT_EXIT (build/fastpath/coldpages-exit.so)
 *   the same check runs in a destructor instead, after the workload of the
 *   coldpages program: preloaded after libchunkguard.so
 *   (LD_PRELOAD="libchunkguard.so coldpages-exit.so" coldpages), it runs
 *   after chunkguard's own destructor, so it sees what every process's exit
 *   path maps (it is when ru_maxrss is read); prints "RESULT
 *   cold-pages-exit ..." (warm-pages-exit with COLDPAGES_WORKLOAD=lifo) and
 *   ends the process with the status above.
 *
 * Why: every page of a library that fault-around maps counts in RSS, and
 * keeping what fast mode never runs in separate mappings is what keeps
 * chunkguard's fixed memory cost small (docs/performance.md).  A function
 * of a cold object that starts running in every process (a constructor
 * without CG_STARTUP, say) would silently map the whole cold segment; this
 * is the check that notices; and a function that every malloc/free
 * program runs but that is not marked CG_HOT_TEXT maps a 64 kB window of
 * warm code (docs/performance.md, rss18).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct range {
    const char *name;
    uint64_t lo, hi;          /* ELF virtual addresses                       */
} range_t;

/* bench-lifo's pattern: batches of 25-1000 blocks of 1-1024 bytes, each
 * batch freed last-first; only malloc and free. */
__attribute__((unused)) static void workload_lifo(void)
{
    static void *slot[1000];
    static const unsigned counts[4] = { 25, 100, 400, 1000 };
    unsigned x = 12345;
    for (int i = 0; i < 2000; i++) {
        unsigned n = counts[i & 3];
        for (unsigned k = 0; k < n; k++) {
            x = x * 1103515245u + 12345u;
            slot[k] = malloc(1 + (x >> 8) % 1024);
            if (slot[k] != NULL) *(volatile char *)slot[k] = 1;
        }
        for (unsigned k = n; k-- > 0;) free(slot[k]);
    }
}

__attribute__((unused)) static void workload(void)
{
    static void *slot[512];
    static const size_t sizes[] = { 8, 24, 40, 100, 128, 200, 1000, 4000, 20000, 70000,
                                    300000 };
    unsigned x = 12345;
    for (int i = 0; i < 200000; i++) {
        x = x * 1103515245u + 12345u;
        unsigned j = (x >> 8) % 512;
        size_t n = sizes[(x >> 20) % (sizeof sizes / sizeof sizes[0])] + (x & 15);
        if (slot[j] != NULL) {
            if ((x & 3) == 0) {
                void *p = realloc(slot[j], n);
                if (p != NULL) slot[j] = p;
                continue;
            }
            free(slot[j]);
            slot[j] = NULL;
        } else if ((x & 7) == 1) {
            slot[j] = calloc(1, n);
        } else if ((x & 7) == 2) {
            if (posix_memalign(&slot[j], 64, n) != 0) slot[j] = NULL;
        } else {
            slot[j] = malloc(n);
        }
        if (slot[j] != NULL) memset(slot[j], 1, n < 64 ? n : 64);
    }
    for (int j = 0; j < 512; j++) free(slot[j]);
}

enum { R_COLD, R_UNWIND, R_WARM, R_HOT, NRANGES };

/* Fill the ranges from the ELF file's section headers; false if the file
 * cannot be read or has no .cg_cold, unwind tables or .text (a missing
 * .cg_warm is left empty: lo == hi == 0). */
static int read_ranges(const char *path, range_t r[NRANGES])
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) return 0;
    unsigned char *f = malloc((size_t)st.st_size);
    int ok = f != NULL && read(fd, f, (size_t)st.st_size) == st.st_size;
    close(fd);
    if (!ok || (size_t)st.st_size < sizeof(Elf64_Ehdr)) return free(f), 0;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_shoff == 0 ||
        eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > (uint64_t)st.st_size ||
        eh->e_shstrndx >= eh->e_shnum)
        return free(f), 0;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(f + eh->e_shoff);
    const char *names = (const char *)f + sh[eh->e_shstrndx].sh_offset;
    r[R_COLD] = (range_t){ "cold", 0, 0 };
    r[R_UNWIND] = (range_t){ "unwind", UINT64_MAX, 0 };
    r[R_WARM] = (range_t){ "warm", 0, 0 };
    r[R_HOT] = (range_t){ "hot", 0, 0 };
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        const char *n = names + sh[i].sh_name;
        uint64_t lo = sh[i].sh_addr, hi = sh[i].sh_addr + sh[i].sh_size;
        if (strcmp(n, ".cg_cold") == 0) {
            r[R_COLD].lo = lo, r[R_COLD].hi = hi;
        } else if (strcmp(n, ".eh_frame_hdr") == 0 || strcmp(n, ".eh_frame") == 0) {
            if (lo < r[R_UNWIND].lo) r[R_UNWIND].lo = lo;
            if (hi > r[R_UNWIND].hi) r[R_UNWIND].hi = hi;
        } else if (strcmp(n, ".cg_warm") == 0) {
            r[R_WARM].lo = lo, r[R_WARM].hi = hi;
        } else if (strcmp(n, ".text") == 0) {
            r[R_HOT].lo = lo, r[R_HOT].hi = hi;
        }
    }
    free(f);
    return r[R_COLD].hi > r[R_COLD].lo && r[R_UNWIND].hi > r[R_UNWIND].lo &&
           r[R_HOT].hi > r[R_HOT].lo;
}

/* Pages of [lo, hi) mapped in this process; -1 if pagemap is unreadable. */
static long mapped_pages(int pagemap, uintptr_t lo, uintptr_t hi, long *total)
{
    long ps = sysconf(_SC_PAGESIZE), n = 0;
    *total = 0;
    for (uintptr_t a = lo & ~(uintptr_t)(ps - 1); a < hi; a += (uintptr_t)ps) {
        uint64_t e;
        if (pread(pagemap, &e, sizeof e, (off_t)(a / (uintptr_t)ps) * 8) != sizeof e) return -1;
        n += (long)(e >> 63);
        (*total)++;
    }
    return n;
}

/* Is this run the lifo workload's (COLDPAGES_WORKLOAD=lifo)?  Then warm
 * pages are judged too. */
static int lifo_run(void)
{
    const char *w = getenv("COLDPAGES_WORKLOAD");
    return w != NULL && strcmp(w, "lifo") == 0;
}

/* The check itself: @what names it in the RESULT line; @warm: whether a
 * mapped page of .cg_warm (or no such section) fails it; returns the exit
 * status (see the header). */
static int check(const char *what, int warm)
{
    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, "malloc");
    if (sym == NULL || dladdr(sym, &info) == 0 || strstr(info.dli_fname, "libchunkguard") == NULL) {
        printf("RESULT %s FAIL malloc does not come from libchunkguard.so\n", what);
        return 2;
    }
    range_t r[NRANGES];
    if (!read_ranges(info.dli_fname, r)) {
        printf("RESULT %s FAIL no .cg_cold, .eh_frame or .text in %s\n", what, info.dli_fname);
        return 2;
    }
    int pm = open("/proc/self/pagemap", O_RDONLY);
    long got[NRANGES], total[NRANGES];
    for (int i = 0; i < NRANGES; i++) {
        uintptr_t base = (uintptr_t)info.dli_fbase;
        got[i] = pm < 0 ? -1 : mapped_pages(pm, base + r[i].lo, base + r[i].hi, &total[i]);
        if (got[i] < 0) {
            printf("RESULT %s FAIL cannot read /proc/self/pagemap\n", what);
            return 2;
        }
        printf("PAGES %s %ld %ld\n", r[i].name, got[i], total[i]);
    }
    if (got[R_HOT] == 0) {
        printf("RESULT %s FAIL the control failed: no page of .text is mapped\n", what);
        return 1;
    }
    if (got[R_COLD] != 0 || got[R_UNWIND] != 0) {
        printf("RESULT %s FAIL %ld cold and %ld unwind-table pages mapped\n", what,
               got[R_COLD], got[R_UNWIND]);
        return 1;
    }
    if (warm && total[R_WARM] == 0) {
        printf("RESULT %s FAIL no .cg_warm section: all the hot objects' code is in .text\n", what);
        return 1;
    }
    if (warm && got[R_WARM] != 0) {
        printf("RESULT %s FAIL %ld warm pages mapped\n", what, got[R_WARM]);
        return 1;
    }
    printf("RESULT %s ok 0\n", what);
    return 0;
}

#ifdef COLDPAGES_AT_EXIT
/* After the program's exit and libchunkguard.so's destructor (this object
 * is preloaded after it, so it is finalized later). */
__attribute__((destructor)) static void check_at_exit(void)
{
    int lifo = lifo_run();
    int rc = check(lifo ? "warm-pages-exit" : "cold-pages-exit", lifo);
    fflush(stdout);
    _exit(rc);
}
#else
int main(void)
{
    int lifo = lifo_run();
    if (lifo) workload_lifo();
    else workload();
    return check(lifo ? "warm-pages" : "cold-pages", lifo);
}
#endif
