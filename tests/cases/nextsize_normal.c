/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_NEXT_SIZE id=NEXT_SIZE_NORMAL */
/* glibc: free(): invalid next size (normal) */
/*
 * A one-word overflow past a 2000-byte block sets the next chunk's size to
 * 0 (PREV_INUSE kept, so the "!prev" check passes).  Freeing the 2000-byte
 * block (no tcache, no fastbin) checks the next size before coalescing.
 */
#include "case.h"

int main(void)
{
    struct case_three t = case_three_live();
    *case_next_size_field(t.a) = 0 | 1;
    free(t.a);
    return 0;
}
