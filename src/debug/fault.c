/*
 * fault.c — SIGSEGV/SIGBUS: a fault inside chunkguard's code, or on an
 * address in chunkguard's heaps, becomes a report instead of a bare crash.
 *
 * Installed at initialisation (option handle_segv, default on) with
 * sigaction, remembering the handler that was there.  A fault that is not
 * ours — the program's own NULL dereference, say — is passed to that
 * handler, or, when it was the default action, the default is restored and
 * the faulting instruction runs again, so the program dies exactly as it
 * would have without us.  A handler the program installs later, with
 * sigaction or signal, goes behind ours (entry/signals.c): the program
 * sees its own handler when it asks, gets every fault that is not ours as
 * the kernel gave it, and a bad access to a block is still reported.  A
 * SIGSEGV or SIGBUS sent by kill or raise is never ours.
 *
 * A fault of the program's own at its stack pointer, below its stack, is
 * a stack overflow (fault_stack_overflow); reported in the instrumented
 * modes as stack-overflow, not as a wild access, then the default action.
 *
 * Ours are: a fault whose instruction is in libchunkguard's code (our
 * metadata was damaged past what the checks could see: a wild write), and
 * a fault on an address inside one of our heap regions (the guard page
 * between a heap's metadata and its first block: an underflow).  In debug
 * mode the report also says what the shadow knows of the address.
 *
 * In the instrumented modes each thread gets its own alternate signal
 * stack as it starts (pthread_create, entry/threadreg.c) or at its first
 * call (unless the program set one), so the handler runs on a smashed or
 * exhausted stack too.  On a program's own alternate stack with too
 * little room left for the work (SIGSTKSZ) that work moves to a stack
 * mapped for it; the program's handler is still called on its own
 * (on_fault).
 */
#define _GNU_SOURCE
#include "fault.h"

#include <elf.h>
#include <link.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/auxv.h>
#include <ucontext.h>
#include <unistd.h>

#include "debug.h"
#include "describe.h"
#include "guard.h"
#include "bigblock.h"
#include "heap.h"
#include "lock.h"
#include "maps.h"
#include "options.h"
#include "checks.h"
#include "render.h"
#include "report.h"
#include "shadow.h"
#include "symbolize.h"
#include "thread.h"
#include "vgclient.h"

static uintptr_t code_lo, code_hi;      /* our executable mapping */

/* The program's own disposition of SIGSEGV ([0]) and SIGBUS ([1]): what
 * was there when ours was installed, then what the program set.  Written
 * by cg_fault_sigaction with every signal blocked and one writer at a time,
 * read by the handler under a sequence count (odd while a write is on). */
struct prog_action {
    _Atomic unsigned seq;
    struct sigaction sa;
};
static struct prog_action prog[2];
static atomic_flag prog_writing = ATOMIC_FLAG_INIT;
static bool installed;

static struct prog_action *prog_of(int sig) { return &prog[sig == SIGBUS]; }

static void prog_get(int sig, struct sigaction *out)
{
    struct prog_action *p = prog_of(sig);
    unsigned s;
    do {
        while ((s = atomic_load_explicit(&p->seq, memory_order_acquire)) & 1)
            CG_CPU_RELAX();
        memcpy(out, &p->sa, sizeof *out);
        atomic_thread_fence(memory_order_acquire);
    } while (atomic_load_explicit(&p->seq, memory_order_relaxed) != s);
}

