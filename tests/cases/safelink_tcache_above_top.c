/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_SAFE_LINK id=TCACHE_LINK addr=printed */
/* glibc: none */
/*
 * A tcache link rewritten (by a program that derived the per-process
 * secret from a freed block whose link is NULL) to point 1 MiB past the
 * block, above the heap's top chunk, after malloc_trim: into the part of
 * the heap region that is inaccessible until the top grows into it.  The
 * pop that meets the link must refuse it before anything at it is read,
 * and name the block whose link it was: the inline pop leaves it to the
 * checked one, which reports.  (Had the link been taken, the next pop
 * would read the protected page.  glibc checks only alignment and would
 * follow it wherever it leads: no glibc run.)
 */
#include "case.h"

int main(void)
{
    char *a = malloc(40);
    char *b = malloc(40);
    char *guard = malloc(40);
    uintptr_t above = (uintptr_t)case_past_top(b, 1 << 20);
    free(a);                                   /* a's link is NULL */
    uintptr_t secret = ((uintptr_t *)a)[0] ^ ((uintptr_t)a >> 12);
    free(b);                                   /* bin: b -> a */
    ((uintptr_t *)b)[0] = ((uintptr_t)b >> 12) ^ above ^ secret;
    case_print_addr(b);
    char *x = malloc(40);   /* must refuse the link before b is handed out */
    char *y = malloc(40);
    (void)x;
    (void)y;
    (void)guard;
    return 0;
}
