/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_SAFE_LINK id=FASTBIN_LINK_CONSOLIDATE */
/* glibc: malloc_consolidate(): unaligned fastbin chunk detected */
/*
 * With the 32-byte tcache bin full, a and b go to the fastbin (b -> a); a
 * use-after-free write replaces b's protected fd with 0x4141414141414141.
 * A 2000-byte request (a large-bin size) consolidates the fastbins: b is
 * merged, and the link it held must be checked before it is followed.
 * (glibc runs go through setarch -R, see safelink_tcache.c.)
 */
#include "case.h"

int main(void)
{
    struct case_fast_pair f = case_fastbin_pair(1);
    ((size_t *)f.b)[0] = (size_t)0x4141414141414141ull;
    char *big = malloc(2000);               /* malloc_consolidate */
    (void)big;
    return 0;
}
