/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=SMALLBIN_LINK addr=printed */
/* glibc: none */
/*
 * A 144-byte chunk (beyond the fastbins; its tcache bin full) is freed and
 * sorted into its small bin by a 2000-byte request.  A use-after-free
 * write replaces its bk with an address 1 MiB past it, above the top
 * chunk (after malloc_trim): inside the heap region, but in its
 * inaccessible part.  With the tcache bin drained, malloc(136) takes the
 * chunk from the small bin and must refuse that bk before reading the
 * chunk it names (which would fault).  (glibc would read it: no glibc
 * run.)
 */
#include "case.h"

int main(void)
{
    struct case_smallbin s = case_smallbin_one();
    uintptr_t above = (uintptr_t)case_past_top(s.a, 1 << 20);
    ((uintptr_t *)s.a)[1] = above;    /* bk */
    case_print_addr((void *)above);
    case_drain_tcache(136);
    char *b = malloc(136);            /* from the small bin */
    (void)b;
    return 0;
}
