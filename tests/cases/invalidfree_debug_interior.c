/* expect: signal=SIGABRT token=invalid-free check=none id=DEBUG_INTERIOR_FREE addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: free() of a pointer 8 bytes into a live 40-byte block.  The
 * shadow finds the block the pointer is inside; the report places the
 * pointer in it and gives its allocation stack.
 */
#include "case.h"

int main(void)
{
    char *p = malloc(40);
    void *volatile q = p + 8;
    case_print_addr(q);
    free(q);
    return 0;
}
