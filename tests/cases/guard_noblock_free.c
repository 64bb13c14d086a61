/* expect: signal=SIGABRT token=invalid-free check=none id=GUARD_NO_BLOCK_FREE addr=printed options=mode=guard:guard_quarantine_mb=0 */
/* glibc: none */
/*
 * Guard mode with no quarantine of sealed pages: a freed block's range
 * goes back at once and its record with it.  Guard mode remembers the
 * last 256 given-back blocks (a late misuse of one is a double free);
 * 300 more freed after p push p out of that memory, so the stale
 * pointer is in guarded pages but in no block it knows of.
 */
#include "case.h"

int main(void)
{
    static char *others[300];
    char *volatile p = malloc(40);
    for (int i = 0; i < 300; i++)
        others[i] = malloc(40);
    free(p);
    for (int i = 0; i < 300; i++)
        free(others[i]);
    case_print_addr(p);
    free(p);
    return 0;
}
