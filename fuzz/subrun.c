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
 * fz_sub_bad_site; then exit(0), and detect_leaks' check at exit.
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
 * has one memory-leak object per group; the stats file its counters.  In
 * fast mode nothing is reported and the log warns that detect_leaks and
 * halt_on_error act in debug mode only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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

static __attribute__((noinline)) void sub_scrub(void)
{
    volatile unsigned char pad[32768];
    for (size_t i = 0; i < sizeof pad; i++)
        pad[i] = 0;
}

/* FZ_SUBRUN: "nleak nthreads flags size..." */
__attribute__((constructor)) static void fz_sub_main(void)
{
    const char *s = getenv("FZ_SUBRUN");
    if (s == NULL)
        return;
    unsigned nleak, nthr, flags, sizes[SUB_LEAKS] = { 0 };
    int used = 0;
    if (sscanf(s, "%u %u %u%n", &nleak, &nthr, &flags, &used) != 3 || nleak > SUB_LEAKS ||
        nthr > SUB_THREADS)
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
    if (flags & SUB_DOUBLE_FREE)
        fz_sub_bad_site();
    sub_scrub();
    if (flags & SUB_CHECK) {
        printf("checked %zu\n", cg_leak_check());
        wait_asleep(nthr);
    }
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

static char sub_log[1 << 17];
static const char *sub_opts, *sub_script;

static _Noreturn __attribute__((format(printf, 1, 2))) void subfail(const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    fprintf(stderr, "fuzz: the sub-run's log:\n%s\n", sub_log);
    fz_fail("sub-run (CHUNKGUARD_OPTIONS=%s, FZ_SUBRUN=%s): %s", sub_opts, sub_script,
            why);
}

void fz_op_subrun(fz_in_t *in)
{
    unsigned o = fz_u8(in) % 192;
    unsigned mode = o % 3, sym = o / 3 % 4, supp = o / 12 % 4;
    bool json = o / 48 % 2, stats = o / 96 % 2;
    unsigned nleak = 2 + fz_u8(in) % (SUB_LEAKS - 1), nthr = fz_u8(in) % (SUB_THREADS + 1);
    unsigned flags = fz_u8(in) & 7;
    if (nthr == 0)
        flags &= ~SUB_MASKED;
    if (mode == 2)
        flags &= ~SUB_DOUBLE_FREE;          /* fast mode: a fatal report */
    unsigned sizes[SUB_LEAKS];
    size_t hid_min = SIZE_MAX, hid_sum = 0;
    char script[128];
    int sn = snprintf(script, sizeof script, "%u %u %u", nleak, nthr, flags);
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
    char log[64], sfile[64], jfile[64], stfile[64], tool[512], opts[1024];
    snprintf(log, sizeof log, "%s/log", dir);
    snprintf(sfile, sizeof sfile, "%s/supp", dir);
    snprintf(jfile, sizeof jfile, "%s/json", dir);
    snprintf(stfile, sizeof stfile, "%s/stats", dir);
    static const char *const modes[] = { "debug", "guard", "fast" };
    int on = snprintf(opts, sizeof opts,
                      "mode=%s:detect_leaks=1:halt_on_error=0:stack_depth=8:log_path=%s:"
                      "verify_interval=0:quarantine_mb=4:guard_quarantine_mb=4:deadlock_timeout_ms=10000",
                      modes[mode], log);
    bool sym_real = false;
    /* every harness's own default is symbolize=0 */
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
    get_file(log, sub_log, sizeof sub_log);
    const char *L = sub_log;
    sub_opts = opts;
    sub_script = script;
    bool instr = mode != 2;
    bool leaks_suppressed = supp == 1;
    bool reported = instr && !leaks_suppressed;
    if (!WIFEXITED(st))
        subfail("it died of signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : -1);
    if (WEXITSTATUS(st) != (reported ? 23 : 0))
        subfail("exit status %d, wanted %d", WEXITSTATUS(st), reported ? 23 : 0);
    /* a thread whose stack could not be found is named in a note, and
     * the blocks only it holds are then reported, as leaks.c says */
    if (strstr(L, "fz_sub_held_site") != NULL && strstr(L, "its stack was not scanned") == NULL)
        subfail("a block only another thread's stack points to was reported");
    if (!instr) {
        if (strstr(L, "detected memory leaks") != NULL || strstr(L, "ERROR") != NULL)
            subfail("fast mode reported something");
        if (strstr(L, "act in debug mode only") == NULL)
            subfail("fast mode did not warn that detect_leaks needs debug mode");
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
        if (lb < hid_min || lb > hid_sum || lk < 1 || lk > nleak)
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
        if ((flags & SUB_CHECK) && count_of(L, "detected memory leaks") != 2)
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
    if (flags & SUB_DOUBLE_FREE) {
        bool df = strstr(L, "ERROR: chunkguard: double-free") != NULL;
        if (supp == 3 ? df : !df)
            subfail("the double free was %sreported", df ? "" : "not ");
        if (df && strstr(L, "fz_sub_bad_site") == NULL)
            subfail("the double-free report does not name fz_sub_bad_site");
    } else if (strstr(L, "ERROR: chunkguard: double-free") != NULL) {
        subfail("a double free that never happened");
    }
    if (json) {
        static char j[1 << 16];
        get_file(jfile, j, sizeof j);
        size_t jl = count_of(j, "\"kind\":\"memory-leak\"");
        if (jl != groups)
            subfail("report_path has %zu memory-leak object(s), the log %zu group(s)", jl, groups);
        if (count_of(j, "\n") < jl)
            subfail("report_path's objects are not one a line");
    }
    if (stats) {
        char b[2048];
        get_file(stfile, b, sizeof b);
        if (strstr(b, "mallocs=") == NULL || strstr(b, "frees=") == NULL)
            subfail("stats_path has no counters: '%s'", b);
        if (strstr(L, modes[mode]) == NULL)
            subfail("verbosity=1: no start-up line naming %s mode", modes[mode]);
    }
    unlink(log);
    unlink(sfile);
    unlink(jfile);
    unlink(stfile);
    rmdir(dir);
}
