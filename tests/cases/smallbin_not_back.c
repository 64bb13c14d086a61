/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=SMALLBIN_NOT_BACK addr=printed */
/* glibc: malloc(): smallbin double linked list corrupted */
/*
 * A 144-byte chunk (beyond the fastbins; its tcache bin full) is freed and
 * sorted into its small bin by a 2000-byte request.  A use-after-free
 * write points its bk at the chunk of a live, zeroed block: inside the
 * heap, but that "chunk"'s fd does not point back.  With the tcache bin
 * drained, malloc(136) takes the chunk from the small bin, and must see
 * that the bin's links are broken before it relinks them.
 */
#include "case.h"

int main(void)
{
    struct case_smallbin s = case_smallbin_one();
    memset(s.guard, 0, 136);
    ((char **)s.a)[1] = s.guard - 16; /* bk: guard's chunk */
    case_drain_tcache(136);
    case_print_addr(s.a);
    char *b = malloc(136);            /* from the small bin */
    (void)b;
    return 0;
}
