/*
 * api.c — the slow paths of malloc, free, calloc, realloc and the memalign
 * family: what every mode shares (initialisation, the re-entry mark, the C
 * contract's argument checks, the operation count), then the mode's table
 * (core/mode.h).  And the hand-offs from the inline paths (fastpath.h),
 * which only a mode with a tcache reaches.  Contracts follow glibc 2.36
 * (see each function in interpose.c).
 */
#include "api.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "bins.h"
#include "heapcheck.h"
#include "init.h"
#include "mode.h"
#include "options.h"
#include "reentry.h"

enum { OP_MALLOC, OP_FREE, OP_CALLOC, OP_REALLOC, OP_MEMALIGN };

/* A thread's first slow path: in a mode with tcaches create its tcache and
 * arrange for it to be flushed when the thread exits (base/thread.h has
 * the states).  With verify_interval no thread gets one, so every
 * operation falls through the inline paths to a slow path and comes here,
 * where the heap check is counted; the paths of a process without
 * verify_interval are untouched.  caller, op, mt: the call being served
 * (its tcache is this function's answer). */
static cg_tcache_t *thread_start(uintptr_t caller, const char *op, bool mt) CG_NOINLINE;
CG_HOT_TEXT static cg_tcache_t *thread_start(uintptr_t caller, const char *op, bool mt)
{
    if (mt) {                              /* threads: fork needs the handlers */
        cg_callout_t co = cg_callout_begin();
        cg_fork_handlers_need();
        cg_callout_end(co);
    }
    if (!cg_mode.tcache) {
        if (cg_mode.name == NULL)          /* not before init has chosen */
            return NULL;
        cg_self.state = CG_T_UNCACHED;
        if (cg_mode.thread_start != NULL) {
            cg_mode.thread_start();
            cg_callout_t co = cg_callout_begin();   /* may allocate its key block */
            cg_thread_register_exit(NULL);
            cg_callout_end(co);
        }
        return NULL;
    }
    const cg_call_t call = { .caller = caller, .op = op, .tc = NULL, .mt = mt };
    if (CG_UNLIKELY(cg_opt.verify_interval != 0)) {
        cg_verify_tick_slow(&call);
        return NULL;
    }
    cg_tcache_t *tc = cg_tcache_init(&call);
    if (tc != NULL) {
        cg_callout_t co = cg_callout_begin();   /* may allocate its key block */
        cg_thread_register_exit(tc);
        cg_callout_end(co);
    }
    if (cg_mode.thread_start != NULL)
        cg_mode.thread_start();
    return tc;
}

/* Start of every slow path (inside): the call being served (passed down
 * to whatever may report or lock: base/call.h), counted, with this
 * thread's tcache, created on first use in a mode that has one.  The
 * caller keeps it in a const object, so its fields stay in registers
 * across the calls that get its address.  family: the call's allocation
 * family (base/call.h), in the one initialiser (set afterwards, it cost
 * the tcache-miss hand-off a few instructions). */
CG_INLINE cg_call_t enter_as(uintptr_t caller, const char *op, int opidx, int family)
{
    bool mt = !CG_SINGLE_THREAD_P;
    cg_tcache_t *tc = cg_self.cache;
    if (CG_UNLIKELY(cg_self.state == CG_T_NEW))
        tc = thread_start(caller, op, mt);
    if (tc != NULL)
        CG_COUNT((&tc->n_malloc)[opidx]);
    else
        CG_ADD_IF(&cg_exited_counts[opidx], 1, mt);
    return (cg_call_t){ .caller = caller, .op = op, .tc = tc, .mt = mt, .family = (uint8_t)family };
}

/* enter_as for a call of C's malloc family. */
CG_INLINE cg_call_t enter(uintptr_t caller, const char *op, int opidx)
{
    return enter_as(caller, op, opidx, CG_FAMILY_MALLOC);
}

/* memalign's contract for a call of family (base/call.h). */
static void *memalign_as(size_t align, size_t n, uintptr_t caller, const char *op, int family)
{
    cg_ensure_init();
    const cg_call_t c = enter_as(caller, op, OP_MEMALIGN, family);
    int err = cg_memalign_args(&align, n);
    if (err != 0) {
        errno = err;
        return NULL;
    }
    return cg_mode.memalign(align, n, &c);
}

/* One allocation for a call of family: malloc's or, with an alignment
 * (align, a power of two), memalign's. */
