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
                         const char *check, const char *glibc) CG_COLD CG_HIDDEN CG_REALIGN;
/* cg_report_addr_unknown - cg_report for a fault that names no address
 * (x86-64's general-protection fault: an access through a non-canonical
 * pointer): the first line says "on address <unknown>", not 0x0; the
 * JSON's address is 0x0, as for the wild-pointer report of such a fault.
 * Async-signal-safe; never returns. */
_Noreturn void cg_report_addr_unknown(const cg_call_t *call, cg_error_t kind, const char *check,
                                      const char *glibc) CG_COLD CG_HIDDEN CG_REALIGN;

/*
 * cg_report_stack_hook - set once at initialisation by the debug layer
 * (debug/debug.c, cg_debug_init, in every mode): the stack of a fast-mode
 * report (cg_report, cg_report_addr_unknown), captured when it is made.
 * @pcs:    out: up to @max return addresses, innermost first, starting at
 *          the program's frame whose pc is @caller (chunkguard's own frames
 *          dropped)
 * @max:    room in pcs, 1..CG_REPORT_FRAMES
 * @caller: the API call's return address into the program (cg_call_t's)
 * Returns the frames stored, or 0 when no stack can be had (stack_depth
 * 0 or 1, libunwind missing or not safe, a fork's child; the report
 * does not call it with less than CG_REPORT_ROOM of stack left): the report
 * then gives the call site alone, as before.  May prime the unwinder
 * (dlopen: its mallocs are re-entrant calls, served by entry/reentry.c
 * and counted, never reported).  Cold path; never calls malloc itself.
 * NULL (before init): the call site alone.
 */
#define CG_REPORT_FRAMES 64
extern size_t (*cg_report_stack_hook)(uintptr_t *pcs, size_t max, uintptr_t caller) CG_HIDDEN;

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

/*
 * cg_report_wait_others - the process is exiting (exit, a return from
 * main, _exit: entry/init.c): wait while another thread writes a report
 * (holds the report lock; its stacks may be with the symbolizer) or has
 * finished one and is on its way to abort, so that the report comes out
 * whole and its own ending (abort, exitcode) decides the exit status.
 * Bounded: at most deadlock_timeout_ms (10 s when that is 0) for a writer,
 * 2 s for one on its way out (a program may catch SIGABRT and go on).
 * Returns at once when no other thread reports.  Thread-safe; polls.
 * When the writer's wait runs out on a report that is to end the process
 * (cg_report_mark_fatal: stuck on a full log, or in a report callback
 * that never returns), it does not return: it writes a line saying the
 * report was not finished (as far as the log takes it) and ends the
 * process as that report would have (abort, or _exit(exitcode)), so the
 * program's own exit status never hides the error.
 * When the exiting thread is itself in the middle of a report (a signal
 * handler called exit or _exit), that report is written out first
 * (render.c, cg_render_finish; frames without the symbolizer), and the
 * process ends as that report would have when it was to end it.
 */
void cg_report_wait_others(void) CG_HIDDEN;

/*
 * cg_report_went_on - has the calling thread, whose cg_self.in_report is
 * not CG_REPORT_NONE, gone on from its report without ending (a SIGABRT
 * handler or the report callback siglongjmp'ed out, as test frameworks
 * do)?  sp is the caller's stack pointer (a fault handler's: the
 * faulting code's).  It has when sp is not on its
 * alternate signal stack and lies above the report's frames (or the
 * report ran on the alternate stack): the report's frames are gone.
 * Then the report is put away — the report lock released, a symbolizer
 * batch closed, the thread no longer the one ending the process (no
 * other thread's report waits for it) — and in_report reset: its next
 * error is reported.  Returns false, changing nothing, for a call from a
 * handler or an exit handler run inside the report, whose calls are
 * served apart (entry/reentry.c).  The program's own state, and locks
 * the jump left held, stay as the jump left them.
 */
bool cg_report_went_on(uintptr_t sp) CG_HIDDEN;

/* Mark the report the calling thread writes (under the report lock) as
 * one that will end the process (true), or not (false; cg_report_leave
 * clears it too).  Read by cg_report_wait_others. */
void cg_report_mark_fatal(bool fatal) CG_HIDDEN;

/* The stable token of an error kind ("double-free", ...). */
const char *cg_error_token(cg_error_t kind) CG_HIDDEN;

/* Start writing a report: waits while another thread writes one; a report
 * begun on a thread already writing one (a fault inside the reporter)
 * aborts at once.  cg_report_leave ends a report the process survives
 * (halt_on_error=0).  cg_report_enter_about(tid): the same for a report
 * about thread tid (a lock's holder), which is never waited for: when it
 * holds the report lock, or a holder keeps it deadlock_timeout_ms, the
 * report is written without it (report.c). */
void cg_report_enter(void) CG_HIDDEN;
void cg_report_enter_about(uint32_t about) CG_HIDDEN;
void cg_report_leave(void) CG_HIDDEN;
/* A fork child's reset: the report lock free (no fork handler takes it:
 * a report never waits for a forking thread; see entry/init.c), no report
 * ending the process, none half-written. */
void cg_report_after_fork_child(void) CG_HIDDEN;
/*
 * cg_report_run - run body(arg), the part of a report that renders,
 * unwinds and writes, on a stack fit for it: realigned to 16 bytes (a
 * program that hijacked a return address calls us misaligned, see
 * CG_REALIGN), and on a stack mapped for it when the stack it is on has
 * less than CG_REPORT_ROOM bytes left (base/platform.h, cg_os_stack_room):
 * an alternate signal stack (a program's small sigaltstack, or ours after
 * a deep fault) or the thread's own (a thread made with a small stack,
 * pthread_attr_setstacksize, or one deep in recursion).  The mapped
 * stack is unmapped when body returns; a body that ends the process
 * leaves it.  Every report begins here (checks.c, before its message and
 * report_final build their frames; render.c, debug.c); nested calls
 * (a report's body starting the next step) run on the stack they are on,
 * which has the room.  Async-signal-safe.
 */
#define CG_REPORT_ROOM  ((size_t)48 * 1024)
#define CG_REPORT_STACK ((size_t)256 * 1024)
void cg_report_run(void (*body)(void *arg), void *arg) CG_HIDDEN CG_REALIGN;

/* cg_self.in_report: what this thread's report is doing.  WRITING: a
 * report is being written, under the report lock; UNLOCKED: written
 * without it (cg_report_enter_about) — in both a report begun now is a
 * nested one, which aborts; ENDED: its report ends the process (the abort
 * or exit is under way: SIGABRT handlers and exit handlers run now, and
 * may allocate). */
enum { CG_REPORT_NONE = 0, CG_REPORT_WRITING = 1, CG_REPORT_UNLOCKED = 2, CG_REPORT_ENDED = 3 };
#define CG_REPORT_BUSY(s) ((s) == CG_REPORT_WRITING || (s) == CG_REPORT_UNLOCKED)




#endif /* CG_REPORT_H */
