/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=LARGEBIN_PLACE addr=printed */
/* glibc: malloc(): largebin double linked list corrupted (bk) */
/*
 * Three free chunks of 1136, 1120 and 1088 bytes (one large bin's range,
 * beyond the tcache; live guards keep them apart) are sorted into their
 * large bin, largest first, by a 2000-byte request.  A use-after-free
 * write points the smallest one's bk at the chunk of a live, zeroed
 * block: inside the heap, but its fd does not point back.  A 1104-byte
 * chunk freed next is filed into that bin by the next 2000-byte request:
 * its place is just before the 1088-byte chunk, and the two links it goes
 * between must agree before it is linked in.
 */
#include "case.h"

int main(void)
{
    char *a = malloc(1128);           /* chunk 1136 */
    char *g1 = malloc(24);
    memset(g1, 0, 24);
    char *b = malloc(1112);           /* chunk 1120 */
    char *g2 = malloc(24);
    char *c = malloc(1080);           /* chunk 1088 */
    char *g3 = malloc(24);
    char *v = malloc(1096);           /* chunk 1104 */
    char *g4 = malloc(24);
    free(a);
    free(b);
    free(c);
    char *big1 = malloc(2000);        /* sorts a, b, c into the large bin */
    ((char **)c)[1] = g1 - 16;        /* c's bk: g1's chunk */
    case_print_addr(v);
    free(v);
    char *big2 = malloc(2000);        /* files v into the same bin */
    (void)g1; (void)g2; (void)g3; (void)g4; (void)big1; (void)big2;
    return 0;
}
