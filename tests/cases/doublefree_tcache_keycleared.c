/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_SAFE_LINK id=TCACHE_SELF_LINK */
/* glibc: none */
/*
 * A double free that hides from the tcache's key test: after free(a) a
 * use-after-free write clears a's second word (the key), so the second
 * free(a) passes as a first one and a's next pointer now leads to a
 * itself.  glibc takes both frees and hands a out twice; chunkguard
 * rejects the self-link at the first malloc that pops a.
 */
#include "case.h"

int main(void)
{
    char *a = malloc(24);
    char *guard = malloc(24);
    free(a);
    ((size_t *)a)[1] = 0;   /* the use-after-free write */
    free(a);
    case_print_addr(a);
    char *x = malloc(24);
    char *y = malloc(24);   /* glibc: a again */
    (void)x;
    (void)y;
    (void)guard;
    return 0;
}
