/*
 * call.h — the call being served: what a report or a lock report names,
 * carried as one small value instead of thread-local side fields
 * (docs/design.md, "The call").
 *
 * An API entry (entry/api.c, entry/interpose.c) fills one cg_call_t on its
 * stack, once, and hands its address down: the mode's table gets it, and
 * so does every function below that can report (the reporters of
 * report/checks.h, debug mode's) or take a lock on the call's behalf (a
 * report about the lock then names the call).  A path that serves no
 * program call — the fault handler, the checks at exit, a thread's exit,
 * initialisation — fills its own (cg_call_internal).  The object is made
 * const where it is filled, so the compiler keeps its fields in registers
 * across the calls it is passed to.
 */
#ifndef CG_CALL_H
#define CG_CALL_H

#include "platform.h"

struct cg_tcache;

typedef struct cg_call {
    uintptr_t caller;           /* the program's call site (0: none)        */
    const char *op;             /* the API function served ("malloc", ...)  */
    struct cg_tcache *tc;       /* this thread's tcache, or NULL (none yet,
                                 * gone at thread exit, or a mode without)  */
    bool mt;                    /* other threads may run: decided once, at
                                 * the top of the operation (locks are taken,
                                 * atomics used)                            */
} cg_call_t;

/* The context of work chunkguard does on no program call's behalf: op
 * names it in reports ("exit", "a memory access"); no call site, no
 * tcache. */
CG_INLINE cg_call_t cg_call_internal(const char *op)
{
    return (cg_call_t){ .caller = 0, .op = op, .tc = NULL, .mt = !CG_SINGLE_THREAD_P };
}

/* An API call that needs no tcache (the introspection calls, mallopt):
 * made from caller. */
CG_INLINE cg_call_t cg_call_at(uintptr_t caller, const char *op)
{
    return (cg_call_t){ .caller = caller, .op = op, .tc = NULL, .mt = !CG_SINGLE_THREAD_P };
}

#endif /* CG_CALL_H */
