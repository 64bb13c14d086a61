/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=LARGEBIN_NEXTSIZE */
/* glibc: none */
/*
 * Three free chunks of 1136, 1120 and 1088 bytes (one large bin's range,
 * beyond the tcache; live guards keep them apart) are sorted into their
 * large bin, largest first, by a 2000-byte request.  A use-after-free
 * write replaces the largest one's fd with a fake, readable list node
 * outside the heap (a zeroed global).  A 1104-byte chunk freed next is
 * filed into that bin by the next 2000-byte request: the walk down the
 * bin to its place must check each fd before it follows it.  (glibc walks
 * the fd_nextsize links instead, and its checks do not read this fd.)
 */
#include "case.h"

static size_t fake_node[8];   /* fd/bk of a chunk are words 2 and 3 */

int main(void)
{
    char *a = malloc(1128);           /* chunk 1136 */
    char *g1 = malloc(24);
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
    ((size_t **)a)[0] = fake_node;    /* a's fd */
    free(v);
    char *big2 = malloc(2000);        /* files v into the same bin */
    (void)g1; (void)g2; (void)g3; (void)g4; (void)big1; (void)big2;
    return 0;
}
