/*
 * double_free.c — freeing the same block twice.
 *
 * expect: double-free SIGABRT
 *
 * The second free() finds the block already sitting in the thread's cache
 * (tcache) of freed blocks: chunkguard recognises it by the per-process key
 * it writes into every freed entry, the same check as glibc's "free():
 * double free detected in tcache 2".  Left alone, the block would be
 * handed out twice by later mallocs and two owners would overwrite each
 * other's data.
 *
 * Run: LD_PRELOAD=build/libchunkguard.so build/examples/double_free
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A record that two parts of a program both think they own. */
struct session {
    char user[24];
    int id;
};

/* Releases a session; the caller must not use `s` afterwards. */
static void close_session(struct session *s)
{
    free(s);
}

int main(void)
{
    struct session *s = malloc(sizeof *s);
    if (!s)
        return 1;
    strcpy(s->user, "alice");
    s->id = 42;
    printf("session %d of %s opened\n", s->id, s->user);

    close_session(s);
    puts("session closed");
    fflush(stdout); /* the abort below would drop buffered output */

    /* The bug: an error path closes the session again. */
    close_session(s);

    puts("not reached: chunkguard aborts in the second free()");
    return 0;
}
