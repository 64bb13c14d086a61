/*
 * coldpages.c — does this process map any page of libchunkguard.so's cold
 * segments?
 *
 * usage: LD_PRELOAD=libchunkguard.so coldpages
 *   Runs a mixed workload (malloc, calloc, realloc, posix_memalign and free
 *   over tcache, fastbin, small, large and mmap'd sizes), then finds the
 *   library that serves malloc (dladdr), reads its section headers from the
 *   file, and counts through /proc/self/pagemap how many pages of each of
 *   these ranges are mapped in this process:
 *     cold    .cg_cold: code and constants of debug mode, reports and
 *             malloc_info (Makefile COLD_OBJS);
 *     unwind  .eh_frame_hdr and .eh_frame;
 *     hot     .text: the control, which must have pages mapped.
 *   Prints "PAGES <range> <mapped> <total>" for each, then one line
 *   "RESULT cold-pages ok|FAIL <why>": ok when cold and unwind have none
 *   mapped and hot has some.
 *   Exit status: 0 when ok, 1 when not, 2 when it cannot tell (no
 *   libchunkguard.so preloaded, no .cg_cold section, pagemap unreadable).
 *
 * Built with -shared -DCOLDPAGES_AT_EXIT (build/fastpath/coldpages-exit.so)
 *   the same check runs in a destructor instead, after the workload of the
 *   coldpages program: preloaded after libchunkguard.so
 *   (LD_PRELOAD="libchunkguard.so coldpages-exit.so" coldpages), it runs
 *   after chunkguard's own destructor, so it sees what every process's exit
 *   path maps (it is when ru_maxrss is read); prints "RESULT cold-pages-exit
 *   ..." and ends the process with the status above.
 *
 * Why: every page of a library that fault-around maps counts in RSS, and
 * keeping what fast mode never runs in separate mappings is what keeps
 * chunkguard's fixed memory cost small (docs/performance.md).  A function
 * of a cold object that starts running in every process (a constructor
 * without CG_STARTUP, say) would silently map the whole cold segment; this
 * is the check that notices.
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

/* Fill the three ranges from the ELF file's section headers; false if the
 * file cannot be read or has no .cg_cold. */
static int read_ranges(const char *path, range_t r[3])
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
    r[0] = (range_t){ "cold", 0, 0 };
    r[1] = (range_t){ "unwind", UINT64_MAX, 0 };
    r[2] = (range_t){ "hot", 0, 0 };
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        const char *n = names + sh[i].sh_name;
        uint64_t lo = sh[i].sh_addr, hi = sh[i].sh_addr + sh[i].sh_size;
        if (strcmp(n, ".cg_cold") == 0) {
            r[0].lo = lo, r[0].hi = hi;
        } else if (strcmp(n, ".eh_frame_hdr") == 0 || strcmp(n, ".eh_frame") == 0) {
            if (lo < r[1].lo) r[1].lo = lo;
            if (hi > r[1].hi) r[1].hi = hi;
        } else if (strcmp(n, ".text") == 0) {
            r[2].lo = lo, r[2].hi = hi;
        }
    }
    free(f);
    return r[0].hi > r[0].lo && r[1].hi > r[1].lo && r[2].hi > r[2].lo;
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

/* The check itself: @what names it in the RESULT line; returns the exit
 * status (see the header). */
static int check(const char *what)
{
    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, "malloc");
    if (sym == NULL || dladdr(sym, &info) == 0 || strstr(info.dli_fname, "libchunkguard") == NULL) {
        printf("RESULT %s FAIL malloc does not come from libchunkguard.so\n", what);
        return 2;
    }
    range_t r[3];
    if (!read_ranges(info.dli_fname, r)) {
        printf("RESULT %s FAIL no .cg_cold, .eh_frame or .text in %s\n", what, info.dli_fname);
        return 2;
    }
    int pm = open("/proc/self/pagemap", O_RDONLY);
    long got[3], total[3];
    for (int i = 0; i < 3; i++) {
        uintptr_t base = (uintptr_t)info.dli_fbase;
        got[i] = pm < 0 ? -1 : mapped_pages(pm, base + r[i].lo, base + r[i].hi, &total[i]);
        if (got[i] < 0) {
            printf("RESULT %s FAIL cannot read /proc/self/pagemap\n", what);
            return 2;
        }
        printf("PAGES %s %ld %ld\n", r[i].name, got[i], total[i]);
    }
    if (got[2] == 0) {
        printf("RESULT %s FAIL the control failed: no page of .text is mapped\n", what);
        return 1;
    }
    if (got[0] != 0 || got[1] != 0) {
        printf("RESULT %s FAIL %ld cold and %ld unwind-table pages mapped\n", what, got[0], got[1]);
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
    int rc = check("cold-pages-exit");
    fflush(stdout);
    _exit(rc);
}
#else
int main(void)
{
    workload();
    return check("cold-pages");
}
#endif
