/* expect: signal=SIGABRT token=new-delete-type-mismatch check=CG_CHECK_SIZED_FREE id=DEBUG_NEW_DELETE_ALIGN addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: a block from aligned new (64) released by aligned delete
 * with another alignment (128): the shadow record knows the alignment
 * asked for.
 */
#include <new>

#include "case.h"

int main()
{
    void *p = ::operator new(100, std::align_val_t(64));
    case_print_addr(p);
    ::operator delete(p, std::align_val_t(128));
    return 0;
}
