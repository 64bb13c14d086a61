/* expect: signal=SIGSEGV token=segv check=none id=FAULT_WILD_POINTER addr=printed options=mode=debug */
/* glibc: SIGSEGV */
/* Debug mode: the program reads through a NULL pointer's field: one segv
 * report saying what the address is, then the default action. */
#include "case.h"

struct s { long a, b; };

int main(void)
{
    free(malloc(8));                    /* chunkguard is in charge */
    struct s *volatile p = NULL;
    case_print_addr(&p->b);
    return (int)p->b;
}
