/*
 * corrupt.c — corruption-injection fuzzing of debug mode's detectors.
 *
 * The ops stream of model.c, in debug mode with a report callback (so
 * debug mode's recoverable reports let the input go on), plus one injected
 * bug at the first FZ_OP_INJECT op: its kind and target come from the
 * input.  Debug mode must detect
 *   overflow        1..16 bytes past a live block (inside the redzone)
 *   underflow       1..16 bytes before it (the leading redzone)
 *   header          a byte of a live block's chunk size word changed
 *   size            the whole size word overwritten
 *   double-free     a second free of a block still in the quarantine
 *   uaf-write       a byte written into a block still in the quarantine
 *   next-ptr        its first 8 bytes (where fast mode keeps the tcache or
 *                   fastbin next pointer) overwritten, still quarantined
 *   interior-free   free of a pointer inside a live block
 *   foreign-free    free of a stack, global, mmap'd or unmapped address
 * and the harness aborts when it misses one (no report, or a report of
 * another kind or address) or when chunkguard faults (a "segv" report or a
 * signal).  Other bugs are injected too and only counted, detected or not:
 *   overflow-far    17..80 bytes from the last 8 of a heap block's
 *                   chunk on (where the next chunk's header starts: past
 *                   the redzone chunkguard promises, into that header);
 *                   from the block's end when that is nearer
 *   prev-inuse      the PREV_INUSE bit of a live block's header flipped
 *   late-double-free, late-uaf   the block had left the quarantine
 *   late-link       a byte of the first link (fd, bk) of a free chunk of
 *                   the core's that now lies in a block's memory that
 *                   left the quarantine (a remainder carved from it),
 *                   for the bin walks (malloc_trim, mallinfo2) to meet
 *   overflow-1mib, underflow-pages   a byte written 1 MiB past a live
 *                   block, or into the first unreadable page below it (in
 *                   a heap, the guard page before its first chunk), when
 *                   nothing readable is there (the part of a heap above
 *                   its top, a guard page, or nothing mapped):
 *                   chunkguard's fault handler must report it, at that
 *                   address, as heap-buffer-overflow (a block within 1 MiB
 *                   below) or segv (a wild access), and the child then dies
 *                   by SIGABRT, or by SIGSEGV after a segv report (the
 *                   default action); a readable address is not written
 * Kinds that damage the core's metadata run in a fork()ed child that goes
 * on with the rest of the input, releases everything and pushes the
 * quarantine out; it sends the outcome (first report, or none) back
 * through a pipe, and the parent goes on with the input without the bug.
 * With AFL++ the child's coverage counts (the map is shared memory);
 * libFuzzer sees only the parent's.  fz_summary() prints the counts per
 * kind after a replay; `make fuzz-smoke` requires each to be above zero
 * over the seed corpus.
 *
 * Where a chunk's header, its end and a free chunk's links are comes from
 * the library's own layout, asked through cg_describe (block_chunk,
 * free_link), never from sizes written here: a change of the layout
 * (redzones, size classes) moves the writes with it, so the regression
 * inputs keep reaching the metadata they were made to damage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chunkguard.h"
#include "fuzz.h"

const char *cg_default_options(void)
{
    /* reports go to the callback; the log would only be noise, and so
     * would a symbolizer run per report (symbolize=0: thousands of them) */
    /* no sampled guard slots, no guarded big blocks: the injected bugs are
     * aimed at debug blocks (and the regression inputs at their layout) */
    return "symbolize=0:mode=debug:quarantine_mb=1:stack_depth=2:log_path=/dev/null:guard_sample=0:guard_big=0";
}

/* overflow-1mib and underflow-pages need chunkguard's SIGSEGV handler: the
 * sanitizer runtime of the libFuzzer build must not take the signal
 * (LLVMFuzzerInitialize keeps libFuzzer's off it too). */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
    return "handle_segv=0:handle_sigbus=0:handle_abort=0";
}

