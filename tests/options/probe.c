/*
 * probe.c — small programs for tests/suites/47-options.sh.
 *   probe alloc-byte N    print the byte at offset 10 of a new N-byte block
 *   probe free-byte N     free an N-byte block whose neighbour stays live,
 *                         print the byte at offset 40 of it afterwards
 *                         (a deliberate read after free, to see fill_free)
 *   probe double-free     free the same block twice (a report ends us)
 *   probe fork-counts N M make N malloc/free pairs, fork; the child makes M
 *                         more and exits (its destructors run: stats_path
 *                         is written), the parent waits for it and exits
 *   probe fork-ends       fork three children that malloc and free a
 *                         little and end by exit(0), _exit(0) and SIGKILL;
 *                         wait for them, exit 0 when they ended so
 *   probe fork-wild       fork a child that mallocs and frees a little and
 *                         then stores through a wild pointer (SIGSEGV, which
 *                         fast mode does not report); exit 0 when it ended so
 *   probe ok              allocate and free a little, print "ok"
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* n malloc/free pairs of assorted sizes */
static void churn(size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(malloc(i * 7 % 1000 + 1));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    size_t n = argc > 2 ? strtoul(argv[2], NULL, 0) : 64;
    if (strcmp(mode, "alloc-byte") == 0) {
        volatile unsigned char *p = malloc(n);
        printf("%d\n", p[10]);
        return 0;
    }
    if (strcmp(mode, "free-byte") == 0) {
        unsigned char *p = malloc(n), *keep = malloc(n);
        memset(p, 0x11, n);
        free(p);
        volatile unsigned char *vp = p;
        printf("%d\n", vp[40]);
        free(keep);
        return 0;
    }
    if (strcmp(mode, "double-free") == 0) {
        void *p = malloc(40);
        free(p);
        free(p);
        puts("survived");
        return 0;
    }
    if (strcmp(mode, "fork-counts") == 0) {
        churn(n);
        pid_t pid = fork();
        if (pid == 0) {
            churn(argc > 3 ? strtoul(argv[3], NULL, 0) : 10);
            exit(0);
        }
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) != pid || st != 0)
            return 1;
        return 0;
    }
    if (strcmp(mode, "fork-ends") == 0) {
        for (int k = 0; k < 3; k++) {
            pid_t pid = fork();
            if (pid == 0) {
                churn(20);
                if (k == 0)
                    exit(0);
                if (k == 1)
                    _exit(0);
                kill(getpid(), SIGKILL);
            }
            int st = 0;
            if (pid < 0 || waitpid(pid, &st, 0) != pid)
                return 1;
            if (k < 2 ? !(WIFEXITED(st) && WEXITSTATUS(st) == 0)
                      : !(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL))
                return 1;
        }
        return 0;
    }
    if (strcmp(mode, "fork-wild") == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            churn(20);
            *(volatile char *)(uintptr_t)16 = 1;
            _exit(3);
        }
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) != pid)
            return 1;
        return WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV ? 0 : 1;
    }
    churn(1000);
    puts("ok");
    return 0;
}
