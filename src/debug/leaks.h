/*
 * leaks.h — debug mode's leak check (leaks.c; option detect_leaks).
 */
#ifndef CG_LEAKS_H
#define CG_LEAKS_H

#include "platform.h"

/* Scan for unreachable live blocks now and report them, grouped by
 * allocation stack, on the log.  Returns the number of leaked blocks; 0
 * (and no scan) outside debug mode.  Thread-safe in the sense that it takes
 * no lock and allocates nothing; blocks other threads allocate or free
 * during the scan may be missed or misjudged. */
size_t cg_leak_check_impl(void) CG_HIDDEN;

#endif /* CG_LEAKS_H */
