/*
 * atforkreg.c — pthread_atfork(), in libchunkguard.a only (the shared
 * library has forkreg.c's __register_atfork instead, Makefile).
 *
 * glibc runs prepare handlers last-registered first, and ours, which take
 * the allocator's locks, must run after every other prepare handler (which
 * may allocate), as glibc takes its malloc locks after the stdio locks.
 * Linked into the program, chunkguard registers its handlers at
 * initialisation, but a program constructor that runs before that
 * initialisation (one with a priority, or one that never allocates) and
 * calls pthread_atfork would register first, so that prepare ran ours
 * first and the program's handler then waited on an arena lock its own
 * thread held.  glibc's pthread_atfork is a small wrapper in
 * libc_nonshared.a (libc.a for a static program) that the link takes only
 * when nothing defines the name first; this one, found first, registers
 * ours before passing the program's handler on.
 */
#include <pthread.h>

#include "init.h"

#define CG_PUBLIC __attribute__((visibility("default")))

#ifndef CHUNKGUARD_PREFIXED
int __register_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void),
                      void *dso);
extern void *__dso_handle __attribute__((weak));

/* pthread_atfork - register fork handlers, as POSIX says (prepare runs in
 * the parent before the fork, last registered first; parent and child after
 * it, first registered first; any may be NULL); returns 0 or an errno value
 * (ENOMEM).  Thread-safe.  First registers chunkguard's own handlers if
 * nothing has yet, so that its prepare runs after this one. */
CG_PUBLIC int pthread_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
    cg_fork_handlers_need();
    return __register_atfork(prepare, parent, child, &__dso_handle ? __dso_handle : (void *)0);
}
#endif