CG_INLINE void *alloc_block(size_t n, size_t align, int family, uintptr_t caller)
{
    const char *op = cg_family_new_name(family);
    if (align == 0) {
        const cg_call_t c = enter_as(caller, op, OP_MALLOC, family);
        return cg_mode.malloc(n, &c);
    }
    return memalign_as(align, n, caller, op, family);
}

/* One attempt under the mark (or the re-entrant path's). */
CG_INLINE void *alloc_try(size_t n, size_t align, int family, uintptr_t caller)
{
    cg_ensure_init();
    CG_GUARDED(cg_reentry_alloc(n, align, caller, cg_family_new_name(family)),
               alloc_block(n, align, family, caller));
}

void *cg_malloc_try(size_t n, size_t align, uintptr_t caller, int family)
{
    return alloc_try(n, align, family, caller);
}

CG_HOT_TEXT void *cg_malloc_slow(size_t n, size_t align, uintptr_t caller, int family)
{
    return (align & (align - 1)) == 0 ? alloc_try(n, align, family, caller) : NULL;
}

/* cg_malloc_handoff, cg_free_owned and cg_free_to_arena are entered from
 * the inline paths with the mark of their fast path still set (the tcache
 * hidden, so the thread is known not to be inside already, and known to
 * have a tcache, so initialised and in a mode with one): they only note
 * that a slow path runs, and end the mark. */
CG_INLINE void handoff_begin(void)
{
    cg_self.inside = 1;         /* the tcache is cg_self.cache already */
    CG_SIGNAL_FENCE();
}

/* The allocating hand-offs also free what signal handlers left pending
 * (the free ones need not: every slow allocation drains). */
CG_INLINE void handoff_begin_alloc(void)
{
    handoff_begin();
    cg_reentry_drain_pending();
}

/* The call of a hand-off: the inline path had the thread's tcache tc, so
 * its state is CG_T_CACHED (no thread start to make, nothing to test). */
CG_INLINE cg_call_t handoff_call(cg_tcache_t *tc, uintptr_t caller, const char *op, int opidx,
                                 int family)
{
    CG_COUNT((&tc->n_malloc)[opidx]);
    return (cg_call_t){ .caller = caller, .op = op, .tc = tc, .mt = !CG_SINGLE_THREAD_P,
                        .family = (uint8_t)family };
}

CG_HOT_TEXT void *cg_malloc_handoff(size_t idx, cg_tcache_t *tc, uintptr_t caller, const char *op,
                                    int family)
{
    /* What the inline path found before it came here (api.h): a tcache
     * (so none to test for NULL) and a request of bin idx's size (so no
     * ENOMEM test, and the chunk size is the bin's). */
    if (tc == NULL || idx >= CG_TCACHE_BINS)
        __builtin_unreachable();
    handoff_begin_alloc();
    const cg_call_t c = handoff_call(tc, caller, op, OP_MALLOC, family);
    void *p = cg_malloc_chunk_mem(cg_tidx2csize(idx), &c);
    cg_inside_end();
    return p;
}

/* The inline paths' sampled hand-offs: the sampler's count-down reached 0
 * (CG_SAMPLE_TURN), so the table serves the call — the sampler's, when
 * sampling is on (debug/sample.h).  Entered with the mark set, as the
 * other hand-offs. */
/* family: malloc's, or operator new's for its plain forms. */
CG_INLINE void *sampled(size_t n, uintptr_t caller, const char *api, int op, int family)
{
    handoff_begin_alloc();
    const cg_call_t c = enter_as(caller, api, op, family);
    void *p = op == OP_CALLOC ? cg_mode.calloc(n, &c) : cg_mode.malloc(n, &c);
    cg_inside_end();
    return p;
}

void *cg_malloc_sampled(size_t n, uintptr_t caller, int family)
{
    return sampled(n, caller, cg_family_new_name(family), OP_MALLOC, family);
}

void *cg_calloc_sampled(size_t bytes, uintptr_t caller)
{
    return sampled(bytes, caller, CG_OP(calloc), OP_CALLOC, CG_FAMILY_MALLOC);
}

/* A block served to a signal handler (reentry.c), now given back. */
CG_INLINE bool reentry_block(void *mem)
{
    return CG_UNLIKELY(CG_LOAD(cg_reentry_live) != 0) && cg_reentry_release(mem);
}

/* A release on a slow path (inside): a block served to a signal handler
 * goes back, any other to the mode's free.  sized, salign: as the table's
 * free takes them; op, family: the call's. */
