/* expect: signal=SIGABRT token=invalid-pointer check=none id=DEBUG_INTERIOR_USABLE addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: malloc_usable_size() of a pointer 16 bytes into a live
 * 64-byte block.
 */
#include "case.h"

int main(void)
{
    char *p = malloc(64);
    void *volatile q = p + 16;
    case_print_addr(q);
    return (int)malloc_usable_size(q);
}