enum { K_OVERFLOW, K_UNDERFLOW, K_HEADER, K_SIZE, K_DOUBLE_FREE, K_UAF_WRITE, K_NEXT_PTR,
       K_INTERIOR_FREE, K_FOREIGN_FREE,
       K_MUST = K_FOREIGN_FREE,                      /* kinds <= this: must be detected */
       K_OVERFLOW_FAR, K_PREV_INUSE, K_LATE_DOUBLE_FREE, K_LATE_UAF, K_FAR_PAST, K_FAR_BEFORE,
       K_LATE_LINK, K_COUNT };

static const char *const kind_name[K_COUNT] = {
    "overflow", "underflow", "header", "size", "double-free", "uaf-write", "next-ptr",
    "interior-free", "foreign-free", "overflow-far", "prev-inuse", "late-double-free",
    "late-uaf", "overflow-1mib", "underflow-pages", "late-link",
};

static size_t injected[K_COUNT], detected[K_COUNT];

/* ---- reports ----------------------------------------------------------- */

static struct {
    unsigned count;
    char kind[32];
    const void *addr;
    char text[1024];
} seen;

static int child_fd = -1;          /* in a forked child: the pipe to the parent */
static volatile int writing_bug;   /* a fault now is the harness's own write    */

static void copy(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* Runs under chunkguard's report lock: no malloc, no free. */
static void on_report(const cg_report_t *r, void *arg)
{
    (void)arg;
    if (seen.count++ == 0) {
        copy(seen.kind, sizeof seen.kind, r->kind);
        seen.addr = r->address;
        copy(seen.text, sizeof seen.text, r->text);
        if (child_fd >= 0) {
            char msg[1100];
            int n = snprintf(msg, sizeof msg, "%s %s %p\n%s",
                             writing_bug == 2 ? "fault" : writing_bug ? "harness-fault" : "report",
                             r->kind, r->address, r->text);
            (void)!write(child_fd, msg, (size_t)(n < (int)sizeof msg ? n : (int)sizeof msg - 1));
        }
    } else if (child_fd >= 0 && strcmp(r->kind, "segv") == 0) {
        /* a fault after the first report (the closing heap check's):
         * the parent must hear of it too */
        (void)!write(child_fd, "\nlate-segv", 10);
    }
}

static void child_model_failure(const char *msg, size_t len)
{
    char buf[600];
    int n = snprintf(buf, sizeof buf, "model %.*s", (int)len, msg);
    (void)!write(child_fd, buf, (size_t)(n < (int)sizeof buf ? n : (int)sizeof buf - 1));
}

/* A model failure in this process: show the report that may explain it. */
static void show_report(const char *msg, size_t len)
{
    (void)msg, (void)len;
    if (seen.count != 0)
        fprintf(stderr, "fuzz: (%u report(s) so far; the first:)\n%s\n", seen.count, seen.text);
}

/* ---- the bug ------------------------------------------------------------- */

typedef struct bug {
    int kind;
    unsigned slot;              /* live-block kinds                         */
    unsigned char *p;           /* the block (user pointer)                 */
    size_t req;
    unsigned char *at;          /* where the write goes / what is freed     */
    size_t len;                 /* bytes written                            */
    unsigned char bytes[96];
    const char *want;           /* token of the report required             */
    const unsigned char *lo, *hi;   /* the report's address in [lo, hi)      */
} bug_t;

static bug_t bug;
static bool armed;              /* this input's bug is in place (in-process) */

static bool quarantined(const unsigned char *p, size_t req)
{
    char buf[512], want[80];
    cg_describe(p, buf, sizeof buf);
    snprintf(want, sizeof want, " is 0 bytes inside a %zu-byte region ", req);
    return strstr(buf, want) != NULL && strstr(buf, "freed (in the quarantine)") != NULL;
}

/* Push blocks through the quarantine until p has left it (or a report
 * came); bounded. */
static void flush_quarantine(const unsigned char *p, size_t req)
{
    for (int i = 0; i < 200000 && seen.count == 0 && quarantined(p, req); i++)
        free(malloc(240));
}

static sigjmp_buf write_fault;

static void on_write_fault(int sig)
{
    (void)sig;
    siglongjmp(write_fault, 1);
}

/* Write the bug's bytes.  In a child the target may be gone (a late
 * use-after-free of an unmapped big block, an overflow off the end of a
 * heap's mapped part): our own fault then ends the test, untested. */
static void do_write(void)
{
    struct sigaction sa = { .sa_handler = on_write_fault }, old_segv, old_bus;
    bool far = bug.kind == K_FAR_PAST || bug.kind == K_FAR_BEFORE;
    if (child_fd >= 0 && far) {
        /* chunkguard's fault handler must see this one: the report (the
         * callback's "fault" message) is the outcome */
        writing_bug = 2;
        *(volatile unsigned char *)bug.at = bug.bytes[0];
        writing_bug = 0;
        return;
    }
    if (child_fd >= 0) {
        sigaction(SIGSEGV, &sa, &old_segv);
        sigaction(SIGBUS, &sa, &old_bus);
        if (sigsetjmp(write_fault, 1) != 0) {
            (void)!write(child_fd, "harness-fault", 13);
            _exit(0);
        }
    }
    writing_bug = 1;
    memcpy(bug.at, bug.bytes, bug.len);
    writing_bug = 0;
    if (child_fd >= 0) {
        sigaction(SIGSEGV, &old_segv, NULL);
        sigaction(SIGBUS, &old_bus, NULL);
    }
}

/* The bug's action itself. */
static void perform(fz_model_t *m)
{
    switch (bug.kind) {
    case K_DOUBLE_FREE: case K_LATE_DOUBLE_FREE: case K_INTERIOR_FREE: case K_FOREIGN_FREE:
        free(bug.at);
        break;
    default:
        do_write();
        if (bug.kind <= K_SIZE || bug.kind == K_OVERFLOW_FAR || bug.kind == K_PREV_INUSE)
            m->slot[bug.slot].tainted = true;
    }
}

/* A tainted slot is being freed (by the stream, or at the end): free it
 * without touching its contents; the model forgets it either way. */
static void release_tainted(fz_model_t *m, fz_slot_t *s)
{
    free(s->p);
    m->live -= s->span;
    s->p = NULL;
    s->tainted = false;
}

/* After the stream: release everything, then push the quarantine out when
 * the bug sits in a freed block. */
static void finish(fz_model_t *m)
{
    fz_model_release_all(m);
    if (bug.kind == K_UAF_WRITE || bug.kind == K_NEXT_PTR || bug.kind == K_LATE_UAF)
        flush_quarantine(bug.p, bug.req);
}

static bool outcome_ok(const char *kind, const void *addr)
{
    if (strcmp(kind, "segv") == 0)
        return false;
    if (bug.want != NULL && strcmp(kind, bug.want) != 0)
        return false;
    return bug.lo == NULL || ((const unsigned char *)addr >= bug.lo &&
                              (const unsigned char *)addr < bug.hi);
}

static void check_in_process(void)
{
    if (seen.count == 0)
        fz_fail("debug mode missed an injected %s (block %p, %zu bytes; %zu byte(s) at %p)",
                kind_name[bug.kind], (void *)bug.p, bug.req, bug.len, (void *)bug.at);
    if (!outcome_ok(seen.kind, seen.addr))
        fz_fail("an injected %s gave a %s report on %p (wanted %s in [%p, %p)):\n%s",
                kind_name[bug.kind], seen.kind, seen.addr, bug.want, (void *)bug.lo,
                (void *)bug.hi, seen.text);
    detected[bug.kind]++;
}

/* A child's end (fz_child_exit: in the --coverage build chunkguard's
 * exit writes the counters; fz_coverage_at_abort: those of a child that
 * a fatal report ends). */
static _Noreturn void child_exit(int code)
{
    fz_child_exit(code);
}

/* Run the bug and the rest of the input in a child; classify its outcome. */
static void in_child(fz_model_t *m, fz_in_t *in)
{
    int fds[2];
    if (pipe(fds) != 0)
        fz_fail("pipe: %s", strerror(errno));
    /* FZ_NO_FORK=1 (debugging): the bug runs in this process, which ends. */
    pid_t pid = getenv("FZ_NO_FORK") != NULL ? 0 : fork();
    if (pid < 0)
        fz_fail("fork: %s", strerror(errno));
    if (pid == 0) {
        if (getenv("FZ_NO_FORK") == NULL)
            close(fds[0]);
        child_fd = fds[1];
        fz_fail_hook = child_model_failure;
        /* the engine's crash handlers are the parent's business: here an
         * abort after a fatal report is an outcome, and a hang (SIGALRM)
         * kills the child */
        static const int sigs[] = { SIGABRT, SIGALRM, SIGFPE, SIGILL, SIGINT, SIGTERM };
        for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++)
            signal(sigs[k], SIG_DFL);
        fz_coverage_at_abort();
        alarm(20);
        /* FZ_CHILD_CWD: where a child's core file goes (debugging) */
        if (getenv("FZ_CHILD_CWD") != NULL && chdir(getenv("FZ_CHILD_CWD")) != 0)
            child_exit(3);
        seen.count = 0;
        perform(m);
        while (fz_model_step(m, in, NULL))
            ;
        finish(m);
        /* the heap verifier over whatever the bug left: it may report,
         * never fault.  Not where it would be the first report of a bug
         * debug mode must catch on its own (the outcome stays the stream's) */
        unsigned before = seen.count;
        if (before > 0 || bug.kind > K_MUST)
            (void)cg_verify_heap();
        if (before == 0 && seen.count == 0)
            (void)!write(child_fd, "clean", 5);
        child_exit(0);
    }
    close(fds[1]);
    /* Read to the end: a read that a signal interrupts (libFuzzer's
     * -timeout is a SIGALRM every few seconds) is retried, and what does not
     * fit is drained, so the child never writes to a closed pipe. */
    char msg[1200], rest[256];
    size_t n = 0;
    for (;;) {
        bool full = n == sizeof msg - 1;
        ssize_t k = full ? read(fds[0], rest, sizeof rest)
                         : read(fds[0], msg + n, sizeof msg - 1 - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        if (!full)
            n += (size_t)k;
    }
    msg[n] = 0;
    close(fds[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    char kind[32] = "";
    sscanf(msg, "report %31s", kind);
    if (strncmp(msg, "fault ", 6) == 0) {
        /* overflow-1mib, underflow-pages: the write itself was reported */
        void *addr = NULL;
        sscanf(msg, "fault %31s %p", kind, &addr);
        bool died = WIFSIGNALED(st) && (WTERMSIG(st) == SIGABRT ||
                                        (WTERMSIG(st) == SIGSEGV && strcmp(kind, "segv") == 0));
        if (!died || addr != (void *)bug.at ||
            (strcmp(kind, "heap-buffer-overflow") != 0 && strcmp(kind, "segv") != 0))
            fz_fail("an injected %s at %p: %s; the child %s %d", kind_name[bug.kind],
                    (void *)bug.at, msg, WIFSIGNALED(st) ? "died of signal" : "exited",
                    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        detected[bug.kind]++;
        return;
    }
    if (bug.kind == K_FAR_PAST || bug.kind == K_FAR_BEFORE) {
        if (WIFSIGNALED(st) || WEXITSTATUS(st) != 0)
            fz_fail("an injected %s at %p (unreadable) was not reported: the child %s %d (%s)",
                    kind_name[bug.kind], (void *)bug.at,
                    WIFSIGNALED(st) ? "died of signal" : "exited",
                    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), msg[0] ? msg : "no report");
        fz_fail("an injected %s at %p (unreadable) did not fault: %s", kind_name[bug.kind],
                (void *)bug.at, msg[0] ? msg : "no report");
    }
    if (strncmp(msg, "harness-fault", 13) == 0) {
        injected[bug.kind]--;                      /* our own write faulted: no test */
        return;
    }
    if (strstr(msg, "late-segv") != NULL)
        fz_fail("chunkguard faulted in the heap check after an injected %s:\n%s",
                kind_name[bug.kind], msg);
    /* A child ends by exit 0, or by abort() (chunkguard's after a fatal
     * report, or the model's).  Any other end, report or none, is a fault
     * or hang chunkguard did not report: a fault off its heaps passes to the
     * default action, and in the libFuzzer build the engine's deadly-signal
     * handler turns it into exit status 1. */
    if (WIFSIGNALED(st) ? WTERMSIG(st) != SIGABRT : WEXITSTATUS(st) != 0) {
        if (WIFSIGNALED(st))
            fz_fail("after an injected %s the child died of signal %d (%s)",
                    kind_name[bug.kind], WTERMSIG(st), msg[0] ? msg : "no report");
        fz_fail("after an injected %s the child exited %d (%s)", kind_name[bug.kind],
                WEXITSTATUS(st), msg[0] ? msg : "no report");
    }
    if (kind[0] != 0) {
        if (strcmp(kind, "segv") == 0)
            fz_fail("chunkguard faulted after an injected %s:\n%s", kind_name[bug.kind], msg);
        if (bug.kind <= K_MUST && !outcome_ok(kind, NULL))
            fz_fail("an injected %s gave a %s report (wanted %s):\n%s", kind_name[bug.kind],
                    kind, bug.want, msg);
        detected[bug.kind]++;
        return;
    }
    if (WIFSIGNALED(st) && strncmp(msg, "model", 5) != 0)
        fz_fail("after an injected %s the child aborted without a report (%s)",
                kind_name[bug.kind], msg);
    if (bug.kind <= K_MUST)
        fz_fail("debug mode missed an injected %s (block %p, %zu bytes): child said '%.300s'",
                kind_name[bug.kind], (void *)bug.p, bug.req, msg);
}

/* ---- the layout, as chunkguard describes it --------------------------------- */

/* Does cg_describe name block [p, p + req) for address a?  Debug mode
 * names every byte of a chunk by the block in it: header, leading
 * redzone, the block, the trailing redzone and any rounding surplus. */
static bool of_block(const unsigned char *a, const unsigned char *p, size_t req)
{
    char buf[512], want[96];
    cg_describe(a, buf, sizeof buf);
    snprintf(want, sizeof want, " a %zu-byte region [%p, %p)", req, (const void *)p,
             (const void *)(p + req));
    return strstr(buf, want) != NULL;
}

/* The chunk of live heap block p (req bytes, 16-byte aligned): [*lo, *hi),
 * its header at *lo and the next chunk's at *hi (chunks are 16-byte
 * aligned), within 4 KiB below p and 64 KiB past the block; false when
 * the edges are not found there.  The bytes named by the block are one
 * range, so its end is a binary search (a describe reads the maps: a
 * size class's surplus of up to 4 KiB would be 256 of them a byte scan). */
static bool block_chunk(const unsigned char *p, size_t req, unsigned char **lo,
                        unsigned char **hi)
{
    size_t down = 0, first = (req + 15) & ~(size_t)15;
    while (down < 4096 && of_block(p - down - 16, p, req))
        down += 16;
    /* the first 16-byte step k in [0, n] past `first` not named by it */
    size_t k0 = 0, k1 = 65536 / 16;
    if (of_block(p + first + 16 * k1, p, req))
        return false;
    while (k0 < k1) {
        size_t mid = k0 + (k1 - k0) / 2;
        if (of_block(p + first + 16 * mid, p, req))
            k0 = mid + 1;
        else
            k1 = mid;
    }
    if (down == 0 || down == 4096)
        return false;
    *lo = (unsigned char *)p - down;
    *hi = (unsigned char *)p + first + 16 * k0;
    return true;
}

/* The first link (fd) of the first free chunk of the core's (in a bin, not
 * the top) whose memory starts in [p - 16, p + req): cg_describe names
 * such a chunk by its memory's address, where fd is.  NULL when none. */
static unsigned char *free_link(const unsigned char *p, size_t req)
{
    static const char tag[] = " the free chunk at ", region[] = "-byte region [";
    char buf[512];
    const unsigned char *a = p - 16;
    while (a < p + req) {
        cg_describe(a, buf, sizeof buf);
        const char *t = strstr(buf, tag), *r = strstr(buf, region);
        void *mem = NULL, *lo = NULL, *end = NULL;
        if (t != NULL && sscanf(t + sizeof tag - 1, "%p", &mem) == 1 &&
            (unsigned char *)mem >= p - 16 && (unsigned char *)mem < p + req)
            return mem;
        /* inside a block that took the memory: on from its end (a
         * describe reads the maps; 16 bytes at a time would be
         * thousands of them over a block's bytes) */
        if (r != NULL && sscanf(r + sizeof region - 1, "%p, %p)", &lo, &end) == 2 &&
            (const unsigned char *)end > a + 16)
            a = (const unsigned char *)(((uintptr_t)end + 15) & ~(uintptr_t)15);
        else
            a += 16;
    }
    return NULL;
}

/* Some live slot from sel with at least min_req bytes and plain 16-byte
 * alignment, or -1. */
static int pick_live(const fz_model_t *m, unsigned sel, size_t min_req, size_t max_req)
{
    for (unsigned k = 0; k < m->nslots; k++) {
        unsigned i = (sel + k) % m->nslots;
        const fz_slot_t *s = &m->slot[i];
        if (s->p != NULL && !s->tainted && s->req >= min_req && s->req <= max_req &&
            s->align == 16)
            return (int)i;
    }
    return -1;
}

static unsigned char foreign_global[64];

static unsigned char *foreign_pointer(unsigned sel, unsigned char *stack)
{
    static unsigned char *page;
    if (page == NULL)
        page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    switch (sel % 5) {
    case 0: return stack;
    case 1: return foreign_global + 16;
    case 2: return page != MAP_FAILED ? page + 16 * (sel % 200) : stack;
    case 3: return (unsigned char *)(uintptr_t)(0x10000 + 16 * (sel % 64));  /* unmapped */
    default: return (unsigned char *)stderr;                                 /* libc's data */
    }
}

/* bug.bytes[0..n) from the input, none of them `avoid` (a redzone or
 * poison byte written over itself would be no bug at all). */
static void set_bytes(fz_in_t *in, unsigned char avoid, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char b = (unsigned char)fz_u8(in);
        bug.bytes[i] = b == avoid ? (unsigned char)(b ^ 0x5a) : b;
    }
}

/* FZ_OP_INJECT: decode the bug (always consuming the same bytes), then
 * inject it here or in a child. */
static void inject(fz_model_t *m, fz_in_t *in)
{
    unsigned kind = fz_u8(in) % K_COUNT, sel = fz_u8(in);
    unsigned a = fz_u8(in), b = fz_u8(in);
    unsigned char stack_thing[32];
    if (bug.kind != -1)
        return;                                 /* one bug per input (-1: none yet) */
    if (seen.count != 0)
        fz_fail("a report before any bug was injected:\n%s", seen.text);
    memset(&bug, 0, sizeof bug);
    bug.kind = (int)kind;
    int i;
    switch (kind) {
    case K_OVERFLOW: case K_OVERFLOW_FAR:
        i = pick_live(m, sel, 0, kind == K_OVERFLOW_FAR ? 60000 : SIZE_MAX);
        if (i < 0) goto none;
        bug.len = kind == K_OVERFLOW ? 1 + a % 16 : 17 + a % 64;
        set_bytes(in, 0xfa, bug.len);              /* never the redzone byte */
        bug.slot = (unsigned)i;
        bug.p = m->slot[i].p;
        bug.req = m->slot[i].req;
        bug.at = bug.p + bug.req;
        if (kind == K_OVERFLOW_FAR) {
            /* from the next chunk's header less 8 (its prev_size word,
             * the block's redzone's last bytes) when the block ends
             * before that: a chunk rounded up to its size class has more
             * trailing redzone than 17..80 bytes cross */
            unsigned char *clo, *chi;
            if (!block_chunk(bug.p, bug.req, &clo, &chi)) goto none;
            if (chi - 8 > bug.at)
                bug.at = chi - 8;
        }
        bug.want = "heap-buffer-overflow";
        bug.lo = bug.at, bug.hi = bug.at + bug.len;
        break;
    case K_UNDERFLOW:
        i = pick_live(m, sel, 0, SIZE_MAX);
        if (i < 0) goto none;
        bug.len = 1 + a % 16;
        set_bytes(in, 0xfa, bug.len);
        /* a scalar operator new's block (aligned or not) ends its leading
         * redzone with 8 zero bytes, the array cookie (src/debug/debug.h) */
        if (m->slot[i].how == FZ_HOW_NEW)
            for (size_t k = bug.len > 8 ? bug.len - 8 : 0; k < bug.len; k++)
                if (bug.bytes[k] == 0)
                    bug.bytes[k] = 0x5a;
        bug.slot = (unsigned)i;
        bug.p = m->slot[i].p;
        bug.req = m->slot[i].req;
        bug.at = bug.p - bug.len;
        bug.want = "heap-buffer-overflow";
        bug.lo = bug.at, bug.hi = bug.p;
        break;
    case K_HEADER: case K_SIZE: case K_PREV_INUSE: {
        i = pick_live(m, sel, 0, SIZE_MAX);
        if (i < 0) goto none;
        bug.p = m->slot[i].p;
        bug.req = m->slot[i].req;
        unsigned char *clo, *chi;
        if (!block_chunk(bug.p, bug.req, &clo, &chi)) goto none;
        unsigned char *size_word = clo + 8;          /* the header's second word */
        if (kind == K_HEADER) {
            unsigned j = a % 8, v = b ? b : 0x40;
            if (j == 0 && (v & ~1u) == 0)
                v |= 2;                              /* more than PREV_INUSE */
            bug.at = size_word + j;
            bug.len = 1;
            bug.bytes[0] = (unsigned char)(size_word[j] ^ v);
        } else if (kind == K_SIZE) {
            set_bytes(in, 0, 8);
            bug.bytes[0] = (unsigned char)((bug.bytes[0] & ~1u) | (size_word[0] & 1u));
            if (memcmp(bug.bytes, size_word, 8) == 0)
                bug.bytes[1] ^= 0x10;
            bug.at = size_word;
            bug.len = 8;
        } else {
            bug.at = size_word;
            bug.len = 1;
            bug.bytes[0] = (unsigned char)(size_word[0] ^ 1);
        }
        bug.slot = (unsigned)i;
        break;
    }
    case K_DOUBLE_FREE: case K_UAF_WRITE: case K_NEXT_PTR: {
        if (m->nfreed == 0) goto none;
        unsigned back = sel % (m->nfreed < FZ_FREED ? m->nfreed : FZ_FREED);
        fz_freed_t f = m->freed[(m->nfreed - 1 - back) % FZ_FREED];
        bug.p = f.p;
        bug.req = f.req;
        if (kind != K_DOUBLE_FREE && f.req < (kind == K_NEXT_PTR ? 8u : 1u)) goto none;
        if (!quarantined(f.p, f.req))
            bug.kind = kind == K_DOUBLE_FREE ? K_LATE_DOUBLE_FREE : K_LATE_UAF;
        if (kind == K_DOUBLE_FREE) {
            bug.at = f.p;
            bug.want = "double-free";
            bug.lo = f.p, bug.hi = f.p + 1;
        } else {
            set_bytes(in, 0xfd, 8);                    /* never the poison byte */
            bug.len = kind == K_NEXT_PTR ? 8 : 1;
            bug.at = f.p + (kind == K_NEXT_PTR ? 0 : ((size_t)a << 8 | b) % f.req);
            bug.want = "heap-use-after-free";
            bug.lo = bug.at, bug.hi = bug.at + bug.len;
        }
        break;
    }
    case K_LATE_LINK: {
        /* a freed block out of the quarantine whose memory now holds a
         * free chunk of the core's: a byte of that chunk's fd or bk */
        if (m->nfreed == 0) goto none;
        unsigned back = sel % (m->nfreed < FZ_FREED ? m->nfreed : FZ_FREED);
        fz_freed_t f = m->freed[(m->nfreed - 1 - back) % FZ_FREED];
        bug.p = f.p;
        bug.req = f.req;
        set_bytes(in, 0, 8);
        unsigned char *link;
        if (quarantined(f.p, f.req) || (link = free_link(f.p, f.req)) == NULL) goto none;
        bug.at = link + a % 16;
        bug.len = 1;
        if (bug.bytes[0] == *bug.at)
            bug.bytes[0] ^= 0x80;                      /* a change, always */
        bug.lo = bug.at, bug.hi = bug.at + 1;
        break;
    }
    case K_INTERIOR_FREE:
        i = pick_live(m, sel, 2, SIZE_MAX);
        if (i < 0) goto none;
        bug.p = m->slot[i].p;
        bug.req = m->slot[i].req;
        bug.at = bug.p + 1 + ((size_t)a << 8 | b) % (bug.req - 1);
        bug.want = "invalid-free";
        bug.lo = bug.at, bug.hi = bug.at + 1;
        break;
    case K_FAR_PAST: case K_FAR_BEFORE:
        i = pick_live(m, sel, 0, SIZE_MAX);
        if (i < 0) goto none;
        bug.p = m->slot[i].p;
        bug.req = m->slot[i].req;
        bug.len = 1;
        set_bytes(in, 0, 1);
        if (kind == K_FAR_PAST) {
            bug.at = bug.p + bug.req + (1u << 20);
        } else {
            /* the first unreadable page below the block within 8 MiB (in
             * a heap: the guard page before its first chunk), a byte of
             * it */
            uintptr_t pg = ((uintptr_t)bug.p & ~(uintptr_t)4095) - 4096;
            for (int k = 0; k < 2048 && fz_accessible((void *)pg); k++)
                pg -= 4096;
            bug.at = (unsigned char *)pg + 4095 - ((size_t)a << 4) % 4096;
        }
        if (fz_accessible(bug.at)) goto none;   /* someone's memory: not written */
        bug.lo = bug.at, bug.hi = bug.at + 1;
        break;
    default: /* K_FOREIGN_FREE */
        bug.at = foreign_pointer(sel, stack_thing);
        bug.want = "invalid-free";
        bug.lo = bug.at, bug.hi = bug.at + 1;
        break;
    }
    injected[bug.kind]++;
    bool in_place = bug.kind == K_OVERFLOW || bug.kind == K_UNDERFLOW ||
                    bug.kind == K_DOUBLE_FREE || bug.kind == K_UAF_WRITE ||
                    bug.kind == K_NEXT_PTR || bug.kind == K_INTERIOR_FREE ||
                    bug.kind == K_FOREIGN_FREE;
    if (!in_place) {
        in_child(m, in);
        bug.kind = -2;                         /* done: later inject ops do nothing */
        return;
    }
    seen.count = 0;
    perform(m);
    armed = true;
    if (bug.kind >= K_DOUBLE_FREE) {           /* frees report at once; writes later */
        if (bug.kind == K_UAF_WRITE || bug.kind == K_NEXT_PTR)
            return;
        check_in_process();
        armed = false;
        bug.kind = -2;
        seen.count = 0;
    }
    return;
none:
    bug.kind = -1;
}

/* ---- the harness ----------------------------------------------------------- */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
void fz_summary(void);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fz_no_libfuzzer_threads(argc, argv);
    fz_no_libfuzzer_segv(argc, argv);
    cg_set_report_callback(on_report, NULL);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_INPUT)
        return 0;
    static fz_model_t m;
    static bool callback_set;
    if (!callback_set) {          /* AFL's driver path calls Initialize too; replay as well */
        cg_set_report_callback(on_report, NULL);
        callback_set = true;
    }
    fz_assert_single_threaded();
    fz_fail_hook = show_report;
    fz_model_init(&m, FZ_SLOTS, true);
    m.mallopt_ok = false;         /* parameters stay as debug mode set them */
    m.max_size = 64 * 1024;
    m.max_live = 4u << 20;
    m.inject = inject;
    m.on_release = release_tainted;
    memset(&bug, 0, sizeof bug);
    bug.kind = -1;
    armed = false;
    seen.count = 0;
    fz_in_t in = { data, size, 0 };
    while (fz_model_step(&m, &in, NULL))
        ;
    finish(&m);
    if (armed)
        check_in_process();
    else if (seen.count != 0)
        fz_fail("a report with no bug injected:\n%s", seen.text);
    fz_verify_heap("after an input");
    return 0;
}

void fz_summary(void)
{
    size_t zero = 0;
    for (int k = 0; k < K_COUNT; k++) {
        fprintf(stderr, "corrupt: %-17s injected %zu, detected %zu%s\n", kind_name[k],
                injected[k], detected[k], k <= K_MUST ? " (must detect)" : "");
        zero += injected[k] == 0;
    }
    fprintf(stderr, "corrupt: %zu kind(s) never injected\n", zero);
}
