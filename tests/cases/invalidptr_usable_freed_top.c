/* expect: signal=SIGABRT token=invalid-pointer check=CG_CHECK_FREE_SIZE id=TOP_START_USABLE */
/* glibc: none */
/*
 * malloc_usable_size of a block that was freed and merged into the top
 * chunk: the pointer now starts the free space, so it is invalid — the
 * kind debug mode reports too, not the double-free a second free() is.
 * (glibc returns the top chunk's size.)
 */
#include "case.h"

int main(void)
{
    char *p = malloc(5000);
    free(p);
    return (int)malloc_usable_size(p);
}
