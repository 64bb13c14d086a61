/*
 * thread.h — per-thread state (initial-exec TLS, kept small: six words,
 * two half-words and four bytes; tests/suites/45-lifecycle.sh holds the
 * library's whole TLS to 64 bytes).
 *
 * Self-contained on purpose: lock.h (included by platform.h) reads the
 * thread's kernel id from here, so this header must not need platform.h
 * before cg_self is declared.
 */
#ifndef CG_THREAD_H
#define CG_THREAD_H

#include <stdint.h>

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

#include "platform.h"

#endif /* CG_THREAD_H */
