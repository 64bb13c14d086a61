/*
 * static_stack.c — debug mode in a program that links libchunkguard.a
 * (options built in with cg_default_options): report stacks must start at
 * the program's frame, as under LD_PRELOAD.  Break test, 2026-11-30: they
 * started inside chunkguard (check_block, capture), because no code range
 * tells chunkguard's functions from the program's in one executable.
 */
#include <stdlib.h>

#include "chunkguard.h"

const char *cg_default_options(void)
{
    return "mode=debug:stack_depth=16";
}

__attribute__((noinline)) static void *alloc_here(void) { return malloc(40); }
__attribute__((noinline)) static void free_here(void *p) { free(p); }

int main(void)
{
    void *p = alloc_here();
    free_here(p);
    free_here(p);               /* bug: double free */
    return 0;
}
