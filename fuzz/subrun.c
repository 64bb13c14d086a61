/*
 * subrun.c — FZ_OP_TUNE's sub-run (tune.c: case 13 with v's top bits 11,
 * once per input, the single-threaded harnesses): what only a process of
 * its own can show, since chunkguard reads its options once, at start-up.
 *
 * The harness runs its own binary again (/proc/self/exe, from a fork()ed
 * child, with a fresh environment: CHUNKGUARD_OPTIONS and FZ_SUBRUN) with
 * options the input picks: the mode (debug, guard, fast); symbolize=0, or
 * llvm-symbolizer from $PATH, or addr2line (symbolizer_path), or a
 * symbolizer that does not exist; a suppressions file (none, one that
 * matches the leaks, one that matches nothing and has malformed lines, one
 * that matches the double free); report_path (JSON lines); stats_path with
 * verbosity=1; always detect_leaks=1, halt_on_error=0, log_path.
 *
 * In the new process a constructor (before libFuzzer's or the driver's
 * main) runs the script of FZ_SUBRUN: 1-4 blocks allocated by
 * fz_sub_leak_site and hidden (only their complemented address is kept),
 * 0-3 threads asleep in read(), each holding on its stack the only pointer
 * to a block of fz_sub_held_site's (with a flag bit the last of them
 * blocks every signal, so the leak check cannot stop it), with another
 * flag bit a cg_leak_check() call, with another a double free from
 * fz_sub_bad_site; then exit(0), and detect_leaks' check at exit.  The
 * flags byte's bits 3-5 pick a variant (V_*, below): a report callback
 * or a signal handler that calls exit() inside the double free's report,
 * a SIGABRT handler or a callback that siglongjmps out of one (a second
 * double free follows), leaks from 4400 call sites (past the report's
 * 4096 groups), or report_path and stats_path that cannot be opened.
 *
 * The parent checks the exit status (23 when a leak is reported, else 0),
 * and the log: in debug and guard mode at least one hidden block reported
 * as a leak from fz_sub_leak_site, no held block reported (nothing names
 * fz_sub_held_site), the summary's leaked bytes within the hidden ones and
 * its count of threads stopped; with a real symbolizer the frames carry
 * subrun.c's file:line, without one (or with symbolize=0) they do not; a
 * matching suppression leaves no leak report and exit status 0, the
 * malformed lines each get a warning naming their line; the double free
 * is reported (naming fz_sub_bad_site) unless suppressed; the JSON file
 * has one memory-leak object per group; the stats file its counters; each
 * variant's outcome (its exit status, every double free reported whole,
 * the C++ frames demangled, the groups not shown counted, the warnings)
 * as the variant's comment says.  In
 * fast mode nothing is reported and the log warns that detect_leaks and
 * halt_on_error act in debug and guard mode only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "chunkguard.h"
#include "fuzz.h"

#define SUB_LEAKS   4
#define SUB_THREADS 3
enum { SUB_MASKED = 1, SUB_CHECK = 2, SUB_DOUBLE_FREE = 4 };

/* ---- in the sub-run's own process ------------------------------------- */

static uintptr_t sub_hidden[SUB_LEAKS];   /* ~address: no reference left */
static int sub_never[2];                  /* read by the threads: no writer */

static __attribute__((noinline)) void fz_sub_leak_site(unsigned k, size_t n)
{
    unsigned char *p = malloc(n);
    if (p == NULL)
        _exit(70);
    memset(p, 0x5a, n);
    sub_hidden[k] = ~(uintptr_t)p;
}

static __attribute__((noinline)) void *fz_sub_held_site(size_t n)
{
    void *p = malloc(n);
    if (p == NULL)
        _exit(70);
    memset(p, 0x33, n);
    return p;
}

static int sub_ready[2];                  /* each thread's tid, once it runs */

static int sub_tids[SUB_THREADS][2];        /* tid, and whether it is the masked one */

/* /proc/self/task/TID/LEAF into buf (cap bytes, NUL-terminated); its length. */
static ssize_t task_file(int tid, const char *leaf, char *buf, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/%s", tid, leaf);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    return n;
}

/* Is thread tid asleep in its read() (state S, in system call 0), with
 * the signal mask of sub_thread (not inside a signal handler of the last
 * check, which blocks every signal until it returns)? */
