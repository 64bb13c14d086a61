/*
 * tune.c — FZ_OP_TUNE: the calls that act on or describe the whole
 * process rather than one block, each with the answer checked:
 *   mallopt (M_MXFAST's result; the others are restored after the input),
 *   malloc_trim, mallinfo2 (and mallinfo: the same, cut to ints) and
 *   malloc_stats (bytes in use cover the model's live bytes), malloc_info (well-formed, its system and mmap
 *   totals cover the live bytes; options != 0 is EINVAL), cg_get_stats
 *   (counters never go back, an arena and a heap exist), cg_describe (a
 *   live block is described as one, with its size in debug mode; the text
 *   always fits its buffer), cg_leak_check (debug mode must find a block
 *   whose only reference is hidden, and fast mode checks nothing), the
 *   model's ops made from a signal handler that interrupted chunkguard
 *   (case 9 with v % 5 == 2: op_from_handler below), in ops-mt
 *   cg_verify_heap from a worker while the other workers run (case 12:
 *   no problem may be found, and they wait on the locks it holds), and in
 *   ops-mt a short-lived thread whose exit retires its tcache and releases
 *   its arena, and whose last block the worker takes over; and (case 10
 *   with v's top bits 10, not in ops-mt) the sigaction family against a
 *   model and the kernel (signals.c).
 */
#define _GNU_SOURCE
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "chunkguard.h"

/* A number after key in text, or SIZE_MAX. */
static size_t number_after(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    size_t v;
    if (p == NULL || sscanf(p + strlen(key), "%zu", &v) != 1)
        return SIZE_MAX;
    return v;
}

static void op_malloc_info(const fz_model_t *m)
{
    char buf[32 * 1024];
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    if (f == NULL)
        return;
    if (malloc_info(1, f) != EINVAL)
        fz_fail("malloc_info(1, f) did not return EINVAL");
    int r = malloc_info(0, f);
    long len = ftell(f);
    fclose(f);
    if (r != 0 || len <= 0 || (size_t)len >= sizeof buf - 1)
        return;                 /* too many arenas for the buffer: no verdict */
    buf[len] = 0;
    static const char head[] = "<malloc version=\"1\">\n", tail[] = "</malloc>\n";
    if (strncmp(buf, head, sizeof head - 1) != 0 || strstr(buf, "<heap nr=\"0\">") == NULL ||
        (size_t)len < sizeof tail || strcmp(buf + len - (sizeof tail - 1), tail) != 0)
        fz_fail("malloc_info: malformed output:\n%.300s", buf);
    /* the totals follow the last </heap> */
    const char *tot = strrchr(buf, '/');
    for (const char *p = buf; (p = strstr(p, "</heap>")) != NULL; p++)
        tot = p;
    size_t mm = number_after(tot, "<total type=\"mmap\" count=\"");
    const char *q = strstr(tot, "<total type=\"mmap\"");
    size_t mmsz = q ? number_after(q, "size=\"") : SIZE_MAX;
    size_t sys = number_after(tot, "<system type=\"current\" size=\"");
    if (mm == SIZE_MAX || mmsz == SIZE_MAX || sys == SIZE_MAX)
        fz_fail("malloc_info: no totals:\n%.400s", tot);
    if (sys + mmsz < m->live)
        fz_fail("malloc_info: %zu system + %zu mmap'd bytes, the model has %zu live", sys, mmsz,
                m->live);
}

/* malloc_stats writes to fd 2: catch it in a memory file.  Process-wide
 * (another thread's failure message would be caught too), so only where
 * mallopt is allowed (the single-threaded harnesses). */
static void op_malloc_stats(const fz_model_t *m)
{
    int fd = memfd_create("malloc_stats", 0);
    if (fd < 0)
        return;
    int saved = dup(2);
    dup2(fd, 2);
    malloc_stats();
    dup2(saved, 2);
    close(saved);
    char buf[8192];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    const char *tot = strstr(buf, "Total (incl. mmap):\n");
    size_t sys = tot ? number_after(tot, "system bytes     = ") : SIZE_MAX;
    size_t used = tot ? number_after(tot, "in use bytes     = ") : SIZE_MAX;
    if (strncmp(buf, "Arena 0:\n", 9) != 0 || sys == SIZE_MAX || used == SIZE_MAX)
        fz_fail("malloc_stats: malformed output:\n%.300s", buf);
    if (used > sys || used < m->live)
        fz_fail("malloc_stats: %zu bytes in use of %zu, the model has %zu live", used, sys,
                m->live);
}

