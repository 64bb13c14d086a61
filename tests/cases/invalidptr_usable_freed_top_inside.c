/* expect: signal=SIGABRT token=invalid-pointer check=CG_CHECK_OWNERSHIP id=FREED_TOP_USABLE addr=printed */
/* glibc: SIGSEGV */
/*
 * Two 2000-byte blocks (beyond the tcache and the fastbins) are the last
 * ones before the top chunk.  Freeing b merges it into top; freeing a
 * merges a and top, so the top chunk now starts at a and b lies inside it.
 * malloc_usable_size(b) is of no block: the pointer is invalid (the kind
 * debug mode reports too).
 * (glibc reads b's stale header, the old top's size, and then the word
 * past the end of its heap: SIGSEGV.)
 */
#include "case.h"

int main(void)
{
    char *b = case_freed_in_top();
    case_print_addr(b);
    return (int)malloc_usable_size(b);
}
