/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=UNSORTED_IN_USE addr=printed */
/* glibc: malloc(): invalid next->prev_inuse (unsorted) */
/*
 * b, a freed 2000-byte chunk, sits in the unsorted bin between two live
 * blocks; a one-word underflow of the guard block sets the PREV_INUSE bit
 * of its own size word back, so b looks in use.  The next request the
 * bins cannot serve sorts the unsorted bin, and must see that a chunk on
 * it is marked in use.
 */
#include "case.h"

int main(void)
{
    struct case_three t = case_unsorted_middle();
    ((size_t *)t.guard)[-1] |= 1;      /* guard's size: PREV_INUSE */
    case_print_addr(t.b);
    char *c = malloc(3000);
    (void)c;
    return 0;
}