/* The deprecated mallinfo: mallinfo2's fields, each cut to an int (glibc
 * 2.33's definition), nothing having changed in between (one thread). */
static void op_mallinfo(const struct mallinfo2 *m2)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    struct mallinfo mi = mallinfo();
#pragma GCC diagnostic pop
    const size_t two[] = { m2->arena, m2->ordblks, m2->smblks, m2->hblks, m2->hblkhd,
                           m2->usmblks, m2->fsmblks, m2->uordblks, m2->fordblks, m2->keepcost };
    const int one[] = { mi.arena, mi.ordblks, mi.smblks, mi.hblks, mi.hblkhd, mi.usmblks,
                        mi.fsmblks, mi.uordblks, mi.fordblks, mi.keepcost };
    for (size_t k = 0; k < sizeof one / sizeof one[0]; k++)
        if (one[k] != (int)two[k])
            fz_fail("mallinfo: field %zu is %d, mallinfo2's is %zu", k, one[k], two[k]);
}

static void op_get_stats(void)
{
    /* a forked child's call counters start at zero (as glibc's do not
     * carry a parent's calls): what this process saw last is reset there */
    static __thread cg_stats_t last;
    static __thread pid_t last_pid;
    cg_stats_t st;
    if (last_pid != getpid()) {
        memset(&last, 0, sizeof last);
        last_pid = getpid();
    }
    cg_get_stats(&st);
    if (st.arenas < 1 || st.heaps < 1)
        fz_fail("cg_get_stats: %llu arenas, %llu heaps", st.arenas, st.heaps);
    if (st.mallocs < last.mallocs || st.frees < last.frees || st.callocs < last.callocs ||
        st.reallocs < last.reallocs || st.memaligns < last.memaligns)
        fz_fail("cg_get_stats: a call counter went back");
    last = st;
}

static void op_describe(const fz_model_t *m, fz_in_t *in, unsigned i)
{
    const fz_slot_t *s = &m->slot[i];
    char buf[512];
    size_t cap = 1 + fz_u8(in) % sizeof buf;
    unsigned k = fz_u16(in);
    const unsigned char *a = s->p;
    bool live = a != NULL && !s->tainted;
    if (a == NULL && m->nfreed > 0)      /* a block this input freed */
        a = m->freed[k % (m->nfreed < FZ_FREED ? m->nfreed : FZ_FREED)].p;
    else if (a != NULL && m->debug && s->req > 0)
        a += k % s->req;                 /* fast mode knows chunks by their start */
    memset(buf, 0x55, sizeof buf);
    size_t n = cg_describe(a, buf, cap);
    if (n >= cap || buf[n] != 0 || strlen(buf) != n)
        fz_fail("cg_describe(%p, cap %zu) returned %zu: not NUL-terminated within cap",
                (const void *)a, cap, n);
    if (!live || cap < sizeof buf || (m->debug && s->req == 0))
        return;
    /* a live block, with room for the whole text */
    char want[64];
    if (m->debug)
        snprintf(want, sizeof want, "inside a %zu-byte region", s->req);
    if (m->debug ? strstr(buf, want) == NULL
                 : strstr(buf, "in-use") == NULL && strstr(buf, "live mmap'd block") == NULL)
        fz_fail("cg_describe(%p) of a live %zu-byte block:\n%s", (const void *)a, s->req, buf);
}

/* ---- cg_leak_check ----------------------------------------------------- */

#define NHIDE 3
static uintptr_t hidden[NHIDE]; /* ~address: no reference to the block */
static size_t leak_reports, leak_bytes;

static void on_leak(const cg_report_t *r, void *arg)
{
    (void)arg;
    if (strcmp(r->kind, "memory-leak") != 0)
        return;
    leak_reports++;
    size_t b = number_after(r->text, "Direct leak of ");
    if (b != SIZE_MAX)
        leak_bytes += b;
}

/* Allocate n bytes and keep only their complemented address: the block
 * becomes unreachable to a conservative scan. */
static __attribute__((noinline)) void hide_block(unsigned k, size_t n)
{
    unsigned char *p = malloc(n);
    if (p == NULL)
        fz_fail("malloc(%zu) for the leak check failed", n);
    memset(p, 0xa5, n);
    hidden[k] = ~(uintptr_t)p;
}