CG_INLINE void release_as(void *mem, size_t sized, size_t salign, uintptr_t caller,
                          const char *op, int family)
{
    if (reentry_block(mem))
        return;
    const cg_call_t c = enter_as(caller, op, OP_FREE, family);
    cg_mode.free(mem, sized, salign, &c);
}

CG_HOT_TEXT void cg_free_slow(void *mem, size_t sized, size_t salign, uintptr_t caller, int family)
{
    if (mem == NULL)
        return;
    const char *op = cg_family_delete_name(family);
    cg_ensure_init();
    CG_GUARDED_VOID(cg_reentry_free(mem, caller, op),
                    release_as(mem, sized, salign, caller, op, family));
}

/* The family of a deferred free is not known (the pending table keeps
 * only the pointer): not checked. */
void cg_free_deferred(void *mem)
{
    release_as(mem, SIZE_MAX, 0, 0, CG_OP(free), CG_FAMILY_UNKNOWN);
}

/* None of the free paths changes errno: the OS calls they may make
 * (munmap, madvise, futex) preserve it in platform.c. */
/* The out-of-line frees called from the inline path, which has found the
 * thread's tcache and validated ownership: the call, counted. */
CG_INLINE cg_call_t free_enter(cg_tcache_t *tc, uintptr_t caller, const char *op, int family)
{
    CG_COUNT(tc->n_free);
    return (cg_call_t){ .caller = caller, .op = op, .tc = tc, .mt = !CG_SINGLE_THREAD_P,
                        .family = (uint8_t)family };
}

CG_HOT_TEXT void cg_free_owned(void *mem, cg_tcache_t *tc, uintptr_t caller, const char *op,
                               int family)
{
    handoff_begin();
    const cg_call_t call = free_enter(tc, caller, op, family);
    cg_chunk_t *c = cg_mem2chunk(mem);
    cg_check_heap_size(c, CG_USE_FREE, &call);
    cg_release_heap(c, &call, tc);
    cg_inside_end();
}

CG_HOT_TEXT void cg_free_to_arena(void *mem, cg_tcache_t *tc, uintptr_t caller, int family)
{
    handoff_begin();
    const cg_call_t call = free_enter(tc, caller, cg_family_delete_name(family), family);
    cg_chunk_t *c = cg_mem2chunk(mem);
    cg_arena_free_whole(cg_arena_of(c), c, &call);   /* no further call: bins.h */
    cg_inside_end();
}

/* A single-threaded process's push whose checks all pass is made here
 * with no call value and no frame (fastbin.h, cg_fast_free_quick): the
 * thread is not marked inside (the inline path's mark, cg_self.tcache
 * NULL, already sends a signal handler's call to the re-entrant path, as
 * on the inline path itself), and the mark ends as the inline path ends
 * it.  Anything else, and every report, is cg_free_to_arena's. */
CG_HOT_TEXT void cg_free_to_fastbin(void *mem, cg_tcache_t *tc, uintptr_t caller, int family)
{
    cg_chunk_t *c = cg_mem2chunk(mem);
    if (CG_SINGLE_THREAD_P &&
        CG_LIKELY(cg_fast_free_quick(cg_arena_of(c), c, cg_csize_unlocked(c)))) {
        CG_COUNT(tc->n_free);
        CG_FAST_LEAVE(tc);
        return;
    }
    cg_free_to_arena(mem, tc, caller, family);
}

void cg_free_sized_impl(void *mem, size_t align, size_t n, uintptr_t caller, const char *op)
{
    if (mem == NULL)
        return;
    cg_ensure_init();
    release_as(mem, n, align, caller, op, CG_FAMILY_MALLOC);
}

CG_HOT_TEXT static void *calloc_slow(size_t nmemb, size_t size, uintptr_t caller)
{
    size_t bytes;
    bool bad = __builtin_mul_overflow(nmemb, size, &bytes) || bytes > CG_MAX_REQUEST;
    const cg_call_t c = enter(caller, CG_OP(calloc), OP_CALLOC);
    if (CG_UNLIKELY(bad)) {
        errno = ENOMEM;
        return NULL;
    }
    return cg_mode.calloc(bytes, &c);
}

