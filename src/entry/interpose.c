/*
 * interpose.c — the only file that exports the malloc API.
 *
 * Built two ways from one source: with the standard names (malloc, free,
 * ... and glibc's __libc_* aliases) for libchunkguard.so/.a, or with
 * CHUNKGUARD_PREFIXED as cg_malloc, cg_free, ... for the build that
 * interposes nothing; the standard build also exports C++'s operator new
 * and delete (below).  Each function here is thin: the tcache hit paths of
 * malloc, free and calloc are inlined (core/fastpath.h; no call),
 * everything else is one call into api.c or info.c under the re-entry
 * mark (reentry.h).  Contracts are glibc 2.36's; see malloc(3) and
 * <malloc.h>.  All are thread-safe; none is async-signal-safe (as in glibc).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "chunkguard.h"
#include "cxxrepl.h"
#include "heapcheck.h"
#include "info.h"
#include "init.h"
#include "leaks.h"
#include "params.h"
#include "reentry.h"
#include "render.h"

#ifdef CHUNKGUARD_PREFIXED
#define CG_API(name) cg_##name
#else
#define CG_API(name) name
#endif
#define CG_PUBLIC __attribute__((visibility("default")))

#ifndef CHUNKGUARD_PREFIXED
/* C23's sized frees; glibc 2.36's headers do not declare them yet. */
void free_sized(void *mem, size_t n);
void free_aligned_sized(void *mem, size_t align, size_t n);
#endif

/*
 * The bodies of malloc and free, shared with the plain forms of operator
 * new and delete; inlined into each exported function.  how:
 * CG_FAMILY_MALLOC, or a C++ form's family (| CG_NEW_NOTHROW; api.h),
 * a constant the inline path never tests: it goes down as an argument of
 * the one set of slow paths (api.h), which name the form and record or
 * check its family.  The return address, read in the slow branches only,
 * is the exported function's.
 */

/* The allocating slow paths (api.h) the inline path below may take, for
 * a call of family. */
enum { VIA_SAMPLED = 1, VIA_HANDOFF, VIA_SLOW };   /* not 0: see api.h on family */
CG_INLINE void *alloc_via(size_t n, size_t align, int family, uintptr_t ra, int via,
                          cg_tcache_t *tc, size_t idx)
{
    return via == VIA_SAMPLED ? cg_malloc_sampled(n, ra, family)
         : via == VIA_HANDOFF ? cg_malloc_handoff(idx, tc, ra, cg_family_new_name(family), family)
                              : cg_malloc_slow(n, align, ra, family);
}

/* A C++ form's slow path via, with the form's contract when it gets no
 * block (api.h, cg_new_failed).  Out of line: the contract needs n after
 * the slow path returns, which, inlined, gave operator new's hit path a
 * stack frame (5 more instructions a call, callgrind). */
static CG_NOINLINE void *new_via(size_t n, size_t align, int how, uintptr_t ra, int via,
                                 cg_tcache_t *tc, size_t idx)
{
    void *p = alloc_via(n, align, CG_NEW_FAMILY(how), ra, via, tc, idx);
    return CG_LIKELY(p != NULL) ? p : cg_new_failed(n, align, how, ra);
}

/* The slow path via for a call of how (a constant: one call is left);
 * tc, idx: the thread's tcache and the request's bin for the hand-off
 * (VIA_HANDOFF), else unused. */
CG_INLINE void *alloc_slow(size_t n, size_t align, int how, uintptr_t ra, int via,
                           cg_tcache_t *tc, size_t idx)
{
    if (how == CG_FAMILY_MALLOC)
        return alloc_via(n, align, CG_FAMILY_MALLOC, ra, via, tc, idx);
    return new_via(n, align, how, ra, via, tc, idx);
}

/* A tcache hit, or the slow path.  The tcache is hidden from signal
 * handlers while it is used (reentry.h).  The return address is read only
 * on the way to a slow path: read up front, it cost the hit path a stack
 * adjustment and a load.  A C++ form's slow paths return a block or do
 * what its contract says when there is none. */
