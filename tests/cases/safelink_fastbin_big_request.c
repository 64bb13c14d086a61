/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_SAFE_LINK id=FASTBIN_LINK_CONSOLIDATE */
/* glibc: malloc_consolidate(): unaligned fastbin chunk detected */
/*
 * With the 32-byte tcache bin full, a and b go to the fastbin (b -> a); a
 * use-after-free write replaces b's protected fd with garbage.  A request
 * at the mmap threshold (256 KiB) is served by a mapping of its own, but
 * first, as in glibc's _int_malloc for every large request, the fastbins
 * are consolidated: the bad link is found there, not left for later.
 */
#include "case.h"

int main(void)
{
    struct case_fast_pair f = case_fastbin_pair(1);
    ((size_t *)f.b)[0] = (size_t)0x4141414141414141ull;
    char *big = malloc(256 * 1024);         /* mmap'd, after malloc_consolidate */
    (void)big;
    return 0;
}
