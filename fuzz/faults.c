/*
 * faults.c — fault-injection fuzzing of guard mode: the ops stream of
 * model.c in guard mode, and at the first FZ_OP_INJECT op one bad access,
 * made in a fork()ed child, which must end in its report:
 *   read-after-free, write-after-free  a byte of a block the input freed
 *                                      just now (its pages are sealed)
 *   read-past-64, write-past-64        64 bytes past a live block's end
 *                                      (beyond its slack, on its guard page)
 *   write-past-1mib                    1 MiB past a live block's end: ends
 *                                      in the report of whatever guarded
 *                                      memory is there (a block's guard page
 *                                      or sealed pages, or none near), unless
 *                                      it is some live block's open pages —
 *                                      then it is not a fault (at most the
 *                                      other block's slack check at its
 *                                      free sees it), and only counted
 *   wild-read                          a read of an unmapped low address
 *                                      (a NULL pointer's field): one segv
 *                                      report, then death by SIGSEGV
 * A kind byte of 6 or more (kind = byte % 6) adds two bytes, the access's
 * form and context, and makes the access itself one of access.c's forms
 * (an instruction written out as bytes — integer, ALU, string, x87, MMX,
 * SSE, AVX and AVX-512 moves of 1 to 64 bytes, read, write or
 * read-modify-write, some the decoder does not know — or memcpy, memmove,
 * memset over a range that runs into the bad memory), whose kind of access
 * and size the report must give ("READ of size 8"; no size for a form the
 * decoder does not know; any size for the libc forms, which must not be
 * unknown), made
 *   directly, from a signal handler (on the program's stack or on the
 *   thread's alternate stack), on a misaligned stack, on a smashed stack
 *   (rsp and rbp pointing at unmapped memory), or from a second thread
 *   after a first one came and went.
 * The child's report callback sends the report's kind and address, the
 * access kind and size through a pipe; then chunkguard ends the child
 * with SIGABRT (SIGSEGV after a segv report).  The harness aborts (a
 * crash for the fuzzer) when the child dies any other way, or the report
 * is of another kind, another address, says chunkguard faulted in its own
 * code, or gets READ/WRITE or the size wrong.  fz_summary() prints the
 * counts per kind, form and context after a replay.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <sys/wait.h>
#include <unistd.h>

#include "access.h"
#include "chunkguard.h"
#include "fuzz.h"

const char *cg_default_options(void)
{
    return "symbolize=0:mode=guard:guard_quarantine_mb=16:stack_depth=2:log_path=/dev/null";
}

/* The sanitizer runtime libFuzzer builds link would take SIGSEGV too. */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
    return "handle_segv=0:handle_sigbus=0:handle_abort=0";
}

enum { F_READ_FREED, F_WRITE_FREED, F_READ_PAST, F_WRITE_PAST, F_WRITE_FAR, F_WILD, F_COUNT };
static const char *const fault_name[F_COUNT] = {
    "read-after-free", "write-after-free", "read-past-64", "write-past-64", "write-past-1mib",
    "wild-read",
};
static size_t injected[F_COUNT], detected[F_COUNT], unseeable[F_COUNT];

/* Where the access is made from. */
enum { C_DIRECT, C_HANDLER, C_HANDLER_ALTSTACK, C_MISALIGNED, C_SMASHED, C_THREAD, C_COUNT };
static const char *const ctx_name[C_COUNT] = {
    "direct", "signal-handler", "handler-on-altstack", "misaligned-stack", "smashed-stack",
    "second-thread",
};
#define FZ_FORMS_MAX 192
static size_t form_used[FZ_FORMS_MAX], ctx_used[C_COUNT];

static int child_fd = -1;

/* Runs under chunkguard's report lock, in the child: no malloc. */
static void on_report(const cg_report_t *r, void *arg)
{
    (void)arg;
    if (child_fd < 0)
        return;
    char msg[600];
    const char *access = strstr(r->text, "\nREAD") ? "READ" : strstr(r->text, "\nWRITE") ? "WRITE"
                                                                                       : "none";
    /* "READ of size 8 at 0x..." (no "of size" when the size is not known) */
    const char *sz = strstr(r->text, access[0] == 'R' ? "\nREAD of size " : "\nWRITE of size ");
    unsigned long size = sz != NULL ? strtoul(strchr(sz, 'f') + 7, NULL, 10) : 0;
    int n = snprintf(msg, sizeof msg, "report %s %p %s %lu %s\n", r->kind, r->address, access,
                     size, strstr(r->text, "inside chunkguard") ? "inside" : "outside");
    (void)!write(child_fd, msg, (size_t)(n < (int)sizeof msg ? n : (int)sizeof msg - 1));
    /* After a segv report the default action ends the child, with no
     * abort to write the coverage counters at: write them now.  Not with
     * a second thread: writing them allocates, and a callback's malloc
     * with threads takes an arena lock under the report lock, which the
     * lock-order check reports (the callback must not allocate). */
    if (strcmp(r->kind, "segv") == 0 && __libc_single_threaded)
        fz_coverage_dump();
}

