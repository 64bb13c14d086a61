/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=BIN_CYCLE */
/* glibc: malloc(): largebin double linked list corrupted (bk) */
/*
 * Three free chunks of 1136, 1120 and 1088 bytes (one large bin's range,
 * beyond the tcache; live guards keep them apart) are sorted into their
 * large bin, largest first, by a 2000-byte request.  A use-after-free
 * write points the middle one's fd back at the largest, so the fd links
 * loop between the two.  A 1104-byte chunk freed next is filed into that
 * bin by the next 2000-byte request: the walk down the bin to its place
 * (every chunk it meets is bigger) must not go round the loop for ever.
 * alarm() ends a run of a build without the check.
 */
#include "case.h"

int main(void)
{
    alarm(5);
    struct case_largebin l = case_largebin_three();
    ((char **)l.b)[0] = l.a - 16;     /* b's fd: a's chunk */
    free(l.v);
    char *big2 = malloc(2000);        /* files v into the same bin */
    (void)big2;
    return 0;
}
