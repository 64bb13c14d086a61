/*
 * spawn.c — run one command and say exactly how it ended.
 *
 * usage: spawn OUT ERR PROG [ARG...]
 *   Runs PROG with stdout to file OUT and stderr to file ERR (both
 *   truncated), core dumps disabled, and prints one line on stdout:
 *     pid=<pid> signal=<SIGNAME>   if it was killed by a signal
 *     pid=<pid> exit=<status>      if it exited
 *   The shell's $? cannot tell "killed by SIGABRT" from "exit(134)", and
 *   the report's first line must carry the child's pid, hence this helper.
 * Exit status: 0 when the child was run and reaped, 125 on a usage or
 * system error, 127 when PROG could not be executed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *signame(int sig)
{
    /* The names the case headers use; anything else is printed as SIG<n>. */
    static const struct { int sig; const char *name; } names[] = {
        { SIGABRT, "SIGABRT" }, { SIGSEGV, "SIGSEGV" }, { SIGBUS, "SIGBUS" },
        { SIGILL, "SIGILL" }, { SIGTRAP, "SIGTRAP" }, { SIGFPE, "SIGFPE" },
        { SIGKILL, "SIGKILL" },
    };
    static char buf[16];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig)
            return names[i].name;
    snprintf(buf, sizeof buf, "SIG%d", sig);
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: spawn OUT ERR PROG [ARG...]\n");
        return 125;
    }
    int out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int err = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0 || err < 0) {
        perror("spawn: open");
        return 125;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("spawn: fork");
        return 125;
    }
    if (pid == 0) {
        /* A core file per aborting case would fill the disk for nothing. */
        struct rlimit none = { 0, 0 };
        setrlimit(RLIMIT_CORE, &none);
        if (dup2(out, 1) < 0 || dup2(err, 2) < 0)
            _exit(125);
        execvp(argv[3], argv + 3);
        dprintf(2, "spawn: cannot run %s: %s\n", argv[3], strerror(errno));
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            perror("spawn: waitpid");
            return 125;
        }
    }
    if (WIFSIGNALED(status))
        printf("pid=%d signal=%s\n", (int)pid, signame(WTERMSIG(status)));
    else
        printf("pid=%d exit=%d\n", (int)pid, WEXITSTATUS(status));
    return 0;
}
