/*
 * daemon.c — daemon(3), exported.  glibc's daemon ends its parent by
 * libc's own _exit (a hidden alias, not the exported name), past
 * chunkguard's (entry/interpose.c): the parent then left no exit line in
 * its stats file, and `chunkguard run` took it for a process killed by a
 * signal, while its exit-time block checks had not run either.  This one
 * does what glibc's does, and its parent ends through cg_exit_now, as a
 * call of _exit would.
 */
#include "init.h"
#include "platform.h"

#define CG_PUBLIC __attribute__((visibility("default")))

int daemon(int nochdir, int noclose);

#ifndef CHUNKGUARD_PREFIXED
/* daemon - detach from the terminal and run in the background: fork (the
 * atfork handlers run), the parent ends with status 0 (the checks and the
 * stats line of _exit first), the child makes a session of its own, goes
 * to "/" unless nochdir, and puts stdin, stdout and stderr on /dev/null
 * unless noclose.  Returns 0 in the child; -1 with errno (the fork's, the
 * setsid's, /dev/null's open or ENODEV) when it failed, in the one
 * process there is then.  As glibc's: thread-safe as fork is. */
CG_PUBLIC int daemon(int nochdir, int noclose)
{
    cg_fork_handlers_need();
    pid_t pid = cg_os_fork();
    if (pid < 0)
        return -1;
    if (pid > 0)
        cg_exit_now(0);
    return cg_os_detach(nochdir, noclose);
}
#endif
