/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=FREE_CHUNK_SIZE addr=printed */
/* glibc: corrupted size vs. prev_size */
/*
 * b, a freed 2000-byte chunk, sits in the unsorted bin between two live
 * blocks; a one-word overflow of a sets b's size to 16 (PREV_INUSE kept,
 * and above the 16 that the next-size check rejects).  Freeing a
 * coalesces forwards: b looks free (the word 16 bytes on, its free-list
 * link, has the in-use bit clear), and unlinking it must first see that
 * no free chunk is 16 bytes.
 */
#include "case.h"

int main(void)
{
    struct case_three t = case_unsorted_middle();
    *case_next_size_field(t.a) = 16 | 1;
    case_print_addr(t.b);
    free(t.a);
    return 0;
}
