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
    char *a = malloc(24);
    char *x = malloc(24);   /* keeps a and b apart */
    char *b = malloc(24);
    char *guard = malloc(24);
    case_fill_tcache(24);
    free(a);
    free(b);
    ((size_t *)b)[0] = (size_t)0x4141414141414141ull;
    char *big = malloc(2000);               /* malloc_consolidate */
    (void)x;
    (void)big;
    (void)guard;
    return 0;
}
