/*
 * thread.h — per-thread state (initial-exec TLS, kept small: five words
 * and a few bytes).
 */
#ifndef CG_THREAD_H
#define CG_THREAD_H

#include "platform.h"

struct cg_tcache;
struct cg_arena;

enum { CG_TC_NONE = 0, CG_TC_ACTIVE = 1, CG_TC_SHUTDOWN = 2 };

typedef struct cg_thread {
    struct cg_tcache *tcache;   /* NULL until the first slow-path call, after
                                 * thread shutdown, and in instrumented modes */
    struct cg_arena *arena;     /* the arena this thread allocates from      */
    uintptr_t caller;           /* program's call site of the current slow op */
    const char *op;             /* name of the API function being served     */
    uint8_t tc_state;           /* CG_TC_*                                    */
    uint32_t tid;               /* debug mode: thread number + 1 (0: none yet) */
    uint8_t in_report;          /* writing a report (a nested one aborts)   */
    uint8_t inside;             /* a slow path is running (reentry.h)       */
    struct cg_tcache *held_tc;  /* the tcache, while tcache is NULLed by an
                                 * operation in progress (reentry.h)        */
} cg_thread_t;

extern CG_TLS cg_thread_t cg_self CG_HIDDEN;

#endif /* CG_THREAD_H */
