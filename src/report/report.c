/*
 * report.c — fatal reports (see report.h).
 */
#include "report.h"

#include "lock.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dedup.h"
#include "maps.h"
#include "render.h"
#include "options.h"
#include "symbolize.h"
#include "thread.h"
#include "vgclient.h"

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

/* The thread writing a report that is to end the process (its kernel
 * tid, set by cg_report_mark_fatal under the report lock), or 0: what
 * cg_report_wait_others ends the process as when that report never
 * finishes. */
static uint32_t fatal_tid;

void cg_report_mark_fatal(bool fatal)
{
    __atomic_store_n(&fatal_tid, fatal ? cg_lock_me() : 0, __ATOMIC_RELEASE);
}

/* Where the report of thread mark_tid (the report lock's holder, or the
 * thread ending the process) stood on its stack: the stack pointer of
 * its deepest mark (cg_report_enter_about, cg_report_exit) and whether
 * that was on its alternate signal stack.  cg_report_went_on reads it.
 * Written by that thread only, tid last. */
static uintptr_t mark_sp;
static bool mark_alt;
static uint32_t mark_tid;

/* Thread tid's report no longer ends the process (it went on, or is
 * gone): clear ending_tid, unless another thread's mark replaced it. */
static void ending_forget(uint32_t tid)
{
    __atomic_compare_exchange_n(&ending_tid, &tid, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* The calling thread's report is over though its code never returned to
 * finish it (a callback jumped out of it, or an exit ran from inside it
 * and did not end the process): its symbolizer batch closed, its head
 * state forgotten, the report lock released. */
static void drop_mine(void)
{
    cg_sym_batch_end();
    if (cg_self.in_report == CG_REPORT_WRITING)
        cg_render_went_on();
    cg_report_leave();
}

static CG_NOINLINE void mark_here(void)
{
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    mark_sp = sp;
    mark_alt = cg_os_on_altstack(sp);
    __atomic_store_n(&mark_tid, cg_lock_me(), __ATOMIC_RELEASE);
}

bool cg_report_went_on(uintptr_t sp)
{
    uint32_t me = cg_lock_me();
    if (cg_self.in_report == CG_REPORT_NONE ||
        __atomic_load_n(&mark_tid, __ATOMIC_ACQUIRE) != me)
        return false;
    /* on the alternate signal stack: a handler (SIGABRT's, a report
     * signal's own), whose frames are below the report's, or unrelated */
    if (cg_os_on_altstack(sp))
        return false;
    /* on the stack the report ran on, deeper than it: a handler or an
     * exit handler run from inside the report's frames */
    if (!mark_alt && sp <= mark_sp)
        return false;
    __atomic_store_n(&mark_tid, 0, __ATOMIC_RELEASE);
    if (CG_REPORT_BUSY(cg_self.in_report))       /* a callback jumped out */
        drop_mine();
    ending_forget(me);
    if (__atomic_load_n(&fatal_tid, __ATOMIC_RELAXED) == cg_lock_me())
        cg_report_mark_fatal(false);
    cg_self.in_report = CG_REPORT_NONE;
    return true;
}

/* End the process as a fatal report's options say (cg_report_exit). */
static _Noreturn void end_as_options(void)
{
    /* exitcode given alone selects exiting; abort_on_error=1 given wins. */
    bool do_abort = CG_OPT_GIVEN(abort_on_error) ? cg_opt.abort_on_error
                                                 : !CG_OPT_GIVEN(exitcode);
    if (do_abort)
        cg_os_abort();
    cg_os_exit(cg_opt.exitcode);
}

void cg_report_exit(void)
{
    __atomic_store_n(&ending_tid, cg_lock_me(), __ATOMIC_RELEASE);
    /* A program that catches SIGABRT and longjmps out must still be able
     * to get its next report. */
    if (CG_REPORT_BUSY(cg_self.in_report))
        cg_report_leave();
    mark_here();
    /* What runs from here on this thread — SIGABRT handlers (libFuzzer's
     * writes its crash input), exit handlers — may call malloc while the
     * thread is still inside the call that reported: such calls are
     * served apart and never reported (entry/reentry.c). */
    cg_self.in_report = CG_REPORT_ENDED;
    cg_supp_summary();             /* what was suppressed before this one */
    cg_vg_loud();                  /* exit and abort handlers are the program's */
    end_as_options();
}

/* The thread whose report ended the process, when it is still ending it:
 * 0 once it has gone on — its thread exited (a program that caught the
 * SIGABRT and longjmp'ed out of the thread), which clears the mark, so no
 * later report or exit waits its 2 s for an end that will not come.
 * CG_STARTUP: every process's exit calls it (cg_report_wait_others), and
 * in the cold segment that one call mapped 64 kB of it in fast mode. */
static CG_STARTUP uint32_t ending_now(void)
{
    uint32_t ending = __atomic_load_n(&ending_tid, __ATOMIC_ACQUIRE);
    if (ending != 0 && ending != cg_lock_me() && !cg_os_thread_signal(ending, 0)) {
        ending_forget(ending);
        return 0;
    }
    return ending;
}

CG_FORK_PATH bool cg_report_ending(void)
{
    return __atomic_load_n(&ending_tid, __ATOMIC_ACQUIRE) != 0;
}

/* The fatal report thread tid is writing did not finish in time (it waits
 * on a log nobody reads, or in a report callback that never returns):
 * end the process as that report would have, not with the program's own
 * exit status, with a line saying so where the log takes it. */
static _Noreturn void give_up_on(uint32_t tid)
{
    char line[160];
    size_t n = cg_fmt(line, sizeof line,
                      "==%d==chunkguard: the report of thread tid %d was not finished in "
                      "time; ending the process as it would have\n",
                      cg_os_getpid(), (int)tid);
    cg_log_write(line, n);
    __atomic_store_n(&ending_tid, cg_lock_me(), __ATOMIC_RELEASE);
    cg_self.in_report = CG_REPORT_ENDED;
    end_as_options();
}

/* The exiting thread is in the middle of a report of its own (a signal
 * handler that calls exit or _exit interrupted it, the symbolizer's run
 * its likeliest window; or the report callback called exit): the report
 * is written out, then the process ends as it would have, when it was to
 * end it.  When it was not, the exit goes on outside the report, whose
 * lock is released: what the exit reports next (detect_leaks' check) is
 * not taken for a report made inside this one, which aborted the
 * process with the leak report cut short. */
static void finish_mine(void)
{
    int fatal = cg_render_finish();
    if (fatal < 0)
        fatal = __atomic_load_n(&fatal_tid, __ATOMIC_ACQUIRE) == cg_lock_me() ||
                (cg_opt.halt_on_error && !cg_report_has_callback());
    if (fatal)
        cg_report_exit();
    drop_mine();
}

CG_FORK_PATH void cg_report_wait_others(void)
{
    if (CG_REPORT_BUSY(cg_self.in_report))
        finish_mine();
    uint32_t me = cg_lock_me();
    int64_t dl = CG_LOAD(cg_opt.deadlock_timeout_ms);
    uint64_t writing_ns = (uint64_t)(dl > 0 ? dl : 10000) * 1000000u;
    uint64_t ending_ns = 2000000000u, start = 0;
    for (;;) {
        uint32_t owner = CG_LOAD(report_lock.owner);
        uint32_t ending = ending_now();
        bool other = owner != 0 && owner != me;
        bool others_ending = ending != 0 && ending != me;
        /* Nothing to wait for: the usual case, in every exit and every
         * fork child's _exit, which then reads no clock (in a child the
         * clock's first read costs three page faults: libc's code, the
         * vDSO's and its data page). */
        if (!other && !others_ending)
            return;
        uint64_t now = cg_os_now_ns();
        if (start == 0)
            start = now;
        uint64_t waited = now - start;
        bool writing = other && waited < writing_ns;
        bool going = others_ending && waited < ending_ns;
        if (other && !writing && __atomic_load_n(&fatal_tid, __ATOMIC_ACQUIRE) == owner)
            give_up_on(owner);
        if (!writing && !going)
            return;
        cg_os_sleep_ms(1);
    }
}

const char *cg_error_token(cg_error_t kind)
{
    return tokens[kind];
}

/*
 * Take the report lock — unless the wait could last for ever, when the
 * report is written without it (false): its holder is this thread (held
 * outside a report: nothing of ours does that, but a report must not be
 * what hangs), or the thread the report is about (about: a lock report's
 * holder, which the watchdog judged stuck — it may be stuck inside a
 * report), or a thread that has kept it deadlock_timeout_ms (not 0) with
 * no other report taking it meanwhile.  The reporter needs no other lock
 * (the symbolizer's cache is only tried), so no report waits on a lock
 * its own thread may hold.  Polls: reports are rare.
 */
static bool report_lock_take(uint32_t about)
{
    uint32_t me = cg_lock_me();
    int64_t limit = (int64_t)CG_LOAD(cg_opt.deadlock_timeout_ms) * 1000000;
    uint64_t start = 0;
    uint32_t gen = 0;
    for (unsigned i = 0;; i++) {
        if (cg_trylock(&report_lock))
            return true;
        uint32_t owner = CG_LOAD(report_lock.owner);
        if (owner != 0 && (owner == me || owner == about))
            return false;
        if (i < CG_LOCK_SPIN) {
            CG_CPU_RELAX();
            continue;
        }
        uint64_t now = cg_os_now_ns();
        uint32_t g = CG_LOAD(report_lock.gen);
        if (i == CG_LOCK_SPIN || g != gen) {
            start = now;
            gen = g;
        } else if (limit > 0 && (int64_t)(now - start) >= limit) {
            return false;
        }
        cg_os_sleep_ms(1);
    }
}

void cg_report_enter_about(uint32_t about)
{
    if (CG_REPORT_BUSY(cg_self.in_report)) {
        static const char nested[] = "==chunkguard: error while reporting an error; aborting\n";
        cg_render_flush_head();
        cg_os_write_all(2, nested, sizeof nested - 1);
        cg_os_abort();
    }
    /* Another thread's fatal report is ending the process (it released the
     * lock on its way to abort): wait for the end, up to 2 s, should the
     * program catch the abort and go on. */
    uint32_t me = cg_lock_me();
    for (int i = 0;; i++) {
        if (!report_lock_take(about)) {
            cg_self.in_report = CG_REPORT_UNLOCKED;
            break;
        }
        cg_self.in_report = CG_REPORT_WRITING;
        mark_here();
        uint32_t ending = ending_now();
        if (ending == 0 || ending == me)
            break;
        if (i == 2000) {                /* it went on without ending */
            ending_forget(ending);
            break;
        }
        cg_unlock(&report_lock);
        cg_self.in_report = CG_REPORT_NONE;
        cg_os_sleep_ms(1);
    }
    if (__atomic_load_n(&ending_tid, __ATOMIC_ACQUIRE) == me)
        __atomic_store_n(&ending_tid, 0, __ATOMIC_RELEASE);   /* it went on */
}

void cg_report_enter(void)
{
    cg_report_enter_about(0);
}

CG_FORK_PATH void cg_report_after_fork_child(void)
{
    cg_lock_reinit(&report_lock);
    CG_CLEAR_IF_SET(ending_tid);     /* (platform.h: no page copy when clear) */
    CG_CLEAR_IF_SET(fatal_tid);
    CG_CLEAR_IF_SET(mark_tid);
    cg_render_after_fork_child();
    cg_maps_after_fork_child();
    cg_supp_after_fork_child();
}

void cg_report_leave(void)
{
    if (__atomic_load_n(&fatal_tid, __ATOMIC_RELAXED) == cg_lock_me())
        cg_report_mark_fatal(false);
    if (cg_self.in_report == CG_REPORT_WRITING)
        cg_unlock(&report_lock);
    cg_self.in_report = CG_REPORT_NONE;
}

void cg_report_run(void (*body)(void *arg), void *arg)
{
    /* This frame is small (the room check's, the switch's): the report's
     * big ones are body's, built on the stack picked here.  On a stack
     * mapped for it, its frames are marked there (cg_report_enter_about,
     * cg_report_exit). */
    if (cg_os_stack_room((uintptr_t)__builtin_frame_address(0), CG_REPORT_ROOM) < CG_REPORT_ROOM &&
        cg_os_call_on_new_stack(body, arg, CG_REPORT_STACK))
        return;
    /* a step of the report under way, on the stack it is on: its frames
     * reach down to here */
    if (CG_REPORT_BUSY(cg_self.in_report) &&
        __atomic_load_n(&mark_tid, __ATOMIC_RELAXED) == cg_lock_me())
        mark_here();
    cg_os_call_on_stack(body, arg, NULL);
}

size_t (*cg_report_stack_hook)(uintptr_t *pcs, size_t max, uintptr_t caller);

/* cg_report, and cg_report_addr_unknown with unknown set.  The stack is
 * the calling thread's now, through cg_report_stack_hook. */
static _Noreturn void report_final(const cg_call_t *call, cg_error_t kind, const void *addr,
                                   bool unknown, const char *check, const char *glibc)
{
    uintptr_t pcs[CG_REPORT_FRAMES] = { call->caller };
    cg_rdata_t d = {
        .kind = kind, .addr = addr, .addr_unknown = unknown,
        .op = call->op ? call->op : "an allocator call",
        .message = check, .glibc = glibc, .tid = cg_self.tid ? (int)cg_self.tid - 1 : -1,
        .stacks = { { NULL, -1, pcs, 1 } }, .nstacks = 1,
    };
    /* The first lines out before the unwind, which reads the program's
     * stack, as debug mode's reports do: a fault in it (a smashed stack)
     * loses nothing already written.  The unwind runs on the stack this
     * report is on: not when little of it is left (a small thread stack,
     * deep recursion, an alternate signal stack); no frames from it (no
     * unwinder): the call site alone. */
    if (cg_report_stack_hook != NULL &&
        cg_os_stack_room((uintptr_t)__builtin_frame_address(0), CG_REPORT_ROOM) >= CG_REPORT_ROOM) {
        cg_report_emit_head(&d);
        size_t n = cg_report_stack_hook(pcs, CG_REPORT_FRAMES, call->caller);
        if (n != 0)
            d.stacks[0].n = n;
        else
            pcs[0] = call->caller;
    }
    cg_report_emit(&d, false);
    cg_report_exit();             /* not reached: fast-mode reports are final */
}

void cg_report(const cg_call_t *call, cg_error_t kind, const void *addr, const char *check,
               const char *glibc)
{
    report_final(call, kind, addr, false, check, glibc);
}

void cg_report_addr_unknown(const cg_call_t *call, cg_error_t kind, const char *check,
                            const char *glibc)
{
    report_final(call, kind, NULL, true, check, glibc);
}
