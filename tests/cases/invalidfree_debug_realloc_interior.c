/* expect: signal=SIGABRT token=invalid-free check=none id=DEBUG_INTERIOR_REALLOC addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: realloc() of a pointer 16 bytes into a block that was freed
 * (it waits in the quarantine): no block starts there, and the report
 * says the block it points into was freed.
 */
#include "case.h"

int main(void)
{
    char *p = malloc(64);
    free(p);
    void *volatile q = p + 16;
    case_print_addr(q);
    q = realloc(q, 100);
    return q != NULL;
}
