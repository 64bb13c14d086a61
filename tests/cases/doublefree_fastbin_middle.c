/* expect: signal=SIGABRT token=double-free check=CG_CHECK_TCACHE_DOUBLE_FREE id=FASTBIN_DOUBLE_FREE addr=printed */
/* glibc: none */
/*
 * With the 32-byte tcache bin full, free(a) and free(b) put both in the
 * fastbin (b -> a); a is no longer the bin's top, so the fasttop check
 * cannot see a second free(a).  A freed fastbin chunk carries the tcache
 * key and its fastbin mark, so the second free is caught at once, in
 * O(1), before a is in the bin twice.  glibc takes it and later hands a
 * out twice (the "fastbin dup").
 */
#include "case.h"

int main(void)
{
    struct case_fast_pair f = case_fastbin_pair(0);
    case_print_addr(f.a);
    free(f.a);
    return 0;
}
