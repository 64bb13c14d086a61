/*
 * atfork_lib_main.c — links libchunkguard.a and atfork_lib.so, whose
 * constructor registered a prepare handler that allocates before
 * chunkguard was initialised.  Forks while a second thread exists: the
 * library's prepare must run before chunkguard's, which takes the arena
 * locks (run after, it waited on a lock its own thread held: a deadlock
 * report, or a hang).  Prints "ok prepared=N child=0" (N: the library's
 * prepare ran for its own fork and this one) and exits 0 when the fork
 * went through.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int atfork_lib_prepared(void);
extern void *atfork_lib_block;

static void *idle(void *arg)
{
    (void)arg;
    pause();
    return NULL;
}

int main(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, idle, NULL) != 0)
        return 2;
    pid_t pid = fork();
    if (pid == 0)
        _exit(malloc(32) != NULL ? 0 : 3);
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return 4;
    free(atfork_lib_block);
    printf("ok prepared=%d child=%d\n", atfork_lib_prepared(), WIFEXITED(st) ? WEXITSTATUS(st) : 128);
    return 0;
}
