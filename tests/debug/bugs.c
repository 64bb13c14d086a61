/*
 * bugs.c — one heap bug per mode, for tests/suites/55-debug.sh, run with
 * CHUNKGUARD_OPTIONS=mode=debug.  The allocation, the free and the bug
 * each happen in a function of their own (never inlined), so the test can
 * check that the report's stacks name them.
 *   bugs overflow N          write N bytes past a 40-byte block, free it
 *   bugs overflow-next N     the same, but free the block after it first
 *   bugs overflow-live N     write N bytes past a 40-byte block, never free it
 *   bugs overflow-live-joined N  the same, after a thread was created and joined
 *   bugs underflow           write the byte before a block, free it
 *   bugs header              change a block's chunk size word, free it
 *   bugs uaf-write SIZE [OFF]  free a SIZE-byte block, write to it (at
 *                            offset OFF, default 5), push it out of the
 *                            quarantine
 *   bugs double-free SIZE    free a SIZE-byte block twice
 *   bugs double-free-sites   blocks from 7 allocation and 7 free call sites
 *                            in turn (more sites than a thread's memo of
 *                            call sites holds), then from 4 of them again;
 *                            one allocated in alloc_site5 and freed in
 *                            free_site2 is freed again
 *   bugs interior            free a pointer 8 bytes into a block
 *   bugs stack|global|garbage   free a pointer that is not a block
 *   bugs realloc-freed       realloc a freed block
 *   bugs usable-freed        malloc_usable_size of a freed block
 *   bugs usable N            print malloc_usable_size(malloc(N))
 *   bugs leak                three blocks lost (two from lose_here), one
 *                            kept in a global, one reachable only through it
 *   bugs wild-meta           overwrite the arena pointer in the header of the
 *                            heap a block is in (a wild write into
 *                            chunkguard's metadata), then free
 *   bugs wild-meta-noncanon  the same with a non-canonical pointer
 *                            (0xdead000000000000: on x86-64 the fault is a
 *                            general-protection fault, which names no address)
 *   bugs guard               touch the guard page before a heap's first block
 *   bugs top-wild            a wild write over the top chunk's size word, just
 *                            past the last block; then a request the top serves
 *   bugs null                a NULL dereference (not chunkguard's business)
 *   bugs ok                  a clean run: prints "ok"
 */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static char global_buf[64];
static char **volatile kept;     /* volatile: a store the compiler must keep */

NOINLINE static void lose_here(void)
{
    for (int i = 0; i < 2; i++) {
        char *volatile lost = malloc(100);
        lost[0] = 1;
        lost = NULL;
    }
}
NOINLINE static void lose_big_here(void)
{
    char *volatile lost = malloc(300000);
    lost[0] = 1;
    lost = NULL;
}
static void *volatile sink;
static volatile uintptr_t sink_null;

NOINLINE static char *alloc_here(size_t n) { char *p = malloc(n); sink = p; return p; }
NOINLINE static void free_here(void *p) { free(p); }
/* Seven allocation and seven free call sites, each a function of its own. */
#define SITE(k) \
    NOINLINE static char *alloc_site##k(size_t n) { char *p = malloc(n); sink = p; return p; } \
    NOINLINE static void free_site##k(void *p) { free(p); }
SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6)
#undef SITE
static char *(*const alloc_sites[7])(size_t) = { alloc_site0, alloc_site1, alloc_site2,
    alloc_site3, alloc_site4, alloc_site5, alloc_site6 };
static void (*const free_sites[7])(void *) = { free_site0, free_site1, free_site2,
    free_site3, free_site4, free_site5, free_site6 };
NOINLINE static void bug_here_write(char *p, long off, size_t n) { memset(p + off, 'A', n); }

/* Overwrite the dead stack below us, where lost pointers may linger (a
 * conservative scan would count them as references). */
NOINLINE static void scrub_stack(void)
{
    volatile char junk[64 * 1024];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = 0;
}

static void *idle_thread(void *arg) { return arg; }

