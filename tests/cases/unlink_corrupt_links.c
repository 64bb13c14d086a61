/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=UNLINK_FD */
/* glibc: corrupted double-linked list */
/*
 * A freed 2000-byte chunk sits in the unsorted bin; a use-after-free write
 * replaces its fd and bk with a fake, readable list node whose links do not
 * point back.  Freeing the next block coalesces backwards, which unlinks the
 * corrupted chunk: P->fd->bk != P.  The fake node is a zeroed global, so the
 * check's own loads cannot fault.
 */
#include "case.h"

static size_t fake_node[8];   /* fd/bk of a chunk are words 2 and 3 */

int main(void)
{
    struct case_three t = case_unsorted_first();
    ((size_t **)t.a)[0] = fake_node;   /* fd */
    ((size_t **)t.a)[1] = fake_node;   /* bk */
    free(t.b);
    return 0;
}
