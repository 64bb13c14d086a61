/* expect: signal=SIGABRT token=invalid-pointer check=none id=GUARD_NO_BLOCK_USABLE addr=printed options=mode=guard:guard_quarantine_mb=0 */
/* glibc: none */
/*
 * Guard mode with no quarantine of sealed pages: a freed block's range
 * goes back at once and its record with it, so the stale pointer is in
 * guarded pages but in no block.
 */
#include "case.h"

int main(void)
{
    char *volatile p = malloc(40);
    free(p);
    case_print_addr(p);
    (void)malloc_usable_size(p);
    return 0;
}
