/*
 * report.h — fatal error reports.
 *
 * A report is formatted into a buffer on the stack (no malloc, no stdio),
 * written to fd 2 with write(2), then the process aborts with SIGABRT as
 * glibc does.  First line, stable for tools to match:
 *     ==PID==ERROR: chunkguard: <token> on address 0x...
 * then one line naming the check that fired and the glibc check it
 * corresponds to, then the frame where it happened.
 */
#ifndef CG_REPORT_H
#define CG_REPORT_H

#include "platform.h"

typedef enum cg_error {
#define CG_ERROR(id, token) CG_E_##id,
#include "errors.def"
#undef CG_ERROR
    CG_E_COUNT
} cg_error_t;

/*
 * cg_report - report a heap error and abort.
 * @kind:  error kind (its token starts the report)
 * @addr:  the address the error is about (the pointer the program passed,
 *         or the corrupted chunk's user pointer)
 * @check: what we checked, in our words ("free(): the chunk is already the
 *         top entry of its fastbin")
 * @glibc: the corresponding glibc message, or NULL when glibc has none
 * The frame printed is cg_self.caller: the program's call site of the
 * malloc-family function being served.  Async-signal-safe; never returns.
 * A second report while one is being written (a fault inside the reporter)
 * goes straight to abort.
 */
_Noreturn void cg_report(cg_error_t kind, const void *addr, const char *check,
                         const char *glibc) CG_COLD CG_HIDDEN;

/* Format into buf (size cap, always NUL-terminated): %s %p %x %zu %d %c
 * (%x and %zu take size_t; %d takes int).  Returns the length written. */
size_t cg_fmt(char *buf, size_t cap, const char *fmt, ...) CG_HIDDEN;

/* Describe pc as "module+0xoff" by reading /proc/self/maps (no malloc). */
size_t cg_describe_pc(char *buf, size_t cap, uintptr_t pc) CG_HIDDEN;

#endif /* CG_REPORT_H */
