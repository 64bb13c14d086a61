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
 * The child's report callback sends the report's kind and address, and
 * the access kind, through a pipe; then chunkguard ends the child with
 * SIGABRT.  The harness aborts (a crash for the fuzzer) when the child
 * dies any other way, or the report is of another kind, another address,
 * says chunkguard faulted in its own code, or gets READ/WRITE wrong.
 * fz_summary() prints the counts per kind after a replay.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chunkguard.h"
#include "fuzz.h"

const char *cg_default_options(void)
{
    return "mode=guard:guard_quarantine_mb=16:stack_depth=2:log_path=/dev/null";
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
    int n = snprintf(msg, sizeof msg, "report %s %p %s %s\n", r->kind, r->address, access,
                     strstr(r->text, "inside chunkguard") ? "inside" : "outside");
    (void)!write(child_fd, msg, (size_t)(n < (int)sizeof msg ? n : (int)sizeof msg - 1));
}

/* Some live slot with plain 16-byte alignment (its block ends at most 15
 * bytes before its guard page), from sel; -1 when none. */
static int pick_live(const fz_model_t *m, unsigned sel)
{
    for (unsigned k = 0; k < m->nslots; k++) {
        unsigned i = (sel + k) % m->nslots;
        if (m->slot[i].p != NULL && !m->slot[i].tainted && m->slot[i].align == 16)
            return (int)i;
    }
    return -1;
}

/* Can a be read (some live block's pages: its data or its slack)?  The
 * kernel copies one byte from it into a pipe, or says EFAULT. */
static bool accessible(const void *a)
{
    int fds[2];
    if (pipe(fds) != 0)
        fz_fail("pipe: %s", strerror(errno));
    bool ok = write(fds[1], a, 1) == 1;
    close(fds[0]);
    close(fds[1]);
    return ok;
}

#ifdef FZ_COVERAGE
void __gcov_dump(void);
/* The child ends by chunkguard's abort() after its report: write the
 * counters then (the report's code counts too), and die by SIGABRT all
 * the same. */
static void dump_on_abort(int sig)
{
    __gcov_dump();
    signal(sig, SIG_DFL);
    raise(sig);
}
#endif

/* The access, in a child; the parent checks how the child ended. */
static void fault_in_child(int kind, volatile unsigned char *at, const char *want,
                           const char *access)
{
    int fds[2];
    if (pipe(fds) != 0)
        fz_fail("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        fz_fail("fork: %s", strerror(errno));
    if (pid == 0) {
        close(fds[0]);
        child_fd = fds[1];
        static const int sigs[] = { SIGABRT, SIGALRM, SIGFPE, SIGILL, SIGINT, SIGTERM };
        for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++)
            signal(sigs[k], SIG_DFL);
        alarm(20);
#ifdef FZ_COVERAGE
        signal(SIGABRT, dump_on_abort);
#endif
        if (access[0] == 'R')
            (void)*at;
        else
            *at = 0x5a;
        (void)!write(child_fd, "no-fault", 8);
        _exit(0);
    }
    close(fds[1]);
    char msg[700];
    size_t n = 0;
    for (;;) {
        ssize_t k = read(fds[0], msg + n, sizeof msg - 1 - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        n += (size_t)k;
        if (n == sizeof msg - 1)
            break;
    }
    msg[n] = 0;
    close(fds[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    char got[32] = "", acc[8] = "", where[12] = "";
    void *addr = NULL;
    sscanf(msg, "report %31s %p %7s %11s", got, &addr, acc, where);
    int want_sig = kind == F_WILD ? SIGSEGV : SIGABRT;
    if (!WIFSIGNALED(st) || WTERMSIG(st) != want_sig) {
        char what[512];
        cg_describe((const void *)at, what, sizeof what);
        fz_fail("an injected %s at %p: the child %s %d (%s); the address: %s", fault_name[kind],
                (void *)at, WIFSIGNALED(st) ? "died of signal" : "exited",
                WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), msg[0] ? msg : "no report",
                what);
    }
    if (got[0] == 0 || (void *)at != addr || strcmp(acc, access) != 0 ||
        strcmp(where, "outside") != 0 ||
        (want != NULL ? strcmp(got, want) != 0
                      : strcmp(got, "heap-buffer-overflow") != 0 &&
                        strcmp(got, "heap-use-after-free") != 0 && strcmp(got, "segv") != 0))
        fz_fail("an injected %s at %p gave '%s' (wanted %s %s at that address)",
                fault_name[kind], (void *)at, msg, want ? want : "a fault report", access);
    detected[kind]++;
}

static bool injected_once;

/* FZ_OP_INJECT: decode the fault (always the same bytes), then make it. */
static void inject(fz_model_t *m, fz_in_t *in)
{
    unsigned kind = fz_u8(in) % F_COUNT, sel = fz_u8(in), off = fz_u16(in);
    if (injected_once)
        return;                                  /* one fault per input */
    int i = pick_live(m, sel);
    if (i < 0)
        return;
    injected_once = true;
    fz_slot_t *s = &m->slot[i];
    unsigned char *p = s->p;
    size_t req = s->req;
    injected[kind]++;
    switch (kind) {
    case F_READ_FREED: case F_WRITE_FREED: {
        if (req == 0) {                          /* no byte to touch: not this time */
            injected[kind]--;
            return;
        }
        unsigned char *at = p + off % req;
        fz_model_free(m, (unsigned)i, sel);
        fault_in_child((int)kind, at, "heap-use-after-free", kind == F_READ_FREED ? "READ"
                                                                                   : "WRITE");
        break;
    }
    case F_READ_PAST: case F_WRITE_PAST:
        fault_in_child((int)kind, p + req + 64, "heap-buffer-overflow",
                       kind == F_READ_PAST ? "READ" : "WRITE");
        break;
    case F_WILD:
        fault_in_child((int)kind, (unsigned char *)(uintptr_t)(16 + off % 4000), "segv", "READ");
        break;
    default: {
        unsigned char *at = p + req + (1u << 20);
        if (accessible(at)) {
            unseeable[kind]++;
            return;
        }
        fault_in_child((int)kind, at, NULL, "WRITE");
    }
    }
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
}

void fz_summary(void);
void fz_summary(void) { summary(); }

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fz_no_libfuzzer_threads(argc, argv);
    /* chunkguard's SIGSEGV handler makes the reports: libFuzzer must not
     * install its own over it */
    static const char *const extra[] = { "-handle_segv=0", "-handle_bus=0" };
    char **v = malloc(sizeof *v * (size_t)(*argc + 3));
    if (v != NULL) {
        v[0] = (*argv)[0];
        v[1] = (char *)extra[0];
        v[2] = (char *)extra[1];
        memcpy(v + 3, *argv + 1, sizeof *v * (size_t)*argc);   /* with the NULL */
        *argv = v;
        *argc += 2;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_INPUT)
        return 0;
    static fz_model_t m;
    fz_assert_single_threaded();
    cg_set_report_callback(on_report, NULL);
    fz_model_init(&m, FZ_SLOTS, true);
    m.inject = inject;
    injected_once = false;
    fz_in_t in = { data, size, 0 };
    while (fz_model_step(&m, &in, NULL))
        ;
    fz_model_release_all(&m);
    return 0;
}
