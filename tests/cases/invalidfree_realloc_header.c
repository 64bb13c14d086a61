/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_OWNERSHIP id=IN_HEADER_REALLOC addr=printed */
/* glibc: realloc(): invalid pointer */
/*
 * realloc() of a pointer 8 bytes before a live block: into its chunk
 * header.  glibc reads the block's prev_size word as a size (0) and
 * rejects it; chunkguard must see from its chunk-start map that the
 * pointer lies in the header, before the block's start.
 */
#include "case.h"

int main(void)
{
    char *p = malloc(64);
    char *guard = malloc(64);
    void *volatile q = p - 8;
    case_print_addr(q);
    void *r = realloc(q, 200);
    (void)r;
    (void)guard;
    return 0;
}
