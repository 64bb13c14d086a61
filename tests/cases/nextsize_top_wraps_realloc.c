/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_NEXT_SIZE id=NEXT_SIZE_NORMAL */
/* glibc: none */
/*
 * The last block's overflow writes a top size so big that the chunk's end
 * wraps round the address space ("house of force"), which the check of the
 * next chunk's size must not let through by the wrap; a realloc of that
 * block grows it in place into the top, and must check the top's size
 * first: else the block it returns runs past the heap's accessible end.
 */
#include "case.h"

int main(void)
{
    char *last = malloc(100);
    *case_next_size_field(last) = (size_t)0xfffffffffffff000ull | 1;
    char *p = realloc(last, 120000);            /* below the mmap threshold: grown in place */
    (void)p;
    return 0;
}
