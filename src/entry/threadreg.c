/*
 * threadreg.c — pthread_create(), exported by libchunkguard.so only (as
 * forkreg.c's fork: a static program has libc.a's, and a second
 * definition fails the link; linked into the program, a thread gets its
 * signal stack at its first call instead, debug/fault.c).  In the modes
 * that report the program's faults each new thread starts on chunkguard's
 * alternate signal stack, so that a thread that never calls malloc still
 * gets its stack-overflow report (AddressSanitizer's pthread_create
 * interceptor does the same); in fast mode it is libc's pthread_create.
 */
#include <pthread.h>

#include "fault.h"
#include "init.h"

#define CG_PUBLIC __attribute__((visibility("default")))

#ifndef CHUNKGUARD_PREFIXED
/* pthread_create - libc's (thread, attr, fn, arg as there); returns 0 or
 * an errno value, as libc's (when no signal stack can be mapped the thread
 * starts without one; that is no error).  Thread-safe.  The new thread
 * runs fn(arg) with chunkguard's signal stack installed first, which the
 * program's own sigaltstack call in fn replaces as it would any; the
 * stack is unmapped when the thread exits (debug/fault.c). */
CG_PUBLIC int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                             void *(*fn)(void *), void *arg)
{
    cg_ensure_init();
    return cg_fault_thread_create(thread, attr, fn, arg);
}
#endif
