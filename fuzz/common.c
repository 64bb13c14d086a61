/*
 * common.c — the heap check at the end of every input, and keeping the
 * single-threaded binaries single-threaded (see fuzz.h).
 */
#define _GNU_SOURCE
#include "fuzz.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chunkguard.h"

/* The heap verifier (include/chunkguard.h): 0 = consistent, else the
 * number of problems, each reported. */
void fz_verify_heap(const char *when)
{
    size_t n = cg_verify_heap();
    if (n != 0)
        fz_fail("cg_verify_heap() found %zu problem(s) %s", n, when);
}

void fz_assert_single_threaded(void)
{
    if (!__libc_single_threaded)
        fz_fail("a single-threaded harness has had a thread (run libFuzzer with "
                "-rss_limit_mb=0, and no -jobs/-fork)");
}

void fz_no_libfuzzer_threads(int *argc, char ***argv)
{
    static const char flag[] = "-rss_limit_mb=0";
    char **old = *argv;
    for (int i = 1; i < *argc; i++)
        if (strncmp(old[i], "-rss_limit_mb=", 14) == 0) {
            old[i] = (char *)flag;
            return;
        }
    char **v = malloc(sizeof *v * (size_t)(*argc + 2));
    if (v == NULL)
        return;
    /* flags must come before the corpus directories: put it first */
    v[0] = old[0];
    v[1] = (char *)flag;
    memcpy(v + 2, old + 1, sizeof *v * (size_t)*argc);   /* with the NULL */
    *argv = v;
    (*argc)++;
}

#ifdef FZ_COVERAGE
void __gcov_dump(void);

/* __gcov_dump, at most once at a time: gcov's own fopen/fclose call malloc
 * and free, which in a child whose heap the input damaged may end in a
 * fatal report, i.e. abort() inside the dump.  The SIGABRT handler below
 * then must not dump again: __gcov_dump takes a non-recursive lock (gcov's
 * __gcov_mx) that the interrupted dump holds, and the child hung until its
 * alarm (the corrupt harness's "child died of signal 14", seen in the
 * coverage build only, where there are dumps at all). */
static void gcov_dump_once(void)
{
    static volatile sig_atomic_t dumping;
    if (dumping)
        return;
    dumping = 1;
    __gcov_dump();
    dumping = 0;
}

/* A child that ends by abort() (chunkguard's, after a fatal report) writes
 * the coverage counters first — the report's code counts too — and still
 * dies by SIGABRT. */
static void dump_on_abort(int sig)
{
    gcov_dump_once();
    signal(sig, SIG_DFL);
    raise(sig);
}
#endif

void fz_coverage_at_abort(void)
{
#ifdef FZ_COVERAGE
    signal(SIGABRT, dump_on_abort);
#endif
}

void fz_coverage_dump(void)
{
#ifdef FZ_COVERAGE
    gcov_dump_once();
#endif
}

#ifdef FZ_COVERAGE
/* The --coverage build links with --wrap=cg_os_exit (fuzz.mk): every end
 * through chunkguard's own exit — its _exit and _Exit, after the checks
 * they make in debug and guard mode, and its reports' exits — writes the
 * counters first, the checks included. */
_Noreturn void __real_cg_os_exit(int status);
_Noreturn void __wrap_cg_os_exit(int status);
_Noreturn void __wrap_cg_os_exit(int status)
{
    gcov_dump_once();
    __real_cg_os_exit(status);
}
#endif

void fz_child_exit(int code)
{
    _exit(code);        /* chunkguard's (the harness links libchunkguard.a) */
}

/* The kernel copies one byte from a into a pipe, or says EFAULT. */
bool fz_accessible(const void *a)
{
    int fds[2];
    if (pipe(fds) != 0)
        fz_fail("pipe: %s", strerror(errno));
    bool ok = write(fds[1], a, 1) == 1;
    close(fds[0]);
    close(fds[1]);
    return ok;
}

pid_t fz_fork_child(int *fd)
{
    int fds[2];
    if (pipe(fds) != 0)
        fz_fail("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        fz_fail("fork: %s", strerror(errno));
    if (pid == 0) {
        close(fds[0]);
        *fd = fds[1];
        /* the engine's crash handlers are the parent's business: here an
         * abort after a report is the outcome, and a hang (SIGALRM) kills
         * the child */
        static const int sigs[] = { SIGABRT, SIGALRM, SIGFPE, SIGILL, SIGINT, SIGTERM };
        for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++)
            signal(sigs[k], SIG_DFL);
        alarm(20);
        fz_coverage_at_abort();          /* the report's code counts too */
        return 0;
    }
    close(fds[1]);
    *fd = fds[0];
    return pid;
}

int fz_child_report(pid_t pid, int fd, char *msg, size_t cap, char kind[32], void **addr)
{
    int st = fz_child_end(pid, fd, msg, cap);
    kind[0] = '\0';
    *addr = NULL;
    sscanf(msg, "report %31s %p", kind, addr);
    return st;
}

int fz_child_end(pid_t pid, int fd, char *msg, size_t cap)
{
    size_t n = 0;
    for (;;) {
        /* a read a signal interrupts (libFuzzer's -timeout is a periodic
         * SIGALRM) is retried */
        ssize_t k = read(fd, msg + n, cap - 1 - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0 || (n += (size_t)k) == cap - 1)
            break;
    }
    msg[n] = 0;
    close(fd);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return st;
}

void fz_no_libfuzzer_segv(int *argc, char ***argv)
{
    static const char *const extra[] = { "-handle_segv=0", "-handle_bus=0" };
    char **v = malloc(sizeof *v * (size_t)(*argc + 3));
    if (v == NULL)
        return;
    v[0] = (*argv)[0];
    v[1] = (char *)extra[0];
    v[2] = (char *)extra[1];
    memcpy(v + 3, *argv + 1, sizeof *v * (size_t)*argc);   /* with the NULL */
    *argv = v;
    *argc += 2;
}