static bool asleep_in_read(int tid, bool masked)
{
    char buf[2048];
    if (task_file(tid, "stat", buf, sizeof buf) <= 0)
        return false;
    const char *q = strrchr(buf, ')');
    if (q == NULL || q[1] != ' ' || q[2] != 'S')
        return false;
    if (task_file(tid, "syscall", buf, sizeof buf) <= 0 || strncmp(buf, "0 ", 2) != 0)
        return false;
    if (task_file(tid, "status", buf, sizeof buf) <= 0 || (q = strstr(buf, "\nSigBlk:")) == NULL)
        return false;
    unsigned long long blk = strtoull(q + 9, NULL, 16);
    /* the check stops threads with the highest free real-time signal:
     * SIGRTMAX here, where nothing else takes one */
    return masked || ((blk >> (SIGRTMAX - 1)) & 1) == 0;
}

/* Every thread asleep in its read() before a check: a thread still
 * starting has every signal blocked (glibc), and one still in the handler
 * of the check before too; one outside a system call has no stack pointer
 * /proc can tell.  Such threads are only noted by the check, and the
 * blocks they alone hold reported, as leaks.c says. */
static void wait_asleep(unsigned nthr)
{
    for (unsigned t = 0; t < nthr; t++) {
        for (int k = 0; !asleep_in_read(sub_tids[t][0], sub_tids[t][1]); k++) {
            if (k == 5000) {
                char b1[512], b2[128], b3[2048];
                task_file(sub_tids[t][0], "stat", b1, sizeof b1);
                task_file(sub_tids[t][0], "syscall", b2, sizeof b2);
                task_file(sub_tids[t][0], "status", b3, sizeof b3);
                fprintf(stderr, "fz-subrun: thread %d not asleep in read(): %s / %s / %s\n",
                        sub_tids[t][0], b1, b2, strstr(b3, "SigBlk") ? strstr(b3, "SigBlk") : b3);
                _exit(76);
            }
            usleep(1000);
        }
    }
}

static void *sub_thread(void *arg)
{
    if (arg != NULL) {          /* the masked one */
        sigset_t all;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, NULL);
    }
    /* the only reference to its block is here, on this thread's stack */
    void *volatile held = fz_sub_held_site(200 + (arg != NULL ? 56 : 0));
    int me[2] = { gettid(), arg != NULL };    /* in the order the threads run */
    (void)!write(sub_ready[1], me, sizeof me);
    char c;
    for (;;)
        if (read(sub_never[0], &c, 1) == 0)
            break;
    return held;
}

static __attribute__((noinline)) void fz_sub_bad_site(void)
{
    void *volatile p = malloc(48);
    free(p);
    free(p);                    /* halt_on_error=0: reported, and on we go */
}

/* A C++ function's name, as its frame has it (demangled from the symbol
 * tables, or by the symbolizer): fz::sub::bad_again(). */
static void fz_sub_bad_again(void) __asm__("_ZN2fz3sub9bad_againEv");
static __attribute__((noinline, used)) void fz_sub_bad_again(void)
{
    void *volatile p = malloc(56);
    free(p);
    free(p);                    /* a second report, from another call site */
}

/* ---- the sub-run's variants: a report cut short, or jumped out of ---- */

/* V_CB_EXIT: the report callback calls exit() in the double free's
 * report; V_SIG_EXIT: the symbolizer (a script that signals this process
 * and then never answers) lets a SIGUSR1 handler call exit() while the
 * report waits for it, its first lines rendered and nothing written
 * (cg_render_finish must write it out, then end the process as the
 * report would have: exitcode); V_ABORT_JUMP: halt_on_error=1, and a
 * SIGABRT handler siglongjmps out of each fatal report (two double frees,
 * both reported, and the program goes on); V_CB_JUMP: the callback
 * siglongjmps out of the first double free's report, the second is
 * reported all the same; V_MANY: SUB_MANY_N leaked blocks from distinct
 * stacks, past the leak report's 4096 groups; V_BAD_PATHS: report_path
 * and stats_path in a directory that does not exist (each warned of
 * once, whatever the reports). */
