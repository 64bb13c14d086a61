/*
 * reentry.c — serving a malloc-family call made while its thread is
 * already inside chunkguard (reentry.h): a signal handler's call, or a
 * call from code chunkguard runs.  Nothing here takes a chunkguard lock or
 * touches a tcache, bin or arena; the two tables are lock-free (atomic
 * exchanges, on this rare path only), so a handler that interrupts another
 * handler's call here is safe too.
 */
#include "reentry.h"
#include "shadow.h"

#include <errno.h>
#include <string.h>

#include "api.h"
#include "checks.h"
#include "debug.h"
#include "bigblock.h"
#include "heap.h"
#include "render.h"

#define BLOCK_SLOTS   256   /* blocks served to handlers, live at once */
#define PENDING_SLOTS 256   /* frees deferred to the next slow path    */

typedef struct sigblock {
    void *mem;              /* user pointer; NULL free, BUSY being set up */
    size_t map_len;         /* bytes mapped at mem                        */
    size_t size;            /* bytes asked for                            */
} sigblock_t;
#define BUSY ((void *)1)

static CG_BIG_BSS sigblock_t blocks[BLOCK_SLOTS];
static CG_BIG_BSS void *pending[PENDING_SLOTS];
size_t cg_reentry_pending;
size_t cg_reentry_live;
static uint64_t reentrant_calls;

uint64_t cg_reentry_count(void)
{
    return __atomic_load_n(&reentrant_calls, __ATOMIC_RELAXED);
}

CG_FORK_PATH void cg_reentry_after_fork_child(void)
{
    CG_CLEAR_IF_SET(reentrant_calls);   /* one thread left, in the fork handler */
}

/* Report check id (a REENTRANT* entry of checks.def) about the call op
 * made at caller.  Only REENTRANT, a call that was served, is recoverable;
 * the others, which could not be served, end the process. */
static CG_REALIGN void report(cg_check_t id, const char *op, uintptr_t caller)
{
    char msg[384];
    uintptr_t pc = caller;
    cg_rdata_t d = {
        .addr = NULL, .op = op, .tid = cg_self.tid ? (int)cg_self.tid - 1 : -1,
        .stacks = { { NULL, -1, &pc, 1, NULL } }, .nstacks = 1,
    };
    cg_check_fill(&d, id, NULL, msg, sizeof msg);
    cg_report_emit(&d, id == CG_CK_REENTRANT);
    if (id != CG_CK_REENTRANT)
        cg_report_exit();
}

/* Call sites already reported: a handler that fires thousands of times
 * gives one report per site, as ASan's recover mode does (the count in
 * cg_get_stats keeps every call).  Lock-free: claimed with a CAS. */
#define REPORTED_SITES 64
static uintptr_t reported_sites[REPORTED_SITES];

