/*
 * fault.h — the SIGSEGV/SIGBUS handler (fault.c; option handle_segv).
 */
#ifndef CG_FAULT_H
#define CG_FAULT_H

#include "platform.h"

/* Install the handler, keeping the previous one to chain to.  Called once
 * at initialisation; does nothing with handle_segv=0. */
void cg_fault_install(void) CG_HIDDEN;

/*
 * cg_fault_sigaction - the program's sigaction(sig, act, old) for SIGSEGV
 * or SIGBUS once the handler is installed: act (when not NULL) becomes the
 * program's disposition, which the handler chains to for every signal that
 * is not ours, honouring its sa_mask, SA_NODEFER, SA_RESETHAND and SIG_IGN
 * as the kernel would; old (when not NULL) gets the program's previous
 * disposition, never chunkguard's handler.  The kernel's disposition stays
 * chunkguard's.  Returns false, doing nothing, for any other signal or
 * when no handler is installed (handle_segv=0, or before initialisation):
 * the caller then asks libc.  Thread-safe and async-signal-safe (every
 * signal blocked while it writes).
 */
bool cg_fault_sigaction(int sig, const struct sigaction *act, struct sigaction *old) CG_HIDDEN;

/* The calling thread's alternate signal stack (CG_ALT_BYTES, with an
 * inaccessible page below it), unless it has one already (the program's,
 * or ours from cg_fault_thread_create), in the modes that report the
 * program's faults with handle_segv on; unmapped at the thread's exit
 * (a pthread key's destructor).  For the instrumented modes' tables
 * (thread_start); called inside a slow path. */
void cg_fault_thread_start(void) CG_HIDDEN;

/*
 * cg_fault_thread_create - pthread_create(thread, attr, fn, arg) past
 * chunkguard's (entry/threadreg.c): in the modes that report the
 * program's faults, with handle_segv on, the new thread runs fn(arg) on
 * a signal stack of ours installed before fn starts (one mmap in the
 * creating thread); a sigaltstack call of fn's replaces it as usual, and
 * ours is unmapped at thread exit either way.  Otherwise, or when that
 * stack cannot be mapped, libc's pthread_create alone.  Returns 0 or an
 * errno value, as pthread_create.  Thread-safe; call after initialisation.
 */
int cg_fault_thread_create(pthread_t *thread, const pthread_attr_t *attr,
                           void *(*fn)(void *), void *arg) CG_HIDDEN;

/* Is pc in chunkguard's own code?  Known when chunkguard is a shared
 * object (false for every pc when it is linked into the program). */
bool cg_in_own_code(uintptr_t pc) CG_HIDDEN;

#endif /* CG_FAULT_H */