enum { V_NONE, V_CB_EXIT, V_SIG_EXIT, V_ABORT_JUMP, V_CB_JUMP, V_MANY, V_BAD_PATHS, V_COUNT };
#define SUB_EXIT 42             /* the exit() code of the handlers       */
#define SUB_FATAL 45            /* exitcode= of a fatal report           */
#define SUB_MANY_N 4400         /* leaked blocks, each its own stack     */

static sigjmp_buf sub_jump;
static volatile sig_atomic_t sub_jumps, sub_calls;
static unsigned sub_variant;

static void sub_callback(const cg_report_t *r, void *arg)
{
    (void)arg;
    if (strcmp(r->kind, "double-free") != 0)
        return;
    sub_calls++;
    if (sub_variant == V_CB_EXIT)
        exit(SUB_EXIT);
    if (sub_variant == V_CB_JUMP && sub_calls == 1)
        siglongjmp(sub_jump, 1);
}

static void sub_on_signal(int sig)
{
    if (sig == SIGUSR1)
        exit(SUB_EXIT);
    sub_jumps++;
    siglongjmp(sub_jump, 1);    /* SIGABRT: out of the fatal report */
}

/* Distinct stacks: a block's stack here is its call site alone (the
 * sub-run's script runs in a constructor, before chunkguard has its
 * unwinder: frames past the first are not recorded), so SUB_MANY_N call
 * sites, one after the other, each leaking a block. */
#define SUB_MANY_1 do { void *q = malloc(16); __asm__ volatile("" :: "r"(q) : "memory"); } while (0);
#define SUB_MANY_2 SUB_MANY_1 SUB_MANY_1
#define SUB_MANY_4 SUB_MANY_2 SUB_MANY_2
#define SUB_MANY_16 SUB_MANY_4 SUB_MANY_4 SUB_MANY_4 SUB_MANY_4
#define SUB_MANY_64 SUB_MANY_16 SUB_MANY_16 SUB_MANY_16 SUB_MANY_16
#define SUB_MANY_256 SUB_MANY_64 SUB_MANY_64 SUB_MANY_64 SUB_MANY_64
#define SUB_MANY_1024 SUB_MANY_256 SUB_MANY_256 SUB_MANY_256 SUB_MANY_256
/* Named as a C++ function longer than a frame's name keeps (255 bytes):
 * demangled on a stack of its own, and cut ("..."). */
#define SUB_NS "16abcdefghijklmnop"
#define SUB_MANY_NAME "abcdefghijklmnop::abcdefghijklmnop::abcdefghijklmnop::"
static void fz_sub_many_site(void) __asm__(
    "_ZN" SUB_NS SUB_NS SUB_NS SUB_NS SUB_NS SUB_NS SUB_NS SUB_NS SUB_NS SUB_NS SUB_NS SUB_NS
    SUB_NS SUB_NS SUB_NS SUB_NS SUB_NS "9many_siteEv");
static __attribute__((noinline, used)) void fz_sub_many_site(void)
{
    /* 4096 + 256 + 48 */
    SUB_MANY_1024 SUB_MANY_1024 SUB_MANY_1024 SUB_MANY_1024
    SUB_MANY_256 SUB_MANY_16 SUB_MANY_16 SUB_MANY_16
}

/* The double free(s) of the script, as the variant has them. */
static void sub_bad(void)
{
    if (sub_variant == V_NONE || sub_variant == V_MANY) {
        fz_sub_bad_site();
        return;
    }
    struct sigaction sa = { .sa_handler = sub_on_signal };
    sigemptyset(&sa.sa_mask);
    if (sub_variant == V_SIG_EXIT) {
        char pid[24];
        snprintf(pid, sizeof pid, "%d", (int)getpid());
        setenv("FZ_SUB_PID", pid, 1);       /* for the symbolizer script */
        sigaction(SIGUSR1, &sa, NULL);
    }
    if (sub_variant == V_ABORT_JUMP)
        sigaction(SIGABRT, &sa, NULL);
    if (sub_variant == V_CB_EXIT || sub_variant == V_CB_JUMP)
        cg_set_report_callback(sub_callback, NULL);
    if (sigsetjmp(sub_jump, 1) == 0)
        fz_sub_bad_site();
    if (sub_variant == V_ABORT_JUMP || sub_variant == V_CB_JUMP) {
        if (sigsetjmp(sub_jump, 1) == 0)
            fz_sub_bad_again();
    }
    /* V_CB_EXIT and V_SIG_EXIT never come back here */
    cg_set_report_callback(NULL, NULL);
    signal(SIGABRT, SIG_DFL);
}

