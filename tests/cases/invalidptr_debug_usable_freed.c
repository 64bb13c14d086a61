/* expect: signal=SIGABRT token=invalid-pointer check=none id=DEBUG_USABLE_FREED addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: malloc_usable_size() of a block that was freed and waits in
 * the quarantine.  (glibc answers with a size.)
 */
#include "case.h"

int main(void)
{
    char *volatile p = malloc(40);
    free(p);
    case_print_addr(p);
    return (int)malloc_usable_size(p);
}
