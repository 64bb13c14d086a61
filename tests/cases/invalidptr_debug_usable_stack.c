/* expect: signal=SIGABRT token=invalid-pointer check=none id=DEBUG_USABLE_NOT_OURS addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: malloc_usable_size() of a stack array, which no shadow
 * record knows.  (glibc reads the words before it as a header.)
 */
#include "case.h"

int main(void)
{
    _Alignas(16) char buf[64];
    memset(buf, 0, sizeof buf);
    void *volatile p = buf + 16;
    case_print_addr(p);
    return (int)malloc_usable_size(p);
}
