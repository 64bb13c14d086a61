/* expect: signal=SIGABRT token=heap-buffer-overflow check=none id=FAULT_OVERFLOW addr=printed */
/* glibc: none */
/*
 * A write 1 MiB past a 100-byte block, after malloc_trim has cut the
 * heap's top back to its pad (128 KiB): the address lies above the top
 * chunk, in the part of the 64 MiB heap region chunkguard keeps
 * inaccessible until the top grows into it, so the write faults, and the
 * fault handler must call it an overflow of that block (the last before
 * the top) rather than let it land in memory nothing watches.  (glibc's
 * brk heap ends wherever the program break is; what lies 1 MiB past it
 * depends on the layout, so no glibc run.)
 */
#include "case.h"

int main(void)
{
    char *p = malloc(100);
    volatile char *q = case_past_top(p, 1 << 20);
    case_print_addr((const void *)q);
    *q = 1;
    return 0;
}
