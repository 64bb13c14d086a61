/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_SAFE_LINK id=TCACHE_LINK */
/* glibc: malloc(): unaligned tcache chunk detected */
/*
 * Two 24-byte blocks are freed into the tcache (bin: b -> a); a
 * use-after-free write replaces b's protected next pointer with
 * 0x4141414141414141.  The first malloc returns b and makes the garbage
 * the new head; the second must reject it before following it.
 * (glibc checks only alignment: with address randomisation the demangled
 * value is aligned for 1 page in 16, so glibc runs of this case go through
 * setarch -R.)
 */
#include "case.h"

int main(void)
{
    char *a = malloc(24);
    char *b = malloc(24);
    char *guard = malloc(24);
    free(a);
    free(b);
    ((size_t *)b)[0] = (size_t)0x4141414141414141ull;
    char *x = malloc(24);   /* b */
    char *y = malloc(24);   /* the garbage */
    (void)x;
    (void)y;
    (void)guard;
    return 0;
}
