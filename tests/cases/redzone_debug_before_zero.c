/* expect: signal=SIGABRT token=heap-buffer-overflow check=none id=DEBUG_REDZONE_BEFORE addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: a zero written just before a malloc'd block (s[len - 1] = 0
 * with len 0, the common underwrite).  Only a scalar operator new's block
 * ends its leading redzone with the zero array cookie (src/debug/debug.h);
 * a malloc'd one keeps the fill there, so free sees the zero.
 */
#include "case.h"

int main(void)
{
    char *p = malloc(40);
    volatile char *before = p - 1;
    case_print_addr((const void *)before);
    *before = 0;
    free(p);
    return 0;
}
