/* expect: signal=SIGABRT token=invalid-pointer check=CG_CHECK_OWNERSHIP id=IN_HEADER_USABLE addr=printed */
/* glibc: none */
/*
 * malloc_usable_size() of a pointer 8 bytes before a live block: into its
 * chunk header.  chunkguard must see from its chunk-start map that the
 * pointer lies in the header, before the block's start.  (glibc reads the
 * block's prev_size word as a size and returns a number.)
 */
#include "case.h"

int main(void)
{
    char *p = malloc(64);
    char *guard = malloc(64);
    void *volatile q = p - 8;
    case_print_addr(q);
    (void)guard;
    return (int)malloc_usable_size(q);
}
