/* expect: signal=SIGABRT token=double-free check=none id=GUARD_DOUBLE_FREE addr=printed options=mode=guard */
/* glibc: free(): double free detected in tcache 2 */
/* Guard mode: a block freed twice; its pages are sealed after the first. */
#include "case.h"

int main(void)
{
    char *volatile p = malloc(40);
    free(p);
    case_print_addr(p);
    free(p);
    return 0;
}