CG_INLINE void *alloc_inline(size_t n, int how)
{
    cg_tcache_t *tc = cg_self.tcache;
    if (CG_LIKELY(tc != NULL && n <= CG_TCACHE_MAX_REQ)) {
        size_t idx = cg_csize2tidx(cg_request2size(n));
        CG_FAST_ENTER();
        if (CG_SAMPLE_TURN())                           /* these two end the mark */
            return alloc_slow(n, 0, how, CG_RET_ADDR, VIA_SAMPLED, NULL, 0);
        void *mem = cg_tcache_hit(tc, idx, &tc->n_malloc);
        if (CG_LIKELY(mem != NULL))
            return mem;
        return alloc_slow(n, 0, how, CG_RET_ADDR, VIA_HANDOFF, tc, idx);
    }
    return alloc_slow(n, 0, how, CG_RET_ADDR, VIA_SLOW, NULL, 0);
}

/* The inline path takes a tcache-sized heap chunk; a sized or aligned
 * delete's arguments (sized: SIZE_MAX, salign: 0 when none) must fit it
 * first (a cheap test of the chunk size and the pointer's alignment:
 * fast mode's whole check, fast.c), or the slow path reports them. */
CG_INLINE void free_inline(void *mem, size_t sized, size_t salign, int family)
{
    cg_tcache_t *tc = cg_self.tcache;
    if (CG_LIKELY(tc != NULL) && CG_LIKELY(cg_heap_owns(mem)) &&
        (!CG_CHECK_ON(SIZED_FREE) || sized == SIZE_MAX ||
         CG_LIKELY(cg_heap_chunk_fits(cg_mem2chunk(mem), sized))) &&
        (!CG_CHECK_ON(SIZED_FREE) || salign == 0 ||
         CG_LIKELY(((uintptr_t)mem & (salign - 1)) == 0))) {
        CG_FAST_ENTER();
        int r = cg_free_fast(tc, mem);
        if (CG_LIKELY(r == CG_FREE_DONE))
            CG_FAST_LEAVE(tc);
        else if (r == CG_FREE_FAST_FULL)                /* these end the mark */
            cg_free_to_fastbin(mem, tc, CG_RET_ADDR, family);
        else if (r == CG_FREE_BIN_FULL)
            cg_free_to_arena(mem, tc, CG_RET_ADDR, family);
        else
            cg_free_owned(mem, tc, CG_RET_ADDR, cg_family_delete_name(family), family);
        return;
    }
    cg_free_slow(mem, sized, salign, CG_RET_ADDR, family);
}

/* malloc - n bytes, 16-byte aligned; malloc(0) returns a unique minimum
 * block.  NULL with errno ENOMEM when out of memory or n > PTRDIFF_MAX. */
CG_HOT_ENTRY CG_PUBLIC void *CG_API(malloc)(size_t n)
{
    return alloc_inline(n, CG_FAMILY_MALLOC);
}

/* free - release a block; free(NULL) does nothing.  Preserves errno.
 * A pointer that is not a live block of ours is reported (invalid-free,
 * double-free, heap-corruption) and the process aborts. */
CG_HOT_ENTRY CG_PUBLIC void CG_API(free)(void *mem)
{
    free_inline(mem, SIZE_MAX, 0, CG_FAMILY_MALLOC);
}

/* calloc - nmemb * size zeroed bytes; NULL with ENOMEM on overflow. */
CG_HOT_ENTRY CG_PUBLIC void *CG_API(calloc)(size_t nmemb, size_t size)
{
    cg_tcache_t *tc = cg_self.tcache;
    size_t bytes;
    if (CG_LIKELY(tc != NULL && !__builtin_mul_overflow(nmemb, size, &bytes) &&
                  bytes <= CG_TCACHE_MAX_REQ)) {
        size_t csz = cg_request2size(bytes), idx = cg_csize2tidx(csz);
        CG_FAST_ENTER();
        if (CG_SAMPLE_TURN())
            return cg_calloc_sampled(bytes, CG_RET_ADDR);   /* ends the mark */
        void *mem = cg_tcache_hit(tc, idx, &tc->n_calloc);
        if (CG_LIKELY(mem != NULL)) {
            cg_clear(mem, csz - CG_SIZE_SZ);
            return mem;
        }
        return cg_calloc_handoff(nmemb, size, tc, CG_RET_ADDR);   /* ends the mark */
    }
    return cg_calloc_slow(nmemb, size, CG_RET_ADDR);
}

