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
    char *a = malloc(136);
    char *guard = malloc(136);
    case_fill_tcache(136);
    free(a);                          /* unsorted bin */
    char *big = malloc(2000);         /* sorts a into its small bin */
    malloc_trim(0);
    uintptr_t above = ((uintptr_t)a + (1 << 20)) & ~(uintptr_t)15;
    ((uintptr_t *)a)[1] = above;      /* bk */
    case_print_addr((void *)above);
    case_drain_tcache(136);
    char *b = malloc(136);            /* from the small bin */
    (void)guard;
    (void)big;
    (void)b;
    return 0;
}
