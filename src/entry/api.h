/*
 * api.h — the slow paths behind the exported names (api.c): what the
 * inline paths of entry/interpose.c (core/fastpath.h) cannot serve.
 */
#ifndef CG_API_H
#define CG_API_H

#include "alloc.h"
#include "fastpath.h"

/* Slow paths; `caller` is the program's return address, for reports.
 * Contracts are those of the standard functions (glibc 2.36).  Each
 * realigns the stack pointer on entry (CG_REALIGN, platform.h): any may
 * report or unwind, and the program may call us with its stack
 * misaligned (a hijacked return).
 *
 * malloc's and free's serve C++'s operator new and delete too (below):
 * family is CG_FAMILY_MALLOC, or a C++ form's (base/call.h), whose call
 * is named and whose block records (or is checked against) its family.
 * The exported functions pass constants; a C++ form that gets NULL does
 * what its contract says (cg_new_failed; entry/interpose.c).  family is
 * the last argument: as the second, gcc passed malloc's 0 from the
 * sampler's count-down it had just seen reach 0, and the inline path
 * spent two more instructions on every call keeping that in a register. */
/* malloc's slow path; align: an aligned operator new's std::align_val_t
 * (NULL when it is not a power of two), else 0. */
void  *cg_malloc_slow(size_t n, size_t align, uintptr_t caller, int family)
    CG_HIDDEN CG_REALIGN CG_NOINLINE;
/* malloc's slow path for a thread whose tcache (tc, the inline path's
 * cg_self.tcache: so the thread's state is CG_T_CACHED) missed: called
 * with the inline path's re-entry mark set (CG_FAST_ENTER), and ends it.
 * idx: the tcache bin of the request (cg_csize2tidx of its chunk size;
 * the request itself is not needed: it passed the tcache's size test). */
void  *cg_malloc_handoff(size_t idx, cg_tcache_t *tc, uintptr_t caller, const char *op, int family)
    CG_HIDDEN CG_REALIGN CG_NOINLINE;
/* cg_malloc_slow's attempt (the new_handler loop's retries; cxx.c). */
void  *cg_malloc_try(size_t n, size_t align, uintptr_t caller, int family) CG_HIDDEN;
/* free's slow path: mem (NULL: nothing); a sized release's size (a sized
 * operator delete, free_sized) or SIZE_MAX, an aligned one's alignment or
 * 0. */
void   cg_free_slow(void *mem, size_t sized, size_t salign, uintptr_t caller, int family)
    CG_HIDDEN CG_REALIGN CG_NOINLINE;
void  *cg_calloc_slow(size_t nmemb, size_t size, uintptr_t caller) CG_HIDDEN CG_REALIGN CG_NOINLINE;
/* calloc's slow path for a thread whose tcache missed, entered like
 * cg_malloc_handoff. */
void  *cg_calloc_handoff(size_t nmemb, size_t size, cg_tcache_t *tc, uintptr_t caller)
    CG_HIDDEN CG_REALIGN CG_NOINLINE;
/* malloc's and calloc's hand-offs when the sampler's count-down reached 0
 * on the inline path (CG_SAMPLE_TURN, core/fastpath.h): the mode's table
 * serves the call; entered like cg_malloc_handoff.  bytes: calloc's
 * nmemb * size, checked. */
void  *cg_malloc_sampled(size_t n, uintptr_t caller, int family) CG_HIDDEN CG_REALIGN CG_NOINLINE CG_COLD;
void  *cg_calloc_sampled(size_t bytes, uintptr_t caller) CG_HIDDEN CG_REALIGN CG_NOINLINE CG_COLD;
void  *cg_realloc_impl(void *mem, size_t n, uintptr_t caller) CG_HIDDEN CG_REALIGN;
void  *cg_reallocarray_impl(void *mem, size_t nmemb, size_t size, uintptr_t caller) CG_HIDDEN CG_REALIGN;
void  *cg_memalign_impl(size_t align, size_t n, uintptr_t caller, const char *op) CG_HIDDEN CG_REALIGN;
/* posix_memalign's contract around alloc (cg_memalign_impl, or the
 * re-entrant cg_reentry_memalign): EINVAL for a bad alignment, ENOMEM,
 * errno kept. */
