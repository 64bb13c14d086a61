/*
 * vgprog.c — memory bugs for memcheck to find in a program that
 * chunkguard serves (tests/suites/62-valgrind.sh).  Built twice: linked
 * with libchunkguard.a, and plain for LD_PRELOAD.
 *
 * usage: vgprog CASE | all
 *   uaf         read 8 bytes into a 40-byte block after its free
 *   overflow    read the byte just past a 56-byte block
 *   slack       read the byte just past a 20-byte block (inside its chunk)
 *   header      read the 8 bytes before a 72-byte block (its chunk header,
 *               or a debug block's leading redzone)
 *   uninit      branch on a byte of a new block never written
 *   realloc-old read 20 bytes into an 88-byte block after realloc moved it
 *   shrunk      read 10 bytes past a 1000-byte block realloc shrank to 900
 *               (says whether in place)
 *   aligned     read past a 500-byte block aligned to 256
 *   big         read past a 300000-byte block (its own mapping)
 *   calloc-uaf  read the last byte of a 136-byte calloc'd block after its free
 *   clean       all of that done right, and more: no error
 *   abort-then-uaf  a double free whose report ends the process with
 *               SIGABRT, and a SIGABRT handler (libFuzzer's writes its
 *               crash input there) that reads a freed block, then exits
 *               with status 7: memcheck must report that read
 *   jump-then-uaf   a double free whose report callback longjmps out,
 *               then a read after free: memcheck must report the read
 *   all         every case above clean included, in this order, each after a line
 *               "vgprog: case NAME" on stderr (valgrind is slow to start:
 *               one run serves them all; each bad access has its own
 *               call site, so memcheck counts one error context each)
 * First checks that chunkguard serves the program (its counters move;
 * exit 3 otherwise), so a run where valgrind replaced chunkguard's malloc
 * cannot pass.  The bad accesses are made by functions of their own
 * (peek, peek8, branch_on), which memcheck's stacks must name.  Exit 0,
 * or 1 when clean found a block holding the wrong bytes.
 */
#include <malloc.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chunkguard.h"

/* Weak: the preloaded library defines it at run time, the .a at link. */
extern void cg_get_stats(cg_stats_t *out) __attribute__((weak));
extern void cg_set_report_callback(cg_report_callback_t cb, void *arg) __attribute__((weak));

static volatile unsigned char sink;

__attribute__((noinline)) static void peek(const unsigned char *p, long off)
{
    sink = p[off];
}

__attribute__((noinline)) static void peek8(const unsigned char *p, long off)
{
    typedef uint64_t __attribute__((may_alias)) word_t;
    sink = (unsigned char)*(const volatile word_t *)(p + off);   /* one 8-byte load */
}

__attribute__((noinline)) static void hit(void)
{
    sink = 42;
}

/* A conditional jump on the byte (a set-on-compare would not be one). */
__attribute__((noinline)) static int branch_on(const unsigned char *p, long off)
{
    if (p[off] == 42) {
        hit();
        return 1;
    }
    return 0;
}

/* Called through volatile pointers: valgrind translates a direct call to
 * a small function together with its caller, and then names the caller
 * as the frame of an access in it. */
static void (*volatile peek_at)(const unsigned char *, long) = peek;
static void (*volatile peek8_at)(const unsigned char *, long) = peek8;
static int (*volatile branch_at)(const unsigned char *, long) = branch_on;

static void served_by_chunkguard(void)
{
    cg_stats_t a, b;
    if (cg_get_stats == NULL) {
        printf("no cg_get_stats: chunkguard is not loaded\n");
        exit(3);
    }
    cg_get_stats(&a);
    free(malloc(24));
    cg_get_stats(&b);
    if (b.mallocs == a.mallocs) {
        printf("chunkguard's malloc is not the one called (valgrind replaced it?)\n");
        exit(3);
    }
    printf("served by chunkguard\n");
    fflush(stdout);
}

/* Everything the bad cases do, done right: memcheck must find nothing. */
static int clean(void)
{
    int bad = 0;
    unsigned char *p = malloc(40);
    memset(p, 7, 40);
    bad += branch_at(p, 39);
    free(p);
    unsigned char *z = calloc(10, 10);
    for (int i = 0; i < 100; i++)
        bad += branch_at(z, i);          /* defined: calloc zeroed it */
    /* realloc grown in place, moved, shrunk: the bytes written stay
     * defined wherever the block goes */
    unsigned char *r = malloc(100);
    memset(r, 42, 100);
    unsigned char *keep = malloc(64);    /* a neighbour, so r must move to grow far */
    memset(keep, 1, 64);
    r = realloc(r, 5000);
    for (int i = 0; i < 100; i++)
        bad += !branch_at(r, i);
    memset(r + 100, 42, 4900);
    r = realloc(r, 200);                 /* shrunk in place */
    for (int i = 0; i < 200; i++)
        bad += !branch_at(r, i);
    r = realloc(r, 300000);              /* a big block */
    for (int i = 0; i < 200; i++)
        bad += !branch_at(r, i);
    memset(r + 200, 42, 300000 - 200);
    r = realloc(r, 600000);              /* a big block grown: copied */
    for (int i = 0; i < 300000; i += 997)
        bad += !branch_at(r, i);
    r = realloc(r, 64);
    bad += !branch_at(r, 63);
    free(r);
    void *a = aligned_alloc(256, 100);
    memset(a, 0, 100);
    bad += branch_at(a, 99);
    bad += ((uintptr_t)a & 255) != 0;
    bad += malloc_usable_size(a) < 100;
    free(a);
    void *pm;
    if (posix_memalign(&pm, 64, 1000) != 0)
        return 1;
    memset(pm, 3, 1000);
    free(pm);
    /* many small blocks: fastbins, bins, consolidation, the top */
    void *many[2000];
    for (int i = 0; i < 2000; i++) {
        many[i] = malloc((size_t)(i % 300) + 1);
        memset(many[i], i & 0xff, (size_t)(i % 300) + 1);
    }
    for (int i = 0; i < 2000; i += 2)
        free(many[i]);
    for (int i = 0; i < 2000; i += 2)
        many[i] = calloc(1, (size_t)(i % 700) + 1);
    for (int i = 0; i < 2000; i++)
        free(many[i]);
    free(keep);
    free(z);
    malloc_trim(0);
    struct mallinfo2 mi = mallinfo2();
    bad += mi.arena == 0;
    printf("clean: %s\n", bad ? "WRONG" : "ok");
    return bad != 0;
}

