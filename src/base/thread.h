/*
 * thread.h — per-thread state (initial-exec TLS, kept small: six words,
 * two half-words and four bytes; tests/suites/45-lifecycle.sh holds the
 * library's whole TLS to 64 bytes), and the callout mark that layers
 * below entry/ set around code that may call malloc.
 */
#ifndef CG_THREAD_H
#define CG_THREAD_H

#include <stdint.h>

#include "config.h"
#include "platform.h"

struct cg_tcache;
struct cg_arena;

enum { CG_TC_NONE = 0, CG_TC_ACTIVE = 1, CG_TC_SHUTDOWN = 2 };

typedef struct cg_thread {
    struct cg_tcache *tcache;   /* NULL until the first slow-path call, after
                                 * thread shutdown, and in instrumented modes;
                                 * NULL too while an operation uses it
                                 * (reentry.h)                              */
    struct cg_arena *arena;     /* the arena this thread allocates from      */
    uintptr_t caller;           /* program's call site of the current slow op */
    const char *op;             /* name of the API function being served     */
    struct cg_tcache *held_tc;  /* the tcache while a slow path runs
                                 * (reentry.h)                              */
    uint64_t lk_held;           /* debug mode: the lock-order nodes whose lock
                                 * this thread holds (lockdep.c)            */
    uint32_t tid;               /* debug mode: thread number + 1 (0: none yet) */
    uint32_t ktid;              /* kernel thread id, 0 until first asked
                                 * (lock.h, cg_lock_me; reset in a fork child) */
    uint8_t tc_state;           /* CG_TC_*                                    */
    uint8_t in_report;          /* writing a report (a nested one aborts)   */
    uint8_t inside;             /* a slow path is running (reentry.h)       */
    uint8_t in_capture;         /* inside the unwinder (stack.c)            */
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
    uint8_t inside;
    struct cg_tcache *tc;
} cg_callout_t;

CG_INLINE cg_callout_t cg_callout_begin(void)
{
    cg_callout_t c = { cg_self.inside, cg_self.held_tc };
    CG_SIGNAL_FENCE();
    if (c.inside) {
        cg_self.tcache = c.tc;
        cg_self.inside = 0;
    }
    CG_SIGNAL_FENCE();
    return c;
}

CG_INLINE void cg_callout_end(cg_callout_t c)
{
    CG_SIGNAL_FENCE();
    if (c.inside) {
        cg_self.held_tc = cg_self.tcache;   /* a callout may have created it */
        if (CG_SWITCH(CG_REENTRY_MARK))
            cg_self.tcache = NULL;
        cg_self.inside = c.inside;
    }
    CG_SIGNAL_FENCE();
}

#endif /* CG_THREAD_H */