static void prog_set(int sig, const struct sigaction *act)
{
    struct prog_action *p = prog_of(sig);
    unsigned s = atomic_load_explicit(&p->seq, memory_order_relaxed);
    atomic_store_explicit(&p->seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    memcpy(&p->sa, act, sizeof *act);
    atomic_store_explicit(&p->seq, s + 2, memory_order_release);
}

/* The disposition is the handler's value alone, as the kernel reads it:
 * SIG_DFL or SIG_IGN with SA_SIGINFO set is still that disposition (the
 * handler words share storage), never a function to call. */
static bool prog_default(const struct sigaction *a)
{
    return a->sa_handler == SIG_DFL;
}

bool cg_fault_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (!installed || (sig != SIGSEGV && sig != SIGBUS))
        return false;
    /* every signal blocked: a handler of this thread that calls sigaction
     * cannot find the write half done; other threads wait their turn */
    sigset_t all, mask;
    sigfillset(&all);
    cg_os_sigmask(SIG_BLOCK, &all, &mask);
    while (atomic_flag_test_and_set_explicit(&prog_writing, memory_order_acquire))
        cg_os_yield();
    if (old != NULL)
        prog_get(sig, old);
    if (act != NULL) {
        struct sigaction a = *act;
        sigdelset(&a.sa_mask, SIGKILL);            /* as the kernel does */
        sigdelset(&a.sa_mask, SIGSTOP);
        prog_set(sig, &a);
    }
    atomic_flag_clear_explicit(&prog_writing, memory_order_release);
    cg_os_sigmask(SIG_SETMASK, &mask, NULL);
    return true;
}

/* The faulting code's program counter, or with sp its stack pointer
 * (0: not known). */
