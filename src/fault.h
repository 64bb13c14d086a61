/*
 * fault.h — the SIGSEGV/SIGBUS handler (fault.c; option handle_segv).
 */
#ifndef CG_FAULT_H
#define CG_FAULT_H

#include "platform.h"

/* Install the handler, keeping the previous one to chain to.  Called once
 * at initialisation; does nothing with handle_segv=0. */
void cg_fault_install(void) CG_HIDDEN;

#endif /* CG_FAULT_H */
