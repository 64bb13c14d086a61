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
 * and malloc_usable_size of a pointer inside a block; a sized release
 * with a size or alignment the block cannot have; and lock-wait (a lock a
 * report callback keeps asleep; below).  The parent goes on without the
 * bug.  ops-debug's and ops-guard's (dbg_bad_call) are debug mode's bad
 * calls, whose reports may be recoverable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "chunkguard.h"
#include "fuzz.h"

#ifdef FZ_DEBUG
const char *cg_default_options(void)
{
    return "symbolize=0:mode=debug:quarantine_mb=16:stack_depth=4:fill_alloc=0xbe:"
           "verify_interval=997:deadlock_timeout_ms=100";
}
#elif defined(FZ_GUARD)
const char *cg_default_options(void)
{
    return "symbolize=0:mode=guard:guard_quarantine_mb=16:stack_depth=4:fill_alloc=0xbe:"
           "verify_interval=997:deadlock_timeout_ms=100";
}
#define FZ_DEBUG 1              /* the model's expectations are debug mode's */
#else
/* fast mode; its injected bugs are reported in fork children, hundreds a
 * replay: no symbolizer run for each (every form here has symbolize=0);
 * deadlock_timeout_ms for the bad call lock-wait */
const char *cg_default_options(void)
{
    return "symbolize=0:deadlock_timeout_ms=100";
}
#endif

/* ---- waits on a lock a report callback keeps (bad calls of every
 * harness here: ops-fast's lock-wait, ops-debug's report-lock-wait) ---- */

#define LOCK_TIMEOUT_MS 100     /* deadlock_timeout_ms of cg_default_options */
#ifdef FZ_LIBFUZZER
#define FZ_IS_LIBFUZZER 1
#else
#define FZ_IS_LIBFUZZER 0
#endif
static int bad_fd = -1;
static unsigned char lk_foreign[16];   /* report-lock-wait: the waiter's pointer */

static struct {
    int gate[2];                /* the waiter starts when a byte comes      */
    int never[2];               /* read by the sleeping holder: no writer   */
    volatile int holder_tid, spin;
    bool usable_wait;           /* report-lock-wait (else lock-wait)        */
} lk;

static uint64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* The lock-wait children's callback: the holder's first report opens the
 * gate and keeps the thread (and every lock it holds) until the process
 * ends; the waiter's report goes to the parent. */
static void on_lock_report(const cg_report_t *r, void *arg)
{
    (void)arg;
    if ((int)syscall(SYS_gettid) == lk.holder_tid) {
        char msg[128];
        int n = snprintf(msg, sizeof msg, "holder %s %p\n", r->kind, r->address);
        (void)!write(bad_fd, msg, (size_t)n);
        (void)!write(lk.gate[1], "g", 1);
        for (uint64_t end = now_ms() + (uint64_t)lk.spin; now_ms() < end;)
            ;                                   /* running: the clock restarts */
        char c;
        for (;;)
            (void)!read(lk.never[0], &c, 1);    /* asleep, holding the locks */
    }
    char msg[1400];
    int n = snprintf(msg, sizeof msg, "report %s %p %d\n%.1200s\n", r->kind, r->address,
                     r->recoverable, r->text);
    (void)!write(bad_fd, msg, (size_t)n);
}

static void *lock_waiter(void *arg)
{
    (void)arg;
    char c;
    while (read(lk.gate[0], &c, 1) != 1)
        ;
    uint64_t t0 = now_ms();
    if (lk.usable_wait) {
        size_t u = malloc_usable_size((void *)(lk_foreign + 8));
        char msg[96];
        int n = snprintf(msg, sizeof msg, "returned %zu after %llu ms\n", u,
                         (unsigned long long)(now_ms() - t0));
        (void)!write(bad_fd, msg, (size_t)n);
        fz_child_exit(0);
    }
    void *p = malloc(64);      /* its first: an arena, whose locks the holder has */
    (void)!write(bad_fd, "returned", 8);
    (void)p;
    fz_child_exit(0);
}