static uintptr_t fault_reg(void *uc, bool sp)
{
#if defined(__x86_64__)
    return (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[sp ? REG_RSP : REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)(sp ? ((ucontext_t *)uc)->uc_mcontext.sp : ((ucontext_t *)uc)->uc_mcontext.pc);
#else
    (void)uc;
    (void)sp;
    return 0;
#endif
}

static uintptr_t fault_pc(void *uc)
{
    return fault_reg(uc, false);
}

/* A signal sent by kill, tgkill, raise or sigqueue, not a fault. */
static bool sent(const siginfo_t *si) { return si->si_code <= 0; }

/* Hand the signal to the program's disposition, as the kernel would have:
 * its handler, with its mask and flags; or the default action (a fault
 * kills when its instruction runs again, a sent signal is sent again); or
 * nothing, for a sent signal it ignores (a fault cannot be ignored: the
 * kernel kills).  In two steps: chain_default does all of it but call
 * the program's handler, and returns false when there is one to call,
 * with its disposition in *a (SA_RESETHAND applied); chain_call calls it.
 * The handler runs on the stack the kernel gave ours (on_fault), the rest
 * may run on a stack of ours. */
static bool chain_default(int sig, siginfo_t *si, struct sigaction *a)
{
    prog_get(sig, a);
    if (a->sa_handler == SIG_DFL || a->sa_handler == SIG_IGN) {
        if (a->sa_handler == SIG_IGN && sent(si))
            return true;
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        cg_os_sigaction(sig, &dfl, NULL);
        if (sent(si))
            cg_os_resend(sig);          /* not blocked (SA_NODEFER): delivered now */
        return true;
    }
    if (a->sa_flags & SA_RESETHAND) {
        /* as the kernel does: the handler goes back to SIG_DFL, the flags
         * and mask stay (what sigaction reports afterwards) */
        struct sigaction dfl = *a;
        dfl.sa_handler = SIG_DFL;
        cg_fault_sigaction(sig, &dfl, NULL);
    }
    return false;
}

static void chain_call(int sig, siginfo_t *si, void *uc, const struct sigaction *a)
{
    sigset_t mask = a->sa_mask, before;
    if (!(a->sa_flags & SA_NODEFER))
        sigaddset(&mask, sig);
    cg_os_sigmask(SIG_BLOCK, &mask, &before);
    if (a->sa_flags & SA_SIGINFO)
        a->sa_sigaction(sig, si, uc);
    else
        a->sa_handler(sig);
    cg_os_sigmask(SIG_SETMASK, &before, NULL);
}

static void chain(int sig, siginfo_t *si, void *uc)
{
    struct sigaction a;
    if (!chain_default(sig, si, &a))
        chain_call(sig, si, uc, &a);
}

/* What the faulting access was: CG_ACCESS_WRITE, _READ, _FETCH (the
 * instruction fetch itself faulted: a jump to memory that is not
 * executable), or _UNKNOWN.  x86_64: the page-fault error code's bits 1
 * (a write) and 4 (an instruction fetch). */
static int fault_write(void *uc)
{
#if defined(__x86_64__)
    long err = ((ucontext_t *)uc)->uc_mcontext.gregs[REG_ERR];
    return err & 16 ? CG_ACCESS_FETCH : err & 2 ? CG_ACCESS_WRITE : CG_ACCESS_READ;
#else
    (void)uc;
    return CG_ACCESS_UNKNOWN;
#endif
}

/* A fault that names no address: on x86_64 a general-protection fault
 * (trap 13, SIGSEGV, si_code SI_KERNEL), which an access through a
 * non-canonical pointer (0xdead000000000000) raises with si_addr 0, or a
 * stack-segment fault (trap 12, SIGBUS), which the same access raises
 * when its address is formed from %rsp or %rbp.  Its error code is no
 * page-fault code, so the access kind is not known either. */
static bool fault_no_addr(const siginfo_t *si, void *uc)
{
#if defined(__x86_64__)
    long trap = ((ucontext_t *)uc)->uc_mcontext.gregs[REG_TRAPNO];
    return si->si_code == SI_KERNEL && si->si_addr == NULL && (trap == 13 || trap == 12);
#else
    (void)si, (void)uc;
    return false;
#endif
}

/* A fault while this thread's handler examines or reports an earlier one:
 * the handler read metadata that is gone (a heap header made inaccessible
 * behind its back).  In a program linking libchunkguard.a no pc tells our
 * code apart, so without this the handler would run again on the same
 * metadata, fault again, and recurse through the alternate stack until it
 * overflowed into a report about its own guard page.  One line, no
 * metadata read, then SIGABRT (async-signal-safe; does not return). */
static _Noreturn void fault_in_handler(uintptr_t a, uintptr_t pc)
{
    char line[200];
    size_t n = cg_fmt(line, sizeof line, "==%d==chunkguard: a fault on %p at pc %p while "
                      "handling a fault (its metadata is unreadable); aborting\n",
                      (int)cg_os_getpid(), (void *)a, (void *)pc);
    cg_render_flush_head();      /* a report's first lines, if unwritten */
    cg_os_write_all(2, line, n);
    cg_os_abort();
}

/* How far below and above the faulting stack pointer a stack overflow's
 * access lies: below it, a push or call (8 bytes), a leaf function's use
 * of the x86-64 red zone (128 bytes) or a multi-register push, with room;
 * above it, a store into the frame just made (a large frame's far end
 * stays within the stack and does not fault).  AddressSanitizer uses the
 * same window. */
#define STACK_BELOW 512
#define STACK_ABOVE 65536

/* Is the page fault at a, with the faulting code's stack pointer sp, a
 * stack overflow?  The access is at the stack pointer (the window above)
 * and on memory no access is allowed to: in no mapping (below a main
 * stack that may grow no further) or in a mapping with no permissions (a
 * thread stack's guard region).  Then what lies there goes into detail
 * (cap bytes).  A general-protection fault names no address; a SIGBUS or
 * a fault on memory that may be read (a write to read-only data beside
 * the stack) is no overflow. */
static bool fault_stack_overflow(int sig, const siginfo_t *si, uintptr_t a, uintptr_t sp,
                                 char *detail, size_t cap)
{
    if (sig != SIGSEGV || sp < STACK_BELOW || a < sp - STACK_BELOW ||
        a - (sp - STACK_BELOW) >= STACK_BELOW + STACK_ABOVE ||
        (si->si_code != SEGV_MAPERR && si->si_code != SEGV_ACCERR))
        return false;
    cg_mapping_t m;
    bool mapped = cg_find_mapping(a, &m);
    if (mapped && (m.perms[0] != '-' || m.perms[1] != '-' || m.perms[2] != '-'))
        return false;
    size_t n = a == sp  ? cg_fmt(detail, cap, "%p is at the stack pointer", (void *)a)
                : a < sp ? cg_fmt(detail, cap, "%p is %zu bytes below the stack pointer %p",
                                  (void *)a, (size_t)(sp - a), (void *)sp)
                         : cg_fmt(detail, cap, "%p is %zu bytes above the stack pointer %p",
                                  (void *)a, (size_t)(a - sp), (void *)sp);
    if (mapped)
        cg_fmt(detail + n, cap - n, ", in the guard region [%p, %p) below this thread's stack",
               (void *)m.lo, (void *)m.hi);
    else
        cg_fmt(detail + n, cap - n, ", in no mapping: below the end of the stack (the main "
               "thread's stack grows no further than its limit, ulimit -s)");
    return true;
}

/* One fault, as on_fault hands it to fault_work; call and act are
 * fault_work's answer: the fault is not ours, and the program's handler,
 * act, is to be called. */
typedef struct fault {
    int sig;
    siginfo_t *si;
    void *uc;
    bool call;
    struct sigaction act;
} fault_t;

/* Everything the handler does but call the program's handler: decide
 * whose the fault is, report it, or hand it to the program's disposition
 * (chain_default).  Returns only for a fault that is not ours; every
 * report of ours ends the process. */
static void fault_work(void *arg)
{
    fault_t *f = arg;
    int sig = f->sig;
    siginfo_t *si = f->si;
    void *uc = f->uc;
    uintptr_t pc = fault_pc(uc), a = (uintptr_t)si->si_addr;
    /* cleared before the program's handler runs (it may longjmp away);
     * every other way out of here is a report that ends the process */
    cg_self.in_fault = 1;
    bool in_code = pc >= code_lo && pc < code_hi;
    bool no_addr = fault_no_addr(si, uc);
    cg_vg_quiet_begin();   /* reads metadata kept from the program (vgclient.h) */
    if (!in_code && cg_shadow_in_pages((void *)a))
        cg_guard_fault((void *)a, pc, fault_write(uc), uc);      /* does not return */
    if (!in_code)    /* past a heap's top, or a metadata guard page: reported, no return */
        cg_describe_edge_fault((void *)a, pc, fault_write(uc), uc);
    /* No program call: the faulting code is the frame the report shows. */
    const cg_call_t call = { .caller = pc, .op = "a memory access", .tc = NULL,
                             .mt = !CG_SINGLE_THREAD_P };
    /* A live big block is ours as a heap is: the program may have changed
     * its pages' protection (mprotect), as it can a heap block's. */
    uintptr_t big_lo = 0, big_hi = 0;
    const cg_chunk_t *big = in_code || cg_in_heap((void *)a)
                                ? NULL : cg_big_holding(a, &call, &big_lo, &big_hi);
    if (!in_code && !cg_in_heap((void *)a) && big == NULL) {
        /* Not ours.  With no handler of the program's to take it, the
         * instrumented modes say what the address is first (once: the
         * default action follows). */
        struct sigaction old;
        prog_get(sig, &old);
        char sdetail[300];
        if (cg_mode.instrumented && prog_default(&old)) {
            if (!no_addr &&
                fault_stack_overflow(sig, si, a, fault_reg(uc, true), sdetail, sizeof sdetail))
                cg_dbg_report_stack_overflow((void *)a, pc, fault_write(uc), uc, sdetail);
            else
                cg_dbg_report_wild((void *)a, pc, no_addr ? CG_ACCESS_UNKNOWN : fault_write(uc),
                                   uc, no_addr);
        }
        cg_vg_quiet_end();
        cg_self.in_fault = 0;
        f->call = !chain_default(sig, si, &f->act);
        return;
    }
    char detail[400], where[300];
    cg_symbolize(pc, where, sizeof where);
    const char *sname = sig == SIGBUS ? "SIGBUS" : "SIGSEGV";
    cg_check_t check;
    if (in_code && no_addr) {
        cg_fmt(detail, sizeof detail, "%s inside chunkguard at %p (%s), touching an unknown "
               "address: the fault gave none (a general-protection or, through the stack or frame "
               "pointer, a stack-segment fault, which an access through a non-canonical "
               "pointer such as 0xdead000000000000 raises on x86-64)",
               sname, (void *)pc, where);
        cg_fail_no_addr(&call, CG_CK_FAULT_INSIDE, detail);
    }
    if (in_code) {
        check = CG_CK_FAULT_INSIDE;
        cg_fmt(detail, sizeof detail, "%s inside chunkguard at %p (%s), touching %p", sname,
               (void *)pc, where, (void *)a);
    } else if (big != NULL) {
        check = CG_CK_FAULT_BIG;
        cg_fmt(detail, sizeof detail, "%s on %p, %zu bytes into the %zu-byte mapping at %p of "
               "a live big block, at %p (%s)%s", sname, (void *)a, (size_t)(a - big_lo),
               (size_t)(big_hi - big_lo), (void *)big_lo, (void *)pc, where,
               fault_write(uc) == CG_ACCESS_FETCH ? "; an instruction fetch" : "");
    } else {
        check = cg_heap_offset((void *)a) < CG_HEAP_DATA_OFF ? CG_CK_FAULT_GUARD : CG_CK_FAULT_HEAP;
        cg_fmt(detail, sizeof detail, "%s on %p, at %p (%s)%s", sname, (void *)a, (void *)pc,
               where, fault_write(uc) == CG_ACCESS_FETCH ? "; an instruction fetch" : "");
    }
    /* In debug mode the shadow may know the block at a. */
    if (cg_mode.instrumented && (cg_in_heap((void *)a) || big != NULL))
        cg_dbg_report_fault(&call, check, (void *)a, big, detail);
    cg_fail_with(&call, check, (void *)a, detail);
}

/* The stack fault_work runs on.  The handler runs on the thread's
 * alternate signal stack: ours (CG_ALT_BYTES) or the program's own, which
 * may be far smaller (SIGSTKSZ, MINSIGSTKSZ, 8 KiB), where deciding whose
 * the fault is (lock-order checks record stacks, the maps are read) and
 * reporting it (describing the address, unwinding, symbolizing) would run
 * off its end into whatever lies below, and the fault there would be
 * reported as one in the handler instead of the program's.  With less
 * than FAULT_ROOM left on the alternate stack the work runs on a stack
 * mapped for it (FAULT_STACK, an inaccessible page below), unmapped when
 * the work returns (a fault that is not ours); a report leaves it, as it
 * ends the process.  The program's handler is called on the stack the
 * kernel gave: the program's own, as without us, below only on_fault's
 * frame.  A fault in the work there is delivered at the top of the
 * alternate stack again (the mapped one is not it), over this frame, and
 * ends in fault_in_handler, which reads none of it.  On the thread's own
 * stack (no alternate one) the room is not measured: the kernel could
 * deliver the signal there, so the stack is not the exhausted one.  No
 * memory for the mapping: the work runs where it is, as it did. */
#define FAULT_ROOM  CG_REPORT_ROOM
#define FAULT_STACK CG_REPORT_STACK

/* cg_self.in_fault while on_fault has not yet got to fault_work (which
 * sets 1): the handler's own frames are being built on the stack the
 * kernel gave it. */
#define FAULT_ENTERED 2

static CG_NOINLINE void on_fault_work(int sig, siginfo_t *si, void *uc, uint8_t was)
{
    if (sent(si)) {
        cg_self.in_fault = was;
        chain(sig, si, uc);             /* si_addr means nothing here */
        return;
    }
    /* set by a fault report the program jumped out of (a SIGABRT handler's
     * siglongjmp): the faulting code is above that report's frames */
    if (CG_UNLIKELY(was) &&
        !(fault_reg(uc, true) != 0 && cg_report_went_on(fault_reg(uc, true))))
        fault_in_handler((uintptr_t)si->si_addr, fault_pc(uc));
    fault_t f = { .sig = sig, .si = si, .uc = uc, .call = false };
    if (cg_os_altstack_room((uintptr_t)__builtin_frame_address(0)) >= FAULT_ROOM ||
        !cg_os_call_on_new_stack(fault_work, &f, FAULT_STACK))
        fault_work(&f);
    if (f.call)
        chain_call(sig, si, uc, &f.act);
}

/* The handler's entry: a frame of a few words, so that it fits where the
 * kernel's signal frame left almost nothing of a program's small
 * alternate stack.  A fault while the handler builds its frames there is
 * delivered at that stack's top again, over them, and would fault at the
 * same place for ever (SA_NODEFER): entered again before its work began,
 * it ends the process with the fault's signal instead. */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
    uint8_t was = cg_self.in_fault;
    if (CG_UNLIKELY(was == FAULT_ENTERED))
        cg_os_fault_no_stack(sig);
    if (!was)
        cg_self.in_fault = FAULT_ENTERED;
    on_fault_work(sig, si, uc, was);
}

