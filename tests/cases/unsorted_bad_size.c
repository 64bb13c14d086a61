/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=UNSORTED_SIZE addr=printed */
/* glibc: malloc(): invalid size (unsorted) */
/*
 * b, a freed 2000-byte chunk, sits in the unsorted bin between two live
 * blocks; a one-word overflow of a sets b's size to 16 (PREV_INUSE kept).
 * The next request the bins cannot serve sorts the unsorted bin, and must
 * reject b's size before it uses it.
 */
#include "case.h"

int main(void)
{
    struct case_three t = case_unsorted_middle();
    *case_next_size_field(t.a) = 16 | 1;
    case_print_addr(t.b);
    char *c = malloc(3000);
    (void)c;
    return 0;
}