/* lock-wait, report-lock-wait: in the child; does not return. */
static _Noreturn void lock_wait_child(fz_slot_t *s, bool usable_wait, unsigned spin)
{
    lk.usable_wait = usable_wait;
    lk.spin = (int)spin;
    lk.holder_tid = (int)syscall(SYS_gettid);
    if (pipe(lk.gate) != 0 || pipe(lk.never) != 0)
        _exit(3);
    cg_set_report_callback(on_lock_report, NULL);
    pthread_t t;
    if (pthread_create(&t, NULL, lock_waiter, NULL) != 0)
        _exit(3);
#ifdef FZ_DEBUG
    s->p[s->req] ^= 0x5a;       /* the first redzone byte after the block */
    free(s->p);                 /* reported at free: only the report lock held */
#else
    /* the next chunk's size word, 0: free's check of it (glibc's "free():
     * invalid next size (normal)") reports under the arena's lock; one
     * arena for all threads, so the waiter's malloc needs that lock */
    mallopt(M_ARENA_MAX, 1);
    *(size_t *)(s->p + malloc_usable_size(s->p)) = 1;
    free(s->p);
#endif
    (void)!write(bad_fd, "no-report", 9);
    fz_child_exit(0);
}

/* The child's outcome for lock-wait and report-lock-wait. */
static void lock_wait_check(pid_t pid, const fz_slot_t *s, bool usable_wait, unsigned spin)
{
    static char msg[4096];
    int st = fz_child_end(pid, bad_fd, msg, sizeof msg);
#ifdef FZ_DEBUG
    void *want_first = s->p + s->req;
    const char *want_kind = "heap-buffer-overflow";
#else
    void *want_first = s->p;
    const char *want_kind = "heap-corruption";
#endif
    void *first = NULL, *addr = NULL;
    char fk[32] = "", kind[32] = "";
    int holder = 0, rec = -1;
    unsigned long waited = 0;
    const char *r = strstr(msg, "report ");
    sscanf(msg, "holder %31s %p", fk, &first);
    if (r != NULL)
        sscanf(r, "report %31s %p %d", kind, &addr, &rec);
    const char *w = strstr(msg, "waited ");
    const char *h = strstr(msg, "held all that time by thread tid ");
    if (w != NULL)
        sscanf(w, "waited %lu ms", &waited);
    if (h != NULL)
        sscanf(h, "held all that time by thread tid %d", &holder);
    const char *why = NULL;
    if (strcmp(fk, want_kind) != 0 || first != want_first)
        why = "the holder's report is not the one of the damage done";
    else if (usable_wait) {
        size_t u = SIZE_MAX;
        unsigned long ms = 0;
        const char *ret = strstr(msg, "returned ");
        if (ret != NULL)
            sscanf(ret, "returned %zu after %lu ms", &u, &ms);
        if (strcmp(kind, "invalid-pointer") != 0 || addr != (void *)(lk_foreign + 8) || rec != 1)
            why = "the waiter's malloc_usable_size was not reported as invalid-pointer";
        else if (ret == NULL || u != 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            why = "the waiter's malloc_usable_size did not return 0 after its report";
        else if (ms < LOCK_TIMEOUT_MS)
            why = "the waiter's report came before deadlock_timeout_ms, with the lock held";
    } else if (strcmp(kind, "lock-wait-timeout") != 0 || rec != 0)
        why = "the waiter's wait did not end in a fatal lock-wait-timeout";
    else if (holder != pid || waited < LOCK_TIMEOUT_MS)   /* the child's main thread */
        why = "the report does not name the holder, or the wait is shorter than the timeout";
    else if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGABRT)
        why = "the child did not end by SIGABRT";
    if (why != NULL)
        fz_fail("%s (spin %u ms) on the %zu-byte block %p: %s; the child %s %d, "
                "'%.1500s'", usable_wait ? "report-lock-wait" : "lock-wait", spin, s->req,
                (void *)s->p, why, WIFSIGNALED(st) ? "died of signal" : "exited",
                WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), msg);
}

