/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_SAFE_LINK id=FASTBIN_LINK */
/* glibc: malloc(): unaligned fastbin chunk detected 3 */
/*
 * With the 32-byte tcache bin full, a and b go to the fastbin (b -> a); a
 * use-after-free write replaces b's protected fd with 0x4141414141414141.
 * After the tcache bin is drained, the next malloc(24) pops b; the garbage
 * becomes the bin head and is checked either when the allocator refills
 * the tcache from the fastbin (glibc does: its message ends in "3", the
 * refill loop) or at the following malloc.
 * (glibc runs go through setarch -R, see safelink_tcache.c.)
 */
#include "case.h"

int main(void)
{
    struct case_fast_pair f = case_fastbin_pair(0);
    ((size_t *)f.b)[0] = (size_t)0x4141414141414141ull;
    case_drain_tcache(24);
    char *x = malloc(24);   /* b */
    char *y = malloc(24);   /* the garbage, unless caught while refilling */
    (void)x;
    (void)y;
    return 0;
}
