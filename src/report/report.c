/*
 * report.c — fatal reports (see report.h).
 */
#include "report.h"

#include "lock.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render.h"
#include "options.h"
#include "thread.h"

static const char *const tokens[CG_E_COUNT] = {
#define CG_ERROR(id, token) [CG_E_##id] = token,
#include "errors.def"
#undef CG_ERROR
};

/* One report at a time, process-wide: reports from several threads are
 * written whole, one after the other.  A report begun on a thread that is
 * already writing one (a fault inside the reporter) aborts at once. */
static cg_lock_t report_lock = CG_LOCK_INIT(CG_LK_REPORT);

/* The thread whose fatal report is ending the process (its kernel tid), or
 * 0.  Other threads' reports wait for the end instead of following it onto
 * the log (threads that fault at once: one report, as ASan's). */
static uint32_t ending_tid;

void cg_report_exit(void)
{
    __atomic_store_n(&ending_tid, cg_lock_me(), __ATOMIC_RELEASE);
    /* A program that catches SIGABRT and longjmps out must still be able
     * to get its next report. */
    if (cg_self.in_report)
        cg_report_leave();
    /* exitcode given alone selects exiting; abort_on_error=1 given wins. */
    bool do_abort = CG_OPT_GIVEN(abort_on_error) ? cg_opt.abort_on_error
                                                 : !CG_OPT_GIVEN(exitcode);
    if (do_abort)
        cg_os_abort();
    cg_os_exit(cg_opt.exitcode);
}

bool cg_report_ending(void)
{
    return __atomic_load_n(&ending_tid, __ATOMIC_ACQUIRE) != 0;
}

const char *cg_error_token(cg_error_t kind)
{
    return tokens[kind];
}

void cg_report_enter(void)
{
    if (cg_self.in_report) {
        static const char nested[] = "==chunkguard: error while reporting an error; aborting\n";
        cg_os_write_all(2, nested, sizeof nested - 1);
        cg_os_abort();
    }
    cg_self.in_report = 1;
    /* Another thread's fatal report is ending the process (it released the
     * lock on its way to abort): wait for the end, up to 2 s, should the
     * program catch the abort and go on. */
    uint32_t me = cg_lock_me();
    for (int i = 0;; i++) {
        cg_lock(&report_lock);
        uint32_t ending = __atomic_load_n(&ending_tid, __ATOMIC_ACQUIRE);
        if (ending == 0 || ending == me || i == 2000)
            break;
        cg_unlock(&report_lock);
        cg_os_sleep_ms(1);
    }
    if (__atomic_load_n(&ending_tid, __ATOMIC_ACQUIRE) == me)
        __atomic_store_n(&ending_tid, 0, __ATOMIC_RELEASE);   /* it went on */
}

void cg_report_lock_all(void) { cg_lock(&report_lock); }

void cg_report_unlock_all(bool child)
{
    cg_lock_after_fork(&report_lock, child);
}

void cg_report_leave(void)
{
    cg_unlock(&report_lock);
    cg_self.in_report = 0;
}

void cg_report(const cg_call_t *call, cg_error_t kind, const void *addr, const char *check,
               const char *glibc)
{
    uintptr_t pc = call->caller;
    cg_rdata_t d = {
        .kind = kind, .addr = addr, .op = call->op ? call->op : "an allocator call",
        .message = check, .glibc = glibc, .tid = cg_self.tid ? (int)cg_self.tid - 1 : -1,
        .stacks = { { NULL, -1, &pc, 1 } }, .nstacks = 1,
    };
    cg_report_emit(&d, false);
    cg_report_exit();             /* not reached: fast-mode reports are final */
}