/* Some live slot with plain 16-byte alignment (its block ends at most 15
 * bytes before its guard page), from sel; -1 when none. */
static int pick_live(const fz_model_t *m, unsigned sel)
{
    for (unsigned k = 0; k < m->nslots; k++) {
        unsigned i = (sel + k) % m->nslots;
        /* not a block served to a signal handler (its own pages, no guard
         * page, unmapped at free: an access to it is a wild one) */
        if (m->slot[i].p != NULL && !m->slot[i].tainted && !m->slot[i].served &&
            m->slot[i].align == 16)
            return (int)i;
    }
    return -1;
}

/* ---- the access, in the child ---------------------------------------------- */

typedef struct access {
    int kind;                   /* F_*                                      */
    const fz_form_t *form;      /* NULL: the plain byte access of old seeds */
    int ctx;                    /* C_*                                      */
    unsigned char *at;          /* the address (libc forms: the range's start) */
    size_t len;                 /* libc forms: the range's length           */
    long skew;                  /* C_MISALIGNED: bytes below 16-alignment   */
    const unsigned char *lo, *hi;   /* the report's address in [lo, hi)     */
    char rw;                    /* 'R', 'W', 'M' (either)                   */
} access_t;

static access_t acc;
static unsigned char scratch[(2u << 20) + 4096];   /* the string moves' other side */

static void make_access(int ctx)
{
    if (acc.form == NULL) {
        volatile unsigned char *at = acc.at;
        if (acc.rw == 'R')
            (void)*at;
        else
            *at = 0x5a;
        return;
    }
    long how = ctx == C_MISALIGNED ? FZ_STACK_MISALIGNED : ctx == C_SMASHED ? FZ_STACK_SMASHED
                                                                             : FZ_STACK_AS_IS;
    /* a smashed stack: rsp and rbp at an address below mmap_min_addr,
     * never mapped; the handler runs on the thread's alternate stack */
    long val = ctx == C_SMASHED ? 0x8000 : acc.skew;
    acc.form->run(acc.at, scratch, acc.len, how, val);
}

static void on_usr1(int sig)
{
    (void)sig;
    make_access(C_DIRECT);
}

static void *second_thread(void *arg)
{
    (void)arg;
    make_access(C_DIRECT);
    return NULL;
}

static void *first_thread(void *arg)
{
    /* its first call starts its thread state (and alternate stack), its
     * exit retires them */
    free(malloc(40 + (size_t)(uintptr_t)arg));
    return NULL;
}

static void access_in_context(void)
{
    switch (acc.ctx) {
    case C_HANDLER: case C_HANDLER_ALTSTACK: {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_usr1;
        sa.sa_flags = acc.ctx == C_HANDLER_ALTSTACK ? SA_ONSTACK : 0;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGUSR1, &sa, NULL);
        raise(SIGUSR1);
        break;
    }
    case C_THREAD: {
        pthread_t t;
        if (pthread_create(&t, NULL, first_thread, (void *)(uintptr_t)acc.len) != 0 ||
            pthread_join(t, NULL) != 0 || pthread_create(&t, NULL, second_thread, NULL) != 0)
            fz_fail("pthread_create in the child failed");
        pthread_join(t, NULL);
        break;
    }
    default:
        make_access(acc.ctx);
    }
}

