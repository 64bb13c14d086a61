/* expect: signal=SIGABRT token=segv check=none id=FAULT_BIG addr=printed */
/* glibc: SIGSEGV */
/*
 * A 1 MiB block (above the mmap threshold: a big block, with a mapping of
 * its own) that the program makes read-only with mprotect, then writes
 * to.  The fault is on a live block of chunkguard's, as a heap block's is
 * (fault_heap_protected.c): the handler must report it, naming the
 * address, instead of passing it on as a fault on memory not its own.
 */
#include "case.h"

#include <sys/mman.h>

int main(void)
{
    char *p = malloc(1 << 20);
    if (p == NULL)
        return 1;
    char *page = (char *)(((uintptr_t)p + 8192) & ~(uintptr_t)4095);
    if (mprotect(page, 4096, PROT_READ) != 0)
        return 1;
    volatile char *q = page + 100;
    case_print_addr((const void *)q);
    *q = 1;
    return 0;
}
