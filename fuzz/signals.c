/*
 * signals.c — FZ_OP_TUNE's signal op (tune.c: case 10 with v's top bit):
 * the sigaction family chunkguard exports (src/entry/signals.c), called in
 * an order the input picks, each answer checked against a model of what
 * the program installed and against the kernel's own answer.
 *
 * The contract (POSIX sigaction; glibc 2.36's signal forms; chunkguard's
 * promise for SIGSEGV and SIGBUS, docs/options.md handle_segv):
 *   - sigaction's old action, and the signal forms' return value, are the
 *     handler (flags, mask) the program installed last, whatever the
 *     signal; signal and bsd_signal install with SA_RESTART and the signal
 *     blocked in its handler, sysv_signal and __sysv_signal with
 *     SA_RESETHAND | SA_NODEFER;
 *   - a signal number out of range, SIG_ERR as the handler, or SIGKILL's
 *     action give SIG_ERR / -1 with errno EINVAL, and change nothing;
 *   - for every signal but SIGSEGV and SIGBUS the kernel holds what the
 *     program installed; for those two, while chunkguard's handler is in,
 *     the kernel keeps chunkguard's handler (the one seen when the op
 *     began) and the program's goes behind it;
 *   - raise() runs the program's handler once, with the signal blocked
 *     unless SA_NODEFER and the handler's sa_mask blocked, with its
 *     siginfo (SA_SIGINFO: si_signo, si_code SI_TKILL); SA_RESETHAND puts
 *     SIG_DFL back as it runs, the flags and mask staying (as Linux
 *     does for every signal); SIG_IGN ignores it; SIG_DFL takes the
 *     default action (in a forked child: death by the signal, or nothing
 *     for SIGURG and SIGWINCH).
 * Every disposition the op changed is put back at its end.  Only signals
 * that no harness or engine relies on while the op runs are used
 * (SIGCHLD would break the forked children's reaping; SIGPIPE is tune.c's).
 */
#define _GNU_SOURCE
#include "fuzz.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* glibc 2.36 exports them (and chunkguard too); its headers no longer
 * declare these two */
sighandler_t bsd_signal(int sig, sighandler_t h);
sighandler_t sysv_signal(int sig, sighandler_t h);
sighandler_t __sysv_signal(int sig, sighandler_t h);

static const int sigs[] = { SIGSEGV, SIGBUS, SIGUSR1, SIGUSR2, SIGURG, SIGWINCH };
#define NSIGS (sizeof sigs / sizeof sigs[0])

/* What the program installed for each signal (the flags kept are those
 * the contract is about). */
#define FLAGS ((int)(SA_SIGINFO | SA_RESETHAND | SA_NODEFER | SA_RESTART))
typedef struct disp {
    void *h;                    /* sa_handler or sa_sigaction */
    int flags;                  /* & FLAGS                     */
    sigset_t mask;
    bool known;                 /* false: what the op found (the engine's,
                                 * the harness's); never raised */
} disp_t;

/* What the handlers saw (a handler may run in a forked child too). */
static volatile sig_atomic_t ran, ran_sig, ran_blocked, ran_masked, ran_code;
static volatile int mask_probe;  /* a signal the handler must find blocked */

static void note_run(int sig)
{
    sigset_t now;
    sigprocmask(SIG_BLOCK, NULL, &now);
    ran++;
    ran_sig = sig;
    ran_blocked = sigismember(&now, sig);
    ran_masked = mask_probe == 0 || sigismember(&now, mask_probe);
}

static void plain_handler(int sig)
{
    note_run(sig);
}

static void info_handler(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    note_run(sig);
    ran_code = si->si_signo == sig ? si->si_code : -1000;
}

/* The kernel's own disposition of sig (not through libc's or our
 * sigaction). */
static void *kernel_handler(int sig)
{
    struct { void *h; unsigned long flags; void *restorer; unsigned long mask; } k;
    if (syscall(SYS_rt_sigaction, sig, NULL, &k, 8) != 0)
        fz_fail("rt_sigaction(%d) query: %s", sig, strerror(errno));
    return k.h;
}

static bool ours(int sig) { return sig == SIGSEGV || sig == SIGBUS; }

static void expect_old(int sig, const disp_t *d, const struct sigaction *old, const char *how)
{
    if ((void *)old->sa_handler != d->h)
        fz_fail("%s(%d): the old handler is %p, the program installed %p", how, sig,
                (void *)old->sa_handler, d->h);
    if (d->known && (old->sa_flags & FLAGS) != d->flags)
        fz_fail("%s(%d): the old flags are %#x, the program installed %#x", how, sig,
                old->sa_flags & FLAGS, d->flags);
    if (d->known)
        for (int s = 1; s < 32; s++)
            if (s != SIGKILL && s != SIGSTOP &&
                sigismember(&old->sa_mask, s) != sigismember(&d->mask, s))
                fz_fail("%s(%d): the old mask differs from the installed one at signal %d", how,
                        sig, s);
}