/* In a bad call's child, under the report lock: no malloc. */
static void on_bad_report(const cg_report_t *r, void *arg)
{
    (void)arg;
    char msg[128];
    int n = snprintf(msg, sizeof msg, "report %s %p %d\n", r->kind, r->address, r->recoverable);
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
        fz_child_exit(0);
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

#ifdef FZ_DEBUG
/* ---- ops-debug's and ops-guard's bad calls (FZ_OP_INJECT) -------------- */

/* The first inject op of an input makes one bad call in a child, and debug
 * (guard) mode must report exactly it — kind, address — and then go on
 * when the report says it is recoverable (the call returns; the child
 * exits 0), or end by SIGABRT when not:
 *   sized-free-size     free_sized with another size than requested
 *   sized-free-align    free_aligned_sized with an alignment the block
 *                       does not have
 *   delete-size         a sized delete with another size
 *   delete-align        an aligned delete with another alignment
 *   usable-freed        malloc_usable_size of a block just freed
 *   realloc-freed       realloc of a block just freed (double-free)
 *   usable-foreign      malloc_usable_size of the stack, a global, a page
 *   usable-interior     malloc_usable_size inside a live block
 *   cookie              delete[] of a plain new block, a cookie's size
 *                       before it, or delete of a new[] block a cookie's
 *                       size into it (alloc-dealloc-mismatch)
 * and, in ops-debug:
 *   report-lock-wait    a redzone byte overwritten, and the report of its
 *                       free sleeps in the report callback (after spinning
 *                       past the timeout when the input says so), holding
 *                       the report lock (deadlock_timeout_ms=100,
 *                       cg_default_options); a second thread's
 *                       malloc_usable_size of a foreign pointer must still
 *                       be reported — written without the lock once the
 *                       wait passed the timeout — and return 0
 */
enum { D_SIZED_SIZE, D_SIZED_ALIGN, D_DELETE_SIZE, D_DELETE_ALIGN, D_USABLE_FREED,
       D_REALLOC_FREED, D_USABLE_FOREIGN, D_USABLE_INTERIOR, D_COOKIE, D_REPORT_LOCK_WAIT,
       D_COUNT };
static const char *const dbad_name[D_COUNT] = {
    "sized-free-size", "sized-free-align", "delete-size", "delete-align", "usable-freed",
    "realloc-freed", "usable-foreign", "usable-interior", "cookie", "report-lock-wait",
};
static bool dbad_done;
static unsigned char dbad_global[64];
void free_sized(void *p, size_t n);                   /* C23; glibc 2.36 has no declaration */
void free_aligned_sized(void *p, size_t align, size_t n);

/* Can slot s take bad call kind k? */
static bool dbad_fits(const fz_slot_t *s, unsigned k)
{
    bool malloc_family = s->how == FZ_HOW_MALLOC || s->how == FZ_HOW_CALLOC ||
                         s->how == FZ_HOW_REALLOC;
    bool cxx = s->how == FZ_HOW_NEW || s->how == FZ_HOW_NEW_ARRAY;
    if (s->p == NULL || s->served || s->tainted)
        return false;
    switch (k) {
    case D_SIZED_SIZE: case D_SIZED_ALIGN: return malloc_family;
    case D_DELETE_SIZE: return cxx && s->asked == 0;
    case D_DELETE_ALIGN: return cxx && s->asked != 0;
    case D_USABLE_FREED: case D_REALLOC_FREED:
        return !cxx && s->req <= 1024 * 1024;    /* still in the 16 MiB quarantine */
    case D_USABLE_INTERIOR: return s->req >= 2;
    case D_COOKIE: return cxx && s->asked == 0 && (s->how == FZ_HOW_NEW ? true : s->req >= 17);
#if !defined(FZ_GUARD) && !defined(FZ_LIBFUZZER)   /* see B_LOCK_WAIT */
    case D_REPORT_LOCK_WAIT: return !cxx && s->req >= 1;
#endif
    case D_USABLE_FOREIGN: return true;
    default: return false;
    }
}

/* FZ_OP_INJECT (ops-debug, ops-guard): one bad call, in a child. */
static void dbg_bad_call(fz_model_t *m, fz_in_t *in)
{
    unsigned kind = fz_u8(in) % D_COUNT, sel = fz_u8(in), off = fz_u16(in);
    if (dbad_done)
        return;
    int i = -1;
    for (unsigned k = 0; k < m->nslots && i < 0; k++)
        if (dbad_fits(&m->slot[(sel + k) % m->nslots], kind))
            i = (int)((sel + k) % m->nslots);
    if (i < 0)
        return;
    dbad_done = true;
    fz_slot_t *s = &m->slot[i];
    unsigned char stack_thing[32], *at = s->p;
    static unsigned char *page;
    size_t big = s->req + 1 + off % 64, small = s->req > 0 ? s->req - 1 : 1;
    size_t bad_align = ((uintptr_t)s->p & -(uintptr_t)s->p) << 1;   /* twice its lowest bit */
    size_t cookie = off & 1 ? 16 : 8;
    const char *want = "free-size-mismatch";
    switch (kind) {
    case D_DELETE_SIZE: case D_DELETE_ALIGN: want = "new-delete-type-mismatch"; break;
    case D_USABLE_FREED: case D_USABLE_FOREIGN: case D_USABLE_INTERIOR:
        want = "invalid-pointer"; break;
    case D_REALLOC_FREED: want = "double-free"; break;
    case D_COOKIE:
        want = "alloc-dealloc-mismatch";
        at = s->how == FZ_HOW_NEW ? s->p - cookie : s->p + cookie;
        break;
    }
    if (kind == D_USABLE_FOREIGN) {
        if (page == NULL)
            page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        at = off % 3 == 0 ? stack_thing : off % 3 == 1 || page == MAP_FAILED ? dbad_global + 16
                                                                          : page + 16;
    } else if (kind == D_USABLE_INTERIOR) {
        at = s->p + 1 + off % (s->req - 1);
    } else if (kind == D_USABLE_FREED || kind == D_REALLOC_FREED) {
        fz_model_free(m, (unsigned)i, 0);        /* the first free, here */
    }
    unsigned spin = off & 2 ? 2 * LOCK_TIMEOUT_MS : 0;
    pid_t pid = fz_fork_child(&bad_fd);
    if (pid == 0) {
        if (kind == D_REPORT_LOCK_WAIT)
            lock_wait_child(s, true, spin);
        cg_set_report_callback(on_bad_report, NULL);
        bool arr = s->how == FZ_HOW_NEW_ARRAY;
        switch (kind) {
        case D_SIZED_SIZE: free_sized(at, off & 1 ? small : big); break;
        case D_SIZED_ALIGN: free_aligned_sized(at, bad_align, s->req); break;
        case D_DELETE_SIZE: (arr ? _ZdaPvm : _ZdlPvm)(at, off & 1 ? small : big); break;
        case D_DELETE_ALIGN:
            if (off & 1)
                (arr ? _ZdaPvmSt11align_val_t : _ZdlPvmSt11align_val_t)(at, s->req, s->asked * 2);
            else
                (arr ? _ZdaPvSt11align_val_t : _ZdlPvSt11align_val_t)(at, s->asked * 2);
            break;
        case D_USABLE_FREED: case D_USABLE_FOREIGN: case D_USABLE_INTERIOR:
            if (malloc_usable_size(at) != 0)
                (void)!write(bad_fd, "nonzero ", 8);
            break;
        case D_REALLOC_FREED:
            if (realloc(at, 100) != NULL)
                (void)!write(bad_fd, "nonnull ", 8);
            break;
        case D_COOKIE: (arr ? _ZdlPv : _ZdaPv)(at); break;
        }
        (void)!write(bad_fd, "returned", 8);
        fz_child_exit(0);
    }
    if (kind == D_REPORT_LOCK_WAIT) {
        lock_wait_check(pid, s, true, spin);
        return;
    }
    char msg[200], got[32];
    void *addr = NULL;
    int rec = -1;
    int st = fz_child_end(pid, bad_fd, msg, sizeof msg);
    got[0] = 0;
    sscanf(msg, "report %31s %p %d", got, &addr, &rec);
    bool went_on = strstr(msg, "returned") != NULL && strstr(msg, "nonzero") == NULL &&
                   strstr(msg, "nonnull") == NULL && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    bool ended = WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
    if (strcmp(got, want) != 0 || addr != (void *)at || (rec == 1 ? !went_on : !ended))
        fz_fail("%s mode, a %s of %p (slot of %zu bytes at %p): the child %s %d, '%s' (wanted %s "
                "at that address, then the call to return when recoverable, else SIGABRT)",
#ifdef FZ_GUARD
                "guard",
#else
                "debug",
#endif
                dbad_name[kind], (void *)at, s->req, (void *)s->p,
                WIFSIGNALED(st) ? "died of signal" : "exited",
                WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), msg, want);
}
#endif

