/*
 * report.h — fatal error reports.
 *
 * A report is formatted into fixed buffers in .lbss, used under the report
 * lock (render.c; no malloc, no stdio), written to the log (fd 2, or
 * log_path) with write(2), then the process
 * ends: SIGABRT by default, as glibc does (options abort_on_error and
 * exitcode).  First line, stable for tools to match:
 *     ==PID==ERROR: chunkguard: <token> on address 0x...
 * then one line naming the check that fired and the glibc check it
 * corresponds to, then the frame where it happened.
 */
#ifndef CG_REPORT_H
#define CG_REPORT_H

#include "call.h"
#include "fmt.h"
#include "log.h"
#include "platform.h"

typedef enum cg_error {
#define CG_ERROR(id, token) CG_E_##id,
#include "errors.def"
#undef CG_ERROR
    CG_E_COUNT
} cg_error_t;

/*
 * cg_report - report a heap error and end the process (cg_report_exit).
 * @call:  the call being served: the report names its function, and its
 *         call site is the frame printed (the program's call site of the
 *         malloc-family function, or the faulting code's address)
 * @kind:  error kind (its token starts the report)
 * @addr:  the address the error is about (the pointer the program passed,
 *         or the corrupted chunk's user pointer)
 * @check: what we checked, in our words ("free(): the chunk is already the
 *         top entry of its fastbin")
 * @glibc: the corresponding glibc message, or NULL when glibc has none
 * Async-signal-safe; never returns.  A second report while one is being
 * written (a fault inside the reporter) goes straight to abort.
 */
_Noreturn void cg_report(const cg_call_t *call, cg_error_t kind, const void *addr,
                         const char *check, const char *glibc) CG_COLD CG_HIDDEN;

/*
 * cg_report_exit - end the process after a report, as the options say:
 * abort() (SIGABRT) by default or with abort_on_error=1; _exit(exitcode)
 * with abort_on_error=0, or when exitcode is set and abort_on_error is not.
 * Never returns.
 */
_Noreturn void cg_report_exit(void) CG_COLD CG_HIDDEN;

/* Has a fatal report begun ending the process (cg_report_exit)?  Then
 * nothing more is checked on the way out (a handler of SIGABRT that calls
 * _exit, say). */
bool cg_report_ending(void) CG_HIDDEN;

/* The stable token of an error kind ("double-free", ...). */
const char *cg_error_token(cg_error_t kind) CG_HIDDEN;

/* Start writing a report: waits while another thread writes one; a report
 * begun on a thread already writing one (a fault inside the reporter)
 * aborts at once.  cg_report_leave ends a report the process survives
 * (halt_on_error=0). */
void cg_report_enter(void) CG_HIDDEN;
void cg_report_leave(void) CG_HIDDEN;
/* Fork handlers: the report lock is taken last (a report may begin with
 * any other chunkguard lock held; see entry/init.c). */
void cg_report_lock_all(void) CG_HIDDEN;
void cg_report_unlock_all(bool child) CG_HIDDEN;



#endif /* CG_REPORT_H */
