/*
 * vgclient.c — the client requests behind vgclient.h.  Each request is a
 * short sequence of instructions that does nothing on a real CPU and that
 * valgrind's core recognises (valgrind.h); only these functions contain
 * them, and they run only when cg_vg_on.
 */
#include "vgclient.h"

#include <valgrind/memcheck.h>
#include <valgrind/valgrind.h>

bool cg_vg_on;

/* Under valgrind, and its tool is memcheck: only memcheck answers its
 * requests, so a byte it was told is no-access is found so by memcheck
 * and by no other tool (the others return 0, silently).  Callgrind and
 * cachegrind, which count the instructions of the real paths (bench/,
 * tools/check-fastpath.sh), see chunkguard as it runs off valgrind. */
static unsigned char probe;

CG_HOT_TEXT void cg_vg_init(void)
{
    if (RUNNING_ON_VALGRIND == 0)
        return;
    VALGRIND_DISABLE_ERROR_REPORTING;
    (void)VALGRIND_MAKE_MEM_NOACCESS(&probe, 1);
    cg_vg_on = VALGRIND_CHECK_MEM_IS_ADDRESSABLE(&probe, 1) != 0;
    (void)VALGRIND_MAKE_MEM_DEFINED(&probe, 1);
    VALGRIND_ENABLE_ERROR_REPORTING;
}

void cg_vg_quiet_begin_slow(void)
{
    VALGRIND_DISABLE_ERROR_REPORTING;
}

void cg_vg_quiet_end_slow(void)
{
    VALGRIND_ENABLE_ERROR_REPORTING;
}

/* Memcheck keeps one disablement count a thread and an enable at 0 leaves
 * it at 0 (valgrind's core, VG_USERREQ__CHANGE_ERR_DISABLEMENT), so more
 * enables than chunkguard's deepest nesting of quiet regions (an entry, a
 * fault handler's, init's: three at most) end them all. */
void cg_vg_loud_slow(void)
{
    for (int i = 0; i < 16; i++)
        VALGRIND_ENABLE_ERROR_REPORTING;
}

/* No redzone argument (0): memcheck would close that many bytes on both
 * sides, and in fast mode the 8 bytes before a block's header end the
 * block before it.  Everything around a block is no-access already. */
void cg_vg_new_slow(const void *p, size_t n, bool zeroed)
{
    VALGRIND_MALLOCLIKE_BLOCK(p, n, 0, zeroed);
}

void cg_vg_gone_slow(const void *p)
{
    VALGRIND_FREELIKE_BLOCK(p, 0);
}

void cg_vg_resize_slow(const void *p, size_t old_n, size_t n)
{
    VALGRIND_RESIZEINPLACE_BLOCK(p, old_n, n, 0);
}

/* In pieces: memcheck warns of every range above about 100 MB (debug
 * mode's guard-region page map is gigabytes of address space). */
void cg_vg_noaccess_slow(const void *p, size_t len)
{
    const size_t piece = (size_t)64 << 20;
    for (const char *a = p; len > 0;) {
        size_t n = len < piece ? len : piece;
        (void)VALGRIND_MAKE_MEM_NOACCESS(a, n);
        a += n;
        len -= n;
    }
}

/* The block's bytes are addressable and the byte after them is not (its
 * slack, the next chunk's header, or the end of its mapping): the first
 * unaddressable byte memcheck finds in [p, p + cap + 1) is its end.  The
 * check reports nothing while the thread is quiet. */
size_t cg_vg_size_slow(const void *p, size_t cap)
{
    uintptr_t bad = (uintptr_t)VALGRIND_CHECK_MEM_IS_ADDRESSABLE(p, cap + 1);
    if (bad == 0 || bad < (uintptr_t)p || bad - (uintptr_t)p > cap)
        return cap;
    return (size_t)(bad - (uintptr_t)p);
}
