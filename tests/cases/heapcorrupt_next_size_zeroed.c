/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_NOT_INUSE id=NOT_IN_USE_NEXT_SIZE addr=printed */
/* glibc: double free or corruption (!prev) */
/*
 * A one-word overflow past a live 2000-byte block zeroes the next chunk's
 * size and flags, PREV_INUSE with them.  The block was never freed: a
 * next-chunk size of 0 is one no chunk can have, so free reports heap
 * corruption of that field, not a double free.  (glibc says "double free
 * or corruption (!prev)", leaving the reader to guess which.)
 */
#include "case.h"

int main(void)
{
    struct case_three t = case_three_live();
    case_print_addr(t.a);
    *case_next_size_field(t.a) = 0;
    free(t.a);
    return 0;
}
