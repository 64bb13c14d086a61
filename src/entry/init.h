/*
 * init.h — one-time initialisation, thread exit and fork hooks.
 */
#ifndef CG_INIT_H
#define CG_INIT_H

#include "platform.h"

struct cg_tcache;

extern int cg_init_state CG_HIDDEN;     /* 2 once ready */

void cg_init_slow(void) CG_HIDDEN;
/* Cheap test first: the library is ready in all but the first calls. */
CG_INLINE void cg_ensure_init(void)
{
    if (CG_UNLIKELY(__atomic_load_n(&cg_init_state, __ATOMIC_ACQUIRE) != 2))
        cg_init_slow();
}
/* Arrange for the calling thread's tcache to be flushed when it exits. */
void cg_thread_register_exit(struct cg_tcache *tc) CG_HIDDEN;

/* Register the fork handlers with libc now, if not yet (init.c says when
 * that is needed); once per process, thread-safe.  Calls into libc, which
 * may allocate: call it outside chunkguard or inside a callout. */
void cg_fork_handlers_need(void) CG_HIDDEN;

/* fork() for the program's call at caller (its return address): libc's
 * fork, whose handlers then name that call in any report made inside
 * chunkguard's own (a lock it waits for, or re-takes).  Returns what fork
 * returns; thread-safe, async-signal-safe as fork is (a signal handler's
 * fork inside the program's keeps its own call and gives the outer one
 * back).  entry/forkreg.c's fork. */
pid_t cg_fork_for(uintptr_t caller) CG_HIDDEN;

/* Defined by forkreg.c (the shared library) and atforkreg.c (the
 * archive), and read once by init.c: a program linked with
 * libchunkguard.a then always takes atforkreg.o, whose .preinit_array
 * entry registers the fork handlers before any library's constructor. */
extern const char cg_forkreg_anchor CG_HIDDEN;

/* _exit and _Exit (entry/interpose.c): the mode's checks of an immediate
 * exit (mode.h, at_exit_now), then the exit_group system call with
 * status.  Never returns. */
_Noreturn void cg_exit_now(int status) CG_HIDDEN;


#endif /* CG_INIT_H */