#if !defined(FZ_DEBUG)
/* B_LOCK_WAIT (a kind byte of 0xf0 and up; the others are taken modulo
 * B_LOCK_WAIT, as before it came): the next chunk's size word of a heap
 * block past the tcache overwritten, then its free, whose report (fatal
 * in fast mode) is made under the arena's lock: the report callback
 * keeps the thread, and the lock, asleep (after spinning past the timeout
 * when the input says so: a running holder restarts the clock), and a
 * second thread's malloc on the one arena (M_ARENA_MAX 1) must end in
 * lock-wait-timeout (deadlock_timeout_ms=100, cg_default_options) naming
 * the holder, after at least the timeout. */
/* Kind bytes 0xe0 to 0xef: a sized release whose size or alignment the
 * block cannot have (fast mode knows the chunk, not the request):
 * free_sized with more than the usable size, free_aligned_sized with an
 * alignment the block lacks (free-size-mismatch), a sized delete of a new
 * block with more than it holds, an aligned delete with an alignment it
 * lacks (new-delete-type-mismatch). */
enum { B_INTERIOR, B_HEADER, B_FOREIGN, B_DOUBLE, B_REALLOC_INTERIOR, B_USABLE_INTERIOR,
       B_LOCK_WAIT, B_SIZED_SIZE, B_SIZED_ALIGN, B_DELETE_SIZE, B_DELETE_ALIGN, B_COUNT };
