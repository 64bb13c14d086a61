/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=UNSORTED_NEXT_PREV_SIZE addr=printed */
/* glibc: malloc(): mismatching next->prev_size (unsorted) */
/*
 * b, a freed 2000-byte chunk, sits in the unsorted bin between two live
 * blocks; a use-after-free write into b's last word changes the prev_size
 * the guard keeps for b.  The next request the bins cannot serve sorts the
 * unsorted bin, and must see that b's size and that prev_size disagree.
 */
#include "case.h"

int main(void)
{
    struct case_three t = case_unsorted_middle();
    *(size_t *)(t.guard - 16) = 0x1000;   /* guard's prev_size, b's last word */
    case_print_addr(t.b);
    char *c = malloc(3000);
    (void)c;
    return 0;
}