static void push_out(void)
{
    /* more than the 1 MiB quarantine the tests set */
    for (int i = 0; i < 400; i++)
        free(alloc_here(8192));
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "ok";
    size_t n = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
    if (!strcmp(m, "overflow-live-joined")) {
        pthread_t t;
        pthread_create(&t, NULL, idle_thread, NULL);
        pthread_join(t, NULL);
        m = "overflow-live";
    }
    if (!strcmp(m, "overflow")) {
        char *p = alloc_here(40);
        bug_here_write(p, 40, n);
        free_here(p);
    } else if (!strcmp(m, "overflow-live")) {
        static char *volatile kept;
        kept = alloc_here(40);
        bug_here_write(kept, 40, n);
        puts("ok");
        return 0;
    } else if (!strcmp(m, "overflow-next")) {
        char *p = alloc_here(40), *q = alloc_here(40);
        bug_here_write(p, 40, n);
        free_here(q);
        free_here(p);
    } else if (!strcmp(m, "underflow")) {
        char *p = alloc_here(40);
        bug_here_write(p, -1, 1);
        free_here(p);
    } else if (!strcmp(m, "header")) {
        char *p = alloc_here(40);
        ((volatile size_t *)p)[-3] ^= 0x40;      /* the chunk's size word */
        free_here(p);
    } else if (!strcmp(m, "uaf-write")) {
        char *p = alloc_here(n);
        free_here(p);
        bug_here_write(p, argc > 3 ? (long)strtol(argv[3], NULL, 0) : 5, 1);
        push_out();
    } else if (!strcmp(m, "double-free")) {
        char *p = alloc_here(n);
        free_here(p);
        free_here(p);
    } else if (!strcmp(m, "hint-forged") || !strcmp(m, "hint-wild")) {
        /* the 4 bytes before the leading redzone's 12 (debug mode's record
         * hint) written: with another live block's hint, or a wild one */
        char *p = alloc_here(40), *q = alloc_here(80);
        uint32_t wild = 0xfffffff0u;
        memcpy(p - 16, !strcmp(m, "hint-forged") ? q - 16 : (char *)&wild, 4);
        free_here(p);
        free_here(q);
    } else if (!strcmp(m, "uaf-after-quarantine") || !strcmp(m, "double-free-after-quarantine")) {
        /* p leaves the (1 MiB) quarantine while nothing is allocated after
         * its free: 1.4 MB of small blocks, made first, are freed after it
         * (small: blocks of the 64 KiB batch limit or more go to the FIFO
         * at once, and p, in its thread's batch, would wait behind them) */
        char *more[700];
        for (int i = 0; i < 700; i++)
            more[i] = alloc_here(2000);
        char *p = alloc_here(100);
        free_here(p);
        for (int i = 0; i < 700; i++)
            free_here(more[i]);
        if (!strcmp(m, "double-free-after-quarantine"))
            free_here(p);
        else
            bug_here_write(p, 5, 1);
    } else if (!strcmp(m, "double-free-sites")) {
        for (int round = 0; round < 2; round++)     /* every site, twice */
            for (int k = 0; k < 7; k++)
                free_sites[(k * 5 + round) % 7](alloc_sites[(k * 3 + round) % 7](48));
        for (int round = 0; round < 3; round++) {   /* four sites, known again */
            free_site4(alloc_site1(48));
            free_site2(alloc_site5(48));
        }
        char *p = alloc_site5(48);
        free_site4(alloc_site1(48));
        free_site2(p);
        free_site2(alloc_site5(48));
        free_here(p);
    } else if (!strcmp(m, "interior")) {
        char *p = alloc_here(40);
        free_here(p + 8);
    } else if (!strcmp(m, "stack")) {
        char local[32];
        sink = local;
        free_here(local + 16);
    } else if (!strcmp(m, "global")) {
        free_here(global_buf + 16);
    } else if (!strcmp(m, "garbage")) {
        free_here((void *)(uintptr_t)0xBADBEEF0);
    } else if (!strcmp(m, "realloc-freed")) {
        char *p = alloc_here(40);
        free_here(p);
        sink = realloc(p, 80);
    } else if (!strcmp(m, "usable-freed")) {
        char *p = alloc_here(40);
        free_here(p);
        printf("%zu\n", malloc_usable_size(p));
    } else if (!strcmp(m, "wild-meta") || !strcmp(m, "wild-meta-noncanon") ||
               !strcmp(m, "guard")) {
        char *p = alloc_here(100);
        char *base = (char *)((uintptr_t)p & ~(uintptr_t)(64 * 1024 * 1024 - 1));
        if (!strcmp(m, "guard")) {
            /* header page + start bitmap + shadow map, then the guard page */
            *(volatile char *)(base + 4096 + 512 * 1024 + 4 * 1024 * 1024 + 8) = 1;
        } else {
            /* the heap's arena pointer */
            *(volatile uintptr_t *)base =
                !strcmp(m, "wild-meta") ? 0x10 : (uintptr_t)0xdead000000000000ull;
            char *q[20];            /* more than a tcache bin holds */
            for (int i = 0; i < 20; i++)
                q[i] = alloc_here(100);
            for (int i = 0; i < 20; i++)
                free_here(q[i]);
            free_here(p);
        }
    } else if (!strcmp(m, "top-wild")) {
        /* the last block: its chunk (80 bytes for 40 with the redzones)
         * starts 32 bytes before it, and the top chunk's size word is 8
         * bytes into the top, just past it */
        char *p = alloc_here(40);
        bug_here_write(p, 80 - 32 + 8, 8);
        sink = alloc_here(3000);        /* under a page: not a guard_big block */
    } else if (!strcmp(m, "null")) {
        *(volatile int *)(uintptr_t)sink_null = 1;
    } else if (!strcmp(m, "leak")) {
        kept = (char **)alloc_here(64);          /* reachable from a global */
        kept[1] = alloc_here(777);               /* reachable through kept */
        lose_here();
        lose_big_here();
        scrub_stack();
        puts("ok");
        return 0;
    } else if (!strcmp(m, "usable")) {
        char *p = alloc_here(n);
        printf("%zu\n", malloc_usable_size(p));
        memset(p, 1, malloc_usable_size(p));    /* all of it: must be clean */
        free_here(p);
        return 0;
    } else {
        for (int i = 0; i < 2000; i++) {
            char *p = alloc_here((size_t)(i * 37) % 5000 + 1);
            p[0] = 1;
            p = realloc(p, (size_t)i % 300 + 1);
            free_here(p);
        }
        void *a = aligned_alloc(4096, 100);
        if ((uintptr_t)a % 4096) return 3;
        free(a);
        char *c = calloc(100, 10);
        for (int i = 0; i < 1000; i++) if (c[i]) return 4;
        free(c);
        puts("ok");
        return 0;
    }
    puts("survived");
    return 0;
}