int    cg_posix_memalign_with(void **memptr, size_t align, size_t n, uintptr_t caller,
                              void *(*alloc)(size_t align, size_t n, uintptr_t caller,
                                             const char *op)) CG_HIDDEN CG_REALIGN;
void  *cg_valloc_impl(size_t n, bool round_size, uintptr_t caller, const char *op) CG_HIDDEN CG_REALIGN;

/* memalign's argument checks (glibc 2.36), shared by the ordinary and the
 * re-entrant paths: *align above 16 is rounded up to a power of two;
 * returns 0, EINVAL (align above SIZE_MAX/2 + 1) or ENOMEM (no block of n
 * bytes could have that alignment).  Sets no errno. */
int    cg_memalign_args(size_t *align, size_t n) CG_HIDDEN;
/* pvalloc's request: n rounded up to whole pages, one at least; 0 when
 * that overflows. */
CG_INLINE size_t cg_pvalloc_bytes(size_t n)
{
    size_t r = CG_PAGE_ROUND(n);
    return r < n ? 0 : r ? r : cg_pagesize;
}
size_t cg_usable_size_impl(void *mem, uintptr_t caller) CG_HIDDEN CG_REALIGN;
void   cg_free_sized_impl(void *mem, size_t align, size_t n, uintptr_t caller, const char *op) CG_HIDDEN CG_REALIGN;

/* A free a signal handler made while its thread was inside (reentry.c),
 * done now: free's checks and release, without the mark (the caller is
 * inside already). */
void   cg_free_deferred(void *mem) CG_HIDDEN;

/* Free of a pointer cg_heap_owns() accepted, by a thread with a tcache,
 * when the inline path could not take it: size checks, in-use checks,
 * then tcache, fastbin or arena.  Both below are called with the inline
 * path's re-entry mark set (CG_FAST_ENTER) and end it. */
void   cg_free_owned(void *mem, cg_tcache_t *tc, uintptr_t caller, const char *op, int family)
    CG_HIDDEN CG_REALIGN CG_NOINLINE;

/* A tcache-sized chunk that passed every check of cg_free_fast but whose
 * tcache bin is full: straight to its fastbin or arena.  The call's name
 * is the family's (cg_family_delete_name), looked up here, off the
 * inline path. */
void   cg_free_to_arena(void *mem, cg_tcache_t *tc, uintptr_t caller, int family)
    CG_HIDDEN CG_REALIGN CG_NOINLINE;
/* The same for a chunk of a fastbin size (CG_FREE_FAST_FULL).  Not
 * realigned itself: the push it makes without a call keeps nothing on
 * the stack, and whatever may report or unwind is cg_free_to_arena's,
 * which realigns. */
void   cg_free_to_fastbin(void *mem, cg_tcache_t *tc, uintptr_t caller, int family)
    CG_HIDDEN CG_NOINLINE;

/*
 * C++'s operator new and delete (entry/interpose.c exports their 20
 * forms; the contracts are C++17 [new.delete] as libstdc++ keeps them)
 * take malloc's and free's paths above with their family.  What a form
 * does when they give it no block (cg_new_failed, entry/cxx.c; how: the
 * family | CG_NEW_NOTHROW for a nothrow form): returns a block, after the
 * throwing forms have called the new_handler and tried again until it is
 * gone; or NULL (nothrow); or throws std::bad_alloc; never returns when no
 * C++ runtime can throw (it aborts with a line in the log, as libstdc++
 * built without exceptions).
 */
#define CG_NEW_NOTHROW 0x10
#define CG_NEW_FAMILY(how) ((how) & 0x0f)
void  *cg_new_failed(size_t n, size_t align, int how, uintptr_t caller) CG_HIDDEN CG_COLD;

#endif /* CG_API_H */
