/* expect: signal=SIGABRT token=double-free check=CG_CHECK_TCACHE_DOUBLE_FREE id=FASTBIN_DUP */
/* glibc: none */
/*
 * The classic "fastbin dup": with the tcache bin full, free(a), free(b),
 * free(a) puts a twice in the fastbin (a -> b -> a); the fasttop check
 * sees only that a is not the bin's top, and a use-after-free write before
 * the second free wiped the key and mark that would catch it there
 * (case_fastbin_dup).  When the tcache bin is drained, a malloc takes a
 * from the fastbin and refills the tcache from the rest, and the refill
 * meets a again.  glibc hands a out twice.
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
