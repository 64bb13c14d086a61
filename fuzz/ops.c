/*
 * ops.c — the ops harness, single-threaded: each input is a sequence of
 * malloc-family calls over 256 slots, checked against the model of the API
 * contract (model.c), then every block is freed and cg_verify_heap() runs.
 * Built three times: ops-fast (fast mode), with -DFZ_DEBUG ops-debug (debug
 * mode: redzones, shadow records, quarantine), and with -DFZ_GUARD
 * ops-guard (guard mode: every block on pages of its own).  The mode is fixed at
 * start-up, so it comes from cg_default_options(), which chunkguard reads at
 * its first allocation — before any constructor could set the environment.
 * No report is expected: any report ends the process, which the fuzzer
 * records as a crash.  These binaries never create a thread.
 *
 * ops-fast's FZ_OP_INJECT (the first of an input) makes one bad call in a
 * fork()ed child, and fast mode must end the child by SIGABRT after
 * exactly that report (its kind, at that address): free of a pointer
 * inside a live block, in its header, or not chunkguard's (the stack, a
 * global, an mmap'd page); a second free of a block just freed; realloc
 * and malloc_usable_size of a pointer inside a block.  The parent goes on
 * without the bug.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chunkguard.h"
#include "fuzz.h"

#ifdef FZ_DEBUG
const char *cg_default_options(void)
{
    return "symbolize=0:mode=debug:quarantine_mb=16:stack_depth=4:fill_alloc=0xbe:verify_interval=997";
}
#elif defined(FZ_GUARD)
const char *cg_default_options(void)
{
    return "symbolize=0:mode=guard:guard_quarantine_mb=16:stack_depth=4:fill_alloc=0xbe:verify_interval=997";
}
#define FZ_DEBUG 1              /* the model's expectations are debug mode's */
#else
/* fast mode; its injected bugs are reported in fork children, hundreds a
 * replay: no symbolizer run for each (every form here has symbolize=0) */
const char *cg_default_options(void)
{
    return "symbolize=0";
}
#endif

static int bad_fd = -1;

/* In a bad call's child, under the report lock: no malloc. */
static void on_bad_report(const cg_report_t *r, void *arg)
{
    (void)arg;
    char msg[128];
    int n = snprintf(msg, sizeof msg, "report %s %p\n", r->kind, r->address);
    (void)!write(bad_fd, msg, (size_t)n);
}

#ifdef FZ_DEBUG
/* ops-debug, ops-guard (FZ_OP_CXX): slot i's block, from a C++ operator
 * new form, released in a child by another family — free(), or the delete
 * of the other array-ness (new vs new[]) — which debug mode reports as
 * alloc-dealloc-mismatch at the block's address, a recoverable report
 * (docs/reports.md): the release goes on and the child returns.  The
 * parent keeps the block. */
static void mismatch_call(fz_model_t *m, unsigned i, unsigned how)
{
    const fz_slot_t *s = &m->slot[i];
    if (s->p == NULL || s->served)
        return;
    bool arr = s->how == FZ_HOW_NEW_ARRAY, aligned = s->asked != 0, use_free = how & 1;
    pid_t pid = fz_fork_child(&bad_fd);
    if (pid == 0) {
        cg_set_report_callback(on_bad_report, NULL);
        if (use_free)
            free(s->p);
        else if (aligned)
            (arr ? _ZdlPvSt11align_val_t : _ZdaPvSt11align_val_t)(s->p, s->asked);
        else
            (arr ? _ZdlPv : _ZdaPv)(s->p);
        (void)!write(bad_fd, "returned", 8);
        fz_coverage_dump();
        _exit(0);
    }
    char msg[200], got[32];
    void *addr;
    int st = fz_child_report(pid, bad_fd, msg, sizeof msg, got, &addr);
    if (strcmp(got, "alloc-dealloc-mismatch") != 0 || addr != (void *)s->p ||
        strstr(msg, "returned") == NULL || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fz_fail("debug mode, %s of a block from operator new%s%s: the child %s %d, '%s' "
                "(wanted alloc-dealloc-mismatch at %p, then the release to go on)",
                use_free ? "free()" : "the other delete", arr ? "[]" : "",
                aligned ? " (aligned)" : "", WIFSIGNALED(st) ? "died of signal" : "exited",
                WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), msg, (void *)s->p);
}
#endif

#if !defined(FZ_DEBUG)
enum { B_INTERIOR, B_HEADER, B_FOREIGN, B_DOUBLE, B_REALLOC_INTERIOR, B_USABLE_INTERIOR, B_COUNT };
static const char *const bad_name[B_COUNT] = {
    "free-interior", "free-in-header", "free-foreign", "double-free", "realloc-interior",
    "usable-interior",
};
static bool bad_done;
static unsigned char bad_global[64];

