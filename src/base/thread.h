/*
 * thread.h — per-thread state (initial-exec TLS, kept small: five words,
 * three 32-bit words and four bytes; tests/suites/45-lifecycle.sh holds the
 * library's whole TLS to 64 bytes), and the callout mark that layers
 * below entry/ set around code that may call malloc.  Only what belongs
 * to the thread lives here; what belongs to the call being served (its
 * call site, the API function) travels as a value (call.h).
 */
#ifndef CG_THREAD_H
#define CG_THREAD_H

#include <stdint.h>

#include "config.h"
#include "platform.h"

struct cg_tcache;
struct cg_arena;

/*
 * A thread's state is two things, each explicit:
 *   state   its tcache's life: CG_T_NEW (none yet: its next slow path makes
 *           one, in a mode with tcaches), CG_T_CACHED (cache is it),
 *           CG_T_UNCACHED (none ever again: a mode without tcaches, or the
 *           thread is exiting).  Written only on slow paths.
 *   inside  a slow path of this thread runs (entry/reentry.h).
 * cg_self.tcache is derived from them, for the inline hits' one load: it is
 * cache while the thread is outside chunkguard, and NULL while a slow path
 * runs or an inline hit itself runs (core/fastpath.h, CG_FAST_ENTER).  So a
 * call that finds inside set, or state CACHED with tcache NULL, was made
 * from a signal handler (or code chunkguard called) while its thread was
 * in the middle of one (cg_reentered).
 */
enum { CG_T_NEW = 0, CG_T_CACHED = 1, CG_T_UNCACHED = 2 };

typedef struct cg_thread {
    struct cg_tcache *tcache;   /* the tcache the inline hits may use now:
                                 * cache outside chunkguard, else NULL     */
    struct cg_arena *arena;     /* the arena this thread allocates from      */
    struct cg_tcache *cache;    /* the thread's tcache: non-NULL exactly when
                                 * state is CG_T_CACHED                     */
    uint64_t lk_held;           /* debug mode: the lock-order nodes whose lock
                                 * this thread holds (lockdep.c)            */
    uint32_t tid;               /* debug mode: thread number + 1 (0: none yet) */
    uint32_t ktid;              /* kernel thread id, 0 until first asked
                                 * (lock.h, cg_lock_me; reset in a fork child) */
    uint8_t state;              /* CG_T_*                                     */
    uint8_t in_report;          /* writing a report (a nested one aborts),
                                 * or its end under way: CG_REPORT_* of
                                 * report/report.h                         */
    uint8_t inside;             /* a slow path is running (reentry.h)       */
    uint8_t in_capture;         /* inside the unwinder (stack.c)            */
    uint8_t in_fault;           /* inside the fault handler's own work: a
                                 * fault now is one of its own (fault.c)   */
    uint8_t report_head;        /* the report this thread writes: its head
                                 * rendered early, or its lock taken early
                                 * (report/render.c, CG_RHEAD_*)           */
    uint8_t alt_ours;           /* the thread's signal stack is the one
                                 * chunkguard installed (debug/fault.c)     */
    uint16_t sect_slot;         /* the masked-section registry slot this
                                 * thread last took, + 1 (0: none yet;
                                 * platform.c, cg_os_section_enter)        */
    uint32_t sample_left;       /* allocations until the next sampled one
                                 * (debug/sample.h; counted down by the
                                 * inline hits too)                         */
    struct cg_dthread *dbg;     /* debug mode: this thread's block
                                 * (debug/dthread.h); NULL none yet         */
} cg_thread_t;

extern __thread cg_thread_t cg_self
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* Orders a thread's accesses against a signal handler on the same thread
 * (entry/reentry.h). */
#define CG_SIGNAL_FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/*
 * A callout: chunkguard itself calls code that may call malloc (the
 * unwinder's first capture on a thread allocates its thread-local block),
 * at a point where no chunkguard lock is held and every structure is
 * consistent.  Such calls are served normally, not as re-entrant ones.
 */
typedef struct cg_callout {
    uint8_t inside;             /* the thread was inside: it is again after */
} cg_callout_t;

CG_INLINE cg_callout_t cg_callout_begin(void)
{
    cg_callout_t c = { cg_self.inside };
    CG_SIGNAL_FENCE();
    if (c.inside) {
        cg_self.tcache = cg_self.cache;
        cg_self.inside = 0;
    }
    CG_SIGNAL_FENCE();
    return c;
}

CG_INLINE void cg_callout_end(cg_callout_t c)
{
    CG_SIGNAL_FENCE();
    if (c.inside) {
        if (CG_SWITCH(CG_REENTRY_MARK))
            cg_self.tcache = NULL;
        cg_self.inside = c.inside;
    }
    CG_SIGNAL_FENCE();
}

#endif /* CG_THREAD_H */
