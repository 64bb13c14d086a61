/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=UNSORTED_SIZE addr=printed */
/* glibc: malloc(): invalid size (unsorted) */
/*
 * As unsorted_bad_size, but the overflow gives b a size near 2^64 (minus
 * 1 MiB): b + size wraps to 1 MiB below b, below the heap's first chunk
 * (found by libFuzzer's corrupt harness: an overflow-far over a freed
 * chunk's size, and malloc read the wrapped "next chunk" and faulted
 * inside chunkguard).  The size must be compared with the room left in
 * the heap, not added to b first.
 */
#include "case.h"

int main(void)
{
    struct case_three t = case_unsorted_middle();
    *case_next_size_field(t.a) = (size_t)0 - ((size_t)1 << 20) + 1;
    case_print_addr(t.b);
    char *c = malloc(3000);
    (void)c;
    return 0;
}
