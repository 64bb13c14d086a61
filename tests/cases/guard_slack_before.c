/* expect: signal=SIGABRT token=heap-buffer-overflow check=none id=GUARD_SLACK_BEFORE addr=printed options=mode=guard */
/* glibc: none */
/*
 * Guard mode: a write one byte before a block (its guard page is after
 * it) lands in the filled bytes before it, which free finds changed.
 */
#include "case.h"

int main(void)
{
    char *volatile p = malloc(40);
    case_print_addr(p - 1);
    p[-1] = 1;
    free(p);
    return 0;
}
