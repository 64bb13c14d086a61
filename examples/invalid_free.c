/*
 * invalid_free.c — freeing memory that malloc never returned.
 *
 * expect: invalid-free SIGABRT
 *
 * The buffer lives on the stack, yet a cleanup path calls free() on it.
 * chunkguard looks the address up in its map of its own heaps and big
 * blocks before reading any chunk header, finds it is not one of ours, and
 * reports it (glibc's nearest check is "free(): invalid pointer", which it
 * can only make after reading what it takes to be a header).
 *
 * Run: LD_PRELOAD=build/libchunkguard.so build/examples/invalid_free
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Returns a greeting either in a caller's buffer or on the heap. */
static char *greeting(const char *name, char *buf, size_t len, int *on_heap)
{
    size_t need = strlen(name) + 8;
    char *out = buf;
    *on_heap = need > len;
    if (*on_heap && !(out = malloc(need)))
        return NULL;
    snprintf(out, need > len ? need : len, "hello, %s", name);
    return out;
}

int main(void)
{
    char buf[64];
    int on_heap;
    char *msg = greeting("bob", buf, sizeof buf, &on_heap);
    if (!msg)
        return 1;
    puts(msg);
    fflush(stdout);

    /* The bug: the cleanup ignores on_heap and always frees. */
    free(msg);

    puts("not reached: chunkguard aborts in free()");
    return 0;
}
