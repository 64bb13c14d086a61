/* expect: signal=SIGABRT token=double-free check=none id=DEBUG_BIG_FREED addr=printed options=mode=debug:quarantine_mb=0:guard_big=0 */
/* glibc: SIGSEGV */
/*
 * Debug mode with no quarantine, and big blocks not on guarded pages
 * (guard_big=0): a big (mmap'd) block freed twice, with
 * a hundred other big blocks allocated and freed between the two frees.
 * The first free unmaps it at once (it leaves the empty quarantine), so
 * the second finds no record and no mapping; the block is still known as
 * one of the big blocks freed lately, hence a double free, not a foreign
 * pointer.  (glibc's second free reads the unmapped header: SIGSEGV.)
 */
#include "case.h"

int main(void)
{
    char *volatile p = malloc(1 << 20);
    free(p);
    for (int i = 0; i < 100; i++)
        free(malloc(1 << 19));
    case_print_addr(p);
    free(p);
    return 0;
}
