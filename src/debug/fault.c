/*
 * fault.c — SIGSEGV/SIGBUS: a fault inside chunkguard's code, or on an
 * address in chunkguard's heaps, becomes a report instead of a bare crash.
 *
 * Installed at initialisation (option handle_segv, default on) with
 * sigaction, remembering the handler that was there.  A fault that is not
 * ours — the program's own NULL dereference, say — is passed to that
 * handler, or, when it was the default action, the default is restored and
 * the faulting instruction runs again, so the program dies exactly as it
 * would have without us.  A program that installs its own handler later
 * simply replaces ours.
 *
 * Ours are: a fault whose instruction is in libchunkguard's code (our
 * metadata was damaged past what the checks could see: a wild write), and
 * a fault on an address inside one of our heap regions (the guard page
 * between a heap's metadata and its first block: an underflow).  In debug
 * mode the report also says what the shadow knows of the address.
 *
 * In the instrumented modes each thread gets its own alternate signal
 * stack at its first call (unless the program set one), so the handler
 * runs on a smashed or exhausted stack too.
 */
#define _GNU_SOURCE
#include "fault.h"

#include <elf.h>
#include <link.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/auxv.h>
#include <ucontext.h>
#include <unistd.h>

#include "debug.h"
#include "describe.h"
#include "guard.h"
#include "heap.h"
#include "options.h"
#include "checks.h"
#include "shadow.h"
#include "symbolize.h"
#include "thread.h"
#include "vgclient.h"

static struct sigaction old_segv, old_bus;
static uintptr_t code_lo, code_hi;      /* our executable mapping */

static uintptr_t fault_pc(void *uc)
{
#if defined(__x86_64__)
    return (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)((ucontext_t *)uc)->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}

/* Hand the fault to whoever had the signal before us. */
static void chain(int sig, siginfo_t *si, void *uc)
{
    struct sigaction *old = sig == SIGBUS ? &old_bus : &old_segv;
    if (old->sa_flags & SA_SIGINFO) {
        old->sa_sigaction(sig, si, uc);
    } else if (old->sa_handler == SIG_DFL || old->sa_handler == SIG_IGN) {
        /* the default action, when the instruction faults again */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        cg_os_sigaction(sig, &dfl, NULL);
    } else {
        old->sa_handler(sig);
    }
}

/* Did the faulting access write (1), read (0), or is it not known (-1)?
 * x86_64: the page-fault error code's bit 1. */
static int fault_write(void *uc)
{
#if defined(__x86_64__)
    return (((ucontext_t *)uc)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
    (void)uc;
    return -1;
#endif
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    uintptr_t pc = fault_pc(uc), a = (uintptr_t)si->si_addr;
    bool in_code = pc >= code_lo && pc < code_hi;
    cg_vg_quiet_begin();   /* reads metadata kept from the program (vgclient.h) */
    if (!in_code && cg_shadow_in_pages((void *)a))
        cg_guard_fault((void *)a, pc, fault_write(uc), uc);      /* does not return */
    if (!in_code)    /* past a heap's top, or a metadata guard page: reported, no return */
        cg_describe_edge_fault((void *)a, pc, fault_write(uc), uc);
    if (!in_code && !cg_in_heap((void *)a)) {
        /* Not ours.  With no handler of the program's to take it, the
         * instrumented modes say what the address is first (once: the
         * default action follows). */
        struct sigaction *old = sig == SIGBUS ? &old_bus : &old_segv;
        if (cg_mode.instrumented && !(old->sa_flags & SA_SIGINFO) &&
            old->sa_handler == SIG_DFL && (si->si_code > 0 || sig == SIGBUS))
            cg_dbg_report_wild((void *)a, pc, fault_write(uc), uc);
        cg_vg_quiet_end();
        chain(sig, si, uc);
        return;
    }
    char detail[400], where[300];
    cg_symbolize(pc, where, sizeof where);
    const char *sname = sig == SIGBUS ? "SIGBUS" : "SIGSEGV";
    cg_check_t check;
    if (in_code) {
        check = CG_CK_FAULT_INSIDE;
        cg_fmt(detail, sizeof detail, "%s inside chunkguard at %p (%s), touching %p", sname,
               (void *)pc, where, (void *)a);
    } else {
        check = cg_heap_offset((void *)a) < CG_HEAP_DATA_OFF ? CG_CK_FAULT_GUARD : CG_CK_FAULT_HEAP;
        cg_fmt(detail, sizeof detail, "%s on %p, at %p (%s)", sname, (void *)a, (void *)pc, where);
    }
    /* No program call: the faulting code is the frame the report shows. */
    const cg_call_t call = { .caller = pc, .op = "a memory access", .tc = NULL,
                             .mt = !CG_SINGLE_THREAD_P };
    /* In debug mode the shadow may know the block at a. */
    if (cg_mode.instrumented && cg_in_heap((void *)a))
        cg_dbg_report_fault(&call, check, (void *)a, detail);
    cg_fail_with(&call, check, (void *)a, detail);
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
 * Ours is known at thread exit by a word at its lowest address (the last
 * a handler's frames would reach) that names its own address: no TLS. */
#define CG_ALT_BYTES (64 * 1024)

static uintptr_t alt_mark(const void *sp)
{
    return (uintptr_t)sp ^ cg_link_secret ^ 0x616c74737461636bull;
}

void cg_fault_thread_start(void)
{
    void *old;
    if (!cg_opt.handle_segv || !cg_os_altstack((void *)1, 0, &old) || old != NULL)
        return;                  /* the program's own alternate stack stays */
    char *m = cg_os_map(CG_ALT_BYTES + cg_pagesize);
    if (m == NULL)
        return;
    cg_os_protect(m, cg_pagesize, PROT_NONE);
    char *sp = m + cg_pagesize;
    *(uintptr_t *)sp = alt_mark(sp);
    if (!cg_os_altstack(sp, CG_ALT_BYTES, &old))
        cg_os_unmap(m, CG_ALT_BYTES + cg_pagesize);
}

void cg_fault_thread_exit(void)
{
    void *sp;
    if (!cg_os_altstack((void *)1, 0, &sp) || sp == NULL ||
        *(const uintptr_t *)sp != alt_mark(sp))
        return;
    cg_os_altstack(NULL, 0, &sp);
    cg_os_unmap((char *)sp - cg_pagesize, CG_ALT_BYTES + cg_pagesize);
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
    cg_os_sigaction(SIGSEGV, &sa, &old_segv);
    cg_os_sigaction(SIGBUS, &sa, &old_bus);
}