/* realloc - resize, keeping the first min(old, n) bytes.  realloc(NULL, n)
 * is malloc(n); realloc(p, 0) frees p and returns NULL (glibc 2.36).  On
 * failure returns NULL with ENOMEM and p stays valid. */
CG_HOT_ENTRY CG_PUBLIC void *CG_API(realloc)(void *mem, size_t n)
{
    uintptr_t ra = CG_RET_ADDR;
    cg_ensure_init();
    CG_GUARDED(cg_reentry_realloc(mem, n, ra), cg_realloc_impl(mem, n, ra));
}

/* reallocarray - realloc(mem, nmemb * size), failing with ENOMEM on
 * overflow (mem untouched). */
CG_PUBLIC void *CG_API(reallocarray)(void *mem, size_t nmemb, size_t size)
{
    uintptr_t ra = CG_RET_ADDR;
    size_t bytes;
    cg_ensure_init();
    CG_GUARDED(__builtin_mul_overflow(nmemb, size, &bytes) ? (errno = ENOMEM, NULL)
                                                          : cg_reentry_realloc(mem, bytes, ra),
               cg_reallocarray_impl(mem, nmemb, size, ra));
}

/* memalign - n bytes aligned to align (rounded up to a power of two);
 * EINVAL if align > SIZE_MAX/2 + 1, ENOMEM when out of memory. */
CG_PUBLIC void *CG_API(memalign)(size_t align, size_t n)
{
    uintptr_t ra = CG_RET_ADDR;
    cg_ensure_init();
    CG_GUARDED(cg_reentry_memalign(align, n, ra, CG_OP(memalign)),
               cg_memalign_impl(align, n, ra, CG_OP(memalign)));
}

/* aligned_alloc - as memalign (glibc 2.36 accepts any alignment). */
CG_PUBLIC void *CG_API(aligned_alloc)(size_t align, size_t n)
{
    uintptr_t ra = CG_RET_ADDR;
    cg_ensure_init();
    CG_GUARDED(cg_reentry_memalign(align, n, ra, CG_OP(aligned_alloc)),
               cg_memalign_impl(align, n, ra, CG_OP(aligned_alloc)));
}

/* posix_memalign - 0 and *memptr set, or EINVAL (align not a power of two
 * multiple of sizeof(void *)) or ENOMEM, *memptr untouched.  errno is kept,
 * except that ENOMEM also leaves errno == ENOMEM (as glibc 2.36 does). */
CG_PUBLIC int CG_API(posix_memalign)(void **memptr, size_t align, size_t n)
{
    uintptr_t ra = CG_RET_ADDR;
    cg_ensure_init();
    CG_GUARDED(cg_posix_memalign_with(memptr, align, n, ra, cg_reentry_memalign),
               cg_posix_memalign_with(memptr, align, n, ra, cg_memalign_impl));
}

/* valloc - n bytes aligned to the page size. */
CG_PUBLIC void *CG_API(valloc)(size_t n)
{
    uintptr_t ra = CG_RET_ADDR;
    cg_ensure_init();
    CG_GUARDED(cg_reentry_valloc(n, false, ra, CG_OP(valloc)),
               cg_valloc_impl(n, false, ra, CG_OP(valloc)));
}

/* pvalloc - n rounded up to whole pages (at least one), page aligned. */
CG_PUBLIC void *CG_API(pvalloc)(size_t n)
{
    uintptr_t ra = CG_RET_ADDR;
    cg_ensure_init();
    CG_GUARDED(cg_reentry_valloc(n, true, ra, CG_OP(pvalloc)),
               cg_valloc_impl(n, true, ra, CG_OP(pvalloc)));
}

