/*
 * atfork_early.c — a program whose constructor registers, before
 * chunkguard's initialisation, a pthread_atfork prepare handler that
 * allocates (and parent/child handlers that free it), then forks while a
 * second thread exists.  chunkguard's prepare must run after the
 * program's, as glibc takes its malloc locks after the other handlers
 * ran: otherwise the program's prepare waits on an arena lock its own
 * thread holds (a deadlock report, or a hang).  Prints "ok prepared=1
 * child=0" and exits 0 when the fork went through.
 * Linked with libchunkguard.a, or run with libchunkguard.so preloaded.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *held;
static int prepared;

static void prep(void)
{
    held = malloc(64);
    if (held != NULL)
        memset(held, 1, 64);
    prepared++;
}

static void parent(void) { free(held); }
static void child(void) { free(held); }

/* priority 101: before any constructor without one, chunkguard's too */
__attribute__((constructor(101))) static void early(void)
{
    pthread_atfork(prep, parent, child);
}

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
    printf("ok prepared=%d child=%d\n", prepared, WIFEXITED(st) ? WEXITSTATUS(st) : 128);
    return 0;
}
