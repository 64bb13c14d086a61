/*
 * forkreg.c — fork() and __register_atfork(), exported by libchunkguard.so
 * only (not by libchunkguard.a: a static program gets libc.a's
 * __register_atfork with its fork, and a second definition fails the
 * link; linked into the program, chunkguard registers its fork handlers
 * at initialisation instead: entry/init.c, cg_fork_handlers_need).
 * Fast mode as a shared library registers its handlers with libc only
 * when something needs them; these two are where a program asks first.
 */
#include <sys/types.h>
#include <unistd.h>

#include "init.h"
#include "platform.h"

#define CG_PUBLIC __attribute__((visibility("default")))

#ifndef CHUNKGUARD_PREFIXED
const char cg_forkreg_anchor = 1;     /* init.c's reference (atforkreg.c) */

/* fork - glibc's fork (its atfork handlers, then the clone); returns the
 * child's pid in the parent, 0 in the child, -1 with errno on failure.
 * Thread-safe.  First registers chunkguard's own fork handlers if nothing
 * has yet (fast mode registers them only when needed: entry/init.c). */
CG_PUBLIC pid_t fork(void)
{
    cg_fork_handlers_need();
    return cg_fork_for(CG_RET_ADDR);
}

/* __register_atfork - what pthread_atfork calls (prepare, parent, child
 * as there; dso: the caller's object, whose dlclose drops them); returns
 * 0 or an errno value.  Thread-safe.  Registers chunkguard's handlers
 * first if not yet, so that they stay the first registered: glibc runs
 * prepare handlers last-registered first, and ours, which take the
 * allocator's locks, must run after the program's, which may allocate. */
int __register_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void),
                      void *dso);
CG_PUBLIC int __register_atfork(void (*prepare)(void), void (*parent)(void),
                                void (*child)(void), void *dso)
{
    cg_fork_handlers_need();
    return cg_os_register_atfork_next(prepare, parent, child, dso);
}
#endif
