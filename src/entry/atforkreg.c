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
 *
 * A shared library's constructor runs before the program's, and its
 * pthread_atfork is its own copy of libc_nonshared.a's, which calls libc's
 * __register_atfork directly: this one never sees it.  So the archive
 * registers chunkguard's handlers from the program's .preinit_array,
 * which the dynamic loader (or a static program's start-up) runs before
 * any library's constructor: ours is then the first handler registered
 * in every program linked with libchunkguard.a, whatever its libraries'
 * constructors do (tests/lifecycle/atfork_lib.c).  init.c refers to
 * cg_forkreg_anchor, so the link takes this object whenever it takes
 * chunkguard.
 *
 * fork is here too (libc.a's is weak, so a static link takes this one):
 * a report made in the fork handlers then names the program's call of
 * fork, as the shared library's forkreg.c does.
 */
#include <pthread.h>
#include <sys/types.h>
#include <unistd.h>

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
/* fork - as forkreg.c's (the shared library's): glibc's fork, whose
 * handlers' reports name this call.  Returns the child's pid in the
 * parent, 0 in the child, -1 with errno on failure.  Thread-safe. */
CG_PUBLIC pid_t fork(void)
{
    cg_fork_handlers_need();
    return cg_fork_for(CG_RET_ADDR);
}

const char cg_forkreg_anchor = 1;

/* The program's .preinit_array: chunkguard's fork handlers, registered
 * before any shared library's constructor can register its own. */
static void register_before_constructors(int argc, char **argv, char **envp)
{
    (void)argc, (void)argv, (void)envp;
    cg_fork_handlers_need();
}
__attribute__((section(".preinit_array"), used))
static void (*const preinit_register)(int, char **, char **) = register_before_constructors;

CG_PUBLIC int pthread_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
    cg_fork_handlers_need();
    return __register_atfork(prepare, parent, child, &__dso_handle ? __dso_handle : (void *)0);
}
#endif
