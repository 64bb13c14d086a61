/* expect: signal=SIGABRT token=segv check=none id=GUARD_FAULT_WILD addr=printed options=mode=guard */
/* glibc: none */
/* Guard mode: a read 64 MiB past the only block, in guarded pages never
 * handed out: no block is within 1 MiB. */
#include "case.h"

int main(void)
{
    volatile char *volatile p = malloc(40);
    volatile char *q = p + (64 << 20);
    case_print_addr((const char *)q);
    return *q;
}
