/* expect: signal=SIGABRT token=double-free check=none id=DEBUG_DOUBLE_FREE addr=printed options=mode=debug,quarantine_mb=1,stack_depth=4 */
/* glibc: free(): double free detected in tcache 2 */
/*
 * Debug mode chosen with ',' between the options, as ASan takes them
 * (docs/options.md): a block freed twice while a small quarantine (1 MiB)
 * is busy with other freed blocks.  The first free is still held, so the
 * second finds its shadow record quarantined and reports debug mode's
 * double free.  With ':' as the only separator the mode's value read
 * "debug,quarantine_mb=1,..." and was refused: fast mode's tcache check
 * reported instead, another check (TCACHE_DOUBLE_FREE) and no thread.
 */
#include "case.h"

int main(void)
{
    char *volatile p = malloc(48);
    free(p);
    for (int i = 0; i < 64; i++)      /* 64 KiB more through the quarantine */
        free(malloc(1024));
    case_print_addr(p);
    free(p);
    return 0;
}