/* The access, in a child; the parent checks how the child ended. */
static void fault_in_child(const char *want)
{
    pid_t pid = fz_fork_child(&child_fd);
    if (pid == 0) {
        access_in_context();
        (void)!write(child_fd, "no-fault", 8);
        _exit(0);
    }
    char msg[700];
    int st = fz_child_end(pid, child_fd, msg, sizeof msg);
    child_fd = -1;
    char got[32] = "", access[8] = "", where[12] = "";
    void *addr = NULL;
    unsigned long size = 0;
    sscanf(msg, "report %31s %p %7s %lu %11s", got, &addr, access, &size, where);
    const char *what = acc.form ? acc.form->name : "byte";
    int want_sig = acc.kind == F_WILD ? SIGSEGV : SIGABRT;
    if (!WIFSIGNALED(st) || WTERMSIG(st) != want_sig) {
        char desc[512];
        cg_describe(acc.at, desc, sizeof desc);
        fz_fail("an injected %s (%s, %s) at %p: the child %s %d (%s); the address: %s",
                fault_name[acc.kind], what, ctx_name[acc.ctx], (void *)acc.at,
                WIFSIGNALED(st) ? "died of signal" : "exited",
                WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), msg[0] ? msg : "no report",
                desc);
    }
    const unsigned char *a = addr;
    bool rw_ok = acc.rw == 'M' ? strcmp(access, "none") != 0
                               : strcmp(access, acc.rw == 'R' ? "READ" : "WRITE") == 0;
    /* the size: the form's own (0: the report must give none); the libc
     * forms' instructions are all ones the decoder must know */
    size_t want_size = acc.form == NULL ? 1 : acc.form->size;
    bool size_ok = acc.form != NULL && acc.form->libc ? size != 0 : size == want_size;
    if (got[0] == 0 || a < acc.lo || a >= acc.hi || !rw_ok || !size_ok ||
        strcmp(where, "outside") != 0 ||
        (want != NULL ? strcmp(got, want) != 0
                      : strcmp(got, "heap-buffer-overflow") != 0 &&
                        strcmp(got, "heap-use-after-free") != 0 && strcmp(got, "segv") != 0))
        fz_fail("an injected %s (%s, %s) at %p gave '%s' (wanted %s, %s of size %zu%s, at "
                "[%p, %p))", fault_name[acc.kind], what, ctx_name[acc.ctx], (void *)acc.at, msg,
                want ? want : "a fault report",
                acc.rw == 'M' ? "READ or WRITE" : acc.rw == 'R' ? "READ" : "WRITE", want_size,
                acc.form != NULL && acc.form->libc ? " or any known" : "", (void *)acc.lo,
                (void *)acc.hi);
    detected[acc.kind]++;
}

static bool injected_once;

/* The access of an old seed (kind byte < F_COUNT): one byte, read or
 * written as the kind says, directly. */
static void plain_access(unsigned kind)
{
    acc.form = NULL;
    acc.ctx = C_DIRECT;
    acc.rw = kind == F_READ_FREED || kind == F_READ_PAST || kind == F_WILD ? 'R' : 'W';
}