/* Our executable segment, from our own ELF program headers (no file or
 * /proc read at start-up).  When chunkguard is linked into the program
 * (libchunkguard.a) that segment is the program's too: then only faults on
 * our heaps count as ours. */
extern const ElfW(Ehdr) __ehdr_start CG_HIDDEN;

static void find_code(void)
{
    const ElfW(Ehdr) *eh = &__ehdr_start;
    uintptr_t exe_phdr = cg_os_getauxval(AT_PHDR);
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
    if ((uintptr_t)ph == exe_phdr)
        return;                                 /* we are the program */
    uintptr_t base = (uintptr_t)eh, first = UINTPTR_MAX;
    for (unsigned i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr < first)
            first = ph[i].p_vaddr;
    if (first == UINTPTR_MAX)
        return;
    base -= first;
    /* The shared library has several executable segments (the cold code
     * has its own, see the Makefile): the range spans them all. */
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (unsigned i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
            if (base + ph[i].p_vaddr < lo)
                lo = base + ph[i].p_vaddr;
            if (base + ph[i].p_vaddr + ph[i].p_memsz > hi)
                hi = base + ph[i].p_vaddr + ph[i].p_memsz;
        }
    if (lo < hi) {
        code_lo = lo;
        code_hi = hi;
    }
}