/* malloc_usable_size - bytes usable in the block (>= what was asked);
 * 0 for NULL or a freed heap block.  A foreign pointer is reported. */
CG_PUBLIC size_t CG_API(malloc_usable_size)(void *mem)
{
    uintptr_t ra = CG_RET_ADDR;
    cg_ensure_init();
    CG_GUARDED(cg_reentry_usable(mem, ra), cg_usable_size_impl(mem, ra));
}

/* free_sized (C23) - free a block whose requested size was n; a size that
 * cannot be it is reported (free-size-mismatch): in debug and guard mode
 * any other size, in fast mode one larger than the block or too small for
 * a request its chunk could have served (the chunk is all fast mode
 * knows).  C23 makes any other size undefined; glibc has free_sized from
 * 2.43 on. */
CG_PUBLIC void CG_API(free_sized)(void *mem, size_t n)
{
    uintptr_t ra = CG_RET_ADDR;
    cg_ensure_init();
    CG_GUARDED_VOID(cg_reentry_free(mem, ra, CG_OP(free_sized)),
                    cg_free_sized_impl(mem, 0, n, ra, CG_OP(free_sized)));
}

/* free_aligned_sized (C23) - free a block from aligned_alloc(align, n);
 * a wrong size or alignment is reported (free-size-mismatch). */
CG_PUBLIC void CG_API(free_aligned_sized)(void *mem, size_t align, size_t n)
{
    uintptr_t ra = CG_RET_ADDR;
    cg_ensure_init();
    CG_GUARDED_VOID(cg_reentry_free(mem, ra, CG_OP(free_aligned_sized)),
                    cg_free_sized_impl(mem, align, n, ra, CG_OP(free_aligned_sized)));
}

#ifndef CHUNKGUARD_PREFIXED
/* glibc's internal names, used by some programs and by libc itself.  The
 * aliases need not repeat the targets' optimisation attributes. */
#pragma GCC diagnostic ignored "-Wmissing-attributes"
__typeof__(malloc) __libc_malloc __attribute__((alias("malloc"), visibility("default")));
__typeof__(free) __libc_free __attribute__((alias("free"), visibility("default")));
__typeof__(calloc) __libc_calloc __attribute__((alias("calloc"), visibility("default")));
__typeof__(realloc) __libc_realloc __attribute__((alias("realloc"), visibility("default")));
__typeof__(memalign) __libc_memalign __attribute__((alias("memalign"), visibility("default")));
__typeof__(valloc) __libc_valloc __attribute__((alias("valloc"), visibility("default")));
__typeof__(pvalloc) __libc_pvalloc __attribute__((alias("pvalloc"), visibility("default")));
#endif

#ifndef CHUNKGUARD_PREFIXED
/*
 * ---- C++: operator new and delete, every form libstdc++ exports --------
 *
 * So a C++ program is served by chunkguard directly (not through
 * libstdc++'s forms, which call malloc and free and lose what the block
 * is), and each block records its family (base/call.h): debug mode then
 * reports a release by another family (alloc-dealloc-mismatch) and a
 * sized or aligned delete whose size or alignment is not the block's
 * (new-delete-type-mismatch); fast mode checks a sized delete's size
 * against the chunk (fast.c).  The plain forms take malloc's and free's
 * inline paths, as fast as they are.  Contracts: C++17 [new.delete], as
 * libstdc++ (GCC 12) keeps them:
 *   new(n)        n bytes (n == 0: a unique block), 16-byte aligned; when
 *                 none can be had, calls the new_handler and tries again
 *                 as long as one is installed, then throws std::bad_alloc
 *   new(n, al)    aligned to al (std::align_val_t: a power of two, else
 *                 std::bad_alloc at once)
 *   nothrow forms the same, but NULL instead of the throw (a handler's
 *                 throw too)
 *   delete(p)     p from the same family's new, or NULL (nothing); the
 *                 sized forms get the size new was given, the aligned
 *                 forms the alignment; nothrow forms as the plain ones
 * All thread-safe; none is async-signal-safe.  The names are the Itanium
 * C++ ABI's manglings on x86_64 (size_t is unsigned long: m); a report
 * names them demangled (report/symbolize.c).
 */
