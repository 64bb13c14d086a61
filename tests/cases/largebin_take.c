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
    char *b = malloc(1112);           /* chunk 1120 */
    char *g1 = malloc(24);
    char *c = malloc(1080);           /* chunk 1088 */
    char *g2 = malloc(24);
    free(b);
    free(c);
    char *big = malloc(2000);         /* sorts b, c into the large bin */
    ((size_t **)c)[1] = fake_node;    /* c's bk */
    char *x = malloc(1096);           /* from the large bin */
    (void)g1; (void)g2; (void)big; (void)x;
    return 0;
}
