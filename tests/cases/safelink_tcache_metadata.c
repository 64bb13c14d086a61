/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_SAFE_LINK id=TCACHE_LINK */
/* glibc: none */
/*
 * A tcache link rewritten to point into the heap's guard page (its
 * metadata, before the first chunk), by a program that derived the
 * per-process secret from a freed block whose link is NULL.  The guard
 * page is inaccessible: the pop that meets the link must refuse it before
 * anything at it is read (the inline pop leaves it to the checked one,
 * which reports), not fault.  (There is no guard page under glibc.)
 */
#include "case.h"

int main(void)
{
    char *a = malloc(40);
    char *b = malloc(40);
    char *guard = malloc(40);
    free(a);                                   /* a's link is NULL */
    uintptr_t secret = ((uintptr_t *)a)[0] ^ ((uintptr_t)a >> 12);
    free(b);                                   /* bin: b -> a */
    uintptr_t base = (uintptr_t)b & ~(uintptr_t)(64 * 1024 * 1024 - 1);
    uintptr_t g = base + 4096 + 512 * 1024 + 4 * 1024 * 1024 + 16;   /* guard page */
    ((uintptr_t *)b)[0] = ((uintptr_t)b >> 12) ^ g ^ secret;
    char *x = malloc(40);   /* b; the guard-page address becomes the head */
    char *y = malloc(40);   /* must be rejected */
    (void)x;
    (void)y;
    (void)guard;
    return 0;
}
