/*
 * fault.h — the SIGSEGV/SIGBUS handler (fault.c; option handle_segv).
 */
#ifndef CG_FAULT_H
#define CG_FAULT_H

#include "platform.h"

/* Install the handler, keeping the previous one to chain to.  Called once
 * at initialisation; does nothing with handle_segv=0. */
void cg_fault_install(void) CG_HIDDEN;

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
