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
 *                           of the metadata body (debug mode: big blocks
 *                           of growing sizes until the kernel places one
 *                           there), written one byte past its mapping
 *   edges meta before|after write into the guard page before or after the
 *                           metadata body (debug mode: the one mapping
 *                           that holds the shadow's records, the stack
 *                           depot and memo, between two guard pages)
 *   edges audit [seed]      check from /proc/self/maps that nothing
 *                           accessible lies directly beside the heap or
 *                           a big block (exit 1 when something does);
 *                           seed: a test build first maps a page of
 *                           metadata right above the heap
 *   edges maps              print the line counts of /proc/self/maps
 *                           after 1000 mallocs and in a child forked then
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
#include <sys/wait.h>
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

/* The kernel places a new mapping at the top of the highest gap that
 * fits; debug mode's metadata body is one large mapping, so a big block
 * lands right below its lower guard page once it is larger than every gap
 * above and fits the one below it.  Blocks of growing sizes, kept, until
 * one does. */
static int big_below(void)
{
    for (size_t n = 200000; n <= 64 * MIB; n += n / 2) {
        for (int i = 0; i < 8; i++) {
            char *p = alloc_here(n);
            uintptr_t lo, hi;
            char perms[5];
            if (p == NULL || !mapping_of((uintptr_t)p, &lo, &hi, perms))
                continue;
            /* the block's own mapping ends where its usable bytes do */
            uintptr_t end = ((uintptr_t)p + malloc_usable_size(p) + 4095) & ~(uintptr_t)4095;
            /* (not the guard page below a heap: a heap starts at a
             * multiple of its 64 MiB) */
            if (is_guard(end) && is_guard(end + 4095) && !is_guard(end + 4096) &&
                ((end + 4096) & (64 * MIB - 1)) != 0) {
                say("big block below a guard page");
                write_here((char *)end);
                say("no fault");
                return 0;
            }
        }
    }
    missing("a big block right below a one-page guard");
}

/* One line of /proc/self/maps. */
typedef struct { uintptr_t lo, hi; char perms[5]; int file; } line_t;
#define MAX_LINES 4096
static line_t lines[MAX_LINES];

static int read_maps(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char buf[512];
    int n = 0;
    while (f && n < MAX_LINES && fgets(buf, sizeof buf, f))
        if (sscanf(buf, "%lx-%lx %4s", &lines[n].lo, &lines[n].hi, lines[n].perms) == 3) {
            lines[n].file = strchr(buf, '/') != NULL || strchr(buf, '[') != NULL;
            n++;
        }
    if (f)
        fclose(f);
    return n;
}

/* The metadata body (debug mode): the read-write mapping right above a
 * one-page guard and right below an inaccessible one that holds no block
 * (a heap has the same shape: it holds the block `mine`), the largest. */
static int meta(const char *where)
{
    char *mine = NULL;
    for (int i = 0; i < 8192; i++)    /* records and stacks to store */
        mine = alloc_here(16 + (size_t)(i & 7) * 16);
    int n = read_maps();
    const line_t *body = NULL;
    for (int i = 1; i + 1 < n; i++) {
        const line_t *b = &lines[i], *lo = &lines[i - 1], *hi = &lines[i + 1];
        if (strcmp(b->perms, "rw-p") == 0 && lo->hi == b->lo && lo->hi - lo->lo == 4096 &&
            strcmp(lo->perms, "---p") == 0 && hi->lo == b->hi && strcmp(hi->perms, "---p") == 0 &&
            !((uintptr_t)mine >= b->lo && (uintptr_t)mine < b->hi) &&
            (body == NULL || b->hi - b->lo > body->hi - body->lo))
            body = b;
    }
    if (body == NULL || body->hi - body->lo < 4 * MIB)
        missing("the metadata body: a read-write mapping of 4 MiB or more between guard pages");
    say(strcmp(where, "before") == 0 ? "guard page before the metadata body"
                                     : "guard page after the metadata body");
    write_here((char *)(strcmp(where, "before") == 0 ? body->lo - 4096 + 64 : body->hi + 64));
    say("no fault");
    return 0;
}

/* The layout rule of issue 12 point 5, from /proc/self/maps: nothing
 * accessible lies directly beside a heap or a big block.  The heap of a
 * small block (its CG_HEAP_MAX region, 64 MiB, and the guard page below
 * it) and the mappings of some big blocks are checked: the mapping that
 * ends where one starts, or starts where one ends, must be inaccessible
 * or be another of them.  "audit seed" first calls a test build's
 * cg_test_seed_meta_beside, which maps a page of metadata directly beside
 * the heap (or a big block, when both sides of the heap are taken): the
 * audit must find it. */