/* Weak, as libstdc++'s own are: they are replaceable ([replacement.functions]),
 * so a program that defines one of them keeps its own — also when it
 * links libchunkguard.a, which would otherwise clash with it. */
#define CG_REPLACEABLE __attribute__((weak, visibility("default")))
#define CG_CXX_OP(name, ret, params, args, kind, family, serves, demangled) ret name params;
#include "cxxops.def"
#undef CG_CXX_OP

/* Our own definitions, by form: hidden aliases (defined below), which stay
 * ours when a program's definition takes the exported name. */
#define CG_CXX_OP(name, ret, params, args, kind, family, serves, demangled) \
    extern __typeof__(name) cg_own_##name CG_HIDDEN;
#include "cxxops.def"
#undef CG_CXX_OP

#define CG_ARGS(...) __VA_ARGS__        /* a table's (a, b) list, unbraced */

/* An operator new's body: n bytes for how (the family | CG_NEW_NOTHROW;
 * a constant, so one branch is left).  The aligned forms take a slow path
 * always, as memalign does; the others take malloc's inline path. */
CG_INLINE void *serve_new(size_t n, size_t al, int how)
{
    int family = CG_NEW_FAMILY(how);
    if (family == CG_FAMILY_NEW_ALIGNED || family == CG_FAMILY_NEW_ARRAY_ALIGNED)
        return alloc_slow(n, al, how, CG_RET_ADDR, VIA_SLOW, NULL, 0);
    return alloc_inline(n, how);
}

/*
 * Each form, from its line of cxxops.def: route_<mangled>, its call when
 * our forms may not serve (cxxrepl.h) — libstdc++'s definition, or ours
 * after all (cg_cxx_serving is CG_CXX_OURS then) — and the form itself,
 * which tests that first and else serves the call inline.  The route is
 * out of line and called last, so the inline paths keep no value across
 * it (they would need a stack frame).  FORM_<kind>(mangled, parameters,
 * arguments, how, serves); the forms' contracts are above.
 */
