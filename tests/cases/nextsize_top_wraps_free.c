/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_NEXT_SIZE id=NEXT_SIZE_NORMAL */
/* glibc: none */
/*
 * The last block's overflow writes a top size so big that the top's end
 * wraps round the address space ("house of force").  Freeing that block
 * merges it into the top: the check of the next chunk's size must see
 * that the size runs past the heap, not compare the wrapped end.
 */
#include "case.h"

int main(void)
{
    char *last = malloc(2000);                  /* beyond the tcache and fastbins */
    *case_next_size_field(last) = (size_t)0xfffffffffffff000ull | 1;
    free(last);
    return 0;
}