/* Overwrite the dead stack below us, where hide_block's frame was. */
static __attribute__((noinline)) void scrub_stack(void)
{
    volatile unsigned char pad[32768];
    for (size_t i = 0; i < sizeof pad; i++)
        pad[i] = 0;
}

/* Debug mode must report blocks that nothing points to.  The scan is
 * conservative (leaks.c): any word that happens to point into a block —
 * a stale register value saved on the stack, a dead stack slot, the old
 * contents of a reused block — keeps it, and an allocator reuses
 * addresses all the time.  So NHIDE blocks of different sizes are hidden,
 * and at least one must be reported: a detector that misses them all is
 * broken, not unlucky. */
static __attribute__((noinline)) void op_leak_check(fz_model_t *m, fz_in_t *in)
{
    if (!m->debug) {
        if (cg_leak_check() != 0)
            fz_fail("cg_leak_check() found leaks in fast mode");
        return;
    }
    if (m->leak_checks == 0)
        return;                  /* done for this input, or corrupt's callback is in charge */
    m->leak_checks--;
    size_t n = 1 + fz_u16(in) % 4096;
    for (unsigned k = 0; k < NHIDE; k++)
        hide_block(k, n + 1000 * k);
    scrub_stack();
    leak_reports = leak_bytes = 0;
    cg_set_report_callback(on_leak, NULL);
    size_t leaked = cg_leak_check();
    cg_set_report_callback(NULL, NULL);
    if (leaked < leak_reports)
        fz_fail("cg_leak_check() returned %zu with %zu leak report(s)", leaked, leak_reports);
    if (leaked < 1 || leak_bytes < n)
        fz_fail("cg_leak_check() missed all of %d unreachable blocks of %zu+ bytes: %zu "
                "leaked, %zu report(s) of %zu bytes", NHIDE, n, leaked, leak_reports,
                leak_bytes);
    for (unsigned k = 0; k < NHIDE; k++) {
        unsigned char *p = (unsigned char *)~hidden[k];
        hidden[k] = 0;
        for (size_t i = 0; i < n + 1000 * k; i++)
            if (p[i] != 0xa5)
                fz_fail("cg_leak_check() changed byte %zu of a leaked block", i);
        free(p);
    }
}

/* ---- calls from a signal handler inside chunkguard ---------------------- */

/* A signal handler that runs while its thread is inside chunkguard makes
 * malloc-family calls (reentry.h: served from pages of their own, frees
 * deferred to the thread's next call from outside, in debug mode each
 * call site reported once).  The interruption is made where it is
 * repeatable, as tests/cases/case.h's case_inside does: malloc_stats
 * writes to fd 2, made a pipe whose reader is closed, so its first write
 * raises SIGPIPE inside malloc_stats.  The handler runs up to 12 of the
 * model's ops (the process-wide ones and the hand-off excepted; realloc
 * and malloc_usable_size only of blocks whose size can be read without a
 * lock: heap chunks, guarded blocks, the handler's own), each checked
 * against the contract as from outside: a re-entrant call must keep it
 * too.  With v's bit 8 the handler is SA_NODEFER: a SIGPIPE raised while
 * debug mode writes a report of the handler's call (to the same closed
 * pipe) runs the handler again inside that report, and it mallocs and
 * frees once more.  Afterwards, outside:
 *   - cg_get_stats' reentrant_calls grew by at least the calls that
 *     succeeded and at most the calls made;
 *   - its frees grew by exactly the frees of ordinary blocks the handler
 *     made (the deferred frees ran at the first call from outside), and
 *     in debug mode none of those blocks is still live;
 *   - reports: none in fast mode; in debug and guard mode only
 *     reentrant-call ones (recoverable: the input goes on), naming a call
 *     the handler made, and at least one the first time a handler made a
 *     call in this process;
 *   - the blocks the handler got stay in the model's slots, to be freed,
 *     reallocated and sized from outside later. */

static struct {
    fz_model_t *m;
    fz_in_t *in;
    unsigned nops;
    int runs;                   /* handler invocations                     */
    bool in_script, nested_done;
    bool sizeable[FZ_SLOTS];    /* can a re-entrant call size the block    */
    unsigned reports;
    char bad[300];              /* the first unexpected report             */
    unsigned nested_calls;
} re;

