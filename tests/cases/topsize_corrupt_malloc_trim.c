/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_TOP_SIZE id=TOP_SIZE */
/* glibc: none */
/*
 * The same overwritten top size as topsize_corrupt_trim_free.c, met by
 * malloc_trim: the trim checks the top before it uses its size.
 */
#include "case.h"

int main(void)
{
    char *last = malloc(100);
    *case_next_size_field(last) = (size_t)0x30702070100ull | 1;
    malloc_trim(0);
    return 0;
}
