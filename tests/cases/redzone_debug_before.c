/* expect: signal=SIGABRT token=heap-buffer-overflow check=none id=DEBUG_REDZONE_BEFORE addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: the byte just before a 40-byte block written (an underflow
 * by one).  free finds the leading redzone changed and names the first
 * changed byte.
 */
#include "case.h"

int main(void)
{
    char *p = malloc(40);
    volatile char *before = p - 1;
    case_print_addr((const void *)before);
    *before = 'A';
    free(p);
    return 0;
}