static void on_reentry_report(const cg_report_t *r, void *arg)
{
    (void)arg;
    re.reports++;
    /* every call a report can name, from the library's own catalogue
     * (src/base/calls.def): the C functions ("malloc(): ") and the C++
     * forms ("aligned operator delete[](): ", FZ_OP_CXX) */
    static const char *const ops[] = {
#define CG_CALL(name) #name "(): ",
#define CG_CALL_FAMILY(family, new_name, delete_name) new_name "(): ", delete_name "(): ",
#include "calls.def"
#undef CG_CALL
#undef CG_CALL_FAMILY
    };
    bool named = false;
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        named |= strstr(r->text, ops[k]) != NULL;
    if (re.bad[0] == 0 && (strcmp(r->kind, "reentrant-call") != 0 || !r->recoverable || !named))
        snprintf(re.bad, sizeof re.bad, "%s (recoverable %d): %.200s", r->kind, r->recoverable,
                 r->text);
}

/* Can the re-entry path size slot i's block (reentry.c, size_of)?  Heap
 * chunks and guarded blocks, and the handler's own; not a big block of
 * the core (its registry needs a lock).  Asked before the handler runs. */
static bool can_size(const fz_model_t *m, unsigned i)
{
    const fz_slot_t *s = &m->slot[i];
    if (s->p == NULL || s->served)
        return true;
    char buf[512];
    cg_describe(s->p, buf, sizeof buf);
    if (!m->debug)
        return strstr(buf, " chunk at ") != NULL;
    if (strstr(buf, "on guard pages of its own") != NULL || strstr(buf, "in a guard slot") != NULL)
        return true;
    /* a debug block: a heap chunk when its chunk is below every mmap
     * threshold this input set and its alignment is at most a page's (a
     * larger one is served by a mapping of its own, whose record only the
     * big blocks' table, under its lock, knows: such a block cannot be
     * sized from a handler, REENTRANT_REALLOC_UNSIZED) */
    return s->req + 256 < m->mmap_floor && s->align <= 4096;
}

static void handler_script(void)
{
    fz_model_t *m = re.m;
    re.in_script = true;
    m->in_handler = true;
    for (unsigned k = 0; k < re.nops && fz_more(re.in); k++) {
        unsigned op = fz_u8(re.in) % FZ_NOPS, i = fz_u8(re.in) % m->nslots;
        unsigned served = 0;
        for (unsigned j = 0; j < m->nslots; j++)
            served += m->slot[j].p != NULL && m->slot[j].served;
        bool sized = m->slot[i].served || m->slot[i].p == NULL || re.sizeable[i];
        if (op == FZ_OP_TUNE || op == FZ_OP_HANDOFF || op == FZ_OP_INJECT ||
            ((op == FZ_OP_REALLOC || op == FZ_OP_REALLOCARRAY || op == FZ_OP_USABLE) && !sized) ||
            served >= 200)      /* 256 blocks at most live in the handlers' table */
            op = FZ_OP_CHECK;
        fz_model_do(m, re.in, op, i, NULL);
    }
    m->in_handler = false;
    re.in_script = false;
}

/* A call inside a report of the handler's own call (SA_NODEFER). */
static __attribute__((noinline)) void nested_calls(void)
{
    unsigned char *p = malloc(24);
    if (p == NULL)
        fz_fail("malloc(24) from a handler inside a report failed");
    for (int k = 0; k < 24; k++)
        if (p[k] != 0)
            fz_fail("a handler's malloc(24) inside a report: byte %d is %#x", k, p[k]);
    free(p);
    re.nested_calls += 2;
}

static void on_pipe(int sig)
{
    (void)sig;
    if (re.runs++ == 0)
        handler_script();
    else if (re.in_script && !re.nested_done) {
        re.nested_done = true;
        nested_calls();
    }
}

static int re_stderr = -1;

static void fail_to_stderr(const char *msg, size_t len)
{
    dup2(re_stderr, 2);
    (void)msg, (void)len;       /* fz_fail writes it, to fd 2 */
}