static __attribute__((noinline)) void sub_scrub(void)
{
    volatile unsigned char pad[32768];
    for (size_t i = 0; i < sizeof pad; i++)
        pad[i] = 0;
}

/* FZ_SUBRUN: "nleak nthreads flags variant size..." */
__attribute__((constructor)) static void fz_sub_main(void)
{
    const char *s = getenv("FZ_SUBRUN");
    if (s == NULL)
        return;
    unsigned nleak, nthr, flags, sizes[SUB_LEAKS] = { 0 };
    int used = 0;
    if (sscanf(s, "%u %u %u %u%n", &nleak, &nthr, &flags, &sub_variant, &used) != 4 ||
        nleak > SUB_LEAKS || nthr > SUB_THREADS || sub_variant >= V_COUNT)
        _exit(71);
    s += used;
    for (unsigned k = 0; k < nleak; k++) {
        int u = 0;
        if (sscanf(s, "%u%n", &sizes[k], &u) != 1)
            _exit(71);
        s += u;
        fz_sub_leak_site(k, sizes[k]);
    }
    if (pipe(sub_never) != 0 || pipe(sub_ready) != 0)
        _exit(72);
    for (unsigned t = 0; t < nthr; t++) {
        pthread_t th;
        void *masked = (flags & SUB_MASKED) && t == nthr - 1 ? (void *)1 : NULL;
        if (pthread_create(&th, NULL, sub_thread, masked) != 0)
            _exit(73);
    }
    for (unsigned t = 0; t < nthr; t++)
        if (read(sub_ready[0], sub_tids[t], sizeof sub_tids[t]) != sizeof sub_tids[t])
            _exit(75);
    wait_asleep(nthr);
    if (sub_variant == V_MANY)
        fz_sub_many_site();
    if (flags & SUB_DOUBLE_FREE)
        sub_bad();
    sub_scrub();
    if (flags & SUB_CHECK) {
        printf("checked %zu\n", cg_leak_check());
        wait_asleep(nthr);
    }
    /* the coverage build: its counters now, since the exit's dump (its
     * --wrap=cg_os_exit) calls malloc from inside the leak check at exit,
     * which halt_on_error=1 reports as a fatal re-entrant call */
    if (sub_variant == V_ABORT_JUMP)
        fz_coverage_dump();
    exit(0);                    /* the threads still asleep; detect_leaks' check */
}

/* ---- in the harness ---------------------------------------------------- */

static bool find_tool(const char *name, char *buf, size_t cap)
{
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/usr/bin:/bin";
    for (const char *d = path; *d;) {
        size_t n = strcspn(d, ":");
        snprintf(buf, cap, "%.*s/%s", (int)n, d, name);
        if (n > 0 && access(buf, X_OK) == 0)
            return true;
        d += n + (d[n] == ':');
    }
    return false;
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0)
        fz_fail("sub-run: cannot write %s", path);
}

/* The whole of a small file, NUL-terminated, into buf (cap bytes). */
static size_t get_file(const char *path, char *buf, size_t cap)
{
    buf[0] = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t n = 0;
    ssize_t k;
    while (n < cap - 1 && (k = read(fd, buf + n, cap - 1 - n)) != 0) {
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            break;
        n += (size_t)k;
    }
    buf[n] = 0;
    close(fd);
    return n;
}

static size_t count_of(const char *text, const char *what)
{
    size_t c = 0;
    for (const char *q = text; (q = strstr(q, what)) != NULL; q += strlen(what))
        c++;
    return c;
}

static const char *const supp_text[] = {
    NULL,
    "# the leaks of the script\nleak:fz_sub_leak_site\n",
    "leak:^no_such_function$\n\nthis line has no colon\nno-such-kind:x\nleak:\n  # indented comment\n"
    "*:^nowhere_at_all$\n",
    "double-free:fz_sub_bad_site\n",
};

/* The sub-run's log (V_MANY's is megabytes): malloc'ed, NUL-terminated. */
static char *sub_log;