static bool first_report_of(uintptr_t caller)
{
    for (size_t i = 0; i < REPORTED_SITES; i++) {
        uintptr_t v = __atomic_load_n(&reported_sites[i], __ATOMIC_ACQUIRE);
        if (v == caller)
            return false;
        if (v == 0 && __atomic_compare_exchange_n(&reported_sites[i], &v, caller, false,
                                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return true;
        if (v == caller)
            return false;
    }
    return true;                 /* table full: report, rather than stay silent */
}

/* Is the call made on chunkguard's own behalf?  While the thread unwinds
 * its stack (the dynamic loader allocates a dlopen'd unwinder's
 * thread-local block at the thread's first unwind: __tls_get_addr calls
 * malloc), writes a report (a callback's allocations), or ends the process
 * after one (SIGABRT handlers such as libFuzzer's, which writes the crash
 * input, and exit handlers): such calls are served and counted, never
 * reported — no report can begin inside another, and none of them is the
 * program's bug. */
static bool on_our_behalf(void)
{
    return cg_self.in_capture || cg_self.in_report != CG_REPORT_NONE;
}

/* The thread seems inside, but is it?  A report it was writing, or
 * ending the process with, may have been left by a siglongjmp out of a
 * SIGABRT handler or the report callback (test frameworks): then the
 * slow path's mark it was under is stale too.  True, with both put away,
 * when the thread went on from its report (report.c, cg_report_went_on):
 * the call is served as any other and its errors reported.  Never while
 * it unwinds (an unwinder's call is on our behalf). */
bool cg_reentry_went_on(void)
{
    if (cg_self.in_report == CG_REPORT_NONE || cg_self.in_capture ||
        !cg_report_went_on((uintptr_t)__builtin_frame_address(0)))
        return false;
    cg_inside_end();
    return true;
}

/* Count the call; in debug mode, report it, once per call site (it goes on
 * when halt_on_error=0 or a callback returns).  A call made while this
 * thread writes a report (from a report callback, from a signal handler
 * that interrupted the report, or from a handler of a signal the report's
 * own write raised: SIGPIPE) is counted only, since a report cannot begin
 * inside another: it is served all the same. */
static void seen(const char *op, uintptr_t caller)
{
    __atomic_add_fetch(&reentrant_calls, 1, __ATOMIC_RELAXED);
    if (cg_mode.instrumented && !on_our_behalf() && first_report_of(caller))
        report(CG_CK_REENTRANT, op, caller);
}

/* A call that cannot be served (check: a REENTRANT_*_FULL or *_UNSIZED
 * entry): reported, which ends the process — unless it is made on our
 * behalf, when the caller gives its failure answer instead. */
static void unserved(cg_check_t check, const char *op, uintptr_t caller)
{
    if (!on_our_behalf())
        report(check, op, caller);
}

void cg_reentry_query(const char *op, uintptr_t caller)
{
    seen(op, caller);
}

/* A block of its own for an allocation (counted by the caller). */
static void *serve(size_t n, size_t align, uintptr_t caller, const char *op)
{
    if (n > CG_MAX_REQUEST || align > CG_MAX_REQUEST) {
        errno = ENOMEM;
        return NULL;
    }
    size_t len = CG_PAGE_ROUND(n ? n : 1);
    void *mem = align > cg_pagesize ? cg_os_map_aligned(len, align) : cg_os_map(len);
    if (mem == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    for (size_t i = 0; i < BLOCK_SLOTS; i++) {
        void *expect = NULL;
        if (__atomic_load_n(&blocks[i].mem, __ATOMIC_RELAXED) == NULL &&
            __atomic_compare_exchange_n(&blocks[i].mem, &expect, BUSY, false,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            blocks[i].map_len = len;
            blocks[i].size = n;
            __atomic_store_n(&blocks[i].mem, mem, __ATOMIC_RELEASE);
            __atomic_add_fetch(&cg_reentry_live, 1, __ATOMIC_RELAXED);
            /* in use, as an mmap'd block (mallinfo's hblkhd, malloc_stats'
             * and malloc_info's totals); atomically, since the thread this
             * handler interrupted may be counting too */
            cg_big_account(len, 1, true);
            return mem;
        }
    }
    cg_os_unmap(mem, len);
    unserved(CG_CK_REENTRANT_ALLOC_FULL, op, caller);
    errno = ENOMEM;
    return NULL;
}

void *cg_reentry_alloc(size_t n, size_t align, uintptr_t caller, const char *op)
{
    seen(op, caller);
    return serve(n, align, caller, op);
}

/* The slot of a block served here, claimed (mem set to BUSY) so that no
 * one else frees it; -1 when mem is not one of them. */
static long claim(void *mem)
{
    if (mem == NULL || mem == BUSY || __atomic_load_n(&cg_reentry_live, __ATOMIC_RELAXED) == 0)
        return -1;
    for (size_t i = 0; i < BLOCK_SLOTS; i++) {
        void *expect = mem;
        if (__atomic_load_n(&blocks[i].mem, __ATOMIC_RELAXED) == mem &&
            __atomic_compare_exchange_n(&blocks[i].mem, &expect, BUSY, false,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return (long)i;
    }
    return -1;
}

static void unclaim(long i)
{
    __atomic_store_n(&blocks[i].mem, NULL, __ATOMIC_RELEASE);
}

bool cg_reentry_owns(void *mem, size_t *usable)
{
    long i = claim(mem);
    if (i < 0)
        return false;
    *usable = blocks[i].size;
    __atomic_store_n(&blocks[i].mem, mem, __ATOMIC_RELEASE);
    return true;
}

bool cg_reentry_release(void *mem)
{
    long i = claim(mem);
    if (i < 0)
        return false;
    cg_os_unmap(mem, blocks[i].map_len);
    cg_big_account(blocks[i].map_len, -1, true);
    __atomic_sub_fetch(&cg_reentry_live, 1, __ATOMIC_RELAXED);
    unclaim(i);
    return true;
}

/* A free: at once for a block of ours, else deferred (counted by the
 * caller). */
static void defer(void *mem, uintptr_t caller, const char *op)
{
    if (cg_reentry_release(mem))
        return;
    for (size_t i = 0; i < PENDING_SLOTS; i++) {
        void *expect = NULL;
        if (__atomic_compare_exchange_n(&pending[i], &expect, mem, false,
                                        __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
            __atomic_add_fetch(&cg_reentry_pending, 1, __ATOMIC_RELEASE);
            return;
        }
    }
    unserved(CG_CK_REENTRANT_FREE_FULL, op, caller);   /* on our behalf: the block stays */
}

void cg_reentry_free(void *mem, uintptr_t caller, const char *op)
{
    if (mem == NULL)
        return;
    seen(op, caller);
    defer(mem, caller, op);
}

/* Bytes of mem a handler may copy, or SIZE_MAX when it cannot be told
 * without a lock (a pointer that is no heap chunk and no block of ours). */
static size_t size_of(void *mem)
{
    size_t n;
    if (cg_reentry_owns(mem, &n))
        return n;
    /* A debug block starts after its leading redzone: its size is in its
     * shadow record, found without a lock for heap blocks and for guarded
     * blocks (sampled ones in any mode; big blocks' table needs the shadow
     * lock, which may be held). */
    if (cg_shadow_in_pages(mem) || cg_mode.instrumented) {
        if (!cg_in_heap(mem) && !cg_shadow_in_pages(mem))
            return SIZE_MAX;
        const cg_shadow_t *r = cg_shadow_find(mem, NULL);
        return r != NULL && cg_shadow_user(r) == mem && cg_shadow_seen_live(r->state)
                   ? r->req : SIZE_MAX;
    }
    if (cg_heap_owns(mem))
        return cg_heap_usable(cg_mem2chunk(mem));
    return SIZE_MAX;
}

/* One call, counted once, whatever it allocates and frees. */
void *cg_reentry_realloc(void *mem, size_t n, uintptr_t caller)
{
    seen(CG_OP(realloc), caller);
    if (mem == NULL)
        return serve(n, 0, caller, CG_OP(realloc));
    if (n == 0) {
        defer(mem, caller, CG_OP(realloc));
        return NULL;
    }
    size_t old = size_of(mem);
    if (old == SIZE_MAX) {
        unserved(CG_CK_REENTRANT_REALLOC_UNSIZED, CG_OP(realloc), caller);
        errno = ENOMEM;
        return NULL;
    }
    void *p = serve(n, 0, caller, CG_OP(realloc));
    if (p == NULL)
        return NULL;
    memcpy(p, mem, old < n ? old : n);
    defer(mem, caller, CG_OP(realloc));
    return p;
}

size_t cg_reentry_usable(void *mem, uintptr_t caller)
{
    if (mem == NULL)
        return 0;
    seen(CG_OP(malloc_usable_size), caller);
    size_t n = size_of(mem);
    if (n == SIZE_MAX) {
        unserved(CG_CK_REENTRANT_USABLE_UNSIZED, CG_OP(malloc_usable_size), caller);
        return 0;
    }
    return n;
}

/* memalign's contract (cg_memalign_args: EINVAL, rounding up to a power
 * of two, ENOMEM), as from outside. */
void *cg_reentry_memalign(size_t align, size_t n, uintptr_t caller, const char *op)
{
    int err = cg_memalign_args(&align, n);
    if (err != 0) {
        errno = err;
        return NULL;
    }
    return cg_reentry_alloc(n, align, caller, op);
}

void *cg_reentry_valloc(size_t n, bool round_size, uintptr_t caller, const char *op)
{
    if (round_size && (n = cg_pvalloc_bytes(n)) == 0) {   /* pvalloc: whole pages */
        errno = ENOMEM;
        return NULL;
    }
    return cg_reentry_alloc(n, cg_pagesize, caller, op);
}

/* Free what handlers freed while their thread was inside.  Runs at the
 * start of a slow path, inside (the frees below are ordinary ones). */
void cg_reentry_drain(void)
{
    for (size_t i = 0; i < PENDING_SLOTS; i++) {
        void *mem = __atomic_exchange_n(&pending[i], NULL, __ATOMIC_ACQUIRE);
        if (mem == NULL)
            continue;
        __atomic_sub_fetch(&cg_reentry_pending, 1, __ATOMIC_RELAXED);
        cg_free_deferred(mem);
    }
}