static void op_from_handler(fz_model_t *m, fz_in_t *in, unsigned v)
{
    static bool called_before;      /* some handler made a call in this process */
    memset(&re, 0, sizeof re);
    re.m = m;
    re.in = in;
    re.nops = 1 + fz_u8(in) % 12;
    for (unsigned i = 0; i < m->nslots; i++)
        re.sizeable[i] = can_size(m, i);
    m->calls = m->ok_calls = m->deferred = 0;
    int fds[2];
    if (pipe(fds) != 0)
        return;
    close(fds[0]);
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_pipe;
    sa.sa_flags = v & 0x100 ? SA_NODEFER : 0;
    sigemptyset(&sa.sa_mask);
    cg_stats_t before, after;
    cg_get_stats(&before);
    if (m->debug)
        cg_set_report_callback(on_reentry_report, NULL);
    int saved = dup(2);
    /* a failure inside must still be told, on the real stderr */
    void (*old_hook)(const char *, size_t) = fz_fail_hook;
    re_stderr = saved;
    fz_fail_hook = fail_to_stderr;
    sigaction(SIGPIPE, &sa, &old);
    dup2(fds[1], 2);
    malloc_stats();
    dup2(saved, 2);
    close(saved);
    close(fds[1]);
    sigaction(SIGPIPE, &old, NULL);
    fz_fail_hook = old_hook;
    if (m->restore_callback != NULL)
        m->restore_callback();
    else if (m->debug)
        cg_set_report_callback(NULL, NULL);
    cg_get_stats(&after);               /* a call from outside: the frees run */
    unsigned long long got = after.reentrant_calls - before.reentrant_calls;
    unsigned most = m->calls + re.nested_calls;
    if (re.runs == 0)
        fz_fail("malloc_stats() on a closed pipe raised no SIGPIPE");
    if (got < m->ok_calls || got > most)
        fz_fail("a handler made %u malloc-family call(s) inside chunkguard, %u of them "
                "successful (and %u inside a report): reentrant_calls grew by %llu",
                m->calls, m->ok_calls, re.nested_calls, got);
    if (after.frees - before.frees != m->deferred)
        fz_fail("a handler freed %u ordinary block(s) inside chunkguard: %llu free(s) ran "
                "after it", m->deferred, after.frees - before.frees);
    if (re.bad[0] != 0)
        fz_fail("a call from a signal handler inside chunkguard was reported as %s", re.bad);
    if (!m->debug && re.reports != 0)
        fz_fail("fast mode reported a call from a signal handler");
    if (m->debug && !called_before && got > 0 && re.reports == 0)
        fz_fail("debug mode did not report the first call from a signal handler inside "
                "chunkguard");
    called_before |= got > 0;
    unsigned kept = m->deferred < 32 ? m->deferred : 32;
    for (unsigned k = 0; m->debug && k < kept; k++) {
        char buf[512], at[40];
        cg_describe(m->deferred_p[k], buf, sizeof buf);
        snprintf(at, sizeof at, "[%p, ", (void *)m->deferred_p[k]);
        if (strstr(buf, at) != NULL && strstr(buf, "), live, ") != NULL)
            fz_fail("a block a signal handler freed is still live after the next call:\n%s",
                    buf);
    }
}

/* ---- a short-lived thread (ops-mt) --------------------------------------- */

typedef struct brief {
    size_t size[4];
    unsigned char fill;
    void *last;                 /* the block it leaves behind */
} brief_t;

static void *brief_thread(void *arg)
{
    brief_t *b = arg;
    void *p[4];
    for (int k = 0; k < 4; k++) {
        p[k] = malloc(b->size[k]);
        if (p[k] == NULL)
            fz_fail("a short-lived thread's malloc(%zu) failed", b->size[k]);
        memset(p[k], b->fill, b->size[k]);
    }
    for (int k = 0; k < 3; k++)
        free(p[k]);
    b->last = p[3];
    return NULL;                /* its tcache is retired at exit */
}

static void op_thread(fz_model_t *m, fz_in_t *in, unsigned i)
{
    brief_t b = { .fill = (unsigned char)fz_u8(in) };
    bool fails;
    size_t total = 0;
    for (int k = 0; k < 4; k++) {
        b.size[k] = fz_draw_size(in, 64 * 1024, false, &fails);
        total += b.size[k];
    }
    if (!fz_model_room(m, total))
        return;
    fz_model_free(m, i, 0);
    pthread_t t;
    if (pthread_create(&t, NULL, brief_thread, &b) != 0)
        return;                 /* out of threads: nothing to check */
    pthread_join(t, NULL);
    const unsigned char *p = b.last;
    for (size_t k = 0; k < b.size[3]; k++)
        if (p[k] != b.fill)
            fz_fail("the block a finished thread left changed at byte %zu", k);
    fz_model_place(m, i, b.last, b.size[3], 16, FZ_HOW_MALLOC, b.fill);
}

