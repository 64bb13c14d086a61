/* expect: signal=SIGABRT token=double-free check=none id=GUARD_REALLOC_FREED addr=printed options=mode=guard */
/* glibc: none */
/* Guard mode: realloc of a block already freed. */
#include "case.h"

int main(void)
{
    char *volatile p = malloc(40);
    free(p);
    case_print_addr(p);
    p = realloc(p, 100);
    return p == NULL;
}
