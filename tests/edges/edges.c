/*
 * edges.c — the protected edges of chunkguard's memory (issue 12, point
 * 5), for tests/suites/58-edges.sh, run in fast and debug mode.  The
 * allocation and the bad access each happen in a function of their own
 * (never inlined), so the test can check that the report names them.
 *   edges overflow OFF      write OFF bytes past a 100-byte block, after
 *                           malloc_trim cut the top back to its pad
 *   edges free|realloc|usable  hand free, realloc or malloc_usable_size a
 *                           pointer 1 MiB past a block (above the top),
 *                           after showing that nothing there can be read
 *   edges grow-trim         grow the heap by 16 MiB of blocks, free them
 *                           and trim: the pages given back must be
 *                           inaccessible, the heap must grow back over
 *                           them and verify clean; then free and trim
 *                           again and write into a given-back page
 *   edges big-below         a big block mapped right below the guard page
 *                           of a metadata mapping (debug mode: the kernel
 *                           places a big block below the lowest mapping,
 *                           most often one of the shadow's or the stack
 *                           depot's), written one byte past its mapping
 *   edges meta SIZE         write into the guard page after the first
 *                           guarded mapping of SIZE bytes (debug mode: a
 *                           shadow record slab is 262144, a stack depot
 *                           chunk 1048576)
 * Each prints what it found on stdout before the bad access; one that
 * finds the memory it needs missing (an unprotected heap, no guarded
 * mapping) prints why and exits 2, so a run without the protection fails.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define MIB ((size_t)1 << 20)

static void *volatile sink;

NOINLINE static char *alloc_here(size_t n) { char *p = malloc(n); sink = p; return p; }
NOINLINE static void write_here(char *p) { *(volatile char *)p = 1; }

/* Can the byte at p be read?  write(2) from it into a pipe fails with
 * EFAULT when it cannot, without a fault in this process. */
static int readable(const void *p)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    ssize_t n = write(fds[1], p, 1);
    int e = errno;
    close(fds[0]);
    close(fds[1]);
    return n == 1 ? 1 : e == EFAULT ? 0 : -1;
}

/* A line on stdout with write(2): stdio would allocate its buffer, which
 * would then be the last block before the top. */
static void say(const char *what)
{
    (void)!write(1, what, strlen(what));
    (void)!write(1, "\n", 1);
}

static _Noreturn void missing(const char *what)
{
    say("missing:");
    say(what);
    exit(2);
}

/* An address 1 MiB past a fresh 100-byte block, after malloc_trim: above
 * the top chunk of its heap.  Exits 2 when it can be read. */
static char *above_top(void)
{
    char *p = alloc_here(100);
    malloc_trim(0);
    char *q = (char *)(((uintptr_t)p + MIB) & ~(uintptr_t)15);
    if (readable(q) != 0)
        missing("the memory 1 MiB past the last block of the heap can be read");
    say("above the top: inaccessible");
    return q;
}

static int overflow(size_t off)
{
    char *p = alloc_here(100);
    malloc_trim(0);
    if (readable(p + off) != 0)
        missing("the memory past the heap's top can be read");
    say("past the top: inaccessible");
    write_here(p + off);
    say("no fault");
    return 0;
}

/* cg_verify_heap when the preloaded library has it (chunkguard), else 0. */
static size_t verify(void)
{
    size_t (*v)(void) = (size_t (*)(void))dlsym(RTLD_DEFAULT, "cg_verify_heap");
    return v ? v() : 0;
}

#define GROW_BLOCKS 4096
#define GROW_SIZE 4000            /* 16 MiB in all: many grow steps */

static char *blocks[GROW_BLOCKS];

static void grow(void)
{
    for (int i = 0; i < GROW_BLOCKS; i++) {
        blocks[i] = alloc_here(GROW_SIZE);
        memset(blocks[i], i & 0xff, GROW_SIZE);
    }
}

static int check_and_free(void)
{
    for (int i = 0; i < GROW_BLOCKS; i++) {
        for (int k = 0; k < GROW_SIZE; k += 997)
            if ((unsigned char)blocks[i][k] != (i & 0xff))
                return 0;
        free(blocks[i]);
    }
    return 1;
}

