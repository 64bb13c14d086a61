/* expect: signal=SIGABRT token=heap-buffer-overflow check=none id=GUARD_SLACK_BEFORE addr=printed options=mode=guard */
/* glibc: none */
/*
 * Guard mode: a zero written one byte before a malloc'd block lands in
 * the filled bytes before it (no zero cookie there: only a scalar
 * operator new's block has one), which free finds changed.
 */
#include "case.h"

int main(void)
{
    char *volatile p = malloc(40);
    case_print_addr(p - 1);
    p[-1] = 0;
    free(p);
    return 0;
}
