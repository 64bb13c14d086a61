/*
 * stack.c — stack capture with libunwind (see stack.h).
 *
 * libunwind 1.6.2 (Debian 12's libunwind8) is used through unw_backtrace,
 * its fast path: a per-thread cache of frame shapes keyed by return
 * address, falling back to a DWARF step (unw_step) for an address it has
 * not seen.  Four of its habits matter inside an allocator:
 *
 * 1. Memory validation through a pipe.  Its local accessor validates an
 *    address before reading it by writing one byte from it into a pipe it
 *    keeps open (mincore or msync first, then read() one byte from the
 *    pipe's read end to drain it, then syscall(SYS_write) one byte into the
 *    write end; EFAULT means unreadable).  The pipe is made once, at its
 *    initialisation (pipe2, O_CLOEXEC|O_NONBLOCK), and its two descriptor
 *    numbers are kept in a static array.  A read that fails with anything
 *    but EAGAIN makes it close both numbers and make a new pipe.  So when
 *    a program closes every descriptor (daemons do) and opens files that
 *    get the same numbers, libunwind reads a byte from, writes a byte to,
 *    or closes the program's file.  This is not rare: Debian's build
 *    validates every read made during a DWARF step (unw_step sets the
 *    validation bit before dwarf_step and only ORs the old bit back), so
 *    every first capture through a new return address validates, limited
 *    only by a four-page cache of good pages.  (Source: libunwind's
 *    src/x86_64/Ginit.c, write_validate/open_pipe/validate_mem, and
 *    src/x86_64/Gstep.c; for the 1.6.2 build Debian ships, checked in the
 *    disassembly of libunwind.a's Linit.o and Lstep.o, and with strace:
 *    pipe2 at the first capture, read and write on the pipe at later ones.
 *    Without the fix, capture::fd_reuse_never_touched sees libunwind read
 *    the program's files and close them.)
 *
 *    The fix: before libunwind initialises, point its own import slots
 *    (the GOT entries of libunwind.so, nobody else's) for pipe2, pipe,
 *    read, write and syscall at the functions below.  guard_pipe2 creates
 *    no pipe: it hands back two negative numbers that no descriptor can
 *    have.  guard_read answers EAGAIN ("pipe empty") for the first;
 *    guard_syscall/guard_write answer the write to the second by asking the
 *    kernel whether the byte is readable with process_vm_readv on our own
 *    pid (no descriptor; EFAULT when unreadable).  Every other call passes
 *    through to libc unchanged.  So validation keeps working, and no
 *    descriptor number is ever stored, read, written or closed by it.  If
 *    the slots cannot be found (another libunwind build, a static copy),
 *    the mode becomes CG_STACK_CALLER_ONLY and libunwind is never called.
 *
 * 2. Locks against the loader lock.  On a frame-cache miss libunwind looks
 *    the address up with dl_iterate_phdr, which takes the loader's
 *    (recursive) dl_load_write_lock.  Under the default UNW_CACHE_GLOBAL
 *    policy it does so while holding its own register-state cache mutex
 *    (dwarf_step: lock, fetch_proc_info, unlock), so a thread that holds
 *    the loader lock and calls malloc (dlopen/dlclose bookkeeping, a
 *    dl_iterate_phdr callback) would wait for that mutex while its holder
 *    waits for the loader lock.  Priming sets UNW_CACHE_NONE: no libunwind
 *    lock is then held across dl_iterate_phdr, and the only lock a capture
 *    takes is the loader's own, which is recursive for the thread already
 *    holding it (malloc inside dlopen or dlsym).  Callers capture before
 *    taking any chunkguard lock (stack.h), so there is no cycle through
 *    our locks either.  The per-thread frame cache (the fast path) does not
 *    depend on the policy, and the global cache saved little here anyway
 *    (a new thread's first 16-frame capture: 0.24 ms without, 0.21 ms
 *    with).  tests/unit/stk_capture.c reproduces the deadlock with the
 *    global cache (capture::loader_lock_holder_and_waiter_both_finish).
 *
 * 3. errno.  The first capture leaves EAGAIN in errno (the validation
 *    read), and later ones may too: every capture saves and restores it.
 *
 * 4. malloc.  unw_backtrace itself never calls malloc (its caches come from
 *    mmap); unw_get_proc_name does, and is never used.  A thread's frame
 *    cache is registered with pthread_setspecific, which callocs only for
 *    keys past the first 32: priming at start-up gets libunwind its key
 *    early.  Should anything in the unwinder still call malloc, the
 *    recursion guard (cg_self.in_capture) keeps that inner malloc from
 *    unwinding.
 */
