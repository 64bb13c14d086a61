/*
 * signals.c — sigaction and the signal() family, exported so that a
 * handler the program installs for SIGSEGV or SIGBUS goes behind
 * chunkguard's instead of replacing it (debug/fault.c keeps the program's
 * disposition and chains to it).  Without this a program with a crash
 * handler of its own — a language runtime, a crash reporter, a fuzzer's
 * deadly-signal handler — would take every guard-page fault, and the bad
 * access it stands for would go unreported.  ASan keeps its handler the
 * same way (its sigaction interceptor; option allow_user_segv_handler).
 *
 * Every other signal, and SIGSEGV and SIGBUS when no handler of ours is
 * installed (handle_segv=0), goes to libc's sigaction unchanged.  The
 * signal() forms are glibc 2.36's, on top of sigaction: signal and
 * bsd_signal with BSD semantics (SA_RESTART, the signal blocked in its
 * handler), sysv_signal and __sysv_signal (what signal() is under strict
 * ISO C) with System V's (SA_RESETHAND | SA_NODEFER).  Weak, so that a
 * runtime linked into the same program with its own sigaction (a
 * sanitizer's interceptor) keeps it.  Nothing is exported by the prefixed
 * build, nor by a build of chunkguard under a sanitizer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "config.h"
#include "fault.h"
#include "platform.h"

#if !defined(CHUNKGUARD_PREFIXED) && !defined(CG_SANITIZER_BUILD)
#define CG_SIGNAL_API __attribute__((visibility("default"), weak))

/* glibc 2.36 still exports them; its headers no longer declare these */
sighandler_t bsd_signal(int sig, sighandler_t h);
sighandler_t sysv_signal(int sig, sighandler_t h);
sighandler_t __sysv_signal(int sig, sighandler_t h);

/* sigaction - POSIX; 0, or -1 with errno EINVAL (libc's checks). */
CG_SIGNAL_API int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (cg_fault_sigaction(sig, act, old))
        return 0;
    return cg_os_program_sigaction(sig, act, old);
}

/* The handler for sig with the given flags; the previous one, or SIG_ERR
 * with errno EINVAL. */
static sighandler_t set_handler(int sig, sighandler_t h, int flags, bool block_sig)
{
    if (h == SIG_ERR || sig < 1 || sig >= NSIG) {
        errno = EINVAL;
        return SIG_ERR;
    }
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    if (block_sig && sigaddset(&sa.sa_mask, sig) < 0)
        return SIG_ERR;
    if (sigaction(sig, &sa, &old) < 0)
        return SIG_ERR;
    return old.sa_handler;
}

/* signal, bsd_signal - BSD semantics, as glibc's signal(). */
CG_SIGNAL_API sighandler_t signal(int sig, sighandler_t h)
{
    return set_handler(sig, h, SA_RESTART, true);
}

/* sysv_signal, __sysv_signal - System V semantics: the handler is reset to
 * SIG_DFL when it runs, and the signal is not blocked in it. */
CG_SIGNAL_API sighandler_t sysv_signal(int sig, sighandler_t h)
{
    return set_handler(sig, h, SA_RESETHAND | SA_NODEFER, false);
}

/* The other names of the two, as glibc has them (aliases: one body each;
 * weak as the targets, which they need not repeat the attributes of). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-attributes"
__typeof__(signal) bsd_signal __attribute__((alias("signal"), visibility("default"), weak));
__typeof__(sysv_signal) __sysv_signal
    __attribute__((alias("sysv_signal"), visibility("default"), weak));
#pragma GCC diagnostic pop
#endif
