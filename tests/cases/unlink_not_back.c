/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=UNLINK_NOT_BACK addr=printed */
/* glibc: corrupted double-linked list */
/*
 * A freed 2000-byte chunk sits in the unsorted bin; a use-after-free write
 * points its fd at the chunk of a live, zeroed block: inside the heap, but
 * that "chunk"'s bk does not point back.  Freeing the next block
 * coalesces backwards, which unlinks the corrupted chunk: P->fd->bk != P.
 */
#include "case.h"

int main(void)
{
    struct case_three t = case_unsorted_first();
    memset(t.guard, 0, 2000);
    ((char **)t.a)[0] = t.guard - 16;    /* fd: guard's chunk */
    case_print_addr(t.a);
    free(t.b);
    return 0;
}