#define _GNU_SOURCE
#include "stack.h"

#include "config.h"

#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <dlfcn.h>

/* libunwind is loaded when first needed (debug mode), not linked: a
 * process in fast mode maps neither it nor liblzma, and libunwind's
 * _Unwind_* functions never enter the program's global symbol scope
 * (RTLD_LOCAL).  These are the three names we use. */
#define CG_STR_(x) #x
#define CG_STR(x) CG_STR_(x)
static int (*p_backtrace)(void **, int);
static int (*p_set_caching_policy)(unw_addr_space_t, unw_caching_policy_t);
static unw_addr_space_t *p_local_as;
/* For cg_stack_read_set only (optional: without them no stack is memoised). */
static int (*p_getcontext)(unw_context_t *);
static int (*p_init_local)(unw_cursor_t *, unw_context_t *);
static int (*p_step)(unw_cursor_t *);
static int (*p_get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
static int (*p_get_save_loc)(unw_cursor_t *, int, unw_save_loc_t *);
/* For cg_stack_capture_signal. */
static int (*p_init_local2)(unw_cursor_t *, unw_context_t *, int);
/* For cg_stack_caller_of. */
static int (*p_get_proc_info)(unw_cursor_t *, unw_proc_info_t *);

static bool load_libunwind(void)
{
    void *h = cg_os_dlopen("libunwind.so.8");
    if (h == NULL)
        return false;
    p_set_caching_policy = (int (*)(unw_addr_space_t, unw_caching_policy_t))
        cg_os_dlsym(h, CG_STR(unw_set_caching_policy));
    p_local_as = (unw_addr_space_t *)cg_os_dlsym(h, CG_STR(unw_local_addr_space));
    p_backtrace = (int (*)(void **, int))cg_os_dlsym(h, CG_STR(unw_backtrace));
    p_getcontext = (int (*)(unw_context_t *))cg_os_dlsym(h, CG_STR(unw_tdep_getcontext));
    p_init_local = (int (*)(unw_cursor_t *, unw_context_t *))cg_os_dlsym(h, CG_STR(unw_init_local));
    p_step = (int (*)(unw_cursor_t *))cg_os_dlsym(h, CG_STR(unw_step));
    p_get_reg = (int (*)(unw_cursor_t *, unw_regnum_t, unw_word_t *))cg_os_dlsym(h, CG_STR(unw_get_reg));
    p_get_save_loc = (int (*)(unw_cursor_t *, int, unw_save_loc_t *))
        cg_os_dlsym(h, CG_STR(unw_get_save_loc));
    p_init_local2 = (int (*)(unw_cursor_t *, unw_context_t *, int))
        cg_os_dlsym(h, CG_STR(unw_init_local2));
    p_get_proc_info = (int (*)(unw_cursor_t *, unw_proc_info_t *))
        cg_os_dlsym(h, CG_STR(unw_get_proc_info));
    return p_backtrace != NULL && p_set_caching_policy != NULL && p_local_as != NULL;
}

uintptr_t cg_stack_unwinder_code(void)
{
    return (uintptr_t)p_backtrace;
}

/* Compile-time switches, always 0 or 1, so that tests/suites/25-stacks.sh
 * can build the capture without a safeguard and show its test fails. */
#ifndef CG_STACK_FD_GUARD          /* redirect libunwind's validation pipe */
#define CG_STACK_FD_GUARD 1
#endif
#ifndef CG_STACK_KEEP_ERRNO        /* save and restore errno around captures */
#define CG_STACK_KEEP_ERRNO 1
#endif
#ifndef CG_STACK_CACHE_NONE        /* UNW_CACHE_NONE: no libunwind mutex held
                                    * across dl_iterate_phdr */
#define CG_STACK_CACHE_NONE 1
#endif

static int stack_mode;             /* cg_stack_mode_t */
static int prime_state;            /* 0 not started, 1 running, 2 done */

CG_FORK_PATH void cg_stack_after_fork_child(bool unwinding)
{
    /* Another thread of the parent may have held the loader's lock, which
     * libunwind's dl_iterate_phdr takes and priming's dlopen of libunwind
     * too: a child that has not primed never does (fast mode primes at its
     * first report, which would wait for ever), nor finishes a priming
     * another thread of the parent had begun; one that unwinds at every
     * call (the instrumented modes) records call sites only. */
    int mode = __atomic_load_n(&stack_mode, __ATOMIC_ACQUIRE);
    if (mode == CG_STACK_UNPRIMED || __atomic_load_n(&prime_state, __ATOMIC_ACQUIRE) != 2) {
        __atomic_store_n(&prime_state, 2, __ATOMIC_RELEASE);
        __atomic_store_n(&stack_mode, CG_STACK_CALLER_ONLY, __ATOMIC_RELEASE);
    } else if (unwinding && mode == CG_STACK_LIBUNWIND) {
        __atomic_store_n(&stack_mode, CG_STACK_CALLER_ONLY, __ATOMIC_RELEASE);
    }
}

cg_stack_mode_t cg_stack_mode(void)
{
    return (cg_stack_mode_t)__atomic_load_n(&stack_mode, __ATOMIC_ACQUIRE);
}

/* ---- the validation guard (point 1 above) ----------------------------- */

/* Descriptor numbers no open(2) can return; not -1, which libunwind treats
 * as "no pipe". */
#define GUARD_FD_READ  (-0x43470)
#define GUARD_FD_WRITE (-0x43471)

static int guard_pipe2(int fds[2], int flags)
{
    (void)flags;
    fds[0] = GUARD_FD_READ;
    fds[1] = GUARD_FD_WRITE;
    return 0;
}

static int guard_pipe(int fds[2])
{
    return guard_pipe2(fds, 0);
}

static ssize_t guard_read(int fd, void *buf, size_t n)
{
    if (fd == GUARD_FD_READ) {
        errno = EAGAIN;           /* "nothing to drain": keep the "pipe" */
        return -1;
    }
    return cg_os_libc_read(fd, buf, n);
}

/* The validating write: 1 (one byte "written") if readable, else EFAULT.
 * errno is always set, since libunwind loops while errno == EINTR. */
static long validate_write(const void *addr, size_t n)
{
    if (n == 0 || cg_os_readable(addr)) {
        errno = 0;
        return (long)(n ? 1 : 0);
    }
    errno = EFAULT;
    return -1;
}

static ssize_t guard_write(int fd, const void *buf, size_t n)
{
    if (fd == GUARD_FD_WRITE)
        return validate_write(buf, n);
    return cg_os_libc_write(fd, buf, n);
}

/* syscall(2) is variadic; six argument registers cover every system call,
 * and reading unused ones is harmless (glibc's syscall does the same). */
static long guard_syscall(long nr, long a, long b, long c, long d, long e, long f)
{
    if (nr == SYS_write && (int)a == GUARD_FD_WRITE)
        return validate_write((const void *)b, (size_t)c);
    return cg_os_libc_syscall(nr, a, b, c, d, e, f);
}

typedef struct import_patch {
    const char *name;
    void *fn;
    bool done;
} import_patch_t;

enum { P_PIPE2, P_PIPE, P_READ, P_WRITE, P_SYSCALL, P_COUNT };

/* The module that holds libunwind's code, found by an address in it. */
typedef struct unw_module {
    uintptr_t target, self;            /* unw_backtrace, and our own code   */
    uintptr_t bias;                    /* dlpi_addr                          */
    const ElfW(Phdr) *phdr;
    size_t phnum;
    const char *name;
    bool found, has_self;
} unw_module_t;

static bool in_load(const ElfW(Phdr) *ph, size_t phnum, uintptr_t bias, uintptr_t a, size_t len)
{
    for (size_t i = 0; i < phnum; i++) {
        if (ph[i].p_type != PT_LOAD)
            continue;
        uintptr_t lo = bias + ph[i].p_vaddr, hi = lo + ph[i].p_memsz;
        if (a >= lo && a <= hi && len <= hi - a)
            return true;
    }
    return false;
}

static int find_module_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    unw_module_t *m = data;
    if (!in_load(info->dlpi_phdr, info->dlpi_phnum, info->dlpi_addr, m->target, 1))
        return 0;
    m->found = true;
    m->bias = info->dlpi_addr;
    m->phdr = info->dlpi_phdr;
    m->phnum = info->dlpi_phnum;
    m->name = info->dlpi_name;
    m->has_self = in_load(info->dlpi_phdr, info->dlpi_phnum, info->dlpi_addr, m->self, 1);
    return 1;
}

