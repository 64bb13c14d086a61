/* expect: signal=SIGABRT token=alloc-dealloc-mismatch check=none id=ALLOC_DEALLOC_MISMATCH addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: a block from operator new released with free().
 */
#include "case.h"

int main()
{
    int *p = new int(7);
    case_print_addr(p);
    free(p);
    return 0;
}
