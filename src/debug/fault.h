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
 * inaccessible page below it), unless it has one already or handle_segv=0;
 * and its removal at thread exit.  For the instrumented modes' tables
 * (thread_start, thread_exit). */
void cg_fault_thread_start(void) CG_HIDDEN;
void cg_fault_thread_exit(void) CG_HIDDEN;

/* Is pc in chunkguard's own code?  Known when chunkguard is a shared
 * object (false for every pc when it is linked into the program). */
bool cg_in_own_code(uintptr_t pc) CG_HIDDEN;

#endif /* CG_FAULT_H */
