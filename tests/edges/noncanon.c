/* noncanon.c — an access through a non-canonical pointer (issue 12 point
 * 3/6 item 1): on x86-64 it raises a general-protection fault whose
 * si_addr is 0, and a report must not say the access was at address 0.
 * Usage: noncanon read|write (the access kind, for the report to not
 * guess wrong). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static void touch(volatile int *p, int write)
{
    if (write)
        *p = 1;
    else
        (void)*p;
}

int main(int argc, char **argv)
{
    int write = argc > 1 && strcmp(argv[1], "write") == 0;
    volatile uintptr_t bits = 0xdead000000000000ull;
    puts("about to touch 0xdead000000000000");
    fflush(stdout);
    touch((volatile int *)bits, write);
    return 0;
}
