/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_FREE_SIZE id=BAD_NEXT addr=printed */
/* glibc: none */
/*
 * An underflow of a overwrites a's own size word with 2 * 2016: the size
 * now swallows b, a live block, and ends exactly where the guard block's
 * chunk starts, so the next chunk looks right.  Freeing a must see that a
 * chunk (b) starts inside the span the size claims; otherwise b's memory
 * would be handed out again while b is in use.  (glibc frees the enlarged
 * chunk.)
 */
#include "case.h"

int main(void)
{
    struct case_three t = case_three_live();
    ((size_t *)t.a)[-1] = (2 * 2016) | 1;
    case_print_addr(t.a);
    free(t.a);
    return 0;
}
