/* expect: signal=SIGABRT token=double-free check=none id=DEBUG_DOUBLE_FREE addr=printed options=mode=debug */
/* glibc: free(): double free detected in tcache 2 */
/*
 * Debug mode: a block freed twice.  The first free put it in the
 * quarantine; the second finds its shadow record quarantined, not live,
 * and reports it with the stacks of both the free and the allocation.
 * (glibc's tcache check sees the same program; debug mode's report is
 * its own check and quotes no glibc message.)
 */
#include "case.h"

int main(void)
{
    char *volatile p = malloc(24);
    free(p);
    case_print_addr(p);
    free(p);
    return 0;
}