bool cg_in_own_code(uintptr_t pc)
{
    return pc >= code_lo && pc < code_hi;
}

/* Each thread's own signal stack, so that the handler runs with a smashed
 * or exhausted program stack: CG_ALT_BYTES above an inaccessible page.
 * Made by the creating thread in pthread_create (entry/threadreg.c), or
 * by the thread itself at its first call (a thread made otherwise: libc's
 * own, or chunkguard linked into the program); either way the thread's
 * value of alt_key names it, whose destructor unmaps it at thread exit,
 * whether or not the program replaced it with a sigaltstack of its own
 * meanwhile (no TLS: the library's is held to 64 bytes).  alt_key exists
 * only in the modes that report the program's faults. */
#define CG_ALT_BYTES (64 * 1024)

static unsigned alt_key;
static bool alt_key_ok;

/* Signal stacks of threads that exited, kept (resident, their guard page
 * still inaccessible) for threads made later: a short thread then costs
 * no mmap, mprotect and munmap (with its TLB shootdown) for its stack.
 * Each slot is taken and filled with one atomic exchange, so no lock. */
#define ALT_SPARES 8
static char *alt_spare[ALT_SPARES];

/* A signal stack's lowest usable byte: a spare one, or a new one; NULL
 * (no memory). */
static char *alt_new(void)
{
    for (int i = 0; i < ALT_SPARES; i++)
        if (__atomic_load_n(&alt_spare[i], __ATOMIC_RELAXED) != NULL) {
            char *sp = __atomic_exchange_n(&alt_spare[i], NULL, __ATOMIC_ACQUIRE);
            if (sp != NULL)
                return sp;
        }
    char *m = cg_os_map(CG_ALT_BYTES + cg_pagesize);
    if (m == NULL)
        return NULL;
    cg_os_protect(m, cg_pagesize, PROT_NONE);
    return m + cg_pagesize;
}

