/*
 * fork_child_stack.c: a program linked with libchunkguard.a starts a
 * thread, forks, and the child frees a block twice from child_bad_free.
 * The child records call sites only (another thread may have held the
 * loader's lock at fork), so each stack of its report must be the
 * program's call site, never chunkguard's own frames: in the archive no
 * code range tells chunkguard's functions from the program's.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void *idle(void *arg)
{
    sleep(2);
    return arg;
}

__attribute__((noinline)) static void child_bad_free(void)
{
    char *volatile p = malloc(10);
    free(p);
    free(p);
}

int main(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, idle, NULL) != 0)
        return 2;
    pid_t c = fork();
    if (c < 0)
        return 2;
    if (c == 0) {
        child_bad_free();
        _exit(0);
    }
    int st;
    if (waitpid(c, &st, 0) != c)
        return 2;
    return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}
