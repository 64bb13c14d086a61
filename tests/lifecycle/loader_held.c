/*
 * loader_held.c: a thread stops inside a dl_iterate_phdr callback (the
 * loader's lock held, for ever), then the main thread frees a block twice
 * (bad_free).  A fast-mode report that loads its unwinder (dlopen) waits
 * for that lock: its first lines must be out before it does.
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int inside;

static int hold(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info;
    (void)size;
    (void)data;
    inside = 1;
    for (;;)
        pause();
    return 0;
}

static void *holder(void *arg)
{
    dl_iterate_phdr(hold, NULL);
    return arg;
}

__attribute__((noinline)) static void bad_free(void)
{
    char *volatile p = malloc(64);
    free(p);
    free(p);
}

int main(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, holder, NULL) != 0)
        return 2;
    while (!inside)
        usleep(1000);
    bad_free();
    return 0;
}
