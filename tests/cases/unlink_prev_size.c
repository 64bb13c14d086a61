/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=UNLINK_PREV_SIZE addr=printed */
/* glibc: corrupted size vs. prev_size */
/*
 * b, a freed 2000-byte chunk, sits in the unsorted bin between two live
 * blocks; a use-after-free write into b's last word changes the prev_size
 * the chunk after it (the guard) keeps for b.  Freeing a coalesces
 * forwards, which unlinks b: its size and the prev_size after it must
 * agree.
 */
#include "case.h"

int main(void)
{
    struct case_three t = case_unsorted_middle();
    *(size_t *)(t.guard - 16) = 0x1000;   /* guard's prev_size, b's last word */
    case_print_addr(t.b);
    free(t.a);
    return 0;
}
