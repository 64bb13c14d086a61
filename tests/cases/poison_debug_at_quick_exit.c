/* expect: signal=SIGABRT token=heap-use-after-free check=none id=DEBUG_POISON addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: a write into a freed block's first word (where an allocator
 * keeps its free-list link) while it waits in the quarantine, then
 * _exit(0), as a forked child ends: no destructor runs, so the checks at
 * exit would never see it.  _exit checks the quarantine first.
 */
#include "case.h"

int main(void)
{
    char *p = malloc(40);
    free(p);
    case_print_addr(p);
    *(volatile size_t *)p = 0x4141414141414141ull;   /* the use after free */
    _exit(0);
}
