/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=LARGEBIN_BK */
/* glibc: malloc(): largebin double linked list corrupted (bk) */
/*
 * Three free chunks of 1136, 1120 and 1088 bytes (one large bin's range,
 * beyond the tcache; live guards keep them apart) are sorted into their
 * large bin, largest first, by a 2000-byte request.  A use-after-free
 * write replaces the smallest one's bk with a fake, readable list node
 * outside the heap (a zeroed global).  A 1104-byte chunk freed next is
 * filed into that bin by the next 2000-byte request: its place is just
 * before the 1088-byte chunk, whose bk must be checked before the new
 * chunk is linked to it.
 */
#include "case.h"

static size_t fake_node[8];   /* fd/bk of a chunk are words 2 and 3 */

int main(void)
{
    struct case_largebin l = case_largebin_three();
    ((size_t **)l.c)[1] = fake_node;  /* c's bk */
    free(l.v);
    char *big2 = malloc(2000);        /* files v into the same bin */
    (void)big2;
    return 0;
}
