/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_OWNERSHIP id=NOT_OURS_FREE addr=printed */
/* glibc: munmap_chunk(): invalid pointer */
/*
 * free() of memory from the program's own mmap, dressed up as a big
 * mmapped chunk (IS_MMAPPED set, page-sized).  The allocator never handed
 * it out, so the big-block registry must not know it.  (glibc believes the
 * header and rejects it only because the chunk is not page-aligned.)
 */
#include <sys/mman.h>
#include "case.h"

int main(void)
{
    char *m = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return 3;
    size_t *hdr = (size_t *)(m + 4096 - 16);
    hdr[0] = 0;
    hdr[1] = 8192 | 2;   /* size 8192, IS_MMAPPED */
    void *volatile p = m + 4096;
    case_print_addr(p);
    free(p);
    return 0;
}
