/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_SAFE_LINK id=FASTBIN_LINK addr=printed */
/* glibc: none */
/*
 * With the 32-byte tcache bin full, a and b go to the fastbin (b -> a); a
 * use-after-free write, by a program that derived the secret from a's
 * NULL link, points b's fd 1 MiB past b, above the top chunk (which
 * malloc_trim cut back first): into the inaccessible part of the heap
 * region.  With the
 * tcache bin drained, malloc(24) pops b and, refilling the tcache, meets
 * the link: it must be refused as no chunk of ours before the chunk
 * header it names is read (which would fault).  (glibc follows it if it
 * is aligned: no glibc run.)
 */
#include "case.h"

int main(void)
{
    malloc_trim(0);                  /* before the frees: it consolidates fastbins */
    struct case_fast_pair f = case_fastbin_pair(0);
    uintptr_t secret = ((uintptr_t *)f.a)[0] ^ ((uintptr_t)f.a >> 12);
    uintptr_t above = ((uintptr_t)f.b + (1 << 20)) & ~(uintptr_t)15;   /* a chunk address */
    ((uintptr_t *)f.b)[0] = ((uintptr_t)f.b >> 12) ^ above ^ secret;
    case_print_addr((void *)above);
    case_drain_tcache(CASE_FAST);
    char *x = malloc(CASE_FAST);   /* b, then the refill meets the link */
    char *y = malloc(CASE_FAST);
    (void)x;
    (void)y;
    return 0;
}