/* FZ_OP_INJECT: decode the fault (always the same bytes), then make it. */
static void inject(fz_model_t *m, fz_in_t *in)
{
    unsigned kb = fz_u8(in), kind = kb % F_COUNT, sel = fz_u8(in), off = fz_u16(in);
    unsigned fb = 0, cb = 0;
    if (kb >= F_COUNT) {
        fb = fz_u8(in);
        cb = fz_u8(in);
    }
    if (injected_once)
        return;                                  /* one fault per input */
    int i = pick_live(m, sel);
    if (i < 0)
        return;
    memset(&acc, 0, sizeof acc);
    acc.kind = (int)kind;
    if (kb < F_COUNT) {
        plain_access(kind);
    } else {
        acc.form = &fz_forms[fb % fz_nforms];
        acc.ctx = (int)(cb % C_COUNT);
        if (!fz_form_available(acc.form))
            return;                              /* not on this CPU */
        /* a string function is called, not made on a changed stack; a
         * push needs the stack it changes */
        if ((acc.form->libc && (acc.ctx == C_MISALIGNED || acc.ctx == C_SMASHED)) ||
            (acc.form->stack && acc.ctx == C_SMASHED))
            acc.ctx = C_DIRECT;
        acc.rw = acc.form->rw;
        acc.skew = 1 + (long)(cb / C_COUNT) % 15;
    }
    injected_once = true;
    fz_slot_t *s = &m->slot[i];
    unsigned char *p = s->p;
    size_t req = s->req, align = acc.form ? acc.form->align : 1;
    bool libc = acc.form != NULL && acc.form->libc;
    injected[kind]++;
    const char *want;
    switch (kind) {
    case F_READ_FREED: case F_WRITE_FREED:
        if (req == 0) {                          /* no byte to touch: not this time */
            injected[kind]--;
            return;
        }
        /* aligned down: still in the block's sealed pages (16-aligned p) */
        acc.at = (unsigned char *)((uintptr_t)(p + off % req) & ~(uintptr_t)(align - 1));
        acc.len = 1 + fb % 256;                  /* up to its guard page */
        fz_model_free(m, (unsigned)i, sel);
        want = "heap-use-after-free";
        acc.lo = acc.at;
        acc.hi = libc ? acc.at + acc.len : acc.at + 1;
        break;
    case F_READ_PAST: case F_WRITE_PAST: {
        unsigned char *at = p + req + 64;
        want = "heap-buffer-overflow";
        if (libc) {
            /* from inside the block (or its end) over its guard page's
             * start: the fault is on the guard page, before at + 1 */
            size_t from = (size_t)off % (req + 1);
            acc.at = p + from;
            acc.len = (size_t)(at + 1 - acc.at);
            acc.lo = (unsigned char *)(((uintptr_t)(p + req) + 4095) & ~(uintptr_t)4095);
            acc.hi = at + 1;
        } else {
            acc.at = (unsigned char *)((uintptr_t)at & ~(uintptr_t)(align - 1));
            acc.lo = acc.at;
            acc.hi = acc.at + 1;
        }
        break;
    }
    case F_WILD:
        acc.at = (unsigned char *)((uintptr_t)(16 + off % 4000) & ~(uintptr_t)(align - 1));
        acc.len = 1 + fb % 64;                   /* all in the unmapped page 0 */
        want = "segv";
        acc.lo = acc.at;
        acc.hi = libc ? acc.at + acc.len : acc.at + 1;
        break;
    default: {
        acc.at = (unsigned char *)((uintptr_t)(p + req + (1u << 20)) & ~(uintptr_t)(align - 1));
        acc.len = 1 + fb % 256;
        if (acc.rw != 'W' && acc.form == NULL)
            acc.rw = 'W';
        if (fz_accessible(acc.at)) {
            unseeable[kind]++;
            return;
        }
        want = NULL;
        acc.lo = acc.at;
        acc.hi = libc ? acc.at + acc.len : acc.at + 1;
    }
    }
    if (acc.form != NULL) {
        form_used[acc.form - fz_forms]++;
        ctx_used[acc.ctx]++;
    }
    fault_in_child(want);
}

static void summary(void)
{
    size_t never = 0;
    for (int k = 0; k < F_COUNT; k++) {
        fprintf(stderr, "faults: %-16s injected %zu, reported %zu, into live data %zu\n",
                fault_name[k], injected[k], detected[k], unseeable[k]);
        never += injected[k] == 0;
    }
    fprintf(stderr, "faults: %zu kind(s) never injected\n", never);
    /* every form this CPU has and every context, at least once */
    size_t unused = 0, absent = 0;
    for (size_t f = 0; f < fz_nforms; f++) {
        if (!fz_form_available(&fz_forms[f])) {
            absent++;
        } else if (form_used[f] == 0) {
            fprintf(stderr, "faults: form %s never used\n", fz_forms[f].name);
            unused++;
        }
    }
    for (int c = 0; c < C_COUNT; c++) {
        if (ctx_used[c] == 0) {
            fprintf(stderr, "faults: context %s never used\n", ctx_name[c]);
            unused++;
        }
    }
    fprintf(stderr, "faults: %zu form(s) or context(s) never used (%zu of %zu forms not on "
            "this CPU)\n", unused, absent, fz_nforms);
}

void fz_summary(void);
void fz_summary(void) { summary(); }

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    if (fz_nforms > FZ_FORMS_MAX)
        fz_fail("access.c has %zu forms: raise FZ_FORMS_MAX", fz_nforms);
    fz_no_libfuzzer_threads(argc, argv);
    fz_no_libfuzzer_segv(argc, argv);
    return 0;
}

static void set_callback(void)
{
    cg_set_report_callback(on_report, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_INPUT)
        return 0;
    static fz_model_t m;
    fz_assert_single_threaded();
    set_callback();
    fz_model_init(&m, FZ_SLOTS, true);
    m.inject = inject;
    m.restore_callback = set_callback;
    injected_once = false;
    fz_in_t in = { data, size, 0 };
    while (fz_model_step(&m, &in, NULL))
        ;
    fz_model_release_all(&m);
    return 0;
}
