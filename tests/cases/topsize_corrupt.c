/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_TOP_SIZE id=TOP_SIZE */
/* glibc: malloc(): corrupted top size */
/*
 * An overflow of the last block (the one just below the top chunk) writes
 * a huge size into the top chunk ("house of force").  The next request that
 * no bin can serve is carved from top, and top's size must be checked
 * against its heap first.  8000 bytes is beyond the tcache and fastbins
 * and below the mmap threshold; the bins are empty in a fresh process.
 */
#include "case.h"

int main(void)
{
    char *last = malloc(1500);
    *case_next_size_field(last) = (size_t)0xfffffffffffff000ull | 1;
    char *big = malloc(8000);
    (void)big;
    return 0;
}
