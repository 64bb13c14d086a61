/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_NOT_INUSE id=NOT_IN_USE_NEXT_SIZE addr=printed */
/* glibc: none */
/*
 * As heapcorrupt_next_size_zeroed.c, for a 40-byte block, a tcache size:
 * free's inline path sees PREV_INUSE clear and hands the block to the
 * checked path, which must call it heap corruption too.  (glibc puts the
 * block in its tcache without looking at the next chunk.)
 */
#include "case.h"

int main(void)
{
    char *a = malloc(40);
    char *guard = malloc(40);
    (void)guard;
    case_print_addr(a);
    *case_next_size_field(a) = 0;
    free(a);
    return 0;
}
