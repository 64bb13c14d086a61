/*
 * init.c — one-time set-up, thread exit, fork handlers, and the exit-time
 * statistics file.
 *
 * Initialisation runs on the first slow-path call (often inside the dynamic
 * loader's start-up, before any constructor) and again harmlessly from our
 * constructor.  The core is usable before the pthread registrations at its
 * end, because those may call malloc themselves.
 */
#define _GNU_SOURCE
#include "init.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/auxv.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "bigblock.h"
#include "debug.h"
#include "leaks.h"
#include "fault.h"
#include "guard.h"
#include "guardpool.h"
#include "sample.h"
#include "quarantine.h"
#include "shadow.h"
#include "stack.h"
#include "stackdepot.h"
#include "info.h"
#include "params.h"
#include "lockdep.h"
#include "symbolize.h"
#include "options.h"
#include "report.h"
#include "dedup.h"
#include "maps.h"
#include "mode.h"
#include "reentry.h"
#include "tcache.h"
#include "fastbin.h"
#include "vgclient.h"

int cg_init_state;            /* 0 not started, 1 in progress, 2 ready */
static int core_ready;
static unsigned exit_key;
static bool exit_key_ok;

/* The mode's part of a thread's exit runs inside, as a slow path: debug
 * mode's moves the thread's quarantine batch and releases blocks (arena
 * and quarantine locks), which a signal handler's malloc must not enter. */
static void mode_thread_exit(void)
{
    cg_vg_quiet_begin();
    if (cg_mode.thread_exit != NULL)
        cg_mode.thread_exit();
    cg_vg_quiet_end();
}

CG_HOT_TEXT static void thread_exit(void *arg)
{
    (void)arg;
    CG_GUARDED_VOID((void)0, (cg_tcache_shutdown(), mode_thread_exit()));
}

/* The key's value only has to be non-NULL for its destructor to run. */
CG_HOT_TEXT void cg_thread_register_exit(struct cg_tcache *tc)
{
    if (exit_key_ok)
        cg_os_thread_key_set(exit_key, tc != NULL ? (void *)tc : (void *)&exit_key);
}

/*
 * Fork (docs/design.md, "Fork"): prepare takes glibc's stdio list lock,
 * then every chunkguard lock in one documented order — the arena list,
 * the arenas by index (main first), the big-block registry, debug mode's
 * shadow records, quarantine, guard mode's ranges and the stack depot, the
 * symbolizer's cache, and last the lock-order graph's own lock — so that
 * no lock is held mid-update by a thread that does not exist in the child.
 *
 * The stdio list lock comes first because glibc's fork takes it after the
 * prepare handlers, and the running code nests the other way round:
 * fflush(NULL) takes FILE locks inside it, and getline reallocs inside a
 * FILE lock.  A prepare handler holding our locks while fork waits for the
 * list lock closes a cycle (fork -> fflush -> getline -> fork); glibc's own
 * malloc takes its locks after the list lock for that reason.  The lock is
 * recursive, so glibc's fork then takes it again without waiting: fork
 * never waits for a libc lock while it holds ours.  Taken only when the
 * process has threads, as glibc does.
 *
 * The report lock is not taken: a report that another thread begins while
 * this one forks — the watchdog's, about a thread waiting behind the fork
 * — must not wait for the forking thread; the child resets the lock (its
 * holder is not in the child, and each report rewrites its buffers from
 * the start).
 *
 * Signals (but faults and abort) are blocked from prepare to the end of
 * the parent or child handler: a signal handler's fork — legal in a
 * single-threaded process — would otherwise run prepare again on the locks
 * this thread holds (a signal that arrives during the clone system call is
 * delivered as it returns, between prepare and the parent handler).  A
 * handler's fork before our prepare or after our parent handler runs
 * whole, as in glibc.
 *
 * The order is the nesting order of the running code (outer first), and
 * in debug mode the lock-order graph checks it: the handler's acquisitions
 * are edges like any others.  The parent releases the locks in reverse
 * order, the child resets them.  Registered at initialisation, before the
 * program's first allocation returns, so ours is the first handler
 * registered and prepare runs it last, after the program's.
 *
 * The state below is written while every lock is held (prepare's locks
 * serialise forking threads) and read before the locks are let go.
 */
