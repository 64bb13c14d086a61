/*
 * early_main.c — links libchunkguard.a and early_lib.so.  The block
 * early_lib's constructor allocated must be chunkguard's: freeing a
 * foreign block would be reported as invalid-free and abort.
 */
#include <stdio.h>
#include <stdlib.h>

#include "chunkguard.h"

extern void *early_block;

int main(void)
{
    cg_stats_t st;
    cg_get_stats(&st);
    printf("%s; mallocs before main=%llu\n", (char *)early_block, st.mallocs);
    free(early_block);
    return st.mallocs > 0 ? 0 : 1;
}
