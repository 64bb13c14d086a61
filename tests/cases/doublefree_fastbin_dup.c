/* expect: signal=SIGABRT token=double-free check=CG_CHECK_TCACHE_DOUBLE_FREE id=FASTBIN_DUP */
/* glibc: none */
/*
 * The classic "fastbin dup": with the tcache bin full, free(a), free(b),
 * free(a) puts a twice in the fastbin (a -> b -> a); the fasttop check
 * sees only that a is not the bin's top.  When the tcache bin is drained,
 * a malloc refills it from the fastbin, and the refill meets a, already
 * moved into the tcache once — its key says so.  glibc hands a out twice.
 */
#include "case.h"

int main(void)
{
    char *a = case_fastbin_dup(0);
    case_print_addr(a);
    case_drain_tcache(24);
    char *p[3];
    for (int i = 0; i < 3; i++)
        p[i] = malloc(24);
    (void)p;
    return 0;
}
