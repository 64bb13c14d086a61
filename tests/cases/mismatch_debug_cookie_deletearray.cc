/* expect: signal=SIGABRT token=alloc-dealloc-mismatch check=none id=ALLOC_DEALLOC_MISMATCH_COOKIE addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: one object with a destructor from plain new released with
 * delete[].  delete[] reads a cookie that new never wrote, 8 bytes before
 * the object, and hands operator delete[] that address.  Optimised (as
 * release() is, with the empty destructor inlined) the compiler drops the
 * loop of destructors the garbage count would run, as it does in any
 * optimised build, so operator delete[] is reached; the report names the
 * address delete[] got and the block it is a cookie's size before.
 */
#include <stdint.h>

#include "case.h"

struct counted {
    int value;
    __attribute__((always_inline)) ~counted() {}
};

__attribute__((noinline, optimize("O2"))) static void release(counted *p)
{
    delete[] p;
}

int main()
{
    counted *p = new counted;
    case_print_addr(reinterpret_cast<char *>(p) - sizeof(size_t));
    release(p);
    return 0;
}
