/*
 * heapcheck.h — the heap verifier (cg_verify_heap, heapcheck.c) and the
 * verify_interval hook the slow paths call.
 */
#ifndef CG_HEAPCHECK_H
#define CG_HEAPCHECK_H

#include "call.h"
#include "options.h"

/* The kinds of inconsistency, HC_<id>: the CG_VERIFY_ENTRY lines of the
 * catalogue of checks (src/report/checks.def). */
enum {
#define CG_CHECK_ENTRY(id, token, sw, glibc, sentence)
#define CG_VERIFY_ENTRY(id, token, name, what) HC_##id,
#include "checks.def"
    HC_KIND_COUNT
};

/* The name of kind k, as it appears after "heap check: " in a report. */
const char *cg_heapcheck_kind_name(int k) CG_HIDDEN;

/*
 * cg_verify_heap_impl - walk every arena, heap, bin, fastbin, the calling
 * thread's tcache, the big blocks and (debug mode) the shadow records and
 * the quarantine; report each inconsistency; return how many were found.
 * Takes every lock it needs itself, in the declared order (arena list,
 * arenas by index, big-block registry, shadow, quarantine): the caller
 * holds no chunkguard lock.  Reports are written after the locks are
 * dropped.  Never allocates through malloc.  Contract: chunkguard.h.
 * call: the call served (cg_verify_heap, or the operation verify_interval
 * counted), whose function and call site the reports name.
 */
size_t cg_verify_heap_impl(const cg_call_t *call) CG_HIDDEN;

/* verify_interval: count one allocator operation, call, and run the
 * verifier when the count reaches a multiple of the interval.  Out of
 * line. */
void cg_verify_tick_slow(const cg_call_t *call) CG_HIDDEN CG_NOINLINE;

/* The slow paths' hook: one load and one predictable branch while
 * verify_interval is 0 (the default). */
CG_INLINE void cg_verify_tick(const cg_call_t *call)
{
    if (CG_UNLIKELY(cg_opt.verify_interval != 0))
        cg_verify_tick_slow(call);
}

#endif /* CG_HEAPCHECK_H */