static bool fork_held;        /* prepare took the locks (init was done)   */
static bool forked_mt;        /* the process had threads when it forked   */
static bool stdio_held;       /* prepare took glibc's stdio list lock     */
static uint64_t fork_sigmask; /* the forking thread's mask before prepare */

/*
 * The call the handlers work for: the program's fork, at the call site our
 * fork() noted (cg_fork_for).  A report made inside them — a deadlock on
 * a lock this thread holds (a signal handler's fork inside malloc), a
 * wait behind another thread, another thread's wait behind this one —
 * then names the program's call of fork, not fork_prepare.  A fork that
 * did not come through our fork() (libc's own: daemon, forkpty; a
 * program linked with libchunkguard.a) has no call site: the handler's
 * own address stands for it, as before.
 */
/* The call site of the fork each thread is in, by kernel thread id: a
 * slot claimed by its thread (tid % FORK_SLOTS), so the thread state
 * (initial-exec TLS, 64 bytes) stays as small as it is.  A thread whose
 * slot another forking thread holds gives no call site (0). */
#define FORK_SLOTS 64
static uint32_t fork_slot_tid[FORK_SLOTS];
static uintptr_t fork_slot_caller[FORK_SLOTS];

static uintptr_t fork_caller(void)
{
    size_t i = cg_lock_me() % FORK_SLOTS;
    uintptr_t c = CG_LOAD(fork_slot_caller[i]);
    return __atomic_load_n(&fork_slot_tid[i], __ATOMIC_ACQUIRE) == cg_lock_me() ? c : 0;
}