/* A d_ptr of the loaded dynamic section: glibc relocates these in place on
 * x86_64, but be ready for an unrelocated (file) address too. */
static uintptr_t dyn_ptr(const unw_module_t *m, uintptr_t v)
{
    return v < m->bias ? v + m->bias : v;
}

static void patch_slot(const unw_module_t *m, uintptr_t slot, void *fn)
{
    /* A slot inside PT_GNU_RELRO is read-only after relocation (-z now
     * builds): open its page for the store, then close it again. */
    bool relro = false;
    for (size_t i = 0; i < m->phnum; i++) {
        uintptr_t lo = m->bias + m->phdr[i].p_vaddr;
        if (m->phdr[i].p_type == PT_GNU_RELRO && slot >= lo && slot < lo + m->phdr[i].p_memsz)
            relro = true;
    }
    uintptr_t page = slot & ~(uintptr_t)(cg_pagesize - 1);
    if (relro && !cg_os_protect((void *)page, cg_pagesize, PROT_READ | PROT_WRITE))
        return;
    __atomic_store_n((void **)slot, fn, __ATOMIC_RELEASE);
    if (relro)
        cg_os_protect((void *)page, cg_pagesize, PROT_READ);
}

/* Walk one relocation table and patch the slots of the imports we want. */
static void patch_relocs(const unw_module_t *m, uintptr_t rela, size_t bytes,
                         const ElfW(Sym) *symtab, const char *strtab, size_t strsz,
                         import_patch_t *want)
{
    size_t n = bytes / sizeof(ElfW(Rela));
    if (!in_load(m->phdr, m->phnum, m->bias, rela, n * sizeof(ElfW(Rela))))
        return;
    for (size_t i = 0; i < n; i++) {
        const ElfW(Rela) *r = (const ElfW(Rela) *)rela + i;
        unsigned type = (unsigned)ELF64_R_TYPE(r->r_info);
        size_t symi = ELF64_R_SYM(r->r_info);
        if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) || symi == 0)
            continue;
        const ElfW(Sym) *s = symtab + symi;
        if (!in_load(m->phdr, m->phnum, m->bias, (uintptr_t)s, sizeof *s) || s->st_name >= strsz)
            continue;
        const char *name = strtab + s->st_name;
        uintptr_t slot = m->bias + r->r_offset;
        if (!in_load(m->phdr, m->phnum, m->bias, slot, sizeof(void *)))
            continue;
        for (int w = 0; w < P_COUNT; w++) {
            size_t wl = strlen(want[w].name);
            if (wl < strsz - s->st_name && memcmp(name, want[w].name, wl + 1) == 0) {
                patch_slot(m, slot, want[w].fn);
                want[w].done = *(void *volatile *)slot == want[w].fn;
            }
        }
    }
}

