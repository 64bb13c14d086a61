/* expect: signal=SIGABRT token=alloc-dealloc-mismatch check=none id=ALLOC_DEALLOC_MISMATCH addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: an over-aligned object (alignas(64): new calls the
 * std::align_val_t form) released with the plain operator delete, which
 * releases only what plain new allocates.
 */
#include <new>

#include "case.h"

struct alignas(64) line {
    char bytes[64];
};

int main()
{
    line *p = new line;
    case_print_addr(p);
    ::operator delete(p);
    return 0;
}
