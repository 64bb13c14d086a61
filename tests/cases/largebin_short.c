/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=LARGEBIN_SHORT addr=printed */
/* glibc: corrupted double-linked list */
/*
 * Two free chunks of 1120 and 1088 bytes (one large bin's range, beyond
 * the tcache; live guards keep them apart) are sorted into their large
 * bin, largest first, by a 2000-byte request.  A use-after-free write
 * copies the smaller one's fd (the bin itself: it is the last chunk) over
 * its bk, so the bk links skip the 1120-byte chunk.  A 1096-byte request
 * (chunk 1104) is served from that bin, which its first chunk says is
 * big enough: the search climbs from the smallest chunk along the bk
 * links, and must stop when it is back at the bin without having met it.
 */
#include "case.h"

int main(void)
{
    struct case_largebin l = case_largebin_two();
    ((size_t *)l.c)[1] = ((size_t *)l.c)[0];   /* c's bk = c's fd, the bin */
    case_print_addr(l.b);
    char *x = malloc(1096);           /* from the large bin */
    (void)x;
    return 0;
}
