/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=LARGEBIN_TAKE */
/* glibc: corrupted double-linked list */
/*
 * Two free chunks of 1120 and 1088 bytes (one large bin's range, beyond
 * the tcache; live guards keep them apart) are sorted into their large
 * bin, largest first, by a 2000-byte request.  A use-after-free write
 * replaces the smaller one's bk with a fake, readable list node outside
 * the heap (a zeroed global).  A 1096-byte request (chunk 1104) is served
 * from that bin: the search climbs from the smallest chunk along the bk
 * links, and must check each before it follows it.
 */
#include "case.h"

static size_t fake_node[8];   /* fd/bk of a chunk are words 2 and 3 */

int main(void)
{
    struct case_largebin l = case_largebin_two();
    ((size_t **)l.c)[1] = fake_node;  /* c's bk */
    char *x = malloc(1096);           /* from the large bin */
    (void)x;
    return 0;
}
