/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_NOT_INUSE id=NOT_IN_USE_FLAG addr=printed */
/* glibc: double free or corruption (!prev) */
/*
 * An overflow past a live 2000-byte block rewrites the next chunk's size
 * word with its own size but PREV_INUSE clear (a low byte off by one).
 * The size is one a chunk can have, but the block is in no free list: its
 * first words are the program's data, not links a bin points back through.
 * So it is heap corruption of the next chunk's header, not a double free.
 */
#include "case.h"

int main(void)
{
    struct case_three t = case_three_live();
    memset(t.a, 0x11, 16);      /* what the program keeps there */
    case_print_addr(t.a);
    *case_next_size_field(t.a) &= ~(size_t)1;
    free(t.a);
    return 0;
}