/* sp (no thread's signal stack now) into a spare slot, or unmapped. */
static void alt_free(char *sp)
{
    for (int i = 0; i < ALT_SPARES; i++) {
        char *none = NULL;
        if (__atomic_compare_exchange_n(&alt_spare[i], &none, sp, false, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED))
            return;
    }
    cg_os_unmap(sp - cg_pagesize, CG_ALT_BYTES + cg_pagesize);
}

/* alt_key's destructor (thread exit): sp stops being the thread's signal
 * stack if it still is, and goes.  A program's own one stays. */
static void alt_release(void *sp)
{
    void *now;
    if (cg_os_altstack((void *)1, 0, &now) && now == sp)
        cg_os_altstack(NULL, 0, &now);
    cg_self.alt_ours = 0;
    alt_free(sp);
}

/* Install sp as the calling thread's signal stack and name it in alt_key;
 * false (nothing installed) if the kernel refused it. */
static bool alt_install(char *sp)
{
    void *old;
    if (!cg_os_altstack(sp, CG_ALT_BYTES, &old))
        return false;
    cg_os_thread_key_set(alt_key, sp);
    cg_self.alt_ours = 1;
    return true;
}

void cg_fault_thread_start(void)
{
    void *old;
    /* ours already (pthread_create installed it: no call to ask), or the
     * program's own, which stays */
    if (!alt_key_ok || cg_self.alt_ours || !cg_os_altstack((void *)1, 0, &old) || old != NULL)
        return;
    char *sp = alt_new();
    if (sp == NULL)
        return;
    /* a key past libc's first 32 may allocate its block: a callout */
    cg_callout_t co = cg_callout_begin();
    bool ok = alt_install(sp);
    cg_callout_end(co);
    if (!ok)
        alt_free(sp);
}

