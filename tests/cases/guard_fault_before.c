/* expect: signal=SIGABRT token=heap-buffer-overflow check=none id=GUARD_FAULT_BEFORE addr=printed options=mode=guard:guard_underflow=1 */
/* glibc: none */
/* Guard mode, guard_underflow=1: a write one byte before a block faults
 * on the guard page before it. */
#include "case.h"

int main(void)
{
    volatile char *volatile p = malloc(40);
    case_print_addr((const char *)p - 1);
    p[-1] = 1;
    return 0;
}