/*
 * guard_libunwind - point libunwind's imports of pipe2, pipe, read, write and
 * syscall at the guards above.  True when libunwind can never create a
 * validation pipe (every pipe import it has is patched) and the module is a
 * shared libunwind separate from ours; false means "do not use libunwind".
 * Runs once, at priming, before libunwind initialises.
 */
static bool guard_libunwind(void)
{
    unw_module_t m = {.target = (uintptr_t)p_backtrace, .self = (uintptr_t)&cg_stack_capture};
    cg_os_each_module(find_module_cb, &m);
    if (!m.found || m.has_self || m.name == NULL || strstr(m.name, "libunwind") == NULL)
        return false;
    const ElfW(Dyn) *dyn = NULL;
    for (size_t i = 0; i < m.phnum; i++)
        if (m.phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(m.bias + m.phdr[i].p_vaddr);
    if (dyn == NULL)
        return false;
    uintptr_t symtab = 0, strtab = 0, jmprel = 0, rela = 0;
    size_t strsz = 0, pltrelsz = 0, relasz = 0;
    long pltrel = DT_RELA;
    for (size_t i = 0; i < 4096 && dyn[i].d_tag != DT_NULL; i++) {
        uintptr_t v = dyn[i].d_un.d_val;
        switch (dyn[i].d_tag) {
        case DT_SYMTAB:   symtab = dyn_ptr(&m, v); break;
        case DT_STRTAB:   strtab = dyn_ptr(&m, v); break;
        case DT_STRSZ:    strsz = v; break;
        case DT_JMPREL:   jmprel = dyn_ptr(&m, v); break;
        case DT_PLTRELSZ: pltrelsz = v; break;
        case DT_PLTREL:   pltrel = (long)v; break;
        case DT_RELA:     rela = dyn_ptr(&m, v); break;
        case DT_RELASZ:   relasz = v; break;
        default: break;
        }
    }
    if (symtab == 0 || strtab == 0 || strsz == 0 ||
        !in_load(m.phdr, m.phnum, m.bias, strtab, strsz))
        return false;
    import_patch_t want[P_COUNT] = {
        [P_PIPE2] = {"pipe2", (void *)guard_pipe2, false},
        [P_PIPE] = {"pipe", (void *)guard_pipe, false},
        [P_READ] = {"read", (void *)guard_read, false},
        [P_WRITE] = {"write", (void *)guard_write, false},
        [P_SYSCALL] = {"syscall", (void *)guard_syscall, false},
    };
    const ElfW(Sym) *syms = (const ElfW(Sym) *)symtab;
    if (jmprel != 0 && pltrel == DT_RELA)
        patch_relocs(&m, jmprel, pltrelsz, syms, (const char *)strtab, strsz, want);
    if (rela != 0)
        patch_relocs(&m, rela, relasz, syms, (const char *)strtab, strsz, want);
    /* Safe only if a pipe can never be made: the build we know imports
     * pipe2; a build without it would import pipe. */
    return want[P_PIPE2].done || want[P_PIPE].done;
}

/* ---- capture ---------------------------------------------------------- */

static void prime_once(void)
{
    int mode = CG_STACK_LIBUNWIND;
    if (!load_libunwind() || (CG_SWITCH(CG_STACK_FD_GUARD) && !guard_libunwind()))
        mode = CG_STACK_CALLER_ONLY;
    if (mode == CG_STACK_LIBUNWIND) {
        if (CG_SWITCH(CG_STACK_CACHE_NONE))
            p_set_caching_policy(*p_local_as, UNW_CACHE_NONE);
        __atomic_store_n(&stack_mode, mode, __ATOMIC_RELEASE);
        uintptr_t pcs[CG_STACK_MAX];
        cg_stack_capture(pcs, CG_STACK_MAX, 0);
    }
    __atomic_store_n(&stack_mode, mode, __ATOMIC_RELEASE);
}

void cg_stack_prime(void)
{
    int saved = errno;
    int expected = 0;
    if (__atomic_compare_exchange_n(&prime_state, &expected, 1, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        prime_once();
        __atomic_store_n(&prime_state, 2, __ATOMIC_RELEASE);
    }
    errno = saved;
}

size_t cg_stack_capture(uintptr_t *pcs, size_t max, size_t skip)
{
    if (max > CG_STACK_MAX)
        max = CG_STACK_MAX;
    if (skip > CG_STACK_MAX_SKIP)
        skip = CG_STACK_MAX_SKIP;
    if (max == 0)
        return 0;
    if (max == 1 && skip == 0) {
        pcs[0] = CG_RET_ADDR;
        return 1;
    }
    int mode = __atomic_load_n(&stack_mode, __ATOMIC_ACQUIRE);
    if (mode == CG_STACK_UNPRIMED && !cg_self.in_capture) {
        cg_stack_prime();
        mode = __atomic_load_n(&stack_mode, __ATOMIC_ACQUIRE);
    }
    if (mode != CG_STACK_LIBUNWIND || cg_self.in_capture) {
        if (skip != 0)
            return 0;
        pcs[0] = CG_RET_ADDR;
        return 1;
    }
    /* buf[0] is the return address of the unw_backtrace call (inside this
     * function); buf[1] is our own return address. */
    void *buf[1 + CG_STACK_MAX_SKIP + CG_STACK_MAX];
    int saved = errno;
    cg_self.in_capture = 1;
    bool sect = cg_os_section_enter();   /* libunwind may block every signal */
    int got = p_backtrace(buf, (int)(1 + skip + max));
    cg_os_section_leave(sect);
    cg_self.in_capture = 0;
    if (CG_SWITCH(CG_STACK_KEEP_ERRNO))
        errno = saved;
    size_t n = 0;
    for (int i = (int)(1 + skip); i < got && n < max; i++)
        pcs[n++] = (uintptr_t)buf[i];
    return n;
}

/* Where the frames of a capture keep what unw_backtrace's walk read,
 * found with unw_step (see stack.h). */
size_t cg_stack_read_set(const uintptr_t *pcs, size_t n, size_t first_prog, uintptr_t *addr,
                         uintptr_t *val, size_t cap)
{
    if (__atomic_load_n(&stack_mode, __ATOMIC_ACQUIRE) != CG_STACK_LIBUNWIND || cg_self.in_capture ||
        p_getcontext == NULL || p_init_local == NULL || p_step == NULL || p_get_reg == NULL ||
        p_get_save_loc == NULL || n == 0)
        return 0;
    int saved = errno;
    cg_self.in_capture = 1;
    bool sect = cg_os_section_enter();
    unw_context_t uc;
    unw_cursor_t cur;
    unw_word_t ip = 0, sp = 0;
    size_t w = 0, j = 0;
    bool ok = false;
    if (p_getcontext(&uc) != 0 || p_init_local(&cur, &uc) != 0)
        goto out;
    /* up through the capturing code's frames to pcs[0]'s */
    for (int steps = 0; ip != pcs[0]; steps++)
        if (steps == 32 || p_step(&cur) <= 0 || p_get_reg(&cur, UNW_REG_IP, &ip) != 0)
            goto out;
    /* The frame pointer slots go in only when some program frame finds
     * its CFA through %rbp (the CFA is %rbp + 16, as a frame-pointer
     * prologue makes it): elsewhere %rbp is data the walk ignores, and a
     * loop counter kept there would make every memo stale. */
    uintptr_t raddr[CG_STACK_MAX], rval[CG_STACK_MAX];
    size_t nr = 0;
    bool fp_frame = false;
    for (;;) {
        /* The frame pointer this frame got from the step into it, when
         * that came from memory; a program frame's only: chunkguard's own
         * code has no frame pointers.  The first program frame's comes
         * from whichever of our frames saved the program's %rbp. */
        unw_save_loc_t loc;
        unw_word_t rbp = 0;
        if (j >= first_prog && p_get_save_loc(&cur, UNW_X86_64_RBP, &loc) == 0 &&
            loc.type == UNW_SLT_MEMORY && nr < CG_STACK_MAX) {
            raddr[nr] = loc.u.addr;
            rval[nr++] = *(const uintptr_t *)loc.u.addr;
        }
        /* this frame's pc was read from just below its callee's CFA, which
         * is now the stack pointer */
        if (ip != pcs[j] || w == cap || p_get_reg(&cur, UNW_REG_SP, &sp) != 0 ||
            p_get_reg(&cur, UNW_X86_64_RBP, &rbp) != 0)
            goto out;
        addr[w] = sp - sizeof(uintptr_t);
        val[w++] = ip;
        if (++j == n)
            break;
        if (p_step(&cur) <= 0 || p_get_reg(&cur, UNW_REG_IP, &ip) != 0 ||
            p_get_reg(&cur, UNW_REG_SP, &sp) != 0)
            goto out;
        if (j - 1 >= first_prog && sp == rbp + 2 * sizeof(uintptr_t))
            fp_frame = true;
    }
    for (size_t i = 0; fp_frame && i < nr; i++) {
        if (w == cap)
            goto out;
        addr[w] = raddr[i];
        val[w++] = rval[i];
    }
    ok = true;
out:
    cg_os_section_leave(sect);
    cg_self.in_capture = 0;
    errno = saved;
    return ok ? w : 0;
}

size_t cg_stack_capture_signal(void *ucontext, uintptr_t pc, uintptr_t *pcs, size_t max)
{
    if (max > CG_STACK_MAX)
        max = CG_STACK_MAX;
    if (max == 0)
        return 0;
    pcs[0] = pc;
    if (max == 1 || __atomic_load_n(&stack_mode, __ATOMIC_ACQUIRE) != CG_STACK_LIBUNWIND ||
        cg_self.in_capture || p_init_local2 == NULL || p_step == NULL || p_get_reg == NULL)
        return 1;
    int saved = errno;
    cg_self.in_capture = 1;
    bool sect = cg_os_section_enter();
    unw_cursor_t cur;
    size_t n = 1;
    /* x86_64: libunwind's context is the ucontext_t the kernel gave the
     * handler; UNW_INIT_SIGNAL_FRAME says its pc is the faulting
     * instruction itself, not a return address. */
    if (p_init_local2(&cur, (unw_context_t *)ucontext, UNW_INIT_SIGNAL_FRAME) == 0) {
        unw_word_t ip;
        while (n < max && p_step(&cur) > 0 && p_get_reg(&cur, UNW_REG_IP, &ip) == 0 && ip != 0)
            pcs[n++] = (uintptr_t)ip;
    }
    cg_os_section_leave(sect);
    cg_self.in_capture = 0;
    errno = saved;
    return n;
}

bool cg_stack_caller_of(uintptr_t fn, uintptr_t *sp, uintptr_t *regs, size_t *nregs)
{
#if defined(__x86_64__)
    static const unw_regnum_t saved_regs[] = {
        UNW_X86_64_RBX, UNW_X86_64_RBP, UNW_X86_64_R12, UNW_X86_64_R13,
        UNW_X86_64_R14, UNW_X86_64_R15,
    };
#else
    static const unw_regnum_t saved_regs[1] = { UNW_REG_SP };
#endif
    *nregs = 0;
    if (__atomic_load_n(&stack_mode, __ATOMIC_ACQUIRE) != CG_STACK_LIBUNWIND || cg_self.in_capture ||
        p_getcontext == NULL || p_init_local == NULL || p_step == NULL || p_get_reg == NULL ||
        p_get_proc_info == NULL || fn == 0)
        return false;
    int saved = errno;
    cg_self.in_capture = 1;
    bool sect = cg_os_section_enter();
    unw_context_t uc;
    unw_cursor_t cur;
    bool found = false;
    if (p_getcontext(&uc) == 0 && p_init_local(&cur, &uc) == 0) {
        for (int steps = 0; steps < 64 && !found; steps++) {
            unw_proc_info_t pi;
            if (p_get_proc_info(&cur, &pi) == 0 && pi.start_ip == fn) {
                unw_word_t v;
                if (p_step(&cur) <= 0 || p_get_reg(&cur, UNW_REG_SP, &v) != 0)
                    break;
                *sp = (uintptr_t)v;
                for (size_t i = 0; i < sizeof saved_regs / sizeof saved_regs[0]; i++)
                    if (p_get_reg(&cur, saved_regs[i], &v) == 0)
                        regs[(*nregs)++] = (uintptr_t)v;
                found = true;
            } else if (p_step(&cur) <= 0) {
                break;
            }
        }
    }
    cg_os_section_leave(sect);
    cg_self.in_capture = 0;
    errno = saved;
    return found;
}