/* What pthread_create hands the new thread: at the top of its signal
 * stack, read before anything else can use that stack. */
typedef struct alt_start {
    void *(*fn)(void *);        /* the program's thread function           */
    void *arg;                  /* its argument                            */
} alt_start_t;

static void *alt_thread_begin(void *p)
{
    char *sp = p;
    const alt_start_t *st = (const alt_start_t *)(sp + CG_ALT_BYTES) - 1;
    void *(*fn)(void *) = st->fn;
    void *arg = st->arg;
    if (!alt_install(sp))
        alt_free(sp);
    return fn(arg);
}

int cg_fault_thread_create(pthread_t *thread, const pthread_attr_t *attr,
                           void *(*fn)(void *), void *arg)
{
    char *sp = alt_key_ok ? alt_new() : NULL;
    if (sp == NULL)
        return cg_os_thread_create_next(thread, attr, fn, arg);
    alt_start_t *st = (alt_start_t *)(sp + CG_ALT_BYTES) - 1;
    st->fn = fn;
    st->arg = arg;
    int err = cg_os_thread_create_next(thread, attr, alt_thread_begin, sp);
    if (err != 0)
        alt_free(sp);
    return err;
}

CG_STARTUP void cg_fault_install(void)
{
    find_code();               /* stacks use it too, handler or not */
    if (!cg_opt.handle_segv)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    cg_os_sigaction(SIGSEGV, &sa, &prog[0].sa);
    cg_os_sigaction(SIGBUS, &sa, &prog[1].sa);
    installed = true;
    if (cg_mode.instrumented)
        alt_key_ok = cg_os_thread_key(&alt_key, alt_release);
}
