/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=SMALLBIN_SIZE addr=printed */
/* glibc: none */
/*
 * A 144-byte chunk (beyond the fastbins; its tcache bin full) is freed and
 * sorted into its small bin by a 2000-byte request.  A one-word overflow
 * of the live block before it sets its size to 160 (PREV_INUSE kept).
 * With the tcache bin drained, malloc(136) takes the chunk from the
 * 144-byte bin, and must see that its size is not the bin's before it
 * marks the chunk after it in use.  (glibc 2.36 checks only the links
 * here and hands the chunk out.)
 */
#include "case.h"

int main(void)
{
    struct case_smallbin s = case_smallbin_one();
    *case_next_size_field(s.before) = 160 | 1;
    case_drain_tcache(136);
    case_print_addr(s.a);
    char *b = malloc(136);            /* from the small bin */
    (void)b;
    return 0;
}
