/* expect: signal=SIGABRT token=heap-buffer-overflow check=none id=DEBUG_REDZONE_AFTER addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: the byte just past a 40-byte block written (an overflow by
 * one, inside the chunk's usable size, which glibc never notices).  free
 * finds the trailing redzone changed and names the first changed byte.
 */
#include "case.h"

int main(void)
{
    char *p = malloc(40);
    volatile char *past = p + 40;
    case_print_addr((const void *)past);
    *past = 'A';
    free(p);
    return 0;
}