static const char *const bad_name[B_COUNT] = {
    "free-interior", "free-in-header", "free-foreign", "double-free", "realloc-interior",
    "usable-interior", "lock-wait", "sized-free-size", "sized-free-align", "delete-size",
    "delete-align",
};
void free_sized(void *p, size_t n);                   /* C23; glibc 2.36 has no declaration */
void free_aligned_sized(void *p, size_t align, size_t n);
static bool bad_done;
static unsigned char bad_global[64];

/* FZ_OP_INJECT (ops-fast): one bad call, in a child. */
static void bad_call(fz_model_t *m, fz_in_t *in)
{
    unsigned kind = fz_u8(in), sel = fz_u8(in), off = fz_u16(in);
    kind = kind >= 0xf0 ? B_LOCK_WAIT
           : kind >= 0xe0 ? B_SIZED_SIZE + (kind - 0xe0) % 4 : kind % B_LOCK_WAIT;
    if (bad_done)
        return;
    int i = -1;
    for (unsigned k = 0; k < m->nslots && i < 0; k++) {
        const fz_slot_t *s = &m->slot[(sel + k) % m->nslots];
        bool cxx = s->how == FZ_HOW_NEW || s->how == FZ_HOW_NEW_ARRAY;
        bool malloc_family = s->how == FZ_HOW_MALLOC || s->how == FZ_HOW_CALLOC;
        /* lock-wait: not under libFuzzer, where its child failed in
         * 65-fuzz's smoke run (not understood yet); replay, AFL++, cov */
        bool fits = kind == B_LOCK_WAIT ? s->req > 2048 && s->req < m->mmap_floor &&
                                              malloc_family && !FZ_IS_LIBFUZZER
                    : kind == B_SIZED_SIZE || kind == B_SIZED_ALIGN ? malloc_family
                    : kind == B_DELETE_SIZE || kind == B_DELETE_ALIGN ? cxx : true;
        if (s->p != NULL && !s->served && s->req >= 32 && s->align == 16 && fits)
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
                       : kind == B_DOUBLE ? "double-free"
                       : kind == B_SIZED_SIZE || kind == B_SIZED_ALIGN ? "free-size-mismatch"
                       : kind == B_DELETE_SIZE || kind == B_DELETE_ALIGN ? "new-delete-type-mismatch"
                       : "invalid-free";
    size_t more = s->span + 1 + off % 64;                /* than the block holds */
    size_t bad_align = ((uintptr_t)s->p & -(uintptr_t)s->p) << 1;   /* twice its lowest bit */
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
    case B_LOCK_WAIT: {
        unsigned spin = off & 2 ? 2 * LOCK_TIMEOUT_MS : 0;
        pid_t pid = fz_fork_child(&bad_fd);
        if (pid == 0)
            lock_wait_child(s, false, spin);
        lock_wait_check(pid, s, false, spin);
        return;
    }
    case B_SIZED_SIZE: case B_SIZED_ALIGN: case B_DELETE_SIZE: case B_DELETE_ALIGN:
        at = s->p;
        break;
    default:                                     /* inside: 1 .. req - 1 bytes in */
        at = s->p + 1 + off % (s->req - 1);
    }
    pid_t pid = fz_fork_child(&bad_fd);
    if (pid == 0) {
        cg_set_report_callback(on_bad_report, NULL);
        bool arr = s->how == FZ_HOW_NEW_ARRAY;
        if (kind == B_SIZED_SIZE)
            free_sized(at, more);
        else if (kind == B_SIZED_ALIGN)
            free_aligned_sized(at, bad_align, s->req);
        else if (kind == B_DELETE_SIZE)
            (arr ? _ZdaPvm : _ZdlPvm)(at, more);
        else if (kind == B_DELETE_ALIGN)
            (arr ? _ZdaPvSt11align_val_t : _ZdlPvSt11align_val_t)(at, bad_align);
        else if (kind == B_REALLOC_INTERIOR)
            (void)!realloc(at, 100);
        else if (kind == B_USABLE_INTERIOR)
            (void)!malloc_usable_size(at);
        else
            free(at);
        (void)!write(bad_fd, "no-report", 9);
        fz_child_exit(0);
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
    m.subruns = 1;
#ifdef FZ_DEBUG
    m.mismatch = mismatch_call;
    m.inject = dbg_bad_call;
    m.inject_exact = true;
    dbad_done = false;
#endif
    fz_in_t in = { data, size, 0 };
    while (fz_model_step(&m, &in, NULL))
        ;
    fz_model_release_all(&m);
    fz_verify_heap("after an input");
    return 0;
}