static char *get_whole(const char *path)
{
    struct stat sb;
    size_t cap = (stat(path, &sb) == 0 ? (size_t)sb.st_size : 0) + 1;
    char *b = malloc(cap);
    if (b == NULL)
        fz_fail("sub-run: no memory for %zu bytes of %s", cap, path);
    get_file(path, b, cap);
    return b;
}
static const char *sub_opts, *sub_script;

static _Noreturn __attribute__((format(printf, 1, 2))) void subfail(const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    fprintf(stderr, "fuzz: the sub-run's log:\n%.65536s\n", sub_log != NULL ? sub_log : "");
    fz_fail("sub-run (CHUNKGUARD_OPTIONS=%s, FZ_SUBRUN=%s): %s", sub_opts, sub_script,
            why);
}

void fz_op_subrun(fz_in_t *in)
{
    unsigned o = fz_u8(in) % 192;
    unsigned mode = o % 3, sym = o / 3 % 4, supp = o / 12 % 4;
    bool json = o / 48 % 2, stats = o / 96 % 2;
    unsigned nleak = 2 + fz_u8(in) % (SUB_LEAKS - 1), nthr = fz_u8(in) % (SUB_THREADS + 1);
    unsigned fb = fz_u8(in), flags = fb & 7, variant = fb >> 3 & 7;
    if (variant >= V_COUNT || mode == 2)
        variant = V_NONE;                   /* fast mode reports nothing */
    if (variant != V_NONE && variant != V_MANY)
        flags |= SUB_DOUBLE_FREE;
    if (variant != V_NONE && supp == 3)
        supp = 0;                           /* the double free not suppressed */
    if (variant == V_MANY && supp == 1)
        supp = 0;                           /* nor the leaks */
    if (variant == V_MANY || variant == V_SIG_EXIT)
        sym = 0;                            /* 4400 stacks: no symbolizer;
                                             * V_SIG_EXIT: its own */
    if (nthr == 0)
        flags &= ~SUB_MASKED;
    if (mode == 2)
        flags &= ~SUB_DOUBLE_FREE;          /* fast mode: a fatal report */
    unsigned sizes[SUB_LEAKS];
    size_t hid_min = SIZE_MAX, hid_sum = 0;
    char script[128];
    int sn = snprintf(script, sizeof script, "%u %u %u %u", nleak, nthr, flags, variant);
    for (unsigned k = 0; k < nleak; k++) {
        sizes[k] = 1 + fz_u16(in) % 3000 + 3001 * k;    /* distinct sizes */
        hid_sum += sizes[k];
        hid_min = sizes[k] < hid_min ? sizes[k] : hid_min;
        sn += snprintf(script + sn, sizeof script - (size_t)sn, " %u", sizes[k]);
    }

#ifdef FZ_LIBFUZZER
    /* Not run in the libFuzzer builds (docs/fuzzing.md): they ignored
     * CHUNKGUARD_OPTIONS until platform.c read the environment before
     * libc sets environ, and the sub-run has not been tried under
     * libFuzzer since.  The replay, AFL++ and coverage builds run it. */
    return;
#endif
    char dir[] = "/tmp/fz-subrun-XXXXXX";
    if (mkdtemp(dir) == NULL)
        fz_fail("sub-run: mkdtemp: %s", strerror(errno));
    char log[64], sfile[64], jfile[64], stfile[64], yfile[64], tool[512], opts[1024];
    snprintf(log, sizeof log, "%s/log", dir);
    snprintf(sfile, sizeof sfile, "%s/supp", dir);
    snprintf(jfile, sizeof jfile, "%s/json", dir);
    snprintf(stfile, sizeof stfile, "%s/stats", dir);
    snprintf(yfile, sizeof yfile, "%s/symbolizer", dir);
    static const char *const modes[] = { "debug", "guard", "fast" };
    int on = snprintf(opts, sizeof opts,
                      "mode=%s:detect_leaks=1:halt_on_error=%d:stack_depth=8:log_path=%s:"
                      "verify_interval=0:quarantine_mb=4:guard_quarantine_mb=4:deadlock_timeout_ms=10000",
                      modes[mode], variant == V_ABORT_JUMP || variant == V_SIG_EXIT, log);
    if (variant == V_SIG_EXIT) {
        /* a symbolizer that has this process's SIGUSR1 handler exit while
         * the report waits for its answer, which never comes */
        put_file(yfile, "#!/bin/sh\nkill -USR1 \"$FZ_SUB_PID\"\nexec cat >/dev/null\n");
        chmod(yfile, 0700);
        on += snprintf(opts + on, sizeof opts - (size_t)on,
                       ":exitcode=%d:symbolize=1:symbolizer_path=%s", SUB_FATAL, yfile);
    }
    bool sym_real = false;
    /* every harness's own default is symbolize=0 */
    if (variant != V_SIG_EXIT)
        on += snprintf(opts + on, sizeof opts - (size_t)on, ":symbolize=%d", sym != 0);
    if (sym == 0)
        ;
    else if (sym == 1)
        sym_real = find_tool("llvm-symbolizer", tool, sizeof tool) ||
                   find_tool("addr2line", tool, sizeof tool);
    else if (sym == 2) {
        sym_real = find_tool("addr2line", tool, sizeof tool);
        if (sym_real)
            on += snprintf(opts + on, sizeof opts - (size_t)on, ":symbolizer_path=%s", tool);
    } else
        on += snprintf(opts + on, sizeof opts - (size_t)on,
                       ":symbolizer_path=%s/no-such-llvm-symbolizer", dir);
    if (supp_text[supp] != NULL) {
        put_file(sfile, supp_text[supp]);
        on += snprintf(opts + on, sizeof opts - (size_t)on, ":suppressions=%s", sfile);
    }
    if (variant == V_BAD_PATHS) {
        snprintf(jfile, sizeof jfile, "%s/none/json", dir);
        snprintf(stfile, sizeof stfile, "%s/none/stats", dir);
    }
    if (json)
        on += snprintf(opts + on, sizeof opts - (size_t)on, ":report_path=%s", jfile);
    if (stats)
        on += snprintf(opts + on, sizeof opts - (size_t)on, ":stats_path=%s:verbosity=1", stfile);

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int fd;
    pid_t pid = fz_fork_child(&fd);
    if (pid == 0) {
        char e_opts[1100], e_run[160], e_path[4200];
        snprintf(e_opts, sizeof e_opts, "CHUNKGUARD_OPTIONS=%s", opts);
        snprintf(e_run, sizeof e_run, "FZ_SUBRUN=%s", script);
        const char *path = getenv("PATH");
        snprintf(e_path, sizeof e_path, "PATH=%s", path != NULL ? path : "/usr/bin:/bin");
        char *const envp[] = { e_opts, e_run, e_path, NULL };
        char *const argv[] = { (char *)"fz-subrun", NULL };
        int nul = open("/dev/null", O_RDWR);
        dup2(nul, 0);
        dup2(nul, 1);
        /* nothing of the engine's (AFL++'s fork-server pipes) goes on */
        for (int k = 3; k < 1024; k++)
            if (k != fd)
                close(k);
        execve("/proc/self/exe", argv, envp);
        fz_child_exit(74);
    }
    char msg[64];
    int st = fz_child_end(pid, fd, msg, sizeof msg);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* a symbolizer slower than 5 s leaves the frames unnamed (symbolize's
     * promise): a run of less than half that cannot have hit the limit */
    bool quick = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 < 2500;
    free(sub_log);
    sub_log = get_whole(log);
    const char *L = sub_log;
    sub_opts = opts;
    sub_script = script;
    bool instr = mode != 2;
    bool leaks_suppressed = supp == 1;
    /* V_SIG_EXIT's fatal report ends the process before any leak check;
     * V_CB_EXIT's exit() comes before cg_leak_check() */
    bool reported = instr && !leaks_suppressed && variant != V_SIG_EXIT;
    bool checked = (flags & SUB_CHECK) && variant != V_SIG_EXIT && variant != V_CB_EXIT;
    int want_st = variant == V_SIG_EXIT ? SUB_FATAL
                  : reported            ? 23
                  : variant == V_CB_EXIT ? SUB_EXIT : 0;
    if (!WIFEXITED(st))
        subfail("it died of signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : -1);
    if (WEXITSTATUS(st) != want_st)
        subfail("exit status %d, wanted %d", WEXITSTATUS(st), want_st);
    /* a thread whose stack could not be found is named in a note, and
     * the blocks only it holds are then reported, as leaks.c says */
    if (strstr(L, "fz_sub_held_site") != NULL && strstr(L, "its stack was not scanned") == NULL)
        subfail("a block only another thread's stack points to was reported");
    if (!instr) {
        if (strstr(L, "detected memory leaks") != NULL || strstr(L, "ERROR") != NULL)
            subfail("fast mode reported something");
        if (strstr(L, "act in debug and guard mode only") == NULL)
            subfail("fast mode did not warn that detect_leaks needs debug or guard mode");
    }
    size_t groups = count_of(L, " leak of ");
    if (reported) {
        size_t lb = 0, lk = 0, stopped = 0;
        /* the last check's (the exit's); a double free has a summary too */
        const char *sum = NULL;
        for (const char *q = L; (q = strstr(q, "SUMMARY: chunkguard: ")) != NULL; q++)
            if (sscanf(q, "SUMMARY: chunkguard: %zu byte(s) leaked in %zu", &lb, &lk) == 2)
                sum = q;
        if (sum == NULL)
            subfail("no leak summary");
        sscanf(sum, "SUMMARY: chunkguard: %zu byte(s) leaked in %zu", &lb, &lk);
        size_t many = variant == V_MANY ? SUB_MANY_N : 0;
        if (lb < hid_min || lb > hid_sum + many * 16 || lk < 1 || lk > nleak + many)
            subfail("%zu byte(s) in %zu block(s) leaked; %u hidden blocks of %zu byte(s) (the "
                    "smallest %zu)", lb, lk, nleak, hid_sum, hid_min);
        const char *sp = strstr(sum, "other thread(s) stopped");
        while (sp != NULL && sp > sum && sp[-1] == ' ')
            sp--;
        while (sp != NULL && sp > sum && sp[-1] >= '0' && sp[-1] <= '9')
            sp--;
        if (sp == NULL || sscanf(sp, "%zu", &stopped) != 1)
            subfail("no count of threads stopped");
        /* every other thread is stopped or has a note (the one that
         * blocks signals; one that did not answer within leaks.c's 1 s) */
        size_t notes = count_of(sum, "\n(thread ");
        unsigned want = nthr - ((flags & SUB_MASKED) ? 1 : 0);
        if (stopped + notes != nthr || stopped > want)
            subfail("%zu other thread(s) stopped and %zu note(s), %u thread(s) of which %u "
                    "could be stopped", stopped, notes, nthr, want);
        if ((flags & SUB_MASKED) && strstr(sum, "blocks the signal") == NULL)
            subfail("the thread that blocks every signal has no note");
        if (strstr(L, "fz_sub_leak_site") == NULL)
            subfail("the leak report does not name fz_sub_leak_site");
        if (groups < 1)
            subfail("no leak group");
        if (sym_real && quick && strstr(L, "subrun.c:") == NULL)
            subfail("symbolized by %s, no frame has subrun.c's file:line", tool);
        if (!sym_real && strstr(L, "subrun.c:") != NULL)
            subfail("frames have a file:line without a symbolizer");
        if (checked && count_of(L, "detected memory leaks") != 2)
            subfail("cg_leak_check() and the exit's check: %zu leak reports",
                    count_of(L, "detected memory leaks"));
    } else if (groups != 0 || strstr(L, "detected memory leaks") != NULL) {
        subfail("a leak report%s", leaks_suppressed ? " despite the suppression" : "");
    }
    if (supp == 2) {
        static const unsigned bad_lines[] = { 3, 4, 5 };
        for (size_t k = 0; k < sizeof bad_lines / sizeof bad_lines[0]; k++) {
            char want[96];
            snprintf(want, sizeof want, "%s:%u: ", sfile, bad_lines[k]);
            if (strstr(L, want) == NULL)
                subfail("no warning for the suppressions file's %s", want);
        }
    }
    /* the double frees made, and their reports, each whole (its summary
     * line: a report an exit cut short is written out all the same) */
    size_t dfs = !(flags & SUB_DOUBLE_FREE)                          ? 0
                 : variant == V_ABORT_JUMP || variant == V_CB_JUMP ? 2
                                                                   : 1;
    if (supp == 3)
        dfs = 0;
    if (count_of(L, "ERROR: chunkguard: double-free") != dfs ||
        count_of(L, "SUMMARY: chunkguard: double-free") != dfs)
        subfail("%zu double-free report(s) and %zu summary line(s), %zu wanted",
                count_of(L, "ERROR: chunkguard: double-free"),
                count_of(L, "SUMMARY: chunkguard: double-free"), dfs);
    if (dfs > 0 && strstr(L, "fz_sub_bad_site") == NULL)
        subfail("the double-free report does not name fz_sub_bad_site");
    const char *again = strstr(L, " in fz::sub::bad_again() ");
    if (dfs > 1 && again == NULL)
        subfail("the second double-free report does not name fz::sub::bad_again()");
    /* the report after the jump out of one is symbolized as any other
     * (the symbolizer's batch the jump left open was closed) */
    if (dfs > 1 && sym_real && quick &&
        (strstr(again, "subrun.c:") == NULL || strstr(again, "subrun.c:") > strchr(again, '\n')))
        subfail("the report after the jump out of one has no file:line from %s", tool);
    if (strstr(L, "error while reporting an error") != NULL)
        subfail("a report taken for one inside another");
    if (variant == V_MANY) {
        /* the groups past the report's limit, counted in one line */
        const char *r = strstr(L, " more leak groups (");
        size_t rest = 0, shown = 4096;
        while (r != NULL && r > L && r[-1] >= '0' && r[-1] <= '9')
            r--;
        if (r == NULL || sscanf(r, "%zu", &rest) != 1 ||
            strstr(L, "not shown (the report's limit of 4096 groups)") == NULL)
            subfail("%zu leak groups of distinct stacks, no line for those not shown",
                    (size_t)SUB_MANY_N);
        /* of SUB_MANY_N stacks a few blocks may stay reachable from stale
         * stack slots; the hidden blocks' group or groups are shown */
        if (groups != (checked ? 2 : 1) * shown || rest + shown > SUB_MANY_N + nleak ||
            rest + shown + 64 < SUB_MANY_N)
            subfail("%zu groups shown and %zu not, of %zu stacks", groups, rest,
                    (size_t)SUB_MANY_N);
        const char *nm = strstr(L, " in " SUB_MANY_NAME);
        const char *eol = nm != NULL ? strchr(nm, '\n') : NULL;
        if (eol == NULL || strstr(nm, "::... (") == NULL ||
            strstr(nm, "::... (") > eol)
            subfail("the leak groups' frames do not name %s... (demangled, cut)", SUB_MANY_NAME);
    }
    if (variant == V_BAD_PATHS) {
        /* one warning for each, when something was to be written there */
        char w[160];
        snprintf(w, sizeof w, "WARNING: chunkguard: cannot open report_path '%s': ENOENT", jfile);
        if (count_of(L, w) != (json && (groups > 0 || dfs > 0)))
            subfail("%zu warning(s) '%s'", count_of(L, w), w);
        snprintf(w, sizeof w, "WARNING: chunkguard: cannot open stats_path '%s': ENOENT", stfile);
        if (count_of(L, w) != stats)
            subfail("%zu warning(s) '%s'", count_of(L, w), w);
        json = stats = false;               /* no files to read */
    }
    if (json) {
        char *j = get_whole(jfile);
        size_t jl = count_of(j, "\"kind\":\"memory-leak\"");
        size_t jd = count_of(j, "\"kind\":\"double-free\"");
        if (jl != groups)
            subfail("report_path has %zu memory-leak object(s), the log %zu group(s)", jl, groups);
        if (jd != dfs)
            subfail("report_path has %zu double-free object(s), %zu wanted", jd, dfs);
        if (count_of(j, "\n") < jl + jd)
            subfail("report_path's objects are not one a line");
        if (variant == V_MANY && strstr(j, "\"not_shown\":{\"groups\":") == NULL)
            subfail("report_path: no not_shown object for the groups past the limit");
        free(j);
    }
    if (stats) {
        char b[2048];
        get_file(stfile, b, sizeof b);
        /* (a fatal report ends the process with no exit's stats line) */
        if (variant != V_SIG_EXIT && (strstr(b, "mallocs=") == NULL || strstr(b, "frees=") == NULL))
            subfail("stats_path has no counters: '%s'", b);
        if (strstr(L, modes[mode]) == NULL)
            subfail("verbosity=1: no start-up line naming %s mode", modes[mode]);
    }
    unlink(log);
    unlink(sfile);
    unlink(jfile);
    unlink(stfile);
    unlink(yfile);
    rmdir(dir);
}
