/* expect: signal=SIGABRT token=heap-buffer-overflow check=none id=GUARD_FAULT_PAST addr=printed options=mode=guard:guard_align=1 */
/* glibc: none */
/* Guard mode, guard_align=1: a read one byte past an odd-sized block
 * faults on its guard page. */
#include "case.h"

int main(void)
{
    volatile char *volatile p = malloc(13);
    case_print_addr((const char *)p + 13);
    return p[13];
}
