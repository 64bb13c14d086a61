/* expect: signal=SIGABRT token=double-free check=CG_CHECK_TCACHE_DOUBLE_FREE id=TCACHE_DOUBLE_FREE addr=printed */
/* glibc: free(): double free detected in tcache 2 */
/*
 * The simplest double free: a 24-byte block goes to the tcache on its first
 * free; the second free finds the per-process key in the entry and walks
 * the bin, where it finds the block already cached.
 */
#include "case.h"

int main(void)
{
    char *a = malloc(24);
    free(a);
    case_print_addr(a);
    free(a);
    return 0;
}
