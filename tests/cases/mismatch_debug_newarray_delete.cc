/* expect: signal=SIGABRT token=alloc-dealloc-mismatch check=none id=ALLOC_DEALLOC_MISMATCH addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: an array from new[] released with delete (not delete[]).
 * int has no destructor, so new[] keeps no cookie and delete gets the
 * block's own address.
 */
#include "case.h"

int main()
{
    int *p = new int[10];
    case_print_addr(p);
    delete p;
    return 0;
}
