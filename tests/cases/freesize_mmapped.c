/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_FREE_SIZE id=BIG_HEADER */
/* glibc: munmap_chunk(): invalid pointer */
/*
 * A 256 KiB block is above the mmap threshold, so it is a big block with
 * its own mapping.  An underflow adds 16 to its size word (IS_MMAPPED
 * kept): the header no longer matches the mapping, and unmapping by it
 * would free a wrong range.  (glibc notices only because the size is no
 * longer a whole number of pages.)
 */
#include "case.h"

int main(void)
{
    char *big = malloc(256 * 1024);
    ((size_t *)big)[-1] += 16;
    free(big);
    return 0;
}