/* ---- the heap check while another thread allocates (ops-mt) ------------ */

static void *churn(void *arg)
{
    volatile int *flag = arg;           /* [0]: running, [1]: stop */
    while (!flag[1]) {
        void *p = malloc(5000);         /* past the tcache: the arena's lock */
        if (p == NULL)
            fz_fail("malloc(5000) in a churning thread failed");
        free(p);
        flag[0] = 1;
    }
    return NULL;
}

/* cg_verify_heap from a worker, while the other workers run their slices
 * and a thread of its own allocates and frees blocks that need an arena:
 * it holds every lock for its walk, so they wait on them, and it waits on
 * theirs (src/base/lock.c's slow path).  It must find nothing. */
static void op_verify_contended(void)
{
    volatile int flag[2] = { 0, 0 };
    pthread_t t;
    bool started = pthread_create(&t, NULL, churn, (void *)flag) == 0;
    for (int k = 0; started && !flag[0] && k < 1000000; k++)
        sched_yield();
    for (int k = 0; k < 8; k++)
        if (cg_verify_heap() != 0)
            fz_fail("cg_verify_heap() from a worker, while other threads ran, found problems");
    flag[1] = 1;
    if (started)
        pthread_join(t, NULL);
}

void fz_op_tune(fz_model_t *m, fz_in_t *in, unsigned i)
{
    unsigned c = fz_u8(in);
    unsigned v = fz_u16(in);
    switch (c % 14) {
    case 0: if (m->mallopt_ok && mallopt(M_MXFAST, (int)(v % 200)) != (v % 200 <= 160))
                fz_fail("mallopt(M_MXFAST, %u) result", v % 200);
            break;
    case 1: if (m->mallopt_ok) mallopt(M_TRIM_THRESHOLD, (int)(v * 64)); break;
    case 2: if (m->mallopt_ok) mallopt(M_TOP_PAD, (int)(v * 16)); break;
    case 3:
        if (m->mallopt_ok && mallopt(M_MMAP_THRESHOLD, (int)(v * 32)) == 1 &&
            v * 32 < m->mmap_floor)
            m->mmap_floor = v * 32;
        break;
    case 4: if (m->mallopt_ok) mallopt(M_PERTURB, (int)(v & 0xff)); break;
    case 5: malloc_trim(v * 16); break;
    case 6: {
        struct mallinfo2 mi = mallinfo2();
        if (mi.uordblks + mi.hblkhd < m->live / 2)
            fz_fail("mallinfo2: %zu + %zu bytes in use, the model has %zu live", mi.uordblks,
                    mi.hblkhd, m->live);
        if ((v & 0xc000) == 0x8000 && !m->threads_ok)
            op_mallinfo(&mi);
        break;
    }
    case 7: if (m->mallopt_ok) mallopt(M_MMAP_MAX, (int)(v % 4)); break;
    case 8: op_malloc_info(m); break;
    case 9:
        if (m->mallopt_ok && v % 5 == 2)
            op_from_handler(m, in, v);
        else if (m->mallopt_ok)
            op_malloc_stats(m);
        break;
    case 10:
        /* not in ops-mt: dispositions are process-wide, and its workers
         * would change them under each other's models */
        if ((v & 0xc000) == 0x8000 && !m->threads_ok)
            fz_op_signals(in);     /* signals.c */
        else
            op_get_stats();
        break;
    case 11: op_describe(m, in, i); break;
    case 12: {
        /* accepted and (arena_max) kept, as glibc does; arenas matter only
         * once there are threads, which these binaries never have */
        static const int params[] = { M_ARENA_MAX, M_ARENA_TEST, M_CHECK_ACTION };
        if (m->mallopt_ok && mallopt(params[v % 3], (int)(v % 64)) != 1)
            fz_fail("mallopt(%d, %u) failed", params[v % 3], v % 64);
        if (m->threads_ok)
            op_verify_contended();
        break;
    }
    default:
        if (m->threads_ok)
            op_thread(m, in, i);
        else if ((v & 0xc000) == 0xc000 && m->subruns > 0) {
            m->subruns--;
            fz_op_subrun(in);      /* subrun.c */
        } else
            op_leak_check(m, in);
    }
}