/* The kernel's answer agrees with the model (k0: its handler for sig
 * when the op began). */
static void expect_kernel(int sig, const disp_t *d, void *k0)
{
    void *k = kernel_handler(sig);
    if (ours(sig) && k0 != (void *)SIG_DFL && k0 != (void *)SIG_IGN) {
        if (k != k0)
            fz_fail("signal %d: the kernel's handler went from %p (chunkguard's) to %p", sig, k0,
                    k);
    } else if (k != d->h) {
        fz_fail("signal %d: the kernel's handler is %p, the program installed %p", sig, k, d->h);
    }
}

/* raise(sig) with d installed, checked; d becomes what must be there
 * after. */
static void raise_checked(int sig, disp_t *d)
{
    if (!d->known)
        return;
    if (d->h == (void *)SIG_DFL) {
        int fd;
        pid_t pid = fz_fork_child(&fd);
        if (pid == 0) {
            fz_coverage_dump();
            raise(sig);
            (void)!write(fd, "survived", 8);
            _exit(0);
        }
        char msg[64];
        int st = fz_child_end(pid, fd, msg, sizeof msg);
        bool ignored = sig == SIGURG || sig == SIGWINCH;
        if (ignored ? !(WIFEXITED(st) && WEXITSTATUS(st) == 0)
                    : !(WIFSIGNALED(st) && WTERMSIG(st) == sig))
            fz_fail("raise(%d) at SIG_DFL: the child %s %d (wanted %s)", sig,
                    WIFSIGNALED(st) ? "died of signal" : "exited",
                    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
                    ignored ? "to go on" : "death by that signal");
        return;
    }
    ran = 0;
    ran_code = 0;
    mask_probe = 0;
    for (int s = 1; s < 32 && d->h != (void *)SIG_IGN; s++)
        if (sigismember(&d->mask, s) && s != sig && s != SIGKILL && s != SIGSTOP) {
            mask_probe = s;
            break;
        }
    raise(sig);
    if (d->h == (void *)SIG_IGN) {
        if (ran != 0)
            fz_fail("raise(%d) ran a handler while the program ignores it", sig);
        return;
    }
    if (ran != 1 || ran_sig != sig)
        fz_fail("raise(%d): the program's handler ran %d time(s) (signal %d)", sig, (int)ran,
                (int)ran_sig);
    if (ran_blocked != !(d->flags & SA_NODEFER))
        fz_fail("raise(%d): the signal was %sblocked in its handler (flags %#x)", sig,
                ran_blocked ? "" : "not ", d->flags);
    if (!ran_masked)
        fz_fail("raise(%d): signal %d of the handler's sa_mask was not blocked in it", sig,
                mask_probe);
    if ((d->flags & SA_SIGINFO) && ran_code != SI_TKILL)
        fz_fail("raise(%d): the handler's siginfo has si_code %d (wanted SI_TKILL)", sig,
                (int)ran_code);
    if (d->flags & SA_RESETHAND)
        d->h = (void *)SIG_DFL;   /* as the kernel: its flags and mask stay */
}

