/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=FASTBIN_TWICE addr=printed */
/* glibc: malloc_consolidate(): unaligned fastbin chunk detected */
/*
 * The "fastbin dup": with the tcache bin full, free(a), free(b), free(a)
 * puts a twice in the fastbin (a -> b -> a ...); the fasttop check sees
 * only that a is not the bin's top, and a use-after-free write before the
 * second free wiped the key and mark that would catch it there
 * (case_fastbin_dup).  Live blocks around a and b keep them
 * from merging with each other.  A 2000-byte request (a large-bin size)
 * consolidates the fastbins: a is merged into the unsorted bin, then b,
 * then a again — which is free by then, and must not be merged twice.
 * (glibc merges a twice, then follows a's fd, by then an unsorted-bin
 * link, demangled: garbage, which it finds misaligned under setarch -R.)
 */
#include "case.h"

int main(void)
{
    char *a = case_fastbin_dup(1);
    case_print_addr(a);
    char *big = malloc(2000);               /* malloc_consolidate */
    (void)big;
    return 0;
}
