/*
 * atfork_lib.c — a shared library whose constructor, which runs before
 * the constructors of the program it is linked into, registers a
 * pthread_atfork prepare handler that allocates (parent and child
 * handlers free the block), then forks once (the child _exits) and
 * allocates.  Linked into a program that links libchunkguard.a, all of
 * this happens before chunkguard's constructor, and the registration
 * before chunkguard's initialisation: chunkguard's prepare must still run
 * after this one (tests/lifecycle/atfork_lib_main.c forks with a second
 * thread running).  atfork_lib_prepared() says how many times prep ran.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *held;
static int prepared;
void *atfork_lib_block;

/* 5000 bytes: past the tcache, so fast mode takes an arena lock too */
static void prep(void)
{
    held = malloc(5000);
    if (held != NULL)
        memset(held, 1, 5000);
    prepared++;
}

static void parent(void) { free(held); }
static void child(void) { free(held); }

int atfork_lib_prepared(void);
int atfork_lib_prepared(void)
{
    return prepared;
}

__attribute__((constructor)) static void early(void)
{
    pthread_atfork(prep, parent, child);
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    atfork_lib_block = malloc(40);
}
