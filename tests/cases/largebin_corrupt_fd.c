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
    struct case_largebin l = case_largebin_three();
    ((size_t **)l.a)[0] = fake_node;  /* a's fd */
    free(l.v);
    char *big2 = malloc(2000);        /* files v into the same bin */
    (void)big2;
    return 0;
}
