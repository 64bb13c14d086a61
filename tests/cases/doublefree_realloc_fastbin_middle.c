/* expect: signal=SIGABRT token=double-free check=CG_CHECK_TCACHE_DOUBLE_FREE id=FASTBIN_DOUBLE_FREE addr=printed */
/* glibc: none */
/*
 * As doublefree_fastbin_middle.c, with realloc: a sits in the fastbin
 * under b (the tcache bin full), and realloc(a, 48) must find it freed
 * by its key and mark before it grows or moves it.
 */
#include "case.h"

int main(void)
{
    struct case_fast_pair f = case_fastbin_pair(1);
    case_print_addr(f.a);
    char *volatile q = realloc(f.a, 48);
    (void)q;
    return 0;
}