/* FZ_OP_INJECT (ops-fast): one bad call, in a child. */
static void bad_call(fz_model_t *m, fz_in_t *in)
{
    unsigned kind = fz_u8(in) % B_COUNT, sel = fz_u8(in), off = fz_u16(in);
    if (bad_done)
        return;
    int i = -1;
    for (unsigned k = 0; k < m->nslots && i < 0; k++) {
        const fz_slot_t *s = &m->slot[(sel + k) % m->nslots];
        if (s->p != NULL && !s->served && s->req >= 32 && s->align == 16)
            i = (int)((sel + k) % m->nslots);
    }
    if (i < 0)
        return;
    bad_done = true;
    fz_slot_t *s = &m->slot[i];
    unsigned char stack_thing[32], *at;
    static unsigned char *page;
    /* docs/reports.md: free and realloc say invalid-free, malloc_usable_size
     * invalid-pointer */
    const char *want = kind == B_USABLE_INTERIOR ? "invalid-pointer"
                       : kind == B_DOUBLE ? "double-free" : "invalid-free";
    switch (kind) {
    case B_HEADER:
        at = s->p - 8;
        break;
    case B_FOREIGN:
        if (page == NULL)
            page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        at = off % 3 == 0 ? stack_thing : off % 3 == 1 || page == MAP_FAILED ? bad_global + 16
                                                                           : page + 16;
        break;
    case B_DOUBLE:
        at = s->p;
        fz_model_free(m, (unsigned)i, 0);        /* the first free, here */
        break;
    default:                                     /* inside: 1 .. req - 1 bytes in */
        at = s->p + 1 + off % (s->req - 1);
    }
    pid_t pid = fz_fork_child(&bad_fd);
    if (pid == 0) {
        cg_set_report_callback(on_bad_report, NULL);
        if (kind == B_REALLOC_INTERIOR)
            (void)!realloc(at, 100);
        else if (kind == B_USABLE_INTERIOR)
            (void)!malloc_usable_size(at);
        else
            free(at);
        (void)!write(bad_fd, "no-report", 9);
        fz_coverage_dump();
        _exit(0);
    }
    char msg[200], got[32];
    void *addr;
    int st = fz_child_report(pid, bad_fd, msg, sizeof msg, got, &addr);
    /* a second free of a big block finds it unmapped: not ours, or
     * recognised as one freed before */
    /* ... and one whose chunk was merged into the top chunk, its header
     * since overwritten by a block carved from top and given back, is in
     * free space that no header marks: fast mode keeps no memory of freed
     * blocks, so invalid-free is all it can say (docs/reports.md,
     * IN_FREE_SPACE_FREE) */
    char where[256] = "";
    if (kind == B_DOUBLE && strcmp(got, "invalid-free") == 0)
        cg_describe(at, where, sizeof where);
    bool kind_ok = strcmp(got, want) == 0 ||
                   (kind == B_DOUBLE && strcmp(got, "invalid-free") == 0 &&
                    s->p == NULL && m->freed[(m->nfreed - 1) % FZ_FREED].req >= 64 * 1024) ||
                   (kind == B_DOUBLE && strcmp(got, "invalid-free") == 0 &&
                    strstr(where, "the top (free space) chunk") != NULL);
    if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGABRT || !kind_ok || addr != (void *)at)
        fz_fail("fast mode, a %s of %p: the child %s %d, '%s' (wanted %s at that address)%s%s",
                bad_name[kind], (void *)at, WIFSIGNALED(st) ? "died of signal" : "exited",
                WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), msg, want,
                where[0] ? "; the address: " : "", where);
}
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fz_no_libfuzzer_threads(argc, argv);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_INPUT)
        return 0;
    static fz_model_t m;
#ifdef FZ_DEBUG
    const bool debug = true;
#else
    const bool debug = false;
#endif
    fz_assert_single_threaded();
    fz_model_init(&m, FZ_SLOTS, debug);
#if !defined(FZ_DEBUG)
    m.inject = bad_call;
    bad_done = false;
#endif
#ifdef FZ_GUARD
    /* Not in guard mode: its blocks end at their page's end, where glibc's
     * memset leaves pointers to a block's last 64 bytes in registers that
     * later frames spill, and the conservative scan keeps all three hidden
     * blocks often enough to fail the check's promise.  The leak scan of
     * guarded blocks is tests/suites/58-guard.sh's. */
    m.leak_checks = 0;
#else
    m.leak_checks = debug;
#endif
    m.cxx_ok = true;
#ifdef FZ_DEBUG
    m.mismatch = mismatch_call;
#endif
    fz_in_t in = { data, size, 0 };
    while (fz_model_step(&m, &in, NULL))
        ;
    fz_model_release_all(&m);
    fz_verify_heap("after an input");
    return 0;
}
