/*
 * static_nested_fault.c — a fault inside chunkguard's fault handler, in a
 * program that links libchunkguard.a (where chunkguard cannot tell its own
 * code from the program's).  The program takes the read access away from
 * its heap's header page (chunkguard's metadata: a wild mprotect, as a
 * heap overwrite that reaches the trim's arithmetic once made), then
 * writes past the heap's in-use end: the handler, describing that address,
 * reads the header and faults again.  chunkguard must end the process
 * with a line of its own and SIGABRT, not recurse through its alternate
 * stack into an unrelated segv report (55-debug:
 * debug-static-link-nested-fault).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

const char *cg_default_options(void) { return "mode=debug:quarantine_mb=1:guard_sample=0"; }

int main(void)
{
    char *p = malloc(100);
    uintptr_t heap = (uintptr_t)p & ~(uintptr_t)((64u << 20) - 1);   /* CG_HEAP_MAX-aligned */
    if (mprotect((void *)heap, 4096, PROT_NONE) != 0) {
        perror("mprotect");
        return 2;
    }
    *(volatile char *)(heap + (64u << 20) - 4096) = 1;   /* above the top: never in use */
    puts("survived");
    return 0;
}
