/*
 * leaks.h — debug mode's leak check (leaks.c; option detect_leaks).
 */
#ifndef CG_LEAKS_H
#define CG_LEAKS_H

#include "platform.h"

/* Scan for unreachable live blocks now and report them, grouped by
 * allocation stack and direct or indirect, on the log.  Returns the number
 * of leaked blocks; 0 (and no scan) outside debug mode, or while another
 * check runs.  Stops the other threads for the scan (leaks.c); holds the
 * shadow lock meanwhile; allocates nothing.  The live stack starts at the
 * caller's frame: everything below is dead. */
size_t cg_leak_check_impl(void) CG_HIDDEN;

/* detect_leaks=1, at exit (debug mode's at_exit, after the program's own
 * destructors: a preloaded library is finalised last): leaks make the exit
 * status exitcode (default 23, as LeakSanitizer's), or abort() with
 * abort_on_error=1.  Nothing without detect_leaks. */
void cg_leak_check_at_exit(void) CG_HIDDEN;

/* Run just before the leak check ends the process (set at init: the entry
 * layer's stats file, whose suppressed= count would otherwise be lost);
 * NULL: nothing. */
extern void (*cg_leak_exit_hook)(void) CG_HIDDEN;

#endif /* CG_LEAKS_H */
