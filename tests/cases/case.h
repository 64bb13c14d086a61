/*
 * case.h — helpers shared by the one-bug-per-file programs in tests/cases/.
 *
 * Every helper avoids stdio: printf would allocate the stdout buffer and
 * move the chunks a case is arranging into place, and a report must be the
 * first thing on stderr.
 */
#ifndef CG_CASE_H
#define CG_CASE_H

#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The tcache holds 7 entries per size class; the 8th free of a class goes
 * to a fastbin (for chunks up to 128 bytes) or to the unsorted bin. */
#define CASE_TCACHE_COUNT 7

/*
 * case_print_addr - tell the runner which address the report must name.
 * @p: the pointer the buggy call receives.
 * Writes "cg-expect-addr=0x<hex>\n" to stdout with write(2), so nothing is
 * allocated and the line is out before the process dies.
 */
static inline void case_print_addr(const void *p)
{
    char buf[64] = "cg-expect-addr=0x";
    size_t n = strlen(buf);
    uintptr_t v = (uintptr_t)p;
    int started = 0;
    for (int shift = 60; shift >= 0; shift -= 4) {
        unsigned d = (unsigned)(v >> shift) & 0xf;
        if (d || started || shift == 0) {
            buf[n++] = "0123456789abcdef"[d];
            started = 1;
        }
    }
    buf[n++] = '\n';
    (void)!write(1, buf, n);
}

/*
 * case_fill_tcache - make the tcache bin of one size class full.
 * @size: request size in bytes whose class is filled.
 * Allocates 7 blocks first and frees them after, so the 7 frees land in the
 * tcache (the blocks do not come from it).  The blocks stay cached; a later
 * case_drain_tcache(size) takes them back out.
 */
static inline void case_fill_tcache(size_t size)
{
    void *blocks[CASE_TCACHE_COUNT];
    for (int i = 0; i < CASE_TCACHE_COUNT; i++)
        blocks[i] = malloc(size);
    for (int i = 0; i < CASE_TCACHE_COUNT; i++)
        free(blocks[i]);
}

/*
 * case_drain_tcache - empty the tcache bin of one size class.
 * @size: request size in bytes.
 * The 7 blocks are leaked on purpose: freeing them would refill the bin.
 */
static inline void case_drain_tcache(size_t size)
{
    for (int i = 0; i < CASE_TCACHE_COUNT; i++) {
        volatile void *p = malloc(size);
        (void)p;
    }
}

/*
 * case_next_size_field - the size word of the chunk that follows block @p.
 * For a heap chunk the usable size ends exactly where the next chunk's size
 * word begins (usable = chunk size - 8), so this is where a one-word
 * overflow of @p lands.
 */
static inline size_t *case_next_size_field(void *p)
{
    return (size_t *)((char *)p + malloc_usable_size(p));
}

#endif /* CG_CASE_H */
