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
    char *a = malloc(2000);
    char *b = malloc(2000);
    char *guard = malloc(2000);
    memset(guard, 0, 2000);
    free(a);
    ((char **)a)[0] = guard - 16;    /* fd: guard's chunk */
    case_print_addr(a);
    free(b);
    return 0;
}
