/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_SAFE_LINK id=FASTBIN_SELF_LINK addr=printed */
/* glibc: none */
/*
 * With the 32-byte tcache bin full, a alone goes to the fastbin: its
 * protected fd then holds the mask that hides a null link (what a
 * use-after-free read can learn).  A use-after-free write stores a's own
 * address under that mask, so the link demangles to a itself.  Once the
 * tcache bin is drained, malloc(24) pops a, and must not make a the bin's
 * head again.  (glibc's mask has no secret; it follows the link and hands
 * a out again and again.)
 */
#include "case.h"

int main(void)
{
    char *a = malloc(24);
    char *guard = malloc(24);
    case_fill_tcache(24);
    free(a);                                /* into the empty fastbin */
    size_t mask = ((size_t *)a)[0];         /* protect(&a->fd, NULL) */
    ((size_t *)a)[0] = mask ^ (size_t)(a - 16);
    case_drain_tcache(24);
    case_print_addr(a);
    char *b = malloc(24);                   /* pops a from the fastbin */
    (void)guard;
    (void)b;
    return 0;
}
