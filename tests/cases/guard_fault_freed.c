/* expect: signal=SIGABRT token=heap-use-after-free check=none id=GUARD_FAULT_FREED addr=printed options=mode=guard */
/* glibc: none */
/* Guard mode: a read of a freed block faults on its sealed page. */
#include "case.h"

int main(void)
{
    volatile char *volatile p = malloc(40);
    free((void *)p);
    case_print_addr((const char *)p + 3);
    return p[3];
}
