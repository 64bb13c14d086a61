/* expect: signal=SIGABRT token=alloc-dealloc-mismatch check=none id=ALLOC_DEALLOC_MISMATCH addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: a single object from new released with delete[].
 */
#include "case.h"

int main()
{
    int *p = new int(3);
    case_print_addr(p);
    delete[] p;
    return 0;
}
