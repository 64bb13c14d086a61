/*
 * sigchain.c — the program's own SIGSEGV/SIGBUS handlers beside
 * chunkguard's (tests/suites/58-guard.sh, "the program's handlers").
 *
 *   sigchain CASE
 *
 * A handler the program installs after chunkguard started (sigaction or
 * signal) must not hide a bad access to a block: chunkguard still reports
 * it.  Faults that are not chunkguard's reach the program's handler as the
 * kernel gave them, the program sees its own handler when it asks, and a
 * SIGSEGV sent with raise() ends the process (or is ignored) exactly as it
 * would without chunkguard: SIG_IGN given with SA_SIGINFO is ignored, and
 * an SA_RESETHAND handler leaves what the kernel leaves for SIGUSR1.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))
NOINLINE static char *alloc_here(size_t n) { return malloc(n); }
NOINLINE static void free_here(void *p) { free(p); }
NOINLINE static int read_here(volatile char *p, long off) { return p[off]; }

static void say(const char *s) { (void)!write(1, s, strlen(s)); }

static void on_segv_info(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)uc;
    _exit(si->si_addr == (void *)0x10 ? 42 : 43);
}

static void on_segv_plain(int sig)
{
    _exit(sig == SIGSEGV ? 44 : 45);
}

/* a crash reporter's usual shape: say something, restore the default
 * action, send the signal again */
static void on_segv_reraise(int sig)
{
    say("program handler ran\n");
    signal(sig, SIG_DFL);
    raise(sig);
}

static volatile int resets;
static void on_segv_count(int sig)
{
    (void)sig;
    resets++;
}

static void install_info(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv_info;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, NULL) != 0)
        _exit(3);
}

/* sigaction(sig) with handler h (or SIG_IGN, SIG_DFL), flags and sa_mask
 * holding only mask_sig (0: none) */
static void install(int sig, void (*h)(int), int flags, int mask_sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    if (mask_sig != 0)
        sigaddset(&sa.sa_mask, mask_sig);
    if (sigaction(sig, &sa, NULL) != 0)
        _exit(3);
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    free(alloc_here(8));                 /* chunkguard is in charge from here */
    if (!strcmp(c, "sigaction-then-uaf") || !strcmp(c, "signal-then-uaf")) {
        if (!strncmp(c, "sigaction", 9))
            install_info();
        else if (signal(SIGSEGV, on_segv_plain) == SIG_ERR)
            return 3;
        char *p = alloc_here(40);
        free_here(p);
        return read_here(p, 0);          /* chunkguard's report, not the handler */
    }
    if (!strcmp(c, "sigaction-null")) {
        install_info();
        return read_here((char *)0x10, 0);            /* the handler's: 42 */
    }
    if (!strcmp(c, "signal-null")) {
        signal(SIGSEGV, on_segv_plain);
        return read_here((char *)0x10, 0);            /* the handler's: 44 */
    }
    if (!strcmp(c, "reraise-null")) {
        signal(SIGSEGV, on_segv_reraise);
        return read_here((char *)0x10, 0);            /* SIGSEGV, after its line */
    }
    if (!strcmp(c, "query")) {
        /* the program sees what it set, never chunkguard's handler */
        struct sigaction o;
        if (sigaction(SIGSEGV, NULL, &o) != 0 || (o.sa_flags & SA_SIGINFO) || o.sa_handler != SIG_DFL)
            return say("first query is not SIG_DFL\n"), 1;
        install_info();
        if (sigaction(SIGSEGV, NULL, &o) != 0 || !(o.sa_flags & SA_SIGINFO) ||
            o.sa_sigaction != on_segv_info)
            return say("query after sigaction is not the program's handler\n"), 1;
        if (signal(SIGSEGV, on_segv_plain) != (void (*)(int))on_segv_info)
            return say("signal() did not return the previous handler\n"), 1;
        if (signal(SIGSEGV, SIG_DFL) != on_segv_plain)
            return say("signal() did not return the previous handler\n"), 1;
        if (signal(SIGBUS, SIG_IGN) != SIG_DFL || signal(SIGBUS, SIG_DFL) != SIG_IGN)
            return say("SIGBUS: signal() did not return the previous handler\n"), 1;
        if (sigaction(-1, NULL, &o) != -1 || signal(1000, SIG_DFL) != SIG_ERR)
            return say("a bad signal number is not an error\n"), 1;
        say("ok\n");
        return 0;
    }
    if (!strcmp(c, "raise"))
        raise(SIGSEGV);                                /* the default: 139 */
    if (!strcmp(c, "raise-bus"))
        raise(SIGBUS);                                 /* the default: 135 */
    if (!strcmp(c, "raise-ignored")) {
        signal(SIGSEGV, SIG_IGN);
        raise(SIGSEGV);                                /* ignored */
    }
    if (!strcmp(c, "resethand")) {
        install(SIGSEGV, on_segv_count, SA_RESETHAND, 0);
        raise(SIGSEGV);                                /* the handler, once */
        if (resets != 1)
            return 5;
        say("handler ran once\n");
        raise(SIGSEGV);                                /* then the default: 139 */
    }
    if (!strcmp(c, "siginfo-ignored")) {
        /* SA_SIGINFO with SIG_IGN is still SIG_IGN (the kernel reads the
         * handler's value): nothing is called */
        install(SIGSEGV, SIG_IGN, SA_SIGINFO, 0);
        raise(SIGSEGV);                                /* ignored */
    }
    if (!strcmp(c, "resethand-as-kernel")) {
        /* after an SA_RESETHAND handler ran, the program sees what the
         * kernel leaves for any other signal: SIG_DFL, flags and mask kept */
        struct sigaction seg, usr;
        install(SIGSEGV, on_segv_count, SA_RESETHAND | SA_NODEFER, SIGUSR2);
        install(SIGUSR1, on_segv_count, SA_RESETHAND | SA_NODEFER, SIGUSR2);
        raise(SIGSEGV);
        raise(SIGUSR1);
        sigaction(SIGSEGV, NULL, &seg);
        sigaction(SIGUSR1, NULL, &usr);
        int fl = SA_RESETHAND | SA_NODEFER | SA_SIGINFO | SA_RESTART;
        if (resets != 2 || seg.sa_handler != SIG_DFL || usr.sa_handler != SIG_DFL ||
            (seg.sa_flags & fl) != (usr.sa_flags & fl) ||
            sigismember(&seg.sa_mask, SIGUSR2) != sigismember(&usr.sa_mask, SIGUSR2))
            return say("SIGSEGV after its reset differs from SIGUSR1\n"), 6;
    }
    say("survived\n");
    return 0;
}
