/* expect: signal=SIGABRT token=invalid-pointer check=CG_CHECK_OWNERSHIP id=NOT_OURS_USABLE addr=printed */
/* glibc: none */
/*
 * malloc_usable_size() of a pointer to the stack.  glibc reads the words
 * before it as a chunk header and returns garbage (or faults); chunkguard
 * must see that it is no block of its own and report an invalid pointer.
 */
#include "case.h"

int main(void)
{
    char buf[64] __attribute__((aligned(16)));
    memset(buf, 0, sizeof buf);
    void *volatile q = buf + 32;
    case_print_addr(q);
    return malloc_usable_size(q) == 12345;
}
