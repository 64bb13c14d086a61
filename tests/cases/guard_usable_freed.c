/* expect: signal=SIGABRT token=invalid-pointer check=none id=GUARD_USABLE_FREED addr=printed options=mode=guard */
/* glibc: none */
/* Guard mode: malloc_usable_size of a block already freed. */
#include "case.h"

int main(void)
{
    char *volatile p = malloc(40);
    free(p);
    case_print_addr(p);
    return (int)malloc_usable_size(p);
}
