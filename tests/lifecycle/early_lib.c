/*
 * early_lib.c — a shared library whose constructor allocates.  It runs
 * before the constructors of the executable it is linked into, so when
 * that executable links libchunkguard.a, this malloc happens before
 * chunkguard's constructor.
 */
#include <stdlib.h>
#include <string.h>

void *early_block;

__attribute__((constructor)) static void early(void)
{
    early_block = malloc(48);
    strcpy(early_block, "allocated before main");
}
