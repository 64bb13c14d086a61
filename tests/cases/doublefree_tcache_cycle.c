/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_SAFE_LINK id=TCACHE_COUNT */
/* glibc: none */
/*
 * As doublefree_tcache_keycleared.c, with one block between: free(a),
 * free(b), a's key cleared, free(a) makes the bin a -> b -> a, a loop.
 * The bin's count (3) bounds the pops: the 4th malloc finds the count at 0
 * and a chunk still at the head, and reports.  (glibc hands out a, b, a
 * and then leaves the looping head alone once the count reaches 0.)
 */
#include "case.h"

int main(void)
{
    char *a = malloc(24);
    char *b = malloc(24);
    char *guard = malloc(24);
    free(a);
    free(b);
    ((size_t *)a)[1] = 0;   /* the use-after-free write */
    free(a);
    char *p[4];
    for (int i = 0; i < 4; i++)
        p[i] = malloc(24);
    (void)p;
    (void)guard;
    return 0;
}
