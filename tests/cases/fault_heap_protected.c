/* expect: signal=SIGABRT token=segv check=none id=FAULT_HEAP addr=printed */
/* glibc: SIGSEGV */
/*
 * The program makes the second page of a page-aligned 8 KiB block (below
 * the mmap threshold: it lies in a chunkguard heap) a guard of its own
 * with mprotect(PROT_NONE), then writes one byte past the first page.
 * The fault is the program's, at an address inside a chunkguard heap:
 * the fault handler must say so, naming that address.
 */
#include "case.h"

#include <sys/mman.h>

int main(void)
{
    char *p = memalign(4096, 8192);
    if (p == NULL || mprotect(p + 4096, 4096, PROT_NONE) != 0)
        return 1;
    volatile char *q = p + 4096;
    case_print_addr((const void *)q);
    *q = 1;
    return 0;
}