static int grow_trim(void)
{
    grow();
    char *far = blocks[GROW_BLOCKS - 16];      /* ~16 MiB up the heap */
    if (!check_and_free())
        missing("the blocks kept their contents");
    malloc_trim(0);
    if (readable(far) != 0)
        missing("the pages given back by malloc_trim are inaccessible");
    say("trimmed: inaccessible");
    grow();                                    /* over the same pages again */
    if (readable(far) != 1)
        missing("the heap grew back over the pages it gave back");
    if (!check_and_free())
        missing("the blocks of the grown-back heap kept their contents");
    if (verify() != 0)
        missing("a clean heap check after growing back");
    say("grown back: readable, contents kept, heap check clean");
    malloc_trim(0);
    if (readable(far) != 0)
        missing("the pages given back a second time are inaccessible");
    say("trimmed again: inaccessible");
    write_here(far);
    say("no fault");
    return 0;
}

/* The mapping [lo, hi) of /proc/self/maps that holds a, with its
 * permissions; 0 when none does. */
static int mapping_of(uintptr_t a, uintptr_t *lo, uintptr_t *hi, char perms[5])
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f))
        if (sscanf(line, "%lx-%lx %4s", lo, hi, perms) == 3 && a >= *lo && a < *hi)
            found = 1;
    if (f)
        fclose(f);
    return found;
}

/* Is the page at a mapped PROT_NONE? */
static int is_guard(uintptr_t a)
{
    uintptr_t lo, hi;
    char perms[5];
    return mapping_of(a, &lo, &hi, perms) && strcmp(perms, "---p") == 0;
}

static int big_below(void)
{
    /* The kernel places a new mapping at the top of the highest gap that
     * fits; debug mode maps its metadata as it goes, so some big block
     * soon lands right below a metadata mapping's lower guard page. */
    for (int i = 0; i < 64; i++) {
        char *p = alloc_here(200000);
        uintptr_t lo, hi;
        char perms[5];
        if (!mapping_of((uintptr_t)p, &lo, &hi, perms))
            continue;
        /* the block's own mapping ends where its usable bytes do */
        uintptr_t end = ((uintptr_t)p + malloc_usable_size(p) + 4095) & ~(uintptr_t)4095;
        if (is_guard(end) && is_guard(end + 4095) && !is_guard(end + 4096)) {
            say("big block below a guard page");
            write_here((char *)end);
            say("no fault");
            return 0;
        }
    }
    missing("a big block right below a one-page guard");
}

static int meta(size_t size)
{
    for (int i = 0; i < 8192; i++)    /* records and stacks to store */
        alloc_here(16 + (size_t)(i & 7) * 16);
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    uintptr_t lo, hi, prev_hi = 0;
    char perms[5], prev_perms[5] = "";
    uintptr_t target = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) != 3)
            continue;
        if (target == 0 && strcmp(perms, "rw-p") == 0 && hi - lo == size &&
            prev_hi == lo && strcmp(prev_perms, "---p") == 0 && is_guard(hi))
            target = hi;
        prev_hi = hi;
        memcpy(prev_perms, perms, sizeof perms);
    }
    if (f)
        fclose(f);
    if (target == 0)
        missing("a guarded metadata mapping of that size");
    say("guard page after a metadata mapping");
    write_here((char *)target + 64);
    say("no fault");
    return 0;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    if (strcmp(cmd, "overflow") == 0 && argc > 2)
        return overflow(strtoul(argv[2], NULL, 0));
    if (strcmp(cmd, "free") == 0) {
        char *q = above_top();
        free(q);
    } else if (strcmp(cmd, "realloc") == 0) {
        char *q = above_top();
        sink = realloc(q, 10);
    } else if (strcmp(cmd, "usable") == 0) {
        char *q = above_top();
        sink = (void *)malloc_usable_size(q);
    } else if (strcmp(cmd, "grow-trim") == 0) {
        return grow_trim();
    } else if (strcmp(cmd, "big-below") == 0) {
        return big_below();
    } else if (strcmp(cmd, "meta") == 0 && argc > 2) {
        return meta(strtoul(argv[2], NULL, 0));
    } else {
        fprintf(stderr, "usage: edges overflow OFF|free|realloc|usable|grow-trim|big-below|meta SIZE\n");
        return 64;
    }
    say("returned");
    return 0;
}
