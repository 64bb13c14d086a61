/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_SAFE_LINK id=FASTBIN_LINK_CONSOLIDATE */
/* glibc: malloc_consolidate(): unaligned fastbin chunk detected */
/*
 * As safelink_fastbin_big_request.c, with aligned_alloc(4096, 256 KiB):
 * an aligned request at the mmap threshold consolidates the fastbins first
 * too (glibc's _int_memalign asks _int_malloc for a large chunk, which
 * does), so the overwritten link is found there.
 */
#include "case.h"

int main(void)
{
    struct case_fast_pair f = case_fastbin_pair(1);
    ((size_t *)f.b)[0] = (size_t)0x4141414141414141ull;
    char *big = aligned_alloc(4096, 256 * 1024);  /* mmap'd, after malloc_consolidate */
    (void)big;
    return 0;
}
