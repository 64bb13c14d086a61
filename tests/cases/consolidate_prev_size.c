/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=CONSOLIDATE_PREV_SIZE addr=printed */
/* glibc: corrupted size vs. prev_size while consolidating */
/*
 * a, a freed 2000-byte chunk, sits in the unsorted bin; a use-after-free
 * write into a's last word changes the prev_size b keeps for it to 256,
 * which leads into the middle of a.  Freeing b coalesces backwards: the
 * chunk prev_size names must really start a chunk of that size before it
 * is unlinked.
 */
#include "case.h"

int main(void)
{
    struct case_three t = case_unsorted_first();
    *(size_t *)(t.b - 16) = 256;      /* b's prev_size, a's last word */
    case_print_addr(t.b);
    free(t.b);
    return 0;
}