CG_FORK_PATH pid_t cg_fork_for(uintptr_t caller)
{
    uint32_t me = cg_lock_me(), free_ = 0;
    size_t i = me % FORK_SLOTS;
    /* this thread's slot: claimed now, or already (a signal handler's
     * fork inside this thread's own keeps its call, and gives the outer
     * one back after, as errno) */
    bool mine = CG_LOAD(fork_slot_tid[i]) == me;
    bool claimed = !mine && __atomic_compare_exchange_n(&fork_slot_tid[i], &free_, me, false,
                                                        __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
    uintptr_t outer = mine ? CG_LOAD(fork_slot_caller[i]) : 0;
    if (mine || claimed)
        CG_STORE(fork_slot_caller[i], caller);
    CG_SIGNAL_FENCE();
    pid_t pid = cg_os_fork();
    CG_SIGNAL_FENCE();
    if (pid == 0) {
        /* the child: its thread has another tid, the slot is free there */
        if (claimed || mine)
            __atomic_store_n(&fork_slot_tid[i], 0, __ATOMIC_RELEASE);
    } else if (mine) {
        CG_STORE(fork_slot_caller[i], outer);
    } else if (claimed) {
        __atomic_store_n(&fork_slot_tid[i], 0, __ATOMIC_RELEASE);
    }
    return pid;
}

/*
 * Is this fork made while this thread is inside chunkguard: from a signal
 * handler that interrupted its own malloc, free or other call (the
 * re-entry mark, reentry.h; an unwind it was making included), not from
 * a report's callback?  In a process with threads the interrupted call may hold one
 * of our locks, which prepare would then wait for in this very thread —
 * possibly one it has taken but not yet noted as its own (lock.h,
 * cg_lock_taken), which no deadlock test can recognise — and the child
 * would get an arena in the middle of an update.  glibc's malloc hangs
 * there; prepare reports it at once instead (LOCK_FORK_INSIDE), before it
 * waits for anything, libc's stdio list lock included, whether or not a
 * lock is held at that instant: a report only when the race is lost would
 * come in some runs and not in others, where the program's fault (fork in
 * a handler of a threaded process: not async-signal-safe) is the same
 * every time.  A single-threaded process takes none of our locks, and its
 * handler's fork goes through, as in glibc (issue 13, point 2).
 */
CG_FORK_PATH static bool fork_inside(void)
{
    return cg_reentered() && cg_self.in_report == CG_REPORT_NONE;
}

/* (Each handler is quiet under valgrind: the locks live in memory kept
 * from the program, base/vgclient.h.) */
CG_FORK_PATH static void fork_prepare(void)
{
    if (cg_init_state != 2)
        return;
    cg_vg_quiet_begin();
    bool mt = !CG_SINGLE_THREAD_P;
    if (mt && fork_inside()) {
        const cg_call_t call = { .caller = fork_caller(), .op = CG_OP(fork), .mt = mt };
        cg_lock_report_fork_inside(&call, call.caller ? call.caller : CG_RET_ADDR);
    }
    uint64_t mask;
    cg_os_block_async_signals(&mask);
    bool stdio = mt && cg_os_stdio_list_lock();
    /* Debug mode: the locks' sites are prepare's return addresses, not
     * stacks — no unwinding here (the recursion guard of stack.c says so):
     * a fork from a signal handler lands on a new stack every time, which
     * the stack memo cannot know, and one walk through the signal frame
     * cost more than the fork (tests/locks/fork_signal.c). */
    const cg_call_t call = { .caller = fork_caller(), .op = CG_OP(fork), .mt = mt };
    uint8_t capturing = cg_self.in_capture;
    cg_self.in_capture = 1;
    cg_arenas_lock_all(&call);
    cg_big_lock_all(&call);
    cg_shadow_lock_all(&call);
    cg_quarantine_lock_all(&call);
    cg_gpool_lock_all(&call);
    cg_stackdepot_lock(&call);
    cg_symbolize_lock_all(&call);
    cg_lockdep_lock_all();
    cg_self.in_capture = capturing;
    fork_held = true;
    forked_mt = mt;
    stdio_held = stdio;
    fork_sigmask = mask;
    cg_vg_quiet_end();
}

CG_FORK_PATH static void fork_unlock_all(bool child)
{
    cg_lockdep_unlock_all(child);
    cg_symbolize_unlock_all(child);
    cg_stackdepot_unlock(child);
    cg_gpool_unlock_all(child);
    cg_quarantine_unlock_all(child);
    cg_shadow_unlock_all(child);
    cg_big_unlock_all(child);
    cg_arenas_unlock_all(child);
}

CG_FORK_PATH static void fork_parent(void)
{
    if (!fork_held)
        return;
    bool stdio = stdio_held;
    uint64_t mask = fork_sigmask;
    fork_held = false;
    cg_vg_quiet_begin();
    fork_unlock_all(false);
    if (stdio)
        cg_os_stdio_list_unlock();    /* glibc's fork let go of its own hold */
    cg_vg_quiet_end();
    cg_os_restore_signals(mask);
}

static void stats_begin(void);

CG_FORK_PATH static void fork_child(void)
{
    if (!fork_held)
        return;
    fork_held = false;
    cg_vg_quiet_begin();
    fork_unlock_all(true);
    cg_report_after_fork_child();
    if (stdio_held)
        cg_os_stdio_list_reset();     /* glibc's child reset it too, when it took it */
    if (forked_mt)           /* fast mode too: its reports unwind */
        cg_stack_after_fork_child(cg_mode.instrumented);
    cg_tcache_after_fork_child();
    cg_reentry_after_fork_child();
    stats_begin();
    cg_vg_quiet_end();
    cg_os_restore_signals(fork_sigmask);
}

/*
 * When the handlers are registered.  In debug and guard mode, in a
 * process that already has threads, and when chunkguard is linked into
 * the program (libchunkguard.a), at initialisation, as before.  In fast
 * mode as a shared library, only once something needs them: the
 * program's first fork() or pthread_atfork() (entry/interpose.c has both,
 * and registers ours before the program's own handler, so ours is still
 * the first registered and prepare still runs it last), or a second
 * thread's first call (thread_start, entry/api.c), which covers the forks
 * libc makes without calling fork() (daemon, forkpty) once the process
 * has threads.  A process that never forks and never starts a thread
 * never runs libc's registration, whose code and data are two 64 kB
 * windows of libc that nothing else maps (docs/performance.md, perf11).
 * A single-threaded process's fork by daemon() or forkpty() before any of
 * these runs no handler: no lock can be held then (chunkguard takes none
 * while single-threaded, and the only thread is in fork), so what that
 * child misses is the restart of its counts.  The counts a user is shown
 * without asking (the stats_path line, the suppressed-report counts) keep
 * it: with stats_path or suppressions set the handlers are registered at
 * initialisation, as in debug mode.  What is left is cg_get_stats called
 * in such a child (include/chunkguard.h says so).
 */
static int fork_reg;          /* 0: not registered, 1: being, 2: done */
static uint32_t fork_reg_by;  /* ktid of the registering thread       */

CG_HOT_TEXT void cg_fork_handlers_need(void)
{
    if (CG_LIKELY(__atomic_load_n(&fork_reg, __ATOMIC_ACQUIRE) == 2))
        return;
    int expected = 0;
    uint32_t me = (uint32_t)cg_os_gettid();
    if (__atomic_compare_exchange_n(&fork_reg, &expected, 1, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&fork_reg_by, me, __ATOMIC_RELAXED);
        cg_os_atfork(fork_prepare, fork_parent, fork_child);
        __atomic_store_n(&fork_reg, 2, __ATOMIC_RELEASE);
        return;
    }
    /* Another thread is registering (one call into libc); this thread's
     * signal handler interrupting its own registration does not wait. */
    if (__atomic_load_n(&fork_reg_by, __ATOMIC_RELAXED) == me)
        return;
    uint64_t deadline = cg_os_now_ns() + 2000000000ull;
    while (__atomic_load_n(&fork_reg, __ATOMIC_ACQUIRE) != 2 && cg_os_now_ns() < deadline)
        cg_os_yield();
}

/* Options that change the core's parameters; they win over glibc's
 * settings (tunables.c), which ran first. */
static void apply_options(void)
{
    if (CG_OPT_GIVEN(fill_alloc) || CG_OPT_GIVEN(fill_free))
        cg_param_set_fill(CG_OPT_GIVEN(fill_alloc) ? cg_opt.fill_alloc : cg_mp.alloc_fill,
                          CG_OPT_GIVEN(fill_free) ? cg_opt.fill_free : cg_mp.free_fill);
}

/* verbosity >= 1: one line saying chunkguard is in charge, and how. */
CG_HOT_TEXT static void say_hello(void)
{
    char buf[512];
    /* only a value that asks for what fast mode does not do: it halts on
     * every report, and detect_leaks=0 or halt_on_error=1 are its way */
    if (!cg_mode.instrumented && (cg_opt.detect_leaks || !cg_opt.halt_on_error)) {
        size_t w = cg_fmt(buf, sizeof buf, "==%d==WARNING: chunkguard: detect_leaks and "
                          "halt_on_error act in debug and guard mode only (mode=debug or "
                          "mode=guard)\n", (int)cg_os_getpid());
        cg_log_write(buf, w);
    }
    if (cg_opt.verbosity < 1)
        return;
    size_t n = cg_fmt(buf, sizeof buf, "==%d==chunkguard: %s mode; ", (int)cg_os_getpid(),
                      cg_mode.name);
    if (cg_mode.instrumented)
        n += cg_fmt(buf + n, sizeof buf - n, "redzone %d B, quarantine %d MiB, stack_depth %d, "
                    "detect_leaks %d, halt_on_error %d, ", cg_opt.redzone, cg_opt.quarantine_mb,
                    cg_opt.stack_depth, (int)cg_opt.detect_leaks, (int)cg_opt.halt_on_error);
    else
        n += cg_fmt(buf + n, sizeof buf - n, "tcache %zu bins x %zu, fastbin chunks <= %zu B, ",
                    cg_mp.tcache_bins, cg_mp.tcache_count, cg_mp.max_fast);
    n += cg_fmt(buf + n, sizeof buf - n, "mmap_threshold %zu, arena_max %zu%s, alloc_fill %d, "
                "free_fill %d, CPUs %zu\n", cg_mp.mmap_threshold,
                cg_mp.arena_max ? cg_mp.arena_max : 8 * cg_ncpus,
                cg_mp.arena_max ? "" : " (8 x CPUs)", cg_mp.alloc_fill, cg_mp.free_fill, cg_ncpus);
    cg_log_write(buf, n);
}

static void write_stats_file(void);
static void exit_now_checks(void);

static void init_core(void)
{
#ifndef CHUNKGUARD_PREFIXED
    (void)*(volatile const char *)&cg_forkreg_anchor;   /* links atforkreg.o (init.h) */
#endif
    unsigned long ps = cg_os_getauxval(AT_PAGESZ);
    if (ps >= 4096 && (ps & (ps - 1)) == 0)
        cg_pagesize = ps;
    /* Quiet under valgrind from here (vgclient.h): the first heap's
     * header is written into memory kept from the program. */
    cg_vg_init();
    cg_vg_quiet_begin();
    cg_tcache_key = (uintptr_t)cg_os_random64();
    cg_fastbin_secret = (uintptr_t)cg_os_random64();
    cg_link_secret = (uintptr_t)cg_os_random64() & ~(uintptr_t)CG_ALIGN_MASK;
    cg_tunables_init();
    cg_options_init();
    cg_os_exe();                    /* read /proc now, while it is there */
    /* MALLOC_CHECK_=1..3 (glibc.malloc.check): glibc's checking allocator,
     * whose malloc_usable_size is the size requested; debug mode is ours
     * (docs/options.md, "glibc's settings").  A mode given wins. */
    if (cg_tunable_check != 0 && !CG_OPT_GIVEN(mode))
        cg_opt.mode = CG_OPT_MODE_DEBUG;
    apply_options();
    cg_supp_init();
    cg_leak_exit_hook = write_stats_file;
    cg_debug_init();
    /* guard mode: debug mode's table, every block guarded (debug/sample.h) */
    cg_mode = cg_opt.mode == CG_OPT_MODE_FAST ? cg_mode_fast : cg_mode_debug;
    /* Under valgrind every call goes to the table, which describes each
     * block to memcheck (base/vgclient.h): no tcache, so no inline hit. */
    if (cg_vg_on)
        cg_mode.tcache = false;
    cg_sample_install(&cg_mode);
    cg_lockdep_init(cg_mode.instrumented);
    cg_fault_install();
    cg_ncpus = cg_os_ncpus();
    cg_arena_init(&cg_main_arena, 0);
    /* Without a first heap (a tight RLIMIT_AS) the main arena starts empty
     * and tries again on its first allocation; until then every block is
     * a big block of its own. */
    cg_heap_t *h = cg_heap_new(&cg_main_arena, 128 * 1024);
    if (h != NULL)
        cg_arena_setup_heap(&cg_main_arena, h);
    cg_main_arena.attached_threads = 0;
    cg_mp.narenas = 1;
    say_hello();
    cg_vg_quiet_end();
}

CG_HOT_TEXT void cg_init_slow(void)
{
    int expected = 0;
    /* While single-threaded no other thread can race us: a plain store
     * keeps even start-up free of locked instructions. */
    bool won = CG_SINGLE_THREAD_P
                   ? (cg_init_state == 0 && (cg_init_state = 1, true))
                   : __atomic_compare_exchange_n(&cg_init_state, &expected, 1, false,
                                                 __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE);
    if (won) {
        init_core();
        __atomic_store_n(&core_ready, 1, __ATOMIC_RELEASE);
        exit_key_ok = cg_os_thread_key(&exit_key, thread_exit);
        if (cg_mode.instrumented || !CG_SINGLE_THREAD_P || cg_os_in_main_program() ||
            cg_opt.stats_path[0] != 0 || cg_opt.suppressions[0] != 0)
            cg_fork_handlers_need();
        __atomic_store_n(&cg_init_state, 2, __ATOMIC_RELEASE);
        return;
    }
    /* A call from inside the registrations above (same thread): the core is
     * ready.  Another thread racing the very first call waits. */
    while (!__atomic_load_n(&core_ready, __ATOMIC_ACQUIRE))
        cg_os_yield();
}

__attribute__((constructor)) static void cg_constructor(void)
{
    /* Constructors of one library run in link order, and in a static link
     * in whatever order the objects were pulled in: the options may not
     * have been read yet if nothing has called malloc. */
    cg_ensure_init();
    cg_vg_quiet_begin();
    if (cg_mode.start != NULL)
        cg_mode.start();
    stats_begin();
    /* glibc's quick_exit ends the process by libc's own _exit, past the
     * exported one: this handler, registered before the program's, runs
     * after them, as the last thing before that _exit.  Only when it has
     * something to do (fast mode without stats_path has nothing). */
    if (cg_mode.at_exit_now != NULL || cg_opt.stats_path[0] != 0)
        (void)cg_os_at_quick_exit(exit_now_checks);
    cg_vg_quiet_end();
}

/* ---- statistics file -------------------------------------------------- */

static bool maps_have_brk_heap(void)
{
    cg_maps_reader_t rd;
    cg_mapping_t m;
    bool found = false;
    if (!cg_maps_open(&rd))
        return false;
    while (!found && cg_maps_next(&rd, &m))
        found = strcmp(m.path, "[heap]") == 0;
    cg_maps_close(&rd);
    return found;
}

/* The process whose stats line _exit may write: set at start-up and in
 * a fork child (whose handlers ran); a vfork or posix_spawn child, which
 * shares its parent's memory and counters, has another pid and writes
 * none. */
static int stats_pid;

/* stats_path at start-up, and in a fork child: the process is known.
 * With "%p" the file is its own: its first line, "start pid=N exe=PATH"
 * (the whole path, to the end of the line), is written now, so that a
 * process that ends without its exit line (killed by a signal; exec'd a
 * program without chunkguard) still leaves a file naming its program
 * (tools/chunkguard gives it a JUnit test case).  A program it exec'd
 * appends its own start line.  Without "%p" nothing is written now: the
 * file is shared, and holds the exit lines alone.  One write(), no
 * malloc: this runs in every fork child. */
CG_FORK_PATH static void stats_start_file(void);

CG_FORK_PATH static void stats_begin(void)
{
    stats_pid = cg_os_getpid();
    if (cg_opt.stats_path[0] == 0 || strstr(cg_opt.stats_path, "%p") == NULL)
        return;
    stats_start_file();
}

/* The start line itself: a function of its own (noinline) so that its
 * 8 KiB of buffers are a frame only when there is a file to start — on
 * stats_begin's own they took every fork child's stack two pages deeper,
 * each a page the child copies. */
CG_FORK_PATH static void stats_start_file(void)
{
    char path[CG_OPT_PATH_BUF];
    char line[CG_OS_EXE_MAX + 48];
    int saved = errno;
    cg_expand_path(path, sizeof path, cg_opt.stats_path);
    size_t n = cg_fmt(line, sizeof line, "start pid=%d exe=%s\n", stats_pid, cg_os_exe());
    cg_os_start_file(path, line, n);
    errno = saved;
}

/* The process's line, appended: a forked (or exec'd) child writing to the
 * same stats_path as its parent adds its line after the parent's, or
 * before it, and neither is lost (docs/options.md, stats_path). */
static void write_stats_file(void)
{
    if (cg_opt.stats_path[0] == 0)
        return;
    static int warned;          /* cg_path_open_warn's once-flag */
    char line[CG_PATH_MAX + 512];      /* exe= the whole path */
    cg_stats_t st;
    const cg_call_t call = cg_call_internal("exit");
    cg_get_stats_impl(&st, &call);
    size_t n = cg_fmt(line, sizeof line,
                      "pid=%d exe=%s mallocs=%zu frees=%zu callocs=%zu reallocs=%zu "
                      "memaligns=%zu mmapped_chunks=%zu arenas=%zu heaps=%zu brk_heap=%d "
                      "suppressed=%zu\n",
                      (int)cg_os_getpid(), cg_os_exe(), (size_t)st.mallocs, (size_t)st.frees,
                      (size_t)st.callocs, (size_t)st.reallocs, (size_t)st.memaligns,
                      (size_t)st.mmapped_chunks, (size_t)st.arenas, (size_t)st.heaps,
                      maps_have_brk_heap() ? 1 : 0, cg_supp_total());
    cg_path_write("stats_path", cg_opt.stats_path, line, n, true, &warned);
}

/* What an immediate end of the process (_exit, _Exit, daemon's parent,
 * quick_exit) does before it: the mode's block checks and the stats line.
 * (arg: unused; see exit_now_checks.) */
CG_FORK_PATH static void exit_now_work(void *arg)
{
    (void)arg;
    if (cg_init_state == 2)
        cg_report_wait_others();
    /* Not from inside chunkguard (a signal handler that interrupted it,
     * code it calls), nor after a report began to end the process: the
     * state the checks read may be half-changed, or has been reported.
     * Nor in a process our fork handlers did not see begin (stats_pid is
     * another's: a child of _Fork, vfork or a raw clone): there a lock
     * another thread of the parent held stays taken, with no thread to let
     * it go, and the checks and the stats take locks — such a child may
     * call only async-signal-safe functions, _exit among them, and its
     * _exit must end it (tests/locks/raw_fork_exit.c). */
    bool ours = stats_pid == 0 || stats_pid == cg_os_getpid();
    if (cg_init_state == 2 && ours && !cg_reentered() && !cg_self.in_report &&
        !cg_report_ending()) {
        if (cg_mode.at_exit_now != NULL)
            cg_mode.at_exit_now();
        /* _exit runs no destructor: the stats line is written here */
        if (stats_pid != 0)
            write_stats_file();
    }
}

/* Is this an exit from a signal handler on the program's own alternate
 * signal stack (a crash handler's, SIGSTKSZ), with less room left than
 * the exit's checks and their reports need?  Only that stack is
 * measured, with one system call: every fork child's _exit asks, and a
 * walk of the thread's own stack cost each child faults on the pages it
 * read (56-debug-perf fork-child-faults). */
CG_FORK_PATH static bool exit_stack_short(void)
{
    return cg_os_altstack_room((uintptr_t)__builtin_frame_address(0)) < CG_REPORT_ROOM;
}

/* exit_now_work on a stack with the room its checks and their reports
 * need: an _exit from a signal handler on the program's small alternate
 * signal stack would run them off its end. */
CG_FORK_PATH static void exit_now_checks(void)
{
    bool checks = cg_init_state == 2 && (cg_mode.at_exit_now != NULL || cg_opt.stats_path[0] != 0);
    if (!checks || !exit_stack_short() ||
        !cg_os_call_on_new_stack(exit_now_work, NULL, CG_REPORT_STACK))
        exit_now_work(NULL);
}

CG_FORK_PATH void cg_exit_now(int status)
{
    exit_now_checks();
    cg_os_exit(status);
}

/* The library's destructor's work (arg: unused): the mode's checks at
 * exit, then the stats file.  Hot text, as the destructor: every process
 * runs it, and fast mode's exit maps no page of the warm code
 * (50-fastpath fastpath-warm-pages-exit). */
CG_HOT_TEXT static void destructor_work(void *arg)
{
    (void)arg;
    /* another thread's report must not be cut short by our exit_group */
    cg_report_wait_others();
    cg_vg_quiet_begin();
    if (cg_mode.at_exit != NULL)
        cg_mode.at_exit();
    cg_supp_summary();
    if (cg_opt.stats_path[0] != 0)
        write_stats_file();
    cg_vg_quiet_end();
}

/* The library's destructor: destructor_work, on a stack with the room its
 * checks and their reports need (an exit from a signal handler on the
 * program's small alternate signal stack, as exit_now_checks).
 * Realigned: a program that hijacked a return address reaches exit with
 * its stack pointer off by 8, and these checks may report. */
__attribute__((destructor)) static CG_REALIGN void cg_destructor(void)
{
    if (cg_init_state != 2)
        return;
    if (!exit_stack_short() || !cg_os_call_on_new_stack(destructor_work, NULL, CG_REPORT_STACK))
        destructor_work(NULL);
}
