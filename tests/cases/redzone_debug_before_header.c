/* expect: signal=SIGABRT token=heap-buffer-overflow check=none id=DEBUG_BEFORE_HEADER addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: one byte written 32 bytes before block b, past its 16-byte
 * leading redzone and its chunk header's size word, into the first word
 * of that header (prev_size), which is the last word of the trailing
 * redzone of block a before it.  When a is freed its redzone is found
 * changed, but not from a's end: the damage reaches b's header, so the
 * report names b and says "before" (an underflow of b), not an overflow
 * of a.
 */
#include "case.h"

int main(void)
{
    char *a = malloc(40);
    char *b = malloc(40);
    volatile char *w = b - 32;
    case_print_addr((const void *)w);
    *w = 'A';
    free(a);
    free(b);
    return 0;
}