/* A handler re-entering calloc: mmap'd pages read zero. */
static void *reentry_calloc(size_t nmemb, size_t size, uintptr_t caller)
{
    size_t bytes;
    if (__builtin_mul_overflow(nmemb, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return cg_reentry_alloc(bytes, 0, caller, CG_OP(calloc));
}

CG_HOT_TEXT void *cg_calloc_slow(size_t nmemb, size_t size, uintptr_t caller)
{
    cg_ensure_init();
    CG_GUARDED(reentry_calloc(nmemb, size, caller), calloc_slow(nmemb, size, caller));
}

/* The inline path checked the size (at most a tcache request). */
CG_HOT_TEXT void *cg_calloc_handoff(size_t nmemb, size_t size, cg_tcache_t *tc, uintptr_t caller)
{
    handoff_begin_alloc();
    const cg_call_t c = handoff_call(tc, caller, CG_OP(calloc), OP_CALLOC, CG_FAMILY_MALLOC);
    void *p = cg_calloc_mem_inline(nmemb * size, &c);
    cg_inside_end();
    return p;
}

/* realloc of a block a signal handler got (reentry.c): an ordinary block
 * now, the old one unmapped. */
static void *realloc_reentry_block(void *mem, size_t n, size_t old, uintptr_t caller)
{
    if (n == 0) {
        cg_reentry_release(mem);
        return NULL;
    }
    const cg_call_t c = enter(caller, CG_OP(realloc), OP_REALLOC);
    void *p = cg_mode.malloc(n, &c);
    if (p != NULL) {
        memcpy(p, mem, old < n ? old : n);
        cg_reentry_release(mem);
    }
    return p;
}

CG_HOT_TEXT void *cg_realloc_impl(void *mem, size_t n, uintptr_t caller)
{
    cg_ensure_init();
    size_t sig_size;
    if (CG_UNLIKELY(CG_LOAD(cg_reentry_live) != 0) && cg_reentry_owns(mem, &sig_size))
        return realloc_reentry_block(mem, n, sig_size, caller);
    const cg_call_t c = enter(caller, CG_OP(realloc), OP_REALLOC);
    return cg_mode.realloc(mem, n, &c);
}

void *cg_reallocarray_impl(void *mem, size_t nmemb, size_t size, uintptr_t caller)
{
    size_t bytes;
    if (__builtin_mul_overflow(nmemb, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return cg_realloc_impl(mem, bytes, caller);
}

int cg_memalign_args(size_t *align, size_t n)
{
    size_t a = *align;
    if (a <= CG_ALIGN)
        return 0;
    if (a > SIZE_MAX / 2 + 1)                       /* glibc: EINVAL above SIZE_MAX/2+1 */
        return EINVAL;
    if (a & (a - 1))                                /* glibc rounds up to a power of two */
        a = (size_t)1 << (64 - __builtin_clzl(a));
    *align = a;
    if (a > CG_MAX_REQUEST || n > CG_MAX_REQUEST - a - CG_MINSIZE)
        return ENOMEM;
    return 0;
}

void *cg_memalign_impl(size_t align, size_t n, uintptr_t caller, const char *op)
{
    return memalign_as(align, n, caller, op, CG_FAMILY_MALLOC);
}

int cg_posix_memalign_with(void **memptr, size_t align, size_t n, uintptr_t caller,
                           void *(*alloc)(size_t align, size_t n, uintptr_t caller, const char *op))
{
    if (align % sizeof(void *) != 0 || (align & (align - 1)) != 0 || align == 0)
        return EINVAL;
    /* errno: kept on success and for EINVAL; ENOMEM on failure, as
     * glibc's posix_memalign leaves it (its allocator sets it; glibc's
     * own tests rely on it). */
    int saved = errno;
    void *p = alloc(align, n, caller, CG_OP(posix_memalign));
    if (p == NULL) {
        errno = ENOMEM;
        return ENOMEM;
    }
    errno = saved;
    *memptr = p;
    return 0;
}

void *cg_valloc_impl(size_t n, bool round_size, uintptr_t caller, const char *op)
{
    cg_ensure_init();
    if (round_size && (n = cg_pvalloc_bytes(n)) == 0) {   /* pvalloc: whole pages */
        errno = ENOMEM;
        return NULL;
    }
    return cg_memalign_impl(cg_pagesize, n, caller, op);
}

size_t cg_usable_size_impl(void *mem, uintptr_t caller)
{
    size_t n;
    if (mem == NULL)
        return 0;
    if (CG_UNLIKELY(CG_LOAD(cg_reentry_live) != 0) && cg_reentry_owns(mem, &n))
        return n;
    cg_ensure_init();
    const cg_call_t c = cg_call_at(caller, CG_OP(malloc_usable_size));
    return cg_mode.usable(mem, &c);
}
