/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_TOP_SIZE id=TOP_SIZE */
/* glibc: none */
/*
 * An overflow of the last block writes a size into the top chunk that is
 * bigger than the heap but not a wrap-around (the bytes AFL++'s corrupt
 * harness wrote, 17..80 bytes past a block).  A free that merges 64 KiB or
 * more then trims the top; the trim must check the top's size before it
 * computes what to give back: with the size as it was, the pages it
 * sealed wrapped round to the heap's own header, and chunkguard faulted
 * inside itself (fuzz/regress/corrupt/trim-trusts-top-size).
 */
#include "case.h"

int main(void)
{
    char *big = malloc(70000);                  /* a heap chunk: below the mmap threshold */
    char *last = malloc(100);                   /* keeps big from merging into the top */
    *case_next_size_field(last) = (size_t)0x30702070100ull | 1;
    free(big);                                  /* 70000 bytes merged: the top is trimmed */
    return 0;
}
