/*
 * stk_util.h — shared by the stack-capture, stack-depot and symbolizer
 * tests (stk_*.c), which are built against libchunkguard-cg.a (the cg_
 * core; these functions are internal, so the tests link it statically).
 * See tests/tests.mk (the stacks block) and tests/suites/25-stacks.sh.
 */
#ifndef STK_UTIL_H
#define STK_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stack.h"
#include "stackdepot.h"
#include "symbolize.h"

#ifndef STK_FIXTURE_DIR
#error "STK_FIXTURE_DIR: the directory of libstk_fixture*.so (tests/tests.mk sets it)"
#endif

/* Sanitizer builds have their own malloc: no counting shim there. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#  define STK_SANITIZED 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#    define STK_SANITIZED 1
#  endif
#endif
#ifndef STK_SANITIZED
#  define STK_SANITIZED 0
#endif
#define STK_HAVE_SHIM (!STK_SANITIZED)

/* stk_shim.c: malloc/calloc/realloc/free/memalign family forwarded to
 * glibc's __libc_* functions, counting the calls the current thread makes
 * while its counting flag is on, and (when stk_shim_capture is set)
 * capturing and storing a 16-frame stack on every call, as the
 * instrumented mode will. */
#if STK_HAVE_SHIM
void stk_shim_count(bool on);            /* this thread: count or stop      */
unsigned long stk_shim_calls(void);      /* this thread's count since on    */
extern int stk_shim_capture;             /* 1: every call captures + stores */
#endif

/* stk_nocfi.c, compiled without unwind tables: calls fn(arg) from a frame
 * that has no CFI, so the unwinder must fall back on the frame chain. */
size_t stk_nocfi_call(size_t (*fn)(void *), void *arg);

/* The name cg_symbolize_frame finds for return address pc ("" if none). */
static inline const char *stk_name_of(uintptr_t pc, cg_frame_t *f)
{
    cg_symbolize_frame(pc, true, f);
    return f->function;
}

#endif /* STK_UTIL_H */
