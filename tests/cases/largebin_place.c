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
    struct case_largebin l = case_largebin_three();
    memset(l.a_guard, 0, 24);
    ((char **)l.c)[1] = l.a_guard - 16;   /* c's bk: a's guard's chunk */
    case_print_addr(l.v);
    free(l.v);
    char *big2 = malloc(2000);        /* files v into the same bin */
    (void)big2;
    return 0;
}