/* The bad cases keep every block but the one they free, and each uses
 * chunk sizes of its own: the blocks of one run are never at an address
 * that an earlier case's freed block covered, for memcheck names the
 * oldest freed block it knows at an address. */
static void uaf(void)
{
    unsigned char *p = malloc(40);
    memset(p, 1, 40);
    free(p);
    peek_at(p, 8);
}

/* The byte just past the n bytes at p, all written first. */
static void read_past(unsigned char *p, size_t n)
{
    memset(p, 1, n);
    peek_at(p, (long)n);
}

static void overflow(void)
{
    read_past(malloc(56), 56);
}

static void slack(void)
{
    read_past(malloc(20), 20);
}

static void header(void)
{
    unsigned char *p = malloc(72);
    memset(p, 1, 72);
    peek8_at(p, -8);
}

static void uninit(void)
{
    unsigned char *p = malloc(120);
    p[0] = 1;
    branch_at(p, 3);
}

/* At offset 20: the first bytes of a chunk are also just past the block
 * before it, which memcheck's description prefers when that one is live. */
static void realloc_old(void)
{
    unsigned char *p = malloc(88);
    memset(p, 1, 88);
    (void)malloc(200);                 /* so that p cannot grow in place */
    unsigned char *q = realloc(p, 4096);
    if (q == p) {
        fprintf(stderr, "vgprog: realloc did not move the block\n");
        exit(4);
    }
    peek_at(p, 20);
}

/* In place in fast mode; debug mode's realloc always moves. */
static void shrunk(void)
{
    unsigned char *p = malloc(1000);
    memset(p, 1, 1000);
    unsigned char *q = realloc(p, 900);
    fprintf(stderr, "vgprog: shrunk %s\n", q == p ? "in place" : "by a move");
    peek_at(q, 910);
}

static void aligned(void)
{
    read_past(aligned_alloc(256, 500), 500);
}

static void big(void)
{
    read_past(malloc(300000), 300000);
}

static void calloc_uaf(void)
{
    unsigned char *p = calloc(4, 34);
    free(p);
    peek_at(p, 135);
}

/* The block an abort handler or the code after a jump reads after its
 * free: chunkguard's report must not leave memcheck's error reporting
 * off in the thread it came from (vgclient.h). */
static unsigned char *gone;

static void read_gone(void)
{
    peek_at(gone, 16);
}

static void double_free(void)
{
    unsigned char *p = malloc(48);
    gone = malloc(64);
    free(gone);
    free(p);
    free(p);
}

static void on_abort(int sig)
{
    (void)sig;
    read_gone();
    _exit(7);
}

static int run_abort_then_uaf(void)
{
    signal(SIGABRT, on_abort);
    double_free();
    return 1;                                 /* not reached: SIGABRT */
}

static jmp_buf out;

static void jump_out(const cg_report_t *report, void *arg)
{
    (void)report;
    (void)arg;
    longjmp(out, 1);
}

static int run_jump_then_uaf(void)
{
    cg_set_report_callback(jump_out, NULL);
    if (setjmp(out) == 0) {
        double_free();
        return 1;                             /* no report */
    }
    cg_set_report_callback(NULL, NULL);
    read_gone();
    return 0;
}

static int run_clean(void) { return clean(); }
#define VOID_CASE(f) static int run_##f(void) { f(); return 0; }
VOID_CASE(uaf) VOID_CASE(overflow) VOID_CASE(slack) VOID_CASE(header) VOID_CASE(uninit)
VOID_CASE(realloc_old) VOID_CASE(shrunk) VOID_CASE(aligned) VOID_CASE(big) VOID_CASE(calloc_uaf)

static const struct {
    const char *name;
    int (*run)(void);
    int alone;                       /* not one of "all": it ends or jumps */
} cases[] = {
    { "uaf", run_uaf },         { "overflow", run_overflow }, { "slack", run_slack },
    { "header", run_header },   { "uninit", run_uninit },     { "realloc-old", run_realloc_old },
    { "shrunk", run_shrunk },   { "aligned", run_aligned },   { "big", run_big },
    { "calloc-uaf", run_calloc_uaf }, { "clean", run_clean },
    { "abort-then-uaf", run_abort_then_uaf, 1 }, { "jump-then-uaf", run_jump_then_uaf, 1 },
};

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: vgprog CASE|all\n");
        return 2;
    }
    served_by_chunkguard();
    int bad = 0, found = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], "all") == 0 ? cases[i].alone : strcmp(argv[1], cases[i].name) != 0)
            continue;
        fprintf(stderr, "vgprog: case %s\n", cases[i].name);
        bad |= cases[i].run();
        found = 1;
    }
    if (!found) {
        fprintf(stderr, "vgprog: unknown case %s\n", argv[1]);
        return 2;
    }
    fprintf(stderr, "vgprog: end\n");
    return bad;
}
