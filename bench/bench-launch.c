/*
 * bench-launch.c — run one benchmark program and report its peak RSS.
 *
 * usage: bench-launch [-s MS] PRELOAD|- PROG [ARGS...]
 *   Forks, sets LD_PRELOAD=PRELOAD in the child (unless "-"), execs PROG,
 *   reaps it with wait4 and appends to stdout, after the program's output:
 *     RUSAGE maxrss_kb=N exact_peak_kb=E samples=K
 *   maxrss_kb is the kernel's peak RSS from wait4.  With -s MS, the
 *   launcher also reads the program's exact RSS (the "Rss:" line of
 *   /proc/PID/smaps_rollup) every MS milliseconds (1-1000) from the moment
 *   exec succeeded until the program exits, and exact_peak_kb is the
 *   largest value seen in K samples; without -s both are 0.
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
 *
 * Why sample at all: since Linux 6.2 the RSS counters behind ru_maxrss and
 * VmHWM are per-CPU counters read without summing the per-CPU parts, so
 * each can be off by up to 32 pages per CPU per kind of page (file, anon,
 * shmem).  On a 2 MB process that is noise of the order of ±10 %, and it
 * depends on where ASLR puts the libraries (runs of one binary under
 * `setarch -R` repeat the same error exactly).  The kernel's documentation
 * of /proc/PID/status says so and points to smaps, which walks the page
 * tables and is exact.  Sampling cannot see a spike shorter than MS, so
 * exact_peak_kb is the peak of the working set, not of every instant.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

int main(int argc, char **argv)
{
    long sample_ms = 0;
    if (argc >= 3 && strcmp(argv[1], "-s") == 0) {
        sample_ms = strtol(argv[2], NULL, 10);
        argv += 2;
        argc -= 2;
        if (sample_ms < 1 || sample_ms > 1000) argc = 0;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: bench-launch [-s MS] PRELOAD|- PROG [ARGS...]\n");
        return 2;
    }
    /* exec closes the child's end of this pipe: a read of 0 bytes tells the
     * parent the new image is in place, so no sample sees this launcher. */
    int exec_pipe[2];
    if (pipe2(exec_pipe, O_CLOEXEC) != 0) {
        perror("bench-launch: pipe2");
        return 126;
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
    close(exec_pipe[1]);
    char byte;
    while (read(exec_pipe[0], &byte, 1) < 0 && errno == EINTR) {}
    close(exec_pipe[0]);

    char path[64];
    snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int)pid);
    long peak = 0, samples = 0;
    int status;
    struct rusage ru;
    for (;;) {
        pid_t got = wait4(pid, &status, sample_ms ? WNOHANG : 0, &ru);
        if (got == pid) break;
        if (got < 0 && errno != EINTR) {
            perror("bench-launch: wait4");
            return 126;
        }
        if (got == 0) {
            long kb = bench_proc_kb(path, "\nRss:");
            if (kb > peak) peak = kb;
            if (kb >= 0) samples++;
            struct timespec ts = { sample_ms / 1000, (sample_ms % 1000) * 1000000L };
            nanosleep(&ts, NULL);
        }
    }
    /* The program has exited, so this line comes after all its output. */
    printf("RUSAGE maxrss_kb=%ld exact_peak_kb=%ld samples=%ld\n", ru.ru_maxrss, peak, samples);
    fflush(stdout);
    if (WIFSIGNALED(status)) {
        signal(WTERMSIG(status), SIG_DFL);
        raise(WTERMSIG(status));
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status);
}
