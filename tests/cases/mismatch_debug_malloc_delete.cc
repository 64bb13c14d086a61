/* expect: signal=SIGABRT token=alloc-dealloc-mismatch check=none id=ALLOC_DEALLOC_MISMATCH addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: a block from malloc() released with delete.  The block
 * records its family; operator delete releases only what operator new
 * allocates.  (glibc's operator delete calls free(): no error there.)
 */
#include "case.h"

int main()
{
    int *p = static_cast<int *>(malloc(sizeof(int)));
    case_print_addr(p);
    delete p;
    return 0;
}
