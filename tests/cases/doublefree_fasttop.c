/* expect: signal=SIGABRT token=double-free check=CG_CHECK_FASTTOP id=FASTTOP addr=printed */
/* glibc: double free or corruption (fasttop) */
/*
 * With the 32-byte tcache bin full, a free of a 24-byte block goes to the
 * fastbin.  Freeing it again at once finds it at the top of that bin.  The
 * tcache double-free check does not fire: a chunk put in a fastbin carries
 * no tcache key.
 */
#include "case.h"

int main(void)
{
    char *a = malloc(24);
    char *guard = malloc(24);   /* keeps a apart from the top chunk */
    case_fill_tcache(24);
    free(a);
    case_print_addr(a);
    free(a);
    (void)guard;
    return 0;
}
