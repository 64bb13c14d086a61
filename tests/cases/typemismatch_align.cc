/* expect: signal=SIGABRT token=new-delete-type-mismatch check=CG_CHECK_SIZED_FREE id=NEW_DELETE_ALIGN addr=printed */
/* glibc: none */
/*
 * Fast mode: a block from aligned new (64) released by aligned delete
 * with an alignment of 4096 that the block does not have (one that
 * happens to be page-aligned is kept and another allocated).
 */
#include <stdint.h>

#include <new>

#include "case.h"

int main()
{
    void *p;
    do
        p = ::operator new(100, std::align_val_t(64));
    while ((reinterpret_cast<uintptr_t>(p) & 4095) == 0);
    case_print_addr(p);
    ::operator delete(p, std::align_val_t(4096));
    return 0;
}
