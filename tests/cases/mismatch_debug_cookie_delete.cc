/* expect: signal=SIGABRT token=alloc-dealloc-mismatch check=none id=ALLOC_DEALLOC_MISMATCH_COOKIE addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: an array of objects with a destructor from new[] released
 * with delete.  new[] keeps the element count in a cookie before the
 * array, so the program's pointer is 8 bytes into the block; delete runs
 * one destructor and hands that pointer on.  The report is the mismatch,
 * not an interior pointer.
 */
#include "case.h"

struct counted {
    int value;
    ~counted() { value = -1; }
};

int main()
{
    counted *p = new counted[4];
    case_print_addr(p);
    delete p;
    return 0;
}
