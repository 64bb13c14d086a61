/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_FREE_SIZE id=BAD_NEXT addr=printed */
/* glibc: double free or corruption (!prev) */
/*
 * An underflow of b overwrites the size word of a, the live 2000-byte
 * block before it, with 2016 + 1024: a plausible size (a multiple of 16,
 * inside the heap) that leads into the middle of b.  Freeing a must see
 * that no chunk starts where a's size says the next one does, before it
 * reads a "header" from b's data.  (glibc reads b's zeroed data as the
 * next chunk's header, whose in-use bit for a is clear: "(!prev)".)
 */
#include "case.h"

int main(void)
{
    struct case_three t = case_three_live();
    memset(t.b, 0, 2000);
    ((size_t *)t.a)[-1] = (2016 + 1024) | 1;
    case_print_addr(t.a);
    free(t.a);
    return 0;
}
