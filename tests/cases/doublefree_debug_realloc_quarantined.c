/* expect: signal=SIGABRT token=double-free check=none id=DEBUG_REALLOC_FREED addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: realloc() of a block that was freed and waits in the
 * quarantine.
 */
#include "case.h"

int main(void)
{
    char *volatile p = malloc(40);
    free(p);
    case_print_addr(p);
    p = realloc(p, 80);
    return p != NULL;
}