#define FORM_NEW(name, params, args, how, serves)                       \
    static CG_NOINLINE void *route_##name params                         \
    {                                                                    \
        void *fn = cg_cxx_default(CG_CXX_##name);                        \
        if (fn != NULL)                                                  \
            return ((__typeof__(&name))fn) args;                         \
        else                                                             \
            return cg_own_##name args;                                   \
    }                                                                    \
                                                                         \
    CG_REPLACEABLE void *name params                                     \
    {                                                                    \
        if (CG_UNLIKELY(CG_CXX_ROUTED()))                                \
            return route_##name args;                                    \
        return serve_new(CG_ARGS serves, how);                           \
    }
#define FORM_NEW_NOTHROW(name, params, args, family, serves) \
    FORM_NEW(name, params, args, (family) | CG_NEW_NOTHROW, serves)
#define FORM_DELETE(name, params, args, family, serves)                 \
    static CG_NOINLINE void route_##name params                          \
    {                                                                    \
        void *fn = cg_cxx_default(CG_CXX_##name);                        \
        if (fn != NULL)                                                  \
            ((__typeof__(&name))fn) args;                                \
        else                                                             \
            cg_own_##name args;                                          \
    }                                                                    \
                                                                         \
    CG_REPLACEABLE void name params                                      \
    {                                                                    \
        if (CG_UNLIKELY(CG_CXX_ROUTED())) {                              \
            route_##name args;                                           \
            return;                                                      \
        }                                                                \
        free_inline(CG_ARGS serves, family);                             \
    }
#define CG_CXX_OP(name, ret, params, args, kind, family, serves, demangled) \
    FORM_##kind(name, params, args, family, serves)
#include "cxxops.def"
#undef CG_CXX_OP
#undef FORM_NEW
#undef FORM_NEW_NOTHROW
#undef FORM_DELETE

/* Our own definitions, by form (cxxrepl.h): hidden aliases, which stay
 * ours when a program's definition takes the exported name. */
#define CG_CXX_OP(name, ret, params, args, kind, family, serves, demangled) \
    extern __typeof__(name) cg_own_##name __attribute__((alias(#name), visibility("hidden")));
#include "cxxops.def"
#undef CG_CXX_OP
void *const cg_cxx_own[CG_CXX_FORMS] = {
#define CG_CXX_OP(name, ret, params, args, kind, family, serves, demangled) (void *)cg_own_##name,
#include "cxxops.def"
#undef CG_CXX_OP
};
#endif /* !CHUNKGUARD_PREFIXED */

/* ---- tuning and introspection (info.c) -------------------------------- */

/* mallopt - set a parameter: M_MXFAST (0..160 bytes), M_TRIM_THRESHOLD,
 * M_TOP_PAD, M_MMAP_THRESHOLD (bytes), M_MMAP_MAX, M_PERTURB
 * (fill byte), M_ARENA_TEST, M_ARENA_MAX.  Setting a threshold turns off
 * the dynamic mmap threshold.  Returns 0 for a value out of range
 * (M_MXFAST above 160), else 1 — also for a parameter it does not know,
 * as glibc 2.36 does. */
CG_PUBLIC int CG_API(mallopt)(int param, int value)
{
    uintptr_t ra = CG_RET_ADDR;
    cg_ensure_init();
    const cg_call_t call = cg_call_at(ra, CG_OP(mallopt));
    CG_GUARDED((cg_reentry_query(CG_OP(mallopt), ra), 0), cg_param_set(param, value, &call));
}

/* The introspection calls below walk the arenas under their locks, so a
 * call from inside chunkguard (a signal handler that interrupted it, or a
 * report callback) cannot be served: it is counted (cg_get_stats'
 * reentrant_calls; reported in an instrumented mode) and gets zeros, or
 * writes nothing. */

static struct mallinfo2 mallinfo_guarded(const char *op, uintptr_t ra)
{
    cg_ensure_init();
    const cg_call_t call = cg_call_at(ra, op);
    CG_GUARDED((cg_reentry_query(op, ra), (struct mallinfo2){ 0 }), cg_mallinfo2_impl(&call));
}

/* mallinfo2 - heap statistics summed over all arenas (bytes). */
CG_PUBLIC struct mallinfo2 CG_API(mallinfo2)(void)
{
    return mallinfo_guarded(CG_OP(mallinfo2), CG_RET_ADDR);
}

/* mallinfo - the deprecated int-sized form of mallinfo2 (values wrap, as
 * in glibc). */
CG_PUBLIC struct mallinfo CG_API(mallinfo)(void)
{
    struct mallinfo2 m2 = mallinfo_guarded(CG_OP(mallinfo), CG_RET_ADDR);
    struct mallinfo m = {
        .arena = (int)m2.arena, .ordblks = (int)m2.ordblks, .smblks = (int)m2.smblks,
        .hblks = (int)m2.hblks, .hblkhd = (int)m2.hblkhd, .usmblks = (int)m2.usmblks,
        .fsmblks = (int)m2.fsmblks, .uordblks = (int)m2.uordblks,
        .fordblks = (int)m2.fordblks, .keepcost = (int)m2.keepcost,
    };
    return m;
}

#ifndef CHUNKGUARD_PREFIXED
/* _exit, _Exit - end the process at once with status, as glibc's do (the
 * exit_group system call: no atexit handler, destructor or stdio flush).
 * In debug and guard mode the blocks are checked first, as at exit (not
 * for leaks; in a forked child, the blocks it freed itself): a child that
 * ends with _exit would otherwise take a write after free away unseen.
 * Nothing is checked when called
 * from inside chunkguard (a signal handler interrupting it) or once a
 * report is ending the process. */
CG_PUBLIC CG_FORK_PATH _Noreturn void _exit(int status)
{
    cg_exit_now(status);
}

CG_PUBLIC CG_FORK_PATH _Noreturn void _Exit(int status)
{
    cg_exit_now(status);
}

#endif

/* malloc_trim - give free memory back to the OS: trim every arena's top to
 * pad bytes (plus a page) and release the whole pages inside free chunks.
 * Returns 1 if any memory was released. */
CG_PUBLIC int CG_API(malloc_trim)(size_t pad)
{
    uintptr_t ra = CG_RET_ADDR;
    cg_ensure_init();
    const cg_call_t call = cg_call_at(ra, CG_OP(malloc_trim));
    CG_GUARDED((cg_reentry_query(CG_OP(malloc_trim), ra), 0), cg_malloc_trim_impl(pad, &call));
}

/* malloc_stats - per-arena and total bytes to stderr (glibc's layout);
 * written with write(2), never allocating. */
CG_PUBLIC void CG_API(malloc_stats)(void)
{
    uintptr_t ra = CG_RET_ADDR;
    cg_ensure_init();
    const cg_call_t call = cg_call_at(ra, CG_OP(malloc_stats));
    CG_GUARDED_VOID(cg_reentry_query(CG_OP(malloc_stats), ra), cg_malloc_stats_impl(&call));
}

/* malloc_info - the heap as XML on fp.  Returns 0, or EINVAL (the value,
 * errno untouched, as glibc 2.36 does) when options is not 0. */
CG_PUBLIC int CG_API(malloc_info)(int options, FILE *fp)
{
    uintptr_t ra = CG_RET_ADDR;
    cg_ensure_init();
    const cg_call_t call = cg_call_at(ra, CG_OP(malloc_info));
    CG_GUARDED((cg_reentry_query(CG_OP(malloc_info), ra), 0),
               cg_malloc_info_impl(options, fp, &call));
}

/* cg_get_stats - see chunkguard.h. */
CG_PUBLIC void cg_get_stats(cg_stats_t *out)
{
    uintptr_t ra = CG_RET_ADDR;
    cg_ensure_init();
    const cg_call_t call = cg_call_at(ra, CG_OP(cg_get_stats));
    CG_GUARDED_VOID((cg_reentry_query(CG_OP(cg_get_stats), ra), *out = (cg_stats_t){ 0 },
                     out->reentrant_calls = cg_reentry_count()),
                    (cg_get_stats_impl(out, &call), out->reentrant_calls = cg_reentry_count()));
}

/* cg_set_report_callback - see chunkguard.h. */
CG_PUBLIC void cg_set_report_callback(cg_report_callback_t cb, void *arg)
{
    cg_set_report_callback_impl(cb, arg);
}

/* cg_describe - see chunkguard.h.  Served inside too (a report callback
 * may describe the block it is told about): it takes no arena lock. */
CG_PUBLIC size_t cg_describe(const void *addr, char *buf, size_t cap)
{
    cg_ensure_init();
    const cg_call_t call = cg_call_at(CG_RET_ADDR, CG_OP(cg_describe));
    cg_vg_quiet_begin();    /* reads memory kept from the program (vgclient.h) */
    size_t n = cg_describe_impl(addr, buf, cap, &call);
    cg_vg_quiet_end();
    return n;
}

/* cg_leak_check - see chunkguard.h. */
CG_PUBLIC size_t cg_leak_check(void)
{
    uintptr_t ra = CG_RET_ADDR;
    cg_ensure_init();
    CG_GUARDED((cg_reentry_query(CG_OP(cg_leak_check), ra), 0), cg_leak_check_impl());
}

/* cg_verify_heap - see chunkguard.h. */
CG_PUBLIC size_t cg_verify_heap(void)
{
    uintptr_t ra = CG_RET_ADDR;
    cg_ensure_init();
    const cg_call_t call = cg_call_at(ra, CG_OP(cg_verify_heap));
    CG_GUARDED((cg_reentry_query(CG_OP(cg_verify_heap), ra), SIZE_MAX), cg_verify_heap_impl(&call));
}
