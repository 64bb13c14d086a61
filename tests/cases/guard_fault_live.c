/* expect: signal=SIGABRT token=segv check=none id=GUARD_FAULT_LIVE addr=printed options=mode=guard */
/* glibc: SIGSEGV */
/* Guard mode: a live guarded block that the program makes read-only with
 * mprotect, then writes into.  The access is inside the live block, not
 * past it (on its guard page) nor after its free: a segv on the block. */
#include "case.h"

#include <sys/mman.h>

int main(void)
{
    char *p = malloc(3 * 4096);
    if (p == NULL)
        return 1;
    char *page = (char *)(((uintptr_t)p + 4096) & ~(uintptr_t)4095);
    if (mprotect(page, 4096, PROT_READ) != 0)
        return 1;
    volatile char *q = page + 8;
    case_print_addr((const void *)q);
    *q = 1;
    return 0;
}
