/*
 * buggy.c — one bug per argument, for tests/suites/70-command.sh.
 *   overflow  writes 4 bytes past a 20-byte block ('A'), then frees it
 *   uaf       writes 'X' into a freed 32-byte block (found at exit)
 *   leak      loses blocks of 200, 100 and 300 bytes (and keeps one)
 *   fork      a forked child runs "overflow" through exec (forkonly: exits); the parent waits
 *   dfree, ovf2  a double free, an overflow, found in free() under the same
 *   functions (bad_block); ok: nothing wrong; the others: below.
 * Run with mode=debug (halt_on_error=0 keeps going after a report). */
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *kept;     /* a global: reachable, never a leak */

/* Writes past the end of a 20-byte block. */
static void overflow(void)
{
    char *p = malloc(20);
    memset(p, 'A', 24);
    free(p);
}

/* Writes into a block after freeing it. */
static void use_after_free(void)
{
    char *p = malloc(32);
    free(p);
    p[3] = 'X';
}

/* Each loses a block, from a call site of its own: three leak reports. */
static void lose_100(void) { if (malloc(100) == NULL) exit(1); }
static void lose_200(void) { if (malloc(200) == NULL) exit(1); }
static void lose_300(void) { if (malloc(300) == NULL) exit(1); }

/* Loses three blocks (in the order 200, 100, 300) and keeps one. */
static void leak(void)
{
    lose_200();
    lose_100();
    lose_300();
    kept = malloc(10);
}

/* Frees a 16-byte block twice (how 0), or overflows it before its one
 * free (how 1): both reports are found in free() called from here. */
static void bad_block(int how)
{
    char *p = malloc(16);
    if (how)
        memset(p, 'B', 20);
    free(p);
    if (!how)
        free(p);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "overflow") == 0)
            overflow();
        else if (strcmp(argv[i], "uaf") == 0)
            use_after_free();
        else if (strcmp(argv[i], "leak") == 0)
            leak();
        else if (strcmp(argv[i], "dfree") == 0 || strcmp(argv[i], "ovf2") == 0)
            bad_block(argv[i][0] == 'o');
        else if (strcmp(argv[i], "daemon") == 0 || strcmp(argv[i], "daemonlong") == 0) {
            /* daemon()s: the job's process ends at once, its daemon (in
             * another session, reparented) sleeps 1 s (daemonlong: 30 s,
             * a job's server) and then frees a block twice */
            if (daemon(1, 0) != 0)
                return 1;
            sleep(argv[i][6] ? 30 : 1);
            bad_block(0);
        } else if (strcmp(argv[i], "quick") == 0) {
            /* glibc's quick_exit ends the process by libc's own _exit */
            quick_exit(3);
        } else if (strcmp(argv[i], "spawnbad") == 0) {
            /* the child ends by _exit inside libc, before any exec */
            char *args[] = { "/nonexistent/chunkguard-none", NULL };
            pid_t pid;
            int st;
            if (posix_spawn(&pid, args[0], NULL, NULL, args, NULL) == 0)
                waitpid(pid, &st, 0);
        } else if (strcmp(argv[i], "fork") == 0 || strcmp(argv[i], "forkonly") == 0) {
            pid_t pid = fork();
            if (pid == 0 && argv[i][4] == 'o')
                exit(0);
            if (pid == 0) {
                execl(argv[0], argv[0], "overflow", (char *)NULL);
                _exit(127);
            }
            int st;
            waitpid(pid, &st, 0);
        }
    }
    return 0;
}
