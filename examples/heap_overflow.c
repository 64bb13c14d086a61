/*
 * heap_overflow.c — writing past the end of a heap block.
 *
 * expect (debug mode): heap-buffer-overflow SIGABRT
 *
 * A name is copied into a buffer sized without room for its terminating
 * NUL.  Debug mode keeps a redzone of 0xfa bytes after every block and
 * checks it at free: the byte that landed there is reported, with where
 * the block was allocated.  Fast mode, like glibc, does not see it.
 *
 * Run: CHUNKGUARD_OPTIONS=mode=debug LD_PRELOAD=build/libchunkguard.so \
 *      build/examples/heap_overflow
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A copy of name in a new block; the caller frees it.  The bug: strlen
 * does not count the NUL that strcpy writes. */
static char *copy_name(const char *name)
{
    char *p = malloc(strlen(name));
    if (p != NULL)
        strcpy(p, name);
    return p;
}

int main(void)
{
    char *n = copy_name("chunkguard-demo");
    if (n == NULL)
        return 1;
    printf("hello, %s\n", n);
    free(n);
    return 0;
}