static int audit(int seed)
{
    char *small = NULL;
    for (int i = 0; i < 8192; i++)
        small = alloc_here(16 + (size_t)(i & 7) * 16);
    enum { NBIG = 12 };
    char *big[NBIG];
    for (int i = 0; i < NBIG; i++)
        big[i] = alloc_here(i < 8 ? 200000 : (size_t)(i - 6) * MIB);
    int n = read_maps();
    uintptr_t heap = (uintptr_t)small & ~(uintptr_t)(64 * MIB - 1);
    /* the objects: [lo, hi) each */
    uintptr_t obj[NBIG + 1][2];
    int nobj = 0;
    obj[nobj][0] = heap - 4096;
    obj[nobj][1] = heap + 64 * MIB;
    nobj++;
    for (int i = 0; i < NBIG; i++)
        for (int j = 0; j < n; j++)
            if ((uintptr_t)big[i] >= lines[j].lo && (uintptr_t)big[i] < lines[j].hi &&
                lines[j].lo != obj[nobj - 1][0] &&    /* blocks in one mapping: once */
                !((uintptr_t)big[i] >= obj[0][0] && (uintptr_t)big[i] < obj[0][1])) {
                obj[nobj][0] = lines[j].lo;
                obj[nobj][1] = lines[j].hi;
                nobj++;
            }
    if (seed) {
        /* beside the heap, or, when the program's other mappings took
         * both of its sides, beside the first big block with room */
        void *(*fn)(const void *, const void *) =
            (void *(*)(const void *, const void *))dlsym(RTLD_DEFAULT, "cg_test_seed_meta_beside");
        if (fn == NULL)
            missing("cg_test_seed_meta_beside (a test build of the library)");
        int k = 0;
        while (k < nobj && fn((void *)obj[k][0], (void *)obj[k][1]) == NULL)
            k++;
        if (k == nobj)
            missing("room for the seeded page beside any object");
        say(k == 0 ? "seeded: a page of metadata right beside the heap"
                   : "seeded: a page of metadata right beside a big block");
        n = read_maps();
    }
    int bad = 0;
    char msg[256];
    for (int k = 0; k < nobj; k++)
        for (int j = 0; j < n; j++) {
            const line_t *l = &lines[j];
            if ((l->hi != obj[k][0] && l->lo != obj[k][1]) || strcmp(l->perms, "---p") == 0 ||
                l->file)                 /* a file's or the kernel's: not a structure of ours */
                continue;
            int other = 0;               /* one of the objects itself? */
            for (int m = 0; m < nobj; m++)
                other |= l->lo < obj[m][1] && l->hi > obj[m][0];
            if (other)
                continue;
            snprintf(msg, sizeof msg, "beside %s at %#lx-%#lx: %s mapping %#lx-%#lx",
                     k == 0 ? "the heap" : "a big block", (unsigned long)obj[k][0],
                     (unsigned long)obj[k][1], l->perms, (unsigned long)l->lo, (unsigned long)l->hi);
            say(msg);
            bad++;
        }
    /* and the heap's own guard page is there */
    int guard = 0;
    for (int j = 0; j < n; j++)
        guard |= lines[j].lo <= heap - 4096 && lines[j].hi >= heap && strcmp(lines[j].perms, "---p") == 0;
    if (!guard) {
        say("no guard page below the heap");
        bad++;
    }
    snprintf(msg, sizeof msg, "audit: %d objects, %d mappings beside them", nobj, bad);
    say(msg);
    return bad ? 1 : 0;
}

/* Lines of /proc/self/maps after 1000 mallocs and frees, and in a child
 * forked then (what its fork copied): "maps N child M".  (What a fork
 * costs: bench/forkcost.c.) */
static int maps_count(void)
{
    for (int i = 0; i < 1000; i++)
        free(alloc_here(64 + (size_t)i));
    int fds[2];
    if (pipe(fds) != 0)
        return 2;
    int n = read_maps(), m = -1;
    pid_t c = fork();
    if (c == 0) {
        m = read_maps();
        (void)!write(fds[1], &m, sizeof m);
        _exit(0);
    }
    if (c < 0 || read(fds[0], &m, sizeof m) != sizeof m)
        return 2;
    waitpid(c, NULL, 0);
    char msg[64];
    snprintf(msg, sizeof msg, "maps %d child %d", n, m);
    say(msg);
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
        return meta(argv[2]);
    } else if (strcmp(cmd, "maps") == 0) {
        return maps_count();
    } else if (strcmp(cmd, "audit") == 0) {
        return audit(argc > 2 && strcmp(argv[2], "seed") == 0);
    } else {
        fprintf(stderr, "usage: edges overflow OFF|free|realloc|usable|grow-trim|big-below|meta before|after|audit [seed]|maps\n");
        return 64;
    }
    say("returned");
    return 0;
}