void fz_op_signals(fz_in_t *in)
{
    struct sigaction saved[NSIGS];
    disp_t d[NSIGS];
    void *k0[NSIGS];
    for (size_t j = 0; j < NSIGS; j++) {
        if (sigaction(sigs[j], NULL, &saved[j]) != 0)
            fz_fail("sigaction(%d, NULL, &old) failed", sigs[j]);
        d[j] = (disp_t){ .h = (void *)saved[j].sa_handler, .known = false };
        k0[j] = kernel_handler(sigs[j]);
    }
    unsigned steps = 1 + fz_u8(in) % 8;
    for (unsigned k = 0; k < steps; k++) {
        unsigned sel = fz_u8(in), hsel = fz_u8(in), extra = fz_u8(in);
#ifdef FZ_LIBFUZZER
        /* not SIGSEGV and SIGBUS: under libFuzzer a program disposition of
         * theirs reached the kernel (65-fuzz's smoke run; not understood
         * yet), and the engine's own handlers sit behind chunkguard's */
        size_t j = 2 + sel % (NSIGS - 2);
#else
        size_t j = sel % NSIGS;
#endif
        int sig = sigs[j];
        unsigned form = sel / NSIGS % 7;
        void *h = hsel % 4 == 0 ? (void *)SIG_DFL : hsel % 4 == 1 ? (void *)SIG_IGN
                  : hsel % 4 == 2 ? (void *)plain_handler : (void *)info_handler;
        sighandler_t prev;
        errno = 0;
        switch (form) {
        case 0: {               /* sigaction with flags and a mask from the input */
            struct sigaction sa, old;
            memset(&sa, 0, sizeof sa);
            int fl = (extra & 1 ? SA_RESETHAND : 0) | (extra & 2 ? SA_NODEFER : 0) |
                     (extra & 4 ? SA_RESTART : 0);
            if (h == (void *)info_handler || (extra & 32 && h != (void *)plain_handler)) {
                /* SA_SIGINFO with SIG_DFL or SIG_IGN is still that
                 * disposition: the kernel looks at the handler's value */
                fl |= SA_SIGINFO;
                sa.sa_sigaction = (void (*)(int, siginfo_t *, void *))h;
            } else {
                sa.sa_handler = (sighandler_t)h;
            }
            sa.sa_flags = fl;
            sigemptyset(&sa.sa_mask);
            if (extra & 8)
                sigaddset(&sa.sa_mask, SIGUSR2 == sig ? SIGUSR1 : SIGUSR2);
            if (extra & 16)
                sigaddset(&sa.sa_mask, SIGKILL);    /* the kernel leaves it out */
            if (sigaction(sig, &sa, &old) != 0)
                fz_fail("sigaction(%d) failed: %s", sig, strerror(errno));
            expect_old(sig, &d[j], &old, "sigaction");
            d[j] = (disp_t){ .h = h, .flags = fl, .mask = sa.sa_mask, .known = true };
            sigdelset(&d[j].mask, SIGKILL);
            break;
        }
        case 1: case 2: case 3: case 4: {   /* signal, bsd_signal, sysv_signal, __sysv_signal */
            if (h == (void *)info_handler)
                h = (void *)plain_handler;
            static const char *const names[] = { "signal", "bsd_signal", "sysv_signal",
                                                  "__sysv_signal" };
            sighandler_t (*const fn[])(int, sighandler_t) = { signal, bsd_signal, sysv_signal,
                                                              __sysv_signal };
            prev = fn[form - 1](sig, (sighandler_t)h);
            if (prev == SIG_ERR)
                fz_fail("%s(%d) failed: %s", names[form - 1], sig, strerror(errno));
            if ((void *)prev != d[j].h)
                fz_fail("%s(%d) returned %p, the program installed %p", names[form - 1], sig,
                        (void *)prev, d[j].h);
            bool bsd = form <= 2;
            d[j] = (disp_t){ .h = h, .flags = bsd ? SA_RESTART : SA_RESETHAND | SA_NODEFER,
                             .known = true };
            sigemptyset(&d[j].mask);
            if (bsd)
                sigaddset(&d[j].mask, sig);
            break;
        }
        case 5: {               /* calls that must fail, changing nothing */
            static const int bad_sigs[] = { 0, -1, NSIG, 65, SIGKILL };
            int bs = bad_sigs[extra % 5];
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = plain_handler;
            if (extra & 8) {
                prev = (extra & 16 ? sysv_signal : signal)(extra & 32 ? sig : bs,
                                                             extra & 32 ? SIG_ERR : plain_handler);
                if (prev != SIG_ERR || errno != EINVAL)
                    fz_fail("signal(%d, %s) gave %p, errno %d (wanted SIG_ERR, EINVAL)",
                            extra & 32 ? sig : bs, extra & 32 ? "SIG_ERR" : "a handler",
                            (void *)prev, errno);
            } else if (sigaction(bs, &sa, NULL) != -1 || errno != EINVAL) {
                fz_fail("sigaction(%d, a handler) did not fail with EINVAL (errno %d)", bs,
                        errno);
            }
            break;
        }
        default: {              /* a query, then raise */
            struct sigaction old;
            if (sigaction(sig, NULL, &old) != 0)
                fz_fail("sigaction(%d, NULL, &old) failed", sig);
            expect_old(sig, &d[j], &old, "sigaction query");
            raise_checked(sig, &d[j]);
            break;
        }
        }
        expect_kernel(sig, &d[j], k0[j]);
        if (extra & 64)
            raise_checked(sig, &d[j]);
    }
    for (size_t j = 0; j < NSIGS; j++) {
        struct sigaction old;
        if (sigaction(sigs[j], &saved[j], &old) != 0)
            fz_fail("sigaction(%d) could not restore", sigs[j]);
        expect_old(sigs[j], &d[j], &old, "sigaction at the end");
    }
}
