/* expect: signal=SIGABRT token=heap-corruption check=none id=DEBUG_HEADER addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: one bit of a live block's chunk size word flipped (a wild
 * write; the leading redzone between the word and the block stays
 * intact).  free compares the header with the copy in the block's shadow
 * record before anything else and reports the header, at the size word.
 */
#include "case.h"

int main(void)
{
    char *p = malloc(40);
    volatile size_t *size_word = case_debug_size_word(p);
    case_print_addr((const void *)size_word);
    *size_word ^= 0x40;
    free(p);
    return 0;
}
