/* expect: signal=SIGABRT token=invalid-free check=none id=DEBUG_FOREIGN addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: free() of a local variable.  No shadow record and no heap
 * know the pointer, so debug mode looks it up in the process's mappings
 * and says it is on this thread's stack.
 */
#include "case.h"

int main(void)
{
    _Alignas(16) long local[4] = { 0 };
    case_print_addr(local);
    free(local);
    return 0;
}
