/*
 * bench-launch.c — run one benchmark program and report its own peak RSS.
 *
 * usage: bench-launch PRELOAD|- PROG [ARGS...]
 *   Forks, sets LD_PRELOAD=PRELOAD in the child (unless "-"), execs PROG,
 *   reaps it with wait4 and appends to stdout, after the program's output:
 *     RUSAGE maxrss_kb=N
 *   Exit status: the program's; if it was killed by a signal, this process
 *   kills itself with the same signal; 126 when fork or exec fails.
 *
 * Why not let run.py spawn the program directly: Linux carries the peak RSS
 * of the memory image a process had *before* exec into the rusage of what it
 * execs (exec records the old image's high-water mark in the shared signal
 * struct), and Python's posix_spawn/fork child starts from the interpreter's
 * ~16 MB image.  Every row then showed the interpreter's size, not the
 * benchmark's.  This launcher is a small C process, so the image the
 * program is exec'd from is well below any benchmark's own peak.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s PRELOAD|- PROG [ARGS...]\n", argv[0]);
        return 2;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        perror("bench-launch: fork");
        return 126;
    }
    if (pid == 0) {
        /* If run.py kills us on a timeout, the benchmark must die too. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(126);
        if (strcmp(argv[1], "-") != 0 && setenv("LD_PRELOAD", argv[1], 1) != 0) _exit(126);
        execv(argv[2], argv + 2);
        perror("bench-launch: exec");
        _exit(126);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid) {
        perror("bench-launch: wait4");
        return 126;
    }
    /* The program has exited, so this line comes after all its output. */
    printf("RUSAGE maxrss_kb=%ld\n", ru.ru_maxrss);
    fflush(stdout);
    if (WIFSIGNALED(status)) {
        signal(WTERMSIG(status), SIG_DFL);
        raise(WTERMSIG(status));
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status);
}
