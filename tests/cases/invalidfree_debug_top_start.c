/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_FREE_SIZE id=TOP_START_NO_BLOCK_FREE addr=printed options=mode=debug */
/* glibc: none */
/*
 * The debug-mode twin of invalidfree_top_start: a live 5000-byte block is
 * the last before the top chunk (its chunk's size is read from its header,
 * since debug mode adds redzones), and q is the top chunk's own first byte
 * of data, where no block was ever carved.  (A debug block's pointer is
 * never there anyway: it starts after its chunk's leading redzone.)
 */
#include "case.h"

int main(void)
{
    char *p = malloc(5000);
    size_t csize = *case_debug_size_word(p) & ~(size_t)15;
    char *chunk = p - CASE_DEBUG_LEAD - 2 * sizeof(size_t);
    char *volatile q = chunk + csize + 2 * sizeof(size_t);
    case_print_addr(q);
    free(q);
    return 0;
}
