/*
 * vgclient.h — chunkguard's memory described to valgrind's memcheck with
 * client requests (valgrind/valgrind.h and valgrind/memcheck.h, from
 * Debian's valgrind package; docs/design.md, "Under valgrind").
 *
 * Memcheck knows the blocks of the malloc it replaces.  When it does not
 * replace ours (a program linking libchunkguard.a, or preloading the .so:
 * README has the command lines), all it sees are our mappings, so it
 * would take every byte of a heap for defined and never report a read
 * after free or past a block.  So, when the process runs under valgrind's
 * memcheck (RUNNING_ON_VALGRIND at init, and memcheck answers its
 * requests: cg_vg_on; other tools see chunkguard as it runs natively),
 * chunkguard tells it:
 *
 *   - every byte it maps for itself is no-access: heaps as they are
 *     committed, big blocks' mappings, out-of-band metadata (shadow
 *     records, stack depot, guard pool tables).  Chunk headers, slack,
 *     redzones, free chunks (in a fastbin, a bin, the top, the quarantine)
 *     stay so;
 *   - a block handed to the program is opened as a block of its requested
 *     size (MALLOCLIKE): undefined, or defined when calloc zeroed it; a
 *     block given back is closed (FREELIKE), wherever the chunk goes; a
 *     block resized in place is resized (RESIZEINPLACE);
 *   - chunkguard's own accesses to all that no-access memory (links,
 *     headers, poison and redzone checks, the leak scan) and the
 *     unwinder's reads run with the thread's error reporting disabled
 *     (cg_vg_quiet_begin/end around every entry into chunkguard), so they
 *     are never reported; the program's own accesses are.
 *
 * Every function here is a no-op unless cg_vg_on, and costs one
 * predictable branch on a byte then; the request bodies are out of line
 * (vgclient.c).  None is on the inline tcache paths: under valgrind no
 * thread gets a tcache (entry/init.c), so every call reaches its mode's
 * table, where the blocks are described.  Thread-safe (a request acts on
 * the calling thread, or on memcheck's own locked state); none allocates.
 */
#ifndef CG_VGCLIENT_H
#define CG_VGCLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include "platform.h"

/* Running under valgrind's memcheck: set once by cg_vg_init, at init,
 * before the first block (read without a lock after). */
extern bool cg_vg_on CG_HIDDEN;
void cg_vg_init(void) CG_HIDDEN;

void cg_vg_quiet_begin_slow(void) CG_HIDDEN;
void cg_vg_quiet_end_slow(void) CG_HIDDEN;
void cg_vg_loud_slow(void) CG_HIDDEN;
void cg_vg_new_slow(const void *p, size_t n, bool zeroed) CG_HIDDEN;
void cg_vg_gone_slow(const void *p) CG_HIDDEN;
void cg_vg_resize_slow(const void *p, size_t old_n, size_t n) CG_HIDDEN;
void cg_vg_noaccess_slow(const void *p, size_t len) CG_HIDDEN;
size_t cg_vg_size_slow(const void *p, size_t cap) CG_HIDDEN;

/* Around chunkguard's own work on a thread: memcheck reports nothing this
 * thread does in between.  Nests (memcheck counts). */
CG_INLINE void cg_vg_quiet_begin(void)
{
    if (CG_UNLIKELY(cg_vg_on))
        cg_vg_quiet_begin_slow();
}

CG_INLINE void cg_vg_quiet_end(void)
{
    if (CG_UNLIKELY(cg_vg_on))
        cg_vg_quiet_end_slow();
}

/* The program's code runs next on this thread though chunkguard's work
 * there has not returned (a report's callback, which may longjmp out; the
 * exit handlers and SIGABRT handlers after a report that ends the
 * process): memcheck reports what the thread does again, whatever the
 * depth of quiet regions it is in.  A quiet region that ends after this
 * finds memcheck's count at 0 and leaves it there. */
CG_INLINE void cg_vg_loud(void)
{
    if (CG_UNLIKELY(cg_vg_on))
        cg_vg_loud_slow();
}

/* p (may be NULL: nothing) is a new block of n requested bytes; zeroed:
 * every byte reads 0 (calloc).  Returns p.  Memcheck then reports reads
 * outside [p, p + n) and, unless zeroed, uses of bytes never written. */
CG_INLINE void *cg_vg_new(void *p, size_t n, bool zeroed)
{
    if (CG_UNLIKELY(cg_vg_on) && p != NULL)
        cg_vg_new_slow(p, n, zeroed);
    return p;
}

/* The block at p (described by cg_vg_new) is freed: every access to it is
 * reported from now on, as "inside a block ... free'd" with this stack. */
CG_INLINE void cg_vg_gone(const void *p)
{
    if (CG_UNLIKELY(cg_vg_on))
        cg_vg_gone_slow(p);
}

/* The block at p, of old_n requested bytes, now holds n in place: bytes
 * beyond n are closed, new ones opened undefined, the rest unchanged. */
CG_INLINE void cg_vg_resize(const void *p, size_t old_n, size_t n)
{
    if (CG_UNLIKELY(cg_vg_on))
        cg_vg_resize_slow(p, old_n, n);
}

/* [p, p + len) is chunkguard's own: no-access to the program. */
CG_INLINE void cg_vg_noaccess(const void *p, size_t len)
{
    if (CG_UNLIKELY(cg_vg_on))
        cg_vg_noaccess_slow(p, len);
}

/* The requested size memcheck holds for the live block at p, whose
 * usable size is cap bytes (a block's bytes are open, the byte after
 * them is not): what an in-place realloc tells memcheck the block had, in
 * a mode that keeps no requested sizes.  0 when not under valgrind.
 * Call it quiet (cg_vg_quiet_begin). */
CG_INLINE size_t cg_vg_size(const void *p, size_t cap)
{
    return CG_UNLIKELY(cg_vg_on) ? cg_vg_size_slow(p, cap) : 0;
}

#endif /* CG_VGCLIENT_H */
